// SPDX-License-Identifier: MIT
/*
 * rnic_sc_verbs_host.cpp - a host CPU running a verbs program
 * (rnic_sc_verbs_host.h).
 */
#include "rnic_sc_verbs_host.h"

#include <cerrno>
#include <string>

#include "rnic_sc_domain.h"
#include "rnic_sc_iommu.h"
#include "rnic_sc_nic.h"
#include "sim_phase.h"

using namespace sc_core;

namespace rnic_sc {

verbs_host::verbs_host(sc_module_name name, domain &dom, std::vector<iommu *> iommus,
		       std::function<int()> program, size_t stack)
	: sc_module(name), msi("msi"), dom_(dom), iommus_(std::move(iommus)),
	  program_(std::move(program))
{
	for (unsigned i = 0; i < dom_.nodes(); i++) {
		std::string n = "bar_" + std::to_string(i);

		bar.emplace_back(new tlm_utils::simple_initiator_socket_tagged<verbs_host>(n.c_str()));
	}
	msi.register_b_transport(this, &verbs_host::msi_transport);
	SC_THREAD(run);
	set_stack_size(stack);
	dom_.set_host(this);
}

verbs_host::~verbs_host()
{
	dom_.set_host(nullptr);
}

void verbs_host::run()
{
	rc_ = program_();
	finished_ = true;
	/* RNIC_WIRE_STATS runs the model after the program, as at a native
	 * run's exit: here, in this thread's time. */
	rnic::sim_wire_stats(dom_.sim());
	dom_.finish();
	sc_stop();
}

uint64_t verbs_host::bar_access(unsigned node, tlm::tlm_command cmd, uint32_t addr, uint64_t val)
{
	tlm::tlm_generic_payload t;
	unsigned char data[8];
	sc_time d = SC_ZERO_TIME;

	for (unsigned i = 0; i < 8; i++)
		data[i] = (unsigned char)(val >> (8 * i));
	t.set_command(cmd);
	t.set_address(addr);
	t.set_data_ptr(data);
	t.set_data_length(8);
	t.set_streaming_width(8);
	t.set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
	(*bar[node])->b_transport(t, d);
	if (!t.is_response_ok())
		return ~0ull;
	val = 0;
	for (unsigned i = 8; i--;)
		val = val << 8 | data[i];
	return val;
}

void verbs_host::mmio_write(unsigned node, uint32_t addr, uint64_t val)
{
	bar_access(node, tlm::TLM_WRITE_COMMAND, addr, val);
}

uint64_t verbs_host::mmio_read(unsigned node, uint32_t addr)
{
	return bar_access(node, tlm::TLM_READ_COMMAND, addr, 0);
}

int verbs_host::iommu_map(unsigned node, uint64_t iova, void *host, size_t len)
{
	if (node >= iommus_.size() || !iommus_[node])
		return -EINVAL;
	return iommus_[node]->map(iova, (uint64_t)(uintptr_t)host, len);
}

int verbs_host::iommu_unmap(unsigned node, uint64_t iova, size_t len)
{
	if (node >= iommus_.size() || !iommus_[node])
		return -EINVAL;
	return iommus_[node]->unmap(iova, len);
}

/* An MSI: the nic is the one whose MSI address it is; the data is the CQ. */
void verbs_host::msi_transport(int id, tlm::tlm_generic_payload &t, sc_time &d)
{
	const unsigned char *p = t.get_data_ptr();

	(void)id;
	(void)d;
	for (unsigned i = 0; i < dom_.nodes(); i++) {
		if (t.is_write() && t.get_data_length() == 4 &&
		    dom_.nic_of(i).msi_address() == t.get_address()) {
			msis_++;
			rnic::sim_irq(dom_.sim(), i,
				      (uint32_t)p[0] | p[1] << 8 | p[2] << 16 | (uint32_t)p[3] << 24);
			t.set_response_status(tlm::TLM_OK_RESPONSE);
			return;
		}
	}
	t.set_response_status(tlm::TLM_ADDRESS_ERROR_RESPONSE);
}

} /* namespace rnic_sc */
