/* SPDX-License-Identifier: MIT */
/*
 * flow_common.h - the setup every flow program shares: one RC pair (rnic0
 * requests, rnic1 responds, path MTU 1024) and a buffer on each side.
 *
 * The flows are the smallest programs that show one post/poll flow each in
 * a waveform (waveforms/trace_flow.sh); everything before the first
 * ibv_post_send is setup, so a trace window triggered by the first SQ
 * doorbell of node 0 holds exactly the flow. Written only against
 * <infiniband/verbs.h> (through tb/system/common.h).
 */
#ifndef RNIC_FLOW_COMMON_H
#define RNIC_FLOW_COMMON_H

#include "common.h"

#define FLOW_BUF_LEN 8192

struct flow {
	struct t_pair p;
	struct t_buf src;	/* on rnic0 */
	struct t_buf dst;	/* on rnic1 */
	uint32_t qpn0, qpn1;
};

/* @cfg: the pair (t_pair_default_cfg() and changes); @access: of both buffers. */
static inline void flow_open_cfg(struct flow *f, const struct t_pair_cfg *cfg,
				 unsigned int access, uint64_t seed0, uint64_t seed1)
{
	t_pair_open(&f->p, cfg);
	f->qpn0 = f->p.s[0].qp->qp_num;
	f->qpn1 = f->p.s[1].qp->qp_num;
	t_buf_alloc_access(&f->src, f->p.s[0].pd, FLOW_BUF_LEN, access);
	t_buf_alloc_access(&f->dst, f->p.s[1].pd, FLOW_BUF_LEN, access);
	t_fill(f->src.p, FLOW_BUF_LEN, seed0);
	t_fill(f->dst.p, FLOW_BUF_LEN, seed1);
}

static inline void flow_open(struct flow *f, uint64_t seed0, uint64_t seed1)
{
	struct t_pair_cfg cfg;

	t_pair_default_cfg(&cfg);
	flow_open_cfg(f, &cfg, T_MR_ACCESS, seed0, seed1);
}

static inline void flow_close(struct flow *f)
{
	t_buf_free(&f->src);
	t_buf_free(&f->dst);
	t_pair_close(&f->p);
}

#endif /* RNIC_FLOW_COMMON_H */
