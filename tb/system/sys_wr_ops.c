// SPDX-License-Identifier: MIT
/*
 * sys_wr_ops.c - the ibv_wr_* interface (ibv_wr_post(3)) for every opcode
 * the RC hardware executes, one batch per case, two nodes and loopback:
 *
 *   wr_send            ibv_wr_send + ibv_wr_set_sge: the receiver gets the
 *                      bytes, IBV_WC_RECV with byte_len; sender IBV_WC_SEND;
 *   wr_send_sge_list   ibv_wr_set_sge_list of 3 SGEs (one of length 0,
 *                      dropped): gathered in order;
 *   wr_send_zero       a SEND with an empty SGE list: zero-length message;
 *   wr_send_imm        ibv_wr_send_imm: IBV_WC_WITH_IMM and the immediate;
 *   wr_rdma_write      ibv_wr_rdma_write, 2 SGEs: bytes at the remote
 *                      address only, no receive consumed;
 *   wr_rdma_write_imm  ibv_wr_rdma_write_imm: data placed, a receive
 *                      consumed with IBV_WC_RECV_RDMA_WITH_IMM;
 *   wr_rdma_read       ibv_wr_rdma_read scattered into 2 SGEs, byte_len;
 *   wr_atomic_fetch_add, wr_atomic_cmp_swp (equal and not equal): the
 *                      original value in the local 8 bytes, byte_len 8.
 *
 * Every completion is checked field by field (wr_id from qpx->wr_id,
 * status, opcode, qp_num, byte_len, wc_flags, imm_data, vendor_err), and
 * the bytes around every target are checked untouched.
 */
#define _DEFAULT_SOURCE

#include "common.h"

#include <endian.h>
#include <stdio.h>
#include <string.h>

#define BUF_LEN 8192
#define CANARY 0x5a

#define OPS (IBV_QP_EX_WITH_SEND | IBV_QP_EX_WITH_SEND_WITH_IMM |		\
	     IBV_QP_EX_WITH_RDMA_WRITE | IBV_QP_EX_WITH_RDMA_WRITE_WITH_IMM |	\
	     IBV_QP_EX_WITH_RDMA_READ | IBV_QP_EX_WITH_ATOMIC_CMP_AND_SWP |	\
	     IBV_QP_EX_WITH_ATOMIC_FETCH_AND_ADD)

struct res {
	struct t_pair p;
	struct ibv_qp_ex *qpx;		/* side 0 */
	struct t_buf src, dst, rbuf;	/* src on side 0; dst, rbuf on side 1 */
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

static void reset_bufs(struct res *r, uint64_t seed)
{
	t_fill(r->src.p, BUF_LEN, seed);
	memset(r->dst.p, CANARY, BUF_LEN);
	memset(r->rbuf.p, CANARY, BUF_LEN);
}

/* Fields of a successful completion the common check does not cover. */
static void expect_clean(const struct ibv_wc *wc)
{
	CHECK_EQ(wc->vendor_err, 0);
}

static void case_send(struct res *r)
{
	struct ibv_sge sg = t_sge(&r->rbuf, 0, BUF_LEN);
	struct ibv_wc wc;

	reset_bufs(r, 0x101);
	POST_RECV(r->p.s[1].qp, 11, &sg, 1);
	ibv_wr_start(r->qpx);
	r->qpx->wr_id = 1001;
	r->qpx->wr_flags = IBV_SEND_SIGNALED;
	ibv_wr_send(r->qpx);
	ibv_wr_set_sge(r->qpx, r->src.mr->lkey, t_addr(&r->src, 5), 1500);
	WR_COMPLETE(r->qpx);

	POLL(r->p.s[1].rcq, 1, &wc);
	EXPECT_WC(&wc, 11, IBV_WC_SUCCESS, IBV_WC_RECV, r->qpn1, 1500, 0, T_ANY);
	expect_clean(&wc);
	POLL(r->p.s[0].scq, 1, &wc);
	EXPECT_WC(&wc, 1001, IBV_WC_SUCCESS, IBV_WC_SEND, r->qpn0, T_ANY, 0, T_ANY);
	expect_clean(&wc);
	CHECK_MEM(r->rbuf.p, r->src.p + 5, 1500);
	CHECK_FILL(r->rbuf.p + 1500, CANARY, BUF_LEN - 1500);
	printf("wr_send: ok\n");
}

static void case_send_sge_list(struct res *r)
{
	struct ibv_sge sg = t_sge(&r->rbuf, 64, 4096);
	struct ibv_sge sl[3] = {
		t_sge(&r->src, 100, 300),
		t_sge(&r->src, 2000, 0),
		t_sge(&r->src, 1000, 700),
	};
	struct ibv_wc wc;

	reset_bufs(r, 0x102);
	POST_RECV(r->p.s[1].qp, 12, &sg, 1);
	ibv_wr_start(r->qpx);
	r->qpx->wr_id = 1002;
	r->qpx->wr_flags = IBV_SEND_SIGNALED;
	ibv_wr_send(r->qpx);
	ibv_wr_set_sge_list(r->qpx, 3, sl);
	WR_COMPLETE(r->qpx);

	POLL(r->p.s[1].rcq, 1, &wc);
	EXPECT_WC(&wc, 12, IBV_WC_SUCCESS, IBV_WC_RECV, r->qpn1, 1000, 0, T_ANY);
	POLL(r->p.s[0].scq, 1, &wc);
	EXPECT_WC(&wc, 1002, IBV_WC_SUCCESS, IBV_WC_SEND, r->qpn0, T_ANY, 0, T_ANY);
	CHECK_FILL(r->rbuf.p, CANARY, 64);
	CHECK_MEM(r->rbuf.p + 64, r->src.p + 100, 300);
	CHECK_MEM(r->rbuf.p + 364, r->src.p + 1000, 700);
	CHECK_FILL(r->rbuf.p + 1064, CANARY, BUF_LEN - 1064);
	printf("wr_send_sge_list: ok\n");
}

static void case_send_zero(struct res *r)
{
	struct ibv_sge sg = t_sge(&r->rbuf, 0, 256);
	struct ibv_wc wc;

	reset_bufs(r, 0x103);
	POST_RECV(r->p.s[1].qp, 13, &sg, 1);
	ibv_wr_start(r->qpx);
	r->qpx->wr_id = 1003;
	r->qpx->wr_flags = IBV_SEND_SIGNALED;
	ibv_wr_send(r->qpx);
	ibv_wr_set_sge_list(r->qpx, 0, NULL);
	WR_COMPLETE(r->qpx);

	POLL(r->p.s[1].rcq, 1, &wc);
	EXPECT_WC(&wc, 13, IBV_WC_SUCCESS, IBV_WC_RECV, r->qpn1, 0, 0, T_ANY);
	POLL(r->p.s[0].scq, 1, &wc);
	EXPECT_WC(&wc, 1003, IBV_WC_SUCCESS, IBV_WC_SEND, r->qpn0, T_ANY, 0, T_ANY);
	CHECK_FILL(r->rbuf.p, CANARY, BUF_LEN);
	printf("wr_send_zero: ok\n");
}

static void case_send_imm(struct res *r)
{
	struct ibv_sge sg = t_sge(&r->rbuf, 0, BUF_LEN);
	__be32 imm = htobe32(0xa1b2c3d4);
	struct ibv_wc wc;

	reset_bufs(r, 0x104);
	POST_RECV(r->p.s[1].qp, 14, &sg, 1);
	ibv_wr_start(r->qpx);
	r->qpx->wr_id = 1004;
	r->qpx->wr_flags = IBV_SEND_SIGNALED;
	ibv_wr_send_imm(r->qpx, imm);
	ibv_wr_set_sge(r->qpx, r->src.mr->lkey, t_addr(&r->src, 0), 3000);
	WR_COMPLETE(r->qpx);

	POLL(r->p.s[1].rcq, 1, &wc);
	EXPECT_WC(&wc, 14, IBV_WC_SUCCESS, IBV_WC_RECV, r->qpn1, 3000,
		  IBV_WC_WITH_IMM, (long long)imm);
	CHECK_EQ(be32toh(wc.imm_data), 0xa1b2c3d4);
	POLL(r->p.s[0].scq, 1, &wc);
	EXPECT_WC(&wc, 1004, IBV_WC_SUCCESS, IBV_WC_SEND, r->qpn0, T_ANY, T_ANY,
		  T_ANY);
	EXPECT_SEND_IMM_FLAGS(&wc);
	CHECK_MEM(r->rbuf.p, r->src.p, 3000);
	CHECK_FILL(r->rbuf.p + 3000, CANARY, BUF_LEN - 3000);
	printf("wr_send_imm: ok\n");
}

static void case_write(struct res *r)
{
	struct ibv_sge sl[2] = {
		t_sge(&r->src, 0, 1200),
		t_sge(&r->src, 4000, 900),
	};
	struct ibv_wc wc;

	reset_bufs(r, 0x105);
	ibv_wr_start(r->qpx);
	r->qpx->wr_id = 1005;
	r->qpx->wr_flags = IBV_SEND_SIGNALED;
	ibv_wr_rdma_write(r->qpx, r->dst.mr->rkey, t_addr(&r->dst, 33));
	ibv_wr_set_sge_list(r->qpx, 2, sl);
	WR_COMPLETE(r->qpx);

	POLL(r->p.s[0].scq, 1, &wc);
	EXPECT_WC(&wc, 1005, IBV_WC_SUCCESS, IBV_WC_RDMA_WRITE, r->qpn0, T_ANY, 0,
		  T_ANY);
	expect_clean(&wc);
	CHECK_FILL(r->dst.p, CANARY, 33);
	CHECK_MEM(r->dst.p + 33, r->src.p, 1200);
	CHECK_MEM(r->dst.p + 33 + 1200, r->src.p + 4000, 900);
	CHECK_FILL(r->dst.p + 2133, CANARY, BUF_LEN - 2133);
	EXPECT_EMPTY(r->p.s[1].rcq, 1);
	printf("wr_rdma_write: ok\n");
}

static void case_write_imm(struct res *r)
{
	struct ibv_sge sg = t_sge(&r->rbuf, 0, 64);
	__be32 imm = htobe32(0x0badcafe);
	struct ibv_wc wc;

	reset_bufs(r, 0x106);
	POST_RECV(r->p.s[1].qp, 16, &sg, 1);
	ibv_wr_start(r->qpx);
	r->qpx->wr_id = 1006;
	r->qpx->wr_flags = IBV_SEND_SIGNALED;
	ibv_wr_rdma_write_imm(r->qpx, r->dst.mr->rkey, t_addr(&r->dst, 8), imm);
	ibv_wr_set_sge(r->qpx, r->src.mr->lkey, t_addr(&r->src, 16), 2500);
	WR_COMPLETE(r->qpx);

	POLL(r->p.s[1].rcq, 1, &wc);
	EXPECT_WC(&wc, 16, IBV_WC_SUCCESS, IBV_WC_RECV_RDMA_WITH_IMM, r->qpn1,
		  T_ANY, IBV_WC_WITH_IMM, (long long)imm);
	CHECKF(wc.byte_len == 2500 || wc.byte_len == 0,
	       "write_imm receive byte_len %u", wc.byte_len);
	POLL(r->p.s[0].scq, 1, &wc);
	EXPECT_WC(&wc, 1006, IBV_WC_SUCCESS, IBV_WC_RDMA_WRITE, r->qpn0, T_ANY,
		  T_ANY, T_ANY);
	EXPECT_SEND_IMM_FLAGS(&wc);
	CHECK_FILL(r->dst.p, CANARY, 8);
	CHECK_MEM(r->dst.p + 8, r->src.p + 16, 2500);
	CHECK_FILL(r->dst.p + 2508, CANARY, BUF_LEN - 2508);
	CHECK_FILL(r->rbuf.p, CANARY, BUF_LEN);
	printf("wr_rdma_write_imm: ok\n");
}

static void case_read(struct res *r)
{
	struct ibv_sge sl[2] = {
		t_sge(&r->src, 10, 1000),
		t_sge(&r->src, 3000, 1100),
	};
	struct ibv_wc wc;

	reset_bufs(r, 0x107);
	memset(r->src.p, CANARY, BUF_LEN);
	t_fill(r->dst.p, BUF_LEN, 0x1077);
	ibv_wr_start(r->qpx);
	r->qpx->wr_id = 1007;
	r->qpx->wr_flags = IBV_SEND_SIGNALED;
	ibv_wr_rdma_read(r->qpx, r->dst.mr->rkey, t_addr(&r->dst, 500));
	ibv_wr_set_sge_list(r->qpx, 2, sl);
	WR_COMPLETE(r->qpx);

	POLL(r->p.s[0].scq, 1, &wc);
	EXPECT_WC(&wc, 1007, IBV_WC_SUCCESS, IBV_WC_RDMA_READ, r->qpn0, 2100, 0,
		  T_ANY);
	expect_clean(&wc);
	CHECK_FILL(r->src.p, CANARY, 10);
	CHECK_MEM(r->src.p + 10, r->dst.p + 500, 1000);
	CHECK_FILL(r->src.p + 1010, CANARY, 3000 - 1010);
	CHECK_MEM(r->src.p + 3000, r->dst.p + 1500, 1100);
	CHECK_FILL(r->src.p + 4100, CANARY, BUF_LEN - 4100);
	printf("wr_rdma_read: ok\n");
}

static void case_atomics(struct res *r)
{
	struct ibv_wc wc;

	reset_bufs(r, 0x108);
	put64(r->dst.p + 64, 0x100000000ULL);
	memset(r->src.p, CANARY, 16);

	ibv_wr_start(r->qpx);
	r->qpx->wr_id = 1008;
	r->qpx->wr_flags = IBV_SEND_SIGNALED;
	ibv_wr_atomic_fetch_add(r->qpx, r->dst.mr->rkey, t_addr(&r->dst, 64), 0x55);
	ibv_wr_set_sge(r->qpx, r->src.mr->lkey, t_addr(&r->src, 0), 8);
	WR_COMPLETE(r->qpx);
	POLL(r->p.s[0].scq, 1, &wc);
	EXPECT_WC(&wc, 1008, IBV_WC_SUCCESS, IBV_WC_FETCH_ADD, r->qpn0, 8, 0, T_ANY);
	CHECK_EQ(get64(r->src.p), 0x100000000ULL);
	CHECK_EQ(get64(r->dst.p + 64), 0x100000055ULL);
	CHECK_FILL(r->dst.p, CANARY, 64);
	CHECK_FILL(r->dst.p + 72, CANARY, BUF_LEN - 72);
	printf("wr_atomic_fetch_add: ok\n");

	ibv_wr_start(r->qpx);
	r->qpx->wr_id = 1009;
	ibv_wr_atomic_cmp_swp(r->qpx, r->dst.mr->rkey, t_addr(&r->dst, 64),
			      0x100000055ULL, 0xfeedfacecafebeefULL);
	ibv_wr_set_sge(r->qpx, r->src.mr->lkey, t_addr(&r->src, 8), 8);
	WR_COMPLETE(r->qpx);
	POLL(r->p.s[0].scq, 1, &wc);
	EXPECT_WC(&wc, 1009, IBV_WC_SUCCESS, IBV_WC_COMP_SWAP, r->qpn0, 8, 0, T_ANY);
	CHECK_EQ(get64(r->src.p + 8), 0x100000055ULL);
	CHECK_EQ(get64(r->dst.p + 64), 0xfeedfacecafebeefULL);

	ibv_wr_start(r->qpx);
	r->qpx->wr_id = 1010;
	ibv_wr_atomic_cmp_swp(r->qpx, r->dst.mr->rkey, t_addr(&r->dst, 64), 7, 8);
	ibv_wr_set_sge(r->qpx, r->src.mr->lkey, t_addr(&r->src, 0), 8);
	WR_COMPLETE(r->qpx);
	POLL(r->p.s[0].scq, 1, &wc);
	EXPECT_WC(&wc, 1010, IBV_WC_SUCCESS, IBV_WC_COMP_SWAP, r->qpn0, 8, 0, T_ANY);
	CHECK_EQ(get64(r->src.p), 0xfeedfacecafebeefULL);
	CHECK_EQ(get64(r->dst.p + 64), 0xfeedfacecafebeefULL);
	printf("wr_atomic_cmp_swp (equal, not equal): ok\n");
}

static void run(int loopback)
{
	unsigned int acc = T_MR_ACCESS | IBV_ACCESS_REMOTE_ATOMIC;
	struct t_pair_cfg cfg;
	struct res r;
	int i;

	memset(&r, 0, sizeof(r));
	t_pair_default_cfg(&cfg);
	cfg.loopback = loopback;
	cfg.caps.max_send_sge = 3;
	cfg.send_ops_flags = OPS;
	for (i = 0; i < 2; i++)
		cfg.attrs[i].access |= IBV_ACCESS_REMOTE_ATOMIC;
	t_pair_open(&r.p, &cfg);
	r.qpx = r.p.s[0].qpx;
	CHECK(r.qpx != NULL);
	CHECK(&r.qpx->qp_base == r.p.s[0].qp);
	r.qpn0 = r.p.s[0].qp->qp_num;
	r.qpn1 = r.p.s[1].qp->qp_num;
	t_buf_alloc_access(&r.src, r.p.s[0].pd, BUF_LEN, acc);
	t_buf_alloc_access(&r.dst, r.p.s[1].pd, BUF_LEN, acc);
	t_buf_alloc_access(&r.rbuf, r.p.s[1].pd, BUF_LEN, acc);

	printf("-- %s\n", loopback ? "loopback" : "two nodes");
	case_send(&r);
	case_send_sge_list(&r);
	case_send_zero(&r);
	case_send_imm(&r);
	case_write(&r);
	case_write_imm(&r);
	case_read(&r);
	case_atomics(&r);

	EXPECT_EMPTY(r.p.s[0].scq, 1);
	EXPECT_EMPTY(r.p.s[1].rcq, 1);
	t_buf_free(&r.src);
	t_buf_free(&r.dst);
	t_buf_free(&r.rbuf);
	t_pair_close(&r.p);
}

int main(void)
{
	run(0);
	run(1);
	printf("sys_wr_ops: passed\n");
	return 0;
}
