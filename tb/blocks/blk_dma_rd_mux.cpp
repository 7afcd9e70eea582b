// blk_dma_rd_mux: rnic_dma_rd_mux alone (N = 3 as in rnic_top, and N = 5).
//
// N sources issue random read requests (random valid, held until ready) and
// take response beats with random ready; a C++ memory on the DMA side accepts
// requests with random ready (at most 8 outstanding), answers them in request
// order after a random latency, ceil(len/32) beats each with random gaps, the
// tag echoed. The mux carries no data: the beats reach the sources on the
// shared bus, so the bench puts the identity of each beat (address, beat
// number, last) on that bus and the source that takes it checks it against
// its own oldest request.
// Checks: dma_req_valid_o when any source requests; the request on the DMA
// side is one of the requesting sources' (address, length, tag[7:5]); a
// request shown to a stalled DMA stays shown until taken; any other grant
// goes to the first requester after the previous grant (round robin),
// so no source waits more than N-1 grants; req_ready_o only to the granted
// source; rsp_valid_o only for the source in the tag and dma_rsp_ready_o that
// source's ready; every response beat reaches exactly the source that issued
// the request, in order per source, none lost or duplicated.
#include "Vrnic_dma_rd_mux.h"
#include "blk_common.h"

using namespace blk;

#ifndef NSRC
#define NSRC 3
#endif
constexpr unsigned kN = NSRC;
constexpr unsigned kBytes = 32;   // beat size of the memory model
constexpr unsigned kMaxOut = 8;   // requests the memory holds
constexpr unsigned kReqs = 3000;  // per source

namespace {

struct Req {
  uint64_t addr = 0;
  uint16_t len = 0;
  unsigned beats() const { return (len + kBytes - 1) / kBytes; }
};

struct Src {
  bool offered = false;
  Req cur;
  std::deque<Req> out;  // granted, data not yet (fully) returned
  unsigned beat = 0;    // next beat of out.front()
  unsigned issued = 0, done = 0;
  unsigned passed = 0;  // grants to others while this source requests
  double p_req = 0.5, p_rdy = 0.8;
};

struct Infl {
  Req req;
  uint8_t tag;
  uint64_t due;
  unsigned beat = 0;
};

}  // namespace

int main(int argc, char **argv) {
  static const std::string name =
      std::string("blk_dma_rd_mux") + (kN == 3 ? "" : "_n" + std::to_string(kN));
  g_bench = name.c_str();
  VerilatedContext vctx;
  vctx.commandArgs(argc, argv);
  Vrnic_dma_rd_mux top{&vctx};
  Rng r(0xd3a00000u + kN);

  Src src[kN];
  std::deque<Infl> mem;    // the memory's requests, in acceptance order
  bool rsp_on = false;     // the memory presents the head's current beat
  unsigned last = kN - 1;  // round-robin pointer: the last source granted
  uint64_t last_progress = 0;
  unsigned grants = 0, contested = 0, alone = 0, beats = 0, max_passed = 0;
  // A request shown while the memory is not ready may be replaced by another
  // source's (the choice is remade every cycle); only the handshake counts.
  unsigned switched = 0, shown_prev = kN;
  double p_dma_rdy = 0.7, p_beat = 0.8;

  top.req_valid_i = 0;
  top.rsp_ready_i = 0;
  top.dma_req_ready_i = 0;
  top.dma_rsp_valid_i = 0;
  reset_dut(top);

  auto all_done = [&]() {
    for (auto &s : src)
      if (s.issued < kReqs || s.offered || !s.out.empty()) return false;
    return mem.empty();
  };

  for (; g_cycle < 5000000; g_cycle++) {
    if (all_done()) break;
    if (g_cycle - last_progress > 20000) {
      fail("no progress for 20000 cycles (%zu requests in the memory)", mem.size());
      break;
    }
    // Phases: light random load (grants with a single requester too); every
    // source requesting back to back (exact rotation); one source quiet; a
    // slow memory and a slow consumer.
    const unsigned ph = (unsigned)(g_cycle / 2500) % 4;
    if (g_cycle % 2500 == 0) {
      const unsigned quiet = (unsigned)r.range(0, kN - 1);
      for (unsigned i = 0; i < kN; i++) {
        Src &s = src[i];
        s.p_req = ph == 1 ? 1.0 : ph == 2 ? (i == quiet ? 0.0 : 1.0) : 0.01 * r.range(1, 20);
        s.p_rdy = ph == 3 ? (i == quiet ? 0.1 : 0.6) : 0.5 + 0.5 * r.range(0, 5) / 5;
      }
      p_dma_rdy = ph == 3 ? 0.2 : ph == 1 ? 1.0 : 0.7;
      p_beat = ph == 3 ? 0.4 : 0.9;
    }

    top.clk_i = 0;
    // ---- sources: a request stays offered until it is taken
    Bits addr(kN * 64), len(kN * 16);
    uint32_t valid = 0, rdy = 0;
    for (unsigned i = 0; i < kN; i++) {
      Src &s = src[i];
      if (!s.offered && s.issued < kReqs && r.chance(s.p_req)) {
        s.cur.addr = r.u64();
        const unsigned k = (unsigned)r.range(0, 99);
        s.cur.len = (uint16_t)(k < 70   ? r.range(1, 64)
                               : k < 95 ? r.range(65, 512)
                                        : r.range(513, 4096));
        s.offered = true;
      }
      if (s.offered) {
        valid |= 1u << i;
        addr.set(64 * i, 64, s.cur.addr);
        len.set(16 * i, 16, s.cur.len);
      } else {  // not requesting: the fields are garbage
        addr.set(64 * i, 64, r.u64());
        len.set(16 * i, 16, r.u32());
      }
      if (r.chance(s.p_rdy)) rdy |= 1u << i;
    }
    top.req_valid_i = valid;
    vset(top.req_addr_i, addr);
    vset(top.req_len_i, len);
    top.rsp_ready_i = rdy;
    top.dma_req_ready_i = mem.size() < kMaxOut && r.chance(p_dma_rdy);
    // ---- memory: the head's beats once its latency has passed; a beat once
    // shown stays until taken
    if (!rsp_on && !mem.empty() && g_cycle >= mem.front().due && r.chance(p_beat)) rsp_on = true;
    top.dma_rsp_valid_i = rsp_on;
    top.dma_rsp_tag_i = rsp_on ? mem.front().tag : (uint8_t)r.u32();
    top.eval();

    // ---- request side
    BLK_CHECK(top.dma_req_valid_o == (valid != 0), "dma_req_valid_o=%d with req_valid_i=0x%x",
              top.dma_req_valid_o, valid);
    const bool req_take = top.dma_req_valid_o && top.dma_req_ready_i;
    // A request shown and not taken stays shown while its source asks.
    const unsigned held = shown_prev < kN && (valid >> shown_prev & 1) ? shown_prev : kN;
    if (top.dma_req_valid_o && shown_prev < kN && (top.dma_req_tag_o >> 5) != shown_prev)
      switched++;
    BLK_CHECK(held == kN || (top.dma_req_tag_o >> 5) == held,
              "source %u shown and waiting, now source %u shown", held, top.dma_req_tag_o >> 5);
    shown_prev = top.dma_req_valid_o && !req_take ? top.dma_req_tag_o >> 5 : kN;
    // what the memory takes on this edge (the outputs change after it)
    const Infl taken{Req{top.dma_req_addr_o, top.dma_req_len_o}, top.dma_req_tag_o,
                     g_cycle + r.range(1, 40)};
    unsigned g = kN;  // the source the DMA request belongs to
    if (top.dma_req_valid_o) {
      g = top.dma_req_tag_o >> 5;
      if (g >= kN || !(valid >> g & 1)) {
        fail("dma_req_tag_o=0x%02x names source %u, requesting: 0x%x", top.dma_req_tag_o, g, valid);
        g = kN;
      } else {
        BLK_CHECK(top.dma_req_addr_o == src[g].cur.addr && top.dma_req_len_o == src[g].cur.len,
                  "request of source %u: addr=0x%016llx len=%u, source offers 0x%016llx/%u", g,
                  (unsigned long long)top.dma_req_addr_o, top.dma_req_len_o,
                  (unsigned long long)src[g].cur.addr, src[g].cur.len);
      }
    }
    const uint32_t exp_rr = (req_take && g < kN) ? 1u << g : 0;
    BLK_CHECK(top.req_ready_o == exp_rr, "req_ready_o=0x%x, expected 0x%x (DMA %s)",
              top.req_ready_o, exp_rr, req_take ? "takes a request" : "idle or not ready");
    if (req_take && g < kN) {
      unsigned exp = held;
      for (unsigned k = 1; k <= kN && exp == kN; k++)
        if (valid >> ((last + k) % kN) & 1) exp = (last + k) % kN;
      BLK_CHECK(g == exp, "grant to source %u, round robin after %u among 0x%x gives %u", g, last,
                valid, exp);
      if (__builtin_popcount(valid) > 1)
        contested++;
      else
        alone++;
      for (unsigned i = 0; i < kN; i++) {
        if (i == g) continue;
        if (valid >> i & 1) {
          src[i].passed++;
          max_passed = std::max(max_passed, src[i].passed);
          BLK_CHECK(src[i].passed <= kN - 1, "source %u passed over %u times while requesting", i,
                    src[i].passed);
        }
      }
      src[g].passed = 0;
    }

    // ---- response side
    const unsigned ts = top.dma_rsp_tag_i >> 5;
    uint32_t exp_rv = rsp_on && ts < kN ? 1u << ts : 0;
    BLK_CHECK(top.rsp_valid_o == exp_rv, "rsp_valid_o=0x%x, expected 0x%x (tag 0x%02x)",
              top.rsp_valid_o, exp_rv, top.dma_rsp_tag_i);
    if (rsp_on)
      BLK_CHECK(top.dma_rsp_ready_o == (rdy >> ts & 1),
                "dma_rsp_ready_o=%d, source %u (tag 0x%02x) has ready %d", top.dma_rsp_ready_o, ts,
                top.dma_rsp_tag_i, rdy >> ts & 1);
    const bool rsp_take = rsp_on && top.dma_rsp_ready_o;
    unsigned takers = 0;
    for (unsigned i = 0; i < kN; i++) {
      if (!((top.rsp_valid_o >> i) & 1) || !((rdy >> i) & 1)) continue;
      takers++;
      Src &s = src[i];
      if (!rsp_on) {
        fail("source %u takes a beat while the memory shows none", i);
        continue;
      }
      const Infl &h = mem.front();  // the beat on the bus
      if (s.out.empty()) {
        fail("source %u takes a beat of 0x%016llx but has no read outstanding", i,
             (unsigned long long)h.req.addr);
        continue;
      }
      const Req &q = s.out.front();
      BLK_CHECK(h.req.addr == q.addr && h.req.len == q.len && h.beat == s.beat,
                "source %u: beat %u of 0x%016llx/%u arrives, expected beat %u of 0x%016llx/%u", i,
                h.beat, (unsigned long long)h.req.addr, h.req.len, s.beat,
                (unsigned long long)q.addr, q.len);
      if (++s.beat == q.beats()) {
        s.out.pop_front();
        s.beat = 0;
        s.done++;
      }
    }
    BLK_CHECK(takers == (rsp_take ? 1u : 0u), "%u sources take a beat, the memory gives %d", takers,
              rsp_take);

    top.clk_i = 1;
    top.eval();

    // ---- models after the edge
    if (req_take && g < kN) {
      Src &s = src[g];
      s.out.push_back(s.cur);
      s.offered = false;
      s.issued++;
      mem.push_back(taken);
      last = g;
      grants++;
      last_progress = g_cycle;
    }
    if (rsp_take) {
      beats++;
      rsp_on = false;
      if (++mem.front().beat == mem.front().req.beats()) mem.pop_front();
      last_progress = g_cycle;
    }
  }

  for (unsigned i = 0; i < kN; i++)
    BLK_CHECK(src[i].issued == kReqs && src[i].done == kReqs && src[i].out.empty(),
              "source %u: %u requests issued, %u answered, %zu outstanding", i, src[i].issued,
              src[i].done, src[i].out.size());
  BLK_CHECK(mem.empty(), "%zu requests left in the memory", mem.size());
  BLK_CHECK(contested > kReqs && alone > kReqs / 10 && max_passed == kN - 1,
            "weak coverage: %u contested grants, %u alone, a source passed over at most %u times",
            contested, alone, max_passed);
  info(
      "N=%u: %u requests (%u granted among several requesters, %u to a lone requester; longest "
      "wait %u grants), %u response beats; %u times the request shown to a stalled memory "
      "changed source",
      kN, grants, contested, alone, max_passed, beats, switched);
  top.final();
  return finish(vctx);
}
