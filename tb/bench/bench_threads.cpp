// SPDX-License-Identifier: MIT
/*
 * bench_threads.cpp - what two host threads could buy the cycle loop: two
 * RNIC models, evaluated one after the other, or each on its own thread with
 * a handoff every @batch cycles (the main thread and a worker spin on one
 * counter each; the loop model/sim.cpp would need for it: docs/performance.md,
 * "Two host threads"). Every cycle evaluates clk_i = 0 and clk_i = 1 with
 * eval(), after reset, with idle inputs: Verilator 5.006 evaluates the whole
 * design on every call, so an idle cycle costs about what a busy one does.
 *
 *   rnic_bench_threads [cycles [batch]]   batch 0 (default): one thread;
 *                                         -1: a handoff per clock level
 */
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <thread>

#include "Vrnic_top.h"
#include "verilated.h"

namespace {

void level(Vrnic_top *t, int clk)
{
	t->clk_i = clk;
	t->eval();
}

void cycle(Vrnic_top *t)
{
	level(t, 0);
	level(t, 1);
}

void cpu_relax()
{
#if defined(__x86_64__) || defined(__i386__)
	__builtin_ia32_pause();
#endif
}

void wait_for(const std::atomic<long> &a, long v)
{
	while (a.load(std::memory_order_acquire) < v)
		cpu_relax();
}

} /* namespace */

int main(int argc, char **argv)
{
	const long n = argc > 1 ? std::atol(argv[1]) : 100000;
	const long b = argc > 2 ? std::atol(argv[2]) : 0;
	VerilatedContext c0, c1;
	Vrnic_top m0{&c0}, m1{&c1};

	if (n <= 0 || (b > 0 && n % b)) {
		std::fprintf(stderr, "usage: %s [cycles [batch: 0, -1 or a divisor of cycles]]\n",
			     argv[0]);
		return 2;
	}
	m0.rst_ni = m1.rst_ni = 0;
	for (int i = 0; i < 8; i++) {
		cycle(&m0);
		cycle(&m1);
	}
	m0.rst_ni = m1.rst_ni = 1;

	const auto t0 = std::chrono::steady_clock::now();
	if (b == 0) {
		for (long i = 0; i < n; i++) {
			cycle(&m0);
			cycle(&m1);
		}
	} else {
		/* Job k: @b cycles (or, for -1, clock level k). */
		const long jobs = b > 0 ? n / b : 2 * n;
		std::atomic<long> go{0}, done{0};
		auto job = [b](Vrnic_top *t, long k) {
			if (b < 0)
				level(t, k & 1 ? 0 : 1);
			for (long i = 0; i < b; i++)
				cycle(t);
		};
		std::thread w([&] {
			Verilated::threadContextp(&c1);
			for (long k = 1; k <= jobs; k++) {
				wait_for(go, k);
				job(&m1, k);
				done.store(k, std::memory_order_release);
			}
		});
		for (long k = 1; k <= jobs; k++) {
			go.store(k, std::memory_order_release);
			job(&m0, k);
			wait_for(done, k);
		}
		w.join();
	}
	const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();

	std::printf("batch %ld: %ld cycles of two models in %.3f s, %.3g cycles/s\n", b, n, s, n / s);
	return 0;
}
