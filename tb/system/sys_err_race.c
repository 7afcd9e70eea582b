// SPDX-License-Identifier: MIT
/*
 * sys_err_race.c - a QP moved to ERR at any moment of its requests' lives
 * loses none of them (ibv_poll_cq: IBV_WC_WR_FLUSH_ERR, "A Work Request
 * was in process or outstanding when the QP transitioned into the Error
 * State"): each WR completes, successfully if its response
 * came before the move, else with IBV_WC_WR_FLUSH_ERR, in posting order,
 * and nothing more comes.
 *
 * An RDMA READ and an RDMA WRITE are posted, and the requester's QP is
 * moved to ERR d cycles after the doorbell (rnic_verbs_sim_step()), for
 * every d from 0 until both WRs complete before the move: the WQE fetch,
 * the request on the wire, the in-flight record's hand-over to the
 * completer, the response, the ACK. The QPs
 * have no ACK timer (timeout 0), so a WR the flush missed waits forever.
 * Two nodes, and one node with the QP connected to a second QP of its own.
 * Then a 4 KiB WRITE (16 packets) on RC and on UC, the same way: it
 * completes or is flushed, and the QP stops sending (at most the frames TX
 * holds leave).
 *
 * The fuzzer found the window (tb/fuzz/findings, read-stuck-in-err): a
 * READ's in-flight record handed over after the flush on the move had
 * walked the ring stayed there; now it is flushed when it arrives. Until
 * the same stop a message went out whole after the move.
 */
#include <stdio.h>
#include <string.h>

#include "common.h"
#include "rnic_verbs_ext.h"

#define LEN 256
/* The sweep ends once both WRs complete before the move; a sweep this
 * long means they never do. */
#define MAX_DELAY 20000
/* Empty polls allowed per WR after the move: a flush takes a few cycles. */
#define POLL_LIMIT 2000
/* A long WRITE: 16 packets of 256 bytes (path MTU 256). After the move
 * node 0 sends at most the frames already built in its TX ring (11:
 * rnic_top's TxFrames) and the packet the requester was handing to it. */
#define LONG_LEN 4096
#define LONG_FRAMES_AFTER 12

struct outcome {
	int flushed_both;	/* the READ (and the WRITE) flushed */
	int read_only;		/* READ done, WRITE flushed */
	int done_both;
};

struct long_outcome {
	int flushed, done;
	uint64_t frames_max;	/* node 0's frames after the move, at most */
};

static int poll_one(struct ibv_cq *cq, struct ibv_wc *wc)
{
	int i, rc;

	for (i = 0; i < POLL_LIMIT; i++) {
		rc = ibv_poll_cq(cq, 1, wc);
		CHECK(rc >= 0);
		if (rc == 1)
			return 1;
	}
	return 0;
}

/* One READ and one WRITE, the move d cycles after the doorbell. */
static void one(int loopback, uint64_t d, struct outcome *o)
{
	struct t_pair_cfg cfg;
	struct t_pair p;
	struct t_buf loc, rem;
	struct ibv_send_wr wr[2], *bad;
	struct ibv_sge sg[2];
	struct ibv_qp_attr qa;
	struct ibv_wc wc[2];
	uint64_t t0, at;
	int i;

	t_pair_default_cfg(&cfg);
	cfg.loopback = loopback;
	cfg.attrs[0].timeout = 0;
	cfg.attrs[1].timeout = 0;
	t_pair_open(&p, &cfg);
	t_buf_alloc(&loc, p.s[0].pd, 2 * LEN);
	t_buf_alloc(&rem, p.s[1].pd, 2 * LEN);
	t_fill(rem.p, LEN, 0x5eed + d);
	memset(loc.p, 0, 2 * LEN);
	t_fill(loc.p + LEN, LEN, 0xbeef + d);

	memset(wr, 0, sizeof(wr));
	sg[0] = t_sge(&loc, 0, LEN);
	sg[1] = t_sge(&loc, LEN, LEN);
	for (i = 0; i < 2; i++) {
		wr[i].wr_id = i + 1;
		wr[i].sg_list = &sg[i];
		wr[i].num_sge = 1;
		wr[i].send_flags = IBV_SEND_SIGNALED;
		wr[i].wr.rdma.remote_addr = t_addr(&rem, i * LEN);
		wr[i].wr.rdma.rkey = rem.mr->rkey;
	}
	wr[0].opcode = IBV_WR_RDMA_READ;
	wr[0].next = &wr[1];
	wr[1].opcode = IBV_WR_RDMA_WRITE;

	CHECK_OK(ibv_post_send(p.s[0].qp, wr, &bad));
	t0 = rnic_verbs_sim_cycle();
	at = rnic_verbs_sim_step(d) - t0;
	CHECK_EQ(at, d);
	memset(&qa, 0, sizeof(qa));
	qa.qp_state = IBV_QPS_ERR;
	CHECK_OK(ibv_modify_qp(p.s[0].qp, &qa, IBV_QP_STATE));

	for (i = 0; i < 2; i++) {
		if (!poll_one(p.s[0].scq, &wc[i]))
			t_fail(__FILE__, __LINE__,
			       "%s, ERR %llu cycles after the doorbell: WR %d of 2 neither completed nor flushed after %d polls",
			       loopback ? "loopback" : "two nodes",
			       (unsigned long long)at, i + 1, POLL_LIMIT);
		CHECK_EQ(wc[i].wr_id, (uint64_t)i + 1);
		CHECK_EQ(wc[i].qp_num, p.s[0].qp->qp_num);
		CHECK(wc[i].status == IBV_WC_SUCCESS ||
		      wc[i].status == IBV_WC_WR_FLUSH_ERR);
		if (wc[i].status == IBV_WC_SUCCESS)
			CHECK_EQ(wc[i].opcode, i ? IBV_WC_RDMA_WRITE : IBV_WC_RDMA_READ);
	}
	/* In order: nothing completes after a flushed WR. */
	CHECK(!(wc[0].status != IBV_WC_SUCCESS && wc[1].status == IBV_WC_SUCCESS));
	if (wc[0].status == IBV_WC_SUCCESS)
		CHECK_MEM(loc.p, rem.p, LEN);
	if (wc[1].status == IBV_WC_SUCCESS)
		CHECK_MEM(rem.p + LEN, loc.p + LEN, LEN);
	EXPECT_EMPTY(p.s[0].scq, 4);
	/* The flush was the ERR QP's alone: a receive posted on its peer (in
	 * RTS) stays posted. */
	sg[0] = t_sge(&rem, 0, LEN);
	POST_RECV(p.s[1].qp, 9, &sg[0], 1);
	EXPECT_EMPTY(p.s[1].rcq, 4);
	if (wc[1].status == IBV_WC_SUCCESS)
		o->done_both++;
	else if (wc[0].status == IBV_WC_SUCCESS)
		o->read_only++;
	else
		o->flushed_both++;

	t_buf_free(&loc);
	t_buf_free(&rem);
	t_pair_close(&p);
}

/* One WRITE of LONG_LEN between two nodes on an RC or UC QP, the move d
 * cycles after the doorbell: it completes or is flushed, and node 0 (which
 * sends nothing else) stops sending its packets. */
static void one_long(enum ibv_qp_type type, uint64_t d, struct long_outcome *o)
{
	struct t_pair_cfg cfg;
	struct t_pair p;
	struct t_buf loc, rem;
	struct ibv_sge sg;
	struct ibv_qp_attr qa;
	struct ibv_wc wc;
	uint64_t t0, f0, f1;

	t_pair_default_cfg(&cfg);
	cfg.mtu = IBV_MTU_256;
	cfg.qp_type = type;
	cfg.attrs[0].timeout = 0;
	t_pair_open(&p, &cfg);
	t_buf_alloc(&loc, p.s[0].pd, LONG_LEN);
	t_buf_alloc(&rem, p.s[1].pd, LONG_LEN);
	t_fill(loc.p, LONG_LEN, 0x1009 + d);
	memset(rem.p, 0, LONG_LEN);
	sg = t_sge(&loc, 0, LONG_LEN);
	POST_SEND(p.s[0].qp, 7, IBV_WR_RDMA_WRITE, IBV_SEND_SIGNALED, &sg, 1,
		  t_addr(&rem, 0), rem.mr->rkey, 0);
	t0 = rnic_verbs_sim_cycle();
	CHECK_EQ(rnic_verbs_sim_step(d) - t0, d);
	memset(&qa, 0, sizeof(qa));
	qa.qp_state = IBV_QPS_ERR;
	CHECK_OK(ibv_modify_qp(p.s[0].qp, &qa, IBV_QP_STATE));
	f0 = rnic_verbs_wire_frames(0);
	if (!poll_one(p.s[0].scq, &wc))
		t_fail(__FILE__, __LINE__,
		       "a %d-byte WRITE, ERR %llu cycles after the doorbell: neither completed nor flushed after %d polls",
		       LONG_LEN, (unsigned long long)d, POLL_LIMIT);
	EXPECT_EMPTY(p.s[0].scq, 4);
	f1 = rnic_verbs_wire_frames(0);
	CHECK_EQ(wc.wr_id, 7);
	if (wc.status == IBV_WC_SUCCESS) {
		CHECK_MEM(rem.p, loc.p, LONG_LEN);
		o->done++;
	} else {
		CHECK_EQ(wc.status, IBV_WC_WR_FLUSH_ERR);
		o->flushed++;
	}
	if (f1 - f0 > o->frames_max)
		o->frames_max = f1 - f0;
	t_buf_free(&loc);
	t_buf_free(&rem);
	t_pair_close(&p);
}

static void sweep_long(enum ibv_qp_type type)
{
	struct long_outcome o = { 0 };
	uint64_t d;

	for (d = 0; !o.done; d++) {
		CHECK(d < MAX_DELAY);
		one_long(type, d, &o);
	}
	printf("%s %d-byte WRITE: ERR 0..%llu cycles after the doorbell: %d flushed, then done; at most %llu frames after the move\n",
	       type == IBV_QPT_UC ? "UC" : "RC", LONG_LEN,
	       (unsigned long long)d - 1, o.flushed,
	       (unsigned long long)o.frames_max);
	CHECK(o.flushed > 0);
	CHECK(o.frames_max <= LONG_FRAMES_AFTER);
}

static void sweep(int loopback)
{
	struct outcome o = { 0 };
	uint64_t d;

	for (d = 0; !o.done_both; d++) {
		CHECK(d < MAX_DELAY);
		one(loopback, d, &o);
	}
	printf("%s: ERR 0..%llu cycles after the doorbell: %d flushed both, %d READ done and WRITE flushed, then both done\n",
	       loopback ? "loopback" : "two nodes", (unsigned long long)d - 1,
	       o.flushed_both, o.read_only);
	CHECK(o.flushed_both > 0);
}

int main(void)
{
	sweep(0);
	sweep(1);
	sweep_long(IBV_QPT_RC);
	sweep_long(IBV_QPT_UC);
	printf("sys_err_race: PASS\n");
	return 0;
}
