// SPDX-License-Identifier: MIT
/*
 * sys_atomic.c - IBV_WR_ATOMIC_FETCH_AND_ADD and IBV_WR_ATOMIC_CMP_AND_SWP.
 *
 * "The atomic operations are 8-byte, executed atomically by the responder":
 * the local SGE (8 bytes) receives the value before the operation, the
 * remote 8 bytes hold the result. Checked on two nodes and in loopback:
 *   - FETCH_AND_ADD returns the old value and adds;
 *   - CMP_AND_SWP swaps when equal, leaves memory alone when not, and
 *     returns the old value either way;
 *   - 32 FETCH_AND_ADDs on one address in one chain, more than the QP's
 *     max_rd_atomic (4) outstanding at once: each sees the one before;
 *   - an atomic after an RDMA WRITE to the same address sees the written
 *     value, an RDMA READ after an atomic sees its result, and an RDMA
 *     WRITE after one overwrites it, each posted without waiting for the
 *     atomic (the responder executes a QP's requests in order, though its
 *     atomic unit answers atomics apart from the engine);
 *   - 64 FETCH_AND_ADDs of 1 on one counter from four QPs at once: the
 *     values returned are the 64 values the counter went through, each
 *     once (every read-modify-write saw the one before, whichever QP);
 *   - completions: opcode IBV_WC_COMP_SWAP / IBV_WC_FETCH_ADD, byte_len 8.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "common.h"

#define N_CHAIN 32
#define BIG 65536

static uint64_t get64(const uint8_t *p)
{
	uint64_t v;

	memcpy(&v, p, 8);
	return v;
}

static void put64(uint8_t *p, uint64_t v)
{
	memcpy(p, &v, 8);
}

/*
 * N_QPS more QP pairs, each posting N_ADDS FETCH_AND_ADDs of 1 on the
 * counter at tgt + 48, all posted before the first is polled.
 */
#define N_QPS 4
#define N_ADDS 16
static void many_qps(struct t_pair *p, struct t_buf *tgt)
{
	unsigned int acc = T_MR_ACCESS | IBV_ACCESS_REMOTE_ATOMIC;
	struct ibv_qp *a[N_QPS], *b[N_QPS];
	struct ibv_wc wc[N_QPS * N_ADDS];
	uint8_t seen[N_QPS * N_ADDS] = { 0 };
	struct t_pair_cfg cfg;
	struct t_qp_attrs at;
	union ibv_gid ga, gb;
	struct t_buf res;
	int i, k, n;

	t_pair_default_cfg(&cfg);
	cfg.caps.max_send_wr = N_ADDS;
	t_qp_default_attrs(&at);
	at.access |= IBV_ACCESS_REMOTE_ATOMIC;
	at.max_rd_atomic = 4;
	at.max_dest_rd_atomic = 4;
	t_query_gid(p->s[0].ctx, &ga);
	t_query_gid(p->s[1].ctx, &gb);
	t_buf_alloc_access(&res, p->s[0].pd, 8 * N_QPS * N_ADDS, acc);
	put64(tgt->p + 48, 5000);
	for (i = 0; i < N_QPS; i++) {
		a[i] = t_create_rc_qp(p->s[0].pd, p->s[0].scq, p->s[0].rcq,
				      &cfg.caps, NULL);
		b[i] = t_create_rc_qp(p->s[1].pd, p->s[1].scq, p->s[1].rcq,
				      &cfg.caps, NULL);
		t_qp_to_rts_attrs(a[i], IBV_MTU_1024, &gb, b[i]->qp_num, 0x300,
				  0x100, &at);
		t_qp_to_rts_attrs(b[i], IBV_MTU_1024, &ga, a[i]->qp_num, 0x100,
				  0x300, &at);
	}
	for (k = 0; k < N_ADDS; k++) {
		for (i = 0; i < N_QPS; i++) {
			struct ibv_sge s = t_sge(&res, 8 * (size_t)(i * N_ADDS + k), 8);

			POST_ATOMIC(a[i], 1000 + i * N_ADDS + k,
				    IBV_WR_ATOMIC_FETCH_AND_ADD, IBV_SEND_SIGNALED,
				    &s, t_addr(tgt, 48), tgt->mr->rkey, 1, 0);
		}
	}
	POLL(p->s[0].scq, N_QPS * N_ADDS, wc);
	for (n = 0; n < N_QPS * N_ADDS; n++) {
		uint64_t v = get64(res.p + 8 * (size_t)n);

		CHECK_EQ(wc[n].status, IBV_WC_SUCCESS);
		CHECKF(v >= 5000 && v < 5000 + N_QPS * N_ADDS && !seen[v - 5000],
		       "add %d returned %" PRIu64 " (out of range or twice)", n, v);
		if (v >= 5000 && v < 5000 + N_QPS * N_ADDS)
			seen[v - 5000] = 1;
	}
	/* Each QP's adds returned rising values, in its posting order. */
	for (i = 0; i < N_QPS; i++)
		for (k = 1; k < N_ADDS; k++)
			CHECK(get64(res.p + 8 * (size_t)(i * N_ADDS + k)) >
			      get64(res.p + 8 * (size_t)(i * N_ADDS + k - 1)));
	CHECK_EQ(get64(tgt->p + 48), 5000 + N_QPS * N_ADDS);
	for (i = 0; i < N_QPS; i++) {
		CHECK_OK(ibv_destroy_qp(a[i]));
		CHECK_OK(ibv_destroy_qp(b[i]));
	}
	t_buf_free(&res);
}

static void run(int loopback)
{
	unsigned int acc = T_MR_ACCESS | IBV_ACCESS_REMOTE_ATOMIC;
	struct t_pair_cfg cfg;
	struct t_pair p;
	struct t_buf res, tgt, src, bigl, bigr;
	struct ibv_wc wc[N_CHAIN];
	struct ibv_sge sg;
	uint32_t qpn;
	int i;

	t_pair_default_cfg(&cfg);
	cfg.loopback = loopback;
	cfg.caps.max_send_wr = 64;
	cfg.cqe = 128;
	for (i = 0; i < 2; i++) {
		cfg.attrs[i].access |= IBV_ACCESS_REMOTE_ATOMIC;
		cfg.attrs[i].max_rd_atomic = 4;
		cfg.attrs[i].max_dest_rd_atomic = 4;
	}
	t_pair_open(&p, &cfg);
	qpn = p.s[0].qp->qp_num;
	t_buf_alloc_access(&res, p.s[0].pd, 8 * N_CHAIN, acc);
	t_buf_alloc_access(&src, p.s[0].pd, 64, acc);
	t_buf_alloc_access(&tgt, p.s[1].pd, 64, acc);
	t_buf_alloc_access(&bigl, p.s[0].pd, BIG, acc);
	t_buf_alloc_access(&bigr, p.s[1].pd, BIG, acc);

	/* FETCH_AND_ADD */
	put64(tgt.p, 0x1000);
	memset(res.p, 0xee, 8);
	sg = t_sge(&res, 0, 8);
	POST_ATOMIC(p.s[0].qp, 1, IBV_WR_ATOMIC_FETCH_AND_ADD, IBV_SEND_SIGNALED,
		    &sg, t_addr(&tgt, 0), tgt.mr->rkey, 0x23, 0);
	POLL(p.s[0].scq, 1, wc);
	EXPECT_WC(&wc[0], 1, IBV_WC_SUCCESS, IBV_WC_FETCH_ADD, qpn, 8, 0, T_ANY);
	CHECK_EQ(get64(res.p), 0x1000);
	CHECK_EQ(get64(tgt.p), 0x1023);

	/* CMP_AND_SWP, equal: swapped */
	POST_ATOMIC(p.s[0].qp, 2, IBV_WR_ATOMIC_CMP_AND_SWP, IBV_SEND_SIGNALED,
		    &sg, t_addr(&tgt, 0), tgt.mr->rkey, 0x1023, 0xdeadbeefcafef00dULL);
	POLL(p.s[0].scq, 1, wc);
	EXPECT_WC(&wc[0], 2, IBV_WC_SUCCESS, IBV_WC_COMP_SWAP, qpn, 8, 0, T_ANY);
	CHECK_EQ(get64(res.p), 0x1023);
	CHECK_EQ(get64(tgt.p), 0xdeadbeefcafef00dULL);

	/* CMP_AND_SWP, not equal: memory unchanged, old value returned */
	POST_ATOMIC(p.s[0].qp, 3, IBV_WR_ATOMIC_CMP_AND_SWP, IBV_SEND_SIGNALED,
		    &sg, t_addr(&tgt, 0), tgt.mr->rkey, 1, 2);
	POLL(p.s[0].scq, 1, wc);
	EXPECT_WC(&wc[0], 3, IBV_WC_SUCCESS, IBV_WC_COMP_SWAP, qpn, 8, 0, T_ANY);
	CHECK_EQ(get64(res.p), 0xdeadbeefcafef00dULL);
	CHECK_EQ(get64(tgt.p), 0xdeadbeefcafef00dULL);

	/* A chain of FETCH_AND_ADDs at the third word of the target. */
	put64(tgt.p + 16, 1000);
	for (i = 0; i < N_CHAIN; i++) {
		struct ibv_sge s = t_sge(&res, 8 * (size_t)i, 8);

		POST_ATOMIC(p.s[0].qp, 100 + i, IBV_WR_ATOMIC_FETCH_AND_ADD,
			    IBV_SEND_SIGNALED, &s, t_addr(&tgt, 16), tgt.mr->rkey,
			    (uint64_t)i + 1, 0);
	}
	POLL(p.s[0].scq, N_CHAIN, wc);
	{
		uint64_t v = 1000;

		for (i = 0; i < N_CHAIN; i++) {
			EXPECT_WC(&wc[i], 100 + i, IBV_WC_SUCCESS, IBV_WC_FETCH_ADD,
				  qpn, 8, 0, T_ANY);
			CHECKF(get64(res.p + 8 * i) == v,
			       "add %d saw %" PRIu64 ", expected %" PRIu64, i,
			       get64(res.p + 8 * i), v);
			v += (uint64_t)i + 1;
		}
		CHECK_EQ(get64(tgt.p + 16), v);
	}

	/* WRITE then FETCH_AND_ADD on the written word. */
	put64(src.p, 0x5555000000000000ULL);
	sg = t_sge(&src, 0, 8);
	POST_SEND(p.s[0].qp, 7, IBV_WR_RDMA_WRITE, 0, &sg, 1, t_addr(&tgt, 32),
		  tgt.mr->rkey, 0);
	sg = t_sge(&res, 0, 8);
	POST_ATOMIC(p.s[0].qp, 8, IBV_WR_ATOMIC_FETCH_AND_ADD, IBV_SEND_SIGNALED,
		    &sg, t_addr(&tgt, 32), tgt.mr->rkey, 5, 0);
	POLL(p.s[0].scq, 1, wc);
	EXPECT_WC(&wc[0], 8, IBV_WC_SUCCESS, IBV_WC_FETCH_ADD, qpn, 8, 0, T_ANY);
	CHECK_EQ(get64(res.p), 0x5555000000000000ULL);
	CHECK_EQ(get64(tgt.p + 32), 0x5555000000000005ULL);

	/* FETCH_AND_ADD then a READ of the same word, posted together: the
	 * READ sees the sum. */
	put64(tgt.p + 40, 0x7000);
	sg = t_sge(&res, 0, 8);
	POST_ATOMIC(p.s[0].qp, 9, IBV_WR_ATOMIC_FETCH_AND_ADD, 0, &sg,
		    t_addr(&tgt, 40), tgt.mr->rkey, 0x11, 0);
	sg = t_sge(&res, 8, 8);
	POST_SEND(p.s[0].qp, 10, IBV_WR_RDMA_READ, IBV_SEND_SIGNALED, &sg, 1,
		  t_addr(&tgt, 40), tgt.mr->rkey, 0);
	POLL(p.s[0].scq, 1, wc);
	EXPECT_WC(&wc[0], 10, IBV_WC_SUCCESS, IBV_WC_RDMA_READ, qpn, 8, 0, T_ANY);
	CHECK_EQ(get64(res.p), 0x7000);
	CHECK_EQ(get64(res.p + 8), 0x7011);

	/* FETCH_AND_ADD then a WRITE of the same word, posted together: the
	 * WRITE lands after the atomic's write. A 64 KiB READ before them
	 * keeps the responder's DMA reads busy, so the atomic's read returns
	 * long after the WRITE arrives. (A READ between the atomic and the
	 * WRITE could see either: a WRITE behind a READ needs IBV_SEND_FENCE.) */
	sg = t_sge(&bigl, 0, BIG);
	POST_SEND(p.s[0].qp, 14, IBV_WR_RDMA_READ, 0, &sg, 1, t_addr(&bigr, 0),
		  bigr.mr->rkey, 0);
	sg = t_sge(&res, 16, 8);
	POST_ATOMIC(p.s[0].qp, 11, IBV_WR_ATOMIC_FETCH_AND_ADD, 0, &sg,
		    t_addr(&tgt, 40), tgt.mr->rkey, 0x22, 0);
	put64(src.p + 8, 0x6666);
	sg = t_sge(&src, 8, 8);
	POST_SEND(p.s[0].qp, 12, IBV_WR_RDMA_WRITE, IBV_SEND_SIGNALED, &sg, 1,
		  t_addr(&tgt, 40), tgt.mr->rkey, 0);
	POLL(p.s[0].scq, 1, wc);
	EXPECT_WC(&wc[0], 12, IBV_WC_SUCCESS, IBV_WC_RDMA_WRITE, qpn, T_ANY, 0,
		  T_ANY);
	CHECK_EQ(get64(res.p + 16), 0x7011);
	/* The WRITE's bytes are placed once a later request is answered. */
	sg = t_sge(&res, 24, 8);
	POST_SEND(p.s[0].qp, 13, IBV_WR_RDMA_READ, IBV_SEND_SIGNALED, &sg, 1,
		  t_addr(&tgt, 40), tgt.mr->rkey, 0);
	POLL(p.s[0].scq, 1, wc);
	EXPECT_WC(&wc[0], 13, IBV_WC_SUCCESS, IBV_WC_RDMA_READ, qpn, 8, 0, T_ANY);
	CHECK_EQ(get64(res.p + 24), 0x6666);
	CHECK_EQ(get64(tgt.p + 40), 0x6666);

	many_qps(&p, &tgt);

	t_buf_free(&res);
	t_buf_free(&src);
	t_buf_free(&tgt);
	t_buf_free(&bigl);
	t_buf_free(&bigr);
	t_pair_close(&p);
	printf("sys_atomic: %s ok\n", loopback ? "loopback" : "two nodes");
}

int main(void)
{
	run(0);
	run(1);
	return 0;
}
