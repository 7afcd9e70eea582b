/* SPDX-License-Identifier: MIT */
/*
 * rnic_drv.h - control path of the RNIC: what a kernel driver does.
 *
 * One struct rnic_dev per node of rnic_sim_global(), shared (reference
 * counted) by every open of that node. The driver owns:
 *   - bring-up: DEV_ID/CAPS check, PORT_MAC/PORT_IP programming;
 *   - per-device resource numbers: PD numbers, QPNs (2..NQp-1), CQNs
 *     (1..NCq-1; CQ 0 is the event queue), SRQ numbers (0..NQp-1), MR
 *     indices (1..NMr-1) with a rotating 8-bit key byte;
 *   - an IOVA allocator per node and the IOMMU mappings: exactly the pages
 *     of a registered MR or of a queue are mapped, each mapping is followed
 *     by an unmapped guard page in IOVA space;
 *   - the command interface (CMD_ARGn, CMD_GO, poll CMD_STATUS);
 *   - CQ, MR, QP and SRQ contexts, and the QP state machine;
 *   - the event queue (CQ 0): created at bring-up, drained by rnic_eq_next().
 *
 * Functions return 0 or a positive errno value.
 *
 * Locking: the simulation is one process-wide object, so the driver and the
 * verbs library serialise every access to it (and to their own state) with
 * one recursive lock, rnic_lock()/rnic_unlock(). Driver functions take it
 * themselves; callers may already hold it.
 */
#ifndef RNIC_DRV_H
#define RNIC_DRV_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <infiniband/verbs.h>

#include "rnic_hw.h"
#include "rnic_model.h"

/* ------------------------------------------------------------------------ */
/* The process-wide lock                                                    */
/* ------------------------------------------------------------------------ */

/*
 * A ticket lock: waiters are served in arrival order, so a thread that polls
 * in a tight loop cannot starve another one (a plain test-and-set lock did,
 * with one thread per node). Recursion for the control path is layered on
 * top with an owner and a depth.
 */
struct rnic_biglock {
	unsigned int next;	/* next ticket to hand out */
	unsigned int serving;	/* ticket that holds the lock (a futex word) */
	unsigned int sleepers;	/* waiters asleep on serving */
	unsigned int depth;	/* recursion depth of the owner */
	unsigned long owner;	/* pthread_self() of a recursive owner, 0 if none */
};

/* Hidden: inside libibverbs.so the data path reaches it without a GOT load. */
extern struct rnic_biglock rnic_biglock __attribute__((visibility("hidden")));

/* Contended acquisition: spin a little, then sleep until @ticket is served. */
void rnic_lock_wait(unsigned int ticket);
/* Wakes the sleepers after serving moved (they look at their tickets). */
void rnic_lock_wake(void);

/*
 * Leaf locking for the data path (post, poll): no recursion bookkeeping.
 * Only for code that calls nothing that takes the lock again (the model's
 * callbacks run inside rnic_sim_* calls and must not call verbs or driver
 * functions).
 */
static inline void rnic_lock_leaf(void)
{
	unsigned int t = __atomic_fetch_add(&rnic_biglock.next, 1, __ATOMIC_RELAXED);

	if (__builtin_expect(__atomic_load_n(&rnic_biglock.serving, __ATOMIC_ACQUIRE) != t, 0))
		rnic_lock_wait(t);
}

static inline void rnic_unlock_leaf(void)
{
	/* Sequentially consistent against rnic_lock_wait()'s "sleepers++, then
	 * look at serving": either it sees the new ticket or we see it. */
	__atomic_store_n(&rnic_biglock.serving, rnic_biglock.serving + 1,
			 __ATOMIC_SEQ_CST);
	if (__builtin_expect(__atomic_load_n(&rnic_biglock.sleepers, __ATOMIC_SEQ_CST) != 0, 0))
		rnic_lock_wake();
}

/*
 * Recursive locking for the control path. Only a thread writes its own id
 * into owner and clears it before it lets the lock go, so a thread reading
 * its own id there holds the lock.
 */
static inline void rnic_lock(void)
{
	unsigned long self = (unsigned long)pthread_self();

	if (__atomic_load_n(&rnic_biglock.owner, __ATOMIC_RELAXED) == self) {
		rnic_biglock.depth++;
		return;
	}
	rnic_lock_leaf();
	__atomic_store_n(&rnic_biglock.owner, self, __ATOMIC_RELAXED);
	rnic_biglock.depth = 1;
}

static inline void rnic_unlock(void)
{
	if (--rnic_biglock.depth)
		return;
	__atomic_store_n(&rnic_biglock.owner, 0UL, __ATOMIC_RELAXED);
	rnic_unlock_leaf();
}

/* ------------------------------------------------------------------------ */
/* Device                                                                   */
/* ------------------------------------------------------------------------ */

struct rnic_caps {
	uint32_t version;	/* DEV_ID [31:0]: major << 16 | minor */
	uint32_t n_qp;		/* QPN space (1 << log2 QPs); QPN 0 and 1 reserved */
	uint32_t n_cq;		/* CQN space */
	uint32_t n_mr;		/* MR index space; index 0 reserved */
	uint32_t max_sge;	/* per WQE */
	uint32_t data_bits;	/* datapath width */
	uint32_t max_rd_out;	/* outstanding DMA reads */
};

/* Driver limits that are not in CAPS (software choices, see rnic_drv.c). */
#define RNIC_MAX_PD		0xffff	/* PD numbers 1..0xffff (16-bit field) */
#define RNIC_MAX_QP_WR		32768	/* WQE indices are 16 bits, free running */
#define RNIC_MAX_CQE		65535	/* ring of up to 65536 CQEs */
#define RNIC_MIN_CQ_LOG		1
#define RNIC_PAGE_SIZE		RNIC_SIM_PAGE_SIZE
/* IOVA space handed out by the driver: above 4 GiB so that a zero or
 * truncated address never hits a mapping, below 2^47. */
#define RNIC_IOVA_BASE		(1ULL << 32)
#define RNIC_IOVA_END		(1ULL << 47)
/* The largest MR: all of the IOVA space but the guard page that follows
 * every mapping (ibv_device_attr.max_mr_size). */
#define RNIC_MAX_MR_SIZE	(RNIC_IOVA_END - RNIC_IOVA_BASE - RNIC_PAGE_SIZE)

struct rnic_iova_range;
struct rnic_cqe;

struct rnic_bitmap {
	uint64_t *bits;
	uint32_t size;		/* number of ids */
	uint32_t first;		/* lowest id handed out */
	uint32_t next;		/* rotating search start */
	uint32_t used;
};

struct rnic_dev {
	/* Read-only after rnic_dev_open() */
	struct rnic_sim *sim;
	unsigned int node;
	struct rnic_caps caps;
	uint64_t mac;		/* byte 0 in [47:40] */
	uint32_t ip;		/* first octet in [31:24] */

	/* The event queue, CQ 0 (rnic_eq_next()) */
	struct rnic_cqe *eq_ring;
	unsigned int eq_log_size;
	uint32_t eq_ci;		/* consumer index, free running */

	/* Private to the driver */
	int refcnt;
	struct rnic_bitmap pd_map, cq_map, qp_map, mr_map, srq_map;
	uint8_t key_next;
	struct rnic_iova_range *iova_free;
	uint64_t iova_mapped;	/* bytes currently mapped */
};

/* Attach to @node of rnic_sim_global(). ENODEV: no simulation, no such node,
 * or DEV_ID/CAPS do not describe an RNIC; EIO: the port registers do not
 * read back. */
int rnic_dev_open(unsigned int node, struct rnic_dev **devp);
void rnic_dev_close(struct rnic_dev *dev);

/* Find the node whose IPv4 address is @ip; fills its MAC. ENOENT if none. */
int rnic_resolve_ip(struct rnic_sim *sim, uint32_t ip, uint64_t *mac,
		    unsigned int *node);

/* IPv4-mapped GID (::ffff:a.b.c.d) <-> IPv4 address. */
void rnic_ip_to_gid(uint32_t ip, union ibv_gid *gid);
int rnic_gid_to_ip(const union ibv_gid *gid, uint32_t *ip);

/* Debug messages on stderr when RNIC_DEBUG is set. */
void rnic_dbg(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* ------------------------------------------------------------------------ */
/* Command interface                                                        */
/* ------------------------------------------------------------------------ */

/* Write @nargs arguments, CMD_GO, poll CMD_STATUS until not busy. Maps the
 * result to 0, EOPNOTSUPP (bad op), EINVAL (bad index), EIO (other result)
 * or ETIMEDOUT (still busy after RNIC_CMD_POLL_MAX reads). @out may be NULL. */
#define RNIC_CMD_POLL_MAX	100000
int rnic_cmd(struct rnic_dev *dev, unsigned int op, uint32_t index,
	     const uint64_t *args, unsigned int nargs, uint64_t *out,
	     unsigned int nout);

/* ------------------------------------------------------------------------ */
/* DMA mappings and queue memory                                            */
/* ------------------------------------------------------------------------ */

struct rnic_dma {
	uintptr_t host;		/* page-aligned start of the mapped host range */
	uint64_t iova;		/* bus address of host */
	size_t len;		/* mapped bytes, a page multiple */
	size_t fault_off;	/* fault injection: pages unmapped at host + */
	size_t fault_len;	/* fault_off (0: none) */
};

/* Map the pages covering [addr, addr+len). EFAULT if some page is not
 * mapped in the process, ENOMEM if IOVA space or the IOMMU is exhausted. */
int rnic_dma_map(struct rnic_dev *dev, const void *addr, size_t len,
		 struct rnic_dma *dma);
void rnic_dma_unmap(struct rnic_dev *dev, struct rnic_dma *dma);
/*
 * Fault injection: take the pages that hold [off, off+len) of the mapping
 * out of the IOMMU (@fault), so that device accesses to them fail as if the
 * IOMMU refused them, or put them back (!@fault). One range at a time:
 * EBUSY while another is out, EINVAL if the range is not in the mapping.
 */
int rnic_dma_fault(struct rnic_dev *dev, struct rnic_dma *dma, size_t off,
		   size_t len, bool fault);

static inline uint64_t rnic_dma_iova(const struct rnic_dma *dma, const void *p)
{
	return dma->iova + ((uintptr_t)p - dma->host);
}

/* Driver-allocated queue memory: page aligned, zeroed, mapped. */
struct rnic_buf {
	void *va;
	size_t len;
	struct rnic_dma dma;
};

int rnic_buf_alloc(struct rnic_dev *dev, size_t len, struct rnic_buf *buf);
void rnic_buf_free(struct rnic_dev *dev, struct rnic_buf *buf);

/* ------------------------------------------------------------------------ */
/* PD                                                                       */
/* ------------------------------------------------------------------------ */

int rnic_pd_alloc(struct rnic_dev *dev, uint32_t *pdn);
void rnic_pd_free(struct rnic_dev *dev, uint32_t pdn);

/* ------------------------------------------------------------------------ */
/* MR                                                                       */
/* ------------------------------------------------------------------------ */

struct rnic_mr {
	uint32_t index;
	uint32_t key;		/* lkey = rkey */
	uint32_t pdn;
	unsigned int access;	/* ibv_access_flags [7:0] as written */
	uint64_t va;		/* address the MR is accessed by (keys + VA) */
	uint64_t len;
	uint64_t iova;		/* bus address of the first byte */
	struct rnic_dma dma;
};

/* Register host memory [addr, addr+len) accessed as [va, va+len). */
int rnic_mr_reg(struct rnic_dev *dev, uint32_t pdn, void *addr, size_t len,
		uint64_t va, unsigned int access, struct rnic_mr *mr);
/* Invalidate the MR context and unmap; always releases the resources. */
int rnic_mr_dereg(struct rnic_dev *dev, struct rnic_mr *mr);

/* ------------------------------------------------------------------------ */
/* Memory windows                                                           */
/* ------------------------------------------------------------------------ */

/*
 * A memory window takes an index of the MR key space (lkey = rkey =
 * index << 8 | key byte). Allocation writes its MR-table entry with
 * MR_WRITE: window bit, type, PD, key byte, not valid (unbound). The
 * hardware makes it valid on BIND_MW (and writes VA, length, access, IOVA
 * and, for type 2, the QPN) and invalid again on invalidation.
 */
struct rnic_mw {
	uint32_t index;
	uint32_t key;		/* rkey as allocated */
	uint32_t pdn;
	int type2;
};

int rnic_mw_alloc(struct rnic_dev *dev, uint32_t pdn, int type2,
		  struct rnic_mw *mw);
/* Invalidate the entry (not valid, not a window); always frees the index. */
int rnic_mw_free(struct rnic_dev *dev, struct rnic_mw *mw);

/* ------------------------------------------------------------------------ */
/* CQ                                                                       */
/* ------------------------------------------------------------------------ */

struct rnic_cq {
	uint32_t cqn;
	unsigned int log_size;
	uint32_t entries;
	struct rnic_cqe *ring;
	struct rnic_cq_dbrec *dbrec;	/* NULL without overrun detection */
	uint64_t dbrec_iova;
	struct rnic_buf buf;		/* ring | doorbell record */
};

/* Ring of the next power of two >= @min_entries (at least 2) CQEs, owner
 * bytes set to 1, context written with CQ_WRITE, no doorbell record: the
 * hardware never checks the ring for overrun. */
int rnic_cq_create(struct rnic_dev *dev, uint32_t min_entries, struct rnic_cq *cq);
/* The same with @dbrec: a doorbell record (cq->dbrec, zeroed) right after
 * the ring in the same mapping, whose IOVA goes to CQ_WRITE ARG2; the owner
 * of the CQ stores the consumer index there after consuming CQEs, and the
 * hardware detects overruns (docs/formats.md). */
int rnic_cq_create_ex(struct rnic_dev *dev, uint32_t min_entries, int dbrec,
		      struct rnic_cq *cq);
/* Invalidate the context and unmap; always releases the resources. */
int rnic_cq_destroy(struct rnic_dev *dev, struct rnic_cq *cq);

static inline void rnic_cq_arm(struct rnic_dev *dev, const struct rnic_cq *cq,
			       int solicited_only)
{
	rnic_sim_mmio_write(dev->sim, dev->node, RNIC_REG_CQ_DB,
			    rnic_db_cq(cq->cqn, 1, solicited_only));
}

/*
 * The event queue (CQ 0): the next record, consumed, if the hardware wrote
 * one (owner bit). Returns 1 with the event type (enum ibv_event_type) and
 * the number of the QP, CQ or SRQ it is about, 0 if there is none. Records
 * that are not events (opcode) are skipped. Call with the rnic lock held.
 */
int rnic_eq_next(struct rnic_dev *dev, unsigned int *type, uint32_t *num);

/* ------------------------------------------------------------------------ */
/* SRQ                                                                      */
/* ------------------------------------------------------------------------ */

/*
 * A shared receive queue: a ring of receive WQEs (the RQ format) that the
 * hardware consumes in ring order, one per message at its first packet, for
 * every QP whose context names it (W7). Its number is below the number of
 * QPs. SRQ_DB carries the producer index.
 */
struct rnic_srq {
	uint32_t srqn;
	unsigned int log_size;
	unsigned int log_stride;
	uint32_t entries;	/* power of two */
	uint32_t max_sge;	/* data segments that fit a WQE */
	uint16_t limit;		/* as last written */
	void *ring;
	uint64_t iova;
	struct rnic_buf buf;
};

/* Ring of the next power of two >= @max_wr WQEs (1..RNIC_MAX_QP_WR) with
 * room for @max_sge SGEs; context written with the reset flag, not armed. */
int rnic_srq_create(struct rnic_dev *dev, uint32_t max_wr, uint32_t max_sge,
		    struct rnic_srq *srq);
/* Rewrite the context with @limit (0 disarms, non-zero arms the SRQ-limit
 * event); the queue indices are kept. */
int rnic_srq_set_limit(struct rnic_dev *dev, struct rnic_srq *srq, uint16_t limit);
/* Invalidate the context and unmap; always releases the resources. */
int rnic_srq_destroy(struct rnic_dev *dev, struct rnic_srq *srq);

/* ------------------------------------------------------------------------ */
/* QP                                                                       */
/* ------------------------------------------------------------------------ */

struct rnic_qp_init {
	enum ibv_qp_type type;	/* IBV_QPT_RC, IBV_QPT_UC or IBV_QPT_UD */
	uint32_t pdn;
	uint32_t scqn;
	uint32_t rcqn;
	uint32_t max_send_wr;
	uint32_t max_recv_wr;
	uint32_t max_send_sge;
	uint32_t max_recv_sge;
	uint32_t max_inline_data;
	int use_srq;		/* receives come from SRQ srqn (W7) */
	uint32_t srqn;
};

struct rnic_wq_geom {
	void *buf;		/* ring start */
	uint32_t entries;	/* power of two */
	unsigned int log_size;
	unsigned int log_stride;	/* 6, 7 or 8 */
	uint32_t max_sge;	/* data segments that fit a WQE */
	uint32_t max_inline;	/* SQ: inline bytes that fit every inline-capable WQE */
	uint64_t iova;
};

struct rnic_qp {
	uint32_t qpn;
	enum ibv_qp_type type;
	enum ibv_qp_state state;	/* as last written to the hardware */
	struct rnic_wq_geom sq, rq;
	struct rnic_dbrec *dbrec;
	uint64_t dbrec_iova;
	struct rnic_buf buf;	/* SQ ring | RQ ring | doorbell-record page */

	/* Attributes as last set by rnic_qp_modify() (for query) */
	struct ibv_qp_attr attr;
	struct rnic_qp_ctx ctx;	/* context as last written (flags cleared) */
};

/*
 * Allocate a QPN and the rings, and write the context in state RESET.
 *
 * SQ stride: the smallest of 64, 128, 256 bytes that holds the largest
 * WQE the QP type can build with the requested SGEs or inline data
 * (control segment, the opcode's address segments, then the data segments
 * or the inline segment; docs/formats.md). EINVAL if that exceeds 256
 * bytes. The geometry reports what really fits: sq.max_sge and
 * sq.max_inline may exceed the request.
 */
int rnic_qp_create(struct rnic_dev *dev, const struct rnic_qp_init *init,
		   struct rnic_qp *qp);

/* Send WQE sizes, in 16-byte segments, as rnic_qp_create() sizes them. */
static inline unsigned int rnic_inline_segs(uint32_t len)
{
	return len ? (RNIC_INLINE_HDR + len + RNIC_SEG_SIZE - 1) / RNIC_SEG_SIZE : 0;
}

/* The QP state machine of RC, UC and UD QPs (IBA 11.2.5 / ibv_modify_qp(3),
 * the masks of the kernel's ib_modify_qp_is_ok()): checks the transition
 * and the attribute mask, validates the attributes, resolves the RoCE
 * address, writes the whole context with QP_WRITE and the flags of the
 * transition. EINVAL on an illegal transition, mask or attribute. On success
 * qp->state, qp->attr and qp->ctx are updated. */
int rnic_qp_modify(struct rnic_dev *dev, struct rnic_qp *qp,
		   const struct ibv_qp_attr *attr, int mask);

/* QP_QUERY: the state and PSNs as the hardware sees them. */
int rnic_qp_query_hw(struct rnic_dev *dev, const struct rnic_qp *qp,
		     enum ibv_qp_state *state, uint32_t *sq_psn, uint32_t *rq_psn);

/* QP_QUERY: whether a send WQE the hardware took has not completed yet (in
 * SQD: the SQ is still draining). */
int rnic_qp_query_draining(struct rnic_dev *dev, const struct rnic_qp *qp,
			   int *draining);

/* Write the context in state RESET (clearing the queues), unmap, free the
 * QPN; always releases the resources. */
int rnic_qp_destroy(struct rnic_dev *dev, struct rnic_qp *qp);

/* Legal-transition check of an RC QP only (used by tests): 0 or EINVAL. */
int rnic_qp_check_transition(enum ibv_qp_state cur, enum ibv_qp_state next,
			     int mask);

/* QPN allocation (rotating, 2..NQp-1); used by rnic_qp_create(). */
int rnic_qpn_alloc(struct rnic_dev *dev, uint32_t *qpn);
void rnic_qpn_free(struct rnic_dev *dev, uint32_t qpn);

/* UDP source port of a QP's RoCEv2 packets. */
static inline uint16_t rnic_qp_udp_sport(uint32_t qpn)
{
	return 0xc000 | (qpn & 0x3fff);
}

/* Doorbells of the data path (caller writes the doorbell record first). */
static inline void rnic_ring_sq(struct rnic_dev *dev, uint32_t qpn, uint16_t pi)
{
	rnic_sim_mmio_write(dev->sim, dev->node, RNIC_REG_SQ_DB, rnic_db_wq(qpn, pi));
}

static inline void rnic_ring_rq(struct rnic_dev *dev, uint32_t qpn, uint16_t pi)
{
	rnic_sim_mmio_write(dev->sim, dev->node, RNIC_REG_RQ_DB, rnic_db_wq(qpn, pi));
}

static inline void rnic_ring_srq(struct rnic_dev *dev, uint32_t srqn, uint16_t pi)
{
	rnic_sim_mmio_write(dev->sim, dev->node, RNIC_REG_SRQ_DB, rnic_db_srq(srqn, pi));
}

#endif /* RNIC_DRV_H */
