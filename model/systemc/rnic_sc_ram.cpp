// SPDX-License-Identifier: MIT
/*
 * rnic_sc_ram.cpp - a memory of its own (rnic_sc_ram.h).
 */
#include "rnic_sc_ram.h"

#include <cstring>

using namespace sc_core;

namespace rnic_sc {

ram::ram(sc_module_name name, uint64_t base, uint64_t size)
	: sc_module(name), in("in"), base_(base), mem_(size), rd_lat_(SC_ZERO_TIME),
	  wr_lat_(SC_ZERO_TIME)
{
	in.register_b_transport(this, &ram::transport);
}

void ram::transport(int id, tlm::tlm_generic_payload &t, sc_time &d)
{
	const uint64_t a = t.get_address();
	const unsigned len = t.get_data_length();

	(void)id;
	if (a < base_ || a - base_ > mem_.size() || len > mem_.size() - (a - base_)) {
		t.set_response_status(tlm::TLM_ADDRESS_ERROR_RESPONSE);
		return;
	}
	if (t.get_byte_enable_ptr() || t.get_streaming_width() < len) {
		t.set_response_status(tlm::TLM_BYTE_ENABLE_ERROR_RESPONSE);
		return;
	}
	if (t.is_read()) {
		std::memcpy(t.get_data_ptr(), &mem_[a - base_], len);
		d += rd_lat_;
		reads_++;
	} else if (t.is_write()) {
		std::memcpy(&mem_[a - base_], t.get_data_ptr(), len);
		d += wr_lat_;
		writes_++;
	}
	t.set_response_status(tlm::TLM_OK_RESPONSE);
}

} /* namespace rnic_sc */
