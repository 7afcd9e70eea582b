// SPDX-License-Identifier: MIT
/*
 * sys_rnr.c - Receiver Not Ready: RNR NAK, wait, retry.
 *
 * 1. "RNR then success": a SEND reaches a QP with no receive posted. The
 *    responder answers with RNR NAKs (its min_rnr_timer 1 = 0.01 ms), the
 *    requester waits that long and sends again, without limit (rnr_retry 7).
 *    Nothing completes while no receive is posted; once one is, the SEND
 *    and the receive complete successfully with the bytes in place.
 * 2. "RNR retry exceeded": with rnr_retry 2 and no receive ever posted, the
 *    SEND completes with IBV_WC_RNR_RETRY_EXC_ERR, the QP goes to ERR and
 *    the WR behind it is flushed (IBV_WC_WR_FLUSH_ERR).
 * Both on two nodes and in loopback.
 */
#include <stdio.h>
#include <string.h>

#include "common.h"

#define LEN 3000

static void rnr_then_success(int loopback)
{
	struct t_pair_cfg cfg;
	struct t_pair p;
	struct t_buf a, b;
	struct ibv_sge sg;
	struct ibv_wc wc;

	t_pair_default_cfg(&cfg);
	cfg.loopback = loopback;
	cfg.attrs[1].min_rnr_timer = 1;
	cfg.attrs[0].rnr_retry = 7;
	t_pair_open(&p, &cfg);
	t_buf_alloc(&a, p.s[0].pd, LEN);
	t_buf_alloc(&b, p.s[1].pd, LEN);
	t_fill(a.p, LEN, 11);

	sg = t_sge(&a, 0, LEN);
	POST_SEND(p.s[0].qp, 1, IBV_WR_SEND, IBV_SEND_SIGNALED, &sg, 1, 0, 0, 0);
	/* About 25k cycles: ten RNR waits of 2500 cycles. */
	EXPECT_EMPTY(p.s[0].scq, 100);
	EXPECT_EMPTY(p.s[1].rcq, 1);
	sg = t_sge(&b, 0, LEN);
	POST_RECV(p.s[1].qp, 2, &sg, 1);
	POLL(p.s[0].scq, 1, &wc);
	EXPECT_WC(&wc, 1, IBV_WC_SUCCESS, IBV_WC_SEND, p.s[0].qp->qp_num, T_ANY, 0, T_ANY);
	POLL(p.s[1].rcq, 1, &wc);
	EXPECT_WC(&wc, 2, IBV_WC_SUCCESS, IBV_WC_RECV, p.s[1].qp->qp_num, LEN, 0, T_ANY);
	CHECK_MEM(b.p, a.p, LEN);

	t_buf_free(&a);
	t_buf_free(&b);
	t_pair_close(&p);
}

static void rnr_retry_exceeded(int loopback)
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
	cfg.attrs[1].min_rnr_timer = 1;
	cfg.attrs[0].rnr_retry = 2;
	t_pair_open(&p, &cfg);
	t_buf_alloc(&a, p.s[0].pd, 64);

	sg = t_sge(&a, 0, 64);
	POST_SEND(p.s[0].qp, 1, IBV_WR_SEND, IBV_SEND_SIGNALED, &sg, 1, 0, 0, 0);
	POST_SEND(p.s[0].qp, 2, IBV_WR_RDMA_WRITE, IBV_SEND_SIGNALED, &sg, 1,
		  t_addr(&a, 0), a.mr->rkey, 0);
	POLL(p.s[0].scq, 2, wc);
	EXPECT_WC(&wc[0], 1, IBV_WC_RNR_RETRY_EXC_ERR, T_ANY, p.s[0].qp->qp_num,
		  T_ANY, T_ANY, T_ANY);
	EXPECT_WC(&wc[1], 2, IBV_WC_WR_FLUSH_ERR, T_ANY, p.s[0].qp->qp_num,
		  T_ANY, T_ANY, T_ANY);
	CHECK_OK(ibv_query_qp(p.s[0].qp, &qa, IBV_QP_STATE, &qi));
	CHECK_EQ(qa.qp_state, IBV_QPS_ERR);

	t_buf_free(&a);
	t_pair_close(&p);
}

int main(void)
{
	int lb;

	for (lb = 0; lb < 2; lb++) {
		rnr_then_success(lb);
		rnr_retry_exceeded(lb);
		printf("sys_rnr: %s ok\n", lb ? "loopback" : "two nodes");
	}
	return 0;
}
