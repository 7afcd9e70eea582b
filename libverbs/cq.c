// SPDX-License-Identifier: MIT
/*
 * cq.c - completion queues: creation, arming, and removing a QP's CQEs.
 * Polling is in poll_cq.c.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "rnic_verbs.h"

/* The CQ ring and context of @cq (calloc'ed by the caller), and the
 * struct ibv_cq part shared with struct ibv_cq_ex. */
int rv_cq_init(struct rv_context *ctx, struct rv_cq *cq, uint32_t cqe,
	       void *cq_context)
{
	int ret;

	ret = rnic_cq_create(ctx->dev, cqe, &cq->hw);
	if (ret)
		return ret;
	cq->ctx = ctx;
	cq->ring = cq->hw.ring;
	cq->log_size = cq->hw.log_size;
	cq->mask = cq->hw.entries - 1;
	cq->ci = 0;
	cq->qp_table = ctx->qp_table;
	cq->qp_table_size = ctx->qp_table_size;
	cq->sim = ctx->sim;
	cq->node = ctx->node;

	cq->ibcq.context = &ctx->vctx.context;
	cq->ibcq.channel = NULL;
	cq->ibcq.cq_context = cq_context;
	cq->ibcq.handle = cq->hw.cqn;
	cq->ibcq.cqe = (int)cq->hw.entries;
	pthread_mutex_init(&cq->ibcq.mutex, NULL);
	pthread_cond_init(&cq->ibcq.cond, NULL);
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
	if (channel) {
		/* No completion channels yet (ibv_create_comp_channel fails). */
		errno = EOPNOTSUPP;
		return NULL;
	}
	cq = calloc(1, sizeof(*cq));
	if (!cq) {
		errno = ENOMEM;
		return NULL;
	}
	ret = rv_cq_init(ctx, cq, (uint32_t)cqe, cq_context);
	if (ret) {
		free(cq);
		errno = ret;
		return NULL;
	}
	return &cq->ibcq;
}

RV_EXPORT int ibv_destroy_cq(struct ibv_cq *ibcq)
{
	struct rv_cq *cq = to_rv_cq(ibcq);
	int ret;

	rnic_lock();
	if (cq->refcnt) {
		rnic_unlock();
		return EBUSY;
	}
	ret = rnic_cq_destroy(cq->ctx->dev, &cq->hw);
	rnic_unlock();
	if (ret)
		rnic_dbg("destroy_cq: hardware did not take the invalidation (%d); resources released\n",
			 ret);
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

/* CQ_DB with the arm bit: the hardware raises its interrupt on the next
 * CQE written to this CQ. */
int rv_req_notify_cq(struct ibv_cq *ibcq, int solicited_only)
{
	struct rv_cq *cq = to_rv_cq(ibcq);

	rnic_lock_leaf();
	rnic_sim_mmio_write(cq->sim, cq->node, RNIC_REG_CQ_DB,
			    rnic_db_cq(cq->hw.cqn, 1, solicited_only));
	rnic_unlock_leaf();
	return 0;
}

/*
 * Remove every not-yet-polled CQE of @qpn (the QP was reset or destroyed):
 * the valid CQEs after it are moved up over the removed ones, keeping the
 * owner bit each destination slot must have, and the consumer index skips
 * the freed slots. The hardware only writes CQEs while the simulation runs,
 * which it cannot do while we hold the lock.
 */
void rv_cq_clean(struct rv_cq *cq, uint32_t qpn)
{
	uint32_t pi, nfreed = 0;

	rnic_lock();
	for (pi = cq->ci; pi - cq->ci <= cq->mask; pi++)
		if (!rnic_cqe_is_new(&cq->ring[pi & cq->mask], pi, cq->log_size))
			break;
	while (pi != cq->ci) {
		struct rnic_cqe *cqe;

		pi--;
		cqe = &cq->ring[pi & cq->mask];
		if ((le32toh(cqe->qpn) & 0xffffff) == qpn) {
			nfreed++;
		} else if (nfreed) {
			uint32_t d = pi + nfreed;
			struct rnic_cqe *dst = &cq->ring[d & cq->mask];

			memcpy(dst, cqe, sizeof(*dst));
			dst->owner = (d >> cq->log_size) & 1;
		}
	}
	cq->ci += nfreed;
	rnic_unlock();
}

/* ------------------------------------------------------------------------ */
/* Completion channels and CQ events: not implemented yet                   */
/* ------------------------------------------------------------------------ */

RV_EXPORT struct ibv_comp_channel *ibv_create_comp_channel(struct ibv_context *context)
{
	(void)context;
	errno = EOPNOTSUPP;
	return NULL;
}

RV_EXPORT int ibv_destroy_comp_channel(struct ibv_comp_channel *channel)
{
	(void)channel;
	return EOPNOTSUPP;
}

RV_EXPORT int ibv_get_cq_event(struct ibv_comp_channel *channel,
			       struct ibv_cq **cq, void **cq_context)
{
	(void)channel;
	(void)cq;
	(void)cq_context;
	errno = EOPNOTSUPP;
	return -1;
}

RV_EXPORT void ibv_ack_cq_events(struct ibv_cq *cq, unsigned int nevents)
{
	(void)cq;
	(void)nevents;
}
