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

} /* namespace rnic_sc */

#endif /* RNIC_SC_FRAME_STAMP_H */
