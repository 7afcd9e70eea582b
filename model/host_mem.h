/* SPDX-License-Identifier: MIT */
/*
 * host_mem.h - one node's host memory as the RNIC sees it: an IOMMU in front of
 * this process's memory, a DMA read engine and a posted DMA write queue.
 * Internal to the model.
 */
#ifndef RNIC_HOST_MEM_H
#define RNIC_HOST_MEM_H

#include <cstdint>
#include <unordered_map>
#include <vector>

#include "sim_util.h"

class Vrnic_top;

namespace rnic {

struct mem_cfg {
	unsigned rd_latency;
	unsigned wr_latency;
	unsigned bytes_per_cycle;
	unsigned max_rd_out;
};

/*
 * Where the DMA bytes go when not into the built-in IOMMU (a SystemC
 * platform's DMA socket, model/systemc/). Calls come at the cycles the
 * latency model gives: a read when its first beat is offered, a write when
 * it becomes visible. With timed() the port's own latency (*cycles) sets
 * them instead: a read is made when it is accepted and offered *cycles
 * later (at least 1), a write is made at its last beat and becomes visible
 * *cycles later (never before the writes ahead of it). false: error.
 */
class dma_port {
public:
	virtual ~dma_port() = default;
	virtual bool dma_read(uint64_t iova, uint8_t *dst, uint32_t len, uint64_t *cycles) = 0;
	virtual bool dma_write(uint64_t iova, const uint8_t *src, uint32_t len,
			       uint64_t *cycles) = 0;
	virtual bool timed() const { return false; }
};

class host_mem {
public:
	host_mem(unsigned node, const mem_cfg &cfg);

	int map(uint64_t iova, void *host, size_t len);
	/* DMA through @p instead of the page table (nullptr: back to it). */
	void set_port(dma_port *p) { port_ = p; }
	int unmap(uint64_t iova, size_t len);
	/* The host address IOVA @iova maps to (nullptr: none). */
	const uint8_t *host_of(uint64_t iova) const
	{
		auto it = pages_.find(iova >> kPageShift);

		return it == pages_.end() ? nullptr : it->second.host + (iova & (kPageSize - 1));
	}

	/* Before the edge of @cycle: set the DMA inputs. */
	void drive(Vrnic_top &t, uint64_t cycle);
	/* Settled values of the edge of @cycle: take the handshakes. */
	void sample(Vrnic_top &t, uint64_t cycle);
	/* After the edge of @cycle: make due writes visible. */
	void retire(uint64_t cycle)
	{
		while (!wq_.empty() && wq_.front().visible_at <= cycle)
			apply_write();
	}

	/* Fast-forward (docs/time-model.md): the first cycle >= @cycle whose
	 * tick does something here - offers a read beat, or after whose edge a
	 * write becomes visible (~0: none). */
	uint64_t next_event() const
	{
		uint64_t e = ~0ull;

		if (!rdq_.empty())
			e = rdq_.front().start;
		if (!wq_.empty())
			e = std::min(e, wq_.front().visible_at);
		return e;
	}
	/* The cycles after the one just driven, up to @n - 1 of them, passed
	 * without any handshake: only the bandwidth credit refills. */
	void skip(uint64_t n) { credit_ = credit_after(n); }
	uint64_t credit_after(uint64_t n) const { return credit_after(credit_, n); }
	/* The same from a credit of @from (what it was when a lag began). */
	uint64_t credit_after(uint64_t from, uint64_t n) const
	{
		if (n <= 1)
			return from;
		if (n - 1 >= credit_cap_)	/* at least a byte per cycle */
			return credit_cap_;
		return std::min(credit_cap_, from + (n - 1) * cfg_.bytes_per_cycle);
	}
	uint64_t credit() const { return credit_; }
	/* The cycle after whose edge the oldest queued write becomes visible. */
	uint64_t next_visible() const { return wq_.empty() ? ~0ull : wq_.front().visible_at; }

	uint64_t faults() const { return faults_; }
	uint64_t writes() const { return writes_; }
	/* Writes taken (last beat) but not yet visible. */
	size_t writes_queued() const { return wq_.size(); }
	uint64_t proto_errors() const { return proto_errors_; }

private:
	struct page {
		uint8_t *host;
		uint32_t refs;	/* identical mappings stack (see map()) */
	};
	struct rd_req {
		uint64_t addr;
		uint64_t start;	/* cycle of the first beat */
		uint32_t len;
		uint8_t tag;
	};
	struct wr_desc {
		uint64_t addr;
		uint64_t visible_at;
		uint32_t len;
		bool done;	/* timed port: already written */
	};

	uint8_t *translate(uint64_t iova);
	bool read_host(uint64_t addr, uint8_t *dst, uint32_t len);
	void open_response(const rd_req &r);
	void write_beat(Vrnic_top &t, uint64_t cycle);
	void apply_write();
	void proto_error() { proto_errors_++; }

	unsigned node_;
	mem_cfg cfg_;

	std::unordered_map<uint64_t, page> pages_;	/* IOVA page -> host page */
	uint64_t tlb_page_ = ~0ull;	/* one-entry cache of pages_ */
	uint8_t *tlb_host_ = nullptr;

	/* Reads: accepted requests in order; the head is being returned. */
	ring<rd_req> rdq_;
	std::vector<uint8_t> rd_buf_;	/* head's data, read at its first beat */
	bool rsp_open_ = false;		/* rd_buf_ holds the head's data */
	bool rsp_err_ = false;
	bool beat_driven_ = false;	/* current beat already on the ports */
	uint32_t beat_ = 0;
	uint64_t credit_;		/* bandwidth token bucket, bytes */
	uint64_t credit_cap_;

	/* Writes: bytes of posted writes in order, plus their descriptors. */
	byte_ring wdata_;
	ring<wr_desc> wq_;
	bool wr_open_ = false;		/* inside a multi-beat write */
	uint64_t wr_addr_ = 0;
	uint32_t wr_len_ = 0;
	uint32_t wr_got_ = 0;

	dma_port *port_ = nullptr;
	/* Timed port: the data of accepted reads, in request order. */
	ring<std::vector<uint8_t>> rd_pre_;
	ring<uint8_t> rd_pre_ok_;
	std::vector<uint8_t> wr_tmp_;

	uint64_t faults_ = 0;
	uint64_t writes_ = 0;
	uint64_t proto_errors_ = 0;
};

} /* namespace rnic */

#endif /* RNIC_HOST_MEM_H */
