// blk_rnic_responder, blk_rnic_completer: the receive transport's two
// roles (rnic_responder, rnic_completer), with crafted packets - the
// responder's request path (what the verbs API cannot send), its ACK
// requests, and the completer's answer to late NAKs - and random traffic of
// each role against a reference model of its rules (rsp_random, cpl_random
// below). One source, two builds (ROLE), each with its role's cases. (Until
// stop 54 a third build, blk_rnic_rx_engine, ran both roles in one engine;
// until stop 56 each role's module held that engine built for the role.)
//
// The block alone (NQp 8): a QP context table answers its context port,
// the memory-region port reads as no region, placement is never busy and
// every output is taken at once (in the random cases, in 70 % of the
// cycles). Each case below uses a QP of its own
// (expected PSN set by a context write) and checks the jobs the engine
// hands the transmit side (kind, QPN, PSN, syndrome, MSN), the QP errors it
// reports and that every frame slot it took is released or handed to
// placement. The expectations
// are IBTA's (C9-x responder rules, docs/transport.md), written per case:
//   ack_req      a zero-length WRITE_ONLY asking for its ACK: ACK of its
//                PSN, MSN 1, at once;
//   delayed      the same without AckReq: no job for 255 cycles, then the
//                delayed ACK (PSN, MSN 1) within a few more;
//   covered      a WRITE without AckReq, then one with it 40 cycles later:
//                one ACK, of the second PSN, and nothing after it;
//   dup          a duplicate WRITE without AckReq: ACK of expected PSN - 1
//                at once (duplicates are always answered);
//   reset        a WRITE without AckReq, then a context write of its QP:
//                no ACK ever;
//   middle       an RC WRITE_MIDDLE in sequence without its FIRST: NAK
//                invalid request of its PSN, the QP reported in error;
//   too_long     a WRITE_ONLY carrying more bytes than its RETH length:
//                NAK invalid request, the QP reported in error;
//   late_naks    the completer: a send WQE's record (PSN 100) is handed
//                over; an RNR NAK and a remote access NAK of PSN 90 (late:
//                that PSN was acknowledged before) change nothing - no
//                completion, no QP error, no rewind; then the ACK of PSN
//                100 completes the WQE (success, its index, QPN, opcode and
//                length) and reports progress (done_ci 1);
//   tx_fault     a payload read failure reported for that WQE after it
//                completed: nothing happens;
//   done_wait    two WQEs retired by one ACK while the SQ scheduler takes
//                no progress report for 20 cycles: both complete, in
//                order, and both reports follow (done_ci 1, then 2);
//   wqe_read_err a SEND whose receive WQE the engine reads itself (a WQE
//                cache miss) and the read fails: the receive completes with
//                IBV_WC_LOC_QP_OP_ERR, a NAK remote operational error goes
//                out, the QP is reported in error;
//   dup_atomic   a duplicate CMP_SWAP while the atomic unit is full (not
//                ready for 20 cycles): handed to it once, marked duplicate,
//                with its PSN; no job of the engine's own;
//   err_waits    a responder error while the ACK before it still waits
//                for the transmit side: the NAK follows the ACK;
//   dup_read_owe a WRITE without AckReq, then a duplicate READ: the READ
//                is executed again (its job marked duplicate) and the
//                WRITE's delayed ACK still follows (until stop 54 the
//                duplicate's job paid the debt: no ACK ever);
//   atomic_owe   a WRITE without AckReq, then a FETCH_ADD: the atomic's
//                response acknowledges the WRITE, no delayed ACK follows;
//   (cqe_roles, until stop 54: a send completion leaving while a receive
//   completion waits, in one engine with both roles; two modules now.)
#include "blk_common.h"

// ROLE 1: rnic_responder; 2: rnic_completer.
#if ROLE == 1
#include "Vrnic_responder.h"
using Dut = Vrnic_responder;
#define HAS_RSP 1
#define HAS_CPL 0
#elif ROLE == 2
#include "Vrnic_completer.h"
using Dut = Vrnic_completer;
#define HAS_RSP 0
#define HAS_CPL 1
#else
#error "ROLE: 1 (responder) or 2 (completer)"
#endif

#include <functional>
#include <vector>

using namespace blk;

namespace {

constexpr unsigned kNQp = 8;
constexpr unsigned kRxDescW = 479, kSlotW = 2;
constexpr unsigned kRspJobW = 243;
constexpr uint8_t kOpReadReq = 0x0c, kOpSendOnly = 0x04, kOpWriteFirst = 0x06,
                  kOpWriteMiddle = 0x07, kOpWriteLast = 0x08, kOpWriteOnly = 0x0a,
                  kOpWriteOnlyImm = 0x0b, kOpAck = 0x11;
constexpr uint8_t kAethAck = 0x1f, kAethNakPsnSeq = 0x60, kAethNakInvReq = 0x61, kAethNakRemAcc = 0x62,
                  kAethNakRemOp = 0x63;
constexpr uint8_t kAethRnr = 0x21;   // RNR NAK, timer 1 (0.01 ms)
constexpr unsigned kInflW = 148, kCqeW = 176, kAtOpW = 266, kRewindW = 89;
constexpr uint8_t kOpCmpSwap = 0x13, kOpFetchAdd = 0x14;
constexpr unsigned kAckDelay = 256;

struct Job {
  uint64_t cycle;
  unsigned kind, qpn, psn, syn, msn;
  uint64_t addr = 0;   // READ: bus address, length; answers a duplicate
  unsigned len = 0;
  bool dup = false;
};

struct Desc {
  unsigned qpn = 0, psn = 0;
  uint8_t op = kOpWriteOnly;
  bool ack_req = false;
  unsigned pay_len = 0;
  uint64_t reth_va = 0;
  uint32_t reth_rkey = 0, reth_len = 0;
  uint8_t aeth_syn = 0;

  Bits pack(unsigned slot) const {
    Packer p(kSlotW + 8 + kRxDescW);
    p.f(kSlotW, slot)
        .f(8, 0)                       // payload offset in the slot
        .f(24, qpn)
        .f(8, op)
        .f(24, psn)
        .f(1, ack_req)
        .f(1, 0)                       // se
        .f(13, pay_len)
        .f(64, reth_va)
        .f(32, reth_rkey)
        .f(32, reth_len)
        .f(32, 0)                      // imm
        .f(8, aeth_syn)
        .f(24, 0)                      // aeth_msn
        .f(32, 0)                      // src_ip
        .f(64, 0)
        .f(64, 0)                      // atomic operands
        .f(32, 0)                      // qkey
        .f(24, 0);                     // src_qp
    return p.done();
  }
};

struct Cqe {
  unsigned qpn, wqe_idx, status, opcode, byte_len;
};

struct Rewind {
  unsigned qpn, idx, first, restart;
  bool hold;
};

struct Bench {
  VerilatedContext &vctx;
  Dut t;
  QpCfg ctx[kNQp];
  std::vector<Job> jobs;
  std::vector<unsigned> errs;  // QPs reported in error
  std::vector<Cqe> cqes;
  std::vector<uint64_t> cqe_at;   // the cycle each was taken
  std::vector<std::pair<unsigned, unsigned>> dones;  // progress reports: QPN, done_ci
  std::vector<Rewind> rws;   // the rewinds taken
  std::vector<unsigned> rd_dones;   // READ/atomic credits returned: QPN
  std::vector<std::pair<unsigned, bool>> atomics;  // handed to the unit: PSN, duplicate
  // Host memory for the WQE reads: a read of len bytes at addr is answered
  // with its beats in order (failed ones if rd_err); the engine issues one
  // at a time.
  std::map<uint64_t, uint8_t> mem;
  bool rd_err = false;
  uint64_t rd_addr = 0;
  unsigned rd_beats = 0, rd_beat = 0;   // beats of the read in progress, the next one
  unsigned rd_reqs = 0;                 // WQE reads issued
  // The MR table's answers (rnic_pkg::mr_cfg_t), none valid unless set
  struct Mr {
    bool valid = false;
    uint8_t key = 0, access = 0;
    uint64_t va = 0, len = 0, iova = 0;
  } mrs[kNQp];
  // Placement jobs taken: QPN, PSN, segments, first segment's bus address and length
  struct Place {
    unsigned qpn, psn, nseg;
    uint64_t addr;
    unsigned len;
  };
  std::vector<Place> places;
  unsigned held = 0;           // frame slots taken and not released (bit mask)
  unsigned next_slot = 0;
  std::function<void()> each_cycle;   // random back-pressure, set after each clock edge

  explicit Bench(VerilatedContext &c) : vctx(c), t(&c, "eng") {
    for (auto &q : ctx) {
      q.state = 3;   // RTS
      q.qp_type = 2; // RC
      q.pmtu = 5;    // 4096
      q.access = 0xf;
      q.max_dest_rd_atomic = 4;
    }
    t.pkt_valid_i = 0;
    t.qp_wr_i = 0;
    t.rd_req_ready_i = 1;
    t.rd_rsp_valid_i = 0;
    t.rwc_lk_hit_i = 0;
    t.rwc_lk_pend_i = 0;
    t.rwc_lk_err_i = 0;
    t.rwc_room_i = 1;
    t.place_busy_i = 0;
    t.err_in_valid_i = 0;
#if HAS_RSP
    t.rq_db_valid_i = 0;
    t.rcqe_ready_i = 1;
    t.job_ready_i = 1;
    t.rsp_done_i = 0;
    t.at_ready_i = 1;
    t.at_busy_i = 0;
    t.at_err_valid_i = 0;
    t.srq_wr_i = 0;
    t.mr_upd_ready_i = 1;
    t.aev_ready_i = 1;
    t.query_idx_i = 0;
#endif
#if HAS_CPL
    t.infl_valid_i = 0;
    t.scqe_ready_i = 1;
    t.wr_ready_i = 1;
    t.rewind_ready_i = 1;
    t.noack_valid_i = 0;
    t.done_ready_i = 1;
    t.skip_i = 0;
    t.skip_cycles_i = 0;
#endif
    reset_dut(t);
  }

  // The context port answers within the cycle (ctx_idx_o is a register).
  void drive_ctx() {
    unsigned i = t.ctx_idx_o;
    QpCfg q;
    if (i < kNQp) q = ctx[i];
    else q.state = 0;
    vset(t.ctx_i, q.pack());
    Mr m;
    if (t.mr_idx_o < kNQp) m = mrs[t.mr_idx_o];
    Packer p(248);
    p.f(1, m.valid).f(8, m.key).f(5, m.access).f(16, 0).f(64, m.va).f(64, m.len).f(64, m.iova)
        .f(1, 0).f(1, 0).f(24, 0);
    vset(t.mr_i, p.done());
  }

  // The beat of the read in progress on the response port.
  void drive_rd() {
    t.rd_rsp_valid_i = rd_beat < rd_beats;
    t.rd_rsp_err_i = rd_err;
    t.rd_rsp_last_i = rd_beat + 1 == rd_beats;
    uint8_t b[32];
    for (unsigned k = 0; k < 32; k++) {
      auto it = mem.find(rd_addr + 32ull * rd_beat + k);
      b[k] = it == mem.end() ? 0 : it->second;
    }
    vset_bytes(t.rd_rsp_data_i, b);
  }

  void poke32(uint64_t a, uint32_t v) {
    for (unsigned k = 0; k < 4; k++) mem[a + k] = (uint8_t)(v >> (8 * k));
  }
  void poke64(uint64_t a, uint64_t v) {
    poke32(a, (uint32_t)v);
    poke32(a + 4, (uint32_t)(v >> 32));
  }

  void take_cqe(const Bits &c, bool recv) {
    Cqe e{(unsigned)c.get(136, 24), (unsigned)c.get(120, 16), (unsigned)c.get(112, 8),
          (unsigned)c.get(104, 8), (unsigned)c.get(72, 32)};
    BLK_CHECK((e.opcode >= 128) == recv, "QP %u WQE %u: opcode %u on the %s CQE port", e.qpn,
              e.wqe_idx, e.opcode, recv ? "receive" : "send");
    cqes.push_back(e);
    cqe_at.push_back(g_cycle);
  }

  // One clock edge; what the engine offered in the cycle before it is taken.
  void cycle() {
    drive_rd();
    drive_ctx();
    t.eval();
    if (t.rd_rsp_valid_i && t.rd_rsp_ready_o) rd_beat++;
    if (t.rd_req_valid_o && t.rd_req_ready_i) {
      BLK_CHECK(rd_beat >= rd_beats, "a WQE read issued while one is answered");
      rd_reqs++;
      rd_addr = t.rd_req_addr_o;
      rd_beats = std::max(1u, ((unsigned)t.rd_req_len_o + 31) / 32);
      rd_beat = 0;
    }
    if (t.place_start_o) {
      Bits a = vget(t.place_addr_o, 64 * 5), l = vget(t.place_len_o, 32 * 5);
      places.push_back(Place{t.place_ev_qpn_o, t.place_ev_psn_o, t.place_nseg_o, a.get(0, 64),
                             (unsigned)l.get(0, 32)});
    }
#if HAS_RSP
    if (t.job_valid_o && t.job_ready_i) {
      Bits j = vget(t.job_o, kRspJobW);
      Job r{g_cycle, (unsigned)j.get(241, 2), (unsigned)j.get(217, 24),
            (unsigned)j.get(193, 24), (unsigned)j.get(185, 8), (unsigned)j.get(161, 24),
            j.get(97, 64), (unsigned)j.get(65, 32), j.bit(0)};
      jobs.push_back(r);
    }
#endif
    if (t.qp_err_o) errs.push_back(t.qp_err_qpn_o);
    // Send completions leave on the completer's port, receive completions
    // (opcode 128 and up) on the responder's.
#if HAS_CPL
    if (t.scqe_valid_o && t.scqe_ready_i) take_cqe(vget(t.scqe_o, kCqeW), false);
    if (t.done_valid_o && t.done_ready_i) dones.emplace_back(t.done_qpn_o, t.done_ci_o);
    if (t.rd_done_o) rd_dones.push_back(t.rd_done_qpn_o);
    if (t.rewind_valid_o && t.rewind_ready_i) {
      Bits r = vget(t.rewind_o, kRewindW);
      rws.push_back(Rewind{(unsigned)r.get(65, 24), (unsigned)r.get(49, 16),
                           (unsigned)r.get(25, 24), (unsigned)r.get(1, 24), r.bit(0)});
    }
#endif
#if HAS_RSP
    if (t.rcqe_valid_o && t.rcqe_ready_i) take_cqe(vget(t.rcqe_o, kCqeW), true);
    if (t.at_valid_o && t.at_ready_i) {
      Bits a = vget(t.at_o, kAtOpW);
      atomics.emplace_back((unsigned)a.get(218, 24), a.bit(0));
    }
#endif
    // The slot goes back with release_o, or to placement, which frees it.
    if (t.release_o) held &= ~(1u << t.release_slot_o);
    if (t.place_start_o) held &= ~(1u << t.place_slot_o);
    t.clk_i = 1;
    t.eval();
    t.clk_i = 0;
    t.qp_wr_i = 0;
    if (each_cycle) each_cycle();   // the next cycle's inputs, before anyone samples
    drive_ctx();
    t.eval();
    g_cycle++;
  }

  void run(unsigned n) {
    for (unsigned i = 0; i < n; i++) cycle();
  }

  // A context write that resets the QP's queues and sets its PSNs.
  void ctx_write(unsigned qpn, unsigned epsn, unsigned sq_psn = 0) {
    t.qp_wr_i = 1;
    t.qp_wr_idx_i = qpn;
    t.qp_wr_flags_i = (1u << 0) | (1u << 1) | (1u << 2) | (1u << 3);
    t.qp_wr_state_i = 3;
    t.qp_wr_rq_psn_i = epsn;
    t.qp_wr_sq_psn_i = sq_psn;
    cycle();
  }

  // The driver moves QP qpn to ERR (a context write of the state alone).
  void move_to_err(unsigned qpn) {
    t.qp_wr_i = 1;
    t.qp_wr_idx_i = qpn;
    t.qp_wr_flags_i = 0;
    t.qp_wr_state_i = 6;   // ERR
    cycle();
    ctx[qpn].state = 6;
  }

  // The QPs (a bit each) with a flush completion of their WQE 0 among the
  // completions since c0, and how many such completions there are (n).
  unsigned flushed_wqe0(size_t c0, unsigned &n) const {
    unsigned mask = 0;
    n = 0;
    for (size_t k = c0; k < cqes.size(); k++) {
      if (cqes[k].wqe_idx == 0 && cqes[k].status == 5) {
        mask |= 1u << cqes[k].qpn;
        n++;
      }
    }
    return mask;
  }

#if HAS_CPL
  // Hands the completer an RC send WQE's in-flight record (rnic_pkg::infl_t).
  void record(unsigned qpn, unsigned idx, unsigned first, unsigned last, unsigned len,
              unsigned kind = 0 /* InflNormal; 3: InflNoAck */, bool signaled = true,
              bool is_read = false) {
    Packer p(kInflW);
    p.f(24, qpn).f(8, 0).f(16, idx).f(2, kind).f(8, 0)
        .f(8, is_read ? 2 /* WcOpRead */ : 1 /* WcOpWrite */).f(1, signaled).f(1, is_read)
        .f(24, first).f(24, last).f(32, len);
    vset(t.infl_i, p.done());
    BLK_CHECK(offer(t.infl_valid_i, [&] { return t.infl_ready_o; }), "record of QP %u not taken",
              qpn);
  }
#endif

  // Holds valid high until ready() says the engine takes it (at most 1000
  // cycles); whether it did.
  template <class R>
  bool offer(CData &valid, R ready) {
    bool taken = false;
    valid = 1;
    for (unsigned n = 0; n < 1000 && !taken; n++) {
      drive_ctx();
      t.eval();
      taken = ready();
      cycle();
    }
    valid = 0;
    return taken;
  }

  // Offers one packet until the engine takes it.
  // Its slot is the next free one of the three; none free, it waits.
  void packet(const Desc &d) {
    for (unsigned n = 0; n < 1000 && held == 7u; n++) cycle();
    BLK_CHECK(held != 7u, "no frame slot released for 1000 cycles");
    unsigned slot = next_slot;
    while (held & (1u << slot)) slot = (slot + 1) % 3;
    next_slot = (slot + 1) % 3;
    vset(t.pkt_i, d.pack(slot));
    BLK_CHECK(offer(t.pkt_valid_i, [&] { return t.pkt_ready_o; }), "packet of QP %u not taken",
              d.qpn);
    held |= 1u << slot;
  }

  // Offers a plain ACK of PSN psn for QP qpn.
  void ack(unsigned qpn, unsigned psn) {
    Desc d{qpn, psn, kOpAck, false};
    d.aeth_syn = kAethAck;
    packet(d);
  }

  std::vector<Job> jobs_since(size_t from) const {
    return std::vector<Job>(jobs.begin() + (long)from, jobs.end());
  }
};

// A QP context as the cases start from: RTS, RC, MTU 4096, every access.
QpCfg fresh_qp()
{
  QpCfg q;
  q.state = 3;
  q.qp_type = 2;
  q.pmtu = 5;
  q.access = 0xf;
  q.max_dest_rd_atomic = 4;
  return q;
}

#if HAS_RSP
void expect_job(const char *c, const Job &j, unsigned qpn, unsigned psn, unsigned syn,
                unsigned msn)
{
  BLK_CHECK(j.kind == 0 && j.qpn == qpn && j.psn == psn && j.syn == syn && j.msn == msn,
            "%s: job kind %u qpn %u psn %u syn 0x%02x msn %u, expected ACK/NAK qpn %u psn %u "
            "syn 0x%02x msn %u",
            c, j.kind, j.qpn, j.psn, j.syn, j.msn, qpn, psn, syn, msn);
}

// A fresh QP (expected PSN d.psn) gets a request it must refuse: one NAK
// invalid request of its PSN, the QP reported in error (then ERR in the
// context, as rnic_ctx_tables makes it).
void nak_inv_req(Bench &b, const char *c, const Desc &d)
{
  b.ctx_write(d.qpn, d.psn);
  size_t j0 = b.jobs.size(), e0 = b.errs.size();
  b.packet(d);
  b.run(30);
  auto js = b.jobs_since(j0);
  BLK_CHECK(js.size() == 1, "%s: %zu jobs", c, js.size());
  if (js.size() == 1) expect_job(c, js[0], d.qpn, d.psn, kAethNakInvReq, 0);
  BLK_CHECK(b.errs.size() == e0 + 1 && b.errs.back() == d.qpn, "%s: QP errors %zu", c,
            b.errs.size() - e0);
  b.ctx[d.qpn].state = 6;
}

#endif

#if HAS_RSP
// The responder's first cases: ACK timing and the invalid requests.
void rsp_acks(Bench &b)
{
  // ack_req: QP 2, PSN 100
  b.ctx_write(2, 100);
  size_t j0 = b.jobs.size();
  uint64_t t0 = g_cycle;
  b.packet(Desc{2, 100, kOpWriteOnly, true});
  b.run(20);
  auto js = b.jobs_since(j0);
  BLK_CHECK(js.size() == 1, "ack_req: %zu jobs", js.size());
  if (js.size() == 1) {
    expect_job("ack_req", js[0], 2, 100, kAethAck, 1);
    BLK_CHECK(js[0].cycle - t0 < 10, "ack_req: ACK %llu cycles after the packet",
              (unsigned long long)(js[0].cycle - t0));
  }

  // delayed: the same QP, PSN 101, no AckReq
  j0 = b.jobs.size();
  t0 = g_cycle;
  b.packet(Desc{2, 101, kOpWriteOnly, false});
  b.run(kAckDelay - 1);
  BLK_CHECK(b.jobs.size() == j0, "delayed: a job %llu cycles after the packet",
            (unsigned long long)(b.jobs.empty() ? 0 : b.jobs.back().cycle - t0));
  b.run(40);
  js = b.jobs_since(j0);
  BLK_CHECK(js.size() == 1, "delayed: %zu jobs", js.size());
  if (js.size() == 1) {
    expect_job("delayed", js[0], 2, 101, kAethAck, 2);
    info("delayed: the ACK %llu cycles after its packet was taken",
         (unsigned long long)(js[0].cycle - t0));
    BLK_CHECK(js[0].cycle - t0 <= kAckDelay + 10, "delayed: ACK after %llu cycles",
              (unsigned long long)(js[0].cycle - t0));
  }

  // covered: PSN 102 without, 103 with AckReq
  j0 = b.jobs.size();
  b.packet(Desc{2, 102, kOpWriteOnly, false});
  b.run(40);
  b.packet(Desc{2, 103, kOpWriteOnly, true});
  b.run(2 * kAckDelay);
  js = b.jobs_since(j0);
  BLK_CHECK(js.size() == 1, "covered: %zu jobs", js.size());
  if (js.size() == 1) expect_job("covered", js[0], 2, 103, kAethAck, 4);

  // dup: PSN 103 again, without AckReq
  j0 = b.jobs.size();
  b.packet(Desc{2, 103, kOpWriteOnly, false});
  b.run(20);
  js = b.jobs_since(j0);
  BLK_CHECK(js.size() == 1, "dup: %zu jobs", js.size());
  if (js.size() == 1) expect_job("dup", js[0], 2, 103, kAethAck, 4);

  // reset: QP 5, PSN 7 without AckReq, then the QP's context is written
  b.ctx_write(5, 7);
  j0 = b.jobs.size();
  b.packet(Desc{5, 7, kOpWriteOnly, false});
  b.run(30);
  b.ctx_write(5, 50);
  b.run(2 * kAckDelay);
  BLK_CHECK(b.jobs.size() == j0, "reset: %zu jobs", b.jobs.size() - j0);

  // middle: QP 3, PSN 1000, WRITE_MIDDLE without a FIRST
  nak_inv_req(b, "middle", Desc{3, 1000, kOpWriteMiddle, true, 256});
  // too_long: QP 4, PSN 9, 64 bytes against a RETH length of 0
  nak_inv_req(b, "too_long", Desc{4, 9, kOpWriteOnly, true, 64, 0x1000, 0x100, 0});
  b.run(50);
}
#endif

#if HAS_CPL
// The completer's late NAKs, payload faults and progress reports.
void cpl_naks(Bench &b)
{
  size_t e0;

  // late_naks: QP 6, the send queue's first PSN 100
  b.ctx_write(6, 0, 100);
  b.record(6, 0, 100, 100, 64);
  size_t c0 = b.cqes.size(), d0 = b.dones.size();
  e0 = b.errs.size();
  size_t rw0 = b.rws.size();
  Desc nak{6, 90, kOpAck, false};
  nak.aeth_syn = kAethRnr;
  b.packet(nak);
  nak.aeth_syn = kAethNakRemAcc;
  b.packet(nak);
  b.run(100);
  BLK_CHECK(b.cqes.size() == c0 && b.errs.size() == e0 && b.rws.size() == rw0 &&
                b.dones.size() == d0,
            "late_naks: %zu completions, %zu QP errors, %zu rewinds, %zu reports after two "
            "late NAKs", b.cqes.size() - c0, b.errs.size() - e0, b.rws.size() - rw0,
            b.dones.size() - d0);
  b.ack(6, 100);
  b.run(30);
  BLK_CHECK(b.cqes.size() == c0 + 1, "late_naks: %zu completions after the ACK",
            b.cqes.size() - c0);
  if (b.cqes.size() == c0 + 1) {
    const Cqe &c = b.cqes.back();
    BLK_CHECK(c.qpn == 6 && c.wqe_idx == 0 && c.status == 0 && c.opcode == 1 && c.byte_len == 64,
              "late_naks: completion qpn %u idx %u status %u opcode %u len %u", c.qpn,
              c.wqe_idx, c.status, c.opcode, c.byte_len);
  }
  BLK_CHECK(b.dones.size() == d0 + 1 && b.dones.back().first == 6 && b.dones.back().second == 1,
            "late_naks: %zu progress reports", b.dones.size() - d0);
  BLK_CHECK(b.errs.size() == e0 && b.rws.size() == rw0, "late_naks: an error or rewind");
  b.run(50);

  // tx_fault: QP 6's WQE 0 completed; a payload read failure reported now
  c0 = b.cqes.size();
  e0 = b.errs.size();
  b.t.noack_err_i = 1;
  b.t.noack_qpn_i = 6;
  b.t.noack_idx_i = 0;
  BLK_CHECK(b.offer(b.t.noack_valid_i, [&] { return b.t.noack_ready_o; }),
            "tx_fault: the report not taken");
  b.run(50);
  BLK_CHECK(b.cqes.size() == c0 && b.errs.size() == e0,
            "tx_fault: %zu completions, %zu QP errors", b.cqes.size() - c0, b.errs.size() - e0);

  // done_wait: QP 1, WQEs 0 and 1 (PSNs 300, 301), one ACK, no report taken
  b.ctx_write(1, 0, 300);
  b.record(1, 0, 300, 300, 8);
  b.record(1, 1, 301, 301, 16);
  c0 = b.cqes.size();
  d0 = b.dones.size();
  b.t.done_ready_i = 0;
  b.ack(1, 301);
  b.run(20);
  b.t.done_ready_i = 1;
  b.run(30);
  BLK_CHECK(b.cqes.size() == c0 + 2, "done_wait: %zu completions", b.cqes.size() - c0);
  if (b.cqes.size() == c0 + 2)
    BLK_CHECK(b.cqes[c0].wqe_idx == 0 && b.cqes[c0 + 1].wqe_idx == 1 &&
                  b.cqes[c0].byte_len == 8 && b.cqes[c0 + 1].byte_len == 16,
              "done_wait: completions of WQEs %u, %u", b.cqes[c0].wqe_idx,
              b.cqes[c0 + 1].wqe_idx);
  BLK_CHECK(b.dones.size() == d0 + 2 && b.dones[d0] == std::make_pair(1u, 1u) &&
                b.dones[d0 + 1] == std::make_pair(1u, 2u),
            "done_wait: %zu progress reports", b.dones.size() - d0);

  // done_at_reset: QP 1's progress report of WQE 0 waits (no done_ready_i)
  // when a context write resets the QP's queues: it is dropped, since
  // rnic_sq_fetch starts the QP's indices at 0 and would take it as done.
  b.ctx_write(1, 0, 300);
  b.record(1, 0, 300, 300, 8);
  d0 = b.dones.size();
  b.t.done_ready_i = 0;
  b.ack(1, 300);
  b.run(20);
  BLK_CHECK(b.t.done_valid_o && b.t.done_qpn_o == 1,
            "done_at_reset: no progress report of QP 1 waiting");
  b.ctx_write(1, 0, 300);
  b.t.done_ready_i = 1;
  b.run(30);
  BLK_CHECK(b.dones.size() == d0, "done_at_reset: %zu progress reports after the reset",
            b.dones.size() - d0);
}
#endif

#if HAS_RSP
// The responder's failed WQE read, duplicate atomic and an error behind an ACK.
void rsp_errs(Bench &b)
{
  size_t c0, e0, j0;
  std::vector<Job> js;

  // wqe_read_err: QP 7, one receive posted, a SEND_ONLY whose WQE read fails
  b.ctx[7].rq_base = 0x10000;
  b.ctx[7].rq_log_size = 4;
  b.ctx[7].rq_wqe_shift = 6;
  b.ctx[7].rcqn = 3;
  b.ctx_write(7, 40);
  b.t.rq_db_data_i = (1ull << 32) | 7;   // producer index 1
  BLK_CHECK(b.offer(b.t.rq_db_valid_i, [&] { return b.t.rq_db_ready_o; }),
            "wqe_read_err: the doorbell not taken");
  b.run(10);
  c0 = b.cqes.size();
  e0 = b.errs.size();
  j0 = b.jobs.size();
  b.rd_err = true;
  b.packet(Desc{7, 40, kOpSendOnly, true, 32});
  b.run(40);
  b.rd_err = false;
  js = b.jobs_since(j0);
  BLK_CHECK(js.size() == 1, "wqe_read_err: %zu jobs", js.size());
  if (js.size() == 1) expect_job("wqe_read_err", js[0], 7, 40, kAethNakRemOp, 0);
  BLK_CHECK(b.cqes.size() == c0 + 1, "wqe_read_err: %zu completions", b.cqes.size() - c0);
  if (b.cqes.size() == c0 + 1) {
    const Cqe &c = b.cqes.back();
    BLK_CHECK(c.qpn == 7 && c.wqe_idx == 0 && c.status == 2 && c.opcode == 128,
              "wqe_read_err: completion qpn %u idx %u status %u opcode %u", c.qpn, c.wqe_idx,
              c.status, c.opcode);
  }
  BLK_CHECK(b.errs.size() == e0 + 1 && b.errs.back() == 7, "wqe_read_err: QP errors %zu",
            b.errs.size() - e0);
  b.ctx[7].state = 6;
  b.run(50);

  // dup_atomic: QP 2 expects PSN 104; a CMP_SWAP of PSN 99 again
  j0 = b.jobs.size();
  size_t a0 = b.atomics.size();
  b.t.at_ready_i = 0;
  b.packet(Desc{2, 99, kOpCmpSwap, true, 0, 0x2000, 0x100, 8});
  b.run(20);
  BLK_CHECK(b.atomics.size() == a0, "dup_atomic: handed over while the unit is full");
  b.t.at_ready_i = 1;
  b.run(20);
  BLK_CHECK(b.atomics.size() == a0 + 1 && b.atomics.back().first == 99 &&
                b.atomics.back().second,
            "dup_atomic: %zu atomics handed over", b.atomics.size() - a0);
  BLK_CHECK(b.jobs.size() == j0, "dup_atomic: %zu jobs", b.jobs.size() - j0);

  // err_waits: QP 2's WRITE (PSN 104) asks for its ACK, which the transmit
  // side does not take; then QP 5 gets a WRITE_MIDDLE without its FIRST.
  b.ctx_write(5, 50);
  j0 = b.jobs.size();
  e0 = b.errs.size();
  b.t.job_ready_i = 0;
  b.packet(Desc{2, 104, kOpWriteOnly, true});
  b.packet(Desc{5, 50, kOpWriteMiddle, true, 256});
  b.run(20);
  BLK_CHECK(b.errs.size() == e0, "err_waits: the QP error before the ACK left");
  b.t.job_ready_i = 1;
  b.run(30);
  js = b.jobs_since(j0);
  BLK_CHECK(js.size() == 2, "err_waits: %zu jobs", js.size());
  if (js.size() == 2) {
    expect_job("err_waits ACK", js[0], 2, 104, kAethAck, 5);
    expect_job("err_waits NAK", js[1], 5, 50, kAethNakInvReq, 0);
  }
  BLK_CHECK(b.errs.size() == e0 + 1 && b.errs.back() == 5, "err_waits: QP errors %zu",
            b.errs.size() - e0);
  b.ctx[5].state = 6;
  b.run(50);

  // dup_read_owe: QP 1 takes a WRITE without AckReq (PSN 501, owing its
  // ACK), then a duplicate READ of PSN 500: the READ is executed again, and
  // the delayed ACK of 501 still follows.
  b.ctx[1] = fresh_qp();
  b.mrs[5] = Bench::Mr{true, 0x33, 1 | 4, 0x40000000, 1ull << 24, 0x900000000ull};
  b.ctx_write(1, 500);
  b.packet(Desc{1, 500, kOpWriteOnly, true});
  b.run(20);
  j0 = b.jobs.size();
  uint64_t t0 = g_cycle;
  b.packet(Desc{1, 501, kOpWriteOnly, false});
  b.run(5);
  Desc rd{1, 500, kOpReadReq, false};
  rd.reth_len = 64;
  rd.reth_va = 0x40000000;
  rd.reth_rkey = (5u << 8) | 0x33;
  b.packet(rd);
  b.run(kAckDelay + 40);
  js = b.jobs_since(j0);
  BLK_CHECK(js.size() == 2 && js[0].kind == 1 && js[0].dup && js[0].psn == 500,
            "dup_read_owe: %zu jobs, the first of kind %u", js.size(),
            js.empty() ? 9 : js[0].kind);
  if (js.size() == 2) {
    expect_job("dup_read_owe", js[1], 1, 501, kAethAck, 2);
    BLK_CHECK(js[1].cycle - t0 <= kAckDelay + 20, "dup_read_owe: the ACK %llu cycles after "
              "its WRITE", (unsigned long long)(js[1].cycle - t0));
  }

  // atomic_owe: QP 1 takes a WRITE without AckReq (PSN 502, owing its ACK),
  // then a FETCH_ADD (PSN 503): the atomic's response acknowledges the
  // WRITE, so no ACK of 502 follows (until stop 55 one did, 256 cycles
  // later: a frame for nothing).
  b.mrs[5] = Bench::Mr{true, 0x33, 1 | 2 | 4 | 8, 0x40000000, 1ull << 24, 0x900000000ull};
  j0 = b.jobs.size();
  a0 = b.atomics.size();
  b.packet(Desc{1, 502, kOpWriteOnly, false});
  b.run(5);
  Desc fa{1, 503, kOpFetchAdd, true};
  fa.reth_len = 8;
  fa.reth_va = 0x40000008;
  fa.reth_rkey = (5u << 8) | 0x33;
  b.packet(fa);
  b.run(2 * kAckDelay);
  BLK_CHECK(b.atomics.size() == a0 + 1 && b.atomics.back().first == 503 &&
                !b.atomics.back().second,
            "atomic_owe: %zu atomics handed over", b.atomics.size() - a0);
  js = b.jobs_since(j0);
  BLK_CHECK(js.empty(), "atomic_owe: %zu jobs (the first of PSN %u): the atomic's response "
            "acknowledges the WRITE", js.size(), js.empty() ? 0 : js[0].psn);
  b.mrs[5] = Bench::Mr{};
}
#endif

#if HAS_CPL
// The completer's flushes: two moves to ERR at once, records after a move.
void cpl_flush(Bench &b)
{
  size_t c0;

  // err_twice: QPs 3 and 4 each have a WRITE in flight; while the engine
  // waits for a progress report to be taken, the driver moves both to ERR
  // in consecutive cycles: each WQE completes with a flush error. (Until
  // stop 42 the engine kept one such move, the second replaced the first,
  // and QP 3's WQE waited for its ACK timeout.)
  b.ctx[3] = b.ctx[4] = b.ctx[1];
  b.ctx[3].state = b.ctx[4].state = b.ctx[1].state = 3;
  b.ctx_write(3, 0, 700);
  b.ctx_write(4, 0, 800);
  b.ctx_write(1, 0, 900);
  b.record(3, 0, 700, 700, 8);
  b.record(4, 0, 800, 800, 8);
  b.record(1, 0, 900, 900, 8);
  c0 = b.cqes.size();
  b.t.done_ready_i = 0;
  b.ack(1, 900);
  b.run(5);
  for (unsigned qpn : {3u, 4u, 3u}) b.move_to_err(qpn);   // QP 3 twice: it is flushed once
  b.run(10);
  b.t.done_ready_i = 1;
  b.run(100);
  {
    unsigned n;
    unsigned flushed = b.flushed_wqe0(c0, n);
    BLK_CHECK(flushed == 0x18 && n == 2, "err_twice: flush completions of QPs 3 and 4: mask 0x%x, "
              "%u of them (%zu completions)", flushed, n, b.cqes.size() - c0);
  }

  // record_after_err: QP 5 (RC) and QP 6 (UC) move to ERR and their
  // flushes find the rings empty; then the requester hands over a record
  // of each that it built before the move (it read the state before, or the
  // record waited in the hold): each is flushed when it enters the ring.
  // (Until stop 45 the RC one waited for an ACK that is dropped in ERR and
  // a timeout that does nothing there, the fuzzer's read-stuck-in-err; the
  // UC one waits for its last frame, which a QP in ERR no longer sends.)
  for (unsigned qpn : {5u, 6u}) {
    b.ctx[qpn] = b.ctx[1];
    b.ctx[qpn].state = 3;
    b.ctx[qpn].timeout = 0;
    if (qpn == 6) b.ctx[qpn].qp_type = 3;   // UC
    b.ctx_write(qpn, 0, 1000);
  }
  b.run(5);
  c0 = b.cqes.size();
  for (unsigned qpn : {5u, 6u}) b.move_to_err(qpn);
  b.run(20);
  b.record(5, 0, 1000, 1000, 8);
  b.record(6, 0, 1000, 1000, 8, 3);
  b.run(100);
  {
    unsigned n;
    unsigned flushed = b.flushed_wqe0(c0, n);
    BLK_CHECK(flushed == 0x60 && n == 2, "record_after_err: flush completions of QPs 5 and 6: "
              "mask 0x%x, %u of them (%zu completions)", flushed, n, b.cqes.size() - c0);
  }

}
#endif

#if HAS_CPL
// The completer's send WQE path off the common case, on QP 2's one-packet
// READs of 512 bytes (send WQEs of 64 bytes: control, remote address, one
// SGE in MR 5): a WQE read that waits for the DMA read port, one that
// fails, a response that waits for the WQE cache's read of it, one whose
// QP is reset meanwhile, and a READ's read-ahead hint beside a reset of
// its QP.
void cpl_wqe(Bench &b)
{
  constexpr uint64_t kVa = 0x50000000, kIova = 0xa00000000ull, kSq = 0x300000;
  constexpr unsigned kLen = 512;
  b.mrs[5] = Bench::Mr{true, 0x33, 1 /* LOCAL_WRITE */, kVa, 1ull << 20, kIova};
  b.ctx[2] = fresh_qp();
  b.ctx[2].sq_base = kSq;
  b.ctx[2].sq_log_size = 4;
  b.ctx[2].sq_wqe_shift = 6;
  auto wqe = [&](unsigned i) {
    uint64_t w = kSq + 64ull * (i % 16);
    for (unsigned x = 0; x < 64; x++) b.mem[w + x] = 0;
    b.mem[w] = 0x10;   // RDMA READ
    b.mem[w + 2] = (uint8_t)i;
    b.mem[w + 3] = (uint8_t)(i >> 8);
    b.mem[w + 4] = 3;  // ds: control, remote address, one SGE
    b.poke64(w + 16, 0x7000000);
    b.poke32(w + 24, 0x1234);
    b.poke32(w + 32, kLen);
    b.poke32(w + 36, (5u << 8) | 0x33);
    b.poke64(w + 40, kVa + 0x1000ull * i);
    b.record(2, i, 500 + i, 500 + i, kLen, 0, true, true);
  };
  auto resp = [&](unsigned psn) {
    Desc d{2, psn, 0x10 /* READ_RESPONSE_ONLY */, false, kLen};
    d.aeth_syn = kAethAck;
    b.packet(d);
  };
  // WQE i's response placed into its SGE and its completion written, or
  // neither (what), since places p0 and completions c0.
  auto expect = [&](const char *c, unsigned i, bool done, size_t p0, size_t c0) {
    size_t np = b.places.size() - p0, nc = b.cqes.size() - c0;
    BLK_CHECK(np == (done ? 1u : 0u) && nc == (done ? 1u : 0u), "%s: %zu placements, %zu "
              "completions", c, np, nc);
    if (!done || np != 1 || nc != 1) return;
    const Bench::Place &pl = b.places.back();
    BLK_CHECK(pl.qpn == 2 && pl.psn == 500 + i && pl.nseg == 1 &&
                  pl.addr == kIova + 0x1000ull * i && pl.len == kLen,
              "%s: placement qpn %u psn %u nseg %u addr 0x%llx len %u", c, pl.qpn, pl.psn,
              pl.nseg, (unsigned long long)pl.addr, pl.len);
    const Cqe &e = b.cqes.back();
    BLK_CHECK(e.qpn == 2 && e.wqe_idx == i && e.status == 0 && e.opcode == 2 &&
                  e.byte_len == kLen,
              "%s: completion qpn %u idx %u status %u opcode %u len %u", c, e.qpn, e.wqe_idx,
              e.status, e.opcode, e.byte_len);
  };
  b.ctx_write(2, 0, 500);
  size_t p0, c0, e0 = b.errs.size();

  // read_wait: WQE 0's read waits 20 cycles for the DMA read port
  wqe(0);
  p0 = b.places.size();
  c0 = b.cqes.size();
  b.t.rd_req_ready_i = 0;
  resp(500);
  b.run(20);
  BLK_CHECK(b.t.rd_req_valid_o && b.places.size() == p0,
            "read_wait: no WQE read waiting for the port");
  b.t.rd_req_ready_i = 1;
  b.run(60);
  expect("read_wait", 0, true, p0, c0);

  // read_err: WQE 1's read fails: the response is dropped (its frame slot
  // released) and the WQE waits; the same response again, read without
  // error, completes it.
  wqe(1);
  p0 = b.places.size();
  c0 = b.cqes.size();
  size_t d0 = b.dones.size();
  b.rd_err = true;
  resp(501);
  b.run(60);
  b.rd_err = false;
  expect("read_err", 1, false, p0, c0);
  BLK_CHECK(b.dones.size() == d0 && b.held == 0, "read_err: %zu progress reports, frame slots "
            "0x%x after the failed read", b.dones.size() - d0, b.held);
  resp(501);
  b.run(60);
  expect("read_err", 1, true, p0, c0);

  // rwc_wait: WQE 2's response finds the WQE cache reading the WQE and
  // waits; the cache then drops it without a hit: the completer reads it.
  wqe(2);
  p0 = b.places.size();
  c0 = b.cqes.size();
  b.t.rwc_lk_pend_i = 1;
  resp(502);
  b.run(20);
  BLK_CHECK(!b.t.rd_req_valid_o && b.places.size() == p0,
            "rwc_wait: the completer did not wait for the cache");
  b.t.rwc_lk_pend_i = 0;
  b.run(60);
  expect("rwc_wait", 2, true, p0, c0);

  // rwc_reset: WQE 3's response waits for the cache's read and its QP is
  // reset meanwhile: the packet goes (frame slot released), nothing placed,
  // and no read of the old ring (whose pages the driver may unmap once the
  // reset is done) follows.
  wqe(3);
  p0 = b.places.size();
  c0 = b.cqes.size();
  b.t.rwc_lk_pend_i = 1;
  resp(503);
  b.run(5);
  b.ctx[2].state = 0;   // RESET
  b.run(20);
  unsigned r0 = b.rd_reqs;
  b.t.rwc_lk_pend_i = 0;
  b.run(20);
  expect("rwc_reset", 3, false, p0, c0);
  BLK_CHECK(b.held == 0 && b.rd_reqs == r0, "rwc_reset: frame slots 0x%x held, %u WQE reads "
            "after the reset", b.held, b.rd_reqs - r0);
  b.ctx[2].state = 3;
  b.ctx_write(2, 0, 600);   // (the ring emptied)
  BLK_CHECK(b.errs.size() == e0, "cpl_wqe: %zu QP errors", b.errs.size() - e0);

  // hint / hint_reset: a READ record's send WQE is hinted to the WQE cache
  // in the cycle after the record is taken; not when a context write resets
  // its QP in between (the hint's read would outlive the reset).
  for (bool reset : {false, true}) {
    const char *c = reset ? "hint_reset" : "hint";
    b.ctx_write(2, 0, 700);
    b.record(2, 5, 700, 700, kLen, 0, true, true);
    unsigned hints = 0;
    uint64_t key = 0;
    if (reset) b.ctx_write(2, 0, 700);
    for (unsigned n = 0; n < 4; n++) {
      if (b.t.rwc_hint_valid_o) {
        hints++;
        key = b.t.rwc_hint_key_o;
      }
      b.cycle();
    }
    BLK_CHECK(hints == (reset ? 0u : 1u), "%s: %u hints", c, hints);
    if (!reset && hints == 1)
      BLK_CHECK(key == ((2ull << 40) | (2ull << 16) | 5u),
                "hint: key 0x%llx, expected the send WQE 5 of QP 2", (unsigned long long)key);
  }
  b.ctx_write(2, 0, 700);
  b.run(50);
}
#endif

#if HAS_RSP
// The responder's receive doorbells: the hint at a reset, the producer rule.
void rsp_doorbells(Bench &b)
{
  size_t c0;

  // hint_at_reset: QP 7's RQ doorbell is taken, and its queues are reset
  // (the move to RESET, ibv_destroy_qp) k cycles later. The read-ahead hint
  // of its receive WQE may be offered up to the cycle of the reset (the
  // cache drops one offered in that cycle) but not after it: the cache has
  // dropped the QP's entries by then, and a read it took would outlive the
  // reset command. (Until stop 45 a hint decided in the reset's cycle came
  // a cycle later: the fuzzer's hint-after-reset.)
  // The receive is not flushed (QP 7 is in RTS; until stop 45's second
  // commit the flush of record_after_err left flushing_q set, and this
  // doorbell's StRqFlush flushed the receive); the read-ahead is offered
  // when the reset comes after the doorbell's cycles.
  // A read-ahead hint of QP 7 offered in this cycle
  auto hint7 = [&] {
    b.drive_ctx();
    b.t.eval();
    return b.t.rwc_hint_valid_o && ((b.t.rwc_hint_key_o >> 16) & 0xffffff) == 7;
  };
  for (unsigned k = 0; k < 4; k++) {
    b.ctx[7].state = 3;
    b.ctx_write(7, 40);
    b.run(5);
    c0 = b.cqes.size();
    unsigned early = 0;
    b.t.rq_db_data_i = (1ull << 32) | 7;   // producer index 1: WQE 0 posted
    BLK_CHECK(b.offer(b.t.rq_db_valid_i, [&] { return b.t.rq_db_ready_o; }),
              "hint_at_reset: the doorbell not taken");
    for (unsigned n = 0; n < k; n++) {
      early += hint7();
      b.cycle();
    }
    b.t.qp_wr_i = 1;
    b.t.qp_wr_idx_i = 7;
    b.t.qp_wr_flags_i = (1u << 0) | (1u << 1);   // ResetSq, ResetRq
    b.t.qp_wr_state_i = 0;   // RESET
    early += hint7();
    b.cycle();
    b.ctx[7].state = 0;
    unsigned late = 0;
    for (unsigned n = 0; n < 8; n++) {
      late += hint7();
      b.cycle();
    }
    BLK_CHECK(late == 0 && early == (k ? 1u : 0u) && b.cqes.size() == c0,
              "hint_at_reset: reset %u cycles after the doorbell: %u hints of QP 7 up to the "
              "reset, %u after it, %zu completions", k, early, late, b.cqes.size() - c0);
  }

  // rq_db_rule: QP 7's RQ doorbells with producer indices 3, 0x8004 (more
  // than a full ring past the consumer index 0) and 1 (behind 3): the last
  // two are ignored, so the move to ERR flushes exactly WQEs 0-2 (with 1
  // taken it flushed one; 0x8004 taken alone, 32772).
  b.ctx[7].state = 3;
  b.ctx_write(7, 40);
  b.run(5);
  c0 = b.cqes.size();
  for (uint64_t pi : {3ull, 0x8004ull, 1ull}) {
    b.t.rq_db_data_i = (pi << 32) | 7;
    BLK_CHECK(b.offer(b.t.rq_db_valid_i, [&] { return b.t.rq_db_ready_o; }),
              "rq_db_rule: the doorbell of producer index %llu not taken",
              (unsigned long long)pi);
    b.run(5);
  }
  b.move_to_err(7);
  b.run(300);
  {
    char got[256] = "";
    size_t len = 0;
    bool ok = b.cqes.size() == c0 + 3;
    for (size_t k = c0; k < b.cqes.size() && len < sizeof(got) - 32; k++) {
      const Cqe &e = b.cqes[k];
      len += (size_t)std::snprintf(got + len, sizeof(got) - len, " %u/%u/%u", e.qpn, e.wqe_idx,
                                   e.status);
      ok = ok && e.qpn == 7 && e.wqe_idx == k - c0 && e.status == 5;
    }
    BLK_CHECK(ok, "rq_db_rule: flush completions (QPN/WQE/status):%s, expected WQEs 0-2 of "
              "QP 7 flushed", got);
  }

}
#endif


// QP q's placement jobs since job p0 against the model's, in order (each one
// segment; an address of ~0 is any); how many there were.
unsigned check_places(const Bench &b, size_t p0, unsigned q, const std::vector<Bench::Place> &want,
                      const char *who)
{
  std::vector<Bench::Place> got;
  for (size_t k = p0; k < b.places.size(); k++)
    if (b.places[k].qpn == q) got.push_back(b.places[k]);
  size_t same = 0;
  while (same < got.size() && same < want.size() && got[same].psn == want[same].psn &&
         got[same].nseg == 1 && (want[same].addr == ~0ull || got[same].addr == want[same].addr) &&
         got[same].len == want[same].len)
    same++;
  BLK_CHECK(same == got.size() && same == want.size(),
            "%s: QP %u: %zu placement jobs, the model %zu, the first %zu alike", who, q,
            got.size(), want.size(), same);
  return (unsigned)got.size();
}

// PSN arithmetic modulo 2^24, as rnic_pkg::psn_ge.
unsigned psn_add(unsigned p, int d) { return (unsigned)((int)p + d) & 0xffffffu; }
bool psn_ge(unsigned a, unsigned b) { return ((a - b) & 0xffffffu) < 0x800000u; }


#if HAS_RSP
// rsp_random: zero-length RC WRITE_ONLYs, WRITEs of 1-12288 bytes (1-3
// packets), SEND_ONLYs of 1-256 bytes and RDMA READs of 1-4096 bytes on the
// 8 QPs - in
// sequence (with and without AckReq), duplicates and PSNs ahead of the
// expected one - with receives posted now and then on the even QPs (one
// SGE of an MR each, read by the engine: no WQE cache), READ resources
// returned 3-40 cycles after each READ job, random gaps and a transmit side
// that takes a job in 70 % of the cycles, against a model of IBTA's
// responder rules (C9-x, docs/transport.md):
//  - an in-sequence request advances the expected PSN and the MSN; one that
//    asks for an ACK (AckReq) is answered by an ACK of its PSN or a later
//    one; one that does not is covered by one later (the delayed ACK);
//  - an in-sequence SEND takes the next receive WQE: one placement job into
//    its SGE (the MR's bus address), a receive completion (the WQE's index,
//    the SEND's length); with none posted, an RNR NAK of its PSN, and the
//    expected PSN stays; a WRITE's packet is one placement job at its
//    offset in the RETH's buffer (the MR's bus address; a zero-length
//    WRITE's job has one empty segment), its last packet completes it;
//  - a READ in sequence is a READ job (its PSN, the new MSN, the bus address
//    and length of its RETH) and takes one PSN; a duplicate READ is
//    executed again (a job marked duplicate, the MSN as it stands);
//  - a duplicate WRITE or SEND is answered by an ACK of the last PSN
//    received (expected - 1) or later;
//  - the first request ahead of the expected PSN gets a PSN-sequence NAK of
//    the expected PSN; the requests after it, until the expected one
//    arrives, get nothing (one NAK per gap);
//  - every ACK or NAK acknowledges a PSN received before it left, with the
//    MSN of that PSN, and a QP's acknowledged PSNs never go back;
//  - a response acknowledges more than the QP's previous one, or repeats it
//    for a duplicate (one repeat per duplicate at most);
//  - every message received is acknowledged in the end: a QP owing an ACK waits
//    AckDelay cycles at the head of the responder's queue of such QPs (so
//    with 8 QPs owing, the last waits about 8 times AckDelay).
void rsp_random(Bench &b, uint64_t seed, unsigned npkts)
{
  // What a request waits for: any response acknowledging its PSN, its READ
  // job, or a NAK of its PSN (the values are the NAKs' AETH syndromes).
  enum class Want : uint8_t { Ack = 0, Read = 1, RnrNak = 0x20, SeqNak = kAethNakPsnSeq };
  struct Need {
    Want what;
    unsigned psn;
    uint64_t cycle;  // its request was taken in this cycle
    bool dup = false;
    unsigned len = 0, msn = 0;
    uint64_t addr = 0;
  };

  struct Model {
    unsigned epsn = 0, msn = 0;
    bool nak_sent = false;
    std::map<unsigned, std::pair<unsigned, uint64_t>> msn_at;   // PSN -> MSN, cycle received
    std::deque<Need> needs;
    std::deque<uint64_t> dup_at;   // duplicates taken, each allowing one repeated ACK
    std::deque<std::pair<unsigned, uint64_t>> owed;   // received without AckReq: PSN, cycle
    unsigned naks = 0, dups = 0, in_seq = 0, ahead = 0, rnrs = 0, sends = 0;
    unsigned rq_pi = 0, rq_ci = 0;   // receive WQEs posted, taken
    unsigned rd_out = 0, reads = 0;  // READs not yet answered (rsp_done_i), and all
    bool wr_on = false;              // a WRITE of several packets under way:
    unsigned wr_len = 0, wr_off = 0, wrs = 0;   // its length, bytes so far; such WRITEs
    uint64_t wr_va = 0;
    std::vector<Bench::Place> places;   // expected placement jobs
    std::vector<Cqe> rcqes;             // expected receive completions
  } m[kNQp];
  // The receive queues (16 WQEs of 64 bytes, one SGE of 512 bytes each) and
  // the MR their buffers lie in.
  constexpr unsigned kRqLog = 4, kSgeLen = 512;
  constexpr uint64_t kMrVa = 0x40000000, kMrIova = 0x900000000ull;
  b.mrs[5] = Bench::Mr{true, 0x33, 1 | 2 | 4 /* LOCAL_WRITE, REMOTE_WRITE, REMOTE_READ */, kMrVa,
                       1ull << 24, kMrIova};
  auto rq_base = [](unsigned q) { return 0x100000ull + 0x1000ull * q; };
  auto buf = [](unsigned q, unsigned i) { return kMrVa + 0x100000ull * q + 0x1000ull * (i % 16); };
  auto post = [&](unsigned q, unsigned k) {
    Model &s = m[q];
    for (unsigned n = 0; n < k; n++, s.rq_pi = (s.rq_pi + 1) & 0xffffu) {
      uint64_t w = rq_base(q) + 64ull * (s.rq_pi % 16);
      for (unsigned x = 0; x < 64; x++) b.mem[w + x] = 0;
      b.mem[w] = 1;                                          // one SGE
      b.mem[w + 2] = (uint8_t)s.rq_pi;
      b.mem[w + 3] = (uint8_t)(s.rq_pi >> 8);
      b.poke32(w + 16, kSgeLen);
      b.poke32(w + 20, (5u << 8) | 0x33);                    // lkey of MR 5
      b.poke64(w + 24, buf(q, s.rq_pi));
    }
    b.t.rq_db_data_i = ((uint64_t)s.rq_pi << 32) | q;
    BLK_CHECK(b.offer(b.t.rq_db_valid_i, [&] { return b.t.rq_db_ready_o; }),
              "rsp_random: the RQ doorbell of QP %u not taken", q);
  };
  Rng rng(seed);
  for (unsigned q = 0; q < kNQp; q++) {
    b.ctx[q] = fresh_qp();
    b.ctx[q].rq_base = rq_base(q);
    b.ctx[q].rq_log_size = kRqLog;
    b.ctx[q].rq_wqe_shift = 6;
    b.ctx[q].rcqn = (uint16_t)q;
    m[q].epsn = q == 3 ? 0xfffff0u : (unsigned)rng.range(0, 0xffffff);   // QP 3 wraps
    m[q].msn_at[psn_add(m[q].epsn, -1)] = {0, 0};
    b.ctx_write(q, m[q].epsn);
  }
  size_t j0 = b.jobs.size();
  size_t c0 = b.cqes.size(), p0 = b.places.size(), jseen = b.jobs.size();
  // A READ's responses leave some cycles after its job is taken: its
  // responder resource comes back then (rsp_done_i).
  std::deque<std::pair<unsigned, uint64_t>> rsp_due;
  b.each_cycle = [&] {
    b.t.job_ready_i = rng.chance(0.7);
    b.t.rcqe_ready_i = rng.chance(0.7);
    for (; jseen < b.jobs.size(); jseen++)
      if (b.jobs[jseen].kind == 1 && !b.jobs[jseen].dup)
        rsp_due.emplace_back(b.jobs[jseen].qpn, g_cycle + rng.range(3, 40));
    b.t.rsp_done_i = !rsp_due.empty() && rsp_due.front().second <= g_cycle;
    if (b.t.rsp_done_i) {
      b.t.rsp_done_qpn_i = rsp_due.front().first;
      m[rsp_due.front().first].rd_out--;
      rsp_due.pop_front();
    }
  };
  for (unsigned n = 0; n < npkts; n++) {
    // Receives posted now and then, on the even QPs (the odd ones have none).
    if (rng.chance(0.1)) {
      unsigned pq = 2 * (unsigned)rng.range(0, kNQp / 2 - 1), k = (unsigned)rng.range(1, 3);
      if (((m[pq].rq_pi - m[pq].rq_ci) & 0xffffu) + k <= 16) post(pq, k);
    }
    unsigned q = (unsigned)rng.range(0, kNQp - 1);
    Model &s = m[q];
    unsigned r = (unsigned)rng.range(0, 99), psn;
    if (r < 70) psn = s.epsn;
    else if (r < 85) psn = psn_add(s.epsn, -1 - (int)rng.range(0, 4));
    else psn = psn_add(s.epsn, 1 + (int)rng.range(0, 4));
    bool ack_req = rng.chance(0.5);
    // A fifth are SEND_ONLYs of 1-256 bytes, to the receives posted; a
    // fifth RDMA READs of 1-4096 bytes (in MR 5), fewer than
    // max_dest_rd_atomic (4) outstanding per QP.
    // Another sixth, WRITEs of 1-12288 bytes into MR 5 (one to three 4096-byte
    // packets); while one is under way its next packet is the request in
    // sequence.
    unsigned opr = (unsigned)rng.range(0, 99);
    bool cont = psn == s.epsn && s.wr_on;
    bool start = psn == s.epsn && !s.wr_on && opr >= 20 && opr < 37;
    bool send = opr < 20 && !cont;
    bool read = opr >= 80 && !cont && !(psn == s.epsn && s.rd_out >= 4);
    unsigned len = send ? (unsigned)rng.range(1, 256) : 0;
    Desc d{q, psn, send ? kOpSendOnly : read ? kOpReadReq : kOpWriteOnly, ack_req, len};
    if (read) {
      d.reth_len = (uint32_t)rng.range(1, 4096);
      d.reth_va = kMrVa + 0x100000ull * q + 0x80000 + rng.range(0, 0x1000);
      d.reth_rkey = (5u << 8) | 0x33;
    }
    if (start) {
      s.wr_len = (unsigned)rng.range(1, 3 * 4096);
      s.wr_off = 0;
      s.wr_va = kMrVa + 0x100000ull * q + 0x40000 + rng.range(0, 0x100);
      d.reth_len = s.wr_len;
      d.reth_va = s.wr_va;
      d.reth_rkey = (5u << 8) | 0x33;
    }
    bool wr_last = false;
    if (start || cont) {
      unsigned rest = s.wr_len - s.wr_off;
      wr_last = rest <= 4096;
      d.pay_len = std::min(rest, 4096u);
      d.op = start ? (wr_last ? kOpWriteOnly : kOpWriteFirst) :
                     (wr_last ? kOpWriteLast : kOpWriteMiddle);
      d.ack_req = wr_last && ack_req;
    }
    b.packet(d);
    uint64_t at = g_cycle - 1;   // the cycle the engine took it
    bool rx_avail = s.rq_pi != s.rq_ci;
    if (start || cont) {
      // One placement job per packet, at its offset in the WRITE's buffer;
      // the last packet completes the message (MSN) and asks for the ACK or
      // leaves the QP owing one.
      s.places.push_back(Bench::Place{q, psn, 1, kMrIova + (s.wr_va + s.wr_off - kMrVa),
                                      d.pay_len});
      s.wr_off += d.pay_len;
      s.wr_on = !wr_last;
      s.in_seq++;
      if (wr_last) {
        s.wrs++;
        s.msn = (s.msn + 1) & 0xffffffu;
      }
      s.msn_at[psn] = {s.msn, at};
      s.epsn = psn_add(psn, 1);
      s.nak_sent = false;
      if (wr_last && d.ack_req) s.needs.push_back({Want::Ack, psn, at});
      else if (wr_last) s.owed.emplace_back(psn, at);
    } else if (read && psn_ge(s.epsn, psn)) {
      // A READ job: a new one takes a responder resource, advances the
      // expected PSN by its one response packet and the MSN; a duplicate
      // is executed again (its own RETH) without either.
      bool dup = psn != s.epsn;
      if (!dup) {
        s.rd_out++;
        s.reads++;
        s.msn = (s.msn + 1) & 0xffffffu;
        s.msn_at[psn] = {s.msn, at};
        s.epsn = psn_add(psn, 1);
        s.nak_sent = false;
      }
      s.needs.push_back({Want::Read, psn, at, dup, d.reth_len, s.msn, kMrIova + (d.reth_va - kMrVa)});
    } else if (psn == s.epsn && send && !rx_avail) {
      // Receiver not ready: an RNR NAK of its PSN (with the QP's minimum
      // RNR timer, 0 here); the PSN is not taken, the gap state is cleared.
      s.rnrs++;
      s.nak_sent = false;
      s.needs.push_back({Want::RnrNak, psn, at});
    } else if (psn == s.epsn) {
      if (send) {
        // Placed into the receive's one SGE (its bus address in the MR),
        // completed with its length; then as any request in sequence.
        s.sends++;
        s.places.push_back(Bench::Place{q, psn, 1, kMrIova + (buf(q, s.rq_ci) - kMrVa), len});
        s.rcqes.push_back(Cqe{q, s.rq_ci, 0, 128, len});
        s.rq_ci = (s.rq_ci + 1) & 0xffffu;
      } else {
        // A WRITE's placement job: one segment of its (zero) length, at an
        // address that does not matter (it frees the frame slot).
        s.places.push_back(Bench::Place{q, psn, 1, ~0ull, 0});
      }
      s.in_seq++;
      s.msn = (s.msn + 1) & 0xffffffu;
      s.msn_at[psn] = {s.msn, at};
      s.epsn = psn_add(psn, 1);
      s.nak_sent = false;
      if (ack_req) s.needs.push_back({Want::Ack, psn, at});
      else s.owed.emplace_back(psn, at);
    } else if (psn_ge(psn_add(s.epsn, -1), psn)) {
      s.dups++;
      s.needs.push_back({Want::Ack, psn_add(s.epsn, -1), at});
      s.dup_at.push_back(at);
    } else {
      s.ahead++;
      if (!s.nak_sent) {
        s.nak_sent = true;
        s.naks++;
        s.needs.push_back({Want::SeqNak, s.epsn, at});
      }
    }
    unsigned gap = rng.chance(0.02) ? (unsigned)rng.range(kAckDelay, kAckDelay + 40)
                                    : (unsigned)rng.range(0, 3);
    b.run(gap);
  }
  b.each_cycle = nullptr;
  b.t.job_ready_i = 1;
  b.run((kNQp + 1) * kAckDelay + 50);

  // The jobs of each QP in the order they left, against the model.
  bool have_prev[kNQp] = {};
  unsigned prev[kNQp] = {}, naks[kNQp] = {}, rnrs[kNQp] = {}, unasked = 0;
  uint64_t owed_max = 0;   // the longest a request without AckReq waited for its ACK
  unsigned nreads = 0, ndupreads = 0;
  unsigned bad = 0;
  for (size_t k = j0; k < b.jobs.size(); k++) {
    const Job &j = b.jobs[k];
    if (j.qpn < kNQp && j.kind == 1) {
      // A READ job: the next of the QP's requests that wait for one (every
      // request before it that asked for an ACK is answered by its
      // response, unless it answers a duplicate).
      Model &s = m[j.qpn];
      if (!j.dup) {
        while (!s.owed.empty() && s.owed.front().second < j.cycle &&
               psn_ge(j.psn, s.owed.front().first))
          s.owed.pop_front();
        while (!s.needs.empty() && s.needs.front().what == Want::Ack && s.needs.front().cycle < j.cycle &&
               psn_ge(j.psn, s.needs.front().psn))
          s.needs.pop_front();
      }
      const Need *w = s.needs.empty() ? nullptr : &s.needs.front();
      bool ok = w && w->what == Want::Read && w->psn == j.psn && w->dup == j.dup && w->len == j.len &&
                w->addr == j.addr && w->msn == j.msn && w->cycle < j.cycle &&
                (j.dup || !have_prev[j.qpn] || psn_ge(j.psn, prev[j.qpn]));
      if (!ok && bad++ < 5)
        fail("rsp_random: QP %u READ job PSN %u%s MSN %u length %u at cycle %llu: the model "
             "waits for %s", j.qpn, j.psn, j.dup ? " (duplicate)" : "", j.msn, j.len,
             (unsigned long long)j.cycle, w && w->what == Want::Read ? "another READ" : "something else");
      if (w && w->what == Want::Read && w->psn == j.psn) s.needs.pop_front();
      if (!j.dup) {
        have_prev[j.qpn] = true;
        prev[j.qpn] = j.psn;
        nreads++;
      } else {
        ndupreads++;
      }
      continue;
    }
    if (j.qpn >= kNQp || j.kind != 0 ||
        (j.syn != kAethAck && j.syn != kAethNakPsnSeq && j.syn != 0x20)) {
      if (bad++ < 5)
        fail("rsp_random: job kind %u QP %u PSN %u syndrome 0x%02x", j.kind, j.qpn, j.psn,
             j.syn);
      continue;
    }
    Model &s = m[j.qpn];
    bool nak = j.syn != kAethAck;   // a sequence or RNR NAK: acknowledges what is before it
    unsigned acked = nak ? psn_add(j.psn, -1) : j.psn;
    auto it = s.msn_at.find(acked);
    bool ok = it != s.msn_at.end() && it->second.second < j.cycle &&
              it->second.first == j.msn && (!have_prev[j.qpn] || psn_ge(acked, prev[j.qpn]));
    // The requests it answers: every waiting one that asked for as much,
    // then (a NAK) the gap's NAK or the SEND's RNR NAK it is.
    bool answers = false;
    while (!s.owed.empty() && s.owed.front().second < j.cycle && psn_ge(acked, s.owed.front().first)) {
      owed_max = std::max(owed_max, j.cycle - s.owed.front().second);
      s.owed.pop_front();
    }
    while (!s.needs.empty() && s.needs.front().what == Want::Ack && s.needs.front().cycle < j.cycle &&
           psn_ge(acked, s.needs.front().psn)) {
      s.needs.pop_front();
      answers = true;
    }
    if (nak) {
      if (j.syn == kAethNakPsnSeq) naks[j.qpn]++;
      else rnrs[j.qpn]++;
      bool match = !s.needs.empty() && (uint8_t)s.needs.front().what == j.syn &&
                   s.needs.front().psn == j.psn && s.needs.front().cycle < j.cycle;
      ok = ok && match;
      if (match) s.needs.pop_front();
    } else if (have_prev[j.qpn] && acked == prev[j.qpn]) {
      // The same PSN again: a duplicate's answer (each may have its own).
      bool dup = !s.dup_at.empty() && s.dup_at.front() < j.cycle;
      ok = ok && dup;
      if (dup) s.dup_at.pop_front();
    } else if (!answers) {
      unasked++;   // no request asked for it: a delayed ACK
    }
    if (!ok && bad++ < 5)
      fail("rsp_random: QP %u %s PSN %u MSN %u at cycle %llu: not a response the model allows "
           "(previous acknowledged PSN %u)", j.qpn,
           !nak ? "ACK" : j.syn == kAethNakPsnSeq ? "NAK" : "RNR NAK", j.psn, j.msn,
           (unsigned long long)j.cycle, prev[j.qpn]);
    have_prev[j.qpn] = true;
    prev[j.qpn] = acked;
  }
  BLK_CHECK(bad == 0, "rsp_random: %u responses the model does not allow", bad);
  // Each QP's placement jobs and receive completions, in order.
  for (unsigned q = 0; q < kNQp; q++) {
    const Model &s = m[q];
    check_places(b, p0, q, s.places, "rsp_random");
    std::vector<Cqe> rc;
    size_t same;
    for (size_t k = c0; k < b.cqes.size(); k++)
      if (b.cqes[k].qpn == q) rc.push_back(b.cqes[k]);
    same = 0;
    while (same < rc.size() && same < s.rcqes.size() && rc[same].wqe_idx == s.rcqes[same].wqe_idx &&
           rc[same].status == 0 && rc[same].opcode == 128 &&
           rc[same].byte_len == s.rcqes[same].byte_len)
      same++;
    BLK_CHECK(same == rc.size() && same == s.rcqes.size(),
              "rsp_random: QP %u: %zu receive completions, the model %zu, the first %zu alike",
              q, rc.size(), s.rcqes.size(), same);
  }
  unsigned in_seq = 0, dups = 0, ahead = 0, nak_sum = 0, rnr_sum = 0, send_sum = 0, wr_sum = 0;
  for (unsigned q = 0; q < kNQp; q++) {
    const Model &s = m[q];
    BLK_CHECK(s.needs.empty(), "rsp_random: QP %u: %zu requests unanswered (the first %s PSN %u)",
              q, s.needs.size(), !s.needs.empty() && s.needs.front().what != Want::Ack ? "NAK or READ of" : "ACK of",
              s.needs.empty() ? 0 : s.needs.front().psn);
    BLK_CHECK(naks[q] == s.naks && rnrs[q] == s.rnrs,
              "rsp_random: QP %u: %u sequence NAKs and %u RNR NAKs, the model %u and %u", q,
              naks[q], rnrs[q], s.naks, s.rnrs);
    // Every message received is acknowledged (a WRITE still under way may
    // not be yet).
    if (s.in_seq) {
      unsigned last = psn_add(s.epsn, -1);
      unsigned done = s.wr_on ? psn_add(s.epsn, -1 - (int)(s.wr_off / 4096)) : last;
      BLK_CHECK(have_prev[q] && psn_ge(prev[q], done) && psn_ge(last, prev[q]),
                "rsp_random: QP %u: last acknowledged PSN %u, last message's last PSN %u, last "
                "received %u", q, prev[q], done, last);
    }
    in_seq += s.in_seq;
    dups += s.dups;
    ahead += s.ahead;
    nak_sum += s.naks;
    rnr_sum += s.rnrs;
    send_sum += s.sends;
    wr_sum += s.wrs;
  }
  // The QPs owing an ACK wait in turn, AckDelay cycles each at the head of
  // the queue: the k-th of them waits about k times AckDelay.
  BLK_CHECK(owed_max <= (kNQp + 1) * kAckDelay, "rsp_random: a request without AckReq "
            "acknowledged after %llu cycles", (unsigned long long)owed_max);
  info("rsp_random: %u requests in sequence (%u SENDs placed and completed, %u WRITEs of 1-3 "
       "packets placed), %u READ jobs and "
       "%u of duplicate READs, %u SENDs without a receive WQE (RNR NAKs), %u duplicates, %u "
       "ahead (%u gaps); %zu jobs, %u of them delayed ACKs; a request without AckReq "
       "acknowledged within %llu cycles",
       in_seq, send_sum, wr_sum, nreads, ndupreads, rnr_sum, dups, ahead, nak_sum, b.jobs.size() - j0,
       unasked, (unsigned long long)owed_max);
}
#endif

#if HAS_CPL
// cpl_random: RC WRITE WQEs of 1-3 packets (a third unsignaled) handed over
// as in-flight records on the 8 QPs (retry_cnt 7, no ACK timeout), up to 6
// in flight per QP, and ACKs of them in random order of QPs - of a WQE's
// last PSN, of a PSN inside a multi-packet WQE, of everything sent, or late
// (behind what was acknowledged) - and PSN-sequence NAKs of a PSN sent and
// not acknowledged, while the CQE and progress ports take one in 70 % of
// the cycles, against a model of IBTA's requester rules: an ACK of PSN p
// (a NAK of p: p - 1) retires, in order, every WQE whose last PSN is p or
// before it, nothing else; a late ACK changes nothing; a NAK rewinds the
// send queue to its PSN (the head WQE's index and first PSN, the restart
// PSN), unless the rewind to that PSN is under way, and a NAK past the
// first unacknowledged PSN is progress. Each QP's send completions are
// exactly the signaled WQEs retired (WQE index, length, success, RDMA
// WRITE), each after the ACK that retires it, its progress reports never
// go back and end at the number retired, its rewinds are the model's; no
// QP error. QPs 6 and 7 carry one-packet RDMA READs instead (their send
// WQEs in host memory, one SGE in MR 5), answered in order by
// READ_RESPONSE_ONLYs or duplicates of earlier ones: each response is one
// placement job into the SGE, a READ completion when signaled, a READ
// credit back; a duplicate changes nothing.
void cpl_random(Bench &b, uint64_t seed, unsigned nacks)
{
  struct Rec {
    unsigned idx, first, last, len;
    bool sig;
  };
  struct Model {
    bool reads = false;            // QPs 6 and 7: one-packet READs only
    std::vector<Bench::Place> places;   // expected (READ responses)
    unsigned rd_credits = 0;       // READ credits to come back (rd_done_o)
    unsigned next_psn = 0, next_idx = 0, retired = 0;
    unsigned acked = 0;            // the last PSN acknowledged
    unsigned una = 0;              // the first PSN not acknowledged
    unsigned rc_used = 0;          // retries since the last progress
    bool rw_v = false;             // a rewind under way, to rw_psn
    unsigned rw_psn = 0;
    std::deque<Rec> out;
    std::vector<Rewind> rws;       // expected
    std::vector<Cqe> cqes;         // expected, in order
    std::vector<uint64_t> cqe_ack; // the cycle the ACK retiring each was taken
  } m[kNQp];
  Rng rng(seed);
  // The READs' send WQEs (16 of 64 bytes per QP: control, remote address,
  // one SGE of 4 KiB in MR 5) and their buffers.
  constexpr uint64_t kMrVa = 0x40000000, kMrIova = 0x900000000ull;
  b.mrs[5] = Bench::Mr{true, 0x33, 1 /* LOCAL_WRITE */, kMrVa, 1ull << 24, kMrIova};
  auto sq_base = [](unsigned q) { return 0x200000ull + 0x1000ull * q; };
  auto buf = [](unsigned q, unsigned i) { return kMrVa + 0x100000ull * q + 0x1000ull * (i % 16); };
  for (unsigned q = 0; q < kNQp; q++) {
    b.ctx[q] = fresh_qp();
    b.ctx[q].sq_base = sq_base(q);
    b.ctx[q].sq_log_size = 4;
    b.ctx[q].sq_wqe_shift = 6;
    m[q].reads = q >= 6;
    m[q].next_psn = q == 5 ? 0xfffffau : (unsigned)rng.range(0, 0xffffff);   // QP 5 wraps
    m[q].acked = psn_add(m[q].next_psn, -1);
    m[q].una = m[q].next_psn;
    b.ctx[q].retry_cnt = 7;
    b.ctx_write(q, 0, m[q].next_psn);
  }
  size_t c0 = b.cqes.size(), d0 = b.dones.size(), e0 = b.errs.size(), p0 = b.places.size();
  size_t rw0 = b.rws.size(), rd0 = b.rd_dones.size();
  unsigned late = 0, mid = 0, naks = 0;
  b.each_cycle = [&] {
    b.t.scqe_ready_i = rng.chance(0.7);
    b.t.done_ready_i = rng.chance(0.7);
  };
  for (unsigned n = 0; n < nacks; n++) {
    unsigned q = (unsigned)rng.range(0, kNQp - 1);
    Model &s = m[q];
    // More WQEs in flight first, up to 6.
    unsigned add = (unsigned)rng.range(0, 2);
    for (unsigned k = 0; k < add && s.out.size() < 6 && s.reads; k++) {
      // A READ of 1-4096 bytes into one SGE: its send WQE in host memory.
      Rec r{s.next_idx, s.next_psn, s.next_psn, (unsigned)rng.range(1, 4096), !rng.chance(0.33)};
      uint64_t w = sq_base(q) + 64ull * (r.idx % 16);
      for (unsigned x = 0; x < 64; x++) b.mem[w + x] = 0;
      b.mem[w] = 0x10;   // RDMA READ (rnic_wqe_op; the engine reads only ds and the SGEs)
      b.mem[w + 2] = (uint8_t)r.idx;
      b.mem[w + 3] = (uint8_t)(r.idx >> 8);
      b.mem[w + 4] = 3;  // ds: control, remote address, one SGE
      b.poke64(w + 16, 0x7000000);
      b.poke32(w + 24, 0x1234);
      b.poke32(w + 32, r.len);
      b.poke32(w + 36, (5u << 8) | 0x33);
      b.poke64(w + 40, buf(q, r.idx));
      b.record(q, r.idx, r.first, r.last, r.len, 0, r.sig, true);
      s.out.push_back(r);
      s.rd_credits++;
      s.next_idx = (s.next_idx + 1) & 0xffffu;
      s.next_psn = psn_add(r.last, 1);
    }
    for (unsigned k = 0; k < add && s.out.size() < 6 && !s.reads; k++) {
      unsigned np = (unsigned)rng.range(1, 3);
      Rec r{s.next_idx, s.next_psn, psn_add(s.next_psn, (int)np - 1),
            (unsigned)rng.range(1, 3 * 4096), !rng.chance(0.33)};
      b.record(q, r.idx, r.first, r.last, r.len, 0, r.sig);
      s.out.push_back(r);
      s.next_idx = (s.next_idx + 1) & 0xffffu;
      s.next_psn = psn_add(r.last, 1);
    }
    if (s.out.empty()) continue;
    if (s.reads) {
      // The head READ's response (READ_RESPONSE_ONLY, AETH ACK), or a
      // duplicate of an earlier one (behind the first PSN not acknowledged:
      // nothing happens).
      const Rec &h = s.out.front();
      bool dup = rng.chance(0.15);
      Desc d{q, dup ? psn_add(h.first, -1 - (int)rng.range(0, 2)) : h.first, 0x10, false,
             dup ? 64u : h.len};
      d.aeth_syn = kAethAck;
      b.packet(d);
      uint64_t at = g_cycle - 1;
      if (dup) {
        late++;
      } else {
        s.places.push_back(Bench::Place{q, h.first, 1, kMrIova + (buf(q, h.idx) - kMrVa), h.len});
        if (h.sig) {
          s.cqes.push_back(Cqe{q, h.idx, 0, 2, h.len});
          s.cqe_ack.push_back(at);
        }
        s.retired = (s.retired + 1) & 0xffffu;
        s.una = psn_add(h.last, 1);
        s.acked = h.last;
        s.out.pop_front();
      }
      b.run((unsigned)rng.range(0, 3));
      continue;
    }
    unsigned r = (unsigned)rng.range(0, 99), psn;
    bool nak = false;
    if (r < 50) psn = s.out[rng.range(0, s.out.size() - 1)].last;
    else if (r < 63) psn = psn_add(s.next_psn, -1);
    else if (r < 76) {
      const Rec &w = s.out[rng.range(0, s.out.size() - 1)];
      psn = psn_add(w.first, (int)rng.range(0, ((w.last - w.first) & 0xffffffu)));
      if (psn == w.last) psn = psn_add(w.first, -1);   // the one before it, still inside
    } else if (r < 88) {
      psn = psn_add(s.acked, -(int)rng.range(0, 3));   // late, or the same again
    } else {
      // A PSN-sequence NAK of a PSN sent and not acknowledged: what is
      // before it is acknowledged, the send queue goes back to it.
      nak = true;
      psn = psn_add(s.una, (int)rng.range(0, (psn_add(s.next_psn, -1) - s.una) & 0xffffffu));
      // (A NAK that would exhaust the retries is not sent: the WQE would fail.)
      bool progress = psn_ge(psn_add(psn, -1), s.out.front().last) || psn != s.una;
      if (s.rc_used == 7 && !progress) continue;
    }
    if (nak) {
      Desc d{q, psn, kOpAck, false};
      d.aeth_syn = kAethNakPsnSeq;
      b.packet(d);
      naks++;
    } else {
      b.ack(q, psn);
    }
    uint64_t at = g_cycle - 1;
    unsigned covers = nak ? psn_add(psn, -1) : psn;
    if (psn_ge(s.acked, covers)) late++;
    else s.acked = covers;
    bool any = false;
    while (!s.out.empty() && psn_ge(covers, s.out.front().last)) {
      const Rec &w = s.out.front();
      if (w.sig) {
        s.cqes.push_back(Cqe{q, w.idx, 0, 1, w.len});
        s.cqe_ack.push_back(at);
      }
      s.retired = (s.retired + 1) & 0xffffu;
      s.una = psn_add(w.last, 1);
      s.out.pop_front();
      any = true;
    }
    if (nak) {
      // rnic_completer's StSeqNak: a rewind to the NAKed PSN, unless that
      // rewind is under way; a NAK past the first unacknowledged PSN is
      // progress too (the retry count starts again).
      bool progress = any;
      if (s.rw_v && s.rw_psn == psn) {
        if (progress) s.rw_v = false, s.rc_used = 0;
      } else {
        if (psn != s.una) s.una = psn, progress = true;
        s.rc_used = progress ? 1 : s.rc_used + 1;
        s.rw_v = true;
        s.rw_psn = psn;
        const Rec &h = s.out.front();
        s.rws.push_back(Rewind{q, h.idx, h.first, psn, false});
      }
    } else if (any) {
      s.rc_used = 0;   // an ACK that retires is progress
      s.rw_v = false;
    }
    if (!any) mid++;
    b.run((unsigned)rng.range(0, 3));
  }
  // What is still in flight is acknowledged at the end (READs: their
  // responses, in order).
  for (unsigned q = 0; q < kNQp; q++) {
    Model &s = m[q];
    while (s.reads && !s.out.empty()) {
      const Rec &h = s.out.front();
      Desc d{q, h.first, 0x10, false, h.len};
      d.aeth_syn = kAethAck;
      b.packet(d);
      s.places.push_back(Bench::Place{q, h.first, 1, kMrIova + (buf(q, h.idx) - kMrVa), h.len});
      if (h.sig) {
        s.cqes.push_back(Cqe{q, h.idx, 0, 2, h.len});
        s.cqe_ack.push_back(g_cycle - 1);
      }
      s.retired = (s.retired + 1) & 0xffffu;
      s.out.pop_front();
    }
    if (s.out.empty()) continue;
    b.ack(q, psn_add(s.next_psn, -1));
    for (const Rec &w : s.out) {
      if (!w.sig) continue;
      s.cqes.push_back(Cqe{q, w.idx, 0, 1, w.len});
      s.cqe_ack.push_back(g_cycle - 1);
    }
    s.retired = (s.retired + (unsigned)s.out.size()) & 0xffffu;
    s.out.clear();
  }
  b.each_cycle = nullptr;
  b.t.scqe_ready_i = 1;
  b.t.done_ready_i = 1;
  b.run(200);

  unsigned ncqe = 0;
  for (unsigned q = 0; q < kNQp; q++) {
    const Model &s = m[q];
    std::vector<Cqe> got;
    std::vector<uint64_t> got_at;
    for (size_t k = c0; k < b.cqes.size(); k++) {
      if (b.cqes[k].qpn != q) continue;
      got.push_back(b.cqes[k]);
      got_at.push_back(b.cqe_at[k]);
    }
    // Alike, and after the ACK that retires it (not before: an ACK inside
    // a WQE completes nothing).
    size_t same = 0;
    while (same < got.size() && same < s.cqes.size() && got[same].wqe_idx == s.cqes[same].wqe_idx &&
           got[same].status == 0 && got[same].opcode == s.cqes[same].opcode &&
           got[same].byte_len == s.cqes[same].byte_len && got_at[same] > s.cqe_ack[same])
      same++;
    BLK_CHECK(same == got.size() && same == s.cqes.size(),
              "cpl_random: QP %u: %zu send completions, the model %zu, the first %zu alike",
              q, got.size(), s.cqes.size(), same);
    ncqe += (unsigned)got.size();
    unsigned last = 0, nrep = 0;
    bool mono = true, seen = false;
    for (size_t k = d0; k < b.dones.size(); k++) {
      if (b.dones[k].first != q) continue;
      unsigned ci = b.dones[k].second;
      if (seen && ((ci - last) & 0xffffu) >= 0x8000u) mono = false;
      last = ci;
      seen = true;
      nrep++;
    }
    BLK_CHECK(mono && (s.retired == 0 || (seen && last == s.retired)),
              "cpl_random: QP %u: %u progress reports, the last %u, %u WQEs retired%s", q, nrep,
              last, s.retired, mono ? "" : ", going back");
  }
  unsigned nrw = 0;
  for (unsigned q = 0; q < kNQp; q++) {
    const Model &s = m[q];
    std::vector<Rewind> got;
    for (size_t k = rw0; k < b.rws.size(); k++)
      if (b.rws[k].qpn == q) got.push_back(b.rws[k]);
    size_t same = 0;
    while (same < got.size() && same < s.rws.size() && got[same].idx == s.rws[same].idx &&
           got[same].first == s.rws[same].first && got[same].restart == s.rws[same].restart &&
           !got[same].hold)
      same++;
    BLK_CHECK(same == got.size() && same == s.rws.size(),
              "cpl_random: QP %u: %zu rewinds, the model %zu, the first %zu alike", q,
              got.size(), s.rws.size(), same);
    nrw += (unsigned)got.size();
  }
  unsigned nplace = 0;
  for (unsigned q = 0; q < kNQp; q++) {
    const Model &s = m[q];
    nplace += check_places(b, p0, q, s.places, "cpl_random");
    unsigned credits = 0;
    for (size_t k = rd0; k < b.rd_dones.size(); k++) credits += b.rd_dones[k] == q;
    BLK_CHECK(credits == s.rd_credits, "cpl_random: QP %u: %u READ credits back, the model %u",
              q, credits, s.rd_credits);
  }
  BLK_CHECK(b.errs.size() == e0, "cpl_random: %zu QP errors", b.errs.size() - e0);
  info("cpl_random: %u responses (%u sequence NAKs, %u rewinds; %u late or repeated, %u "
       "retiring nothing), %u READ responses placed, %u send completions, %zu progress reports",
       nacks, naks, nrw, late, mid, nplace, ncqe, b.dones.size() - d0);
}
#endif

void cases(Bench &b)
{
#if HAS_RSP
  rsp_acks(b);
#endif
#if HAS_CPL
  cpl_naks(b);
#endif
#if HAS_RSP
  rsp_errs(b);
#endif
#if HAS_CPL
  cpl_flush(b);
  cpl_wqe(b);
#endif
#if HAS_RSP
  rsp_doorbells(b);
#endif
#if HAS_RSP
  rsp_random(b, 0x5eed1, 3000);
#endif
#if HAS_CPL
  cpl_random(b, 0x5eed2, 3000);
#endif
  BLK_CHECK(b.held == 0, "frame slots not released: mask 0x%x", b.held);
  BLK_CHECK(b.t.quiet_o, "the engine is not quiet at the end");
}

}  // namespace

int main(int argc, char **argv)
{
  g_bench = ROLE == 1 ? "blk_rnic_responder" : "blk_rnic_completer";
  VerilatedContext vctx;
  vctx.commandArgs(argc, argv);
  {
    Bench b(vctx);
    cases(b);
    cov_dump(vctx);
  }
  return finish();
}
