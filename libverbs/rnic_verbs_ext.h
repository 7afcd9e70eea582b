/* SPDX-License-Identifier: MIT */
/*
 * rnic_verbs_ext.h - what our libibverbs.so.1 exports besides the verbs
 * (version node RNIC_VERBS_1.0), for benchmarks and tests that want
 * simulated time. Programs that use them only run on the simulated RNIC.
 */
#ifndef RNIC_VERBS_EXT_H
#define RNIC_VERBS_EXT_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Current cycle of the process-wide simulation (creates it if needed). */
uint64_t rnic_verbs_sim_cycle(void);
/*
 * Let the simulation run @cycles cycles, as while the host does something
 * else (version node RNIC_VERBS_1.6): for tests that place a verbs call at
 * an exact cycle after another. Returns the cycle it ends at.
 */
uint64_t rnic_verbs_sim_step(uint64_t cycles);
/* Datapath width of the RNIC in bits (DataW). */
unsigned int rnic_verbs_data_bits(void);

/*
 * Trace window around code of interest (version node RNIC_VERBS_1.1): with
 * RNIC_TRACE=<file.fst> set, the waveform holds the cycles simulated between
 * rnic_verbs_trace_begin() and rnic_verbs_trace_end() (calls nest). With
 * RNIC_TRACE_API=1 nothing before the first begin is dumped; without it the
 * trace also holds everything up to that begin (docs/observability.md).
 */
void rnic_verbs_trace_begin(void);
void rnic_verbs_trace_end(void);

/*
 * Directed loss on the simulated wire, for transport tests (version node
 * RNIC_VERBS_1.2): the next @count frames that node @node (0 for rnic0, ...)
 * sends with BTH opcode @opcode and PSN @psn (either negative: any) are lost,
 * after @skip matching frames have passed. Returns 0 or an errno.
 */
int rnic_verbs_wire_drop(unsigned int node, int opcode, int64_t psn,
			 unsigned int skip, unsigned int count);
/* Frames node @node lost to those rules so far. */
uint64_t rnic_verbs_wire_drop_hits(unsigned int node);
/* Frames node @node has sent on the wire so far. */
uint64_t rnic_verbs_wire_frames(unsigned int node);

/*
 * DMA fault injection (version node RNIC_VERBS_1.4): take the IOMMU pages
 * that hold bytes [@off, @off+@len) of @mr out of the RNIC's IOMMU
 * (@fault != 0), as if the IOMMU refused the device's accesses to them, or
 * put them back (@fault == 0). The MR itself stays valid: its keys pass the
 * RNIC's checks and the accesses fail in the IOMMU. One range per MR at a
 * time; ibv_dereg_mr puts it back. Returns 0 or an errno (EINVAL: range
 * outside the MR, EBUSY: another range is out).
 */
struct ibv_mr;
int rnic_verbs_mr_dma_fault(struct ibv_mr *mr, size_t off, size_t len,
			    int fault);
/*
 * The same for a QP's work queue ring (version node RNIC_VERBS_1.5): take
 * the IOMMU pages of @qp's receive queue ring (@recv != 0) or send queue
 * ring (@recv == 0) out (@fault != 0), so that the RNIC's reads of its
 * WQEs fail, or put them back (@fault == 0). One range of the QP's rings
 * at a time; ibv_destroy_qp puts it back. Returns 0 or an errno (EINVAL:
 * no such ring, EBUSY: a range is out already).
 */
struct ibv_qp;
int rnic_verbs_qp_ring_fault(struct ibv_qp *qp, int recv, int fault);
/* DMA accesses of node @node that the IOMMU refused so far. */
uint64_t rnic_verbs_iommu_faults(unsigned int node);
/* Payload reads of node @node's TX builder that failed (DMA_RD_ERR). */
uint64_t rnic_verbs_dma_rd_errors(unsigned int node);

#ifdef __cplusplus
}
#endif
#endif /* RNIC_VERBS_EXT_H */
