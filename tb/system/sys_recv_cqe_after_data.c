// SPDX-License-Identifier: MIT
/*
 * sys_recv_cqe_after_data.c - a receive completion becomes visible only
 * after every byte of its message is in host memory.
 *
 * Placement writes each receive SGE as its own DMA write and runs behind the
 * transport engine, which queues the completion as soon as it has handed the
 * payload over. One 4 KiB SEND (path MTU 4096, one frame) lands in a receive
 * of four SGEs; the test checks the bytes of every SGE in the very poll that
 * returns the completion, for several SGE splits.
 */
#define _DEFAULT_SOURCE

#include "common.h"

#include <stdio.h>
#include <string.h>

#define LEN 4096
#define NSGE 4

int main(void)
{
	static const uint32_t splits[][NSGE] = {
		{ 1024, 1024, 1024, 1024 },
		{ 1, 33, 4000, 62 },
		{ 3000, 1000, 64, 32 },
		{ 100, 3900, 48, 48 },
	};
	struct t_pair_cfg cfg;
	struct t_pair p;
	struct t_buf src, dst;
	struct ibv_sge rsg[NSGE], ssg;
	struct ibv_wc wc;
	uint32_t qpn1;
	unsigned int r;

	t_pair_default_cfg(&cfg);
	cfg.mtu = IBV_MTU_4096;
	cfg.caps.max_recv_sge = NSGE;
	t_pair_open(&p, &cfg);
	qpn1 = p.s[1].qp->qp_num;
	t_buf_alloc(&src, p.s[0].pd, LEN);
	t_buf_alloc(&dst, p.s[1].pd, 2 * LEN);

	for (r = 0; r < sizeof(splits) / sizeof(splits[0]); r++) {
		size_t off = 0, gap = 0;
		int i;

		t_fill(src.p, LEN, 0xd100 + r);
		memset(dst.p, 0, 2 * LEN);
		/* SGEs with gaps between them, so each is its own write. */
		for (i = 0; i < NSGE; i++) {
			rsg[i] = t_sge(&dst, off + gap, splits[r][i]);
			off += splits[r][i];
			gap += 16;
		}
		POST_RECV(p.s[1].qp, 50 + r, rsg, NSGE);
		ssg = t_sge(&src, 0, LEN);
		POST_SEND(p.s[0].qp, 60 + r, IBV_WR_SEND, IBV_SEND_SIGNALED,
			  &ssg, 1, 0, 0, 0);

		POLL(p.s[1].rcq, 1, &wc);
		EXPECT_WC(&wc, 50 + r, IBV_WC_SUCCESS, IBV_WC_RECV, qpn1, LEN,
			  0, T_ANY);
		off = 0;
		for (i = 0; i < NSGE; i++) {
			CHECK_MEM(dst.p + rsg[i].addr - t_addr(&dst, 0),
				  src.p + off, splits[r][i]);
			off += splits[r][i];
		}
		POLL(p.s[0].scq, 1, &wc);
		EXPECT_WC(&wc, 60 + r, IBV_WC_SUCCESS, IBV_WC_SEND,
			  p.s[0].qp->qp_num, T_ANY, T_ANY, T_ANY);
		printf("split %u/%u/%u/%u: data in place at the completion\n",
		       splits[r][0], splits[r][1], splits[r][2], splits[r][3]);
	}

	t_buf_free(&src);
	t_buf_free(&dst);
	t_pair_close(&p);
	printf("sys_recv_cqe_after_data: passed\n");
	return 0;
}
