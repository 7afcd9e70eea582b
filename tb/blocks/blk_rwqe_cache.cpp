// blk_rnic_rwqe_cache: rnic_rwqe_cache alone (DATAW=256 ENTRIES=4: 3 beats per
// WQE; DATAW=64 ENTRIES=2: 12 beats per WQE; RwqeBytes = 96).
//
// Keys ({kind, number, index}, 42 bits) come from a small space: 11 {kind,
// number} tags x 4 WQE indices (44 keys). The numbers 0, 0x5a17c3 and
// 0xffffff each appear as an RQ, an SRQ and an SQ, and two of them as kind 3
// (unused by the engine, a legal key value that a QP reset drops), so that
// a reset must tell kinds apart; number 0 and index 0 (the reset value of
// the tags) are included. Duplicate hints, evictions, retirements and resets
// of held keys happen all the time. Every cycle the bench drives a random
// hint (the WQE's address a function of its key, any byte alignment; its
// length a WQE stride 1..32768, mostly 16..256, or 80, 95, 96, 97, so short
// WQEs of fewer than NBeats beats occur and the 96-byte clamp is crossed;
// hint_evict_i random, 30..60% ones by phase, also when no hint is valid), a
// lookup of any key (biased to keys held, to keys whose read is pending, to
// keys whose read is in flight but retired, to the key whose read just ended
// and to one just seen pending; sometimes a key one bit away from one in the
// space), a retirement and a queue reset (often of a key held, sometimes of
// the key hinted in the same cycle or of the entry whose read ends in that
// cycle, sometimes of a key or number one bit away). A reset is of a number
// and of clr_qp_i (the QP's RQ and SQ, and kind 3), clr_srq_i or both: mostly
// the queues of the key aimed at, often the other queues of its number
// (whose entries must stay), sometimes both. Payloads not marked valid (hint,
// retirement, reset, response) carry garbage. Phases of 1200 cycles:
// balanced, hint storm (evictions), slow memory (starting with the request
// port stalled: every entry pending, hints dropped, the issue queue full),
// heavy retirement/reset, back to back, few hints (entries stay filled).
//
// Host memory: one slot per key. A read request is accepted under random
// rd_req_ready_i; the memory samples the slot when it accepts the request
// (that is the value the cache must return: definition) and answers in
// request order after a random latency, ceil(len/(DataW/8)) beats with random
// gaps, byte k of the read at bit 8k of the beat stream (the last beat
// carries the slot bytes past len as they are). Slots marked bad answer with
// rd_rsp_err_i on one random beat, that beat and the ones after it zero
// (interfaces.md: the data of a refused read is zero). When a key is retired
// or reset its slot may be rewritten (new contents, may turn bad or good)
// right away or up to 40 cycles later, as an application refilling a ring
// slot does.
//
// Reference model: the block's entries at the level of its contract (free /
// read pending / filled, live, key; the round-robin pointer; the reads to
// issue and the reads in flight, each read with the bytes the memory sampled).
// The allocation policy of the header comment is modelled exactly: a hint is
// taken when its key is not held (pending or filled, and live), an entry is
// found (the first free one; else, only if hint_evict_i, the first filled one
// from rr_q on that was read ahead - taken by a hint without hint_evict_i, of
// a kind other than SQ, and not named since by a hint with hint_evict_i -
// else the first filled one from rr_q on that is old: two age ticks since
// its allocation, a tick every 4 * Entries allocations and hints with
// hint_evict_i refused for want of a victim; an SQ hint without
// hint_evict_i takes the first filled one read ahead from rr_q on; the one
// evicted moves rr_q past it; pending entries never) and the hint is not
// stale (its key retired, or its number reset with the flag of its kind:
// clr_srq_i for an SRQ key, clr_qp_i for any other, in the same cycle).
// Retirements/resets and hints act at the clock edge; a lookup sees the
// state before it. Checks, every cycle:
//  (a) lk_hit_o is exactly the model's; on a hit lk_data_o is the bytes the
//      memory returned for that key's read (the first 96 bytes of its beats,
//      zero beyond the beats returned) and lk_err_o whether that read failed;
//      lk_pend_o is exactly the model's: the key has a live entry whose read
//      is in flight (not one retired or reset while its read is in flight);
//      in a cycle without a lookup (lk_valid_i=0, 10 %) both are 0;
//  (b) never stale: a hit comes from a read of that key whose hint was taken
//      after the last retirement/reset of the key (kept per key by cycle,
//      apart from the entry model, with the reset's kind rule);
//  (c) rd_req_valid_o/addr/len are exactly the model's next read (hints taken,
//      in order; len = min(hint len, 96)); each request is a key's WQE address;
//      no read is accepted for a key with a live read in flight or held filled
//      (dedupe); never more than Entries reads in flight; rd_rsp_ready_o = 1;
//  (d) liveness: a hint of a new key with an entry it may take and no
//      retirement or reset of it in that cycle is taken (model), its read is
//      requested (the request stream above) and the key hits in the cycle
//      after its read ends (lookups are steered to it); at the end, with
//      hints stopped, every read drains and a sweep looks every key up.
// Counts of each event are checked to be non-zero (non-vacuity), among them
// hints dropped because they may not evict (no free entry, a filled one, and
// hint_evict_i=0), hints taken into a free entry without hint_evict_i, hints
// taken while another queue of their number is reset, live entries dropped by
// resets per kind (RQ, SRQ, SQ, kind 3) and kept by a reset of their number's
// other queues, resets of both queues at once, lookups with lk_pend_o=1 (and
// then a hit of the same key), and lookups of a key with only a dead read in
// flight (lk_pend_o=0).
//
// Injected bugs (by hand, in a scratch copy of rtl/rx/rnic_rwqe_cache.sv; the
// RTL here is unchanged), both configurations, first failing cycle
// DATAW=256 / DATAW=64; caught = the bench fails:
//  - clr_qp_i also drops SRQ entries (cleared(): qp alone): caught (970, an
//    SRQ key's lk_pend_o=0 after a QP reset of its number / 1517, lk_hit_o=0);
//  - every hint may evict (hint_evict_i ignored): caught by (c), a read the
//    model does not expect (10 / 152);
//  - only hints with hint_evict_i=0 may evict: caught by (c) (10 / 83);
//  - clr_srq_i drops every kind of its number: caught (54 / 395, lk_pend_o=0);
//  - clr_qp_i drops only RQ and SQ entries (kind 3 kept): caught (67 / 836);
//  - hint_stale by number alone (either flag, any kind): caught by (c), a hint
//    of the other queues of the reset number is dropped (830 / 3555);
//  - live_q dropped from lk_pend_o: caught by (a) (66 / 25: lk_pend_o=1 on a
//    key whose only read in flight was retired/reset);
//  - lk_pend_o also for a filled entry: caught by (a) (11 / 81);
//  - read clamp at the old 80 bytes: caught by (c) (6 / 4);
//  - kill ignores the resets (clr_qp_i and clr_srq_i): caught (66 / 394, by
//    (a): lk_pend_o=1 on a key whose queue was reset);
//  - kill ignores inv_i: caught (27 / 25);
//  - live_q dropped from `held`: caught by (c), the hint after a retirement of
//    a pending key is ignored, the model expects its read (1234 / 486);
//  - hint_stale without its inv_i term: caught by (c) (1986 / 1731);
//  - eviction does not move rr_q: caught (127 / 1111);
//  - eviction ignores far_q (any filled entry in turn, stop 51): caught
//    (171 / 5219, by (a): lk_hit_o=0 for a key the model holds);
//  - SQ entries read ahead too (far_q without the kind test): caught
//    (171 / 6667);
//  - a hint with hint_evict_i does not clear far_q: caught (1148 / 12494);
//  - ages ignored (any filled entry in turn, before stop 52): caught by (c)
//    (38 / 109);
//  - ticks counted in allocations only (refused hints left out: with every
//    entry young and filled, nothing ever ages): caught by (c) (187 / 281);
//  - an allocation keeps the entry's age: caught by (c) (196 / 112);
//  - old_q <= old_q | aged_q at a tick instead of aged_q: NOT caught, and it
//    cannot be: an old entry is aged too (both set by ticks, both cleared
//    by its allocation), so the two are the same; the RTL has the shorter.
//  - a send WQE's hint without hint_evict_i takes no entry read ahead:
//    caught by (c) (60 / 799);
//  - pending entries evictable: caught by (c) (19 / 9);
//  - err_q from the last beat's rd_rsp_err_i only: caught by (a) (27 / 128);
//  - beats past nbeat_q not masked to zero: caught by (a) (60 / 128);
//  - a fill ignores a kill in its last cycle (full_q <= live_q): caught
//    (27 / 212);
//  - a fill ignores live_q (full_q <= !kill): caught (77 / 40);
//  - live_q dropped from lk_match: NOT caught, and it cannot be: full_q
//    implies live_q (a kill clears both on the same edge, a fill sets full_q
//    only when live and not killed, an allocation sets live_q and clears
//    full_q), so the term is redundant and the change is invisible at the
//    ports.
#include "Vrnic_rwqe_cache.h"
#include "blk_common.h"

using namespace blk;

#ifndef DATAW
#define DATAW 256
#endif
#ifndef ENTRIES
#define ENTRIES 4
#endif
constexpr unsigned kDataW = DATAW;
constexpr unsigned kB = kDataW / 8;  // bytes per beat
constexpr unsigned kE = ENTRIES;
constexpr unsigned kRwqeBytes = 96;  // rnic_pkg::RwqeBytes = 16 * (2 + MaxSge)
constexpr unsigned kNBeats = (8 * kRwqeBytes + kDataW - 1) / kDataW;
constexpr unsigned kCycles = 18000;  // random traffic
constexpr unsigned kDrain = 600;     // then hints stop and reads drain
constexpr unsigned kSlot = 256;      // host bytes per key
constexpr uint64_t kBase = 0x00007f3a12340000ull;

namespace {

// Kinds (rnic_pkg::RwqeRq/RwqeSrq/RwqeSq; 3 is unused but a legal key value)
constexpr unsigned kRq = 0, kSrq = 1, kSq = 2;
const char *const kKindName[4] = {"RQ", "SRQ", "SQ", "kind 3"};
// {kind, number} tags: each number in all three kinds, two of them in kind 3
struct Tag {
  unsigned kind;
  uint32_t num;
};
constexpr Tag kTags[] = {{kRq, 0x000000},  {kRq, 0x5a17c3},  {kRq, 0xffffff},
                         {kSrq, 0x000000}, {kSrq, 0x5a17c3}, {kSrq, 0xffffff},
                         {kSq, 0x000000},  {kSq, 0x5a17c3},  {kSq, 0xffffff},
                         {3, 0x000000},    {3, 0x5a17c3}};
constexpr unsigned kNTags = sizeof kTags / sizeof kTags[0];
constexpr uint16_t kIdx[] = {0x0000, 0x0001, 0x8000, 0xffff};
constexpr unsigned kNIdx = sizeof kIdx / sizeof kIdx[0];
constexpr unsigned kKeys = kNTags * kNIdx;
constexpr uint64_t kKeyMask = (1ull << 42) - 1;

uint64_t key_of(unsigned kid) {
  const Tag &t = kTags[kid / kNIdx];
  return (uint64_t)t.kind << 40 | (uint64_t)t.num << 16 | kIdx[kid % kNIdx];
}
unsigned kind_of(uint64_t key) { return (unsigned)(key >> 40) & 3u; }
uint32_t num_of(uint64_t key) { return (uint32_t)(key >> 16) & 0xffffffu; }
int kid_of_key(uint64_t key) {
  for (unsigned k = 0; k < kKeys; k++)
    if (key_of(k) == key) return (int)k;
  return -1;
}
// The reset of the contract: clr_qp_i drops a QP's entries (every kind but
// SRQ), clr_srq_i an SRQ's, both by number.
bool reset_drops(uint64_t key, bool qp, bool srq, uint32_t num) {
  if (num_of(key) != num) return false;
  return kind_of(key) == kSrq ? srq : qp;
}
// WQE addresses: any byte alignment (interfaces.md), slots 512 bytes apart.
uint64_t addr_of(unsigned kid) { return kBase + (uint64_t)kid * 512 + (kid * 37) % 256; }
int kid_of_addr(uint64_t a) {
  for (unsigned k = 0; k < kKeys; k++)
    if (addr_of(k) == a) return (int)k;
  return -1;
}

struct Read {
  int kid = -1;
  uint64_t addr = 0;
  unsigned len = 0, nbeats = 0;
  std::vector<uint8_t> bytes;  // nbeats * kB, as returned
  bool err = false;
  unsigned err_beat = 0;
  uint64_t alloc_cycle = 0;  // the cycle its hint was taken
  unsigned gen = 0;          // slot generation sampled
  bool done = false;
};

struct Ent {
  bool pend = false, full = false, live = false;
  bool far = false;         // read ahead: evicted first
  unsigned age = 0;         // ticks since allocated, up to 2 (old)
  uint64_t key = 0;
  int read = -1;            // the read filling it / that filled it
  unsigned prev_beats = 0;  // beats of the fill before (stale data to mask)
};

struct IqItem {
  unsigned entry;
  uint64_t addr;
  unsigned len;
  uint64_t alloc_cycle;
};

struct Infl {
  int read;
  uint64_t due;
  unsigned beat = 0;
};

struct Phase {
  double hint, evict, inv, clr, rdy, beat;
  unsigned lat_lo, lat_hi;
};

}  // namespace

int main(int argc, char **argv) {
  static const std::string name =
      std::string("blk_rnic_rwqe_cache") + (kDataW == 256 ? "" : "_w" + std::to_string(kDataW));
  g_bench = name.c_str();
  VerilatedContext vctx;
  vctx.commandArgs(argc, argv);
  Vrnic_rwqe_cache top{&vctx};
  Rng r(0x7e9c0000u + kDataW * 16 + kE);

  // ---- host memory
  std::vector<uint8_t> mem(kKeys * kSlot);
  for (auto &b : mem) b = (uint8_t)r.u32();
  std::vector<unsigned> gen(kKeys, 0);
  std::vector<bool> bad(kKeys, false);
  for (unsigned k = 0; k < kKeys; k++) bad[k] = r.chance(0.15);
  std::vector<std::pair<uint64_t, unsigned>> rewrites;  // (due cycle, kid)

  // ---- model
  Ent ent[kE];
  unsigned rr = 0;
  unsigned age_cnt = 0;  // allocations and refused evicting hints since the last tick
  const unsigned kAgeTick = 4 * kE;
  std::deque<IqItem> iq;  // reads to issue
  std::deque<int> wq;     // entries of the reads in flight, in order
  std::vector<Read> reads;
  std::deque<Infl> infl;  // the memory's reads, in acceptance order
  std::vector<uint64_t> last_kill(kKeys, 0);
  std::vector<bool> killed_ever(kKeys, false);
  int steer = -1;  // key whose read ended on the last edge

  // ---- counts
  uint64_t n_room = 0, n_noroom = 0;  // cycles with and without room_o
  uint64_t n_evict_far = 0, n_unfar = 0, n_sq_far = 0;
  uint64_t n_young_kept = 0, n_ticks = 0;  // evicting hints refused: every filled entry young
  uint64_t n_hints = 0, n_alloc = 0, n_alloc_free = 0, n_evict = 0, n_held = 0, n_nofree = 0,
           n_noevict = 0, n_free_noev = 0, n_stale = 0, n_stale_clr = 0, n_hint_spared = 0,
           n_reads = 0, n_err_reads = 0, n_fills = 0, n_fill_dead = 0, n_fill_kill = 0,
           n_kill_full_inv = 0, n_kill_full_clr = 0, n_kill_pend = 0, n_hits = 0, n_hit_err = 0,
           n_hit_short = 0, n_hit_masked = 0, n_hit_regen = 0, n_hit_after_fill = 0,
           n_rewrites = 0, n_dup_pend = 0, n_lookups = 0, n_lk_pend = 0, n_lk_pend_dead = 0,
           n_pend_then_hit = 0, n_clr_spared = 0, n_clr_both = 0, n_no_lookup = 0,
           n_no_lookup_held = 0;
  uint64_t n_clr_drop[4] = {0, 0, 0, 0};  // live entries dropped by a reset, per kind
  size_t max_infl = 0, max_iq = 0;
  int pend_seen = -1;  // key seen with lk_pend_o=1 on the last cycle

  static const Phase phases[] = {
      {0.30, 0.50, 0.05, 0.010, 0.7, 0.8, 1, 20},    // balanced
      {0.85, 0.60, 0.02, 0.005, 0.9, 0.9, 0, 5},     // hint storm: evictions
      {0.50, 0.50, 0.05, 0.010, 0.15, 0.4, 10, 60},  // slow memory: all pending, hints dropped
      {0.45, 0.50, 0.30, 0.060, 0.6, 0.7, 0, 30},    // heavy retirement and resets
      {0.60, 0.40, 0.08, 0.010, 1.0, 1.0, 0, 0},     // back to back
      {0.06, 0.30, 0.04, 0.020, 0.8, 0.9, 0, 10},    // few hints: entries stay filled
  };
  // WQE strides (1 << shift; the usual 16..256 and the extremes), a receive
  // WQE's RwqeRqBytes (80) and the RwqeBytes clamp (95, 96, 97)
  static const unsigned lens[] = {1, 8, 16, 32, 64, 80, 95, 96, 97, 128, 256, 32768};

  top.clk_i = 0;
  top.hint_valid_i = 0;
  top.hint_evict_i = 0;
  top.inv_i = 0;
  top.inv_b_i = 0;
  top.clr_qp_i = 0;
  top.clr_srq_i = 0;
  top.rd_req_ready_i = 0;
  top.rd_rsp_valid_i = 0;
  reset_dut(top);

  const unsigned total = kCycles + kDrain + kKeys;
  for (g_cycle = 0; g_cycle < total; g_cycle++) {
    const bool drain = g_cycle >= kCycles;
    const bool sweep = g_cycle >= kCycles + kDrain;
    const unsigned phn = (unsigned)((g_cycle / 1200) % (sizeof phases / sizeof phases[0]));
    Phase ph = phases[phn];
    // slow memory starts with the request port stalled: the issue queue fills
    if (phn == 2 && g_cycle % 1200 < 80) ph.rdy = 0.0;
    if (drain) ph = Phase{0.0, 0.0, 0.0, 0.0, 1.0, 1.0, 0, 3};

    // ---- slot rewrites due (before any acceptance of this cycle)
    for (size_t i = 0; i < rewrites.size();) {
      if (rewrites[i].first <= g_cycle) {
        const unsigned k = rewrites[i].second;
        for (unsigned j = 0; j < kSlot; j++) mem[k * kSlot + j] = (uint8_t)r.u32();
        gen[k]++;
        bad[k] = r.chance(0.2);
        n_rewrites++;
        rewrites[i] = rewrites.back();
        rewrites.pop_back();
      } else {
        i++;
      }
    }

    // keys held filled (full) or with their read pending (!full), and live
    auto live_kids = [&](bool full) {
      std::vector<unsigned> v;
      for (auto &e : ent)
        if ((full ? e.full : e.pend) && e.live) v.push_back((unsigned)kid_of_key(e.key));
      return v;
    };
    auto flip = [&](uint64_t key) { return key ^ (1ull << r.range(0, 41)); };

    top.clk_i = 0;
    // ---- memory (first: the retirement below may aim at the read that ends)
    top.rd_req_ready_i = r.chance(ph.rdy);
    bool rsp_v = false, rsp_last = false;
    if (!infl.empty() && g_cycle >= infl.front().due && r.chance(ph.beat)) {
      const Infl &h = infl.front();
      const Read &rd = reads[(size_t)h.read];
      rsp_v = true;
      rsp_last = h.beat + 1 == rd.nbeats;
      top.rd_rsp_err_i = rd.err && h.beat == rd.err_beat;
      vset_bytes(top.rd_rsp_data_i, &rd.bytes[h.beat * kB]);
    } else {
      std::vector<uint8_t> g(kB);
      for (auto &b : g) b = (uint8_t)r.u32();
      vset_bytes(top.rd_rsp_data_i, g.data());
      top.rd_rsp_err_i = r.chance(0.5);
      rsp_last = r.chance(0.5);
    }
    top.rd_rsp_valid_i = rsp_v;
    top.rd_rsp_last_i = rsp_last;
    // ---- hint (hint_evict_i random whether or not the hint is valid)
    const bool hv = r.chance(ph.hint);
    const bool hev = r.chance(drain ? 0.5 : ph.evict);
    const unsigned hk = (unsigned)r.range(0, kKeys - 1);
    const uint64_t hkey = key_of(hk);
    const unsigned hlen = lens[r.range(0, sizeof lens / sizeof lens[0] - 1)];
    top.hint_valid_i = hv;
    top.hint_evict_i = hev;
    top.hint_key_i = hv ? hkey : r.u64() & kKeyMask;
    top.hint_addr_i = hv ? addr_of(hk) : r.u64();
    top.hint_len_i = (SData)(hv ? hlen : r.u32());
    // ---- retirement: often of a key held, sometimes of the key hinted now
    // now and then aimed at the entry whose read ends in this cycle
    const bool ending = !drain && rsp_v && rsp_last && !wq.empty() && ent[wq.front()].live;
    const bool aim_i = ending && r.chance(0.12), aim_c = ending && !aim_i && r.chance(0.04);
    const bool iv = aim_i || r.chance(ph.inv);
    uint64_t ikey;
    {
      const auto fk = live_kids(true), pk = live_kids(false);
      const unsigned c = (unsigned)r.range(0, 99);
      if (aim_i)
        ikey = ent[wq.front()].key;
      else if (c < 35 && !fk.empty())
        ikey = key_of(r.pick(fk));
      else if (c < 50 && !pk.empty())
        ikey = key_of(r.pick(pk));
      else if (c < 65)
        ikey = hkey;
      else if (c < 75)
        ikey = flip(key_of((unsigned)r.range(0, kKeys - 1)));
      else
        ikey = key_of((unsigned)r.range(0, kKeys - 1));
    }
    top.inv_i = iv;
    top.inv_key_i = iv ? ikey : r.u64() & kKeyMask;
    // the other role's retirement in the same cycle: a held key or one
    // hinted now, now and then
    const bool iv2 = r.chance(ph.inv / 2);
    uint64_t ikey2;
    {
      const auto fk = live_kids(true);
      const unsigned c = (unsigned)r.range(0, 99);
      if (c < 50 && !fk.empty())
        ikey2 = key_of(r.pick(fk));
      else if (c < 65)
        ikey2 = hkey;
      else
        ikey2 = key_of((unsigned)r.range(0, kKeys - 1));
    }
    top.inv_b_i = iv2;
    top.inv_b_key_i = iv2 ? ikey2 : r.u64() & kKeyMask;
    auto inv_hit = [&](uint64_t k) { return (iv && k == ikey) || (iv2 && k == ikey2); };
    // ---- queue reset: a number, and which of its queues (the QP's RQ and SQ,
    // or the SRQ): mostly the queues of the key aimed at, sometimes the other
    // ones of the same number (whose entries must stay), sometimes both
    const bool aim_h = !drain && hv && !aim_c && r.chance(0.01);  // at the hinted key's number
    const bool cv = aim_c || aim_h || r.chance(ph.clr);
    bool cqp = false, csrq = false;
    uint32_t cnum;
    {
      const unsigned c = (unsigned)r.range(0, 99);
      const auto fk = live_kids(true), pk = live_kids(false);
      uint64_t ck;
      if (aim_c)
        ck = ent[wq.front()].key;
      else if (aim_h)
        ck = hkey;
      else if (c < 30 && !fk.empty())
        ck = key_of(r.pick(fk));
      else if (c < 40 && !pk.empty())
        ck = key_of(r.pick(pk));
      else if (c < 60)
        ck = hkey;
      else if (c < 70)
        ck = key_of((unsigned)r.range(0, kKeys - 1)) ^ (1ull << r.range(16, 39));
      else
        ck = key_of((unsigned)r.range(0, kKeys - 1));
      cnum = num_of(ck);
      const bool own_srq = kind_of(ck) == kSrq;
      // a reset of the hinted key's number: as often of its other queues
      const unsigned w = (unsigned)r.range(ck == hkey ? 30 : 0, 99);
      if (aim_c || w < 60)
        cqp = !own_srq, csrq = own_srq;
      else if (w < 85)
        cqp = own_srq, csrq = !own_srq;
      else
        cqp = csrq = true;
      if (!cv) cqp = csrq = false;
    }
    top.clr_qp_i = cqp;
    top.clr_srq_i = csrq;
    top.clr_num_i = cv ? cnum : r.u32() & 0xffffff;
    // ---- lookup
    uint64_t lkey;
    if (sweep) {
      lkey = key_of((unsigned)(g_cycle - kCycles - kDrain));
    } else if (steer >= 0 && r.chance(0.8)) {
      lkey = key_of((unsigned)steer);
    } else if (pend_seen >= 0 && r.chance(0.5)) {
      lkey = key_of((unsigned)pend_seen);
    } else {
      std::vector<unsigned> fk, pk, dk;
      for (auto &e : ent) {
        if (e.full && e.live) fk.push_back((unsigned)kid_of_key(e.key));
        if (e.pend && e.live) pk.push_back((unsigned)kid_of_key(e.key));
        if (e.pend && !e.live && kid_of_key(e.key) >= 0) dk.push_back((unsigned)kid_of_key(e.key));
      }
      const unsigned c = (unsigned)r.range(0, 99);
      if (c < 40 && !fk.empty())
        lkey = key_of(r.pick(fk));
      else if (c < 55 && !pk.empty())
        lkey = key_of(r.pick(pk));
      else if (c < 60 && !dk.empty())
        lkey = key_of(r.pick(dk));
      else if (c < 68 && !fk.empty())
        lkey = flip(key_of(r.pick(fk)));
      else if (c < 71 && !pk.empty())
        lkey = flip(key_of(r.pick(pk)));
      else if (c < 75)
        lkey = r.u64() & kKeyMask;
      else
        lkey = key_of((unsigned)r.range(0, kKeys - 1));
    }
    // the engine looks up in a few states only; no lookup, no answer
    const bool lkv = sweep || r.chance(0.9);
    top.lk_valid_i = lkv;
    top.lk_key_i = lkey;
    top.eval();

    // ---- model, combinational part (state before the edge)
    bool kill[kE];
    for (unsigned e = 0; e < kE; e++)
      kill[e] = inv_hit(ent[e].key) || reset_drops(ent[e].key, cqp, csrq, cnum);
    bool held = false, vic_ok = false, any_free = false, any_full = false, far_vic = false;
    unsigned vic = 0;
    for (auto &e : ent) {
      if ((e.pend || e.full) && e.live && e.key == hkey) held = true;
      if (e.full) any_full = true;
    }
    for (unsigned e = 0; e < kE && !vic_ok; e++)
      if (!ent[e].pend && !ent[e].full) vic_ok = any_free = true, vic = e;
    // only a hint that may evict takes a filled entry, the first from rr on
    // that was read ahead, else the first from rr on; a send WQE's hint
    // takes one read ahead whether or not it may evict
    const bool hsq = kind_of(hkey) == kSq;
    for (unsigned k = 0; k < kE && !vic_ok && (hev || hsq); k++)
      if (ent[(rr + k) % kE].full && ent[(rr + k) % kE].far)
        vic_ok = true, vic = (rr + k) % kE, far_vic = true;
    // ... else the first filled one from rr on that is old (two ticks)
    for (unsigned k = 0; k < kE && !vic_ok && hev; k++)
      if (ent[(rr + k) % kE].full && ent[(rr + k) % kE].age >= 2)
        vic_ok = true, vic = (rr + k) % kE;
    const bool stale_inv = inv_hit(hkey);
    const bool stale_clr = reset_drops(hkey, cqp, csrq, cnum);
    const bool stale = stale_inv || stale_clr;
    const bool alloc = hv && !held && vic_ok && !stale && iq.size() < kE;
    const bool age_ev = alloc || (hv && hev && !held && !vic_ok && !stale);
    if (hv && hev && !held && !vic_ok && !stale && any_full) n_young_kept++;
    if (hv) {
      n_hints++;
      if (held)
        n_held++;
      else if (stale)
        n_stale++, n_stale_clr += !stale_inv;
      else if (!vic_ok && !hev && any_full)
        n_noevict++;
      else if (!vic_ok)
        n_nofree++;
      if (alloc && any_free && !hev) n_free_noev++;
      // taken although its number is reset now: the other queues of the number
      if (alloc && cv && num_of(hkey) == cnum) n_hint_spared++;
    }

    // ---- checks of the outputs
    BLK_CHECK(top.rd_rsp_ready_o == 1, "rd_rsp_ready_o=0");
    {
      // room_o: at least a sixteenth of the entries free, rounded up (neither pending nor filled)
      unsigned nfree = 0;
      for (auto &e : ent) nfree += (!e.pend && !e.full) ? 1 : 0;
      BLK_CHECK(top.room_o == (nfree >= (kE + 15) / 16), "room_o=%d with %u of %u entries free",
                top.room_o, nfree, (unsigned)kE);
      if (top.room_o) n_room++;
      else n_noroom++;
    }
    BLK_CHECK(top.rd_req_valid_o == !iq.empty(), "rd_req_valid_o=%d, model has %zu reads to issue",
              top.rd_req_valid_o, iq.size());
    if (top.rd_req_valid_o && !iq.empty())
      BLK_CHECK(top.rd_req_addr_o == iq.front().addr && top.rd_req_len_o == iq.front().len,
                "read request 0x%016llx/%u, expected 0x%016llx/%u (entry %u)",
                (unsigned long long)top.rd_req_addr_o, top.rd_req_len_o,
                (unsigned long long)iq.front().addr, iq.front().len, iq.front().entry);
    if (!lkv) {
      BLK_CHECK(!top.lk_hit_o && !top.lk_pend_o, "no lookup: lk_hit_o=%d lk_pend_o=%d",
                top.lk_hit_o, top.lk_pend_o);
      n_no_lookup++;
      for (auto &e : ent)
        if ((e.full || e.pend) && e.live && e.key == lkey) {
          n_no_lookup_held++;  // a key that would hit or be pending
          break;
        }
    } else {
      int me = -1;
      unsigned nm = 0, np = 0;
      bool dead_pend = false;
      for (unsigned e = 0; e < kE; e++) {
        if (ent[e].key != lkey) continue;
        if (ent[e].full && ent[e].live) {
          if (me < 0) me = (int)e;
          nm++;
        }
        if (ent[e].pend && ent[e].live) np++;
        if (ent[e].pend && !ent[e].live) dead_pend = true;
      }
      BLK_CHECK(nm + np <= 1, "model: key 0x%011llx live in %u filled and %u pending entries",
                (unsigned long long)lkey, nm, np);
      n_lookups++;
      BLK_CHECK(top.lk_hit_o == (me >= 0), "lookup of 0x%011llx: lk_hit_o=%d, model %s",
                (unsigned long long)lkey, top.lk_hit_o, me >= 0 ? "holds it" : "does not hold it");
      // lk_pend_o: a live entry of the key whose read is in flight
      BLK_CHECK(top.lk_pend_o == (np > 0), "lookup of 0x%011llx: lk_pend_o=%d, model %s",
                (unsigned long long)lkey, top.lk_pend_o,
                np ? "has its read in flight"
                   : (dead_pend ? "has only a retired/reset read of it in flight"
                                : "has no read of it in flight"));
      if (np) {
        n_lk_pend++;
        pend_seen = kid_of_key(lkey);
      } else {
        if (me >= 0 && pend_seen >= 0 && kid_of_key(lkey) == pend_seen) n_pend_then_hit++;
        if (dead_pend) n_lk_pend_dead++;
        pend_seen = -1;
      }
      if (top.lk_hit_o && me >= 0) {
        const Ent &en = ent[me];
        const Read &rd = reads[(size_t)en.read];
        const int kid = kid_of_key(lkey);
        // (b) never stale, from the kill history of the key alone
        BLK_CHECK(
            kid >= 0 && kid == rd.kid &&
                (!killed_ever[(size_t)kid] || rd.alloc_cycle > last_kill[(size_t)kid]),
            "hit on key 0x%011llx from a read of key %d hinted at %llu, last retired/reset at "
            "%llu",
            (unsigned long long)lkey, rd.kid, (unsigned long long)rd.alloc_cycle,
            (unsigned long long)last_kill[(size_t)(kid < 0 ? 0 : kid)]);
        uint8_t got[kRwqeBytes];
        static_assert(sizeof top.lk_data_o == kRwqeBytes, "lk_data_o is RwqeBits wide");
        vget_bytes(top.lk_data_o, got);
        unsigned bad_at = kRwqeBytes;
        for (unsigned i = 0; i < kRwqeBytes && bad_at == kRwqeBytes; i++) {
          const uint8_t exp = i < rd.nbeats * kB ? rd.bytes[i] : 0;
          if (got[i] != exp) bad_at = i;
        }
        BLK_CHECK(bad_at == kRwqeBytes,
                  "hit on key 0x%011llx (entry %d, read of 0x%016llx/%u, %u beats): byte %u is "
                  "0x%02x, expected 0x%02x",
                  (unsigned long long)lkey, me, (unsigned long long)rd.addr, rd.len, rd.nbeats,
                  bad_at, bad_at < kRwqeBytes ? got[bad_at] : 0,
                  bad_at < kRwqeBytes ? (bad_at < rd.nbeats * kB ? rd.bytes[bad_at] : 0) : 0);
        BLK_CHECK(top.lk_err_o == rd.err, "hit on key 0x%011llx: lk_err_o=%d, its read err=%d",
                  (unsigned long long)lkey, top.lk_err_o, rd.err);
        n_hits++;
        if (rd.err) n_hit_err++;
        if (rd.nbeats < kNBeats) n_hit_short++;
        if (en.prev_beats > rd.nbeats) n_hit_masked++;
        if (rd.gen > 0) n_hit_regen++;
        if (steer >= 0 && (unsigned)steer == (unsigned)kid) n_hit_after_fill++;
      }
    }

    // ---- handshakes of this edge
    const bool req_take = top.rd_req_valid_o && top.rd_req_ready_i;
    int new_read = -1;
    if (req_take) {
      Read rd;
      rd.addr = top.rd_req_addr_o;
      rd.len = top.rd_req_len_o;
      rd.kid = kid_of_addr(rd.addr);
      rd.nbeats = (rd.len + kB - 1) / kB;
      BLK_CHECK(rd.kid >= 0, "read request for 0x%016llx: no key's WQE",
                (unsigned long long)rd.addr);
      BLK_CHECK(rd.len >= 1 && rd.len <= kRwqeBytes, "read request of %u bytes", rd.len);
      if (rd.nbeats == 0) rd.nbeats = 1;
      rd.bytes.assign(rd.nbeats * kB, 0);
      if (rd.kid >= 0) {
        const unsigned k = (unsigned)rd.kid;
        // (c) dedupe: no live read of this key in flight, none filled and live
        for (const Infl &f : infl) {
          const Read &o = reads[(size_t)f.read];
          BLK_CHECK(!(o.kid == rd.kid && (!killed_ever[k] || o.alloc_cycle > last_kill[k])),
                    "read of key %u requested while an earlier one (hinted at %llu) is in flight",
                    k, (unsigned long long)o.alloc_cycle);
          if (o.kid == rd.kid) n_dup_pend++;
        }
        for (auto &e : ent)
          BLK_CHECK(!(e.full && e.live && e.key == key_of(k)),
                    "read of key %u requested while held", k);
        for (unsigned j = 0; j < rd.nbeats * kB && j < kSlot; j++) rd.bytes[j] = mem[k * kSlot + j];
        rd.gen = gen[k];
        rd.err = bad[k];
        if (rd.err) {
          rd.err_beat = (unsigned)r.range(0, rd.nbeats - 1);
          std::fill(rd.bytes.begin() + rd.err_beat * kB, rd.bytes.end(), 0);
        }
      }
      if (!iq.empty()) rd.alloc_cycle = iq.front().alloc_cycle;
      new_read = (int)reads.size();
      reads.push_back(rd);
      infl.push_back(Infl{new_read, g_cycle + r.range(ph.lat_lo, ph.lat_hi), 0});
      max_infl = std::max(max_infl, infl.size());
      BLK_CHECK(infl.size() <= kE, "%zu reads in flight, at most %u", infl.size(), kE);
      n_reads++;
      if (rd.err) n_err_reads++;
    }
    const bool fill_end = rsp_v && rsp_last;

    top.clk_i = 1;
    top.eval();

    // ---- model, registers
    Ent old[kE];
    std::copy(std::begin(ent), std::end(ent), std::begin(old));
    steer = -1;
    if (fill_end) {
      const int rid = infl.front().read;
      reads[(size_t)rid].done = true;
      if (wq.empty()) {
        fail("model: a read ends with no entry waiting");
      } else {
        const unsigned e = (unsigned)wq.front();
        wq.pop_front();
        BLK_CHECK(ent[e].read == rid, "model: entry %u waits for read %d, read %d ends", e,
                  ent[e].read, rid);
        ent[e].pend = false;
        ent[e].full = old[e].live && !kill[e];
        n_fills++;
        if (!old[e].live) n_fill_dead++;
        if (old[e].live && kill[e]) n_fill_kill++;
        if (ent[e].full) steer = kid_of_key(ent[e].key);
      }
    }
    bool clr_dropped = false;
    for (unsigned e = 0; e < kE; e++) {
      const bool live = old[e].live && (old[e].full || old[e].pend);
      const bool by_clr = reset_drops(old[e].key, cqp, csrq, cnum);
      if (live && cv && num_of(old[e].key) == cnum && !by_clr && !inv_hit(old[e].key))
        n_clr_spared++;
      if (!kill[e]) continue;
      if (live && by_clr) n_clr_drop[kind_of(old[e].key)]++, clr_dropped = true;
      if (old[e].full) (inv_hit(old[e].key) ? n_kill_full_inv : n_kill_full_clr)++;
      if (old[e].pend && old[e].live) n_kill_pend++;
      ent[e].live = false;
      if (old[e].full) ent[e].full = false;
    }
    if (cqp && csrq && clr_dropped) n_clr_both++;
    if (req_take && !iq.empty()) {
      const IqItem it = iq.front();
      iq.pop_front();
      wq.push_back((int)it.entry);
      ent[it.entry].prev_beats =
          ent[it.entry].read >= 0 ? reads[(size_t)ent[it.entry].read].nbeats : 0;
      ent[it.entry].read = new_read;
    }
    // a hint naming a held WQE as needed next: no longer read ahead
    if (hv && hev)
      for (unsigned e = 0; e < kE; e++)
        if ((old[e].pend || old[e].full) && old[e].live && old[e].key == hkey && old[e].far)
          ent[e].far = false, n_unfar++;
    if (age_ev && ++age_cnt == kAgeTick) {
      age_cnt = 0;
      n_ticks++;
      for (auto &e : ent) e.age = std::min(e.age + 1, 2u);
    }
    if (alloc) {
      n_alloc++;
      ent[vic].age = 0;
      ent[vic].far = !hev && kind_of(hkey) != kSq;
      if (old[vic].full) {
        n_evict++;
        if (far_vic) n_evict_far++;
        if (far_vic && !hev) n_sq_far++;
        rr = (vic + 1) % kE;
      } else {
        n_alloc_free++;
      }
      ent[vic].key = hkey;
      ent[vic].live = true;
      ent[vic].pend = true;
      ent[vic].full = false;
      iq.push_back(IqItem{vic, addr_of(hk), std::min(hlen, kRwqeBytes), g_cycle});
      max_iq = std::max(max_iq, iq.size());
    }
    // the memory
    if (rsp_v && ++infl.front().beat == reads[(size_t)infl.front().read].nbeats) infl.pop_front();
    // kills by key (the spec view), and the application refilling the slots
    for (unsigned k = 0; k < kKeys; k++) {
      const uint64_t key = key_of(k);
      if (inv_hit(key) || reset_drops(key, cqp, csrq, cnum)) {
        last_kill[k] = g_cycle;
        killed_ever[k] = true;
        if (!drain && r.chance(0.5)) rewrites.emplace_back(g_cycle + r.range(0, 40), k);
      }
    }
  }

  // ---- end: everything drained
  BLK_CHECK(iq.empty() && wq.empty() && infl.empty(),
            "not drained: %zu reads to issue, %zu waiting, %zu in the memory", iq.size(), wq.size(),
            infl.size());
  top.clk_i = 0;
  top.eval();
  BLK_CHECK(top.rd_req_valid_o == 0, "a read request after the drain");

  info("DataW=%u Entries=%u (%u beats per WQE), %u keys, %llu cycles", kDataW, kE, kNBeats, kKeys,
       (unsigned long long)g_cycle);
  info(
      "hints %llu: %llu taken (%llu into a free entry, %llu of them without hint_evict_i; %llu "
      "evictions), %llu already held, %llu stale (retired/reset in the same cycle, %llu by the "
      "reset), %llu taken while another queue of their number is reset, %llu dropped (may not "
      "evict), %llu dropped (no entry)",
      (unsigned long long)n_hints, (unsigned long long)n_alloc, (unsigned long long)n_alloc_free,
      (unsigned long long)n_free_noev, (unsigned long long)n_evict, (unsigned long long)n_held,
      (unsigned long long)n_stale, (unsigned long long)n_stale_clr,
      (unsigned long long)n_hint_spared, (unsigned long long)n_noevict,
      (unsigned long long)n_nofree);
  info(
      "reads %llu (%llu with an error), max %zu in flight, max %zu to issue; fills %llu (%llu "
      "into a retired entry, %llu retired in the cycle they end)",
      (unsigned long long)n_reads, (unsigned long long)n_err_reads, max_infl, max_iq,
      (unsigned long long)n_fills, (unsigned long long)n_fill_dead,
      (unsigned long long)n_fill_kill);
  info(
      "kills: %llu filled entries by retirement, %llu by reset, %llu pending entries; %llu slot "
      "rewrites; %llu reads requested with a dead read of the key still in flight",
      (unsigned long long)n_kill_full_inv, (unsigned long long)n_kill_full_clr,
      (unsigned long long)n_kill_pend, (unsigned long long)n_rewrites,
      (unsigned long long)n_dup_pend);
  info(
      "resets dropped live entries: %llu %s, %llu %s, %llu %s, %llu %s (%llu resets of both "
      "queues); %llu live entries of a reset number kept (other kind)",
      (unsigned long long)n_clr_drop[0], kKindName[0], (unsigned long long)n_clr_drop[1],
      kKindName[1], (unsigned long long)n_clr_drop[2], kKindName[2],
      (unsigned long long)n_clr_drop[3], kKindName[3], (unsigned long long)n_clr_both,
      (unsigned long long)n_clr_spared);
  info(
      "lookups %llu: hits %llu (%llu with err, %llu short WQEs, %llu over stale longer data, %llu "
      "of rewritten slots, %llu right after the fill); lk_pend_o=1 %llu (%llu then hit), "
      "lk_pend_o=0 with a dead read of the key in flight %llu; no lookup %llu (%llu of a key "
      "held)",
      (unsigned long long)n_lookups, (unsigned long long)n_hits, (unsigned long long)n_hit_err,
      (unsigned long long)n_hit_short, (unsigned long long)n_hit_masked,
      (unsigned long long)n_hit_regen, (unsigned long long)n_hit_after_fill,
      (unsigned long long)n_lk_pend, (unsigned long long)n_pend_then_hit,
      (unsigned long long)n_lk_pend_dead, (unsigned long long)n_no_lookup,
      (unsigned long long)n_no_lookup_held);

  const uint64_t kMin = 5;
  BLK_CHECK(n_alloc_free >= kMin && n_free_noev >= kMin && n_evict >= kMin && n_held >= kMin &&
                n_stale >= kMin && n_stale_clr >= kMin && n_hint_spared >= 1 &&
                n_noevict >= kMin && n_nofree >= kMin,
            "weak coverage of hints: %llu free (%llu without evict), %llu evictions, %llu held, "
            "%llu stale (%llu reset), %llu spared, %llu may not evict, %llu no entry",
            (unsigned long long)n_alloc_free, (unsigned long long)n_free_noev,
            (unsigned long long)n_evict, (unsigned long long)n_held, (unsigned long long)n_stale,
            (unsigned long long)n_stale_clr, (unsigned long long)n_hint_spared,
            (unsigned long long)n_noevict, (unsigned long long)n_nofree);
  info("evictions of WQEs read ahead %llu (of %llu; %llu by a send WQE's hint without "
       "hint_evict_i); read-ahead marks cleared by a hint %llu",
       (unsigned long long)n_evict_far, (unsigned long long)n_evict,
       (unsigned long long)n_sq_far, (unsigned long long)n_unfar);
  info("age ticks %llu; evicting hints refused while every filled entry was young %llu",
       (unsigned long long)n_ticks, (unsigned long long)n_young_kept);
  BLK_CHECK(n_young_kept >= kMin && n_ticks >= kMin,
            "weak coverage of ages: %llu evicting hints kept out by young entries, %llu ticks",
            (unsigned long long)n_young_kept, (unsigned long long)n_ticks);
  BLK_CHECK(n_evict_far >= kMin && n_evict - n_evict_far >= kMin && n_unfar >= kMin &&
                n_sq_far >= kMin,
            "weak coverage of the eviction order: %llu of %llu evictions read ahead (%llu by a "
            "send WQE's hint), %llu marks cleared",
            (unsigned long long)n_evict_far, (unsigned long long)n_evict,
            (unsigned long long)n_sq_far, (unsigned long long)n_unfar);
  BLK_CHECK(n_room >= kMin && n_noroom >= kMin, "weak coverage of room_o: %llu cycles with, %llu without",
            (unsigned long long)n_room, (unsigned long long)n_noroom);
  BLK_CHECK(n_reads >= kMin && n_err_reads >= kMin && max_infl == kE && max_iq == kE &&
                n_fill_dead >= kMin && n_fill_kill >= kMin,
            "weak coverage of reads: %llu reads, %llu errors, max %zu in flight, max %zu queued, "
            "%llu dead fills, %llu killed at the end",
            (unsigned long long)n_reads, (unsigned long long)n_err_reads, max_infl, max_iq,
            (unsigned long long)n_fill_dead, (unsigned long long)n_fill_kill);
  BLK_CHECK(n_kill_full_inv >= kMin && n_kill_full_clr >= kMin && n_kill_pend >= kMin &&
                n_rewrites >= kMin && n_dup_pend >= 1,
            "weak coverage of kills: %llu/%llu filled, %llu pending, %llu rewrites, %llu re-reads",
            (unsigned long long)n_kill_full_inv, (unsigned long long)n_kill_full_clr,
            (unsigned long long)n_kill_pend, (unsigned long long)n_rewrites,
            (unsigned long long)n_dup_pend);
  BLK_CHECK(n_clr_drop[kRq] >= kMin && n_clr_drop[kSrq] >= kMin && n_clr_drop[kSq] >= kMin &&
                n_clr_drop[3] >= 1 && n_clr_both >= 1 && n_clr_spared >= kMin,
            "weak coverage of resets: dropped %llu RQ, %llu SRQ, %llu SQ, %llu kind 3 entries, "
            "%llu by both resets, %llu kept",
            (unsigned long long)n_clr_drop[0], (unsigned long long)n_clr_drop[1],
            (unsigned long long)n_clr_drop[2], (unsigned long long)n_clr_drop[3],
            (unsigned long long)n_clr_both, (unsigned long long)n_clr_spared);
  BLK_CHECK(n_hits >= 100 && n_hit_err >= kMin && n_hit_short >= kMin && n_hit_masked >= kMin &&
                n_hit_regen >= kMin && n_hit_after_fill >= kMin && n_lk_pend >= kMin &&
                n_pend_then_hit >= kMin && n_lk_pend_dead >= 1 && n_no_lookup_held >= kMin,
            "weak coverage of lookups: %llu hits, %llu err, %llu short, %llu masked, %llu "
            "rewritten, %llu after fill, %llu pending (%llu then hit), %llu dead pending, %llu "
            "held but not looked up",
            (unsigned long long)n_hits, (unsigned long long)n_hit_err,
            (unsigned long long)n_hit_short, (unsigned long long)n_hit_masked,
            (unsigned long long)n_hit_regen, (unsigned long long)n_hit_after_fill,
            (unsigned long long)n_lk_pend, (unsigned long long)n_pend_then_hit,
            (unsigned long long)n_lk_pend_dead, (unsigned long long)n_no_lookup_held);
  top.final();
  return finish(vctx);
}
