// SPDX-License-Identifier: MIT
/*
 * bench_rate.c - small-message rate: 64-byte RDMA WRITEs, rnic0 -> rnic1,
 * on 1, 2, 4, 8 and 16 RC QPs, each with up to WINDOW signaled WRITEs
 * outstanding.
 *
 * The wire limit: a 64-byte WRITE_ONLY frame is 64 + 70 bytes of headers
 * (Ethernet 14, IPv4 20, UDP 8, BTH 12, RETH 16) + 4 of ICRC; with the wire
 * model's 24 bytes of per-frame overhead and its rate of DataW/8 bytes per
 * cycle, one frame takes ceil(162 / 32) = 6 cycles at 256 bits. The rate is
 * measured between the first and the last completion (steady state) and
 * reported as a percentage of one message per frame time.
 *
 *   rnic_bench_rate [--kv] [messages per QP count]      (default 2048)
 *
 * --kv prints one line of key=value pairs per QP count instead of the table.
 *
 * A benchmark, not a test: CTest never runs it.
 */
#define _DEFAULT_SOURCE

#include "common.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

extern uint64_t rnic_verbs_sim_cycle(void);
extern unsigned int rnic_verbs_data_bits(void);

#define MAXQP 16
#define WINDOW 16
#define SIZE 64
#define HDR 70		/* Ethernet + IPv4 + UDP + BTH + RETH */
#define ICRC 4
#define OVERHEAD 24	/* the wire model's default per-frame overhead */

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

static void run(int nqp, int total, unsigned int bytes_per_cycle, int kv)
{
	struct t_pair p[MAXQP];
	struct t_buf src[MAXQP], dst[MAXQP];
	int posted[MAXQP] = { 0 }, done[MAXQP] = { 0 };
	int all = 0, i, first_done = -1;
	uint64_t t_first = 0, t_last = 0, t0;
	double w0, w1;
	unsigned int frame = SIZE + HDR + ICRC + OVERHEAD;
	unsigned int frame_cycles = (frame + bytes_per_cycle - 1) / bytes_per_cycle;
	double rate, limit;

	for (i = 0; i < nqp; i++) {
		struct t_pair_cfg cfg;

		t_pair_default_cfg(&cfg);
		cfg.mtu = IBV_MTU_4096;
		cfg.caps.max_send_wr = WINDOW;
		cfg.cqe = 2 * WINDOW;
		t_pair_open(&p[i], &cfg);
		t_buf_alloc(&src[i], p[i].s[0].pd, SIZE);
		t_buf_alloc(&dst[i], p[i].s[1].pd, SIZE);
	}
	t0 = rnic_verbs_sim_cycle();
	w0 = now_s();
	while (all < total) {
		for (i = 0; i < nqp; i++) {
			struct ibv_wc wc[WINDOW];
			int n, k;

			while (posted[i] - done[i] < WINDOW && posted[i] < total / nqp) {
				struct ibv_sge sg = t_sge(&src[i], 0, SIZE);

				POST_SEND(p[i].s[0].qp, (uint64_t)posted[i], IBV_WR_RDMA_WRITE,
					  IBV_SEND_SIGNALED, &sg, 1, t_addr(&dst[i], 0),
					  dst[i].mr->rkey, 0);
				posted[i]++;
			}
			/* A QP with nothing outstanding is not polled: an empty
			 * poll waits for the next CQE of any QP, up to 256 cycles,
			 * and at the end of a run the finished QPs' polls would
			 * stand between the last CQEs and their polls. */
			if (done[i] == posted[i])
				continue;
			n = ibv_poll_cq(p[i].s[0].scq, WINDOW, wc);
			CHECK(n >= 0);
			for (k = 0; k < n; k++)
				CHECK_EQ(wc[k].status, IBV_WC_SUCCESS);
			if (n) {
				if (first_done < 0) {
					first_done = all + n;
					t_first = rnic_verbs_sim_cycle();
				}
				t_last = rnic_verbs_sim_cycle();
			}
			done[i] += n;
			all += n;
		}
	}
	w1 = now_s();
	/* Messages completed after the first completion, over that time. */
	rate = (double)(all - first_done) / (double)(t_last - t_first);
	limit = 1.0 / frame_cycles;
	if (kv)
		printf("op=write size=%d qps=%d msgs=%d window=%d data_bits=%u cycles=%" PRIu64
		       " cycles_per_msg=%.4f msg_rate_mpps=%.4f wire_pct=%.2f sim_cps=%.4g\n",
		       SIZE, nqp, all, WINDOW, bytes_per_cycle * 8, t_last - t0, 1.0 / rate,
		       250.0 * rate, 100.0 * rate / limit,
		       (double)(t_last - t0) / (w1 - w0));
	else
		printf("| %2d | %6d | %8" PRIu64 " | %6.2f | %5.1f | %.2e |\n", nqp, all,
		       t_last - t0, 1.0 / rate, 100.0 * rate / limit,
		       (double)(t_last - t0) / (w1 - w0));
	for (i = 0; i < nqp; i++) {
		t_buf_free(&src[i]);
		t_buf_free(&dst[i]);
		t_pair_close(&p[i]);
	}
}

int main(int argc, char **argv)
{
	int total = 2048, kv = 0, a;
	unsigned int bpc = rnic_verbs_data_bits() / 8;
	static const int qps[] = { 1, 2, 4, 8, 16 };
	unsigned int i;

	for (a = 1; a < argc; a++) {
		if (!strcmp(argv[a], "--kv"))
			kv = 1;
		else
			total = atoi(argv[a]);
	}
	if (!kv)
		printf("64-byte RDMA WRITEs, %d per run, window %d per QP, datapath %u bits: one frame "
		       "per %u cycles on the wire\n\n", total, WINDOW, bpc * 8,
		       (SIZE + HDR + ICRC + OVERHEAD + bpc - 1) / bpc);
	if (!kv)
		printf("| QPs | msgs | total cycles | cycles/msg (steady) | %% of wire-limited rate | "
		       "sim cycles/s (wall) |\n|---:|---:|---:|---:|---:|---:|\n");
	for (i = 0; i < sizeof(qps) / sizeof(qps[0]); i++)
		run(qps[i], total, bpc, kv);
	return 0;
}
