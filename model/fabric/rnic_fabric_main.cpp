// SPDX-License-Identifier: MIT
/*
 * rnic-fabric DIR [--idle-exit SECONDS] [--quiet]
 *
 * Serves the simulated network of the nodes that processes started with
 * RNIC_FABRIC=DIR host (docs/fabric.md): sockets DIR/node<N>.sock speak
 * SimBricks' Ethernet adapter protocol, the wire model between them is the
 * single-process one. Environment: RNIC_WIRE_LATENCY, RNIC_WIRE_BYTES_PER_CYCLE,
 * RNIC_WIRE_OVERHEAD (as for the nodes; they must agree), the RNIC_WIRE_*
 * faults, RNIC_PCAP=<file.pcap>, RNIC_WIRE_STATS=<1, stdout or a file>
 * (printed at exit). SIGINT and SIGTERM stop it cleanly.
 */
#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "fabric_switch.h"
#include "sim_util.h"
#include "wire_faults.h"

using namespace rnic;

static volatile int stop_flag;

static void on_signal(int sig)
{
	(void)sig;
	stop_flag = 1;
}

static unsigned env_uint(const char *name, unsigned def)
{
	const char *s = std::getenv(name);
	char *end;

	if (!s || !*s)
		return def;
	unsigned long v = std::strtoul(s, &end, 0);

	if (*end || v > 0xffffffffu) {
		std::fprintf(stderr, "rnic-fabric: ignoring %s=%s\n", name, s);
		return def;
	}
	return (unsigned)v;
}

static void print_stats(fabric_switch &sw)
{
	const char *e = std::getenv("RNIC_WIRE_STATS");
	FILE *f;

	if (!e || !*e || !std::strcmp(e, "0"))
		return;
	f = !std::strcmp(e, "stdout") ? stdout :
	    !std::strcmp(e, "1") || !std::strcmp(e, "stderr") ? stderr : std::fopen(e, "w");
	if (!f) {
		std::fprintf(stderr, "rnic-fabric: cannot open %s\n", e);
		return;
	}
	print_fault_header(f);
	for (unsigned i = 0; i < kFabricPorts; i++) {
		const fabric_switch::port_stats &s = sw.stats(i);

		if (!s.joins)
			continue;
		for (unsigned d = 0; d < 2; d++)
			print_fault_counts(f, i, d, sw.net().fault_counts(i, d));
		std::fprintf(f, "%4u fabric joins %llu frames_in %llu frames_out %llu unhosted %llu\n",
			     i, (unsigned long long)s.joins, (unsigned long long)s.frames_in,
			     (unsigned long long)s.frames_out, (unsigned long long)s.unhosted);
	}
	std::fprintf(f, "fabric cycle %llu\n", (unsigned long long)sw.now());
	if (f != stdout && f != stderr)
		std::fclose(f);
	else
		std::fflush(f);
}

static int usage()
{
	std::fprintf(stderr, "usage: rnic-fabric DIR [--idle-exit SECONDS] [--quiet]\n");
	return 2;
}

int main(int argc, char **argv)
{
	fabric_cfg cfg = {};
	const char *dir = nullptr;

	for (int i = 1; i < argc; i++) {
		if (!std::strcmp(argv[i], "--idle-exit") && i + 1 < argc)
			cfg.idle_exit = std::strtod(argv[++i], nullptr);
		else if (!std::strcmp(argv[i], "--quiet"))
			cfg.quiet = true;
		else if (argv[i][0] != '-' && !dir)
			dir = argv[i];
		else
			return usage();
	}
	if (!dir)
		return usage();
	cfg.wire_latency = env_uint("RNIC_WIRE_LATENCY", 25);
	cfg.wire_bytes_per_cycle = env_uint("RNIC_WIRE_BYTES_PER_CYCLE", kBytes);
	cfg.wire_overhead = env_uint("RNIC_WIRE_OVERHEAD", 24);
	if (cfg.wire_latency < 1) {
		std::fprintf(stderr, "rnic-fabric: the wire latency must be at least 1 cycle\n");
		return 2;
	}
	if (!cfg.wire_bytes_per_cycle)
		cfg.wire_bytes_per_cycle = kBytes;

	fabric_switch sw(dir, cfg);
	int r = sw.start();

	if (r == -EBUSY) {
		std::fprintf(stderr, "rnic-fabric: a fabric already serves %s\n", dir);
		return 3;
	}
	if (r) {
		std::fprintf(stderr, "rnic-fabric: cannot serve %s: %s\n", dir, std::strerror(-r));
		return 1;
	}
	env_wire_check(kFabricPorts);
	for (unsigned i = 0; i < kFabricPorts; i++) {
		for (unsigned d = 0; d < 2; d++) {
			rnic_wire_faults f;

			if (env_link_faults(i, d, &f))
				sw.net().set_faults(i, d, &f, 0);
		}
	}
	const char *pcap = std::getenv("RNIC_PCAP");

	if (pcap && *pcap && sw.net().pcap_open(pcap))
		std::fprintf(stderr, "rnic-fabric: cannot open pcap %s\n", pcap);

	struct sigaction sa = {};

	sa.sa_handler = on_signal;
	sigaction(SIGINT, &sa, nullptr);
	sigaction(SIGTERM, &sa, nullptr);
	std::signal(SIGPIPE, SIG_IGN);
	if (!cfg.quiet)
		std::fprintf(stderr, "rnic-fabric: serving %s (wire latency %u cycles)\n", dir,
			     cfg.wire_latency);
	sw.run(&stop_flag);
	print_stats(sw);
	if (!cfg.quiet)
		std::fprintf(stderr, "rnic-fabric: stopped at cycle %llu\n",
			     (unsigned long long)sw.now());
	return 0;
}
