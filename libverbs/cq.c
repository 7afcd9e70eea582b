// SPDX-License-Identifier: MIT
/*
 * cq.c - completion queues: creation (with a doorbell record for overrun
 * detection, optionally with a completion channel), arming, destruction,
 * and removing a QP's CQEs. Polling is in poll_cq.c, completion channels
 * and CQ events in events.c.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "rnic_verbs.h"

/* The CQ ring and context of @cq (calloc'ed by the caller), and the
 * struct ibv_cq part shared with struct ibv_cq_ex. */
int rv_cq_init(struct rv_context *ctx, struct rv_cq *cq, uint32_t cqe,
	       void *cq_context, struct ibv_comp_channel *channel)
{
	struct ibv_context *context = &ctx->vctx.context;
	int ret;

	if (channel && channel->context != context)
		return EINVAL;
	ret = rnic_cq_create_ex(ctx->dev, cqe, 1, &cq->hw);
	if (ret)
		return ret;
	cq->ctx = ctx;
	cq->ring = cq->hw.ring;
	cq->dbrec = cq->hw.dbrec;
	cq->log_size = cq->hw.log_size;
	cq->mask = cq->hw.entries - 1;
	cq->dbrec->ci = 0;
	cq->qp_table = ctx->qp_table;
	cq->qp_table_size = ctx->qp_table_size;
	cq->sim = ctx->sim;
	cq->node = ctx->node;

	cq->ibcq.context = context;
	cq->ibcq.channel = channel;
	cq->ibcq.cq_context = cq_context;
	cq->ibcq.handle = cq->hw.cqn;
	cq->ibcq.cqe = (int)cq->hw.entries;
	cq->ibcq.comp_events_completed = 0;
	cq->ibcq.async_events_completed = 0;
	pthread_mutex_init(&cq->ibcq.mutex, NULL);
	pthread_cond_init(&cq->ibcq.cond, NULL);
	if (channel) {
		/* As rdma-core: the channel counts its CQs under the
		 * context's mutex (ibv_destroy_comp_channel: EBUSY). */
		pthread_mutex_lock(&context->mutex);
		channel->refcnt++;
		pthread_mutex_unlock(&context->mutex);
		cq->channel = to_rv_channel(channel);
	}
	rnic_lock();
	rv_ev_cq_add(cq);
	rnic_unlock();
	return 0;
}

RV_EXPORT struct ibv_cq *ibv_create_cq(struct ibv_context *context, int cqe,
				       void *cq_context,
				       struct ibv_comp_channel *channel,
				       int comp_vector)
{
	struct rv_context *ctx = to_rv_ctx(context);
	struct rv_cq *cq;
	int ret;

	if (cqe < 1 || cqe > RNIC_MAX_CQE || comp_vector < 0 ||
	    comp_vector >= context->num_comp_vectors) {
		errno = EINVAL;
		return NULL;
	}
	cq = calloc(1, sizeof(*cq));
	if (!cq) {
		errno = ENOMEM;
		return NULL;
	}
	ret = rv_cq_init(ctx, cq, (uint32_t)cqe, cq_context, channel);
	if (ret) {
		free(cq);
		errno = ret;
		return NULL;
	}
	return &cq->ibcq;
}

/*
 * As rdma-core (ibv_cmd_destroy_cq): events not yet read are dropped, then
 * the call waits until every CQ event and asynchronous event of the CQ that
 * was read has been acknowledged (ibv_ack_cq_events, ibv_ack_async_event).
 * EBUSY while QPs use the CQ.
 */
RV_EXPORT int ibv_destroy_cq(struct ibv_cq *ibcq)
{
	struct rv_cq *cq = to_rv_cq(ibcq);
	struct ibv_comp_channel *channel = ibcq->channel;
	unsigned int comp, async;
	int ret;

	rnic_lock();
	if (cq->refcnt) {
		rnic_unlock();
		return EBUSY;
	}
	ret = rnic_cq_destroy(cq->ctx->dev, &cq->hw);
	/* After the invalidation: no interrupt of this CQ can come any more. */
	rv_ev_cq_remove(cq);
	comp = cq->comp_events_reported;
	async = cq->async_events_reported;
	rnic_unlock();
	if (ret)
		rnic_dbg("destroy_cq: hardware did not take the invalidation (%d); resources released\n",
			 ret);

	pthread_mutex_lock(&ibcq->mutex);
	while (ibcq->comp_events_completed != comp ||
	       ibcq->async_events_completed != async)
		pthread_cond_wait(&ibcq->cond, &ibcq->mutex);
	pthread_mutex_unlock(&ibcq->mutex);

	if (channel) {
		pthread_mutex_lock(&channel->context->mutex);
		channel->refcnt--;
		pthread_mutex_unlock(&channel->context->mutex);
	}
	pthread_cond_destroy(&ibcq->cond);
	pthread_mutex_destroy(&ibcq->mutex);
	if (cq->locked)
		pthread_spin_destroy(&cq->ex_lock);
	free(cq);
	return 0;
}

RV_EXPORT int ibv_resize_cq(struct ibv_cq *cq, int cqe)
{
	(void)cq;
	(void)cqe;
	return EOPNOTSUPP;
}

/* CQ_DB with the arm bit: the hardware raises the CQ's interrupt with the
 * next CQE written to it (solicited only: the next CQE of a message with
 * the solicited event bit, or an error CQE); events.c turns it into a CQ
 * event on the CQ's channel. */
int rv_req_notify_cq(struct ibv_cq *ibcq, int solicited_only)
{
	struct rv_cq *cq = to_rv_cq(ibcq);

	rnic_lock_leaf();
	rnic_sim_mmio_write(cq->sim, cq->node, RNIC_REG_CQ_DB,
			    rnic_db_cq(cq->hw.cqn, 1, solicited_only));
	rnic_unlock_leaf();
	return 0;
}

/* ibv_modify_cq(3), IBV_CQ_ATTR_MODERATE: from the next arm on, the CQ's
 * event comes once cq_count completions that would each have raised it
 * were written, or cq_period microseconds after the first of them,
 * whichever is first (the hardware, rtl/cq/rnic_cqe_writer.sv). 0 and 0,
 * the state of a new CQ, is an event with the first. Other attr_mask bits
 * are EINVAL. */
int rv_modify_cq(struct ibv_cq *ibcq, struct ibv_modify_cq_attr *attr)
{
	struct rv_cq *cq = to_rv_cq(ibcq);

	if (!attr || (attr->attr_mask & ~(uint32_t)IBV_CQ_ATTR_MODERATE))
		return EINVAL;
	if (!(attr->attr_mask & IBV_CQ_ATTR_MODERATE))
		return 0;
	rnic_lock_leaf();
	rnic_sim_mmio_write(cq->sim, cq->node, RNIC_REG_CQ_DB,
			    rnic_db_cq_mod(cq->hw.cqn, attr->moderate.cq_count,
					   attr->moderate.cq_period));
	rnic_unlock_leaf();
	return 0;
}

/*
 * Remove every not-yet-polled CQE of @qp (the QP was reset or destroyed):
 * the valid CQEs after it are moved up over the removed ones, keeping the
 * owner bit each destination slot must have, and the consumer index skips
 * the freed slots. The SRQ WQEs of removed receive CQEs are free again.
 * The hardware only writes CQEs while the simulation runs, which it cannot
 * do while we hold the lock.
 */
void rv_cq_clean(struct rv_cq *cq, struct rv_qp *qp)
{
	uint32_t ci, pi, nfreed = 0, qpn = qp->hw.qpn;

	rnic_lock();
	ci = le32toh(cq->dbrec->ci);
	for (pi = ci; pi - ci <= cq->mask; pi++)
		if (!rnic_cqe_is_new(&cq->ring[pi & cq->mask], pi, cq->log_size))
			break;
	while (pi != ci) {
		struct rnic_cqe *cqe;

		pi--;
		cqe = &cq->ring[pi & cq->mask];
		if ((le32toh(cqe->qpn) & 0xffffff) == qpn) {
			nfreed++;
			if (qp->srq && qp->rcq == cq &&
			    (qp->scq != cq || (cqe->opcode & IBV_WC_RECV)))
				rv_srq_slot_done(qp->srq, le16toh(cqe->wqe_idx));
		} else if (nfreed) {
			uint32_t d = pi + nfreed;
			struct rnic_cqe *dst = &cq->ring[d & cq->mask];

			memcpy(dst, cqe, sizeof(*dst));
			dst->owner = (d >> cq->log_size) & 1;
		}
	}
	cq->dbrec->ci = htole32(ci + nfreed);
	rnic_unlock();
}
