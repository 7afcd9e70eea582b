// SPDX-License-Identifier: MIT
/*
 * fab_peer.c - processes coming and going on one fabric (docs/fabric.md).
 *
 * usage: fab_peer RNIC_FABRIC_BIN WORKDIR
 *
 * This process hosts rnic0; peer processes (this program again, role
 * "peer") host rnic1 and sit in a blocking read() on a pipe while this one
 * works on their memory, so only their simulation threads keep their NICs
 * running. Checked:
 *   1. a 64 KiB RDMA WRITE (16 packets) lands byte for byte in the peer's
 *      memory, and a 4 KiB READ returns the peer's bytes;
 *   2. a third process that opens rnic1 while the peer hosts it gets EBUSY;
 *   3. the peer is killed (SIGKILL) mid-run: the next WRITE ends in
 *      IBV_WC_RETRY_EXC_ERR, nothing hangs;
 *   4. a new peer hosts rnic1 on the same switch and a WRITE to it works:
 *      the fabric survives processes coming and going;
 *   5. the switch stops cleanly on SIGTERM.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <infiniband/verbs.h>

#include "common.h"
#include "rnic_verbs_ext.h"

#define BUF_LEN		(64 * 1024)
#define READ_LEN	4096

static const struct t_qp_caps caps = { 8, 8, 1, 1, 0, 0 };

struct info {
	uint32_t qpn;
	uint64_t addr;
	uint32_t rkey;
	union ibv_gid gid;
	int err;		/* peer: errno of ibv_open_device, 0 if open */
};

static void xwrite(int fd, const void *p, size_t n)
{
	CHECK(write(fd, p, n) == (ssize_t)n);
}

static void xread(int fd, void *p, size_t n)
{
	CHECK(read(fd, p, n) == (ssize_t)n);
}

static void qp_attrs(struct t_qp_attrs *a)
{
	t_qp_default_attrs(a);
	a->timeout = 5;		/* 131 us: a dead peer is found quickly */
	a->retry_cnt = 2;
}

/* ---- peer: hosts rnic1, answers commands on the pipe ---- */

static int peer_main(int rd, int wr, int open_only)
{
	struct ibv_device **list = ibv_get_device_list(NULL);
	struct info me = { 0 }, them;
	struct ibv_context *ctx = NULL;
	struct t_qp_attrs a;
	struct t_buf buf;
	char cmd;

	for (int i = 0; list && list[i]; i++)
		if (!strcmp(ibv_get_device_name(list[i]), T_DEV1))
			ctx = ibv_open_device(list[i]);
	me.err = ctx ? 0 : errno;
	if (list)
		ibv_free_device_list(list);
	if (!ctx) {
		xwrite(wr, &me, sizeof(me));
		return 0;
	}
	if (open_only) {
		xwrite(wr, &me, sizeof(me));
		return 0;
	}
	struct ibv_pd *pd = CHECK_PTR(ibv_alloc_pd(ctx));
	struct ibv_cq *cq = t_create_cq(ctx, 16);
	struct ibv_qp *qp = t_create_rc_qp(pd, cq, cq, &caps, NULL);

	t_buf_alloc(&buf, pd, BUF_LEN);
	t_fill(buf.p, BUF_LEN, 99);
	t_query_gid(ctx, &me.gid);
	me.qpn = qp->qp_num;
	me.addr = t_addr(&buf, 0);
	me.rkey = buf.mr->rkey;
	xwrite(wr, &me, sizeof(me));
	xread(rd, &them, sizeof(them));
	qp_attrs(&a);
	t_qp_to_rts_attrs(qp, IBV_MTU_4096, &them.gid, them.qpn, 0x100, 0x200, &a);
	cmd = 'r';
	xwrite(wr, &cmd, 1);
	/* Blocked in read(): the simulation thread runs the NIC meanwhile. */
	while (read(rd, &cmd, 1) == 1 && cmd == 'c') {
		uint64_t seed, at;
		struct ibv_wc wc;
		uint8_t *exp;
		char ok;

		xread(rd, &seed, sizeof(seed));
		xread(rd, &at, sizeof(at));
		/*
		 * A pipe carries no simulated time: this node may still be up to
		 * the links' lookahead behind the cycle at which the other side
		 * saw its WRITE complete. And the responder ACKs a packet once
		 * its placement started (docs/transport.md): the last packet's
		 * bytes land up to its placement time plus the memory write
		 * latency after that. So let time pass, as software polling its
		 * buffer would, until the bytes are there or a bound (4 KiB at
		 * 32 bytes a cycle, the write latency, slack) is passed.
		 */
		exp = CHECK_PTR(malloc(BUF_LEN));
		t_fill(exp, BUF_LEN, seed);
		while (!(ok = !memcmp(buf.p, exp, BUF_LEN)) &&
		       rnic_verbs_sim_cycle() < at + 1000)
			CHECK_EQ(ibv_poll_cq(cq, 1, &wc), 0);
		for (size_t i = 0; !ok && i < BUF_LEN; i++)
			if (((uint8_t *)buf.p)[i] != exp[i]) {
				fprintf(stderr, "peer: byte %zu differs at cycle %llu (writer done at %llu)\n",
					i, (unsigned long long)rnic_verbs_sim_cycle(),
					(unsigned long long)at);
				break;
			}
		free(exp);
		xwrite(wr, &ok, 1);
	}
	CHECK_OK(ibv_destroy_qp(qp));
	t_buf_free(&buf);
	CHECK_OK(ibv_destroy_cq(cq));
	CHECK_OK(ibv_dealloc_pd(pd));
	CHECK_OK(ibv_close_device(ctx));
	return 0;
}

/* ---- this side: rnic0 ---- */

struct peer {
	pid_t pid;
	int rd, wr;	/* our ends */
};

static void spawn(struct peer *p, const char *self, const char *role)
{
	int to[2], from[2];
	char a[16], b[16];

	CHECK(!pipe(to) && !pipe(from));
	p->pid = fork();
	CHECK(p->pid >= 0);
	if (p->pid == 0) {
		snprintf(a, sizeof(a), "%d", to[0]);
		snprintf(b, sizeof(b), "%d", from[1]);
		close(to[1]);
		close(from[0]);
		execl(self, self, role, a, b, (char *)NULL);
		_exit(127);
	}
	close(to[0]);
	close(from[1]);
	p->wr = to[1];
	p->rd = from[0];
}

static int reap(pid_t pid)
{
	int st;

	CHECK(waitpid(pid, &st, 0) == pid);
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

struct side {
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	struct ibv_cq *cq;
	struct t_buf buf;
};

static struct ibv_qp *connect_peer(struct side *s, struct peer *p, struct info *them)
{
	struct ibv_qp *qp = t_create_rc_qp(s->pd, s->cq, s->cq, &caps, NULL);
	struct info me = { 0 };
	struct t_qp_attrs a;
	char c;

	xread(p->rd, them, sizeof(*them));
	CHECKF(!them->err, "peer could not open %s: %s", T_DEV1, strerror(them->err));
	t_query_gid(s->ctx, &me.gid);
	me.qpn = qp->qp_num;
	qp_attrs(&a);
	t_qp_to_rts_attrs(qp, IBV_MTU_4096, &them->gid, them->qpn, 0x200, 0x100, &a);
	xwrite(p->wr, &me, sizeof(me));
	xread(p->rd, &c, 1);
	CHECK(c == 'r');
	return qp;
}

static enum ibv_wc_status rdma(struct side *s, struct ibv_qp *qp, enum ibv_wr_opcode op,
			       size_t off, size_t len, const struct info *them)
{
	struct ibv_sge sge = { t_addr(&s->buf, off), (uint32_t)len, s->buf.mr->lkey };
	struct ibv_send_wr wr = { .wr_id = 7, .sg_list = &sge, .num_sge = 1, .opcode = op,
				  .send_flags = IBV_SEND_SIGNALED }, *bad;
	struct ibv_wc wc;
	long polls = 0;
	int n;

	wr.wr.rdma.remote_addr = them->addr;
	wr.wr.rdma.rkey = them->rkey;
	CHECK_OK(ibv_post_send(qp, &wr, &bad));
	while (!(n = ibv_poll_cq(s->cq, 1, &wc)))
		CHECKF(++polls < 100000000L, "no completion");
	CHECK_EQ(n, 1);
	CHECK_EQ(wc.wr_id, 7);
	return wc.status;
}

static void check_peer(struct peer *p, uint64_t seed)
{
	char c = 'c', ok = 0;

	xwrite(p->wr, &c, 1);
	uint64_t at = rnic_verbs_sim_cycle();

	xwrite(p->wr, &seed, sizeof(seed));
	xwrite(p->wr, &at, sizeof(at));
	xread(p->rd, &ok, 1);
	CHECKF(ok, "the peer's buffer does not hold the written bytes");
}

int main(int argc, char **argv)
{
	char fab[512], sock[600];
	struct peer p1, p2, busy;
	struct info them, b;
	struct side s;
	struct ibv_qp *qp;
	pid_t sw;
	char c = 'q';

	if (argc == 4 && (!strcmp(argv[1], "peer") || !strcmp(argv[1], "busy")))
		return peer_main(atoi(argv[2]), atoi(argv[3]), !strcmp(argv[1], "busy"));
	if (argc != 3) {
		fprintf(stderr, "usage: %s RNIC_FABRIC_BIN WORKDIR\n", argv[0]);
		return 2;
	}
	snprintf(fab, sizeof(fab), "%s/fabric", argv[2]);
	mkdir(argv[2], 0777);
	setenv("RNIC_FABRIC", fab, 1);
	setenv("RNIC_FABRIC_BIN", argv[1], 1);
	sw = fork();
	if (sw == 0) {
		prctl(PR_SET_PDEATHSIG, SIGTERM);	/* a failed check ends it too */
		execl(argv[1], "rnic-fabric", fab, (char *)NULL);
		_exit(127);
	}
	snprintf(sock, sizeof(sock), "%s/node1.sock", fab);
	for (int i = 0; i < 500 && access(sock, F_OK); i++)
		usleep(20000);

	/* 1. WRITE and READ against a peer blocked in read(). */
	spawn(&p1, "/proc/self/exe", "peer");
	s.ctx = t_open_device(T_DEV0);
	s.pd = CHECK_PTR(ibv_alloc_pd(s.ctx));
	s.cq = t_create_cq(s.ctx, 16);
	t_buf_alloc(&s.buf, s.pd, BUF_LEN);
	qp = connect_peer(&s, &p1, &them);
	t_fill(s.buf.p, BUF_LEN, 1);
	CHECK_EQ(rdma(&s, qp, IBV_WR_RDMA_WRITE, 0, BUF_LEN, &them), IBV_WC_SUCCESS);
	check_peer(&p1, 1);
	memset(s.buf.p, 0, READ_LEN);
	CHECK_EQ(rdma(&s, qp, IBV_WR_RDMA_READ, 0, READ_LEN, &them), IBV_WC_SUCCESS);
	{
		uint8_t exp[READ_LEN];

		t_fill(exp, READ_LEN, 1);
		CHECK_MEM(s.buf.p, exp, READ_LEN);
	}
	printf("WRITE 64 KiB and READ 4 KiB across processes: ok\n");

	/* 2. rnic1 is hosted: another process gets EBUSY. */
	spawn(&busy, "/proc/self/exe", "busy");
	xread(busy.rd, &b, sizeof(b));
	CHECK_EQ(reap(busy.pid), 0);
	CHECKF(b.err == EBUSY, "opening a hosted device: %s, not EBUSY", strerror(b.err));
	printf("a second host of rnic1: EBUSY\n");

	/* 3. The peer dies: the WRITE runs out of retries. */
	kill(p1.pid, SIGKILL);
	CHECK_EQ(reap(p1.pid), 128 + SIGKILL);
	CHECK_EQ(rdma(&s, qp, IBV_WR_RDMA_WRITE, 0, BUF_LEN, &them), IBV_WC_RETRY_EXC_ERR);
	printf("peer killed: IBV_WC_RETRY_EXC_ERR\n");

	/* 4. A new peer on the same switch. */
	spawn(&p2, "/proc/self/exe", "peer");
	CHECK_OK(ibv_destroy_qp(qp));
	qp = connect_peer(&s, &p2, &them);
	t_fill(s.buf.p, BUF_LEN, 2);
	CHECK_EQ(rdma(&s, qp, IBV_WR_RDMA_WRITE, 0, BUF_LEN, &them), IBV_WC_SUCCESS);
	check_peer(&p2, 2);
	xwrite(p2.wr, &c, 1);
	CHECK_EQ(reap(p2.pid), 0);
	printf("a new peer on the same fabric: WRITE ok\n");

	CHECK_OK(ibv_destroy_qp(qp));
	t_buf_free(&s.buf);
	CHECK_OK(ibv_destroy_cq(s.cq));
	CHECK_OK(ibv_dealloc_pd(s.pd));
	CHECK_OK(ibv_close_device(s.ctx));

	/* 5. The switch stops cleanly. */
	kill(sw, SIGTERM);
	CHECK_EQ(reap(sw), 0);
	printf("PASS\n");
	return 0;
}
