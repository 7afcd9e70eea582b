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
 * that, whenever the program's threads leave the model alone, runs the
 * simulation as far as the fabric lets it (rnic_sim_run_avail()) in chunks
 * of RV_ST_CHUNK cycles and handles device events, the way a program's own
 * empty polls would. While the program runs the model itself (its cycle
 * moved since this thread's last turn), this thread sleeps instead of
 * taking turns on the lock with it; a program thread that wants the lock
 * gets it after the current chunk (a ticket lock).
 *
 * Without RNIC_FABRIC there is no such thread and nothing changes.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "rnic_verbs.h"

#define RV_ST_CHUNK	256	/* cycles per turn, like an empty poll */
#define RV_ST_BLOCK_US	200	/* longest sleep on the fabric, lock held */
#define RV_ST_BACKOFF_US 50	/* sleep while the program runs the model */

static pthread_t rv_st;
static int rv_st_running;	/* under rnic_lock */
static int rv_st_stop;		/* under rnic_lock */

static void *rv_st_main(void *arg)
{
	const struct timespec backoff = { 0, RV_ST_BACKOFF_US * 1000 };
	struct rnic_sim *sim = arg;
	unsigned int idle = 0;
	uint64_t mine = ~0ull;	/* the cycle this thread left the model at */

	for (;;) {
		uint64_t ran;

		/*
		 * The program's threads first: while one of them runs the
		 * model (it moved on since this thread's last turn), stay out
		 * of the lock instead of taking turns with it. The cycle is
		 * read without the lock: a stale value only costs one backoff.
		 */
		if (__atomic_load_n(&rv_st_stop, __ATOMIC_RELAXED))
			break;
		if (rnic_sim_cycle(sim) != mine && mine != ~0ull) {
			mine = rnic_sim_cycle(sim);
			nanosleep(&backoff, NULL);
			continue;
		}
		rnic_lock();
		if (rv_st_stop) {
			rnic_unlock();
			break;
		}
		ran = rnic_sim_run_avail(sim, RV_ST_CHUNK);
		if (rv_ev_work)
			rv_ev_process();
		if (!ran && ++idle > 16)
			rnic_sim_fabric_block(sim, RV_ST_BLOCK_US);
		mine = rnic_sim_cycle(sim);
		rnic_unlock();
		if (ran)
			idle = 0;
	}
	return NULL;
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
