// blk_rnic_fifo: rnic_fifo against std::deque, random push/pop with phases of
// mostly-full and mostly-empty traffic and an asynchronous reset in the middle.
// Three configurations are verilated into this executable:
//   Vrnic_fifo      Width=8  Depth=4
//   Vrnic_fifo_w70  Width=70 Depth=16 (wide data: VlWide port)
//   Vrnic_fifo_w33  Width=33 Depth=2
#include "Vrnic_fifo.h"
#include "Vrnic_fifo_w33.h"
#include "Vrnic_fifo_w70.h"
#include "blk_common.h"

using namespace blk;

static bool same(const Bits &a, const Bits &b) {
  return a.n == b.n && a.w == b.w;
}

template <class T>
static void run(VerilatedContext &ctx, const char *name, unsigned width, unsigned depth,
                uint64_t seed) {
  T top{&ctx, name};
  Rng r(seed);
  std::deque<Bits> ref;
  auto rand_data = [&]() {
    Bits b(width);
    for (unsigned i = 0; i < width; i++) b.setbit(i, r.chance(0.5));
    return b;
  };
  auto reset = [&]() {
    reset_dut(top);
    ref.clear();
  };
  top.clk_i = 0;
  top.in_valid_i = 0;
  top.out_ready_i = 0;
  reset();

  const unsigned kCycles = 20000;
  uint64_t pushes = 0, pops = 0, full_cycles = 0;
  double p_in = 0.5, p_out = 0.5;
  Bits cur = rand_data();
  bool offered = false;
  for (unsigned c = 0; c < kCycles; c++, g_cycle++) {
    if (c % 1000 == 0) {  // phases: balanced, filling, draining
      static const double ph[][2] = {{0.5, 0.5}, {0.9, 0.2}, {0.2, 0.9}, {1.0, 1.0}, {0.7, 0.6}};
      p_in = ph[(c / 1000) % 5][0];
      p_out = ph[(c / 1000) % 5][1];
    }
    if (c == kCycles / 2) {  // asynchronous reset with data inside
      reset();
      offered = false;
    }
    top.clk_i = 0;
    // A producer keeps its data stable while valid and not taken.
    if (!offered) {
      offered = r.chance(p_in);
      cur = rand_data();
    }
    top.in_valid_i = offered;
    vset(top.in_data_i, cur);
    top.out_ready_i = r.chance(p_out);
    top.eval();

    const bool exp_ready = ref.size() < depth;
    BLK_CHECK(top.in_ready_o == exp_ready, "%s: in_ready_o=%d, expected %d with %zu entries", name,
              top.in_ready_o, exp_ready, ref.size());
    BLK_CHECK(top.out_valid_o == !ref.empty(), "%s: out_valid_o=%d with %zu entries", name,
              top.out_valid_o, ref.size());
    BLK_CHECK(top.count_o == ref.size(), "%s: count_o=%u, expected %zu", name,
              (unsigned)top.count_o, ref.size());
    if (!ref.empty()) {
      Bits got = vget(top.out_data_o, width);
      BLK_CHECK(same(got, ref.front()),
                "%s: out_data_o mismatch at pop %llu (entry %llx.., got %llx..)", name,
                (unsigned long long)pops, (unsigned long long)ref.front().get(0, 64),
                (unsigned long long)got.get(0, 64));
    }
    const bool push = top.in_valid_i && top.in_ready_o;
    const bool pop = top.out_valid_o && top.out_ready_i;
    if (ref.size() == depth) full_cycles++;
    top.clk_i = 1;
    top.eval();
    if (pop && !ref.empty()) {
      ref.pop_front();
      pops++;
    }
    if (push) {
      ref.push_back(cur);
      pushes++;
      offered = false;
    }
  }
  BLK_CHECK(pushes > kCycles / 4 && pops > kCycles / 4 && full_cycles > 100,
            "%s: weak coverage (%llu pushes, %llu pops, %llu full cycles)", name,
            (unsigned long long)pushes, (unsigned long long)pops, (unsigned long long)full_cycles);
  info("%s (Width=%u Depth=%u): %llu pushes, %llu pops, %llu cycles full", name, width, depth,
       (unsigned long long)pushes, (unsigned long long)pops, (unsigned long long)full_cycles);
  cov_dump(ctx);
}

int main(int argc, char **argv) {
  g_bench = "blk_rnic_fifo";
  VerilatedContext ctx;
  ctx.commandArgs(argc, argv);
  run<Vrnic_fifo>(ctx, "w8d4", 8, 4, 1);
  run<Vrnic_fifo_w70>(ctx, "w70d16", 70, 16, 2);
  run<Vrnic_fifo_w33>(ctx, "w33d2", 33, 2, 3);
  return finish();
}
