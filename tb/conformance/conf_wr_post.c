// SPDX-License-Identifier: MIT
/*
 * conf_wr_post.c - ibv_wr_post(3), statement by statement, and the
 * extended CQ (ibv_create_cq_ex, ibv_start_poll/next_poll/end_poll,
 * ibv_wc_read_*) that goes with it.
 *
 * Each case is named after the statement it checks (docs/verbs.md has the
 * statement -> case table). Side 0 builds the batches, side 1 is the
 * responder; both QPs have the ibv_wr_* interface.
 */
#define _DEFAULT_SOURCE

#include "conf.h"

#include <arpa/inet.h>
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define OPS_RC (IBV_QP_EX_WITH_RDMA_WRITE | IBV_QP_EX_WITH_RDMA_WRITE_WITH_IMM | \
		IBV_QP_EX_WITH_SEND | IBV_QP_EX_WITH_SEND_WITH_IMM |	\
		IBV_QP_EX_WITH_RDMA_READ | IBV_QP_EX_WITH_ATOMIC_CMP_AND_SWP | \
		IBV_QP_EX_WITH_ATOMIC_FETCH_AND_ADD | IBV_QP_EX_WITH_LOCAL_INV | \
		IBV_QP_EX_WITH_BIND_MW | IBV_QP_EX_WITH_SEND_WITH_INV)
#define OPS_UC (IBV_QP_EX_WITH_RDMA_WRITE | IBV_QP_EX_WITH_RDMA_WRITE_WITH_IMM | \
		IBV_QP_EX_WITH_SEND | IBV_QP_EX_WITH_SEND_WITH_IMM |	\
		IBV_QP_EX_WITH_LOCAL_INV | IBV_QP_EX_WITH_BIND_MW)
#define OPS_UD (IBV_QP_EX_WITH_SEND | IBV_QP_EX_WITH_SEND_WITH_IMM)

/* The rig of conf.h with the ibv_wr_* interface on both QPs. */
static void wr_rig_open(struct conf *c, struct conf_rig *r,
			struct t_pair_cfg *cfg, enum ibv_qp_type type)
{
	struct t_pair_cfg def;

	if (!cfg) {
		conf_rig_cfg(c, &def);
		cfg = &def;
	}
	cfg->qp_type = type;
	cfg->send_ops_flags = type == IBV_QPT_UD ? OPS_UD :
			      type == IBV_QPT_UC ? OPS_UC : OPS_RC;
	conf_rig_open(c, r, cfg);
	CHECK(r->p.s[0].qpx && r->p.s[1].qpx);
}

static struct ibv_qp_ex *qx(struct conf_rig *r)
{
	return r->p.s[0].qpx;
}

static void post_recv_at(struct conf_rig *r, uint64_t id, size_t off,
			 uint32_t len)
{
	struct ibv_sge sg = t_sge(&r->rbuf, off, len);
	struct ibv_recv_wr wr;

	conf_recv_wr(&wr, id, &sg, 1);
	POST_RECV_OK(r->qp1, &wr);
}

/* Builds a signaled RDMA WRITE of src+off -> dst+off (len bytes). */
static void b_write(struct conf_rig *r, uint64_t id, size_t off, uint32_t len)
{
	struct ibv_qp_ex *q = qx(r);

	q->wr_id = id;
	q->wr_flags = IBV_SEND_SIGNALED;
	ibv_wr_rdma_write(q, r->dst.mr->rkey, t_addr(&r->dst, off));
	ibv_wr_set_sge(q, r->src.mr->lkey, t_addr(&r->src, off), len);
}

/* Builds a signaled SEND of src+off (len bytes). */
static void b_send(struct conf_rig *r, uint64_t id, size_t off, uint32_t len)
{
	struct ibv_qp_ex *q = qx(r);

	q->wr_id = id;
	q->wr_flags = IBV_SEND_SIGNALED;
	ibv_wr_send(q);
	ibv_wr_set_sge(q, r->src.mr->lkey, t_addr(&r->src, off), len);
}

/* Nothing at all happened on either side: both send CQs and the receive CQ
 * stay empty while the model runs, dst keeps its canary. */
static void expect_nothing(struct conf_rig *r, size_t dst_len)
{
	EXPECT_EMPTY(r->scq0, CONF_QUIET);
	EXPECT_EMPTY(r->rcq1, CONF_QUIET);
	EXPECT_EMPTY(r->scq1, 1);
	CHECK_FILL(r->dst.p, CONF_CANARY, dst_len);
}

/* ------------------------------------------------------------------------ */
/* Creation                                                                 */

static struct ibv_qp *create_qp_ex(struct ibv_pd *pd, struct ibv_cq *cq,
				   enum ibv_qp_type type, uint64_t ops)
{
	struct ibv_qp_init_attr_ex ia;

	memset(&ia, 0, sizeof(ia));
	ia.qp_type = type;
	ia.send_cq = cq;
	ia.recv_cq = cq;
	ia.cap.max_send_wr = 8;
	ia.cap.max_recv_wr = 8;
	ia.cap.max_send_sge = 1;
	ia.cap.max_recv_sge = 1;
	ia.pd = pd;
	ia.comp_mask = IBV_QP_INIT_ATTR_PD | IBV_QP_INIT_ATTR_SEND_OPS_FLAGS;
	ia.send_ops_flags = ops;
	errno = 0;
	return ibv_create_qp_ex(pd->context, &ia);
}

/*
 * "To use these APIs the QP must be created using ibv_create_qp_ex() which
 * allows setting the IBV_QP_INIT_ATTR_SEND_OPS_FLAGS in comp_mask": RC, UC
 * and UD QPs with every operation of their type get a struct ibv_qp_ex
 * (ibv_qp_to_qp_ex) for that QP with every builder and setter.
 */
static void case_create_qp_ex_with_send_ops_flags_gives_qp_ex(struct conf *c)
{
	static const struct {
		enum ibv_qp_type type;
		uint64_t ops;
	} t[] = {
		{ IBV_QPT_RC, OPS_RC },
		{ IBV_QPT_UC, OPS_UC },
		{ IBV_QPT_UD, OPS_UD },
		{ IBV_QPT_RC, IBV_QP_EX_WITH_RDMA_WRITE },
	};
	struct ibv_context *ctx = t_open_device(T_DEV0);
	struct ibv_pd *pd = CHECK_PTR(ibv_alloc_pd(ctx));
	struct ibv_cq *cq = t_create_cq(ctx, 16);
	size_t i;

	(void)c;
	for (i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		struct ibv_qp *qp = create_qp_ex(pd, cq, t[i].type, t[i].ops);
		struct ibv_qp_ex *q;

		CHECKF(qp, "type %d ops 0x%llx: errno %d", t[i].type,
		       (unsigned long long)t[i].ops, errno);
		q = ibv_qp_to_qp_ex(qp);
		CHECK(q != NULL);
		CHECK(q->qp_base.qp_num == qp->qp_num);
		CHECK(&q->qp_base == qp);
		CHECK(q->wr_start && q->wr_complete && q->wr_abort);
		CHECK(q->wr_send && q->wr_send_imm && q->wr_send_inv);
		CHECK(q->wr_rdma_write && q->wr_rdma_write_imm && q->wr_rdma_read);
		CHECK(q->wr_atomic_cmp_swp && q->wr_atomic_fetch_add);
		CHECK(q->wr_bind_mw && q->wr_local_inv);
		CHECK(q->wr_set_sge && q->wr_set_sge_list);
		CHECK(q->wr_set_inline_data && q->wr_set_inline_data_list);
		CHECK(q->wr_set_ud_addr);
		CHECK_OK(ibv_destroy_qp(qp));
	}
	CHECK_OK(ibv_destroy_cq(cq));
	CHECK_OK(ibv_dealloc_pd(pd));
	CHECK_OK(ibv_close_device(ctx));
}

/*
 * "If the QP does not support all the requested work request types then QP
 * creation will fail": each operation a QP type cannot do, alone and with
 * the type's own set, fails (NULL, errno EOPNOTSUPP as mlx5); the
 * supported set still creates afterwards.
 */
static void case_create_fails_if_qp_cannot_do_all_send_ops(struct conf *c)
{
	static const struct {
		enum ibv_qp_type type;
		uint64_t ok, bad;
	} t[] = {
		{ IBV_QPT_RC, OPS_RC, IBV_QP_EX_WITH_TSO },
		{ IBV_QPT_UC, OPS_UC, IBV_QP_EX_WITH_RDMA_READ },
		{ IBV_QPT_UC, OPS_UC, IBV_QP_EX_WITH_ATOMIC_CMP_AND_SWP },
		{ IBV_QPT_UC, OPS_UC, IBV_QP_EX_WITH_ATOMIC_FETCH_AND_ADD },
		{ IBV_QPT_UC, OPS_UC, IBV_QP_EX_WITH_TSO },
		{ IBV_QPT_UD, OPS_UD, IBV_QP_EX_WITH_RDMA_WRITE },
		{ IBV_QPT_UD, OPS_UD, IBV_QP_EX_WITH_RDMA_WRITE_WITH_IMM },
		{ IBV_QPT_UD, OPS_UD, IBV_QP_EX_WITH_RDMA_READ },
		{ IBV_QPT_UD, OPS_UD, IBV_QP_EX_WITH_ATOMIC_CMP_AND_SWP },
		{ IBV_QPT_UD, OPS_UD, IBV_QP_EX_WITH_ATOMIC_FETCH_AND_ADD },
		{ IBV_QPT_UD, OPS_UD, IBV_QP_EX_WITH_BIND_MW },
		{ IBV_QPT_UD, OPS_UD, IBV_QP_EX_WITH_LOCAL_INV },
		{ IBV_QPT_UD, OPS_UD, IBV_QP_EX_WITH_SEND_WITH_INV },
	};
	struct ibv_context *ctx = t_open_device(T_DEV0);
	struct ibv_pd *pd = CHECK_PTR(ibv_alloc_pd(ctx));
	struct ibv_cq *cq = t_create_cq(ctx, 16);
	struct ibv_qp *qp;
	size_t i;
	int k;

	(void)c;
	for (i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		for (k = 0; k < 2; k++) {
			uint64_t ops = t[i].bad | (k ? t[i].ok : 0);

			qp = create_qp_ex(pd, cq, t[i].type, ops);
			CHECKF(!qp, "type %d ops 0x%llx created", t[i].type,
			       (unsigned long long)ops);
			CHECKF(errno == EOPNOTSUPP, "type %d ops 0x%llx: errno %d",
			       t[i].type, (unsigned long long)ops, errno);
		}
		qp = CHECK_PTR(create_qp_ex(pd, cq, t[i].type, t[i].ok));
		CHECK_OK(ibv_destroy_qp(qp));
	}
	CHECK_OK(ibv_destroy_cq(cq));
	CHECK_OK(ibv_dealloc_pd(pd));
	CHECK_OK(ibv_close_device(ctx));
}

/* ------------------------------------------------------------------------ */
/* The critical region                                                      */

/*
 * "No work is executed to the queue until ibv_wr_complete() returns
 * success": WRITE, SEND, READ and FETCH_ADD built after ibv_wr_start() do
 * nothing while the model runs (no completion on either side, remote bytes
 * and atomic target untouched, the receive not consumed, the READ target
 * still zero); after ibv_wr_complete() they all execute, in order.
 */
static void case_no_work_executes_until_complete(struct conf *c)
{
	struct ibv_qp_ex *q;
	struct conf_rig r;
	struct ibv_wc wc[4];
	int i;

	wr_rig_open(c, &r, NULL, IBV_QPT_RC);
	q = qx(&r);
	post_recv_at(&r, 50, 0, 256);
	memcpy(r.dst.p + 8192, r.src.p + 20000, 64);
	conf_put64(r.dst.p + 12288, 40);

	ibv_wr_start(q);
	b_write(&r, 1, 0, 128);
	b_send(&r, 2, 1000, 77);
	q->wr_id = 3;
	ibv_wr_rdma_read(q, r.dst.mr->rkey, t_addr(&r.dst, 8192));
	ibv_wr_set_sge(q, r.loc.mr->lkey, t_addr(&r.loc, 0), 64);
	q->wr_id = 4;
	ibv_wr_atomic_fetch_add(q, r.dst.mr->rkey, t_addr(&r.dst, 12288), 2);
	ibv_wr_set_sge(q, r.loc.mr->lkey, t_addr(&r.loc, 4096), 8);

	/* Built, not completed: the hardware sees nothing. */
	expect_nothing(&r, 4096);
	CHECK_FILL(r.rbuf.p, CONF_CANARY, 256);
	CHECK_FILL(r.loc.p, 0, 8192);
	CHECK_EQ(conf_get64(r.dst.p + 12288), 40);

	WR_COMPLETE(q);
	POLL(r.scq0, 4, wc);
	EXPECT_SQ_OK(&wc[0], 1, IBV_WC_RDMA_WRITE, r.q0, T_ANY);
	EXPECT_SQ_OK(&wc[1], 2, IBV_WC_SEND, r.q0, T_ANY);
	EXPECT_SQ_OK(&wc[2], 3, IBV_WC_RDMA_READ, r.q0, 64);
	EXPECT_SQ_OK(&wc[3], 4, IBV_WC_FETCH_ADD, r.q0, 8);
	POLL1(r.rcq1, wc);
	EXPECT_WC_OK(wc, 50, IBV_WC_RECV, r.q1, 77, 0, T_ANY, r.q0);
	CHECK_MEM(r.dst.p, r.src.p, 128);
	CHECK_FILL(r.dst.p + 128, CONF_CANARY, 128);
	CHECK_MEM(r.rbuf.p, r.src.p + 1000, 77);
	CHECK_MEM(r.loc.p, r.src.p + 20000, 64);
	CHECK_EQ(conf_get64(r.loc.p + 4096), 40);
	CHECK_EQ(conf_get64(r.dst.p + 12288), 42);
	for (i = 0; i < 2; i++)
		EXPECT_EMPTY(i ? r.rcq1 : r.scq0, CONF_QUIET);
	conf_rig_close(&r);
}

/*
 * "ibv_wr_abort() will discard all work prepared since ibv_wr_start()":
 * a WRITE, a SEND and a WRITE_WITH_IMM built and aborted never execute (no
 * completion, remote bytes untouched, the receives not consumed); the next
 * batch executes alone (its wr_ids only, the receives go to it).
 */
static void case_abort_discards_work_since_start(struct conf *c)
{
	struct ibv_qp_ex *q;
	struct conf_rig r;
	struct ibv_wc wc[2];

	wr_rig_open(c, &r, NULL, IBV_QPT_RC);
	q = qx(&r);
	post_recv_at(&r, 60, 0, 256);
	post_recv_at(&r, 61, 256, 256);

	ibv_wr_start(q);
	b_write(&r, 1, 0, 64);
	b_send(&r, 2, 100, 40);
	q->wr_id = 3;
	ibv_wr_rdma_write_imm(q, r.dst.mr->rkey, t_addr(&r.dst, 1024),
			      htonl(0xdead));
	ibv_wr_set_sge(q, r.src.mr->lkey, t_addr(&r.src, 1024), 32);
	ibv_wr_abort(q);
	expect_nothing(&r, 4096);
	CHECK_FILL(r.rbuf.p, CONF_CANARY, 512);

	ibv_wr_start(q);
	b_send(&r, 10, 300, 20);
	b_write(&r, 11, 2048, 16);
	WR_COMPLETE(q);
	POLL(r.scq0, 2, wc);
	EXPECT_SQ_OK(&wc[0], 10, IBV_WC_SEND, r.q0, T_ANY);
	EXPECT_SQ_OK(&wc[1], 11, IBV_WC_RDMA_WRITE, r.q0, T_ANY);
	POLL1(r.rcq1, wc);
	EXPECT_WC_OK(wc, 60, IBV_WC_RECV, r.q1, 20, 0, T_ANY, r.q0);
	CHECK_MEM(r.rbuf.p, r.src.p + 300, 20);
	CHECK_MEM(r.dst.p + 2048, r.src.p + 2048, 16);
	CHECK_FILL(r.dst.p, CONF_CANARY, 2048);
	EXPECT_EMPTY(r.scq0, CONF_QUIET);
	EXPECT_EMPTY(r.rcq1, CONF_QUIET);
	conf_rig_close(&r);
}

/*
 * "If a failure is detected during operation, for instance due to an
 * invalid argument, then ibv_wr_complete() will return failure and the
 * entire posting will be aborted": [WRITE, bad WR, SEND] returns the error
 * and none of the three executes. Bad WRs: more SGEs than max_send_sge, an
 * operation not in send_ops_flags (TSO), IBV_SEND_IP_CSUM without checksum
 * offload, an undefined wr_flags bit, a setter before any builder, two
 * data setters, data on LOCAL_INV, ibv_wr_set_ud_addr() on RC, more WRs
 * than the send queue holds (ENOMEM). The QP works afterwards.
 */
enum bad_kind {
	BAD_SGES, BAD_OP, BAD_CSUM, BAD_FLAG, BAD_SETTER_FIRST, BAD_TWO_SETTERS,
	BAD_DATA_ON_INV, BAD_UD_ADDR_ON_RC, BAD_SQ_FULL, BAD_N,
};

static void build_bad(struct conf_rig *r, enum bad_kind k)
{
	struct ibv_qp_ex *q = qx(r);
	struct ibv_sge sg[5];
	uint32_t i;

	q->wr_id = 900;
	q->wr_flags = IBV_SEND_SIGNALED;
	switch (k) {
	case BAD_SGES:
		for (i = 0; i < 5; i++)
			sg[i] = t_sge(&r->src, 4096 + 16 * i, 16);
		ibv_wr_rdma_write(q, r->dst.mr->rkey, t_addr(&r->dst, 4096));
		ibv_wr_set_sge_list(q, 5, sg);
		break;
	case BAD_OP:
		ibv_wr_send_tso(q, r->src.p, 54, 1000);
		ibv_wr_set_sge(q, r->src.mr->lkey, t_addr(&r->src, 0), 64);
		break;
	case BAD_CSUM:
	case BAD_FLAG:
		q->wr_flags |= k == BAD_CSUM ? IBV_SEND_IP_CSUM : 1u << 20;
		ibv_wr_rdma_write(q, r->dst.mr->rkey, t_addr(&r->dst, 4096));
		ibv_wr_set_sge(q, r->src.mr->lkey, t_addr(&r->src, 4096), 16);
		break;
	case BAD_TWO_SETTERS:
		ibv_wr_rdma_write(q, r->dst.mr->rkey, t_addr(&r->dst, 4096));
		ibv_wr_set_sge(q, r->src.mr->lkey, t_addr(&r->src, 4096), 16);
		ibv_wr_set_sge(q, r->src.mr->lkey, t_addr(&r->src, 4096), 16);
		break;
	case BAD_DATA_ON_INV:
		ibv_wr_local_inv(q, r->loc.mr->rkey);
		ibv_wr_set_sge(q, r->src.mr->lkey, t_addr(&r->src, 4096), 16);
		break;
	case BAD_UD_ADDR_ON_RC:
		ibv_wr_send(q);
		ibv_wr_set_sge(q, r->src.mr->lkey, t_addr(&r->src, 4096), 16);
		ibv_wr_set_ud_addr(q, NULL, r->q1, CONF_QKEY);
		break;
	case BAD_SQ_FULL:
		for (i = 0; i < r->p.s[0].cap.max_send_wr; i++)
			b_write(r, 900 + i, 4096 + 16 * (size_t)i, 16);
		break;
	default:
		break;
	}
}

static void case_complete_fails_and_aborts_whole_posting_on_bad_wr(struct conf *c)
{
	struct ibv_qp_ex *q;
	struct conf_rig r;
	struct ibv_wc wc[2];
	int k;

	wr_rig_open(c, &r, NULL, IBV_QPT_RC);
	q = qx(&r);
	post_recv_at(&r, 70, 0, 256);
	for (k = 0; k < BAD_N; k++) {
		int err;

		ibv_wr_start(q);
		if (k == BAD_SETTER_FIRST)
			ibv_wr_set_sge(q, r.src.mr->lkey, t_addr(&r.src, 0), 16);
		b_write(&r, 1, 0, 64);
		if (k != BAD_SETTER_FIRST)
			build_bad(&r, (enum bad_kind)k);
		b_send(&r, 2, 100, 40);
		err = ibv_wr_complete(q);
		CHECKF(err == (k == BAD_SQ_FULL ? ENOMEM : EINVAL),
		       "bad WR %d: ibv_wr_complete returned %d", k, err);
	}
	expect_nothing(&r, CONF_BUF);
	CHECK_FILL(r.rbuf.p, CONF_CANARY, 256);

	/* The QP works: a good batch executes alone and takes the receive. */
	ibv_wr_start(q);
	b_write(&r, 3, 0, 64);
	b_send(&r, 4, 100, 40);
	WR_COMPLETE(q);
	POLL(r.scq0, 2, wc);
	EXPECT_SQ_OK(&wc[0], 3, IBV_WC_RDMA_WRITE, r.q0, T_ANY);
	EXPECT_SQ_OK(&wc[1], 4, IBV_WC_SEND, r.q0, T_ANY);
	POLL1(r.rcq1, wc);
	EXPECT_WC_OK(wc, 70, IBV_WC_RECV, r.q1, 40, 0, T_ANY, r.q0);
	CHECK_MEM(r.dst.p, r.src.p, 64);
	CHECK_FILL(r.dst.p + 64, CONF_CANARY, CONF_BUF - 64);
	CHECK_MEM(r.rbuf.p, r.src.p + 100, 40);
	conf_rig_close(&r);
}

/*
 * "WRs batches of ibv_post_send() and this API WRs batches can interleave
 * together just if they are not posted within the critical region of each
 * other": ibv_post_send() chains and ibv_wr_* batches posted one after the
 * other complete in posting order with every byte placed.
 */
static void case_post_send_and_wr_batches_interleave(struct conf *c)
{
	struct ibv_send_wr w[2];
	struct ibv_sge sg[2];
	struct ibv_qp_ex *q;
	struct conf_rig r;
	struct ibv_wc wc[12];
	int round, i;

	wr_rig_open(c, &r, NULL, IBV_QPT_RC);
	q = qx(&r);
	for (round = 0; round < 3; round++) {
		size_t base = 4096 * (size_t)round;

		for (i = 0; i < 2; i++) {
			sg[i] = t_sge(&r.src, base + 256 * i, 100);
			conf_rdma_wr(&w[i], 100 * round + i, IBV_WR_RDMA_WRITE,
				     IBV_SEND_SIGNALED, &sg[i], 1, &r.dst,
				     base + 256 * i);
		}
		w[0].next = &w[1];
		POST_SEND_OK(r.qp0, w);
		ibv_wr_start(q);
		b_write(&r, 100 * round + 2, base + 512, 100);
		b_write(&r, 100 * round + 3, base + 768, 100);
		WR_COMPLETE(q);
	}
	POLL(r.scq0, 12, wc);
	for (round = 0; round < 3; round++)
		for (i = 0; i < 4; i++)
			EXPECT_SQ_OK(&wc[4 * round + i], 100 * round + i,
				     IBV_WC_RDMA_WRITE, r.q0, T_ANY);
	for (round = 0; round < 3; round++)
		for (i = 0; i < 4; i++) {
			size_t off = 4096 * (size_t)round + 256 * i;

			CHECK_MEM(r.dst.p + off, r.src.p + off, 100);
			CHECK_FILL(r.dst.p + off + 100, CONF_CANARY, 156);
		}
	conf_rig_close(&r);
}

/*
 * "The provider will provide locking to ensure that ibv_wr_start() and
 * ibv_wr_complete()/abort() form a per-QP critical section where no other
 * threads can enter": a second thread's ibv_wr_start() on the same QP
 * returns only after the first thread's ibv_wr_complete() (the first keeps
 * the model running meanwhile); both batches execute.
 */
struct crit {
	struct conf_rig *r;
	volatile int trying, entered, first_done;
	int saw_done;
};

static void *crit_thread(void *arg)
{
	struct crit *k = arg;

	__atomic_store_n(&k->trying, 1, __ATOMIC_SEQ_CST);
	ibv_wr_start(qx(k->r));
	__atomic_store_n(&k->entered, 1, __ATOMIC_SEQ_CST);
	k->saw_done = __atomic_load_n(&k->first_done, __ATOMIC_SEQ_CST);
	b_write(k->r, 2, 1024, 64);
	k->saw_done |= ibv_wr_complete(qx(k->r)) ? 2 : 0;
	return NULL;
}

static void case_start_and_complete_form_per_qp_critical_section(struct conf *c)
{
	struct conf_rig r;
	struct crit k;
	struct ibv_wc wc[2];
	pthread_t th;

	wr_rig_open(c, &r, NULL, IBV_QPT_RC);
	memset(&k, 0, sizeof(k));
	k.r = &r;
	ibv_wr_start(qx(&r));
	b_write(&r, 1, 0, 64);
	CHECK_OK(pthread_create(&th, NULL, crit_thread, &k));
	while (!__atomic_load_n(&k.trying, __ATOMIC_SEQ_CST))
		sched_yield();
	conf_idle(r.p.s[0].ctx, 50);
	CHECK_EQ(__atomic_load_n(&k.entered, __ATOMIC_SEQ_CST), 0);
	__atomic_store_n(&k.first_done, 1, __ATOMIC_SEQ_CST);
	WR_COMPLETE(qx(&r));
	CHECK_OK(pthread_join(th, NULL));
	CHECK_EQ(k.saw_done, 1);
	POLL(r.scq0, 2, wc);
	EXPECT_SQ_OK(&wc[0], 1, IBV_WC_RDMA_WRITE, r.q0, T_ANY);
	EXPECT_SQ_OK(&wc[1], 2, IBV_WC_RDMA_WRITE, r.q0, T_ANY);
	CHECK_MEM(r.dst.p, r.src.p, 64);
	CHECK_MEM(r.dst.p + 1024, r.src.p + 1024, 64);
	conf_rig_close(&r);
}

/* ------------------------------------------------------------------------ */
/* wr_id and wr_flags                                                       */

/*
 * "Each WR builder will use the wr_id member of struct ibv_qp_ex to set the
 * value to be returned in the completion. Some operations will also use
 * the wr_flags member ... These values should be set before invoking the WR
 * builder function": wr_id and wr_flags changed after the builder (before
 * its setter) do not change that WR; a WR built with wr_flags 0 has no
 * completion of its own (the next signaled one completes).
 */
static void case_wr_id_and_wr_flags_taken_at_builder(struct conf *c)
{
	struct ibv_qp_ex *q;
	struct conf_rig r;
	struct ibv_wc wc[2];

	wr_rig_open(c, &r, NULL, IBV_QPT_RC);
	q = qx(&r);
	ibv_wr_start(q);
	q->wr_id = 0x1111;
	q->wr_flags = IBV_SEND_SIGNALED;
	ibv_wr_rdma_write(q, r.dst.mr->rkey, t_addr(&r.dst, 0));
	q->wr_id = 0x2222;	/* too late for the WRITE */
	q->wr_flags = 0;	/* too late too */
	ibv_wr_set_sge(q, r.src.mr->lkey, t_addr(&r.src, 0), 32);
	/* 0x2222 with wr_flags 0: unsignaled. */
	ibv_wr_rdma_write(q, r.dst.mr->rkey, t_addr(&r.dst, 64));
	q->wr_flags = IBV_SEND_SIGNALED;	/* too late */
	ibv_wr_set_sge(q, r.src.mr->lkey, t_addr(&r.src, 64), 32);
	q->wr_id = 0x3333;
	ibv_wr_rdma_write(q, r.dst.mr->rkey, t_addr(&r.dst, 128));
	ibv_wr_set_sge(q, r.src.mr->lkey, t_addr(&r.src, 128), 32);
	WR_COMPLETE(q);
	POLL(r.scq0, 2, wc);
	EXPECT_SQ_OK(&wc[0], 0x1111, IBV_WC_RDMA_WRITE, r.q0, T_ANY);
	EXPECT_SQ_OK(&wc[1], 0x3333, IBV_WC_RDMA_WRITE, r.q0, T_ANY);
	EXPECT_EMPTY(r.scq0, CONF_QUIET);
	CHECK_MEM(r.dst.p, r.src.p, 32);
	CHECK_MEM(r.dst.p + 64, r.src.p + 64, 32);
	CHECK_MEM(r.dst.p + 128, r.src.p + 128, 32);
	conf_rig_close(&r);
}

/*
 * IBV_SEND_SOLICITED in wr_flags: "Set the solicted bit in the Rdma packet.
 * This informs the other side to generate a completion event upon receiving
 * the Rdma operation": the receiver's CQ armed for solicited completions
 * only sees no event for a SEND without the flag, and one for a SEND (and a
 * SEND_WITH_IMM) with it.
 */
static void case_wr_flags_solicited_gives_remote_completion_event(struct conf *c)
{
	struct t_pair_cfg cfg;
	struct ibv_qp_ex *q;
	struct conf_rig r;
	struct ibv_wc wc;
	int fd, i;

	conf_rig_cfg(c, &cfg);
	cfg.comp_channel = 1;
	wr_rig_open(c, &r, &cfg, IBV_QPT_RC);
	q = qx(&r);
	fd = r.p.s[1].ch->fd;
	for (i = 0; i < 3; i++) {
		post_recv_at(&r, 80 + i, 256 * (size_t)i, 256);
		CHECK_OK(ibv_req_notify_cq(r.rcq1, 1));
		ibv_wr_start(q);
		q->wr_id = 10 + i;
		q->wr_flags = IBV_SEND_SIGNALED | (i ? IBV_SEND_SOLICITED : 0);
		if (i == 2)
			ibv_wr_send_imm(q, htonl(0x50110c17));
		else
			ibv_wr_send(q);
		ibv_wr_set_sge(q, r.src.mr->lkey, t_addr(&r.src, 64 * (size_t)i), 48);
		WR_COMPLETE(q);
		POLL1(r.scq0, &wc);
		EXPECT_SQ_OK(&wc, 10 + (uint64_t)i, IBV_WC_SEND, r.q0, T_ANY);
		if (i) {
			EXPECT_FD_READY(fd, T_EVENT_MS);
			EXPECT_CQ_EVENT(r.p.s[1].ch, r.rcq1, NULL);
			ibv_ack_cq_events(r.rcq1, 1);
		}
		POLL1(r.rcq1, &wc);
		EXPECT_WC_OK(&wc, 80 + (uint64_t)i, IBV_WC_RECV, r.q1, 48,
			     i == 2 ? IBV_WC_WITH_IMM : 0, htonl(0x50110c17), r.q0);
		/* The unsolicited one: no event even a while later. */
		EXPECT_FD_QUIET(fd, i ? 0 : T_QUIET_MS);
	}
	conf_rig_close(&r);
}

/*
 * IBV_SEND_FENCE in wr_flags: "Do not start this work request until prior
 * work has completed": a READ of a remote block and a fenced WRITE over
 * that block in one batch: the READ returns the old bytes.
 */
static void case_wr_flags_fence_waits_for_prior_work(struct conf *c)
{
	struct ibv_qp_ex *q;
	struct conf_rig r;
	struct ibv_wc wc[2];
	uint8_t old[2048];

	wr_rig_open(c, &r, NULL, IBV_QPT_RC);
	q = qx(&r);
	t_fill(r.dst.p, sizeof(old), 0x01d);
	memcpy(old, r.dst.p, sizeof(old));
	ibv_wr_start(q);
	q->wr_id = 1;
	q->wr_flags = IBV_SEND_SIGNALED;
	ibv_wr_rdma_read(q, r.dst.mr->rkey, t_addr(&r.dst, 0));
	ibv_wr_set_sge(q, r.loc.mr->lkey, t_addr(&r.loc, 0), sizeof(old));
	q->wr_id = 2;
	q->wr_flags = IBV_SEND_SIGNALED | IBV_SEND_FENCE;
	ibv_wr_rdma_write(q, r.dst.mr->rkey, t_addr(&r.dst, 0));
	ibv_wr_set_sge(q, r.src.mr->lkey, t_addr(&r.src, 0), sizeof(old));
	WR_COMPLETE(q);
	POLL(r.scq0, 2, wc);
	EXPECT_SQ_OK(&wc[0], 1, IBV_WC_RDMA_READ, r.q0, sizeof(old));
	EXPECT_SQ_OK(&wc[1], 2, IBV_WC_RDMA_WRITE, r.q0, T_ANY);
	CHECK_MEM(r.loc.p, old, sizeof(old));
	CHECK_MEM(r.dst.p, r.src.p, sizeof(old));
	conf_rig_close(&r);
}

/* ------------------------------------------------------------------------ */
/* Builders and setters                                                     */

/*
 * ibv_wr_send(), ibv_wr_send_imm(): "Send a message. The number of bytes
 * to send, and the local location to get the data, is determined by the
 * DATA buffers set after this call"; the _imm version gives the receiver
 * the 32 bits of immediate data. (The page says IBV_WC_RECV_RDMA_WITH_IMM
 * there, a copy of the RDMA WRITE text: a SEND with immediate completes as
 * IBV_WC_RECV with IBV_WC_WITH_IMM on every NIC, as IBA says.) A SEND
 * without a data setter is a zero-length message.
 */
static void case_send_and_send_imm_builders(struct conf *c)
{
	struct ibv_qp_ex *q;
	struct conf_rig r;
	struct ibv_wc wc[3];

	wr_rig_open(c, &r, NULL, IBV_QPT_RC);
	q = qx(&r);
	post_recv_at(&r, 20, 0, 4096);
	post_recv_at(&r, 21, 4096, 4096);
	post_recv_at(&r, 22, 8192, 4096);
	ibv_wr_start(q);
	b_send(&r, 1, 3, 3000);
	q->wr_id = 2;
	ibv_wr_send_imm(q, htonl(0x12345678));
	ibv_wr_set_sge(q, r.src.mr->lkey, t_addr(&r.src, 5000), 100);
	q->wr_id = 3;
	ibv_wr_send(q);
	WR_COMPLETE(q);
	POLL(r.scq0, 3, wc);
	EXPECT_SQ_OK(&wc[0], 1, IBV_WC_SEND, r.q0, T_ANY);
	EXPECT_SQ_OK(&wc[1], 2, IBV_WC_SEND, r.q0, T_ANY);
	EXPECT_SEND_IMM_FLAGS(&wc[1]);
	EXPECT_SQ_OK(&wc[2], 3, IBV_WC_SEND, r.q0, T_ANY);
	POLL(r.rcq1, 3, wc);
	EXPECT_WC_OK(&wc[0], 20, IBV_WC_RECV, r.q1, 3000, 0, T_ANY, r.q0);
	EXPECT_WC_OK(&wc[1], 21, IBV_WC_RECV, r.q1, 100, IBV_WC_WITH_IMM,
		     htonl(0x12345678), r.q0);
	EXPECT_WC_OK(&wc[2], 22, IBV_WC_RECV, r.q1, 0, 0, T_ANY, r.q0);
	CHECK_MEM(r.rbuf.p, r.src.p + 3, 3000);
	CHECK_FILL(r.rbuf.p + 3000, CONF_CANARY, 1096);
	CHECK_MEM(r.rbuf.p + 4096, r.src.p + 5000, 100);
	CHECK_FILL(r.rbuf.p + 4196, CONF_CANARY, 3996);
	CHECK_FILL(r.rbuf.p + 8192, CONF_CANARY, 4096);
	conf_rig_close(&r);
}

/*
 * ibv_wr_send_inv(): "The data transfer is the same as for ibv_wr_send(),
 * however the remote side will invalidate the MR specified by
 * invalidate_rkey before delivering a completion": the receiver's window
 * (bound with ibv_wr_bind_mw) is invalid once the IBV_WC_WITH_INV receive
 * completion is there (invalidated_rkey = its rkey); a WRITE through it
 * fails with a remote access error.
 */
static void case_send_inv_invalidates_remote_rkey(struct conf *c)
{
	struct ibv_mw_bind_info bi;
	struct ibv_qp_ex *q, *q1;
	struct ibv_mw *mw;
	struct conf_rig r;
	struct ibv_wc wc;
	uint32_t rkey;

	wr_rig_open(c, &r, NULL, IBV_QPT_RC);
	q = qx(&r);
	q1 = r.p.s[1].qpx;
	mw = CHECK_PTR(ibv_alloc_mw(r.p.s[1].pd, IBV_MW_TYPE_2));
	rkey = ibv_inc_rkey(mw->rkey);
	memset(&bi, 0, sizeof(bi));
	bi.mr = r.dst.mr;
	bi.addr = t_addr(&r.dst, 0);
	bi.length = 4096;
	bi.mw_access_flags = IBV_ACCESS_REMOTE_WRITE;
	ibv_wr_start(q1);
	q1->wr_id = 5;
	q1->wr_flags = IBV_SEND_SIGNALED;
	ibv_wr_bind_mw(q1, mw, rkey, &bi);
	WR_COMPLETE(q1);
	POLL1(r.scq1, &wc);
	EXPECT_SQ_OK(&wc, 5, IBV_WC_BIND_MW, r.q1, T_ANY);
	CHECK_EQ(mw->rkey, rkey);

	/* The window works before. */
	ibv_wr_start(q);
	q->wr_id = 1;
	q->wr_flags = IBV_SEND_SIGNALED;
	ibv_wr_rdma_write(q, rkey, t_addr(&r.dst, 0));
	ibv_wr_set_sge(q, r.src.mr->lkey, t_addr(&r.src, 0), 64);
	WR_COMPLETE(q);
	POLL1(r.scq0, &wc);
	EXPECT_SQ_OK(&wc, 1, IBV_WC_RDMA_WRITE, r.q0, T_ANY);
	CHECK_MEM(r.dst.p, r.src.p, 64);

	post_recv_at(&r, 30, 0, 256);
	ibv_wr_start(q);
	q->wr_id = 2;
	ibv_wr_send_inv(q, rkey);
	ibv_wr_set_sge(q, r.src.mr->lkey, t_addr(&r.src, 500), 90);
	WR_COMPLETE(q);
	POLL1(r.scq0, &wc);
	EXPECT_SQ_OK(&wc, 2, IBV_WC_SEND, r.q0, T_ANY);
	POLL1(r.rcq1, &wc);
	EXPECT_WC_OK(&wc, 30, IBV_WC_RECV, r.q1, 90, IBV_WC_WITH_INV, T_ANY,
		     r.q0);
	CHECK_EQ(wc.invalidated_rkey, rkey);
	CHECK_MEM(r.rbuf.p, r.src.p + 500, 90);

	memset(r.dst.p, CONF_CANARY, 64);
	ibv_wr_start(q);
	q->wr_id = 3;
	ibv_wr_rdma_write(q, rkey, t_addr(&r.dst, 0));
	ibv_wr_set_sge(q, r.src.mr->lkey, t_addr(&r.src, 0), 64);
	WR_COMPLETE(q);
	POLL1(r.scq0, &wc);
	EXPECT_WC_ERR(&wc, 3, IBV_WC_REM_ACCESS_ERR, r.q0);
	CHECK_FILL(r.dst.p, CONF_CANARY, 64);
	CHECK_OK(ibv_dealloc_mw(mw));
	conf_rig_close(&r);
}

/*
 * ibv_wr_rdma_write(), ibv_wr_rdma_write_imm(), ibv_wr_rdma_read(): "Write
 * to [read from] the remote memory location specified rkey and remote_addr.
 * The number of bytes ..., and the local location ..., is determined by
 * the DATA buffers set after this call"; "The _imm version causes the
 * remote side to get a IBV_WC_RECV_RDMA_WITH_IMM containing the 32 bits of
 * immediate data" (and leaves the receive buffer alone).
 */
static void case_rdma_write_write_imm_read_builders(struct conf *c)
{
	struct ibv_sge sg[2];
	struct ibv_qp_ex *q;
	struct conf_rig r;
	struct ibv_wc wc[3];

	wr_rig_open(c, &r, NULL, IBV_QPT_RC);
	q = qx(&r);
	post_recv_at(&r, 40, 0, 256);
	t_fill(r.dst.p + 16384, 3000, 0xeead);
	ibv_wr_start(q);
	b_write(&r, 1, 100, 2500);
	q->wr_id = 2;
	ibv_wr_rdma_write_imm(q, r.dst.mr->rkey, t_addr(&r.dst, 8192),
			      htonl(0xfeedf00d));
	ibv_wr_set_sge(q, r.src.mr->lkey, t_addr(&r.src, 8192), 1000);
	q->wr_id = 3;
	ibv_wr_rdma_read(q, r.dst.mr->rkey, t_addr(&r.dst, 16384));
	sg[0] = t_sge(&r.loc, 0, 1000);
	sg[1] = t_sge(&r.loc, 4096, 2000);
	ibv_wr_set_sge_list(q, 2, sg);
	WR_COMPLETE(q);
	POLL(r.scq0, 3, wc);
	EXPECT_SQ_OK(&wc[0], 1, IBV_WC_RDMA_WRITE, r.q0, T_ANY);
	EXPECT_SQ_OK(&wc[1], 2, IBV_WC_RDMA_WRITE, r.q0, T_ANY);
	EXPECT_SEND_IMM_FLAGS(&wc[1]);
	EXPECT_SQ_OK(&wc[2], 3, IBV_WC_RDMA_READ, r.q0, 3000);
	POLL1(r.rcq1, wc);
	EXPECT_WC_OK(wc, 40, IBV_WC_RECV_RDMA_WITH_IMM, r.q1, 1000,
		     IBV_WC_WITH_IMM, htonl(0xfeedf00d), r.q0);
	CHECK_FILL(r.dst.p, CONF_CANARY, 100);
	CHECK_MEM(r.dst.p + 100, r.src.p + 100, 2500);
	CHECK_FILL(r.dst.p + 2600, CONF_CANARY, 8192 - 2600);
	CHECK_MEM(r.dst.p + 8192, r.src.p + 8192, 1000);
	CHECK_FILL(r.dst.p + 9192, CONF_CANARY, 16384 - 9192);
	CHECK_FILL(r.rbuf.p, CONF_CANARY, 256);
	CHECK_MEM(r.loc.p, r.dst.p + 16384, 1000);
	CHECK_MEM(r.loc.p + 4096, r.dst.p + 17384, 2000);
	CHECK_FILL(r.loc.p + 1000, 0, 3096);
	conf_rig_close(&r);
}

/*
 * ibv_wr_atomic_cmp_swp(): "If the remote 64 bit memory location specified
 * by rkey and remote_addr equals compare then set it to swap";
 * ibv_wr_atomic_fetch_add(): "Add add to the 64 bit memory location": the
 * original value lands in the local 8 bytes (byte_len 8); a compare that
 * does not match leaves the target.
 */
static void case_atomic_cmp_swp_fetch_add_builders(struct conf *c)
{
	struct ibv_qp_ex *q;
	struct conf_rig r;
	struct ibv_wc wc[3];
	int i;

	wr_rig_open(c, &r, NULL, IBV_QPT_RC);
	q = qx(&r);
	conf_put64(r.dst.p + 0, 0x1000);
	conf_put64(r.dst.p + 8, 0x2000);
	conf_put64(r.dst.p + 16, 0xfffffffffffffff0ull);
	ibv_wr_start(q);
	q->wr_flags = IBV_SEND_SIGNALED;
	q->wr_id = 1;
	ibv_wr_atomic_cmp_swp(q, r.dst.mr->rkey, t_addr(&r.dst, 0), 0x1000,
			      0xabcdef0123456789ull);
	ibv_wr_set_sge(q, r.loc.mr->lkey, t_addr(&r.loc, 0), 8);
	q->wr_id = 2;
	ibv_wr_atomic_cmp_swp(q, r.dst.mr->rkey, t_addr(&r.dst, 8), 0x1fff,
			      0x77);
	ibv_wr_set_sge(q, r.loc.mr->lkey, t_addr(&r.loc, 8), 8);
	q->wr_id = 3;
	ibv_wr_atomic_fetch_add(q, r.dst.mr->rkey, t_addr(&r.dst, 16), 0x20);
	ibv_wr_set_sge(q, r.loc.mr->lkey, t_addr(&r.loc, 16), 8);
	WR_COMPLETE(q);
	POLL(r.scq0, 3, wc);
	for (i = 0; i < 3; i++)
		EXPECT_SQ_OK(&wc[i], (uint64_t)i + 1,
			     i < 2 ? IBV_WC_COMP_SWAP : IBV_WC_FETCH_ADD, r.q0, 8);
	CHECK_EQ(conf_get64(r.loc.p + 0), 0x1000);
	CHECK_EQ(conf_get64(r.dst.p + 0), 0xabcdef0123456789ull);
	CHECK_EQ(conf_get64(r.loc.p + 8), 0x2000);
	CHECK_EQ(conf_get64(r.dst.p + 8), 0x2000);
	CHECK_EQ(conf_get64(r.loc.p + 16), 0xfffffffffffffff0ull);
	CHECK_EQ(conf_get64(r.dst.p + 16), 0x10);
	CHECK_FILL(r.dst.p + 24, CONF_CANARY, 40);
	conf_rig_close(&r);
}

/*
 * ibv_wr_bind_mw(): "Bind a MW type 2 specified by mw, set a new rkey and
 * set its properties by bind_info"; ibv_wr_local_inv(): "Invalidate a MW
 * type 2 which is associated with rkey": side 0 binds a window over 4 KiB
 * of its buffer for remote write; side 1 writes through the new rkey
 * (bytes land inside the window); after LOCAL_INV the same WRITE fails
 * with a remote access error and nothing lands. Both on RC and UC.
 */
static void mw_builders(struct conf *c, enum ibv_qp_type type)
{
	struct ibv_mw_bind_info bi;
	struct ibv_send_wr w;
	struct ibv_qp_ex *q;
	struct ibv_mw *mw;
	struct ibv_sge sg;
	struct conf_rig r;
	struct ibv_wc wc;
	uint32_t rkey;

	wr_rig_open(c, &r, NULL, type);
	q = qx(&r);
	mw = CHECK_PTR(ibv_alloc_mw(r.p.s[0].pd, IBV_MW_TYPE_2));
	rkey = ibv_inc_rkey(mw->rkey);
	memset(&bi, 0, sizeof(bi));
	bi.mr = r.loc.mr;
	bi.addr = t_addr(&r.loc, 4096);
	bi.length = 4096;
	bi.mw_access_flags = IBV_ACCESS_REMOTE_WRITE;
	ibv_wr_start(q);
	q->wr_id = 1;
	q->wr_flags = IBV_SEND_SIGNALED;
	ibv_wr_bind_mw(q, mw, rkey, &bi);
	WR_COMPLETE(q);
	POLL1(r.scq0, &wc);
	EXPECT_SQ_OK(&wc, 1, IBV_WC_BIND_MW, r.q0, T_ANY);
	CHECK_EQ(mw->rkey, rkey);

	/* Side 1 writes into the window (its "dst" is side 0's window). */
	t_fill(r.dst.p, 256, 0x77);
	sg = t_sge(&r.dst, 0, 256);
	conf_send_wr(&w, 2, IBV_WR_RDMA_WRITE, IBV_SEND_SIGNALED, &sg, 1);
	w.wr.rdma.remote_addr = t_addr(&r.loc, 4096 + 100);
	w.wr.rdma.rkey = rkey;
	POST_SEND_OK(r.qp1, &w);
	POLL1(r.scq1, &wc);
	EXPECT_SQ_OK(&wc, 2, IBV_WC_RDMA_WRITE, r.q1, T_ANY);
	if (type == IBV_QPT_UC)
		conf_idle(r.p.s[0].ctx, CONF_QUIET);
	CHECK_MEM(r.loc.p + 4196, r.dst.p, 256);
	CHECK_FILL(r.loc.p, 0, 4196);

	ibv_wr_start(q);
	q->wr_id = 3;
	ibv_wr_local_inv(q, rkey);
	WR_COMPLETE(q);
	POLL1(r.scq0, &wc);
	EXPECT_SQ_OK(&wc, 3, IBV_WC_LOCAL_INV, r.q0, T_ANY);

	memset(r.loc.p + 4096, 0, 4096);
	w.wr_id = 4;
	POST_SEND_OK(r.qp1, &w);
	if (type == IBV_QPT_RC) {
		POLL1(r.scq1, &wc);
		EXPECT_WC_ERR(&wc, 4, IBV_WC_REM_ACCESS_ERR, r.q1);
	} else {
		/* UC: sent, dropped at the responder. */
		POLL1(r.scq1, &wc);
		EXPECT_SQ_OK(&wc, 4, IBV_WC_RDMA_WRITE, r.q1, T_ANY);
		conf_idle(r.p.s[0].ctx, CONF_QUIET);
	}
	CHECK_FILL(r.loc.p, 0, 8192);
	CHECK_OK(ibv_dealloc_mw(mw));
	conf_rig_close(&r);
}

static void case_bind_mw_and_local_inv_builders_rc(struct conf *c)
{
	mw_builders(c, IBV_QPT_RC);
}

static void case_bind_mw_and_local_inv_builders_uc(struct conf *c)
{
	mw_builders(c, IBV_QPT_UC);
}

/*
 * The UC column of the builder table: SEND, SEND_WITH_IMM, RDMA_WRITE and
 * RDMA_WRITE_WITH_IMM built on a UC QP execute (receives with the bytes
 * and the immediate, bytes at the remote address).
 */
static void case_uc_send_and_write_builders(struct conf *c)
{
	struct ibv_qp_ex *q;
	struct conf_rig r;
	struct ibv_wc wc[4];

	wr_rig_open(c, &r, NULL, IBV_QPT_UC);
	q = qx(&r);
	post_recv_at(&r, 1, 0, 1024);
	post_recv_at(&r, 2, 1024, 1024);
	post_recv_at(&r, 3, 2048, 1024);
	ibv_wr_start(q);
	b_send(&r, 11, 0, 500);
	q->wr_id = 12;
	ibv_wr_send_imm(q, htonl(0xc0c0));
	ibv_wr_set_sge(q, r.src.mr->lkey, t_addr(&r.src, 600), 60);
	b_write(&r, 13, 4096, 2000);
	q->wr_id = 14;
	ibv_wr_rdma_write_imm(q, r.dst.mr->rkey, t_addr(&r.dst, 8192),
			      htonl(0xd0d0));
	ibv_wr_set_sge(q, r.src.mr->lkey, t_addr(&r.src, 8192), 300);
	WR_COMPLETE(q);
	POLL(r.scq0, 4, wc);
	EXPECT_SQ_OK(&wc[0], 11, IBV_WC_SEND, r.q0, T_ANY);
	EXPECT_SQ_OK(&wc[1], 12, IBV_WC_SEND, r.q0, T_ANY);
	EXPECT_SQ_OK(&wc[2], 13, IBV_WC_RDMA_WRITE, r.q0, T_ANY);
	EXPECT_SQ_OK(&wc[3], 14, IBV_WC_RDMA_WRITE, r.q0, T_ANY);
	POLL(r.rcq1, 3, wc);
	EXPECT_WC_OK(&wc[0], 1, IBV_WC_RECV, r.q1, 500, 0, T_ANY, r.q0);
	EXPECT_WC_OK(&wc[1], 2, IBV_WC_RECV, r.q1, 60, IBV_WC_WITH_IMM,
		     htonl(0xc0c0), r.q0);
	EXPECT_WC_OK(&wc[2], 3, IBV_WC_RECV_RDMA_WITH_IMM, r.q1, 300,
		     IBV_WC_WITH_IMM, htonl(0xd0d0), r.q0);
	CHECK_MEM(r.rbuf.p, r.src.p, 500);
	CHECK_MEM(r.rbuf.p + 1024, r.src.p + 600, 60);
	CHECK_FILL(r.rbuf.p + 2048, CONF_CANARY, 1024);
	CHECK_MEM(r.dst.p + 4096, r.src.p + 4096, 2000);
	CHECK_MEM(r.dst.p + 8192, r.src.p + 8192, 300);
	conf_rig_close(&r);
}

/*
 * "ibv_wr_set_ud_addr() must be called to set the destination address of
 * the work" (UD): a SEND and a SEND_WITH_IMM with the AH, remote QPN and
 * Q_Key arrive at that QP (GRH in the first 40 bytes, src_qp the sender); a
 * UD SEND without ibv_wr_set_ud_addr() makes ibv_wr_complete() fail and
 * nothing of its batch is sent.
 */
static void case_ud_set_ud_addr_required(struct conf *c)
{
	struct ibv_qp_ex *q;
	struct conf_rig r;
	struct ibv_wc wc[2];
	struct ibv_ah *ah;

	wr_rig_open(c, &r, NULL, IBV_QPT_UD);
	q = qx(&r);
	ah = r.p.s[0].ah;
	post_recv_at(&r, 1, 0, 1024);
	post_recv_at(&r, 2, 1024, 1024);

	ibv_wr_start(q);
	q->wr_id = 10;
	q->wr_flags = IBV_SEND_SIGNALED;
	ibv_wr_send(q);
	ibv_wr_set_ud_addr(q, ah, r.q1, CONF_QKEY);
	ibv_wr_set_sge(q, r.src.mr->lkey, t_addr(&r.src, 0), 64);
	q->wr_id = 11;
	ibv_wr_send(q);		/* no address */
	ibv_wr_set_sge(q, r.src.mr->lkey, t_addr(&r.src, 0), 64);
	CHECK_EQ(ibv_wr_complete(q), EINVAL);
	EXPECT_EMPTY(r.scq0, CONF_QUIET);
	EXPECT_EMPTY(r.rcq1, CONF_QUIET);

	ibv_wr_start(q);
	q->wr_id = 12;
	ibv_wr_send(q);
	ibv_wr_set_sge(q, r.src.mr->lkey, t_addr(&r.src, 100), 200);
	ibv_wr_set_ud_addr(q, ah, r.q1, CONF_QKEY);
	q->wr_id = 13;
	ibv_wr_send_imm(q, htonl(0xaa55));
	ibv_wr_set_ud_addr(q, ah, r.q1, CONF_QKEY);
	ibv_wr_set_sge(q, r.src.mr->lkey, t_addr(&r.src, 400), 30);
	WR_COMPLETE(q);
	POLL(r.scq0, 2, wc);
	EXPECT_SQ_OK(&wc[0], 12, IBV_WC_SEND, r.q0, T_ANY);
	EXPECT_SQ_OK(&wc[1], 13, IBV_WC_SEND, r.q0, T_ANY);
	POLL(r.rcq1, 2, wc);
	EXPECT_WC_OK(&wc[0], 1, IBV_WC_RECV, r.q1, 240, IBV_WC_GRH, T_ANY, r.q0);
	EXPECT_WC_OK(&wc[1], 2, IBV_WC_RECV, r.q1, 70,
		     IBV_WC_GRH | IBV_WC_WITH_IMM, htonl(0xaa55), r.q0);
	CHECK_MEM(r.rbuf.p + 40, r.src.p + 100, 200);
	CHECK_MEM(r.rbuf.p + 1064, r.src.p + 400, 30);
	conf_rig_close(&r);
}

/*
 * ibv_wr_set_sge(): "Transfer data to/from a single buffer given by the
 * lkey, addr and length. This is equivalent to ibv_wr_set_sge_list() with a
 * single element"; ibv_wr_set_sge_list(): "Transfer data to/from a list of
 * buffers, logically concatenated together": a SEND of 4 SGEs from two MRs
 * (one of length 0) arrives as their concatenation; one SGE by either
 * setter gives the same message.
 */
static void case_set_sge_list_concatenates_buffers(struct conf *c)
{
	struct ibv_sge sg[4];
	struct ibv_qp_ex *q;
	struct conf_rig r;
	struct ibv_wc wc[3];
	uint8_t exp[700];

	wr_rig_open(c, &r, NULL, IBV_QPT_RC);
	q = qx(&r);
	t_fill(r.loc.p, 4096, 0x10c);
	post_recv_at(&r, 1, 0, 1024);
	post_recv_at(&r, 2, 1024, 1024);
	post_recv_at(&r, 3, 2048, 1024);
	sg[0] = t_sge(&r.src, 7, 300);
	sg[1] = t_sge(&r.loc, 100, 250);
	sg[2] = t_sge(&r.src, 1000, 0);
	sg[3] = t_sge(&r.src, 2000, 150);
	memcpy(exp, r.src.p + 7, 300);
	memcpy(exp + 300, r.loc.p + 100, 250);
	memcpy(exp + 550, r.src.p + 2000, 150);
	ibv_wr_start(q);
	q->wr_id = 1;
	q->wr_flags = IBV_SEND_SIGNALED;
	ibv_wr_send(q);
	ibv_wr_set_sge_list(q, 4, sg);
	q->wr_id = 2;
	ibv_wr_send(q);
	ibv_wr_set_sge_list(q, 1, &sg[1]);
	q->wr_id = 3;
	ibv_wr_send(q);
	ibv_wr_set_sge(q, sg[1].lkey, sg[1].addr, sg[1].length);
	WR_COMPLETE(q);
	POLL(r.scq0, 3, wc);
	POLL(r.rcq1, 3, wc);
	EXPECT_WC_OK(&wc[0], 1, IBV_WC_RECV, r.q1, 700, 0, T_ANY, r.q0);
	EXPECT_WC_OK(&wc[1], 2, IBV_WC_RECV, r.q1, 250, 0, T_ANY, r.q0);
	EXPECT_WC_OK(&wc[2], 3, IBV_WC_RECV, r.q1, 250, 0, T_ANY, r.q0);
	CHECK_MEM(r.rbuf.p, exp, 700);
	CHECK_FILL(r.rbuf.p + 700, CONF_CANARY, 324);
	CHECK_MEM(r.rbuf.p + 1024, r.loc.p + 100, 250);
	CHECK_MEM(r.rbuf.p + 2048, r.loc.p + 100, 250);
	conf_rig_close(&r);
}

/*
 * "Inline setters will copy the send data during the setter and allows the
 * caller to immediately re-use the buffer": ibv_wr_set_inline_data() on a
 * SEND and ibv_wr_set_inline_data_list() (3 buffers, logically
 * concatenated) on an RDMA WRITE, from unregistered memory that is
 * overwritten right after each setter, before ibv_wr_complete(): the
 * original bytes arrive.
 */
static void case_inline_setters_copy_data_at_setter(struct conf *c)
{
	struct ibv_data_buf db[3];
	struct t_pair_cfg cfg;
	struct ibv_qp_ex *q;
	struct conf_rig r;
	struct ibv_wc wc[2];
	uint8_t *a, exp[200];

	conf_rig_cfg(c, &cfg);
	cfg.caps.max_inline_data = 200;
	wr_rig_open(c, &r, &cfg, IBV_QPT_RC);
	q = qx(&r);
	CHECK(r.p.s[0].cap.max_inline_data >= 200);
	a = malloc(400);
	CHECK(a);
	t_fill(a, 400, 0x1a1a);
	memcpy(exp, a, 120);
	post_recv_at(&r, 1, 0, 1024);
	ibv_wr_start(q);
	q->wr_id = 1;
	q->wr_flags = IBV_SEND_SIGNALED;
	ibv_wr_send(q);
	ibv_wr_set_inline_data(q, a, 120);
	memset(a, 0xee, 120);
	WR_COMPLETE(q);
	POLL1(r.scq0, wc);
	EXPECT_SQ_OK(wc, 1, IBV_WC_SEND, r.q0, T_ANY);
	POLL1(r.rcq1, wc);
	EXPECT_WC_OK(wc, 1, IBV_WC_RECV, r.q1, 120, 0, T_ANY, r.q0);
	CHECK_MEM(r.rbuf.p, exp, 120);

	t_fill(a, 400, 0x2b2b);
	memcpy(exp, a + 10, 50);
	memcpy(exp + 50, a + 200, 1);
	memcpy(exp + 51, a + 300, 99);
	db[0].addr = a + 10;
	db[0].length = 50;
	db[1].addr = a + 200;
	db[1].length = 1;
	db[2].addr = a + 300;
	db[2].length = 99;
	ibv_wr_start(q);
	q->wr_id = 2;
	ibv_wr_rdma_write(q, r.dst.mr->rkey, t_addr(&r.dst, 64));
	ibv_wr_set_inline_data_list(q, 3, db);
	memset(a, 0xdd, 400);
	WR_COMPLETE(q);
	POLL1(r.scq0, wc);
	EXPECT_SQ_OK(wc, 2, IBV_WC_RDMA_WRITE, r.q0, T_ANY);
	CHECK_FILL(r.dst.p, CONF_CANARY, 64);
	CHECK_MEM(r.dst.p + 64, exp, 150);
	CHECK_FILL(r.dst.p + 214, CONF_CANARY, 64);
	free(a);
	conf_rig_close(&r);
}

/*
 * Inline data: "The provider will limit the amount of data it can support
 * in a single operation. This limit is requested in the max_inline_data
 * member of struct ibv_qp_init_attr. Valid only for SEND and RDMA_WRITE":
 * max_inline_data bytes go; one byte more, or inline data on an RDMA READ
 * or an atomic, make ibv_wr_complete() fail (nothing of the batch runs).
 */
static void case_inline_limited_to_max_inline_data_send_and_write(struct conf *c)
{
	struct t_pair_cfg cfg;
	struct ibv_qp_ex *q;
	struct conf_rig r;
	struct ibv_wc wc;
	uint32_t max;
	uint8_t *a;
	int k;

	conf_rig_cfg(c, &cfg);
	cfg.caps.max_inline_data = 64;
	wr_rig_open(c, &r, &cfg, IBV_QPT_RC);
	q = qx(&r);
	max = r.p.s[0].cap.max_inline_data;
	CHECK(max >= 64);
	a = malloc(max + 1);
	CHECK(a);
	t_fill(a, max + 1, 0x3c3c);
	for (k = 0; k < 3; k++) {
		ibv_wr_start(q);
		b_write(&r, 1, 0, 16);
		q->wr_id = 2;
		switch (k) {
		case 0:
			ibv_wr_send(q);
			ibv_wr_set_inline_data(q, a, max + 1);
			break;
		case 1:
			ibv_wr_rdma_read(q, r.dst.mr->rkey, t_addr(&r.dst, 0));
			ibv_wr_set_inline_data(q, a, 8);
			break;
		default:
			ibv_wr_atomic_fetch_add(q, r.dst.mr->rkey,
						t_addr(&r.dst, 0), 1);
			ibv_wr_set_inline_data(q, a, 8);
			break;
		}
		CHECK_EQ(ibv_wr_complete(q), EINVAL);
	}
	expect_nothing(&r, 4096);

	post_recv_at(&r, 7, 0, 4096);
	ibv_wr_start(q);
	q->wr_id = 3;
	q->wr_flags = IBV_SEND_SIGNALED;
	ibv_wr_send(q);
	ibv_wr_set_inline_data(q, a, max);
	WR_COMPLETE(q);
	POLL1(r.scq0, &wc);
	EXPECT_SQ_OK(&wc, 3, IBV_WC_SEND, r.q0, T_ANY);
	POLL1(r.rcq1, &wc);
	EXPECT_WC_OK(&wc, 7, IBV_WC_RECV, r.q1, max, 0, T_ANY, r.q0);
	CHECK_MEM(r.rbuf.p, a, max);
	free(a);
	conf_rig_close(&r);
}

/* ------------------------------------------------------------------------ */
/* Extended CQ: ibv_create_cq_ex, ibv_start_poll/next_poll/end_poll        */

#define CQX_FLAGS (IBV_WC_STANDARD_FLAGS | IBV_WC_EX_WITH_COMPLETION_TIMESTAMP)

static struct ibv_cq_ex *cqx_create(struct ibv_context *ctx, int cqe)
{
	struct ibv_cq_init_attr_ex ca;

	memset(&ca, 0, sizeof(ca));
	ca.cqe = cqe;
	ca.wc_flags = CQX_FLAGS;
	return CHECK_PTR(ibv_create_cq_ex(ctx, &ca));
}

/*
 * ibv_start_poll() on an empty extended CQ returns ENOENT (and needs no
 * ibv_end_poll()); a CQ with a wc_flags field the device cannot provide
 * is not created (EOPNOTSUPP).
 */
static void case_cq_ex_start_poll_enoent_when_empty(struct conf *c)
{
	struct ibv_poll_cq_attr pa = { 0 };
	struct ibv_cq_init_attr_ex ca;
	struct ibv_context *ctx = t_open_device(T_DEV0);
	struct ibv_cq_ex *cq = cqx_create(ctx, 16);
	int i;

	(void)c;
	for (i = 0; i < 3; i++)
		CHECK_EQ(ibv_start_poll(cq, &pa), ENOENT);
	CHECK_OK(ibv_destroy_cq(ibv_cq_ex_to_cq(cq)));
	memset(&ca, 0, sizeof(ca));
	ca.cqe = 16;
	ca.wc_flags = IBV_WC_STANDARD_FLAGS | IBV_WC_EX_WITH_FLOW_TAG;
	errno = 0;
	CHECK(ibv_create_cq_ex(ctx, &ca) == NULL);
	CHECK_EQ(errno, EOPNOTSUPP);
	CHECK_OK(ibv_close_device(ctx));
}

struct xwc {
	uint64_t wr_id;
	enum ibv_wc_status status;
	enum ibv_wc_opcode opcode;
	uint32_t vendor_err, byte_len, qp_num, src_qp, slid;
	__be32 imm;
	unsigned int flags;
	uint8_t sl, dlid_bits;
	uint64_t ts;
};

/* Drains @n completions (start/next/end passes, a new pass when the next
 * one is not there yet); ibv_next_poll() after the last returns ENOENT. */
static void cqx_drain(struct ibv_cq_ex *cq, int n, struct xwc *w)
{
	struct ibv_poll_cq_attr pa = { 0 };
	int i, rc, started = 0;
	long k;

	for (i = 0; i < n; i++) {
		rc = started ? ibv_next_poll(cq) : ENOENT;
		if (rc == ENOENT) {
			if (started)
				ibv_end_poll(cq);
			k = 0;
			while ((rc = ibv_start_poll(cq, &pa)) == ENOENT)
				CHECK(++k < T_POLL_BOUND);
			started = 1;
		}
		CHECK_EQ(rc, 0);
		w[i].wr_id = cq->wr_id;
		w[i].status = cq->status;
		w[i].opcode = ibv_wc_read_opcode(cq);
		w[i].vendor_err = ibv_wc_read_vendor_err(cq);
		w[i].byte_len = ibv_wc_read_byte_len(cq);
		w[i].qp_num = ibv_wc_read_qp_num(cq);
		w[i].src_qp = ibv_wc_read_src_qp(cq);
		w[i].flags = ibv_wc_read_wc_flags(cq);
		w[i].imm = w[i].flags & IBV_WC_WITH_IMM ?
			   ibv_wc_read_imm_data(cq) : 0;
		if (w[i].flags & IBV_WC_WITH_INV)
			w[i].imm = htonl(ibv_wc_read_invalidated_rkey(cq));
		w[i].slid = ibv_wc_read_slid(cq);
		w[i].sl = ibv_wc_read_sl(cq);
		w[i].dlid_bits = ibv_wc_read_dlid_path_bits(cq);
		w[i].ts = ibv_wc_read_completion_ts(cq);
	}
	CHECK_EQ(ibv_next_poll(cq), ENOENT);
	ibv_end_poll(cq);
}

static void xwc_expect(const struct xwc *w, uint64_t id, enum ibv_wc_opcode op,
		       uint32_t qpn, long long len, unsigned int flags,
		       __be32 imm, long long src)
{
	CHECKF(w->wr_id == id && w->status == IBV_WC_SUCCESS,
	       "wr_id %llu status %d, expected %llu SUCCESS",
	       (unsigned long long)w->wr_id, w->status, (unsigned long long)id);
	CHECK_EQ(w->opcode, op);
	CHECK_EQ(w->qp_num, qpn);
	CHECK_EQ(w->vendor_err, 0);
	if (len != T_ANY)
		CHECK_EQ(w->byte_len, len);
	CHECK_EQ(w->flags & ~(unsigned int)IBV_WC_GRH, flags);
	if (flags & (IBV_WC_WITH_IMM | IBV_WC_WITH_INV))
		CHECK_EQ(w->imm, imm);
	if (src != T_ANY)
		CHECK_EQ(w->src_qp, src);
	CHECK_EQ(w->slid, 0);
	CHECK_EQ(w->sl, 0);
	CHECK_EQ(w->dlid_bits, 0);
	CHECK(w->ts != 0);
}

/*
 * ibv_start_poll()/ibv_next_poll()/ibv_end_poll() and ibv_wc_read_*() of an
 * extended CQ give every field of each completion: receive completions of
 * SEND, SEND_WITH_IMM, RDMA_WRITE_WITH_IMM and SEND_WITH_INV (wr_id,
 * status, opcode, byte_len, imm_data, invalidated_rkey, qp_num, src_qp,
 * wc_flags, no LIDs), send completions of the builders' WRs including
 * READ and atomic byte_len; completion timestamps never go back.
 */
static void case_cq_ex_poll_reads_every_field(struct conf *c)
{
	struct ibv_context *ctx[2];
	struct ibv_pd *pd[2];
	struct ibv_cq_ex *cq[2];
	struct ibv_cq *cq1s;
	struct ibv_qp *qp[2];
	struct ibv_qp_ex *q;
	struct t_buf src, loc, dst, rbuf;
	struct ibv_mw_bind_info bi;
	struct ibv_mw *mw;
	struct ibv_wc wc;
	struct t_qp_caps caps = { 32, 32, 2, 2, 0, 0 };
	struct xwc w[6];
	uint32_t rkey;
	int i;

	ctx[0] = t_open_device(T_DEV0);
	ctx[1] = c->loopback ? ctx[0] : t_open_device(T_DEV1);
	pd[0] = CHECK_PTR(ibv_alloc_pd(ctx[0]));
	pd[1] = c->loopback ? pd[0] : CHECK_PTR(ibv_alloc_pd(ctx[1]));
	for (i = 0; i < 2; i++)
		cq[i] = cqx_create(ctx[i], 64);
	cq1s = t_create_cq(ctx[1], 16);
	qp[0] = t_create_qp(pd[0], ibv_cq_ex_to_cq(cq[0]),
			    ibv_cq_ex_to_cq(cq[0]), IBV_QPT_RC, OPS_RC, &caps,
			    NULL);
	qp[1] = t_create_qp(pd[1], cq1s, ibv_cq_ex_to_cq(cq[1]), IBV_QPT_RC,
			    OPS_RC, &caps, NULL);
	{
		struct t_qp_attrs at[2];
		union ibv_gid g[2];

		for (i = 0; i < 2; i++) {
			t_qp_default_attrs(&at[i]);
			at[i].access = CONF_ACC_ALL;
			t_query_gid(ctx[i], &g[i]);
		}
		t_qp_to_rts_attrs(qp[0], IBV_MTU_1024, &g[1], qp[1]->qp_num,
				  0x200, 0x100, &at[0]);
		t_qp_to_rts_attrs(qp[1], IBV_MTU_1024, &g[0], qp[0]->qp_num,
				  0x100, 0x200, &at[1]);
	}
	t_buf_alloc_access(&src, pd[0], 8192, CONF_ACC_ALL);
	t_buf_alloc_access(&loc, pd[0], 4096, CONF_ACC_ALL);
	t_buf_alloc_access(&dst, pd[1], 8192,
			   CONF_ACC_ALL | IBV_ACCESS_MW_BIND);
	t_buf_alloc_access(&rbuf, pd[1], 8192, CONF_ACC_ALL);
	t_fill(src.p, 8192, 0xc0ec);
	conf_put64(dst.p + 4096, 5);

	/* A window on side 1 for the SEND_WITH_INV. */
	mw = CHECK_PTR(ibv_alloc_mw(pd[1], IBV_MW_TYPE_2));
	rkey = ibv_inc_rkey(mw->rkey);
	memset(&bi, 0, sizeof(bi));
	bi.mr = dst.mr;
	bi.addr = t_addr(&dst, 0);
	bi.length = 1024;
	bi.mw_access_flags = IBV_ACCESS_REMOTE_WRITE;
	q = ibv_qp_to_qp_ex(qp[1]);
	ibv_wr_start(q);
	q->wr_id = 99;
	q->wr_flags = IBV_SEND_SIGNALED;
	ibv_wr_bind_mw(q, mw, rkey, &bi);
	WR_COMPLETE(q);
	POLL1(cq1s, &wc);
	EXPECT_SQ_OK(&wc, 99, IBV_WC_BIND_MW, qp[1]->qp_num, T_ANY);

	for (i = 0; i < 4; i++) {
		struct ibv_sge sg = t_sge(&rbuf, 1024 * (size_t)i, 1024);

		POST_RECV(qp[1], 10 + i, &sg, 1);
	}
	q = ibv_qp_to_qp_ex(qp[0]);
	ibv_wr_start(q);
	q->wr_flags = IBV_SEND_SIGNALED;
	q->wr_id = 1;
	ibv_wr_send(q);
	ibv_wr_set_sge(q, src.mr->lkey, t_addr(&src, 0), 100);
	q->wr_id = 2;
	ibv_wr_send_imm(q, htonl(0x01020304));
	ibv_wr_set_sge(q, src.mr->lkey, t_addr(&src, 100), 200);
	q->wr_id = 3;
	ibv_wr_rdma_write_imm(q, dst.mr->rkey, t_addr(&dst, 2048),
			      htonl(0x0a0b0c0d));
	ibv_wr_set_sge(q, src.mr->lkey, t_addr(&src, 300), 300);
	q->wr_id = 4;
	ibv_wr_send_inv(q, rkey);
	ibv_wr_set_sge(q, src.mr->lkey, t_addr(&src, 600), 40);
	q->wr_id = 5;
	ibv_wr_rdma_read(q, dst.mr->rkey, t_addr(&dst, 2048));
	ibv_wr_set_sge(q, loc.mr->lkey, t_addr(&loc, 0), 300);
	q->wr_id = 6;
	ibv_wr_atomic_fetch_add(q, dst.mr->rkey, t_addr(&dst, 4096), 1);
	ibv_wr_set_sge(q, loc.mr->lkey, t_addr(&loc, 1024), 8);
	WR_COMPLETE(q);

	cqx_drain(cq[0], 6, w);
	xwc_expect(&w[0], 1, IBV_WC_SEND, qp[0]->qp_num, T_ANY, 0, 0, T_ANY);
	CHECK(!(w[1].flags & ~(unsigned int)(IBV_WC_WITH_IMM | IBV_WC_GRH)));
	w[1].flags = 0;
	xwc_expect(&w[1], 2, IBV_WC_SEND, qp[0]->qp_num, T_ANY, 0, 0, T_ANY);
	CHECK(!(w[2].flags & ~(unsigned int)(IBV_WC_WITH_IMM | IBV_WC_GRH)));
	w[2].flags = 0;
	xwc_expect(&w[2], 3, IBV_WC_RDMA_WRITE, qp[0]->qp_num, T_ANY, 0, 0,
		   T_ANY);
	xwc_expect(&w[3], 4, IBV_WC_SEND, qp[0]->qp_num, T_ANY, 0, 0, T_ANY);
	xwc_expect(&w[4], 5, IBV_WC_RDMA_READ, qp[0]->qp_num, 300, 0, 0, T_ANY);
	xwc_expect(&w[5], 6, IBV_WC_FETCH_ADD, qp[0]->qp_num, 8, 0, 0, T_ANY);
	for (i = 1; i < 6; i++)
		CHECK(w[i].ts >= w[i - 1].ts);

	cqx_drain(cq[1], 4, w);
	xwc_expect(&w[0], 10, IBV_WC_RECV, qp[1]->qp_num, 100, 0, 0,
		   qp[0]->qp_num);
	xwc_expect(&w[1], 11, IBV_WC_RECV, qp[1]->qp_num, 200, IBV_WC_WITH_IMM,
		   htonl(0x01020304), qp[0]->qp_num);
	xwc_expect(&w[2], 12, IBV_WC_RECV_RDMA_WITH_IMM, qp[1]->qp_num, 300,
		   IBV_WC_WITH_IMM, htonl(0x0a0b0c0d), qp[0]->qp_num);
	xwc_expect(&w[3], 13, IBV_WC_RECV, qp[1]->qp_num, 40, IBV_WC_WITH_INV,
		   htonl(rkey), qp[0]->qp_num);
	for (i = 1; i < 4; i++)
		CHECK(w[i].ts >= w[i - 1].ts);
	CHECK_MEM(rbuf.p, src.p, 100);
	CHECK_MEM(rbuf.p + 1024, src.p + 100, 200);
	CHECK_MEM(dst.p + 2048, src.p + 300, 300);
	CHECK_MEM(rbuf.p + 3072, src.p + 600, 40);
	CHECK_MEM(loc.p, src.p + 300, 300);
	CHECK_EQ(conf_get64(loc.p + 1024), 5);
	CHECK_EQ(conf_get64(dst.p + 4096), 6);

	/* ibv_poll_cq() of the same CQ sees it empty. */
	EXPECT_EMPTY(ibv_cq_ex_to_cq(cq[0]), CONF_QUIET);
	t_buf_free(&src);
	t_buf_free(&loc);
	t_buf_free(&dst);
	t_buf_free(&rbuf);
	for (i = 0; i < 2; i++)
		CHECK_OK(ibv_destroy_qp(qp[i]));
	CHECK_OK(ibv_dealloc_mw(mw));
	CHECK_OK(ibv_destroy_cq(cq1s));
	for (i = 0; i < 2; i++)
		CHECK_OK(ibv_destroy_cq(ibv_cq_ex_to_cq(cq[i])));
	for (i = 0; i < (c->loopback ? 1 : 2); i++) {
		CHECK_OK(ibv_dealloc_pd(pd[i]));
		CHECK_OK(ibv_close_device(ctx[i]));
	}
}

static const struct conf_case cases[] = {
	CONF_CASE(create_qp_ex_with_send_ops_flags_gives_qp_ex, CONF_LOCAL),
	CONF_CASE(create_fails_if_qp_cannot_do_all_send_ops, CONF_LOCAL),
	CONF_CASE(no_work_executes_until_complete, CONF_BOTH),
	CONF_CASE(abort_discards_work_since_start, CONF_BOTH),
	CONF_CASE(complete_fails_and_aborts_whole_posting_on_bad_wr, CONF_BOTH),
	CONF_CASE(post_send_and_wr_batches_interleave, CONF_BOTH),
	CONF_CASE(start_and_complete_form_per_qp_critical_section, CONF_BOTH),
	CONF_CASE(wr_id_and_wr_flags_taken_at_builder, CONF_BOTH),
	CONF_CASE(wr_flags_solicited_gives_remote_completion_event, CONF_BOTH),
	CONF_CASE(wr_flags_fence_waits_for_prior_work, CONF_BOTH),
	CONF_CASE(send_and_send_imm_builders, CONF_BOTH),
	CONF_CASE(send_inv_invalidates_remote_rkey, CONF_BOTH),
	CONF_CASE(rdma_write_write_imm_read_builders, CONF_BOTH),
	CONF_CASE(atomic_cmp_swp_fetch_add_builders, CONF_BOTH),
	CONF_CASE(bind_mw_and_local_inv_builders_rc, CONF_BOTH),
	CONF_CASE(bind_mw_and_local_inv_builders_uc, CONF_BOTH),
	CONF_CASE(uc_send_and_write_builders, CONF_BOTH),
	CONF_CASE(ud_set_ud_addr_required, CONF_BOTH),
	CONF_CASE(set_sge_list_concatenates_buffers, CONF_BOTH),
	CONF_CASE(inline_setters_copy_data_at_setter, CONF_BOTH),
	CONF_CASE(inline_limited_to_max_inline_data_send_and_write, CONF_BOTH),
	CONF_CASE(cq_ex_start_poll_enoent_when_empty, CONF_LOCAL),
	CONF_CASE(cq_ex_poll_reads_every_field, CONF_BOTH),
};

int main(int argc, char **argv)
{
	return conf_main(argc, argv, cases, sizeof(cases) / sizeof(cases[0]));
}
