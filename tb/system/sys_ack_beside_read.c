// SPDX-License-Identifier: MIT
/*
 * sys_ack_beside_read.c - a READ response stream of one QP does not hold
 * back the ACKs of another.
 *
 * rnic0 reads 64 KiB from rnic1 on QP A (16 response frames at MTU 4096,
 * about 2,100 cycles of rnic1's wire) and, right after, writes 32 one-packet
 * RDMA WRITEs to rnic1 on QP B; both QPs complete into one send CQ. The
 * IBA orders a QP's responses, not those of different QPs: rnic1 sends QP
 * B's ACKs between QP A's response frames (taking turns with them), so the
 * WRITEs complete while the READ streams. QP B has 8 WRITEs in flight at a
 * time (the in-flight ring) and an ACK waits for the response frames
 * already in rnic1's TX ring, so 16 of the 32 complete before the READ does.
 * Until stop 48 rnic1's responder sent its jobs strictly in arrival order:
 * the ACKs waited for the whole stream, the READ completed first and the
 * last WRITE 350 cycles later than now. Checked: at least half of the WRITEs
 * complete before the READ; every WR completes successfully with its bytes
 * in place, the WRITEs in order among themselves.
 */
#include <inttypes.h>
#include <stdio.h>

#include "common.h"
#include "rnic_verbs_ext.h"

#define NW 32
#define RLEN (64 * 1024)

int main(void)
{
	struct t_pair_cfg cfg;
	struct t_pair p;
	struct t_buf a, b;
	struct ibv_wc wc[NW + 1];
	struct ibv_sge sg;
	struct ibv_qp *qb[2];
	uint64_t c0, c_first_write = 0, c_last_write = 0, c_read = 0;
	int i, n, got, read_at = -1;

	t_pair_default_cfg(&cfg);
	cfg.mtu = IBV_MTU_4096;
	cfg.caps.max_send_wr = 64;
	cfg.cqe = 128;
	t_pair_open(&p, &cfg);
	qb[0] = t_create_rc_qp(p.s[0].pd, p.s[0].scq, p.s[0].rcq, &cfg.caps, NULL);
	qb[1] = t_create_rc_qp(p.s[1].pd, p.s[1].scq, p.s[1].rcq, &cfg.caps, NULL);
	t_connect_qps(qb[0], qb[1], IBV_MTU_4096, 100, 200);
	t_buf_alloc(&a, p.s[0].pd, RLEN + NW * 64);
	t_buf_alloc(&b, p.s[1].pd, RLEN + NW * 64);
	t_fill(b.p, RLEN, 5);
	t_fill(a.p + RLEN, NW * 64, 6);

	c0 = rnic_verbs_sim_cycle();
	sg = t_sge(&a, 0, RLEN);
	POST_SEND(p.s[0].qp, 0, IBV_WR_RDMA_READ, IBV_SEND_SIGNALED, &sg, 1,
		  t_addr(&b, 0), b.mr->rkey, 0);
	for (i = 0; i < NW; i++) {
		sg = t_sge(&a, RLEN + (size_t)i * 64, 64);
		POST_SEND(qb[0], 1 + i, IBV_WR_RDMA_WRITE, IBV_SEND_SIGNALED, &sg, 1,
			  t_addr(&b, RLEN + (size_t)i * 64), b.mr->rkey, 0);
	}
	/* One CQE at a time, to stamp when each arrives. */
	for (got = 0; got < NW + 1; got += n) {
		n = ibv_poll_cq(p.s[0].scq, 1, &wc[got]);
		CHECKF(n >= 0, "ibv_poll_cq: %d", n);
		if (n == 0) {
			CHECKF(rnic_verbs_sim_cycle() - c0 < 1000000, "only %d of %d completions", got,
			       NW + 1);
			continue;
		}
		if (wc[got].wr_id == 0) {
			read_at = got;
			c_read = rnic_verbs_sim_cycle() - c0;
		} else {
			c_last_write = rnic_verbs_sim_cycle() - c0;
			if (!c_first_write)
				c_first_write = c_last_write;
		}
	}
	for (i = 0, n = 0; i < NW + 1; i++) {
		if (i == read_at) {
			EXPECT_WC(&wc[i], 0, IBV_WC_SUCCESS, IBV_WC_RDMA_READ, p.s[0].qp->qp_num, RLEN,
				  0, T_ANY);
			continue;
		}
		n++;
		EXPECT_WC(&wc[i], (uint64_t)n, IBV_WC_SUCCESS, IBV_WC_RDMA_WRITE, qb[0]->qp_num,
			  T_ANY, 0, T_ANY);
	}
	CHECK_MEM(a.p, b.p, RLEN);
	CHECK_MEM(b.p + RLEN, a.p + RLEN, NW * 64);
	printf("sys_ack_beside_read: READ completed %d-th, at cycle %" PRIu64
	       "; the WRITEs from cycle %" PRIu64 " to %" PRIu64 "\n",
	       read_at + 1, c_read, c_first_write, c_last_write);
	CHECKF(read_at >= NW / 2, "the READ completed before WRITE %d of the other QP",
	       read_at + 1);
	t_buf_free(&a);
	t_buf_free(&b);
	ibv_destroy_qp(qb[0]);
	ibv_destroy_qp(qb[1]);
	t_pair_close(&p);
	return 0;
}
