// SPDX-License-Identifier: MIT
/*
 * sys_retry_exc.c - "retry exceeded with a dead peer".
 *
 * The peer QP is moved to ERR, so its RNIC drops every request without an
 * answer. The requester's local ACK timer (timeout 1: 8.192 us = 2048
 * cycles) fires, it sends again retry_cnt (3) times, then completes the WR
 * with IBV_WC_RETRY_EXC_ERR; the QP goes to ERR and the WR behind it is
 * flushed. A QP with timeout 0 (no timer) is not timed out: it just waits.
 */
#include <stdio.h>
#include <string.h>

#include "common.h"

static void dead_peer(int loopback)
{
	struct t_pair_cfg cfg;
	struct t_pair p;
	struct t_buf a;
	struct ibv_sge sg;
	struct ibv_wc wc[2];
	struct ibv_qp_attr qa;
	struct ibv_qp_init_attr qi;

	t_pair_default_cfg(&cfg);
	cfg.loopback = loopback;
	cfg.attrs[0].timeout = 1;
	cfg.attrs[0].retry_cnt = 3;
	t_pair_open(&p, &cfg);
	t_buf_alloc(&a, p.s[0].pd, 4096);

	memset(&qa, 0, sizeof(qa));
	qa.qp_state = IBV_QPS_ERR;
	CHECK_OK(ibv_modify_qp(p.s[1].qp, &qa, IBV_QP_STATE));

	sg = t_sge(&a, 0, 4096);
	POST_SEND(p.s[0].qp, 1, IBV_WR_RDMA_WRITE, IBV_SEND_SIGNALED, &sg, 1,
		  t_addr(&a, 0), a.mr->rkey, 0);
	POST_SEND(p.s[0].qp, 2, IBV_WR_RDMA_READ, IBV_SEND_SIGNALED, &sg, 1,
		  t_addr(&a, 0), a.mr->rkey, 0);
	/* Four timeouts of 2048 cycles cannot have passed in 8 polls. */
	EXPECT_EMPTY(p.s[0].scq, 8);
	POLL(p.s[0].scq, 2, wc);
	EXPECT_WC(&wc[0], 1, IBV_WC_RETRY_EXC_ERR, T_ANY, p.s[0].qp->qp_num,
		  T_ANY, T_ANY, T_ANY);
	EXPECT_WC(&wc[1], 2, IBV_WC_WR_FLUSH_ERR, T_ANY, p.s[0].qp->qp_num,
		  T_ANY, T_ANY, T_ANY);
	CHECK_OK(ibv_query_qp(p.s[0].qp, &qa, IBV_QP_STATE, &qi));
	CHECK_EQ(qa.qp_state, IBV_QPS_ERR);

	t_buf_free(&a);
	t_pair_close(&p);
}

static void no_timer(void)
{
	struct t_pair_cfg cfg;
	struct t_pair p;
	struct t_buf a;
	struct ibv_sge sg;
	struct ibv_qp_attr qa;

	t_pair_default_cfg(&cfg);
	cfg.attrs[0].timeout = 0;
	cfg.attrs[0].retry_cnt = 0;
	t_pair_open(&p, &cfg);
	t_buf_alloc(&a, p.s[0].pd, 64);
	memset(&qa, 0, sizeof(qa));
	qa.qp_state = IBV_QPS_ERR;
	CHECK_OK(ibv_modify_qp(p.s[1].qp, &qa, IBV_QP_STATE));
	sg = t_sge(&a, 0, 64);
	POST_SEND(p.s[0].qp, 1, IBV_WR_RDMA_WRITE, IBV_SEND_SIGNALED, &sg, 1,
		  t_addr(&a, 0), a.mr->rkey, 0);
	/* About 100k cycles with nothing back and no timer: no completion. */
	EXPECT_EMPTY(p.s[0].scq, 400);
	t_buf_free(&a);
	t_pair_close(&p);
}

int main(void)
{
	dead_peer(0);
	dead_peer(1);
	no_timer();
	printf("sys_retry_exc: ok\n");
	return 0;
}
