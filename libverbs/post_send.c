// SPDX-License-Identifier: MIT
/*
 * post_send.c - ibv_post_send(): build send WQEs (docs/formats.md) in the SQ
 * ring with the segment builders of wqe.h, then one doorbell record update
 * and one SQ_DB write per call. Also the opcode tables of every QP type,
 * shared with the ibv_wr_* interface (wr.c).
 *
 * Opcodes by QP type (refused at post time with EINVAL otherwise, as the
 * opcode table of ibv_post_send(3) and mlx5's send_ops_flags do; UC has no
 * SEND_WITH_INV because IBA defines no UC "SEND with Invalidate" packet):
 *   RC  SEND, SEND_WITH_IMM, SEND_WITH_INV, RDMA_WRITE(_WITH_IMM), RDMA_READ,
 *       ATOMIC_CMP_AND_SWP, ATOMIC_FETCH_AND_ADD, LOCAL_INV, BIND_MW
 *   UC  SEND, SEND_WITH_IMM, RDMA_WRITE(_WITH_IMM), LOCAL_INV, BIND_MW
 *   UD  SEND, SEND_WITH_IMM
 *
 * Posting rules (ibv_post_send(3)): the first failing WR is returned in
 * *bad_wr and nothing from it on is posted. ENOMEM: the SQ is full. EINVAL:
 * the QP is not in RTS (or ERR, where the hardware flushes what is posted),
 * an opcode the QP type does not take, num_sge above the QP's max_send_sge
 * (or above what fits a WQE of the opcode), IBV_SEND_INLINE on an opcode
 * other than SEND/RDMA_WRITE or with more than max_inline_data bytes,
 * IBV_SEND_IP_CSUM or any unknown flag (no checksum offload), a UD WR
 * without an address handle of the QP's PD, a BIND_MW that ibv_bind_mw(3)
 * would refuse (type 1 window, MR or window of another PD, rkey of another
 * window, access flags other than remote read/write/atomic).
 */
#include <string.h>

#include "wqe.h"

#define RV_F(i)	((((i) & IBV_SEND_FENCE) ? RNIC_WQE_F_FENCE : 0) |		\
		 (((i) & IBV_SEND_SIGNALED) ? RNIC_WQE_F_SIGNALED : 0) |	\
		 (((i) & IBV_SEND_SOLICITED) ? RNIC_WQE_F_SOLICITED : 0))
const uint8_t rv_wqe_flags[8] = {
	RV_F(0), RV_F(1), RV_F(2), RV_F(3), RV_F(4), RV_F(5), RV_F(6), RV_F(7),
};

/* Per opcode: the WQE opcode, the segments before the data on RC/UC
 * (control + address segments; UD sends have 3: control, UD A, UD B) and
 * the timeline name. */
static const struct {
	uint8_t wqe_op;
	uint8_t hdr;
	uint8_t tl;
} rv_ops[RV_NR_OPS] = {
	[IBV_WR_RDMA_WRITE] = { RNIC_WQE_OP_WRITE, 2, RV_TL_WRITE },
	[IBV_WR_RDMA_WRITE_WITH_IMM] = { RNIC_WQE_OP_WRITE_IMM, 2, RV_TL_WRITE_IMM },
	[IBV_WR_SEND] = { RNIC_WQE_OP_SEND, 1, RV_TL_SEND },
	[IBV_WR_SEND_WITH_IMM] = { RNIC_WQE_OP_SEND_IMM, 1, RV_TL_SEND_IMM },
	[IBV_WR_RDMA_READ] = { RNIC_WQE_OP_READ, 2, RV_TL_READ },
	[IBV_WR_ATOMIC_CMP_AND_SWP] = { RNIC_WQE_OP_CMP_SWAP, 3, RV_TL_CMP_SWAP },
	[IBV_WR_ATOMIC_FETCH_AND_ADD] = { RNIC_WQE_OP_FETCH_ADD, 3, RV_TL_FETCH_ADD },
	[IBV_WR_LOCAL_INV] = { RNIC_WQE_OP_LOCAL_INV, 1, RV_TL_LOCAL_INV },
	[IBV_WR_BIND_MW] = { RNIC_WQE_OP_BIND_MW, 3, RV_TL_BIND_MW },
	[IBV_WR_SEND_WITH_INV] = { RNIC_WQE_OP_SEND_INV, 1, RV_TL_SEND_INV },
};

#define OP(x)	(1u << IBV_WR_##x)
/* Opcodes with a remote address segment only. */
#define RV_OPS_RADDR	(OP(RDMA_WRITE) | OP(RDMA_WRITE_WITH_IMM) | OP(RDMA_READ))
#define RV_OPS_IMM	(OP(RDMA_WRITE_WITH_IMM) | OP(SEND_WITH_IMM))
#define RV_OPS_SEND	(OP(SEND) | OP(SEND_WITH_IMM))
#define RV_OPS_RC	(OP(RDMA_WRITE) | OP(RDMA_WRITE_WITH_IMM) | OP(SEND) |	\
			 OP(SEND_WITH_IMM) | OP(RDMA_READ) | OP(ATOMIC_CMP_AND_SWP) | \
			 OP(ATOMIC_FETCH_AND_ADD) | OP(LOCAL_INV) | OP(BIND_MW) | \
			 OP(SEND_WITH_INV))
#define RV_OPS_UC	(OP(RDMA_WRITE) | OP(RDMA_WRITE_WITH_IMM) | OP(SEND) |	\
			 OP(SEND_WITH_IMM) | OP(LOCAL_INV) | OP(BIND_MW))
#define RV_OPS_UD	RV_OPS_SEND
/* Built by the fast path of rv_post_send() on RC/UC (without
 * IBV_SEND_INLINE); everything else by rv_post_slow(). */
#define RV_OPS_FAST	(OP(RDMA_WRITE) | OP(RDMA_WRITE_WITH_IMM) | OP(SEND) |	\
			 OP(SEND_WITH_IMM) | OP(RDMA_READ))

_Static_assert(IBV_QP_EX_WITH_RDMA_WRITE == OP(RDMA_WRITE) &&
	       IBV_QP_EX_WITH_SEND_WITH_IMM == OP(SEND_WITH_IMM) &&
	       IBV_QP_EX_WITH_ATOMIC_FETCH_AND_ADD == OP(ATOMIC_FETCH_AND_ADD) &&
	       IBV_QP_EX_WITH_BIND_MW == OP(BIND_MW) &&
	       IBV_QP_EX_WITH_SEND_WITH_INV == OP(SEND_WITH_INV),
	       "IBV_QP_EX_WITH_x is 1 << IBV_WR_x");

/* The opcodes of a QP type, as 1 << IBV_WR_x; also its IBV_QP_EX_WITH_x
 * send_ops_flags (the same bits for opcodes 0..9). */
uint32_t rv_qp_send_ops(enum ibv_qp_type type)
{
	switch (type) {
	case IBV_QPT_RC:
		return RV_OPS_RC;
	case IBV_QPT_UC:
		return RV_OPS_UC;
	case IBV_QPT_UD:
		return RV_OPS_UD;
	default:
		return 0;
	}
}

/* Fill the per-QP opcode tables from the QP type and the SQ geometry. */
void rv_sq_ops_init(struct rv_qp *qp)
{
	uint32_t ops = rv_qp_send_ops(qp->type);
	unsigned int segs = (1u << qp->sq.log_stride) / RNIC_SEG_SIZE;
	unsigned int op;

	for (op = 0; op < 8; op++)
		qp->ctrl_flags[op] = (uint64_t)(rv_wqe_flags[op] | qp->sig_all) << 8;
	for (op = 0; op < RV_NR_OPS; op++) {
		unsigned int hdr = rv_ops[op].hdr, max;

		if (qp->type == IBV_QPT_UD && ((1u << op) & RV_OPS_SEND))
			hdr += 2;
		qp->ctrl0[op] = rv_ctrl_w0(rv_ops[op].wqe_op, 0, 0, hdr);
		qp->op_lim[op] = 0;
		qp->fast_lim[op] = 0;
		if (!((1u << op) & ops))
			continue;
		max = qp->sq.max_sge;
		if (!((1u << op) & RV_OPS_NODATA) && segs - hdr < max)
			max = segs - hdr;
		qp->op_lim[op] = max + 1;
		/* RNIC_INLINE_THRESHOLD: SEND and WRITE take the slow path,
		 * which decides on inlining. */
		if (((1u << op) & RV_OPS_FAST) && qp->type != IBV_QPT_UD &&
		    !(rv_inline_threshold && ((1u << op) & RV_OPS_INLINE)))
			qp->fast_lim[op] = max + 1;
	}
}

/* The address handle of a UD send, and its Q_Key: one with the high bit
 * set means the QP's own Q_Key (IBA 10.2.5, controlled Q_Keys). */
static uint8_t *rv_post_ud(struct rv_qp *qp, const struct ibv_send_wr *wr,
			   uint8_t *seg)
{
	struct ibv_ah *ah = wr->wr.ud.ah;
	uint32_t qkey = wr->wr.ud.remote_qkey;

	if (unlikely(!ah || ah->pd != qp->ibqpx.qp_base.pd))
		return NULL;
	if (qkey & 0x80000000u)
		qkey = qp->hw.ctx.qkey;
	return rv_seg_ud(seg, to_rv_ah(ah), wr->wr.ud.remote_qpn, qkey);
}

/* IBV_SEND_INLINE: the SGEs' bytes into an inline segment; -1 if more
 * than max_inline_data. */
static int rv_post_inline(const struct rv_qp *qp, const struct ibv_send_wr *wr,
			  uint8_t *seg, uint64_t *bytes)
{
	const struct ibv_sge *sgl = wr->sg_list;
	unsigned int i, n = (unsigned int)wr->num_sge;
	uint64_t total = 0;
	size_t off = 0;

	for (i = 0; i < n; i++)
		total += sgl[i].length;
	if (total > qp->max_inline)
		return -1;
	for (i = 0; i < n; i++) {
		rv_seg_inline_put(seg, off, (const void *)(uintptr_t)sgl[i].addr,
				  sgl[i].length);
		off += sgl[i].length;
	}
	*bytes = total;
	return (int)rv_seg_inline_close(seg, (uint32_t)total);
}

/*
 * Every WR that is not a plain SEND/WRITE/READ on RC/UC: checks (EINVAL),
 * then the WQE at index @pi with every kind of segment. The WQE is
 * complete when this returns 0.
 */
static __attribute__((noinline)) int rv_post_slow(struct rv_qp *qp, const struct ibv_send_wr *wr,
			uint16_t pi, uint64_t *bytes)
{
	unsigned int nsge = (unsigned int)wr->num_sge;
	unsigned int opcode = wr->opcode;
	unsigned int flags = wr->send_flags;
	unsigned int wflags, n;
	uint32_t imm = 0;
	uint8_t *wqe, *seg;

	if (opcode >= RV_NR_OPS || nsge >= qp->op_lim[opcode])
		return EINVAL;
	if ((flags & ~RV_SEND_FLAGS) &&
	    ((flags & ~RV_SEND_FLAGS) != IBV_SEND_INLINE ||
	     !((1u << opcode) & RV_OPS_INLINE)))
		return EINVAL;

	wqe = rv_wq_slot(&qp->sq, pi);
	seg = wqe + RNIC_SEG_SIZE;
	switch (opcode) {
	case IBV_WR_RDMA_WRITE:
	case IBV_WR_RDMA_WRITE_WITH_IMM:
	case IBV_WR_RDMA_READ:
		seg = rv_seg_raddr(seg, wr->wr.rdma.remote_addr, wr->wr.rdma.rkey);
		break;
	case IBV_WR_ATOMIC_CMP_AND_SWP:
		seg = rv_seg_raddr(seg, wr->wr.atomic.remote_addr, wr->wr.atomic.rkey);
		seg = rv_seg_atomic(seg, wr->wr.atomic.swap, wr->wr.atomic.compare_add);
		break;
	case IBV_WR_ATOMIC_FETCH_AND_ADD:
		seg = rv_seg_raddr(seg, wr->wr.atomic.remote_addr, wr->wr.atomic.rkey);
		seg = rv_seg_atomic(seg, wr->wr.atomic.compare_add, 0);
		break;
	case IBV_WR_SEND:
	case IBV_WR_SEND_WITH_IMM:
		if (qp->type == IBV_QPT_UD) {
			seg = rv_post_ud(qp, wr, seg);
			if (!seg)
				return EINVAL;
		}
		break;
	case IBV_WR_SEND_WITH_INV:
		imm = wr->invalidate_rkey;
		break;
	case IBV_WR_LOCAL_INV:
		imm = wr->invalidate_rkey;
		nsge = 0;
		break;
	case IBV_WR_BIND_MW:
		if (rv_mw_bind_check(qp, wr->bind_mw.mw, wr->bind_mw.rkey,
				     &wr->bind_mw.bind_info))
			return EINVAL;
		seg = rv_seg_bind(seg, wr->bind_mw.rkey, &wr->bind_mw.bind_info);
		nsge = 0;
		break;
	}

	if (unlikely(rv_inline_threshold) && !(flags & IBV_SEND_INLINE) &&
	    ((1u << opcode) & RV_OPS_INLINE)) {
		uint64_t total = 0;

		for (n = 0; n < nsge; n++)
			total += wr->sg_list[n].length;
		if (total <= rv_inline_threshold && total <= qp->max_inline)
			flags |= IBV_SEND_INLINE;
	}
	wflags = rv_wqe_flags[flags & 7] | qp->sig_all;
	if (flags & IBV_SEND_INLINE) {
		int k = rv_post_inline(qp, wr, seg, bytes);

		if (k < 0)
			return EINVAL;
		n = (unsigned int)k;
		if (n)
			wflags |= RNIC_WQE_F_INLINE;
	} else {
		n = rv_seg_data(seg, wr->sg_list, nsge, bytes);
	}
	if ((1u << opcode) & RV_OPS_IMM)
		imm = rv_imm_raw(wr->imm_data);
	rv_seg_ctrl(wqe, rv_ctrl_w0(qp->ctrl0[opcode], wflags, pi, n), imm);

	/* Nothing can fail from here: the windows' bookkeeping. */
	if (opcode == IBV_WR_BIND_MW)
		rv_mw_bound(wr->bind_mw.mw, wr->bind_mw.rkey, &wr->bind_mw.bind_info);
	else if (opcode == IBV_WR_LOCAL_INV)
		rv_mw_invalidated(qp->ctx, wr->invalidate_rkey);
	return 0;
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
		unsigned int nsge = (unsigned int)wr->num_sge;
		unsigned int opcode = wr->opcode;
		unsigned int flags = wr->send_flags;
		uint64_t bytes = 0;

		if (unlikely((uint16_t)(pi - sq->tail) >= sq->entries)) {
			err = ENOMEM;
			break;
		}
		if (likely(opcode < RV_NR_OPS && nsge < qp->fast_lim[opcode] &&
			   !(flags & ~RV_SEND_FLAGS))) {
			/* SEND, SEND_IMM, WRITE, WRITE_IMM, READ on RC/UC */
			uint8_t *wqe = rv_wq_slot(sq, pi);
			uint8_t *seg = wqe + RNIC_SEG_SIZE;
			uint32_t imm = 0;
			unsigned int n;

			if ((1u << opcode) & RV_OPS_RADDR)
				seg = rv_seg_raddr(seg, wr->wr.rdma.remote_addr,
						   wr->wr.rdma.rkey);
			n = rv_seg_data(seg, wr->sg_list, nsge, &bytes);
			if ((1u << opcode) & RV_OPS_IMM)
				imm = rv_imm_raw(wr->imm_data);
			rv_seg_ctrl(wqe, rv_ctrl_w0(qp->ctrl0[opcode], 0, pi, n) +
				    qp->ctrl_flags[flags & 7], imm);
		} else {
			uint64_t sbytes = 0;

			err = rv_post_slow(qp, wr, pi, &sbytes);
			if (err)
				break;
			bytes = sbytes;
		}
		sq->wrid[pi & sq->mask] = wr->wr_id;
		if (unlikely(rv_tl_enabled))
			rv_tl_post(qp, sq, pi, rv_ops[opcode].tl, bytes);
		pi++;
	}
	if (unlikely(rv_sq_ring_other) && pi != start) {
		if (rv_blueflame && (uint16_t)(pi - start) == 1 && qp->sq.log_stride == 6)
			rv_sq_ring_bf(qp, start);
		else
			rv_sq_ring_batched(qp, start, pi);
	} else if (likely(pi != start)) {
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

void rv_wqe_tl_info(const struct rv_qp *qp, const uint8_t *wqe,
		    enum rv_tl_op *op, uint64_t *bytes)
{
	unsigned int i, hdr = 1, ds = wqe[4];
	uint64_t b = 0;

	*op = RV_TL_SEND;
	for (i = 0; i < RV_NR_OPS; i++) {
		if (rv_ops[i].wqe_op == wqe[0]) {
			*op = (enum rv_tl_op)rv_ops[i].tl;
			hdr = (qp->ctrl0[i] >> 32) & 0xff;
			break;
		}
	}
	if (wqe[1] & RNIC_WQE_F_INLINE) {
		uint32_t h;

		memcpy(&h, wqe + hdr * RNIC_SEG_SIZE, 4);
		b = le32toh(h) & ~RNIC_INLINE_SEG;
	} else {
		for (i = hdr; i < ds; i++) {
			uint32_t len;

			memcpy(&len, wqe + i * RNIC_SEG_SIZE, 4);
			b += le32toh(len);
		}
	}
	*bytes = b;
}
