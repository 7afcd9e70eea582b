// SPDX-License-Identifier: MIT
/*
 * Finding sendinv-no-recv: a SEND_WITH_INV that finds no receive WQE
 * consumes one that was never posted.
 *
 * No receive is posted at rnic1; rnic0 sends SEND_WITH_INV (rnr_retry 0).
 * A plain SEND gets an RNR NAK (the sender completes with
 * IBV_WC_RNR_RETRY_EXC_ERR) and the receiver sees nothing - right. The
 * SEND_WITH_INV instead takes RQ slot 0 (garbage: IBV_WC_LOC_PROT_ERR for a
 * WR that does not exist), the receive consumer index passes the producer
 * index, and the QP in ERR then flushes 65535 receive WQEs: 65536
 * completions on a CQ that expects none (with a smaller CQ it overruns),
 * and the sender gets IBV_WC_REM_INV_REQ_ERR. The 65535-entry flush also
 * blocks the node's doorbells and commands (finding db-starvation).
 * Block: rnic_rx_engine, the SEND_WITH_INV request path (no rq_empty/RNR
 * check).
 */
#include "repro_common.h"

int main(void)
{
	struct r_side s[2];
	int op, n0, n1, i, bad = 0;

	r_open(&s[0], 0, 16);
	r_open(&s[1], 1, 4096);
	for (op = 0; op < 2; op++) {
		void *b0;
		struct ibv_mr *m0 = r_buf(&s[0], 8192, &b0);
		struct ibv_sge sge = { (uintptr_t)b0, 64, m0->lkey };
		struct ibv_send_wr wr, *bad_wr;

		r_pair(s, 14, 0);
		memset(&wr, 0, sizeof(wr));
		wr.wr_id = 1;
		wr.sg_list = &sge;
		wr.num_sge = 1;
		wr.opcode = op ? IBV_WR_SEND_WITH_INV : IBV_WR_SEND;
		wr.invalidate_rkey = 0x12345;	/* no such key */
		wr.send_flags = IBV_SEND_SIGNALED;
		R_CHECK(!ibv_post_send(s[0].qp, &wr, &bad_wr));
		/* Both CQs in turn, so that the receiver's does not overrun. */
		for (n0 = n1 = 0, i = 0; i < 2000; i++) {
			n0 += r_drain(s[0].cq, 1, "sender");
			n1 += r_drain(s[1].cq, 1, "receiver");
		}
		printf("%s with no receive posted: %d sender completion(s), %d receiver "
		       "completion(s) (want 1 and 0)\n", op ? "SEND_WITH_INV" : "SEND",
		       n0, n1);
		bad |= n1 != 0;
		R_CHECK(!r_destroy_qp(&s[0]) && !r_destroy_qp(&s[1]));
		R_CHECK(!r_dereg(m0));
	}
	return r_verdict("sendinv-no-recv", bad);
}
