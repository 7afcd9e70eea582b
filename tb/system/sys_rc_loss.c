// SPDX-License-Identifier: MIT
/*
 * sys_rc_loss.c - RC recovers from each kind of loss, byte-exact, once.
 *
 * Directed losses on the simulated wire (rnic_verbs_wire_drop, so this test
 * runs only on the simulated RNIC), each on two nodes and in loopback:
 *   - lost first packet of a 4-packet WRITE: the next packets are out of
 *     sequence, the responder NAKs (PSN sequence error) once, the requester
 *     goes back to the lost PSN;
 *   - lost last packet: nothing follows it, the ACK timeout sends it again;
 *   - lost ACK: the timeout sends the message again, the responder sees a
 *     duplicate, acknowledges it again and places nothing twice (a SEND
 *     consumes exactly one receive);
 *   - lost READ response in the middle of a stream: the next response is an
 *     implied NAK, the requester asks for the rest of the READ only;
 *   - lost atomic ACK: the atomic is sent again, the responder answers it
 *     from its result cache and does not execute it twice;
 *   - a restart in the middle of a multi-packet SEND (lost middle packet).
 * Every WR completes successfully and every byte is checked.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "common.h"
#include "rnic_verbs_ext.h"

#define LEN 4096	/* 4 packets at MTU 1024 */

enum {
	OP_SEND_FIRST = 0x00, OP_SEND_MIDDLE = 0x01,
	OP_WRITE_FIRST = 0x06, OP_WRITE_LAST = 0x08,
	OP_READ_RESP_MIDDLE = 0x0e, OP_ACK = 0x11, OP_ATOMIC_ACK = 0x12,
};

struct env {
	struct t_pair p;
	struct t_buf a, b;
	unsigned int n0, n1;	/* wire nodes of side 0 and side 1 */
	uint64_t hits0, hits1;
};

static void open_env(struct env *e, int loopback)
{
	struct t_pair_cfg cfg;
	unsigned int acc = T_MR_ACCESS | IBV_ACCESS_REMOTE_ATOMIC;

	t_pair_default_cfg(&cfg);
	cfg.loopback = loopback;
	cfg.attrs[0].timeout = 3;	/* 8192 cycles */
	cfg.attrs[0].access |= IBV_ACCESS_REMOTE_ATOMIC;
	cfg.attrs[1].access |= IBV_ACCESS_REMOTE_ATOMIC;
	t_pair_open(&e->p, &cfg);
	t_buf_alloc_access(&e->a, e->p.s[0].pd, 4 * LEN, acc);
	t_buf_alloc_access(&e->b, e->p.s[1].pd, 4 * LEN, acc);
	e->n0 = 0;
	e->n1 = loopback ? 0 : 1;
}

static void close_env(struct env *e)
{
	t_buf_free(&e->a);
	t_buf_free(&e->b);
	t_pair_close(&e->p);
}

static void drop(unsigned int node, int op, unsigned int skip)
{
	CHECK_OK(rnic_verbs_wire_drop(node, op, -1, skip, 1));
}

/* The rule must have fired: the loss really happened. */
static void expect_hits(unsigned int node, uint64_t before, uint64_t n)
{
	uint64_t now = rnic_verbs_wire_drop_hits(node);

	CHECKF(now - before == n, "node %u lost %" PRIu64 " frames, expected %" PRIu64,
	       node, now - before, n);
}

static void write_case(struct env *e, int op, unsigned int skip, const char *what)
{
	struct ibv_sge sg = t_sge(&e->a, 0, LEN);
	struct ibv_wc wc;
	uint64_t h = rnic_verbs_wire_drop_hits(e->n0);

	t_fill(e->a.p, LEN, 1000 + (uint64_t)op);
	memset(e->b.p, 0, LEN);
	drop(e->n0, op, skip);
	POST_SEND(e->p.s[0].qp, 1, IBV_WR_RDMA_WRITE, IBV_SEND_SIGNALED, &sg, 1,
		  t_addr(&e->b, 0), e->b.mr->rkey, 0);
	POLL(e->p.s[0].scq, 1, &wc);
	EXPECT_WC(&wc, 1, IBV_WC_SUCCESS, IBV_WC_RDMA_WRITE, e->p.s[0].qp->qp_num, T_ANY, 0, T_ANY);
	CHECK_MEM(e->b.p, e->a.p, LEN);
	expect_hits(e->n0, h, 1);
	printf("  %s: ok\n", what);
}

static void send_case(struct env *e, int node_side, int op, unsigned int skip, const char *what)
{
	struct ibv_sge sg;
	struct ibv_wc wc;
	unsigned int node = node_side ? e->n1 : e->n0;
	uint64_t h = rnic_verbs_wire_drop_hits(node);

	t_fill(e->a.p, LEN, 2000 + (uint64_t)op);
	memset(e->b.p, 0, 2 * LEN);
	/* Two receives: a duplicate that consumed one would show up as a
	 * second completion. */
	sg = t_sge(&e->b, 0, LEN);
	POST_RECV(e->p.s[1].qp, 10, &sg, 1);
	sg = t_sge(&e->b, LEN, LEN);
	POST_RECV(e->p.s[1].qp, 11, &sg, 1);
	drop(node, op, skip);
	sg = t_sge(&e->a, 0, LEN);
	POST_SEND(e->p.s[0].qp, 2, IBV_WR_SEND, IBV_SEND_SIGNALED, &sg, 1, 0, 0, 0);
	POLL(e->p.s[0].scq, 1, &wc);
	EXPECT_WC(&wc, 2, IBV_WC_SUCCESS, IBV_WC_SEND, e->p.s[0].qp->qp_num, T_ANY, 0, T_ANY);
	POLL(e->p.s[1].rcq, 1, &wc);
	EXPECT_WC(&wc, 10, IBV_WC_SUCCESS, IBV_WC_RECV, e->p.s[1].qp->qp_num, LEN, 0, T_ANY);
	CHECK_MEM(e->b.p, e->a.p, LEN);
	EXPECT_EMPTY(e->p.s[1].rcq, 40);
	CHECK_FILL(e->b.p + LEN, 0, LEN);
	expect_hits(node, h, 1);
	/* Use up the second receive so the next case starts clean. */
	sg = t_sge(&e->a, 0, 8);
	POST_SEND(e->p.s[0].qp, 3, IBV_WR_SEND, IBV_SEND_SIGNALED, &sg, 1, 0, 0, 0);
	POLL(e->p.s[0].scq, 1, &wc);
	POLL(e->p.s[1].rcq, 1, &wc);
	EXPECT_WC(&wc, 11, IBV_WC_SUCCESS, IBV_WC_RECV, e->p.s[1].qp->qp_num, 8, 0, T_ANY);
	printf("  %s: ok\n", what);
}

static void read_case(struct env *e)
{
	struct ibv_sge sg = t_sge(&e->a, 0, LEN);
	struct ibv_wc wc;
	uint64_t h = rnic_verbs_wire_drop_hits(e->n1);

	t_fill(e->b.p, LEN, 3000);
	memset(e->a.p, 0, LEN);
	/* The second of the two middle responses is lost. */
	drop(e->n1, OP_READ_RESP_MIDDLE, 1);
	POST_SEND(e->p.s[0].qp, 4, IBV_WR_RDMA_READ, IBV_SEND_SIGNALED, &sg, 1,
		  t_addr(&e->b, 0), e->b.mr->rkey, 0);
	POLL(e->p.s[0].scq, 1, &wc);
	EXPECT_WC(&wc, 4, IBV_WC_SUCCESS, IBV_WC_RDMA_READ, e->p.s[0].qp->qp_num, LEN, 0, T_ANY);
	CHECK_MEM(e->a.p, e->b.p, LEN);
	expect_hits(e->n1, h, 1);
	printf("  lost READ response in the middle of the stream: ok\n");
}

static void atomic_case(struct env *e)
{
	struct ibv_sge sg = t_sge(&e->a, 0, 8);
	struct ibv_wc wc;
	uint64_t v = 7, got;
	uint64_t h = rnic_verbs_wire_drop_hits(e->n1);

	memcpy(e->b.p, &v, 8);
	drop(e->n1, OP_ATOMIC_ACK, 0);
	POST_ATOMIC(e->p.s[0].qp, 5, IBV_WR_ATOMIC_FETCH_AND_ADD, IBV_SEND_SIGNALED, &sg,
		    t_addr(&e->b, 0), e->b.mr->rkey, 10, 0);
	POLL(e->p.s[0].scq, 1, &wc);
	EXPECT_WC(&wc, 5, IBV_WC_SUCCESS, IBV_WC_FETCH_ADD, e->p.s[0].qp->qp_num, 8, 0, T_ANY);
	memcpy(&got, e->a.p, 8);
	CHECK_EQ(got, 7);
	memcpy(&got, e->b.p, 8);
	CHECKF(got == 17, "the atomic ran %s: memory holds %" PRIu64 ", expected 17",
	       got > 17 ? "twice" : "wrong", got);
	expect_hits(e->n1, h, 1);
	printf("  lost atomic ACK (duplicate atomic answered from the cache): ok\n");
}

static void run(int loopback)
{
	struct env e;

	printf("sys_rc_loss: %s\n", loopback ? "loopback" : "two nodes");
	open_env(&e, loopback);
	write_case(&e, OP_WRITE_FIRST, 0, "lost first packet (PSN sequence NAK)");
	write_case(&e, OP_WRITE_LAST, 0, "lost last packet (ACK timeout)");
	/* The responder's ACK of the WRITE below: side 1 sends it. */
	{
		struct ibv_sge sg = t_sge(&e.a, 0, LEN);
		struct ibv_wc wc;
		uint64_t h = rnic_verbs_wire_drop_hits(e.n1);

		t_fill(e.a.p, LEN, 4000);
		drop(e.n1, OP_ACK, 0);
		POST_SEND(e.p.s[0].qp, 6, IBV_WR_RDMA_WRITE, IBV_SEND_SIGNALED, &sg, 1,
			  t_addr(&e.b, 0), e.b.mr->rkey, 0);
		POLL(e.p.s[0].scq, 1, &wc);
		EXPECT_WC(&wc, 6, IBV_WC_SUCCESS, IBV_WC_RDMA_WRITE, e.p.s[0].qp->qp_num,
			  T_ANY, 0, T_ANY);
		CHECK_MEM(e.b.p, e.a.p, LEN);
		expect_hits(e.n1, h, 1);
		printf("  lost ACK of a WRITE: ok\n");
	}
	send_case(&e, 1, OP_ACK, 0, "lost ACK of a SEND (one receive consumed)");
	send_case(&e, 0, OP_SEND_MIDDLE, 1, "lost middle packet of a SEND");
	send_case(&e, 0, OP_SEND_FIRST, 0, "lost first packet of a SEND");
	read_case(&e);
	atomic_case(&e);
	close_env(&e);
}

int main(void)
{
	run(0);
	run(1);
	printf("sys_rc_loss: ok\n");
	return 0;
}
