// SPDX-License-Identifier: MIT
/*
 * sys_ah.c - address handles (ibv_create_ah, ibv_destroy_ah,
 * ibv_init_ah_from_wc, ibv_create_ah_from_wc) on a RoCEv2 port, whose GIDs
 * are IPv4-mapped addresses:
 *
 *   create_destroy      AHs for the peer's GID and for our own: created with
 *                       the PD and context, destroyed;
 *   unknown_gid         an IPv4-mapped GID of an address no node has: NULL
 *                       with errno set;
 *   not_roce            a GID that is not IPv4-mapped, no GRH (is_global 0),
 *                       port 2, GID index 5: NULL with errno set;
 *   from_wc_ipv4        a receive completion with IBV_WC_GRH and the RoCEv2
 *                       IPv4 layout (IPv4 header in bytes 20-39 of the GRH
 *                       area): ibv_init_ah_from_wc() gives a global
 *                       attribute whose dgid is the sender's address, and
 *                       ibv_create_ah_from_wc() an AH;
 *   from_wc_ipv6        the same with an IPv6 GRH (version 6, sgid);
 *   from_wc_no_grh      without IBV_WC_GRH: not global (and no AH on RoCE).
 */
#define _DEFAULT_SOURCE

#include "common.h"

#include <arpa/inet.h>
#include <endian.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

static void attr_for(struct ibv_ah_attr *a, const union ibv_gid *gid)
{
	memset(a, 0, sizeof(*a));
	a->is_global = 1;
	a->grh.dgid = *gid;
	a->grh.sgid_index = T_GID_INDEX;
	a->grh.hop_limit = 64;
	a->port_num = T_PORT;
}

static void expect_fail(struct ibv_pd *pd, struct ibv_ah_attr *a, const char *what)
{
	struct ibv_ah *ah;

	errno = 0;
	ah = ibv_create_ah(pd, a);
	CHECKF(!ah && errno != 0, "%s: ah %p errno %d", what, (void *)ah, errno);
}

int main(void)
{
	struct ibv_context *c0 = t_open_device(T_DEV0);
	struct ibv_context *c1 = t_open_device(T_DEV1);
	struct ibv_pd *pd = CHECK_PTR(ibv_alloc_pd(c0));
	union ibv_gid g0, g1, g;
	struct ibv_ah_attr a;
	struct ibv_grh grh;
	struct ibv_wc wc;
	struct ibv_ah *ah;
	uint8_t *ip4;

	t_query_gid(c0, &g0);
	t_query_gid(c1, &g1);

	/* create_destroy */
	attr_for(&a, &g1);
	ah = CHECK_PTR(ibv_create_ah(pd, &a));
	CHECK(ah->pd == pd);
	CHECK(ah->context == c0);
	CHECK_OK(ibv_destroy_ah(ah));
	attr_for(&a, &g0);
	ah = CHECK_PTR(ibv_create_ah(pd, &a));
	CHECK_OK(ibv_destroy_ah(ah));
	printf("create_destroy: ok\n");

	/* unknown_gid: ::ffff:10.254.253.252 */
	g = g1;
	g.raw[12] = 10;
	g.raw[13] = 254;
	g.raw[14] = 253;
	g.raw[15] = 252;
	attr_for(&a, &g);
	expect_fail(pd, &a, "unknown_gid");
	printf("unknown_gid: NULL, errno %d (%s): ok\n", errno, strerror(errno));

	/* not_roce */
	memset(&g, 0, sizeof(g));
	g.raw[0] = 0xfe;
	g.raw[1] = 0x80;
	g.raw[15] = 1;
	attr_for(&a, &g);
	expect_fail(pd, &a, "link-local GID");
	attr_for(&a, &g1);
	a.is_global = 0;
	a.dlid = 1;
	expect_fail(pd, &a, "no GRH");
	attr_for(&a, &g1);
	a.port_num = 2;
	expect_fail(pd, &a, "port 2");
	attr_for(&a, &g1);
	a.grh.sgid_index = 5;
	expect_fail(pd, &a, "GID index 5");
	printf("not_roce: NULL with errno: ok\n");

	/* from_wc_ipv4: IPv4 header of a packet from rnic1 to rnic0. */
	memset(&wc, 0, sizeof(wc));
	wc.wc_flags = IBV_WC_GRH;
	wc.opcode = IBV_WC_RECV;
	memset(&grh, 0, sizeof(grh));
	ip4 = (uint8_t *)&grh + 20;
	ip4[0] = 0x45;
	ip4[8] = 64;
	ip4[9] = 17;
	memcpy(ip4 + 12, &g1.raw[12], 4);
	memcpy(ip4 + 16, &g0.raw[12], 4);
	CHECK_OK(ibv_init_ah_from_wc(c0, T_PORT, &wc, &grh, &a));
	CHECK_EQ(a.is_global, 1);
	CHECK_EQ(a.port_num, T_PORT);
	CHECK_MEM(a.grh.dgid.raw, g1.raw, 16);
	ah = CHECK_PTR(ibv_create_ah_from_wc(pd, &wc, &grh, T_PORT));
	CHECK_OK(ibv_destroy_ah(ah));
	printf("from_wc_ipv4: ok\n");

	/* from_wc_ipv6 */
	memset(&grh, 0, sizeof(grh));
	grh.version_tclass_flow = htobe32(6u << 28 | 0x12345);
	grh.sgid = g1;
	grh.dgid = g0;
	CHECK_OK(ibv_init_ah_from_wc(c0, T_PORT, &wc, &grh, &a));
	CHECK_EQ(a.is_global, 1);
	CHECK_MEM(a.grh.dgid.raw, g1.raw, 16);
	CHECK_EQ(a.grh.flow_label, 0x12345);
	ah = CHECK_PTR(ibv_create_ah_from_wc(pd, &wc, &grh, T_PORT));
	CHECK_OK(ibv_destroy_ah(ah));
	printf("from_wc_ipv6: ok\n");

	/* from_wc_no_grh */
	wc.wc_flags = 0;
	CHECK_OK(ibv_init_ah_from_wc(c0, T_PORT, &wc, &grh, &a));
	CHECK_EQ(a.is_global, 0);
	errno = 0;
	CHECK(ibv_create_ah_from_wc(pd, &wc, &grh, T_PORT) == NULL);
	CHECK(errno != 0);
	printf("from_wc_no_grh: ok\n");

	CHECK_OK(ibv_dealloc_pd(pd));
	CHECK_OK(ibv_close_device(c0));
	CHECK_OK(ibv_close_device(c1));
	printf("sys_ah: passed\n");
	return 0;
}
