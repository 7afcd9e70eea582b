// SPDX-License-Identifier: MIT
/*
 * misc.c - string and rate helpers, fork support, and the verbs the RNIC
 * does not implement (multicast): they fail the way their man pages
 * describe, never crash.
 */
#include <stdio.h>

#include "rnic_verbs.h"

/* ------------------------------------------------------------------------ */
/* Strings (the same texts as rdma-core, programs print and compare them)   */
/* ------------------------------------------------------------------------ */

RV_EXPORT const char *ibv_node_type_str(enum ibv_node_type node_type)
{
	static const char *const str[] = {
		[IBV_NODE_CA] = "InfiniBand channel adapter",
		[IBV_NODE_SWITCH] = "InfiniBand switch",
		[IBV_NODE_ROUTER] = "InfiniBand router",
		[IBV_NODE_RNIC] = "iWARP NIC",
		[IBV_NODE_USNIC] = "usNIC",
		[IBV_NODE_USNIC_UDP] = "usNIC UDP",
		[IBV_NODE_UNSPECIFIED] = "unspecified",
	};

	if (node_type < IBV_NODE_CA || node_type > IBV_NODE_UNSPECIFIED)
		return "unknown";
	return str[node_type];
}

RV_EXPORT const char *ibv_port_state_str(enum ibv_port_state port_state)
{
	static const char *const str[] = {
		[IBV_PORT_NOP] = "no state change (NOP)",
		[IBV_PORT_DOWN] = "down",
		[IBV_PORT_INIT] = "init",
		[IBV_PORT_ARMED] = "armed",
		[IBV_PORT_ACTIVE] = "active",
		[IBV_PORT_ACTIVE_DEFER] = "active defer",
	};

	if ((unsigned int)port_state > IBV_PORT_ACTIVE_DEFER)
		return "unknown";
	return str[port_state];
}

RV_EXPORT const char *ibv_event_type_str(enum ibv_event_type event)
{
	static const char *const str[] = {
		[IBV_EVENT_CQ_ERR] = "CQ error",
		[IBV_EVENT_QP_FATAL] = "local work queue catastrophic error",
		[IBV_EVENT_QP_REQ_ERR] = "invalid request local work queue error",
		[IBV_EVENT_QP_ACCESS_ERR] = "local access violation work queue error",
		[IBV_EVENT_COMM_EST] = "communication established",
		[IBV_EVENT_SQ_DRAINED] = "send queue drained",
		[IBV_EVENT_PATH_MIG] = "path migrated",
		[IBV_EVENT_PATH_MIG_ERR] = "path migration request error",
		[IBV_EVENT_DEVICE_FATAL] = "local catastrophic error",
		[IBV_EVENT_PORT_ACTIVE] = "port active",
		[IBV_EVENT_PORT_ERR] = "port error",
		[IBV_EVENT_LID_CHANGE] = "LID change",
		[IBV_EVENT_PKEY_CHANGE] = "P_Key change",
		[IBV_EVENT_SM_CHANGE] = "SM change",
		[IBV_EVENT_SRQ_ERR] = "SRQ catastrophic error",
		[IBV_EVENT_SRQ_LIMIT_REACHED] = "SRQ limit reached",
		[IBV_EVENT_QP_LAST_WQE_REACHED] = "last WQE reached",
		[IBV_EVENT_CLIENT_REREGISTER] = "client reregistration",
		[IBV_EVENT_GID_CHANGE] = "GID table change",
		[IBV_EVENT_WQ_FATAL] = "WQ fatal",
	};

	if ((unsigned int)event > IBV_EVENT_WQ_FATAL)
		return "unknown";
	return str[event];
}

RV_EXPORT const char *ibv_wc_status_str(enum ibv_wc_status status)
{
	static const char *const str[] = {
		[IBV_WC_SUCCESS] = "success",
		[IBV_WC_LOC_LEN_ERR] = "local length error",
		[IBV_WC_LOC_QP_OP_ERR] = "local QP operation error",
		[IBV_WC_LOC_EEC_OP_ERR] = "local EE context operation error",
		[IBV_WC_LOC_PROT_ERR] = "local protection error",
		[IBV_WC_WR_FLUSH_ERR] = "Work Request Flushed Error",
		[IBV_WC_MW_BIND_ERR] = "memory management operation error",
		[IBV_WC_BAD_RESP_ERR] = "bad response error",
		[IBV_WC_LOC_ACCESS_ERR] = "local access error",
		[IBV_WC_REM_INV_REQ_ERR] = "remote invalid request error",
		[IBV_WC_REM_ACCESS_ERR] = "remote access error",
		[IBV_WC_REM_OP_ERR] = "remote operation error",
		[IBV_WC_RETRY_EXC_ERR] = "transport retry counter exceeded",
		[IBV_WC_RNR_RETRY_EXC_ERR] = "RNR retry counter exceeded",
		[IBV_WC_LOC_RDD_VIOL_ERR] = "local RDD violation error",
		[IBV_WC_REM_INV_RD_REQ_ERR] = "remote invalid RD request",
		[IBV_WC_REM_ABORT_ERR] = "aborted error",
		[IBV_WC_INV_EECN_ERR] = "invalid EE context number",
		[IBV_WC_INV_EEC_STATE_ERR] = "invalid EE context state",
		[IBV_WC_FATAL_ERR] = "fatal error",
		[IBV_WC_RESP_TIMEOUT_ERR] = "response timeout error",
		[IBV_WC_GENERAL_ERR] = "general error",
		[IBV_WC_TM_ERR] = "TM error",
		[IBV_WC_TM_RNDV_INCOMPLETE] = "TM software rendezvous",
	};

	if ((unsigned int)status > IBV_WC_TM_RNDV_INCOMPLETE)
		return "unknown";
	return str[status];
}

/* ------------------------------------------------------------------------ */
/* Static rates                                                             */
/* ------------------------------------------------------------------------ */

/*
 * enum ibv_rate -> multiple of 2.5 Gb/s (-1 for the rates that are not one,
 * as in rdma-core), and signalling rate in Mb/s.
 */
static const struct {
	enum ibv_rate rate;
	int mult;
	int mbps;
} rv_rates[] = {
	{ IBV_RATE_2_5_GBPS, 1, 2500 },
	{ IBV_RATE_5_GBPS, 2, 5000 },
	{ IBV_RATE_10_GBPS, 4, 10000 },
	{ IBV_RATE_20_GBPS, 8, 20000 },
	{ IBV_RATE_30_GBPS, 12, 30000 },
	{ IBV_RATE_40_GBPS, 16, 40000 },
	{ IBV_RATE_60_GBPS, 24, 60000 },
	{ IBV_RATE_80_GBPS, 32, 80000 },
	{ IBV_RATE_120_GBPS, 48, 120000 },
	{ IBV_RATE_14_GBPS, -1, 14062 },
	{ IBV_RATE_56_GBPS, -1, 56250 },
	{ IBV_RATE_112_GBPS, -1, 112500 },
	{ IBV_RATE_168_GBPS, -1, 168750 },
	{ IBV_RATE_25_GBPS, -1, 25781 },
	{ IBV_RATE_100_GBPS, -1, 103125 },
	{ IBV_RATE_200_GBPS, -1, 206250 },
	{ IBV_RATE_300_GBPS, -1, 309375 },
	{ IBV_RATE_28_GBPS, 11, 28125 },
	{ IBV_RATE_50_GBPS, 20, 53125 },
	{ IBV_RATE_400_GBPS, 160, 425000 },
	{ IBV_RATE_600_GBPS, 240, 637500 },
	{ IBV_RATE_800_GBPS, 320, 850000 },
	{ IBV_RATE_1200_GBPS, 480, 1275000 },
};

#define RV_NRATES (sizeof(rv_rates) / sizeof(rv_rates[0]))

RV_EXPORT int ibv_rate_to_mult(enum ibv_rate rate)
{
	unsigned int i;

	for (i = 0; i < RV_NRATES; i++)
		if (rv_rates[i].rate == rate)
			return rv_rates[i].mult;
	return -1;
}

RV_EXPORT enum ibv_rate mult_to_ibv_rate(int mult)
{
	unsigned int i;

	if (mult <= 0)
		return IBV_RATE_MAX;
	for (i = 0; i < RV_NRATES; i++)
		if (rv_rates[i].mult == mult)
			return rv_rates[i].rate;
	return IBV_RATE_MAX;
}

RV_EXPORT int ibv_rate_to_mbps(enum ibv_rate rate)
{
	unsigned int i;

	for (i = 0; i < RV_NRATES; i++)
		if (rv_rates[i].rate == rate)
			return rv_rates[i].mbps;
	return -1;
}

RV_EXPORT enum ibv_rate mbps_to_ibv_rate(int mbps)
{
	unsigned int i;

	for (i = 0; i < RV_NRATES; i++)
		if (rv_rates[i].mbps == mbps)
			return rv_rates[i].rate;
	return IBV_RATE_MAX;
}

/* ------------------------------------------------------------------------ */
/* fork(): registered memory is not pinned by a kernel, nothing to protect   */
/* ------------------------------------------------------------------------ */

RV_EXPORT int ibv_fork_init(void)
{
	return 0;
}

RV_EXPORT enum ibv_fork_status ibv_is_fork_initialized(void)
{
	return IBV_FORK_UNNEEDED;
}

RV_EXPORT int ibv_dontfork_range(void *base, size_t size)
{
	(void)base;
	(void)size;
	return 0;
}

RV_EXPORT int ibv_dofork_range(void *base, size_t size)
{
	(void)base;
	(void)size;
	return 0;
}

/* Legacy provider registration (IBVERBS_1.1): this library only drives the
 * simulated RNIC. */
RV_EXPORT void ibv_register_driver(const char *name, void *init_func);

void ibv_register_driver(const char *name, void *init_func)
{
	(void)init_func;
	fprintf(stderr, "rnic: ibv_register_driver(%s) ignored: this libibverbs drives only the simulated RNIC\n",
		name ? name : "?");
}

/* ------------------------------------------------------------------------ */
/* Multicast: not supported (address handles are in ah.c)                  */
/* ------------------------------------------------------------------------ */

RV_EXPORT int ibv_attach_mcast(struct ibv_qp *qp, const union ibv_gid *gid,
			       uint16_t lid)
{
	(void)qp;
	(void)gid;
	(void)lid;
	return EOPNOTSUPP;
}

RV_EXPORT int ibv_detach_mcast(struct ibv_qp *qp, const union ibv_gid *gid,
			       uint16_t lid)
{
	(void)qp;
	(void)gid;
	(void)lid;
	return EOPNOTSUPP;
}

/* ------------------------------------------------------------------------ */
/* Extensions for benchmarks (rnic_verbs_ext.h), version node RNIC_VERBS_1.0 */
/* ------------------------------------------------------------------------ */

#include "rnic_verbs_ext.h"

RV_EXPORT uint64_t rnic_verbs_sim_cycle(void)
{
	struct rnic_sim *sim;
	uint64_t c;

	rnic_lock();
	sim = rnic_sim_global();
	c = sim ? rnic_sim_cycle(sim) : 0;
	rnic_unlock();
	return c;
}

/* Version node RNIC_VERBS_1.6 */
RV_EXPORT uint64_t rnic_verbs_sim_step(uint64_t cycles)
{
	struct rnic_sim *sim;
	uint64_t c;

	rnic_lock();
	sim = rnic_sim_global();
	if (sim)
		rnic_sim_step(sim, cycles);
	c = sim ? rnic_sim_cycle(sim) : 0;
	rnic_unlock();
	return c;
}

RV_EXPORT unsigned int rnic_verbs_data_bits(void)
{
	struct rnic_sim *sim;
	unsigned int bits;

	rnic_lock();
	sim = rnic_sim_global();
	bits = sim ? rnic_sim_data_bits(sim) : 0;
	rnic_unlock();
	return bits;
}
