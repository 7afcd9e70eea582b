// SPDX-License-Identifier: MIT
/*
 * test_hooks.c - what transport tests need beyond the verbs: a directed
 * loss on the simulated wire (rnic_verbs_ext.h, version node
 * RNIC_VERBS_1.2). Programs that use them only run on the simulated RNIC.
 */
#include <errno.h>

#include "rnic_verbs.h"
#include "rnic_verbs_ext.h"

RV_EXPORT int rnic_verbs_wire_drop(unsigned int node, int opcode, int64_t psn,
				   unsigned int skip, unsigned int count)
{
	struct rnic_sim *sim = rnic_sim_global();
	int ret;

	if (!sim)
		return ENODEV;
	rnic_lock();
	ret = rnic_sim_wire_drop(sim, node, opcode, psn, skip, count);
	rnic_unlock();
	return ret ? EINVAL : 0;
}

RV_EXPORT uint64_t rnic_verbs_wire_drop_hits(unsigned int node)
{
	struct rnic_sim *sim = rnic_sim_global();

	return sim ? rnic_sim_wire_drop_hits(sim, node) : 0;
}

RV_EXPORT uint64_t rnic_verbs_wire_frames(unsigned int node)
{
	struct rnic_sim *sim = rnic_sim_global();

	return sim ? rnic_sim_wire_frames(sim, node) : 0;
}
