// SPDX-License-Identifier: MIT
/*
 * evwait.c - simulated time while software waits on our event file
 * descriptors (context->async_fd, channel->fd), docs/time-model.md.
 *
 * Software is instantaneous for the model: a program that blocks on one of
 * our fds waits for the hardware, so the wait must run the simulation. The
 * rule, for ibv_get_async_event(), ibv_get_cq_event() and for poll(),
 * ppoll(), select(), pselect(), epoll_wait(), epoll_pwait() and
 * epoll_pwait2() (this library exports them; they reach libc's through
 * dlsym(RTLD_NEXT)) when the set holds one of our fds:
 *
 *  1. If something in the set is ready (a real zero-timeout call), return.
 *  2. Else run the simulation in steps - rnic_sim_wait() on the device of the
 *     fds, which returns as soon as that device writes host memory or
 *     raises an interrupt, or one cycle at a time when the set holds fds of
 *     several devices - processing the event queue after each step, and look
 *     at the set again (a real zero-timeout call) whenever one of our pipes
 *     got a record, and every RV_EV_REAL_CHECK cycles for the other fds.
 *  3. The timeout is simulated time: 1 ms = 250,000 cycles of the 250 MHz
 *     core clock (ppoll/pselect/epoll_pwait2: ns / 4). A zero timeout still
 *     lets the simulation run RV_POLL_WAIT_CYCLES (256) once, like an empty
 *     ibv_poll_cq(), so a non-blocking polling loop advances time. When the
 *     timeout has run out in simulated time the call returns what a final
 *     zero-timeout call says (0: timeout); select() leaves the simulated
 *     time left in *timeout as Linux does.
 *  4. An infinite timeout (and a blocking ibv_get_*_event()) runs at most
 *     rv_ev_wait_cap() cycles (RNIC_EVENT_WAIT_CAP, default 250,000,000 =
 *     1 s), then makes the real blocking call: whatever runs the simulation
 *     from then on (another thread) still writes events into the pipes and
 *     wakes it.
 *
 * Everything here is decided by simulated cycles and the program's calls,
 * so a single-threaded program is deterministic. Threads that wait while
 * others work interleave their simulation steps as the scheduler lets them,
 * like threads that poll CQs.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/select.h>
#include <time.h>

#include "rnic_verbs.h"

/* Largest single rnic_sim_wait() of a one-device wait (it returns earlier
 * on activity) and the interval of looking at the other fds. */
#define RV_EV_STEP		65536
#define RV_EV_REAL_CHECK	65536
#define RV_EV_DEFAULT_CAP	(1000 * RV_CYCLES_PER_MS)
#define RV_NS_PER_CYCLE		4

/* ------------------------------------------------------------------------ */
/* Our fds                                                                  */
/* ------------------------------------------------------------------------ */

struct rv_evfd {
	int fd;
	unsigned int node;
};

struct rv_epfd {
	int epfd;
	int fd;
};

static pthread_mutex_t rv_fd_lock = PTHREAD_MUTEX_INITIALIZER;
static struct rv_evfd *rv_evfds;
static unsigned int rv_nevfds, rv_evfds_cap;
static struct rv_epfd *rv_epfds;
static unsigned int rv_nepfds, rv_epfds_cap;
static int rv_any_fds;		/* rv_nevfds != 0, read without the lock */

static int rv_grow(void **arr, unsigned int *cap, size_t elem)
{
	unsigned int n = *cap ? *cap * 2 : 16;
	void *p = realloc(*arr, n * elem);

	if (!p)
		return ENOMEM;
	*arr = p;
	*cap = n;
	return 0;
}

int rv_fd_register(int fd, unsigned int node)
{
	int ret = 0;

	pthread_mutex_lock(&rv_fd_lock);
	if (rv_nevfds == rv_evfds_cap)
		ret = rv_grow((void **)&rv_evfds, &rv_evfds_cap, sizeof(*rv_evfds));
	if (!ret) {
		rv_evfds[rv_nevfds].fd = fd;
		rv_evfds[rv_nevfds].node = node;
		rv_nevfds++;
		__atomic_store_n(&rv_any_fds, 1, __ATOMIC_RELEASE);
	}
	pthread_mutex_unlock(&rv_fd_lock);
	return ret;
}

void rv_fd_unregister(int fd)
{
	unsigned int i;

	pthread_mutex_lock(&rv_fd_lock);
	for (i = 0; i < rv_nevfds; i++) {
		if (rv_evfds[i].fd == fd) {
			rv_evfds[i] = rv_evfds[--rv_nevfds];
			break;
		}
	}
	for (i = 0; i < rv_nepfds;) {
		if (rv_epfds[i].fd == fd)
			rv_epfds[i] = rv_epfds[--rv_nepfds];
		else
			i++;
	}
	__atomic_store_n(&rv_any_fds, rv_nevfds != 0, __ATOMIC_RELEASE);
	pthread_mutex_unlock(&rv_fd_lock);
}

/* Device bit of @fd if it is ours, else 0 (rv_fd_lock held). */
static uint32_t rv_fd_bit(int fd)
{
	unsigned int i;

	for (i = 0; i < rv_nevfds; i++)
		if (rv_evfds[i].fd == fd)
			return 1u << rv_evfds[i].node;
	return 0;
}

/* ------------------------------------------------------------------------ */
/* The simulated wait                                                       */
/* ------------------------------------------------------------------------ */

uint64_t rv_ev_wait_cap(void)
{
	static uint64_t cap;

	if (!cap) {
		const char *e = getenv("RNIC_EVENT_WAIT_CAP");
		uint64_t v = e && *e ? strtoull(e, NULL, 0) : 0;

		cap = v ? v : RV_EV_DEFAULT_CAP;
	}
	return cap;
}

#define RV_REAL(fn)							\
	static __typeof__(&fn) real_##fn;				\
	if (!real_##fn) {						\
		real_##fn = (__typeof__(&fn))dlsym(RTLD_NEXT, #fn);	\
		if (!real_##fn) {					\
			errno = ENOSYS;					\
			return -1;					\
		}							\
	}

typedef int (*rv_check_fn)(void *arg);

/*
 * Runs the simulation until @check (a real zero-timeout call) reports
 * something ready, for at most @budget cycles, towards events of the
 * devices in @nodes. Returns what the last @check returned (> 0 ready,
 * < 0 error, 0 nothing); *ran gets the cycles run.
 */
static int rv_ev_run(uint32_t nodes, uint64_t budget, rv_check_fn check, void *arg,
		     uint64_t *ran_out)
{
	struct rnic_sim *sim = rnic_sim_global();
	uint64_t ran = 0, unchecked = 0;
	unsigned int node = nodes ? (unsigned int)__builtin_ctz(nodes) : 0;
	int one = nodes && !(nodes & (nodes - 1));
	unsigned long gen;
	int r;

	rnic_lock();
	if (rv_ev_work)
		rv_ev_process();
	rnic_unlock();
	gen = __atomic_load_n(&rv_fd_gen, __ATOMIC_ACQUIRE);
	r = check(arg);
	while (!r && sim && ran < budget) {
		uint64_t step = budget - ran, got;

		if (!one || step > RV_EV_STEP)
			step = one ? RV_EV_STEP : 1;
		rnic_lock();
		/*
		 * Another thread (a fabric process's simulation thread) may
		 * have run the model and written a record while this one
		 * waited for the lock: look at the fds before waiting for
		 * the next write, which may never come.
		 */
		if (gen != rv_fd_gen) {
			rnic_unlock();
			gen = __atomic_load_n(&rv_fd_gen, __ATOMIC_ACQUIRE);
			unchecked = 0;
			r = check(arg);
			continue;
		}
		got = rnic_sim_wait(sim, node, step);
		if (rv_ev_work)
			rv_ev_process();
		rnic_unlock();
		if (!got)
			break;	/* the model cannot run here (a callback) */
		ran += got;
		unchecked += got;
		if (gen != __atomic_load_n(&rv_fd_gen, __ATOMIC_ACQUIRE) ||
		    unchecked >= RV_EV_REAL_CHECK || ran >= budget) {
			gen = __atomic_load_n(&rv_fd_gen, __ATOMIC_ACQUIRE);
			unchecked = 0;
			r = check(arg);
		}
	}
	if (ran_out)
		*ran_out = ran;
	return r;
}

static uint64_t rv_ms_budget(int timeout)
{
	if (timeout < 0)
		return rv_ev_wait_cap();
	if (!timeout)
		return RV_POLL_WAIT_CYCLES;
	return (uint64_t)timeout * RV_CYCLES_PER_MS;
}

static uint64_t rv_ts_budget(const struct timespec *ts)
{
	uint64_t c;

	if (!ts)
		return rv_ev_wait_cap();
	c = (uint64_t)ts->tv_sec * (1000000000ULL / RV_NS_PER_CYCLE) +
	    ((uint64_t)ts->tv_nsec + RV_NS_PER_CYCLE - 1) / RV_NS_PER_CYCLE;
	return c ? c : RV_POLL_WAIT_CYCLES;
}

static int rv_fd_check(void *arg)
{
	RV_REAL(poll);
	return real_poll((struct pollfd *)arg, 1, 0);
}

void rv_ev_wait_fd(int fd, unsigned int node, uint64_t budget)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };

	rv_ev_run(1u << node, budget ? budget : RV_POLL_WAIT_CYCLES, rv_fd_check, &p, NULL);
}

/* ------------------------------------------------------------------------ */
/* libc's functions                                                         */
/* ------------------------------------------------------------------------ */

static uint32_t rv_pollfds_nodes(const struct pollfd *fds, nfds_t nfds)
{
	uint32_t nodes = 0;
	nfds_t i;

	if (!__atomic_load_n(&rv_any_fds, __ATOMIC_ACQUIRE))
		return 0;
	pthread_mutex_lock(&rv_fd_lock);
	for (i = 0; i < nfds; i++)
		nodes |= rv_fd_bit(fds[i].fd);
	pthread_mutex_unlock(&rv_fd_lock);
	return nodes;
}

struct rv_poll_args {
	int (*fn)(struct pollfd *, nfds_t, const struct timespec *, const sigset_t *);
	struct pollfd *fds;
	nfds_t nfds;
	const sigset_t *sigmask;
};

static int rv_poll_check(void *arg)
{
	struct rv_poll_args *a = arg;
	struct timespec zero = { 0, 0 };

	return a->fn(a->fds, a->nfds, &zero, a->sigmask);
}

RV_EXPORT int ppoll(struct pollfd *fds, nfds_t nfds, const struct timespec *tmo,
		    const sigset_t *sigmask)
{
	struct rv_poll_args a;
	uint32_t nodes;
	int r;

	RV_REAL(ppoll);
	nodes = rv_pollfds_nodes(fds, nfds);
	if (!nodes)
		return real_ppoll(fds, nfds, tmo, sigmask);
	a.fn = real_ppoll;
	a.fds = fds;
	a.nfds = nfds;
	a.sigmask = sigmask;
	r = rv_ev_run(nodes, rv_ts_budget(tmo), rv_poll_check, &a, NULL);
	if (!r && !tmo)
		return real_ppoll(fds, nfds, NULL, sigmask);
	return r;
}

RV_EXPORT int poll(struct pollfd *fds, nfds_t nfds, int timeout)
{
	struct rv_poll_args a;
	uint32_t nodes;
	int r;

	RV_REAL(poll);
	RV_REAL(ppoll);
	nodes = rv_pollfds_nodes(fds, nfds);
	if (!nodes)
		return real_poll(fds, nfds, timeout);
	a.fn = real_ppoll;
	a.fds = fds;
	a.nfds = nfds;
	a.sigmask = NULL;
	r = rv_ev_run(nodes, rv_ms_budget(timeout), rv_poll_check, &a, NULL);
	if (!r && timeout < 0)
		return real_poll(fds, nfds, -1);
	return r;
}

/* _FORTIFY_SOURCE versions. */
RV_EXPORT int __poll_chk(struct pollfd *fds, nfds_t nfds, int timeout, size_t fdslen);
RV_EXPORT int __ppoll_chk(struct pollfd *fds, nfds_t nfds, const struct timespec *tmo,
			  const sigset_t *sigmask, size_t fdslen);

int __poll_chk(struct pollfd *fds, nfds_t nfds, int timeout, size_t fdslen)
{
	if (fdslen / sizeof(*fds) < nfds)
		abort();
	return poll(fds, nfds, timeout);
}

int __ppoll_chk(struct pollfd *fds, nfds_t nfds, const struct timespec *tmo,
		const sigset_t *sigmask, size_t fdslen)
{
	if (fdslen / sizeof(*fds) < nfds)
		abort();
	return ppoll(fds, nfds, tmo, sigmask);
}

struct rv_select_args {
	int (*fn)(int, fd_set *, fd_set *, fd_set *, const struct timespec *,
		  const sigset_t *);
	int nfds;
	fd_set *sets[3];
	fd_set saved[3];
	const sigset_t *sigmask;
};

static void rv_select_restore(struct rv_select_args *a)
{
	int i;

	for (i = 0; i < 3; i++)
		if (a->sets[i])
			*a->sets[i] = a->saved[i];
}

static int rv_select_check(void *arg)
{
	struct rv_select_args *a = arg;
	struct timespec zero = { 0, 0 };

	rv_select_restore(a);
	return a->fn(a->nfds, a->sets[0], a->sets[1], a->sets[2], &zero, a->sigmask);
}

/* Our devices among the fds of @r (only readable fds can be ours). */
static uint32_t rv_fdset_nodes(int nfds, const fd_set *r)
{
	uint32_t nodes = 0;
	unsigned int i;

	if (!r || nfds <= 0 || nfds > FD_SETSIZE ||
	    !__atomic_load_n(&rv_any_fds, __ATOMIC_ACQUIRE))
		return 0;
	pthread_mutex_lock(&rv_fd_lock);
	for (i = 0; i < rv_nevfds; i++)
		if (rv_evfds[i].fd < nfds && FD_ISSET(rv_evfds[i].fd, r))
			nodes |= 1u << rv_evfds[i].node;
	pthread_mutex_unlock(&rv_fd_lock);
	return nodes;
}

static void rv_select_init(struct rv_select_args *a, int nfds, fd_set *r, fd_set *w,
			   fd_set *e, const sigset_t *sigmask)
{
	int i;

	a->nfds = nfds;
	a->sets[0] = r;
	a->sets[1] = w;
	a->sets[2] = e;
	for (i = 0; i < 3; i++)
		if (a->sets[i])
			a->saved[i] = *a->sets[i];
	a->sigmask = sigmask;
}

RV_EXPORT int pselect(int nfds, fd_set *r, fd_set *w, fd_set *e,
		      const struct timespec *tmo, const sigset_t *sigmask)
{
	struct rv_select_args a;
	uint32_t nodes;
	int ret;

	RV_REAL(pselect);
	nodes = rv_fdset_nodes(nfds, r);
	if (!nodes)
		return real_pselect(nfds, r, w, e, tmo, sigmask);
	a.fn = real_pselect;
	rv_select_init(&a, nfds, r, w, e, sigmask);
	ret = rv_ev_run(nodes, rv_ts_budget(tmo), rv_select_check, &a, NULL);
	if (!ret && !tmo) {
		rv_select_restore(&a);
		return real_pselect(nfds, r, w, e, NULL, sigmask);
	}
	return ret;
}

RV_EXPORT int select(int nfds, fd_set *r, fd_set *w, fd_set *e, struct timeval *tv)
{
	struct rv_select_args a;
	struct timespec ts;
	uint64_t budget, ran = 0;
	uint32_t nodes;
	int ret;

	RV_REAL(select);
	RV_REAL(pselect);
	nodes = rv_fdset_nodes(nfds, r);
	if (!nodes)
		return real_select(nfds, r, w, e, tv);
	if (tv) {
		ts.tv_sec = tv->tv_sec;
		ts.tv_nsec = tv->tv_usec * 1000;
	}
	budget = rv_ts_budget(tv ? &ts : NULL);
	a.fn = real_pselect;
	rv_select_init(&a, nfds, r, w, e, NULL);
	ret = rv_ev_run(nodes, budget, rv_select_check, &a, &ran);
	if (!ret && !tv) {
		rv_select_restore(&a);
		return real_select(nfds, r, w, e, NULL);
	}
	if (tv) {
		/* Linux leaves the time not slept in *timeout. */
		uint64_t left_us = ran < budget ?
				   (budget - ran) * RV_NS_PER_CYCLE / 1000 : 0;

		tv->tv_sec = (time_t)(left_us / 1000000);
		tv->tv_usec = (suseconds_t)(left_us % 1000000);
	}
	return ret;
}

/* epoll: the sets are in the kernel, so epoll_ctl() tells us which of our
 * fds each epoll instance holds. */
RV_EXPORT int epoll_ctl(int epfd, int op, int fd, struct epoll_event *ev)
{
	unsigned int i;
	int ret;

	RV_REAL(epoll_ctl);
	ret = real_epoll_ctl(epfd, op, fd, ev);
	if (ret || !__atomic_load_n(&rv_any_fds, __ATOMIC_ACQUIRE) ||
	    (op != EPOLL_CTL_ADD && op != EPOLL_CTL_DEL))
		return ret;
	pthread_mutex_lock(&rv_fd_lock);
	if (rv_fd_bit(fd)) {
		for (i = 0; i < rv_nepfds; i++)
			if (rv_epfds[i].epfd == epfd && rv_epfds[i].fd == fd)
				break;
		if (op == EPOLL_CTL_DEL && i < rv_nepfds) {
			rv_epfds[i] = rv_epfds[--rv_nepfds];
		} else if (op == EPOLL_CTL_ADD && i == rv_nepfds &&
			   (rv_nepfds < rv_epfds_cap ||
			    !rv_grow((void **)&rv_epfds, &rv_epfds_cap, sizeof(*rv_epfds)))) {
			rv_epfds[rv_nepfds].epfd = epfd;
			rv_epfds[rv_nepfds].fd = fd;
			rv_nepfds++;
		}
	}
	pthread_mutex_unlock(&rv_fd_lock);
	return ret;
}

static uint32_t rv_epfd_nodes(int epfd)
{
	uint32_t nodes = 0;
	unsigned int i;

	if (!__atomic_load_n(&rv_any_fds, __ATOMIC_ACQUIRE))
		return 0;
	pthread_mutex_lock(&rv_fd_lock);
	for (i = 0; i < rv_nepfds; i++)
		if (rv_epfds[i].epfd == epfd)
			nodes |= rv_fd_bit(rv_epfds[i].fd);
	pthread_mutex_unlock(&rv_fd_lock);
	return nodes;
}

struct rv_epoll_args {
	int (*fn)(int, struct epoll_event *, int, int, const sigset_t *);
	int epfd;
	struct epoll_event *events;
	int maxevents;
	const sigset_t *sigmask;
};

static int rv_epoll_check(void *arg)
{
	struct rv_epoll_args *a = arg;

	return a->fn(a->epfd, a->events, a->maxevents, 0, a->sigmask);
}

static int rv_epoll(int epfd, struct epoll_event *events, int maxevents,
		    uint64_t budget, int infinite, const sigset_t *sigmask,
		    uint32_t nodes)
{
	struct rv_epoll_args a;
	int ret;

	RV_REAL(epoll_pwait);
	a.fn = real_epoll_pwait;
	a.epfd = epfd;
	a.events = events;
	a.maxevents = maxevents;
	a.sigmask = sigmask;
	ret = rv_ev_run(nodes, budget, rv_epoll_check, &a, NULL);
	if (!ret && infinite)
		return real_epoll_pwait(epfd, events, maxevents, -1, sigmask);
	return ret;
}

RV_EXPORT int epoll_pwait(int epfd, struct epoll_event *events, int maxevents,
			  int timeout, const sigset_t *sigmask)
{
	uint32_t nodes;

	RV_REAL(epoll_pwait);
	nodes = rv_epfd_nodes(epfd);
	if (!nodes)
		return real_epoll_pwait(epfd, events, maxevents, timeout, sigmask);
	return rv_epoll(epfd, events, maxevents, rv_ms_budget(timeout), timeout < 0,
			sigmask, nodes);
}

RV_EXPORT int epoll_wait(int epfd, struct epoll_event *events, int maxevents,
			 int timeout)
{
	uint32_t nodes;

	RV_REAL(epoll_wait);
	nodes = rv_epfd_nodes(epfd);
	if (!nodes)
		return real_epoll_wait(epfd, events, maxevents, timeout);
	return rv_epoll(epfd, events, maxevents, rv_ms_budget(timeout), timeout < 0,
			NULL, nodes);
}

RV_EXPORT int epoll_pwait2(int epfd, struct epoll_event *events, int maxevents,
			   const struct timespec *tmo, const sigset_t *sigmask)
{
	uint32_t nodes;

	RV_REAL(epoll_pwait2);
	nodes = rv_epfd_nodes(epfd);
	if (!nodes)
		return real_epoll_pwait2(epfd, events, maxevents, tmo, sigmask);
	return rv_epoll(epfd, events, maxevents, rv_ts_budget(tmo), !tmo, sigmask, nodes);
}
