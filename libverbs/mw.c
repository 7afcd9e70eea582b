// SPDX-License-Identifier: MIT
/*
 * mw.c - memory windows: ibv_alloc_mw(), ibv_dealloc_mw(), ibv_bind_mw(),
 * and the checks and bookkeeping of a BIND_MW work request.
 *
 * A window takes an index of the MR key space (lkey = rkey = index << 8 |
 * key byte); the driver writes its MR-table entry as an unbound window
 * (docs/formats.md, MR_WRITE). Both types are supported:
 *   type 1: bound with ibv_bind_mw(), which posts a BIND_MW WQE with the
 *           rkey's key byte incremented (ibv_inc_rkey()) and sets mw->rkey;
 *   type 2: bound with an IBV_WR_BIND_MW work request (ibv_post_send() or
 *           ibv_wr_bind_mw()) with the rkey the caller chose (same index),
 *           invalidated by LOCAL_INV or a received SEND_WITH_INV. The
 *           library sets mw->rkey to the new rkey when the bind is posted.
 * What the library cannot know is checked by the hardware, which completes
 * the BIND_MW with IBV_WC_MW_BIND_ERR: the window outside the MR, an MR
 * without IBV_ACCESS_MW_BIND, remote write/atomic on an MR without local
 * write, a type 2 window still bound.
 *
 * The library counts the windows bound in each MR (binds posted, less
 * unbinds, rebinds elsewhere, invalidations and deallocations it sees) and
 * ibv_dereg_mr() refuses an MR with windows bound in it (EBUSY, as IBA
 * 11.2.8.4 requires).
 */
#include <stdlib.h>

#include "wqe.h"

/* Set by ibv_bind_mw() around the BIND_MW it posts: the only way to bind
 * a type 1 window. */
static __thread int rv_binding_type1;

struct ibv_mw *rv_alloc_mw(struct ibv_pd *ibpd, enum ibv_mw_type type)
{
	struct rv_context *ctx = to_rv_ctx(ibpd->context);
	struct rv_pd *pd = to_rv_pd(ibpd);
	struct rv_mw *mw;
	int ret;

	if (type != IBV_MW_TYPE_1 && type != IBV_MW_TYPE_2) {
		errno = EINVAL;
		return NULL;
	}
	mw = calloc(1, sizeof(*mw));
	if (!mw) {
		errno = ENOMEM;
		return NULL;
	}
	rnic_lock();
	ret = rnic_mw_alloc(ctx->dev, pd->pdn, type == IBV_MW_TYPE_2, &mw->hw);
	if (!ret) {
		pd->refcnt++;
		mw->next = ctx->mws;
		ctx->mws = mw;
	}
	rnic_unlock();
	if (ret) {
		free(mw);
		errno = ret;
		return NULL;
	}
	mw->pd = pd;
	mw->ibmw.context = ibpd->context;
	mw->ibmw.pd = ibpd;
	mw->ibmw.rkey = mw->hw.key;
	mw->ibmw.handle = mw->hw.index;
	mw->ibmw.type = type;
	return &mw->ibmw;
}

int rv_dealloc_mw(struct ibv_mw *ibmw)
{
	struct rv_context *ctx = to_rv_ctx(ibmw->context);
	struct rv_mw *mw = to_rv_mw(ibmw), **pp;
	int ret;

	rnic_lock();
	for (pp = &ctx->mws; *pp; pp = &(*pp)->next) {
		if (*pp == mw) {
			*pp = mw->next;
			break;
		}
	}
	if (mw->mr)
		mw->mr->mw_bound--;
	ret = rnic_mw_free(ctx->dev, &mw->hw);
	mw->pd->refcnt--;
	rnic_unlock();
	if (ret)
		rnic_dbg("dealloc_mw: hardware did not take the invalidation (%d); resources released\n",
			 ret);
	free(mw);
	return 0;
}

/* ibv_bind_mw() (type 1): verbs.h has checked the type, the MR/range and
 * the PDs. The new rkey is the old one with the key byte incremented. */
int rv_bind_mw(struct ibv_qp *qp, struct ibv_mw *mw, struct ibv_mw_bind *mw_bind)
{
	struct ibv_send_wr wr, *bad;
	int ret;

	memset(&wr, 0, sizeof(wr));
	wr.wr_id = mw_bind->wr_id;
	wr.opcode = IBV_WR_BIND_MW;
	wr.send_flags = mw_bind->send_flags;
	wr.bind_mw.mw = mw;
	wr.bind_mw.rkey = ibv_inc_rkey(mw->rkey);
	wr.bind_mw.bind_info = mw_bind->bind_info;
	rv_binding_type1 = 1;
	ret = rv_post_send(qp, &wr, &bad);
	rv_binding_type1 = 0;
	return ret;
}

/* Checks of a BIND_MW work request the library can make: EINVAL if it
 * fails one. */
int rv_mw_bind_check(struct rv_qp *qp, struct ibv_mw *mw, uint32_t rkey,
		     const struct ibv_mw_bind_info *bi)
{
	struct ibv_qp *ibqp = &qp->ibqpx.qp_base;

	if (!mw || mw->context != ibqp->context)
		return EINVAL;
	if (mw->type != (rv_binding_type1 ? IBV_MW_TYPE_1 : IBV_MW_TYPE_2))
		return EINVAL;
	if (RNIC_KEY_INDEX(rkey) != to_rv_mw(mw)->hw.index)
		return EINVAL;
	if (!bi->mr && (bi->addr || bi->length))
		return EINVAL;
	if (bi->mr && (bi->mr->pd != mw->pd || bi->mr->context != mw->context))
		return EINVAL;
	/* A type 2 window is bound through a QP of its own PD. */
	if (mw->type == IBV_MW_TYPE_2 && mw->pd != ibqp->pd)
		return EINVAL;
	if (bi->mw_access_flags & ~(unsigned int)(RV_MW_ACCESS | IBV_ACCESS_LOCAL_WRITE))
		return EINVAL;
	return 0;
}

/* A BIND_MW was posted: the window's rkey and the MR it is bound in. */
void rv_mw_bound(struct ibv_mw *ibmw, uint32_t rkey, const struct ibv_mw_bind_info *bi)
{
	struct rv_mw *mw = to_rv_mw(ibmw);

	if (mw->mr)
		mw->mr->mw_bound--;
	mw->mr = NULL;
	if (bi->mr && bi->length) {
		mw->mr = to_rv_mr(bi->mr);
		mw->mr->mw_bound++;
	}
	ibmw->rkey = rkey;
}

/* A LOCAL_INV was posted or a SEND_WITH_INV received for @rkey: the type 2
 * window with that rkey is no longer bound. */
void rv_mw_invalidated(struct rv_context *ctx, uint32_t rkey)
{
	struct rv_mw *mw;

	for (mw = ctx->mws; mw; mw = mw->next) {
		if (mw->ibmw.rkey == rkey && mw->ibmw.type == IBV_MW_TYPE_2) {
			if (mw->mr)
				mw->mr->mw_bound--;
			mw->mr = NULL;
			break;
		}
	}
}
