// SPDX-License-Identifier: MIT
/*
 * srq.c - shared receive queues: ibv_create_srq, ibv_modify_srq (the limit),
 * ibv_query_srq, ibv_destroy_srq, ibv_post_srq_recv.
 *
 * The hardware consumes SRQ WQEs in ring order, one per message at its first
 * packet, whichever of the SRQ's QPs the message is for, and reads the WQE
 * again for every packet of that message. Its receive CQE (on the QP's
 * receive CQ, with the QP's number) carries the SRQ WQE index, which
 * ibv_poll_cq() maps to the wr_id through the SRQ's table (the QP's rq.wrid
 * points at it, qp.c). Messages of different QPs complete out of order, so a
 * ring slot is free again only when the completion of the WQE in it has
 * been polled (rv_srq_slot_done(), from ibv_poll_cq() through rv_cqe_hooked()
 * and from rv_cq_clean()): ibv_post_srq_recv() fails with ENOMEM when the
 * next slot in ring order is still taken, even if others are free.
 *
 * Limit: ibv_modify_srq(IBV_SRQ_LIMIT) writes the SRQ context with the new
 * limit; a non-zero limit arms the hardware, which writes
 * IBV_EVENT_SRQ_LIMIT_REACHED once when a message takes a WQE and fewer than
 * the limit remain posted, and disarms itself; ibv_query_srq() then reports
 * srq_limit 0 until the next ibv_modify_srq(). max_wr is fixed at creation
 * (IBV_SRQ_MAX_WR: EINVAL, as mlx5).
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "rnic_verbs.h"

RV_EXPORT struct ibv_srq *ibv_create_srq(struct ibv_pd *ibpd,
					 struct ibv_srq_init_attr *init_attr)
{
	struct rv_context *ctx;
	struct ibv_srq_attr *a;
	struct rv_srq *srq;
	int ret;

	if (!ibpd || !init_attr) {
		errno = EINVAL;
		return NULL;
	}
	ctx = to_rv_ctx(ibpd->context);
	a = &init_attr->attr;
	if (a->max_wr > RNIC_MAX_QP_WR || a->max_sge > ctx->dev->caps.max_sge) {
		errno = EINVAL;
		return NULL;
	}
	srq = calloc(1, sizeof(*srq));
	if (!srq) {
		errno = ENOMEM;
		return NULL;
	}
	rnic_lock();
	ret = rnic_srq_create(ctx->dev, a->max_wr ? a->max_wr : 1, a->max_sge, &srq->hw);
	if (ret)
		goto err;
	srq->busy = calloc(srq->hw.entries, sizeof(*srq->busy));
	srq->wrid = calloc(srq->hw.entries, sizeof(*srq->wrid));
	if (!srq->busy || !srq->wrid) {
		rnic_srq_destroy(ctx->dev, &srq->hw);
		ret = ENOMEM;
		goto err;
	}
	srq->buf = srq->hw.ring;
	srq->mask = srq->hw.entries - 1;
	srq->log_stride = srq->hw.log_stride;
	srq->max_sge = srq->hw.max_sge;
	srq->sim = ctx->sim;
	srq->node = ctx->node;
	srq->ctx = ctx;
	srq->pd = to_rv_pd(ibpd);
	srq->pd->refcnt++;
	rv_ev_srq_add(srq);
	rnic_unlock();

	srq->ibsrq.context = ibpd->context;
	srq->ibsrq.srq_context = init_attr->srq_context;
	srq->ibsrq.pd = ibpd;
	srq->ibsrq.handle = srq->hw.srqn;
	srq->ibsrq.events_completed = 0;
	pthread_mutex_init(&srq->ibsrq.mutex, NULL);
	pthread_cond_init(&srq->ibsrq.cond, NULL);
	/* What was created; srq_limit is not an input here. */
	a->max_wr = srq->hw.entries;
	a->max_sge = srq->max_sge;
	return &srq->ibsrq;

err:
	rnic_unlock();
	free(srq->busy);
	free(srq->wrid);
	free(srq);
	errno = ret;
	return NULL;
}

RV_EXPORT int ibv_modify_srq(struct ibv_srq *ibsrq, struct ibv_srq_attr *attr,
			     int mask)
{
	struct rv_srq *srq = to_rv_srq(ibsrq);
	int ret;

	if (!attr || (mask & ~(IBV_SRQ_MAX_WR | IBV_SRQ_LIMIT)))
		return EINVAL;
	/* No resizing: a change of max_wr fails and nothing is modified. */
	if (mask & IBV_SRQ_MAX_WR)
		return EINVAL;
	if (!(mask & IBV_SRQ_LIMIT))
		return 0;
	if (attr->srq_limit >= srq->hw.entries)
		return EINVAL;
	rnic_lock();
	ret = rnic_srq_set_limit(srq->ctx->dev, &srq->hw, (uint16_t)attr->srq_limit);
	rnic_unlock();
	return ret;
}

RV_EXPORT int ibv_query_srq(struct ibv_srq *ibsrq, struct ibv_srq_attr *attr)
{
	struct rv_srq *srq = to_rv_srq(ibsrq);

	rnic_lock();
	/* A limit event that fired disarmed the SRQ. */
	if (rv_ev_work)
		rv_ev_process();
	attr->max_wr = srq->hw.entries;
	attr->max_sge = srq->max_sge;
	attr->srq_limit = srq->hw.limit;
	rnic_unlock();
	return 0;
}

/* EBUSY while QPs use it; else, as rdma-core, waits until every
 * asynchronous event of it that was read has been acknowledged. */
RV_EXPORT int ibv_destroy_srq(struct ibv_srq *ibsrq)
{
	struct rv_srq *srq = to_rv_srq(ibsrq);
	unsigned int events;
	int ret;

	rnic_lock();
	if (srq->refcnt) {
		rnic_unlock();
		return EBUSY;
	}
	ret = rnic_srq_destroy(srq->ctx->dev, &srq->hw);
	rv_ev_srq_remove(srq);
	events = srq->events_reported;
	srq->pd->refcnt--;
	rnic_unlock();
	if (ret)
		rnic_dbg("destroy_srq: hardware did not take the invalidation (%d); resources released\n",
			 ret);
	pthread_mutex_lock(&ibsrq->mutex);
	while (ibsrq->events_completed != events)
		pthread_cond_wait(&ibsrq->cond, &ibsrq->mutex);
	pthread_mutex_unlock(&ibsrq->mutex);
	pthread_cond_destroy(&ibsrq->cond);
	pthread_mutex_destroy(&ibsrq->mutex);
	free(srq->busy);
	free(srq->wrid);
	free(srq);
	return 0;
}

/* The completion of SRQ WQE @idx was polled (or removed): its slot is free. */
void rv_srq_slot_done(struct rv_srq *srq, uint16_t idx)
{
	srq->busy[idx & srq->mask] = 0;
}

static inline void rv_put_seg(uint8_t *seg, uint64_t w0, uint64_t w1)
{
	w0 = htole64(w0);
	w1 = htole64(w1);
	memcpy(seg, &w0, 8);
	memcpy(seg + 8, &w1, 8);
}

/* Receive WQEs as ibv_post_recv() builds them (header segment, one data
 * segment per non-empty SGE), then one SRQ_DB write per call. */
int rv_post_srq_recv(struct ibv_srq *ibsrq, struct ibv_recv_wr *wr,
		     struct ibv_recv_wr **bad_wr)
{
	struct rv_srq *srq = to_rv_srq(ibsrq);
	uint16_t pi, start;
	int err = 0;

	rnic_lock_leaf();
	start = pi = srq->pi;
	for (; wr; wr = wr->next) {
		const struct ibv_sge *sgl = wr->sg_list;
		unsigned int nsge = (unsigned int)wr->num_sge;
		unsigned int i, slot = pi & srq->mask;
		uint8_t *wqe;

		if (unlikely(srq->busy[slot])) {
			err = ENOMEM;
			break;
		}
		if (unlikely(nsge > srq->max_sge)) {
			err = EINVAL;
			break;
		}
		wqe = srq->buf + ((size_t)slot << srq->log_stride);
		for (i = 0; i < nsge; i++) {
			/* Length 0 is 2^31 bytes (the largest message). */
			uint32_t len = sgl[i].length ? sgl[i].length : RV_SGE_LEN0;

			rv_put_seg(wqe + (i + 1) * RNIC_SEG_SIZE,
				   len | (uint64_t)sgl[i].lkey << 32, sgl[i].addr);
		}
		rv_put_seg(wqe, nsge | (uint64_t)pi << 16, 0);
		srq->wrid[slot] = wr->wr_id;
		srq->busy[slot] = 1;
		pi++;
	}
	if (likely(pi != start)) {
		srq->pi = pi;
		__atomic_thread_fence(__ATOMIC_RELEASE);
		rnic_sim_mmio_write(srq->sim, srq->node, RNIC_REG_SRQ_DB,
				    rnic_db_srq(srq->hw.srqn, pi));
	}
	if (unlikely(err))
		*bad_wr = wr;
	rnic_unlock_leaf();
	return err;
}
