// SPDX-License-Identifier: MIT
/*
 * flow_bad_rkey.c - an error completion: an RDMA WRITE of 128 bytes with a
 * wrong rkey. The responder's rkey check fails, it places nothing and sends
 * a NAK (remote access error); the requester completes the WRITE with
 * IBV_WC_REM_ACCESS_ERR and the QP goes to the error state, so the WRITE
 * posted behind it completes with IBV_WC_WR_FLUSH_ERR.
 */
#define _DEFAULT_SOURCE

#include "flow_common.h"

#include <stdio.h>
#include <string.h>

#define LEN 128
#define CANARY 0x5a

int main(void)
{
	struct ibv_send_wr wr[2], *bad = NULL;
	struct ibv_sge sge[2];
	struct ibv_wc wc[2];
	struct flow f;
	int i;

	flow_open(&f, 0xbad, 0);
	memset(f.dst.p, CANARY, FLOW_BUF_LEN);

	memset(wr, 0, sizeof(wr));
	for (i = 0; i < 2; i++) {
		sge[i] = t_sge(&f.src, (size_t)i * LEN, LEN);
		wr[i].wr_id = 1 + i;
		wr[i].next = i ? NULL : &wr[1];
		wr[i].sg_list = &sge[i];
		wr[i].num_sge = 1;
		wr[i].opcode = IBV_WR_RDMA_WRITE;
		wr[i].send_flags = IBV_SEND_SIGNALED;
		wr[i].wr.rdma.remote_addr = t_addr(&f.dst, (size_t)i * 1024);
		wr[i].wr.rdma.rkey = f.dst.mr->rkey;
	}
	wr[0].wr.rdma.rkey ^= 0xff;	/* wrong key byte */
	CHECK_OK(ibv_post_send(f.p.s[0].qp, wr, &bad));

	POLL(f.p.s[0].scq, 2, wc);
	EXPECT_WC(&wc[0], 1, IBV_WC_REM_ACCESS_ERR, T_ANY, f.qpn0, T_ANY, T_ANY, T_ANY);
	EXPECT_WC(&wc[1], 2, IBV_WC_WR_FLUSH_ERR, T_ANY, f.qpn0, T_ANY, T_ANY, T_ANY);
	/* The failed WRITE placed nothing. */
	CHECK_FILL(f.dst.p, CANARY, 1024);
	EXPECT_EMPTY(f.p.s[1].rcq, 1);

	flow_close(&f);
	printf("flow_bad_rkey: WRITE with a wrong rkey -> IBV_WC_REM_ACCESS_ERR, next WR flushed: ok\n");
	return 0;
}
