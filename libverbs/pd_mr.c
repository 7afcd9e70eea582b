// SPDX-License-Identifier: MIT
/*
 * pd_mr.c - protection domains and memory registration.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "rnic_verbs.h"

/* verbs.h wraps these in macros that pick the symbol by the access flags. */
#undef ibv_reg_mr
#undef ibv_reg_mr_iova

RV_EXPORT struct ibv_pd *ibv_alloc_pd(struct ibv_context *context)
{
	struct rv_context *ctx = to_rv_ctx(context);
	struct rv_pd *pd;
	int ret;

	pd = calloc(1, sizeof(*pd));
	if (!pd) {
		errno = ENOMEM;
		return NULL;
	}
	ret = rnic_pd_alloc(ctx->dev, &pd->pdn);
	if (ret) {
		free(pd);
		errno = ret;
		return NULL;
	}
	pd->ibpd.context = context;
	pd->ibpd.handle = pd->pdn;
	return &pd->ibpd;
}

RV_EXPORT int ibv_dealloc_pd(struct ibv_pd *ibpd)
{
	struct rv_pd *pd = to_rv_pd(ibpd);
	struct rv_context *ctx = to_rv_ctx(ibpd->context);

	rnic_lock();
	if (pd->refcnt) {
		rnic_unlock();
		return EBUSY;
	}
	rnic_pd_free(ctx->dev, pd->pdn);
	rnic_unlock();
	free(pd);
	return 0;
}

RV_EXPORT struct ibv_pd *ibv_import_pd(struct ibv_context *context,
				       uint32_t pd_handle)
{
	(void)context;
	(void)pd_handle;
	errno = EOPNOTSUPP;
	return NULL;
}

RV_EXPORT void ibv_unimport_pd(struct ibv_pd *pd)
{
	(void)pd;
}

#define RV_MR_ACCESS (IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE | \
		      IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_ATOMIC | \
		      IBV_ACCESS_MW_BIND | IBV_ACCESS_ZERO_BASED | IBV_ACCESS_HUGETLB)
/* The access bits the MR context holds (MR_WRITE ARG0 [15:8]): local
 * write, remote write/read/atomic, MW bind. */
#define RV_MR_HW_ACCESS	0x1f

/*
 * Register [addr, addr+length), accessed by keys at [iova, iova+length) (or
 * at [0, length) with IBV_ACCESS_ZERO_BASED). Flags of the optional range
 * (IBV_ACCESS_RELAXED_ORDERING...) are hints and are ignored.
 */
static struct ibv_mr *rv_reg_mr(struct ibv_pd *ibpd, void *addr, size_t length,
				uint64_t iova, unsigned int access)
{
	struct rv_context *ctx = to_rv_ctx(ibpd->context);
	struct rv_pd *pd = to_rv_pd(ibpd);
	unsigned int acc = access & ~(unsigned int)IBV_ACCESS_OPTIONAL_RANGE;
	struct rv_mr *mr;
	int ret;

	if (acc & IBV_ACCESS_ON_DEMAND) {
		errno = EOPNOTSUPP;
		return NULL;
	}
	if ((acc & ~RV_MR_ACCESS) || !length ||
	    ((acc & (IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_ATOMIC)) &&
	     !(acc & IBV_ACCESS_LOCAL_WRITE))) {
		errno = EINVAL;
		return NULL;
	}
	if (acc & IBV_ACCESS_ZERO_BASED)
		iova = 0;

	mr = calloc(1, sizeof(*mr));
	if (!mr) {
		errno = ENOMEM;
		return NULL;
	}
	rnic_lock();
	ret = rnic_mr_reg(ctx->dev, pd->pdn, addr, length, iova, acc & RV_MR_HW_ACCESS,
			  &mr->hw);
	if (!ret)
		pd->refcnt++;
	rnic_unlock();
	if (ret) {
		free(mr);
		errno = ret;
		return NULL;
	}
	mr->pd = pd;
	mr->ibmr.context = ibpd->context;
	mr->ibmr.pd = ibpd;
	mr->ibmr.addr = addr;
	mr->ibmr.length = length;
	mr->ibmr.handle = mr->hw.index;
	mr->ibmr.lkey = mr->hw.key;
	mr->ibmr.rkey = mr->hw.key;
	return &mr->ibmr;
}

RV_EXPORT struct ibv_mr *ibv_reg_mr(struct ibv_pd *pd, void *addr, size_t length,
				    int access)
{
	return rv_reg_mr(pd, addr, length, (uintptr_t)addr, (unsigned int)access);
}

RV_EXPORT struct ibv_mr *ibv_reg_mr_iova(struct ibv_pd *pd, void *addr,
					 size_t length, uint64_t iova, int access)
{
	return rv_reg_mr(pd, addr, length, iova, (unsigned int)access);
}

RV_EXPORT struct ibv_mr *ibv_reg_mr_iova2(struct ibv_pd *pd, void *addr,
					  size_t length, uint64_t iova,
					  unsigned int access)
{
	return rv_reg_mr(pd, addr, length, iova, access);
}

RV_EXPORT struct ibv_mr *ibv_reg_dmabuf_mr(struct ibv_pd *pd, uint64_t offset,
					   size_t length, uint64_t iova, int fd,
					   int access)
{
	(void)pd;
	(void)offset;
	(void)length;
	(void)iova;
	(void)fd;
	(void)access;
	errno = EOPNOTSUPP;
	return NULL;
}

RV_EXPORT int ibv_dereg_mr(struct ibv_mr *ibmr)
{
	struct rv_context *ctx = to_rv_ctx(ibmr->context);
	struct rv_mr *mr = to_rv_mr(ibmr);
	int ret;

	rnic_lock();
	/* IBA: an MR with memory windows bound in it is not deregistered. */
	if (mr->mw_bound) {
		rnic_unlock();
		return EBUSY;
	}
	ret = rnic_mr_dereg(ctx->dev, &mr->hw);
	mr->pd->refcnt--;
	rnic_unlock();
	if (ret)
		rnic_dbg("dereg_mr: hardware did not take the invalidation (%d); resources released\n",
			 ret);
	free(mr);
	return 0;
}

/* Returns IBV_REREG_MR_ERR_INPUT: the old MR stays valid and unchanged. */
RV_EXPORT int ibv_rereg_mr(struct ibv_mr *mr, int flags, struct ibv_pd *pd,
			   void *addr, size_t length, int access)
{
	(void)mr;
	(void)flags;
	(void)pd;
	(void)addr;
	(void)length;
	(void)access;
	errno = EOPNOTSUPP;
	return IBV_REREG_MR_ERR_INPUT;
}

RV_EXPORT struct ibv_mr *ibv_import_mr(struct ibv_pd *pd, uint32_t mr_handle)
{
	(void)pd;
	(void)mr_handle;
	errno = EOPNOTSUPP;
	return NULL;
}

RV_EXPORT void ibv_unimport_mr(struct ibv_mr *mr)
{
	(void)mr;
}

RV_EXPORT struct ibv_dm *ibv_import_dm(struct ibv_context *context,
				       uint32_t dm_handle)
{
	(void)context;
	(void)dm_handle;
	errno = EOPNOTSUPP;
	return NULL;
}

RV_EXPORT void ibv_unimport_dm(struct ibv_dm *dm)
{
	(void)dm;
}
