// SPDX-License-Identifier: MIT
/*
 * sys_comp_channel.c - completion channels and CQ events
 * (ibv_create_comp_channel, ibv_req_notify_cq, ibv_get_cq_event,
 * ibv_ack_cq_events) on a real file descriptor.
 *
 * Both sides of an RC pair have their CQs on a channel of their own; the
 * events of rnic1's receive CQ are watched.
 *
 *   poll_wakes          armed CQ, a SEND: poll() on channel->fd reports it
 *                       readable, ibv_get_cq_event() returns the CQ and its
 *                       cq_context, the completion is there
 *   select_wakes        the same with select() (time left in the timeval)
 *   epoll_wakes         the same with epoll_wait()
 *   get_cq_event_blocks ibv_get_cq_event() without a poll() first waits for
 *                       the event
 *   event_after_cqe     PCIe ordering: when ibv_get_cq_event() returns, the
 *                       completion that raised the interrupt is already in
 *                       memory - one ibv_poll_cq() returns it without
 *                       letting a cycle pass
 *   read_fd             a read() of channel->fd returns the CQ handle (what
 *                       rdma-core's ibv_get_cq_event() reads)
 *   no_event_unarmed    no event without ibv_req_notify_cq(), and one
 *                       notification per arming; arming with no new
 *                       completion gives none
 *   solicited_only      armed for solicited completions: an unsolicited SEND
 *                       completes without an event, a solicited one wakes
 *   nonblocking_fd      O_NONBLOCK channel->fd: EAGAIN when there is nothing
 *   timeout_simulated   poll() with a timeout and nothing coming returns 0
 *                       after that much simulated time (1 ms = 250,000 cycles)
 *   ack_counts          several events acknowledged with one
 *                       ibv_ack_cq_events(); ibv_destroy_cq waits for an
 *                       event read but not acknowledged (another thread
 *                       acknowledges it); ibv_destroy_comp_channel is EBUSY
 *                       while CQs use it
 *   cq_ex_channel       a CQ of ibv_create_cq_ex() on a channel
 */
#define _DEFAULT_SOURCE

#include "common.h"
#include "rnic_verbs_ext.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/select.h>
#include <unistd.h>

#define BUF_LEN 4096

struct res {
	struct t_pair p;
	struct t_buf src, dst;
	uint64_t id;
};

static void open_res(struct res *r)
{
	struct t_pair_cfg cfg;

	t_pair_default_cfg(&cfg);
	cfg.comp_channel = 1;
	t_pair_open(&r->p, &cfg);
	CHECK(r->p.s[1].rcq->channel == r->p.s[1].ch);
	t_buf_alloc(&r->src, r->p.s[0].pd, BUF_LEN);
	t_buf_alloc(&r->dst, r->p.s[1].pd, BUF_LEN);
	r->id = 1;
}

static void close_res(struct res *r)
{
	t_buf_free(&r->src);
	t_buf_free(&r->dst);
	t_pair_close(&r->p);
}

/* One SEND from rnic0 to rnic1 (a receive posted for it), acknowledged;
 * its receive completion is not polled. Returns its receive wr_id. */
static uint64_t send_one(struct res *r, unsigned int flags)
{
	struct ibv_sge sg = t_sge(&r->dst, 0, 256);
	uint64_t id = r->id++;
	struct ibv_wc wc;

	POST_RECV(r->p.s[1].qp, id, &sg, 1);
	sg = t_sge(&r->src, 0, 48);
	POST_SEND(r->p.s[0].qp, id, IBV_WR_SEND, IBV_SEND_SIGNALED | flags, &sg, 1,
		  0, 0, 0);
	POLL(r->p.s[0].scq, 1, &wc);
	EXPECT_WC(&wc, id, IBV_WC_SUCCESS, IBV_WC_SEND, r->p.s[0].qp->qp_num, T_ANY,
		  T_ANY, T_ANY);
	return id;
}

/* A receive and an unsignaled SEND, posted only: whatever waits next must
 * let the hardware do the rest. */
static uint64_t post_only(struct res *r)
{
	struct ibv_sge sg = t_sge(&r->dst, 0, 256);
	uint64_t id = r->id++;

	POST_RECV(r->p.s[1].qp, id, &sg, 1);
	sg = t_sge(&r->src, 0, 48);
	POST_SEND(r->p.s[0].qp, id, IBV_WR_SEND, 0, &sg, 1, 0, 0, 0);
	return id;
}

static void expect_recv(struct res *r, uint64_t id)
{
	struct ibv_wc wc;

	POLL(r->p.s[1].rcq, 1, &wc);
	EXPECT_WC(&wc, id, IBV_WC_SUCCESS, IBV_WC_RECV, r->p.s[1].qp->qp_num, 48,
		  T_ANY, T_ANY);
}

static void poll_wakes(void)
{
	struct res r;
	uint64_t id;

	open_res(&r);
	CHECK_OK(ibv_req_notify_cq(r.p.s[1].rcq, 0));
	EXPECT_FD_QUIET(r.p.s[1].ch->fd, 0);
	id = send_one(&r, 0);
	EXPECT_FD_READY(r.p.s[1].ch->fd, T_EVENT_MS);
	EXPECT_CQ_EVENT(r.p.s[1].ch, r.p.s[1].rcq, NULL);
	expect_recv(&r, id);
	EXPECT_FD_QUIET(r.p.s[1].ch->fd, T_QUIET_MS);
	ibv_ack_cq_events(r.p.s[1].rcq, 1);
	close_res(&r);
	printf("poll_wakes: ok\n");
}

static void select_wakes(void)
{
	struct timeval tv;
	struct ibv_sge sg;
	struct ibv_wc wc;
	struct res r;
	uint64_t id;
	fd_set rd;
	int fd;

	open_res(&r);
	fd = r.p.s[1].ch->fd;
	CHECK_OK(ibv_req_notify_cq(r.p.s[1].rcq, 0));
	/* Posted only: select() waits while the message travels, and leaves
	 * the time it did not wait in the timeval. */
	id = r.id++;
	sg = t_sge(&r.dst, 0, 256);
	POST_RECV(r.p.s[1].qp, id, &sg, 1);
	sg = t_sge(&r.src, 0, 48);
	POST_SEND(r.p.s[0].qp, id, IBV_WR_SEND, IBV_SEND_SIGNALED, &sg, 1, 0, 0, 0);
	FD_ZERO(&rd);
	FD_SET(fd, &rd);
	tv.tv_sec = 0;
	tv.tv_usec = T_EVENT_MS * 1000;
	CHECK_EQ(select(fd + 1, &rd, NULL, NULL, &tv), 1);
	CHECK(FD_ISSET(fd, &rd));
	CHECK(tv.tv_usec > 0 && tv.tv_usec < T_EVENT_MS * 1000);
	EXPECT_CQ_EVENT(r.p.s[1].ch, r.p.s[1].rcq, NULL);
	expect_recv(&r, id);
	POLL(r.p.s[0].scq, 1, &wc);
	EXPECT_WC(&wc, id, IBV_WC_SUCCESS, IBV_WC_SEND, r.p.s[0].qp->qp_num, T_ANY,
		  T_ANY, T_ANY);
	ibv_ack_cq_events(r.p.s[1].rcq, 1);
	close_res(&r);
	printf("select_wakes: ok\n");
}

static void epoll_wakes(void)
{
	struct epoll_event ev, out[4];
	struct res r;
	uint64_t id;
	int ep;

	open_res(&r);
	ep = epoll_create1(EPOLL_CLOEXEC);
	CHECK(ep >= 0);
	memset(&ev, 0, sizeof(ev));
	ev.events = EPOLLIN;
	ev.data.u64 = 0xc0ffee;
	CHECK_OK(epoll_ctl(ep, EPOLL_CTL_ADD, r.p.s[1].ch->fd, &ev));
	CHECK_EQ(epoll_wait(ep, out, 4, T_QUIET_MS), 0);
	CHECK_OK(ibv_req_notify_cq(r.p.s[1].rcq, 0));
	id = send_one(&r, 0);
	CHECK_EQ(epoll_wait(ep, out, 4, T_EVENT_MS), 1);
	CHECK_EQ(out[0].data.u64, 0xc0ffee);
	CHECK(out[0].events & EPOLLIN);
	EXPECT_CQ_EVENT(r.p.s[1].ch, r.p.s[1].rcq, NULL);
	expect_recv(&r, id);
	ibv_ack_cq_events(r.p.s[1].rcq, 1);
	CHECK_OK(epoll_ctl(ep, EPOLL_CTL_DEL, r.p.s[1].ch->fd, NULL));
	close(ep);
	close_res(&r);
	printf("epoll_wakes: ok\n");
}

static void get_cq_event_blocks(void)
{
	struct res r;
	uint64_t id;

	open_res(&r);
	CHECK_OK(ibv_req_notify_cq(r.p.s[1].rcq, 0));
	id = post_only(&r);	/* the blocking call lets the hardware work */
	EXPECT_CQ_EVENT(r.p.s[1].ch, r.p.s[1].rcq, NULL);
	expect_recv(&r, id);
	ibv_ack_cq_events(r.p.s[1].rcq, 1);
	close_res(&r);
	printf("get_cq_event_blocks: ok\n");
}

static void event_after_cqe(void)
{
	struct ibv_wc wc;
	struct res r;
	uint64_t id, t0;

	open_res(&r);
	CHECK_OK(ibv_req_notify_cq(r.p.s[1].rcq, 0));
	id = post_only(&r);
	EXPECT_CQ_EVENT(r.p.s[1].ch, r.p.s[1].rcq, NULL);
	CHECK_OK(ibv_req_notify_cq(r.p.s[1].rcq, 0));
	t0 = rnic_verbs_sim_cycle();
	CHECK_EQ(ibv_poll_cq(r.p.s[1].rcq, 1, &wc), 1);
	CHECK_EQ(rnic_verbs_sim_cycle(), t0);
	EXPECT_WC(&wc, id, IBV_WC_SUCCESS, IBV_WC_RECV, r.p.s[1].qp->qp_num, 48,
		  T_ANY, T_ANY);
	ibv_ack_cq_events(r.p.s[1].rcq, 1);
	close_res(&r);
	printf("event_after_cqe: ok\n");
}

static void read_fd(void)
{
	uint64_t handle = 0;
	struct res r;
	uint64_t id;

	open_res(&r);
	CHECK_OK(ibv_req_notify_cq(r.p.s[1].rcq, 0));
	id = send_one(&r, 0);
	EXPECT_FD_READY(r.p.s[1].ch->fd, T_EVENT_MS);
	/* struct ib_uverbs_comp_event_desc: the CQ's user handle. */
	CHECK_EQ(read(r.p.s[1].ch->fd, &handle, sizeof(handle)), sizeof(handle));
	CHECK_EQ(handle, (uintptr_t)r.p.s[1].rcq);
	expect_recv(&r, id);
	ibv_ack_cq_events(r.p.s[1].rcq, 1);
	close_res(&r);
	printf("read_fd: ok\n");
}

static void no_event_unarmed(void)
{
	struct res r;
	uint64_t id;

	open_res(&r);
	id = send_one(&r, 0);
	expect_recv(&r, id);
	EXPECT_FD_QUIET(r.p.s[1].ch->fd, T_QUIET_MS);

	/* Armed once: one event for two completions. */
	CHECK_OK(ibv_req_notify_cq(r.p.s[1].rcq, 0));
	id = send_one(&r, 0);
	EXPECT_CQ_EVENT(r.p.s[1].ch, r.p.s[1].rcq, NULL);
	expect_recv(&r, id);
	id = send_one(&r, 0);
	expect_recv(&r, id);
	EXPECT_FD_QUIET(r.p.s[1].ch->fd, T_QUIET_MS);

	/* Arming wakes on the next completion, not on one already polled. */
	CHECK_OK(ibv_req_notify_cq(r.p.s[1].rcq, 0));
	EXPECT_FD_QUIET(r.p.s[1].ch->fd, T_QUIET_MS);
	id = send_one(&r, 0);
	EXPECT_CQ_EVENT(r.p.s[1].ch, r.p.s[1].rcq, NULL);
	expect_recv(&r, id);
	ibv_ack_cq_events(r.p.s[1].rcq, 2);
	close_res(&r);
	printf("no_event_unarmed: ok\n");
}

static void solicited_only(void)
{
	struct res r;
	uint64_t id;

	open_res(&r);
	CHECK_OK(ibv_req_notify_cq(r.p.s[1].rcq, 1));
	id = send_one(&r, 0);
	expect_recv(&r, id);
	EXPECT_FD_QUIET(r.p.s[1].ch->fd, T_QUIET_MS);
	id = send_one(&r, IBV_SEND_SOLICITED);
	EXPECT_FD_READY(r.p.s[1].ch->fd, T_EVENT_MS);
	EXPECT_CQ_EVENT(r.p.s[1].ch, r.p.s[1].rcq, NULL);
	expect_recv(&r, id);
	ibv_ack_cq_events(r.p.s[1].rcq, 1);
	close_res(&r);
	printf("solicited_only: ok\n");
}

static void nonblocking_fd(void)
{
	struct ibv_cq *cq;
	struct res r;
	void *ctx;
	uint64_t id;
	int fl;

	open_res(&r);
	fl = fcntl(r.p.s[1].ch->fd, F_GETFL);
	CHECK(fl >= 0);
	CHECK_OK(fcntl(r.p.s[1].ch->fd, F_SETFL, fl | O_NONBLOCK));
	errno = 0;
	CHECK_EQ(ibv_get_cq_event(r.p.s[1].ch, &cq, &ctx), -1);
	CHECK_EQ(errno, EAGAIN);
	CHECK_OK(ibv_req_notify_cq(r.p.s[1].rcq, 0));
	id = send_one(&r, 0);
	EXPECT_FD_READY(r.p.s[1].ch->fd, T_EVENT_MS);
	EXPECT_CQ_EVENT(r.p.s[1].ch, r.p.s[1].rcq, NULL);
	expect_recv(&r, id);
	ibv_ack_cq_events(r.p.s[1].rcq, 1);
	close_res(&r);
	printf("nonblocking_fd: ok\n");
}

static void timeout_simulated(void)
{
	struct pollfd pfd;
	uint64_t t0, dt;
	struct res r;

	open_res(&r);
	CHECK_OK(ibv_req_notify_cq(r.p.s[1].rcq, 0));
	pfd.fd = r.p.s[1].ch->fd;
	pfd.events = POLLIN;
	t0 = rnic_verbs_sim_cycle();
	CHECK_EQ(poll(&pfd, 1, 1), 0);
	dt = rnic_verbs_sim_cycle() - t0;
	/* The simulated RNIC's rule (docs/time-model.md). */
	CHECKF(dt >= 250000 && dt < 260000, "poll(1 ms) ran %llu cycles",
	       (unsigned long long)dt);
	close_res(&r);
	printf("timeout_simulated: ok\n");
}

struct destroyer {
	struct ibv_cq *cq;
	volatile int started;
	volatile int acked;	/* set by the main thread just before the ack */
	int acked_seen;
	int ret;
};

static void *destroy_thread(void *arg)
{
	struct destroyer *d = arg;

	__atomic_store_n(&d->started, 1, __ATOMIC_SEQ_CST);
	d->ret = ibv_destroy_cq(d->cq);
	d->acked_seen = __atomic_load_n(&d->acked, __ATOMIC_SEQ_CST);
	return NULL;
}

static void ack_counts(void)
{
	struct destroyer d;
	struct res r;
	pthread_t th;
	uint64_t id;
	int i;

	open_res(&r);
	/* Three events, acknowledged with one call. */
	for (i = 0; i < 3; i++) {
		CHECK_OK(ibv_req_notify_cq(r.p.s[1].rcq, 0));
		id = send_one(&r, 0);
		EXPECT_CQ_EVENT(r.p.s[1].ch, r.p.s[1].rcq, NULL);
		expect_recv(&r, id);
	}
	ibv_ack_cq_events(r.p.s[1].rcq, 3);
	CHECK_EQ(ibv_destroy_comp_channel(r.p.s[1].ch), EBUSY);

	/* A fourth, read but not acknowledged: ibv_destroy_cq() waits. */
	CHECK_OK(ibv_req_notify_cq(r.p.s[1].rcq, 0));
	id = send_one(&r, 0);
	EXPECT_CQ_EVENT(r.p.s[1].ch, r.p.s[1].rcq, NULL);
	expect_recv(&r, id);
	CHECK_OK(ibv_destroy_qp(r.p.s[1].qp));
	memset(&d, 0, sizeof(d));
	d.cq = r.p.s[1].rcq;
	CHECK_OK(pthread_create(&th, NULL, destroy_thread, &d));
	while (!__atomic_load_n(&d.started, __ATOMIC_SEQ_CST))
		sched_yield();
	/* Keep the main thread busy with the simulation for a while (a
	 * destroy that did not wait would return meanwhile). */
	EXPECT_EMPTY(r.p.s[1].scq, T_EMPTY_POLLS);
	__atomic_store_n(&d.acked, 1, __ATOMIC_SEQ_CST);
	ibv_ack_cq_events(r.p.s[1].rcq, 1);
	CHECK_OK(pthread_join(th, NULL));
	CHECK_OK(d.ret);
	CHECK_EQ(d.acked_seen, 1);

	/* The rest by hand: the QP and the receive CQ are gone. */
	t_buf_free(&r.src);
	t_buf_free(&r.dst);
	CHECK_EQ(ibv_destroy_comp_channel(r.p.s[1].ch), EBUSY);	/* scq */
	CHECK_OK(ibv_destroy_cq(r.p.s[1].scq));
	CHECK_OK(ibv_destroy_comp_channel(r.p.s[1].ch));
	CHECK_OK(ibv_destroy_qp(r.p.s[0].qp));
	CHECK_OK(ibv_destroy_cq(r.p.s[0].scq));
	CHECK_OK(ibv_destroy_cq(r.p.s[0].rcq));
	CHECK_OK(ibv_destroy_comp_channel(r.p.s[0].ch));
	for (i = 0; i < 2; i++) {
		CHECK_OK(ibv_dealloc_pd(r.p.s[i].pd));
		CHECK_OK(ibv_close_device(r.p.s[i].ctx));
	}
	printf("ack_counts: ok\n");
}

static void cq_ex_channel(void)
{
	struct ibv_cq_init_attr_ex ca;
	struct ibv_comp_channel *ch;
	struct ibv_context *ctx;
	struct ibv_cq_ex *cqx;
	struct ibv_cq *cq;

	ctx = t_open_device(T_DEV1);
	ch = CHECK_PTR(ibv_create_comp_channel(ctx));
	CHECK(ch->context == ctx);
	memset(&ca, 0, sizeof(ca));
	ca.cqe = 8;
	ca.cq_context = ch;
	ca.channel = ch;
	ca.wc_flags = IBV_WC_STANDARD_FLAGS;
	cqx = CHECK_PTR(ibv_create_cq_ex(ctx, &ca));
	cq = ibv_cq_ex_to_cq(cqx);
	CHECK(cq->channel == ch);
	CHECK_OK(ibv_req_notify_cq(cq, 0));
	EXPECT_FD_QUIET(ch->fd, T_QUIET_MS);
	CHECK_EQ(ibv_destroy_comp_channel(ch), EBUSY);
	CHECK_OK(ibv_destroy_cq(cq));
	CHECK_OK(ibv_destroy_comp_channel(ch));
	CHECK_OK(ibv_close_device(ctx));
	printf("cq_ex_channel: ok\n");
}

int main(void)
{
	poll_wakes();
	select_wakes();
	epoll_wakes();
	get_cq_event_blocks();
	event_after_cqe();
	read_fd();
	no_event_unarmed();
	solicited_only();
	nonblocking_fd();
	timeout_simulated();
	ack_counts();
	cq_ex_channel();
	printf("sys_comp_channel: passed\n");
	return 0;
}
