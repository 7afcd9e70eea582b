// SPDX-License-Identifier: MIT
/*
 * sys_write_imm.c - RC RDMA WRITE with immediate data.
 *
 * The data lands at the remote address (not in the receive buffer), and one
 * receive is consumed with opcode IBV_WC_RECV_RDMA_WITH_IMM, IBV_WC_WITH_IMM
 * and the immediate as posted. byte_len of that receive completion is the
 * write length on mlx5 and rxe; it is only required to be that or 0 here.
 * Covers a zero-length WRITE_WITH_IMM (a pure notification), a multi-packet
 * one, and one in the other direction.
 */
#define _DEFAULT_SOURCE

#include "common.h"

#include <endian.h>
#include <stdio.h>
#include <string.h>

#define BUF_LEN 8192
#define RBUF_LEN 256
#define CANARY 0xc3

static void check_recv_byte_len(const struct ibv_wc *wc, uint32_t len)
{
	CHECKF(wc->byte_len == len || wc->byte_len == 0,
	       "write_imm receive byte_len %u, expected %u (or 0)",
	       wc->byte_len, len);
}

int main(void)
{
	static const uint32_t sizes[] = { 64, 1, 1000, 0, 3000 };
	static const uint32_t imms[] = {
		0x01020304, 0xcafef00d, 0x00000000, 0x7fffffff, 0xfedcba98,
	};
	const int n = sizeof(sizes) / sizeof(sizes[0]);
	struct t_pair_cfg cfg;
	struct t_pair p;
	struct t_buf src, dst, rbuf;
	struct ibv_wc wc;
	struct ibv_sge sg;
	uint32_t qpn0, qpn1;
	size_t roff = 21;
	__be32 imm;
	int i;

	t_pair_default_cfg(&cfg);
	t_pair_open(&p, &cfg);
	qpn0 = p.s[0].qp->qp_num;
	qpn1 = p.s[1].qp->qp_num;
	t_buf_alloc(&src, p.s[0].pd, BUF_LEN);
	t_buf_alloc(&dst, p.s[1].pd, BUF_LEN);
	t_buf_alloc(&rbuf, p.s[1].pd, RBUF_LEN);

	for (i = 0; i < n; i++) {
		uint32_t len = sizes[i];

		imm = htobe32(imms[i]);
		t_fill(src.p, BUF_LEN, 0x9000 + i);
		memset(dst.p, CANARY, BUF_LEN);
		memset(rbuf.p, CANARY, RBUF_LEN);

		sg = t_sge(&rbuf, 0, RBUF_LEN);
		POST_RECV(p.s[1].qp, 900 + i, &sg, 1);
		sg = t_sge(&src, 2, len);
		POST_SEND(p.s[0].qp, 90 + i, IBV_WR_RDMA_WRITE_WITH_IMM,
			  IBV_SEND_SIGNALED, len ? &sg : NULL, len ? 1 : 0,
			  t_addr(&dst, roff), dst.mr->rkey, imm);

		POLL(p.s[1].rcq, 1, &wc);
		EXPECT_WC(&wc, 900 + i, IBV_WC_SUCCESS,
			  IBV_WC_RECV_RDMA_WITH_IMM, qpn1, T_ANY,
			  IBV_WC_WITH_IMM, (long long)imm);
		CHECK_EQ(be32toh(wc.imm_data), imms[i]);
		check_recv_byte_len(&wc, len);

		POLL(p.s[0].scq, 1, &wc);
		EXPECT_WC(&wc, 90 + i, IBV_WC_SUCCESS, IBV_WC_RDMA_WRITE, qpn0,
			  T_ANY, T_ANY, T_ANY);
		EXPECT_SEND_IMM_FLAGS(&wc);

		CHECK_FILL(dst.p, CANARY, roff);
		CHECK_MEM(dst.p + roff, src.p + 2, len);
		CHECK_FILL(dst.p + roff + len, CANARY, BUF_LEN - roff - len);
		/* The receive buffer itself is not written. */
		CHECK_FILL(rbuf.p, CANARY, RBUF_LEN);
		printf("write_imm %4u bytes imm 0x%08x: ok\n", len, imms[i]);
	}

	/* rnic1 -> rnic0, with a receive that has no SGE at all. */
	imm = htobe32(0x600df00d);
	t_fill(dst.p, BUF_LEN, 0x9100);
	memset(src.p, CANARY, BUF_LEN);
	POST_RECV(p.s[0].qp, 950, NULL, 0);
	sg = t_sge(&dst, 0, 1500);
	POST_SEND(p.s[1].qp, 951, IBV_WR_RDMA_WRITE_WITH_IMM,
		  IBV_SEND_SIGNALED, &sg, 1, t_addr(&src, 8), src.mr->rkey,
		  imm);
	POLL(p.s[0].rcq, 1, &wc);
	EXPECT_WC(&wc, 950, IBV_WC_SUCCESS, IBV_WC_RECV_RDMA_WITH_IMM, qpn0,
		  T_ANY, IBV_WC_WITH_IMM, (long long)imm);
	check_recv_byte_len(&wc, 1500);
	POLL(p.s[1].scq, 1, &wc);
	EXPECT_WC(&wc, 951, IBV_WC_SUCCESS, IBV_WC_RDMA_WRITE, qpn1, T_ANY,
		  T_ANY, T_ANY);
	EXPECT_SEND_IMM_FLAGS(&wc);
	CHECK_FILL(src.p, CANARY, 8);
	CHECK_MEM(src.p + 8, dst.p, 1500);
	CHECK_FILL(src.p + 8 + 1500, CANARY, BUF_LEN - 8 - 1500);
	printf("reverse write_imm (receive without SGE): ok\n");

	EXPECT_EMPTY(p.s[1].rcq, T_EMPTY_POLLS);
	EXPECT_EMPTY(p.s[0].rcq, 1);
	EXPECT_EMPTY(p.s[0].scq, 1);
	EXPECT_EMPTY(p.s[1].scq, 1);

	t_buf_free(&src);
	t_buf_free(&dst);
	t_buf_free(&rbuf);
	t_pair_close(&p);
	printf("sys_write_imm: passed\n");
	return 0;
}
