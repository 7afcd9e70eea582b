// SPDX-License-Identifier: MIT
/*
 * fuzz_util.c - failure reporting, switches and health counters shared by
 * the fuzz harnesses.
 */
#include "fuzz_util.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int fz_verbose;
void (*fz_fail_hook)(void);
struct rnic_sim *fz_sim;

static char fz_exclude[512];
static int fz_env_done;

void fz_bytes(struct fz_in *in, void *dst, size_t len)
{
	size_t n = len < in->n ? len : in->n;

	memcpy(dst, in->p, n);
	memset((uint8_t *)dst + n, 0, len - n);
	in->p += n;
	in->n -= n;
}

void fz_fail(const char *file, int line, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "\nFUZZ FAILURE at %s:%d: ", file, line);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	fflush(stderr);
	if (fz_fail_hook)
		fz_fail_hook();
	/* A waveform (RNIC_TRACE) and captures (RNIC_PCAP) of the failing
	 * input are only readable once closed. */
	if (fz_sim) {
		rnic_sim_trace_close(fz_sim);
		rnic_sim_pcap_close(fz_sim);
	}
	abort();
}

void fz_log(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
}

void fz_init_env(void)
{
	const char *e;

	if (fz_env_done)
		return;
	fz_env_done = 1;
	e = getenv("RNIC_FUZZ_VERBOSE");
	fz_verbose = e && *e && strcmp(e, "0");
	e = getenv("RNIC_FUZZ_EXCLUDE");
	if (e)
		snprintf(fz_exclude, sizeof(fz_exclude), "%s", e);
	if (fz_exclude[0] && strcmp(fz_exclude, "none"))
		fprintf(stderr, "fuzz: excluded input classes (known findings): %s\n",
			fz_exclude);
}

int fz_excluded(const char *finding)
{
	size_t n = strlen(finding);
	const char *p = fz_exclude;

	fz_init_env();
	while ((p = strstr(p, finding))) {
		if ((p == fz_exclude || p[-1] == ',') && (p[n] == ',' || !p[n]))
			return 1;
		p += n;
	}
	return 0;
}

void fz_health_snap(struct rnic_sim *sim, struct fz_health *h)
{
	unsigned int n;

	memset(h, 0, sizeof(*h));
	for (n = 0; n < rnic_sim_nodes(sim) && n < RNIC_SIM_MAX_NODES; n++) {
		h->iommu[n] = rnic_sim_iommu_faults(sim, n);
		h->proto[n] = rnic_sim_protocol_errors(sim, n);
		h->mmio_to[n] = rnic_sim_mmio_timeouts(sim, n);
	}
}

void fz_health_check(struct rnic_sim *sim, const struct fz_health *h,
		     const char *when)
{
	unsigned int n;

	for (n = 0; n < rnic_sim_nodes(sim) && n < RNIC_SIM_MAX_NODES; n++) {
		uint64_t f = rnic_sim_iommu_faults(sim, n) - h->iommu[n];
		uint64_t p = rnic_sim_protocol_errors(sim, n) - h->proto[n];
		uint64_t t = rnic_sim_mmio_timeouts(sim, n) - h->mmio_to[n];

		FZ_CHECK(!f, "%s: node %u made %llu DMA access(es) outside mapped pages "
			 "(IOMMU faults)", when, n, (unsigned long long)f);
		FZ_CHECK(!p, "%s: node %u broke %llu interface rule(s) (protocol errors)",
			 when, n, (unsigned long long)p);
		FZ_CHECK(!t, "%s: node %u left %llu MMIO read(s) unanswered", when, n,
			 (unsigned long long)t);
	}
}

void fz_fill(void *buf, size_t len, uint64_t seed)
{
	uint8_t *p = buf;
	uint64_t s = seed;
	size_t i;

	for (i = 0; i < len; i += 8) {
		uint64_t v = fz_rand(&s);
		size_t k = len - i < 8 ? len - i : 8;

		memcpy(p + i, &v, k);
	}
}

void fz_trace_sample(struct rnic_sim *sim)
{
	static int on = -1;

	if (on < 0) {
		const char *e = getenv("RNIC_FUZZ_TRACE_SAMPLE");

		on = e && *e && strcmp(e, "0");
	}
	if (!on)
		return;
	rnic_sim_trace_begin(sim);
	rnic_sim_step(sim, 1);
	rnic_sim_trace_end(sim);
}
