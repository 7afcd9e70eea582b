/* SPDX-License-Identifier: MIT */
/*
 * wire_faults.h - fault injection on one direction of a link: the seeded
 * random streams, the per-frame decisions, down windows, frames held back for
 * reordering and the counters. Internal to the model; the wire (wire.cpp)
 * moves the frames.
 */
#ifndef RNIC_WIRE_FAULTS_H
#define RNIC_WIRE_FAULTS_H

#include <cstdint>
#include <cstdio>
#include <vector>

#include "rnic_model.h"

namespace rnic {

/* splitmix64: small, fast, and fully determined by its 64-bit state. */
struct prng {
	uint64_t s;

	uint64_t next()
	{
		uint64_t z = (s += 0x9e3779b97f4a7c15ull);

		z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
		z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
		return z ^ (z >> 31);
	}
	/* Uniform in [0, 1). */
	double unit() { return (double)(next() >> 11) * 0x1p-53; }
};

/* A frame on its way through the links. */
struct wpkt {
	uint64_t at;		/* cycle of its first RX beat */
	uint32_t buf;
	uint16_t dst;
	uint16_t flags;
};
constexpr uint16_t kPktCorrupted = 1;

/* What happens to one frame on one link. */
struct fault_draw {
	bool spike, drop, corrupt, dup, reorder;
	prng sub;	/* further numbers for this frame: bit positions, hold count */
};

class fault_link {
public:
	struct held {
		wpkt k;
		uint64_t deadline;	/* goes on at this cycle if not passed before */
		uint32_t left;		/* later frames still to pass it */
	};

	/* @f NULL turns the link off. @now starts the random down windows. */
	void configure(const rnic_wire_faults *f, unsigned node, unsigned dir, uint64_t now);
	bool on() const { return on_; }
	const rnic_wire_faults &cfg() const { return cfg_; }

	/* One number of the link's stream per frame, whatever is decided. */
	fault_draw draw();
	/* Flips cfg().corrupt_bits distinct bits of @f chosen by @d. */
	void corrupt(std::vector<uint8_t> &f, fault_draw &d);
	/* Whether the link is down at any cycle of [from, to). @now (the
	 * current cycle) lets old random windows go. */
	bool down(uint64_t from, uint64_t to, uint64_t now);

	void hold(const wpkt &k, fault_draw &d);
	/* A frame arriving at @at passed the held ones: those whose count ends
	 * are appended to @out (arrival moved behind @at) and forgotten. */
	void passed(uint64_t at, std::vector<wpkt> &out);
	/* Held frames whose deadline is <= @now (arrival at least @now). */
	void due(uint64_t now, std::vector<wpkt> &out);
	/* Every held frame (arrival at least @now). */
	void release_all(uint64_t now, std::vector<wpkt> &out);
	size_t nheld() const { return held_.size(); }
	uint64_t next_deadline() const { return next_deadline_; }

	rnic_wire_fault_counts cnt{};

private:
	void more_windows(uint64_t to);

	bool on_ = false;
	rnic_wire_faults cfg_{};
	prng st_{0};		/* one number per frame */
	prng down_st_{0};	/* random down windows */
	uint64_t gen_from_ = 0;	/* the next random window starts at or after this */
	std::vector<rnic_wire_window> rwin_;	/* random windows not yet over */
	std::vector<held> held_;
	uint64_t next_deadline_ = ~0ull;
};

/* Probabilities in [0, 1], corrupt_bits <= 64, n_down <= RNIC_WIRE_MAX_DOWN. */
bool faults_valid(const rnic_wire_faults &f);

/* The verdict of a RoCEv2 receiver on a frame's integrity: false when it is
 * not IPv4, its length is not the IPv4 total length + 14, or the ICRC (as the
 * RTL computes it, over the masked IPv4/UDP/BTH headers and the payload)
 * does not match. */
bool roce_frame_intact(const uint8_t *f, size_t len);

/* The faults RNIC_WIRE_* give one link (docs/time-model.md); false when no
 * variable names it. Bad values are reported and ignored. */
bool env_link_faults(unsigned node, unsigned dir, rnic_wire_faults *f);
/* Reports RNIC_WIRE_* variables that are misspelt or name no node. */
void env_wire_check(unsigned nodes);
/* RNIC_WIRE_STATS: a header, then one line per link direction. */
void print_fault_header(FILE *f);
void print_fault_counts(FILE *f, unsigned node, unsigned dir, const rnic_wire_fault_counts &c);

} /* namespace rnic */

#endif /* RNIC_WIRE_FAULTS_H */
