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
 *
 * clk is a channel of its own, not an sc_signal driven by a process: its
 * edges are timed notifications of its posedge/negedge events, so the nics'
 * methods run in the first delta cycle of an edge's time, with no clock
 * process, update phase or second delta cycle per edge (what a process-
 * driven clock costs the kernel). The domain schedules the next edge as the
 * nics run the current one (the rise after a falling edge; after a rising
 * edge, the falling edge of the next cycle to evaluate, which after a skip
 * is a later one): the clock runs while the nics on it do.
 */
#ifndef RNIC_SC_CLOCK_H
#define RNIC_SC_CLOCK_H

#include <cstdint>
#include <systemc>

namespace rnic_sc {

class domain;

class clock : public sc_core::sc_module {
public:
	/* The clock line: an sc_signal_in_if<bool> to bind sc_in<bool> ports
	 * to (and to sc_trace). */
	class line : public sc_core::sc_prim_channel, public sc_core::sc_signal_in_if<bool> {
	public:
		explicit line(const char *name) : sc_core::sc_prim_channel(name) {}

		const sc_core::sc_event &value_changed_event() const override
		{
			changed_used_ = true;
			return changed_;
		}
		const sc_core::sc_event &posedge_event() const override { return pos_; }
		const sc_core::sc_event &negedge_event() const override { return neg_; }
		const sc_core::sc_event &default_event() const override
		{
			return value_changed_event();
		}
		const bool &read() const override;
		const bool &get_data_ref() const override { return read(); }
		bool event() const override { return posedge() || negedge(); }
		bool posedge() const override { return pos_.triggered(); }
		bool negedge() const override { return neg_.triggered(); }
		const char *kind() const override { return "rnic_sc::clock::line"; }

	private:
		friend class clock;
		/* The next edge, due at @at: rising or falling. */
		void schedule(bool rise, const sc_core::sc_time &at);
		/* The edge due now happened (from the process that runs it). */
		void took(bool rise);

		sc_core::sc_event pos_, neg_, changed_;
		mutable bool val_ = true;
		mutable bool changed_used_ = false;	/* someone may wait for changed_ */
		bool next_rise_ = false;
		uint64_t next_at_ = ~0ull;	/* kernel time of the pending edge */
	};

	line clk;

	clock(sc_core::sc_module_name name, domain &dom);
	~clock() override;

	/* Edges made, and those left out inside skips. */
	uint64_t edges() const { return edges_; }
	uint64_t gated() const { return gated_; }

	/* From the domain, in the first process that runs an edge: falling
	 * edge @c (the rise of @c follows half a period later), rising edge
	 * @c with @next the next cycle to evaluate (its falling edge follows;
	 * every cycle between is skipped). */
	void fell(uint64_t c);
	void rose(uint64_t c, uint64_t next);

private:
	void start_of_simulation() override;

	domain &dom_;
	sc_core::sc_time half_;
	uint64_t edges_ = 0, gated_ = 0;
	uint64_t fell_ = ~0ull, rose_ = ~0ull;
};

} /* namespace rnic_sc */

#endif /* RNIC_SC_CLOCK_H */
