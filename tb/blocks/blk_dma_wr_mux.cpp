// blk_dma_wr_mux: rnic_dma_wr_mux alone (DATAW 256 and 64).
//
// Two writers (source 0 payload placement, source 1 the CQE writer) offer
// random writes of 1..2048 bytes (single and multi-beat, random valid gaps
// inside a write, garbage on addr/len after the first beat, which the channel
// only takes on the first beat); the DMA write channel takes beats with
// random ready and reassembles the writes from the first to the last beat.
// Checks: every beat taken on the channel is taken from exactly one source
// and is that source's current beat (data, last; address and length on the
// first beat); a write is never interleaved: from its first to its last beat
// the channel shows only its owner (valid_o follows the owner's valid, the
// other source gets no ready); every write arrives whole with its address,
// length and data, in order per source, none lost or duplicated; when both
// sources start a write in the same cycle, placement goes first (the ordering
// rnic_dma_wr_mux promises: a receive CQE follows the data it reports); a
// first beat shown to a stalled channel keeps it until taken.
#include "Vrnic_dma_wr_mux.h"
#include "blk_common.h"

using namespace blk;

#ifndef DATAW
#define DATAW 256
#endif
constexpr unsigned kBytes = DATAW / 8;
constexpr unsigned kWrites = 6000;  // per source

namespace {

struct Wr {
  uint64_t addr = 0;
  uint16_t len = 0;
  std::vector<uint8_t> data;  // beats * kBytes bytes (lanes past len are garbage)
  unsigned beats() const { return (len + kBytes - 1) / kBytes; }
};

struct Src {
  bool active = false;  // a write is being offered
  Wr cur;
  unsigned beat = 0;
  bool show = false;    // valid this cycle (stays up until the beat is taken)
  std::deque<Wr> sent;  // fully handed over, not yet matched on the channel
  unsigned made = 0;
  double p_start = 0.3, p_valid = 0.8;
};

}  // namespace

int main(int argc, char **argv) {
  static const std::string name =
      std::string("blk_dma_wr_mux") + (DATAW == 256 ? "" : "_w" + std::to_string(DATAW));
  g_bench = name.c_str();
  VerilatedContext vctx;
  vctx.commandArgs(argc, argv);
  Vrnic_dma_wr_mux top{&vctx};
  Rng r(0xd3b00000u + DATAW);

  Src src[2];
  // channel side: the write being reassembled
  bool in_wr = false;
  unsigned owner = 0;
  // a first beat shown to a stalled channel keeps it (held by held_src)
  bool held = false;
  unsigned held_src = 0;
  Wr got;
  unsigned done[2] = {}, beats = 0, multi = 0, both_start = 0, blocked = 0;
  unsigned wait1 = 0, max_wait1 = 0;  // cycles the CQE writer's first beat waits
  uint64_t last_progress = 0;
  double p_ready = 0.7;

  top.valid_i = 0;
  top.ready_i = 0;
  reset_dut(top);

  for (; g_cycle < 5000000; g_cycle++) {
    if (done[0] == kWrites && done[1] == kWrites && !src[0].active && !src[1].active) break;
    if (g_cycle - last_progress > 20000) {
      fail("no progress for 20000 cycles: %u/%u writes done", done[0], done[1]);
      break;
    }
    const unsigned ph = (unsigned)(g_cycle / 3000) % 4;
    if (g_cycle % 3000 == 0) {
      for (auto &s : src) {
        s.p_start = ph == 1 ? 1.0 : 0.05 + 0.05 * r.range(0, 8);
        s.p_valid = ph == 2 ? 0.3 : 0.6 + 0.1 * r.range(0, 4);
      }
      p_ready = ph == 3 ? 0.25 : ph == 1 ? 1.0 : 0.7;
    }

    top.clk_i = 0;
    Bits addr(128), len(32), data(2 * DATAW);
    uint32_t valid = 0, last = 0;
    for (unsigned i = 0; i < 2; i++) {
      Src &s = src[i];
      if (!s.active && s.made < kWrites && r.chance(s.p_start)) {
        Wr &w = s.cur;
        w.addr = r.u64();
        const unsigned k = (unsigned)r.range(0, 99);
        w.len = (uint16_t)(k < 30   ? r.range(1, kBytes)
                           : k < 90 ? r.range(kBytes + 1, 256)
                                    : r.range(257, 2048));
        w.data.resize(w.beats() * kBytes);
        for (auto &b : w.data) b = (uint8_t)r.u32();
        s.active = true;
        s.beat = 0;
        s.show = false;
        s.made++;
      }
      if (s.active && !s.show) s.show = r.chance(s.p_valid);
      if (s.show) valid |= 1u << i;
      // addr/len only mean something on the first beat of a write
      const bool first = s.active && s.beat == 0;
      addr.set(64 * i, 64, first ? s.cur.addr : r.u64());
      len.set(16 * i, 16, first ? s.cur.len : r.u32());
      if (s.active) {
        for (unsigned b = 0; b < kBytes; b++)
          data.set(DATAW * i + 8 * b, 8, s.cur.data[s.beat * kBytes + b]);
        if (s.beat + 1 == s.cur.beats()) last |= 1u << i;
      } else {
        for (unsigned b = 0; b < kBytes; b += 8) data.set(DATAW * i + 8 * b, 64, r.u64());
        last |= (r.u32() & 1) << i;
      }
    }
    top.valid_i = valid;
    vset(top.addr_i, addr);
    top.len_i = (uint32_t)len.get(0, 32);
    vset(top.data_i, data);
    top.last_i = last;
    top.ready_i = r.chance(p_ready);
    top.eval();

    const bool take = top.valid_o && top.ready_i;
    // ---- a write in progress owns the channel
    if (in_wr) {
      BLK_CHECK(top.valid_o == ((valid >> owner) & 1),
                "valid_o=%d inside a write of source %u whose valid is %d", top.valid_o, owner,
                (valid >> owner) & 1);
      BLK_CHECK(!((top.ready_o >> (1 - owner)) & 1),
                "ready_o=0x%x gives the other source a beat inside a write of source %u",
                top.ready_o, owner);
      if (!((valid >> owner) & 1) && ((valid >> (1 - owner)) & 1)) blocked++;
    } else if (held) {
      BLK_CHECK(top.valid_o == ((valid >> held_src) & 1),
                "valid_o=%d while the first beat of source %u waits, its valid %d", top.valid_o,
                held_src, (valid >> held_src) & 1);
    } else {
      BLK_CHECK(top.valid_o == (valid != 0), "valid_o=%d with valid_i=0x%x between writes",
                top.valid_o, valid);
    }
    // the source whose beat the channel shows between writes
    const unsigned shown = held ? held_src : (valid & 1) ? 0 : 1;
    // ---- which source's beat moves: exactly one, and only when the channel takes one
    unsigned movers = 0, mv = 0;
    for (unsigned i = 0; i < 2; i++)
      if (((valid >> i) & 1) && ((top.ready_o >> i) & 1)) {
        movers++;
        mv = i;
      }
    BLK_CHECK(movers == (take ? 1u : 0u), "%u sources see valid&&ready_o, channel takes %d", movers,
              take);
    if (take && movers == 1) {
      Src &s = src[mv];
      if (!in_wr) {
        if (held) {
          BLK_CHECK(mv == held_src, "source %u's first beat waited, source %u goes", held_src,
                    mv);
        } else if (valid == 3) {
          both_start++;
          BLK_CHECK(mv == 0, "both sources start a write, source %u goes first", mv);
        }
        BLK_CHECK(top.addr_o == s.cur.addr && top.len_o == s.cur.len,
                  "source %u write #%u: first beat addr=0x%016llx len=%u, expected 0x%016llx/%u",
                  mv, s.made - 1, (unsigned long long)top.addr_o, top.len_o,
                  (unsigned long long)s.cur.addr, s.cur.len);
        got = Wr();
        got.addr = top.addr_o;
        got.len = top.len_o;
        owner = mv;
      } else {
        BLK_CHECK(mv == owner, "beat of source %u inside a write of source %u", mv, owner);
      }
      uint8_t lanes[kBytes];
      vget_bytes(top.data_o, lanes);
      got.data.insert(got.data.end(), lanes, lanes + kBytes);
      const bool exp_last = s.beat + 1 == s.cur.beats();
      BLK_CHECK(top.last_o == exp_last, "source %u write #%u: last_o=%d on beat %u of %u", mv,
                s.made - 1, top.last_o, s.beat, s.cur.beats());
    }

    top.clk_i = 1;
    top.eval();

    // ---- models after the edge
    if (src[1].show && src[1].beat == 0 && !(take && movers == 1 && mv == 1)) {
      max_wait1 = std::max(max_wait1, ++wait1);
    } else {
      wait1 = 0;
    }
    if (!in_wr && top.valid_o && !take) {
      held = true;
      held_src = shown;
    } else if (take) {
      held = false;
    }
    if (take && movers == 1) {
      beats++;
      last_progress = g_cycle;
      Src &s = src[mv];
      s.show = false;
      if (++s.beat == s.cur.beats()) {  // the source is done with this write
        s.sent.push_back(s.cur);
        s.active = false;
      }
      const bool end = got.data.size() >= (size_t)((got.len + kBytes - 1) / kBytes) * kBytes;
      in_wr = !end;
      if (end) {  // the channel has a whole write: the source's oldest one
        Src &o = src[owner];
        if (o.sent.empty()) {
          fail("source %u: a write of 0x%016llx/%u arrives that it never finished", owner,
               (unsigned long long)got.addr, got.len);
        } else {
          const Wr &e = o.sent.front();
          bool same = got.addr == e.addr && got.len == e.len;
          for (unsigned b = 0; same && b < e.len; b++) same = got.data[b] == e.data[b];
          BLK_CHECK(same,
                    "source %u write #%u (0x%016llx/%u) arrives as 0x%016llx/%u or with "
                    "other data",
                    owner, done[owner], (unsigned long long)e.addr, e.len,
                    (unsigned long long)got.addr, got.len);
          if (e.beats() > 1) multi++;
          o.sent.pop_front();
          done[owner]++;
        }
      }
    }
  }

  for (unsigned i = 0; i < 2; i++)
    BLK_CHECK(done[i] == kWrites && src[i].sent.empty() && !src[i].active,
              "source %u: %u of %u writes arrived, %zu handed over but not seen", i, done[i],
              kWrites, src[i].sent.size());
  BLK_CHECK(!in_wr, "the channel ends inside a write");
  BLK_CHECK(multi > kWrites && both_start > 100 && blocked > 100,
            "weak coverage: %u multi-beat writes, %u simultaneous starts, %u cycles the other "
            "source waited on a stalled owner",
            multi, both_start, blocked);
  info(
      "%u + %u writes (%u multi-beat), %u beats; %u simultaneous starts; %u cycles a source "
      "waited while the owner of a write paused; longest wait of a CQE write: %u cycles",
      done[0], done[1], multi, beats, both_start, blocked, max_wait1);
  top.final();
  return finish(vctx);
}
