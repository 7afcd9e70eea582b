// SPDX-License-Identifier: MIT
/*
 * Finding reset-cqe-late: completions of a QP land in its CQ after
 * ibv_modify_qp(RESET) returned.
 *
 * ibv_modify_qp(RESET) removes the CQEs of the QP not yet polled (like
 * mlx5: rv_cq_clean()) and restarts its queue indices; from then on the CQ
 * may hold nothing of that QP. But the command's completion (the driver's
 * CMD_STATUS read) is not ordered after the QP's CQE writes: flush CQEs the
 * RNIC produced just before the QP_WRITE command (the receive WRs of a QP in
 * ERR, posted right before the reset) are still on their way to host memory
 * (the CQE writer's DMA, mem_wr_latency) when the status read returns, so
 * the library's clean misses them and they appear afterwards. The library
 * then reports them with the wr_id of whatever WR the QP has at that index
 * by then (a stale or never-posted WR), and its queue accounting is off.
 *
 * Here: a QP in ERR, two receive WRs posted, then ibv_modify_qp(RESET) at
 * once; any completion polled after that is the finding.
 */
#include "repro_common.h"

int main(void)
{
	struct r_side s[2];
	struct ibv_mr *m0;
	void *b0;
	int mode, bad = 0;

	r_open(&s[0], 0, 16);
	r_open(&s[1], 1, 16);
	m0 = r_buf(&s[0], 8192, &b0);
	for (mode = 0; mode < 2; mode++) {
		struct ibv_sge sge = { (uintptr_t)b0, 64, m0->lkey };
		struct ibv_recv_wr rwr[2], *bad_rwr;
		struct ibv_send_wr swr, *bad_swr;
		struct ibv_qp_attr a;
		int n;

		r_pair(s, 14, 7);
		memset(&a, 0, sizeof(a));
		a.qp_state = IBV_QPS_ERR;
		R_CHECK(!ibv_modify_qp(s[0].qp, &a, IBV_QP_STATE));
		n = r_drain(s[0].cq, 40, "after ERR");	/* nothing was posted */
		R_CHECK(n == 0);
		if (!mode) {
			memset(rwr, 0, sizeof(rwr));
			rwr[0].wr_id = 1;
			rwr[0].sg_list = &sge;
			rwr[0].num_sge = 1;
			rwr[0].next = &rwr[1];
			rwr[1].wr_id = 2;
			R_CHECK(!ibv_post_recv(s[0].qp, rwr, &bad_rwr));
		} else {
			memset(&swr, 0, sizeof(swr));
			swr.wr_id = 3;
			swr.opcode = IBV_WR_SEND;
			swr.sg_list = &sge;
			swr.num_sge = 1;
			swr.send_flags = IBV_SEND_SIGNALED;
			R_CHECK(!ibv_post_send(s[0].qp, &swr, &bad_swr));
		}
		memset(&a, 0, sizeof(a));
		a.qp_state = IBV_QPS_RESET;
		R_CHECK(!ibv_modify_qp(s[0].qp, &a, IBV_QP_STATE));
		n = r_drain(s[0].cq, 200, "after RESET");
		printf("QP in ERR, %s posted, QP reset at once: %d completion(s) after "
		       "ibv_modify_qp(RESET) returned (want 0)\n",
		       mode ? "a signaled SEND" : "two receive WRs", n);
		bad |= n != 0;
		R_CHECK(!r_destroy_qp(&s[0]) && !r_destroy_qp(&s[1]));
	}
	return r_verdict("reset-cqe-late", bad);
}
