// SPDX-License-Identifier: MIT
/*
 * fuzz_verbs.c - harness B: random sequences of verbs calls with random
 * arguments.
 *
 * The input is a program over small pools of objects (contexts, PDs, MRs,
 * CQs, QPs): open/close device, alloc/dealloc PD, reg/dereg MR (random
 * ranges, lengths and access flags, valid or not), create/destroy CQ
 * (random cqe), create QP (random caps and types, CQs of other contexts),
 * modify QP (sane connection steps and random attribute masks, states and
 * values), post_send/post_recv chains (random opcodes, flags, num_sge, SGE
 * addresses, lengths and keys, rkeys), poll_cq with random num_entries
 * (also 0 and negative), req_notify_cq, queries, and the string and rate
 * helpers. Only pointers to live objects are passed (the verbs API does not
 * validate pointers), and only memory this harness owns is registered.
 *
 * Checked: every call returns what the library documents (the harness
 * models when a call must fail and with which errno, and which WR of a
 * chain *bad_wr names); every completion is one the harness posted (wr_id),
 * on the right CQ, in order, with a defined status; after an error only
 * errors; the QP state the library reports is the hardware's. At the end of
 * each input every QP goes to ERR and a signaled sentinel WR is posted:
 * every receive WR and the sentinel must come back (no hang; a send queue
 * full of unsignaled WRs takes no sentinel: it must hold no WQE the hardware
 * has not completed, QP_QUERY's draining bit); then
 * everything is destroyed (each call returns 0), the driver's resource
 * counts and IOMMU mappings are back to zero (no leaks; LSan checks the
 * heap in the clang build), no IOMMU fault, no protocol error, and a
 * known-good SEND/WRITE/READ exchange through the verbs still succeeds.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <fcntl.h>
#include <string.h>
#include <sys/mman.h>

#include <infiniband/verbs.h>

#include "fuzz_util.h"
#include "rnic_verbs.h"

#define FV_CTX		3
#define FV_PD		4
#define FV_MR		8
#define FV_CQ		4
#define FV_QP		6
#define FV_BUFS		4
#define FV_BUF_LEN	(64u << 10)
#define FV_MAX_OPS	96
#define FV_MAX_CHAIN	4
#define FV_MAX_SGE	20	/* above any max_sge, to test the limit */
#define FV_DRAIN_POLLS	20000	/* empty polls (256 cycles each) before a hang */
/* Polls of the drain after which a send queue full of unsignaled WRs no
 * CQE retired counts as drained (any flush CQE has come by then). */
#define FV_SENTINEL_POLLS	64

/* wr_id: which QP (serial), which queue, which WR. */
#define FV_WRID(serial, recv, seq) \
	((uint64_t)(serial) << 40 | (uint64_t)(recv) << 39 | (uint64_t)(seq))
#define FV_WRID_SERIAL(w)	((uint32_t)((w) >> 40))
#define FV_WRID_RECV(w)		((unsigned int)((w) >> 39) & 1)
#define FV_WRID_SEQ(w)		((w) & ((1ULL << 39) - 1))

struct fv_ctx {
	struct ibv_context *ctx;
	unsigned int node;
};

struct fv_pd {
	struct ibv_pd *pd;
	int ctx;
	int users;		/* MRs and QPs */
};

struct fv_mr {
	struct ibv_mr *mr;
	int pd;
	uint64_t va;		/* address the keys use */
	size_t len;
	unsigned int access;
};

struct fv_cq {
	struct ibv_cq *cq;
	int ctx;
	int users;
	uint32_t committed;	/* WRs of its QPs' queues that may complete on it */
};

/* One queue of a QP: what was posted and what came back. */
struct fv_wq {
	uint64_t posted;	/* WRs accepted (the next one's seq) */
	uint64_t retired;	/* WRs whose completion (or a later one's) was polled */
	uint64_t next;		/* lowest seq that may still complete */
	int errored;
	uint8_t *op;		/* opcode posted, by seq mod cap (send queue) */
	uint8_t *sig;		/* signaled, by seq mod cap */
	uint32_t cap;
};

struct fv_qp {
	struct ibv_qp *qp;
	int ctx, pd, scq, rcq;
	uint32_t serial;
	struct ibv_qp_cap cap;
	int sig_all;
	struct fv_wq sq, rq;
	enum ibv_qp_state state;	/* as the harness believes it */
	int sentinel_seen;
	uint64_t sentinel;
	int draining;
};

static struct {
	int ready;
	struct rnic_sim *sim;
	struct ibv_device **devs;
	int ndev;
	uint8_t *buf[FV_BUFS];
	uint8_t *ro;		/* PROT_READ mapping */
	uint32_t serial;
	unsigned long input_no;
	uint64_t good_seed;
	/* What the driver holds with nothing created: the device's own
	 * resources, such as the event queue (CQ 0) it maps at bring-up. */
	struct {
		uint32_t qpns, cqns, mrs, pds;
		uint64_t mapped;
	} base[RNIC_SIM_MAX_NODES];

	struct fv_ctx ctx[FV_CTX];
	struct fv_pd pd[FV_PD];
	struct fv_mr mr[FV_MR];
	struct fv_cq cq[FV_CQ];
	struct fv_qp qp[FV_QP];
} fv;

/* ------------------------------------------------------------------------ */
/* Setup                                                                    */
/* ------------------------------------------------------------------------ */

static void fv_setup(void)
{
	int i;

	fz_init_env();
	fv.devs = ibv_get_device_list(&fv.ndev);
	FZ_CHECK(fv.devs && fv.ndev >= 2, "ibv_get_device_list: %d devices", fv.ndev);
	for (i = 0; i < FV_BUFS; i++) {
		FZ_CHECK(!posix_memalign((void **)&fv.buf[i], 4096, FV_BUF_LEN), "oom");
		fz_fill(fv.buf[i], FV_BUF_LEN, 100 + i);
	}
	fv.ro = mmap(NULL, 2 * 4096, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	FZ_CHECK(fv.ro != MAP_FAILED, "mmap");
	fv.sim = rnic_sim_global();
	fz_sim = fv.sim;
	FZ_CHECK(fv.ndev <= RNIC_SIM_MAX_NODES, "%d devices", fv.ndev);
	/* The driver brings a device up on its first open and keeps it for
	 * the life of the process (like a loaded kernel driver); what it holds
	 * then is the baseline of the leak check. */
	for (i = 0; i < fv.ndev; i++) {
		struct rnic_dev *d;

		FZ_CHECK(!rnic_dev_open(i, &d), "rnic_dev_open(%d)", i);
		fv.base[i].qpns = d->qp_map.used;
		fv.base[i].cqns = d->cq_map.used;
		fv.base[i].mrs = d->mr_map.used;
		fv.base[i].pds = d->pd_map.used;
		fv.base[i].mapped = d->iova_mapped;
		rnic_dev_close(d);
	}
	fv.ready = 1;
}

/* ------------------------------------------------------------------------ */
/* Completions                                                              */
/* ------------------------------------------------------------------------ */

static int fv_status_ok(unsigned int s)
{
	return s <= IBV_WC_TM_RNDV_INCOMPLETE;
}

static struct fv_qp *fv_qp_by_num(int ctx, uint32_t qpn)
{
	int i;

	for (i = 0; i < FV_QP; i++)
		if (fv.qp[i].qp && fv.qp[i].ctx == ctx && fv.qp[i].qp->qp_num == qpn)
			return &fv.qp[i];
	return NULL;
}

static void fv_check_wc(int cqi, const struct ibv_wc *wc)
{
	struct fv_qp *q = fv_qp_by_num(fv.cq[cqi].ctx, wc->qp_num);
	unsigned int recv = FV_WRID_RECV(wc->wr_id);
	uint64_t seq = FV_WRID_SEQ(wc->wr_id);
	struct fv_wq *wq;

	FZ_LOG("  wc cq %d qp %u wr_id %#llx status %d opcode %d len %u\n", cqi,
	       wc->qp_num, (unsigned long long)wc->wr_id, wc->status, wc->opcode,
	       wc->byte_len);
	FZ_CHECK(q, "CQ %d: completion for QP %u, not a live QP of its context",
		 cqi, wc->qp_num);
	/*
	 * Finding cqe-overwrite (tb/fuzz/findings/): a responder error CQE can
	 * get the send queue's CQ and WQE index (or be lost): the library then
	 * reports it with some other WR's wr_id. While the finding is excluded
	 * such a completion (error status, receive opcode, not the receive WR
	 * the QP is at) stands for the receive WR the QP is at.
	 */
	if (wc->status != IBV_WC_SUCCESS && fz_excluded("cqe-overwrite") &&
	    (wc->opcode == IBV_WC_RECV || wc->opcode == IBV_WC_RECV_RDMA_WITH_IMM) &&
	    (!recv || FV_WRID_SERIAL(wc->wr_id) != q->serial || seq != q->rq.next) &&
	    q->rq.next < q->rq.posted) {
		FZ_LOG("  (cqe-overwrite excluded: counted as RQ WR %llu)\n",
		       (unsigned long long)q->rq.next);
		q->rq.errored = 1;
		q->rq.next++;
		q->rq.retired = q->rq.next;
		q->state = IBV_QPS_ERR;
		return;
	}
	FZ_CHECK(fv_status_ok(wc->status), "QP %u: completion status %d is no "
		 "enum ibv_wc_status", wc->qp_num, wc->status);
	FZ_CHECK(FV_WRID_SERIAL(wc->wr_id) == q->serial, "QP %u: completion with "
		 "wr_id %#llx, which was not posted to this QP", wc->qp_num,
		 (unsigned long long)wc->wr_id);
	FZ_CHECK(recv ? q->rcq == cqi : q->scq == cqi, "QP %u: %s completion on CQ %d",
		 wc->qp_num, recv ? "receive" : "send", cqi);
	wq = recv ? &q->rq : &q->sq;
	FZ_CHECK(seq >= wq->next && seq < wq->posted, "QP %u %s: completion of WR "
		 "%llu, but WRs before %llu completed already and %llu were posted "
		 "(out of order, twice, or never posted)", wc->qp_num,
		 recv ? "RQ" : "SQ", (unsigned long long)seq,
		 (unsigned long long)wq->next, (unsigned long long)wq->posted);
	if (wq->errored) {
		FZ_CHECK(wc->status != IBV_WC_SUCCESS, "QP %u %s: successful completion "
			 "after an error completion", wc->qp_num, recv ? "RQ" : "SQ");
		FZ_CHECK(seq == wq->next, "QP %u %s: after an error, WRs %llu..%llu "
			 "were flushed without a completion", wc->qp_num,
			 recv ? "RQ" : "SQ", (unsigned long long)wq->next,
			 (unsigned long long)seq - 1);
	}
	if (recv) {
		/* cqe-overwrite excluded: the first error completion may be lost. */
		FZ_CHECK(seq == wq->next || (seq == wq->next + 1 && !wq->errored &&
					     wc->status != IBV_WC_SUCCESS &&
					     fz_excluded("cqe-overwrite")),
			 "QP %u RQ: completion of WR %llu skips WR %llu", wc->qp_num,
			 (unsigned long long)seq, (unsigned long long)wq->next);
		if (wc->status == IBV_WC_SUCCESS)
			FZ_CHECK(wc->opcode == IBV_WC_RECV ||
				 wc->opcode == IBV_WC_RECV_RDMA_WITH_IMM,
				 "QP %u: receive completion with opcode %d", wc->qp_num,
				 wc->opcode);
	} else if (wc->status == IBV_WC_SUCCESS) {
		static const int wc_op[] = {
			[IBV_WR_RDMA_WRITE] = IBV_WC_RDMA_WRITE,
			[IBV_WR_RDMA_WRITE_WITH_IMM] = IBV_WC_RDMA_WRITE,
			[IBV_WR_SEND] = IBV_WC_SEND,
			[IBV_WR_SEND_WITH_IMM] = IBV_WC_SEND,
			[IBV_WR_RDMA_READ] = IBV_WC_RDMA_READ,
			[IBV_WR_ATOMIC_CMP_AND_SWP] = IBV_WC_COMP_SWAP,
			[IBV_WR_ATOMIC_FETCH_AND_ADD] = IBV_WC_FETCH_ADD,
			[IBV_WR_LOCAL_INV] = IBV_WC_LOCAL_INV,
			[IBV_WR_BIND_MW] = IBV_WC_BIND_MW,
			[IBV_WR_SEND_WITH_INV] = IBV_WC_SEND,
		};
		uint8_t op = wq->op[seq % wq->cap];

		FZ_CHECK(wq->sig[seq % wq->cap], "QP %u SQ: successful completion of "
			 "unsignaled WR %llu", wc->qp_num, (unsigned long long)seq);
		FZ_CHECK(op <= IBV_WR_SEND_WITH_INV && (int)wc->opcode == wc_op[op],
			 "QP %u SQ WR %llu: "
			 "posted as opcode %u, completed as %d", wc->qp_num,
			 (unsigned long long)seq, op, wc->opcode);
	}
	if (wc->status != IBV_WC_SUCCESS) {
		wq->errored = 1;
		q->state = IBV_QPS_ERR;	/* RC: an error completion ends the QP */
	}
	if (!recv && wc->wr_id == q->sentinel)
		q->sentinel_seen = 1;
	wq->next = seq + 1;
	wq->retired = seq + 1;
}

/* ibv_poll_cq with @ne entries (any int); returns what it returned. */
static int fv_poll(int cqi, int ne)
{
	size_t n = ne > 0 ? (size_t)ne : 1;
	/* Exactly ne entries, so ASan sees a library that writes beyond. */
	struct ibv_wc *wc = malloc(n * sizeof(*wc));
	int rc, i;

	FZ_CHECK(wc, "oom");
	rc = ibv_poll_cq(fv.cq[cqi].cq, ne, wc);
	FZ_CHECK(rc >= 0 && rc <= (ne > 0 ? ne : 0), "ibv_poll_cq(num_entries %d) "
		 "returned %d", ne, rc);
	for (i = 0; i < rc; i++)
		fv_check_wc(cqi, &wc[i]);
	free(wc);
	return rc;
}

/* ------------------------------------------------------------------------ */
/* Object pools                                                             */
/* ------------------------------------------------------------------------ */

/*
 * Slot pickers, one input byte each: usually one of the slots the operation
 * wants (a live object, or a free slot to create one in), sometimes any
 * slot. Every pool entry starts with its object pointer.
 */
static int fv_pick(struct fz_in *in, const void *base, size_t stride, int n,
		   int want_live)
{
	int cand[16], nc = 0, i;
	uint8_t b = fz_u8(in);

	for (i = 0; i < n; i++)
		if ((*(void *const *)((const char *)base + i * stride) != NULL) == want_live)
			cand[nc++] = i;
	if (!nc || (b & 7) == 7)
		return (b >> 3) % n;
	return cand[(b >> 3) % nc];
}

#define FV_N(arr)	((int)(sizeof(fv.arr) / sizeof(fv.arr[0])))
#define FV_LIVE(in, arr) fv_pick(in, &fv.arr[0], sizeof(fv.arr[0]), FV_N(arr), 1)
#define FV_FREE(in, arr) fv_pick(in, &fv.arr[0], sizeof(fv.arr[0]), FV_N(arr), 0)

static void fv_qp_forget(struct fv_qp *q)
{
	fv.pd[q->pd].users--;
	fv.cq[q->scq].users--;
	fv.cq[q->rcq].users--;
	fv.cq[q->scq].committed -= q->cap.max_send_wr;
	fv.cq[q->rcq].committed -= q->cap.max_recv_wr;
	free(q->sq.op);
	free(q->sq.sig);
	memset(q, 0, sizeof(*q));
}

static void fv_drain(int only);

/*
 * Findings reset-inflight and reset-cqe-late (both fixed; tb/fuzz/findings/):
 * WQEs the RNIC fetched before a QP was reset (or destroyed) still executed
 * after it (or read its freed rings); completions the RNIC produced just
 * before the reset command landed in the CQ after ibv_modify_qp(RESET)
 * returned, past the library's CQ clean. With either excluded
 * (RNIC_FUZZ_EXCLUDE), a QP's posted work is flushed (ERR, drained) before
 * it is reset or destroyed, so the input class is left out.
 */
static void fv_quiesce(int i)
{
	if ((fz_excluded("reset-inflight") || fz_excluded("reset-cqe-late")) && fv.qp[i].qp &&
	    fv.qp[i].qp->state != IBV_QPS_RESET)
		fv_drain(i);
}

/*
 * Finding rewind-flush-dup (tb/fuzz/findings/): after a rewind of the send
 * queue (RNR wait, ACK timeout) and a flush, a WQE completes twice. With the
 * finding excluded, QPs get rnr_retry 0 (an RNR NAK ends the WR, no RNR
 * wait) and timeout 0 (no ACK timer), so that nothing rewinds; invalid
 * values stay invalid.
 */
static uint8_t fv_rnr(uint8_t v)
{
	return v <= 7 && fz_excluded("rewind-flush-dup") ? 0 : v;
}

static uint8_t fv_timeout(uint8_t v)
{
	return v <= 31 && fz_excluded("rewind-flush-dup") ? 0 : v;
}

static void fv_destroy_qp(int i)
{
	struct fv_qp *q = &fv.qp[i];
	int rc;

	fv_quiesce(i);
	FZ_LOG("  destroy_qp %d (%u)\n", i, q->qp->qp_num);
	rc = ibv_destroy_qp(q->qp);
	FZ_CHECK(!rc, "ibv_destroy_qp returned %d", rc);
	fv_qp_forget(q);
}

static void fv_destroy_cq(int i)
{
	int rc = ibv_destroy_cq(fv.cq[i].cq);

	FZ_LOG("  destroy_cq %d: %d\n", i, rc);
	FZ_CHECK(fv.cq[i].users ? rc == EBUSY : rc == 0, "ibv_destroy_cq of a CQ with "
		 "%d QPs returned %d", fv.cq[i].users, rc);
	if (!rc)
		memset(&fv.cq[i], 0, sizeof(fv.cq[i]));
}

/*
 * Finding mr-dereg-inflight (tb/fuzz/findings/): the RNIC checks a key once
 * (requester: at WQE decode; responder: on the first packet) and goes on
 * DMAing with the address it got; an MR deregistered meanwhile is accessed
 * after ibv_dereg_mr() returned (IOMMU faults, and the WR even succeeds).
 * With the finding excluded, every QP is drained (ERR, flushed) before an
 * MR is deregistered, so no WR can be using it.
 */
static void fv_dereg_mr(int i)
{
	int rc;

	if (fz_excluded("mr-dereg-inflight"))
		fv_drain(-1);
	rc = ibv_dereg_mr(fv.mr[i].mr);

	FZ_LOG("  dereg_mr %d: %d\n", i, rc);
	FZ_CHECK(!rc, "ibv_dereg_mr returned %d", rc);
	fv.pd[fv.mr[i].pd].users--;
	memset(&fv.mr[i], 0, sizeof(fv.mr[i]));
}

static void fv_dealloc_pd(int i)
{
	int rc = ibv_dealloc_pd(fv.pd[i].pd);

	FZ_LOG("  dealloc_pd %d: %d\n", i, rc);
	FZ_CHECK(fv.pd[i].users ? rc == EBUSY : rc == 0, "ibv_dealloc_pd of a PD with "
		 "%d users returned %d", fv.pd[i].users, rc);
	if (!rc)
		memset(&fv.pd[i], 0, sizeof(fv.pd[i]));
}

/* Destroys what depends on context @c, then closes it. */
static void fv_close_ctx(int c)
{
	int i, rc;

	for (i = 0; i < FV_QP; i++)
		if (fv.qp[i].qp && fv.qp[i].ctx == c)
			fv_destroy_qp(i);
	for (i = 0; i < FV_CQ; i++)
		if (fv.cq[i].cq && fv.cq[i].ctx == c)
			fv_destroy_cq(i);
	for (i = 0; i < FV_MR; i++)
		if (fv.mr[i].mr && fv.pd[fv.mr[i].pd].ctx == c)
			fv_dereg_mr(i);
	for (i = 0; i < FV_PD; i++)
		if (fv.pd[i].pd && fv.pd[i].ctx == c)
			fv_dealloc_pd(i);
	FZ_LOG("  close_device %d\n", c);
	rc = ibv_close_device(fv.ctx[c].ctx);
	FZ_CHECK(!rc, "ibv_close_device returned %d", rc);
	memset(&fv.ctx[c], 0, sizeof(fv.ctx[c]));
}

/* ------------------------------------------------------------------------ */
/* Operations                                                               */
/* ------------------------------------------------------------------------ */

static void fv_do_open(int c, unsigned int d)
{
	fv.ctx[c].ctx = ibv_open_device(fv.devs[d]);
	FZ_LOG("  open_device %d (%s): %p\n", c, fv.devs[d]->name, (void *)fv.ctx[c].ctx);
	FZ_CHECK(fv.ctx[c].ctx, "ibv_open_device(%s) failed: errno %d",
		 fv.devs[d]->name, errno);
	fv.ctx[c].node = d;
}

/* Open a device in a free slot (or close one: the byte picked a live slot). */
static void op_open(struct fz_in *in)
{
	int c = FV_FREE(in, ctx);
	unsigned int d = fz_below(in, fv.ndev);

	if (fv.ctx[c].ctx)
		fv_close_ctx(c);
	else
		fv_do_open(c, d);
}

static int fv_live_ctx(struct fz_in *in)
{
	int c = FV_LIVE(in, ctx);

	return fv.ctx[c].ctx ? c : -1;
}

static void fv_do_pd(int p, int c)
{
	fv.pd[p].pd = ibv_alloc_pd(fv.ctx[c].ctx);
	FZ_LOG("  alloc_pd %d on ctx %d: %p\n", p, c, (void *)fv.pd[p].pd);
	FZ_CHECK(fv.pd[p].pd, "ibv_alloc_pd failed: errno %d", errno);
	fv.pd[p].ctx = c;
}

static void op_pd(struct fz_in *in)
{
	int p = FV_FREE(in, pd), c;

	if (fv.pd[p].pd) {
		fv_dealloc_pd(p);
		return;
	}
	if ((c = fv_live_ctx(in)) >= 0)
		fv_do_pd(p, c);
}

/*
 * Outcomes a call may have: success and/or some errno values. Where the
 * standard or the library's documentation fixes the answer, the mask has
 * one bit; where it leaves room (an optional feature the library may or may
 * not have), several.
 */
#define FV_OK		(1u << 0)
#define FV_EINVAL	(1u << 1)
#define FV_EOPNOTSUPP	(1u << 2)
#define FV_EFAULT	(1u << 3)
#define FV_ENOMEM	(1u << 4)

static unsigned int fv_errbit(int err)
{
	switch (err) {
	case EINVAL: return FV_EINVAL;
	case EOPNOTSUPP: return FV_EOPNOTSUPP;
	case EFAULT: return FV_EFAULT;
	case ENOMEM: return FV_ENOMEM;
	default: return 1u << 31;
	}
}

/* ibv_reg_mr's access flags: IBA wants local write with remote write or
 * atomic; unknown bits are refused; MW_BIND, ZERO_BASED, ON_DEMAND and
 * HUGETLB are optional. */
static unsigned int fv_mr_access_outcome(unsigned int access, size_t len)
{
	unsigned int acc = access & ~(unsigned int)IBV_ACCESS_OPTIONAL_RANGE;
	unsigned int std = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |
			   IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_ATOMIC;
	unsigned int opt = IBV_ACCESS_MW_BIND | IBV_ACCESS_ZERO_BASED |
			   IBV_ACCESS_ON_DEMAND | IBV_ACCESS_HUGETLB;
	unsigned int errs = 0;

	/* Every rule broken adds its errno (the library checks them in an
	 * order of its own); an optional bit may be refused too. */
	if (!len || ((acc & (IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_ATOMIC)) &&
		     !(acc & IBV_ACCESS_LOCAL_WRITE)))
		errs |= FV_EINVAL;
	if (acc & ~(std | opt))
		errs |= FV_EINVAL | FV_EOPNOTSUPP;
	if (acc & opt)
		return (errs ? 0 : FV_OK) | errs | FV_EINVAL | FV_EOPNOTSUPP;
	return errs ? errs : FV_OK;
}

static void op_mr(struct fz_in *in)
{
	int m = FV_FREE(in, mr), p = FV_LIVE(in, pd), kind;
	unsigned int access, allowed, addr_err = 0;
	uint8_t *addr;
	void *start;
	size_t len, off;
	uint64_t iova = 0;
	int use_iova = 0, err;

	if (fv.mr[m].mr) {
		fv_dereg_mr(m);
		return;
	}
	if (!fv.pd[p].pd)
		return;
	switch (fz_below(in, 4)) {
	case 0: access = fz_u32(in); break;
	case 1: access = fz_below(in, 256); break;
	default:
		access = IBV_ACCESS_LOCAL_WRITE |
			 (fz_below(in, 8) << 1);	/* remote rights */
		break;
	}
	kind = fz_below(in, 16);
	addr = fv.buf[fz_below(in, FV_BUFS)];
	off = fz_u16(in) % FV_BUF_LEN;
	len = 1 + fz_u16(in) % (FV_BUF_LEN - off);
	switch (kind) {
	case 0:
		len = 0;
		break;
	case 1:		/* page 0 is never mapped */
		addr = NULL;
		off = fz_u16(in);
		addr_err = FV_EFAULT;
		break;
	case 2:		/* beyond the user address space */
		addr = (uint8_t *)(uintptr_t)0xffff800000000000ULL;
		off = 0;
		addr_err = FV_EFAULT | FV_EINVAL;
		break;
	case 3:		/* addr + len wraps */
		len = SIZE_MAX - fz_below(in, 4096);
		addr_err = FV_EINVAL | FV_EFAULT;
		break;
	case 4:		/* reaches past the end of the mapped address space */
		len = (size_t)1 << (46 + fz_below(in, 2));
		addr_err = FV_EFAULT | FV_ENOMEM | FV_EINVAL;
		break;
	case 5: case 6:
		use_iova = 1;
		iova = fz_below(in, 2) ? fz_u64(in) : fz_u16(in);
		break;
	case 7:		/* pages the process may only read */
		addr = fv.ro;
		off = fz_below(in, 4096);
		len = 1 + fz_below(in, 2 * 4096 - off);
		if (fz_excluded("ro-mr"))
			/* Finding ro-mr (tb/fuzz/findings/): the driver registers
			 * them for writing, and a DMA write kills the simulator. */
			access &= ~(unsigned int)(IBV_ACCESS_LOCAL_WRITE |
						  IBV_ACCESS_REMOTE_WRITE |
						  IBV_ACCESS_REMOTE_ATOMIC);
		/* The kernel refuses write access to them (EFAULT). */
		if (access & IBV_ACCESS_LOCAL_WRITE)
			addr_err = FV_OK | FV_EFAULT;
		break;
	default:
		break;
	}
	/* The flags are checked first; an address error replaces success. */
	allowed = fv_mr_access_outcome(access, len);
	if (addr_err && (allowed & FV_OK))
		allowed = (allowed & ~FV_OK) | addr_err;
	start = (void *)((uintptr_t)addr + off);
	errno = 0;
	if (use_iova)
		fv.mr[m].mr = ibv_reg_mr_iova(fv.pd[p].pd, start, len, iova, access);
	else
		fv.mr[m].mr = ibv_reg_mr(fv.pd[p].pd, start, len, access);
	err = errno;
	FZ_LOG("  reg_mr %d pd %d addr %p len %#zx access %#x (allowed %#x): %p errno %d\n",
	       m, p, start, len, access, allowed, (void *)fv.mr[m].mr, err);
	FZ_CHECK(fv.mr[m].mr ? (allowed & FV_OK) : (allowed & fv_errbit(err)),
		 "ibv_reg_mr(len %#zx, access %#x, kind %d) returned %p errno %d, "
		 "allowed outcomes %#x (bit 0 success, then EINVAL, EOPNOTSUPP, "
		 "EFAULT, ENOMEM)", len, access, kind, (void *)fv.mr[m].mr, err,
		 allowed);
	if (!fv.mr[m].mr)
		return;
	FZ_CHECK(fv.mr[m].mr->lkey == fv.mr[m].mr->rkey && fv.mr[m].mr->addr == start &&
		 fv.mr[m].mr->length == len, "ibv_reg_mr: MR fields wrong");
	fv.mr[m].pd = p;
	fv.mr[m].len = len;
	fv.mr[m].access = access;
	fv.mr[m].va = (access & IBV_ACCESS_ZERO_BASED) ? 0 :
		      use_iova ? iova : (uintptr_t)start;
	fv.pd[p].users++;
}

static void op_cq(struct fz_in *in)
{
	static const int cqes[] = { 0, -1, 1, 2, 3, 16, 100, 1024, 65535, 65536,
				    0x7fffffff, -0x7fffffff - 1 };
	int i = FV_FREE(in, cq), c, cqe, vec, rc_ok;

	if (fv.cq[i].cq) {
		fv_destroy_cq(i);
		return;
	}
	if ((c = fv_live_ctx(in)) < 0)
		return;
	cqe = fz_below(in, 4) ? 1 + (int)fz_below(in, 300) : cqes[fz_below(in, 12)];
	vec = fz_below(in, 8) ? 0 : (int)fz_u32(in);
	rc_ok = cqe >= 1 && cqe <= 65535 && vec == 0;
	fv.cq[i].cq = ibv_create_cq(fv.ctx[c].ctx, cqe, NULL, NULL, vec);
	FZ_LOG("  create_cq %d ctx %d cqe %d vec %d: %p\n", i, c, cqe, vec,
	       (void *)fv.cq[i].cq);
	if (!rc_ok) {
		FZ_CHECK(!fv.cq[i].cq && errno == EINVAL, "ibv_create_cq(cqe %d, "
			 "comp_vector %d) returned %p errno %d, expected EINVAL", cqe, vec,
			 (void *)fv.cq[i].cq, errno);
		return;
	}
	FZ_CHECK(fv.cq[i].cq && fv.cq[i].cq->cqe >= cqe, "ibv_create_cq(cqe %d) "
		 "returned %p (cqe %d) errno %d", cqe, (void *)fv.cq[i].cq,
		 fv.cq[i].cq ? fv.cq[i].cq->cqe : 0, errno);
	fv.cq[i].ctx = c;
}

/* Bookkeeping of a QP ibv_create_qp() returned. */
static void fv_qp_created(int i, int p, int s, int r, const struct ibv_qp_init_attr *a)
{
	struct fv_qp *q = &fv.qp[i];

	FZ_CHECK(q->qp->state == IBV_QPS_RESET && q->qp->qp_type == IBV_QPT_RC,
		 "new QP in state %d type %d", q->qp->state, q->qp->qp_type);
	FZ_CHECK(q->qp->send_cq == fv.cq[s].cq && q->qp->recv_cq == fv.cq[r].cq &&
		 q->qp->pd == fv.pd[p].pd, "new QP: pd/cq pointers wrong");
	q->ctx = fv.pd[p].ctx;
	q->pd = p;
	q->scq = s;
	q->rcq = r;
	q->cap = a->cap;
	q->sig_all = a->sq_sig_all;
	q->serial = ++fv.serial;
	q->state = IBV_QPS_RESET;
	q->sq.cap = a->cap.max_send_wr;
	q->rq.cap = a->cap.max_recv_wr;
	q->sq.op = calloc(q->sq.cap, 1);
	q->sq.sig = calloc(q->sq.cap, 1);
	FZ_CHECK(q->sq.op && q->sq.sig, "oom");
	fv.pd[p].users++;
	fv.cq[s].users++;
	fv.cq[r].users++;
	fv.cq[s].committed += a->cap.max_send_wr;
	fv.cq[r].committed += a->cap.max_recv_wr;
}

/*
 * A CQ must hold every completion its QPs' queues can have outstanding: an
 * application that makes it smaller overruns it (the RNIC does not detect
 * that, like many; see docs/fuzzing.md), which is not what this harness
 * tests. A QP that does not fit its CQs is destroyed again.
 */
static int fv_qp_fits(int i)
{
	const struct fv_qp *q = &fv.qp[i];

	return fv.cq[q->scq].committed <= (uint32_t)fv.cq[q->scq].cq->cqe &&
	       fv.cq[q->rcq].committed <= (uint32_t)fv.cq[q->rcq].cq->cqe;
}

/* A live CQ, usually one of context @c. */
static int fv_cq_of(struct fz_in *in, int c)
{
	int cand[FV_CQ], nc = 0, i;
	uint8_t b = fz_u8(in);

	for (i = 0; i < FV_CQ; i++)
		if (fv.cq[i].cq && fv.cq[i].ctx == c)
			cand[nc++] = i;
	if (!nc || (b & 7) == 7)
		return (b >> 3) % FV_CQ;
	return cand[(b >> 3) % nc];
}

static void op_qp(struct fz_in *in)
{
	int i = FV_FREE(in, qp), p = FV_LIVE(in, pd), s, r, c, err;
	unsigned int allowed;
	struct ibv_qp_init_attr a;
	struct ibv_context *ctx;
	uint32_t max_sge;
	struct fv_qp *q = &fv.qp[i];

	if (q->qp) {
		fv_destroy_qp(i);
		return;
	}
	if (!fv.pd[p].pd)
		return;
	s = fv_cq_of(in, fv.pd[p].ctx);
	r = fz_below(in, 2) ? s : fv_cq_of(in, fv.pd[p].ctx);
	if (!fv.cq[s].cq || !fv.cq[r].cq)
		return;
	c = fv.pd[p].ctx;
	ctx = fv.ctx[c].ctx;
	max_sge = to_rv_ctx(ctx)->dev->caps.max_sge;
	memset(&a, 0, sizeof(a));
	a.send_cq = fv.cq[s].cq;
	a.recv_cq = fv.cq[r].cq;
	a.qp_type = fz_below(in, 8) ? IBV_QPT_RC : fz_u8(in);
	a.sq_sig_all = fz_below(in, 2);
	switch (fz_below(in, 4)) {
	case 0:
		a.cap.max_send_wr = fz_u32(in) % 40000;
		a.cap.max_recv_wr = fz_u32(in) % 40000;
		a.cap.max_send_sge = fz_below(in, 20);
		a.cap.max_recv_sge = fz_below(in, 20);
		a.cap.max_inline_data = fz_below(in, 4) ? 0 : fz_u16(in);
		break;
	case 1:
		a.cap.max_inline_data = fz_below(in, 2) ? fz_below(in, 256) : 0;
		/* fall through */
	default:
		a.cap.max_send_wr = fz_below(in, 64);
		a.cap.max_recv_wr = fz_below(in, 64);
		a.cap.max_send_sge = fz_below(in, max_sge + 1);
		a.cap.max_recv_sge = fz_below(in, max_sge + 1);
		break;
	}
	/* CQs of another context: EINVAL before anything else. A plain RC QP
	 * within the device's limits must be created. Other types, inline
	 * data and extensions are optional (created, or EINVAL/EOPNOTSUPP). */
	if (fv.cq[s].ctx != c || fv.cq[r].ctx != c)
		allowed = FV_EINVAL;
	else if (a.cap.max_send_wr > RNIC_MAX_QP_WR || a.cap.max_recv_wr > RNIC_MAX_QP_WR ||
		 a.cap.max_send_sge > max_sge || a.cap.max_recv_sge > max_sge)
		allowed = a.qp_type == IBV_QPT_RC ? FV_EINVAL : FV_EINVAL | FV_EOPNOTSUPP;
	else if (a.qp_type != IBV_QPT_RC || a.cap.max_inline_data)
		allowed = FV_OK | FV_EINVAL | FV_EOPNOTSUPP;
	else
		allowed = FV_OK;
	errno = 0;
	if (fz_below(in, 4)) {
		q->qp = ibv_create_qp(fv.pd[p].pd, &a);
	} else {
		struct ibv_qp_init_attr_ex x;

		memset(&x, 0, sizeof(x));
		x.send_cq = a.send_cq;
		x.recv_cq = a.recv_cq;
		x.qp_type = a.qp_type;
		x.sq_sig_all = a.sq_sig_all;
		x.cap = a.cap;
		x.pd = fv.pd[p].pd;
		x.comp_mask = IBV_QP_INIT_ATTR_PD;
		if (!fz_below(in, 3)) {
			x.comp_mask |= fz_u32(in) & 0x1ff;
			x.create_flags = fz_below(in, 2) ? fz_u32(in) : 0;
			x.send_ops_flags = fz_u64(in);
		}
		/* Extensions are checked before anything else. */
		if (x.comp_mask != IBV_QP_INIT_ATTR_PD)
			allowed = FV_OK | FV_EINVAL | FV_EOPNOTSUPP;
		q->qp = ibv_create_qp_ex(ctx, &x);
		a.cap = x.cap;
	}
	err = errno;
	FZ_LOG("  create_qp %d pd %d scq %d rcq %d type %d caps %u/%u/%u/%u/%u "
	       "(allowed %#x): %p errno %d\n", i, p, s, r, a.qp_type, a.cap.max_send_wr,
	       a.cap.max_recv_wr, a.cap.max_send_sge, a.cap.max_recv_sge,
	       a.cap.max_inline_data, allowed, (void *)q->qp, err);
	FZ_CHECK(q->qp ? (allowed & FV_OK) : (allowed & fv_errbit(err)),
		 "ibv_create_qp(type %d, caps %u/%u/%u/%u/%u) returned %p errno %d, "
		 "allowed outcomes %#x (bit 0 success, then EINVAL, EOPNOTSUPP, EFAULT, "
		 "ENOMEM)", a.qp_type, a.cap.max_send_wr, a.cap.max_recv_wr,
		 a.cap.max_send_sge, a.cap.max_recv_sge, a.cap.max_inline_data,
		 (void *)q->qp, err, allowed);
	if (!q->qp)
		return;
	if (q->qp->qp_type != IBV_QPT_RC) {
		/* This harness drives RC QPs; others are created and destroyed. */
		FZ_CHECK(q->qp->qp_type == a.qp_type, "created QP has type %d, asked %d",
			 q->qp->qp_type, a.qp_type);
		FZ_CHECK(!ibv_destroy_qp(q->qp), "ibv_destroy_qp failed");
		q->qp = NULL;
		return;
	}
	fv_qp_created(i, p, s, r, &a);
	if (!fv_qp_fits(i)) {
		FZ_LOG("  QP %d does not fit its CQs\n", i);
		fv_destroy_qp(i);
	}
}

/* The state the hardware holds for @q (QP_QUERY). */
static enum ibv_qp_state fv_hw_state(struct fv_qp *q)
{
	struct rv_qp *rq = to_rv_qp(q->qp);
	enum ibv_qp_state st = IBV_QPS_UNKNOWN;
	int rc = rnic_qp_query_hw(rq->ctx->dev, &rq->hw, &st, NULL, NULL);

	FZ_CHECK(!rc, "QP_QUERY command failed: %d", rc);
	return st;
}

/* Whether a send WQE the hardware took has not completed yet (QP_QUERY). */
static int fv_hw_draining(struct fv_qp *q)
{
	struct rv_qp *rq = to_rv_qp(q->qp);
	int draining = 1;
	int rc = rnic_qp_query_draining(rq->ctx->dev, &rq->hw, &draining);

	FZ_CHECK(!rc, "QP_QUERY command failed: %d", rc);
	return draining;
}

/* Every send WR not seen retired is unsignaled. */
static int fv_sq_unsignaled(const struct fv_qp *q)
{
	uint64_t s;

	for (s = q->sq.retired; s != q->sq.posted; s++)
		if (q->sq.sig[s % q->sq.cap])
			return 0;
	return 1;
}

/* A successful modify resets the harness's view where the QP's queues are. */
static void fv_modified(struct fv_qp *q, enum ibv_qp_state old, enum ibv_qp_state st)
{
	enum ibv_qp_state hw = fv_hw_state(q);

	FZ_CHECK(q->qp->state == st, "ibv_modify_qp to %d succeeded, qp->state is %d",
		 st, q->qp->state);
	FZ_CHECK(hw == st || hw == IBV_QPS_ERR, "QP %u: ibv_modify_qp to %d succeeded, "
		 "the hardware holds state %d", q->qp->qp_num, st, hw);
	if (st == IBV_QPS_RESET || (old == IBV_QPS_RESET && st == IBV_QPS_INIT)) {
		/* Everything posted is gone without completions. */
		q->sq.next = q->sq.retired = q->sq.posted;
		q->rq.next = q->rq.retired = q->rq.posted;
		q->sq.errored = q->rq.errored = 0;
	}
	q->state = st;
}

static void fv_attr_av(struct fz_in *in, struct ibv_qp_attr *a, struct fv_qp *q)
{
	int n = fz_below(in, 4) ? (int)fz_below(in, fv.ndev) : -1;

	a->ah_attr.is_global = fz_below(in, 8) ? 1 : 0;
	a->ah_attr.port_num = fz_below(in, 8) ? 1 : fz_u8(in);
	a->ah_attr.grh.sgid_index = fz_below(in, 8) ? 0 : fz_u8(in);
	a->ah_attr.grh.hop_limit = 64;
	if (n >= 0)
		rnic_ip_to_gid(rnic_sim_node_ip(fv.sim, n), &a->ah_attr.grh.dgid);
	else
		fz_bytes(in, a->ah_attr.grh.dgid.raw, 16);
	(void)q;
}

/* RESET -> INIT -> RTR -> RTS step by step, with sane attributes, towards a
 * QP of ours (maybe itself, maybe on the other node) or a random QPN. */
static void op_connect(struct fz_in *in)
{
	int i = FV_LIVE(in, qp), j = FV_LIVE(in, qp), mask, rc;
	struct fv_qp *q = &fv.qp[i];
	enum ibv_qp_state old;
	struct ibv_qp_attr a;

	if (!q->qp)
		return;
	old = q->qp->state;
	memset(&a, 0, sizeof(a));
	switch (old) {
	case IBV_QPS_RESET:
		a.qp_state = IBV_QPS_INIT;
		a.port_num = 1;
		a.qp_access_flags = fz_below(in, 4) ? 0xf : fz_below(in, 16);
		mask = IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_ACCESS_FLAGS;
		break;
	case IBV_QPS_INIT:
		a.qp_state = IBV_QPS_RTR;
		a.path_mtu = IBV_MTU_256 + fz_below(in, 5);
		a.dest_qp_num = fv.qp[j].qp && fz_below(in, 8) ? fv.qp[j].qp->qp_num :
			fz_u32(in) & 0xffffff;
		a.rq_psn = fz_u32(in) & 0xffffff;
		a.max_dest_rd_atomic = fz_below(in, 9);
		a.min_rnr_timer = 1 + fz_below(in, 3);
		a.ah_attr.is_global = 1;
		a.ah_attr.port_num = 1;
		rnic_ip_to_gid(rnic_sim_node_ip(fv.sim, fv.qp[j].qp ?
						fv.ctx[fv.qp[j].ctx].node : fz_below(in, fv.ndev)),
			       &a.ah_attr.grh.dgid);
		mask = IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN |
		       IBV_QP_RQ_PSN | IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER;
		break;
	case IBV_QPS_RTR:
		a.qp_state = IBV_QPS_RTS;
		a.sq_psn = fz_u32(in) & 0xffffff;
		/* Short timers keep an input's run bounded. */
		a.timeout = fv_timeout(1 + fz_below(in, 4));
		a.retry_cnt = fz_below(in, 4);
		a.rnr_retry = fv_rnr(fz_below(in, 4));
		a.max_rd_atomic = fz_below(in, 9);
		mask = IBV_QP_STATE | IBV_QP_SQ_PSN | IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT |
		       IBV_QP_RNR_RETRY | IBV_QP_MAX_QP_RD_ATOMIC;
		break;
	default:
		a.qp_state = fz_below(in, 2) ? IBV_QPS_ERR : IBV_QPS_RESET;
		mask = IBV_QP_STATE;
		if (a.qp_state == IBV_QPS_RESET)
			fv_quiesce(i);
		break;
	}
	rc = ibv_modify_qp(q->qp, &a, mask);
	FZ_LOG("  connect qp %d (%u) %d -> %d: %d (dest qpn %u, mtu %d)\n", i, q->qp->qp_num,
	       old, a.qp_state, rc, a.dest_qp_num, a.path_mtu);
	/* The hardware may have ended the QP meanwhile (it is then in ERR
	 * for the hardware, and the library learns it on query or poll). */
	if (rc) {
		FZ_CHECK(rc == EINVAL && fv_hw_state(q) == IBV_QPS_ERR,
			 "ibv_modify_qp(%d -> %d, sane attributes) returned %d", old,
			 a.qp_state, rc);
		return;
	}
	fv_modified(q, old, a.qp_state);
}

/* Both QPs (in RESET) to RTS towards each other, PSNs matched: traffic
 * between them can succeed. @i == @j connects a QP to itself. */
static void fv_connect_pair(int i, int j, enum ibv_mtu mtu, uint32_t psn_i,
			    uint32_t psn_j, uint8_t timeout, uint8_t retry,
			    uint8_t rnr, uint8_t rd_atom)
{
	int k;

	for (k = 0; k < (i == j ? 1 : 2); k++) {
		struct fv_qp *q = &fv.qp[k ? j : i], *peer = &fv.qp[k ? i : j];
		struct ibv_qp_attr a;
		int rc;

		memset(&a, 0, sizeof(a));
		a.qp_state = IBV_QPS_INIT;
		a.port_num = 1;
		a.qp_access_flags = 0xf;
		rc = ibv_modify_qp(q->qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX |
				   IBV_QP_PORT | IBV_QP_ACCESS_FLAGS);
		FZ_CHECK(!rc, "ibv_modify_qp(RESET -> INIT) returned %d", rc);
		fv_modified(q, IBV_QPS_RESET, IBV_QPS_INIT);
		memset(&a, 0, sizeof(a));
		a.qp_state = IBV_QPS_RTR;
		a.path_mtu = mtu;
		a.dest_qp_num = peer->qp->qp_num;
		a.rq_psn = k ? psn_i : psn_j;
		a.max_dest_rd_atomic = rd_atom;
		a.min_rnr_timer = 1;
		a.ah_attr.is_global = 1;
		a.ah_attr.port_num = 1;
		rnic_ip_to_gid(rnic_sim_node_ip(fv.sim, fv.ctx[peer->ctx].node),
			       &a.ah_attr.grh.dgid);
		rc = ibv_modify_qp(q->qp, &a, IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU |
				   IBV_QP_DEST_QPN | IBV_QP_RQ_PSN |
				   IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER);
		FZ_CHECK(!rc, "ibv_modify_qp(INIT -> RTR) returned %d", rc);
		fv_modified(q, IBV_QPS_INIT, IBV_QPS_RTR);
		memset(&a, 0, sizeof(a));
		a.qp_state = IBV_QPS_RTS;
		a.sq_psn = k ? psn_j : psn_i;
		a.timeout = fv_timeout(timeout);
		a.retry_cnt = retry;
		a.rnr_retry = fv_rnr(rnr);
		a.max_rd_atomic = rd_atom;
		rc = ibv_modify_qp(q->qp, &a, IBV_QP_STATE | IBV_QP_SQ_PSN | IBV_QP_TIMEOUT |
				   IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY |
				   IBV_QP_MAX_QP_RD_ATOMIC);
		FZ_CHECK(!rc, "ibv_modify_qp(RTR -> RTS) returned %d", rc);
		fv_modified(q, IBV_QPS_RTR, IBV_QPS_RTS);
	}
	FZ_LOG("  connected qp %d (%u) <-> qp %d (%u)\n", i, fv.qp[i].qp->qp_num, j,
	       fv.qp[j].qp->qp_num);
}

static void op_connect_pair(struct fz_in *in)
{
	int i = FV_LIVE(in, qp), j = FV_LIVE(in, qp);

	if (!fv.qp[i].qp || !fv.qp[j].qp || fv.qp[i].qp->state != IBV_QPS_RESET ||
	    fv.qp[j].qp->state != IBV_QPS_RESET)
		return;
	fv_connect_pair(i, j, IBV_MTU_256 + fz_below(in, 5), fz_u32(in) & 0xffffff,
			fz_u32(in) & 0xffffff, 1 + fz_below(in, 4), fz_below(in, 4),
			fz_below(in, 4), fz_below(in, 9));
}

/* Destroy a live object of some kind (close a device: all it holds). */
static void op_destroy(struct fz_in *in)
{
	int i;

	switch (fz_below(in, 8)) {
	case 0:
		i = FV_LIVE(in, ctx);
		if (fv.ctx[i].ctx)
			fv_close_ctx(i);
		break;
	case 1:
		i = FV_LIVE(in, pd);
		if (fv.pd[i].pd)
			fv_dealloc_pd(i);
		break;
	case 2: case 3:
		i = FV_LIVE(in, mr);
		if (fv.mr[i].mr)
			fv_dereg_mr(i);
		break;
	case 4:
		i = FV_LIVE(in, cq);
		if (fv.cq[i].cq)
			fv_destroy_cq(i);
		break;
	default:
		i = FV_LIVE(in, qp);
		if (fv.qp[i].qp)
			fv_destroy_qp(i);
		break;
	}
}

/*
 * The start of every input, from one byte: usually both devices open with a
 * PD, a CQ and an MR over a whole buffer each, and often a connected QP
 * pair between them, so that random inputs reach the data path quickly.
 */
static void fv_prologue(struct fz_in *in)
{
	const int acc = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |
			IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_ATOMIC;
	uint8_t b = fz_u8(in);
	int n;

	if (b & 1)
		return;
	for (n = 0; n < 2; n++) {
		fv_do_open(n, n);
		fv_do_pd(n, n);
		fv.cq[n].cq = ibv_create_cq(fv.ctx[n].ctx, 64, NULL, NULL, 0);
		FZ_CHECK(fv.cq[n].cq, "ibv_create_cq failed: errno %d", errno);
		fv.cq[n].ctx = n;
		fv.mr[n].mr = ibv_reg_mr(fv.pd[n].pd, fv.buf[n], FV_BUF_LEN, acc);
		FZ_CHECK(fv.mr[n].mr, "ibv_reg_mr failed: errno %d", errno);
		fv.mr[n].pd = n;
		fv.mr[n].va = (uintptr_t)fv.buf[n];
		fv.mr[n].len = FV_BUF_LEN;
		fv.mr[n].access = acc;
		fv.pd[n].users++;
	}
	if (b & 2)
		return;
	for (n = 0; n < 2; n++) {
		struct ibv_qp_init_attr a;

		memset(&a, 0, sizeof(a));
		a.send_cq = a.recv_cq = fv.cq[n].cq;
		a.qp_type = IBV_QPT_RC;
		a.sq_sig_all = (b >> 2) & 1;
		a.cap.max_send_wr = a.cap.max_recv_wr = 16;
		a.cap.max_send_sge = a.cap.max_recv_sge = 2;
		fv.qp[n].qp = ibv_create_qp(fv.pd[n].pd, &a);
		FZ_CHECK(fv.qp[n].qp, "ibv_create_qp failed: errno %d", errno);
		fv_qp_created(n, n, n, n, &a);
	}
	fv_connect_pair(0, 1, IBV_MTU_256 + (b >> 3) % 5, 0x10000 * (b >> 5),
			0xfffff0 + (b >> 4), 2, 2, 2, 1 + (b >> 6));
}

/* Random attribute mask and values: must return 0 or EINVAL, never crash,
 * and leave library and hardware agreeing. */
static void op_modify_random(struct fz_in *in)
{
	int i = FV_LIVE(in, qp), mask, rc;
	struct fv_qp *q = &fv.qp[i];
	enum ibv_qp_state old;
	struct ibv_qp_attr a;

	if (!q->qp)
		return;
	old = q->qp->state;
	memset(&a, 0, sizeof(a));
	mask = (int)(fz_u32(in) & ((1u << 21) - 1));
	if (fz_below(in, 2))
		mask |= IBV_QP_STATE;
	a.qp_state = fz_below(in, 4) ? fz_below(in, 7) : fz_u8(in);
	a.cur_qp_state = fz_below(in, 2) ? old : fz_below(in, 8);
	a.path_mtu = fz_below(in, 4) ? IBV_MTU_256 + fz_below(in, 5) : fz_u8(in);
	a.qp_access_flags = fz_below(in, 2) ? fz_below(in, 16) : fz_u32(in);
	a.pkey_index = fz_below(in, 4) ? 0 : fz_u16(in);
	a.port_num = fz_below(in, 4) ? 1 : fz_u8(in);
	a.dest_qp_num = fz_u32(in) & (fz_below(in, 4) ? 0xffffff : 0xffffffff);
	a.rq_psn = fz_u32(in);
	a.sq_psn = fz_u32(in);
	a.max_dest_rd_atomic = fz_below(in, 2) ? fz_below(in, 9) : fz_u8(in);
	a.max_rd_atomic = fz_below(in, 2) ? fz_below(in, 9) : fz_u8(in);
	a.min_rnr_timer = fz_below(in, 2) ? 1 + fz_below(in, 3) : fz_u8(in);
	a.timeout = fv_timeout(fz_below(in, 2) ? 1 + fz_below(in, 4) : fz_u8(in));
	a.retry_cnt = fz_below(in, 2) ? fz_below(in, 4) : fz_u8(in);
	a.rnr_retry = fv_rnr(fz_below(in, 2) ? fz_below(in, 4) : fz_u8(in));
	a.path_mig_state = fz_u8(in);
	fv_attr_av(in, &a, q);
	/* Transitions that reset the queues: RESET, and RESET -> INIT. */
	if ((mask & IBV_QP_STATE) &&
	    (a.qp_state == IBV_QPS_RESET || a.qp_state == IBV_QPS_INIT))
		fv_quiesce(i);
	old = q->qp->state;
	rc = ibv_modify_qp(q->qp, &a, mask);
	FZ_LOG("  modify qp %d (%u) %d -> %d mask %#x: %d\n", i, q->qp->qp_num, old,
	       (mask & IBV_QP_STATE) ? (int)a.qp_state : -1, mask, rc);
	FZ_CHECK(rc == 0 || rc == EINVAL, "ibv_modify_qp(mask %#x) returned %d",
		 mask, rc);
	/* From RTS or SQD the library first learns whether the hardware moved
	 * the QP to ERR or SQE; the modify starts from there (and a
	 * IBV_QP_CUR_STATE other than that state is refused). */
	if (q->qp->state != old && (old == IBV_QPS_RTS || old == IBV_QPS_SQD)) {
		enum ibv_qp_state hw = fv_hw_state(q);

		if ((hw == IBV_QPS_ERR || hw == IBV_QPS_SQE) &&
		    (rc || !(mask & IBV_QP_STATE))) {
			FZ_CHECK(q->qp->state == hw, "modify from %d: the hardware holds %d, "
				 "the QP says %d", old, hw, q->qp->state);
			old = hw;
		}
	}
	if (rc) {
		FZ_CHECK(q->qp->state == old, "failed ibv_modify_qp changed the state "
			 "%d -> %d", old, q->qp->state);
		return;
	}
	fv_modified(q, old, (mask & IBV_QP_STATE) ? a.qp_state : old);
}

/* An SGE: inside an MR of ours (any PD, context or node), near or over its
 * edges, or random. */
static void fv_sge(struct fz_in *in, struct ibv_sge *s)
{
	const struct fv_mr *m = &fv.mr[FV_LIVE(in, mr)];
	uint64_t off;

	if (!m->mr || !fz_below(in, 8)) {
		s->addr = fz_u64(in);
		s->length = fz_below(in, 2) ? fz_u32(in) : fz_u16(in);
		s->lkey = fz_u32(in);
		return;
	}
	off = fz_u16(in) % m->len;
	s->addr = m->va + off;
	s->length = 1 + fz_u16(in) % (m->len - off);
	s->lkey = m->mr->lkey;
	switch (fz_below(in, 10)) {
	case 0: s->length = 0; break;
	case 1: s->length = m->len - off + 1 + fz_below(in, 16); break;
	case 2: s->addr = m->va - 1 - fz_below(in, 16); break;
	case 3: s->lkey ^= 1 + fz_below(in, 255); break;
	case 4: s->length = fz_below(in, 4) ? 8 : fz_below(in, 16); break;
	default: break;
	}
}

static void fv_remote(struct fz_in *in, uint64_t *addr, uint32_t *rkey)
{
	const struct fv_mr *m = &fv.mr[FV_LIVE(in, mr)];

	if (!m->mr || !fz_below(in, 8)) {
		*addr = fz_u64(in);
		*rkey = fz_u32(in);
		return;
	}
	*addr = m->va + fz_u16(in) % m->len;
	if (fz_below(in, 2))
		*addr &= ~7ULL;		/* atomics want 8-byte alignment */
	*rkey = m->mr->rkey;
	if (!fz_below(in, 8))
		*rkey ^= 1 + fz_below(in, 255);
}

/*
 * Posts the chain wr[0..n-1] and checks the result against ibv_post_send(3)
 * and the library's rules (libverbs/post_send.c): before RTS, EINVAL at the
 * first WR; a full queue, ENOMEM; an unknown opcode or flag, num_sge above
 * max_send_sge for SEND/WRITE/READ, a BIND_MW without a window: EINVAL.
 * Those "must" fail; other WRs (atomics, local operations, inline data) may
 * be refused with EINVAL by the library's finer limits. *bad_wr is the
 * first WR not posted, and no WR that must fail is posted.
 */
static void fv_post_send_chain(int i, struct ibv_send_wr *wr, int n)
{
	struct ibv_send_wr *bad_wr = (void *)1;
	struct fv_qp *q = &fv.qp[i];
	uint64_t unretired = q->sq.posted - q->sq.retired;
	int k, must = -1, must_err = 0, may[FV_MAX_CHAIN] = { 0 }, rc, bad;

	for (k = 0; k < n; k++) {
		const struct ibv_send_wr *w = &wr[k];
		unsigned int fl = w->send_flags;
		int fast = w->opcode <= IBV_WR_RDMA_READ;
		int invalid = w->opcode > IBV_WR_SEND_WITH_INV ||
			      (fast && (unsigned int)w->num_sge > q->cap.max_send_sge) ||
			      (fl & ~(unsigned int)(IBV_SEND_FENCE | IBV_SEND_SIGNALED |
						    IBV_SEND_SOLICITED | IBV_SEND_INLINE)) ||
			      w->opcode == IBV_WR_BIND_MW;	/* mw is NULL */
		int j;

		wr[k].next = k + 1 < n ? &wr[k + 1] : NULL;
		wr[k].wr_id = FV_WRID(q->serial, 0, q->sq.posted + k);
		may[k] = !fast || (fl & IBV_SEND_INLINE) ||
			 (unsigned int)w->num_sge > q->cap.max_send_sge;
		if (must < 0 && q->qp->state < IBV_QPS_RTS) {
			must = k;
			must_err = EINVAL;
		} else if (must < 0 && unretired + k >= q->cap.max_send_wr) {
			must = k;
			must_err = ENOMEM;
		} else if (must < 0 && invalid) {
			must = k;
			must_err = EINVAL;
		}
		FZ_LOG("    WR %llu opcode %d flags %#x num_sge %d imm %#x raddr %#llx "
		       "rkey %#x\n", (unsigned long long)FV_WRID_SEQ(wr[k].wr_id),
		       w->opcode, w->send_flags, w->num_sge, w->imm_data,
		       (unsigned long long)w->wr.rdma.remote_addr, w->wr.rdma.rkey);
		for (j = 0; w->sg_list && j < w->num_sge; j++)
			FZ_LOG("      sge %#llx len %#x lkey %#x\n",
			       (unsigned long long)w->sg_list[j].addr,
			       w->sg_list[j].length, w->sg_list[j].lkey);
	}
	rc = ibv_post_send(q->qp, wr, &bad_wr);
	bad = rc ? (int)(bad_wr - wr) : n;
	FZ_LOG("  post_send qp %d (%u) %d WRs (must fail %d at %d): %d bad %d\n", i,
	       q->qp->qp_num, n, must_err, must, rc, rc ? bad : -1);
	if (!rc) {
		FZ_CHECK(must < 0, "ibv_post_send accepted %d WRs; WR %d should fail "
			 "with %d", n, must, must_err);
	} else {
		FZ_CHECK(bad >= 0 && bad < n, "ibv_post_send returned %d with a bad_wr "
			 "outside the chain", rc);
		FZ_CHECK(must < 0 || bad <= must, "ibv_post_send posted WR %d, which "
			 "should fail with %d", must, must_err);
		if (bad == must)
			FZ_CHECK(rc == must_err, "ibv_post_send: WR %d failed with %d, "
				 "should fail with %d", bad, rc, must_err);
		else
			FZ_CHECK(may[bad] && rc == EINVAL, "ibv_post_send refused WR %d "
				 "(opcode %d, flags %#x, num_sge %d) with %d", bad,
				 wr[bad].opcode, wr[bad].send_flags, wr[bad].num_sge, rc);
	}
	for (k = 0; k < bad; k++) {
		uint64_t seq = q->sq.posted++;

		q->sq.op[seq % q->sq.cap] = wr[k].opcode;
		q->sq.sig[seq % q->sq.cap] = q->sig_all || (wr[k].send_flags & IBV_SEND_SIGNALED);
	}
}

/* Polls until every WR posted to @q's send queue completed (bounded). */
static void fv_wait_sq(int i)
{
	int c, polls;

	for (polls = 0; polls < 100 && fv.qp[i].sq.next != fv.qp[i].sq.posted; polls++)
		for (c = 0; c < FV_CQ; c++)
			if (fv.cq[c].cq)
				fv_poll(c, 16);
}

static void op_post_send(struct fz_in *in)
{
	int i = FV_LIVE(in, qp), n = 1 + fz_below(in, FV_MAX_CHAIN), k;
	struct ibv_send_wr wr[FV_MAX_CHAIN];
	struct ibv_sge *sg[FV_MAX_CHAIN] = { NULL };
	struct fv_qp *q = &fv.qp[i];
	/*
	 * Finding rx-slot-leak (tb/fuzz/findings/): the ACK of a WQE that has a
	 * locally failed WQE behind it leaks one of the RX frame slots of the
	 * node; after three, the node receives nothing. While the finding is
	 * excluded, WRs are signaled and posted one at a time, each after the
	 * ones before it completed, so no WQE waits for an ACK with a failed
	 * one behind it.
	 */
	int one_by_one = fz_excluded("rx-slot-leak");

	if (!q->qp)
		return;
	memset(wr, 0, sizeof(wr));
	for (k = 0; k < n; k++) {
		struct ibv_send_wr *w = &wr[k];
		int nsge = fz_below(in, 8) ? (int)fz_below(in, q->cap.max_send_sge + 1) :
			   fz_below(in, 2) ? (int)fz_below(in, FV_MAX_SGE) : -(int)fz_below(in, 3);
		int j;

		w->opcode = fz_below(in, 8) ? fz_below(in, 7) :
			    fz_below(in, 2) ? fz_below(in, 16) : fz_u8(in);
		/* Finding sendinv-no-recv (tb/fuzz/findings/): a SEND_WITH_INV
		 * that finds no receive WR consumes one never posted. */
		if (w->opcode == IBV_WR_SEND_WITH_INV && fz_excluded("sendinv-no-recv"))
			w->opcode = IBV_WR_SEND;
		w->send_flags = fz_below(in, 4) ? fz_below(in, 8) :
				fz_below(in, 2) ? fz_below(in, 32) : fz_u32(in);
		if (one_by_one)
			w->send_flags |= IBV_SEND_SIGNALED;
		w->num_sge = nsge;
		w->imm_data = fz_u32(in);
		/* Exactly num_sge entries (ASan sees reads beyond). */
		if (nsge > 0 && nsge <= FV_MAX_SGE) {
			sg[k] = malloc(nsge * sizeof(*sg[k]));
			FZ_CHECK(sg[k], "oom");
			for (j = 0; j < nsge; j++) {
				fv_sge(in, &sg[k][j]);
				/* Inline data is copied by the library from the
				 * address: it must be memory of ours. */
				if (w->send_flags & IBV_SEND_INLINE) {
					size_t o = fz_u16(in) % FV_BUF_LEN;

					sg[k][j].addr = (uintptr_t)fv.buf[fz_below(in, FV_BUFS)] + o;
					sg[k][j].length = fz_below(in, FV_BUF_LEN - o + 1);
				}
			}
		}
		w->sg_list = sg[k];
		if (w->opcode == IBV_WR_ATOMIC_CMP_AND_SWP ||
		    w->opcode == IBV_WR_ATOMIC_FETCH_AND_ADD) {
			fv_remote(in, &w->wr.atomic.remote_addr, &w->wr.atomic.rkey);
			w->wr.atomic.compare_add = fz_u64(in);
			w->wr.atomic.swap = fz_u64(in);
		} else {
			fv_remote(in, &w->wr.rdma.remote_addr, &w->wr.rdma.rkey);
		}
	}
	if (one_by_one) {
		for (k = 0; k < n; k++) {
			fv_wait_sq(i);
			fv_post_send_chain(i, &wr[k], 1);
		}
	} else {
		fv_post_send_chain(i, wr, n);
	}
	for (k = 0; k < FV_MAX_CHAIN; k++)
		free(sg[k]);
}

static void op_post_recv(struct fz_in *in)
{
	int i = FV_LIVE(in, qp), n = 1 + fz_below(in, FV_MAX_CHAIN), k, bad = -1, rc;
	struct ibv_recv_wr wr[FV_MAX_CHAIN], *bad_wr = (void *)1;
	struct ibv_sge *sg[FV_MAX_CHAIN] = { NULL };
	struct fv_qp *q = &fv.qp[i];
	int expect = 0;

	if (!q->qp)
		return;
	memset(wr, 0, sizeof(wr));
	for (k = 0; k < n; k++) {
		int nsge = fz_below(in, 8) ? (int)fz_below(in, q->cap.max_recv_sge + 1) :
			   fz_below(in, 2) ? (int)fz_below(in, FV_MAX_SGE) : -(int)fz_below(in, 3);
		int j;

		wr[k].next = k + 1 < n ? &wr[k + 1] : NULL;
		wr[k].wr_id = FV_WRID(q->serial, 1, q->rq.posted + k);
		wr[k].num_sge = nsge;
		if (nsge > 0 && nsge <= FV_MAX_SGE) {
			sg[k] = malloc(nsge * sizeof(*sg[k]));
			FZ_CHECK(sg[k], "oom");
			for (j = 0; j < nsge; j++)
				fv_sge(in, &sg[k][j]);
		} else if (nsge > 0) {
			wr[k].num_sge = 0;
		}
		wr[k].sg_list = sg[k];
		if (bad >= 0)
			continue;
		if (q->qp->state == IBV_QPS_RESET) {
			bad = k;
			expect = EINVAL;
		} else if (q->rq.posted - q->rq.retired + k >= q->cap.max_recv_wr) {
			bad = k;
			expect = ENOMEM;
		} else if ((unsigned int)wr[k].num_sge > q->cap.max_recv_sge) {
			bad = k;
			expect = EINVAL;
		}
	}
	for (k = 0; fz_verbose && k < n; k++) {
		int j;

		FZ_LOG("    WR %llu num_sge %d\n", (unsigned long long)FV_WRID_SEQ(wr[k].wr_id),
		       wr[k].num_sge);
		for (j = 0; wr[k].sg_list && j < wr[k].num_sge; j++)
			FZ_LOG("      sge %#llx len %#x lkey %#x\n",
			       (unsigned long long)wr[k].sg_list[j].addr,
			       wr[k].sg_list[j].length, wr[k].sg_list[j].lkey);
	}
	rc = ibv_post_recv(q->qp, wr, &bad_wr);
	FZ_LOG("  post_recv qp %d (%u) %d WRs (expect %d at %d): %d\n", i,
	       q->qp->qp_num, n, expect, bad, rc);
	if (bad < 0) {
		FZ_CHECK(rc == 0, "ibv_post_recv of %d valid WRs returned %d", n, rc);
	} else {
		FZ_CHECK(rc == expect && bad_wr == &wr[bad], "ibv_post_recv: WR %d of %d "
			 "should fail with %d, got %d with bad_wr = WR %ld", bad, n, expect,
			 rc, bad_wr == (void *)1 ? -1L : (long)(bad_wr - wr));
		n = bad;
	}
	q->rq.posted += n;
	for (k = 0; k < FV_MAX_CHAIN; k++)
		free(sg[k]);
}

static void op_poll(struct fz_in *in)
{
	static const int nes[] = { 0, -1, 1, 2, 16, -0x7fffffff - 1, 0x7fffffff };
	int c = FV_LIVE(in, cq), ne, k, rounds = 1 + fz_below(in, 8);

	if (!fv.cq[c].cq)
		return;
	for (k = 0; k < rounds; k++) {
		ne = fz_below(in, 4) ? 1 + (int)fz_below(in, 32) : nes[fz_below(in, 7)];
		if (ne == 0x7fffffff)
			ne = 64;	/* an array that large is not ours to give */
		fv_poll(c, ne);
	}
}

static void op_notify(struct fz_in *in)
{
	int c = FV_LIVE(in, cq), rc;

	if (!fv.cq[c].cq)
		return;
	rc = ibv_req_notify_cq(fv.cq[c].cq, fz_below(in, 4) ? (int)fz_below(in, 2) :
			       (int)fz_u32(in));
	FZ_CHECK(rc == 0, "ibv_req_notify_cq returned %d", rc);
}

static void op_query(struct fz_in *in)
{
	int c = fv_live_ctx(in), rc, i;
	struct ibv_context *ctx;

	if (c < 0)
		return;
	ctx = fv.ctx[c].ctx;
	switch (fz_below(in, 8)) {
	case 0: {
		struct ibv_device_attr a;

		rc = ibv_query_device(ctx, &a);
		FZ_CHECK(!rc && a.phys_port_cnt == 1 && a.max_qp_wr > 0,
			 "ibv_query_device: %d", rc);
		break;
	}
	case 1: {
		struct ibv_port_attr a;
		uint8_t port = fz_below(in, 2) ? 1 : fz_u8(in);

		rc = ibv_query_port(ctx, port, &a);
		FZ_CHECK(port == 1 ? rc == 0 && a.state == IBV_PORT_ACTIVE : rc != 0,
			 "ibv_query_port(%u) returned %d", port, rc);
		break;
	}
	case 2: {
		union ibv_gid g;
		uint8_t port = fz_below(in, 2) ? 1 : fz_u8(in);
		int idx = fz_below(in, 2) ? 0 : (int)fz_u32(in);

		rc = ibv_query_gid(ctx, port, idx, &g);
		FZ_CHECK((port == 1 && idx == 0) == (rc == 0), "ibv_query_gid(%u, %d) "
			 "returned %d", port, idx, rc);
		break;
	}
	case 3: {
		__be16 pk;
		uint8_t port = fz_below(in, 2) ? 1 : fz_u8(in);
		int idx = fz_below(in, 2) ? 0 : (int)fz_u32(in);

		rc = ibv_query_pkey(ctx, port, idx, &pk);
		FZ_CHECK((port == 1 && idx == 0) == (rc == 0), "ibv_query_pkey(%u, %d) "
			 "returned %d", port, idx, rc);
		break;
	}
	case 4: {
		struct ibv_device_attr_ex a;

		rc = ibv_query_device_ex(ctx, NULL, &a);
		FZ_CHECK(!rc, "ibv_query_device_ex returned %d", rc);
		break;
	}
	case 5: {
		struct ibv_gid_entry e;
		uint32_t idx = fz_below(in, 2) ? 0 : fz_u32(in);

		rc = ibv_query_gid_ex(ctx, 1, idx, &e, 0);
		FZ_CHECK(idx == 0 ? rc == 0 : rc != 0, "ibv_query_gid_ex(%u) returned %d",
			 idx, rc);
		break;
	}
	default: {
		/* A QP: the library reports the hardware's state. */
		struct ibv_qp_attr a;
		struct ibv_qp_init_attr ia;
		enum ibv_qp_state hw0, hw1;

		i = FV_LIVE(in, qp);
		if (!fv.qp[i].qp)
			break;
		/* The hardware may end the QP while the query runs (commands
		 * take simulated time): either state is right. */
		hw0 = fv_hw_state(&fv.qp[i]);
		rc = ibv_query_qp(fv.qp[i].qp, &a, (int)fz_u32(in), &ia);
		FZ_CHECK(!rc, "ibv_query_qp returned %d", rc);
		hw1 = fv_hw_state(&fv.qp[i]);
		FZ_CHECK(a.qp_state == hw0 || a.qp_state == hw1, "QP %u: ibv_query_qp says "
			 "state %d, the hardware holds %d (before) and %d (after)",
			 fv.qp[i].qp->qp_num, a.qp_state, hw0, hw1);
		FZ_CHECK(a.cap.max_send_wr == fv.qp[i].cap.max_send_wr &&
			 a.cap.max_recv_wr == fv.qp[i].cap.max_recv_wr,
			 "ibv_query_qp: caps changed");
		if (a.qp_state == IBV_QPS_ERR)
			fv.qp[i].state = IBV_QPS_ERR;
		break;
	}
	}
}

/* Helpers with no object: must not crash on any argument. */
/*
 * A completion channel with a CQ on it: the channel is busy while the CQ
 * exists, arming the CQ succeeds, and with no completion there is no event
 * (the channel's fd made non-blocking).
 */
static void fv_channel_calls(struct fz_in *in, int c)
{
	struct ibv_context *ctx = fv.ctx[c].ctx;
	struct ibv_comp_channel *ch = ibv_create_comp_channel(ctx);
	struct ibv_cq *cq, *ecq;
	void *ectx;
	int rc, fl;

	FZ_CHECK(ch, "ibv_create_comp_channel failed: errno %d", errno);
	FZ_CHECK(ch->context == ctx && ch->fd >= 0, "comp channel: context %p fd %d",
		 (void *)ch->context, ch->fd);
	if (fz_below(in, 4)) {
		cq = ibv_create_cq(ctx, 1 + (int)fz_below(in, 64), NULL, ch, 0);
		FZ_CHECK(cq, "ibv_create_cq on a channel failed: errno %d", errno);
		FZ_CHECK(cq->channel == ch, "CQ's channel %p, not %p", (void *)cq->channel,
			 (void *)ch);
		rc = ibv_destroy_comp_channel(ch);
		FZ_CHECK(rc == EBUSY, "ibv_destroy_comp_channel with a CQ on it "
			 "returned %d, not EBUSY", rc);
		rc = ibv_req_notify_cq(cq, (int)fz_below(in, 2));
		FZ_CHECK(rc == 0, "ibv_req_notify_cq(channel CQ) returned %d", rc);
		fl = fcntl(ch->fd, F_GETFL);
		FZ_CHECK(fl >= 0 && !fcntl(ch->fd, F_SETFL, fl | O_NONBLOCK), "fcntl");
		rc = ibv_get_cq_event(ch, &ecq, &ectx);
		FZ_CHECK(rc == -1, "ibv_get_cq_event: an event for a CQ without "
			 "completions");
		rc = ibv_destroy_cq(cq);
		FZ_CHECK(rc == 0, "ibv_destroy_cq(channel CQ) returned %d", rc);
	}
	rc = ibv_destroy_comp_channel(ch);
	FZ_CHECK(rc == 0, "ibv_destroy_comp_channel returned %d", rc);
}

/*
 * An SRQ on PD @p: create (the limits ibv_query_device reports decide
 * whether it must succeed), post chains of receives (nothing consumes them:
 * the ring fills), modify the limit with random masks, query, destroy.
 */
static void fv_srq_calls(struct fz_in *in, int p)
{
	struct ibv_context *ctx = fv.pd[p].pd->context;
	struct ibv_device_attr da;
	struct ibv_srq_init_attr sa;
	struct ibv_srq_attr qa;
	struct ibv_srq *srq;
	uint32_t want_wr, want_sge, entries, max_sge, limit = 0, posted = 0;
	int k, rc;

	FZ_CHECK(!ibv_query_device(ctx, &da), "ibv_query_device");
	memset(&sa, 0, sizeof(sa));
	want_wr = fz_below(in, 4) ? fz_below(in, 65) : fz_u16(in);
	want_sge = fz_below(in, 4) ? fz_below(in, (unsigned int)da.max_srq_sge + 1) :
				     fz_below(in, FV_MAX_SGE);
	sa.attr.max_wr = want_wr;
	sa.attr.max_sge = want_sge;
	sa.attr.srq_limit = fz_u32(in);		/* not an input of create */
	sa.srq_context = &fv;
	srq = ibv_create_srq(fv.pd[p].pd, &sa);
	if (want_wr > (uint32_t)da.max_srq_wr || want_sge > (uint32_t)da.max_srq_sge) {
		FZ_CHECK(!srq && errno == EINVAL, "ibv_create_srq(max_wr %u, max_sge %u) "
			 "beyond the device's %d/%d: %s, errno %d", want_wr, want_sge,
			 da.max_srq_wr, da.max_srq_sge, srq ? "created" : "failed", errno);
		return;
	}
	FZ_CHECK(srq, "ibv_create_srq(max_wr %u, max_sge %u) failed: errno %d",
		 want_wr, want_sge, errno);
	FZ_CHECK(srq->pd == fv.pd[p].pd && srq->context == ctx && srq->srq_context == &fv,
		 "ibv_create_srq: pd/context/srq_context not set");
	entries = sa.attr.max_wr;
	max_sge = sa.attr.max_sge;
	FZ_CHECK(entries >= want_wr && entries >= 1 && max_sge >= want_sge &&
		 max_sge <= (uint32_t)da.max_srq_sge,
		 "ibv_create_srq(max_wr %u, max_sge %u) reports %u, %u", want_wr,
		 want_sge, entries, max_sge);

	for (k = fz_below(in, 6); k; k--) {
		struct ibv_recv_wr wr[FV_MAX_CHAIN], *bad = NULL;
		struct ibv_sge sge[FV_MAX_CHAIN][FV_MAX_SGE];
		int n = 1 + fz_below(in, FV_MAX_CHAIN), i, j, fail = -1, err = 0, err2 = 0;
		uint32_t slots = posted;

		memset(wr, 0, sizeof(wr));
		for (i = 0; i < n; i++) {
			wr[i].wr_id = fz_u64(in);
			wr[i].num_sge = fz_below(in, 8) ? (int)fz_below(in, max_sge + 1) :
							  (int)fz_below(in, max_sge + 3);
			wr[i].sg_list = sge[i];
			for (j = 0; j < wr[i].num_sge; j++)
				fv_sge(in, &sge[i][j]);
			wr[i].next = i + 1 < n ? &wr[i + 1] : NULL;
			if (fail < 0) {
				/* A full ring (nothing consumes) or too many SGEs:
				 * either errno when both apply. */
				if (slots >= entries)
					err = ENOMEM;
				if ((uint32_t)wr[i].num_sge > max_sge) {
					if (err)
						err2 = EINVAL;
					else
						err = EINVAL;
				}
				if (err)
					fail = i;
				else
					slots++;
			}
		}
		rc = ibv_post_srq_recv(srq, wr, &bad);
		if (fail < 0) {
			FZ_CHECK(rc == 0, "ibv_post_srq_recv(%d WRs, %u of %u posted) "
				 "returned %d", n, posted, entries, rc);
		} else {
			FZ_CHECK((rc == err || (err2 && rc == err2)) && bad == &wr[fail],
				 "ibv_post_srq_recv: WR %d of %d (%u of %u posted, num_sge "
				 "%d of %u) must fail with %d%s; returned %d, bad_wr %d", fail,
				 n, slots, entries, wr[fail].num_sge, max_sge, err,
				 err2 ? " or EINVAL" : "", rc,
				 bad ? (int)(bad - wr) : -1);
		}
		posted = slots;
	}

	for (k = fz_below(in, 3); k; k--) {
		struct ibv_srq_attr ma;
		int mask;

		memset(&ma, 0, sizeof(ma));
		switch (fz_below(in, 4)) {
		case 0: mask = (int)fz_u32(in); break;
		case 1: mask = IBV_SRQ_MAX_WR | (fz_below(in, 2) ? IBV_SRQ_LIMIT : 0); break;
		default: mask = IBV_SRQ_LIMIT; break;
		}
		ma.max_wr = fz_u32(in);
		ma.srq_limit = fz_below(in, 4) ? fz_below(in, entries + 2) : fz_u32(in);
		rc = ibv_modify_srq(srq, &ma, mask);
		/* No resizing (max_wr is fixed, as mlx5); the limit must be
		 * below max_wr. */
		if ((mask & ~(IBV_SRQ_MAX_WR | IBV_SRQ_LIMIT)) || (mask & IBV_SRQ_MAX_WR) ||
		    ((mask & IBV_SRQ_LIMIT) && ma.srq_limit >= entries)) {
			FZ_CHECK(rc == EINVAL, "ibv_modify_srq(mask %#x, limit %u, max_wr "
				 "%u of %u) returned %d, not EINVAL", mask, ma.srq_limit,
				 ma.max_wr, entries, rc);
		} else {
			FZ_CHECK(rc == 0, "ibv_modify_srq(mask %#x, limit %u of %u) "
				 "returned %d", mask, ma.srq_limit, entries, rc);
			if (mask & IBV_SRQ_LIMIT)
				limit = ma.srq_limit;
		}
	}
	memset(&qa, 0xa5, sizeof(qa));
	FZ_CHECK(!ibv_query_srq(srq, &qa), "ibv_query_srq");
	/* Nothing took a WQE, so an armed limit has not fired. */
	FZ_CHECK(qa.max_wr == entries && qa.max_sge == max_sge && qa.srq_limit == limit,
		 "ibv_query_srq: max_wr %u max_sge %u limit %u (want %u, %u, %u)",
		 qa.max_wr, qa.max_sge, qa.srq_limit, entries, max_sge, limit);
	rc = ibv_destroy_srq(srq);
	FZ_CHECK(rc == 0, "ibv_destroy_srq returned %d", rc);
}

static void op_misc(struct fz_in *in)
{
	uint32_t v = fz_u32(in);
	struct ibv_device **l;
	int n = -1;
	const char *s;

	switch (fz_below(in, 8)) {
	case 0: s = ibv_wc_status_str((enum ibv_wc_status)v); FZ_CHECK(s, "str"); break;
	case 1: s = ibv_event_type_str((enum ibv_event_type)v); FZ_CHECK(s, "str"); break;
	case 2: s = ibv_port_state_str((enum ibv_port_state)v); FZ_CHECK(s, "str"); break;
	case 3: s = ibv_node_type_str((enum ibv_node_type)v); FZ_CHECK(s, "str"); break;
	case 4:
		(void)ibv_rate_to_mbps((enum ibv_rate)v);
		(void)ibv_rate_to_mult((enum ibv_rate)v);
		(void)mbps_to_ibv_rate((int)v);
		(void)mult_to_ibv_rate((int)v);
		break;
	case 5:
		l = ibv_get_device_list(fz_below(in, 2) ? &n : NULL);
		FZ_CHECK(l, "ibv_get_device_list failed: errno %d", errno);
		for (n = 0; l[n]; n++)
			FZ_CHECK(ibv_get_device_name(l[n]) && ibv_get_device_guid(l[n]),
				 "device name/guid");
		FZ_CHECK(n == fv.ndev, "device list changed: %d devices", n);
		ibv_free_device_list(l);
		break;
	case 6: {
		/* Completion channels, SRQs (not attached to a QP), address
		 * handles, memory windows. */
		int c = fv_live_ctx(in), p = FV_LIVE(in, pd);

		if (c >= 0)
			fv_channel_calls(in, c);
		if (fv.pd[p].pd) {
			struct ibv_ah_attr aa;
			struct ibv_ah *ah;
			struct ibv_mw *mw;

			fv_srq_calls(in, p);
			memset(&aa, 0, sizeof(aa));
			aa.is_global = fz_u8(in) & 1;
			aa.port_num = fz_u8(in);
			ah = ibv_create_ah(fv.pd[p].pd, &aa);
			if (ah)
				FZ_CHECK(!ibv_destroy_ah(ah), "destroy ah");
			mw = ibv_alloc_mw(fv.pd[p].pd, IBV_MW_TYPE_1 + fz_below(in, 2));
			if (mw)
				FZ_CHECK(!ibv_dealloc_mw(mw), "dealloc mw");
		}
		break;
	}
	default: {
		int m = FV_LIVE(in, mr);

		if (fv.mr[m].mr) {
			int rc = ibv_rereg_mr(fv.mr[m].mr, (int)fz_u32(in), NULL, NULL, 0,
					      (int)fz_u32(in));

			/* Ours refuses every rereg and keeps the MR as it was. */
			FZ_CHECK(rc == IBV_REREG_MR_ERR_INPUT || rc == 0, "ibv_rereg_mr "
				 "returned %d", rc);
			FZ_CHECK(rc != 0, "ibv_rereg_mr succeeded; the harness does "
				 "not track that");
		}
		break;
	}
	}
}

/* ------------------------------------------------------------------------ */
/* End of an input: drain, destroy, check                                   */
/* ------------------------------------------------------------------------ */

static void fv_poll_all(void)
{
	int c;

	for (c = 0; c < FV_CQ; c++)
		if (fv.cq[c].cq)
			while (fv_poll(c, 16) > 0)
				;
}

/* Every QP past RESET to ERR; every receive WR and a signaled sentinel
 * send WR must complete. */
static void fv_drain(int only)
{
	long polls = 0;
	int i, pending;

	for (i = 0; i < FV_QP; i++) {
		struct fv_qp *q = &fv.qp[i];
		struct ibv_qp_attr a;
		int rc;

		q->draining = 0;
		if (!q->qp || q->qp->state == IBV_QPS_RESET || (only >= 0 && i != only))
			continue;
		q->draining = 1;
		memset(&a, 0, sizeof(a));
		a.qp_state = IBV_QPS_ERR;
		rc = ibv_modify_qp(q->qp, &a, IBV_QP_STATE);
		FZ_CHECK(!rc, "ibv_modify_qp(QP %u to ERR) returned %d", q->qp->qp_num, rc);
		fv_modified(q, q->qp->state, IBV_QPS_ERR);
		q->sentinel = ~0ULL;
		q->sentinel_seen = 0;
	}
	for (;;) {
		pending = 0;
		fv_poll_all();
		for (i = 0; i < FV_QP; i++) {
			struct fv_qp *q = &fv.qp[i];

			if (!q->qp || !q->draining)
				continue;
			if (q->rq.next != q->rq.posted)
				pending++;
			if (q->sentinel == ~0ULL && q->sq.posted - q->sq.retired <
			    q->cap.max_send_wr) {
				struct ibv_send_wr wr, *bad;
				int rc;

				memset(&wr, 0, sizeof(wr));
				wr.wr_id = q->sentinel = FV_WRID(q->serial, 0, q->sq.posted);
				wr.opcode = IBV_WR_SEND;
				wr.send_flags = IBV_SEND_SIGNALED;
				rc = ibv_post_send(q->qp, &wr, &bad);
				FZ_CHECK(!rc, "ibv_post_send(sentinel) on QP %u in ERR "
					 "returned %d", q->qp->qp_num, rc);
				q->sq.op[q->sq.posted % q->sq.cap] = IBV_WR_SEND;
				q->sq.sig[q->sq.posted % q->sq.cap] = 1;
				q->sq.posted++;
			}
			/*
			 * A send queue full of unsignaled WRs takes no sentinel,
			 * and those that completed before the move to ERR leave
			 * no CQE to make room (the library, like mlx5's, frees
			 * slots on CQEs). In ERR any WR not completed yet is
			 * flushed with a CQE, which retires it: once there was
			 * time for that and the hardware holds no send WQE that
			 * has not completed, the queue is drained.
			 */
			if (q->sentinel == ~0ULL && !q->sentinel_seen &&
			    q->sq.posted - q->sq.retired >= q->cap.max_send_wr &&
			    polls >= FV_SENTINEL_POLLS && fv_sq_unsignaled(q) &&
			    !fv_hw_draining(q)) {
				FZ_LOG("  QP %u: SQ full of unsignaled WRs the hardware "
				       "completed: no sentinel fits\n", q->qp->qp_num);
				q->sentinel_seen = 1;
			}
			if (!q->sentinel_seen)
				pending++;
		}
		if (!pending)
			break;
		if (++polls > FV_DRAIN_POLLS) {
			for (i = 0; i < FV_QP; i++) {
				struct fv_qp *q = &fv.qp[i];

				if (q->qp)
					fprintf(stderr, "  QP %u (hw state %d): RQ %llu of %llu "
						"completed; SQ sentinel %s\n", q->qp->qp_num,
						fv_hw_state(q), (unsigned long long)q->rq.next,
						(unsigned long long)q->rq.posted,
						q->sentinel_seen ? "flushed" : "MISSING");
			}
			FZ_CHECK(0, "hang: WRs of QPs in ERR not flushed after %ld polls",
				 polls);
		}
		/* Lets the simulation run (an empty poll waits 256 cycles). */
		for (i = 0; i < FV_CQ; i++)
			if (fv.cq[i].cq) {
				fv_poll(i, 1);
				break;
			}
	}
}

static void fv_teardown(void)
{
	int i;

	fv_drain(-1);
	for (i = 0; i < FV_CTX; i++)
		if (fv.ctx[i].ctx)
			fv_close_ctx(i);
}

/* Nothing the input created is left in the driver (resource numbers, IOVA
 * mappings) or the library (open contexts): the driver holds what it held
 * right after the device came up (fv_setup()). */
static void fv_check_leaks(void)
{
	int n;

	FZ_CHECK(!rv_contexts, "a context is still open after ibv_close_device");
	for (n = 0; n < fv.ndev; n++) {
		struct rnic_dev *d;

		FZ_CHECK(!rnic_dev_open(n, &d), "rnic_dev_open");
		FZ_CHECK(d->qp_map.used == fv.base[n].qpns && d->cq_map.used == fv.base[n].cqns &&
			 d->mr_map.used == fv.base[n].mrs && d->pd_map.used == fv.base[n].pds &&
			 d->iova_mapped == fv.base[n].mapped,
			 "node %d after destroying everything: %u QPNs, %u CQNs, %u MR "
			 "indices, %u PDs and %llu mapped bytes allocated (the device "
			 "itself holds %u, %u, %u, %u and %llu)", n,
			 d->qp_map.used, d->cq_map.used, d->mr_map.used, d->pd_map.used,
			 (unsigned long long)d->iova_mapped, fv.base[n].qpns,
			 fv.base[n].cqns, fv.base[n].mrs, fv.base[n].pds,
			 (unsigned long long)fv.base[n].mapped);
		rnic_dev_close(d);
	}
}

/* ------------------------------------------------------------------------ */
/* Known-good exchange through the verbs                                    */
/* ------------------------------------------------------------------------ */

static void fv_good_poll(struct ibv_cq *cq, uint64_t wr_id, enum ibv_wc_opcode op,
			 uint32_t len, const char *what)
{
	struct ibv_wc wc;
	long polls;
	int rc = 0;

	for (polls = 0; polls < FV_DRAIN_POLLS && !rc; polls++)
		rc = ibv_poll_cq(cq, 1, &wc);
	FZ_CHECK(rc == 1, "known-good exchange after input %lu: %s did not complete: "
		 "the RNIC no longer works", fv.input_no, what);
	FZ_CHECK(wc.status == IBV_WC_SUCCESS && wc.wr_id == wr_id && wc.opcode == op &&
		 wc.byte_len == len, "known-good exchange after input %lu: %s completed "
		 "with status %d wr_id %llu opcode %d len %u", fv.input_no, what,
		 wc.status, (unsigned long long)wc.wr_id, wc.opcode, wc.byte_len);
}

static void fv_good_exchange(void)
{
	enum { LEN = 16384, SEND_LEN = 3000, WR_OFF = 4096, WR_LEN = 5000,
	       RD_OFF = 12288, RD_LEN = 2000 };
	const int acc = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |
			IBV_ACCESS_REMOTE_READ;
	struct ibv_context *ctx[2];
	struct ibv_pd *pd[2];
	struct ibv_cq *cq[2];
	struct ibv_qp *qp[2];
	struct ibv_mr *mr[2];
	uint8_t *buf[2];
	struct ibv_qp_init_attr ia;
	struct ibv_qp_attr a;
	struct ibv_send_wr wr, *bad;
	struct ibv_recv_wr rwr, *rbad;
	struct ibv_sge sge;
	union ibv_gid gid[2];
	uint32_t psn = (uint32_t)(++fv.good_seed * 0x9e3779u) & 0xffffff;
	int i;

	for (i = 0; i < 2; i++) {
		ctx[i] = ibv_open_device(fv.devs[i]);
		FZ_CHECK(ctx[i], "good: open");
		pd[i] = ibv_alloc_pd(ctx[i]);
		cq[i] = ibv_create_cq(ctx[i], 16, NULL, NULL, 0);
		FZ_CHECK(pd[i] && cq[i], "good: pd/cq");
		FZ_CHECK(!posix_memalign((void **)&buf[i], 4096, LEN), "oom");
		fz_fill(buf[i], LEN, fv.good_seed * 2 + i);
		mr[i] = ibv_reg_mr(pd[i], buf[i], LEN, acc);
		FZ_CHECK(mr[i], "good: reg_mr");
		memset(&ia, 0, sizeof(ia));
		ia.send_cq = ia.recv_cq = cq[i];
		ia.qp_type = IBV_QPT_RC;
		ia.cap.max_send_wr = ia.cap.max_recv_wr = 4;
		ia.cap.max_send_sge = ia.cap.max_recv_sge = 1;
		qp[i] = ibv_create_qp(pd[i], &ia);
		FZ_CHECK(qp[i], "good: create_qp");
		FZ_CHECK(!ibv_query_gid(ctx[i], 1, 0, &gid[i]), "good: gid");
	}
	for (i = 0; i < 2; i++) {
		memset(&a, 0, sizeof(a));
		a.qp_state = IBV_QPS_INIT;
		a.port_num = 1;
		a.qp_access_flags = acc;
		FZ_CHECK(!ibv_modify_qp(qp[i], &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX |
					IBV_QP_PORT | IBV_QP_ACCESS_FLAGS), "good: INIT");
		memset(&a, 0, sizeof(a));
		a.qp_state = IBV_QPS_RTR;
		a.path_mtu = IBV_MTU_1024;
		a.dest_qp_num = qp[!i]->qp_num;
		a.rq_psn = psn;
		a.max_dest_rd_atomic = 1;
		a.min_rnr_timer = 1;
		a.ah_attr.is_global = 1;
		a.ah_attr.port_num = 1;
		a.ah_attr.grh.dgid = gid[!i];
		FZ_CHECK(!ibv_modify_qp(qp[i], &a, IBV_QP_STATE | IBV_QP_AV |
					IBV_QP_PATH_MTU | IBV_QP_DEST_QPN | IBV_QP_RQ_PSN |
					IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER),
			 "good: RTR");
		memset(&a, 0, sizeof(a));
		a.qp_state = IBV_QPS_RTS;
		a.sq_psn = psn;
		a.timeout = 10;
		a.retry_cnt = 3;
		a.rnr_retry = 3;
		a.max_rd_atomic = 1;
		FZ_CHECK(!ibv_modify_qp(qp[i], &a, IBV_QP_STATE | IBV_QP_SQ_PSN |
					IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY |
					IBV_QP_MAX_QP_RD_ATOMIC), "good: RTS");
	}
	/* SEND */
	sge.addr = (uintptr_t)buf[1];
	sge.length = LEN;
	sge.lkey = mr[1]->lkey;
	memset(&rwr, 0, sizeof(rwr));
	rwr.wr_id = 11;
	rwr.sg_list = &sge;
	rwr.num_sge = 1;
	FZ_CHECK(!ibv_post_recv(qp[1], &rwr, &rbad), "good: post_recv");
	sge.addr = (uintptr_t)buf[0];
	sge.length = SEND_LEN;
	sge.lkey = mr[0]->lkey;
	memset(&wr, 0, sizeof(wr));
	wr.wr_id = 1;
	wr.sg_list = &sge;
	wr.num_sge = 1;
	wr.opcode = IBV_WR_SEND;
	wr.send_flags = IBV_SEND_SIGNALED;
	FZ_CHECK(!ibv_post_send(qp[0], &wr, &bad), "good: post_send");
	fv_good_poll(cq[1], 11, IBV_WC_RECV, SEND_LEN, "SEND (receive side)");
	fv_good_poll(cq[0], 1, IBV_WC_SEND, SEND_LEN, "SEND");
	FZ_CHECK(!memcmp(buf[1], buf[0], SEND_LEN), "known-good exchange after input "
		 "%lu: SEND data differ", fv.input_no);
	/* WRITE */
	sge.addr = (uintptr_t)buf[0] + 7;
	sge.length = WR_LEN;
	wr.wr_id = 2;
	wr.opcode = IBV_WR_RDMA_WRITE;
	wr.wr.rdma.remote_addr = (uintptr_t)buf[1] + WR_OFF;
	wr.wr.rdma.rkey = mr[1]->rkey;
	FZ_CHECK(!ibv_post_send(qp[0], &wr, &bad), "good: post_send");
	fv_good_poll(cq[0], 2, IBV_WC_RDMA_WRITE, WR_LEN, "WRITE");
	FZ_CHECK(!memcmp(buf[1] + WR_OFF, buf[0] + 7, WR_LEN), "known-good exchange "
		 "after input %lu: WRITE data differ", fv.input_no);
	/* READ */
	sge.addr = (uintptr_t)buf[0] + RD_OFF;
	sge.length = RD_LEN;
	wr.wr_id = 3;
	wr.opcode = IBV_WR_RDMA_READ;
	wr.wr.rdma.remote_addr = (uintptr_t)buf[1] + WR_OFF + 100;
	FZ_CHECK(!ibv_post_send(qp[0], &wr, &bad), "good: post_send");
	fv_good_poll(cq[0], 3, IBV_WC_RDMA_READ, RD_LEN, "READ");
	FZ_CHECK(!memcmp(buf[0] + RD_OFF, buf[1] + WR_OFF + 100, RD_LEN), "known-good "
		 "exchange after input %lu: READ data differ", fv.input_no);

	for (i = 0; i < 2; i++) {
		FZ_CHECK(!ibv_destroy_qp(qp[i]), "good: destroy_qp");
		FZ_CHECK(!ibv_dereg_mr(mr[i]), "good: dereg_mr");
		FZ_CHECK(!ibv_destroy_cq(cq[i]), "good: destroy_cq");
		FZ_CHECK(!ibv_dealloc_pd(pd[i]), "good: dealloc_pd");
		FZ_CHECK(!ibv_close_device(ctx[i]), "good: close");
		free(buf[i]);
	}
}

enum {
	FV_OP_OPEN, FV_OP_PD, FV_OP_MR, FV_OP_MR2, FV_OP_CQ, FV_OP_QP, FV_OP_QP2,
	FV_OP_CONNECT, FV_OP_CONNECT2, FV_OP_PAIR, FV_OP_MODIFY, FV_OP_DESTROY,
	FV_OP_SEND, FV_OP_SEND2, FV_OP_SEND3, FV_OP_RECV, FV_OP_RECV2,
	FV_OP_POLL, FV_OP_POLL2, FV_OP_NOTIFY, FV_OP_QUERY, FV_OP_MISC, FV_OP_NUM
};

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fz_in in = { data, size };
	struct fz_health h;
	int ops;

	if (!fv.ready)
		fv_setup();
	fv.input_no++;
	fz_health_snap(fv.sim, &h);
	fv_prologue(&in);
	for (ops = 0; ops < FV_MAX_OPS && in.n; ops++) {
		switch (fz_below(&in, FV_OP_NUM)) {
		case FV_OP_OPEN: op_open(&in); break;
		case FV_OP_PD: op_pd(&in); break;
		case FV_OP_MR: case FV_OP_MR2: op_mr(&in); break;
		case FV_OP_CQ: op_cq(&in); break;
		case FV_OP_QP: case FV_OP_QP2: op_qp(&in); break;
		case FV_OP_CONNECT: case FV_OP_CONNECT2: op_connect(&in); break;
		case FV_OP_PAIR: op_connect_pair(&in); break;
		case FV_OP_DESTROY: op_destroy(&in); break;
		case FV_OP_MODIFY: op_modify_random(&in); break;
		case FV_OP_SEND: case FV_OP_SEND2: case FV_OP_SEND3:
			op_post_send(&in);
			break;
		case FV_OP_RECV: case FV_OP_RECV2: op_post_recv(&in); break;
		case FV_OP_POLL: case FV_OP_POLL2: op_poll(&in); break;
		case FV_OP_NOTIFY: op_notify(&in); break;
		case FV_OP_QUERY: op_query(&in); break;
		case FV_OP_MISC: op_misc(&in); break;
		}
		/* After each call: a fault is reported with the call that
		 * let the simulation run into it. */
		fz_health_check(fv.sim, &h, "after a verbs call");
	}
	fv_teardown();
	fv_check_leaks();
	fz_health_check(fv.sim, &h, "after the verbs calls");
	fv_good_exchange();
	fv_check_leaks();
	fz_health_check(fv.sim, &h, "after the known-good exchange");
	return 0;
}
