// SPDX-License-Identifier: MIT
/*
 * sys_send_imm.c - RC SEND with immediate data.
 *
 * The receive completion must carry IBV_WC_WITH_IMM and imm_data exactly as
 * posted (network byte order, compared as the raw __be32). Covers a
 * zero-length SEND_WITH_IMM (no SGE at all), a plain SEND after a SEND_IMM
 * (the flag must not stick), and one SEND_IMM in the other direction.
 */
#define _DEFAULT_SOURCE

#include "common.h"

#include <endian.h>
#include <stdio.h>
#include <string.h>

#define BUF_LEN 4096
#define RECV_LEN 1024
#define CANARY 0x3c

struct step {
	uint32_t len;
	int with_imm;
	uint32_t imm;	/* host order; sent as htobe32(imm) */
};

int main(void)
{
	static const struct step steps[] = {
		{ 4, 1, 0x12345678 },
		{ 64, 1, 0xdeadbeef },
		{ 1000, 1, 0x00000001 },
		{ 0, 1, 0x80000000 },
		{ 64, 0, 0 },
		{ 1, 1, 0xffffffff },
	};
	const int n = sizeof(steps) / sizeof(steps[0]);
	struct t_pair_cfg cfg;
	struct t_pair p;
	struct t_buf src, dst;
	struct ibv_wc wc;
	struct ibv_sge sg;
	uint32_t qpn0, qpn1;
	__be32 imm;
	int i;

	t_pair_default_cfg(&cfg);
	t_pair_open(&p, &cfg);
	qpn0 = p.s[0].qp->qp_num;
	qpn1 = p.s[1].qp->qp_num;
	t_buf_alloc(&src, p.s[0].pd, BUF_LEN);
	t_buf_alloc(&dst, p.s[1].pd, BUF_LEN);

	for (i = 0; i < n; i++) {
		const struct step *s = &steps[i];
		enum ibv_wr_opcode op = s->with_imm ? IBV_WR_SEND_WITH_IMM :
						      IBV_WR_SEND;

		imm = htobe32(s->imm);
		t_fill(src.p, BUF_LEN, 0x5100 + i);
		memset(dst.p, CANARY, BUF_LEN);

		sg = t_sge(&dst, 0, RECV_LEN);
		POST_RECV(p.s[1].qp, 500 + i, &sg, 1);
		sg = t_sge(&src, 3, s->len);
		POST_SEND(p.s[0].qp, 50 + i, op, IBV_SEND_SIGNALED,
			  s->len ? &sg : NULL, s->len ? 1 : 0, 0, 0, imm);

		POLL(p.s[1].rcq, 1, &wc);
		EXPECT_WC(&wc, 500 + i, IBV_WC_SUCCESS, IBV_WC_RECV, qpn1,
			  s->len, s->with_imm ? IBV_WC_WITH_IMM : 0,
			  s->with_imm ? (long long)imm : T_ANY);
		if (s->with_imm)
			CHECK_EQ(be32toh(wc.imm_data), s->imm);

		POLL(p.s[0].scq, 1, &wc);
		EXPECT_WC(&wc, 50 + i, IBV_WC_SUCCESS, IBV_WC_SEND, qpn0,
			  T_ANY, s->with_imm ? T_ANY : 0, T_ANY);
		EXPECT_SEND_IMM_FLAGS(&wc);

		CHECK_MEM(dst.p, src.p + 3, s->len);
		CHECK_FILL(dst.p + s->len, CANARY, BUF_LEN - s->len);
		printf("%s %4u bytes imm 0x%08x: ok\n",
		       s->with_imm ? "send_imm" : "send    ", s->len,
		       s->with_imm ? s->imm : 0);
	}

	/* rnic1 -> rnic0. */
	imm = htobe32(0xa1b2c3d4);
	t_fill(dst.p, BUF_LEN, 0x5200);
	memset(src.p, CANARY, BUF_LEN);
	sg = t_sge(&src, 0, RECV_LEN);
	POST_RECV(p.s[0].qp, 600, &sg, 1);
	sg = t_sge(&dst, 0, 200);
	POST_SEND(p.s[1].qp, 601, IBV_WR_SEND_WITH_IMM, IBV_SEND_SIGNALED,
		  &sg, 1, 0, 0, imm);
	POLL(p.s[0].rcq, 1, &wc);
	EXPECT_WC(&wc, 600, IBV_WC_SUCCESS, IBV_WC_RECV, qpn0, 200,
		  IBV_WC_WITH_IMM, (long long)imm);
	POLL(p.s[1].scq, 1, &wc);
	EXPECT_WC(&wc, 601, IBV_WC_SUCCESS, IBV_WC_SEND, qpn1, T_ANY, T_ANY,
		  T_ANY);
	EXPECT_SEND_IMM_FLAGS(&wc);
	CHECK_MEM(src.p, dst.p, 200);
	CHECK_FILL(src.p + 200, CANARY, BUF_LEN - 200);
	printf("reverse send_imm: ok\n");

	EXPECT_EMPTY(p.s[1].rcq, T_EMPTY_POLLS);
	EXPECT_EMPTY(p.s[0].scq, 1);
	EXPECT_EMPTY(p.s[0].rcq, 1);
	EXPECT_EMPTY(p.s[1].scq, 1);

	t_buf_free(&src);
	t_buf_free(&dst);
	t_pair_close(&p);
	printf("sys_send_imm: passed\n");
	return 0;
}
