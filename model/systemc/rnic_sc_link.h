/* SPDX-License-Identifier: MIT */
/*
 * rnic_sc_link.h - the network between the nics: every node's full-duplex
 * link into a switch that routes on the destination IPv4 address, with the
 * model's wire (model/wire.h: latency, link rate and per-frame overhead,
 * faults, directed drops, pcap) computing every frame's arrival.
 *
 * Sockets: tx_in[n] (target) takes the frames nic n sends, stamped with the
 * edge of their last beat; rx_out[n] (initiator) hands nic n the frames for
 * it, stamped with the cycle their first beat reaches its RX, at the start
 * of that cycle. The link has no clock of its own: the domain runs its
 * cycle at the start of every cycle it evaluates (cycle_begin()), before
 * any node settles, which is where the native loop moves frames, so every
 * frame arrives at the native cycle, faults included.
 */
#ifndef RNIC_SC_LINK_H
#define RNIC_SC_LINK_H

#include <cstdint>
#include <memory>
#include <systemc>
#include <tlm>
#include <tlm_utils/simple_initiator_socket.h>
#include <tlm_utils/simple_target_socket.h>
#include <vector>

#include "sim_phase.h"
#include "wire.h"

namespace rnic_sc {

class domain;

class link : public sc_core::sc_module, private rnic::sim_link {
public:
	std::vector<std::unique_ptr<tlm_utils::simple_target_socket_tagged<link>>> tx_in;
	std::vector<std::unique_ptr<tlm_utils::simple_initiator_socket_tagged<link>>> rx_out;

	/* Latency, rate, overhead and the faults every link direction has in
	 * the simulation (RNIC_WIRE_*) now. From then on the model's C API
	 * (rnic_sim_set_link_faults, rnic_sim_wire_drop, their counts,
	 * RNIC_WIRE_STATS) reaches this link (rnic::sim_set_link). */
	link(sc_core::sc_module_name name, domain &dom);
	~link() override;

	/* The same as rnic_sim_set_link_faults() and _link_fault_counts(). */
	int set_faults(unsigned node, unsigned dir, const rnic_wire_faults *f);
	const rnic_wire_fault_counts &fault_counts(unsigned node, unsigned dir)
	{
		return sync().fault_counts(node, dir);
	}
	int pcap_open(const char *path) { return net_.pcap_open(path); }
	uint64_t frames(unsigned node) const { return net_.frames(node); }

	/* For the domain: the frames of the edges before @c go on the wire,
	 * then the frames arriving at @c go out. */
	void cycle_begin(uint64_t c);
	/* The first cycle a frame arrives or a held one is due (~0: none). */
	uint64_t next_event() const { return net_.next_event(); }

private:
	struct sent {
		uint64_t cycle;
		unsigned node;
		std::vector<uint8_t> frame;
	};
	void tx_transport(int id, tlm::tlm_generic_payload &t, sc_core::sc_time &d);
	/* sim_link: the frames sent so far onto the wire, in the native order. */
	rnic::wire &sync() override;

	domain &dom_;
	rnic::wire net_;
	std::vector<sent> sent_;
};

} /* namespace rnic_sc */

#endif /* RNIC_SC_LINK_H */
