// SPDX-License-Identifier: MIT
/*
 * conf_post_send.c - ibv_post_send(3), statement by statement.
 *
 * Each case is named after the statement it checks (docs/verbs.md has the
 * statement -> case table). Side 0 posts, side 1 is the responder.
 */
#define _DEFAULT_SOURCE

#include "conf.h"

#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A one-SGE signaled RDMA WRITE of @len bytes from src+off to dst+off. */
static void write_wr(struct conf_rig *r, struct ibv_send_wr *wr,
		     struct ibv_sge *sg, uint64_t id, size_t off, uint32_t len,
		     unsigned int flags)
{
	*sg = t_sge(&r->src, off, len);
	conf_rdma_wr(wr, id, IBV_WR_RDMA_WRITE, flags, sg, 1, &r->dst, off);
}

static void post_recv_at(struct conf_rig *r, uint64_t id, size_t off,
			 uint32_t len)
{
	struct ibv_sge sg = t_sge(&r->rbuf, off, len);
	struct ibv_recv_wr wr;

	conf_recv_wr(&wr, id, &sg, 1);
	POST_RECV_OK(r->qp1, &wr);
}

/*
 * "ibv_post_send() posts the linked list of work requests (WRs) starting
 * with wr to the send queue": a list of six WRs of six opcodes executes in
 * list order (completions in that order, data where each WR put it).
 */
static void case_posts_linked_list_in_order(struct conf *c)
{
	struct conf_rig r;
	struct ibv_send_wr w[6];
	struct ibv_sge sg[6];
	struct ibv_wc wc[6];
	static const enum ibv_wc_opcode ops[6] = {
		IBV_WC_RDMA_WRITE, IBV_WC_SEND, IBV_WC_RDMA_WRITE,
		IBV_WC_RDMA_READ, IBV_WC_SEND, IBV_WC_FETCH_ADD,
	};
	int i;

	conf_rig_open(c, &r, NULL);
	post_recv_at(&r, 101, 0, 256);
	post_recv_at(&r, 102, 256, 256);
	post_recv_at(&r, 103, 512, 256);
	memset(r.loc.p, 0, 4096);
	conf_put64(r.dst.p + 8192, 1000);
	memcpy(r.dst.p + 4096, r.src.p + 30000, 128);

	write_wr(&r, &w[0], &sg[0], 1, 0, 64, IBV_SEND_SIGNALED);
	sg[1] = t_sge(&r.src, 1000, 100);
	conf_send_wr(&w[1], 2, IBV_WR_SEND, IBV_SEND_SIGNALED, &sg[1], 1);
	sg[2] = t_sge(&r.src, 2000, 32);
	conf_rdma_wr(&w[2], 3, IBV_WR_RDMA_WRITE_WITH_IMM, IBV_SEND_SIGNALED,
		     &sg[2], 1, &r.dst, 2000);
	w[2].imm_data = htonl(0xa1b2c3d4);
	sg[3] = t_sge(&r.loc, 0, 128);
	conf_rdma_wr(&w[3], 4, IBV_WR_RDMA_READ, IBV_SEND_SIGNALED, &sg[3], 1,
		     &r.dst, 4096);
	sg[4] = t_sge(&r.src, 3000, 10);
	conf_send_wr(&w[4], 5, IBV_WR_SEND_WITH_IMM, IBV_SEND_SIGNALED, &sg[4], 1);
	w[4].imm_data = htonl(0x01020304);
	sg[5] = t_sge(&r.loc, 1024, 8);
	conf_atomic_wr(&w[5], 6, IBV_WR_ATOMIC_FETCH_AND_ADD, IBV_SEND_SIGNALED,
		       &sg[5], &r.dst, 8192, 5, 0);
	for (i = 0; i < 5; i++)
		w[i].next = &w[i + 1];
	POST_SEND_OK(r.qp0, w);

	POLL(r.scq0, 6, wc);
	for (i = 0; i < 6; i++)
		EXPECT_SQ_OK(&wc[i], (uint64_t)i + 1, ops[i], r.q0, T_ANY);
	CHECK_EQ(wc[3].byte_len, 128);
	CHECK_EQ(wc[5].byte_len, 8);
	POLL(r.rcq1, 3, wc);
	EXPECT_WC_OK(&wc[0], 101, IBV_WC_RECV, r.q1, 100, 0, T_ANY, r.q0);
	EXPECT_WC_OK(&wc[1], 102, IBV_WC_RECV_RDMA_WITH_IMM, r.q1, 32,
		     IBV_WC_WITH_IMM, htonl(0xa1b2c3d4), r.q0);
	EXPECT_WC_OK(&wc[2], 103, IBV_WC_RECV, r.q1, 10, IBV_WC_WITH_IMM,
		     htonl(0x01020304), r.q0);
	CHECK_MEM(r.dst.p, r.src.p, 64);
	CHECK_MEM(r.rbuf.p, r.src.p + 1000, 100);
	CHECK_MEM(r.dst.p + 2000, r.src.p + 2000, 32);
	CHECK_MEM(r.loc.p, r.src.p + 30000, 128);
	CHECK_MEM(r.rbuf.p + 512, r.src.p + 3000, 10);
	CHECK_EQ(conf_get64(r.loc.p + 1024), 1000);
	CHECK_EQ(conf_get64(r.dst.p + 8192), 1005);
	EXPECT_EMPTY(r.scq0, CONF_QUIET);
	EXPECT_EMPTY(r.rcq1, CONF_QUIET);
	conf_rig_close(&r);
}

/*
 * "It stops processing WRs from this list at the first failure (that can be
 * detected immediately while requests are being posted), and returns this
 * failing WR through bad_wr" and "returns 0 on success, or the value of
 * errno on failure": [WRITE, bad WR, WRITE] returns EINVAL with bad_wr =
 * the second WR; the first executes, the third never does. Bad WRs: more
 * SGEs than max_send_sge, an opcode that does not exist.
 */
static void stop_at(struct conf_rig *r, struct ibv_send_wr *bad_tmpl,
		    uint64_t base)
{
	struct ibv_send_wr w[3];
	struct ibv_sge sg[2];
	struct ibv_wc wc;

	memset(r->dst.p, CONF_CANARY, 256);
	write_wr(r, &w[0], &sg[0], base, 0, 64, IBV_SEND_SIGNALED);
	w[1] = *bad_tmpl;
	write_wr(r, &w[2], &sg[1], base + 2, 128, 64, IBV_SEND_SIGNALED);
	w[0].next = &w[1];
	w[1].next = &w[2];
	EXPECT_POST_SEND(r->qp0, w, EINVAL, &w[1]);
	POLL1(r->scq0, &wc);
	EXPECT_SQ_OK(&wc, base, IBV_WC_RDMA_WRITE, r->q0, T_ANY);
	EXPECT_EMPTY(r->scq0, CONF_QUIET);
	CHECK_MEM(r->dst.p, r->src.p, 64);
	CHECK_FILL(r->dst.p + 64, CONF_CANARY, 192);
}

static void case_stops_at_first_failure_returns_bad_wr(struct conf *c)
{
	struct ibv_sge many[5];
	struct ibv_send_wr bad;
	struct conf_rig r;
	int i;

	conf_rig_open(c, &r, NULL);
	CHECK_EQ(r.p.s[0].cap.max_send_sge, 4);
	for (i = 0; i < 5; i++)
		many[i] = t_sge(&r.src, 4096 + 16 * (size_t)i, 16);
	conf_rdma_wr(&bad, 11, IBV_WR_RDMA_WRITE, IBV_SEND_SIGNALED, many, 5,
		     &r.dst, 64);
	stop_at(&r, &bad, 10);
	conf_rdma_wr(&bad, 21, (enum ibv_wr_opcode)99, IBV_SEND_SIGNALED,
		     many, 1, &r.dst, 64);
	stop_at(&r, &bad, 20);
	conf_rig_close(&r);
}

/*
 * ENOMEM when the send queue is full (issue 3; "the value of errno on
 * failure"): a list of max_send_wr + 2 WRs posts max_send_wr of them and
 * returns ENOMEM with bad_wr = the first that did not fit; the room comes
 * back once the completions are polled.
 */
static void case_enomem_when_send_queue_full(struct conf *c)
{
	struct t_pair_cfg cfg;
	struct conf_rig r;
	struct ibv_send_wr *w;
	struct ibv_sge *sg;
	struct ibv_wc wc;
	uint32_t k, i;

	conf_rig_cfg(c, &cfg);
	cfg.caps.max_send_wr = 8;
	conf_rig_open(c, &r, &cfg);
	k = r.p.s[0].cap.max_send_wr;
	CHECK(k >= 8 && k <= 128);
	w = calloc(k + 2, sizeof(*w));
	sg = calloc(k + 2, sizeof(*sg));
	CHECK(w && sg);
	for (i = 0; i < k + 2; i++) {
		write_wr(&r, &w[i], &sg[i], 100 + i, 64 * (size_t)i, 64,
			 IBV_SEND_SIGNALED);
		w[i].next = i + 1 < k + 2 ? &w[i + 1] : NULL;
	}
	EXPECT_POST_SEND(r.qp0, w, ENOMEM, &w[k]);
	for (i = 0; i < k; i++) {
		POLL1(r.scq0, &wc);
		EXPECT_SQ_OK(&wc, 100 + i, IBV_WC_RDMA_WRITE, r.q0, T_ANY);
	}
	EXPECT_EMPTY(r.scq0, CONF_QUIET);
	CHECK_MEM(r.dst.p, r.src.p, 64 * (size_t)k);
	CHECK_FILL(r.dst.p + 64 * (size_t)k, CONF_CANARY, 128);
	/* The room is back: the two that did not fit go now. */
	POST_SEND_OK(r.qp0, &w[k]);
	for (i = k; i < k + 2; i++) {
		POLL1(r.scq0, &wc);
		EXPECT_SQ_OK(&wc, 100 + i, IBV_WC_RDMA_WRITE, r.q0, T_ANY);
	}
	free(w);
	free(sg);
	conf_rig_close(&r);
}

/*
 * EINVAL for an opcode or a flag that does not exist, and for the opcodes
 * of the table that the device does not support (IBV_WR_TSO, the
 * driver-specific IBV_WR_DRIVER1): refused at once, bad_wr = the WR.
 */
static void case_einval_for_unknown_opcode_or_flag(struct conf *c)
{
	static const unsigned int bad_ops[] = { IBV_WR_TSO, IBV_WR_DRIVER1,
						 IBV_WR_ATOMIC_WRITE, 99 };
	struct conf_rig r;
	struct ibv_send_wr w;
	struct ibv_sge sg;
	size_t i;

	conf_rig_open(c, &r, NULL);
	for (i = 0; i < sizeof(bad_ops) / sizeof(bad_ops[0]); i++) {
		write_wr(&r, &w, &sg, 1, 0, 16, IBV_SEND_SIGNALED);
		w.opcode = (enum ibv_wr_opcode)bad_ops[i];
		EXPECT_POST_SEND(r.qp0, &w, EINVAL, &w);
	}
	write_wr(&r, &w, &sg, 2, 0, 16, IBV_SEND_SIGNALED | (1u << 20));
	EXPECT_POST_SEND(r.qp0, &w, EINVAL, &w);
	EXPECT_EMPTY(r.scq0, CONF_QUIET);
	CHECK_FILL(r.dst.p, CONF_CANARY, 64);
	conf_rig_close(&r);
}

/* ------------------------------------------------------------------------ */
/* "Each QP Transport Service Type supports a specific set of opcodes"      */

#define OPB(x) (1u << IBV_WR_##x)

struct mwset {
	struct ibv_mw *mw0;	/* type 2, side 0: bound and LOCAL_INV'ed */
	struct ibv_mw *mw1;	/* type 2, side 1: invalidated by SEND_WITH_INV */
};

/* BIND_MW on @qp (of @cq) of @mw over the first 256 bytes of @b. */
static void bind_mw2(struct ibv_qp *qp, struct ibv_cq *cq, struct ibv_mw *mw,
		 struct t_buf *b, uint64_t id)
{
	struct ibv_send_wr w;
	struct ibv_wc wc;

	conf_send_wr(&w, id, IBV_WR_BIND_MW, IBV_SEND_SIGNALED, NULL, 0);
	w.bind_mw.mw = mw;
	w.bind_mw.rkey = ibv_inc_rkey(mw->rkey);
	w.bind_mw.bind_info.mr = b->mr;
	w.bind_mw.bind_info.addr = t_addr(b, 0);
	w.bind_mw.bind_info.length = 256;
	w.bind_mw.bind_info.mw_access_flags = IBV_ACCESS_REMOTE_WRITE;
	POST_SEND_OK(qp, &w);
	POLL1(cq, &wc);
	EXPECT_SQ_OK(&wc, id, IBV_WC_BIND_MW, qp->qp_num, T_ANY);
	CHECK_EQ(mw->rkey, w.bind_mw.rkey);
}

/* Every opcode of @ok executes (one at a time); every other opcode of the
 * table is refused with EINVAL. */
static void opcode_table(struct conf *c, enum ibv_qp_type type,
			 unsigned int ok)
{
	struct t_pair_cfg cfg;
	struct conf_rig r;
	struct ibv_send_wr w;
	struct ibv_sge sg;
	struct ibv_wc wc;
	struct mwset m = { 0 };
	unsigned int op;
	int ud = type == IBV_QPT_UD;

	conf_rig_cfg(c, &cfg);
	cfg.qp_type = type;
	conf_rig_open(c, &r, &cfg);
	if (ok & (OPB(BIND_MW) | OPB(LOCAL_INV))) {
		m.mw0 = CHECK_PTR(ibv_alloc_mw(r.p.s[0].pd, IBV_MW_TYPE_2));
		m.mw1 = CHECK_PTR(ibv_alloc_mw(r.p.s[1].pd, IBV_MW_TYPE_2));
	}
	for (op = IBV_WR_RDMA_WRITE; op <= IBV_WR_DRIVER1; op++) {
		uint64_t id = 1000 + op;
		enum ibv_wc_opcode wop = IBV_WC_SEND;
		long long len = T_ANY;
		int recv = 0, imm = 0;

		sg = t_sge(&r.src, 64 * (size_t)op, 16);
		conf_send_wr(&w, id, (enum ibv_wr_opcode)op, IBV_SEND_SIGNALED,
			     &sg, 1);
		if (ud) {
			w.wr.ud.ah = r.p.s[0].ah;
			w.wr.ud.remote_qpn = r.q1;
			w.wr.ud.remote_qkey = CONF_QKEY;
		}
		if (!(ok & (1u << op))) {
			w.wr.rdma.remote_addr = t_addr(&r.dst, 0);
			w.wr.rdma.rkey = r.dst.mr->rkey;
			EXPECT_POST_SEND(r.qp0, &w, EINVAL, &w);
			continue;
		}
		switch (op) {
		case IBV_WR_RDMA_WRITE_WITH_IMM:
			recv = imm = 1;
			/* fall through */
		case IBV_WR_RDMA_WRITE:
			conf_rdma_wr(&w, id, (enum ibv_wr_opcode)op,
				     IBV_SEND_SIGNALED, &sg, 1, &r.dst, 64 * op);
			wop = IBV_WC_RDMA_WRITE;
			break;
		case IBV_WR_SEND_WITH_IMM:
			imm = 1;
			/* fall through */
		case IBV_WR_SEND:
			recv = 1;
			break;
		case IBV_WR_RDMA_READ:
			sg = t_sge(&r.loc, 64 * (size_t)op, 16);
			conf_rdma_wr(&w, id, IBV_WR_RDMA_READ, IBV_SEND_SIGNALED,
				     &sg, 1, &r.dst, 64 * op);
			memcpy(r.dst.p + 64 * op, r.src.p + 9999, 16);
			wop = IBV_WC_RDMA_READ;
			len = 16;
			break;
		case IBV_WR_ATOMIC_CMP_AND_SWP:
		case IBV_WR_ATOMIC_FETCH_AND_ADD:
			sg = t_sge(&r.loc, 64 * (size_t)op, 8);
			conf_put64(r.dst.p + 64 * op, 7);
			conf_atomic_wr(&w, id, (enum ibv_wr_opcode)op,
				       IBV_SEND_SIGNALED, &sg, &r.dst, 64 * op,
				       7, 9);
			wop = op == IBV_WR_ATOMIC_CMP_AND_SWP ? IBV_WC_COMP_SWAP :
								IBV_WC_FETCH_ADD;
			len = 8;
			break;
		case IBV_WR_BIND_MW:
			bind_mw2(r.qp0, r.scq0, m.mw0, &r.loc, id);
			continue;
		case IBV_WR_LOCAL_INV:
			/* LOCAL_INV comes first in the enum: bind, then
			 * invalidate (BIND_MW binds the window again). */
			bind_mw2(r.qp0, r.scq0, m.mw0, &r.loc, 1);
			conf_send_wr(&w, id, IBV_WR_LOCAL_INV, IBV_SEND_SIGNALED,
				     NULL, 0);
			w.invalidate_rkey = m.mw0->rkey;
			wop = IBV_WC_LOCAL_INV;
			break;
		case IBV_WR_SEND_WITH_INV:
			bind_mw2(r.qp1, r.scq1, m.mw1, &r.dst, 1);
			w.invalidate_rkey = m.mw1->rkey;
			recv = 1;
			break;
		}
		if (recv)
			post_recv_at(&r, id, 0, 1024);
		memset(r.rbuf.p, CONF_CANARY, 1024);
		POST_SEND_OK(r.qp0, &w);
		POLL1(r.scq0, &wc);
		EXPECT_SQ_OK(&wc, id, wop, r.q0, len);
		if (recv) {
			unsigned int fl = ud ? IBV_WC_GRH : 0;
			long long blen = 16 + (ud ? 40 : 0);

			if (imm)
				fl |= IBV_WC_WITH_IMM;
			if (op == IBV_WR_SEND_WITH_INV)
				fl |= IBV_WC_WITH_INV;
			POLL1(r.rcq1, &wc);
			EXPECT_WC_OK(&wc, id, op == IBV_WR_RDMA_WRITE_WITH_IMM ?
				     IBV_WC_RECV_RDMA_WITH_IMM : IBV_WC_RECV,
				     r.q1, blen, fl, 0, r.q0);
			if (op == IBV_WR_SEND_WITH_INV)
				CHECK_EQ(wc.invalidated_rkey, m.mw1->rkey);
		}
		/* UC completes an RDMA WRITE when its packets have left
		 * (nothing comes back): let them arrive and be placed. */
		if (type == IBV_QPT_UC && op == IBV_WR_RDMA_WRITE)
			conf_idle(r.p.s[1].ctx, CONF_QUIET);
		switch (op) {
		case IBV_WR_RDMA_WRITE:
		case IBV_WR_RDMA_WRITE_WITH_IMM:
			CHECK_MEM(r.dst.p + 64 * op, r.src.p + 64 * op, 16);
			break;
		case IBV_WR_SEND:
		case IBV_WR_SEND_WITH_IMM:
		case IBV_WR_SEND_WITH_INV:
			CHECK_MEM(r.rbuf.p + (ud ? 40 : 0), r.src.p + 64 * op, 16);
			break;
		case IBV_WR_RDMA_READ:
			CHECK_MEM(r.loc.p + 64 * op, r.src.p + 9999, 16);
			break;
		case IBV_WR_ATOMIC_CMP_AND_SWP:
			CHECK_EQ(conf_get64(r.loc.p + 64 * op), 7);
			CHECK_EQ(conf_get64(r.dst.p + 64 * op), 9);
			break;
		case IBV_WR_ATOMIC_FETCH_AND_ADD:
			CHECK_EQ(conf_get64(r.loc.p + 64 * op), 7);
			CHECK_EQ(conf_get64(r.dst.p + 64 * op), 14);
			break;
		}
	}
	EXPECT_EMPTY(r.scq0, CONF_QUIET);
	EXPECT_EMPTY(r.rcq1, CONF_QUIET);
	if (m.mw0) {
		CHECK_OK(ibv_dealloc_mw(m.mw0));
		CHECK_OK(ibv_dealloc_mw(m.mw1));
	}
	conf_rig_close(&r);
}

/* The RC column: every opcode but TSO (and DRIVER1). */
static void case_opcode_table_rc(struct conf *c)
{
	opcode_table(c, IBV_QPT_RC, OPB(SEND) | OPB(SEND_WITH_IMM) |
		     OPB(RDMA_WRITE) | OPB(RDMA_WRITE_WITH_IMM) |
		     OPB(RDMA_READ) | OPB(ATOMIC_CMP_AND_SWP) |
		     OPB(ATOMIC_FETCH_AND_ADD) | OPB(BIND_MW) |
		     OPB(LOCAL_INV) | OPB(SEND_WITH_INV));
}

/* The UC column, without SEND_WITH_INV (IBA has no UC SEND with
 * Invalidate packet; refused, docs/verbs.md). */
static void case_opcode_table_uc(struct conf *c)
{
	opcode_table(c, IBV_QPT_UC, OPB(SEND) | OPB(SEND_WITH_IMM) |
		     OPB(RDMA_WRITE) | OPB(RDMA_WRITE_WITH_IMM) |
		     OPB(BIND_MW) | OPB(LOCAL_INV));
}

/* The UD column: SEND and SEND_WITH_IMM (TSO: no segmentation offload). */
static void case_opcode_table_ud(struct conf *c)
{
	opcode_table(c, IBV_QPT_UD, OPB(SEND) | OPB(SEND_WITH_IMM));
}

/* ------------------------------------------------------------------------ */
/* struct ibv_send_wr, struct ibv_sge                                       */

/*
 * sg_list / num_sge "Pointer to the s/g array", "Size of the s/g array":
 * four SGEs, each in its own MR, are gathered in list order for a SEND and
 * an RDMA WRITE, and an RDMA READ scatters into four SGEs in four MRs.
 */
static void case_sg_list_gathered_in_order_across_mrs(struct conf *c)
{
	static const uint32_t len[4] = { 1, 77, 1000, 3 };
	struct conf_rig r;
	struct t_buf b[4];
	struct ibv_sge sg[4];
	struct ibv_send_wr w;
	struct ibv_wc wc;
	uint8_t exp[1081];
	size_t off = 0;
	int i;

	conf_rig_open(c, &r, NULL);
	for (i = 0; i < 4; i++) {
		t_buf_alloc(&b[i], r.p.s[0].pd, 4096);
		t_fill(b[i].p, 4096, 0x100 + (uint64_t)i);
		sg[i] = t_sge(&b[i], 100 * (size_t)i + 1, len[i]);
		memcpy(exp + off, b[i].p + 100 * i + 1, len[i]);
		off += len[i];
	}
	post_recv_at(&r, 7, 0, 2048);
	conf_send_wr(&w, 1, IBV_WR_SEND, IBV_SEND_SIGNALED, sg, 4);
	POST_SEND_OK(r.qp0, &w);
	POLL1(r.scq0, &wc);
	EXPECT_SQ_OK(&wc, 1, IBV_WC_SEND, r.q0, T_ANY);
	POLL1(r.rcq1, &wc);
	EXPECT_WC_OK(&wc, 7, IBV_WC_RECV, r.q1, sizeof(exp), 0, T_ANY, r.q0);
	CHECK_MEM(r.rbuf.p, exp, sizeof(exp));
	CHECK_FILL(r.rbuf.p + sizeof(exp), CONF_CANARY, 64);

	conf_rdma_wr(&w, 2, IBV_WR_RDMA_WRITE, IBV_SEND_SIGNALED, sg, 4,
		     &r.dst, 3);
	POST_SEND_OK(r.qp0, &w);
	POLL1(r.scq0, &wc);
	EXPECT_SQ_OK(&wc, 2, IBV_WC_RDMA_WRITE, r.q0, T_ANY);
	CHECK_FILL(r.dst.p, CONF_CANARY, 3);
	CHECK_MEM(r.dst.p + 3, exp, sizeof(exp));
	CHECK_FILL(r.dst.p + 3 + sizeof(exp), CONF_CANARY, 64);

	/* READ back into the four MRs, scattered in order. */
	t_fill(r.dst.p + 20000, sizeof(exp), 0x777);
	for (i = 0; i < 4; i++)
		memset(b[i].p, 0, 4096);
	conf_rdma_wr(&w, 3, IBV_WR_RDMA_READ, IBV_SEND_SIGNALED, sg, 4,
		     &r.dst, 20000);
	POST_SEND_OK(r.qp0, &w);
	POLL1(r.scq0, &wc);
	EXPECT_SQ_OK(&wc, 3, IBV_WC_RDMA_READ, r.q0, sizeof(exp));
	for (off = 0, i = 0; i < 4; i++) {
		CHECK_FILL(b[i].p, 0, 100 * (size_t)i + 1);
		CHECK_MEM(b[i].p + 100 * i + 1, r.dst.p + 20000 + off, len[i]);
		CHECK_FILL(b[i].p + 100 * i + 1 + len[i], 0,
			   4096 - 100 * (size_t)i - 1 - len[i]);
		off += len[i];
	}
	for (i = 0; i < 4; i++)
		t_buf_free(&b[i]);
	conf_rig_close(&r);
}

/*
 * Zero-length messages (issue 3; num_sge 0, or only SGEs of length 0): a
 * SEND, SEND_WITH_IMM, RDMA WRITE, RDMA WRITE_WITH_IMM and RDMA READ of no
 * bytes complete; the receive completions have byte_len 0 and the
 * receive buffer is not touched.
 */
static void case_zero_length_messages(struct conf *c)
{
	struct conf_rig r;
	struct ibv_send_wr w;
	struct ibv_sge empty = { .addr = 0, .length = 0, .lkey = 0x12345678 };
	struct ibv_wc wc;

	conf_rig_open(c, &r, NULL);
	post_recv_at(&r, 11, 0, 64);
	post_recv_at(&r, 12, 64, 64);
	post_recv_at(&r, 14, 128, 64);

	conf_send_wr(&w, 1, IBV_WR_SEND, IBV_SEND_SIGNALED, NULL, 0);
	POST_SEND_OK(r.qp0, &w);
	conf_send_wr(&w, 2, IBV_WR_SEND_WITH_IMM, IBV_SEND_SIGNALED, &empty, 1);
	w.imm_data = htonl(0xfeed);
	POST_SEND_OK(r.qp0, &w);
	conf_rdma_wr(&w, 3, IBV_WR_RDMA_WRITE, IBV_SEND_SIGNALED, NULL, 0,
		     &r.dst, 0);
	POST_SEND_OK(r.qp0, &w);
	conf_rdma_wr(&w, 4, IBV_WR_RDMA_WRITE_WITH_IMM, IBV_SEND_SIGNALED,
		     NULL, 0, &r.dst, 0);
	w.imm_data = htonl(0xbeef);
	POST_SEND_OK(r.qp0, &w);
	conf_rdma_wr(&w, 5, IBV_WR_RDMA_READ, IBV_SEND_SIGNALED, &empty, 1,
		     &r.dst, 0);
	POST_SEND_OK(r.qp0, &w);

	POLL1(r.scq0, &wc);
	EXPECT_SQ_OK(&wc, 1, IBV_WC_SEND, r.q0, T_ANY);
	POLL1(r.scq0, &wc);
	EXPECT_SQ_OK(&wc, 2, IBV_WC_SEND, r.q0, T_ANY);
	POLL1(r.scq0, &wc);
	EXPECT_SQ_OK(&wc, 3, IBV_WC_RDMA_WRITE, r.q0, T_ANY);
	POLL1(r.scq0, &wc);
	EXPECT_SQ_OK(&wc, 4, IBV_WC_RDMA_WRITE, r.q0, T_ANY);
	POLL1(r.scq0, &wc);
	EXPECT_SQ_OK(&wc, 5, IBV_WC_RDMA_READ, r.q0, 0);
	POLL1(r.rcq1, &wc);
	EXPECT_WC_OK(&wc, 11, IBV_WC_RECV, r.q1, 0, 0, T_ANY, r.q0);
	POLL1(r.rcq1, &wc);
	EXPECT_WC_OK(&wc, 12, IBV_WC_RECV, r.q1, 0, IBV_WC_WITH_IMM,
		     htonl(0xfeed), r.q0);
	POLL1(r.rcq1, &wc);
	EXPECT_WC_OK(&wc, 14, IBV_WC_RECV_RDMA_WITH_IMM, r.q1, 0,
		     IBV_WC_WITH_IMM, htonl(0xbeef), r.q0);
	EXPECT_EMPTY(r.rcq1, CONF_QUIET);
	CHECK_FILL(r.rbuf.p, CONF_CANARY, 256);
	CHECK_FILL(r.dst.p, CONF_CANARY, 256);
	conf_rig_close(&r);
}

/*
 * wr.atomic "compare_add: Compare operand", "swap: Swap operand" (and
 * ibv_wr_post(3): "If the remote 64 bit memory location ... equals compare
 * then set it to swap", "Add add to the 64 bit memory location"): the
 * original value lands in the SGE either way.
 */
static void case_atomic_operands(struct conf *c)
{
	struct conf_rig r;
	struct ibv_send_wr w;
	struct ibv_sge sg = { 0 };
	struct ibv_wc wc;

	conf_rig_open(c, &r, NULL);
	conf_put64(r.dst.p + 64, 0x1111222233334444ull);
	sg = t_sge(&r.loc, 0, 8);
	/* Not equal: memory unchanged. */
	conf_atomic_wr(&w, 1, IBV_WR_ATOMIC_CMP_AND_SWP, IBV_SEND_SIGNALED,
		       &sg, &r.dst, 64, 0x1111222233334445ull, 0xabcdull);
	POST_SEND_OK(r.qp0, &w);
	POLL1(r.scq0, &wc);
	EXPECT_SQ_OK(&wc, 1, IBV_WC_COMP_SWAP, r.q0, 8);
	CHECK_EQ(conf_get64(r.loc.p), 0x1111222233334444ull);
	CHECK_EQ(conf_get64(r.dst.p + 64), 0x1111222233334444ull);
	/* Equal: swapped. */
	conf_atomic_wr(&w, 2, IBV_WR_ATOMIC_CMP_AND_SWP, IBV_SEND_SIGNALED,
		       &sg, &r.dst, 64, 0x1111222233334444ull,
		       0xfedcba9876543210ull);
	POST_SEND_OK(r.qp0, &w);
	POLL1(r.scq0, &wc);
	EXPECT_SQ_OK(&wc, 2, IBV_WC_COMP_SWAP, r.q0, 8);
	CHECK_EQ(conf_get64(r.loc.p), 0x1111222233334444ull);
	CHECK_EQ(conf_get64(r.dst.p + 64), 0xfedcba9876543210ull);
	/* Fetch and add, 64-bit wrap. */
	conf_put64(r.dst.p + 128, 0xffffffffffffffffull);
	conf_atomic_wr(&w, 3, IBV_WR_ATOMIC_FETCH_AND_ADD, IBV_SEND_SIGNALED,
		       &sg, &r.dst, 128, 2, 0);
	POST_SEND_OK(r.qp0, &w);
	POLL1(r.scq0, &wc);
	EXPECT_SQ_OK(&wc, 3, IBV_WC_FETCH_ADD, r.q0, 8);
	CHECK_EQ(conf_get64(r.loc.p), 0xffffffffffffffffull);
	CHECK_EQ(conf_get64(r.dst.p + 128), 1);
	CHECK_FILL(r.dst.p + 136, CONF_CANARY, 64);
	conf_rig_close(&r);
}

/*
 * wr.ud "ah", "remote_qpn: QP number of the destination QP", "remote_qkey:
 * Q_Key number of the destination QP": the message reaches the QP named
 * (of two UD QPs on the destination); one with a Q_Key the destination QP
 * does not have is dropped (the UD sender still completes); a remote_qkey
 * with bit 31 set means the sending QP's own Q_Key (IBA 10.2.5).
 */
static void case_ud_remote_qpn_and_qkey(struct conf *c)
{
	struct t_pair_cfg cfg;
	struct conf_rig r;
	struct ibv_qp *qpb;
	struct ibv_cq *rcqb;
	struct ibv_send_wr w;
	struct ibv_recv_wr rw;
	struct ibv_sge sg, rsg;
	struct ibv_wc wc;
	struct t_qp_caps caps = { .max_send_wr = 4, .max_recv_wr = 4,
				  .max_send_sge = 1, .max_recv_sge = 1 };
	int i;

	conf_rig_cfg(c, &cfg);
	cfg.qp_type = IBV_QPT_UD;
	conf_rig_open(c, &r, &cfg);
	rcqb = t_create_cq(r.p.s[1].ctx, 16);
	qpb = t_create_qp(r.p.s[1].pd, rcqb, rcqb, IBV_QPT_UD, 0, &caps, NULL);
	t_ud_qp_to_rts(qpb, CONF_QKEY, 0);
	/* A receive on each destination QP. */
	for (i = 0; i < 2; i++) {
		rsg = t_sge(&r.rbuf, 1024 * (size_t)i, 1024);
		conf_recv_wr(&rw, 50 + (uint64_t)i, &rsg, 1);
		POST_RECV_OK(i ? qpb : r.qp1, &rw);
	}
	sg = t_sge(&r.src, 0, 100);
	conf_send_wr(&w, 1, IBV_WR_SEND, IBV_SEND_SIGNALED, &sg, 1);
	w.wr.ud.ah = r.p.s[0].ah;
	w.wr.ud.remote_qpn = qpb->qp_num;
	w.wr.ud.remote_qkey = CONF_QKEY;
	POST_SEND_OK(r.qp0, &w);
	POLL1(r.scq0, &wc);
	EXPECT_SQ_OK(&wc, 1, IBV_WC_SEND, r.q0, T_ANY);
	POLL1(rcqb, &wc);
	EXPECT_WC_OK(&wc, 51, IBV_WC_RECV, qpb->qp_num, 140, IBV_WC_GRH,
		     T_ANY, r.q0);
	CHECK_MEM(r.rbuf.p + 1024 + 40, r.src.p, 100);
	EXPECT_EMPTY(r.rcq1, CONF_QUIET);

	/* Wrong Q_Key: sent, never received. */
	w.wr_id = 2;
	w.wr.ud.remote_qpn = r.q1;
	w.wr.ud.remote_qkey = CONF_QKEY + 1;
	POST_SEND_OK(r.qp0, &w);
	POLL1(r.scq0, &wc);
	EXPECT_SQ_OK(&wc, 2, IBV_WC_SEND, r.q0, T_ANY);
	EXPECT_EMPTY(r.rcq1, CONF_QUIET);
	CHECK_FILL(r.rbuf.p, CONF_CANARY, 1024);

	/* Bit 31: the sender's own Q_Key (CONF_QKEY), which r.qp1 has. */
	w.wr_id = 3;
	w.wr.ud.remote_qkey = 0x80000000u;
	POST_SEND_OK(r.qp0, &w);
	POLL1(r.scq0, &wc);
	EXPECT_SQ_OK(&wc, 3, IBV_WC_SEND, r.q0, T_ANY);
	POLL1(r.rcq1, &wc);
	EXPECT_WC_OK(&wc, 50, IBV_WC_RECV, r.q1, 140, IBV_WC_GRH, T_ANY, r.q0);
	CHECK_MEM(r.rbuf.p + 40, r.src.p, 100);
	CHECK_OK(ibv_destroy_qp(qpb));
	CHECK_OK(ibv_destroy_cq(rcqb));
	conf_rig_close(&r);
}

/*
 * struct ibv_sge "addr: Start address of the local memory buffer or number
 * of bytes from the start of the MR for MRs which are IBV_ZERO_BASED": an
 * SGE of a zero-based MR holds an offset, and so does the remote address
 * of a WRITE/READ into a zero-based remote MR.
 */
static void case_sge_addr_is_offset_in_zero_based_mr(struct conf *c)
{
	const unsigned int acc = CONF_ACC_ALL | IBV_ACCESS_ZERO_BASED;
	struct conf_rig r;
	struct ibv_mr *lz, *rz;
	struct ibv_send_wr w;
	struct ibv_sge sg;
	struct ibv_wc wc;

	conf_rig_open(c, &r, NULL);
	lz = CHECK_PTR(ibv_reg_mr(r.p.s[0].pd, r.src.p + 4096, 8192, (int)acc));
	rz = CHECK_PTR(ibv_reg_mr(r.p.s[1].pd, r.dst.p + 8192, 8192, (int)acc));
	/* 200 bytes from src + 4096 + 100, to dst + 8192 + 300. */
	sg.addr = 100;
	sg.length = 200;
	sg.lkey = lz->lkey;
	conf_send_wr(&w, 1, IBV_WR_RDMA_WRITE, IBV_SEND_SIGNALED, &sg, 1);
	w.wr.rdma.remote_addr = 300;
	w.wr.rdma.rkey = rz->rkey;
	POST_SEND_OK(r.qp0, &w);
	POLL1(r.scq0, &wc);
	EXPECT_SQ_OK(&wc, 1, IBV_WC_RDMA_WRITE, r.q0, T_ANY);
	CHECK_FILL(r.dst.p + 8192, CONF_CANARY, 300);
	CHECK_MEM(r.dst.p + 8192 + 300, r.src.p + 4096 + 100, 200);
	CHECK_FILL(r.dst.p + 8192 + 500, CONF_CANARY, 100);
	/* READ it back to offset 1000 of the local zero-based MR. */
	sg.addr = 1000;
	conf_send_wr(&w, 2, IBV_WR_RDMA_READ, IBV_SEND_SIGNALED, &sg, 1);
	w.wr.rdma.remote_addr = 300;
	w.wr.rdma.rkey = rz->rkey;
	POST_SEND_OK(r.qp0, &w);
	POLL1(r.scq0, &wc);
	EXPECT_SQ_OK(&wc, 2, IBV_WC_RDMA_READ, r.q0, 200);
	CHECK_MEM(r.src.p + 4096 + 1000, r.src.p + 4096 + 100, 200);
	CHECK_OK(ibv_dereg_mr(lz));
	CHECK_OK(ibv_dereg_mr(rz));
	conf_rig_close(&r);
}

/* ------------------------------------------------------------------------ */
/* send_flags                                                               */

/*
 * IBV_SEND_FENCE "Set the fence indicator": a WR with the fence starts only
 * once the READs and atomics before it completed. A 48 KiB READ fills a
 * buffer that a fenced WRITE then sends on (the WRITE carries the read
 * bytes), and a fenced SEND carries the original value a FETCH_AND_ADD
 * just returned.
 */
static void case_fence_waits_for_prior_read_and_atomic(struct conf *c)
{
	struct conf_rig r;
	struct ibv_send_wr w[2];
	struct ibv_sge sg[2];
	struct ibv_wc wc[2];
	const uint32_t len = 48 * 1024;
	uint8_t *exp;

	conf_rig_open(c, &r, NULL);
	t_fill(r.dst.p, len, 0xf00d);
	memset(r.loc.p, 0, CONF_BUF);
	/* The WRITE's target overlaps the READ's source: compare with a copy
	 * of what the READ returns, not with the target buffer itself. */
	exp = CHECK_PTR(malloc(len));
	memcpy(exp, r.dst.p, len);
	sg[0] = t_sge(&r.loc, 0, len);
	conf_rdma_wr(&w[0], 1, IBV_WR_RDMA_READ, IBV_SEND_SIGNALED, &sg[0], 1,
		     &r.dst, 0);
	sg[1] = t_sge(&r.loc, 0, len);
	conf_rdma_wr(&w[1], 2, IBV_WR_RDMA_WRITE,
		     IBV_SEND_SIGNALED | IBV_SEND_FENCE, &sg[1], 1, &r.dst,
		     CONF_BUF - len);
	w[0].next = &w[1];
	POST_SEND_OK(r.qp0, w);
	POLL(r.scq0, 2, wc);
	EXPECT_SQ_OK(&wc[0], 1, IBV_WC_RDMA_READ, r.q0, len);
	EXPECT_SQ_OK(&wc[1], 2, IBV_WC_RDMA_WRITE, r.q0, T_ANY);
	CHECK_MEM(r.loc.p, exp, len);
	CHECK_MEM(r.dst.p + CONF_BUF - len, exp, len);
	free(exp);

	/* FETCH_AND_ADD, then a fenced SEND of its result. */
	conf_put64(r.dst.p + 8, 0x5555aaaa5555aaaaull);
	memset(r.loc.p, 0, 8);
	post_recv_at(&r, 9, 0, 64);
	sg[0] = t_sge(&r.loc, 0, 8);
	conf_atomic_wr(&w[0], 3, IBV_WR_ATOMIC_FETCH_AND_ADD, IBV_SEND_SIGNALED,
		       &sg[0], &r.dst, 8, 1, 0);
	sg[1] = t_sge(&r.loc, 0, 8);
	conf_send_wr(&w[1], 4, IBV_WR_SEND, IBV_SEND_SIGNALED | IBV_SEND_FENCE,
		     &sg[1], 1);
	w[0].next = &w[1];
	POST_SEND_OK(r.qp0, w);
	POLL(r.scq0, 2, wc);
	EXPECT_SQ_OK(&wc[0], 3, IBV_WC_FETCH_ADD, r.q0, 8);
	EXPECT_SQ_OK(&wc[1], 4, IBV_WC_SEND, r.q0, T_ANY);
	POLL1(r.rcq1, wc);
	EXPECT_WC_OK(&wc[0], 9, IBV_WC_RECV, r.q1, 8, 0, T_ANY, r.q0);
	CHECK_EQ(conf_get64(r.rbuf.p), 0x5555aaaa5555aaaaull);
	CHECK_EQ(conf_get64(r.dst.p + 8), 0x5555aaaa5555aaabull);
	conf_rig_close(&r);
}

/*
 * IBV_SEND_SIGNALED "Set the completion notification indicator. Relevant
 * only if QP was created with sq_sig_all=0": of five WRITEs only the two
 * signaled ones complete, although all five execute.
 */
static void case_signaled_flag_with_sq_sig_all_0(struct conf *c)
{
	static const unsigned int fl[5] = { 0, IBV_SEND_SIGNALED, 0, 0,
					    IBV_SEND_SIGNALED };
	struct conf_rig r;
	struct ibv_send_wr w[5];
	struct ibv_sge sg[5];
	struct ibv_wc wc[2];
	int i;

	conf_rig_open(c, &r, NULL);
	for (i = 0; i < 5; i++) {
		write_wr(&r, &w[i], &sg[i], 1 + (uint64_t)i, 64 * (size_t)i, 64,
			 fl[i]);
		w[i].next = i < 4 ? &w[i + 1] : NULL;
	}
	POST_SEND_OK(r.qp0, w);
	POLL(r.scq0, 2, wc);
	EXPECT_SQ_OK(&wc[0], 2, IBV_WC_RDMA_WRITE, r.q0, T_ANY);
	EXPECT_SQ_OK(&wc[1], 5, IBV_WC_RDMA_WRITE, r.q0, T_ANY);
	EXPECT_EMPTY(r.scq0, CONF_QUIET);
	CHECK_MEM(r.dst.p, r.src.p, 5 * 64);
	conf_rig_close(&r);
}

/* sq_sig_all = 1: "Relevant only if QP was created with sq_sig_all=0" -
 * with sq_sig_all set every WR completes, IBV_SEND_SIGNALED or not. */
static void case_sq_sig_all_signals_every_wr(struct conf *c)
{
	struct t_pair_cfg cfg;
	struct conf_rig r;
	struct ibv_send_wr w[3];
	struct ibv_sge sg[3];
	struct ibv_wc wc[3];
	int i;

	conf_rig_cfg(c, &cfg);
	cfg.caps.sq_sig_all = 1;
	conf_rig_open(c, &r, &cfg);
	for (i = 0; i < 3; i++) {
		write_wr(&r, &w[i], &sg[i], 1 + (uint64_t)i, 64 * (size_t)i, 64,
			 0);
		w[i].next = i < 2 ? &w[i + 1] : NULL;
	}
	POST_SEND_OK(r.qp0, w);
	POLL(r.scq0, 3, wc);
	for (i = 0; i < 3; i++)
		EXPECT_SQ_OK(&wc[i], 1 + (uint64_t)i, IBV_WC_RDMA_WRITE, r.q0,
			     T_ANY);
	EXPECT_EMPTY(r.scq0, CONF_QUIET);
	CHECK_MEM(r.dst.p, r.src.p, 3 * 64);
	conf_rig_close(&r);
}

/*
 * IBV_SEND_INLINE "Valid only for Send and RDMA Write": SEND,
 * SEND_WITH_IMM, RDMA_WRITE and RDMA_WRITE_WITH_IMM take it and deliver the
 * bytes (the receiver sees an ordinary message); READ, the atomics,
 * LOCAL_INV and BIND_MW are refused with EINVAL.
 */
static void case_inline_only_send_and_rdma_write(struct conf *c)
{
	static const enum ibv_wr_opcode bad[] = {
		IBV_WR_RDMA_READ, IBV_WR_ATOMIC_CMP_AND_SWP,
		IBV_WR_ATOMIC_FETCH_AND_ADD, IBV_WR_LOCAL_INV, IBV_WR_BIND_MW,
	};
	static const enum ibv_wr_opcode good[] = {
		IBV_WR_SEND, IBV_WR_SEND_WITH_IMM, IBV_WR_RDMA_WRITE,
		IBV_WR_RDMA_WRITE_WITH_IMM,
	};
	struct conf_rig r;
	struct ibv_send_wr w;
	struct ibv_sge sg;
	struct ibv_wc wc;
	size_t i;

	conf_rig_open(c, &r, NULL);
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		sg = t_sge(&r.loc, 0, 8);
		conf_atomic_wr(&w, 90 + i, bad[i],
			       IBV_SEND_SIGNALED | IBV_SEND_INLINE, &sg, &r.dst,
			       0, 1, 2);
		EXPECT_POST_SEND(r.qp0, &w, EINVAL, &w);
	}
	for (i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
		int imm = good[i] == IBV_WR_SEND_WITH_IMM ||
			  good[i] == IBV_WR_RDMA_WRITE_WITH_IMM;
		int recv = good[i] != IBV_WR_RDMA_WRITE;

		if (recv)
			post_recv_at(&r, 10 + i, 256 * i, 256);
		sg = t_sge(&r.src, 100 * i, 20);
		conf_rdma_wr(&w, 1 + i, good[i],
			     IBV_SEND_SIGNALED | IBV_SEND_INLINE, &sg, 1, &r.dst,
			     100 * i);
		w.imm_data = htonl(0x100 + (uint32_t)i);
		POST_SEND_OK(r.qp0, &w);
		POLL1(r.scq0, &wc);
		EXPECT_SQ_OK(&wc, 1 + i, good[i] == IBV_WR_SEND ||
			     good[i] == IBV_WR_SEND_WITH_IMM ? IBV_WC_SEND :
			     IBV_WC_RDMA_WRITE, r.q0, T_ANY);
		if (recv) {
			int send = good[i] != IBV_WR_RDMA_WRITE_WITH_IMM;

			POLL1(r.rcq1, &wc);
			EXPECT_WC_OK(&wc, 10 + i, send ? IBV_WC_RECV :
				     IBV_WC_RECV_RDMA_WITH_IMM, r.q1, 20,
				     imm ? IBV_WC_WITH_IMM : 0,
				     htonl(0x100 + (uint32_t)i), r.q0);
		}
		if (good[i] == IBV_WR_SEND || good[i] == IBV_WR_SEND_WITH_IMM)
			CHECK_MEM(r.rbuf.p + 256 * i, r.src.p + 100 * i, 20);
		else
			CHECK_MEM(r.dst.p + 100 * i, r.src.p + 100 * i, 20);
	}
	EXPECT_EMPTY(r.scq0, CONF_QUIET);
	conf_rig_close(&r);
}

/*
 * IBV_SEND_INLINE "The L_Key will not be checked" and "if the
 * IBV_SEND_INLINE flag was set, the buffer can be reused immediately after
 * the call returns": inline data from memory that is not registered, with
 * a made-up lkey, are sent; the buffer is overwritten right after
 * ibv_post_send() returns and the receiver still gets the old bytes.
 */
static void case_inline_lkey_not_checked_buffer_reusable_at_return(
	struct conf *c)
{
	struct conf_rig r;
	struct ibv_send_wr w[2];
	struct ibv_sge sg[2];
	struct ibv_wc wc;
	uint8_t *heap = malloc(256), orig[256];
	struct t_pair_cfg cfg;

	CHECK(heap != NULL);
	/* Inline room is asked for at creation (ibv_create_qp(3)
	 * cap.max_inline_data); the QP gets at least that much. */
	conf_rig_cfg(c, &cfg);
	cfg.caps.max_inline_data = 128;
	conf_rig_open(c, &r, &cfg);
	CHECK(r.p.s[0].cap.max_inline_data >= 128);
	t_fill(heap, 256, 0x1a1a);
	memcpy(orig, heap, 256);
	post_recv_at(&r, 5, 0, 512);
	sg[0].addr = (uintptr_t)heap;
	sg[0].length = 100;
	sg[0].lkey = 0xdeadbeef;
	conf_send_wr(&w[0], 1, IBV_WR_SEND, IBV_SEND_SIGNALED | IBV_SEND_INLINE,
		     &sg[0], 1);
	sg[1].addr = (uintptr_t)(heap + 100);
	sg[1].length = 28;
	sg[1].lkey = 0;
	conf_send_wr(&w[1], 2, IBV_WR_RDMA_WRITE,
		     IBV_SEND_SIGNALED | IBV_SEND_INLINE, &sg[1], 1);
	w[1].wr.rdma.remote_addr = t_addr(&r.dst, 1000);
	w[1].wr.rdma.rkey = r.dst.mr->rkey;
	w[0].next = &w[1];
	POST_SEND_OK(r.qp0, w);
	memset(heap, 0x00, 256);
	free(heap);
	POLL1(r.scq0, &wc);
	EXPECT_SQ_OK(&wc, 1, IBV_WC_SEND, r.q0, T_ANY);
	POLL1(r.scq0, &wc);
	EXPECT_SQ_OK(&wc, 2, IBV_WC_RDMA_WRITE, r.q0, T_ANY);
	POLL1(r.rcq1, &wc);
	EXPECT_WC_OK(&wc, 5, IBV_WC_RECV, r.q1, 100, 0, T_ANY, r.q0);
	CHECK_MEM(r.rbuf.p, orig, 100);
	CHECK_MEM(r.dst.p + 1000, orig + 100, 28);
	conf_rig_close(&r);
}

/*
 * IBV_SEND_IP_CSUM "Valid only when device_cap_flags in device_attr
 * indicates current QP is supported by checksum offload": the device does
 * not report IBV_DEVICE_UD_IP_CSUM, so the flag is refused (EINVAL) on a
 * UD SEND and an RC SEND.
 */
static void case_ip_csum_only_with_device_cap(struct conf *c)
{
	struct t_pair_cfg cfg;
	struct ibv_device_attr da;
	struct conf_rig r;
	struct ibv_send_wr w;
	struct ibv_sge sg;
	int ud;

	for (ud = 0; ud < 2; ud++) {
		conf_rig_cfg(c, &cfg);
		cfg.qp_type = ud ? IBV_QPT_UD : IBV_QPT_RC;
		conf_rig_open(c, &r, &cfg);
		CHECK_OK(ibv_query_device(r.p.s[0].ctx, &da));
		CHECK(!(da.device_cap_flags & IBV_DEVICE_UD_IP_CSUM));
		sg = t_sge(&r.src, 0, 16);
		conf_send_wr(&w, 1, IBV_WR_SEND,
			     IBV_SEND_SIGNALED | IBV_SEND_IP_CSUM, &sg, 1);
		w.wr.ud.ah = r.p.s[0].ah;
		w.wr.ud.remote_qpn = r.q1;
		w.wr.ud.remote_qkey = CONF_QKEY;
		EXPECT_POST_SEND(r.qp0, &w, EINVAL, &w);
		EXPECT_EMPTY(r.scq0, CONF_QUIET);
		conf_rig_close(&r);
	}
}

/* ------------------------------------------------------------------------ */
/* Notes of the page                                                        */

/*
 * "The buffers used by a WR can only be safely reused after WR the request
 * is fully executed and a work completion has been retrieved": when the
 * completion is polled the WR is done - a READ's bytes are in the local
 * buffer, an RC WRITE's bytes in the remote one, a SEND's in the receive
 * buffer - at the first poll that returns it.
 */
static void case_buffers_done_when_completion_retrieved(struct conf *c)
{
	const uint32_t len = 32 * 1024;
	struct conf_rig r;
	struct ibv_send_wr w;
	struct ibv_sge sg;
	struct ibv_wc wc;

	conf_rig_open(c, &r, NULL);
	t_fill(r.dst.p + len, len, 0xabc);
	sg = t_sge(&r.loc, 0, len);
	conf_rdma_wr(&w, 1, IBV_WR_RDMA_READ, IBV_SEND_SIGNALED, &sg, 1,
		     &r.dst, len);
	POST_SEND_OK(r.qp0, &w);
	POLL1(r.scq0, &wc);
	CHECK_MEM(r.loc.p, r.dst.p + len, len);
	EXPECT_SQ_OK(&wc, 1, IBV_WC_RDMA_READ, r.q0, len);

	write_wr(&r, &w, &sg, 2, 0, len, IBV_SEND_SIGNALED);
	POST_SEND_OK(r.qp0, &w);
	POLL1(r.scq0, &wc);
	CHECK_MEM(r.dst.p, r.src.p, len);
	EXPECT_SQ_OK(&wc, 2, IBV_WC_RDMA_WRITE, r.q0, T_ANY);

	post_recv_at(&r, 3, 0, len);
	sg = t_sge(&r.src, len, len);
	conf_send_wr(&w, 4, IBV_WR_SEND, IBV_SEND_SIGNALED, &sg, 1);
	POST_SEND_OK(r.qp0, &w);
	POLL1(r.rcq1, &wc);
	CHECK_MEM(r.rbuf.p, r.src.p + len, len);
	EXPECT_WC_OK(&wc, 3, IBV_WC_RECV, r.q1, len, 0, T_ANY, r.q0);
	POLL1(r.scq0, &wc);
	EXPECT_SQ_OK(&wc, 4, IBV_WC_SEND, r.q0, T_ANY);
	conf_rig_close(&r);
}

/*
 * The WR and its s/g list are reusable as soon as ibv_post_send() returns
 * (issue 3; libibverbs copies them into the WQE): both are overwritten
 * right after the call and the WRs still do what they said.
 */
static void case_wr_and_sg_list_reusable_at_return(struct conf *c)
{
	struct conf_rig r;
	struct ibv_send_wr w[2];
	struct ibv_sge sg[4];
	struct ibv_wc wc;
	int i;

	conf_rig_open(c, &r, NULL);
	post_recv_at(&r, 9, 0, 1024);
	for (i = 0; i < 4; i++)
		sg[i] = t_sge(&r.src, 1000 * (size_t)i, 100);
	conf_rdma_wr(&w[0], 1, IBV_WR_RDMA_WRITE, IBV_SEND_SIGNALED, sg, 4,
		     &r.dst, 0);
	conf_send_wr(&w[1], 2, IBV_WR_SEND, IBV_SEND_SIGNALED, &sg[1], 2);
	w[0].next = &w[1];
	POST_SEND_OK(r.qp0, w);
	memset(w, 0xff, sizeof(w));
	memset(sg, 0xff, sizeof(sg));
	POLL1(r.scq0, &wc);
	EXPECT_SQ_OK(&wc, 1, IBV_WC_RDMA_WRITE, r.q0, T_ANY);
	POLL1(r.scq0, &wc);
	EXPECT_SQ_OK(&wc, 2, IBV_WC_SEND, r.q0, T_ANY);
	POLL1(r.rcq1, &wc);
	EXPECT_WC_OK(&wc, 9, IBV_WC_RECV, r.q1, 200, 0, T_ANY, r.q0);
	for (i = 0; i < 4; i++)
		CHECK_MEM(r.dst.p + 100 * i, r.src.p + 1000 * i, 100);
	CHECK_MEM(r.rbuf.p, r.src.p + 1000, 100);
	CHECK_MEM(r.rbuf.p + 100, r.src.p + 2000, 100);
	conf_rig_close(&r);
}

/*
 * Send WRs are refused with an immediate error before RTS (issue 3: "RESET
 * refuses posts with an immediate error"; INIT and RTR have no send queue
 * processing either): EINVAL, bad_wr = the WR, no completion ever.
 */
static void case_send_refused_in_reset_init_rtr(struct conf *c)
{
	struct t_pair_cfg cfg;
	struct t_qp_attrs at;
	struct conf_rig r;
	struct ibv_qp *qp;
	struct ibv_cq *cq;
	struct ibv_send_wr w;
	struct ibv_sge sg;
	int st;

	conf_rig_cfg(c, &cfg);
	conf_rig_open(c, &r, &cfg);
	t_qp_default_attrs(&at);
	cq = t_create_cq(r.p.s[0].ctx, 16);
	qp = t_create_rc_qp(r.p.s[0].pd, cq, cq, &cfg.caps, NULL);
	for (st = IBV_QPS_RESET; st <= IBV_QPS_RTR; st++) {
		if (st == IBV_QPS_INIT)
			conf_qp_init(qp, CONF_ACC_ALL);
		else if (st == IBV_QPS_RTR)
			conf_qp_rtr(qp, r.qp1, 0, &at);
		write_wr(&r, &w, &sg, 1, 0, 64, IBV_SEND_SIGNALED);
		EXPECT_POST_SEND(qp, &w, EINVAL, &w);
	}
	EXPECT_EMPTY(cq, CONF_QUIET);
	CHECK_FILL(r.dst.p, CONF_CANARY, 64);
	CHECK_OK(ibv_destroy_qp(qp));
	CHECK_OK(ibv_destroy_cq(cq));
	conf_rig_close(&r);
}

/*
 * The maximum message size is 2^31 bytes (issue 3; ibv_poll_cq: "a message
 * that is greater than the maximum message size that is supported by the
 * RDMA device port"): the port says max_msg_sz = 2^31, and 4 MiB messages
 * (WRITE, READ, SEND of 4096 packets at MTU 1024) arrive whole.
 */
static void case_max_msg_sz_2g_large_message_whole(struct conf *c)
{
	const size_t len = 4u << 20;
	struct ibv_port_attr pa;
	struct conf_rig r;
	struct t_buf a, b;
	struct ibv_send_wr w;
	struct ibv_recv_wr rw;
	struct ibv_sge sg;
	struct ibv_wc wc;

	conf_rig_open(c, &r, NULL);
	CHECK_OK(ibv_query_port(r.p.s[0].ctx, T_PORT, &pa));
	CHECK_EQ(pa.max_msg_sz, 1u << 31);
	t_buf_alloc_access(&a, r.p.s[0].pd, len, CONF_ACC_ALL);
	t_buf_alloc_access(&b, r.p.s[1].pd, len, CONF_ACC_ALL);
	t_fill(a.p, len, 0x4d4d);

	sg = t_sge(&a, 0, (uint32_t)len);
	conf_rdma_wr(&w, 1, IBV_WR_RDMA_WRITE, IBV_SEND_SIGNALED, &sg, 1, &b, 0);
	POST_SEND_OK(r.qp0, &w);
	POLL1(r.scq0, &wc);
	EXPECT_SQ_OK(&wc, 1, IBV_WC_RDMA_WRITE, r.q0, T_ANY);
	CHECK_MEM(b.p, a.p, len);

	t_fill(b.p, len, 0x5e5e);
	conf_rdma_wr(&w, 2, IBV_WR_RDMA_READ, IBV_SEND_SIGNALED, &sg, 1, &b, 0);
	POST_SEND_OK(r.qp0, &w);
	POLL1(r.scq0, &wc);
	EXPECT_SQ_OK(&wc, 2, IBV_WC_RDMA_READ, r.q0, (long long)len);
	CHECK_MEM(a.p, b.p, len);

	t_fill(a.p, len, 0x6f6f);
	memset(b.p, 0, len);
	sg = t_sge(&b, 0, (uint32_t)len);
	conf_recv_wr(&rw, 4, &sg, 1);
	POST_RECV_OK(r.qp1, &rw);
	sg = t_sge(&a, 0, (uint32_t)len);
	conf_send_wr(&w, 3, IBV_WR_SEND, IBV_SEND_SIGNALED, &sg, 1);
	POST_SEND_OK(r.qp0, &w);
	POLL1(r.scq0, &wc);
	EXPECT_SQ_OK(&wc, 3, IBV_WC_SEND, r.q0, T_ANY);
	POLL1(r.rcq1, &wc);
	EXPECT_WC_OK(&wc, 4, IBV_WC_RECV, r.q1, (long long)len, 0, T_ANY, r.q0);
	CHECK_MEM(b.p, a.p, len);
	t_buf_free(&a);
	t_buf_free(&b);
	conf_rig_close(&r);
}

static const struct conf_case cases[] = {
	CONF_CASE(posts_linked_list_in_order, CONF_BOTH),
	CONF_CASE(stops_at_first_failure_returns_bad_wr, CONF_BOTH),
	CONF_CASE(enomem_when_send_queue_full, CONF_BOTH),
	CONF_CASE(einval_for_unknown_opcode_or_flag, CONF_LOCAL),
	CONF_CASE(opcode_table_rc, CONF_BOTH),
	CONF_CASE(opcode_table_uc, CONF_BOTH),
	CONF_CASE(opcode_table_ud, CONF_BOTH),
	CONF_CASE(sg_list_gathered_in_order_across_mrs, CONF_BOTH),
	CONF_CASE(zero_length_messages, CONF_BOTH),
	CONF_CASE(atomic_operands, CONF_BOTH),
	CONF_CASE(ud_remote_qpn_and_qkey, CONF_BOTH),
	CONF_CASE(sge_addr_is_offset_in_zero_based_mr, CONF_BOTH),
	CONF_CASE(fence_waits_for_prior_read_and_atomic, CONF_BOTH),
	CONF_CASE(signaled_flag_with_sq_sig_all_0, CONF_BOTH),
	CONF_CASE(sq_sig_all_signals_every_wr, CONF_BOTH),
	CONF_CASE(inline_only_send_and_rdma_write, CONF_BOTH),
	CONF_CASE(inline_lkey_not_checked_buffer_reusable_at_return, CONF_BOTH),
	CONF_CASE(ip_csum_only_with_device_cap, CONF_LOCAL),
	CONF_CASE(buffers_done_when_completion_retrieved, CONF_BOTH),
	CONF_CASE(wr_and_sg_list_reusable_at_return, CONF_BOTH),
	CONF_CASE(send_refused_in_reset_init_rtr, CONF_LOCAL),
	CONF_CASE(max_msg_sz_2g_large_message_whole, CONF_BOTH),
};

int main(int argc, char **argv)
{
	return conf_main(argc, argv, cases, sizeof(cases) / sizeof(cases[0]));
}
