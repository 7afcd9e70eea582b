// SPDX-License-Identifier: MIT
/*
 * flow_ud_send.c - one UD SEND of 256 bytes, rnic0 -> rnic1, through an
 * address handle made with ibv_create_ah: doorbell, WQE fetch (with its UD
 * address segments), payload read, one UD SEND_ONLY frame with a DETH (Q_Key,
 * source QP), the receiver's Q_Key check, receive WQE read, placement behind
 * the 40-byte GRH area, the receive CQE (IBV_WC_GRH, src_qp), and the send
 * CQE, which UD writes without waiting for any ACK.
 *
 * From ibv_poll_cq(3): the receive buffer of a UD QP holds "the payload of the
 * message plus the 40 bytes reserved for the GRH" and the data start at offset
 * 40; byte_len counts both.
 */
#define _DEFAULT_SOURCE

#include "flow_common.h"

#include <stdio.h>
#include <string.h>

#define LEN 256
#define GRH 40
#define QKEY 0x11223344u
#define CANARY 0x5a

int main(void)
{
	struct ibv_ah_attr aa, from_wc;
	struct t_pair_cfg cfg;
	union ibv_gid g0, g1;
	struct ibv_wc wc;
	struct ibv_sge sg;
	struct ibv_ah *ah;
	struct flow f;
	const uint8_t *ip;

	t_pair_default_cfg(&cfg);
	cfg.qp_type = IBV_QPT_UD;
	cfg.qkey = QKEY;
	flow_open_cfg(&f, &cfg, T_MR_ACCESS, 0x0d5e, 0);
	t_query_gid(f.p.s[0].ctx, &g0);
	t_query_gid(f.p.s[1].ctx, &g1);

	/* The address handle of rnic1's GID (RoCEv2: a global route). */
	memset(&aa, 0, sizeof(aa));
	aa.is_global = 1;
	aa.grh.dgid = g1;
	aa.grh.sgid_index = T_GID_INDEX;
	aa.grh.hop_limit = 64;
	aa.port_num = T_PORT;
	ah = CHECK_PTR(ibv_create_ah(f.p.s[0].pd, &aa));

	memset(f.dst.p, CANARY, FLOW_BUF_LEN);
	sg = t_sge(&f.dst, 0, GRH + 1024);
	POST_RECV(f.p.s[1].qp, 2, &sg, 1);

	sg = t_sge(&f.src, 0, LEN);
	POST_UD_SEND(f.p.s[0].qp, 1, IBV_WR_SEND, IBV_SEND_SIGNALED, &sg, 1, ah, f.qpn1, QKEY,
		     0);
	POLL(f.p.s[1].rcq, 1, &wc);
	CHECKF(wc.wr_id == 2 && wc.status == IBV_WC_SUCCESS, "wr_id %llu status %s",
	       (unsigned long long)wc.wr_id, t_status_str(wc.status));
	CHECK_EQ(wc.opcode, IBV_WC_RECV);
	CHECK_EQ(wc.byte_len, GRH + LEN);
	CHECK_EQ(wc.qp_num, f.qpn1);
	CHECK_EQ(wc.src_qp, f.qpn0);
	CHECK_EQ(wc.wc_flags, IBV_WC_GRH);
	CHECK_EQ(wc.pkey_index, 0);
	CHECK_EQ(wc.vendor_err, 0);
	/* The data behind the GRH area, nothing after them. */
	CHECK_MEM(f.dst.p + GRH, f.src.p, LEN);
	CHECK_FILL(f.dst.p + GRH + LEN, CANARY, FLOW_BUF_LEN - GRH - LEN);
	/* The GRH area of a RoCEv2 (IPv4) packet: the IPv4 header in bytes
	 * 20-39, from rnic0's address to rnic1's (the last 4 bytes of the
	 * IPv4-mapped GIDs); ibv_init_ah_from_wc reads the sender's GID back. */
	ip = f.dst.p + 20;
	CHECK_EQ(ip[0], 0x45);
	CHECK_EQ(ip[9], 17);
	CHECK_MEM(ip + 12, g0.raw + 12, 4);
	CHECK_MEM(ip + 16, g1.raw + 12, 4);
	CHECK_OK(ibv_init_ah_from_wc(f.p.s[1].ctx, T_PORT, &wc, (struct ibv_grh *)f.dst.p,
				     &from_wc));
	CHECK_EQ(from_wc.is_global, 1);
	CHECK_MEM(from_wc.grh.dgid.raw, g0.raw, 16);

	POLL(f.p.s[0].scq, 1, &wc);
	EXPECT_WC(&wc, 1, IBV_WC_SUCCESS, IBV_WC_SEND, f.qpn0, T_ANY, 0, T_ANY);
	EXPECT_EMPTY(f.p.s[1].rcq, 1);

	CHECK_OK(ibv_destroy_ah(ah));
	flow_close(&f);
	printf("flow_ud_send: UD SEND %d B rnic0 -> rnic1 through an AH: GRH area, src_qp, "
	       "receive and send completions, data ok\n", LEN);
	return 0;
}
