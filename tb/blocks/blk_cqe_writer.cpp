// blk_rnic_cqe_writer: rnic_cqe_writer alone (NCq=16; DATAW 256 and 64).
//
// Random CQE requests for 16 CQs (some without a valid context: dropped), CQ
// contexts (cq_cfg_t: valid, log_size, base) answered on ctx_i for ctx_idx_o,
// DMA writes captured with random back-pressure into a C++ host memory.
// Checks: address/length/beat count/last of every write, the 64-byte CQE
// layout of docs/formats.md byte for byte including the owner bit of the pass,
// the producer index per CQ (through the slot address and the owner bit), a
// software consumer that polls the rings by owner bit only and must see every
// CQE exactly once in order, interrupts (arm_valid_i/arm_data_i: bit32 arm,
// bit33 solicited only) only when armed and once per arm, the send/recv trace
// events, and CQ context rewrites (cq_wr_i) resetting the producer index.
// CQ moderation (arm_data_i bit 34: [15:0] CQN, [31:16] count, [50:35]
// period in us of 250 cycles): a reference model of the four slots decides
// on which edge each interrupt comes (count reached, period run out, no slot
// free) and for which CQ.
#include "Vrnic_cqe_writer.h"
#include "blk_common.h"

using namespace blk;

#ifndef DATAW
#define DATAW 256
#endif
constexpr unsigned kBytes = DATAW / 8;
constexpr unsigned kBeats = 64 / kBytes;
constexpr unsigned kNCq = 16;
constexpr unsigned kCqeReqW = 176;
constexpr unsigned kCqCfgW = 134;

namespace {

struct Cqe {
  uint16_t cqn;
  uint32_t qpn;
  uint16_t idx;
  uint8_t status, opcode;
  uint32_t byte_len, imm;
  uint8_t flags, vendor_err;
  uint32_t src_qp;
  Bits pack() const {
    Packer p(kCqeReqW);
    p.f(16, cqn)
        .f(24, qpn)
        .f(16, idx)
        .f(8, status)
        .f(8, opcode)
        .f(32, byte_len)
        .f(32, imm)
        .f(8, flags)
        .f(8, vendor_err)
        .f(24, src_qp);
    return p.done();
  }
  // docs/formats.md, CQE (64 bytes), little-endian
  std::vector<uint8_t> image(bool owner) const {
    std::vector<uint8_t> b(64, 0);
    auto le = [&](unsigned off, uint64_t v, unsigned n) {
      for (unsigned i = 0; i < n; i++) b[off + i] = (uint8_t)(v >> (8 * i));
    };
    le(0, byte_len, 4);
    le(4, imm, 4);
    le(8, qpn, 4);
    le(12, idx, 2);
    b[14] = status;
    b[15] = opcode;
    b[16] = flags;
    b[17] = vendor_err;
    le(20, src_qp, 4);
    b[63] = owner ? 1 : 0;
    return b;
  }
};

constexpr unsigned kSlots = 4;
constexpr unsigned kClkPerUs = 250;
struct Slot {
  bool v = false;
  unsigned cq = 0, cnt = 0;
  uint32_t down = 0;
};

struct Cq {
  bool valid = false;
  unsigned log = 0;
  uint64_t base = 0;
  uint32_t pi = 0;      // reference producer index
  uint32_t sw_ci = 0;   // software consumer index
  uint32_t issued = 0;  // CQEs requested and not yet consumed by software
  bool armed = false, sol = false;
  bool mod_on = false;      // moderation set since the context write
  unsigned mcnt = 0, mper = 0;
  std::deque<Cqe> to_poll;  // written, to be found by the software poller
  Bits pack() const {
    Packer p(kCqCfgW);
    // No doorbell record: the overrun check (a DMA read) is not used here;
    // the system test sys_cq_overrun covers it.
    p.f(1, valid).f(5, log).f(64, base).f(64, 0);
    return p.done();
  }
};

}  // namespace

int main(int argc, char **argv) {
  // test name: blk_rnic_<block>, with _w<DATAW> unless the datapath is 256 bits
  static const std::string name =
      std::string("blk_rnic_cqe_writer") + (DATAW == 256 ? "" : "_w" + std::to_string(DATAW));
  g_bench = name.c_str();
  VerilatedContext vctx;
  vctx.commandArgs(argc, argv);
  Vrnic_cqe_writer top{&vctx};
  Rng r(0xc0e00000u + DATAW);

  std::map<uint64_t, uint8_t> mem;  // host memory (CQ rings)
  Cq cqs[kNCq];
  uint64_t next_base = 0x7f0000001000ull;
  auto setup_cq = [&](unsigned n, bool valid) {
    Cq &c = cqs[n];
    c = Cq();
    c.valid = valid;
    c.log = (unsigned)r.range(0, 5);
    c.base = next_base;
    next_base += (64ull << c.log) + 64 * r.range(0, 3);
    if (r.chance(0.3)) next_base += 0x100000000ull;  // above 4 GiB
    for (unsigned s = 0; s < (1u << c.log); s++) {   // software: every owner bit 1
      for (unsigned i = 0; i < 64; i++) mem[c.base + 64 * s + i] = 0xEE;
      mem[c.base + 64 * s + 63] = 1;
    }
  };
  for (unsigned n = 0; n < kNCq; n++) setup_cq(n, n != 5 && n != 11);

  top.cqe_valid_i = 0;
  top.cq_wr_i = 0;
  top.arm_valid_i = 0;
  top.wr_ready_i = 0;
  reset_dut(top);
  // Contexts are (re)written through the command path: cq_wr_i resets the
  // producer index and the arm state of the CQ.
  auto cq_write = [&](unsigned n) {
    top.clk_i = 0;
    top.cq_wr_i = 1;
    top.cq_wr_idx_i = n;
    top.eval();
    top.clk_i = 1;
    top.eval();
    top.cq_wr_i = 0;
    g_cycle++;
  };
  for (unsigned n = 0; n < kNCq; n++) cq_write(n);

  std::deque<Cqe> accepted;  // requests in the DUT, in order
  bool offered = false;
  Cqe cur{};
  unsigned wr_beat = 0;
  uint64_t wr_addr = 0;
  std::vector<uint8_t> wr_data;
  bool irq_expected = false;
  uint16_t irq_cqn_expected = 0;
  unsigned requested = 0, written = 0, dropped = 0, irqs = 0, arms = 0, polled = 0;
  unsigned mods = 0, held = 0, count_irqs = 0, period_irqs = 0, full_irqs = 0;
  Slot slots[kSlots];
  unsigned written_cq0 = 0;
  unsigned ev_s = 0, ev_r = 0, wraps = 0, rewrites = 0;
  const unsigned kCqes = 20000;
  uint64_t last_progress = 0;
  double p_cqe = 0.7, p_wr = 0.7, p_arm = 0.05, p_poll = 0.5;
  bool pause = false;

  for (; g_cycle < 2000000; g_cycle++) {
    if (requested >= kCqes && accepted.empty() && !offered) {
      bool all = true;
      for (auto &c : cqs) all = all && c.to_poll.empty();
      if (all) break;
    }
    if (g_cycle - last_progress > 5000) {
      fail("no progress for 5000 cycles: %u requested, %zu in the writer, %u written", requested,
           accepted.size(), written);
      break;
    }
    const unsigned ph = (unsigned)(g_cycle / 2000) % 4;
    p_cqe = ph == 1 ? 1.0 : 0.6;
    p_wr = ph == 2 ? 0.2 : (ph == 1 ? 1.0 : 0.7);
    p_poll = ph == 3 ? 0.05 : 0.6;

    // Every 1500 cycles: stop, drain, rewrite the context of a CQ (new ring).
    if (g_cycle % 1500 == 1000) pause = true;
    const bool rewrite = pause && !offered && accepted.empty() && !irq_expected;
    const unsigned rw_cq = (unsigned)r.range(0, kNCq - 1);

    top.clk_i = 0;
    // ---- CQE producer (data stable while valid). Software never lets a CQ
    // overflow: a CQE is only requested for a CQ with a free slot.
    if (!offered && !pause && requested < kCqes && r.chance(p_cqe)) {
      unsigned n = (unsigned)r.range(0, kNCq - 1);
      Cq &c = cqs[n];
      if (!c.valid || c.issued < (1u << c.log)) {
        cur.cqn = (uint16_t)n;
        cur.qpn = r.u32() & 0xFFFFFF;
        cur.idx = (uint16_t)r.u32();
        cur.status = r.chance(0.8) ? 0 : (uint8_t)r.range(1, 21);
        cur.opcode = r.chance(0.5) ? (uint8_t)r.range(0, 2) : (uint8_t)r.range(128, 129);
        cur.byte_len = r.u32();
        cur.imm = r.u32();
        cur.flags = (uint8_t)r.u32();
        cur.vendor_err = (uint8_t)r.u32();
        cur.src_qp = r.u32() & 0xFFFFFF;
        offered = true;
        if (c.valid) c.issued++;
      }
    }
    top.cqe_valid_i = offered;
    if (offered) vset(top.cqe_i, cur.pack());
    // a context write to an index beyond NCq must change nothing
    const bool stray_wr = !rewrite && r.chance(0.01);
    top.cq_wr_i = rewrite || stray_wr;
    top.cq_wr_idx_i = rewrite ? rw_cq : (uint32_t)r.range(kNCq, 0xFFFFFF);
    // ---- arm doorbells
    top.arm_valid_i = !rewrite && r.chance(p_arm);
    uint64_t arm_data = 0;
    if (top.arm_valid_i) {
      unsigned n = (unsigned)r.range(0, kNCq - 1);
      if (r.chance(0.2)) {
        // moderation: count 0..6, period 0..2 us, random unused bits
        arm_data = n | (r.range(0, 6) << 16) | (1ull << 34) | ((uint64_t)r.range(0, 2) << 35) |
                   ((r.u64() & 0x1FFF) << 51) | (r.chance(0.5) ? 1ull << 32 : 0);
        if (r.chance(0.1)) arm_data = (arm_data & ~0xFFFFull) | (kNCq + r.range(0, 100));
        mods++;
      } else {
        arm_data = n | (r.chance(0.85) ? 1ull << 32 : 0) | (r.chance(0.3) ? 1ull << 33 : 0) |
                   ((r.u64() & 0xFF) << 24) | ((r.u64() & 0x1FFFFFFF) << 35);
        if (r.chance(0.1)) arm_data = (arm_data & ~0xFFFFFFull) | (kNCq + r.range(0, 100));
        arms++;
      }
      top.arm_data_i = arm_data;
    }
    top.wr_ready_i = r.chance(p_wr);
    top.eval();
    {
      unsigned n = top.ctx_idx_o;
      vset(top.ctx_i, n < kNCq ? cqs[n].pack() : Bits(kCqCfgW));
      top.eval();
    }

    // ---- checks before the edge
    BLK_CHECK(top.irq_valid_o == irq_expected, "irq_valid_o=%d, expected %d (CQ %u)",
              top.irq_valid_o, irq_expected, irq_cqn_expected);
    if (top.irq_valid_o && irq_expected)
      BLK_CHECK(top.irq_cqn_o == irq_cqn_expected, "irq_cqn_o=%u, expected %u", top.irq_cqn_o,
                irq_cqn_expected);
    if (top.irq_valid_o) irqs++;
    const bool cqe_take = top.cqe_valid_i && top.cqe_ready_o;
    const bool wr_take = top.wr_valid_o && top.wr_ready_i;
    // An empty queue passes a request through: its first beat may go out in
    // the cycle it is taken.
    if (cqe_take) accepted.push_back(cur);
    bool done = false;
    Cqe done_cqe{};
    // Requests for CQs without a valid context are dropped without a write.
    while (!accepted.empty() && !cqs[accepted.front().cqn].valid) {
      accepted.pop_front();
      dropped++;
    }
    if (wr_take) {
      if (accepted.empty()) {
        fail("DMA write with no CQE request outstanding");
      } else {
        const Cqe &e = accepted.front();
        const Cq &c = cqs[e.cqn];
        if (wr_beat == 0) {
          wr_addr = top.wr_addr_o;
          const uint64_t exp_addr = c.base + 64ull * (c.pi & ((1u << c.log) - 1));
          BLK_CHECK(top.wr_addr_o == exp_addr && top.wr_len_o == 64,
                    "CQ %u CQE #%u: write addr=0x%llx len=%u, expected addr=0x%llx len=64", e.cqn,
                    c.pi, (unsigned long long)top.wr_addr_o, top.wr_len_o,
                    (unsigned long long)exp_addr);
          wr_data.clear();
        }
        uint8_t lanes[kBytes];
        vget_bytes(top.wr_data_o, lanes);
        wr_data.insert(wr_data.end(), lanes, lanes + kBytes);
        const bool exp_last = wr_beat + 1 == kBeats;
        BLK_CHECK(top.wr_last_o == exp_last, "CQ %u: wr_last_o=%d on beat %u of %u", e.cqn,
                  top.wr_last_o, wr_beat, kBeats);
        if (top.wr_last_o || wr_beat + 1 >= kBeats) {
          const bool owner = (c.pi >> c.log) & 1;
          std::vector<uint8_t> exp = e.image(owner);
          if (wr_data != exp) {
            size_t i = 0;
            while (wr_data[i] == exp[i]) i++;
            fail(
                "CQ %u CQE #%u (qpn 0x%x idx %u): byte %zu is 0x%02x, expected 0x%02x (owner "
                "%d)",
                e.cqn, c.pi, e.qpn, e.idx, i, wr_data[i], exp[i], owner);
          }
          for (unsigned i = 0; i < 64; i++) mem[wr_addr + i] = wr_data[i];
          done = true;
          done_cqe = e;
        }
      }
    }
    // trace events: with the last beat of a CQE write
    // CQ 0 is the event queue: its records are not send/receive CQEs.
    const bool real_cqe = done && done_cqe.cqn != 0;
    BLK_CHECK(top.ev_send_o == (real_cqe && !(done_cqe.opcode & 0x80)) &&
                  top.ev_recv_o == (real_cqe && (done_cqe.opcode & 0x80)),
              "ev_send_o=%d ev_recv_o=%d (CQE written: %d, opcode %u)", top.ev_send_o,
              top.ev_recv_o, done, done_cqe.opcode);
    if (done)
      BLK_CHECK(top.ev_qpn_o == done_cqe.qpn && top.ev_idx_o == done_cqe.idx,
                "event qpn 0x%x idx %u, expected 0x%x/%u", top.ev_qpn_o, top.ev_idx_o, done_cqe.qpn,
                done_cqe.idx);
    ev_s += top.ev_send_o;
    ev_r += top.ev_recv_o;

    top.clk_i = 1;
    top.eval();

    // ---- models after the edge
    irq_expected = false;
    if (wr_take) {
      wr_beat = done ? 0 : wr_beat + 1;
      last_progress = g_cycle;
    }
    // Moderation slots before the edge: the written CQE's, a free one, a due one.
    int hit = -1, fr = -1, td = -1;
    for (unsigned k = 0; k < kSlots; k++) {
      if (done && slots[k].v && slots[k].cq == done_cqe.cqn && hit < 0) hit = (int)k;
      if (!slots[k].v && fr < 0) fr = (int)k;
      if (slots[k].v && slots[k].down == 1 && td < 0) td = (int)k;
    }
    bool fire = false, hold = false;
    unsigned cnt_now = 1, mper = 0;
    if (done) {
      const Cq &c = cqs[done_cqe.cqn];
      // CQ 0, the event queue, interrupts at every record and is never disarmed.
      const bool is_ev = done_cqe.cqn == 0;
      const bool want = c.armed && (!c.sol || (done_cqe.flags & 8) || done_cqe.status != 0);
      const unsigned mcnt = c.mod_on ? c.mcnt : 0;
      mper = c.mod_on ? c.mper : 0;
      const bool moderated = !is_ev && (mcnt > 1 || mper != 0);
      cnt_now = (hit >= 0 ? slots[hit].cnt : 0) + 1;
      const bool reach = mcnt != 0 && cnt_now >= mcnt;
      fire = is_ev || (want && (!moderated || reach || (hit < 0 && fr < 0)));
      hold = want && moderated && !fire;
      if (fire && moderated) (reach ? count_irqs : full_irqs)++;
    }
    const bool tfire = td >= 0 && !fire;
    const unsigned td_cq = td >= 0 ? slots[td].cq : 0;
    if (fire || tfire) {
      irq_expected = true;
      irq_cqn_expected = fire ? done_cqe.cqn : (uint16_t)td_cq;
    }
    if (tfire) period_irqs++;
    {
      const bool arm_wr = top.arm_valid_i && !((arm_data >> 34) & 1) &&
                          (arm_data & 0xFFFFFF) < kNCq;
      for (unsigned k = 0; k < kSlots; k++) {
        if (slots[k].v && slots[k].down > 1) slots[k].down--;
        if (slots[k].v && ((arm_wr && !((arm_data >> 32) & 1) &&
                            slots[k].cq == (arm_data & 0xFFFFFF)) ||
                           (rewrite && slots[k].cq == rw_cq)))
          slots[k].v = false;
      }
      if (hold && hit >= 0) slots[hit].cnt = cnt_now;
      if (hold && hit < 0) {
        slots[fr] = Slot{true, done_cqe.cqn, 1, mper * kClkPerUs};
        held++;
      }
      if (fire && hit >= 0) slots[hit].v = false;
      if (tfire) slots[td].v = false;
      if (hold && hit >= 0) held++;
    }
    if (tfire) cqs[td_cq].armed = false;
    if (done) {
      Cq &c = cqs[done_cqe.cqn];
      if (done_cqe.cqn == 0) written_cq0++;
      if (fire && done_cqe.cqn != 0) c.armed = false;
      if (((c.pi + 1) & ((1u << c.log) - 1)) == 0) wraps++;
      c.pi++;
      c.to_poll.push_back(done_cqe);
      accepted.pop_front();
      written++;
    }
    if (top.arm_valid_i && ((arm_data >> 34) & 1)) {  // moderation
      unsigned n = arm_data & 0xFFFF;
      if (n < kNCq) {
        cqs[n].mod_on = true;
        cqs[n].mcnt = (arm_data >> 16) & 0xFFFF;
        cqs[n].mper = (arm_data >> 35) & 0xFFFF;
      }
    } else if (top.arm_valid_i) {  // the doorbell of this edge wins over a fire in the same edge
      unsigned n = arm_data & 0xFFFFFF;
      if (n < kNCq) {
        cqs[n].armed = (arm_data >> 32) & 1;
        cqs[n].sol = (arm_data >> 33) & 1;
      }
    }
    if (rewrite) {
      setup_cq(rw_cq, r.chance(0.85));
      rewrites++;
      pause = false;
      last_progress = g_cycle;
    }
    if (cqe_take) {
      offered = false;
      requested++;
      last_progress = g_cycle;
    }

    // ---- software poller: owner bit only, never a device register
    if (r.chance(p_poll)) {
      for (unsigned n = 0; n < kNCq; n++) {
        Cq &c = cqs[n];
        if (!c.valid) continue;
        const uint64_t slot = c.base + 64ull * (c.sw_ci & ((1u << c.log) - 1));
        const bool phase = (c.sw_ci >> c.log) & 1;
        if ((mem[slot + 63] & 1) != phase) continue;  // nothing new
        std::vector<uint8_t> img(64);
        for (unsigned i = 0; i < 64; i++) img[i] = mem[slot + i];
        if (c.to_poll.empty()) {
          fail("CQ %u: software sees a new CQE at ci=%u that was never written", n, c.sw_ci);
          c.sw_ci++;
          continue;
        }
        const Cqe e = c.to_poll.front();
        c.to_poll.pop_front();
        BLK_CHECK(img == e.image(phase), "CQ %u: CQE polled at ci=%u differs from the one written",
                  n, c.sw_ci);
        c.sw_ci++;
        c.issued--;
        polled++;
      }
    }
  }
  for (unsigned n = 0; n < kNCq; n++)
    BLK_CHECK(cqs[n].to_poll.empty(), "CQ %u: %zu CQEs written but never seen by the poller", n,
              cqs[n].to_poll.size());
  BLK_CHECK(requested == kCqes && accepted.empty(), "end: %u of %u requested, %zu outstanding",
            requested, kCqes, accepted.size());
  BLK_CHECK(ev_s + ev_r == written - written_cq0, "%u send + %u recv events for %u CQEs (%u on CQ 0)",
            ev_s, ev_r, written, written_cq0);
  BLK_CHECK(irqs > 50 && wraps > 50 && dropped > 50 && rewrites > 20,
            "weak coverage: %u irqs, %u wraps, %u dropped, %u rewrites", irqs, wraps, dropped,
            rewrites);
  BLK_CHECK(held > 50 && count_irqs > 10 && period_irqs > 10,
            "weak moderation coverage: %u CQEs held, %u interrupts at the count, %u at the "
            "period, %u with no slot free",
            held, count_irqs, period_irqs, full_irqs);
  info("moderation: %u writes, %u CQEs held in slots, interrupts: %u at the count, %u at the "
       "period, %u with no slot free",
       mods, held, count_irqs, period_irqs, full_irqs);
  info(
      "%u CQEs requested: %u written, %u dropped (no valid CQ), %u polled; %u ring wraps, %u "
      "arm doorbells, %u interrupts, %u context rewrites",
      requested, written, dropped, polled, wraps, arms, irqs, rewrites);
  top.final();
  return finish(vctx);
}
