// SPDX-License-Identifier: MIT
/*
 * Finding rx-slot-leak: each ACK of a WQE that has a locally failing WQE
 * right behind it leaves one of the RX parser's three frame slots busy.
 *
 * Three times: a new QP pair, an RDMA WRITE followed by an atomic with a
 * 4-byte SGE (IBV_WC_LOC_LEN_ERR at the requester). The WRITE completes,
 * the atomic fails, the QP goes to ERR - as it should. But the ACK frame of
 * the WRITE, which the completer processed while the error record was
 * behind it in the in-flight ring, is never released (rnic_rx_engine ->
 * rnic_rx_parser release). After three such ACKs every slot of rnic1's RX
 * is busy: rx_ready_o stays low and the node receives nothing more, for any
 * QP (here: a plain SEND from rnic0 never arrives).
 */
#include "repro_common.h"

int main(void)
{
	struct r_side s[2];
	struct ibv_mr *m[2];
	void *b[2];
	int r, n;

	r_open(&s[0], 0, 64);
	r_open(&s[1], 1, 64);
	m[0] = r_buf(&s[0], 8192, &b[0]);
	m[1] = r_buf(&s[1], 8192, &b[1]);
	for (r = 0; r < 3; r++) {
		struct ibv_sge sge = { (uintptr_t)b[1], 64, m[1]->lkey }, s4 = sge;
		struct ibv_send_wr w[2], *bad_wr;

		/* rnic1's QP sends: the ACKs come into rnic1 */
		r_pair(s, 14, 0);
		memset(w, 0, sizeof(w));
		w[0].wr_id = 1;
		w[0].sg_list = &sge;
		w[0].num_sge = 1;
		w[0].opcode = IBV_WR_RDMA_WRITE;
		w[0].send_flags = IBV_SEND_SIGNALED;
		w[0].wr.rdma.remote_addr = (uintptr_t)b[0];
		w[0].wr.rdma.rkey = m[0]->rkey;
		w[0].next = &w[1];
		s4.length = 4;		/* an atomic needs one 8-byte SGE */
		w[1].wr_id = 2;
		w[1].sg_list = &s4;
		w[1].num_sge = 1;
		w[1].opcode = IBV_WR_ATOMIC_FETCH_AND_ADD;
		w[1].send_flags = IBV_SEND_SIGNALED;
		w[1].wr.atomic.remote_addr = (uintptr_t)b[0];
		w[1].wr.atomic.rkey = m[0]->rkey;
		R_CHECK(!ibv_post_send(s[1].qp, w, &bad_wr));
		printf("round %d:\n", r);
		r_drain(s[1].cq, 200, "rnic1");
		R_CHECK(!r_destroy_qp(&s[0]) && !r_destroy_qp(&s[1]));
	}
	/* A plain SEND from rnic0 to rnic1 */
	{
		struct ibv_sge rs = { (uintptr_t)b[1], 64, m[1]->lkey };
		struct ibv_sge ss = { (uintptr_t)b[0], 64, m[0]->lkey };
		struct ibv_recv_wr rw, *rb;
		struct ibv_send_wr sw, *sb;

		r_pair(s, 14, 0);
		memset(&rw, 0, sizeof(rw));
		rw.wr_id = 10;
		rw.sg_list = &rs;
		rw.num_sge = 1;
		R_CHECK(!ibv_post_recv(s[1].qp, &rw, &rb));
		memset(&sw, 0, sizeof(sw));
		sw.wr_id = 11;
		sw.sg_list = &ss;
		sw.num_sge = 1;
		sw.opcode = IBV_WR_SEND;
		sw.send_flags = IBV_SEND_SIGNALED;
		R_CHECK(!ibv_post_send(s[0].qp, &sw, &sb));
		n = r_drain(s[1].cq, 4000, "rnic1 receive");
		printf("a SEND to rnic1 after three rounds: %s\n",
		       n ? "received" : "never received (rnic1 takes no more frames)");
	}
	return r_verdict("rx-slot-leak", !n);
}
