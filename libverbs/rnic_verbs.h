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
#include <stddef.h>
#include <stdint.h>

#include <infiniband/verbs.h>

#include "rnic_drv.h"

/* Exported symbols; everything else is hidden (-fvisibility=hidden) and the
 * version script (libibverbs.map) picks the version node of each. */
#define RV_EXPORT __attribute__((visibility("default")))

#define likely(x)	__builtin_expect(!!(x), 1)
#define unlikely(x)	__builtin_expect(!!(x), 0)

#define rv_container_of(ptr, type, member) \
	((type *)((uint8_t *)(ptr) - offsetof(type, member)))

/* Cycles the model may run while ibv_poll_cq() finds the CQ empty. */
#define RV_POLL_WAIT_CYCLES	256

struct rv_device {
	struct ibv_device ibdev;
	unsigned int node;
};

struct rv_qp;

struct rv_context {
	struct verbs_context vctx;	/* ends with struct ibv_context */
	struct rnic_dev *dev;
	struct rnic_sim *sim;
	unsigned int node;
	struct rv_qp **qp_table;	/* QPN -> QP, n_qp entries */
	uint32_t qp_table_size;
	struct rv_context *next;	/* list of open contexts */
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
};

struct rv_cq {
	union {
		struct ibv_cq ibcq;
		struct ibv_cq_ex ibcq_ex;
	};
	/* Hot fields of ibv_poll_cq() first */
	struct rnic_cqe *ring;
	uint32_t ci;			/* consumer index, free running */
	uint32_t mask;
	unsigned int log_size;
	uint32_t qp_table_size;
	struct rv_qp **qp_table;	/* the context's QPN -> QP table */
	struct rnic_sim *sim;
	unsigned int node;
	unsigned int refcnt;		/* QPs using it */
	struct rv_context *ctx;
	struct rnic_cq hw;
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

struct rv_qp {
	struct ibv_qp_ex ibqpx;		/* starts with struct ibv_qp */
	/* Hot fields of ibv_post_send()/ibv_post_recv() first */
	struct rv_wq sq;
	struct rv_wq rq;
	uint8_t sig_all;		/* RNIC_WQE_F_SIGNALED if sq_sig_all */
	uint32_t qpn;
	struct rnic_dbrec *dbrec;
	struct rnic_sim *sim;
	unsigned int node;
	struct rv_context *ctx;
	struct rv_cq *scq;
	struct rv_cq *rcq;
	struct rv_pd *pd;
	int sq_sig_all;
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

/* device.c */
extern struct rv_context *rv_contexts;	/* open contexts, under rnic_lock */

/* cq.c */
int rv_req_notify_cq(struct ibv_cq *cq, int solicited_only);
void rv_cq_clean(struct rv_cq *cq, uint32_t qpn);

/* qp.c */
struct ibv_qp *rv_create_qp_ex(struct ibv_context *context,
			       struct ibv_qp_init_attr_ex *attr);

/* post_send.c, post_recv.c, poll_cq.c */
int rv_post_send(struct ibv_qp *qp, struct ibv_send_wr *wr,
		 struct ibv_send_wr **bad_wr);
int rv_post_recv(struct ibv_qp *qp, struct ibv_recv_wr *wr,
		 struct ibv_recv_wr **bad_wr);
int rv_post_srq_recv(struct ibv_srq *srq, struct ibv_recv_wr *wr,
		     struct ibv_recv_wr **bad_wr);
int rv_poll_cq(struct ibv_cq *cq, int num_entries, struct ibv_wc *wc);

/* timeline.c: per-WR cycle records when RNIC_TIMELINE is set. */
enum rv_tl_op {
	RV_TL_SEND,
	RV_TL_SEND_IMM,
	RV_TL_WRITE,
	RV_TL_WRITE_IMM,
	RV_TL_READ,
	RV_TL_CMP_SWAP,
	RV_TL_FETCH_ADD,
	RV_TL_RECV,
};

extern int rv_tl_enabled;
void rv_tl_setup(struct rnic_sim *sim);
int rv_tl_qp_init(struct rv_qp *qp);
void rv_tl_qp_fini(struct rv_qp *qp);
void rv_tl_post(struct rv_qp *qp, struct rv_wq *wq, uint16_t idx,
		enum rv_tl_op op, uint64_t bytes);
void rv_tl_polled(struct rv_wq *wq, uint16_t idx);
void rv_tl_ctx_close(struct rv_context *ctx);

#endif /* RNIC_VERBS_H */
