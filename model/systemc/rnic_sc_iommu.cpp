// SPDX-License-Identifier: MIT
/*
 * rnic_sc_iommu.cpp - page-granular IOMMU (rnic_sc_iommu.h).
 */
#include "rnic_sc_iommu.h"

#include <algorithm>
#include <cerrno>

using namespace sc_core;

namespace rnic_sc {

iommu::iommu(sc_module_name name) : sc_module(name), in("in"), out("out")
{
	in.register_b_transport(this, &iommu::transport);
}

int iommu::map(uint64_t iova, uint64_t pa, uint64_t len)
{
	if (!len || (iova | pa | len) & (kPageSize - 1) || iova + len < iova)
		return -EINVAL;
	for (uint64_t off = 0; off < len; off += kPageSize) {
		auto it = pages_.find((iova + off) / kPageSize);

		if (it != pages_.end() && it->second.pa != pa + off)
			return -EEXIST;
	}
	for (uint64_t off = 0; off < len; off += kPageSize) {
		page &p = pages_[(iova + off) / kPageSize];

		p.pa = pa + off;
		p.refs++;
	}
	return 0;
}

int iommu::unmap(uint64_t iova, uint64_t len)
{
	if (!len || (iova | len) & (kPageSize - 1) || iova + len < iova)
		return -EINVAL;
	for (uint64_t off = 0; off < len; off += kPageSize)
		if (!pages_.count((iova + off) / kPageSize))
			return -ENOENT;
	for (uint64_t off = 0; off < len; off += kPageSize) {
		auto it = pages_.find((iova + off) / kPageSize);

		if (--it->second.refs == 0)
			pages_.erase(it);
	}
	return 0;
}

bool iommu::lookup(uint64_t iova, uint64_t *pa) const
{
	auto it = pages_.find(iova / kPageSize);

	if (it == pages_.end())
		return false;
	*pa = it->second.pa + (iova & (kPageSize - 1));
	return true;
}

void iommu::transport(tlm::tlm_generic_payload &t, sc_time &d)
{
	const uint64_t a = t.get_address();
	const uint32_t len = t.get_data_length();
	const bool rd = t.is_read();
	bool ok = a + len >= a && !t.get_byte_enable_ptr() && t.get_streaming_width() >= len;
	const bool valid = ok;
	uint64_t pa;

	if (ok && rd) {
		/* All or nothing. */
		for (uint64_t off = 0; ok && off < len; off += kPageSize - ((a + off) & (kPageSize - 1)))
			ok = lookup(a + off, &pa);
	}
	for (uint32_t off = 0; valid && off < len;) {
		if (!ok && rd)
			break;
		const uint64_t v = a + off;
		const uint32_t n = (uint32_t)std::min<uint64_t>(len - off,
								kPageSize - (v & (kPageSize - 1)));

		if (lookup(v, &pa)) {
			fwd_.set_command(t.get_command());
			fwd_.set_address(pa);
			fwd_.set_data_ptr(t.get_data_ptr() + off);
			fwd_.set_data_length(n);
			fwd_.set_streaming_width(n);
			fwd_.set_byte_enable_ptr(nullptr);
			fwd_.set_dmi_allowed(false);
			fwd_.set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
			out->b_transport(fwd_, d);
			if (!fwd_.is_response_ok())
				ok = false;
		} else {
			ok = false;	/* a write goes on with its mapped pages */
		}
		off += n;
	}
	if (!ok)
		faults_++;
	t.set_response_status(ok ? tlm::TLM_OK_RESPONSE : tlm::TLM_ADDRESS_ERROR_RESPONSE);
}

} /* namespace rnic_sc */
