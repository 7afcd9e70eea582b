// blk_rnic_crc32_beat: rnic_crc32_beat (word-parallel CRC-32 over one beat)
// against the byte-serial reference of blk_common.h (crc32_step), at the
// datapath width DATAW.
//
// 1. Every byte count 0..Bytes with random states and data (random bytes in
//    the lanes past the count, which must not matter), plus the corner values
//    (state and data all zeros or all ones, a single set bit in each position).
// 2. Streams as the parser and the builder feed it: random lengths cut into
//    full beats and a partial last beat, from random and ICRC start states.
// 3. The start-of-ICRC trick the parser and the builder use: the state that
//    reaches the ICRC seed after Lo zero bytes, with lanes below Lo zeroed,
//    gives the serial CRC of lanes Lo.. from the seed.
#include "Vrnic_crc32_beat.h"
#include "blk_common.h"

using namespace blk;

#ifndef DATAW
#define DATAW 256
#endif
constexpr unsigned kBytes = DATAW / 8;

namespace {

uint32_t serial(uint32_t c, const uint8_t *p, unsigned n) {
  for (unsigned i = 0; i < n; i++) c = crc32_step(c, p[i]);
  return c;
}

// Inverse of one zero-byte step (bit 31 of a step's result tells whether the
// polynomial was added).
uint32_t unstep_zero_byte(uint32_t c) {
  for (int k = 0; k < 8; k++) c = (c & 0x80000000u) ? (((c ^ 0xEDB88320u) << 1) | 1u) : (c << 1);
  return c;
}

struct Dut {
  Vrnic_crc32_beat top;
  explicit Dut(VerilatedContext &ctx) : top{&ctx, "crc"} {}
  uint32_t run(uint32_t c, const uint8_t *lanes, unsigned len) {
    top.crc_i = c;
    vset_bytes(top.data_i, lanes);
    top.len_i = len;
    top.eval();
    g_cycle++;
    return top.crc_o;
  }
};

}  // namespace

int main(int argc, char **argv) {
  static char name[32];
  std::snprintf(name, sizeof(name), "blk_rnic_crc32_beat_w%u", (unsigned)DATAW);
  g_bench = name;
  VerilatedContext ctx;
  ctx.commandArgs(argc, argv);
  Dut d(ctx);
  Rng r(0xc3c32beau + DATAW);
  std::vector<uint8_t> lanes(kBytes);

  // 1. Every count, random and corner values.
  unsigned per_len = 4000;
  for (unsigned len = 0; len <= kBytes; len++) {
    for (unsigned t = 0; t < per_len; t++) {
      uint32_t c = r.u32();
      for (auto &b : lanes) b = (uint8_t)r.u32();
      if (t == 0) {
        c = 0;
        std::fill(lanes.begin(), lanes.end(), 0);
      } else if (t == 1) {
        c = ~0u;
        std::fill(lanes.begin(), lanes.end(), 0xff);
      } else if (t < 2 + 32) {
        c = 1u << (t - 2);
        std::fill(lanes.begin(), lanes.end(), 0);
      } else if (t < 2 + 32 + 8 * kBytes) {
        unsigned bit = t - 2 - 32;
        c = 0;
        std::fill(lanes.begin(), lanes.end(), 0);
        lanes[bit / 8] = (uint8_t)(1u << (bit % 8));
      }
      const uint32_t want = serial(c, lanes.data(), len);
      const uint32_t got = d.run(c, lanes.data(), len);
      BLK_CHECK(got == want, "len %u state %08x: crc_o %08x, byte-serial %08x", len, c, got, want);
    }
  }

  // 2. Streams cut into beats.
  const uint32_t seed = [] {
    uint32_t c = ~0u;
    for (int i = 0; i < 8; i++) c = crc32_step(c, 0xff);
    return c;
  }();
  BLK_CHECK(seed == 0xdebb20e3u, "ICRC seed %08x", seed);
  for (unsigned t = 0; t < 3000; t++) {
    const unsigned n = (unsigned)r.range(0, 4200);
    std::vector<uint8_t> s(n);
    for (auto &b : s) b = (uint8_t)r.u32();
    const uint32_t c0 = (t % 2) ? seed : r.u32();
    uint32_t c = c0;
    for (unsigned off = 0; off < n; off += kBytes) {
      const unsigned k = std::min(kBytes, n - off);
      for (unsigned i = 0; i < kBytes; i++) lanes[i] = i < k ? s[off + i] : (uint8_t)r.u32();
      c = d.run(c, lanes.data(), k);
    }
    const uint32_t want = serial(c0, s.data(), n);
    BLK_CHECK(c == want, "stream of %u bytes from %08x: %08x, byte-serial %08x", n, c0, c, want);
  }

  // 3. Start of the ICRC at lane Lo of a beat (the parser's and builder's
  //    beat holding byte 14): the pre-state with lanes below Lo zeroed.
  const unsigned lo = 14 % kBytes;
  uint32_t pre = seed;
  for (unsigned i = 0; i < lo; i++) pre = unstep_zero_byte(pre);
  for (unsigned t = 0; t < 2000; t++) {
    const unsigned len = (unsigned)r.range(lo + 1, kBytes);
    for (unsigned i = 0; i < kBytes; i++) lanes[i] = i < lo ? 0 : (uint8_t)r.u32();
    const uint32_t want = serial(seed, lanes.data() + lo, len - lo);
    const uint32_t got = d.run(pre, lanes.data(), len);
    BLK_CHECK(got == want, "ICRC start, len %u: %08x, byte-serial %08x", len, got, want);
  }
  info("pre-state for %u zero lanes: %08x", lo, pre);
  return finish(ctx);
}
