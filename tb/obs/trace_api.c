// SPDX-License-Identifier: MIT
/*
 * trace_api.c - a trace window around code of interest, by API.
 *
 * Sets up an RC pair (not traced with RNIC_TRACE_API=1), then calls
 * rnic_verbs_trace_begin(), does one RDMA WRITE and polls its completion,
 * calls rnic_verbs_trace_end() and does a second WRITE outside the window.
 * Prints "window <begin cycle> <end cycle>" for tb/obs/check_trace.py, which
 * checks that the waveform holds exactly those cycles. Uses our library's
 * extension header, so it only runs on the simulated RNIC.
 */
#define _DEFAULT_SOURCE

#include "common.h"
#include "rnic_verbs_ext.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#define LEN 512

static void write_once(struct t_pair *p, struct t_buf *src, struct t_buf *dst,
		       uint64_t wr_id)
{
	struct ibv_sge sg = t_sge(src, 0, LEN);
	struct ibv_wc wc;

	POST_SEND(p->s[0].qp, wr_id, IBV_WR_RDMA_WRITE, IBV_SEND_SIGNALED, &sg, 1,
		  t_addr(dst, 0), dst->mr->rkey, 0);
	POLL(p->s[0].scq, 1, &wc);
	EXPECT_WC(&wc, wr_id, IBV_WC_SUCCESS, IBV_WC_RDMA_WRITE, p->s[0].qp->qp_num,
		  T_ANY, 0, T_ANY);
	CHECK_MEM(dst->p, src->p, LEN);
}

int main(void)
{
	struct t_pair_cfg cfg;
	struct t_buf src, dst;
	struct t_pair p;
	uint64_t c0, c1;

	t_pair_default_cfg(&cfg);
	t_pair_open(&p, &cfg);
	t_buf_alloc(&src, p.s[0].pd, 4096);
	t_buf_alloc(&dst, p.s[1].pd, 4096);
	t_fill(src.p, 4096, 0xa91);

	c0 = rnic_verbs_sim_cycle();
	rnic_verbs_trace_begin();
	write_once(&p, &src, &dst, 1);
	rnic_verbs_trace_end();
	c1 = rnic_verbs_sim_cycle();

	memset(dst.p, 0, 4096);
	t_fill(src.p, 4096, 0xa92);
	write_once(&p, &src, &dst, 2);

	t_buf_free(&src);
	t_buf_free(&dst);
	t_pair_close(&p);
	printf("window %" PRIu64 " %" PRIu64 "\n", c0, c1);
	return 0;
}
