// SPDX-License-Identifier: MIT
/*
 * sc_platform.cpp - the example virtual platform (docs/systemc.md): the
 * nodes of the model as rnic_sc::nic components, each with an IOMMU in
 * front of the host's memory, the link between them, and a host CPU that
 * runs a verbs program - linked in as rnic_app_main(), its own source
 * unchanged (tb/systemc/CMakeLists.txt builds tb/bench/demo.c so).
 *
 *   verbs_host --bar[n]--> nic n --dma--> iommu n --> host_memory
 *       ^msi<------------- nic n --eth_tx/eth_rx--> link
 *
 * The simulation is the model's global one (rnic_sim_global()), so the
 * environment configures it as it does a native run (RNIC_NODES,
 * RNIC_MEM_*, RNIC_WIRE_*, RNIC_TRACE, RNIC_PCAP, RNIC_FFWD,
 * RNIC_TIMELINE...). Options:
 *   --dma-timed         the memory's annotated delays set the DMA cycles
 *   --mem-lat=R,W       the memory annotates R cycles per read, W per write
 *   --vcd=<file>        sc_trace of the platform's signals (clock, irq lines)
 *   --free-clock        a free-running sc_clock instead of the gated one
 * At exit it prints the platform's counts on stderr.
 */
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <systemc>
#include <vector>

#include "rnic_model.h"
#include "rnic_sc_clock.h"
#include "rnic_sc_domain.h"
#include "rnic_sc_host_memory.h"
#include "rnic_sc_iommu.h"
#include "rnic_sc_link.h"
#include "rnic_sc_nic.h"
#include "rnic_sc_verbs_host.h"

extern "C" int rnic_app_main(int argc, char **argv);

using namespace sc_core;

int sc_main(int argc, char **argv)
{
	bool timed = false, free_clock = false;
	unsigned rd_lat = 0, wr_lat = 0;
	const char *vcd = nullptr;
	/* The program's arguments: its name, then whatever follows "--". */
	std::vector<char *> pargv{argv[0]};

	for (int i = 1; i < argc; i++) {
		if (!std::strcmp(argv[i], "--")) {
			pargv.insert(pargv.end(), argv + i + 1, argv + argc);
			break;
		} else if (!std::strcmp(argv[i], "--dma-timed")) {
			timed = true;
		} else if (!std::strncmp(argv[i], "--mem-lat=", 10) &&
			   std::sscanf(argv[i] + 10, "%u,%u", &rd_lat, &wr_lat) == 2) {
		} else if (!std::strcmp(argv[i], "--free-clock")) {
			free_clock = true;
		} else if (!std::strncmp(argv[i], "--vcd=", 6)) {
			vcd = argv[i] + 6;
		} else {
			std::fprintf(stderr, "usage: %s [--dma-timed] [--mem-lat=R,W] [--vcd=FILE] "
				     "[--free-clock] [-- program arguments]\n",
				     argv[0]);
			return 2;
		}
	}
	/* The kernel's messages are not the program's output. */
	sc_report_handler::set_actions(SC_INFO, SC_DO_NOTHING);

	rnic_sim *sim = rnic_sim_global();
	const unsigned n = rnic_sim_nodes(sim);
	rnic_sc::domain dom(sim);
	/* The gated clock, or a free-running one: the same cycles. */
	std::unique_ptr<rnic_sc::clock> gclk;
	std::unique_ptr<sc_clock> fclk;
	const sc_signal_in_if<bool> *clk;

	if (free_clock) {
		fclk.reset(new sc_clock("clk", rnic_sc::domain::period(), 0.5,
					rnic_sc::domain::clock_start(), false));
		clk = fclk.get();
	} else {
		gclk.reset(new rnic_sc::clock("clock", dom));
		clk = &gclk->clk;
	}
	rnic_sc::host_memory mem("mem");
	rnic_sc::link net("link", dom);
	std::vector<std::unique_ptr<rnic_sc::iommu>> iommus;
	std::vector<std::unique_ptr<rnic_sc::nic>> nics;
	std::vector<std::unique_ptr<sc_signal<bool>>> irqs;
	std::vector<rnic_sc::iommu *> iommu_ptrs;

	mem.set_latency(rnic_sc::domain::period() * rd_lat, rnic_sc::domain::period() * wr_lat);
	for (unsigned i = 0; i < n; i++) {
		std::string s = std::to_string(i);

		iommus.emplace_back(new rnic_sc::iommu(("iommu" + s).c_str()));
		iommu_ptrs.push_back(iommus.back().get());
		nics.emplace_back(new rnic_sc::nic(("nic" + s).c_str(), dom, i));
		irqs.emplace_back(new sc_signal<bool>(("irq" + s).c_str()));
	}
	const int pargc = (int)pargv.size();

	pargv.push_back(nullptr);
	rnic_sc::verbs_host host("host", dom, iommu_ptrs,
				 [&pargv, pargc] { return rnic_app_main(pargc, pargv.data()); });

	for (unsigned i = 0; i < n; i++) {
		rnic_sc::nic &c = *nics[i];

		c.clk(*clk);
		c.irq(*irqs[i]);
		c.set_dma_timed(timed);
		(*host.bar[i])(c.bar);
		c.msi(host.msi);
		c.dma(iommus[i]->in);
		iommus[i]->out(mem.in);
		c.eth_tx(*net.tx_in[i]);
		(*net.rx_out[i])(c.eth_rx);
	}

	sc_trace_file *tf = nullptr;

	if (vcd) {
		std::string base(vcd);

		if (base.size() > 4 && base.compare(base.size() - 4, 4, ".vcd") == 0)
			base.resize(base.size() - 4);
		tf = sc_create_vcd_trace_file(base.c_str());
		sc_trace(tf, *clk, "clk");
		for (unsigned i = 0; i < n; i++)
			sc_trace(tf, *irqs[i], "irq" + std::to_string(i));
	}

	sc_start();
	if (tf)
		sc_close_vcd_trace_file(tf);
	if (!host.finished()) {
		std::fprintf(stderr, "sc_platform: the simulation ended before the program\n");
		return 1;
	}
	uint64_t faults = 0;

	for (unsigned i = 0; i < n; i++) {
		for (unsigned d = 0; d < 2; d++) {
			const rnic_wire_fault_counts &c = net.fault_counts(i, d);

			faults += c.dropped + c.corrupted + c.duplicated + c.reordered;
		}
	}
	std::fprintf(stderr, "sc_platform: link faults: %llu frames dropped, corrupted, duplicated "
		     "or reordered\n", (unsigned long long)faults);
	std::fprintf(stderr, "sc_platform: cycle %llu, %llu edges evaluated, %llu skipped, "
		     "%llu MSIs, %llu memory reads, %llu memory writes, %llu late BAR posts\n",
		     (unsigned long long)rnic_sim_cycle(sim), (unsigned long long)dom.edges(),
		     (unsigned long long)dom.skipped(), (unsigned long long)host.msis(),
		     (unsigned long long)mem.reads(), (unsigned long long)mem.writes(),
		     (unsigned long long)dom.late_posts());
	return host.exit_code();
}
