/* SPDX-License-Identifier: MIT */
/*
 * conf.h - the conformance suite's case runner and helpers.
 *
 * Every executable of tb/conformance is one man page (or one section of
 * one) with a table of cases. A case is named after the statement it
 * checks and runs in one or more setups:
 *
 *   two    two QPs on two nodes (rnic0 <-> rnic1)
 *   loop   two QPs of one device (rnic0 <-> rnic0)
 *   local  one device, no traffic between QPs needed
 *
 * The table is written with CONF_CASE(name, CONF_x) lines only:
 * tb/conformance/CMakeLists.txt reads them from the source and makes one
 * CTest test "<exe>.<case>.<setup>" per case and setup, so each runs in its
 * own process (a failing case cannot disturb another one).
 *
 *   <exe> --list            the cases and their setups
 *   <exe> <case> <setup>    one case
 *   <exe>                   every case in every setup, each in a child
 *                           process, with a summary (exit 1 on a failure)
 *
 * Written only against <infiniband/verbs.h> and the helpers of
 * tb/system/common.h; every wait is a bounded number of polls.
 */
#ifndef RNIC_CONF_H
#define RNIC_CONF_H

#include <stddef.h>
#include <stdint.h>
#include <infiniband/verbs.h>

#include "common.h"

enum conf_setup {
	CONF_TWO = 1,
	CONF_LOOP = 2,
	CONF_LOCAL = 4,
};
#define CONF_BOTH (CONF_TWO | CONF_LOOP)

struct conf {
	const char *name;
	enum conf_setup setup;
	int loopback;		/* CONF_LOOP: both QPs on rnic0 */
};

struct conf_case {
	const char *name;
	unsigned int setups;
	void (*fn)(struct conf *c);
};

/* A table entry for the case function case_<name>(). */
#define CONF_CASE(name, setups) { #name, setups, case_##name }

int conf_main(int argc, char **argv, const struct conf_case *cases, size_t n);

/* ------------------------------------------------------------------------ */
/* Pairs and QPs                                                            */

/* t_pair_default_cfg() for this setup (loopback or not). */
void conf_pair_cfg(const struct conf *c, struct t_pair_cfg *cfg);
/* The default pair of @type (RC, UC or UD, Q_Key CONF_QKEY for UD). */
void conf_pair_open(const struct conf *c, struct t_pair *p,
		    enum ibv_qp_type type);

#define CONF_QKEY 0x11110000u
/* Access rights with remote atomics, for MRs and QPs that take atomics. */
#define CONF_ACC_ALL (IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE | \
		      IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_ATOMIC)

enum ibv_qp_state conf_qp_state(struct ibv_qp *qp);
/* ibv_modify_qp() to @state with only IBV_QP_STATE (ERR, RESET). */
void conf_qp_to(struct ibv_qp *qp, enum ibv_qp_state state);
/* RESET -> INIT of an RC/UC QP (access) or a UD QP (Q_Key CONF_QKEY). */
void conf_qp_init(struct ibv_qp *qp, unsigned int access);
/* INIT -> RTR of an RC/UC QP towards @peer (its GID and QPN), expecting
 * @rq_psn; UD: only the state. */
void conf_qp_rtr(struct ibv_qp *qp, struct ibv_qp *peer, uint32_t rq_psn,
		 const struct t_qp_attrs *at);
/* RTR -> RTS, first PSN @sq_psn. */
void conf_qp_rts(struct ibv_qp *qp, uint32_t sq_psn,
		 const struct t_qp_attrs *at);

/* Lets the simulation run for about polls * 256 cycles without looking at
 * any CQ of the test (polls a private empty CQ of @ctx). */
void conf_idle(struct ibv_context *ctx, long polls);

/*
 * The usual resources of a case: a pair (side 0 requester, side 1
 * responder) and four registered 64 KiB buffers with every access right
 * (CONF_ACC_ALL | IBV_ACCESS_MW_BIND): src (side 0, filled with t_fill),
 * loc (side 0, zero: READ and atomic results), dst (side 1, CONF_CANARY:
 * RDMA targets), rbuf (side 1, CONF_CANARY: receive buffers).
 */
#define CONF_BUF 65536
#define CONF_CANARY 0xc5

struct conf_rig {
	struct t_pair p;
	struct t_buf src, loc, dst, rbuf;
	struct ibv_qp *qp0, *qp1;
	struct ibv_cq *scq0, *rcq0, *scq1, *rcq1;
	uint32_t q0, q1;	/* QP numbers */
};

/* The rig's default configuration: RC, CONF_ACC_ALL on both QPs, 4
 * READs/atomics each way, 64 WRs and 4 SGEs per queue, CQs of 256. */
void conf_rig_cfg(const struct conf *c, struct t_pair_cfg *cfg);
/* Opens the rig with @cfg (NULL: conf_rig_cfg()). */
void conf_rig_open(const struct conf *c, struct conf_rig *r,
		   const struct t_pair_cfg *cfg);
void conf_rig_close(struct conf_rig *r);

/* ------------------------------------------------------------------------ */
/* Work requests                                                            */

void conf_send_wr(struct ibv_send_wr *wr, uint64_t wr_id,
		  enum ibv_wr_opcode op, unsigned int flags,
		  struct ibv_sge *sg, int nsge);
void conf_rdma_wr(struct ibv_send_wr *wr, uint64_t wr_id,
		  enum ibv_wr_opcode op, unsigned int flags,
		  struct ibv_sge *sg, int nsge, const struct t_buf *remote,
		  size_t roff);
void conf_atomic_wr(struct ibv_send_wr *wr, uint64_t wr_id,
		    enum ibv_wr_opcode op, unsigned int flags,
		    struct ibv_sge *sg, const struct t_buf *remote, size_t roff,
		    uint64_t compare_add, uint64_t swap);
void conf_recv_wr(struct ibv_recv_wr *wr, uint64_t wr_id,
		  struct ibv_sge *sg, int nsge);

/* ibv_post_send()/ibv_post_recv() must return @rc and, unless rc is 0,
 * set *bad_wr to @bad. */
#define EXPECT_POST_SEND(qp, wr, rc, bad)				\
	conf_expect_post_send(__FILE__, __LINE__, qp, wr, rc, bad)
#define EXPECT_POST_RECV(qp, wr, rc, bad)				\
	conf_expect_post_recv(__FILE__, __LINE__, qp, wr, rc, bad)
void conf_expect_post_send(const char *file, int line, struct ibv_qp *qp,
			   struct ibv_send_wr *wr, int rc,
			   struct ibv_send_wr *bad);
void conf_expect_post_recv(const char *file, int line, struct ibv_qp *qp,
			   struct ibv_recv_wr *wr, int rc,
			   struct ibv_recv_wr *bad);
/* Posting that must succeed. */
#define POST_SEND_OK(qp, wr) EXPECT_POST_SEND(qp, wr, 0, NULL)
#define POST_RECV_OK(qp, wr) EXPECT_POST_RECV(qp, wr, 0, NULL)

/* ------------------------------------------------------------------------ */
/* Completions                                                              */

/*
 * A successful completion, every field: wr_id, status, opcode, qp_num,
 * vendor_err 0, byte_len (unless T_ANY), wc_flags exactly (unless T_ANY),
 * imm_data (raw, as in the WR) when IBV_WC_WITH_IMM is expected, src_qp
 * (unless T_ANY), and pkey_index, slid, sl, dlid_path_bits 0 (RoCE has no
 * LIDs, and there is no GSI QP).
 */
#define EXPECT_WC_OK(wc, wr_id, opcode, qp_num, byte_len, flags, imm, src_qp) \
	conf_expect_wc_ok(__FILE__, __LINE__, wc, wr_id, opcode, qp_num,  \
			  byte_len, flags, imm, src_qp)
void conf_expect_wc_ok(const char *file, int line, const struct ibv_wc *wc,
		       uint64_t wr_id, enum ibv_wc_opcode opcode,
		       uint32_t qp_num, long long byte_len, long long flags,
		       long long imm, long long src_qp);

/* A send queue completion: byte_len checked unless T_ANY; wc_flags 0 (or
 * IBV_WC_WITH_IMM for *_WITH_IMM WRs, see EXPECT_SEND_IMM_FLAGS). */
#define EXPECT_SQ_OK(wc, wr_id, opcode, qp_num, byte_len)		\
	conf_expect_sq_ok(__FILE__, __LINE__, wc, wr_id, opcode, qp_num, \
			  byte_len)
void conf_expect_sq_ok(const char *file, int line, const struct ibv_wc *wc,
		       uint64_t wr_id, enum ibv_wc_opcode opcode,
		       uint32_t qp_num, long long byte_len);

/* An error completion: only wr_id, status and qp_num are promised. */
#define EXPECT_WC_ERR(wc, wr_id, status, qp_num)			\
	conf_expect_wc_err(__FILE__, __LINE__, wc, wr_id, status, qp_num)
void conf_expect_wc_err(const char *file, int line, const struct ibv_wc *wc,
			uint64_t wr_id, enum ibv_wc_status status,
			uint32_t qp_num);

/* One completion from @cq into *wc. */
#define POLL1(cq, wc) POLL(cq, 1, wc)

/* Empty polls that show a CQ stays empty (about 50k cycles). */
#define CONF_QUIET 200L

/* ------------------------------------------------------------------------ */
/* Data                                                                     */

uint64_t conf_get64(const void *p);
void conf_put64(void *p, uint64_t v);
/* The IPv4 address (host order) of an IPv4-mapped GID of @ctx. */
uint32_t conf_gid_ipv4(struct ibv_context *ctx);

#endif /* RNIC_CONF_H */
