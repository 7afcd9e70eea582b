// SPDX-License-Identifier: MIT
/*
 * bench_write.c - RDMA WRITE throughput and latency, rnic0 -> rnic1.
 *
 * For 8 B, 4 KiB and 64 KiB (path MTU 4096) it posts N signaled WRITEs with
 * up to WINDOW outstanding and reports, from the simulated cycle counter:
 *
 *   - total cycles / N (includes filling and draining the pipeline);
 *   - steady-state cycles per message: between the first and the last
 *     completion, divided by the messages completed in between;
 *   - goodput as a percentage of the datapath peak (DATA_W / 8 bytes per
 *     cycle), from the steady-state figure and from the total;
 *   - post -> CQE latency of one message with nothing else outstanding
 *     (min and max of LAT_REPS runs; the run is deterministic);
 *   - simulated cycles per wall-clock second during the throughput run.
 *
 * With --kv it prints, instead of the table, one line of key=value pairs
 * per size (what scripts/sweep.py reads); the measurements are the same.
 *
 * Simulated time and the datapath width come from two functions that our
 * verbs library exports for benchmarks; they are not part of verbs.h.
 * This is a benchmark, not a test: it is never run by CTest.
 */
#define _DEFAULT_SOURCE

#include "common.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

/* Exported by our libibverbs stand-in (libverbs/). */
extern uint64_t rnic_verbs_sim_cycle(void);
extern unsigned int rnic_verbs_data_bits(void);

#define WINDOW 16
#define LAT_REPS 8
#define CLOCK_MHZ 250.0
#define MAX_MSG (64 * 1024)

struct result {
	uint32_t size;
	int n;
	uint64_t total;
	double cpm_total;
	double cpm_steady;
	double gp_total;
	double gp_steady;
	uint64_t lat_min;
	uint64_t lat_max;
	double cycles_per_sec;
};

struct bench {
	struct t_pair p;
	struct t_buf src, dst;
	double peak_bytes;	/* bytes per cycle */
};

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void post_write(struct bench *b, uint64_t wr_id, uint32_t size)
{
	struct ibv_sge sg = t_sge(&b->src, 0, size);

	POST_SEND(b->p.s[0].qp, wr_id, IBV_WR_RDMA_WRITE, IBV_SEND_SIGNALED,
		  &sg, 1, t_addr(&b->dst, 0), b->dst.mr->rkey, 0);
}

static void check_wc(const struct bench *b, const struct ibv_wc *wc,
		     uint64_t wr_id)
{
	EXPECT_WC(wc, wr_id, IBV_WC_SUCCESS, IBV_WC_RDMA_WRITE,
		  b->p.s[0].qp->qp_num, T_ANY, T_ANY, T_ANY);
}

/* One message with nothing outstanding: cycles from post to its CQE. */
static uint64_t latency_once(struct bench *b, uint32_t size, uint64_t wr_id)
{
	struct ibv_wc wc;
	uint64_t c0;

	c0 = rnic_verbs_sim_cycle();
	post_write(b, wr_id, size);
	POLL(b->p.s[0].scq, 1, &wc);
	check_wc(b, &wc, wr_id);
	return rnic_verbs_sim_cycle() - c0;
}

static void run_size(struct bench *b, uint32_t size, int n, struct result *r)
{
	struct ibv_wc wc[WINDOW];
	uint64_t c0, c1, t_first = 0, t_last = 0;
	int posted = 0, done = 0, done_at_first = 0, i;
	long empty = 0;
	double w0, w1;

	memset(r, 0, sizeof(*r));
	r->size = size;
	r->n = n;
	t_fill(b->src.p, size, 0xbe00 + size);
	memset(b->dst.p, 0, size);

	/* Warm-up: one message. */
	latency_once(b, size, 0);

	c0 = rnic_verbs_sim_cycle();
	w0 = now_s();
	while (done < n) {
		int got;

		while (posted < n && posted - done < WINDOW) {
			post_write(b, 1 + (uint64_t)posted, size);
			posted++;
		}
		got = ibv_poll_cq(b->p.s[0].scq, WINDOW, wc);
		CHECKF(got >= 0, "ibv_poll_cq returned %d", got);
		if (!got) {
			CHECKF(++empty < T_POLL_BOUND,
			       "timeout: %d of %d writes of %u B done", done, n,
			       size);
			continue;
		}
		for (i = 0; i < got; i++)
			check_wc(b, &wc[i], 1 + (uint64_t)done + i);
		if (!done) {
			t_first = rnic_verbs_sim_cycle();
			done_at_first = got;
		}
		done += got;
		if (done == n)
			t_last = rnic_verbs_sim_cycle();
	}
	c1 = rnic_verbs_sim_cycle();
	w1 = now_s();
	CHECK_MEM(b->dst.p, b->src.p, size);

	r->total = c1 - c0;
	r->cpm_total = (double)r->total / n;
	if (n > done_at_first && t_last > t_first)
		r->cpm_steady = (double)(t_last - t_first) /
				(n - done_at_first);
	else
		r->cpm_steady = r->cpm_total;
	r->gp_total = 100.0 * size / (r->cpm_total * b->peak_bytes);
	r->gp_steady = 100.0 * size / (r->cpm_steady * b->peak_bytes);
	r->cycles_per_sec = w1 > w0 ? (double)r->total / (w1 - w0) : 0.0;

	r->lat_min = UINT64_MAX;
	for (i = 0; i < LAT_REPS; i++) {
		uint64_t l = latency_once(b, size, 100000 + (uint64_t)i);

		if (l < r->lat_min)
			r->lat_min = l;
		if (l > r->lat_max)
			r->lat_max = l;
	}
}

static void size_str(uint32_t size, char *out, size_t len)
{
	if (size >= 1024 && size % 1024 == 0)
		snprintf(out, len, "%u KiB", size / 1024);
	else
		snprintf(out, len, "%u B", size);
}

int main(int argc, char **argv)
{
	static const struct {
		uint32_t size;
		int n;
	} runs[] = {
		{ 8, 64 },
		{ 4096, 64 },
		{ MAX_MSG, 16 },
	};
	const int nruns = sizeof(runs) / sizeof(runs[0]);
	struct result res[sizeof(runs) / sizeof(runs[0])];
	struct t_pair_cfg cfg;
	struct bench b;
	unsigned int data_bits;
	int i, kv = 0;

	for (i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--kv")) {
			fprintf(stderr, "usage: rnic_bench_write [--kv]\n");
			return 2;
		}
		kv = 1;
	}

	data_bits = rnic_verbs_data_bits();
	CHECKF(data_bits >= 8 && data_bits % 8 == 0,
	       "rnic_verbs_data_bits() returned %u", data_bits);
	b.peak_bytes = data_bits / 8.0;

	t_pair_default_cfg(&cfg);
	cfg.mtu = IBV_MTU_4096;
	cfg.caps.max_send_wr = WINDOW;
	cfg.caps.max_recv_wr = 1;
	cfg.cqe = 4 * WINDOW;
	t_pair_open(&b.p, &cfg);
	t_buf_alloc(&b.src, b.p.s[0].pd, MAX_MSG);
	t_buf_alloc(&b.dst, b.p.s[1].pd, MAX_MSG);

	for (i = 0; i < nruns; i++)
		run_size(&b, runs[i].size, runs[i].n, &res[i]);

	if (kv) {
		for (i = 0; i < nruns; i++) {
			const struct result *r = &res[i];

			printf("op=write size=%u msgs=%d window=%d mtu=4096 data_bits=%u cycles=%" PRIu64
			       " cycles_per_msg_total=%.3f cycles_per_msg=%.3f goodput_pct=%.3f"
			       " goodput_pct_total=%.3f goodput_gbps=%.4f msg_rate_mpps=%.4f"
			       " lat_min=%" PRIu64 " lat_max=%" PRIu64 " sim_cps=%.4g\n",
			       r->size, r->n, WINDOW, data_bits, r->total, r->cpm_total,
			       r->cpm_steady, r->gp_steady, r->gp_total,
			       r->size * 8.0 * CLOCK_MHZ / 1000.0 / r->cpm_steady,
			       CLOCK_MHZ / r->cpm_steady, r->lat_min, r->lat_max,
			       r->cycles_per_sec);
		}
		goto out;
	}
	printf("## RDMA WRITE rnic0 -> rnic1\n\n");
	printf("Datapath %u bits (peak %.0f B/cycle), path MTU 4096, window %d signaled WRs, one QP, %.0f MHz nominal clock.\n\n",
	       data_bits, b.peak_bytes, WINDOW, CLOCK_MHZ);
	printf("| size | msgs | total cycles | cycles/msg (total/N) | cycles/msg (steady) | goodput %% of peak (steady) | goodput %% of peak (total) | post->CQE cycles (min/max) | post->CQE ns (min) | sim cycles/s (wall) |\n");
	printf("|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
	for (i = 0; i < nruns; i++) {
		const struct result *r = &res[i];
		char sz[32];

		size_str(r->size, sz, sizeof(sz));
		printf("| %s | %d | %" PRIu64 " | %.1f | %.1f | %.2f | %.2f | %" PRIu64 " / %" PRIu64 " | %.0f | %.3g |\n",
		       sz, r->n, r->total, r->cpm_total, r->cpm_steady,
		       r->gp_steady, r->gp_total, r->lat_min, r->lat_max,
		       (double)r->lat_min * 1000.0 / CLOCK_MHZ,
		       r->cycles_per_sec);
	}

out:
	t_buf_free(&b.src);
	t_buf_free(&b.dst);
	t_pair_close(&b.p);
	return 0;
}
