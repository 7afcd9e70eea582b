/* SPDX-License-Identifier: MIT */
/*
 * wire.h - the network between the nodes: one full-duplex link per node into
 * an ideal switch that routes on the destination IPv4 address. Internal to
 * the model.
 */
#ifndef RNIC_WIRE_H
#define RNIC_WIRE_H

#include <cstdint>
#include <cstdio>
#include <queue>
#include <vector>

#include "rnic_model.h"
#include "sim_util.h"

class Vrnic_top;

namespace rnic {

struct wire_cfg {
	unsigned nodes;
	unsigned latency;
	unsigned bytes_per_cycle;
	unsigned overhead;
};

class wire {
public:
	explicit wire(const wire_cfg &cfg);
	~wire();

	/* Start of the cycle whose edge is @cycle: frames due go to RX queues. */
	void deliver(uint64_t cycle)
	{
		while (!flight_.empty() && flight_.top().at <= cycle) {
			const flight &f = flight_.top();

			port_[f.dst].rxq.push_back(f.buf);
			flight_.pop();
		}
	}
	void drive(unsigned node, Vrnic_top &t);
	void sample(unsigned node, Vrnic_top &t, uint64_t cycle);

	uint64_t frames(unsigned node) const { return port_[node].frames; }
	uint64_t drops(unsigned node) const { return port_[node].drops; }
	uint64_t proto_errors(unsigned node) const { return port_[node].proto_errors; }

	int pcap_open(const char *path);
	void pcap_close();

private:
	struct flight {
		uint64_t at;	/* cycle of the first RX beat */
		uint64_t seq;	/* send order breaks ties */
		uint32_t buf;
		uint32_t dst;
		bool operator>(const flight &o) const
		{
			return at != o.at ? at > o.at : seq > o.seq;
		}
	};
	struct port {
		int32_t tx_buf = -1;	/* frame being assembled */
		uint64_t link_free = 0;	/* first cycle the TX link is idle */
		ring<uint32_t> rxq;	/* arrived frames, head on rx_* */
		uint32_t rx_off = 0;	/* next byte of the head frame */
		bool rx_driven = false;	/* that beat is already on the ports */
		uint64_t frames = 0;
		uint64_t drops = 0;
		uint64_t proto_errors = 0;
	};

	uint32_t alloc_buf();
	void free_buf(uint32_t b) { free_.push_back(b); }
	void send(unsigned node, uint64_t cycle);
	void pcap_frame(uint64_t cycle, const std::vector<uint8_t> &f);

	wire_cfg cfg_;
	port port_[RNIC_SIM_MAX_NODES];
	/* Frame buffers are recycled so steady traffic does not allocate. */
	std::vector<std::vector<uint8_t>> bufs_;
	std::vector<uint32_t> free_;
	std::priority_queue<flight, std::vector<flight>, std::greater<flight>> flight_;
	uint64_t seq_ = 0;
	FILE *pcap_ = nullptr;
};

} /* namespace rnic */

#endif /* RNIC_WIRE_H */
