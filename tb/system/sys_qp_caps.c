// SPDX-License-Identifier: MIT
/*
 * sys_qp_caps.c - ibv_create_qp() reports the capacities it really gives
 * (max_inline_data in particular) and ibv_query_qp() reports the same:
 *
 *   inline_sweep_<type>  for RC, UC and UD and every max_inline_data request
 *                        0..300 (with 1 and 4 SGEs): creation succeeds up to
 *                        some maximum and fails with EINVAL above it; a
 *                        created QP reports max_inline_data >= the request
 *                        and max_send_sge >= the request, never less than
 *                        for a smaller request, and ibv_query_qp() (attr and
 *                        init_attr) reports the same capacities and type;
 *   inline_limit_refused an RTS QP refuses inline data of its reported
 *                        max_inline_data + 1 bytes (EINVAL, bad_wr), for
 *                        SEND and RDMA WRITE.
 * (Posting exactly max_inline_data bytes inline is sys_inline's.)
 */
#define _DEFAULT_SOURCE

#include "common.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#define MAX_REQ 300

static const char *type_name(enum ibv_qp_type t)
{
	return t == IBV_QPT_RC ? "RC" : t == IBV_QPT_UC ? "UC" : "UD";
}

static void sweep(struct ibv_pd *pd, struct ibv_cq *cq, enum ibv_qp_type type,
		  uint32_t sge)
{
	uint32_t req, last = 0, max_ok = 0;
	int failed = 0;

	for (req = 0; req <= MAX_REQ; req++) {
		struct ibv_qp_init_attr ia, qia;
		struct ibv_qp_attr qa;
		struct ibv_qp *qp;

		memset(&ia, 0, sizeof(ia));
		ia.qp_type = type;
		ia.send_cq = cq;
		ia.recv_cq = cq;
		ia.cap.max_send_wr = 4;
		ia.cap.max_recv_wr = 4;
		ia.cap.max_send_sge = sge;
		ia.cap.max_recv_sge = 1;
		ia.cap.max_inline_data = req;
		errno = 0;
		qp = ibv_create_qp(pd, &ia);
		if (!qp) {
			CHECKF(errno == EINVAL, "%s inline %u: errno %d", type_name(type),
			       req, errno);
			failed = 1;
			continue;
		}
		CHECKF(!failed, "%s: inline %u created after a smaller request failed",
		       type_name(type), req);
		CHECK(ia.cap.max_inline_data >= req);
		CHECK(ia.cap.max_inline_data >= last);
		CHECK(ia.cap.max_send_sge >= sge);
		last = ia.cap.max_inline_data;
		max_ok = req;

		memset(&qa, 0, sizeof(qa));
		memset(&qia, 0, sizeof(qia));
		CHECK_OK(ibv_query_qp(qp, &qa, IBV_QP_CAP, &qia));
		CHECK_EQ(qa.cap.max_inline_data, ia.cap.max_inline_data);
		CHECK_EQ(qa.cap.max_send_sge, ia.cap.max_send_sge);
		CHECK_EQ(qa.cap.max_send_wr, ia.cap.max_send_wr);
		CHECK_EQ(qia.cap.max_inline_data, ia.cap.max_inline_data);
		CHECK_EQ(qia.qp_type, type);
		CHECK_OK(ibv_destroy_qp(qp));
	}
	CHECKF(failed, "%s: every request up to %u accepted", type_name(type), MAX_REQ);
	printf("inline_sweep_%s (%u SGE%s): up to %u bytes, EINVAL above: ok\n",
	       type_name(type), sge, sge > 1 ? "s" : "", max_ok);
}

static void limit_refused(void)
{
	struct ibv_send_wr wr, *bad;
	struct t_pair_cfg cfg;
	struct ibv_sge sg;
	struct t_buf b;
	struct t_pair p;
	uint32_t m;
	int rc;

	t_pair_default_cfg(&cfg);
	cfg.caps.max_inline_data = 64;
	t_pair_open(&p, &cfg);
	m = p.s[0].cap.max_inline_data;
	CHECK(m >= 64);
	t_buf_alloc(&b, p.s[0].pd, 4096);
	sg = t_sge(&b, 0, m + 1);

	memset(&wr, 0, sizeof(wr));
	wr.wr_id = 1;
	wr.sg_list = &sg;
	wr.num_sge = 1;
	wr.opcode = IBV_WR_SEND;
	wr.send_flags = IBV_SEND_SIGNALED | IBV_SEND_INLINE;
	bad = NULL;
	rc = ibv_post_send(p.s[0].qp, &wr, &bad);
	CHECK_EQ(rc, EINVAL);
	CHECK(bad == &wr);
	wr.opcode = IBV_WR_RDMA_WRITE;
	wr.wr.rdma.remote_addr = t_addr(&b, 0);
	wr.wr.rdma.rkey = b.mr->rkey;
	bad = NULL;
	rc = ibv_post_send(p.s[0].qp, &wr, &bad);
	CHECK_EQ(rc, EINVAL);
	CHECK(bad == &wr);
	EXPECT_EMPTY(p.s[0].scq, 100);
	EXPECT_EMPTY(p.s[1].rcq, 1);
	t_buf_free(&b);
	t_pair_close(&p);
	printf("inline_limit_refused (max_inline_data %u + 1): EINVAL: ok\n", m);
}

int main(void)
{
	struct ibv_context *ctx = t_open_device(T_DEV0);
	struct ibv_pd *pd = CHECK_PTR(ibv_alloc_pd(ctx));
	struct ibv_cq *cq = t_create_cq(ctx, 16);

	sweep(pd, cq, IBV_QPT_RC, 1);
	sweep(pd, cq, IBV_QPT_RC, 4);
	sweep(pd, cq, IBV_QPT_UC, 1);
	sweep(pd, cq, IBV_QPT_UD, 1);
	sweep(pd, cq, IBV_QPT_UD, 4);
	CHECK_OK(ibv_destroy_cq(cq));
	CHECK_OK(ibv_dealloc_pd(pd));
	CHECK_OK(ibv_close_device(ctx));
	limit_refused();
	printf("sys_qp_caps: passed\n");
	return 0;
}
