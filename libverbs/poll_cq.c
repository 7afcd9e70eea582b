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
 *
 * Every call stores the consumer index into the CQ's doorbell record (one
 * store), which the hardware reads to detect an overrun (docs/formats.md).
 * An empty poll is also a safe point for the event queue (events.c): a CQ
 * overrun moves the CQ's QPs to the error state there.
 */
#include <string.h>

#include "cqe.h"

#define RV_WCF(f)	((((f) & RNIC_CQE_F_IMM) ? IBV_WC_WITH_IMM : 0) |	\
			 (((f) & RNIC_CQE_F_GRH) ? IBV_WC_GRH : 0) |		\
			 (((f) & RNIC_CQE_F_INV) ? IBV_WC_WITH_INV : 0))
const uint32_t rv_wc_flags[8] = {
	RV_WCF(0), RV_WCF(1), RV_WCF(2), RV_WCF(3),
	RV_WCF(4), RV_WCF(5), RV_WCF(6), RV_WCF(7),
};

void rv_cqe_special(struct rv_cq *cq, struct rv_qp *qp, const struct rnic_cqe *cqe)
{
	if (cqe->status != IBV_WC_SUCCESS) {
		/* A completion error puts the QP in the error state; a send
		 * error of a UC or UD QP in SQE (its RQ goes on). */
		enum ibv_qp_state s = IBV_QPS_ERR;

		if (qp->type != IBV_QPT_RC && !(cqe->opcode & IBV_WC_RECV)) {
			if (qp->hw.state != IBV_QPS_RTS && qp->hw.state != IBV_QPS_SQD)
				return;		/* a flush after it */
			s = IBV_QPS_SQE;
		}
		qp->hw.state = s;
		qp->hw.attr.qp_state = s;
		qp->hw.attr.cur_qp_state = s;
		qp->ibqpx.qp_base.state = s;
	} else {
		/* A SEND_WITH_INV invalidated one of our windows. */
		rv_mw_invalidated(cq->ctx, le32toh(cqe->imm));
	}
}

/* Up to @ne completions; then the new consumer index goes into the CQ's
 * doorbell record (the CQEs are read: the hardware may reuse their slots;
 * it runs only inside rnic_sim_* calls, under the lock). */
static inline int rv_poll_some(struct rv_cq *__restrict cq, int ne, struct ibv_wc **wcp)
{
	uint32_t ci = le32toh(cq->dbrec->ci);
	struct ibv_wc *wc = *wcp;
	int n = 0;

	while (n < ne) {
		unsigned int status, wcf;
		struct rnic_cqe *cqe;
		struct rv_qp *qp;
		uint32_t qpn;

		cqe = rv_cqe_next(cq, &ci, &wc->wr_id, &qp, &qpn);
		if (!cqe)
			break;
		status = cqe->status;
		wcf = rv_wc_flags[cqe->flags & 7];
		wc->status = (enum ibv_wc_status)status;
		wc->opcode = (enum ibv_wc_opcode)cqe->opcode;
		wc->vendor_err = cqe->vendor_err;
		wc->byte_len = le32toh(cqe->byte_len);
		memcpy(&wc->imm_data, &cqe->imm, sizeof(wc->imm_data));
		wc->qp_num = qpn;
		wc->src_qp = le32toh(cqe->src_qp) & 0xffffff;
		wc->wc_flags = wcf;
#if __BYTE_ORDER == __BIG_ENDIAN
		/* invalidated_rkey (the union's other member) is in host order;
		 * the CQE has it little-endian (same bytes on a LE host). */
		if (unlikely(cqe->flags & RNIC_CQE_F_INV))
			wc->invalidated_rkey = le32toh(cqe->imm);
#endif
		wc->pkey_index = 0;
		wc->slid = 0;
		wc->sl = 0;
		wc->dlid_path_bits = 0;
		if (unlikely(status | (wcf & IBV_WC_WITH_INV)))
			rv_cqe_special(cq, qp, cqe);
		wc++;
		n++;
	}
	cq->dbrec->ci = htole32(ci);
	*wcp = wc;
	return n;
}

/* The CQ was empty: let the model run, look again (leaf lock held; it is
 * released here). */
static __attribute__((noinline)) int rv_poll_wait(struct rv_cq *cq, int num_entries,
						 struct ibv_wc *wc)
{
	int n;

	rnic_sim_wait(cq->sim, cq->node, RV_POLL_WAIT_CYCLES);
	n = rv_poll_some(cq, num_entries, &wc);
	rnic_unlock_leaf();
	if (unlikely(rv_ev_work) && !n)
		rv_ev_poll_point();
	return n;
}

int rv_poll_cq(struct ibv_cq *ibcq, int num_entries, struct ibv_wc *wc)
{
	struct rv_cq *cq = to_rv_cq(ibcq);
	int n;

	if (unlikely(num_entries <= 0))
		return 0;
	rnic_lock_leaf();
	n = rv_poll_some(cq, num_entries, &wc);
	if (unlikely(!n))	/* wc is still the caller's array */
		return rv_poll_wait(cq, num_entries, wc);
	rnic_unlock_leaf();
	return n;
}
