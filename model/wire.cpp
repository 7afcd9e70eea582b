// SPDX-License-Identifier: MIT
/*
 * wire.cpp - frames between the nodes.
 *
 * TX is always ready. A frame ends on its tx_last_o beat (edge c); it is
 * routed on the destination IPv4 address in bytes 30..33 (10.0.0.<n+1> is
 * node n, loopback included; anything else is dropped and counted). The
 * sender's link serialises it for ceil((len + overhead) / bytes_per_cycle)
 * cycles starting at max(c, end of the previous frame on that link), and it
 * reaches the receiver wire_latency cycles after that. Arrived frames wait in
 * an unbounded queue (lossless) and go out on rx_* one beat per cycle,
 * in order of arrival (ties: send order), as long as rx_ready_o allows.
 * Only the sender's link is a bottleneck: frames from several senders to one
 * receiver (incast) are limited by its one beat per cycle, not the link rate.
 */
#include "wire.h"

#include <cerrno>
#include <functional>

#include "Vrnic_top.h"

namespace rnic {

wire::wire(const wire_cfg &cfg) : cfg_(cfg)
{
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

uint32_t wire::alloc_buf()
{
	if (free_.empty()) {
		bufs_.emplace_back();
		bufs_.back().reserve(4096 + 256);
		return bufs_.size() - 1;
	}
	uint32_t b = free_.back();

	free_.pop_back();
	bufs_[b].clear();
	return b;
}

void wire::drive(unsigned node, Vrnic_top &t)
{
	port &p = port_[node];

	t.tx_ready_i = 1;
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
	const std::vector<uint8_t> &f = bufs_[b];

	p.tx_buf = -1;
	p.frames++;
	if (pcap_)
		pcap_frame(cycle, f);

	uint32_t dst = ~0u;

	if (f.size() >= 34) {
		uint32_t ip = (uint32_t)f[30] << 24 | f[31] << 16 | f[32] << 8 | f[33];

		if ((ip & 0xffffff00u) == 0x0a000000u && (ip & 0xff) >= 1 &&
		    (ip & 0xff) <= cfg_.nodes)
			dst = (ip & 0xff) - 1;
	}
	if (dst == ~0u) {
		p.drops++;
		free_buf(b);
		return;
	}

	uint64_t ser = (f.size() + cfg_.overhead + cfg_.bytes_per_cycle - 1) /
		       cfg_.bytes_per_cycle;
	uint64_t start = std::max(cycle, p.link_free);

	ser = std::max<uint64_t>(ser, 1);	/* arrive after the edge that sent it */
	p.link_free = start + ser;
	flight_.push({start + ser + cfg_.latency, seq_++, b, dst});
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
