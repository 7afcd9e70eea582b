/* SPDX-License-Identifier: MIT */
/*
 * sim_phase.h - the cycle loop of model/sim.cpp split into its phases, for a
 * platform that runs the nodes from clock processes of its own (the SystemC
 * wrapper in model/systemc/). C++ only; the C API stays rnic_model.h.
 *
 * rnic_sim::tick() runs, for the edge c = rnic_sim_cycle():
 *   sim_begin_cycle(c)             once: trace gate, frames due at c to RX
 *   sim_settle(node, c)            per node: drive the inputs, clk_i = 0
 *   steps = sim_decide(c, ...)     once: the fast-forward decision; on a
 *                                  skip every node's RTL takes it here; the
 *                                  cycle becomes c + steps
 *   sim_edge(node, c, skipped)     per node: handshakes, the edge, due DMA
 *                                  writes visible, MSIs, event callbacks
 * A platform that calls the same phases in that order, each per-node one
 * for every node, gets the same cycles: nodes only meet through the wire,
 * whose frames take at least a cycle, and through software between cycles.
 * sim_flush() dumps the last edge's level into the trace (tick() does that
 * at once; the split version on the next sim_begin_cycle()).
 */
#ifndef RNIC_SIM_PHASE_H
#define RNIC_SIM_PHASE_H

#include <cstddef>
#include <cstdint>

#include "rnic_model.h"

namespace rnic {

class dma_port;
class wire;

/*
 * A platform that owns simulated time (SystemC): the C API calls that would
 * run the cycle loop, and the ones that reach the host side of a node, go
 * here instead, so that a verbs program waits in the platform's time.
 */
class sim_host {
public:
	virtual ~sim_host() = default;
	virtual void step(uint64_t cycles) = 0;
	virtual uint64_t wait(unsigned node, uint64_t max_cycles) = 0;
	virtual void mmio_write(unsigned node, uint32_t addr, uint64_t val) = 0;
	virtual uint64_t mmio_read(unsigned node, uint32_t addr) = 0;
	virtual int iommu_map(unsigned node, uint64_t iova, void *host, size_t len) = 0;
	virtual int iommu_unmap(unsigned node, uint64_t iova, size_t len) = 0;
	/* An MSI of @node for CQ @cqn is due (instead of the irq callback). */
	virtual void msi(unsigned node, uint32_t cqn) = 0;
};

/* nullptr: the C API runs the native loop again. */
void sim_set_host(rnic_sim *sim, sim_host *host);
/* The node's DMA goes through @p instead of the model's page table. */
void sim_set_dma_port(rnic_sim *sim, unsigned node, dma_port *p);
/* Frames the nodes send leave through @fn (stamped with the edge of their
 * last beat) instead of the built-in switch; sim_frame_arrive() brings
 * frames in, @at the cycle their first beat reaches the node's RX. */
using sim_uplink_fn = void (*)(void *arg, unsigned node, uint64_t cycle, const uint8_t *frame,
			       size_t len);
void sim_set_uplink(rnic_sim *sim, sim_uplink_fn fn, void *arg);

/*
 * A platform that moves the frames on a wire of its own (the SystemC link)
 * registers it, so that the C API's wire faults, drop rules and their counts
 * (rnic_sim_set/get_link_faults, rnic_sim_link_fault_counts,
 * rnic_sim_wire_drop, _drop_hits, _drops) and RNIC_WIRE_STATS reach the
 * wire the frames cross. sync() returns that wire with every frame of the
 * edges run so far on it, as the native wire has them between two cycles.
 */
class sim_link {
public:
	virtual ~sim_link() = default;
	virtual wire &sync() = 0;
};
/* nullptr: the simulation's own wire again. */
void sim_set_link(rnic_sim *sim, sim_link *l);
/* RNIC_WIRE_STATS now, the way the native run prints it at exit (it runs
 * the model until the wire is quiet, so call it from the thread that ran
 * the program, after the program); not printed again at exit. */
void sim_wire_stats(rnic_sim *sim);
void sim_frame_arrive(rnic_sim *sim, unsigned node, uint64_t at, const uint8_t *frame,
		      size_t len);

void sim_begin_cycle(rnic_sim *sim, uint64_t c);
void sim_settle(rnic_sim *sim, unsigned node, uint64_t c);
/* @limit: edges the caller lets pass at most (its next activity);
 * @ext_next: the first cycle something outside arrives at (~0: none). */
uint64_t sim_decide(rnic_sim *sim, uint64_t c, uint64_t limit, uint64_t ext_next);
/* @skipped: sim_decide() returned more than 1 (the RTL took the skip). */
void sim_edge(rnic_sim *sim, unsigned node, uint64_t c, bool skipped);
void sim_flush(rnic_sim *sim);
/* Whether sim_edge() of a skip would do anything (a write becomes visible,
 * an MSI or an event is due); if not, it may run at any time. */
bool sim_edge_pending(const rnic_sim *sim, unsigned node);

/* The host side of a node, without running anything. */
void sim_mmio_post_write(rnic_sim *sim, unsigned node, uint32_t addr, uint64_t val);
uint32_t sim_mmio_post_read(rnic_sim *sim, unsigned node, uint32_t addr);
bool sim_mmio_read_done(rnic_sim *sim, unsigned node, uint32_t id, uint64_t *val);
/* A read that got no answer: dropped, counted (rnic_sim_mmio_timeouts). */
void sim_mmio_cancel(rnic_sim *sim, unsigned node, uint32_t id);
/* DMA writes visible, and visible plus taken but not yet visible. */
uint64_t sim_writes(const rnic_sim *sim, unsigned node);
uint64_t sim_writes_taken(const rnic_sim *sim, unsigned node);
/* The irq callback, as an MSI reaching the host calls it. */
void sim_irq(rnic_sim *sim, unsigned node, uint32_t cqn);
const rnic_sim_cfg &sim_cfg(const rnic_sim *sim);

} /* namespace rnic */

#endif /* RNIC_SIM_PHASE_H */
