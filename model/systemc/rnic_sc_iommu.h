/* SPDX-License-Identifier: MIT */
/*
 * rnic_sc_iommu.h - a page-granular IOMMU between a NIC's DMA socket and
 * memory: in (target) takes accesses by IOVA, out (initiator) forwards them
 * by physical address, a page at a time. The rules are the model's
 * (model/host_mem.cpp): mapping a page again to the same physical page
 * stacks, elsewhere is -EEXIST; a read that touches an unmapped page is
 * refused whole (TLM_ADDRESS_ERROR_RESPONSE); a write writes its mapped
 * pages and answers the error if any was not. The delays the memory
 * annotates add up.
 */
#ifndef RNIC_SC_IOMMU_H
#define RNIC_SC_IOMMU_H

#include <cstdint>
#include <systemc>
#include <tlm>
#include <tlm_utils/simple_initiator_socket.h>
#include <tlm_utils/simple_target_socket.h>
#include <unordered_map>

namespace rnic_sc {

class iommu : public sc_core::sc_module {
public:
	static constexpr uint64_t kPageSize = 4096;

	tlm_utils::simple_target_socket<iommu> in;
	tlm_utils::simple_initiator_socket<iommu> out;

	explicit iommu(sc_core::sc_module_name name);

	/* Page-aligned; 0 or -errno. */
	int map(uint64_t iova, uint64_t pa, uint64_t len);
	int unmap(uint64_t iova, uint64_t len);
	/* Accesses refused or cut short. */
	uint64_t faults() const { return faults_; }

private:
	struct page {
		uint64_t pa;
		uint32_t refs;
	};
	void transport(tlm::tlm_generic_payload &t, sc_core::sc_time &d);
	bool lookup(uint64_t iova, uint64_t *pa) const;

	std::unordered_map<uint64_t, page> pages_;
	uint64_t faults_ = 0;
	tlm::tlm_generic_payload fwd_;
};

} /* namespace rnic_sc */

#endif /* RNIC_SC_IOMMU_H */
