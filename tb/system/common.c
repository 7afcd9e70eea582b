// SPDX-License-Identifier: MIT
/*
 * common.c - helpers shared by the system tests and benchmarks.
 */
#define _DEFAULT_SOURCE

#include "common.h"

#include <errno.h>
#include <inttypes.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* ------------------------------------------------------------------------ */
/* Checks                                                                   */

void t_fail(const char *file, int line, const char *fmt, ...)
{
	va_list ap;

	fflush(stdout);
	fprintf(stderr, "%s:%d: FAIL: ", file, line);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(1);
}

void t_check_u64(const char *file, int line, const char *what_a,
		 const char *what_b, uint64_t a, uint64_t b)
{
	if (a != b)
		t_fail(file, line, "%s == %s: 0x%" PRIx64 " (%" PRIu64
		       ") != 0x%" PRIx64 " (%" PRIu64 ")",
		       what_a, what_b, a, a, b, b);
}

void t_check_mem(const char *file, int line, const char *what,
		 const void *got, const void *exp, size_t len)
{
	const uint8_t *g = got, *e = exp;
	size_t i, bad = 0, first = 0;

	for (i = 0; i < len; i++) {
		if (g[i] != e[i]) {
			if (!bad)
				first = i;
			bad++;
		}
	}
	if (bad)
		t_fail(file, line,
		       "%s: %zu of %zu bytes differ, first at offset %zu (got 0x%02x, expected 0x%02x)",
		       what, bad, len, first, g[first], e[first]);
}

void t_check_fill(const char *file, int line, const char *what,
		  const void *got, uint8_t byte, size_t len)
{
	const uint8_t *g = got;
	size_t i;

	for (i = 0; i < len; i++)
		if (g[i] != byte)
			t_fail(file, line,
			       "%s: byte %zu of %zu is 0x%02x, expected untouched 0x%02x",
			       what, i, len, g[i], byte);
}

void *t_check_ptr(const char *file, int line, const char *what, void *ptr)
{
	if (!ptr)
		t_fail(file, line, "%s returned NULL (errno %d: %s)", what,
		       errno, strerror(errno));
	return ptr;
}

static const char *const status_names[] = {
	[IBV_WC_SUCCESS] = "SUCCESS",
	[IBV_WC_LOC_LEN_ERR] = "LOC_LEN_ERR",
	[IBV_WC_LOC_QP_OP_ERR] = "LOC_QP_OP_ERR",
	[IBV_WC_LOC_EEC_OP_ERR] = "LOC_EEC_OP_ERR",
	[IBV_WC_LOC_PROT_ERR] = "LOC_PROT_ERR",
	[IBV_WC_WR_FLUSH_ERR] = "WR_FLUSH_ERR",
	[IBV_WC_MW_BIND_ERR] = "MW_BIND_ERR",
	[IBV_WC_BAD_RESP_ERR] = "BAD_RESP_ERR",
	[IBV_WC_LOC_ACCESS_ERR] = "LOC_ACCESS_ERR",
	[IBV_WC_REM_INV_REQ_ERR] = "REM_INV_REQ_ERR",
	[IBV_WC_REM_ACCESS_ERR] = "REM_ACCESS_ERR",
	[IBV_WC_REM_OP_ERR] = "REM_OP_ERR",
	[IBV_WC_RETRY_EXC_ERR] = "RETRY_EXC_ERR",
	[IBV_WC_RNR_RETRY_EXC_ERR] = "RNR_RETRY_EXC_ERR",
	[IBV_WC_LOC_RDD_VIOL_ERR] = "LOC_RDD_VIOL_ERR",
	[IBV_WC_REM_INV_RD_REQ_ERR] = "REM_INV_RD_REQ_ERR",
	[IBV_WC_REM_ABORT_ERR] = "REM_ABORT_ERR",
	[IBV_WC_INV_EECN_ERR] = "INV_EECN_ERR",
	[IBV_WC_INV_EEC_STATE_ERR] = "INV_EEC_STATE_ERR",
	[IBV_WC_FATAL_ERR] = "FATAL_ERR",
	[IBV_WC_RESP_TIMEOUT_ERR] = "RESP_TIMEOUT_ERR",
	[IBV_WC_GENERAL_ERR] = "GENERAL_ERR",
	[IBV_WC_TM_ERR] = "TM_ERR",
	[IBV_WC_TM_RNDV_INCOMPLETE] = "TM_RNDV_INCOMPLETE",
};

/* Our own table: the tests do not depend on ibv_wc_status_str(). */
const char *t_status_str(enum ibv_wc_status status)
{
	size_t n = sizeof(status_names) / sizeof(status_names[0]);

	if ((size_t)status < n && status_names[status])
		return status_names[status];
	return "?";
}

const char *t_opcode_str(enum ibv_wc_opcode opcode)
{
	switch (opcode) {
	case IBV_WC_SEND:		return "SEND";
	case IBV_WC_RDMA_WRITE:		return "RDMA_WRITE";
	case IBV_WC_RDMA_READ:		return "RDMA_READ";
	case IBV_WC_COMP_SWAP:		return "COMP_SWAP";
	case IBV_WC_FETCH_ADD:		return "FETCH_ADD";
	case IBV_WC_BIND_MW:		return "BIND_MW";
	case IBV_WC_LOCAL_INV:		return "LOCAL_INV";
	case IBV_WC_TSO:		return "TSO";
	case IBV_WC_RECV:		return "RECV";
	case IBV_WC_RECV_RDMA_WITH_IMM:	return "RECV_RDMA_WITH_IMM";
	default:			return "?";
	}
}

/* ------------------------------------------------------------------------ */
/* Deterministic data                                                       */

void t_fill(void *buf, size_t len, uint64_t seed)
{
	uint64_t x = seed ? seed : 0x9e3779b97f4a7c15ull;
	uint8_t *p = buf;
	size_t i;

	for (i = 0; i < len; i++) {
		if ((i & 7) == 0) {
			x ^= x << 13;
			x ^= x >> 7;
			x ^= x << 17;
		}
		p[i] = (uint8_t)(x >> ((i & 7) * 8));
	}
}

/* ------------------------------------------------------------------------ */
/* Devices and resources                                                    */

struct ibv_context *t_open_device(const char *name)
{
	struct ibv_device **list;
	struct ibv_context *ctx = NULL;
	struct ibv_port_attr pa;
	int i, n = 0;

	list = ibv_get_device_list(&n);
	if (!list)
		t_fail(__FILE__, __LINE__,
		       "ibv_get_device_list failed (errno %d: %s)", errno,
		       strerror(errno));
	for (i = 0; i < n; i++) {
		if (!strcmp(ibv_get_device_name(list[i]), name)) {
			ctx = ibv_open_device(list[i]);
			if (!ctx)
				t_fail(__FILE__, __LINE__,
				       "ibv_open_device(%s) failed (errno %d: %s)",
				       name, errno, strerror(errno));
			break;
		}
	}
	ibv_free_device_list(list);
	if (!ctx)
		t_fail(__FILE__, __LINE__, "device %s not found among %d",
		       name, n);

	memset(&pa, 0, sizeof(pa));
	CHECK_OK(ibv_query_port(ctx, T_PORT, &pa));
	CHECKF(pa.state == IBV_PORT_ACTIVE, "%s port %d state %d, not ACTIVE",
	       name, T_PORT, pa.state);
	CHECKF(pa.link_layer == IBV_LINK_LAYER_ETHERNET,
	       "%s port %d link layer %u, not Ethernet", name, T_PORT,
	       pa.link_layer);
	return ctx;
}

void t_query_gid(struct ibv_context *ctx, union ibv_gid *gid)
{
	CHECK_OK(ibv_query_gid(ctx, T_PORT, T_GID_INDEX, gid));
}

struct ibv_cq *t_create_cq(struct ibv_context *ctx, int cqe)
{
	return CHECK_PTR(ibv_create_cq(ctx, cqe, NULL, NULL, 0));
}

struct ibv_cq *t_create_cq_ch(struct ibv_context *ctx, int cqe,
			      struct ibv_comp_channel *ch, void *cq_context)
{
	struct ibv_cq *cq = CHECK_PTR(ibv_create_cq(ctx, cqe, cq_context, ch, 0));

	CHECK(cq->channel == ch);
	CHECK(cq->cq_context == cq_context);
	CHECK(cq->cqe >= cqe);
	return cq;
}

struct ibv_qp *t_create_qp_srq(struct ibv_pd *pd, struct ibv_cq *scq,
			       struct ibv_cq *rcq, struct ibv_srq *srq,
			       enum ibv_qp_type type, const struct t_qp_caps *caps)
{
	struct ibv_qp_init_attr ia;
	struct ibv_qp *qp;

	memset(&ia, 0, sizeof(ia));
	ia.send_cq = scq;
	ia.recv_cq = rcq;
	ia.srq = srq;
	ia.qp_type = type;
	ia.sq_sig_all = caps->sq_sig_all;
	ia.cap.max_send_wr = caps->max_send_wr;
	ia.cap.max_send_sge = caps->max_send_sge;
	ia.cap.max_inline_data = caps->max_inline_data;
	/* Ignored with an SRQ. */
	ia.cap.max_recv_wr = 12345;
	ia.cap.max_recv_sge = 99;
	qp = CHECK_PTR(ibv_create_qp(pd, &ia));
	CHECK(qp->srq == srq);
	CHECK_EQ(qp->qp_type, type);
	CHECK_EQ(ia.cap.max_recv_wr, 0);
	CHECK_EQ(ia.cap.max_recv_sge, 0);
	CHECK(ia.cap.max_send_wr >= caps->max_send_wr);
	return qp;
}

struct ibv_qp *t_create_qp(struct ibv_pd *pd, struct ibv_cq *scq,
			   struct ibv_cq *rcq, enum ibv_qp_type type,
			   uint64_t send_ops_flags, const struct t_qp_caps *caps,
			   struct ibv_qp_cap *cap_out)
{
	struct ibv_qp_init_attr_ex ia;
	struct ibv_qp *qp;

	memset(&ia, 0, sizeof(ia));
	ia.send_cq = scq;
	ia.recv_cq = rcq;
	ia.qp_type = type;
	ia.sq_sig_all = caps->sq_sig_all;
	ia.cap.max_send_wr = caps->max_send_wr;
	ia.cap.max_recv_wr = caps->max_recv_wr;
	ia.cap.max_send_sge = caps->max_send_sge;
	ia.cap.max_recv_sge = caps->max_recv_sge;
	ia.cap.max_inline_data = caps->max_inline_data;
	ia.pd = pd;
	ia.comp_mask = IBV_QP_INIT_ATTR_PD;
	if (send_ops_flags) {
		ia.comp_mask |= IBV_QP_INIT_ATTR_SEND_OPS_FLAGS;
		ia.send_ops_flags = send_ops_flags;
	}
	qp = CHECK_PTR(ibv_create_qp_ex(pd->context, &ia));
	/* The man page promises at least what was asked for. */
	CHECK(ia.cap.max_send_wr >= caps->max_send_wr);
	CHECK(ia.cap.max_recv_wr >= caps->max_recv_wr);
	CHECK(ia.cap.max_send_sge >= caps->max_send_sge);
	CHECK(ia.cap.max_recv_sge >= caps->max_recv_sge);
	CHECK(ia.cap.max_inline_data >= caps->max_inline_data);
	CHECK_EQ(qp->qp_type, type);
	CHECK_EQ(qp->state, IBV_QPS_RESET);
	if (send_ops_flags)
		CHECK(ibv_qp_to_qp_ex(qp) != NULL);
	if (cap_out)
		*cap_out = ia.cap;
	return qp;
}

struct ibv_qp *t_create_rc_qp(struct ibv_pd *pd, struct ibv_cq *scq,
			      struct ibv_cq *rcq, const struct t_qp_caps *caps,
			      struct ibv_qp_cap *cap_out)
{
	return t_create_qp(pd, scq, rcq, IBV_QPT_RC, 0, caps, cap_out);
}

void t_qp_default_attrs(struct t_qp_attrs *a)
{
	memset(a, 0, sizeof(*a));
	a->access = T_QP_ACCESS;
	a->timeout = 14;
	a->retry_cnt = 7;
	a->rnr_retry = 7;
	a->min_rnr_timer = 12;
	a->max_rd_atomic = 1;
	a->max_dest_rd_atomic = 1;
}

void t_qp_to_rts(struct ibv_qp *qp, enum ibv_mtu mtu,
		 const union ibv_gid *dgid, uint32_t dest_qpn,
		 uint32_t rq_psn, uint32_t sq_psn)
{
	struct t_qp_attrs at;

	t_qp_default_attrs(&at);
	t_qp_to_rts_attrs(qp, mtu, dgid, dest_qpn, rq_psn, sq_psn, &at);
}

void t_qp_to_rts_attrs(struct ibv_qp *qp, enum ibv_mtu mtu,
		       const union ibv_gid *dgid, uint32_t dest_qpn,
		       uint32_t rq_psn, uint32_t sq_psn,
		       const struct t_qp_attrs *at)
{
	struct ibv_qp_attr a;

	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_INIT;
	a.pkey_index = 0;
	a.port_num = T_PORT;
	a.qp_access_flags = at->access;
	CHECK_OK(ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX |
			       IBV_QP_PORT | IBV_QP_ACCESS_FLAGS));

	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTR;
	a.path_mtu = mtu;
	a.dest_qp_num = dest_qpn;
	a.rq_psn = rq_psn;
	a.max_dest_rd_atomic = at->max_dest_rd_atomic;
	a.min_rnr_timer = at->min_rnr_timer;
	a.ah_attr.is_global = 1;
	a.ah_attr.grh.dgid = *dgid;
	a.ah_attr.grh.sgid_index = T_GID_INDEX;
	a.ah_attr.grh.hop_limit = 64;
	a.ah_attr.grh.flow_label = 0;
	a.ah_attr.grh.traffic_class = 0;
	a.ah_attr.dlid = 0;
	a.ah_attr.sl = 0;
	a.ah_attr.src_path_bits = 0;
	a.ah_attr.port_num = T_PORT;
	CHECK_OK(ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_AV |
			       IBV_QP_PATH_MTU | IBV_QP_DEST_QPN |
			       IBV_QP_RQ_PSN | IBV_QP_MAX_DEST_RD_ATOMIC |
			       IBV_QP_MIN_RNR_TIMER));

	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTS;
	a.sq_psn = sq_psn;
	a.timeout = at->timeout;
	a.retry_cnt = at->retry_cnt;
	a.rnr_retry = at->rnr_retry;
	a.max_rd_atomic = at->max_rd_atomic;
	CHECK_OK(ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_SQ_PSN |
			       IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT |
			       IBV_QP_RNR_RETRY | IBV_QP_MAX_QP_RD_ATOMIC));
	CHECK_EQ(qp->state, IBV_QPS_RTS);
}

void t_uc_qp_to_rts(struct ibv_qp *qp, enum ibv_mtu mtu,
		    const union ibv_gid *dgid, uint32_t dest_qpn,
		    uint32_t rq_psn, uint32_t sq_psn, unsigned int access)
{
	struct ibv_qp_attr a;

	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_INIT;
	a.pkey_index = 0;
	a.port_num = T_PORT;
	a.qp_access_flags = access;
	CHECK_OK(ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX |
			       IBV_QP_PORT | IBV_QP_ACCESS_FLAGS));

	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTR;
	a.path_mtu = mtu;
	a.dest_qp_num = dest_qpn;
	a.rq_psn = rq_psn;
	a.ah_attr.is_global = 1;
	a.ah_attr.grh.dgid = *dgid;
	a.ah_attr.grh.sgid_index = T_GID_INDEX;
	a.ah_attr.grh.hop_limit = 64;
	a.ah_attr.port_num = T_PORT;
	CHECK_OK(ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_AV |
			       IBV_QP_PATH_MTU | IBV_QP_DEST_QPN |
			       IBV_QP_RQ_PSN));

	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTS;
	a.sq_psn = sq_psn;
	CHECK_OK(ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_SQ_PSN));
	CHECK_EQ(qp->state, IBV_QPS_RTS);
}

void t_ud_qp_to_rts(struct ibv_qp *qp, uint32_t qkey, uint32_t sq_psn)
{
	struct ibv_qp_attr a;

	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_INIT;
	a.pkey_index = 0;
	a.port_num = T_PORT;
	a.qkey = qkey;
	CHECK_OK(ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX |
			       IBV_QP_PORT | IBV_QP_QKEY));
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTR;
	CHECK_OK(ibv_modify_qp(qp, &a, IBV_QP_STATE));
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTS;
	a.sq_psn = sq_psn;
	CHECK_OK(ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_SQ_PSN));
	CHECK_EQ(qp->state, IBV_QPS_RTS);
}

struct ibv_ah *t_create_ah(struct ibv_pd *pd, struct ibv_context *dest)
{
	struct ibv_ah_attr a;

	memset(&a, 0, sizeof(a));
	a.is_global = 1;
	t_query_gid(dest, &a.grh.dgid);
	a.grh.sgid_index = T_GID_INDEX;
	a.grh.hop_limit = 64;
	a.port_num = T_PORT;
	return CHECK_PTR(ibv_create_ah(pd, &a));
}

void t_connect_qps(struct ibv_qp *qp_a, struct ibv_qp *qp_b, enum ibv_mtu mtu,
		   uint32_t psn_a, uint32_t psn_b)
{
	union ibv_gid gid_a, gid_b;

	t_query_gid(qp_a->context, &gid_a);
	t_query_gid(qp_b->context, &gid_b);
	t_qp_to_rts(qp_a, mtu, &gid_b, qp_b->qp_num, psn_b, psn_a);
	t_qp_to_rts(qp_b, mtu, &gid_a, qp_a->qp_num, psn_a, psn_b);
}

void t_buf_alloc(struct t_buf *b, struct ibv_pd *pd, size_t len)
{
	t_buf_alloc_access(b, pd, len, T_MR_ACCESS);
}

void t_buf_alloc_access(struct t_buf *b, struct ibv_pd *pd, size_t len,
			unsigned int access)
{
	size_t pg = (size_t)sysconf(_SC_PAGESIZE);
	size_t alloc = (len + pg - 1) / pg * pg;
	void *p = NULL;

	if (!alloc)
		alloc = pg;
	if (posix_memalign(&p, pg, alloc))
		t_fail(__FILE__, __LINE__, "posix_memalign(%zu) failed", alloc);
	memset(p, 0, alloc);
	b->p = p;
	b->len = len;
	b->mr = ibv_reg_mr(pd, p, len ? len : 1, (int)access);
	if (!b->mr)
		t_fail(__FILE__, __LINE__, "ibv_reg_mr(%zu) failed (errno %d: %s)",
		       len, errno, strerror(errno));
	CHECK(b->mr->addr == p);
	CHECK(b->mr->length >= len);
}

void t_buf_free(struct t_buf *b)
{
	if (b->mr)
		CHECK_OK(ibv_dereg_mr(b->mr));
	free(b->p);
	memset(b, 0, sizeof(*b));
}

/* ------------------------------------------------------------------------ */
/* Pair                                                                     */

void t_pair_default_cfg(struct t_pair_cfg *cfg)
{
	memset(cfg, 0, sizeof(*cfg));
	cfg->mtu = IBV_MTU_1024;
	cfg->caps.max_send_wr = 32;
	cfg->caps.max_recv_wr = 32;
	cfg->caps.max_send_sge = 1;
	cfg->caps.max_recv_sge = 1;
	cfg->caps.sq_sig_all = 0;
	cfg->cqe = 64;
	cfg->psn[0] = 0x000100;
	cfg->psn[1] = 0x00a000;
	t_qp_default_attrs(&cfg->attrs[0]);
	t_qp_default_attrs(&cfg->attrs[1]);
}

void t_pair_open(struct t_pair *p, const struct t_pair_cfg *cfg)
{
	enum ibv_qp_type type;
	int i;

	memset(p, 0, sizeof(*p));
	p->loopback = cfg->loopback;
	p->s[0].ctx = t_open_device(T_DEV0);
	p->s[0].pd = CHECK_PTR(ibv_alloc_pd(p->s[0].ctx));
	if (cfg->loopback) {
		p->s[1].ctx = p->s[0].ctx;
		p->s[1].pd = p->s[0].pd;
	} else {
		p->s[1].ctx = t_open_device(T_DEV1);
		p->s[1].pd = CHECK_PTR(ibv_alloc_pd(p->s[1].ctx));
	}
	type = cfg->qp_type ? cfg->qp_type : IBV_QPT_RC;
	for (i = 0; i < 2; i++) {
		struct t_side *s = &p->s[i];

		if (cfg->comp_channel)
			s->ch = CHECK_PTR(ibv_create_comp_channel(s->ctx));
		s->scq = t_create_cq_ch(s->ctx, cfg->cqe, s->ch, NULL);
		s->rcq = t_create_cq_ch(s->ctx, cfg->rcqe ? cfg->rcqe : cfg->cqe,
					s->ch, NULL);
		s->qp = t_create_qp(s->pd, s->scq, s->rcq, type,
				    cfg->send_ops_flags, &cfg->caps, &s->cap);
		if (cfg->send_ops_flags)
			s->qpx = ibv_qp_to_qp_ex(s->qp);
	}
	{
		union ibv_gid g[2];

		t_query_gid(p->s[0].ctx, &g[0]);
		t_query_gid(p->s[1].ctx, &g[1]);
		for (i = 0; i < 2; i++) {
			struct ibv_qp *qp = p->s[i].qp;
			uint32_t peer = p->s[1 - i].qp->qp_num;

			switch (type) {
			case IBV_QPT_UC:
				t_uc_qp_to_rts(qp, cfg->mtu, &g[1 - i], peer,
					       cfg->psn[1 - i], cfg->psn[i],
					       cfg->attrs[i].access);
				break;
			case IBV_QPT_UD:
				t_ud_qp_to_rts(qp, cfg->qkey, cfg->psn[i]);
				p->s[i].ah = t_create_ah(p->s[i].pd, p->s[1 - i].ctx);
				break;
			default:
				t_qp_to_rts_attrs(qp, cfg->mtu, &g[1 - i], peer,
						  cfg->psn[1 - i], cfg->psn[i],
						  &cfg->attrs[i]);
				break;
			}
		}
	}
}

void t_pair_close(struct t_pair *p)
{
	int i;

	for (i = 0; i < 2; i++) {
		struct t_side *s = &p->s[i];

		if (s->ah)
			CHECK_OK(ibv_destroy_ah(s->ah));
		CHECK_OK(ibv_destroy_qp(s->qp));
		CHECK_OK(ibv_destroy_cq(s->scq));
		CHECK_OK(ibv_destroy_cq(s->rcq));
		if (s->ch)
			CHECK_OK(ibv_destroy_comp_channel(s->ch));
	}
	for (i = 0; i < (p->loopback ? 1 : 2); i++) {
		CHECK_OK(ibv_dealloc_pd(p->s[i].pd));
		CHECK_OK(ibv_close_device(p->s[i].ctx));
	}
	memset(p, 0, sizeof(*p));
}

/* ------------------------------------------------------------------------ */
/* Posting                                                                  */

void t_post_send_at(const char *file, int line, struct ibv_qp *qp,
		    uint64_t wr_id, enum ibv_wr_opcode op, unsigned int flags,
		    struct ibv_sge *sg, int nsge, uint64_t raddr, uint32_t rkey,
		    __be32 imm)
{
	struct ibv_send_wr wr, *bad = NULL;
	int rc;

	memset(&wr, 0, sizeof(wr));
	wr.wr_id = wr_id;
	wr.sg_list = sg;
	wr.num_sge = nsge;
	wr.opcode = op;
	wr.send_flags = flags;
	if (op == IBV_WR_SEND_WITH_IMM || op == IBV_WR_RDMA_WRITE_WITH_IMM)
		wr.imm_data = imm;
	wr.wr.rdma.remote_addr = raddr;
	wr.wr.rdma.rkey = rkey;
	rc = ibv_post_send(qp, &wr, &bad);
	if (rc)
		t_fail(file, line, "ibv_post_send(wr_id %" PRIu64
		       ") returned %d (%s)", wr_id, rc, strerror(rc));
}

void t_post_atomic_at(const char *file, int line, struct ibv_qp *qp,
		      uint64_t wr_id, enum ibv_wr_opcode op, unsigned int flags,
		      struct ibv_sge *sg, uint64_t raddr, uint32_t rkey,
		      uint64_t compare_add, uint64_t swap)
{
	struct ibv_send_wr wr, *bad = NULL;
	int rc;

	memset(&wr, 0, sizeof(wr));
	wr.wr_id = wr_id;
	wr.sg_list = sg;
	wr.num_sge = 1;
	wr.opcode = op;
	wr.send_flags = flags;
	wr.wr.atomic.remote_addr = raddr;
	wr.wr.atomic.rkey = rkey;
	wr.wr.atomic.compare_add = compare_add;
	wr.wr.atomic.swap = swap;
	rc = ibv_post_send(qp, &wr, &bad);
	if (rc)
		t_fail(file, line, "ibv_post_send(atomic wr_id %" PRIu64
		       ") returned %d (%s)", wr_id, rc, strerror(rc));
}

void t_post_ud_send_at(const char *file, int line, struct ibv_qp *qp,
		       uint64_t wr_id, enum ibv_wr_opcode op, unsigned int flags,
		       struct ibv_sge *sg, int nsge, struct ibv_ah *ah,
		       uint32_t remote_qpn, uint32_t remote_qkey, __be32 imm)
{
	struct ibv_send_wr wr, *bad = NULL;
	int rc;

	memset(&wr, 0, sizeof(wr));
	wr.wr_id = wr_id;
	wr.sg_list = sg;
	wr.num_sge = nsge;
	wr.opcode = op;
	wr.send_flags = flags;
	if (op == IBV_WR_SEND_WITH_IMM)
		wr.imm_data = imm;
	wr.wr.ud.ah = ah;
	wr.wr.ud.remote_qpn = remote_qpn;
	wr.wr.ud.remote_qkey = remote_qkey;
	rc = ibv_post_send(qp, &wr, &bad);
	if (rc)
		t_fail(file, line, "ibv_post_send(UD wr_id %" PRIu64
		       ") returned %d (%s)", wr_id, rc, strerror(rc));
}

void t_post_recv_at(const char *file, int line, struct ibv_qp *qp,
		    uint64_t wr_id, struct ibv_sge *sg, int nsge)
{
	struct ibv_recv_wr wr, *bad = NULL;
	int rc;

	memset(&wr, 0, sizeof(wr));
	wr.wr_id = wr_id;
	wr.sg_list = sg;
	wr.num_sge = nsge;
	rc = ibv_post_recv(qp, &wr, &bad);
	if (rc)
		t_fail(file, line, "ibv_post_recv(wr_id %" PRIu64
		       ") returned %d (%s)", wr_id, rc, strerror(rc));
}

/* ------------------------------------------------------------------------ */
/* Completions                                                              */

void t_poll_at(const char *file, int line, struct ibv_cq *cq, int n,
	       struct ibv_wc *wc)
{
	long empty = 0;
	int got = 0;

	while (got < n) {
		int rc = ibv_poll_cq(cq, n - got, wc + got);

		if (rc < 0)
			t_fail(file, line, "ibv_poll_cq returned %d", rc);
		if (rc > n - got)
			t_fail(file, line,
			       "ibv_poll_cq returned %d for %d entries", rc,
			       n - got);
		if (rc == 0 && ++empty >= T_POLL_BOUND)
			t_fail(file, line,
			       "timeout: %d of %d completions after %ld empty polls",
			       got, n, empty);
		got += rc;
	}
}

enum ibv_qp_state t_qp_state(struct ibv_qp *qp)
{
	struct ibv_qp_init_attr init;
	struct ibv_qp_attr attr;

	memset(&attr, 0, sizeof(attr));
	memset(&init, 0, sizeof(init));
	CHECK_OK(ibv_query_qp(qp, &attr, IBV_QP_STATE, &init));
	return attr.qp_state;
}

void t_expect_empty_at(const char *file, int line, struct ibv_cq *cq,
		       long polls)
{
	struct ibv_wc wc;
	long i;

	for (i = 0; i < polls; i++) {
		int rc = ibv_poll_cq(cq, 1, &wc);

		if (rc < 0)
			t_fail(file, line, "ibv_poll_cq returned %d", rc);
		if (rc > 0)
			t_fail(file, line,
			       "unexpected completion: wr_id %" PRIu64
			       " status %s opcode %s qp_num 0x%x",
			       wc.wr_id, t_status_str(wc.status),
			       t_opcode_str(wc.opcode), wc.qp_num);
	}
}

void t_expect_wc_at(const char *file, int line, const struct ibv_wc *wc,
		    uint64_t wr_id, enum ibv_wc_status status,
		    long long opcode, uint32_t qp_num, long long byte_len,
		    long long flags, long long imm)
{
	unsigned int wflags = wc->wc_flags & ~(unsigned int)IBV_WC_GRH;

	if (wc->wr_id != wr_id || wc->status != status)
		t_fail(file, line,
		       "completion wr_id %" PRIu64 " status %s (%d, vendor_err 0x%x), expected wr_id %" PRIu64 " status %s",
		       wc->wr_id, t_status_str(wc->status), wc->status,
		       wc->vendor_err, wr_id, t_status_str(status));
	if (wc->qp_num != qp_num)
		t_fail(file, line, "wr_id %" PRIu64 ": qp_num 0x%x, expected 0x%x",
		       wr_id, wc->qp_num, qp_num);
	if (status != IBV_WC_SUCCESS)
		return;
	if (opcode != T_ANY && (long long)wc->opcode != opcode)
		t_fail(file, line, "wr_id %" PRIu64 ": opcode %s (%d), expected %s (%lld)",
		       wr_id, t_opcode_str(wc->opcode), wc->opcode,
		       t_opcode_str((enum ibv_wc_opcode)opcode), opcode);
	if (byte_len != T_ANY && (long long)wc->byte_len != byte_len)
		t_fail(file, line, "wr_id %" PRIu64 ": byte_len %u, expected %lld",
		       wr_id, wc->byte_len, byte_len);
	if (flags != T_ANY && (long long)wflags != flags)
		t_fail(file, line, "wr_id %" PRIu64 ": wc_flags 0x%x, expected 0x%llx",
		       wr_id, wc->wc_flags, (unsigned long long)flags);
	if (imm != T_ANY && (wc->wc_flags & IBV_WC_WITH_IMM) &&
	    wc->imm_data != (uint32_t)imm)
		t_fail(file, line, "wr_id %" PRIu64 ": imm_data 0x%08x (host order), expected 0x%08x",
		       wr_id, be32toh(wc->imm_data), be32toh((uint32_t)imm));
}

/* ------------------------------------------------------------------------ */
/* Events                                                                   */

static const char *t_event_str(int type)
{
	return ibv_event_type_str((enum ibv_event_type)type);
}

void t_expect_fd_at(const char *file, int line, int fd, int ms, int ready)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };
	int rc = poll(&p, 1, ms);

	if (rc < 0)
		t_fail(file, line, "poll(fd %d) failed (errno %d: %s)", fd, errno,
		       strerror(errno));
	if (ready && (rc != 1 || !(p.revents & POLLIN)))
		t_fail(file, line, "fd %d not readable within %d ms (poll %d, revents 0x%x)",
		       fd, ms, rc, p.revents);
	if (!ready && rc != 0)
		t_fail(file, line, "fd %d readable (revents 0x%x), expected nothing within %d ms",
		       fd, p.revents, ms);
}

void t_expect_async_event_at(const char *file, int line, struct ibv_context *ctx,
			     enum ibv_event_type type, const void *element)
{
	struct ibv_async_event ev;
	const void *got;

	t_expect_fd_at(file, line, ctx->async_fd, T_EVENT_MS, 1);
	if (ibv_get_async_event(ctx, &ev))
		t_fail(file, line, "ibv_get_async_event failed (errno %d: %s)", errno,
		       strerror(errno));
	switch (ev.event_type) {
	case IBV_EVENT_CQ_ERR:
		got = ev.element.cq;
		break;
	case IBV_EVENT_SRQ_ERR:
	case IBV_EVENT_SRQ_LIMIT_REACHED:
		got = ev.element.srq;
		break;
	default:
		got = ev.element.qp;
		break;
	}
	if (ev.event_type != type || got != element) {
		ibv_ack_async_event(&ev);
		t_fail(file, line, "async event %s (%d) for %p, expected %s (%d) for %p",
		       t_event_str(ev.event_type), ev.event_type, got, t_event_str(type),
		       type, element);
	}
	ibv_ack_async_event(&ev);
}

void t_expect_cq_event_at(const char *file, int line, struct ibv_comp_channel *ch,
			  struct ibv_cq *cq, void *cq_context)
{
	struct ibv_cq *got = NULL;
	void *ctx = NULL;

	if (ibv_get_cq_event(ch, &got, &ctx))
		t_fail(file, line, "ibv_get_cq_event failed (errno %d: %s)", errno,
		       strerror(errno));
	if (got != cq || ctx != cq_context)
		t_fail(file, line, "CQ event for %p (context %p), expected %p (context %p)",
		       (void *)got, ctx, (void *)cq, cq_context);
}
