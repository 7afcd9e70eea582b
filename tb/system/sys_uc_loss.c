// SPDX-License-Identifier: MIT
/*
 * sys_uc_loss.c - a UC responder drops what a loss leaves of a message and
 * takes the next message whole.
 *
 * UC has no ACKs and no retransmission (IBA 9.7.5.2.x for UC): a packet lost
 * on the wire loses its message, the requester completes it anyway (the
 * packets have left), and the responder must not complete the damaged
 * message nor let it spill into the next one. Directed losses on the
 * simulated wire (rnic_verbs_wire_drop), two nodes and loopback:
 *   - lost SEND_FIRST of a 4-packet SEND: the MIDDLE after it is out of
 *     sequence (a PSN gap), the LAST has no FIRST; both are dropped, the
 *     receive WQE stays posted and the next SEND lands in it;
 *   - lost MIDDLE of a 5-packet WRITE_WITH_IMM: the rest of the message is
 *     dropped, no completion with its immediate; the next WRITE_WITH_IMM
 *     completes;
 *   - lost SEND_LAST: the SEND_ONLY after it starts a new message at its
 *     PSN and fills the receive WQE from its first byte;
 *   - no loss, but no receive WQE for a 4-packet SEND: its FIRST is
 *     dropped (UC has no RNR), then its MIDDLEs and LAST, which arrive in
 *     sequence without a FIRST; the next SEND completes.
 * The requester's completions, the responder's (exactly one per whole
 * message) and the bytes of every whole message are checked.
 */
#include <endian.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "common.h"
#include "rnic_verbs_ext.h"

#define LEN 4096	/* 4 packets at MTU 1024 */

enum {
	OP_UC_SEND_FIRST = 0x20, OP_UC_SEND_LAST = 0x22, OP_UC_WRITE_MIDDLE = 0x27,
};

struct env {
	struct t_pair p;
	struct t_buf a, b;
	unsigned int n0;	/* wire node of side 0, the requester */
	uint32_t qpn0, qpn1;
};

static void drop_once(struct env *e, int op, unsigned int skip)
{
	CHECK_OK(rnic_verbs_wire_drop(e->n0, op, -1, skip, 1));
}

static void expect_lost(struct env *e, uint64_t before)
{
	uint64_t now = rnic_verbs_wire_drop_hits(e->n0);

	CHECKF(now - before == 1, "node %u lost %" PRIu64 " frames, expected 1", e->n0,
	       now - before);
}

static void send(struct env *e, uint64_t id, uint32_t off, uint32_t len)
{
	struct ibv_sge sg = t_sge(&e->a, off, len);
	struct ibv_wc wc;

	POST_SEND(e->p.s[0].qp, id, IBV_WR_SEND, IBV_SEND_SIGNALED, &sg, 1, 0, 0, 0);
	POLL(e->p.s[0].scq, 1, &wc);
	EXPECT_WC(&wc, id, IBV_WC_SUCCESS, IBV_WC_SEND, e->qpn0, T_ANY, 0, T_ANY);
}

static void write_imm(struct env *e, uint64_t id, uint32_t len, uint32_t imm)
{
	struct ibv_sge sg = t_sge(&e->a, 0, len);
	struct ibv_wc wc;

	POST_SEND(e->p.s[0].qp, id, IBV_WR_RDMA_WRITE_WITH_IMM, IBV_SEND_SIGNALED, &sg, 1,
		  t_addr(&e->b, 0), e->b.mr->rkey, htobe32(imm));
	POLL(e->p.s[0].scq, 1, &wc);
	EXPECT_WC(&wc, id, IBV_WC_SUCCESS, IBV_WC_RDMA_WRITE, e->qpn0, T_ANY, T_ANY, T_ANY);
}

/* A SEND loses packet `op` (after `skip` of that opcode); the next SEND of
 * `len2` bytes from offset LEN lands in the receive posted before both. */
static void send_case(struct env *e, int op, unsigned int skip, uint32_t len2, const char *what)
{
	struct ibv_sge sg = t_sge(&e->b, 0, 2 * LEN);
	uint64_t h = rnic_verbs_wire_drop_hits(e->n0);
	struct ibv_wc wc;

	memset(e->b.p, 0, 2 * LEN);
	POST_RECV(e->p.s[1].qp, 10, &sg, 1);
	drop_once(e, op, skip);
	send(e, 1, 0, LEN);
	send(e, 2, LEN, len2);
	POLL(e->p.s[1].rcq, 1, &wc);
	/* A UC completion can come before its last packet is on the wire:
	 * the loss is counted once the next message has arrived. */
	expect_lost(e, h);
	EXPECT_WC(&wc, 10, IBV_WC_SUCCESS, IBV_WC_RECV, e->qpn1, len2, 0, T_ANY);
	CHECK_MEM(e->b.p, e->a.p + LEN, len2);
	EXPECT_EMPTY(e->p.s[1].rcq, 40);
	printf("  %s: ok\n", what);
}

static void run(int loopback)
{
	struct t_pair_cfg cfg;
	struct ibv_sge sg;
	struct ibv_wc wc;
	struct env e;
	uint64_t h;

	printf("sys_uc_loss: %s\n", loopback ? "loopback" : "two nodes");
	t_pair_default_cfg(&cfg);
	cfg.loopback = loopback;
	cfg.qp_type = IBV_QPT_UC;
	cfg.attrs[0].access = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE;
	cfg.attrs[1].access = cfg.attrs[0].access;
	t_pair_open(&e.p, &cfg);
	t_buf_alloc(&e.a, e.p.s[0].pd, 2 * LEN);
	t_buf_alloc(&e.b, e.p.s[1].pd, 2 * LEN);
	t_fill(e.a.p, 2 * LEN, 0x55c);
	e.n0 = 0;
	e.qpn0 = e.p.s[0].qp->qp_num;
	e.qpn1 = e.p.s[1].qp->qp_num;

	send_case(&e, OP_UC_SEND_FIRST, 0, 3000, "lost SEND_FIRST (gap, then LAST without FIRST)");
	send_case(&e, OP_UC_SEND_LAST, 0, 700, "lost SEND_LAST (the SEND_ONLY after it starts anew)");

	/* No receive for a 4-packet SEND: the FIRST finds none and loses the
	 * message, its MIDDLEs and LAST come in sequence but without a FIRST. */
	send(&e, 5, 0, LEN);
	EXPECT_EMPTY(e.p.s[1].rcq, 40);
	memset(e.b.p, 0, 2 * LEN);
	sg = t_sge(&e.b, 0, 2 * LEN);
	POST_RECV(e.p.s[1].qp, 30, &sg, 1);
	send(&e, 6, 100, 2500);
	POLL(e.p.s[1].rcq, 1, &wc);
	EXPECT_WC(&wc, 30, IBV_WC_SUCCESS, IBV_WC_RECV, e.qpn1, 2500, 0, T_ANY);
	CHECK_MEM(e.b.p, e.a.p + 100, 2500);
	EXPECT_EMPTY(e.p.s[1].rcq, 40);
	printf("  multi-packet SEND without a receive (rest of it dropped): ok\n");

	/* 5 packets: FIRST, MIDDLE x3, LAST_WITH_IMM; the second MIDDLE is lost. */
	memset(e.b.p, 0, 2 * LEN);
	sg = t_sge(&e.b, 0, 64);
	POST_RECV(e.p.s[1].qp, 20, &sg, 1);
	h = rnic_verbs_wire_drop_hits(e.n0);
	drop_once(&e, OP_UC_WRITE_MIDDLE, 1);
	write_imm(&e, 3, LEN + 1024, 0xdead);
	EXPECT_EMPTY(e.p.s[1].rcq, 40);
	write_imm(&e, 4, LEN, 0xbeef);
	POLL(e.p.s[1].rcq, 1, &wc);
	expect_lost(&e, h);
	EXPECT_WC(&wc, 20, IBV_WC_SUCCESS, IBV_WC_RECV_RDMA_WITH_IMM, e.qpn1, T_ANY,
		  IBV_WC_WITH_IMM, (long long)htobe32(0xbeef));
	CHECK_MEM(e.b.p, e.a.p, LEN);
	EXPECT_EMPTY(e.p.s[1].rcq, 40);
	printf("  lost WRITE_MIDDLE (no completion of the damaged WRITE_WITH_IMM): ok\n");

	t_buf_free(&e.a);
	t_buf_free(&e.b);
	t_pair_close(&e.p);
}

int main(void)
{
	run(0);
	run(1);
	printf("sys_uc_loss: PASS\n");
	return 0;
}
