/* SPDX-License-Identifier: MIT */
/*
 * rnic_sc_domain.h - the nodes of one simulation (struct rnic_sim) as seen
 * from SystemC: the mapping between cycles and SystemC time, the once-per-
 * cycle parts of the native cycle (model/sim_phase.h) that every
 * rnic_sc::nic shares, and the model's C API calls that let simulated time
 * pass (rnic_sim_step, rnic_sim_wait, rnic_sim_mmio_read), which become
 * SystemC waits of the calling thread.
 *
 * Time. Cycle c's rising edge is at (c + 8) * 4 ns + 2 ns (the 8 reset
 * cycles the model runs at creation come first, as in its FST traces), its
 * falling edge 2 ns before. The clock therefore starts at 32 ns with a
 * falling edge (clock_start(), posedge_first = false). Software acts for
 * cycle c at (c + 8) * 4 ns - 1 ns: after edge c - 1, before the falling
 * edge of cycle c; waits that end on an event return just after the edge
 * that caused it.
 */
#ifndef RNIC_SC_DOMAIN_H
#define RNIC_SC_DOMAIN_H

#include <cstdint>
#include <systemc>
#include <vector>

#include "rnic_model.h"
#include "sim_phase.h"

namespace rnic_sc {

class clock;
class host_if;
class link;
class nic;

class domain : public rnic::sim_host {
public:
	static constexpr unsigned kResetCycles = 8;

	/* @sim must have every node hosted (no fabric); the domain installs
	 * itself as its host (rnic::sim_set_host) until destroyed. */
	explicit domain(rnic_sim *sim);
	~domain() override;

	rnic_sim *sim() const { return sim_; }
	unsigned nodes() const { return rnic_sim_nodes(sim_); }
	/* The clock the nics and the link run on: period(), starting with a
	 * falling edge at clock_start(). */
	static sc_core::sc_time period() { return sc_core::sc_time(4, sc_core::SC_NS); }
	static sc_core::sc_time clock_start() { return period() * kResetCycles; }
	/* The time of rising edge @c, and the time software acts for cycle @c
	 * (from the kernel's time unit, without floating point). */
	sc_core::sc_time edge_time(uint64_t c) const
	{
		return sc_core::sc_time::from_value((c + kResetCycles) * period_ticks_ +
						    period_ticks_ / 2);
	}
	sc_core::sc_time host_time(uint64_t c) const
	{
		return sc_core::sc_time::from_value((c + kResetCycles) * period_ticks_ -
						    period_ticks_ / 4);
	}
	/* @n clock periods; the period in the kernel's time unit. */
	sc_core::sc_time periods(uint64_t n) const { return sc_core::sc_time::from_value(n * period_ticks_); }
	uint64_t period_ticks() const { return period_ticks_; }
	/* The cycle whose rising (falling) edge is now. */
	uint64_t rising_now() const;
	uint64_t falling_now() const;

	/* The next edge to evaluate (rnic_sim_cycle()). */
	uint64_t cycle() const { return rnic_sim_cycle(sim_); }

	void add_nic(nic *n);
	nic &nic_of(unsigned node);
	void set_link(link *l) { link_ = l; }
	/* The gated clock the nics run on, if it is an rnic_sc::clock: the
	 * domain schedules its edges (rnic_sc_clock.h). */
	void set_clock(clock *c) { clock_ = c; }
	void set_host(host_if *h) { host_ = h; }

	/*
	 * Fast-forward bound. The model may let one evaluated edge stand for
	 * many (docs/time-model.md) only while nothing outside it acts: an
	 * initiator that posts to a BAR must say when it acts next. Until
	 * someone calls idle_until(), nothing is skipped; the waits below
	 * declare the calling thread's wake-up themselves. ~0: only on an
	 * event of a nic.
	 */
	void idle_until(uint64_t c) { wake_ = c; }

	/* For the nics: the falling edge of cycle @c (true: settled) and the
	 * rising edge: 0 inside a skip (nothing to do), 1 the edge ran, n > 1
	 * the RTL took a skip standing for n edges, whose end (DMA writes
	 * becoming visible, MSIs, callbacks) the nic runs at the time of the
	 * last of them with skip_end(). */
	bool settle(unsigned node, uint64_t c);
	uint64_t edge(unsigned node, uint64_t c);
	void skip_end(unsigned node, uint64_t c);
	bool skip_end_pending(unsigned node) const { return rnic::sim_edge_pending(sim_, node); }
	/* At the end of the simulation: the last level into the trace. */
	void finish();

	/* For threads: let @cycles cycles pass; read a BAR register the way
	 * rnic_sim_mmio_read() does (the nics' bar sockets use it). */
	void wait_cycles(uint64_t cycles);
	uint64_t read_bar(unsigned node, uint32_t addr);
	/* sim_host: the C API calls of a program running in a thread. */
	void step(uint64_t cycles) override { wait_cycles(cycles); }
	uint64_t wait(unsigned node, uint64_t max_cycles) override;
	void mmio_write(unsigned node, uint32_t addr, uint64_t val) override;
	uint64_t mmio_read(unsigned node, uint32_t addr) override;
	int iommu_map(unsigned node, uint64_t iova, void *host, size_t len) override;
	int iommu_unmap(unsigned node, uint64_t iova, size_t len) override;
	void msi(unsigned node, uint32_t cqn) override;

	/* Counts: edges evaluated, edges skipped, writes to a BAR that
	 * arrived inside a skip (their timing is the skip's end). */
	uint64_t edges() const { return edges_; }
	uint64_t skipped() const { return skipped_; }
	uint64_t late_posts() const { return late_posts_; }
	void note_post(unsigned node);

private:
	rnic_sim *sim_;
	std::vector<nic *> nics_;
	link *link_ = nullptr;
	clock *clock_ = nullptr;
	host_if *host_ = nullptr;
	uint64_t wake_ = 0;
	uint64_t begun_ = ~0ull;	/* cycle whose begin phase ran */
	uint64_t decided_ = ~0ull;	/* cycle whose decision ran */
	uint64_t steps_ = 1;
	uint64_t edges_ = 0, skipped_ = 0, late_posts_ = 0;
	uint64_t period_ticks_, start_ticks_;
};

} /* namespace rnic_sc */

#endif /* RNIC_SC_DOMAIN_H */
