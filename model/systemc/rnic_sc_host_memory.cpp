// SPDX-License-Identifier: MIT
/*
 * rnic_sc_host_memory.cpp - the process's memory as a target
 * (rnic_sc_host_memory.h).
 */
#include "rnic_sc_host_memory.h"

#include <cstring>

using namespace sc_core;

namespace rnic_sc {

host_memory::host_memory(sc_module_name name)
	: sc_module(name), in("in"), rd_lat_(SC_ZERO_TIME), wr_lat_(SC_ZERO_TIME)
{
	in.register_b_transport(this, &host_memory::transport);
}

void host_memory::transport(int id, tlm::tlm_generic_payload &t, sc_time &d)
{
	unsigned char *p = reinterpret_cast<unsigned char *>((uintptr_t)t.get_address());
	const unsigned len = t.get_data_length();

	(void)id;
	if (!p || t.get_byte_enable_ptr() || t.get_streaming_width() < len) {
		t.set_response_status(tlm::TLM_GENERIC_ERROR_RESPONSE);
		return;
	}
	if (t.is_read()) {
		std::memcpy(t.get_data_ptr(), p, len);
		d += rd_lat_;
		reads_++;
	} else if (t.is_write()) {
		std::memcpy(p, t.get_data_ptr(), len);
		d += wr_lat_;
		writes_++;
	}
	t.set_response_status(tlm::TLM_OK_RESPONSE);
}

} /* namespace rnic_sc */
