// SPDX-License-Identifier: MIT
/*
 * sys_wr_bad_batch.c - "If a failure is detected during operation, for
 * instance due to an invalid argument, then ibv_wr_complete() will return
 * failure and the entire posting will be aborted" (ibv_wr_post(3)).
 *
 * Each case builds the batch [good WRITE, bad WR, good SEND] and checks that
 * ibv_wr_complete() returns the errno of the bad WR and that nothing of the
 * batch executes (no completion while the model runs, remote bytes
 * untouched, the receive not consumed). The bad WRs:
 *   too_many_sges       ibv_wr_set_sge_list() above max_send_sge: EINVAL
 *   op_not_in_ops       a builder not in the QP's send_ops_flags: EINVAL
 *   ip_csum             wr_flags with IBV_SEND_IP_CSUM (no offload): EINVAL
 *   unknown_flag        wr_flags with an undefined bit: EINVAL
 *   inline_too_long     ibv_wr_set_inline_data() of max_inline_data + 1: EINVAL
 *   inline_on_read      inline data on an RDMA READ: EINVAL
 *   two_data_setters    two data setters for one WR: EINVAL
 *   data_on_local_inv   a data setter after ibv_wr_local_inv(): EINVAL
 *   ud_addr_on_rc       ibv_wr_set_ud_addr() on an RC QP: EINVAL
 *   tso                 ibv_wr_send_tso() (not supported): EINVAL
 *   setter_first        a setter before any builder of the batch: EINVAL
 *   sq_full             more WRs than the SQ has room for: ENOMEM
 * then:
 *   qp_works_after      a good batch completes normally and its SEND takes
 *                       the receive none of the failed batches consumed;
 *   complete_not_rts    ibv_wr_complete() on a QP in RESET: EINVAL (as
 *                       ibv_post_send()), nothing posted.
 */
#define _DEFAULT_SOURCE

#include "common.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#define BUF_LEN 8192
#define CANARY 0x77
#define MAX_SGE 2

#define OPS (IBV_QP_EX_WITH_SEND | IBV_QP_EX_WITH_RDMA_WRITE |		\
	     IBV_QP_EX_WITH_RDMA_READ | IBV_QP_EX_WITH_LOCAL_INV)

struct res {
	struct t_pair p;
	struct ibv_qp_ex *qpx;
	struct t_buf src, dst, rbuf;
	struct ibv_ah *ah;
	uint32_t qpn0, qpn1;
};

typedef void (*bad_fn)(struct res *r);

static void bad_too_many_sges(struct res *r)
{
	struct ibv_sge sl[MAX_SGE + 1];
	int i;

	for (i = 0; i <= MAX_SGE; i++)
		sl[i] = t_sge(&r->src, 64 * (size_t)i, 16);
	ibv_wr_send(r->qpx);
	ibv_wr_set_sge_list(r->qpx, MAX_SGE + 1, sl);
}

static void bad_op_not_in_ops(struct res *r)
{
	ibv_wr_atomic_fetch_add(r->qpx, r->dst.mr->rkey, t_addr(&r->dst, 0), 1);
	ibv_wr_set_sge(r->qpx, r->src.mr->lkey, t_addr(&r->src, 0), 8);
}

static void bad_ip_csum(struct res *r)
{
	r->qpx->wr_flags = IBV_SEND_SIGNALED | IBV_SEND_IP_CSUM;
	ibv_wr_send(r->qpx);
	ibv_wr_set_sge(r->qpx, r->src.mr->lkey, t_addr(&r->src, 0), 16);
	r->qpx->wr_flags = IBV_SEND_SIGNALED;
}

static void bad_unknown_flag(struct res *r)
{
	r->qpx->wr_flags = IBV_SEND_SIGNALED | (1u << 5);
	ibv_wr_send(r->qpx);
	ibv_wr_set_sge(r->qpx, r->src.mr->lkey, t_addr(&r->src, 0), 16);
	r->qpx->wr_flags = IBV_SEND_SIGNALED;
}

static void bad_inline_too_long(struct res *r)
{
	ibv_wr_send(r->qpx);
	ibv_wr_set_inline_data(r->qpx, r->src.p, r->p.s[0].cap.max_inline_data + 1);
}

static void bad_inline_on_read(struct res *r)
{
	ibv_wr_rdma_read(r->qpx, r->dst.mr->rkey, t_addr(&r->dst, 0));
	ibv_wr_set_inline_data(r->qpx, r->src.p, 8);
}

static void bad_two_data_setters(struct res *r)
{
	ibv_wr_send(r->qpx);
	ibv_wr_set_sge(r->qpx, r->src.mr->lkey, t_addr(&r->src, 0), 16);
	ibv_wr_set_sge(r->qpx, r->src.mr->lkey, t_addr(&r->src, 16), 16);
}

static void bad_data_on_local_inv(struct res *r)
{
	ibv_wr_local_inv(r->qpx, 0x1234);
	ibv_wr_set_sge(r->qpx, r->src.mr->lkey, t_addr(&r->src, 0), 16);
}

static void bad_ud_addr_on_rc(struct res *r)
{
	ibv_wr_send(r->qpx);
	ibv_wr_set_ud_addr(r->qpx, r->ah, r->qpn1, 0x11111111);
	ibv_wr_set_sge(r->qpx, r->src.mr->lkey, t_addr(&r->src, 0), 16);
}

static void bad_tso(struct res *r)
{
	char hdr[64];

	memset(hdr, 0, sizeof(hdr));
	ibv_wr_send_tso(r->qpx, hdr, sizeof(hdr), 1000);
	ibv_wr_set_sge(r->qpx, r->src.mr->lkey, t_addr(&r->src, 0), 16);
}

/* The batch helper's first good WR comes after this one here. */
static void bad_setter_first(struct res *r)
{
	ibv_wr_set_sge(r->qpx, r->src.mr->lkey, t_addr(&r->src, 0), 16);
}

static void bad_sq_full(struct res *r)
{
	uint32_t i;

	/* With the two good WRs around it, one more than the SQ holds. */
	for (i = 0; i + 2 < r->p.s[0].cap.max_send_wr + 1; i++) {
		ibv_wr_rdma_write(r->qpx, r->dst.mr->rkey, t_addr(&r->dst, 0));
		ibv_wr_set_sge(r->qpx, r->src.mr->lkey, t_addr(&r->src, 0), 8);
	}
}

static void good_write(struct res *r)
{
	r->qpx->wr_id = 1;
	ibv_wr_rdma_write(r->qpx, r->dst.mr->rkey, t_addr(&r->dst, 100));
	ibv_wr_set_sge(r->qpx, r->src.mr->lkey, t_addr(&r->src, 100), 500);
}

static void good_send(struct res *r)
{
	r->qpx->wr_id = 3;
	ibv_wr_send(r->qpx);
	ibv_wr_set_sge(r->qpx, r->src.mr->lkey, t_addr(&r->src, 1000), 64);
}

static void run_case(struct res *r, const char *name, bad_fn bad, int setter_first,
		     int expect)
{
	int rc;

	ibv_wr_start(r->qpx);
	r->qpx->wr_flags = IBV_SEND_SIGNALED;
	if (setter_first)
		bad(r);
	good_write(r);
	r->qpx->wr_id = 2;
	if (!setter_first)
		bad(r);
	good_send(r);
	rc = ibv_wr_complete(r->qpx);
	CHECKF(rc == expect, "%s: ibv_wr_complete returned %d, expected %d",
	       name, rc, expect);
	EXPECT_EMPTY(r->p.s[0].scq, T_EMPTY_POLLS / 10);
	EXPECT_EMPTY(r->p.s[1].rcq, 1);
	CHECK_FILL(r->dst.p, CANARY, BUF_LEN);
	CHECK_FILL(r->rbuf.p, CANARY, BUF_LEN);
	printf("%s: %s, nothing executed: ok\n", name,
	       expect == ENOMEM ? "ENOMEM" : "EINVAL");
}

static void complete_not_rts(struct res *r)
{
	struct t_qp_caps caps = {
		.max_send_wr = 4, .max_recv_wr = 4,
		.max_send_sge = 1, .max_recv_sge = 1,
	};
	struct ibv_qp_ex *qpx;
	struct ibv_qp *qp;

	qp = t_create_qp(r->p.s[0].pd, r->p.s[0].scq, r->p.s[0].rcq, IBV_QPT_RC,
			 OPS, &caps, NULL);
	qpx = ibv_qp_to_qp_ex(qp);
	ibv_wr_start(qpx);
	qpx->wr_id = 9;
	qpx->wr_flags = IBV_SEND_SIGNALED;
	ibv_wr_send(qpx);
	ibv_wr_set_sge(qpx, r->src.mr->lkey, t_addr(&r->src, 0), 8);
	CHECK_EQ(ibv_wr_complete(qpx), EINVAL);
	EXPECT_EMPTY(r->p.s[0].scq, 100);
	CHECK_OK(ibv_destroy_qp(qp));
	printf("complete_not_rts: EINVAL: ok\n");
}

int main(void)
{
	struct t_pair_cfg cfg;
	struct ibv_wc wc[2];
	struct ibv_sge sg;
	struct res r;

	memset(&r, 0, sizeof(r));
	t_pair_default_cfg(&cfg);
	cfg.caps.max_send_wr = 8;
	cfg.caps.max_send_sge = MAX_SGE;
	cfg.send_ops_flags = OPS;
	t_pair_open(&r.p, &cfg);
	CHECK_EQ(r.p.s[0].cap.max_send_sge, MAX_SGE);
	r.qpx = r.p.s[0].qpx;
	r.qpn0 = r.p.s[0].qp->qp_num;
	r.qpn1 = r.p.s[1].qp->qp_num;
	r.ah = t_create_ah(r.p.s[0].pd, r.p.s[1].ctx);
	t_buf_alloc(&r.src, r.p.s[0].pd, BUF_LEN);
	t_buf_alloc(&r.dst, r.p.s[1].pd, BUF_LEN);
	t_buf_alloc(&r.rbuf, r.p.s[1].pd, BUF_LEN);
	t_fill(r.src.p, BUF_LEN, 0xbad);
	memset(r.dst.p, CANARY, BUF_LEN);
	memset(r.rbuf.p, CANARY, BUF_LEN);
	sg = t_sge(&r.rbuf, 0, 512);
	POST_RECV(r.p.s[1].qp, 50, &sg, 1);

	run_case(&r, "too_many_sges", bad_too_many_sges, 0, EINVAL);
	run_case(&r, "op_not_in_ops", bad_op_not_in_ops, 0, EINVAL);
	run_case(&r, "ip_csum", bad_ip_csum, 0, EINVAL);
	run_case(&r, "unknown_flag", bad_unknown_flag, 0, EINVAL);
	run_case(&r, "inline_too_long", bad_inline_too_long, 0, EINVAL);
	run_case(&r, "inline_on_read", bad_inline_on_read, 0, EINVAL);
	run_case(&r, "two_data_setters", bad_two_data_setters, 0, EINVAL);
	run_case(&r, "data_on_local_inv", bad_data_on_local_inv, 0, EINVAL);
	run_case(&r, "ud_addr_on_rc", bad_ud_addr_on_rc, 0, EINVAL);
	run_case(&r, "tso", bad_tso, 0, EINVAL);
	run_case(&r, "setter_first", bad_setter_first, 1, EINVAL);
	run_case(&r, "sq_full", bad_sq_full, 0, ENOMEM);

	/* qp_works_after */
	ibv_wr_start(r.qpx);
	r.qpx->wr_flags = IBV_SEND_SIGNALED;
	good_write(&r);
	good_send(&r);
	WR_COMPLETE(r.qpx);
	POLL(r.p.s[0].scq, 2, wc);
	EXPECT_WC(&wc[0], 1, IBV_WC_SUCCESS, IBV_WC_RDMA_WRITE, r.qpn0, T_ANY, 0, T_ANY);
	EXPECT_WC(&wc[1], 3, IBV_WC_SUCCESS, IBV_WC_SEND, r.qpn0, T_ANY, 0, T_ANY);
	POLL(r.p.s[1].rcq, 1, wc);
	EXPECT_WC(&wc[0], 50, IBV_WC_SUCCESS, IBV_WC_RECV, r.qpn1, 64, 0, T_ANY);
	CHECK_MEM(r.dst.p + 100, r.src.p + 100, 500);
	CHECK_MEM(r.rbuf.p, r.src.p + 1000, 64);
	printf("qp_works_after: ok\n");

	complete_not_rts(&r);

	EXPECT_EMPTY(r.p.s[0].scq, 1);
	EXPECT_EMPTY(r.p.s[1].rcq, 1);
	CHECK_OK(ibv_destroy_ah(r.ah));
	t_buf_free(&r.src);
	t_buf_free(&r.dst);
	t_buf_free(&r.rbuf);
	t_pair_close(&r.p);
	printf("sys_wr_bad_batch: passed\n");
	return 0;
}
