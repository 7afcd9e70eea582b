// SPDX-License-Identifier: MIT
/*
 * wire.cpp - frames between the nodes.
 *
 * A frame ends on its tx_last_o beat (edge c); it is routed on the
 * destination IPv4 address in bytes 30..33 (10.0.0.<n+1> is node n, loopback
 * included; anything else is dropped and counted). The sender's link
 * serialises it for ceil((len + overhead) / bytes_per_cycle) cycles starting
 * at max(c, end of the previous frame on that link), and it reaches the
 * receiver wire_latency cycles after that. The link paces the sender as a
 * MAC does: tx_ready_i is low while the frames handed to it need more than
 * the serialisation time of a largest frame (kMaxFrame) to leave, so a node
 * that sends back to back keeps its frames queued inside the NIC (where its
 * own arbitration decides what goes next) and the link never idles. Arrived frames wait in
 * an unbounded queue (lossless) and go out on rx_* one beat per cycle,
 * in order of arrival (ties: send order), as long as rx_ready_o allows.
 * Only the sender's link is a bottleneck: frames from several senders to one
 * receiver (incast) are limited by its one beat per cycle, not the link rate.
 *
 * Faults (wire_faults.h): while no link has any, frames take the plain path
 * above, cycle for cycle. Otherwise a frame crosses the sender's TX link
 * (delay spike: the link stalls before it; down: lost if its serialisation
 * overlaps a down window; drop; corruption; duplication; reordering), is
 * routed on its possibly corrupted address, and crosses the receiver's RX
 * link (the same faults; it is on that link during the ser cycles before its
 * arrival). A frame held back for reordering goes on behind the frame that
 * completes its count, or at its deadline.
 */
#include "wire.h"

#include <cerrno>
#include <functional>

#include "Vrnic_top.h"

namespace rnic {

wire::wire(const wire_cfg &cfg) : cfg_(cfg)
{
	tx_slack_ = serial(kMaxFrame);
	std::vector<flight> v;

	v.reserve(256);
	flight_ = decltype(flight_)(std::greater<flight>(), std::move(v));
	bufs_.reserve(256);
	free_.reserve(256);
}

wire::~wire()
{
	pcap_close();
}

/* A buffer more in the pool, room for the largest frame. */
uint32_t wire::new_buf()
{
	bufs_.emplace_back();
	bufs_.back().reserve(4096 + 256);
	return bufs_.size() - 1;
}

uint32_t wire::alloc_buf()
{
	if (batch_) {
		/* batch_begin() set aside enough: bufs_ does not move under the
		 * other thread's references. */
		std::lock_guard<std::mutex> l(buf_lock_);
		uint32_t b = free_.back();

		free_.pop_back();
		bufs_[b].clear();
		return b;
	}
	if (free_.empty())
		return new_buf();
	uint32_t b = free_.back();

	free_.pop_back();
	bufs_[b].clear();
	return b;
}

void wire::drive(unsigned node, Vrnic_top &t, uint64_t cycle)
{
	port &p = port_[node];

	t.tx_ready_i = tx_ready(node, cycle);
	if (p.rxq.empty()) {
		t.rx_valid_i = 0;
		return;
	}
	if (!p.rx_driven) {
		const std::vector<uint8_t> &f = bufs_[p.rxq.front()];
		uint32_t n = std::min<size_t>(kBytes, f.size() - p.rx_off);

		port_put(t.rx_data_i, f.data() + p.rx_off, n);
		t.rx_keep_i = keep_mask(n);
		t.rx_last_i = p.rx_off + n >= f.size();
		p.rx_driven = true;
	}
	t.rx_valid_i = 1;
}

void wire::sample(unsigned node, Vrnic_top &t, uint64_t cycle)
{
	port &p = port_[node];

	if (t.rx_valid_i && t.rx_ready_o) {
		p.rx_off += kBytes;
		p.rx_driven = false;
		if (t.rx_last_i) {
			free_buf(p.rxq.front());
			p.rxq.pop_front();
			p.rx_off = 0;
		}
	}

	if (t.tx_valid_o && t.tx_ready_i) {
		uint64_t keep = t.tx_keep_o;
		unsigned n = __builtin_popcountll(keep);

		if (keep & (keep + 1)) {
			model_warn(node, cycle, "tx_keep_o 0x%llx is not contiguous from lane 0",
				   (unsigned long long)keep);
			p.proto_errors++;
		}
		if (p.tx_buf < 0)
			p.tx_buf = alloc_buf();
		std::vector<uint8_t> &f = bufs_[p.tx_buf];

		f.insert(f.end(), port_bytes(t.tx_data_o), port_bytes(t.tx_data_o) + n);
		if (t.tx_last_o)
			send(node, cycle);
	}
}

void wire::send(unsigned node, uint64_t cycle)
{
	port &p = port_[node];
	uint32_t b = p.tx_buf;

	p.tx_buf = -1;
	send_buf(node, cycle, b);
}

void wire::send_buf(unsigned node, uint64_t cycle, uint32_t b)
{
	port &p = port_[node];
	const std::vector<uint8_t> &f = bufs_[b];

	p.frames++;
	if (pcap_)
		pcap_frame(cycle, f);
	if (uplink_) {
		/* The switch serialises it on this link the same way; the
		 * node keeps the link's end for its pacing. */
		p.link_free = std::max(cycle, p.link_free) + serial(f.size());
		uplink_(uplink_arg_, node, cycle, f.data(), f.size());
		free_buf(b);
		return;
	}

	uint32_t dst = route(f);

	if (dst == ~0u) {
		p.drops++;
		free_buf(b);
		return;
	}
	if (!rules_.empty() && rule_drop(node, f)) {
		p.rule_drops++;
		free_buf(b);
		return;
	}

	uint64_t ser = serial(f.size());
	uint64_t start = std::max(cycle, p.link_free);

	p.tx.cnt.frames++;
	if (nfaulty_ || nheld_) {
		send_faulty(node, cycle, b, dst, start, ser);
		return;
	}
	p.link_free = start + ser;
	if (batch_) {
		p.sent.push_back({cycle, {start + ser + cfg_.latency, 0, b, (uint16_t)dst, 0}});
		return;
	}
	port_[dst].rx.cnt.frames++;
	flight_.push({start + ser + cfg_.latency, seq_++, b, (uint16_t)dst, 0});
}

void wire::batch_begin(uint64_t end, size_t cycles)
{
	/* A node starts at most one frame per cycle. */
	while (free_.size() < (size_t)cfg_.nodes * cycles)
		free_.push_back(new_buf());
	while (!flight_.empty() && flight_.top().at < end) {
		const flight &f = flight_.top();

		port_[f.dst].due.push_back(f);
		flight_.pop();
	}
	batch_ = true;
}

void wire::batch_end()
{
	batch_ = false;
	/* A batch cut short (a wait's end) leaves frames due later. */
	for (unsigned i = 0; i < cfg_.nodes; i++) {
		port &d = port_[i];

		while (!d.due.empty()) {
			flight_.push(d.due.front());
			d.due.pop_front();
		}
	}
	/* In flight in the order of sending: cycle, then node. */
	for (;;) {
		unsigned from = ~0u;
		uint64_t at = ~0ull;

		for (unsigned i = 0; i < cfg_.nodes; i++) {
			port &p = port_[i];

			if (p.sent_head < p.sent.size() && p.sent[p.sent_head].first < at) {
				at = p.sent[p.sent_head].first;
				from = i;
			}
		}
		if (from == ~0u)
			break;
		port &p = port_[from];
		flight f = p.sent[p.sent_head++].second;

		f.seq = seq_++;
		port_[f.dst].rx.cnt.frames++;
		flight_.push(f);
	}
	for (unsigned i = 0; i < cfg_.nodes; i++) {
		port_[i].sent.clear();
		port_[i].sent_head = 0;
	}
}

bool wire::rule_drop(unsigned node, const std::vector<uint8_t> &f)
{
	/* BTH: opcode at byte 42, PSN in bytes 51..53 (Ethernet, IPv4, UDP). */
	if (f.size() < 54)
		return false;
	int op = f[42];
	int64_t psn = (int64_t)f[51] << 16 | f[52] << 8 | f[53];

	for (size_t i = 0; i < rules_.size(); i++) {
		drop_rule &r = rules_[i];

		if (r.node != node || (r.opcode >= 0 && r.opcode != op) || (r.psn >= 0 && r.psn != psn))
			continue;
		if (r.skip) {
			r.skip--;
			continue;
		}
		if (--r.count == 0)
			rules_.erase(rules_.begin() + (long)i);
		return true;
	}
	return false;
}

uint32_t wire::route(const std::vector<uint8_t> &f) const
{
	if (f.size() < 34)
		return ~0u;

	uint32_t ip = (uint32_t)f[30] << 24 | f[31] << 16 | f[32] << 8 | f[33];

	if ((ip & 0xffffff00u) == 0x0a000000u && (ip & 0xff) >= 1 && (ip & 0xff) <= cfg_.nodes)
		return (ip & 0xff) - 1;
	return ~0u;
}

uint64_t wire::serial(size_t len) const
{
	uint64_t ser = (len + cfg_.overhead + cfg_.bytes_per_cycle - 1) / cfg_.bytes_per_cycle;

	return std::max<uint64_t>(ser, 1);	/* arrive after the edge that sent it */
}

void wire::inject(unsigned node, uint64_t cycle, const uint8_t *data, size_t len)
{
	uint32_t b = alloc_buf();

	bufs_[b].assign(data, data + len);
	send_buf(node, cycle, b);
}

void wire::arrive(unsigned node, uint64_t at, const uint8_t *data, size_t len)
{
	uint32_t b = alloc_buf();

	bufs_[b].assign(data, data + len);
	port_[node].rx.cnt.frames++;
	flight_.push({at, seq_++, b, (uint16_t)node, 0});
}

void wire::set_faults(unsigned node, unsigned dir, const rnic_wire_faults *f, uint64_t now)
{
	fault_link &l = link(node, dir);
	std::vector<wpkt> out;

	now_ = now;
	nfaulty_ -= l.on();
	l.release_all(now, out);
	nheld_ -= out.size();
	l.configure(f, node, dir, now);
	nfaulty_ += l.on();
	for (const wpkt &k : out)
		next_stage(k, dir == RNIC_WIRE_DIR_RX);
}

void wire::send_faulty(unsigned node, uint64_t cycle, uint32_t b, uint32_t dst,
		       uint64_t start, uint64_t ser)
{
	port &p = port_[node];
	fault_link &l = p.tx;
	wpkt k{0, b, (uint16_t)dst, 0};

	now_ = cycle;
	if (!l.on()) {
		p.link_free = start + ser;
		k.at = start + ser + cfg_.latency;
		to_rx(k);
		return;
	}

	fault_draw d = l.draw();

	/* A spike stalls the link: this frame and the ones queued behind it
	 * go later, in order. */
	if (d.spike) {
		start += l.cfg().delay_cycles;
		l.cnt.delayed++;
	}
	p.link_free = start + ser;
	k.at = start + ser + cfg_.latency;
	if (l.down(start, start + ser, cycle)) {
		l.cnt.down_lost++;
		free_buf(b);
		return;
	}
	if (d.drop) {
		l.cnt.dropped++;
		free_buf(b);
		return;
	}
	if (d.corrupt) {
		l.corrupt(bufs_[b], d);
		l.cnt.corrupted++;
		k.flags |= kPktCorrupted;

		/* The switch routes what arrived: maybe elsewhere, maybe nowhere. */
		uint32_t nd = route(bufs_[b]);

		if (nd != dst) {
			l.cnt.misrouted++;
			if (nd == ~0u) {
				p.drops++;
				free_buf(b);
				return;
			}
			k.dst = (uint16_t)nd;
		}
	}
	pass(l, k, d, false);
}

void wire::to_rx(wpkt k)
{
	port &p = port_[k.dst];
	fault_link &l = p.rx;

	l.cnt.frames++;
	if (!l.on()) {
		to_flight(k);
		return;
	}

	fault_draw d = l.draw();
	const uint64_t ser = serial(bufs_[k.buf].size());

	k.at = std::max(k.at, p.rx_stall);
	if (d.spike) {
		k.at += l.cfg().delay_cycles;
		p.rx_stall = k.at;
		l.cnt.delayed++;
	}
	if (l.down(k.at > ser ? k.at - ser : 0, k.at, now_)) {
		l.cnt.down_lost++;
		free_buf(k.buf);
		return;
	}
	if (d.drop) {
		l.cnt.dropped++;
		free_buf(k.buf);
		return;
	}
	if (d.corrupt) {
		l.corrupt(bufs_[k.buf], d);
		l.cnt.corrupted++;
		k.flags |= kPktCorrupted;
	}
	pass(l, k, d, true);
}

/* Duplication and reordering, then the next stage (RX link or flight). */
void wire::pass(fault_link &l, wpkt k, fault_draw &d, bool rx)
{
	wpkt copy = k;

	if (d.dup) {
		copy.buf = alloc_buf();
		bufs_[copy.buf] = bufs_[k.buf];
		l.cnt.duplicated++;
	}
	if (d.reorder) {
		l.hold(k, d);
		l.cnt.reordered++;
		nheld_++;
	} else {
		next_stage(k, rx);
		overtake(l, k.at, rx);
	}
	if (d.dup) {
		next_stage(copy, rx);
		overtake(l, copy.at, rx);
	}
}

/* A frame arriving at @at went past the frames held on @l. */
void wire::overtake(fault_link &l, uint64_t at, bool rx)
{
	if (!l.nheld())
		return;

	std::vector<wpkt> out;

	l.passed(at, out);
	nheld_ -= out.size();
	for (const wpkt &k : out)
		next_stage(k, rx);
}

void wire::release_due(uint64_t cycle)
{
	now_ = cycle;
	for (unsigned i = 0; i < cfg_.nodes; i++) {
		for (unsigned dir = 0; dir < 2; dir++) {
			fault_link &l = link(i, dir);

			if (!l.nheld() || cycle < l.next_deadline())
				continue;

			std::vector<wpkt> out;

			l.due(cycle, out);
			nheld_ -= out.size();
			for (const wpkt &k : out)
				next_stage(k, dir == RNIC_WIRE_DIR_RX);
		}
	}
}

void wire::arrived_corrupted(port &d, uint32_t b)
{
	const std::vector<uint8_t> &f = bufs_[b];

	d.rx.cnt.delivered_corrupted++;
	if (!roce_frame_intact(f.data(), f.size()))
		d.rx.cnt.delivered_bad++;
}

/* pcap with nanosecond timestamps: a cycle is 4 ns. */
int wire::pcap_open(const char *path)
{
	static const uint32_t hdr[6] = {
		0xa1b23c4d, 2 | 4u << 16, 0, 0, 65535, 1 /* Ethernet */
	};

	pcap_close();
	pcap_ = std::fopen(path, "wb");
	if (!pcap_)
		return -errno;
	if (std::fwrite(hdr, sizeof(hdr), 1, pcap_) != 1) {
		pcap_close();
		return -EIO;
	}
	return 0;
}

void wire::pcap_close()
{
	if (pcap_)
		std::fclose(pcap_);
	pcap_ = nullptr;
}

void wire::pcap_frame(uint64_t cycle, const std::vector<uint8_t> &f)
{
	uint64_t ns = cycle * 4;
	uint32_t rec[4] = {
		(uint32_t)(ns / 1000000000u), (uint32_t)(ns % 1000000000u),
		(uint32_t)f.size(), (uint32_t)f.size()
	};

	std::fwrite(rec, sizeof(rec), 1, pcap_);
	std::fwrite(f.data(), 1, f.size(), pcap_);
}

} /* namespace rnic */
