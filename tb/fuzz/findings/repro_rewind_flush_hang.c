// SPDX-License-Identifier: MIT
/*
 * Finding rewind-flush-hang (fixed in 65de901, "the fetch index may fall
 * behind done_ci during a rewind"): a QP moved to ERR while it waited out
 * an RNR NAK flushed the WR it was holding, but a WR posted afterwards never
 * completed - the RNR rewind had moved rnic_sq_fetch's fetch index behind
 * the done index the flush advanced, and (fetch - done) < InflDepth stayed
 * false. Found on 822dc3a also with an ACK-timeout rewind followed by a
 * local error. Now a regression test: after the ERR every WR comes back.
 */
#include "repro_common.h"

int main(void)
{
	struct r_side s[2];
	struct ibv_send_wr wr, *bad_wr;
	struct ibv_qp_attr a;
	struct ibv_wc wc;
	struct ibv_mr *m0;
	void *b0;
	int n;

	r_open(&s[0], 0, 16);
	r_open(&s[1], 1, 16);
	m0 = r_buf(&s[0], 8192, &b0);
	r_pair(s, 14, 2);
	{
		struct ibv_sge sge = { (uintptr_t)b0, 64, m0->lkey };

		memset(&wr, 0, sizeof(wr));
		wr.wr_id = 1;
		wr.sg_list = &sge;
		wr.num_sge = 1;
		wr.opcode = IBV_WR_SEND;	/* no receive posted: RNR NAK */
		wr.send_flags = IBV_SEND_SIGNALED;
		R_CHECK(!ibv_post_send(s[0].qp, &wr, &bad_wr));
		ibv_poll_cq(s[0].cq, 1, &wc);	/* the RNR wait begins */
		memset(&a, 0, sizeof(a));
		a.qp_state = IBV_QPS_ERR;
		R_CHECK(!ibv_modify_qp(s[0].qp, &a, IBV_QP_STATE));
		wr.wr_id = 2;
		R_CHECK(!ibv_post_send(s[0].qp, &wr, &bad_wr));
	}
	n = r_wait(s[0].cq, 2, 20000, "sender");
	printf("%d of 2 WRs completed after the QP went to ERR during an RNR wait\n", n);
	return r_verdict("rewind-flush-hang", n != 2);
}
