// SPDX-License-Identifier: MIT
/*
 * conf_post_recv.c - ibv_post_recv(3) and its rdmamojo page, statement by
 * statement.
 *
 * Each case is named after the statement it checks (docs/verbs.md has the
 * statement -> case table). Side 0 sends, side 1 posts the receives.
 */
#define _DEFAULT_SOURCE

#include "conf.h"

#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A one-SGE receive on side 1's QP, into rbuf at @off. */
static void post_recv_at(struct conf_rig *r, uint64_t id, size_t off,
			 uint32_t len)
{
	struct ibv_sge sg = t_sge(&r->rbuf, off, len);
	struct ibv_recv_wr wr;

	conf_recv_wr(&wr, id, &sg, 1);
	POST_RECV_OK(r->qp1, &wr);
}

/* A signaled SEND of @len bytes of src at @off from side 0. */
static void send_at(struct conf_rig *r, uint64_t id, size_t off, uint32_t len)
{
	struct ibv_sge sg = t_sge(&r->src, off, len);
	struct ibv_send_wr w;

	conf_send_wr(&w, id, IBV_WR_SEND, IBV_SEND_SIGNALED, &sg, 1);
	POST_SEND_OK(r->qp0, &w);
}

/* The SEND @id of side 0 completed successfully. */
static void expect_sent(struct conf_rig *r, uint64_t id)
{
	struct ibv_wc wc;

	POLL1(r->scq0, &wc);
	EXPECT_SQ_OK(&wc, id, IBV_WC_SEND, r->q0, T_ANY);
}

/* A receive completion @id of @len bytes from side 0 on side 1. */
static void expect_recv(struct conf_rig *r, uint64_t id, uint32_t len)
{
	struct ibv_wc wc;

	POLL1(r->rcq1, &wc);
	EXPECT_WC_OK(&wc, id, IBV_WC_RECV, r->q1, len, 0, T_ANY, r->q0);
}

/* ------------------------------------------------------------------------ */
/* Posting                                                                  */

/*
 * "ibv_post_recv() posts the linked list of work requests (WRs) starting
 * with wr to the receive queue" and (rdmamojo) "The Receive Requests are
 * fetched according the order they exist in the Receive Queue": eight
 * receives, posted as a list of five and a list of three, take eight
 * messages of different lengths in posting order; each message is in its
 * receive's buffer when its completion is polled, completions come in
 * posting order.
 */
static void case_receive_completions_in_posting_order(struct conf *c)
{
	static const uint32_t len[8] = { 1, 100, 1024, 7, 3000, 64, 0, 513 };
	struct conf_rig r;
	struct ibv_recv_wr w[8];
	struct ibv_sge sg[8];
	struct ibv_wc wc;
	int i;

	conf_rig_open(c, &r, NULL);
	for (i = 0; i < 8; i++) {
		/* Buffers in reverse order of the WRs. */
		sg[i] = t_sge(&r.rbuf, 4096 * (size_t)(7 - i), 4096);
		conf_recv_wr(&w[i], 100 + (uint64_t)i, &sg[i], 1);
		w[i].next = (i != 4 && i != 7) ? &w[i + 1] : NULL;
	}
	POST_RECV_OK(r.qp1, &w[0]);
	POST_RECV_OK(r.qp1, &w[5]);
	for (i = 0; i < 8; i++)
		send_at(&r, 1 + (uint64_t)i, 5000 * (size_t)i, len[i]);
	for (i = 0; i < 8; i++) {
		POLL1(r.rcq1, &wc);
		CHECK_MEM(r.rbuf.p + 4096 * (7 - i), r.src.p + 5000 * i, len[i]);
		EXPECT_WC_OK(&wc, 100 + (uint64_t)i, IBV_WC_RECV, r.q1, len[i],
			     0, T_ANY, r.q0);
		CHECK_FILL(r.rbuf.p + 4096 * (7 - i) + len[i], CONF_CANARY,
			   4096 - len[i]);
	}
	for (i = 0; i < 8; i++)
		expect_sent(&r, 1 + (uint64_t)i);
	EXPECT_EMPTY(r.rcq1, CONF_QUIET);
	conf_rig_close(&r);
}

/*
 * "It stops processing WRs from this list at the first failure (that can be
 * detected immediately while requests are being posted), and returns this
 * failing WR through bad_wr" and "returns 0 on success, or the value of
 * errno on failure": [recv, recv with num_sge above max_recv_sge, recv]
 * returns EINVAL with bad_wr = the second; the first is posted, the third
 * is not (the next two messages land in the first and in a receive posted
 * afterwards, never in the third's buffer).
 */
static void case_stops_at_first_failure_returns_bad_wr(struct conf *c)
{
	struct conf_rig r;
	struct ibv_recv_wr w[3];
	struct ibv_sge sg[3], many[5];
	int i;

	conf_rig_open(c, &r, NULL);
	CHECK_EQ(r.p.s[1].cap.max_recv_sge, 4);
	for (i = 0; i < 5; i++)
		many[i] = t_sge(&r.rbuf, 8192 + 64 * (size_t)i, 64);
	sg[0] = t_sge(&r.rbuf, 0, 256);
	sg[2] = t_sge(&r.rbuf, 256, 256);
	conf_recv_wr(&w[0], 10, &sg[0], 1);
	conf_recv_wr(&w[1], 11, many, 5);
	conf_recv_wr(&w[2], 12, &sg[2], 1);
	w[0].next = &w[1];
	w[1].next = &w[2];
	EXPECT_POST_RECV(r.qp1, w, EINVAL, &w[1]);
	post_recv_at(&r, 13, 512, 256);
	send_at(&r, 1, 0, 200);
	send_at(&r, 2, 1000, 200);
	expect_recv(&r, 10, 200);
	expect_recv(&r, 13, 200);
	expect_sent(&r, 1);
	expect_sent(&r, 2);
	CHECK_MEM(r.rbuf.p, r.src.p, 200);
	CHECK_FILL(r.rbuf.p + 256, CONF_CANARY, 256);
	CHECK_MEM(r.rbuf.p + 512, r.src.p + 1000, 200);
	CHECK_FILL(r.rbuf.p + 8192, CONF_CANARY, 5 * 64);
	EXPECT_EMPTY(r.rcq1, CONF_QUIET);
	conf_rig_close(&r);
}

/*
 * (rdmamojo) "ENOMEM: Receive Queue is full", "There is a limit to the
 * maximum number of outstanding WRs for a QP. This value was specified when
 * the QP was created": a list of max_recv_wr + 2 receives posts max_recv_wr
 * of them and returns ENOMEM with bad_wr = the first that did not fit;
 * max_recv_wr messages land in them; once their completions are polled
 * there is room for the other two.
 */
static void case_enomem_when_receive_queue_full(struct conf *c)
{
	struct t_pair_cfg cfg;
	struct conf_rig r;
	struct ibv_recv_wr *w;
	struct ibv_sge *sg;
	uint32_t k, i;

	conf_rig_cfg(c, &cfg);
	cfg.caps.max_recv_wr = 8;
	conf_rig_open(c, &r, &cfg);
	k = r.p.s[1].cap.max_recv_wr;
	CHECK(k >= 8 && k <= 128);
	w = calloc(k + 2, sizeof(*w));
	sg = calloc(k + 2, sizeof(*sg));
	CHECK(w && sg);
	for (i = 0; i < k + 2; i++) {
		sg[i] = t_sge(&r.rbuf, 256 * (size_t)i, 256);
		conf_recv_wr(&w[i], 100 + i, &sg[i], 1);
		w[i].next = i + 1 < k + 2 ? &w[i + 1] : NULL;
	}
	EXPECT_POST_RECV(r.qp1, w, ENOMEM, &w[k]);
	for (i = 0; i < k; i++)
		send_at(&r, i, 100 * (size_t)i, 100);
	for (i = 0; i < k; i++) {
		expect_recv(&r, 100 + i, 100);
		CHECK_MEM(r.rbuf.p + 256 * i, r.src.p + 100 * i, 100);
	}
	for (i = 0; i < k; i++)
		expect_sent(&r, i);
	/* The room is back: the two that did not fit go now. */
	POST_RECV_OK(r.qp1, &w[k]);
	send_at(&r, k, 20000, 50);
	send_at(&r, k + 1, 21000, 50);
	expect_recv(&r, 100 + k, 50);
	expect_recv(&r, 101 + k, 50);
	CHECK_MEM(r.rbuf.p + 256 * k, r.src.p + 20000, 50);
	CHECK_MEM(r.rbuf.p + 256 * (k + 1), r.src.p + 21000, 50);
	free(w);
	free(sg);
	conf_rig_close(&r);
}

/*
 * (rdmamojo) num_sge "can be less or equal to the number of scatter/gather
 * entries that the Queue Pair was created to support in the Receive Queue",
 * "EINVAL: Invalid value provided in wr": num_sge = max_recv_sge + 1 (and a
 * negative num_sge) is EINVAL with bad_wr = the WR; num_sge = max_recv_sge
 * is taken, and the next message lands in that one.
 */
static void case_einval_for_num_sge_above_max_recv_sge(struct conf *c)
{
	struct conf_rig r;
	struct ibv_recv_wr w;
	struct ibv_sge sg[5];
	uint32_t max;
	int i;

	conf_rig_open(c, &r, NULL);
	max = r.p.s[1].cap.max_recv_sge;
	CHECK(max >= 1 && max < 5);
	for (i = 0; i < 5; i++)
		sg[i] = t_sge(&r.rbuf, 100 * (size_t)i, 100);
	conf_recv_wr(&w, 1, sg, (int)max + 1);
	EXPECT_POST_RECV(r.qp1, &w, EINVAL, &w);
	conf_recv_wr(&w, 2, sg, -1);
	EXPECT_POST_RECV(r.qp1, &w, EINVAL, &w);
	conf_recv_wr(&w, 3, sg, (int)max);
	POST_RECV_OK(r.qp1, &w);
	send_at(&r, 1, 0, 100 * max);
	expect_recv(&r, 3, 100 * max);
	expect_sent(&r, 1);
	CHECK_MEM(r.rbuf.p, r.src.p, 100 * max);
	EXPECT_EMPTY(r.rcq1, CONF_QUIET);
	conf_rig_close(&r);
}

/*
 * (rdmamojo) "Can I (re)use the Receive Request after ibv_post_recv()
 * returned? Yes ... you can (re)use both the Receive Request and the s/g
 * list within it": both are overwritten right after the call; the
 * receives still scatter where they said, with their wr_id.
 */
static void case_wr_and_sg_list_reusable_at_return(struct conf *c)
{
	struct conf_rig r;
	struct ibv_recv_wr w[2];
	struct ibv_sge sg[3];

	conf_rig_open(c, &r, NULL);
	sg[0] = t_sge(&r.rbuf, 1000, 50);
	sg[1] = t_sge(&r.rbuf, 3000, 150);
	sg[2] = t_sge(&r.rbuf, 6000, 300);
	conf_recv_wr(&w[0], 0x1111222233334444ull, sg, 2);
	conf_recv_wr(&w[1], 0x5555666677778888ull, &sg[2], 1);
	w[0].next = &w[1];
	POST_RECV_OK(r.qp1, w);
	memset(w, 0xff, sizeof(w));
	memset(sg, 0xff, sizeof(sg));
	send_at(&r, 1, 0, 200);
	send_at(&r, 2, 500, 300);
	expect_recv(&r, 0x1111222233334444ull, 200);
	expect_recv(&r, 0x5555666677778888ull, 300);
	CHECK_MEM(r.rbuf.p + 1000, r.src.p, 50);
	CHECK_MEM(r.rbuf.p + 3000, r.src.p + 50, 150);
	CHECK_MEM(r.rbuf.p + 6000, r.src.p + 500, 300);
	CHECK_FILL(r.rbuf.p + 1050, CONF_CANARY, 64);
	conf_rig_close(&r);
}

/* ------------------------------------------------------------------------ */
/* QP states (rdmamojo: "A QP, which isn't associated with an SRQ, will     */
/* handle Work Requests in the Receive queue according to the following     */
/* rules")                                                                  */

/* A fresh RC QP on side @i of the rig, in RESET. */
static struct ibv_qp *fresh_qp(struct conf_rig *r, int i,
			       enum ibv_qp_type type)
{
	struct t_qp_caps caps = { .max_send_wr = 16, .max_recv_wr = 16,
				  .max_send_sge = 4, .max_recv_sge = 4 };
	struct t_side *s = &r->p.s[i];

	return t_create_qp(s->pd, s->scq, s->rcq, type, 0, &caps, NULL);
}

/*
 * "If the QP is in RESET state an immediate error should be returned":
 * EINVAL, bad_wr = the first WR of the list; nothing of it stays: after
 * INIT -> RTR -> RTS the first message lands in a receive posted then.
 */
static void case_reset_refuses_receives(struct conf *c)
{
	struct t_qp_attrs at;
	struct conf_rig r;
	struct ibv_qp *a, *b;
	struct ibv_recv_wr w[2], rw;
	struct ibv_sge sg[2], rsg;
	struct ibv_send_wr sw;
	struct ibv_sge ssg;
	struct ibv_wc wc;

	conf_rig_open(c, &r, NULL);
	t_qp_default_attrs(&at);
	at.access = CONF_ACC_ALL;
	b = fresh_qp(&r, 1, IBV_QPT_RC);
	CHECK_EQ(conf_qp_state(b), IBV_QPS_RESET);
	sg[0] = t_sge(&r.rbuf, 0, 256);
	sg[1] = t_sge(&r.rbuf, 256, 256);
	conf_recv_wr(&w[0], 1, &sg[0], 1);
	conf_recv_wr(&w[1], 2, &sg[1], 1);
	w[0].next = &w[1];
	EXPECT_POST_RECV(b, w, EINVAL, &w[0]);

	/* Connected to a fresh sender a: the first message takes the
	 * receive posted after RTS. */
	a = fresh_qp(&r, 0, IBV_QPT_RC);
	conf_qp_init(a, CONF_ACC_ALL);
	conf_qp_rtr(a, b, 0x300, &at);
	conf_qp_rts(a, 0x200, &at);
	conf_qp_init(b, CONF_ACC_ALL);
	conf_qp_rtr(b, a, 0x200, &at);
	conf_qp_rts(b, 0x300, &at);
	rsg = t_sge(&r.rbuf, 1024, 256);
	conf_recv_wr(&rw, 3, &rsg, 1);
	POST_RECV_OK(b, &rw);
	ssg = t_sge(&r.src, 0, 100);
	conf_send_wr(&sw, 9, IBV_WR_SEND, IBV_SEND_SIGNALED, &ssg, 1);
	POST_SEND_OK(a, &sw);
	POLL1(r.scq0, &wc);
	EXPECT_SQ_OK(&wc, 9, IBV_WC_SEND, a->qp_num, T_ANY);
	POLL1(r.rcq1, &wc);
	EXPECT_WC_OK(&wc, 3, IBV_WC_RECV, b->qp_num, 100, 0, T_ANY, a->qp_num);
	CHECK_MEM(r.rbuf.p + 1024, r.src.p, 100);
	CHECK_FILL(r.rbuf.p, CONF_CANARY, 512);
	EXPECT_EMPTY(r.rcq1, CONF_QUIET);
	CHECK_OK(ibv_destroy_qp(a));
	CHECK_OK(ibv_destroy_qp(b));
	conf_rig_close(&r);
}

/*
 * "If the QP is in INIT state, Receive Requests can be posted, but they
 * won't be processed" and "If the QP is in RTR, RTS ... state, Receive
 * Requests can be posted and they will be processed": an RC SEND that
 * reaches a QP in INIT is not placed into the receive posted there (no
 * completion, buffer untouched); once the QP is in RTR (not RTS) the
 * sender's retransmission lands in that receive. Then the same for UD: a
 * message to a UD QP in INIT is dropped, the next one after RTR lands.
 */
static void case_init_accepts_receives_but_does_not_process_them(
	struct conf *c)
{
	struct t_qp_attrs at;
	struct conf_rig r;
	struct ibv_qp *a, *b;
	struct ibv_ah *ah;
	struct ibv_recv_wr rw;
	struct ibv_send_wr sw;
	struct ibv_sge rsg, ssg;
	struct ibv_wc wc;

	conf_rig_open(c, &r, NULL);
	t_qp_default_attrs(&at);
	at.access = CONF_ACC_ALL;
	at.timeout = 5;		/* 131 us = 32768 cycles */
	at.retry_cnt = 7;
	a = fresh_qp(&r, 0, IBV_QPT_RC);
	b = fresh_qp(&r, 1, IBV_QPT_RC);
	conf_qp_init(a, CONF_ACC_ALL);
	conf_qp_rtr(a, b, 0x300, &at);
	conf_qp_rts(a, 0x200, &at);
	conf_qp_init(b, CONF_ACC_ALL);
	rsg = t_sge(&r.rbuf, 0, 1024);
	conf_recv_wr(&rw, 1, &rsg, 1);
	POST_RECV_OK(b, &rw);
	ssg = t_sge(&r.src, 0, 300);
	conf_send_wr(&sw, 2, IBV_WR_SEND, IBV_SEND_SIGNALED, &ssg, 1);
	POST_SEND_OK(a, &sw);
	/* The packet has long arrived (about 10k cycles); nothing placed. */
	EXPECT_EMPTY(r.rcq1, 40);
	EXPECT_EMPTY(r.scq0, 1);
	CHECK_FILL(r.rbuf.p, CONF_CANARY, 1024);
	CHECK_EQ(conf_qp_state(b), IBV_QPS_INIT);
	conf_qp_rtr(b, a, 0x200, &at);
	POLL1(r.rcq1, &wc);
	EXPECT_WC_OK(&wc, 1, IBV_WC_RECV, b->qp_num, 300, 0, T_ANY, a->qp_num);
	CHECK_MEM(r.rbuf.p, r.src.p, 300);
	POLL1(r.scq0, &wc);
	EXPECT_SQ_OK(&wc, 2, IBV_WC_SEND, a->qp_num, T_ANY);
	CHECK_OK(ibv_destroy_qp(a));
	CHECK_OK(ibv_destroy_qp(b));

	/* UD */
	a = fresh_qp(&r, 0, IBV_QPT_UD);
	b = fresh_qp(&r, 1, IBV_QPT_UD);
	t_ud_qp_to_rts(a, CONF_QKEY, 0);
	conf_qp_init(b, 0);
	ah = t_create_ah(r.p.s[0].pd, r.p.s[1].ctx);
	rsg = t_sge(&r.rbuf, 2048, 1024);
	conf_recv_wr(&rw, 3, &rsg, 1);
	POST_RECV_OK(b, &rw);
	ssg = t_sge(&r.src, 1000, 200);
	conf_send_wr(&sw, 4, IBV_WR_SEND, IBV_SEND_SIGNALED, &ssg, 1);
	sw.wr.ud.ah = ah;
	sw.wr.ud.remote_qpn = b->qp_num;
	sw.wr.ud.remote_qkey = CONF_QKEY;
	POST_SEND_OK(a, &sw);
	POLL1(r.scq0, &wc);
	EXPECT_SQ_OK(&wc, 4, IBV_WC_SEND, a->qp_num, T_ANY);
	EXPECT_EMPTY(r.rcq1, CONF_QUIET);
	CHECK_FILL(r.rbuf.p + 2048, CONF_CANARY, 1024);
	conf_qp_rtr(b, NULL, 0, &at);
	sw.wr_id = 5;
	ssg = t_sge(&r.src, 3000, 200);
	POST_SEND_OK(a, &sw);
	POLL1(r.scq0, &wc);
	EXPECT_SQ_OK(&wc, 5, IBV_WC_SEND, a->qp_num, T_ANY);
	POLL1(r.rcq1, &wc);
	EXPECT_WC_OK(&wc, 3, IBV_WC_RECV, b->qp_num, 240, IBV_WC_GRH, T_ANY,
		     a->qp_num);
	CHECK_MEM(r.rbuf.p + 2048 + 40, r.src.p + 3000, 200);
	CHECK_OK(ibv_destroy_ah(ah));
	CHECK_OK(ibv_destroy_qp(a));
	CHECK_OK(ibv_destroy_qp(b));
	conf_rig_close(&r);
}

/*
 * "If the QP is in ERROR state, Receive Requests can be posted and they
 * will be completed with error": receives outstanding when the QP goes to
 * ERR and receives posted in ERR all complete with IBV_WC_WR_FLUSH_ERR, in
 * posting order, with their wr_id and the QP's number; no buffer is
 * touched.
 */
static void case_err_completes_receives_with_flush_err(struct conf *c)
{
	struct conf_rig r;
	struct ibv_recv_wr w[2];
	struct ibv_sge sg[2];
	struct ibv_wc wc;
	int i;

	conf_rig_open(c, &r, NULL);
	for (i = 0; i < 3; i++)
		post_recv_at(&r, 1 + (uint64_t)i, 256 * (size_t)i, 256);
	conf_qp_to(r.qp1, IBV_QPS_ERR);
	for (i = 0; i < 3; i++) {
		POLL1(r.rcq1, &wc);
		EXPECT_WC_ERR(&wc, 1 + (uint64_t)i, IBV_WC_WR_FLUSH_ERR, r.q1);
	}
	EXPECT_EMPTY(r.rcq1, CONF_QUIET);
	for (i = 0; i < 2; i++) {
		sg[i] = t_sge(&r.rbuf, 1024 + 256 * (size_t)i, 256);
		conf_recv_wr(&w[i], 10 + (uint64_t)i, &sg[i], 1);
	}
	w[0].next = &w[1];
	POST_RECV_OK(r.qp1, w);
	for (i = 0; i < 2; i++) {
		POLL1(r.rcq1, &wc);
		EXPECT_WC_ERR(&wc, 10 + (uint64_t)i, IBV_WC_WR_FLUSH_ERR, r.q1);
	}
	post_recv_at(&r, 20, 2048, 256);
	POLL1(r.rcq1, &wc);
	EXPECT_WC_ERR(&wc, 20, IBV_WC_WR_FLUSH_ERR, r.q1);
	EXPECT_EMPTY(r.rcq1, CONF_QUIET);
	CHECK_FILL(r.rbuf.p, CONF_CANARY, 4096);
	conf_rig_close(&r);
}

/* ------------------------------------------------------------------------ */
/* Scatter lists                                                            */

/*
 * sg_list "specifies the buffers where data will be written in. The
 * entries in the list can specify memory blocks that were registered by
 * different Memory Regions. The maximum message size that it can serve is
 * the sum of all of the memory buffers length": three SGEs in three MRs
 * take a message of exactly their sum, scattered in order; a shorter
 * message fills them in order and leaves the rest alone.
 */
static void case_scatter_over_sges_of_several_mrs(struct conf *c)
{
	static const uint32_t len[3] = { 10, 300, 2000 };
	struct conf_rig r;
	struct t_buf b[3];
	struct ibv_recv_wr w;
	struct ibv_sge sg[3];
	size_t off;
	int i, k;

	conf_rig_open(c, &r, NULL);
	for (i = 0; i < 3; i++) {
		t_buf_alloc(&b[i], r.p.s[1].pd, 8192);
		memset(b[i].p, CONF_CANARY, 8192);
	}
	for (k = 0; k < 2; k++) {
		for (i = 0; i < 3; i++)
			sg[i] = t_sge(&b[i], 4096 * (size_t)k + 7 * (size_t)i,
				      len[i]);
		conf_recv_wr(&w, 50 + (uint64_t)k, sg, 3);
		POST_RECV_OK(r.qp1, &w);
	}
	send_at(&r, 1, 0, 2310);
	send_at(&r, 2, 10000, 1000);
	expect_recv(&r, 50, 2310);
	expect_recv(&r, 51, 1000);
	expect_sent(&r, 1);
	expect_sent(&r, 2);
	for (off = 0, i = 0; i < 3; i++) {
		CHECK_FILL(b[i].p, CONF_CANARY, 7 * (size_t)i);
		CHECK_MEM(b[i].p + 7 * i, r.src.p + off, len[i]);
		CHECK_FILL(b[i].p + 7 * i + len[i], CONF_CANARY, 16);
		off += len[i];
	}
	CHECK_MEM(b[0].p + 4096, r.src.p + 10000, 10);
	CHECK_MEM(b[1].p + 4096 + 7, r.src.p + 10010, 300);
	CHECK_MEM(b[2].p + 4096 + 14, r.src.p + 10310, 690);
	CHECK_FILL(b[2].p + 4096 + 14 + 690, CONF_CANARY, 2000 - 690);
	for (i = 0; i < 3; i++)
		t_buf_free(&b[i]);
	conf_rig_close(&r);
}

/*
 * (rdmamojo, and "The buffer size of a receive request should be at least
 * the size of the incoming message. If the supplied buffer is smaller,
 * there will a Work Completion with error"): a 300-byte SEND into a
 * receive of two SGEs of 100 bytes completes the receive with
 * IBV_WC_LOC_LEN_ERR (the sender sees IBV_WC_REM_INV_REQ_ERR), and nothing
 * is written outside the two SGEs.
 */
static void case_receive_too_small_completes_with_loc_len_err(
	struct conf *c)
{
	struct conf_rig r;
	struct ibv_recv_wr w;
	struct ibv_sge sg[2];
	struct ibv_wc wc;

	conf_rig_open(c, &r, NULL);
	sg[0] = t_sge(&r.rbuf, 0, 100);
	sg[1] = t_sge(&r.rbuf, 1000, 100);
	conf_recv_wr(&w, 7, sg, 2);
	POST_RECV_OK(r.qp1, &w);
	send_at(&r, 1, 0, 300);
	POLL1(r.rcq1, &wc);
	EXPECT_WC_ERR(&wc, 7, IBV_WC_LOC_LEN_ERR, r.q1);
	POLL1(r.scq0, &wc);
	EXPECT_WC_ERR(&wc, 1, IBV_WC_REM_INV_REQ_ERR, r.q0);
	CHECK_FILL(r.rbuf.p + 100, CONF_CANARY, 900);
	CHECK_FILL(r.rbuf.p + 1100, CONF_CANARY, 4096);
	conf_rig_close(&r);
}

/*
 * num_sge "If this size is 0, this indicates that the message size is 0",
 * and "If you are sure that the opcode will be RDMA Write with immediate,
 * the S/G list can be empty, and the Receive Request will be used only to
 * provide the immediate data": receives with num_sge 0 take a zero-length
 * SEND and a 100-byte RDMA WRITE with immediate (byte_len 100, the bytes in
 * the WRITE's target); a one-byte SEND into one is IBV_WC_LOC_LEN_ERR.
 */
static void case_zero_length_receive(struct conf *c)
{
	struct conf_rig r;
	struct ibv_recv_wr w;
	struct ibv_send_wr sw;
	struct ibv_sge sg;
	struct ibv_wc wc;
	int i;

	conf_rig_open(c, &r, NULL);
	for (i = 0; i < 3; i++) {
		conf_recv_wr(&w, 1 + (uint64_t)i, NULL, 0);
		POST_RECV_OK(r.qp1, &w);
	}
	conf_send_wr(&sw, 11, IBV_WR_SEND, IBV_SEND_SIGNALED, NULL, 0);
	POST_SEND_OK(r.qp0, &sw);
	sg = t_sge(&r.src, 0, 100);
	conf_rdma_wr(&sw, 12, IBV_WR_RDMA_WRITE_WITH_IMM, IBV_SEND_SIGNALED,
		     &sg, 1, &r.dst, 64);
	sw.imm_data = htonl(0xc0ffee);
	POST_SEND_OK(r.qp0, &sw);
	POLL1(r.rcq1, &wc);
	EXPECT_WC_OK(&wc, 1, IBV_WC_RECV, r.q1, 0, 0, T_ANY, r.q0);
	POLL1(r.rcq1, &wc);
	EXPECT_WC_OK(&wc, 2, IBV_WC_RECV_RDMA_WITH_IMM, r.q1, 100,
		     IBV_WC_WITH_IMM, htonl(0xc0ffee), r.q0);
	CHECK_MEM(r.dst.p + 64, r.src.p, 100);
	expect_sent(&r, 11);
	POLL1(r.scq0, &wc);
	EXPECT_SQ_OK(&wc, 12, IBV_WC_RDMA_WRITE, r.q0, T_ANY);
	send_at(&r, 13, 0, 1);
	POLL1(r.rcq1, &wc);
	EXPECT_WC_ERR(&wc, 3, IBV_WC_LOC_LEN_ERR, r.q1);
	POLL1(r.scq0, &wc);
	EXPECT_WC_ERR(&wc, 13, IBV_WC_REM_INV_REQ_ERR, r.q0);
	CHECK_FILL(r.rbuf.p, CONF_CANARY, 4096);
	conf_rig_close(&r);
}

/*
 * ibv_sge length "The value 0 is a special value and is equal to 2^{31}
 * bytes (and not zero bytes, as one might imagine)": a receive whose only
 * SGE has length 0 takes a 100-byte SEND, and the next one (at byte 1000
 * of the buffer) a 40000-byte SEND; the bytes around them are untouched.
 * The SGE reaches far past its MR: it is checked for the bytes written.
 */
static void case_sge_length_0_means_2g(struct conf *c)
{
	struct conf_rig r;

	conf_rig_open(c, &r, NULL);
	post_recv_at(&r, 1, 0, 0);
	post_recv_at(&r, 3, 1000, 0);
	send_at(&r, 2, 0, 100);
	send_at(&r, 4, 100, 40000);
	expect_recv(&r, 1, 100);
	expect_recv(&r, 3, 40000);
	expect_sent(&r, 2);
	expect_sent(&r, 4);
	CHECK_MEM(r.rbuf.p, r.src.p, 100);
	CHECK_FILL(r.rbuf.p + 100, CONF_CANARY, 900);
	CHECK_MEM(r.rbuf.p + 1000, r.src.p + 100, 40000);
	CHECK_FILL(r.rbuf.p + 41000, CONF_CANARY, CONF_BUF - 41000);
	conf_rig_close(&r);
}

/*
 * (rdmamojo) "Which operations will consume RRs? ... Send, Send with
 * Immediate, RDMA Write with immediate" and IBV_WC_RECV_RDMA_WITH_IMM "only
 * a Receive Request was consumed and the sg_list of this RR wasn't used":
 * RDMA WRITE, RDMA READ and atomics take no receive; a WRITE with
 * immediate takes the first (its buffer untouched), a SEND the second, a
 * SEND with immediate the third.
 */
static void case_only_send_and_write_imm_consume_receives(struct conf *c)
{
	struct conf_rig r;
	struct ibv_send_wr w;
	struct ibv_sge sg;
	struct ibv_wc wc;

	conf_rig_open(c, &r, NULL);
	post_recv_at(&r, 101, 0, 1024);
	post_recv_at(&r, 102, 1024, 1024);
	post_recv_at(&r, 103, 2048, 1024);
	sg = t_sge(&r.src, 0, 64);
	conf_rdma_wr(&w, 1, IBV_WR_RDMA_WRITE, IBV_SEND_SIGNALED, &sg, 1,
		     &r.dst, 0);
	POST_SEND_OK(r.qp0, &w);
	sg = t_sge(&r.loc, 0, 64);
	conf_rdma_wr(&w, 2, IBV_WR_RDMA_READ, IBV_SEND_SIGNALED, &sg, 1,
		     &r.dst, 0);
	POST_SEND_OK(r.qp0, &w);
	sg = t_sge(&r.loc, 64, 8);
	conf_atomic_wr(&w, 3, IBV_WR_ATOMIC_FETCH_AND_ADD, IBV_SEND_SIGNALED,
		       &sg, &r.dst, 128, 1, 0);
	POST_SEND_OK(r.qp0, &w);
	POLL1(r.scq0, &wc);
	EXPECT_SQ_OK(&wc, 1, IBV_WC_RDMA_WRITE, r.q0, T_ANY);
	POLL1(r.scq0, &wc);
	EXPECT_SQ_OK(&wc, 2, IBV_WC_RDMA_READ, r.q0, 64);
	POLL1(r.scq0, &wc);
	EXPECT_SQ_OK(&wc, 3, IBV_WC_FETCH_ADD, r.q0, 8);
	EXPECT_EMPTY(r.rcq1, CONF_QUIET);

	sg = t_sge(&r.src, 1000, 48);
	conf_rdma_wr(&w, 4, IBV_WR_RDMA_WRITE_WITH_IMM, IBV_SEND_SIGNALED, &sg,
		     1, &r.dst, 4096);
	w.imm_data = htonl(4);
	POST_SEND_OK(r.qp0, &w);
	send_at(&r, 5, 2000, 40);
	sg = t_sge(&r.src, 3000, 30);
	conf_send_wr(&w, 6, IBV_WR_SEND_WITH_IMM, IBV_SEND_SIGNALED, &sg, 1);
	w.imm_data = htonl(6);
	POST_SEND_OK(r.qp0, &w);
	POLL1(r.rcq1, &wc);
	EXPECT_WC_OK(&wc, 101, IBV_WC_RECV_RDMA_WITH_IMM, r.q1, 48,
		     IBV_WC_WITH_IMM, htonl(4), r.q0);
	POLL1(r.rcq1, &wc);
	EXPECT_WC_OK(&wc, 102, IBV_WC_RECV, r.q1, 40, 0, T_ANY, r.q0);
	POLL1(r.rcq1, &wc);
	EXPECT_WC_OK(&wc, 103, IBV_WC_RECV, r.q1, 30, IBV_WC_WITH_IMM,
		     htonl(6), r.q0);
	CHECK_FILL(r.rbuf.p, CONF_CANARY, 1024);
	CHECK_MEM(r.dst.p + 4096, r.src.p + 1000, 48);
	CHECK_MEM(r.rbuf.p + 1024, r.src.p + 2000, 40);
	CHECK_MEM(r.rbuf.p + 2048, r.src.p + 3000, 30);
	conf_rig_close(&r);
}

/*
 * (rdmamojo) "What will happen if I will deregister an MR that is used by
 * an outstanding WR? When processing a WR, if one of the MRs that are
 * specified in the WR isn't valid, a Work Completion with error will be
 * generated": a receive posted into an MR that is deregistered before the
 * message comes completes with IBV_WC_LOC_PROT_ERR; the memory is not
 * written.
 */
static void case_receive_into_deregistered_mr_completes_with_error(
	struct conf *c)
{
	struct conf_rig r;
	struct ibv_mr *mr;
	struct ibv_recv_wr w;
	struct ibv_sge sg;
	struct ibv_wc wc;

	conf_rig_open(c, &r, NULL);
	mr = CHECK_PTR(ibv_reg_mr(r.p.s[1].pd, r.rbuf.p + 8192, 4096,
				  IBV_ACCESS_LOCAL_WRITE));
	sg.addr = t_addr(&r.rbuf, 8192);
	sg.length = 4096;
	sg.lkey = mr->lkey;
	conf_recv_wr(&w, 77, &sg, 1);
	POST_RECV_OK(r.qp1, &w);
	CHECK_OK(ibv_dereg_mr(mr));
	send_at(&r, 1, 0, 100);
	POLL1(r.rcq1, &wc);
	EXPECT_WC_ERR(&wc, 77, IBV_WC_LOC_PROT_ERR, r.q1);
	POLL1(r.scq0, &wc);
	CHECK(wc.wr_id == 1 && wc.status != IBV_WC_SUCCESS);
	CHECK_FILL(r.rbuf.p + 8192, CONF_CANARY, 4096);
	conf_rig_close(&r);
}

/* ------------------------------------------------------------------------ */
/* UD                                                                       */

/*
 * "If a WR is being posted to a UD QP, the Global Routing Header (GRH) of
 * the incoming message will be placed in the first 40 bytes of the
 * buffer(s) in the scatter list ... the actual data of the incoming message
 * will start at an offset of 40 bytes into the buffer(s)": with SGEs of 16,
 * 24 and 1000 bytes the GRH area spans the first two and the data fill the
 * third; with one SGE the data start at byte 40. RoCEv2 over IPv4: the GRH
 * area holds the IPv4 header in bytes 20-39 (version 4, source and
 * destination the GIDs' IPv4 addresses), IBV_WC_GRH is set, byte_len is
 * payload + 40.
 */
static void check_ipv4_grh(const uint8_t *grh, uint32_t sip, uint32_t dip)
{
	uint32_t v;

	CHECK_EQ(grh[20] >> 4, 4);
	memcpy(&v, grh + 32, 4);
	CHECK_EQ(ntohl(v), sip);
	memcpy(&v, grh + 36, 4);
	CHECK_EQ(ntohl(v), dip);
}

static void case_ud_grh_in_first_40_bytes(struct conf *c)
{
	struct t_pair_cfg cfg;
	struct conf_rig r;
	struct ibv_recv_wr w;
	struct ibv_sge sg[3];
	struct ibv_send_wr sw;
	struct ibv_sge ssg;
	struct ibv_wc wc;
	uint8_t grh[40];
	uint32_t sip, dip;
	int i;

	conf_rig_cfg(c, &cfg);
	cfg.qp_type = IBV_QPT_UD;
	conf_rig_open(c, &r, &cfg);
	sip = conf_gid_ipv4(r.p.s[0].ctx);
	dip = conf_gid_ipv4(r.p.s[1].ctx);
	sg[0] = t_sge(&r.rbuf, 0, 16);
	sg[1] = t_sge(&r.rbuf, 100, 24);
	sg[2] = t_sge(&r.rbuf, 200, 1000);
	conf_recv_wr(&w, 1, sg, 3);
	POST_RECV_OK(r.qp1, &w);
	sg[0] = t_sge(&r.rbuf, 2048, 1040);
	conf_recv_wr(&w, 2, sg, 1);
	POST_RECV_OK(r.qp1, &w);
	for (i = 0; i < 2; i++) {
		ssg = t_sge(&r.src, 1000 * (size_t)i, 500 + 100 * (uint32_t)i);
		conf_send_wr(&sw, 10 + (uint64_t)i, IBV_WR_SEND,
			     IBV_SEND_SIGNALED, &ssg, 1);
		sw.wr.ud.ah = r.p.s[0].ah;
		sw.wr.ud.remote_qpn = r.q1;
		sw.wr.ud.remote_qkey = CONF_QKEY;
		POST_SEND_OK(r.qp0, &sw);
		POLL1(r.scq0, &wc);
		EXPECT_SQ_OK(&wc, 10 + (uint64_t)i, IBV_WC_SEND, r.q0, T_ANY);
	}
	POLL1(r.rcq1, &wc);
	EXPECT_WC_OK(&wc, 1, IBV_WC_RECV, r.q1, 540, IBV_WC_GRH, T_ANY, r.q0);
	memcpy(grh, r.rbuf.p, 16);
	memcpy(grh + 16, r.rbuf.p + 100, 24);
	check_ipv4_grh(grh, sip, dip);
	CHECK_MEM(r.rbuf.p + 200, r.src.p, 500);
	CHECK_FILL(r.rbuf.p + 16, CONF_CANARY, 84);
	CHECK_FILL(r.rbuf.p + 124, CONF_CANARY, 76);
	CHECK_FILL(r.rbuf.p + 700, CONF_CANARY, 500);
	POLL1(r.rcq1, &wc);
	EXPECT_WC_OK(&wc, 2, IBV_WC_RECV, r.q1, 640, IBV_WC_GRH, T_ANY, r.q0);
	check_ipv4_grh(r.rbuf.p + 2048, sip, dip);
	CHECK_MEM(r.rbuf.p + 2048 + 40, r.src.p + 1000, 600);
	CHECK_FILL(r.rbuf.p + 2048 + 640, CONF_CANARY, 400);
	conf_rig_close(&r);
}

/*
 * (rdmamojo) "For UD QP, an extra 40 bytes should be added to the RR
 * buffers" (else "Work Completion with error"): a 100-byte UD SEND into a
 * 100-byte receive completes it with IBV_WC_LOC_LEN_ERR; nothing is
 * written past the buffer.
 */
static void case_ud_receive_without_grh_room_fails(struct conf *c)
{
	struct t_pair_cfg cfg;
	struct conf_rig r;
	struct ibv_send_wr sw;
	struct ibv_sge ssg;
	struct ibv_wc wc;

	conf_rig_cfg(c, &cfg);
	cfg.qp_type = IBV_QPT_UD;
	conf_rig_open(c, &r, &cfg);
	post_recv_at(&r, 1, 0, 100);
	ssg = t_sge(&r.src, 0, 100);
	conf_send_wr(&sw, 2, IBV_WR_SEND, IBV_SEND_SIGNALED, &ssg, 1);
	sw.wr.ud.ah = r.p.s[0].ah;
	sw.wr.ud.remote_qpn = r.q1;
	sw.wr.ud.remote_qkey = CONF_QKEY;
	POST_SEND_OK(r.qp0, &sw);
	POLL1(r.scq0, &wc);
	EXPECT_SQ_OK(&wc, 2, IBV_WC_SEND, r.q0, T_ANY);
	POLL1(r.rcq1, &wc);
	EXPECT_WC_ERR(&wc, 1, IBV_WC_LOC_LEN_ERR, r.q1);
	CHECK_FILL(r.rbuf.p + 100, CONF_CANARY, 4096);
	conf_rig_close(&r);
}

/* ------------------------------------------------------------------------ */
/* Shared receive queues                                                    */

struct srq_rig {
	struct conf_rig r;
	struct ibv_srq *srq;
	struct ibv_qp *a[2], *b[2];	/* a[i] on side 0 -> b[i] on the SRQ */
};

static void srq_rig_open(struct conf *c, struct srq_rig *s)
{
	struct t_qp_caps caps = { .max_send_wr = 16, .max_send_sge = 1,
				  .max_recv_wr = 16, .max_recv_sge = 1 };
	struct ibv_srq_init_attr sa;
	int i;

	conf_rig_open(c, &s->r, NULL);
	memset(&sa, 0, sizeof(sa));
	sa.attr.max_wr = 32;
	sa.attr.max_sge = 2;
	s->srq = CHECK_PTR(ibv_create_srq(s->r.p.s[1].pd, &sa));
	for (i = 0; i < 2; i++) {
		s->a[i] = t_create_qp(s->r.p.s[0].pd, s->r.scq0, s->r.rcq0,
				      IBV_QPT_RC, 0, &caps, NULL);
		s->b[i] = t_create_qp_srq(s->r.p.s[1].pd, s->r.scq1,
					  s->r.rcq1, s->srq, IBV_QPT_RC, &caps);
		t_connect_qps(s->a[i], s->b[i], IBV_MTU_1024,
			      0x1000 * (uint32_t)(i + 1),
			      0x7000 * (uint32_t)(i + 1));
	}
}

static void srq_rig_close(struct srq_rig *s)
{
	int i;

	for (i = 0; i < 2; i++) {
		CHECK_OK(ibv_destroy_qp(s->a[i]));
		CHECK_OK(ibv_destroy_qp(s->b[i]));
	}
	CHECK_OK(ibv_destroy_srq(s->srq));
	conf_rig_close(&s->r);
}

/* A SEND of @len bytes of src at @off on a[i]. */
static void srq_send(struct srq_rig *s, int i, uint64_t id, size_t off,
		     uint32_t len)
{
	struct ibv_sge sg = t_sge(&s->r.src, off, len);
	struct ibv_send_wr w;
	struct ibv_wc wc;

	conf_send_wr(&w, id, IBV_WR_SEND, IBV_SEND_SIGNALED, &sg, 1);
	POST_SEND_OK(s->a[i], &w);
	POLL1(s->r.scq0, &wc);
	EXPECT_SQ_OK(&wc, id, IBV_WC_SEND, s->a[i]->qp_num, T_ANY);
}

/*
 * "If the QP qp is associated with a shared receive queue, you must use
 * the function ibv_post_srq_recv(), and not ibv_post_recv(), since the
 * QP's own receive queue will not be used": ibv_post_recv() on such a QP
 * fails (bad_wr = the WR); the next message lands in the SRQ's receive,
 * never in the refused WR's buffer.
 */
static void case_qp_on_srq_cannot_ibv_post_recv(struct conf *c)
{
	struct srq_rig s;
	struct ibv_recv_wr w, *bad = NULL;
	struct ibv_sge sg;
	struct ibv_wc wc;
	int rc;

	srq_rig_open(c, &s);
	sg = t_sge(&s.r.rbuf, 0, 1024);
	conf_recv_wr(&w, 1, &sg, 1);
	rc = ibv_post_recv(s.b[0], &w, &bad);
	CHECKF(rc == ENOMEM || rc == EINVAL,
	       "ibv_post_recv on a QP of an SRQ returned %d", rc);
	CHECK(bad == &w);
	sg = t_sge(&s.r.rbuf, 4096, 1024);
	conf_recv_wr(&w, 2, &sg, 1);
	CHECK_OK(ibv_post_srq_recv(s.srq, &w, &bad));
	srq_send(&s, 0, 10, 0, 500);
	POLL1(s.r.rcq1, &wc);
	EXPECT_WC_OK(&wc, 2, IBV_WC_RECV, s.b[0]->qp_num, 500, 0, T_ANY,
		     s.a[0]->qp_num);
	CHECK_MEM(s.r.rbuf.p + 4096, s.r.src.p, 500);
	CHECK_FILL(s.r.rbuf.p, CONF_CANARY, 1024);
	EXPECT_EMPTY(s.r.rcq1, CONF_QUIET);
	srq_rig_close(&s);
}

/*
 * ibv_post_srq_recv(): the SRQ's receives are taken in posting order
 * ("The order of the Receive Request consumptions in a Receive Queue is by
 * the order that they were posted to it. When you have a SRQ, you cannot
 * predict which Receive Request will be consumed by which QP"): messages
 * to two QPs of one SRQ, alternating, take the receives one after the
 * other; each completion has its receive's wr_id and the QP that got the
 * message.
 */
static void case_srq_receives_taken_in_posting_order(struct conf *c)
{
	struct srq_rig s;
	struct ibv_recv_wr w[6], *bad = NULL;
	struct ibv_sge sg[6];
	struct ibv_wc wc;
	int i;

	srq_rig_open(c, &s);
	for (i = 0; i < 6; i++) {
		sg[i] = t_sge(&s.r.rbuf, 2048 * (size_t)(5 - i), 2048);
		conf_recv_wr(&w[i], 40 + (uint64_t)i, &sg[i], 1);
		w[i].next = i < 5 ? &w[i + 1] : NULL;
	}
	CHECK_OK(ibv_post_srq_recv(s.srq, w, &bad));
	for (i = 0; i < 6; i++) {
		int q = (i * 5 / 3) & 1;	/* 0 1 1 0 0 1 */

		srq_send(&s, q, 1 + (uint64_t)i, 3000 * (size_t)i,
			 100 + 10 * (uint32_t)i);
		POLL1(s.r.rcq1, &wc);
		EXPECT_WC_OK(&wc, 40 + (uint64_t)i, IBV_WC_RECV,
			     s.b[q]->qp_num, 100 + 10 * i, 0, T_ANY,
			     s.a[q]->qp_num);
		CHECK_MEM(s.r.rbuf.p + 2048 * (5 - i), s.r.src.p + 3000 * i,
			  100 + 10 * (size_t)i);
	}
	EXPECT_EMPTY(s.r.rcq1, CONF_QUIET);
	srq_rig_close(&s);
}

static const struct conf_case cases[] = {
	CONF_CASE(receive_completions_in_posting_order, CONF_BOTH),
	CONF_CASE(stops_at_first_failure_returns_bad_wr, CONF_BOTH),
	CONF_CASE(enomem_when_receive_queue_full, CONF_BOTH),
	CONF_CASE(einval_for_num_sge_above_max_recv_sge, CONF_BOTH),
	CONF_CASE(wr_and_sg_list_reusable_at_return, CONF_BOTH),
	CONF_CASE(reset_refuses_receives, CONF_BOTH),
	CONF_CASE(init_accepts_receives_but_does_not_process_them, CONF_BOTH),
	CONF_CASE(err_completes_receives_with_flush_err, CONF_BOTH),
	CONF_CASE(scatter_over_sges_of_several_mrs, CONF_BOTH),
	CONF_CASE(receive_too_small_completes_with_loc_len_err, CONF_BOTH),
	CONF_CASE(zero_length_receive, CONF_BOTH),
	CONF_CASE(sge_length_0_means_2g, CONF_BOTH),
	CONF_CASE(only_send_and_write_imm_consume_receives, CONF_BOTH),
	CONF_CASE(receive_into_deregistered_mr_completes_with_error, CONF_BOTH),
	CONF_CASE(ud_grh_in_first_40_bytes, CONF_BOTH),
	CONF_CASE(ud_receive_without_grh_room_fails, CONF_BOTH),
	CONF_CASE(qp_on_srq_cannot_ibv_post_recv, CONF_BOTH),
	CONF_CASE(srq_receives_taken_in_posting_order, CONF_BOTH),
};

int main(int argc, char **argv)
{
	return conf_main(argc, argv, cases, sizeof(cases) / sizeof(cases[0]));
}
