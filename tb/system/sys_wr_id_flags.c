// SPDX-License-Identifier: MIT
/*
 * sys_wr_id_flags.c - "Each WR builder will use the wr_id member of struct
 * ibv_qp_ex to set the value to be returned in the completion. Some
 * operations will also use the wr_flags member ... These values should be
 * set before invoking the WR builder function" (ibv_wr_post(3)):
 *
 *   wr_id_at_builder     wr_id changed after the builder (before its setter)
 *                        does not change the WR's completion;
 *   unsignaled           wr_flags 0: no completion for the WR; the next
 *                        signaled one completes and retires it (the SQ has
 *                        room for max_send_wr more afterwards);
 *   flags_at_builder     wr_flags changed after the builder do not apply;
 *   fence_solicited      IBV_SEND_FENCE and IBV_SEND_SOLICITED are taken (a
 *                        fenced WRITE after a READ sees the READ done);
 *   inline_flag_ignored  IBV_SEND_INLINE in wr_flags with an SGE setter is
 *                        not an error (inline data come from the inline
 *                        setters only);
 *   sq_sig_all           on a QP with sq_sig_all every WR completes, even
 *                        with wr_flags 0.
 */
#define _DEFAULT_SOURCE

#include "common.h"

#include <stdio.h>
#include <string.h>

#define BUF_LEN 8192
#define CANARY 0x21

#define OPS (IBV_QP_EX_WITH_SEND | IBV_QP_EX_WITH_RDMA_WRITE |		\
	     IBV_QP_EX_WITH_RDMA_READ)

static void write_wr(struct ibv_qp_ex *qpx, struct t_buf *src, struct t_buf *dst,
		     size_t off, uint32_t len)
{
	ibv_wr_rdma_write(qpx, dst->mr->rkey, t_addr(dst, off));
	ibv_wr_set_sge(qpx, src->mr->lkey, t_addr(src, off), len);
}

static void run(int sig_all)
{
	struct t_buf src, dst, rbuf;
	struct t_pair_cfg cfg;
	struct ibv_qp_ex *qpx;
	struct ibv_wc wc[16];
	struct ibv_sge sg;
	struct t_pair p;
	uint32_t qpn0, n;
	int i;

	t_pair_default_cfg(&cfg);
	cfg.caps.max_send_wr = 8;
	cfg.caps.sq_sig_all = sig_all;
	cfg.send_ops_flags = OPS;
	t_pair_open(&p, &cfg);
	qpx = p.s[0].qpx;
	qpn0 = p.s[0].qp->qp_num;
	n = p.s[0].cap.max_send_wr;
	t_buf_alloc(&src, p.s[0].pd, BUF_LEN);
	t_buf_alloc(&dst, p.s[1].pd, BUF_LEN);
	t_buf_alloc(&rbuf, p.s[1].pd, BUF_LEN);
	t_fill(src.p, BUF_LEN, 0x1d);
	memset(dst.p, CANARY, BUF_LEN);

	if (sig_all) {
		/* sq_sig_all */
		ibv_wr_start(qpx);
		qpx->wr_flags = 0;
		for (i = 0; i < 3; i++) {
			qpx->wr_id = 900 + i;
			write_wr(qpx, &src, &dst, 64 * (size_t)i, 64);
		}
		WR_COMPLETE(qpx);
		POLL(p.s[0].scq, 3, wc);
		for (i = 0; i < 3; i++)
			EXPECT_WC(&wc[i], 900 + i, IBV_WC_SUCCESS, IBV_WC_RDMA_WRITE,
				  qpn0, T_ANY, 0, T_ANY);
		CHECK_MEM(dst.p, src.p, 192);
		EXPECT_EMPTY(p.s[0].scq, 1);
		printf("sq_sig_all: every WR completes with wr_flags 0: ok\n");
		goto out;
	}

	/* wr_id_at_builder */
	ibv_wr_start(qpx);
	qpx->wr_flags = IBV_SEND_SIGNALED;
	qpx->wr_id = 0x1111;
	ibv_wr_rdma_write(qpx, dst.mr->rkey, t_addr(&dst, 0));
	qpx->wr_id = 0x2222;
	ibv_wr_set_sge(qpx, src.mr->lkey, t_addr(&src, 0), 32);
	WR_COMPLETE(qpx);
	POLL(p.s[0].scq, 1, wc);
	EXPECT_WC(&wc[0], 0x1111, IBV_WC_SUCCESS, IBV_WC_RDMA_WRITE, qpn0, T_ANY, 0,
		  T_ANY);
	CHECK_MEM(dst.p, src.p, 32);
	printf("wr_id_at_builder: ok\n");

	/* unsignaled: n - 1 unsignaled WRs, then a signaled one */
	ibv_wr_start(qpx);
	qpx->wr_flags = 0;
	for (i = 0; i < (int)n - 1; i++) {
		qpx->wr_id = 100 + i;
		write_wr(qpx, &src, &dst, 256 + 32 * (size_t)i, 32);
	}
	WR_COMPLETE(qpx);
	EXPECT_EMPTY(p.s[0].scq, T_EMPTY_POLLS / 10);
	CHECK_MEM(dst.p + 256, src.p + 256, 32 * ((size_t)n - 1));
	ibv_wr_start(qpx);
	qpx->wr_flags = IBV_SEND_SIGNALED;
	qpx->wr_id = 199;
	write_wr(qpx, &src, &dst, 2048, 32);
	WR_COMPLETE(qpx);
	POLL(p.s[0].scq, 1, wc);
	EXPECT_WC(&wc[0], 199, IBV_WC_SUCCESS, IBV_WC_RDMA_WRITE, qpn0, T_ANY, 0,
		  T_ANY);
	EXPECT_EMPTY(p.s[0].scq, 1);
	/* The unsignaled WRs were retired with it: a full SQ fits again. */
	ibv_wr_start(qpx);
	qpx->wr_flags = IBV_SEND_SIGNALED;
	for (i = 0; i < (int)n; i++) {
		qpx->wr_id = 300 + i;
		write_wr(qpx, &src, &dst, 4096 + 32 * (size_t)i, 32);
	}
	WR_COMPLETE(qpx);
	POLL(p.s[0].scq, (int)n, wc);
	for (i = 0; i < (int)n; i++)
		EXPECT_WC(&wc[i], 300 + i, IBV_WC_SUCCESS, IBV_WC_RDMA_WRITE, qpn0,
			  T_ANY, 0, T_ANY);
	printf("unsignaled (%u without completion, retired by the next): ok\n", n - 1);

	/* flags_at_builder: unsignaled at the builder, signaled before the
	 * setter: no completion; then the opposite. */
	ibv_wr_start(qpx);
	qpx->wr_flags = 0;
	qpx->wr_id = 401;
	ibv_wr_rdma_write(qpx, dst.mr->rkey, t_addr(&dst, 6000));
	qpx->wr_flags = IBV_SEND_SIGNALED;
	ibv_wr_set_sge(qpx, src.mr->lkey, t_addr(&src, 6000), 16);
	qpx->wr_id = 402;
	ibv_wr_rdma_write(qpx, dst.mr->rkey, t_addr(&dst, 6016));
	qpx->wr_flags = 0;
	ibv_wr_set_sge(qpx, src.mr->lkey, t_addr(&src, 6016), 16);
	WR_COMPLETE(qpx);
	POLL(p.s[0].scq, 1, wc);
	EXPECT_WC(&wc[0], 402, IBV_WC_SUCCESS, IBV_WC_RDMA_WRITE, qpn0, T_ANY, 0,
		  T_ANY);
	EXPECT_EMPTY(p.s[0].scq, 1);
	CHECK_MEM(dst.p + 6000, src.p + 6000, 32);
	printf("flags_at_builder: ok\n");

	/* fence_solicited: READ dst[7000..7100) into src, then a fenced WRITE
	 * of those src bytes to dst[7200..): the WRITE carries the READ's
	 * result. The SEND is solicited. */
	t_fill(dst.p + 7000, 100, 0xfe);
	memset(src.p + 7000, 0, 100);
	sg = t_sge(&rbuf, 0, 64);
	POST_RECV(p.s[1].qp, 55, &sg, 1);
	ibv_wr_start(qpx);
	qpx->wr_flags = IBV_SEND_SIGNALED;
	qpx->wr_id = 501;
	ibv_wr_rdma_read(qpx, dst.mr->rkey, t_addr(&dst, 7000));
	ibv_wr_set_sge(qpx, src.mr->lkey, t_addr(&src, 7000), 100);
	qpx->wr_flags = IBV_SEND_SIGNALED | IBV_SEND_FENCE;
	qpx->wr_id = 502;
	ibv_wr_rdma_write(qpx, dst.mr->rkey, t_addr(&dst, 7200));
	ibv_wr_set_sge(qpx, src.mr->lkey, t_addr(&src, 7000), 100);
	qpx->wr_flags = IBV_SEND_SIGNALED | IBV_SEND_SOLICITED;
	qpx->wr_id = 503;
	ibv_wr_send(qpx);
	ibv_wr_set_sge(qpx, src.mr->lkey, t_addr(&src, 0), 10);
	WR_COMPLETE(qpx);
	POLL(p.s[0].scq, 3, wc);
	EXPECT_WC(&wc[0], 501, IBV_WC_SUCCESS, IBV_WC_RDMA_READ, qpn0, 100, 0, T_ANY);
	EXPECT_WC(&wc[1], 502, IBV_WC_SUCCESS, IBV_WC_RDMA_WRITE, qpn0, T_ANY, 0, T_ANY);
	EXPECT_WC(&wc[2], 503, IBV_WC_SUCCESS, IBV_WC_SEND, qpn0, T_ANY, 0, T_ANY);
	POLL(p.s[1].rcq, 1, wc);
	EXPECT_WC(&wc[0], 55, IBV_WC_SUCCESS, IBV_WC_RECV, p.s[1].qp->qp_num, 10, 0,
		  T_ANY);
	CHECK_MEM(src.p + 7000, dst.p + 7000, 100);
	CHECK_MEM(dst.p + 7200, dst.p + 7000, 100);
	printf("fence_solicited: ok\n");

	/* inline_flag_ignored */
	ibv_wr_start(qpx);
	qpx->wr_flags = IBV_SEND_SIGNALED | IBV_SEND_INLINE;
	qpx->wr_id = 601;
	write_wr(qpx, &src, &dst, 7500, 100);
	WR_COMPLETE(qpx);
	POLL(p.s[0].scq, 1, wc);
	EXPECT_WC(&wc[0], 601, IBV_WC_SUCCESS, IBV_WC_RDMA_WRITE, qpn0, T_ANY, 0,
		  T_ANY);
	CHECK_MEM(dst.p + 7500, src.p + 7500, 100);
	printf("inline_flag_ignored: ok\n");

out:
	EXPECT_EMPTY(p.s[1].rcq, 1);
	t_buf_free(&src);
	t_buf_free(&dst);
	t_buf_free(&rbuf);
	t_pair_close(&p);
}

int main(void)
{
	run(0);
	run(1);
	printf("sys_wr_id_flags: passed\n");
	return 0;
}
