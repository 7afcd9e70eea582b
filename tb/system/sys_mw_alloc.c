// SPDX-License-Identifier: MIT
/*
 * sys_mw_alloc.c - memory window objects (ibv_alloc_mw(3), ibv_bind_mw(3)),
 * what the verbs check before anything reaches the hardware:
 *
 *   device_caps         ibv_query_device: max_mw > 0 and IBV_DEVICE_MEM_WINDOW
 *                       with IBV_DEVICE_MEM_WINDOW_TYPE_2B in device_cap_flags;
 *   alloc_dealloc       type 1 and type 2 windows: context, pd, type set, an
 *                       rkey different from every MR's and window's;
 *                       dealloc returns 0;
 *   alloc_bad_type      type 3: NULL with errno EINVAL;
 *   pd_busy             ibv_dealloc_pd() with a window allocated: EBUSY; 0
 *                       once the window is gone;
 *   mw_bind_access      ibv_reg_mr() takes IBV_ACCESS_MW_BIND;
 *   bind_mw_checks      ibv_bind_mw() refuses a type 2 window (EINVAL), an
 *                       MR of another PD (EPERM), an address without an MR
 *                       (EINVAL) - before anything is posted (no completion).
 */
#define _DEFAULT_SOURCE

#include "common.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#define N_MW 8

int main(void)
{
	unsigned int acc = T_MR_ACCESS | IBV_ACCESS_MW_BIND;
	struct ibv_mw *mw[N_MW], *m1, *m2;
	struct ibv_device_attr da;
	struct t_pair_cfg cfg;
	struct ibv_mw_bind mb;
	struct t_buf b, b2;
	struct ibv_pd *pd2;
	struct t_pair p;
	int i, j;

	t_pair_default_cfg(&cfg);
	t_pair_open(&p, &cfg);

	/* device_caps */
	CHECK_OK(ibv_query_device(p.s[0].ctx, &da));
	CHECK(da.max_mw > 0);
	CHECK(da.device_cap_flags & IBV_DEVICE_MEM_WINDOW);
	CHECK(da.device_cap_flags & IBV_DEVICE_MEM_WINDOW_TYPE_2B);
	printf("device_caps: max_mw %d: ok\n", da.max_mw);

	/* mw_bind_access */
	t_buf_alloc_access(&b, p.s[0].pd, 4096, acc);
	printf("mw_bind_access: ok\n");

	/* alloc_dealloc */
	for (i = 0; i < N_MW; i++) {
		enum ibv_mw_type t = (i & 1) ? IBV_MW_TYPE_1 : IBV_MW_TYPE_2;

		mw[i] = CHECK_PTR(ibv_alloc_mw(p.s[0].pd, t));
		CHECK(mw[i]->context == p.s[0].ctx);
		CHECK(mw[i]->pd == p.s[0].pd);
		CHECK_EQ(mw[i]->type, t);
		CHECK(mw[i]->rkey != b.mr->rkey && mw[i]->rkey != b.mr->lkey);
		for (j = 0; j < i; j++)
			CHECK(mw[i]->rkey != mw[j]->rkey);
	}
	for (i = 0; i < N_MW; i++)
		CHECK_OK(ibv_dealloc_mw(mw[i]));
	printf("alloc_dealloc (types 1 and 2): ok\n");

	/* alloc_bad_type */
	errno = 0;
	CHECK(ibv_alloc_mw(p.s[0].pd, (enum ibv_mw_type)3) == NULL);
	CHECK_EQ(errno, EINVAL);
	printf("alloc_bad_type: EINVAL: ok\n");

	/* pd_busy */
	pd2 = CHECK_PTR(ibv_alloc_pd(p.s[0].ctx));
	m2 = CHECK_PTR(ibv_alloc_mw(pd2, IBV_MW_TYPE_2));
	CHECK_EQ(ibv_dealloc_pd(pd2), EBUSY);
	CHECK_OK(ibv_dealloc_mw(m2));
	CHECK_OK(ibv_dealloc_pd(pd2));
	printf("pd_busy: EBUSY, then 0: ok\n");

	/* bind_mw_checks */
	pd2 = CHECK_PTR(ibv_alloc_pd(p.s[0].ctx));
	t_buf_alloc_access(&b2, pd2, 4096, acc);
	m1 = CHECK_PTR(ibv_alloc_mw(p.s[0].pd, IBV_MW_TYPE_1));
	m2 = CHECK_PTR(ibv_alloc_mw(p.s[0].pd, IBV_MW_TYPE_2));
	memset(&mb, 0, sizeof(mb));
	mb.wr_id = 1;
	mb.send_flags = IBV_SEND_SIGNALED;
	mb.bind_info.mr = b.mr;
	mb.bind_info.addr = t_addr(&b, 0);
	mb.bind_info.length = 1024;
	mb.bind_info.mw_access_flags = IBV_ACCESS_REMOTE_WRITE;
	CHECK_EQ(ibv_bind_mw(p.s[0].qp, m2, &mb), EINVAL);
	mb.bind_info.mr = b2.mr;
	mb.bind_info.addr = t_addr(&b2, 0);
	CHECK_EQ(ibv_bind_mw(p.s[0].qp, m1, &mb), EPERM);
	mb.bind_info.mr = NULL;
	CHECK_EQ(ibv_bind_mw(p.s[0].qp, m1, &mb), EINVAL);
	EXPECT_EMPTY(p.s[0].scq, 100);
	CHECK_OK(ibv_dealloc_mw(m1));
	CHECK_OK(ibv_dealloc_mw(m2));
	t_buf_free(&b2);
	CHECK_OK(ibv_dealloc_pd(pd2));
	printf("bind_mw_checks: EINVAL, EPERM, EINVAL: ok\n");

	t_buf_free(&b);
	t_pair_close(&p);
	printf("sys_mw_alloc: passed\n");
	return 0;
}
