// SPDX-License-Identifier: MIT
/*
 * sc_tlm_test.cpp - the nics driven from SystemC alone: no verbs library,
 * no driver. A test initiator of its own writes and reads the BARs, keeps
 * the queues, contexts and buffers in TLM memories (rnic_sc::ram behind
 * rnic_sc::iommu), programs an RC connection between two nics by the
 * command interface (docs/formats.md), posts an RDMA WRITE and an RDMA
 * WRITE to an unmapped page, and checks:
 *
 *   1. BAR: DEV_ID and CAPS read the documented values; a posted write is
 *      not passed by a later read (PORT_MAC reads back what was written);
 *      a write returns at once, a read only after the device answered;
 *      accesses that are not 8 aligned bytes are refused, and so is a read
 *      from an SC_METHOD (it would have to wait).
 *   2. DMA: the WQE and the payload are read from node 0's TLM memory by
 *      IOVA through its IOMMU; the payload lands in node 1's memory; the
 *      CQE lands in node 0's CQ ring with the right fields.
 *   3. PCIe ordering: with a slow memory (writes visible 300 cycles after
 *      their last beat), once node 1's payload write is taken but not yet
 *      visible, a BAR read of node 1 returns only after it is visible: the
 *      payload is in memory when the read returns, and not before.
 *   4. The MSI of node 0's armed CQ arrives as a write to its MSI address
 *      after the CQE is in memory, and raises the irq line.
 *   5. A DMA read of an unmapped IOVA gets an error response: the IOMMU
 *      and the model count it, the WR completes in error.
 *   6. The gated clock's line behaves as a signal to a module of its own:
 *      every rise it sees is one the clock made, at a rising-edge time,
 *      reading high with posedge() and event() set; a method on its
 *      default event sees every fall and rise.
 */
#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <systemc>
#include <tlm>
#include <tlm_utils/simple_initiator_socket.h>
#include <tlm_utils/multi_passthrough_target_socket.h>
#include <vector>

#include "rnic_hw.h"
#include "rnic_model.h"
#include "rnic_sc_clock.h"
#include "rnic_sc_domain.h"
#include "rnic_sc_iommu.h"
#include "rnic_sc_link.h"
#include "rnic_sc_nic.h"
#include "rnic_sc_ram.h"
#include "sim_phase.h"

using namespace sc_core;

namespace {

constexpr uint64_t kRamBase = 0x80000000ull;	/* physical */
constexpr uint64_t kRamSize = 1u << 20;
/* IOVA layout of each node (mapped 1:1 onto its RAM, but the last page). */
constexpr uint64_t kCqRing = 0x2000;		/* 16 CQEs */
constexpr uint64_t kEqRing = 0x3000;		/* CQ 0: events */
constexpr uint64_t kSq = 0x4000;		/* 16 x 64 B */
constexpr uint64_t kRq = 0x6000;
constexpr uint64_t kSrc = 0x10000;		/* payload, node 0 */
constexpr uint64_t kDst = 0x20000;		/* target, node 1 */
constexpr uint64_t kUnmapped = kRamSize - 0x1000;	/* not mapped in the IOMMU */
constexpr uint32_t kQpn = 2, kCqn = 1, kMrIdx = 1, kKeyByte = 0x5a;
constexpr uint32_t kLen = 512;
constexpr unsigned kAccess = 1 | 2;	/* IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE */

unsigned failures;

#define CHECK(cond, ...)                                                       \
	do {                                                                   \
		if (!(cond)) {                                                 \
			failures++;                                            \
			std::printf("FAIL %s:%d: ", __FILE__, __LINE__);       \
			std::printf(__VA_ARGS__);                              \
			std::printf("\n");                                     \
		}                                                              \
	} while (0)

struct tester : sc_module {
	std::vector<tlm_utils::simple_initiator_socket_tagged<tester> *> bar;
	tlm_utils::multi_passthrough_target_socket<tester> msi;
	sc_in<bool> irq0;

	rnic_sc::domain &dom;
	std::vector<rnic_sc::ram *> rams;
	std::vector<rnic_sc::iommu *> iommus;
	unsigned msis = 0;
	bool cqe_at_msi = false;
	bool irq_seen = false;
	bool done = false;

	SC_HAS_PROCESS(tester);
	tester(sc_module_name n, rnic_sc::domain &d, std::vector<rnic_sc::ram *> r,
	       std::vector<rnic_sc::iommu *> io)
		: sc_module(n), msi("msi"), irq0("irq0"), dom(d), rams(r), iommus(io)
	{
		for (unsigned i = 0; i < 2; i++)
			bar.push_back(new tlm_utils::simple_initiator_socket_tagged<tester>(
				("bar_" + std::to_string(i)).c_str()));
		msi.register_b_transport(this, &tester::msi_transport);
		SC_THREAD(run);
		SC_METHOD(method_read);
		sensitive << irq0;
		dont_initialize();
		SC_METHOD(watch_irq);
		sensitive << irq0.pos();
		dont_initialize();
	}

	uint8_t *mem(unsigned node, uint64_t iova) { return rams[node]->data(kRamBase + iova); }

	tlm::tlm_response_status access(unsigned node, tlm::tlm_command cmd, uint64_t addr,
					uint64_t *val, unsigned len = 8)
	{
		tlm::tlm_generic_payload t;
		unsigned char d[8] = {};
		sc_time delay = SC_ZERO_TIME;

		std::memcpy(d, val, len);
		t.set_command(cmd);
		t.set_address(addr);
		t.set_data_ptr(d);
		t.set_data_length(len);
		t.set_streaming_width(len);
		t.set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
		(*bar[node])->b_transport(t, delay);
		if (t.is_response_ok() && cmd == tlm::TLM_READ_COMMAND) {
			*val = 0;
			std::memcpy(val, d, len);
		}
		return t.get_response_status();
	}
	void wr(unsigned node, uint64_t addr, uint64_t v)
	{
		CHECK(access(node, tlm::TLM_WRITE_COMMAND, addr, &v) == tlm::TLM_OK_RESPONSE,
		      "BAR write 0x%" PRIx64, addr);
	}
	uint64_t rd(unsigned node, uint64_t addr)
	{
		uint64_t v = 0;

		CHECK(access(node, tlm::TLM_READ_COMMAND, addr, &v) == tlm::TLM_OK_RESPONSE,
		      "BAR read 0x%" PRIx64, addr);
		return v;
	}
	void cmd(unsigned node, unsigned op, uint32_t index, const uint64_t *args, unsigned n)
	{
		uint64_t st = 1;

		for (unsigned i = 0; i < n; i++)
			wr(node, RNIC_REG_CMD_ARG(i), args[i]);
		wr(node, RNIC_REG_CMD_GO, rnic_cmd_go(op, index));
		for (unsigned k = 0; k < 1000 && RNIC_CMD_STATUS_BUSY(st); k++)
			st = rd(node, RNIC_REG_CMD_STATUS);
		CHECK(!RNIC_CMD_STATUS_BUSY(st) && RNIC_CMD_STATUS_RESULT(st) == RNIC_CMD_OK,
		      "node %u command 0x%x index %u: status 0x%" PRIx64, node, op, index, st);
	}

	void method_read()
	{
		uint64_t v = 0;

		/* A read from a method cannot wait for the device. */
		CHECK(access(1, tlm::TLM_READ_COMMAND, RNIC_REG_DEV_ID, &v) ==
			      tlm::TLM_COMMAND_ERROR_RESPONSE,
		      "a BAR read from an SC_METHOD was not refused");
	}
	void watch_irq() { irq_seen = true; }

	void msi_transport(int id, tlm::tlm_generic_payload &t, sc_time &d)
	{
		const rnic_cqe *c = reinterpret_cast<const rnic_cqe *>(mem(0, kCqRing));
		uint32_t cqn;

		(void)id;
		(void)d;
		std::memcpy(&cqn, t.get_data_ptr(), 4);
		CHECK(t.get_address() == dom.nic_of(0).msi_address() && t.get_data_length() == 4,
		      "MSI at 0x%" PRIx64, (uint64_t)t.get_address());
		CHECK(cqn == kCqn, "MSI for CQ %u", cqn);
		/* The MSI does not pass the CQE write before it. */
		cqe_at_msi = (c->owner & 1) == 0;
		msis++;
		t.set_response_status(tlm::TLM_OK_RESPONSE);
	}

	void setup_node(unsigned n)
	{
		const unsigned peer = 1 - n;
		rnic_sim *sim = dom.sim();

		wr(n, RNIC_REG_PORT_MAC, rnic_sim_node_mac(sim, n));
		wr(n, RNIC_REG_PORT_IP, rnic_sim_node_ip(sim, n));
		/* CQE owner bytes start at 1 (rnic_cqe_is_new()). */
		for (unsigned i = 0; i < 16; i++) {
			mem(n, kCqRing)[64 * i + 63] = 1;
			mem(n, kEqRing)[64 * i + 63] = 1;
		}
		uint64_t eq[3] = {rnic_cq_arg0(4, 1), kEqRing, 0};
		cmd(n, RNIC_CMD_CQ_WRITE, RNIC_EQN, eq, 3);
		uint64_t cq[3] = {rnic_cq_arg0(4, 1), kCqRing, 0};
		cmd(n, RNIC_CMD_CQ_WRITE, kCqn, cq, 3);
		/* One MR over the first 512 KiB... and the unmapped last page. */
		uint64_t mr[4] = {rnic_mr_arg0(kKeyByte, kAccess, 1, 1), 0,
				  kRamSize, 0};
		cmd(n, RNIC_CMD_MR_WRITE, kMrIdx, mr, 4);

		rnic_qp_ctx c = {};
		uint64_t w[RNIC_QP_CTX_WORDS];

		c.state = 3;	/* IBV_QPS_RTS */
		c.type = RNIC_QPT_RC;
		c.pmtu = 3;	/* IBV_MTU_1024 */
		c.access = kAccess;
		c.pd = 1;
		c.scqn = kCqn;
		c.rcqn = kCqn;
		c.flags = RNIC_QPF_RESET_SQ | RNIC_QPF_RESET_RQ | RNIC_QPF_LOAD_SQ_PSN |
			  RNIC_QPF_LOAD_RQ_PSN;
		c.dest_qpn = kQpn;
		c.dest_ip = rnic_sim_node_ip(sim, peer);
		c.dest_mac = rnic_sim_node_mac(sim, peer);
		c.sq_log_size = 4;
		c.sq_log_stride = 6;
		c.rq_log_size = 4;
		c.rq_log_stride = 6;
		c.sq_iova = kSq;
		c.rq_iova = kRq;
		c.sq_psn = 100 + n;
		c.rq_psn = 100 + peer;
		c.timeout = 14;
		c.retry_cnt = 7;
		c.rnr_retry = 7;
		c.min_rnr_timer = 12;
		c.max_rd_atomic = 4;
		c.max_dest_rd_atomic = 4;
		c.udp_sport = 0xc000;
		rnic_qp_ctx_pack(&c, w);
		cmd(n, RNIC_CMD_QP_WRITE, kQpn, w, RNIC_QP_CTX_WORDS);
	}

	void post_write(uint16_t idx, uint64_t local, uint64_t remote, uint32_t len)
	{
		uint8_t *q = mem(0, kSq + 64 * (idx & 15));
		rnic_wqe_ctrl ctrl = {};
		rnic_wqe_raddr ra = {};
		rnic_wqe_data da = {};
		const uint32_t key = RNIC_KEY(kMrIdx, kKeyByte);

		ctrl.opcode = RNIC_WQE_OP_WRITE;
		ctrl.flags = RNIC_WQE_F_SIGNALED;
		ctrl.wqe_idx = idx;
		ctrl.ds = 3;
		ra.va = remote;
		ra.rkey = key;
		da.len = len;
		da.lkey = key;
		da.addr = local;
		std::memcpy(q, &ctrl, 16);
		std::memcpy(q + 16, &ra, 16);
		std::memcpy(q + 32, &da, 16);
		wr(0, RNIC_REG_SQ_DB, rnic_db_wq(kQpn, (uint16_t)(idx + 1)));
	}

	void run()
	{
		rnic_sim *sim = dom.sim();
		uint64_t v = 0;

		/* 1. BAR */
		CHECK(rd(0, RNIC_REG_DEV_ID) == RNIC_DEV_ID_VALUE, "DEV_ID");
		uint64_t caps = rd(1, RNIC_REG_CAPS);
		CHECK(RNIC_CAPS_DATA_BITS(caps) == RNIC_DATA_W, "CAPS data bits %u",
		      RNIC_CAPS_DATA_BITS(caps));
		CHECK(access(0, tlm::TLM_READ_COMMAND, RNIC_REG_DEV_ID + 4, &v, 4) ==
			      tlm::TLM_BURST_ERROR_RESPONSE, "a 4-byte read was not refused");
		CHECK(access(0, tlm::TLM_WRITE_COMMAND, RNIC_REG_PORT_MAC + 2, &v) ==
			      tlm::TLM_ADDRESS_ERROR_RESPONSE, "a misaligned write was not refused");

		const uint64_t c0 = dom.cycle();
		const sc_time t0 = sc_time_stamp();

		v = 0x02aabbccddeeull;
		CHECK(access(1, tlm::TLM_WRITE_COMMAND, RNIC_REG_PORT_MAC, &v) ==
			      tlm::TLM_OK_RESPONSE, "PORT_MAC write");
		CHECK(sc_time_stamp() == t0 && dom.cycle() == c0, "a posted write took time");
		CHECK(rd(1, RNIC_REG_PORT_MAC) == 0x02aabbccddeeull,
		      "PORT_MAC does not read back what the posted write before the read wrote");
		const uint64_t rd_cycles = dom.cycle() - c0;
		CHECK(rd_cycles > rnic::sim_cfg(sim).mmio_latency,
		      "a BAR read took %" PRIu64 " cycles, less than the MMIO latency", rd_cycles);
		std::printf("BAR: DEV_ID, CAPS, PORT_MAC write then read ok; a read takes %" PRIu64
			    " cycles\n", rd_cycles);

		/* 2. Connection and an RDMA WRITE. */
		setup_node(0);
		setup_node(1);
		for (uint32_t i = 0; i < kLen; i++)
			*mem(0, kSrc + i) = (uint8_t)(i * 7 + 3);
		std::memset(mem(1, kDst), 0xee, kLen);
		wr(0, RNIC_REG_CQ_DB, rnic_db_cq(kCqn, 1, 0));	/* arm: an MSI at the CQE */
		const uint64_t w0 = rnic::sim_writes_taken(sim, 1);
		const uint64_t posted = dom.cycle();

		post_write(0, kSrc, kDst, kLen);

		/* 3. Ordering: node 1's payload write taken, not yet visible. */
		uint64_t waited = 0;

		while (rnic::sim_writes_taken(sim, 1) == w0 && waited++ < 20000)
			dom.wait_cycles(1);
		CHECK(rnic::sim_writes_taken(sim, 1) > rnic::sim_writes(sim, 1),
		      "no payload write in flight at node 1");
		const bool early = !std::memcmp(mem(1, kDst), mem(0, kSrc), kLen);
		const uint64_t c1 = dom.cycle();

		CHECK(!early, "the payload was visible before its write latency passed");
		rd(1, RNIC_REG_CNT_RX_PKTS);
		CHECK(!std::memcmp(mem(1, kDst), mem(0, kSrc), kLen),
		      "a BAR read returned before the payload write before it was visible");
		std::printf("ordering: payload write taken at cycle %" PRIu64 ", not visible; the BAR "
			    "read issued then returned at cycle %" PRIu64 " with the payload in memory\n",
			    c1, dom.cycle());

		/* 2. (cont.) and 4.: the CQE, the MSI. */
		const rnic_cqe *cqe = reinterpret_cast<const rnic_cqe *>(mem(0, kCqRing));

		for (waited = 0; (cqe->owner & 1) && waited < 100000; waited++)
			dom.wait(0, 256);
		CHECK(!(cqe->owner & 1), "no CQE");
		CHECK(cqe->status == 0 && cqe->opcode == 1 /* IBV_WC_RDMA_WRITE */ &&
			      (cqe->qpn & 0xffffff) == kQpn && cqe->wqe_idx == 0,
		      "CQE status %u opcode %u qpn %u idx %u", cqe->status, cqe->opcode,
		      cqe->qpn, cqe->wqe_idx);
		std::printf("RDMA WRITE %u B: posted at cycle %" PRIu64 ", CQE seen at %" PRIu64
			    ", data in node 1's memory\n", kLen, posted, dom.cycle());
		dom.wait_cycles(4);
		CHECK(msis == 1 && cqe_at_msi, "MSIs %u, CQE in memory at the MSI: %d", msis,
		      cqe_at_msi);
		CHECK(irq_seen, "the irq line did not rise");
		CHECK(dom.nic_of(1).dma_errors() == 0 && iommus[0]->faults() == 0,
		      "DMA errors before the fault case");

		/* 5. A payload on a page the IOMMU does not map. */
		const uint64_t f0 = rnic_sim_iommu_faults(sim, 0);

		post_write(1, kUnmapped, kDst, 64);
		const rnic_cqe *cqe1 = cqe + 1;

		for (waited = 0; (cqe1->owner & 1) && waited < 100000; waited++)
			dom.wait(0, 256);
		CHECK(!(cqe1->owner & 1) && cqe1->status != 0,
		      "the WR on an unmapped page completed with status %u", cqe1->status);
		CHECK(iommus[0]->faults() >= 1 && rnic_sim_iommu_faults(sim, 0) > f0 &&
			      dom.nic_of(0).dma_errors() >= 1,
		      "faults: IOMMU %" PRIu64 ", model %" PRIu64 ", nic %" PRIu64,
		      iommus[0]->faults(), rnic_sim_iommu_faults(sim, 0),
		      dom.nic_of(0).dma_errors());
		std::printf("unmapped page: CQE status %u, IOMMU faults %" PRIu64 "\n",
			    cqe1->status, iommus[0]->faults());
		CHECK(rnic_sim_protocol_errors(sim, 0) == 0 && rnic_sim_protocol_errors(sim, 1) == 0,
		      "interface rule violations");
		done = true;
		sc_stop();
	}
};

/* 6: an observer on the clock line, as any clocked module would be. */
struct clock_probe : sc_module {
	sc_in<bool> clk;
	uint64_t rises = 0, falls = 0, changes = 0;

	SC_HAS_PROCESS(clock_probe);
	explicit clock_probe(sc_module_name n) : sc_module(n), clk("clk")
	{
		SC_METHOD(on_pos);
		sensitive << clk.pos();
		dont_initialize();
		SC_METHOD(on_change);
		sensitive << clk;
		dont_initialize();
	}
	void on_pos()
	{
		const uint64_t t = sc_time_stamp().value(), p = rnic_sc::domain::period().value();

		rises++;
		CHECK(clk.read() && clk.posedge() && clk.event() && !clk.negedge(),
		      "clock line at a rise: read %d posedge %d event %d", clk.read(),
		      clk.posedge(), clk.event());
		CHECK((t - rnic_sc::domain::clock_start().value()) % p == p / 2,
		      "a rise at %" PRIu64 " ps, not at a rising-edge time", t);
	}
	void on_change()
	{
		changes++;
		if (!clk.read()) {
			falls++;
			CHECK(clk.negedge() && clk.event(), "clock line at a fall: no negedge()");
		}
	}
};

} /* namespace */

int sc_main(int, char **)
{
	rnic_sim_cfg cfg;

	sc_report_handler::set_actions(SC_INFO, SC_DO_NOTHING);
	rnic_sim_default_cfg(&cfg);
	cfg.nodes = 2;
	cfg.mem_wr_latency = 300;	/* a slow memory: writes in flight are visible */
	rnic_sim *sim = rnic_sim_create(&cfg);
	{
		rnic_sc::domain dom(sim);
		rnic_sc::clock clk("clock", dom);
		rnic_sc::link net("link", dom);
		std::vector<rnic_sc::ram *> rams;
		std::vector<rnic_sc::iommu *> iommus;
		std::vector<rnic_sc::nic *> nics;
		sc_signal<bool> irq0("irq0"), irq1("irq1");

		for (unsigned i = 0; i < 2; i++) {
			std::string s = std::to_string(i);

			rams.push_back(new rnic_sc::ram(("ram" + s).c_str(), kRamBase, kRamSize));
			iommus.push_back(new rnic_sc::iommu(("iommu" + s).c_str()));
			nics.push_back(new rnic_sc::nic(("nic" + s).c_str(), dom, i));
			/* Everything but the last page. */
			if (iommus[i]->map(0, kRamBase, kRamSize - 0x1000))
				return 1;
		}
		tester t("tester", dom, rams, iommus);
		clock_probe probe("probe");

		probe.clk(clk.clk);

		for (unsigned i = 0; i < 2; i++) {
			nics[i]->clk(clk.clk);
			nics[i]->irq(i ? irq1 : irq0);
			(*t.bar[i])(nics[i]->bar);
			nics[i]->msi(t.msi);
			nics[i]->dma(iommus[i]->in);
			iommus[i]->out(rams[i]->in);
			nics[i]->eth_tx(*net.tx_in[i]);
			(*net.rx_out[i])(nics[i]->eth_rx);
		}
		t.irq0(irq0);
		sc_start();
		dom.finish();
		CHECK(probe.rises == clk.edges() && probe.rises > 0,
		      "the probe saw %" PRIu64 " rises, the clock made %" PRIu64, probe.rises,
		      clk.edges());
		CHECK(probe.changes == probe.rises + probe.falls &&
		      (probe.falls == probe.rises || probe.falls == probe.rises + 1),
		      "the probe saw %" PRIu64 " changes, %" PRIu64 " falls, %" PRIu64 " rises",
		      probe.changes, probe.falls, probe.rises);
		std::printf("clock line: %" PRIu64 " rises, %" PRIu64 " falls, %" PRIu64
			    " edges gated\n", probe.rises, probe.falls, clk.gated());
		if (!t.done) {
			std::printf("FAIL: the test did not finish\n");
			failures++;
		}
		std::printf("%s: %u failures, %" PRIu64 " cycles (%" PRIu64 " skipped by the "
			    "fast-forward)\n", failures ? "FAILED" : "PASSED", failures,
			    rnic_sim_cycle(sim), dom.skipped());
	}
	rnic_sim_destroy(sim);
	return failures ? 1 : 0;
}
