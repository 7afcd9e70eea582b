// SPDX-License-Identifier: MIT
/*
 * sys_multi_sge.c - gather and scatter lists across two MRs per side.
 *
 *  1. SEND gathering 3 SGEs (2 MRs, odd lengths and offsets) into 1 SGE;
 *  2. SEND from 1 SGE scattered into 3 receive SGEs (2 MRs), the message
 *     ending inside the third SGE (bytes after it stay untouched);
 *  3. SEND 3 SGEs into 3 SGEs with different boundaries;
 *  4. RDMA WRITE gathering 3 SGEs into one remote range;
 *  5. RDMA READ scattering one remote range into 3 local SGEs.
 */
#define _DEFAULT_SOURCE

#include "common.h"

#include <stdio.h>
#include <string.h>

#define BUF_LEN 4096
#define CANARY 0xe1
#define NSGE 3

/* Expected stream of a gather list. */
static size_t gather(uint8_t *out, const struct ibv_sge *sg, int n)
{
	size_t off = 0;
	int i;

	for (i = 0; i < n; i++) {
		memcpy(out + off, (const void *)(uintptr_t)sg[i].addr,
		       sg[i].length);
		off += sg[i].length;
	}
	return off;
}

/* Checks that a scatter list holds stream[0..len) and nothing past it. */
static void check_scatter(const struct ibv_sge *sg, int n,
			  const uint8_t *stream, size_t len)
{
	size_t off = 0;
	int i;

	for (i = 0; i < n; i++) {
		const uint8_t *p = (const uint8_t *)(uintptr_t)sg[i].addr;
		size_t take = len - off < sg[i].length ? len - off :
							 sg[i].length;

		CHECK_MEM(p, stream + off, take);
		CHECK_FILL(p + take, CANARY, sg[i].length - take);
		off += take;
	}
	CHECK_EQ(off, len);
}

static void reset(struct t_buf *a, struct t_buf *b, struct t_buf *c,
		  struct t_buf *d, uint64_t seed)
{
	t_fill(a->p, BUF_LEN, seed);
	t_fill(b->p, BUF_LEN, seed + 1);
	memset(c->p, CANARY, BUF_LEN);
	memset(d->p, CANARY, BUF_LEN);
}

int main(void)
{
	struct t_pair_cfg cfg;
	struct t_pair p;
	struct t_buf a, b, c, d;	/* a, b on rnic0; c, d on rnic1 */
	struct ibv_sge s[NSGE], r[NSGE];
	struct ibv_wc wc;
	uint8_t stream[2048];
	uint32_t qpn0, qpn1;
	size_t len;

	t_pair_default_cfg(&cfg);
	cfg.caps.max_send_sge = NSGE;
	cfg.caps.max_recv_sge = NSGE;
	t_pair_open(&p, &cfg);
	qpn0 = p.s[0].qp->qp_num;
	qpn1 = p.s[1].qp->qp_num;
	t_buf_alloc(&a, p.s[0].pd, BUF_LEN);
	t_buf_alloc(&b, p.s[0].pd, BUF_LEN);
	t_buf_alloc(&c, p.s[1].pd, BUF_LEN);
	t_buf_alloc(&d, p.s[1].pd, BUF_LEN);
	CHECK(a.mr->lkey != b.mr->lkey);

	/* 1. Gather 3 into 1. */
	reset(&a, &b, &c, &d, 0xd100);
	s[0] = t_sge(&a, 5, 100);
	s[1] = t_sge(&b, 17, 37);
	s[2] = t_sge(&a, 1000, 250);
	len = gather(stream, s, NSGE);
	r[0] = t_sge(&c, 0, 1024);
	POST_RECV(p.s[1].qp, 1, r, 1);
	POST_SEND(p.s[0].qp, 11, IBV_WR_SEND, IBV_SEND_SIGNALED, s, NSGE, 0, 0,
		  0);
	POLL(p.s[1].rcq, 1, &wc);
	EXPECT_WC(&wc, 1, IBV_WC_SUCCESS, IBV_WC_RECV, qpn1, len, 0, T_ANY);
	POLL(p.s[0].scq, 1, &wc);
	EXPECT_WC(&wc, 11, IBV_WC_SUCCESS, IBV_WC_SEND, qpn0, T_ANY, 0, T_ANY);
	check_scatter(r, 1, stream, len);
	CHECK_FILL(c.p + 1024, CANARY, BUF_LEN - 1024);
	CHECK_FILL(d.p, CANARY, BUF_LEN);
	printf("send gather 3 -> 1 (%zu bytes): ok\n", len);

	/* 2. Scatter 1 into 3; the message ends inside the third SGE. */
	reset(&a, &b, &c, &d, 0xd200);
	s[0] = t_sge(&a, 2000, 300);
	len = gather(stream, s, 1);
	r[0] = t_sge(&c, 2048, 50);
	r[1] = t_sge(&d, 11, 200);
	r[2] = t_sge(&c, 3000, 100);
	POST_RECV(p.s[1].qp, 2, r, NSGE);
	POST_SEND(p.s[0].qp, 12, IBV_WR_SEND, IBV_SEND_SIGNALED, s, 1, 0, 0,
		  0);
	POLL(p.s[1].rcq, 1, &wc);
	EXPECT_WC(&wc, 2, IBV_WC_SUCCESS, IBV_WC_RECV, qpn1, len, 0, T_ANY);
	POLL(p.s[0].scq, 1, &wc);
	EXPECT_WC(&wc, 12, IBV_WC_SUCCESS, IBV_WC_SEND, qpn0, T_ANY, 0, T_ANY);
	check_scatter(r, NSGE, stream, len);
	CHECK_FILL(c.p, CANARY, 2048);
	CHECK_FILL(c.p + 2098, CANARY, 3000 - 2098);
	CHECK_FILL(c.p + 3100, CANARY, BUF_LEN - 3100);
	CHECK_FILL(d.p, CANARY, 11);
	CHECK_FILL(d.p + 211, CANARY, BUF_LEN - 211);
	printf("send scatter 1 -> 3 (%zu bytes): ok\n", len);

	/* 3. Gather 3 into scatter 3, boundaries not lined up. */
	reset(&a, &b, &c, &d, 0xd300);
	s[0] = t_sge(&b, 1, 30);
	s[1] = t_sge(&a, 64, 70);
	s[2] = t_sge(&b, 999, 200);
	len = gather(stream, s, NSGE);
	r[0] = t_sge(&d, 100, 100);
	r[1] = t_sge(&c, 7, 100);
	r[2] = t_sge(&d, 500, 100);
	POST_RECV(p.s[1].qp, 3, r, NSGE);
	POST_SEND(p.s[0].qp, 13, IBV_WR_SEND, IBV_SEND_SIGNALED, s, NSGE, 0, 0,
		  0);
	POLL(p.s[1].rcq, 1, &wc);
	EXPECT_WC(&wc, 3, IBV_WC_SUCCESS, IBV_WC_RECV, qpn1, len, 0, T_ANY);
	POLL(p.s[0].scq, 1, &wc);
	EXPECT_WC(&wc, 13, IBV_WC_SUCCESS, IBV_WC_SEND, qpn0, T_ANY, 0, T_ANY);
	check_scatter(r, NSGE, stream, len);
	printf("send 3 -> 3 (%zu bytes): ok\n", len);

	/* 4. WRITE gathering 3 SGEs. */
	reset(&a, &b, &c, &d, 0xd400);
	s[0] = t_sge(&a, 3, 513);
	s[1] = t_sge(&b, 2048, 1);
	s[2] = t_sge(&b, 100, 1100);
	len = gather(stream, s, NSGE);
	POST_SEND(p.s[0].qp, 14, IBV_WR_RDMA_WRITE, IBV_SEND_SIGNALED, s, NSGE,
		  t_addr(&d, 9), d.mr->rkey, 0);
	POLL(p.s[0].scq, 1, &wc);
	EXPECT_WC(&wc, 14, IBV_WC_SUCCESS, IBV_WC_RDMA_WRITE, qpn0, T_ANY, 0,
		  T_ANY);
	CHECK_FILL(d.p, CANARY, 9);
	CHECK_MEM(d.p + 9, stream, len);
	CHECK_FILL(d.p + 9 + len, CANARY, BUF_LEN - 9 - len);
	CHECK_FILL(c.p, CANARY, BUF_LEN);
	printf("write gather 3 (%zu bytes): ok\n", len);

	/* 5. READ scattering into 3 local SGEs over both MRs of rnic0. */
	t_fill(c.p, BUF_LEN, 0xd500);
	memset(a.p, CANARY, BUF_LEN);
	memset(b.p, CANARY, BUF_LEN);
	r[0] = t_sge(&a, 1, 333);
	r[1] = t_sge(&b, 4000, 96);
	r[2] = t_sge(&a, 2000, 571);
	len = 333 + 96 + 571;
	POST_SEND(p.s[0].qp, 15, IBV_WR_RDMA_READ, IBV_SEND_SIGNALED, r, NSGE,
		  t_addr(&c, 40), c.mr->rkey, 0);
	POLL(p.s[0].scq, 1, &wc);
	EXPECT_WC(&wc, 15, IBV_WC_SUCCESS, IBV_WC_RDMA_READ, qpn0, len, 0,
		  T_ANY);
	for (size_t i = 0; i < BUF_LEN; i++) {
		/* Only the three target ranges may have changed. */
		int in_a = (i >= 1 && i < 334) || (i >= 2000 && i < 2571);
		int in_b = i >= 4000 && i < 4096;

		if (!in_a)
			CHECK_EQ(a.p[i], CANARY);
		if (!in_b)
			CHECK_EQ(b.p[i], CANARY);
	}
	CHECK_MEM(a.p + 1, c.p + 40, 333);
	CHECK_MEM(b.p + 4000, c.p + 40 + 333, 96);
	CHECK_MEM(a.p + 2000, c.p + 40 + 333 + 96, 571);
	printf("read scatter 3 (%zu bytes): ok\n", len);

	EXPECT_EMPTY(p.s[1].rcq, T_EMPTY_POLLS);
	EXPECT_EMPTY(p.s[0].scq, 1);
	EXPECT_EMPTY(p.s[0].rcq, 1);
	EXPECT_EMPTY(p.s[1].scq, 1);

	t_buf_free(&a);
	t_buf_free(&b);
	t_buf_free(&c);
	t_buf_free(&d);
	t_pair_close(&p);
	printf("sys_multi_sge: passed\n");
	return 0;
}
