// SPDX-License-Identifier: MIT
/*
 * sys_local_inv.c - IBV_WR_LOCAL_INV and ibv_wr_local_inv(): "Invalidate a
 * MW type 2 which is associated with rkey" (ibv_wr_post(3)).
 *
 *   local_inv_post   a bound type 2 window, then LOCAL_INV of its rkey
 *                    through ibv_post_send: completion IBV_WC_LOCAL_INV,
 *                    success; a WRITE through the rkey afterwards:
 *                    IBV_WC_REM_ACCESS_ERR, nothing written;
 *   local_inv_wr     the same with ibv_wr_local_inv(); and the window's MR
 *                    can be deregistered once the window is invalid (no
 *                    EBUSY);
 *   rebind_after     an invalidated type 2 window binds again with a new
 *                    key byte and works.
 *
 * Needs from the hardware: BIND_MW, and LOCAL_INV WQEs (control bytes 8-11
 * the key) that make the window's entry invalid and complete with
 * IBV_WC_LOCAL_INV.
 */
#define _DEFAULT_SOURCE

#include "common.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#define BUF_LEN 8192
#define CANARY 0x1b

#define OPS (IBV_QP_EX_WITH_SEND | IBV_QP_EX_WITH_RDMA_WRITE |		\
	     IBV_QP_EX_WITH_BIND_MW | IBV_QP_EX_WITH_LOCAL_INV)

struct res {
	struct t_pair p;
	struct t_buf win, src;
	struct ibv_mw *mw;
	uint32_t qpn0, qpn1;
};

static void open_res(struct res *r)
{
	struct t_pair_cfg cfg;

	memset(r, 0, sizeof(*r));
	t_pair_default_cfg(&cfg);
	cfg.send_ops_flags = OPS;
	t_pair_open(&r->p, &cfg);
	r->qpn0 = r->p.s[0].qp->qp_num;
	r->qpn1 = r->p.s[1].qp->qp_num;
	t_buf_alloc_access(&r->win, r->p.s[1].pd, BUF_LEN,
			   T_MR_ACCESS | IBV_ACCESS_MW_BIND);
	t_buf_alloc(&r->src, r->p.s[0].pd, BUF_LEN);
	t_fill(r->src.p, BUF_LEN, 0x1234);
	memset(r->win.p, CANARY, BUF_LEN);
	r->mw = CHECK_PTR(ibv_alloc_mw(r->p.s[1].pd, IBV_MW_TYPE_2));
}

static void bind(struct res *r)
{
	struct ibv_mw_bind_info bi = {
		.mr = r->win.mr,
		.addr = t_addr(&r->win, 0),
		.length = BUF_LEN,
		.mw_access_flags = IBV_ACCESS_REMOTE_WRITE,
	};
	struct ibv_qp_ex *qpx = r->p.s[1].qpx;
	uint32_t rkey = ibv_inc_rkey(r->mw->rkey);
	struct ibv_wc wc;

	ibv_wr_start(qpx);
	qpx->wr_id = 0xb;
	qpx->wr_flags = IBV_SEND_SIGNALED;
	ibv_wr_bind_mw(qpx, r->mw, rkey, &bi);
	WR_COMPLETE(qpx);
	POLL(r->p.s[1].scq, 1, &wc);
	EXPECT_WC(&wc, 0xb, IBV_WC_SUCCESS, IBV_WC_BIND_MW, r->qpn1, T_ANY, 0, T_ANY);
	CHECK_EQ(r->mw->rkey, rkey);
}

static void write_via(struct res *r, uint32_t rkey, enum ibv_wc_status st)
{
	struct ibv_sge sg = t_sge(&r->src, 0, 256);
	struct ibv_wc wc;

	POST_SEND(r->p.s[0].qp, 0xa, IBV_WR_RDMA_WRITE, IBV_SEND_SIGNALED, &sg, 1,
		  t_addr(&r->win, 512), rkey, 0);
	POLL(r->p.s[0].scq, 1, &wc);
	EXPECT_WC(&wc, 0xa, st, IBV_WC_RDMA_WRITE, r->qpn0, T_ANY, 0, T_ANY);
}

static void close_res(struct res *r)
{
	if (r->mw)
		CHECK_OK(ibv_dealloc_mw(r->mw));
	t_buf_free(&r->src);
	t_buf_free(&r->win);
	t_pair_close(&r->p);
}

int main(void)
{
	struct ibv_wc wc;
	struct res r;
	uint32_t key;

	/* local_inv_post */
	open_res(&r);
	bind(&r);
	write_via(&r, r.mw->rkey, IBV_WC_SUCCESS);
	CHECK_MEM(r.win.p + 512, r.src.p, 256);
	memset(r.win.p, CANARY, BUF_LEN);
	{
		struct ibv_send_wr wr, *bad = NULL;

		memset(&wr, 0, sizeof(wr));
		wr.wr_id = 0x1d;
		wr.opcode = IBV_WR_LOCAL_INV;
		wr.send_flags = IBV_SEND_SIGNALED;
		wr.invalidate_rkey = r.mw->rkey;
		CHECK_OK(ibv_post_send(r.p.s[1].qp, &wr, &bad));
	}
	POLL(r.p.s[1].scq, 1, &wc);
	EXPECT_WC(&wc, 0x1d, IBV_WC_SUCCESS, IBV_WC_LOCAL_INV, r.qpn1, T_ANY, 0, T_ANY);
	write_via(&r, r.mw->rkey, IBV_WC_REM_ACCESS_ERR);
	CHECK_FILL(r.win.p, CANARY, BUF_LEN);
	close_res(&r);
	printf("local_inv_post: ok\n");

	/* local_inv_wr + rebind_after */
	open_res(&r);
	bind(&r);
	key = r.mw->rkey;
	ibv_wr_start(r.p.s[1].qpx);
	r.p.s[1].qpx->wr_id = 0x2d;
	r.p.s[1].qpx->wr_flags = IBV_SEND_SIGNALED;
	ibv_wr_local_inv(r.p.s[1].qpx, key);
	WR_COMPLETE(r.p.s[1].qpx);
	POLL(r.p.s[1].scq, 1, &wc);
	EXPECT_WC(&wc, 0x2d, IBV_WC_SUCCESS, IBV_WC_LOCAL_INV, r.qpn1, T_ANY, 0, T_ANY);
	bind(&r);
	CHECK(r.mw->rkey != key);
	write_via(&r, r.mw->rkey, IBV_WC_SUCCESS);
	CHECK_MEM(r.win.p + 512, r.src.p, 256);
	printf("rebind_after: ok\n");
	ibv_wr_start(r.p.s[1].qpx);
	r.p.s[1].qpx->wr_id = 0x3d;
	ibv_wr_local_inv(r.p.s[1].qpx, r.mw->rkey);
	WR_COMPLETE(r.p.s[1].qpx);
	POLL(r.p.s[1].scq, 1, &wc);
	EXPECT_WC(&wc, 0x3d, IBV_WC_SUCCESS, IBV_WC_LOCAL_INV, r.qpn1, T_ANY, 0, T_ANY);
	/* The window is invalid: its MR goes although the window still exists. */
	CHECK_OK(ibv_dereg_mr(r.win.mr));
	r.win.mr = NULL;
	close_res(&r);
	printf("local_inv_wr: ok\n");

	printf("sys_local_inv: passed\n");
	return 0;
}
