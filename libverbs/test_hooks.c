// SPDX-License-Identifier: MIT
/*
 * test_hooks.c - what transport tests need beyond the verbs: a directed
 * loss on the simulated wire (rnic_verbs_ext.h, version node
 * RNIC_VERBS_1.2) and DMA faults in the IOMMU (RNIC_VERBS_1.4, rings
 * RNIC_VERBS_1.5). Programs
 * that use them only run on the simulated RNIC.
 */
#include <errno.h>

#include "rnic_verbs.h"
#include "rnic_verbs_ext.h"

RV_EXPORT int rnic_verbs_wire_drop(unsigned int node, int opcode, int64_t psn,
				   unsigned int skip, unsigned int count)
{
	struct rnic_sim *sim = rnic_sim_global();
	int ret;

	if (!sim)
		return ENODEV;
	rnic_lock();
	ret = rnic_sim_wire_drop(sim, node, opcode, psn, skip, count);
	rnic_unlock();
	return ret ? EINVAL : 0;
}

RV_EXPORT uint64_t rnic_verbs_wire_drop_hits(unsigned int node)
{
	struct rnic_sim *sim = rnic_sim_global();

	return sim ? rnic_sim_wire_drop_hits(sim, node) : 0;
}

RV_EXPORT uint64_t rnic_verbs_wire_frames(unsigned int node)
{
	struct rnic_sim *sim = rnic_sim_global();

	return sim ? rnic_sim_wire_frames(sim, node) : 0;
}

RV_EXPORT int rnic_verbs_mr_dma_fault(struct ibv_mr *ibmr, size_t off,
				      size_t len, int fault)
{
	struct rv_mr *mr;
	size_t base;

	if (!ibmr || !len || off + len < off || off + len > ibmr->length)
		return EINVAL;
	mr = to_rv_mr(ibmr);
	base = (uintptr_t)ibmr->addr - mr->hw.dma.host;
	return rnic_dma_fault(to_rv_ctx(ibmr->context)->dev, &mr->hw.dma,
			      base + off, len, fault != 0);
}

RV_EXPORT int rnic_verbs_qp_ring_fault(struct ibv_qp *ibqp, int recv, int fault)
{
	struct rv_qp *qp;
	struct rnic_wq_geom *g;

	if (!ibqp)
		return EINVAL;
	qp = to_rv_qp(ibqp);
	g = recv ? &qp->hw.rq : &qp->hw.sq;
	if (!g->entries || !g->buf)
		return EINVAL;
	return rnic_dma_fault(to_rv_ctx(ibqp->context)->dev, &qp->hw.buf.dma,
			      (size_t)((char *)g->buf - (char *)qp->hw.buf.va),
			      (size_t)g->entries << g->log_stride, fault != 0);
}

RV_EXPORT uint64_t rnic_verbs_iommu_faults(unsigned int node)
{
	struct rnic_sim *sim = rnic_sim_global();

	return sim && node < rnic_sim_nodes(sim) ?
		rnic_sim_iommu_faults(sim, node) : 0;
}

RV_EXPORT uint64_t rnic_verbs_dma_rd_errors(unsigned int node)
{
	struct rnic_sim *sim = rnic_sim_global();
	uint64_t v;

	if (!sim || node >= rnic_sim_nodes(sim))
		return 0;
	rnic_lock();
	v = rnic_sim_mmio_read(sim, node, RNIC_REG_CNT_DMA_RD_ERR);
	rnic_unlock();
	return v;
}
