// blk_rnic_tx_builder: rnic_tx_builder alone (compiled for DATAW 64 and 256).
//
// Descriptors (rnic_pkg::txd_t packed by hand, MSB first) for every RC, UC and
// UD opcode the RNIC speaks (SEND/WRITE/READ/responses/ACK, atomics and the
// atomic ACK, SEND with invalidate, UD SEND with DETH), with random values in
// every field, also those the opcode does not use; ud_en (mostly on UD
// opcodes, sometimes on others) takes the destination MAC/IP/QPN from the
// descriptor instead of the QP context. Payload is gathered from up to four
// chunks at random byte addresses and lengths; the payload DMA reads are
// answered in order from a C++ memory with random latency, beat stalls and
// occasional error responses (zero data, err on every beat); the QP context
// (dest MAC/IP/QPN, UDP source port) is given on ctx_i for ctx_idx_o in the
// same cycle. Every frame on the wire is compared byte for byte with a frame
// built by the C++ reference from the IBA field values (headers, IPv4
// checksum, pad, ICRC), and the keep/last framing, trace events and counters
// (cnt_pkts_o: frames sent; cnt_rd_err_o: failed reads) are checked.
//
// Failed reads: a descriptor with any failed payload read gives no frame (no
// beat, no ev_first_o/ev_last_o, not counted). It is dropped in the cycle it
// reaches the emitter (kEmitLat cycles after its last read beat, or the cycle
// after the frame before it left or was dropped). A request (any transport) is
// reported then: noack_valid_o with noack_err_o=1 and its QPN/WQE index on
// ev_qpn_o/ev_idx_o, waiting for noack_ready_i like a UC/UD last frame; a
// READ response is dropped silently. Nothing overtakes a failed frame: no
// frame is offered while one is the head. The last descriptor's reads never
// fail, so its frame shows that every failed frame before it was dropped.
//
// No-ACK completions: noack_ready_i is driven at random (seeded, with phases
// and long low stretches). The last frame of a UC or UD message (transport
// bits [7:5] != 000 and ev_last) must not start while noack_ready_i is low
// (tx_valid_o low, also after the frame was offered once), and noack_valid_o
// (noack_err_o=0) must pulse exactly in the cycle its first beat is taken,
// with the QPN and WQE index on ev_qpn_o/ev_idx_o: once per such descriptor,
// in descriptor order with the failed-request reports, never for RC frames or
// other beats, never while noack_ready_i is low. An RC frame, once offered,
// stays offered whatever noack_ready_i does; tx_valid_o never drops inside a
// frame; frames leave in descriptor order (each is compared, in order, with
// the frame of its descriptor, so a held frame is never overtaken).
#include "Vrnic_tx_builder.h"
#include "blk_common.h"

using namespace blk;

#ifndef DATAW
#define DATAW 256
#endif
constexpr unsigned kBytes = DATAW / 8;
constexpr unsigned kTxdW = 857;
// A frame reaches the head of the emitter this many cycles after the last
// beat of its last payload read was taken (assembly done, emit queue).
constexpr uint64_t kEmitLat = 2;
constexpr double kRdErrChance = 0.02;  // per payload read

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

struct RdJob {
  unsigned ti;  // descriptor
  uint64_t addr;
  uint32_t len;
  bool err;
  uint64_t ready_at;
};

}  // namespace

int main(int argc, char **argv) {
  // test name: blk_rnic_<block>, with _w<DATAW> unless the datapath is 256 bits
  static const std::string name =
      std::string("blk_rnic_tx_builder") + (DATAW == 256 ? "" : "_w" + std::to_string(DATAW));
  g_bench = name.c_str();
  self_test();
  VerilatedContext vctx;
  vctx.commandArgs(argc, argv);
  Vrnic_tx_builder top{&vctx};
  Rng r(0x7b1d0000u + DATAW);
  const bool trace = std::getenv("BLK_TRACE") != nullptr;

  const uint64_t port_mac = 0x02a1b2c3d4e5ull;
  const uint32_t port_ip = 0x0a000105;
  std::map<uint32_t, QpCfg> qps;
  std::vector<uint32_t> qpns;
  for (int i = 0; i < 6; i++) {
    uint32_t q = (i == 0) ? 0xFFFFFF : (uint32_t)r.range(1, 0xFFFFFE);
    QpCfg c;
    c.randomize(r);
    qps[q] = c;
    qpns.push_back(q);
  }

  const unsigned kTxds = DATAW <= 64 ? 1500 : 2500;
  const std::vector<uint8_t> op_list = known_ops();

  auto gen = [&](unsigned n) {
    Txd t;
    t.qpn = r.pick(qpns);
    t.op = n < 2 * op_list.size() ? op_list[n % op_list.size()] : r.pick(op_list);
    t.psn = r.u32() & 0xFFFFFF;
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
    if (op_payload(t.op)) {
      double x = std::uniform_real_distribution<double>(0, 1)(r.g);
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

  // Chunk reads expected in order: (txd, chunk)
  std::deque<std::pair<unsigned, unsigned>> exp_reads;
  std::deque<unsigned> exp_frames;  // txds whose frame has not left yet
  std::deque<RdJob> rdq;
  unsigned rd_beat = 0;
  bool rd_offered = false;
  uint8_t beatbuf[kBytes];
  std::vector<uint8_t> cur_frame;
  unsigned next_txd = 0, frames_done = 0;
  uint64_t err_rsp = 0, err_beats = 0, reads = 0;
  unsigned per_op[256] = {0}, per_nchunk[5] = {0};
  unsigned ud_frames = 0, ud_other = 0, zero_pay = 0;
  uint64_t last_progress = 0;
  // noack: the reports expected, in descriptor order (known at the end, when
  // every read has been answered), and the ones seen: (descriptor, noack_err_o)
  std::vector<std::pair<unsigned, bool>> na_exp, na_seen;
  unsigned na_frames = 0;          // UC/UD last frames sent
  unsigned rc_evl = 0;             // RC frames with ev_last sent (never noack)
  bool head_offered = false;       // the head frame's first beat has been offered
  unsigned na_hold_cycles = 0;     // head was a noack frame held by noack_ready_i low
  unsigned na_held_frames = 0;     // noack frames offered, then held at least once
  unsigned na_withdrawn = 0;       // tx_valid_o fell without a transfer (noack hold)
  unsigned rc_offered_na_low = 0;  // RC head offered while noack_ready_i was low
  bool head_held = false;
  bool prev_valid_wait = false;  // tx_valid_o high, not taken, in the previous cycle
  unsigned na_low_left = 0;      // cycles of a forced low stretch of noack_ready_i
  // Failed reads: per descriptor the reads not yet answered in full and the
  // cycle the last beat of its last read was taken; the cycle the last frame
  // left the emitter (its last beat taken, or dropped).
  std::vector<unsigned> rd_left(kTxds, 0);
  std::vector<uint64_t> rd_end(kTxds, 0);
  uint64_t last_pop = 0;
  unsigned drop_req[3] = {0, 0, 0};  // dropped requests: RC, UC, UD
  unsigned drop_rsp = 0;             // dropped READ responses
  unsigned drop_na = 0;              // dropped requests that were UC/UD last frames
  unsigned drop_hold_cycles = 0;     // a failed request's drop waited for noack_ready_i
  unsigned last_rsp_drop = ~0u;      // the last failed response dropped (for messages)
  // The cycle a failed frame at the head of the queue is dropped at the
  // earliest (a request also needs noack_ready_i).
  auto drop_at = [&](unsigned ti) { return std::max(rd_end[ti] + kEmitLat, last_pop + 1); };

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

  bool txd_offered = false;
  const uint64_t kMaxCycles = 4000000;
  for (g_cycle = 0; g_cycle < kMaxCycles; g_cycle++) {
    if (next_txd >= kTxds && exp_frames.empty() && cur_frame.empty() && rdq.empty()) break;
    if (g_cycle - last_progress > 20000) {
      fail(
          "no progress for 20000 cycles: %u of %u descriptors taken, %u frames out, "
          "%zu reads outstanding, %zu expected reads",
          next_txd, kTxds, frames_done, rdq.size(), exp_reads.size());
      break;
    }
    set_phase((unsigned)(frames_done / 150));
    top.clk_i = 0;

    // Descriptor producer: data stable while valid.
    if (!txd_offered && next_txd < kTxds && r.chance(p_txd)) txd_offered = true;
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
    if (!na_low_left && r.chance(0.003)) na_low_left = (unsigned)r.range(20, 400);
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

    // ---- a failed READ response is dropped, unseen, in the cycle it reaches
    // the emitter; the frames after it are checked against that cycle
    bool rsp_drop_now = false;
    if (!exp_frames.empty()) {
      const unsigned ti = exp_frames.front();
      const Txd &t = txds[ti];
      if (op_response(t.op) && failed(t) && !rd_left[ti] && g_cycle >= drop_at(ti)) {
        if (trace)
          std::printf("%6llu drop descriptor %u %s (failed read)\n", (unsigned long long)g_cycle,
                      ti, op_name(t.op));
        exp_frames.pop_front();
        last_pop = g_cycle;
        drop_rsp++;
        rsp_drop_now = true;
        last_rsp_drop = ti;
        BLK_CHECK(!top.noack_valid_o,
                  "noack_valid_o (err %d) in the cycle descriptor %u (%s, failed read) is dropped: "
                  "a failed response is not reported",
                  top.noack_err_o, ti, op_name(t.op));
      }
    }

    if (trace) {
      if (txd_take)
        std::printf("%6llu txd %u op %s len %u nchunk %zu\n", (unsigned long long)g_cycle, next_txd,
                    op_name(txds[next_txd].op), txds[next_txd].pay_len,
                    txds[next_txd].chunks.size());
      if (req_take)
        std::printf("%6llu rd_req addr %llx len %u\n", (unsigned long long)g_cycle,
                    (unsigned long long)top.rd_req_addr_o, top.rd_req_len_o);
      if (rsp_take)
        std::printf("%6llu rd_rsp beat %u last %d err %d\n", (unsigned long long)g_cycle, rd_beat,
                    top.rd_rsp_last_i, top.rd_rsp_err_i);
      if (top.noack_valid_o)
        std::printf("%6llu noack qpn %x idx %u err %d\n", (unsigned long long)g_cycle, top.ev_qpn_o,
                    top.ev_idx_o, top.noack_err_o);
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
        ck.err = r.chance(kRdErrChance) && ti + 1 < kTxds;
        rdq.push_back({ti, ck.addr, ck.len, ck.err, g_cycle + r.range(1, 24)});
      }
    }
    const bool started = !cur_frame.empty();  // beats of the head frame went out before
    const bool first = tx_take && !started;
    if (tx_take) {
      uint8_t lanes[kBytes];
      vget_bytes(top.tx_data_o, lanes);
      const uint64_t keep = (uint64_t)top.tx_keep_o;
      const uint64_t all = kBytes == 64 ? ~0ull : ((1ull << kBytes) - 1);
      if (!top.tx_last_o) {
        BLK_CHECK(keep == all, "frame %u: keep 0x%llx on a beat that is not the last", frames_done,
                  (unsigned long long)keep);
      } else {
        BLK_CHECK(keep != 0 && (keep & (keep + 1)) == 0,
                  "frame %u: last-beat keep 0x%llx is not a contiguous mask from lane 0",
                  frames_done, (unsigned long long)keep);
      }
      for (unsigned i = 0; i < kBytes; i++)
        if ((keep >> i) & 1) cur_frame.push_back(lanes[i]);
      if (exp_frames.empty()) {
        fail("frame on the wire with no descriptor outstanding");
      } else {
        const Txd &t = txds[exp_frames.front()];
        if (first) {
          BLK_CHECK(top.ev_first_o == t.evf && top.ev_last_o == t.evl,
                    "frame %u: ev_first_o=%d ev_last_o=%d, descriptor has %d/%d", frames_done,
                    top.ev_first_o, top.ev_last_o, t.evf, t.evl);
          if (t.evf || t.evl)
            BLK_CHECK(top.ev_qpn_o == t.qpn && top.ev_idx_o == t.idx,
                      "frame %u: event qpn=0x%x idx=%u, expected 0x%x/%u", frames_done,
                      top.ev_qpn_o, top.ev_idx_o, t.qpn, t.idx);
        }
      }
    }
    BLK_CHECK(first || (!top.ev_first_o && !top.ev_last_o),
              "ev_first_o/ev_last_o pulse outside the first beat of a frame");

    // ---- noack: the head frame (next to start or be dropped, or on the wire)
    // decides
    bool drop_now = false;  // the head, a failed request, is dropped and reported
    {
      const bool head = !exp_frames.empty();
      const unsigned hi = head ? exp_frames.front() : 0;
      const bool hfail = head && failed(txds[hi]);
      const bool drop_due = hfail && !op_response(txds[hi].op) && !rd_left[hi] &&
                            g_cycle >= drop_at(hi);
      const bool na = head && !hfail && noack_frame(txds[hi]);
      const bool exp_pulse = (first && na) || (drop_due && na_ready);
      BLK_CHECK(top.noack_valid_o == exp_pulse || rsp_drop_now,
                "noack_valid_o=%d, expected %d (frame %u, descriptor %u %s ev_last %d%s, %s, "
                "noack_ready_i %d)",
                top.noack_valid_o, exp_pulse, frames_done, hi, head ? op_name(txds[hi].op) : "-",
                head ? txds[hi].evl : 0,
                !hfail     ? ""
                : drop_due ? ", failed read, drop due"
                           : ", failed read, drop not due",
                first     ? "first beat taken"
                : tx_take ? "later beat taken"
                          : "no beat taken",
                na_ready);
      BLK_CHECK(!top.noack_valid_o || na_ready, "noack_valid_o while noack_ready_i is low");
      if (top.noack_valid_o) {
        na_seen.push_back({hi, top.noack_err_o});
        BLK_CHECK(top.noack_err_o == hfail,
                  "descriptor %u (%s): noack_err_o=%d, its payload read %s (last failed response "
                  "dropped: descriptor %d)",
                  hi, op_name(txds[hi].op), top.noack_err_o, hfail ? "failed" : "did not fail",
                  (int)last_rsp_drop);
        BLK_CHECK(top.ev_qpn_o == txds[hi].qpn && top.ev_idx_o == txds[hi].idx,
                  "descriptor %u: noack qpn=0x%x idx=%u, expected 0x%x/%u", hi, top.ev_qpn_o,
                  top.ev_idx_o, txds[hi].qpn, txds[hi].idx);
        if (!hfail)
          BLK_CHECK(top.ev_last_o, "frame %u: noack_valid_o without ev_last_o", frames_done);
        drop_now = hfail;
      }
      // A failed frame is never offered, and nothing overtakes it; a frame
      // is offered at the earliest the cycle after the one before it left or
      // was dropped.
      if (hfail)
        BLK_CHECK(!top.tx_valid_o,
                  "tx_valid_o high while descriptor %u (%s, failed read, %s) is the head", hi,
                  op_name(txds[hi].op), rd_left[hi] ? "reads outstanding" : "reads done");
      if (top.tx_valid_o && !started)
        BLK_CHECK(g_cycle > last_pop,
                  "frame %u offered in the cycle the frame before it left or was dropped",
                  frames_done);
      if (drop_due && !na_ready) drop_hold_cycles++;
      if (!started && na && !na_ready) {
        // A UC/UD message's last frame does not start while the completion
        // cannot be taken.
        BLK_CHECK(!top.tx_valid_o,
                  "frame %u (descriptor %u, %s, ev_last): tx_valid_o high while noack_ready_i "
                  "is low",
                  frames_done, hi, op_name(txds[hi].op));
        na_hold_cycles++;
        if (head_offered && !head_held) {
          head_held = true;
          na_held_frames++;
        }
      }
      if (head && !started && head_offered) {
        // Once offered, a frame stays offered until it starts; only a noack
        // frame follows noack_ready_i.
        const bool exp_valid = na ? na_ready : true;
        BLK_CHECK(top.tx_valid_o == exp_valid,
                  "frame %u (descriptor %u, %s, ev_last %d): offered before, tx_valid_o=%d now "
                  "(noack_ready_i %d)",
                  frames_done, hi, op_name(txds[hi].op), txds[hi].evl, top.tx_valid_o, na_ready);
        if (!na && !na_ready) rc_offered_na_low++;
      }
      if (started)  // within a frame, tx_valid_o never drops
        BLK_CHECK(top.tx_valid_o, "frame %u: tx_valid_o low in the middle of the frame",
                  frames_done);
      if (prev_valid_wait && !top.tx_valid_o) na_withdrawn++;
      prev_valid_wait = top.tx_valid_o && !top.tx_ready_i;
      if (top.tx_valid_o && !started && !first) head_offered = true;
      if (first) {
        head_offered = false;
        head_held = false;
      }
    }

    top.clk_i = 1;
    top.eval();

    // ---- update the models
    if (txd_take) {
      BLK_CHECK(next_txd < kTxds, "descriptor taken twice");
      const Txd &t = txds[next_txd];
      exp_frames.push_back(next_txd);
      per_op[t.op]++;
      per_nchunk[t.chunks.size()]++;
      if (t.ud_en) (op_deth(t.op) ? ud_frames : ud_other)++;
      if (!t.pay_len) zero_pay++;
      rd_left[next_txd] = (unsigned)t.chunks.size();
      next_txd++;
      txd_offered = false;
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
    if (drop_now) {
      const Txd &t = txds[exp_frames.front()];
      drop_req[(t.op >> 5) == 0 ? 0 : (t.op >> 5) == 1 ? 1 : 2]++;
      if (noack_frame(t)) drop_na++;
      exp_frames.pop_front();
      last_pop = g_cycle;
      last_progress = g_cycle;
    }
    if (tx_take) {
      last_progress = g_cycle;
      if (tx_last && !exp_frames.empty()) {
        const unsigned ti = exp_frames.front();
        exp_frames.pop_front();
        last_pop = g_cycle;
        const Txd &t = txds[ti];
        if (noack_frame(t)) na_frames++;
        if (t.evl && !noack_frame(t)) rc_evl++;
        const QpCfg &c = qps[t.qpn];
        // The descriptor's fields as IBA field values (txd_t comments,
        // rnic_pkg): ImmDt and IETH in imm are wire bytes (byte i in bits
        // [8i+7:8i]), every other field a number sent big-endian.
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
          for (uint32_t i = 0; i < ck.len; i++)
            k.payload.push_back(mem_at(ck.addr + i));
        std::vector<uint8_t> exp = build_frame(k);
        if (cur_frame.size() != exp.size()) {
          fail(
              "frame %u (descriptor %u, %s, %u payload bytes in %zu chunks): %zu bytes on the "
              "wire, expected %zu",
              frames_done, ti, op_name(t.op), t.pay_len, t.chunks.size(), cur_frame.size(),
              exp.size());
        } else {
          for (size_t p = 0; p < exp.size(); p++) {
            if (cur_frame[p] != exp[p]) {
              fail(
                  "frame %u (descriptor %u, %s, %u payload bytes in %zu chunks, qpn 0x%x): "
                  "byte %zu (%s) is 0x%02x, expected 0x%02x",
                  frames_done, ti, op_name(t.op), t.pay_len, t.chunks.size(), t.qpn, p,
                  field_at(p, t.op, t.pay_len, exp.size()).c_str(), cur_frame[p], exp[p]);
              break;
            }
          }
          // Independent sanity of the captured frame itself.
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
        cur_frame.clear();
        frames_done++;
      }
    }
  }
  BLK_CHECK(next_txd == kTxds && exp_frames.empty() && exp_reads.empty() && rdq.empty(),
            "end: %u/%u descriptors taken, %zu frames and %zu reads missing", next_txd, kTxds,
            exp_frames.size(), exp_reads.size());
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
  BLK_CHECK(na_frames > 200 && rc_evl > 200 && na_hold_cycles > 1000 && na_held_frames > 20 &&
                rc_offered_na_low > 100,
            "weak noack coverage: %u UC/UD last frames, %u RC ev_last frames, %u hold cycles, "
            "%u frames held after being offered, %u cycles an offered RC frame saw noack_ready_i "
            "low",
            na_frames, rc_evl, na_hold_cycles, na_held_frames, rc_offered_na_low);
  BLK_CHECK(drop_req[0] > 0 && drop_req[1] + drop_req[2] > 0 && drop_rsp > 0 && drop_na > 0 &&
                drop_hold_cycles > 0,
            "weak failed-read coverage: %u RC, %u UC and %u UD requests dropped (%u UC/UD last "
            "frames), %u responses dropped, %u cycles a drop waited for noack_ready_i",
            drop_req[0], drop_req[1], drop_req[2], drop_na, drop_rsp, drop_hold_cycles);
  info(
      "%u frames, %llu payload reads (%llu with err), per chunk count %u/%u/%u/%u/%u, %u with "
      "no payload, ud_en on %u UD and %u other descriptors; descriptors per opcode %s",
      frames_done, (unsigned long long)reads, (unsigned long long)err_rsp, per_nchunk[0],
      per_nchunk[1], per_nchunk[2], per_nchunk[3], per_nchunk[4], zero_pay, ud_frames, ud_other,
      ops.c_str());
  info(
      "failed reads: %u request frames dropped and reported (%u RC, %u UC, %u UD; %u of them "
      "UC/UD last frames), %u response frames dropped silently; %u cycles a due drop waited for "
      "noack_ready_i",
      n_drop_req, drop_req[0], drop_req[1], drop_req[2], drop_na, drop_rsp, drop_hold_cycles);
  info(
      "noack: %zu pulses for %u UC/UD last frames and %u failed requests, %u RC frames with "
      "ev_last and none; %u cycles a UC/UD last frame waited for noack_ready_i (%u frames held "
      "after being offered, %u times tx_valid_o fell without a transfer); %u cycles an offered "
      "RC frame stayed offered with noack_ready_i low",
      na_seen.size(), na_frames, n_drop_req, rc_evl, na_hold_cycles, na_held_frames, na_withdrawn,
      rc_offered_na_low);
  top.final();
  return finish(vctx);
}
