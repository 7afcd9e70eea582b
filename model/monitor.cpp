// SPDX-License-Identifier: MIT
/*
 * monitor.cpp - doorbells and frames at the RTL's ports.
 *
 * Attribution rules (docs/observability.md):
 *   - a doorbell is seen when the RTL takes the MMIO write (valid && ready);
 *   - a frame on TX belongs to send WQE (qpn, idx) when the RTL's TX_FIRST
 *     or TX_LAST event fires on its first beat; the peer's RX looks it up by
 *     (its node, BTH destination QPN, PSN) and reports PEER_FIRST at the
 *     frame's first beat and PEER_LAST at its last beat;
 *   - an ACK (opcode 0x11), a READ response LAST/ONLY (0x0f, 0x10) or an
 *     atomic ACK (0x12) with PSN p, taken by the requester's RX, covers every
 *     waiting WQE of that QP whose last PSN is <= p. A NAK that makes the
 *     requester retry (RNR NAK, AETH syndrome 001xxxxx; PSN sequence error,
 *     0x60) covers those before p only; any other NAK (011xxxxx: invalid
 *     request, remote access, remote operational error) also the one that
 *     holds p, which completes in error. Waiting WQEs are dropped when the
 *     RTL writes their CQE (or a later one's), so flushed WQEs do not linger;
 *   - a SEND (any) or WRITE with immediate consumes a receive WQE. Its
 *     arrival (first beat of its first packet, last beat of its last) is
 *     reported as RECV_FIRST/RECV_LAST of (node, QPN) once the responder
 *     sends the ACK that covers it: a message the responder refused (RNR or
 *     sequence NAK) is not counted, its retransmission is; a fatal NAK
 *     counts the message it names (it consumes a receive WQE with an error
 *     completion); a duplicate of a message already counted is not;
 *   - a READ request is one packet, but the requester flags it "last" only
 *     when the READ fits one path MTU: for a longer READ the monitor adds the
 *     missing TX_LAST event itself (at the request's first beat, where the
 *     RTL reports TX_FIRST).
 *   - payload DMA: the TX builder issues the payload reads of its frames
 *     in frame order (DMA read tag source 1) and sends the frames in that
 *     order; read data return in request order. So the reads before a
 *     frame are the oldest unmatched ones whose lengths add up to its
 *     payload (from the IPv4 length, the opcode's extension headers and
 *     the BTH pad count). The first packet of a send WQE reports
 *     DMA_ISSUED (its first read) and DMA_RETURNED (the last beat of its
 *     last read); a READ response FIRST/ONLY reports them for the READ WQE
 *     it answers (the requester's waiting WQE with the highest first PSN
 *     <= the response's PSN, if that is a READ);
 *   - UD SENDs (0x64, 0x65) have no ACK: they count as arrived messages
 *     at once (one that the receiver drops, for a wrong Q_Key or no
 *     receive WQE, is counted too).
 * A retransmitted frame replaces the entry of the first copy (same PSN), so
 * PEER_* report the first copy that arrives; the timeline keeps the first
 * PEER_FIRST and the last PEER_LAST. A frame that never arrives (dropped by
 * a wire fault) leaves an entry behind; the table is cleared when it grows
 * past kMaxFlight.
 */
#include "monitor.h"

#include <cerrno>

#include "Vrnic_top.h"

namespace rnic {

namespace {

constexpr size_t kHdrBytes = 64;	/* Ethernet..AETH fit in 58 */
constexpr size_t kMaxFlight = 1u << 16;
constexpr uint16_t kRoceUdpPort = 4791;
constexpr unsigned kRdSrcTx = 1;	/* DMA read tag bits 7:5 of the TX builder */
constexpr size_t kMaxReads = 4096;

/* BTH opcodes (IBA 9.2, RC). */
constexpr uint8_t kOpReadReq = 0x0c;
constexpr uint8_t kOpReadRespFirst = 0x0d;
constexpr uint8_t kOpReadRespLast = 0x0f;
constexpr uint8_t kOpReadRespOnly = 0x10;
constexpr uint8_t kOpAck = 0x11;
constexpr uint8_t kOpAtomicAck = 0x12;

/* place_ keys of READ responses: apart from requests with the same PSN. */
constexpr uint64_t kPlaceResp = 1ull << 63;

/* Ev ports: kind k in bit k, QPN in [24k+23:24k], index in [16k+15:16k]. */
constexpr unsigned kEvTxFirst = 1, kEvTxLast = 2, kEvSendCqe = 3;

inline uint64_t key(unsigned node, uint32_t qpn)
{
	return (uint64_t)node << 24 | (qpn & 0xffffff);
}

inline uint64_t key(unsigned node, uint32_t qpn, uint32_t psn)
{
	return key(node, qpn) << 24 | (psn & 0xffffff);
}

/* PSNs compare modulo 2^24 within half the space. */
inline bool psn_le(uint32_t a, uint32_t b)
{
	return ((b - a) & 0xffffff) < 0x800000;
}

inline bool psn_lt(uint32_t a, uint32_t b)
{
	return a != b && psn_le(a, b);
}

/* 10.0.0.<n+1> is node n (model/wire.cpp routes the same way). */
inline int ip_node(uint32_t ip, unsigned nodes)
{
	if ((ip & 0xffffff00u) != 0x0a000000u || (ip & 0xff) < 1 || (ip & 0xff) > nodes)
		return -1;
	return (int)(ip & 0xff) - 1;
}

/* Opcodes that start a SEND/WRITE message, that end one, and that end one
 * that consumes a receive WQE (SEND of any kind, WRITE with immediate). */
inline bool msg_starts(uint8_t op)
{
	return op == 0x00 || op == 0x04 || op == 0x05 || op == 0x06 || op == 0x0a ||
	       op == 0x0b;
}

inline bool msg_ends(uint8_t op)
{
	return (op >= 0x02 && op <= 0x05) || (op >= 0x08 && op <= 0x0b);
}

inline bool msg_ends_recv(uint8_t op)
{
	return op == 0x02 || op == 0x03 || op == 0x04 || op == 0x05 || op == 0x09 ||
	       op == 0x0b;
}

/* A NAK that completes the WQE in error; RNR and PSN sequence error NAKs
 * (001xxxxx, 0x60) make the requester retry instead. */
inline bool nak_fatal(uint8_t syn)
{
	return syn >> 5 == 3 && syn != 0x60;
}

inline bool psn_in(uint32_t p, uint32_t first, uint32_t last)
{
	return psn_le(first, p) && psn_le(p, last);
}

/* (responder node, requester node, requester QPN) */
inline uint64_t pair_key(unsigned resp_node, unsigned req_node, uint32_t req_qpn)
{
	return (uint64_t)resp_node << 32 | (uint64_t)req_node << 24 | (req_qpn & 0xffffff);
}

/* Bytes of the extension headers after the BTH of opcode @op (IBA 9.2-9.4,
 * RC and UC share the low five bits; UD 0x64/0x65); -1 if not known. */
inline int ext_len(uint8_t op)
{
	static const int8_t rc[0x18] = {
		0, 0, 0, 4, 0, 4,		/* SEND FIRST..ONLY_IMM */
		16, 0, 0, 4, 16, 20,		/* WRITE FIRST..ONLY_IMM */
		16, 4, 0, 4, 4,			/* READ request, responses */
		4, 12, 28, 28,			/* ACK, atomic ACK, CMP_SWAP, FETCH_ADD */
		-1, 4, 4,			/* -, SEND_LAST/ONLY_WITH_INVALIDATE */
	};

	if (op == 0x64)
		return 8;
	if (op == 0x65)
		return 12;
	if ((op >> 5) > 1 || (op & 0x1f) >= 0x18)
		return -1;
	return rc[op & 0x1f];
}

inline bool has_aeth(uint8_t op)
{
	return op == kOpReadRespFirst || op == kOpReadRespLast || op == kOpReadRespOnly ||
	       op == kOpAck || op == kOpAtomicAck;
}

} /* namespace */

monitor::~monitor()
{
	for (unsigned i = 0; i < RNIC_SIM_MAX_NODES; i++)
		pcap_close(i);
}

void monitor::update()
{
	active_ = events_;
	for (unsigned i = 0; i < n_; i++)
		if (port_[i].pcap)
			active_ = true;
}

bool monitor::parse(const uint8_t *f, size_t len, roce &h)
{
	size_t l4, bth;

	if (len < 14 + 20 + 8 + 12 || f[12] != 0x08 || f[13] != 0x00 || f[14] >> 4 != 4)
		return false;
	l4 = 14 + (size_t)(f[14] & 15) * 4;
	bth = l4 + 8;
	if (f[23] != 17 || len < bth + 12 || (f[l4 + 2] << 8 | f[l4 + 3]) != kRoceUdpPort)
		return false;
	h.sip = (uint32_t)f[26] << 24 | f[27] << 16 | f[28] << 8 | f[29];
	h.dip = (uint32_t)f[30] << 24 | f[31] << 16 | f[32] << 8 | f[33];
	h.op = f[bth];
	h.dqpn = (uint32_t)f[bth + 5] << 16 | f[bth + 6] << 8 | f[bth + 7];
	h.psn = (uint32_t)f[bth + 9] << 16 | f[bth + 10] << 8 | f[bth + 11];
	h.syn = has_aeth(h.op) && len >= bth + 16 ? f[bth + 12] : 0;
	{
		int ext = ext_len(h.op);
		int pl = (f[16] << 8 | f[17]) - (int)(bth - 14) - 12 - ext -
			 (f[bth + 1] >> 4 & 3) - 4;

		h.payload = ext >= 0 && pl > 0 ? (uint32_t)pl : 0;
	}
	return true;
}

void monitor::sample(unsigned node, const mon_ports &t, uint64_t cycle,
		     std::vector<sim_event> &out)
{
	port &p = port_[node];
	const size_t keep = p.pcap ? SIZE_MAX : kHdrBytes;

	if (events_ && t.mmio_valid_i && t.mmio_ready_o && t.mmio_we_i &&
	    (t.mmio_addr_i == kRegSqDb || t.mmio_addr_i == kRegRqDb)) {
		uint64_t v = t.mmio_wdata_i;

		out.push_back({cycle, (uint32_t)(v & 0xffffff), (uint32_t)(v >> 32 & 0xffff),
			       (uint8_t)node,
			       (uint8_t)(t.mmio_addr_i == kRegSqDb ? RNIC_EV_SQ_DB : RNIC_EV_RQ_DB)});
	}
	/* The CQE of a send WQE ends the wait for its ACK (flushes included). */
	if (events_ && (t.ev_valid_o >> kEvSendCqe & 1))
		retire(node, port_field(t.ev_qpn_o, 24 * kEvSendCqe, 24),
		       (uint16_t)port_field(t.ev_idx_o, 16 * kEvSendCqe, 16));

	/* Payload reads of the TX builder: issued, and their last beat. */
	if (events_ && t.dma_rd_req_valid_o && t.dma_rd_req_ready_i &&
	    (t.dma_rd_req_tag_o >> 5) == kRdSrcTx) {
		if (p.rds.size() >= kMaxReads) {	/* never matched: forget them */
			p.rds.clear();
			p.rd_ret = 0;
		}
		p.rds.push_back({cycle, 0, t.dma_rd_req_len_o});
	}
	if (events_ && t.dma_rd_rsp_valid_i && t.dma_rd_rsp_ready_o && t.dma_rd_rsp_last_i &&
	    (t.dma_rd_rsp_tag_i >> 5) == kRdSrcTx && p.rd_ret < p.rds.size())
		p.rds[p.rd_ret++].returned = cycle;

	if (events_ && t.ev_place_o)
		placement(node, t, cycle, out);

	if (t.tx_valid_o && t.tx_ready_i) {
		unsigned n = __builtin_popcountll((uint64_t)t.tx_keep_o);

		if (!p.txlen) {
			bool first = t.ev_valid_o >> kEvTxFirst & 1;
			bool last = t.ev_valid_o >> kEvTxLast & 1;

			p.tx_first = cycle;
			p.txtag = {port_field(t.ev_qpn_o, 24 * kEvTxFirst, 24),
				   (uint16_t)port_field(t.ev_idx_o, 16 * kEvTxFirst, 16),
				   (uint8_t)node, first, last};
		}
		if (p.txhave == p.txlen && p.txhave < keep) {
			size_t c = std::min<size_t>(n, keep - p.txhave);

			if (p.tx.size() < p.txhave + c)
				p.tx.resize(p.txhave + c + 4096);
			std::memcpy(p.tx.data() + p.txhave, port_bytes(t.tx_data_o), c);
			p.txhave += c;
		}
		p.txlen += n;
		if (t.tx_last_o) {
			tx_frame(node, cycle, out);
			p.txlen = p.txhave = 0;
		}
	}
	if (t.rx_valid_i && t.rx_ready_o) {
		unsigned n = __builtin_popcountll((uint64_t)t.rx_keep_i);

		if (!p.rxlen)
			p.rx_first = cycle;
		if (p.rxhave == p.rxlen && p.rxhave < keep) {
			size_t c = std::min<size_t>(n, keep - p.rxhave);

			if (p.rx.size() < p.rxhave + c)
				p.rx.resize(p.rxhave + c + 4096);
			std::memcpy(p.rx.data() + p.rxhave, port_bytes(t.rx_data_i), c);
			p.rxhave += c;
		}
		p.rxlen += n;
		if (t.rx_last_i) {
			rx_frame(node, cycle, out);
			p.rxlen = p.rxhave = 0;
		}
	}
}

void monitor::tx_frame(unsigned node, uint64_t cycle, std::vector<sim_event> &out)
{
	port &p = port_[node];
	tag &tg = p.txtag;
	roce h;
	int dst;

	if (p.pcap && p.txhave == p.txlen)
		pcap_frame(p.pcap, cycle, p.tx.data(), p.txhave);
	if (!events_ || !parse(p.tx.data(), p.txhave, h))
		return;
	dst = ip_node(h.dip, n_);
	if (h.payload)
		payload_dma(node, dst, h, tg, out);
	if (dst < 0)
		return;
	if (h.op == kOpAck) {
		ack_sent(node, h, out);
		return;
	}
	if (!(tg.first || tg.last))
		return;
	if (h.op == kOpReadReq && tg.first && !tg.last) {
		tg.last = true;
		out.push_back({p.tx_first, tg.qpn, tg.idx, (uint8_t)node, RNIC_EV_TX_LAST});
	}
	if (flight_.size() >= kMaxFlight)
		flight_.clear();
	flight_[key(dst, h.dqpn, h.psn)] = tg;

	std::deque<wr> &q = wait_[key(node, tg.qpn)];

	if (tg.first) {
		/* A retransmission sends a waiting WQE again from its first
		 * packet: it keeps its place. */
		auto it = q.begin();

		while (it != q.end() && it->idx != tg.idx)
			++it;
		if (it == q.end()) {
			/* In PSN order: a WQE sent again after its entry went
			 * (a READ restarted inside its responses) goes before
			 * the later ones. */
			auto at = q.end();

			while (at != q.begin() && psn_lt(h.psn, std::prev(at)->first_psn))
				--at;
			q.insert(at, {h.psn, h.psn, tg.idx, false, h.op == kOpReadReq});
		}
	}
	if (tg.last) {
		for (auto it = q.rbegin(); it != q.rend(); ++it) {
			if (it->idx != tg.idx)
				continue;
			/* A READ is answered up to its request PSN + responses - 1:
			 * its last response (PSN >= the request's) covers it. */
			it->last_psn = h.psn;
			it->have_last = true;
			break;
		}
	}
}

/* The waiting WQE a response with PSN @psn answers: the one with the
 * highest first PSN <= @psn. */
const monitor::wr *monitor::answered(const std::deque<wr> &q, uint32_t psn)
{
	const wr *x = nullptr;

	for (const wr &e : q)
		if (psn_le(e.first_psn, psn) && (!x || psn_lt(x->first_psn, e.first_psn)))
			x = &e;
	return x;
}

/* The payload reads of the frame @h that @node's TX sent: the oldest ones,
 * up to its payload bytes. Reported for the first packet of a send WQE, or
 * for the READ WQE (at node @dst) a READ response FIRST/ONLY answers. */
void monitor::payload_dma(unsigned node, int dst, const roce &h, const tag &tg,
			  std::vector<sim_event> &out)
{
	port &p = port_[node];
	uint64_t issued = 0, returned = 0;
	uint32_t got = 0;

	while (got < h.payload && !p.rds.empty() && p.rd_ret) {
		const rd &r = p.rds.front();

		if (!got)
			issued = r.issued;
		returned = r.returned;
		got += r.len;
		p.rds.pop_front();
		p.rd_ret--;
	}
	if (!got)
		return;
	if (tg.first) {
		out.push_back({issued, tg.qpn, tg.idx, (uint8_t)node, RNIC_EV_DMA_ISSUED});
		out.push_back({returned, tg.qpn, tg.idx, (uint8_t)node, RNIC_EV_DMA_RETURNED});
		return;
	}
	if ((h.op != kOpReadRespFirst && h.op != kOpReadRespOnly) || dst < 0)
		return;
	auto w = wait_.find(key(dst, h.dqpn));

	if (w == wait_.end())
		return;
	const wr *x = answered(w->second, h.psn);
	if (x && x->read) {
		out.push_back({issued, h.dqpn, x->idx, (uint8_t)dst, RNIC_EV_DMA_ISSUED});
		out.push_back({returned, h.dqpn, x->idx, (uint8_t)dst, RNIC_EV_DMA_RETURNED});
	}
}

void monitor::rx_frame(unsigned node, uint64_t cycle, std::vector<sim_event> &out)
{
	port &p = port_[node];
	roce h;

	if (p.pcap && p.rxhave == p.rxlen)
		pcap_frame(p.pcap, cycle, p.rx.data(), p.rxhave);
	if (!events_ || !parse(p.rx.data(), p.rxhave, h))
		return;

	auto f = flight_.find(key(node, h.dqpn, h.psn));

	if (place_.size() >= kMaxFlight)
		place_.clear();
	if (h.op >= kOpReadRespFirst && h.op <= kOpReadRespOnly) {
		/* A READ response: placed for the READ it answers. */
		auto w = wait_.find(key(node, h.dqpn));
		const wr *x = w != wait_.end() ? answered(w->second, h.psn) : nullptr;
		if (x && x->read)
			place_[key(node, h.dqpn, h.psn) | kPlaceResp] =
				{h.dqpn, x->idx, (uint8_t)node, true, true};
	}
	if (f != flight_.end()) {
		const tag &tg = f->second;

		place_[key(node, h.dqpn, h.psn)] = tg;
		pair_[pair_key(node, tg.node, tg.qpn)] = h.dqpn;
		if (tg.first)
			out.push_back({p.rx_first, tg.qpn, tg.idx, tg.node, RNIC_EV_PEER_FIRST});
		if (tg.last)
			out.push_back({cycle, tg.qpn, tg.idx, tg.node, RNIC_EV_PEER_LAST});
		flight_.erase(f);
	}

	if (h.op == kOpAck || h.op == kOpReadRespLast || h.op == kOpReadRespOnly ||
	    h.op == kOpAtomicAck) {
		auto w = wait_.find(key(node, h.dqpn));
		bool ack = h.op != kOpAck || h.syn >> 5 == 0;

		if (w != wait_.end()) {
			std::deque<wr> &q = w->second;

			while (!q.empty() && q.front().have_last) {
				const wr &x = q.front();
				bool covered = ack ? psn_le(x.last_psn, h.psn)
						   : psn_lt(x.last_psn, h.psn) ||
						     (nak_fatal(h.syn) &&
						      psn_in(h.psn, x.first_psn, x.last_psn));

				if (!covered)
					break;
				out.push_back({cycle, h.dqpn, x.idx, (uint8_t)node, RNIC_EV_ACKED});
				q.pop_front();
			}
		}
	}

	if (h.op == 0x64 || h.op == 0x65) {
		/* UD SEND_ONLY(_WITH_IMMEDIATE): no ACK to wait for. */
		out.push_back({p.rx_first, h.dqpn, 0, (uint8_t)node, RNIC_EV_RECV_FIRST});
		out.push_back({cycle, h.dqpn, 0, (uint8_t)node, RNIC_EV_RECV_LAST});
	} else if (h.op <= 0x0b) {
		resp &r = resp_[key(node, h.dqpn)];

		if (msg_starts(h.op)) {
			r.cur = {p.rx_first, cycle, h.psn, h.psn};
			r.active = true;
		} else if (r.active) {
			r.cur.last_cycle = cycle;
			r.cur.last_psn = h.psn;
		}
		if (msg_ends(h.op)) {
			if (r.active && msg_ends_recv(h.op))
				r.cand.push_back(r.cur);
			r.active = false;
		}
	}
}

/* The responder @node sends an ACK or NAK: the messages it covers count. */
void monitor::ack_sent(unsigned node, const roce &h, std::vector<sim_event> &out)
{
	int req = ip_node(h.dip, n_);
	auto pr = req < 0 ? pair_.end() : pair_.find(pair_key(node, req, h.dqpn));

	if (pr == pair_.end())
		return;
	uint32_t qpn = pr->second;
	auto it = resp_.find(key(node, qpn));

	if (it == resp_.end())
		return;
	resp &r = it->second;
	bool ack = h.syn >> 5 == 0;

	while (!r.cand.empty() && (ack ? psn_le(r.cand.front().last_psn, h.psn)
				       : psn_lt(r.cand.front().last_psn, h.psn))) {
		count_msg(node, qpn, r, r.cand.front(), out);
		r.cand.pop_front();
	}
	if (ack)
		return;
	/* The message holding the NAK's PSN: refused (retried) or failed. */
	if (!r.cand.empty() && psn_in(h.psn, r.cand.front().first_psn, r.cand.front().last_psn)) {
		if (nak_fatal(h.syn))
			count_msg(node, qpn, r, r.cand.front(), out);
		r.cand.pop_front();
	} else if (r.active && psn_le(r.cur.first_psn, h.psn)) {
		if (nak_fatal(h.syn))
			count_msg(node, qpn, r, r.cur, out);
		r.active = false;
	}
}

void monitor::count_msg(unsigned node, uint32_t qpn, resp &r, const msg &m,
			std::vector<sim_event> &out)
{
	/* A duplicate of a message already counted (its ACK was lost). */
	if (r.have_acked && psn_le(m.last_psn, r.acked))
		return;
	r.acked = m.last_psn;
	r.have_acked = true;
	out.push_back({m.first_cycle, qpn, 0, (uint8_t)node, RNIC_EV_RECV_FIRST});
	out.push_back({m.last_cycle, qpn, 0, (uint8_t)node, RNIC_EV_RECV_LAST});
}

/* Send WQE @idx of (node, qpn) has its CQE: it and those before it are done. */
/* A placement job started (bit 0) or ended (bit 1) on @node: the first
 * packet of a message starting reports PLACE_FIRST of its send WQE, the
 * last one ending PLACE_LAST. Jobs run one at a time. */
void monitor::placement(unsigned node, const mon_ports &t, uint64_t cycle,
			std::vector<sim_event> &out)
{
	port &p = port_[node];

	if (t.ev_place_o & 1) {
		/* A response's PSN is of our SQ, a request's of the peer's. */
		p.place_key = key(node, t.ev_place_qpn_o, t.ev_place_psn_o) |
			      (t.ev_place_pos_o >> 2 & 1 ? kPlaceResp : 0);
		auto f = place_.find(p.place_key);

		p.place_last = t.ev_place_pos_o >> 1 & 1;
		if (f != place_.end() && (t.ev_place_pos_o & 1))
			out.push_back({cycle, f->second.qpn, f->second.idx, f->second.node,
				       RNIC_EV_PLACE_FIRST});
	}
	if (t.ev_place_o & 2) {
		auto f = place_.find(p.place_key);

		if (f == place_.end())
			return;
		if (p.place_last)
			out.push_back({cycle, f->second.qpn, f->second.idx, f->second.node,
				       RNIC_EV_PLACE_LAST});
		place_.erase(f);
	}
}

void monitor::retire(unsigned node, uint32_t qpn, uint16_t idx)
{
	auto w = wait_.find(key(node, qpn));

	if (w == wait_.end())
		return;
	std::deque<wr> &q = w->second;

	for (size_t i = 0; i < q.size(); i++) {
		if (q[i].idx == idx) {
			q.erase(q.begin(), q.begin() + i + 1);
			return;
		}
	}
}

/* pcap with nanosecond timestamps, a cycle being 4 ns (as model/wire.cpp). */
int monitor::pcap_open(unsigned node, const char *path)
{
	static const uint32_t hdr[6] = {
		0xa1b23c4d, 2 | 4u << 16, 0, 0, 65535, 1 /* Ethernet */
	};
	FILE *f;

	if (node >= n_ || !path || !*path)
		return -EINVAL;
	f = std::fopen(path, "wb");
	if (!f)
		return -errno;
	if (std::fwrite(hdr, sizeof(hdr), 1, f) != 1) {
		std::fclose(f);
		return -EIO;
	}
	pcap_close(node);
	port_[node].pcap = f;
	update();
	return 0;
}

void monitor::pcap_close(unsigned node)
{
	if (node >= RNIC_SIM_MAX_NODES || !port_[node].pcap)
		return;
	std::fclose(port_[node].pcap);
	port_[node].pcap = nullptr;
	update();
}

void monitor::pcap_frame(FILE *f, uint64_t cycle, const uint8_t *p, size_t len)
{
	uint64_t ns = cycle * 4;
	uint32_t rec[4] = {
		(uint32_t)(ns / 1000000000u), (uint32_t)(ns % 1000000000u),
		(uint32_t)len, (uint32_t)len
	};

	std::fwrite(rec, sizeof(rec), 1, f);
	std::fwrite(p, 1, len, f);
}

} /* namespace rnic */
