// SPDX-License-Identifier: MIT
/*
 * sys_send_recv.c - RC SEND/RECV between rnic0 and rnic1.
 *
 * Checks the GIDs (IPv4-mapped ::ffff:10.0.0.<n+1>), then sends 1, 64 and
 * 1000 bytes one at a time, a batch of three sends into three posted
 * receives (receives are consumed in order), and one send the other way.
 * Each receive buffer is larger than the message; the bytes past the message
 * must stay untouched.
 */
#define _DEFAULT_SOURCE

#include "common.h"

#include <stdio.h>
#include <string.h>

#define BUF_LEN 4096
#define RECV_LEN 1024
#define CANARY 0xa5

static void check_gid(struct ibv_context *ctx, uint8_t last_octet)
{
	union ibv_gid gid;
	uint8_t exp[16] = {
		[10] = 0xff, [11] = 0xff, [12] = 10, [13] = 0, [14] = 0,
		[15] = last_octet,
	};

	t_query_gid(ctx, &gid);
	CHECK_MEM(gid.raw, exp, sizeof(exp));
}

int main(void)
{
	static const uint32_t sizes[] = { 1, 64, 1000 };
	static const size_t src_off[] = { 0, 1001, 2003 };
	const int n = sizeof(sizes) / sizeof(sizes[0]);
	struct t_pair_cfg cfg;
	struct t_pair p;
	struct t_buf src, dst;
	struct ibv_wc wc[3];
	struct ibv_sge sg;
	uint32_t qpn0, qpn1;
	int i;

	t_pair_default_cfg(&cfg);
	t_pair_open(&p, &cfg);
	qpn0 = p.s[0].qp->qp_num;
	qpn1 = p.s[1].qp->qp_num;
	CHECK(qpn0 != 0 && qpn1 != 0);

	check_gid(p.s[0].ctx, 1);
	check_gid(p.s[1].ctx, 2);

	t_buf_alloc(&src, p.s[0].pd, BUF_LEN);
	t_buf_alloc(&dst, p.s[1].pd, BUF_LEN);

	/* One message at a time. */
	for (i = 0; i < n; i++) {
		uint32_t len = sizes[i];

		t_fill(src.p, BUF_LEN, 0x1000 + i);
		memset(dst.p, CANARY, BUF_LEN);

		sg = t_sge(&dst, 0, RECV_LEN);
		POST_RECV(p.s[1].qp, 100 + i, &sg, 1);
		sg = t_sge(&src, 0, len);
		POST_SEND(p.s[0].qp, 1 + i, IBV_WR_SEND, IBV_SEND_SIGNALED,
			  &sg, 1, 0, 0, 0);

		POLL(p.s[1].rcq, 1, wc);
		EXPECT_WC(&wc[0], 100 + i, IBV_WC_SUCCESS, IBV_WC_RECV, qpn1,
			  len, 0, T_ANY);
		POLL(p.s[0].scq, 1, wc);
		EXPECT_WC(&wc[0], 1 + i, IBV_WC_SUCCESS, IBV_WC_SEND, qpn0,
			  T_ANY, 0, T_ANY);

		CHECK_MEM(dst.p, src.p, len);
		CHECK_FILL(dst.p + len, CANARY, BUF_LEN - len);
		printf("send %4u bytes: ok\n", len);
	}

	/* A batch: three receives posted first, then three sends. */
	t_fill(src.p, BUF_LEN, 0x2000);
	memset(dst.p, CANARY, BUF_LEN);
	for (i = 0; i < n; i++) {
		sg = t_sge(&dst, (size_t)i * RECV_LEN, RECV_LEN);
		POST_RECV(p.s[1].qp, 200 + i, &sg, 1);
	}
	for (i = 0; i < n; i++) {
		sg = t_sge(&src, src_off[i], sizes[i]);
		POST_SEND(p.s[0].qp, 20 + i, IBV_WR_SEND, IBV_SEND_SIGNALED,
			  &sg, 1, 0, 0, 0);
	}
	POLL(p.s[1].rcq, n, wc);
	for (i = 0; i < n; i++)
		EXPECT_WC(&wc[i], 200 + i, IBV_WC_SUCCESS, IBV_WC_RECV, qpn1,
			  sizes[i], 0, T_ANY);
	POLL(p.s[0].scq, n, wc);
	for (i = 0; i < n; i++)
		EXPECT_WC(&wc[i], 20 + i, IBV_WC_SUCCESS, IBV_WC_SEND, qpn0,
			  T_ANY, 0, T_ANY);
	for (i = 0; i < n; i++) {
		uint8_t *r = dst.p + (size_t)i * RECV_LEN;

		CHECK_MEM(r, src.p + src_off[i], sizes[i]);
		CHECK_FILL(r + sizes[i], CANARY, RECV_LEN - sizes[i]);
	}
	CHECK_FILL(dst.p + n * RECV_LEN, CANARY, BUF_LEN - n * RECV_LEN);
	printf("batch of %d sends: ok\n", n);

	/* The other direction: rnic1 sends 64 bytes to rnic0. */
	t_fill(dst.p, BUF_LEN, 0x3000);
	memset(src.p, CANARY, BUF_LEN);
	sg = t_sge(&src, 7, RECV_LEN);
	POST_RECV(p.s[0].qp, 300, &sg, 1);
	sg = t_sge(&dst, 5, 64);
	POST_SEND(p.s[1].qp, 301, IBV_WR_SEND, IBV_SEND_SIGNALED, &sg, 1, 0,
		  0, 0);
	POLL(p.s[0].rcq, 1, wc);
	EXPECT_WC(&wc[0], 300, IBV_WC_SUCCESS, IBV_WC_RECV, qpn0, 64, 0,
		  T_ANY);
	POLL(p.s[1].scq, 1, wc);
	EXPECT_WC(&wc[0], 301, IBV_WC_SUCCESS, IBV_WC_SEND, qpn1, T_ANY, 0,
		  T_ANY);
	CHECK_FILL(src.p, CANARY, 7);
	CHECK_MEM(src.p + 7, dst.p + 5, 64);
	CHECK_FILL(src.p + 7 + 64, CANARY, BUF_LEN - 7 - 64);
	printf("reverse send: ok\n");

	/* Nothing else may have completed. */
	EXPECT_EMPTY(p.s[0].scq, T_EMPTY_POLLS);
	EXPECT_EMPTY(p.s[0].rcq, 1);
	EXPECT_EMPTY(p.s[1].scq, 1);
	EXPECT_EMPTY(p.s[1].rcq, 1);

	t_buf_free(&src);
	t_buf_free(&dst);
	t_pair_close(&p);
	printf("sys_send_recv: passed\n");
	return 0;
}
