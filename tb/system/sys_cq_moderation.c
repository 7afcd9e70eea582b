// SPDX-License-Identifier: MIT
/*
 * sys_cq_moderation.c - CQ moderation with ibv_modify_cq(3)
 * (IBV_CQ_ATTR_MODERATE: cq_count completions per event, or cq_period
 * microseconds after the first), on rnic0's send CQ, armed on its
 * completion channel; signaled RDMA WRITEs make the completions.
 *
 *   caps           ibv_query_device_ex reports cq_mod_caps 65535 / 65535;
 *                  an unknown attr_mask bit is EINVAL, attr_mask 0 changes
 *                  nothing
 *   count          count 4: three completions raise no event (the fd stays
 *                  quiet for 2 ms of simulated time), the fourth does; armed
 *                  again, four more give exactly one event
 *   period         count 100, period 20 us: one completion raises the
 *                  event 20 us (5000 cycles) after it was written, not
 *                  before (measured from when ibv_poll_cq saw it)
 *   off_again      count 0, period 0: the first completion raises the event
 *                  again, at once
 */
#define _DEFAULT_SOURCE

#include "common.h"
#include "rnic_verbs_ext.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#define LEN 64

struct res {
	struct t_pair p;
	struct t_buf src, dst;
	uint64_t id;
};

static void open_res(struct res *r)
{
	struct t_pair_cfg cfg;

	t_pair_default_cfg(&cfg);
	cfg.comp_channel = 1;
	cfg.caps.max_send_wr = 16;
	cfg.cqe = 32;
	t_pair_open(&r->p, &cfg);
	t_buf_alloc(&r->src, r->p.s[0].pd, LEN);
	t_buf_alloc(&r->dst, r->p.s[1].pd, LEN);
	r->id = 1;
}

static void close_res(struct res *r)
{
	t_buf_free(&r->src);
	t_buf_free(&r->dst);
	t_pair_close(&r->p);
}

static void moderate(struct ibv_cq *cq, uint16_t count, uint16_t period)
{
	struct ibv_modify_cq_attr a;

	memset(&a, 0, sizeof(a));
	a.attr_mask = IBV_CQ_ATTR_MODERATE;
	a.moderate.cq_count = count;
	a.moderate.cq_period = period;
	CHECK_OK(ibv_modify_cq(cq, &a));
}

/* n signaled WRITEs, each polled from the send CQ before the next. */
static void writes(struct res *r, int n)
{
	int i;

	for (i = 0; i < n; i++) {
		struct ibv_sge sg = t_sge(&r->src, 0, LEN);
		struct ibv_wc wc;
		uint64_t id = r->id++;

		POST_SEND(r->p.s[0].qp, id, IBV_WR_RDMA_WRITE, IBV_SEND_SIGNALED, &sg, 1,
			  t_addr(&r->dst, 0), r->dst.mr->rkey, 0);
		POLL(r->p.s[0].scq, 1, &wc);
		EXPECT_WC(&wc, id, IBV_WC_SUCCESS, IBV_WC_RDMA_WRITE, r->p.s[0].qp->qp_num,
			  T_ANY, T_ANY, T_ANY);
	}
}

static void caps(void)
{
	struct ibv_device_attr_ex da;
	struct ibv_modify_cq_attr a;
	struct res r;

	open_res(&r);
	memset(&da, 0, sizeof(da));
	CHECK_OK(ibv_query_device_ex(r.p.s[0].ctx, NULL, &da));
	CHECK_EQ(da.cq_mod_caps.max_cq_count, 65535);
	CHECK_EQ(da.cq_mod_caps.max_cq_period, 65535);
	memset(&a, 0, sizeof(a));
	a.attr_mask = IBV_CQ_ATTR_RESERVED;
	CHECK_EQ(ibv_modify_cq(r.p.s[0].scq, &a), EINVAL);
	a.attr_mask = IBV_CQ_ATTR_MODERATE | IBV_CQ_ATTR_RESERVED;
	a.moderate.cq_count = 4;
	CHECK_EQ(ibv_modify_cq(r.p.s[0].scq, &a), EINVAL);
	/* Nothing changed: one completion, one event. */
	a.attr_mask = 0;
	CHECK_OK(ibv_modify_cq(r.p.s[0].scq, &a));
	CHECK_OK(ibv_req_notify_cq(r.p.s[0].scq, 0));
	writes(&r, 1);
	EXPECT_FD_READY(r.p.s[0].ch->fd, T_EVENT_MS);
	EXPECT_CQ_EVENT(r.p.s[0].ch, r.p.s[0].scq, NULL);
	ibv_ack_cq_events(r.p.s[0].scq, 1);
	close_res(&r);
	printf("caps: ok\n");
}

static void count(void)
{
	struct res r;

	open_res(&r);
	moderate(r.p.s[0].scq, 4, 0);
	CHECK_OK(ibv_req_notify_cq(r.p.s[0].scq, 0));
	writes(&r, 3);
	EXPECT_FD_QUIET(r.p.s[0].ch->fd, T_QUIET_MS);
	writes(&r, 1);
	EXPECT_FD_READY(r.p.s[0].ch->fd, T_EVENT_MS);
	EXPECT_CQ_EVENT(r.p.s[0].ch, r.p.s[0].scq, NULL);
	EXPECT_FD_QUIET(r.p.s[0].ch->fd, T_QUIET_MS);
	CHECK_OK(ibv_req_notify_cq(r.p.s[0].scq, 0));
	writes(&r, 4);
	EXPECT_FD_READY(r.p.s[0].ch->fd, T_EVENT_MS);
	EXPECT_CQ_EVENT(r.p.s[0].ch, r.p.s[0].scq, NULL);
	EXPECT_FD_QUIET(r.p.s[0].ch->fd, T_QUIET_MS);
	ibv_ack_cq_events(r.p.s[0].scq, 2);
	close_res(&r);
	printf("count: ok\n");
}

static void period(void)
{
	uint64_t seen, woke;
	struct res r;

	open_res(&r);
	moderate(r.p.s[0].scq, 100, 20);
	CHECK_OK(ibv_req_notify_cq(r.p.s[0].scq, 0));
	writes(&r, 1);
	seen = rnic_verbs_sim_cycle();
	EXPECT_FD_READY(r.p.s[0].ch->fd, T_EVENT_MS);
	woke = rnic_verbs_sim_cycle();
	/* The CQE was visible 25 cycles (the write latency) after the
	 * hardware wrote it and started the period; the interrupt comes
	 * 20 x 250 cycles after that. */
	CHECKF(woke - seen >= 5000 - 100 && woke - seen <= 5000 + 50,
	       "event %llu cycles after the completion, expected about 5000",
	       (unsigned long long)(woke - seen));
	EXPECT_CQ_EVENT(r.p.s[0].ch, r.p.s[0].scq, NULL);
	ibv_ack_cq_events(r.p.s[0].scq, 1);
	close_res(&r);
	printf("period: ok (event %llu cycles after the completion)\n",
	       (unsigned long long)(woke - seen));
}

static void off_again(void)
{
	uint64_t seen, woke;
	struct res r;

	open_res(&r);
	moderate(r.p.s[0].scq, 8, 100);
	moderate(r.p.s[0].scq, 0, 0);
	CHECK_OK(ibv_req_notify_cq(r.p.s[0].scq, 0));
	writes(&r, 1);
	seen = rnic_verbs_sim_cycle();
	EXPECT_FD_READY(r.p.s[0].ch->fd, T_EVENT_MS);
	woke = rnic_verbs_sim_cycle();
	CHECKF(woke - seen < 100, "event %llu cycles after the completion",
	       (unsigned long long)(woke - seen));
	EXPECT_CQ_EVENT(r.p.s[0].ch, r.p.s[0].scq, NULL);
	ibv_ack_cq_events(r.p.s[0].scq, 1);
	close_res(&r);
	printf("off_again: ok\n");
}

int main(void)
{
	caps();
	count();
	period();
	off_again();
	return 0;
}
