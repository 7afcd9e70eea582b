// SPDX-License-Identifier: MIT
/*
 * sys_chain.c - a chain of 8 WRs of mixed opcodes in one ibv_post_send().
 *
 * The QP has sq_sig_all = 0 and only WRs 2, 5 and 7 are signaled: exactly
 * three send completions appear, in posting order, and nothing for the
 * unsignaled WRs. The four receives (posted as one chain of receive WRs)
 * are consumed in order by SEND, SEND_IMM, WRITE_IMM, SEND. After the last
 * signaled completion every WR of the chain, signaled or not, has done its
 * work in memory.
 */
#define _DEFAULT_SOURCE

#include "common.h"

#include <endian.h>
#include <stdio.h>
#include <string.h>

#define NWR 8
#define NRECV 4
#define BUF_LEN 8192
#define RECV_LEN 256
#define CANARY 0x5e

struct chain_wr {
	enum ibv_wr_opcode op;
	uint32_t len;
	int signaled;
	size_t loff;	/* offset in the rnic0 source (or read target) buffer */
	size_t roff;	/* offset in the rnic1 target (or read source) buffer */
	uint32_t imm;
};

static const struct chain_wr chain[NWR] = {
	{ IBV_WR_SEND,			100,  0,    0,    0, 0 },
	{ IBV_WR_RDMA_WRITE,		200,  0,  128,    0, 0 },
	{ IBV_WR_SEND_WITH_IMM,		 50,  1,  400,    0, 0x11223344 },
	{ IBV_WR_RDMA_READ,		300,  0,    0,  512, 0 },
	{ IBV_WR_RDMA_WRITE_WITH_IMM,	128,  0,  512, 1024, 0x55667788 },
	{ IBV_WR_RDMA_WRITE,		1000, 1,  700, 2048, 0 },
	{ IBV_WR_SEND,			 64,  0, 1800,    0, 0 },
	{ IBV_WR_RDMA_READ,		512,  1,  512, 4096, 0 },
};

int main(void)
{
	struct t_pair_cfg cfg;
	struct t_pair p;
	struct t_buf src, rd, dst, rsrc, rbuf;
	struct ibv_send_wr wr[NWR], *bad = NULL;
	struct ibv_recv_wr rwr[NRECV], *rbad = NULL;
	struct ibv_sge sge[NWR], rsge[NRECV];
	struct ibv_wc wc[NWR];
	uint32_t qpn0, qpn1;
	int i, nsig = 0;

	t_pair_default_cfg(&cfg);
	cfg.caps.sq_sig_all = 0;
	t_pair_open(&p, &cfg);
	qpn0 = p.s[0].qp->qp_num;
	qpn1 = p.s[1].qp->qp_num;

	t_buf_alloc(&src, p.s[0].pd, BUF_LEN);	/* payload sent by rnic0 */
	t_buf_alloc(&rd, p.s[0].pd, BUF_LEN);	/* READ targets on rnic0 */
	t_buf_alloc(&dst, p.s[1].pd, BUF_LEN);	/* WRITE targets on rnic1 */
	t_buf_alloc(&rsrc, p.s[1].pd, BUF_LEN);	/* READ sources on rnic1 */
	t_buf_alloc(&rbuf, p.s[1].pd, NRECV * RECV_LEN);
	t_fill(src.p, BUF_LEN, 0xc400);
	t_fill(rsrc.p, BUF_LEN, 0xc401);
	memset(rd.p, CANARY, BUF_LEN);
	memset(dst.p, CANARY, BUF_LEN);
	memset(rbuf.p, CANARY, NRECV * RECV_LEN);

	/* Four receives in one chain. */
	memset(rwr, 0, sizeof(rwr));
	for (i = 0; i < NRECV; i++) {
		rsge[i] = t_sge(&rbuf, (size_t)i * RECV_LEN, RECV_LEN);
		rwr[i].wr_id = 1000 + i;
		rwr[i].sg_list = &rsge[i];
		rwr[i].num_sge = 1;
		rwr[i].next = i + 1 < NRECV ? &rwr[i + 1] : NULL;
	}
	CHECK_OK(ibv_post_recv(p.s[1].qp, rwr, &rbad));

	/* Eight send WRs in one chain. */
	memset(wr, 0, sizeof(wr));
	for (i = 0; i < NWR; i++) {
		const struct chain_wr *c = &chain[i];
		int is_read = c->op == IBV_WR_RDMA_READ;

		sge[i] = t_sge(is_read ? &rd : &src, c->loff, c->len);
		wr[i].wr_id = i;
		wr[i].next = i + 1 < NWR ? &wr[i + 1] : NULL;
		wr[i].sg_list = &sge[i];
		wr[i].num_sge = 1;
		wr[i].opcode = c->op;
		wr[i].send_flags = c->signaled ? IBV_SEND_SIGNALED : 0;
		if (c->op == IBV_WR_SEND_WITH_IMM ||
		    c->op == IBV_WR_RDMA_WRITE_WITH_IMM)
			wr[i].imm_data = htobe32(c->imm);
		if (c->op != IBV_WR_SEND && c->op != IBV_WR_SEND_WITH_IMM) {
			const struct t_buf *rb = is_read ? &rsrc : &dst;

			wr[i].wr.rdma.remote_addr = t_addr(rb, c->roff);
			wr[i].wr.rdma.rkey = rb->mr->rkey;
		}
		nsig += c->signaled;
	}
	CHECK_OK(ibv_post_send(p.s[0].qp, wr, &bad));

	/* Send completions: only the signaled ones, in order. */
	POLL(p.s[0].scq, nsig, wc);
	EXPECT_WC(&wc[0], 2, IBV_WC_SUCCESS, IBV_WC_SEND, qpn0, T_ANY, T_ANY,
		  T_ANY);
	EXPECT_SEND_IMM_FLAGS(&wc[0]);
	EXPECT_WC(&wc[1], 5, IBV_WC_SUCCESS, IBV_WC_RDMA_WRITE, qpn0, T_ANY, 0,
		  T_ANY);
	EXPECT_WC(&wc[2], 7, IBV_WC_SUCCESS, IBV_WC_RDMA_READ, qpn0, 512, 0,
		  T_ANY);
	EXPECT_EMPTY(p.s[0].scq, T_EMPTY_POLLS);
	printf("send CQ: wr 2, 5, 7 completed in order, unsignaled silent: ok\n");

	/* Receive completions: in order. */
	POLL(p.s[1].rcq, NRECV, wc);
	EXPECT_WC(&wc[0], 1000, IBV_WC_SUCCESS, IBV_WC_RECV, qpn1, 100, 0,
		  T_ANY);
	EXPECT_WC(&wc[1], 1001, IBV_WC_SUCCESS, IBV_WC_RECV, qpn1, 50,
		  IBV_WC_WITH_IMM, (long long)htobe32(chain[2].imm));
	EXPECT_WC(&wc[2], 1002, IBV_WC_SUCCESS, IBV_WC_RECV_RDMA_WITH_IMM,
		  qpn1, T_ANY, IBV_WC_WITH_IMM,
		  (long long)htobe32(chain[4].imm));
	CHECK(wc[2].byte_len == 128 || wc[2].byte_len == 0);
	EXPECT_WC(&wc[3], 1003, IBV_WC_SUCCESS, IBV_WC_RECV, qpn1, 64, 0,
		  T_ANY);
	EXPECT_EMPTY(p.s[1].rcq, T_EMPTY_POLLS);
	printf("recv CQ: 4 receives consumed in order: ok\n");

	/* Memory effects of every WR, signaled or not. */
	CHECK_MEM(rbuf.p + 0 * RECV_LEN, src.p + chain[0].loff, 100);
	CHECK_FILL(rbuf.p + 0 * RECV_LEN + 100, CANARY, RECV_LEN - 100);
	CHECK_MEM(rbuf.p + 1 * RECV_LEN, src.p + chain[2].loff, 50);
	CHECK_FILL(rbuf.p + 1 * RECV_LEN + 50, CANARY, RECV_LEN - 50);
	CHECK_FILL(rbuf.p + 2 * RECV_LEN, CANARY, RECV_LEN);
	CHECK_MEM(rbuf.p + 3 * RECV_LEN, src.p + chain[6].loff, 64);
	CHECK_FILL(rbuf.p + 3 * RECV_LEN + 64, CANARY, RECV_LEN - 64);

	CHECK_MEM(dst.p + chain[1].roff, src.p + chain[1].loff, 200);
	CHECK_FILL(dst.p + 200, CANARY, 1024 - 200);
	CHECK_MEM(dst.p + chain[4].roff, src.p + chain[4].loff, 128);
	CHECK_FILL(dst.p + 1024 + 128, CANARY, 2048 - 1024 - 128);
	CHECK_MEM(dst.p + chain[5].roff, src.p + chain[5].loff, 1000);
	CHECK_FILL(dst.p + 2048 + 1000, CANARY, BUF_LEN - 2048 - 1000);

	CHECK_MEM(rd.p + chain[3].loff, rsrc.p + chain[3].roff, 300);
	CHECK_FILL(rd.p + 300, CANARY, 512 - 300);
	CHECK_MEM(rd.p + chain[7].loff, rsrc.p + chain[7].roff, 512);
	CHECK_FILL(rd.p + 1024, CANARY, BUF_LEN - 1024);
	printf("memory effects of all 8 WRs: ok\n");

	EXPECT_EMPTY(p.s[0].rcq, 1);
	EXPECT_EMPTY(p.s[1].scq, 1);

	t_buf_free(&src);
	t_buf_free(&rd);
	t_buf_free(&dst);
	t_buf_free(&rsrc);
	t_buf_free(&rbuf);
	t_pair_close(&p);
	printf("sys_chain: passed\n");
	return 0;
}
