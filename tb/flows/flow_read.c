// SPDX-License-Identifier: MIT
/*
 * flow_read.c - one RDMA READ of 2048 bytes from rnic1 memory into rnic0,
 * path MTU 1024: doorbell, WQE fetch, one READ request frame, the
 * responder's rkey check and READ job, its payload reads and
 * READ_RESPONSE_FIRST/LAST frames, placement at the requester, the send CQE.
 */
#define _DEFAULT_SOURCE

#include "flow_common.h"

#include <stdio.h>
#include <string.h>

#define LEN 2048
#define CANARY 0xa5

int main(void)
{
	struct ibv_wc wc;
	struct ibv_sge sg;
	struct flow f;

	flow_open(&f, 0, 0x4ead);
	memset(f.src.p, CANARY, FLOW_BUF_LEN);

	sg = t_sge(&f.src, 256, LEN);
	POST_SEND(f.p.s[0].qp, 1, IBV_WR_RDMA_READ, IBV_SEND_SIGNALED, &sg, 1,
		  t_addr(&f.dst, 1024), f.dst.mr->rkey, 0);
	POLL(f.p.s[0].scq, 1, &wc);
	EXPECT_WC(&wc, 1, IBV_WC_SUCCESS, IBV_WC_RDMA_READ, f.qpn0, LEN, 0, T_ANY);
	CHECK_MEM(f.src.p + 256, f.dst.p + 1024, LEN);
	CHECK_FILL(f.src.p, CANARY, 256);
	CHECK_FILL(f.src.p + 256 + LEN, CANARY, FLOW_BUF_LEN - 256 - LEN);

	flow_close(&f);
	printf("flow_read: RDMA READ %d B rnic1 memory -> rnic0: completion and data ok\n", LEN);
	return 0;
}
