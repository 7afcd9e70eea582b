// blk_rnic_sge_map: rnic_sge_map alone against a C++ reference of scatter
// mapping (IBA 9.7.5.1: a receive's bytes go to its SGEs in order).
//
// Random WQEs put lists of 0..4 SGEs (and counts of 5, "more than four")
// at slot 1, 2 or 3, with lengths from 0 to 2^32 - 1; a packet window
// [moff, moff + plen) is mapped one SGE per step with random idle cycles
// between steps. The bench plays the MR check: it reads key_o/va_o/len_o,
// answers chk_ok_i/chk_bus_i in the same cycle from a fixed function of the
// three (about one access in eight refused) and checks every cycle's
// all/last/hit/fits/ovf/prot and the check request against the reference; at
// the end of a walk, the segments (bus address, length, payload offset).
// Some walks go on with a second window from SGE 0 (rewalk_i, a UD receive's
// payload after its GRH area), keeping the segments; some trials set one
// segment directly (seg_set_i, an rkey WRITE).
#include "Vrnic_sge_map.h"
#include "blk_common.h"

using namespace blk;

namespace {
constexpr unsigned kWqeBits = 2048;
constexpr unsigned kMaxSeg = 5;  // rnic_pkg::MaxSeg: four SGEs, two windows sharing one

struct Sge {
  uint32_t len, key;
  uint64_t va;
};
struct Seg {
  uint64_t addr;
  uint32_t len;
  uint16_t poff;
};

// The bench's MR check: refuses about one access in eight, bus address a
// function of all three inputs.
bool mr_ok(uint32_t key, uint64_t va, uint32_t len) {
  uint64_t h = (uint64_t)key * 0x9e3779b97f4a7c15ull ^ va ^ ((uint64_t)len << 17);
  h ^= h >> 29;
  return (h & 7) != 0;
}
uint64_t mr_bus(uint32_t key, uint64_t va) { return va + ((uint64_t)key << 12) + 0x1000; }

// The reference walk: state after each step.
struct Walk {
  std::vector<Sge> sges;
  uint64_t m_lo = 0, m_hi = 0;
  uint16_t adj = 0;
  unsigned i = 0;
  uint64_t acc = 0;
  bool prot = false, ovf = false;
  std::vector<Seg> segs;

  bool all() const { return i == sges.size(); }
  bool last() const { return i + 1 == sges.size(); }
  // overlap of the window with the current SGE
  uint64_t s_lo() const { return std::max(acc, m_lo); }
  uint64_t s_hi() const { return std::min(acc + sges[i].len, m_hi); }
  bool hit() const { return !all() && s_hi() > s_lo(); }
  uint64_t acc_next() const { return all() ? acc : acc + sges[i].len; }
  bool fits() const { return m_hi <= acc_next(); }
  uint64_t chk_va() const { return sges[i].va + (s_lo() - acc); }
  uint32_t chk_len() const { return (uint32_t)(s_hi() - s_lo()); }
  bool ok() const { return mr_ok(sges[i].key, chk_va(), chk_len()); }
  bool ovf_now() const { return ovf || (hit() && segs.size() == kMaxSeg); }
  bool prot_now() const { return prot || (hit() && !ok()); }
  void step() {
    if (all()) return;
    if (hit()) {
      if (!ok()) prot = true;
      if (segs.size() == kMaxSeg)
        ovf = true;
      else
        segs.push_back({mr_bus(sges[i].key, chk_va()), chk_len(),
                        (uint16_t)((uint16_t)s_lo() - adj)});
    }
    acc += sges[i].len;
    i++;
  }
};
}  // namespace

int main(int argc, char **argv) {
  g_bench = "blk_rnic_sge_map";
  VerilatedContext vctx;
  vctx.commandArgs(argc, argv);
  Vrnic_sge_map top{&vctx};
  Rng r(0x5ce3a900u);

  auto tick = [&]() { clock_cycle(top); };
  auto idle_inputs = [&]() {
    top.start_i = 0;
    top.rewalk_i = 0;
    top.step_i = 0;
    top.seg_set_i = 0;
  };
  // Answer the MR check of the current outputs, as the engine's u_mr_check.
  auto answer = [&]() {
    top.eval();
    top.chk_ok_i = mr_ok(top.key_o, top.va_o, top.len_o);
    top.chk_bus_i = mr_bus(top.key_o, top.va_o);
    top.eval();
  };
  auto segs_of_dut = [&]() {
    std::vector<Seg> v;
    const Bits a = vget(top.seg_addr_o, 64 * kMaxSeg), l = vget(top.seg_len_o, 32 * kMaxSeg),
               p = vget(top.seg_poff_o, 16 * kMaxSeg);
    for (unsigned k = 0; k < top.nseg_o && k < kMaxSeg; k++)
      v.push_back({a.get(64 * k, 64), (uint32_t)l.get(32 * k, 32), (uint16_t)p.get(16 * k, 16)});
    return v;
  };
  auto check_segs = [&](const std::vector<Seg> &want, const char *what, unsigned t) {
    BLK_CHECK(top.nseg_o == want.size(), "trial %u %s: nseg %u, want %zu", t, what, top.nseg_o,
              want.size());
    const auto got = segs_of_dut();
    for (size_t k = 0; k < want.size() && k < got.size(); k++)
      BLK_CHECK(got[k].addr == want[k].addr && got[k].len == want[k].len &&
                    got[k].poff == want[k].poff,
                "trial %u %s: segment %zu is %llx+%u at %u, want %llx+%u at %u", t, what, k,
                (unsigned long long)got[k].addr, got[k].len, got[k].poff,
                (unsigned long long)want[k].addr, want[k].len, want[k].poff);
  };

  idle_inputs();
  top.chk_ok_i = 0;
  top.chk_bus_i = 0;
  reset_dut(top);

  // A length: mostly small, some around 2^31 and 2^32 (the 34-bit sum).
  auto rand_len = [&]() -> uint32_t {
    switch (r.range(0, 5)) {
      case 0: return 0;
      case 1: return (uint32_t)r.range(1, 64);
      case 2: return (uint32_t)r.range(1, 5000);
      case 3: return 0xffffffffu - (uint32_t)r.range(0, 100);
      case 4: return 0x80000000u + (uint32_t)r.range(0, 100) - 50;
      default: return (uint32_t)r.range(1, 20000);
    }
  };

  const unsigned kTrials = 20000;
  unsigned walks = 0, rewalks = 0, sets = 0, too_many = 0, prots = 0, ovfs = 0, shorts = 0;
  for (unsigned t = 0; t < kTrials; t++) {
    // A WQE of random slots with the SGE list at slot `first`.
    Bits wqe(kWqeBits);
    for (unsigned k = 0; k < kWqeBits / 32; k++) wqe.set(32 * k, 32, r.u32());
    const unsigned first = (unsigned)r.range(1, 3);
    const unsigned cnt = (unsigned)r.range(0, 5);
    Walk w;
    const unsigned n = std::min(cnt, 4u);
    // A quarter of the lists: short SGEs that a window spans whole.
    const bool small = r.range(0, 3) == 0;
    for (unsigned k = 0; k < n; k++) {
      Sge s{small ? (uint32_t)r.range(1, 40) : rand_len(), r.u32(), r.u64()};
      const unsigned b = (first + k) * 128;
      wqe.set(b, 32, s.len);
      wqe.set(b + 32, 32, s.key);
      wqe.set(b + 64, 64, s.va);
      w.sges.push_back(s);
    }
    uint64_t total = 0;
    for (auto &s : w.sges) total += s.len;
    vset(top.wqe_i, wqe);
    top.first_i = first;
    // The window: inside the list mostly, past its end sometimes.
    const uint32_t moff = small ? (uint32_t)r.range(0, total / 2)
                          : (total && r.range(0, 3)) ? (uint32_t)r.range(0, std::min<uint64_t>(
                                                                               total - 1, ~0u))
                                                   : r.u32() & 0xffff;
    // (Short lists: a GRH-sized first window, as a UD receive maps.)
    const uint16_t plen = (uint16_t)(small         ? r.range(1, 40)
                                     : r.range(0, 3) ? r.range(0, 4200)
                                                     : r.range(0, 8191));
    const uint16_t adj = (uint16_t)r.u32();
    w.m_lo = moff;
    w.m_hi = (uint64_t)moff + plen;
    w.adj = adj;
    top.moff_i = moff;
    top.plen_i = plen;
    top.adj_i = adj;

    // Some trials: a stale segment set first, which the start must clear.
    if (r.range(0, 3) == 0) {
      idle_inputs();
      top.seg_set_i = 1;
      top.seg_len_i = (uint16_t)r.range(0, 8191);
      top.chk_bus_i = r.u64();
      tick();
    }
    idle_inputs();
    top.start_i = 1;
    top.cnt_i = cnt;
    tick();
    idle_inputs();
    top.eval();
    BLK_CHECK(top.cnt_o == cnt, "trial %u: cnt_o %u, want %u", t, top.cnt_o, cnt);
    BLK_CHECK(top.nseg_o == 0 && !vget(top.seg_len_o, 32 * kMaxSeg).any(),
              "trial %u: a start leaves segments (%u)", t, top.nseg_o);
    if (cnt == 5) {
      // More than four SGEs: the caller refuses the WQE without a walk.
      too_many++;
      continue;
    }
    walks++;
    bool second = false;
    for (unsigned guard = 0; guard < 40; guard++) {
      const bool step = r.range(0, 3) != 0;
      idle_inputs();
      answer();
      BLK_CHECK(top.all_o == w.all() && top.last_o == w.last() && top.hit_o == w.hit(),
                "trial %u SGE %u: all/last/hit %u%u%u, want %u%u%u", t, w.i, top.all_o,
                top.last_o, top.hit_o, w.all(), w.last(), w.hit());
      BLK_CHECK(top.fits_o == w.fits() && top.ovf_o == w.ovf_now() && top.prot_o == w.prot_now(),
                "trial %u SGE %u: fits/ovf/prot %u%u%u, want %u%u%u", t, w.i, top.fits_o,
                top.ovf_o, top.prot_o, w.fits(), w.ovf_now(), w.prot_now());
      if (w.hit())
        BLK_CHECK(top.key_o == w.sges[w.i].key && top.va_o == w.chk_va() &&
                      top.len_o == w.chk_len(),
                  "trial %u SGE %u: check of key %x va %llx len %u, want %x %llx %u", t, w.i,
                  top.key_o, (unsigned long long)top.va_o, top.len_o, w.sges[w.i].key,
                  (unsigned long long)w.chk_va(), w.chk_len());
      if (!step) {
        tick();
        continue;
      }
      // The step that takes the last SGE (or finds all taken) ends the
      // walk, as in the engine's StMap; a second window may follow.
      const bool ends = w.all() || w.last();
      const bool rewalk = ends && !second && w.fits() && !w.ovf_now() && !w.prot_now() &&
                          r.range(0, 2) == 0;
      top.step_i = 1;
      top.rewalk_i = rewalk;
      top.eval();
      tick();
      w.step();
      if (rewalk) {
        second = true;
        rewalks++;
        w.i = 0;
        w.acc = 0;
        const uint32_t moff2 = small ? 0 : (uint32_t)r.range(0, total ? total - 1 : 0);
        const uint16_t plen2 = (uint16_t)r.range(0, 4200);
        const uint16_t adj2 = (uint16_t)r.u32();
        w.m_lo = moff2;
        w.m_hi = (uint64_t)moff2 + plen2;
        w.adj = adj2;
        top.moff_i = moff2;
        top.plen_i = plen2;
        top.adj_i = adj2;
        continue;
      }
      if (ends) break;
    }
    // Steps once every SGE is taken change nothing.
    idle_inputs();
    top.step_i = 1;
    answer();
    tick();
    idle_inputs();
    answer();
    BLK_CHECK(top.all_o && top.fits_o == w.fits() && top.ovf_o == w.ovf &&
                  top.prot_o == w.prot,
              "trial %u: end of walk all/fits/ovf/prot %u%u%u%u, want 1%u%u%u", t, top.all_o,
              top.fits_o, top.ovf_o, top.prot_o, w.fits(), w.ovf, w.prot);
    check_segs(w.segs, "walk", t);
    prots += w.prot;
    ovfs += w.ovf;
    shorts += !w.fits();

    // Some trials: an rkey WRITE's one segment afterwards.
    if (r.range(0, 4) == 0) {
      sets++;
      idle_inputs();
      top.seg_set_i = 1;
      const uint16_t len = (uint16_t)r.range(0, 8191);
      const uint64_t bus = r.u64();
      top.seg_len_i = len;
      top.chk_bus_i = bus;
      tick();
      idle_inputs();
      top.eval();
      check_segs({{bus, len, 0}}, "seg_set", t);
      const Bits l = vget(top.seg_len_o, 32 * kMaxSeg), p = vget(top.seg_poff_o, 16 * kMaxSeg);
      BLK_CHECK(!l.slice(32, 32 * (kMaxSeg - 1)).any() && !p.any(),
                "trial %u seg_set: other segments' lengths or offsets left", t);
    }
  }
  info("%u walks (%u with a second window), %u lists of more than four, %u segment sets; "
       "%u refused by a key check, %u over five segments, %u windows past the list",
       walks, rewalks, too_many, sets, prots, ovfs, shorts);
  BLK_CHECK(rewalks > 500 && prots > 500 && ovfs > 100 && shorts > 500 && sets > 500,
            "the random trials missed a kind of walk");
  return finish(vctx);
}
