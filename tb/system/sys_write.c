// SPDX-License-Identifier: MIT
/*
 * sys_write.c - RC RDMA WRITE.
 *
 * Writes 1, 64, 1000, 4096 and 4099 bytes from rnic0 into rnic1's memory at
 * unaligned offsets and checks the bytes and the untouched bytes around
 * them. A receive posted at the responder beforehand must not be consumed
 * by the writes (no receive completion), and is then consumed by a SEND.
 * Ends with one WRITE in the other direction.
 */
#define _DEFAULT_SOURCE

#include "common.h"

#include <stdio.h>
#include <string.h>

#define BUF_LEN 16384
#define CANARY 0x77

int main(void)
{
	static const uint32_t sizes[] = { 1, 64, 1000, 4096, 4099 };
	const int n = sizeof(sizes) / sizeof(sizes[0]);
	struct t_pair_cfg cfg;
	struct t_pair p;
	struct t_buf src, dst, rbuf;
	struct ibv_wc wc;
	struct ibv_sge sg;
	uint32_t qpn0, qpn1;
	size_t roff = 13;
	int i;

	t_pair_default_cfg(&cfg);
	t_pair_open(&p, &cfg);
	qpn0 = p.s[0].qp->qp_num;
	qpn1 = p.s[1].qp->qp_num;
	t_buf_alloc(&src, p.s[0].pd, BUF_LEN);
	t_buf_alloc(&dst, p.s[1].pd, BUF_LEN);
	t_buf_alloc(&rbuf, p.s[1].pd, 256);

	/* A receive that RDMA WRITEs must leave alone. */
	memset(rbuf.p, CANARY, 256);
	sg = t_sge(&rbuf, 0, 256);
	POST_RECV(p.s[1].qp, 777, &sg, 1);

	for (i = 0; i < n; i++) {
		uint32_t len = sizes[i];
		size_t loff = (size_t)i * 3;

		t_fill(src.p, BUF_LEN, 0x7000 + i);
		memset(dst.p, CANARY, BUF_LEN);
		sg = t_sge(&src, loff, len);
		POST_SEND(p.s[0].qp, 70 + i, IBV_WR_RDMA_WRITE,
			  IBV_SEND_SIGNALED, &sg, 1, t_addr(&dst, roff),
			  dst.mr->rkey, 0);
		POLL(p.s[0].scq, 1, &wc);
		EXPECT_WC(&wc, 70 + i, IBV_WC_SUCCESS, IBV_WC_RDMA_WRITE, qpn0,
			  T_ANY, 0, T_ANY);
		/* An RC WRITE completes after the ACK: the data is placed. */
		CHECK_FILL(dst.p, CANARY, roff);
		CHECK_MEM(dst.p + roff, src.p + loff, len);
		CHECK_FILL(dst.p + roff + len, CANARY, BUF_LEN - roff - len);
		printf("write %4u bytes: ok\n", len);
	}

	/* The writes consumed no receive. */
	EXPECT_EMPTY(p.s[1].rcq, T_EMPTY_POLLS);
	CHECK_FILL(rbuf.p, CANARY, 256);

	/* The receive is still the first one in the queue. */
	t_fill(src.p, 32, 0x7100);
	sg = t_sge(&src, 0, 32);
	POST_SEND(p.s[0].qp, 90, IBV_WR_SEND, IBV_SEND_SIGNALED, &sg, 1, 0, 0,
		  0);
	POLL(p.s[1].rcq, 1, &wc);
	EXPECT_WC(&wc, 777, IBV_WC_SUCCESS, IBV_WC_RECV, qpn1, 32, 0, T_ANY);
	POLL(p.s[0].scq, 1, &wc);
	EXPECT_WC(&wc, 90, IBV_WC_SUCCESS, IBV_WC_SEND, qpn0, T_ANY, 0, T_ANY);
	CHECK_MEM(rbuf.p, src.p, 32);
	printf("writes consumed no receive: ok\n");

	/* rnic1 -> rnic0. */
	t_fill(dst.p, BUF_LEN, 0x7200);
	memset(src.p, CANARY, BUF_LEN);
	sg = t_sge(&dst, 100, 777);
	POST_SEND(p.s[1].qp, 91, IBV_WR_RDMA_WRITE, IBV_SEND_SIGNALED, &sg, 1,
		  t_addr(&src, 1), src.mr->rkey, 0);
	POLL(p.s[1].scq, 1, &wc);
	EXPECT_WC(&wc, 91, IBV_WC_SUCCESS, IBV_WC_RDMA_WRITE, qpn1, T_ANY, 0,
		  T_ANY);
	CHECK_FILL(src.p, CANARY, 1);
	CHECK_MEM(src.p + 1, dst.p + 100, 777);
	CHECK_FILL(src.p + 1 + 777, CANARY, BUF_LEN - 1 - 777);
	printf("reverse write: ok\n");

	EXPECT_EMPTY(p.s[0].rcq, T_EMPTY_POLLS);
	EXPECT_EMPTY(p.s[0].scq, 1);
	EXPECT_EMPTY(p.s[1].scq, 1);
	EXPECT_EMPTY(p.s[1].rcq, 1);

	t_buf_free(&src);
	t_buf_free(&dst);
	t_buf_free(&rbuf);
	t_pair_close(&p);
	printf("sys_write: passed\n");
	return 0;
}
