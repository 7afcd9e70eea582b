// SPDX-License-Identifier: MIT
/*
 * host_mem.cpp - per-node IOMMU and DMA engines.
 *
 * Reads: a request is accepted while fewer than max_rd_out are outstanding
 * (a read counts until its last beat is taken). Its first beat is offered
 * max(rd_latency, 1) cycles after the accepting edge, responses go strictly in
 * request order, and beats are paced by a token bucket of bytes_per_cycle
 * (never more than one beat per cycle). The data are copied from host memory
 * when the first beat is offered; if any byte is unmapped, every beat carries
 * err=1 and zero data and the fault counter goes up once.
 *
 * Writes: always ready. The bytes are queued and the write becomes visible
 * (host memory updated, write counter incremented) wr_latency cycles after the
 * edge of its last beat, in order. Unmapped bytes are dropped and counted as
 * one fault per write; the mapped bytes are still written.
 */
#include "host_mem.h"

#include <cerrno>

#include "Vrnic_top.h"

namespace rnic {

host_mem::host_mem(unsigned node, const mem_cfg &cfg)
	: node_(node), cfg_(cfg), rdq_(cfg.max_rd_out + 1),
	  rd_buf_(65536 + kBytes), wq_(64)
{
	credit_cap_ = std::max<uint64_t>(cfg_.bytes_per_cycle, kBytes);
	credit_ = credit_cap_;
}

/*
 * Mapping the same page to the same host page again is allowed and counted,
 * so that overlapping registrations (IOVA == VA) can map and unmap
 * independently. Mapping it elsewhere is -EEXIST. Nothing changes on error.
 */
int host_mem::map(uint64_t iova, void *host, size_t len)
{
	uint8_t *h = static_cast<uint8_t *>(host);

	if (!host || !len || (iova | (uintptr_t)host | len) & (kPageSize - 1) ||
	    iova + len < iova)
		return -EINVAL;
	for (uint64_t off = 0; off < len; off += kPageSize) {
		auto it = pages_.find((iova + off) >> kPageShift);

		if (it != pages_.end() && it->second.host != h + off)
			return -EEXIST;
	}
	for (uint64_t off = 0; off < len; off += kPageSize) {
		page &p = pages_[(iova + off) >> kPageShift];

		p.host = h + off;
		p.refs++;
	}
	tlb_page_ = ~0ull;
	return 0;
}

int host_mem::unmap(uint64_t iova, size_t len)
{
	if (!len || (iova | len) & (kPageSize - 1) || iova + len < iova)
		return -EINVAL;
	for (uint64_t off = 0; off < len; off += kPageSize)
		if (!pages_.count((iova + off) >> kPageShift))
			return -ENOENT;
	for (uint64_t off = 0; off < len; off += kPageSize) {
		auto it = pages_.find((iova + off) >> kPageShift);

		if (--it->second.refs == 0)
			pages_.erase(it);
	}
	tlb_page_ = ~0ull;
	return 0;
}

uint8_t *host_mem::translate(uint64_t iova)
{
	uint64_t pg = iova >> kPageShift;

	if (pg != tlb_page_) {
		auto it = pages_.find(pg);

		if (it == pages_.end())
			return nullptr;
		tlb_page_ = pg;
		tlb_host_ = it->second.host;
	}
	return tlb_host_ + (iova & (kPageSize - 1));
}

bool host_mem::read_host(uint64_t addr, uint8_t *dst, uint32_t len)
{
	bool ok = addr + len >= addr;
	uint64_t cyc;

	if (ok && port_)
		return port_->dma_read(addr, dst, len, &cyc);
	for (uint32_t off = 0; ok && off < len;) {
		uint64_t a = addr + off;
		uint32_t n = std::min<uint64_t>(len - off, kPageSize - (a & (kPageSize - 1)));
		const uint8_t *h = translate(a);

		if (!h)
			ok = false;
		else
			std::memcpy(&dst[off], h, n);
		off += n;
	}
	return ok;
}

void host_mem::open_response(const rd_req &r)
{
	bool ok;

	if (port_ && port_->timed()) {
		/* Read when accepted (sample()). */
		const std::vector<uint8_t> &d = rd_pre_.front();

		ok = rd_pre_ok_.front();
		std::memcpy(rd_buf_.data(), d.data(), r.len);
		rd_pre_.pop_front();
		rd_pre_ok_.pop_front();
	} else {
		ok = read_host(r.addr, rd_buf_.data(), r.len);
	}
	if (!ok) {
		std::memset(rd_buf_.data(), 0, r.len);
		faults_++;
	}
	rsp_err_ = !ok;
	rsp_open_ = true;
	beat_ = 0;
	beat_driven_ = false;
}

void host_mem::drive(Vrnic_top &t, uint64_t cycle)
{
	bool valid = false;

	t.dma_rd_req_ready_i = rdq_.size() < cfg_.max_rd_out;
	t.dma_wr_ready_i = 1;
	credit_ = std::min(credit_ + cfg_.bytes_per_cycle, credit_cap_);

	if (!rdq_.empty() && rdq_.front().start <= cycle) {
		const rd_req &r = rdq_.front();
		uint32_t off = beat_ * kBytes;
		uint32_t n = std::min<uint32_t>(kBytes, r.len - off);

		if (!rsp_open_)
			open_response(r);
		if (credit_ >= n) {
			valid = true;
			if (!beat_driven_) {
				port_put(t.dma_rd_rsp_data_i, &rd_buf_[off], n);
				t.dma_rd_rsp_tag_i = r.tag;
				t.dma_rd_rsp_last_i = off + n >= r.len;
				t.dma_rd_rsp_err_i = rsp_err_;
				beat_driven_ = true;
			}
		}
	}
	t.dma_rd_rsp_valid_i = valid;
}

void host_mem::sample(Vrnic_top &t, uint64_t cycle)
{
	if (t.dma_rd_rsp_valid_i && t.dma_rd_rsp_ready_o) {
		const rd_req &r = rdq_.front();

		credit_ -= std::min<uint32_t>(kBytes, r.len - beat_ * kBytes);
		beat_++;
		beat_driven_ = false;
		if (t.dma_rd_rsp_last_i) {
			rdq_.pop_front();
			rsp_open_ = false;
			beat_ = 0;
		}
	}

	if (t.dma_rd_req_valid_o && t.dma_rd_req_ready_i) {
		rd_req r;

		r.addr = t.dma_rd_req_addr_o;
		r.len = t.dma_rd_req_len_o;
		r.tag = t.dma_rd_req_tag_o;
		r.start = cycle + std::max(cfg_.rd_latency, 1u);
		if (!r.len) {
			/* Not allowed by the interface; answer one empty error beat. */
			model_warn(node_, cycle, "DMA read of length 0 (tag %u)", r.tag);
			proto_error();
			r.len = 1;
			r.addr = ~0ull;
		}
		if (port_ && port_->timed()) {
			std::vector<uint8_t> d(r.len);
			uint64_t cyc = 0;
			bool ok = r.addr + r.len >= r.addr &&
				  port_->dma_read(r.addr, d.data(), r.len, &cyc);

			r.start = cycle + std::max<uint64_t>(cyc, 1);
			/* Responses stay in request order. */
			if (!rdq_.empty())
				r.start = std::max(r.start, rdq_[rdq_.size() - 1].start);
			rd_pre_.push_back(std::move(d));
			rd_pre_ok_.push_back(ok);
		}
		rdq_.push_back(r);
	}

	if (t.dma_wr_valid_o && t.dma_wr_ready_i)
		write_beat(t, cycle);
}

void host_mem::write_beat(Vrnic_top &t, uint64_t cycle)
{
	if (!wr_open_) {
		wr_open_ = true;
		wr_addr_ = t.dma_wr_addr_o;
		wr_len_ = t.dma_wr_len_o;
		wr_got_ = 0;
		if (!wr_len_) {
			model_warn(node_, cycle, "DMA write of length 0 to 0x%llx",
				   (unsigned long long)wr_addr_);
			proto_error();
		}
	}

	uint32_t n = std::min<uint32_t>(kBytes, wr_len_ - wr_got_);

	if (!n && wr_len_) {
		model_warn(node_, cycle, "DMA write to 0x%llx: beat beyond its %u bytes",
			   (unsigned long long)wr_addr_, wr_len_);
		proto_error();
	}
	wdata_.push(port_bytes(t.dma_wr_data_o), n);
	wr_got_ += n;

	if (t.dma_wr_last_o) {
		if (wr_got_ != wr_len_) {
			model_warn(node_, cycle, "DMA write to 0x%llx: last after %u of %u bytes",
				   (unsigned long long)wr_addr_, wr_got_, wr_len_);
			proto_error();
		}
		wr_desc w = {wr_addr_, cycle + cfg_.wr_latency, wr_got_, false};

		if (port_ && port_->timed()) {
			uint64_t cyc = 0;

			wr_tmp_.resize(w.len);
			wdata_.copy_out(wdata_.size() - w.len, wr_tmp_.data(), w.len);
			if (w.addr + w.len < w.addr ||
			    !port_->dma_write(w.addr, wr_tmp_.data(), w.len, &cyc))
				faults_++;
			w.done = true;
			w.visible_at = cycle + cyc;
			if (!wq_.empty())
				w.visible_at = std::max(w.visible_at, wq_[wq_.size() - 1].visible_at);
		}
		wq_.push_back(w);
		wr_open_ = false;
	}
}

void host_mem::apply_write()
{
	const wr_desc &w = wq_.front();
	/* A write that wraps the address space is refused as a whole. */
	bool wraps = w.addr + w.len < w.addr;
	bool fault = wraps;

	if (w.done) {
		/* Timed port: written (and a fault counted) at its last beat. */
	} else if (port_ && !wraps) {
		uint64_t cyc;

		wr_tmp_.resize(w.len);
		wdata_.copy_out(0, wr_tmp_.data(), w.len);
		fault = !port_->dma_write(w.addr, wr_tmp_.data(), w.len, &cyc);
	} else {
		for (uint32_t off = 0; !wraps && off < w.len;) {
			uint64_t a = w.addr + off;
			uint32_t n = std::min<uint64_t>(w.len - off,
							kPageSize - (a & (kPageSize - 1)));
			uint8_t *h = translate(a);

			if (h)
				wdata_.copy_out(off, h, n);
			else
				fault = true;
			off += n;
		}
	}
	if (fault)
		faults_++;
	wdata_.pop(w.len);
	writes_++;
	wq_.pop_front();
}

} /* namespace rnic */
