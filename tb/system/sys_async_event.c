// SPDX-License-Identifier: MIT
/*
 * sys_async_event.c - asynchronous events (ibv_get_async_event,
 * ibv_ack_async_event) on context->async_fd, which poll()/select() can
 * wait on.
 *
 *   qp_access_err         a WRITE with a wrong rkey: the requester gets
 *                         IBV_WC_REM_ACCESS_ERR, the responder's owner
 *                         IBV_EVENT_QP_ACCESS_ERR for its QP, which is in ERR;
 *                         the requester's side gets no event
 *   qp_req_err            a READ to a responder that takes none
 *                         (max_dest_rd_atomic 0): IBV_WC_REM_INV_REQ_ERR and
 *                         IBV_EVENT_QP_REQ_ERR at the responder (select())
 *   cq_polled_no_overrun  more messages than the receive CQ holds, each
 *                         receive completion polled in between: the doorbell
 *                         record tells the RNIC there is room, no event
 *   cq_overrun            more receive completions than the CQ holds, not
 *                         polled: IBV_EVENT_CQ_ERR for the CQ, and every QP
 *                         that uses the CQ (as send or receive CQ) ends in
 *                         ERR; a QP on other CQs stays in RTS; the CQEs that
 *                         fitted are still polled
 *   async_fd_nonblock     O_NONBLOCK async_fd: ibv_get_async_event() fails
 *                         with EAGAIN when there is nothing
 *   unread_event_destroy  a QP whose event was never read is destroyed at
 *                         once (the event is dropped)
 */
#define _DEFAULT_SOURCE

#include "common.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/select.h>

#define BUF_LEN 4096

static enum ibv_qp_state qp_state(struct ibv_qp *qp)
{
	struct ibv_qp_init_attr ia;
	struct ibv_qp_attr a;

	CHECK_OK(ibv_query_qp(qp, &a, IBV_QP_STATE, &ia));
	return a.qp_state;
}

static void qp_access_err(void)
{
	struct t_pair_cfg cfg;
	struct t_buf src, dst;
	struct ibv_sge sg;
	struct ibv_wc wc;
	struct t_pair p;

	t_pair_default_cfg(&cfg);
	t_pair_open(&p, &cfg);
	t_buf_alloc(&src, p.s[0].pd, BUF_LEN);
	t_buf_alloc(&dst, p.s[1].pd, BUF_LEN);
	EXPECT_FD_QUIET(p.s[1].ctx->async_fd, 0);

	sg = t_sge(&src, 0, 64);
	POST_SEND(p.s[0].qp, 1, IBV_WR_RDMA_WRITE, IBV_SEND_SIGNALED, &sg, 1,
		  t_addr(&dst, 0), dst.mr->rkey ^ 0x40, 0);
	POLL(p.s[0].scq, 1, &wc);
	EXPECT_WC(&wc, 1, IBV_WC_REM_ACCESS_ERR, T_ANY, p.s[0].qp->qp_num, T_ANY,
		  T_ANY, T_ANY);
	EXPECT_ASYNC_EVENT(p.s[1].ctx, IBV_EVENT_QP_ACCESS_ERR, p.s[1].qp);
	CHECK_EQ(qp_state(p.s[1].qp), IBV_QPS_ERR);
	CHECK_EQ(p.s[1].qp->state, IBV_QPS_ERR);
	/* The requester learnt it from its completion: no event there. */
	EXPECT_FD_QUIET(p.s[0].ctx->async_fd, T_QUIET_MS);
	EXPECT_FD_QUIET(p.s[1].ctx->async_fd, T_QUIET_MS);
	t_buf_free(&src);
	t_buf_free(&dst);
	t_pair_close(&p);
	printf("qp_access_err: ok\n");
}

static void qp_req_err(void)
{
	struct ibv_async_event ev;
	struct t_pair_cfg cfg;
	struct t_buf src, dst;
	struct timeval tv;
	struct ibv_sge sg;
	struct ibv_wc wc;
	struct t_pair p;
	fd_set rd;
	int fd;

	t_pair_default_cfg(&cfg);
	cfg.attrs[1].max_dest_rd_atomic = 0;	/* the responder takes no READ */
	t_pair_open(&p, &cfg);
	t_buf_alloc(&src, p.s[0].pd, BUF_LEN);
	t_buf_alloc(&dst, p.s[1].pd, BUF_LEN);

	sg = t_sge(&src, 0, 64);
	POST_SEND(p.s[0].qp, 2, IBV_WR_RDMA_READ, IBV_SEND_SIGNALED, &sg, 1,
		  t_addr(&dst, 0), dst.mr->rkey, 0);
	POLL(p.s[0].scq, 1, &wc);
	EXPECT_WC(&wc, 2, IBV_WC_REM_INV_REQ_ERR, T_ANY, p.s[0].qp->qp_num, T_ANY,
		  T_ANY, T_ANY);

	/* Waited for with select(), whose timeout is simulated time. */
	fd = p.s[1].ctx->async_fd;
	FD_ZERO(&rd);
	FD_SET(fd, &rd);
	tv.tv_sec = 0;
	tv.tv_usec = T_EVENT_MS * 1000;
	CHECK_EQ(select(fd + 1, &rd, NULL, NULL, &tv), 1);
	CHECK(FD_ISSET(fd, &rd));
	CHECK(tv.tv_sec == 0 && tv.tv_usec <= T_EVENT_MS * 1000);
	CHECK_OK(ibv_get_async_event(p.s[1].ctx, &ev));
	CHECK_EQ(ev.event_type, IBV_EVENT_QP_REQ_ERR);
	CHECK(ev.element.qp == p.s[1].qp);
	ibv_ack_async_event(&ev);
	CHECK_EQ(qp_state(p.s[1].qp), IBV_QPS_ERR);

	/* Nothing more: select() times out and clears the set. */
	FD_ZERO(&rd);
	FD_SET(fd, &rd);
	tv.tv_sec = 0;
	tv.tv_usec = T_QUIET_MS * 1000;
	CHECK_EQ(select(fd + 1, &rd, NULL, NULL, &tv), 0);
	CHECK(!FD_ISSET(fd, &rd));
	CHECK(tv.tv_sec == 0 && tv.tv_usec == 0);
	t_buf_free(&src);
	t_buf_free(&dst);
	t_pair_close(&p);
	printf("qp_req_err: ok\n");
}

/* Sends @n SENDs of 32 bytes from side 0, each acknowledged before the
 * next; side 1 has @n receives posted. */
static void send_n(struct t_pair *p, struct t_buf *src, struct t_buf *dst, int n,
		   int poll_recv)
{
	struct ibv_sge sg;
	struct ibv_wc wc;
	int i;

	for (i = 0; i < n; i++) {
		sg = t_sge(dst, (size_t)i * 64, 64);
		POST_RECV(p->s[1].qp, 100 + i, &sg, 1);
	}
	for (i = 0; i < n; i++) {
		sg = t_sge(src, (size_t)i * 64, 32);
		POST_SEND(p->s[0].qp, 200 + i, IBV_WR_SEND, IBV_SEND_SIGNALED, &sg, 1,
			  0, 0, 0);
		POLL(p->s[0].scq, 1, &wc);
		EXPECT_WC(&wc, 200 + i, IBV_WC_SUCCESS, IBV_WC_SEND, p->s[0].qp->qp_num,
			  T_ANY, T_ANY, T_ANY);
		if (poll_recv) {
			POLL(p->s[1].rcq, 1, &wc);
			EXPECT_WC(&wc, 100 + i, IBV_WC_SUCCESS, IBV_WC_RECV,
				  p->s[1].qp->qp_num, 32, T_ANY, T_ANY);
		}
	}
}

static void cq_polled_no_overrun(void)
{
	struct t_pair_cfg cfg;
	struct t_buf src, dst;
	struct t_pair p;

	t_pair_default_cfg(&cfg);
	cfg.rcqe = 2;
	t_pair_open(&p, &cfg);
	CHECK_EQ(p.s[1].rcq->cqe, 2);
	t_buf_alloc(&src, p.s[0].pd, BUF_LEN);
	t_buf_alloc(&dst, p.s[1].pd, BUF_LEN);
	send_n(&p, &src, &dst, 8, 1);
	EXPECT_FD_QUIET(p.s[1].ctx->async_fd, T_QUIET_MS);
	CHECK_EQ(qp_state(p.s[1].qp), IBV_QPS_RTS);
	t_buf_free(&src);
	t_buf_free(&dst);
	t_pair_close(&p);
	printf("cq_polled_no_overrun: ok\n");
}

static void cq_overrun(void)
{
	struct ibv_qp *qx[2], *qy[2];
	struct ibv_cq *other[2];
	struct t_qp_caps caps;
	struct t_pair_cfg cfg;
	struct t_buf src, dst;
	struct ibv_wc wc[4];
	struct t_pair p;
	int i;

	t_pair_default_cfg(&cfg);
	cfg.rcqe = 2;
	t_pair_open(&p, &cfg);
	CHECK_EQ(p.s[1].rcq->cqe, 2);
	t_buf_alloc(&src, p.s[0].pd, BUF_LEN);
	t_buf_alloc(&dst, p.s[1].pd, BUF_LEN);

	/* On rnic1 also: qx with the small CQ as its send CQ, qy on other CQs
	 * only; their peers on rnic0. */
	caps = cfg.caps;
	for (i = 0; i < 2; i++)
		other[i] = t_create_cq(p.s[i].ctx, 16);
	qx[1] = t_create_rc_qp(p.s[1].pd, p.s[1].rcq, other[1], &caps, NULL);
	qy[1] = t_create_rc_qp(p.s[1].pd, other[1], other[1], &caps, NULL);
	qx[0] = t_create_rc_qp(p.s[0].pd, other[0], other[0], &caps, NULL);
	qy[0] = t_create_rc_qp(p.s[0].pd, other[0], other[0], &caps, NULL);
	t_connect_qps(qx[0], qx[1], IBV_MTU_1024, 0x10, 0x20);
	t_connect_qps(qy[0], qy[1], IBV_MTU_1024, 0x30, 0x40);

	/* 4 receive completions into a CQ of 2, none polled: the third
	 * overruns it. */
	send_n(&p, &src, &dst, 4, 0);
	EXPECT_ASYNC_EVENT(p.s[1].ctx, IBV_EVENT_CQ_ERR, p.s[1].rcq);
	CHECK_EQ(qp_state(p.s[1].qp), IBV_QPS_ERR);
	CHECK_EQ(qp_state(qx[1]), IBV_QPS_ERR);
	CHECK_EQ(qp_state(qy[1]), IBV_QPS_RTS);
	CHECK_EQ(p.s[1].qp->state, IBV_QPS_ERR);
	CHECK_EQ(qx[1]->state, IBV_QPS_ERR);
	/* The two that fitted are there; nothing after them (the CQ is in
	 * error: the hardware drops its CQEs, flushes included). */
	POLL(p.s[1].rcq, 2, wc);
	EXPECT_WC(&wc[0], 100, IBV_WC_SUCCESS, IBV_WC_RECV, p.s[1].qp->qp_num, 32,
		  T_ANY, T_ANY);
	EXPECT_WC(&wc[1], 101, IBV_WC_SUCCESS, IBV_WC_RECV, p.s[1].qp->qp_num, 32,
		  T_ANY, T_ANY);
	EXPECT_EMPTY(p.s[1].rcq, T_EMPTY_POLLS);
	EXPECT_FD_QUIET(p.s[1].ctx->async_fd, T_QUIET_MS);

	for (i = 0; i < 2; i++) {
		CHECK_OK(ibv_destroy_qp(qx[i]));
		CHECK_OK(ibv_destroy_qp(qy[i]));
	}
	for (i = 0; i < 2; i++)
		CHECK_OK(ibv_destroy_cq(other[i]));
	t_buf_free(&src);
	t_buf_free(&dst);
	t_pair_close(&p);
	printf("cq_overrun: ok\n");
}

static void async_fd_nonblock(void)
{
	struct ibv_async_event ev;
	struct ibv_context *ctx = t_open_device(T_DEV0);
	int fl = fcntl(ctx->async_fd, F_GETFL);

	CHECK(fl >= 0);
	CHECK_OK(fcntl(ctx->async_fd, F_SETFL, fl | O_NONBLOCK));
	errno = 0;
	CHECK_EQ(ibv_get_async_event(ctx, &ev), -1);
	CHECK_EQ(errno, EAGAIN);
	CHECK_OK(ibv_close_device(ctx));
	printf("async_fd_nonblock: ok\n");
}

static void unread_event_destroy(void)
{
	struct t_pair_cfg cfg;
	struct t_buf src, dst;
	struct ibv_sge sg;
	struct ibv_wc wc;
	struct t_pair p;

	t_pair_default_cfg(&cfg);
	t_pair_open(&p, &cfg);
	t_buf_alloc(&src, p.s[0].pd, BUF_LEN);
	t_buf_alloc(&dst, p.s[1].pd, BUF_LEN);
	sg = t_sge(&src, 0, 64);
	POST_SEND(p.s[0].qp, 3, IBV_WR_RDMA_WRITE, IBV_SEND_SIGNALED, &sg, 1,
		  t_addr(&dst, BUF_LEN - 8), dst.mr->rkey, 0);	/* past the end */
	POLL(p.s[0].scq, 1, &wc);
	EXPECT_WC(&wc, 3, IBV_WC_REM_ACCESS_ERR, T_ANY, p.s[0].qp->qp_num, T_ANY,
		  T_ANY, T_ANY);
	EXPECT_FD_READY(p.s[1].ctx->async_fd, T_EVENT_MS);
	/* Never read: ibv_destroy_qp does not wait for it. */
	t_buf_free(&src);
	t_buf_free(&dst);
	t_pair_close(&p);
	printf("unread_event_destroy: ok\n");
}

int main(void)
{
	qp_access_err();
	qp_req_err();
	cq_polled_no_overrun();
	cq_overrun();
	async_fd_nonblock();
	unread_event_destroy();
	printf("sys_async_event: passed\n");
	return 0;
}
