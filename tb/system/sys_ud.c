// SPDX-License-Identifier: MIT
/*
 * sys_ud.c - UD QPs (IBV_QPT_UD) with address handles, two nodes and
 * loopback. From ibv_poll_cq(3): "For the Receive Queue of a UD QP ... the
 * payload of the message plus the 40 bytes reserved for the GRH"; "the data
 * start at offset 40 from the posted receive buffer start whether if the
 * IBV_WC_GRH bit is set or not"; src_qp is the sender's QP.
 *
 *   ud_send            SEND of 1, 100 and 1000 bytes through an AH:
 *                      byte_len = length + 40, the data at offset 40,
 *                      IBV_WC_GRH, src_qp = the sender's QPN, qp_num; the
 *                      sender completes with IBV_WC_SEND;
 *   ud_send_imm        SEND_WITH_IMM: IBV_WC_WITH_IMM and the immediate;
 *   ud_scatter         a receive of two SGEs (40 bytes for the GRH, then the
 *                      data);
 *   ud_grh_ah          ibv_init_ah_from_wc() on the received GRH area gives
 *                      the sender's GID, and a reply through
 *                      ibv_create_ah_from_wc() arrives;
 *   ud_scatter_shared  a receive of four SGEs whose second holds the end of
 *                      the GRH area and the start of the data (30, 20, 100
 *                      and 500 bytes, 400 bytes sent): the GRH area's IPv4
 *                      header and the data land across all four, five
 *                      pieces in all;
 *   ud_wr_api          ibv_wr_send/ibv_wr_send_imm + ibv_wr_set_ud_addr +
 *                      ibv_wr_set_sge, and ibv_wr_complete without
 *                      ibv_wr_set_ud_addr fails (EINVAL);
 *   ud_bad_qkey        a SEND with the wrong Q_Key is dropped by the
 *                      receiver (no completion; the sender completes);
 *   ud_controlled_qkey remote_qkey with bit 31 set uses the sending QP's own
 *                      Q_Key: delivered when the two QPs share it;
 *   ud_no_receive      a SEND with no receive posted is dropped silently and
 *                      the next one arrives.
 *
 * Needs from the hardware: the UD transport (QP context type 4): UD address
 * segments A/B in the send WQE, DETH with the Q_Key, the Q_Key check against
 * context word W7, the 40-byte GRH area (the IPv4 header in bytes 20-39, or
 * an IPv6-format GRH) and the CQE's GRH flag and source QP.
 */
#define _DEFAULT_SOURCE

#include "common.h"

#include <endian.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

#define BUF_LEN 8192
#define GRH 40
#define QKEY 0x1234abcd
#define CANARY 0x8f

#define OPS (IBV_QP_EX_WITH_SEND | IBV_QP_EX_WITH_SEND_WITH_IMM)

struct res {
	struct t_pair p;
	struct t_buf src, rbuf;
	uint32_t qpn0, qpn1;
};

static void expect_ud_recv(struct res *r, const struct ibv_wc *wc, uint64_t wr_id,
			   uint32_t len, unsigned int flags, __be32 imm)
{
	CHECKF(wc->wr_id == wr_id && wc->status == IBV_WC_SUCCESS,
	       "wr_id %llu status %d", (unsigned long long)wc->wr_id, wc->status);
	CHECK_EQ(wc->opcode, IBV_WC_RECV);
	CHECK_EQ(wc->byte_len, len + GRH);
	CHECK_EQ(wc->qp_num, r->qpn1);
	CHECK_EQ(wc->src_qp, r->qpn0);
	CHECK_EQ(wc->wc_flags, IBV_WC_GRH | flags);
	if (flags & IBV_WC_WITH_IMM)
		CHECK_EQ(wc->imm_data, imm);
	CHECK_EQ(wc->vendor_err, 0);
	CHECK_EQ(wc->pkey_index, 0);
}

static void send_recv(struct res *r, uint64_t id, enum ibv_wr_opcode op, uint32_t len,
		      __be32 imm)
{
	struct ibv_sge sg;
	struct ibv_wc wc;

	memset(r->rbuf.p, CANARY, BUF_LEN);
	sg = t_sge(&r->rbuf, 0, BUF_LEN);
	POST_RECV(r->p.s[1].qp, id, &sg, 1);
	sg = t_sge(&r->src, 3, len);
	POST_UD_SEND(r->p.s[0].qp, id + 1000, op, IBV_SEND_SIGNALED, &sg, 1,
		     r->p.s[0].ah, r->qpn1, QKEY, imm);
	POLL(r->p.s[1].rcq, 1, &wc);
	expect_ud_recv(r, &wc, id, len,
		       op == IBV_WR_SEND_WITH_IMM ? IBV_WC_WITH_IMM : 0, imm);
	CHECK_MEM(r->rbuf.p + GRH, r->src.p + 3, len);
	CHECK_FILL(r->rbuf.p + GRH + len, CANARY, BUF_LEN - GRH - len);
	POLL(r->p.s[0].scq, 1, &wc);
	EXPECT_WC(&wc, id + 1000, IBV_WC_SUCCESS, IBV_WC_SEND, r->qpn0, T_ANY, T_ANY,
		  T_ANY);
}

static void run(int loopback)
{
	static const uint32_t sizes[] = { 1, 100, 1000 };
	struct ibv_ah_attr aa;
	struct t_pair_cfg cfg;
	struct ibv_qp_ex *qpx;
	struct ibv_sge sg, sl[2];
	union ibv_gid g0;
	struct ibv_wc wc, rwc;
	struct ibv_ah *ah;
	struct res r;
	unsigned int i;

	memset(&r, 0, sizeof(r));
	t_pair_default_cfg(&cfg);
	cfg.loopback = loopback;
	cfg.qp_type = IBV_QPT_UD;
	cfg.qkey = QKEY;
	cfg.caps.max_recv_sge = 4;
	cfg.send_ops_flags = OPS;
	t_pair_open(&r.p, &cfg);
	qpx = r.p.s[0].qpx;
	r.qpn0 = r.p.s[0].qp->qp_num;
	r.qpn1 = r.p.s[1].qp->qp_num;
	t_buf_alloc(&r.src, r.p.s[0].pd, BUF_LEN);
	t_buf_alloc(&r.rbuf, r.p.s[1].pd, BUF_LEN);
	t_fill(r.src.p, BUF_LEN, 0xd0d0);
	printf("-- %s\n", loopback ? "loopback" : "two nodes");

	for (i = 0; i < 3; i++)
		send_recv(&r, 10 + i, IBV_WR_SEND, sizes[i], 0);
	printf("ud_send (1, 100, 1000): ok\n");
	send_recv(&r, 20, IBV_WR_SEND_WITH_IMM, 64, htobe32(0xfeed0001));
	printf("ud_send_imm: ok\n");

	/* ud_scatter */
	memset(r.rbuf.p, CANARY, BUF_LEN);
	sl[0] = t_sge(&r.rbuf, 1000, GRH);
	sl[1] = t_sge(&r.rbuf, 4000, 500);
	POST_RECV(r.p.s[1].qp, 30, sl, 2);
	sg = t_sge(&r.src, 0, 500);
	POST_UD_SEND(r.p.s[0].qp, 31, IBV_WR_SEND, IBV_SEND_SIGNALED, &sg, 1,
		     r.p.s[0].ah, r.qpn1, QKEY, 0);
	POLL(r.p.s[1].rcq, 1, &rwc);
	expect_ud_recv(&r, &rwc, 30, 500, 0, 0);
	CHECK_MEM(r.rbuf.p + 4000, r.src.p, 500);
	POLL(r.p.s[0].scq, 1, &wc);
	EXPECT_WC(&wc, 31, IBV_WC_SUCCESS, IBV_WC_SEND, r.qpn0, T_ANY, 0, T_ANY);
	printf("ud_scatter: ok\n");

	/* ud_grh_ah: the GRH area of that receive is at rbuf + 1000. */
	t_query_gid(r.p.s[0].ctx, &g0);
	CHECK_OK(ibv_init_ah_from_wc(r.p.s[1].ctx, T_PORT, &rwc,
				     (struct ibv_grh *)(r.rbuf.p + 1000), &aa));
	CHECK_EQ(aa.is_global, 1);
	CHECK_MEM(aa.grh.dgid.raw, g0.raw, 16);
	ah = CHECK_PTR(ibv_create_ah_from_wc(r.p.s[1].pd, &rwc,
					     (struct ibv_grh *)(r.rbuf.p + 1000),
					     T_PORT));
	{
		struct t_buf rb0, sb1;

		t_buf_alloc(&rb0, r.p.s[0].pd, 4096);
		t_buf_alloc(&sb1, r.p.s[1].pd, 4096);
		t_fill(sb1.p, 4096, 0x4e4e);
		sg = t_sge(&rb0, 0, 4096);
		POST_RECV(r.p.s[0].qp, 40, &sg, 1);
		sg = t_sge(&sb1, 0, 77);
		POST_UD_SEND(r.p.s[1].qp, 41, IBV_WR_SEND, IBV_SEND_SIGNALED, &sg, 1,
			     ah, r.qpn0, QKEY, 0);
		POLL(r.p.s[0].rcq, 1, &wc);
		CHECK_EQ(wc.wr_id, 40);
		CHECK_EQ(wc.status, IBV_WC_SUCCESS);
		CHECK_EQ(wc.byte_len, 77 + GRH);
		CHECK_EQ(wc.src_qp, r.qpn1);
		CHECK_MEM(rb0.p + GRH, sb1.p, 77);
		POLL(r.p.s[1].scq, 1, &wc);
		EXPECT_WC(&wc, 41, IBV_WC_SUCCESS, IBV_WC_SEND, r.qpn1, T_ANY, 0, T_ANY);
		t_buf_free(&rb0);
		t_buf_free(&sb1);
	}
	CHECK_OK(ibv_destroy_ah(ah));
	printf("ud_grh_ah: reply through ibv_create_ah_from_wc: ok\n");

	/* ud_scatter_shared */
	memset(r.rbuf.p, CANARY, BUF_LEN);
	{
		struct ibv_sge s4[4];

		s4[0] = t_sge(&r.rbuf, 5000, 30);
		s4[1] = t_sge(&r.rbuf, 6000, 20);
		s4[2] = t_sge(&r.rbuf, 6500, 100);
		s4[3] = t_sge(&r.rbuf, 7000, 500);
		POST_RECV(r.p.s[1].qp, 32, s4, 4);
	}
	sg = t_sge(&r.src, 0, 400);
	POST_UD_SEND(r.p.s[0].qp, 33, IBV_WR_SEND, IBV_SEND_SIGNALED, &sg, 1,
		     r.p.s[0].ah, r.qpn1, QKEY, 0);
	POLL(r.p.s[1].rcq, 1, &wc);
	expect_ud_recv(&r, &wc, 32, 400, 0, 0);
	/* GRH area bytes 20..39: the IPv4 header (version 4, IHL 5 first) */
	CHECK_EQ(r.rbuf.p[5000 + 20], 0x45);
	CHECK_FILL(r.rbuf.p + 5000, CANARY, 20);
	CHECK_MEM(r.rbuf.p + 6010, r.src.p, 10);
	CHECK_MEM(r.rbuf.p + 6500, r.src.p + 10, 100);
	CHECK_MEM(r.rbuf.p + 7000, r.src.p + 110, 290);
	CHECK_FILL(r.rbuf.p + 7290, CANARY, 210);
	POLL(r.p.s[0].scq, 1, &wc);
	EXPECT_WC(&wc, 33, IBV_WC_SUCCESS, IBV_WC_SEND, r.qpn0, T_ANY, 0, T_ANY);
	printf("ud_scatter_shared: ok\n");

	/* ud_wr_api */
	memset(r.rbuf.p, CANARY, BUF_LEN);
	sg = t_sge(&r.rbuf, 0, 1024);
	POST_RECV(r.p.s[1].qp, 50, &sg, 1);
	sg = t_sge(&r.rbuf, 1024, 1024);
	POST_RECV(r.p.s[1].qp, 51, &sg, 1);
	ibv_wr_start(qpx);
	qpx->wr_flags = IBV_SEND_SIGNALED;
	qpx->wr_id = 500;
	ibv_wr_send(qpx);
	ibv_wr_set_ud_addr(qpx, r.p.s[0].ah, r.qpn1, QKEY);
	ibv_wr_set_sge(qpx, r.src.mr->lkey, t_addr(&r.src, 0), 200);
	qpx->wr_id = 501;
	ibv_wr_send_imm(qpx, htobe32(501));
	ibv_wr_set_sge(qpx, r.src.mr->lkey, t_addr(&r.src, 200), 300);
	ibv_wr_set_ud_addr(qpx, r.p.s[0].ah, r.qpn1, QKEY);
	WR_COMPLETE(qpx);
	POLL(r.p.s[1].rcq, 1, &wc);
	expect_ud_recv(&r, &wc, 50, 200, 0, 0);
	POLL(r.p.s[1].rcq, 1, &wc);
	expect_ud_recv(&r, &wc, 51, 300, IBV_WC_WITH_IMM, htobe32(501));
	CHECK_MEM(r.rbuf.p + GRH, r.src.p, 200);
	CHECK_MEM(r.rbuf.p + 1024 + GRH, r.src.p + 200, 300);
	POLL(r.p.s[0].scq, 1, &wc);
	EXPECT_WC(&wc, 500, IBV_WC_SUCCESS, IBV_WC_SEND, r.qpn0, T_ANY, 0, T_ANY);
	POLL(r.p.s[0].scq, 1, &wc);
	EXPECT_WC(&wc, 501, IBV_WC_SUCCESS, IBV_WC_SEND, r.qpn0, T_ANY, T_ANY, T_ANY);
	ibv_wr_start(qpx);
	qpx->wr_id = 502;
	ibv_wr_send(qpx);
	ibv_wr_set_sge(qpx, r.src.mr->lkey, t_addr(&r.src, 0), 10);
	CHECK_EQ(ibv_wr_complete(qpx), EINVAL);
	printf("ud_wr_api (and EINVAL without ibv_wr_set_ud_addr): ok\n");

	/* ud_bad_qkey, then ud_controlled_qkey */
	sg = t_sge(&r.rbuf, 0, 1024);
	POST_RECV(r.p.s[1].qp, 60, &sg, 1);
	sg = t_sge(&r.src, 0, 16);
	POST_UD_SEND(r.p.s[0].qp, 600, IBV_WR_SEND, IBV_SEND_SIGNALED, &sg, 1,
		     r.p.s[0].ah, r.qpn1, QKEY ^ 1, 0);
	POLL(r.p.s[0].scq, 1, &wc);
	EXPECT_WC(&wc, 600, IBV_WC_SUCCESS, IBV_WC_SEND, r.qpn0, T_ANY, 0, T_ANY);
	EXPECT_EMPTY(r.p.s[1].rcq, T_EMPTY_POLLS / 10);
	printf("ud_bad_qkey: dropped: ok\n");
	memset(r.rbuf.p, CANARY, BUF_LEN);
	sg = t_sge(&r.src, 16, 24);
	POST_UD_SEND(r.p.s[0].qp, 601, IBV_WR_SEND, IBV_SEND_SIGNALED, &sg, 1,
		     r.p.s[0].ah, r.qpn1, 0x80000000u, 0);
	POLL(r.p.s[1].rcq, 1, &wc);
	expect_ud_recv(&r, &wc, 60, 24, 0, 0);
	CHECK_MEM(r.rbuf.p + GRH, r.src.p + 16, 24);
	POLL(r.p.s[0].scq, 1, &wc);
	EXPECT_WC(&wc, 601, IBV_WC_SUCCESS, IBV_WC_SEND, r.qpn0, T_ANY, 0, T_ANY);
	printf("ud_controlled_qkey: ok\n");

	/* ud_no_receive */
	sg = t_sge(&r.src, 0, 8);
	POST_UD_SEND(r.p.s[0].qp, 700, IBV_WR_SEND, IBV_SEND_SIGNALED, &sg, 1,
		     r.p.s[0].ah, r.qpn1, QKEY, 0);
	POLL(r.p.s[0].scq, 1, &wc);
	EXPECT_WC(&wc, 700, IBV_WC_SUCCESS, IBV_WC_SEND, r.qpn0, T_ANY, 0, T_ANY);
	EXPECT_EMPTY(r.p.s[1].rcq, T_EMPTY_POLLS / 10);
	send_recv(&r, 70, IBV_WR_SEND, 33, 0);
	printf("ud_no_receive: dropped, next one arrives: ok\n");

	EXPECT_EMPTY(r.p.s[0].scq, 1);
	EXPECT_EMPTY(r.p.s[1].rcq, 1);
	t_buf_free(&r.src);
	t_buf_free(&r.rbuf);
	t_pair_close(&r.p);
}

int main(void)
{
	run(0);
	run(1);
	printf("sys_ud: passed\n");
	return 0;
}
