/* SPDX-License-Identifier: MIT */
/*
 * rnic_hw.h - the host/hardware contract of the RNIC, in C.
 *
 * Everything here mirrors docs/formats.md (the RTL side is rtl/rnic_pkg.sv):
 * BAR register offsets, command opcodes, the packing of context words, and
 * the layouts of send WQEs, receive WQEs, CQEs and doorbell records. All
 * multi-byte fields are little-endian unless stated otherwise.
 *
 * This header has no dependencies besides the C library, so testbenches and
 * models can use it as the reference packing.
 */
#ifndef RNIC_HW_H
#define RNIC_HW_H

#include <assert.h>
#include <stddef.h>
#include <stdint.h>

/* ------------------------------------------------------------------------ */
/* BAR (MMIO), 64-bit registers                                             */
/* ------------------------------------------------------------------------ */

#define RNIC_REG_DEV_ID		0x000
#define RNIC_REG_CAPS		0x008
#define RNIC_REG_PORT_MAC	0x010
#define RNIC_REG_PORT_IP	0x018
#define RNIC_REG_CMD_ARG(n)	(0x100 + 8 * (n))	/* n = 0..7 */
#define RNIC_REG_CMD_GO		0x140
#define RNIC_REG_CMD_STATUS	0x148
#define RNIC_REG_CMD_OUT(n)	(0x150 + 8 * (n))	/* n = 0..3 */
#define RNIC_REG_CNT_TX_PKTS	0x200
#define RNIC_REG_CNT_RX_PKTS	0x208
#define RNIC_REG_CNT_RX_DROP	0x210
#define RNIC_REG_CNT_DMA_RD_ERR	0x218
#define RNIC_REG_SQ_DB		0x1000
#define RNIC_REG_RQ_DB		0x1008
#define RNIC_REG_CQ_DB		0x1010
/* BlueFlame: the 8 words of a 64-byte WQE, then SQ_DB with RNIC_DB_SQ_BF. */
#define RNIC_REG_SQ_BF		0x1040
#define RNIC_DB_SQ_BF		(1ull << 48)
#define RNIC_REG_SRQ_DB		0x1018

#define RNIC_CMD_NARGS		8
#define RNIC_CMD_NOUT		4

/* DEV_ID: "RNIC" in [63:32], major version [31:16], minor version [15:0]. */
#define RNIC_DEV_ID_VALUE	0x524e494300010000ULL
#define RNIC_DEV_ID_MAGIC(v)	((uint32_t)((v) >> 32))
#define RNIC_DEV_ID_MAJOR(v)	((unsigned int)(((v) >> 16) & 0xffff))
#define RNIC_DEV_ID_MINOR(v)	((unsigned int)((v) & 0xffff))

/* CAPS */
#define RNIC_CAPS_LOG_QP(c)	((unsigned int)((c) & 0xff))
#define RNIC_CAPS_LOG_CQ(c)	((unsigned int)(((c) >> 8) & 0xff))
#define RNIC_CAPS_LOG_MR(c)	((unsigned int)(((c) >> 16) & 0xff))
#define RNIC_CAPS_MAX_SGE(c)	((unsigned int)(((c) >> 24) & 0xff))
#define RNIC_CAPS_DATA_BITS(c)	((unsigned int)(((c) >> 32) & 0xffff))
#define RNIC_CAPS_MAX_RD_OUT(c)	((unsigned int)(((c) >> 48) & 0xff))

/* PORT_MAC: [47:0], byte 0 of the address in bits [47:40]. */
#define RNIC_MAC_MASK		0xffffffffffffULL
/* PORT_IP: [31:0], first octet in bits [31:24]. */

/* ------------------------------------------------------------------------ */
/* Command interface                                                        */
/* ------------------------------------------------------------------------ */

enum rnic_cmd_op {
	RNIC_CMD_QP_WRITE = 0x01,
	RNIC_CMD_QP_QUERY = 0x02,
	RNIC_CMD_CQ_WRITE = 0x10,
	RNIC_CMD_MR_WRITE = 0x20,
	RNIC_CMD_SRQ_WRITE = 0x30,
};

/* CMD_GO: [7:0] op, [31:8] object index. */
static inline uint64_t rnic_cmd_go(unsigned int op, uint32_t index)
{
	return (uint64_t)(op & 0xff) | ((uint64_t)(index & 0xffffff) << 8);
}

/* CMD_STATUS: [0] busy, [15:8] result. */
#define RNIC_CMD_STATUS_BUSY(s)		((unsigned int)((s) & 1))
#define RNIC_CMD_STATUS_RESULT(s)	((unsigned int)(((s) >> 8) & 0xff))

enum rnic_cmd_result {
	RNIC_CMD_OK = 0,
	RNIC_CMD_BAD_OP = 1,
	RNIC_CMD_BAD_INDEX = 2,
};

/* QP_QUERY results. */
#define RNIC_QP_QUERY_STATE(out0)	((unsigned int)((out0) & 0x7))
#define RNIC_QP_QUERY_DRAINING(out0)	((unsigned int)((out0) >> 3 & 1))
#define RNIC_QP_QUERY_SQ_PSN(out1)	((uint32_t)((out1) & 0xffffff))
#define RNIC_QP_QUERY_RQ_PSN(out1)	((uint32_t)(((out1) >> 24) & 0xffffff))

/* CQ_WRITE: ARG0 [4:0] log2 entries, [8] valid; ARG1 ring IOVA (resets the
 * producer index, the error state and the arming); ARG2 IOVA of the CQ's
 * doorbell record (struct rnic_cq_dbrec), 0 = no overrun check. */
static inline uint64_t rnic_cq_arg0(unsigned int log_size, int valid)
{
	return (uint64_t)(log_size & 0x1f) | ((uint64_t)!!valid << 8);
}

/*
 * SRQ_WRITE (index = SRQ number, below the number of QPs): ARG0 [4:0] log2
 * entries, [8] valid, [9] reset the producer/consumer indices (creation
 * only), [15:12] log2 WQE stride, [47:32] limit (0: the SRQ-limit event is
 * not armed; non-zero arms it, the hardware disarms it when it fires);
 * ARG1 ring IOVA. The whole context is written every time.
 */
#define RNIC_SRQ_F_VALID	(1ULL << 8)
#define RNIC_SRQ_F_RESET	(1ULL << 9)

static inline uint64_t rnic_srq_arg0(unsigned int log_size, unsigned int log_stride,
				     uint16_t limit, int valid, int reset)
{
	return (uint64_t)(log_size & 0x1f) | (valid ? RNIC_SRQ_F_VALID : 0) |
	       (reset ? RNIC_SRQ_F_RESET : 0) | ((uint64_t)(log_stride & 0xf) << 12) |
	       ((uint64_t)limit << 32);
}

/* MR_WRITE: ARG0 [7:0] key byte, [15:8] access, [31:16] PD, [32] valid,
 * [33] memory window, [34] type 2 window, [63:40] QPN a type 2 window is
 * bound to (written by the hardware on bind); ARG1 VA; ARG2 length; ARG3
 * IOVA of the VA. */
#define RNIC_MR_F_VALID		(1ULL << 32)
#define RNIC_MR_F_MW		(1ULL << 33)
#define RNIC_MR_F_MW_TYPE2	(1ULL << 34)
#define RNIC_MR_QPN_SHIFT	40

static inline uint64_t rnic_mr_arg0(uint8_t key, unsigned int access,
				    uint32_t pd, int valid)
{
	return (uint64_t)key | ((uint64_t)(access & 0xff) << 8) |
	       ((uint64_t)(pd & 0xffff) << 16) | ((uint64_t)!!valid << 32);
}

/* MR_WRITE of a memory window entry as the driver writes it (allocation):
 * not valid (unbound), window, its type; the hardware fills the rest on
 * bind. */
static inline uint64_t rnic_mw_arg0(uint8_t key, uint32_t pd, int type2)
{
	return rnic_mr_arg0(key, 0, pd, 0) | RNIC_MR_F_MW |
	       (type2 ? RNIC_MR_F_MW_TYPE2 : 0);
}

/* lkey = rkey = (mr_index << 8) | key_byte; MR index 0 is never used. */
#define RNIC_KEY(index, key)	(((uint32_t)(index) << 8) | ((key) & 0xff))
#define RNIC_KEY_INDEX(k)	((uint32_t)(k) >> 8)
#define RNIC_KEY_BYTE(k)	((uint8_t)((k) & 0xff))

/* ------------------------------------------------------------------------ */
/* QP context (QP_WRITE ARG0..7)                                            */
/* ------------------------------------------------------------------------ */

#define RNIC_QP_CTX_WORDS	8

/* W1 [31:24] flags */
enum rnic_qp_ctx_flags {
	RNIC_QPF_RESET_SQ = 1 << 0,
	RNIC_QPF_RESET_RQ = 1 << 1,
	RNIC_QPF_LOAD_SQ_PSN = 1 << 2,
	RNIC_QPF_LOAD_RQ_PSN = 1 << 3,
	RNIC_QPF_SQD_NOTIFY = 1 << 4,	/* -> SQD: IBV_EVENT_SQ_DRAINED once drained */
	RNIC_QPF_RESUME_SQ = 1 << 5,	/* SQE -> RTS: the SQ is sent again */
};

/* QP type field (W0 [6:4]): the values of enum ibv_qp_type. */
#define RNIC_QPT_RC		2
#define RNIC_QPT_UC		3
#define RNIC_QPT_UD		4

struct rnic_qp_ctx {
	uint8_t state;		/* enum ibv_qp_state */
	uint8_t type;		/* enum ibv_qp_type: RC, UC or UD */
	uint8_t pmtu;		/* enum ibv_mtu */
	uint8_t access;		/* ibv_access_flags [3:0] */
	uint16_t pd;
	uint16_t scqn;
	uint16_t rcqn;
	uint8_t flags;		/* enum rnic_qp_ctx_flags */
	uint32_t dest_qpn;	/* 24 bits */
	uint32_t dest_ip;	/* first octet in [31:24] */
	uint64_t dest_mac;	/* byte 0 in [47:40] */
	uint8_t sq_log_size;
	uint8_t sq_log_stride;
	uint8_t rq_log_size;
	uint8_t rq_log_stride;
	uint64_t sq_iova;
	uint64_t rq_iova;
	uint32_t sq_psn;	/* 24 bits */
	uint32_t rq_psn;	/* 24 bits */
	uint8_t timeout;	/* 5 bits */
	uint8_t retry_cnt;	/* 3 bits */
	uint8_t rnr_retry;	/* 3 bits */
	uint8_t min_rnr_timer;	/* 5 bits */
	uint8_t max_rd_atomic;	/* 4 bits: READs/atomics this QP may have outstanding */
	uint8_t max_dest_rd_atomic;	/* 4 bits: ... it accepts from its peer */
	uint16_t udp_sport;
	uint32_t qkey;		/* W7: Q_Key of a UD QP */
	uint16_t srqn;		/* W7: SRQ the receives come from ... */
	uint8_t use_srq;	/* ... if set */
};

static inline uint64_t rnic_bits(uint64_t v, unsigned int lo, unsigned int width)
{
	uint64_t mask = width >= 64 ? ~0ULL : ((1ULL << width) - 1);

	return (v & mask) << lo;
}

static inline uint64_t rnic_getbits(uint64_t w, unsigned int lo, unsigned int width)
{
	uint64_t mask = width >= 64 ? ~0ULL : ((1ULL << width) - 1);

	return (w >> lo) & mask;
}

static inline void rnic_qp_ctx_pack(const struct rnic_qp_ctx *c,
				    uint64_t w[RNIC_QP_CTX_WORDS])
{
	w[0] = rnic_bits(c->state, 0, 3) | rnic_bits(c->type, 4, 3) |
	       rnic_bits(c->pmtu, 8, 3) | rnic_bits(c->access, 12, 4) |
	       rnic_bits(c->pd, 16, 16) | rnic_bits(c->scqn, 32, 16) |
	       rnic_bits(c->rcqn, 48, 16);
	w[1] = rnic_bits(c->dest_qpn, 0, 24) | rnic_bits(c->flags, 24, 8) |
	       rnic_bits(c->dest_ip, 32, 32);
	w[2] = rnic_bits(c->dest_mac, 0, 48) | rnic_bits(c->sq_log_size, 48, 5) |
	       rnic_bits(c->sq_log_stride, 56, 4);
	w[3] = c->sq_iova;
	w[4] = c->rq_iova;
	w[5] = rnic_bits(c->rq_log_size, 0, 5) | rnic_bits(c->rq_log_stride, 8, 4) |
	       rnic_bits(c->sq_psn, 16, 24) | rnic_bits(c->rq_psn, 40, 24);
	w[6] = rnic_bits(c->timeout, 0, 5) | rnic_bits(c->retry_cnt, 8, 3) |
	       rnic_bits(c->rnr_retry, 12, 3) | rnic_bits(c->min_rnr_timer, 16, 5) |
	       rnic_bits(c->max_rd_atomic, 24, 4) | rnic_bits(c->max_dest_rd_atomic, 28, 4) |
	       rnic_bits(c->udp_sport, 32, 16);
	w[7] = rnic_bits(c->qkey, 0, 32) | rnic_bits(c->srqn, 32, 16) |
	       rnic_bits(c->use_srq, 48, 1);
}

static inline void rnic_qp_ctx_unpack(const uint64_t w[RNIC_QP_CTX_WORDS],
				      struct rnic_qp_ctx *c)
{
	c->state = rnic_getbits(w[0], 0, 3);
	c->type = rnic_getbits(w[0], 4, 3);
	c->pmtu = rnic_getbits(w[0], 8, 3);
	c->access = rnic_getbits(w[0], 12, 4);
	c->pd = rnic_getbits(w[0], 16, 16);
	c->scqn = rnic_getbits(w[0], 32, 16);
	c->rcqn = rnic_getbits(w[0], 48, 16);
	c->dest_qpn = rnic_getbits(w[1], 0, 24);
	c->flags = rnic_getbits(w[1], 24, 8);
	c->dest_ip = rnic_getbits(w[1], 32, 32);
	c->dest_mac = rnic_getbits(w[2], 0, 48);
	c->sq_log_size = rnic_getbits(w[2], 48, 5);
	c->sq_log_stride = rnic_getbits(w[2], 56, 4);
	c->sq_iova = w[3];
	c->rq_iova = w[4];
	c->rq_log_size = rnic_getbits(w[5], 0, 5);
	c->rq_log_stride = rnic_getbits(w[5], 8, 4);
	c->sq_psn = rnic_getbits(w[5], 16, 24);
	c->rq_psn = rnic_getbits(w[5], 40, 24);
	c->timeout = rnic_getbits(w[6], 0, 5);
	c->retry_cnt = rnic_getbits(w[6], 8, 3);
	c->rnr_retry = rnic_getbits(w[6], 12, 3);
	c->min_rnr_timer = rnic_getbits(w[6], 16, 5);
	c->max_rd_atomic = rnic_getbits(w[6], 24, 4);
	c->max_dest_rd_atomic = rnic_getbits(w[6], 28, 4);
	c->udp_sport = rnic_getbits(w[6], 32, 16);
	c->qkey = (uint32_t)w[7];
	c->srqn = rnic_getbits(w[7], 32, 16);
	c->use_srq = rnic_getbits(w[7], 48, 1);
}

/* ------------------------------------------------------------------------ */
/* Doorbells                                                                */
/* ------------------------------------------------------------------------ */

/* SQ_DB / RQ_DB: [23:0] QPN, [47:32] producer index (free running). */
static inline uint64_t rnic_db_wq(uint32_t qpn, uint16_t pi)
{
	return (uint64_t)(qpn & 0xffffff) | ((uint64_t)pi << 32);
}

/* CQ_DB: [23:0] CQN, [32] arm, [33] solicited only. */
static inline uint64_t rnic_db_cq(uint32_t cqn, int arm, int solicited)
{
	return (uint64_t)(cqn & 0xffffff) | ((uint64_t)!!arm << 32) |
	       ((uint64_t)!!solicited << 33);
}

/* CQ_DB with bit 34: the CQ's moderation (ibv_modify_cq), count CQEs or
 * period microseconds per interrupt; CQNs are 16 bits (NCq <= 65536). */
static inline uint64_t rnic_db_cq_mod(uint32_t cqn, uint16_t count, uint16_t period_us)
{
	return (uint64_t)(cqn & 0xffff) | ((uint64_t)count << 16) | (1ull << 34) |
	       ((uint64_t)period_us << 35);
}

/*
 * Doorbell record in host memory, one per QP, written by the library before
 * the MMIO doorbell (the hardware does not read it yet): the free-running
 * 16-bit producer indices, zero-extended.
 */
struct rnic_dbrec {
	uint32_t sq_pi;		/* LE */
	uint32_t rq_pi;		/* LE */
};

/*
 * CQ doorbell record in host memory (CQ_WRITE ARG2), written by the library
 * after it consumed CQEs: the free-running consumer index. The CQE writer
 * reads it by DMA when a CQE would find the ring full by the index it last
 * read (pi - ci >= 2^log); if the ring is still full the CQE is lost, the CQ
 * goes to error and an IBV_EVENT_CQ_ERR event is written (event queue below).
 */
struct rnic_cq_dbrec {
	uint32_t ci;		/* LE */
	uint32_t rsvd;
};

/* SRQ_DB: [23:0] SRQ number, [47:32] producer index (free running); the
 * same packing as rnic_db_wq(). */
static inline uint64_t rnic_db_srq(uint32_t srqn, uint16_t pi)
{
	return rnic_db_wq(srqn, pi);
}

/* ------------------------------------------------------------------------ */
/* Work queue entries                                                       */
/* ------------------------------------------------------------------------ */

#define RNIC_SEG_SIZE		16
#define RNIC_WQE_BB		64	/* basic block: smallest stride */
#define RNIC_WQE_MAX_STRIDE	256
#define RNIC_LOG_WQE_BB		6

/* Send WQE control-segment opcodes */
enum rnic_wqe_op {
	RNIC_WQE_OP_NOP = 0x00,
	RNIC_WQE_OP_WRITE = 0x08,
	RNIC_WQE_OP_WRITE_IMM = 0x09,
	RNIC_WQE_OP_SEND = 0x0a,
	RNIC_WQE_OP_SEND_IMM = 0x0b,
	RNIC_WQE_OP_SEND_INV = 0x0c,
	RNIC_WQE_OP_READ = 0x10,
	RNIC_WQE_OP_CMP_SWAP = 0x11,
	RNIC_WQE_OP_FETCH_ADD = 0x12,
	RNIC_WQE_OP_LOCAL_INV = 0x13,
	RNIC_WQE_OP_BIND_MW = 0x14,
};

/* Control-segment flags */
enum rnic_wqe_flags {
	RNIC_WQE_F_SIGNALED = 1 << 0,
	RNIC_WQE_F_SOLICITED = 1 << 1,
	RNIC_WQE_F_FENCE = 1 << 2,
	RNIC_WQE_F_INLINE = 1 << 3,
};

/* Inline segment: a LE u32 of this flag | length, then the data bytes,
 * padded with zeros to a multiple of 16 bytes. */
#define RNIC_INLINE_SEG		0x80000000u
#define RNIC_INLINE_HDR		4

/* Control segment, always first in a send WQE. */
struct rnic_wqe_ctrl {
	uint8_t opcode;		/* enum rnic_wqe_op */
	uint8_t flags;		/* enum rnic_wqe_flags */
	uint16_t wqe_idx;	/* LE, free-running producer index */
	uint8_t ds;		/* 16-byte segments including this one */
	uint8_t rsvd0[3];
	uint32_t imm;		/* bytes of wr.imm_data (network order); SEND_WITH_INV,
				 * LOCAL_INV: the rkey to invalidate (LE) */
	uint32_t rsvd1;
};

/* Remote address segment (WRITE, WRITE_IMM, READ). */
struct rnic_wqe_raddr {
	uint64_t va;		/* LE */
	uint32_t rkey;		/* LE */
	uint32_t rsvd;
};

/* Atomic segment (after the remote address segment). */
struct rnic_wqe_atomic {
	uint64_t swap_add;	/* LE: swap value (CMP_AND_SWP), add value (FETCH_AND_ADD) */
	uint64_t compare;	/* LE: compare value (CMP_AND_SWP) */
};

/* UD address segments A and B (UD sends, after the control segment). */
struct rnic_wqe_ud_a {
	uint32_t dest_qpn;	/* LE, 24 bits */
	uint32_t qkey;		/* LE */
	uint32_t dest_ip;	/* LE, first octet in [31:24] (as PORT_IP) */
	uint32_t rsvd;
};

struct rnic_wqe_ud_b {
	uint64_t dest_mac;	/* LE, byte 0 of the address in [47:40] */
	uint64_t rsvd;
};

/* BIND_MW segments A and B. */
struct rnic_wqe_bind_a {
	uint32_t new_rkey;	/* LE: the window's rkey after the bind */
	uint32_t mr_lkey;	/* LE: the MR the window lies in */
	uint64_t va;		/* LE: start of the window */
};

struct rnic_wqe_bind_b {
	uint64_t len;		/* LE: length of the window, 0 unbinds */
	uint32_t access;	/* LE: enum ibv_access_flags of the window */
	uint32_t rsvd;
};

/* Data segment (send gather entry / receive scatter entry). */
struct rnic_wqe_data {
	uint32_t len;		/* LE */
	uint32_t lkey;		/* LE */
	uint64_t addr;		/* LE, virtual address in the MR */
};

/* Receive WQE header segment, followed by data segments. */
struct rnic_rwqe_hdr {
	uint8_t nsge;
	uint8_t rsvd0;
	uint16_t wqe_idx;	/* LE */
	uint8_t rsvd1[12];
};

/* ------------------------------------------------------------------------ */
/* Completion queue entry                                                   */
/* ------------------------------------------------------------------------ */

#define RNIC_CQE_SIZE		64
#define RNIC_LOG_CQE_SIZE	6

enum rnic_cqe_flags {
	RNIC_CQE_F_IMM = 1 << 0,	/* bytes 4-7: immediate data */
	RNIC_CQE_F_GRH = 1 << 1,	/* UD receive: GRH in the first 40 bytes */
	RNIC_CQE_F_INV = 1 << 2,	/* bytes 4-7: invalidated rkey (LE) */
	RNIC_CQE_F_SOLICITED = 1 << 3,
};

struct rnic_cqe {
	uint32_t byte_len;	/* LE */
	uint32_t imm;		/* network order bytes, as received */
	uint32_t qpn;		/* LE */
	uint16_t wqe_idx;	/* LE */
	uint8_t status;		/* enum ibv_wc_status */
	uint8_t opcode;		/* enum ibv_wc_opcode */
	uint8_t flags;		/* enum rnic_cqe_flags */
	uint8_t vendor_err;
	uint8_t rsvd0[2];
	uint32_t src_qp;	/* LE */
	uint8_t rsvd1[39];
	uint8_t owner;		/* bit 0 */
};

/*
 * The CQ has 2^log entries; CQE number pi goes to slot pi mod 2^log with
 * owner bit (pi >> log) & 1. Software initialises every owner byte to 1, so
 * the CQE at consumer index ci is new when its owner bit equals
 * (ci >> log) & 1.
 */
static inline int rnic_cqe_is_new(const struct rnic_cqe *cqe, uint32_t ci,
				  unsigned int log_size)
{
	return (*(const volatile uint8_t *)&cqe->owner & 1) ==
	       ((ci >> log_size) & 1);
}

/*
 * The event queue: CQ 0 of every device. The hardware writes asynchronous
 * events there as CQE-sized records with the CQE's owner-bit rule: opcode
 * byte RNIC_EQE_OPCODE, status byte = enum ibv_event_type, QPN field = the
 * QP, CQ or SRQ number the event is about. Every record raises CQ 0's
 * interrupt (no arming); the hardware never checks the queue for overrun,
 * so the driver drains it at every interrupt.
 */
#define RNIC_EQN		0
#define RNIC_EQE_OPCODE		0xff

static_assert(sizeof(struct rnic_wqe_ctrl) == 16, "ctrl segment");
static_assert(offsetof(struct rnic_wqe_ctrl, ds) == 4, "ctrl ds");
static_assert(offsetof(struct rnic_wqe_ctrl, imm) == 8, "ctrl imm");
static_assert(sizeof(struct rnic_wqe_raddr) == 16, "raddr segment");
static_assert(sizeof(struct rnic_wqe_data) == 16, "data segment");
static_assert(sizeof(struct rnic_wqe_atomic) == 16, "atomic segment");
static_assert(sizeof(struct rnic_wqe_ud_a) == 16, "UD address A");
static_assert(sizeof(struct rnic_wqe_ud_b) == 16, "UD address B");
static_assert(sizeof(struct rnic_wqe_bind_a) == 16, "bind A");
static_assert(sizeof(struct rnic_wqe_bind_b) == 16, "bind B");
static_assert(sizeof(struct rnic_rwqe_hdr) == 16, "recv header");
static_assert(sizeof(struct rnic_cqe) == RNIC_CQE_SIZE, "cqe size");
static_assert(offsetof(struct rnic_cqe, wqe_idx) == 12, "cqe wqe_idx");
static_assert(offsetof(struct rnic_cqe, status) == 14, "cqe status");
static_assert(offsetof(struct rnic_cqe, flags) == 16, "cqe flags");
static_assert(offsetof(struct rnic_cqe, src_qp) == 20, "cqe src_qp");
static_assert(offsetof(struct rnic_cqe, owner) == 63, "cqe owner");
static_assert(sizeof(struct rnic_dbrec) == 8, "doorbell record");
static_assert(sizeof(struct rnic_cq_dbrec) == 8, "CQ doorbell record");

#endif /* RNIC_HW_H */
