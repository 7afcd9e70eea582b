// SPDX-License-Identifier: MIT
/*
 * ex_post_recv_rdmamojo.c - the example of ibv_post_recv (rdmamojo),
 * "Posting a RR to QP which isn't associated with an SRQ", compiled as the
 * page writes it (ibv_post_recv_rdmamojo.inc, verbatim).
 *
 * The page as stored lost its line "}" that closes the error branch: it
 * comes after the #include. The outcome: the example returns 0, a SEND
 * from the peer lands in buf_addr and completes the receive with wr_id 0,
 * IBV_WC_RECV, its byte_len; the rest of the buffer is untouched.
 */
#define _DEFAULT_SOURCE

#include <stdio.h>
#include <string.h>

#include "common.h"

static int example(struct ibv_qp *qp, struct ibv_mr *mr, void *buf_addr,
		   uint32_t buf_size)
{
#include "ibv_post_recv_rdmamojo.inc"
	}
	return 0;
}

int main(void)
{
	struct t_pair_cfg cfg;
	struct t_buf src, dst;
	struct ibv_sge sg;
	struct ibv_wc wc;
	struct t_pair p;

	t_pair_default_cfg(&cfg);
	t_pair_open(&p, &cfg);
	t_buf_alloc(&src, p.s[0].pd, 8192);
	t_buf_alloc(&dst, p.s[1].pd, 8192);
	t_fill(src.p, 8192, 0x7ec7);
	memset(dst.p, 0xc5, 8192);

	CHECK_EQ(example(p.s[1].qp, dst.mr, dst.p + 512, 2048), 0);
	sg = t_sge(&src, 100, 1500);
	POST_SEND(p.s[0].qp, 9, IBV_WR_SEND, IBV_SEND_SIGNALED, &sg, 1, 0, 0, 0);
	POLL(p.s[0].scq, 1, &wc);
	EXPECT_WC(&wc, 9, IBV_WC_SUCCESS, IBV_WC_SEND, p.s[0].qp->qp_num, T_ANY,
		  T_ANY, T_ANY);
	POLL(p.s[1].rcq, 1, &wc);
	EXPECT_WC(&wc, 0, IBV_WC_SUCCESS, IBV_WC_RECV, p.s[1].qp->qp_num, 1500, 0,
		  T_ANY);
	CHECK_FILL(dst.p, 0xc5, 512);
	CHECK_MEM(dst.p + 512, src.p + 100, 1500);
	CHECK_FILL(dst.p + 2012, 0xc5, 8192 - 2012);
	EXPECT_EMPTY(p.s[1].rcq, 200);
	t_buf_free(&src);
	t_buf_free(&dst);
	t_pair_close(&p);
	printf("ex_post_recv_rdmamojo: passed\n");
	return 0;
}
