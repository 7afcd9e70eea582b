/* SPDX-License-Identifier: MIT */
/*
 * read_beside_writes.h - the scenario of the ACK tests (sys_ack_coalesce,
 * sys_ack_beside_read, sys_ack_coalesce_qps): rnic1 streams the responses
 * of a 64 KiB RDMA READ while rnic0 sends it one-packet RDMA WRITEs that
 * each ask for an ACK, on the QPs the test chooses.
 */
#ifndef READ_BESIDE_WRITES_H
#define READ_BESIDE_WRITES_H

#include "common.h"

struct t_rbw {
	int read_at;		/* the READ's completion: the read_at-th, from 0 */
	uint64_t c_read;	/* cycles from the first post to its completion */
	uint64_t c_first_write, c_last_write;
	uint64_t frames;	/* frames rnic1 sent meanwhile */
};

/* Posts a 64 KiB READ on rnic0's QP of @p (side 0 reads side 1's buffer,
 * MTU 4096 expected), then @nw signaled 64-byte WRITEs, WRITE i on
 * wq[i % nwq] (QPs of rnic0 connected to rnic1 whose send CQ is side 0's;
 * the pair's own QP may be one of them); polls the completions one at a
 * time and checks: each is successful, the WRITEs of each QP complete in
 * order, after the READ if they share its QP, and every byte is in place. */
void t_read_beside_writes(struct t_pair *p, struct ibv_qp **wq, int nwq, int nw,
			  struct t_rbw *r);

#endif
