// SPDX-License-Identifier: MIT
/*
 * fab_wire_exact.c - frames cross the multi-process fabric at exactly the
 * cycles the single-process wire gives them (docs/fabric.md).
 *
 * usage: fab_wire_exact RNIC_FABRIC_BIN WORKDIR SEED [faults]
 *
 * Each of two nodes sends a seeded stream of raw frames (64..1500 bytes, the
 * peer's IPv4 address, random gaps) with rnic_sim_wire_inject() at chosen
 * cycles; the RTL's RX takes them (and drops them: they are no RoCEv2) and
 * each node's link pcap records every frame it took with the cycle of its
 * last beat. The schedule runs once with both nodes in one process, then
 * with one process per node on a fabric served by rnic-fabric; the four
 * pcaps must be byte-identical. With "faults" the wire drops, corrupts,
 * duplicates, reorders and delays frames (seeded), set through the API in
 * the single process and through the RNIC_WIRE_* environment of the switch.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "rnic_model.h"

#define FRAMES		300
#define END_CYCLE	200000ull

static uint64_t seed;
static int faults;

static uint64_t splitmix(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

struct sched {
	uint64_t rng;
	uint64_t next;		/* cycle of the next frame */
	unsigned int sent;
};

static void sched_init(struct sched *s, unsigned int node)
{
	s->rng = seed * 1000003u + node;
	s->next = 100 + splitmix(&s->rng) % 50;
	s->sent = 0;
}

/* Sends @node's frames due at the current cycle. */
static void sched_run(struct rnic_sim *sim, struct sched *s, unsigned int node)
{
	uint8_t f[1500];

	while (s->sent < FRAMES && s->next == rnic_sim_cycle(sim)) {
		size_t len = 64 + splitmix(&s->rng) % (sizeof(f) - 64);
		uint32_t dst = rnic_sim_node_ip(sim, node ^ 1);

		for (size_t i = 0; i < len; i++)
			f[i] = (uint8_t)splitmix(&s->rng);
		f[12] = 0x08;
		f[13] = 0x00;
		f[14] = 0x45;
		f[16] = (uint8_t)((len - 14) >> 8);
		f[17] = (uint8_t)(len - 14);
		f[30] = dst >> 24;
		f[31] = dst >> 16;
		f[32] = dst >> 8;
		f[33] = dst;
		if (rnic_sim_wire_inject(sim, node, f, len)) {
			fprintf(stderr, "inject failed\n");
			exit(1);
		}
		s->sent++;
		/* Sometimes back to back (the link queues them), mostly gaps. */
		s->next += splitmix(&s->rng) % 4 ? 1 + splitmix(&s->rng) % 200 : 0;
	}
}

static uint64_t next_due(const struct sched *s)
{
	return s->sent < FRAMES ? s->next : END_CYCLE;
}

/* TX links: every fault; RX links (switch -> node): reordering and delay
 * spikes. */
static void fault_cfg(struct rnic_wire_faults *f, unsigned int node, unsigned int dir)
{
	rnic_wire_faults_default(f);
	f->reorder = 0.05;
	f->delay_spike = 0.02;
	if (dir == RNIC_WIRE_DIR_TX) {
		f->drop = 0.05;
		f->corrupt = 0.05;
		f->dup = 0.05;
	}
	f->seed = seed + node;
}

static void pcap_path(char *buf, size_t n, const char *dir, const char *mode, unsigned int node)
{
	snprintf(buf, n, "%s/%s_node%u.pcap", dir, mode, node);
}

static int run_single(const char *dir)
{
	struct rnic_sim *sim = rnic_sim_create(NULL);
	struct sched s[2];
	char p[512];

	for (unsigned int i = 0; i < 2; i++) {
		sched_init(&s[i], i);
		pcap_path(p, sizeof(p), dir, "single", i);
		if (rnic_sim_pcap_open_link(sim, i, p))
			return 1;
		if (faults) {
			struct rnic_wire_faults f;

			for (unsigned int d = 0; d < 2; d++) {
				fault_cfg(&f, i, d);
				rnic_sim_set_link_faults(sim, i, d, &f);
			}
		}
	}
	while (rnic_sim_cycle(sim) < END_CYCLE) {
		uint64_t a = next_due(&s[0]), b = next_due(&s[1]);
		uint64_t to = a < b ? a : b;

		if (to > rnic_sim_cycle(sim))
			rnic_sim_step(sim, to - rnic_sim_cycle(sim));
		sched_run(sim, &s[0], 0);
		sched_run(sim, &s[1], 1);
	}
	rnic_sim_destroy(sim);
	return 0;
}

/* One process of the fabric run: hosts @node, waits for the peer to be
 * attached too (so both start at cycle 0), then runs the schedule. */
static int run_node(const char *fabdir, const char *dir, unsigned int node, int rd, int wr)
{
	struct rnic_sim *sim = rnic_sim_create_fabric(NULL, fabdir);
	struct sched s;
	char p[512], c = 1;
	int r = rnic_sim_node_attach(sim, node);

	if (r) {
		fprintf(stderr, "node %u: attach: %s\n", node, strerror(-r));
		return 1;
	}
	if (rnic_sim_cycle(sim) != 0) {
		fprintf(stderr, "node %u starts at cycle %llu, not 0\n", node,
			(unsigned long long)rnic_sim_cycle(sim));
		return 1;
	}
	pcap_path(p, sizeof(p), dir, "fabric", node);
	if (rnic_sim_pcap_open_link(sim, node, p))
		return 1;
	if (write(wr, &c, 1) != 1 || read(rd, &c, 1) != 1)
		return 1;
	sched_init(&s, node);
	while (rnic_sim_cycle(sim) < END_CYCLE) {
		uint64_t to = next_due(&s);

		if (to > rnic_sim_cycle(sim))
			rnic_sim_step(sim, to - rnic_sim_cycle(sim));
		sched_run(sim, &s, node);
	}
	rnic_sim_destroy(sim);
	return 0;
}

static pid_t start_switch(const char *bin, const char *fabdir)
{
	pid_t pid = fork();

	if (pid == 0) {
		if (faults) {
			char v[32];

			/* The same faults as fault_cfg(), per node link. */
			setenv("RNIC_WIRE_DROP", "0.05", 1);
			setenv("RNIC_WIRE_CORRUPT", "0.05", 1);
			setenv("RNIC_WIRE_DUP", "0.05", 1);
			setenv("RNIC_WIRE_REORDER", "0.05", 1);
			setenv("RNIC_WIRE_DELAY_SPIKE", "0.02", 1);
			for (unsigned int i = 0; i < 2; i++) {
				char n[40];

				snprintf(n, sizeof(n), "RNIC_WIRE_SEED_%u", i);
				snprintf(v, sizeof(v), "%llu", (unsigned long long)(seed + i));
				setenv(n, v, 1);
				snprintf(n, sizeof(n), "RNIC_WIRE_REORDER_%u_RX", i);
				setenv(n, "0.05", 1);
				snprintf(n, sizeof(n), "RNIC_WIRE_DELAY_SPIKE_%u_RX", i);
				setenv(n, "0.02", 1);
			}
		}
		execl(bin, "rnic-fabric", fabdir, "--quiet", (char *)NULL);
		_exit(127);
	}
	return pid;
}

/* Waits (up to 10 s) until the switch listens for both nodes: a node that
 * attaches before would start a switch of its own, without the faults. */
static int wait_switch(const char *fabdir, pid_t sw)
{
	char p[600];
	struct stat st;

	for (int i = 0; i < 1000; i++) {
		int ready = 1;

		for (unsigned int n = 0; n < 2; n++) {
			snprintf(p, sizeof(p), "%s/node%u.sock", fabdir, n);
			ready = ready && !stat(p, &st);
		}
		if (ready)
			return 0;
		if (waitpid(sw, NULL, WNOHANG) == sw)
			break;
		usleep(10000);
	}
	fprintf(stderr, "rnic-fabric does not listen in %s\n", fabdir);
	return 1;
}

static int same_file(const char *a, const char *b, long *size)
{
	FILE *fa = fopen(a, "rb"), *fb = fopen(b, "rb");
	int ca, cb, same = fa && fb;

	*size = 0;
	while (same) {
		ca = getc(fa);
		cb = getc(fb);
		if (ca != cb)
			same = 0;
		if (ca == EOF || cb == EOF)
			break;
		(*size)++;
	}
	if (fa)
		fclose(fa);
	if (fb)
		fclose(fb);
	return same;
}

int main(int argc, char **argv)
{
	char fabdir[512];
	int ab[2], ba[2], st, bad = 0;
	pid_t sw, child;

	if (argc < 4) {
		fprintf(stderr, "usage: %s RNIC_FABRIC_BIN WORKDIR SEED [faults]\n", argv[0]);
		return 2;
	}
	seed = strtoull(argv[3], NULL, 0);
	faults = argc > 4 && !strcmp(argv[4], "faults");
	if (run_single(argv[2]))
		return 1;

	snprintf(fabdir, sizeof(fabdir), "%s/fabric", argv[2]);
	sw = start_switch(argv[1], fabdir);
	if (wait_switch(fabdir, sw) || pipe(ab) || pipe(ba))
		return 1;
	child = fork();
	if (child == 0)
		_exit(run_node(fabdir, argv[2], 1, ab[0], ba[1]));
	if (run_node(fabdir, argv[2], 0, ba[0], ab[1]))
		bad = 1;
	if (waitpid(child, &st, 0) < 0 || !WIFEXITED(st) || WEXITSTATUS(st))
		bad = 1;
	kill(sw, SIGTERM);
	if (waitpid(sw, &st, 0) < 0 || !WIFEXITED(st) || WEXITSTATUS(st)) {
		fprintf(stderr, "rnic-fabric did not stop cleanly on SIGTERM\n");
		bad = 1;
	}
	for (unsigned int i = 0; i < 2; i++) {
		char a[512], b[512];
		long size;

		pcap_path(a, sizeof(a), argv[2], "single", i);
		pcap_path(b, sizeof(b), argv[2], "fabric", i);
		if (!same_file(a, b, &size)) {
			fprintf(stderr, "node %u: %s and %s differ (after %ld bytes)\n", i, a, b,
				size);
			bad = 1;
		} else if (size < 24 + FRAMES / 2 * 80) {
			fprintf(stderr, "node %u: only %ld bytes of capture\n", i, size);
			bad = 1;
		} else {
			printf("node %u: %ld bytes of RX capture identical\n", i, size);
		}
	}
	printf("%s\n", bad ? "FAIL" : "PASS");
	return bad;
}
