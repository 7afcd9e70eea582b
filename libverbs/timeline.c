// SPDX-License-Identifier: MIT
/*
 * timeline.c - per-WR cycle timeline, on when RNIC_TIMELINE is set.
 *
 *   RNIC_TIMELINE=1 or stderr   table on stderr
 *   RNIC_TIMELINE=stdout        table on stdout
 *   RNIC_TIMELINE=<path>        table written to the file <path>
 *   RNIC_TIMELINE_MAX=<n>       keep at most n records (default 1000000)
 *
 * For every WR the library records the cycle it was posted (rnic_sim_cycle()
 * in ibv_post_send/ibv_post_recv); the RTL trace events (through
 * rnic_sim_set_event_cb) add the cycle its send WQE was fetched, its first
 * and last packet went to the wire and its CQE was written; ibv_poll_cq adds
 * the cycle it returned the completion. ibv_close_device() prints the table
 * of that context's WRs, and an atexit handler prints whatever is left.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rnic_verbs.h"

#define RV_TL_NONE	UINT64_MAX
#define RV_TL_NS_PER_CYCLE	4	/* 250 MHz nominal core clock */

struct rv_tl_rec {
	uint64_t posted;
	uint64_t fetched;
	uint64_t first_tx;
	uint64_t last_tx;
	uint64_t cqe;
	uint64_t polled;
	uint64_t bytes;
	struct rv_context *ctx;
	uint32_t qpn;
	uint16_t idx;
	uint8_t node;
	uint8_t op;
	uint8_t printed;
};

int rv_tl_enabled;

static struct rnic_sim *rv_tl_sim;
static struct rv_tl_rec *rv_tl_recs;
static uint32_t rv_tl_n, rv_tl_cap, rv_tl_max = 1000000;
static uint64_t rv_tl_dropped;
static const char *rv_tl_dest;
static FILE *rv_tl_file;

static const char *const rv_tl_op_name[] = {
	[RV_TL_SEND] = "SEND",
	[RV_TL_SEND_IMM] = "SEND_IMM",
	[RV_TL_WRITE] = "WRITE",
	[RV_TL_WRITE_IMM] = "WRITE_IMM",
	[RV_TL_READ] = "READ",
	[RV_TL_RECV] = "RECV",
};

static struct rv_tl_rec *rv_tl_lookup(struct rv_wq *wq, uint16_t idx)
{
	uint32_t r;

	if (!wq->tl)
		return NULL;
	r = wq->tl[idx & wq->mask];
	if (!r || rv_tl_recs[r - 1].idx != idx)
		return NULL;
	return &rv_tl_recs[r - 1];
}

static void rv_tl_event(void *arg, unsigned int node, unsigned int kind,
			uint32_t qpn, uint32_t wqe_idx, uint64_t cycle)
{
	struct rv_context *ctx;

	(void)arg;
	for (ctx = rv_contexts; ctx; ctx = ctx->next) {
		struct rv_tl_rec *rec;
		struct rv_qp *qp;

		if (ctx->node != node || qpn >= ctx->qp_table_size)
			continue;
		qp = ctx->qp_table[qpn];
		if (!qp)
			continue;
		rec = rv_tl_lookup(kind == RNIC_EV_RECV_CQE ? &qp->rq : &qp->sq,
				   (uint16_t)wqe_idx);
		if (!rec)
			continue;
		switch (kind) {
		case RNIC_EV_WQE_FETCHED:
			if (rec->fetched == RV_TL_NONE)
				rec->fetched = cycle;
			break;
		case RNIC_EV_TX_FIRST:
			if (rec->first_tx == RV_TL_NONE)
				rec->first_tx = cycle;
			break;
		case RNIC_EV_TX_LAST:
			rec->last_tx = cycle;	/* the last one, after retries */
			break;
		case RNIC_EV_SEND_CQE:
		case RNIC_EV_RECV_CQE:
			if (rec->cqe == RV_TL_NONE)
				rec->cqe = cycle;
			break;
		default:
			break;
		}
	}
}

static FILE *rv_tl_stream(void)
{
	if (!strcmp(rv_tl_dest, "1") || !strcmp(rv_tl_dest, "stderr"))
		return stderr;
	if (!strcmp(rv_tl_dest, "stdout"))
		return stdout;
	if (!rv_tl_file) {
		rv_tl_file = fopen(rv_tl_dest, "w");
		if (!rv_tl_file) {
			fprintf(stderr, "rnic: cannot write timeline to %s; using stderr\n",
				rv_tl_dest);
			rv_tl_dest = "stderr";
			return stderr;
		}
	}
	return rv_tl_file;
}

static void rv_tl_cell(FILE *f, uint64_t v)
{
	if (v == RV_TL_NONE)
		fprintf(f, " %10s", "-");
	else
		fprintf(f, " %10llu", (unsigned long long)v);
}

/* Print the records of @ctx (all remaining ones if NULL). */
static void rv_tl_print(struct rv_context *ctx)
{
	struct {
		uint64_t n, min, max, sum;
	} sum[RV_TL_RECV + 1];
	uint32_t i, count = 0;
	FILE *f;

	for (i = 0; i < rv_tl_n; i++)
		if (!rv_tl_recs[i].printed && (!ctx || rv_tl_recs[i].ctx == ctx))
			count++;
	if (!count)
		return;

	memset(sum, 0, sizeof(sum));
	f = rv_tl_stream();
	if (ctx)
		fprintf(f, "# rnic timeline: %s (node %u), %u WRs",
			ctx->vctx.context.device->name, ctx->node, count);
	else
		fprintf(f, "# rnic timeline: %u WRs", count);
	fprintf(f, "; cycles of the %u MHz core clock, '-' = no such event\n",
		1000 / RV_TL_NS_PER_CYCLE);
	if (rv_tl_dropped)
		fprintf(f, "# %llu WRs not recorded (RNIC_TIMELINE_MAX=%u)\n",
			(unsigned long long)rv_tl_dropped, rv_tl_max);
	fprintf(f, "# %4s %8s %5s %-9s %10s %10s %10s %10s %10s %10s %10s %10s %10s\n",
		"node", "qpn", "wqe", "opcode", "bytes", "posted", "fetched",
		"first_tx", "last_tx", "cqe", "polled", "post->cqe", "ns");
	for (i = 0; i < rv_tl_n; i++) {
		struct rv_tl_rec *r = &rv_tl_recs[i];

		if (r->printed || (ctx && r->ctx != ctx))
			continue;
		r->printed = 1;
		fprintf(f, "  %4u %8u %5u %-9s %10llu", r->node, r->qpn, r->idx,
			rv_tl_op_name[r->op], (unsigned long long)r->bytes);
		rv_tl_cell(f, r->posted);
		rv_tl_cell(f, r->fetched);
		rv_tl_cell(f, r->first_tx);
		rv_tl_cell(f, r->last_tx);
		rv_tl_cell(f, r->cqe);
		rv_tl_cell(f, r->polled);
		if (r->cqe != RV_TL_NONE && r->cqe >= r->posted) {
			uint64_t lat = r->cqe - r->posted;

			rv_tl_cell(f, lat);
			rv_tl_cell(f, lat * RV_TL_NS_PER_CYCLE);
			if (!sum[r->op].n || lat < sum[r->op].min)
				sum[r->op].min = lat;
			if (lat > sum[r->op].max)
				sum[r->op].max = lat;
			sum[r->op].sum += lat;
			sum[r->op].n++;
		} else {
			rv_tl_cell(f, RV_TL_NONE);
			rv_tl_cell(f, RV_TL_NONE);
		}
		fputc('\n', f);
	}
	fprintf(f, "# post->cqe cycles by opcode: %-9s %8s %10s %10s %10s\n",
		"opcode", "n", "min", "avg", "max");
	for (i = 0; i <= RV_TL_RECV; i++) {
		if (!sum[i].n)
			continue;
		fprintf(f, "#                             %-9s %8llu %10llu %10llu %10llu\n",
			rv_tl_op_name[i], (unsigned long long)sum[i].n,
			(unsigned long long)sum[i].min,
			(unsigned long long)(sum[i].sum / sum[i].n),
			(unsigned long long)sum[i].max);
	}
	fflush(f);
}

static void rv_tl_atexit(void)
{
	rnic_lock();
	rv_tl_print(NULL);
	if (rv_tl_file) {
		fclose(rv_tl_file);
		rv_tl_file = NULL;
	}
	rnic_unlock();
}

void rv_tl_setup(struct rnic_sim *sim)
{
	const char *e = getenv("RNIC_TIMELINE");
	const char *m = getenv("RNIC_TIMELINE_MAX");

	if (rv_tl_enabled || !e || !*e || !strcmp(e, "0"))
		return;
	rv_tl_dest = e;
	if (m && *m)
		rv_tl_max = (uint32_t)strtoul(m, NULL, 0);
	rv_tl_sim = sim;
	rnic_sim_set_event_cb(sim, rv_tl_event, NULL);
	atexit(rv_tl_atexit);
	rv_tl_enabled = 1;
}

int rv_tl_qp_init(struct rv_qp *qp)
{
	if (!rv_tl_enabled)
		return 0;
	qp->sq.tl = calloc(qp->sq.entries, sizeof(*qp->sq.tl));
	qp->rq.tl = calloc(qp->rq.entries, sizeof(*qp->rq.tl));
	if (!qp->sq.tl || !qp->rq.tl) {
		rv_tl_qp_fini(qp);
		return ENOMEM;
	}
	return 0;
}

void rv_tl_qp_fini(struct rv_qp *qp)
{
	free(qp->sq.tl);
	free(qp->rq.tl);
	qp->sq.tl = NULL;
	qp->rq.tl = NULL;
}

void rv_tl_post(struct rv_qp *qp, struct rv_wq *wq, uint16_t idx,
		enum rv_tl_op op, uint64_t bytes)
{
	struct rv_tl_rec *r;

	if (!wq->tl)
		return;
	wq->tl[idx & wq->mask] = 0;
	if (rv_tl_n >= rv_tl_max) {
		rv_tl_dropped++;
		return;
	}
	if (rv_tl_n == rv_tl_cap) {
		uint32_t cap = rv_tl_cap ? 2 * rv_tl_cap : 1024;
		struct rv_tl_rec *n = realloc(rv_tl_recs, (size_t)cap * sizeof(*n));

		if (!n) {
			rv_tl_dropped++;
			return;
		}
		rv_tl_recs = n;
		rv_tl_cap = cap;
	}
	r = &rv_tl_recs[rv_tl_n];
	r->posted = rnic_sim_cycle(qp->ctx->sim);
	r->fetched = RV_TL_NONE;
	r->first_tx = RV_TL_NONE;
	r->last_tx = RV_TL_NONE;
	r->cqe = RV_TL_NONE;
	r->polled = RV_TL_NONE;
	r->bytes = bytes;
	r->ctx = qp->ctx;
	r->qpn = qp->hw.qpn;
	r->idx = idx;
	r->node = qp->ctx->node;
	r->op = op;
	r->printed = 0;
	wq->tl[idx & wq->mask] = ++rv_tl_n;
}

void rv_tl_polled(struct rv_wq *wq, uint16_t idx)
{
	struct rv_tl_rec *r = rv_tl_lookup(wq, idx);

	if (r && r->polled == RV_TL_NONE)
		r->polled = rnic_sim_cycle(rv_tl_sim);
}

void rv_tl_ctx_close(struct rv_context *ctx)
{
	if (!rv_tl_enabled)
		return;
	rv_tl_print(ctx);
	/* Records of a closed context can no longer be found by events. */
	for (uint32_t i = 0; i < rv_tl_n; i++)
		if (rv_tl_recs[i].ctx == ctx)
			rv_tl_recs[i].ctx = NULL;
}
