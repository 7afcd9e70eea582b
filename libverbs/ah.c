// SPDX-License-Identifier: MIT
/*
 * ah.c - address handles for UD QPs: ibv_create_ah(), ibv_destroy_ah(),
 * ibv_init_ah_from_wc(), ibv_create_ah_from_wc().
 *
 * RoCEv2 with IPv4: an address vector names its destination by an
 * IPv4-mapped GID (::ffff:a.b.c.d) in the GRH (is_global = 1, port 1, source
 * GID index 0). ibv_create_ah() resolves it once, as the kernel's neighbour
 * lookup would: the IPv4 address and the MAC of the node that owns it
 * (rnic_sim_node_ip/_mac). The UD address segments of every send to it are
 * built from these (wqe.h). Errors: EINVAL for an address vector that is
 * not RoCE (no GRH, another port or GID index, a GID that is not
 * IPv4-mapped), EHOSTUNREACH for an IPv4 address no node owns.
 */
#include <stdlib.h>
#include <string.h>

#include "rnic_verbs.h"

RV_EXPORT struct ibv_ah *ibv_create_ah(struct ibv_pd *pd, struct ibv_ah_attr *attr)
{
	struct rv_context *ctx;
	struct rv_ah *ah;
	uint64_t mac;
	uint32_t ip;

	if (!pd || !attr) {
		errno = EINVAL;
		return NULL;
	}
	ctx = to_rv_ctx(pd->context);
	if (!attr->is_global || attr->port_num != 1 || attr->grh.sgid_index != 0 ||
	    rnic_gid_to_ip(&attr->grh.dgid, &ip)) {
		errno = EINVAL;
		return NULL;
	}
	rnic_lock();
	if (rnic_resolve_ip(ctx->sim, ip, &mac, NULL)) {
		rnic_unlock();
		errno = EHOSTUNREACH;
		return NULL;
	}
	rnic_unlock();
	ah = calloc(1, sizeof(*ah));
	if (!ah) {
		errno = ENOMEM;
		return NULL;
	}
	ah->ip = ip;
	ah->mac = mac;
	ah->attr = *attr;
	ah->ibah.context = pd->context;
	ah->ibah.pd = pd;
	ah->ibah.handle = ip;
	rnic_lock();
	to_rv_pd(pd)->refcnt++;		/* ibv_dealloc_pd: EBUSY while it lives */
	rnic_unlock();
	return &ah->ibah;
}

RV_EXPORT int ibv_destroy_ah(struct ibv_ah *ah)
{
	rnic_lock();
	to_rv_pd(ah->pd)->refcnt--;
	rnic_unlock();
	free(to_rv_ah(ah));
	return 0;
}

/*
 * The source and destination GIDs of a received GRH area: an IPv6 GRH
 * (version 6), or the RoCEv2 IPv4 layout of mlx5 and rxe: bytes 0-19
 * unused, the packet's IPv4 header in bytes 20-39.
 */
static int rv_grh_gids(const struct ibv_grh *grh, union ibv_gid *sgid,
		       union ibv_gid *dgid, uint32_t *flow, uint8_t *tclass)
{
	const uint8_t *ip4 = (const uint8_t *)grh + 20;
	uint32_t vtf = be32toh(grh->version_tclass_flow);

	if ((vtf >> 28) == 6) {
		*sgid = grh->sgid;
		*dgid = grh->dgid;
		*flow = vtf & 0xfffff;
		*tclass = (vtf >> 20) & 0xff;
		return 0;
	}
	if ((ip4[0] >> 4) == 4) {
		rnic_ip_to_gid((uint32_t)ip4[12] << 24 | (uint32_t)ip4[13] << 16 |
			       (uint32_t)ip4[14] << 8 | ip4[15], sgid);
		rnic_ip_to_gid((uint32_t)ip4[16] << 24 | (uint32_t)ip4[17] << 16 |
			       (uint32_t)ip4[18] << 8 | ip4[19], dgid);
		*flow = 0;
		*tclass = ip4[1];
		return 0;
	}
	return EPROTONOSUPPORT;
}

RV_EXPORT int ibv_init_ah_from_wc(struct ibv_context *context, uint8_t port_num,
				  struct ibv_wc *wc, struct ibv_grh *grh,
				  struct ibv_ah_attr *ah_attr)
{
	union ibv_gid sgid, dgid;
	uint32_t flow;
	uint8_t tclass;
	int ret;

	(void)context;
	if (port_num != 1) {
		errno = EINVAL;
		return -1;
	}
	memset(ah_attr, 0, sizeof(*ah_attr));
	ah_attr->dlid = wc->slid;
	ah_attr->sl = wc->sl;
	ah_attr->src_path_bits = wc->dlid_path_bits;
	ah_attr->port_num = port_num;
	if (!(wc->wc_flags & IBV_WC_GRH))
		return 0;
	ret = rv_grh_gids(grh, &sgid, &dgid, &flow, &tclass);
	if (ret) {
		errno = ret;
		return -1;
	}
	ah_attr->is_global = 1;
	ah_attr->grh.dgid = sgid;
	ah_attr->grh.flow_label = flow;
	ah_attr->grh.sgid_index = 0;
	ah_attr->grh.hop_limit = 0xff;
	ah_attr->grh.traffic_class = tclass;
	return 0;
}

RV_EXPORT struct ibv_ah *ibv_create_ah_from_wc(struct ibv_pd *pd, struct ibv_wc *wc,
					       struct ibv_grh *grh, uint8_t port_num)
{
	struct ibv_ah_attr attr;

	if (ibv_init_ah_from_wc(pd->context, port_num, wc, grh, &attr))
		return NULL;
	return ibv_create_ah(pd, &attr);
}
