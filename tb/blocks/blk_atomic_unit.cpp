// blk_atomic_unit: rnic_atomic_unit alone (NQp 8, Depth 8; DATAW 256 and 64).
//
// The bench plays the RX engine and host memory. The engine side makes, per
// cycle, at most one atomic (FETCH_ADD or CMP_SWAP, 6 of the 8 QPs, PSNs in
// order per QP, MSN counted per QP) or duplicate (a PSN of one of the QP's
// last six atomics, so that some are in the four results kept and some are
// too old), and at most one engine job (an ACK of a random QP, presented
// until taken, as the engine's job register is), with the engine's rule: a
// job of a QP is only made while busy_o says the unit holds nothing of it.
// Addresses come from five 8-byte words, two of them shared by every QP, one
// refusing every read (a page the IOMMU does not map); CMP_SWAP compares
// with the word's current value half of the time. Phases of 3000 cycles:
// balanced, one word only (back to back, the forwarding path), slow memory
// (latency 40-60), the refused word often, many QP resets (one in 500
// cycles otherwise: the results kept are dropped; only of a QP the unit
// holds nothing of and whose failure was taken), and a drain. A QP whose
// failure the engine took gets no more atomics until it is reset; the
// engine takes a failure report only while it shows no atomic.
//
// Host memory: reads accepted under random ready, answered in order after
// a random latency with the word's value at acceptance (or err and zero data
// for the refused word); writes accepted under random ready and applied at
// once.
//
// Reference model: the atomics executed one by one in the order the unit
// took them (a QP's atomics after one of its refused reads are dropped; a
// duplicate is answered from the QP's last four results, or not at all).
// Checks: the jobs leave in each QP's order (the engine's and the unit's
// interleaved as they were made) and each is exactly the model's (kind,
// PSN, syndrome, MSN, original value, dup); the writes to each word are the
// model's, in order, and memory ends as the model's; the failures are
// reported once each, in order, with their QP; busy_o is low for a QP only
// when every atomic of it has answered or been dropped; fewer reads than
// atomics (forwarding) and every word right at the end; quiet_o at the end.
#include "Vrnic_atomic_unit.h"
#include "blk_common.h"

using namespace blk;

#ifndef DATAW
#define DATAW 256
#endif
constexpr unsigned kNQp = 8, kUsedQp = 6, kWords = 5, kBadWord = 4;
constexpr unsigned kAtOpW = 266, kJobW = 243;
constexpr uint8_t kAck = 0x1f, kNakRemAcc = 0x62;
constexpr uint64_t kCycles = 18000;

namespace {

uint64_t word_addr(unsigned w) { return 0x10000ull + 0x1000ull * w + 8 * (w & 1); }

struct Job {
  unsigned kind = 0;  // 0 ACK/NAK, 2 atomic
  uint32_t qpn = 0, psn = 0, msn = 0;
  uint8_t syn = 0;
  uint64_t orig = 0;
  bool dup = false;
  bool engine = false;  // made by the bench's engine, not the unit
};

struct Op {
  uint32_t qpn, psn, msn;
  unsigned word;
  uint64_t swap, cmp;
  bool cas, dup;
};

struct Qp {
  uint32_t psn = 100, msn = 0;
  std::deque<std::pair<uint32_t, uint64_t>> kept;  // the model's last four results
  std::vector<uint32_t> done_psn;                  // PSNs of atomics executed
  bool failed = false;      // model: a refused read; later atomics dropped
  bool fail_taken = false;  // the unit's report of it taken
  std::deque<Job> expect;   // jobs still to leave, in order
};

std::string job_str(const Job &j) {
  char b[160];
  std::snprintf(b, sizeof b, "{kind %u qpn %u psn %u syn 0x%02x msn %u orig 0x%llx dup %d}",
                j.kind, j.qpn, j.psn, j.syn, j.msn, (unsigned long long)j.orig, j.dup);
  return b;
}

}  // namespace

int main(int argc, char **argv) {
  static const std::string name =
      std::string("blk_rnic_atomic_unit") + (DATAW == 256 ? "" : "_w" + std::to_string(DATAW));
  g_bench = name.c_str();
  VerilatedContext vctx;
  vctx.commandArgs(argc, argv);
  Vrnic_atomic_unit top{&vctx};
  Rng r(0xa70000u + DATAW);

  Qp qp[kNQp];
  uint64_t mem[kWords], ref[kWords];
  for (unsigned w = 0; w < kWords; w++) mem[w] = ref[w] = r.u64() & 0xffff;
  std::deque<std::pair<unsigned, uint64_t>> exp_wr[kWords];  // model's writes per word
  std::deque<uint32_t> exp_err;
  // host memory: reads accepted, answered in order
  struct Rd {
    uint64_t at;
    uint64_t data;
    bool err;
  };
  std::deque<Rd> rds;
  // engine side
  bool op_show = false;
  Op cur{};
  bool ej_show = false;
  Job ej;
  unsigned ops = 0, dups = 0, reads = 0, writes = 0, jobs = 0, ejobs = 0, fails = 0, clrs = 0;
  unsigned dup_hits = 0, dropped = 0;

  top.op_valid_i = 0;
  top.rd_req_ready_i = 0;
  top.rd_rsp_valid_i = 0;
  top.wr_ready_i = 0;
  top.eng_job_valid_i = 0;
  top.job_ready_i = 0;
  top.err_ready_i = 0;
  top.qp_clr_i = 0;
  reset_dut(top);

  // The model executes an atomic when the unit takes it: its expected job.
  auto model_take = [&](const Op &o) {
    Qp &q = qp[o.qpn];
    if (q.failed) {
      dropped++;
      return;
    }
    Job j;
    j.qpn = o.qpn;
    j.psn = o.psn;
    if (o.dup) {
      for (auto &k : q.kept) {
        if (k.first == o.psn) {
          j.kind = 2;
          j.syn = kAck;
          j.msn = o.msn;
          j.orig = k.second;
          j.dup = true;
          q.expect.push_back(j);
          dup_hits++;
        }
      }
      return;
    }
    if (o.word == kBadWord) {
      j.kind = 0;
      j.syn = kNakRemAcc;
      j.msn = o.msn;
      q.expect.push_back(j);
      q.failed = true;
      exp_err.push_back(o.qpn);
      return;
    }
    const uint64_t v = ref[o.word];
    const bool wr = !o.cas || v == o.cmp;
    const uint64_t nv = o.cas ? o.swap : v + o.swap;
    if (wr) {
      ref[o.word] = nv;
      exp_wr[o.word].push_back({o.qpn, nv});
    }
    j.kind = 2;
    j.syn = kAck;
    j.msn = o.msn + 1;
    j.orig = v;
    q.expect.push_back(j);
    q.kept.push_back({o.psn, v});
    if (q.kept.size() > 4) q.kept.pop_front();
    q.done_psn.push_back(o.psn);
  };

  uint64_t phase_len = 3000;
  for (g_cycle = 0; g_cycle < kCycles + 4000; g_cycle++) {
    const unsigned phase = (unsigned)(g_cycle / phase_len);
    const bool drain = g_cycle >= kCycles;
    const bool one_word = phase == 1, slow = phase == 2, bad_often = phase == 3,
               resets = phase == 4;

    // ---- inputs for this cycle
    // engine: a new atomic when the last was taken
    if (!op_show && !drain && r.chance(one_word ? 0.9 : 0.5)) {
      unsigned q = (unsigned)r.range(0, kUsedQp - 1);
      Qp &Q = qp[q];
      if (!(Q.failed && Q.fail_taken)) {
        cur = Op{};
        cur.qpn = q;
        cur.dup = !Q.done_psn.empty() && r.chance(0.12);
        if (cur.dup) {
          size_t n = Q.done_psn.size();
          cur.psn = Q.done_psn[n - 1 - r.range(0, std::min<size_t>(n, 6) - 1)];
          cur.msn = Q.msn;
        } else {
          cur.psn = Q.psn++;
          cur.msn = Q.msn++;
        }
        cur.word = one_word ? 0
                   : r.chance(bad_often ? 0.1 : 0.01)
                       ? kBadWord
                       : (unsigned)r.range(0, kWords - 2);
        cur.cas = r.chance(0.5);
        cur.swap = r.u64() & (cur.cas ? ~0ull : 0xffffull);
        cur.cmp = r.chance(0.5) ? ref[cur.word] : r.u64();
        op_show = true;
      }
    }
    Packer p(kAtOpW);
    p.f(24, cur.qpn).f(24, cur.psn).f(24, cur.msn).f(64, op_show ? word_addr(cur.word) : r.u64());
    p.f(64, cur.swap).f(64, cur.cmp).f(1, cur.cas).f(1, cur.dup);
    vset(top.op_i, p.done());
    top.op_valid_i = op_show;

    // engine job: only of a QP the unit holds nothing of (asked through
    // busy_qpn_i the cycle before it is made)
    unsigned ask = (unsigned)r.range(0, kNQp - 1);
    top.busy_qpn_i = ask;
    top.eval();
    const bool busy = top.busy_o;
    if (!busy) {
      // every atomic of the QP has answered or been dropped
      BLK_CHECK(qp[ask].expect.empty() || qp[ask].expect.front().engine,
                "busy_o low for QP %u with %zu answers still to come", ask, qp[ask].expect.size());
    }
    if (!ej_show && !busy && !drain && r.chance(0.3)) {
      ej = Job{};
      ej.engine = true;
      ej.qpn = ask;
      ej.psn = r.u32() & 0xffffff;
      ej.msn = r.u32() & 0xffffff;
      ej.syn = kAck;
      qp[ask].expect.push_back(ej);
      ej_show = true;
    }
    Packer pj(kJobW);
    pj.f(2, ej.kind).f(24, ej.qpn).f(24, ej.psn).f(8, ej.syn).f(24, ej.msn);
    pj.f(64, 0).f(32, 0).f(64, ej.orig).f(1, ej.dup);
    vset(top.eng_job_i, pj.done());
    top.eng_job_valid_i = ej_show;

    // memory
    top.rd_req_ready_i = r.chance(0.7);
    const bool rsp = !rds.empty() && rds.front().at <= g_cycle && r.chance(0.8);
    top.rd_rsp_valid_i = rsp;
    top.rd_rsp_last_i = 1;
    {
      uint8_t bytes[DATAW / 8];
      for (auto &b : bytes) b = (uint8_t)r.u32();
      if (rsp) {
        for (int i = 0; i < 8; i++) bytes[i] = (uint8_t)(rds.front().data >> (8 * i));
      }
      vset_bytes(top.rd_rsp_data_i, bytes);
    }
    top.rd_rsp_err_i = rsp && rds.front().err;
    top.wr_ready_i = r.chance(0.7);
    top.job_ready_i = r.chance(slow ? 0.5 : 0.8);
    // the engine takes a failure report only between atomics
    top.err_ready_i = !op_show && r.chance(0.3);
    // QP reset: of a QP the unit holds nothing of, whose failure (if any)
    // was taken
    top.qp_clr_i = 0;
    unsigned clr = (unsigned)r.range(0, kNQp - 1);
    top.busy_qpn_i = clr;
    top.eval();
    if (r.chance(resets ? 0.02 : 0.002) && !top.busy_o && qp[clr].expect.empty() &&
        (!qp[clr].failed || qp[clr].fail_taken) && !(op_show && cur.qpn == clr)) {
      top.qp_clr_i = 1;
      top.qp_clr_idx_i = clr;
    } else {
      top.qp_clr_idx_i = r.u32() & 0xffffff;
    }
    top.busy_qpn_i = ask;
    top.eval();

    // ---- the edge: sample the handshakes
    const bool op_hs = top.op_valid_i && top.op_ready_o;
    const bool rq_hs = top.rd_req_valid_o && top.rd_req_ready_i;
    const uint64_t rq_addr = top.rd_req_addr_o;
    const unsigned rq_len = top.rd_req_len_o;
    const bool wr_hs = top.wr_valid_o && top.wr_ready_i;
    const uint64_t wr_addr = top.wr_addr_o;
    uint8_t wb[DATAW / 8];
    vget_bytes(top.wr_data_o, wb);
    const bool job_hs = top.job_valid_o && top.job_ready_i;
    const Bits jb = vget(top.job_o, kJobW);
    const bool ej_hs = top.eng_job_valid_i && top.eng_job_ready_o;
    const bool err_hs = top.err_valid_o && top.err_ready_i;
    const unsigned err_qpn = top.err_qpn_o;

    top.clk_i = 1;
    top.eval();
    top.clk_i = 0;
    top.eval();

    if (top.qp_clr_i) {
      Qp &Q = qp[top.qp_clr_idx_i];
      Q.kept.clear();
      Q.done_psn.clear();
      Q.failed = Q.fail_taken = false;
      clrs++;
    }
    if (op_hs) {
      ops++;
      if (cur.dup) dups++;
      model_take(cur);
      op_show = false;
    }
    if (rq_hs) {
      reads++;
      BLK_CHECK(rq_len == 8, "read of %u bytes", rq_len);
      int w = -1;
      for (unsigned i = 0; i < kWords; i++)
        if (word_addr(i) == rq_addr) w = (int)i;
      BLK_CHECK(w >= 0, "read of 0x%llx, no word", (unsigned long long)rq_addr);
      const bool bad = w == (int)kBadWord || w < 0;
      rds.push_back({g_cycle + (slow ? r.range(40, 60) : r.range(1, 12)), bad ? 0 : mem[w], bad});
    }
    if (rsp) rds.pop_front();
    if (wr_hs) {
      writes++;
      BLK_CHECK(top.wr_len_o == 8 && top.wr_last_o, "write of %u bytes", (unsigned)top.wr_len_o);
      int w = -1;
      for (unsigned i = 0; i < kWords; i++)
        if (word_addr(i) == wr_addr) w = (int)i;
      uint64_t v = 0;
      for (int i = 7; i >= 0; i--) v = (v << 8) | wb[i];
      if (w < 0 || w == (int)kBadWord) {
        fail("write to 0x%llx", (unsigned long long)wr_addr);
      } else {
        mem[w] = v;
        if (exp_wr[w].empty()) {
          fail("write 0x%llx to word %d, none expected", (unsigned long long)v, w);
        } else {
          BLK_CHECK(exp_wr[w].front().second == v, "word %d written 0x%llx, expected 0x%llx", w,
                    (unsigned long long)v, (unsigned long long)exp_wr[w].front().second);
          exp_wr[w].pop_front();
        }
      }
    }
    if (job_hs) {
      Unpacker u(jb);
      Job g;
      g.kind = (unsigned)u.f(2);
      g.qpn = (uint32_t)u.f(24);
      g.psn = (uint32_t)u.f(24);
      g.syn = (uint8_t)u.f(8);
      g.msn = (uint32_t)u.f(24);
      u.f(64);
      u.f(32);
      g.orig = u.f(64);
      g.dup = u.f(1);
      jobs++;
      if (g.qpn >= kNQp || qp[g.qpn].expect.empty()) {
        fail("job %s, none expected", job_str(g).c_str());
      } else {
        Job e = qp[g.qpn].expect.front();
        qp[g.qpn].expect.pop_front();
        BLK_CHECK(e.engine == ej_hs, "QP %u: %s job where the %s's was due", g.qpn,
                  ej_hs ? "engine" : "unit", e.engine ? "engine" : "unit");
        BLK_CHECK(g.kind == e.kind && g.psn == e.psn && g.syn == e.syn && g.msn == e.msn &&
                      (g.kind != 2 || g.orig == e.orig) && g.dup == e.dup,
                  "QP %u: job %s, expected %s", g.qpn, job_str(g).c_str(), job_str(e).c_str());
      }
      if (ej_hs) {
        ejobs++;
        ej_show = false;
      }
    }
    if (err_hs) {
      fails++;
      if (exp_err.empty()) {
        fail("failure of QP %u reported, none expected", err_qpn);
      } else {
        BLK_CHECK(exp_err.front() == err_qpn, "failure of QP %u reported, expected QP %u", err_qpn,
                  exp_err.front());
        qp[exp_err.front()].fail_taken = true;
        exp_err.pop_front();
      }
    }
  }

  for (unsigned q = 0; q < kNQp; q++)
    BLK_CHECK(qp[q].expect.empty(), "QP %u: %zu jobs never left", q, qp[q].expect.size());
  for (unsigned w = 0; w < kWords; w++) {
    BLK_CHECK(mem[w] == ref[w], "word %u ends 0x%llx, expected 0x%llx", w,
              (unsigned long long)mem[w], (unsigned long long)ref[w]);
    BLK_CHECK(exp_wr[w].empty(), "word %u: %zu writes missing", w, exp_wr[w].size());
  }
  BLK_CHECK(exp_err.empty(), "%zu failures not reported", exp_err.size());
  BLK_CHECK(top.quiet_o, "not quiet at the end");
  BLK_CHECK(reads < ops - dups, "no forwarding: %u reads for %u atomics", reads, ops - dups);
  BLK_CHECK(dup_hits > 50 && fails > 10 && clrs > 5 && dropped > 0 && ejobs > 1000,
            "too little variety: %u duplicates answered, %u failures, %u resets, %u dropped, "
            "%u engine jobs", dup_hits, fails, clrs, dropped, ejobs);
  info("%u atomics (%u duplicates, %u answered), %u reads, %u writes, %u jobs (%u engine), "
       "%u failures, %u dropped, %u resets",
       ops, dups, dup_hits, reads, writes, jobs, ejobs, fails, dropped, clrs);
  top.final();
  return finish(vctx);
}
