// SPDX-License-Identifier: MIT
/*
 * Finding mr-dereg-inflight: the RNIC goes on DMAing into an MR after
 * ibv_dereg_mr() returned.
 *
 * A 64 KiB RDMA WRITE is posted, then (a few hundred cycles later, while
 * it is being sent) its source MR is deregistered - or, in the second case,
 * the target MR at the responder. The requester checked the lkey once, at
 * WQE decode, and the TX builder then reads the payload from the saved bus
 * addresses; the responder checked the rkey on the first packet and places
 * the middle and last packets with its write cursor. So the DMA reaches the
 * pages the driver unmapped right after invalidating the MR: the IOMMU
 * refuses it (faults are counted; without the IOMMU it would be memory the
 * application may already have freed), and the WR still completes with
 * IBV_WC_SUCCESS. Expected: no DMA after ibv_dereg_mr() returns (the WR
 * fails with a protection error, or deregistration waits for it).
 */
#include "repro_common.h"
#include "rnic_model.h"

int main(void)
{
	struct r_side s[2];
	int mode, bad = 0;

	r_open(&s[0], 0, 16);
	r_open(&s[1], 1, 16);
	for (mode = 0; mode < 2; mode++) {
		struct rnic_sim *sim = rnic_sim_global();
		uint64_t f0 = rnic_sim_iommu_faults(sim, 0), f1 = rnic_sim_iommu_faults(sim, 1);
		enum { LEN = 65536 };
		void *b0, *b1;
		struct ibv_mr *m0 = r_buf(&s[0], LEN, &b0), *m1 = r_buf(&s[1], LEN, &b1);
		struct ibv_sge sge = { (uintptr_t)b0, LEN, m0->lkey };
		struct ibv_send_wr wr, *bad_wr;
		struct ibv_wc wc;
		int i;

		r_pair(s, 8, 7);
		memset(&wr, 0, sizeof(wr));
		wr.wr_id = 1;
		wr.sg_list = &sge;
		wr.num_sge = 1;
		wr.opcode = IBV_WR_RDMA_WRITE;
		wr.send_flags = IBV_SEND_SIGNALED;
		wr.wr.rdma.remote_addr = (uintptr_t)b1;
		wr.wr.rdma.rkey = m1->rkey;
		R_CHECK(!ibv_post_send(s[0].qp, &wr, &bad_wr));
		for (i = 0; i < (mode ? 3 : 1); i++)	/* the WRITE is under way */
			ibv_poll_cq(s[0].cq, 1, &wc);
		R_CHECK(!r_dereg(mode ? m1 : m0));
		r_drain(s[0].cq, 2000, "sender");
		f0 = rnic_sim_iommu_faults(sim, 0) - f0;
		f1 = rnic_sim_iommu_faults(sim, 1) - f1;
		printf("%s MR deregistered during a 64 KiB WRITE: IOMMU faults node 0 %llu, "
		       "node 1 %llu (want 0)\n", mode ? "target" : "source",
		       (unsigned long long)f0, (unsigned long long)f1);
		bad |= f0 || f1;
		R_CHECK(!r_dereg(mode ? m0 : m1));
		R_CHECK(!r_destroy_qp(&s[0]) && !r_destroy_qp(&s[1]));
	}
	return r_verdict("mr-dereg-inflight", bad);
}
