// SPDX-License-Identifier: MIT
/*
 * sys_ack_coalesce_qps.c - the responder coalesces the ACKs of QPs whose
 * jobs alternate in its queue.
 *
 * rnic1 streams the responses of a 64 KiB RDMA READ (QP A, 16 frames at MTU
 * 4096) while rnic0 sends it 32 one-packet RDMA WRITEs, each asking for an
 * ACK, alternately on QPs B and C. Their ACK jobs alternate in rnic1's job
 * queue, so the newest job of a QP is never the queue's tail when the next
 * ACK of that QP arrives: since stop 48 a plain ACK replaces the newest
 * queued job of its QP when that is a plain ACK (not the head being sent),
 * wherever it sits: rnic1 sends 25 frames, 9 of them ACKs (with only the
 * tail replaced, as before, it sent an ACK per WRITE: 48 frames). Checked:
 * at most 16 ACK frames; every WR completes successfully with its bytes in
 * place, each QP's WRITEs in order.
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
	struct ibv_qp *q0[2], *q1[2];
	uint64_t f0, f1;
	int i, n, next[2] = { 0, 0 };

	t_pair_default_cfg(&cfg);
	cfg.mtu = IBV_MTU_4096;
	cfg.caps.max_send_wr = 64;
	cfg.cqe = 128;
	t_pair_open(&p, &cfg);
	for (i = 0; i < 2; i++) {
		q0[i] = t_create_rc_qp(p.s[0].pd, p.s[0].scq, p.s[0].rcq, &cfg.caps, NULL);
		q1[i] = t_create_rc_qp(p.s[1].pd, p.s[1].scq, p.s[1].rcq, &cfg.caps, NULL);
		t_connect_qps(q0[i], q1[i], IBV_MTU_4096, 100 + 1000 * (uint32_t)i, 200);
	}
	t_buf_alloc(&a, p.s[0].pd, RLEN + NW * 64);
	t_buf_alloc(&b, p.s[1].pd, RLEN + NW * 64);
	t_fill(b.p, RLEN, 5);
	t_fill(a.p + RLEN, NW * 64, 6);

	f0 = rnic_verbs_wire_frames(1);
	sg = t_sge(&a, 0, RLEN);
	POST_SEND(p.s[0].qp, 0, IBV_WR_RDMA_READ, IBV_SEND_SIGNALED, &sg, 1,
		  t_addr(&b, 0), b.mr->rkey, 0);
	for (i = 0; i < NW; i++) {
		sg = t_sge(&a, RLEN + (size_t)i * 64, 64);
		POST_SEND(q0[i % 2], 1 + i, IBV_WR_RDMA_WRITE, IBV_SEND_SIGNALED, &sg, 1,
			  t_addr(&b, RLEN + (size_t)i * 64), b.mr->rkey, 0);
	}
	POLL(p.s[0].scq, NW + 1, wc);
	f1 = rnic_verbs_wire_frames(1);
	for (i = 0; i < NW + 1; i++) {
		if (wc[i].wr_id == 0) {
			EXPECT_WC(&wc[i], 0, IBV_WC_SUCCESS, IBV_WC_RDMA_READ, p.s[0].qp->qp_num,
				  RLEN, 0, T_ANY);
			continue;
		}
		/* WRITE 1 + k went on QP k % 2; each QP's complete in order. */
		n = (int)((wc[i].wr_id - 1) % 2);
		EXPECT_WC(&wc[i], (uint64_t)(1 + n + 2 * next[n]), IBV_WC_SUCCESS,
			  IBV_WC_RDMA_WRITE, q0[n]->qp_num, T_ANY, 0, T_ANY);
		next[n]++;
	}
	CHECK_MEM(a.p, b.p, RLEN);
	CHECK_MEM(b.p + RLEN, a.p + RLEN, NW * 64);
	printf("sys_ack_coalesce_qps: rnic1 sent %" PRIu64
	       " frames for 16 READ responses and %d ACKs of two QPs\n", f1 - f0, NW);
	CHECKF(f1 - f0 >= 16 + 2, "too few frames: %" PRIu64, f1 - f0);
	CHECKF(f1 - f0 <= 16 + NW / 2, "few ACKs coalesced: %" PRIu64 " frames", f1 - f0);
	t_buf_free(&a);
	t_buf_free(&b);
	for (i = 0; i < 2; i++) {
		CHECK_OK(ibv_destroy_qp(q0[i]));
		CHECK_OK(ibv_destroy_qp(q1[i]));
	}
	t_pair_close(&p);
	return 0;
}
