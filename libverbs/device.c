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
#include "rv_abi.h"

/* The compat symbol ibv_query_port is hidden behind a macro in verbs.h. */
#undef ibv_query_port

#define RV_CORE_CLOCK_KHZ	250000	/* nominal core clock (docs: time model) */
#define RV_MAX_RD_ATOM		8	/* as the driver (driver/rnic_qp.c) */
#define RV_MAX_MSG_SZ		0x80000000u
/*
 * Identity (docs/verbs.md, "Device identity"). vendor_id is an IEEE
 * company identifier, as mlx5's 0x02c9 (OUI 00:02:C9): 52:4E:49, "RNI" of
 * the DEV_ID register's "RNIC", has the locally administered bit set (bit 1
 * of the first octet) and the AAI quadrant's Y/Z bits clear, so no IEEE
 * registration can ever hold it. vendor_part_id 1: the RNIC of this
 * repository, the only part of that vendor.
 */
#define RV_VENDOR_ID		0x524e49
#define RV_VENDOR_PART_ID	1
#define RV_HCA_TYPE		"RNIC"
#define RV_GID_TBL_LEN		1	/* one IPv4-mapped RoCEv2 GID per port */

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
			 "%s/class/infiniband_verbs/uverbs%u", ibv_get_sysfs_path(), n);
		snprintf(d->ibdev_path, sizeof(d->ibdev_path),
			 "%s/class/infiniband/rnic%u", ibv_get_sysfs_path(), n);
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
	/*
	 * There is no kernel command channel, yet programs treat cmd_fd as an
	 * open descriptor (pyverbs dup()s it to import the context). An
	 * O_PATH descriptor is one that carries nothing: read, write, ioctl
	 * and mmap on it fail with EBADF; ibv_import_device() refuses it.
	 */
	ibctx->cmd_fd = open("/dev/null", O_PATH | O_CLOEXEC);
	ibctx->async_fd = -1;
	ctx->async_wfd = -1;
	/* A pipe the library writes asynchronous events into (events.c). */
	ret = rv_ev_ctx_open(ctx);
	if (ret) {
		if (ibctx->cmd_fd >= 0)
			close(ibctx->cmd_fd);
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
	ctx->vctx.modify_cq = rv_modify_cq;

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
	if (context->cmd_fd >= 0)
		close(context->cmd_fd);
	pthread_mutex_destroy(&context->mutex);
	free(ctx->qp_table);
	free(ctx);
	return 0;
}

/* Sharing a context across processes or descriptors needs a kernel
 * object to share; the simulated device has none (docs/verbs.md). */
RV_EXPORT struct ibv_context *ibv_import_device(int cmd_fd)
{
	(void)cmd_fd;
	errno = EOPNOTSUPP;
	return NULL;
}

/* ------------------------------------------------------------------------ */
/* Device attributes                                                        */
/* ------------------------------------------------------------------------ */

static void rv_fill_device_attr(const struct rnic_dev *dev, struct ibv_device_attr *a)
{
	const struct rnic_caps *caps = &dev->caps;

	memset(a, 0, sizeof(*a));
	/* No firmware: the version of the hardware (DEV_ID register). */
	snprintf(a->fw_ver, sizeof(a->fw_ver), "%u.%u",
		 RNIC_DEV_ID_MAJOR(caps->version), RNIC_DEV_ID_MINOR(caps->version));
	a->node_guid = rv_guid(dev->mac);
	a->sys_image_guid = a->node_guid;	/* one port, one device per system image */
	a->max_mr_size = RNIC_MAX_MR_SIZE;
	a->page_size_cap = RNIC_PAGE_SIZE;	/* the IOMMU maps 4 KiB pages */
	a->vendor_id = RV_VENDOR_ID;
	a->vendor_part_id = RV_VENDOR_PART_ID;
	a->hw_ver = RNIC_DEV_ID_MAJOR(caps->version);
	a->max_qp = caps->n_qp - 2;		/* QPN 0 and 1 are reserved */
	a->max_qp_wr = RNIC_MAX_QP_WR;
	/*
	 * What the device does (docs/verbs.md): RNR NAKs; memory windows of
	 * type 1 and 2B; the memory management extensions of the IB spec
	 * that verbs reach (LOCAL_INV, SEND_WITH_INV, type 2 windows bound by
	 * a WQE: sys_local_inv, sys_send_inv, sys_mw_bind); sys_image_guid;
	 * the port of a UD address vector is checked (ibv_create_ah: port 1
	 * only). No checksum offload (IBV_SEND_IP_CSUM is refused), no SRQ
	 * resize, no port events, no XRC.
	 */
	a->device_cap_flags = IBV_DEVICE_RC_RNR_NAK_GEN | IBV_DEVICE_MEM_WINDOW |
			      IBV_DEVICE_MEM_WINDOW_TYPE_2B | IBV_DEVICE_MEM_MGT_EXTENSIONS |
			      IBV_DEVICE_SYS_IMAGE_GUID | IBV_DEVICE_UD_AV_PORT_ENFORCE;
	a->max_sge = caps->max_sge;
	a->max_sge_rd = caps->max_sge;
	a->max_cq = caps->n_cq - 1;		/* CQ 0 is the event queue */
	a->max_cqe = RNIC_MAX_CQE;
	a->max_mr = caps->n_mr - 1;		/* MR index 0 is reserved */
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
	a->local_ca_ack_delay = 0;	/* ACKs leave within 4.096 us * 2^0 */
	a->phys_port_cnt = 1;
}

RV_EXPORT int ibv_query_device(struct ibv_context *context,
			       struct ibv_device_attr *device_attr)
{
	rv_fill_device_attr(to_rv_ctx(context)->dev, device_attr);
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
	rv_fill_device_attr(to_rv_ctx(context)->dev, &a.orig_attr);
	/* Completion timestamps are free-running core cycles (cq_ex.c). */
	a.completion_timestamp_mask = UINT64_MAX;
	a.hca_core_clock = RV_CORE_CLOCK_KHZ;
	a.device_cap_flags_ex = a.orig_attr.device_cap_flags;
	a.phys_port_cnt_ex = 1;
	/* CQ moderation (ibv_modify_cq): 16-bit count and period. */
	a.cq_mod_caps.max_cq_count = UINT16_MAX;
	a.cq_mod_caps.max_cq_period = UINT16_MAX;
	/* Everything else is 0: no ODP, TSO, RSS, WQs, tag matching, packet
	 * pacing, device memory or PCI atomics. */
	memcpy(attr, &a, attr_size < sizeof(a) ? attr_size : sizeof(a));
	return 0;
}

/* ------------------------------------------------------------------------ */
/* Port                                                                     */
/* ------------------------------------------------------------------------ */

/* Bits per cycle of the wire model's links: RNIC_WIRE_BYTES_PER_CYCLE
 * (read as the model reads it, model/sim.cpp) or the datapath width. */
static unsigned int rv_link_bits(struct rnic_sim *sim)
{
	const char *s = getenv("RNIC_WIRE_BYTES_PER_CYCLE");
	unsigned long x = 0;
	char *end;

	if (s && *s) {
		x = strtoul(s, &end, 0);
		if (*end || x > 0xffffffffu / 8)
			x = 0;
	}
	return x ? (unsigned int)x * 8 : rnic_sim_data_bits(sim);
}

/* The IB width/speed pair (1x or 4x) closest to, and not above, the link
 * rate at the nominal clock. */
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

static int rv_fill_port_attr(unsigned int link_bits, uint8_t port_num,
			     struct ibv_port_attr *a)
{
	if (port_num != 1)
		return EINVAL;
	memset(a, 0, sizeof(*a));
	a->state = IBV_PORT_ACTIVE;
	a->max_mtu = IBV_MTU_4096;
	a->active_mtu = IBV_MTU_4096;
	a->gid_tbl_len = RV_GID_TBL_LEN;
	/* RoCE: GIDs are IP addresses; no subnet manager, no CM agent. */
	a->port_cap_flags = IBV_PORT_IP_BASED_GIDS;
	a->max_msg_sz = RV_MAX_MSG_SZ;
	a->pkey_tbl_len = 1;
	a->lid = 0;
	a->sm_lid = 0;
	a->max_vl_num = 1;
	rv_port_rate(link_bits, &a->active_width, &a->active_speed);
	a->phys_state = 5;	/* LinkUp */
	a->link_layer = IBV_LINK_LAYER_ETHERNET;
	/* Addresses are GIDs: an AH or RC/UC path without a GRH cannot name
	 * a node (ah.c, driver/rnic_qp.c). */
	a->flags = IBV_QPF_GRH_REQUIRED;
	return 0;
}

static int rv_query_port(struct ibv_context *context, uint8_t port_num,
			 struct ibv_port_attr *port_attr, size_t port_attr_len)
{
	struct ibv_port_attr a;
	int ret;

	ret = rv_fill_port_attr(rv_link_bits(to_rv_ctx(context)->sim), port_num, &a);
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

	if (flags || entry_size < sizeof(e) || port_num != 1 ||
	    gid_index >= RV_GID_TBL_LEN)
		return EINVAL;
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

/* rdma-core's GID types: RoCE v1 and IB share a value; every GID here is a
 * RoCE v2 one. An index outside the table fails (-1). */
RV_EXPORT int ibv_query_gid_type(struct ibv_context *context, uint8_t port_num,
				 unsigned int index, enum ibv_gid_type_sysfs *type)
{
	(void)context;
	if (port_num != 1 || index >= RV_GID_TBL_LEN) {
		errno = EINVAL;
		return -1;
	}
	*type = IBV_GID_TYPE_SYSFS_ROCE_V2;
	return 0;
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

/* ------------------------------------------------------------------------ */
/* sysfs files of the devices (sysfs.c)                                     */
/* ------------------------------------------------------------------------ */

struct rv_device *rv_device_by_path(const char *path, int *uverbs, const char **rest)
{
	static const char *const dirs[2] = {
		"/class/infiniband/rnic", "/class/infiniband_verbs/uverbs",
	};
	const char *root = ibv_get_sysfs_path();
	size_t rlen = strlen(root);
	unsigned long n;
	const char *p;
	char *end;
	int i, ret;

	if (strncmp(path, root, rlen))
		return NULL;
	for (i = 0; i < 2; i++) {
		size_t dlen = strlen(dirs[i]);

		p = path + rlen;
		if (strncmp(p, dirs[i], dlen))
			continue;
		p += dlen;
		if (*p < '0' || *p > '9')
			return NULL;
		n = strtoul(p, &end, 10);
		if (*end != '/')
			return NULL;
		rnic_lock();
		ret = rv_setup_devices();
		rnic_unlock();
		if (ret || n >= rv_ndevices)
			return NULL;
		*uverbs = i;
		*rest = end + 1;
		return &rv_devices[n];
	}
	return NULL;
}

static void rv_guid_str(__be64 guid, char *val, size_t size)
{
	uint64_t g = be64toh(guid);

	snprintf(val, size, "%04x:%04x:%04x:%04x", (unsigned int)(g >> 48) & 0xffff,
		 (unsigned int)(g >> 32) & 0xffff, (unsigned int)(g >> 16) & 0xffff,
		 (unsigned int)g & 0xffff);
}

/* "100 Gb/sec (4X EDR)", as the kernel's ports/N/rate. */
static void rv_rate_str(uint8_t width, uint8_t speed, char *val, size_t size)
{
	static const struct { uint8_t code; unsigned int tenth_gbps; const char *name; } speeds[] = {
		{ 1, 25, "" }, { 2, 50, " DDR" }, { 4, 100, " QDR" }, { 8, 100, " FDR10" },
		{ 16, 140, " FDR" }, { 32, 250, " EDR" }, { 64, 500, " HDR" },
		{ 128, 1000, " NDR" },
	};
	unsigned int lanes = width == 2 ? 4 : width == 4 ? 8 : width == 8 ? 12 :
			     width == 16 ? 2 : 1;
	unsigned int i, r = 0;
	const char *name = "";

	for (i = 0; i < sizeof(speeds) / sizeof(speeds[0]); i++) {
		if (speeds[i].code == speed) {
			r = speeds[i].tenth_gbps * lanes;
			name = speeds[i].name;
		}
	}
	snprintf(val, size, "%u%s Gb/sec (%uX%s)", r / 10, r % 10 ? ".5" : "", lanes, name);
}

/* The hardware's version is read at the device's bring-up, which a kernel
 * does at probe and this library at the first open (the device then stays
 * initialised for the life of the process, driver/rnic_drv.c). */
static int rv_device_version(struct rv_device *d, uint32_t *version)
{
	struct rnic_dev *dev;
	int ret;

	ret = rnic_dev_open(d->node, &dev);
	if (ret)
		return ret;
	*version = dev->caps.version;
	rnic_dev_close(dev);
	return 0;
}

int rv_device_sysfs(struct rv_device *d, int uverbs, const char *file,
		    char *val, size_t size)
{
	struct rnic_sim *sim = rnic_sim_global();
	struct ibv_port_attr pa;
	union ibv_gid gid;
	uint32_t version;
	unsigned int i;
	int ret;

	if (!sim)
		return ENODEV;
	if (uverbs) {
		if (!strcmp(file, "ibdev"))
			snprintf(val, size, "%s", d->ibdev.name);
		else if (!strcmp(file, "abi_version"))
			snprintf(val, size, "1");
		else
			return ENOENT;
		return 0;
	}
	if (!strcmp(file, "node_type")) {
		snprintf(val, size, "1: CA");
	} else if (!strcmp(file, "node_guid") || !strcmp(file, "sys_image_guid")) {
		rv_guid_str(rv_guid(rnic_sim_node_mac(sim, d->node) & RNIC_MAC_MASK),
			    val, size);
	} else if (!strcmp(file, "fw_ver") || !strcmp(file, "hw_rev")) {
		ret = rv_device_version(d, &version);
		if (ret)
			return ret;
		if (file[0] == 'f')
			snprintf(val, size, "%u.%u", RNIC_DEV_ID_MAJOR(version),
				 RNIC_DEV_ID_MINOR(version));
		else
			snprintf(val, size, "0x%x", RNIC_DEV_ID_MAJOR(version));
	} else if (!strcmp(file, "hca_type")) {
		snprintf(val, size, RV_HCA_TYPE);
	} else if (!strcmp(file, "board_id")) {
		/* The board: the simulated RNIC and its datapath width. */
		snprintf(val, size, "RNIC-SIM-%u", rnic_sim_data_bits(sim));
	} else if (!strcmp(file, "node_desc")) {
		snprintf(val, size, "%s simulated RoCEv2 RNIC", d->ibdev.name);
	} else if (!strncmp(file, "ports/1/", 8)) {
		file += 8;
		rv_fill_port_attr(rv_link_bits(sim), 1, &pa);
		if (!strcmp(file, "state"))
			snprintf(val, size, "4: ACTIVE");
		else if (!strcmp(file, "phys_state"))
			snprintf(val, size, "5: LinkUp");
		else if (!strcmp(file, "link_layer"))
			snprintf(val, size, "Ethernet");
		else if (!strcmp(file, "rate"))
			rv_rate_str(pa.active_width, pa.active_speed, val, size);
		else if (!strcmp(file, "lid") || !strcmp(file, "sm_lid"))
			snprintf(val, size, "0x0");
		else if (!strcmp(file, "lid_mask_count") || !strcmp(file, "sm_sl"))
			snprintf(val, size, "0");
		else if (!strcmp(file, "cap_mask"))
			snprintf(val, size, "0x%08x", pa.port_cap_flags);
		else if (!strcmp(file, "pkeys/0"))
			snprintf(val, size, "0xffff");
		else if (!strcmp(file, "gids/0")) {
			/* eight groups of four hex digits, as %pI6 */
			rnic_ip_to_gid(rnic_sim_node_ip(sim, d->node), &gid);
			val[0] = '\0';
			for (i = 0; i < 8; i++)
				snprintf(val + strlen(val), size - strlen(val), "%s%02x%02x",
					 i ? ":" : "", gid.raw[2 * i], gid.raw[2 * i + 1]);
		} else if (!strcmp(file, "gid_attrs/types/0"))
			snprintf(val, size, "RoCE v2");
		else
			return ENOENT;
	} else {
		return ENOENT;
	}
	return 0;
}
