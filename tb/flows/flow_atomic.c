// SPDX-License-Identifier: MIT
/*
 * flow_atomic.c - one IBV_WR_ATOMIC_FETCH_AND_ADD, rnic0 -> rnic1 memory:
 * doorbell, WQE fetch, the FETCH_ADD request frame (AtomicETH), the
 * responder's rkey check and its read-modify-write of the 8 bytes, the
 * ATOMIC_ACKNOWLEDGE frame with the original value (AtomicAckETH), its
 * placement into the local SGE, the send CQE.
 */
#define _DEFAULT_SOURCE

#include "flow_common.h"

#include <stdio.h>
#include <string.h>

#define TARGET 0x100	/* offset of the 8 bytes in rnic1's buffer */

static uint64_t get64(const uint8_t *p)
{
	uint64_t v;

	memcpy(&v, p, 8);
	return v;
}

int main(void)
{
	unsigned int access = T_MR_ACCESS | IBV_ACCESS_REMOTE_ATOMIC;
	uint64_t before = 0x0123456789abcdefULL, add = 0x1000;
	struct t_pair_cfg cfg;
	struct ibv_wc wc;
	struct ibv_sge sg;
	struct flow f;
	int i;

	t_pair_default_cfg(&cfg);
	for (i = 0; i < 2; i++)
		cfg.attrs[i].access |= IBV_ACCESS_REMOTE_ATOMIC;
	flow_open_cfg(&f, &cfg, access, 0xa7, 0);
	memset(f.src.p, 0xee, 8);
	memcpy(f.dst.p + TARGET, &before, 8);

	sg = t_sge(&f.src, 0, 8);
	POST_ATOMIC(f.p.s[0].qp, 1, IBV_WR_ATOMIC_FETCH_AND_ADD, IBV_SEND_SIGNALED, &sg,
		    t_addr(&f.dst, TARGET), f.dst.mr->rkey, add, 0);
	POLL(f.p.s[0].scq, 1, &wc);
	EXPECT_WC(&wc, 1, IBV_WC_SUCCESS, IBV_WC_FETCH_ADD, f.qpn0, 8, 0, T_ANY);
	CHECK_EQ(get64(f.src.p), before);
	CHECK_EQ(get64(f.dst.p + TARGET), before + add);

	flow_close(&f);
	printf("flow_atomic: FETCH_AND_ADD rnic0 -> rnic1: original value returned, memory added, completion ok\n");
	return 0;
}
