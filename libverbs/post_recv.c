// SPDX-License-Identifier: MIT
/*
 * post_recv.c - ibv_post_recv(): build receive WQEs (header segment, then
 * one data segment per non-empty SGE) in the RQ ring, then one doorbell
 * record update and one RQ_DB write per call.
 */
#include <string.h>

#include "rnic_verbs.h"

int rv_post_recv(struct ibv_qp *ibqp, struct ibv_recv_wr *wr,
		 struct ibv_recv_wr **bad_wr)
{
	struct rv_qp *qp = to_rv_qp(ibqp);
	struct rv_wq *rq = &qp->rq;
	uint16_t pi;
	unsigned int nreq = 0;
	int err = 0;

	rnic_lock();
	/* Receive WRs may be posted from INIT on (IBA); not in RESET. */
	if (unlikely(qp->hw.state == IBV_QPS_RESET)) {
		err = EINVAL;
		goto out;
	}
	pi = rq->pi;
	for (; wr; wr = wr->next, nreq++) {
		uint8_t *wqe, *seg;
		uint64_t w0, w1, bytes = 0;
		unsigned int nsge = 0;
		int i;

		if (unlikely((uint16_t)(pi - rq->tail) >= rq->entries)) {
			err = ENOMEM;
			break;
		}
		if (unlikely((unsigned int)wr->num_sge > rq->max_sge)) {
			err = EINVAL;
			break;
		}
		wqe = rq->buf + ((size_t)(pi & rq->mask) << rq->log_stride);
		seg = wqe + RNIC_SEG_SIZE;
		for (i = 0; i < wr->num_sge; i++) {
			const struct ibv_sge *sge = &wr->sg_list[i];

			if (unlikely(!sge->length))
				continue;
			w0 = htole64((uint64_t)sge->length | ((uint64_t)sge->lkey << 32));
			w1 = htole64(sge->addr);
			memcpy(seg, &w0, 8);
			memcpy(seg + 8, &w1, 8);
			bytes += sge->length;
			seg += RNIC_SEG_SIZE;
			nsge++;
		}
		/* Header: number of SGEs, WQE index. */
		w0 = htole64((uint64_t)nsge | ((uint64_t)pi << 16));
		w1 = 0;
		memcpy(wqe, &w0, 8);
		memcpy(wqe + 8, &w1, 8);

		rq->wrid[pi & rq->mask] = wr->wr_id;
		if (unlikely(rv_tl_enabled))
			rv_tl_post(qp, rq, pi, RV_TL_RECV, bytes);
		pi++;
	}
	if (likely(nreq)) {
		rq->pi = pi;
		qp->hw.dbrec->rq_pi = htole32(pi);
		__atomic_thread_fence(__ATOMIC_RELEASE);
		rnic_ring_rq(qp->ctx->dev, qp->hw.qpn, pi);
	}
out:
	if (unlikely(err))
		*bad_wr = wr;
	rnic_unlock();
	return err;
}

int rv_post_srq_recv(struct ibv_srq *srq, struct ibv_recv_wr *wr,
		     struct ibv_recv_wr **bad_wr)
{
	(void)srq;
	*bad_wr = wr;
	return EOPNOTSUPP;
}
