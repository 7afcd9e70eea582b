// blk_rnic_tx_builder: rnic_tx_builder alone, checked against a model built
// for the parameters the bench is compiled with (DATAW, RING_BYTES, NFRAMES,
// LANE: the model's DataW, RingBytes, NFrames, LaneFrames; CMake passes both
// alike): DataW 256 and 64, one frame at a time, an 8 KiB ring, each with
// the side lane of 4 frames, and DataW 256 without the lane (LaneFrames 0:
// frames in descriptor order).
//
// Descriptors (rnic_pkg::txd_t packed by hand, MSB first) for every RC, UC and
// UD opcode the RNIC speaks (SEND/WRITE/READ/responses/ACK, atomics and the
// atomic ACK, SEND with invalidate, UD SEND with DETH), with random values in
// every field, also those the opcode does not use (the PSN drawn distinct per
// descriptor, so no two frames are alike); ud_en (mostly on UD opcodes,
// sometimes on others) takes the destination MAC/IP/QPN from the descriptor
// instead of the QP context. Four QPNs take most descriptors, twelve more the
// rest, so frames of one QP and direction meet in the ring. Descriptors come
// in phases of 200: mixed; mostly frames for the lane (RC without payload
// reads: ACK, atomic ACK, READ request, atomic requests, zero-length RC
// SEND/WRITE/READ response); bulk payload (fills the ring); mixed with more
// lane frames. After 3 % of the takes the producer waits until the ring and
// the lane are empty, so frames also meet an empty ring. Payload is gathered
// from up to four chunks at random byte addresses and lengths; the payload
// DMA reads are answered in order from a C++ memory with random latency, beat
// stalls and occasional error responses (zero data, err on every beat); the
// QP context (dest MAC/IP/QPN, UDP source port) is given on ctx_i for
// ctx_idx_o in the same cycle. BLK_SEED=<n> replaces the fixed seed,
// BLK_TRACE=1 prints every handshake.
//
// Intake and the lane (notes/lane-spec.md), modelled exactly: the model holds
// the descriptors in the ring (taken, last beat not yet sent or dropped, with
// their words: the frame's bytes with pad and ICRC, rounded up to words) and
// those in the lane. A descriptor is lane-eligible when LANE > 0, it is RC
// (opcode[7:5] = 0) and has no payload chunks; it goes to the lane when, in
// the cycle it is taken, the ring holds a frame, none of the ring's frames
// has its QPN and direction (rnic_pkg::op_is_response) and the lane holds
// fewer than LANE frames (state at the start of the cycle: a frame leaving in
// it still counts). In every cycle a descriptor is offered, txd_ready_o must
// be exactly intake_idle_o && (ring room || lane), room being fewer than
// NFRAMES frames and the words free (RING_BYTES rounded up to a power of two
// words): a lane-eligible descriptor is taken while the ring is full when the
// lane admits it, nothing is taken that fits neither. quiet_o must be exactly
// intake idle with ring and lane empty.
//
// Emission, modelled exactly at each frame boundary (no frame offered and
// unfinished). The lane head is ready from the cycle after intake wrote its
// last header word (one word a cycle from the cycle after the take). The ring
// head is ready, as before, kEmitLat cycles after the last beat of its last
// payload read and from the cycle after the ring frame before it left or was
// dropped; a ring frame without reads at the latest 3 cycles after intake's
// last header word and 2 cycles after the ring frame before it (maybe
// earlier: the bench accepts either there); a UC/UD message's last frame and
// a failed request only while noack_ready_i is high. A ring frame or drop
// never goes before an older lane frame; with the ring head older, the lane
// goes if the last frame sent was a ring frame (or a drop: it takes the
// ring's turn; the start counts as after a ring frame), the ring if it was a
// lane frame; if only one is ready, it goes. What must go goes in that cycle
// (a frame offered, a failed frame dropped); what may not go does not. The
// frame offered is identified among the two heads by what it shows (a
// candidate is ruled out at its first difference: a byte, keep, last,
// tx_valid_o, an event, noack): exactly one must remain, one that was allowed
// to go, and it leaves from the head of its queue. So frames of one (QPN,
// direction) leave in descriptor order, a frame that is not lane-eligible
// never leaves before an older pending frame, and a lane frame passes only
// frames of other (QPN, direction) pairs; these three are also checked as
// such when a frame is identified. With LANE 0 every descriptor goes to the
// ring: strict descriptor order.
//
// Every frame on the wire is compared byte for byte, beat by beat, with the
// frame the C++ reference builds from the IBA field values (headers, IPv4
// checksum, pad, ICRC), also while it waits (data/keep/last stable); keep and
// last, the trace events on its first beat (ev_first_o/ev_last_o with
// ev_qpn_o/ev_idx_o, never elsewhere) and the counters (cnt_pkts_o: frames
// sent; cnt_rd_err_o: failed reads) are checked.
//
// Failed reads: a descriptor with any failed payload read gives no frame (no
// beat, no ev_first_o/ev_last_o, not counted). It is dropped at the first
// frame boundary, from the cycle it is ready (above), where the ring goes:
// with the lane empty that is exactly as before (kEmitLat cycles after its
// last read beat, or the cycle after the frame before it left or was
// dropped); a lane frame on the wire or the lane's turn delays it. A request
// (any transport) is reported then: noack_valid_o with noack_err_o=1 and its
// QPN/WQE index on ev_qpn_o/ev_idx_o, waiting for noack_ready_i like a UC/UD
// last frame; a READ response is dropped silently (the model drops it in the
// cycle the rules give; what follows shows whether the RTL did). A failed
// frame is never offered and no ring frame passes it. The last descriptor's
// reads never fail.
//
// No-ACK completions: noack_ready_i is driven at random (seeded, with phases
// and long low stretches). A UC/UD message's last frame (ring only) is not
// offered first while noack_ready_i is low; once offered, its tx_valid_o
// follows noack_ready_i until its first beat is taken (the choice holds:
// nothing else goes in between), and noack_valid_o (noack_err_o=0) must pulse
// exactly in the cycle its first beat is taken, with its QPN and WQE index on
// ev_qpn_o/ev_idx_o: once per such descriptor, in descriptor order with the
// failed-request reports, never for RC or lane frames or other beats, never
// while noack_ready_i is low. Any other frame, once offered, stays offered
// whatever noack_ready_i does; tx_valid_o never drops inside a frame.
//
// At the end the bench prints the lane's figures: descriptors through the
// lane (and of those taken while the ring had no room), lane frames that
// passed older frames, lane-eligible descriptors the lane refused and why,
// the turns at boundaries where both heads were ready. With LANE > 0 it
// fails unless the lane was used, a lane frame passed an older frame, a
// descriptor went to the lane with no ring room, the lane refused one for
// each reason, one met an empty ring, the ring took its turn, and (with more
// than one ring frame) the lane took its turn and a due drop waited for the
// lane.
#include <set>

#include "Vrnic_tx_builder.h"
#include "blk_common.h"

using namespace blk;

#ifndef DATAW
#define DATAW 256
#endif
#ifndef LANE
#define LANE 4
#endif
#ifndef NFRAMES
#define NFRAMES 11
#endif
#ifndef RING_BYTES
#define RING_BYTES 16384
#endif
constexpr unsigned kBytes = DATAW / 8;
constexpr unsigned kTxdW = 857;
constexpr unsigned kLane = LANE;        // rnic_tx_builder's LaneFrames
constexpr unsigned kNFrames = NFRAMES;  // NFrames
// RingBytes in words, rounded up to a power of two (as the RTL sizes it).
constexpr unsigned ring_words_of(unsigned words) {
  unsigned p = 1;
  while (p < words) p <<= 1;
  return p;
}
constexpr unsigned kRingWords = ring_words_of(RING_BYTES / kBytes);
// A frame reaches the head of the emitter this many cycles after the last
// beat of its last payload read was taken (assembly done, emit queue).
constexpr uint64_t kEmitLat = 2;
// per payload read; higher for READ responses (dropped silently: the model
// must find the cycle)
constexpr double kRdErrChance = 0.02, kRdErrChanceRsp = 0.05;

namespace {

struct Chunk {
  uint64_t addr = 0;
  uint32_t len = 0;
  bool err = false;  // decided when the read is accepted
};

struct Txd {
  uint32_t qpn = 0;
  uint8_t op = 0;
  uint32_t psn = 0;
  bool ack = false, se = false;
  uint32_t pay_len = 0;
  uint64_t va = 0;
  uint32_t rkey = 0, rlen = 0, imm = 0;
  uint8_t syn = 0;
  uint32_t msn = 0;
  std::vector<Chunk> chunks;
  bool evf = false, evl = false;
  uint16_t idx = 0;
  Bits junk_addr, junk_len;  // contents of the unused chunk entries
  uint64_t atomic_swap = 0, atomic_cmp = 0;
  uint32_t qkey = 0;
  bool ud_en = false;
  uint32_t ud_dqpn = 0, ud_dip = 0;
  uint64_t ud_dmac = 0;
};

Bits pack_txd(const Txd &t) {
  Bits ca = t.junk_addr, cl = t.junk_len;
  for (size_t i = 0; i < t.chunks.size(); i++) {
    ca.set(64 * (unsigned)i, 64, t.chunks[i].addr);
    cl.set(13 * (unsigned)i, 13, t.chunks[i].len);
  }
  Packer p(kTxdW);
  p.f(24, t.qpn)
      .f(8, t.op)
      .f(24, t.psn)
      .f(1, t.ack)
      .f(1, t.se)
      .f(13, t.pay_len)
      .f(64, t.va)
      .f(32, t.rkey)
      .f(32, t.rlen)
      .f(32, t.imm)
      .f(8, t.syn)
      .f(24, t.msn)
      .f(3, t.chunks.size())
      .fb(ca)
      .fb(cl)
      .f(1, t.evf)
      .f(1, t.evl)
      .f(16, t.idx)
      .f(64, t.atomic_swap)
      .f(64, t.atomic_cmp)
      .f(32, t.qkey)
      .f(1, t.ud_en)
      .f(24, t.ud_dqpn)
      .f(32, t.ud_dip)
      .f(48, t.ud_dmac);
  return p.done();
}

// The last frame of a UC/UD message: its send WQE completes when it starts on
// the wire (no ACK will come), through the noack handshake.
bool noack_frame(const Txd &t) { return (t.op >> 5) != 0 && t.evl; }

// rnic_pkg::op_is_response: READ responses, ACK, atomic ACK.
bool op_response(uint8_t op) { return op >= OpReadRespFirst && op <= OpAtomicAck; }

// The frame may take the side lane: RC, no payload reads.
bool lane_eligible(const Txd &t) { return kLane > 0 && (t.op >> 5) == 0 && t.chunks.empty(); }

// Same QP and direction: such frames keep their order.
bool same_key(const Txd &a, const Txd &b) {
  return a.qpn == b.qpn && op_response(a.op) == op_response(b.op);
}

// A payload read of the descriptor failed (known once the read is issued).
bool failed(const Txd &t) {
  for (const Chunk &c : t.chunks)
    if (c.err) return true;
  return false;
}

uint8_t mem_at(uint64_t a) {
  uint64_t x = a * 0x9E3779B97F4A7C15ull;
  x ^= x >> 29;
  return (uint8_t)((x >> 17) ^ a);
}

std::string fmt(const char *f, ...) __attribute__((format(printf, 1, 2)));
std::string fmt(const char *f, ...) {
  char b[512];
  va_list ap;
  va_start(ap, f);
  std::vsnprintf(b, sizeof b, f, ap);
  va_end(ap);
  return b;
}

struct RdJob {
  unsigned ti;  // descriptor
  uint64_t addr;
  uint32_t len;
  bool err;
  uint64_t ready_at;
};

// A frame on the wire is one of the two heads (ring, lane) until what it
// shows rules one out.
struct Cand {
  unsigned ti = 0;
  bool lane = false;
  bool alive = true;
  bool legal = true;         // the emission rules let it go at its boundary
  std::string illegal, out;  // why it may not go; why it is ruled out
};

enum Kind { kRingFrame, kLaneFrame };
// A head's readiness at a frame boundary (the ring's frames without reads
// may be ready earlier than the bench can tell: maybe).
enum Ready { kNot, kMaybe, kSure };

}  // namespace

int main(int argc, char **argv) {
  // test name: blk_rnic_<block>, with _w<DATAW> unless the datapath is 256
  // bits, _f<NFRAMES>, _r<RING_BYTES/1024>k and _nolane / _l<LANE> unless
  // the defaults
  static const std::string name =
      std::string("blk_rnic_tx_builder") + (DATAW == 256 ? "" : "_w" + std::to_string(DATAW)) +
      (NFRAMES == 11 ? "" : "_f" + std::to_string(NFRAMES)) +
      (RING_BYTES == 16384 ? "" : "_r" + std::to_string(RING_BYTES / 1024) + "k") +
      (LANE == 4   ? ""
       : LANE == 0 ? "_nolane"
                   : "_l" + std::to_string(LANE));
  g_bench = name.c_str();
  self_test();
  VerilatedContext vctx;
  vctx.commandArgs(argc, argv);
  Vrnic_tx_builder top{&vctx};
  const char *seed_env = std::getenv("BLK_SEED");
  const uint64_t seed = seed_env ? std::strtoull(seed_env, nullptr, 0) : 0x7b1d0000u + DATAW;
  Rng r(seed);
  const bool trace = std::getenv("BLK_TRACE") != nullptr;

  const uint64_t port_mac = 0x02a1b2c3d4e5ull;
  const uint32_t port_ip = 0x0a000105;
  // Four hot QPNs (one of them 0xFFFFFF) and twelve others, all distinct.
  std::map<uint32_t, QpCfg> qps;
  std::vector<uint32_t> hot, cold;
  for (int i = 0; i < 16; i++) {
    uint32_t q;
    do q = (i == 0) ? 0xFFFFFF : (uint32_t)r.range(1, 0xFFFFFE);
    while (qps.count(q));
    QpCfg c;
    c.randomize(r);
    qps[q] = c;
    (i < 4 ? hot : cold).push_back(q);
  }

  const unsigned kTxds = DATAW <= 64 ? 1500 : 2500;
  const std::vector<uint8_t> op_list = known_ops();
  // Frames for the lane: RC opcodes without payload, and RC opcodes with
  // payload sent with none.
  const std::vector<uint8_t> lane_ops = {OpAck, OpReadReq, OpAtomicAck, OpCmpSwap, OpFetchAdd};
  std::vector<uint8_t> rc_pay_ops;
  for (uint8_t o : op_list)
    if ((o >> 5) == 0 && op_payload(o)) rc_pay_ops.push_back(o);
  std::set<uint32_t> psns;

  auto gen = [&](unsigned n) {
    // phases of 200 descriptors: share of frames for the lane, bulk payload
    static const double kLaneShare[4] = {0.25, 0.6, 0.12, 0.7};
    const unsigned phase = (n / 200) % 4;
    const bool bulk = phase >= 2;
    Txd t;
    t.qpn = r.chance(0.7) ? r.pick(hot) : r.pick(cold);
    bool zero = false;
    if (n < 2 * op_list.size()) {
      t.op = op_list[n % op_list.size()];
    } else if (r.chance(kLaneShare[phase])) {
      if (r.chance(0.75)) {
        t.op = r.pick(lane_ops);
      } else {
        t.op = r.pick(rc_pay_ops);
        zero = true;
      }
    } else {
      t.op = r.pick(op_list);
    }
    do t.psn = r.u32() & 0xFFFFFF;
    while (!psns.insert(t.psn).second);
    t.ack = r.chance(0.5);
    t.se = r.chance(0.5);
    t.va = r.u64();
    t.rkey = r.u32();
    t.rlen = r.u32();
    t.imm = r.u32();
    t.syn = (uint8_t)r.u32();
    t.msn = r.u32() & 0xFFFFFF;
    t.evf = r.chance(0.5);
    t.evl = r.chance(0.5);
    t.idx = (uint16_t)r.u32();
    t.atomic_swap = r.u64();
    t.atomic_cmp = r.u64();
    t.qkey = r.u32();
    t.ud_en = r.chance(op_deth(t.op) ? 0.9 : 0.1);
    t.ud_dqpn = r.u32() & 0xFFFFFF;
    t.ud_dip = r.u32();
    t.ud_dmac = r.u64() & 0xFFFFFFFFFFFFull;
    if (r.chance(0.05)) {  // all-ones / all-zeros operands
      const uint64_t v = r.chance(0.5) ? ~0ull : 0;
      t.va = t.atomic_swap = t.atomic_cmp = v;
      t.qkey = t.rkey = t.imm = (uint32_t)v;
    }
    t.junk_addr = Bits(256);
    t.junk_len = Bits(52);
    for (unsigned i = 0; i < 256; i += 64) t.junk_addr.set(i, 64, r.u64());
    t.junk_len.set(0, 52, r.u64());
    uint32_t len = 0;
    if (op_payload(t.op) && !zero) {
      double x = std::uniform_real_distribution<double>(0, 1)(r.g);
      if (bulk) x = 0.5 + x / 2;
      if (n < op_list.size())
        len = (uint32_t)r.range(1, 3 * kBytes + 3);  // first pass: small
      else if (x < 0.15)
        len = (uint32_t)r.range(0, 16);
      else if (x < 0.65)
        len = (uint32_t)r.range(1, 300);
      else if (x < 0.92)
        len = (uint32_t)r.range(300, 1500);
      else
        len = (uint32_t)r.range(1500, 4096);
      if (r.chance(0.03)) len = 4096;
    }
    t.pay_len = len;
    if (len) {
      unsigned nc = (unsigned)r.range(1, std::min<uint32_t>(4, len));
      std::vector<uint32_t> cuts;
      for (unsigned i = 1; i < nc; i++) {
        uint32_t c;
        do c = (uint32_t)r.range(1, len - 1);
        while (std::find(cuts.begin(), cuts.end(), c) != cuts.end());
        cuts.push_back(c);
      }
      std::sort(cuts.begin(), cuts.end());
      cuts.push_back(len);
      uint32_t prev = 0;
      for (uint32_t c : cuts) {
        Chunk k;
        k.addr = r.chance(0.2) ? (0x100000000ull + r.range(0, 4096)) : r.u64();
        k.len = c - prev;
        prev = c;
        t.chunks.push_back(k);
      }
    }
    return t;
  };

  std::vector<Txd> txds;
  for (unsigned i = 0; i < kTxds; i++) txds.push_back(gen(i));

  // The frame of each descriptor as the C++ reference builds it from the
  // descriptor's fields as IBA field values (txd_t comments, rnic_pkg): ImmDt
  // and IETH in imm are wire bytes (byte i in bits [8i+7:8i]), every other
  // field a number sent big-endian. Its words in the ring and the words of
  // its header (intake writes one a cycle).
  std::vector<std::vector<uint8_t>> expf(kTxds);
  std::vector<unsigned> words(kTxds), hwords(kTxds);
  for (unsigned i = 0; i < kTxds; i++) {
    const Txd &t = txds[i];
    const QpCfg &c = qps.at(t.qpn);
    Pkt k;
    k.dmac = t.ud_en ? t.ud_dmac : c.dest_mac;
    k.smac = port_mac;
    k.sip = port_ip;
    k.dip = t.ud_en ? t.ud_dip : c.dest_ip;
    k.sport = c.udp_sport;
    k.opcode = t.op;
    k.se = t.se;
    k.ack_req = t.ack;
    k.dqpn = t.ud_en ? t.ud_dqpn : c.dest_qpn;
    k.psn = t.psn;
    k.va = t.va;
    k.rkey = t.rkey;
    k.dlen = t.rlen;
    k.imm = t.imm;
    k.syn = t.syn;
    k.msn = t.msn;
    k.swap_add = t.atomic_swap;
    k.cmp = t.atomic_cmp;
    k.orig = t.atomic_swap;
    k.inv_rkey = bswap32(t.imm);
    k.qkey = t.qkey;
    k.src_qp = t.qpn;
    for (const Chunk &ck : t.chunks)
      for (uint32_t b = 0; b < ck.len; b++) k.payload.push_back(mem_at(ck.addr + b));
    expf[i] = build_frame(k);
    words[i] = (unsigned)((expf[i].size() + kBytes - 1) / kBytes);
    hwords[i] = (54 + ext_len(t.op) + kBytes - 1) / kBytes;
  }
  auto desc = [&](unsigned ti) {
    const Txd &t = txds[ti];
    return fmt("descriptor %u (%s, qpn 0x%x, %u payload bytes in %zu chunks%s)", ti, op_name(t.op),
               t.qpn, t.pay_len, t.chunks.size(), failed(t) ? ", failed read" : "");
  };

  // Chunk reads expected in order: (txd, chunk)
  std::deque<std::pair<unsigned, unsigned>> exp_reads;
  std::deque<RdJob> rdq;
  unsigned rd_beat = 0;
  bool rd_offered = false;
  uint8_t beatbuf[kBytes];
  unsigned next_txd = 0, frames_done = 0;
  uint64_t err_rsp = 0, err_beats = 0, reads = 0;
  unsigned per_op[256] = {0}, per_nchunk[5] = {0};
  unsigned ud_frames = 0, ud_other = 0, zero_pay = 0;
  uint64_t last_progress = 0;

  // ---- the model: descriptors in the ring and in the lane, in intake
  // order; the ring's words; the cycle each descriptor was taken
  std::deque<unsigned> ring, lane;
  unsigned ring_words = 0;
  std::vector<uint64_t> take_at(kTxds, 0);
  Kind last_sent = kRingFrame;  // the start counts as after a ring frame
  uint64_t last_ring_pop = 0;   // the last ring frame left or was dropped
  // The frame on the wire, from its first beat offered to its last taken:
  // its candidates, beats taken, its bytes; resolved: one candidate left.
  bool active = false, resolved = false;
  std::vector<Cand> cands;
  unsigned cur = 0;  // the candidate once resolved
  unsigned beat = 0;
  std::vector<uint8_t> cur_frame;
  bool na_pending = false;  // noack_valid_o at the first beat, not yet recorded
  bool aborted = false;

  // noack: the reports expected, in descriptor order (known at the end, when
  // every read has been answered), and the ones seen: (descriptor, noack_err_o)
  std::vector<std::pair<unsigned, bool>> na_exp, na_seen;
  unsigned na_frames = 0;          // UC/UD last frames sent
  unsigned rc_evl = 0;             // RC frames with ev_last sent (never noack)
  unsigned na_hold_cycles = 0;     // a UC/UD last frame waited for noack_ready_i
  unsigned na_held_frames = 0;     // noack frames offered, then held at least once
  unsigned na_withdrawn = 0;       // tx_valid_o fell without a transfer (noack hold)
  unsigned rc_offered_na_low = 0;  // another frame offered while noack_ready_i was low
  bool cur_held = false;
  bool prev_valid_wait = false;  // tx_valid_o high, not taken, in the previous cycle
  unsigned na_low_left = 0;      // cycles of a forced low stretch of noack_ready_i
  // Failed reads: per descriptor the reads not yet answered in full and the
  // cycle the last beat of its last read was taken.
  std::vector<unsigned> rd_left(kTxds, 0);
  std::vector<uint64_t> rd_end(kTxds, 0);
  unsigned drop_req[3] = {0, 0, 0};  // dropped requests: RC, UC, UD
  unsigned drop_rsp = 0;             // dropped READ responses
  unsigned drop_na = 0;              // dropped requests that were UC/UD last frames
  unsigned drop_hold_cycles = 0;     // a failed request's drop waited for noack_ready_i
  unsigned drop_lane_cycles = 0;     // a due drop waited for the lane
  // The lane: descriptors taken into it (and of those while the ring had no
  // room for them), lane-eligible descriptors taken into the ring because
  // the ring was empty, held a frame of the same QP and direction, or the
  // lane was full; lane frames sent, those that passed older ring frames
  // and how many; boundaries where both heads were ready and the lane went
  // (older; its turn) or the ring went (its turn).
  unsigned ln_taken = 0, ln_taken_full = 0, ln_rej_empty = 0, ln_rej_hit = 0, ln_rej_full = 0;
  unsigned ln_sent = 0, ln_passed = 0, ln_passed_frames = 0;
  unsigned turn_ln_older = 0, turn_ln = 0, turn_ring = 0;
  unsigned full_offers = 0;  // cycles a descriptor was offered with no ring room
  // cycles a lane-eligible descriptor was offered, the ring not empty, and
  // the lane refused it: a frame of its QP and direction in the ring; full
  unsigned ln_hit_offers = 0, ln_full_offers = 0;

  auto state_str = [&]() {
    std::string s = "ring [";
    for (size_t i = 0; i < ring.size() && i < 12; i++) s += fmt(i ? " %u" : "%u", ring[i]);
    s += ring.size() > 12 ? " ...]" : "]";
    s += " lane [";
    for (size_t i = 0; i < lane.size(); i++) s += fmt(i ? " %u" : "%u", lane[i]);
    s += fmt("], last sent a %s frame", last_sent == kLaneFrame ? "lane" : "ring");
    return s;
  };

  // back-pressure profile
  double p_txd = 0.8, p_req = 0.8, p_beat = 0.8, p_tx = 0.8, p_na = 0.8;
  auto set_phase = [&](unsigned k) {
    static const double ph[][5] = {{1, 1, 1, 1, 1},          {0.7, 0.6, 0.7, 0.7, 0.5},
                                   {1, 1, 1, 0.15, 0.9},     {0.5, 0.2, 0.3, 1, 0.1},
                                   {1, 0.9, 0.95, 0.5, 0.7}, {0.3, 1, 0.5, 0.9, 0.3},
                                   {1, 1, 1, 1, 0.05}};
    const double *p = ph[k % 7];
    p_txd = p[0];
    p_req = p[1];
    p_beat = p[2];
    p_tx = p[3];
    p_na = p[4];
  };

  top.clk_i = 0;
  top.rst_ni = 0;
  top.port_mac_i = port_mac;
  top.port_ip_i = port_ip;
  top.txd_valid_i = 0;
  top.rd_req_ready_i = 0;
  top.rd_rsp_valid_i = 0;
  top.tx_ready_i = 0;
  top.noack_ready_i = 0;
  reset_dut(top);

  bool txd_offered = false, drain = false;
  const uint64_t kMaxCycles = 4000000;
  for (g_cycle = 0; g_cycle < kMaxCycles; g_cycle++) {
    if (next_txd >= kTxds && ring.empty() && lane.empty() && !active && rdq.empty()) break;
    if (g_cycle - last_progress > 20000) {
      fail(
          "no progress for 20000 cycles: %u of %u descriptors taken, %u frames out, "
          "%zu reads outstanding, %zu expected reads; %s",
          next_txd, kTxds, frames_done, rdq.size(), exp_reads.size(), state_str().c_str());
      aborted = true;
      break;
    }
    set_phase((unsigned)(frames_done / 150));
    top.clk_i = 0;
    const uint64_t cyc = g_cycle;

    // Descriptor producer: data stable while valid; now and then it waits
    // until the ring and the lane are empty.
    if (!txd_offered && next_txd < kTxds) {
      if (drain && ring.empty() && lane.empty()) drain = false;
      if (!drain && r.chance(p_txd)) txd_offered = true;
    }
    top.txd_valid_i = txd_offered;
    if (txd_offered) vset(top.txd_i, pack_txd(txds[next_txd]));

    // DMA read side
    top.rd_req_ready_i = rdq.size() < 8 && r.chance(p_req);
    if (!rd_offered && !rdq.empty() && rdq.front().ready_at <= g_cycle && r.chance(p_beat)) {
      const RdJob &j = rdq.front();
      for (unsigned i = 0; i < kBytes; i++) {
        uint64_t off = (uint64_t)rd_beat * kBytes + i;
        beatbuf[i] = j.err ? 0 : (off < j.len ? mem_at(j.addr + off) : (uint8_t)r.u32());
      }
      vset_bytes(top.rd_rsp_data_i, beatbuf);
      top.rd_rsp_last_i = (uint64_t)(rd_beat + 1) * kBytes >= j.len;
      top.rd_rsp_err_i = j.err;
      rd_offered = true;
    }
    top.rd_rsp_valid_i = rd_offered;
    top.tx_ready_i = r.chance(p_tx);
    // noack consumer: random ready, now and then low for a long stretch
    if (!na_low_left && r.chance(0.005)) na_low_left = (unsigned)r.range(20, 400);
    if (na_low_left) {
      na_low_left--;
      top.noack_ready_i = 0;
    } else {
      top.noack_ready_i = r.chance(p_na);
    }
    top.eval();
    // Context read port: the table answers ctx_idx_o in the same cycle.
    {
      auto it = qps.find(top.ctx_idx_o);
      Bits c = it != qps.end() ? it->second.pack() : Bits(kQpCfgW);
      vset(top.ctx_i, c);
      top.eval();
    }

    // ---- sample the handshakes of this cycle
    const bool txd_take = top.txd_valid_i && top.txd_ready_o;
    const bool req_take = top.rd_req_valid_o && top.rd_req_ready_i;
    const bool rsp_take = top.rd_rsp_valid_i && top.rd_rsp_ready_o;
    const bool tx_take = top.tx_valid_o && top.tx_ready_i;
    const bool tx_last = top.tx_last_o;
    const bool na_ready = top.noack_ready_i;

    // ---- intake: where the offered descriptor goes and whether it may be
    // taken, from the state at the start of the cycle (a frame leaving in
    // this cycle still counts)
    bool take_lane = false;
    if (top.txd_valid_i) {
      const Txd &t = txds[next_txd];
      bool hit = false;
      for (unsigned q : ring) hit = hit || same_key(txds[q], t);
      const bool elig = lane_eligible(t);
      take_lane = elig && !ring.empty() && !hit && lane.size() + 1 <= kLane;
      const bool room = ring.size() < kNFrames && ring_words + words[next_txd] <= kRingWords;
      const bool exp_ready = top.intake_idle_o && (room || take_lane);
      if (!room) full_offers++;
      if (elig && !ring.empty() && !take_lane) (hit ? ln_hit_offers : ln_full_offers)++;
      BLK_CHECK(top.txd_ready_o == exp_ready,
                "txd_ready_o=%d, expected %d: %s offered, intake %s, ring %zu of %u frames, %u+%u "
                "of %u words (%s), %slane-eligible%s, lane %zu of %u; %s",
                top.txd_ready_o, exp_ready, desc(next_txd).c_str(),
                top.intake_idle_o ? "idle" : "busy", ring.size(), kNFrames, ring_words,
                words[next_txd], kRingWords, room ? "room" : "no room", elig ? "" : "not ",
                !elig                     ? ""
                : ring.empty()            ? ", ring empty"
                : hit                     ? ", the ring holds a frame of its QP and direction"
                : lane.size() + 1 > kLane ? ", lane full"
                                          : ", lane admits it",
                lane.size(), kLane, state_str().c_str());
      if (txd_take && elig) {
        if (take_lane) {
          ln_taken++;
          if (!room) ln_taken_full++;
        } else {
          (ring.empty() ? ln_rej_empty : hit ? ln_rej_hit : ln_rej_full)++;
        }
      }
    }
    BLK_CHECK(top.quiet_o == (top.intake_idle_o && ring.empty() && lane.empty()),
              "quiet_o=%d, intake %s, %zu frames in the ring, %zu in the lane", top.quiet_o,
              top.intake_idle_o ? "idle" : "busy", ring.size(), lane.size());

    // ---- emission: at a frame boundary, what may go and what must
    bool drop_rsp_now = false, drop_req_now = false, exp_drop_pulse = false;
    if (!active) {
      const bool ring_has = !ring.empty(), lane_has = !lane.empty();
      const unsigned h = ring_has ? ring.front() : 0, l = lane_has ? lane.front() : 0;
      // The ring head's readiness and since when (kSure).
      Ready rs = kNot;
      std::string rs_why = "ring empty";
      uint64_t r_since = 0;
      bool h_due = false;  // a failed head is due (reads done, kEmitLat, the frame before)
      if (ring_has) {
        const Txd &t = txds[h];
        if (!t.chunks.empty()) {
          r_since = std::max(rd_end[h] + kEmitLat, last_ring_pop + 1);
          if (rd_left[h]) {
            rs_why = "payload reads outstanding";
          } else if (cyc < r_since) {
            rs_why = fmt("assembled from cycle %llu", (unsigned long long)r_since);
          } else if (failed(t)) {
            h_due = true;
            if (op_response(t.op) || na_ready) {
              rs = kSure;
            } else {
              rs_why = "a failed request, noack_ready_i low";
              drop_hold_cycles++;
            }
          } else if (noack_frame(t) && !na_ready) {
            rs_why = "a UC/UD last frame, noack_ready_i low";
            na_hold_cycles++;
          } else {
            rs = kSure;
          }
        } else if (noack_frame(t) && !na_ready) {
          rs_why = "a UC/UD last frame, noack_ready_i low";
          na_hold_cycles++;
        } else {
          r_since = std::max(take_at[h] + hwords[h] + 3, last_ring_pop + 2);
          rs = cyc >= r_since ? kSure : kMaybe;
        }
      }
      const bool ls = lane_has && cyc >= take_at[l] + hwords[l] + 1;
      const bool l_older = lane_has && (!ring_has || l < h);
      const bool lane_must = ls && (rs == kNot || l_older || last_sent != kLaneFrame);
      const bool ring_must = !lane_must && rs == kSure;
      const bool lane_may = ls && (lane_must || rs == kMaybe);
      const bool ring_may = ring_has && rs != kNot && !lane_must;
      const std::string lane_why =
          !ls          ? ""
          : rs == kNot ? fmt("the ring head is not ready: %s", rs_why.c_str())
          : l_older    ? "it is older than the ring head"
                       : "the ring head is older but the last frame sent was a ring frame (or "
                         "a drop)";
      if (h_due && !ring_must && (op_response(txds[h].op) || na_ready)) drop_lane_cycles++;
      if (top.tx_valid_o) {
        // A frame is offered: one of the heads.
        active = true;
        resolved = false;
        beat = 0;
        na_pending = false;
        cur_held = false;
        cur_frame.clear();
        cands.clear();
        if (ring_has) {
          Cand k;
          k.ti = h;
          k.lane = false;
          k.legal = ring_may && !failed(txds[h]);
          if (failed(txds[h]))
            k.illegal = "its payload read failed: it is never offered";
          else if (rs == kNot)
            k.illegal = "it is not ready: " + rs_why;
          else if (lane_must)
            k.illegal = fmt("lane head descriptor %u must go first: %s", l, lane_why.c_str());
          cands.push_back(k);
        }
        if (lane_has) {
          Cand k;
          k.ti = l;
          k.lane = true;
          k.legal = lane_may;
          if (!ls)
            k.illegal =
                fmt("intake wrote its header only by cycle %llu (taken at %llu)",
                    (unsigned long long)(take_at[l] + hwords[l]), (unsigned long long)take_at[l]);
          else if (!lane_may)
            k.illegal =
                fmt("ring head descriptor %u is older and ready (since cycle %llu) and the last "
                    "frame sent was a lane frame: the ring's turn",
                    h, (unsigned long long)r_since);
          cands.push_back(k);
        }
        if (cands.empty()) {
          fail("tx_valid_o with no descriptor in the ring or the lane");
          aborted = true;
          break;
        }
        if (ls && rs == kSure) (lane_must ? (l_older ? turn_ln_older : turn_ln) : turn_ring)++;
      } else if (lane_must) {
        fail(
            "frame boundary, nothing offered: lane head %s, ready since cycle %llu, must go: %s; "
            "%s",
            desc(l).c_str(), (unsigned long long)(take_at[l] + hwords[l] + 1), lane_why.c_str(),
            state_str().c_str());
      } else if (ring_must) {
        if (ls) turn_ring++;
        if (failed(txds[h])) {
          if (op_response(txds[h].op))
            drop_rsp_now = true;
          else
            exp_drop_pulse = true;
        } else {
          fail(
              "frame boundary, nothing offered: ring head %s, ready since cycle %llu, must go%s; "
              "%s",
              desc(h).c_str(), (unsigned long long)r_since,
              ls ? " (its turn after a lane frame)" : "", state_str().c_str());
        }
      } else if (ls && rs == kMaybe) {
        fail(
            "frame boundary, nothing offered: lane head %s is ready, the ring head %s is older and "
            "the last frame sent was a lane frame: one of them must go; %s",
            desc(l).c_str(), desc(h).c_str(), state_str().c_str());
      }
    }

    // ---- the frame on the wire: each candidate against what is shown
    const bool first_take = active && tx_take && beat == 0;
    if (active) {
      if (!ring.empty()) {  // a failed ring head due while a lane frame is on the wire
        const unsigned h = ring.front();
        if (failed(txds[h]) && !rd_left[h] &&
            cyc >= std::max(rd_end[h] + kEmitLat, last_ring_pop + 1) &&
            (op_response(txds[h].op) || na_ready))
          drop_lane_cycles++;
      }
      uint8_t lanes[kBytes];
      vget_bytes(top.tx_data_o, lanes);
      const uint64_t keep = (uint64_t)top.tx_keep_o;
      const uint64_t all = kBytes == 64 ? ~0ull : ((1ull << kBytes) - 1);
      if (beat)
        BLK_CHECK(top.tx_valid_o, "frame %u: tx_valid_o low in the middle of the frame",
                  frames_done);
      if (top.tx_valid_o) {
        if (!top.tx_last_o) {
          BLK_CHECK(keep == all, "frame %u: keep 0x%llx on a beat that is not the last",
                    frames_done, (unsigned long long)keep);
        } else {
          BLK_CHECK(keep != 0 && (keep & (keep + 1)) == 0,
                    "frame %u: last-beat keep 0x%llx is not a contiguous mask from lane 0",
                    frames_done, (unsigned long long)keep);
        }
      }
      for (Cand &k : cands) {
        if (!k.alive) continue;
        const Txd &t = txds[k.ti];
        const std::vector<uint8_t> &e = expf[k.ti];
        const bool na = !k.lane && noack_frame(t);
        std::string why;
        if (beat == 0) {
          // Before its first beat: offered from the first offer on; a
          // UC/UD last frame follows noack_ready_i.
          const bool exp_valid = na ? na_ready : true;
          if (top.tx_valid_o != exp_valid)
            why = fmt(
                "tx_valid_o=%d before its first beat was taken, expected %d (%s, "
                "noack_ready_i %d)",
                top.tx_valid_o, exp_valid, na ? "a UC/UD last frame" : "offered before", na_ready);
        }
        if (why.empty() && top.tx_valid_o) {
          const size_t off = (size_t)beat * kBytes;
          if (off >= e.size()) {
            why = fmt("beat %u is past its %zu bytes", beat, e.size());
          } else {
            const size_t n = std::min<size_t>(kBytes, e.size() - off);
            const uint64_t ekeep = n == 64 ? ~0ull : ((1ull << n) - 1);
            const bool elast = off + kBytes >= e.size();
            if (keep != ekeep || (bool)top.tx_last_o != elast) {
              why = fmt("beat %u: keep 0x%llx last %d, its frame of %zu bytes has 0x%llx/%d", beat,
                        (unsigned long long)keep, top.tx_last_o, e.size(),
                        (unsigned long long)ekeep, elast);
            } else {
              for (size_t i = 0; i < n; i++)
                if (lanes[i] != e[off + i]) {
                  why = fmt("byte %zu (%s) is 0x%02x, expected 0x%02x", off + i,
                            field_at(off + i, t.op, t.pay_len, e.size()).c_str(), lanes[i],
                            e[off + i]);
                  break;
                }
            }
          }
        }
        if (why.empty() && first_take) {
          if (top.ev_first_o != t.evf || top.ev_last_o != t.evl)
            why = fmt("ev_first_o=%d ev_last_o=%d, the descriptor has %d/%d", top.ev_first_o,
                      top.ev_last_o, t.evf, t.evl);
          else if ((t.evf || t.evl) && (top.ev_qpn_o != t.qpn || top.ev_idx_o != t.idx))
            why = fmt("event qpn=0x%x idx=%u, expected 0x%x/%u", top.ev_qpn_o, top.ev_idx_o, t.qpn,
                      t.idx);
          else if (top.noack_valid_o != na)
            why = fmt("noack_valid_o=%d at its first beat, expected %d (%s)", top.noack_valid_o, na,
                      na       ? "a UC/UD last frame"
                      : k.lane ? "a lane frame"
                               : "no UC/UD last frame");
          else if (na && top.noack_err_o)
            why = "noack_err_o=1 at its first beat (its reads did not fail)";
        }
        if (!why.empty()) {
          k.alive = false;
          k.out = why;
        }
      }
      unsigned alive = 0;
      for (unsigned i = 0; i < cands.size(); i++)
        if (cands[i].alive) {
          alive++;
          cur = i;
        }
      if (!alive) {
        std::string s;
        for (const Cand &k : cands)
          s += fmt("; %s head %s: %s", k.lane ? "lane" : "ring", desc(k.ti).c_str(), k.out.c_str());
        fail("frame %u (beat %u) is none of the heads%s; %s", frames_done, beat, s.c_str(),
             state_str().c_str());
        aborted = true;
        break;
      }
      if (alive == 1 && !resolved) {
        resolved = true;
        const Cand &k = cands[cur];
        const Txd &t = txds[k.ti];
        BLK_CHECK(k.legal, "frame %u is %s head %s, which may not go now: %s; %s", frames_done,
                  k.lane ? "lane" : "ring", desc(k.ti).c_str(), k.illegal.c_str(),
                  state_str().c_str());
        // The order rules as such: no older frame of its QP and direction
        // pending, and none at all unless it is lane-eligible.
        unsigned older = 0;
        for (const std::deque<unsigned> *qd : {&ring, &lane})
          for (unsigned q : *qd)
            if (q < k.ti) {
              older++;
              BLK_CHECK(lane_eligible(t) && !same_key(txds[q], t),
                        "frame %u, %s, leaves before older %s (%s)", frames_done,
                        desc(k.ti).c_str(), desc(q).c_str(),
                        lane_eligible(t) ? "same QP and direction" : "it is not lane-eligible");
            }
        if (k.lane && older) {
          ln_passed++;
          ln_passed_frames += older;
        }
      }
      if (tx_take && tx_last && alive > 1) {
        fail("frame %u: its last beat, and it is still both %s and %s", frames_done,
             desc(cands[0].ti).c_str(), desc(cands[1].ti).c_str());
        aborted = true;
        break;
      }
      if (resolved && beat == 0 && !cands[cur].lane && noack_frame(txds[cands[cur].ti])) {
        if (!na_ready) {
          na_hold_cycles++;
          if (!cur_held) na_held_frames++;
          cur_held = true;
        }
      } else if (resolved && beat == 0 && top.tx_valid_o && !na_ready) {
        rc_offered_na_low++;
      }
    }

    // ---- noack: a frame's first beat (checked per candidate above) or a
    // failed request's drop
    BLK_CHECK(!top.noack_valid_o || na_ready, "noack_valid_o while noack_ready_i is low");
    if (!first_take)
      BLK_CHECK(top.noack_valid_o == exp_drop_pulse, "noack_valid_o=%d, expected %d (%s%s); %s",
                top.noack_valid_o, exp_drop_pulse,
                active           ? "a frame on the wire, not its first beat taken"
                : exp_drop_pulse ? "failed request at the ring head dropped: "
                                 : "frame boundary",
                exp_drop_pulse ? desc(ring.front()).c_str() : "", state_str().c_str());
    if (exp_drop_pulse && top.noack_valid_o) {
      const unsigned h = ring.front();
      na_seen.push_back({h, top.noack_err_o});
      BLK_CHECK(top.noack_err_o && top.ev_qpn_o == txds[h].qpn && top.ev_idx_o == txds[h].idx,
                "%s dropped: noack_err_o=%d qpn=0x%x idx=%u, expected 1/0x%x/%u", desc(h).c_str(),
                top.noack_err_o, top.ev_qpn_o, top.ev_idx_o, txds[h].qpn, txds[h].idx);
      drop_req_now = true;
    }
    if (first_take && top.noack_valid_o) na_pending = true;
    if (na_pending && resolved) {  // noack_err_o=0 was checked at the first beat
      na_seen.push_back({cands[cur].ti, false});
      na_pending = false;
    }
    BLK_CHECK(first_take || (!top.ev_first_o && !top.ev_last_o),
              "ev_first_o/ev_last_o pulse outside the first beat of a frame");
    if (prev_valid_wait && !top.tx_valid_o) na_withdrawn++;
    prev_valid_wait = top.tx_valid_o && !top.tx_ready_i;

    if (trace) {
      if (txd_take)
        std::printf("%6llu txd %u op %s qpn %x len %u nchunk %zu -> %s\n",
                    (unsigned long long)g_cycle, next_txd, op_name(txds[next_txd].op),
                    txds[next_txd].qpn, txds[next_txd].pay_len, txds[next_txd].chunks.size(),
                    take_lane ? "lane" : "ring");
      if (req_take)
        std::printf("%6llu rd_req addr %llx len %u\n", (unsigned long long)g_cycle,
                    (unsigned long long)top.rd_req_addr_o, top.rd_req_len_o);
      if (rsp_take)
        std::printf("%6llu rd_rsp beat %u last %d err %d\n", (unsigned long long)g_cycle, rd_beat,
                    top.rd_rsp_last_i, top.rd_rsp_err_i);
      if (drop_rsp_now || drop_req_now)
        std::printf("%6llu drop descriptor %u %s (failed read)\n", (unsigned long long)g_cycle,
                    ring.front(), op_name(txds[ring.front()].op));
      if (top.noack_valid_o)
        std::printf("%6llu noack qpn %x idx %u err %d\n", (unsigned long long)g_cycle, top.ev_qpn_o,
                    top.ev_idx_o, top.noack_err_o);
      if (active && beat == 0 && top.tx_valid_o && resolved)
        std::printf("%6llu offer %s descriptor %u\n", (unsigned long long)g_cycle,
                    cands[cur].lane ? "lane" : "ring", cands[cur].ti);
      if (tx_take) {
        uint8_t l[kBytes];
        vget_bytes(top.tx_data_o, l);
        std::printf("%6llu tx keep %llx last %d:", (unsigned long long)g_cycle,
                    (unsigned long long)top.tx_keep_o, top.tx_last_o);
        for (unsigned i = 0; i < kBytes; i++) std::printf(" %02x", l[i]);
        std::printf("\n");
      }
    }
    BLK_CHECK(top.cnt_pkts_o == frames_done, "cnt_pkts_o=%llu, %u frames sent",
              (unsigned long long)top.cnt_pkts_o, frames_done);

    // A descriptor's reads are expected from the cycle it is taken: the
    // first one may go out in that cycle.
    if (txd_take && next_txd < kTxds) {
      for (unsigned i = 0; i < txds[next_txd].chunks.size(); i++)
        exp_reads.push_back({next_txd, i});
    }
    if (req_take) {
      reads++;
      if (exp_reads.empty()) {
        fail("unexpected DMA read addr=0x%llx len=%u", (unsigned long long)top.rd_req_addr_o,
             (unsigned)top.rd_req_len_o);
      } else {
        auto [ti, ci] = exp_reads.front();
        exp_reads.pop_front();
        Chunk &ck = txds[ti].chunks[ci];
        BLK_CHECK(top.rd_req_addr_o == ck.addr && top.rd_req_len_o == ck.len,
                  "descriptor %u chunk %u: DMA read addr=0x%llx len=%u, expected addr=0x%llx "
                  "len=%u",
                  ti, ci, (unsigned long long)top.rd_req_addr_o, (unsigned)top.rd_req_len_o,
                  (unsigned long long)ck.addr, ck.len);
        // The last descriptor's reads never fail: its frame shows that every
        // failed frame before it was dropped.
        ck.err =
            r.chance(op_response(txds[ti].op) ? kRdErrChanceRsp : kRdErrChance) && ti + 1 < kTxds;
        rdq.push_back({ti, ck.addr, ck.len, ck.err, g_cycle + r.range(1, 24)});
      }
    }
    if (tx_take) {
      uint8_t lanes[kBytes];
      vget_bytes(top.tx_data_o, lanes);
      for (unsigned i = 0; i < kBytes; i++)
        if ((top.tx_keep_o >> i) & 1) cur_frame.push_back(lanes[i]);
    }

    top.clk_i = 1;
    top.eval();

    // ---- update the models
    if (txd_take) {
      BLK_CHECK(next_txd < kTxds, "descriptor taken twice");
      const Txd &t = txds[next_txd];
      if (take_lane) {
        lane.push_back(next_txd);
      } else {
        ring.push_back(next_txd);
        ring_words += words[next_txd];
      }
      take_at[next_txd] = g_cycle;
      per_op[t.op]++;
      per_nchunk[t.chunks.size()]++;
      if (t.ud_en) (op_deth(t.op) ? ud_frames : ud_other)++;
      if (!t.pay_len) zero_pay++;
      rd_left[next_txd] = (unsigned)t.chunks.size();
      next_txd++;
      txd_offered = false;
      drain = r.chance(0.03);
      last_progress = g_cycle;
    }
    if (rsp_take) {
      RdJob &j = rdq.front();
      if (j.err) err_beats++;
      rd_beat++;
      rd_offered = false;
      if (top.rd_rsp_last_i) {
        BLK_CHECK((uint64_t)rd_beat * kBytes >= j.len && (uint64_t)(rd_beat - 1) * kBytes < j.len,
                  "internal: read of %u bytes took %u beats", j.len, rd_beat);
        if (j.err) err_rsp++;
        if (!--rd_left[j.ti]) rd_end[j.ti] = g_cycle;
        rdq.pop_front();
        rd_beat = 0;
      }
      last_progress = g_cycle;
    }
    if (drop_rsp_now || drop_req_now) {
      const unsigned ti = ring.front();
      const Txd &t = txds[ti];
      if (drop_rsp_now)
        drop_rsp++;
      else
        drop_req[(t.op >> 5) == 0 ? 0 : (t.op >> 5) == 1 ? 1 : 2]++;
      if (drop_req_now && noack_frame(t)) drop_na++;
      ring.pop_front();
      ring_words -= words[ti];
      last_ring_pop = g_cycle;
      last_sent = kRingFrame;  // a drop takes the ring's turn
      last_progress = g_cycle;
    }
    if (active && tx_take) {
      last_progress = g_cycle;
      beat++;
      if (tx_last) {
        const Cand &k = cands[cur];
        const unsigned ti = k.ti;
        const Txd &t = txds[ti];
        std::deque<unsigned> &q = k.lane ? lane : ring;
        BLK_CHECK(!q.empty() && q.front() == ti, "internal: descriptor %u not at the head", ti);
        q.pop_front();
        if (k.lane) {
          ln_sent++;
          last_sent = kLaneFrame;
        } else {
          ring_words -= words[ti];
          last_ring_pop = g_cycle;
          last_sent = kRingFrame;
        }
        if (!k.lane && noack_frame(t)) na_frames++;
        if (t.evl && !noack_frame(t)) rc_evl++;
        // Independent sanity of the captured frame itself.
        if (cur_frame.size() > 4 + 26) {
          std::vector<uint8_t> body(cur_frame.begin(), cur_frame.end() - 4);
          uint32_t ic = icrc_ref(body);
          uint32_t got = 0;
          for (int i = 0; i < 4; i++)
            got |= (uint32_t)cur_frame[cur_frame.size() - 4 + i] << (8 * i);
          BLK_CHECK(ic == got, "frame %u: ICRC 0x%08x does not match its contents (0x%08x)",
                    frames_done, got, ic);
          BLK_CHECK(ip_csum(cur_frame, 14) == ((uint16_t)cur_frame[24] << 8 | cur_frame[25]),
                    "frame %u: IPv4 header checksum wrong", frames_done);
        }
        BLK_CHECK(cur_frame == expf[ti], "frame %u (%s): the bytes taken differ from its frame",
                  frames_done, desc(ti).c_str());
        cur_frame.clear();
        frames_done++;
        active = false;
      }
    }
  }
  if (aborted) {
    top.final();
    return finish(vctx);
  }
  BLK_CHECK(next_txd == kTxds && ring.empty() && lane.empty() && exp_reads.empty() && rdq.empty(),
            "end: %u/%u descriptors taken, %zu frames in the ring and %zu in the lane left, %zu "
            "reads missing",
            next_txd, kTxds, ring.size(), lane.size(), exp_reads.size());
  BLK_CHECK(top.cnt_pkts_o == frames_done, "cnt_pkts_o=%llu at the end, %u frames",
            (unsigned long long)top.cnt_pkts_o, frames_done);
  unsigned n_failed = 0;
  for (const Txd &t : txds) n_failed += failed(t);
  const unsigned n_drop_req = drop_req[0] + drop_req[1] + drop_req[2];
  BLK_CHECK(n_drop_req + drop_rsp == n_failed && frames_done + n_failed == kTxds,
            "end: %u frames sent, %u requests and %u responses dropped, %u of %u descriptors "
            "with a failed read",
            frames_done, n_drop_req, drop_rsp, n_failed, kTxds);
  // docs/formats.md: CNT_DMA_RD_ERR counts DMA read *responses* that came back
  // with an error (the interface marks every beat of such a response).
  BLK_CHECK(top.cnt_rd_err_o == err_rsp,
            "cnt_rd_err_o=%llu but %llu read responses (%llu beats) came back with err",
            (unsigned long long)top.cnt_rd_err_o, (unsigned long long)err_rsp,
            (unsigned long long)err_beats);
  std::string ops;
  for (uint8_t o : op_list) {
    char b[16];
    std::snprintf(b, sizeof b, "%s%02x:%u", ops.empty() ? "" : " ", o, per_op[o]);
    ops += b;
    BLK_CHECK(per_op[o] >= 10, "opcode 0x%02x (%s) in only %u descriptors", o, op_name(o),
              per_op[o]);
  }
  BLK_CHECK(ud_frames > 0 && ud_other > 0, "ud_en not exercised (%u UD, %u other)", ud_frames,
            ud_other);
  // noack: once per UC/UD descriptor with ev_last whose reads all succeeded
  // (noack_err_o=0) and once per request descriptor with a failed read
  // (noack_err_o=1), in descriptor order
  for (unsigned i = 0; i < kTxds; i++) {
    const Txd &t = txds[i];
    if (failed(t) ? !op_response(t.op) : noack_frame(t)) na_exp.push_back({i, failed(t)});
  }
  BLK_CHECK(na_seen.size() == na_exp.size(),
            "noack_valid_o %zu times, %u UC/UD ev_last frames and %u failed requests",
            na_seen.size(), na_frames, n_drop_req);
  for (size_t i = 0; i < std::min(na_seen.size(), na_exp.size()); i++)
    if (na_seen[i] != na_exp[i]) {
      fail("noack #%zu: descriptor %u err %d, expected descriptor %u err %d", i, na_seen[i].first,
           na_seen[i].second, na_exp[i].first, na_exp[i].second);
      break;
    }
  BLK_CHECK(na_frames > kTxds / 15 && rc_evl > kTxds / 10 && na_hold_cycles > 1000 &&
                na_held_frames > kTxds / 250 && rc_offered_na_low > 100,
            "weak noack coverage: %u UC/UD last frames, %u RC ev_last frames, %u hold cycles, "
            "%u frames held after being offered, %u cycles an offered frame saw noack_ready_i "
            "low",
            na_frames, rc_evl, na_hold_cycles, na_held_frames, rc_offered_na_low);
  BLK_CHECK(drop_req[0] > 0 && drop_req[1] + drop_req[2] > 0 && drop_rsp > 0 && drop_na > 0 &&
                drop_hold_cycles > 0,
            "weak failed-read coverage: %u RC, %u UC and %u UD requests dropped (%u UC/UD last "
            "frames), %u responses dropped, %u cycles a drop waited for noack_ready_i",
            drop_req[0], drop_req[1], drop_req[2], drop_na, drop_rsp, drop_hold_cycles);
  if (kLane) {
    // The bench proves it exercises the lane.
    BLK_CHECK(ln_sent > 0 && ln_passed > 0 && ln_taken_full > 0 && ln_hit_offers > 0 &&
                  ln_full_offers > 0 && ln_rej_empty > 0 && turn_ring > 0 &&
                  // rare with one frame in the ring
                  ((turn_ln > 0 && drop_lane_cycles > 0) || kNFrames == 1),
              "weak lane coverage: %u lane frames sent, %u passed older frames, %u taken with no "
              "ring room; offered and refused by the lane: %u cycles (same QP and direction in "
              "the ring), %u (lane full); %u taken into an empty ring; %u lane turns, %u ring "
              "turns; %u cycles a drop waited for the lane",
              ln_sent, ln_passed, ln_taken_full, ln_hit_offers, ln_full_offers, ln_rej_empty,
              turn_ln, turn_ring, drop_lane_cycles);
  } else {
    BLK_CHECK(ln_sent == 0, "lane frames without a lane");
  }
  BLK_CHECK(ln_taken == ln_sent, "%u descriptors taken into the lane, %u lane frames sent",
            ln_taken, ln_sent);
  info(
      "%u frames, %llu payload reads (%llu with err), per chunk count %u/%u/%u/%u/%u, %u with "
      "no payload, ud_en on %u UD and %u other descriptors; descriptors per opcode %s",
      frames_done, (unsigned long long)reads, (unsigned long long)err_rsp, per_nchunk[0],
      per_nchunk[1], per_nchunk[2], per_nchunk[3], per_nchunk[4], zero_pay, ud_frames, ud_other,
      ops.c_str());
  info(
      "failed reads: %u request frames dropped and reported (%u RC, %u UC, %u UD; %u of them "
      "UC/UD last frames), %u response frames dropped silently; %u cycles a due drop waited for "
      "noack_ready_i, %u for the lane",
      n_drop_req, drop_req[0], drop_req[1], drop_req[2], drop_na, drop_rsp, drop_hold_cycles,
      drop_lane_cycles);
  info(
      "noack: %zu pulses for %u UC/UD last frames and %u failed requests, %u RC frames with "
      "ev_last and none; %u cycles a UC/UD last frame waited for noack_ready_i (%u frames held "
      "after being offered, %u times tx_valid_o fell without a transfer); %u cycles another "
      "offered frame stayed offered with noack_ready_i low",
      na_seen.size(), na_frames, n_drop_req, rc_evl, na_hold_cycles, na_held_frames, na_withdrawn,
      rc_offered_na_low);
  info(
      "lane (LaneFrames %u, NFrames %u, %u ring words, seed 0x%llx): %u frames through the lane "
      "(%u taken with no ring room; %u cycles a descriptor was offered with no ring room), %u "
      "passed older frames (%u frames passed in all); lane-eligible taken into the ring: %u ring "
      "empty, %u same QP and direction in the ring, %u lane full; cycles the lane refused an "
      "offered one: %u same QP and direction in the ring, %u lane full; both heads ready: lane "
      "older %u, lane's turn %u, ring's turn %u",
      kLane, kNFrames, kRingWords, (unsigned long long)seed, ln_sent, ln_taken_full, full_offers,
      ln_passed, ln_passed_frames, ln_rej_empty, ln_rej_hit, ln_rej_full, ln_hit_offers,
      ln_full_offers, turn_ln_older, turn_ln, turn_ring);
  top.final();
  return finish(vctx);
}
