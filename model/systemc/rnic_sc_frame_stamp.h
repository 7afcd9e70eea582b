/* SPDX-License-Identifier: MIT */
/*
 * rnic_sc_frame_stamp.h - the cycle stamp an Ethernet frame carries on the
 * frame sockets (rnic_sc::nic::eth_tx/eth_rx, rnic_sc::link): on TX the edge
 * of its last beat, on RX the cycle its first beat reaches the node's RX.
 * The payload is the frame (destination MAC .. ICRC, no FCS); the address
 * is not used.
 */
#ifndef RNIC_SC_FRAME_STAMP_H
#define RNIC_SC_FRAME_STAMP_H

#include <cstdint>
#include <tlm>

namespace rnic_sc {

class frame_stamp : public tlm::tlm_extension<frame_stamp> {
public:
	uint64_t cycle = 0;

	tlm::tlm_extension_base *clone() const override
	{
		frame_stamp *e = new frame_stamp;

		e->cycle = cycle;
		return e;
	}
	void copy_from(const tlm::tlm_extension_base &o) override
	{
		cycle = static_cast<const frame_stamp &>(o).cycle;
	}
};

/* The stamp of a frame written to a frame socket; nullptr (and the payload
 * answered with an error) for anything else: no stamp, not a write, empty. */
inline frame_stamp *frame_of(tlm::tlm_generic_payload &t)
{
	frame_stamp *s = nullptr;

	t.get_extension(s);
	if (!s || !t.is_write() || !t.get_data_length()) {
		t.set_response_status(tlm::TLM_GENERIC_ERROR_RESPONSE);
		return nullptr;
	}
	return s;
}

} /* namespace rnic_sc */

#endif /* RNIC_SC_FRAME_STAMP_H */
