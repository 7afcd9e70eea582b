// SPDX-License-Identifier: MIT
/*
 * sys_wr_batch.c - batches of the ibv_wr_* interface (ibv_wr_post(3)):
 *
 *   nothing_before_complete  "No work is executed to the queue until
 *                      ibv_wr_complete() returns success": WRs built
 *                      between ibv_wr_start() and ibv_wr_complete() do not
 *                      execute while the model runs ~256k cycles (no
 *                      completion, remote bytes untouched, the receive not
 *                      consumed); after ibv_wr_complete() they all do;
 *   mixed_batch        one batch of SEND, SEND_IMM, WRITE, WRITE_IMM, READ,
 *                      FETCH_ADD and CMP_SWP, some unsignaled: the signaled
 *                      ones complete in posting order with their wr_ids,
 *                      every byte lands;
 *   wrap               batches of 3 on a 4-entry SQ, around the ring many
 *                      times;
 *   interleave         ibv_post_send() chains and ibv_wr_* batches one
 *                      after the other on the same QP: completions in
 *                      posting order.
 */
#define _DEFAULT_SOURCE

#include "common.h"

#include <endian.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#define BUF_LEN 16384
#define CANARY 0x3c

#define OPS (IBV_QP_EX_WITH_SEND | IBV_QP_EX_WITH_SEND_WITH_IMM |		\
	     IBV_QP_EX_WITH_RDMA_WRITE | IBV_QP_EX_WITH_RDMA_WRITE_WITH_IMM |	\
	     IBV_QP_EX_WITH_RDMA_READ | IBV_QP_EX_WITH_ATOMIC_CMP_AND_SWP |	\
	     IBV_QP_EX_WITH_ATOMIC_FETCH_AND_ADD)

struct res {
	struct t_pair p;
	struct ibv_qp_ex *qpx;
	struct t_buf src, dst, rbuf;
	uint32_t qpn0, qpn1;
};

static uint64_t get64(const uint8_t *p)
{
	uint64_t v;

	memcpy(&v, p, 8);
	return v;
}

static void put64(uint8_t *p, uint64_t v)
{
	memcpy(p, &v, 8);
}

static void open_res(struct res *r, uint32_t max_send_wr)
{
	unsigned int acc = T_MR_ACCESS | IBV_ACCESS_REMOTE_ATOMIC;
	struct t_pair_cfg cfg;
	int i;

	memset(r, 0, sizeof(*r));
	t_pair_default_cfg(&cfg);
	cfg.caps.max_send_wr = max_send_wr;
	cfg.cqe = 256;
	cfg.send_ops_flags = OPS;
	for (i = 0; i < 2; i++) {
		cfg.attrs[i].access |= IBV_ACCESS_REMOTE_ATOMIC;
		cfg.attrs[i].max_rd_atomic = 4;
		cfg.attrs[i].max_dest_rd_atomic = 4;
	}
	t_pair_open(&r->p, &cfg);
	r->qpx = r->p.s[0].qpx;
	r->qpn0 = r->p.s[0].qp->qp_num;
	r->qpn1 = r->p.s[1].qp->qp_num;
	t_buf_alloc_access(&r->src, r->p.s[0].pd, BUF_LEN, acc);
	t_buf_alloc_access(&r->dst, r->p.s[1].pd, BUF_LEN, acc);
	t_buf_alloc_access(&r->rbuf, r->p.s[1].pd, BUF_LEN, acc);
	t_fill(r->src.p, BUF_LEN, 0x4242);
	memset(r->dst.p, CANARY, BUF_LEN);
	memset(r->rbuf.p, CANARY, BUF_LEN);
}

static void close_res(struct res *r)
{
	EXPECT_EMPTY(r->p.s[0].scq, 1);
	EXPECT_EMPTY(r->p.s[1].rcq, 1);
	t_buf_free(&r->src);
	t_buf_free(&r->dst);
	t_buf_free(&r->rbuf);
	t_pair_close(&r->p);
}

static void case_nothing_before_complete(void)
{
	struct ibv_sge sg;
	struct ibv_wc wc[2];
	struct res r;

	open_res(&r, 16);
	sg = t_sge(&r.rbuf, 0, 512);
	POST_RECV(r.p.s[1].qp, 77, &sg, 1);

	ibv_wr_start(r.qpx);
	r.qpx->wr_id = 1;
	r.qpx->wr_flags = IBV_SEND_SIGNALED;
	ibv_wr_rdma_write(r.qpx, r.dst.mr->rkey, t_addr(&r.dst, 0));
	ibv_wr_set_sge(r.qpx, r.src.mr->lkey, t_addr(&r.src, 0), 1000);
	r.qpx->wr_id = 2;
	ibv_wr_send(r.qpx);
	ibv_wr_set_sge(r.qpx, r.src.mr->lkey, t_addr(&r.src, 2000), 300);

	/* The model runs (each empty poll lets it advance): nothing moves. */
	EXPECT_EMPTY(r.p.s[0].scq, T_EMPTY_POLLS);
	EXPECT_EMPTY(r.p.s[1].rcq, 1);
	CHECK_FILL(r.dst.p, CANARY, BUF_LEN);
	CHECK_FILL(r.rbuf.p, CANARY, BUF_LEN);

	WR_COMPLETE(r.qpx);
	POLL(r.p.s[0].scq, 2, wc);
	EXPECT_WC(&wc[0], 1, IBV_WC_SUCCESS, IBV_WC_RDMA_WRITE, r.qpn0, T_ANY, 0, T_ANY);
	EXPECT_WC(&wc[1], 2, IBV_WC_SUCCESS, IBV_WC_SEND, r.qpn0, T_ANY, 0, T_ANY);
	POLL(r.p.s[1].rcq, 1, wc);
	EXPECT_WC(&wc[0], 77, IBV_WC_SUCCESS, IBV_WC_RECV, r.qpn1, 300, 0, T_ANY);
	CHECK_MEM(r.dst.p, r.src.p, 1000);
	CHECK_FILL(r.dst.p + 1000, CANARY, BUF_LEN - 1000);
	CHECK_MEM(r.rbuf.p, r.src.p + 2000, 300);
	close_res(&r);
	printf("nothing_before_complete: ok\n");
}

static void case_mixed_batch(void)
{
	__be32 imm1 = htobe32(0x11112222), imm2 = htobe32(0x33334444);
	struct ibv_wc wc[8];
	struct ibv_sge sg;
	struct res r;

	open_res(&r, 16);
	put64(r.dst.p + 8192, 1000);
	put64(r.dst.p + 8200, 0xabc);
	memset(r.src.p + 12288, CANARY, 4096);
	sg = t_sge(&r.rbuf, 0, 1024);
	POST_RECV(r.p.s[1].qp, 201, &sg, 1);
	sg = t_sge(&r.rbuf, 1024, 1024);
	POST_RECV(r.p.s[1].qp, 202, &sg, 1);
	sg = t_sge(&r.rbuf, 2048, 1024);
	POST_RECV(r.p.s[1].qp, 203, &sg, 1);

	ibv_wr_start(r.qpx);
	r.qpx->wr_id = 10;			/* unsignaled */
	r.qpx->wr_flags = 0;
	ibv_wr_send(r.qpx);
	ibv_wr_set_sge(r.qpx, r.src.mr->lkey, t_addr(&r.src, 0), 100);
	r.qpx->wr_id = 11;
	r.qpx->wr_flags = IBV_SEND_SIGNALED;
	ibv_wr_send_imm(r.qpx, imm1);
	ibv_wr_set_sge(r.qpx, r.src.mr->lkey, t_addr(&r.src, 100), 200);
	r.qpx->wr_id = 12;
	ibv_wr_rdma_write(r.qpx, r.dst.mr->rkey, t_addr(&r.dst, 0));
	ibv_wr_set_sge(r.qpx, r.src.mr->lkey, t_addr(&r.src, 300), 3000);
	r.qpx->wr_id = 13;			/* unsignaled */
	r.qpx->wr_flags = 0;
	ibv_wr_rdma_write_imm(r.qpx, r.dst.mr->rkey, t_addr(&r.dst, 4096), imm2);
	ibv_wr_set_sge(r.qpx, r.src.mr->lkey, t_addr(&r.src, 3300), 50);
	r.qpx->wr_id = 14;
	r.qpx->wr_flags = IBV_SEND_SIGNALED;
	ibv_wr_rdma_read(r.qpx, r.dst.mr->rkey, t_addr(&r.dst, 0));
	ibv_wr_set_sge(r.qpx, r.src.mr->lkey, t_addr(&r.src, 12288), 3000);
	r.qpx->wr_id = 15;
	ibv_wr_atomic_fetch_add(r.qpx, r.dst.mr->rkey, t_addr(&r.dst, 8192), 5);
	ibv_wr_set_sge(r.qpx, r.src.mr->lkey, t_addr(&r.src, 16000), 8);
	r.qpx->wr_id = 16;
	ibv_wr_atomic_cmp_swp(r.qpx, r.dst.mr->rkey, t_addr(&r.dst, 8200), 0xabc, 0xdef);
	ibv_wr_set_sge(r.qpx, r.src.mr->lkey, t_addr(&r.src, 16008), 8);
	WR_COMPLETE(r.qpx);

	POLL(r.p.s[0].scq, 5, wc);
	EXPECT_WC(&wc[0], 11, IBV_WC_SUCCESS, IBV_WC_SEND, r.qpn0, T_ANY, T_ANY, T_ANY);
	EXPECT_WC(&wc[1], 12, IBV_WC_SUCCESS, IBV_WC_RDMA_WRITE, r.qpn0, T_ANY, 0, T_ANY);
	EXPECT_WC(&wc[2], 14, IBV_WC_SUCCESS, IBV_WC_RDMA_READ, r.qpn0, 3000, 0, T_ANY);
	EXPECT_WC(&wc[3], 15, IBV_WC_SUCCESS, IBV_WC_FETCH_ADD, r.qpn0, 8, 0, T_ANY);
	EXPECT_WC(&wc[4], 16, IBV_WC_SUCCESS, IBV_WC_COMP_SWAP, r.qpn0, 8, 0, T_ANY);
	POLL(r.p.s[1].rcq, 3, wc);
	EXPECT_WC(&wc[0], 201, IBV_WC_SUCCESS, IBV_WC_RECV, r.qpn1, 100, 0, T_ANY);
	EXPECT_WC(&wc[1], 202, IBV_WC_SUCCESS, IBV_WC_RECV, r.qpn1, 200,
		  IBV_WC_WITH_IMM, (long long)imm1);
	EXPECT_WC(&wc[2], 203, IBV_WC_SUCCESS, IBV_WC_RECV_RDMA_WITH_IMM, r.qpn1,
		  T_ANY, IBV_WC_WITH_IMM, (long long)imm2);

	CHECK_MEM(r.rbuf.p, r.src.p, 100);
	CHECK_MEM(r.rbuf.p + 1024, r.src.p + 100, 200);
	CHECK_FILL(r.rbuf.p + 2048, CANARY, 1024);
	CHECK_MEM(r.dst.p, r.src.p + 300, 3000);
	CHECK_MEM(r.dst.p + 4096, r.src.p + 3300, 50);
	/* The READ ran after the WRITE to the same bytes. */
	CHECK_MEM(r.src.p + 12288, r.src.p + 300, 3000);
	CHECK_EQ(get64(r.src.p + 16000), 1000);
	CHECK_EQ(get64(r.dst.p + 8192), 1005);
	CHECK_EQ(get64(r.src.p + 16008), 0xabc);
	CHECK_EQ(get64(r.dst.p + 8200), 0xdef);
	close_res(&r);
	printf("mixed_batch (7 opcodes, 2 unsignaled): ok\n");
}

static void case_wrap(void)
{
	struct ibv_wc wc[3];
	struct res r;
	int b, k;

	open_res(&r, 4);
	CHECK(r.p.s[0].cap.max_send_wr < 8);	/* the ring is small */
	for (b = 0; b < 20; b++) {
		ibv_wr_start(r.qpx);
		r.qpx->wr_flags = IBV_SEND_SIGNALED;
		for (k = 0; k < 3; k++) {
			size_t off = (size_t)(b * 3 + k) * 64;

			r.qpx->wr_id = 5000 + b * 3 + k;
			ibv_wr_rdma_write(r.qpx, r.dst.mr->rkey, t_addr(&r.dst, off));
			ibv_wr_set_sge(r.qpx, r.src.mr->lkey, t_addr(&r.src, off), 64);
		}
		WR_COMPLETE(r.qpx);
		POLL(r.p.s[0].scq, 3, wc);
		for (k = 0; k < 3; k++)
			EXPECT_WC(&wc[k], 5000 + b * 3 + k, IBV_WC_SUCCESS,
				  IBV_WC_RDMA_WRITE, r.qpn0, T_ANY, 0, T_ANY);
	}
	CHECK_MEM(r.dst.p, r.src.p, 60 * 64);
	CHECK_FILL(r.dst.p + 60 * 64, CANARY, BUF_LEN - 60 * 64);
	close_res(&r);
	printf("wrap (20 batches of 3 on a %u-entry SQ): ok\n", 4);
}

static void case_interleave(void)
{
	struct ibv_wc wc[6];
	struct ibv_sge sg;
	struct res r;
	int i;

	open_res(&r, 16);
	for (i = 0; i < 3; i++) {
		size_t off = (size_t)i * 2 * 256;

		sg = t_sge(&r.src, off, 256);
		POST_SEND(r.p.s[0].qp, 300 + 2 * i, IBV_WR_RDMA_WRITE,
			  IBV_SEND_SIGNALED, &sg, 1, t_addr(&r.dst, off),
			  r.dst.mr->rkey, 0);
		ibv_wr_start(r.qpx);
		r.qpx->wr_id = 301 + 2 * i;
		r.qpx->wr_flags = IBV_SEND_SIGNALED;
		ibv_wr_rdma_write(r.qpx, r.dst.mr->rkey, t_addr(&r.dst, off + 256));
		ibv_wr_set_sge(r.qpx, r.src.mr->lkey, t_addr(&r.src, off + 256), 256);
		WR_COMPLETE(r.qpx);
	}
	POLL(r.p.s[0].scq, 6, wc);
	for (i = 0; i < 6; i++)
		EXPECT_WC(&wc[i], 300 + i, IBV_WC_SUCCESS, IBV_WC_RDMA_WRITE,
			  r.qpn0, T_ANY, 0, T_ANY);
	CHECK_MEM(r.dst.p, r.src.p, 6 * 256);
	close_res(&r);
	printf("interleave (ibv_post_send and ibv_wr_* batches): ok\n");
}

int main(void)
{
	case_nothing_before_complete();
	case_mixed_batch();
	case_wrap();
	case_interleave();
	printf("sys_wr_batch: passed\n");
	return 0;
}
