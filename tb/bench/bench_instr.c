// SPDX-License-Identifier: MIT
/*
 * bench_instr.c - host instructions per verbs data-path call, for the
 * target "<= 100 host instructions per ibv_post_send (one SGE) and per
 * polled CQE, simulation excluded".
 *
 * Instructions are counted by valgrind's callgrind, which makes the count
 * exact and reproducible; run it through scripts/bench_instr.sh, which
 * starts callgrind with --instr-atstart=no --collect-atstart=no, reads the
 * dumps and prints the table. Each measured loop is bracketed by
 * BRACKET_BEGIN/BRACKET_END below: instrumentation and collection are on
 * only inside, and the bracket ends in a dump named after the operation.
 * Outside valgrind the macros do nothing and the program just runs its
 * checks.
 *
 * Measured (rnic0 -> rnic1, one RC QP, 8-byte signaled RDMA WRITEs, one
 * SGE each, one WR per call; K = BENCH_K per round):
 *
 *   post_send   K calls of ibv_post_send(), nothing polled in between;
 *   poll_cq_1   K calls of ibv_poll_cq(cq, 1, wc), each returning 1;
 *   poll_cq_16  K / 16 calls of ibv_poll_cq(cq, 16, wc), each returning 16
 *               (reported per CQE);
 *   post_recv   K calls of ibv_post_recv() with one SGE (on rnic1's QP).
 *
 * What a bracket contains: the loop itself (a few instructions per
 * iteration: the inline ibv_post_send()/ibv_poll_cq() of verbs.h loading
 * the ops pointer, the call, the sum of the return codes), the library
 * function, and what it calls. The WRs are built before the bracket; the
 * completions are checked after it.
 *
 * Simulation excluded: simulated time only advances when software waits
 * (an empty poll, an MMIO read). The posting loops never wait: the doorbell
 * is a posted MMIO write, which the model queues for the cycle it arrives
 * at (rnic_sim_mmio_write() -> a push onto a ring, model/sim_util.h); that
 * queueing is counted and is part of the figure. The polling loops only run once all K CQEs
 * are in host memory, so no call finds the CQ empty (an empty ibv_poll_cq()
 * would run up to 256 cycles). Both are checked: the simulated cycle
 * counter must be the same before and after every bracket, and every call
 * must return what it was asked for; otherwise the program fails.
 *
 * Getting K CQEs ready without consuming them: the verbs API has no way to
 * look at a CQ without polling it, and a poll of this CQ consumes. So the
 * model is advanced by polling another CQ that never gets a completion
 * (rnic0's receive CQ: rnic1 never sends), each empty poll of which runs
 * the simulation, until the cycle counter has passed the post time plus
 * twice the time K WRITEs took in the warm-up (where they were polled as
 * they came) plus a margin. The model is deterministic and the rounds
 * identical, so this is plenty; the checks above catch it if it were not.
 *
 * Warm-up, not measured: a few WRITEs posted and polled and a few receives
 * posted (lazy binding, first-use paths; the script also sets
 * LD_BIND_NOW=1), then one full round of K WRITEs and one of K receives,
 * so that the model's MMIO write queue of each node has grown once to K
 * pending doorbells: that one-time growth (about 30 instructions per WR
 * amortised over the first K) is not in the figures, which are all steady
 * state.
 *
 * Output: human-readable progress, and for every bracket one line
 * "BENCH <label> <calls> <units>" in the order of the dumps, which the
 * script pairs with the dump files.
 *
 * This is a benchmark, not a test: it is never run by CTest.
 */
#define _DEFAULT_SOURCE

#include "common.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include <valgrind/callgrind.h>

/* Exported by our libibverbs stand-in (libverbs/rnic_verbs_ext.h). */
extern uint64_t rnic_verbs_sim_cycle(void);

#define BENCH_K		256	/* WRs / CQEs per measured loop; a multiple of 16 */
#define BENCH_MULTI	16	/* num_entries of the multi-entry poll */
#define BENCH_WARM	8	/* warm-up WRs */
#define BENCH_SQ	512	/* SQ capacity (>= BENCH_K + BENCH_WARM) */
#define BENCH_RQ	1024	/* RQ capacity (>= 2 * BENCH_K + BENCH_WARM) */
#define BENCH_CQE	1024
#define BENCH_MSG	8	/* bytes per WRITE */
#define BENCH_MARGIN	4096	/* extra cycles when waiting for K CQEs */

/*
 * Instrumentation and collection on only between these two: collection is
 * toggled on for the loop, then the counts since the last dump are dumped
 * under @label and instrumentation is switched off again, so the simulation
 * runs uninstrumented (and uncounted) outside.
 */
#define BRACKET_BEGIN()							\
	do {								\
		CALLGRIND_START_INSTRUMENTATION;			\
		CALLGRIND_ZERO_STATS;					\
		CALLGRIND_TOGGLE_COLLECT;				\
	} while (0)

#define BRACKET_END(label)						\
	do {								\
		CALLGRIND_TOGGLE_COLLECT;				\
		CALLGRIND_DUMP_STATS_AT(label);				\
		CALLGRIND_STOP_INSTRUMENTATION;				\
	} while (0)

struct bench {
	struct t_pair p;
	struct t_buf src, dst, rbuf;
	struct ibv_send_wr swr[BENCH_K];
	struct ibv_sge ssge[BENCH_K];
	struct ibv_recv_wr rwr[BENCH_K];
	struct ibv_sge rsge[BENCH_K];
	struct ibv_wc wc[BENCH_K];
	uint64_t next_id;	/* wr_id of the next send WR */
	uint64_t next_rid;	/* wr_id of the next receive WR */
};

static void report(const char *label, int calls, int units)
{
	printf("BENCH %s %d %d\n", label, calls, units);
	fflush(stdout);
}

static void check_no_sim(const char *label, uint64_t c0)
{
	uint64_t c1 = rnic_verbs_sim_cycle();

	CHECKF(c1 == c0,
	       "%s: simulation ran inside the measured loop (cycle %" PRIu64
	       " -> %" PRIu64 ")", label, c0, c1);
}

/* Builds K separate one-SGE signaled 8-byte WRITEs with fresh wr_ids; each
 * is posted by its own call (next == NULL). Returns the first wr_id. */
static uint64_t build_writes(struct bench *b)
{
	uint64_t first = b->next_id;
	int i;

	memset(b->swr, 0, sizeof(b->swr));
	for (i = 0; i < BENCH_K; i++) {
		struct ibv_send_wr *wr = &b->swr[i];

		b->ssge[i] = t_sge(&b->src, (size_t)i * BENCH_MSG, BENCH_MSG);
		wr->wr_id = b->next_id++;
		wr->sg_list = &b->ssge[i];
		wr->num_sge = 1;
		wr->opcode = IBV_WR_RDMA_WRITE;
		wr->send_flags = IBV_SEND_SIGNALED;
		wr->wr.rdma.remote_addr = t_addr(&b->dst, (size_t)i * BENCH_MSG);
		wr->wr.rdma.rkey = b->dst.mr->rkey;
	}
	return first;
}

/* Posts the K WRs of build_writes(); measured when @label is not NULL. */
static void post_writes(struct bench *b, const char *label)
{
	struct ibv_qp *qp = b->p.s[0].qp;
	struct ibv_send_wr *bad = NULL;
	uint64_t c0;
	int i, err = 0;

	c0 = rnic_verbs_sim_cycle();
	if (label)
		BRACKET_BEGIN();
	for (i = 0; i < BENCH_K; i++)
		err |= ibv_post_send(qp, &b->swr[i], &bad);
	if (label)
		BRACKET_END(label);
	CHECKF(!err, "ibv_post_send failed (%d)", err);
	check_no_sim("post_send", c0);
	if (label)
		report(label, BENCH_K, BENCH_K);
}

static void check_writes(const struct bench *b, uint64_t first)
{
	int i;

	for (i = 0; i < BENCH_K; i++)
		EXPECT_WC(&b->wc[i], first + i, IBV_WC_SUCCESS,
			  IBV_WC_RDMA_WRITE, b->p.s[0].qp->qp_num, T_ANY,
			  T_ANY, T_ANY);
}

/* Lets the model run (via empty polls of a CQ that never completes
 * anything) until the cycle counter reaches @until. */
static void run_until(struct bench *b, uint64_t until)
{
	struct ibv_cq *idle = b->p.s[0].rcq;
	struct ibv_wc wc;
	long polls = 0;

	while (rnic_verbs_sim_cycle() < until) {
		CHECKF(ibv_poll_cq(idle, 1, &wc) == 0,
		       "completion on the idle CQ");
		CHECKF(++polls < T_POLL_BOUND, "simulation does not advance");
	}
}

/* Fails unless @cq stays empty for a few polls (which run the model). */
static void check_drained(struct ibv_cq *cq)
{
	EXPECT_EMPTY(cq, 4);
}

static void build_recvs(struct bench *b)
{
	int i;

	memset(b->rwr, 0, sizeof(b->rwr));
	for (i = 0; i < BENCH_K; i++) {
		b->rsge[i] = t_sge(&b->rbuf, (size_t)i * BENCH_MSG, BENCH_MSG);
		b->rwr[i].wr_id = b->next_rid++;
		b->rwr[i].sg_list = &b->rsge[i];
		b->rwr[i].num_sge = 1;
	}
}

/* Posts the K WRs of build_recvs() to rnic1's QP; measured when @label is
 * not NULL. They are never consumed: nothing is sent to rnic1. */
static void post_recvs(struct bench *b, const char *label)
{
	struct ibv_qp *qp = b->p.s[1].qp;
	struct ibv_recv_wr *bad = NULL;
	uint64_t c0;
	int i, err = 0;

	c0 = rnic_verbs_sim_cycle();
	if (label)
		BRACKET_BEGIN();
	for (i = 0; i < BENCH_K; i++)
		err |= ibv_post_recv(qp, &b->rwr[i], &bad);
	if (label)
		BRACKET_END(label);
	CHECKF(!err, "ibv_post_recv failed (%d)", err);
	check_no_sim("post_recv", c0);
	if (label)
		report(label, BENCH_K, BENCH_K);
}

/*
 * Warm-up (see the top of the file). Returns how many cycles K WRITEs
 * took from posting to the last CQE.
 */
static uint64_t warm_up(struct bench *b)
{
	struct ibv_wc wc[BENCH_WARM];
	uint64_t first, c0, t_k;
	int i;

	for (i = 0; i < BENCH_WARM; i++) {
		struct ibv_sge sg = t_sge(&b->src, 0, BENCH_MSG);
		struct ibv_sge rsg = t_sge(&b->rbuf, 0, BENCH_MSG);

		POST_SEND(b->p.s[0].qp, b->next_id++, IBV_WR_RDMA_WRITE,
			  IBV_SEND_SIGNALED, &sg, 1, t_addr(&b->dst, 0),
			  b->dst.mr->rkey, 0);
		POST_RECV(b->p.s[1].qp, b->next_rid++, &rsg, 1);
	}
	POLL(b->p.s[0].scq, BENCH_WARM, wc);
	for (i = 0; i < BENCH_WARM; i++)
		EXPECT_WC(&wc[i], b->next_id - BENCH_WARM + i, IBV_WC_SUCCESS,
			  IBV_WC_RDMA_WRITE, b->p.s[0].qp->qp_num, T_ANY,
			  T_ANY, T_ANY);
	check_drained(b->p.s[0].scq);

	first = build_writes(b);
	c0 = rnic_verbs_sim_cycle();
	post_writes(b, NULL);
	POLL(b->p.s[0].scq, BENCH_K, b->wc);
	t_k = rnic_verbs_sim_cycle() - c0;
	check_writes(b, first);
	check_drained(b->p.s[0].scq);

	/* The receives' doorbells are taken by the model while it runs. */
	build_recvs(b);
	post_recvs(b, NULL);
	run_until(b, rnic_verbs_sim_cycle() + BENCH_MARGIN);
	return t_k;
}

/*
 * Round 1: measures ibv_post_send(), then polls the K CQEs as they come
 * (not measured).
 */
static void round_post(struct bench *b)
{
	struct ibv_cq *cq = b->p.s[0].scq;
	uint64_t first;

	first = build_writes(b);
	post_writes(b, "post_send");
	POLL(cq, BENCH_K, b->wc);
	check_writes(b, first);
	check_drained(cq);
}

/*
 * Rounds 2 and 3: posts K WRITEs (measured too, as more post_send
 * samples), lets the model run until all K CQEs are in host memory, then
 * measures polling them @per_call at a time.
 */
static void round_poll(struct bench *b, uint64_t t_k, int per_call,
		       const char *label)
{
	struct ibv_cq *cq = b->p.s[0].scq;
	const int calls = BENCH_K / per_call;
	uint64_t first, c0;
	int i, got = 0, bad = 0;

	first = build_writes(b);
	c0 = rnic_verbs_sim_cycle();
	post_writes(b, "post_send");
	run_until(b, c0 + 2 * t_k + BENCH_MARGIN);

	c0 = rnic_verbs_sim_cycle();
	BRACKET_BEGIN();
	for (i = 0; i < calls; i++) {
		int n = ibv_poll_cq(cq, per_call, &b->wc[i * per_call]);

		got += n;
		bad |= n != per_call;
	}
	BRACKET_END(label);
	check_no_sim(label, c0);
	CHECKF(!bad && got == BENCH_K,
	       "%s: a call did not return %d (%d CQEs in all, %d expected)",
	       label, per_call, got, BENCH_K);
	check_writes(b, first);
	check_drained(cq);
	report(label, calls, BENCH_K);
}

int main(void)
{
	static struct bench b;
	struct t_pair_cfg cfg;
	uint64_t t_k;

	t_pair_default_cfg(&cfg);
	cfg.caps.max_send_wr = BENCH_SQ;
	cfg.caps.max_recv_wr = BENCH_RQ;
	cfg.cqe = BENCH_CQE;
	t_pair_open(&b.p, &cfg);
	CHECKF(b.p.s[0].cap.max_send_wr >= BENCH_K + BENCH_WARM &&
	       b.p.s[1].cap.max_recv_wr >= 2 * BENCH_K + BENCH_WARM,
	       "queues too small (SQ %u, RQ %u)", b.p.s[0].cap.max_send_wr,
	       b.p.s[1].cap.max_recv_wr);
	t_buf_alloc(&b.src, b.p.s[0].pd, BENCH_K * BENCH_MSG);
	t_buf_alloc(&b.dst, b.p.s[1].pd, BENCH_K * BENCH_MSG);
	t_buf_alloc(&b.rbuf, b.p.s[1].pd, BENCH_K * BENCH_MSG);
	t_fill(b.src.p, b.src.len, 0x1157);
	b.next_id = 1;
	b.next_rid = 1000000;

	printf("bench_instr: K = %d, %d-byte RDMA WRITEs rnic0 -> rnic1, one SGE\n",
	       BENCH_K, BENCH_MSG);
	t_k = warm_up(&b);
	printf("bench_instr: %d WRITEs complete %" PRIu64 " cycles after posting\n",
	       BENCH_K, t_k);
	round_post(&b);
	round_poll(&b, t_k, 1, "poll_cq_1");
	round_poll(&b, t_k, BENCH_MULTI, "poll_cq_16");
	build_recvs(&b);
	post_recvs(&b, "post_recv");
	CHECK_MEM(b.dst.p, b.src.p, BENCH_K * BENCH_MSG);

	t_buf_free(&b.src);
	t_buf_free(&b.dst);
	t_buf_free(&b.rbuf);
	t_pair_close(&b.p);
	printf("bench_instr: done\n");
	return 0;
}
