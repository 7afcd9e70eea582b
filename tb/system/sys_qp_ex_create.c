// SPDX-License-Identifier: MIT
/*
 * sys_qp_ex_create.c - ibv_create_qp_ex() with IBV_QP_INIT_ATTR_SEND_OPS_FLAGS
 * and ibv_qp_to_qp_ex() (ibv_wr_post(3): "If the QP does not support all
 * the requested work request types then QP creation will fail"):
 *
 *   supported_ops      RC with every RC operation, UC with SEND,
 *                      SEND_WITH_IMM, RDMA_WRITE(_WITH_IMM), LOCAL_INV,
 *                      BIND_MW, UD with SEND, SEND_WITH_IMM: created, in
 *                      RESET, with a struct ibv_qp_ex whose qp_base is the
 *                      QP and whose every builder/setter is set;
 *   unsupported_ops    each operation a QP type cannot do, alone or with
 *                      supported ones (RC: TSO, ATOMIC_WRITE; UC: READ,
 *                      atomics, SEND_WITH_INV, TSO; UD: everything but
 *                      the sends): NULL with errno EOPNOTSUPP;
 *   no_qp_ex           a QP from ibv_create_qp(), or from ibv_create_qp_ex()
 *                      without the flag, has no ibv_qp_ex (NULL).
 */
#define _DEFAULT_SOURCE

#include "common.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#define RC_OPS (IBV_QP_EX_WITH_RDMA_WRITE | IBV_QP_EX_WITH_RDMA_WRITE_WITH_IMM |	\
		IBV_QP_EX_WITH_SEND | IBV_QP_EX_WITH_SEND_WITH_IMM |		\
		IBV_QP_EX_WITH_RDMA_READ | IBV_QP_EX_WITH_ATOMIC_CMP_AND_SWP |	\
		IBV_QP_EX_WITH_ATOMIC_FETCH_AND_ADD | IBV_QP_EX_WITH_LOCAL_INV |	\
		IBV_QP_EX_WITH_BIND_MW | IBV_QP_EX_WITH_SEND_WITH_INV)
#define UC_OPS (IBV_QP_EX_WITH_RDMA_WRITE | IBV_QP_EX_WITH_RDMA_WRITE_WITH_IMM |	\
		IBV_QP_EX_WITH_SEND | IBV_QP_EX_WITH_SEND_WITH_IMM |		\
		IBV_QP_EX_WITH_LOCAL_INV | IBV_QP_EX_WITH_BIND_MW)
#define UD_OPS (IBV_QP_EX_WITH_SEND | IBV_QP_EX_WITH_SEND_WITH_IMM)

struct env {
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	struct ibv_cq *cq;
};

static struct ibv_qp *create(struct env *e, enum ibv_qp_type type,
			     uint32_t comp_mask, uint64_t ops)
{
	struct ibv_qp_init_attr_ex ia;

	memset(&ia, 0, sizeof(ia));
	ia.qp_type = type;
	ia.send_cq = e->cq;
	ia.recv_cq = e->cq;
	ia.cap.max_send_wr = 4;
	ia.cap.max_recv_wr = 4;
	ia.cap.max_send_sge = 1;
	ia.cap.max_recv_sge = 1;
	ia.pd = e->pd;
	ia.comp_mask = comp_mask;
	ia.send_ops_flags = ops;
	errno = 0;
	return ibv_create_qp_ex(e->ctx, &ia);
}

static void check_qpx(struct ibv_qp *qp, enum ibv_qp_type type)
{
	struct ibv_qp_ex *x = ibv_qp_to_qp_ex(qp);

	CHECK(x != NULL);
	CHECK(&x->qp_base == qp);
	CHECK_EQ(qp->qp_type, type);
	CHECK_EQ(qp->state, IBV_QPS_RESET);
	CHECK(x->wr_start && x->wr_complete && x->wr_abort);
	CHECK(x->wr_send && x->wr_send_imm && x->wr_send_inv);
	CHECK(x->wr_rdma_write && x->wr_rdma_write_imm && x->wr_rdma_read);
	CHECK(x->wr_atomic_cmp_swp && x->wr_atomic_fetch_add);
	CHECK(x->wr_bind_mw && x->wr_local_inv);
	CHECK(x->wr_set_sge && x->wr_set_sge_list);
	CHECK(x->wr_set_inline_data && x->wr_set_inline_data_list);
	CHECK(x->wr_set_ud_addr);
}

static void supported(struct env *e, enum ibv_qp_type type, uint64_t all)
{
	struct ibv_qp *qp;
	unsigned int bit;

	qp = create(e, type, IBV_QP_INIT_ATTR_PD | IBV_QP_INIT_ATTR_SEND_OPS_FLAGS, all);
	CHECKF(qp, "type %d with send_ops_flags 0x%llx: errno %d", type,
	       (unsigned long long)all, errno);
	check_qpx(qp, type);
	CHECK_OK(ibv_destroy_qp(qp));
	/* Each one alone. */
	for (bit = 0; bit < 16; bit++) {
		if (!(all & (1ull << bit)))
			continue;
		qp = create(e, type, IBV_QP_INIT_ATTR_PD |
			    IBV_QP_INIT_ATTR_SEND_OPS_FLAGS, 1ull << bit);
		CHECKF(qp, "type %d with send_ops_flags bit %u: errno %d", type,
		       bit, errno);
		check_qpx(qp, type);
		CHECK_OK(ibv_destroy_qp(qp));
	}
}

static void unsupported(struct env *e, enum ibv_qp_type type, uint64_t all,
			uint64_t bad)
{
	unsigned int bit;

	for (bit = 0; bit < 16; bit++) {
		struct ibv_qp *qp;

		if (!(bad & (1ull << bit)))
			continue;
		qp = create(e, type, IBV_QP_INIT_ATTR_PD |
			    IBV_QP_INIT_ATTR_SEND_OPS_FLAGS, 1ull << bit);
		CHECKF(!qp && errno == EOPNOTSUPP,
		       "type %d send_ops_flags bit %u alone: qp %p errno %d", type,
		       bit, (void *)qp, errno);
		qp = create(e, type, IBV_QP_INIT_ATTR_PD |
			    IBV_QP_INIT_ATTR_SEND_OPS_FLAGS, all | (1ull << bit));
		CHECKF(!qp && errno == EOPNOTSUPP,
		       "type %d send_ops_flags supported + bit %u: qp %p errno %d",
		       type, bit, (void *)qp, errno);
	}
}

int main(void)
{
	struct ibv_qp_init_attr ia;
	struct ibv_qp *qp;
	struct env e;

	e.ctx = t_open_device(T_DEV0);
	e.pd = CHECK_PTR(ibv_alloc_pd(e.ctx));
	e.cq = t_create_cq(e.ctx, 16);

	supported(&e, IBV_QPT_RC, RC_OPS);
	supported(&e, IBV_QPT_UC, UC_OPS);
	supported(&e, IBV_QPT_UD, UD_OPS);
	printf("supported_ops (RC, UC, UD): ok\n");

	unsupported(&e, IBV_QPT_RC, RC_OPS,
		    IBV_QP_EX_WITH_TSO | IBV_QP_EX_WITH_ATOMIC_WRITE);
	unsupported(&e, IBV_QPT_UC, UC_OPS,
		    IBV_QP_EX_WITH_RDMA_READ | IBV_QP_EX_WITH_ATOMIC_CMP_AND_SWP |
		    IBV_QP_EX_WITH_ATOMIC_FETCH_AND_ADD |
		    IBV_QP_EX_WITH_SEND_WITH_INV | IBV_QP_EX_WITH_TSO |
		    IBV_QP_EX_WITH_ATOMIC_WRITE);
	unsupported(&e, IBV_QPT_UD, UD_OPS,
		    RC_OPS & ~(uint64_t)UD_OPS);
	printf("unsupported_ops: EOPNOTSUPP: ok\n");

	/* no_qp_ex */
	memset(&ia, 0, sizeof(ia));
	ia.qp_type = IBV_QPT_RC;
	ia.send_cq = e.cq;
	ia.recv_cq = e.cq;
	ia.cap.max_send_wr = 4;
	ia.cap.max_recv_wr = 4;
	ia.cap.max_send_sge = 1;
	ia.cap.max_recv_sge = 1;
	qp = CHECK_PTR(ibv_create_qp(e.pd, &ia));
	CHECK(ibv_qp_to_qp_ex(qp) == NULL);
	CHECK_OK(ibv_destroy_qp(qp));
	qp = CHECK_PTR(create(&e, IBV_QPT_RC, IBV_QP_INIT_ATTR_PD, 0));
	CHECK(ibv_qp_to_qp_ex(qp) == NULL);
	CHECK_OK(ibv_destroy_qp(qp));
	printf("no_qp_ex: ok\n");

	CHECK_OK(ibv_destroy_cq(e.cq));
	CHECK_OK(ibv_dealloc_pd(e.pd));
	CHECK_OK(ibv_close_device(e.ctx));
	printf("sys_qp_ex_create: passed\n");
	return 0;
}
