// SPDX-License-Identifier: MIT
/*
 * conf.c - the conformance suite's case runner and helpers (conf.h).
 */
#define _DEFAULT_SOURCE

#include "conf.h"

#include <arpa/inet.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

/* ------------------------------------------------------------------------ */
/* Runner                                                                   */

static const struct {
	enum conf_setup setup;
	const char *name;
} conf_setups[] = {
	{ CONF_TWO, "two" },
	{ CONF_LOOP, "loop" },
	{ CONF_LOCAL, "local" },
};
#define N_SETUPS (sizeof(conf_setups) / sizeof(conf_setups[0]))

static void conf_run_one(const struct conf_case *cc, enum conf_setup s,
			 const char *sname)
{
	struct conf c = {
		.name = cc->name,
		.setup = s,
		.loopback = s == CONF_LOOP,
	};

	printf("case %s [%s]\n", cc->name, sname);
	fflush(stdout);
	cc->fn(&c);
	printf("PASS %s [%s]\n", cc->name, sname);
	fflush(stdout);
}

static int conf_run_all(const struct conf_case *cases, size_t n)
{
	unsigned int pass = 0, fail = 0;
	size_t i, k;

	for (i = 0; i < n; i++) {
		for (k = 0; k < N_SETUPS; k++) {
			int status = 0;
			pid_t pid;

			if (!(cases[i].setups & conf_setups[k].setup))
				continue;
			fflush(stdout);
			pid = fork();
			if (pid < 0) {
				perror("fork");
				return 1;
			}
			if (!pid) {
				conf_run_one(&cases[i], conf_setups[k].setup,
					     conf_setups[k].name);
				exit(0);
			}
			if (waitpid(pid, &status, 0) != pid ||
			    !WIFEXITED(status) || WEXITSTATUS(status)) {
				printf("FAIL %s [%s]\n", cases[i].name,
				       conf_setups[k].name);
				fail++;
			} else {
				pass++;
			}
		}
	}
	printf("%u passed, %u failed\n", pass, fail);
	return fail ? 1 : 0;
}

int conf_main(int argc, char **argv, const struct conf_case *cases, size_t n)
{
	size_t i, k;

	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc == 1)
		return conf_run_all(cases, n);
	if (argc == 2 && !strcmp(argv[1], "--list")) {
		for (i = 0; i < n; i++) {
			printf("%s", cases[i].name);
			for (k = 0; k < N_SETUPS; k++)
				if (cases[i].setups & conf_setups[k].setup)
					printf(" %s", conf_setups[k].name);
			printf("\n");
		}
		return 0;
	}
	if (argc != 3) {
		fprintf(stderr, "usage: %s [--list | <case> <two|loop|local>]\n",
			argv[0]);
		return 2;
	}
	for (i = 0; i < n; i++) {
		if (strcmp(cases[i].name, argv[1]))
			continue;
		for (k = 0; k < N_SETUPS; k++) {
			if (strcmp(conf_setups[k].name, argv[2]))
				continue;
			if (!(cases[i].setups & conf_setups[k].setup)) {
				fprintf(stderr, "%s does not run in setup %s\n",
					argv[1], argv[2]);
				return 2;
			}
			conf_run_one(&cases[i], conf_setups[k].setup,
				     conf_setups[k].name);
			return 0;
		}
		fprintf(stderr, "unknown setup %s\n", argv[2]);
		return 2;
	}
	fprintf(stderr, "unknown case %s\n", argv[1]);
	return 2;
}

/* ------------------------------------------------------------------------ */
/* Pairs and QPs                                                            */

void conf_pair_cfg(const struct conf *c, struct t_pair_cfg *cfg)
{
	t_pair_default_cfg(cfg);
	cfg->loopback = c->loopback;
	cfg->qkey = CONF_QKEY;
}

void conf_pair_open(const struct conf *c, struct t_pair *p,
		    enum ibv_qp_type type)
{
	struct t_pair_cfg cfg;

	conf_pair_cfg(c, &cfg);
	cfg.qp_type = type;
	t_pair_open(p, &cfg);
}

void conf_rig_cfg(const struct conf *c, struct t_pair_cfg *cfg)
{
	int i;

	conf_pair_cfg(c, cfg);
	cfg->caps.max_send_wr = 64;
	cfg->caps.max_recv_wr = 64;
	cfg->caps.max_send_sge = 4;
	cfg->caps.max_recv_sge = 4;
	cfg->cqe = 256;
	for (i = 0; i < 2; i++) {
		cfg->attrs[i].access = CONF_ACC_ALL;
		cfg->attrs[i].max_rd_atomic = 4;
		cfg->attrs[i].max_dest_rd_atomic = 4;
	}
}

void conf_rig_open(const struct conf *c, struct conf_rig *r,
		   const struct t_pair_cfg *cfg)
{
	const unsigned int acc = CONF_ACC_ALL | IBV_ACCESS_MW_BIND;
	struct t_pair_cfg def;

	if (!cfg) {
		conf_rig_cfg(c, &def);
		cfg = &def;
	}
	memset(r, 0, sizeof(*r));
	t_pair_open(&r->p, cfg);
	r->qp0 = r->p.s[0].qp;
	r->qp1 = r->p.s[1].qp;
	r->scq0 = r->p.s[0].scq;
	r->rcq0 = r->p.s[0].rcq;
	r->scq1 = r->p.s[1].scq;
	r->rcq1 = r->p.s[1].rcq;
	r->q0 = r->qp0->qp_num;
	r->q1 = r->qp1->qp_num;
	t_buf_alloc_access(&r->src, r->p.s[0].pd, CONF_BUF, acc);
	t_buf_alloc_access(&r->loc, r->p.s[0].pd, CONF_BUF, acc);
	t_buf_alloc_access(&r->dst, r->p.s[1].pd, CONF_BUF, acc);
	t_buf_alloc_access(&r->rbuf, r->p.s[1].pd, CONF_BUF, acc);
	t_fill(r->src.p, CONF_BUF, 0x5eed0000 + (uint64_t)c->setup);
	memset(r->dst.p, CONF_CANARY, CONF_BUF);
	memset(r->rbuf.p, CONF_CANARY, CONF_BUF);
}

void conf_rig_close(struct conf_rig *r)
{
	t_buf_free(&r->src);
	t_buf_free(&r->loc);
	t_buf_free(&r->dst);
	t_buf_free(&r->rbuf);
	t_pair_close(&r->p);
}

enum ibv_qp_state conf_qp_state(struct ibv_qp *qp)
{
	struct ibv_qp_attr a;
	struct ibv_qp_init_attr ia;

	memset(&a, 0, sizeof(a));
	CHECK_OK(ibv_query_qp(qp, &a, IBV_QP_STATE, &ia));
	return a.qp_state;
}

void conf_qp_to(struct ibv_qp *qp, enum ibv_qp_state state)
{
	struct ibv_qp_attr a;

	memset(&a, 0, sizeof(a));
	a.qp_state = state;
	CHECK_OK(ibv_modify_qp(qp, &a, IBV_QP_STATE));
	CHECK_EQ(conf_qp_state(qp), state);
}

void conf_qp_init(struct ibv_qp *qp, unsigned int access)
{
	struct ibv_qp_attr a;
	int mask = IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT;

	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_INIT;
	a.port_num = T_PORT;
	if (qp->qp_type == IBV_QPT_UD) {
		a.qkey = CONF_QKEY;
		mask |= IBV_QP_QKEY;
	} else {
		a.qp_access_flags = access;
		mask |= IBV_QP_ACCESS_FLAGS;
	}
	CHECK_OK(ibv_modify_qp(qp, &a, mask));
	CHECK_EQ(conf_qp_state(qp), IBV_QPS_INIT);
}

void conf_qp_rtr(struct ibv_qp *qp, struct ibv_qp *peer, uint32_t rq_psn,
		 const struct t_qp_attrs *at)
{
	struct ibv_qp_attr a;
	int mask = IBV_QP_STATE;

	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTR;
	if (qp->qp_type != IBV_QPT_UD) {
		a.path_mtu = IBV_MTU_1024;
		a.dest_qp_num = peer->qp_num;
		a.rq_psn = rq_psn;
		a.ah_attr.is_global = 1;
		t_query_gid(peer->context, &a.ah_attr.grh.dgid);
		a.ah_attr.grh.sgid_index = T_GID_INDEX;
		a.ah_attr.grh.hop_limit = 64;
		a.ah_attr.port_num = T_PORT;
		mask |= IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN |
			IBV_QP_RQ_PSN;
		if (qp->qp_type == IBV_QPT_RC) {
			a.max_dest_rd_atomic = at->max_dest_rd_atomic;
			a.min_rnr_timer = at->min_rnr_timer;
			mask |= IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER;
		}
	}
	CHECK_OK(ibv_modify_qp(qp, &a, mask));
	CHECK_EQ(conf_qp_state(qp), IBV_QPS_RTR);
}

void conf_qp_rts(struct ibv_qp *qp, uint32_t sq_psn,
		 const struct t_qp_attrs *at)
{
	struct ibv_qp_attr a;
	int mask = IBV_QP_STATE | IBV_QP_SQ_PSN;

	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTS;
	a.sq_psn = sq_psn;
	if (qp->qp_type == IBV_QPT_RC) {
		a.timeout = at->timeout;
		a.retry_cnt = at->retry_cnt;
		a.rnr_retry = at->rnr_retry;
		a.max_rd_atomic = at->max_rd_atomic;
		mask |= IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY |
			IBV_QP_MAX_QP_RD_ATOMIC;
	}
	CHECK_OK(ibv_modify_qp(qp, &a, mask));
	CHECK_EQ(conf_qp_state(qp), IBV_QPS_RTS);
}

void conf_idle(struct ibv_context *ctx, long polls)
{
	struct ibv_cq *cq = t_create_cq(ctx, 1);
	struct ibv_wc wc;
	long k;

	for (k = 0; k < polls; k++)
		CHECK_EQ(ibv_poll_cq(cq, 1, &wc), 0);
	CHECK_OK(ibv_destroy_cq(cq));
}

/* ------------------------------------------------------------------------ */
/* Work requests                                                            */

void conf_send_wr(struct ibv_send_wr *wr, uint64_t wr_id,
		  enum ibv_wr_opcode op, unsigned int flags,
		  struct ibv_sge *sg, int nsge)
{
	memset(wr, 0, sizeof(*wr));
	wr->wr_id = wr_id;
	wr->opcode = op;
	wr->send_flags = flags;
	wr->sg_list = sg;
	wr->num_sge = nsge;
}

void conf_rdma_wr(struct ibv_send_wr *wr, uint64_t wr_id,
		  enum ibv_wr_opcode op, unsigned int flags,
		  struct ibv_sge *sg, int nsge, const struct t_buf *remote,
		  size_t roff)
{
	conf_send_wr(wr, wr_id, op, flags, sg, nsge);
	wr->wr.rdma.remote_addr = t_addr(remote, roff);
	wr->wr.rdma.rkey = remote->mr->rkey;
}

void conf_atomic_wr(struct ibv_send_wr *wr, uint64_t wr_id,
		    enum ibv_wr_opcode op, unsigned int flags,
		    struct ibv_sge *sg, const struct t_buf *remote, size_t roff,
		    uint64_t compare_add, uint64_t swap)
{
	conf_send_wr(wr, wr_id, op, flags, sg, 1);
	wr->wr.atomic.remote_addr = t_addr(remote, roff);
	wr->wr.atomic.rkey = remote->mr->rkey;
	wr->wr.atomic.compare_add = compare_add;
	wr->wr.atomic.swap = swap;
}

void conf_recv_wr(struct ibv_recv_wr *wr, uint64_t wr_id,
		  struct ibv_sge *sg, int nsge)
{
	memset(wr, 0, sizeof(*wr));
	wr->wr_id = wr_id;
	wr->sg_list = sg;
	wr->num_sge = nsge;
}

void conf_expect_post_send(const char *file, int line, struct ibv_qp *qp,
			   struct ibv_send_wr *wr, int rc,
			   struct ibv_send_wr *bad)
{
	struct ibv_send_wr *b = NULL;
	int got = ibv_post_send(qp, wr, &b);

	if (got != rc)
		t_fail(file, line, "ibv_post_send returned %d (%s), expected %d (%s)",
		       got, strerror(got), rc, strerror(rc));
	if (rc && b != bad)
		t_fail(file, line, "ibv_post_send: bad_wr %p (wr_id %" PRIu64
		       "), expected %p", (void *)b, b ? b->wr_id : 0,
		       (void *)bad);
}

void conf_expect_post_recv(const char *file, int line, struct ibv_qp *qp,
			   struct ibv_recv_wr *wr, int rc,
			   struct ibv_recv_wr *bad)
{
	struct ibv_recv_wr *b = NULL;
	int got = ibv_post_recv(qp, wr, &b);

	if (got != rc)
		t_fail(file, line, "ibv_post_recv returned %d (%s), expected %d (%s)",
		       got, strerror(got), rc, strerror(rc));
	if (rc && b != bad)
		t_fail(file, line, "ibv_post_recv: bad_wr %p (wr_id %" PRIu64
		       "), expected %p", (void *)b, b ? b->wr_id : 0,
		       (void *)bad);
}

/* ------------------------------------------------------------------------ */
/* Completions                                                              */

void conf_expect_wc_ok(const char *file, int line, const struct ibv_wc *wc,
		       uint64_t wr_id, enum ibv_wc_opcode opcode,
		       uint32_t qp_num, long long byte_len, long long flags,
		       long long imm, long long src_qp)
{
	if (wc->wr_id != wr_id || wc->status != IBV_WC_SUCCESS)
		t_fail(file, line, "completion wr_id %" PRIu64 " status %s (vendor_err 0x%x), expected wr_id %" PRIu64 " SUCCESS",
		       wc->wr_id, t_status_str(wc->status), wc->vendor_err,
		       wr_id);
	if (wc->opcode != opcode)
		t_fail(file, line, "wr_id %" PRIu64 ": opcode %s (%d), expected %s",
		       wr_id, t_opcode_str(wc->opcode), wc->opcode,
		       t_opcode_str(opcode));
	if (wc->qp_num != qp_num)
		t_fail(file, line, "wr_id %" PRIu64 ": qp_num 0x%x, expected 0x%x",
		       wr_id, wc->qp_num, qp_num);
	if (wc->vendor_err)
		t_fail(file, line, "wr_id %" PRIu64 ": vendor_err 0x%x on success",
		       wr_id, wc->vendor_err);
	if (byte_len != T_ANY && (long long)wc->byte_len != byte_len)
		t_fail(file, line, "wr_id %" PRIu64 ": byte_len %u, expected %lld",
		       wr_id, wc->byte_len, byte_len);
	if (flags != T_ANY && (long long)(unsigned int)wc->wc_flags != flags)
		t_fail(file, line, "wr_id %" PRIu64 ": wc_flags 0x%x, expected 0x%llx",
		       wr_id, wc->wc_flags, (unsigned long long)flags);
	if (flags != T_ANY && (flags & IBV_WC_WITH_IMM) && imm != T_ANY &&
	    wc->imm_data != (uint32_t)imm)
		t_fail(file, line, "wr_id %" PRIu64 ": imm_data 0x%08x (host order), expected 0x%08x",
		       wr_id, be32toh(wc->imm_data), be32toh((uint32_t)imm));
	if (src_qp != T_ANY && (long long)wc->src_qp != src_qp)
		t_fail(file, line, "wr_id %" PRIu64 ": src_qp 0x%x, expected 0x%llx",
		       wr_id, wc->src_qp, (unsigned long long)src_qp);
	if (wc->pkey_index || wc->slid || wc->sl || wc->dlid_path_bits)
		t_fail(file, line, "wr_id %" PRIu64 ": pkey_index %u slid %u sl %u dlid_path_bits %u, expected 0 on RoCE",
		       wr_id, wc->pkey_index, wc->slid, wc->sl,
		       wc->dlid_path_bits);
}

void conf_expect_sq_ok(const char *file, int line, const struct ibv_wc *wc,
		       uint64_t wr_id, enum ibv_wc_opcode opcode,
		       uint32_t qp_num, long long byte_len)
{
	conf_expect_wc_ok(file, line, wc, wr_id, opcode, qp_num, byte_len,
			  T_ANY, T_ANY, T_ANY);
	if (wc->wc_flags & ~(unsigned int)IBV_WC_WITH_IMM)
		t_fail(file, line, "wr_id %" PRIu64 ": send queue wc_flags 0x%x",
		       wr_id, wc->wc_flags);
	if (opcode & IBV_WC_RECV)
		t_fail(file, line, "send queue completion expected, opcode %s given",
		       t_opcode_str(opcode));
}

void conf_expect_wc_err(const char *file, int line, const struct ibv_wc *wc,
			uint64_t wr_id, enum ibv_wc_status status,
			uint32_t qp_num)
{
	if (wc->wr_id != wr_id || wc->status != status)
		t_fail(file, line, "completion wr_id %" PRIu64 " status %s (%d, vendor_err 0x%x), expected wr_id %" PRIu64 " status %s",
		       wc->wr_id, t_status_str(wc->status), wc->status,
		       wc->vendor_err, wr_id, t_status_str(status));
	if (wc->qp_num != qp_num)
		t_fail(file, line, "wr_id %" PRIu64 ": qp_num 0x%x, expected 0x%x",
		       wr_id, wc->qp_num, qp_num);
}

/* ------------------------------------------------------------------------ */
/* Data                                                                     */

uint64_t conf_get64(const void *p)
{
	uint64_t v;

	memcpy(&v, p, 8);
	return v;
}

void conf_put64(void *p, uint64_t v)
{
	memcpy(p, &v, 8);
}

uint32_t conf_gid_ipv4(struct ibv_context *ctx)
{
	union ibv_gid g;
	uint32_t ip;

	t_query_gid(ctx, &g);
	memcpy(&ip, g.raw + 12, 4);
	return ntohl(ip);
}
