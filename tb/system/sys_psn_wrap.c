// SPDX-License-Identifier: MIT
/*
 * sys_psn_wrap.c - PSNs wrap around at 2^24.
 *
 * Both QPs start a few PSNs before 0xffffff, with a 256-byte path MTU so
 * every message is many packets: a SEND, an RDMA WRITE, an RDMA READ (whose
 * response PSNs cross the wrap) and an atomic each cross from 0xfffffx to
 * 0x00000x, in both directions. Bytes and completions are checked, and a
 * second round runs entirely after the wrap.
 */
#include <stdio.h>
#include <string.h>

#include "common.h"

#define LEN 4096	/* 16 packets of 256 bytes */

static void round_trip(struct t_pair *p, int from, struct t_buf *src,
		       struct t_buf *dst, struct t_buf *res, uint64_t seed)
{
	struct t_side *a = &p->s[from], *b = &p->s[!from];
	struct ibv_sge sg;
	struct ibv_wc wc[4];
	uint64_t v;

	t_fill(src->p, 3 * LEN, seed);
	memset(dst->p, 0, 3 * LEN + 8);
	/* SEND */
	sg = t_sge(dst, 0, LEN);
	POST_RECV(b->qp, 10, &sg, 1);
	sg = t_sge(src, 0, LEN);
	POST_SEND(a->qp, 1, IBV_WR_SEND, IBV_SEND_SIGNALED, &sg, 1, 0, 0, 0);
	/* WRITE */
	sg = t_sge(src, LEN, LEN);
	POST_SEND(a->qp, 2, IBV_WR_RDMA_WRITE, IBV_SEND_SIGNALED, &sg, 1,
		  t_addr(dst, LEN), dst->mr->rkey, 0);
	/* READ: b's bytes at 2*LEN come to a's src at 2*LEN */
	t_fill(dst->p + 2 * LEN, LEN, seed + 1);
	sg = t_sge(src, 2 * LEN, LEN);
	POST_SEND(a->qp, 3, IBV_WR_RDMA_READ, IBV_SEND_SIGNALED, &sg, 1,
		  t_addr(dst, 2 * LEN), dst->mr->rkey, 0);
	/* FETCH_AND_ADD */
	v = 41;
	memcpy(dst->p + 3 * LEN, &v, 8);
	sg = t_sge(res, 0, 8);
	POST_ATOMIC(a->qp, 4, IBV_WR_ATOMIC_FETCH_AND_ADD, IBV_SEND_SIGNALED, &sg,
		    t_addr(dst, 3 * LEN), dst->mr->rkey, 1, 0);

	POLL(a->scq, 4, wc);
	EXPECT_WC(&wc[0], 1, IBV_WC_SUCCESS, IBV_WC_SEND, a->qp->qp_num, T_ANY, 0, T_ANY);
	EXPECT_WC(&wc[1], 2, IBV_WC_SUCCESS, IBV_WC_RDMA_WRITE, a->qp->qp_num, T_ANY, 0, T_ANY);
	EXPECT_WC(&wc[2], 3, IBV_WC_SUCCESS, IBV_WC_RDMA_READ, a->qp->qp_num, LEN, 0, T_ANY);
	EXPECT_WC(&wc[3], 4, IBV_WC_SUCCESS, IBV_WC_FETCH_ADD, a->qp->qp_num, 8, 0, T_ANY);
	POLL(b->rcq, 1, wc);
	EXPECT_WC(&wc[0], 10, IBV_WC_SUCCESS, IBV_WC_RECV, b->qp->qp_num, LEN, 0, T_ANY);
	CHECK_MEM(dst->p, src->p, LEN);
	CHECK_MEM(dst->p + LEN, src->p + LEN, LEN);
	CHECK_MEM(src->p + 2 * LEN, dst->p + 2 * LEN, LEN);
	memcpy(&v, res->p, 8);
	CHECK_EQ(v, 41);
	memcpy(&v, dst->p + 3 * LEN, 8);
	CHECK_EQ(v, 42);
}

static void run(int loopback)
{
	unsigned int acc = T_MR_ACCESS | IBV_ACCESS_REMOTE_ATOMIC;
	struct t_pair_cfg cfg;
	struct t_pair p;
	struct t_buf buf[2][2], res[2];
	int i, r;

	t_pair_default_cfg(&cfg);
	cfg.loopback = loopback;
	cfg.mtu = IBV_MTU_256;
	cfg.psn[0] = 0xfffffa;
	cfg.psn[1] = 0xfffff3;
	for (i = 0; i < 2; i++) {
		cfg.attrs[i].access |= IBV_ACCESS_REMOTE_ATOMIC;
		cfg.attrs[i].max_rd_atomic = 2;
		cfg.attrs[i].max_dest_rd_atomic = 2;
	}
	t_pair_open(&p, &cfg);
	for (i = 0; i < 2; i++) {
		t_buf_alloc_access(&buf[i][0], p.s[i].pd, 3 * LEN + 8, acc);
		t_buf_alloc_access(&buf[i][1], p.s[i].pd, 3 * LEN + 8, acc);
		t_buf_alloc_access(&res[i], p.s[i].pd, 8, acc);
	}
	for (r = 0; r < 2; r++) {
		round_trip(&p, 0, &buf[0][0], &buf[1][1], &res[0], 100 + r);
		round_trip(&p, 1, &buf[1][0], &buf[0][1], &res[1], 200 + r);
	}
	for (i = 0; i < 2; i++) {
		t_buf_free(&buf[i][0]);
		t_buf_free(&buf[i][1]);
		t_buf_free(&res[i]);
	}
	t_pair_close(&p);
	printf("sys_psn_wrap: %s ok\n", loopback ? "loopback" : "two nodes");
}

int main(void)
{
	run(0);
	run(1);
	return 0;
}
