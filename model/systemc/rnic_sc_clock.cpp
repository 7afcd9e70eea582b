// SPDX-License-Identifier: MIT
/*
 * rnic_sc_clock.cpp - the nics' gated core clock (rnic_sc_clock.h).
 *
 * The decision to skip is taken at a rising edge (domain::edge(), by the
 * nics, a delta cycle after the clock rose); the domain tells the clock at
 * once (skip()), which moves its next edge to the falling edge of the next
 * cycle to evaluate. A skip the clock was not told of (none so far) it
 * finds at the falling edge it would make next: when the model's next edge
 * to evaluate is later than that cycle, it makes no edge and comes back at
 * the falling edge of that later cycle instead.
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
	sensitive << ev_;
	dom_.set_clock(this);
}

clock::~clock()
{
	dom_.set_clock(nullptr);
}

void clock::skip(uint64_t c, uint64_t next)
{
	/* The pending notification is the falling edge of c + 1. */
	gated_ += next - (c + 1);
	ev_.cancel();
	ev_.notify(dom_.edge_time(next) - half_ - sc_time_stamp());
}

void clock::tick()
{
	if (!started_) {
		started_ = true;
		ev_.notify(domain::clock_start() - sc_time_stamp());
		return;
	}
	if (clk.read()) {
		/* A falling edge is due now, unless a skip covers its cycle. */
		const uint64_t k = dom_.falling_now(), next = dom_.cycle();

		if (next > k) {
			gated_ += next - k;
			ev_.notify(dom_.edge_time(next) - half_ - sc_time_stamp());
			return;
		}
		clk.write(false);
	} else {
		clk.write(true);
		edges_++;
	}
	ev_.notify(half_);
}

} /* namespace rnic_sc */
