// SPDX-License-Identifier: MIT
/*
 * marshall.c - conversions between the kernel's uverbs/ucma structures and
 * the verbs ones (IBVERBS_1.0/1.1). librdmacm calls them on the replies of
 * the RDMA CM kernel interface; they touch no device, so they work here
 * exactly as in rdma-core: the same fields are converted (qp_state and
 * qp_attr_mask are the caller's business, as there).
 */
#include <string.h>

#include "rnic_verbs.h"
#include "rv_abi.h"

RV_EXPORT void ibv_copy_ah_attr_from_kern(struct ibv_ah_attr *dst,
					  struct ib_uverbs_ah_attr *src)
{
	memcpy(dst->grh.dgid.raw, src->grh.dgid, sizeof(dst->grh.dgid.raw));
	dst->grh.flow_label = src->grh.flow_label;
	dst->grh.sgid_index = src->grh.sgid_index;
	dst->grh.hop_limit = src->grh.hop_limit;
	dst->grh.traffic_class = src->grh.traffic_class;
	dst->dlid = src->dlid;
	dst->sl = src->sl;
	dst->src_path_bits = src->src_path_bits;
	dst->static_rate = src->static_rate;
	dst->is_global = src->is_global;
	dst->port_num = src->port_num;
}

RV_EXPORT void ibv_copy_qp_attr_from_kern(struct ibv_qp_attr *dst,
					  struct ib_uverbs_qp_attr *src)
{
	dst->cur_qp_state = src->cur_qp_state;
	dst->path_mtu = src->path_mtu;
	dst->path_mig_state = src->path_mig_state;
	dst->qkey = src->qkey;
	dst->rq_psn = src->rq_psn;
	dst->sq_psn = src->sq_psn;
	dst->dest_qp_num = src->dest_qp_num;
	dst->qp_access_flags = src->qp_access_flags;

	dst->cap.max_send_wr = src->max_send_wr;
	dst->cap.max_recv_wr = src->max_recv_wr;
	dst->cap.max_send_sge = src->max_send_sge;
	dst->cap.max_recv_sge = src->max_recv_sge;
	dst->cap.max_inline_data = src->max_inline_data;

	ibv_copy_ah_attr_from_kern(&dst->ah_attr, &src->ah_attr);
	ibv_copy_ah_attr_from_kern(&dst->alt_ah_attr, &src->alt_ah_attr);

	dst->pkey_index = src->pkey_index;
	dst->alt_pkey_index = src->alt_pkey_index;
	dst->en_sqd_async_notify = src->en_sqd_async_notify;
	dst->sq_draining = src->sq_draining;
	dst->max_rd_atomic = src->max_rd_atomic;
	dst->max_dest_rd_atomic = src->max_dest_rd_atomic;
	dst->min_rnr_timer = src->min_rnr_timer;
	dst->port_num = src->port_num;
	dst->timeout = src->timeout;
	dst->retry_cnt = src->retry_cnt;
	dst->rnr_retry = src->rnr_retry;
	dst->alt_port_num = src->alt_port_num;
	dst->alt_timeout = src->alt_timeout;
}

/* Path records: the same fields both ways; the byte order of each is the
 * same in both structures (network order for LIDs, P_Key, flow label). */
#define RV_PATH_REC_FIELDS(d, s)					\
	do {								\
		(d)->dlid = (s)->dlid;					\
		(d)->slid = (s)->slid;					\
		(d)->raw_traffic = (s)->raw_traffic;			\
		(d)->flow_label = (s)->flow_label;			\
		(d)->hop_limit = (s)->hop_limit;			\
		(d)->traffic_class = (s)->traffic_class;		\
		(d)->reversible = (s)->reversible;			\
		(d)->numb_path = (s)->numb_path;			\
		(d)->pkey = (s)->pkey;					\
		(d)->sl = (s)->sl;					\
		(d)->mtu_selector = (s)->mtu_selector;			\
		(d)->mtu = (s)->mtu;					\
		(d)->rate_selector = (s)->rate_selector;		\
		(d)->rate = (s)->rate;					\
		(d)->packet_life_time = (s)->packet_life_time;		\
		(d)->preference = (s)->preference;			\
		(d)->packet_life_time_selector = (s)->packet_life_time_selector; \
	} while (0)

RV_EXPORT void ibv_copy_path_rec_from_kern(struct ibv_sa_path_rec *dst,
					   struct ib_user_path_rec *src)
{
	memcpy(dst->dgid.raw, src->dgid, sizeof(dst->dgid.raw));
	memcpy(dst->sgid.raw, src->sgid, sizeof(dst->sgid.raw));
	RV_PATH_REC_FIELDS(dst, src);
}

RV_EXPORT void ibv_copy_path_rec_to_kern(struct ib_user_path_rec *dst,
					 struct ibv_sa_path_rec *src)
{
	memcpy(dst->dgid, src->dgid.raw, sizeof(dst->dgid));
	memcpy(dst->sgid, src->sgid.raw, sizeof(dst->sgid));
	RV_PATH_REC_FIELDS(dst, src);
}
