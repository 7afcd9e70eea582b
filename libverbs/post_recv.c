// SPDX-License-Identifier: MIT
/*
 * post_recv.c - ibv_post_recv(): build receive WQEs (header segment, then
 * one data segment per non-empty SGE) in the RQ ring, then one doorbell
 * record update and one RQ_DB write per call. A QP on an SRQ has no room
 * (ENOMEM): its receives are posted with ibv_post_srq_recv() (srq.c).
 */
#include <string.h>

#include "rnic_verbs.h"

static inline void rv_put_seg(uint8_t *seg, uint64_t w0, uint64_t w1)
{
	w0 = htole64(w0);
	w1 = htole64(w1);
	memcpy(seg, &w0, 8);
	memcpy(seg + 8, &w1, 8);
}

int rv_post_recv(struct ibv_qp *ibqp, struct ibv_recv_wr *wr,
		 struct ibv_recv_wr **bad_wr)
{
	struct rv_qp *qp = to_rv_qp(ibqp);
	struct rv_wq *rq = &qp->rq;
	uint16_t pi, start;
	int err = 0;

	rnic_lock_leaf();
	/* Receive WRs may be posted from INIT on; not in RESET. */
	if (unlikely(qp->hw.state == IBV_QPS_RESET)) {
		err = EINVAL;
		goto out;
	}
	start = pi = rq->pi;
	for (; wr; wr = wr->next) {
		const struct ibv_sge *sgl = wr->sg_list;
		unsigned int nsge = (unsigned int)wr->num_sge;
		unsigned int i;
		uint64_t bytes = 0;
		uint8_t *wqe;

		if (unlikely((uint16_t)(pi - rq->tail) >= rq->entries)) {
			err = ENOMEM;
			break;
		}
		if (unlikely(nsge > rq->max_sge)) {
			err = EINVAL;
			break;
		}
		wqe = rq->buf + ((size_t)(pi & rq->mask) << rq->log_stride);
		for (i = 0; i < nsge; i++) {
			/* Length 0 is 2^31 bytes (the largest message). */
			uint32_t len = sgl[i].length ? sgl[i].length : RV_SGE_LEN0;

			rv_put_seg(wqe + (i + 1) * RNIC_SEG_SIZE,
				   len | (uint64_t)sgl[i].lkey << 32, sgl[i].addr);
			bytes += len;
		}
		/* Header: number of SGEs, WQE index. */
		rv_put_seg(wqe, nsge | (uint64_t)pi << 16, 0);

		rq->wrid[pi & rq->mask] = wr->wr_id;
		if (unlikely(rv_tl_enabled))
			rv_tl_post(qp, rq, pi, RV_TL_RECV, bytes);
		pi++;
	}
	if (likely(pi != start)) {
		rq->pi = pi;
		qp->dbrec->rq_pi = htole32(pi);
		__atomic_thread_fence(__ATOMIC_RELEASE);
		rnic_sim_mmio_write(qp->sim, qp->node, RNIC_REG_RQ_DB,
				    rnic_db_wq(qp->qpn, pi));
	}
out:
	if (unlikely(err))
		*bad_wr = wr;
	rnic_unlock_leaf();
	return err;
}
