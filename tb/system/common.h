/* SPDX-License-Identifier: MIT */
/*
 * common.h - helpers shared by the system tests and benchmarks.
 *
 * Everything here is written only against <infiniband/verbs.h> and libc, so
 * the same programs run on the simulated RNIC, on rxe or on a real NIC.
 *
 * Failure policy: every helper and every CHECK*() macro prints file:line and
 * what went wrong, then exits with status 1. A test that returns from main()
 * has passed.
 *
 * Time: on the simulated RNIC, simulated time only advances while software
 * waits (each poll of an empty CQ lets the model run for up to 256 cycles),
 * so every wait here is a bounded number of polls, never a wall-clock time.
 */
#ifndef RNIC_TB_COMMON_H
#define RNIC_TB_COMMON_H

#include <stddef.h>
#include <stdint.h>
#include <infiniband/verbs.h>

#define T_DEV0 "rnic0"
#define T_DEV1 "rnic1"
#define T_PORT 1
#define T_GID_INDEX 0

/* Bound on empty polls before a wait for completions is declared hung. */
#define T_POLL_BOUND 1000000L
/* Empty polls used to show that a CQ stays empty (about 256k cycles). */
#define T_EMPTY_POLLS 1000L

/* Value of an optional expectation that is not checked. */
#define T_ANY (-1LL)

/* Access rights used for every test buffer and every test QP. */
#define T_MR_ACCESS (IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE | \
		     IBV_ACCESS_REMOTE_READ)
#define T_QP_ACCESS (IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE | \
		     IBV_ACCESS_REMOTE_READ)

/* ------------------------------------------------------------------------ */
/* Checks                                                                   */

void t_fail(const char *file, int line, const char *fmt, ...)
	__attribute__((noreturn, format(printf, 3, 4)));
void t_check_u64(const char *file, int line, const char *what_a,
		 const char *what_b, uint64_t a, uint64_t b);
void t_check_mem(const char *file, int line, const char *what,
		 const void *got, const void *exp, size_t len);
void t_check_fill(const char *file, int line, const char *what,
		  const void *got, uint8_t byte, size_t len);

/* Fails unless cond is true. */
#define CHECK(cond)							\
	do {								\
		if (!(cond))						\
			t_fail(__FILE__, __LINE__, "check failed: %s",	\
			       #cond);					\
	} while (0)

/* Fails unless cond is true; prints a formatted message (at least one arg). */
#define CHECKF(cond, ...)						\
	do {								\
		if (!(cond))						\
			t_fail(__FILE__, __LINE__, __VA_ARGS__);	\
	} while (0)

/* Fails unless a == b (compared as 64-bit unsigned values). */
#define CHECK_EQ(a, b)							\
	t_check_u64(__FILE__, __LINE__, #a, #b, (uint64_t)(a), (uint64_t)(b))

/* Fails unless len bytes at got equal those at exp; reports the first
 * differing offset. */
#define CHECK_MEM(got, exp, len)					\
	t_check_mem(__FILE__, __LINE__, #got, (got), (exp), (len))

/* Fails unless every one of len bytes at got equals byte. */
#define CHECK_FILL(got, byte, len)					\
	t_check_fill(__FILE__, __LINE__, #got, (got), (byte), (len))

/* Fails unless a call that returns 0 on success returned 0. */
#define CHECK_OK(call)							\
	do {								\
		int t_rc_ = (call);					\
		if (t_rc_)						\
			t_fail(__FILE__, __LINE__, "%s returned %d",	\
			       #call, t_rc_);				\
	} while (0)

/* Fails if a call that returns a pointer returned NULL (reports errno). */
#define CHECK_PTR(ptr)	t_check_ptr(__FILE__, __LINE__, #ptr, (ptr))
void *t_check_ptr(const char *file, int line, const char *what, void *ptr);

const char *t_status_str(enum ibv_wc_status status);
const char *t_opcode_str(enum ibv_wc_opcode opcode);

/* ------------------------------------------------------------------------ */
/* Deterministic data                                                       */

/* Fills len bytes with a xorshift64 stream started from seed (seed 0 is
 * replaced by a fixed non-zero constant). */
void t_fill(void *buf, size_t len, uint64_t seed);

/* ------------------------------------------------------------------------ */
/* Devices and resources                                                    */

/* Opens the device called name; fails unless port 1 is ACTIVE and Ethernet. */
struct ibv_context *t_open_device(const char *name);
void t_query_gid(struct ibv_context *ctx, union ibv_gid *gid);

struct ibv_cq *t_create_cq(struct ibv_context *ctx, int cqe);

struct t_qp_caps {
	uint32_t max_send_wr;
	uint32_t max_recv_wr;
	uint32_t max_send_sge;
	uint32_t max_recv_sge;
	int sq_sig_all;
	uint32_t max_inline_data;
};

/* A CQ on a completion channel (may be NULL), with @cq_context. */
struct ibv_cq *t_create_cq_ch(struct ibv_context *ctx, int cqe,
			      struct ibv_comp_channel *ch, void *cq_context);

/* Creates a QP of @type whose receives come from @srq (ibv_create_qp with
 * init_attr.srq); caps->max_recv_* are ignored. Checks that it reports no
 * receive queue of its own (max_recv_wr 0). */
struct ibv_qp *t_create_qp_srq(struct ibv_pd *pd, struct ibv_cq *scq,
			       struct ibv_cq *rcq, struct ibv_srq *srq,
			       enum ibv_qp_type type, const struct t_qp_caps *caps);

/* Creates an RC QP; *cap_out (if not NULL) receives the actual capacities
 * that ibv_create_qp() reported. */
struct ibv_qp *t_create_rc_qp(struct ibv_pd *pd, struct ibv_cq *scq,
			      struct ibv_cq *rcq, const struct t_qp_caps *caps,
			      struct ibv_qp_cap *cap_out);

/* Creates a QP of @type (RC, UC or UD). With send_ops_flags != 0 it is
 * created by ibv_create_qp_ex() with IBV_QP_INIT_ATTR_SEND_OPS_FLAGS and
 * has the ibv_wr_* interface (checked: ibv_qp_to_qp_ex() is not NULL). */
struct ibv_qp *t_create_qp(struct ibv_pd *pd, struct ibv_cq *scq,
			   struct ibv_cq *rcq, enum ibv_qp_type type,
			   uint64_t send_ops_flags, const struct t_qp_caps *caps,
			   struct ibv_qp_cap *cap_out);

/* Transport attributes of a connected RC QP (ibv_modify_qp). */
struct t_qp_attrs {
	unsigned int access;		/* qp_access_flags */
	uint8_t timeout;		/* local ACK timeout: 4.096 us << timeout */
	uint8_t retry_cnt;
	uint8_t rnr_retry;		/* 7: no limit */
	uint8_t min_rnr_timer;		/* what this QP's RNR NAKs ask for */
	uint8_t max_rd_atomic;
	uint8_t max_dest_rd_atomic;
};

/* The attributes t_qp_to_rts() uses: T_QP_ACCESS, timeout 14, retry_cnt 7,
 * rnr_retry 7, min_rnr_timer 12, one READ/atomic each way. */
void t_qp_default_attrs(struct t_qp_attrs *a);

/* RESET -> INIT -> RTR -> RTS towards a remote QP. */
void t_qp_to_rts(struct ibv_qp *qp, enum ibv_mtu mtu,
		 const union ibv_gid *dgid, uint32_t dest_qpn,
		 uint32_t rq_psn, uint32_t sq_psn);
void t_qp_to_rts_attrs(struct ibv_qp *qp, enum ibv_mtu mtu,
		       const union ibv_gid *dgid, uint32_t dest_qpn,
		       uint32_t rq_psn, uint32_t sq_psn,
		       const struct t_qp_attrs *attrs);

/* RESET -> INIT -> RTR -> RTS of a UC QP towards a remote QP (UC takes no
 * READ/atomic, timeout or retry attributes). */
void t_uc_qp_to_rts(struct ibv_qp *qp, enum ibv_mtu mtu,
		    const union ibv_gid *dgid, uint32_t dest_qpn,
		    uint32_t rq_psn, uint32_t sq_psn, unsigned int access);

/* RESET -> INIT (Q_Key) -> RTR -> RTS of a UD QP. */
void t_ud_qp_to_rts(struct ibv_qp *qp, uint32_t qkey, uint32_t sq_psn);

/* An address handle of @pd for the GID of @dest (RoCE: GRH, port 1). */
struct ibv_ah *t_create_ah(struct ibv_pd *pd, struct ibv_context *dest);

/* Connects two QPs to each other (each may live on either device). psn_a is
 * the first PSN qp_a sends (and qp_b expects), psn_b the other way round. */
void t_connect_qps(struct ibv_qp *qp_a, struct ibv_qp *qp_b, enum ibv_mtu mtu,
		   uint32_t psn_a, uint32_t psn_b);

/* A registered, page-aligned buffer. */
struct t_buf {
	uint8_t *p;
	size_t len;
	struct ibv_mr *mr;
};

void t_buf_alloc(struct t_buf *b, struct ibv_pd *pd, size_t len);
/* The same with the MR's access flags given. */
void t_buf_alloc_access(struct t_buf *b, struct ibv_pd *pd, size_t len,
			unsigned int access);
void t_buf_free(struct t_buf *b);

static inline uint64_t t_addr(const struct t_buf *b, size_t off)
{
	return (uint64_t)(uintptr_t)(b->p + off);
}

/* ------------------------------------------------------------------------ */
/* A connected RC pair: side 0 on rnic0, side 1 on rnic1 (or both on rnic0
 * for loopback). Each side has its own send CQ and receive CQ.            */

struct t_side {
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	struct ibv_cq *scq;
	struct ibv_cq *rcq;
	struct ibv_qp *qp;
	struct ibv_qp_cap cap;
	struct ibv_qp_ex *qpx;	/* with cfg.send_ops_flags, else NULL */
	struct ibv_ah *ah;	/* UD: address handle of the other side */
	struct ibv_comp_channel *ch;	/* with cfg.comp_channel */
};

struct t_pair_cfg {
	enum ibv_mtu mtu;
	struct t_qp_caps caps;
	int cqe;
	int rcqe;			/* receive CQs; 0: cqe */
	int comp_channel;		/* each side's CQs on a channel of their own */
	uint32_t psn[2];	/* first PSN that side i sends */
	int loopback;		/* both QPs on rnic0 */
	struct t_qp_attrs attrs[2];	/* of side i's QP */
	enum ibv_qp_type qp_type;	/* 0: IBV_QPT_RC */
	uint64_t send_ops_flags;	/* != 0: QPs with the ibv_wr_* interface */
	uint32_t qkey;			/* UD: Q_Key of both QPs */
};

struct t_pair {
	struct t_side s[2];
	int loopback;
};

void t_pair_default_cfg(struct t_pair_cfg *cfg);
void t_pair_open(struct t_pair *p, const struct t_pair_cfg *cfg);
void t_pair_close(struct t_pair *p);

/* ------------------------------------------------------------------------ */
/* Posting                                                                  */

static inline struct ibv_sge t_sge(const struct t_buf *b, size_t off,
				   uint32_t len)
{
	struct ibv_sge s = {
		.addr = t_addr(b, off),
		.length = len,
		.lkey = b->mr->lkey,
	};
	return s;
}

/* Posts one send WR; fails on any error. raddr/rkey are used by RDMA
 * opcodes, imm (network order) by the *_WITH_IMM opcodes. */
#define POST_SEND(qp, wr_id, op, flags, sg, nsge, raddr, rkey, imm)	\
	t_post_send_at(__FILE__, __LINE__, qp, wr_id, op, flags, sg,	\
		       nsge, raddr, rkey, imm)
void t_post_send_at(const char *file, int line, struct ibv_qp *qp,
		    uint64_t wr_id, enum ibv_wr_opcode op, unsigned int flags,
		    struct ibv_sge *sg, int nsge, uint64_t raddr, uint32_t rkey,
		    __be32 imm);

/* Posts one atomic WR (IBV_WR_ATOMIC_CMP_AND_SWP or _FETCH_AND_ADD) with one
 * SGE for the original value; fails on any error. */
#define POST_ATOMIC(qp, wr_id, op, flags, sg, raddr, rkey, cmp_add, swap) \
	t_post_atomic_at(__FILE__, __LINE__, qp, wr_id, op, flags, sg,	\
			 raddr, rkey, cmp_add, swap)
void t_post_atomic_at(const char *file, int line, struct ibv_qp *qp,
		      uint64_t wr_id, enum ibv_wr_opcode op, unsigned int flags,
		      struct ibv_sge *sg, uint64_t raddr, uint32_t rkey,
		      uint64_t compare_add, uint64_t swap);

/* Posts one UD SEND (or SEND_WITH_IMM) through @ah; fails on any error. */
#define POST_UD_SEND(qp, wr_id, op, flags, sg, nsge, ah, rqpn, qkey, imm) \
	t_post_ud_send_at(__FILE__, __LINE__, qp, wr_id, op, flags, sg,	\
			  nsge, ah, rqpn, qkey, imm)
void t_post_ud_send_at(const char *file, int line, struct ibv_qp *qp,
		       uint64_t wr_id, enum ibv_wr_opcode op, unsigned int flags,
		       struct ibv_sge *sg, int nsge, struct ibv_ah *ah,
		       uint32_t remote_qpn, uint32_t remote_qkey, __be32 imm);

/* ibv_wr_complete() of a batch; fails unless it returns 0. */
#define WR_COMPLETE(qpx) CHECK_OK(ibv_wr_complete(qpx))

/* Posts one receive WR; fails on any error. */
#define POST_RECV(qp, wr_id, sg, nsge)					\
	t_post_recv_at(__FILE__, __LINE__, qp, wr_id, sg, nsge)
void t_post_recv_at(const char *file, int line, struct ibv_qp *qp,
		    uint64_t wr_id, struct ibv_sge *sg, int nsge);

/* ------------------------------------------------------------------------ */
/* Completions                                                              */

/* Polls cq until exactly n completions were read into wc[0..n-1]; fails
 * after T_POLL_BOUND empty polls or if ibv_poll_cq() returns < 0. */
#define POLL(cq, n, wc) t_poll_at(__FILE__, __LINE__, cq, n, wc)
void t_poll_at(const char *file, int line, struct ibv_cq *cq, int n,
	       struct ibv_wc *wc);

/* The QP's state as ibv_query_qp() reports it. */
enum ibv_qp_state t_qp_state(struct ibv_qp *qp);

/* Polls cq `polls` times and fails if any completion shows up. */
#define EXPECT_EMPTY(cq, polls) t_expect_empty_at(__FILE__, __LINE__, cq, polls)
void t_expect_empty_at(const char *file, int line, struct ibv_cq *cq,
		       long polls);

/*
 * Checks one completion. wr_id, status and qp_num are always checked. For a
 * successful completion, opcode, byte_len, wc_flags and imm (the raw __be32
 * as it appears in the WR and the WC) are checked unless T_ANY. wc_flags is
 * compared with IBV_WC_GRH masked off (RoCE devices may set it on RC
 * receives); imm is only compared when IBV_WC_WITH_IMM is set in wc_flags.
 * For an error completion only wr_id, status and qp_num are valid (man page),
 * so nothing else is checked.
 */
#define EXPECT_WC(wc, wr_id, status, opcode, qp_num, byte_len, flags, imm) \
	t_expect_wc_at(__FILE__, __LINE__, wc, wr_id, status, opcode,	\
		       qp_num, byte_len, flags, imm)
void t_expect_wc_at(const char *file, int line, const struct ibv_wc *wc,
		    uint64_t wr_id, enum ibv_wc_status status,
		    long long opcode, uint32_t qp_num, long long byte_len,
		    long long flags, long long imm);

/* Flags of a requester completion of a *_WITH_IMM WR: mlx5 and rxe report
 * IBV_WC_WITH_IMM there, others report 0; both are accepted. */
#define EXPECT_SEND_IMM_FLAGS(wc)					\
	CHECKF(((wc)->wc_flags & ~(unsigned int)(IBV_WC_WITH_IMM |	\
						 IBV_WC_GRH)) == 0,	\
	       "requester wc_flags 0x%x has more than WITH_IMM",	\
	       (wc)->wc_flags)

/* ------------------------------------------------------------------------ */
/* Events (asynchronous events, completion channels)                        */
/*
 * Waiting for an event is waiting for the hardware: on the simulated RNIC
 * poll()/select() and the blocking ibv_get_*_event() calls run the
 * simulation, and their timeouts are simulated time (1 ms = 250,000 cycles,
 * docs/time-model.md), so these bounds are deterministic.
 */

/* Bound of a wait that must see an event, in ms of (simulated) time. */
#define T_EVENT_MS 100
/* A wait that must see no event: this long (ms). */
#define T_QUIET_MS 2

/* Waits for the next asynchronous event of @ctx (poll() on async_fd, at
 * most T_EVENT_MS, then ibv_get_async_event()); fails unless it is @type
 * about @element (the ibv_qp, ibv_cq or ibv_srq pointer); acknowledges it. */
#define EXPECT_ASYNC_EVENT(ctx, type, element)				\
	t_expect_async_event_at(__FILE__, __LINE__, ctx, type, element)
void t_expect_async_event_at(const char *file, int line, struct ibv_context *ctx,
			     enum ibv_event_type type, const void *element);

/* Fails unless poll() on @fd for @ms milliseconds reports it readable
 * (EXPECT_FD_READY) or reports nothing (EXPECT_FD_QUIET). */
#define EXPECT_FD_READY(fd, ms) t_expect_fd_at(__FILE__, __LINE__, fd, ms, 1)
#define EXPECT_FD_QUIET(fd, ms) t_expect_fd_at(__FILE__, __LINE__, fd, ms, 0)
void t_expect_fd_at(const char *file, int line, int fd, int ms, int ready);

/* The next CQ event of @ch (ibv_get_cq_event, blocking); fails unless it is
 * for @cq with @cq_context. Not acknowledged. */
#define EXPECT_CQ_EVENT(ch, cq, cq_context)				\
	t_expect_cq_event_at(__FILE__, __LINE__, ch, cq, cq_context)
void t_expect_cq_event_at(const char *file, int line, struct ibv_comp_channel *ch,
			  struct ibv_cq *cq, void *cq_context);

#endif /* RNIC_TB_COMMON_H */
