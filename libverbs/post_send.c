// SPDX-License-Identifier: MIT
/*
 * post_send.c - ibv_post_send(): build send WQEs (docs/formats.md) in the SQ
 * ring, then one doorbell record update and one SQ_DB write per call.
 *
 * Send WQE: control segment, remote address segment (WRITE, WRITE_IMM,
 * READ), then one data segment per non-empty SGE. Zero-length SGEs are
 * dropped (as mlx5 does). The first failing WR is returned in *bad_wr and
 * nothing from it on is posted.
 */
#include <string.h>

#include "rnic_verbs.h"

#define RV_SEND_FLAGS	(IBV_SEND_FENCE | IBV_SEND_SIGNALED | IBV_SEND_SOLICITED)

static inline void rv_set_data_seg(uint8_t *seg, const struct ibv_sge *sge)
{
	uint64_t w0 = (uint64_t)sge->length | ((uint64_t)sge->lkey << 32);
	uint64_t w1 = sge->addr;

	w0 = htole64(w0);
	w1 = htole64(w1);
	memcpy(seg, &w0, 8);
	memcpy(seg + 8, &w1, 8);
}

int rv_post_send(struct ibv_qp *ibqp, struct ibv_send_wr *wr,
		 struct ibv_send_wr **bad_wr)
{
	struct rv_qp *qp = to_rv_qp(ibqp);
	struct rv_wq *sq = &qp->sq;
	uint16_t pi;
	unsigned int nreq = 0;
	int err = 0;

	rnic_lock();
	/* Send WRs are refused before RTS (RESET, INIT, RTR), as rxe does;
	 * in ERR they are accepted and the hardware flushes them. */
	if (unlikely(qp->hw.state < IBV_QPS_RTS)) {
		err = EINVAL;
		goto out;
	}
	pi = sq->pi;
	for (; wr; wr = wr->next, nreq++) {
		uint8_t *wqe, *seg;
		uint64_t w0, w1, bytes = 0;
		unsigned int op, flags;
		enum rv_tl_op tlop;
		int i;

		if (unlikely((uint16_t)(pi - sq->tail) >= sq->entries)) {
			err = ENOMEM;
			break;
		}
		if (unlikely((unsigned int)wr->num_sge > sq->max_sge ||
			     (wr->send_flags & ~RV_SEND_FLAGS))) {
			/* IBV_SEND_INLINE: max_inline_data is 0. */
			err = EINVAL;
			break;
		}
		switch (wr->opcode) {
		case IBV_WR_SEND:
			op = RNIC_WQE_OP_SEND;
			tlop = RV_TL_SEND;
			break;
		case IBV_WR_SEND_WITH_IMM:
			op = RNIC_WQE_OP_SEND_IMM;
			tlop = RV_TL_SEND_IMM;
			break;
		case IBV_WR_RDMA_WRITE:
			op = RNIC_WQE_OP_WRITE;
			tlop = RV_TL_WRITE;
			break;
		case IBV_WR_RDMA_WRITE_WITH_IMM:
			op = RNIC_WQE_OP_WRITE_IMM;
			tlop = RV_TL_WRITE_IMM;
			break;
		case IBV_WR_RDMA_READ:
			op = RNIC_WQE_OP_READ;
			tlop = RV_TL_READ;
			break;
		default:
			err = EINVAL;
			goto stop;
		}

		wqe = sq->buf + ((size_t)(pi & sq->mask) << sq->log_stride);
		seg = wqe + RNIC_SEG_SIZE;
		if (op != RNIC_WQE_OP_SEND && op != RNIC_WQE_OP_SEND_IMM) {
			w0 = htole64(wr->wr.rdma.remote_addr);
			w1 = htole64((uint64_t)wr->wr.rdma.rkey);
			memcpy(seg, &w0, 8);
			memcpy(seg + 8, &w1, 8);
			seg += RNIC_SEG_SIZE;
		}
		for (i = 0; i < wr->num_sge; i++) {
			if (unlikely(!wr->sg_list[i].length))
				continue;
			rv_set_data_seg(seg, &wr->sg_list[i]);
			bytes += wr->sg_list[i].length;
			seg += RNIC_SEG_SIZE;
		}

		flags = 0;
		if ((wr->send_flags & IBV_SEND_SIGNALED) || qp->sq_sig_all)
			flags |= RNIC_WQE_F_SIGNALED;
		if (wr->send_flags & IBV_SEND_SOLICITED)
			flags |= RNIC_WQE_F_SOLICITED;
		if (wr->send_flags & IBV_SEND_FENCE)
			flags |= RNIC_WQE_F_FENCE;
		/* Control segment: opcode, flags, WQE index, ds; imm_data is
		 * already in network order: its bytes are copied as they are. */
		w0 = op | (flags << 8) | ((uint64_t)pi << 16) |
		     ((uint64_t)((seg - wqe) / RNIC_SEG_SIZE) << 32);
		w0 = htole64(w0);
		memcpy(wqe, &w0, 8);
		w1 = 0;
		if (op == RNIC_WQE_OP_SEND_IMM || op == RNIC_WQE_OP_WRITE_IMM)
			memcpy(&w1, &wr->imm_data, 4);
		memcpy(wqe + 8, &w1, 8);

		sq->wrid[pi & sq->mask] = wr->wr_id;
		if (unlikely(rv_tl_enabled))
			rv_tl_post(qp, sq, pi, tlop, bytes);
		pi++;
	}
stop:
	if (likely(nreq)) {
		sq->pi = pi;
		qp->hw.dbrec->sq_pi = htole32(pi);
		/* WQEs and the doorbell record before the doorbell. */
		__atomic_thread_fence(__ATOMIC_RELEASE);
		rnic_ring_sq(qp->ctx->dev, qp->hw.qpn, pi);
	}
out:
	if (unlikely(err))
		*bad_wr = wr;
	rnic_unlock();
	return err;
}
