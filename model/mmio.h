/* SPDX-License-Identifier: MIT */
/*
 * mmio.h - one node's MMIO path: posted writes and reads queued in order and
 * presented on mmio_* after a fixed latency. Internal to the model.
 */
#ifndef RNIC_MMIO_H
#define RNIC_MMIO_H

#include <cstdint>

#include "sim_util.h"

class Vrnic_top;

namespace rnic {

class mmio {
public:
	mmio(unsigned node, unsigned latency) : node_(node), latency_(latency) {}

	/* @now is the cycle of the next edge. */
	void post_write(uint64_t now, uint32_t addr, uint64_t val);
	/* Returns an id for read_done()/cancel(). */
	uint32_t post_read(uint64_t now, uint32_t addr);
	bool read_done(uint32_t id, uint64_t *val) const
	{
		if (!done_ || done_id_ != id)
			return false;
		*val = done_val_;
		return true;
	}
	/* Give up on a read: drop it if not yet taken, ignore its data if it was. */
	void cancel(uint32_t id);

	void drive(Vrnic_top &t, uint64_t cycle);
	void sample(Vrnic_top &t, uint64_t cycle);

	uint64_t proto_errors() const { return proto_errors_; }
	/* Fast-forward: the first edge a request may be offered (~0: none). */
	uint64_t next_event() const
	{
		for (size_t i = 0; i < q_.size(); i++)
			if (!q_[i].cancelled)
				return q_[i].at;
		return ~0ull;
	}

private:
	struct req {
		uint64_t at;		/* first edge it may be taken */
		uint64_t wdata;
		uint32_t id;
		uint16_t addr;
		bool we;
		bool cancelled;
	};

	unsigned node_;
	unsigned latency_;
	ring<req> q_;			/* not yet taken by the RTL */
	ring<uint32_t> rd_taken_;	/* reads taken, awaiting mmio_rvalid_o */
	uint32_t next_id_ = 1;
	bool done_ = false;
	uint32_t done_id_ = 0;
	uint64_t done_val_ = 0;
	uint64_t proto_errors_ = 0;
};

} /* namespace rnic */

#endif /* RNIC_MMIO_H */
