// SPDX-License-Identifier: MIT
/*
 * sys_mw_bind.c - binding memory windows and using them as rkeys
 * (ibv_alloc_mw(3), ibv_bind_mw(3), IBV_WR_BIND_MW, ibv_wr_bind_mw):
 *
 *   bind_type2_post      IBV_WR_BIND_MW through ibv_post_send: completion
 *                        IBV_WC_BIND_MW; mw->rkey is the new rkey; the peer's
 *                        RDMA WRITE and READ through the window land in /
 *                        come from the window's bytes of the MR;
 *   bind_type2_wr        the same with ibv_wr_bind_mw();
 *   bind_type1           ibv_bind_mw(): mw->rkey becomes ibv_inc_rkey() of
 *                        the old one, completion IBV_WC_BIND_MW, WRITE works;
 *   rebind               binding a type 1 window again moves it: the old
 *                        rkey no longer works (REM_ACCESS_ERR), the new one
 *                        does;
 *   dereg_busy           ibv_dereg_mr() of an MR with a bound window: EBUSY;
 *                        0 after ibv_dealloc_mw();
 *   outside_window       a WRITE one byte past the window: REM_ACCESS_ERR
 *                        (the MR itself goes further);
 *   read_only_window     a WRITE through a window bound with remote read
 *                        only: REM_ACCESS_ERR;
 *   other_qp             a type 2 window used by a packet to another QP than
 *                        the one that bound it: REM_ACCESS_ERR;
 *   bind_outside_mr      a bind past the end of the MR: IBV_WC_MW_BIND_ERR;
 *   bind_without_access  a bind in an MR without IBV_ACCESS_MW_BIND:
 *                        IBV_WC_MW_BIND_ERR.
 *
 * Needs from the hardware: BIND_MW WQEs (bind A/B segments) that rewrite the
 * window's MR-table entry and complete with IBV_WC_BIND_MW or
 * IBV_WC_MW_BIND_ERR, window entries usable only as rkeys (type 2 only by
 * the bound QP), docs/formats.md "Memory windows".
 */
#define _DEFAULT_SOURCE

#include "common.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#define BUF_LEN 16384
#define WIN_OFF 4096
#define WIN_LEN 4096
#define CANARY 0xb7

#define OPS (IBV_QP_EX_WITH_SEND | IBV_QP_EX_WITH_RDMA_WRITE |		\
	     IBV_QP_EX_WITH_RDMA_READ | IBV_QP_EX_WITH_BIND_MW |		\
	     IBV_QP_EX_WITH_LOCAL_INV)

#define MR_ACC (T_MR_ACCESS | IBV_ACCESS_MW_BIND)

struct res {
	struct t_pair p;
	struct t_buf win;	/* side 1: the MR the windows lie in */
	struct t_buf src;	/* side 0 */
	uint32_t qpn0, qpn1;
};

static void open_res(struct res *r, unsigned int win_mr_access)
{
	struct t_pair_cfg cfg;

	memset(r, 0, sizeof(*r));
	t_pair_default_cfg(&cfg);
	cfg.send_ops_flags = OPS;
	t_pair_open(&r->p, &cfg);
	r->qpn0 = r->p.s[0].qp->qp_num;
	r->qpn1 = r->p.s[1].qp->qp_num;
	t_buf_alloc_access(&r->win, r->p.s[1].pd, BUF_LEN, win_mr_access);
	t_buf_alloc(&r->src, r->p.s[0].pd, BUF_LEN);
	t_fill(r->src.p, BUF_LEN, 0x3a3a);
	memset(r->win.p, CANARY, BUF_LEN);
}

static void close_res(struct res *r)
{
	t_buf_free(&r->src);
	t_buf_free(&r->win);
	t_pair_close(&r->p);
}

/* Side 1 binds @mw over [WIN_OFF, WIN_OFF + WIN_LEN) of the window MR. */
static void bind_post(struct res *r, struct ibv_mw *mw, uint32_t rkey,
		      unsigned int acc, uint64_t len, enum ibv_wc_status st)
{
	struct ibv_send_wr wr, *bad = NULL;
	struct ibv_wc wc;

	memset(&wr, 0, sizeof(wr));
	wr.wr_id = 0xb1d;
	wr.opcode = IBV_WR_BIND_MW;
	wr.send_flags = IBV_SEND_SIGNALED;
	wr.bind_mw.mw = mw;
	wr.bind_mw.rkey = rkey;
	wr.bind_mw.bind_info.mr = r->win.mr;
	wr.bind_mw.bind_info.addr = t_addr(&r->win, WIN_OFF);
	wr.bind_mw.bind_info.length = len;
	wr.bind_mw.bind_info.mw_access_flags = acc;
	CHECK_OK(ibv_post_send(r->p.s[1].qp, &wr, &bad));
	POLL(r->p.s[1].scq, 1, &wc);
	EXPECT_WC(&wc, 0xb1d, st, IBV_WC_BIND_MW, r->qpn1, T_ANY, 0, T_ANY);
}

/* Side 0 writes @len bytes through (rkey, addr); expects @st. */
static void remote_write(struct res *r, uint32_t rkey, uint64_t addr, uint32_t len,
			 enum ibv_wc_status st)
{
	struct ibv_sge sg = t_sge(&r->src, 0, len);
	struct ibv_wc wc;

	POST_SEND(r->p.s[0].qp, 0x77, IBV_WR_RDMA_WRITE, IBV_SEND_SIGNALED, &sg, 1,
		  addr, rkey, 0);
	POLL(r->p.s[0].scq, 1, &wc);
	EXPECT_WC(&wc, 0x77, st, IBV_WC_RDMA_WRITE, r->qpn0, T_ANY, 0, T_ANY);
}

static void remote_read(struct res *r, uint32_t rkey, uint64_t addr, uint32_t len)
{
	struct ibv_sge sg = t_sge(&r->src, 8192, len);
	struct ibv_wc wc;

	POST_SEND(r->p.s[0].qp, 0x88, IBV_WR_RDMA_READ, IBV_SEND_SIGNALED, &sg, 1,
		  addr, rkey, 0);
	POLL(r->p.s[0].scq, 1, &wc);
	EXPECT_WC(&wc, 0x88, IBV_WC_SUCCESS, IBV_WC_RDMA_READ, r->qpn0, len, 0, T_ANY);
}

static void case_type2_post(void)
{
	uint64_t base;
	struct ibv_mw *mw;
	struct res r;
	uint32_t old;

	open_res(&r, MR_ACC);
	base = t_addr(&r.win, WIN_OFF);
	mw = CHECK_PTR(ibv_alloc_mw(r.p.s[1].pd, IBV_MW_TYPE_2));
	old = mw->rkey;
	bind_post(&r, mw, ibv_inc_rkey(old),
		  IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ, WIN_LEN,
		  IBV_WC_SUCCESS);
	CHECK_EQ(mw->rkey, ibv_inc_rkey(old));
	remote_write(&r, mw->rkey, base + 100, 1000, IBV_WC_SUCCESS);
	CHECK_FILL(r.win.p, CANARY, WIN_OFF + 100);
	CHECK_MEM(r.win.p + WIN_OFF + 100, r.src.p, 1000);
	remote_read(&r, mw->rkey, base + 100, 1000);
	CHECK_MEM(r.src.p + 8192, r.src.p, 1000);
	CHECK_OK(ibv_dealloc_mw(mw));
	close_res(&r);
	printf("bind_type2_post: ok\n");
}

static void case_type2_wr(void)
{
	struct ibv_mw_bind_info bi;
	struct ibv_qp_ex *qpx;
	struct ibv_mw *mw;
	struct ibv_wc wc;
	struct res r;
	uint32_t rkey;

	open_res(&r, MR_ACC);
	qpx = r.p.s[1].qpx;
	mw = CHECK_PTR(ibv_alloc_mw(r.p.s[1].pd, IBV_MW_TYPE_2));
	rkey = ibv_inc_rkey(mw->rkey);
	memset(&bi, 0, sizeof(bi));
	bi.mr = r.win.mr;
	bi.addr = t_addr(&r.win, WIN_OFF);
	bi.length = WIN_LEN;
	bi.mw_access_flags = IBV_ACCESS_REMOTE_WRITE;
	ibv_wr_start(qpx);
	qpx->wr_id = 0x5151;
	qpx->wr_flags = IBV_SEND_SIGNALED;
	ibv_wr_bind_mw(qpx, mw, rkey, &bi);
	WR_COMPLETE(qpx);
	POLL(r.p.s[1].scq, 1, &wc);
	EXPECT_WC(&wc, 0x5151, IBV_WC_SUCCESS, IBV_WC_BIND_MW, r.qpn1, T_ANY, 0, T_ANY);
	CHECK_EQ(mw->rkey, rkey);
	remote_write(&r, rkey, bi.addr, WIN_LEN, IBV_WC_SUCCESS);
	CHECK_MEM(r.win.p + WIN_OFF, r.src.p, WIN_LEN);
	CHECK_FILL(r.win.p + WIN_OFF + WIN_LEN, CANARY, BUF_LEN - WIN_OFF - WIN_LEN);
	CHECK_OK(ibv_dealloc_mw(mw));
	close_res(&r);
	printf("bind_type2_wr: ok\n");
}

static void case_type1_rebind_dereg(void)
{
	struct ibv_mw_bind mb;
	struct ibv_mw *mw;
	struct ibv_wc wc;
	struct res r;
	uint32_t old, first;

	open_res(&r, MR_ACC);
	mw = CHECK_PTR(ibv_alloc_mw(r.p.s[1].pd, IBV_MW_TYPE_1));
	old = mw->rkey;
	memset(&mb, 0, sizeof(mb));
	mb.wr_id = 0x1111;
	mb.send_flags = IBV_SEND_SIGNALED;
	mb.bind_info.mr = r.win.mr;
	mb.bind_info.addr = t_addr(&r.win, WIN_OFF);
	mb.bind_info.length = WIN_LEN;
	mb.bind_info.mw_access_flags = IBV_ACCESS_REMOTE_WRITE;
	CHECK_OK(ibv_bind_mw(r.p.s[1].qp, mw, &mb));
	CHECK_EQ(mw->rkey, ibv_inc_rkey(old));
	POLL(r.p.s[1].scq, 1, &wc);
	EXPECT_WC(&wc, 0x1111, IBV_WC_SUCCESS, IBV_WC_BIND_MW, r.qpn1, T_ANY, 0, T_ANY);
	remote_write(&r, mw->rkey, mb.bind_info.addr, 64, IBV_WC_SUCCESS);
	CHECK_MEM(r.win.p + WIN_OFF, r.src.p, 64);
	printf("bind_type1: ok\n");

	/* dereg_busy */
	CHECK_EQ(ibv_dereg_mr(r.win.mr), EBUSY);
	printf("dereg_busy: EBUSY while bound: ok\n");

	/* rebind: the window moves to [0, 64); the old rkey dies. */
	first = mw->rkey;
	mb.wr_id = 0x2222;
	mb.bind_info.addr = t_addr(&r.win, 0);
	mb.bind_info.length = 64;
	CHECK_OK(ibv_bind_mw(r.p.s[1].qp, mw, &mb));
	CHECK_EQ(mw->rkey, ibv_inc_rkey(first));
	POLL(r.p.s[1].scq, 1, &wc);
	EXPECT_WC(&wc, 0x2222, IBV_WC_SUCCESS, IBV_WC_BIND_MW, r.qpn1, T_ANY, 0, T_ANY);
	remote_write(&r, mw->rkey, t_addr(&r.win, 0), 64, IBV_WC_SUCCESS);
	CHECK_MEM(r.win.p, r.src.p, 64);
	remote_write(&r, first, t_addr(&r.win, WIN_OFF), 64, IBV_WC_REM_ACCESS_ERR);
	printf("rebind: new rkey works, old REM_ACCESS_ERR: ok\n");

	CHECK_OK(ibv_dealloc_mw(mw));
	CHECK_OK(ibv_dereg_mr(r.win.mr));
	r.win.mr = NULL;
	printf("dereg after dealloc_mw: ok\n");
	close_res(&r);
}

/* One error case on a fresh pair: bind with @acc / @len in an MR of
 * @mr_acc, then a WRITE of @wlen at window offset @woff (if @wlen). */
static void error_case(const char *name, unsigned int mr_acc, unsigned int acc,
		       uint64_t len, enum ibv_wc_status bind_st, uint64_t woff,
		       uint32_t wlen, int other_qp)
{
	struct ibv_mw *mw;
	struct res r;

	open_res(&r, mr_acc);
	mw = CHECK_PTR(ibv_alloc_mw(r.p.s[1].pd, IBV_MW_TYPE_2));
	bind_post(&r, mw, ibv_inc_rkey(mw->rkey), acc, len, bind_st);
	if (wlen && !other_qp) {
		remote_write(&r, mw->rkey, t_addr(&r.win, WIN_OFF) + woff, wlen,
			     IBV_WC_REM_ACCESS_ERR);
	} else if (wlen) {
		/* A second pair on the same nodes: its QP is not the one the
		 * window is bound to. */
		struct t_pair_cfg cfg;
		struct t_pair p2;
		struct ibv_sge sg;
		struct t_buf s2;
		struct ibv_wc wc;

		t_pair_default_cfg(&cfg);
		t_pair_open(&p2, &cfg);
		t_buf_alloc(&s2, p2.s[0].pd, 4096);
		sg = t_sge(&s2, 0, wlen);
		POST_SEND(p2.s[0].qp, 0x99, IBV_WR_RDMA_WRITE, IBV_SEND_SIGNALED, &sg,
			  1, t_addr(&r.win, WIN_OFF) + woff, mw->rkey, 0);
		POLL(p2.s[0].scq, 1, &wc);
		EXPECT_WC(&wc, 0x99, IBV_WC_REM_ACCESS_ERR, T_ANY, p2.s[0].qp->qp_num,
			  T_ANY, T_ANY, T_ANY);
		t_buf_free(&s2);
		t_pair_close(&p2);
	}
	CHECK_FILL(r.win.p, CANARY, BUF_LEN);
	CHECK_OK(ibv_dealloc_mw(mw));
	close_res(&r);
	printf("%s: ok\n", name);
}

int main(void)
{
	case_type2_post();
	case_type2_wr();
	case_type1_rebind_dereg();
	error_case("outside_window", MR_ACC, IBV_ACCESS_REMOTE_WRITE, WIN_LEN,
		   IBV_WC_SUCCESS, WIN_LEN - 63, 64, 0);
	error_case("read_only_window", MR_ACC, IBV_ACCESS_REMOTE_READ, WIN_LEN,
		   IBV_WC_SUCCESS, 0, 64, 0);
	error_case("other_qp", MR_ACC, IBV_ACCESS_REMOTE_WRITE, WIN_LEN,
		   IBV_WC_SUCCESS, 0, 64, 1);
	error_case("bind_outside_mr", MR_ACC, IBV_ACCESS_REMOTE_WRITE,
		   BUF_LEN - WIN_OFF + 1, IBV_WC_MW_BIND_ERR, 0, 0, 0);
	error_case("bind_without_access", T_MR_ACCESS, IBV_ACCESS_REMOTE_WRITE,
		   WIN_LEN, IBV_WC_MW_BIND_ERR, 0, 0, 0);
	printf("sys_mw_bind: passed\n");
	return 0;
}
