// SPDX-License-Identifier: MIT
/*
 * rnic_qp.c - QP rings, QP contexts and the QP state machine of RC, UC and
 * UD QPs.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "rnic_drv.h"

/* Responder/initiator RDMA READ depth accepted in modify (IBA allows up to
 * 255; formats.md has no context field for it yet, so it is only kept for
 * ibv_query_qp). */
#define RNIC_MAX_RD_ATOM	8	/* the hardware counts up to 15 */

/* ------------------------------------------------------------------------ */
/* State machine                                                            */
/* ------------------------------------------------------------------------ */

/* Index of a QP type in the attribute-mask tables. */
enum { QPT_I_RC, QPT_I_UC, QPT_I_UD, QPT_I_N };

static int qpt_index(enum ibv_qp_type t)
{
	switch (t) {
	case IBV_QPT_RC:
		return QPT_I_RC;
	case IBV_QPT_UC:
		return QPT_I_UC;
	case IBV_QPT_UD:
		return QPT_I_UD;
	default:
		return -1;
	}
}

struct rnic_qp_trans {
	uint8_t valid;
	uint8_t flags;		/* enum rnic_qp_ctx_flags written with the context */
	int req[QPT_I_N];	/* required attributes besides IBV_QP_STATE */
	int opt[QPT_I_N];	/* optional attributes */
};

#define RNIC_QPF_RESET_BOTH	(RNIC_QPF_RESET_SQ | RNIC_QPF_RESET_RQ)
#define TO_RESET		{ .valid = 1, .flags = RNIC_QPF_RESET_BOTH }
#define TO_ERR			{ .valid = 1 }
#define ALL3(m)			{ m, m, m }

/*
 * Legal transitions and their attribute masks per QP type (IBA table 91
 * and ibv_modify_qp(3); the same table the kernel's ib_modify_qp_is_ok()
 * uses). UC is RC without the READ/atomic, timeout and retry attributes;
 * UD needs the Q_Key at INIT, nothing at RTR and the SQ PSN at RTS.
 * SQD: RTS -> SQD stops the SQ after the WQEs it took (with
 * IBV_QP_EN_SQD_ASYNC_NOTIFY: IBV_EVENT_SQ_DRAINED once they completed),
 * SQD -> RTS lets it go on. SQE is entered by the hardware only (a UC/UD
 * send error); SQE -> RTS (UC, UD) lets the SQ go on.
 */
static const struct rnic_qp_trans rnic_qp_table[IBV_QPS_ERR + 1][IBV_QPS_ERR + 1] = {
	[IBV_QPS_RESET] = {
		[IBV_QPS_RESET] = TO_RESET,
		[IBV_QPS_INIT] = {
			.valid = 1,
			.flags = RNIC_QPF_RESET_BOTH,
			.req = {
				[QPT_I_RC] = IBV_QP_PKEY_INDEX | IBV_QP_PORT |
					     IBV_QP_ACCESS_FLAGS,
				[QPT_I_UC] = IBV_QP_PKEY_INDEX | IBV_QP_PORT |
					     IBV_QP_ACCESS_FLAGS,
				[QPT_I_UD] = IBV_QP_PKEY_INDEX | IBV_QP_PORT |
					     IBV_QP_QKEY,
			},
		},
	},
	[IBV_QPS_INIT] = {
		[IBV_QPS_RESET] = TO_RESET,
		[IBV_QPS_ERR] = TO_ERR,
		[IBV_QPS_INIT] = {
			.valid = 1,
			.opt = {
				[QPT_I_RC] = IBV_QP_PKEY_INDEX | IBV_QP_PORT |
					     IBV_QP_ACCESS_FLAGS,
				[QPT_I_UC] = IBV_QP_PKEY_INDEX | IBV_QP_PORT |
					     IBV_QP_ACCESS_FLAGS,
				[QPT_I_UD] = IBV_QP_PKEY_INDEX | IBV_QP_PORT |
					     IBV_QP_QKEY,
			},
		},
		[IBV_QPS_RTR] = {
			.valid = 1,
			.flags = RNIC_QPF_LOAD_RQ_PSN,
			.req = {
				[QPT_I_RC] = IBV_QP_AV | IBV_QP_PATH_MTU |
					     IBV_QP_DEST_QPN | IBV_QP_RQ_PSN |
					     IBV_QP_MAX_DEST_RD_ATOMIC |
					     IBV_QP_MIN_RNR_TIMER,
				[QPT_I_UC] = IBV_QP_AV | IBV_QP_PATH_MTU |
					     IBV_QP_DEST_QPN | IBV_QP_RQ_PSN,
			},
			.opt = {
				[QPT_I_RC] = IBV_QP_ALT_PATH | IBV_QP_ACCESS_FLAGS |
					     IBV_QP_PKEY_INDEX,
				[QPT_I_UC] = IBV_QP_ALT_PATH | IBV_QP_ACCESS_FLAGS |
					     IBV_QP_PKEY_INDEX,
				[QPT_I_UD] = IBV_QP_PKEY_INDEX | IBV_QP_QKEY,
			},
		},
	},
	[IBV_QPS_RTR] = {
		[IBV_QPS_RESET] = TO_RESET,
		[IBV_QPS_ERR] = TO_ERR,
		[IBV_QPS_RTS] = {
			.valid = 1,
			.flags = RNIC_QPF_LOAD_SQ_PSN,
			.req = {
				[QPT_I_RC] = IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT |
					     IBV_QP_RNR_RETRY | IBV_QP_SQ_PSN |
					     IBV_QP_MAX_QP_RD_ATOMIC,
				[QPT_I_UC] = IBV_QP_SQ_PSN,
				[QPT_I_UD] = IBV_QP_SQ_PSN,
			},
			.opt = {
				[QPT_I_RC] = IBV_QP_CUR_STATE | IBV_QP_ALT_PATH |
					     IBV_QP_ACCESS_FLAGS | IBV_QP_MIN_RNR_TIMER |
					     IBV_QP_PATH_MIG_STATE,
				[QPT_I_UC] = IBV_QP_CUR_STATE | IBV_QP_ALT_PATH |
					     IBV_QP_ACCESS_FLAGS | IBV_QP_PATH_MIG_STATE,
				[QPT_I_UD] = IBV_QP_CUR_STATE | IBV_QP_QKEY,
			},
		},
	},
	[IBV_QPS_RTS] = {
		[IBV_QPS_RESET] = TO_RESET,
		[IBV_QPS_ERR] = TO_ERR,
		[IBV_QPS_SQD] = {
			.valid = 1,
			.opt = ALL3(IBV_QP_EN_SQD_ASYNC_NOTIFY),
		},
		[IBV_QPS_RTS] = {
			.valid = 1,
			.opt = {
				[QPT_I_RC] = IBV_QP_CUR_STATE | IBV_QP_ACCESS_FLAGS |
					     IBV_QP_ALT_PATH | IBV_QP_PATH_MIG_STATE |
					     IBV_QP_MIN_RNR_TIMER,
				[QPT_I_UC] = IBV_QP_CUR_STATE | IBV_QP_ACCESS_FLAGS |
					     IBV_QP_ALT_PATH | IBV_QP_PATH_MIG_STATE,
				[QPT_I_UD] = IBV_QP_CUR_STATE | IBV_QP_QKEY,
			},
		},
	},
	[IBV_QPS_SQD] = {
		[IBV_QPS_RESET] = TO_RESET,
		[IBV_QPS_ERR] = TO_ERR,
		[IBV_QPS_RTS] = {
			.valid = 1,
			.opt = {
				[QPT_I_RC] = IBV_QP_CUR_STATE | IBV_QP_ACCESS_FLAGS |
					     IBV_QP_ALT_PATH | IBV_QP_PATH_MIG_STATE |
					     IBV_QP_MIN_RNR_TIMER,
				[QPT_I_UC] = IBV_QP_CUR_STATE | IBV_QP_ACCESS_FLAGS |
					     IBV_QP_ALT_PATH | IBV_QP_PATH_MIG_STATE,
				[QPT_I_UD] = IBV_QP_CUR_STATE | IBV_QP_QKEY,
			},
		},
		[IBV_QPS_SQD] = {
			.valid = 1,
			.opt = {
				[QPT_I_RC] = IBV_QP_CUR_STATE | IBV_QP_AV | IBV_QP_ALT_PATH |
					     IBV_QP_ACCESS_FLAGS | IBV_QP_PKEY_INDEX |
					     IBV_QP_MIN_RNR_TIMER | IBV_QP_PATH_MIG_STATE |
					     IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT |
					     IBV_QP_RNR_RETRY | IBV_QP_MAX_QP_RD_ATOMIC |
					     IBV_QP_MAX_DEST_RD_ATOMIC,
				[QPT_I_UC] = IBV_QP_CUR_STATE | IBV_QP_AV | IBV_QP_ALT_PATH |
					     IBV_QP_ACCESS_FLAGS | IBV_QP_PKEY_INDEX |
					     IBV_QP_PATH_MIG_STATE,
				[QPT_I_UD] = IBV_QP_PKEY_INDEX | IBV_QP_QKEY,
			},
		},
	},
	[IBV_QPS_SQE] = {
		[IBV_QPS_RESET] = TO_RESET,
		[IBV_QPS_ERR] = TO_ERR,
		/* UC and UD only (an RC send error goes to ERR): qp_trans() */
		[IBV_QPS_RTS] = {
			.valid = 1,
			.flags = RNIC_QPF_RESUME_SQ,
			.opt = {
				[QPT_I_UC] = IBV_QP_CUR_STATE | IBV_QP_ACCESS_FLAGS,
				[QPT_I_UD] = IBV_QP_CUR_STATE | IBV_QP_QKEY,
			},
		},
	},
	[IBV_QPS_ERR] = {
		[IBV_QPS_RESET] = TO_RESET,
		[IBV_QPS_ERR] = TO_ERR,
	},
};

static const struct rnic_qp_trans *qp_trans(enum ibv_qp_type type,
					    enum ibv_qp_state cur,
					    enum ibv_qp_state next, int mask)
{
	const struct rnic_qp_trans *t;
	int ti = qpt_index(type);

	if (ti < 0 || (unsigned int)cur > IBV_QPS_ERR || (unsigned int)next > IBV_QPS_ERR)
		return NULL;
	t = &rnic_qp_table[cur][next];
	if (!t->valid || (cur == IBV_QPS_SQE && ti == QPT_I_RC))
		return NULL;
	if ((mask & t->req[ti]) != t->req[ti])
		return NULL;
	if (mask & ~(t->req[ti] | t->opt[ti] | IBV_QP_STATE))
		return NULL;
	return t;
}

int rnic_qp_check_transition(enum ibv_qp_state cur, enum ibv_qp_state next,
			     int mask)
{
	return qp_trans(IBV_QPT_RC, cur, next, mask) ? 0 : EINVAL;
}

/* ------------------------------------------------------------------------ */
/* Rings                                                                    */
/* ------------------------------------------------------------------------ */

static unsigned int log2_up(uint32_t v)
{
	unsigned int l = 0;

	while ((1u << l) < v)
		l++;
	return l;
}

static size_t page_up(size_t v)
{
	return (v + RNIC_PAGE_SIZE - 1) & ~(size_t)(RNIC_PAGE_SIZE - 1);
}

/* Stride of a WQE of @bytes: 64, 128 or 256 (the caller checks <= 256). */
static unsigned int wqe_log_stride(uint32_t bytes)
{
	unsigned int l = log2_up(bytes);

	return l < RNIC_LOG_WQE_BB ? RNIC_LOG_WQE_BB : l;
}

static int qp_push(struct rnic_dev *dev, uint32_t qpn, const struct rnic_qp_ctx *c)
{
	uint64_t w[RNIC_QP_CTX_WORDS];

	rnic_qp_ctx_pack(c, w);
	return rnic_cmd(dev, RNIC_CMD_QP_WRITE, qpn, w, RNIC_QP_CTX_WORDS, NULL, 0);
}

/*
 * Largest send WQE of a QP type, in 16-byte segments, with @sge data
 * segments or @inl inline bytes: the control segment, then
 *   RC/UC: remote address (WRITE/READ; SEND has none), and for RC atomics
 *          remote address + atomic + their one data segment; BIND_MW has
 *          bind A + bind B;
 *   UD:    UD address A + B.
 */
static unsigned int sq_wqe_segs(enum ibv_qp_type type, uint32_t sge, uint32_t inl)
{
	unsigned int addr = type == IBV_QPT_UD ? 2 : 1;
	unsigned int data = sge > rnic_inline_segs(inl) ? sge : rnic_inline_segs(inl);
	unsigned int n = 1 + addr + data;

	if (type == IBV_QPT_RC && n < 1 + 2 + 1)
		n = 1 + 2 + 1;		/* atomic */
	if (type != IBV_QPT_UD && n < 1 + 2)
		n = 1 + 2;		/* BIND_MW */
	return n;
}

int rnic_qp_create(struct rnic_dev *dev, const struct rnic_qp_init *init,
		   struct rnic_qp *qp)
{
	uint32_t max_sge = dev->caps.max_sge;
	size_t sq_bytes, rq_bytes;
	struct rnic_qp_ctx *c = &qp->ctx;
	unsigned int addr_segs, segs, inl;
	uint8_t *base;
	int ret;

	if (init->type != IBV_QPT_RC && init->type != IBV_QPT_UC &&
	    init->type != IBV_QPT_UD)
		return EOPNOTSUPP;
	if (init->max_send_wr > RNIC_MAX_QP_WR || init->max_recv_wr > RNIC_MAX_QP_WR ||
	    init->max_send_sge > max_sge || init->max_recv_sge > max_sge ||
	    init->max_inline_data > RNIC_WQE_MAX_STRIDE)
		return EINVAL;
	if (init->scqn >= dev->caps.n_cq || init->rcqn >= dev->caps.n_cq ||
	    init->pdn > RNIC_MAX_PD || (init->use_srq && init->srqn >= dev->caps.n_qp))
		return EINVAL;

	memset(qp, 0, sizeof(*qp));
	qp->type = init->type;

	/* Send WQE: control + address segments + data or inline segments,
	 * in the smallest stride that holds the largest one. */
	segs = sq_wqe_segs(init->type, init->max_send_sge, init->max_inline_data);
	if (segs * RNIC_SEG_SIZE > RNIC_WQE_MAX_STRIDE)
		return EINVAL;
	addr_segs = init->type == IBV_QPT_UD ? 2 : 1;
	qp->sq.log_size = log2_up(init->max_send_wr ? init->max_send_wr : 1);
	qp->sq.entries = 1u << qp->sq.log_size;
	qp->sq.log_stride = wqe_log_stride(segs * RNIC_SEG_SIZE);
	qp->sq.max_sge = (1u << qp->sq.log_stride) / RNIC_SEG_SIZE - 1 - addr_segs;
	if (qp->sq.max_sge > max_sge)
		qp->sq.max_sge = max_sge;
	inl = (1u << qp->sq.log_stride) - (1 + addr_segs) * RNIC_SEG_SIZE - RNIC_INLINE_HDR;
	qp->sq.max_inline = inl;

	/* Receive WQE: header + data segments. */
	qp->rq.log_size = log2_up(init->max_recv_wr ? init->max_recv_wr : 1);
	qp->rq.entries = 1u << qp->rq.log_size;
	qp->rq.log_stride = wqe_log_stride(RNIC_SEG_SIZE +
					   init->max_recv_sge * RNIC_SEG_SIZE);
	qp->rq.max_sge = ((1u << qp->rq.log_stride) - RNIC_SEG_SIZE) / RNIC_SEG_SIZE;
	if (qp->rq.max_sge > max_sge)
		qp->rq.max_sge = max_sge;

	sq_bytes = page_up((size_t)qp->sq.entries << qp->sq.log_stride);
	rq_bytes = page_up((size_t)qp->rq.entries << qp->rq.log_stride);

	rnic_lock();
	ret = rnic_buf_alloc(dev, sq_bytes + rq_bytes + RNIC_PAGE_SIZE, &qp->buf);
	if (ret)
		goto out;
	base = qp->buf.va;
	qp->sq.buf = base;
	qp->sq.iova = rnic_dma_iova(&qp->buf.dma, base);
	qp->rq.buf = base + sq_bytes;
	qp->rq.iova = rnic_dma_iova(&qp->buf.dma, base + sq_bytes);
	qp->dbrec = (struct rnic_dbrec *)(base + sq_bytes + rq_bytes);
	qp->dbrec_iova = rnic_dma_iova(&qp->buf.dma, qp->dbrec);

	ret = rnic_qpn_alloc(dev, &qp->qpn);
	if (ret)
		goto err_buf;

	c->state = IBV_QPS_RESET;
	c->type = init->type;
	c->pmtu = IBV_MTU_1024;
	c->pd = init->pdn;
	c->scqn = init->scqn;
	c->rcqn = init->rcqn;
	c->sq_log_size = qp->sq.log_size;
	c->sq_log_stride = qp->sq.log_stride;
	c->rq_log_size = qp->rq.log_size;
	c->rq_log_stride = qp->rq.log_stride;
	c->sq_iova = qp->sq.iova;
	c->rq_iova = qp->rq.iova;
	c->udp_sport = rnic_qp_udp_sport(qp->qpn);
	c->use_srq = !!init->use_srq;
	c->srqn = init->use_srq ? init->srqn : 0;
	c->flags = RNIC_QPF_RESET_BOTH;
	ret = qp_push(dev, qp->qpn, c);
	c->flags = 0;
	if (ret)
		goto err_qpn;

	qp->state = IBV_QPS_RESET;
	qp->attr.qp_state = IBV_QPS_RESET;
	qp->attr.cur_qp_state = IBV_QPS_RESET;
	qp->attr.path_mtu = IBV_MTU_1024;
	qp->attr.port_num = 1;
	rnic_unlock();
	return 0;

err_qpn:
	rnic_qpn_free(dev, qp->qpn);
err_buf:
	rnic_buf_free(dev, &qp->buf);
out:
	rnic_unlock();
	return ret;
}

/* ------------------------------------------------------------------------ */
/* Modify                                                                   */
/* ------------------------------------------------------------------------ */

/* The RoCE address vector: GRH with an IPv4-mapped destination GID of a
 * node on the wire, source GID index 0, port 1. */
static int qp_resolve_av(struct rnic_dev *dev, const struct ibv_ah_attr *ah,
			 uint32_t *ip, uint64_t *mac)
{
	if (!ah->is_global || ah->port_num != 1 || ah->grh.sgid_index != 0)
		return EINVAL;
	if (rnic_gid_to_ip(&ah->grh.dgid, ip))
		return EINVAL;
	if (rnic_resolve_ip(dev->sim, *ip, mac, NULL))
		return EINVAL;
	return 0;
}

int rnic_qp_modify(struct rnic_dev *dev, struct rnic_qp *qp,
		   const struct ibv_qp_attr *attr, int mask)
{
	const struct rnic_qp_trans *t;
	enum ibv_qp_state cur, next;
	struct ibv_qp_attr a;
	struct rnic_qp_ctx c;
	int ret;

	rnic_lock();
	/* The hardware moves a QP to ERR or SQE on its own: from where it
	 * may have, the transition starts at the state it reports. */
	if (qp->state == IBV_QPS_RTS || qp->state == IBV_QPS_SQD) {
		enum ibv_qp_state hw;

		if (!rnic_qp_query_hw(dev, qp, &hw, NULL, NULL) &&
		    (hw == IBV_QPS_ERR || hw == IBV_QPS_SQE)) {
			qp->state = hw;
			qp->attr.qp_state = hw;
			qp->attr.cur_qp_state = hw;
		}
	}
	/* IBV_QP_CUR_STATE asserts the state the QP is in; as an RNIC's
	 * firmware checks a transition against the QP (mlx5's refuses a
	 * SQD2SQD command for a QP in RESET), one it is not in is refused.
	 * Without IBV_QP_STATE the state stays. */
	if ((mask & IBV_QP_CUR_STATE) && attr->cur_qp_state != qp->state) {
		rnic_dbg("qp %u: modify asserts state %d, the QP is in %d\n",
			 qp->qpn, attr->cur_qp_state, qp->state);
		ret = EINVAL;
		goto out;
	}
	cur = qp->state;
	next = (mask & IBV_QP_STATE) ? attr->qp_state : cur;
	t = qp_trans(qp->type, cur, next, mask);
	if (!t) {
		rnic_dbg("qp %u: illegal modify %d -> %d, mask %#x\n", qp->qpn,
			 cur, next, mask);
		ret = EINVAL;
		goto out;
	}
	/* SQD -> SQD changes attributes: only once the SQ has drained (as
	 * rxe, EINVAL while it drains; the WQEs under way use the old ones). */
	if (cur == IBV_QPS_SQD && next == IBV_QPS_SQD) {
		int draining = 0;

		ret = rnic_qp_query_draining(dev, qp, &draining);
		if (ret || draining) {
			rnic_dbg("qp %u: SQD -> SQD while the SQ drains\n",
				 qp->qpn);
			ret = ret ? ret : EINVAL;
			goto out;
		}
	}

	a = qp->attr;
	c = qp->ctx;
	ret = EINVAL;
	if (mask & IBV_QP_PKEY_INDEX) {
		if (attr->pkey_index != 0)
			goto out;
		a.pkey_index = attr->pkey_index;
	}
	if (mask & IBV_QP_PORT) {
		if (attr->port_num != 1)
			goto out;
		a.port_num = attr->port_num;
	}
	if (mask & IBV_QP_ACCESS_FLAGS) {
		if (attr->qp_access_flags & ~(IBV_ACCESS_LOCAL_WRITE |
					      IBV_ACCESS_REMOTE_WRITE |
					      IBV_ACCESS_REMOTE_READ |
					      IBV_ACCESS_REMOTE_ATOMIC))
			goto out;
		a.qp_access_flags = attr->qp_access_flags;
		c.access = attr->qp_access_flags & 0xf;
	}
	if (mask & IBV_QP_PATH_MTU) {
		if (attr->path_mtu < IBV_MTU_256 || attr->path_mtu > IBV_MTU_4096)
			goto out;
		a.path_mtu = attr->path_mtu;
		c.pmtu = attr->path_mtu;
	}
	if (mask & IBV_QP_AV) {
		if (qp_resolve_av(dev, &attr->ah_attr, &c.dest_ip, &c.dest_mac)) {
			rnic_dbg("qp %u: address vector does not name a node (RoCE needs is_global, port 1, sgid_index 0, IPv4-mapped dgid)\n",
				 qp->qpn);
			goto out;
		}
		a.ah_attr = attr->ah_attr;
	}
	if (mask & IBV_QP_QKEY) {
		a.qkey = attr->qkey;
		c.qkey = attr->qkey;
	}
	if (mask & IBV_QP_DEST_QPN) {
		if (attr->dest_qp_num > 0xffffff)
			goto out;
		a.dest_qp_num = attr->dest_qp_num;
		c.dest_qpn = attr->dest_qp_num;
	}
	if (mask & IBV_QP_RQ_PSN) {
		a.rq_psn = attr->rq_psn & 0xffffff;
		c.rq_psn = a.rq_psn;
	}
	if (mask & IBV_QP_SQ_PSN) {
		a.sq_psn = attr->sq_psn & 0xffffff;
		c.sq_psn = a.sq_psn;
	}
	if (mask & IBV_QP_MAX_DEST_RD_ATOMIC) {
		if (attr->max_dest_rd_atomic > RNIC_MAX_RD_ATOM)
			goto out;
		a.max_dest_rd_atomic = attr->max_dest_rd_atomic;
		c.max_dest_rd_atomic = attr->max_dest_rd_atomic;
	}
	if (mask & IBV_QP_MAX_QP_RD_ATOMIC) {
		if (attr->max_rd_atomic > RNIC_MAX_RD_ATOM)
			goto out;
		a.max_rd_atomic = attr->max_rd_atomic;
		c.max_rd_atomic = attr->max_rd_atomic;
	}
	if (mask & IBV_QP_MIN_RNR_TIMER) {
		if (attr->min_rnr_timer > 31)
			goto out;
		a.min_rnr_timer = attr->min_rnr_timer;
		c.min_rnr_timer = attr->min_rnr_timer;
	}
	if (mask & IBV_QP_TIMEOUT) {
		if (attr->timeout > 31)
			goto out;
		a.timeout = attr->timeout;
		c.timeout = attr->timeout;
	}
	if (mask & IBV_QP_RETRY_CNT) {
		if (attr->retry_cnt > 7)
			goto out;
		a.retry_cnt = attr->retry_cnt;
		c.retry_cnt = attr->retry_cnt;
	}
	if (mask & IBV_QP_RNR_RETRY) {
		if (attr->rnr_retry > 7)
			goto out;
		a.rnr_retry = attr->rnr_retry;
		c.rnr_retry = attr->rnr_retry;
	}
	/* Accepted as IBA allows, but there is no alternate path. */
	if (mask & IBV_QP_ALT_PATH) {
		a.alt_ah_attr = attr->alt_ah_attr;
		a.alt_pkey_index = attr->alt_pkey_index;
		a.alt_port_num = attr->alt_port_num;
		a.alt_timeout = attr->alt_timeout;
	}
	if (mask & IBV_QP_PATH_MIG_STATE)
		a.path_mig_state = attr->path_mig_state;

	c.state = next;
	c.flags = t->flags;
	if (next == IBV_QPS_SQD && cur != IBV_QPS_SQD &&
	    (mask & IBV_QP_EN_SQD_ASYNC_NOTIFY) && attr->en_sqd_async_notify) {
		c.flags |= RNIC_QPF_SQD_NOTIFY;
		a.en_sqd_async_notify = 1;
	}
	ret = qp_push(dev, qp->qpn, &c);
	if (ret)
		goto out;
	c.flags = 0;
	a.qp_state = next;
	a.cur_qp_state = next;
	qp->ctx = c;
	qp->attr = a;
	qp->state = next;
out:
	rnic_unlock();
	return ret;
}

int rnic_qp_query_hw(struct rnic_dev *dev, const struct rnic_qp *qp,
		     enum ibv_qp_state *state, uint32_t *sq_psn, uint32_t *rq_psn)
{
	uint64_t out[2];
	int ret;

	ret = rnic_cmd(dev, RNIC_CMD_QP_QUERY, qp->qpn, NULL, 0, out, 2);
	if (ret)
		return ret;
	if (state)
		*state = (enum ibv_qp_state)RNIC_QP_QUERY_STATE(out[0]);
	if (sq_psn)
		*sq_psn = RNIC_QP_QUERY_SQ_PSN(out[1]);
	if (rq_psn)
		*rq_psn = RNIC_QP_QUERY_RQ_PSN(out[1]);
	return 0;
}

int rnic_qp_query_draining(struct rnic_dev *dev, const struct rnic_qp *qp,
			   int *draining)
{
	uint64_t out[2];
	int ret;

	ret = rnic_cmd(dev, RNIC_CMD_QP_QUERY, qp->qpn, NULL, 0, out, 2);
	if (!ret)
		*draining = RNIC_QP_QUERY_DRAINING(out[0]);
	return ret;
}

int rnic_qp_destroy(struct rnic_dev *dev, struct rnic_qp *qp)
{
	struct rnic_qp_ctx c = qp->ctx;
	int ret;

	rnic_lock();
	c.state = IBV_QPS_RESET;
	c.flags = RNIC_QPF_RESET_BOTH;
	ret = qp_push(dev, qp->qpn, &c);
	/* Unmapping after the reset: a straggling DMA faults in the IOMMU. */
	rnic_buf_free(dev, &qp->buf);
	rnic_qpn_free(dev, qp->qpn);
	qp->state = IBV_QPS_RESET;
	rnic_unlock();
	return ret;
}
