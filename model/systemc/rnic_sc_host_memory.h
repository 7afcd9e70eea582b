/* SPDX-License-Identifier: MIT */
/*
 * rnic_sc_host_memory.h - this process's own memory as a TLM-2.0 target:
 * the physical address of a byte is its address in the process. It is the
 * memory behind the IOMMUs when a verbs program runs inside the platform
 * (the driver maps the program's buffers by their addresses). Any number
 * of initiators; each access annotates the configured latency.
 */
#ifndef RNIC_SC_HOST_MEMORY_H
#define RNIC_SC_HOST_MEMORY_H

#include <cstdint>
#include <systemc>
#include <tlm>
#include <tlm_utils/multi_passthrough_target_socket.h>

namespace rnic_sc {

class host_memory : public sc_core::sc_module {
public:
	tlm_utils::multi_passthrough_target_socket<host_memory> in;

	explicit host_memory(sc_core::sc_module_name name);
	void set_latency(const sc_core::sc_time &rd, const sc_core::sc_time &wr)
	{
		rd_lat_ = rd;
		wr_lat_ = wr;
	}
	uint64_t reads() const { return reads_; }
	uint64_t writes() const { return writes_; }

private:
	void transport(int id, tlm::tlm_generic_payload &t, sc_core::sc_time &d);

	sc_core::sc_time rd_lat_, wr_lat_;
	uint64_t reads_ = 0, writes_ = 0;
};

} /* namespace rnic_sc */

#endif /* RNIC_SC_HOST_MEMORY_H */
