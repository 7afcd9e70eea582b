// SPDX-License-Identifier: MIT
/*
 * bench_op.c - one verbs operation, rnic0 -> rnic1, with every choice a
 * designer varies on the command line; the benchmark the sweep runner
 * (scripts/sweep.py, docs/experiments.md) drives.
 *
 *   rnic_bench_op [--op write|read|send|fadd|cswap] [--size B] [--msgs N]
 *                 [--qps Q] [--window W] [--mtu 256..4096] [--poll-batch B]
 *                 [--inline] [--chain K] [--lat-reps R] [--events [--cq-count C]
 *                 [--cq-period US] [--event-timeout US]] [--counters K]
 *                 [--bg-read B] [--both] [--unsignaled] [--kv]
 *
 * Q RC QPs on each node share one send CQ (and, for SEND, one receive CQ);
 * rnic0 posts N signaled WRs round-robin over its QPs with up to W
 * outstanding per QP, polls up to B completions per ibv_poll_cq call and
 * checks every completion (--chain K: up to K WRs per ibv_post_send call,
 * one chain) and, at the end, the bytes (WRITE, SEND, READ)
 * or the counter (FETCH_AND_ADD adds 1 per WR; CMP_AND_SWP compares with 0
 * and swaps 0, so every WR returns 0; --counters K: the atomics go round-robin
 * over K 8-byte counters, WR i to counter i mod K, and the sum of the counters
 * is checked). It reports, from the simulated cycle
 * counter:
 *
 *   - unloaded post -> CQE latency: R WRs one at a time, round-robin over
 *     the QPs (min, p50, p99, max);
 *   - the loaded run: total cycles, steady-state cycles per message
 *     (between the first and the last completion), message rate, goodput
 *     (payload bytes; % of the DATA_W x clock peak), and each WR's post ->
 *     poll latency under load (p50, p90, p99, max);
 *   - wall time and simulated cycles per wall-clock second.
 *
 * --events: rnic0's send CQ is on a completion channel and completions are
 * taken the way an interrupt-driven program takes them: wait for the CQ
 * event, acknowledge, arm again (ibv_req_notify_cq), poll once (take_send()).
 * --cq-count/--cq-period set the CQ's moderation first (ibv_modify_cq).
 * Reported: the events (interrupts) taken in the loaded run, events per
 * message, and the waits that timed out.
 *
 * --bg-read B: during the loaded run rnic0 also reads B bytes from rnic1 on
 * a QP of its own, two READs outstanding all the time (a READ response
 * stream from rnic1 beside the measured operation's responses; its bytes
 * are checked at the end). Reported: the READs completed.
 *
 * --both: rnic1 runs the same loaded run towards rnic0 at the same time, on
 * the same QPs (each node's transport is then requester, responder and
 * completer at once, as in perftest's -b); for SEND rnic0 gets receive
 * queues and a receive CQ of its own. Both directions' completions and bytes
 * are checked; the latencies are rnic0's. Reported: the cycles until both
 * directions are done, per message each way.
 *
 * --unsignaled: only the last WR of each ibv_post_send chain (--chain K) is
 * signaled; its completion covers the chain, as perftest's cq_mod does.
 *
 * By default it prints a table; with --kv one line of key=value pairs
 * (the sweep runner reads it). A benchmark, not a test: CTest runs it only
 * through the sweep runner's own test.
 */
#define _GNU_SOURCE	/* ppoll */

#include "common.h"

#include <inttypes.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

extern uint64_t rnic_verbs_sim_cycle(void);
extern unsigned int rnic_verbs_data_bits(void);

#define CLOCK_MHZ 250.0
#define MAX_POLL 256
#define MAX_CHAIN 64

/* A loaded run's wr_id: the QP index in the high half, the WR's number in
 * bits 0..23 and, on the signaled last WR of an unsignaled chain, the WRs
 * its completion covers in bits 24..31. */
#define WR_IDX(id) ((uint32_t)(id) & 0xffffffu)
#define WR_COV(id) ((uint32_t)(id) >> 24 ? (int)((uint32_t)(id) >> 24) : 1)

enum op { OP_WRITE, OP_READ, OP_SEND, OP_FADD, OP_CSWAP };

static const char *const op_names[] = { "write", "read", "send", "fadd", "cswap" };

struct opts {
	enum op op;
	uint32_t size;
	int msgs;
	int qps;
	int window;
	int mtu;
	int poll_batch;
	int inl;
	int lat_reps;
	int kv;
	int events;
	int cq_count;
	int cq_period;
	int event_timeout_us;
	int chain;
	int counters;	/* atomics: 8-byte words they go round-robin over */
	uint32_t bg_read;	/* background READ size (0: none) */
	int both;	/* rnic1 -> rnic0 as well */
	int unsig;	/* only a chain's last WR signaled */
};

struct bench {
	struct opts o;
	struct ibv_context *ctx[2];
	struct ibv_pd *pd[2];
	struct ibv_cq *scq[2], *rcq;
	struct ibv_comp_channel *ch;	/* --events: of scq[0] */
	uint64_t events, timeouts;
	struct ibv_qp **qp[2];
	int *qpi_of;		/* rnic1 QPN -> index (SEND receives) */
	uint32_t max_qpn;
	struct t_buf src, dst;	/* rnic0 src (READ: landing), rnic1 dst */
	uint64_t *post_at;	/* per WR of the loaded run */
	uint64_t *lat;		/* per WR latencies, then sorted */
	int *out;		/* outstanding per QP */
	uint64_t atomics;	/* FETCH_AND_ADDs done */
	/* --bg-read: rnic0's QP bg_qp[0] reads bg_src (rnic1) into bg_dst */
	struct ibv_qp *bg_qp[2];
	struct ibv_cq *bg_cq;
	struct t_buf bg_src, bg_dst;
	int bg_out;
	uint64_t bg_done;
	/* --both: rnic1 sends src1 to dst1 (rnic0) on qp[1]; rnic0's receives */
	struct t_buf src1, dst1;
	struct ibv_cq *rcq0;
	int *out1;
	int posted1, done1;
	int loading;	/* in the loaded run (rnic1 sends only then) */
	uint64_t atomics1;
};

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void usage(void)
{
	fprintf(stderr,
		"usage: rnic_bench_op [--op write|read|send|fadd|cswap] [--size B] [--msgs N]\n"
		"                     [--qps Q] [--window W] [--mtu 256..4096] [--poll-batch B]\n"
		"                     [--inline] [--chain K] [--lat-reps R] [--events [--cq-count C]\n"
		"                     [--cq-period US] [--event-timeout US]] [--counters K]\n"
		"                     [--bg-read B] [--both] [--unsignaled] [--kv]\n");
	exit(2);
}

static long arg_num(int argc, char **argv, int *i, long lo, long hi)
{
	char *end;
	long v;

	if (*i + 1 >= argc)
		usage();
	v = strtol(argv[++*i], &end, 0);
	if (*end || v < lo || v > hi) {
		fprintf(stderr, "rnic_bench_op: %s %s: out of range %ld..%ld\n",
			argv[*i - 1], argv[*i], lo, hi);
		exit(2);
	}
	return v;
}

static void parse(int argc, char **argv, struct opts *o)
{
	int i;

	memset(o, 0, sizeof(*o));
	o->op = OP_WRITE;
	o->size = 8;
	o->msgs = 256;
	o->qps = 1;
	o->window = 16;
	o->mtu = 4096;
	o->poll_batch = 16;
	o->lat_reps = 16;
	o->event_timeout_us = 100;
	o->chain = 1;
	o->counters = 1;
	for (i = 1; i < argc; i++) {
		const char *a = argv[i];

		if (!strcmp(a, "--op")) {
			unsigned int k;

			if (++i >= argc)
				usage();
			for (k = 0; k < sizeof(op_names) / sizeof(op_names[0]); k++)
				if (!strcmp(argv[i], op_names[k]))
					break;
			if (k == sizeof(op_names) / sizeof(op_names[0]))
				usage();
			o->op = (enum op)k;
		} else if (!strcmp(a, "--size")) {
			o->size = (uint32_t)arg_num(argc, argv, &i, 1, 1 << 20);
		} else if (!strcmp(a, "--msgs")) {
			o->msgs = (int)arg_num(argc, argv, &i, 1, 1 << 24);
		} else if (!strcmp(a, "--qps")) {
			o->qps = (int)arg_num(argc, argv, &i, 1, 1 << 16);
		} else if (!strcmp(a, "--window")) {
			o->window = (int)arg_num(argc, argv, &i, 1, 4096);
		} else if (!strcmp(a, "--mtu")) {
			o->mtu = (int)arg_num(argc, argv, &i, 256, 4096);
		} else if (!strcmp(a, "--poll-batch")) {
			o->poll_batch = (int)arg_num(argc, argv, &i, 1, MAX_POLL);
		} else if (!strcmp(a, "--lat-reps")) {
			o->lat_reps = (int)arg_num(argc, argv, &i, 0, 1 << 20);
		} else if (!strcmp(a, "--inline")) {
			o->inl = 1;
		} else if (!strcmp(a, "--events")) {
			o->events = 1;
		} else if (!strcmp(a, "--cq-count")) {
			o->cq_count = (int)arg_num(argc, argv, &i, 0, 65535);
		} else if (!strcmp(a, "--cq-period")) {
			o->cq_period = (int)arg_num(argc, argv, &i, 0, 65535);
		} else if (!strcmp(a, "--event-timeout")) {
			o->event_timeout_us = (int)arg_num(argc, argv, &i, 1, 1000000);
		} else if (!strcmp(a, "--chain")) {
			o->chain = (int)arg_num(argc, argv, &i, 1, MAX_CHAIN);
		} else if (!strcmp(a, "--counters")) {
			o->counters = (int)arg_num(argc, argv, &i, 1, 4096);
		} else if (!strcmp(a, "--bg-read")) {
			o->bg_read = (uint32_t)arg_num(argc, argv, &i, 1, 1 << 20);
		} else if (!strcmp(a, "--both")) {
			o->both = 1;
		} else if (!strcmp(a, "--unsignaled")) {
			o->unsig = 1;
		} else if (!strcmp(a, "--kv")) {
			o->kv = 1;
		} else {
			usage();
		}
	}
	if (o->op == OP_FADD || o->op == OP_CSWAP)
		o->size = 8;
	else
		o->counters = 1;
	if (o->events && o->poll_batch < o->qps * o->window) {
		fprintf(stderr, "rnic_bench_op: --events needs --poll-batch >= --qps x --window\n");
		exit(2);
	}
	if (o->both && (o->events || o->bg_read)) {
		fprintf(stderr, "rnic_bench_op: --both goes without --events and --bg-read\n");
		exit(2);
	}
}

static enum ibv_mtu mtu_enum(int mtu)
{
	switch (mtu) {
	case 256: return IBV_MTU_256;
	case 512: return IBV_MTU_512;
	case 1024: return IBV_MTU_1024;
	case 2048: return IBV_MTU_2048;
	case 4096: return IBV_MTU_4096;
	}
	fprintf(stderr, "rnic_bench_op: --mtu %d: not 256, 512, 1024, 2048 or 4096\n", mtu);
	exit(2);
}

/* A receive on node n's QP q (into the buffer the other node sends to). */
static void post_recv(struct bench *b, int n, int q)
{
	struct ibv_sge sg = t_sge(n ? &b->dst : &b->dst1, 0, b->o.size);
	struct ibv_recv_wr wr = { .wr_id = (uint64_t)q, .sg_list = &sg, .num_sge = 1 };
	struct ibv_recv_wr *bad;

	CHECK_OK(ibv_post_recv(b->qp[n][q], &wr, &bad));
}

/* One send WR of the operation from node n (wr_id and next left to the
 * caller). */
static void post_fill(const struct bench *b, int n, struct ibv_send_wr *wr, struct ibv_sge *sg)
{
	const struct opts *o = &b->o;
	const struct t_buf *dst = n ? &b->dst1 : &b->dst;

	memset(wr, 0, sizeof(*wr));
	wr->sg_list = sg;
	wr->num_sge = 1;
	wr->send_flags = IBV_SEND_SIGNALED;
	if (o->inl && (o->op == OP_WRITE || o->op == OP_SEND))
		wr->send_flags |= IBV_SEND_INLINE;
	switch (o->op) {
	case OP_WRITE:
	case OP_READ:
		wr->opcode = o->op == OP_WRITE ? IBV_WR_RDMA_WRITE : IBV_WR_RDMA_READ;
		wr->wr.rdma.remote_addr = t_addr(dst, 0);
		wr->wr.rdma.rkey = dst->mr->rkey;
		break;
	case OP_SEND:
		wr->opcode = IBV_WR_SEND;
		break;
	case OP_FADD:
	case OP_CSWAP:
		wr->opcode = o->op == OP_FADD ? IBV_WR_ATOMIC_FETCH_AND_ADD :
						IBV_WR_ATOMIC_CMP_AND_SWP;
		wr->wr.atomic.remote_addr = t_addr(dst, 0);
		wr->wr.atomic.rkey = dst->mr->rkey;
		wr->wr.atomic.compare_add = o->op == OP_FADD ? 1 : 0;
		wr->wr.atomic.swap = 0;
		break;
	}
}

/* n WRs on node nd's QP q in one ibv_post_send call (a chain), wr_ids id0,
 * id0 + 1, ... */
static void post_chain_on(struct bench *b, int nd, int q, uint64_t id0, int n)
{
	struct ibv_sge sg = t_sge(nd ? &b->src1 : &b->src, 0, b->o.size);
	struct ibv_send_wr wrs[MAX_CHAIN], *bad;
	int rc, i;

	for (i = 0; i < n; i++) {
		post_fill(b, nd, &wrs[i], &sg);
		wrs[i].wr_id = id0 + (uint64_t)i;
		if (b->o.counters > 1)	/* the low half of a wr_id numbers the WR */
			wrs[i].wr.atomic.remote_addr +=
				8 * (WR_IDX(wrs[i].wr_id) % (uint32_t)b->o.counters);
		wrs[i].next = i + 1 < n ? &wrs[i + 1] : NULL;
		if (b->o.unsig && i + 1 < n)
			wrs[i].send_flags &= ~(unsigned int)IBV_SEND_SIGNALED;
		else if (b->o.unsig && n > 1)
			wrs[i].wr_id |= (uint64_t)n << 24;
	}
	rc = ibv_post_send(b->qp[nd][q], wrs, &bad);
	CHECKF(!rc, "ibv_post_send of %d WRs on rnic%d's QP %d returned %d", n, nd, q, rc);
	(nd ? b->out1 : b->out)[q] += n;
}

static void post(struct bench *b, int q, uint64_t wr_id)
{
	post_chain_on(b, 0, q, wr_id, 1);
}

/* SEND: node nd's receive completions, each replaced by a new receive. */
static void drain_recv_on(struct bench *b, int nd)
{
	struct ibv_wc wc[MAX_POLL];
	int n, i;

	n = ibv_poll_cq(nd ? b->rcq : b->rcq0, MAX_POLL, wc);
	CHECKF(n >= 0, "ibv_poll_cq (rnic%d's receives) returned %d", nd, n);
	for (i = 0; i < n; i++) {
		CHECKF(wc[i].status == IBV_WC_SUCCESS, "rnic%d's receive: %s", nd,
		       t_status_str(wc[i].status));
		CHECK_EQ(wc[i].byte_len, b->o.size);
		post_recv(b, nd, (int)wc[i].wr_id);
	}
}

static void drain_recv(struct bench *b)
{
	if (b->o.op != OP_SEND)
		return;
	drain_recv_on(b, 1);
	if (b->o.both && b->loading)
		drain_recv_on(b, 0);
}

static void check_wc(struct bench *b, const struct ibv_wc *wc)
{
	CHECKF(wc->status == IBV_WC_SUCCESS, "WR %" PRIu64 ": %s", wc->wr_id,
	       t_status_str(wc->status));
	if (b->o.op == OP_FADD)
		b->atomics += (uint64_t)WR_COV(wc->wr_id);
}

/* Polls the send CQ once; returns the completions (in wc). */
static int poll_send(struct bench *b, struct ibv_wc *wc, int max)
{
	int n = ibv_poll_cq(b->scq[0], max, wc), i;

	CHECKF(n >= 0, "ibv_poll_cq returned %d", n);
	for (i = 0; i < n; i++)
		check_wc(b, &wc[i]);
	drain_recv(b);
	return n;
}

/* Completions the interrupt-driven way (--events): wait for the CQ event
 * (ppoll on the channel's fd; simulated time runs until the interrupt),
 * take and acknowledge it, arm the CQ again, poll once. A completion the
 * hardware wrote after the previous arm reached it (the arm is a posted
 * MMIO write, 8 cycles) but that was not yet visible to that poll (25
 * cycles) raised no event and was not returned: the wait gives up after
 * --event-timeout microseconds of simulated time and polls anyway
 * (counted as timeouts). --poll-batch must be at least the completions
 * outstanding, so that one poll takes every one there. Without --events:
 * one poll. */
static int take_send(struct bench *b, struct ibv_wc *wc, int max)
{
	struct pollfd pfd = { .fd = b->ch ? b->ch->fd : -1, .events = POLLIN };
	struct timespec ts;
	struct ibv_cq *cq;
	void *cq_ctx;
	int r;

	if (!b->ch)
		return poll_send(b, wc, max);
	ts.tv_sec = b->o.event_timeout_us / 1000000;
	ts.tv_nsec = (long)(b->o.event_timeout_us % 1000000) * 1000;
	r = ppoll(&pfd, 1, &ts, NULL);
	CHECKF(r >= 0, "ppoll on the channel fd failed");
	if (r) {
		CHECK_OK(ibv_get_cq_event(b->ch, &cq, &cq_ctx));
		CHECK(cq == b->scq[0]);
		ibv_ack_cq_events(cq, 1);
		b->events++;
	} else {
		b->timeouts++;
	}
	CHECK_OK(ibv_req_notify_cq(b->scq[0], 0));
	return poll_send(b, wc, max);
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* Nearest-rank percentile of n sorted values. */
static uint64_t pct(const uint64_t *v, int n, double p)
{
	int k;

	if (!n)
		return 0;
	k = (int)(p / 100.0 * n + 0.999999);
	if (k < 1)
		k = 1;
	if (k > n)
		k = n;
	return v[k - 1];
}

struct result {
	uint64_t ul_min, ul_p50, ul_p99, ul_max;
	uint64_t total, first_done_at, last_done_at;
	double cpm_steady, rate_mpps, goodput_gbps, goodput_pct;
	uint64_t ll_p50, ll_p90, ll_p99, ll_max;
	double wall_s, sim_cps;
};

static void unloaded(struct bench *b, struct result *r)
{
	int i, n = b->o.lat_reps;

	for (i = 0; i < n; i++) {
		struct ibv_wc wc;
		uint64_t c0 = rnic_verbs_sim_cycle();
		long empty = 0;

		post(b, i % b->o.qps, (uint64_t)i);
		while (!take_send(b, &wc, 1))
			CHECKF(++empty < T_POLL_BOUND, "latency WR %d: no completion", i);
		b->lat[i] = rnic_verbs_sim_cycle() - c0;
		b->out[i % b->o.qps]--;
	}
	qsort(b->lat, (size_t)n, sizeof(b->lat[0]), cmp_u64);
	r->ul_min = n ? b->lat[0] : 0;
	r->ul_p50 = pct(b->lat, n, 50);
	r->ul_p99 = pct(b->lat, n, 99);
	r->ul_max = n ? b->lat[n - 1] : 0;
}

/* --bg-read: keep two READs outstanding; take what completed. */
static void bg_pump(struct bench *b)
{
	struct ibv_wc wc[2];
	int n, i;

	if (!b->bg_qp[0])
		return;
	n = ibv_poll_cq(b->bg_cq, 2, wc);
	CHECKF(n >= 0, "ibv_poll_cq (background): %d", n);
	for (i = 0; i < n; i++) {
		CHECKF(wc[i].status == IBV_WC_SUCCESS && wc[i].opcode == IBV_WC_RDMA_READ,
		       "background READ: status %s, opcode %s", t_status_str(wc[i].status),
		       t_opcode_str(wc[i].opcode));
		b->bg_out--;
		b->bg_done++;
	}
	while (b->bg_out < 2) {
		struct ibv_sge sg = t_sge(&b->bg_dst, 0, b->o.bg_read);

		POST_SEND(b->bg_qp[0], b->bg_done + (uint64_t)b->bg_out, IBV_WR_RDMA_READ,
			  IBV_SEND_SIGNALED, &sg, 1, t_addr(&b->bg_src, 0), b->bg_src.mr->rkey, 0);
		b->bg_out++;
	}
}

static void bg_drain(struct bench *b)
{
	long empty = 0;

	while (b->bg_qp[0] && b->bg_out) {
		struct ibv_wc wc;
		int n = ibv_poll_cq(b->bg_cq, 1, &wc);

		CHECKF(n >= 0, "ibv_poll_cq (background): %d", n);
		if (!n) {
			CHECKF(++empty < T_POLL_BOUND, "background READs: %d outstanding", b->bg_out);
			continue;
		}
		CHECKF(wc.status == IBV_WC_SUCCESS, "background READ: status %s",
		       t_status_str(wc.status));
		b->bg_out--;
		b->bg_done++;
	}
	if (b->bg_qp[0])
		CHECK_MEM(b->bg_dst.p, b->bg_src.p, b->o.bg_read);
}

/* Node nd's QP q posts chains (--chain) until its window is full or *posted
 * reaches the run's messages; post_at, if given, gets each WR's post cycle. */
static void refill(struct bench *b, int nd, int q, int *posted, uint64_t *post_at)
{
	const struct opts *o = &b->o;
	const int *out = nd ? b->out1 : b->out;

	while (out[q] < o->window && *posted < o->msgs) {
		int n = o->chain, k;

		if (n > o->window - out[q])
			n = o->window - out[q];
		if (n > o->msgs - *posted)
			n = o->msgs - *posted;
		for (k = 0; post_at && k < n; k++)
			post_at[*posted + k] = rnic_verbs_sim_cycle();
		post_chain_on(b, nd, q, ((uint64_t)q << 32) | (uint64_t)*posted, n);
		*posted += n;
	}
}

/* --both: rnic1's side of the loaded run: its QPs' windows refilled, its
 * send completions taken and checked. Returns the completions taken. */
static int pump1(struct bench *b)
{
	const struct opts *o = &b->o;
	struct ibv_wc wc[MAX_POLL];
	int q, n, i;

	for (q = 0; q < o->qps && b->posted1 < o->msgs; q++)
		refill(b, 1, q, &b->posted1, NULL);
	n = ibv_poll_cq(b->scq[1], o->poll_batch, wc);
	CHECKF(n >= 0, "ibv_poll_cq (rnic1's sends) returned %d", n);
	for (i = 0; i < n; i++) {
		int cov = WR_COV(wc[i].wr_id);

		CHECKF(wc[i].status == IBV_WC_SUCCESS, "rnic1's WR %" PRIu64 ": %s", wc[i].wr_id,
		       t_status_str(wc[i].status));
		b->out1[wc[i].wr_id >> 32] -= cov;
		if (o->op == OP_FADD)
			b->atomics1 += (uint64_t)cov;
		b->done1 += cov;
	}
	return n;
}

static void loaded(struct bench *b, struct result *r)
{
	const struct opts *o = &b->o;
	struct ibv_wc wc[MAX_POLL];
	int posted = 0, done = 0, done_at_first = 0, q = 0, i, got;
	uint64_t c0, now;
	long empty = 0;
	double w0;

	b->events = 0;
	b->timeouts = 0;
	b->loading = 1;
	c0 = rnic_verbs_sim_cycle();
	w0 = now_s();
	while (done < o->msgs || (o->both && b->done1 < o->msgs)) {
		int tries, n, n1 = 0;

		bg_pump(b);
		if (o->both)
			n1 = pump1(b);
		/* Round-robin: each QP gets its window refilled in turn. */
		for (tries = 0; tries < o->qps && posted < o->msgs; tries++) {
			refill(b, 0, q, &posted, b->post_at);
			q = (q + 1) % o->qps;
		}
		if (done < o->msgs) {
			n = take_send(b, wc, o->poll_batch);
		} else {
			n = 0;
			drain_recv(b);	/* --both: rnic0's receives */
		}
		if (!n) {
			CHECKF(n1 || ++empty < T_POLL_BOUND, "timeout: %d of %d done, rnic1 %d",
			       done, o->msgs, b->done1);
			continue;
		}
		now = rnic_verbs_sim_cycle();
		got = 0;
		for (i = 0; i < n; i++) {
			uint32_t k = WR_IDX(wc[i].wr_id);
			int cov = WR_COV(wc[i].wr_id), j;

			b->out[wc[i].wr_id >> 32] -= cov;
			/* A chain's WRs are numbered in a row, the signaled one last. */
			for (j = 0; j < cov; j++)
				b->lat[done + got++] = now - b->post_at[k - (uint32_t)j];
		}
		if (!done) {
			r->first_done_at = now;
			done_at_first = got;
		}
		done += got;
		r->last_done_at = now;
	}
	r->wall_s = now_s() - w0;
	r->total = rnic_verbs_sim_cycle() - c0;
	bg_drain(b);
	if (o->msgs > done_at_first && r->last_done_at > r->first_done_at)
		r->cpm_steady = (double)(r->last_done_at - r->first_done_at) /
				(o->msgs - done_at_first);
	else
		r->cpm_steady = (double)r->total / o->msgs;
	r->rate_mpps = CLOCK_MHZ / r->cpm_steady;
	r->goodput_gbps = (double)o->size * 8.0 * CLOCK_MHZ / 1000.0 / r->cpm_steady;
	r->goodput_pct = 100.0 * o->size / (r->cpm_steady * rnic_verbs_data_bits() / 8.0);
	r->sim_cps = r->wall_s > 0 ? (double)r->total / r->wall_s : 0.0;
	qsort(b->lat, (size_t)o->msgs, sizeof(b->lat[0]), cmp_u64);
	r->ll_p50 = pct(b->lat, o->msgs, 50);
	r->ll_p90 = pct(b->lat, o->msgs, 90);
	r->ll_p99 = pct(b->lat, o->msgs, 99);
	r->ll_max = b->lat[o->msgs - 1];
}

static void setup(struct bench *b)
{
	const struct opts *o = &b->o;
	struct ibv_device_attr da;
	union ibv_gid g[2];
	struct t_qp_caps caps;
	struct t_qp_attrs at;
	unsigned int access = T_MR_ACCESS | IBV_ACCESS_REMOTE_ATOMIC;
	int cqe, i, q;

	b->ctx[0] = t_open_device(T_DEV0);
	b->ctx[1] = t_open_device(T_DEV1);
	CHECK_OK(ibv_query_device(b->ctx[0], &da));
	CHECKF(o->qps <= da.max_qp, "--qps %d: the device has %d QPs", o->qps, da.max_qp);
	cqe = o->qps * o->window;
	CHECKF(cqe <= da.max_cqe, "--qps x --window = %d: above max_cqe %d", cqe, da.max_cqe);
	CHECKF(o->window <= da.max_qp_wr, "--window %d: above max_qp_wr %d", o->window,
	       da.max_qp_wr);
	t_qp_default_attrs(&at);
	at.access |= IBV_ACCESS_REMOTE_ATOMIC;
	at.max_rd_atomic = (uint8_t)(da.max_qp_rd_atom < 255 ? da.max_qp_rd_atom : 255);
	at.max_dest_rd_atomic = at.max_rd_atomic;
	memset(&caps, 0, sizeof(caps));
	caps.max_send_wr = (uint32_t)o->window;
	caps.max_recv_wr = o->op == OP_SEND ? (uint32_t)o->window : 1;
	caps.max_send_sge = 1;
	caps.max_recv_sge = 1;
	caps.max_inline_data = o->inl ? o->size : 0;
	for (i = 0; i < 2; i++) {
		b->pd[i] = CHECK_PTR(ibv_alloc_pd(b->ctx[i]));
		if (!i && o->events)
			b->ch = CHECK_PTR(ibv_create_comp_channel(b->ctx[0]));
		b->scq[i] = t_create_cq_ch(b->ctx[i], cqe, i ? NULL : b->ch, NULL);
		b->qp[i] = calloc((size_t)o->qps, sizeof(*b->qp[i]));
		CHECK(b->qp[i] != NULL);
	}
	b->rcq = t_create_cq_ch(b->ctx[1], cqe, NULL, NULL);
	if (o->both)
		b->rcq0 = t_create_cq_ch(b->ctx[0], cqe, NULL, NULL);
	if (o->cq_count || o->cq_period) {
		struct ibv_modify_cq_attr ma;

		memset(&ma, 0, sizeof(ma));
		ma.attr_mask = IBV_CQ_ATTR_MODERATE;
		ma.moderate.cq_count = (uint16_t)o->cq_count;
		ma.moderate.cq_period = (uint16_t)o->cq_period;
		CHECK_OK(ibv_modify_cq(b->scq[0], &ma));
	}
	if (b->ch)
		CHECK_OK(ibv_req_notify_cq(b->scq[0], 0));
	for (q = 0; q < o->qps; q++) {
		b->qp[0][q] = t_create_qp(b->pd[0], b->scq[0], o->both ? b->rcq0 : b->scq[0],
					  IBV_QPT_RC, 0, &caps, NULL);
		b->qp[1][q] = t_create_qp(b->pd[1], b->scq[1], b->rcq, IBV_QPT_RC, 0,
					  &caps, NULL);
	}
	t_query_gid(b->ctx[0], &g[0]);
	t_query_gid(b->ctx[1], &g[1]);
	for (q = 0; q < o->qps; q++) {
		t_qp_to_rts_attrs(b->qp[0][q], mtu_enum(o->mtu), &g[1], b->qp[1][q]->qp_num,
				  0x100, 0x200, &at);
		t_qp_to_rts_attrs(b->qp[1][q], mtu_enum(o->mtu), &g[0], b->qp[0][q]->qp_num,
				  0x200, 0x100, &at);
	}
	t_buf_alloc_access(&b->src, b->pd[0], o->size, access);
	t_buf_alloc_access(&b->dst, b->pd[1], o->size * (uint32_t)o->counters, access);
	t_fill(b->src.p, o->size, 0x5eed + o->size);
	memset(b->dst.p, 0, o->size * (uint32_t)o->counters);
	if (o->op == OP_READ)
		memcpy(b->dst.p, b->src.p, o->size), memset(b->src.p, 0, o->size);
	if (o->both) {
		t_buf_alloc_access(&b->src1, b->pd[1], o->size, access);
		t_buf_alloc_access(&b->dst1, b->pd[0], o->size * (uint32_t)o->counters, access);
		t_fill(b->src1.p, o->size, 0x6eed + o->size);
		memset(b->dst1.p, 0, o->size * (uint32_t)o->counters);
		if (o->op == OP_READ)
			memcpy(b->dst1.p, b->src1.p, o->size), memset(b->src1.p, 0, o->size);
	}
	if (o->op == OP_SEND)
		for (q = 0; q < o->qps; q++)
			for (i = 0; i < o->window; i++) {
				post_recv(b, 1, q);
				if (o->both)
					post_recv(b, 0, q);
			}
	b->post_at = calloc((size_t)o->msgs, sizeof(*b->post_at));
	b->lat = calloc((size_t)(o->msgs > o->lat_reps ? o->msgs : o->lat_reps) + 1,
			sizeof(*b->lat));
	b->out = calloc((size_t)o->qps, sizeof(*b->out));
	b->out1 = calloc((size_t)o->qps, sizeof(*b->out1));
	CHECK(b->post_at && b->lat && b->out && b->out1);
	if (o->bg_read) {
		struct t_qp_caps bc = caps;

		bc.max_send_wr = 2;
		bc.max_inline_data = 0;
		b->bg_cq = t_create_cq_ch(b->ctx[0], 4, NULL, NULL);
		b->bg_qp[0] = t_create_qp(b->pd[0], b->bg_cq, b->bg_cq, IBV_QPT_RC, 0, &bc, NULL);
		b->bg_qp[1] = t_create_qp(b->pd[1], b->scq[1], b->rcq, IBV_QPT_RC, 0, &bc, NULL);
		t_qp_to_rts_attrs(b->bg_qp[0], mtu_enum(o->mtu), &g[1], b->bg_qp[1]->qp_num,
				  0x300, 0x400, &at);
		t_qp_to_rts_attrs(b->bg_qp[1], mtu_enum(o->mtu), &g[0], b->bg_qp[0]->qp_num,
				  0x400, 0x300, &at);
		t_buf_alloc_access(&b->bg_src, b->pd[1], o->bg_read, access);
		t_buf_alloc_access(&b->bg_dst, b->pd[0], o->bg_read, access);
		t_fill(b->bg_src.p, o->bg_read, 0xb6);
	}
}

/* The bytes of one direction: src (the sender's), dst (the receiver's). */
static void check_dir(const struct bench *b, const struct t_buf *src, const struct t_buf *dst,
		      uint64_t atomics)
{
	switch (b->o.op) {
	case OP_WRITE:
	case OP_SEND:
		CHECK_MEM(dst->p, src->p, b->o.size);
		break;
	case OP_READ:
		CHECK_MEM(src->p, dst->p, b->o.size);
		break;
	case OP_FADD:
	case OP_CSWAP: {
		uint64_t v, sum = 0;
		int k;

		for (k = 0; k < b->o.counters; k++) {
			memcpy(&v, (const char *)dst->p + 8 * k, 8);
			sum += v;
		}
		CHECK_EQ(sum, b->o.op == OP_FADD ? atomics : 0);
		break;
	}
	}
}

static void check_data(struct bench *b)
{
	check_dir(b, &b->src, &b->dst, b->atomics);
	if (b->o.both) {
		CHECK_EQ(b->done1, b->o.msgs);
		check_dir(b, &b->src1, &b->dst1, b->atomics1);
	}
}

static void teardown(struct bench *b)
{
	int i, q;

	for (q = 0; q < b->o.qps; q++)
		for (i = 0; i < 2; i++)
			CHECK_OK(ibv_destroy_qp(b->qp[i][q]));
	if (b->bg_qp[0]) {
		CHECK_OK(ibv_destroy_qp(b->bg_qp[0]));
		CHECK_OK(ibv_destroy_qp(b->bg_qp[1]));
		CHECK_OK(ibv_destroy_cq(b->bg_cq));
		t_buf_free(&b->bg_src);
		t_buf_free(&b->bg_dst);
	}
	t_buf_free(&b->src);
	t_buf_free(&b->dst);
	if (b->o.both) {
		t_buf_free(&b->src1);
		t_buf_free(&b->dst1);
		CHECK_OK(ibv_destroy_cq(b->rcq0));
	}
	CHECK_OK(ibv_destroy_cq(b->rcq));
	for (i = 0; i < 2; i++) {
		CHECK_OK(ibv_destroy_cq(b->scq[i]));
		CHECK_OK(ibv_dealloc_pd(b->pd[i]));
		if (!i && b->ch)
			CHECK_OK(ibv_destroy_comp_channel(b->ch));
		CHECK_OK(ibv_close_device(b->ctx[i]));
		free(b->qp[i]);
	}
	free(b->post_at);
	free(b->lat);
	free(b->out);
	free(b->out1);
}

int main(int argc, char **argv)
{
	struct bench b;
	struct result r;
	const struct opts *o = &b.o;

	memset(&b, 0, sizeof(b));
	memset(&r, 0, sizeof(r));
	parse(argc, argv, &b.o);
	setup(&b);
	unloaded(&b, &r);
	loaded(&b, &r);
	check_data(&b);

	if (o->kv) {
		printf("op=%s size=%u msgs=%d qps=%d window=%d mtu=%d poll_batch=%d inline=%d "
		       "chain=%d data_bits=%u lat_min=%" PRIu64 " lat_p50=%" PRIu64 " lat_p99=%" PRIu64
		       " lat_max=%" PRIu64 " cycles=%" PRIu64 " cycles_per_msg=%.3f "
		       "msg_rate_mpps=%.4f goodput_gbps=%.4f goodput_pct=%.3f "
		       "load_lat_p50=%" PRIu64 " load_lat_p90=%" PRIu64 " load_lat_p99=%" PRIu64
		       " load_lat_max=%" PRIu64 " events=%" PRIu64 " events_per_msg=%.4f"
		       " event_timeouts=%" PRIu64
		       " cq_count=%d cq_period=%d counters=%d bg_read=%u bg_reads=%" PRIu64
		       " both=%d unsignaled=%d sim_cycle_end=%" PRIu64 " sim_cps=%.4g\n",
		       op_names[o->op], o->size, o->msgs, o->qps, o->window, o->mtu,
		       o->poll_batch, o->inl, o->chain, rnic_verbs_data_bits(), r.ul_min, r.ul_p50,
		       r.ul_p99, r.ul_max, r.total, r.cpm_steady, r.rate_mpps,
		       r.goodput_gbps, r.goodput_pct, r.ll_p50, r.ll_p90, r.ll_p99, r.ll_max,
		       b.events, (double)b.events / o->msgs, b.timeouts, o->cq_count, o->cq_period,
		       o->counters, o->bg_read, b.bg_done, o->both, o->unsig, rnic_verbs_sim_cycle(),
		       r.sim_cps);
	} else {
		printf("## %s %u B rnic0 %s rnic1: %d QPs, window %d, path MTU %d, poll batch %d%s, datapath %u bits\n\n",
		       op_names[o->op], o->size, o->both ? "<->" : "->", o->qps, o->window, o->mtu, o->poll_batch,
		       o->inl ? ", inline" : "", rnic_verbs_data_bits());
		printf("| post->CQE unloaded min/p50/p99/max | msgs | total cycles | cycles/msg (steady) | Mmsg/s | Gbit/s | %% of datapath peak | post->poll loaded p50/p90/p99/max | sim cycles/s (wall) |\n");
		printf("|---|---:|---:|---:|---:|---:|---:|---|---:|\n");
		printf("| %" PRIu64 " / %" PRIu64 " / %" PRIu64 " / %" PRIu64 " | %d | %" PRIu64
		       " | %.2f | %.2f | %.2f | %.2f | %" PRIu64 " / %" PRIu64 " / %" PRIu64
		       " / %" PRIu64 " | %.3g |\n",
		       r.ul_min, r.ul_p50, r.ul_p99, r.ul_max, o->msgs, r.total, r.cpm_steady,
		       r.rate_mpps, r.goodput_gbps, r.goodput_pct, r.ll_p50, r.ll_p90, r.ll_p99,
		       r.ll_max, r.sim_cps);
		if (o->both)
			printf("\nBoth ways: rnic1 -> rnic0 ran the same %d messages at the same time; "
			       "%" PRIu64 " cycles until both were done: %.2f cycles per message each way\n",
			       o->msgs, r.total, (double)r.total / o->msgs);
		if (o->bg_read)
			printf("\nBeside it: %" PRIu64 " READs of %u bytes from rnic1 (two outstanding)\n",
			       b.bg_done, o->bg_read);
		if (o->events)
			printf("\n%" PRIu64 " CQ events (interrupts) for %d messages: %.3f per message; "
			       "%" PRIu64 " waits timed out; moderation count %d, period %d us\n",
			       b.events, o->msgs, (double)b.events / o->msgs, b.timeouts,
			       o->cq_count, o->cq_period);
	}
	teardown(&b);
	return 0;
}
