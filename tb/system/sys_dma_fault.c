// SPDX-License-Identifier: MIT
/*
 * sys_dma_fault.c - a payload read the IOMMU refuses fails the WR with
 * IBV_WC_GENERAL_ERR ("other error which isn't one of the above errors",
 * ibv_poll_cq): the keys were good, the memory was not there.
 *
 * The verbs cannot make such a fault (an MR's pages stay mapped while it
 * is valid), so the test takes pages of a valid MR out of the IOMMU with
 * rnic_verbs_mr_dma_fault(). Cases, each on its own QPs:
 *   rc_send      the SEND's payload page is out: GENERAL_ERR (vendor_err
 *                0x35), the WR behind it is flushed, the QP is in ERR;
 *                the responder sees nothing (no frame of it left).
 *   rc_write     a 3-packet WRITE (MTU 4096) whose middle page is out: the
 *                first packet lands, the second is not sent, the third is
 *                refused by the responder (PSN gap); GENERAL_ERR.
 *   ud_send      UD: GENERAL_ERR moves the QP to SQE; the next send is
 *                flushed, receives go on; with the page back, SQE -> RTS
 *                and sending works again.
 *   read_resp    the READ's target page is out at the responder: its
 *                response is not sent (each of the 1 + retry_cnt tries),
 *                the requester ends in IBV_WC_RETRY_EXC_ERR.
 *   atomic_resp  the atomic's target page is out at the responder: its
 *                read is refused, the responder NAKs (remote access error,
 *                IBV_WC_REM_ACCESS_ERR) and goes to ERR; nothing is added.
 * Each case checks the TX builder's DMA_RD_ERR counter and the IOMMU fault
 * counter of the node that read; every fault here is made on purpose, so
 * the CTest runs without RNIC_IOMMU_STRICT.
 */
#define _DEFAULT_SOURCE

#include <stdio.h>
#include <string.h>

#include "common.h"
#include "rnic_verbs_ext.h"

#define PAGE 4096
#define CANARY 0x6b
#define GRH 40
#define QKEY 0x11110000u
#define VEND_DMA_FAULT 0x35	/* requester unit | IBV_WC_GENERAL_ERR */

static unsigned int node_of(const struct t_pair *p, int side)
{
	return side && !p->loopback ? 1 : 0;
}

/* What the node's TX builder and IOMMU saw since *rd / *io were taken. */
static void expect_faults(unsigned int node, uint64_t *rd, uint64_t *io,
			  uint64_t n)
{
	uint64_t r = rnic_verbs_dma_rd_errors(node);
	uint64_t f = rnic_verbs_iommu_faults(node);

	CHECK_EQ(r - *rd, n);
	CHECK_EQ(f - *io, n);
	*rd = r;
	*io = f;
}

/*
 * The requester's error completion may come before its earlier frames are
 * placed at the responder. A SEND on a second QP pair, posted after it,
 * enters the wire behind them: once it is received, they are placed.
 */
static void sync_peer(struct t_pair *p, struct t_buf *src, struct t_buf *dst)
{
	struct t_pair_cfg cfg;
	struct ibv_qp *a, *b;
	struct ibv_sge sg;
	struct ibv_wc wc;

	t_pair_default_cfg(&cfg);
	a = t_create_rc_qp(p->s[0].pd, p->s[0].scq, p->s[0].rcq, &cfg.caps,
			   NULL);
	b = t_create_rc_qp(p->s[1].pd, p->s[1].scq, p->s[1].rcq, &cfg.caps,
			   NULL);
	t_connect_qps(a, b, IBV_MTU_1024, 0x500, 0x600);
	sg = t_sge(dst, dst->len - 16, 16);
	POST_RECV(b, 900, &sg, 1);
	sg = t_sge(src, 0, 16);
	POST_SEND(a, 901, IBV_WR_SEND, IBV_SEND_SIGNALED, &sg, 1, 0, 0, 0);
	POLL(p->s[1].rcq, 1, &wc);
	EXPECT_WC(&wc, 900, IBV_WC_SUCCESS, IBV_WC_RECV, b->qp_num, 16, T_ANY,
		  T_ANY);
	POLL(p->s[0].scq, 1, &wc);
	EXPECT_WC(&wc, 901, IBV_WC_SUCCESS, IBV_WC_SEND, a->qp_num, T_ANY,
		  T_ANY, T_ANY);
	CHECK_OK(ibv_destroy_qp(a));
	CHECK_OK(ibv_destroy_qp(b));
}

/*
 * Two signaled SENDs in one post, the first from @bad (on a page that is
 * out), the second from @good: the first fails with IBV_WC_GENERAL_ERR,
 * the second is flushed, the QP is then in @st. With an address handle
 * (UD) they go to QPN @rqpn.
 */
static void send_fails_next_flushed(struct t_pair *p, struct t_buf *src,
				    size_t bad, size_t good, uint64_t id,
				    uint32_t rqpn, enum ibv_qp_state st)
{
	struct ibv_send_wr wr[2], *bad_wr = NULL;
	uint32_t qpn0 = p->s[0].qp->qp_num;
	struct ibv_sge sge[2];
	struct ibv_wc wc[2];
	int i;

	memset(wr, 0, sizeof(wr));
	for (i = 0; i < 2; i++) {
		sge[i] = t_sge(src, i ? good : bad, 200);
		wr[i].wr_id = id + (uint64_t)i;
		wr[i].sg_list = &sge[i];
		wr[i].num_sge = 1;
		wr[i].opcode = IBV_WR_SEND;
		wr[i].send_flags = IBV_SEND_SIGNALED;
		wr[i].wr.ud.ah = p->s[0].ah;
		wr[i].wr.ud.remote_qpn = rqpn;
		wr[i].wr.ud.remote_qkey = QKEY;
		wr[i].next = i ? NULL : &wr[1];
	}
	CHECK_OK(ibv_post_send(p->s[0].qp, wr, &bad_wr));
	POLL(p->s[0].scq, 2, wc);
	EXPECT_WC(&wc[0], id, IBV_WC_GENERAL_ERR, T_ANY, qpn0, T_ANY, T_ANY,
		  T_ANY);
	CHECK_EQ(wc[0].vendor_err, VEND_DMA_FAULT);
	/* The second WR's page is mapped, but it comes after the error. */
	EXPECT_WC(&wc[1], id + 1, IBV_WC_WR_FLUSH_ERR, T_ANY, qpn0, T_ANY,
		  T_ANY, T_ANY);
	CHECK_EQ(t_qp_state(p->s[0].qp), st);
}

static void rc_send(int loopback)
{
	struct t_pair_cfg cfg;
	struct t_buf src, dst;
	struct t_pair p;
	struct ibv_sge sg;
	uint64_t rd, io;

	t_pair_default_cfg(&cfg);
	cfg.loopback = loopback;
	t_pair_open(&p, &cfg);
	t_buf_alloc(&src, p.s[0].pd, 2 * PAGE);
	t_buf_alloc(&dst, p.s[1].pd, PAGE);
	t_fill(src.p, 2 * PAGE, 0x5e5e);
	memset(dst.p, CANARY, PAGE);
	rd = rnic_verbs_dma_rd_errors(0);
	io = rnic_verbs_iommu_faults(0);

	sg = t_sge(&dst, 0, 512);
	POST_RECV(p.s[1].qp, 100, &sg, 1);
	CHECK_OK(rnic_verbs_mr_dma_fault(src.mr, PAGE, PAGE, 1));
	send_fails_next_flushed(&p, &src, PAGE, 0, 10, 0, IBV_QPS_ERR);
	/* The second WR's frame may have left: the responder refuses it (PSN
	 * gap) and its receive stays posted. */
	expect_faults(0, &rd, &io, 1);
	EXPECT_EMPTY(p.s[1].rcq, T_EMPTY_POLLS);
	CHECK_FILL(dst.p, CANARY, PAGE);
	CHECK_EQ(t_qp_state(p.s[1].qp), IBV_QPS_RTS);
	CHECK_OK(rnic_verbs_mr_dma_fault(src.mr, PAGE, PAGE, 0));
	printf("rc_send: GENERAL_ERR (vendor_err 0x%x), next WR flushed, "
	       "nothing reached the peer: ok\n", VEND_DMA_FAULT);

	t_buf_free(&src);
	t_buf_free(&dst);
	t_pair_close(&p);
}

static void rc_write(int loopback)
{
	struct t_pair_cfg cfg;
	struct t_buf src, dst;
	struct t_pair p;
	struct ibv_sge sg;
	struct ibv_wc wc;
	uint64_t rd, io;

	t_pair_default_cfg(&cfg);
	cfg.loopback = loopback;
	cfg.mtu = IBV_MTU_4096;
	t_pair_open(&p, &cfg);
	t_buf_alloc(&src, p.s[0].pd, 3 * PAGE);
	t_buf_alloc(&dst, p.s[1].pd, 4 * PAGE);
	t_fill(src.p, 3 * PAGE, 0x3a3a);
	memset(dst.p, CANARY, 4 * PAGE);
	rd = rnic_verbs_dma_rd_errors(0);
	io = rnic_verbs_iommu_faults(0);

	CHECK_OK(rnic_verbs_mr_dma_fault(src.mr, PAGE + 10, 20, 1));
	sg = t_sge(&src, 0, 3 * PAGE);
	POST_SEND(p.s[0].qp, 20, IBV_WR_RDMA_WRITE, IBV_SEND_SIGNALED, &sg, 1,
		  t_addr(&dst, 0), dst.mr->rkey, 0);
	POLL(p.s[0].scq, 1, &wc);
	EXPECT_WC(&wc, 20, IBV_WC_GENERAL_ERR, T_ANY, p.s[0].qp->qp_num, T_ANY,
		  T_ANY, T_ANY);
	CHECK_EQ(wc.vendor_err, VEND_DMA_FAULT);
	CHECK_EQ(t_qp_state(p.s[0].qp), IBV_QPS_ERR);
	expect_faults(0, &rd, &io, 1);
	sync_peer(&p, &src, &dst);	/* into dst's fourth page */
	CHECK_MEM(dst.p, src.p, PAGE);
	CHECK_FILL(dst.p + PAGE, CANARY, 2 * PAGE);
	CHECK_EQ(t_qp_state(p.s[1].qp), IBV_QPS_RTS);
	CHECK_OK(rnic_verbs_mr_dma_fault(src.mr, 0, 1, 0));
	printf("rc_write: packet 1 landed, 2 not sent, 3 refused; "
	       "GENERAL_ERR: ok\n");

	t_buf_free(&src);
	t_buf_free(&dst);
	t_pair_close(&p);
}

static void ud_send(int loopback)
{
	struct t_buf src, rbuf0, rbuf1, src1;
	struct ibv_qp_attr attr;
	struct t_pair_cfg cfg;
	uint32_t qpn0, qpn1;
	struct ibv_wc wc[2];
	struct t_pair p;
	struct ibv_sge sg;
	uint64_t rd, io;

	t_pair_default_cfg(&cfg);
	cfg.loopback = loopback;
	cfg.qp_type = IBV_QPT_UD;
	cfg.qkey = QKEY;
	t_pair_open(&p, &cfg);
	qpn0 = p.s[0].qp->qp_num;
	qpn1 = p.s[1].qp->qp_num;
	t_buf_alloc(&src, p.s[0].pd, 2 * PAGE);
	t_buf_alloc(&rbuf0, p.s[0].pd, PAGE);
	t_buf_alloc(&rbuf1, p.s[1].pd, PAGE);
	t_buf_alloc(&src1, p.s[1].pd, PAGE);
	t_fill(src.p, 2 * PAGE, 0x7070);
	t_fill(src1.p, PAGE, 0x7171);
	memset(rbuf1.p, CANARY, PAGE);
	memset(rbuf0.p, CANARY, PAGE);
	rd = rnic_verbs_dma_rd_errors(0);
	io = rnic_verbs_iommu_faults(0);

	CHECK_OK(rnic_verbs_mr_dma_fault(src.mr, 0, PAGE, 1));
	/* The second frame may leave: the peer has no receive posted yet,
	 * so it is dropped there. */
	send_fails_next_flushed(&p, &src, 64, 64 + PAGE, 30, qpn1,
				IBV_QPS_SQE);
	expect_faults(0, &rd, &io, 1);
	printf("ud_send: GENERAL_ERR, QP in SQE, next WR flushed: ok\n");

	/* In SQE the receive queue goes on. */
	sg = t_sge(&rbuf0, 0, PAGE);
	POST_RECV(p.s[0].qp, 200, &sg, 1);
	sg = t_sge(&src1, 0, 123);
	POST_UD_SEND(p.s[1].qp, 40, IBV_WR_SEND, IBV_SEND_SIGNALED, &sg, 1,
		     p.s[1].ah, qpn0, QKEY, 0);
	POLL(p.s[0].rcq, 1, wc);
	EXPECT_WC(&wc[0], 200, IBV_WC_SUCCESS, IBV_WC_RECV, qpn0, 123 + GRH,
		  T_ANY, T_ANY);
	CHECK_MEM(rbuf0.p + GRH, src1.p, 123);
	POLL(p.s[1].scq, 1, wc);
	EXPECT_WC(&wc[0], 40, IBV_WC_SUCCESS, IBV_WC_SEND, qpn1, T_ANY, T_ANY,
		  T_ANY);

	/* The page back and SQE -> RTS: the same buffer is sent. */
	sg = t_sge(&rbuf1, 0, PAGE);
	POST_RECV(p.s[1].qp, 100, &sg, 1);
	CHECK_OK(rnic_verbs_mr_dma_fault(src.mr, 0, PAGE, 0));
	memset(&attr, 0, sizeof(attr));
	attr.qp_state = IBV_QPS_RTS;
	attr.cur_qp_state = IBV_QPS_SQE;
	CHECK_OK(ibv_modify_qp(p.s[0].qp, &attr,
			       IBV_QP_STATE | IBV_QP_CUR_STATE));
	sg = t_sge(&src, 64, 300);
	POST_UD_SEND(p.s[0].qp, 32, IBV_WR_SEND, IBV_SEND_SIGNALED, &sg, 1,
		     p.s[0].ah, qpn1, QKEY, 0);
	POLL(p.s[0].scq, 1, wc);
	EXPECT_WC(&wc[0], 32, IBV_WC_SUCCESS, IBV_WC_SEND, qpn0, T_ANY, T_ANY,
		  T_ANY);
	POLL(p.s[1].rcq, 1, wc);
	EXPECT_WC(&wc[0], 100, IBV_WC_SUCCESS, IBV_WC_RECV, qpn1, 300 + GRH,
		  T_ANY, T_ANY);
	CHECK_MEM(rbuf1.p + GRH, src.p + 64, 300);
	expect_faults(0, &rd, &io, 0);
	printf("ud_send: receives go on in SQE; page back, SQE -> RTS, "
	       "send ok: ok\n");

	t_buf_free(&src);
	t_buf_free(&rbuf0);
	t_buf_free(&rbuf1);
	t_buf_free(&src1);
	t_pair_close(&p);
}

static void read_resp(int loopback)
{
	struct t_pair_cfg cfg;
	struct t_buf loc, dst;
	unsigned int rnode;
	struct t_pair p;
	struct ibv_sge sg;
	struct ibv_wc wc;
	uint64_t rd, io;

	t_pair_default_cfg(&cfg);
	cfg.loopback = loopback;
	cfg.attrs[0].timeout = 1;
	cfg.attrs[0].retry_cnt = 2;
	t_pair_open(&p, &cfg);
	rnode = node_of(&p, 1);
	t_buf_alloc(&loc, p.s[0].pd, PAGE);
	t_buf_alloc(&dst, p.s[1].pd, PAGE);
	t_fill(dst.p, PAGE, 0x2d2d);
	memset(loc.p, CANARY, PAGE);
	rd = rnic_verbs_dma_rd_errors(rnode);
	io = rnic_verbs_iommu_faults(rnode);

	CHECK_OK(rnic_verbs_mr_dma_fault(dst.mr, 0, PAGE, 1));
	sg = t_sge(&loc, 0, 256);
	POST_SEND(p.s[0].qp, 50, IBV_WR_RDMA_READ, IBV_SEND_SIGNALED, &sg, 1,
		  t_addr(&dst, 0), dst.mr->rkey, 0);
	POLL(p.s[0].scq, 1, &wc);
	EXPECT_WC(&wc, 50, IBV_WC_RETRY_EXC_ERR, T_ANY, p.s[0].qp->qp_num,
		  T_ANY, T_ANY, T_ANY);
	/* The first try and retry_cnt retries, each refused. */
	expect_faults(rnode, &rd, &io, 3);
	CHECK_FILL(loc.p, CANARY, PAGE);
	CHECK_EQ(t_qp_state(p.s[0].qp), IBV_QPS_ERR);
	CHECK_OK(rnic_verbs_mr_dma_fault(dst.mr, 0, PAGE, 0));
	printf("read_resp: no response leaves, RETRY_EXC_ERR after 3 tries: "
	       "ok\n");

	t_buf_free(&loc);
	t_buf_free(&dst);
	t_pair_close(&p);
}

static void atomic_resp(int loopback)
{
	unsigned int acc = T_MR_ACCESS | IBV_ACCESS_REMOTE_ATOMIC;
	struct t_pair_cfg cfg;
	struct t_buf loc, dst;
	unsigned int rnode;
	struct t_pair p;
	struct ibv_sge sg;
	struct ibv_wc wc;
	uint64_t io, v = 41;

	t_pair_default_cfg(&cfg);
	cfg.loopback = loopback;
	cfg.attrs[0].access |= IBV_ACCESS_REMOTE_ATOMIC;
	cfg.attrs[1].access |= IBV_ACCESS_REMOTE_ATOMIC;
	t_pair_open(&p, &cfg);
	rnode = node_of(&p, 1);
	t_buf_alloc_access(&loc, p.s[0].pd, PAGE, acc);
	t_buf_alloc_access(&dst, p.s[1].pd, PAGE, acc);
	memcpy(dst.p, &v, 8);
	memset(loc.p, CANARY, PAGE);
	io = rnic_verbs_iommu_faults(rnode);

	CHECK_OK(rnic_verbs_mr_dma_fault(dst.mr, 0, PAGE, 1));
	sg = t_sge(&loc, 0, 8);
	POST_ATOMIC(p.s[0].qp, 60, IBV_WR_ATOMIC_FETCH_AND_ADD, IBV_SEND_SIGNALED, &sg,
		    t_addr(&dst, 0), dst.mr->rkey, 1, 0);
	POLL(p.s[0].scq, 1, &wc);
	EXPECT_WC(&wc, 60, IBV_WC_REM_ACCESS_ERR, T_ANY, p.s[0].qp->qp_num,
		  T_ANY, T_ANY, T_ANY);
	CHECK_EQ(rnic_verbs_iommu_faults(rnode) - io, 1);
	CHECK_FILL(loc.p, CANARY, PAGE);
	CHECK_EQ(t_qp_state(p.s[1].qp), IBV_QPS_ERR);
	CHECK_OK(rnic_verbs_mr_dma_fault(dst.mr, 0, PAGE, 0));
	memcpy(&v, dst.p, 8);
	CHECK_EQ(v, 41);
	printf("atomic_resp: the responder's read is refused, REM_ACCESS_ERR, "
	       "nothing added: ok\n");

	t_buf_free(&loc);
	t_buf_free(&dst);
	t_pair_close(&p);
}

int main(void)
{
	int loopback;

	for (loopback = 0; loopback < 2; loopback++) {
		printf("-- %s\n", loopback ? "loopback" : "two nodes");
		rc_send(loopback);
		rc_write(loopback);
		ud_send(loopback);
		read_resp(loopback);
		atomic_resp(loopback);
	}
	printf("sys_dma_fault: passed\n");
	return 0;
}
