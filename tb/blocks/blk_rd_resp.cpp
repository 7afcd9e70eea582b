// blk_rnic_rd_resp: the responder's transmit side against a reference model,
// 4 QPs with path MTUs of their own, JobDepth 8 (the RTL's default).
//
// Jobs: plain ACKs (which the job queue merges into the newest waiting job
// of their QP when that is a plain ACK and not the head: modelled), NAKs,
// READs of 0 to 3 MTUs and more, atomic ACKs, some of them duplicates, from a
// producer that holds a job until taken; random back-pressure on the frame
// side. Checked per frame, against each QP's expected frames (every job
// expanded in arrival order): opcode, PSN, syndrome and MSN, payload length,
// chunk address and length, the original value of an atomic ACK. Across
// QPs: one READ response stream at a time (a FIRST or ONLY only when none is
// under way); the stream and a waiting job of another QP take turns (a job
// at the head that could go is never passed over by two stream frames in a
// row); done_o exactly with the last frame of a READ or atomic that is not
// a duplicate, with its QPN; an offered frame holds until taken. A QP goes
// to RESET with jobs queued and its stream's frame offered: nothing of it
// leaves but that frame, and the block drains (quiet_o).
#include "Vrnic_rd_resp.h"
#include "blk_common.h"

using namespace blk;

namespace {

constexpr unsigned kJobW = 243;
constexpr unsigned kTxdW = 857;
constexpr unsigned kNq = 4;
constexpr uint8_t kOpFirst = 0x0d, kOpMiddle = 0x0e, kOpLast = 0x0f, kOpOnly = 0x10;
constexpr uint8_t kOpAck = 0x11, kOpAtomicAck = 0x12;
constexpr uint8_t kAethAck = 0x1f;  // a plain ACK's syndrome
enum Kind { kAck = 0, kRead = 1, kAtomic = 2 };

struct Job {
  unsigned id = 0;
  unsigned kind = kAck;
  uint32_t qpn = 0, psn = 0, msn = 0, len = 0;
  uint8_t syn = 0;
  uint64_t addr = 0, orig = 0;
  bool dup = false;
};

Bits pack_job(const Job &j) {
  Packer p(kJobW);
  p.f(2, j.kind).f(24, j.qpn).f(24, j.psn).f(8, j.syn).f(24, j.msn).f(64, j.addr).f(32, j.len);
  p.f(64, j.orig).f(1, j.dup);
  return p.done();
}

struct Frame {
  unsigned job = 0;
  uint32_t qpn = 0, psn = 0, msn = 0, pay = 0;
  uint8_t op = 0, syn = 0;
  uint64_t addr = 0, orig = 0;
  bool last_of_job = false, done = false;  // done_o expected with it
};

Frame unpack_txd(const Bits &b) {
  Unpacker u(b);
  Frame f;
  f.qpn = (uint32_t)u.f(24);
  f.op = (uint8_t)u.f(8);
  f.psn = (uint32_t)u.f(24);
  u.f(1);  // ack_req
  u.f(1);  // se
  f.pay = (uint32_t)u.f(13);
  u.f(64);  // reth_va
  u.f(32);  // reth_rkey
  u.f(32);  // reth_len
  u.f(32);  // imm
  f.syn = (uint8_t)u.f(8);
  f.msn = (uint32_t)u.f(24);
  const unsigned nchunk = (unsigned)u.f(3);
  const Bits ca = u.fb(256), cl = u.fb(52);
  f.addr = ca.get(0, 64);
  BLK_CHECK(nchunk == (f.pay ? 1u : 0u), "frame of QP %u: %u chunks for %u payload bytes", f.qpn,
            nchunk, f.pay);
  if (nchunk) {
    BLK_CHECK(cl.get(0, 13) == f.pay, "frame of QP %u: chunk of %u bytes, payload %u", f.qpn,
              (unsigned)cl.get(0, 13), f.pay);
  }
  u.f(1);   // ev_first
  u.f(1);   // ev_last
  u.f(16);  // wqe_idx
  f.orig = u.f(64);
  return f;
}

unsigned mtu_bytes(unsigned pmtu) { return (pmtu >= 1 && pmtu <= 4) ? 128u << pmtu : 4096u; }

// Where the job queue merges a plain ACK: the newest waiting job of its QP,
// if that is a plain ACK and not the head (PSNs only grow here); else -1.
int merge_at(const std::deque<Job> &waiting, const Job &j) {
  if (j.kind != kAck || j.syn != kAethAck) return -1;
  int m = -1;
  for (size_t i = 0; i < waiting.size(); i++)
    if (waiting[i].qpn == j.qpn) m = (int)i;
  if (m > 0 && waiting[m].kind == kAck && waiting[m].syn == kAethAck) return m;
  return -1;
}

}  // namespace

int main(int argc, char **argv) {
  g_bench = "blk_rnic_rd_resp";
  VerilatedContext ctx;
  ctx.commandArgs(argc, argv);
  Vrnic_rd_resp top{&ctx, "top"};
  Rng r(48);

  QpCfg cfg[kNq];
  Bits cfg_bits[kNq];
  for (unsigned q = 0; q < kNq; q++) {
    cfg[q].randomize(r);
    cfg[q].state = 3;  // RTS
    cfg[q].pmtu = (uint8_t)(1 + q % 5);
    cfg_bits[q] = cfg[q].pack();
  }
  std::deque<Frame> exp[kNq];   // each QP's frames still to come, in order
  std::deque<Job> waiting;      // jobs taken and not started, in the block's order
  int stream = -1;              // QP whose READ response stream is under way
  uint32_t next_psn[kNq] = {};
  unsigned next_id = 0;

  top.clk_i = 0;
  top.job_valid_i = 0;
  top.txd_ready_i = 0;
  reset_dut(top);

  const unsigned kCycles = 60000;
  double p_job = 0.5, p_tx = 0.7;
  bool offered = false, held = false, last_stream = false;
  Job cur;
  Bits held_txd(kTxdW);
  int reset_q = -1;  // QP in RESET this phase
  uint64_t frames = 0, stream_frames = 0, turns = 0, dones = 0, dropped = 0, resets = 0;
  uint64_t merges = 0;
  uint64_t reset_held = 0;
  auto same = [](const Bits &x, const Bits &y) { return x.n == y.n && x.w == y.w; };
  for (unsigned c = 0; c < kCycles; c++, g_cycle++) {
    if (c % 2000 == 0) {
      static const double ph[][2] = {{0.5, 0.7}, {0.9, 0.3}, {0.3, 1.0}, {0.8, 0.8}, {0.2, 0.2}};
      p_job = ph[(c / 2000) % 5][0];
      p_tx = ph[(c / 2000) % 5][1];
    }
    // In the second half of each 5000 cycles a QP goes to RESET whenever
    // its stream frame is offered and waits (and at 4500 any, if none did);
    // the producer then stops until the block is quiet. Its jobs and the rest
    // of its stream are dropped; the frame already offered still goes out.
    if (reset_q < 0 && c % 5000 >= 2500 &&
        (c % 5000 == 4500 || (held && stream >= 0 && unpack_txd(held_txd).qpn == (uint32_t)stream))) {
      reset_q = stream >= 0 ? stream : (int)r.range(0, kNq - 1);
      cfg[reset_q].state = 0;
      cfg_bits[reset_q] = cfg[reset_q].pack();
      resets++;
      const bool keep = held && (unpack_txd(held_txd).qpn == (uint32_t)reset_q);
      const unsigned keep_job = keep ? exp[reset_q].front().job : ~0u;
      dropped += exp[reset_q].size() - (keep ? 1 : 0);
      while (exp[reset_q].size() > (keep ? 1u : 0u)) exp[reset_q].pop_back();
      std::deque<Job> w;
      for (const Job &j : waiting)
        if ((int)j.qpn != reset_q || j.id == keep_job) w.push_back(j);
      waiting.swap(w);
      if (stream == reset_q) stream = -1;
    }

    top.clk_i = 0;
    if (!offered && reset_q < 0 && r.chance(p_job)) {
      offered = true;
      cur = Job();
      cur.id = next_id++;
      cur.qpn = (uint32_t)r.range(0, kNq - 1);
      const unsigned k = (unsigned)r.range(0, 99);
      cur.kind = k < 45 ? kAck : k < 80 ? kRead : kAtomic;
      cur.psn = next_psn[cur.qpn];
      cur.msn = r.u32() & 0xFFFFFF;
      // Plain ACKs (AETH syndrome 0x1f, rnic_pkg::AethAck), which the queue
      // may merge, NAKs and RNR NAKs, which it never does.
      const unsigned sk = (unsigned)r.range(0, 9);
      cur.syn = (uint8_t)(sk < 4 ? kAethAck : sk < 7 ? 0x60 + r.range(0, 3) : 0x20 + r.range(0, 31));
      cur.dup = r.chance(0.1);
      cur.addr = r.u64();
      cur.orig = r.u64();
      const unsigned mtu = mtu_bytes(cfg[cur.qpn].pmtu);
      if (cur.kind == kRead) {
        const unsigned shape = (unsigned)r.range(0, 5);
        cur.len = shape == 0 ? 0 : shape == 1 ? mtu : (uint32_t)r.range(1, 4 * mtu + 100);
      }
      const unsigned npkt = cur.kind == kRead ? std::max(1u, (cur.len + mtu - 1) / mtu) : 1;
      next_psn[cur.qpn] = (cur.psn + npkt) & 0xFFFFFF;
    }
    top.job_valid_i = offered;
    vset(top.job_i, pack_job(cur));
    top.txd_ready_i = r.chance(p_tx);
    // The context follows the index the block presents (a read port).
    top.eval();
    for (int pass = 0; pass < 2; pass++) {
      const unsigned qi = (unsigned)top.ctx_idx_o;
      BLK_CHECK(qi < kNq, "ctx_idx_o %u", qi);
      vset(top.ctx_i, cfg_bits[qi % kNq]);
      top.eval();
    }
    const bool sent = top.txd_valid_o && top.txd_ready_i;
    const bool take = top.job_valid_i && top.job_ready_o;
    if (take && (int)cur.qpn == reset_q) {
      // Offered before its QP's reset, taken after: dropped.
      dropped++;
      offered = false;
    } else if (take && merge_at(waiting, cur) > 0) {
      // The queue's ACK coalescing: it replaces the newest waiting job of
      // its QP, a plain ACK and not the head, with this one; so does the
      // expected frame.
      const int m = merge_at(waiting, cur);
      for (Frame &e : exp[cur.qpn]) {
        if (e.job == waiting[m].id) {
          e.job = cur.id;
          e.psn = cur.psn;
          e.msn = cur.msn;
        }
      }
      waiting[m] = cur;
      merges++;
      offered = false;
    } else if (take) {
      // The job's frames (one, or the READ's response stream), before the
      // frame check: a job arriving at an empty queue passes through and
      // may leave in this cycle.
      const unsigned mtu = mtu_bytes(cfg[cur.qpn].pmtu);
      uint32_t sent_b = 0, k = 0;
      for (;;) {
        Frame e;
        e.job = cur.id;
        e.qpn = cur.qpn;
        e.syn = cur.syn;
        e.msn = cur.msn;
        if (cur.kind == kRead) {
          const uint32_t left = cur.len - sent_b;
          const bool first = k == 0, last = left <= mtu;
          e.pay = last ? left : mtu;
          e.op = first && last ? kOpOnly : first ? kOpFirst : last ? kOpLast : kOpMiddle;
          e.psn = (cur.psn + k) & 0xFFFFFF;
          e.addr = cur.addr + sent_b;
          e.done = last && !cur.dup;
          exp[cur.qpn].push_back(e);
          sent_b += e.pay;
          k++;
          if (last) break;
        } else {
          e.op = cur.kind == kAck ? kOpAck : kOpAtomicAck;
          e.psn = cur.psn;
          e.orig = cur.orig;
          e.done = cur.kind == kAtomic && !cur.dup;
          exp[cur.qpn].push_back(e);
          break;
        }
      }
      waiting.push_back(cur);
      offered = false;
    }

    if (held) {
      BLK_CHECK(top.txd_valid_o, "an offered frame was withdrawn");
      BLK_CHECK(same(vget(top.txd_o, kTxdW), held_txd), "an offered frame changed before it "
                                                        "was taken");
    }
    // The job the stream must not pass twice: the oldest waiting.
    const Job *head = waiting.empty() ? nullptr : &waiting.front();
    const bool head_ok = reset_q < 0 && stream >= 0 && head && head->kind != kRead &&
                         (int)head->qpn != stream;
    bool exp_done = false;
    uint32_t exp_done_qpn = 0;
    if (top.txd_valid_o) {
      const Frame f = unpack_txd(vget(top.txd_o, kTxdW));
      const unsigned q = f.qpn % kNq;
      BLK_CHECK(f.qpn < kNq, "frame of QP %u", f.qpn);
      if ((int)q == reset_q)
        BLK_CHECK(held, "a frame of QP %u in RESET (op 0x%02x psn %u)", q, f.op, f.psn);
      if (sent) {
        BLK_CHECK(!exp[q].empty(), "unexpected frame of QP %u (op 0x%02x psn %u)", q, f.op, f.psn);
        if (!exp[q].empty()) {
          const Frame e = exp[q].front();
          exp[q].pop_front();
          frames++;
          BLK_CHECK(f.op == e.op && f.psn == e.psn && f.syn == e.syn && f.msn == e.msn &&
                        f.pay == e.pay,
                    "QP %u job %u: frame op 0x%02x psn %u syn 0x%02x msn %u pay %u, expected op "
                    "0x%02x psn %u syn 0x%02x msn %u pay %u",
                    q, e.job, f.op, f.psn, f.syn, f.msn, f.pay, e.op, e.psn, e.syn, e.msn, e.pay);
          if (f.pay) BLK_CHECK(f.addr == e.addr, "QP %u job %u: chunk address", q, e.job);
          if (f.op == kOpAtomicAck) BLK_CHECK(f.orig == e.orig, "QP %u: original value", q);
          exp_done = e.done;
          exp_done_qpn = q;
          const bool from_stream = f.op == kOpMiddle || f.op == kOpLast;
          if ((int)q != reset_q) {
            // One stream at a time.
            if (f.op == kOpFirst || f.op == kOpOnly)
              BLK_CHECK(stream < 0, "READ of QP %u starts while QP %d streams", q, stream);
            if (from_stream)
              BLK_CHECK(stream == (int)q, "READ frame of QP %u, stream of QP %d", q, stream);
            // Turns: a stream frame right after a stream frame passes no
            // job that could have gone (unless it was offered before).
            if (from_stream && !held && last_stream)
              BLK_CHECK(!head_ok, "QP %d's stream passed a waiting job of QP %u twice", stream,
                        head ? head->qpn : 0);
            if (!from_stream && stream >= 0) turns++;
            if (f.op == kOpFirst) stream = (int)q;
            if (f.op == kOpLast) stream = -1;
          }
          if (from_stream) stream_frames++;
          last_stream = from_stream;
          // A job leaves the queue with its (first) frame, in order.
          if (!from_stream) {
            BLK_CHECK(head && head->id == e.job, "QP %u job %u left before job %u", q, e.job,
                      head ? head->id : 0);
            if (head && head->id == e.job) waiting.pop_front();
          }
          if ((int)q == reset_q) reset_held++;
        }
      }
    }
    BLK_CHECK(top.done_o == exp_done, "done_o=%d, expected %d", top.done_o, exp_done);
    if (top.done_o && exp_done) {
      BLK_CHECK(top.done_qpn_o == exp_done_qpn, "done_qpn_o=%u, expected %u",
                (unsigned)top.done_qpn_o, exp_done_qpn);
      dones++;
    }
    held = top.txd_valid_o && !top.txd_ready_i;
    if (held) held_txd = vget(top.txd_o, kTxdW);

    top.clk_i = 1;
    top.eval();

    // The RESET phase ends once the block is quiet: nothing of the QP is
    // left, and every other QP's frames have gone.
    if (reset_q >= 0 && top.quiet_o && !offered) {
      for (unsigned q = 0; q < kNq; q++)
        BLK_CHECK(exp[q].empty(), "quiet with %zu frames of QP %u owed", exp[q].size(), q);
      BLK_CHECK(waiting.empty(), "quiet with %zu jobs waiting", waiting.size());
      waiting.clear();
      stream = -1;
      last_stream = false;
      cfg[reset_q].state = 3;
      cfg_bits[reset_q] = cfg[reset_q].pack();
      reset_q = -1;
    }
  }
  BLK_CHECK(frames > 10000 && stream_frames > 2000 && turns > 500 && dones > 1000 &&
                resets >= 10 && merges > 100,
            "weak coverage: %llu frames, %llu stream frames, %llu turns, %llu done, %llu resets, "
            "%llu merges",
            (unsigned long long)frames, (unsigned long long)stream_frames,
            (unsigned long long)turns, (unsigned long long)dones, (unsigned long long)resets,
            (unsigned long long)merges);
  info("%llu frames (%llu of READ streams after their first), %llu jobs of other QPs between "
       "stream frames, %llu ACKs merged, %llu done, %llu resets (%llu frames dropped, %llu "
       "offered frames sent in RESET)",
       (unsigned long long)frames, (unsigned long long)stream_frames, (unsigned long long)turns,
       (unsigned long long)merges, (unsigned long long)dones, (unsigned long long)resets, (unsigned long long)dropped,
       (unsigned long long)reset_held);
  cov_dump(ctx);
  return finish();
}
