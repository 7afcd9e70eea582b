// SPDX-License-Identifier: MIT
/*
 * Finding rewind-flush-dup: after an RNR wait and a flush, a send WQE
 * completes twice.
 *
 * QP A (rnic0) sends to B, which has no receive posted: B answers with an
 * RNR NAK and A parks the WQE (a rewind with hold, rnr_retry 2). Meanwhile B
 * sends A a SEND of 1024 bytes into a 16-byte receive: A's responder fails
 * (IBV_WC_LOC_LEN_ERR), A goes to ERR and flushes its send queue. Then A
 * posts 8 more WRs (each flushed). Every WR must complete exactly once; seen
 * (59eb335): one flushed WQE completes a second time, the library reports
 * that stale CQE with the wr_id of a later WR that reuses the ring slot, and
 * its producer/consumer accounting is off from then on (the next post fails
 * with ENOMEM). With rnr_retry 0 (no rewind) all is right. Since 65de901 the
 * fetch index may stay behind the completer's done index after a rewind
 * (which fixed rewind-flush-hang); WQEs behind it are then issued again as
 * flush records, although the completer already retired them. Block:
 * rtl/sq/rnic_sq_fetch.sv with rtl/sq/rnic_requester.sv (flush of a QP in
 * ERR after a rewind). Found by harness A (seed 1, input 351: "SQ: CQE for
 * WQE 0, but WQEs up to 7 completed already").
 */
#include "repro_common.h"

int main(void)
{
	struct r_side s[2];
	struct ibv_send_wr wr, *bad_wr;
	struct ibv_recv_wr rw, *rb;
	struct ibv_wc wc;
	struct ibv_mr *m0, *m1;
	void *b0, *b1;
	int i, k, seen[16] = { 0 }, bad = 0;

	r_open(&s[0], 0, 256);
	r_open(&s[1], 1, 256);
	m0 = r_buf(&s[0], 8192, &b0);
	m1 = r_buf(&s[1], 8192, &b1);
	r_pair(s, 14, 2);
	{
		struct ibv_sge rs = { (uintptr_t)b0, 16, m0->lkey };

		memset(&rw, 0, sizeof(rw));
		rw.wr_id = 15;
		rw.sg_list = &rs;
		rw.num_sge = 1;
		R_CHECK(!ibv_post_recv(s[0].qp, &rw, &rb));	/* 16 bytes at A */
	}
	struct ibv_sge sa = { (uintptr_t)b0 + 4096, 64, m0->lkey };
	struct ibv_sge sb = { (uintptr_t)b1, 1024, m1->lkey };

	memset(&wr, 0, sizeof(wr));
	wr.sg_list = &sa;
	wr.num_sge = 1;
	wr.opcode = IBV_WR_SEND;
	wr.send_flags = IBV_SEND_SIGNALED;
	wr.wr_id = 0;
	R_CHECK(!ibv_post_send(s[0].qp, &wr, &bad_wr));	/* A -> B: RNR */
	for (i = 0; i < 2; i++)
		if (ibv_poll_cq(s[0].cq, 1, &wc) > 0)
			seen[wc.wr_id & 15]++;
	wr.sg_list = &sb;
	wr.wr_id = 50;
	R_CHECK(!ibv_post_send(s[1].qp, &wr, &bad_wr));	/* B -> A: 1024 bytes into 16 */
	wr.sg_list = &sa;
	for (k = 1; k <= 8; k++) {
		for (i = 0; i < 40; i++)
			while (ibv_poll_cq(s[0].cq, 1, &wc) > 0)
				seen[wc.wr_id & 15]++;
		wr.wr_id = k;
		if (ibv_post_send(s[0].qp, &wr, &bad_wr)) {
			printf("  post of WR %d refused\n", k);
			bad = 1;
			break;
		}
	}
	for (i = 0; i < 400; i++)
		while (ibv_poll_cq(s[0].cq, 1, &wc) > 0)
			seen[wc.wr_id & 15]++;
	for (i = 0; i <= 8; i++) {
		if (seen[i] != 1)
			printf("  WR %d completed %d times (want 1)\n", i, seen[i]);
		bad |= seen[i] != 1;
	}
	printf("receive WR: %d completion(s) (want 1)\n", seen[15]);
	return r_verdict("rewind-flush-dup", bad || seen[15] != 1);
}
