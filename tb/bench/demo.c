// SPDX-License-Identifier: MIT
/*
 * demo.c - two simulated RNICs, one RC connection, every basic operation.
 *
 * rnic0 and rnic1 are two nodes of one simulation joined by a wire. The
 * demo opens both, connects an RC QP on each (RoCEv2: the address vector is
 * the peer's GID, an IPv4-mapped address), then from rnic0 does
 *
 *   SEND, SEND with immediate, RDMA WRITE, RDMA WRITE with immediate,
 *   RDMA READ, FETCH_AND_ADD and CMP_AND_SWP,
 *
 * then a UD SEND between two UD QPs through an address handle, checking the
 * bytes in memory and every completion. It is plain verbs code:
 * it builds and runs against any libibverbs. With our library, the
 * environment variable RNIC_TIMELINE=1 (set below unless already set) makes
 * the library print the cycle-by-cycle timeline of every WR.
 */
#define _DEFAULT_SOURCE

#include <infiniband/verbs.h>

#include <endian.h>
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define PORT 1
#define GID_INDEX 0
#define BUF_LEN (16 * 1024)
#define POLL_BOUND 1000000L

/* Offsets in the buffers. */
#define N0_SRC 0		/* rnic0: data it sends and writes */
#define N0_READ (8 * 1024)	/* rnic0: where the READ lands */
#define N1_RECV 0		/* rnic1: receive buffers */
#define N1_WRITE (4 * 1024)	/* rnic1: WRITE target */
#define N1_READ (8 * 1024)	/* rnic1: READ source */
#define N0_ATOMIC (12 * 1024)	/* rnic0: where the original values land */
#define N1_ATOMIC (12 * 1024)	/* rnic1: the 8-byte counter */
#define N0_UD (13 * 1024)	/* rnic0: UD payload */
#define N1_UD (13 * 1024)	/* rnic1: UD receive buffer (40-byte GRH area first) */
#define UD_QKEY 0x11111111

struct node {
	const char *name;
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	struct ibv_cq *cq;
	struct ibv_qp *qp;
	struct ibv_qp *ud;	/* a UD QP on the same CQ */
	struct ibv_mr *mr;
	uint8_t *buf;
	union ibv_gid gid;
};

static void die(const char *fmt, ...) __attribute__((noreturn, format(printf, 1, 2)));

static void die(const char *fmt, ...)
{
	va_list ap;

	fflush(stdout);
	fprintf(stderr, "demo: FAILED: ");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(1);
}

static void fill(uint8_t *p, size_t len, uint64_t seed)
{
	uint64_t x = seed;
	size_t i;

	for (i = 0; i < len; i++) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		p[i] = (uint8_t)x;
	}
}

static void expect_bytes(const char *what, const uint8_t *got,
			 const uint8_t *exp, size_t len)
{
	size_t i;

	for (i = 0; i < len; i++)
		if (got[i] != exp[i])
			die("%s: byte %zu is 0x%02x, expected 0x%02x", what, i,
			    got[i], exp[i]);
}

static void gid_str(const union ibv_gid *gid, char *out, size_t len)
{
	static const uint8_t v4_prefix[12] = { [10] = 0xff, [11] = 0xff };
	const uint8_t *g = gid->raw;

	if (!memcmp(g, v4_prefix, sizeof(v4_prefix)))
		snprintf(out, len, "::ffff:%u.%u.%u.%u", g[12], g[13], g[14],
			 g[15]);
	else
		snprintf(out, len,
			 "%02x%02x:%02x%02x:%02x%02x:%02x%02x:%02x%02x:%02x%02x:%02x%02x:%02x%02x",
			 g[0], g[1], g[2], g[3], g[4], g[5], g[6], g[7], g[8],
			 g[9], g[10], g[11], g[12], g[13], g[14], g[15]);
}

static void open_node(struct node *n, const char *name)
{
	struct ibv_device **list;
	struct ibv_port_attr pa;
	struct ibv_qp_init_attr ia;
	char gs[64];
	int i, num = 0;

	n->name = name;
	list = ibv_get_device_list(&num);
	if (!list)
		die("ibv_get_device_list: %s", strerror(errno));
	for (i = 0; i < num && !n->ctx; i++)
		if (!strcmp(ibv_get_device_name(list[i]), name))
			n->ctx = ibv_open_device(list[i]);
	ibv_free_device_list(list);
	if (!n->ctx)
		die("cannot open device %s (%d devices found)", name, num);

	memset(&pa, 0, sizeof(pa));
	if (ibv_query_port(n->ctx, PORT, &pa))
		die("%s: ibv_query_port failed", name);
	if (pa.state != IBV_PORT_ACTIVE)
		die("%s: port %d is not active", name, PORT);
	if (ibv_query_gid(n->ctx, PORT, GID_INDEX, &n->gid))
		die("%s: ibv_query_gid failed", name);

	n->pd = ibv_alloc_pd(n->ctx);
	if (!n->pd)
		die("%s: ibv_alloc_pd: %s", name, strerror(errno));
	n->cq = ibv_create_cq(n->ctx, 16, NULL, NULL, 0);
	if (!n->cq)
		die("%s: ibv_create_cq: %s", name, strerror(errno));
	if (posix_memalign((void **)&n->buf, 4096, BUF_LEN))
		die("%s: out of memory", name);
	memset(n->buf, 0, BUF_LEN);
	n->mr = ibv_reg_mr(n->pd, n->buf, BUF_LEN,
			   IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |
			   IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_ATOMIC);
	if (!n->mr)
		die("%s: ibv_reg_mr: %s", name, strerror(errno));

	memset(&ia, 0, sizeof(ia));
	ia.send_cq = n->cq;
	ia.recv_cq = n->cq;
	ia.qp_type = IBV_QPT_RC;
	ia.cap.max_send_wr = 8;
	ia.cap.max_recv_wr = 8;
	ia.cap.max_send_sge = 1;
	ia.cap.max_recv_sge = 1;
	n->qp = ibv_create_qp(n->pd, &ia);
	if (!n->qp)
		die("%s: ibv_create_qp: %s", name, strerror(errno));
	ia.qp_type = IBV_QPT_UD;
	n->ud = ibv_create_qp(n->pd, &ia);
	if (!n->ud)
		die("%s: ibv_create_qp(UD): %s", name, strerror(errno));

	gid_str(&n->gid, gs, sizeof(gs));
	printf("%s: port %d %s, %s, GID[0] %s, QPN 0x%06x, MR lkey 0x%x rkey 0x%x\n",
	       name, PORT, pa.state == IBV_PORT_ACTIVE ? "ACTIVE" : "down",
	       pa.link_layer == IBV_LINK_LAYER_ETHERNET ? "Ethernet" : "IB",
	       gs, n->qp->qp_num, n->mr->lkey, n->mr->rkey);
}

/* RESET -> INIT -> RTR -> RTS towards the peer. */
static void connect_qp(struct node *n, const struct node *peer,
		       uint32_t my_psn, uint32_t peer_psn)
{
	struct ibv_qp_attr a;

	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_INIT;
	a.port_num = PORT;
	a.qp_access_flags = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |
			    IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_ATOMIC;
	if (ibv_modify_qp(n->qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX |
			  IBV_QP_PORT | IBV_QP_ACCESS_FLAGS))
		die("%s: modify to INIT failed", n->name);

	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTR;
	a.path_mtu = IBV_MTU_1024;
	a.dest_qp_num = peer->qp->qp_num;
	a.rq_psn = peer_psn;
	a.max_dest_rd_atomic = 1;
	a.min_rnr_timer = 12;
	a.ah_attr.is_global = 1;
	a.ah_attr.grh.dgid = peer->gid;
	a.ah_attr.grh.sgid_index = GID_INDEX;
	a.ah_attr.grh.hop_limit = 64;
	a.ah_attr.port_num = PORT;
	if (ibv_modify_qp(n->qp, &a, IBV_QP_STATE | IBV_QP_AV |
			  IBV_QP_PATH_MTU | IBV_QP_DEST_QPN | IBV_QP_RQ_PSN |
			  IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER))
		die("%s: modify to RTR failed", n->name);

	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTS;
	a.sq_psn = my_psn;
	a.timeout = 14;
	a.retry_cnt = 7;
	a.rnr_retry = 7;
	a.max_rd_atomic = 1;
	if (ibv_modify_qp(n->qp, &a, IBV_QP_STATE | IBV_QP_SQ_PSN |
			  IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT |
			  IBV_QP_RNR_RETRY | IBV_QP_MAX_QP_RD_ATOMIC))
		die("%s: modify to RTS failed", n->name);
}

/* A UD QP: RESET -> INIT (port, P_Key, Q_Key) -> RTR -> RTS. */
static void ud_to_rts(struct node *n)
{
	struct ibv_qp_attr a;

	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_INIT;
	a.port_num = PORT;
	a.qkey = UD_QKEY;
	if (ibv_modify_qp(n->ud, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT |
			  IBV_QP_QKEY))
		die("%s: UD modify to INIT failed", n->name);
	a.qp_state = IBV_QPS_RTR;
	if (ibv_modify_qp(n->ud, &a, IBV_QP_STATE))
		die("%s: UD modify to RTR failed", n->name);
	a.qp_state = IBV_QPS_RTS;
	a.sq_psn = 0x300;
	if (ibv_modify_qp(n->ud, &a, IBV_QP_STATE | IBV_QP_SQ_PSN))
		die("%s: UD modify to RTS failed", n->name);
}

/* Waits for one completion on n's CQ and checks it (RC QP). */
static struct ibv_wc wait_wc_qp(const struct node *n, const struct ibv_qp *qp,
				uint64_t wr_id, enum ibv_wc_opcode opcode);

static struct ibv_wc wait_wc(const struct node *n, uint64_t wr_id,
			     enum ibv_wc_opcode opcode)
{
	return wait_wc_qp(n, n->qp, wr_id, opcode);
}

static struct ibv_wc wait_wc_qp(const struct node *n, const struct ibv_qp *qp,
				uint64_t wr_id, enum ibv_wc_opcode opcode)
{
	struct ibv_wc wc;
	long polls = 0;
	int rc;

	do {
		rc = ibv_poll_cq(n->cq, 1, &wc);
		if (rc < 0)
			die("%s: ibv_poll_cq returned %d", n->name, rc);
		if (rc == 0 && ++polls >= POLL_BOUND)
			die("%s: no completion for wr_id %" PRIu64, n->name,
			    wr_id);
	} while (rc == 0);
	if (wc.status != IBV_WC_SUCCESS)
		die("%s: wr_id %" PRIu64 " completed with status %d",
		    n->name, wc.wr_id, wc.status);
	if (wc.wr_id != wr_id || wc.opcode != opcode ||
	    wc.qp_num != qp->qp_num)
		die("%s: completion wr_id %" PRIu64 " opcode %d qp 0x%x, expected wr_id %" PRIu64 " opcode %d qp 0x%x",
		    n->name, wc.wr_id, wc.opcode, wc.qp_num, wr_id, opcode,
		    qp->qp_num);
	return wc;
}

static void post_recv(struct node *n, uint64_t wr_id, size_t off,
		      uint32_t len)
{
	struct ibv_sge sg = {
		.addr = (uintptr_t)(n->buf + off),
		.length = len,
		.lkey = n->mr->lkey,
	};
	struct ibv_recv_wr wr = {
		.wr_id = wr_id,
		.sg_list = &sg,
		.num_sge = 1,
	};
	struct ibv_recv_wr *bad;

	if (ibv_post_recv(n->qp, &wr, &bad))
		die("%s: ibv_post_recv failed", n->name);
}

static void post_send(struct node *n, uint64_t wr_id, enum ibv_wr_opcode op,
		      size_t off, uint32_t len, const struct node *peer,
		      size_t peer_off, uint32_t imm)
{
	struct ibv_sge sg = {
		.addr = (uintptr_t)(n->buf + off),
		.length = len,
		.lkey = n->mr->lkey,
	};
	struct ibv_send_wr wr, *bad;

	memset(&wr, 0, sizeof(wr));
	wr.wr_id = wr_id;
	wr.sg_list = &sg;
	wr.num_sge = 1;
	wr.opcode = op;
	wr.send_flags = IBV_SEND_SIGNALED;
	wr.imm_data = htobe32(imm);
	wr.wr.rdma.remote_addr = (uintptr_t)(peer->buf + peer_off);
	wr.wr.rdma.rkey = peer->mr->rkey;
	if (ibv_post_send(n->qp, &wr, &bad))
		die("%s: ibv_post_send failed", n->name);
}

static void post_atomic(struct node *n, uint64_t wr_id, enum ibv_wr_opcode op,
			const struct node *peer, uint64_t compare_add, uint64_t swap)
{
	struct ibv_sge sg = {
		.addr = (uintptr_t)(n->buf + N0_ATOMIC),
		.length = 8,
		.lkey = n->mr->lkey,
	};
	struct ibv_send_wr wr, *bad;

	memset(&wr, 0, sizeof(wr));
	wr.wr_id = wr_id;
	wr.sg_list = &sg;
	wr.num_sge = 1;
	wr.opcode = op;
	wr.send_flags = IBV_SEND_SIGNALED;
	wr.wr.atomic.remote_addr = (uintptr_t)(peer->buf + N1_ATOMIC);
	wr.wr.atomic.rkey = peer->mr->rkey;
	wr.wr.atomic.compare_add = compare_add;
	wr.wr.atomic.swap = swap;
	if (ibv_post_send(n->qp, &wr, &bad))
		die("%s: ibv_post_send(atomic) failed", n->name);
}

static uint64_t get64(const uint8_t *p)
{
	uint64_t v;

	memcpy(&v, p, 8);
	return v;
}

static void close_node(struct node *n)
{
	if (ibv_destroy_qp(n->ud) || ibv_destroy_qp(n->qp) || ibv_dereg_mr(n->mr) ||
	    ibv_destroy_cq(n->cq) || ibv_dealloc_pd(n->pd) ||
	    ibv_close_device(n->ctx))
		die("%s: teardown failed", n->name);
	free(n->buf);
}

int main(void)
{
	struct node n0 = { 0 }, n1 = { 0 };
	struct ibv_wc wc;
	uint32_t len;

	/* Before any ibv_ call: ask our library for the per-WR timeline. */
	setenv("RNIC_TIMELINE", "1", 0);

	printf("== rnic demo: two nodes, an RC connection and a UD QP on each ==\n");
	open_node(&n0, "rnic0");
	open_node(&n1, "rnic1");
	connect_qp(&n0, &n1, 0x000100, 0x000200);
	connect_qp(&n1, &n0, 0x000200, 0x000100);
	printf("connected: rnic0 QP 0x%06x <-> rnic1 QP 0x%06x, path MTU 1024, RoCEv2\n\n",
	       n0.qp->qp_num, n1.qp->qp_num);

	fill(n0.buf + N0_SRC, 8192, 0x0123456789abcdefull);
	fill(n1.buf + N1_READ, 4096, 0xfedcba9876543210ull);

	/* 1. SEND / RECV */
	len = 64;
	post_recv(&n1, 101, N1_RECV, 1024);
	post_send(&n0, 1, IBV_WR_SEND, N0_SRC, len, &n1, 0, 0);
	wc = wait_wc(&n1, 101, IBV_WC_RECV);
	if (wc.byte_len != len || (wc.wc_flags & IBV_WC_WITH_IMM))
		die("SEND: receive byte_len %u flags 0x%x", wc.byte_len,
		    wc.wc_flags);
	wait_wc(&n0, 1, IBV_WC_SEND);
	expect_bytes("SEND", n1.buf + N1_RECV, n0.buf + N0_SRC, len);
	printf("1. SEND            %5u B  rnic0 -> rnic1: receive byte_len %u, data ok\n",
	       len, wc.byte_len);

	/* 2. SEND with immediate */
	len = 200;
	post_recv(&n1, 102, N1_RECV, 1024);
	post_send(&n0, 2, IBV_WR_SEND_WITH_IMM, N0_SRC + 64, len, &n1, 0,
		  0x1234abcd);
	wc = wait_wc(&n1, 102, IBV_WC_RECV);
	if (wc.byte_len != len || !(wc.wc_flags & IBV_WC_WITH_IMM) ||
	    be32toh(wc.imm_data) != 0x1234abcd)
		die("SEND_IMM: byte_len %u flags 0x%x imm 0x%08x", wc.byte_len,
		    wc.wc_flags, be32toh(wc.imm_data));
	wait_wc(&n0, 2, IBV_WC_SEND);
	expect_bytes("SEND_IMM", n1.buf + N1_RECV, n0.buf + N0_SRC + 64, len);
	printf("2. SEND_WITH_IMM   %5u B  rnic0 -> rnic1: imm 0x%08x, data ok\n",
	       len, be32toh(wc.imm_data));

	/* 3. RDMA WRITE */
	len = 4096;
	post_send(&n0, 3, IBV_WR_RDMA_WRITE, N0_SRC, len, &n1, N1_WRITE, 0);
	wait_wc(&n0, 3, IBV_WC_RDMA_WRITE);
	expect_bytes("WRITE", n1.buf + N1_WRITE, n0.buf + N0_SRC, len);
	printf("3. RDMA_WRITE      %5u B  rnic0 -> rnic1 memory: data ok (no receive used)\n",
	       len);

	/* 4. RDMA WRITE with immediate */
	len = 256;
	post_recv(&n1, 104, N1_RECV, 1024);
	post_send(&n0, 4, IBV_WR_RDMA_WRITE_WITH_IMM, N0_SRC + 4096, len, &n1,
		  N1_WRITE + 1024, 0xc0ffee00);
	wc = wait_wc(&n1, 104, IBV_WC_RECV_RDMA_WITH_IMM);
	if (!(wc.wc_flags & IBV_WC_WITH_IMM) ||
	    be32toh(wc.imm_data) != 0xc0ffee00)
		die("WRITE_IMM: flags 0x%x imm 0x%08x", wc.wc_flags,
		    be32toh(wc.imm_data));
	wait_wc(&n0, 4, IBV_WC_RDMA_WRITE);
	expect_bytes("WRITE_IMM", n1.buf + N1_WRITE + 1024,
		     n0.buf + N0_SRC + 4096, len);
	printf("4. RDMA_WRITE_IMM  %5u B  rnic0 -> rnic1 memory: imm 0x%08x, data ok\n",
	       len, be32toh(wc.imm_data));

	/* 5. RDMA READ */
	len = 4096;
	post_send(&n0, 5, IBV_WR_RDMA_READ, N0_READ, len, &n1, N1_READ, 0);
	wc = wait_wc(&n0, 5, IBV_WC_RDMA_READ);
	if (wc.byte_len != len)
		die("READ: byte_len %u, expected %u", wc.byte_len, len);
	expect_bytes("READ", n0.buf + N0_READ, n1.buf + N1_READ, len);
	printf("5. RDMA_READ       %5u B  rnic1 memory -> rnic0: byte_len %u, data ok\n",
	       len, wc.byte_len);

	/* 6. Atomics on an 8-byte counter in rnic1's memory */
	{
		uint64_t v = 1000;

		memcpy(n1.buf + N1_ATOMIC, &v, 8);
		post_atomic(&n0, 6, IBV_WR_ATOMIC_FETCH_AND_ADD, &n1, 25, 0);
		wc = wait_wc(&n0, 6, IBV_WC_FETCH_ADD);
		if (wc.byte_len != 8 || get64(n0.buf + N0_ATOMIC) != 1000 ||
		    get64(n1.buf + N1_ATOMIC) != 1025)
			die("FETCH_ADD: returned %" PRIu64 ", counter %" PRIu64,
			    get64(n0.buf + N0_ATOMIC), get64(n1.buf + N1_ATOMIC));
		printf("6. FETCH_AND_ADD      8 B  rnic1 counter 1000 + 25: returned %" PRIu64
		       ", counter now %" PRIu64 "\n", get64(n0.buf + N0_ATOMIC),
		       get64(n1.buf + N1_ATOMIC));
		post_atomic(&n0, 7, IBV_WR_ATOMIC_CMP_AND_SWP, &n1, 1025, 77);
		wait_wc(&n0, 7, IBV_WC_COMP_SWAP);
		if (get64(n0.buf + N0_ATOMIC) != 1025 || get64(n1.buf + N1_ATOMIC) != 77)
			die("CMP_SWAP: returned %" PRIu64 ", counter %" PRIu64,
			    get64(n0.buf + N0_ATOMIC), get64(n1.buf + N1_ATOMIC));
		printf("7. CMP_AND_SWP        8 B  rnic1 counter == 1025 ? 77: returned %" PRIu64
		       ", counter now %" PRIu64 "\n", get64(n0.buf + N0_ATOMIC),
		       get64(n1.buf + N1_ATOMIC));
	}

	/* 8. UD SEND through an address handle */
	{
		struct ibv_ah_attr aa;
		struct ibv_ah *ah;
		struct ibv_sge sg = {
			.addr = (uintptr_t)(n0.buf + N0_UD),
			.length = 100,
			.lkey = n0.mr->lkey,
		};
		struct ibv_send_wr wr, *bad;

		ud_to_rts(&n0);
		ud_to_rts(&n1);
		memset(&aa, 0, sizeof(aa));
		aa.is_global = 1;
		aa.grh.dgid = n1.gid;
		aa.grh.sgid_index = GID_INDEX;
		aa.grh.hop_limit = 64;
		aa.port_num = PORT;
		ah = ibv_create_ah(n0.pd, &aa);
		if (!ah)
			die("ibv_create_ah: %s", strerror(errno));
		{
			struct ibv_sge rs = {
				.addr = (uintptr_t)(n1.buf + N1_UD),
				.length = 40 + 1024,
				.lkey = n1.mr->lkey,
			};
			struct ibv_recv_wr rwr = { .wr_id = 108, .sg_list = &rs, .num_sge = 1 };
			struct ibv_recv_wr *rbad;

			if (ibv_post_recv(n1.ud, &rwr, &rbad))
				die("rnic1: UD ibv_post_recv failed");
		}
		memset(&wr, 0, sizeof(wr));
		wr.wr_id = 8;
		wr.sg_list = &sg;
		wr.num_sge = 1;
		wr.opcode = IBV_WR_SEND;
		wr.send_flags = IBV_SEND_SIGNALED;
		wr.wr.ud.ah = ah;
		wr.wr.ud.remote_qpn = n1.ud->qp_num;
		wr.wr.ud.remote_qkey = UD_QKEY;
		if (ibv_post_send(n0.ud, &wr, &bad))
			die("rnic0: UD ibv_post_send failed");
		wc = wait_wc_qp(&n1, n1.ud, 108, IBV_WC_RECV);
		if (wc.byte_len != 40 + 100 || !(wc.wc_flags & IBV_WC_GRH) ||
		    wc.src_qp != n0.ud->qp_num)
			die("UD: byte_len %u flags 0x%x src_qp 0x%x", wc.byte_len, wc.wc_flags,
			    wc.src_qp);
		wait_wc_qp(&n0, n0.ud, 8, IBV_WC_SEND);
		expect_bytes("UD SEND", n1.buf + N1_UD + 40, n0.buf + N0_UD, 100);
		printf("8. UD SEND          100 B  rnic0 UD QP 0x%06x -> rnic1 UD QP 0x%06x: byte_len %u "
		       "(40-byte GRH + 100), src_qp 0x%06x, data ok\n", n0.ud->qp_num,
		       n1.ud->qp_num, wc.byte_len, wc.src_qp);
		if (ibv_destroy_ah(ah))
			die("ibv_destroy_ah failed");
	}

	close_node(&n0);
	close_node(&n1);
	printf("\ndemo: all checks passed\n");
	return 0;
}
