// SPDX-License-Identifier: MIT
/*
 * rnic_sc_nic.cpp - one RNIC node as a SystemC TLM-2.0 component
 * (rnic_sc_nic.h).
 */
#include "rnic_sc_nic.h"

#include <cstring>

#include "rnic_sc_domain.h"
#include "rnic_sc_frame_stamp.h"
#include "sim_phase.h"

using namespace sc_core;

namespace rnic_sc {

nic::nic(sc_module_name name, domain &dom, unsigned node)
	: sc_module(name), clk("clk"), irq("irq"), bar("bar"), dma("dma"), msi("msi"),
	  eth_tx("eth_tx"), eth_rx("eth_rx"), dom_(dom), node_(node),
	  msi_addr_(0xfee00000ull + node * 0x1000ull)
{
	bar.register_b_transport(this, &nic::bar_transport);
	eth_rx.register_b_transport(this, &nic::rx_transport);
	SC_METHOD(on_fall);
	sensitive << clk.neg();
	dont_initialize();
	SC_METHOD(on_rise);
	sensitive << clk.pos();
	dont_initialize();
	SC_METHOD(on_skip_end);
	sensitive << skip_end_ev_;
	dont_initialize();
	dom_.add_nic(this);
	rnic::sim_set_dma_port(dom_.sim(), node_, this);
}

nic::~nic()
{
	rnic::sim_set_dma_port(dom_.sim(), node_, nullptr);
}

void nic::on_fall()
{
	dom_.settle(node_, dom_.falling_now());
}

void nic::on_rise()
{
	if (irq_high_) {
		irq.write(false);
		irq_high_ = false;
	}
	const uint64_t c = dom_.rising_now();
	const uint64_t steps = dom_.edge(node_, c);

	if (steps > 1) {
		/* A skip: what follows its last edge happens at that edge (if
		 * nothing does, now). */
		skip_from_ = c;
		if (dom_.skip_end_pending(node_))
			skip_end_ev_.notify(dom_.periods(steps - 1));
		else
			dom_.skip_end(node_, c);
	} else if (steps) {
		edge_done();
	}
}

void nic::on_skip_end()
{
	dom_.skip_end(node_, skip_from_);
	edge_done();
}

void nic::edge_done()
{
	if (edge_watchers_) {
		edge_ev_.notify(SC_ZERO_TIME);
	} else if (act_watchers_) {
		const uint64_t w = rnic::sim_writes(dom_.sim(), node_);
		const uint64_t i = rnic_sim_irqs(dom_.sim(), node_);

		if (w != seen_writes_ || i != seen_irqs_)
			edge_ev_.notify(SC_ZERO_TIME);
		seen_writes_ = w;
		seen_irqs_ = i;
	}
}

static uint64_t get_le(const unsigned char *p, unsigned len)
{
	uint64_t v = 0;

	for (unsigned i = len; i--;)
		v = v << 8 | p[i];
	return v;
}

void nic::bar_transport(tlm::tlm_generic_payload &t, sc_time &d)
{
	const unsigned len = t.get_data_length();
	const uint64_t addr = t.get_address();

	(void)d;
	/* Registers and doorbells are 8 bytes wide, at 8-byte addresses. */
	if (len != 8 || t.get_byte_enable_ptr() || t.get_streaming_width() < len) {
		t.set_response_status(tlm::TLM_BURST_ERROR_RESPONSE);
		return;
	}
	if ((addr & 7) || addr > 0xffff) {
		t.set_response_status(tlm::TLM_ADDRESS_ERROR_RESPONSE);
		return;
	}
	if (t.is_write()) {
		bar_writes_++;
		dom_.note_post(node_);
		rnic::sim_mmio_post_write(dom_.sim(), node_, (uint32_t)addr,
					  get_le(t.get_data_ptr(), len));
		t.set_response_status(tlm::TLM_OK_RESPONSE);
		return;
	}
	if (!t.is_read() || sc_get_current_process_handle().proc_kind() != SC_THREAD_PROC_) {
		/* A read waits for the device: only a thread can. */
		t.set_response_status(tlm::TLM_COMMAND_ERROR_RESPONSE);
		return;
	}
	bar_reads_++;
	uint64_t v = dom_.read_bar(node_, (uint32_t)addr);

	for (unsigned i = 0; i < len; i++)
		t.get_data_ptr()[i] = (unsigned char)(v >> (8 * i));
	t.set_response_status(tlm::TLM_OK_RESPONSE);
}

void nic::rx_transport(tlm::tlm_generic_payload &t, sc_time &d)
{
	frame_stamp *s = frame_of(t);

	(void)d;
	if (!s)
		return;
	rnic::sim_frame_arrive(dom_.sim(), node_, s->cycle, t.get_data_ptr(), t.get_data_length());
	t.set_response_status(tlm::TLM_OK_RESPONSE);
}

void nic::send_frame(uint64_t cycle, const uint8_t *f, size_t len)
{
	tlm::tlm_generic_payload t;
	frame_stamp s;
	sc_time d = SC_ZERO_TIME;

	s.cycle = cycle;
	t.set_command(tlm::TLM_WRITE_COMMAND);
	t.set_address(0);
	t.set_data_ptr(const_cast<unsigned char *>(f));
	t.set_data_length((unsigned)len);
	t.set_streaming_width((unsigned)len);
	t.set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
	t.set_extension(&s);
	eth_tx->b_transport(t, d);
	t.clear_extension(&s);
}

void nic::send_msi(uint32_t cqn)
{
	tlm::tlm_generic_payload t;
	unsigned char data[4];
	sc_time d = SC_ZERO_TIME;

	for (unsigned i = 0; i < 4; i++)
		data[i] = (unsigned char)(cqn >> (8 * i));
	t.set_command(tlm::TLM_WRITE_COMMAND);
	t.set_address(msi_addr_);
	t.set_data_ptr(data);
	t.set_data_length(4);
	t.set_streaming_width(4);
	t.set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
	msis_++;
	irq.write(true);
	irq_high_ = true;
	msi->b_transport(t, d);
}

bool nic::dma_access(tlm::tlm_command cmd, uint64_t iova, uint8_t *p, uint32_t len,
		     uint64_t *cycles)
{
	tlm::tlm_generic_payload &t = dma_tr_;
	sc_time d = SC_ZERO_TIME;

	t.set_command(cmd);
	t.set_address(iova);
	t.set_data_ptr(p);
	t.set_data_length(len);
	t.set_streaming_width(len);
	t.set_byte_enable_ptr(nullptr);
	t.set_dmi_allowed(false);
	t.set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
	dma->b_transport(t, d);
	/* The annotated delay in whole cycles, rounded up. */
	*cycles = (d.value() + dom_.period_ticks() - 1) / dom_.period_ticks();
	if (t.is_response_ok())
		return true;
	dma_errors_++;
	return false;
}

bool nic::dma_read(uint64_t iova, uint8_t *dst, uint32_t len, uint64_t *cycles)
{
	return dma_access(tlm::TLM_READ_COMMAND, iova, dst, len, cycles);
}

bool nic::dma_write(uint64_t iova, const uint8_t *src, uint32_t len, uint64_t *cycles)
{
	return dma_access(tlm::TLM_WRITE_COMMAND, iova, const_cast<uint8_t *>(src), len, cycles);
}

} /* namespace rnic_sc */
