// SPDX-License-Identifier: MIT
/*
 * cq_ex.c - ibv_create_cq_ex() and the polling interface of struct
 * ibv_cq_ex: ibv_start_poll(), ibv_next_poll(), ibv_end_poll() and the
 * ibv_wc_read_*() functions.
 *
 * wc_flags a CQ can be created with: IBV_WC_STANDARD_FLAGS (byte_len, imm,
 * qp_num, src_qp, slid, sl, dlid_path_bits) and
 * IBV_WC_EX_WITH_COMPLETION_TIMESTAMP; any other flag (CVLAN, FLOW_TAG,
 * TM_INFO, COMPLETION_TIMESTAMP_WALLCLOCK) fails creation with EOPNOTSUPP,
 * as mlx5 does for what it cannot provide.
 *
 * The completion timestamp is in cycles of the RNIC core clock
 * (hca_core_clock of ibv_query_device_ex(), 250 MHz): the simulated cycle at
 * which ibv_start_poll()/ibv_next_poll() found the CQE. Polling lets the
 * model run only until a DMA write of the node becomes visible
 * (poll_cq.c), so this is the cycle the CQE was written when software
 * polls an empty CQ, and later when CQEs wait in the ring.
 *
 * ibv_start_poll() on an empty CQ runs the model for up to 256 cycles, as
 * ibv_poll_cq() does, and returns ENOENT if it is still empty (then
 * ibv_end_poll() must not be called); ibv_next_poll() returns ENOENT at once.
 * start..end is a critical section per CQ (a spinlock, none with
 * IBV_CREATE_CQ_ATTR_SINGLE_THREADED); the rnic lock is only held inside
 * each call, so ibv_post_send()/ibv_post_recv() may be called in between.
 */
#include <stdlib.h>
#include <string.h>

#include "cqe.h"

#define RV_WC_EX_FLAGS	((uint64_t)IBV_WC_STANDARD_FLAGS |			\
			 IBV_WC_EX_WITH_COMPLETION_TIMESTAMP)

static inline struct rv_cq *to_rv_cq_ex(struct ibv_cq_ex *c)
{
	return rv_container_of(c, struct rv_cq, ibcq_ex);
}

/* Take the next CQE into cq->cur and the status/wr_id fields (rnic lock
 * held): 0 or ENOENT. */
static int rv_ex_take(struct rv_cq *cq)
{
	struct rnic_cqe *cqe;
	struct rv_qp *qp;
	uint32_t qpn;

	cqe = rv_cqe_next(cq, &cq->ex_ci, &cq->ibcq_ex.wr_id, &qp, &qpn);
	if (!cqe)
		return ENOENT;
	if (unlikely(rv_cqe_is_special(cqe->status, cqe->flags)))
		rv_cqe_special(cq, qp, cqe);
	cq->cur = cqe;
	cq->ibcq_ex.status = (enum ibv_wc_status)cqe->status;
	if (cq->wc_flags & IBV_WC_EX_WITH_COMPLETION_TIMESTAMP)
		cq->cur_ts = rnic_sim_cycle(cq->sim);
	return 0;
}

static int rv_start_poll(struct ibv_cq_ex *ibcq, struct ibv_poll_cq_attr *attr)
{
	struct rv_cq *cq = to_rv_cq_ex(ibcq);
	int ret;

	if (attr && attr->comp_mask)
		return EINVAL;
	if (cq->locked)
		pthread_spin_lock(&cq->ex_lock);
	rnic_lock_leaf();
	/* The doorbell record keeps the index the hardware may rely on until
	 * ibv_end_poll(): the CQEs being read stay untouched meanwhile. */
	cq->ex_ci = le32toh(cq->dbrec->ci);
	ret = rv_ex_take(cq);
	if (ret) {
		rnic_sim_wait(cq->sim, cq->node, RV_POLL_WAIT_CYCLES);
		ret = rv_ex_take(cq);
	}
	rnic_unlock_leaf();
	if (ret) {
		if (cq->locked)
			pthread_spin_unlock(&cq->ex_lock);
		if (unlikely(rv_ev_work))
			rv_ev_poll_point();
	}
	return ret;
}

static int rv_next_poll(struct ibv_cq_ex *ibcq)
{
	struct rv_cq *cq = to_rv_cq_ex(ibcq);
	int ret;

	rnic_lock_leaf();
	ret = rv_ex_take(cq);
	rnic_unlock_leaf();
	return ret;
}

static void rv_end_poll(struct ibv_cq_ex *ibcq)
{
	struct rv_cq *cq = to_rv_cq_ex(ibcq);

	/* The CQEs of this poll are read: the hardware may reuse their slots
	 * (the model runs only inside rnic_sim_* calls, under the lock). */
	__atomic_store_n(&cq->dbrec->ci, htole32(cq->ex_ci), __ATOMIC_RELEASE);
	cq->cur = NULL;
	if (cq->locked)
		pthread_spin_unlock(&cq->ex_lock);
}

static enum ibv_wc_opcode rv_read_opcode(struct ibv_cq_ex *ibcq)
{
	return (enum ibv_wc_opcode)to_rv_cq_ex(ibcq)->cur->opcode;
}

static uint32_t rv_read_vendor_err(struct ibv_cq_ex *ibcq)
{
	return to_rv_cq_ex(ibcq)->cur->vendor_err;
}

static uint32_t rv_read_byte_len(struct ibv_cq_ex *ibcq)
{
	return le32toh(to_rv_cq_ex(ibcq)->cur->byte_len);
}

/* The immediate data as received (network order); with IBV_WC_WITH_INV the
 * invalidated rkey in host order (ibv_wc_read_invalidated_rkey() returns
 * this function's value as it is). */
static __be32 rv_read_imm_data(struct ibv_cq_ex *ibcq)
{
	const struct rnic_cqe *cqe = to_rv_cq_ex(ibcq)->cur;
	__be32 v;

	if (cqe->flags & RNIC_CQE_F_INV) {
		uint32_t rkey = le32toh(cqe->imm);

		memcpy(&v, &rkey, sizeof(v));
		return v;
	}
	memcpy(&v, &cqe->imm, sizeof(v));
	return v;
}

static uint32_t rv_read_qp_num(struct ibv_cq_ex *ibcq)
{
	return le32toh(to_rv_cq_ex(ibcq)->cur->qpn) & 0xffffff;
}

static uint32_t rv_read_src_qp(struct ibv_cq_ex *ibcq)
{
	return le32toh(to_rv_cq_ex(ibcq)->cur->src_qp) & 0xffffff;
}

static unsigned int rv_read_wc_flags(struct ibv_cq_ex *ibcq)
{
	return rv_wc_flags[to_rv_cq_ex(ibcq)->cur->flags & 7];
}

/* RoCE: no LIDs, one SL. */
static uint32_t rv_read_slid(struct ibv_cq_ex *ibcq)
{
	(void)ibcq;
	return 0;
}

static uint8_t rv_read_sl(struct ibv_cq_ex *ibcq)
{
	(void)ibcq;
	return 0;
}

static uint8_t rv_read_dlid_path_bits(struct ibv_cq_ex *ibcq)
{
	(void)ibcq;
	return 0;
}

static uint64_t rv_read_completion_ts(struct ibv_cq_ex *ibcq)
{
	return to_rv_cq_ex(ibcq)->cur_ts;
}

struct ibv_cq_ex *rv_create_cq_ex(struct ibv_context *context,
				  struct ibv_cq_init_attr_ex *attr)
{
	struct rv_context *ctx = to_rv_ctx(context);
	uint32_t flags = 0;
	struct ibv_cq_ex *x;
	struct rv_cq *cq;
	int ret;

	if (attr->comp_mask & ~(uint32_t)IBV_CQ_INIT_ATTR_MASK_FLAGS) {
		errno = EOPNOTSUPP;	/* parent domains */
		return NULL;
	}
	if (attr->comp_mask & IBV_CQ_INIT_ATTR_MASK_FLAGS)
		flags = attr->flags;
	if ((attr->wc_flags & ~RV_WC_EX_FLAGS) ||
	    (flags & ~(uint32_t)IBV_CREATE_CQ_ATTR_SINGLE_THREADED)) {
		errno = EOPNOTSUPP;
		return NULL;
	}
	if (attr->cqe < 1 || attr->cqe > RNIC_MAX_CQE ||
	    attr->comp_vector >= (uint32_t)context->num_comp_vectors) {
		errno = EINVAL;
		return NULL;
	}
	cq = calloc(1, sizeof(*cq));
	if (!cq) {
		errno = ENOMEM;
		return NULL;
	}
	ret = rv_cq_init(ctx, cq, attr->cqe, attr->cq_context, attr->channel);
	if (ret) {
		free(cq);
		errno = ret;
		return NULL;
	}
	cq->wc_flags = attr->wc_flags;
	cq->locked = !(flags & IBV_CREATE_CQ_ATTR_SINGLE_THREADED);
	if (cq->locked)
		pthread_spin_init(&cq->ex_lock, PTHREAD_PROCESS_PRIVATE);

	x = &cq->ibcq_ex;
	x->comp_mask = 0;
	x->start_poll = rv_start_poll;
	x->next_poll = rv_next_poll;
	x->end_poll = rv_end_poll;
	x->read_opcode = rv_read_opcode;
	x->read_vendor_err = rv_read_vendor_err;
	x->read_byte_len = rv_read_byte_len;
	x->read_imm_data = rv_read_imm_data;
	x->read_qp_num = rv_read_qp_num;
	x->read_src_qp = rv_read_src_qp;
	x->read_wc_flags = rv_read_wc_flags;
	x->read_slid = rv_read_slid;
	x->read_sl = rv_read_sl;
	x->read_dlid_path_bits = rv_read_dlid_path_bits;
	if (cq->wc_flags & IBV_WC_EX_WITH_COMPLETION_TIMESTAMP)
		x->read_completion_ts = rv_read_completion_ts;
	return x;
}
