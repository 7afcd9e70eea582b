// SPDX-License-Identifier: MIT
/*
 * sys_wr_abort.c - "ibv_wr_abort() will discard all work prepared since
 * ibv_wr_start()" (ibv_wr_post(3)):
 *
 *   abort_discards     three WRs (WRITE, SEND, WRITE_IMM) built and
 *                      aborted: no completion on either side while the
 *                      model runs, remote bytes untouched, the receives not
 *                      consumed;
 *   after_abort        the next batch takes the aborted WRs' slots: only
 *                      its own wr_ids complete, its bytes land, and the
 *                      receives go to its SENDs;
 *   abort_empty        ibv_wr_start() + ibv_wr_abort() with nothing built;
 *   post_after_abort   ibv_post_send() after an abort works and completes
 *                      alone;
 *   abort_full         a batch as large as the SQ, aborted, takes no
 *                      space: a full batch fits right after.
 */
#define _DEFAULT_SOURCE

#include "common.h"

#include <endian.h>
#include <stdio.h>
#include <string.h>

#define BUF_LEN 8192
#define CANARY 0x99

#define OPS (IBV_QP_EX_WITH_SEND | IBV_QP_EX_WITH_RDMA_WRITE |		\
	     IBV_QP_EX_WITH_RDMA_WRITE_WITH_IMM)

int main(void)
{
	struct t_buf src, dst, rbuf;
	struct t_pair_cfg cfg;
	struct ibv_qp_ex *qpx;
	struct ibv_wc wc[16];
	struct ibv_sge sg;
	struct t_pair p;
	uint32_t qpn0, qpn1, n;
	int i;

	t_pair_default_cfg(&cfg);
	cfg.caps.max_send_wr = 8;
	cfg.send_ops_flags = OPS;
	t_pair_open(&p, &cfg);
	qpx = p.s[0].qpx;
	qpn0 = p.s[0].qp->qp_num;
	qpn1 = p.s[1].qp->qp_num;
	t_buf_alloc(&src, p.s[0].pd, BUF_LEN);
	t_buf_alloc(&dst, p.s[1].pd, BUF_LEN);
	t_buf_alloc(&rbuf, p.s[1].pd, BUF_LEN);
	t_fill(src.p, BUF_LEN, 0xab0);
	memset(dst.p, CANARY, BUF_LEN);
	memset(rbuf.p, CANARY, BUF_LEN);
	sg = t_sge(&rbuf, 0, 1024);
	POST_RECV(p.s[1].qp, 61, &sg, 1);
	sg = t_sge(&rbuf, 1024, 1024);
	POST_RECV(p.s[1].qp, 62, &sg, 1);

	/* abort_discards */
	ibv_wr_start(qpx);
	qpx->wr_flags = IBV_SEND_SIGNALED;
	qpx->wr_id = 1;
	ibv_wr_rdma_write(qpx, dst.mr->rkey, t_addr(&dst, 0));
	ibv_wr_set_sge(qpx, src.mr->lkey, t_addr(&src, 0), 512);
	qpx->wr_id = 2;
	ibv_wr_send(qpx);
	ibv_wr_set_sge(qpx, src.mr->lkey, t_addr(&src, 512), 100);
	qpx->wr_id = 3;
	ibv_wr_rdma_write_imm(qpx, dst.mr->rkey, t_addr(&dst, 1024), htobe32(5));
	ibv_wr_set_sge(qpx, src.mr->lkey, t_addr(&src, 1024), 64);
	ibv_wr_abort(qpx);
	EXPECT_EMPTY(p.s[0].scq, T_EMPTY_POLLS);
	EXPECT_EMPTY(p.s[1].rcq, 1);
	CHECK_FILL(dst.p, CANARY, BUF_LEN);
	CHECK_FILL(rbuf.p, CANARY, BUF_LEN);
	printf("abort_discards: ok\n");

	/* after_abort */
	ibv_wr_start(qpx);
	qpx->wr_flags = IBV_SEND_SIGNALED;
	qpx->wr_id = 11;
	ibv_wr_send(qpx);
	ibv_wr_set_sge(qpx, src.mr->lkey, t_addr(&src, 4000), 200);
	qpx->wr_id = 12;
	ibv_wr_rdma_write(qpx, dst.mr->rkey, t_addr(&dst, 2048));
	ibv_wr_set_sge(qpx, src.mr->lkey, t_addr(&src, 5000), 300);
	WR_COMPLETE(qpx);
	POLL(p.s[0].scq, 2, wc);
	EXPECT_WC(&wc[0], 11, IBV_WC_SUCCESS, IBV_WC_SEND, qpn0, T_ANY, 0, T_ANY);
	EXPECT_WC(&wc[1], 12, IBV_WC_SUCCESS, IBV_WC_RDMA_WRITE, qpn0, T_ANY, 0, T_ANY);
	POLL(p.s[1].rcq, 1, wc);
	EXPECT_WC(&wc[0], 61, IBV_WC_SUCCESS, IBV_WC_RECV, qpn1, 200, 0, T_ANY);
	CHECK_MEM(rbuf.p, src.p + 4000, 200);
	CHECK_FILL(rbuf.p + 200, CANARY, BUF_LEN - 200);
	CHECK_FILL(dst.p, CANARY, 2048);
	CHECK_MEM(dst.p + 2048, src.p + 5000, 300);
	CHECK_FILL(dst.p + 2348, CANARY, BUF_LEN - 2348);
	EXPECT_EMPTY(p.s[0].scq, 1);
	printf("after_abort: ok\n");

	/* abort_empty */
	ibv_wr_start(qpx);
	ibv_wr_abort(qpx);
	printf("abort_empty: ok\n");

	/* post_after_abort */
	sg = t_sge(&src, 6000, 100);
	POST_SEND(p.s[0].qp, 21, IBV_WR_SEND, IBV_SEND_SIGNALED, &sg, 1, 0, 0, 0);
	POLL(p.s[0].scq, 1, wc);
	EXPECT_WC(&wc[0], 21, IBV_WC_SUCCESS, IBV_WC_SEND, qpn0, T_ANY, 0, T_ANY);
	POLL(p.s[1].rcq, 1, wc);
	EXPECT_WC(&wc[0], 62, IBV_WC_SUCCESS, IBV_WC_RECV, qpn1, 100, 0, T_ANY);
	CHECK_MEM(rbuf.p + 1024, src.p + 6000, 100);
	printf("post_after_abort: ok\n");

	/* abort_full */
	n = p.s[0].cap.max_send_wr;
	CHECK(n <= 16);
	ibv_wr_start(qpx);
	qpx->wr_flags = IBV_SEND_SIGNALED;
	for (i = 0; i < (int)n; i++) {
		qpx->wr_id = 100 + i;
		ibv_wr_rdma_write(qpx, dst.mr->rkey, t_addr(&dst, 4096));
		ibv_wr_set_sge(qpx, src.mr->lkey, t_addr(&src, 0), 8);
	}
	ibv_wr_abort(qpx);
	ibv_wr_start(qpx);
	qpx->wr_flags = IBV_SEND_SIGNALED;
	for (i = 0; i < (int)n; i++) {
		qpx->wr_id = 200 + i;
		ibv_wr_rdma_write(qpx, dst.mr->rkey, t_addr(&dst, 4096 + 8 * (size_t)i));
		ibv_wr_set_sge(qpx, src.mr->lkey, t_addr(&src, 8 * (size_t)i), 8);
	}
	WR_COMPLETE(qpx);
	POLL(p.s[0].scq, (int)n, wc);
	for (i = 0; i < (int)n; i++)
		EXPECT_WC(&wc[i], 200 + i, IBV_WC_SUCCESS, IBV_WC_RDMA_WRITE, qpn0,
			  T_ANY, 0, T_ANY);
	CHECK_MEM(dst.p + 4096, src.p, 8 * (size_t)n);
	printf("abort_full (%u WRs): ok\n", n);

	EXPECT_EMPTY(p.s[0].scq, 1);
	EXPECT_EMPTY(p.s[1].rcq, 1);
	t_buf_free(&src);
	t_buf_free(&dst);
	t_buf_free(&rbuf);
	t_pair_close(&p);
	printf("sys_wr_abort: passed\n");
	return 0;
}
