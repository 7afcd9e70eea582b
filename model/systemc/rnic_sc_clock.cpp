// SPDX-License-Identifier: MIT
/*
 * rnic_sc_clock.cpp - the nics' gated core clock (rnic_sc_clock.h).
 *
 * The decision to skip is taken at a rising edge (domain::edge(), by the
 * nics, a delta cycle after the clock rose); the clock learns of it at the
 * falling edge it would make next: when the model's next edge to evaluate
 * is later than that cycle, it makes no edge and comes back at the falling
 * edge of that later cycle instead.
 */
#include "rnic_sc_clock.h"

#include "rnic_sc_domain.h"

using namespace sc_core;

namespace rnic_sc {

clock::clock(sc_module_name name, domain &dom)
	: sc_module(name), clk("clk", true), dom_(dom),
	  half_(sc_time::from_value(dom.period_ticks() / 2))
{
	SC_METHOD(tick);
}

void clock::tick()
{
	if (!started_) {
		started_ = true;
		next_trigger(domain::clock_start() - sc_time_stamp());
		return;
	}
	if (clk.read()) {
		/* A falling edge is due now, unless a skip covers its cycle. */
		const uint64_t k = dom_.falling_now(), next = dom_.cycle();

		if (next > k) {
			gated_ += next - k;
			next_trigger(dom_.edge_time(next) - half_ - sc_time_stamp());
			return;
		}
		clk.write(false);
	} else {
		clk.write(true);
		edges_++;
	}
	next_trigger(half_);
}

} /* namespace rnic_sc */
