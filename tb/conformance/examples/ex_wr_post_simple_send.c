// SPDX-License-Identifier: MIT
/*
 * ex_wr_post_simple_send.c - ibv_wr_post(3): "For example a simple send
 * could be formed as follows:" (ibv_wr_post_simple_send.inc, verbatim),
 * inside an ibv_wr_start()/ibv_wr_complete() region of a QP created with
 * IBV_QP_EX_WITH_SEND. `data` is 8 registered bytes; the page passes &data
 * where ibv_wr_set_sge() takes a uint64_t (built with -Wno-int-conversion).
 *
 * The stored text lost the builder line of rdma-core's page
 * ("ibv_wr_send(qpx);" before the setter). As stored, the block sets an SGE
 * with no WR to set it on: a bad WR, so ibv_wr_complete() fails (EINVAL)
 * and discards the batch; nothing is sent. The block then runs again after
 * the lost ibv_wr_send(qpx): ibv_wr_complete() returns 0, the peer receives
 * the 8 bytes of data, the sender gets wr_id 1 (signaled).
 */
#define _DEFAULT_SOURCE

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "common.h"

static struct t_buf data_buf;
#define data (*(uint64_t *)data_buf.p)

int main(void)
{
	struct t_pair_cfg cfg;
	struct ibv_qp_ex *qpx;
	struct t_buf dst;
	struct ibv_sge sg;
	struct ibv_wc wc;
	struct t_pair p;
	uint32_t lkey;
	int ret;

	t_pair_default_cfg(&cfg);
	cfg.send_ops_flags = IBV_QP_EX_WITH_SEND;
	t_pair_open(&p, &cfg);
	t_buf_alloc(&data_buf, p.s[0].pd, 4096);
	t_buf_alloc(&dst, p.s[1].pd, 4096);
	memset(dst.p, 0xc5, 4096);
	data = 0x0123456789abcdefull;
	lkey = data_buf.mr->lkey;
	qpx = p.s[0].qpx;
	sg = t_sge(&dst, 0, 64);
	POST_RECV(p.s[1].qp, 5, &sg, 1);

	/* As stored: a setter without a builder. */
	ibv_wr_start(qpx);
	qpx->wr_flags = IBV_SEND_SIGNALED;
#include "ibv_wr_post_simple_send.inc"
	ret = ibv_wr_complete(qpx);
	CHECKF(ret == EINVAL, "ibv_wr_complete returned %d, not EINVAL", ret);
	EXPECT_EMPTY(p.s[0].scq, T_EMPTY_POLLS);
	EXPECT_EMPTY(p.s[1].rcq, 1);
	CHECK_FILL(dst.p, 0xc5, 4096);

	/* With the line the stored text lost. */
	ibv_wr_start(qpx);
	qpx->wr_flags = IBV_SEND_SIGNALED;
	ibv_wr_send(qpx);
#include "ibv_wr_post_simple_send.inc"
	ret = ibv_wr_complete(qpx);
	CHECKF(ret == 0, "ibv_wr_complete returned %d", ret);

	POLL(p.s[0].scq, 1, &wc);
	EXPECT_WC(&wc, 1, IBV_WC_SUCCESS, IBV_WC_SEND, p.s[0].qp->qp_num, T_ANY,
		  T_ANY, T_ANY);
	POLL(p.s[1].rcq, 1, &wc);
	EXPECT_WC(&wc, 5, IBV_WC_SUCCESS, IBV_WC_RECV, p.s[1].qp->qp_num,
		  sizeof(data), 0, T_ANY);
	CHECK_MEM(dst.p, data_buf.p, sizeof(data));
	CHECK_FILL(dst.p + 8, 0xc5, 4088);
	t_buf_free(&data_buf);
	t_buf_free(&dst);
	t_pair_close(&p);
	printf("ex_wr_post_simple_send: passed\n");
	return 0;
}
