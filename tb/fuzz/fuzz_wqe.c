// SPDX-License-Identifier: MIT
/*
 * fuzz_wqe.c - harness A: malformed work queue entries and doorbells.
 *
 * Works below the verbs library, with the driver (driver/rnic_drv.h) and the
 * model's MMIO, the way a buggy or hostile user-space library could: real RC
 * QPs are created and connected through the driver, then the input is read
 * as a program of operations that
 *   - write raw input bytes as send or receive WQEs into the QPs' rings,
 *   - write well-formed WQEs (pointing into registered memory) with some
 *     fields mutated (keys, lengths, addresses, opcode, ds, flags),
 *   - ring SQ_DB / RQ_DB / CQ_DB (and other doorbell-page addresses) with
 *     random producer indices, for our QPNs, other QPNs and QPNs beyond the
 *     hardware's range,
 *   - run the simulation, and move QPs to ERR.
 * Then every QP is moved to ERR and a sentinel WQE is posted on each queue:
 * its flush completion proves the queue drained (a WQE that never completes
 * is a hang). Checked throughout: every CQE names one of our QPs and the
 * right queue, has a defined status and opcode, arrives in WQE order and
 * never twice; after an error CQE a queue completes only with errors, one
 * CQE per WQE. At the end of every input: no IOMMU fault (a random address
 * must be stopped by the lkey/rkey checks), no protocol error, buffers the
 * QPs may not write (read-only MR, MR of another PD) unchanged, and a
 * known-good SEND/WRITE/READ exchange on fresh QPs still succeeds
 * byte-exact (the RNIC keeps working).
 *
 * The simulation is the process-wide one (the driver's), so it persists
 * across inputs like the hardware would; each input creates and destroys its
 * own QPs and CQs, and the known-good exchange after each input makes any
 * damage show at the input that did it.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_util.h"
#include "rnic_drv.h"

#define FW_NODES	2
#define FW_MAX_PAIRS	3
#define FW_MAX_QPS	(2 * FW_MAX_PAIRS)
#define FW_MAX_OPS	64
#define FW_CQ_ENTRIES	2048	/* > CQEs of one polling step, never overflows */
#define FW_DATA_LEN	(64u << 10)
#define FW_GUARD_LEN	8192u
#define FW_POLL_STEP	256	/* cycles between CQ polls */
#define FW_SETTLE_MAX	150000	/* cycles to let traffic finish by itself */
#define FW_IDLE_STEPS	12	/* idle polling steps that end the settling */
/* Draining after the move to ERR: a base plus a bound per WQE to flush
 * (a flush takes a few cycles per WQE; 64 is far above it). */
#define FW_DRAIN_BASE	200000
#define FW_DRAIN_PER_WQE 64
#define FW_DONE_LAG	64	/* WQEs seen completed before the RNIC's done index has them */
#define FW_GOOD_MAX	400000	/* cycles for each step of the known-good exchange */

/* Access flags (ibv_access_flags) */
#define FW_LW	IBV_ACCESS_LOCAL_WRITE
#define FW_RW	IBV_ACCESS_REMOTE_WRITE
#define FW_RR	IBV_ACCESS_REMOTE_READ
#define FW_RA	IBV_ACCESS_REMOTE_ATOMIC
#define FW_ALL	(FW_LW | FW_RW | FW_RR | FW_RA)

struct fw_node {
	struct rnic_dev *dev;
	uint32_t pd, pd_b;
	uint8_t *data;		/* the QPs' playground: full access, PD pd */
	struct rnic_mr mr;
	uint8_t *ro;		/* REMOTE_READ only: nobody may write it */
	struct rnic_mr mr_ro;
	uint8_t *oth;		/* full access but PD pd_b: our QPs may not touch it */
	struct rnic_mr mr_oth;
	uint32_t dead_key;	/* key of a deregistered MR */
};

/* One work queue as the harness sees it. */
struct fw_wq {
	uint16_t pi;		/* next slot the harness builds a WQE in */
	uint16_t db;		/* producer index last rung to the hardware */
	uint16_t next;		/* lowest WQE index that may still complete */
	uint8_t errored;	/* an error CQE was seen: only errors follow */
	uint8_t sentinel_armed, sentinel_seen;
	uint16_t sentinel;
	uint16_t sentinel_tried;	/* next when the sentinel's doorbell was last rung */
	uint32_t cqes;
};

struct fw_qp {
	unsigned int node;
	int peer;		/* index in fw.qp[] */
	struct rnic_qp hw;
	struct fw_wq sq, rq;
	unsigned int mtu;	/* bytes */
};

struct fw_cq {
	struct rnic_cq hw;
	uint32_t ci;
	int recv;
	unsigned int node;
};

static struct {
	int ready;
	struct rnic_sim *sim;
	struct fw_node node[FW_NODES];
	uint8_t ro_pattern[FW_GUARD_LEN], oth_pattern[FW_GUARD_LEN];

	/* Per input */
	int nqp;
	struct fw_qp qp[FW_MAX_QPS];
	struct fw_cq scq[FW_NODES], rcq[FW_NODES];
	unsigned long input_no;
	uint64_t good_seed;
} fw;

/* ------------------------------------------------------------------------ */
/* Setup                                                                    */
/* ------------------------------------------------------------------------ */

static void *fw_alloc(size_t len)
{
	void *p;

	FZ_CHECK(!posix_memalign(&p, RNIC_PAGE_SIZE, len), "out of memory");
	memset(p, 0, len);
	return p;
}

static void fw_reg(struct fw_node *n, uint32_t pd, void *buf, size_t len,
		   unsigned int access, struct rnic_mr *mr)
{
	int ret = rnic_mr_reg(n->dev, pd, buf, len, (uintptr_t)buf, access, mr);

	FZ_CHECK(!ret, "rnic_mr_reg(%zu bytes, access %#x) failed: %d", len, access, ret);
}

static void fw_setup(void)
{
	unsigned int i;

	fz_init_env();
	fz_fill(fw.ro_pattern, sizeof(fw.ro_pattern), 0x5eed0001);
	fz_fill(fw.oth_pattern, sizeof(fw.oth_pattern), 0x5eed0002);
	for (i = 0; i < FW_NODES; i++) {
		struct fw_node *n = &fw.node[i];
		struct rnic_mr dead;
		uint8_t *tmp;
		int ret;

		ret = rnic_dev_open(i, &n->dev);
		FZ_CHECK(!ret, "rnic_dev_open(%u) failed: %d", i, ret);
		FZ_CHECK(!rnic_pd_alloc(n->dev, &n->pd), "pd");
		FZ_CHECK(!rnic_pd_alloc(n->dev, &n->pd_b), "pd");
		n->data = fw_alloc(FW_DATA_LEN);
		n->ro = fw_alloc(FW_GUARD_LEN);
		n->oth = fw_alloc(FW_GUARD_LEN);
		memcpy(n->ro, fw.ro_pattern, FW_GUARD_LEN);
		memcpy(n->oth, fw.oth_pattern, FW_GUARD_LEN);
		/* A key that was valid once: its pages are unmapped now. */
		tmp = fw_alloc(RNIC_PAGE_SIZE);
		fw_reg(n, n->pd, tmp, RNIC_PAGE_SIZE, FW_ALL, &dead);
		n->dead_key = dead.key;
		rnic_mr_dereg(n->dev, &dead);
		free(tmp);
	}
	fw.sim = fw.node[0].dev->sim;
	fz_sim = fw.sim;
	fw.ready = 1;
}

/*
 * The MRs of the QPs' playground, registered anew for every input: a
 * fuzzed LOCAL_INV or SEND_WITH_INV may invalidate them.
 */
static void fw_reg_mrs(void)
{
	unsigned int i;

	for (i = 0; i < FW_NODES; i++) {
		struct fw_node *n = &fw.node[i];

		fw_reg(n, n->pd, n->data, FW_DATA_LEN, FW_ALL, &n->mr);
		fw_reg(n, n->pd, n->ro, FW_GUARD_LEN, FW_RR, &n->mr_ro);
		fw_reg(n, n->pd_b, n->oth, FW_GUARD_LEN, FW_ALL, &n->mr_oth);
	}
}

static void fw_dereg_mrs(void)
{
	unsigned int i;

	for (i = 0; i < FW_NODES; i++) {
		struct fw_node *n = &fw.node[i];

		rnic_mr_dereg(n->dev, &n->mr);
		rnic_mr_dereg(n->dev, &n->mr_ro);
		rnic_mr_dereg(n->dev, &n->mr_oth);
	}
}

/* ------------------------------------------------------------------------ */
/* Completions                                                              */
/* ------------------------------------------------------------------------ */

static int fw_status_ok(unsigned int s)
{
	switch (s) {
	case IBV_WC_SUCCESS: case IBV_WC_LOC_LEN_ERR: case IBV_WC_LOC_QP_OP_ERR:
	case IBV_WC_LOC_PROT_ERR: case IBV_WC_WR_FLUSH_ERR: case IBV_WC_BAD_RESP_ERR:
	case IBV_WC_LOC_ACCESS_ERR: case IBV_WC_REM_INV_REQ_ERR:
	case IBV_WC_REM_ACCESS_ERR: case IBV_WC_REM_OP_ERR: case IBV_WC_RETRY_EXC_ERR:
	case IBV_WC_RNR_RETRY_EXC_ERR: case IBV_WC_GENERAL_ERR: case IBV_WC_MW_BIND_ERR:
		return 1;
	default:
		return 0;
	}
}

static struct fw_qp *fw_find_qp(unsigned int node, uint32_t qpn)
{
	int i;

	for (i = 0; i < fw.nqp; i++)
		if (fw.qp[i].node == node && fw.qp[i].hw.qpn == qpn)
			return &fw.qp[i];
	return NULL;
}

static void fw_check_cqe(struct fw_cq *cq, const struct rnic_cqe *e)
{
	uint32_t qpn = le32toh(e->qpn) & 0xffffff;
	uint16_t idx = le16toh(e->wqe_idx);
	struct fw_qp *qp = fw_find_qp(cq->node, qpn);
	const char *qn = cq->recv ? "RQ" : "SQ";
	struct fw_wq *wq;
	uint16_t d;

	FZ_LOG("  cqe node %u %s qpn %u idx %u status %u opcode %u len %u (cycle %llu)\n",
	       cq->node, qn, qpn, idx, e->status, e->opcode, le32toh(e->byte_len),
	       (unsigned long long)rnic_sim_cycle(fw.sim));
	FZ_CHECK(qp, "node %u %s CQ %u: CQE for QPN %u, which is none of this "
		 "CQ's QPs", cq->node, qn, cq->hw.cqn, qpn);
	FZ_CHECK(fw_status_ok(e->status), "node %u QP %u %s WQE %u: CQE status %u "
		 "is no completion status the RNIC defines", cq->node, qpn, qn, idx,
		 e->status);
	/*
	 * Finding cqe-overwrite (tb/fuzz/findings/): when the CQE writer is
	 * busy, the completer overwrites the CQ number and WQE index of a
	 * responder error CQE it has not handed over yet: the receive WQE's
	 * error completion lands in the send CQ with the send queue's index,
	 * or is lost. While the finding is excluded, such a CQE stands for the
	 * error completion of the receive WQE the QP was at.
	 */
	if (!cq->recv && e->status != IBV_WC_SUCCESS &&
	    (e->opcode == IBV_WC_RECV || e->opcode == IBV_WC_RECV_RDMA_WITH_IMM) &&
	    fz_excluded("cqe-overwrite")) {
		FZ_LOG("  (cqe-overwrite excluded: counted as RQ WQE %u)\n", qp->rq.next);
		if (qp->rq.sentinel_armed && qp->rq.next == qp->rq.sentinel)
			qp->rq.sentinel_seen = 1;
		qp->rq.errored = 1;
		qp->rq.next++;
		qp->rq.cqes++;
		return;
	}
	if (cq->recv)
		FZ_CHECK(e->opcode == IBV_WC_RECV || e->opcode == IBV_WC_RECV_RDMA_WITH_IMM,
			 "node %u QP %u RQ WQE %u: receive CQE with opcode %u", cq->node,
			 qpn, idx, e->opcode);
	else
		FZ_CHECK(e->opcode <= IBV_WC_LOCAL_INV,
			 "node %u QP %u SQ WQE %u: send CQE with opcode %u", cq->node,
			 qpn, idx, e->opcode);
	wq = cq->recv ? &qp->rq : &qp->sq;
	d = (uint16_t)(idx - wq->next);
	FZ_CHECK(d < 0x8000, "node %u QP %u %s: CQE for WQE %u, but WQEs up to %u "
		 "completed already (out of order or twice)", cq->node, qpn, qn, idx,
		 (uint16_t)(wq->next - 1));
	if (wq->errored) {
		FZ_CHECK(e->status != IBV_WC_SUCCESS, "node %u QP %u %s WQE %u: "
			 "successful CQE after an error CQE", cq->node, qpn, qn, idx);
		FZ_CHECK(d == 0, "node %u QP %u %s: after an error CQE, WQEs %u..%u "
			 "were skipped (each flushed WQE needs a CQE)", cq->node, qpn,
			 qn, wq->next, (uint16_t)(idx - 1));
	}
	if (!cq->recv && !wq->errored && e->status == IBV_WC_SUCCESS)
		; /* unsignaled WQEs before it complete silently */
	else if (cq->recv && !wq->errored)
		/* cqe-overwrite excluded: the first error CQE may be lost. */
		FZ_CHECK(d == 0 || (d == 1 && e->status != IBV_WC_SUCCESS &&
				    fz_excluded("cqe-overwrite")),
			 "node %u QP %u RQ: CQE for WQE %u skips WQEs %u..%u "
			 "(receive WQEs complete in order, each with a CQE)", cq->node,
			 qpn, idx, wq->next, (uint16_t)(idx - 1));
	if (e->status != IBV_WC_SUCCESS)
		wq->errored = 1;
	if (wq->sentinel_armed && idx == wq->sentinel) {
		FZ_CHECK(e->status == IBV_WC_WR_FLUSH_ERR, "node %u QP %u %s: WQE %u "
			 "posted to a QP in ERR completed with status %u, not "
			 "WR_FLUSH_ERR", cq->node, qpn, qn, idx, e->status);
		wq->sentinel_seen = 1;
	}
	wq->next = idx + 1;
	wq->cqes++;
}

static unsigned int fw_poll(struct fw_cq *cq)
{
	unsigned int n = 0;

	if (!cq->hw.ring)
		return 0;
	while (rnic_cqe_is_new(&cq->hw.ring[cq->ci & (cq->hw.entries - 1)], cq->ci,
			       cq->hw.log_size)) {
		fw_check_cqe(cq, &cq->hw.ring[cq->ci & (cq->hw.entries - 1)]);
		cq->ci++;
		n++;
		FZ_CHECK(n < cq->hw.entries, "node %u CQ %u: more than a ring of new "
			 "CQEs at once", cq->node, cq->hw.cqn);
	}
	return n;
}

static unsigned int fw_poll_all(void)
{
	unsigned int i, n = 0;

	for (i = 0; i < FW_NODES; i++) {
		n += fw_poll(&fw.scq[i]);
		n += fw_poll(&fw.rcq[i]);
	}
	return n;
}

/* Runs @cycles cycles, polling every CQ each FW_POLL_STEP cycles. */
static unsigned int fw_run(uint64_t cycles)
{
	unsigned int n = 0;

	while (cycles) {
		uint64_t c = cycles < FW_POLL_STEP ? cycles : FW_POLL_STEP;

		rnic_sim_step(fw.sim, c);
		cycles -= c;
		n += fw_poll_all();
	}
	return n;
}

/* ------------------------------------------------------------------------ */
/* QPs                                                                      */
/* ------------------------------------------------------------------------ */

struct fw_qp_params {
	uint32_t max_send_wr, max_recv_wr, max_send_sge, max_recv_sge;
	enum ibv_mtu mtu;
	unsigned int access;
	uint8_t timeout, retry_cnt, rnr_retry, min_rnr_timer;
	uint8_t max_rd_atomic, max_dest_rd_atomic;
	uint32_t sq_psn, rq_psn;
};

static void fw_cq_create(struct fw_cq *cq, unsigned int node, int recv)
{
	int ret;

	memset(cq, 0, sizeof(*cq));
	ret = rnic_cq_create(fw.node[node].dev, FW_CQ_ENTRIES, &cq->hw);
	FZ_CHECK(!ret, "rnic_cq_create failed: %d", ret);
	cq->node = node;
	cq->recv = recv;
}

static void fw_cq_destroy(struct fw_cq *cq)
{
	if (cq->hw.ring)
		rnic_cq_destroy(fw.node[cq->node].dev, &cq->hw);
	memset(cq, 0, sizeof(*cq));
}

static void fw_qp_create(struct fw_qp *q, unsigned int node, struct rnic_cq *scq,
			 struct rnic_cq *rcq, const struct fw_qp_params *p)
{
	struct rnic_qp_init init = {
		.type = IBV_QPT_RC,
		.pdn = fw.node[node].pd,
		.scqn = scq->cqn,
		.rcqn = rcq->cqn,
		.max_send_wr = p->max_send_wr,
		.max_recv_wr = p->max_recv_wr,
		.max_send_sge = p->max_send_sge,
		.max_recv_sge = p->max_recv_sge,
	};
	int ret;

	memset(q, 0, sizeof(*q));
	q->node = node;
	ret = rnic_qp_create(fw.node[node].dev, &init, &q->hw);
	FZ_CHECK(!ret, "rnic_qp_create failed: %d", ret);
	q->mtu = 128u << p->mtu;
}

/*
 * A command takes a few tens of cycles. One that takes thousands means the
 * node's MMIO is stuck behind a doorbell the RNIC does not take (finding
 * db-starvation); the CQs, not polled meanwhile, may have overrun too.
 */
#define FW_CMD_MAX_CYCLES	2000

static void fw_cmd_check(uint64_t start, const char *what, uint32_t qpn)
{
	uint64_t c = rnic_sim_cycle(fw.sim) - start;

	FZ_CHECK(c < FW_CMD_MAX_CYCLES, "%s of QP %u took %llu cycles: the node's "
		 "MMIO (and command interface) was blocked (finding db-starvation)",
		 what, qpn, (unsigned long long)c);
}

static void fw_qp_modify(struct fw_qp *q, struct ibv_qp_attr *a, int mask)
{
	uint64_t start = rnic_sim_cycle(fw.sim);
	int ret = rnic_qp_modify(fw.node[q->node].dev, &q->hw, a, mask);

	FZ_CHECK(!ret, "rnic_qp_modify(QP %u to %d, mask %#x) failed: %d",
		 q->hw.qpn, a->qp_state, mask, ret);
	fw_cmd_check(start, "rnic_qp_modify", q->hw.qpn);
}

/* RESET -> INIT -> RTR -> RTS towards @peer. */
static void fw_qp_connect(struct fw_qp *q, const struct fw_qp *peer,
			  const struct fw_qp_params *p)
{
	struct ibv_qp_attr a;

	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_INIT;
	a.port_num = 1;
	a.qp_access_flags = p->access;
	fw_qp_modify(q, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT |
		     IBV_QP_ACCESS_FLAGS);

	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTR;
	a.path_mtu = p->mtu;
	a.dest_qp_num = peer->hw.qpn;
	a.rq_psn = p->rq_psn;
	a.max_dest_rd_atomic = p->max_dest_rd_atomic;
	a.min_rnr_timer = p->min_rnr_timer;
	a.ah_attr.is_global = 1;
	a.ah_attr.port_num = 1;
	rnic_ip_to_gid(fw.node[peer->node].dev->ip, &a.ah_attr.grh.dgid);
	fw_qp_modify(q, &a, IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU |
		     IBV_QP_DEST_QPN | IBV_QP_RQ_PSN | IBV_QP_MAX_DEST_RD_ATOMIC |
		     IBV_QP_MIN_RNR_TIMER);

	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTS;
	a.sq_psn = p->sq_psn;
	a.timeout = p->timeout;
	a.retry_cnt = p->retry_cnt;
	a.rnr_retry = p->rnr_retry;
	a.max_rd_atomic = p->max_rd_atomic;
	fw_qp_modify(q, &a, IBV_QP_STATE | IBV_QP_SQ_PSN | IBV_QP_TIMEOUT |
		     IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY | IBV_QP_MAX_QP_RD_ATOMIC);
}

static void fw_qp_to_err(struct fw_qp *q)
{
	struct ibv_qp_attr a;

	FZ_LOG("  node %u QP %u to ERR (cycle %llu)\n", q->node, q->hw.qpn,
	       (unsigned long long)rnic_sim_cycle(fw.sim));
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_ERR;
	fw_qp_modify(q, &a, IBV_QP_STATE);
}

static uint8_t *fw_wqe(struct fw_qp *q, int recv, uint16_t idx)
{
	const struct rnic_wq_geom *g = recv ? &q->hw.rq : &q->hw.sq;

	return (uint8_t *)g->buf + ((size_t)(idx & (g->entries - 1)) << g->log_stride);
}

static void fw_put_seg(uint8_t *seg, uint64_t w0, uint64_t w1)
{
	w0 = htole64(w0);
	w1 = htole64(w1);
	memcpy(seg, &w0, 8);
	memcpy(seg + 8, &w1, 8);
}

static void fw_ring(unsigned int node, int recv, uint32_t qpn, uint16_t pi)
{
	struct fw_qp *q;

	FZ_LOG("  %s_DB node %u qpn %u pi %u (cycle %llu)\n", recv ? "RQ" : "SQ", node,
	       qpn, pi, (unsigned long long)rnic_sim_cycle(fw.sim));
	/* The hardware takes 24 bits of QPN; it is ours if those match. */
	if ((q = fw_find_qp(node, qpn & 0xffffff))) {
		struct fw_wq *wq = recv ? &q->rq : &q->sq;
		uint32_t ring = recv ? q->hw.rq.entries : q->hw.sq.entries;

		/*
		 * Finding db-starvation (tb/fuzz/findings/): a producer index
		 * behind the last one (or far ahead) makes the RNIC walk (and
		 * flush) up to 65535 WQEs, and meanwhile it takes no doorbell
		 * of the node, which stalls all its MMIO (commands time out).
		 * While the finding is excluded, producer indices only move
		 * forward, by at most two rings.
		 */
		if (fz_excluded("db-starvation") &&
		    (uint16_t)(pi - wq->db) > 2 * ring + 8) {
			FZ_LOG("  (db-starvation excluded: pi %u -> %u)\n", pi, wq->db);
			pi = wq->db;
		}
		/*
		 * The RNIC takes a producer index only if it is not behind
		 * the current one and at most 32768 WQEs (a full ring) past
		 * the queue's done (SQ, rnic_sq_fetch) or consumer index
		 * (RQ, rnic_responder; finding sq-pi-wrap): with that index
		 * D, a step of at most 0x8000 - (db - D). D is not visible
		 * here, but it lies between the WQEs seen completed (next,
		 * less a few whose report is on its way) and db. A step
		 * beyond 0x8000 is ignored whatever D is: rung, but the
		 * queue stays as it was. One that only some D would take is
		 * not rung (the doorbell is rung with db instead, which
		 * changes nothing).
		 */
		{
			uint16_t step = pi - wq->db, busy = wq->db - wq->next;

			if (step > 0x8000) {
				FZ_LOG("  (%s producer index %u behind %u or past a full ring: "
				       "ignored)\n", recv ? "RQ" : "SQ", pi, wq->db);
				rnic_sim_mmio_write(fw.sim, node,
						    recv ? RNIC_REG_RQ_DB : RNIC_REG_SQ_DB,
						    rnic_db_wq(qpn, pi));
				return;
			}
			if (busy >= 0x8000 - FW_DONE_LAG ||
			    step > 0x8000 - FW_DONE_LAG - busy) {
				FZ_LOG("  (%s producer index %u: taken or not depends on the "
				       "done index, rung as %u)\n", recv ? "RQ" : "SQ", pi,
				       wq->db);
				pi = wq->db;
			}
		}
		/*
		 * Finding rx-slot-leak (tb/fuzz/findings/): the ACK of a WQE
		 * that has a locally failed WQE behind it leaks one of the
		 * node's three RX frame slots; after three the node receives
		 * nothing. While the finding is excluded, send WQEs are made
		 * signaled and rung one at a time, each once the ones before
		 * it completed (or a bound passed), so that no WQE waits for
		 * an ACK with a failed one behind it. (A producer index far
		 * ahead is rung as it is: what the RNIC then walks is mostly
		 * zeros and flushes.)
		 */
		if (!recv && fz_excluded("rx-slot-leak") &&
		    (uint16_t)(pi - wq->db) && (uint16_t)(pi - wq->db) <= 2 * ring + 8) {
			uint16_t k;

			for (k = wq->db; k != pi; k++) {
				uint64_t start = rnic_sim_cycle(fw.sim);

				/* A WQE the peer never answers (it dropped the
				 * request) cannot leak a slot: ring on after the
				 * bound. */
				while ((uint16_t)(wq->next - k) >= 0x8000 &&
				       rnic_sim_cycle(fw.sim) - start < 20000)
					fw_run(FW_POLL_STEP);
				fw_wqe(q, 0, k)[1] |= RNIC_WQE_F_SIGNALED;
				wq->db = k + 1;
				rnic_sim_mmio_write(fw.sim, node, RNIC_REG_SQ_DB,
						    rnic_db_wq(qpn, k + 1));
			}
			return;
		}
		wq->db = pi;
	}
	rnic_sim_mmio_write(fw.sim, node, recv ? RNIC_REG_RQ_DB : RNIC_REG_SQ_DB,
			    rnic_db_wq(qpn, pi));
}

/* ------------------------------------------------------------------------ */
/* Building WQEs                                                            */
/* ------------------------------------------------------------------------ */

/* A key for a fuzzed segment: mostly right, often subtly wrong. */
static uint32_t fw_pick_key(struct fz_in *in, const struct fw_node *n)
{
	uint32_t nmr = n->dev->caps.n_mr;

	switch (fz_below(in, 12)) {
	case 0: return n->mr_ro.key;
	case 1: return n->mr_oth.key;
	case 2: return n->dead_key;
	case 3: return n->mr.key ^ (1u + fz_below(in, 255));	/* key byte */
	case 4: return n->mr.key + 0x100;			/* next index */
	case 5: return (nmr + fz_u16(in)) << 8 | (n->mr.key & 0xff); /* beyond table */
	case 6: return fz_u32(in);
	case 7: return 0;
	default: return n->mr.key;
	}
}

/* An address and length inside the data MR, or near/over its edges. */
static void fw_pick_range(struct fz_in *in, const struct fw_node *n,
			  unsigned int mtu, uint64_t *va, uint32_t *len)
{
	uint64_t base = n->mr.va;
	uint32_t l, off;

	switch (fz_below(in, 8)) {
	case 0: l = 0; break;
	case 1: l = 1 + fz_below(in, 64); break;
	case 2: l = 1 + fz_below(in, 3 * mtu); break;
	case 3: l = mtu * (1 + fz_below(in, 4)); break;
	case 4: l = 1 + fz_u16(in) % (16u << 10); break;
	default: l = 1 + fz_below(in, 2 * mtu); break;
	}
	off = fz_u16(in) % (FW_DATA_LEN - (l < FW_DATA_LEN ? l : 0) + 1);
	switch (fz_below(in, 32)) {
	case 0: *va = base + FW_DATA_LEN - l + 1 + fz_below(in, 8); break; /* over the end */
	case 1: *va = base - 1 - fz_below(in, 64); break;		/* before it */
	case 2: *va = fz_u64(in); break;
	case 3: *va = n->mr_ro.va + fz_below(in, FW_GUARD_LEN); break;
	case 4: *va = n->mr_oth.va + fz_below(in, FW_GUARD_LEN); break;
	case 5: l = fz_u32(in); *va = base + (l < FW_DATA_LEN ? off : 0); break;
	default: *va = base + off; break;
	}
	*len = l;
}

/*
 * Finding sendinv-no-recv (tb/fuzz/findings/): a SEND_WITH_INV to a QP with
 * no receive WQE posted consumes one that was never posted (instead of an
 * RNR NAK), and the receive queue then flushes 65535 WQEs. While the
 * finding is excluded, send WQEs never carry that opcode (it becomes SEND).
 */
static void fw_no_sendinv(uint8_t *w)
{
	if (w[0] == RNIC_WQE_OP_SEND_INV && fz_excluded("sendinv-no-recv"))
		w[0] = RNIC_WQE_OP_SEND;
}

static const uint8_t fw_sq_ops[] = {
	RNIC_WQE_OP_WRITE, RNIC_WQE_OP_WRITE_IMM, RNIC_WQE_OP_SEND,
	RNIC_WQE_OP_SEND_IMM, RNIC_WQE_OP_READ, RNIC_WQE_OP_CMP_SWAP,
	RNIC_WQE_OP_FETCH_ADD, RNIC_WQE_OP_WRITE, RNIC_WQE_OP_SEND,
	RNIC_WQE_OP_READ,
	/* Local operations and SEND_WITH_INV with random keys (in the
	 * immediate field), a BIND_MW with random segments. */
	RNIC_WQE_OP_SEND_INV, RNIC_WQE_OP_LOCAL_INV, RNIC_WQE_OP_BIND_MW,
};

/* A well-formed send WQE at the QP's producer slot, perhaps mutated. */
static void fw_build_send(struct fz_in *in, struct fw_qp *q)
{
	const struct fw_node *ln = &fw.node[q->node];
	const struct fw_node *rn = &fw.node[fw.qp[q->peer].node];
	unsigned int stride = 1u << q->hw.sq.log_stride;
	uint8_t op = fw_sq_ops[fz_below(in, sizeof(fw_sq_ops))];
	int atomic = op == RNIC_WQE_OP_CMP_SWAP || op == RNIC_WQE_OP_FETCH_ADD;
	int raddr = op == RNIC_WQE_OP_WRITE || op == RNIC_WQE_OP_WRITE_IMM ||
		    op == RNIC_WQE_OP_READ || atomic || op == RNIC_WQE_OP_BIND_MW;
	unsigned int nsge = fz_below(in, q->hw.sq.max_sge + 1), i, ds;
	uint8_t *w = fw_wqe(q, 0, q->sq.pi), *seg;
	uint8_t flags = fz_u8(in) & (fz_below(in, 8) ? 7 : 0xf);	/* 8: inline */
	uint64_t rva;
	uint32_t rlen, rkey;

	memset(w, 0, stride);
	seg = w + RNIC_SEG_SIZE;
	if (raddr) {
		fw_pick_range(in, rn, q->mtu, &rva, &rlen);
		if (atomic)
			rva = (rn->mr.va + (fz_u16(in) % (FW_DATA_LEN / 8)) * 8) ^
			      (fz_below(in, 8) ? 0 : fz_below(in, 8)); /* misaligned */
		rkey = fz_below(in, 8) ? rn->mr.key : fw_pick_key(in, rn);
		fw_put_seg(seg, rva, rkey);
		seg += RNIC_SEG_SIZE;
	}
	if (atomic || op == RNIC_WQE_OP_BIND_MW) {
		fw_put_seg(seg, fz_u64(in), fz_u64(in));
		seg += RNIC_SEG_SIZE;
		if (fz_below(in, 4))
			nsge = 1;
	}
	for (i = 0; i < nsge && seg + RNIC_SEG_SIZE <= w + stride; i++) {
		uint64_t va;
		uint32_t len, key;

		fw_pick_range(in, ln, q->mtu, &va, &len);
		if (atomic && fz_below(in, 4))
			len = 8;
		key = fz_below(in, 8) ? ln->mr.key : fw_pick_key(in, ln);
		fw_put_seg(seg, len | (uint64_t)key << 32, va);
		seg += RNIC_SEG_SIZE;
	}
	ds = (unsigned int)(seg - w) / RNIC_SEG_SIZE;
	/* The immediate field: imm data, or the key to invalidate. */
	fw_put_seg(w, op | (uint64_t)flags << 8 | (uint64_t)q->sq.pi << 16 |
		   (uint64_t)ds << 32, fz_below(in, 2) ? fw_pick_key(in, rn) : fz_u32(in));
	/* Mutations (in a quarter of the WQEs): a raw byte anywhere in the
	 * WQE, or a whole field. */
	for (i = fz_below(in, 4) ? 0 : 1 + fz_below(in, 3); i; i--) {
		unsigned int at = fz_below(in, stride);

		switch (fz_below(in, 4)) {
		case 0: w[at] = fz_u8(in); break;
		case 1: w[4] = fz_u8(in); break;			/* ds */
		case 2: w[0] = fz_u8(in); break;			/* opcode */
		default: memcpy(w + (at & ~3u), &(uint32_t){ fz_u32(in) }, 4); break;
		}
	}
	if (fz_excluded("rx-slot-leak"))	/* see fw_ring() */
		w[1] |= RNIC_WQE_F_SIGNALED;
	fw_no_sendinv(w);
	FZ_LOG("  build SQ node %u qpn %u idx %u op %#x ds %u\n", q->node, q->hw.qpn,
	       q->sq.pi, w[0], w[4]);
	q->sq.pi++;
	if (fz_below(in, 2))
		fw_ring(q->node, 0, q->hw.qpn, q->sq.pi);
}

static void fw_build_recv(struct fz_in *in, struct fw_qp *q)
{
	const struct fw_node *ln = &fw.node[q->node];
	unsigned int stride = 1u << q->hw.rq.log_stride;
	unsigned int nsge = fz_below(in, q->hw.rq.max_sge + 1), i;
	uint8_t *w = fw_wqe(q, 1, q->rq.pi);

	memset(w, 0, stride);
	for (i = 0; i < nsge; i++) {
		uint64_t va;
		uint32_t len, key;

		fw_pick_range(in, ln, q->mtu, &va, &len);
		key = fz_below(in, 8) ? ln->mr.key : fw_pick_key(in, ln);
		fw_put_seg(w + (i + 1) * RNIC_SEG_SIZE, len | (uint64_t)key << 32, va);
	}
	fw_put_seg(w, nsge | (uint64_t)q->rq.pi << 16, 0);
	for (i = fz_below(in, 4) ? 0 : 1 + fz_below(in, 2); i; i--) {
		unsigned int at = fz_below(in, stride);

		if (fz_below(in, 2))
			w[0] = fz_u8(in);				/* nsge */
		else
			memcpy(w + (at & ~3u), &(uint32_t){ fz_u32(in) }, 4);
	}
	FZ_LOG("  build RQ node %u qpn %u idx %u nsge %u\n", q->node, q->hw.qpn,
	       q->rq.pi, w[0]);
	q->rq.pi++;
	if (fz_below(in, 2))
		fw_ring(q->node, 1, q->hw.qpn, q->rq.pi);
}

/* Raw input bytes as a WQE, at the producer slot or anywhere in the ring. */
static void fw_raw(struct fz_in *in, struct fw_qp *q, int recv)
{
	struct fw_wq *wq = recv ? &q->rq : &q->sq;
	const struct rnic_wq_geom *g = recv ? &q->hw.rq : &q->hw.sq;
	uint16_t idx = fz_below(in, 4) ? wq->pi++ : fz_u16(in);

	fz_bytes(in, fw_wqe(q, recv, idx), (size_t)1 << g->log_stride);
	if (!recv && fz_excluded("rx-slot-leak"))	/* see fw_ring() */
		fw_wqe(q, recv, idx)[1] |= RNIC_WQE_F_SIGNALED;
	if (!recv)
		fw_no_sendinv(fw_wqe(q, recv, idx));
	FZ_LOG("  raw %s node %u qpn %u idx %u\n", recv ? "RQ" : "SQ", q->node,
	       q->hw.qpn, idx);
}

/* A doorbell with a producer index from the input. */
static void fw_doorbell(struct fz_in *in, int recv)
{
	struct fw_qp *q = &fw.qp[fz_below(in, fw.nqp)];
	struct fw_wq *wq = recv ? &q->rq : &q->sq;
	unsigned int node = q->node;
	uint32_t qpn = q->hw.qpn, nqp = fw.node[node].dev->caps.n_qp;
	uint16_t pi;

	switch (fz_below(in, 16)) {
	case 0: case 1: case 2: case 3: case 4: case 5: case 6: case 7:
		pi = wq->pi;					/* what was built */
		break;
	case 8: case 9:
		pi = wq->db + fz_below(in, 4);			/* a little ahead */
		break;
	case 10:
		pi = wq->db - 1 - fz_below(in, 4);		/* backwards: wraps */
		break;
	case 11:
		pi = fz_u16(in);
		break;
	case 12:
		qpn = fz_below(in, nqp);			/* any QPN */
		pi = fz_u16(in);
		break;
	case 13:
		qpn = nqp + fz_u32(in) % (0x1000000 - nqp);	/* beyond the table */
		pi = fz_u16(in);
		break;
	case 14:
		qpn |= (fz_u32(in) & 0xff) << 24;		/* junk above the field */
		pi = wq->pi;
		break;
	default:
		node ^= 1;					/* the other node */
		pi = wq->pi;
		break;
	}
	fw_ring(node, recv, qpn, pi);
}

/* CQ_DB or any other address of the doorbell page, with a random value. */
static void fw_other_doorbell(struct fz_in *in)
{
	unsigned int node = fz_below(in, FW_NODES);
	uint32_t addr;
	uint64_t v;

	if (fz_below(in, 2)) {
		struct fw_cq *cq = fz_below(in, 2) ? &fw.scq[node] : &fw.rcq[node];

		addr = RNIC_REG_CQ_DB;
		v = fz_below(in, 4) ? rnic_db_cq(cq->hw.cqn, fz_u8(in) & 1, fz_u8(in) & 1) :
				      fz_u64(in);
	} else {
		addr = RNIC_REG_SQ_DB + 8 * fz_below(in, 8);
		v = fz_u64(in);
		if (addr == RNIC_REG_SQ_DB || addr == RNIC_REG_RQ_DB) {
			struct fw_qp *q = fw_find_qp(node, v & 0xffffff);

			if (q) {	/* keep the harness's view of the indices */
				fw_ring(node, addr == RNIC_REG_RQ_DB, v & 0xffffff,
					(uint16_t)(v >> 32));
				return;
			}
		}
	}
	FZ_LOG("  mmio node %u [%#x] = %#llx\n", node, addr, (unsigned long long)v);
	rnic_sim_mmio_write(fw.sim, node, addr, v);
}

/* ------------------------------------------------------------------------ */
/* One input                                                                */
/* ------------------------------------------------------------------------ */

static void fw_pick_params(struct fz_in *in, struct fw_qp_params *p)
{
	static const uint32_t wrs[] = { 1, 2, 4, 8, 16, 64 };

	memset(p, 0, sizeof(*p));
	p->max_send_wr = wrs[fz_below(in, 6)];
	p->max_recv_wr = wrs[fz_below(in, 6)];
	p->max_send_sge = fz_below(in, fw.node[0].dev->caps.max_sge + 1);
	p->max_recv_sge = fz_below(in, fw.node[0].dev->caps.max_sge + 1);
	p->mtu = IBV_MTU_256 + fz_below(in, 5);
	p->access = fz_below(in, 4) ? (FW_LW | FW_RW | FW_RR | FW_RA) :
				      fz_below(in, 16);
	/* Short timers: an input must end in bounded time (docs/transport.md). */
	p->timeout = 1 + fz_below(in, 3);
	p->retry_cnt = fz_below(in, 3);
	p->rnr_retry = fz_below(in, 3);
	/* Finding rewind-flush-dup (tb/fuzz/findings/): while it is excluded
	 * nothing rewinds the send queue: no RNR wait (an RNR NAK ends the WQE
	 * at once), no ACK timer. */
	if (fz_excluded("rewind-flush-dup")) {
		p->rnr_retry = 0;
		p->timeout = 0;
	}
	p->min_rnr_timer = 1 + fz_below(in, 2);
	p->max_rd_atomic = fz_below(in, 8) ? 1 + fz_below(in, 8) : 0;
	p->max_dest_rd_atomic = fz_below(in, 8) ? 1 + fz_below(in, 8) : 0;
	p->sq_psn = fz_below(in, 4) ? fz_u32(in) & 0xffffff : 0xffffff - fz_below(in, 4);
	p->rq_psn = fz_u32(in) & 0xffffff;
}

static void fw_create_qps(struct fz_in *in)
{
	int npairs = 1 + fz_below(in, FW_MAX_PAIRS), i, k;

	fw_reg_mrs();
	for (i = 0; i < FW_NODES; i++) {
		fw_cq_create(&fw.scq[i], i, 0);
		fw_cq_create(&fw.rcq[i], i, 1);
	}
	fw.nqp = 2 * npairs;
	for (i = 0; i < npairs; i++) {
		struct fw_qp *a = &fw.qp[2 * i], *b = &fw.qp[2 * i + 1];
		struct fw_qp_params pa, pb;
		unsigned int nb = fz_below(in, 4) ? 1 : 0;	/* loopback pair */

		fw_pick_params(in, &pa);
		fw_pick_params(in, &pb);
		pb.mtu = pa.mtu;
		pb.rq_psn = pa.sq_psn;
		pa.rq_psn = pb.sq_psn;
		fw_qp_create(a, 0, &fw.scq[0].hw, &fw.rcq[0].hw, &pa);
		fw_qp_create(b, nb, &fw.scq[nb].hw, &fw.rcq[nb].hw, &pb);
		a->peer = 2 * i + 1;
		b->peer = 2 * i;
		fw_qp_connect(a, b, &pa);
		fw_qp_connect(b, a, &pb);
		/* Some receives up front, so that SENDs can succeed. */
		for (k = fz_below(in, 4); k; k--) {
			fw_build_recv(in, a);
			fw_build_recv(in, b);
		}
		FZ_LOG("  pair %d: node 0 QP %u <-> node %u QP %u, mtu %u\n", i,
		       a->hw.qpn, nb, b->hw.qpn, a->mtu);
	}
}

enum {
	FW_OP_RAW_SQ, FW_OP_RAW_RQ, FW_OP_SEND, FW_OP_RECV, FW_OP_SEND2,
	FW_OP_RECV2, FW_OP_SQ_DB, FW_OP_RQ_DB, FW_OP_SQ_DB2, FW_OP_RQ_DB2,
	FW_OP_OTHER_DB, FW_OP_STEP, FW_OP_ERR, FW_OP_NUM
};

static void fw_program(struct fz_in *in)
{
	int ops;

	for (ops = 0; ops < FW_MAX_OPS && in->n; ops++) {
		switch (fz_below(in, FW_OP_NUM)) {
		case FW_OP_RAW_SQ:
			fw_raw(in, &fw.qp[fz_below(in, fw.nqp)], 0);
			break;
		case FW_OP_RAW_RQ:
			fw_raw(in, &fw.qp[fz_below(in, fw.nqp)], 1);
			break;
		case FW_OP_SEND:
		case FW_OP_SEND2:
			fw_build_send(in, &fw.qp[fz_below(in, fw.nqp)]);
			break;
		case FW_OP_RECV:
		case FW_OP_RECV2:
			fw_build_recv(in, &fw.qp[fz_below(in, fw.nqp)]);
			break;
		case FW_OP_SQ_DB:
		case FW_OP_SQ_DB2:
			fw_doorbell(in, 0);
			break;
		case FW_OP_RQ_DB:
		case FW_OP_RQ_DB2:
			fw_doorbell(in, 1);
			break;
		case FW_OP_OTHER_DB:
			fw_other_doorbell(in);
			break;
		case FW_OP_STEP:
			fw_run(1 + fz_u16(in) % 4096);
			break;
		case FW_OP_ERR:
			fw_qp_to_err(&fw.qp[fz_below(in, fw.nqp)]);
			break;
		}
	}
}

/* Let the traffic run until nothing happens for a while (or a bound). */
static void fw_settle(void)
{
	uint64_t start = rnic_sim_cycle(fw.sim);
	unsigned int idle = 0;

	while (idle < FW_IDLE_STEPS && rnic_sim_cycle(fw.sim) - start < FW_SETTLE_MAX) {
		uint64_t w = rnic_sim_dma_writes(fw.sim, 0) + rnic_sim_dma_writes(fw.sim, 1);
		uint64_t f = rnic_sim_wire_frames(fw.sim, 0) + rnic_sim_wire_frames(fw.sim, 1);

		if (fw_run(FW_POLL_STEP) ||
		    w != rnic_sim_dma_writes(fw.sim, 0) + rnic_sim_dma_writes(fw.sim, 1) ||
		    f != rnic_sim_wire_frames(fw.sim, 0) + rnic_sim_wire_frames(fw.sim, 1))
			idle = 0;
		else
			idle++;
	}
}

/*
 * Rings the producer index that posts the sentinel. fw_ring() does not ring
 * it while the RNIC might not take it (the sentinel more than a full ring
 * minus FW_DONE_LAG past the WQEs seen completed; finding sentinel-not-rung,
 * an RQ with 32704 WQEs outstanding): the drain then rings it again as the
 * flush completes WQEs.
 */
static void fw_ring_sentinel(struct fw_qp *q, int recv)
{
	struct fw_wq *wq = recv ? &q->rq : &q->sq;

	wq->sentinel_tried = wq->next;
	fw_ring(q->node, recv, q->hw.qpn, wq->sentinel + 1);
}

static void fw_arm_sentinel(struct fw_qp *q, int recv)
{
	struct fw_wq *wq = recv ? &q->rq : &q->sq;
	uint8_t *w = fw_wqe(q, recv, wq->db);

	/* Content does not matter for a QP in ERR; make it plausible anyway. */
	memset(w, 0, (size_t)1 << (recv ? q->hw.rq.log_stride : q->hw.sq.log_stride));
	if (recv)
		fw_put_seg(w, (uint64_t)wq->db << 16, 0);
	else
		fw_put_seg(w, RNIC_WQE_OP_SEND | RNIC_WQE_F_SIGNALED << 8 |
			   (uint64_t)wq->db << 16 | 1ULL << 32, 0);
	wq->sentinel = wq->db;
	wq->sentinel_armed = 1;
	wq->sentinel_seen = 0;
	fw_ring_sentinel(q, recv);
}

/* Every QP to ERR, a sentinel WQE on each queue, all of them must flush. */
static void fw_drain(void)
{
	uint64_t budget = FW_DRAIN_BASE, start;
	int i, all;

	for (i = 0; i < fw.nqp; i++) {
		struct fw_qp *q = &fw.qp[i];

		fw_qp_to_err(q);
		/* db - next WQEs and the sentinel (65536 when db - next is
		 * 65535: the sum must not wrap to 0 in 16 bits). */
		budget += FW_DRAIN_PER_WQE * ((uint32_t)(uint16_t)(q->sq.db - q->sq.next) + 1 +
					      (uint32_t)(uint16_t)(q->rq.db - q->rq.next) + 1);
		fw_arm_sentinel(q, 0);
		fw_arm_sentinel(q, 1);
	}
	start = rnic_sim_cycle(fw.sim);
	for (;;) {
		for (all = 1, i = 0; i < fw.nqp; i++) {
			struct fw_qp *q = &fw.qp[i];
			int recv;

			all &= q->sq.sentinel_seen & q->rq.sentinel_seen;
			/* A sentinel not rung yet (db still names it), once
			 * more WQEs completed. */
			for (recv = 0; recv < 2; recv++) {
				struct fw_wq *wq = recv ? &q->rq : &q->sq;

				if (!wq->sentinel_seen && wq->db == wq->sentinel &&
				    wq->next != wq->sentinel_tried)
					fw_ring_sentinel(q, recv);
			}
		}
		if (all)
			break;
		if (rnic_sim_cycle(fw.sim) - start > budget) {
			for (i = 0; i < fw.nqp; i++) {
				struct fw_qp *q = &fw.qp[i];
				enum ibv_qp_state st = IBV_QPS_RESET;
				uint32_t sp = 0, rp = 0;

				rnic_qp_query_hw(fw.node[q->node].dev, &q->hw, &st, &sp, &rp);
				fprintf(stderr, "  node %u QP %u (hw state %d, sq_psn %#x, "
					"rq_psn %#x): SQ next %u sentinel %u %s, RQ next %u "
					"sentinel %u %s\n", q->node, q->hw.qpn, st, sp, rp,
					q->sq.next, q->sq.sentinel,
					q->sq.sentinel_seen ? "flushed" : "MISSING",
					q->rq.next, q->rq.sentinel,
					q->rq.sentinel_seen ? "flushed" : "MISSING");
			}
			FZ_CHECK(0, "hang: %llu cycles after every QP went to ERR, WQEs "
				 "posted to them have not completed (listed above)",
				 (unsigned long long)(rnic_sim_cycle(fw.sim) - start));
		}
		fw_run(FW_POLL_STEP);
	}
	/* Nothing may complete after the sentinel. */
	fw_run(2 * FW_POLL_STEP);
}

static void fw_teardown(void)
{
	int i;

	for (i = 0; i < fw.nqp; i++)
		rnic_qp_destroy(fw.node[fw.qp[i].node].dev, &fw.qp[i].hw);
	fw.nqp = 0;
	for (i = 0; i < FW_NODES; i++) {
		fw_cq_destroy(&fw.scq[i]);
		fw_cq_destroy(&fw.rcq[i]);
		FZ_CHECK(!memcmp(fw.node[i].ro, fw.ro_pattern, FW_GUARD_LEN),
			 "node %u: the MR without write access was written", i);
		FZ_CHECK(!memcmp(fw.node[i].oth, fw.oth_pattern, FW_GUARD_LEN),
			 "node %u: the MR of another PD was written", i);
	}
	fw_dereg_mrs();
}

/* ------------------------------------------------------------------------ */
/* The known-good exchange: SEND, WRITE, READ between fresh QPs, byte-exact */
/* ------------------------------------------------------------------------ */

/* Waits for one CQE on @cq and checks it. */
static void fw_good_wait(struct fw_cq *cq, struct fw_qp *q, uint16_t idx,
			 unsigned int opcode, uint32_t byte_len, const char *what)
{
	uint64_t start = rnic_sim_cycle(fw.sim);
	struct rnic_cqe *e;

	for (;;) {
		e = &cq->hw.ring[cq->ci & (cq->hw.entries - 1)];
		if (rnic_cqe_is_new(e, cq->ci, cq->hw.log_size))
			break;
		FZ_CHECK(rnic_sim_cycle(fw.sim) - start < FW_GOOD_MAX,
			 "known-good exchange after input %lu: %s did not complete "
			 "within %u cycles (node %u QP %u): the RNIC no longer works",
			 fw.input_no, what, FW_GOOD_MAX, q->node, q->hw.qpn);
		rnic_sim_wait(fw.sim, cq->node, FW_POLL_STEP);
	}
	cq->ci++;
	FZ_CHECK(e->status == IBV_WC_SUCCESS && e->opcode == opcode &&
		 (le32toh(e->qpn) & 0xffffff) == q->hw.qpn && le16toh(e->wqe_idx) == idx &&
		 le32toh(e->byte_len) == byte_len,
		 "known-good exchange after input %lu: %s completed with status %u "
		 "opcode %u qpn %u idx %u len %u (want 0, %u, %u, %u, %u)", fw.input_no,
		 what, e->status, e->opcode, le32toh(e->qpn), le16toh(e->wqe_idx),
		 le32toh(e->byte_len), opcode, q->hw.qpn, idx, byte_len);
}

static void fw_good_send(struct fw_qp *q, uint8_t op, uint64_t rva, uint32_t rkey,
			 uint64_t va, uint32_t len, uint32_t lkey)
{
	uint8_t *w = fw_wqe(q, 0, q->sq.pi);
	unsigned int ds = 1;

	memset(w, 0, (size_t)1 << q->hw.sq.log_stride);
	if (op != RNIC_WQE_OP_SEND)
		fw_put_seg(w + ds++ * RNIC_SEG_SIZE, rva, rkey);
	fw_put_seg(w + ds++ * RNIC_SEG_SIZE, len | (uint64_t)lkey << 32, va);
	fw_put_seg(w, op | (uint64_t)RNIC_WQE_F_SIGNALED << 8 |
		   (uint64_t)q->sq.pi << 16 | (uint64_t)ds << 32, 0);
	q->sq.pi++;
	rnic_ring_sq(fw.node[q->node].dev, q->hw.qpn, q->sq.pi);
}

static void fw_good_exchange(void)
{
	enum { LEN = 16384, SEND_LEN = 3000, WR_OFF = 4096, WR_LEN = 5000,
	       RD_OFF = 12288, RD_LEN = 2000 };
	struct fw_qp_params p = {
		.max_send_wr = 4, .max_recv_wr = 4, .max_send_sge = 1, .max_recv_sge = 1,
		.mtu = IBV_MTU_1024, .access = FW_LW | FW_RW | FW_RR,
		.timeout = 8, .retry_cnt = 3, .rnr_retry = 3, .min_rnr_timer = 1,
		.max_rd_atomic = 1, .max_dest_rd_atomic = 1,
	};
	struct fw_cq cq[FW_NODES][2];
	struct fw_qp a, b;
	struct rnic_mr ma, mb;
	uint8_t *src = fw_alloc(LEN), *dst = fw_alloc(LEN);
	uint8_t *w;
	int i;

	fz_fill(src, LEN, ++fw.good_seed);
	for (i = 0; i < FW_NODES; i++) {
		fw_cq_create(&cq[i][0], i, 0);
		fw_cq_create(&cq[i][1], i, 1);
	}
	fw_reg(&fw.node[0], fw.node[0].pd, src, LEN, FW_ALL, &ma);
	fw_reg(&fw.node[1], fw.node[1].pd, dst, LEN, FW_ALL, &mb);
	p.sq_psn = p.rq_psn = (uint32_t)fw.good_seed * 0x9e3779u & 0xffffff;
	fw_qp_create(&a, 0, &cq[0][0].hw, &cq[0][1].hw, &p);
	fw_qp_create(&b, 1, &cq[1][0].hw, &cq[1][1].hw, &p);
	fw_qp_connect(&a, &b, &p);
	fw_qp_connect(&b, &a, &p);
	FZ_LOG("  known-good exchange: node 0 QP %u <-> node 1 QP %u\n", a.hw.qpn, b.hw.qpn);

	/* SEND into a posted receive */
	w = fw_wqe(&b, 1, 0);
	memset(w, 0, (size_t)1 << b.hw.rq.log_stride);
	fw_put_seg(w, 1, 0);
	fw_put_seg(w + RNIC_SEG_SIZE, LEN | (uint64_t)mb.key << 32, mb.va);
	rnic_ring_rq(fw.node[1].dev, b.hw.qpn, 1);
	fw_good_send(&a, RNIC_WQE_OP_SEND, 0, 0, ma.va, SEND_LEN, ma.key);
	fw_good_wait(&cq[1][1], &b, 0, IBV_WC_RECV, SEND_LEN, "SEND (receive side)");
	fw_good_wait(&cq[0][0], &a, 0, IBV_WC_SEND, SEND_LEN, "SEND");
	FZ_CHECK(!memcmp(dst, src, SEND_LEN), "known-good exchange after input %lu: "
		 "SEND data differ", fw.input_no);

	/* WRITE */
	fw_good_send(&a, RNIC_WQE_OP_WRITE, mb.va + WR_OFF, mb.key, ma.va + 7,
		     WR_LEN, ma.key);
	fw_good_wait(&cq[0][0], &a, 1, IBV_WC_RDMA_WRITE, WR_LEN, "WRITE");
	FZ_CHECK(!memcmp(dst + WR_OFF, src + 7, WR_LEN), "known-good exchange after "
		 "input %lu: WRITE data differ", fw.input_no);

	/* READ back what was written, into another part of src */
	fw_good_send(&a, RNIC_WQE_OP_READ, mb.va + WR_OFF + 100, mb.key,
		     ma.va + RD_OFF, RD_LEN, ma.key);
	fw_good_wait(&cq[0][0], &a, 2, IBV_WC_RDMA_READ, RD_LEN, "READ");
	FZ_CHECK(!memcmp(src + RD_OFF, dst + WR_OFF + 100, RD_LEN), "known-good "
		 "exchange after input %lu: READ data differ", fw.input_no);

	rnic_qp_destroy(fw.node[0].dev, &a.hw);
	rnic_qp_destroy(fw.node[1].dev, &b.hw);
	rnic_mr_dereg(fw.node[0].dev, &ma);
	rnic_mr_dereg(fw.node[1].dev, &mb);
	for (i = 0; i < FW_NODES; i++) {
		fw_cq_destroy(&cq[i][0]);
		fw_cq_destroy(&cq[i][1]);
	}
	free(src);
	free(dst);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fz_in in = { data, size };
	struct fz_health h;

	if (!fw.ready)
		fw_setup();
	fw.input_no++;
	fz_health_snap(fw.sim, &h);
	rnic_lock();
	fw_create_qps(&in);
	fw_program(&in);
	fw_settle();
	fw_drain();
	fz_health_check(fw.sim, &h, "after the fuzzed WQEs");
	fw_teardown();
	fw_good_exchange();
	fz_health_check(fw.sim, &h, "after the known-good exchange");
	fz_trace_sample(fw.sim);
	rnic_unlock();
	return 0;
}
