// SPDX-License-Identifier: MIT
/*
 * events.c - the device's event queue, asynchronous events, completion
 * channels and CQ events.
 *
 * Interrupts. The model calls rv_irq_cb() (rnic_sim_set_irq_cb) after the
 * edge on which an interrupt fired, inside whatever rnic_sim_* call is
 * running, with the rnic lock held by that caller; it must not run the
 * simulation or take the lock again, so it only does bookkeeping:
 *   - CQ 0 (the event queue): counts the interrupt and sets rv_ev_work; the
 *     record is read at the next safe point (the model delivers an
 *     interrupt only once every DMA write the NIC posted before it is
 *     visible, as PCIe orders an MSI behind earlier posted writes, so the
 *     record is there);
 *   - an armed CQ with a completion channel: writes a CQ event into the
 *     channel's pipe at once.
 *
 * Safe points call rv_ev_process() with the rnic lock held as a recursive
 * owner: it reads the new records of every device's event queue by owner bit
 * (rnic_eq_next()), finds the QP, CQ or SRQ, acts (a QP error: the QP's
 * state is ERR; a CQ overrun: every QP of the CQ is moved to ERR with
 * ibv_modify_qp's path; an SRQ limit: the SRQ is disarmed) and writes the
 * event into the owning context's async_fd. Safe points: every step of a
 * blocking wait (ibv_get_async_event, ibv_get_cq_event, the poll/select/epoll
 * wrappers of evwait.c), an empty ibv_poll_cq()/ibv_start_poll(),
 * ibv_query_qp(), ibv_query_srq() and the destruction of a QP, CQ or SRQ.
 *
 * File descriptors. context->async_fd and channel->fd are the read ends of
 * pipes, so that read() returns what rdma-core's uverbs returns and
 * rdma-core's own ibv_get_cq_event()/ibv_get_async_event() (which read()
 * them) work unchanged: struct ib_uverbs_comp_event_desc (the struct ibv_cq
 * pointer) and struct ib_uverbs_async_event_desc (element pointer or port,
 * event type). Unread events of an object are removed from the pipe when it
 * is destroyed, as uverbs does, and destruction waits for the events that
 * were read to be acknowledged.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <rdma/ib_user_verbs.h>

#include "rnic_verbs.h"

int rv_cqe_hook;
int rv_ev_work;
static unsigned int rv_srq_qps;

/* Bumped (under the rnic lock) by every record written into one of our
 * pipes: the waits of evwait.c look at the fds again only when it moved. */
unsigned long rv_fd_gen;

/* Per device (node): lookup tables for interrupts and events. */
struct rv_node {
	struct rnic_dev *dev;
	struct rv_cq **cqs;		/* CQN -> CQ */
	uint32_t ncq;
	struct rv_srq **srqs;		/* SRQ number -> SRQ */
	uint32_t nsrq;
	unsigned int eq_irqs;		/* event-queue interrupts not yet matched by a record */
};

static struct rv_node rv_nodes[RNIC_SIM_MAX_NODES];
static int rv_ev_busy;

void rv_cqe_hook_update(int srq_qps)
{
	rv_srq_qps += srq_qps;
	rv_cqe_hook = rv_tl_enabled || rv_srq_qps;
}

void rv_cqe_hooked(struct rv_qp *qp, struct rv_wq *wq, uint16_t idx)
{
	if (rv_tl_enabled)
		rv_tl_polled(wq, idx);
	if (qp->srq && wq == &qp->rq)
		rv_srq_slot_done(qp->srq, idx);
}

/* ------------------------------------------------------------------------ */
/* Pipes                                                                    */
/* ------------------------------------------------------------------------ */

/* A pipe for events: the read end is the program's fd (blocking unless it
 * says otherwise), the write end never blocks. */
int rv_pipe(int *rfd, int *wfd)
{
	int p[2];

	if (pipe2(p, O_CLOEXEC))
		return errno;
	if (fcntl(p[1], F_SETFL, O_NONBLOCK)) {
		int e = errno;

		close(p[0]);
		close(p[1]);
		return e;
	}
	*rfd = p[0];
	*wfd = p[1];
	return 0;
}

/* One record into a pipe (rnic lock held). 0, or -1 if it did not fit. */
static int rv_pipe_put(int wfd, const void *rec, size_t len)
{
	ssize_t n = write(wfd, rec, len);

	if (n != (ssize_t)len) {
		rnic_dbg("event lost: the event pipe is full (%zd)\n", n);
		return -1;
	}
	__atomic_store_n(&rv_fd_gen, rv_fd_gen + 1, __ATOMIC_RELEASE);
	return 0;
}

/*
 * Remove the unread records of @len bytes whose first 8 bytes (the CQ
 * handle, or the event's element) equal @handle from the pipe (rnic lock
 * held, so no event is written meanwhile). Returns how many were removed.
 */
static unsigned int rv_pipe_filter(int rfd, int wfd, size_t len, uint64_t handle)
{
	unsigned int removed = 0;
	size_t i, out = 0;
	uint8_t *buf;
	int avail = 0;
	ssize_t got;

	if (rfd < 0 || ioctl(rfd, FIONREAD, &avail) || avail <= 0)
		return 0;
	buf = malloc((size_t)avail);
	if (!buf)
		return 0;
	got = read(rfd, buf, (size_t)avail);
	if (got <= 0) {
		free(buf);
		return 0;
	}
	for (i = 0; i + len <= (size_t)got; i += len) {
		uint64_t h;

		memcpy(&h, buf + i, sizeof(h));
		if (h == handle) {
			removed++;
			continue;
		}
		memmove(buf + out, buf + i, len);
		out += len;
	}
	/* A partly read record (a program reading odd sizes) stays as it is. */
	memmove(buf + out, buf + i, (size_t)got - i);
	out += (size_t)got - i;
	if (out && write(wfd, buf, out) != (ssize_t)out)
		rnic_dbg("events lost while filtering the event pipe\n");
	free(buf);
	return removed;
}

/* ------------------------------------------------------------------------ */
/* Devices, contexts, objects                                               */
/* ------------------------------------------------------------------------ */

static void rv_irq_cb(void *arg, unsigned int node, uint32_t cqn);

/* Once, at device discovery (rnic lock held). */
void rv_ev_setup(struct rnic_sim *sim)
{
	rnic_sim_set_irq_cb(sim, rv_irq_cb, NULL);
	rv_cqe_hook_update(0);
}

/* The context's async_fd, and the device's tables on its first open. */
int rv_ev_ctx_open(struct rv_context *ctx)
{
	struct rv_node *n = &rv_nodes[ctx->node];
	int ret, rfd = -1, wfd = -1;

	rnic_lock();
	if (!n->dev) {
		n->ncq = ctx->dev->caps.n_cq;
		n->nsrq = ctx->dev->caps.n_qp;
		n->cqs = calloc(n->ncq, sizeof(*n->cqs));
		n->srqs = calloc(n->nsrq, sizeof(*n->srqs));
		if (!n->cqs || !n->srqs) {
			free(n->cqs);
			free(n->srqs);
			n->cqs = NULL;
			n->srqs = NULL;
			rnic_unlock();
			return ENOMEM;
		}
		n->dev = ctx->dev;
	}
	rnic_unlock();
	ret = rv_pipe(&rfd, &wfd);
	if (ret)
		return ret;
	ret = rv_fd_register(rfd, ctx->node);
	if (ret) {
		close(rfd);
		close(wfd);
		return ret;
	}
	ctx->vctx.context.async_fd = rfd;
	ctx->async_wfd = wfd;
	return 0;
}

void rv_ev_ctx_close(struct rv_context *ctx)
{
	struct ibv_context *c = &ctx->vctx.context;

	if (c->async_fd >= 0) {
		rv_fd_unregister(c->async_fd);
		close(c->async_fd);
		c->async_fd = -1;
	}
	if (ctx->async_wfd >= 0)
		close(ctx->async_wfd);
	ctx->async_wfd = -1;
}

void rv_ev_cq_add(struct rv_cq *cq)
{
	struct rv_node *n = &rv_nodes[cq->node];

	if (cq->hw.cqn < n->ncq)
		n->cqs[cq->hw.cqn] = cq;
}

/* The CQ is invalidated in the hardware (rnic lock held): events of it not
 * processed or not read yet are dropped. */
void rv_ev_cq_remove(struct rv_cq *cq)
{
	struct rv_node *n = &rv_nodes[cq->node];
	uint64_t h = (uintptr_t)&cq->ibcq;

	if (rv_ev_work)
		rv_ev_process();
	if (cq->hw.cqn < n->ncq && n->cqs[cq->hw.cqn] == cq)
		n->cqs[cq->hw.cqn] = NULL;
	if (cq->channel)
		cq->comp_events_reported -=
			rv_pipe_filter(cq->channel->ibch.fd, cq->channel->wfd,
				       sizeof(struct ib_uverbs_comp_event_desc), h);
	cq->async_events_reported -=
		rv_pipe_filter(cq->ctx->vctx.context.async_fd, cq->ctx->async_wfd,
			       sizeof(struct ib_uverbs_async_event_desc), h);
}

void rv_ev_srq_add(struct rv_srq *srq)
{
	struct rv_node *n = &rv_nodes[srq->node];

	if (srq->hw.srqn < n->nsrq)
		n->srqs[srq->hw.srqn] = srq;
}

void rv_ev_srq_remove(struct rv_srq *srq)
{
	struct rv_node *n = &rv_nodes[srq->node];

	if (rv_ev_work)
		rv_ev_process();
	if (srq->hw.srqn < n->nsrq && n->srqs[srq->hw.srqn] == srq)
		n->srqs[srq->hw.srqn] = NULL;
	srq->events_reported -=
		rv_pipe_filter(srq->ctx->vctx.context.async_fd, srq->ctx->async_wfd,
			       sizeof(struct ib_uverbs_async_event_desc),
			       (uintptr_t)&srq->ibsrq);
}

/* The QP is being destroyed (rnic lock held, still in the QP table). */
void rv_ev_qp_forget(struct rv_qp *qp)
{
	if (rv_ev_work)
		rv_ev_process();
	qp->events_reported -=
		rv_pipe_filter(qp->ctx->vctx.context.async_fd, qp->ctx->async_wfd,
			       sizeof(struct ib_uverbs_async_event_desc),
			       (uintptr_t)&qp->ibqpx.qp_base);
}

/* ------------------------------------------------------------------------ */
/* Interrupts and the event queue                                           */
/* ------------------------------------------------------------------------ */

static void rv_irq_cb(void *arg, unsigned int node, uint32_t cqn)
{
	struct rv_node *n = node < RNIC_SIM_MAX_NODES ? &rv_nodes[node] : NULL;
	struct ib_uverbs_comp_event_desc d;
	struct rv_cq *cq;

	(void)arg;
	if (!n || !n->dev)
		return;
	if (cqn == RNIC_EQN) {
		n->eq_irqs++;
		rv_ev_work = 1;
		return;
	}
	cq = cqn < n->ncq ? n->cqs[cqn] : NULL;
	if (!cq || !cq->channel)
		return;	/* armed without a channel: nobody to tell */
	d.cq_handle = (uintptr_t)&cq->ibcq;
	if (!rv_pipe_put(cq->channel->wfd, &d, sizeof(d)))
		cq->comp_events_reported++;
}

static struct rv_qp *rv_find_qp(unsigned int node, uint32_t qpn)
{
	struct rv_context *c;

	for (c = rv_contexts; c; c = c->next)
		if (c->node == node && qpn < c->qp_table_size && c->qp_table[qpn])
			return c->qp_table[qpn];
	return NULL;
}

static void rv_async_put(struct rv_context *ctx, void *element,
			 enum ibv_event_type type, unsigned int *reported)
{
	struct ib_uverbs_async_event_desc d;

	memset(&d, 0, sizeof(d));
	d.element = (uintptr_t)element;
	d.event_type = type;
	if (!rv_pipe_put(ctx->async_wfd, &d, sizeof(d)))
		(*reported)++;
}

/* The hardware moved the QP to ERR. Not a QP in RESET: the event was
 * raised before the reset (which waited for every record the QP's
 * hardware state wrote), and the hardware holds RESET now. */
static void rv_qp_set_err(struct rv_qp *qp)
{
	if (qp->hw.state == IBV_QPS_RESET)
		return;
	qp->hw.state = IBV_QPS_ERR;
	qp->hw.attr.qp_state = IBV_QPS_ERR;
	qp->hw.attr.cur_qp_state = IBV_QPS_ERR;
	qp->ibqpx.qp_base.state = IBV_QPS_ERR;
}

/* A CQ overrun: every QP of the CQ goes to ERR (its outstanding WRs are
 * flushed; the hardware drops the CQ's CQEs from now on). */
static void rv_cq_error(struct rv_cq *cq)
{
	struct rv_context *ctx = cq->ctx;
	uint32_t i;

	for (i = 0; i < ctx->qp_table_size; i++) {
		struct rv_qp *qp = ctx->qp_table[i];
		struct ibv_qp_attr a;
		int ret;

		if (!qp || (qp->scq != cq && qp->rcq != cq) ||
		    qp->hw.state == IBV_QPS_RESET || qp->hw.state == IBV_QPS_ERR)
			continue;
		memset(&a, 0, sizeof(a));
		a.qp_state = IBV_QPS_ERR;
		ret = rnic_qp_modify(ctx->dev, &qp->hw, &a, IBV_QP_STATE);
		if (ret)
			rnic_dbg("qp %u: to ERR after the overrun of CQ %u failed (%d)\n",
				 qp->qpn, cq->hw.cqn, ret);
		else
			qp->ibqpx.qp_base.state = IBV_QPS_ERR;
	}
}

static void rv_async_dispatch(unsigned int node, unsigned int type, uint32_t num)
{
	struct rv_node *n = &rv_nodes[node];
	struct rv_srq *srq;
	struct rv_qp *qp;
	struct rv_cq *cq;

	switch (type) {
	case IBV_EVENT_CQ_ERR:
		cq = num < n->ncq ? n->cqs[num] : NULL;
		if (!cq)
			break;
		rv_cq_error(cq);
		rv_async_put(cq->ctx, &cq->ibcq, type, &cq->async_events_reported);
		return;
	case IBV_EVENT_QP_FATAL:
	case IBV_EVENT_QP_REQ_ERR:
	case IBV_EVENT_QP_ACCESS_ERR:
	case IBV_EVENT_QP_LAST_WQE_REACHED:
	case IBV_EVENT_SQ_DRAINED:
		qp = rv_find_qp(node, num);
		if (!qp)
			break;
		if (type != IBV_EVENT_QP_LAST_WQE_REACHED && type != IBV_EVENT_SQ_DRAINED)
			rv_qp_set_err(qp);
		rv_async_put(qp->ctx, &qp->ibqpx.qp_base, type, &qp->events_reported);
		return;
	case IBV_EVENT_SRQ_LIMIT_REACHED:
		srq = num < n->nsrq ? n->srqs[num] : NULL;
		if (!srq)
			break;
		srq->hw.limit = 0;	/* the hardware disarmed it */
		rv_async_put(srq->ctx, &srq->ibsrq, type, &srq->events_reported);
		return;
	default:
		break;
	}
	rnic_dbg("node %u: event %u (%s) for %u dropped: no such object\n", node,
		 type, ibv_event_type_str(type), num);
}

void rv_ev_process(void)
{
	unsigned int i, type;
	uint32_t num;

	if (rv_ev_busy)
		return;
	rv_ev_busy = 1;
	rv_ev_work = 0;
	for (i = 0; i < RNIC_SIM_MAX_NODES; i++) {
		struct rv_node *n = &rv_nodes[i];

		if (!n->dev)
			continue;
		while (rnic_eq_next(n->dev, &type, &num)) {
			if (n->eq_irqs)
				n->eq_irqs--;
			rv_async_dispatch(i, type, num);
		}
		if (n->eq_irqs)
			rv_ev_work = 1;	/* records not visible yet */
	}
	rv_ev_busy = 0;
}

/* A safe point outside the lock (an empty poll). */
void rv_ev_poll_point(void)
{
	rnic_lock();
	rv_ev_process();
	rnic_unlock();
}

/* ------------------------------------------------------------------------ */
/* Asynchronous events                                                      */
/* ------------------------------------------------------------------------ */

/* Blocks (running the simulation, docs/time-model.md) unless async_fd was
 * made non-blocking; the record is read from async_fd like rdma-core. */
RV_EXPORT int ibv_get_async_event(struct ibv_context *context,
				  struct ibv_async_event *event)
{
	struct rv_context *ctx = to_rv_ctx(context);
	struct ib_uverbs_async_event_desc d;
	int fl = fcntl(context->async_fd, F_GETFL);

	rv_ev_wait_fd(context->async_fd, ctx->node,
		      (fl >= 0 && (fl & O_NONBLOCK)) ? 0 : rv_ev_wait_cap());
	if (read(context->async_fd, &d, sizeof(d)) != sizeof(d))
		return -1;
	event->event_type = (enum ibv_event_type)d.event_type;
	switch (event->event_type) {
	case IBV_EVENT_CQ_ERR:
		event->element.cq = (struct ibv_cq *)(uintptr_t)d.element;
		break;
	case IBV_EVENT_QP_FATAL:
	case IBV_EVENT_QP_REQ_ERR:
	case IBV_EVENT_QP_ACCESS_ERR:
	case IBV_EVENT_COMM_EST:
	case IBV_EVENT_SQ_DRAINED:
	case IBV_EVENT_PATH_MIG:
	case IBV_EVENT_PATH_MIG_ERR:
	case IBV_EVENT_QP_LAST_WQE_REACHED:
		event->element.qp = (struct ibv_qp *)(uintptr_t)d.element;
		break;
	case IBV_EVENT_SRQ_ERR:
	case IBV_EVENT_SRQ_LIMIT_REACHED:
		event->element.srq = (struct ibv_srq *)(uintptr_t)d.element;
		break;
	case IBV_EVENT_WQ_FATAL:
		event->element.wq = (struct ibv_wq *)(uintptr_t)d.element;
		break;
	default:
		event->element.port_num = (int)d.element;
		break;
	}
	return 0;
}

RV_EXPORT void ibv_ack_async_event(struct ibv_async_event *event)
{
	switch (event->event_type) {
	case IBV_EVENT_CQ_ERR: {
		struct ibv_cq *cq = event->element.cq;

		pthread_mutex_lock(&cq->mutex);
		++cq->async_events_completed;
		pthread_cond_signal(&cq->cond);
		pthread_mutex_unlock(&cq->mutex);
		return;
	}
	case IBV_EVENT_QP_FATAL:
	case IBV_EVENT_QP_REQ_ERR:
	case IBV_EVENT_QP_ACCESS_ERR:
	case IBV_EVENT_COMM_EST:
	case IBV_EVENT_SQ_DRAINED:
	case IBV_EVENT_PATH_MIG:
	case IBV_EVENT_PATH_MIG_ERR:
	case IBV_EVENT_QP_LAST_WQE_REACHED: {
		struct ibv_qp *qp = event->element.qp;

		pthread_mutex_lock(&qp->mutex);
		++qp->events_completed;
		pthread_cond_signal(&qp->cond);
		pthread_mutex_unlock(&qp->mutex);
		return;
	}
	case IBV_EVENT_SRQ_ERR:
	case IBV_EVENT_SRQ_LIMIT_REACHED: {
		struct ibv_srq *srq = event->element.srq;

		pthread_mutex_lock(&srq->mutex);
		++srq->events_completed;
		pthread_cond_signal(&srq->cond);
		pthread_mutex_unlock(&srq->mutex);
		return;
	}
	default:
		return;
	}
}

/* ------------------------------------------------------------------------ */
/* Completion channels and CQ events                                        */
/* ------------------------------------------------------------------------ */

RV_EXPORT struct ibv_comp_channel *ibv_create_comp_channel(struct ibv_context *context)
{
	struct rv_context *ctx = to_rv_ctx(context);
	struct rv_channel *ch;
	int ret, rfd = -1, wfd = -1;

	ch = calloc(1, sizeof(*ch));
	if (!ch) {
		errno = ENOMEM;
		return NULL;
	}
	ret = rv_pipe(&rfd, &wfd);
	if (!ret) {
		ret = rv_fd_register(rfd, ctx->node);
		if (ret) {
			close(rfd);
			close(wfd);
		}
	}
	if (ret) {
		free(ch);
		errno = ret;
		return NULL;
	}
	ch->ibch.context = context;
	ch->ibch.fd = rfd;
	ch->ibch.refcnt = 0;
	ch->wfd = wfd;
	ch->node = ctx->node;
	return &ch->ibch;
}

/* EBUSY while CQs use it (rdma-core: refcnt under the context's mutex). */
RV_EXPORT int ibv_destroy_comp_channel(struct ibv_comp_channel *channel)
{
	struct ibv_context *context = channel->context;
	struct rv_channel *ch = to_rv_channel(channel);
	int ret = 0;

	pthread_mutex_lock(&context->mutex);
	if (channel->refcnt) {
		ret = EBUSY;
	} else {
		rv_fd_unregister(channel->fd);
		close(channel->fd);
		close(ch->wfd);
		free(ch);
	}
	pthread_mutex_unlock(&context->mutex);
	return ret;
}

/* Blocks (running the simulation) unless channel->fd was made
 * non-blocking; the record is read from the fd like rdma-core. */
RV_EXPORT int ibv_get_cq_event(struct ibv_comp_channel *channel,
			       struct ibv_cq **cq, void **cq_context)
{
	struct rv_channel *ch = to_rv_channel(channel);
	struct ib_uverbs_comp_event_desc d;
	int fl = fcntl(channel->fd, F_GETFL);

	rv_ev_wait_fd(channel->fd, ch->node,
		      (fl >= 0 && (fl & O_NONBLOCK)) ? 0 : rv_ev_wait_cap());
	if (read(channel->fd, &d, sizeof(d)) != sizeof(d))
		return -1;
	*cq = (struct ibv_cq *)(uintptr_t)d.cq_handle;
	*cq_context = (*cq)->cq_context;
	return 0;
}

RV_EXPORT void ibv_ack_cq_events(struct ibv_cq *cq, unsigned int nevents)
{
	pthread_mutex_lock(&cq->mutex);
	cq->comp_events_completed += nevents;
	pthread_cond_signal(&cq->cond);
	pthread_mutex_unlock(&cq->mutex);
}
