// SPDX-License-Identifier: MIT
/*
 * fuzz_main.c - the deterministic driver of a fuzz harness, for builds
 * without libFuzzer (gcc, the CTest): runs LLVMFuzzerTestOneInput() on the
 * given corpus files (or every file of given directories, sorted by name),
 * then on N pseudo-random inputs from a fixed seed.
 *
 *   fuzz_<harness> [-n N] [-f FIRST] [-s SEED] [-l MAXLEN] [-m MINLEN]
 *                  [-t SECONDS] [-w DIR] [-v] [FILE|DIR ...]
 *
 * Input i of a run depends only on (SEED, i, MAXLEN, MINLEN), so any input
 * of a run can be regenerated (-f FIRST starts at input FIRST, to find
 * which earlier input a failure depends on; -w DIR writes each input to
 * DIR/<seed>-<i>.bin, to minimise or replay it); on a failure the input is also written to
 * fuzz-failure-<harness>-<i>.bin (in RNIC_FUZZ_ARTIFACTS or the current
 * directory), which both this driver and the libFuzzer build run as a file
 * argument. -t bounds the wall-clock time of one input (default 300 s): a
 * harness that stops making progress fails instead of hanging the CTest.
 * A FILE or DIR argument that does not exist is an empty corpus (a
 * warning), as libFuzzer treats a missing corpus directory.
 */
#define _DEFAULT_SOURCE
#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "fuzz_util.h"

#ifndef RNIC_FUZZ_NAME
#define RNIC_FUZZ_NAME "fuzz"
#endif

static const uint8_t *cur_data;
static size_t cur_size;
static char cur_name[256];

static void save_input(void)
{
	const char *dir = getenv("RNIC_FUZZ_ARTIFACTS");
	char path[512];
	FILE *f;

	if (!cur_data)
		return;
	snprintf(path, sizeof(path), "%s/fuzz-failure-%s-%s.bin",
		 dir && *dir ? dir : ".", RNIC_FUZZ_NAME, cur_name);
	f = fopen(path, "wb");
	if (!f || fwrite(cur_data, 1, cur_size, f) != cur_size) {
		fprintf(stderr, "fuzz: cannot write %s\n", path);
	} else {
		fprintf(stderr, "fuzz: failing input (%zu bytes) %s saved as %s\n"
			"fuzz: reproduce with: RNIC_FUZZ_VERBOSE=1 <harness> %s\n",
			cur_size, cur_name, path, path);
	}
	if (f)
		fclose(f);
}

static void on_alarm(int sig)
{
	(void)sig;
	/* Not async-signal-safe, but the process is going down anyway and a
	 * report beats a silent CTest timeout. */
	fprintf(stderr, "\nFUZZ FAILURE: input %s ran longer than the wall-clock "
		"bound (-t): the harness stopped making progress\n", cur_name);
	save_input();
	abort();
}

static void run_one(const uint8_t *data, size_t size, const char *name,
		    unsigned int tmo)
{
	cur_data = data;
	cur_size = size;
	snprintf(cur_name, sizeof(cur_name), "%s", name);
	FZ_LOG("fuzz: === input %s (%zu bytes)\n", name, size);
	alarm(tmo);
	LLVMFuzzerTestOneInput(data, size);
	alarm(0);
	cur_data = NULL;
}

static int run_file(const char *path, unsigned int tmo)
{
	struct stat st;
	uint8_t *buf;
	const char *base;
	FILE *f;
	size_t n;

	f = fopen(path, "rb");
	if (!f || fstat(fileno(f), &st)) {
		fprintf(stderr, "fuzz: cannot open %s: %s\n", path, strerror(errno));
		if (f)
			fclose(f);
		return -1;
	}
	buf = malloc(st.st_size ? st.st_size : 1);
	n = buf ? fread(buf, 1, st.st_size, f) : 0;
	fclose(f);
	if (!buf || n != (size_t)st.st_size) {
		fprintf(stderr, "fuzz: cannot read %s\n", path);
		free(buf);
		return -1;
	}
	base = strrchr(path, '/');
	run_one(buf, n, base ? base + 1 : path, tmo);
	free(buf);
	return 0;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Files of a directory in name order (readdir order is not stable). */
static int run_dir(const char *dir, unsigned int tmo, unsigned long *count)
{
	struct dirent *de;
	char **names = NULL;
	size_t n = 0, cap = 0, i;
	DIR *d = opendir(dir);
	int ret = 0;

	if (!d)
		return -1;
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.' || !strcmp(de->d_name, "README") ||
		    strstr(de->d_name, ".md"))
			continue;
		if (n == cap) {
			cap = cap ? 2 * cap : 64;
			names = realloc(names, cap * sizeof(*names));
			if (!names)
				abort();
		}
		names[n++] = strdup(de->d_name);
	}
	closedir(d);
	qsort(names, n, sizeof(*names), cmp_str);
	for (i = 0; i < n; i++) {
		char path[1024];

		snprintf(path, sizeof(path), "%s/%s", dir, names[i]);
		if (run_file(path, tmo))
			ret = -1;
		else
			(*count)++;
		free(names[i]);
	}
	free(names);
	return ret;
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

int main(int argc, char **argv)
{
	unsigned long runs = 100, first = 0, seed = 1, maxlen = 2048, minlen = 0, files = 0, i;
	unsigned int tmo = 300;
	const char *wdir = NULL;
	double t0 = now_s();
	uint8_t *buf;
	int opt;

	/* Line-buffered: what the RTL prints ($display while debugging a
	 * finding) reaches a pipe before an assertion or a failed check
	 * aborts the process. */
	setvbuf(stdout, NULL, _IOLBF, 0);

	while ((opt = getopt(argc, argv, "n:f:s:l:m:t:w:v")) != -1) {
		switch (opt) {
		case 'n': runs = strtoul(optarg, NULL, 0); break;
		case 'f': first = strtoul(optarg, NULL, 0); break;
		case 's': seed = strtoul(optarg, NULL, 0); break;
		case 'l': maxlen = strtoul(optarg, NULL, 0); break;
		case 'm': minlen = strtoul(optarg, NULL, 0); break;
		case 't': tmo = (unsigned int)strtoul(optarg, NULL, 0); break;
		case 'v': setenv("RNIC_FUZZ_VERBOSE", "1", 1); break;
		case 'w': wdir = optarg; break;
		default:
			fprintf(stderr, "usage: %s [-n runs] [-f first] [-s seed] [-l maxlen] "
				"[-m minlen] [-t seconds] [-w dir] [-v] [file|dir ...]\n", argv[0]);
			return 2;
		}
	}
	if (minlen > maxlen)
		minlen = maxlen;
	fz_init_env();
	fz_fail_hook = save_input;
	signal(SIGALRM, on_alarm);

	for (; optind < argc; optind++) {
		struct stat st;

		if (stat(argv[optind], &st)) {
			/* A corpus directory nobody filled yet (git keeps no
			 * empty directories) is an empty corpus, as for
			 * libFuzzer; anything else is an error. */
			if (errno == ENOENT) {
				fprintf(stderr, "fuzz: %s does not exist: no corpus "
					"inputs from it\n", argv[optind]);
				continue;
			}
			fprintf(stderr, "fuzz: %s: %s\n", argv[optind], strerror(errno));
			return 2;
		}
		if (S_ISDIR(st.st_mode) ? run_dir(argv[optind], tmo, &files) :
		    run_file(argv[optind], tmo))
			return 2;
		if (!S_ISDIR(st.st_mode))
			files++;
	}

	buf = malloc(maxlen ? maxlen : 1);
	if (!buf)
		return 2;
	for (i = first; i < runs; i++) {
		/* Each input from its own stream: input i is reproducible alone. */
		uint64_t s = seed * 0x9e3779b97f4a7c15ULL + i + 1;
		size_t len = minlen + (maxlen > minlen ?
				       fz_rand(&s) % (maxlen - minlen + 1) : 0);
		char name[64];

		fz_fill(buf, len, fz_rand(&s));
		snprintf(name, sizeof(name), "seed%lu-%lu", seed, i);
		if (wdir) {
			char path[1024];
			FILE *f;

			snprintf(path, sizeof(path), "%s/%s.bin", wdir, name);
			f = fopen(path, "wb");
			if (!f || fwrite(buf, 1, len, f) != len)
				fprintf(stderr, "fuzz: cannot write %s\n", path);
			if (f)
				fclose(f);
		}
		run_one(buf, len, name, tmo);
		if (fz_verbose || (i + 1 - first) % 500 == 0)
			fprintf(stderr, "fuzz: %lu inputs, %.1f s\n", i + 1 - first, now_s() - t0);
	}
	free(buf);
	printf("%s: %lu corpus file(s) and %lu random input(s) (seed %lu, length %lu..%lu) "
	       "passed in %.1f s\n", RNIC_FUZZ_NAME, files, runs > first ? runs - first : 0,
	       seed, minlen, maxlen, now_s() - t0);
	return 0;
}
