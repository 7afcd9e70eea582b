// SPDX-License-Identifier: MIT
/*
 * flow_write.c - one RDMA WRITE of 2048 bytes, rnic0 -> rnic1 memory, path
 * MTU 1024: doorbell, WQE fetch, WRITE_FIRST and WRITE_LAST frames (payload
 * read per frame), the responder's rkey check and placement, one ACK, the
 * send CQE. No receive WQE is involved.
 */
#define _DEFAULT_SOURCE

#include "flow_common.h"

#include <stdio.h>
#include <string.h>

#define LEN 2048
#define CANARY 0x3c

int main(void)
{
	struct ibv_wc wc;
	struct ibv_sge sg;
	struct flow f;

	flow_open(&f, 0x3717e, 0);
	memset(f.dst.p, CANARY, FLOW_BUF_LEN);

	sg = t_sge(&f.src, 0, LEN);
	POST_SEND(f.p.s[0].qp, 1, IBV_WR_RDMA_WRITE, IBV_SEND_SIGNALED, &sg, 1,
		  t_addr(&f.dst, 512), f.dst.mr->rkey, 0);
	POLL(f.p.s[0].scq, 1, &wc);
	EXPECT_WC(&wc, 1, IBV_WC_SUCCESS, IBV_WC_RDMA_WRITE, f.qpn0, T_ANY, 0, T_ANY);
	/* RC: the WRITE completes after its ACK, so the bytes are placed. */
	CHECK_MEM(f.dst.p + 512, f.src.p, LEN);
	CHECK_FILL(f.dst.p, CANARY, 512);
	CHECK_FILL(f.dst.p + 512 + LEN, CANARY, FLOW_BUF_LEN - 512 - LEN);
	EXPECT_EMPTY(f.p.s[1].rcq, 1);

	flow_close(&f);
	printf("flow_write: RDMA WRITE %d B rnic0 -> rnic1 memory: completion and data ok\n", LEN);
	return 0;
}
