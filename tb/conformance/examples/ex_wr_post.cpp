// SPDX-License-Identifier: MIT
/*
 * ex_wr_post.cpp - the example of ibv_wr_post(3), compiled as the page
 * writes it: ibv_wr_post_create.inc and ibv_wr_post_post.inc are its two
 * paragraphs, verbatim. The page writes C++ (ibv_qp, ibv_qp_ex without
 * "struct") and passes qp_init_attr_ex by value, so this file is C++ and
 * qp_init_attr_ex is a struct ibv_qp_init_attr_ex that converts to its
 * pointer. The page calls ibv_set_wr_sge(), which no verbs.h declares: it
 * is its name for ibv_wr_set_sge(). Between the two paragraphs the QP is
 * connected (the page leaves that out), by a callback of the C main.
 */
#include <arpa/inet.h>
#include <string.h>
#include <infiniband/verbs.h>

#include "ex_wr_post.h"

struct example_qp_init_attr_ex : ibv_qp_init_attr_ex {
	operator ibv_qp_init_attr_ex *() { return this; }
};

static inline void ibv_set_wr_sge(ibv_qp_ex *qp, uint32_t lkey, uint64_t addr,
				  uint32_t length)
{
	ibv_wr_set_sge(qp, lkey, addr, length);
}

extern "C" int ex_wr_post_run(struct ex_wr_post_env *env)
{
	struct ibv_context *ctx = env->ctx;
	example_qp_init_attr_ex qp_init_attr_ex;
	int ret;

	memset(static_cast<ibv_qp_init_attr_ex *>(&qp_init_attr_ex), 0,
	       sizeof(ibv_qp_init_attr_ex));
	qp_init_attr_ex.pd = env->pd;
	qp_init_attr_ex.send_cq = env->cq;
	qp_init_attr_ex.recv_cq = env->cq;
	qp_init_attr_ex.cap.max_send_wr = 16;
	qp_init_attr_ex.cap.max_recv_wr = 16;
	qp_init_attr_ex.cap.max_send_sge = 1;
	qp_init_attr_ex.cap.max_recv_sge = 1;
	qp_init_attr_ex.comp_mask = IBV_QP_INIT_ATTR_PD;

#include "ibv_wr_post_create.inc"

	env->qp = qp;
	if (!qp || !qpx)
		return -1;
	env->connect(env);

	uint64_t my_wr_id_1 = env->wr_id[0], my_wr_id_2 = env->wr_id[1];
	uint32_t rkey = env->rkey, lkey = env->lkey;
	uint64_t remote_addr_1 = env->remote_addr[0];
	uint64_t remote_addr_2 = env->remote_addr[1];
	uint64_t local_addr_1 = env->local_addr[0];
	uint64_t local_addr_2 = env->local_addr[1];
	uint32_t length_1 = env->length[0], length_2 = env->length[1];

#include "ibv_wr_post_post.inc"

	return ret;
}
