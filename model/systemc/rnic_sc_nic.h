/* SPDX-License-Identifier: MIT */
/*
 * rnic_sc_nic.h - one RNIC node as a SystemC TLM-2.0 component: the same
 * Verilated rnic_top (--cc) and host-side models the native cycle loop
 * uses, evaluated by the same phase functions (model/sim_phase.h), with the
 * sockets a PCIe endpoint model offers (docs/systemc.md):
 *
 *   bar     target: MMIO. Writes are posted (they return at once and reach
 *           the RTL after the model's MMIO latency); a read returns once the
 *           device answered and its DMA writes issued before the answer are
 *           visible (PCIe: a completion does not pass posted writes). Reads
 *           wait, so they come from threads. 8-byte accesses at 8-byte
 *           addresses, little endian (else TLM_BURST_ERROR_RESPONSE or
 *           TLM_ADDRESS_ERROR_RESPONSE; a read from a method:
 *           TLM_COMMAND_ERROR_RESPONSE).
 *   dma     initiator: the NIC's DMA by IOVA, into an IOMMU and memory.
 *           By default the model's latency and bandwidth model sets the
 *           cycles (a read is made when its first beat is offered, a write
 *           when it becomes visible), so the cycles are the native ones;
 *           set_dma_timed(true) lets the target's annotated delay set them.
 *           Called from SC_METHODs: targets must not wait().
 *   msi     initiator: an MSI is a 4-byte posted write of the CQ number to
 *           msi_address() (default 0xfee00000 + node * 0x1000), issued
 *           after the DMA writes before it are visible.
 *   irq     sc_out<bool>: high for the cycle after an MSI.
 *   eth_tx  initiator: every frame the NIC sends, stamped (frame_stamp)
 *           with the edge of its last beat.
 *   eth_rx  target: frames for the NIC, stamped with the cycle their first
 *           beat reaches RX; at least one cycle ahead of it.
 *   clk     the core clock (domain::period(), from domain::clock_start()
 *           with a falling edge). The falling edge drives the RTL's inputs
 *           and settles it (clk_i = 0); the rising edge takes the
 *           handshakes and evaluates the edge: the phases of the native
 *           cycle, so the cycles are the native ones by construction.
 *
 * Reset: the model resets the RTL when the simulation is created (8
 * cycles, before cycle 0); there is no reset port.
 */
#ifndef RNIC_SC_NIC_H
#define RNIC_SC_NIC_H

#include <cstdint>
#include <systemc>
#include <tlm>
#include <tlm_utils/simple_initiator_socket.h>
#include <tlm_utils/simple_target_socket.h>

#include "host_mem.h"

namespace rnic_sc {

class domain;

class nic : public sc_core::sc_module, public rnic::dma_port {
public:
	sc_core::sc_in<bool> clk;
	sc_core::sc_out<bool> irq;
	tlm_utils::simple_target_socket<nic> bar;
	tlm_utils::simple_initiator_socket<nic> dma;
	tlm_utils::simple_initiator_socket<nic> msi;
	tlm_utils::simple_initiator_socket<nic> eth_tx;
	tlm_utils::simple_target_socket<nic> eth_rx;

	SC_HAS_PROCESS(nic);
	nic(sc_core::sc_module_name name, domain &dom, unsigned node);
	~nic() override;

	unsigned node() const { return node_; }
	void set_dma_timed(bool on) { timed_ = on; }
	void set_msi_address(uint64_t a) { msi_addr_ = a; }
	uint64_t msi_address() const { return msi_addr_; }

	/* Notified (a delta cycle later) after a rising edge, or a skip's
	 * end, while someone watches: watch(true, true) after every one,
	 * watch(true, false) only after those that made a DMA write visible or
	 * delivered an MSI (what rnic_sim_wait() waits for). */
	const sc_core::sc_event &edge_event() const { return edge_ev_; }
	void watch(bool on, bool every_edge)
	{
		(every_edge ? edge_watchers_ : act_watchers_) += on ? 1 : -1;
	}

	/* From the domain. */
	void send_frame(uint64_t cycle, const uint8_t *f, size_t len);
	void send_msi(uint32_t cqn);

	/* rnic::dma_port */
	bool dma_read(uint64_t iova, uint8_t *dst, uint32_t len, uint64_t *cycles) override;
	bool dma_write(uint64_t iova, const uint8_t *src, uint32_t len, uint64_t *cycles) override;
	bool timed() const override { return timed_; }

	/* Counts: transactions on the sockets. */
	uint64_t bar_writes() const { return bar_writes_; }
	uint64_t bar_reads() const { return bar_reads_; }
	uint64_t dma_errors() const { return dma_errors_; }
	uint64_t msis() const { return msis_; }

private:
	void on_fall();
	void on_rise();
	void on_skip_end();
	void bar_transport(tlm::tlm_generic_payload &t, sc_core::sc_time &d);
	void rx_transport(tlm::tlm_generic_payload &t, sc_core::sc_time &d);
	bool dma_access(tlm::tlm_command cmd, uint64_t iova, uint8_t *p, uint32_t len,
			uint64_t *cycles);

	domain &dom_;
	unsigned node_;
	bool timed_ = false;
	uint64_t msi_addr_;
	sc_core::sc_event edge_ev_;
	sc_core::sc_event skip_end_ev_;
	uint64_t skip_from_ = 0;
	int edge_watchers_ = 0, act_watchers_ = 0;
	uint64_t seen_writes_ = 0, seen_irqs_ = 0;
	void edge_done();
	bool irq_high_ = false;
	uint64_t bar_writes_ = 0, bar_reads_ = 0, dma_errors_ = 0, msis_ = 0;
	tlm::tlm_generic_payload dma_tr_;
};

} /* namespace rnic_sc */

#endif /* RNIC_SC_NIC_H */
