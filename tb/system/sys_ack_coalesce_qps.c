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
 * place, each QP's WRITEs in order (t_read_beside_writes).
 */
#include <inttypes.h>
#include <stdio.h>

#include "read_beside_writes.h"

#define NW 32

int main(void)
{
	struct t_pair_cfg cfg;
	struct t_pair p;
	struct t_rbw r;
	struct ibv_qp *q0[2], *q1[2];
	int i;

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
	t_read_beside_writes(&p, q0, 2, NW, &r);
	printf("sys_ack_coalesce_qps: rnic1 sent %" PRIu64
	       " frames for 16 READ responses and %d ACKs of two QPs\n", r.frames, NW);
	CHECKF(r.frames >= 16 + 2, "too few frames: %" PRIu64, r.frames);
	CHECKF(r.frames <= 16 + NW / 2, "few ACKs coalesced: %" PRIu64 " frames", r.frames);
	for (i = 0; i < 2; i++) {
		CHECK_OK(ibv_destroy_qp(q0[i]));
		CHECK_OK(ibv_destroy_qp(q1[i]));
	}
	t_pair_close(&p);
	return 0;
}
