// SPDX-License-Identifier: MIT
/*
 * flow_retransmit.c - one RDMA WRITE of 1024 bytes whose first copy is lost.
 *
 * The loss comes from the environment, so that the program stays plain
 * verbs code: its CTest and waveforms/trace_flow.sh run it with
 * RNIC_WIRE_DOWN_0_TX=0:1500, node 0's link dropping everything it sends
 * before cycle 1500 (setup sends nothing; the WRITE goes out at about cycle
 * 460). The requester's local ACK timer (timeout 1: 2048 cycles) expires,
 * the completer rewinds the send queue to the WRITE, it is fetched and sent
 * again, and this copy is placed and acknowledged. Without the loss the
 * program passes too, with one copy.
 */
#define _DEFAULT_SOURCE

#include "flow_common.h"

#include <stdio.h>
#include <string.h>

#define LEN 1024
#define CANARY 0x6b

int main(void)
{
	struct t_pair_cfg cfg;
	struct ibv_wc wc;
	struct ibv_sge sg;
	struct flow f;

	t_pair_default_cfg(&cfg);
	cfg.attrs[0].timeout = 1;	/* 4.096 us << 1 = 2048 cycles */
	cfg.attrs[0].retry_cnt = 3;
	flow_open_cfg(&f, &cfg, T_MR_ACCESS, 0x7e7, 0);
	memset(f.dst.p, CANARY, FLOW_BUF_LEN);

	sg = t_sge(&f.src, 0, LEN);
	POST_SEND(f.p.s[0].qp, 1, IBV_WR_RDMA_WRITE, IBV_SEND_SIGNALED, &sg, 1,
		  t_addr(&f.dst, 0), f.dst.mr->rkey, 0);
	POLL(f.p.s[0].scq, 1, &wc);
	EXPECT_WC(&wc, 1, IBV_WC_SUCCESS, IBV_WC_RDMA_WRITE, f.qpn0, T_ANY, 0, T_ANY);
	CHECK_MEM(f.dst.p, f.src.p, LEN);
	CHECK_FILL(f.dst.p + LEN, CANARY, FLOW_BUF_LEN - LEN);

	flow_close(&f);
	printf("flow_retransmit: RDMA WRITE %d B rnic0 -> rnic1, first copy lost: completion and data ok\n",
	       LEN);
	return 0;
}
