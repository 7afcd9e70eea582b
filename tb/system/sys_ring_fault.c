// SPDX-License-Identifier: MIT
/*
 * sys_ring_fault.c - a WQE read the IOMMU refuses ends in an error
 * completion, nothing is placed from it and the simulator goes on.
 *
 * The verbs cannot make such a fault (a QP's rings stay mapped while it
 * exists), so the test takes the pages of one ring out of the IOMMU with
 * rnic_verbs_qp_ring_fault(). Cases, each on its own QPs:
 *   recv_ring  the responder's receive queue ring is out when a receive is
 *              posted: the SEND that would consume it finds a WQE it could
 *              not read. The responder completes the receive with
 *              IBV_WC_LOC_QP_OP_ERR and NAKs (remote operational error):
 *              the sender's WR ends in IBV_WC_REM_OP_ERR; both QPs go to
 *              ERR; the receive buffer is untouched.
 *   send_ring  the requester's send queue ring is out when a SEND is posted:
 *              the WQE read fails, the WR completes with
 *              IBV_WC_LOC_QP_OP_ERR, the QP goes to ERR and no frame
 *              leaves; the peer's receive stays posted.
 * Each case checks the IOMMU fault counter of the node that read. The
 * faults are made on purpose, so the CTest runs without RNIC_IOMMU_STRICT.
 */
#define _DEFAULT_SOURCE

#include <stdio.h>
#include <string.h>

#include "common.h"
#include "rnic_verbs_ext.h"

#define CANARY 0x6b

static void recv_ring(void)
{
	struct t_pair_cfg cfg;
	struct t_buf src, dst;
	struct t_pair p;
	struct ibv_sge sg;
	struct ibv_wc wc;
	uint64_t io = rnic_verbs_iommu_faults(1);

	t_pair_default_cfg(&cfg);
	t_pair_open(&p, &cfg);
	t_buf_alloc(&src, p.s[0].pd, 256);
	t_buf_alloc(&dst, p.s[1].pd, 256);
	t_fill(src.p, 256, 0x4242);
	memset(dst.p, CANARY, 256);

	/* Misuse of the hook is refused. */
	CHECK_EQ(rnic_verbs_qp_ring_fault(NULL, 1, 1), EINVAL);
	CHECK_OK(rnic_verbs_qp_ring_fault(p.s[1].qp, 1, 1));
	CHECK_EQ(rnic_verbs_qp_ring_fault(p.s[1].qp, 0, 1), EBUSY);

	sg = t_sge(&dst, 0, 256);
	POST_RECV(p.s[1].qp, 7, &sg, 1);
	sg = t_sge(&src, 0, 64);
	POST_SEND(p.s[0].qp, 8, IBV_WR_SEND, IBV_SEND_SIGNALED, &sg, 1, 0, 0, 0);
	POLL(p.s[1].rcq, 1, &wc);
	EXPECT_WC(&wc, 7, IBV_WC_LOC_QP_OP_ERR, T_ANY, p.s[1].qp->qp_num, T_ANY,
		  T_ANY, T_ANY);
	POLL(p.s[0].scq, 1, &wc);
	EXPECT_WC(&wc, 8, IBV_WC_REM_OP_ERR, T_ANY, p.s[0].qp->qp_num, T_ANY,
		  T_ANY, T_ANY);
	CHECKF(rnic_verbs_iommu_faults(1) > io, "no IOMMU fault at the responder");
	CHECK_FILL(dst.p, CANARY, 256);
	CHECK_EQ(t_qp_state(p.s[0].qp), IBV_QPS_ERR);
	CHECK_EQ(t_qp_state(p.s[1].qp), IBV_QPS_ERR);
	CHECK_OK(rnic_verbs_qp_ring_fault(p.s[1].qp, 1, 0));
	printf("recv_ring: LOC_QP_OP_ERR at the responder, REM_OP_ERR at the "
	       "requester, %llu IOMMU faults, buffer untouched: ok\n",
	       (unsigned long long)(rnic_verbs_iommu_faults(1) - io));

	t_buf_free(&src);
	t_buf_free(&dst);
	t_pair_close(&p);
}

static void send_ring(void)
{
	struct t_pair_cfg cfg;
	struct t_buf src, dst;
	struct t_pair p;
	struct ibv_sge sg;
	struct ibv_wc wc;
	uint64_t io = rnic_verbs_iommu_faults(0);
	uint64_t frames;

	t_pair_default_cfg(&cfg);
	t_pair_open(&p, &cfg);
	t_buf_alloc(&src, p.s[0].pd, 256);
	t_buf_alloc(&dst, p.s[1].pd, 256);
	t_fill(src.p, 256, 0x2424);
	memset(dst.p, CANARY, 256);

	sg = t_sge(&dst, 0, 256);
	POST_RECV(p.s[1].qp, 1, &sg, 1);
	CHECK_OK(rnic_verbs_qp_ring_fault(p.s[0].qp, 0, 1));
	frames = rnic_verbs_wire_frames(0);
	sg = t_sge(&src, 0, 64);
	POST_SEND(p.s[0].qp, 2, IBV_WR_SEND, IBV_SEND_SIGNALED, &sg, 1, 0, 0, 0);
	POLL(p.s[0].scq, 1, &wc);
	EXPECT_WC(&wc, 2, IBV_WC_LOC_QP_OP_ERR, T_ANY, p.s[0].qp->qp_num, T_ANY,
		  T_ANY, T_ANY);
	CHECKF(rnic_verbs_iommu_faults(0) > io, "no IOMMU fault at the requester");
	CHECK_EQ(rnic_verbs_wire_frames(0), frames);
	EXPECT_EMPTY(p.s[1].rcq, T_EMPTY_POLLS);
	CHECK_FILL(dst.p, CANARY, 256);
	CHECK_EQ(t_qp_state(p.s[0].qp), IBV_QPS_ERR);
	CHECK_EQ(t_qp_state(p.s[1].qp), IBV_QPS_RTS);
	CHECK_OK(rnic_verbs_qp_ring_fault(p.s[0].qp, 0, 0));
	printf("send_ring: LOC_QP_OP_ERR, no frame sent, %llu IOMMU faults, the "
	       "peer's receive still posted: ok\n",
	       (unsigned long long)(rnic_verbs_iommu_faults(0) - io));

	t_buf_free(&src);
	t_buf_free(&dst);
	t_pair_close(&p);
}

int main(void)
{
	recv_ring();
	send_ring();
	printf("sys_ring_fault: ok\n");
	return 0;
}
