// SPDX-License-Identifier: MIT
/*
 * sys_ack_coalesce.c - the responder coalesces ACKs when it cannot send
 * them at once.
 *
 * rnic1 streams the responses of a 64 KiB RDMA READ (16 frames at MTU 4096)
 * while rnic0 sends it 32 one-packet RDMA WRITEs on the same QP, each
 * asking for an ACK. The ACKs queue behind the READ responses (their QP's
 * order); while one waits, a newer ACK of the same QP replaces it, so rnic1
 * sends fewer than 16 + 32 frames. Every WR still completes successfully,
 * in order, with its bytes in place (t_read_beside_writes; the frames are
 * counted by rnic_verbs_wire_frames).
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

	t_pair_default_cfg(&cfg);
	cfg.mtu = IBV_MTU_4096;
	cfg.caps.max_send_wr = 64;
	cfg.cqe = 128;
	t_pair_open(&p, &cfg);
	t_read_beside_writes(&p, &p.s[0].qp, 1, NW, &r);
	printf("sys_ack_coalesce: rnic1 sent %" PRIu64 " frames for 16 READ responses and %d ACKs\n",
	       r.frames, NW);
	CHECKF(r.read_at == 0, "the READ completed %d-th", r.read_at + 1);
	CHECKF(r.frames < 16 + NW, "no ACK was coalesced (%" PRIu64 " frames)", r.frames);
	CHECKF(r.frames >= 16 + 1, "too few frames: %" PRIu64, r.frames);
	t_pair_close(&p);
	return 0;
}
