/* SPDX-License-Identifier: MIT */
/*
 * fabric_switch.h - the switch of the multi-process fabric (rnic-fabric):
 * one SimBricks Ethernet link per node, the single-process wire model in
 * between (latency, rate, faults, pcap, counters), conservative time
 * synchronisation. docs/fabric.md.
 */
#ifndef RNIC_FABRIC_SWITCH_H
#define RNIC_FABRIC_SWITCH_H

#include <cstdint>
#include <deque>
#include <memory>
#include <string>
#include <vector>

#include "fabric_proto.h"
#include "simbricks_eth.h"
#include "wire.h"

namespace rnic {

struct fabric_cfg {
	unsigned wire_latency;		/* cycles, >= 1 */
	unsigned wire_bytes_per_cycle;
	unsigned wire_overhead;
	double idle_exit;		/* > 0: exit after this many seconds without nodes */
	bool quiet;
};

class fabric_switch {
public:
	fabric_switch(const std::string &dir, const fabric_cfg &cfg);
	~fabric_switch();

	/* Takes the directory (fabric.lock) and listens on every node socket.
	 * Returns 0, -EBUSY (another switch serves it) or -errno. */
	int start();
	/* Serves until *stop becomes non-zero or the idle time ran out. */
	void run(const volatile int *stop);

	wire &net() { return *net_; }
	uint64_t now() const { return t_; }
	/* Per port: frames received from / sent to that node, frames that were
	 * routed to it while no process hosted it. */
	struct port_stats {
		uint64_t joins, frames_in, frames_out, unhosted;
	};
	const port_stats &stats(unsigned p) const { return ports_[p].st; }

private:
	struct pending {
		uint64_t ts;	/* cycles */
		std::vector<uint8_t> frame;
	};
	struct port {
		sb_eth link;
		bool open = false;
		bool joined = false;	/* its first message was seen and answered */
		uint64_t in_ts = 0;	/* newest timestamp seen, cycles */
		std::deque<pending> q;	/* frames not yet injected */
		port_stats st = {};
	};

	bool poll_ports();
	void join(unsigned p, uint64_t start_req);
	void drop_port(unsigned p, const char *why);
	bool step();
	void send_syncs();
	void deliver_out(uint64_t at);
	void log(const char *fmt, ...) __attribute__((format(printf, 2, 3)));

	std::string dir_;
	fabric_cfg cfg_;
	fabric_lat lat_;
	std::unique_ptr<wire> net_;
	port ports_[kFabricPorts];
	int lock_fd_ = -1;
	uint64_t t_ = 0;	/* next cycle to process */
};

} /* namespace rnic */

#endif /* RNIC_FABRIC_SWITCH_H */
