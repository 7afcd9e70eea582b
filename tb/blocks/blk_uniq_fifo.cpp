// blk_rnic_uniq_fifo: rnic_uniq_fifo against a std::deque that queues an
// offered value unless it holds it already (the one leaving in that cycle
// excepted). Offers come from phases of mostly-new and mostly-waiting values
// and the consumer from phases of slow and fast draining, so that the FIFO
// runs full (every value waiting) and the head is offered again as it leaves,
// the case the formal proof found lost in the first version. An asynchronous
// reset in the middle. Two configurations are verilated into this executable:
//   Vrnic_uniq_fifo      Width=3   (8 values: full often)
//   Vrnic_uniq_fifo_w10  Width=10  (1024 values, the engine's queues)
#include "Vrnic_uniq_fifo.h"
#include "Vrnic_uniq_fifo_w10.h"
#include "blk_common.h"

using namespace blk;

template <class T>
static void run(VerilatedContext &ctx, const char *name, unsigned width, uint64_t seed,
                unsigned cycles) {
  T top{&ctx, name};
  Rng r(seed);
  const unsigned nval = 1u << width;
  std::deque<unsigned> ref;
  auto held = [&](unsigned v, bool skip_head) {
    for (size_t i = skip_head ? 1 : 0; i < ref.size(); i++) {
      if (ref[i] == v) return true;
    }
    return false;
  };
  top.clk_i = 0;
  top.in_valid_i = 0;
  top.out_ready_i = 0;
  reset_dut(top);

  uint64_t takes = 0, pops = 0, full_cycles = 0, reoffers = 0, dedups = 0;
  double p_in = 0.5, p_out = 0.5, p_head = 0.0, p_new = 0.0;
  const unsigned phase = cycles / 10;
  for (unsigned c = 0; c < cycles; c++, g_cycle++) {
    if (c % phase == 0) {
      // {offer, take, offer the head (when it waits), offer a value that
      // does not wait}: balanced, filling, full with the head offered
      // again, draining
      static const double ph[][4] = {{0.5, 0.5, 0.1, 0.0},
                                     {1.0, 0.05, 0.0, 0.9},
                                     {1.0, 0.3, 0.6, 0.3},
                                     {0.2, 0.9, 0.2, 0.0},
                                     {0.9, 0.5, 0.3, 0.0}};
      p_in = ph[(c / phase) % 5][0];
      p_out = ph[(c / phase) % 5][1];
      p_head = ph[(c / phase) % 5][2];
      p_new = ph[(c / phase) % 5][3];
    }
    if (c == cycles / 2) {  // asynchronous reset with values inside
      reset_dut(top);
      ref.clear();
    }
    top.clk_i = 0;
    const bool offer = r.chance(p_in);
    unsigned v = (unsigned)r.range(0, nval - 1);
    if (!ref.empty() && r.chance(p_head)) {
      v = ref.front();
    } else if (ref.size() < nval && r.chance(p_new)) {
      while (held(v, false)) v = (v + 1) % nval;
    }
    top.in_valid_i = offer;
    top.in_data_i = v;
    top.out_ready_i = r.chance(p_out);
    top.eval();

    BLK_CHECK(top.out_valid_o == !ref.empty(), "%s: out_valid_o=%d with %zu waiting", name,
              top.out_valid_o, ref.size());
    if (!ref.empty()) {
      BLK_CHECK(top.out_data_o == ref.front(), "%s: out_data_o=%u, expected %u (pop %llu)",
                name, (unsigned)top.out_data_o, ref.front(), (unsigned long long)pops);
    }
    const bool pop = top.out_valid_o && top.out_ready_i;
    if (ref.size() == nval) full_cycles++;
    top.clk_i = 1;
    top.eval();
    const bool was_head = pop && !ref.empty() && ref.front() == v;
    if (pop && !ref.empty()) {
      ref.pop_front();
      pops++;
    }
    if (offer) {
      if (!held(v, false)) {
        // (held() after the pop: the head leaving no longer counts)
        ref.push_back(v);
        takes++;
        if (was_head) reoffers++;
      } else {
        dedups++;
      }
    }
    BLK_CHECK(ref.size() <= nval, "%s: %zu values waiting of %u", name, ref.size(), nval);
  }
  BLK_CHECK(takes > cycles / 8 && pops > cycles / 8 && dedups > cycles / 20 &&
                reoffers > 20 && full_cycles > 20,
            "%s: weak coverage (%llu taken, %llu popped, %llu not queued again, %llu heads "
            "queued again, %llu cycles full)",
            name, (unsigned long long)takes, (unsigned long long)pops,
            (unsigned long long)dedups, (unsigned long long)reoffers,
            (unsigned long long)full_cycles);
  info("%s (Width=%u): %llu taken, %llu popped, %llu not queued again, %llu heads queued again, "
       "%llu cycles full",
       name, width, (unsigned long long)takes, (unsigned long long)pops,
       (unsigned long long)dedups, (unsigned long long)reoffers, (unsigned long long)full_cycles);
  cov_dump(ctx);
}

int main(int argc, char **argv) {
  g_bench = "blk_rnic_uniq_fifo";
  VerilatedContext ctx;
  ctx.commandArgs(argc, argv);
  run<Vrnic_uniq_fifo>(ctx, "w3", 3, 1, 20000);
  run<Vrnic_uniq_fifo_w10>(ctx, "w10", 10, 2, 200000);
  return finish();
}
