// SPDX-License-Identifier: MIT
/*
 * flow_send_recv.c - one SEND of 200 bytes, rnic0 -> rnic1, into a posted
 * receive: doorbell, WQE fetch, payload read, one SEND_ONLY frame, the
 * responder's receive WQE read and placement, the receive CQE, the ACK and
 * the send CQE.
 */
#define _DEFAULT_SOURCE

#include "flow_common.h"

#include <stdio.h>
#include <string.h>

#define LEN 200

int main(void)
{
	struct ibv_wc wc;
	struct ibv_sge sg;
	struct flow f;

	flow_open(&f, 0x5e4d, 0);
	memset(f.dst.p, 0, FLOW_BUF_LEN);
	sg = t_sge(&f.dst, 0, 1024);
	POST_RECV(f.p.s[1].qp, 2, &sg, 1);

	sg = t_sge(&f.src, 0, LEN);
	POST_SEND(f.p.s[0].qp, 1, IBV_WR_SEND, IBV_SEND_SIGNALED, &sg, 1, 0, 0, 0);
	POLL(f.p.s[1].rcq, 1, &wc);
	EXPECT_WC(&wc, 2, IBV_WC_SUCCESS, IBV_WC_RECV, f.qpn1, LEN, 0, T_ANY);
	POLL(f.p.s[0].scq, 1, &wc);
	EXPECT_WC(&wc, 1, IBV_WC_SUCCESS, IBV_WC_SEND, f.qpn0, T_ANY, 0, T_ANY);
	CHECK_MEM(f.dst.p, f.src.p, LEN);
	CHECK_FILL(f.dst.p + LEN, 0, 1024 - LEN);

	flow_close(&f);
	printf("flow_send_recv: SEND %d B rnic0 -> rnic1: receive and send completions, data ok\n",
	       LEN);
	return 0;
}
