// SPDX-License-Identifier: MIT
/*
 * sys_recv_too_small.c - a SEND larger than the posted receive.
 *
 * rnic1 posts a 16-byte receive, rnic0 sends 100 bytes: the receive
 * completes with IBV_WC_LOC_LEN_ERR, the sender with IBV_WC_REM_INV_REQ_ERR
 * (the responder NAKs with "invalid request"), and nothing is written past
 * the 16-byte receive buffer.
 */
#define _DEFAULT_SOURCE

#include "common.h"

#include <stdio.h>
#include <string.h>

#define BUF_LEN 4096
#define CANARY 0x69

int main(void)
{
	struct t_pair_cfg cfg;
	struct t_pair p;
	struct t_buf src, dst;
	struct ibv_wc wc;
	struct ibv_sge sg;
	uint32_t qpn0, qpn1;

	t_pair_default_cfg(&cfg);
	t_pair_open(&p, &cfg);
	qpn0 = p.s[0].qp->qp_num;
	qpn1 = p.s[1].qp->qp_num;
	t_buf_alloc(&src, p.s[0].pd, BUF_LEN);
	t_buf_alloc(&dst, p.s[1].pd, BUF_LEN);
	t_fill(src.p, BUF_LEN, 0x6000);
	memset(dst.p, CANARY, BUF_LEN);

	sg = t_sge(&dst, 64, 16);
	POST_RECV(p.s[1].qp, 61, &sg, 1);
	sg = t_sge(&src, 0, 100);
	POST_SEND(p.s[0].qp, 60, IBV_WR_SEND, IBV_SEND_SIGNALED, &sg, 1, 0, 0,
		  0);

	POLL(p.s[1].rcq, 1, &wc);
	EXPECT_WC(&wc, 61, IBV_WC_LOC_LEN_ERR, T_ANY, qpn1, T_ANY, T_ANY,
		  T_ANY);
	POLL(p.s[0].scq, 1, &wc);
	EXPECT_WC(&wc, 60, IBV_WC_REM_INV_REQ_ERR, T_ANY, qpn0, T_ANY, T_ANY,
		  T_ANY);

	/* The 16 bytes may hold part of the message; nothing around them. */
	CHECK_FILL(dst.p, CANARY, 64);
	CHECK_FILL(dst.p + 64 + 16, CANARY, BUF_LEN - 64 - 16);

	EXPECT_EMPTY(p.s[0].scq, T_EMPTY_POLLS);
	EXPECT_EMPTY(p.s[0].rcq, 1);
	EXPECT_EMPTY(p.s[1].scq, 1);
	EXPECT_EMPTY(p.s[1].rcq, 1);

	t_buf_free(&src);
	t_buf_free(&dst);
	t_pair_close(&p);
	printf("recv 16 < send 100: LOC_LEN_ERR / REM_INV_REQ_ERR: ok\n");
	printf("sys_recv_too_small: passed\n");
	return 0;
}
