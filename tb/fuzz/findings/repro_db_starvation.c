// SPDX-License-Identifier: MIT
/*
 * Finding db-starvation: a queue walk of up to 65535 WQEs keeps the engine
 * busy, the node's doorbell FIFOs fill, and since MMIO is strictly in
 * order every later MMIO access of the node - other QPs' doorbells and the
 * command interface - waits for the whole walk.
 *
 * Below the verbs library, with the driver (a user library may ring any
 * producer index): a QP in ERR gets RQ_DB with producer index 65535, so the
 * responder flushes 65535 receive WQEs in one go (rnic_rx_engine StRqFlush
 * yields to nothing, and the RQ doorbell FIFO is only taken when the engine
 * is idle); five receive doorbells of another QP follow (the 4-entry FIFO
 * fills, the MMIO write blocks), then a command. The command, about 20
 * cycles on an idle node, takes ~131k cycles and its CMD_STATUS read times
 * out once (100k cycles, the driver polls again); with two such QPs, 262k.
 * Meanwhile no packet of the node is processed either. The same happens
 * with SQ walks (a producer index behind the fetch index walks 65535 WQEs);
 * on 822dc3a two SQ walks stalled the command interface for 500k cycles.
 * Expected: doorbells (posted writes) never stall the MMIO channel, and
 * long flushes yield to other work.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rnic_drv.h"

static void mod(struct rnic_dev *d, struct rnic_qp *q, struct ibv_qp_attr *a, int m)
{
	if (rnic_qp_modify(d, q, a, m))
		exit(2);
}

static void conn(struct rnic_dev *d, struct rnic_qp *q, uint32_t dqpn, uint32_t ip)
{
	struct ibv_qp_attr a;

	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_INIT;
	a.port_num = 1;
	a.qp_access_flags = 7;
	mod(d, q, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_ACCESS_FLAGS);
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTR;
	a.path_mtu = IBV_MTU_1024;
	a.dest_qp_num = dqpn;
	a.max_dest_rd_atomic = 1;
	a.min_rnr_timer = 1;
	a.ah_attr.is_global = 1;
	a.ah_attr.port_num = 1;
	rnic_ip_to_gid(ip, &a.ah_attr.grh.dgid);
	mod(d, q, &a, IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN |
	    IBV_QP_RQ_PSN | IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER);
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTS;
	a.retry_cnt = 1;
	a.max_rd_atomic = 1;
	mod(d, q, &a, IBV_QP_STATE | IBV_QP_SQ_PSN | IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT |
	    IBV_QP_RNR_RETRY | IBV_QP_MAX_QP_RD_ATOMIC);
}

int main(void)
{
	struct rnic_dev *d0, *d1;
	struct rnic_sim *sim;
	struct rnic_cq cq0, cq1;
	struct rnic_qp a, b, c;
	struct ibv_qp_attr e;
	enum ibv_qp_state st;
	uint32_t pd0, pd1, sp, rp;
	uint64_t t0, took;
	int i, ret;

	if (rnic_dev_open(0, &d0) || rnic_dev_open(1, &d1))
		return 2;
	sim = d0->sim;
	if (rnic_pd_alloc(d0, &pd0) || rnic_pd_alloc(d1, &pd1) ||
	    rnic_cq_create(d0, 65536, &cq0) || rnic_cq_create(d1, 64, &cq1))
		return 2;
	{
		struct rnic_qp_init in = {
			.type = IBV_QPT_RC, .pdn = pd1, .scqn = cq1.cqn, .rcqn = cq1.cqn,
			.max_send_wr = 8, .max_recv_wr = 8, .max_send_sge = 1,
			.max_recv_sge = 1,
		};

		if (rnic_qp_create(d1, &in, &b))
			return 2;
		in.pdn = pd0;
		in.scqn = in.rcqn = cq0.cqn;
		if (rnic_qp_create(d0, &in, &a) || rnic_qp_create(d0, &in, &c))
			return 2;
	}
	conn(d1, &b, a.qpn, d0->ip);
	conn(d0, &a, b.qpn, d1->ip);
	conn(d0, &c, b.qpn, d1->ip);
	memset(&e, 0, sizeof(e));
	e.qp_state = IBV_QPS_ERR;
	mod(d0, &a, &e, IBV_QP_STATE);

	rnic_ring_rq(d0, a.qpn, 65535);	/* QP a in ERR: 65535 receive WQEs to flush */
	rnic_sim_step(sim, 100);
	t0 = rnic_sim_cycle(sim);
	for (i = 1; i <= 5; i++)
		rnic_ring_rq(d0, c.qpn, i);	/* another QP's receive doorbells */
	ret = rnic_qp_query_hw(d0, &c, &st, &sp, &rp);	/* a command */
	took = rnic_sim_cycle(sim) - t0;
	printf("QP_QUERY behind five RQ_DBs returned %d after %llu cycles (about 20 on an "
	       "idle node); MMIO reads that timed out: %llu\n", ret,
	       (unsigned long long)took, (unsigned long long)rnic_sim_mmio_timeouts(sim, 0));
	printf("FINDING db-starvation: %s\n", took > 2000 ? "reproduced" :
	       "not reproduced (fixed?)");
	/* Tear down (the sanitizer run reports anything left). */
	if (rnic_qp_destroy(d0, &a) || rnic_qp_destroy(d0, &c) || rnic_qp_destroy(d1, &b) ||
	    rnic_cq_destroy(d0, &cq0) || rnic_cq_destroy(d1, &cq1))
		return 2;
	rnic_pd_free(d0, pd0);
	rnic_pd_free(d1, pd1);
	rnic_dev_close(d0);
	rnic_dev_close(d1);
	return took > 2000;
}
