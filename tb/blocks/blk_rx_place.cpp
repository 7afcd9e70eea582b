// blk_rnic_rx_place: rnic_rx_place alone (DATAW 256 and 64).
//
// Placement jobs of 0..5 segments with random bus addresses, lengths (some
// zero), payload offsets and frame base offsets, over three C++ frame slots of
// random bytes behind the rd_slot_o/rd_word_o/rd_data_i port (rd_data_i is
// combinational: the two consecutive words at rd_word_o). The DMA write stream
// is captured with random back-pressure and checked: one write per non-empty
// segment in segment order, addr/len on the first beat, ceil(len/Bytes) beats,
// wr_last_o on the last one only, the bytes of the slot at base+poff; busy_o
// rises the cycle after start_i and falls once every write is done, the cycle
// after the slot's one release (in or after the cycle of the last write).
#include "Vrnic_rx_place.h"
#include "blk_common.h"

using namespace blk;

#ifndef DATAW
#define DATAW 256
#endif
constexpr unsigned kBytes = DATAW / 8;
constexpr unsigned kWords = (4200 + kBytes - 1) / kBytes + 2;  // as rnic_rx_parser
constexpr unsigned kMaxSeg = 5;  // rnic_pkg::MaxSeg

namespace {
struct Seg {
  uint64_t addr;
  uint32_t len;
  uint16_t poff;
};
struct Job {
  unsigned slot = 0;
  uint16_t base = 0;
  std::vector<Seg> segs;
};
}  // namespace

int main(int argc, char **argv) {
  // test name: blk_rnic_<block>, with _w<DATAW> unless the datapath is 256 bits
  static const std::string name =
      std::string("blk_rnic_rx_place") + (DATAW == 256 ? "" : "_w" + std::to_string(DATAW));
  g_bench = name.c_str();
  VerilatedContext vctx;
  vctx.commandArgs(argc, argv);
  Vrnic_rx_place top{&vctx};
  Rng r(0x91ace000u + DATAW);

  std::vector<uint8_t> slot_mem[3];
  auto refill = [&](unsigned s) {
    slot_mem[s].resize(kWords * kBytes);
    for (auto &b : slot_mem[s]) b = (uint8_t)r.u32();
  };
  refill(0);
  refill(1);
  refill(2);

  top.start_i = 0;
  top.wr_ready_i = 0;
  reset_dut(top);

  const unsigned kJobs = 4000;
  unsigned jobs = 0, writes = 0, zero_segs = 0;
  uint64_t bytes = 0;
  // current job
  bool active = false;
  Job job;
  size_t seg = 0;         // next segment expected to be written
  uint32_t seg_done = 0;  // bytes of it already seen
  unsigned beat = 0;
  uint64_t start_cycle = 0;
  bool started_last = false;
  bool released = false;       // the job's slot released
  bool released_last = false;  // ... in the previous cycle
  double p_wr = 0.8;

  auto advance_empty = [&]() {
    while (seg < job.segs.size() && job.segs[seg].len == 0) seg++;
  };

  for (g_cycle = 0; g_cycle < 3000000; g_cycle++) {
    if (jobs >= kJobs && !active) break;
    const unsigned ph = (unsigned)(g_cycle / 4000) % 3;
    p_wr = ph == 0 ? 0.8 : (ph == 1 ? 1.0 : 0.25);

    top.clk_i = 0;
    // ---- new job when idle
    bool start = false;
    if (!active && !started_last && !top.busy_o && jobs < kJobs && r.chance(0.5)) {
      job = Job();
      job.slot = (unsigned)r.range(0, 2);
      if (r.chance(0.1)) refill(job.slot);  // a new frame in that slot
      job.base = r.chance(0.7) ? (uint16_t)(54 + 4 * r.range(0, 5)) : (uint16_t)r.range(0, 100);
      const unsigned nseg = (unsigned)r.range(0, kMaxSeg);
      // payload of up to 4096 bytes, cut into segments (RECV scatter list)
      uint32_t pay = r.chance(0.1) ? (uint32_t)r.range(2048, 4096) : (uint32_t)r.range(0, 600);
      uint32_t off = 0;
      for (unsigned i = 0; i < nseg; i++) {
        Seg s;
        s.addr = r.chance(0.3) ? r.u64() : 0x10000000ull + r.range(0, 1 << 20);
        uint32_t left = pay > off ? pay - off : 0;
        s.len = r.chance(0.1) ? 0 : (i + 1 == nseg ? left : (uint32_t)r.range(0, left));
        if (r.chance(0.1)) {  // any offset of the payload, not only in order
          s.poff = (uint16_t)r.range(0, 4096);
          s.len = (uint32_t)r.range(0, 4096 - s.poff);  // base+poff+len <= 4196
        } else {
          s.poff = (uint16_t)off;
          off += s.len;
        }
        if (s.len == 0) zero_segs++;
        job.segs.push_back(s);
      }
      Bits a(64 * kMaxSeg), l(32 * kMaxSeg), p(16 * kMaxSeg);
      for (unsigned i = 0; i < kMaxSeg; i++) {  // unused entries: random junk
        a.set(64 * i, 64, r.u64());
        l.set(32 * i, 32, r.u32());
        p.set(16 * i, 16, r.u32());
      }
      for (unsigned i = 0; i < job.segs.size(); i++) {
        a.set(64 * i, 64, job.segs[i].addr);
        l.set(32 * i, 32, job.segs[i].len);
        p.set(16 * i, 16, job.segs[i].poff);
      }
      top.slot_i = job.slot;
      top.base_i = job.base;
      top.nseg_i = (uint8_t)job.segs.size();
      vset(top.seg_addr_i, a);
      vset(top.seg_len_i, l);
      vset(top.seg_poff_i, p);
      start = true;
    }
    top.start_i = start;
    top.wr_ready_i = r.chance(p_wr);
    top.eval();
    // frame slot read port: combinational from rd_slot_o / rd_word_o
    {
      std::vector<uint8_t> two(2 * kBytes, 0);
      const unsigned s = top.rd_slot_o % 3;
      const unsigned w = top.rd_word_o;
      for (unsigned i = 0; i < 2 * kBytes; i++) {
        size_t p = (size_t)w * kBytes + i;
        two[i] = p < slot_mem[s].size() ? slot_mem[s][p] : 0;
      }
      vset_bytes(top.rd_data_i, two.data());
      top.eval();
    }

    // ---- checks before the edge
    if (started_last) BLK_CHECK(top.busy_o, "busy_o low the cycle after start_i");
    if (!active) BLK_CHECK(!top.wr_valid_o, "wr_valid_o while no job is running");
    const bool wr_take = top.wr_valid_o && top.wr_ready_i;
    bool job_done = false;
    bool must_release = false;  // the last write of the job's last segment
    if (wr_take && active) {
      advance_empty();
      if (seg >= job.segs.size()) {
        fail("job %u: DMA write beyond its %zu segments", jobs, job.segs.size());
      } else {
        const Seg &s = job.segs[seg];
        if (beat == 0)
          BLK_CHECK(top.wr_addr_o == s.addr && top.wr_len_o == (s.len & 0xFFFF),
                    "job %u segment %zu: write addr=0x%llx len=%u, expected addr=0x%llx len=%u",
                    jobs, seg, (unsigned long long)top.wr_addr_o, top.wr_len_o,
                    (unsigned long long)s.addr, s.len);
        uint8_t lanes[kBytes];
        vget_bytes(top.wr_data_o, lanes);
        const unsigned n = std::min<uint32_t>(kBytes, s.len - seg_done);
        for (unsigned i = 0; i < n; i++) {
          const size_t src = (size_t)job.base + s.poff + seg_done + i;
          const uint8_t e = slot_mem[job.slot][src];
          if (lanes[i] != e) {
            fail(
                "job %u segment %zu (slot %u, base %u, poff %u, len %u, addr 0x%llx): byte %u "
                "is 0x%02x, expected 0x%02x (slot byte %zu)",
                jobs, seg, job.slot, job.base, s.poff, s.len, (unsigned long long)s.addr,
                seg_done + i, lanes[i], e, src);
            break;
          }
        }
        const bool exp_last = seg_done + n >= s.len;
        BLK_CHECK(top.wr_last_o == exp_last, "job %u segment %zu: wr_last_o=%d at byte %u of %u",
                  jobs, seg, top.wr_last_o, seg_done, s.len);
        seg_done += n;
        beat++;
        bytes += n;
        if (exp_last) {
          must_release = seg + 1 >= job.segs.size();
          writes++;
          seg++;
          seg_done = 0;
          beat = 0;
          advance_empty();
        }
      }
    } else if (wr_take) {
      fail("DMA write with no job");
    }
    // The slot is released once, in the cycle the job's last write is taken
    // (this cycle's write counted above) or later, and busy_o falls after it.
    const bool rel_now = top.release_o;
    if (must_release)
      BLK_CHECK(rel_now, "job %u: slot not released in the cycle of its last write", jobs);
    if (rel_now) {
      advance_empty();
      BLK_CHECK(active && !released, "job %u: release_o twice or with no job",
                jobs);
      BLK_CHECK(seg >= job.segs.size(), "job %u: slot released with segment %zu of %zu not written",
                jobs, seg, job.segs.size());
      BLK_CHECK(top.release_slot_o == job.slot, "job %u: released slot %u, expected %u", jobs,
                top.release_slot_o, job.slot);
      released = true;
    }
    if (released_last) BLK_CHECK(!top.busy_o, "job %u: busy_o high after the release", jobs);
    if (active && !top.busy_o && !started_last) {
      advance_empty();
      BLK_CHECK(seg >= job.segs.size(), "job %u: busy_o fell with segment %zu of %zu not written",
                jobs, seg, job.segs.size());
      BLK_CHECK(released && released_last, "job %u: busy_o fell without the release the cycle before",
                jobs);
      job_done = true;
    }
    if (active && g_cycle - start_cycle > 20000) {
      fail("job %u not finished after 20000 cycles", jobs);
      break;
    }

    top.clk_i = 1;
    top.eval();

    if (job_done) {
      active = false;
      jobs++;
    }
    started_last = start;
    released_last = rel_now;
    if (start) {
      released = false;
      active = true;
      seg = 0;
      seg_done = 0;
      beat = 0;
      start_cycle = g_cycle;
    }
  }
  BLK_CHECK(jobs == kJobs, "only %u of %u jobs finished", jobs, kJobs);
  info("%u jobs, %u DMA writes (%u empty segments skipped), %llu bytes placed", jobs, writes,
       zero_segs, (unsigned long long)bytes);
  top.final();
  return finish(vctx);
}
