// SPDX-License-Identifier: MIT
/*
 * wr.c - the ibv_wr_* interface of struct ibv_qp_ex (ibv_wr_post(3)) for QPs
 * created with IBV_QP_INIT_ATTR_SEND_OPS_FLAGS.
 *
 * ibv_wr_start() takes the QP's batch lock and remembers the SQ producer
 * index. Each builder writes a whole WQE into the next SQ slot with the
 * segment builders of wqe.h (the same bytes ibv_post_send() writes):
 * control segment (wr_id and wr_flags from the ibv_qp_ex) and the address
 * segments; the setters append data segments or an inline segment and
 * update ds, or fill the UD address segments. Nothing reaches the hardware
 * before ibv_wr_complete(): the producer index, the doorbell record and the
 * SQ_DB doorbell only move there, once for the whole batch. ibv_wr_abort(),
 * or ibv_wr_complete() after a bad WR, leaves them where they were, so the
 * WQEs written in the ring are never fetched (the next batch or
 * ibv_post_send() overwrites them).
 *
 * The builders and setters cannot return errors; the first one is kept and
 * ibv_wr_complete() returns it and discards the whole batch:
 *   ENOMEM  the SQ is full;
 *   EINVAL  an operation not in the QP's send_ops_flags, wr_flags with
 *           IBV_SEND_IP_CSUM or unknown bits (IBV_SEND_INLINE is ignored:
 *           the inline setters say it), more SGEs than max_send_sge (or than
 *           fit the opcode's WQE), more inline bytes than max_inline_data,
 *           inline data on an opcode other than SEND/RDMA_WRITE, data on
 *           LOCAL_INV/BIND_MW, two data setters for one WR, a setter without
 *           a builder, a UD WR without ibv_wr_set_ud_addr() (or set_ud_addr
 *           on another QP type, or an AH of another PD), a BIND_MW that
 *           ibv_post_send() would refuse, the QP not in RTS (or ERR) at
 *           ibv_wr_complete().
 * A setter not called leaves the WR without data (a zero-length message).
 */
#include <stdlib.h>
#include <string.h>

#include "wqe.h"

static inline void rv_wr_fail(struct rv_qp *qp, int err)
{
	if (!qp->wr.err)
		qp->wr.err = err;
}

/* End of the WQE being built: a UD send needs its address. */
static inline void rv_wr_close(struct rv_qp *qp)
{
	if (qp->wr.wqe && qp->type == IBV_QPT_UD && !qp->wr.ud_set)
		rv_wr_fail(qp, EINVAL);
	qp->wr.wqe = NULL;
}

/* Start a WQE of @op in the next slot: control segment with ds counting the
 * control and address segments; NULL after an error. */
static uint8_t *rv_wr_begin(struct rv_qp *qp, unsigned int op, uint32_t imm)
{
	struct rv_wr_batch *b = &qp->wr;
	unsigned int flags = qp->ibqpx.wr_flags;
	uint16_t tail;
	uint8_t *wqe;

	rv_wr_close(qp);
	if (unlikely(b->err))
		return NULL;
	if (unlikely(!(b->ops & (1u << op)) ||
		     (flags & ~(unsigned int)(RV_SEND_FLAGS | IBV_SEND_INLINE)))) {
		rv_wr_fail(qp, EINVAL);
		return NULL;
	}
	tail = __atomic_load_n(&qp->sq.tail, __ATOMIC_RELAXED);
	if (unlikely((uint16_t)(b->pi - tail) >= qp->sq.entries)) {
		rv_wr_fail(qp, ENOMEM);
		return NULL;
	}
	wqe = rv_wq_slot(&qp->sq, b->pi);
	rv_seg_ctrl(wqe, rv_ctrl_w0(qp->ctrl0[op], rv_wqe_flags[flags & 7] | qp->sig_all,
				    b->pi, 0), imm);
	qp->sq.wrid[b->pi & qp->sq.mask] = qp->ibqpx.wr_id;
	b->wqe = wqe;
	b->op = op;
	b->nseg = (qp->ctrl0[op] >> 32) & 0xff;
	b->data_set = 0;
	b->ud_set = 0;
	b->pi++;
	return wqe;
}

/* ------------------------------------------------------------------------ */
/* Builders                                                                 */
/* ------------------------------------------------------------------------ */

static void rv_wr_send(struct ibv_qp_ex *qpx)
{
	rv_wr_begin(qpx_to_rv_qp(qpx), IBV_WR_SEND, 0);
}

static void rv_wr_send_imm(struct ibv_qp_ex *qpx, __be32 imm_data)
{
	rv_wr_begin(qpx_to_rv_qp(qpx), IBV_WR_SEND_WITH_IMM, rv_imm_raw(imm_data));
}

static void rv_wr_send_inv(struct ibv_qp_ex *qpx, uint32_t invalidate_rkey)
{
	rv_wr_begin(qpx_to_rv_qp(qpx), IBV_WR_SEND_WITH_INV, invalidate_rkey);
}

static inline void rv_wr_rdma(struct ibv_qp_ex *qpx, unsigned int op, uint32_t rkey,
			      uint64_t remote_addr, uint32_t imm)
{
	uint8_t *wqe = rv_wr_begin(qpx_to_rv_qp(qpx), op, imm);

	if (likely(wqe))
		rv_seg_raddr(wqe + RNIC_SEG_SIZE, remote_addr, rkey);
}

static void rv_wr_rdma_write(struct ibv_qp_ex *qpx, uint32_t rkey,
			     uint64_t remote_addr)
{
	rv_wr_rdma(qpx, IBV_WR_RDMA_WRITE, rkey, remote_addr, 0);
}

static void rv_wr_rdma_write_imm(struct ibv_qp_ex *qpx, uint32_t rkey,
				 uint64_t remote_addr, __be32 imm_data)
{
	rv_wr_rdma(qpx, IBV_WR_RDMA_WRITE_WITH_IMM, rkey, remote_addr,
		   rv_imm_raw(imm_data));
}

static void rv_wr_rdma_read(struct ibv_qp_ex *qpx, uint32_t rkey,
			    uint64_t remote_addr)
{
	rv_wr_rdma(qpx, IBV_WR_RDMA_READ, rkey, remote_addr, 0);
}

static inline void rv_wr_atomic(struct ibv_qp_ex *qpx, unsigned int op, uint32_t rkey,
				uint64_t remote_addr, uint64_t swap_add, uint64_t compare)
{
	uint8_t *wqe = rv_wr_begin(qpx_to_rv_qp(qpx), op, 0);

	if (likely(wqe))
		rv_seg_atomic(rv_seg_raddr(wqe + RNIC_SEG_SIZE, remote_addr, rkey),
			      swap_add, compare);
}

static void rv_wr_atomic_cmp_swp(struct ibv_qp_ex *qpx, uint32_t rkey,
				 uint64_t remote_addr, uint64_t compare, uint64_t swap)
{
	rv_wr_atomic(qpx, IBV_WR_ATOMIC_CMP_AND_SWP, rkey, remote_addr, swap, compare);
}

static void rv_wr_atomic_fetch_add(struct ibv_qp_ex *qpx, uint32_t rkey,
				   uint64_t remote_addr, uint64_t add)
{
	rv_wr_atomic(qpx, IBV_WR_ATOMIC_FETCH_AND_ADD, rkey, remote_addr, add, 0);
}

static void rv_wr_bind_mw(struct ibv_qp_ex *qpx, struct ibv_mw *mw, uint32_t rkey,
			  const struct ibv_mw_bind_info *bind_info)
{
	struct rv_qp *qp = qpx_to_rv_qp(qpx);
	struct rv_wr_bind *e;
	uint8_t *wqe;

	if (!bind_info || rv_mw_bind_check(qp, mw, rkey, bind_info)) {
		rv_wr_close(qp);
		rv_wr_fail(qp, EINVAL);
		return;
	}
	wqe = rv_wr_begin(qp, IBV_WR_BIND_MW, 0);
	if (!wqe)
		return;
	rv_seg_bind(wqe + RNIC_SEG_SIZE, rkey, bind_info);
	/* The window's rkey and MR change at ibv_wr_complete(). */
	e = &qp->wr.binds[(uint16_t)(qp->wr.pi - 1) & qp->sq.mask];
	e->mw = mw;
	e->rkey = rkey;
	e->bi = *bind_info;
	qp->wr.nmw++;
}

static void rv_wr_local_inv(struct ibv_qp_ex *qpx, uint32_t invalidate_rkey)
{
	struct rv_qp *qp = qpx_to_rv_qp(qpx);

	if (rv_wr_begin(qp, IBV_WR_LOCAL_INV, invalidate_rkey))
		qp->wr.nmw++;
}

/* TSO, XRC and ATOMIC_WRITE: no QP of this RNIC takes them (and
 * ibv_create_qp_ex() refuses their send_ops_flags). */
static void rv_wr_send_tso(struct ibv_qp_ex *qpx, void *hdr, uint16_t hdr_sz,
			   uint16_t mss)
{
	struct rv_qp *qp = qpx_to_rv_qp(qpx);

	(void)hdr;
	(void)hdr_sz;
	(void)mss;
	rv_wr_close(qp);
	rv_wr_fail(qp, EINVAL);
}

static void rv_wr_atomic_write(struct ibv_qp_ex *qpx, uint32_t rkey,
			       uint64_t remote_addr, const void *atomic_wr)
{
	struct rv_qp *qp = qpx_to_rv_qp(qpx);

	(void)rkey;
	(void)remote_addr;
	(void)atomic_wr;
	rv_wr_close(qp);
	rv_wr_fail(qp, EINVAL);
}

static void rv_wr_set_xrc_srqn(struct ibv_qp_ex *qpx, uint32_t remote_srqn)
{
	(void)remote_srqn;
	rv_wr_fail(qpx_to_rv_qp(qpx), EINVAL);
}

/* ------------------------------------------------------------------------ */
/* Setters                                                                  */
/* ------------------------------------------------------------------------ */

/* Where the data of the WQE being built go; NULL (and an error) if it
 * takes none or has them already. */
static inline uint8_t *rv_wr_data_pos(struct rv_qp *qp)
{
	struct rv_wr_batch *b = &qp->wr;

	if (unlikely(!b->wqe || b->data_set || ((1u << b->op) & RV_OPS_NODATA))) {
		rv_wr_fail(qp, EINVAL);
		return NULL;
	}
	b->data_set = 1;
	return b->wqe + b->nseg * RNIC_SEG_SIZE;
}

static inline void rv_wr_add_segs(struct rv_qp *qp, unsigned int n)
{
	qp->wr.nseg += n;
	qp->wr.wqe[4] = qp->wr.nseg;	/* ds */
}

static void rv_wr_set_sge(struct ibv_qp_ex *qpx, uint32_t lkey, uint64_t addr,
			  uint32_t length)
{
	struct rv_qp *qp = qpx_to_rv_qp(qpx);
	uint8_t *seg = rv_wr_data_pos(qp);

	if (unlikely(!seg) || !length)
		return;
	if (unlikely(qp->op_lim[qp->wr.op] < 2)) {
		rv_wr_fail(qp, EINVAL);
		return;
	}
	rv_put_seg(seg, length | (uint64_t)lkey << 32, addr);
	rv_wr_add_segs(qp, 1);
}

static void rv_wr_set_sge_list(struct ibv_qp_ex *qpx, size_t num_sge,
			       const struct ibv_sge *sg_list)
{
	struct rv_qp *qp = qpx_to_rv_qp(qpx);
	uint8_t *seg = rv_wr_data_pos(qp);
	uint64_t bytes = 0;

	if (unlikely(!seg))
		return;
	if (unlikely(num_sge >= qp->op_lim[qp->wr.op])) {
		rv_wr_fail(qp, EINVAL);
		return;
	}
	rv_wr_add_segs(qp, rv_seg_data(seg, sg_list, (unsigned int)num_sge, &bytes));
}

/* Inline data: only SEND and RDMA WRITE, at most max_inline_data bytes. */
static uint8_t *rv_wr_inline_pos(struct rv_qp *qp, uint64_t total)
{
	uint8_t *seg = rv_wr_data_pos(qp);

	if (unlikely(!seg))
		return NULL;
	if (unlikely(!((1u << qp->wr.op) & RV_OPS_INLINE) || total > qp->max_inline)) {
		rv_wr_fail(qp, EINVAL);
		return NULL;
	}
	return seg;
}

static void rv_wr_inline_close(struct rv_qp *qp, uint8_t *seg, uint32_t total)
{
	unsigned int n = rv_seg_inline_close(seg, total);

	if (n) {
		qp->wr.wqe[1] |= RNIC_WQE_F_INLINE;
		rv_wr_add_segs(qp, n);
	}
}

static void rv_wr_set_inline_data(struct ibv_qp_ex *qpx, void *addr, size_t length)
{
	struct rv_qp *qp = qpx_to_rv_qp(qpx);
	uint8_t *seg = rv_wr_inline_pos(qp, length);

	if (unlikely(!seg))
		return;
	rv_seg_inline_put(seg, 0, addr, length);
	rv_wr_inline_close(qp, seg, (uint32_t)length);
}

static void rv_wr_set_inline_data_list(struct ibv_qp_ex *qpx, size_t num_buf,
				       const struct ibv_data_buf *buf_list)
{
	struct rv_qp *qp = qpx_to_rv_qp(qpx);
	uint64_t total = 0;
	size_t i, off = 0;
	uint8_t *seg;

	for (i = 0; i < num_buf; i++) {
		total += buf_list[i].length;
		if (total > qp->max_inline)
			break;
	}
	seg = rv_wr_inline_pos(qp, total);
	if (unlikely(!seg))
		return;
	for (i = 0; i < num_buf; i++) {
		rv_seg_inline_put(seg, off, buf_list[i].addr, buf_list[i].length);
		off += buf_list[i].length;
	}
	rv_wr_inline_close(qp, seg, (uint32_t)total);
}

static void rv_wr_set_ud_addr(struct ibv_qp_ex *qpx, struct ibv_ah *ah,
			      uint32_t remote_qpn, uint32_t remote_qkey)
{
	struct rv_qp *qp = qpx_to_rv_qp(qpx);

	if (unlikely(!qp->wr.wqe || qp->type != IBV_QPT_UD || qp->wr.ud_set ||
		     !ah || ah->pd != qp->ibqpx.qp_base.pd)) {
		rv_wr_fail(qp, EINVAL);
		return;
	}
	/* A Q_Key with the high bit set means the QP's own (IBA 10.2.5). */
	if (remote_qkey & 0x80000000u)
		remote_qkey = qp->hw.ctx.qkey;
	rv_seg_ud(qp->wr.wqe + RNIC_SEG_SIZE, to_rv_ah(ah), remote_qpn, remote_qkey);
	qp->wr.ud_set = 1;
}

/* ------------------------------------------------------------------------ */
/* Start, complete, abort                                                   */
/* ------------------------------------------------------------------------ */

static void rv_wr_start(struct ibv_qp_ex *qpx)
{
	struct rv_qp *qp = qpx_to_rv_qp(qpx);
	struct rv_wr_batch *b = &qp->wr;

	pthread_spin_lock(&b->lock);
	b->start = b->pi = __atomic_load_n(&qp->sq.pi, __ATOMIC_RELAXED);
	b->wqe = NULL;
	b->err = 0;
	b->nmw = 0;
}

/* The windows of the batch's BIND_MW and LOCAL_INV WQEs (rnic lock held). */
static void rv_wr_mw_ops(struct rv_qp *qp)
{
	struct rv_wr_batch *b = &qp->wr;
	uint16_t idx;

	for (idx = b->start; idx != b->pi; idx++) {
		const uint8_t *wqe = rv_wq_slot(&qp->sq, idx);

		if (wqe[0] == RNIC_WQE_OP_BIND_MW) {
			struct rv_wr_bind *e = &b->binds[idx & qp->sq.mask];

			rv_mw_bound(e->mw, e->rkey, &e->bi);
		} else if (wqe[0] == RNIC_WQE_OP_LOCAL_INV) {
			uint32_t key;

			memcpy(&key, wqe + 8, 4);
			rv_mw_invalidated(qp->ctx, le32toh(key));
		}
	}
}

static int rv_wr_complete(struct ibv_qp_ex *qpx)
{
	struct rv_qp *qp = qpx_to_rv_qp(qpx);
	struct rv_wr_batch *b = &qp->wr;
	struct rv_wq *sq = &qp->sq;
	int err;

	rv_wr_close(qp);
	err = b->err;
	if (!err && b->pi != b->start) {
		rnic_lock_leaf();
		/* As ibv_post_send(): refused before RTS; and the batch must
		 * still be at the producer index (no ibv_post_send() inside
		 * the critical region). */
		if (unlikely(qp->hw.state < IBV_QPS_RTS || sq->pi != b->start)) {
			err = EINVAL;
		} else {
			if (unlikely(b->nmw))
				rv_wr_mw_ops(qp);
			if (unlikely(rv_tl_enabled)) {
				uint16_t idx;

				for (idx = b->start; idx != b->pi; idx++) {
					enum rv_tl_op op;
					uint64_t bytes;

					rv_wqe_tl_info(qp, rv_wq_slot(sq, idx), &op, &bytes);
					rv_tl_post(qp, sq, idx, op, bytes);
				}
			}
			if (unlikely(rv_db_batch)) {
				rv_sq_ring_batched(qp, b->start, b->pi);
			} else {
				sq->pi = b->pi;
				qp->dbrec->sq_pi = htole32(b->pi);
				/* WQEs and the doorbell record before the doorbell. */
				__atomic_thread_fence(__ATOMIC_RELEASE);
				rnic_sim_mmio_write(qp->sim, qp->node, RNIC_REG_SQ_DB,
						    rnic_db_wq(qp->qpn, b->pi));
			}
		}
		rnic_unlock_leaf();
	}
	b->pi = b->start;
	pthread_spin_unlock(&b->lock);
	return err;
}

static void rv_wr_abort(struct ibv_qp_ex *qpx)
{
	struct rv_qp *qp = qpx_to_rv_qp(qpx);

	qp->wr.wqe = NULL;
	qp->wr.pi = qp->wr.start;
	pthread_spin_unlock(&qp->wr.lock);
}

int rv_wr_init(struct rv_qp *qp, uint32_t send_ops)
{
	struct ibv_qp_ex *x = &qp->ibqpx;

	memset(&qp->wr, 0, sizeof(qp->wr));
	qp->wr.ops = send_ops;
	if (send_ops & IBV_QP_EX_WITH_BIND_MW) {
		qp->wr.binds = calloc(qp->sq.entries, sizeof(*qp->wr.binds));
		if (!qp->wr.binds)
			return ENOMEM;
	}
	pthread_spin_init(&qp->wr.lock, PTHREAD_PROCESS_PRIVATE);
	qp->has_qp_ex = 1;

	x->comp_mask = 0;
	x->wr_id = 0;
	x->wr_flags = 0;
	x->wr_atomic_cmp_swp = rv_wr_atomic_cmp_swp;
	x->wr_atomic_fetch_add = rv_wr_atomic_fetch_add;
	x->wr_bind_mw = rv_wr_bind_mw;
	x->wr_local_inv = rv_wr_local_inv;
	x->wr_rdma_read = rv_wr_rdma_read;
	x->wr_rdma_write = rv_wr_rdma_write;
	x->wr_rdma_write_imm = rv_wr_rdma_write_imm;
	x->wr_send = rv_wr_send;
	x->wr_send_imm = rv_wr_send_imm;
	x->wr_send_inv = rv_wr_send_inv;
	x->wr_send_tso = rv_wr_send_tso;
	x->wr_set_ud_addr = rv_wr_set_ud_addr;
	x->wr_set_xrc_srqn = rv_wr_set_xrc_srqn;
	x->wr_set_inline_data = rv_wr_set_inline_data;
	x->wr_set_inline_data_list = rv_wr_set_inline_data_list;
	x->wr_set_sge = rv_wr_set_sge;
	x->wr_set_sge_list = rv_wr_set_sge_list;
	x->wr_start = rv_wr_start;
	x->wr_complete = rv_wr_complete;
	x->wr_abort = rv_wr_abort;
	x->wr_atomic_write = rv_wr_atomic_write;
	return 0;
}

void rv_wr_fini(struct rv_qp *qp)
{
	if (!qp->has_qp_ex)
		return;
	pthread_spin_destroy(&qp->wr.lock);
	free(qp->wr.binds);
	qp->has_qp_ex = 0;
}
