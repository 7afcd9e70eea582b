// SPDX-License-Identifier: MIT
/*
 * sys_loopback.c - two RC QPs of one device (rnic0) connected to each other.
 *
 * Both QPs share one context and one PD; the destination GID is the
 * device's own. SEND (both ways), RDMA WRITE and RDMA READ, with bytes and
 * completion fields checked on both QPs.
 */
#define _DEFAULT_SOURCE

#include "common.h"

#include <stdio.h>
#include <string.h>

#define BUF_LEN 8192
#define CANARY 0x88

int main(void)
{
	struct t_pair_cfg cfg;
	struct t_pair p;
	struct t_buf a, b;
	struct ibv_wc wc;
	struct ibv_sge sg;
	uint32_t qpa, qpb;

	t_pair_default_cfg(&cfg);
	cfg.loopback = 1;
	cfg.mtu = IBV_MTU_2048;
	t_pair_open(&p, &cfg);
	CHECK(p.s[0].ctx == p.s[1].ctx);
	qpa = p.s[0].qp->qp_num;
	qpb = p.s[1].qp->qp_num;
	CHECK(qpa != qpb);
	t_buf_alloc(&a, p.s[0].pd, BUF_LEN);
	t_buf_alloc(&b, p.s[1].pd, BUF_LEN);

	/* SEND a -> b, 3000 bytes (two packets). */
	t_fill(a.p, BUF_LEN, 0x1100);
	memset(b.p, CANARY, BUF_LEN);
	sg = t_sge(&b, 0, 4096);
	POST_RECV(p.s[1].qp, 1, &sg, 1);
	sg = t_sge(&a, 1, 3000);
	POST_SEND(p.s[0].qp, 2, IBV_WR_SEND, IBV_SEND_SIGNALED, &sg, 1, 0, 0,
		  0);
	POLL(p.s[1].rcq, 1, &wc);
	EXPECT_WC(&wc, 1, IBV_WC_SUCCESS, IBV_WC_RECV, qpb, 3000, 0, T_ANY);
	POLL(p.s[0].scq, 1, &wc);
	EXPECT_WC(&wc, 2, IBV_WC_SUCCESS, IBV_WC_SEND, qpa, T_ANY, 0, T_ANY);
	CHECK_MEM(b.p, a.p + 1, 3000);
	CHECK_FILL(b.p + 3000, CANARY, BUF_LEN - 3000);
	printf("loopback send a->b: ok\n");

	/* SEND b -> a, 64 bytes. */
	t_fill(b.p, BUF_LEN, 0x1200);
	memset(a.p, CANARY, BUF_LEN);
	sg = t_sge(&a, 100, 256);
	POST_RECV(p.s[0].qp, 3, &sg, 1);
	sg = t_sge(&b, 0, 64);
	POST_SEND(p.s[1].qp, 4, IBV_WR_SEND, IBV_SEND_SIGNALED, &sg, 1, 0, 0,
		  0);
	POLL(p.s[0].rcq, 1, &wc);
	EXPECT_WC(&wc, 3, IBV_WC_SUCCESS, IBV_WC_RECV, qpa, 64, 0, T_ANY);
	POLL(p.s[1].scq, 1, &wc);
	EXPECT_WC(&wc, 4, IBV_WC_SUCCESS, IBV_WC_SEND, qpb, T_ANY, 0, T_ANY);
	CHECK_FILL(a.p, CANARY, 100);
	CHECK_MEM(a.p + 100, b.p, 64);
	CHECK_FILL(a.p + 164, CANARY, BUF_LEN - 164);
	printf("loopback send b->a: ok\n");

	/* WRITE a -> b, 5000 bytes. */
	t_fill(a.p, BUF_LEN, 0x1300);
	memset(b.p, CANARY, BUF_LEN);
	sg = t_sge(&a, 0, 5000);
	POST_SEND(p.s[0].qp, 5, IBV_WR_RDMA_WRITE, IBV_SEND_SIGNALED, &sg, 1,
		  t_addr(&b, 7), b.mr->rkey, 0);
	POLL(p.s[0].scq, 1, &wc);
	EXPECT_WC(&wc, 5, IBV_WC_SUCCESS, IBV_WC_RDMA_WRITE, qpa, T_ANY, 0,
		  T_ANY);
	CHECK_FILL(b.p, CANARY, 7);
	CHECK_MEM(b.p + 7, a.p, 5000);
	CHECK_FILL(b.p + 5007, CANARY, BUF_LEN - 5007);
	printf("loopback write: ok\n");

	/* READ: a reads 4500 bytes of b. */
	t_fill(b.p, BUF_LEN, 0x1400);
	memset(a.p, CANARY, BUF_LEN);
	sg = t_sge(&a, 3, 4500);
	POST_SEND(p.s[0].qp, 6, IBV_WR_RDMA_READ, IBV_SEND_SIGNALED, &sg, 1,
		  t_addr(&b, 200), b.mr->rkey, 0);
	POLL(p.s[0].scq, 1, &wc);
	EXPECT_WC(&wc, 6, IBV_WC_SUCCESS, IBV_WC_RDMA_READ, qpa, 4500, 0,
		  T_ANY);
	CHECK_FILL(a.p, CANARY, 3);
	CHECK_MEM(a.p + 3, b.p + 200, 4500);
	CHECK_FILL(a.p + 4503, CANARY, BUF_LEN - 4503);
	printf("loopback read: ok\n");

	EXPECT_EMPTY(p.s[0].scq, T_EMPTY_POLLS);
	EXPECT_EMPTY(p.s[0].rcq, 1);
	EXPECT_EMPTY(p.s[1].scq, 1);
	EXPECT_EMPTY(p.s[1].rcq, 1);

	t_buf_free(&a);
	t_buf_free(&b);
	t_pair_close(&p);
	printf("sys_loopback: passed\n");
	return 0;
}
