// SPDX-License-Identifier: MIT
/* read_beside_writes.c - see read_beside_writes.h. */
#include "read_beside_writes.h"

#include <stdlib.h>

#include "rnic_verbs_ext.h"

#define RLEN (64 * 1024)
#define WLEN 64

void t_read_beside_writes(struct t_pair *p, struct ibv_qp **wq, int nwq, int nw,
			  struct t_rbw *r)
{
	struct t_buf a, b;
	struct ibv_wc wc;
	struct ibv_sge sg;
	uint64_t c0, *next = calloc((size_t)nwq, sizeof(*next));
	int i, got, n, read_done = 0;

	CHECK(next != NULL);
	r->read_at = -1;
	r->c_first_write = r->c_last_write = r->c_read = 0;
	t_buf_alloc(&a, p->s[0].pd, RLEN + (size_t)nw * WLEN);
	t_buf_alloc(&b, p->s[1].pd, RLEN + (size_t)nw * WLEN);
	t_fill(b.p, RLEN, 5);
	t_fill(a.p + RLEN, (size_t)nw * WLEN, 6);

	r->frames = rnic_verbs_wire_frames(1);
	c0 = rnic_verbs_sim_cycle();
	sg = t_sge(&a, 0, RLEN);
	POST_SEND(p->s[0].qp, 0, IBV_WR_RDMA_READ, IBV_SEND_SIGNALED, &sg, 1, t_addr(&b, 0),
		  b.mr->rkey, 0);
	for (i = 0; i < nw; i++) {
		sg = t_sge(&a, RLEN + (size_t)i * WLEN, WLEN);
		POST_SEND(wq[i % nwq], 1 + (uint64_t)i, IBV_WR_RDMA_WRITE, IBV_SEND_SIGNALED, &sg,
			  1, t_addr(&b, RLEN + (size_t)i * WLEN), b.mr->rkey, 0);
	}
	for (got = 0; got < nw + 1; got += n) {
		n = ibv_poll_cq(p->s[0].scq, 1, &wc);
		CHECKF(n >= 0, "ibv_poll_cq: %d", n);
		if (!n) {
			CHECKF(rnic_verbs_sim_cycle() - c0 < 1000000, "only %d of %d completions",
			       got, nw + 1);
			continue;
		}
		if (wc.wr_id == 0) {
			EXPECT_WC(&wc, 0, IBV_WC_SUCCESS, IBV_WC_RDMA_READ, p->s[0].qp->qp_num, RLEN,
				  0, T_ANY);
			r->read_at = got;
			r->c_read = rnic_verbs_sim_cycle() - c0;
			read_done = 1;
			continue;
		}
		/* WRITE k (wr_id k + 1) went on wq[k % nwq]: each QP's in order. */
		i = (int)((wc.wr_id - 1) % (uint64_t)nwq);
		EXPECT_WC(&wc, 1 + (uint64_t)i + (uint64_t)nwq * next[i], IBV_WC_SUCCESS,
			  IBV_WC_RDMA_WRITE, wq[i]->qp_num, T_ANY, 0, T_ANY);
		CHECKF(read_done || wq[i] != p->s[0].qp,
		       "a WRITE on the READ's QP completed before the READ");
		next[i]++;
		r->c_last_write = rnic_verbs_sim_cycle() - c0;
		if (!r->c_first_write)
			r->c_first_write = r->c_last_write;
	}
	r->frames = rnic_verbs_wire_frames(1) - r->frames;
	CHECK_MEM(a.p, b.p, RLEN);
	CHECK_MEM(b.p + RLEN, a.p + RLEN, (size_t)nw * WLEN);
	t_buf_free(&a);
	t_buf_free(&b);
	free(next);
}
