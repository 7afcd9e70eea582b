/* SPDX-License-Identifier: MIT */
/*
 * rnic_sc_host_if.h - what a platform's host side does for the model's C API
 * when a verbs program runs inside SystemC: MMIO through its initiator
 * sockets into the NICs' BARs, and the driver's IOMMU mappings into the
 * platform's IOMMUs (rnic_sc::verbs_host is the example).
 */
#ifndef RNIC_SC_HOST_IF_H
#define RNIC_SC_HOST_IF_H

#include <cstddef>
#include <cstdint>

namespace rnic_sc {

class host_if {
public:
	virtual ~host_if() = default;
	virtual void mmio_write(unsigned node, uint32_t addr, uint64_t val) = 0;
	/* From a thread: returns once the NIC answered. */
	virtual uint64_t mmio_read(unsigned node, uint32_t addr) = 0;
	virtual int iommu_map(unsigned node, uint64_t iova, void *host, size_t len) = 0;
	virtual int iommu_unmap(unsigned node, uint64_t iova, size_t len) = 0;
};

} /* namespace rnic_sc */

#endif /* RNIC_SC_HOST_IF_H */
