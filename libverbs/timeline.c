// SPDX-License-Identifier: MIT
/*
 * timeline.c - per-WR cycle timeline, on when RNIC_TIMELINE or
 * RNIC_TIMELINE_JSON is set (docs/observability.md).
 *
 *   RNIC_TIMELINE=1 or stderr   table and summary on stderr
 *   RNIC_TIMELINE=stdout        table and summary on stdout
 *   RNIC_TIMELINE=<path>        table and summary written to the file <path>
 *   RNIC_TIMELINE_JSON=<path>   Chrome/Perfetto trace JSON of every WR at exit
 *   RNIC_TIMELINE_MAX=<n>       keep at most n records (default 1000000)
 *
 * For every WR the library records the cycle it was posted (rnic_sim_cycle()
 * in ibv_post_send/ibv_post_recv) and ibv_poll_cq the cycle it returned the
 * completion. The model's events (rnic_sim_set_event_cb) fill in the rest:
 * the RTL's trace ports give WQE fetched, first/last packet to the wire and
 * CQE written; the model's port monitor gives the doorbell taken by the RTL,
 * the payload DMA of the first packet (reads issued, last beat returned; for
 * a READ the responder's reads for its first response), the first/last packet
 * taken by the peer's RX, the ACK (or NAK, or last READ response) back at the
 * requester, and for a receive WR the arrival of the message that consumed
 * it. ibv_close_device() prints the table of that
 * context's WRs, and an atexit handler prints whatever is left and writes the
 * JSON file.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rnic_verbs.h"
#include "rnic_verbs_ext.h"

#define RV_TL_NONE	UINT64_MAX
#define RV_TL_NS_PER_CYCLE	4	/* 250 MHz nominal core clock */
#define RV_TL_NOPS	(RV_TL_RECV + 1)
#define RV_TL_RXQ_BUCKETS	256
#define RV_TL_RXQ_MAX	4096	/* arrivals kept per QP before the oldest go */

/* Stamps of a WR, in the order of its life. A receive WR has posted, db,
 * arr_first/arr_last (its message arriving here), cqe and polled. */
enum rv_tl_stamp {
	TL_POSTED,
	TL_DB,		/* doorbell taken by the RTL */
	TL_FETCHED,	/* send WQE fetched */
	TL_DMA_ISSUED,	/* first payload read of the first packet issued (READ:
			 * the responder's, for its first response) */
	TL_DMA_RETURNED,	/* last beat of that packet's payload reads returned */
	TL_FIRST_TX,	/* first packet handed to the wire */
	TL_LAST_TX,	/* last packet handed to the wire */
	TL_ARR_FIRST,	/* first packet taken by the peer's RX (receive WR: by ours) */
	TL_ARR_LAST,	/* last packet taken by the peer's RX (receive WR: by ours) */
	TL_PLACE_FIRST,	/* payload placement of the first packet started at the
			 * responder (READ: of the first response, at ours) */
	TL_PLACE_LAST,	/* placement of the last packet handed its last write */
	TL_ACKED,	/* ACK/NAK/last READ response taken by our RX */
	TL_CQE,		/* CQE written */
	TL_POLLED,	/* returned by ibv_poll_cq */
	TL_NSTAMPS,
};

static const char *const rv_tl_stamp_name[TL_NSTAMPS] = {
	"posted", "db", "fetched", "dma_issued", "dma_returned", "first_tx", "last_tx",
	"arr_first", "arr_last", "place_first", "place_last", "acked", "cqe", "polled",
};

/* Width of a stamp's column in the table. */
static int rv_tl_width(unsigned int s)
{
	int w = (int)strlen(rv_tl_stamp_name[s]);

	return w > 9 ? w : 9;
}

struct rv_tl_rec {
	uint64_t t[TL_NSTAMPS];
	uint64_t bytes;
	struct rv_context *ctx;
	uint32_t qpn;
	uint16_t idx;
	uint8_t node;
	uint8_t peer;	/* node of the destination QP */
	uint8_t op;
	uint8_t tr;	/* transport: 0 RC, 1 UC, 2 UD (UC and UD: no ACK) */
	uint8_t printed;
};

/* A FIFO of pairs that grows by doubling (cap: a power of two). */
struct rv_tl_fifo {
	uint32_t head, tail, cap;
	uint64_t (*a)[2];
};

/* Per (node, QPN): arrivals of messages that consume receive WQEs and
 * receive WRs whose CQE came first, matched in order (RC completes receive
 * WQEs in the order the messages arrive; the model reports an arrival when
 * the responder acknowledges it, which may be after the CQE). */
struct rv_tl_rxq {
	struct rv_tl_rxq *next;
	uint32_t key;
	uint64_t pend_first;
	struct rv_tl_fifo arr;		/* {first, last} cycles */
	struct rv_tl_fifo recs;		/* {record index, -} */
};

int rv_tl_enabled;

static struct rnic_sim *rv_tl_sim;
static struct rv_tl_rec *rv_tl_recs;
static uint32_t rv_tl_n, rv_tl_cap, rv_tl_max = 1000000;
static uint64_t rv_tl_dropped;
static const char *rv_tl_dest;
static const char *rv_tl_json;
static FILE *rv_tl_file;
static struct rv_tl_rxq *rv_tl_rxqs[RV_TL_RXQ_BUCKETS];

static const char *const rv_tl_op_name[RV_TL_NOPS] = {
	[RV_TL_SEND] = "SEND",
	[RV_TL_SEND_IMM] = "SEND_IMM",
	[RV_TL_WRITE] = "WRITE",
	[RV_TL_WRITE_IMM] = "WRITE_IMM",
	[RV_TL_READ] = "READ",
	[RV_TL_CMP_SWAP] = "CMP_SWAP",
	[RV_TL_FETCH_ADD] = "FETCH_ADD",
	[RV_TL_SEND_INV] = "SEND_INV",
	[RV_TL_LOCAL_INV] = "LOCAL_INV",
	[RV_TL_BIND_MW] = "BIND_MW",
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

static struct rv_qp *rv_tl_qp(unsigned int node, uint32_t qpn)
{
	struct rv_context *ctx;

	for (ctx = rv_contexts; ctx; ctx = ctx->next)
		if (ctx->node == node && qpn < ctx->qp_table_size && ctx->qp_table[qpn])
			return ctx->qp_table[qpn];
	return NULL;
}

/* ---- arrivals of receive-consuming messages ---- */

static struct rv_tl_rxq *rv_tl_rxq_get(unsigned int node, uint32_t qpn, int create)
{
	uint32_t key = (uint32_t)node << 24 | qpn;
	struct rv_tl_rxq **b = &rv_tl_rxqs[(key ^ key >> 8) % RV_TL_RXQ_BUCKETS];
	struct rv_tl_rxq *q;

	for (q = *b; q; q = q->next)
		if (q->key == key)
			return q;
	if (!create)
		return NULL;
	q = calloc(1, sizeof(*q));
	if (!q)
		return NULL;
	q->key = key;
	q->pend_first = RV_TL_NONE;
	q->next = *b;
	*b = q;
	return q;
}

static void rv_tl_fifo_push(struct rv_tl_fifo *q, uint64_t x, uint64_t y)
{
	if (q->tail - q->head == q->cap) {
		uint32_t cap = q->cap ? 2 * q->cap : 8, i;
		uint64_t (*a)[2];

		if (cap > RV_TL_RXQ_MAX) {
			q->head++;	/* never matched: drop the oldest */
		} else {
			a = malloc(cap * sizeof(*a));
			if (!a)
				return;
			for (i = 0; i < q->tail - q->head; i++)
				memcpy(a[i], q->a[(q->head + i) & (q->cap - 1)], sizeof(*a));
			free(q->a);
			q->a = a;
			q->tail -= q->head;
			q->head = 0;
			q->cap = cap;
		}
	}
	q->a[q->tail & (q->cap - 1)][0] = x;
	q->a[q->tail & (q->cap - 1)][1] = y;
	q->tail++;
}

/* The oldest pair, or NULL. */
static uint64_t *rv_tl_fifo_pop(struct rv_tl_fifo *q)
{
	if (q->tail == q->head)
		return NULL;
	return q->a[q->head++ & (q->cap - 1)];
}

static void rv_tl_set_first(struct rv_tl_rec *r, enum rv_tl_stamp s, uint64_t cycle);

static void rv_tl_arrived(struct rv_tl_rec *r, const uint64_t *a)
{
	rv_tl_set_first(r, TL_ARR_FIRST, a[0]);
	rv_tl_set_first(r, TL_ARR_LAST, a[1]);
}

static void rv_tl_rxq_free(unsigned int node, uint32_t qpn)
{
	uint32_t key = (uint32_t)node << 24 | qpn;
	struct rv_tl_rxq **p = &rv_tl_rxqs[(key ^ key >> 8) % RV_TL_RXQ_BUCKETS];

	for (; *p; p = &(*p)->next) {
		if ((*p)->key == key) {
			struct rv_tl_rxq *q = *p;

			*p = q->next;
			free(q->arr.a);
			free(q->recs.a);
			free(q);
			return;
		}
	}
}

/* ---- events ---- */

static void rv_tl_set_first(struct rv_tl_rec *r, enum rv_tl_stamp s, uint64_t cycle)
{
	if (r && r->t[s] == RV_TL_NONE)
		r->t[s] = cycle;
}

/* A doorbell with producer index @pi covers the WRs before it not yet seen. */
static void rv_tl_doorbell(struct rv_wq *wq, uint16_t pi, uint64_t cycle)
{
	uint32_t n;

	for (n = 0; n < wq->entries; n++) {
		struct rv_tl_rec *r = rv_tl_lookup(wq, (uint16_t)(pi - 1 - n));

		if (!r || r->t[TL_DB] != RV_TL_NONE)
			break;
		r->t[TL_DB] = cycle;
	}
}

static void rv_tl_event(void *arg, unsigned int node, unsigned int kind,
			uint32_t qpn, uint32_t wqe_idx, uint64_t cycle)
{
	struct rv_tl_rxq *rxq;
	struct rv_tl_rec *r;
	struct rv_qp *qp;
	uint16_t idx = (uint16_t)wqe_idx;

	(void)arg;
	if (kind == RNIC_EV_RECV_FIRST || kind == RNIC_EV_RECV_LAST) {
		rxq = rv_tl_rxq_get(node, qpn, 1);
		if (!rxq)
			return;
		if (kind == RNIC_EV_RECV_FIRST) {
			rxq->pend_first = cycle;
		} else {
			uint64_t a[2] = { rxq->pend_first, cycle };
			uint64_t *w = rv_tl_fifo_pop(&rxq->recs);

			if (w)
				rv_tl_arrived(&rv_tl_recs[w[0]], a);
			else
				rv_tl_fifo_push(&rxq->arr, a[0], a[1]);
			rxq->pend_first = RV_TL_NONE;
		}
		return;
	}
	qp = rv_tl_qp(node, qpn);
	if (!qp)
		return;
	switch (kind) {
	case RNIC_EV_SQ_DB:
		rv_tl_doorbell(&qp->sq, idx, cycle);
		return;
	case RNIC_EV_RQ_DB:
		rv_tl_doorbell(&qp->rq, idx, cycle);
		return;
	case RNIC_EV_RECV_CQE:
		r = rv_tl_lookup(&qp->rq, idx);
		if (!r)
			return;
		rv_tl_set_first(r, TL_CQE, cycle);
		/* The oldest arrival on this QP is the message it completes;
		 * if none was reported yet, the next one will be. */
		rxq = rv_tl_rxq_get(node, qpn, 1);
		if (rxq) {
			uint64_t *a = rv_tl_fifo_pop(&rxq->arr);

			if (a)
				rv_tl_arrived(r, a);
			else
				rv_tl_fifo_push(&rxq->recs, (uint64_t)(r - rv_tl_recs), 0);
		}
		return;
	default:
		break;
	}
	r = rv_tl_lookup(&qp->sq, idx);
	if (!r)
		return;
	switch (kind) {
	case RNIC_EV_WQE_FETCHED:
		rv_tl_set_first(r, TL_FETCHED, cycle);
		break;
	case RNIC_EV_TX_FIRST:
		rv_tl_set_first(r, TL_FIRST_TX, cycle);
		break;
	case RNIC_EV_TX_LAST:
		r->t[TL_LAST_TX] = cycle;	/* the last one, after retries */
		break;
	case RNIC_EV_PEER_FIRST:
		rv_tl_set_first(r, TL_ARR_FIRST, cycle);
		break;
	case RNIC_EV_PEER_LAST:
		r->t[TL_ARR_LAST] = cycle;
		break;
	case RNIC_EV_ACKED:
		rv_tl_set_first(r, TL_ACKED, cycle);
		break;
	case RNIC_EV_DMA_ISSUED:
		rv_tl_set_first(r, TL_DMA_ISSUED, cycle);
		break;
	case RNIC_EV_DMA_RETURNED:
		rv_tl_set_first(r, TL_DMA_RETURNED, cycle);
		break;
	case RNIC_EV_PLACE_FIRST:
		rv_tl_set_first(r, TL_PLACE_FIRST, cycle);
		break;
	case RNIC_EV_PLACE_LAST:
		r->t[TL_PLACE_LAST] = cycle;
		break;
	case RNIC_EV_SEND_CQE:
		rv_tl_set_first(r, TL_CQE, cycle);
		break;
	default:
		break;
	}
}

/* ---- the table and the summary ---- */

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

static void rv_tl_cell(FILE *f, uint64_t v, int w)
{
	if (v == RV_TL_NONE)
		fprintf(f, " %*s", w, "-");
	else
		fprintf(f, " %*llu", w, (unsigned long long)v);
}

static uint64_t rv_tl_span(const struct rv_tl_rec *r, enum rv_tl_stamp a,
			   enum rv_tl_stamp b)
{
	if (r->t[a] == RV_TL_NONE || r->t[b] == RV_TL_NONE || r->t[b] < r->t[a])
		return RV_TL_NONE;
	return r->t[b] - r->t[a];
}

/* Phases of "where the cycles went": consecutive stamps of a WR. A receive
 * WR: posted, db, arr_first, arr_last, cqe, polled. A send WR: posted, db,
 * fetched, the payload DMA of its first packet when it had one (a READ's, at
 * the responder, after its request went out), first_tx, last_tx, acked (not
 * on UC and UD: no ACK), cqe, polled. WRs are summed per class: opcode,
 * transport, with or without payload DMA stamps. */
#define RV_TL_MAX_CHAIN	TL_NSTAMPS
#define RV_TL_NCLASS	(RV_TL_NOPS * 8)

static unsigned int rv_tl_class(const struct rv_tl_rec *r)
{
	return r->op * 8u + r->tr * 2u + (r->t[TL_DMA_ISSUED] != RV_TL_NONE);
}

/* The stamps of WRs of class @c, in order; returns how many. */
static unsigned int rv_tl_chain(unsigned int c, enum rv_tl_stamp *ch)
{
	unsigned int op = c / 8, noack = (c / 2) & 3, dma = c & 1, n = 0;

	ch[n++] = TL_POSTED;
	ch[n++] = TL_DB;
	if (op == RV_TL_RECV) {
		ch[n++] = TL_ARR_FIRST;
		ch[n++] = TL_ARR_LAST;
	} else {
		ch[n++] = TL_FETCHED;
		if (dma && op != RV_TL_READ) {
			ch[n++] = TL_DMA_ISSUED;
			ch[n++] = TL_DMA_RETURNED;
		}
		ch[n++] = TL_FIRST_TX;
		ch[n++] = TL_LAST_TX;
		if (dma && op == RV_TL_READ) {
			ch[n++] = TL_DMA_ISSUED;
			ch[n++] = TL_DMA_RETURNED;
		}
		if (!noack)
			ch[n++] = TL_ACKED;
	}
	ch[n++] = TL_CQE;
	ch[n++] = TL_POLLED;
	return n;
}

struct rv_tl_lat {
	uint64_t bytes;
	uint64_t lat;
	uint64_t posted, cqe;
	uint8_t op;
};

static int rv_tl_lat_cmp(const void *a, const void *b)
{
	const struct rv_tl_lat *x = a, *y = b;

	if (x->op != y->op)
		return x->op < y->op ? -1 : 1;
	if (x->bytes != y->bytes)
		return x->bytes < y->bytes ? -1 : 1;
	return x->lat < y->lat ? -1 : x->lat > y->lat;
}

/* Nearest-rank percentile of n sorted values. */
static uint64_t rv_tl_pct(const struct rv_tl_lat *v, uint32_t n, unsigned int pct)
{
	uint32_t k = (uint32_t)(((uint64_t)n * pct + 99) / 100);

	return v[k ? k - 1 : 0].lat;
}

static int rv_tl_selected(const struct rv_tl_rec *r, struct rv_context *ctx)
{
	return !r->printed && (!ctx || r->ctx == ctx);
}

static void rv_tl_summary(FILE *f, struct rv_context *ctx)
{
	static uint64_t sum[RV_TL_NCLASS][RV_TL_MAX_CHAIN], cnt[RV_TL_NCLASS], part[RV_TL_NCLASS];
	enum rv_tl_stamp ch[RV_TL_MAX_CHAIN];
	struct rv_tl_lat *v, *tp;
	uint32_t i, j, n = 0, ntp = 0;

	v = malloc((size_t)(rv_tl_n ? rv_tl_n : 1) * sizeof(*v));
	tp = malloc((size_t)(rv_tl_n ? rv_tl_n : 1) * sizeof(*tp));
	if (!v || !tp) {
		free(v);
		free(tp);
		return;
	}
	memset(sum, 0, sizeof(sum));
	memset(cnt, 0, sizeof(cnt));
	memset(part, 0, sizeof(part));
	for (i = 0; i < rv_tl_n; i++) {
		const struct rv_tl_rec *r = &rv_tl_recs[i];
		uint64_t d[RV_TL_MAX_CHAIN];
		unsigned int c, np, k, ok = 1;

		if (!rv_tl_selected(r, ctx))
			continue;
		/* Unsignaled WRs count for throughput: a later CQE covers them. */
		if (r->t[TL_POSTED] != RV_TL_NONE)
			tp[ntp++] = (struct rv_tl_lat){ r->bytes, 0, r->t[TL_POSTED], r->t[TL_CQE],
							r->op };
		if (rv_tl_span(r, TL_POSTED, TL_CQE) != RV_TL_NONE)
			v[n++] = (struct rv_tl_lat){ r->bytes, rv_tl_span(r, TL_POSTED, TL_CQE),
						     r->t[TL_POSTED], r->t[TL_CQE], r->op };
		c = rv_tl_class(r);
		np = rv_tl_chain(c, ch) - 1;
		for (k = 0; k < np && ok; k++) {
			d[k] = rv_tl_span(r, ch[k], ch[k + 1]);
			ok = d[k] != RV_TL_NONE;
		}
		if (!ok) {
			part[c]++;
			continue;
		}
		for (k = 0; k < np; k++)
			sum[c][k] += d[k];
		cnt[c]++;
	}

	qsort(v, n, sizeof(*v), rv_tl_lat_cmp);
	fprintf(f, "# post->cqe cycles by opcode and size: %-9s %9s %7s %9s %9s %9s %9s %9s\n",
		"opcode", "bytes", "n", "min", "p50", "p90", "p99", "max");
	for (i = 0; i < n; i = j) {
		for (j = i; j < n && v[j].op == v[i].op && v[j].bytes == v[i].bytes; j++)
			;
		fprintf(f, "#                                        %-9s %9llu %7u %9llu %9llu %9llu %9llu %9llu\n",
			rv_tl_op_name[v[i].op], (unsigned long long)v[i].bytes, j - i,
			(unsigned long long)v[i].lat,
			(unsigned long long)rv_tl_pct(v + i, j - i, 50),
			(unsigned long long)rv_tl_pct(v + i, j - i, 90),
			(unsigned long long)rv_tl_pct(v + i, j - i, 99),
			(unsigned long long)v[j - 1].lat);
	}
	/*
	 * What a bandwidth test measures, in simulated time: the group's bytes
	 * (signaled or not) over the cycles from its first post to its last CQE (a 4 ns cycle:
	 * bytes * 8 / (cycles * 4) Gb/s). perftest's own numbers divide by
	 * wall time, which says how fast the simulator ran, not the NIC.
	 */
	fprintf(f, "# throughput, first post to last CQE:    %-9s %9s %7s %12s %9s %9s\n",
		"opcode", "bytes", "n", "cycles", "Gb/s", "Mmsg/s");
	qsort(tp, ntp, sizeof(*tp), rv_tl_lat_cmp);
	for (i = 0; i < ntp; i = j) {
		uint64_t first = tp[i].posted, last = 0, span;

		for (j = i; j < ntp && tp[j].op == tp[i].op && tp[j].bytes == tp[i].bytes; j++) {
			if (tp[j].posted < first)
				first = tp[j].posted;
			if (tp[j].cqe != RV_TL_NONE && tp[j].cqe > last)
				last = tp[j].cqe;
		}
		if (last <= first)
			continue;	/* no completion seen */
		span = last - first;
		fprintf(f, "#                                        %-9s %9llu %7u %12llu %9.2f %9.3f\n",
			rv_tl_op_name[tp[i].op], (unsigned long long)tp[i].bytes, j - i,
			(unsigned long long)span,
			(double)tp[i].bytes * (j - i) * 2.0 / (double)span,
			(double)(j - i) * 250.0 / (double)span);
	}
	free(tp);
	free(v);

	fprintf(f, "# where the cycles went (mean per WR over the WRs with every stamp):\n");
	for (i = 0; i < RV_TL_NCLASS; i++) {
		unsigned int np = rv_tl_chain(i, ch) - 1, k;
		char name[32];

		if (!cnt[i] && !part[i])
			continue;
		snprintf(name, sizeof(name), "%s%s", rv_tl_op_name[i / 8],
			 ((i / 2) & 3) == 2 ? "/UD" : ((i / 2) & 3) == 1 ? "/UC" : "");
		fprintf(f, "#   %-9s n=%llu", name, (unsigned long long)cnt[i]);
		for (k = 0; k < np && cnt[i]; k++)
			fprintf(f, "  %s->%s %.1f", k ? "" : rv_tl_stamp_name[ch[k]],
				rv_tl_stamp_name[ch[k + 1]], (double)sum[i][k] / (double)cnt[i]);
		if (part[i])
			fprintf(f, "  (%llu WRs without every stamp left out)",
				(unsigned long long)part[i]);
		fputc('\n', f);
	}
}

/* Print the records of @ctx (all remaining ones if NULL). */
static void rv_tl_print(struct rv_context *ctx)
{
	uint32_t i, count = 0;
	unsigned int s;
	FILE *f;

	if (!rv_tl_dest)
		return;
	for (i = 0; i < rv_tl_n; i++)
		if (rv_tl_selected(&rv_tl_recs[i], ctx))
			count++;
	if (!count)
		return;

	f = rv_tl_stream();
	if (ctx)
		fprintf(f, "# rnic timeline: %s (node %u), %u WRs",
			ctx->vctx.context.device->name, ctx->node, count);
	else
		fprintf(f, "# rnic timeline: %u WRs", count);
	fprintf(f, "; cycles of the %u MHz core clock, '-' = no such event\n",
		1000 / RV_TL_NS_PER_CYCLE);
	fprintf(f, "# db: doorbell taken by the RTL; dma_*: payload reads of the first packet issued,\n"
		   "# last beat returned (READ: the responder's, for its first response); arr_*: first/last\n"
		   "# packet taken by the peer's RX (RECV: the message that consumed it, by ours);\n"
		   "# place_*: the responder's payload writes of the first packet start, of the last\n"
		   "# packet end (READ: ours, of the responses)\n"
		   "# acked: ACK/NAK/READ response back (UC, UD: none)\n");
	if (rv_tl_dropped)
		fprintf(f, "# %llu WRs not recorded (RNIC_TIMELINE_MAX=%u)\n",
			(unsigned long long)rv_tl_dropped, rv_tl_max);
	fprintf(f, "# %4s %8s %5s %-9s %9s", "node", "qpn", "wqe", "opcode", "bytes");
	for (s = 0; s < TL_NSTAMPS; s++)
		fprintf(f, " %*s", rv_tl_width(s), rv_tl_stamp_name[s]);
	fprintf(f, " %9s %9s\n", "post->cqe", "ns");
	for (i = 0; i < rv_tl_n; i++) {
		struct rv_tl_rec *r = &rv_tl_recs[i];
		uint64_t lat;

		if (!rv_tl_selected(r, ctx))
			continue;
		fprintf(f, "  %4u %8u %5u %-9s %9llu", r->node, r->qpn, r->idx,
			rv_tl_op_name[r->op], (unsigned long long)r->bytes);
		for (s = 0; s < TL_NSTAMPS; s++)
			rv_tl_cell(f, r->t[s], rv_tl_width(s));
		lat = rv_tl_span(r, TL_POSTED, TL_CQE);
		rv_tl_cell(f, lat, 9);
		rv_tl_cell(f, lat == RV_TL_NONE ? lat : lat * RV_TL_NS_PER_CYCLE, 9);
		fputc('\n', f);
	}
	rv_tl_summary(f, ctx);
	for (i = 0; i < rv_tl_n; i++)
		if (rv_tl_selected(&rv_tl_recs[i], ctx))
			rv_tl_recs[i].printed = 1;
	fflush(f);
}

/* ---- Chrome/Perfetto trace JSON ---- */

/* Tracks of a node, in the order a WR moves (thread ids are track * 100 +
 * lane: overlapping slices of one track go to further lanes). The payload
 * DMA and placement tracks came later: thread ids 900 and 1000 + lane, sorted
 * after the lanes of tracks 3 and 5. */
enum rv_tl_track {
	TK_LIFE,
	TK_MMIO,
	TK_FETCH,
	TK_REQ,
	TK_TX,
	TK_RX,
	TK_BACK,
	TK_CQE,
	TK_POLL,
	TK_DMA,
	TK_PLACE,
	TK_NTRACKS,
};

static const char *const rv_tl_track_name[TK_NTRACKS] = {
	[TK_LIFE] = "0 WR life: posted -> polled",
	[TK_MMIO] = "1 MMIO: posted -> doorbell taken",
	[TK_FETCH] = "2 SQ fetch: doorbell -> WQE fetched",
	[TK_REQ] = "3 requester + TX build: fetched -> first packet",
	[TK_TX] = "4 TX: first -> last packet out",
	[TK_RX] = "5 RX: first -> last packet in (from the peer)",
	[TK_BACK] = "6 wire + responder: last packet out -> ACK/response in",
	[TK_CQE] = "7 completer + CQE writer: -> CQE written",
	[TK_POLL] = "8 software: CQE written -> polled",
	[TK_DMA] = "3b payload DMA of the first packet: reads issued -> returned "
		   "(READ: the responder's)",
	[TK_PLACE] = "5b payload placement: first packet's writes start -> last "
		     "packet's end (the responder's; READ: the requester's)",
};

/* Perfetto's order of a track's lanes. */
static unsigned int rv_tl_track_sort(unsigned int t, unsigned int lane)
{
	if (t == TK_DMA)
		return TK_REQ * 1000 + 500 + lane;
	if (t == TK_PLACE)
		return TK_RX * 1000 + 500 + lane;
	return t * 1000 + lane;
}

struct rv_tl_slice {
	uint64_t start, end;
	uint32_t rec;
	uint8_t node;
	uint8_t track;
	uint16_t lane;
};

static int rv_tl_slice_cmp(const void *a, const void *b)
{
	const struct rv_tl_slice *x = a, *y = b;

	if (x->node != y->node)
		return x->node < y->node ? -1 : 1;
	if (x->track != y->track)
		return x->track < y->track ? -1 : 1;
	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return x->rec < y->rec ? -1 : x->rec > y->rec;
}

static void rv_tl_json_write(void)
{
	static const struct {
		uint8_t track, from, to, peer;
	} send_ph[] = {
		{ TK_LIFE, TL_POSTED, TL_POLLED, 0 },
		{ TK_MMIO, TL_POSTED, TL_DB, 0 },
		{ TK_FETCH, TL_DB, TL_FETCHED, 0 },
		{ TK_REQ, TL_FETCHED, TL_FIRST_TX, 0 },
		{ TK_DMA, TL_DMA_ISSUED, TL_DMA_RETURNED, 2 },
		{ TK_TX, TL_FIRST_TX, TL_LAST_TX, 0 },
		{ TK_RX, TL_ARR_FIRST, TL_ARR_LAST, 1 },
		{ TK_PLACE, TL_PLACE_FIRST, TL_PLACE_LAST, 3 },
		{ TK_BACK, TL_LAST_TX, TL_ACKED, 0 },
		{ TK_CQE, TL_ACKED, TL_CQE, 0 },
		{ TK_POLL, TL_CQE, TL_POLLED, 0 },
	}, recv_ph[] = {
		{ TK_LIFE, TL_POSTED, TL_POLLED, 0 },
		{ TK_MMIO, TL_POSTED, TL_DB, 0 },
		{ TK_RX, TL_ARR_FIRST, TL_ARR_LAST, 0 },
		{ TK_CQE, TL_ARR_LAST, TL_CQE, 0 },
		{ TK_POLL, TL_CQE, TL_POLLED, 0 },
	};
	uint16_t lanes_used[RNIC_SIM_MAX_NODES][TK_NTRACKS];
	uint64_t *lane_end = NULL;
	size_t nlane_end = 0;
	struct rv_tl_slice *sl;
	uint32_t i, n = 0, k;
	FILE *f;

	sl = malloc(((size_t)rv_tl_n * (sizeof(send_ph) / sizeof(send_ph[0])) + 1) *
		    sizeof(*sl));
	if (!sl)
		return;
	for (i = 0; i < rv_tl_n; i++) {
		const struct rv_tl_rec *r = &rv_tl_recs[i];
		int recv = r->op == RV_TL_RECV;
		unsigned int nph = recv ? sizeof(recv_ph) / sizeof(recv_ph[0])
					: sizeof(send_ph) / sizeof(send_ph[0]);

		for (k = 0; k < nph; k++) {
			uint8_t tr = recv ? recv_ph[k].track : send_ph[k].track;
			uint8_t a = recv ? recv_ph[k].from : send_ph[k].from;
			uint8_t b = recv ? recv_ph[k].to : send_ph[k].to;
			uint8_t peer = recv ? recv_ph[k].peer : send_ph[k].peer;
			uint64_t s = r->t[a], e = r->t[b];

			/* The life slice ends at the CQE when nobody polled. */
			if (tr == TK_LIFE && e == RV_TL_NONE)
				e = r->t[TL_CQE];
			/* UC, UD: no ACK, the CQE follows the last packet. */
			if (tr == TK_CQE && !recv && r->tr && s == RV_TL_NONE)
				s = r->t[TL_LAST_TX];
			if (s == RV_TL_NONE || e == RV_TL_NONE || e < s)
				continue;
			/* peer 2: a READ's payload DMA is the responder's. */
			if (peer == 2)
				peer = r->op == RV_TL_READ;
			/* peer 3: placement is the responder's, a READ's ours. */
			else if (peer == 3)
				peer = r->op != RV_TL_READ;
			sl[n++] = (struct rv_tl_slice){ s, e, i, peer ? r->peer : r->node, tr, 0 };
		}
	}
	qsort(sl, n, sizeof(*sl), rv_tl_slice_cmp);
	/* Greedy lanes per (node, track): the first lane free at the start. */
	memset(lanes_used, 0, sizeof(lanes_used));
	for (i = 0; i < n; i = k) {
		uint16_t used = 0;

		for (k = i; k < n && sl[k].node == sl[i].node && sl[k].track == sl[i].track; k++) {
			uint16_t l;

			for (l = 0; l < used && lane_end[l] > sl[k].start; l++)
				;
			if (l == used) {
				if (used == nlane_end) {
					size_t c = nlane_end ? 2 * nlane_end : 16;
					uint64_t *ne = realloc(lane_end, c * sizeof(*ne));

					if (!ne)
						break;
					lane_end = ne;
					nlane_end = c;
				}
				if (used < 99)
					used++;
				else
					l = 98;	/* keep thread ids apart; may overlap */
			}
			lane_end[l] = sl[k].end;
			sl[k].lane = l;
		}
		if (k < n && sl[k].node == sl[i].node && sl[k].track == sl[i].track)
			break;	/* out of memory */
		lanes_used[sl[i].node % RNIC_SIM_MAX_NODES][sl[i].track] = used;
	}
	free(lane_end);

	f = fopen(rv_tl_json, "w");
	if (!f) {
		fprintf(stderr, "rnic: cannot write %s\n", rv_tl_json);
		free(sl);
		return;
	}
	fprintf(f, "{\"displayTimeUnit\": \"ns\",\n \"otherData\": {\"clock\": \"%u MHz core clock: "
		   "ts and dur in microseconds, 1 cycle = 0.004\"},\n \"traceEvents\": [\n",
		1000 / RV_TL_NS_PER_CYCLE);
	for (i = 0; i < RNIC_SIM_MAX_NODES; i++) {
		unsigned int t, l, any = 0;

		for (t = 0; t < TK_NTRACKS; t++)
			any |= lanes_used[i][t];
		if (!any)
			continue;
		fprintf(f, "  {\"ph\": \"M\", \"name\": \"process_name\", \"pid\": %u, "
			   "\"args\": {\"name\": \"node%u (rnic%u)\"}},\n", i, i, i);
		fprintf(f, "  {\"ph\": \"M\", \"name\": \"process_sort_index\", \"pid\": %u, "
			   "\"args\": {\"sort_index\": %u}},\n", i, i);
		for (t = 0; t < TK_NTRACKS; t++) {
			for (l = 0; l < lanes_used[i][t]; l++) {
				fprintf(f, "  {\"ph\": \"M\", \"name\": \"thread_name\", \"pid\": %u, "
					   "\"tid\": %u, \"args\": {\"name\": \"%s%s%.0u\"}},\n",
					i, t * 100 + l, rv_tl_track_name[t], l ? " #" : "", l);
				fprintf(f, "  {\"ph\": \"M\", \"name\": \"thread_sort_index\", "
					   "\"pid\": %u, \"tid\": %u, \"args\": {\"sort_index\": %u}},\n",
					i, t * 100 + l, rv_tl_track_sort(t, l));
			}
		}
	}
	for (i = 0; i < n; i++) {
		const struct rv_tl_rec *r = &rv_tl_recs[sl[i].rec];
		unsigned int s;

		fprintf(f, "  {\"ph\": \"X\", \"name\": \"%s %lluB q%u #%u\", \"cat\": \"%s\", "
			   "\"pid\": %u, \"tid\": %u, \"ts\": %llu.%03llu, \"dur\": %llu.%03llu, "
			   "\"args\": {\"node\": %u, \"qpn\": %u, \"wqe\": %u, \"bytes\": %llu",
			rv_tl_op_name[r->op], (unsigned long long)r->bytes, r->qpn, r->idx,
			rv_tl_op_name[r->op], sl[i].node, sl[i].track * 100u + sl[i].lane,
			(unsigned long long)(sl[i].start * RV_TL_NS_PER_CYCLE / 1000),
			(unsigned long long)(sl[i].start * RV_TL_NS_PER_CYCLE % 1000),
			(unsigned long long)((sl[i].end - sl[i].start) * RV_TL_NS_PER_CYCLE / 1000),
			(unsigned long long)((sl[i].end - sl[i].start) * RV_TL_NS_PER_CYCLE % 1000),
			r->node, r->qpn, r->idx, (unsigned long long)r->bytes);
		for (s = 0; s < TL_NSTAMPS; s++)
			if (r->t[s] != RV_TL_NONE)
				fprintf(f, ", \"%s\": %llu", rv_tl_stamp_name[s],
					(unsigned long long)r->t[s]);
		fprintf(f, "}}%s\n", i + 1 < n ? "," : "");
	}
	fprintf(f, " ]\n}\n");
	fclose(f);
	free(sl);
}

static void rv_tl_atexit(void)
{
	rnic_lock();
	rv_tl_print(NULL);
	if (rv_tl_file) {
		fclose(rv_tl_file);
		rv_tl_file = NULL;
	}
	if (rv_tl_json)
		rv_tl_json_write();
	rnic_unlock();
}

/* ---- hooks of the verbs library ---- */

void rv_tl_setup(struct rnic_sim *sim)
{
	const char *e = getenv("RNIC_TIMELINE");
	const char *j = getenv("RNIC_TIMELINE_JSON");
	const char *m = getenv("RNIC_TIMELINE_MAX");

	if (rv_tl_enabled)
		return;
	if (e && *e && strcmp(e, "0"))
		rv_tl_dest = e;
	if (j && *j)
		rv_tl_json = j;
	if (!rv_tl_dest && !rv_tl_json)
		return;
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
	if (qp->sq.tl && qp->ctx)
		rv_tl_rxq_free(qp->ctx->node, qp->hw.qpn);
	free(qp->sq.tl);
	free(qp->rq.tl);
	qp->sq.tl = NULL;
	qp->rq.tl = NULL;
}

void rv_tl_post(struct rv_qp *qp, struct rv_wq *wq, uint16_t idx,
		enum rv_tl_op op, uint64_t bytes)
{
	struct rv_tl_rec *r;
	uint32_t dip = qp->hw.ctx.dest_ip;
	unsigned int s;

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
	for (s = 0; s < TL_NSTAMPS; s++)
		r->t[s] = RV_TL_NONE;
	r->t[TL_POSTED] = rnic_sim_cycle(qp->ctx->sim);
	r->bytes = bytes;
	r->ctx = qp->ctx;
	r->qpn = qp->hw.qpn;
	r->idx = idx;
	r->node = qp->ctx->node;
	/* Peer node from the destination address, 10.0.0.<n+1> (rnic_model.h). */
	r->peer = (dip >> 8) == 0x0a0000 && (dip & 0xff) >= 1 &&
		  (dip & 0xff) <= RNIC_SIM_MAX_NODES ? (dip & 0xff) - 1 : r->node;
	r->op = op;
	r->tr = qp->type == IBV_QPT_UD ? 2 : qp->type == IBV_QPT_UC;
	r->printed = 0;
	wq->tl[idx & wq->mask] = ++rv_tl_n;
}

void rv_tl_polled(struct rv_wq *wq, uint16_t idx)
{
	struct rv_tl_rec *r = rv_tl_lookup(wq, idx);

	if (r && r->t[TL_POLLED] == RV_TL_NONE)
		r->t[TL_POLLED] = rnic_sim_cycle(rv_tl_sim);
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

/* ---- exported: trace windows around code of interest (rnic_verbs_ext.h) ---- */

RV_EXPORT void rnic_verbs_trace_begin(void)
{
	struct rnic_sim *sim;

	rnic_lock();
	sim = rnic_sim_global();
	if (sim)
		rnic_sim_trace_begin(sim);
	rnic_unlock();
}

RV_EXPORT void rnic_verbs_trace_end(void)
{
	struct rnic_sim *sim;

	rnic_lock();
	sim = rnic_sim_global();
	if (sim)
		rnic_sim_trace_end(sim);
	rnic_unlock();
}
