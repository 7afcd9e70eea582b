// SPDX-License-Identifier: MIT
/*
 * wire_faults.cpp - fault injection on one direction of a link.
 *
 * Randomness: each link direction owns a splitmix64 stream seeded from (seed,
 * node, dir) and takes exactly one number from it per frame; the five
 * per-frame decisions, the corrupted bit positions and the hold count come
 * from a second splitmix64 started at that number. So a link's stream does
 * not depend on its probabilities or on any other link, and frame k of a
 * link always sees the same numbers. Random down windows come from a third
 * stream seeded from (seed, node), shared by both directions of the link.
 * Nothing reads the wall clock or std::random_device.
 */
#include "wire_faults.h"

#include <algorithm>
#include <array>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

extern char **environ;

namespace rnic {

namespace {

constexpr unsigned kDefReorderWindow = 4;
constexpr unsigned kDefReorderTimeout = 2000;
constexpr unsigned kDefDelayCycles = 1000;
constexpr unsigned kDefDownCycles = 1000;
/* A frame is at most 65535 + overhead bytes at >= 1 byte per cycle, so no
 * query reaches further back than this before the current cycle. */
constexpr uint64_t kDownKeep = 1ull << 20;

uint64_t mix(uint64_t seed, uint64_t salt)
{
	prng p{seed ^ (salt * 0xd1b54a32d192ed03ull)};

	return p.next();
}

uint64_t win_end(const rnic_wire_window &w)
{
	return w.start + w.len < w.start ? ~0ull : w.start + w.len;
}

bool overlaps(const rnic_wire_window &w, uint64_t from, uint64_t to)
{
	return w.len && w.start < to && from < win_end(w);
}

} /* namespace */

bool faults_valid(const rnic_wire_faults &f)
{
	const double p[] = {f.drop, f.corrupt, f.dup, f.reorder, f.delay_spike, f.down_rate};

	for (double x : p)
		if (!(x >= 0 && x <= 1))	/* NaN fails too */
			return false;
	return f.corrupt_bits <= 64 && f.n_down <= RNIC_WIRE_MAX_DOWN;
}

void fault_link::configure(const rnic_wire_faults *f, unsigned node, unsigned dir, uint64_t now)
{
	cfg_ = f ? *f : rnic_wire_faults{};
	on_ = cfg_.drop > 0 || cfg_.corrupt > 0 || cfg_.dup > 0 || cfg_.reorder > 0 ||
	      cfg_.delay_spike > 0 || cfg_.down_rate > 0 || cfg_.n_down;
	if (!cfg_.corrupt_bits)
		cfg_.corrupt_bits = 1;
	if (!cfg_.reorder_window)
		cfg_.reorder_window = kDefReorderWindow;
	if (!cfg_.reorder_timeout)
		cfg_.reorder_timeout = kDefReorderTimeout;
	if (!cfg_.delay_cycles)
		cfg_.delay_cycles = kDefDelayCycles;
	if (!cfg_.down_cycles)
		cfg_.down_cycles = kDefDownCycles;
	st_.s = mix(cfg_.seed, 1 + 2 * (uint64_t)node + dir);
	down_st_.s = mix(cfg_.seed, 0x100 + (uint64_t)node);
	gen_from_ = now;
	rwin_.clear();
}

fault_draw fault_link::draw()
{
	fault_draw d;

	d.sub.s = st_.next();
	/* Always five numbers, in this order. */
	d.spike = d.sub.unit() < cfg_.delay_spike;
	d.drop = d.sub.unit() < cfg_.drop;
	d.corrupt = d.sub.unit() < cfg_.corrupt;
	d.dup = d.sub.unit() < cfg_.dup;
	d.reorder = d.sub.unit() < cfg_.reorder;
	return d;
}

void fault_link::corrupt(std::vector<uint8_t> &f, fault_draw &d)
{
	uint64_t nbits = (uint64_t)f.size() * 8;
	uint64_t pos[64];
	unsigned n = (unsigned)std::min<uint64_t>(cfg_.corrupt_bits, nbits);

	for (unsigned i = 0; i < n; i++) {
		uint64_t p;
		bool again;

		do {
			p = d.sub.next() % nbits;
			again = std::find(pos, pos + i, p) != pos + i;
		} while (again);
		pos[i] = p;
		f[p / 8] ^= (uint8_t)(1u << (p % 8));
	}
}

/* Random windows: the gap before each one is geometric with the per-cycle
 * rate; each lasts down_cycles. */
void fault_link::more_windows(uint64_t to)
{
	const double r = cfg_.down_rate;

	while (gen_from_ < to) {
		uint64_t gap = 0;

		if (r < 1) {
			double u = 1 - down_st_.unit();	/* (0, 1] */
			double g = std::floor(std::log(u) / std::log1p(-r));

			gap = g < 0x1p62 ? (uint64_t)g : 1ull << 62;
		}
		rnic_wire_window w{gen_from_ + gap, cfg_.down_cycles};

		rwin_.push_back(w);
		gen_from_ = win_end(w);
	}
}

bool fault_link::down(uint64_t from, uint64_t to, uint64_t now)
{
	if (to <= from)
		to = from + 1;
	for (unsigned i = 0; i < cfg_.n_down && i < RNIC_WIRE_MAX_DOWN; i++)
		if (overlaps(cfg_.down[i], from, to))
			return true;
	if (cfg_.down_rate <= 0)
		return false;

	size_t old = 0;

	while (old < rwin_.size() && win_end(rwin_[old]) + kDownKeep <= now)
		old++;
	if (old > 64)
		rwin_.erase(rwin_.begin(), rwin_.begin() + old);
	more_windows(to);
	for (const rnic_wire_window &w : rwin_) {
		if (w.start >= to)
			break;
		if (overlaps(w, from, to))
			return true;
	}
	return false;
}

void fault_link::hold(const wpkt &k, fault_draw &d)
{
	held h{k, k.at + cfg_.reorder_timeout,
	       1 + (uint32_t)(d.sub.next() % cfg_.reorder_window)};

	held_.push_back(h);
	next_deadline_ = std::min(next_deadline_, h.deadline);
}

void fault_link::passed(uint64_t at, std::vector<wpkt> &out)
{
	bool gone = false;

	for (held &h : held_) {
		if (--h.left)
			continue;
		h.k.at = std::max(h.k.at, at);
		out.push_back(h.k);
		gone = true;
	}
	if (!gone)
		return;
	held_.erase(std::remove_if(held_.begin(), held_.end(),
				   [](const held &h) { return !h.left; }),
		    held_.end());
	next_deadline_ = ~0ull;
	for (const held &h : held_)
		next_deadline_ = std::min(next_deadline_, h.deadline);
}

void fault_link::due(uint64_t now, std::vector<wpkt> &out)
{
	if (now < next_deadline_)
		return;
	for (held &h : held_) {
		if (h.deadline > now)
			continue;
		h.k.at = std::max(h.k.at, now);
		out.push_back(h.k);
		h.left = 0;
	}
	held_.erase(std::remove_if(held_.begin(), held_.end(),
				   [](const held &h) { return !h.left; }),
		    held_.end());
	next_deadline_ = ~0ull;
	for (const held &h : held_)
		next_deadline_ = std::min(next_deadline_, h.deadline);
}

void fault_link::release_all(uint64_t now, std::vector<wpkt> &out)
{
	for (held &h : held_) {
		h.k.at = std::max(h.k.at, now);
		out.push_back(h.k);
	}
	held_.clear();
	next_deadline_ = ~0ull;
}

/* ICRC as the RTL's rx parser computes it: CRC-32 (IEEE, reflected) from the
 * state after 8 bytes of 0xff (the masked LRH), over bytes 14 .. end - 4 with
 * the variant fields (ToS, TTL, IP checksum, UDP checksum, BTH resv8a) taken
 * as 0xff; the ICRC follows, little-endian, inverted. */
bool roce_frame_intact(const uint8_t *f, size_t len)
{
	static const std::array<uint32_t, 256> tab = [] {
		std::array<uint32_t, 256> t{};

		for (uint32_t i = 0; i < 256; i++) {
			uint32_t c = i;

			for (int k = 0; k < 8; k++)
				c = c & 1 ? 0xedb88320u ^ (c >> 1) : c >> 1;
			t[i] = c;
		}
		return t;
	}();

	if (len < 14 + 20 + 8 + 12 + 4 || f[12] != 0x08 || f[13] != 0x00)
		return false;
	if ((size_t)(f[16] << 8 | f[17]) + 14 != len)
		return false;

	uint32_t crc = 0xffffffffu;

	for (int i = 0; i < 8; i++)
		crc = tab[(crc ^ 0xff) & 0xff] ^ (crc >> 8);
	for (size_t p = 14; p < len - 4; p++) {
		bool masked = p == 15 || p == 22 || p == 24 || p == 25 || p == 40 ||
			      p == 41 || p == 46;
		uint8_t b = masked ? 0xff : f[p];

		crc = tab[(crc ^ b) & 0xff] ^ (crc >> 8);
	}

	uint32_t icrc = (uint32_t)f[len - 4] | (uint32_t)f[len - 3] << 8 |
			(uint32_t)f[len - 2] << 16 | (uint32_t)f[len - 1] << 24;

	return icrc == ~crc;
}

/*
 * Environment. RNIC_WIRE_<F> sets every node's TX link, RNIC_WIRE_<F>_<n>
 * node n's TX link, RNIC_WIRE_<F>_<n>_TX / _<n>_RX one direction of node n's
 * link; the most specific one wins. The link-level ones (DOWN, DOWN_RATE,
 * DOWN_CYCLES, SEED) without _TX/_RX set both directions. So a per-frame
 * probability set once applies once to every frame (each frame crosses one
 * TX link), and a link that goes down goes down both ways.
 */
namespace {

enum env_kind { kProb, kUint, kSeed, kWindows };

struct env_var {
	const char *base;
	env_kind kind;
	bool link_level;
	double rnic_wire_faults::*prob;
	unsigned int rnic_wire_faults::*uint;
};

const env_var env_vars[] = {
	{"RNIC_WIRE_DROP", kProb, false, &rnic_wire_faults::drop, nullptr},
	{"RNIC_WIRE_CORRUPT", kProb, false, &rnic_wire_faults::corrupt, nullptr},
	{"RNIC_WIRE_CORRUPT_BITS", kUint, false, nullptr, &rnic_wire_faults::corrupt_bits},
	{"RNIC_WIRE_DUP", kProb, false, &rnic_wire_faults::dup, nullptr},
	{"RNIC_WIRE_REORDER", kProb, false, &rnic_wire_faults::reorder, nullptr},
	{"RNIC_WIRE_REORDER_WINDOW", kUint, false, nullptr, &rnic_wire_faults::reorder_window},
	{"RNIC_WIRE_REORDER_TIMEOUT", kUint, false, nullptr, &rnic_wire_faults::reorder_timeout},
	{"RNIC_WIRE_DELAY_SPIKE", kProb, false, &rnic_wire_faults::delay_spike, nullptr},
	{"RNIC_WIRE_DELAY_CYCLES", kUint, false, nullptr, &rnic_wire_faults::delay_cycles},
	{"RNIC_WIRE_DOWN", kWindows, true, nullptr, nullptr},
	{"RNIC_WIRE_DOWN_RATE", kProb, true, &rnic_wire_faults::down_rate, nullptr},
	{"RNIC_WIRE_DOWN_CYCLES", kUint, true, nullptr, &rnic_wire_faults::down_cycles},
	{"RNIC_WIRE_SEED", kSeed, true, nullptr, nullptr},
};

/* The other RNIC_WIRE_* variables (sim.cpp's env_cfg() and the stats). */
const char *const env_other[] = {
	"RNIC_WIRE_LATENCY", "RNIC_WIRE_BYTES_PER_CYCLE", "RNIC_WIRE_OVERHEAD", "RNIC_WIRE_STATS",
};

/* *which: 0 for _<n>_TX/_RX, 1 for _<n>, 2 for the bare name. */
const char *env_lookup(const env_var &v, unsigned node, unsigned dir, std::string *name,
		       unsigned *which)
{
	const char *dn = dir == RNIC_WIRE_DIR_RX ? "RX" : "TX";
	std::string cand[3] = {
		std::string(v.base) + "_" + std::to_string(node) + "_" + dn,
		std::string(v.base) + "_" + std::to_string(node),
		v.base,
	};
	unsigned n = dir == RNIC_WIRE_DIR_TX || v.link_level ? 3 : 1;

	for (unsigned i = 0; i < n; i++) {
		const char *s = std::getenv(cand[i].c_str());

		if (s && *s) {
			*name = cand[i];
			*which = i;
			return s;
		}
	}
	return nullptr;
}

bool parse_u64(const char *s, uint64_t *v)
{
	char *end;

	errno = 0;
	*v = std::strtoull(s, &end, 0);
	return end != s && !*end && !errno && *s != '-';
}

/* <start>:<len>[,<start>:<len>...] */
bool parse_windows(const char *s, rnic_wire_faults *f)
{
	rnic_wire_faults g = *f;

	g.n_down = 0;
	for (const char *p = s; *p;) {
		char *end;

		if (g.n_down == RNIC_WIRE_MAX_DOWN || *p == '-')
			return false;
		errno = 0;
		uint64_t a = std::strtoull(p, &end, 0);

		if (end == p || *end != ':' || errno || end[1] == '-')
			return false;
		p = end + 1;
		uint64_t l = std::strtoull(p, &end, 0);

		if (end == p || (*end && *end != ',') || errno)
			return false;
		g.down[g.n_down++] = {a, l};
		p = *end ? end + 1 : end;
	}
	*f = g;
	return true;
}

} /* namespace */

bool env_link_faults(unsigned node, unsigned dir, rnic_wire_faults *f)
{
	bool any = false;

	*f = rnic_wire_faults{};
	for (const env_var &v : env_vars) {
		std::string name;
		unsigned which = 0;
		const char *s = env_lookup(v, node, dir, &name, &which);
		bool ok = true;

		if (!s)
			continue;
		if (v.kind == kProb) {
			char *end;
			double x = std::strtod(s, &end);

			ok = end != s && !*end && x >= 0 && x <= 1;
			if (ok)
				f->*v.prob = x;
		} else if (v.kind == kUint || v.kind == kSeed) {
			uint64_t x;

			ok = parse_u64(s, &x) && (v.kind == kSeed || x <= 0xffffffffu);
			if (ok && v.kind == kSeed)
				f->seed = x;
			else if (ok)
				f->*v.uint = (unsigned int)x;
			if (ok && v.uint == &rnic_wire_faults::corrupt_bits && x > 64)
				ok = false;
		} else {
			ok = parse_windows(s, f);
		}
		if (ok)
			any = true;
		else if (!which || (dir == RNIC_WIRE_DIR_TX && (which == 1 || !node)))
			std::fprintf(stderr, "rnic model: ignoring %s=%s\n",	/* once */
				     name.c_str(), s);
	}
	return any;
}

/* Catches typos, which would otherwise silently turn a fault off. */
void env_wire_check(unsigned nodes)
{
	static const char pre[] = "RNIC_WIRE_";

	for (char **e = environ; e && *e; e++) {
		if (std::strncmp(*e, pre, sizeof(pre) - 1))
			continue;
		const char *eq = std::strchr(*e, '=');
		std::string name(*e, eq ? (size_t)(eq - *e) : std::strlen(*e));
		bool known = false;

		for (const char *o : env_other)
			known = known || name == o;
		for (const env_var &v : env_vars) {
			size_t bl = std::strlen(v.base);

			if (known || name.compare(0, bl, v.base))
				continue;
			if (name.size() == bl) {
				known = true;
				break;
			}
			/* _<n>[_TX|_RX] */
			const char *p = name.c_str() + bl;
			char *end;

			if (*p != '_' || !(p[1] >= '0' && p[1] <= '9'))
				continue;
			unsigned long n = std::strtoul(p + 1, &end, 10);

			if ((*end && std::strcmp(end, "_TX") && std::strcmp(end, "_RX")))
				continue;
			if (n >= nodes)
				std::fprintf(stderr, "rnic model: %s: there is no node %lu\n",
					     name.c_str(), n);
			known = true;
		}
		if (!known)
			std::fprintf(stderr, "rnic model: unknown variable %s ignored\n", name.c_str());
	}
}

void print_fault_counts(FILE *f, unsigned node, unsigned dir, const rnic_wire_fault_counts &c)
{
	std::fprintf(f, "%4u %3s %10llu %8llu %9llu %10llu %9llu %7llu %9llu %9llu %10llu %9llu %7llu\n",
		     node, dir == RNIC_WIRE_DIR_RX ? "rx" : "tx",
		     (unsigned long long)c.frames, (unsigned long long)c.dropped,
		     (unsigned long long)c.corrupted, (unsigned long long)c.duplicated,
		     (unsigned long long)c.reordered, (unsigned long long)c.delayed,
		     (unsigned long long)c.down_lost, (unsigned long long)c.misrouted,
		     (unsigned long long)c.delivered, (unsigned long long)c.delivered_corrupted,
		     (unsigned long long)c.delivered_bad);
}

void print_fault_header(FILE *f)
{
	std::fprintf(f, "# rnic wire faults per link direction (tx: node -> switch, rx: switch -> node)\n"
		     "# node dir     frames  dropped corrupted duplicated reordered delayed down_lost misrouted"
		     "  delivered corrupted     bad\n");
}

} /* namespace rnic */
