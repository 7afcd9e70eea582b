/* SPDX-License-Identifier: MIT */
/*
 * rnic_sc_clock.h - the nics' core clock with clock gating: the edges of
 * domain::period() from domain::clock_start() (a falling edge first), except
 * while the model fast-forwards (docs/time-model.md): the cycles one skip
 * stands for have no edges, the way a gated clock stops in an idle block.
 * SystemC time still moves to where those edges would have been, and the
 * cycles are the same as with a free-running sc_clock - only the kernel has
 * nothing to do while the NICs are idle. Bind clk to the nics (and the
 * link's users); other components keep their own clocks.
 */
#ifndef RNIC_SC_CLOCK_H
#define RNIC_SC_CLOCK_H

#include <systemc>

namespace rnic_sc {

class domain;

class clock : public sc_core::sc_module {
public:
	sc_core::sc_signal<bool> clk;

	SC_HAS_PROCESS(clock);
	clock(sc_core::sc_module_name name, domain &dom);
	~clock() override;

	/* Edges made, and those left out inside skips. */
	uint64_t edges() const { return edges_; }
	uint64_t gated() const { return gated_; }

	/* From the domain, in the delta cycle of rising edge @c that decided
	 * to skip: the next edge is @next's, so the clock's next falling
	 * edge is @next's (no activation at c + 1's to find that out). */
	void skip(uint64_t c, uint64_t next);

private:
	void tick();

	domain &dom_;
	sc_core::sc_event ev_;	/* the clock's next edge */
	sc_core::sc_time half_;
	bool started_ = false;
	uint64_t edges_ = 0, gated_ = 0;
};

} /* namespace rnic_sc */

#endif /* RNIC_SC_CLOCK_H */
