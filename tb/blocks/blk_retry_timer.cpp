// blk_rnic_retry_timer: the transport timer's fast-forward outputs.
//
// Two instances get the same random commands (start, restart, RNR, stop,
// disarm, QPNs out of range) and expiry acknowledgements. Between commands
// the second one skips: one edge with skip_i standing for n <= due_o edges,
// n random (often exactly due_o), while the first evaluates those n edges one
// by one. Checked:
//   - the first raises no expiry during the edges the second skipped
//     (due_o is a safe bound);
//   - with one QP armed since it was armed alone, skipping due_o edges lands
//     on the expiry: the next edge of the first reports that QP (the bound
//     is exact there);
//   - both agree on every output after every edge (the skip advanced the
//     clock and the scanner as the edges would);
//   - idle_o is !exp_valid_o and due_o is all ones with nothing armed.
// Two configurations: NQp = 16 and NQp = 12 (the scanner wraps at 16).
#include "Vrnic_retry_timer.h"
#include "Vrnic_retry_timer_q12.h"
#include "blk_common.h"

#include <set>

using namespace blk;

namespace {

constexpr unsigned kOpStart = 0, kOpRestart = 1, kOpRnr = 2, kOpStop = 3;

template <class T>
void edge(T &t)
{
  t.clk_i = 1;
  t.eval();
  t.clk_i = 0;
  t.eval();
}

template <class T>
void run(VerilatedContext &ctx, const char *name, unsigned nqp, uint64_t seed)
{
  T a{&ctx, "a"}, b{&ctx, "b"};
  Rng r(seed);
  std::set<unsigned> armed;  // QPs armed, as the commands and expiries say
  bool alone = false;        // one QP armed, and it was armed while alone
  uint64_t skips = 0, skipped = 0, exact = 0, expiries = 0;

  for (T *t : {&a, &b}) {
    t->cmd_valid_i = 0;
    t->exp_ready_i = 0;
    t->skip_i = 0;
    t->skip_cycles_i = 0;
    reset_dut(*t);
  }
  auto compare = [&](const char *when) {
    BLK_CHECK(a.exp_valid_o == b.exp_valid_o && a.exp_qpn_o == b.exp_qpn_o &&
                  a.exp_rnr_o == b.exp_rnr_o && a.due_o == b.due_o && a.idle_o == b.idle_o,
              "%s %s: edge by edge exp %u qpn %u rnr %u due %u idle %u, skipping exp %u qpn %u "
              "rnr %u due %u idle %u",
              name, when, a.exp_valid_o, a.exp_qpn_o, a.exp_rnr_o, a.due_o, a.idle_o,
              b.exp_valid_o, b.exp_qpn_o, b.exp_rnr_o, b.due_o, b.idle_o);
    BLK_CHECK(a.idle_o == !a.exp_valid_o, "%s: idle_o %u with exp_valid_o %u", name, a.idle_o,
              a.exp_valid_o);
    BLK_CHECK(!armed.empty() || a.due_o == 0xffffffffu, "%s: nothing armed, due_o %u", name,
              a.due_o);
  };

  // One edge of both with these inputs (no command: cmd false).
  auto step = [&](bool cmd, unsigned op, unsigned qpn, uint64_t cyc, bool ready) {
    for (T *t : {&a, &b}) {
      t->cmd_valid_i = cmd;
      t->cmd_op_i = op;
      t->cmd_qpn_i = qpn;
      t->cmd_cycles_i = cyc;
      t->exp_ready_i = ready;
      t->eval();
    }
    // The shadow of the armed set (rnic_retry_timer's rules).
    bool ok = cmd && qpn < nqp;
    bool arm = ok && op != kOpStop && cyc != 0 && (op != kOpStart || !armed.count(qpn));
    size_t before = armed.size();
    if (ok && (op == kOpStop || cyc == 0))
      armed.erase(qpn);
    else if (arm)
      armed.insert(qpn);
    bool was = a.exp_valid_o && !ready && !(ok && qpn == a.exp_qpn_o);
    edge(a);
    edge(b);
    g_cycle++;
    for (T *t : {&a, &b}) {
      t->cmd_valid_i = 0;
      t->exp_ready_i = 0;
      t->eval();
    }
    compare("after an edge");
    if (a.exp_valid_o && !was) {
      armed.erase(a.exp_qpn_o);
      expiries++;
    }
    if (armed.size() != 1)
      alone = false;
    else if (arm)
      alone = true;
    else if (before != 1)
      alone = false;
  };

  for (unsigned round = 0; round < 3000; round++) {
    // A few commands on consecutive edges (an expiry waiting may be taken).
    // Mostly a few QPs (one or two armed, as waiting QPs are), sometimes
    // any, now and then one out of range.
    unsigned span = r.chance(0.5) ? 1 : r.chance(0.7) ? 3 : nqp + 2;
    unsigned base = (unsigned)r.range(0, nqp - 1);

    for (unsigned k = (unsigned)r.range(1, 3); k; k--) {
      unsigned op = (unsigned)r.range(0, 3);
      unsigned qpn = span > nqp ? (unsigned)r.range(0, span) : (base + (unsigned)r.range(0, span - 1)) % nqp;
      uint64_t cyc = r.chance(0.1) ? 0 : r.range(1, r.chance(0.2) ? 40000 : 3000);

      step(true, op, qpn, cyc, a.exp_valid_o && r.chance(0.5));
    }
    // Then quiet: take expiries, let the scanner walk, and skip.
    for (unsigned k = 0; k < 40; k++) {
      if (a.exp_valid_o) {
        step(false, 0, 0, 0, true);
        continue;
      }
      uint32_t due = b.due_o;

      if (due == 0xffffffffu)
        break;
      if (due == 0) {
        // The earliest deadline armed has passed: the scanner walks, or a
        // QP stops (the bound comes back once one or none is armed).
        if (armed.size() > 1 && r.chance(0.3)) {
          auto it = armed.begin();

          std::advance(it, (long)r.range(0, armed.size() - 1));
          step(true, kOpStop, *it, 1, false);
        } else {
          step(false, 0, 0, 0, false);
        }
        continue;
      }
      uint64_t n = r.chance(0.6) ? due : r.range(1, due);

      b.skip_i = 1;
      b.skip_cycles_i = (uint32_t)n;
      edge(b);
      b.skip_i = 0;
      b.skip_cycles_i = 0;
      b.eval();
      for (uint64_t e = 0; e < n; e++, g_cycle++) {
        edge(a);
        BLK_CHECK(!a.exp_valid_o, "%s: expiry %llu edges into a skip of %llu (due_o %u)",
                  name, (unsigned long long)e, (unsigned long long)n, due);
      }
      compare("after a skip");
      skips++;
      skipped += n;
      if (n == due && armed.size() == 1 && alone) {
        unsigned q = *armed.begin();

        step(false, 0, 0, 0, false);
        BLK_CHECK(a.exp_valid_o && a.exp_qpn_o == q,
                  "%s: one QP (%u) armed, due_o %u edges skipped, no expiry on the next",
                  name, q, due);
        exact++;
      }
    }
  }
  BLK_CHECK(skips > 1000 && exact > 200 && expiries > 200,
            "%s: too little exercised: %llu skips, %llu exact, %llu expiries", name,
            (unsigned long long)skips, (unsigned long long)exact, (unsigned long long)expiries);
  info("%s: %llu skips over %llu edges, %llu landed exactly on an expiry, %llu expiries", name,
       (unsigned long long)skips, (unsigned long long)skipped, (unsigned long long)exact,
       (unsigned long long)expiries);
  cov_dump(ctx);
}

}  // namespace

int main(int argc, char **argv)
{
  g_bench = "blk_rnic_retry_timer";
  VerilatedContext ctx;
  ctx.commandArgs(argc, argv);
  run<Vrnic_retry_timer>(ctx, "nqp16", 16, 11);
  run<Vrnic_retry_timer_q12>(ctx, "nqp12", 12, 12);
  return finish();
}
