// SPDX-License-Identifier: MIT
/*
 * sys_uc.c - UC QPs (IBV_QPT_UC): created with ibv_create_qp and
 * ibv_create_qp_ex, connected with the UC attribute masks, and the opcodes
 * of the UC column of ibv_post_send(3), two nodes and loopback:
 *
 *   uc_send          SEND of 1, 1000 and 5000 bytes (multi-packet at MTU
 *                    1024): IBV_WC_RECV with byte_len, IBV_WC_SEND;
 *   uc_send_imm      SEND_WITH_IMM: IBV_WC_WITH_IMM and the immediate;
 *   uc_write         RDMA WRITE (multi-packet): the bytes, no receive;
 *   uc_write_imm     RDMA WRITE_WITH_IMM: IBV_WC_RECV_RDMA_WITH_IMM;
 *   uc_wr_api        the same four through ibv_wr_* in one batch;
 *   uc_no_receive    a SEND with no receive posted is dropped silently (no
 *                    RNR, no error on either side), and the next SEND,
 *                    after a receive is posted, arrives;
 *   uc_query         ibv_query_qp reports IBV_QPT_UC, RTS, the PSNs.
 *
 * Needs from the hardware: the UC transport (QP context type 3): UC
 * opcodes, no ACKs (the requester completes when the last packet has left),
 * silent drop of a message without a receive WQE.
 */
#define _DEFAULT_SOURCE

#include "common.h"

#include <endian.h>
#include <stdio.h>
#include <string.h>

#define BUF_LEN 16384
#define CANARY 0x6d

#define OPS (IBV_QP_EX_WITH_SEND | IBV_QP_EX_WITH_SEND_WITH_IMM |		\
	     IBV_QP_EX_WITH_RDMA_WRITE | IBV_QP_EX_WITH_RDMA_WRITE_WITH_IMM)

static void run(int loopback)
{
	static const uint32_t sizes[] = { 1, 1000, 5000 };
	struct t_buf src, dst, rbuf;
	struct ibv_qp_init_attr qia;
	struct t_pair_cfg cfg;
	struct ibv_qp_attr qa;
	struct ibv_qp_ex *qpx;
	struct ibv_wc wc[8];
	struct ibv_sge sg;
	struct t_pair p;
	uint32_t qpn0, qpn1;
	unsigned int i;

	t_pair_default_cfg(&cfg);
	cfg.loopback = loopback;
	cfg.qp_type = IBV_QPT_UC;
	cfg.send_ops_flags = OPS;
	cfg.attrs[0].access = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE;
	cfg.attrs[1].access = cfg.attrs[0].access;
	t_pair_open(&p, &cfg);
	qpx = p.s[0].qpx;
	qpn0 = p.s[0].qp->qp_num;
	qpn1 = p.s[1].qp->qp_num;
	t_buf_alloc(&src, p.s[0].pd, BUF_LEN);
	t_buf_alloc(&dst, p.s[1].pd, BUF_LEN);
	t_buf_alloc(&rbuf, p.s[1].pd, BUF_LEN);
	t_fill(src.p, BUF_LEN, 0xc0c0);
	printf("-- %s\n", loopback ? "loopback" : "two nodes");

	/* uc_query */
	memset(&qa, 0, sizeof(qa));
	CHECK_OK(ibv_query_qp(p.s[0].qp, &qa, IBV_QP_STATE | IBV_QP_SQ_PSN, &qia));
	CHECK_EQ(qia.qp_type, IBV_QPT_UC);
	CHECK_EQ(qa.qp_state, IBV_QPS_RTS);
	CHECK_EQ(qa.sq_psn, cfg.psn[0]);
	printf("uc_query: ok\n");

	for (i = 0; i < 3; i++) {
		memset(rbuf.p, CANARY, BUF_LEN);
		sg = t_sge(&rbuf, 0, BUF_LEN);
		POST_RECV(p.s[1].qp, 10 + i, &sg, 1);
		sg = t_sge(&src, 7, sizes[i]);
		POST_SEND(p.s[0].qp, 100 + i, IBV_WR_SEND, IBV_SEND_SIGNALED, &sg, 1,
			  0, 0, 0);
		POLL(p.s[1].rcq, 1, wc);
		EXPECT_WC(&wc[0], 10 + i, IBV_WC_SUCCESS, IBV_WC_RECV, qpn1, sizes[i],
			  0, T_ANY);
		POLL(p.s[0].scq, 1, wc);
		EXPECT_WC(&wc[0], 100 + i, IBV_WC_SUCCESS, IBV_WC_SEND, qpn0, T_ANY, 0,
			  T_ANY);
		CHECK_MEM(rbuf.p, src.p + 7, sizes[i]);
		CHECK_FILL(rbuf.p + sizes[i], CANARY, BUF_LEN - sizes[i]);
	}
	printf("uc_send (1, 1000, 5000): ok\n");

	sg = t_sge(&rbuf, 0, BUF_LEN);
	POST_RECV(p.s[1].qp, 20, &sg, 1);
	sg = t_sge(&src, 0, 64);
	POST_SEND(p.s[0].qp, 200, IBV_WR_SEND_WITH_IMM, IBV_SEND_SIGNALED, &sg, 1, 0,
		  0, htobe32(0xdecade));
	POLL(p.s[1].rcq, 1, wc);
	EXPECT_WC(&wc[0], 20, IBV_WC_SUCCESS, IBV_WC_RECV, qpn1, 64, IBV_WC_WITH_IMM,
		  (long long)htobe32(0xdecade));
	POLL(p.s[0].scq, 1, wc);
	EXPECT_WC(&wc[0], 200, IBV_WC_SUCCESS, IBV_WC_SEND, qpn0, T_ANY, T_ANY, T_ANY);
	printf("uc_send_imm: ok\n");

	memset(dst.p, CANARY, BUF_LEN);
	sg = t_sge(&src, 0, 5000);
	POST_SEND(p.s[0].qp, 300, IBV_WR_RDMA_WRITE, IBV_SEND_SIGNALED, &sg, 1,
		  t_addr(&dst, 11), dst.mr->rkey, 0);
	POLL(p.s[0].scq, 1, wc);
	EXPECT_WC(&wc[0], 300, IBV_WC_SUCCESS, IBV_WC_RDMA_WRITE, qpn0, T_ANY, 0, T_ANY);
	/* UC completes when the packets have left: wait for the bytes. */
	EXPECT_EMPTY(p.s[1].rcq, 100);
	CHECK_FILL(dst.p, CANARY, 11);
	CHECK_MEM(dst.p + 11, src.p, 5000);
	CHECK_FILL(dst.p + 5011, CANARY, BUF_LEN - 5011);
	printf("uc_write: ok\n");

	sg = t_sge(&rbuf, 0, 64);
	POST_RECV(p.s[1].qp, 40, &sg, 1);
	sg = t_sge(&src, 100, 2000);
	POST_SEND(p.s[0].qp, 400, IBV_WR_RDMA_WRITE_WITH_IMM, IBV_SEND_SIGNALED, &sg,
		  1, t_addr(&dst, 8000), dst.mr->rkey, htobe32(44));
	POLL(p.s[1].rcq, 1, wc);
	EXPECT_WC(&wc[0], 40, IBV_WC_SUCCESS, IBV_WC_RECV_RDMA_WITH_IMM, qpn1, T_ANY,
		  IBV_WC_WITH_IMM, (long long)htobe32(44));
	POLL(p.s[0].scq, 1, wc);
	EXPECT_WC(&wc[0], 400, IBV_WC_SUCCESS, IBV_WC_RDMA_WRITE, qpn0, T_ANY, T_ANY,
		  T_ANY);
	CHECK_MEM(dst.p + 8000, src.p + 100, 2000);
	printf("uc_write_imm: ok\n");

	/* uc_wr_api */
	memset(dst.p, CANARY, BUF_LEN);
	sg = t_sge(&rbuf, 0, 512);
	POST_RECV(p.s[1].qp, 50, &sg, 1);
	sg = t_sge(&rbuf, 512, 512);
	POST_RECV(p.s[1].qp, 51, &sg, 1);
	sg = t_sge(&rbuf, 1024, 512);
	POST_RECV(p.s[1].qp, 52, &sg, 1);
	ibv_wr_start(qpx);
	qpx->wr_flags = IBV_SEND_SIGNALED;
	qpx->wr_id = 500;
	ibv_wr_send(qpx);
	ibv_wr_set_sge(qpx, src.mr->lkey, t_addr(&src, 0), 100);
	qpx->wr_id = 501;
	ibv_wr_send_imm(qpx, htobe32(501));
	ibv_wr_set_sge(qpx, src.mr->lkey, t_addr(&src, 100), 200);
	qpx->wr_id = 502;
	ibv_wr_rdma_write(qpx, dst.mr->rkey, t_addr(&dst, 0));
	ibv_wr_set_sge(qpx, src.mr->lkey, t_addr(&src, 300), 3000);
	qpx->wr_id = 503;
	ibv_wr_rdma_write_imm(qpx, dst.mr->rkey, t_addr(&dst, 4000), htobe32(503));
	ibv_wr_set_sge(qpx, src.mr->lkey, t_addr(&src, 3300), 30);
	WR_COMPLETE(qpx);
	POLL(p.s[0].scq, 4, wc);
	EXPECT_WC(&wc[0], 500, IBV_WC_SUCCESS, IBV_WC_SEND, qpn0, T_ANY, 0, T_ANY);
	EXPECT_WC(&wc[1], 501, IBV_WC_SUCCESS, IBV_WC_SEND, qpn0, T_ANY, T_ANY, T_ANY);
	EXPECT_WC(&wc[2], 502, IBV_WC_SUCCESS, IBV_WC_RDMA_WRITE, qpn0, T_ANY, 0, T_ANY);
	EXPECT_WC(&wc[3], 503, IBV_WC_SUCCESS, IBV_WC_RDMA_WRITE, qpn0, T_ANY, T_ANY,
		  T_ANY);
	POLL(p.s[1].rcq, 3, wc);
	EXPECT_WC(&wc[0], 50, IBV_WC_SUCCESS, IBV_WC_RECV, qpn1, 100, 0, T_ANY);
	EXPECT_WC(&wc[1], 51, IBV_WC_SUCCESS, IBV_WC_RECV, qpn1, 200, IBV_WC_WITH_IMM,
		  (long long)htobe32(501));
	EXPECT_WC(&wc[2], 52, IBV_WC_SUCCESS, IBV_WC_RECV_RDMA_WITH_IMM, qpn1, T_ANY,
		  IBV_WC_WITH_IMM, (long long)htobe32(503));
	CHECK_MEM(rbuf.p, src.p, 100);
	CHECK_MEM(rbuf.p + 512, src.p + 100, 200);
	CHECK_MEM(dst.p, src.p + 300, 3000);
	CHECK_MEM(dst.p + 4000, src.p + 3300, 30);
	printf("uc_wr_api: ok\n");

	/* uc_no_receive */
	sg = t_sge(&src, 0, 32);
	POST_SEND(p.s[0].qp, 600, IBV_WR_SEND, IBV_SEND_SIGNALED, &sg, 1, 0, 0, 0);
	POLL(p.s[0].scq, 1, wc);
	EXPECT_WC(&wc[0], 600, IBV_WC_SUCCESS, IBV_WC_SEND, qpn0, T_ANY, 0, T_ANY);
	EXPECT_EMPTY(p.s[1].rcq, T_EMPTY_POLLS / 10);
	memset(rbuf.p, CANARY, BUF_LEN);
	sg = t_sge(&rbuf, 0, 64);
	POST_RECV(p.s[1].qp, 60, &sg, 1);
	sg = t_sge(&src, 64, 48);
	POST_SEND(p.s[0].qp, 601, IBV_WR_SEND, IBV_SEND_SIGNALED, &sg, 1, 0, 0, 0);
	POLL(p.s[1].rcq, 1, wc);
	EXPECT_WC(&wc[0], 60, IBV_WC_SUCCESS, IBV_WC_RECV, qpn1, 48, 0, T_ANY);
	CHECK_MEM(rbuf.p, src.p + 64, 48);
	POLL(p.s[0].scq, 1, wc);
	EXPECT_WC(&wc[0], 601, IBV_WC_SUCCESS, IBV_WC_SEND, qpn0, T_ANY, 0, T_ANY);
	printf("uc_no_receive: dropped silently, next one arrives: ok\n");

	EXPECT_EMPTY(p.s[0].scq, 1);
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
	printf("sys_uc: passed\n");
	return 0;
}
