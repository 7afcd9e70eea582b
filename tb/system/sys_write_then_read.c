// SPDX-License-Identifier: MIT
/*
 * sys_write_then_read.c - a READ posted right behind WRITEs to the same
 * remote bytes returns the written data.
 *
 * The responder's placement runs behind its transport engine, so a READ
 * request can reach the engine while the payload of the WRITEs before it is
 * still being written to host memory. The READ must see those bytes (IBA
 * ordering on one QP). Each round posts three 4 KiB WRITEs (path MTU 4096:
 * one frame each, whose placement takes 128 cycles) and a READ of the bytes
 * of the last WRITE in one ibv_post_send call, nothing polled in between,
 * then checks that the READ returned the new bytes and that remote memory
 * holds them.
 */
#define _DEFAULT_SOURCE

#include "common.h"

#include <stdio.h>
#include <string.h>

#define CHUNK 4096
#define NWRITE 3
#define LEN (NWRITE * CHUNK)

int main(void)
{
	struct t_pair_cfg cfg;
	struct t_pair p;
	struct t_buf src, back, rem;
	struct ibv_send_wr wr[NWRITE + 1], *bad;
	struct ibv_sge sg[NWRITE + 1];
	struct ibv_wc wc[NWRITE + 1];
	uint32_t qpn0;
	int round, i;

	t_pair_default_cfg(&cfg);
	cfg.mtu = IBV_MTU_4096;
	t_pair_open(&p, &cfg);
	qpn0 = p.s[0].qp->qp_num;
	t_buf_alloc(&src, p.s[0].pd, LEN);
	t_buf_alloc(&back, p.s[0].pd, LEN);
	t_buf_alloc(&rem, p.s[1].pd, LEN);

	for (round = 0; round < 4; round++) {
		t_fill(src.p, LEN, 0xc100 + round);
		t_fill(rem.p, LEN, 0xc200 + round);	/* old bytes */
		memset(back.p, 0, LEN);

		memset(wr, 0, sizeof(wr));
		for (i = 0; i <= NWRITE; i++) {
			int rd = i == NWRITE;

			sg[i] = rd ? t_sge(&back, 0, CHUNK) :
				     t_sge(&src, (size_t)i * CHUNK, CHUNK);
			wr[i].wr_id = 100 * round + i;
			wr[i].sg_list = &sg[i];
			wr[i].num_sge = 1;
			wr[i].opcode = rd ? IBV_WR_RDMA_READ : IBV_WR_RDMA_WRITE;
			wr[i].send_flags = IBV_SEND_SIGNALED;
			wr[i].wr.rdma.remote_addr =
				t_addr(&rem, (size_t)(rd ? NWRITE - 1 : i) * CHUNK);
			wr[i].wr.rdma.rkey = rem.mr->rkey;
			wr[i].next = rd ? NULL : &wr[i + 1];
		}
		CHECK(ibv_post_send(p.s[0].qp, wr, &bad) == 0);

		POLL(p.s[0].scq, NWRITE + 1, wc);
		for (i = 0; i < NWRITE; i++)
			EXPECT_WC(&wc[i], 100 * round + i, IBV_WC_SUCCESS,
				  IBV_WC_RDMA_WRITE, qpn0, T_ANY, T_ANY, T_ANY);
		EXPECT_WC(&wc[NWRITE], 100 * round + NWRITE, IBV_WC_SUCCESS,
			  IBV_WC_RDMA_READ, qpn0, CHUNK, 0, T_ANY);

		CHECK_MEM(rem.p, src.p, LEN);
		CHECK_MEM(back.p, src.p + (NWRITE - 1) * CHUNK, CHUNK);
		printf("round %d: READ behind %d WRITEs returned the written bytes\n",
		       round, NWRITE);
	}

	t_buf_free(&src);
	t_buf_free(&back);
	t_buf_free(&rem);
	t_pair_close(&p);
	printf("sys_write_then_read: passed\n");
	return 0;
}
