// SPDX-License-Identifier: MIT
/*
 * model_wire.cpp - the wire model's fault injection, driven directly: raw
 * frames go in with wire::inject() at chosen cycles, and come out of the RX
 * queues with the cycle they arrived. No RTL is evaluated.
 *
 * Checks, each against a reference computed here: the plain timing model,
 * faults configured but never firing keep it cycle for cycle, drop rate
 * within binomial bounds, drops of a lower probability are a subset of those
 * of a higher one (same seed), corruption flips exactly corrupt_bits bits and
 * the model's ICRC verdict agrees with an independent one, corrupted
 * addresses misroute or vanish and are counted, duplicates arrive twice,
 * reordered frames arrive late but all arrive, delay spikes keep the link in
 * order and serialised, down windows (fixed and random) lose exactly the
 * frames on the link in them, both directions of a link go down together,
 * determinism (same seed twice, another seed), one link's faults leave
 * another's untouched, the RNIC_WIRE_* environment parsing, and the link's
 * pacing of its sender.
 */
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "roce_frame.h"
#include "wire.h"

namespace {

constexpr unsigned kNodes = 3;
constexpr unsigned kLatency = 25;
constexpr unsigned kRate = 32;
constexpr unsigned kOverhead = 24;
constexpr uint32_t kQpn = 5;

int failures;

#define CHECK(cond, ...)							\
	do {									\
		if (!(cond)) {							\
			std::printf("%s:%d: FAIL: %s: ", __FILE__, __LINE__, #cond); \
			std::printf(__VA_ARGS__);				\
			std::printf("\n");					\
			failures++;						\
		}								\
	} while (0)

struct tx {
	uint64_t cycle;
	unsigned src, dst;
	uint32_t id;
	unsigned pay;
};

struct rx {
	uint64_t cycle;
	unsigned node;
	std::vector<uint8_t> f;
	bool operator==(const rx &o) const { return cycle == o.cycle && node == o.node && f == o.f; }
};

rnic::wire_cfg cfg() { return {kNodes, kLatency, kRate, kOverhead}; }

uint64_t ser(size_t len) { return std::max<uint64_t>(1, (len + kOverhead + kRate - 1) / kRate); }

size_t frame_len(unsigned pay) { return 14 + 20 + 8 + 12 + pay + 4; }

std::vector<uint8_t> original(const tx &t) { return tb::send_only(t.src, t.dst, kQpn, t.id, t.pay); }

/* The id is the PSN. */
uint32_t frame_id(const std::vector<uint8_t> &f)
{
	return f.size() >= 58 ? (uint32_t)f[51] << 16 | f[52] << 8 | f[53] : ~0u;
}

/* Sends @t (sorted by cycle) and collects every arrival until @end. */
std::vector<rx> run(rnic::wire &w, const std::vector<tx> &t, uint64_t end)
{
	std::vector<rx> out;
	size_t i = 0;

	for (uint64_t c = 0; c < end; c++) {
		w.deliver(c);
		for (unsigned n = 0; n < kNodes; n++) {
			while (w.rx_queued(n)) {
				out.push_back({c, n, w.rx_front(n)});
				w.rx_pop(n);
			}
		}
		for (; i < t.size() && t[i].cycle == c; i++) {
			std::vector<uint8_t> f = original(t[i]);

			w.inject(t[i].src, c, f.data(), f.size());
		}
	}
	return out;
}

/* xorshift for traffic patterns (not the model's PRNG). */
struct lcg {
	uint64_t s;
	uint32_t next()
	{
		s ^= s << 13;
		s ^= s >> 7;
		s ^= s << 17;
		return (uint32_t)(s >> 16);
	}
};

/* @n frames from @src to @dst every @gap cycles from cycle 100. */
std::vector<tx> stream(unsigned src, unsigned dst, unsigned n, unsigned gap, unsigned pay,
		       uint32_t id0 = 0)
{
	std::vector<tx> t;

	for (unsigned i = 0; i < n; i++)
		t.push_back({100 + (uint64_t)i * gap, src, dst, id0 + i, pay});
	return t;
}

/* Random traffic between all nodes, bursts included (gaps of 0..@maxgap). */
std::vector<tx> mixed(uint64_t seed, unsigned n, unsigned maxgap)
{
	std::vector<tx> t;
	lcg r{seed};
	uint64_t c = 100;

	for (unsigned i = 0; i < n; i++) {
		unsigned src = r.next() % kNodes, dst = r.next() % kNodes;

		t.push_back({c, src, dst, i, 4 * (r.next() % 300)});
		c += r.next() % (maxgap + 1);
	}
	return t;
}

/* Expected arrivals without faults: each sender's link serialises. */
std::map<uint32_t, uint64_t> plain_arrivals(const std::vector<tx> &t)
{
	std::map<uint32_t, uint64_t> at;
	uint64_t free[kNodes] = {};

	for (const tx &x : t) {
		uint64_t s = std::max(x.cycle, free[x.src]);
		uint64_t d = ser(frame_len(x.pay));

		free[x.src] = s + d;
		at[x.id] = s + d + kLatency;
	}
	return at;
}

rnic_wire_faults none()
{
	rnic_wire_faults f;

	rnic_wire_faults_default(&f);
	return f;
}

const rnic_wire_fault_counts &counts(const rnic::wire &w, unsigned n, unsigned dir)
{
	return w.fault_counts(n, dir);
}

/* ------------------------------------------------------------------------ */

void test_plain_and_silent()
{
	std::vector<tx> t = mixed(1, 3000, 12);
	std::map<uint32_t, uint64_t> exp = plain_arrivals(t);
	rnic::wire w(cfg());
	std::vector<rx> a = run(w, t, t.back().cycle + 5000);

	CHECK(a.size() == t.size(), "%zu arrivals of %zu", a.size(), t.size());
	for (const rx &r : a) {
		uint32_t id = frame_id(r.f);

		CHECK(id < t.size() && r.f == original(t[id]) && r.node == t[id].dst &&
		      r.cycle == exp[id], "frame %u at %llu on node %u", id,
		      (unsigned long long)r.cycle, r.node);
	}
	for (unsigned n = 0; n < kNodes; n++) {
		CHECK(counts(w, n, RNIC_WIRE_DIR_RX).delivered == counts(w, n, RNIC_WIRE_DIR_RX).frames,
		      "node %u", n);
		CHECK(counts(w, n, RNIC_WIRE_DIR_TX).dropped == 0, "node %u", n);
	}

	/* Faults switched on everywhere but (practically) never firing: the
	 * faulty path must keep the same timing, cycle for cycle. */
	rnic::wire w2(cfg());
	rnic_wire_faults f = none();

	f.drop = 1e-15;
	f.seed = 99;
	for (unsigned n = 0; n < kNodes; n++)
		for (unsigned d = 0; d < 2; d++)
			w2.set_faults(n, d, &f, 0);
	CHECK(run(w2, t, t.back().cycle + 5000) == a, "silent faults changed the timing");

	/* All-zero probabilities with a seed: the link stays off. */
	rnic::wire w3(cfg());
	rnic_wire_faults z = none();

	z.seed = 1234;
	z.corrupt_bits = 5;
	w3.set_faults(0, RNIC_WIRE_DIR_TX, &z, 0);
	CHECK(run(w3, t, t.back().cycle + 5000) == a, "zero faults changed the timing");
	std::printf("plain timing, silent faults: ok (%zu frames)\n", a.size());
}

/* Frames of @t dropped in @a (by id), assuming none is duplicated. */
std::set<uint32_t> lost_ids(const std::vector<tx> &t, const std::vector<rx> &a)
{
	std::set<uint32_t> lost;

	for (const tx &x : t)
		lost.insert(x.id);
	for (const rx &r : a)
		lost.erase(frame_id(r.f));
	return lost;
}

void test_drop()
{
	const unsigned n = 20000;
	std::vector<tx> t = stream(0, 1, n, 40, 64);
	std::set<uint32_t> lost[2];

	for (int k = 0; k < 2; k++) {
		rnic::wire w(cfg());
		rnic_wire_faults f = none();

		f.drop = k ? 0.1 : 0.05;
		f.seed = 7;
		w.set_faults(0, RNIC_WIRE_DIR_TX, &f, 0);
		std::vector<rx> a = run(w, t, t.back().cycle + 1000);
		const uint64_t dropped = counts(w, 0, RNIC_WIRE_DIR_TX).dropped;
		const double mean = n * f.drop, sd = std::sqrt(n * f.drop * (1 - f.drop));

		CHECK(std::fabs((double)dropped - mean) < 4 * sd, "%llu dropped, expected %.0f +- %.0f",
		      (unsigned long long)dropped, mean, 4 * sd);
		CHECK(a.size() + dropped == n, "%zu + %llu != %u", a.size(),
		      (unsigned long long)dropped, n);
		/* The rest arrive once, in order, intact, on time. */
		uint32_t prev = 0;
		bool first = true, ok = true;

		for (const rx &r : a) {
			uint32_t id = frame_id(r.f);

			ok = ok && id < n && (first || id > prev) && r.f == original(t[id]) &&
			     r.cycle == t[id].cycle + ser(r.f.size()) + kLatency;
			prev = id;
			first = false;
		}
		CHECK(ok, "surviving frames out of order, changed or late");
		lost[k] = lost_ids(t, a);
		CHECK(lost[k].size() == dropped, "%zu", lost[k].size());
		std::printf("drop %.2f: %llu of %u frames dropped (expected %.0f +- %.0f): ok\n", f.drop,
			    (unsigned long long)dropped, n, mean, 4 * sd);
	}
	/* One number per frame: a frame lost at 5 % is lost at 10 % too. */
	bool subset = true;

	for (uint32_t id : lost[0])
		subset = subset && lost[1].count(id);
	CHECK(subset, "drops at 0.05 are not a subset of drops at 0.1");

	/* RX direction: the frames node 1 receives, from two senders. */
	rnic::wire w(cfg());
	rnic_wire_faults f = none();
	std::vector<tx> t2 = stream(0, 1, 5000, 40, 32);

	for (tx x : stream(2, 1, 5000, 40, 32, 5000)) {
		x.cycle += 20;
		t2.push_back(x);
	}
	std::sort(t2.begin(), t2.end(), [](const tx &a, const tx &b) { return a.cycle < b.cycle; });
	f.drop = 0.2;
	f.seed = 3;
	w.set_faults(1, RNIC_WIRE_DIR_RX, &f, 0);
	std::vector<rx> a = run(w, t2, t2.back().cycle + 1000);
	const rnic_wire_fault_counts &c = counts(w, 1, RNIC_WIRE_DIR_RX);

	CHECK(c.frames == 10000 && c.dropped + c.delivered == 10000 && a.size() == c.delivered,
	      "rx frames %llu dropped %llu delivered %llu", (unsigned long long)c.frames,
	      (unsigned long long)c.dropped, (unsigned long long)c.delivered);
	CHECK(std::fabs((double)c.dropped - 2000) < 4 * std::sqrt(10000 * 0.2 * 0.8), "%llu",
	      (unsigned long long)c.dropped);
	std::printf("rx drop 0.20: %llu of 10000: ok\n", (unsigned long long)c.dropped);
}

/* The original a corrupted frame came from: the id it names, else the
 * nearest frame of the same length. */
uint32_t find_original(const std::vector<tx> &t, const std::vector<uint8_t> &f, unsigned maxd)
{
	uint32_t id = frame_id(f);

	if (id < t.size() && tb::hamming(original(t[id]), f) <= maxd)
		return id;
	for (const tx &x : t)
		if (frame_len(x.pay) == f.size() && tb::hamming(original(x), f) <= maxd)
			return x.id;
	return ~0u;
}

void test_corrupt()
{
	/* RX link: no rerouting, every frame arrives. */
	{
		const unsigned n = 4000, bits = 3;
		std::vector<tx> t = stream(0, 1, n, 20, 32);
		rnic::wire w(cfg());
		rnic_wire_faults f = none();

		f.corrupt = 0.25;
		f.corrupt_bits = bits;
		f.seed = 5;
		w.set_faults(1, RNIC_WIRE_DIR_RX, &f, 0);
		std::vector<rx> a = run(w, t, t.back().cycle + 1000);
		const rnic_wire_fault_counts &c = counts(w, 1, RNIC_WIRE_DIR_RX);
		unsigned changed = 0, bad = 0, hdr = 0, accepted_changed = 0;
		bool ok = a.size() == n;

		for (size_t i = 0; ok && i < a.size(); i++) {
			std::vector<uint8_t> o = original(t[i]);	/* in order */
			unsigned d = tb::hamming(o, a[i].f);

			ok = d == 0 || d == bits;
			changed += d != 0;
			bad += !tb::intact(a[i].f);
			ok = ok && tb::intact(a[i].f) == rnic::roce_frame_intact(a[i].f.data(), a[i].f.size());
			if (d && tb::intact(a[i].f))
				accepted_changed++;
			for (size_t b = 0; d && b < 54; b++)
				if (o[b] != a[i].f[b]) {
					hdr++;
					break;
				}
		}
		CHECK(ok, "a frame arrived with other than 0 or %u flipped bits, or verdicts differ", bits);
		CHECK(changed == c.corrupted && c.corrupted == c.delivered_corrupted &&
		      bad == c.delivered_bad, "changed %u corrupted %llu bad %u/%llu", changed,
		      (unsigned long long)c.corrupted, bad, (unsigned long long)c.delivered_bad);
		CHECK(std::fabs(changed - 0.25 * n) < 4 * std::sqrt(n * 0.25 * 0.75), "%u", changed);
		CHECK(hdr > 0, "no header was hit");
		std::printf("rx corrupt 0.25 x %u bits: %u corrupted (%u in headers), %u fail the ICRC, "
			    "%u only in unprotected bytes: ok\n", bits, changed, hdr, bad, accepted_changed);
	}
	/* TX link: the switch routes what it got; a corrupted address goes to
	 * another node or nowhere. */
	{
		const unsigned n = 6000, bits = 4;
		std::vector<tx> t = stream(0, 1, n, 10, 0);
		rnic::wire w(cfg());
		rnic_wire_faults f = none();

		f.corrupt = 1;
		f.corrupt_bits = bits;
		f.seed = 77;
		w.set_faults(0, RNIC_WIRE_DIR_TX, &f, 0);
		std::vector<rx> a = run(w, t, t.back().cycle + 1000);
		const rnic_wire_fault_counts &c = counts(w, 0, RNIC_WIRE_DIR_TX);
		unsigned elsewhere = 0, ok = 0;

		for (const rx &r : a) {
			uint32_t id = find_original(t, r.f, bits);

			if (id == ~0u || tb::hamming(original(t[id]), r.f) != bits)
				continue;
			ok++;
			if (r.node != 1) {
				elsewhere++;
				/* It went where its corrupted address says. */
				if (!(r.f[30] == 10 && r.f[31] == 0 && r.f[32] == 0 && r.f[33] == r.node + 1))
					ok--;
			}
		}
		uint64_t nowhere = w.drops(0);

		CHECK(ok == a.size(), "%u of %zu arrivals are their original with %u bits flipped",
		      ok, a.size(), bits);
		CHECK(c.corrupted == n && a.size() + nowhere == n && c.misrouted == elsewhere + nowhere,
		      "corrupted %llu arrived %zu nowhere %llu misrouted %llu elsewhere %u",
		      (unsigned long long)c.corrupted, a.size(), (unsigned long long)nowhere,
		      (unsigned long long)c.misrouted, elsewhere);
		CHECK(elsewhere > 0 && nowhere > 0, "elsewhere %u nowhere %llu", elsewhere,
		      (unsigned long long)nowhere);
		uint64_t bad = 0;

		for (unsigned k = 0; k < kNodes; k++)
			bad += counts(w, k, RNIC_WIRE_DIR_RX).delivered_bad;
		CHECK(bad == (uint64_t)std::count_if(a.begin(), a.end(),
						     [](const rx &r) { return !tb::intact(r.f); }),
		      "%llu", (unsigned long long)bad);
		std::printf("tx corrupt 1.0 x %u bits: %u misrouted to another node, %llu to nowhere "
			    "(counted as wire drops): ok\n", bits, elsewhere, (unsigned long long)nowhere);
	}
}

void test_dup()
{
	const unsigned n = 5000;
	std::vector<tx> t = stream(0, 1, n, 30, 100);
	rnic::wire w(cfg());
	rnic_wire_faults f = none();

	f.dup = 0.2;
	f.seed = 8;
	w.set_faults(0, RNIC_WIRE_DIR_TX, &f, 0);
	f.dup = 0.1;
	w.set_faults(1, RNIC_WIRE_DIR_RX, &f, 0);
	std::vector<rx> a = run(w, t, t.back().cycle + 1000);
	const uint64_t d_tx = counts(w, 0, RNIC_WIRE_DIR_TX).duplicated;
	const uint64_t d_rx = counts(w, 1, RNIC_WIRE_DIR_RX).duplicated;
	std::map<uint32_t, std::vector<size_t>> seen;

	for (size_t i = 0; i < a.size(); i++)
		seen[frame_id(a[i].f)].push_back(i);
	bool ok = seen.size() == n;
	unsigned twice = 0;

	for (auto &[id, v] : seen) {
		/* 1, 2 (one link) or 3..4 copies, back to back, identical, on time */
		ok = ok && v.size() >= 1 && v.size() <= 4 && v.back() - v.front() == v.size() - 1;
		for (size_t i : v)
			ok = ok && a[i].f == original(t[id]) && a[i].cycle == a[v[0]].cycle &&
			     a[i].cycle == t[id].cycle + ser(a[i].f.size()) + kLatency;
		twice += v.size() > 1;
	}
	CHECK(ok, "duplicates are not exact copies arriving together");
	CHECK(a.size() == n + d_tx + d_rx, "%zu arrivals, %llu + %llu duplicates", a.size(),
	      (unsigned long long)d_tx, (unsigned long long)d_rx);
	CHECK(std::fabs((double)d_tx - 0.2 * n) < 4 * std::sqrt(n * 0.2 * 0.8), "%llu",
	      (unsigned long long)d_tx);
	std::printf("dup 0.2 tx + 0.1 rx: %llu + %llu copies, %u frames arrived more than once: ok\n",
		    (unsigned long long)d_tx, (unsigned long long)d_rx, twice);
}

void test_reorder()
{
	/* Dense traffic: every held frame is passed by 1..window later frames. */
	for (unsigned dir = 0; dir < 2; dir++) {
		const unsigned n = 10000, window = 4;
		std::vector<tx> t = stream(0, 1, n, 5, 64);
		rnic::wire w(cfg());
		rnic_wire_faults f = none();

		f.reorder = 0.1;
		f.reorder_window = window;
		f.reorder_timeout = 100000;
		f.seed = 21;
		w.set_faults(dir == RNIC_WIRE_DIR_TX ? 0 : 1, dir, &f, 0);
		std::vector<rx> a = run(w, t, t.back().cycle + f.reorder_timeout + 1000);
		const uint64_t held = counts(w, dir == RNIC_WIRE_DIR_TX ? 0 : 1, dir).reordered;
		std::vector<int> pos(n, -1);

		for (size_t i = 0; i < a.size(); i++)
			pos[frame_id(a[i].f)] = (int)i;
		bool all = a.size() == n && std::find(pos.begin(), pos.end(), -1) == pos.end();
		unsigned overtaken = 0, maxlate = 0;
		int maxpos = -1;
		bool exact = true;

		/* A frame is overtaken when a later one arrived before it. */
		for (int id = n - 1, minlater = (int)n; all && id >= 0; id--) {
			if (minlater < pos[id]) {
				overtaken++;
				unsigned late = 0;

				for (unsigned j = id + 1; j < n && j < id + 64u; j++)
					late += pos[j] < pos[id];
				maxlate = std::max(maxlate, late);
			}
			minlater = std::min(minlater, pos[id]);
		}
		for (unsigned id = 0; all && id < n; id++) {
			const rx &r = a[pos[id]];

			exact = exact && r.f == original(t[id]) &&
				r.cycle >= t[id].cycle + ser(r.f.size()) + kLatency;
			maxpos = std::max(maxpos, pos[id]);
		}
		CHECK(all, "%zu of %u arrived, some missing", a.size(), n);
		CHECK(exact, "a reordered frame changed or arrived early");
		/* Only held frames are overtaken; a held frame at the very end
		 * has no later frame to pass it and goes on at its deadline. */
		CHECK(overtaken <= held && held <= overtaken + 3, "%u frames overtaken, %llu held",
		      overtaken, (unsigned long long)held);
		CHECK(maxlate <= 2 * window, "a frame was overtaken by %u later ones", maxlate);
		CHECK(std::fabs((double)held - 0.1 * n) < 4 * std::sqrt(n * 0.1 * 0.9), "%llu",
		      (unsigned long long)held);
		std::printf("reorder 0.1 (%s, window %u): %llu held back, all %u arrived, at most %u "
			    "later frames overtook one: ok\n", dir ? "rx" : "tx", window,
			    (unsigned long long)held, n, maxlate);
	}
	/* Nothing follows: a held frame goes on at its deadline. */
	{
		std::vector<tx> t = stream(0, 1, 20, 5000, 64);
		rnic::wire w(cfg());
		rnic_wire_faults f = none();

		f.reorder = 1;
		f.reorder_timeout = 777;
		w.set_faults(0, RNIC_WIRE_DIR_TX, &f, 0);
		std::vector<rx> a = run(w, t, t.back().cycle + 5000);
		bool ok = a.size() == t.size();

		for (size_t i = 0; ok && i < a.size(); i++)
			ok = frame_id(a[i].f) == i &&
			     a[i].cycle == t[i].cycle + ser(a[i].f.size()) + kLatency + 777;
		CHECK(ok, "held frames did not arrive exactly reorder_timeout late");
		std::printf("reorder timeout: held frames arrive exactly 777 cycles late: ok\n");
	}
}

void test_delay()
{
	/* Sparse: a spiked frame is exactly delay_cycles late, the others on
	 * time. */
	for (unsigned dir = 0; dir < 2; dir++) {
		const unsigned n = 3000;
		std::vector<tx> t = stream(0, 1, n, 1000, 64);
		rnic::wire w(cfg());
		rnic_wire_faults f = none();

		f.delay_spike = 0.1;
		f.delay_cycles = 300;
		f.seed = 4;
		w.set_faults(dir == RNIC_WIRE_DIR_TX ? 0 : 1, dir, &f, 0);
		std::vector<rx> a = run(w, t, t.back().cycle + 1000);
		unsigned late = 0;
		bool ok = a.size() == n;

		for (size_t i = 0; ok && i < n; i++) {
			uint64_t base = t[i].cycle + ser(a[i].f.size()) + kLatency;

			ok = frame_id(a[i].f) == i && (a[i].cycle == base || a[i].cycle == base + 300);
			late += a[i].cycle != base;
		}
		CHECK(ok && late == counts(w, dir ? 1 : 0, dir).delayed, "late %u delayed %llu", late,
		      (unsigned long long)counts(w, dir ? 1 : 0, dir).delayed);
		std::printf("delay spike 0.1 (%s, sparse): %u frames exactly 300 cycles late: ok\n",
			    dir ? "rx" : "tx", late);
	}
	/* Dense, TX: the link stalls, the frames behind queue; the reference
	 * is the serialisation model with the stall added, per frame. */
	{
		const unsigned n = 5000;
		/* ser 7 every 8 cycles: a stall leaves a queue that drains slowly */
		std::vector<tx> t = stream(0, 1, n, 8, 128);
		rnic::wire w(cfg());
		rnic_wire_faults f = none();

		f.delay_spike = 0.02;
		f.delay_cycles = 200;
		f.seed = 6;
		w.set_faults(0, RNIC_WIRE_DIR_TX, &f, 0);
		std::vector<rx> a = run(w, t, t.back().cycle + 100000);
		bool ok = a.size() == n;
		uint64_t link_free = 0, spikes = 0, queued = 0;

		for (size_t i = 0; ok && i < n; i++) {
			uint64_t d = ser(a[i].f.size());
			uint64_t s = std::max(t[i].cycle, link_free);

			ok = frame_id(a[i].f) == i;
			/* Either no spike, or exactly one of delay_cycles. */
			if (a[i].cycle == s + 200 + d + kLatency) {
				s += 200;
				spikes++;
			}
			ok = ok && a[i].cycle == s + d + kLatency;
			queued += s > t[i].cycle;
			link_free = s + d;
		}
		CHECK(ok && spikes == counts(w, 0, RNIC_WIRE_DIR_TX).delayed && queued > n / 2,
		      "frames out of order or off the stalled-link reference (%llu spikes, %llu delayed)",
		      (unsigned long long)spikes, (unsigned long long)counts(w, 0, RNIC_WIRE_DIR_TX).delayed);
		std::printf("delay spike 0.02 (tx, dense): %llu stalls, %llu frames queued behind "
			    "them, every frame in order on the stalled-link reference: ok\n",
			    (unsigned long long)spikes, (unsigned long long)queued);
	}
}

void test_down()
{
	const unsigned n = 2000, gap = 12, pay = 256;	/* ser 11: no queueing */
	const uint64_t d = ser(frame_len(pay));
	const rnic_wire_window win[2] = {{1000, 500}, {9000, 1}};
	auto in = [&](uint64_t a, uint64_t b) {
		for (const rnic_wire_window &x : win)
			if (a < x.start + x.len && x.start < b)
				return true;
		return false;
	};

	/* TX: on the link during [send, send + ser); RX: during the ser cycles
	 * before its arrival. */
	for (unsigned dir = 0; dir < 2; dir++) {
		std::vector<tx> t = stream(0, 1, n, gap, pay);
		rnic::wire w(cfg());
		rnic_wire_faults f = none();

		f.n_down = 2;
		f.down[0] = win[1];
		f.down[1] = win[0];
		w.set_faults(dir ? 1 : 0, dir, &f, 0);
		std::set<uint32_t> exp;

		for (const tx &x : t) {
			uint64_t a = dir ? x.cycle + kLatency : x.cycle;

			if (in(a, a + d))
				exp.insert(x.id);
		}
		std::vector<rx> a = run(w, t, t.back().cycle + 1000);

		CHECK(lost_ids(t, a) == exp && counts(w, dir ? 1 : 0, dir).down_lost == exp.size(),
		      "lost %zu, expected %zu", lost_ids(t, a).size(), exp.size());
		std::printf("down windows (%s): exactly the %zu frames on the link in them lost: ok\n",
			    dir ? "rx" : "tx", exp.size());
	}
	/* Random windows, both directions of node 0's link with one seed:
	 * frames 0->1 leave on node 0's TX during the very cycles frames 1->0
	 * arrive on node 0's RX, so the same ones are lost. */
	{
		std::vector<tx> t;

		/* 0-byte payloads: ser 3, back to back without queueing. */
		for (unsigned i = 0; i < 20000; i++) {
			t.push_back({1000 + 3 * (uint64_t)i, 0, 1, i, 0});
			t.push_back({1000 + 3 * (uint64_t)i - kLatency, 1, 0, 100000 + i, 0});
		}
		std::sort(t.begin(), t.end(), [](const tx &a, const tx &b) {
			return a.cycle != b.cycle ? a.cycle < b.cycle : a.id < b.id;
		});
		rnic::wire w(cfg());
		rnic_wire_faults f = none();

		f.down_rate = 0.002;
		f.down_cycles = 100;
		f.seed = 31;
		w.set_faults(0, RNIC_WIRE_DIR_TX, &f, 0);
		w.set_faults(0, RNIC_WIRE_DIR_RX, &f, 0);
		std::vector<rx> a = run(w, t, t.back().cycle + 1000);
		std::set<uint32_t> lost = lost_ids(t, a), l01, l10;

		for (uint32_t id : lost)
			(id < 100000 ? l01 : l10).insert(id % 100000);
		double frac = (double)l01.size() / 20000;

		CHECK(l01 == l10, "directions lost %zu and %zu different frames", l01.size(), l10.size());
		/* Down 100 of every ~600 cycles, plus a frame's length. */
		CHECK(frac > 0.1 && frac < 0.3, "%.3f of the frames lost", frac);
		CHECK(counts(w, 0, RNIC_WIRE_DIR_TX).down_lost == l01.size() &&
		      counts(w, 0, RNIC_WIRE_DIR_RX).down_lost == l10.size(), "counters");
		std::printf("random down windows (rate 0.002, 100 cycles): %.1f%% lost, the same frames "
			    "in both directions: ok\n", 100 * frac);
	}
}

/* Every fault on every link. */
std::vector<rx> chaos(uint64_t seed, std::vector<rnic_wire_fault_counts> *c)
{
	std::vector<tx> t = mixed(5, 6000, 15);
	rnic::wire w(cfg());
	rnic_wire_faults f = none();

	f.drop = 0.02;
	f.corrupt = 0.02;
	f.corrupt_bits = 2;
	f.dup = 0.02;
	f.reorder = 0.05;
	f.delay_spike = 0.01;
	f.delay_cycles = 150;
	f.down_rate = 0.0005;
	f.down_cycles = 50;
	f.n_down = 1;
	f.down[0] = {20000, 300};
	f.seed = seed;
	for (unsigned n = 0; n < kNodes; n++)
		for (unsigned d = 0; d < 2; d++)
			w.set_faults(n, d, &f, 0);
	std::vector<rx> a = run(w, t, t.back().cycle + 20000);

	c->clear();
	for (unsigned n = 0; n < kNodes; n++)
		for (unsigned d = 0; d < 2; d++)
			c->push_back(counts(w, n, d));
	return a;
}

bool same_counts(const std::vector<rnic_wire_fault_counts> &a,
		 const std::vector<rnic_wire_fault_counts> &b)
{
	return a.size() == b.size() &&
	       !std::memcmp(a.data(), b.data(), a.size() * sizeof(rnic_wire_fault_counts));
}

void test_determinism()
{
	std::vector<rnic_wire_fault_counts> c1, c2, c3;
	std::vector<rx> a1 = chaos(1, &c1), a2 = chaos(1, &c2), a3 = chaos(2, &c3);
	uint64_t faults = 0;

	for (const rnic_wire_fault_counts &c : c1)
		faults += c.dropped + c.corrupted + c.duplicated + c.reordered + c.delayed + c.down_lost;
	CHECK(a1 == a2 && same_counts(c1, c2), "same seed, different runs");
	CHECK(!(a1 == a3) && !same_counts(c1, c3), "another seed gave the same faults");
	CHECK(faults > 500, "%llu", (unsigned long long)faults);
	std::printf("determinism: every fault on every link, %llu faults, %zu arrivals: seed 1 twice "
		    "identical (cycles, bytes, counters), seed 2 differs: ok\n",
		    (unsigned long long)faults, a1.size());

	/* Node 1's TX link does not see node 0's faults: change node 0's
	 * completely, node 1's frames (128-byte payloads) arrive identically. */
	std::vector<tx> t;

	for (const tx &x : stream(0, 2, 4000, 6, 64))
		t.push_back(x);
	for (tx x : stream(1, 2, 4000, 6, 128, 4000)) {
		x.cycle += 2;
		t.push_back(x);
	}
	std::sort(t.begin(), t.end(), [](const tx &a, const tx &b) { return a.cycle < b.cycle; });
	std::vector<rx> b[2];
	rnic_wire_fault_counts cb[2];

	for (int k = 0; k < 2; k++) {
		rnic::wire w(cfg());
		rnic_wire_faults f = none();

		f.drop = 0.1;
		f.corrupt = 0.1;
		f.dup = 0.1;
		f.reorder = 0.1;
		f.delay_spike = 0.05;
		f.delay_cycles = 50;
		f.seed = 3;
		w.set_faults(1, RNIC_WIRE_DIR_TX, &f, 0);
		f.drop = k ? 0.5 : 0.01;
		f.corrupt = k ? 0 : 0.3;
		f.reorder = k ? 0.4 : 0;
		w.set_faults(0, RNIC_WIRE_DIR_TX, &f, 0);
		for (const rx &r : run(w, t, t.back().cycle + 5000))
			if (r.f.size() == frame_len(128))
				b[k].push_back(r);
		cb[k] = counts(w, 1, RNIC_WIRE_DIR_TX);
	}
	CHECK(b[0] == b[1] && !std::memcmp(&cb[0], &cb[1], sizeof(cb[0])),
	      "node 0's faults changed node 1's");
	std::printf("isolation: node 1's %zu arrivals unchanged when node 0's faults change: ok\n",
		    b[0].size());
}

void test_env()
{
	static const char *const vars[] = {
		"RNIC_WIRE_DROP=0.01", "RNIC_WIRE_DROP_1=0.5", "RNIC_WIRE_DUP_1_RX=0.25",
		"RNIC_WIRE_CORRUPT=0.001", "RNIC_WIRE_CORRUPT_BITS=3", "RNIC_WIRE_DOWN=100:50,0x1000:10",
		"RNIC_WIRE_DOWN_2_TX=7:1", "RNIC_WIRE_SEED=7", "RNIC_WIRE_SEED_2=9",
		"RNIC_WIRE_REORDER=2", /* out of range: ignored */
	};
	for (const char *v : vars)
		putenv(const_cast<char *>(v));

	rnic_wire_faults f[kNodes][2];
	bool any[kNodes][2];

	for (unsigned n = 0; n < kNodes; n++)
		for (unsigned d = 0; d < 2; d++)
			any[n][d] = rnic::env_link_faults(n, d, &f[n][d]);
	CHECK(any[0][0] && f[0][0].drop == 0.01 && f[0][0].corrupt == 0.001 &&
	      f[0][0].corrupt_bits == 3 && f[0][0].reorder == 0 && f[0][0].seed == 7, "node 0 tx");
	CHECK(f[1][0].drop == 0.5 && f[1][0].dup == 0, "node 1 tx");
	/* Per-frame faults reach an RX link only by name; DOWN and SEED do. */
	CHECK(f[0][1].drop == 0 && f[0][1].corrupt == 0 && f[0][1].n_down == 2 &&
	      f[0][1].down[0].start == 100 && f[0][1].down[0].len == 50 &&
	      f[0][1].down[1].start == 0x1000 && f[0][1].down[1].len == 10 && f[0][1].seed == 7,
	      "node 0 rx");
	CHECK(f[1][1].dup == 0.25 && f[1][1].drop == 0, "node 1 rx");
	CHECK(f[2][0].n_down == 1 && f[2][0].down[0].start == 7 && f[2][0].seed == 9 &&
	      f[2][1].n_down == 2 && f[2][1].seed == 9, "node 2");
	for (const char *v : vars) {
		std::string name(v, std::strchr(v, '=') - v);

		unsetenv(name.c_str());
	}
	rnic_wire_faults g;

	CHECK(!rnic::env_link_faults(0, 0, &g), "no variables, still faults");
	std::printf("environment: RNIC_WIRE_<F>, _<n>, _<n>_RX, DOWN lists, seeds: ok\n");
}

void test_frame_check()
{
	/* The model's ICRC is the RTL's: same seed constant as rnic_pkg. */
	CHECK(tb::icrc_seed() == 0xdebb20e3u, "0x%08x", tb::icrc_seed());
	lcg r{42};
	unsigned bad = 0;

	for (unsigned i = 0; i < 3000; i++) {
		std::vector<uint8_t> f = tb::send_only(0, 1, 9, i, 4 * (i % 64));

		CHECK(tb::intact(f) && rnic::roce_frame_intact(f.data(), f.size()), "frame %u", i);
		for (unsigned k = 0, m = 1 + r.next() % 3; k < m; k++) {
			uint32_t b = r.next() % (f.size() * 8);

			f[b / 8] ^= 1 << (b % 8);
		}
		bad += !tb::intact(f);
		CHECK(tb::intact(f) == rnic::roce_frame_intact(f.data(), f.size()), "frame %u", i);
	}
	std::printf("ICRC verdicts agree with an independent CRC on 3000 corrupted frames "
		    "(%u bad): ok\n", bad);
}

/*
 * The link paces its sender: a node that hands its TX port 4 KiB frames
 * back to back (130 beats each, 131 cycles on the link) and small frames
 * between them is held back once a largest frame's serialisation is
 * queued. The link never idles while the node has a frame, and no frame
 * waits on the link longer than that serialisation.
 */
void test_pacing()
{
	rnic::wire w(cfg());
	const size_t big = frame_len(4096), small = frame_len(0);
	const uint64_t slack = ser(14 + 20 + 8 + 12 + 16 + 4 + 4096 + 4);
	const unsigned n = 300;
	std::vector<uint64_t> handed, at;
	uint64_t c = 100, first = 100, waited = 0;
	int failed = failures;
	unsigned i = 0;

	for (; i < n || at.size() < n; c++) {
		w.deliver(c);
		while (w.rx_queued(1)) {
			at.push_back(c);
			w.rx_pop(1);
		}
		if (i == n || c < first)
			continue;
		if (c == first) {
			/* A frame's first beat waits for the link. */
			if (!w.tx_ready(0, c)) {
				first = c + 1;
				waited++;
				continue;
			}
			size_t len = i % 3 == 2 ? small : big;

			first = c + (len + kRate - 1) / kRate;	/* the next frame's first beat */
			std::vector<uint8_t> f = tb::send_only(0, 1, kQpn, i, (unsigned)(len - small));

			w.inject(0, first - 1, f.data(), f.size());	/* its last beat */
			handed.push_back(first - 1);
			i++;
		}
	}
	CHECK(at.size() == n, "%zu frames arrived of %u", at.size(), n);
	CHECK(waited > 0, "the sender was never held back");
	uint64_t idle = 0, worst = 0;

	for (unsigned k = 0; k < n; k++) {
		size_t len = k % 3 == 2 ? small : big;
		uint64_t wait = at[k] - kLatency - ser(len) - handed[k];

		worst = std::max(worst, wait);
		if (k && at[k] - ser(len) > at[k - 1])
			idle += at[k] - ser(len) - at[k - 1];
	}
	CHECK(idle == 0, "the link idled %llu cycles while the node had frames",
	      (unsigned long long)idle);
	CHECK(worst <= slack, "a frame waited %llu cycles on the link (slack %llu)",
	      (unsigned long long)worst, (unsigned long long)slack);
	if (failures == failed)
		std::printf("pacing: %u frames, the sender held %llu cycles, longest wait on the "
			    "link %llu of %llu, no idle link: ok\n", n, (unsigned long long)waited,
			    (unsigned long long)worst, (unsigned long long)slack);
}

} /* namespace */

int main()
{
	test_frame_check();
	test_plain_and_silent();
	test_drop();
	test_corrupt();
	test_dup();
	test_reorder();
	test_delay();
	test_down();
	test_determinism();
	test_env();
	test_pacing();
	if (failures) {
		std::printf("model_wire: %d checks FAILED\n", failures);
		return 1;
	}
	std::printf("model_wire: passed\n");
	return 0;
}
