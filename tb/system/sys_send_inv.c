// SPDX-License-Identifier: MIT
/*
 * sys_send_inv.c - IBV_WR_SEND_WITH_INV and ibv_wr_send_inv(): "the remote
 * side will invalidate the MR specified by invalidate_rkey before
 * delivering a completion" (ibv_wr_post(3)); the receive completion has
 * IBV_WC_WITH_INV and invalidated_rkey (ibv_poll_cq(3), struct ibv_wc).
 *
 * Side 1 binds a type 2 window on its QP; side 0 writes through it, then:
 *   send_inv_post     SEND_WITH_INV of the window's rkey (ibv_post_send):
 *                     side 1's receive completes with IBV_WC_RECV, the
 *                     bytes, IBV_WC_WITH_INV and invalidated_rkey = the
 *                     rkey; side 0's SEND completes (IBV_WC_SEND); a WRITE
 *                     through the rkey afterwards gets IBV_WC_REM_ACCESS_ERR;
 *                     side 1 can deregister the window's MR (it is not
 *                     bound any more);
 *   send_inv_wr       the same with ibv_wr_send_inv();
 *   send_inv_cq_ex    the receive read from an ibv_create_cq_ex CQ:
 *                     ibv_wc_read_wc_flags has IBV_WC_WITH_INV and
 *                     ibv_wc_read_invalidated_rkey the rkey.
 *
 * Needs from the hardware: SEND_WITH_INV WQEs (opcode 0x0c, rkey in control
 * bytes 8-11) sent as SEND with Invalidate (IETH), the responder
 * invalidating a type 2 window bound to the receiving QP before the CQE,
 * the CQE flag "with invalidate" with the rkey in bytes 4-7; and BIND_MW.
 */
#define _DEFAULT_SOURCE

#include "common.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#define BUF_LEN 8192
#define CANARY 0x2c

#define OPS (IBV_QP_EX_WITH_SEND | IBV_QP_EX_WITH_SEND_WITH_INV |		\
	     IBV_QP_EX_WITH_RDMA_WRITE | IBV_QP_EX_WITH_BIND_MW)

static void run(int use_wr)
{
	struct ibv_mw_bind_info bi;
	struct t_buf win, src, rbuf;
	struct t_pair_cfg cfg;
	struct ibv_cq *rcq;
	struct ibv_mw *mw;
	struct ibv_qp_ex *qpx;
	struct ibv_wc wc;
	struct ibv_sge sg;
	struct t_pair p;
	uint32_t rkey, qpn0, qpn1;

	t_pair_default_cfg(&cfg);
	cfg.send_ops_flags = OPS;
	t_pair_open(&p, &cfg);
	qpn0 = p.s[0].qp->qp_num;
	qpn1 = p.s[1].qp->qp_num;
	t_buf_alloc_access(&win, p.s[1].pd, BUF_LEN, T_MR_ACCESS | IBV_ACCESS_MW_BIND);
	t_buf_alloc(&rbuf, p.s[1].pd, BUF_LEN);
	t_buf_alloc(&src, p.s[0].pd, BUF_LEN);
	t_fill(src.p, BUF_LEN, 0x5e11);
	memset(win.p, CANARY, BUF_LEN);
	memset(rbuf.p, CANARY, BUF_LEN);
	rcq = p.s[1].rcq;

	/* Side 1 binds the window on its QP. */
	mw = CHECK_PTR(ibv_alloc_mw(p.s[1].pd, IBV_MW_TYPE_2));
	rkey = ibv_inc_rkey(mw->rkey);
	memset(&bi, 0, sizeof(bi));
	bi.mr = win.mr;
	bi.addr = t_addr(&win, 0);
	bi.length = BUF_LEN;
	bi.mw_access_flags = IBV_ACCESS_REMOTE_WRITE;
	qpx = p.s[1].qpx;
	ibv_wr_start(qpx);
	qpx->wr_id = 0xb;
	qpx->wr_flags = IBV_SEND_SIGNALED;
	ibv_wr_bind_mw(qpx, mw, rkey, &bi);
	WR_COMPLETE(qpx);
	POLL(p.s[1].scq, 1, &wc);
	EXPECT_WC(&wc, 0xb, IBV_WC_SUCCESS, IBV_WC_BIND_MW, qpn1, T_ANY, 0, T_ANY);
	sg = t_sge(&src, 0, 128);
	POST_SEND(p.s[0].qp, 1, IBV_WR_RDMA_WRITE, IBV_SEND_SIGNALED, &sg, 1,
		  t_addr(&win, 0), rkey, 0);
	POLL(p.s[0].scq, 1, &wc);
	EXPECT_WC(&wc, 1, IBV_WC_SUCCESS, IBV_WC_RDMA_WRITE, qpn0, T_ANY, 0, T_ANY);
	CHECK_MEM(win.p, src.p, 128);

	/* The SEND with invalidate. */
	sg = t_sge(&rbuf, 0, BUF_LEN);
	POST_RECV(p.s[1].qp, 50, &sg, 1);
	if (!use_wr) {
		struct ibv_send_wr wr, *bad = NULL;

		sg = t_sge(&src, 1000, 300);
		memset(&wr, 0, sizeof(wr));
		wr.wr_id = 2;
		wr.opcode = IBV_WR_SEND_WITH_INV;
		wr.send_flags = IBV_SEND_SIGNALED;
		wr.sg_list = &sg;
		wr.num_sge = 1;
		wr.invalidate_rkey = rkey;
		CHECK_OK(ibv_post_send(p.s[0].qp, &wr, &bad));
		POLL(rcq, 1, &wc);
		EXPECT_WC(&wc, 50, IBV_WC_SUCCESS, IBV_WC_RECV, qpn1, 300,
			  IBV_WC_WITH_INV, T_ANY);
		CHECK_EQ(wc.invalidated_rkey, rkey);
	} else {
		ibv_wr_start(p.s[0].qpx);
		p.s[0].qpx->wr_id = 2;
		p.s[0].qpx->wr_flags = IBV_SEND_SIGNALED;
		ibv_wr_send_inv(p.s[0].qpx, rkey);
		ibv_wr_set_sge(p.s[0].qpx, src.mr->lkey, t_addr(&src, 1000), 300);
		WR_COMPLETE(p.s[0].qpx);
		POLL(rcq, 1, &wc);
		EXPECT_WC(&wc, 50, IBV_WC_SUCCESS, IBV_WC_RECV, qpn1, 300,
			  IBV_WC_WITH_INV, T_ANY);
		CHECK_EQ(wc.invalidated_rkey, rkey);
	}
	POLL(p.s[0].scq, 1, &wc);
	EXPECT_WC(&wc, 2, IBV_WC_SUCCESS, IBV_WC_SEND, qpn0, T_ANY, 0, T_ANY);
	CHECK_MEM(rbuf.p, src.p + 1000, 300);

	/* The window is gone: its MR can go (no EBUSY), and a WRITE through
	 * the rkey fails. */
	CHECK_OK(ibv_dereg_mr(win.mr));
	win.mr = NULL;
	sg = t_sge(&src, 0, 64);
	POST_SEND(p.s[0].qp, 3, IBV_WR_RDMA_WRITE, IBV_SEND_SIGNALED, &sg, 1,
		  t_addr(&win, 0), rkey, 0);
	POLL(p.s[0].scq, 1, &wc);
	EXPECT_WC(&wc, 3, IBV_WC_REM_ACCESS_ERR, T_ANY, qpn0, T_ANY, T_ANY, T_ANY);

	CHECK_OK(ibv_dealloc_mw(mw));
	t_buf_free(&src);
	t_buf_free(&rbuf);
	t_buf_free(&win);
	t_pair_close(&p);
	printf("%s: ok\n", use_wr ? "send_inv_wr" : "send_inv_post");
}

/* ibv_wc_read_invalidated_rkey(): side 1's QP receives on an extended CQ. */
static void run_cq_ex(void)
{
	struct ibv_poll_cq_attr pa = { .comp_mask = 0 };
	unsigned int acc = T_MR_ACCESS | IBV_ACCESS_MW_BIND;
	struct t_qp_caps caps = {
		.max_send_wr = 8, .max_recv_wr = 8,
		.max_send_sge = 1, .max_recv_sge = 1,
	};
	struct ibv_cq_init_attr_ex cia;
	struct ibv_context *ctx[2];
	struct ibv_pd *pd[2];
	struct ibv_cq *cq[2];
	struct ibv_cq_ex *rcx;
	struct ibv_qp *qp[2];
	union ibv_gid gid[2];
	struct t_buf win, src, rbuf;
	struct ibv_mw *mw;
	struct ibv_wc wc;
	struct ibv_sge sg;
	long empty = 0;
	int i, rc;

	for (i = 0; i < 2; i++) {
		ctx[i] = t_open_device(i ? T_DEV1 : T_DEV0);
		pd[i] = CHECK_PTR(ibv_alloc_pd(ctx[i]));
		cq[i] = t_create_cq(ctx[i], 16);
		t_query_gid(ctx[i], &gid[i]);
	}
	memset(&cia, 0, sizeof(cia));
	cia.cqe = 16;
	cia.wc_flags = IBV_WC_STANDARD_FLAGS;
	rcx = CHECK_PTR(ibv_create_cq_ex(ctx[1], &cia));
	qp[0] = t_create_qp(pd[0], cq[0], cq[0], IBV_QPT_RC, 0, &caps, NULL);
	qp[1] = t_create_qp(pd[1], cq[1], ibv_cq_ex_to_cq(rcx), IBV_QPT_RC, 0, &caps,
			    NULL);
	t_qp_to_rts(qp[0], IBV_MTU_1024, &gid[1], qp[1]->qp_num, 0x20, 0x10);
	t_qp_to_rts(qp[1], IBV_MTU_1024, &gid[0], qp[0]->qp_num, 0x10, 0x20);
	t_buf_alloc_access(&win, pd[1], 4096, acc);
	t_buf_alloc(&rbuf, pd[1], 4096);
	t_buf_alloc(&src, pd[0], 4096);

	/* Only type 2 windows are invalidated by SEND_WITH_INV. */
	mw = CHECK_PTR(ibv_alloc_mw(pd[1], IBV_MW_TYPE_2));
	{
		struct ibv_send_wr wr, *bad = NULL;

		memset(&wr, 0, sizeof(wr));
		wr.wr_id = 9;
		wr.opcode = IBV_WR_BIND_MW;
		wr.send_flags = IBV_SEND_SIGNALED;
		wr.bind_mw.mw = mw;
		wr.bind_mw.rkey = ibv_inc_rkey(mw->rkey);
		wr.bind_mw.bind_info.mr = win.mr;
		wr.bind_mw.bind_info.addr = t_addr(&win, 0);
		wr.bind_mw.bind_info.length = 4096;
		wr.bind_mw.bind_info.mw_access_flags = IBV_ACCESS_REMOTE_WRITE;
		CHECK_OK(ibv_post_send(qp[1], &wr, &bad));
	}
	POLL(cq[1], 1, &wc);
	EXPECT_WC(&wc, 9, IBV_WC_SUCCESS, IBV_WC_BIND_MW, qp[1]->qp_num, T_ANY, 0, T_ANY);

	sg = t_sge(&rbuf, 0, 4096);
	POST_RECV(qp[1], 60, &sg, 1);
	{
		struct ibv_send_wr wr, *bad = NULL;

		sg = t_sge(&src, 0, 40);
		memset(&wr, 0, sizeof(wr));
		wr.wr_id = 61;
		wr.opcode = IBV_WR_SEND_WITH_INV;
		wr.send_flags = IBV_SEND_SIGNALED;
		wr.sg_list = &sg;
		wr.num_sge = 1;
		wr.invalidate_rkey = mw->rkey;
		CHECK_OK(ibv_post_send(qp[0], &wr, &bad));
	}
	while ((rc = ibv_start_poll(rcx, &pa)) == ENOENT)
		CHECK(++empty < T_POLL_BOUND);
	CHECK_EQ(rc, 0);
	CHECK_EQ(rcx->wr_id, 60);
	CHECK_EQ(rcx->status, IBV_WC_SUCCESS);
	CHECK_EQ(ibv_wc_read_opcode(rcx), IBV_WC_RECV);
	CHECK_EQ(ibv_wc_read_wc_flags(rcx) & IBV_WC_WITH_INV, IBV_WC_WITH_INV);
	CHECK_EQ(ibv_wc_read_invalidated_rkey(rcx), mw->rkey);
	CHECK_EQ(ibv_wc_read_byte_len(rcx), 40);
	ibv_end_poll(rcx);
	POLL(cq[0], 1, &wc);
	EXPECT_WC(&wc, 61, IBV_WC_SUCCESS, IBV_WC_SEND, qp[0]->qp_num, T_ANY, 0, T_ANY);
	printf("send_inv_cq_ex (ibv_wc_read_invalidated_rkey): ok\n");

	CHECK_OK(ibv_dealloc_mw(mw));
	t_buf_free(&win);
	t_buf_free(&rbuf);
	t_buf_free(&src);
	for (i = 0; i < 2; i++)
		CHECK_OK(ibv_destroy_qp(qp[i]));
	CHECK_OK(ibv_destroy_cq(ibv_cq_ex_to_cq(rcx)));
	for (i = 0; i < 2; i++) {
		CHECK_OK(ibv_destroy_cq(cq[i]));
		CHECK_OK(ibv_dealloc_pd(pd[i]));
		CHECK_OK(ibv_close_device(ctx[i]));
	}
}

int main(void)
{
	run(0);
	run(1);
	run_cq_ex();
	printf("sys_send_inv: passed\n");
	return 0;
}
