// SPDX-License-Identifier: MIT
/*
 * sys_read.c - RC RDMA READ.
 *
 * rnic0 reads 1, 64, 1000, 4096 and 5000 bytes from rnic1 into unaligned
 * local offsets. The read completion has opcode IBV_WC_RDMA_READ and
 * byte_len equal to the length read; the remote memory is unchanged; the
 * local bytes around the target are untouched; the responder consumes no
 * receive. Ends with one READ in the other direction.
 */
#define _DEFAULT_SOURCE

#include "common.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define BUF_LEN 16384
#define CANARY 0x96

int main(void)
{
	static const uint32_t sizes[] = { 1, 64, 1000, 4096, 5000 };
	const int n = sizeof(sizes) / sizeof(sizes[0]);
	struct t_pair_cfg cfg;
	struct t_pair p;
	struct t_buf loc, rem, rbuf;
	struct ibv_wc wc;
	struct ibv_sge sg;
	uint32_t qpn0, qpn1;
	uint8_t *copy;
	int i;

	t_pair_default_cfg(&cfg);
	t_pair_open(&p, &cfg);
	qpn0 = p.s[0].qp->qp_num;
	qpn1 = p.s[1].qp->qp_num;
	t_buf_alloc(&loc, p.s[0].pd, BUF_LEN);
	t_buf_alloc(&rem, p.s[1].pd, BUF_LEN);
	t_buf_alloc(&rbuf, p.s[1].pd, 64);
	copy = malloc(BUF_LEN);
	CHECK(copy != NULL);

	/* A receive that RDMA READs must leave alone. */
	memset(rbuf.p, CANARY, 64);
	sg = t_sge(&rbuf, 0, 64);
	POST_RECV(p.s[1].qp, 999, &sg, 1);

	for (i = 0; i < n; i++) {
		uint32_t len = sizes[i];
		size_t loff = 5 + (size_t)i, roff = 11 * (size_t)i;

		t_fill(rem.p, BUF_LEN, 0xb000 + i);
		memcpy(copy, rem.p, BUF_LEN);
		memset(loc.p, CANARY, BUF_LEN);

		sg = t_sge(&loc, loff, len);
		POST_SEND(p.s[0].qp, 30 + i, IBV_WR_RDMA_READ,
			  IBV_SEND_SIGNALED, &sg, 1, t_addr(&rem, roff),
			  rem.mr->rkey, 0);
		POLL(p.s[0].scq, 1, &wc);
		EXPECT_WC(&wc, 30 + i, IBV_WC_SUCCESS, IBV_WC_RDMA_READ, qpn0,
			  len, 0, T_ANY);

		CHECK_FILL(loc.p, CANARY, loff);
		CHECK_MEM(loc.p + loff, rem.p + roff, len);
		CHECK_FILL(loc.p + loff + len, CANARY, BUF_LEN - loff - len);
		CHECK_MEM(rem.p, copy, BUF_LEN);
		printf("read %4u bytes: ok\n", len);
	}

	/* rnic1 reads from rnic0. */
	t_fill(loc.p, BUF_LEN, 0xb100);
	memcpy(copy, loc.p, BUF_LEN);
	memset(rem.p, CANARY, BUF_LEN);
	sg = t_sge(&rem, 0, 2048);
	POST_SEND(p.s[1].qp, 40, IBV_WR_RDMA_READ, IBV_SEND_SIGNALED, &sg, 1,
		  t_addr(&loc, 3), loc.mr->rkey, 0);
	POLL(p.s[1].scq, 1, &wc);
	EXPECT_WC(&wc, 40, IBV_WC_SUCCESS, IBV_WC_RDMA_READ, qpn1, 2048, 0,
		  T_ANY);
	CHECK_MEM(rem.p, loc.p + 3, 2048);
	CHECK_FILL(rem.p + 2048, CANARY, BUF_LEN - 2048);
	CHECK_MEM(loc.p, copy, BUF_LEN);
	printf("reverse read: ok\n");

	/* Reads consume no receive and produce no responder completion. */
	EXPECT_EMPTY(p.s[1].rcq, T_EMPTY_POLLS);
	CHECK_FILL(rbuf.p, CANARY, 64);
	EXPECT_EMPTY(p.s[0].rcq, 1);
	EXPECT_EMPTY(p.s[0].scq, 1);
	EXPECT_EMPTY(p.s[1].scq, 1);

	free(copy);
	t_buf_free(&loc);
	t_buf_free(&rem);
	t_buf_free(&rbuf);
	t_pair_close(&p);
	printf("sys_read: passed\n");
	return 0;
}
