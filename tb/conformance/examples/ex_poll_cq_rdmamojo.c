// SPDX-License-Identifier: MIT
/*
 * ex_poll_cq_rdmamojo.c - the example of ibv_poll_cq (rdmamojo), "Poll a
 * Work Completion from a CQ (in polling mode)", compiled as the page
 * writes it (ibv_poll_cq_rdmamojo.inc, verbatim).
 *
 * The page as stored lost its lines made only of "}" and the argument line
 * of its fprintf (ibv_wc_status_str(wc.status)): the two "}" that close its
 * if blocks come after the #include, so as written the status check sits
 * inside the num_comp < 0 branch, and the fprintf's format does not match
 * its arguments (built with -Wno-format; it never runs on success). The
 * outcome is therefore checked here: one completion polled, the signaled
 * RDMA WRITE's wr_id, IBV_WC_SUCCESS, the bytes at the remote address.
 */
#define _DEFAULT_SOURCE

#include <stdio.h>
#include <string.h>

#include "common.h"

static int example(struct ibv_cq *cq, struct ibv_wc *out, int *out_num)
{
#include "ibv_poll_cq_rdmamojo.inc"
	}
	}
	*out = wc;
	*out_num = num_comp;
	return 0;
}

int main(void)
{
	struct t_pair_cfg cfg;
	struct t_buf src, dst;
	struct ibv_sge sg;
	struct ibv_wc wc;
	struct t_pair p;
	int n = 0;

	t_pair_default_cfg(&cfg);
	t_pair_open(&p, &cfg);
	t_buf_alloc(&src, p.s[0].pd, 8192);
	t_buf_alloc(&dst, p.s[1].pd, 8192);
	t_fill(src.p, 8192, 0x9011);
	memset(dst.p, 0xc5, 8192);
	sg = t_sge(&src, 0, 3000);
	POST_SEND(p.s[0].qp, 0x5150, IBV_WR_RDMA_WRITE, IBV_SEND_SIGNALED, &sg, 1,
		  t_addr(&dst, 1000), dst.mr->rkey, 0);

	CHECK_EQ(example(p.s[0].scq, &wc, &n), 0);
	CHECK_EQ(n, 1);
	EXPECT_WC(&wc, 0x5150, IBV_WC_SUCCESS, IBV_WC_RDMA_WRITE,
		  p.s[0].qp->qp_num, T_ANY, T_ANY, T_ANY);
	CHECK_FILL(dst.p, 0xc5, 1000);
	CHECK_MEM(dst.p + 1000, src.p, 3000);
	CHECK_FILL(dst.p + 4000, 0xc5, 4192);
	EXPECT_EMPTY(p.s[0].scq, 200);
	t_buf_free(&src);
	t_buf_free(&dst);
	t_pair_close(&p);
	printf("ex_poll_cq_rdmamojo: passed\n");
	return 0;
}
