// SPDX-License-Identifier: MIT
/*
 * rnic_sc_domain.cpp - cycles and SystemC time, the shared phases of a
 * cycle, and the waits of software (rnic_sc_domain.h).
 *
 * Why the split cycle is the native one: tick() runs begin, settle (every
 * node), decide, edge (every node), in that order. Here every falling edge
 * runs begin (the first nic to get there) and its own settle; every rising
 * edge runs decide (the first nic to get there, so before any node's edge)
 * and its own edge. Nodes do not see each other within a cycle: the link
 * moves frames in the begin phase, where the native loop does, software
 * acts between a rising edge and the next falling one, and a waiting thread
 * wakes a delta cycle after the rising edge, once every nic has run it.
 */
#include "rnic_sc_domain.h"

#include <cstdio>

#include "rnic_sc_clock.h"
#include "rnic_sc_host_if.h"
#include "rnic_sc_link.h"
#include "rnic_sc_nic.h"

using namespace sc_core;

namespace rnic_sc {

namespace {

constexpr uint64_t kMmioReadTimeout = 100000;	/* cycles, as the native loop */

void uplink(void *arg, unsigned node, uint64_t cycle, const uint8_t *f, size_t len)
{
	static_cast<domain *>(arg)->nic_of(node).send_frame(cycle, f, len);
}

} /* namespace */

domain::domain(rnic_sim *sim)
	: sim_(sim), nics_(rnic_sim_nodes(sim), nullptr), period_ticks_(period().value()),
	  start_ticks_(clock_start().value())
{
	rnic::sim_set_host(sim_, this);
	rnic::sim_set_uplink(sim_, uplink, this);
}

domain::~domain()
{
	rnic::sim_set_uplink(sim_, nullptr, nullptr);
	rnic::sim_set_host(sim_, nullptr);
}

void domain::add_nic(nic *n)
{
	if (n->node() >= nics_.size() || nics_[n->node()])
		SC_REPORT_FATAL("rnic_sc", "nic for a node that does not exist or has one");
	nics_[n->node()] = n;
}

nic &domain::nic_of(unsigned node)
{
	if (node >= nics_.size() || !nics_[node])
		SC_REPORT_FATAL("rnic_sc", "no nic module for this node");
	return *nics_[node];
}

uint64_t domain::rising_now() const
{
	return (sc_time_stamp().value() - start_ticks_ - period_ticks_ / 2) / period_ticks_;
}

uint64_t domain::falling_now() const
{
	return (sc_time_stamp().value() - start_ticks_) / period_ticks_;
}

bool domain::settle(unsigned node, uint64_t c)
{
	if (c != cycle())
		return false;	/* inside a skip */
	if (begun_ != c) {
		begun_ = c;
		if (clock_)
			clock_->fell(c);
		if (link_)
			link_->cycle_begin(c);
		rnic::sim_begin_cycle(sim_, c);
	}
	rnic::sim_settle(sim_, node, c);
	return true;
}

uint64_t domain::edge(unsigned node, uint64_t c)
{
	if (decided_ != c) {
		if (c != cycle() || begun_ != c)
			return 0;	/* inside a skip */
		uint64_t limit = wake_ == ~0ull ? ~0ull : wake_ > c ? wake_ - c : 0;

		decided_ = c;
		steps_ = rnic::sim_decide(sim_, c, limit, link_ ? link_->next_event() : ~0ull);
		edges_++;
		skipped_ += steps_ - 1;
		if (clock_)
			clock_->rose(c, cycle());
	}
	if (steps_ > 1)
		return steps_;
	rnic::sim_edge(sim_, node, c, false);
	return 1;
}

void domain::skip_end(unsigned node, uint64_t c)
{
	rnic::sim_edge(sim_, node, c, true);
}

void domain::finish()
{
	rnic::sim_flush(sim_);
}

void domain::note_post(unsigned node)
{
	const uint64_t now = sc_time_stamp().value();
	const uint64_t first = start_ticks_ + period_ticks_ / 2;
	const uint64_t passed = now < first ? 0 : (now - first) / period_ticks_ + 1;

	if (cycle() <= passed)
		return;
	/* A skip stands for edges SystemC time has not reached yet: the
	 * write is seen as if posted at the skip's end. */
	if (!late_posts_++)
		std::fprintf(stderr, "rnic_sc: node %u: a BAR write arrived inside a fast-forward "
			     "(cycle %llu of SystemC time, the model is at %llu); declare "
			     "wake-ups with domain::idle_until() or set RNIC_FFWD=0\n", node,
			     (unsigned long long)passed, (unsigned long long)cycle());
}

void domain::wait_cycles(uint64_t cycles)
{
	const uint64_t target = cycle() + cycles;

	wake_ = target;
	if (host_time(target) > sc_time_stamp())
		sc_core::wait(host_time(target) - sc_time_stamp());
	wake_ = cycle();
}

uint64_t domain::wait(unsigned node, uint64_t max_cycles)
{
	nic &n = nic_of(node);
	const uint64_t c0 = cycle();
	const uint64_t end = max_cycles > ~0ull - c0 ? ~0ull : c0 + max_cycles;
	const uint64_t w0 = rnic::sim_writes(sim_, node), i0 = rnic_sim_irqs(sim_, node);

	wake_ = end;
	n.watch(true, false);
	while (cycle() < end) {
		if (end == ~0ull)
			sc_core::wait(n.edge_event());
		else
			sc_core::wait(host_time(end) - sc_time_stamp(), n.edge_event());
		if (rnic::sim_writes(sim_, node) != w0 || rnic_sim_irqs(sim_, node) != i0)
			break;
	}
	n.watch(false, false);
	wake_ = cycle();
	return cycle() - c0;
}

uint64_t domain::read_bar(unsigned node, uint32_t addr)
{
	nic &n = nic_of(node);
	const uint32_t id = rnic::sim_mmio_post_read(sim_, node, addr);
	const uint64_t c0 = cycle();
	uint64_t v = ~0ull;

	wake_ = ~0ull;
	n.watch(true, true);
	while (!rnic::sim_mmio_read_done(sim_, node, id, &v)) {
		if (cycle() - c0 >= kMmioReadTimeout) {
			rnic::sim_mmio_cancel(sim_, node, id);
			v = ~0ull;
			break;
		}
		sc_core::wait(n.edge_event());
	}
	if (cycle() - c0 < kMmioReadTimeout) {
		/* PCIe ordering: the completion does not pass the device's
		 * posted writes issued before it. */
		const uint64_t target = rnic::sim_writes_taken(sim_, node);

		while (rnic::sim_writes(sim_, node) < target)
			sc_core::wait(n.edge_event());
	}
	n.watch(false, true);
	wake_ = cycle();
	return v;
}

void domain::mmio_write(unsigned node, uint32_t addr, uint64_t val)
{
	if (!host_)
		SC_REPORT_FATAL("rnic_sc", "rnic_sim_mmio_write without a host (domain::set_host)");
	host_->mmio_write(node, addr, val);
}

uint64_t domain::mmio_read(unsigned node, uint32_t addr)
{
	if (!host_)
		SC_REPORT_FATAL("rnic_sc", "rnic_sim_mmio_read without a host (domain::set_host)");
	return host_->mmio_read(node, addr);
}

int domain::iommu_map(unsigned node, uint64_t iova, void *host, size_t len)
{
	if (!host_)
		SC_REPORT_FATAL("rnic_sc", "rnic_sim_iommu_map without a host (domain::set_host)");
	return host_->iommu_map(node, iova, host, len);
}

int domain::iommu_unmap(unsigned node, uint64_t iova, size_t len)
{
	if (!host_)
		SC_REPORT_FATAL("rnic_sc", "rnic_sim_iommu_unmap without a host (domain::set_host)");
	return host_->iommu_unmap(node, iova, len);
}

void domain::msi(unsigned node, uint32_t cqn)
{
	nic_of(node).send_msi(cqn);
}

} /* namespace rnic_sc */
