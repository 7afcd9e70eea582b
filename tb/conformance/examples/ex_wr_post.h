/* SPDX-License-Identifier: MIT */
/* ex_wr_post.h - between the C main and the C++ body of ex_wr_post. */
#ifndef RNIC_EX_WR_POST_H
#define RNIC_EX_WR_POST_H

#include <stdint.h>
#include <infiniband/verbs.h>

#ifdef __cplusplus
extern "C" {
#endif

struct ex_wr_post_env {
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	struct ibv_cq *cq;
	struct ibv_qp *qp;		/* the example's QP */
	void (*connect)(struct ex_wr_post_env *env);	/* qp to RTS */
	void *priv;
	uint64_t wr_id[2];
	uint32_t rkey, lkey;
	uint64_t remote_addr[2], local_addr[2];
	uint32_t length[2];
};

/* Runs the page's example; returns its ret (or -1 if the QP was not
 * created). */
int ex_wr_post_run(struct ex_wr_post_env *env);

#ifdef __cplusplus
}
#endif

#endif /* RNIC_EX_WR_POST_H */
