/* SPDX-License-Identifier: MIT */
/*
 * rnic_verbs.h - private structures of the verbs library (libibverbs.so.1
 * stand-in for the simulated RNIC). The public API and ABI are Debian's
 * <infiniband/verbs.h> (rdma-core 44); nothing here is visible to programs.
 */
#ifndef RNIC_VERBS_H
#define RNIC_VERBS_H

#include <endian.h>
#include <errno.h>
#include <pthread.h>
#include <stddef.h>
#include <stdint.h>

#include <infiniband/verbs.h>

#include "rnic_drv.h"

/* Exported symbols; everything else is hidden (-fvisibility=hidden) and the
 * version script (libibverbs.map) picks the version node of each. */
#define RV_EXPORT __attribute__((visibility("default")))
/* Library-internal data: accessed without a GOT load. */
#define RV_HIDDEN __attribute__((visibility("hidden")))

#define likely(x)	__builtin_expect(!!(x), 1)
#define unlikely(x)	__builtin_expect(!!(x), 0)

#define rv_container_of(ptr, type, member) \
	((type *)((uint8_t *)(ptr) - offsetof(type, member)))

/* Cycles the model may run while ibv_poll_cq() finds the CQ empty. */
#define RV_POLL_WAIT_CYCLES	256
/* Nominal core clock (docs/time-model.md): 1 ms of simulated time. */
#define RV_CYCLES_PER_MS	250000ULL
/* A receive SGE of length 0 holds 2^31 bytes (rdmamojo ibv_post_recv). */
#define RV_SGE_LEN0		0x80000000u

struct rv_device {
	struct ibv_device ibdev;
	unsigned int node;
};

struct rv_qp;
struct rv_mw;

struct rv_context {
	struct verbs_context vctx;	/* ends with struct ibv_context */
	struct rnic_dev *dev;
	struct rnic_sim *sim;
	unsigned int node;
	struct rv_qp **qp_table;	/* QPN -> QP, n_qp entries */
	uint32_t qp_table_size;
	struct rv_context *next;	/* list of open contexts */
	struct rv_mw *mws;		/* memory windows, under rnic_lock */
	int async_wfd;			/* write end of async_fd's pipe */
};

/* A completion channel: channel.fd is the read end of a pipe the library
 * writes struct ib_uverbs_comp_event_desc records into (events.c). */
struct rv_channel {
	struct ibv_comp_channel ibch;
	int wfd;			/* write end */
	unsigned int node;
};

struct rv_pd {
	struct ibv_pd ibpd;
	uint32_t pdn;
	unsigned int refcnt;		/* MRs and QPs using it */
};

struct rv_mr {
	struct ibv_mr ibmr;
	struct rnic_mr hw;
	struct rv_pd *pd;
	unsigned int mw_bound;		/* windows bound in it (ibv_dereg_mr: EBUSY) */
};

struct rv_mw {
	struct ibv_mw ibmw;
	struct rnic_mw hw;
	struct rv_pd *pd;
	struct rv_mr *mr;		/* MR of the last bind posted, NULL if unbound */
	struct rv_mw *next;		/* the context's list */
};

/* Address handle: where a UD send goes (UD address segments). */
struct rv_ah {
	struct ibv_ah ibah;
	uint32_t ip;			/* destination IPv4, first octet in [31:24] */
	uint64_t mac;			/* destination MAC, byte 0 in [47:40] */
	struct ibv_ah_attr attr;
};

struct rv_cq {
	union {
		struct ibv_cq ibcq;
		struct ibv_cq_ex ibcq_ex;
	};
	/* Hot fields of ibv_poll_cq() first */
	struct rnic_cqe *ring;
	/* The consumer index (free running, LE) lives in the CQ's doorbell
	 * record, where the hardware reads it to detect an overrun: polling
	 * loads it once and stores it once per call. */
	struct rnic_cq_dbrec *dbrec;
	uint32_t mask;
	unsigned int log_size;
	uint32_t qp_table_size;
	struct rv_qp **qp_table;	/* the context's QPN -> QP table */
	struct rnic_sim *sim;
	unsigned int node;
	unsigned int refcnt;		/* QPs using it */
	struct rv_context *ctx;
	struct rnic_cq hw;
	/* ibv_start_poll() .. ibv_end_poll() (cq_ex.c) */
	uint32_t ex_ci;			/* consumer index, into dbrec at end_poll */
	struct rnic_cqe *cur;		/* CQE being read */
	uint64_t cur_ts;		/* cycle it was found */
	uint64_t wc_flags;		/* IBV_WC_EX_WITH_* asked at creation */
	int locked;			/* start/end poll take ex_lock */
	pthread_spinlock_t ex_lock;
	/* Events (events.c), under rnic_lock */
	struct rv_channel *channel;
	unsigned int comp_events_reported;	/* written into the channel */
	unsigned int async_events_reported;	/* written into async_fd */
};

/* Shared receive queue (srq.c). */
struct rv_srq {
	struct ibv_srq ibsrq;
	uint8_t *buf;
	uint32_t mask;
	unsigned int log_stride;
	uint32_t max_sge;
	uint16_t pi;			/* producer index, free running */
	uint8_t *busy;			/* by slot: posted, completion not yet polled */
	uint64_t *wrid;			/* wr_id by slot */
	struct rnic_sim *sim;
	unsigned int node;
	struct rv_context *ctx;
	struct rv_pd *pd;
	unsigned int refcnt;		/* QPs attached */
	unsigned int events_reported;	/* written into async_fd */
	struct rnic_srq hw;
};

/* Software side of a send or receive queue. */
struct rv_wq {
	uint8_t *buf;
	uint32_t entries;
	uint32_t mask;
	unsigned int log_stride;
	uint32_t max_sge;
	uint16_t pi;			/* producer index, free running */
	uint16_t tail;			/* first WQE not yet completed */
	uint64_t *wrid;			/* wr_id by WQE index mod entries */
	uint32_t *tl;			/* timeline record + 1 by slot, or NULL */
};

/* The opcodes of ibv_send_wr the send path knows: IBV_WR_RDMA_WRITE (0) ..
 * IBV_WR_SEND_WITH_INV (9). */
#define RV_NR_OPS	(IBV_WR_SEND_WITH_INV + 1)

/* A BIND_MW of a batch, applied to the window at ibv_wr_complete(). */
struct rv_wr_bind {
	struct ibv_mw *mw;
	uint32_t rkey;
	struct ibv_mw_bind_info bi;
};

/* State of an ibv_wr_start() .. ibv_wr_complete()/abort() batch (wr.c). */
struct rv_wr_batch {
	uint8_t *wqe;			/* WQE being built, NULL if none */
	uint16_t start;			/* sq.pi at ibv_wr_start() */
	uint16_t pi;			/* index of the next WQE of the batch */
	uint8_t op;			/* enum ibv_wr_opcode of wqe */
	uint8_t nseg;			/* its segments so far */
	uint8_t data_set;		/* a data setter was called for it */
	uint8_t ud_set;			/* ibv_wr_set_ud_addr() was called for it */
	int err;			/* first error of the batch */
	uint32_t ops;			/* send_ops_flags given at creation */
	unsigned int nmw;		/* BIND_MW and LOCAL_INV WQEs in the batch */
	struct rv_wr_bind *binds;	/* by SQ slot, if BIND_MW is in ops */
	pthread_spinlock_t lock;
};

struct rv_qp {
	struct ibv_qp_ex ibqpx;		/* starts with struct ibv_qp */
	/* Hot fields of ibv_post_send()/ibv_post_recv() first */
	struct rv_wq sq;
	struct rv_wq rq;
	uint8_t sig_all;		/* RNIC_WQE_F_SIGNALED if sq_sig_all */
	/* Per opcode: 1 + the data segments it may have (num_sge limit), 0
	 * if the QP type does not take it; fast_lim: the same for the
	 * opcodes of the fast path of ibv_post_send(), 0 for the others. */
	uint32_t fast_lim[RV_NR_OPS];
	uint8_t op_lim[RV_NR_OPS];
	/* Per IBV_SEND_FENCE|SIGNALED|SOLICITED combination: the WQE flags
	 * (with sq_sig_all) as they sit in control word 0. */
	uint64_t ctrl_flags[8];
	uint32_t qpn;
	struct rnic_dbrec *dbrec;
	struct rnic_sim *sim;
	unsigned int node;
	/* Per opcode: control word 0 without flags, index and data segments:
	 * the WQE opcode and ds counting the control and address segments. */
	uint64_t ctrl0[RV_NR_OPS];
	uint32_t max_inline;		/* inline bytes that fit a WQE */
	enum ibv_qp_type type;
	struct rv_context *ctx;
	struct rv_cq *scq;
	struct rv_cq *rcq;
	struct rv_pd *pd;
	int sq_sig_all;
	int has_qp_ex;			/* created with IBV_QP_INIT_ATTR_SEND_OPS_FLAGS */
	struct rv_srq *srq;		/* receives come from it (rq.wrid is its table) */
	unsigned int events_reported;	/* async events written into async_fd */
	struct rv_wr_batch wr;
	struct rnic_qp hw;
};

static inline struct rv_context *to_rv_ctx(struct ibv_context *c)
{
	return rv_container_of(c, struct rv_context, vctx.context);
}

static inline struct rv_pd *to_rv_pd(struct ibv_pd *p)
{
	return rv_container_of(p, struct rv_pd, ibpd);
}

static inline struct rv_mr *to_rv_mr(struct ibv_mr *m)
{
	return rv_container_of(m, struct rv_mr, ibmr);
}

static inline struct rv_cq *to_rv_cq(struct ibv_cq *c)
{
	return rv_container_of(c, struct rv_cq, ibcq);
}

static inline struct rv_qp *to_rv_qp(struct ibv_qp *q)
{
	return rv_container_of(q, struct rv_qp, ibqpx.qp_base);
}

static inline struct rv_qp *qpx_to_rv_qp(struct ibv_qp_ex *q)
{
	return rv_container_of(q, struct rv_qp, ibqpx);
}

static inline struct rv_mw *to_rv_mw(struct ibv_mw *m)
{
	return rv_container_of(m, struct rv_mw, ibmw);
}

static inline struct rv_ah *to_rv_ah(struct ibv_ah *a)
{
	return rv_container_of(a, struct rv_ah, ibah);
}

static inline struct rv_srq *to_rv_srq(struct ibv_srq *s)
{
	return rv_container_of(s, struct rv_srq, ibsrq);
}

static inline struct rv_channel *to_rv_channel(struct ibv_comp_channel *c)
{
	return rv_container_of(c, struct rv_channel, ibch);
}

/* device.c */
extern struct rv_context *rv_contexts RV_HIDDEN;	/* open contexts, under rnic_lock */

/* cq.c, cq_ex.c */
int rv_req_notify_cq(struct ibv_cq *cq, int solicited_only);
int rv_modify_cq(struct ibv_cq *cq, struct ibv_modify_cq_attr *attr);
void rv_cq_clean(struct rv_cq *cq, struct rv_qp *qp);
int rv_cq_init(struct rv_context *ctx, struct rv_cq *cq, uint32_t cqe,
	       void *cq_context, struct ibv_comp_channel *channel);
struct ibv_cq_ex *rv_create_cq_ex(struct ibv_context *context,
				  struct ibv_cq_init_attr_ex *attr);

/* qp.c */
struct ibv_qp *rv_create_qp_ex(struct ibv_context *context,
			       struct ibv_qp_init_attr_ex *attr);

/* wr.c: the ibv_wr_* interface of a QP created with send_ops_flags. */
uint32_t rv_qp_send_ops(enum ibv_qp_type type);
int rv_wr_init(struct rv_qp *qp, uint32_t send_ops);
void rv_wr_fini(struct rv_qp *qp);

/* mw.c */
struct ibv_mw *rv_alloc_mw(struct ibv_pd *pd, enum ibv_mw_type type);
int rv_dealloc_mw(struct ibv_mw *mw);
int rv_bind_mw(struct ibv_qp *qp, struct ibv_mw *mw, struct ibv_mw_bind *mw_bind);
int rv_mw_bind_check(struct rv_qp *qp, struct ibv_mw *mw, uint32_t rkey,
		     const struct ibv_mw_bind_info *bi);
void rv_mw_bound(struct ibv_mw *mw, uint32_t rkey, const struct ibv_mw_bind_info *bi);
void rv_mw_invalidated(struct rv_context *ctx, uint32_t rkey);

/* post_send.c, post_recv.c, poll_cq.c */
void rv_sq_ops_init(struct rv_qp *qp);
int rv_post_send(struct ibv_qp *qp, struct ibv_send_wr *wr,
		 struct ibv_send_wr **bad_wr);
int rv_post_recv(struct ibv_qp *qp, struct ibv_recv_wr *wr,
		 struct ibv_recv_wr **bad_wr);
int rv_post_srq_recv(struct ibv_srq *srq, struct ibv_recv_wr *wr,
		     struct ibv_recv_wr **bad_wr);
int rv_poll_cq(struct ibv_cq *cq, int num_entries, struct ibv_wc *wc);

/* srq.c */
void rv_srq_slot_done(struct rv_srq *srq, uint16_t idx);

/*
 * events.c: the event queue, asynchronous events, completion channels and
 * the simulated time of blocking waits on their file descriptors.
 *
 * rv_cqe_hook: ibv_poll_cq() calls rv_cqe_hooked() for every CQE it takes
 * while it is set (timeline on, or QPs on SRQs exist), so neither costs
 * anything otherwise. rv_ev_work: event-queue interrupts whose records are
 * not processed yet; rv_ev_process() (rnic lock held, not a leaf holder)
 * does it at the library's safe points.
 */
extern int rv_cqe_hook RV_HIDDEN;
extern int rv_ev_work RV_HIDDEN;
extern unsigned long rv_fd_gen RV_HIDDEN;	/* records written into our pipes */
/* @srq_qps: QPs on SRQs created (+1) or destroyed (-1), or 0. */
void rv_cqe_hook_update(int srq_qps);
void rv_cqe_hooked(struct rv_qp *qp, struct rv_wq *wq, uint16_t idx);
void rv_ev_setup(struct rnic_sim *sim);
int rv_ev_ctx_open(struct rv_context *ctx);
void rv_ev_ctx_close(struct rv_context *ctx);
void rv_ev_process(void);
/* Fabric processes: the thread that runs the nodes meanwhile (simthread.c). */
void rv_simthread_start(struct rnic_sim *sim);
void rv_ev_poll_point(void);
void rv_ev_cq_add(struct rv_cq *cq);
void rv_ev_cq_remove(struct rv_cq *cq);
void rv_ev_srq_add(struct rv_srq *srq);
void rv_ev_srq_remove(struct rv_srq *srq);
void rv_ev_qp_forget(struct rv_qp *qp);
int rv_fd_register(int fd, unsigned int node);
void rv_fd_unregister(int fd);
int rv_pipe(int *rfd, int *wfd);
/* Blocking-wait rule for one of our fds: lets the simulation run until @fd
 * is readable, for at most @budget cycles (0: RV_POLL_WAIT_CYCLES once). */
void rv_ev_wait_fd(int fd, unsigned int node, uint64_t budget);
uint64_t rv_ev_wait_cap(void);

/* timeline.c: per-WR cycle records when RNIC_TIMELINE is set. */
enum rv_tl_op {
	RV_TL_SEND,
	RV_TL_SEND_IMM,
	RV_TL_WRITE,
	RV_TL_WRITE_IMM,
	RV_TL_READ,
	RV_TL_CMP_SWAP,
	RV_TL_FETCH_ADD,
	RV_TL_SEND_INV,
	RV_TL_LOCAL_INV,
	RV_TL_BIND_MW,
	RV_TL_RECV,
};

extern int rv_tl_enabled RV_HIDDEN;

/* Library choices for experiments (knobs.c): 0 = off. */
extern unsigned int rv_inline_threshold RV_HIDDEN;
extern unsigned int rv_db_batch RV_HIDDEN;
extern unsigned int rv_blueflame RV_HIDDEN;
/* rv_db_batch or rv_blueflame: the doorbell is not the plain one (one test
 * in the fast path). */
extern unsigned int rv_sq_ring_other RV_HIDDEN;
void rv_sq_ring_batched(struct rv_qp *qp, uint16_t start, uint16_t end) RV_HIDDEN;
void rv_sq_ring_bf(struct rv_qp *qp, uint16_t idx) RV_HIDDEN;
void rv_tl_setup(struct rnic_sim *sim);
int rv_tl_qp_init(struct rv_qp *qp);
void rv_tl_qp_fini(struct rv_qp *qp);
void rv_tl_post(struct rv_qp *qp, struct rv_wq *wq, uint16_t idx,
		enum rv_tl_op op, uint64_t bytes);
void rv_tl_polled(struct rv_wq *wq, uint16_t idx);
void rv_tl_ctx_close(struct rv_context *ctx);

#endif /* RNIC_VERBS_H */
