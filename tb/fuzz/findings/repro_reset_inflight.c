// SPDX-License-Identifier: MIT
/*
 * Finding reset-inflight: work the RNIC took before a QP was reset still
 * runs after the reset.
 *
 * One WR is posted and the QP is moved to RESET at once (the doorbell is
 * ahead of the QP_WRITE command in MMIO order, the WQE read is in flight).
 * After ibv_modify_qp(RESET) returned, nothing of the QP may happen. Seen:
 *   - an atomic with a 4-byte SGE (a local length error) completes with
 *     IBV_WC_LOC_LEN_ERR on the CQ of the QP in RESET;
 *   - an RDMA WRITE is sent on the wire by the QP in RESET.
 * With ibv_destroy_qp() instead of RESET the WQE read hit the unmapped
 * ring (an IOMMU fault): mode 2 posts two WRs and destroys the QP at once
 * (fixed in the command interface: a QP_WRITE that resets the QP completes
 * only once no DMA is in flight).
 */
#include "repro_common.h"
#include "rnic_model.h"

int main(void)
{
	struct r_side s[2];
	struct ibv_mr *m0, *m1;
	void *b0, *b1;
	int mode, bad = 0;

	r_open(&s[0], 0, 16);
	r_open(&s[1], 1, 16);
	m0 = r_buf(&s[0], 8192, &b0);
	m1 = r_buf(&s[1], 8192, &b1);
	for (mode = 0; mode < 3; mode++) {
		struct ibv_sge sge = { (uintptr_t)b0, mode ? 64 : 4, m0->lkey };
		struct ibv_send_wr wr, *bad_wr;
		struct ibv_qp_attr a;
		uint64_t frames;
		int n;

		r_pair(s, 14, 7);
		memset(&wr, 0, sizeof(wr));
		wr.wr_id = 42;
		wr.sg_list = &sge;
		wr.num_sge = 1;
		wr.send_flags = IBV_SEND_SIGNALED;
		if (!mode) {
			wr.opcode = IBV_WR_ATOMIC_FETCH_AND_ADD;
			wr.wr.atomic.remote_addr = (uintptr_t)b1;
			wr.wr.atomic.rkey = m1->rkey;
		} else {
			wr.opcode = IBV_WR_RDMA_WRITE;
			wr.wr.rdma.remote_addr = (uintptr_t)b1;
			wr.wr.rdma.rkey = m1->rkey;
		}
		R_CHECK(!ibv_post_send(s[0].qp, &wr, &bad_wr));
		if (mode == 2) {
			uint64_t faults = rnic_sim_iommu_faults(rnic_sim_global(), 0);

			R_CHECK(!ibv_post_send(s[0].qp, &wr, &bad_wr));
			R_CHECK(!r_destroy_qp(&s[0]));
			n = r_drain(s[0].cq, 2000, "after destroy");
			faults = rnic_sim_iommu_faults(rnic_sim_global(), 0) - faults;
			printf("two RDMA WRITEs posted, QP destroyed at once: %d completion(s), "
			       "%llu IOMMU fault(s) (want 0 and 0)\n", n,
			       (unsigned long long)faults);
			bad |= n || faults;
			R_CHECK(!r_destroy_qp(&s[1]));
			continue;
		}
		memset(&a, 0, sizeof(a));
		a.qp_state = IBV_QPS_RESET;
		R_CHECK(!ibv_modify_qp(s[0].qp, &a, IBV_QP_STATE));
		frames = rnic_sim_wire_frames(rnic_sim_global(), 0);
		n = r_drain(s[0].cq, 2000, "after RESET");
		frames = rnic_sim_wire_frames(rnic_sim_global(), 0) - frames;
		printf("%s posted, QP reset at once: %d completion(s), %llu frame(s) sent "
		       "after the reset (want 0 and 0)\n", mode ? "RDMA WRITE" : "atomic "
		       "with a 4-byte SGE", n, (unsigned long long)frames);
		bad |= n || frames;
		R_CHECK(!r_destroy_qp(&s[0]) && !r_destroy_qp(&s[1]));
	}
	return r_verdict("reset-inflight", bad);
}
