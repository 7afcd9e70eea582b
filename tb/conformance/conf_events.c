// SPDX-License-Identifier: MIT
/*
 * conf_events.c - completion events and asynchronous events, statement by
 * statement: ibv_create_comp_channel(3), ibv_req_notify_cq(3),
 * ibv_get_cq_event(3)/ibv_ack_cq_events(3), ibv_get_async_event(3)/
 * ibv_ack_async_event(3), IBV_SEND_SOLICITED of ibv_post_send(3) and the
 * CQ overrun of ibv_poll_cq (rdmamojo).
 *
 * Side 0 sends, side 1 receives; side 1's CQs are on a completion channel.
 * On the simulated RNIC poll()/select() and the blocking calls run the
 * simulation and their timeouts are simulated time (docs/time-model.md).
 */
#define _DEFAULT_SOURCE

#include "conf.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/select.h>
#include <unistd.h>

#define EV_BUF 16384

/* A connected RC pair whose side-1 CQs are on a channel, with cq_context
 * &marker; side 1's QP optionally on an SRQ. */
struct ev_rig {
	struct ibv_context *ctx[2];
	struct ibv_pd *pd[2];
	struct ibv_comp_channel *ch;
	struct ibv_cq *scq[2], *rcq[2];
	struct ibv_srq *srq;
	struct ibv_qp *qp[2];
	struct t_buf src, dst;
	int loopback;
	int marker;
	uint64_t id;
};

struct ev_cfg {
	int rcqe;		/* side 1's receive CQ (0: 64) */
	int srq_wr;		/* != 0: side 1's QP on an SRQ of this many WRs */
	int no_dest_rd;		/* side 1 takes no READ (max_dest_rd_atomic 0) */
};

static void ev_open(const struct conf *c, struct ev_rig *r,
		    const struct ev_cfg *ec)
{
	struct t_qp_caps caps = { 32, 32, 1, 1, 0, 0 };
	struct t_qp_attrs at[2];
	union ibv_gid g[2];
	int i;

	memset(r, 0, sizeof(*r));
	r->loopback = c->loopback;
	r->ctx[0] = t_open_device(T_DEV0);
	r->ctx[1] = c->loopback ? r->ctx[0] : t_open_device(T_DEV1);
	r->pd[0] = CHECK_PTR(ibv_alloc_pd(r->ctx[0]));
	r->pd[1] = c->loopback ? r->pd[0] : CHECK_PTR(ibv_alloc_pd(r->ctx[1]));
	r->ch = CHECK_PTR(ibv_create_comp_channel(r->ctx[1]));
	CHECK(r->ch->context == r->ctx[1]);
	CHECK(r->ch->fd >= 0);
	r->scq[0] = t_create_cq(r->ctx[0], 64);
	r->rcq[0] = t_create_cq(r->ctx[0], 64);
	r->scq[1] = t_create_cq_ch(r->ctx[1], 64, r->ch, &r->marker);
	r->rcq[1] = t_create_cq_ch(r->ctx[1], ec && ec->rcqe ? ec->rcqe : 64,
				   r->ch, &r->marker);
	CHECK(r->rcq[1]->channel == r->ch);
	CHECK(r->rcq[1]->cq_context == &r->marker);
	r->qp[0] = t_create_rc_qp(r->pd[0], r->scq[0], r->rcq[0], &caps, NULL);
	if (ec && ec->srq_wr) {
		struct ibv_srq_init_attr sa;

		memset(&sa, 0, sizeof(sa));
		sa.attr.max_wr = ec->srq_wr;
		sa.attr.max_sge = 1;
		r->srq = CHECK_PTR(ibv_create_srq(r->pd[1], &sa));
		r->qp[1] = t_create_qp_srq(r->pd[1], r->scq[1], r->rcq[1], r->srq,
					   IBV_QPT_RC, &caps);
	} else {
		r->qp[1] = t_create_rc_qp(r->pd[1], r->scq[1], r->rcq[1], &caps,
					  NULL);
	}
	for (i = 0; i < 2; i++) {
		t_qp_default_attrs(&at[i]);
		t_query_gid(r->ctx[i], &g[i]);
	}
	if (ec && ec->no_dest_rd)
		at[1].max_dest_rd_atomic = 0;
	t_qp_to_rts_attrs(r->qp[0], IBV_MTU_1024, &g[1], r->qp[1]->qp_num,
			  0x1000, 0x100, &at[0]);
	t_qp_to_rts_attrs(r->qp[1], IBV_MTU_1024, &g[0], r->qp[0]->qp_num,
			  0x100, 0x1000, &at[1]);
	t_buf_alloc(&r->src, r->pd[0], EV_BUF);
	t_buf_alloc(&r->dst, r->pd[1], EV_BUF);
	t_fill(r->src.p, EV_BUF, 0xe7e7 + (uint64_t)c->setup);
	r->id = 1;
}

static void ev_close(struct ev_rig *r)
{
	int i;

	t_buf_free(&r->src);
	t_buf_free(&r->dst);
	for (i = 0; i < 2; i++)
		CHECK_OK(ibv_destroy_qp(r->qp[i]));
	if (r->srq)
		CHECK_OK(ibv_destroy_srq(r->srq));
	for (i = 0; i < 2; i++) {
		CHECK_OK(ibv_destroy_cq(r->scq[i]));
		CHECK_OK(ibv_destroy_cq(r->rcq[i]));
	}
	CHECK_OK(ibv_destroy_comp_channel(r->ch));
	for (i = 0; i < (r->loopback ? 1 : 2); i++) {
		CHECK_OK(ibv_dealloc_pd(r->pd[i]));
		CHECK_OK(ibv_close_device(r->ctx[i]));
	}
}

/* Posts a receive for the next message on side 1 (QP or SRQ). */
static void ev_post_recv(struct ev_rig *r, uint64_t id)
{
	struct ibv_sge sg = t_sge(&r->dst, 256 * (id % 64), 256);
	struct ibv_recv_wr wr, *bad;

	conf_recv_wr(&wr, id, &sg, 1);
	if (r->srq)
		CHECK_OK(ibv_post_srq_recv(r->srq, &wr, &bad));
	else
		POST_RECV_OK(r->qp[1], &wr);
}

/* A SEND (op SEND, or RDMA_WRITE_WITH_IMM) of 48 bytes from side 0 with
 * @flags, a receive posted for it (unless @no_recv), its send completion
 * polled. Returns its wr_id (also the receive's). */
static uint64_t ev_send(struct ev_rig *r, enum ibv_wr_opcode op,
			unsigned int flags, int no_recv)
{
	uint64_t id = r->id++;
	struct ibv_send_wr w;
	struct ibv_sge sg;
	struct ibv_wc wc;

	if (!no_recv)
		ev_post_recv(r, id);
	sg = t_sge(&r->src, 64 * (id % 64), 48);
	if (op == IBV_WR_RDMA_WRITE_WITH_IMM) {
		conf_rdma_wr(&w, id, op, IBV_SEND_SIGNALED | flags, &sg, 1,
			     &r->dst, 8192);
		w.imm_data = htonl((uint32_t)id);
	} else {
		conf_send_wr(&w, id, op, IBV_SEND_SIGNALED | flags, &sg, 1);
	}
	POST_SEND_OK(r->qp[0], &w);
	POLL1(r->scq[0], &wc);
	EXPECT_SQ_OK(&wc, id, op == IBV_WR_SEND ? IBV_WC_SEND : IBV_WC_RDMA_WRITE,
		     r->qp[0]->qp_num, T_ANY);
	return id;
}

/* The receive completion of message @id, every byte where it belongs. */
static void ev_expect_recv(struct ev_rig *r, uint64_t id)
{
	struct ibv_wc wc;

	POLL1(r->rcq[1], &wc);
	CHECK_EQ(wc.wr_id, id);
	CHECK_EQ(wc.status, IBV_WC_SUCCESS);
	CHECK_EQ(wc.byte_len, 48);
	CHECK_EQ(wc.qp_num, r->qp[1]->qp_num);
	if (wc.opcode == IBV_WC_RECV)
		CHECK_MEM(r->dst.p + 256 * (id % 64), r->src.p + 64 * (id % 64), 48);
	else
		CHECK_MEM(r->dst.p + 8192, r->src.p + 64 * (id % 64), 48);
}

/* ------------------------------------------------------------------------ */
/* Completion events                                                        */

/*
 * ibv_req_notify_cq(cq, 0): "the next completion ... of any type" gives a
 * completion event on the CQ's channel; ibv_get_cq_event() returns the CQ
 * and its cq_context; poll() on the channel's fd waits for it; no event
 * without arming; one event per arming (a second completion without
 * re-arming gives none).
 */
static void case_req_notify_cq_next_completion_gives_one_event(struct conf *c)
{
	struct ev_rig r;
	struct ibv_cq *cq;
	void *ctx;
	uint64_t id;

	ev_open(c, &r, NULL);
	/* Not armed: a completion, no event. */
	id = ev_send(&r, IBV_WR_SEND, 0, 0);
	ev_expect_recv(&r, id);
	EXPECT_FD_QUIET(r.ch->fd, T_QUIET_MS);

	CHECK_OK(ibv_req_notify_cq(r.rcq[1], 0));
	EXPECT_FD_QUIET(r.ch->fd, 0);
	id = ev_send(&r, IBV_WR_SEND, 0, 0);
	EXPECT_FD_READY(r.ch->fd, T_EVENT_MS);
	CHECK_OK(ibv_get_cq_event(r.ch, &cq, &ctx));
	CHECK(cq == r.rcq[1]);
	CHECK(ctx == &r.marker);
	ev_expect_recv(&r, id);

	/* Not re-armed: the next completion gives no event. */
	id = ev_send(&r, IBV_WR_SEND, 0, 0);
	ev_expect_recv(&r, id);
	EXPECT_FD_QUIET(r.ch->fd, 0);
	ibv_ack_cq_events(r.rcq[1], 1);
	ev_close(&r);
}

/*
 * "the next Work Completion that will be added to the CQ will generate
 * Completion event ... and it doesn't matter if the CQ is empty or not"
 * (ibv_poll_cq, rdmamojo): armed while a completion waits unpolled, the
 * next completion gives the event; both completions are then polled.
 */
static void case_event_on_next_completion_empty_cq_or_not(struct conf *c)
{
	struct ev_rig r;
	uint64_t id0, id1;

	ev_open(c, &r, NULL);
	id0 = ev_send(&r, IBV_WR_SEND, 0, 0);
	/* Let the first receive completion land, unpolled. */
	conf_idle(r.ctx[1], 20);
	CHECK_OK(ibv_req_notify_cq(r.rcq[1], 0));
	id1 = ev_send(&r, IBV_WR_SEND, 0, 0);
	EXPECT_FD_READY(r.ch->fd, T_EVENT_MS);
	EXPECT_CQ_EVENT(r.ch, r.rcq[1], &r.marker);
	ev_expect_recv(&r, id0);
	ev_expect_recv(&r, id1);
	ibv_ack_cq_events(r.rcq[1], 1);
	ev_close(&r);
}

/*
 * ibv_req_notify_cq(cq, 1): an event only for "the next solicited
 * completion" — a receive of a message whose sender set IBV_SEND_SOLICITED
 * (ibv_post_send(3): "Set the solicited event indicator for this
 * message"): an unsolicited SEND and an unsolicited RDMA WRITE with
 * immediate complete without an event; a solicited SEND gives one.
 */
static void case_solicited_only_event_for_solicited_completion(struct conf *c)
{
	struct ev_rig r;
	uint64_t id;

	ev_open(c, &r, NULL);
	CHECK_OK(ibv_req_notify_cq(r.rcq[1], 1));
	id = ev_send(&r, IBV_WR_SEND, 0, 0);
	ev_expect_recv(&r, id);
	id = ev_send(&r, IBV_WR_RDMA_WRITE_WITH_IMM, 0, 0);
	ev_expect_recv(&r, id);
	EXPECT_FD_QUIET(r.ch->fd, T_QUIET_MS);
	id = ev_send(&r, IBV_WR_SEND, IBV_SEND_SOLICITED, 0);
	EXPECT_FD_READY(r.ch->fd, T_EVENT_MS);
	EXPECT_CQ_EVENT(r.ch, r.rcq[1], &r.marker);
	ev_expect_recv(&r, id);
	ibv_ack_cq_events(r.rcq[1], 1);
	ev_close(&r);
}

/*
 * IBV_SEND_SOLICITED on an RDMA WRITE with immediate (IBA: the SE bit of
 * RDMA WRITE Last/Only with Immediate): the receive it consumes is a
 * solicited completion and wakes a CQ armed for solicited completions.
 */
static void case_solicited_write_with_imm_gives_event(struct conf *c)
{
	struct ev_rig r;
	uint64_t id;

	ev_open(c, &r, NULL);
	CHECK_OK(ibv_req_notify_cq(r.rcq[1], 1));
	id = ev_send(&r, IBV_WR_RDMA_WRITE_WITH_IMM, IBV_SEND_SOLICITED, 0);
	/* The completion is there: an event would be too. */
	EXPECT_FD_READY(r.ch->fd, 10);
	EXPECT_CQ_EVENT(r.ch, r.rcq[1], &r.marker);
	ev_expect_recv(&r, id);
	ibv_ack_cq_events(r.rcq[1], 1);
	ev_close(&r);
}

/*
 * The channel's fd is a file descriptor select() can wait on: select()
 * returns when the event comes (leaving the time not waited in the
 * timeval), and times out when nothing comes.
 */
static void case_comp_channel_fd_select_waits_for_event(struct conf *c)
{
	struct ev_rig r;
	struct timeval tv;
	struct ibv_send_wr w;
	struct ibv_sge sg;
	struct ibv_wc wc;
	fd_set rd;
	int fd;

	ev_open(c, &r, NULL);
	fd = r.ch->fd;
	CHECK_OK(ibv_req_notify_cq(r.rcq[1], 0));
	ev_post_recv(&r, 7);
	sg = t_sge(&r.src, 64 * 7, 48);
	conf_send_wr(&w, 7, IBV_WR_SEND, IBV_SEND_SIGNALED, &sg, 1);
	POST_SEND_OK(r.qp[0], &w);	/* select() lets it travel */
	FD_ZERO(&rd);
	FD_SET(fd, &rd);
	tv.tv_sec = 0;
	tv.tv_usec = T_EVENT_MS * 1000;
	CHECK_EQ(select(fd + 1, &rd, NULL, NULL, &tv), 1);
	CHECK(FD_ISSET(fd, &rd));
	CHECK(tv.tv_usec > 0 && tv.tv_usec < T_EVENT_MS * 1000);
	EXPECT_CQ_EVENT(r.ch, r.rcq[1], &r.marker);
	ev_expect_recv(&r, 7);
	POLL1(r.scq[0], &wc);
	EXPECT_SQ_OK(&wc, 7, IBV_WC_SEND, r.qp[0]->qp_num, T_ANY);
	ibv_ack_cq_events(r.rcq[1], 1);

	FD_ZERO(&rd);
	FD_SET(fd, &rd);
	tv.tv_sec = 0;
	tv.tv_usec = 1000;
	CHECK_EQ(select(fd + 1, &rd, NULL, NULL, &tv), 0);
	CHECK(!FD_ISSET(fd, &rd));
	ev_close(&r);
}

/*
 * ibv_get_cq_event() "is a blocking function": called right after posting
 * (no poll() first) it waits until the completion event arrives.
 */
static void case_get_cq_event_blocks_until_event(struct conf *c)
{
	struct ev_rig r;
	struct ibv_send_wr w;
	struct ibv_sge sg;
	struct ibv_wc wc;

	ev_open(c, &r, NULL);
	CHECK_OK(ibv_req_notify_cq(r.rcq[1], 0));
	ev_post_recv(&r, 9);
	sg = t_sge(&r.src, 64 * 9, 48);
	conf_send_wr(&w, 9, IBV_WR_SEND, IBV_SEND_SIGNALED, &sg, 1);
	POST_SEND_OK(r.qp[0], &w);
	EXPECT_CQ_EVENT(r.ch, r.rcq[1], &r.marker);
	ev_expect_recv(&r, 9);
	POLL1(r.scq[0], &wc);
	EXPECT_SQ_OK(&wc, 9, IBV_WC_SEND, r.qp[0]->qp_num, T_ANY);
	ibv_ack_cq_events(r.rcq[1], 1);
	ev_close(&r);
}

/*
 * ibv_ack_cq_events(cq, nevents) acknowledges several events in one call
 * ("all completion events ... must be acknowledged" before ibv_destroy_cq):
 * three events of the receive CQ and one of the send CQ on the same
 * channel, each event names its own CQ; acknowledged with two calls, the
 * CQs are destroyed (a missing acknowledgement would make ibv_destroy_cq
 * wait).
 */
static void case_ack_cq_events_acknowledges_several(struct conf *c)
{
	struct ev_rig r;
	struct ibv_send_wr w;
	struct ibv_sge sg;
	struct ibv_wc wc;
	uint64_t id;
	int i;

	ev_open(c, &r, NULL);
	for (i = 0; i < 3; i++) {
		CHECK_OK(ibv_req_notify_cq(r.rcq[1], 0));
		id = ev_send(&r, IBV_WR_SEND, 0, 0);
		EXPECT_FD_READY(r.ch->fd, T_EVENT_MS);
		EXPECT_CQ_EVENT(r.ch, r.rcq[1], &r.marker);
		ev_expect_recv(&r, id);
	}
	/* Side 1 sends: its send CQ's event comes through the same channel. */
	CHECK_OK(ibv_req_notify_cq(r.scq[1], 0));
	sg = t_sge(&r.dst, 0, 16);
	conf_rdma_wr(&w, 77, IBV_WR_RDMA_WRITE, IBV_SEND_SIGNALED, &sg, 1,
		     &r.src, 4096);
	POST_SEND_OK(r.qp[1], &w);
	EXPECT_FD_READY(r.ch->fd, T_EVENT_MS);
	EXPECT_CQ_EVENT(r.ch, r.scq[1], &r.marker);
	POLL1(r.scq[1], &wc);
	EXPECT_SQ_OK(&wc, 77, IBV_WC_RDMA_WRITE, r.qp[1]->qp_num, T_ANY);
	CHECK_MEM(r.src.p + 4096, r.dst.p, 16);
	ibv_ack_cq_events(r.rcq[1], 3);
	ibv_ack_cq_events(r.scq[1], 1);
	/* ibv_destroy_comp_channel() is refused while CQs use the channel. */
	CHECK_EQ(ibv_destroy_comp_channel(r.ch), EBUSY);
	ev_close(&r);
}

/*
 * An O_NONBLOCK channel fd: ibv_get_cq_event() returns -1 with EAGAIN when
 * no event is there ("the user can change ... the file descriptor to
 * non-blocking"); the fd is readable once an event is there.
 */
static void case_nonblocking_channel_fd_eagain_when_no_event(struct conf *c)
{
	struct ev_rig r;
	struct ibv_cq *cq;
	void *ctx;
	uint64_t id;
	int fl;

	ev_open(c, &r, NULL);
	fl = fcntl(r.ch->fd, F_GETFL);
	CHECK(fl >= 0);
	CHECK_OK(fcntl(r.ch->fd, F_SETFL, fl | O_NONBLOCK));
	errno = 0;
	CHECK_EQ(ibv_get_cq_event(r.ch, &cq, &ctx), -1);
	CHECK_EQ(errno, EAGAIN);
	CHECK_OK(ibv_req_notify_cq(r.rcq[1], 0));
	id = ev_send(&r, IBV_WR_SEND, 0, 0);
	EXPECT_FD_READY(r.ch->fd, T_EVENT_MS);
	CHECK_OK(ibv_get_cq_event(r.ch, &cq, &ctx));
	CHECK(cq == r.rcq[1] && ctx == &r.marker);
	ev_expect_recv(&r, id);
	errno = 0;
	CHECK_EQ(ibv_get_cq_event(r.ch, &cq, &ctx), -1);
	CHECK_EQ(errno, EAGAIN);
	ibv_ack_cq_events(r.rcq[1], 1);
	ev_close(&r);
}

/* ------------------------------------------------------------------------ */
/* Asynchronous events                                                      */

/*
 * "In case of an CQ overrun, the async event IBV_EVENT_CQ_ERR will be
 * triggered, and the CQ cannot be used anymore" (ibv_poll_cq, rdmamojo):
 * three receive completions into a CQ of two, none polled: the event names
 * the CQ (async_fd readable, ibv_get_async_event, acknowledged), the
 * connected QPs that use it (as receive CQ, and another as send CQ) go to
 * ERR, QPs on other CQs stay in RTS; the two CQEs that fitted are still there,
 * nothing after them.
 */
static void case_cq_overrun_gives_cq_err_and_its_qps_to_err(struct conf *c)
{
	struct t_qp_caps caps = { 8, 8, 1, 1, 0, 0 };
	struct ev_cfg ec = { .rcqe = 2 };
	struct ibv_qp *qx, *qx0;
	struct ibv_cq *other, *other0;
	struct ev_rig r;
	struct ibv_wc wc;
	int i;

	ev_open(c, &r, &ec);
	CHECK_EQ(r.rcq[1]->cqe, 2);
	other = t_create_cq(r.ctx[1], 8);
	other0 = t_create_cq(r.ctx[0], 8);
	/* Side 1 also has qx (connected to qx0 of side 0), which sends into
	 * the small CQ. */
	qx = t_create_rc_qp(r.pd[1], r.rcq[1], other, &caps, NULL);
	qx0 = t_create_rc_qp(r.pd[0], other0, other0, &caps, NULL);
	t_connect_qps(qx0, qx, IBV_MTU_1024, 0x500, 0x600);
	EXPECT_FD_QUIET(r.ctx[1]->async_fd, 0);
	for (i = 0; i < 3; i++)
		ev_send(&r, IBV_WR_SEND, 0, 0);
	EXPECT_ASYNC_EVENT(r.ctx[1], IBV_EVENT_CQ_ERR, r.rcq[1]);
	CHECK_EQ(conf_qp_state(r.qp[1]), IBV_QPS_ERR);
	CHECK_EQ(conf_qp_state(qx), IBV_QPS_ERR);
	CHECK_EQ(conf_qp_state(r.qp[0]), IBV_QPS_RTS);
	for (i = 0; i < 2; i++) {
		POLL1(r.rcq[1], &wc);
		EXPECT_WC_OK(&wc, 1 + (uint64_t)i, IBV_WC_RECV,
			     r.qp[1]->qp_num, 48, 0, T_ANY, T_ANY);
	}
	EXPECT_EMPTY(r.rcq[1], CONF_QUIET);
	EXPECT_FD_QUIET(r.ctx[1]->async_fd, 0);
	CHECK_EQ(conf_qp_state(qx0), IBV_QPS_RTS);
	CHECK_OK(ibv_destroy_qp(qx));
	CHECK_OK(ibv_destroy_qp(qx0));
	CHECK_OK(ibv_destroy_cq(other));
	CHECK_OK(ibv_destroy_cq(other0));
	ev_close(&r);
}

/*
 * IBV_EVENT_QP_ACCESS_ERR ("Local access violation error"): an RDMA WRITE
 * with a wrong rkey is refused by the responder, whose QP gets the event
 * and goes to ERR; the requester learns it from its completion
 * (IBV_WC_REM_ACCESS_ERR) and gets no event.
 */
static void case_remote_access_error_gives_qp_access_err(struct conf *c)
{
	struct ibv_send_wr w;
	struct ibv_sge sg;
	struct ibv_wc wc;
	struct ev_rig r;

	ev_open(c, &r, NULL);
	memset(r.dst.p, CONF_CANARY, 256);
	sg = t_sge(&r.src, 0, 64);
	conf_rdma_wr(&w, 5, IBV_WR_RDMA_WRITE, IBV_SEND_SIGNALED, &sg, 1,
		     &r.dst, 0);
	w.wr.rdma.rkey ^= 0x40;
	POST_SEND_OK(r.qp[0], &w);
	POLL1(r.scq[0], &wc);
	EXPECT_WC_ERR(&wc, 5, IBV_WC_REM_ACCESS_ERR, r.qp[0]->qp_num);
	EXPECT_ASYNC_EVENT(r.ctx[1], IBV_EVENT_QP_ACCESS_ERR, r.qp[1]);
	CHECK_EQ(conf_qp_state(r.qp[1]), IBV_QPS_ERR);
	CHECK_FILL(r.dst.p, CONF_CANARY, 256);
	EXPECT_FD_QUIET(r.ctx[0]->async_fd, T_QUIET_MS);
	if (!r.loopback)
		EXPECT_FD_QUIET(r.ctx[1]->async_fd, 0);
	ev_close(&r);
}

/*
 * IBV_EVENT_QP_REQ_ERR ("Invalid request local work queue error"): an RDMA
 * READ to a responder that takes none (max_dest_rd_atomic 0) is an invalid
 * request: the requester completes with IBV_WC_REM_INV_REQ_ERR, the
 * responder's QP gets the event and goes to ERR.
 */
static void case_invalid_request_gives_qp_req_err(struct conf *c)
{
	struct ev_cfg ec = { .no_dest_rd = 1 };
	struct ibv_send_wr w;
	struct ibv_sge sg;
	struct ibv_wc wc;
	struct ev_rig r;

	ev_open(c, &r, &ec);
	sg = t_sge(&r.src, 0, 64);
	conf_rdma_wr(&w, 6, IBV_WR_RDMA_READ, IBV_SEND_SIGNALED, &sg, 1,
		     &r.dst, 0);
	POST_SEND_OK(r.qp[0], &w);
	POLL1(r.scq[0], &wc);
	EXPECT_WC_ERR(&wc, 6, IBV_WC_REM_INV_REQ_ERR, r.qp[0]->qp_num);
	EXPECT_ASYNC_EVENT(r.ctx[1], IBV_EVENT_QP_REQ_ERR, r.qp[1]);
	CHECK_EQ(conf_qp_state(r.qp[1]), IBV_QPS_ERR);
	EXPECT_FD_QUIET(r.ctx[1]->async_fd, 0);
	ev_close(&r);
}

/*
 * IBV_EVENT_SRQ_LIMIT_REACHED: ibv_modify_srq(IBV_SRQ_LIMIT) arms the
 * limit; the event comes when fewer WRs than the limit remain in the SRQ,
 * once (the limit then reads 0); more messages give no second event.
 */
static void case_srq_limit_reached_event(struct conf *c)
{
	struct ev_cfg ec = { .srq_wr = 16 };
	struct ibv_srq_attr a;
	struct ev_rig r;
	uint64_t id[8];
	int i;

	ev_open(c, &r, &ec);
	for (i = 0; i < 8; i++)
		ev_post_recv(&r, (uint64_t)i + 1);
	memset(&a, 0, sizeof(a));
	a.srq_limit = 5;
	CHECK_OK(ibv_modify_srq(r.srq, &a, IBV_SRQ_LIMIT));
	CHECK_OK(ibv_query_srq(r.srq, &a));
	CHECK_EQ(a.srq_limit, 5);
	/* 8 -> 5 WRs left: not below the limit. */
	for (i = 0; i < 3; i++)
		id[i] = ev_send(&r, IBV_WR_SEND, 0, 1);
	for (i = 0; i < 3; i++)
		ev_expect_recv(&r, id[i]);
	EXPECT_FD_QUIET(r.ctx[1]->async_fd, T_QUIET_MS);
	/* 4 left: the event. */
	id[3] = ev_send(&r, IBV_WR_SEND, 0, 1);
	EXPECT_ASYNC_EVENT(r.ctx[1], IBV_EVENT_SRQ_LIMIT_REACHED, r.srq);
	ev_expect_recv(&r, id[3]);
	CHECK_OK(ibv_query_srq(r.srq, &a));
	CHECK_EQ(a.srq_limit, 0);
	id[4] = ev_send(&r, IBV_WR_SEND, 0, 1);
	ev_expect_recv(&r, id[4]);
	EXPECT_FD_QUIET(r.ctx[1]->async_fd, 0);
	ev_close(&r);
}

/*
 * IBV_EVENT_QP_LAST_WQE_REACHED: a QP on an SRQ that goes to ERR reports
 * that its last WQE was reached — after ibv_modify_qp(ERR), and after a
 * remote access error (then after IBV_EVENT_QP_ACCESS_ERR).
 */
static void case_last_wqe_reached_when_srq_qp_goes_to_err(struct conf *c)
{
	struct ev_cfg ec = { .srq_wr = 16 };
	struct ibv_send_wr w;
	struct ibv_sge sg;
	struct ibv_wc wc;
	struct ev_rig r;
	uint64_t id;
	int k;

	for (k = 0; k < 2; k++) {
		ev_open(c, &r, &ec);
		ev_post_recv(&r, 1);
		ev_post_recv(&r, 2);
		id = ev_send(&r, IBV_WR_SEND, 0, 1);
		ev_expect_recv(&r, id);
		if (k == 0) {
			conf_qp_to(r.qp[1], IBV_QPS_ERR);
		} else {
			sg = t_sge(&r.src, 0, 16);
			conf_rdma_wr(&w, 50, IBV_WR_RDMA_WRITE,
				     IBV_SEND_SIGNALED, &sg, 1, &r.dst, 0);
			w.wr.rdma.rkey ^= 0x80;
			POST_SEND_OK(r.qp[0], &w);
			POLL1(r.scq[0], &wc);
			EXPECT_WC_ERR(&wc, 50, IBV_WC_REM_ACCESS_ERR,
				      r.qp[0]->qp_num);
			EXPECT_ASYNC_EVENT(r.ctx[1], IBV_EVENT_QP_ACCESS_ERR,
					   r.qp[1]);
		}
		EXPECT_ASYNC_EVENT(r.ctx[1], IBV_EVENT_QP_LAST_WQE_REACHED,
				   r.qp[1]);
		CHECK_EQ(conf_qp_state(r.qp[1]), IBV_QPS_ERR);
		/* The SRQ's WQE stays in the SRQ: no flush of it. */
		EXPECT_EMPTY(r.rcq[1], CONF_QUIET);
		ev_close(&r);
	}
}

/*
 * ibv_get_async_event() "is a blocking function"; with async_fd made
 * non-blocking it returns -1 with EAGAIN when there is no event.
 */
static void case_get_async_event_nonblocking_eagain(struct conf *c)
{
	struct ibv_async_event ev;
	struct ibv_context *ctx = t_open_device(T_DEV0);
	int fl = fcntl(ctx->async_fd, F_GETFL);

	(void)c;
	CHECK(fl >= 0);
	CHECK_OK(fcntl(ctx->async_fd, F_SETFL, fl | O_NONBLOCK));
	errno = 0;
	CHECK_EQ(ibv_get_async_event(ctx, &ev), -1);
	CHECK_EQ(errno, EAGAIN);
	EXPECT_FD_QUIET(ctx->async_fd, 0);
	CHECK_OK(ibv_close_device(ctx));
}

static const struct conf_case cases[] = {
	CONF_CASE(req_notify_cq_next_completion_gives_one_event, CONF_BOTH),
	CONF_CASE(event_on_next_completion_empty_cq_or_not, CONF_BOTH),
	CONF_CASE(solicited_only_event_for_solicited_completion, CONF_BOTH),
	CONF_CASE(solicited_write_with_imm_gives_event, CONF_BOTH),
	CONF_CASE(comp_channel_fd_select_waits_for_event, CONF_BOTH),
	CONF_CASE(get_cq_event_blocks_until_event, CONF_BOTH),
	CONF_CASE(ack_cq_events_acknowledges_several, CONF_BOTH),
	CONF_CASE(nonblocking_channel_fd_eagain_when_no_event, CONF_BOTH),
	CONF_CASE(cq_overrun_gives_cq_err_and_its_qps_to_err, CONF_BOTH),
	CONF_CASE(remote_access_error_gives_qp_access_err, CONF_BOTH),
	CONF_CASE(invalid_request_gives_qp_req_err, CONF_BOTH),
	CONF_CASE(srq_limit_reached_event, CONF_BOTH),
	CONF_CASE(last_wqe_reached_when_srq_qp_goes_to_err, CONF_BOTH),
	CONF_CASE(get_async_event_nonblocking_eagain, CONF_LOCAL),
};

int main(int argc, char **argv)
{
	return conf_main(argc, argv, cases, sizeof(cases) / sizeof(cases[0]));
}
