// SPDX-License-Identifier: MIT
/*
 * sys_soak.c - RC stays reliable on an unreliable wire.
 *
 *   sys_soak [messages [seed]]       (default 3000 messages, seed 1)
 *
 * Four connected QP pairs between rnic0 and rnic1 carry a seeded random mix
 * of SEND, SEND_WITH_IMM, RDMA WRITE, RDMA WRITE_WITH_IMM, RDMA READ,
 * FETCH_AND_ADD and CMP_AND_SWP, 0..8 KiB, in both directions, up to eight
 * outstanding per sender, over a wire that drops 1 % of the frames, corrupts
 * 0.1 % (the receiver's ICRC check discards them), duplicates 0.5 % and
 * reorders 0.5 % (RNIC_WIRE_*, set here unless already set). It checks:
 *   - every WR completes with IBV_WC_SUCCESS, in posting order;
 *   - every message that consumes a receive arrives exactly once, in order,
 *     byte-exact (the payload carries its sequence number and a pattern),
 *     with its immediate data and length;
 *   - every READ returns the bytes of the remote region it read;
 *   - FETCH_AND_ADD returns 0, 1, 2, ... per QP (an atomic executed twice
 *     would skip a value) and CMP_AND_SWP finds the value last swapped in;
 *   - at the end every WRITE target region equals a reference model that
 *     applied the WRITEs in posting order.
 * The CTest runs 3000 messages; `sys_soak 100000` is the long run of
 * docs/performance.md.
 */
#define _GNU_SOURCE
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"
#include "rnic_verbs_ext.h"

#define NPAIR 4
#define WIN 8			/* outstanding WRs per sender */
#define MAXLEN 8192
#define NRECV 16
#define WREG (64 * 1024)	/* WRITE target region per sender */
#define RREG (64 * 1024)	/* READ source region per sender */

enum kind { K_SEND, K_SEND_IMM, K_WRITE, K_WRITE_IMM, K_READ, K_FADD, K_CSWP, K_N };

struct wr_rec {
	enum kind k;
	uint64_t id;
	uint32_t len;
	uint32_t roff;		/* READ: offset in the peer's READ region */
	uint64_t exp;		/* atomics: expected original value */
};

/* One direction of one QP pair: a sender and its peer. */
struct flow {
	struct ibv_qp *qp, *peer_qp;
	struct ibv_cq *scq, *peer_rcq;
	struct t_buf src;	/* WIN slots of MAXLEN + 8 bytes for atomics */
	struct t_buf rbuf;	/* peer: NRECV receive buffers */
	struct t_buf wreg;	/* peer: WRITE target */
	struct t_buf rreg;	/* peer: READ source */
	uint8_t *shadow;	/* reference model of wreg */
	struct wr_rec rec[WIN];
	unsigned int head, n;	/* outstanding WRs, ring */
	uint64_t next_id;
	uint64_t next_recv;	/* id of the next message expected by a receive */
	uint64_t recv_q[WIN * 2];	/* ids of messages that consume a receive, in order */
	unsigned int rq_head, rq_n;
	uint64_t fadd_next, cswp_val;
	uint64_t posted, done;
	uint64_t last_cycle;	/* of its last completion */
};

static uint64_t rng_state;

static uint64_t rnd(void)
{
	uint64_t x = rng_state;

	x ^= x << 13;
	x ^= x >> 7;
	x ^= x << 17;
	return rng_state = x;
}

static void pattern(uint8_t *p, uint32_t len, uint64_t id)
{
	if (len >= 8) {
		memcpy(p, &id, 8);
		t_fill(p + 8, len - 8, id * 2654435761u + 1);
	} else {
		t_fill(p, len, id * 2654435761u + 1);
	}
}

static void post_recv_slot(struct flow *f, unsigned int slot)
{
	struct ibv_sge sg = t_sge(&f->rbuf, (size_t)slot * MAXLEN, MAXLEN);

	POST_RECV(f->peer_qp, slot, &sg, 1);
}

static void post_one(struct flow *f, uint64_t id)
{
	unsigned int slot = (f->head + f->n) % WIN;
	struct wr_rec *r = &f->rec[slot];
	uint8_t *buf = f->src.p + (size_t)slot * (MAXLEN + 8);
	uint32_t len = (uint32_t)(rnd() % 5 == 0 ? rnd() % (MAXLEN + 1) : rnd() % 1025);
	struct ibv_sge sg = t_sge(&f->src, (size_t)slot * (MAXLEN + 8), len);
	uint64_t off;

	memset(r, 0, sizeof(*r));
	r->k = (enum kind)(rnd() % K_N);
	r->id = id;
	/* A message that consumes a receive needs room in the peer's RQ. */
	if ((r->k == K_SEND || r->k == K_SEND_IMM || r->k == K_WRITE_IMM) &&
	    f->rq_n >= NRECV)
		r->k = K_WRITE;
	switch (r->k) {
	case K_SEND:
	case K_SEND_IMM:
		r->len = len;
		pattern(buf, len, id);
		POST_SEND(f->qp, id, r->k == K_SEND ? IBV_WR_SEND : IBV_WR_SEND_WITH_IMM,
			  IBV_SEND_SIGNALED, &sg, 1, 0, 0, htobe32((uint32_t)id));
		f->recv_q[(f->rq_head + f->rq_n++) % (WIN * 2)] = id;
		break;
	case K_WRITE:
	case K_WRITE_IMM:
		r->len = len;
		off = rnd() % (WREG - len + 1);
		pattern(buf, len, id);
		memcpy(f->shadow + off, buf, len);
		POST_SEND(f->qp, id, r->k == K_WRITE ? IBV_WR_RDMA_WRITE :
			  IBV_WR_RDMA_WRITE_WITH_IMM, IBV_SEND_SIGNALED, &sg, 1,
			  t_addr(&f->wreg, off), f->wreg.mr->rkey, htobe32((uint32_t)id));
		if (r->k == K_WRITE_IMM)
			f->recv_q[(f->rq_head + f->rq_n++) % (WIN * 2)] = id;
		break;
	case K_READ:
		r->len = len;
		r->roff = (uint32_t)(rnd() % (RREG - len + 1));
		memset(buf, 0xee, len);
		POST_SEND(f->qp, id, IBV_WR_RDMA_READ, IBV_SEND_SIGNALED, &sg, 1,
			  t_addr(&f->rreg, r->roff), f->rreg.mr->rkey, 0);
		break;
	case K_FADD:
		sg = t_sge(&f->src, (size_t)slot * (MAXLEN + 8), 8);
		r->exp = f->fadd_next++;
		POST_ATOMIC(f->qp, id, IBV_WR_ATOMIC_FETCH_AND_ADD, IBV_SEND_SIGNALED, &sg,
			    t_addr(&f->rreg, RREG), f->rreg.mr->rkey, 1, 0);
		break;
	default:
		sg = t_sge(&f->src, (size_t)slot * (MAXLEN + 8), 8);
		r->exp = f->cswp_val;
		f->cswp_val = id;
		POST_ATOMIC(f->qp, id, IBV_WR_ATOMIC_CMP_AND_SWP, IBV_SEND_SIGNALED, &sg,
			    t_addr(&f->rreg, RREG + 8), f->rreg.mr->rkey, r->exp, id);
		break;
	}
	f->n++;
	f->posted++;
}

static void check_done(struct flow *f, const struct ibv_wc *wc)
{
	struct wr_rec *r = &f->rec[f->head];
	uint8_t *buf = f->src.p + (size_t)f->head * (MAXLEN + 8);
	uint64_t v;

	CHECKF(f->n > 0, "completion wr_id %" PRIu64 " with nothing outstanding", wc->wr_id);
	if (wc->status != IBV_WC_SUCCESS)
		fprintf(stderr, "send error: qp %u wr %llu kind %d status %s cycle %llu\n", wc->qp_num,
			(unsigned long long)wc->wr_id, r->k, t_status_str(wc->status),
			(unsigned long long)rnic_verbs_sim_cycle());
	CHECKF(wc->status == IBV_WC_SUCCESS, "WR %" PRIu64 " (kind %d): status %s",
	       wc->wr_id, r->k, t_status_str(wc->status));
	CHECKF(wc->wr_id == r->id, "completion order: wr_id %" PRIu64 ", expected %" PRIu64,
	       wc->wr_id, r->id);
	switch (r->k) {
	case K_READ:
		CHECK_EQ(wc->byte_len, r->len);
		CHECK_MEM(buf, f->rreg.p + r->roff, r->len);
		break;
	case K_FADD:
	case K_CSWP:
		memcpy(&v, buf, 8);
		CHECKF(v == r->exp, "atomic %" PRIu64 " (kind %d) returned %" PRIu64 ", expected %"
		       PRIu64, r->id, r->k, v, r->exp);
		break;
	default:
		break;
	}
	f->head = (f->head + 1) % WIN;
	f->n--;
	f->done++;
	f->last_cycle = rnic_verbs_sim_cycle();
}

static void check_recv(struct flow *f, const struct ibv_wc *wc)
{
	uint64_t id = f->recv_q[f->rq_head];
	uint8_t *b = f->rbuf.p + (size_t)wc->wr_id * MAXLEN;
	uint8_t exp[MAXLEN];

	CHECKF(f->rq_n > 0, "receive completion with no message expected");
	CHECKF(wc->status == IBV_WC_SUCCESS, "receive for message %" PRIu64 ": status %s", id,
	       t_status_str(wc->status));
	if (wc->opcode == IBV_WC_RECV) {
		uint32_t len = wc->byte_len;

		pattern(exp, len, id);
		if (len >= 8 && memcmp(b, &id, 8)) {
			uint64_t got;

			memcpy(&got, b, 8);
			t_fail(__FILE__, __LINE__, "message %" PRIu64 " arrived out of order or twice: "
			       "receive %" PRIu64 " holds message %" PRIu64 " (byte_len %u)", id,
			       wc->wr_id, got, len);
		}
		CHECK_MEM(b, exp, len);
	} else {
		CHECK_EQ(wc->opcode, IBV_WC_RECV_RDMA_WITH_IMM);
	}
	if (wc->wc_flags & IBV_WC_WITH_IMM)
		CHECKF(be32toh(wc->imm_data) == (uint32_t)id,
		       "immediate %u, expected %u", be32toh(wc->imm_data), (uint32_t)id);
	f->rq_head = (f->rq_head + 1) % (WIN * 2);
	f->rq_n--;
	post_recv_slot(f, (unsigned int)wc->wr_id);
}

static void setenv_default(const char *k, const char *v)
{
	setenv(k, v, 0);
}

int main(int argc, char **argv)
{
	uint64_t total = argc > 1 ? strtoull(argv[1], NULL, 0) : 3000;
	uint64_t seed = argc > 2 ? strtoull(argv[2], NULL, 0) : 1;
	unsigned int acc = T_MR_ACCESS | IBV_ACCESS_REMOTE_ATOMIC;
	struct t_pair pair[NPAIR];
	struct flow fl[2 * NPAIR];
	uint64_t posted = 0, done = 0, t0, t1, last_progress = 0;
	long idle = 0;
	char s[32];
	int i, j;

	setenv_default("RNIC_WIRE_DROP", "0.01");
	setenv_default("RNIC_WIRE_CORRUPT", "0.001");
	setenv_default("RNIC_WIRE_DUP", "0.005");
	setenv_default("RNIC_WIRE_REORDER", "0.005");
	snprintf(s, sizeof(s), "%" PRIu64, seed);
	setenv_default("RNIC_WIRE_SEED", s);
	rng_state = seed * 0x9E3779B97F4A7C15ull + 1;

	for (i = 0; i < NPAIR; i++) {
		struct t_pair_cfg cfg;

		t_pair_default_cfg(&cfg);
		cfg.caps.max_send_wr = WIN;
		cfg.caps.max_recv_wr = NRECV;
		cfg.cqe = 64;
		for (j = 0; j < 2; j++) {
			cfg.attrs[j].access |= IBV_ACCESS_REMOTE_ATOMIC;
			cfg.attrs[j].timeout = 5;	/* 32768 cycles */
			cfg.attrs[j].max_rd_atomic = 4;
			cfg.attrs[j].max_dest_rd_atomic = 4;
			cfg.attrs[j].min_rnr_timer = 1;
		}
		cfg.psn[0] = (uint32_t)(rnd() & 0xffffff);
		cfg.psn[1] = (uint32_t)(rnd() & 0xffffff);
		t_pair_open(&pair[i], &cfg);
		for (j = 0; j < 2; j++) {
			struct flow *f = &fl[2 * i + j];
			struct t_side *a = &pair[i].s[j], *b = &pair[i].s[!j];
			unsigned int k;

			memset(f, 0, sizeof(*f));
			f->qp = a->qp;
			f->peer_qp = b->qp;
			f->scq = a->scq;
			f->peer_rcq = b->rcq;
			t_buf_alloc_access(&f->src, a->pd, WIN * (MAXLEN + 8), acc);
			t_buf_alloc_access(&f->rbuf, b->pd, NRECV * MAXLEN, acc);
			t_buf_alloc_access(&f->wreg, b->pd, WREG, acc);
			t_buf_alloc_access(&f->rreg, b->pd, RREG + 16, acc);
			t_fill(f->rreg.p, RREG, seed * 100 + (uint64_t)(2 * i + j));
			memset(f->rreg.p + RREG, 0, 16);
			f->shadow = calloc(1, WREG);
			CHECK(f->shadow);
			f->next_id = ((uint64_t)(2 * i + j) << 40) + 1;
			for (k = 0; k < NRECV; k++)
				post_recv_slot(f, k);
		}
	}

	t0 = rnic_verbs_sim_cycle();
	while (done < total) {
		int progress = 0;

		for (i = 0; i < 2 * NPAIR; i++) {
			struct flow *f = &fl[i];
			struct ibv_wc wc[WIN];
			int n, k;

			while (f->n < WIN && posted < total) {
				post_one(f, f->next_id++);
				posted++;
			}
			n = ibv_poll_cq(f->scq, WIN, wc);
			CHECK(n >= 0);
			for (k = 0; k < n; k++)
				check_done(f, &wc[k]);
			done += (uint64_t)n;
			progress |= n;
			n = ibv_poll_cq(f->peer_rcq, WIN, wc);
			CHECK(n >= 0);
			for (k = 0; k < n; k++) {
				/* The peer's receive CQ holds the receives of this flow. */
				check_recv(f, &wc[k]);
			}
			progress |= n;
		}
		idle = progress ? 0 : idle + 1;
		if (progress)
			last_progress = rnic_verbs_sim_cycle();
		/* 2000 rounds of empty polls: over 8 M cycles, far beyond any
		 * retry (timeout 5 is 32768 cycles, 7 retries). */
		if (idle >= 2000) {
			for (i = 0; i < 2 * NPAIR; i++)
				fprintf(stderr, "flow %d: qp %u, %u outstanding (oldest wr %" PRIu64
					" kind %d), %u receives pending, last completion at cycle %"
					PRIu64 "\n", i, fl[i].qp->qp_num, fl[i].n,
					fl[i].n ? fl[i].rec[fl[i].head].id : 0,
					fl[i].n ? (int)fl[i].rec[fl[i].head].k : -1, fl[i].rq_n,
					fl[i].last_cycle);
			t_fail(__FILE__, __LINE__, "no progress: %" PRIu64 " of %" PRIu64
			       " WRs done, cycle %" PRIu64 ", last progress at cycle %" PRIu64, done,
			       total, rnic_verbs_sim_cycle(), last_progress);
		}
	}
	t1 = rnic_verbs_sim_cycle();
	for (i = 0; i < 2 * NPAIR; i++) {
		struct flow *f = &fl[i];

		CHECKF(f->rq_n == 0, "flow %d: %u messages never arrived", i, f->rq_n);
		CHECK_MEM(f->wreg.p, f->shadow, WREG);
	}
	for (i = 0; i < 2 * NPAIR; i++) {
		struct flow *f = &fl[i];

		t_buf_free(&f->src);
		t_buf_free(&f->rbuf);
		t_buf_free(&f->wreg);
		t_buf_free(&f->rreg);
		free(f->shadow);
	}
	for (i = 0; i < NPAIR; i++)
		t_pair_close(&pair[i]);
	printf("sys_soak: %" PRIu64 " WRs on %d QPs (seed %" PRIu64 "), all completed and checked, "
	       "%" PRIu64 " cycles\n", total, 2 * NPAIR, seed, t1 - t0);
	return 0;
}
