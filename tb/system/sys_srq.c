// SPDX-License-Identifier: MIT
/*
 * sys_srq.c - shared receive queues (ibv_create_srq, ibv_post_srq_recv,
 * ibv_modify_srq, ibv_query_srq, ibv_destroy_srq, QPs with init_attr.srq).
 *
 * rnic1 has one SRQ shared by two RC QPs and one UD QP; rnic0 has their
 * peers. Each test opens its own setup.
 *
 *   srq_posting_order   messages for the three QPs, interleaved, take the
 *                       SRQ's WQEs in posting order: the k-th message lands
 *                       in the k-th WQE's buffer (bytes checked, the rest
 *                       untouched) and completes with its wr_id, on the QP
 *                       it was sent to
 *   srq_create_attrs    max_wr/max_sge at least what was asked, QPs on an SRQ
 *                       have no receive queue (max_recv_wr 0, ibv_post_recv
 *                       ENOMEM), ibv_query_qp reports the SRQ
 *   srq_full            ENOMEM with bad_wr on the first WR that finds the
 *                       ring full, EINVAL for num_sge above max_sge; room
 *                       again once a completion is polled
 *   srq_limit           ibv_modify_srq(IBV_SRQ_LIMIT) arms the limit:
 *                       IBV_EVENT_SRQ_LIMIT_REACHED exactly when fewer than
 *                       the limit remain, once; ibv_query_srq then reports
 *                       limit 0; another modify arms it again; max_wr cannot
 *                       change, a limit >= max_wr is EINVAL
 *   srq_limit_ud_write_imm  the limit event when UD messages and RDMA
 *                       WRITE_WITH_IMM (which takes a WQE for its completion)
 *                       cross it
 *   srq_recv_too_small  a SEND longer than the WQE's buffer: IBV_WC_LOC_LEN_ERR
 *                       on the QP it came to, IBV_WC_REM_INV_REQ_ERR at the
 *                       sender, the QP's last-WQE event; the next WQE serves
 *                       the other QP
 *   srq_last_wqe        a QP on an SRQ that goes to ERR (ibv_modify_qp, or a
 *                       remote access error at the responder) gives
 *                       IBV_EVENT_QP_LAST_WQE_REACHED; the SRQ's WQEs stay
 *                       for the other QPs
 *   srq_destroy_busy    ibv_destroy_srq is EBUSY while QPs use it
 *   srq_send_inv        SEND_WITH_INV to an RC QP on the SRQ: the message takes
 *                       the SRQ's next WQE and completes with IBV_WC_WITH_INV
 *                       and invalidated_rkey; the type 2 window bound on that
 *                       QP is gone (its MR, EBUSY before, can be deregistered)
 *                       and the next message takes the following WQE
 *   srq_flush_taken     a QP on the SRQ that goes to ERR while it holds a WQE
 *                       (an RC SEND whose SEND_LAST was lost on the wire):
 *                       that WQE completes with IBV_WC_WR_FLUSH_ERR, then the
 *                       last WQE event; the SRQ's next WQE serves another QP
 */
#define _DEFAULT_SOURCE

#include "common.h"
#include "rnic_verbs_ext.h"

#include <endian.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

#define NQ		3	/* RC, RC, UD on rnic1 */
#define SLOT		4096	/* receive buffer of one SRQ WQE */
#define NSLOT		32
#define QKEY		0x11223344
#define CANARY		0x5a
#define UD_GRH		40
#define OP_RC_SEND_LAST	0x02	/* BTH opcode */

struct srq_res {
	struct ibv_context *ctx[2];
	struct ibv_pd *pd[2];
	struct ibv_cq *scq[2], *rcq[2];
	struct ibv_srq *srq;
	struct ibv_srq_attr sattr;	/* as created */
	struct ibv_qp *q[NQ];		/* rnic1, on the SRQ */
	struct ibv_qp *p[NQ];		/* rnic0, their peers */
	struct ibv_ah *ah;		/* rnic0 -> rnic1, for the UD QP */
	struct t_buf src, rbuf, wdst;
	uint64_t next_id;		/* wr_id of the next SRQ WQE posted */
	unsigned int posted;		/* SRQ WQEs posted */
};

static void srq_open(struct srq_res *r, uint32_t max_wr, uint32_t max_sge)
{
	struct ibv_srq_init_attr sa;
	struct t_qp_caps caps;
	union ibv_gid g[2];
	int i;

	memset(r, 0, sizeof(*r));
	r->ctx[0] = t_open_device(T_DEV0);
	r->ctx[1] = t_open_device(T_DEV1);
	for (i = 0; i < 2; i++) {
		r->pd[i] = CHECK_PTR(ibv_alloc_pd(r->ctx[i]));
		r->scq[i] = t_create_cq(r->ctx[i], 64);
		r->rcq[i] = t_create_cq(r->ctx[i], 64);
		t_query_gid(r->ctx[i], &g[i]);
	}
	memset(&sa, 0, sizeof(sa));
	sa.srq_context = r;
	sa.attr.max_wr = max_wr;
	sa.attr.max_sge = max_sge;
	sa.attr.srq_limit = 7;	/* not an input of ibv_create_srq */
	r->srq = CHECK_PTR(ibv_create_srq(r->pd[1], &sa));
	CHECK(sa.attr.max_wr >= max_wr);
	CHECK(sa.attr.max_sge >= max_sge);
	CHECK(r->srq->context == r->ctx[1]);
	CHECK(r->srq->pd == r->pd[1]);
	CHECK(r->srq->srq_context == r);
	r->sattr = sa.attr;

	memset(&caps, 0, sizeof(caps));
	caps.max_send_wr = 16;
	caps.max_recv_wr = 16;
	caps.max_send_sge = 1;
	caps.max_recv_sge = 1;
	for (i = 0; i < NQ; i++) {
		enum ibv_qp_type t = i < 2 ? IBV_QPT_RC : IBV_QPT_UD;

		r->q[i] = t_create_qp_srq(r->pd[1], r->scq[1], r->rcq[1], r->srq, t, &caps);
		r->p[i] = t_create_qp(r->pd[0], r->scq[0], r->rcq[0], t, 0, &caps, NULL);
		if (t == IBV_QPT_RC) {
			t_qp_to_rts(r->p[i], IBV_MTU_1024, &g[1], r->q[i]->qp_num,
				    0x100 * (i + 1), 0x2000 * (i + 1));
			t_qp_to_rts(r->q[i], IBV_MTU_1024, &g[0], r->p[i]->qp_num,
				    0x2000 * (i + 1), 0x100 * (i + 1));
		} else {
			t_ud_qp_to_rts(r->p[i], QKEY, 0x300);
			t_ud_qp_to_rts(r->q[i], QKEY, 0x400);
		}
	}
	r->ah = t_create_ah(r->pd[0], r->ctx[1]);
	t_buf_alloc(&r->src, r->pd[0], (size_t)NSLOT * SLOT);
	t_buf_alloc(&r->rbuf, r->pd[1], (size_t)NSLOT * SLOT);
	t_buf_alloc(&r->wdst, r->pd[1], SLOT);
	memset(r->rbuf.p, CANARY, (size_t)NSLOT * SLOT);
	r->next_id = 1000;
}

static void srq_close(struct srq_res *r)
{
	int i;

	t_buf_free(&r->src);
	t_buf_free(&r->rbuf);
	t_buf_free(&r->wdst);
	CHECK_OK(ibv_destroy_ah(r->ah));
	for (i = 0; i < NQ; i++) {
		CHECK_OK(ibv_destroy_qp(r->q[i]));
		CHECK_OK(ibv_destroy_qp(r->p[i]));
	}
	CHECK_OK(ibv_destroy_srq(r->srq));
	for (i = 0; i < 2; i++) {
		CHECK_OK(ibv_destroy_cq(r->scq[i]));
		CHECK_OK(ibv_destroy_cq(r->rcq[i]));
		CHECK_OK(ibv_dealloc_pd(r->pd[i]));
		CHECK_OK(ibv_close_device(r->ctx[i]));
	}
}

/* Posts @n SRQ WQEs in one call; WQE k of the SRQ (k = r->posted) gets
 * wr_id next_id + k and the buffer slot k mod NSLOT. */
static void srq_post(struct srq_res *r, unsigned int n)
{
	struct ibv_recv_wr wr[NSLOT], *bad = NULL;
	struct ibv_sge sg[NSLOT];
	unsigned int i;

	CHECK(n <= NSLOT);
	memset(wr, 0, sizeof(wr));
	for (i = 0; i < n; i++) {
		unsigned int k = r->posted + i;

		sg[i] = t_sge(&r->rbuf, (size_t)(k % NSLOT) * SLOT, SLOT);
		wr[i].wr_id = r->next_id + k;
		wr[i].sg_list = &sg[i];
		wr[i].num_sge = 1;
		wr[i].next = i + 1 < n ? &wr[i + 1] : NULL;
	}
	CHECK_OK(ibv_post_srq_recv(r->srq, wr, &bad));
	r->posted += n;
}

/* Sends message @k (@len bytes, content seeded by k) from peer @i to its
 * QP on the SRQ and waits for the sender's completion (RC: acknowledged;
 * UD: sent, then the receive completion is awaited by the caller). */
static void srq_send(struct srq_res *r, int i, unsigned int k, uint32_t len)
{
	struct ibv_sge sg = t_sge(&r->src, (size_t)(k % NSLOT) * SLOT, len);
	struct ibv_wc wc;

	t_fill(r->src.p + (size_t)(k % NSLOT) * SLOT, len, 0x5000 + k);
	if (i < 2)
		POST_SEND(r->p[i], k, IBV_WR_SEND, IBV_SEND_SIGNALED, &sg, len ? 1 : 0,
			  0, 0, 0);
	else
		POST_UD_SEND(r->p[i], k, IBV_WR_SEND, IBV_SEND_SIGNALED, &sg, len ? 1 : 0,
			     r->ah, r->q[i]->qp_num, QKEY, 0);
	POLL(r->scq[0], 1, &wc);
	EXPECT_WC(&wc, k, IBV_WC_SUCCESS, IBV_WC_SEND, r->p[i]->qp_num, T_ANY, T_ANY,
		  T_ANY);
}

/* The receive completion of message @k: WQE k of the SRQ, QP @i. */
static void srq_expect_recv(struct srq_res *r, int i, unsigned int k, uint32_t len)
{
	uint8_t *dst = r->rbuf.p + (size_t)(k % NSLOT) * SLOT;
	const uint8_t *src = r->src.p + (size_t)(k % NSLOT) * SLOT;
	uint32_t off = i < 2 ? 0 : UD_GRH;
	struct ibv_wc wc;

	POLL(r->rcq[1], 1, &wc);
	EXPECT_WC(&wc, r->next_id + k, IBV_WC_SUCCESS, IBV_WC_RECV, r->q[i]->qp_num,
		  len + off, T_ANY, T_ANY);
	CHECK_MEM(dst + off, src, len);
	CHECK_FILL(dst + off + len, CANARY, SLOT - off - len);
	memset(dst, CANARY, SLOT);
}

static void srq_posting_order(void)
{
	/* (QP, length): RC QP 0, RC QP 1 (multi-packet at MTU 1024), UD QP 2. */
	static const struct { int qp; uint32_t len; } msg[] = {
		{ 0, 100 }, { 1, 3000 }, { 1, 1 }, { 2, 64 }, { 0, 4096 },
		{ 0, 0 }, { 2, 1000 }, { 1, 2500 }, { 0, 777 }, { 1, 64 },
	};
	const unsigned int n = sizeof(msg) / sizeof(msg[0]);
	struct srq_res r;
	unsigned int k;

	srq_open(&r, 16, 1);
	srq_post(&r, n);
	/* Each message is on the wire before the next is posted (RC: ACKed,
	 * UD: sent), so they arrive in this order. */
	for (k = 0; k < n; k++)
		srq_send(&r, msg[k].qp, k, msg[k].len);
	/* Polled only now: message k took WQE k, whichever QP it was for. */
	for (k = 0; k < n; k++)
		srq_expect_recv(&r, msg[k].qp, k, msg[k].len);
	EXPECT_EMPTY(r.rcq[1], T_EMPTY_POLLS);
	srq_close(&r);
	printf("srq_posting_order: ok\n");
}

static void srq_create_attrs(void)
{
	struct ibv_qp_init_attr init;
	struct ibv_device_attr da;
	struct ibv_recv_wr wr, *bad = NULL;
	struct ibv_srq_attr sa;
	struct ibv_qp_attr qa;
	struct ibv_sge sg;
	struct srq_res r;

	srq_open(&r, 5, 2);
	CHECK_OK(ibv_query_device(r.ctx[1], &da));
	CHECK(da.max_srq > 0);
	CHECK(da.max_srq_wr >= (int)r.sattr.max_wr);
	CHECK(da.max_srq_sge >= (int)r.sattr.max_sge);
	CHECK_OK(ibv_query_srq(r.srq, &sa));
	CHECK_EQ(sa.max_wr, r.sattr.max_wr);
	CHECK_EQ(sa.max_sge, r.sattr.max_sge);
	CHECK_EQ(sa.srq_limit, 0);

	CHECK_OK(ibv_query_qp(r.q[0], &qa, IBV_QP_CAP, &init));
	CHECK(init.srq == r.srq);
	CHECK_EQ(init.cap.max_recv_wr, 0);
	CHECK_EQ(qa.cap.max_recv_wr, 0);

	/* A QP on an SRQ has no receive queue of its own. */
	sg = t_sge(&r.rbuf, 0, 64);
	memset(&wr, 0, sizeof(wr));
	wr.wr_id = 1;
	wr.sg_list = &sg;
	wr.num_sge = 1;
	CHECK_EQ(ibv_post_recv(r.q[0], &wr, &bad), ENOMEM);
	CHECK(bad == &wr);
	srq_close(&r);
	printf("srq_create_attrs: ok\n");
}

static void srq_full(void)
{
	struct ibv_recv_wr wr[2], *bad;
	struct ibv_sge sg[8];
	struct srq_res r;
	unsigned int i, cap;

	srq_open(&r, 8, 1);
	cap = r.sattr.max_wr;
	CHECK(cap <= NSLOT);

	/* num_sge above max_sge: EINVAL, bad_wr is that WR, nothing posted
	 * (the WR before it is). */
	memset(wr, 0, sizeof(wr));
	for (i = 1; i < 8; i++)
		sg[i] = t_sge(&r.rbuf, 0, 8);
	sg[0] = t_sge(&r.rbuf, 0, SLOT);	/* WQE 0: region 0 */
	wr[0].wr_id = r.next_id;
	wr[0].sg_list = &sg[0];
	wr[0].num_sge = 1;
	wr[0].next = &wr[1];
	wr[1].sg_list = &sg[1];
	wr[1].num_sge = (int)r.sattr.max_sge + 1;
	bad = NULL;
	CHECK_EQ(ibv_post_srq_recv(r.srq, wr, &bad), EINVAL);
	CHECK(bad == &wr[1]);
	r.posted = 1;
	srq_post(&r, cap - 1);

	/* Full: the first WR fails, nothing is posted. */
	memset(wr, 0, sizeof(wr));
	for (i = 0; i < 2; i++) {
		sg[i] = t_sge(&r.rbuf, 0, 16);
		wr[i].wr_id = 9000 + i;
		wr[i].sg_list = &sg[i];
		wr[i].num_sge = 1;
	}
	wr[0].next = &wr[1];
	bad = NULL;
	CHECK_EQ(ibv_post_srq_recv(r.srq, wr, &bad), ENOMEM);
	CHECK(bad == &wr[0]);

	/* One message takes WQE 0; once its completion is polled, its slot
	 * takes the next WR, and the one after finds the ring full again. */
	srq_send(&r, 0, 0, 200);
	srq_expect_recv(&r, 0, 0, 200);
	wr[0].wr_id = r.next_id + cap;
	wr[0].sg_list = &sg[0];
	sg[0] = t_sge(&r.rbuf, (size_t)(cap % NSLOT) * SLOT, SLOT);
	bad = NULL;
	CHECK_EQ(ibv_post_srq_recv(r.srq, wr, &bad), ENOMEM);
	CHECK(bad == &wr[1]);
	r.posted++;

	/* The WQEs still work, in order: 1 .. cap. */
	for (i = 1; i <= cap; i++) {
		srq_send(&r, (int)(i % 2), i, 100 + i);
		srq_expect_recv(&r, (int)(i % 2), i, 100 + i);
	}
	srq_close(&r);
	printf("srq_full: ok\n");
}

static void srq_limit(void)
{
	struct ibv_srq_attr a;
	struct srq_res r;
	unsigned int k;

	srq_open(&r, 16, 1);
	srq_post(&r, 8);

	/* max_wr is fixed; a limit must be below it. Nothing changes. */
	memset(&a, 0, sizeof(a));
	a.max_wr = r.sattr.max_wr * 2;
	CHECK_EQ(ibv_modify_srq(r.srq, &a, IBV_SRQ_MAX_WR), EINVAL);
	a.srq_limit = r.sattr.max_wr;
	CHECK_EQ(ibv_modify_srq(r.srq, &a, IBV_SRQ_LIMIT), EINVAL);
	CHECK_OK(ibv_query_srq(r.srq, &a));
	CHECK_EQ(a.max_wr, r.sattr.max_wr);
	CHECK_EQ(a.srq_limit, 0);

	a.srq_limit = 4;
	CHECK_OK(ibv_modify_srq(r.srq, &a, IBV_SRQ_LIMIT));
	CHECK_OK(ibv_query_srq(r.srq, &a));
	CHECK_EQ(a.srq_limit, 4);

	/* 8 posted: after 4 messages 4 remain (not below 4), no event. */
	for (k = 0; k < 4; k++)
		srq_send(&r, (int)(k % 2), k, 32);
	EXPECT_FD_QUIET(r.ctx[1]->async_fd, T_QUIET_MS);
	/* The 5th leaves 3: the event, once. */
	srq_send(&r, 0, 4, 32);
	EXPECT_ASYNC_EVENT(r.ctx[1], IBV_EVENT_SRQ_LIMIT_REACHED, r.srq);
	CHECK_OK(ibv_query_srq(r.srq, &a));
	CHECK_EQ(a.srq_limit, 0);
	srq_send(&r, 1, 5, 32);
	EXPECT_FD_QUIET(r.ctx[1]->async_fd, T_QUIET_MS);

	/* 2 left + 8 = 10; armed at 9: the 7th message leaves 9, the 8th 8. */
	srq_post(&r, 8);
	a.srq_limit = 9;
	CHECK_OK(ibv_modify_srq(r.srq, &a, IBV_SRQ_LIMIT));
	srq_send(&r, 0, 6, 32);
	EXPECT_FD_QUIET(r.ctx[1]->async_fd, T_QUIET_MS);
	srq_send(&r, 1, 7, 32);
	EXPECT_ASYNC_EVENT(r.ctx[1], IBV_EVENT_SRQ_LIMIT_REACHED, r.srq);
	EXPECT_FD_QUIET(r.ctx[1]->async_fd, T_QUIET_MS);

	/* Disarm with 0: nothing more. */
	a.srq_limit = 0;
	CHECK_OK(ibv_modify_srq(r.srq, &a, IBV_SRQ_LIMIT));
	srq_send(&r, 0, 8, 32);
	EXPECT_FD_QUIET(r.ctx[1]->async_fd, T_QUIET_MS);

	for (k = 0; k < 9; k++)
		srq_expect_recv(&r, (int)(k % 2), k, 32);
	srq_close(&r);
	printf("srq_limit: ok\n");
}

/* The limit crossed by the other two consumers of SRQ WQEs: UD messages and
 * RDMA WRITE_WITH_IMM (its WQE gets only the completion). */
static void srq_limit_ud_write_imm(void)
{
	struct ibv_srq_attr a;
	struct srq_res r;
	struct ibv_sge sg;
	struct ibv_wc wc;
	unsigned int k;

	srq_open(&r, 16, 1);
	srq_post(&r, 8);
	memset(&a, 0, sizeof(a));
	a.srq_limit = 4;
	CHECK_OK(ibv_modify_srq(r.srq, &a, IBV_SRQ_LIMIT));
	for (k = 0; k < 4; k++)
		srq_send(&r, 2, k, 32);
	EXPECT_FD_QUIET(r.ctx[1]->async_fd, T_QUIET_MS);
	srq_send(&r, 2, 4, 32);
	EXPECT_ASYNC_EVENT(r.ctx[1], IBV_EVENT_SRQ_LIMIT_REACHED, r.srq);
	for (k = 0; k < 5; k++)
		srq_expect_recv(&r, 2, k, 32);

	/* 3 left + 8 = 11; armed at 10: the 2nd WRITE_WITH_IMM leaves 9. */
	srq_post(&r, 8);
	a.srq_limit = 10;
	CHECK_OK(ibv_modify_srq(r.srq, &a, IBV_SRQ_LIMIT));
	t_fill(r.src.p, 64, 0x77);
	for (k = 5; k < 7; k++) {
		sg = t_sge(&r.src, 0, 64);
		POST_SEND(r.p[0], k, IBV_WR_RDMA_WRITE_WITH_IMM, IBV_SEND_SIGNALED, &sg, 1,
			  t_addr(&r.wdst, 0), r.wdst.mr->rkey, htobe32(k));
		POLL(r.scq[0], 1, &wc);
		EXPECT_WC(&wc, k, IBV_WC_SUCCESS, IBV_WC_RDMA_WRITE, r.p[0]->qp_num, T_ANY,
			  T_ANY, T_ANY);
		POLL(r.rcq[1], 1, &wc);
		EXPECT_WC(&wc, r.next_id + k, IBV_WC_SUCCESS, IBV_WC_RECV_RDMA_WITH_IMM,
			  r.q[0]->qp_num, 64, IBV_WC_WITH_IMM, (long long)htobe32(k));
		if (k == 5)
			EXPECT_FD_QUIET(r.ctx[1]->async_fd, T_QUIET_MS);
	}
	EXPECT_ASYNC_EVENT(r.ctx[1], IBV_EVENT_SRQ_LIMIT_REACHED, r.srq);
	CHECK_MEM(r.wdst.p, r.src.p, 64);
	srq_close(&r);
	printf("srq_limit_ud_write_imm: ok\n");
}

/* A SEND longer than the SRQ WQE's buffer: the WQE completes with
 * IBV_WC_LOC_LEN_ERR on the QP it arrived at, the sender gets
 * IBV_WC_REM_INV_REQ_ERR; the next WQE serves the other QP. */
static void srq_recv_too_small(void)
{
	struct srq_res r;
	struct ibv_sge sg;
	struct ibv_wc wc;

	srq_open(&r, 16, 1);
	srq_post(&r, 2);
	sg = t_sge(&r.src, 0, SLOT + 100);
	POST_SEND(r.p[0], 1, IBV_WR_SEND, IBV_SEND_SIGNALED, &sg, 1, 0, 0, 0);
	POLL(r.scq[0], 1, &wc);
	EXPECT_WC(&wc, 1, IBV_WC_REM_INV_REQ_ERR, T_ANY, r.p[0]->qp_num, T_ANY, T_ANY, T_ANY);
	POLL(r.rcq[1], 1, &wc);
	EXPECT_WC(&wc, r.next_id, IBV_WC_LOC_LEN_ERR, T_ANY, r.q[0]->qp_num, T_ANY, T_ANY,
		  T_ANY);
	EXPECT_ASYNC_EVENT(r.ctx[1], IBV_EVENT_QP_LAST_WQE_REACHED, r.q[0]);
	srq_send(&r, 1, 1, 100);
	srq_expect_recv(&r, 1, 1, 100);
	srq_close(&r);
	printf("srq_recv_too_small: ok\n");
}

static void srq_last_wqe(void)
{
	struct ibv_qp_attr a;
	struct ibv_qp_init_attr ia;
	struct ibv_sge sg;
	struct ibv_wc wc;
	struct srq_res r;

	srq_open(&r, 16, 1);
	srq_post(&r, 4);
	srq_send(&r, 0, 0, 50);
	srq_expect_recv(&r, 0, 0, 50);

	/* QP 0 to ERR: it holds no WQE, so nothing is flushed; it hears that
	 * its last WQE was reached. */
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_ERR;
	CHECK_OK(ibv_modify_qp(r.q[0], &a, IBV_QP_STATE));
	EXPECT_ASYNC_EVENT(r.ctx[1], IBV_EVENT_QP_LAST_WQE_REACHED, r.q[0]);
	EXPECT_EMPTY(r.rcq[1], T_EMPTY_POLLS);

	/* The SRQ's WQEs are still there for QP 1. */
	srq_send(&r, 1, 1, 60);
	srq_expect_recv(&r, 1, 1, 60);

	/* A remote access error puts QP 1 (the responder) in ERR: an access
	 * error event, then last WQE reached. */
	sg = t_sge(&r.src, 0, 16);
	POST_SEND(r.p[1], 77, IBV_WR_RDMA_WRITE, IBV_SEND_SIGNALED, &sg, 1,
		  t_addr(&r.wdst, 0), r.wdst.mr->rkey ^ 0x80, 0);
	POLL(r.scq[0], 1, &wc);
	EXPECT_WC(&wc, 77, IBV_WC_REM_ACCESS_ERR, T_ANY, r.p[1]->qp_num, T_ANY, T_ANY,
		  T_ANY);
	EXPECT_ASYNC_EVENT(r.ctx[1], IBV_EVENT_QP_ACCESS_ERR, r.q[1]);
	EXPECT_ASYNC_EVENT(r.ctx[1], IBV_EVENT_QP_LAST_WQE_REACHED, r.q[1]);
	CHECK_OK(ibv_query_qp(r.q[1], &a, IBV_QP_STATE, &ia));
	CHECK_EQ(a.qp_state, IBV_QPS_ERR);
	EXPECT_EMPTY(r.rcq[1], T_EMPTY_POLLS);

	/* And the UD QP still takes the next one. */
	srq_send(&r, 2, 2, 70);
	srq_expect_recv(&r, 2, 2, 70);
	EXPECT_FD_QUIET(r.ctx[1]->async_fd, T_QUIET_MS);
	srq_close(&r);
	printf("srq_last_wqe: ok\n");
}

static void srq_destroy_busy(void)
{
	struct srq_res r;

	srq_open(&r, 4, 1);
	CHECK_EQ(ibv_destroy_srq(r.srq), EBUSY);
	CHECK_EQ(ibv_dealloc_pd(r.pd[1]), EBUSY);
	srq_close(&r);
	printf("srq_destroy_busy: ok\n");
}

/* Side 1 binds a type 2 window on q[0], which is on the SRQ; rnic0 sends
 * SEND_WITH_INV of its rkey between two plain SENDs. */
static void srq_send_inv(void)
{
	struct ibv_send_wr wr, *bad = NULL;
	struct srq_res r;
	struct t_buf win;
	struct ibv_mw *mw;
	struct ibv_sge sg;
	struct ibv_wc wc;
	uint32_t rkey;

	srq_open(&r, 16, 1);
	srq_post(&r, 4);
	t_buf_alloc_access(&win, r.pd[1], SLOT, T_MR_ACCESS | IBV_ACCESS_MW_BIND);
	mw = CHECK_PTR(ibv_alloc_mw(r.pd[1], IBV_MW_TYPE_2));
	rkey = ibv_inc_rkey(mw->rkey);
	memset(&wr, 0, sizeof(wr));
	wr.wr_id = 0xb1;
	wr.opcode = IBV_WR_BIND_MW;
	wr.send_flags = IBV_SEND_SIGNALED;
	wr.bind_mw.mw = mw;
	wr.bind_mw.rkey = rkey;
	wr.bind_mw.bind_info.mr = win.mr;
	wr.bind_mw.bind_info.addr = t_addr(&win, 0);
	wr.bind_mw.bind_info.length = SLOT;
	wr.bind_mw.bind_info.mw_access_flags = IBV_ACCESS_REMOTE_WRITE;
	CHECK_OK(ibv_post_send(r.q[0], &wr, &bad));
	POLL(r.scq[1], 1, &wc);
	EXPECT_WC(&wc, 0xb1, IBV_WC_SUCCESS, IBV_WC_BIND_MW, r.q[0]->qp_num, T_ANY, 0,
		  T_ANY);
	CHECK_EQ(ibv_dereg_mr(win.mr), EBUSY);

	/* Message 0 on the other RC QP takes WQE 0. */
	srq_send(&r, 1, 0, 64);
	srq_expect_recv(&r, 1, 0, 64);

	/* Message 1, SEND_WITH_INV on q[0], takes WQE 1. */
	t_fill(r.src.p + SLOT, 200, 0x5001);
	sg = t_sge(&r.src, SLOT, 200);
	memset(&wr, 0, sizeof(wr));
	wr.wr_id = 1;
	wr.opcode = IBV_WR_SEND_WITH_INV;
	wr.send_flags = IBV_SEND_SIGNALED;
	wr.sg_list = &sg;
	wr.num_sge = 1;
	wr.invalidate_rkey = rkey;
	CHECK_OK(ibv_post_send(r.p[0], &wr, &bad));
	POLL(r.rcq[1], 1, &wc);
	EXPECT_WC(&wc, r.next_id + 1, IBV_WC_SUCCESS, IBV_WC_RECV, r.q[0]->qp_num, 200,
		  IBV_WC_WITH_INV, T_ANY);
	CHECK_EQ(wc.invalidated_rkey, rkey);
	CHECK_MEM(r.rbuf.p + SLOT, r.src.p + SLOT, 200);
	POLL(r.scq[0], 1, &wc);
	EXPECT_WC(&wc, 1, IBV_WC_SUCCESS, IBV_WC_SEND, r.p[0]->qp_num, T_ANY, 0, T_ANY);

	/* Message 2, on the same QP, takes WQE 2: WQE 1 was taken once. */
	srq_send(&r, 0, 2, 96);
	srq_expect_recv(&r, 0, 2, 96);

	/* The window is gone: its MR can go. */
	CHECK_OK(ibv_dereg_mr(win.mr));
	win.mr = NULL;
	CHECK_OK(ibv_dealloc_mw(mw));
	t_buf_free(&win);
	srq_close(&r);
	printf("srq_send_inv: ok\n");
}

static void srq_flush_taken(void)
{
	struct ibv_qp_attr a;
	struct ibv_sge sg;
	struct ibv_wc wc;
	struct srq_res r;
	uint64_t h;

	srq_open(&r, 16, 1);
	srq_post(&r, 4);
	/* A 3-packet SEND (MTU 1024) to QP 0 loses its SEND_LAST: the FIRST
	 * took WQE 0, the message stays open. The ACK timeout (67 ms) is far
	 * beyond this test, so nothing is resent. */
	h = rnic_verbs_wire_drop_hits(0);
	CHECK_OK(rnic_verbs_wire_drop(0, OP_RC_SEND_LAST, -1, 0, 1));
	t_fill(r.src.p, 3000, 0x5000);
	sg = t_sge(&r.src, 0, 3000);
	POST_SEND(r.p[0], 0, IBV_WR_SEND, IBV_SEND_SIGNALED, &sg, 1, 0, 0, 0);
	while (rnic_verbs_wire_drop_hits(0) == h)
		CHECK_EQ(ibv_poll_cq(r.rcq[1], 1, &wc), 0);
	EXPECT_EMPTY(r.rcq[1], T_EMPTY_POLLS);

	/* QP 0 to ERR: the WQE it holds is flushed, then its last WQE. */
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_ERR;
	CHECK_OK(ibv_modify_qp(r.q[0], &a, IBV_QP_STATE));
	POLL(r.rcq[1], 1, &wc);
	EXPECT_WC(&wc, r.next_id, IBV_WC_WR_FLUSH_ERR, T_ANY, r.q[0]->qp_num, T_ANY, T_ANY,
		  T_ANY);
	EXPECT_ASYNC_EVENT(r.ctx[1], IBV_EVENT_QP_LAST_WQE_REACHED, r.q[0]);
	EXPECT_EMPTY(r.rcq[1], T_EMPTY_POLLS);

	/* WQE 1 serves QP 1. */
	srq_send(&r, 1, 1, 60);
	srq_expect_recv(&r, 1, 1, 60);
	EXPECT_FD_QUIET(r.ctx[1]->async_fd, T_QUIET_MS);
	srq_close(&r);
	printf("srq_flush_taken: ok\n");
}

int main(void)
{
	srq_posting_order();
	srq_create_attrs();
	srq_full();
	srq_limit();
	srq_limit_ud_write_imm();
	srq_recv_too_small();
	srq_last_wqe();
	srq_destroy_busy();
	srq_send_inv();
	srq_flush_taken();
	printf("sys_srq: passed\n");
	return 0;
}
