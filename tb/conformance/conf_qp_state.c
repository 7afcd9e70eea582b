// SPDX-License-Identifier: MIT
/*
 * conf_qp_state.c - QP states: ibv_modify_qp() enforces the legal
 * transitions and the attribute masks each one requires and allows
 * (ibv_modify_qp(3), IBA table 91, as the kernel's ib_modify_qp_is_ok()),
 * and ibv_query_qp() reports the truth, also after the hardware moved a QP
 * to ERR on its own. What posting does in each state is checked by
 * conf_post_send (send_refused_in_reset_init_rtr) and conf_post_recv.
 *
 * SQD: RTS -> SQD stops the send queue after the WQEs the hardware took
 * (the SQ_DRAINED event when asked), receives go on, SQD -> RTS sends the
 * rest. SQE: a UC/UD send error; the SQ is flushed, the RQ goes on, SQE ->
 * RTS sends again (docs/verbs.md).
 */
#include <errno.h>
#include <string.h>

#include "conf.h"

/* The three transitions that bring a QP up, and what each requires. */
struct up_step {
	enum ibv_qp_state from, to;
	int req;		/* required, besides IBV_QP_STATE */
};

static void up_steps(enum ibv_qp_type t, struct up_step s[3])
{
	s[0] = (struct up_step){ IBV_QPS_RESET, IBV_QPS_INIT,
				 IBV_QP_PKEY_INDEX | IBV_QP_PORT };
	s[1] = (struct up_step){ IBV_QPS_INIT, IBV_QPS_RTR, 0 };
	s[2] = (struct up_step){ IBV_QPS_RTR, IBV_QPS_RTS, IBV_QP_SQ_PSN };
	switch (t) {
	case IBV_QPT_RC:
		s[0].req |= IBV_QP_ACCESS_FLAGS;
		s[1].req |= IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN |
			    IBV_QP_RQ_PSN | IBV_QP_MAX_DEST_RD_ATOMIC |
			    IBV_QP_MIN_RNR_TIMER;
		s[2].req |= IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT |
			    IBV_QP_RNR_RETRY | IBV_QP_MAX_QP_RD_ATOMIC;
		break;
	case IBV_QPT_UC:
		s[0].req |= IBV_QP_ACCESS_FLAGS;
		s[1].req |= IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN |
			    IBV_QP_RQ_PSN;
		break;
	default:
		s[0].req |= IBV_QP_QKEY;
		break;
	}
}

/* Every attribute a full bring-up of @peer's partner sets. */
static void full_attr(struct ibv_qp_attr *a, struct ibv_qp *peer)
{
	memset(a, 0, sizeof(*a));
	a->pkey_index = 0;
	a->port_num = T_PORT;
	a->qp_access_flags = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |
			     IBV_ACCESS_REMOTE_READ;
	a->qkey = CONF_QKEY;
	a->path_mtu = IBV_MTU_2048;
	a->dest_qp_num = peer->qp_num;
	a->rq_psn = 0x123456;
	a->sq_psn = 0xabcdef;
	a->max_dest_rd_atomic = 2;
	a->max_rd_atomic = 3;
	a->min_rnr_timer = 9;
	a->timeout = 11;
	a->retry_cnt = 5;
	a->rnr_retry = 6;
	a->ah_attr.is_global = 1;
	t_query_gid(peer->context, &a->ah_attr.grh.dgid);
	a->ah_attr.grh.sgid_index = T_GID_INDEX;
	a->ah_attr.grh.hop_limit = 64;
	a->ah_attr.port_num = T_PORT;
}

static struct ibv_qp *new_qp(struct conf_rig *r, struct ibv_cq *cq,
			     enum ibv_qp_type t)
{
	struct t_qp_caps caps = { .max_send_wr = 16, .max_recv_wr = 16,
				  .max_send_sge = 1, .max_recv_sge = 1 };

	return t_create_qp(r->p.s[0].pd, cq, cq, t, 0, &caps, NULL);
}

/* ibv_modify_qp() must fail with EINVAL and leave the state alone. */
static void expect_refused(struct ibv_qp *qp, struct ibv_qp_attr *a, int mask,
			   enum ibv_qp_state now)
{
	int rc = ibv_modify_qp(qp, a, mask);

	CHECKF(rc == EINVAL, "ibv_modify_qp(mask 0x%x, to %d) in state %d "
	       "returned %d, expected EINVAL", mask, a->qp_state, now, rc);
	CHECK_EQ(conf_qp_state(qp), now);
}

static const enum ibv_qp_type qp_types[] = {
	IBV_QPT_RC, IBV_QPT_UC, IBV_QPT_UD
};

/*
 * "The following attributes are required for each transition" (RC, UC,
 * UD): leaving out any one of them is EINVAL and the QP stays where it is;
 * the full required set succeeds.
 */
static void case_modify_requires_each_attribute_of_the_transition(struct conf *c)
{
	struct conf_rig r;
	struct ibv_cq *cq;
	size_t ti;

	conf_rig_open(c, &r, NULL);
	cq = t_create_cq(r.p.s[0].ctx, 16);
	for (ti = 0; ti < sizeof(qp_types) / sizeof(qp_types[0]); ti++) {
		struct ibv_qp *qp = new_qp(&r, cq, qp_types[ti]);
		struct up_step s[3];
		struct ibv_qp_attr a;
		int k, bit;

		up_steps(qp_types[ti], s);
		for (k = 0; k < 3; k++) {
			full_attr(&a, r.qp1);
			a.qp_state = s[k].to;
			for (bit = 0; bit < 31; bit++) {
				if (!(s[k].req & (1 << bit)))
					continue;
				expect_refused(qp, &a, IBV_QP_STATE |
					       (s[k].req & ~(1 << bit)),
					       s[k].from);
			}
			CHECK_OK(ibv_modify_qp(qp, &a, IBV_QP_STATE | s[k].req));
			CHECK_EQ(conf_qp_state(qp), s[k].to);
		}
		CHECK_OK(ibv_destroy_qp(qp));
	}
	CHECK_OK(ibv_destroy_cq(cq));
	conf_rig_close(&r);
}

/*
 * An attribute the transition does not take is EINVAL (the kernel's
 * ib_modify_qp_is_ok()): a Q_Key for an RC QP, an SQ PSN at INIT -> RTR,
 * the destination QP of a UD QP.
 */
static void case_modify_refuses_attribute_not_allowed(struct conf *c)
{
	struct conf_rig r;
	struct ibv_qp_attr a;
	struct ibv_cq *cq;
	struct ibv_qp *rc, *ud;
	struct up_step s[3];

	conf_rig_open(c, &r, NULL);
	cq = t_create_cq(r.p.s[0].ctx, 16);
	rc = new_qp(&r, cq, IBV_QPT_RC);
	ud = new_qp(&r, cq, IBV_QPT_UD);

	up_steps(IBV_QPT_RC, s);
	full_attr(&a, r.qp1);
	a.qp_state = IBV_QPS_INIT;
	expect_refused(rc, &a, IBV_QP_STATE | s[0].req | IBV_QP_QKEY,
		       IBV_QPS_RESET);
	CHECK_OK(ibv_modify_qp(rc, &a, IBV_QP_STATE | s[0].req));
	a.qp_state = IBV_QPS_RTR;
	expect_refused(rc, &a, IBV_QP_STATE | s[1].req | IBV_QP_SQ_PSN,
		       IBV_QPS_INIT);
	CHECK_OK(ibv_modify_qp(rc, &a, IBV_QP_STATE | s[1].req));
	a.qp_state = IBV_QPS_RTS;
	expect_refused(rc, &a, IBV_QP_STATE | s[2].req | IBV_QP_DEST_QPN,
		       IBV_QPS_RTR);

	up_steps(IBV_QPT_UD, s);
	full_attr(&a, r.qp1);
	a.qp_state = IBV_QPS_INIT;
	expect_refused(ud, &a, IBV_QP_STATE | s[0].req | IBV_QP_ACCESS_FLAGS,
		       IBV_QPS_RESET);
	CHECK_OK(ibv_modify_qp(ud, &a, IBV_QP_STATE | s[0].req));
	a.qp_state = IBV_QPS_RTR;
	expect_refused(ud, &a, IBV_QP_STATE | IBV_QP_DEST_QPN | IBV_QP_AV,
		       IBV_QPS_INIT);

	CHECK_OK(ibv_destroy_qp(rc));
	CHECK_OK(ibv_destroy_qp(ud));
	CHECK_OK(ibv_destroy_cq(cq));
	conf_rig_close(&r);
}

/*
 * Only the transitions of the state diagram are legal: RESET -> RTR/RTS,
 * INIT -> RTS, RTR -> INIT, RTS -> INIT/RTR, ERR -> INIT/RTR/RTS are EINVAL
 * (with every attribute given), and into SQD (only RTS -> SQD, which
 * allows none of them) or SQE (entered by the hardware only) as well; an
 * RC QP has no SQE -> RTS even when told it is in SQE; the QP stays in its
 * state.
 */
static void case_modify_refuses_illegal_transitions(struct conf *c)
{
	static const enum ibv_qp_state all[] = {
		IBV_QPS_INIT, IBV_QPS_RTR, IBV_QPS_RTS, IBV_QPS_SQD,
		IBV_QPS_SQE,
	};
	struct conf_rig r;
	struct t_qp_attrs at;
	struct ibv_qp_attr a;
	struct ibv_cq *cq;
	struct ibv_qp *qp;
	enum ibv_qp_state now;
	const int every = IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT |
			  IBV_QP_ACCESS_FLAGS | IBV_QP_AV | IBV_QP_PATH_MTU |
			  IBV_QP_DEST_QPN | IBV_QP_RQ_PSN |
			  IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER |
			  IBV_QP_SQ_PSN | IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT |
			  IBV_QP_RNR_RETRY | IBV_QP_MAX_QP_RD_ATOMIC;
	size_t k;

	conf_rig_open(c, &r, NULL);
	t_qp_default_attrs(&at);
	cq = t_create_cq(r.p.s[0].ctx, 16);
	qp = new_qp(&r, cq, IBV_QPT_RC);
	full_attr(&a, r.qp1);
	for (now = IBV_QPS_RESET; now <= IBV_QPS_ERR; now++) {
		if (now == IBV_QPS_SQD || now == IBV_QPS_SQE)
			continue;
		if (now == IBV_QPS_INIT)
			conf_qp_init(qp, CONF_ACC_ALL);
		else if (now == IBV_QPS_RTR)
			conf_qp_rtr(qp, r.qp1, 0, &at);
		else if (now == IBV_QPS_RTS)
			conf_qp_rts(qp, 0, &at);
		else if (now == IBV_QPS_ERR)
			conf_qp_to(qp, IBV_QPS_ERR);
		for (k = 0; k < sizeof(all) / sizeof(all[0]); k++) {
			enum ibv_qp_state to = all[k];

			/* The legal steps up (and RTS -> RTS). */
			if ((now == IBV_QPS_RESET && to == IBV_QPS_INIT) ||
			    (now == IBV_QPS_INIT && to <= IBV_QPS_RTR) ||
			    (now == IBV_QPS_RTR && to == IBV_QPS_RTS) ||
			    (now == IBV_QPS_RTS && to == IBV_QPS_RTS))
				continue;
			a.qp_state = to;
			expect_refused(qp, &a, every, now);
		}
	}
	/* RC: no SQE -> RTS, even with IBV_QP_CUR_STATE saying SQE. */
	conf_qp_to(qp, IBV_QPS_RESET);
	conf_qp_init(qp, CONF_ACC_ALL);
	conf_qp_rtr(qp, r.qp1, 0, &at);
	conf_qp_rts(qp, 0, &at);
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTS;
	a.cur_qp_state = IBV_QPS_SQE;
	expect_refused(qp, &a, IBV_QP_STATE | IBV_QP_CUR_STATE, IBV_QPS_RTS);
	CHECK_OK(ibv_destroy_qp(qp));
	CHECK_OK(ibv_destroy_cq(cq));
	conf_rig_close(&r);
}

/*
 * Any state -> RESET and any state but RESET -> ERR are legal with only
 * IBV_QP_STATE (RESET -> ERR is not: IBA table 91, ib_modify_qp_is_ok());
 * a QP reset from ERR can be brought up again.
 */
static void case_modify_any_state_to_err_or_reset(struct conf *c)
{
	struct conf_rig r;
	struct t_qp_attrs at;
	struct ibv_cq *cq;
	struct ibv_qp *qp;
	enum ibv_qp_state st;
	int target;

	conf_rig_open(c, &r, NULL);
	t_qp_default_attrs(&at);
	cq = t_create_cq(r.p.s[0].ctx, 16);
	qp = new_qp(&r, cq, IBV_QPT_RC);
	for (target = 0; target < 2; target++) {
		for (st = IBV_QPS_RESET; st <= IBV_QPS_RTS; st++) {
			struct ibv_qp_attr e = { .qp_state = IBV_QPS_ERR };

			conf_qp_to(qp, IBV_QPS_RESET);
			if (st >= IBV_QPS_INIT)
				conf_qp_init(qp, CONF_ACC_ALL);
			if (st >= IBV_QPS_RTR)
				conf_qp_rtr(qp, r.qp1, 0, &at);
			if (st >= IBV_QPS_RTS)
				conf_qp_rts(qp, 0, &at);
			/* RESET goes only to RESET or INIT (IBA table 91). */
			if (!target && st == IBV_QPS_RESET)
				expect_refused(qp, &e, IBV_QP_STATE, st);
			else
				conf_qp_to(qp, target ? IBV_QPS_RESET :
							IBV_QPS_ERR);
		}
	}
	conf_qp_init(qp, CONF_ACC_ALL);
	conf_qp_to(qp, IBV_QPS_ERR);
	conf_qp_to(qp, IBV_QPS_ERR);
	conf_qp_to(qp, IBV_QPS_RESET);
	conf_qp_init(qp, CONF_ACC_ALL);
	conf_qp_rtr(qp, r.qp1, 0, &at);
	conf_qp_rts(qp, 0, &at);
	CHECK_OK(ibv_destroy_qp(qp));
	CHECK_OK(ibv_destroy_cq(cq));
	conf_rig_close(&r);
}

/*
 * ibv_query_qp() reports what was set: state, MTU, destination QP, PSNs,
 * access flags, timers and retry counts, RDMA read/atomic depths, port,
 * P_Key index, destination GID, and the creation attributes (CQs, type,
 * capacities, sq_sig_all).
 */
static void case_query_reports_modified_attributes(struct conf *c)
{
	struct conf_rig r;
	struct ibv_qp_attr a, q;
	struct ibv_qp_init_attr ia;
	struct ibv_cq *cq;
	struct ibv_qp *qp;
	struct up_step s[3];
	int k;

	conf_rig_open(c, &r, NULL);
	cq = t_create_cq(r.p.s[0].ctx, 16);
	qp = new_qp(&r, cq, IBV_QPT_RC);
	up_steps(IBV_QPT_RC, s);
	full_attr(&a, r.qp1);
	for (k = 0; k < 3; k++) {
		a.qp_state = s[k].to;
		CHECK_OK(ibv_modify_qp(qp, &a, IBV_QP_STATE | s[k].req));
	}
	memset(&q, 0, sizeof(q));
	memset(&ia, 0, sizeof(ia));
	CHECK_OK(ibv_query_qp(qp, &q, IBV_QP_STATE | IBV_QP_PATH_MTU |
			      IBV_QP_DEST_QPN | IBV_QP_RQ_PSN | IBV_QP_SQ_PSN |
			      IBV_QP_ACCESS_FLAGS | IBV_QP_TIMEOUT |
			      IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY |
			      IBV_QP_MIN_RNR_TIMER | IBV_QP_MAX_QP_RD_ATOMIC |
			      IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_PORT |
			      IBV_QP_PKEY_INDEX | IBV_QP_AV | IBV_QP_CAP, &ia));
	CHECK_EQ(q.qp_state, IBV_QPS_RTS);
	CHECK_EQ(q.path_mtu, IBV_MTU_2048);
	CHECK_EQ(q.dest_qp_num, r.qp1->qp_num);
	CHECK_EQ(q.rq_psn, 0x123456);
	CHECK_EQ(q.sq_psn, 0xabcdef);
	CHECK_EQ(q.qp_access_flags, a.qp_access_flags);
	CHECK_EQ(q.timeout, 11);
	CHECK_EQ(q.retry_cnt, 5);
	CHECK_EQ(q.rnr_retry, 6);
	CHECK_EQ(q.min_rnr_timer, 9);
	CHECK_EQ(q.max_rd_atomic, 3);
	CHECK_EQ(q.max_dest_rd_atomic, 2);
	CHECK_EQ(q.port_num, T_PORT);
	CHECK_EQ(q.pkey_index, 0);
	CHECK_EQ(q.ah_attr.is_global, 1);
	CHECK_MEM(q.ah_attr.grh.dgid.raw, a.ah_attr.grh.dgid.raw, 16);
	CHECK_EQ(q.cap.max_send_wr >= 16, 1);
	CHECK_EQ(q.cap.max_recv_wr >= 16, 1);
	CHECK(ia.send_cq == cq);
	CHECK(ia.recv_cq == cq);
	CHECK_EQ(ia.qp_type, IBV_QPT_RC);
	CHECK_EQ(ia.sq_sig_all, 0);
	CHECK_EQ(ia.cap.max_send_wr, q.cap.max_send_wr);
	CHECK(ia.srq == NULL);
	CHECK_OK(ibv_destroy_qp(qp));
	CHECK_OK(ibv_destroy_cq(cq));
	conf_rig_close(&r);
}

/*
 * ibv_query_qp() reports the live PSNs: after n one-packet messages the
 * requester's sq_psn and the responder's rq_psn have moved on by n.
 */
static void case_query_reports_psns_after_traffic(struct conf *c)
{
	const int n = 5;
	struct t_pair_cfg cfg;
	struct conf_rig r;
	struct ibv_qp_attr q0, q1, s0, s1;
	struct ibv_qp_init_attr ia;
	struct ibv_send_wr w;
	struct ibv_sge sg;
	struct ibv_wc wc;
	int i;

	conf_rig_cfg(c, &cfg);
	cfg.psn[0] = 0xfffffe;	/* wraps at 2^24 */
	conf_rig_open(c, &r, &cfg);
	CHECK_OK(ibv_query_qp(r.qp0, &s0, IBV_QP_SQ_PSN, &ia));
	CHECK_OK(ibv_query_qp(r.qp1, &s1, IBV_QP_RQ_PSN, &ia));
	CHECK_EQ(s0.sq_psn, 0xfffffe);
	CHECK_EQ(s1.rq_psn, 0xfffffe);
	for (i = 0; i < n; i++) {
		sg = t_sge(&r.src, 64 * (size_t)i, 64);
		conf_rdma_wr(&w, i, IBV_WR_RDMA_WRITE, IBV_SEND_SIGNALED,
			     &sg, 1, &r.dst, 64 * (size_t)i);
		POST_SEND_OK(r.qp0, &w);
		POLL1(r.scq0, &wc);
		EXPECT_SQ_OK(&wc, i, IBV_WC_RDMA_WRITE, r.q0, T_ANY);
	}
	CHECK_MEM(r.dst.p, r.src.p, 64 * n);
	CHECK_OK(ibv_query_qp(r.qp0, &q0, IBV_QP_SQ_PSN, &ia));
	CHECK_OK(ibv_query_qp(r.qp1, &q1, IBV_QP_RQ_PSN, &ia));
	CHECK_EQ(q0.sq_psn, (0xfffffe + n) & 0xffffff);
	CHECK_EQ(q1.rq_psn, (0xfffffe + n) & 0xffffff);
	conf_rig_close(&r);
}

/*
 * A QP the hardware moved to ERR on its own (a remote access error ends
 * the requester's QP) is reported in IBV_QPS_ERR by ibv_query_qp(), and
 * ibv_modify_qp() then takes it from ERR (to RESET), not from RTS.
 */
static void case_query_reports_err_entered_by_hardware(struct conf *c)
{
	struct conf_rig r;
	struct t_qp_attrs at;
	struct ibv_send_wr w;
	struct ibv_qp_attr a;
	struct ibv_sge sg;
	struct ibv_wc wc;

	conf_rig_open(c, &r, NULL);
	t_qp_default_attrs(&at);
	sg = t_sge(&r.src, 0, 64);
	conf_rdma_wr(&w, 7, IBV_WR_RDMA_WRITE, IBV_SEND_SIGNALED, &sg, 1,
		     &r.dst, 0);
	w.wr.rdma.rkey ^= 0x5a5a00;	/* no such rkey */
	POST_SEND_OK(r.qp0, &w);
	POLL1(r.scq0, &wc);
	EXPECT_WC_ERR(&wc, 7, IBV_WC_REM_ACCESS_ERR, r.q0);
	CHECK_EQ(conf_qp_state(r.qp0), IBV_QPS_ERR);
	CHECK_FILL(r.dst.p, CONF_CANARY, 64);
	/* RTS -> RTS is not legal from ERR. */
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTS;
	expect_refused(r.qp0, &a, IBV_QP_STATE, IBV_QPS_ERR);
	conf_qp_to(r.qp0, IBV_QPS_RESET);
	conf_qp_init(r.qp0, CONF_ACC_ALL);
	CHECK_EQ(conf_qp_state(r.qp0), IBV_QPS_INIT);
	(void)at;
	conf_rig_close(&r);
}

/* Two SENDs of 64 bytes from r->qp0 into receives posted at r->qp1. */
static void send2(struct conf_rig *r, uint64_t id, size_t off)
{
	struct ibv_recv_wr rw;
	struct ibv_send_wr w;
	struct ibv_sge rs, ss;
	int i;

	for (i = 0; i < 2; i++) {
		rs = t_sge(&r->rbuf, off + 64 * (size_t)i, 64);
		conf_recv_wr(&rw, id + (uint64_t)i, &rs, 1);
		POST_RECV_OK(r->qp1, &rw);
		ss = t_sge(&r->src, off + 64 * (size_t)i, 64);
		conf_send_wr(&w, id + (uint64_t)i, IBV_WR_SEND, IBV_SEND_SIGNALED,
			     &ss, 1);
		POST_SEND_OK(r->qp0, &w);
	}
}

static void modify_state(struct ibv_qp *qp, enum ibv_qp_state to, int notify)
{
	struct ibv_qp_attr a;

	memset(&a, 0, sizeof(a));
	a.qp_state = to;
	a.en_sqd_async_notify = notify;
	CHECK_OK(ibv_modify_qp(qp, &a, IBV_QP_STATE |
			       (notify ? IBV_QP_EN_SQD_ASYNC_NOTIFY : 0)));
}

/* A 64-byte SEND from r->qp1 into a receive posted at r->qp0 (whose SQ is
 * stopped) arrives and completes on both sides. */
static void peer_send_received(struct conf_rig *r)
{
	struct ibv_recv_wr rw;
	struct ibv_send_wr w;
	struct ibv_sge sg;
	struct ibv_wc wc;

	sg = t_sge(&r->loc, 0, 64);
	conf_recv_wr(&rw, 50, &sg, 1);
	POST_RECV_OK(r->qp0, &rw);
	sg = t_sge(&r->dst, 0, 64);
	conf_send_wr(&w, 51, IBV_WR_SEND, IBV_SEND_SIGNALED, &sg, 1);
	POST_SEND_OK(r->qp1, &w);
	POLL1(r->rcq0, &wc);
	EXPECT_WC_OK(&wc, 50, IBV_WC_RECV, r->q0, 64, 0, T_ANY, r->q1);
	CHECK_MEM(r->loc.p, r->dst.p, 64);
	POLL1(r->scq1, &wc);
	EXPECT_SQ_OK(&wc, 51, IBV_WC_SEND, r->q1, T_ANY);
}

static int sq_draining(struct ibv_qp *qp)
{
	struct ibv_qp_init_attr ia;
	struct ibv_qp_attr a;

	CHECK_OK(ibv_query_qp(qp, &a, IBV_QP_STATE, &ia));
	CHECK_EQ(a.qp_state, IBV_QPS_SQD);
	return a.sq_draining;
}

/*
 * ibv_post_recv(3): receives are processed in SQD. ibv_modify_qp(3) RTS ->
 * SQD (with IBV_QP_EN_SQD_ASYNC_NOTIFY): the send queue stops, the
 * IBV_EVENT_SQ_DRAINED event says so, ibv_query_qp() reports SQD, not
 * draining; SENDs posted in SQD wait (no completion, nothing arrives) while
 * a SEND from the peer is received; SQD -> RTS sends them.
 */
static void case_sqd_stops_send_queue_receives_go_on(struct conf *c)
{
	struct conf_rig r;
	struct ibv_wc wc;
	int i;

	conf_rig_open(c, &r, NULL);
	send2(&r, 1, 0);
	for (i = 0; i < 2; i++) {
		POLL1(r.scq0, &wc);
		EXPECT_SQ_OK(&wc, 1 + (uint64_t)i, IBV_WC_SEND, r.q0, T_ANY);
	}
	modify_state(r.qp0, IBV_QPS_SQD, 1);
	EXPECT_ASYNC_EVENT(r.p.s[0].ctx, IBV_EVENT_SQ_DRAINED, r.qp0);
	CHECK_EQ(sq_draining(r.qp0), 0);
	CHECK_EQ(r.qp0->state, IBV_QPS_SQD);
	send2(&r, 10, 1024);
	EXPECT_EMPTY(r.scq0, CONF_QUIET);
	/* The two receives of the first SENDs and nothing more. */
	for (i = 0; i < 2; i++)
		POLL1(r.rcq1, &wc);
	EXPECT_EMPTY(r.rcq1, CONF_QUIET);
	CHECK_FILL(r.rbuf.p + 1024, CONF_CANARY, 128);
	/* The SQD QP still receives. */
	peer_send_received(&r);
	/* Back to RTS: the two waiting SENDs go. */
	modify_state(r.qp0, IBV_QPS_RTS, 0);
	CHECK_EQ(conf_qp_state(r.qp0), IBV_QPS_RTS);
	for (i = 0; i < 2; i++) {
		POLL1(r.scq0, &wc);
		EXPECT_SQ_OK(&wc, 10 + (uint64_t)i, IBV_WC_SEND, r.q0, T_ANY);
		POLL1(r.rcq1, &wc);
		EXPECT_WC_OK(&wc, 10 + (uint64_t)i, IBV_WC_RECV, r.q1, 64, 0,
			     T_ANY, r.q0);
	}
	CHECK_MEM(r.rbuf.p + 1024, r.src.p + 1024, 128);
	conf_rig_close(&r);
}

/*
 * RTS -> SQD while a long RDMA WRITE is under way: the WRITE is not cut
 * short, ibv_query_qp() reports the SQ draining until it completed, the
 * SQ_DRAINED event comes after its completion; without
 * IBV_QP_EN_SQD_ASYNC_NOTIFY no event comes. SQD -> SQD (new attributes)
 * is refused (EINVAL, as rxe) while the SQ drains, and taken once drained.
 */
static void case_sqd_drains_work_in_progress(struct conf *c)
{
	struct ibv_qp_attr a;
	struct conf_rig r;
	struct ibv_send_wr w;
	struct ibv_sge sg;
	struct ibv_wc wc;

	conf_rig_open(c, &r, NULL);
	sg = t_sge(&r.src, 0, CONF_BUF);
	conf_rdma_wr(&w, 1, IBV_WR_RDMA_WRITE, IBV_SEND_SIGNALED, &sg, 1,
		     &r.dst, 0);
	POST_SEND_OK(r.qp0, &w);
	conf_idle(r.p.s[0].ctx, 2);	/* the WQE is taken */
	modify_state(r.qp0, IBV_QPS_SQD, 1);
	CHECK_EQ(sq_draining(r.qp0), 1);
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_SQD;
	a.retry_cnt = 3;
	CHECK_EQ(ibv_modify_qp(r.qp0, &a, IBV_QP_STATE | IBV_QP_RETRY_CNT),
		 EINVAL);
	POLL1(r.scq0, &wc);
	EXPECT_SQ_OK(&wc, 1, IBV_WC_RDMA_WRITE, r.q0, T_ANY);
	CHECK_MEM(r.dst.p, r.src.p, CONF_BUF);
	EXPECT_ASYNC_EVENT(r.p.s[0].ctx, IBV_EVENT_SQ_DRAINED, r.qp0);
	CHECK_EQ(sq_draining(r.qp0), 0);
	CHECK_OK(ibv_modify_qp(r.qp0, &a, IBV_QP_STATE | IBV_QP_RETRY_CNT));
	CHECK_EQ(conf_qp_state(r.qp0), IBV_QPS_SQD);
	/* SQD -> RTS -> SQD without notification: drained, no event. */
	modify_state(r.qp0, IBV_QPS_RTS, 0);
	modify_state(r.qp0, IBV_QPS_SQD, 0);
	CHECK_EQ(sq_draining(r.qp0), 0);
	EXPECT_FD_QUIET(r.p.s[0].ctx->async_fd, T_QUIET_MS);
	conf_rig_close(&r);
}

/*
 * A send error of a UC QP (a SEND with an lkey that does not exist) takes
 * it to SQE (ibv_query_qp), not ERR: SENDs posted after it complete with
 * IBV_WC_WR_FLUSH_ERR, its receive queue goes on (ibv_post_recv(3):
 * receives are processed in SQE), and SQE -> RTS sends again.
 */
static void case_sqe_after_uc_send_error_rq_goes_on(struct conf *c)
{
	struct t_pair_cfg cfg;
	struct conf_rig r;
	struct ibv_recv_wr rw;
	struct ibv_send_wr w;
	struct ibv_sge sg;
	struct ibv_wc wc;

	conf_rig_cfg(c, &cfg);
	cfg.qp_type = IBV_QPT_UC;
	conf_rig_open(c, &r, &cfg);
	sg = t_sge(&r.src, 0, 64);
	sg.lkey ^= 0x5a00;
	conf_send_wr(&w, 1, IBV_WR_SEND, IBV_SEND_SIGNALED, &sg, 1);
	POST_SEND_OK(r.qp0, &w);
	POLL1(r.scq0, &wc);
	EXPECT_WC_ERR(&wc, 1, IBV_WC_LOC_PROT_ERR, r.q0);
	CHECK_EQ(conf_qp_state(r.qp0), IBV_QPS_SQE);
	CHECK_EQ(r.qp0->state, IBV_QPS_SQE);
	sg = t_sge(&r.src, 0, 64);
	conf_send_wr(&w, 2, IBV_WR_SEND, IBV_SEND_SIGNALED, &sg, 1);
	POST_SEND_OK(r.qp0, &w);
	POLL1(r.scq0, &wc);
	EXPECT_WC_ERR(&wc, 2, IBV_WC_WR_FLUSH_ERR, r.q0);
	/* Receives go on. */
	peer_send_received(&r);
	/* SQE -> RTS: the SQ sends again. */
	modify_state(r.qp0, IBV_QPS_RTS, 0);
	CHECK_EQ(conf_qp_state(r.qp0), IBV_QPS_RTS);
	sg = t_sge(&r.rbuf, 0, 64);
	conf_recv_wr(&rw, 60, &sg, 1);
	POST_RECV_OK(r.qp1, &rw);
	sg = t_sge(&r.src, 256, 64);
	conf_send_wr(&w, 3, IBV_WR_SEND, IBV_SEND_SIGNALED, &sg, 1);
	POST_SEND_OK(r.qp0, &w);
	POLL1(r.scq0, &wc);
	EXPECT_SQ_OK(&wc, 3, IBV_WC_SEND, r.q0, T_ANY);
	POLL1(r.rcq1, &wc);
	EXPECT_WC_OK(&wc, 60, IBV_WC_RECV, r.q1, 64, 0, T_ANY, r.q0);
	CHECK_MEM(r.rbuf.p, r.src.p + 256, 64);
	conf_rig_close(&r);
}

static const struct conf_case cases[] = {
	CONF_CASE(modify_requires_each_attribute_of_the_transition, CONF_LOCAL),
	CONF_CASE(modify_refuses_attribute_not_allowed, CONF_LOCAL),
	CONF_CASE(modify_refuses_illegal_transitions, CONF_LOCAL),
	CONF_CASE(modify_any_state_to_err_or_reset, CONF_LOCAL),
	CONF_CASE(query_reports_modified_attributes, CONF_LOCAL),
	CONF_CASE(query_reports_psns_after_traffic, CONF_BOTH),
	CONF_CASE(query_reports_err_entered_by_hardware, CONF_BOTH),
	CONF_CASE(sqd_stops_send_queue_receives_go_on, CONF_BOTH),
	CONF_CASE(sqd_drains_work_in_progress, CONF_BOTH),
	CONF_CASE(sqe_after_uc_send_error_rq_goes_on, CONF_BOTH),
};

int main(int argc, char **argv)
{
	return conf_main(argc, argv, cases, sizeof(cases) / sizeof(cases[0]));
}
