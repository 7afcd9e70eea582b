// SPDX-License-Identifier: MIT
/*
 * sc_fault_switch.c - wire faults changed while a verbs program runs,
 * through the model's C API (rnic_model.h), natively and on the SystemC
 * platform (sc_exact.fault_switch compares the two runs).
 *
 * An RC pair sends 8 RDMA WRITEs of 4 KiB (4 packets each) per phase:
 *   0. no faults;
 *   1. node 0's TX link loses 10 % of its frames (NAKs, timeouts);
 *   2. node 0's TX clean again, node 1's RX link corrupts 10 % (the RTL
 *      drops them on the ICRC) and a directed rule loses node 1's 2nd and
 *      3rd ACK (rnic_sim_wire_drop);
 *   3. node 1's RX clean, node 1's TX (the ACKs) reorders 30 % and
 *      duplicates 20 %, and node 0's TX goes down for 600 cycles 100
 *      cycles from now (a fixed window: absolute cycles);
 *   4. every link clean.
 * Every WRITE completes and every byte is checked. After each phase it
 * prints the cycle, every link direction's fault counts
 * (rnic_sim_link_fault_counts), the directed-rule hits and the frames the
 * switch could not route: all must be the same on both platforms, and the
 * faults must really have happened.
 */
#include <inttypes.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "common.h"
#include "rnic_model.h"

#define LEN	4096	/* 4 packets at MTU 1024 */
#define WRS	8
#define OP_ACK	0x11

static struct rnic_sim *sim;

static void set_faults(unsigned int node, unsigned int dir, const struct rnic_wire_faults *f)
{
	CHECK_OK(rnic_sim_set_link_faults(sim, node, dir, f));
}

static void print_counts(int phase)
{
	printf("phase %d: cycle %" PRIu64 "\n", phase, rnic_sim_cycle(sim));
	for (unsigned int n = 0; n < 2; n++) {
		for (unsigned int d = 0; d < 2; d++) {
			struct rnic_wire_fault_counts c;

			CHECK_OK(rnic_sim_link_fault_counts(sim, n, d, &c));
			printf("  node %u %s: frames %" PRIu64 " dropped %" PRIu64
			       " corrupted %" PRIu64 " duplicated %" PRIu64 " reordered %" PRIu64
			       " down_lost %" PRIu64 " delivered %" PRIu64 " bad %" PRIu64 "\n",
			       n, d ? "rx" : "tx", c.frames, c.dropped, c.corrupted, c.duplicated,
			       c.reordered, c.down_lost, c.delivered, c.delivered_bad);
		}
		printf("  node %u: rule hits %" PRIu64 " unroutable %" PRIu64 " frames %" PRIu64 "\n",
		       n, rnic_sim_wire_drop_hits(sim, n), rnic_sim_wire_drops(sim, n),
		       rnic_sim_wire_frames(sim, n));
	}
}

static uint64_t count(unsigned int node, unsigned int dir, size_t field)
{
	struct rnic_wire_fault_counts c;

	CHECK_OK(rnic_sim_link_fault_counts(sim, node, dir, &c));
	return *(const uint64_t *)((const char *)&c + field);
}

#define COUNT(node, dir, f) count(node, dir, offsetof(struct rnic_wire_fault_counts, f))

static void writes(struct t_pair *p, struct t_buf *a, struct t_buf *b, int phase)
{
	struct ibv_wc wc[WRS];

	t_fill(a->p, WRS * LEN, 100 + (uint64_t)phase);
	memset(b->p, 0, WRS * LEN);
	for (int i = 0; i < WRS; i++) {
		struct ibv_sge sg = t_sge(a, (size_t)i * LEN, LEN);

		POST_SEND(p->s[0].qp, (uint64_t)(phase * WRS + i), IBV_WR_RDMA_WRITE,
			  IBV_SEND_SIGNALED, &sg, 1, t_addr(b, (size_t)i * LEN), b->mr->rkey, 0);
	}
	POLL(p->s[0].scq, WRS, wc);
	for (int i = 0; i < WRS; i++)
		EXPECT_WC(&wc[i], (uint64_t)(phase * WRS + i), IBV_WC_SUCCESS, IBV_WC_RDMA_WRITE,
			  p->s[0].qp->qp_num, T_ANY, 0, T_ANY);
	CHECK_MEM(b->p, a->p, WRS * LEN);
	print_counts(phase);
}

int main(void)
{
	struct t_pair_cfg cfg;
	struct t_pair p;
	struct t_buf a, b;
	struct rnic_wire_faults f;
	uint64_t before;

	t_pair_default_cfg(&cfg);
	cfg.mtu = IBV_MTU_1024;
	cfg.attrs[0].timeout = 3;	/* 8192 cycles */
	t_pair_open(&p, &cfg);
	sim = rnic_sim_global();
	t_buf_alloc(&a, p.s[0].pd, WRS * LEN);
	t_buf_alloc(&b, p.s[1].pd, WRS * LEN);

	writes(&p, &a, &b, 0);

	rnic_wire_faults_default(&f);
	f.drop = 0.1;
	f.seed = 11;
	set_faults(0, RNIC_WIRE_DIR_TX, &f);
	before = COUNT(0, RNIC_WIRE_DIR_TX, dropped);
	writes(&p, &a, &b, 1);
	CHECKF(COUNT(0, RNIC_WIRE_DIR_TX, dropped) > before, "phase 1 lost no frame");

	set_faults(0, RNIC_WIRE_DIR_TX, NULL);
	rnic_wire_faults_default(&f);
	f.corrupt = 0.1;
	f.seed = 12;
	set_faults(1, RNIC_WIRE_DIR_RX, &f);
	CHECK_OK(rnic_sim_wire_drop(sim, 1, OP_ACK, -1, 1, 2));
	before = COUNT(1, RNIC_WIRE_DIR_RX, corrupted);
	writes(&p, &a, &b, 2);
	CHECKF(COUNT(1, RNIC_WIRE_DIR_RX, corrupted) > before, "phase 2 corrupted no frame");
	CHECKF(rnic_sim_wire_drop_hits(sim, 1) == 2, "phase 2: %" PRIu64 " ACKs lost, not 2",
	       rnic_sim_wire_drop_hits(sim, 1));

	set_faults(1, RNIC_WIRE_DIR_RX, NULL);
	rnic_wire_faults_default(&f);
	f.reorder = 0.3;
	f.dup = 0.2;
	f.seed = 13;
	set_faults(1, RNIC_WIRE_DIR_TX, &f);
	rnic_wire_faults_default(&f);
	f.n_down = 1;
	f.down[0].start = rnic_sim_cycle(sim) + 100;
	f.down[0].len = 600;
	set_faults(0, RNIC_WIRE_DIR_TX, &f);
	before = COUNT(1, RNIC_WIRE_DIR_TX, duplicated) + COUNT(1, RNIC_WIRE_DIR_TX, reordered);
	writes(&p, &a, &b, 3);
	CHECKF(COUNT(1, RNIC_WIRE_DIR_TX, duplicated) + COUNT(1, RNIC_WIRE_DIR_TX, reordered) >
	       before, "phase 3 reordered and duplicated no frame");
	CHECKF(COUNT(0, RNIC_WIRE_DIR_TX, down_lost) > 0, "phase 3: the link never went down");

	set_faults(0, RNIC_WIRE_DIR_TX, NULL);
	set_faults(1, RNIC_WIRE_DIR_TX, NULL);
	writes(&p, &a, &b, 4);

	t_buf_free(&a);
	t_buf_free(&b);
	t_pair_close(&p);
	printf("sc_fault_switch: ok\n");
	return 0;
}
