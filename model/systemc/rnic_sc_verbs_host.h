/* SPDX-License-Identifier: MIT */
/*
 * rnic_sc_verbs_host.h - a host CPU that runs a verbs program (the verbs
 * library and the driver on top of the model's C API) in an SC_THREAD.
 *
 * The C API calls that let simulated time pass (rnic_sim_step, rnic_sim_wait
 * at empty polls and event waits, rnic_sim_mmio_read) become waits of this
 * thread (rnic_sc::domain); its MMIO goes out of bar[n] into nic n's BAR,
 * the driver's IOMMU mappings into iommu n, and the nics' MSIs come in on
 * msi, where they call the verbs library's interrupt handler. The program
 * itself is unchanged: the same code runs natively and here, with the same
 * cycles. When it returns, the simulation stops.
 */
#ifndef RNIC_SC_VERBS_HOST_H
#define RNIC_SC_VERBS_HOST_H

#include <cstdint>
#include <functional>
#include <memory>
#include <systemc>
#include <tlm>
#include <tlm_utils/multi_passthrough_target_socket.h>
#include <tlm_utils/simple_initiator_socket.h>
#include <vector>

#include "rnic_sc_host_if.h"

namespace rnic_sc {

class domain;
class iommu;

class verbs_host : public sc_core::sc_module, public host_if {
public:
	std::vector<std::unique_ptr<tlm_utils::simple_initiator_socket_tagged<verbs_host>>> bar;
	tlm_utils::multi_passthrough_target_socket<verbs_host> msi;

	SC_HAS_PROCESS(verbs_host);
	/* @iommus[n]: node n's IOMMU. @stack: bytes of the program's stack. */
	verbs_host(sc_core::sc_module_name name, domain &dom, std::vector<iommu *> iommus,
		   std::function<int()> program, size_t stack = 64u << 20);
	~verbs_host() override;

	bool finished() const { return finished_; }
	int exit_code() const { return rc_; }
	uint64_t msis() const { return msis_; }

	/* host_if */
	void mmio_write(unsigned node, uint32_t addr, uint64_t val) override;
	uint64_t mmio_read(unsigned node, uint32_t addr) override;
	int iommu_map(unsigned node, uint64_t iova, void *host, size_t len) override;
	int iommu_unmap(unsigned node, uint64_t iova, size_t len) override;

private:
	void run();
	void msi_transport(int id, tlm::tlm_generic_payload &t, sc_core::sc_time &d);
	uint64_t bar_access(unsigned node, tlm::tlm_command cmd, uint32_t addr, uint64_t val);

	domain &dom_;
	std::vector<iommu *> iommus_;
	std::function<int()> program_;
	bool finished_ = false;
	int rc_ = -1;
	uint64_t msis_ = 0;
};

} /* namespace rnic_sc */

#endif /* RNIC_SC_VERBS_HOST_H */
