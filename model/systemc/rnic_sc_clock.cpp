// SPDX-License-Identifier: MIT
/*
 * rnic_sc_clock.cpp - the nics' gated core clock (rnic_sc_clock.h).
 *
 * The first falling edge is notified at the start of the simulation; every
 * later edge by the domain, in the process that runs the edge before it:
 * the first nic to settle at a falling edge schedules the rise, and the
 * first nic at a rising edge, right after the model decided how many edges
 * it stands for, schedules the falling edge of the next cycle to evaluate.
 */
#include "rnic_sc_clock.h"

#include "rnic_sc_domain.h"

using namespace sc_core;

namespace rnic_sc {

const bool &clock::line::read() const
{
	/* At the time of an edge every process sees its new level, also one
	 * running before the nics took it. */
	if (sc_time_stamp().value() >= next_at_)
		val_ = next_rise_;
	return val_;
}

void clock::line::schedule(bool rise, const sc_time &at)
{
	next_rise_ = rise;
	next_at_ = at.value();
	(rise ? pos_ : neg_).notify(at - sc_time_stamp());
}

void clock::line::took(bool rise)
{
	val_ = rise;
	/* Those waiting for any change run in this delta cycle too (nobody
	 * asked for the event: no notification to pay for). */
	if (changed_used_)
		changed_.notify();
}

clock::clock(sc_module_name name, domain &dom)
	: sc_module(name), clk("clk"), dom_(dom), half_(sc_time::from_value(dom.period_ticks() / 2))
{
	dom_.set_clock(this);
}

clock::~clock()
{
	dom_.set_clock(nullptr);
}

void clock::start_of_simulation()
{
	clk.schedule(false, domain::clock_start());
}

void clock::fell(uint64_t c)
{
	if (fell_ == c)
		return;
	fell_ = c;
	clk.took(false);
	clk.schedule(true, dom_.edge_time(c));
}

void clock::rose(uint64_t c, uint64_t next)
{
	if (rose_ == c)
		return;
	rose_ = c;
	edges_++;
	gated_ += next - (c + 1);
	clk.took(true);
	clk.schedule(false, dom_.edge_time(next) - half_);
}

} /* namespace rnic_sc */
