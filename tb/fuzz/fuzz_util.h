/* SPDX-License-Identifier: MIT */
/*
 * fuzz_util.h - what both fuzz harnesses share: reading the fuzzer's input
 * as a stream of choices, failing loudly, and the model's health counters.
 *
 * A harness is a libFuzzer target (LLVMFuzzerTestOneInput). Built with
 * -DRNIC_LIBFUZZER=ON (clang) libFuzzer drives it; otherwise fuzz_main.c
 * feeds it seeded pseudo-random inputs and the corpus files (CTest).
 */
#ifndef RNIC_FUZZ_UTIL_H
#define RNIC_FUZZ_UTIL_H

#include <stddef.h>
#include <stdint.h>

#include "rnic_model.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/*
 * The input as a stream of choices. Reading past the end yields zeros, so
 * every input, however short, is a complete program (a short input simply
 * makes the "first" choice everywhere).
 */
struct fz_in {
	const uint8_t *p;
	size_t n;
};

static inline uint8_t fz_u8(struct fz_in *in)
{
	if (!in->n)
		return 0;
	in->n--;
	return *in->p++;
}

static inline uint16_t fz_u16(struct fz_in *in)
{
	return (uint16_t)(fz_u8(in) | (uint16_t)fz_u8(in) << 8);
}

static inline uint32_t fz_u32(struct fz_in *in)
{
	return (uint32_t)fz_u16(in) | (uint32_t)fz_u16(in) << 16;
}

static inline uint64_t fz_u64(struct fz_in *in)
{
	return (uint64_t)fz_u32(in) | (uint64_t)fz_u32(in) << 32;
}

/* A value in [0, n) (n > 0); one byte for n <= 256, else two. */
static inline uint32_t fz_below(struct fz_in *in, uint32_t n)
{
	return (n <= 256 ? fz_u8(in) : fz_u16(in)) % n;
}

/* Copies up to len bytes of input into dst, zero-fills the rest. */
void fz_bytes(struct fz_in *in, void *dst, size_t len);

/*
 * Failure: print what broke (with the harness's context line) and abort(),
 * which libFuzzer reports as a crash and keeps the input as crash-<sha1>;
 * fuzz_main reports the input number and writes the input to a file.
 */
void fz_fail(const char *file, int line, const char *fmt, ...)
	__attribute__((noreturn, format(printf, 3, 4)));
/* Called by fz_fail() before abort() (fuzz_main saves the input). */
extern void (*fz_fail_hook)(void);
/* The harness's simulation: fz_fail() closes its trace and captures. */
extern struct rnic_sim *fz_sim;

#define FZ_CHECK(cond, ...)						\
	do {								\
		if (__builtin_expect(!(cond), 0))			\
			fz_fail(__FILE__, __LINE__, __VA_ARGS__);	\
	} while (0)

/* Verbose trace of what a harness does (RNIC_FUZZ_VERBOSE=1), for minimising
 * and writing up a finding. */
extern int fz_verbose;
void fz_log(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
#define FZ_LOG(...)							\
	do {								\
		if (__builtin_expect(fz_verbose, 0))			\
			fz_log(__VA_ARGS__);				\
	} while (0)

/* Reads the RNIC_FUZZ_* environment once (verbosity, switches). */
void fz_init_env(void);

/*
 * Switches that exclude an input class a known finding makes fail, so that
 * the bounded CI run stays green until the finding is fixed. Each is named
 * after the finding in tb/fuzz/findings/ and docs/fuzzing.md; nothing is
 * excluded unless RNIC_FUZZ_EXCLUDE=<name>[,<name>...] says so (the CTest
 * sets it from tb/fuzz/CMakeLists.txt).
 */
int fz_excluded(const char *finding);

/*
 * The model's health: no DMA outside mapped pages, no broken interface
 * rule, on every node. Checked against the counts at the start of the
 * input, so one bad input is reported once, by itself.
 */
struct fz_health {
	uint64_t iommu[RNIC_SIM_MAX_NODES];
	uint64_t proto[RNIC_SIM_MAX_NODES];
	uint64_t mmio_to[RNIC_SIM_MAX_NODES];
};

void fz_health_snap(struct rnic_sim *sim, struct fz_health *h);
void fz_health_check(struct rnic_sim *sim, const struct fz_health *h,
		     const char *when);

/*
 * RNIC_FUZZ_TRACE_SAMPLE=1 with RNIC_TRACE=<file.fst> RNIC_TRACE_API=1:
 * one cycle of waveform at the end of every input, so that the RTL state
 * (free frame slots, queue indices...) can be followed input by input over
 * a long run (finding state that one input leaves behind for a later one).
 */
void fz_trace_sample(struct rnic_sim *sim);

/* xorshift64* for fill patterns and the standalone driver. */
static inline uint64_t fz_rand(uint64_t *s)
{
	uint64_t x = *s ? *s : 0x9e3779b97f4a7c15ULL;

	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	*s = x;
	return x * 0x2545f4914f6cdd1dULL;
}

void fz_fill(void *buf, size_t len, uint64_t seed);

#endif /* RNIC_FUZZ_UTIL_H */
