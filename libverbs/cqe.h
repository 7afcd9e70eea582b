/* SPDX-License-Identifier: MIT */
/*
 * cqe.h - taking CQEs off a CQ ring, shared by ibv_poll_cq() (poll_cq.c)
 * and ibv_start_poll()/ibv_next_poll() (cq_ex.c).
 */
#ifndef RV_CQE_H
#define RV_CQE_H

#include "rnic_verbs.h"

/* CQE flags [2:0] (with immediate, GRH, with invalidate) -> ibv_wc_flags */
extern const uint32_t rv_wc_flags[8] RV_HIDDEN;

/* An error CQE (the QP goes to ERR) or a SEND_WITH_INV received. */
void rv_cqe_special(struct rv_cq *cq, struct rv_qp *qp, const struct rnic_cqe *cqe);

/*
 * The next new CQE of @cq at consumer index *ci, consumed (*ci moves past
 * it; the caller keeps the index in a local and stores it into the CQ's
 * doorbell record once) and its WQE retired (with the unsignaled send
 * WQEs before it); its wr_id in *wr_id, its QP and QPN in *qp_out,
 * *qpn_out. CQEs of QPs that no longer exist are dropped. NULL if the CQ is
 * empty. Call with the rnic lock held; the caller calls rv_cqe_special()
 * for an error CQE or one with RNIC_CQE_F_INV (rv_cqe_is_special()).
 */
static inline struct rnic_cqe *rv_cqe_next(struct rv_cq *cq, uint32_t *ci,
					   uint64_t *wr_id, struct rv_qp **qp_out,
					   uint32_t *qpn_out)
{
	for (;;) {
		struct rnic_cqe *cqe = &cq->ring[*ci & cq->mask];
		struct rv_qp *qp;
		struct rv_wq *wq;
		uint32_t qpn;
		uint16_t idx;

		if (!rnic_cqe_is_new(cqe, *ci, cq->log_size))
			return NULL;
		/* Read the CQE only after its owner bit. */
		__atomic_thread_fence(__ATOMIC_ACQUIRE);
		(*ci)++;

		qpn = le32toh(cqe->qpn) & 0xffffff;
		qp = likely(qpn < cq->qp_table_size) ? cq->qp_table[qpn] : NULL;
		if (unlikely(!qp)) {
			rnic_dbg("cq %u: CQE for unknown QP %u dropped\n",
				 cq->hw.cqn, qpn);
			continue;
		}
		idx = le16toh(cqe->wqe_idx);
		/* A CQ can serve both queues of a QP: the opcode tells. */
		if (qp->rcq == cq && (qp->scq != cq || (cqe->opcode & IBV_WC_RECV)))
			wq = &qp->rq;
		else
			wq = &qp->sq;
		*wr_id = wq->wrid[idx & wq->mask];
		/* Retires this WQE and, on the SQ, the unsignaled ones before it. */
		wq->tail = idx + 1;

		/* Timeline stamps, SRQ slots: only while one is in use. */
		if (unlikely(rv_cqe_hook))
			rv_cqe_hooked(qp, wq, idx);
		*qp_out = qp;
		*qpn_out = qpn;
		return cqe;
	}
}

static inline int rv_cqe_is_special(uint8_t status, uint8_t flags)
{
	return status != IBV_WC_SUCCESS || (flags & RNIC_CQE_F_INV);
}

#endif /* RV_CQE_H */
