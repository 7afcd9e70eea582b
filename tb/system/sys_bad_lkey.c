// SPDX-License-Identifier: MIT
/*
 * sys_bad_lkey.c - a local protection error moves the QP to the error state.
 *
 * rnic0 posts, in one chain: a good WRITE, a SEND whose SGE carries a wrong
 * lkey, a good WRITE and a good SEND (all signaled). Expected send
 * completions, in order: SUCCESS, LOC_PROT_ERR, WR_FLUSH_ERR, WR_FLUSH_ERR.
 * The QP is then in the error state: a receive posted before the error and
 * one posted after it complete with WR_FLUSH_ERR, and so does a send posted
 * after it. The responder gets no receive completion and the flushed WRITE
 * does not reach its memory.
 */
#define _DEFAULT_SOURCE

#include "common.h"

#include <stdio.h>
#include <string.h>

#define BUF_LEN 4096
#define CANARY 0x4d

int main(void)
{
	struct t_pair_cfg cfg;
	struct t_pair p;
	struct t_buf src, dst, lrecv;
	struct ibv_send_wr wr[4], *bad = NULL;
	struct ibv_sge sge[4], sg;
	struct ibv_wc wc[4];
	uint32_t qpn0;
	int i;

	t_pair_default_cfg(&cfg);
	t_pair_open(&p, &cfg);
	qpn0 = p.s[0].qp->qp_num;
	t_buf_alloc(&src, p.s[0].pd, BUF_LEN);
	t_buf_alloc(&lrecv, p.s[0].pd, 256);
	t_buf_alloc(&dst, p.s[1].pd, BUF_LEN);
	t_fill(src.p, BUF_LEN, 0xf000);
	memset(dst.p, CANARY, BUF_LEN);

	/* A receive at the responder, which must never complete. */
	sg = t_sge(&dst, 2048, 1024);
	POST_RECV(p.s[1].qp, 100, &sg, 1);
	/* A receive on the requester QP, flushed when that QP fails. */
	sg = t_sge(&lrecv, 0, 256);
	POST_RECV(p.s[0].qp, 200, &sg, 1);

	memset(wr, 0, sizeof(wr));
	for (i = 0; i < 4; i++) {
		sge[i] = t_sge(&src, (size_t)i * 256, 64);
		wr[i].wr_id = 10 + i;
		wr[i].next = i < 3 ? &wr[i + 1] : NULL;
		wr[i].sg_list = &sge[i];
		wr[i].num_sge = 1;
		wr[i].send_flags = IBV_SEND_SIGNALED;
	}
	wr[0].opcode = IBV_WR_RDMA_WRITE;
	wr[0].wr.rdma.remote_addr = t_addr(&dst, 0);
	wr[0].wr.rdma.rkey = dst.mr->rkey;
	wr[1].opcode = IBV_WR_SEND;
	sge[1].lkey = src.mr->lkey ^ 0xff;	/* same MR, wrong key byte */
	CHECK(sge[1].lkey != src.mr->lkey && sge[1].lkey != lrecv.mr->lkey);
	wr[2].opcode = IBV_WR_RDMA_WRITE;
	wr[2].wr.rdma.remote_addr = t_addr(&dst, 1024);
	wr[2].wr.rdma.rkey = dst.mr->rkey;
	wr[3].opcode = IBV_WR_SEND;
	CHECK_OK(ibv_post_send(p.s[0].qp, wr, &bad));

	POLL(p.s[0].scq, 4, wc);
	EXPECT_WC(&wc[0], 10, IBV_WC_SUCCESS, IBV_WC_RDMA_WRITE, qpn0, T_ANY,
		  0, T_ANY);
	EXPECT_WC(&wc[1], 11, IBV_WC_LOC_PROT_ERR, T_ANY, qpn0, T_ANY, T_ANY,
		  T_ANY);
	EXPECT_WC(&wc[2], 12, IBV_WC_WR_FLUSH_ERR, T_ANY, qpn0, T_ANY, T_ANY,
		  T_ANY);
	EXPECT_WC(&wc[3], 13, IBV_WC_WR_FLUSH_ERR, T_ANY, qpn0, T_ANY, T_ANY,
		  T_ANY);
	printf("WRITE ok, bad lkey -> LOC_PROT_ERR, rest flushed: ok\n");

	/* The receive posted before the error is flushed. */
	POLL(p.s[0].rcq, 1, wc);
	EXPECT_WC(&wc[0], 200, IBV_WC_WR_FLUSH_ERR, T_ANY, qpn0, T_ANY, T_ANY,
		  T_ANY);

	CHECK_EQ(t_qp_state(p.s[0].qp), IBV_QPS_ERR);

	/* Work posted to a QP in the error state completes with a flush. */
	sg = t_sge(&lrecv, 0, 256);
	POST_RECV(p.s[0].qp, 201, &sg, 1);
	POLL(p.s[0].rcq, 1, wc);
	EXPECT_WC(&wc[0], 201, IBV_WC_WR_FLUSH_ERR, T_ANY, qpn0, T_ANY, T_ANY,
		  T_ANY);
	sg = t_sge(&src, 0, 64);
	POST_SEND(p.s[0].qp, 14, IBV_WR_SEND, IBV_SEND_SIGNALED, &sg, 1, 0, 0,
		  0);
	POLL(p.s[0].scq, 1, wc);
	EXPECT_WC(&wc[0], 14, IBV_WC_WR_FLUSH_ERR, T_ANY, qpn0, T_ANY, T_ANY,
		  T_ANY);
	printf("QP in ERR: receives and sends are flushed: ok\n");

	/* Responder: only the first WRITE landed, no receive completed. */
	EXPECT_EMPTY(p.s[1].rcq, T_EMPTY_POLLS);
	CHECK_MEM(dst.p, src.p, 64);
	CHECK_FILL(dst.p + 64, CANARY, BUF_LEN - 64);
	CHECK_FILL(lrecv.p, 0, 256);
	EXPECT_EMPTY(p.s[0].scq, 1);
	EXPECT_EMPTY(p.s[0].rcq, 1);
	EXPECT_EMPTY(p.s[1].scq, 1);

	t_buf_free(&src);
	t_buf_free(&lrecv);
	t_buf_free(&dst);
	t_pair_close(&p);
	printf("sys_bad_lkey: passed\n");
	return 0;
}
