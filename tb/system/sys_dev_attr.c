// SPDX-License-Identifier: MIT
/*
 * sys_dev_attr.c - the device and port attributes are true: every limit
 * ibv_query_device(3) reports is reached and not exceeded, and the identity
 * fields are consistent with each other and with the other verbs.
 *
 *   identity        vendor_id 0x524e49, vendor_part_id 1 (docs/verbs.md),
 *                   fw_ver "<hw_ver>.<minor>", node_guid ==
 *                   ibv_get_device_guid() == sys_image_guid, a modified
 *                   EUI-64 (ff:fe in the middle), different per device;
 *   device_ex       ibv_query_device_ex(): orig_attr equals
 *                   ibv_query_device(), one port, core clock 250 MHz,
 *                   64-bit completion timestamps;
 *   port            ACTIVE, LinkUp, Ethernet, MTU 4096, LID 0, GRH
 *                   required, IP-based GIDs; port 2 fails;
 *   gid             GID 0 is ::ffff:10.0.0.<n+1>, RoCE v2 in
 *                   ibv_query_gid_ex() and ibv_query_gid_table(); index
 *                   gid_tbl_len fails; P_Key 0 is 0xffff, index 1 fails;
 *   limits_count    exactly max_cq CQs, max_qp QPs, max_srq SRQs, max_mr
 *                   MRs, max_mw windows, max_pd PDs can exist at once: the
 *                   next one fails with ENOMEM;
 *   limits_size     max_qp_wr, max_sge, max_cqe, max_srq_wr, max_srq_sge are
 *                   accepted, one more is refused with EINVAL;
 *   limits_rd_atom  max_qp_rd_atom as max_dest_rd_atomic (RTR) and
 *                   max_qp_init_rd_atom as max_rd_atomic (RTS) are accepted,
 *                   one more is refused with EINVAL.
 */
#define _DEFAULT_SOURCE

#include "common.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define VENDOR_ID	0x524e49
#define VENDOR_PART_ID	1

static struct ibv_context *open_dev(const char *name, struct ibv_device **devp)
{
	struct ibv_device **list;
	struct ibv_context *ctx = NULL;
	int i, n;

	list = CHECK_PTR(ibv_get_device_list(&n));
	for (i = 0; i < n; i++) {
		if (!strcmp(ibv_get_device_name(list[i]), name)) {
			ctx = CHECK_PTR(ibv_open_device(list[i]));
			*devp = list[i];
		}
	}
	ibv_free_device_list(list);
	CHECKF(ctx, "no device %s", name);
	return ctx;
}

static void check_identity(struct ibv_context *ctx, struct ibv_device *dev,
			   const struct ibv_device_attr *da, __be64 other_guid)
{
	unsigned int major, minor;
	uint8_t g[8];
	char tail;

	CHECK_EQ(da->vendor_id, VENDOR_ID);
	CHECK_EQ(da->vendor_part_id, VENDOR_PART_ID);
	CHECKF(sscanf(da->fw_ver, "%u.%u%c", &major, &minor, &tail) == 2,
	       "fw_ver '%s' is not <major>.<minor>", da->fw_ver);
	CHECK_EQ(major, da->hw_ver);
	CHECK(major > 0);
	CHECK_EQ(da->node_guid, ibv_get_device_guid(dev));
	CHECK_EQ(da->sys_image_guid, da->node_guid);
	memcpy(g, &da->node_guid, sizeof(g));
	CHECK(g[3] == 0xff && g[4] == 0xfe);
	CHECK(da->node_guid != other_guid);
	CHECK_EQ(da->phys_port_cnt, 1);
	(void)ctx;
}

static void check_device_ex(struct ibv_context *ctx, const struct ibv_device_attr *da)
{
	struct ibv_device_attr_ex dx;

	memset(&dx, 0xa5, sizeof(dx));
	CHECK_OK(ibv_query_device_ex(ctx, NULL, &dx));
	CHECK_MEM(&dx.orig_attr, da, sizeof(*da));
	CHECK_EQ(dx.phys_port_cnt_ex, 1);
	CHECK_EQ(dx.hca_core_clock, 250000);
	CHECK_EQ(dx.completion_timestamp_mask, UINT64_MAX);
	CHECK_EQ(dx.device_cap_flags_ex, da->device_cap_flags);
	CHECK_EQ(dx.odp_caps.general_caps, 0);
	CHECK_EQ(dx.max_dm_size, 0);
}

static void check_port(struct ibv_context *ctx)
{
	struct ibv_port_attr pa;

	memset(&pa, 0xa5, sizeof(pa));
	CHECK_OK(ibv_query_port(ctx, 1, &pa));
	CHECK_EQ(pa.state, IBV_PORT_ACTIVE);
	CHECK_EQ(pa.phys_state, 5);	/* LinkUp */
	CHECK_EQ(pa.link_layer, IBV_LINK_LAYER_ETHERNET);
	CHECK_EQ(pa.max_mtu, IBV_MTU_4096);
	CHECK_EQ(pa.active_mtu, IBV_MTU_4096);
	CHECK_EQ(pa.lid, 0);
	CHECK_EQ(pa.sm_lid, 0);
	CHECK_EQ(pa.gid_tbl_len, 1);
	CHECK_EQ(pa.pkey_tbl_len, 1);
	CHECK(pa.flags & IBV_QPF_GRH_REQUIRED);
	CHECK(pa.port_cap_flags & IBV_PORT_IP_BASED_GIDS);
	CHECK(pa.active_width != 0 && pa.active_speed != 0);
	CHECK(pa.max_msg_sz >= 1u << 31);
	CHECK(ibv_query_port(ctx, 2, &pa) != 0);
}

static void check_gid(struct ibv_context *ctx, unsigned int node)
{
	static const uint8_t prefix[12] = { [10] = 0xff, [11] = 0xff };
	struct ibv_gid_entry e, tbl[4];
	union ibv_gid gid;
	__be16 pkey;

	CHECK_OK(ibv_query_gid(ctx, 1, 0, &gid));
	CHECK_MEM(gid.raw, prefix, sizeof(prefix));
	CHECK(gid.raw[12] == 10 && gid.raw[13] == 0 && gid.raw[14] == 0 &&
	      gid.raw[15] == node + 1);
	CHECK(ibv_query_gid(ctx, 1, 1, &gid) != 0);
	CHECK_OK(ibv_query_gid_ex(ctx, 1, 0, &e, 0));
	CHECK_EQ(e.gid_type, IBV_GID_TYPE_ROCE_V2);
	CHECK_EQ(e.gid_index, 0);
	CHECK_EQ(e.port_num, 1);
	CHECK_MEM(e.gid.raw, gid.raw, 12);
	CHECK(ibv_query_gid_ex(ctx, 1, 1, &e, 0) != 0);
	CHECK_EQ(ibv_query_gid_table(ctx, tbl, 4, 0), 1);
	CHECK_EQ(tbl[0].gid_type, IBV_GID_TYPE_ROCE_V2);
	CHECK_OK(ibv_query_pkey(ctx, 1, 0, &pkey));
	CHECK_EQ(pkey, htobe16(0xffff));
	CHECK(ibv_query_pkey(ctx, 1, 1, &pkey) != 0);
}

/* Creates objects with @make until it fails; returns how many were made
 * (kept in @objs, at most @max + 1) and the errno of the failure. */
typedef void *(*make_fn)(void *arg);

static int fill(make_fn make, void *arg, void **objs, int max, int *err)
{
	int n;

	for (n = 0; n <= max; n++) {
		errno = 0;
		objs[n] = make(arg);
		if (!objs[n])
			break;
	}
	*err = errno;
	return n;
}

struct mk {
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	struct ibv_cq *cq;
	void *buf;
};

static void *mk_cq(void *a)
{
	return ibv_create_cq(((struct mk *)a)->ctx, 1, NULL, NULL, 0);
}

static void *mk_qp(void *a)
{
	struct mk *m = a;
	struct ibv_qp_init_attr ia = {
		.send_cq = m->cq, .recv_cq = m->cq, .qp_type = IBV_QPT_RC,
		.cap = { .max_send_wr = 1, .max_recv_wr = 1, .max_send_sge = 1,
			 .max_recv_sge = 1 },
	};

	return ibv_create_qp(m->pd, &ia);
}

static void *mk_srq(void *a)
{
	struct ibv_srq_init_attr sa = { .attr = { .max_wr = 1, .max_sge = 1 } };

	return ibv_create_srq(((struct mk *)a)->pd, &sa);
}

static void *mk_mr(void *a)
{
	struct mk *m = a;

	return ibv_reg_mr(m->pd, m->buf, 4096, IBV_ACCESS_LOCAL_WRITE);
}

static void *mk_mw(void *a)
{
	return ibv_alloc_mw(((struct mk *)a)->pd, IBV_MW_TYPE_2);
}

static void *mk_pd(void *a)
{
	return ibv_alloc_pd(((struct mk *)a)->ctx);
}

static void check_count(const char *what, make_fn make, void (*destroy)(void *),
			struct mk *m, int max)
{
	void **objs = calloc((size_t)max + 1, sizeof(*objs));
	int n, err, i;

	CHECK(objs);
	n = fill(make, m, objs, max, &err);
	CHECKF(n == max, "%s: %d created, max %d", what, n, max);
	CHECKF(err == ENOMEM, "%s: creation %d failed with errno %d, not ENOMEM",
	       what, n + 1, err);
	for (i = 0; i < n; i++)
		destroy(objs[i]);
	free(objs);
	printf("limits_count: %s %d: ok\n", what, max);
}

static void rm_cq(void *o) { CHECK_OK(ibv_destroy_cq(o)); }
static void rm_qp(void *o) { CHECK_OK(ibv_destroy_qp(o)); }
static void rm_srq(void *o) { CHECK_OK(ibv_destroy_srq(o)); }
static void rm_mr(void *o) { CHECK_OK(ibv_dereg_mr(o)); }
static void rm_mw(void *o) { CHECK_OK(ibv_dealloc_mw(o)); }
static void rm_pd(void *o) { CHECK_OK(ibv_dealloc_pd(o)); }

/* A QP with @cap: 0 if it was created (and destroyed), else errno. */
static int try_qp(struct mk *m, struct ibv_srq *srq, struct ibv_qp_cap cap)
{
	struct ibv_qp_init_attr ia = {
		.send_cq = m->cq, .recv_cq = m->cq, .srq = srq,
		.qp_type = IBV_QPT_RC, .cap = cap,
	};
	struct ibv_qp *qp;

	errno = 0;
	qp = ibv_create_qp(m->pd, &ia);
	if (!qp)
		return errno ? errno : -1;
	CHECK_OK(ibv_destroy_qp(qp));
	return 0;
}

static int try_srq(struct mk *m, uint32_t wr, uint32_t sge)
{
	struct ibv_srq_init_attr sa = { .attr = { .max_wr = wr, .max_sge = sge } };
	struct ibv_srq *srq;

	errno = 0;
	srq = ibv_create_srq(m->pd, &sa);
	if (!srq)
		return errno ? errno : -1;
	CHECK_OK(ibv_destroy_srq(srq));
	return 0;
}

static void check_sizes(struct mk *m, const struct ibv_device_attr *da)
{
	struct ibv_qp_cap c = { .max_send_wr = 1, .max_recv_wr = 1,
				.max_send_sge = 1, .max_recv_sge = 1 };
	struct ibv_qp_cap x;
	struct ibv_cq *cq;

	x = c; x.max_send_wr = da->max_qp_wr;
	CHECK_EQ(try_qp(m, NULL, x), 0);
	x.max_send_wr++;
	CHECK_EQ(try_qp(m, NULL, x), EINVAL);
	x = c; x.max_recv_wr = da->max_qp_wr;
	CHECK_EQ(try_qp(m, NULL, x), 0);
	x.max_recv_wr++;
	CHECK_EQ(try_qp(m, NULL, x), EINVAL);
	x = c; x.max_send_sge = da->max_sge;
	CHECK_EQ(try_qp(m, NULL, x), 0);
	x.max_send_sge++;
	CHECK_EQ(try_qp(m, NULL, x), EINVAL);
	x = c; x.max_recv_sge = da->max_sge;
	CHECK_EQ(try_qp(m, NULL, x), 0);
	x.max_recv_sge++;
	CHECK_EQ(try_qp(m, NULL, x), EINVAL);
	printf("limits_size: max_qp_wr %d, max_sge %d: ok\n", da->max_qp_wr, da->max_sge);

	cq = ibv_create_cq(m->ctx, da->max_cqe, NULL, NULL, 0);
	CHECKF(cq, "CQ of max_cqe %d entries: errno %d", da->max_cqe, errno);
	CHECK(cq->cqe >= da->max_cqe);
	CHECK_OK(ibv_destroy_cq(cq));
	errno = 0;
	CHECK(!ibv_create_cq(m->ctx, da->max_cqe + 1, NULL, NULL, 0));
	CHECK_EQ(errno, EINVAL);
	printf("limits_size: max_cqe %d: ok\n", da->max_cqe);

	CHECK_EQ(try_srq(m, da->max_srq_wr, 1), 0);
	CHECK_EQ(try_srq(m, da->max_srq_wr + 1, 1), EINVAL);
	CHECK_EQ(try_srq(m, 1, da->max_srq_sge), 0);
	CHECK_EQ(try_srq(m, 1, da->max_srq_sge + 1), EINVAL);
	printf("limits_size: max_srq_wr %d, max_srq_sge %d: ok\n", da->max_srq_wr,
	       da->max_srq_sge);
}

/* RESET -> INIT -> RTR -> RTS of an RC QP connected to itself, with the
 * read/atomic depths given; the errno of the failing step, or 0. */
static int rd_atom_modify(struct mk *m, int dest_rd, int init_rd)
{
	struct ibv_qp *qp = mk_qp(m);
	struct ibv_qp_attr a;
	int ret;

	CHECK(qp);
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_INIT;
	a.port_num = 1;
	a.qp_access_flags = T_QP_ACCESS | IBV_ACCESS_REMOTE_ATOMIC;
	CHECK_OK(ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX |
			       IBV_QP_PORT | IBV_QP_ACCESS_FLAGS));
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTR;
	a.path_mtu = IBV_MTU_1024;
	a.dest_qp_num = qp->qp_num;
	a.max_dest_rd_atomic = dest_rd;
	a.min_rnr_timer = 1;
	a.ah_attr.is_global = 1;
	a.ah_attr.port_num = 1;
	CHECK_OK(ibv_query_gid(m->ctx, 1, 0, &a.ah_attr.grh.dgid));
	a.ah_attr.grh.hop_limit = 64;
	ret = ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU |
			    IBV_QP_DEST_QPN | IBV_QP_RQ_PSN | IBV_QP_MAX_DEST_RD_ATOMIC |
			    IBV_QP_MIN_RNR_TIMER);
	if (!ret) {
		memset(&a, 0, sizeof(a));
		a.qp_state = IBV_QPS_RTS;
		a.timeout = 14;
		a.retry_cnt = 7;
		a.rnr_retry = 7;
		a.max_rd_atomic = init_rd;
		ret = ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_TIMEOUT |
				    IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY | IBV_QP_SQ_PSN |
				    IBV_QP_MAX_QP_RD_ATOMIC);
	}
	CHECK_OK(ibv_destroy_qp(qp));
	return ret;
}

int main(void)
{
	struct ibv_device_attr da, da1;
	struct ibv_context *ctx, *ctx1;
	struct ibv_device *dev, *dev1;
	struct mk m;

	ctx = open_dev(T_DEV0, &dev);
	ctx1 = open_dev(T_DEV1, &dev1);
	CHECK_OK(ibv_query_device(ctx, &da));
	CHECK_OK(ibv_query_device(ctx1, &da1));

	check_identity(ctx, dev, &da, da1.node_guid);
	check_identity(ctx1, dev1, &da1, da.node_guid);
	printf("identity: vendor_id 0x%x part %u fw %s guid %016llx: ok\n", da.vendor_id,
	       da.vendor_part_id, da.fw_ver, (unsigned long long)be64toh(da.node_guid));
	check_device_ex(ctx, &da);
	printf("device_ex: ok\n");
	check_port(ctx);
	printf("port: ok\n");
	check_gid(ctx, 0);
	check_gid(ctx1, 1);
	printf("gid: ok\n");

	memset(&m, 0, sizeof(m));
	m.ctx = ctx;
	check_count("max_pd", mk_pd, rm_pd, &m, da.max_pd);
	m.pd = CHECK_PTR(ibv_alloc_pd(ctx));
	check_count("max_cq", mk_cq, rm_cq, &m, da.max_cq);
	m.cq = CHECK_PTR(ibv_create_cq(ctx, 16, NULL, NULL, 0));
	check_count("max_qp", mk_qp, rm_qp, &m, da.max_qp);
	check_count("max_srq", mk_srq, rm_srq, &m, da.max_srq);
	CHECK(posix_memalign(&m.buf, 4096, 4096) == 0);
	check_count("max_mr", mk_mr, rm_mr, &m, da.max_mr);
	check_count("max_mw", mk_mw, rm_mw, &m, da.max_mw);

	check_sizes(&m, &da);

	CHECK_EQ(da.max_qp_rd_atom, da.max_qp_init_rd_atom);
	CHECK_EQ(rd_atom_modify(&m, da.max_qp_rd_atom, da.max_qp_init_rd_atom), 0);
	CHECK_EQ(rd_atom_modify(&m, da.max_qp_rd_atom + 1, 1), EINVAL);
	CHECK_EQ(rd_atom_modify(&m, 1, da.max_qp_init_rd_atom + 1), EINVAL);
	printf("limits_rd_atom: %d: ok\n", da.max_qp_rd_atom);

	free(m.buf);
	CHECK_OK(ibv_destroy_cq(m.cq));
	CHECK_OK(ibv_dealloc_pd(m.pd));
	CHECK_OK(ibv_close_device(ctx));
	CHECK_OK(ibv_close_device(ctx1));
	printf("sys_dev_attr: PASS\n");
	return 0;
}
