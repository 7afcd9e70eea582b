// SPDX-License-Identifier: MIT
/*
 * sys_large.c - messages of many packets (path MTU 1024).
 *
 * 10000-byte SEND, WRITE, WRITE_WITH_IMM and READ, then 64 KiB WRITE and
 * READ, then a 10000-byte SEND the other way. Both QPs start their PSNs just
 * below 2^24 so the 24-bit PSN wraps in the middle of the messages.
 */
#define _DEFAULT_SOURCE

#include "common.h"

#include <endian.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MSG 10000u
#define BIG 65536u
#define BUF_LEN (BIG + 8192)
#define CANARY 0x1b

struct ctx {
	struct t_pair p;
	struct t_buf b0, b1;	/* on rnic0, rnic1 */
	uint32_t qpn0, qpn1;
};

static void prep(struct ctx *c, uint64_t seed)
{
	t_fill(c->b0.p, BUF_LEN, seed);
	memset(c->b1.p, CANARY, BUF_LEN);
}

static void do_send(struct ctx *c, uint32_t len, size_t loff, size_t roff)
{
	struct ibv_sge sg;
	struct ibv_wc wc;

	prep(c, 0xe000 + len);
	sg = t_sge(&c->b1, roff, len + 100);
	POST_RECV(c->p.s[1].qp, 1, &sg, 1);
	sg = t_sge(&c->b0, loff, len);
	POST_SEND(c->p.s[0].qp, 2, IBV_WR_SEND, IBV_SEND_SIGNALED, &sg, 1, 0,
		  0, 0);
	POLL(c->p.s[1].rcq, 1, &wc);
	EXPECT_WC(&wc, 1, IBV_WC_SUCCESS, IBV_WC_RECV, c->qpn1, len, 0, T_ANY);
	POLL(c->p.s[0].scq, 1, &wc);
	EXPECT_WC(&wc, 2, IBV_WC_SUCCESS, IBV_WC_SEND, c->qpn0, T_ANY, 0,
		  T_ANY);
	CHECK_FILL(c->b1.p, CANARY, roff);
	CHECK_MEM(c->b1.p + roff, c->b0.p + loff, len);
	CHECK_FILL(c->b1.p + roff + len, CANARY, BUF_LEN - roff - len);
	printf("send %6u bytes: ok\n", len);
}

static void do_write(struct ctx *c, uint32_t len, size_t loff, size_t roff,
		     int with_imm)
{
	enum ibv_wr_opcode op = with_imm ? IBV_WR_RDMA_WRITE_WITH_IMM :
					   IBV_WR_RDMA_WRITE;
	__be32 imm = htobe32(0xabc00000 + len);
	struct ibv_sge sg;
	struct ibv_wc wc;

	prep(c, 0xe100 + len + (uint64_t)with_imm);
	if (with_imm)
		POST_RECV(c->p.s[1].qp, 3, NULL, 0);
	sg = t_sge(&c->b0, loff, len);
	POST_SEND(c->p.s[0].qp, 4, op, IBV_SEND_SIGNALED, &sg, 1,
		  t_addr(&c->b1, roff), c->b1.mr->rkey, imm);
	if (with_imm) {
		POLL(c->p.s[1].rcq, 1, &wc);
		EXPECT_WC(&wc, 3, IBV_WC_SUCCESS, IBV_WC_RECV_RDMA_WITH_IMM,
			  c->qpn1, T_ANY, IBV_WC_WITH_IMM, (long long)imm);
		CHECK(wc.byte_len == len || wc.byte_len == 0);
	}
	POLL(c->p.s[0].scq, 1, &wc);
	EXPECT_WC(&wc, 4, IBV_WC_SUCCESS, IBV_WC_RDMA_WRITE, c->qpn0, T_ANY,
		  with_imm ? T_ANY : 0, T_ANY);
	EXPECT_SEND_IMM_FLAGS(&wc);
	CHECK_FILL(c->b1.p, CANARY, roff);
	CHECK_MEM(c->b1.p + roff, c->b0.p + loff, len);
	CHECK_FILL(c->b1.p + roff + len, CANARY, BUF_LEN - roff - len);
	printf("write%s %6u bytes: ok\n", with_imm ? "_imm" : "    ", len);
}

static void do_read(struct ctx *c, uint32_t len, size_t loff, size_t roff)
{
	struct ibv_sge sg;
	struct ibv_wc wc;

	/* Data flows rnic1 -> rnic0: fill b1, poison b0. */
	t_fill(c->b1.p, BUF_LEN, 0xe200 + len);
	memset(c->b0.p, CANARY, BUF_LEN);
	sg = t_sge(&c->b0, loff, len);
	POST_SEND(c->p.s[0].qp, 5, IBV_WR_RDMA_READ, IBV_SEND_SIGNALED, &sg, 1,
		  t_addr(&c->b1, roff), c->b1.mr->rkey, 0);
	POLL(c->p.s[0].scq, 1, &wc);
	EXPECT_WC(&wc, 5, IBV_WC_SUCCESS, IBV_WC_RDMA_READ, c->qpn0, len, 0,
		  T_ANY);
	CHECK_FILL(c->b0.p, CANARY, loff);
	CHECK_MEM(c->b0.p + loff, c->b1.p + roff, len);
	CHECK_FILL(c->b0.p + loff + len, CANARY, BUF_LEN - loff - len);
	printf("read  %6u bytes: ok\n", len);
}

int main(void)
{
	struct t_pair_cfg cfg;
	struct ctx c;
	struct ibv_sge sg;
	struct ibv_wc wc;

	t_pair_default_cfg(&cfg);
	cfg.mtu = IBV_MTU_1024;
	cfg.psn[0] = 0xfffff8;	/* wraps after 8 packets */
	cfg.psn[1] = 0xfffffd;	/* wraps after 3 packets */
	t_pair_open(&c.p, &cfg);
	c.qpn0 = c.p.s[0].qp->qp_num;
	c.qpn1 = c.p.s[1].qp->qp_num;
	t_buf_alloc(&c.b0, c.p.s[0].pd, BUF_LEN);
	t_buf_alloc(&c.b1, c.p.s[1].pd, BUF_LEN);

	do_send(&c, MSG, 0, 0);
	do_send(&c, MSG, 17, 4099);
	do_write(&c, MSG, 0, 0, 0);
	do_write(&c, MSG, 3, 1021, 0);
	do_write(&c, MSG, 64, 8, 1);
	do_read(&c, MSG, 0, 0);
	do_read(&c, MSG, 1023, 5);
	do_write(&c, BIG, 0, 0, 0);
	do_write(&c, BIG, 4096, 77, 0);
	do_read(&c, BIG, 0, 0);
	do_read(&c, BIG, 31, 4096);

	/* rnic1 -> rnic0 SEND, across rnic1's PSN wrap. */
	t_fill(c.b1.p, BUF_LEN, 0xe300);
	memset(c.b0.p, CANARY, BUF_LEN);
	sg = t_sge(&c.b0, 0, MSG);
	POST_RECV(c.p.s[0].qp, 6, &sg, 1);
	sg = t_sge(&c.b1, 1, MSG);
	POST_SEND(c.p.s[1].qp, 7, IBV_WR_SEND, IBV_SEND_SIGNALED, &sg, 1, 0, 0,
		  0);
	POLL(c.p.s[0].rcq, 1, &wc);
	EXPECT_WC(&wc, 6, IBV_WC_SUCCESS, IBV_WC_RECV, c.qpn0, MSG, 0, T_ANY);
	POLL(c.p.s[1].scq, 1, &wc);
	EXPECT_WC(&wc, 7, IBV_WC_SUCCESS, IBV_WC_SEND, c.qpn1, T_ANY, 0, T_ANY);
	CHECK_MEM(c.b0.p, c.b1.p + 1, MSG);
	CHECK_FILL(c.b0.p + MSG, CANARY, BUF_LEN - MSG);
	printf("reverse send %u bytes: ok\n", MSG);

	EXPECT_EMPTY(c.p.s[0].scq, T_EMPTY_POLLS);
	EXPECT_EMPTY(c.p.s[0].rcq, 1);
	EXPECT_EMPTY(c.p.s[1].scq, 1);
	EXPECT_EMPTY(c.p.s[1].rcq, 1);

	t_buf_free(&c.b0);
	t_buf_free(&c.b1);
	t_pair_close(&c.p);
	printf("sys_large: passed\n");
	return 0;
}
