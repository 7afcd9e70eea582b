// SPDX-License-Identifier: MIT
/*
 * mmio.cpp - MMIO requests of one node.
 *
 * A request posted when the next edge is cycle c is presented (mmio_valid_i)
 * from the edge c + mmio_latency on, one request at a time in posting order,
 * until the edge where mmio_ready_o is also 1. Read data are matched to taken
 * reads in order (the RTL answers reads in order with a one-cycle rvalid).
 */
#include "mmio.h"

#include "Vrnic_top.h"

namespace rnic {

void mmio::post_write(uint64_t now, uint32_t addr, uint64_t val)
{
	q_.push_back({now + latency_, val, 0, (uint16_t)addr, true, false});
}

uint32_t mmio::post_read(uint64_t now, uint32_t addr)
{
	uint32_t id = next_id_++;

	if (!id)	/* 0 never names a read */
		id = next_id_++;
	done_ = false;
	q_.push_back({now + latency_, 0, id, (uint16_t)addr, false, false});
	return id;
}

void mmio::cancel(uint32_t id)
{
	for (size_t i = 0; i < q_.size(); i++)
		if (!q_[i].we && q_[i].id == id)
			q_[i].cancelled = true;
	/* If it was taken, its data arrive for an id nobody waits for. */
	if (done_ && done_id_ == id)
		done_ = false;
}

void mmio::drive(Vrnic_top &t, uint64_t cycle)
{
	while (!q_.empty() && q_.front().cancelled)
		q_.pop_front();
	if (q_.empty() || q_.front().at > cycle) {
		t.mmio_valid_i = 0;
		return;
	}
	const req &r = q_.front();

	t.mmio_valid_i = 1;
	t.mmio_we_i = r.we;
	t.mmio_addr_i = r.addr;
	t.mmio_wdata_i = r.wdata;
}

void mmio::sample(Vrnic_top &t, uint64_t cycle)
{
	if (t.mmio_valid_i && t.mmio_ready_o) {
		if (!q_.front().we)
			rd_taken_.push_back(q_.front().id);
		q_.pop_front();
	}
	if (t.mmio_rvalid_o) {
		if (rd_taken_.empty()) {
			model_warn(node_, cycle, "mmio_rvalid_o without a pending read");
			proto_errors_++;
			return;
		}
		done_id_ = rd_taken_.front();
		done_val_ = t.mmio_rdata_o;
		done_ = true;
		rd_taken_.pop_front();
	}
}

} /* namespace rnic */
