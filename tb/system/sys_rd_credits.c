// SPDX-License-Identifier: MIT
/*
 * sys_rd_credits.c - max_rd_atomic / max_dest_rd_atomic and IBV_SEND_FENCE.
 *
 * 1. Eight RDMA READs posted at once complete in order with the right bytes
 *    whether the requester may have 1 or 4 outstanding; with 1 the READs
 *    run one after the other, so they take longer in simulated cycles than
 *    with 4 (rnic_verbs_sim_cycle()).
 * 2. A responder with max_dest_rd_atomic 0 refuses a READ: the requester
 *    gets IBV_WC_REM_INV_REQ_ERR.
 * 3. A requester with max_rd_atomic 0 cannot issue a READ: the WR completes
 *    with IBV_WC_LOC_QP_OP_ERR (docs/transport.md).
 * 4. FENCE: an RDMA WRITE of a local buffer, fenced behind an RDMA READ into
 *    that buffer, sends the bytes the READ brought.
 * 5. A responder QP moved to RESET while it still owes READ responses sends
 *    none of them after the reset (only frames already in the TX builder
 *    leave), and, connected again, serves READs as a new QP does: the
 *    responses it owed do not count against its new max_dest_rd_atomic.
 */
#include <stdio.h>
#include <string.h>

#include "common.h"
#include "rnic_verbs_ext.h"

#define N 8
#define LEN 2048

static uint64_t reads(int credits)
{
	struct t_pair_cfg cfg;
	struct t_pair p;
	struct t_buf a, b;
	struct ibv_wc wc[N];
	uint64_t t0, t1;
	int i;

	t_pair_default_cfg(&cfg);
	cfg.attrs[0].max_rd_atomic = (uint8_t)credits;
	cfg.attrs[1].max_dest_rd_atomic = (uint8_t)credits;
	t_pair_open(&p, &cfg);
	t_buf_alloc(&a, p.s[0].pd, N * LEN);
	t_buf_alloc(&b, p.s[1].pd, N * LEN);
	t_fill(b.p, N * LEN, 7 + credits);

	t0 = rnic_verbs_sim_cycle();
	for (i = 0; i < N; i++) {
		struct ibv_sge sg = t_sge(&a, (size_t)i * LEN, LEN);

		POST_SEND(p.s[0].qp, i, IBV_WR_RDMA_READ, IBV_SEND_SIGNALED, &sg, 1,
			  t_addr(&b, (size_t)i * LEN), b.mr->rkey, 0);
	}
	POLL(p.s[0].scq, N, wc);
	t1 = rnic_verbs_sim_cycle();
	for (i = 0; i < N; i++)
		EXPECT_WC(&wc[i], i, IBV_WC_SUCCESS, IBV_WC_RDMA_READ,
			  p.s[0].qp->qp_num, LEN, 0, T_ANY);
	CHECK_MEM(a.p, b.p, N * LEN);
	t_buf_free(&a);
	t_buf_free(&b);
	t_pair_close(&p);
	return t1 - t0;
}

static void refused(int side, enum ibv_wc_status exp)
{
	struct t_pair_cfg cfg;
	struct t_pair p;
	struct t_buf a;
	struct ibv_sge sg;
	struct ibv_wc wc;

	t_pair_default_cfg(&cfg);
	if (side == 0)
		cfg.attrs[0].max_rd_atomic = 0;
	else
		cfg.attrs[1].max_dest_rd_atomic = 0;
	t_pair_open(&p, &cfg);
	t_buf_alloc(&a, p.s[0].pd, 64);
	sg = t_sge(&a, 0, 64);
	POST_SEND(p.s[0].qp, 5, IBV_WR_RDMA_READ, IBV_SEND_SIGNALED, &sg, 1,
		  t_addr(&a, 0), a.mr->rkey, 0);
	POLL(p.s[0].scq, 1, &wc);
	EXPECT_WC(&wc, 5, exp, T_ANY, p.s[0].qp->qp_num, T_ANY, T_ANY, T_ANY);
	t_buf_free(&a);
	t_pair_close(&p);
}

static void fence(void)
{
	struct t_pair_cfg cfg;
	struct t_pair p;
	struct t_buf l, r;
	struct ibv_sge sg;
	struct ibv_wc wc[2];

	t_pair_default_cfg(&cfg);
	t_pair_open(&p, &cfg);
	t_buf_alloc(&l, p.s[0].pd, LEN);
	t_buf_alloc(&r, p.s[1].pd, 2 * LEN);
	t_fill(r.p, LEN, 99);
	memset(l.p, 0x5a, LEN);
	sg = t_sge(&l, 0, LEN);
	POST_SEND(p.s[0].qp, 1, IBV_WR_RDMA_READ, IBV_SEND_SIGNALED, &sg, 1,
		  t_addr(&r, 0), r.mr->rkey, 0);
	POST_SEND(p.s[0].qp, 2, IBV_WR_RDMA_WRITE, IBV_SEND_SIGNALED | IBV_SEND_FENCE,
		  &sg, 1, t_addr(&r, LEN), r.mr->rkey, 0);
	POLL(p.s[0].scq, 2, wc);
	EXPECT_WC(&wc[0], 1, IBV_WC_SUCCESS, IBV_WC_RDMA_READ, p.s[0].qp->qp_num, LEN, 0, T_ANY);
	EXPECT_WC(&wc[1], 2, IBV_WC_SUCCESS, IBV_WC_RDMA_WRITE, p.s[0].qp->qp_num, T_ANY, 0, T_ANY);
	CHECK_MEM(r.p + LEN, r.p, LEN);
	t_buf_free(&l);
	t_buf_free(&r);
	t_pair_close(&p);
}

static void reset_mid_read(void)
{
	enum { NR = 4, RLEN = 65536 };
	struct t_pair_cfg cfg;
	struct t_pair p;
	struct t_buf a, b;
	struct ibv_qp_attr qa;
	struct ibv_sge sg;
	struct ibv_wc wc[NR];
	uint64_t f0, f1, f2, c0, c1;
	int i, n;

	t_pair_default_cfg(&cfg);
	cfg.attrs[0].max_rd_atomic = NR;
	cfg.attrs[1].max_dest_rd_atomic = NR;
	t_pair_open(&p, &cfg);
	t_buf_alloc(&a, p.s[0].pd, NR * RLEN);
	t_buf_alloc(&b, p.s[1].pd, NR * RLEN);
	t_fill(b.p, NR * RLEN, 11);
	for (i = 0; i < NR; i++) {
		sg = t_sge(&a, (size_t)i * RLEN, RLEN);
		POST_SEND(p.s[0].qp, i, IBV_WR_RDMA_READ, IBV_SEND_SIGNALED, &sg, 1,
			  t_addr(&b, (size_t)i * RLEN), b.mr->rkey, 0);
	}
	/* About 1000 cycles: the requests have arrived, most of the 256 KiB of
	 * responses (4 x 64 packets) have not left. */
	n = 0;
	for (i = 0; i < 4; i++)
		n += ibv_poll_cq(p.s[0].scq, NR, wc + n);
	CHECKF(n == 0, "%d READs completed before the reset", n);

	memset(&qa, 0, sizeof(qa));
	qa.qp_state = IBV_QPS_RESET;
	f0 = rnic_verbs_wire_frames(1);
	c0 = rnic_verbs_sim_cycle();
	CHECK_OK(ibv_modify_qp(p.s[1].qp, &qa, IBV_QP_STATE));
	c1 = rnic_verbs_sim_cycle();
	f1 = rnic_verbs_wire_frames(1);
	CHECK_OK(ibv_modify_qp(p.s[0].qp, &qa, IBV_QP_STATE));
	/* Let whatever the reset left in flight drain. */
	for (i = 0; i < 64; i++)
		(void)ibv_poll_cq(p.s[0].scq, NR, wc);
	/* A reset QP owes nothing: responses leave while the modify writes
	 * its command registers (about 100 cycles, a 1 KiB response every
	 * ~34), then only the frames the TX builder had taken (up to 11 in
	 * its frame ring; 3 in its large slots before stop 38) and the one
	 * being handed over, not the rest of the 256 response packets; the
	 * reset no longer waits for them either (before: 250 frames, 9780
	 * cycles). */
	f2 = rnic_verbs_wire_frames(1);
	printf("sys_rd_credits: reset while owing READ responses: %llu cycles, "
	       "%llu frames sent after it began, %llu of them after it returned\n",
	       (unsigned long long)(c1 - c0), (unsigned long long)(f2 - f0),
	       (unsigned long long)(f2 - f1));
	CHECKF(f2 - f0 <= 3 + 11 + 1, "node 1 sent %llu frames after its QP was reset",
	       (unsigned long long)(f2 - f0));
	CHECKF(c1 - c0 < 1000, "the reset took %llu cycles", (unsigned long long)(c1 - c0));

	t_connect_qps(p.s[0].qp, p.s[1].qp, cfg.mtu, 0x100, 0x200);
	memset(a.p, 0, NR * RLEN);
	for (i = 0; i < 2; i++) {
		sg = t_sge(&a, (size_t)i * 64, 64);
		POST_SEND(p.s[0].qp, 10 + i, IBV_WR_RDMA_READ, IBV_SEND_SIGNALED, &sg, 1,
			  t_addr(&b, (size_t)i * 64), b.mr->rkey, 0);
		POLL(p.s[0].scq, 1, wc);
		EXPECT_WC(&wc[0], 10 + i, IBV_WC_SUCCESS, IBV_WC_RDMA_READ,
			  p.s[0].qp->qp_num, 64, 0, T_ANY);
	}
	CHECK_MEM(a.p, b.p, 128);
	t_buf_free(&a);
	t_buf_free(&b);
	t_pair_close(&p);
}

int main(void)
{
	uint64_t c1 = reads(1), c4 = reads(4);

	printf("sys_rd_credits: %d READs of %d B: %llu cycles with 1 outstanding, %llu with 4\n",
	       N, LEN, (unsigned long long)c1, (unsigned long long)c4);
	CHECKF(c1 > c4 + c4 / 4, "1 READ credit (%llu cycles) is not slower than 4 (%llu)",
	       (unsigned long long)c1, (unsigned long long)c4);
	refused(1, IBV_WC_REM_INV_REQ_ERR);
	refused(0, IBV_WC_LOC_QP_OP_ERR);
	fence();
	reset_mid_read();
	printf("sys_rd_credits: ok\n");
	return 0;
}
