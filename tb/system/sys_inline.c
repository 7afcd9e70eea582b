// SPDX-License-Identifier: MIT
/*
 * sys_inline.c - inline data (IBV_SEND_INLINE and the ibv_wr_* inline
 * setters): "the buffer can be reused immediately after the call returns"
 * (ibv_post_send(3)), "The L_Key will not be checked".
 *
 * Every case overwrites the source bytes right after ibv_post_send() /
 * ibv_wr_complete() returns; the receiver must still get the original
 * bytes. The sources are plain heap memory that is never registered (and the
 * SGEs carry lkey 0).
 *
 *   inline_send_<n>       SEND of n = 1, 15, 16, 17, 100 and max_inline_data
 *                         bytes, gathered from 3 SGEs;
 *   inline_send_imm       SEND_WITH_IMM, inline;
 *   inline_write          RDMA WRITE and WRITE_WITH_IMM, inline;
 *   inline_zero           an inline SEND of 0 bytes;
 *   wr_set_inline_data    ibv_wr_send + ibv_wr_set_inline_data;
 *   wr_set_inline_data_list  ibv_wr_rdma_write + a list of 3 buffers;
 *   inline_batch          a batch of 8 inline SENDs of different sizes.
 * Two nodes and loopback.
 *
 * Needs from the hardware: the inline segment of docs/formats.md (control
 * flag bit 3, a u32 0x80000000 | length, the bytes, padding), read from the
 * SQ ring (also on a retransmission).
 */
#define _DEFAULT_SOURCE

#include "common.h"

#include <endian.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define RBUF_LEN 4096
#define CANARY 0x4e

#define OPS (IBV_QP_EX_WITH_SEND | IBV_QP_EX_WITH_SEND_WITH_IMM |		\
	     IBV_QP_EX_WITH_RDMA_WRITE | IBV_QP_EX_WITH_RDMA_WRITE_WITH_IMM)

struct res {
	struct t_pair p;
	struct t_buf rbuf, dst;
	uint8_t *heap;		/* unregistered source */
	uint8_t ref[RBUF_LEN];	/* what the source held when posted */
	uint32_t max;
	uint32_t qpn0, qpn1;
};

static void prepare(struct res *r, size_t len, uint64_t seed)
{
	t_fill(r->heap, len, seed);
	memcpy(r->ref, r->heap, len);
	memset(r->rbuf.p, CANARY, RBUF_LEN);
	memset(r->dst.p, CANARY, RBUF_LEN);
}

static void scrub(struct res *r, size_t len)
{
	memset(r->heap, 0xaa, len);
}

static void post_inline(struct res *r, uint64_t wr_id, enum ibv_wr_opcode op,
			uint32_t len, __be32 imm)
{
	struct ibv_send_wr wr, *bad = NULL;
	struct ibv_sge sl[3];
	uint32_t a = len / 3, b = len / 3;

	sl[0].addr = (uintptr_t)r->heap;
	sl[0].length = a;
	sl[0].lkey = 0;
	sl[1].addr = (uintptr_t)r->heap + a;
	sl[1].length = b;
	sl[1].lkey = 0;
	sl[2].addr = (uintptr_t)r->heap + a + b;
	sl[2].length = len - a - b;
	sl[2].lkey = 0;
	memset(&wr, 0, sizeof(wr));
	wr.wr_id = wr_id;
	wr.opcode = op;
	wr.sg_list = sl;
	wr.num_sge = 3;
	wr.send_flags = IBV_SEND_SIGNALED | IBV_SEND_INLINE;
	wr.imm_data = imm;
	wr.wr.rdma.remote_addr = t_addr(&r->dst, 0);
	wr.wr.rdma.rkey = r->dst.mr->rkey;
	CHECK_OK(ibv_post_send(r->p.s[0].qp, &wr, &bad));
	scrub(r, len);
}

static void expect_recv(struct res *r, uint64_t wr_id, uint32_t len,
			unsigned int flags, __be32 imm)
{
	struct ibv_wc wc;

	POLL(r->p.s[1].rcq, 1, &wc);
	EXPECT_WC(&wc, wr_id, IBV_WC_SUCCESS, IBV_WC_RECV, r->qpn1, len, flags,
		  (long long)imm);
	CHECK_MEM(r->rbuf.p, r->ref, len);
	CHECK_FILL(r->rbuf.p + len, CANARY, RBUF_LEN - len);
}

static void expect_send(struct res *r, uint64_t wr_id, enum ibv_wc_opcode op)
{
	struct ibv_wc wc;

	POLL(r->p.s[0].scq, 1, &wc);
	EXPECT_WC(&wc, wr_id, IBV_WC_SUCCESS, op, r->qpn0, T_ANY, T_ANY, T_ANY);
	EXPECT_SEND_IMM_FLAGS(&wc);
}

static void run(int loopback)
{
	uint32_t sizes[6] = { 1, 15, 16, 17, 100, 0 };
	struct t_pair_cfg cfg;
	struct ibv_data_buf db[3];
	struct ibv_wc wc[8];
	struct ibv_sge sg;
	struct res *r;
	unsigned int i;

	r = calloc(1, sizeof(*r));
	CHECK(r != NULL);
	t_pair_default_cfg(&cfg);
	cfg.loopback = loopback;
	cfg.caps.max_send_sge = 3;
	cfg.caps.max_inline_data = 200;
	cfg.send_ops_flags = OPS;
	t_pair_open(&r->p, &cfg);
	r->max = r->p.s[0].cap.max_inline_data;
	CHECK(r->max >= 200 && r->max < RBUF_LEN);
	sizes[5] = r->max;
	r->qpn0 = r->p.s[0].qp->qp_num;
	r->qpn1 = r->p.s[1].qp->qp_num;
	t_buf_alloc(&r->rbuf, r->p.s[1].pd, RBUF_LEN);
	t_buf_alloc(&r->dst, r->p.s[1].pd, RBUF_LEN);
	r->heap = malloc(RBUF_LEN);
	CHECK(r->heap != NULL);
	printf("-- %s, max_inline_data %u\n", loopback ? "loopback" : "two nodes", r->max);

	for (i = 0; i < 6; i++) {
		prepare(r, sizes[i], 0x1000 + i);
		sg = t_sge(&r->rbuf, 0, RBUF_LEN);
		POST_RECV(r->p.s[1].qp, 10 + i, &sg, 1);
		post_inline(r, 100 + i, IBV_WR_SEND, sizes[i], 0);
		expect_recv(r, 10 + i, sizes[i], 0, 0);
		expect_send(r, 100 + i, IBV_WC_SEND);
		printf("inline_send_%u: ok\n", sizes[i]);
	}

	prepare(r, 77, 0x2000);
	sg = t_sge(&r->rbuf, 0, RBUF_LEN);
	POST_RECV(r->p.s[1].qp, 20, &sg, 1);
	post_inline(r, 200, IBV_WR_SEND_WITH_IMM, 77, htobe32(0x600d600d));
	expect_recv(r, 20, 77, IBV_WC_WITH_IMM, htobe32(0x600d600d));
	expect_send(r, 200, IBV_WC_SEND);
	printf("inline_send_imm: ok\n");

	prepare(r, r->max, 0x3000);
	post_inline(r, 300, IBV_WR_RDMA_WRITE, r->max, 0);
	expect_send(r, 300, IBV_WC_RDMA_WRITE);
	CHECK_MEM(r->dst.p, r->ref, r->max);
	CHECK_FILL(r->dst.p + r->max, CANARY, RBUF_LEN - r->max);
	prepare(r, 33, 0x3100);
	sg = t_sge(&r->rbuf, 0, RBUF_LEN);
	POST_RECV(r->p.s[1].qp, 31, &sg, 1);
	post_inline(r, 301, IBV_WR_RDMA_WRITE_WITH_IMM, 33, htobe32(7));
	POLL(r->p.s[1].rcq, 1, wc);
	EXPECT_WC(&wc[0], 31, IBV_WC_SUCCESS, IBV_WC_RECV_RDMA_WITH_IMM, r->qpn1,
		  T_ANY, IBV_WC_WITH_IMM, (long long)htobe32(7));
	expect_send(r, 301, IBV_WC_RDMA_WRITE);
	CHECK_MEM(r->dst.p, r->ref, 33);
	printf("inline_write (WRITE, WRITE_WITH_IMM): ok\n");

	prepare(r, 0, 0);
	sg = t_sge(&r->rbuf, 0, RBUF_LEN);
	POST_RECV(r->p.s[1].qp, 40, &sg, 1);
	post_inline(r, 400, IBV_WR_SEND, 0, 0);
	expect_recv(r, 40, 0, 0, 0);
	expect_send(r, 400, IBV_WC_SEND);
	printf("inline_zero: ok\n");

	/* wr_set_inline_data */
	prepare(r, 150, 0x5000);
	sg = t_sge(&r->rbuf, 0, RBUF_LEN);
	POST_RECV(r->p.s[1].qp, 50, &sg, 1);
	ibv_wr_start(r->p.s[0].qpx);
	r->p.s[0].qpx->wr_id = 500;
	r->p.s[0].qpx->wr_flags = IBV_SEND_SIGNALED;
	ibv_wr_send(r->p.s[0].qpx);
	ibv_wr_set_inline_data(r->p.s[0].qpx, r->heap, 150);
	scrub(r, 150);		/* the setter copied them */
	WR_COMPLETE(r->p.s[0].qpx);
	expect_recv(r, 50, 150, 0, 0);
	expect_send(r, 500, IBV_WC_SEND);
	printf("wr_set_inline_data: ok\n");

	/* wr_set_inline_data_list */
	prepare(r, 120, 0x6000);
	db[0].addr = r->heap;
	db[0].length = 50;
	db[1].addr = r->heap + 50;
	db[1].length = 0;
	db[2].addr = r->heap + 50;
	db[2].length = 70;
	ibv_wr_start(r->p.s[0].qpx);
	r->p.s[0].qpx->wr_id = 600;
	ibv_wr_rdma_write(r->p.s[0].qpx, r->dst.mr->rkey, t_addr(&r->dst, 64));
	ibv_wr_set_inline_data_list(r->p.s[0].qpx, 3, db);
	WR_COMPLETE(r->p.s[0].qpx);
	scrub(r, 120);
	expect_send(r, 600, IBV_WC_RDMA_WRITE);
	CHECK_FILL(r->dst.p, CANARY, 64);
	CHECK_MEM(r->dst.p + 64, r->ref, 120);
	CHECK_FILL(r->dst.p + 184, CANARY, RBUF_LEN - 184);
	printf("wr_set_inline_data_list: ok\n");

	/* inline_batch: 8 SENDs of 8*k + 3 bytes into 8 receives of 256 */
	prepare(r, RBUF_LEN, 0x7000);
	for (i = 0; i < 8; i++) {
		sg = t_sge(&r->rbuf, 256 * (size_t)i, 256);
		POST_RECV(r->p.s[1].qp, 70 + i, &sg, 1);
	}
	ibv_wr_start(r->p.s[0].qpx);
	for (i = 0; i < 8; i++) {
		r->p.s[0].qpx->wr_id = 700 + i;
		ibv_wr_send(r->p.s[0].qpx);
		ibv_wr_set_inline_data(r->p.s[0].qpx, r->heap + 256 * i, 8 * i + 3);
	}
	WR_COMPLETE(r->p.s[0].qpx);
	scrub(r, RBUF_LEN);
	POLL(r->p.s[1].rcq, 8, wc);
	for (i = 0; i < 8; i++) {
		EXPECT_WC(&wc[i], 70 + i, IBV_WC_SUCCESS, IBV_WC_RECV, r->qpn1,
			  8 * i + 3, 0, T_ANY);
		CHECK_MEM(r->rbuf.p + 256 * i, r->ref + 256 * i, 8 * i + 3);
	}
	POLL(r->p.s[0].scq, 8, wc);
	for (i = 0; i < 8; i++)
		EXPECT_WC(&wc[i], 700 + i, IBV_WC_SUCCESS, IBV_WC_SEND, r->qpn0, T_ANY,
			  0, T_ANY);
	printf("inline_batch: ok\n");

	EXPECT_EMPTY(r->p.s[0].scq, 1);
	EXPECT_EMPTY(r->p.s[1].rcq, 1);
	free(r->heap);
	t_buf_free(&r->rbuf);
	t_buf_free(&r->dst);
	t_pair_close(&r->p);
	free(r);
}

int main(void)
{
	run(0);
	run(1);
	printf("sys_inline: passed\n");
	return 0;
}
