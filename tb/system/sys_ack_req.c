// SPDX-License-Identifier: MIT
/*
 * sys_ack_req.c - RC messages that do not ask for their ACK (AckReq clear)
 * are acknowledged by later ACKs or by the responder's delayed ACK
 * (docs/transport.md, "ACK requests").
 *
 *   stream       64 one-packet RDMA WRITEs, only the last signaled: rnic0
 *                asks for an ACK on every second one (the default build's
 *                in-flight window of 8 WQEs per QP), so rnic1 sends at most
 *                32 ACKs; every byte lands and the last WR completes;
 *   tail_bind    an unsignaled WRITE that does not ask for its ACK, then a
 *                signaled BIND_MW, which sends nothing: the bind completes
 *                after rnic1's delayed ACK retired the WRITE, thousands of
 *                times sooner than the ACK timeout, with no frame sent
 *                again (one frame each way);
 *   tail_error   the same WRITE, then a WRITE with a bad lkey: its
 *                IBV_WC_LOC_PROT_ERR comes as soon, after the first
 *                WRITE's bytes landed;
 *   alone        a lone such WRITE: rnic1 acknowledges it on its own (one
 *                frame) and the QP's next signaled WRITE completes;
 *   owed_err     rnic1's QP goes to ERR (its own WRITE with a bad lkey)
 *                after such a WRITE landed and before its delayed ACK is
 *                due: rnic1 sends nothing.
 *
 * Needs from the hardware: rnic_requester's AckReq policy (signaled WQEs
 * and every AckEvery-th WQE of a QP ask) and rnic_responder's delayed ACK
 * (StAckOwed, AckDelay cycles after a message that did not ask). A build
 * with 4 or fewer in-flight WQEs per QP (RNIC_INFL_DEPTH) asks on every
 * WQE; stream and owed_err do not hold there.
 */
#define _DEFAULT_SOURCE

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "common.h"
#include "rnic_verbs_ext.h"

#define NW 64
#define LEN 64
#define BUF_LEN 16384
/* Post -> completion of a message whose ACK comes from the delayed ACK:
 * the delay (256 cycles) and two wire and DMA round trips, with room. The
 * ACK timeout of the test QPs (timeout 14) is 16.8 M cycles. */
#define TAIL_CYCLES 3000

#define OPS (IBV_QP_EX_WITH_SEND | IBV_QP_EX_WITH_RDMA_WRITE | \
	     IBV_QP_EX_WITH_BIND_MW | IBV_QP_EX_WITH_LOCAL_INV)

struct res {
	struct t_pair p;
	struct t_buf a, b;	/* side 0, side 1 */
	uint32_t qpn0;
};

static void open_res(struct res *r)
{
	struct t_pair_cfg cfg;

	memset(r, 0, sizeof(*r));
	t_pair_default_cfg(&cfg);
	cfg.send_ops_flags = OPS;
	cfg.caps.max_send_wr = NW;
	cfg.cqe = 2 * NW;
	t_pair_open(&r->p, &cfg);
	r->qpn0 = r->p.s[0].qp->qp_num;
	t_buf_alloc_access(&r->a, r->p.s[0].pd, BUF_LEN, T_MR_ACCESS | IBV_ACCESS_MW_BIND);
	t_buf_alloc(&r->b, r->p.s[1].pd, BUF_LEN);
	t_fill(r->a.p, BUF_LEN, 0x5a5a);
	memset(r->b.p, 0, BUF_LEN);
}

static void close_res(struct res *r)
{
	t_buf_free(&r->b);
	t_buf_free(&r->a);
	t_pair_close(&r->p);
}

/* Side 0 writes a[off, off + LEN) to b[off, ...). */
static void write_at(struct res *r, uint64_t wr_id, size_t off, unsigned int flags)
{
	struct ibv_sge sg = t_sge(&r->a, off, LEN);

	POST_SEND(r->p.s[0].qp, wr_id, IBV_WR_RDMA_WRITE, flags, &sg, 1, t_addr(&r->b, off),
		  r->b.mr->rkey, 0);
}

static void stream(void)
{
	struct res r;
	struct ibv_wc wc;
	uint64_t f0, f1, s0, s1;
	int i;

	open_res(&r);
	f0 = rnic_verbs_wire_frames(1);
	s0 = rnic_verbs_wire_frames(0);
	for (i = 0; i < NW; i++)
		write_at(&r, (uint64_t)i, (size_t)i * LEN, i == NW - 1 ? IBV_SEND_SIGNALED : 0);
	POLL(r.p.s[0].scq, 1, &wc);
	EXPECT_WC(&wc, NW - 1, IBV_WC_SUCCESS, IBV_WC_RDMA_WRITE, r.qpn0, T_ANY, 0, T_ANY);
	CHECK_MEM(r.b.p, r.a.p, (size_t)NW * LEN);
	EXPECT_EMPTY(r.p.s[0].scq, 20);
	f1 = rnic_verbs_wire_frames(1);
	s1 = rnic_verbs_wire_frames(0);
	printf("stream: %d WRITEs, rnic0 sent %" PRIu64 " frames, rnic1 %" PRIu64 " ACKs\n", NW,
	       s1 - s0, f1 - f0);
	CHECK_EQ(s1 - s0, NW);
	CHECKF(f1 - f0 <= NW / 2 && f1 - f0 >= 1, "rnic1 sent %" PRIu64 " ACKs for %d WRITEs",
	       f1 - f0, NW);
	close_res(&r);
}

static void tail_bind(void)
{
	struct ibv_send_wr wr, *bad = NULL;
	struct ibv_mw *mw;
	struct res r;
	struct ibv_wc wc;
	uint64_t c0, c1, f0, s0;

	open_res(&r);
	mw = CHECK_PTR(ibv_alloc_mw(r.p.s[0].pd, IBV_MW_TYPE_2));
	f0 = rnic_verbs_wire_frames(1);
	s0 = rnic_verbs_wire_frames(0);
	c0 = rnic_verbs_sim_cycle();
	write_at(&r, 1, 0, 0);	/* WQE 0: does not ask for its ACK */
	memset(&wr, 0, sizeof(wr));
	wr.wr_id = 2;
	wr.opcode = IBV_WR_BIND_MW;
	wr.send_flags = IBV_SEND_SIGNALED;
	wr.bind_mw.mw = mw;
	wr.bind_mw.rkey = ibv_inc_rkey(mw->rkey);
	wr.bind_mw.bind_info.mr = r.a.mr;
	wr.bind_mw.bind_info.addr = t_addr(&r.a, 4096);
	wr.bind_mw.bind_info.length = 4096;
	wr.bind_mw.bind_info.mw_access_flags = IBV_ACCESS_REMOTE_WRITE;
	CHECK_OK(ibv_post_send(r.p.s[0].qp, &wr, &bad));
	POLL(r.p.s[0].scq, 1, &wc);
	c1 = rnic_verbs_sim_cycle();
	EXPECT_WC(&wc, 2, IBV_WC_SUCCESS, IBV_WC_BIND_MW, r.qpn0, T_ANY, 0, T_ANY);
	CHECK_MEM(r.b.p, r.a.p, LEN);
	printf("tail_bind: BIND_MW completed %" PRIu64 " cycles after the WRITE's post\n",
	       c1 - c0);
	CHECKF(c1 - c0 < TAIL_CYCLES, "BIND_MW completed after %" PRIu64 " cycles", c1 - c0);
	CHECK_EQ(rnic_verbs_wire_frames(0) - s0, 1);
	CHECK_EQ(rnic_verbs_wire_frames(1) - f0, 1);
	CHECK_OK(ibv_dealloc_mw(mw));
	close_res(&r);
}

static void tail_error(void)
{
	struct ibv_sge sg;
	struct res r;
	struct ibv_wc wc;
	uint64_t c0, c1;

	open_res(&r);
	c0 = rnic_verbs_sim_cycle();
	write_at(&r, 1, 0, 0);
	sg = t_sge(&r.a, LEN, LEN);
	sg.lkey ^= 0x100;	/* no such MR */
	POST_SEND(r.p.s[0].qp, 2, IBV_WR_RDMA_WRITE, IBV_SEND_SIGNALED, &sg, 1,
		  t_addr(&r.b, LEN), r.b.mr->rkey, 0);
	POLL(r.p.s[0].scq, 1, &wc);
	c1 = rnic_verbs_sim_cycle();
	EXPECT_WC(&wc, 2, IBV_WC_LOC_PROT_ERR, T_ANY, r.qpn0, T_ANY, T_ANY, T_ANY);
	CHECK_MEM(r.b.p, r.a.p, LEN);
	CHECK_FILL(r.b.p + LEN, 0, LEN);
	printf("tail_error: LOC_PROT_ERR %" PRIu64 " cycles after the first WRITE's post\n",
	       c1 - c0);
	CHECKF(c1 - c0 < TAIL_CYCLES, "error completion after %" PRIu64 " cycles", c1 - c0);
	close_res(&r);
}

static void alone(void)
{
	struct res r;
	struct ibv_wc wc;
	uint64_t f0, f1;

	open_res(&r);
	f0 = rnic_verbs_wire_frames(1);
	write_at(&r, 1, 0, 0);
	EXPECT_EMPTY(r.p.s[0].scq, 20);
	f1 = rnic_verbs_wire_frames(1);
	CHECK_EQ(f1 - f0, 1);	/* the delayed ACK */
	CHECK_MEM(r.b.p, r.a.p, LEN);
	write_at(&r, 2, LEN, IBV_SEND_SIGNALED);
	POLL(r.p.s[0].scq, 1, &wc);
	EXPECT_WC(&wc, 2, IBV_WC_SUCCESS, IBV_WC_RDMA_WRITE, r.qpn0, T_ANY, 0, T_ANY);
	CHECK_MEM(r.b.p, r.a.p, 2 * LEN);
	close_res(&r);
}

static void owed_err(void)
{
	struct ibv_sge sg;
	struct res r;
	struct ibv_wc wc;
	uint64_t f0;
	long polls = 0;

	open_res(&r);
	f0 = rnic_verbs_wire_frames(1);
	write_at(&r, 1, 0, 0);
	/* An empty poll of rnic1's CQ ends at rnic1's next DMA write: the
	 * WRITE's bytes. */
	while (memcmp(r.b.p, r.a.p, LEN) != 0) {
		EXPECT_EMPTY(r.p.s[1].scq, 1);
		CHECKF(++polls < 100, "the WRITE did not land");
	}
	sg = t_sge(&r.b, LEN, LEN);
	sg.lkey ^= 0x100;
	POST_SEND(r.p.s[1].qp, 2, IBV_WR_RDMA_WRITE, IBV_SEND_SIGNALED, &sg, 1,
		  t_addr(&r.a, 0), r.a.mr->rkey, 0);
	POLL(r.p.s[1].scq, 1, &wc);
	EXPECT_WC(&wc, 2, IBV_WC_LOC_PROT_ERR, T_ANY, r.p.s[1].qp->qp_num, T_ANY, T_ANY, T_ANY);
	EXPECT_EMPTY(r.p.s[1].scq, 20);
	CHECK_EQ(rnic_verbs_wire_frames(1) - f0, 0);
	close_res(&r);
}

int main(void)
{
	stream();
	tail_bind();
	tail_error();
	alone();
	owed_err();
	printf("sys_ack_req: ok\n");
	return 0;
}
