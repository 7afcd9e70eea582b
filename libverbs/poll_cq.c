// SPDX-License-Identifier: MIT
/*
 * poll_cq.c - ibv_poll_cq(): read CQEs by their owner bit and turn them into
 * struct ibv_wc.
 *
 * Time rule: software is instantaneous for the model, so polling must let
 * simulated time advance. When a call finds the CQ empty, it runs the
 * simulation with rnic_sim_wait(sim, node, RV_POLL_WAIT_CYCLES = 256) - which
 * returns early when a DMA write of this node becomes visible or one of its
 * interrupts fires - and looks once more before returning 0. A busy-polling
 * loop therefore advances the model by at most 256 cycles per empty poll,
 * and a CQE is seen by the first poll after the cycle it became visible.
 */
#include <string.h>

#include "rnic_verbs.h"

static inline int rv_poll_some(struct rv_cq *cq, int ne, struct ibv_wc *wc)
{
	int n = 0;

	while (n < ne) {
		struct rnic_cqe *cqe = &cq->ring[cq->ci & cq->mask];
		struct rv_qp *qp;
		struct rv_wq *wq;
		uint32_t qpn;
		uint16_t idx;

		if (!rnic_cqe_is_new(cqe, cq->ci, cq->log_size))
			break;
		/* Read the CQE only after its owner bit. */
		__atomic_thread_fence(__ATOMIC_ACQUIRE);
		cq->ci++;

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
		wc->wr_id = wq->wrid[idx & wq->mask];
		/* Retires this WQE and, on the SQ, the unsignaled ones before it. */
		wq->tail = idx + 1;

		wc->status = (enum ibv_wc_status)cqe->status;
		wc->opcode = (enum ibv_wc_opcode)cqe->opcode;
		wc->vendor_err = cqe->vendor_err;
		wc->byte_len = le32toh(cqe->byte_len);
		memcpy(&wc->imm_data, &cqe->imm, sizeof(wc->imm_data));
		wc->qp_num = qpn;
		wc->src_qp = le32toh(cqe->src_qp) & 0xffffff;
		wc->wc_flags = (cqe->flags & RNIC_CQE_F_IMM) ? IBV_WC_WITH_IMM : 0;
		wc->pkey_index = 0;
		wc->slid = 0;
		wc->sl = 0;
		wc->dlid_path_bits = 0;
		/* An RC completion error puts the QP in the error state. */
		if (unlikely(wc->status != IBV_WC_SUCCESS)) {
			qp->hw.state = IBV_QPS_ERR;
			qp->hw.attr.qp_state = IBV_QPS_ERR;
			qp->ibqpx.qp_base.state = IBV_QPS_ERR;
		}
		if (unlikely(rv_tl_enabled))
			rv_tl_polled(wq, idx);
		wc++;
		n++;
	}
	return n;
}

int rv_poll_cq(struct ibv_cq *ibcq, int num_entries, struct ibv_wc *wc)
{
	struct rv_cq *cq = to_rv_cq(ibcq);
	int n;

	if (unlikely(num_entries <= 0))
		return 0;
	rnic_lock_leaf();
	n = rv_poll_some(cq, num_entries, wc);
	if (!n) {
		rnic_sim_wait(cq->sim, cq->node, RV_POLL_WAIT_CYCLES);
		n = rv_poll_some(cq, num_entries, wc);
	}
	rnic_unlock_leaf();
	return n;
}
