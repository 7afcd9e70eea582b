// blk_common.h: shared helpers of the block-level Verilator benches.
//
// - failure reporting (BLK_CHECK), a seeded random source
// - Bits: an arbitrary-width bit vector, packed-struct packing MSB first (the
//   order of the fields of a SystemVerilog packed struct), conversion to and
//   from Verilator port types (CData..QData, VlWide<N>)
// - reference RoCEv2 frame builder (Ethernet/IPv4/UDP/BTH and every extension
//   header of the RC/UC/UD opcodes the RNIC speaks: DETH, RETH, AtomicETH,
//   AETH, AtomicAckETH, ImmDt, IETH; pad, ICRC) written from the
//   specification (IBA table 38 and 9.3-9.5), not from the RTL
// - qp_cfg_t packing
#pragma once

#include <unistd.h>
#include <verilated.h>
#if VM_COVERAGE
#include <verilated_cov.h>
#endif

#include <algorithm>
#include <cstdarg>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <map>
#include <random>
#include <string>
#include <vector>

namespace blk {

// ---------------------------------------------------------------------------
// Failure reporting
// ---------------------------------------------------------------------------
inline const char *g_bench = "blk";
inline uint64_t g_cycle = 0;
inline unsigned g_fails = 0;
inline unsigned g_checks = 0;
constexpr unsigned kMaxFails = 25;

inline void fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
inline void fail(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  std::fprintf(stderr, "[%s] FAIL at cycle %llu: ", g_bench, (unsigned long long)g_cycle);
  std::vfprintf(stderr, fmt, ap);
  std::fprintf(stderr, "\n");
  va_end(ap);
  if (++g_fails >= kMaxFails) {
    std::fprintf(stderr, "[%s] too many failures, stopping\n", g_bench);
    std::fflush(stderr);
    std::exit(1);
  }
}

#define BLK_CHECK(cond, ...)             \
  do {                                   \
    ++blk::g_checks;                     \
    if (!(cond)) blk::fail(__VA_ARGS__); \
  } while (0)

inline void info(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
inline void info(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  std::printf("[%s] ", g_bench);
  std::vprintf(fmt, ap);
  std::printf("\n");
  va_end(ap);
  std::fflush(stdout);
}

inline int finish() {
  if (g_fails) {
    std::fprintf(stderr, "[%s] FAILED: %u failure(s), %u checks, %llu cycles\n", g_bench, g_fails,
                 g_checks, (unsigned long long)g_cycle);
    return 1;
  }
  std::printf("[%s] PASS: %u checks, %llu cycles\n", g_bench, g_checks,
              (unsigned long long)g_cycle);
  return 0;
}

// Coverage build (cmake -DRNIC_COVERAGE=ON): write the counts of the models
// alive in ctx to $RNIC_COVERAGE_DIR and drop them. The models hold the
// counters, so this runs before they are destroyed (scripts/coverage.sh).
inline void cov_dump(VerilatedContext &ctx) {
#if VM_COVERAGE
  static unsigned seq;
  const char *dir = std::getenv("RNIC_COVERAGE_DIR");
  if (dir && *dir) {
    const std::string p = std::string(dir) + "/" + g_bench + "-" + std::to_string(getpid()) +
                          "-" + std::to_string(seq++) + ".dat";
    ctx.coveragep()->forcePerInstance(true);  // keeps the FSM points apart
    ctx.coveragep()->write(p.c_str());
  }
  ctx.coveragep()->clear();
#else
  (void)ctx;
#endif
}

// finish() of a bench whose models live in main.
inline int finish(VerilatedContext &ctx) {
  cov_dump(ctx);
  return finish();
}

// ---------------------------------------------------------------------------
// Random source (fixed seed: every run is the same)
// ---------------------------------------------------------------------------
struct Rng {
  std::mt19937_64 g;
  explicit Rng(uint64_t seed) : g(seed) {}
  uint64_t u64() { return g(); }
  uint32_t u32() { return (uint32_t)g(); }
  // uniform in [lo, hi]
  uint64_t range(uint64_t lo, uint64_t hi) { return lo + (hi > lo ? g() % (hi - lo + 1) : 0); }
  bool chance(double p) { return std::uniform_real_distribution<double>(0.0, 1.0)(g) < p; }
  template <class T>
  const T &pick(const std::vector<T> &v) {
    return v[g() % v.size()];
  }
};

// ---------------------------------------------------------------------------
// Bits
// ---------------------------------------------------------------------------
struct Bits {
  std::vector<uint32_t> w;
  unsigned n = 0;
  Bits() = default;
  explicit Bits(unsigned nbits) : w((nbits + 31) / 32, 0), n(nbits) {}
  bool bit(unsigned i) const { return i < n && ((w[i / 32] >> (i % 32)) & 1u); }
  void setbit(unsigned i, bool v) {
    if (i >= n) {
      std::fprintf(stderr, "Bits::setbit %u out of %u\n", i, n);
      std::abort();
    }
    if (v)
      w[i / 32] |= 1u << (i % 32);
    else
      w[i / 32] &= ~(1u << (i % 32));
  }
  void set(unsigned lsb, unsigned width, uint64_t v) {
    for (unsigned i = 0; i < width; i++) setbit(lsb + i, i < 64 && ((v >> i) & 1));
  }
  uint64_t get(unsigned lsb, unsigned width) const {
    uint64_t v = 0;
    for (unsigned i = 0; i < width && i < 64; i++)
      if (bit(lsb + i)) v |= 1ull << i;
    return v;
  }
  void set_bits(unsigned lsb, const Bits &b) {
    for (unsigned i = 0; i < b.n; i++) setbit(lsb + i, b.bit(i));
  }
  Bits slice(unsigned lsb, unsigned width) const {
    Bits r(width);
    for (unsigned i = 0; i < width; i++) r.setbit(i, bit(lsb + i));
    return r;
  }
  uint8_t byte(unsigned i) const { return (uint8_t)get(8 * i, 8); }
  void set_byte(unsigned i, uint8_t b) { set(8 * i, 8, b); }
  bool any() const {
    for (auto x : w)
      if (x) return true;
    return false;
  }
};

// Packs the fields of a SystemVerilog packed struct, first field = MSBs.
struct Packer {
  Bits b;
  unsigned pos;
  explicit Packer(unsigned total) : b(total), pos(total) {}
  Packer &f(unsigned width, uint64_t v) {
    if (width > pos) {
      std::fprintf(stderr, "Packer overflow\n");
      std::abort();
    }
    pos -= width;
    b.set(pos, width, v);
    return *this;
  }
  Packer &fb(const Bits &v) {
    pos -= v.n;
    b.set_bits(pos, v);
    return *this;
  }
  Bits done() const {
    if (pos != 0) {
      std::fprintf(stderr, "Packer: %u bits left unfilled\n", pos);
      std::abort();
    }
    return b;
  }
};

// Reads the fields of a packed struct, first field = MSBs.
struct Unpacker {
  const Bits &b;
  unsigned pos;
  explicit Unpacker(const Bits &bits) : b(bits), pos(bits.n) {}
  uint64_t f(unsigned width) {
    pos -= width;
    return b.get(pos, width);
  }
  Bits fb(unsigned width) {
    pos -= width;
    return b.slice(pos, width);
  }
};

// Verilator port conversion.
template <std::size_t N>
inline void vset(VlWide<N> &s, const Bits &b) {
  for (std::size_t i = 0; i < N; i++) s[i] = i < b.w.size() ? b.w[i] : 0;
}
inline void vset(QData &s, const Bits &b) {
  s = b.get(0, std::min(64u, b.n));
}
inline void vset(IData &s, const Bits &b) {
  s = (IData)b.get(0, std::min(32u, b.n));
}
inline void vset(SData &s, const Bits &b) {
  s = (SData)b.get(0, std::min(16u, b.n));
}
inline void vset(CData &s, const Bits &b) {
  s = (CData)b.get(0, std::min(8u, b.n));
}

template <std::size_t N>
inline Bits vget(const VlWide<N> &s, unsigned nbits) {
  Bits b(nbits);
  for (std::size_t i = 0; i < b.w.size() && i < N; i++) b.w[i] = s[i];
  if (nbits % 32) b.w.back() &= (1u << (nbits % 32)) - 1;
  return b;
}
inline Bits vget(uint64_t s, unsigned nbits) {
  Bits b(nbits);
  b.set(0, nbits, s);
  return b;
}

// Byte lanes of a data bus (lane i = bits [8i+7:8i]).
template <std::size_t N>
inline void vset_bytes(VlWide<N> &s, const uint8_t *p) {
  for (std::size_t i = 0; i < N; i++)
    s[i] = (uint32_t)p[4 * i] | (uint32_t)p[4 * i + 1] << 8 | (uint32_t)p[4 * i + 2] << 16 |
           (uint32_t)p[4 * i + 3] << 24;
}
inline void vset_bytes(QData &s, const uint8_t *p) {
  s = 0;
  for (int i = 7; i >= 0; i--) s = (s << 8) | p[i];
}
template <std::size_t N>
inline void vget_bytes(const VlWide<N> &s, uint8_t *p) {
  for (std::size_t i = 0; i < 4 * N; i++) p[i] = (uint8_t)(s[i / 4] >> (8 * (i % 4)));
}
inline void vget_bytes(QData s, uint8_t *p) {
  for (int i = 0; i < 8; i++) p[i] = (uint8_t)(s >> (8 * i));
}

// ---------------------------------------------------------------------------
// CRC-32 (IEEE 802.3, reflected, poly 0xEDB88320), bitwise
// ---------------------------------------------------------------------------
inline uint32_t crc32_step(uint32_t c, uint8_t b) {
  c ^= b;
  for (int k = 0; k < 8; k++) c = (c >> 1) ^ (0xEDB88320u & (0u - (c & 1u)));
  return c;
}

// ---------------------------------------------------------------------------
// RoCEv2 reference
// ---------------------------------------------------------------------------
enum : uint8_t {
  // RC (IBA table 38, transport bits 000)
  OpSendFirst = 0x00,
  OpSendMiddle = 0x01,
  OpSendLast = 0x02,
  OpSendLastImm = 0x03,
  OpSendOnly = 0x04,
  OpSendOnlyImm = 0x05,
  OpWriteFirst = 0x06,
  OpWriteMiddle = 0x07,
  OpWriteLast = 0x08,
  OpWriteLastImm = 0x09,
  OpWriteOnly = 0x0a,
  OpWriteOnlyImm = 0x0b,
  OpReadReq = 0x0c,
  OpReadRespFirst = 0x0d,
  OpReadRespMiddle = 0x0e,
  OpReadRespLast = 0x0f,
  OpReadRespOnly = 0x10,
  OpAck = 0x11,
  OpAtomicAck = 0x12,
  OpCmpSwap = 0x13,
  OpFetchAdd = 0x14,
  OpSendLastInv = 0x16,
  OpSendOnlyInv = 0x17,
  // UC (transport bits 001)
  OpUcSendFirst = 0x20,
  OpUcSendMiddle = 0x21,
  OpUcSendLast = 0x22,
  OpUcSendLastImm = 0x23,
  OpUcSendOnly = 0x24,
  OpUcSendOnlyImm = 0x25,
  OpUcWriteFirst = 0x26,
  OpUcWriteMiddle = 0x27,
  OpUcWriteLast = 0x28,
  OpUcWriteLastImm = 0x29,
  OpUcWriteOnly = 0x2a,
  OpUcWriteOnlyImm = 0x2b,
  // UD (transport bits 011)
  OpUdSendOnly = 0x64,
  OpUdSendOnlyImm = 0x65,
};

// Headers that follow the BTH (IBA 9.2-9.5), in the order they appear on the
// wire: DETH, RETH, AtomicETH, AETH, AtomicAckETH, ImmDt, IETH.
enum : unsigned {
  kDeth = 1u << 0,          // 8: Q_Key, reserved byte, source QP
  kReth = 1u << 1,          // 16: VA, R_Key, DMA length
  kAtomicEth = 1u << 2,     // 28: VA, R_Key, swap/add data, compare data
  kAeth = 1u << 3,          // 4: syndrome, MSN
  kAtomicAckEth = 1u << 4,  // 8: original remote data
  kImm = 1u << 5,           // 4: immediate data
  kIeth = 1u << 6,          // 4: R_Key to invalidate
  kPayload = 1u << 7,       // the packet may carry payload
};

struct OpInfo {
  uint8_t op;
  const char *name;
  unsigned hdrs;
};

// Every opcode of IBA table 38 this RNIC speaks, with its headers, one line
// each as the table lists them. Anything not here is unknown.
inline const std::vector<OpInfo> &op_table() {
  static const std::vector<OpInfo> t = {
      {OpSendFirst, "SEND_FIRST", kPayload},
      {OpSendMiddle, "SEND_MIDDLE", kPayload},
      {OpSendLast, "SEND_LAST", kPayload},
      {OpSendLastImm, "SEND_LAST_IMM", kImm | kPayload},
      {OpSendOnly, "SEND_ONLY", kPayload},
      {OpSendOnlyImm, "SEND_ONLY_IMM", kImm | kPayload},
      {OpWriteFirst, "WRITE_FIRST", kReth | kPayload},
      {OpWriteMiddle, "WRITE_MIDDLE", kPayload},
      {OpWriteLast, "WRITE_LAST", kPayload},
      {OpWriteLastImm, "WRITE_LAST_IMM", kImm | kPayload},
      {OpWriteOnly, "WRITE_ONLY", kReth | kPayload},
      {OpWriteOnlyImm, "WRITE_ONLY_IMM", kReth | kImm | kPayload},
      {OpReadReq, "READ_REQ", kReth},
      {OpReadRespFirst, "READ_RESP_FIRST", kAeth | kPayload},
      {OpReadRespMiddle, "READ_RESP_MIDDLE", kPayload},
      {OpReadRespLast, "READ_RESP_LAST", kAeth | kPayload},
      {OpReadRespOnly, "READ_RESP_ONLY", kAeth | kPayload},
      {OpAck, "ACK", kAeth},
      {OpAtomicAck, "ATOMIC_ACK", kAeth | kAtomicAckEth},
      {OpCmpSwap, "CMP_SWAP", kAtomicEth},
      {OpFetchAdd, "FETCH_ADD", kAtomicEth},
      {OpSendLastInv, "SEND_LAST_INV", kIeth | kPayload},
      {OpSendOnlyInv, "SEND_ONLY_INV", kIeth | kPayload},
      {OpUcSendFirst, "UC_SEND_FIRST", kPayload},
      {OpUcSendMiddle, "UC_SEND_MIDDLE", kPayload},
      {OpUcSendLast, "UC_SEND_LAST", kPayload},
      {OpUcSendLastImm, "UC_SEND_LAST_IMM", kImm | kPayload},
      {OpUcSendOnly, "UC_SEND_ONLY", kPayload},
      {OpUcSendOnlyImm, "UC_SEND_ONLY_IMM", kImm | kPayload},
      {OpUcWriteFirst, "UC_WRITE_FIRST", kReth | kPayload},
      {OpUcWriteMiddle, "UC_WRITE_MIDDLE", kPayload},
      {OpUcWriteLast, "UC_WRITE_LAST", kPayload},
      {OpUcWriteLastImm, "UC_WRITE_LAST_IMM", kImm | kPayload},
      {OpUcWriteOnly, "UC_WRITE_ONLY", kReth | kPayload},
      {OpUcWriteOnlyImm, "UC_WRITE_ONLY_IMM", kReth | kImm | kPayload},
      {OpUdSendOnly, "UD_SEND_ONLY", kDeth | kPayload},
      {OpUdSendOnlyImm, "UD_SEND_ONLY_IMM", kDeth | kImm | kPayload},
  };
  return t;
}

inline const OpInfo *op_info(uint8_t op) {
  for (const OpInfo &i : op_table())
    if (i.op == op) return &i;
  return nullptr;
}
inline bool op_known(uint8_t op) { return op_info(op) != nullptr; }
// Every known opcode, in table order.
inline std::vector<uint8_t> known_ops() {
  std::vector<uint8_t> v;
  for (const OpInfo &i : op_table()) v.push_back(i.op);
  return v;
}
inline const char *op_name(uint8_t op) {
  const OpInfo *i = op_info(op);
  return i ? i->name : "UNKNOWN";
}
inline unsigned op_hdrs(uint8_t op) {
  const OpInfo *i = op_info(op);
  return i ? i->hdrs : 0;
}
inline bool op_deth(uint8_t op) { return op_hdrs(op) & kDeth; }
inline bool op_reth(uint8_t op) { return op_hdrs(op) & kReth; }
inline bool op_atomic_eth(uint8_t op) { return op_hdrs(op) & kAtomicEth; }
inline bool op_aeth(uint8_t op) { return op_hdrs(op) & kAeth; }
inline bool op_atomic_ack_eth(uint8_t op) { return op_hdrs(op) & kAtomicAckEth; }
inline bool op_imm(uint8_t op) { return op_hdrs(op) & kImm; }
inline bool op_ieth(uint8_t op) { return op_hdrs(op) & kIeth; }
inline bool op_payload(uint8_t op) { return op_hdrs(op) & kPayload; }
// Bytes of each header, in wire order.
inline const std::vector<std::pair<unsigned, unsigned>> &ext_sizes() {
  static const std::vector<std::pair<unsigned, unsigned>> v = {
      {kDeth, 8}, {kReth, 16}, {kAtomicEth, 28}, {kAeth, 4}, {kAtomicAckEth, 8}, {kImm, 4},
      {kIeth, 4}};
  return v;
}
inline unsigned ext_len(uint8_t op) {
  unsigned n = 0;
  for (auto [h, sz] : ext_sizes())
    if (op_hdrs(op) & h) n += sz;
  return n;
}

inline uint32_t bswap32(uint32_t v) {
  return (v >> 24) | ((v >> 8) & 0xFF00u) | ((v << 8) & 0xFF0000u) | (v << 24);
}

struct Pkt {
  uint64_t dmac = 0, smac = 0;  // 48 bits, first byte on the wire in bits [47:40]
  uint32_t sip = 0, dip = 0;    // first octet in bits [31:24]
  uint8_t tos = 0, ttl = 64;
  uint16_t sport = 0, dport = 4791;
  uint16_t ethertype = 0x0800;
  uint8_t opcode = 0;
  bool se = false, ack_req = false;
  uint8_t tver = 0;
  uint8_t resv8a = 0;
  uint32_t dqpn = 0, psn = 0;
  uint64_t va = 0;               // RETH or AtomicETH
  uint32_t rkey = 0, dlen = 0;   // R_Key: RETH or AtomicETH; DMA length: RETH
  uint32_t imm = 0;              // ImmDt: wire byte i = bits [8i+7:8i]
  uint8_t syn = 0;
  uint32_t msn = 0;
  uint64_t swap_add = 0, cmp = 0;  // AtomicETH
  uint64_t orig = 0;               // AtomicAckETH
  uint32_t inv_rkey = 0;           // IETH, a number (big-endian on the wire)
  uint32_t qkey = 0, src_qp = 0;   // DETH
  uint8_t deth_resv = 0;           // DETH reserved byte (sent as 0)
  std::vector<uint8_t> payload;
};

inline void put_be(std::vector<uint8_t> &f, size_t off, uint64_t v, unsigned n) {
  for (unsigned i = 0; i < n; i++) f[off + i] = (uint8_t)(v >> (8 * (n - 1 - i)));
}

// ICRC over a frame without its ICRC (Ethernet header first).
inline uint32_t icrc_ref(const std::vector<uint8_t> &f) {
  uint32_t c = 0xFFFFFFFFu;
  for (int i = 0; i < 8; i++) c = crc32_step(c, 0xFF);  // masked LRH
  for (size_t p = 14; p < f.size(); p++) {
    const size_t r = p - 14;
    bool masked = r == 1 /*TOS*/ || r == 8 /*TTL*/ || r == 10 || r == 11 /*IP csum*/ || r == 26 ||
                  r == 27 /*UDP csum*/ || r == 32 /*BTH byte 4*/;
    c = crc32_step(c, masked ? 0xFF : f[p]);
  }
  return ~c;
}

inline uint16_t ip_csum(const std::vector<uint8_t> &f, size_t off) {
  uint32_t s = 0;
  for (int i = 0; i < 10; i++) {
    if (i == 5) continue;
    s += (uint32_t)f[off + 2 * i] << 8 | f[off + 2 * i + 1];
  }
  while (s >> 16) s = (s & 0xFFFF) + (s >> 16);
  return (uint16_t)~s;
}

// Builds the frame (no FCS). ICRC appended little-endian after the pad.
inline std::vector<uint8_t> build_frame(const Pkt &k, bool add_icrc = true) {
  const unsigned ext = ext_len(k.opcode);
  const unsigned pad = (4 - (k.payload.size() & 3)) & 3;
  const size_t hdr = 54 + ext;
  std::vector<uint8_t> f(hdr + k.payload.size() + pad, 0);
  const unsigned ip_len = (unsigned)(f.size() + 4 - 14);
  put_be(f, 0, k.dmac, 6);
  put_be(f, 6, k.smac, 6);
  put_be(f, 12, k.ethertype, 2);
  f[14] = 0x45;
  f[15] = k.tos;
  put_be(f, 16, ip_len, 2);
  put_be(f, 18, 0, 2);  // identification
  f[20] = 0x40;         // DF
  f[21] = 0;
  f[22] = k.ttl;
  f[23] = 17;
  put_be(f, 26, k.sip, 4);
  put_be(f, 30, k.dip, 4);
  put_be(f, 24, ip_csum(f, 14), 2);
  put_be(f, 34, k.sport, 2);
  put_be(f, 36, k.dport, 2);
  put_be(f, 38, ip_len - 20, 2);
  put_be(f, 40, 0, 2);
  f[42] = k.opcode;
  f[43] = (uint8_t)((k.se ? 0x80 : 0) | (pad << 4) | (k.tver & 0xF));
  put_be(f, 44, 0xFFFF, 2);
  f[46] = k.resv8a;
  put_be(f, 47, k.dqpn, 3);
  f[50] = k.ack_req ? 0x80 : 0;
  put_be(f, 51, k.psn, 3);
  size_t o = 54;
  if (op_deth(k.opcode)) {
    put_be(f, o, k.qkey, 4);
    f[o + 4] = k.deth_resv;
    put_be(f, o + 5, k.src_qp, 3);
    o += 8;
  }
  if (op_reth(k.opcode)) {
    put_be(f, o, k.va, 8);
    put_be(f, o + 8, k.rkey, 4);
    put_be(f, o + 12, k.dlen, 4);
    o += 16;
  }
  if (op_atomic_eth(k.opcode)) {
    put_be(f, o, k.va, 8);
    put_be(f, o + 8, k.rkey, 4);
    put_be(f, o + 12, k.swap_add, 8);
    put_be(f, o + 20, k.cmp, 8);
    o += 28;
  }
  if (op_aeth(k.opcode)) {
    f[o] = k.syn;
    put_be(f, o + 1, k.msn, 3);
    o += 4;
  }
  if (op_atomic_ack_eth(k.opcode)) {
    put_be(f, o, k.orig, 8);
    o += 8;
  }
  if (op_imm(k.opcode)) {
    for (int i = 0; i < 4; i++) f[o + i] = (uint8_t)(k.imm >> (8 * i));
    o += 4;
  }
  if (op_ieth(k.opcode)) {
    put_be(f, o, k.inv_rkey, 4);
    o += 4;
  }
  std::copy(k.payload.begin(), k.payload.end(), f.begin() + o);
  if (add_icrc) {
    uint32_t c = icrc_ref(f);
    for (int i = 0; i < 4; i++) f.push_back((uint8_t)(c >> (8 * i)));
  }
  return f;
}

// Name of the field at byte offset p of a frame built as above.
inline std::string field_at(size_t p, uint8_t op, size_t pay_len, size_t total) {
  static const struct {
    unsigned lo, hi;
    const char *n;
  } fix[] = {{0, 5, "eth.dst_mac"},
             {6, 11, "eth.src_mac"},
             {12, 13, "eth.type"},
             {14, 14, "ip.ver_ihl"},
             {15, 15, "ip.tos"},
             {16, 17, "ip.total_len"},
             {18, 19, "ip.id"},
             {20, 21, "ip.flags_frag"},
             {22, 22, "ip.ttl"},
             {23, 23, "ip.proto"},
             {24, 25, "ip.csum"},
             {26, 29, "ip.src"},
             {30, 33, "ip.dst"},
             {34, 35, "udp.sport"},
             {36, 37, "udp.dport"},
             {38, 39, "udp.len"},
             {40, 41, "udp.csum"},
             {42, 42, "bth.opcode"},
             {43, 43, "bth.se_m_pad_tver"},
             {44, 45, "bth.pkey"},
             {46, 46, "bth.resv8a"},
             {47, 49, "bth.dqpn"},
             {50, 50, "bth.ackreq"},
             {51, 53, "bth.psn"}};
  for (auto &x : fix)
    if (p >= x.lo && p <= x.hi) return x.n;
  size_t o = 54;
  if (op_deth(op)) {
    if (p < o + 4) return "deth.qkey";
    if (p < o + 5) return "deth.reserved";
    if (p < o + 8) return "deth.src_qp";
    o += 8;
  }
  if (op_reth(op)) {
    if (p < o + 8) return "reth.va";
    if (p < o + 12) return "reth.rkey";
    if (p < o + 16) return "reth.dma_len";
    o += 16;
  }
  if (op_atomic_eth(op)) {
    if (p < o + 8) return "atomiceth.va";
    if (p < o + 12) return "atomiceth.rkey";
    if (p < o + 20) return "atomiceth.swap_add";
    if (p < o + 28) return "atomiceth.compare";
    o += 28;
  }
  if (op_aeth(op)) {
    if (p < o + 4) return "aeth";
    o += 4;
  }
  if (op_atomic_ack_eth(op)) {
    if (p < o + 8) return "atomicacketh.orig";
    o += 8;
  }
  if (op_imm(op)) {
    if (p < o + 4) return "immdt";
    o += 4;
  }
  if (op_ieth(op)) {
    if (p < o + 4) return "ieth.rkey";
    o += 4;
  }
  if (p < o + pay_len) return "payload[" + std::to_string(p - o) + "]";
  if (p + 4 < total) return "pad";
  if (p < total) return "icrc";
  return "beyond end";
}

// Asynchronous active-low reset: a real falling edge of rst_ni (Verilator
// starts every input at 0, so holding it low from the start is not an edge),
// two clock edges inside the reset, release with the clock low.
template <class T>
void reset_dut(T &top) {
  top.clk_i = 0;
  top.rst_ni = 1;
  top.eval();
  top.rst_ni = 0;
  top.eval();
  for (int i = 0; i < 2; i++) {
    top.clk_i = 1;
    top.eval();
    top.clk_i = 0;
    top.eval();
  }
  top.rst_ni = 1;
  top.eval();
}

// One clock cycle (rising then falling edge) of a bench whose inputs change
// with the clock low; counts it in g_cycle.
template <class T>
void clock_cycle(T &top) {
  top.clk_i = 1;
  top.eval();
  top.clk_i = 0;
  top.eval();
  g_cycle++;
}

inline void self_test() {
  uint32_t c = 0xFFFFFFFFu;
  for (const char *s = "123456789"; *s; s++) c = crc32_step(c, (uint8_t)*s);
  if (~c != 0xCBF43926u) {
    std::fprintf(stderr, "CRC self test failed\n");
    std::exit(2);
  }
}

// ---------------------------------------------------------------------------
// QP context (rnic_pkg::qp_cfg_t, 456 bits)
// ---------------------------------------------------------------------------
constexpr unsigned kQpCfgW = 456;
struct QpCfg {
  uint8_t state = 3, qp_type = 2, pmtu = 3, access = 0;
  uint16_t pd = 0, scqn = 0, rcqn = 0;
  uint32_t dest_qpn = 0;
  uint8_t flags = 0;
  uint32_t dest_ip = 0;
  uint64_t dest_mac = 0;
  uint8_t sq_log_size = 0, sq_wqe_shift = 6;
  uint64_t sq_base = 0, rq_base = 0;
  uint8_t rq_log_size = 0, rq_wqe_shift = 0;
  uint32_t sq_psn = 0, rq_psn = 0;
  uint8_t timeout = 0, retry_cnt = 0, rnr_retry = 0, min_rnr_timer = 0;
  uint8_t max_rd_atomic = 0, max_dest_rd_atomic = 0;
  uint16_t udp_sport = 0;
  uint32_t qkey = 0;
  uint16_t srqn = 0;
  uint8_t use_srq = 0;

  void randomize(Rng &r) {  // every field, so a block reading the wrong one shows it
    state = (uint8_t)r.range(0, 7);
    qp_type = (uint8_t)r.range(0, 7);
    pmtu = (uint8_t)r.range(0, 7);
    access = (uint8_t)r.range(0, 15);
    pd = (uint16_t)r.u32();
    scqn = (uint16_t)r.u32();
    rcqn = (uint16_t)r.u32();
    dest_qpn = r.u32() & 0xFFFFFF;
    flags = (uint8_t)r.u32();
    dest_ip = r.u32();
    dest_mac = r.u64() & 0xFFFFFFFFFFFFull;
    sq_log_size = (uint8_t)r.range(0, 31);
    sq_wqe_shift = (uint8_t)r.range(0, 15);
    sq_base = r.u64();
    rq_base = r.u64();
    rq_log_size = (uint8_t)r.range(0, 31);
    rq_wqe_shift = (uint8_t)r.range(0, 15);
    sq_psn = r.u32() & 0xFFFFFF;
    rq_psn = r.u32() & 0xFFFFFF;
    timeout = (uint8_t)r.range(0, 31);
    retry_cnt = (uint8_t)r.range(0, 7);
    rnr_retry = (uint8_t)r.range(0, 7);
    min_rnr_timer = (uint8_t)r.range(0, 31);
    max_rd_atomic = (uint8_t)r.range(0, 15);
    max_dest_rd_atomic = (uint8_t)r.range(0, 15);
    udp_sport = (uint16_t)r.u32();
    qkey = r.u32();
    srqn = (uint16_t)r.u32();
    use_srq = (uint8_t)r.range(0, 1);
  }
  Bits pack() const {
    Packer p(kQpCfgW);
    p.f(3, state)
        .f(3, qp_type)
        .f(3, pmtu)
        .f(4, access)
        .f(16, pd)
        .f(16, scqn)
        .f(16, rcqn)
        .f(24, dest_qpn)
        .f(8, flags)
        .f(32, dest_ip)
        .f(48, dest_mac)
        .f(5, sq_log_size)
        .f(4, sq_wqe_shift)
        .f(64, sq_base)
        .f(64, rq_base)
        .f(5, rq_log_size)
        .f(4, rq_wqe_shift)
        .f(24, sq_psn)
        .f(24, rq_psn)
        .f(5, timeout)
        .f(3, retry_cnt)
        .f(3, rnr_retry)
        .f(5, min_rnr_timer)
        .f(4, max_rd_atomic)
        .f(4, max_dest_rd_atomic)
        .f(16, udp_sport)
        .f(32, qkey)
        .f(16, srqn)
        .f(1, use_srq);
    return p.done();
  }
};

}  // namespace blk
