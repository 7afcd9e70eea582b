// blk_rnic_rx_wqe_fetch: rnic_rx_wqe_fetch alone against a reference of the
// WQE register it keeps for the receive transport.
//
// Random reads and cache loads, one after another as the engine's states
// run them: a read offers its request (address, length) for as many cycles
// as the DMA port holds it back, then takes 1 to all of a WQE's beats with
// idle cycles between them and an error on some; a load hands a whole cache
// entry, with its error flag, in one cycle. Every cycle checks the read
// port (valid, address, length, ready) and the handshake outputs (sent_o,
// done_o); the last beat's cycle the SGE count (cnt_o) for a receive WQE
// (first SGE slot 1: byte 0) or a send WQE (slots 2, 3: the ds byte less
// the segments before the SGEs); after it, and after a load, the WQE and
// its error flag.
#include "Vrnic_rx_wqe_fetch.h"
#include "blk_common.h"

using namespace blk;

namespace {
constexpr unsigned kDataW = DATAW;
constexpr unsigned kWqeBits = 2048;   // rnic_pkg::WqeBits
constexpr unsigned kLoadBits = 768;   // rnic_pkg::RwqeBits
constexpr unsigned kBeats = kWqeBits / kDataW;
}  // namespace

int main(int argc, char **argv) {
  g_bench = "blk_rnic_rx_wqe_fetch";
  VerilatedContext vctx;
  vctx.commandArgs(argc, argv);
  Vrnic_rx_wqe_fetch top{&vctx};
  Rng r(0x3fe7c400u + kDataW);

  auto idle_inputs = [&]() {
    top.req_i = 0;
    top.collect_i = 0;
    top.load_i = 0;
    top.rd_req_ready_i = 0;
    top.rd_rsp_valid_i = 0;
    top.rd_rsp_last_i = 0;
    top.rd_rsp_err_i = 0;
  };
  idle_inputs();
  top.addr_i = 0;
  top.len_i = 0;
  top.first_i = 1;
  reset_dut(top);

  Bits want(kWqeBits);
  bool want_err = false;
  auto check_wqe = [&](const char *what, unsigned t) {
    top.eval();
    BLK_CHECK(vget(top.wqe_o, kWqeBits).w == want.w, "trial %u %s: WQE differs", t, what);
    BLK_CHECK(top.err_o == want_err, "trial %u %s: err_o %u, want %u", t, what, top.err_o,
              want_err);
  };
  // The engine's view in a cycle: valid and ready as its states drive them.
  auto check_port = [&](bool req, bool collect, unsigned t) {
    top.eval();
    BLK_CHECK(top.rd_req_valid_o == req && top.rd_rsp_ready_o == collect,
              "trial %u: valid %u ready %u, want %u %u", t, top.rd_req_valid_o,
              top.rd_rsp_ready_o, req, collect);
    BLK_CHECK(top.sent_o == (req && top.rd_req_ready_i), "trial %u: sent_o %u", t, top.sent_o);
    BLK_CHECK(top.done_o == (collect && top.rd_rsp_valid_i && top.rd_rsp_last_i),
              "trial %u: done_o %u", t, top.done_o);
  };

  const unsigned kTrials = 4000;
  unsigned reads = 0, loads = 0, errs = 0, short_reads = 0, stalls = 0;
  for (unsigned t = 0; t < kTrials; t++) {
    const unsigned first = (unsigned)r.range(1, 3);
    top.first_i = first;
    if (r.range(0, 3) == 0) {
      // A cache load.
      Bits d(kLoadBits);
      for (unsigned k = 0; k < kLoadBits / 32; k++) d.set(32 * k, 32, r.u32());
      const bool err = r.range(0, 7) == 0;
      idle_inputs();
      vset(top.load_data_i, d);
      top.load_i = 1;
      top.load_err_i = err;
      check_port(false, false, t);
      clock_cycle(top);
      want = Bits(kWqeBits);
      want.set_bits(0, d);
      want_err = err;
      idle_inputs();
      check_wqe("load", t);
      loads++;
      continue;
    }
    // A read: the request, held back 0-3 cycles.
    const uint64_t addr = r.u64();
    const uint16_t len = (uint16_t)r.range(1, 256);
    idle_inputs();
    top.addr_i = addr;
    top.len_i = len;
    top.req_i = 1;
    for (unsigned w = (unsigned)r.range(0, 3); w; w--) {
      check_port(true, false, t);
      BLK_CHECK(top.rd_req_addr_o == addr && top.rd_req_len_o == len,
                "trial %u: request %llx+%u, want %llx+%u", t,
                (unsigned long long)top.rd_req_addr_o, top.rd_req_len_o,
                (unsigned long long)addr, len);
      clock_cycle(top);
      stalls++;
    }
    top.rd_req_ready_i = 1;
    check_port(true, false, t);
    BLK_CHECK(top.rd_req_addr_o == addr && top.rd_req_len_o == len, "trial %u: request", t);
    clock_cycle(top);
    want = Bits(kWqeBits);
    want_err = false;
    // The beats: the whole WQE or fewer (a WQE shorter than its slot).
    const unsigned n = r.range(0, 2) ? kBeats : (unsigned)r.range(1, kBeats);
    if (n < kBeats) short_reads++;
    // One read in eight has an error on one of its beats.
    const unsigned err_beat = r.range(0, 7) ? ~0u : (unsigned)r.range(0, n - 1);
    for (unsigned b = 0; b < n; b++) {
      idle_inputs();
      top.collect_i = 1;
      for (unsigned w = (unsigned)r.range(0, 2) ? 0 : (unsigned)r.range(1, 3); w; w--) {
        check_port(false, true, t);
        clock_cycle(top);
      }
      Bits beat(kDataW);
      for (unsigned k = 0; k < kDataW / 32; k++) beat.set(32 * k, 32, r.u32());
      const bool err = b == err_beat;
      vset(top.rd_rsp_data_i, beat);
      top.rd_rsp_valid_i = 1;
      top.rd_rsp_last_i = (b + 1 == n);
      top.rd_rsp_err_i = err;
      check_port(false, true, t);
      want.set_bits(b * kDataW, beat);
      want_err = want_err || err;
      if (b + 1 == n) {
        const unsigned cnt =
            first == 1 ? want.byte(0) : (unsigned)(uint8_t)(want.byte(4) - first);
        BLK_CHECK(top.cnt_o == cnt, "trial %u: cnt_o %u, want %u (first %u, %u beats)", t,
                  top.cnt_o, cnt, first, n);
      }
      clock_cycle(top);
    }
    idle_inputs();
    check_wqe("read", t);
    errs += want_err;
    reads++;
  }
  info("%u reads (%u shorter than the WQE, %u with an error beat, %u request stalls), %u loads",
       reads, short_reads, errs, stalls, loads);
  BLK_CHECK(reads > 2000 && loads > 500 && errs > 200 && short_reads > 500,
            "too few of a kind");
  return finish(vctx);
}
