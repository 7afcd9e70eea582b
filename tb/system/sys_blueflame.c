// SPDX-License-Identifier: MIT
/*
 * sys_blueflame.c - WQEs written through the doorbell page (RNIC_BLUEFLAME=1,
 * libverbs/knobs.c; rtl/sq/rnic_sq_fetch.sv). CTest runs it twice: with
 * RNIC_BLUEFLAME=1 (sys_blueflame) and without (sys_blueflame_off); the
 * bytes and completions must be the same, only the time differs.
 *
 *   write_latency  a single 8-byte RDMA WRITE (one 64-byte WQE): post -> CQE
 *                  with BlueFlame at least 40 cycles below the 215 of the
 *                  WQE fetched by DMA (the 50-cycle WQE read is skipped;
 *                  the eight WQE words cost eight more MMIO cycles); without
 *                  it exactly 215
 *   ops            SEND (to a posted receive), WRITE, READ and FETCH_AND_ADD,
 *                  one per ibv_post_send: bytes, counter and completions
 *   chain          a chain of 3 WRITEs in one call (not one WQE: fetched by
 *                  DMA) to different offsets: every byte lands
 *   two_qps        single WRITEs on two QPs posted back to back, 50 times:
 *                  the second QP's words replace the first's in the buffer
 *                  before its WQE is fetched, so that one is read by DMA;
 *                  every byte and completion is right
 */
#define _DEFAULT_SOURCE

#include "common.h"
#include "rnic_verbs_ext.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define LEN 4096
/* An 8-byte WRITE's post -> CQE with the defaults (docs/performance.md). */
#define WRITE8_POST_CQE 215

static int bf_on;

struct res {
	struct t_pair p;
	struct t_buf src, dst;
};

static void open_res(struct res *r)
{
	struct t_pair_cfg cfg;

	t_pair_default_cfg(&cfg);
	cfg.attrs[0].access |= IBV_ACCESS_REMOTE_ATOMIC;
	cfg.attrs[1].access |= IBV_ACCESS_REMOTE_ATOMIC;
	t_pair_open(&r->p, &cfg);
	t_buf_alloc_access(&r->src, r->p.s[0].pd, LEN, T_MR_ACCESS | IBV_ACCESS_REMOTE_ATOMIC);
	t_buf_alloc_access(&r->dst, r->p.s[1].pd, LEN, T_MR_ACCESS | IBV_ACCESS_REMOTE_ATOMIC);
	t_fill(r->src.p, LEN, 0xb1f);
	memset(r->dst.p, 0, LEN);
}

static void close_res(struct res *r)
{
	t_buf_free(&r->src);
	t_buf_free(&r->dst);
	t_pair_close(&r->p);
}

static void expect_send_wc(struct res *r, uint64_t id, enum ibv_wc_opcode op)
{
	struct ibv_wc wc;

	POLL(r->p.s[0].scq, 1, &wc);
	EXPECT_WC(&wc, id, IBV_WC_SUCCESS, op, r->p.s[0].qp->qp_num, T_ANY, T_ANY, T_ANY);
}

static void write_latency(void)
{
	struct res r;
	uint64_t c0, lat;
	int i;

	open_res(&r);
	for (i = 0; i < 3; i++) {
		struct ibv_sge sg = t_sge(&r.src, 8 * i, 8);

		c0 = rnic_verbs_sim_cycle();
		POST_SEND(r.p.s[0].qp, i, IBV_WR_RDMA_WRITE, IBV_SEND_SIGNALED, &sg, 1,
			  t_addr(&r.dst, 8 * i), r.dst.mr->rkey, 0);
		expect_send_wc(&r, i, IBV_WC_RDMA_WRITE);
		lat = rnic_verbs_sim_cycle() - c0;
		if (bf_on)
			CHECKF(lat <= WRITE8_POST_CQE - 40, "post -> CQE %llu cycles with BlueFlame",
			       (unsigned long long)lat);
		else
			CHECKF(lat == WRITE8_POST_CQE, "post -> CQE %llu cycles without BlueFlame",
			       (unsigned long long)lat);
	}
	CHECK_MEM(r.dst.p, r.src.p, 24);
	close_res(&r);
	printf("write_latency: ok (%llu cycles, BlueFlame %s)\n", (unsigned long long)lat,
	       bf_on ? "on" : "off");
}

static void ops(void)
{
	struct ibv_sge sg;
	struct ibv_wc wc;
	struct res r;
	uint64_t v;

	open_res(&r);
	/* SEND of 100 bytes into a receive at dst + 1024. */
	sg = t_sge(&r.dst, 1024, 256);
	POST_RECV(r.p.s[1].qp, 7, &sg, 1);
	sg = t_sge(&r.src, 0, 100);
	POST_SEND(r.p.s[0].qp, 1, IBV_WR_SEND, IBV_SEND_SIGNALED, &sg, 1, 0, 0, 0);
	expect_send_wc(&r, 1, IBV_WC_SEND);
	POLL(r.p.s[1].rcq, 1, &wc);
	EXPECT_WC(&wc, 7, IBV_WC_SUCCESS, IBV_WC_RECV, r.p.s[1].qp->qp_num, 100, T_ANY, T_ANY);
	CHECK_MEM(r.dst.p + 1024, r.src.p, 100);
	/* WRITE of 300 bytes to dst + 2048. */
	sg = t_sge(&r.src, 200, 300);
	POST_SEND(r.p.s[0].qp, 2, IBV_WR_RDMA_WRITE, IBV_SEND_SIGNALED, &sg, 1,
		  t_addr(&r.dst, 2048), r.dst.mr->rkey, 0);
	expect_send_wc(&r, 2, IBV_WC_RDMA_WRITE);
	CHECK_MEM(r.dst.p + 2048, r.src.p + 200, 300);
	/* READ of those 300 bytes back to src + 3000. */
	sg = t_sge(&r.src, 3000, 300);
	POST_SEND(r.p.s[0].qp, 3, IBV_WR_RDMA_READ, IBV_SEND_SIGNALED, &sg, 1,
		  t_addr(&r.dst, 2048), r.dst.mr->rkey, 0);
	expect_send_wc(&r, 3, IBV_WC_RDMA_READ);
	CHECK_MEM(r.src.p + 3000, r.src.p + 200, 300);
	/* FETCH_AND_ADD 5 on the counter at dst + 3584 (was 0). */
	{
		struct ibv_send_wr wr, *bad;

		sg = t_sge(&r.src, 3584, 8);
		memset(&wr, 0, sizeof(wr));
		wr.wr_id = 4;
		wr.sg_list = &sg;
		wr.num_sge = 1;
		wr.opcode = IBV_WR_ATOMIC_FETCH_AND_ADD;
		wr.send_flags = IBV_SEND_SIGNALED;
		wr.wr.atomic.remote_addr = t_addr(&r.dst, 3584);
		wr.wr.atomic.rkey = r.dst.mr->rkey;
		wr.wr.atomic.compare_add = 5;
		CHECK_OK(ibv_post_send(r.p.s[0].qp, &wr, &bad));
	}
	expect_send_wc(&r, 4, IBV_WC_FETCH_ADD);
	memcpy(&v, r.dst.p + 3584, 8);
	CHECK_EQ(v, 5);
	memcpy(&v, r.src.p + 3584, 8);
	CHECK_EQ(v, 0);
	close_res(&r);
	printf("ops: ok\n");
}

static void chain(void)
{
	struct ibv_send_wr wr[3], *bad;
	struct ibv_sge sg[3];
	struct res r;
	int i;

	open_res(&r);
	memset(wr, 0, sizeof(wr));
	for (i = 0; i < 3; i++) {
		sg[i] = t_sge(&r.src, 512 * i, 64 + i);
		wr[i].wr_id = 10 + i;
		wr[i].sg_list = &sg[i];
		wr[i].num_sge = 1;
		wr[i].opcode = IBV_WR_RDMA_WRITE;
		wr[i].send_flags = IBV_SEND_SIGNALED;
		wr[i].wr.rdma.remote_addr = t_addr(&r.dst, 512 * i);
		wr[i].wr.rdma.rkey = r.dst.mr->rkey;
		wr[i].next = i < 2 ? &wr[i + 1] : NULL;
	}
	CHECK_OK(ibv_post_send(r.p.s[0].qp, wr, &bad));
	for (i = 0; i < 3; i++) {
		expect_send_wc(&r, 10 + i, IBV_WC_RDMA_WRITE);
		CHECK_MEM(r.dst.p + 512 * i, r.src.p + 512 * i, 64 + i);
	}
	close_res(&r);
	printf("chain: ok\n");
}

static void two_qps(void)
{
	struct res a, b;
	int i;

	open_res(&a);
	open_res(&b);
	t_fill(b.src.p, LEN, 0x2b1f);
	for (i = 0; i < 50; i++) {
		struct ibv_sge sa = t_sge(&a.src, 64 * i, 40), sb = t_sge(&b.src, 64 * i, 48);

		POST_SEND(a.p.s[0].qp, 100 + i, IBV_WR_RDMA_WRITE, IBV_SEND_SIGNALED, &sa, 1,
			  t_addr(&a.dst, 64 * i), a.dst.mr->rkey, 0);
		POST_SEND(b.p.s[0].qp, 200 + i, IBV_WR_RDMA_WRITE, IBV_SEND_SIGNALED, &sb, 1,
			  t_addr(&b.dst, 64 * i), b.dst.mr->rkey, 0);
		expect_send_wc(&a, 100 + i, IBV_WC_RDMA_WRITE);
		expect_send_wc(&b, 200 + i, IBV_WC_RDMA_WRITE);
		CHECK_MEM(a.dst.p + 64 * i, a.src.p + 64 * i, 40);
		CHECK_MEM(b.dst.p + 64 * i, b.src.p + 64 * i, 48);
	}
	close_res(&b);
	close_res(&a);
	printf("two_qps: ok\n");
}

int main(void)
{
	const char *e = getenv("RNIC_BLUEFLAME");

	bf_on = e && *e && strcmp(e, "0");
	write_latency();
	ops();
	chain();
	two_qps();
	return 0;
}
