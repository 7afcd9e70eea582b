// SPDX-License-Identifier: MIT
/*
 * rnic_sc_link.cpp - the network between the nics (rnic_sc_link.h).
 */
#include "rnic_sc_link.h"

#include <algorithm>
#include <string>

#include "rnic_sc_domain.h"
#include "rnic_sc_frame_stamp.h"
#include "sim_phase.h"

using namespace sc_core;

namespace rnic_sc {

static rnic::wire_cfg wire_cfg_of(rnic_sim *sim)
{
	const rnic_sim_cfg &c = rnic::sim_cfg(sim);

	return {c.nodes, c.wire_latency, c.wire_bytes_per_cycle, c.wire_overhead};
}

link::link(sc_module_name name, domain &dom)
	: sc_module(name), dom_(dom), net_(wire_cfg_of(dom.sim()))
{
	for (unsigned i = 0; i < dom_.nodes(); i++) {
		std::string in = "tx_in_" + std::to_string(i), out = "rx_out_" + std::to_string(i);

		tx_in.emplace_back(new tlm_utils::simple_target_socket_tagged<link>(in.c_str()));
		tx_in.back()->register_b_transport(this, &link::tx_transport, (int)i);
		rx_out.emplace_back(new tlm_utils::simple_initiator_socket_tagged<link>(out.c_str()));
		for (unsigned d = 0; d < 2; d++) {
			rnic_wire_faults f;

			if (!rnic_sim_get_link_faults(dom_.sim(), i, d, &f))
				net_.set_faults(i, d, &f, dom_.cycle());
		}
	}
	dom_.set_link(this);
	rnic::sim_set_link(dom_.sim(), this);
}

link::~link()
{
	rnic::sim_set_link(dom_.sim(), nullptr);
	dom_.set_link(nullptr);
}

int link::set_faults(unsigned node, unsigned dir, const rnic_wire_faults *f)
{
	return rnic_sim_set_link_faults(dom_.sim(), node, dir, f);
}

void link::tx_transport(int id, tlm::tlm_generic_payload &t, sc_time &d)
{
	frame_stamp *s = frame_of(t);

	(void)d;
	if (!s)
		return;
	sent_.push_back({s->cycle, (unsigned)id,
			 std::vector<uint8_t>(t.get_data_ptr(),
					      t.get_data_ptr() + t.get_data_length())});
	t.set_response_status(tlm::TLM_OK_RESPONSE);
}

rnic::wire &link::sync()
{
	/* In the native order: by edge, then by node (the order the loop
	 * samples them in). Software calls this between edges, when every
	 * nic has sent the frames of the last one: a fault set then applies
	 * from the next edge on, as natively. */
	if (!sent_.empty()) {
		std::stable_sort(sent_.begin(), sent_.end(), [](const sent &a, const sent &b) {
			return a.cycle != b.cycle ? a.cycle < b.cycle : a.node < b.node;
		});
		for (const sent &s : sent_)
			net_.inject(s.node, s.cycle, s.frame.data(), s.frame.size());
		sent_.clear();
	}
	return net_;
}

void link::cycle_begin(uint64_t c)
{
	sync();
	net_.deliver(c);
	for (unsigned p = 0; p < dom_.nodes(); p++) {
		while (net_.rx_queued(p)) {
			const std::vector<uint8_t> &f = net_.rx_front(p);
			tlm::tlm_generic_payload t;
			frame_stamp st;
			sc_time d = SC_ZERO_TIME;

			st.cycle = c;
			t.set_command(tlm::TLM_WRITE_COMMAND);
			t.set_address(0);
			t.set_data_ptr(const_cast<unsigned char *>(f.data()));
			t.set_data_length((unsigned)f.size());
			t.set_streaming_width((unsigned)f.size());
			t.set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
			t.set_extension(&st);
			(*rx_out[p])->b_transport(t, d);
			t.clear_extension(&st);
			net_.rx_pop(p);
		}
	}
}

} /* namespace rnic_sc */
