/* SPDX-License-Identifier: MIT */
/*
 * wqe.h - the send WQE segments of docs/formats.md, built by small inline
 * functions shared by ibv_post_send() (post_send.c) and the ibv_wr_*
 * interface (wr.c), so both write the same bytes for the same work request.
 *
 * A send WQE is 2^log_stride bytes of 16-byte segments: the control
 * segment, then per opcode
 *   WRITE, WRITE_IMM, READ        remote address
 *   atomics                       remote address, atomic
 *   SEND* on UD                   UD address A, UD address B
 *   BIND_MW                       bind A, bind B
 * and then the data segments, or one inline segment (control flag
 * RNIC_WQE_F_INLINE). Every function returns the segment after the ones it
 * wrote. Multi-byte fields are little-endian.
 */
#ifndef RV_WQE_H
#define RV_WQE_H

#include <string.h>

#include "rnic_verbs.h"

/* The ibv_send_flags a send WQE carries in its control segment. */
#define RV_SEND_FLAGS	(IBV_SEND_FENCE | IBV_SEND_SIGNALED | IBV_SEND_SOLICITED)

/* IBV_SEND_FENCE | IBV_SEND_SIGNALED | IBV_SEND_SOLICITED -> WQE flags */
extern const uint8_t rv_wqe_flags[8] RV_HIDDEN;

/* Opcodes that take an inline segment (IBV_SEND_INLINE, the inline
 * setters): SEND and RDMA WRITE, as ibv_post_send(3) says. */
#define RV_OPS_INLINE	(1u << IBV_WR_SEND | 1u << IBV_WR_SEND_WITH_IMM |	\
			 1u << IBV_WR_SEND_WITH_INV | 1u << IBV_WR_RDMA_WRITE |	\
			 1u << IBV_WR_RDMA_WRITE_WITH_IMM)
/* Opcodes without data segments. */
#define RV_OPS_NODATA	(1u << IBV_WR_LOCAL_INV | 1u << IBV_WR_BIND_MW)

/* Access rights a memory window may be bound with. */
#define RV_MW_ACCESS	(IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ |	\
			 IBV_ACCESS_REMOTE_ATOMIC)

static inline void rv_put_seg(uint8_t *seg, uint64_t w0, uint64_t w1)
{
	w0 = htole64(w0);
	w1 = htole64(w1);
	memcpy(seg, &w0, 8);
	memcpy(seg + 8, &w1, 8);
}

/* Word 0 of the control segment: ctrl0 (WQE opcode, ds of the control and
 * address segments, rv_qp.ctrl0), WQE flags, WQE index, @nseg more
 * segments (data or inline). */
static inline uint64_t rv_ctrl_w0(uint64_t ctrl0, unsigned int wqe_flags,
				  uint16_t idx, unsigned int nseg)
{
	return ctrl0 + ((uint64_t)nseg << 32) + ((uint64_t)wqe_flags << 8) +
	       ((uint64_t)idx << 16);
}

/* Control segment. @imm is bytes 8-11 as a host-order value whose
 * little-endian bytes go to the WQE: le32toh() of the raw bytes of a
 * network-order imm_data, or the rkey to invalidate itself. */
static inline void rv_seg_ctrl(uint8_t *wqe, uint64_t w0, uint32_t imm)
{
	rv_put_seg(wqe, w0, imm);
}

/* The imm argument of rv_seg_ctrl() for immediate data (network order). */
static inline uint32_t rv_imm_raw(__be32 imm_data)
{
	uint32_t v;

	memcpy(&v, &imm_data, 4);
	return le32toh(v);
}

static inline uint8_t *rv_seg_raddr(uint8_t *seg, uint64_t va, uint32_t rkey)
{
	rv_put_seg(seg, va, rkey);
	return seg + RNIC_SEG_SIZE;
}

/* Atomic segment: swap (CMP_AND_SWP) or add value (FETCH_AND_ADD), then
 * the compare value (CMP_AND_SWP; 0 for FETCH_AND_ADD). */
static inline uint8_t *rv_seg_atomic(uint8_t *seg, uint64_t swap_add,
				     uint64_t compare)
{
	rv_put_seg(seg, swap_add, compare);
	return seg + RNIC_SEG_SIZE;
}

/* UD address A and B from an address handle and the WR's destination. */
static inline uint8_t *rv_seg_ud(uint8_t *seg, const struct rv_ah *ah,
				 uint32_t remote_qpn, uint32_t qkey)
{
	rv_put_seg(seg, (remote_qpn & 0xffffff) | (uint64_t)qkey << 32, ah->ip);
	rv_put_seg(seg + RNIC_SEG_SIZE, ah->mac, 0);
	return seg + 2 * RNIC_SEG_SIZE;
}

/* Bind A and bind B: the window's new rkey, the MR (0 when unbinding),
 * start, length (0 unbinds) and access of the window. */
static inline uint8_t *rv_seg_bind(uint8_t *seg, uint32_t new_rkey,
				   const struct ibv_mw_bind_info *bi)
{
	uint32_t lkey = bi->mr ? bi->mr->lkey : 0;

	rv_put_seg(seg, new_rkey | (uint64_t)lkey << 32, bi->addr);
	rv_put_seg(seg + RNIC_SEG_SIZE, bi->length, bi->mw_access_flags);
	return seg + 2 * RNIC_SEG_SIZE;
}

/* One data segment per non-empty SGE (zero-length SGEs are dropped, as
 * mlx5 does). Returns the segments written; adds the bytes to *bytes. */
static inline unsigned int rv_seg_data(uint8_t *seg, const struct ibv_sge *sgl,
				       unsigned int n, uint64_t *bytes)
{
	unsigned int i, k = 0;

	for (i = 0; i < n; i++) {
		uint32_t len = sgl[i].length;

		if (unlikely(!len))
			continue;
		rv_put_seg(seg, len | (uint64_t)sgl[i].lkey << 32, sgl[i].addr);
		*bytes += len;
		seg += RNIC_SEG_SIZE;
		k++;
	}
	return k;
}

/*
 * Inline segment: rv_seg_inline_put() copies the buffers one after the
 * other (@off: bytes already copied), rv_seg_inline_close() writes the
 * header and the zero padding and returns the segments. The caller has
 * checked that the total fits (rv_qp.max_inline). Zero bytes make no
 * segment and no inline flag.
 */
static inline void rv_seg_inline_put(uint8_t *seg, size_t off, const void *src,
				     size_t len)
{
	memcpy(seg + RNIC_INLINE_HDR + off, src, len);
}

static inline unsigned int rv_seg_inline_close(uint8_t *seg, uint32_t len)
{
	unsigned int nseg = rnic_inline_segs(len);
	uint32_t hdr = htole32(RNIC_INLINE_SEG | len);

	if (!len)
		return 0;
	memcpy(seg, &hdr, sizeof(hdr));
	memset(seg + RNIC_INLINE_HDR + len, 0,
	       nseg * RNIC_SEG_SIZE - RNIC_INLINE_HDR - len);
	return nseg;
}

/* Slot of WQE index @idx in a work queue. */
static inline uint8_t *rv_wq_slot(const struct rv_wq *wq, uint16_t idx)
{
	return wq->buf + ((size_t)(idx & wq->mask) << wq->log_stride);
}

/* Timeline opcode and bytes of a built send WQE (wr.c records them at
 * ibv_wr_complete()). */
void rv_wqe_tl_info(const struct rv_qp *qp, const uint8_t *wqe,
		    enum rv_tl_op *op, uint64_t *bytes);

#endif /* RV_WQE_H */
