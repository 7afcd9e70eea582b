// blk_infl_ring: rnic_infl_ring alone, against a reference model of the ring.
//
// Every cycle a seeded random mix of the four writes (a new record, a record
// changed in place, the retire of the completer's head - or of the head and
// the record after it -, the reset of a QP's ring), often several in one
// cycle and on the same QP and slot, and random addresses on the read ports.
// Checked every cycle, before the edge: the done index, head record and
// valid bit of the completer's QP, the record after the head and its valid
// bit, the record and valid bit at its slot_i, the requester's lookup; the model
// applies one cycle's writes in the module's order (retire, record write,
// reset; a later one wins where they meet). Retires come only while the
// head is valid, a retire of two only while the next is valid too, as in
// the engine (the module asserts it).
#include "Vrnic_infl_ring.h"
#include "blk_common.h"

using namespace blk;

#ifndef NQP
#define NQP 8
#endif
#ifndef DEPTH
#define DEPTH 4
#endif

namespace {
constexpr unsigned kInflW = 148;  // rnic_pkg::InflW

struct Model {
  std::vector<Bits> rec = std::vector<Bits>(NQP * DEPTH, Bits(kInflW));
  bool v[NQP][DEPTH] = {};
  uint16_t done[NQP] = {};
  unsigned head_slot(unsigned q) const { return done[q] % DEPTH; }
};

Bits rand_rec(Rng &r) {
  Bits b(kInflW);
  for (unsigned k = 0; k < kInflW; k += 32) b.set(k, std::min(32u, kInflW - k), r.u32());
  return b;
}

bool same(const Bits &a, const Bits &b) {
  for (unsigned k = 0; k < kInflW; k += 32)
    if (a.get(k, std::min(32u, kInflW - k)) != b.get(k, std::min(32u, kInflW - k))) return false;
  return true;
}
}  // namespace

int main(int argc, char **argv) {
  g_bench = "blk_rnic_infl_ring";
  VerilatedContext vctx;
  vctx.commandArgs(argc, argv);
  Vrnic_infl_ring top{&vctx};
  Rng r(0x1f1e0a11u);
  Model m;

  auto tick = [&]() { clock_cycle(top); };
  auto idle_inputs = [&]() {
    top.retire_i = 0;
    top.retire2_i = 0;
    top.wr_i = 0;
    top.wr_new_i = 0;
    top.clr_i = 0;
  };

  idle_inputs();
  top.q_i = 0;
  top.slot_i = 0;
  top.rd_q_i = 0;
  top.rd_slot_i = 0;
  reset_dut(top);

  // The RAMs start undefined: reset every QP's ring and write every record
  // once in place (no slot valid), as the model starts.
  for (unsigned q = 0; q < NQP; q++) {
    idle_inputs();
    top.clr_i = 1;
    top.clr_q_i = q;
    tick();
    for (unsigned s = 0; s < DEPTH; s++) {
      idle_inputs();
      const Bits b = rand_rec(r);
      top.wr_i = 1;
      top.wr_q_i = q;
      top.wr_slot_i = s;
      vset(top.wr_rec_i, b);
      tick();
      m.rec[q * DEPTH + s] = b;
    }
  }

  const unsigned kCycles = 200000;
  unsigned n_ret2 = 0, ret2_new_same = 0;
  unsigned n_new = 0, n_fix = 0, n_ret = 0, n_clr = 0, ret_new_same = 0, clr_wr_same = 0,
           clr_ret_same = 0, new_over_valid = 0, full = 0;
  for (unsigned c = 0; c < kCycles; c++) {
    idle_inputs();
    // Phases that favour a few QPs, so rings fill and drain.
    const unsigned span = ((c / 5000) % 2) ? 2 : NQP;
    const unsigned q = (unsigned)r.range(0, span - 1);
    top.q_i = q;
    top.slot_i = (unsigned)r.range(0, DEPTH - 1);
    top.rd_q_i = (unsigned)r.range(0, span - 1);
    top.rd_slot_i = (unsigned)r.range(0, DEPTH - 1);

    const bool retire = m.v[q][m.head_slot(q)] && r.chance(0.35);
    const unsigned ns = (m.head_slot(q) + 1) % DEPTH;
    const bool retire2 = retire && m.v[q][ns] && r.chance(0.3);
    bool wr = r.chance(0.5), wr_new = false, clr = r.chance(0.03);
    unsigned wq = 0, ws = 0, cq = 0;
    Bits wrec = rand_rec(r);
    if (wr) {
      wr_new = r.chance(0.75);
      wq = r.chance(0.5) ? q : (unsigned)r.range(0, span - 1);
      // New records mostly at the QP's next free slot (done + count), as
      // the requester writes them; some anywhere (a replacing flush record).
      unsigned cnt = 0;
      while (cnt < DEPTH && m.v[wq][(m.done[wq] + cnt) % DEPTH]) cnt++;
      ws = (wr_new && cnt < DEPTH && r.chance(0.8)) ? (m.done[wq] + cnt) % DEPTH
                                                     : (unsigned)r.range(0, DEPTH - 1);
      if (cnt == DEPTH) full++;
    }
    if (clr) cq = r.chance(0.5) ? q : (unsigned)r.range(0, span - 1);
    top.retire_i = retire;
    top.retire2_i = retire2;
    top.wr_i = wr;
    top.wr_new_i = wr_new;
    top.wr_q_i = wq;
    top.wr_slot_i = ws;
    vset(top.wr_rec_i, wrec);
    top.clr_i = clr;
    top.clr_q_i = cq;
    top.eval();

    // Read ports, before the edge
    const unsigned hs = m.head_slot(q);
    BLK_CHECK(top.done_o == m.done[q], "QP %u: done_o %u, want %u", q, top.done_o, m.done[q]);
    BLK_CHECK(top.head_v_o == m.v[q][hs], "QP %u: head_v_o %u, want %u", q, top.head_v_o,
              m.v[q][hs]);
    BLK_CHECK(same(vget(top.head_o, kInflW), m.rec[q * DEPTH + hs]), "QP %u: head_o differs", q);
    BLK_CHECK(top.next_v_o == m.v[q][ns], "QP %u: next_v_o %u, want %u", q, top.next_v_o,
              m.v[q][ns]);
    BLK_CHECK(same(vget(top.next_o, kInflW), m.rec[q * DEPTH + ns]), "QP %u: next_o differs", q);
    BLK_CHECK(top.slot_v_o == m.v[q][top.slot_i], "QP %u slot %u: slot_v_o %u, want %u", q,
              top.slot_i, top.slot_v_o, m.v[q][top.slot_i]);
    BLK_CHECK(same(vget(top.slot_rec_o, kInflW), m.rec[q * DEPTH + top.slot_i]),
              "QP %u slot %u: slot_rec_o differs", q, top.slot_i);
    BLK_CHECK(top.rd_v_o == m.v[top.rd_q_i][top.rd_slot_i], "lookup QP %u slot %u: rd_v_o %u",
              top.rd_q_i, top.rd_slot_i, top.rd_v_o);
    BLK_CHECK(same(vget(top.rd_rec_o, kInflW), m.rec[top.rd_q_i * DEPTH + top.rd_slot_i]),
              "lookup QP %u slot %u: rd_rec_o differs", top.rd_q_i, top.rd_slot_i);

    // Coverage of the meetings
    if (retire && wr_new && wq == q && ws == hs) ret_new_same++;
    if (retire2 && wr_new && wq == q && ws == ns) ret2_new_same++;
    n_ret2 += retire2;
    if (clr && wr && cq == wq) clr_wr_same++;
    if (clr && retire && cq == q) clr_ret_same++;
    if (wr_new && m.v[wq][ws] && !(retire && wq == q && ws == hs)) new_over_valid++;
    n_ret += retire;
    n_new += wr && wr_new;
    n_fix += wr && !wr_new;
    n_clr += clr;

    tick();
    // The model, in the module's order
    if (retire) {
      m.v[q][hs] = false;
      m.done[q]++;
      if (retire2) {
        m.v[q][ns] = false;
        m.done[q]++;
      }
    }
    if (wr) {
      m.rec[wq * DEPTH + ws] = wrec;
      if (wr_new) m.v[wq][ws] = true;
    }
    if (clr) {
      for (unsigned s = 0; s < DEPTH; s++) m.v[cq][s] = false;
      m.done[cq] = 0;
    }
  }
  info("NQp=%u InflDepth=%u: %u cycles, %u new records, %u changed in place, %u retires, %u "
       "resets; in one cycle: %u retire + new record at the head's slot, %u reset + write of "
       "the QP, %u reset + retire of the QP; %u new records over a valid one, %u writes to a "
       "full ring",
       NQP, DEPTH, kCycles, n_new, n_fix, n_ret, n_clr, ret_new_same, clr_wr_same, clr_ret_same,
       new_over_valid, full);
  info("%u retires of two records, %u of them with a new record at the second's slot", n_ret2,
       ret2_new_same);
  BLK_CHECK(n_ret2 > 5000 && ret2_new_same > 50, "the random mix missed retires of two");
  BLK_CHECK(n_ret > 20000 && ret_new_same > 100 && clr_wr_same > 100 && clr_ret_same > 100 &&
                new_over_valid > 1000 && full > 1000,
            "the random mix missed a kind of cycle");
  return finish(vctx);
}
