// SPDX-License-Identifier: MIT
/*
 * simthread.c - keeps this process's nodes running on a multi-process fabric
 * while the program is outside the library (docs/fabric.md).
 *
 * In one process simulated time only moves inside library calls: software
 * is instantaneous. Across processes that rule would stop the whole fabric
 * whenever one program computes or waits for something else (perftest's
 * server sits in a TCP read() for the whole test while its NIC must ACK
 * WRITEs, answer READs and retransmit). So a fabric process runs one thread
 * that, whenever it can take the rnic lock, runs the simulation as far as
 * the fabric lets it (rnic_sim_run_avail()) in chunks of RV_ST_CHUNK cycles
 * and handles device events, the way a program's own empty polls would. The
 * lock is a ticket lock: a program thread that wants it gets it after the
 * current chunk.
 *
 * Without RNIC_FABRIC there is no such thread and nothing changes.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>

#include "rnic_verbs.h"

#define RV_ST_CHUNK	256	/* cycles per turn, like an empty poll */
#define RV_ST_BLOCK_US	200	/* longest sleep on the fabric, lock held */

static pthread_t rv_st;
static int rv_st_running;	/* under rnic_lock */
static int rv_st_stop;		/* under rnic_lock */

static void *rv_st_main(void *arg)
{
	struct rnic_sim *sim = arg;
	unsigned int idle = 0;

	for (;;) {
		uint64_t ran;

		rnic_lock();
		if (rv_st_stop) {
			rnic_unlock();
			return NULL;
		}
		ran = rnic_sim_run_avail(sim, RV_ST_CHUNK);
		if (rv_ev_work)
			rv_ev_process();
		if (!ran && ++idle > 16)
			rnic_sim_fabric_block(sim, RV_ST_BLOCK_US);
		rnic_unlock();
		if (ran)
			idle = 0;
		sched_yield();	/* the program's threads first */
	}
}

/* atexit: the thread must be gone before the simulation is destroyed (the
 * simulation's own exit handler was registered earlier, so it runs later). */
static void rv_st_exit(void)
{
	int running;

	rnic_lock();
	rv_st_stop = 1;
	running = rv_st_running;
	rv_st_running = 0;
	rnic_unlock();
	if (running)
		pthread_join(rv_st, NULL);
}

void rv_simthread_start(struct rnic_sim *sim)
{
	rnic_lock();
	if (!rv_st_running && !rv_st_stop && rnic_sim_fabric_dir(sim)) {
		if (pthread_create(&rv_st, NULL, rv_st_main, sim)) {
			fprintf(stderr, "rnic: cannot start the simulation thread; the "
				"NIC runs only inside verbs calls\n");
		} else {
			rv_st_running = 1;
			atexit(rv_st_exit);
		}
	}
	rnic_unlock();
}
