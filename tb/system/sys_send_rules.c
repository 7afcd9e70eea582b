// SPDX-License-Identifier: MIT
/*
 * sys_send_rules.c - the posting rules of ibv_post_send(3) for every
 * opcode, flag and QP type: "It stops processing WRs from this list at the
 * first failure (that can be detected immediately while requests are being
 * posted), and returns this failing WR through bad_wr".
 *
 *   ip_csum_refused     IBV_SEND_IP_CSUM on every opcode (RC) and on a UD
 *                       SEND: EINVAL, bad_wr = the WR (the device reports no
 *                       checksum offload);
 *   chain_<bad>         [good WRITE, bad WR, good WRITE]: EINVAL, bad_wr =
 *                       the second WR, the first completes and writes, the
 *                       third does not. Bad WRs: num_sge above max_send_sge
 *                       on SEND_WITH_INV, LOCAL_INV and BIND_MW; BIND_MW of
 *                       a type 1 window, with an MR of another PD, with the
 *                       rkey of another window, without MR but with a
 *                       length, with non-window access flags;
 *                       IBV_SEND_INLINE on LOCAL_INV, BIND_MW, READ and
 *                       atomics (SEND_WITH_INV is a SEND: it may be inline);
 *                       inline data of
 *                       max_inline_data + 1 on SEND and WRITE; opcodes TSO,
 *                       DRIVER1, ATOMIC_WRITE and 99;
 *   sq_full_<op>        with the SQ full (completions not polled):
 *                       SEND_WITH_INV, LOCAL_INV, BIND_MW and an inline SEND
 *                       get ENOMEM, bad_wr = the WR;
 *   uc_opcodes          a UC QP refuses READ, both atomics and
 *                       SEND_WITH_INV (EINVAL);
 *   ud_opcodes          a UD QP refuses every opcode but SEND and
 *                       SEND_WITH_IMM, a SEND without an address handle, with
 *                       an AH of another PD, and inline data of
 *                       max_inline_data + 1 (EINVAL).
 * Nothing of this needs the hardware to execute anything but RDMA WRITE.
 */
#define _DEFAULT_SOURCE

#include "common.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#define BUF_LEN 8192
#define CANARY 0xe1
#define MAX_SGE 2

struct res {
	struct t_pair p;
	struct t_buf src, dst;
	struct ibv_pd *pd2;
	struct t_buf other;		/* an MR of pd2 */
	struct ibv_mw *mw1, *mw2, *mw2b;
	uint32_t qpn0;
};

static void wr_init(struct ibv_send_wr *wr, uint64_t wr_id, enum ibv_wr_opcode op,
		    struct ibv_sge *sg, int nsge, unsigned int flags)
{
	memset(wr, 0, sizeof(*wr));
	wr->wr_id = wr_id;
	wr->opcode = op;
	wr->sg_list = sg;
	wr->num_sge = nsge;
	wr->send_flags = flags;
}

static void write_wr(struct res *r, struct ibv_send_wr *wr, struct ibv_sge *sg,
		     uint64_t wr_id, size_t slot)
{
	*sg = t_sge(&r->src, slot * 64, 64);
	wr_init(wr, wr_id, IBV_WR_RDMA_WRITE, sg, 1, IBV_SEND_SIGNALED);
	wr->wr.rdma.remote_addr = t_addr(&r->dst, slot * 64);
	wr->wr.rdma.rkey = r->dst.mr->rkey;
}

/* One WR alone: EINVAL, bad_wr = it, no completion. */
static void expect_refused(struct ibv_qp *qp, struct ibv_cq *cq,
			   struct ibv_send_wr *wr, int err, const char *what)
{
	struct ibv_send_wr *bad = NULL;
	int rc;

	wr->next = NULL;
	rc = ibv_post_send(qp, wr, &bad);
	CHECKF(rc == err, "%s: ibv_post_send returned %d, expected %d", what, rc, err);
	CHECKF(bad == wr, "%s: bad_wr %p, expected %p", what, (void *)bad, (void *)wr);
	EXPECT_EMPTY(cq, 10);
}

/* The chain [WRITE slot 0, bad, WRITE slot 1]. */
static void chain(struct res *r, const char *name, struct ibv_send_wr *badw)
{
	struct ibv_send_wr w[3], *bad = NULL;
	struct ibv_sge sg[2];
	struct ibv_wc wc;
	int rc;

	memset(r->dst.p, CANARY, 128);
	write_wr(r, &w[0], &sg[0], 1, 0);
	w[1] = *badw;
	w[1].wr_id = 2;
	write_wr(r, &w[2], &sg[1], 3, 1);
	w[0].next = &w[1];
	w[1].next = &w[2];
	w[2].next = NULL;
	rc = ibv_post_send(r->p.s[0].qp, w, &bad);
	CHECKF(rc == EINVAL, "chain_%s: returned %d, expected EINVAL", name, rc);
	CHECKF(bad == &w[1], "chain_%s: bad_wr %p, expected %p", name, (void *)bad,
	       (void *)&w[1]);
	POLL(r->p.s[0].scq, 1, &wc);
	EXPECT_WC(&wc, 1, IBV_WC_SUCCESS, IBV_WC_RDMA_WRITE, r->qpn0, T_ANY, 0, T_ANY);
	EXPECT_EMPTY(r->p.s[0].scq, 200);
	CHECK_MEM(r->dst.p, r->src.p, 64);
	CHECK_FILL(r->dst.p + 64, CANARY, 64);
	printf("chain_%s: EINVAL at it, first posted, rest not: ok\n", name);
}

static void bind_wr(struct ibv_send_wr *wr, struct ibv_mw *mw, uint32_t rkey,
		    struct ibv_mr *mr, void *addr, uint64_t len, unsigned int acc)
{
	wr_init(wr, 0, IBV_WR_BIND_MW, NULL, 0, IBV_SEND_SIGNALED);
	wr->bind_mw.mw = mw;
	wr->bind_mw.rkey = rkey;
	wr->bind_mw.bind_info.mr = mr;
	wr->bind_mw.bind_info.addr = (uint64_t)(uintptr_t)addr;
	wr->bind_mw.bind_info.length = len;
	wr->bind_mw.bind_info.mw_access_flags = acc;
}

static void chains(struct res *r)
{
	struct ibv_sge sl[MAX_SGE + 1];
	struct ibv_send_wr b;
	uint32_t maxi = r->p.s[0].cap.max_inline_data;
	int i;

	for (i = 0; i <= MAX_SGE; i++)
		sl[i] = t_sge(&r->src, 1024 + 16 * (size_t)i, 16);

	wr_init(&b, 0, IBV_WR_SEND_WITH_INV, sl, MAX_SGE + 1, IBV_SEND_SIGNALED);
	b.invalidate_rkey = r->mw2->rkey;
	chain(r, "send_inv_too_many_sges", &b);
	wr_init(&b, 0, IBV_WR_LOCAL_INV, sl, MAX_SGE + 1, IBV_SEND_SIGNALED);
	b.invalidate_rkey = r->mw2->rkey;
	chain(r, "local_inv_too_many_sges", &b);
	bind_wr(&b, r->mw2, ibv_inc_rkey(r->mw2->rkey), r->src.mr, r->src.p, 64,
		IBV_ACCESS_REMOTE_WRITE);
	b.sg_list = sl;
	b.num_sge = MAX_SGE + 1;
	chain(r, "bind_mw_too_many_sges", &b);

	bind_wr(&b, r->mw1, ibv_inc_rkey(r->mw1->rkey), r->src.mr, r->src.p, 64,
		IBV_ACCESS_REMOTE_WRITE);
	chain(r, "bind_mw_type1", &b);
	bind_wr(&b, r->mw2, ibv_inc_rkey(r->mw2->rkey), r->other.mr, r->other.p, 64,
		IBV_ACCESS_REMOTE_WRITE);
	chain(r, "bind_mw_mr_of_other_pd", &b);
	bind_wr(&b, r->mw2, ibv_inc_rkey(r->mw2b->rkey), r->src.mr, r->src.p, 64,
		IBV_ACCESS_REMOTE_WRITE);
	chain(r, "bind_mw_rkey_of_other_window", &b);
	bind_wr(&b, r->mw2, ibv_inc_rkey(r->mw2->rkey), NULL, r->src.p, 64,
		IBV_ACCESS_REMOTE_WRITE);
	chain(r, "bind_mw_length_without_mr", &b);
	bind_wr(&b, r->mw2, ibv_inc_rkey(r->mw2->rkey), r->src.mr, r->src.p, 64,
		IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_MW_BIND);
	chain(r, "bind_mw_bad_access", &b);

	wr_init(&b, 0, IBV_WR_LOCAL_INV, NULL, 0, IBV_SEND_SIGNALED | IBV_SEND_INLINE);
	chain(r, "inline_local_inv", &b);
	bind_wr(&b, r->mw2, ibv_inc_rkey(r->mw2->rkey), r->src.mr, r->src.p, 64,
		IBV_ACCESS_REMOTE_WRITE);
	b.send_flags |= IBV_SEND_INLINE;
	chain(r, "inline_bind_mw", &b);
	wr_init(&b, 0, IBV_WR_RDMA_READ, sl, 1, IBV_SEND_SIGNALED | IBV_SEND_INLINE);
	b.wr.rdma.remote_addr = t_addr(&r->dst, 0);
	b.wr.rdma.rkey = r->dst.mr->rkey;
	chain(r, "inline_read", &b);
	wr_init(&b, 0, IBV_WR_ATOMIC_FETCH_AND_ADD, sl, 1,
		IBV_SEND_SIGNALED | IBV_SEND_INLINE);
	b.wr.atomic.remote_addr = t_addr(&r->dst, 0);
	b.wr.atomic.rkey = r->dst.mr->rkey;
	chain(r, "inline_fetch_add", &b);
	wr_init(&b, 0, IBV_WR_ATOMIC_CMP_AND_SWP, sl, 1,
		IBV_SEND_SIGNALED | IBV_SEND_INLINE);
	b.wr.atomic.remote_addr = t_addr(&r->dst, 0);
	b.wr.atomic.rkey = r->dst.mr->rkey;
	chain(r, "inline_cmp_swp", &b);

	sl[0] = t_sge(&r->src, 0, maxi + 1);
	wr_init(&b, 0, IBV_WR_SEND, sl, 1, IBV_SEND_SIGNALED | IBV_SEND_INLINE);
	chain(r, "inline_send_too_long", &b);
	sl[0] = t_sge(&r->src, 0, maxi);
	sl[1] = t_sge(&r->src, 4096, 1);
	wr_init(&b, 0, IBV_WR_RDMA_WRITE, sl, 2, IBV_SEND_SIGNALED | IBV_SEND_INLINE);
	b.wr.rdma.remote_addr = t_addr(&r->dst, 0);
	b.wr.rdma.rkey = r->dst.mr->rkey;
	chain(r, "inline_write_too_long", &b);

	wr_init(&b, 0, IBV_WR_TSO, NULL, 0, IBV_SEND_SIGNALED);
	chain(r, "opcode_tso", &b);
	wr_init(&b, 0, IBV_WR_DRIVER1, NULL, 0, IBV_SEND_SIGNALED);
	chain(r, "opcode_driver1", &b);
	wr_init(&b, 0, IBV_WR_ATOMIC_WRITE, NULL, 0, IBV_SEND_SIGNALED);
	chain(r, "opcode_atomic_write", &b);
	wr_init(&b, 0, (enum ibv_wr_opcode)99, NULL, 0, IBV_SEND_SIGNALED);
	chain(r, "opcode_99", &b);
}

static void ip_csum(struct res *r)
{
	static const enum ibv_wr_opcode ops[] = {
		IBV_WR_SEND, IBV_WR_SEND_WITH_IMM, IBV_WR_RDMA_WRITE,
		IBV_WR_RDMA_WRITE_WITH_IMM, IBV_WR_RDMA_READ,
		IBV_WR_ATOMIC_CMP_AND_SWP, IBV_WR_ATOMIC_FETCH_AND_ADD,
		IBV_WR_SEND_WITH_INV, IBV_WR_LOCAL_INV, IBV_WR_BIND_MW,
	};
	struct ibv_sge sg = t_sge(&r->src, 0, 8);
	struct ibv_send_wr wr;
	unsigned int i;

	for (i = 0; i < sizeof(ops) / sizeof(ops[0]); i++) {
		wr_init(&wr, 40 + i, ops[i], &sg, 1, IBV_SEND_SIGNALED | IBV_SEND_IP_CSUM);
		wr.wr.rdma.remote_addr = t_addr(&r->dst, 0);
		wr.wr.rdma.rkey = r->dst.mr->rkey;
		if (ops[i] == IBV_WR_ATOMIC_CMP_AND_SWP ||
		    ops[i] == IBV_WR_ATOMIC_FETCH_AND_ADD) {
			wr.wr.atomic.remote_addr = t_addr(&r->dst, 0);
			wr.wr.atomic.rkey = r->dst.mr->rkey;
		}
		if (ops[i] == IBV_WR_BIND_MW) {
			bind_wr(&wr, r->mw2, ibv_inc_rkey(r->mw2->rkey), r->src.mr,
				r->src.p, 64, IBV_ACCESS_REMOTE_WRITE);
			wr.send_flags |= IBV_SEND_IP_CSUM;
		}
		expect_refused(r->p.s[0].qp, r->p.s[0].scq, &wr, EINVAL, "ip_csum");
	}
	printf("ip_csum_refused (10 opcodes): EINVAL: ok\n");
}

static void sq_full(struct res *r)
{
	uint32_t n = r->p.s[0].cap.max_send_wr, i;
	struct ibv_sge sg = t_sge(&r->src, 0, 16);
	struct ibv_send_wr wr, w;
	struct ibv_wc wc[64];

	CHECK(n <= 64);
	for (i = 0; i < n; i++) {
		struct ibv_sge s;

		write_wr(r, &w, &s, 500 + i, 2 + i % 8);
		w.next = NULL;
		CHECK_OK(ibv_post_send(r->p.s[0].qp, &w, &(struct ibv_send_wr *){ NULL }));
	}
	wr_init(&wr, 0, IBV_WR_SEND_WITH_INV, &sg, 1, IBV_SEND_SIGNALED);
	wr.invalidate_rkey = r->mw2->rkey;
	expect_refused(r->p.s[0].qp, r->p.s[1].rcq, &wr, ENOMEM, "sq_full_send_inv");
	wr_init(&wr, 0, IBV_WR_LOCAL_INV, NULL, 0, IBV_SEND_SIGNALED);
	wr.invalidate_rkey = r->mw2->rkey;
	expect_refused(r->p.s[0].qp, r->p.s[1].rcq, &wr, ENOMEM, "sq_full_local_inv");
	bind_wr(&wr, r->mw2, ibv_inc_rkey(r->mw2->rkey), r->src.mr, r->src.p, 64,
		IBV_ACCESS_REMOTE_WRITE);
	expect_refused(r->p.s[0].qp, r->p.s[1].rcq, &wr, ENOMEM, "sq_full_bind_mw");
	wr_init(&wr, 0, IBV_WR_SEND, &sg, 1, IBV_SEND_SIGNALED | IBV_SEND_INLINE);
	expect_refused(r->p.s[0].qp, r->p.s[1].rcq, &wr, ENOMEM, "sq_full_inline_send");
	POLL(r->p.s[0].scq, (int)n, wc);
	for (i = 0; i < n; i++)
		EXPECT_WC(&wc[i], 500 + i, IBV_WC_SUCCESS, IBV_WC_RDMA_WRITE, r->qpn0,
			  T_ANY, 0, T_ANY);
	EXPECT_EMPTY(r->p.s[0].scq, 100);
	printf("sq_full_{send_inv,local_inv,bind_mw,inline_send}: ENOMEM: ok\n");
}

static void uc_opcodes(void)
{
	static const enum ibv_wr_opcode bad[] = {
		IBV_WR_RDMA_READ, IBV_WR_ATOMIC_CMP_AND_SWP,
		IBV_WR_ATOMIC_FETCH_AND_ADD, IBV_WR_SEND_WITH_INV,
	};
	struct t_pair_cfg cfg;
	struct ibv_send_wr wr;
	struct ibv_sge sg;
	struct t_buf b;
	struct t_pair p;
	unsigned int i;

	t_pair_default_cfg(&cfg);
	cfg.qp_type = IBV_QPT_UC;
	t_pair_open(&p, &cfg);
	t_buf_alloc(&b, p.s[0].pd, 4096);
	sg = t_sge(&b, 0, 8);
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		wr_init(&wr, 60 + i, bad[i], &sg, 1, IBV_SEND_SIGNALED);
		wr.wr.rdma.remote_addr = t_addr(&b, 0);
		wr.wr.rdma.rkey = b.mr->rkey;
		if (bad[i] == IBV_WR_ATOMIC_CMP_AND_SWP ||
		    bad[i] == IBV_WR_ATOMIC_FETCH_AND_ADD) {
			wr.wr.atomic.remote_addr = t_addr(&b, 0);
			wr.wr.atomic.rkey = b.mr->rkey;
		}
		expect_refused(p.s[0].qp, p.s[0].scq, &wr, EINVAL, "uc");
	}
	t_buf_free(&b);
	t_pair_close(&p);
	printf("uc_opcodes: READ, atomics, SEND_WITH_INV: EINVAL: ok\n");
}

static void ud_opcodes(void)
{
	static const enum ibv_wr_opcode bad[] = {
		IBV_WR_RDMA_WRITE, IBV_WR_RDMA_WRITE_WITH_IMM, IBV_WR_RDMA_READ,
		IBV_WR_ATOMIC_CMP_AND_SWP, IBV_WR_ATOMIC_FETCH_AND_ADD,
		IBV_WR_LOCAL_INV, IBV_WR_BIND_MW, IBV_WR_SEND_WITH_INV,
	};
	struct t_pair_cfg cfg;
	struct ibv_send_wr wr;
	struct ibv_pd *pd2;
	struct ibv_ah *ah2;
	struct ibv_sge sg;
	struct t_buf b;
	struct t_pair p;
	unsigned int i;

	t_pair_default_cfg(&cfg);
	cfg.qp_type = IBV_QPT_UD;
	cfg.qkey = 0x11110000;
	t_pair_open(&p, &cfg);
	t_buf_alloc(&b, p.s[0].pd, 4096);
	sg = t_sge(&b, 0, 8);
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		wr_init(&wr, 80 + i, bad[i], &sg, 1, IBV_SEND_SIGNALED);
		wr.wr.ud.ah = p.s[0].ah;
		wr.wr.ud.remote_qpn = p.s[1].qp->qp_num;
		wr.wr.ud.remote_qkey = cfg.qkey;
		expect_refused(p.s[0].qp, p.s[0].scq, &wr, EINVAL, "ud");
	}
	wr_init(&wr, 90, IBV_WR_SEND, &sg, 1, IBV_SEND_SIGNALED);
	wr.wr.ud.remote_qpn = p.s[1].qp->qp_num;
	wr.wr.ud.remote_qkey = cfg.qkey;
	expect_refused(p.s[0].qp, p.s[0].scq, &wr, EINVAL, "ud_no_ah");
	pd2 = CHECK_PTR(ibv_alloc_pd(p.s[0].ctx));
	ah2 = t_create_ah(pd2, p.s[1].ctx);
	wr.wr.ud.ah = ah2;
	expect_refused(p.s[0].qp, p.s[0].scq, &wr, EINVAL, "ud_ah_other_pd");
	sg = t_sge(&b, 0, p.s[0].cap.max_inline_data + 1);
	wr.wr.ud.ah = p.s[0].ah;
	wr.send_flags |= IBV_SEND_INLINE;
	expect_refused(p.s[0].qp, p.s[0].scq, &wr, EINVAL, "ud_inline_too_long");
	CHECK_OK(ibv_destroy_ah(ah2));
	CHECK_OK(ibv_dealloc_pd(pd2));
	t_buf_free(&b);
	t_pair_close(&p);
	printf("ud_opcodes: all but SEND/SEND_IMM, no AH, AH of another PD, "
	       "inline too long: EINVAL: ok\n");
}

int main(void)
{
	unsigned int acc = T_MR_ACCESS | IBV_ACCESS_MW_BIND;
	struct t_pair_cfg cfg;
	struct res r;

	memset(&r, 0, sizeof(r));
	t_pair_default_cfg(&cfg);
	cfg.caps.max_send_wr = 8;
	cfg.caps.max_send_sge = MAX_SGE;
	t_pair_open(&r.p, &cfg);
	r.qpn0 = r.p.s[0].qp->qp_num;
	t_buf_alloc_access(&r.src, r.p.s[0].pd, BUF_LEN, acc);
	t_buf_alloc(&r.dst, r.p.s[1].pd, BUF_LEN);
	t_fill(r.src.p, BUF_LEN, 0x5e);
	r.pd2 = CHECK_PTR(ibv_alloc_pd(r.p.s[0].ctx));
	t_buf_alloc_access(&r.other, r.pd2, 4096, acc);
	r.mw1 = CHECK_PTR(ibv_alloc_mw(r.p.s[0].pd, IBV_MW_TYPE_1));
	r.mw2 = CHECK_PTR(ibv_alloc_mw(r.p.s[0].pd, IBV_MW_TYPE_2));
	r.mw2b = CHECK_PTR(ibv_alloc_mw(r.p.s[0].pd, IBV_MW_TYPE_2));

	ip_csum(&r);
	chains(&r);
	sq_full(&r);
	uc_opcodes();
	ud_opcodes();

	CHECK_OK(ibv_dealloc_mw(r.mw1));
	CHECK_OK(ibv_dealloc_mw(r.mw2));
	CHECK_OK(ibv_dealloc_mw(r.mw2b));
	t_buf_free(&r.other);
	CHECK_OK(ibv_dealloc_pd(r.pd2));
	t_buf_free(&r.src);
	t_buf_free(&r.dst);
	t_pair_close(&r.p);
	printf("sys_send_rules: passed\n");
	return 0;
}
