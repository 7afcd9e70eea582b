// SPDX-License-Identifier: MIT
/*
 * post_send.c - ibv_post_send(): build send WQEs (docs/formats.md) in the SQ
 * ring, then one doorbell record update and one SQ_DB write per call.
 *
 * Send WQE: control segment, remote address segment (WRITE, WRITE_IMM,
 * READ, atomics), atomic segment (atomics), then one data segment per
 * non-empty SGE. Zero-length SGEs are dropped (as mlx5 does). The first failing WR is returned in *bad_wr and
 * nothing from it on is posted.
 */
#include <string.h>

#include "rnic_verbs.h"

#define RV_SEND_FLAGS	(IBV_SEND_FENCE | IBV_SEND_SIGNALED | IBV_SEND_SOLICITED)

/* The opcodes of an RC send queue: IBV_WR_RDMA_WRITE (0) ..
 * IBV_WR_ATOMIC_FETCH_AND_ADD (6). */
#define RV_NR_OPS	(IBV_WR_ATOMIC_FETCH_AND_ADD + 1)

/* Control-segment word 0 of each opcode without flags, index and data
 * segments: the WQE opcode, and ds counting the control segment and the
 * remote address segment if there is one. */
#define RV_CTRL(op, nseg)	((uint64_t)(op) | (uint64_t)(nseg) << 32)
static const uint64_t rv_ctrl0[RV_NR_OPS] = {
	[IBV_WR_RDMA_WRITE] = RV_CTRL(RNIC_WQE_OP_WRITE, 2),
	[IBV_WR_RDMA_WRITE_WITH_IMM] = RV_CTRL(RNIC_WQE_OP_WRITE_IMM, 2),
	[IBV_WR_SEND] = RV_CTRL(RNIC_WQE_OP_SEND, 1),
	[IBV_WR_SEND_WITH_IMM] = RV_CTRL(RNIC_WQE_OP_SEND_IMM, 1),
	[IBV_WR_RDMA_READ] = RV_CTRL(RNIC_WQE_OP_READ, 2),
	[IBV_WR_ATOMIC_CMP_AND_SWP] = RV_CTRL(RNIC_WQE_OP_CMP_SWAP, 3),
	[IBV_WR_ATOMIC_FETCH_AND_ADD] = RV_CTRL(RNIC_WQE_OP_FETCH_ADD, 3),
};

static const uint8_t rv_tl_op[RV_NR_OPS] = {
	[IBV_WR_RDMA_WRITE] = RV_TL_WRITE,
	[IBV_WR_RDMA_WRITE_WITH_IMM] = RV_TL_WRITE_IMM,
	[IBV_WR_SEND] = RV_TL_SEND,
	[IBV_WR_SEND_WITH_IMM] = RV_TL_SEND_IMM,
	[IBV_WR_RDMA_READ] = RV_TL_READ,
	[IBV_WR_ATOMIC_CMP_AND_SWP] = RV_TL_CMP_SWAP,
	[IBV_WR_ATOMIC_FETCH_AND_ADD] = RV_TL_FETCH_ADD,
};

/* Opcodes with a remote address segment, and with immediate data. */
#define RV_OPS_RADDR	(1u << IBV_WR_RDMA_WRITE | 1u << IBV_WR_RDMA_WRITE_WITH_IMM | \
			 1u << IBV_WR_RDMA_READ)
#define RV_OPS_IMM	(1u << IBV_WR_RDMA_WRITE_WITH_IMM | 1u << IBV_WR_SEND_WITH_IMM)
#define RV_OPS_ATOMIC	(1u << IBV_WR_ATOMIC_CMP_AND_SWP | 1u << IBV_WR_ATOMIC_FETCH_AND_ADD)

/* IBV_SEND_FENCE | IBV_SEND_SIGNALED | IBV_SEND_SOLICITED -> WQE flags */
#define RV_F(i)	((((i) & IBV_SEND_FENCE) ? RNIC_WQE_F_FENCE : 0) |		\
		 (((i) & IBV_SEND_SIGNALED) ? RNIC_WQE_F_SIGNALED : 0) |	\
		 (((i) & IBV_SEND_SOLICITED) ? RNIC_WQE_F_SOLICITED : 0))
static const uint8_t rv_wqe_flags[8] = {
	RV_F(0), RV_F(1), RV_F(2), RV_F(3), RV_F(4), RV_F(5), RV_F(6), RV_F(7),
};

static inline void rv_put_seg(uint8_t *seg, uint64_t w0, uint64_t w1)
{
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
	uint16_t pi, start;
	int err = 0;

	rnic_lock_leaf();
	/* Send WRs are refused before RTS (RESET, INIT, RTR), as rxe does;
	 * in ERR they are accepted and the hardware flushes them. */
	if (unlikely(qp->hw.state < IBV_QPS_RTS)) {
		err = EINVAL;
		goto out;
	}
	start = pi = sq->pi;
	for (; wr; wr = wr->next) {
		const struct ibv_sge *sgl = wr->sg_list;
		unsigned int nsge = (unsigned int)wr->num_sge;
		unsigned int opcode = wr->opcode;
		uint64_t ctrl, imm, bytes = 0;
		uint8_t *wqe, *seg;
		unsigned int i;

		if (unlikely((uint16_t)(pi - sq->tail) >= sq->entries)) {
			err = ENOMEM;
			break;
		}
		/* Unknown opcodes, too many SGEs, IBV_SEND_INLINE (the QP
		 * has max_inline_data 0) and IBV_SEND_IP_CSUM. */
		if (unlikely(opcode >= RV_NR_OPS || nsge > sq->max_sge ||
			     (wr->send_flags & ~RV_SEND_FLAGS))) {
			err = EINVAL;
			break;
		}

		wqe = sq->buf + ((size_t)(pi & sq->mask) << sq->log_stride);
		seg = wqe + RNIC_SEG_SIZE;
		ctrl = rv_ctrl0[opcode];
		if ((1u << opcode) & RV_OPS_RADDR) {
			rv_put_seg(seg, wr->wr.rdma.remote_addr, wr->wr.rdma.rkey);
			seg += RNIC_SEG_SIZE;
		} else if ((1u << opcode) & RV_OPS_ATOMIC) {
			/* Remote address, then swap (or add) and compare. */
			rv_put_seg(seg, wr->wr.atomic.remote_addr, wr->wr.atomic.rkey);
			if (opcode == IBV_WR_ATOMIC_CMP_AND_SWP)
				rv_put_seg(seg + RNIC_SEG_SIZE, wr->wr.atomic.swap,
					   wr->wr.atomic.compare_add);
			else
				rv_put_seg(seg + RNIC_SEG_SIZE, wr->wr.atomic.compare_add, 0);
			seg += 2 * RNIC_SEG_SIZE;
		}
		for (i = 0; i < nsge; i++) {
			uint32_t len = sgl[i].length;

			if (unlikely(!len))
				continue;
			rv_put_seg(seg, len | (uint64_t)sgl[i].lkey << 32, sgl[i].addr);
			bytes += len;
			seg += RNIC_SEG_SIZE;
			ctrl += 1ULL << 32;
		}

		/* Control segment: opcode, flags, WQE index, ds; imm_data is
		 * in network order already: its bytes go as they are. */
		ctrl |= (uint64_t)(rv_wqe_flags[wr->send_flags & 7] | qp->sig_all) << 8 |
			(uint64_t)pi << 16;
		imm = 0;
		if ((1u << opcode) & RV_OPS_IMM)
			memcpy(&imm, &wr->imm_data, 4);
		rv_put_seg(wqe, ctrl, le64toh(imm));

		sq->wrid[pi & sq->mask] = wr->wr_id;
		if (unlikely(rv_tl_enabled))
			rv_tl_post(qp, sq, pi, rv_tl_op[opcode], bytes);
		pi++;
	}
	if (likely(pi != start)) {
		sq->pi = pi;
		qp->dbrec->sq_pi = htole32(pi);
		/* WQEs and the doorbell record before the doorbell. */
		__atomic_thread_fence(__ATOMIC_RELEASE);
		rnic_sim_mmio_write(qp->sim, qp->node, RNIC_REG_SQ_DB,
				    rnic_db_wq(qp->qpn, pi));
	}
out:
	if (unlikely(err))
		*bad_wr = wr;
	rnic_unlock_leaf();
	return err;
}
