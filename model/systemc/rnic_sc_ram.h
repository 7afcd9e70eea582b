/* SPDX-License-Identifier: MIT */
/*
 * rnic_sc_ram.h - a memory of its own as a TLM-2.0 target: bytes at
 * physical addresses [base, base + size); outside them the access answers
 * TLM_ADDRESS_ERROR_RESPONSE. Any number of initiators; each access
 * annotates the configured latency. Direct access (data()) is for the
 * platform's software and tests.
 */
#ifndef RNIC_SC_RAM_H
#define RNIC_SC_RAM_H

#include <cstdint>
#include <systemc>
#include <tlm>
#include <tlm_utils/multi_passthrough_target_socket.h>
#include <vector>

namespace rnic_sc {

class ram : public sc_core::sc_module {
public:
	tlm_utils::multi_passthrough_target_socket<ram> in;

	ram(sc_core::sc_module_name name, uint64_t base, uint64_t size);
	void set_latency(const sc_core::sc_time &rd, const sc_core::sc_time &wr)
	{
		rd_lat_ = rd;
		wr_lat_ = wr;
	}
	uint8_t *data(uint64_t pa) { return &mem_[pa - base_]; }
	uint64_t base() const { return base_; }
	uint64_t size() const { return mem_.size(); }
	/* Accesses served. */
	uint64_t reads() const { return reads_; }
	uint64_t writes() const { return writes_; }

private:
	void transport(int id, tlm::tlm_generic_payload &t, sc_core::sc_time &d);

	uint64_t base_;
	std::vector<uint8_t> mem_;
	sc_core::sc_time rd_lat_, wr_lat_;
	uint64_t reads_ = 0, writes_ = 0;
};

} /* namespace rnic_sc */

#endif /* RNIC_SC_RAM_H */
