// blk_rnic_sq_fetch: rnic_sq_fetch alone (NQp=16; DATAW 256 and 64).
//
// A C++ model of the QP table answers ctx_i for ctx_idx_o in the same cycle;
// software posts WQEs with distinguishable contents into per-QP rings (log
// size 2..5, stride 64/128/256) in a C++ host memory and rings doorbells; the
// WQE reads are answered in order with random latency, beat stalls and some
// error responses; a completer model consumes the fetched WQEs and sends
// done_ci updates after random delays (often several WQEs in one update).
// Checks: every posted WQE is fetched exactly once, in order per QP, from the
// right ring slot with the right length and contents (zero past the stride),
// error responses flagged; never more than 8 WQEs between done_ci and the
// fetch; no reads for a QP in ERR, whose WQEs come back as flush items
// instead; no fetch for a QP in INIT or for doorbells beyond NQp; the trace
// event of every fetched WQE. Directed phases: exact round-robin order among
// QPs queued together, and two wake-ups (doorbell / done_ci update) that
// arrive in the cycle the QP leaves the head of the active FIFO.
//
// SQD: the model keeps the DUT's high-water mark hi per QP (one past the
// furthest WQE read; reset by a context write with QpFlagResetSq). An SQD
// phase moves QPs RTS -> SQD (with or without QpFlagSqdNotify), sometimes
// SQD -> SQD, and back to RTS through the context-write port (the state
// changes at the write's clock edge, as in rnic_ctx_tables; writes at least
// kWrGap cycles apart), with rewinds now and then. Checks: no WQE at or
// beyond the hi of the SQD entry is read in SQD (those below are, after a
// rewind); after SQD -> RTS the WQEs posted meanwhile come out in order with
// no further doorbell (none is rung until they did; a QP with no completion
// pending must be read within kKickWait cycles); query_draining_o ==
// (done_ci != hi) for a random query_idx_i every cycle; one SQ_DRAINED event
// per arming context write (any write with the notify flag arms, any write
// without disarms), fired only with done_ci == hi and no write to the QP in
// that cycle, within NQp cycles of the sweep being free, held with its QPN
// under random drained_ready_i until taken. hi is not checked for a QP in
// ERR/SQE (a flush item is issued unseen).
#include <functional>

#include "Vrnic_sq_fetch.h"
#include "blk_common.h"

using namespace blk;

#ifndef DATAW
#define DATAW 256
#endif
constexpr unsigned kBytes = DATAW / 8;
constexpr unsigned kNQp = 16;
constexpr unsigned kInfl = 8;
constexpr unsigned kWqeBytes = 256;
constexpr unsigned kOutW = kWqeBytes * 8 + 42;
constexpr uint8_t kStRts = 3, kStSqd = 4;
constexpr uint8_t kFlResetSq = 1u << 0, kFlSqdNotify = 1u << 4;  // qp_wr_flags_i
constexpr uint64_t kWrGap = 16;  // cycles between the SQD phase's context writes
constexpr uint64_t kKickWait = 2000;

namespace {

uint8_t wqe_byte(unsigned q, uint16_t idx, unsigned k) {
  switch (k) {
    case 0:
      return 0x0a;
    case 2:
      return (uint8_t)idx;
    case 3:
      return (uint8_t)(idx >> 8);
    case 4:
      return (uint8_t)q;
    default: {
      uint64_t x = ((uint64_t)q << 40 | (uint64_t)idx << 16 | k) * 0x9E3779B97F4A7C15ull;
      x ^= x >> 31;
      return (uint8_t)(x >> 23);
    }
  }
}

struct ReadRec {
  uint16_t idx;
  std::vector<uint8_t> data;  // stride bytes as returned (zero if err)
  bool err;
};

struct Qp {
  QpCfg cfg;
  uint16_t sw_pi = 0;             // posted by software
  uint16_t db_pi = 0;             // producer index the DUT has from doorbells
  uint16_t done_dut = 0;          // done_ci the DUT has
  uint16_t completed = 0;         // completer's done index
  uint16_t reads = 0;             // index of the next read
  uint16_t next_out = 0;          // next index expected at wqe_o
  std::deque<ReadRec> rd;         // reads whose WQE has not come out yet
  std::vector<int32_t> slot_idx;  // WQE index held by each ring slot
  unsigned fetched = 0, flushed = 0;
  uint64_t last_due = 0;
  // SQD model
  uint16_t hi = 0;           // one past the furthest WQE read (the DUT's hi_q)
  bool armed = false;        // SQ_DRAINED armed: the last context write had the notify flag
  bool arm_sqd = false;      // ... and moved the QP to (or kept it in) SQD
  uint16_t sqd_hi = 0;       // hi when the QP entered SQD
  unsigned elig = 0;         // consecutive cycles the sweep could have reported it
  bool resume_wait = false;  // SQD -> RTS with WQEs held back: no post until they came out
  bool kick_only = false;    // ... and only the context write can wake the QP up
  uint16_t resume_to = 0;    // producer index at SQD -> RTS
  uint64_t resume_at = 0;
  unsigned ring() const { return 1u << cfg.sq_log_size; }
  unsigned stride() const { return 1u << cfg.sq_wqe_shift; }
};

struct RdJob {
  unsigned q;
  uint16_t idx;
  bool err;
  uint64_t ready_at;
  unsigned beats;
};

struct Compl {
  unsigned q;
  uint16_t ci;
  uint64_t due;
};

uint16_t d16(uint16_t a, uint16_t b) {
  return (uint16_t)(a - b);
}

}  // namespace

class Bench {
 public:
  VerilatedContext vctx;
  Vrnic_sq_fetch top{&vctx};
  Rng r{0x5f000000u + DATAW};
  Rng rs{0x5d000000u + DATAW};  // SQD stimulus, query_idx_i, drained_ready_i
  Qp qp[kNQp];
  const bool trace = std::getenv("BLK_TRACE") != nullptr;

  // knobs
  double p_req = 0.8, p_beat = 0.8, p_wqe = 0.8, p_db = 0.8, p_done = 0.8, p_err = 0.02;
  double p_drained = 0.5;
  unsigned compl_min = 3, compl_max = 60;
  bool completions_on = true;
  int force_req_ready = -1;          // -1 random, else forced
  std::function<void()> hook;        // runs after the first evaluation of a cycle
  std::function<void()> after_edge;  // runs after the models are updated

  // drivers
  std::deque<std::pair<uint32_t, uint16_t>> dbq;
  bool db_offered = false;
  std::vector<Compl> compl_list;
  std::deque<unsigned> done_order;
  bool done_pending[kNQp] = {};
  bool done_offered = false;
  unsigned done_q = 0;
  uint16_t done_v = 0;
  std::deque<RdJob> rdq;
  unsigned rd_beat = 0;
  bool rd_offered = false;
  std::deque<std::pair<unsigned, uint16_t>> evq;
  std::vector<unsigned> read_log;  // QP of each accepted read, in order
  struct QpWr {
    uint32_t idx;
    uint8_t flags;
    int state = -1;  // the context's new state (applied at the write's edge), -1: unchanged
  };
  std::deque<QpWr> qpwr;
  uint64_t last_wr = 0;
  // SQ_DRAINED / QP_QUERY
  bool dr_hold = false;  // drained_valid_o and not taken in the last cycle
  uint32_t dr_hold_qpn = 0;
  bool snap_wr[kNQp] = {}, snap_exact[kNQp] = {};  // last cycle, before its edge
  uint16_t snap_done[kNQp] = {}, snap_hi[kNQp] = {};
  uint64_t n_sqd = 0, n_sqd_notify = 0, n_sqd_rearm = 0, n_drained = 0, n_drained_sqd = 0;
  uint64_t n_disarmed = 0, n_drained_wait = 0, n_query = 0, n_query_busy = 0;
  uint64_t n_resume = 0, n_resume_held = 0, n_held = 0, n_kick_only = 0;
  uint64_t n_rewind = 0, n_rewind_sqd = 0, n_refetch_sqd = 0;
  uint64_t last_progress = 0;
  uint64_t n_reads = 0, n_out = 0, n_flush = 0, n_err = 0, n_done = 0, n_db = 0;
  uint64_t n_coalesced = 0, n_window_full = 0, n_db_ignored = 0, n_done_dropped = 0;
  bool last_rewind_taken = false;  // rewind handshake of the last cycle

  void reset() {
    top.db_valid_i = 0;
    top.done_valid_i = 0;
    top.rewind_valid_i = 0;
    top.qp_wr_i = 0;
    top.drained_ready_i = 0;
    top.query_idx_i = 0;
    top.rd_req_ready_i = 0;
    top.rd_rsp_valid_i = 0;
    top.wqe_ready_i = 0;
    reset_dut(top);
  }

  // Address decode of a WQE read.
  int owner_of(uint64_t a) const {
    for (unsigned q = 0; q < kNQp; q++) {
      const Qp &p = qp[q];
      if (a >= p.cfg.sq_base && a < p.cfg.sq_base + (uint64_t)p.ring() * p.stride()) return (int)q;
    }
    return -1;
  }
  static bool run_state(uint8_t s) { return s == 3 || s == 4 || s == 5; }
  // The model's hi is the DUT's unless the QP is in SQE/ERR (flush items).
  bool hi_exact(unsigned q) const { return qp[q].cfg.state != 5 && qp[q].cfg.state != 6; }
  bool db_waiting(unsigned q) const {
    return std::any_of(dbq.begin(), dbq.end(), [q](const auto &d) { return d.first == q; });
  }
  bool wr_waiting(unsigned q) const {
    return std::any_of(qpwr.begin(), qpwr.end(), [q](const QpWr &w) { return w.idx == q; });
  }

  // Software: post n WQEs to QP q (as far as the ring has room) and ring.
  unsigned post(unsigned q, unsigned n, bool ring_db = true) {
    Qp &p = qp[q];
    unsigned k = 0;
    while (k < n && d16(p.sw_pi, p.done_dut) < p.ring()) {
      p.slot_idx[p.sw_pi & (p.ring() - 1)] = p.sw_pi;
      p.sw_pi++;
      k++;
    }
    if (ring_db && (k || r.chance(0.2))) dbq.push_back({q, p.sw_pi});
    return k;
  }

  void cycle() {
    top.clk_i = 0;
    // ---- completer: due completions, done_ci updates (one at a time, held)
    if (completions_on) {
      for (size_t i = 0; i < compl_list.size();) {
        if (compl_list[i].due <= g_cycle) {
          Qp &p = qp[compl_list[i].q];
          p.completed = compl_list[i].ci;
          if (!done_pending[compl_list[i].q]) {
            done_pending[compl_list[i].q] = true;
            done_order.push_back(compl_list[i].q);
          } else {
            n_coalesced++;
          }
          compl_list.erase(compl_list.begin() + i);
        } else {
          i++;
        }
      }
      if (!done_offered && !done_order.empty() && r.chance(p_done)) {
        done_q = done_order.front();
        done_order.pop_front();
        done_pending[done_q] = false;
        done_v = qp[done_q].completed;
        done_offered = true;
      }
    }
    top.done_valid_i = done_offered;
    top.done_qpn_i = done_q;
    top.done_ci_i = done_v;
    // ---- doorbells (held until taken)
    if (!db_offered && !dbq.empty() && r.chance(p_db)) db_offered = true;
    top.db_valid_i = db_offered;
    if (db_offered)
      top.db_data_i = (uint64_t)dbq.front().first | (uint64_t)dbq.front().second << 32 |
                      (r.u64() & 0xFFFF000000000000ull) | (uint64_t)(r.u32() & 0xFF) << 24;
    // ---- context writes
    top.qp_wr_i = !qpwr.empty();
    if (!qpwr.empty()) {
      top.qp_wr_idx_i = qpwr.front().idx;
      top.qp_wr_flags_i = qpwr.front().flags;
    }
    // ---- DMA read side
    top.rd_req_ready_i =
        force_req_ready >= 0 ? force_req_ready : (rdq.size() < 6 && r.chance(p_req));
    if (!rd_offered && !rdq.empty() && rdq.front().ready_at <= g_cycle && r.chance(p_beat)) {
      const RdJob &j = rdq.front();
      const ReadRec *rec = nullptr;
      for (const ReadRec &x : qp[j.q].rd)
        if (x.idx == j.idx) rec = &x;
      if (!rec) {
        std::fprintf(stderr, "internal: no read record\n");
        std::exit(2);
      }
      uint8_t lanes[kBytes];
      for (unsigned i = 0; i < kBytes; i++) lanes[i] = rec->data[rd_beat * kBytes + i];
      vset_bytes(top.rd_rsp_data_i, lanes);
      top.rd_rsp_last_i = rd_beat + 1 == j.beats;
      top.rd_rsp_err_i = j.err;
      rd_offered = true;
    }
    top.rd_rsp_valid_i = rd_offered;
    top.wqe_ready_i = r.chance(p_wqe);
    // ---- SQ_DRAINED back-pressure, QP_QUERY
    top.drained_ready_i = rs.chance(p_drained);
    top.query_idx_i =
        rs.chance(0.05) ? (uint32_t)rs.range(kNQp, 0xFFFFFF) : (uint32_t)rs.range(0, kNQp - 1);
    eval_ctx();
    if (hook) hook();

    // ---- sample and check
    const bool db_take = top.db_valid_i && top.db_ready_o;
    const bool done_take = top.done_valid_i && top.done_ready_o;
    const bool req_take = top.rd_req_valid_o && top.rd_req_ready_i;
    const bool rsp_take = top.rd_rsp_valid_i && top.rd_rsp_ready_o;
    const bool out_take = top.wqe_valid_o && top.wqe_ready_i;
    last_rewind_taken = top.rewind_valid_i && top.rewind_ready_o;
    check_sqd_outputs();  // before on_read moves hi
    if (top.rd_req_valid_o) {
      int q = owner_of(top.rd_req_addr_o);
      BLK_CHECK(q >= 0, "rd_req_valid_o with address 0x%llx outside every SQ ring",
                (unsigned long long)top.rd_req_addr_o);
      if (q >= 0)
        BLK_CHECK(run_state(qp[q].cfg.state),
                  "WQE read requested for QP %d in state %u (only RTS/SQD/SQE may read)", q,
                  qp[q].cfg.state);
    }
    if (req_take) on_read();
    if (out_take) on_output();
    if (top.ev_valid_o) evq.push_back({top.ev_qpn_o, top.ev_idx_o});
    if (trace) {
      if (db_take)
        std::printf("%6llu db q%u pi %u\n", (unsigned long long)g_cycle, dbq.front().first,
                    dbq.front().second);
      if (done_take)
        std::printf("%6llu done q%u ci %u\n", (unsigned long long)g_cycle, done_q, done_v);
      if (req_take)
        std::printf("%6llu read q%u idx %u\n", (unsigned long long)g_cycle, read_log.back(),
                    qp[read_log.back()].reads - 1);
      if (out_take) std::printf("%6llu out\n", (unsigned long long)g_cycle);
      if (top.qp_wr_i)
        std::printf("%6llu ctx write q%u flags 0x%02x state %d\n", (unsigned long long)g_cycle,
                    qpwr.front().idx, qpwr.front().flags, qpwr.front().state);
      if (top.drained_valid_o && top.drained_ready_i)
        std::printf("%6llu drained q%u\n", (unsigned long long)g_cycle, top.drained_qpn_o);
    }

    top.clk_i = 1;
    top.eval();

    // ---- models after the edge
    // Both decisions read the indices from before the edge.
    bool done_fwd = false;
    if (done_take) {
      const Qp &p = qp[done_q];
      done_fwd = d16(done_v, p.done_dut) <= d16(p.db_pi, p.done_dut);
    }
    if (db_take) {
      const auto d = dbq.front();
      dbq.pop_front();
      db_offered = false;
      if (d.first < kNQp) {
        // A producer index more than a full ring (32768) past the done index
        // or behind the current one is ignored.
        Qp &p = qp[d.first];
        const uint16_t rel = d16(d.second, p.done_dut);
        if (rel <= 0x8000 && rel >= d16(p.db_pi, p.done_dut))
          p.db_pi = d.second;
        else
          n_db_ignored++;
      }
      n_db++;
      last_progress = g_cycle;
    }
    if (done_take) {
      // A done index past the producer index (a stale report) is dropped.
      if (done_fwd)
        qp[done_q].done_dut = done_v;
      else
        n_done_dropped++;
      done_offered = false;
      n_done++;
      last_progress = g_cycle;
    }
    if (rsp_take) {
      rd_beat++;
      rd_offered = false;
      if (top.rd_rsp_last_i) {
        rdq.pop_front();
        rd_beat = 0;
      }
      last_progress = g_cycle;
    }
    if (!qpwr.empty()) {
      const QpWr w = qpwr.front();
      qpwr.pop_front();
      if (w.idx < kNQp && (w.flags & 1)) {
        Qp &p = qp[w.idx];
        p.sw_pi = p.db_pi = p.done_dut = p.completed = p.reads = p.next_out = 0;
        p.hi = 0;
        p.resume_wait = false;
        p.rd.clear();
      }
      if (w.idx < kNQp) on_ctx_write(w);
    }
    for (unsigned q = 0; q < kNQp; q++) {
      Qp &p = qp[q];
      if (p.resume_wait && p.kick_only && p.reads == p.sqd_hi &&
          g_cycle - p.resume_at > kKickWait) {
        fail(
            "QP %u: SQD -> RTS at cycle %llu, WQEs %u..%u posted (doorbells taken), no "
            "completion pending: WQE %u not read after %llu cycles",
            q, (unsigned long long)p.resume_at, p.sqd_hi, (uint16_t)(p.resume_to - 1), p.sqd_hi,
            (unsigned long long)kKickWait);
        p.kick_only = false;
      }
    }
    if (after_edge) after_edge();
    g_cycle++;
  }

  // A context write, at its clock edge: the new state, SQ_DRAINED arming.
  void on_ctx_write(const QpWr &w) {
    Qp &p = qp[w.idx];
    const bool notify = w.flags & kFlSqdNotify;
    const uint8_t old = p.cfg.state;
    if (p.armed && p.arm_sqd) n_disarmed++;  // rewritten before its event
    if (w.state >= 0) p.cfg.state = (uint8_t)w.state;
    p.armed = notify;
    p.arm_sqd = notify && p.cfg.state == kStSqd;
    p.elig = 0;
    last_wr = g_cycle;
    if (old == kStRts && p.cfg.state == kStSqd) {
      p.sqd_hi = p.hi;
      n_sqd++;
      n_sqd_notify += notify;
    } else if (old == kStSqd && p.cfg.state == kStSqd) {
      n_sqd_rearm += notify;
    } else if (old == kStSqd && p.cfg.state == kStRts) {
      n_resume++;
      const uint16_t held = d16(p.db_pi, p.sqd_hi);
      if (held >= 1 && held < 0x8000) {
        p.resume_wait = true;
        p.resume_to = p.db_pi;
        p.resume_at = g_cycle;
        bool pend = (done_offered && done_q == w.idx) || done_pending[w.idx];
        for (const Compl &c : compl_list) pend = pend || c.q == w.idx;
        p.kick_only = !pend && p.reads == p.sqd_hi;
      }
    }
  }

  // QP_QUERY and SQ_DRAINED, sampled before the clock edge.
  void check_sqd_outputs() {
    const uint32_t qi = top.query_idx_i;
    if (qi >= kNQp) {
      BLK_CHECK(!top.query_draining_o, "query_draining_o=1 for QPN %u (NQp=%u)", qi, kNQp);
    } else if (hi_exact(qi)) {
      const Qp &p = qp[qi];
      BLK_CHECK(top.query_draining_o == (p.done_dut != p.hi),
                "QP %u (state %u): query_draining_o=%u with done_ci %u and high-water mark %u", qi,
                p.cfg.state, top.query_draining_o, p.done_dut, p.hi);
      n_query++;
      n_query_busy += p.done_dut != p.hi;
    }
    const bool dv = top.drained_valid_o;
    const uint32_t dq = top.drained_qpn_o;
    if (dr_hold) {
      BLK_CHECK(dv && dq == dr_hold_qpn,
                "SQ_DRAINED event of QP %u not taken (drained_ready_i=0): now drained_valid_o=%u "
                "drained_qpn_o=%u",
                dr_hold_qpn, dv, dq);
    } else if (dv && dq >= kNQp) {
      fail("SQ_DRAINED event for QPN %u (NQp=%u)", dq, kNQp);
    } else if (dv) {  // a new event, fired at the last edge
      Qp &p = qp[dq];
      n_drained++;
      BLK_CHECK(p.armed,
                "SQ_DRAINED event for QP %u (state %u): not armed (no context write with the "
                "notify flag since its last event, or the last write had none)",
                dq, p.cfg.state);
      BLK_CHECK(!snap_wr[dq],
                "SQ_DRAINED event for QP %u fired in the cycle of a context write to it", dq);
      if (snap_exact[dq])
        BLK_CHECK(snap_done[dq] == snap_hi[dq],
                  "SQ_DRAINED event for QP %u fired with done_ci %u and high-water mark %u", dq,
                  snap_done[dq], snap_hi[dq]);
      if (p.armed && p.arm_sqd) {
        n_drained_sqd++;
        BLK_CHECK(p.cfg.state == kStSqd && snap_done[dq] == p.sqd_hi,
                  "SQ_DRAINED event for QP %u (state %u): done_ci %u, %u WQEs fetched before SQD",
                  dq, p.cfg.state, snap_done[dq], p.sqd_hi);
      }
      p.armed = p.arm_sqd = false;
    }
    if (dv && !top.drained_ready_i) n_drained_wait++;
    dr_hold = dv && !top.drained_ready_i;
    dr_hold_qpn = dq;
    // What the sweep sees in this cycle; an armed QP with done_ci == hi must
    // be reported within NQp cycles in which no event waits.
    for (unsigned q = 0; q < kNQp; q++) {
      Qp &p = qp[q];
      snap_wr[q] = top.qp_wr_i && top.qp_wr_idx_i == q;
      snap_exact[q] = hi_exact(q);
      snap_done[q] = p.done_dut;
      snap_hi[q] = p.hi;
      if (p.armed && snap_exact[q] && p.done_dut == p.hi && !dv && !snap_wr[q]) {
        if (++p.elig > kNQp) {
          fail(
              "QP %u (state %u) armed, done_ci == high-water mark %u, no event waiting: "
              "no SQ_DRAINED event after %u cycles",
              q, p.cfg.state, p.hi, p.elig);
          p.armed = false;
        }
      } else {
        p.elig = 0;
      }
    }
  }

  void eval_ctx() {
    top.eval();
    const unsigned h = top.ctx_idx_o;
    vset(top.ctx_i, h < kNQp ? qp[h].cfg.pack() : Bits(kQpCfgW));
    top.eval();
  }

  void on_read() {
    const uint64_t a = top.rd_req_addr_o;
    const int qi = owner_of(a);
    if (qi < 0) return;  // reported above
    Qp &p = qp[qi];
    const uint16_t idx = p.reads;
    const uint64_t exp = p.cfg.sq_base + ((uint64_t)(idx & (p.ring() - 1)) << p.cfg.sq_wqe_shift);
    BLK_CHECK(a == exp && top.rd_req_len_o == p.stride(),
              "QP %d WQE %u: read addr=0x%llx len=%u, expected addr=0x%llx len=%u", qi, idx,
              (unsigned long long)a, top.rd_req_len_o, (unsigned long long)exp, p.stride());
    const uint16_t ahead = d16(p.db_pi, idx);
    BLK_CHECK(ahead >= 1 && ahead <= 0x8000,
              "QP %d: WQE %u read but the doorbell producer index is %u", qi, idx, p.db_pi);
    BLK_CHECK(d16(idx, p.done_dut) < kInfl,
              "QP %d: WQE %u read with done_ci %u: more than %u WQEs between done and fetch", qi,
              idx, p.done_dut, kInfl);
    if (p.cfg.state == kStSqd) {
      BLK_CHECK(d16(idx, p.sqd_hi) >= 0x8000,
                "QP %d in SQD: WQE %u read, but only WQEs below %u were fetched before SQD", qi,
                idx, p.sqd_hi);
      n_refetch_sqd++;
    }
    if (p.resume_wait && idx == p.sqd_hi && p.kick_only) n_kick_only++;
    if (d16(idx, p.hi) < 0x8000) p.hi = idx + 1;
    if (d16(idx, p.done_dut) == kInfl - 1) n_window_full++;
    ReadRec rec;
    rec.idx = idx;
    rec.err = r.chance(p_err);
    const unsigned slot = idx & (p.ring() - 1);
    for (unsigned k = 0; k < p.stride(); k++)
      rec.data.push_back(rec.err ? 0 : wqe_byte(qi, (uint16_t)p.slot_idx[slot], k));
    BLK_CHECK(p.slot_idx[slot] == (int32_t)idx,
              "QP %d: WQE %u read from slot %u, which holds WQE %d", qi, idx, slot,
              p.slot_idx[slot]);
    p.rd.push_back(rec);
    const unsigned beats = (p.stride() + kBytes - 1) / kBytes;
    rdq.push_back({(unsigned)qi, idx, rec.err, g_cycle + r.range(1, 16), beats});
    read_log.push_back((unsigned)qi);
    p.reads++;
    n_reads++;
    n_err += rec.err;
    last_progress = g_cycle;
  }

  void on_output() {
    Bits o = vget(top.wqe_o, kOutW);
    Unpacker u(o);
    const bool err = u.f(1), flush = u.f(1);
    const uint32_t q = (uint32_t)u.f(24);
    const uint16_t idx = (uint16_t)u.f(16);
    last_progress = g_cycle;
    n_out++;
    if (q >= kNQp) {
      fail("wqe_o for QPN %u (NQp=%u)", q, kNQp);
      return;
    }
    Qp &p = qp[q];
    BLK_CHECK(idx == p.next_out, "QP %u: WQE %u came out, expected WQE %u (order/once)", q, idx,
              p.next_out);
    BLK_CHECK(d16(p.sw_pi, idx) >= 1 && d16(p.sw_pi, idx) <= 0x8000,
              "QP %u: WQE %u came out but only %u were posted", q, idx, p.sw_pi);
    BLK_CHECK(d16(idx, p.done_dut) < kInfl, "QP %u: WQE %u out with done_ci %u (window %u)", q, idx,
              p.done_dut, kInfl);
    std::vector<uint8_t> data(kWqeBytes);
    for (unsigned i = 0; i < kWqeBytes; i++) data[i] = o.byte(i);
    if (flush) {
      n_flush++;
      p.flushed++;
      BLK_CHECK(p.cfg.state == 6, "QP %u (state %u): flush item for WQE %u", q, p.cfg.state, idx);
      BLK_CHECK(p.rd.empty() || p.rd.front().idx != idx,
                "QP %u: WQE %u was read but came out as a flush item", q, idx);
      BLK_CHECK(!err, "QP %u: flush item with err", q);
      BLK_CHECK(std::all_of(data.begin(), data.end(), [](uint8_t b) { return b == 0; }),
                "QP %u: flush item for WQE %u carries data", q, idx);
      if (d16(idx + 1, p.reads) <= 0x8000) p.reads = idx + 1;
      if (d16(idx, p.hi) < 0x8000) p.hi = idx + 1;  // late: the flush was issued unseen
    } else {
      p.fetched++;
      if (p.rd.empty() || p.rd.front().idx != idx) {
        fail("QP %u: WQE %u came out without a read of it", q, idx);
      } else {
        const ReadRec rec = p.rd.front();
        p.rd.pop_front();
        BLK_CHECK(err == rec.err, "QP %u WQE %u: err flag %d, read answered with err=%d", q, idx,
                  err, rec.err);
        for (unsigned i = 0; i < kWqeBytes; i++) {
          const uint8_t e = i < rec.data.size() ? rec.data[i] : 0;
          if (data[i] != e) {
            fail("QP %u WQE %u (stride %u): byte %u is 0x%02x, expected 0x%02x", q, idx, p.stride(),
                 i, data[i], e);
            break;
          }
        }
      }
      if (evq.empty()) {
        fail("QP %u WQE %u: no fetch event", q, idx);
      } else {
        BLK_CHECK(evq.front().first == q && evq.front().second == idx,
                  "fetch event qpn %u idx %u, expected %u/%u", evq.front().first,
                  evq.front().second, q, idx);
        evq.pop_front();
      }
    }
    p.next_out = idx + 1;
    if (p.resume_wait && p.next_out == p.resume_to) {
      n_resume_held++;
      n_held += d16(p.resume_to, p.sqd_hi);
      p.resume_wait = false;
    }
    if (completions_on) {
      uint64_t due = std::max<uint64_t>(g_cycle + r.range(compl_min, compl_max), p.last_due);
      p.last_due = due;
      compl_list.push_back({q, (uint16_t)(idx + 1), due});
    }
  }

  // All posted WQEs of fetchable QPs out and completed, nothing in flight.
  bool drained() const {
    if (!dbq.empty() || db_offered || done_offered || !compl_list.empty() || !done_order.empty() ||
        !rdq.empty() || top.wqe_valid_o)
      return false;
    for (unsigned q = 0; q < kNQp; q++) {
      const Qp &p = qp[q];
      if (p.cfg.state != 3 && p.cfg.state != 6) continue;
      if (p.next_out != p.sw_pi || p.done_dut != p.sw_pi) return false;
    }
    return true;
  }

  bool run_until_drained(const char *phase, uint64_t limit = 20000) {
    const uint64_t start = g_cycle;
    last_progress = g_cycle;
    while (!drained()) {
      cycle();
      if (g_cycle - last_progress > 3000 || g_cycle - start > limit * 50) {
        std::string s;
        for (unsigned q = 0; q < kNQp; q++) {
          const Qp &p = qp[q];
          if ((p.cfg.state == 3 || p.cfg.state == 6) && p.next_out != p.sw_pi)
            s += " QP" + std::to_string(q) + "(posted " + std::to_string(p.sw_pi) + ", doorbell " +
                 std::to_string(p.db_pi) + ", fetched " + std::to_string(p.next_out) +
                 ", done_ci " + std::to_string(p.done_dut) + ")";
        }
        fail("%s: stuck for 3000 cycles with WQEs posted and not fetched:%s", phase, s.c_str());
        return false;
      }
    }
    return true;
  }

  // Reset every SQ (flag bit 0) through the context-write port.
  void reset_sqs() {
    for (unsigned q = 0; q < kNQp; q++) qpwr.push_back({q, (uint8_t)(1 | (r.u32() & 0xFE))});
    while (!qpwr.empty()) cycle();
    for (unsigned q = 0; q < kNQp; q++) {
      qp[q].fetched = qp[q].flushed = 0;
      qp[q].last_due = 0;
      std::fill(qp[q].slot_idx.begin(), qp[q].slot_idx.end(), -1);
    }
    evq.clear();
    read_log.clear();
  }

  void config(unsigned q, uint8_t state, unsigned log, unsigned shift) {
    Qp &p = qp[q];
    p.cfg.randomize(r);
    p.cfg.state = state;
    p.cfg.sq_log_size = (uint8_t)log;
    p.cfg.sq_wqe_shift = (uint8_t)shift;
    p.cfg.sq_base = 0x200000000000ull + (uint64_t)q * 0x1000000ull + 0x40 * r.range(0, 64);
    p.slot_idx.assign(p.ring(), -1);
  }
};

// ---------------------------------------------------------------------------
// Phases
// ---------------------------------------------------------------------------
static void phase_round_robin(Bench &b) {
  const unsigned counts[] = {3, 6, 1, 5, 7};
  const unsigned qs[] = {2, 9, 4, 15, 0};
  const unsigned n = 5;
  for (unsigned q = 0; q < kNQp; q++) b.config(q, 3, 4, 6 + (unsigned)b.r.range(0, 2));
  b.reset_sqs();
  b.force_req_ready = 0;  // the reads wait: all doorbells get queued first
  for (unsigned i = 0; i < n; i++) b.post(qs[i], counts[i]);
  while (!b.dbq.empty() || b.db_offered) b.cycle();
  b.force_req_ready = -1;
  std::vector<unsigned> exp;
  for (unsigned round = 0; round < 8; round++)
    for (unsigned i = 0; i < n; i++)
      if (counts[i] > round) exp.push_back(qs[i]);
  b.run_until_drained("round robin");
  std::string got_s, exp_s;
  for (unsigned q : b.read_log) got_s += std::to_string(q) + " ";
  for (unsigned q : exp) exp_s += std::to_string(q) + " ";
  BLK_CHECK(b.read_log == exp, "round robin: WQE reads by QP %s, expected %s", got_s.c_str(),
            exp_s.c_str());
  info("round robin over 5 QPs queued together: read order %s", got_s.c_str());
}

static void phase_random(Bench &b, uint64_t posting_cycles, bool with_states) {
  // QPs: most RTS, two in ERR from the start, one in INIT, one goes to ERR
  // halfway through.
  for (unsigned q = 0; q < kNQp; q++) {
    uint8_t st = 3;
    if (with_states && (q == 5 || q == 12)) st = 6;
    if (with_states && q == 7) st = 1;
    if (q % 3 == 0)
      b.config(q, st, 5, q == 0 || q == 3 ? 6 : (unsigned)b.r.range(6, 8));
    else
      b.config(q, st, (unsigned)b.r.range(2, 5), (unsigned)b.r.range(6, 8));
  }
  b.reset_sqs();
  const uint64_t start = g_cycle;
  const uint64_t post_end = start + posting_cycles;
  unsigned flip = 0;
  while (g_cycle < post_end) {
    const uint64_t t = g_cycle - start;
    const unsigned ph = (unsigned)(t / 2500) % 5;
    b.p_req = ph == 1 ? 0.3 : 0.9;
    b.p_beat = ph == 2 ? 0.3 : 0.9;
    b.p_wqe = ph == 3 ? 0.2 : 0.9;
    b.p_done = ph == 4 ? 0.05 : 0.8;
    b.compl_min = ph == 4 ? 200 : 3;
    b.compl_max = ph == 4 ? 800 : 60;
    // software posts to a few QPs each cycle, sometimes a burst that fills
    // the fetch window of one QP. QP 15 stays idle: with all NQp QPs queued
    // the active FIFO is full, which phase_full_fifo covers on its own.
    if (b.r.chance(0.3)) {
      // slow-completion phase: two QPs with 32-entry rings run into the window
      unsigned q = ph == 4 ? 3 * (unsigned)b.r.range(0, 1) : (unsigned)b.r.range(0, kNQp - 2);
      b.post(q, b.r.chance(0.05) ? (unsigned)b.r.range(8, 20) : (unsigned)b.r.range(1, 6));
    }
    // stray doorbells and context writes that must change nothing
    if (b.r.chance(0.002))
      b.dbq.push_back({(uint32_t)b.r.range(kNQp, 0xFFFFFF), (uint16_t)b.r.u32()});
    if (b.r.chance(0.002))
      b.qpwr.push_back({(uint32_t)b.r.range(0, kNQp - 1), (uint8_t)(b.r.u32() & 0xF0)});
    if (with_states && !flip && t > (post_end - start) / 2) {
      b.qp[3].cfg.state = 6;  // RTS -> ERR with WQEs in flight
      flip = 1;
    }
    b.cycle();
  }
  b.p_req = b.p_beat = b.p_wqe = b.p_done = 0.9;
  b.compl_min = 3;
  b.compl_max = 60;
  b.run_until_drained(with_states ? "random (RTS/ERR/INIT)" : "random");
  if (with_states) {
    BLK_CHECK(b.qp[7].next_out == 0 && b.qp[7].sw_pi > 0,
              "QP 7 in INIT: %u WQEs came out (%u posted)", b.qp[7].next_out, b.qp[7].sw_pi);
    for (unsigned q : {5u, 12u})
      BLK_CHECK(b.qp[q].fetched == 0 && b.qp[q].flushed > 0,
                "QP %u in ERR: %u WQEs read, %u flushed", q, b.qp[q].fetched, b.qp[q].flushed);
    BLK_CHECK(b.qp[3].fetched > 0 && b.qp[3].flushed > 0, "QP 3 RTS->ERR: %u read, %u flushed",
              b.qp[3].fetched, b.qp[3].flushed);
  }
  BLK_CHECK(b.evq.empty(), "%zu fetch events without a WQE", b.evq.size());
}

// One QP with 40 WQEs posted and completions that take 300..500 cycles: the
// fetch must stop at 8 WQEs beyond done_ci each time and resume on done_ci.
static void phase_window(Bench &b) {
  for (unsigned q = 0; q < kNQp; q++) b.config(q, 3, 5, 6);
  b.reset_sqs();
  const uint64_t before = b.n_window_full;
  b.compl_min = 300;
  b.compl_max = 500;
  b.p_done = 1.0;
  b.post(1, 32);
  b.post(13, 8);
  for (unsigned i = 0; i < 1500; i++) b.cycle();
  b.post(1, 8);
  b.compl_min = 3;
  b.compl_max = 60;
  b.run_until_drained("window");
  const uint64_t hits = b.n_window_full - before;
  BLK_CHECK(hits >= 4, "window phase: only %llu reads at the limit of 8", (unsigned long long)hits);
  info("fetch window: %llu reads at done_ci+7, none beyond", (unsigned long long)hits);
}

// A doorbell that arrives in the cycle the QP's last posted WQE is fetched.
static void phase_db_race(Bench &b) {
  for (unsigned q = 0; q < kNQp; q++) b.config(q, 3, 4, 6);
  b.reset_sqs();
  const unsigned Q = 6;
  b.completions_on = false;  // no done_ci update can wake the QP up
  b.force_req_ready = 1;
  b.post(Q, 1);
  uint64_t t_db1 = g_cycle, t_db2 = 0;
  bool sent = false;
  b.hook = [&]() {
    if (!sent && b.top.rd_req_valid_o) {
      // software posts WQE 1 and rings in the very cycle WQE 0 is read
      b.post(Q, 1, false);
      b.dbq.push_back({Q, b.qp[Q].sw_pi});
      b.db_offered = true;
      b.top.db_valid_i = 1;
      b.top.db_data_i = (uint64_t)Q | (uint64_t)b.qp[Q].sw_pi << 32;
      b.eval_ctx();
      sent = true;
      t_db2 = g_cycle;
    }
  };
  for (unsigned i = 0; i < 400; i++) b.cycle();
  b.hook = nullptr;
  const Qp &p = b.qp[Q];
  BLK_CHECK(p.next_out == 2,
            "lost doorbell: QP %u, doorbell pi=1 at cycle %llu, WQE 0 read at cycle %llu where a "
            "doorbell pi=2 was taken (db_ready_o=1) in the same cycle; 400 cycles later %u WQE(s) "
            "fetched of 2 posted, fetch window open (done_ci 0)",
            Q, (unsigned long long)t_db1, (unsigned long long)t_db2, p.next_out);
  info("doorbell in the cycle of the last fetch: %u of 2 WQEs fetched", p.next_out);
  // recover for the next phase: another doorbell
  b.completions_on = true;
  b.dbq.push_back({Q, p.sw_pi});
  for (unsigned i = 0; i < 50; i++) b.cycle();
  // completions for what came out while they were off
  for (unsigned q = 0; q < kNQp; q++)
    if (b.qp[q].next_out != b.qp[q].done_dut)
      b.compl_list.push_back({q, b.qp[q].next_out, g_cycle});
  b.force_req_ready = -1;
  b.run_until_drained("after the doorbell race");
}

// A done_ci update that completes everything, arriving in the cycle the QP is
// dropped from the head because its window was full.
static void phase_done_race(Bench &b) {
  for (unsigned q = 0; q < kNQp; q++) b.config(q, 3, 4, 6);
  b.reset_sqs();
  const unsigned A = 8, B = 10;
  b.completions_on = false;
  b.p_wqe = 1.0;
  b.force_req_ready = 0;
  b.post(A, 9);
  b.post(B, 8);
  while (!b.dbq.empty() || b.db_offered) b.cycle();
  bool injected = false;
  uint64_t t_inj = 0;
  b.hook = [&]() {
    const Qp &a = b.qp[A];
    // Hold B at the head (no read grant) until A's 8 WQEs are out.
    b.top.rd_req_ready_i = !(a.reads == kInfl && a.next_out < kInfl) && b.rdq.size() < 6;
    b.eval_ctx();
    if (!injected && a.reads == kInfl && a.next_out == kInfl && b.top.ctx_idx_o == A &&
        !b.top.rd_req_valid_o) {
      // the completer retires all 8 (one coalesced ACK) in this cycle
      b.top.done_valid_i = 1;
      b.top.done_qpn_i = A;
      b.top.done_ci_i = kInfl;
      b.done_offered = true;
      b.done_q = A;
      b.done_v = kInfl;
      b.qp[A].completed = kInfl;
      b.eval_ctx();
      injected = true;
      t_inj = g_cycle;
    }
  };
  for (unsigned i = 0; i < 600; i++) b.cycle();
  b.hook = nullptr;
  const Qp &a = b.qp[A];
  BLK_CHECK(injected, "done race: the injection point was never reached");
  BLK_CHECK(!injected || a.next_out == 9,
            "lost done_ci wake-up: QP %u (9 WQEs posted, window of %u full, done_ci 0) was at the "
            "head of the active FIFO at cycle %llu when done_ci=%u for it was taken "
            "(done_ready_o=1); 600 cycles later %u of 9 WQEs fetched, QP no longer scheduled",
            A, kInfl, (unsigned long long)t_inj, kInfl, a.next_out);
  info("done_ci update in the cycle a full-window QP leaves the head: %u of 9 WQEs fetched",
       a.next_out);
  b.completions_on = true;
  b.force_req_ready = -1;
  b.dbq.push_back({A, a.sw_pi});  // recover
  for (unsigned q = 0; q < kNQp; q++)
    if (b.qp[q].next_out != b.qp[q].done_dut)
      b.compl_list.push_back({q, b.qp[q].next_out, g_cycle});
  b.run_until_drained("after the done race");
}

// Producer indices software should never ring (finding sq-pi-wrap): one more
// than a full ring (32768) past the done index, or behind the current one,
// is ignored; a done index past the producer index (a stale report of a QP
// reset since) is dropped. Each step checks what the DUT then reads.
static void phase_bad_pi(Bench &b) {
  for (unsigned q = 0; q < kNQp; q++) b.config(q, 3, 3, 6);
  b.reset_sqs();
  const unsigned Q = 9;
  Qp &p = b.qp[Q];
  auto run = [&](unsigned n) {
    for (unsigned i = 0; i < n; i++) b.cycle();
  };
  auto ring = [&](uint16_t pi) {
    b.dbq.push_back({Q, pi});
    while (!b.dbq.empty() || b.db_offered) b.cycle();
  };
  auto complete_all = [&]() {
    b.compl_list.push_back({Q, p.next_out, g_cycle});
    b.completions_on = true;
    while (p.done_dut != p.next_out) b.cycle();
    b.completions_on = false;
  };
  auto reset_q = [&]() {
    run(300);  // nothing in flight
    b.qpwr.push_back({Q, 1});
    while (!b.qpwr.empty()) b.cycle();
    p.fetched = p.flushed = 0;
    std::fill(p.slot_idx.begin(), p.slot_idx.end(), -1);
  };
  const uint64_t ign0 = b.n_db_ignored;
  b.completions_on = false;

  // (a) WQEs 0-7 fetched, 8 rung: behind and too far ahead are ignored.
  b.post(Q, 8);
  run(300);
  BLK_CHECK(p.next_out == 8, "bad pi (a): %u of 8 WQEs fetched", p.next_out);
  for (uint16_t pi : {(uint16_t)0x8001, (uint16_t)4, (uint16_t)7, (uint16_t)0xffff}) ring(pi);
  complete_all();
  const uint64_t reads_a = b.n_reads;
  run(300);
  BLK_CHECK(b.n_reads == reads_a && p.db_pi == 8,
            "bad pi (a): %llu WQE reads after producer indices 0x8001, 4, 7, 0xffff (all "
            "ignored: done 8, producer index 8)",
            (unsigned long long)(b.n_reads - reads_a));

  // (b) The fuzzer's run (23157, 33194, 4 with WQEs 8-15 fetched, done 8):
  // 23157 is taken, 33194 is past a full ring and 4 then wraps behind it:
  // both ignored, so 17 is behind too and the QP keeps walking to 23157
  // (with 33194 and 4 taken, 17 was too: one more WQE after done 16, not 8).
  b.post(Q, 8);
  run(300);
  BLK_CHECK(p.next_out == 16, "bad pi (b): %u of 16 WQEs fetched", p.next_out);
  for (uint16_t pi : {(uint16_t)23157, (uint16_t)33194, (uint16_t)4, (uint16_t)17}) ring(pi);
  BLK_CHECK(p.db_pi == 23157, "bad pi (b): model producer index %u", p.db_pi);
  complete_all();
  b.post(Q, 8, false);  // software fills the ring on the way to 23157
  run(300);
  BLK_CHECK(p.next_out == 24,
            "bad pi (b): after producer indices 23157, 33194, 4, 17 and done 16, %u WQEs "
            "fetched, expected 24 (a window of 8 towards 23157)",
            p.next_out);
  reset_q();

  // (c) The bound itself: done 8, 8 + 0x8001 ignored, 8 + 0x8000 (a full
  // ring of 32768 WQEs, RNIC_MAX_QP_WR) taken.
  b.post(Q, 8);
  run(300);
  complete_all();
  b.post(Q, 8, false);
  ring((uint16_t)(8 + 0x8001));
  const uint64_t reads_c = b.n_reads;
  run(300);
  BLK_CHECK(b.n_reads == reads_c, "bad pi (c): WQE read after producer index done + 0x8001");
  ring((uint16_t)(8 + 0x8000));
  run(300);
  BLK_CHECK(p.next_out == 16,
            "bad pi (c): producer index done + 0x8000 (a full ring): %u WQEs fetched, "
            "expected 16",
            p.next_out);
  reset_q();

  // (d) A stale done index (5) after the reset, past the producer index 0:
  // dropped, so the next doorbell is taken.
  const uint64_t drop0 = b.n_done_dropped;
  b.done_offered = true;
  b.done_q = Q;
  b.done_v = 5;
  run(50);
  BLK_CHECK(b.n_done_dropped == drop0 + 1 && p.done_dut == 0,
            "bad pi (d): stale done index 5 of a reset QP taken (done %u)", p.done_dut);
  b.post(Q, 1);
  run(300);
  BLK_CHECK(p.next_out == 1, "bad pi (d): after a stale done index, WQE 0 not fetched");
  b.completions_on = true;
  b.compl_list.push_back({Q, p.next_out, g_cycle});
  b.run_until_drained("bad pi");
  info("bad producer indices: %llu doorbells ignored, stale done index dropped",
       (unsigned long long)(b.n_db_ignored - ign0));
}

// Every one of the NQp QPs queued at once: the active FIFO (Depth NQp) is
// full when the head fetches and goes back to the tail.
static void phase_full_fifo(Bench &b) {
  for (unsigned q = 0; q < kNQp; q++) b.config(q, 3, 4, 6);
  b.reset_sqs();
  b.force_req_ready = 0;
  for (unsigned q = 0; q < kNQp; q++) b.post(q, 3);
  while (!b.dbq.empty() || b.db_offered) b.cycle();
  const uint64_t t_go = g_cycle;
  b.force_req_ready = -1;
  for (unsigned i = 0; i < 1500; i++) b.cycle();
  std::string s;
  unsigned got = 0;
  for (unsigned q = 0; q < kNQp; q++) {
    got += b.qp[q].next_out;
    if (b.qp[q].next_out != 3)
      s += " QP" + std::to_string(q) + ":" + std::to_string(b.qp[q].next_out) + "/3";
  }
  BLK_CHECK(got == 3 * kNQp,
            "all %u QPs queued (doorbell pi=3 for QP 0..%u while rd_req_ready_i=0, reads "
            "allowed from cycle %llu): after 1500 cycles %u of %u WQEs fetched, stuck:%s",
            kNQp, kNQp - 1, (unsigned long long)t_go, got, 3 * kNQp, s.c_str());
  info("all %u QPs queued at once: %u of %u WQEs fetched", kNQp, got, 3 * kNQp);
  // a new doorbell does not help a QP whose queued flag is stuck; leave the
  // rest to the reset of the next phase
  b.dbq.clear();
  b.db_offered = false;
  for (unsigned i = 0; i < 300; i++) b.cycle();
}

// Rewind: with WQEs fetched but not completed, the completer moves a QP's
// fetch index back to its done index (go-back-N retransmission). The QP must
// be scheduled again even though it had nothing left to fetch, and the same
// WQEs must come out again, in order, with the same bytes. One QP is rewound
// while idle, another in the cycle it is at the head of the active FIFO.
static void phase_rewind(Bench &b) {
  for (unsigned q = 0; q < kNQp; q++) b.config(q, 3, 4, 6);
  b.reset_sqs();
  const unsigned A = 3, B = 11;
  b.completions_on = false;  // nothing completes: the window stays open below 8
  b.post(A, 6);
  b.post(B, 7);
  for (unsigned i = 0; i < 600; i++) b.cycle();
  BLK_CHECK(b.qp[A].next_out == 6 && b.qp[B].next_out == 7,
            "rewind: before the rewind %u/6 and %u/7 WQEs came out", b.qp[A].next_out,
            b.qp[B].next_out);
  const uint64_t reads_before = b.n_reads;
  // Rewind A to WQE 2 and B to WQE 0, one after the other, held until taken.
  struct Rw {
    unsigned q;
    uint16_t idx;
  };
  std::deque<Rw> rw = {{A, 2}, {B, 0}};
  bool offered = false;
  unsigned taken = 0;
  b.hook = [&]() {
    if (!offered && !rw.empty()) offered = true;
    b.top.rewind_valid_i = offered;
    if (offered) {
      b.top.rewind_qpn_i = rw.front().q;
      b.top.rewind_idx_i = rw.front().idx;
    }
    b.eval_ctx();
  };
  for (unsigned i = 0; i < 800; i++) {
    b.cycle();
    if (b.last_rewind_taken) {  // the handshake sampled before this cycle's edge
      Qp &p = b.qp[rw.front().q];
      BLK_CHECK(p.rd.empty(), "rewind: QP %u still had reads in flight", rw.front().q);
      p.reads = p.next_out = rw.front().idx;
      rw.pop_front();
      offered = false;
      taken++;
    }
  }
  b.hook = nullptr;
  b.top.rewind_valid_i = 0;
  BLK_CHECK(taken == 2, "rewind: %u of 2 rewinds taken (rewind_ready_o)", taken);
  BLK_CHECK(b.qp[A].next_out == 6 && b.qp[B].next_out == 7,
            "rewind: after rewinding A to 2 and B to 0, %u/6 and %u/7 WQEs came out again",
            b.qp[A].next_out, b.qp[B].next_out);
  BLK_CHECK(b.n_reads - reads_before == 4 + 7, "rewind: %llu WQE reads after the rewinds, expected 11",
            (unsigned long long)(b.n_reads - reads_before));
  info("rewind: QP %u re-fetched WQEs 2..5, QP %u WQEs 0..6, in order, same bytes", A, B);
  b.completions_on = true;
  for (unsigned q = 0; q < kNQp; q++)
    if (b.qp[q].next_out != b.qp[q].done_dut)
      b.compl_list.push_back({q, b.qp[q].next_out, g_cycle});
  b.run_until_drained("after the rewinds");
}

// SQD under random traffic (all QPs RTS at first; QP 15 idle as in
// phase_random): now and then a context write moves a QP RTS -> SQD (60 %
// with the notify flag), SQD -> SQD (notify again, once drained) or
// SQD -> RTS, one write at a time, kWrGap cycles apart; the other flag bits
// are random (no SQ reset). A QP is not posted to while a write to it is
// queued, nor after SQD -> RTS until the WQEs it held back came out (nor
// moved to SQD again before), and goes back to RTS only with no doorbell of
// it waiting: the context write alone must let them go. Rewinds (to the
// completer's done index, with no read of the QP in flight) make a QP in SQD
// fetch again below its high-water mark.
static void phase_sqd(Bench &b, uint64_t cycles) {
  for (unsigned q = 0; q < kNQp; q++)
    b.config(q, kStRts, (unsigned)b.r.range(2, 5), (unsigned)b.r.range(6, 8));
  b.reset_sqs();
  Rng &rs = b.rs;
  b.hook = [&]() {
    b.top.rewind_valid_i = 0;
    if (!rs.chance(0.01)) return;
    const unsigned q = (unsigned)rs.range(0, kNQp - 2);
    Qp &p = b.qp[q];
    const bool reading = b.top.rd_req_valid_o && b.owner_of(b.top.rd_req_addr_o) == (int)q;
    if (!p.rd.empty() || reading || p.resume_wait || p.next_out == p.completed || b.wr_waiting(q))
      return;
    b.top.rewind_valid_i = 1;
    b.top.rewind_qpn_i = q;
    b.top.rewind_idx_i = p.completed;
    b.top.rewind_hold_i = 0;
    b.top.rewind_resume_i = 0;
    b.eval_ctx();
    if (!b.top.rewind_ready_o) {  // offered only when taken at once
      b.top.rewind_valid_i = 0;
      b.eval_ctx();
      return;
    }
    // taken at this edge: the completions not given yet are lost (no ACK)
    b.compl_list.erase(std::remove_if(b.compl_list.begin(), b.compl_list.end(),
                                      [q](const Compl &c) { return c.q == q; }),
                       b.compl_list.end());
    p.reads = p.next_out = p.completed;
    b.n_rewind++;
    b.n_rewind_sqd += p.cfg.state == kStSqd;
  };
  auto other_flags = [&]() { return (uint8_t)(rs.u32() & ~(kFlResetSq | kFlSqdNotify)); };
  const uint64_t start = g_cycle;
  while (g_cycle < start + cycles) {
    const unsigned ph = (unsigned)((g_cycle - start) / 2000) % 4;
    b.p_req = ph == 1 ? 0.3 : 0.9;
    b.p_wqe = ph == 2 ? 0.2 : 0.9;
    b.p_done = ph == 3 ? 0.1 : 0.8;
    b.compl_min = ph == 3 ? 100 : 3;
    b.compl_max = ph == 3 ? 400 : 60;
    b.p_drained = ph == 0 ? 0.9 : 0.2;
    if (b.qpwr.empty() && g_cycle - b.last_wr >= kWrGap && rs.chance(0.01)) {
      const unsigned q = (unsigned)rs.range(0, kNQp - 2);
      const Qp &p = b.qp[q];
      if (p.cfg.state == kStRts) {
        const uint8_t fl = other_flags() | (rs.chance(0.6) ? kFlSqdNotify : 0);
        if (!p.resume_wait) b.qpwr.push_back({q, fl, kStSqd});
      } else if (!p.armed && p.done_dut == p.hi && rs.chance(0.2)) {
        const uint8_t fl = other_flags() | (rs.chance(0.7) ? kFlSqdNotify : 0);
        b.qpwr.push_back({q, fl, kStSqd});
      } else if (!b.db_waiting(q)) {
        b.qpwr.push_back({q, other_flags(), kStRts});
      }
    }
    if (b.r.chance(0.3)) {
      const unsigned q = (unsigned)b.r.range(0, kNQp - 2);
      if (!b.qp[q].resume_wait && !b.wr_waiting(q))
        b.post(q, b.r.chance(0.05) ? (unsigned)b.r.range(8, 20) : (unsigned)b.r.range(1, 6));
    }
    if (b.r.chance(0.002))
      b.dbq.push_back({(uint32_t)b.r.range(kNQp, 0xFFFFFF), (uint16_t)b.r.u32()});
    b.cycle();
  }
  b.hook = nullptr;
  b.top.rewind_valid_i = 0;
  b.p_req = b.p_wqe = b.p_done = 0.9;
  b.compl_min = 3;
  b.compl_max = 60;
  b.p_drained = 0.5;
  // everything back to RTS
  for (unsigned q = 0; q < kNQp; q++) {
    while (b.qp[q].cfg.state == kStSqd) {
      if (b.qpwr.empty() && g_cycle - b.last_wr >= kWrGap && !b.db_waiting(q))
        b.qpwr.push_back({q, other_flags(), kStRts});
      b.cycle();
    }
  }
  b.run_until_drained("SQD");
  for (unsigned i = 0; i < 2 * kNQp; i++) b.cycle();  // the sweep passes every QP
  for (unsigned q = 0; q < kNQp; q++)
    BLK_CHECK(!b.qp[q].resume_wait, "QP %u: WQEs held in SQD still not fetched", q);
  BLK_CHECK(b.n_sqd_notify + b.n_sqd_rearm == b.n_drained_sqd + b.n_disarmed,
            "SQD: %llu arming writes (%llu entries with notify, %llu re-armed), %llu events, %llu "
            "disarmed by a later write",
            (unsigned long long)(b.n_sqd_notify + b.n_sqd_rearm),
            (unsigned long long)b.n_sqd_notify, (unsigned long long)b.n_sqd_rearm,
            (unsigned long long)b.n_drained_sqd, (unsigned long long)b.n_disarmed);
  BLK_CHECK(b.evq.empty(), "%zu fetch events without a WQE", b.evq.size());
}

int main(int argc, char **argv) {
  // test name: blk_rnic_<block>, with _w<DATAW> unless the datapath is 256 bits
  static const std::string name =
      std::string("blk_rnic_sq_fetch") + (DATAW == 256 ? "" : "_w" + std::to_string(DATAW));
  g_bench = name.c_str();
  Bench b;
  b.vctx.commandArgs(argc, argv);
  b.reset();
  phase_round_robin(b);
  phase_random(b, 100000, false);
  info(
      "random, all RTS: %llu reads, %llu WQEs out, %llu done updates (%llu coalesced "
      "completions), %llu reads at the window limit",
      (unsigned long long)b.n_reads, (unsigned long long)b.n_out, (unsigned long long)b.n_done,
      (unsigned long long)b.n_coalesced, (unsigned long long)b.n_window_full);
  phase_random(b, 100000, true);
  info("random with ERR/INIT QPs: %llu reads (%llu with err), %llu WQEs out (%llu flush items)",
       (unsigned long long)b.n_reads, (unsigned long long)b.n_err, (unsigned long long)b.n_out,
       (unsigned long long)b.n_flush);
  BLK_CHECK(b.n_coalesced > 50 && b.n_flush > 50 && b.n_err > 10,
            "weak coverage: %llu coalesced completions, %llu flush items, %llu read errors",
            (unsigned long long)b.n_coalesced, (unsigned long long)b.n_flush,
            (unsigned long long)b.n_err);
  phase_window(b);
  phase_db_race(b);
  phase_done_race(b);
  phase_full_fifo(b);
  phase_bad_pi(b);
  phase_rewind(b);
  phase_sqd(b, 100000);
  info(
      "SQD: %llu entries (%llu with notify, %llu re-armed in SQD), %llu SQ_DRAINED events (%llu "
      "of SQD, %llu disarmed before, %llu waited for drained_ready_i), %llu WQEs held back "
      "then fetched after %llu of %llu resumes (%llu with no doorbell or completion pending), "
      "%llu re-fetches in SQD (%llu of %llu rewinds), %llu queries (%llu draining)",
      (unsigned long long)b.n_sqd, (unsigned long long)b.n_sqd_notify,
      (unsigned long long)b.n_sqd_rearm, (unsigned long long)b.n_drained,
      (unsigned long long)b.n_drained_sqd, (unsigned long long)b.n_disarmed,
      (unsigned long long)b.n_drained_wait, (unsigned long long)b.n_held,
      (unsigned long long)b.n_resume_held, (unsigned long long)b.n_resume,
      (unsigned long long)b.n_kick_only, (unsigned long long)b.n_refetch_sqd,
      (unsigned long long)b.n_rewind_sqd, (unsigned long long)b.n_rewind,
      (unsigned long long)b.n_query, (unsigned long long)b.n_query_busy);
  BLK_CHECK(b.n_sqd > 0 && b.n_sqd_notify > 0 && b.n_drained_sqd > 0 && b.n_held > 0 &&
                b.n_kick_only > 0 && b.n_refetch_sqd > 0 && b.n_drained_wait > 0,
            "weak SQD coverage: %llu entries, %llu with notify, %llu SQ_DRAINED events of SQD, "
            "%llu WQEs held back then fetched (%llu resumes with nothing else pending), %llu "
            "re-fetches in SQD, %llu events held by back-pressure",
            (unsigned long long)b.n_sqd, (unsigned long long)b.n_sqd_notify,
            (unsigned long long)b.n_drained_sqd, (unsigned long long)b.n_held,
            (unsigned long long)b.n_kick_only, (unsigned long long)b.n_refetch_sqd,
            (unsigned long long)b.n_drained_wait);
  b.top.final();
  return finish(b.vctx);
}
