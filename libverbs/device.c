// SPDX-License-Identifier: MIT
/*
 * device.c - devices (one per simulated node), contexts, device and port
 * attributes, GIDs and P_Keys.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "rnic_verbs.h"

/* The compat symbol ibv_query_port is hidden behind a macro in verbs.h. */
#undef ibv_query_port

#define RV_CORE_CLOCK_KHZ	250000	/* nominal core clock (docs: time model) */
#define RV_MAX_RD_ATOM		8	/* as the driver (driver/rnic_qp.c) */
#define RV_MAX_MSG_SZ		0x80000000u

struct rv_context *rv_contexts;

static struct rv_device rv_devices[RNIC_SIM_MAX_NODES];
static unsigned int rv_ndevices;
static int rv_devices_ready;

/*
 * RNIC_IOMMU_STRICT=1 (set for every CTest): at exit, any DMA the IOMMU
 * refused during the run fails the process. No correct program on a correct
 * RNIC makes one, so a test that passes its own checks still fails here.
 */
static void rv_iommu_check(void)
{
	struct rnic_sim *sim = rnic_sim_global();
	unsigned int n;
	int bad = 0;

	for (n = 0; sim && n < rnic_sim_nodes(sim); n++) {
		uint64_t f = rnic_sim_iommu_faults(sim, n);

		if (f) {
			fprintf(stderr, "rnic: RNIC_IOMMU_STRICT: node %u made %llu DMA "
				"access(es) outside mapped pages\n", n, (unsigned long long)f);
			bad = 1;
		}
	}
	if (bad)
		_exit(3);
}

static int rv_setup_devices(void)
{
	const char *strict;
	struct rnic_sim *sim;
	unsigned int n;

	if (rv_devices_ready)
		return 0;
	sim = rnic_sim_global();
	if (!sim)
		return ENOSYS;
	rv_ndevices = rnic_sim_nodes(sim);
	if (rv_ndevices > RNIC_SIM_MAX_NODES)
		rv_ndevices = RNIC_SIM_MAX_NODES;
	for (n = 0; n < rv_ndevices; n++) {
		struct ibv_device *d = &rv_devices[n].ibdev;

		rv_devices[n].node = n;
		d->node_type = IBV_NODE_CA;
		d->transport_type = IBV_TRANSPORT_IB;
		snprintf(d->name, sizeof(d->name), "rnic%u", n);
		snprintf(d->dev_name, sizeof(d->dev_name), "uverbs%u", n);
		snprintf(d->dev_path, sizeof(d->dev_path),
			 "/sys/class/infiniband_verbs/uverbs%u", n);
		snprintf(d->ibdev_path, sizeof(d->ibdev_path),
			 "/sys/class/infiniband/rnic%u", n);
	}
	rv_tl_setup(sim);
	rv_ev_setup(sim);
	strict = getenv("RNIC_IOMMU_STRICT");
	if (strict && *strict && strcmp(strict, "0"))
		atexit(rv_iommu_check);
	rv_devices_ready = 1;
	return 0;
}

RV_EXPORT struct ibv_device **ibv_get_device_list(int *num_devices)
{
	struct ibv_device **list;
	unsigned int n;
	int ret;

	rnic_lock();
	ret = rv_setup_devices();
	rnic_unlock();
	if (ret) {
		errno = ret;
		return NULL;
	}
	list = calloc(rv_ndevices + 1, sizeof(*list));
	if (!list) {
		errno = ENOMEM;
		return NULL;
	}
	for (n = 0; n < rv_ndevices; n++)
		list[n] = &rv_devices[n].ibdev;
	if (num_devices)
		*num_devices = rv_ndevices;
	return list;
}

RV_EXPORT void ibv_free_device_list(struct ibv_device **list)
{
	free(list);
}

static struct rv_device *to_rv_device(struct ibv_device *device)
{
	if (!device || device < &rv_devices[0].ibdev ||
	    device >= &rv_devices[rv_ndevices].ibdev)
		return NULL;
	return rv_container_of(device, struct rv_device, ibdev);
}

RV_EXPORT const char *ibv_get_device_name(struct ibv_device *device)
{
	return device ? device->name : NULL;
}

RV_EXPORT int ibv_get_device_index(struct ibv_device *device)
{
	struct rv_device *d = to_rv_device(device);

	return d ? (int)d->node : -1;
}

/* Node GUID: modified EUI-64 of the port MAC, like RoCE adapters. */
static __be64 rv_guid(uint64_t mac)
{
	uint8_t b[8];
	__be64 g;

	b[0] = (uint8_t)(mac >> 40) ^ 0x02;
	b[1] = mac >> 32;
	b[2] = mac >> 24;
	b[3] = 0xff;
	b[4] = 0xfe;
	b[5] = mac >> 16;
	b[6] = mac >> 8;
	b[7] = mac;
	memcpy(&g, b, sizeof(g));
	return g;
}

RV_EXPORT __be64 ibv_get_device_guid(struct ibv_device *device)
{
	struct rv_device *d = to_rv_device(device);
	struct rnic_sim *sim = rnic_sim_global();

	if (!d || !sim)
		return 0;
	return rv_guid(rnic_sim_node_mac(sim, d->node) & RNIC_MAC_MASK);
}

static int rv_query_port(struct ibv_context *context, uint8_t port_num,
			 struct ibv_port_attr *port_attr, size_t port_attr_len);
static int rv_query_device_ex(struct ibv_context *context,
			      const struct ibv_query_device_ex_input *input,
			      struct ibv_device_attr_ex *attr, size_t attr_size);

RV_EXPORT struct ibv_context *ibv_open_device(struct ibv_device *device)
{
	struct rv_device *d = to_rv_device(device);
	struct ibv_context *ibctx;
	struct rv_context *ctx;
	int ret;

	if (!d) {
		errno = ENODEV;
		return NULL;
	}
	ctx = calloc(1, sizeof(*ctx));
	if (!ctx) {
		errno = ENOMEM;
		return NULL;
	}
	ret = rnic_dev_open(d->node, &ctx->dev);
	if (ret) {
		free(ctx);
		errno = ret;
		return NULL;
	}
	ctx->sim = ctx->dev->sim;
	ctx->node = d->node;
	rv_simthread_start(ctx->sim);
	ctx->qp_table_size = ctx->dev->caps.n_qp;
	ctx->qp_table = calloc(ctx->qp_table_size, sizeof(*ctx->qp_table));
	if (!ctx->qp_table) {
		rnic_dev_close(ctx->dev);
		free(ctx);
		errno = ENOMEM;
		return NULL;
	}

	ibctx = &ctx->vctx.context;
	ibctx->device = device;
	ibctx->cmd_fd = -1;
	ibctx->async_fd = -1;
	ctx->async_wfd = -1;
	/* A pipe the library writes asynchronous events into (events.c). */
	ret = rv_ev_ctx_open(ctx);
	if (ret) {
		free(ctx->qp_table);
		rnic_dev_close(ctx->dev);
		free(ctx);
		errno = ret;
		return NULL;
	}
	ibctx->num_comp_vectors = 1;
	pthread_mutex_init(&ibctx->mutex, NULL);
	ibctx->abi_compat = __VERBS_ABI_IS_EXTENDED;
	ibctx->ops.poll_cq = rv_poll_cq;
	ibctx->ops.req_notify_cq = rv_req_notify_cq;
	ibctx->ops.post_send = rv_post_send;
	ibctx->ops.post_recv = rv_post_recv;
	ibctx->ops.post_srq_recv = rv_post_srq_recv;
	ibctx->ops.alloc_mw = rv_alloc_mw;
	ibctx->ops.bind_mw = rv_bind_mw;
	ibctx->ops.dealloc_mw = rv_dealloc_mw;

	ctx->vctx.sz = sizeof(struct verbs_context);
	ctx->vctx.query_port = rv_query_port;
	ctx->vctx.query_device_ex = rv_query_device_ex;
	ctx->vctx.create_qp_ex = rv_create_qp_ex;
	ctx->vctx.create_cq_ex = rv_create_cq_ex;

	rnic_lock();
	ctx->next = rv_contexts;
	rv_contexts = ctx;
	rnic_unlock();
	return ibctx;
}

RV_EXPORT int ibv_close_device(struct ibv_context *context)
{
	struct rv_context *ctx = to_rv_ctx(context), **pp;

	rnic_lock();
	rv_tl_ctx_close(ctx);
	for (pp = &rv_contexts; *pp; pp = &(*pp)->next) {
		if (*pp == ctx) {
			*pp = ctx->next;
			break;
		}
	}
	rnic_unlock();
	rnic_dev_close(ctx->dev);
	rv_ev_ctx_close(ctx);
	pthread_mutex_destroy(&context->mutex);
	free(ctx->qp_table);
	free(ctx);
	return 0;
}

RV_EXPORT struct ibv_context *ibv_import_device(int cmd_fd)
{
	(void)cmd_fd;
	errno = EOPNOTSUPP;
	return NULL;
}

/* ------------------------------------------------------------------------ */
/* Device attributes                                                        */
/* ------------------------------------------------------------------------ */

static void rv_fill_device_attr(struct rv_context *ctx, struct ibv_device_attr *a)
{
	const struct rnic_caps *caps = &ctx->dev->caps;

	memset(a, 0, sizeof(*a));
	snprintf(a->fw_ver, sizeof(a->fw_ver), "%u.%u",
		 RNIC_DEV_ID_MAJOR(caps->version), RNIC_DEV_ID_MINOR(caps->version));
	a->node_guid = rv_guid(ctx->dev->mac);
	a->sys_image_guid = a->node_guid;
	a->max_mr_size = 1ULL << 40;
	a->page_size_cap = RNIC_PAGE_SIZE;
	a->vendor_id = 0;
	a->vendor_part_id = 0x0001;
	a->hw_ver = RNIC_DEV_ID_MAJOR(caps->version);
	a->max_qp = caps->n_qp - 2;
	a->max_qp_wr = RNIC_MAX_QP_WR;
	/* Memory windows of type 1 and 2B (bound to a QP and its PD); no
	 * checksum offload (IBV_SEND_IP_CSUM is refused). */
	a->device_cap_flags = IBV_DEVICE_RC_RNR_NAK_GEN | IBV_DEVICE_MEM_WINDOW |
			      IBV_DEVICE_MEM_WINDOW_TYPE_2B;
	a->max_sge = caps->max_sge;
	a->max_sge_rd = caps->max_sge;
	a->max_cq = caps->n_cq;
	a->max_cqe = RNIC_MAX_CQE;
	a->max_mr = caps->n_mr - 1;
	a->max_pd = RNIC_MAX_PD;
	a->max_qp_rd_atom = RV_MAX_RD_ATOM;
	a->max_ee_rd_atom = 0;
	a->max_res_rd_atom = a->max_qp * RV_MAX_RD_ATOM;
	a->max_qp_init_rd_atom = RV_MAX_RD_ATOM;
	a->max_ee_init_rd_atom = 0;
	a->atomic_cap = IBV_ATOMIC_HCA;	/* atomic among this RNIC's accesses, not the CPU's */
	a->max_ee = 0;
	a->max_rdd = 0;
	a->max_mw = caps->n_mr - 1;	/* windows share the MR key space */
	a->max_raw_ipv6_qp = 0;
	a->max_raw_ethy_qp = 0;
	a->max_mcast_grp = 0;
	a->max_mcast_qp_attach = 0;
	a->max_total_mcast_qp_attach = 0;
	a->max_ah = INT32_MAX;		/* software objects (ah.c) */
	a->max_fmr = 0;
	a->max_map_per_fmr = 0;
	a->max_srq = caps->n_qp;	/* SRQ numbers share the QPN space's size */
	a->max_srq_wr = RNIC_MAX_QP_WR;
	a->max_srq_sge = caps->max_sge;
	a->max_pkeys = 1;
	a->local_ca_ack_delay = 0;
	a->phys_port_cnt = 1;
}

RV_EXPORT int ibv_query_device(struct ibv_context *context,
			       struct ibv_device_attr *device_attr)
{
	rv_fill_device_attr(to_rv_ctx(context), device_attr);
	return 0;
}

static int rv_query_device_ex(struct ibv_context *context,
			      const struct ibv_query_device_ex_input *input,
			      struct ibv_device_attr_ex *attr, size_t attr_size)
{
	struct ibv_device_attr_ex a;

	if (input && input->comp_mask)
		return EINVAL;
	if (attr_size < sizeof(a.orig_attr))
		return EINVAL;
	memset(&a, 0, sizeof(a));
	rv_fill_device_attr(to_rv_ctx(context), &a.orig_attr);
	a.hca_core_clock = RV_CORE_CLOCK_KHZ;
	a.device_cap_flags_ex = a.orig_attr.device_cap_flags;
	a.phys_port_cnt_ex = 1;
	memcpy(attr, &a, attr_size < sizeof(a) ? attr_size : sizeof(a));
	return 0;
}

/* ------------------------------------------------------------------------ */
/* Port                                                                     */
/* ------------------------------------------------------------------------ */

/* The IB width/speed pair (1x or 4x) closest to, and not above, the
 * datapath rate at the nominal clock. */
static void rv_port_rate(unsigned int data_bits, uint8_t *width, uint8_t *speed)
{
	static const struct { uint8_t code; unsigned int mbps; } speeds[] = {
		{ 1, 2500 }, { 2, 5000 }, { 4, 10000 }, { 16, 14000 },
		{ 32, 25000 }, { 64, 50000 }, { 128, 100000 },
	};
	static const struct { uint8_t code; unsigned int lanes; } widths[] = {
		{ 1, 1 }, { 2, 4 },
	};
	unsigned long long rate = (unsigned long long)data_bits * RV_CORE_CLOCK_KHZ / 1000;
	unsigned long long best = 0;
	unsigned int s, w;

	*width = 1;
	*speed = 1;
	for (w = 0; w < sizeof(widths) / sizeof(widths[0]); w++) {
		for (s = 0; s < sizeof(speeds) / sizeof(speeds[0]); s++) {
			unsigned long long r = (unsigned long long)widths[w].lanes *
					       speeds[s].mbps;

			if (r <= rate && r > best) {
				best = r;
				*width = widths[w].code;
				*speed = speeds[s].code;
			}
		}
	}
}

static int rv_fill_port_attr(struct rv_context *ctx, uint8_t port_num,
			     struct ibv_port_attr *a)
{
	if (port_num != 1)
		return EINVAL;
	memset(a, 0, sizeof(*a));
	a->state = IBV_PORT_ACTIVE;
	a->max_mtu = IBV_MTU_4096;
	a->active_mtu = IBV_MTU_4096;
	a->gid_tbl_len = 1;
	a->port_cap_flags = 0;
	a->max_msg_sz = RV_MAX_MSG_SZ;
	a->pkey_tbl_len = 1;
	a->max_vl_num = 1;
	rv_port_rate(ctx->dev->caps.data_bits, &a->active_width, &a->active_speed);
	a->phys_state = 5;	/* LinkUp */
	a->link_layer = IBV_LINK_LAYER_ETHERNET;
	return 0;
}

static int rv_query_port(struct ibv_context *context, uint8_t port_num,
			 struct ibv_port_attr *port_attr, size_t port_attr_len)
{
	struct ibv_port_attr a;
	int ret;

	ret = rv_fill_port_attr(to_rv_ctx(context), port_num, &a);
	if (ret)
		return ret;
	memcpy(port_attr, &a, port_attr_len < sizeof(a) ? port_attr_len : sizeof(a));
	return 0;
}

/* The legacy entry point: the caller's structure ends before
 * port_cap_flags2 (struct _compat_ibv_port_attr). */
RV_EXPORT int ibv_query_port(struct ibv_context *context, uint8_t port_num,
			     struct _compat_ibv_port_attr *port_attr)
{
	return rv_query_port(context, port_num, (struct ibv_port_attr *)port_attr,
			     offsetof(struct ibv_port_attr, port_cap_flags2));
}

/* ------------------------------------------------------------------------ */
/* GID and P_Key tables: one entry each                                     */
/* ------------------------------------------------------------------------ */

RV_EXPORT int ibv_query_gid(struct ibv_context *context, uint8_t port_num,
			    int index, union ibv_gid *gid)
{
	if (port_num != 1 || index != 0)
		return -1;
	rnic_ip_to_gid(to_rv_ctx(context)->dev->ip, gid);
	return 0;
}

static void rv_gid_entry(struct rv_context *ctx, struct ibv_gid_entry *e)
{
	memset(e, 0, sizeof(*e));
	rnic_ip_to_gid(ctx->dev->ip, &e->gid);
	e->gid_index = 0;
	e->port_num = 1;
	e->gid_type = IBV_GID_TYPE_ROCE_V2;
	e->ndev_ifindex = 0;
}

RV_EXPORT int _ibv_query_gid_ex(struct ibv_context *context, uint32_t port_num,
				uint32_t gid_index, struct ibv_gid_entry *entry,
				uint32_t flags, size_t entry_size)
{
	struct ibv_gid_entry e;

	if (flags || entry_size < sizeof(e) || port_num != 1)
		return EINVAL;
	if (gid_index != 0)
		return ENODATA;
	rv_gid_entry(to_rv_ctx(context), &e);
	memcpy(entry, &e, sizeof(e));
	return 0;
}

RV_EXPORT ssize_t _ibv_query_gid_table(struct ibv_context *context,
				       struct ibv_gid_entry *entries,
				       size_t max_entries, uint32_t flags,
				       size_t entry_size)
{
	if (flags || entry_size < sizeof(*entries))
		return -EINVAL;
	if (max_entries < 1)
		return -EINVAL;
	rv_gid_entry(to_rv_ctx(context), entries);
	return 1;
}

RV_EXPORT int ibv_query_pkey(struct ibv_context *context, uint8_t port_num,
			     int index, __be16 *pkey)
{
	(void)context;
	if (port_num != 1 || index != 0)
		return -1;
	*pkey = htobe16(0xffff);
	return 0;
}

RV_EXPORT int ibv_get_pkey_index(struct ibv_context *context, uint8_t port_num,
				 __be16 pkey)
{
	(void)context;
	if (port_num != 1 || pkey != htobe16(0xffff))
		return -1;
	return 0;
}

RV_EXPORT int ibv_resolve_eth_l2_from_gid(struct ibv_context *context,
					  struct ibv_ah_attr *attr,
					  uint8_t eth_mac[ETHERNET_LL_SIZE],
					  uint16_t *vid)
{
	uint64_t mac;
	uint32_t ip;
	int i;

	if (!attr->is_global || rnic_gid_to_ip(&attr->grh.dgid, &ip))
		return EINVAL;
	if (rnic_resolve_ip(to_rv_ctx(context)->sim, ip, &mac, NULL))
		return EINVAL;
	for (i = 0; i < ETHERNET_LL_SIZE; i++)
		eth_mac[i] = mac >> (40 - 8 * i);
	if (vid)
		*vid = 0xffff;	/* no VLAN */
	return 0;
}
