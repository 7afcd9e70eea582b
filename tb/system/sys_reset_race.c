// SPDX-License-Identifier: MIT
/*
 * sys_reset_race.c - a QP reset or destroyed at any cycle after a receive
 * was posted leaves no DMA of its ring behind and no stale copy of its WQE
 * in the RNIC:
 *
 *   reset    a receive (buffer A) is posted, d cycles later the QP is moved
 *            to RESET and connected again, a receive (buffer B) takes the
 *            same ring slot, and the peer SENDs: the bytes land in B, A
 *            stays untouched;
 *   destroy  the same, but the QP is destroyed (its ring unmapped) and a
 *            new QP takes its place: no DMA access outside mapped pages,
 *            and the SEND to the new QP lands in its buffer.
 *
 * for every d from 0 to SWEEP cycles (rnic_verbs_sim_step()). The RQ
 * doorbell makes the engine read the posted WQE ahead into its WQE cache
 * (rnic_rwqe_cache); the reset drops the QP's entries, and a read the
 * cache took must end before the reset command does.
 *
 * The fuzzer found a window this sweep does not reach (tb/fuzz/findings,
 * hint-after-reset): a read-ahead hint decided in the very cycle of the
 * reset reached the cache a cycle after its entries were dropped, read the
 * ring after the reset command had ended (an IOMMU fault once
 * ibv_destroy_qp unmapped it) and kept what it read for the slot. Here the
 * engine is idle and takes the doorbell at once, long before the reset's
 * command; there the doorbell waited behind other work until that cycle.
 * blk_rnic_responder (case hint_at_reset) puts the reset in that cycle, and
 * the fuzzer's input is in the verbs corpus.
 */
#include <stdio.h>
#include <string.h>

#include "common.h"
#include "rnic_verbs_ext.h"

#define LEN 512
/* The doorbell reaches the engine within a few cycles of the post; the
 * sweep goes well past the read-ahead. */
#define SWEEP 120

static void one(int destroy, uint64_t d)
{
	struct t_pair_cfg cfg;
	struct t_pair p;
	struct t_buf a, b, src;
	struct ibv_sge sg;
	struct ibv_qp_attr qa;
	struct ibv_wc wc;
	uint64_t t0, faults;

	t_pair_default_cfg(&cfg);
	t_pair_open(&p, &cfg);
	t_buf_alloc(&a, p.s[1].pd, LEN);
	t_buf_alloc(&b, p.s[1].pd, LEN);
	t_buf_alloc(&src, p.s[0].pd, LEN);
	t_fill(src.p, LEN, 0x7e5e + d);
	faults = rnic_verbs_iommu_faults(1);

	sg = t_sge(&a, 0, LEN);
	POST_RECV(p.s[1].qp, 1, &sg, 1);
	t0 = rnic_verbs_sim_cycle();
	CHECK_EQ(rnic_verbs_sim_step(d) - t0, d);
	if (destroy) {
		CHECK_OK(ibv_destroy_qp(p.s[1].qp));
		p.s[1].qp = t_create_qp(p.s[1].pd, p.s[1].scq, p.s[1].rcq,
					IBV_QPT_RC, 0, &cfg.caps, &p.s[1].cap);
	} else {
		memset(&qa, 0, sizeof(qa));
		qa.qp_state = IBV_QPS_RESET;
		CHECK_OK(ibv_modify_qp(p.s[1].qp, &qa, IBV_QP_STATE));
	}
	/* What the RESET took: the receive is gone without a completion. */
	EXPECT_EMPTY(p.s[1].rcq, 4);
	CHECK_EQ(rnic_verbs_iommu_faults(1) - faults, 0);
	memset(&qa, 0, sizeof(qa));
	qa.qp_state = IBV_QPS_RESET;
	CHECK_OK(ibv_modify_qp(p.s[0].qp, &qa, IBV_QP_STATE));
	t_connect_qps(p.s[0].qp, p.s[1].qp, cfg.mtu, 0x300, 0x400);

	sg = t_sge(&b, 0, LEN);
	POST_RECV(p.s[1].qp, 2, &sg, 1);
	sg = t_sge(&src, 0, LEN);
	POST_SEND(p.s[0].qp, 3, IBV_WR_SEND, IBV_SEND_SIGNALED, &sg, 1, 0, 0,
		  0);
	POLL(p.s[0].scq, 1, &wc);
	EXPECT_WC(&wc, 3, IBV_WC_SUCCESS, IBV_WC_SEND, p.s[0].qp->qp_num,
		  T_ANY, T_ANY, T_ANY);
	POLL(p.s[1].rcq, 1, &wc);
	EXPECT_WC(&wc, 2, IBV_WC_SUCCESS, IBV_WC_RECV, p.s[1].qp->qp_num,
		  LEN, T_ANY, T_ANY);
	CHECK_MEM(b.p, src.p, LEN);
	CHECK_FILL(a.p, 0, LEN);
	CHECK_EQ(rnic_verbs_iommu_faults(1) - faults, 0);

	t_buf_free(&a);
	t_buf_free(&b);
	t_buf_free(&src);
	t_pair_close(&p);
}

int main(void)
{
	uint64_t d;
	int destroy;

	for (destroy = 0; destroy < 2; destroy++) {
		for (d = 0; d <= SWEEP; d++)
			one(destroy, d);
		printf("%s 0..%d cycles after the receive's post: the next SEND lands in the new receive's buffer%s\n",
		       destroy ? "destroy" : "reset", SWEEP,
		       destroy ? ", no DMA outside mapped pages" : "");
	}
	printf("sys_reset_race: PASS\n");
	return 0;
}
