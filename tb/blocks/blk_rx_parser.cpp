// blk_rnic_rx_parser: rnic_rx_parser alone (compiled for DATAW 64 and 256).
//
// Frames are built by the C++ reference (blk_common.h) for every RC, UC and UD
// opcode the RNIC speaks (with every extension header: RETH, ImmDt, AETH,
// AtomicETH, AtomicAckETH, IETH, DETH), with random values in every header
// field; good ones also with random values in the fields the ICRC masks (TOS,
// TTL, BTH resv8a), bad ones with a corrupted ICRC or covered byte, another IP
// address or UDP port, another EtherType, IP version or protocol, an unknown
// opcode (any code outside the reference's opcode table), a nonzero BTH TVer, a
// truncated frame, a payload above 4096 bytes (some longer than a slot), or an
// IPv4 length too short for the opcode's extension headers (a consistent,
// resealed frame that ends inside them), or an IPv4 total length below 4.
// They are fed with random gaps and a keep mask on the last beat per frame
// length (random data in the lanes past the end). A consumer pops pkt_o with
// random readiness, checks every descriptor field and the payload offset,
// reads the payload back through rd_slot_i/rd_word_i/rd_data_o when it pops
// and again when it releases the slot (random hold times, with phases where
// it holds every slot): checks the bytes, that rx_ready_o is low exactly when
// every slot is held between frames, that no good frame is lost and no bad
// one is delivered, and the two counters. At the end, a sweep of all 256 BTH
// opcodes checks that exactly the ones in the reference's table get through.
#include "Vrnic_rx_parser.h"
#include "blk_common.h"

using namespace blk;

#ifndef DATAW
#define DATAW 256
#endif
constexpr unsigned kBytes = DATAW / 8;
#ifndef NSLOTS
#define NSLOTS 3
#endif
constexpr unsigned kRxDescW = 479;
constexpr unsigned kSlots = NSLOTS;
constexpr unsigned kSlotW = kSlots > 2 ? 2 : 1;
constexpr unsigned kPktW = kRxDescW + 8 + kSlotW;

namespace {

enum Bad {
  kGood,
  kBadIcrc,
  kBadByte,
  kBadIp,
  kBadPort,
  kBadEthType,
  kBadOpcode,
  kBadTver,
  kTruncated,
  kTooLong,
  kBadIpVer,
  kBadProto,
  kShortExt,
  kRuntIpLen,
  kNumKinds
};
const char *kind_name[] = {"good",           "bad ICRC",        "corrupted byte", "other dest IP",
                           "other UDP port", "other EtherType", "unknown opcode", "BTH TVer != 0",
                           "truncated",      "payload > 4096",  "IP version/IHL", "IP protocol",
                           "ext headers cut", "IPv4 length < 4"};

struct Frame {
  Pkt k;
  Bad kind = kGood;
  std::vector<uint8_t> bytes;
};

struct Held {
  unsigned frame;
  unsigned slot;
  uint64_t release_at;
};

}  // namespace

int main(int argc, char **argv) {
  // test name: blk_rnic_<block>, with _w<DATAW> unless the datapath is 256 bits
  static const std::string name =
      std::string("blk_rnic_rx_parser") + (DATAW == 256 ? "" : "_w" + std::to_string(DATAW));
  g_bench = name.c_str();
  self_test();
  VerilatedContext vctx;
  vctx.commandArgs(argc, argv);
  Vrnic_rx_parser top{&vctx};
  Rng r(0x5a4e0000u + DATAW);
  const uint32_t port_ip = 0xc0a80a07;

  const unsigned kFrames = DATAW <= 64 ? 2000 : 3000;
  const std::vector<uint8_t> ops = known_ops();
  std::vector<uint8_t> ops_payload, ops_ext;
  for (uint8_t o : ops) {
    if (op_payload(o)) ops_payload.push_back(o);
    if (ext_len(o)) ops_ext.push_back(o);
  }
  std::vector<Frame> frames;
  unsigned kinds[kNumKinds] = {0};
  unsigned per_op[256] = {0};
  for (unsigned n = 0; n < kFrames; n++) {
    Frame fr;
    Pkt &k = fr.k;
    k.dmac = r.u64() & 0xFFFFFFFFFFFFull;
    k.smac = r.u64() & 0xFFFFFFFFFFFFull;
    k.sip = r.u32();
    k.dip = port_ip;
    k.sport = (uint16_t)r.u32();
    k.opcode = n < 2 * ops.size() ? ops[n % ops.size()] : r.pick(ops);
    k.se = r.chance(0.5);
    k.ack_req = r.chance(0.5);
    k.dqpn = r.u32() & 0xFFFFFF;
    k.psn = r.u32() & 0xFFFFFF;
    k.va = r.u64();
    k.rkey = r.u32();
    k.dlen = r.u32();
    k.imm = r.u32();
    k.syn = (uint8_t)r.u32();
    k.msn = r.u32() & 0xFFFFFF;
    k.swap_add = r.u64();
    k.cmp = r.u64();
    k.orig = r.u64();
    k.inv_rkey = r.u32();
    k.qkey = r.u32();
    k.src_qp = r.u32() & 0xFFFFFF;
    if (r.chance(0.05)) {  // all-ones / all-zeros header fields
      const uint64_t v = r.chance(0.5) ? ~0ull : 0;
      k.va = k.swap_add = k.cmp = k.orig = v;
      k.rkey = k.dlen = k.imm = k.inv_rkey = k.qkey = (uint32_t)v;
      k.src_qp = (uint32_t)v & 0xFFFFFF;
    }
    if (r.chance(0.5)) {  // fields the ICRC masks: must not matter
      k.tos = (uint8_t)r.u32();
      k.ttl = (uint8_t)r.u32();
      k.resv8a = (uint8_t)r.u32();
    }
    // DETH reserved byte: covered by the ICRC, sent as 0, ignored on receipt.
    if (r.chance(0.3)) k.deth_resv = (uint8_t)r.u32();
    uint32_t len = 0;
    if (op_payload(k.opcode)) {
      double x = std::uniform_real_distribution<double>(0, 1)(r.g);
      if (x < 0.2)
        len = (uint32_t)r.range(0, 16);
      else if (x < 0.7)
        len = (uint32_t)r.range(1, 400);
      else if (x < 0.95)
        len = (uint32_t)r.range(400, 2048);
      else
        len = (uint32_t)r.range(2048, 4096);
      if (r.chance(0.02)) len = 4096;
    }
    fr.kind = (n < 2 * ops.size() || r.chance(0.78)) ? kGood : (Bad)r.range(1, kNumKinds - 1);
    switch (fr.kind) {
      case kBadIp:
        k.dip = port_ip ^ (1u << r.range(0, 31));
        break;
      case kBadPort:
        k.dport = r.chance(0.5) ? 4790 : (uint16_t)r.range(0, 4790);
        break;
      case kBadEthType:
        k.ethertype = r.chance(0.5) ? 0x86DD : 0x8915;
        break;
      case kBadOpcode:
        // Codes the RNIC does not speak (RC 0x15, 0x18-0x1f, UC 0x2c-0x3f,
        // RD, UD other than 0x64/0x65, CNP, vendor): half of them next to
        // a known code of the same transport, where a decoder on the low
        // five bits alone would take them.
        do {
          k.opcode = r.chance(0.5) ? (uint8_t)r.range(0, 0xFF)
                                   : (uint8_t)(r.pick(ops) ^ (uint8_t)(1u << r.range(0, 4)));
        } while (op_known(k.opcode));
        break;
      case kBadTver:
        k.tver = (uint8_t)r.range(1, 15);
        break;
      case kTooLong:
        k.opcode = r.pick(ops_payload);
        len = r.chance(0.5) ? (uint32_t)r.range(4097, 4100) : (uint32_t)r.range(4101, 4600);
        break;
      default:
        break;
    }
    for (uint32_t i = 0; i < len; i++) k.payload.push_back((uint8_t)r.u32());
    fr.bytes = build_frame(k);
    std::vector<uint8_t> &b = fr.bytes;
    switch (fr.kind) {
      case kBadIcrc:
        b[b.size() - 1 - r.range(0, 3)] ^= (uint8_t)(1u << r.range(0, 7));
        break;
      case kBadByte: {
        size_t p;
        do p = r.range(14, b.size() - 5);
        while (p == 15 || p == 22 || p == 24 || p == 25 || p == 40 || p == 41 || p == 46);
        b[p] ^= (uint8_t)r.range(1, 255);
        break;
      }
      case kTruncated:
        b.resize(b.size() - r.range(1, 3));
        break;
      case kShortExt: {
        // Headers the opcode has, cut inside: IPv4/UDP lengths, checksum and
        // ICRC made consistent with the shorter frame, no payload, no pad.
        k.opcode = r.pick(ops_ext);
        k.payload.clear();
        b = build_frame(k, false);
        b.resize(54 + r.range(0, ext_len(k.opcode) - 1));
        const unsigned ip_len = (unsigned)(b.size() + 4 - 14);
        put_be(b, 16, ip_len, 2);
        put_be(b, 38, ip_len - 20, 2);
        put_be(b, 24, ip_csum(b, 14), 2);
        uint32_t c = icrc_ref(b);
        for (int i = 0; i < 4; i++) b.push_back((uint8_t)(c >> (8 * i)));
        break;
      }
      case kRuntIpLen: {
        // An IPv4 total length of 0..3, below the 4 bytes the ICRC check
        // reads before the length is known; re-sealed, so only the length
        // disagrees with the frame.
        b.resize(b.size() - 4);
        put_be(b, 16, r.range(0, 3), 2);
        put_be(b, 24, ip_csum(b, 14), 2);
        uint32_t c = icrc_ref(b);
        for (int i = 0; i < 4; i++) b.push_back((uint8_t)(c >> (8 * i)));
        break;
      }
      case kBadIpVer:
      case kBadProto: {
        b.resize(b.size() - 4);  // re-seal: only this check may fail
        if (fr.kind == kBadIpVer)
          b[14] = r.chance(0.5) ? 0x46 : 0x65;
        else
          b[23] = r.chance(0.5) ? 6 : 1;
        put_be(b, 24, ip_csum(b, 14), 2);
        uint32_t c = icrc_ref(b);
        for (int i = 0; i < 4; i++) b.push_back((uint8_t)(c >> (8 * i)));
        break;
      }
      default:
        break;
    }
    kinds[fr.kind]++;
    if (fr.kind == kGood) per_op[k.opcode]++;
    frames.push_back(std::move(fr));
  }

  top.port_ip_i = port_ip;
  top.rx_valid_i = 0;
  top.pkt_ready_i = 0;
  top.release_i = 0;
  top.cpl_release_i = 0;
  reset_dut(top);

  // Feeder state
  unsigned cur = 0, beat = 0;
  bool in_frame = false;  // first beat taken, last not yet
  bool offered = false;
  // Checker state
  std::deque<unsigned> exp_good;  // good frames fully received, pkt not yet popped
  std::vector<Held> held;         // popped, slot not released yet
  unsigned busy_slots = 0;        // slots the parser must consider taken
  unsigned done = 0, dropped = 0, delivered = 0;
  uint64_t bp_cycles = 0, last_progress = 0;
  double p_valid = 0.9, p_pkt = 0.8;
  unsigned hold_max = 30;
  bool stall = false;
  std::vector<uint8_t> lanes(kBytes), two(2 * kBytes);

  // Reads len bytes at frame offset off of slot through the read port.
  auto read_back = [&](unsigned slot, unsigned off, unsigned len, std::vector<uint8_t> &out) {
    out.clear();
    if (!len) return;
    unsigned w0 = off / kBytes, w1 = (off + len - 1) / kBytes;
    std::vector<uint8_t> prev_hi;
    for (unsigned w = w0; w <= w1 + 1; w++) {
      top.rd_slot_i = slot;
      top.rd_word_i = w;
      top.eval();
      vget_bytes(top.rd_data_o, two.data());
      std::vector<uint8_t> lo(two.begin(), two.begin() + kBytes);
      if (!prev_hi.empty())
        BLK_CHECK(prev_hi == lo,
                  "rd_data_o: upper word at rd_word_i=%u differs from lower word "
                  "at rd_word_i=%u (slot %u)",
                  w - 1, w, slot);
      prev_hi.assign(two.begin() + kBytes, two.end());
      if (w <= w1)
        for (unsigned i = 0; i < kBytes; i++) {
          unsigned p = w * kBytes + i;
          if (p >= off && p < off + len) out.push_back(lo[i]);
        }
    }
  };
  auto check_payload = [&](unsigned fi, unsigned slot, const char *when) {
    const Frame &f = frames[fi];
    std::vector<uint8_t> got;
    unsigned off = 54 + ext_len(f.k.opcode);
    read_back(slot, off, (unsigned)f.k.payload.size(), got);
    if (got != f.k.payload) {
      size_t i = 0;
      while (i < got.size() && i < f.k.payload.size() && got[i] == f.k.payload[i]) i++;
      fail(
          "frame %u (%s, %zu payload bytes, slot %u): payload read %s differs at byte %zu "
          "(got 0x%02x, expected 0x%02x)",
          fi, op_name(f.k.opcode), f.k.payload.size(), slot, when, i, i < got.size() ? got[i] : 0,
          i < f.k.payload.size() ? f.k.payload[i] : 0);
    }
  };

  const uint64_t kMaxCycles = 3000000;
  for (g_cycle = 0; g_cycle < kMaxCycles; g_cycle++) {
    if (cur >= kFrames && exp_good.empty() && held.empty()) break;
    if (g_cycle - last_progress > 5000) {
      fail("no progress for 5000 cycles: frame %u of %u, %zu parsed packets waiting, %zu held", cur,
           kFrames, exp_good.size(), held.size());
      break;
    }
    // Phases: normal, slow consumer that holds every slot, fast everything.
    const unsigned ph = (unsigned)(g_cycle / 3000) % 4;
    p_valid = ph == 2 ? 1.0 : 0.85;
    p_pkt = ph == 1 ? 0.05 : (ph == 2 ? 1.0 : 0.7);
    hold_max = ph == 1 ? 400 : (ph == 2 ? 2 : 40);
    stall = ph == 1 && (g_cycle % 3000) < 1500;

    top.clk_i = 0;
    // ---- feeder
    // valid stays up until the beat is taken
    if (!offered) offered = cur < kFrames && (in_frame ? r.chance(p_valid) : r.chance(0.7));
    const bool offer = offered;
    top.rx_valid_i = offer;
    bool last = false;
    if (offer) {
      const std::vector<uint8_t> &b = frames[cur].bytes;
      uint64_t keep = 0;
      for (unsigned i = 0; i < kBytes; i++) {
        size_t p = (size_t)beat * kBytes + i;
        lanes[i] = p < b.size() ? b[p] : (uint8_t)r.u32();
        if (p < b.size()) keep |= 1ull << i;
      }
      last = (size_t)(beat + 1) * kBytes >= b.size();
      vset_bytes(top.rx_data_i, lanes.data());
      top.rx_keep_i = keep;
      top.rx_last_i = last;
    }
    // ---- consumer: release a held slot whose time has come (one per cycle)
    top.release_i = 0;
    int rel = -1;
    for (size_t i = 0; i < held.size(); i++)
      if (held[i].release_at <= g_cycle && !stall) {
        rel = (int)i;
        break;
      }
    if (rel >= 0) {
      check_payload(held[rel].frame, held[rel].slot, "at release");
      top.release_i = 1;
      top.release_slot_i = held[rel].slot;
    }
    top.pkt_ready_i = !stall && r.chance(p_pkt);
    top.eval();

    // ---- checks before the edge
    const bool exp_ready = in_frame || busy_slots < kSlots;
    BLK_CHECK(top.rx_ready_o == exp_ready, "rx_ready_o=%d, expected %d (%s, %u slot(s) taken)",
              top.rx_ready_o, exp_ready, in_frame ? "inside a frame" : "between frames",
              busy_slots);
    BLK_CHECK(top.cnt_rx_pkts_o == done && top.cnt_rx_drop_o == dropped,
              "counters rx_pkts=%llu rx_drop=%llu, expected %u/%u",
              (unsigned long long)top.cnt_rx_pkts_o, (unsigned long long)top.cnt_rx_drop_o, done,
              dropped);
    BLK_CHECK(top.pkt_valid_o == !exp_good.empty(), "pkt_valid_o=%d with %zu packets expected",
              top.pkt_valid_o, exp_good.size());
    const bool take = top.rx_valid_i && top.rx_ready_o;
    if (top.rx_valid_i && !top.rx_ready_o) bp_cycles++;
    const bool pop = top.pkt_valid_o && top.pkt_ready_i;
    unsigned pop_slot = 0;
    if (pop && !exp_good.empty()) {
      const unsigned fi = exp_good.front();
      const Pkt &k = frames[fi].k;
      Bits pk = vget(top.pkt_o, kPktW);
      Unpacker u(pk);
      pop_slot = (unsigned)u.f(kSlotW);
      const unsigned off = (unsigned)u.f(8);
      struct F {
        const char *n;
        uint64_t got, exp;
      } fl[] = {
          {"pay_off", off, 54u + ext_len(k.opcode)},
          {"dqpn", u.f(24), k.dqpn},
          {"opcode", u.f(8), k.opcode},
          {"psn", u.f(24), k.psn},
          {"ack_req", u.f(1), k.ack_req},
          {"se", u.f(1), k.se},
          {"pay_len", u.f(13), k.payload.size()},
          // AtomicETH: its VA and R_Key in the RETH fields, length 8 (the
          // bytes the atomic touches).
          {"reth_va", u.f(64), op_reth(k.opcode) || op_atomic_eth(k.opcode) ? k.va : 0},
          {"reth_rkey", u.f(32), op_reth(k.opcode) || op_atomic_eth(k.opcode) ? k.rkey : 0},
          {"reth_len", u.f(32), op_reth(k.opcode) ? k.dlen : (op_atomic_eth(k.opcode) ? 8u : 0u)},
          // ImmDt and IETH: the wire bytes, byte i in bits [8i+7:8i].
          {"imm", u.f(32),
           op_imm(k.opcode) ? k.imm : (op_ieth(k.opcode) ? bswap32(k.inv_rkey) : 0u)},
          {"aeth_syn", u.f(8), op_aeth(k.opcode) ? k.syn : 0u},
          {"aeth_msn", u.f(24), op_aeth(k.opcode) ? k.msn : 0},
          {"src_ip", u.f(32), k.sip},
          {"atomic_swap", u.f(64),
           op_atomic_eth(k.opcode) ? k.swap_add : (op_atomic_ack_eth(k.opcode) ? k.orig : 0)},
          {"atomic_cmp", u.f(64), op_atomic_eth(k.opcode) ? k.cmp : 0},
          {"qkey", u.f(32), op_deth(k.opcode) ? k.qkey : 0},
          {"src_qp", u.f(24), op_deth(k.opcode) ? k.src_qp : 0},
      };
      for (auto &x : fl)
        BLK_CHECK(x.got == x.exp,
                  "frame %u (%s, %zu payload bytes): pkt_o.%s = 0x%llx, expected 0x%llx", fi,
                  op_name(k.opcode), k.payload.size(), x.n, (unsigned long long)x.got,
                  (unsigned long long)x.exp);
      for (const Held &h : held)
        BLK_CHECK(h.slot != pop_slot, "frame %u delivered in slot %u, which frame %u still holds",
                  fi, pop_slot, h.frame);
      check_payload(fi, pop_slot, "at pop");
    }

    top.clk_i = 1;
    top.eval();

    // ---- models after the edge
    if (take) {
      offered = false;
      last_progress = g_cycle;
      if (last) {
        const Frame &f = frames[cur];
        done++;
        if (f.kind == kGood) {
          exp_good.push_back(cur);
          busy_slots++;
        } else {
          dropped++;
        }
        cur++;
        beat = 0;
        in_frame = false;
      } else {
        beat++;
        in_frame = true;
      }
    }
    if (pop && !exp_good.empty()) {
      held.push_back({exp_good.front(), pop_slot, g_cycle + r.range(0, hold_max)});
      exp_good.pop_front();
      delivered++;
      last_progress = g_cycle;
    }
    if (rel >= 0) {
      held.erase(held.begin() + rel);
      busy_slots--;
      last_progress = g_cycle;
    }
  }
  BLK_CHECK(cur == kFrames && exp_good.empty() && held.empty(),
            "end: %u of %u frames fed, %zu packets not delivered", cur, kFrames, exp_good.size());
  BLK_CHECK(bp_cycles > 100, "back-pressure never exercised (%llu cycles)",
            (unsigned long long)bp_cycles);
  // Informational probes (no pass/fail: policy questions for the report).
  auto probe = [&](const std::vector<uint8_t> &b) {
    bool got = false;
    size_t bt = 0;
    for (unsigned c = 0; c < 400; c++, g_cycle++) {
      top.clk_i = 0;
      const bool feed = bt * kBytes < b.size();
      top.rx_valid_i = feed;
      if (feed) {
        uint64_t keep = 0;
        for (unsigned i = 0; i < kBytes; i++) {
          size_t p = bt * kBytes + i;
          lanes[i] = p < b.size() ? b[p] : 0;
          if (p < b.size()) keep |= 1ull << i;
        }
        vset_bytes(top.rx_data_i, lanes.data());
        top.rx_keep_i = keep;
        top.rx_last_i = (bt + 1) * kBytes >= b.size();
      }
      top.pkt_ready_i = 1;
      top.release_i = 0;
      top.eval();
      if (top.pkt_valid_o) {
        got = true;
        top.release_i = 1;
        top.release_slot_i = (uint8_t)vget(top.pkt_o, kPktW).get(kPktW - kSlotW, kSlotW);
        top.eval();
      }
      if (feed && top.rx_ready_o) bt++;
      top.clk_i = 1;
      top.eval();
    }
    return got;
  };
  {
    Pkt k;
    k.dip = port_ip;
    k.opcode = OpSendOnly;  // zero-length SEND: 58-byte frame
    std::vector<uint8_t> f = build_frame(k);
    const bool ok58 = probe(f);
    f.resize(60, 0);  // what an Ethernet MAC puts on the wire
    BLK_CHECK(ok58, "zero-length SEND_ONLY frame (58 bytes) dropped");
    if (ok58 && !probe(f))
      info(
          "note: a zero-length SEND_ONLY frame (58 bytes) padded to the Ethernet minimum of 60 "
          "bytes is dropped: the parser requires frame length == IPv4 total length + 14");
    Pkt k2;
    k2.dip = port_ip;
    k2.opcode = OpSendOnly;
    k2.payload.assign(40, 0x5a);
    std::vector<uint8_t> f2 = build_frame(k2);
    f2[24] ^= 0x55;  // IPv4 header checksum wrong (not covered by the ICRC)
    if (probe(f2))
      info(
          "note: a frame with a wrong IPv4 header checksum is accepted (the checksum is not "
          "verified; the ICRC masks it)");
  }
  // Every one of the 256 BTH opcodes once, in a frame that is good in every
  // other respect: delivered exactly when the reference's table knows it.
  unsigned known_seen = 0;
  for (unsigned o = 0; o < 256; o++) {
    Pkt k;
    k.dip = port_ip;
    k.opcode = (uint8_t)o;
    k.dqpn = r.u32() & 0xFFFFFF;
    if (op_payload(k.opcode) || !op_known(k.opcode)) k.payload.assign(r.range(0, 9), 0xa5);
    const bool got = probe(build_frame(k));
    known_seen += got;
    BLK_CHECK(got == op_known(k.opcode), "opcode 0x%02x (%s): frame %s", o, op_name(k.opcode),
              got ? "delivered, but the opcode is not one the RNIC speaks" : "dropped");
  }
  BLK_CHECK(known_seen == ops.size(), "%u of %zu known opcodes delivered in the sweep", known_seen,
            ops.size());

  std::string ks, os;
  for (unsigned i = 0; i < kNumKinds; i++) {
    ks += std::string(i ? ", " : "") + kind_name[i] + " " + std::to_string(kinds[i]);
    BLK_CHECK(kinds[i] > 0, "no frame of class %s", kind_name[i]);
  }
  for (uint8_t o : ops) {
    char b[16];
    std::snprintf(b, sizeof b, "%s%02x:%u", os.empty() ? "" : " ", o, per_op[o]);
    os += b;
    BLK_CHECK(per_op[o] >= 10, "opcode 0x%02x (%s): only %u good frames", o, op_name(o),
              per_op[o]);
  }
  info(
      "%u frames (%s); %u delivered, %u dropped; %llu cycles of rx back-pressure; good frames "
      "per opcode %s",
      done, ks.c_str(), delivered, dropped, (unsigned long long)bp_cycles, os.c_str());
  top.final();
  return finish(vctx);
}
