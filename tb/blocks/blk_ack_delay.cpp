// blk_rnic_ack_delay: rnic_ack_delay (the responder's delayed ACKs) against
// a reference model: a queue of QPs, each at most once (one leaving in a
// cycle may come back at the tail in it), a debt flag per QP and the age of
// the head's debt.
//
// Each cycle the bench may open a QP's debt (set_i), pay one (clr_i, the
// same QP: the engine decides both for the QP of its cycle; set wins),
// write a QP's context (rst_i) and, when an ACK is due, take it or not (the
// engine busy with other events); phases of busy and quiet traffic let
// debts age to the ACK, get paid on the way, or pile up behind the head.
// An asynchronous reset in the middle. Every cycle checks valid_o, due_o
// and the head's QP.
#include "Vrnic_ack_delay.h"
#include "blk_common.h"

using namespace blk;

namespace {
constexpr unsigned kNQp = NQP;
constexpr unsigned kDelay = DELAY;

struct Ref {
  std::deque<unsigned> q;
  std::vector<bool> owe = std::vector<bool>(kNQp, false);
  unsigned age = 0;
  bool valid() const { return !q.empty(); }
  bool live() const { return valid() && owe[q.front()]; }
  bool due() const { return live() && age == kDelay; }
};
}  // namespace

int main(int argc, char **argv) {
  g_bench = "blk_rnic_ack_delay";
  VerilatedContext vctx;
  vctx.commandArgs(argc, argv);
  Vrnic_ack_delay top{&vctx};
  Rng r(0xacd1a700u + kNQp);

  top.set_i = top.clr_i = top.rst_i = top.take_i = 0;
  top.qpn_i = top.rst_qpn_i = 0;
  reset_dut(top);
  Ref m;

  const unsigned kCycles = kNQp * kDelay < 20000 ? 400000 : 2000000;
  const unsigned phase = kCycles / 16;
  uint64_t acks = 0, paid = 0, waits_max = 0, resets = 0, busy_dues = 0, requeues = 0;
  std::vector<uint64_t> since(kNQp, 0);
  double p_set = 0.01, p_clr = 0.01, p_take = 1.0;
  for (unsigned c = 0; c < kCycles; c++) {
    if (c % phase == 0) {
      // {open a debt, pay one, take a due ACK}: quiet, debts paid under
      // load, many owing at once, an engine often busy
      static const double ph[][3] = {
          {0.002, 0.0005, 1.0}, {0.05, 0.05, 1.0}, {0.2, 0.01, 0.9}, {0.02, 0.0, 0.3}};
      p_set = ph[(c / phase) % 4][0];
      p_clr = ph[(c / phase) % 4][1];
      p_take = ph[(c / phase) % 4][2];
    }
    if (c == kCycles / 2) {
      reset_dut(top);
      m = Ref();
    }
    const bool set = r.chance(p_set), clr = r.chance(p_clr);
    const unsigned qpn = (unsigned)r.range(0, kNQp - 1);
    const bool rst = r.chance(0.001);
    const unsigned rst_qpn = (unsigned)r.range(0, kNQp - 1);
    top.set_i = set;
    top.clr_i = clr;
    top.qpn_i = qpn;
    top.rst_i = rst;
    top.rst_qpn_i = rst_qpn;
    top.eval();
    BLK_CHECK(top.valid_o == m.valid(), "cycle %u: valid_o %u, want %u", c, top.valid_o,
              m.valid());
    BLK_CHECK(top.due_o == m.due(), "cycle %u: due_o %u, want %u (age %u)", c, top.due_o,
              m.due(), m.age);
    if (m.valid())
      BLK_CHECK(top.qpn_o == m.q.front(), "cycle %u: head QP %u, want %u", c, top.qpn_o,
                m.q.front());
    const bool take = m.due() && r.chance(p_take);
    if (m.due() && !take) busy_dues++;
    top.take_i = take;
    clock_cycle(top);

    // The model's edge.
    const bool live = m.live(), due = m.due();
    const bool pop = m.valid() && (!live || take);
    if (pop) {
      const unsigned h = m.q.front();
      if (take) {
        acks++;
        waits_max = std::max<uint64_t>(waits_max, g_cycle - since[h]);
      } else {
        paid++;
      }
      m.q.pop_front();
    }
    m.age = (pop || !live) ? 0 : due ? m.age : m.age + 1;
    if (clr) m.owe[qpn] = false;
    if (rst) {
      m.owe[rst_qpn] = false;
      resets++;
    }
    if (set) {
      m.owe[qpn] = true;
      if (std::find(m.q.begin(), m.q.end(), qpn) == m.q.end()) {
        m.q.push_back(qpn);
        since[qpn] = g_cycle;
      } else {
        requeues++;
      }
    }
  }
  info("%llu ACKs due and taken (worst wait %llu cycles), %llu debts paid before their ACK, "
       "%llu due ACKs not taken at once, %llu debts opened again while queued, %llu resets",
       (unsigned long long)acks, (unsigned long long)waits_max, (unsigned long long)paid,
       (unsigned long long)busy_dues, (unsigned long long)requeues, (unsigned long long)resets);
  BLK_CHECK(acks > 100 && paid > 100 && busy_dues > 50 && requeues > 100 && resets > 50,
            "too few of a kind");
  return finish(vctx);
}
