/* SPDX-License-Identifier: MIT */
/*
 * repro_common.h - what the reproducers of the fuzzing findings share: an
 * RC QP pair between rnic0 and rnic1, written against <infiniband/verbs.h>.
 * Each reproducer exits 1 (and says so) while its finding reproduces, 0
 * once it does not (docs/fuzzing.md, tb/fuzz/findings/README.md).
 */
#ifndef RNIC_REPRO_COMMON_H
#define RNIC_REPRO_COMMON_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <infiniband/verbs.h>

#define R_CHECK(c)							\
	do {								\
		if (!(c)) {						\
			fprintf(stderr, "%s:%d: %s failed\n", __FILE__,	\
				__LINE__, #c);				\
			exit(2);					\
		}							\
	} while (0)

struct r_side {
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	struct ibv_cq *cq;
	struct ibv_qp *qp;
	union ibv_gid gid;
};

/*
 * What a reproducer opened, so that r_verdict() can tear it all down in
 * the order verbs requires (QPs, MRs, CQ, PD, device): the sanitizer run
 * reports anything left behind.
 */
#define R_MAX_MRS	16
#define R_MAX_SIDES	4
static struct {
	struct ibv_mr *mr;	/* NULL once deregistered */
	void *buf;		/* ours to free, or NULL */
} r_mrs[R_MAX_MRS];
static struct r_side *r_sides[R_MAX_SIDES];
static int r_nmrs, r_nsides;

static inline void r_track_mr(struct ibv_mr *mr, void *buf)
{
	R_CHECK(r_nmrs < R_MAX_MRS);
	r_mrs[r_nmrs].mr = mr;
	r_mrs[r_nmrs++].buf = buf;
}

/* ibv_dereg_mr() of a tracked MR; its buffer is freed at the end. */
static inline int r_dereg(struct ibv_mr *mr)
{
	int i;

	for (i = 0; i < r_nmrs; i++)
		if (r_mrs[i].mr == mr)
			r_mrs[i].mr = NULL;
	return ibv_dereg_mr(mr);
}

static inline int r_destroy_qp(struct r_side *s)
{
	struct ibv_qp *qp = s->qp;

	s->qp = NULL;
	return ibv_destroy_qp(qp);
}

static inline void r_open(struct r_side *s, int dev, int cqe)
{
	struct ibv_device **l = ibv_get_device_list(NULL);

	R_CHECK(l && l[dev]);
	s->ctx = ibv_open_device(l[dev]);
	R_CHECK(s->ctx);
	ibv_free_device_list(l);
	s->pd = ibv_alloc_pd(s->ctx);
	s->cq = ibv_create_cq(s->ctx, cqe, NULL, NULL, 0);
	R_CHECK(s->pd && s->cq);
	R_CHECK(!ibv_query_gid(s->ctx, 1, 0, &s->gid));
	s->qp = NULL;
	R_CHECK(r_nsides < R_MAX_SIDES);
	r_sides[r_nsides++] = s;
}

static inline struct ibv_qp *r_qp(struct r_side *s)
{
	struct ibv_qp_init_attr ia;

	memset(&ia, 0, sizeof(ia));
	ia.qp_type = IBV_QPT_RC;
	ia.send_cq = ia.recv_cq = s->cq;
	ia.cap.max_send_wr = ia.cap.max_recv_wr = 4;
	ia.cap.max_send_sge = ia.cap.max_recv_sge = 1;
	s->qp = ibv_create_qp(s->pd, &ia);
	R_CHECK(s->qp);
	return s->qp;
}

/* RESET -> INIT -> RTR -> RTS towards @dqpn at @dgid. */
static inline void r_connect(struct ibv_qp *q, uint32_t dqpn, const union ibv_gid *dgid,
			     uint8_t timeout, uint8_t rnr_retry)
{
	struct ibv_qp_attr a;

	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_INIT;
	a.port_num = 1;
	a.qp_access_flags = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |
			    IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_ATOMIC;
	R_CHECK(!ibv_modify_qp(q, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT |
			       IBV_QP_ACCESS_FLAGS));
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTR;
	a.path_mtu = IBV_MTU_1024;
	a.dest_qp_num = dqpn;
	a.max_dest_rd_atomic = 1;
	a.min_rnr_timer = 1;
	a.ah_attr.is_global = 1;
	a.ah_attr.port_num = 1;
	a.ah_attr.grh.dgid = *dgid;
	R_CHECK(!ibv_modify_qp(q, &a, IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU |
			       IBV_QP_DEST_QPN | IBV_QP_RQ_PSN |
			       IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER));
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTS;
	a.timeout = timeout;
	a.retry_cnt = 7;
	a.rnr_retry = rnr_retry;
	a.max_rd_atomic = 1;
	R_CHECK(!ibv_modify_qp(q, &a, IBV_QP_STATE | IBV_QP_SQ_PSN | IBV_QP_TIMEOUT |
			       IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY |
			       IBV_QP_MAX_QP_RD_ATOMIC));
}

/* A fresh connected pair: side 0 on rnic0, side 1 on rnic1. */
static inline void r_pair(struct r_side s[2], uint8_t timeout, uint8_t rnr_retry)
{
	r_qp(&s[0]);
	r_qp(&s[1]);
	r_connect(s[0].qp, s[1].qp->qp_num, &s[1].gid, timeout, rnr_retry);
	r_connect(s[1].qp, s[0].qp->qp_num, &s[0].gid, timeout, rnr_retry);
}

static inline struct ibv_mr *r_buf(struct r_side *s, size_t len, void **p)
{
	struct ibv_mr *mr;

	R_CHECK(!posix_memalign(p, 4096, len));
	memset(*p, 0, len);
	mr = ibv_reg_mr(s->pd, *p, len, IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |
			IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_ATOMIC);
	R_CHECK(mr);
	r_track_mr(mr, *p);
	return mr;
}

/* Polls @cq @polls times (each empty poll lets the model run 256 cycles);
 * returns the completions seen, printing the first few. */
static inline int r_drain(struct ibv_cq *cq, int polls, const char *who)
{
	struct ibv_wc wc;
	int n = 0;

	while (polls--) {
		while (ibv_poll_cq(cq, 1, &wc) > 0) {
			if (n++ < 3)
				printf("  %s: wr_id %llu qp %u %s\n", who,
				       (unsigned long long)wc.wr_id, wc.qp_num,
				       ibv_wc_status_str(wc.status));
		}
	}
	return n;
}

/* Polls until @want completions came (or @polls empty polls passed). */
static inline int r_wait(struct ibv_cq *cq, int want, int polls, const char *who)
{
	int n = 0;

	while (n < want && polls-- > 0)
		n += r_drain(cq, 1, who);
	return n + r_drain(cq, 40, who);	/* and nothing more comes */
}

static inline void r_close_all(void)
{
	int i;

	for (i = 0; i < r_nsides; i++)
		if (r_sides[i]->qp)
			R_CHECK(!r_destroy_qp(r_sides[i]));
	for (i = 0; i < r_nmrs; i++) {
		if (r_mrs[i].mr)
			R_CHECK(!ibv_dereg_mr(r_mrs[i].mr));
		free(r_mrs[i].buf);
	}
	r_nmrs = 0;
	for (i = 0; i < r_nsides; i++) {
		R_CHECK(!ibv_destroy_cq(r_sides[i]->cq));
		R_CHECK(!ibv_dealloc_pd(r_sides[i]->pd));
		R_CHECK(!ibv_close_device(r_sides[i]->ctx));
	}
	r_nsides = 0;
}

/* Tears everything down and says whether the finding reproduced. */
static inline int r_verdict(const char *name, int reproduced)
{
	r_close_all();
	printf("FINDING %s: %s\n", name, reproduced ? "reproduced" : "not reproduced (fixed?)");
	return reproduced;
}

#endif /* RNIC_REPRO_COMMON_H */
