// SPDX-License-Identifier: MIT
/*
 * sys_cq_ex.c - ibv_create_cq_ex() and its polling interface
 * (ibv_start_poll/ibv_next_poll/ibv_end_poll, ibv_wc_read_*):
 *
 *   refuses_wc_flags   wc_flags the device cannot provide (CVLAN, FLOW_TAG,
 *                      TM_INFO, COMPLETION_TIMESTAMP_WALLCLOCK, unknown
 *                      bits): NULL, errno EOPNOTSUPP;
 *   empty              ibv_start_poll() on an empty CQ returns ENOENT;
 *   receive_fields     three receive completions (SEND, SEND_WITH_IMM,
 *                      RDMA_WRITE_WITH_IMM) read in one start/next/end
 *                      pass: wr_id, status, opcode, vendor_err, byte_len,
 *                      imm_data, qp_num, wc_flags, slid, sl,
 *                      dlid_path_bits; ibv_next_poll() returns ENOENT after
 *                      the last;
 *   send_fields        requester completions of SEND, SEND_WITH_IMM,
 *                      WRITE_WITH_IMM, READ and FETCH_ADD the same way
 *                      (byte_len of READ and atomics);
 *   completion_ts      IBV_WC_EX_WITH_COMPLETION_TIMESTAMP: hca_core_clock is
 *                      reported, timestamps are non-zero and never go back,
 *                      and a completion of a later WR has a later stamp;
 *   poll_cq_too        ibv_poll_cq() on ibv_cq_ex_to_cq() of the same CQ;
 *   error_status       an RDMA WRITE with a bad rkey: status
 *                      IBV_WC_REM_ACCESS_ERR and the wr_id in the ibv_cq_ex,
 *                      qp_num readable; the next WR is flushed.
 */
#define _DEFAULT_SOURCE

#include "common.h"

#include <endian.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#define BUF_LEN 8192
#define ALL_FLAGS (IBV_WC_STANDARD_FLAGS | IBV_WC_EX_WITH_COMPLETION_TIMESTAMP)

struct ex_wc {
	uint64_t wr_id;
	enum ibv_wc_status status;
	enum ibv_wc_opcode opcode;
	uint32_t vendor_err;
	uint32_t byte_len;
	__be32 imm;
	uint32_t qp_num;
	uint32_t src_qp;
	unsigned int wc_flags;
	uint32_t slid;
	uint8_t sl;
	uint8_t dlid_path_bits;
	uint64_t ts;
};

static void read_one(struct ibv_cq_ex *cq, struct ex_wc *w)
{
	w->wr_id = cq->wr_id;
	w->status = cq->status;
	w->opcode = ibv_wc_read_opcode(cq);
	w->vendor_err = ibv_wc_read_vendor_err(cq);
	w->byte_len = ibv_wc_read_byte_len(cq);
	w->wc_flags = ibv_wc_read_wc_flags(cq);
	w->imm = (w->wc_flags & IBV_WC_WITH_IMM) ? ibv_wc_read_imm_data(cq) : 0;
	w->qp_num = ibv_wc_read_qp_num(cq);
	w->src_qp = ibv_wc_read_src_qp(cq);
	w->slid = ibv_wc_read_slid(cq);
	w->sl = ibv_wc_read_sl(cq);
	w->dlid_path_bits = ibv_wc_read_dlid_path_bits(cq);
	w->ts = ibv_wc_read_completion_ts(cq);
}

/* Reads n completions in start/next/end passes (waiting for each one with a
 * bounded number of empty start_polls). */
static void poll_ex(struct ibv_cq_ex *cq, int n, struct ex_wc *w)
{
	struct ibv_poll_cq_attr attr = { .comp_mask = 0 };
	long empty = 0;
	int got = 0, rc;

	while (got < n) {
		rc = ibv_start_poll(cq, &attr);
		if (rc == ENOENT) {
			CHECKF(++empty < T_POLL_BOUND, "timeout: %d of %d", got, n);
			continue;
		}
		CHECK_EQ(rc, 0);
		read_one(cq, &w[got++]);
		while (got < n) {
			rc = ibv_next_poll(cq);
			if (rc == ENOENT)
				break;
			CHECK_EQ(rc, 0);
			read_one(cq, &w[got++]);
		}
		ibv_end_poll(cq);
	}
}

static void expect(const struct ex_wc *w, uint64_t wr_id, enum ibv_wc_opcode op,
		   uint32_t qpn, long long byte_len, unsigned int flags,
		   uint32_t imm_host)
{
	CHECKF(w->wr_id == wr_id && w->status == IBV_WC_SUCCESS,
	       "wr_id %" PRIu64 " status %d, expected %" PRIu64 " success",
	       w->wr_id, w->status, wr_id);
	CHECK_EQ(w->opcode, op);
	CHECK_EQ(w->vendor_err, 0);
	if (byte_len != T_ANY)
		CHECK_EQ(w->byte_len, byte_len);
	CHECK_EQ(w->qp_num, qpn);
	CHECK_EQ(w->wc_flags & ~(unsigned int)IBV_WC_GRH, flags);
	if (flags & IBV_WC_WITH_IMM)
		CHECK_EQ(be32toh(w->imm), imm_host);
	CHECK_EQ(w->slid, 0);
	CHECK_EQ(w->sl, 0);
	CHECK_EQ(w->dlid_path_bits, 0);
	CHECK(w->ts != 0);
}

static struct ibv_cq_ex *create_ex(struct ibv_context *ctx, uint64_t wc_flags)
{
	struct ibv_cq_init_attr_ex a;

	memset(&a, 0, sizeof(a));
	a.cqe = 64;
	a.wc_flags = wc_flags;
	errno = 0;
	return ibv_create_cq_ex(ctx, &a);
}

static void refuses_wc_flags(struct ibv_context *ctx)
{
	static const uint64_t bad[] = {
		IBV_WC_EX_WITH_CVLAN, IBV_WC_EX_WITH_FLOW_TAG, IBV_WC_EX_WITH_TM_INFO,
		IBV_WC_EX_WITH_COMPLETION_TIMESTAMP_WALLCLOCK, 1ull << 40,
	};
	unsigned int i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct ibv_cq_ex *cq = create_ex(ctx, ALL_FLAGS | bad[i]);

		CHECKF(!cq && errno == EOPNOTSUPP,
		       "wc_flags 0x%llx: cq %p errno %d",
		       (unsigned long long)bad[i], (void *)cq, errno);
	}
	printf("refuses_wc_flags: EOPNOTSUPP: ok\n");
}

int main(void)
{
	unsigned int acc = T_MR_ACCESS | IBV_ACCESS_REMOTE_ATOMIC;
	struct t_qp_caps caps = {
		.max_send_wr = 16, .max_recv_wr = 16,
		.max_send_sge = 1, .max_recv_sge = 1,
	};
	struct ibv_poll_cq_attr pattr = { .comp_mask = 0 };
	struct ibv_device_attr_ex dattr;
	struct ibv_context *ctx[2];
	struct ibv_pd *pd[2];
	struct ibv_cq_ex *scx, *rcx;
	struct ibv_cq *scq1, *rcq0;
	struct ibv_qp *qp[2];
	struct t_qp_attrs at;
	union ibv_gid gid[2];
	struct t_buf src, dst, rbuf;
	struct ex_wc w[8];
	struct ibv_wc wc;
	struct ibv_sge sg;
	uint32_t qpn0, qpn1;
	uint64_t ts;
	int i;

	for (i = 0; i < 2; i++) {
		ctx[i] = t_open_device(i ? T_DEV1 : T_DEV0);
		pd[i] = CHECK_PTR(ibv_alloc_pd(ctx[i]));
		t_query_gid(ctx[i], &gid[i]);
	}
	refuses_wc_flags(ctx[0]);

	memset(&dattr, 0, sizeof(dattr));
	CHECK_OK(ibv_query_device_ex(ctx[0], NULL, &dattr));
	CHECK(dattr.hca_core_clock != 0);

	scx = CHECK_PTR(create_ex(ctx[0], ALL_FLAGS));
	rcx = CHECK_PTR(create_ex(ctx[1], ALL_FLAGS));
	rcq0 = t_create_cq(ctx[0], 64);
	scq1 = t_create_cq(ctx[1], 64);
	qp[0] = t_create_qp(pd[0], ibv_cq_ex_to_cq(scx), rcq0, IBV_QPT_RC, 0, &caps, NULL);
	qp[1] = t_create_qp(pd[1], scq1, ibv_cq_ex_to_cq(rcx), IBV_QPT_RC, 0, &caps, NULL);
	t_qp_default_attrs(&at);
	at.access |= IBV_ACCESS_REMOTE_ATOMIC;
	t_qp_to_rts_attrs(qp[0], IBV_MTU_1024, &gid[1], qp[1]->qp_num, 0x200, 0x100, &at);
	t_qp_to_rts_attrs(qp[1], IBV_MTU_1024, &gid[0], qp[0]->qp_num, 0x100, 0x200, &at);
	qpn0 = qp[0]->qp_num;
	qpn1 = qp[1]->qp_num;
	t_buf_alloc_access(&src, pd[0], BUF_LEN, acc);
	t_buf_alloc_access(&dst, pd[1], BUF_LEN, acc);
	t_buf_alloc_access(&rbuf, pd[1], BUF_LEN, acc);
	t_fill(src.p, BUF_LEN, 0xc0ffee);

	/* empty */
	CHECK_EQ(ibv_start_poll(rcx, &pattr), ENOENT);
	CHECK_EQ(ibv_start_poll(scx, &pattr), ENOENT);
	printf("empty: ENOENT: ok\n");

	/* receive_fields + send_fields */
	for (i = 0; i < 3; i++) {
		sg = t_sge(&rbuf, 1024 * (size_t)i, 1024);
		POST_RECV(qp[1], 70 + i, &sg, 1);
	}
	sg = t_sge(&src, 0, 1000);
	POST_SEND(qp[0], 1, IBV_WR_SEND, IBV_SEND_SIGNALED, &sg, 1, 0, 0, 0);
	sg = t_sge(&src, 1000, 500);
	POST_SEND(qp[0], 2, IBV_WR_SEND_WITH_IMM, IBV_SEND_SIGNALED, &sg, 1, 0, 0,
		  htobe32(0x12345678));
	sg = t_sge(&src, 2000, 300);
	POST_SEND(qp[0], 3, IBV_WR_RDMA_WRITE_WITH_IMM, IBV_SEND_SIGNALED, &sg, 1,
		  t_addr(&dst, 0), dst.mr->rkey, htobe32(0x9abcdef0));
	poll_ex(rcx, 3, w);
	expect(&w[0], 70, IBV_WC_RECV, qpn1, 1000, 0, 0);
	expect(&w[1], 71, IBV_WC_RECV, qpn1, 500, IBV_WC_WITH_IMM, 0x12345678);
	expect(&w[2], 72, IBV_WC_RECV_RDMA_WITH_IMM, qpn1, T_ANY, IBV_WC_WITH_IMM,
	       0x9abcdef0);
	CHECK_MEM(rbuf.p, src.p, 1000);
	CHECK_MEM(rbuf.p + 1024, src.p + 1000, 500);
	CHECK_MEM(dst.p, src.p + 2000, 300);
	CHECK(w[0].ts <= w[1].ts && w[1].ts <= w[2].ts);
	CHECK_EQ(ibv_start_poll(rcx, &pattr), ENOENT);
	printf("receive_fields: ok\n");

	sg = t_sge(&src, 4096, 600);
	memset(src.p + 4096, 0, 600);
	t_fill(dst.p + 1000, 600, 0x5151);
	{
		uint64_t v = 0x777;

		memcpy(dst.p + 2048, &v, 8);
	}
	POST_SEND(qp[0], 4, IBV_WR_RDMA_READ, IBV_SEND_SIGNALED, &sg, 1,
		  t_addr(&dst, 1000), dst.mr->rkey, 0);
	sg = t_sge(&src, 5000, 8);
	POST_ATOMIC(qp[0], 5, IBV_WR_ATOMIC_FETCH_AND_ADD, IBV_SEND_SIGNALED, &sg,
		    t_addr(&dst, 2048), dst.mr->rkey, 3, 0);
	poll_ex(scx, 5, w);
	expect(&w[0], 1, IBV_WC_SEND, qpn0, T_ANY, 0, 0);
	expect(&w[1], 2, IBV_WC_SEND, qpn0, T_ANY,
	       w[1].wc_flags & IBV_WC_WITH_IMM, 0x12345678);
	expect(&w[2], 3, IBV_WC_RDMA_WRITE, qpn0, T_ANY,
	       w[2].wc_flags & IBV_WC_WITH_IMM, 0x9abcdef0);
	expect(&w[3], 4, IBV_WC_RDMA_READ, qpn0, 600, 0, 0);
	expect(&w[4], 5, IBV_WC_FETCH_ADD, qpn0, 8, 0, 0);
	CHECK_MEM(src.p + 4096, dst.p + 1000, 600);
	{
		uint64_t v;

		memcpy(&v, src.p + 5000, 8);
		CHECK_EQ(v, 0x777);
	}
	printf("send_fields: ok\n");

	/* completion_ts: never back; the READ/atomic (posted after the
	 * receives completed) later than the first SEND. */
	for (i = 1; i < 5; i++)
		CHECK(w[i].ts >= w[i - 1].ts);
	CHECK(w[3].ts > w[0].ts);
	ts = w[4].ts;
	printf("completion_ts: ok (%" PRIu64 " cycles from first to last)\n",
	       w[4].ts - w[0].ts);

	/* poll_cq_too */
	sg = t_sge(&src, 0, 64);
	POST_SEND(qp[0], 6, IBV_WR_RDMA_WRITE, IBV_SEND_SIGNALED, &sg, 1,
		  t_addr(&dst, 4096), dst.mr->rkey, 0);
	POLL(ibv_cq_ex_to_cq(scx), 1, &wc);
	EXPECT_WC(&wc, 6, IBV_WC_SUCCESS, IBV_WC_RDMA_WRITE, qpn0, T_ANY, 0, T_ANY);
	printf("poll_cq_too: ok\n");

	/* error_status */
	POST_SEND(qp[0], 7, IBV_WR_RDMA_WRITE, IBV_SEND_SIGNALED, &sg, 1,
		  t_addr(&dst, 0), dst.mr->rkey ^ 0x80, 0);
	POST_SEND(qp[0], 8, IBV_WR_RDMA_WRITE, IBV_SEND_SIGNALED, &sg, 1,
		  t_addr(&dst, 0), dst.mr->rkey, 0);
	poll_ex(scx, 2, w);
	CHECKF(w[0].wr_id == 7 && w[0].status == IBV_WC_REM_ACCESS_ERR,
	       "wr_id %" PRIu64 " status %d", w[0].wr_id, w[0].status);
	CHECK_EQ(w[0].qp_num, qpn0);
	CHECKF(w[1].wr_id == 8 && w[1].status == IBV_WC_WR_FLUSH_ERR,
	       "wr_id %" PRIu64 " status %d", w[1].wr_id, w[1].status);
	CHECK(w[0].ts >= ts);
	printf("error_status: ok\n");

	CHECK_EQ(ibv_start_poll(scx, &pattr), ENOENT);
	for (i = 0; i < 2; i++)
		CHECK_OK(ibv_destroy_qp(qp[i]));
	t_buf_free(&src);
	t_buf_free(&dst);
	t_buf_free(&rbuf);
	CHECK_OK(ibv_destroy_cq(ibv_cq_ex_to_cq(scx)));
	CHECK_OK(ibv_destroy_cq(ibv_cq_ex_to_cq(rcx)));
	CHECK_OK(ibv_destroy_cq(rcq0));
	CHECK_OK(ibv_destroy_cq(scq1));
	for (i = 0; i < 2; i++) {
		CHECK_OK(ibv_dealloc_pd(pd[i]));
		CHECK_OK(ibv_close_device(ctx[i]));
	}
	printf("sys_cq_ex: passed\n");
	return 0;
}
