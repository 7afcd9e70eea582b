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
 * in place, the WRITEs in order among themselves (t_read_beside_writes).
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
	struct ibv_qp *qb[2];

	t_pair_default_cfg(&cfg);
	cfg.mtu = IBV_MTU_4096;
	cfg.caps.max_send_wr = 64;
	cfg.cqe = 128;
	t_pair_open(&p, &cfg);
	qb[0] = t_create_rc_qp(p.s[0].pd, p.s[0].scq, p.s[0].rcq, &cfg.caps, NULL);
	qb[1] = t_create_rc_qp(p.s[1].pd, p.s[1].scq, p.s[1].rcq, &cfg.caps, NULL);
	t_connect_qps(qb[0], qb[1], IBV_MTU_4096, 100, 200);
	t_read_beside_writes(&p, &qb[0], 1, NW, &r);
	printf("sys_ack_beside_read: READ completed %d-th, at cycle %" PRIu64
	       "; the WRITEs from cycle %" PRIu64 " to %" PRIu64 "\n",
	       r.read_at + 1, r.c_read, r.c_first_write, r.c_last_write);
	CHECKF(r.read_at >= NW / 2, "the READ completed before WRITE %d of the other QP",
	       r.read_at + 1);
	CHECK_OK(ibv_destroy_qp(qb[0]));
	CHECK_OK(ibv_destroy_qp(qb[1]));
	t_pair_close(&p);
	return 0;
}
