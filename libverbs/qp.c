// SPDX-License-Identifier: MIT
/*
 * qp.c - queue pairs: create (RC, UC, UD; with or without the ibv_wr_*
 * interface), modify (state machine in the driver), query, destroy.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "rnic_verbs.h"

static void rv_wq_reset(struct rv_wq *wq)
{
	wq->pi = 0;
	wq->tail = 0;
}

static int rv_wq_init(struct rv_wq *wq, const struct rnic_wq_geom *g)
{
	wq->buf = g->buf;
	wq->entries = g->entries;
	wq->mask = g->entries - 1;
	wq->log_stride = g->log_stride;
	wq->max_sge = g->max_sge;
	rv_wq_reset(wq);
	wq->wrid = calloc(g->entries, sizeof(*wq->wrid));
	return wq->wrid ? 0 : ENOMEM;
}

static struct ibv_qp *rv_create_qp(struct ibv_context *context, struct ibv_pd *ibpd,
				   struct ibv_qp_init_attr *attr, int has_qp_ex,
				   uint32_t send_ops)
{
	struct rv_context *ctx = to_rv_ctx(context);
	const struct rnic_caps *caps = &ctx->dev->caps;
	struct rnic_qp_init init;
	struct rv_cq *scq, *rcq;
	struct rv_srq *srq;
	struct rv_pd *pd;
	struct rv_qp *qp;
	struct ibv_qp *ibqp;
	int ret;

	if (!ibpd || ibpd->context != context || !attr->send_cq || !attr->recv_cq ||
	    attr->send_cq->context != context || attr->recv_cq->context != context) {
		errno = EINVAL;
		return NULL;
	}
	if (attr->qp_type != IBV_QPT_RC && attr->qp_type != IBV_QPT_UC &&
	    attr->qp_type != IBV_QPT_UD) {
		errno = EOPNOTSUPP;
		return NULL;
	}
	if (attr->srq && attr->srq->context != context) {
		errno = EINVAL;
		return NULL;
	}
	srq = attr->srq ? to_rv_srq(attr->srq) : NULL;
	/* With an SRQ, max_recv_wr and max_recv_sge are ignored. */
	if (attr->cap.max_send_wr > RNIC_MAX_QP_WR ||
	    attr->cap.max_send_sge > caps->max_sge ||
	    (!srq && (attr->cap.max_recv_wr > RNIC_MAX_QP_WR ||
		      attr->cap.max_recv_sge > caps->max_sge))) {
		errno = EINVAL;
		return NULL;
	}

	pd = to_rv_pd(ibpd);
	scq = to_rv_cq(attr->send_cq);
	rcq = to_rv_cq(attr->recv_cq);
	qp = calloc(1, sizeof(*qp));
	if (!qp) {
		errno = ENOMEM;
		return NULL;
	}
	init.type = attr->qp_type;
	init.pdn = pd->pdn;
	init.scqn = scq->hw.cqn;
	init.rcqn = rcq->hw.cqn;
	init.max_send_wr = attr->cap.max_send_wr;
	init.max_recv_wr = srq ? 0 : attr->cap.max_recv_wr;
	init.max_send_sge = attr->cap.max_send_sge;
	init.max_recv_sge = srq ? 0 : attr->cap.max_recv_sge;
	init.max_inline_data = attr->cap.max_inline_data;
	init.use_srq = !!srq;
	init.srqn = srq ? srq->hw.srqn : 0;

	rnic_lock();
	ret = rnic_qp_create(ctx->dev, &init, &qp->hw);
	if (ret)
		goto err_unlock;
	qp->type = attr->qp_type;
	ret = rv_wq_init(&qp->sq, &qp->hw.sq);
	if (!ret)
		ret = rv_wq_init(&qp->rq, &qp->hw.rq);
	if (!ret)
		ret = rv_tl_qp_init(qp);
	if (!ret && has_qp_ex)
		ret = rv_wr_init(qp, send_ops);
	if (ret)
		goto err_destroy;
	if (qp->hw.qpn >= ctx->qp_table_size) {
		ret = EINVAL;
		goto err_destroy;
	}
	if (srq) {
		/* No receive queue of its own: its receive CQEs carry SRQ WQE
		 * indices, looked up in the SRQ's wr_id table; ibv_post_recv()
		 * finds no room (ENOMEM). No timeline records for them. */
		free(qp->rq.wrid);
		qp->rq.wrid = srq->wrid;
		qp->rq.mask = srq->mask;
		qp->rq.entries = 0;
		qp->rq.max_sge = 0;
		free(qp->rq.tl);
		qp->rq.tl = NULL;
		qp->srq = srq;
		srq->refcnt++;
	}
	qp->ctx = ctx;
	qp->pd = pd;
	qp->scq = scq;
	qp->rcq = rcq;
	qp->sq_sig_all = !!attr->sq_sig_all;
	qp->sig_all = attr->sq_sig_all ? RNIC_WQE_F_SIGNALED : 0;
	qp->qpn = qp->hw.qpn;
	qp->max_inline = qp->hw.sq.max_inline;
	rv_sq_ops_init(qp);
	qp->dbrec = qp->hw.dbrec;
	qp->sim = ctx->sim;
	qp->node = ctx->node;
	pd->refcnt++;
	scq->refcnt++;
	rcq->refcnt++;
	ctx->qp_table[qp->hw.qpn] = qp;
	if (srq)
		rv_cqe_hook_update(1);
	rnic_unlock();

	attr->cap.max_send_wr = qp->sq.entries;
	attr->cap.max_recv_wr = qp->rq.entries;
	attr->cap.max_send_sge = qp->sq.max_sge;
	attr->cap.max_recv_sge = qp->rq.max_sge;
	attr->cap.max_inline_data = qp->max_inline;

	ibqp = &qp->ibqpx.qp_base;
	ibqp->context = context;
	ibqp->qp_context = attr->qp_context;
	ibqp->pd = ibpd;
	ibqp->send_cq = attr->send_cq;
	ibqp->recv_cq = attr->recv_cq;
	ibqp->srq = attr->srq;
	ibqp->handle = qp->hw.qpn;
	ibqp->events_completed = 0;
	ibqp->qp_num = qp->hw.qpn;
	ibqp->state = IBV_QPS_RESET;
	ibqp->qp_type = attr->qp_type;
	pthread_mutex_init(&ibqp->mutex, NULL);
	pthread_cond_init(&ibqp->cond, NULL);
	return ibqp;

err_destroy:
	rnic_qp_destroy(ctx->dev, &qp->hw);
	rv_tl_qp_fini(qp);
	rv_wr_fini(qp);
	free(qp->sq.wrid);
	if (!qp->srq)
		free(qp->rq.wrid);
err_unlock:
	rnic_unlock();
	free(qp);
	errno = ret;
	return NULL;
}

RV_EXPORT struct ibv_qp *ibv_create_qp(struct ibv_pd *pd,
				       struct ibv_qp_init_attr *qp_init_attr)
{
	if (!pd || !qp_init_attr) {
		errno = EINVAL;
		return NULL;
	}
	return rv_create_qp(pd->context, pd, qp_init_attr, 0, 0);
}

/*
 * verbs_context.create_qp_ex: a PD, no create flags, and optionally the
 * ibv_wr_* interface (IBV_QP_INIT_ATTR_SEND_OPS_FLAGS). Like mlx5, creation
 * fails with EOPNOTSUPP when send_ops_flags asks for an operation the QP
 * type cannot do (post_send.c: the opcodes of each type).
 */
struct ibv_qp *rv_create_qp_ex(struct ibv_context *context,
			       struct ibv_qp_init_attr_ex *attr)
{
	uint32_t send_ops = 0;
	struct ibv_qp_init_attr a;
	struct ibv_qp *qp;
	int has_qp_ex;

	if (attr->comp_mask & ~(uint32_t)(IBV_QP_INIT_ATTR_PD |
					  IBV_QP_INIT_ATTR_CREATE_FLAGS |
					  IBV_QP_INIT_ATTR_SEND_OPS_FLAGS)) {
		errno = EOPNOTSUPP;
		return NULL;
	}
	has_qp_ex = !!(attr->comp_mask & IBV_QP_INIT_ATTR_SEND_OPS_FLAGS);
	if (has_qp_ex) {
		if (attr->send_ops_flags > UINT32_MAX ||
		    (attr->send_ops_flags & ~(uint64_t)rv_qp_send_ops(attr->qp_type))) {
			errno = EOPNOTSUPP;
			return NULL;
		}
		send_ops = (uint32_t)attr->send_ops_flags;
	}
	if (!(attr->comp_mask & IBV_QP_INIT_ATTR_PD) || !attr->pd) {
		errno = EINVAL;
		return NULL;
	}
	if ((attr->comp_mask & IBV_QP_INIT_ATTR_CREATE_FLAGS) && attr->create_flags) {
		errno = EOPNOTSUPP;
		return NULL;
	}
	memset(&a, 0, sizeof(a));
	a.qp_context = attr->qp_context;
	a.send_cq = attr->send_cq;
	a.recv_cq = attr->recv_cq;
	a.srq = attr->srq;
	a.cap = attr->cap;
	a.qp_type = attr->qp_type;
	a.sq_sig_all = attr->sq_sig_all;
	qp = rv_create_qp(context, attr->pd, &a, has_qp_ex, send_ops);
	if (qp)
		attr->cap = a.cap;
	return qp;
}

/* Only QPs created with IBV_QP_INIT_ATTR_SEND_OPS_FLAGS have the extended
 * interface (as in rdma-core). */
RV_EXPORT struct ibv_qp_ex *ibv_qp_to_qp_ex(struct ibv_qp *ibqp)
{
	struct rv_qp *qp = to_rv_qp(ibqp);

	return qp->has_qp_ex ? &qp->ibqpx : NULL;
}

RV_EXPORT int ibv_modify_qp(struct ibv_qp *ibqp, struct ibv_qp_attr *attr,
			    int attr_mask)
{
	struct rv_qp *qp = to_rv_qp(ibqp);
	enum ibv_qp_state old;
	int ret;

	rnic_lock();
	/* Events the hardware raised before this call apply first (a QP
	 * error event moves the QP to ERR, from where the transition starts). */
	if (rv_ev_work)
		rv_ev_process();
	old = qp->hw.state;
	ret = rnic_qp_modify(qp->ctx->dev, &qp->hw, attr, attr_mask);
	/* Even a refused modify may have learnt that the hardware moved the
	 * QP to ERR or SQE on its own. */
	ibqp->state = qp->hw.state;
	if (!ret) {
		if (qp->hw.state == IBV_QPS_RESET ||
		    (old == IBV_QPS_RESET && qp->hw.state == IBV_QPS_INIT)) {
			/* The hardware cleared its queue indices; the CQEs
			 * of the QP not yet polled are gone (like mlx5). */
			if (old != IBV_QPS_RESET) {
				rv_cq_clean(qp->scq, qp);
				if (qp->rcq != qp->scq)
					rv_cq_clean(qp->rcq, qp);
			}
			rv_wq_reset(&qp->sq);
			rv_wq_reset(&qp->rq);
		}
		/* Events of the QP before a reset are in the event queue now
		 * (the reset waited for them): taken while it is in RESET,
		 * they leave its state alone (rv_qp_set_err). */
		if (qp->hw.state == IBV_QPS_RESET && rv_ev_work)
			rv_ev_process();
	}
	rnic_unlock();
	return ret;
}

RV_EXPORT int ibv_query_qp(struct ibv_qp *ibqp, struct ibv_qp_attr *attr,
			   int attr_mask, struct ibv_qp_init_attr *init_attr)
{
	struct rv_qp *qp = to_rv_qp(ibqp);
	enum ibv_qp_state hw_state;
	uint32_t sq_psn, rq_psn;

	(void)attr_mask;	/* everything is returned */
	rnic_lock();
	/* Asynchronous events may have moved it to ERR (a CQ overrun). */
	if (rv_ev_work)
		rv_ev_process();
	*attr = qp->hw.attr;
	/* The hardware may have moved the QP to ERR on its own (retries
	 * exhausted, remote errors...): report what it says. */
	if (!rnic_qp_query_hw(qp->ctx->dev, &qp->hw, &hw_state, &sq_psn, &rq_psn)) {
		if ((hw_state == IBV_QPS_ERR || hw_state == IBV_QPS_SQE) &&
		    qp->hw.state != hw_state && qp->hw.state != IBV_QPS_ERR) {
			qp->hw.state = hw_state;
			qp->hw.attr.qp_state = hw_state;
			qp->hw.attr.cur_qp_state = hw_state;
			ibqp->state = hw_state;
		}
		if (qp->hw.state >= IBV_QPS_RTS && qp->hw.state != IBV_QPS_ERR)
			attr->sq_psn = sq_psn;
		if (qp->hw.state >= IBV_QPS_RTR && qp->hw.state != IBV_QPS_ERR)
			attr->rq_psn = rq_psn;
	}
	attr->qp_state = qp->hw.state;
	attr->cur_qp_state = qp->hw.state;
	attr->cap.max_send_wr = qp->sq.entries;
	attr->cap.max_recv_wr = qp->rq.entries;
	attr->cap.max_send_sge = qp->sq.max_sge;
	attr->cap.max_recv_sge = qp->rq.max_sge;
	attr->cap.max_inline_data = qp->max_inline;
	attr->sq_draining = 0;
	if (qp->hw.state == IBV_QPS_SQD) {
		int draining;

		if (!rnic_qp_query_draining(qp->ctx->dev, &qp->hw, &draining))
			attr->sq_draining = draining;
	}
	rnic_unlock();

	if (init_attr) {
		memset(init_attr, 0, sizeof(*init_attr));
		init_attr->qp_context = ibqp->qp_context;
		init_attr->send_cq = ibqp->send_cq;
		init_attr->recv_cq = ibqp->recv_cq;
		init_attr->srq = ibqp->srq;
		init_attr->cap = attr->cap;
		init_attr->qp_type = qp->type;
		init_attr->sq_sig_all = qp->sq_sig_all;
	}
	return 0;
}

RV_EXPORT int ibv_destroy_qp(struct ibv_qp *ibqp)
{
	struct rv_qp *qp = to_rv_qp(ibqp);
	struct rv_context *ctx = qp->ctx;
	unsigned int events;
	int ret;

	rnic_lock();
	ret = rnic_qp_destroy(ctx->dev, &qp->hw);
	rv_cq_clean(qp->scq, qp);
	if (qp->rcq != qp->scq)
		rv_cq_clean(qp->rcq, qp);
	/* Events of the QP not processed or not read yet are dropped. */
	rv_ev_qp_forget(qp);
	events = qp->events_reported;
	ctx->qp_table[ibqp->qp_num] = NULL;
	qp->pd->refcnt--;
	qp->scq->refcnt--;
	qp->rcq->refcnt--;
	if (qp->srq)
		qp->srq->refcnt--;
	rv_tl_qp_fini(qp);
	if (qp->srq)
		rv_cqe_hook_update(-1);
	rnic_unlock();
	if (ret)
		rnic_dbg("destroy_qp: hardware did not take the reset (%d); resources released\n",
			 ret);
	/* As rdma-core: wait until every event read has been acknowledged. */
	pthread_mutex_lock(&ibqp->mutex);
	while (ibqp->events_completed != events)
		pthread_cond_wait(&ibqp->cond, &ibqp->mutex);
	pthread_mutex_unlock(&ibqp->mutex);
	pthread_cond_destroy(&ibqp->cond);
	pthread_mutex_destroy(&ibqp->mutex);
	rv_wr_fini(qp);
	free(qp->sq.wrid);
	if (!qp->srq)
		free(qp->rq.wrid);
	free(qp);
	return 0;
}

/* Data placement order is not guaranteed (0): the safe answer. */
RV_EXPORT int ibv_query_qp_data_in_order(struct ibv_qp *qp, enum ibv_wr_opcode op,
					 uint32_t flags)
{
	(void)qp;
	(void)op;
	(void)flags;
	return 0;
}

RV_EXPORT int ibv_set_ece(struct ibv_qp *qp, struct ibv_ece *ece)
{
	(void)qp;
	(void)ece;
	return EOPNOTSUPP;
}

RV_EXPORT int ibv_query_ece(struct ibv_qp *qp, struct ibv_ece *ece)
{
	(void)qp;
	(void)ece;
	return EOPNOTSUPP;
}
