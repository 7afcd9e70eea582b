/* SPDX-License-Identifier: MIT */
/*
 * fabric_proto.h - what the node side (fabric_link) and the switch
 * (rnic-fabric) agree on: file names in the fabric directory and how the
 * wire latency splits into the two links' lookahead (docs/fabric.md).
 */
#ifndef RNIC_FABRIC_PROTO_H
#define RNIC_FABRIC_PROTO_H

#include <cstdint>
#include <cstdlib>
#include <string>

namespace rnic {

constexpr unsigned kFabricPorts = 8;	/* RNIC_SIM_MAX_NODES */

/* DIR/node<N>.sock: the switch listens there for node N (SimBricks
 * Ethernet adapter protocol); DIR/node<N>.lock: flock()ed by the process
 * that hosts node N; DIR/fabric.lock: flock()ed by the running switch. */
inline std::string fabric_sock(const std::string &dir, unsigned node)
{
	return dir + "/node" + std::to_string(node) + ".sock";
}
inline std::string fabric_node_lock(const std::string &dir, unsigned node)
{
	return dir + "/node" + std::to_string(node) + ".lock";
}
inline std::string fabric_lock(const std::string &dir)
{
	return dir + "/fabric.lock";
}

/*
 * A frame whose last beat leaves node A at edge c reaches node B's RX at
 * `at` >= c + 1 + wire latency (serialisation takes at least one cycle). The
 * single-process wire computes `at`; across processes the same computation
 * runs in the switch, which learns of the frame only over A's link and must
 * tell B before B simulates `at`. So the two links' latencies (SimBricks'
 * link_latency, the synchronisation lookahead) add up to at most
 * 1 + wire latency: node -> switch up_lat, switch -> node down_lat.
 */
struct fabric_lat {
	uint64_t up;	/* node -> switch, cycles */
	uint64_t down;	/* switch -> node, cycles */
};

inline fabric_lat fabric_split(unsigned wire_latency)
{
	uint64_t total = (uint64_t)wire_latency + 1;
	uint64_t up = total / 2;

	if (up < 1)
		up = 1;
	return {up, total > up ? total - up : 1};
}

/* Looks at a link this many times before sleeping on it
 * (RNIC_FABRIC_SPIN, default 32): spinning answers a peer sooner when a
 * core is free and wastes one when none is. */
inline unsigned fabric_spins()
{
	static unsigned v = [] {
		const char *e = std::getenv("RNIC_FABRIC_SPIN");

		return e && *e ? (unsigned)std::strtoul(e, nullptr, 0) : 32u;
	}();
	return v;
}

} /* namespace rnic */

#endif /* RNIC_FABRIC_PROTO_H */
