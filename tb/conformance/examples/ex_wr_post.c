// SPDX-License-Identifier: MIT
/*
 * ex_wr_post.c - runs the example of ibv_wr_post(3) (ex_wr_post.cpp) on
 * rnic0 towards a QP of rnic1 and checks its outcome: the first WRITE is
 * unsignaled (wr_flags is still 0), so one completion, my_wr_id_2,
 * IBV_WC_RDMA_WRITE, success; both blocks are at the remote addresses and
 * nothing around them; the WRITE_WITH_IMM consumed the peer's receive with
 * IBV_WC_RECV_RDMA_WITH_IMM, immediate 0x1234 and byte_len length_2.
 *
 * The example has no ibv_wr_start() (the page's text requires one before
 * the builders): it runs as written, the first batch of a fresh QP.
 */
#define _DEFAULT_SOURCE

#include <arpa/inet.h>
#include <stdio.h>
#include <string.h>

#include "common.h"
#include "ex_wr_post.h"

#define LEN 16384
#define CANARY 0xc5

struct peer {
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	struct ibv_cq *cq;
	struct ibv_qp *qp;
	struct ibv_sge rsg;	/* the WRITE_WITH_IMM's receive */
};

static void connect_qp(struct ex_wr_post_env *env)
{
	struct peer *p = env->priv;

	t_connect_qps(env->qp, p->qp, IBV_MTU_1024, 0x111, 0x222);
	POST_RECV(p->qp, 77, &p->rsg, 1);
}

int main(void)
{
	struct t_qp_caps caps = { 16, 16, 1, 1, 0, 0 };
	struct ex_wr_post_env env;
	struct t_buf src, dst;
	struct ibv_wc wc;
	struct peer p;
	int ret;

	memset(&env, 0, sizeof(env));
	env.ctx = t_open_device(T_DEV0);
	env.pd = CHECK_PTR(ibv_alloc_pd(env.ctx));
	env.cq = t_create_cq(env.ctx, 16);
	p.ctx = t_open_device(T_DEV1);
	p.pd = CHECK_PTR(ibv_alloc_pd(p.ctx));
	p.cq = t_create_cq(p.ctx, 16);
	p.qp = t_create_rc_qp(p.pd, p.cq, p.cq, &caps, NULL);
	t_buf_alloc(&src, env.pd, LEN);
	t_buf_alloc(&dst, p.pd, LEN);
	t_fill(src.p, LEN, 0xe8a3);
	memset(dst.p, CANARY, LEN);
	p.rsg = t_sge(&dst, 8192, 64);

	env.connect = connect_qp;
	env.priv = &p;
	env.wr_id[0] = 0x1001;
	env.wr_id[1] = 0x1002;
	env.rkey = dst.mr->rkey;
	env.lkey = src.mr->lkey;
	env.remote_addr[0] = t_addr(&dst, 100);
	env.remote_addr[1] = t_addr(&dst, 4096);
	env.local_addr[0] = t_addr(&src, 0);
	env.local_addr[1] = t_addr(&src, 5000);
	env.length[0] = 1000;
	env.length[1] = 2000;
	ret = ex_wr_post_run(&env);
	CHECKF(ret == 0, "the example's ibv_wr_complete returned %d", ret);

	POLL(env.cq, 1, &wc);
	EXPECT_WC(&wc, 0x1002, IBV_WC_SUCCESS, IBV_WC_RDMA_WRITE, env.qp->qp_num,
		  T_ANY, T_ANY, T_ANY);
	EXPECT_EMPTY(env.cq, 200);
	POLL(p.cq, 1, &wc);
	EXPECT_WC(&wc, 77, IBV_WC_SUCCESS, IBV_WC_RECV_RDMA_WITH_IMM, p.qp->qp_num,
		  2000, IBV_WC_WITH_IMM, htonl(0x1234));
	CHECK_FILL(dst.p, CANARY, 100);
	CHECK_MEM(dst.p + 100, src.p, 1000);
	CHECK_FILL(dst.p + 1100, CANARY, 4096 - 1100);
	CHECK_MEM(dst.p + 4096, src.p + 5000, 2000);
	CHECK_FILL(dst.p + 6096, CANARY, LEN - 6096);

	t_buf_free(&src);
	t_buf_free(&dst);
	CHECK_OK(ibv_destroy_qp(env.qp));
	CHECK_OK(ibv_destroy_qp(p.qp));
	CHECK_OK(ibv_destroy_cq(env.cq));
	CHECK_OK(ibv_destroy_cq(p.cq));
	CHECK_OK(ibv_dealloc_pd(env.pd));
	CHECK_OK(ibv_dealloc_pd(p.pd));
	CHECK_OK(ibv_close_device(env.ctx));
	CHECK_OK(ibv_close_device(p.ctx));
	printf("ex_wr_post: passed\n");
	return 0;
}
