// SPDX-License-Identifier: MIT
/*
 * conf_poll_cq.c - ibv_poll_cq (rdmamojo page), statement by statement:
 * the queue discipline, the return value, every field of struct ibv_wc for
 * each opcode, and each completion status of RC, UC and UD QPs raised in
 * the situation the page describes.
 *
 * Each case is named after the statement it checks (docs/verbs.md has the
 * statement -> case table). Side 0 is the requester, side 1 the responder.
 */
#define _DEFAULT_SOURCE

#include "conf.h"

#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* An error completion must come within about polls * 256 cycles (for the
 * statuses the hardware might never raise: fail fast, not at the
 * T_POLL_BOUND of POLL()). */
#define WITHIN(cq, wc, polls) poll_within(__FILE__, __LINE__, cq, wc, polls)
static void poll_within(const char *file, int line, struct ibv_cq *cq,
			struct ibv_wc *wc, long polls)
{
	long k;
	int n;

	for (k = 0; k < polls; k++) {
		n = ibv_poll_cq(cq, 1, wc);
		if (n == 1)
			return;
		if (n)
			t_fail(file, line, "ibv_poll_cq returned %d", n);
	}
	t_fail(file, line, "no completion within %ld polls", polls);
}

static void post_recv_at(struct conf_rig *r, uint64_t id, size_t off,
			 uint32_t len)
{
	struct ibv_sge sg = t_sge(&r->rbuf, off, len);
	struct ibv_recv_wr wr;

	conf_recv_wr(&wr, id, &sg, 1);
	POST_RECV_OK(r->qp1, &wr);
}

/* A signaled RDMA WRITE of @len bytes from src+off to dst+off. */
static void post_write(struct conf_rig *r, uint64_t id, size_t off,
		       uint32_t len, unsigned int flags)
{
	struct ibv_sge sg = t_sge(&r->src, off, len);
	struct ibv_send_wr w;

	conf_rdma_wr(&w, id, IBV_WR_RDMA_WRITE, flags, &sg, 1, &r->dst, off);
	POST_SEND_OK(r->qp0, &w);
}

static void post_send_op(struct conf_rig *r, uint64_t id, size_t off,
			 uint32_t len)
{
	struct ibv_sge sg = t_sge(&r->src, off, len);
	struct ibv_send_wr w;

	conf_send_wr(&w, id, IBV_WR_SEND, IBV_SEND_SIGNALED, &sg, 1);
	POST_SEND_OK(r->qp0, &w);
}

/* ------------------------------------------------------------------------ */
/* The queue                                                                */

/*
 * "ibv_poll_cq() check if Work Completions are present in a CQ and pop
 * them from the head of the CQ in the order they entered it (FIFO). After
 * a Work Completion was popped from a CQ, it can't be returned to it": 24
 * WRITEs complete in posting order, each is popped once, then the CQ is
 * empty.
 */
static void case_fifo_order_popped_once(struct conf *c)
{
	struct conf_rig r;
	struct ibv_wc wc[4];
	int i;

	conf_rig_open(c, &r, NULL);
	for (i = 0; i < 24; i++)
		post_write(&r, 1 + (uint64_t)i, 64 * (size_t)i, 64,
			   IBV_SEND_SIGNALED);
	for (i = 0; i < 24; i++) {
		POLL1(r.scq0, wc);
		EXPECT_SQ_OK(wc, 1 + (uint64_t)i, IBV_WC_RDMA_WRITE, r.q0,
			     T_ANY);
	}
	EXPECT_EMPTY(r.scq0, CONF_QUIET);
	CHECK_MEM(r.dst.p, r.src.p, 24 * 64);
	conf_rig_close(&r);
}

/*
 * Return value: "Positive: Number of Work Completions that were read from
 * the CQ ... If this value is less than num_entries it means that there
 * aren't any more Work Completions in the CQ", "0: The CQ is empty", and
 * num_entries "Maximum number of Work Completions to read": with five
 * completions in the CQ, num_entries 0 reads none, 3 reads three (wc[3] is
 * not written), then 10 reads the last two, then 0 (empty).
 */
static void case_returns_number_polled_zero_when_empty(struct conf *c)
{
	struct conf_rig r;
	struct ibv_wc wc[10], mark;
	int i;

	conf_rig_open(c, &r, NULL);
	CHECK_EQ(ibv_poll_cq(r.scq0, 4, wc), 0);
	for (i = 0; i < 5; i++)
		post_write(&r, 1 + (uint64_t)i, 64 * (size_t)i, 64,
			   IBV_SEND_SIGNALED);
	/* Let all five complete without polling r.scq0. */
	conf_idle(r.p.s[0].ctx, CONF_QUIET);
	CHECK_MEM(r.dst.p, r.src.p, 5 * 64);
	CHECK_EQ(ibv_poll_cq(r.scq0, 0, wc), 0);
	memset(wc, 0xa5, sizeof(wc));
	mark = wc[3];
	CHECK_EQ(ibv_poll_cq(r.scq0, 3, wc), 3);
	CHECK(!memcmp(&wc[3], &mark, sizeof(mark)));
	for (i = 0; i < 3; i++)
		EXPECT_SQ_OK(&wc[i], 1 + (uint64_t)i, IBV_WC_RDMA_WRITE, r.q0,
			     T_ANY);
	CHECK_EQ(ibv_poll_cq(r.scq0, 10, wc), 2);
	EXPECT_SQ_OK(&wc[0], 4, IBV_WC_RDMA_WRITE, r.q0, T_ANY);
	EXPECT_SQ_OK(&wc[1], 5, IBV_WC_RDMA_WRITE, r.q0, T_ANY);
	CHECK_EQ(ibv_poll_cq(r.scq0, 10, wc), 0);
	conf_rig_close(&r);
}

/*
 * "A Work Completion indicates that a Work Request in a Work Queue, and
 * all of the outstanding unsignaled Work Requests that posted to that Work
 * Queue ... are done": after the completion of the fifth of five WRITEs
 * (the first four unsignaled) all five are in memory, and their send queue
 * slots are free: a QP of 8 send WRs runs 10 rounds of 7 unsignaled + 1
 * signaled without ENOMEM.
 */
static void case_completion_covers_earlier_unsignaled(struct conf *c)
{
	struct t_pair_cfg cfg;
	struct conf_rig r;
	struct ibv_wc wc;
	int i, k;

	conf_rig_cfg(c, &cfg);
	cfg.caps.max_send_wr = 8;
	conf_rig_open(c, &r, &cfg);
	CHECK_EQ(r.p.s[0].cap.max_send_wr, 8);
	for (k = 0; k < 10; k++) {
		memset(r.dst.p, CONF_CANARY, 8 * 512);
		for (i = 0; i < 8; i++)
			post_write(&r, 100 * (uint64_t)k + (uint64_t)i,
				   512 * (size_t)i + 37 * (size_t)k, 512,
				   i == 7 ? IBV_SEND_SIGNALED : 0);
		POLL1(r.scq0, &wc);
		EXPECT_SQ_OK(&wc, 100 * (uint64_t)k + 7, IBV_WC_RDMA_WRITE,
			     r.q0, T_ANY);
		for (i = 0; i < 8; i++)
			CHECK_MEM(r.dst.p + 512 * i + 37 * k,
				  r.src.p + 512 * i + 37 * k, 512);
	}
	EXPECT_EMPTY(r.scq0, CONF_QUIET);
	conf_rig_close(&r);
}

/*
 * "Any Receive Requests, signaled Send Requests and Send Requests that
 * ended with an error will generate a Work Completion": an unsignaled
 * WRITE with a bad lkey completes (IBV_WC_LOC_PROT_ERR) although it asked
 * for no completion; the unsignaled good WRITE before it gives none.
 */
static void case_unsignaled_send_with_error_completes(struct conf *c)
{
	struct conf_rig r;
	struct ibv_send_wr w;
	struct ibv_sge sg;
	struct ibv_wc wc;

	conf_rig_open(c, &r, NULL);
	post_write(&r, 1, 0, 64, 0);
	sg = t_sge(&r.src, 64, 64);
	sg.lkey ^= 0x5a00;
	conf_rdma_wr(&w, 2, IBV_WR_RDMA_WRITE, 0, &sg, 1, &r.dst, 64);
	POST_SEND_OK(r.qp0, &w);
	POLL1(r.scq0, &wc);
	EXPECT_WC_ERR(&wc, 2, IBV_WC_LOC_PROT_ERR, r.q0);
	EXPECT_EMPTY(r.scq0, CONF_QUIET);
	CHECK_MEM(r.dst.p, r.src.p, 64);
	CHECK_FILL(r.dst.p + 64, CONF_CANARY, 64);
	conf_rig_close(&r);
}

/*
 * cqe + @extra SENDs of 32 bytes (QP type @type) into a receive CQ of 4
 * entries that nobody polls: IBV_EVENT_CQ_ERR for it, its QP in ERR, and
 * the cqe completions that fitted, in order, with their data.
 */
static void cq_overrun(struct conf *c, enum ibv_qp_type type, int extra)
{
	struct t_pair_cfg cfg;
	struct conf_rig r;
	struct ibv_wc wc;
	int i, n;

	conf_rig_cfg(c, &cfg);
	cfg.rcqe = 4;
	cfg.qp_type = type;
	conf_rig_open(c, &r, &cfg);
	n = r.rcq1->cqe;
	CHECK(n >= 4 && n + extra <= 64);
	for (i = 0; i < n + extra; i++)
		post_recv_at(&r, 100 + (uint64_t)i, 64 * (size_t)i, 64);
	for (i = 0; i < n + extra; i++)
		post_send_op(&r, 1 + (uint64_t)i, 64 * (size_t)i, 32);
	EXPECT_ASYNC_EVENT(r.p.s[1].ctx, IBV_EVENT_CQ_ERR, r.rcq1);
	CHECK_EQ(conf_qp_state(r.qp1), IBV_QPS_ERR);
	for (i = 0; i < n; i++) {
		POLL1(r.rcq1, &wc);
		EXPECT_WC_OK(&wc, 100 + (uint64_t)i, IBV_WC_RECV, r.q1, 32, 0,
			     T_ANY, r.q0);
		CHECK_MEM(r.rbuf.p + 64 * i, r.src.p + 64 * i, 32);
	}
	conf_rig_close(&r);
}

/*
 * "In case of an CQ overrun, the async event IBV_EVENT_CQ_ERR will be
 * triggered" and "the CQ (and all of the QPs that are associated with it)
 * will move into the error state": cqe + 2 receive completions into a
 * receive CQ that nobody polls give IBV_EVENT_CQ_ERR for it, and its QP is
 * in ERR; the completions that fitted are there.
 */
static void case_cq_overrun_async_event_cq_err(struct conf *c)
{
	cq_overrun(c, IBV_QPT_RC, 2);
}

/*
 * The same overrun with a burst behind it: cqe + 24 SENDs back to back,
 * on UC (no ACK round trip paces the sender). The completion that finds
 * the ring full waits while the CQ's doorbell record is read, and those
 * behind it fill the CQE writer's queue and then wait in the transport
 * engine (its after-place work holds the next completion).
 */
static void case_cq_overrun_burst_behind_it(struct conf *c)
{
	cq_overrun(c, IBV_QPT_UC, 24);
}

/* ------------------------------------------------------------------------ */
/* struct ibv_wc                                                            */

/* BIND_MW of @mw over the first 256 bytes of @b on side 0 (or 1). */
static void bind_mw2(struct ibv_qp *qp, struct ibv_cq *cq, struct ibv_mw *mw,
		     struct t_buf *b, uint64_t id, size_t len)
{
	struct ibv_send_wr w;
	struct ibv_wc wc;

	conf_send_wr(&w, id, IBV_WR_BIND_MW, IBV_SEND_SIGNALED, NULL, 0);
	w.bind_mw.mw = mw;
	w.bind_mw.rkey = ibv_inc_rkey(mw->rkey);
	w.bind_mw.bind_info.mr = b->mr;
	w.bind_mw.bind_info.addr = t_addr(b, 0);
	w.bind_mw.bind_info.length = len;
	w.bind_mw.bind_info.mw_access_flags = IBV_ACCESS_REMOTE_WRITE;
	POST_SEND_OK(qp, &w);
	POLL1(cq, &wc);
	EXPECT_SQ_OK(&wc, id, IBV_WC_BIND_MW, qp->qp_num, T_ANY);
	CHECK(!(wc.opcode & IBV_WC_RECV));
}

/*
 * Send queue completions, every field, for each send opcode: wr_id,
 * status SUCCESS, opcode (SEND, RDMA_WRITE, RDMA_READ, COMP_SWAP,
 * FETCH_ADD, BIND_MW, LOCAL_INV; SEND_WITH_IMM/INV are SEND, WRITE_WITH_IMM
 * is RDMA_WRITE), vendor_err 0, byte_len "Relevant in the Send Queue for
 * RDMA Read and Atomic operations" (the READ's length, 8), qp_num, no
 * wc_flags but WITH_IMM, pkey_index/slid/sl/dlid_path_bits 0, and
 * "(opcode & IBV_WC_RECV)" clear.
 */
static void case_send_queue_fields_per_opcode(struct conf *c)
{
	struct conf_rig r;
	struct ibv_send_wr w;
	struct ibv_sge sg;
	struct ibv_wc wc;
	struct ibv_mw *mw0, *mw1;
	int k;

	conf_rig_open(c, &r, NULL);
	mw0 = CHECK_PTR(ibv_alloc_mw(r.p.s[0].pd, IBV_MW_TYPE_2));
	mw1 = CHECK_PTR(ibv_alloc_mw(r.p.s[1].pd, IBV_MW_TYPE_2));
	for (k = 0; k < 4; k++)
		post_recv_at(&r, 200 + (uint64_t)k, 1024 * (size_t)k, 1024);

	post_send_op(&r, 1, 0, 10);
	POLL1(r.scq0, &wc);
	EXPECT_SQ_OK(&wc, 1, IBV_WC_SEND, r.q0, T_ANY);

	sg = t_sge(&r.src, 0, 10);
	conf_send_wr(&w, 2, IBV_WR_SEND_WITH_IMM, IBV_SEND_SIGNALED, &sg, 1);
	w.imm_data = htonl(2);
	POST_SEND_OK(r.qp0, &w);
	POLL1(r.scq0, &wc);
	EXPECT_SQ_OK(&wc, 2, IBV_WC_SEND, r.q0, T_ANY);

	post_write(&r, 3, 0, 100, IBV_SEND_SIGNALED);
	POLL1(r.scq0, &wc);
	EXPECT_SQ_OK(&wc, 3, IBV_WC_RDMA_WRITE, r.q0, T_ANY);

	conf_rdma_wr(&w, 4, IBV_WR_RDMA_WRITE_WITH_IMM, IBV_SEND_SIGNALED, &sg,
		     1, &r.dst, 200);
	w.imm_data = htonl(4);
	POST_SEND_OK(r.qp0, &w);
	POLL1(r.scq0, &wc);
	EXPECT_SQ_OK(&wc, 4, IBV_WC_RDMA_WRITE, r.q0, T_ANY);

	sg = t_sge(&r.loc, 0, 777);
	conf_rdma_wr(&w, 5, IBV_WR_RDMA_READ, IBV_SEND_SIGNALED, &sg, 1,
		     &r.dst, 0);
	POST_SEND_OK(r.qp0, &w);
	POLL1(r.scq0, &wc);
	EXPECT_SQ_OK(&wc, 5, IBV_WC_RDMA_READ, r.q0, 777);
	CHECK_MEM(r.loc.p, r.dst.p, 777);

	conf_put64(r.dst.p + 4096, 10);
	sg = t_sge(&r.loc, 1024, 8);
	conf_atomic_wr(&w, 6, IBV_WR_ATOMIC_CMP_AND_SWP, IBV_SEND_SIGNALED, &sg,
		       &r.dst, 4096, 10, 20);
	POST_SEND_OK(r.qp0, &w);
	POLL1(r.scq0, &wc);
	EXPECT_SQ_OK(&wc, 6, IBV_WC_COMP_SWAP, r.q0, 8);
	conf_atomic_wr(&w, 7, IBV_WR_ATOMIC_FETCH_AND_ADD, IBV_SEND_SIGNALED,
		       &sg, &r.dst, 4096, 5, 0);
	POST_SEND_OK(r.qp0, &w);
	POLL1(r.scq0, &wc);
	EXPECT_SQ_OK(&wc, 7, IBV_WC_FETCH_ADD, r.q0, 8);
	CHECK_EQ(conf_get64(r.loc.p + 1024), 20);
	CHECK_EQ(conf_get64(r.dst.p + 4096), 25);

	bind_mw2(r.qp1, r.scq1, mw1, &r.dst, 10, 256);
	sg = t_sge(&r.src, 0, 10);
	conf_send_wr(&w, 11, IBV_WR_SEND_WITH_INV, IBV_SEND_SIGNALED, &sg, 1);
	w.invalidate_rkey = mw1->rkey;
	POST_SEND_OK(r.qp0, &w);
	WITHIN(r.scq0, &wc, CONF_QUIET);
	EXPECT_SQ_OK(&wc, 11, IBV_WC_SEND, r.q0, T_ANY);

	bind_mw2(r.qp0, r.scq0, mw0, &r.loc, 8, 256);
	conf_send_wr(&w, 9, IBV_WR_LOCAL_INV, IBV_SEND_SIGNALED, NULL, 0);
	w.invalidate_rkey = mw0->rkey;
	POST_SEND_OK(r.qp0, &w);
	WITHIN(r.scq0, &wc, CONF_QUIET);
	EXPECT_SQ_OK(&wc, 9, IBV_WC_LOCAL_INV, r.q0, T_ANY);
	CHECK_OK(ibv_dealloc_mw(mw0));
	CHECK_OK(ibv_dealloc_mw(mw1));
	conf_rig_close(&r);
}

/*
 * Receive completions of RC and UC, every field: opcode IBV_WC_RECV for a
 * SEND (with immediate, with invalidate) and IBV_WC_RECV_RDMA_WITH_IMM for
 * an RDMA WRITE with immediate, "(opcode & IBV_WC_RECV)" set; byte_len the
 * bytes transferred, not counting the immediate data; imm_data "in network
 * order" (the bytes the sender put in imm_data, as sent), valid with
 * IBV_WC_WITH_IMM; IBV_WC_WITH_INV with the invalidated rkey; qp_num the
 * receiving QP, src_qp the sender, no IBV_WC_GRH; vendor_err, pkey_index,
 * slid, sl, dlid_path_bits 0.
 */
static void recv_fields(struct conf *c, enum ibv_qp_type type)
{
	static const uint8_t imm_bytes[4] = { 0x12, 0x34, 0x56, 0x78 };
	struct t_pair_cfg cfg;
	struct conf_rig r;
	struct ibv_send_wr w;
	struct ibv_sge sg;
	struct ibv_wc wc;
	struct ibv_mw *mw = NULL;
	uint32_t imm;
	int k;

	conf_rig_cfg(c, &cfg);
	cfg.qp_type = type;
	conf_rig_open(c, &r, &cfg);
	memcpy(&imm, imm_bytes, 4);
	for (k = 0; k < 4; k++)
		post_recv_at(&r, 100 + (uint64_t)k, 1024 * (size_t)k, 1024);

	post_send_op(&r, 1, 0, 333);
	sg = t_sge(&r.src, 1000, 17);
	conf_send_wr(&w, 2, IBV_WR_SEND_WITH_IMM, IBV_SEND_SIGNALED, &sg, 1);
	w.imm_data = imm;
	POST_SEND_OK(r.qp0, &w);
	sg = t_sge(&r.src, 2000, 555);
	conf_rdma_wr(&w, 3, IBV_WR_RDMA_WRITE_WITH_IMM, IBV_SEND_SIGNALED, &sg,
		     1, &r.dst, 8192);
	w.imm_data = htonl(0xa0b0c0d0);
	POST_SEND_OK(r.qp0, &w);

	POLL1(r.rcq1, &wc);
	EXPECT_WC_OK(&wc, 100, IBV_WC_RECV, r.q1, 333, 0, T_ANY, r.q0);
	CHECK(wc.opcode & IBV_WC_RECV);
	CHECK_MEM(r.rbuf.p, r.src.p, 333);
	POLL1(r.rcq1, &wc);
	EXPECT_WC_OK(&wc, 101, IBV_WC_RECV, r.q1, 17, IBV_WC_WITH_IMM, imm,
		     r.q0);
	CHECK(!memcmp(&wc.imm_data, imm_bytes, 4));
	CHECK_MEM(r.rbuf.p + 1024, r.src.p + 1000, 17);
	POLL1(r.rcq1, &wc);
	EXPECT_WC_OK(&wc, 102, IBV_WC_RECV_RDMA_WITH_IMM, r.q1, 555,
		     IBV_WC_WITH_IMM, htonl(0xa0b0c0d0), r.q0);
	CHECK(wc.opcode & IBV_WC_RECV);
	CHECK_EQ(ntohl(wc.imm_data), 0xa0b0c0d0);
	CHECK_MEM(r.dst.p + 8192, r.src.p + 2000, 555);
	CHECK_FILL(r.rbuf.p + 2048, CONF_CANARY, 1024);

	if (type == IBV_QPT_RC) {
		mw = CHECK_PTR(ibv_alloc_mw(r.p.s[1].pd, IBV_MW_TYPE_2));
		bind_mw2(r.qp1, r.scq1, mw, &r.dst, 1, 256);
		sg = t_sge(&r.src, 3000, 44);
		conf_send_wr(&w, 4, IBV_WR_SEND_WITH_INV, IBV_SEND_SIGNALED,
			     &sg, 1);
		w.invalidate_rkey = mw->rkey;
		POST_SEND_OK(r.qp0, &w);
		POLL1(r.rcq1, &wc);
		EXPECT_WC_OK(&wc, 103, IBV_WC_RECV, r.q1, 44, IBV_WC_WITH_INV,
			     T_ANY, r.q0);
		CHECK_EQ(wc.invalidated_rkey, mw->rkey);
		CHECK_MEM(r.rbuf.p + 3072, r.src.p + 3000, 44);
	}
	for (k = 1; k <= (type == IBV_QPT_RC ? 4 : 3); k++) {
		POLL1(r.scq0, &wc);
		CHECK_EQ(wc.wr_id, k);
		CHECK_EQ(wc.status, IBV_WC_SUCCESS);
	}
	if (mw)
		CHECK_OK(ibv_dealloc_mw(mw));
	conf_rig_close(&r);
}

static void case_receive_fields_rc(struct conf *c)
{
	recv_fields(c, IBV_QPT_RC);
}

static void case_receive_fields_uc(struct conf *c)
{
	recv_fields(c, IBV_QPT_UC);
}

/*
 * UD receive completions: byte_len "equals to the payload of the message
 * plus the 40 bytes reserved for the GRH", IBV_WC_GRH "Indicator that GRH
 * is present", src_qp "Source QP number (remote QP number) ... Relevant for
 * Receive Work Completions of a UD QP", slid, sl, dlid_path_bits 0 (RoCE:
 * no LIDs), pkey_index 0, imm_data with IBV_WC_WITH_IMM, "For a receive
 * Work Completions of a UD QP, the data start at offset 40".
 */
static void case_receive_fields_ud(struct conf *c)
{
	struct t_pair_cfg cfg;
	struct conf_rig r;
	struct ibv_send_wr w;
	struct ibv_sge sg;
	struct ibv_wc wc;
	int k;

	conf_rig_cfg(c, &cfg);
	cfg.qp_type = IBV_QPT_UD;
	conf_rig_open(c, &r, &cfg);
	for (k = 0; k < 2; k++)
		post_recv_at(&r, 100 + (uint64_t)k, 2048 * (size_t)k, 2048);
	for (k = 0; k < 2; k++) {
		sg = t_sge(&r.src, 1000 * (size_t)k, 300 + (uint32_t)k);
		conf_send_wr(&w, 1 + (uint64_t)k, k ? IBV_WR_SEND_WITH_IMM :
			     IBV_WR_SEND, IBV_SEND_SIGNALED, &sg, 1);
		w.imm_data = htonl(0x01020304);
		w.wr.ud.ah = r.p.s[0].ah;
		w.wr.ud.remote_qpn = r.q1;
		w.wr.ud.remote_qkey = CONF_QKEY;
		POST_SEND_OK(r.qp0, &w);
		POLL1(r.scq0, &wc);
		EXPECT_SQ_OK(&wc, 1 + (uint64_t)k, IBV_WC_SEND, r.q0, T_ANY);
	}
	POLL1(r.rcq1, &wc);
	EXPECT_WC_OK(&wc, 100, IBV_WC_RECV, r.q1, 340, IBV_WC_GRH, T_ANY,
		     r.q0);
	CHECK(wc.opcode & IBV_WC_RECV);
	CHECK_MEM(r.rbuf.p + 40, r.src.p, 300);
	POLL1(r.rcq1, &wc);
	EXPECT_WC_OK(&wc, 101, IBV_WC_RECV, r.q1, 341,
		     IBV_WC_GRH | IBV_WC_WITH_IMM, htonl(0x01020304), r.q0);
	CHECK_MEM(r.rbuf.p + 2048 + 40, r.src.p + 1000, 301);
	conf_rig_close(&r);
}

/*
 * qp_num "Local QP number of completed WR. Relevant for Receive Work
 * Completions that are associated with an SRQ": two QPs share an SRQ and
 * a CQ; each receive completion names the QP the message came to (and
 * src_qp its sender).
 */
static void case_qp_num_tells_srq_receives_apart(struct conf *c)
{
	struct t_qp_caps caps = { .max_send_wr = 16, .max_send_sge = 1,
				  .max_recv_wr = 16, .max_recv_sge = 1 };
	struct ibv_srq_init_attr sa;
	struct ibv_recv_wr rw, *bad;
	struct ibv_send_wr w;
	struct ibv_sge sg;
	struct ibv_srq *srq;
	struct ibv_qp *a[2], *b[2];
	struct conf_rig r;
	struct ibv_wc wc;
	int i, k;

	conf_rig_open(c, &r, NULL);
	memset(&sa, 0, sizeof(sa));
	sa.attr.max_wr = 16;
	sa.attr.max_sge = 1;
	srq = CHECK_PTR(ibv_create_srq(r.p.s[1].pd, &sa));
	for (i = 0; i < 2; i++) {
		a[i] = t_create_qp(r.p.s[0].pd, r.scq0, r.rcq0, IBV_QPT_RC, 0,
				   &caps, NULL);
		b[i] = t_create_qp_srq(r.p.s[1].pd, r.scq1, r.rcq1, srq,
				       IBV_QPT_RC, &caps);
		t_connect_qps(a[i], b[i], IBV_MTU_1024, 0x100 + (uint32_t)i,
			      0x900 + (uint32_t)i);
	}
	for (k = 0; k < 4; k++) {
		sg = t_sge(&r.rbuf, 1024 * (size_t)k, 1024);
		conf_recv_wr(&rw, 50 + (uint64_t)k, &sg, 1);
		CHECK_OK(ibv_post_srq_recv(srq, &rw, &bad));
	}
	for (k = 0; k < 4; k++) {
		i = k == 1 || k == 2;
		sg = t_sge(&r.src, 100 * (size_t)k, 100);
		conf_send_wr(&w, 1 + (uint64_t)k, IBV_WR_SEND,
			     IBV_SEND_SIGNALED, &sg, 1);
		POST_SEND_OK(a[i], &w);
		POLL1(r.scq0, &wc);
		EXPECT_SQ_OK(&wc, 1 + (uint64_t)k, IBV_WC_SEND, a[i]->qp_num,
			     T_ANY);
		POLL1(r.rcq1, &wc);
		EXPECT_WC_OK(&wc, 50 + (uint64_t)k, IBV_WC_RECV, b[i]->qp_num,
			     100, 0, T_ANY, a[i]->qp_num);
	}
	for (i = 0; i < 2; i++) {
		CHECK_OK(ibv_destroy_qp(a[i]));
		CHECK_OK(ibv_destroy_qp(b[i]));
	}
	CHECK_OK(ibv_destroy_srq(srq));
	conf_rig_close(&r);
}

/*
 * vendor_err "Vendor specific error which provides more information if the
 * completion ended with error ... a hint to the RDMA device's vendor about
 * the reason of the failure": a failed (not flushed) completion carries a
 * vendor_err other than 0, and two different reasons (bad lkey, receive
 * too small) carry different ones; the fields promised on error (wr_id,
 * status, qp_num) are right.
 */
static void case_vendor_err_hints_reason_of_error(struct conf *c)
{
	struct conf_rig r;
	struct ibv_send_wr w;
	struct ibv_sge sg;
	struct ibv_wc wc;
	uint32_t v1;

	conf_rig_open(c, &r, NULL);
	sg = t_sge(&r.src, 0, 64);
	sg.lkey ^= 0x5a00;
	conf_rdma_wr(&w, 1, IBV_WR_RDMA_WRITE, IBV_SEND_SIGNALED, &sg, 1,
		     &r.dst, 0);
	POST_SEND_OK(r.qp0, &w);
	POLL1(r.scq0, &wc);
	EXPECT_WC_ERR(&wc, 1, IBV_WC_LOC_PROT_ERR, r.q0);
	v1 = wc.vendor_err;
	conf_rig_close(&r);

	conf_rig_open(c, &r, NULL);
	post_recv_at(&r, 2, 0, 16);
	post_send_op(&r, 3, 0, 100);
	POLL1(r.rcq1, &wc);
	EXPECT_WC_ERR(&wc, 2, IBV_WC_LOC_LEN_ERR, r.q1);
	CHECKF(v1 && wc.vendor_err && v1 != wc.vendor_err,
	       "vendor_err 0x%x (LOC_PROT_ERR), 0x%x (LOC_LEN_ERR)", v1,
	       wc.vendor_err);
	/* Ours (docs/formats.md): unit in bits 7:5, detail in 4:0 - the
	 * requester's WQE check, and the responder's receive. */
	CHECK_EQ(v1, 0x20u | IBV_WC_LOC_PROT_ERR);
	CHECK_EQ(wc.vendor_err, 0x80u | IBV_WC_LOC_LEN_ERR);
	conf_rig_close(&r);
}

/* ------------------------------------------------------------------------ */
/* status                                                                   */

/*
 * IBV_WC_LOC_LEN_ERR "this happens if a Work Request that was posted in a
 * local Send Queue contains a message that is greater than the maximum
 * message size that is supported by the RDMA device port ... or an Atomic
 * operation which its size is different than 8 bytes was sent. This also
 * may happen if a Work Request that was posted in a local Receive Queue
 * isn't big enough for holding the incoming message": a UD SEND of one
 * byte more than the path MTU (a UD message is one packet), an atomic with
 * a 4-byte SGE, and a 200-byte SEND into a 100-byte receive.
 */
static void case_status_loc_len_err(struct conf *c)
{
	struct t_pair_cfg cfg;
	struct conf_rig r;
	struct ibv_send_wr w;
	struct ibv_sge sg;
	struct ibv_wc wc;

	conf_rig_cfg(c, &cfg);
	cfg.qp_type = IBV_QPT_UD;
	conf_rig_open(c, &r, &cfg);
	post_recv_at(&r, 100, 0, 4096);
	sg = t_sge(&r.src, 0, 1025);
	conf_send_wr(&w, 1, IBV_WR_SEND, IBV_SEND_SIGNALED, &sg, 1);
	w.wr.ud.ah = r.p.s[0].ah;
	w.wr.ud.remote_qpn = r.q1;
	w.wr.ud.remote_qkey = CONF_QKEY;
	POST_SEND_OK(r.qp0, &w);
	WITHIN(r.scq0, &wc, CONF_QUIET);
	EXPECT_WC_ERR(&wc, 1, IBV_WC_LOC_LEN_ERR, r.q0);
	EXPECT_EMPTY(r.rcq1, CONF_QUIET);
	conf_rig_close(&r);

	conf_rig_open(c, &r, NULL);
	conf_put64(r.dst.p, 77);
	sg = t_sge(&r.loc, 0, 4);
	conf_atomic_wr(&w, 2, IBV_WR_ATOMIC_FETCH_AND_ADD, IBV_SEND_SIGNALED,
		       &sg, &r.dst, 0, 1, 0);
	POST_SEND_OK(r.qp0, &w);
	WITHIN(r.scq0, &wc, CONF_QUIET);
	EXPECT_WC_ERR(&wc, 2, IBV_WC_LOC_LEN_ERR, r.q0);
	CHECK_EQ(conf_get64(r.dst.p), 77);
	conf_rig_close(&r);

	conf_rig_open(c, &r, NULL);
	post_recv_at(&r, 3, 0, 100);
	post_send_op(&r, 4, 0, 200);
	POLL1(r.rcq1, &wc);
	EXPECT_WC_ERR(&wc, 3, IBV_WC_LOC_LEN_ERR, r.q1);
	CHECK_FILL(r.rbuf.p + 100, CONF_CANARY, 1024);
	conf_rig_close(&r);
}

/*
 * IBV_WC_LOC_QP_OP_ERR "an internal QP consistency error was detected
 * while processing this Work Request". The page's examples (an AH of
 * another PD, an opcode the transport does not have) are refused at post
 * time with EINVAL (conf_post_send); the hardware's QP consistency check:
 * an RDMA READ on a QP whose max_rd_atomic is 0 (it may have no READ
 * outstanding) completes with IBV_WC_LOC_QP_OP_ERR, nothing is read.
 */
static void case_status_loc_qp_op_err(struct conf *c)
{
	struct t_pair_cfg cfg;
	struct conf_rig r;
	struct ibv_send_wr w;
	struct ibv_sge sg;
	struct ibv_wc wc;

	conf_rig_cfg(c, &cfg);
	cfg.attrs[0].max_rd_atomic = 0;
	conf_rig_open(c, &r, &cfg);
	sg = t_sge(&r.loc, 0, 64);
	conf_rdma_wr(&w, 1, IBV_WR_RDMA_READ, IBV_SEND_SIGNALED, &sg, 1,
		     &r.dst, 0);
	POST_SEND_OK(r.qp0, &w);
	WITHIN(r.scq0, &wc, CONF_QUIET);
	EXPECT_WC_ERR(&wc, 1, IBV_WC_LOC_QP_OP_ERR, r.q0);
	CHECK_FILL(r.loc.p, 0, 64);
	conf_rig_close(&r);
}

/*
 * IBV_WC_LOC_PROT_ERR "the locally posted Work Request's buffers in the
 * scatter/gather list does not reference a Memory Region that is valid for
 * the requested operation": an SGE with an lkey no MR has, an SGE running
 * past the end of its MR, and an RDMA READ into an MR registered without
 * IBV_ACCESS_LOCAL_WRITE. Nothing is sent or written.
 */
static void case_status_loc_prot_err(struct conf *c)
{
	struct conf_rig r;
	struct ibv_send_wr w;
	struct ibv_sge sg;
	struct ibv_wc wc;
	struct ibv_mr *ro;

	conf_rig_open(c, &r, NULL);
	sg = t_sge(&r.src, 0, 64);
	sg.lkey ^= 0x5a00;
	conf_rdma_wr(&w, 1, IBV_WR_RDMA_WRITE, IBV_SEND_SIGNALED, &sg, 1,
		     &r.dst, 0);
	POST_SEND_OK(r.qp0, &w);
	POLL1(r.scq0, &wc);
	EXPECT_WC_ERR(&wc, 1, IBV_WC_LOC_PROT_ERR, r.q0);
	CHECK_FILL(r.dst.p, CONF_CANARY, 64);
	conf_rig_close(&r);

	conf_rig_open(c, &r, NULL);
	sg = t_sge(&r.src, CONF_BUF - 32, 64);
	conf_rdma_wr(&w, 2, IBV_WR_RDMA_WRITE, IBV_SEND_SIGNALED, &sg, 1,
		     &r.dst, 0);
	POST_SEND_OK(r.qp0, &w);
	POLL1(r.scq0, &wc);
	EXPECT_WC_ERR(&wc, 2, IBV_WC_LOC_PROT_ERR, r.q0);
	CHECK_FILL(r.dst.p, CONF_CANARY, 64);
	conf_rig_close(&r);

	conf_rig_open(c, &r, NULL);
	memset(r.loc.p, 0, 4096);
	ro = CHECK_PTR(ibv_reg_mr(r.p.s[0].pd, r.loc.p, 4096, 0));
	sg.addr = t_addr(&r.loc, 0);
	sg.length = 64;
	sg.lkey = ro->lkey;
	conf_rdma_wr(&w, 3, IBV_WR_RDMA_READ, IBV_SEND_SIGNALED, &sg, 1,
		     &r.dst, 0);
	POST_SEND_OK(r.qp0, &w);
	WITHIN(r.scq0, &wc, CONF_QUIET);
	EXPECT_WC_ERR(&wc, 3, IBV_WC_LOC_PROT_ERR, r.q0);
	CHECK_FILL(r.loc.p, 0, 64);
	CHECK_OK(ibv_dereg_mr(ro));
	conf_rig_close(&r);
}

/*
 * IBV_WC_WR_FLUSH_ERR "A Work Request was in process or outstanding when
 * the QP transitioned into the Error State": a SEND in process (the peer
 * has no receive: RNR, retried without limit), two WRITEs outstanding
 * behind it and two receives: ibv_modify_qp() to ERR completes all five
 * with IBV_WC_WR_FLUSH_ERR, each queue in posting order; the WRITEs never
 * reach the peer.
 */
static void case_status_wr_flush_err(struct conf *c)
{
	struct conf_rig r;
	struct ibv_recv_wr rw;
	struct ibv_sge sg;
	struct ibv_wc wc;
	int i;

	conf_rig_open(c, &r, NULL);
	for (i = 0; i < 2; i++) {
		sg = t_sge(&r.loc, 256 * (size_t)i, 256);
		conf_recv_wr(&rw, 50 + (uint64_t)i, &sg, 1);
		POST_RECV_OK(r.qp0, &rw);
	}
	post_send_op(&r, 1, 0, 100);
	post_write(&r, 2, 0, 64, IBV_SEND_SIGNALED);
	post_write(&r, 3, 64, 64, IBV_SEND_SIGNALED);
	EXPECT_EMPTY(r.scq0, 40);
	conf_qp_to(r.qp0, IBV_QPS_ERR);
	for (i = 0; i < 3; i++) {
		POLL1(r.scq0, &wc);
		EXPECT_WC_ERR(&wc, 1 + (uint64_t)i, IBV_WC_WR_FLUSH_ERR, r.q0);
	}
	for (i = 0; i < 2; i++) {
		POLL1(r.rcq0, &wc);
		EXPECT_WC_ERR(&wc, 50 + (uint64_t)i, IBV_WC_WR_FLUSH_ERR, r.q0);
	}
	EXPECT_EMPTY(r.scq0, CONF_QUIET);
	CHECK_FILL(r.dst.p, CONF_CANARY, 128);
	CHECK_FILL(r.loc.p, 0, 512);
	conf_rig_close(&r);
}

/*
 * IBV_WC_MW_BIND_ERR "A failure happened when tried to bind a MW to a MR":
 * a bind that runs past the end of the MR, and a bind in an MR registered
 * without IBV_ACCESS_MW_BIND.
 */
static void case_status_mw_bind_err(struct conf *c)
{
	struct conf_rig r;
	struct ibv_send_wr w;
	struct ibv_wc wc;
	struct ibv_mw *mw;
	struct t_buf plain;
	int k;

	for (k = 0; k < 2; k++) {
		conf_rig_open(c, &r, NULL);
		t_buf_alloc(&plain, r.p.s[0].pd, 4096);
		mw = CHECK_PTR(ibv_alloc_mw(r.p.s[0].pd, IBV_MW_TYPE_2));
		conf_send_wr(&w, 1, IBV_WR_BIND_MW, IBV_SEND_SIGNALED, NULL, 0);
		w.bind_mw.mw = mw;
		w.bind_mw.rkey = ibv_inc_rkey(mw->rkey);
		w.bind_mw.bind_info.mw_access_flags = IBV_ACCESS_REMOTE_WRITE;
		if (!k) {
			w.bind_mw.bind_info.mr = r.loc.mr;
			w.bind_mw.bind_info.addr = t_addr(&r.loc, CONF_BUF - 100);
			w.bind_mw.bind_info.length = 200;
		} else {
			w.bind_mw.bind_info.mr = plain.mr;
			w.bind_mw.bind_info.addr = t_addr(&plain, 0);
			w.bind_mw.bind_info.length = 256;
		}
		POST_SEND_OK(r.qp0, &w);
		WITHIN(r.scq0, &wc, CONF_QUIET);
		EXPECT_WC_ERR(&wc, 1, IBV_WC_MW_BIND_ERR, r.q0);
		CHECK_OK(ibv_dealloc_mw(mw));
		t_buf_free(&plain);
		conf_rig_close(&r);
	}
}

/*
 * IBV_WC_BAD_RESP_ERR "an unexpected transport layer opcode was returned
 * by the responder": QP a0 has an RDMA WRITE outstanding (sent to a peer
 * that drops it); a responder QP b1 whose destination is a0 answers a READ
 * of a third QP with the same PSN, so a0 receives an RDMA READ response
 * for its WRITE. The WRITE completes with IBV_WC_BAD_RESP_ERR.
 */
static void case_status_bad_resp_err(struct conf *c)
{
	struct t_qp_caps caps = { .max_send_wr = 8, .max_recv_wr = 8,
				  .max_send_sge = 1, .max_recv_sge = 1 };
	struct t_qp_attrs at;
	struct conf_rig r;
	struct ibv_qp *a0, *a2, *dead, *b1;
	struct ibv_send_wr w;
	struct ibv_sge sg;
	struct ibv_wc wc;

	conf_rig_open(c, &r, NULL);
	t_qp_default_attrs(&at);
	at.access = CONF_ACC_ALL;
	at.max_rd_atomic = 1;
	at.max_dest_rd_atomic = 1;
	a0 = t_create_qp(r.p.s[0].pd, r.scq0, r.rcq0, IBV_QPT_RC, 0, &caps,
			 NULL);
	a2 = t_create_qp(r.p.s[0].pd, r.rcq0, r.rcq0, IBV_QPT_RC, 0, &caps,
			 NULL);
	dead = t_create_qp(r.p.s[1].pd, r.scq1, r.rcq1, IBV_QPT_RC, 0, &caps,
			   NULL);
	b1 = t_create_qp(r.p.s[1].pd, r.scq1, r.rcq1, IBV_QPT_RC, 0, &caps,
			 NULL);
	conf_qp_init(dead, CONF_ACC_ALL);
	conf_qp_to(dead, IBV_QPS_ERR);
	/* a0 -> dead, from PSN 0x500 */
	conf_qp_init(a0, CONF_ACC_ALL);
	conf_qp_rtr(a0, dead, 0x100, &at);
	conf_qp_rts(a0, 0x500, &at);
	/* b1 expects 0x500 and answers a0 */
	conf_qp_init(b1, CONF_ACC_ALL);
	conf_qp_rtr(b1, a0, 0x500, &at);
	conf_qp_rts(b1, 0x100, &at);
	/* a2 -> b1, from PSN 0x500 */
	conf_qp_init(a2, CONF_ACC_ALL);
	conf_qp_rtr(a2, b1, 0x900, &at);
	conf_qp_rts(a2, 0x500, &at);

	sg = t_sge(&r.src, 0, 64);
	conf_rdma_wr(&w, 1, IBV_WR_RDMA_WRITE, IBV_SEND_SIGNALED, &sg, 1,
		     &r.dst, 0);
	POST_SEND_OK(a0, &w);
	EXPECT_EMPTY(r.scq0, 8);
	sg = t_sge(&r.loc, 0, 64);
	conf_rdma_wr(&w, 2, IBV_WR_RDMA_READ, IBV_SEND_SIGNALED, &sg, 1,
		     &r.dst, 0);
	POST_SEND_OK(a2, &w);
	WITHIN(r.scq0, &wc, CONF_QUIET);
	EXPECT_WC_ERR(&wc, 1, IBV_WC_BAD_RESP_ERR, a0->qp_num);
	CHECK_OK(ibv_destroy_qp(a0));
	CHECK_OK(ibv_destroy_qp(a2));
	CHECK_OK(ibv_destroy_qp(b1));
	CHECK_OK(ibv_destroy_qp(dead));
	conf_rig_close(&r);
}

/*
 * IBV_WC_LOC_ACCESS_ERR "a protection error occurred on a local data
 * buffer during the processing of a RDMA Write with Immediate operation
 * sent from the remote node": an RDMA WRITE with immediate whose rkey is
 * not valid at the responder completes the receive it would have consumed
 * with IBV_WC_LOC_ACCESS_ERR (the requester: IBV_WC_REM_ACCESS_ERR).
 */
static void case_status_loc_access_err(struct conf *c)
{
	struct conf_rig r;
	struct ibv_send_wr w;
	struct ibv_sge sg;
	struct ibv_wc wc;

	conf_rig_open(c, &r, NULL);
	post_recv_at(&r, 5, 0, 256);
	sg = t_sge(&r.src, 0, 64);
	conf_rdma_wr(&w, 1, IBV_WR_RDMA_WRITE_WITH_IMM, IBV_SEND_SIGNALED, &sg,
		     1, &r.dst, 0);
	w.wr.rdma.rkey ^= 0x5a00;
	w.imm_data = htonl(1);
	POST_SEND_OK(r.qp0, &w);
	WITHIN(r.scq0, &wc, CONF_QUIET);
	EXPECT_WC_ERR(&wc, 1, IBV_WC_REM_ACCESS_ERR, r.q0);
	WITHIN(r.rcq1, &wc, CONF_QUIET);
	EXPECT_WC_ERR(&wc, 5, IBV_WC_LOC_ACCESS_ERR, r.q1);
	CHECK_FILL(r.dst.p, CONF_CANARY, 64);
	CHECK_FILL(r.rbuf.p, CONF_CANARY, 256);
	conf_rig_close(&r);
}

/*
 * IBV_WC_REM_INV_REQ_ERR "Possible causes include ... insufficient
 * buffering to receive a new RDMA or Atomic Operation request": the
 * requester may have 4 READs outstanding, the responder takes 1
 * (max_dest_rd_atomic): of four 16 KiB READs the first completes, the
 * second finds no room and completes with IBV_WC_REM_INV_REQ_ERR, the
 * others are flushed.
 */
static void case_status_rem_inv_req_err_no_rd_atomic_resources(
	struct conf *c)
{
	struct t_pair_cfg cfg;
	struct conf_rig r;
	struct ibv_send_wr w[4];
	struct ibv_sge sg[4];
	struct ibv_wc wc;
	int i;

	conf_rig_cfg(c, &cfg);
	cfg.attrs[0].max_rd_atomic = 4;
	cfg.attrs[1].max_dest_rd_atomic = 1;
	conf_rig_open(c, &r, &cfg);
	for (i = 0; i < 4; i++) {
		sg[i] = t_sge(&r.loc, 16384 * (size_t)i, 16384);
		conf_rdma_wr(&w[i], 1 + (uint64_t)i, IBV_WR_RDMA_READ,
			     IBV_SEND_SIGNALED, &sg[i], 1, &r.dst,
			     16384 * (size_t)i);
		w[i].next = i < 3 ? &w[i + 1] : NULL;
	}
	POST_SEND_OK(r.qp0, w);
	POLL1(r.scq0, &wc);
	EXPECT_SQ_OK(&wc, 1, IBV_WC_RDMA_READ, r.q0, 16384);
	CHECK_MEM(r.loc.p, r.dst.p, 16384);
	POLL1(r.scq0, &wc);
	EXPECT_WC_ERR(&wc, 2, IBV_WC_REM_INV_REQ_ERR, r.q0);
	for (i = 2; i < 4; i++) {
		POLL1(r.scq0, &wc);
		EXPECT_WC_ERR(&wc, 1 + (uint64_t)i, IBV_WC_WR_FLUSH_ERR, r.q0);
	}
	conf_rig_close(&r);
}

/*
 * IBV_WC_REM_INV_REQ_ERR "the operation is not supported by this receive
 * queue (qp_access_flags in remote QP wasn't configured to support this
 * operation)": an RDMA WRITE to a QP without IBV_ACCESS_REMOTE_WRITE (into
 * an MR that allows it) completes with IBV_WC_REM_INV_REQ_ERR.
 */
static void case_status_rem_inv_req_err_op_not_in_qp_access(struct conf *c)
{
	struct t_pair_cfg cfg;
	struct conf_rig r;
	struct ibv_wc wc;

	conf_rig_cfg(c, &cfg);
	cfg.attrs[1].access = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_READ;
	conf_rig_open(c, &r, &cfg);
	post_write(&r, 1, 0, 64, IBV_SEND_SIGNALED);
	WITHIN(r.scq0, &wc, CONF_QUIET);
	EXPECT_WC_ERR(&wc, 1, IBV_WC_REM_INV_REQ_ERR, r.q0);
	CHECK_FILL(r.dst.p, CONF_CANARY, 64);
	conf_rig_close(&r);
}

/*
 * IBV_WC_REM_ACCESS_ERR "a protection error occurred on a remote data
 * buffer to be read by an RDMA Read, written by an RDMA Write or accessed
 * by an atomic operation": a WRITE with an rkey the responder does not
 * have, a READ past the end of the remote MR, and an atomic on an MR
 * without IBV_ACCESS_REMOTE_ATOMIC. Nothing is written on either side.
 */
static void case_status_rem_access_err(struct conf *c)
{
	struct conf_rig r;
	struct ibv_send_wr w;
	struct ibv_sge sg;
	struct ibv_wc wc;
	struct t_buf nat;

	conf_rig_open(c, &r, NULL);
	sg = t_sge(&r.src, 0, 64);
	conf_rdma_wr(&w, 1, IBV_WR_RDMA_WRITE, IBV_SEND_SIGNALED, &sg, 1,
		     &r.dst, 0);
	w.wr.rdma.rkey ^= 0x5a00;
	POST_SEND_OK(r.qp0, &w);
	POLL1(r.scq0, &wc);
	EXPECT_WC_ERR(&wc, 1, IBV_WC_REM_ACCESS_ERR, r.q0);
	CHECK_FILL(r.dst.p, CONF_CANARY, 64);
	conf_rig_close(&r);

	conf_rig_open(c, &r, NULL);
	sg = t_sge(&r.loc, 0, 128);
	conf_rdma_wr(&w, 2, IBV_WR_RDMA_READ, IBV_SEND_SIGNALED, &sg, 1,
		     &r.dst, CONF_BUF - 64);
	POST_SEND_OK(r.qp0, &w);
	POLL1(r.scq0, &wc);
	EXPECT_WC_ERR(&wc, 2, IBV_WC_REM_ACCESS_ERR, r.q0);
	CHECK_FILL(r.loc.p, 0, 128);
	conf_rig_close(&r);

	conf_rig_open(c, &r, NULL);
	t_buf_alloc(&nat, r.p.s[1].pd, 4096);
	conf_put64(nat.p, 5);
	sg = t_sge(&r.loc, 0, 8);
	conf_atomic_wr(&w, 3, IBV_WR_ATOMIC_FETCH_AND_ADD, IBV_SEND_SIGNALED,
		       &sg, &nat, 0, 1, 0);
	POST_SEND_OK(r.qp0, &w);
	POLL1(r.scq0, &wc);
	EXPECT_WC_ERR(&wc, 3, IBV_WC_REM_ACCESS_ERR, r.q0);
	CHECK_EQ(conf_get64(nat.p), 5);
	t_buf_free(&nat);
	conf_rig_close(&r);
}

/*
 * IBV_WC_REM_OP_ERR "the operation could not be completed successfully by
 * the responder. Possible causes include a responder QP related error that
 * prevented the responder from completing the request or a malformed WQE
 * on the Receive Queue": a SEND into a receive whose SGE has an lkey no MR
 * has completes with IBV_WC_REM_OP_ERR; the receive with
 * IBV_WC_LOC_PROT_ERR.
 */
static void case_status_rem_op_err(struct conf *c)
{
	struct conf_rig r;
	struct ibv_recv_wr rw;
	struct ibv_sge sg;
	struct ibv_wc wc;

	conf_rig_open(c, &r, NULL);
	sg = t_sge(&r.rbuf, 0, 256);
	sg.lkey ^= 0x5a00;
	conf_recv_wr(&rw, 9, &sg, 1);
	POST_RECV_OK(r.qp1, &rw);
	post_send_op(&r, 1, 0, 100);
	POLL1(r.scq0, &wc);
	EXPECT_WC_ERR(&wc, 1, IBV_WC_REM_OP_ERR, r.q0);
	POLL1(r.rcq1, &wc);
	EXPECT_WC_ERR(&wc, 9, IBV_WC_LOC_PROT_ERR, r.q1);
	CHECK_FILL(r.rbuf.p, CONF_CANARY, 256);
	conf_rig_close(&r);
}

/*
 * IBV_WC_RETRY_EXC_ERR "The local transport timeout retry counter was
 * exceeded ... the remote side didn't send any Ack or Nack ... the remote
 * QP isn't available anymore": the peer QP is moved to ERR; with timeout 1
 * (8 us) and retry_cnt 2 the WRITE completes with IBV_WC_RETRY_EXC_ERR,
 * the WR behind it is flushed, the QP is in ERR.
 */
static void case_status_retry_exc_err(struct conf *c)
{
	struct t_pair_cfg cfg;
	struct conf_rig r;
	struct ibv_wc wc;

	conf_rig_cfg(c, &cfg);
	cfg.attrs[0].timeout = 1;
	cfg.attrs[0].retry_cnt = 2;
	conf_rig_open(c, &r, &cfg);
	conf_qp_to(r.qp1, IBV_QPS_ERR);
	post_write(&r, 1, 0, 64, IBV_SEND_SIGNALED);
	post_write(&r, 2, 64, 64, IBV_SEND_SIGNALED);
	POLL1(r.scq0, &wc);
	EXPECT_WC_ERR(&wc, 1, IBV_WC_RETRY_EXC_ERR, r.q0);
	POLL1(r.scq0, &wc);
	EXPECT_WC_ERR(&wc, 2, IBV_WC_WR_FLUSH_ERR, r.q0);
	CHECK_EQ(conf_qp_state(r.qp0), IBV_QPS_ERR);
	CHECK_FILL(r.dst.p, CONF_CANARY, 128);
	conf_rig_close(&r);
}

/*
 * IBV_WC_RNR_RETRY_EXC_ERR "The RNR NAK retry count was exceeded. This
 * usually means that the remote side didn't post any WR to its Receive
 * Queue": no receive at the peer (min_rnr_timer 1), rnr_retry 1: the SEND
 * completes with IBV_WC_RNR_RETRY_EXC_ERR and the QP is in ERR.
 */
static void case_status_rnr_retry_exc_err(struct conf *c)
{
	struct t_pair_cfg cfg;
	struct conf_rig r;
	struct ibv_wc wc;

	conf_rig_cfg(c, &cfg);
	cfg.attrs[1].min_rnr_timer = 1;
	cfg.attrs[0].rnr_retry = 1;
	conf_rig_open(c, &r, &cfg);
	post_send_op(&r, 1, 0, 64);
	POLL1(r.scq0, &wc);
	EXPECT_WC_ERR(&wc, 1, IBV_WC_RNR_RETRY_EXC_ERR, r.q0);
	CHECK_EQ(conf_qp_state(r.qp0), IBV_QPS_ERR);
	CHECK_FILL(r.rbuf.p, CONF_CANARY, 64);
	conf_rig_close(&r);
}

static const struct conf_case cases[] = {
	CONF_CASE(fifo_order_popped_once, CONF_BOTH),
	CONF_CASE(returns_number_polled_zero_when_empty, CONF_BOTH),
	CONF_CASE(completion_covers_earlier_unsignaled, CONF_BOTH),
	CONF_CASE(unsignaled_send_with_error_completes, CONF_BOTH),
	CONF_CASE(cq_overrun_async_event_cq_err, CONF_BOTH),
	CONF_CASE(cq_overrun_burst_behind_it, CONF_BOTH),
	CONF_CASE(send_queue_fields_per_opcode, CONF_BOTH),
	CONF_CASE(receive_fields_rc, CONF_BOTH),
	CONF_CASE(receive_fields_uc, CONF_BOTH),
	CONF_CASE(receive_fields_ud, CONF_BOTH),
	CONF_CASE(qp_num_tells_srq_receives_apart, CONF_BOTH),
	CONF_CASE(vendor_err_hints_reason_of_error, CONF_BOTH),
	CONF_CASE(status_loc_len_err, CONF_BOTH),
	CONF_CASE(status_loc_qp_op_err, CONF_BOTH),
	CONF_CASE(status_loc_prot_err, CONF_BOTH),
	CONF_CASE(status_wr_flush_err, CONF_BOTH),
	CONF_CASE(status_mw_bind_err, CONF_BOTH),
	CONF_CASE(status_bad_resp_err, CONF_BOTH),
	CONF_CASE(status_loc_access_err, CONF_BOTH),
	CONF_CASE(status_rem_inv_req_err_no_rd_atomic_resources, CONF_BOTH),
	CONF_CASE(status_rem_inv_req_err_op_not_in_qp_access, CONF_BOTH),
	CONF_CASE(status_rem_access_err, CONF_BOTH),
	CONF_CASE(status_rem_op_err, CONF_BOTH),
	CONF_CASE(status_retry_exc_err, CONF_BOTH),
	CONF_CASE(status_rnr_retry_exc_err, CONF_BOTH),
};

int main(int argc, char **argv)
{
	return conf_main(argc, argv, cases, sizeof(cases) / sizeof(cases[0]));
}
