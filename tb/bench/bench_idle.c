// SPDX-License-Identifier: MIT
/*
 * bench_idle.c - what idle simulated time costs in wall-clock time.
 *
 * Usage: rnic_bench_idle [polls]
 *
 * Three waits in which the NICs have nothing to do for a long time:
 *
 *   - idle polls: 20,000 (or @polls) ibv_poll_cq calls on an empty CQ of
 *     rnic0 with nothing posted anywhere (each empty poll lets the model
 *     run 256 cycles: 5.12 M cycles, 20.5 ms simulated);
 *   - ACK timeout: an RDMA WRITE to a peer QP in ERR (its RNIC drops the
 *     request without an answer) from a QP with local ACK timeout 8
 *     (4.096 us << 8 = 1.05 ms) and retry_cnt 0: the WR completes with
 *     IBV_WC_RETRY_EXC_ERR after one timeout;
 *   - RNR wait: a SEND to a QP with no receive posted whose RNR NAKs ask
 *     for min_rnr_timer 14 (1.28 ms), from a QP with rnr_retry 1: one wait,
 *     one resend, then IBV_WC_RNR_RETRY_EXC_ERR.
 *
 * For each it prints the simulated cycles and the wall-clock time. Run it
 * with RNIC_FFWD=0 and RNIC_FFWD=1 (scripts/bench_idle.sh takes medians and
 * the ratio); the simulated cycles are the same either way. This is a
 * benchmark, not a test: it is never run by CTest (tb/ffwd runs it for the
 * cycle counts only, with 2,000 polls: the plain loop it compares with
 * evaluates every idle cycle).
 */
#define _DEFAULT_SOURCE

#include "common.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* Exported by our libibverbs stand-in (libverbs/). */
extern uint64_t rnic_verbs_sim_cycle(void);

#define IDLE_POLLS 20000
#define ACK_TIMEOUT 8		/* 4.096 us << 8 */
#define RNR_TIMER 14		/* 1.28 ms */
#define CLOCK_MHZ 250.0

struct phase {
	const char *name;
	uint64_t cycles;
	double wall;
};

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void idle_polls(struct phase *ph, int polls)
{
	struct ibv_context *ctx = t_open_device(T_DEV0);
	struct ibv_cq *cq = t_create_cq(ctx, 16);
	struct ibv_wc wc;
	uint64_t c0;
	double w0;
	int i;

	c0 = rnic_verbs_sim_cycle();
	w0 = now_s();
	for (i = 0; i < polls; i++)
		CHECK_EQ(ibv_poll_cq(cq, 1, &wc), 0);
	ph->wall = now_s() - w0;
	ph->cycles = rnic_verbs_sim_cycle() - c0;
	CHECK_OK(ibv_destroy_cq(cq));
	CHECK_OK(ibv_close_device(ctx));
}

/* Posts one WR on side 0 of @p and polls its completion with @status. */
static void one_failed_wr(struct t_pair *p, enum ibv_wr_opcode op, struct t_buf *a,
			  enum ibv_wc_status status, struct phase *ph)
{
	struct ibv_sge sg = t_sge(a, 0, 64);
	struct ibv_wc wc;
	uint64_t c0;
	double w0;

	c0 = rnic_verbs_sim_cycle();
	w0 = now_s();
	POST_SEND(p->s[0].qp, 1, op, IBV_SEND_SIGNALED, &sg, 1, t_addr(a, 0), a->mr->rkey, 0);
	POLL(p->s[0].scq, 1, &wc);
	ph->wall = now_s() - w0;
	ph->cycles = rnic_verbs_sim_cycle() - c0;
	EXPECT_WC(&wc, 1, status, T_ANY, p->s[0].qp->qp_num, T_ANY, T_ANY, T_ANY);
}

static void ack_timeout(struct phase *ph)
{
	struct t_pair_cfg cfg;
	struct t_pair p;
	struct t_buf a;
	struct ibv_qp_attr qa;

	t_pair_default_cfg(&cfg);
	cfg.attrs[0].timeout = ACK_TIMEOUT;
	cfg.attrs[0].retry_cnt = 0;
	t_pair_open(&p, &cfg);
	t_buf_alloc(&a, p.s[0].pd, 4096);
	memset(&qa, 0, sizeof(qa));
	qa.qp_state = IBV_QPS_ERR;
	CHECK_OK(ibv_modify_qp(p.s[1].qp, &qa, IBV_QP_STATE));
	one_failed_wr(&p, IBV_WR_RDMA_WRITE, &a, IBV_WC_RETRY_EXC_ERR, ph);
	t_buf_free(&a);
	t_pair_close(&p);
}

static void rnr_wait(struct phase *ph)
{
	struct t_pair_cfg cfg;
	struct t_pair p;
	struct t_buf a;

	t_pair_default_cfg(&cfg);
	cfg.attrs[1].min_rnr_timer = RNR_TIMER;
	cfg.attrs[0].rnr_retry = 1;
	t_pair_open(&p, &cfg);
	t_buf_alloc(&a, p.s[0].pd, 4096);
	one_failed_wr(&p, IBV_WR_SEND, &a, IBV_WC_RNR_RETRY_EXC_ERR, ph);
	t_buf_free(&a);
	t_pair_close(&p);
}

int main(int argc, char **argv)
{
	const char *ff = getenv("RNIC_FFWD");
	int polls = argc > 1 ? atoi(argv[1]) : IDLE_POLLS;
	char name[48];
	struct phase ph[3] = {
		{name, 0, 0},
		{"ACK timeout 8 (1.05 ms), retry_cnt 0", 0, 0},
		{"RNR wait 14 (1.28 ms), rnr_retry 1", 0, 0},
	};
	int i;

	if (polls < 1) {
		fprintf(stderr, "usage: %s [polls]\n", argv[0]);
		return 2;
	}
	if (polls >= 1000)
		snprintf(name, sizeof(name), "%d,%03d empty polls, idle device",
			 polls / 1000, polls % 1000);
	else
		snprintf(name, sizeof(name), "%d empty polls, idle device", polls);
	idle_polls(&ph[0], polls);
	ack_timeout(&ph[1]);
	rnr_wait(&ph[2]);

	printf("## Idle simulated time (RNIC_FFWD=%s)\n\n", ff && *ff ? ff : "1");
	printf("| wait | simulated cycles | simulated ms | wall ms |\n");
	printf("|---|---:|---:|---:|\n");
	for (i = 0; i < 3; i++)
		printf("| %s | %" PRIu64 " | %.3f | %.2f |\n", ph[i].name, ph[i].cycles,
		       (double)ph[i].cycles / (CLOCK_MHZ * 1000.0), ph[i].wall * 1e3);
	return 0;
}
