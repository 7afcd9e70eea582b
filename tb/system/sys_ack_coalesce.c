// SPDX-License-Identifier: MIT
/*
 * sys_ack_coalesce.c - the responder coalesces ACKs when it cannot send
 * them at once.
 *
 * rnic1 streams the responses of a 64 KiB RDMA READ (16 frames at MTU 4096)
 * while rnic0 sends it 32 one-packet RDMA WRITEs, each asking for an ACK.
 * The ACKs queue behind the READ responses; while one waits, a newer ACK of
 * the same QP replaces it, so rnic1 sends fewer than 16 + 32 frames. Every
 * WR still completes successfully, in order, with its bytes in place
 * (rnic_verbs_wire_frames counts what rnic1 sent).
 */
#include <inttypes.h>
#include <stdio.h>

#include "common.h"
#include "rnic_verbs_ext.h"

#define NW 32
#define RLEN (64 * 1024)

int main(void)
{
	struct t_pair_cfg cfg;
	struct t_pair p;
	struct t_buf a, b;
	struct ibv_wc wc[NW + 1];
	struct ibv_sge sg;
	uint64_t f0, f1;
	int i;

	t_pair_default_cfg(&cfg);
	cfg.mtu = IBV_MTU_4096;
	cfg.caps.max_send_wr = 64;
	cfg.cqe = 128;
	t_pair_open(&p, &cfg);
	t_buf_alloc(&a, p.s[0].pd, RLEN + NW * 64);
	t_buf_alloc(&b, p.s[1].pd, RLEN + NW * 64);
	t_fill(b.p, RLEN, 5);
	t_fill(a.p + RLEN, NW * 64, 6);

	f0 = rnic_verbs_wire_frames(1);
	sg = t_sge(&a, 0, RLEN);
	POST_SEND(p.s[0].qp, 0, IBV_WR_RDMA_READ, IBV_SEND_SIGNALED, &sg, 1,
		  t_addr(&b, 0), b.mr->rkey, 0);
	for (i = 0; i < NW; i++) {
		sg = t_sge(&a, RLEN + (size_t)i * 64, 64);
		POST_SEND(p.s[0].qp, 1 + i, IBV_WR_RDMA_WRITE, IBV_SEND_SIGNALED, &sg, 1,
			  t_addr(&b, RLEN + (size_t)i * 64), b.mr->rkey, 0);
	}
	POLL(p.s[0].scq, NW + 1, wc);
	f1 = rnic_verbs_wire_frames(1);
	EXPECT_WC(&wc[0], 0, IBV_WC_SUCCESS, IBV_WC_RDMA_READ, p.s[0].qp->qp_num, RLEN, 0, T_ANY);
	for (i = 0; i < NW; i++)
		EXPECT_WC(&wc[1 + i], 1 + i, IBV_WC_SUCCESS, IBV_WC_RDMA_WRITE, p.s[0].qp->qp_num,
			  T_ANY, 0, T_ANY);
	CHECK_MEM(a.p, b.p, RLEN);
	CHECK_MEM(b.p + RLEN, a.p + RLEN, NW * 64);
	printf("sys_ack_coalesce: rnic1 sent %" PRIu64 " frames for 16 READ responses and %d ACKs\n",
	       f1 - f0, NW);
	CHECKF(f1 - f0 < 16 + NW, "no ACK was coalesced (%" PRIu64 " frames)", f1 - f0);
	CHECKF(f1 - f0 >= 16 + 1, "too few frames: %" PRIu64, f1 - f0);
	t_buf_free(&a);
	t_buf_free(&b);
	t_pair_close(&p);
	return 0;
}
