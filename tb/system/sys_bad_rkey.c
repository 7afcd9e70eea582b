// SPDX-License-Identifier: MIT
/*
 * sys_bad_rkey.c - remote access errors.
 *
 * Pair 1: a good WRITE, a WRITE with a wrong rkey, then a good WRITE: the
 * requester sees SUCCESS, REM_ACCESS_ERR, WR_FLUSH_ERR; the bad WRITE leaves
 * the target untouched. Pair 2: a WRITE whose range runs past the end of the
 * remote MR (right rkey) and pair 3: a READ with a wrong rkey both fail with
 * REM_ACCESS_ERR. Nothing is placed in memory for a failed request.
 */
#define _DEFAULT_SOURCE

#include "common.h"

#include <stdio.h>
#include <string.h>

#define BUF_LEN 4096
#define CANARY 0x2a

struct res {
	struct t_pair p;
	struct t_buf src, dst;
	uint32_t qpn0;
};

static void open_res(struct res *r)
{
	struct t_pair_cfg cfg;

	t_pair_default_cfg(&cfg);
	t_pair_open(&r->p, &cfg);
	r->qpn0 = r->p.s[0].qp->qp_num;
	t_buf_alloc(&r->src, r->p.s[0].pd, BUF_LEN);
	t_buf_alloc(&r->dst, r->p.s[1].pd, BUF_LEN);
	t_fill(r->src.p, BUF_LEN, 0xa000);
	memset(r->dst.p, CANARY, BUF_LEN);
}

static void close_res(struct res *r)
{
	t_buf_free(&r->src);
	t_buf_free(&r->dst);
	t_pair_close(&r->p);
}

static void bad_rkey_write(void)
{
	struct ibv_send_wr wr[3], *bad = NULL;
	struct ibv_sge sge[3];
	struct ibv_wc wc[3];
	struct res r;
	int i;

	open_res(&r);
	memset(wr, 0, sizeof(wr));
	for (i = 0; i < 3; i++) {
		sge[i] = t_sge(&r.src, (size_t)i * 512, 128);
		wr[i].wr_id = 20 + i;
		wr[i].next = i < 2 ? &wr[i + 1] : NULL;
		wr[i].sg_list = &sge[i];
		wr[i].num_sge = 1;
		wr[i].opcode = IBV_WR_RDMA_WRITE;
		wr[i].send_flags = IBV_SEND_SIGNALED;
		wr[i].wr.rdma.remote_addr = t_addr(&r.dst, (size_t)i * 1024);
		wr[i].wr.rdma.rkey = r.dst.mr->rkey;
	}
	wr[1].wr.rdma.rkey = r.dst.mr->rkey ^ 0xff;	/* wrong key byte */
	CHECK_OK(ibv_post_send(r.p.s[0].qp, wr, &bad));

	POLL(r.p.s[0].scq, 3, wc);
	EXPECT_WC(&wc[0], 20, IBV_WC_SUCCESS, IBV_WC_RDMA_WRITE, r.qpn0, T_ANY,
		  0, T_ANY);
	EXPECT_WC(&wc[1], 21, IBV_WC_REM_ACCESS_ERR, T_ANY, r.qpn0, T_ANY,
		  T_ANY, T_ANY);
	EXPECT_WC(&wc[2], 22, IBV_WC_WR_FLUSH_ERR, T_ANY, r.qpn0, T_ANY,
		  T_ANY, T_ANY);
	CHECK_MEM(r.dst.p, r.src.p, 128);
	CHECK_FILL(r.dst.p + 128, CANARY, 1024 - 128);
	/* The bad WRITE placed nothing (WR 22 may or may not have landed). */
	CHECK_FILL(r.dst.p + 1024, CANARY, 1024);
	EXPECT_EMPTY(r.p.s[0].scq, T_EMPTY_POLLS);
	EXPECT_EMPTY(r.p.s[1].rcq, 1);
	close_res(&r);
	printf("WRITE wrong rkey -> REM_ACCESS_ERR, next flushed: ok\n");
}

static void write_past_mr(void)
{
	struct ibv_wc wc;
	struct ibv_sge sg;
	struct res r;

	open_res(&r);
	sg = t_sge(&r.src, 0, 256);
	/* Starts inside the MR, ends 128 bytes past it. */
	POST_SEND(r.p.s[0].qp, 30, IBV_WR_RDMA_WRITE, IBV_SEND_SIGNALED, &sg,
		  1, t_addr(&r.dst, BUF_LEN - 128), r.dst.mr->rkey, 0);
	POLL(r.p.s[0].scq, 1, &wc);
	EXPECT_WC(&wc, 30, IBV_WC_REM_ACCESS_ERR, T_ANY, r.qpn0, T_ANY, T_ANY,
		  T_ANY);
	CHECK_FILL(r.dst.p, CANARY, BUF_LEN);
	EXPECT_EMPTY(r.p.s[1].rcq, T_EMPTY_POLLS);
	close_res(&r);
	printf("WRITE past the end of the MR -> REM_ACCESS_ERR: ok\n");
}

static void bad_rkey_read(void)
{
	struct ibv_wc wc;
	struct ibv_sge sg;
	struct res r;

	open_res(&r);
	memset(r.src.p, CANARY, BUF_LEN);
	t_fill(r.dst.p, BUF_LEN, 0xa100);
	sg = t_sge(&r.src, 0, 200);
	POST_SEND(r.p.s[0].qp, 40, IBV_WR_RDMA_READ, IBV_SEND_SIGNALED, &sg,
		  1, t_addr(&r.dst, 0), r.dst.mr->rkey ^ 0xff, 0);
	POLL(r.p.s[0].scq, 1, &wc);
	EXPECT_WC(&wc, 40, IBV_WC_REM_ACCESS_ERR, T_ANY, r.qpn0, T_ANY, T_ANY,
		  T_ANY);
	CHECK_FILL(r.src.p, CANARY, BUF_LEN);
	EXPECT_EMPTY(r.p.s[1].rcq, T_EMPTY_POLLS);
	close_res(&r);
	printf("READ wrong rkey -> REM_ACCESS_ERR: ok\n");
}

int main(void)
{
	bad_rkey_write();
	write_past_mr();
	bad_rkey_read();
	printf("sys_bad_rkey: passed\n");
	return 0;
}
