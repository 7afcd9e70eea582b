// SPDX-License-Identifier: MIT
/*
 * model_rx_icrc.cpp - corrupted frames against the real RTL, through the C
 * API only (rnic_model.h): valid RoCEv2 SEND_ONLY frames for a QP that does
 * not exist are injected on node 0's link and cross corrupting links into
 * the RNICs. The RX parser must discard exactly the frames that fail the
 * receiver's checks (CNT_RX_DROP == the wire's delivered_bad) and keep all
 * others (CNT_RX_PKTS == delivered); a corrupted destination address sends a
 * frame to another node or nowhere without harm. Also checks the C API's
 * argument checking and that no DMA or interface rule is violated.
 */
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <vector>

#include "rnic_hw.h"
#include "rnic_model.h"
#include "roce_frame.h"

namespace {

constexpr unsigned kNodes = 3;
constexpr uint32_t kQpn = 5;	/* never created: the engine drops what the parser keeps */

int failures;

#define CHECK(cond, ...)							\
	do {									\
		if (!(cond)) {							\
			std::printf("%s:%d: FAIL: %s: ", __FILE__, __LINE__, #cond); \
			std::printf(__VA_ARGS__);				\
			std::printf("\n");					\
			failures++;						\
		}								\
	} while (0)

rnic_wire_fault_counts rx_counts(rnic_sim *sim, unsigned n)
{
	rnic_wire_fault_counts c;

	rnic_sim_link_fault_counts(sim, n, RNIC_WIRE_DIR_RX, &c);
	return c;
}

/* Injects @n frames 0 -> 1 with payloads of 0 .. 4 * (@pay4 - 1) bytes and
 * runs until every node's RX queue drained. */
void traffic(rnic_sim *sim, uint32_t id0, unsigned n, unsigned pay4)
{
	for (unsigned i = 0; i < n; i++) {
		std::vector<uint8_t> f = tb::send_only(0, 1, kQpn, id0 + i, 4 * ((i * 37) % pay4));

		CHECK(rnic_sim_wire_inject(sim, 0, f.data(), f.size()) == 0, "inject");
		rnic_sim_step(sim, 40);
	}
	rnic_sim_step(sim, 20000);
}

void check_rtl(rnic_sim *sim, const char *what)
{
	for (unsigned n = 0; n < kNodes; n++) {
		rnic_wire_fault_counts c = rx_counts(sim, n);
		uint64_t pkts = rnic_sim_mmio_read(sim, n, RNIC_REG_CNT_RX_PKTS);
		uint64_t drop = rnic_sim_mmio_read(sim, n, RNIC_REG_CNT_RX_DROP);

		CHECK(pkts == c.delivered, "%s: node %u took %llu frames, the wire delivered %llu", what,
		      n, (unsigned long long)pkts, (unsigned long long)c.delivered);
		CHECK(drop == c.delivered_bad, "%s: node %u dropped %llu frames, %llu were bad", what, n,
		      (unsigned long long)drop, (unsigned long long)c.delivered_bad);
		CHECK(rnic_sim_iommu_faults(sim, n) == 0 && rnic_sim_protocol_errors(sim, n) == 0 &&
		      rnic_sim_wire_frames(sim, n) == (n == 0 ? rnic_sim_wire_frames(sim, 0) : 0),
		      "%s: node %u: DMA faults, protocol errors or frames sent", what, n);
		std::printf("%s: node %u: %llu frames delivered, %llu corrupted, %llu of them bad; RTL "
			    "CNT_RX_PKTS %llu, CNT_RX_DROP %llu\n", what, n,
			    (unsigned long long)c.delivered, (unsigned long long)c.delivered_corrupted,
			    (unsigned long long)c.delivered_bad, (unsigned long long)pkts,
			    (unsigned long long)drop);
	}
}

void test_api(rnic_sim *sim)
{
	rnic_wire_faults f, g;
	rnic_wire_fault_counts c;
	uint8_t byte = 0;

	rnic_wire_faults_default(&f);
	f.drop = 1.5;
	CHECK(rnic_sim_set_link_faults(sim, 0, 0, &f) == -EINVAL, "drop 1.5");
	f.drop = NAN;
	CHECK(rnic_sim_set_link_faults(sim, 0, 0, &f) == -EINVAL, "drop NaN");
	f.drop = -0.1;
	CHECK(rnic_sim_set_link_faults(sim, 0, 0, &f) == -EINVAL, "drop -0.1");
	f.drop = 0;
	f.corrupt_bits = 65;
	CHECK(rnic_sim_set_link_faults(sim, 0, 0, &f) == -EINVAL, "65 bits");
	f.corrupt_bits = 0;
	f.n_down = RNIC_WIRE_MAX_DOWN + 1;
	CHECK(rnic_sim_set_link_faults(sim, 0, 0, &f) == -EINVAL, "windows");
	f.n_down = 0;
	CHECK(rnic_sim_set_link_faults(sim, kNodes, 0, &f) == -EINVAL, "node");
	CHECK(rnic_sim_set_link_faults(sim, 0, 2, &f) == -EINVAL, "dir");
	CHECK(rnic_sim_link_fault_counts(sim, 0, 0, nullptr) == -EINVAL, "null counts");
	CHECK(rnic_sim_wire_inject(sim, 0, &byte, 0) == -EINVAL, "empty frame");
	CHECK(rnic_sim_wire_inject(sim, 0, nullptr, 60) == -EINVAL, "no frame");
	f.dup = 0.5;
	f.seed = 12;
	CHECK(rnic_sim_set_link_faults(sim, 2, RNIC_WIRE_DIR_RX, &f) == 0, "set");
	CHECK(rnic_sim_get_link_faults(sim, 2, RNIC_WIRE_DIR_RX, &g) == 0 && g.dup == 0.5 &&
	      g.seed == 12 && g.corrupt_bits == 1 && g.reorder_window == 4 &&
	      g.reorder_timeout == 2000 && g.delay_cycles == 1000 && g.down_cycles == 1000,
	      "get: the configuration in force, defaults filled in");
	CHECK(rnic_sim_set_link_faults(sim, 2, RNIC_WIRE_DIR_RX, nullptr) == 0, "off");
	CHECK(rnic_sim_get_link_faults(sim, 2, RNIC_WIRE_DIR_RX, &g) == 0 && g.dup == 0, "off");
	CHECK(rnic_sim_link_fault_counts(sim, 2, RNIC_WIRE_DIR_RX, &c) == 0 && c.frames == 0, "counts");
	std::printf("C API argument checks: ok\n");
}

} /* namespace */

int main()
{
	rnic_sim_cfg cfg;

	rnic_sim_default_cfg(&cfg);
	cfg.nodes = kNodes;
	rnic_sim *sim = rnic_sim_create(&cfg);

	test_api(sim);
	for (unsigned n = 0; n < kNodes; n++) {
		rnic_sim_mmio_write(sim, n, RNIC_REG_PORT_MAC, rnic_sim_node_mac(sim, n));
		rnic_sim_mmio_write(sim, n, RNIC_REG_PORT_IP, rnic_sim_node_ip(sim, n));
	}
	rnic_sim_step(sim, 100);

	/* Clean frames are all taken, none dropped. */
	traffic(sim, 0, 50, 300);
	check_rtl(sim, "clean");
	CHECK(rx_counts(sim, 1).delivered == 50, "%llu", (unsigned long long)rx_counts(sim, 1).delivered);

	/* Node 1's RX link flips one bit of half the frames: a bit in the
	 * Ethernet addresses or a field the ICRC leaves out is harmless and
	 * kept, any other is caught. */
	rnic_wire_faults f;

	rnic_wire_faults_default(&f);
	f.corrupt = 0.5;
	f.seed = 11;
	rnic_sim_set_link_faults(sim, 1, RNIC_WIRE_DIR_RX, &f);
	traffic(sim, 1000, 600, 300);
	check_rtl(sim, "rx corrupt 1 bit");
	rnic_wire_fault_counts c = rx_counts(sim, 1);

	CHECK(c.delivered_bad > 200 && c.delivered_corrupted > c.delivered_bad,
	      "corrupted %llu bad %llu", (unsigned long long)c.delivered_corrupted,
	      (unsigned long long)c.delivered_bad);

	/* Node 0's TX link flips 6 bits of every frame: the switch routes on
	 * the corrupted address, to node 1, 2, back to node 0 or nowhere.
	 * Small frames, so that the address bits are often hit. */
	rnic_sim_set_link_faults(sim, 1, RNIC_WIRE_DIR_RX, nullptr);
	f.corrupt = 1;
	f.corrupt_bits = 6;
	f.seed = 5;
	rnic_sim_set_link_faults(sim, 0, RNIC_WIRE_DIR_TX, &f);
	traffic(sim, 5000, 1500, 8);
	check_rtl(sim, "tx corrupt 6 bits");
	rnic_wire_fault_counts t;

	rnic_sim_link_fault_counts(sim, 0, RNIC_WIRE_DIR_TX, &t);
	CHECK(t.misrouted > 0 && rx_counts(sim, 2).delivered > 0 && rnic_sim_wire_drops(sim, 0) > 0,
	      "misrouted %llu, at node 2 %llu, nowhere %llu", (unsigned long long)t.misrouted,
	      (unsigned long long)rx_counts(sim, 2).delivered,
	      (unsigned long long)rnic_sim_wire_drops(sim, 0));
	std::printf("tx corrupt: %llu misrouted (%llu to nowhere)\n", (unsigned long long)t.misrouted,
		    (unsigned long long)rnic_sim_wire_drops(sim, 0));

	rnic_sim_destroy(sim);
	if (failures) {
		std::printf("model_rx_icrc: %d checks FAILED\n", failures);
		return 1;
	}
	std::printf("model_rx_icrc: passed\n");
	return 0;
}
