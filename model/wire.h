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
#include <mutex>
#include <queue>
#include <vector>

#include "rnic_model.h"
#include "sim_util.h"
#include "wire_faults.h"

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
		if (nheld_)
			release_due(cycle);
		while (!flight_.empty() && flight_.top().at <= cycle) {
			const flight &f = flight_.top();
			port &d = port_[f.dst];

			d.rxq.push_back(f.buf);
			d.rx.cnt.delivered++;
			if (f.flags)
				arrived_corrupted(d, f.buf);
			flight_.pop();
		}
	}
	void drive(unsigned node, Vrnic_top &t, uint64_t cycle);
	/* The link takes a beat from @node at edge @cycle: what it was
	 * handed leaves within one largest frame's serialisation. */
	bool tx_ready(unsigned node, uint64_t cycle) const
	{
		return port_[node].link_free <= cycle + tx_slack_;
	}
	void sample(unsigned node, Vrnic_top &t, uint64_t cycle);
	/*
	 * Batches (sim.cpp, RNIC_THREADS): each node runs the cycles up to
	 * @end on a thread of its own, so during a batch a node's calls touch
	 * its own port only. batch_begin() hands every frame arriving before
	 * @end to its receiver's due list (no frame sent in the batch arrives
	 * before @end: the caller keeps @end within the latency) and sets
	 * aside free buffers for @cycles cycles; deliver_node() is deliver()
	 * for one node; frames sent in the batch are kept per sender, and
	 * batch_end() puts them in flight in the order one thread would have
	 * (cycle, then node) and the frames still due back in flight.
	 * Only on the plain path: batchable().
	 */
	bool batchable() const
	{
		return !nfaulty_ && !nheld_ && !pcap_ && !uplink_ && rules_.empty();
	}
	void batch_begin(uint64_t end, size_t cycles);
	void deliver_node(unsigned node, uint64_t cycle)
	{
		port &d = port_[node];

		while (!d.due.empty() && d.due.front().at <= cycle) {
			d.rxq.push_back(d.due.front().buf);
			d.rx.cnt.delivered++;
			d.due.pop_front();
		}
	}
	void batch_end();

	uint64_t frames(unsigned node) const { return port_[node].frames; }
	uint64_t drops(unsigned node) const { return port_[node].drops; }
	uint64_t proto_errors(unsigned node) const { return port_[node].proto_errors; }

	/* Faults of one link direction (RNIC_WIRE_DIR_TX/RX); @now is the
	 * current cycle. */
	void set_faults(unsigned node, unsigned dir, const rnic_wire_faults *f, uint64_t now);
	const rnic_wire_faults &faults(unsigned node, unsigned dir) const
	{
		return link(node, dir).cfg();
	}
	const rnic_wire_fault_counts &fault_counts(unsigned node, unsigned dir) const
	{
		return link(node, dir).cnt;
	}
	/* A frame from @node whose last beat leaves at edge @cycle. */
	void inject(unsigned node, uint64_t cycle, const uint8_t *data, size_t len);

	/* Multi-process fabric (docs/fabric.md): the frames the nodes send
	 * leave through @fn (after the pcap and the frame count) instead of
	 * the local switch, and the switch's frames come in by arrive(). */
	using uplink_fn = void (*)(void *arg, unsigned node, uint64_t cycle,
				   const uint8_t *frame, size_t len);
	void set_uplink(uplink_fn fn, void *arg)
	{
		uplink_ = fn;
		uplink_arg_ = arg;
	}
	/* A frame for @node whose first beat reaches its RX at cycle @at. */
	void arrive(unsigned node, uint64_t at, const uint8_t *data, size_t len);

	/* Nothing in flight, held back, queued or being sent. */
	bool idle() const
	{
		if (!flight_.empty() || nheld_)
			return false;
		for (unsigned i = 0; i < cfg_.nodes; i++)
			if (!port_[i].rxq.empty() || port_[i].tx_buf >= 0)
				return false;
		return true;
	}

	/* Fast-forward: whether @node's RX port has a beat to offer, and the
	 * first cycle whose deliver() moves a frame (an arrival or a held
	 * frame's deadline; ~0: none). */
	bool rx_pending(unsigned node) const { return !port_[node].rxq.empty(); }
	uint64_t next_event() const
	{
		uint64_t e = flight_.empty() ? ~0ull : flight_.top().at;

		for (unsigned i = 0; nheld_ && i < cfg_.nodes; i++) {
			if (port_[i].tx.nheld())
				e = std::min(e, port_[i].tx.next_deadline());
			if (port_[i].rx.nheld())
				e = std::min(e, port_[i].rx.next_deadline());
		}
		return e;
	}

	/* @node's RX queue, for tests that drive the wire without the RTL (not
	 * to be mixed with drive()/sample() on that node). */
	size_t rx_queued(unsigned node) const { return port_[node].rxq.size(); }
	const std::vector<uint8_t> &rx_front(unsigned node) { return bufs_[port_[node].rxq.front()]; }
	void rx_pop(unsigned node)
	{
		free_buf(port_[node].rxq.front());
		port_[node].rxq.pop_front();
	}

	int pcap_open(const char *path);
	void pcap_close();

	/* Directed loss for tests: drop frames sent by @node whose BTH opcode
	 * and PSN match (negative: any), after letting @skip matches pass. */
	void add_drop_rule(unsigned node, int opcode, int64_t psn, uint32_t skip, uint32_t count)
	{
		rules_.push_back({node, opcode, psn, skip, count});
	}
	uint64_t rule_drops(unsigned node) const { return port_[node].rule_drops; }

private:
	struct drop_rule {
		unsigned node;
		int opcode;
		int64_t psn;
		uint32_t skip, count;
	};
	bool rule_drop(unsigned node, const std::vector<uint8_t> &f);
	std::vector<drop_rule> rules_;

	struct flight {
		uint64_t at;	/* cycle of the first RX beat */
		uint64_t seq;	/* send order breaks ties */
		uint32_t buf;
		uint16_t dst;
		uint16_t flags;	/* kPktCorrupted */
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
		uint64_t rule_drops = 0;	/* by add_drop_rule() */
		fault_link tx, rx;	/* node -> switch, switch -> node */
		uint64_t rx_stall = 0;	/* RX: nothing arrives before a delayed frame */
		/* In a batch: frames arriving here before its end, and the
		 * frames this node sent, with the cycle of their last beat. */
		ring<flight> due;
		std::vector<std::pair<uint64_t, flight>> sent;
		size_t sent_head = 0;
	};

	uint32_t alloc_buf();
	uint32_t new_buf();
	void free_buf(uint32_t b)
	{
		if (batch_) {
			std::lock_guard<std::mutex> l(buf_lock_);
			free_.push_back(b);
			return;
		}
		free_.push_back(b);
	}
	void send(unsigned node, uint64_t cycle);
	void send_buf(unsigned node, uint64_t cycle, uint32_t b);
	uint32_t route(const std::vector<uint8_t> &f) const;
	uint64_t serial(size_t len) const;
	/* The faulty path: sender's link, switch, receiver's link. */
	void send_faulty(unsigned node, uint64_t cycle, uint32_t b, uint32_t dst,
			 uint64_t start, uint64_t ser);
	void to_rx(wpkt k);
	void to_flight(const wpkt &k) { flight_.push({k.at, seq_++, k.buf, k.dst, k.flags}); }
	void next_stage(const wpkt &k, bool rx) { rx ? to_flight(k) : to_rx(k); }
	void pass(fault_link &l, wpkt k, fault_draw &d, bool rx);
	void overtake(fault_link &l, uint64_t at, bool rx);
	void release_due(uint64_t cycle);
	void arrived_corrupted(port &d, uint32_t b);
	fault_link &link(unsigned node, unsigned dir)
	{
		return dir == RNIC_WIRE_DIR_RX ? port_[node].rx : port_[node].tx;
	}
	const fault_link &link(unsigned node, unsigned dir) const
	{
		return dir == RNIC_WIRE_DIR_RX ? port_[node].rx : port_[node].tx;
	}
	void pcap_frame(uint64_t cycle, const std::vector<uint8_t> &f);

	wire_cfg cfg_;
	port port_[RNIC_SIM_MAX_NODES];
	/* Frame buffers are recycled so steady traffic does not allocate. */
	std::vector<std::vector<uint8_t>> bufs_;
	std::vector<uint32_t> free_;
	std::priority_queue<flight, std::vector<flight>, std::greater<flight>> flight_;
	uint64_t seq_ = 0;
	unsigned nfaulty_ = 0;	/* links with faults on: 0 keeps the plain path */
	size_t nheld_ = 0;	/* frames held back on all links */
	uint64_t now_ = 0;	/* cycle of the send or delivery being handled */
	/* The largest frame: a 4096-byte payload behind the longest headers
	 * (Ethernet, IPv4, UDP, BTH, RETH, ImmDt) and the ICRC. */
	static constexpr size_t kMaxFrame = 14 + 20 + 8 + 12 + 16 + 4 + 4096 + 4;
	/* A node may hand the link a frame while what it handed before leaves
	 * within this many cycles (one largest frame's serialisation). */
	uint64_t tx_slack_;
	FILE *pcap_ = nullptr;
	uplink_fn uplink_ = nullptr;
	void *uplink_arg_ = nullptr;
	/* In a batch (batch_begin()): the free list is shared between the
	 * nodes' threads; bufs_ does not grow. */
	bool batch_ = false;
	std::mutex buf_lock_;
};

} /* namespace rnic */

#endif /* RNIC_WIRE_H */
