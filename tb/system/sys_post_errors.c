// SPDX-License-Identifier: MIT
/*
 * sys_post_errors.c - misuse of the verbs returns errors, never crashes.
 *
 *  - ibv_post_send() on a QP in RESET: EINVAL, *bad_wr = the WR;
 *  - ibv_modify_qp() with a missing required attribute, or an illegal
 *    transition: EINVAL, and the QP state does not change;
 *  - num_sge above the QP's max in the middle of a chain: EINVAL, *bad_wr
 *    = that WR, the WRs before it were posted (they complete), the ones
 *    after it were not (send and receive queues);
 *  - a full send or receive queue: ENOMEM, *bad_wr = the first WR that did
 *    not fit, exactly cap.max_send_wr / cap.max_recv_wr WRs fit, and the
 *    space comes back once completions are polled;
 *  - unsupported objects (SRQ, MW, XRCD, device memory, WQ): NULL with errno
 *    EOPNOTSUPP or ENOSYS (if one is supported, it is created and destroyed);
 *    the device keeps working afterwards.
 */
#define _DEFAULT_SOURCE

#include "common.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define BUF_LEN 16384
#define CQE 1024
#define MAX_WR_CHECKED 1000
#define CANARY 0xd7

struct res {
	struct t_pair p;
	struct t_buf src, dst, rbuf;
	uint32_t qpn0, qpn1;
};

/* A one-SGE signaled RDMA WRITE of 8 bytes into slot i of dst. */
static void write_wr(struct res *r, struct ibv_send_wr *wr,
		     struct ibv_sge *sg, uint64_t wr_id, unsigned int i)
{
	size_t off = (size_t)(i % (BUF_LEN / 8)) * 8;

	*sg = t_sge(&r->src, off, 8);
	memset(wr, 0, sizeof(*wr));
	wr->wr_id = wr_id;
	wr->sg_list = sg;
	wr->num_sge = 1;
	wr->opcode = IBV_WR_RDMA_WRITE;
	wr->send_flags = IBV_SEND_SIGNALED;
	wr->wr.rdma.remote_addr = t_addr(&r->dst, off);
	wr->wr.rdma.rkey = r->dst.mr->rkey;
}

static void reset_qp_errors(struct res *r)
{
	struct t_qp_caps caps = {
		.max_send_wr = 4, .max_recv_wr = 4,
		.max_send_sge = 1, .max_recv_sge = 1,
	};
	struct ibv_send_wr wr, *bad = NULL;
	struct ibv_qp_attr a;
	union ibv_gid gid;
	struct ibv_sge sg;
	struct ibv_cq *cq;
	struct ibv_qp *qp;
	int rc;

	cq = t_create_cq(r->p.s[0].ctx, 16);
	qp = t_create_rc_qp(r->p.s[0].pd, cq, cq, &caps, NULL);

	/* Post to a QP in RESET. */
	write_wr(r, &wr, &sg, 1, 0);
	rc = ibv_post_send(qp, &wr, &bad);
	CHECK_EQ(rc, EINVAL);
	CHECK(bad == &wr);
	EXPECT_EMPTY(cq, T_EMPTY_POLLS);
	printf("post_send on RESET QP -> EINVAL, bad_wr set: ok\n");

	/* RESET -> INIT without port, pkey index and access flags. */
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_INIT;
	a.port_num = T_PORT;
	rc = ibv_modify_qp(qp, &a, IBV_QP_STATE);
	CHECK_EQ(rc, EINVAL);
	CHECK_EQ(t_qp_state(qp), IBV_QPS_RESET);

	/* RESET -> RTS is not a legal transition. */
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTS;
	a.sq_psn = 1;
	a.timeout = 14;
	a.retry_cnt = 7;
	a.rnr_retry = 7;
	a.max_rd_atomic = 1;
	rc = ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_SQ_PSN |
			   IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT |
			   IBV_QP_RNR_RETRY | IBV_QP_MAX_QP_RD_ATOMIC);
	CHECK_EQ(rc, EINVAL);
	CHECK_EQ(t_qp_state(qp), IBV_QPS_RESET);

	/* A correct RESET -> INIT, then INIT -> RTR without dest QPN. */
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_INIT;
	a.port_num = T_PORT;
	a.qp_access_flags = T_QP_ACCESS;
	CHECK_OK(ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX |
			       IBV_QP_PORT | IBV_QP_ACCESS_FLAGS));
	CHECK_EQ(t_qp_state(qp), IBV_QPS_INIT);

	t_query_gid(r->p.s[1].ctx, &gid);
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTR;
	a.path_mtu = IBV_MTU_1024;
	a.dest_qp_num = r->qpn1;
	a.rq_psn = 1;
	a.max_dest_rd_atomic = 1;
	a.min_rnr_timer = 12;
	a.ah_attr.is_global = 1;
	a.ah_attr.grh.dgid = gid;
	a.ah_attr.grh.sgid_index = T_GID_INDEX;
	a.ah_attr.grh.hop_limit = 64;
	a.ah_attr.port_num = T_PORT;
	rc = ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU |
			   IBV_QP_RQ_PSN | IBV_QP_MAX_DEST_RD_ATOMIC |
			   IBV_QP_MIN_RNR_TIMER);
	CHECK_EQ(rc, EINVAL);
	CHECK_EQ(t_qp_state(qp), IBV_QPS_INIT);
	printf("modify_qp with missing attributes / illegal transition -> EINVAL, state kept: ok\n");

	CHECK_OK(ibv_destroy_qp(qp));
	CHECK_OK(ibv_destroy_cq(cq));
}

static void too_many_sges(struct res *r)
{
	uint32_t nsend = r->p.s[0].cap.max_send_sge + 1;
	uint32_t nrecv = r->p.s[0].cap.max_recv_sge + 1;
	uint32_t nmax = nsend > nrecv ? nsend : nrecv;
	struct ibv_send_wr wr[3], *bad = NULL;
	struct ibv_recv_wr rwr[2], *rbad = NULL;
	struct ibv_sge sg[3], rsg, *many;
	struct ibv_wc wc;
	uint32_t i;
	int rc;

	CHECK(nmax < 1024);
	many = calloc(nmax, sizeof(*many));
	CHECK(many != NULL);
	for (i = 0; i < nmax; i++)
		many[i] = t_sge(&r->src, (size_t)i * 8, 8);

	/* Send chain: good, too many SGEs, good. */
	t_fill(r->src.p, BUF_LEN, 0x4400);
	memset(r->dst.p, CANARY, BUF_LEN);
	write_wr(r, &wr[0], &sg[0], 100, 0);
	write_wr(r, &wr[1], &sg[1], 101, 1);
	write_wr(r, &wr[2], &sg[2], 102, 2);
	wr[1].sg_list = many;
	wr[1].num_sge = (int)nsend;
	wr[0].next = &wr[1];
	wr[1].next = &wr[2];
	rc = ibv_post_send(r->p.s[0].qp, wr, &bad);
	CHECK_EQ(rc, EINVAL);
	CHECK(bad == &wr[1]);
	POLL(r->p.s[0].scq, 1, &wc);
	EXPECT_WC(&wc, 100, IBV_WC_SUCCESS, IBV_WC_RDMA_WRITE, r->qpn0, T_ANY,
		  0, T_ANY);
	EXPECT_EMPTY(r->p.s[0].scq, T_EMPTY_POLLS);
	CHECK_MEM(r->dst.p, r->src.p, 8);
	CHECK_FILL(r->dst.p + 8, CANARY, BUF_LEN - 8);
	printf("post_send num_sge %u > max %u -> EINVAL at that WR, earlier WR posted: ok\n",
	       nsend, nsend - 1);

	/* Receive chain on rnic1: good, too many SGEs. */
	memset(r->rbuf.p, CANARY, 256);
	rsg = t_sge(&r->rbuf, 0, 256);
	memset(rwr, 0, sizeof(rwr));
	rwr[0].wr_id = 110;
	rwr[0].sg_list = &rsg;
	rwr[0].num_sge = 1;
	rwr[0].next = &rwr[1];
	rwr[1].wr_id = 111;
	rwr[1].sg_list = many;
	rwr[1].num_sge = (int)(r->p.s[1].cap.max_recv_sge + 1);
	CHECK(r->p.s[1].cap.max_recv_sge + 1 <= nmax);
	rc = ibv_post_recv(r->p.s[1].qp, rwr, &rbad);
	CHECK_EQ(rc, EINVAL);
	CHECK(rbad == &rwr[1]);
	/* The first receive is posted: a SEND consumes it. */
	sg[0] = t_sge(&r->src, 512, 40);
	POST_SEND(r->p.s[0].qp, 112, IBV_WR_SEND, IBV_SEND_SIGNALED, &sg[0], 1,
		  0, 0, 0);
	POLL(r->p.s[1].rcq, 1, &wc);
	EXPECT_WC(&wc, 110, IBV_WC_SUCCESS, IBV_WC_RECV, r->qpn1, 40, 0, T_ANY);
	POLL(r->p.s[0].scq, 1, &wc);
	EXPECT_WC(&wc, 112, IBV_WC_SUCCESS, IBV_WC_SEND, r->qpn0, T_ANY, 0,
		  T_ANY);
	CHECK_MEM(r->rbuf.p, r->src.p + 512, 40);
	EXPECT_EMPTY(r->p.s[1].rcq, T_EMPTY_POLLS);
	printf("post_recv num_sge > max -> EINVAL at that WR, earlier WR posted: ok\n");
	free(many);
}

static void drain_writes(struct res *r, uint32_t n, uint64_t first_id)
{
	struct ibv_wc wc;
	uint32_t i;

	for (i = 0; i < n; i++) {
		POLL(r->p.s[0].scq, 1, &wc);
		EXPECT_WC(&wc, first_id + i, IBV_WC_SUCCESS, IBV_WC_RDMA_WRITE,
			  r->qpn0, T_ANY, 0, T_ANY);
	}
	EXPECT_EMPTY(r->p.s[0].scq, T_EMPTY_POLLS);
}

static void queue_full(struct res *r)
{
	uint32_t k = r->p.s[0].cap.max_send_wr;
	uint32_t kr = r->p.s[1].cap.max_recv_wr;
	struct ibv_send_wr *wr, *bad = NULL;
	struct ibv_recv_wr rwr, *rbad = NULL;
	struct ibv_sge *sg, rsg;
	struct ibv_wc wc;
	uint32_t i;
	int rc;

	CHECK(k >= 1 && k <= MAX_WR_CHECKED && k < CQE);
	CHECK(kr >= 1 && kr <= MAX_WR_CHECKED && kr < CQE);
	wr = calloc(k + 1, sizeof(*wr));
	sg = calloc(k + 1, sizeof(*sg));
	CHECK(wr != NULL && sg != NULL);

	/* One at a time: k fit, the next one does not. */
	for (i = 0; i <= k; i++) {
		write_wr(r, &wr[i], &sg[i], 1000 + i, i);
		rc = ibv_post_send(r->p.s[0].qp, &wr[i], &bad);
		if (i < k) {
			CHECKF(rc == 0, "post_send %u of max_send_wr %u returned %d",
			       i, k, rc);
		} else {
			CHECK_EQ(rc, ENOMEM);
			CHECK(bad == &wr[i]);
		}
	}
	drain_writes(r, k, 1000);
	printf("send queue full after max_send_wr = %u WRs -> ENOMEM: ok\n", k);

	/* One chain of k + 1: the last one does not fit, the rest are posted. */
	for (i = 0; i <= k; i++) {
		write_wr(r, &wr[i], &sg[i], 3000 + i, i);
		wr[i].next = i < k ? &wr[i + 1] : NULL;
	}
	rc = ibv_post_send(r->p.s[0].qp, wr, &bad);
	CHECK_EQ(rc, ENOMEM);
	CHECK(bad == &wr[k]);
	drain_writes(r, k, 3000);
	printf("chain of max_send_wr + 1 -> ENOMEM at the last WR, rest posted: ok\n");

	/* Space is back. */
	write_wr(r, &wr[0], &sg[0], 5000, 0);
	CHECK_OK(ibv_post_send(r->p.s[0].qp, &wr[0], &bad));
	drain_writes(r, 1, 5000);

	/* Receive queue of rnic1: kr fit, the next one does not. */
	rsg = t_sge(&r->rbuf, 0, 256);
	for (i = 0; i <= kr; i++) {
		memset(&rwr, 0, sizeof(rwr));
		rwr.wr_id = 6000 + i;
		rwr.sg_list = &rsg;
		rwr.num_sge = 1;
		rc = ibv_post_recv(r->p.s[1].qp, &rwr, &rbad);
		if (i < kr) {
			CHECKF(rc == 0, "post_recv %u of max_recv_wr %u returned %d",
			       i, kr, rc);
		} else {
			CHECK_EQ(rc, ENOMEM);
			CHECK(rbad == &rwr);
		}
	}
	/* Consume one receive; then one more fits. */
	sg[0] = t_sge(&r->src, 0, 16);
	POST_SEND(r->p.s[0].qp, 7000, IBV_WR_SEND, IBV_SEND_SIGNALED, &sg[0], 1,
		  0, 0, 0);
	POLL(r->p.s[1].rcq, 1, &wc);
	EXPECT_WC(&wc, 6000, IBV_WC_SUCCESS, IBV_WC_RECV, r->qpn1, 16, 0,
		  T_ANY);
	POLL(r->p.s[0].scq, 1, &wc);
	EXPECT_WC(&wc, 7000, IBV_WC_SUCCESS, IBV_WC_SEND, r->qpn0, T_ANY, 0,
		  T_ANY);
	POST_RECV(r->p.s[1].qp, 6999, &rsg, 1);
	printf("recv queue full after max_recv_wr = %u WRs -> ENOMEM: ok\n",
	       kr);

	free(wr);
	free(sg);
}

static void check_unsupported(const char *what, int supported, int err)
{
	if (supported) {
		printf("%s: supported (created and destroyed)\n", what);
		return;
	}
	CHECKF(err == EOPNOTSUPP || err == ENOSYS,
	       "%s returned NULL with errno %d (%s), expected EOPNOTSUPP or ENOSYS",
	       what, err, strerror(err));
	printf("%s: NULL, errno %s: ok\n", what,
	       err == EOPNOTSUPP ? "EOPNOTSUPP" : "ENOSYS");
}

static void unsupported(struct res *r)
{
	struct ibv_context *ctx = r->p.s[0].ctx;
	struct ibv_pd *pd = r->p.s[0].pd;
	struct ibv_srq_init_attr srq_attr;
	struct ibv_xrcd_init_attr xrcd_attr;
	struct ibv_alloc_dm_attr dm_attr;
	struct ibv_wq_init_attr wq_attr;
	struct ibv_srq *srq;
	struct ibv_mw *mw;
	struct ibv_xrcd *xrcd;
	struct ibv_dm *dm;
	struct ibv_wq *wq;
	struct ibv_cq *cq;

	memset(&srq_attr, 0, sizeof(srq_attr));
	srq_attr.attr.max_wr = 16;
	srq_attr.attr.max_sge = 1;
	errno = 0;
	srq = ibv_create_srq(pd, &srq_attr);
	check_unsupported("ibv_create_srq", srq != NULL, errno);
	if (srq)
		CHECK_OK(ibv_destroy_srq(srq));

	errno = 0;
	mw = ibv_alloc_mw(pd, IBV_MW_TYPE_2);
	check_unsupported("ibv_alloc_mw", mw != NULL, errno);
	if (mw)
		CHECK_OK(ibv_dealloc_mw(mw));

	memset(&xrcd_attr, 0, sizeof(xrcd_attr));
	xrcd_attr.comp_mask = IBV_XRCD_INIT_ATTR_FD | IBV_XRCD_INIT_ATTR_OFLAGS;
	xrcd_attr.fd = -1;
	xrcd_attr.oflags = O_CREAT;
	errno = 0;
	xrcd = ibv_open_xrcd(ctx, &xrcd_attr);
	check_unsupported("ibv_open_xrcd", xrcd != NULL, errno);
	if (xrcd)
		CHECK_OK(ibv_close_xrcd(xrcd));

	memset(&dm_attr, 0, sizeof(dm_attr));
	dm_attr.length = 4096;
	errno = 0;
	dm = ibv_alloc_dm(ctx, &dm_attr);
	check_unsupported("ibv_alloc_dm", dm != NULL, errno);
	if (dm)
		CHECK_OK(ibv_free_dm(dm));

	cq = t_create_cq(ctx, 16);
	memset(&wq_attr, 0, sizeof(wq_attr));
	wq_attr.wq_type = IBV_WQT_RQ;
	wq_attr.max_wr = 16;
	wq_attr.max_sge = 1;
	wq_attr.pd = pd;
	wq_attr.cq = cq;
	errno = 0;
	wq = ibv_create_wq(ctx, &wq_attr);
	check_unsupported("ibv_create_wq", wq != NULL, errno);
	if (wq)
		CHECK_OK(ibv_destroy_wq(wq));
	CHECK_OK(ibv_destroy_cq(cq));
}

/* The pair still moves data after all the misuse. */
static void still_works(struct res *r)
{
	struct ibv_send_wr wr, *bad = NULL;
	struct ibv_sge sg;
	struct ibv_wc wc;

	t_fill(r->src.p, BUF_LEN, 0x4500);
	memset(r->dst.p, CANARY, BUF_LEN);
	write_wr(r, &wr, &sg, 8000, 5);
	sg.length = 1000;
	CHECK_OK(ibv_post_send(r->p.s[0].qp, &wr, &bad));
	POLL(r->p.s[0].scq, 1, &wc);
	EXPECT_WC(&wc, 8000, IBV_WC_SUCCESS, IBV_WC_RDMA_WRITE, r->qpn0, T_ANY,
		  0, T_ANY);
	CHECK_FILL(r->dst.p, CANARY, 40);
	CHECK_MEM(r->dst.p + 40, r->src.p + 40, 1000);
	CHECK_FILL(r->dst.p + 1040, CANARY, BUF_LEN - 1040);
	printf("pair still works: ok\n");
}

int main(void)
{
	struct t_pair_cfg cfg;
	struct res r;

	t_pair_default_cfg(&cfg);
	cfg.caps.max_send_wr = 8;
	cfg.caps.max_recv_wr = 8;
	cfg.caps.max_send_sge = 2;
	cfg.caps.max_recv_sge = 2;
	cfg.cqe = CQE;
	t_pair_open(&r.p, &cfg);
	r.qpn0 = r.p.s[0].qp->qp_num;
	r.qpn1 = r.p.s[1].qp->qp_num;
	t_buf_alloc(&r.src, r.p.s[0].pd, BUF_LEN);
	t_buf_alloc(&r.dst, r.p.s[1].pd, BUF_LEN);
	t_buf_alloc(&r.rbuf, r.p.s[1].pd, 256);
	t_fill(r.src.p, BUF_LEN, 0x4300);

	reset_qp_errors(&r);
	too_many_sges(&r);
	queue_full(&r);
	unsupported(&r);
	still_works(&r);

	t_buf_free(&r.src);
	t_buf_free(&r.dst);
	t_buf_free(&r.rbuf);
	t_pair_close(&r.p);
	printf("sys_post_errors: passed\n");
	return 0;
}
