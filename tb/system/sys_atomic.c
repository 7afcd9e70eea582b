// SPDX-License-Identifier: MIT
/*
 * sys_atomic.c - IBV_WR_ATOMIC_FETCH_AND_ADD and IBV_WR_ATOMIC_CMP_AND_SWP.
 *
 * "The atomic operations are 8-byte, executed atomically by the responder":
 * the local SGE (8 bytes) receives the value before the operation, the
 * remote 8 bytes hold the result. Checked on two nodes and in loopback:
 *   - FETCH_AND_ADD returns the old value and adds;
 *   - CMP_AND_SWP swaps when equal, leaves memory alone when not, and
 *     returns the old value either way;
 *   - 32 FETCH_AND_ADDs on one address in one chain, more than the QP's
 *     max_rd_atomic (4) outstanding at once: each sees the one before;
 *   - an atomic after an RDMA WRITE to the same address sees the written
 *     value (ordering on one QP);
 *   - completions: opcode IBV_WC_COMP_SWAP / IBV_WC_FETCH_ADD, byte_len 8.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "common.h"

#define N_CHAIN 32

static uint64_t get64(const uint8_t *p)
{
	uint64_t v;

	memcpy(&v, p, 8);
	return v;
}

static void put64(uint8_t *p, uint64_t v)
{
	memcpy(p, &v, 8);
}

static void run(int loopback)
{
	unsigned int acc = T_MR_ACCESS | IBV_ACCESS_REMOTE_ATOMIC;
	struct t_pair_cfg cfg;
	struct t_pair p;
	struct t_buf res, tgt, src;
	struct ibv_wc wc[N_CHAIN];
	struct ibv_sge sg;
	uint32_t qpn;
	int i;

	t_pair_default_cfg(&cfg);
	cfg.loopback = loopback;
	cfg.caps.max_send_wr = 64;
	cfg.cqe = 128;
	for (i = 0; i < 2; i++) {
		cfg.attrs[i].access |= IBV_ACCESS_REMOTE_ATOMIC;
		cfg.attrs[i].max_rd_atomic = 4;
		cfg.attrs[i].max_dest_rd_atomic = 4;
	}
	t_pair_open(&p, &cfg);
	qpn = p.s[0].qp->qp_num;
	t_buf_alloc_access(&res, p.s[0].pd, 8 * N_CHAIN, acc);
	t_buf_alloc_access(&src, p.s[0].pd, 64, acc);
	t_buf_alloc_access(&tgt, p.s[1].pd, 64, acc);

	/* FETCH_AND_ADD */
	put64(tgt.p, 0x1000);
	memset(res.p, 0xee, 8);
	sg = t_sge(&res, 0, 8);
	POST_ATOMIC(p.s[0].qp, 1, IBV_WR_ATOMIC_FETCH_AND_ADD, IBV_SEND_SIGNALED,
		    &sg, t_addr(&tgt, 0), tgt.mr->rkey, 0x23, 0);
	POLL(p.s[0].scq, 1, wc);
	EXPECT_WC(&wc[0], 1, IBV_WC_SUCCESS, IBV_WC_FETCH_ADD, qpn, 8, 0, T_ANY);
	CHECK_EQ(get64(res.p), 0x1000);
	CHECK_EQ(get64(tgt.p), 0x1023);

	/* CMP_AND_SWP, equal: swapped */
	POST_ATOMIC(p.s[0].qp, 2, IBV_WR_ATOMIC_CMP_AND_SWP, IBV_SEND_SIGNALED,
		    &sg, t_addr(&tgt, 0), tgt.mr->rkey, 0x1023, 0xdeadbeefcafef00dULL);
	POLL(p.s[0].scq, 1, wc);
	EXPECT_WC(&wc[0], 2, IBV_WC_SUCCESS, IBV_WC_COMP_SWAP, qpn, 8, 0, T_ANY);
	CHECK_EQ(get64(res.p), 0x1023);
	CHECK_EQ(get64(tgt.p), 0xdeadbeefcafef00dULL);

	/* CMP_AND_SWP, not equal: memory unchanged, old value returned */
	POST_ATOMIC(p.s[0].qp, 3, IBV_WR_ATOMIC_CMP_AND_SWP, IBV_SEND_SIGNALED,
		    &sg, t_addr(&tgt, 0), tgt.mr->rkey, 1, 2);
	POLL(p.s[0].scq, 1, wc);
	EXPECT_WC(&wc[0], 3, IBV_WC_SUCCESS, IBV_WC_COMP_SWAP, qpn, 8, 0, T_ANY);
	CHECK_EQ(get64(res.p), 0xdeadbeefcafef00dULL);
	CHECK_EQ(get64(tgt.p), 0xdeadbeefcafef00dULL);

	/* A chain of FETCH_AND_ADDs at the third word of the target. */
	put64(tgt.p + 16, 1000);
	for (i = 0; i < N_CHAIN; i++) {
		struct ibv_sge s = t_sge(&res, 8 * (size_t)i, 8);

		POST_ATOMIC(p.s[0].qp, 100 + i, IBV_WR_ATOMIC_FETCH_AND_ADD,
			    IBV_SEND_SIGNALED, &s, t_addr(&tgt, 16), tgt.mr->rkey,
			    (uint64_t)i + 1, 0);
	}
	POLL(p.s[0].scq, N_CHAIN, wc);
	{
		uint64_t v = 1000;

		for (i = 0; i < N_CHAIN; i++) {
			EXPECT_WC(&wc[i], 100 + i, IBV_WC_SUCCESS, IBV_WC_FETCH_ADD,
				  qpn, 8, 0, T_ANY);
			CHECKF(get64(res.p + 8 * i) == v,
			       "add %d saw %" PRIu64 ", expected %" PRIu64, i,
			       get64(res.p + 8 * i), v);
			v += (uint64_t)i + 1;
		}
		CHECK_EQ(get64(tgt.p + 16), v);
	}

	/* WRITE then FETCH_AND_ADD on the written word. */
	put64(src.p, 0x5555000000000000ULL);
	sg = t_sge(&src, 0, 8);
	POST_SEND(p.s[0].qp, 7, IBV_WR_RDMA_WRITE, 0, &sg, 1, t_addr(&tgt, 32),
		  tgt.mr->rkey, 0);
	sg = t_sge(&res, 0, 8);
	POST_ATOMIC(p.s[0].qp, 8, IBV_WR_ATOMIC_FETCH_AND_ADD, IBV_SEND_SIGNALED,
		    &sg, t_addr(&tgt, 32), tgt.mr->rkey, 5, 0);
	POLL(p.s[0].scq, 1, wc);
	EXPECT_WC(&wc[0], 8, IBV_WC_SUCCESS, IBV_WC_FETCH_ADD, qpn, 8, 0, T_ANY);
	CHECK_EQ(get64(res.p), 0x5555000000000000ULL);
	CHECK_EQ(get64(tgt.p + 32), 0x5555000000000005ULL);

	t_buf_free(&res);
	t_buf_free(&src);
	t_buf_free(&tgt);
	t_pair_close(&p);
	printf("sys_atomic: %s ok\n", loopback ? "loopback" : "two nodes");
}

int main(void)
{
	run(0);
	run(1);
	return 0;
}
