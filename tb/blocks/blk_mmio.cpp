// blk_mmio: rnic_mmio alone (the BAR), two parameter sets.
//
// A host drives a seeded random stream of MMIO reads and writes (plus
// driver-like command scripts and doorbell bursts), holding each request
// until mmio_ready_o; the doorbell consumers take SQ_DB and RQ_DB/SRQ_DB (one
// shared queue) with random ready; a C++ QP table answers qp_query_idx_o in
// the same cycle and drifts over time (the engines move PSNs and states); the
// counters change at random.
// Checks against a model of the register map of docs/formats.md: DEV_ID,
// CAPS for the verilated parameters, PORT_MAC/PORT_IP read back and driven on
// port_mac_o/port_ip_o, CMD_ARG0..7 read back and on cmd_args_o (every
// cycle), exactly one context strobe (QP/CQ/MR/SRQ_WRITE) per good CMD_GO
// with the index and ARG0..7 written before, CMD_STATUS result 0/1/2 and no
// strobe for a bad op or index, QP_QUERY results in CMD_OUT0/1, counters,
// every read answered exactly one cycle later, every SQ doorbell delivered
// once and in order, RQ and SRQ doorbells delivered once each in the order
// written through the one receive queue, db_data_o = {SRQ, data[62:0]} (bit
// 63 set only on SRQ_DB, forced to 0 on SQ/RQ/CQ_DB), BlueFlame words
// (SQ_BF0..7) into the SQ queue with all 64 bits and db_bf_o = {1, word},
// MMIO back-pressure only while the doorbell's queue is not ready (or, for
// CMD_GO, while qp_err_i says the engine writes a QP's state), CQ_DB
// strobes, and writes to read-only or unmapped offsets changing nothing.
#include "Vrnic_mmio.h"
#include "blk_common.h"

using namespace blk;

#ifndef DATAW
#define DATAW 256
#endif
#ifndef NQP
#define NQP 16
#endif
#ifndef NCQ
#define NCQ 8
#endif
#ifndef NMR
#define NMR 32
#endif
#ifndef MAXRD
#define MAXRD 32
#endif

// docs/formats.md, BAR
enum : uint16_t {
  RegDevId = 0x000,
  RegCaps = 0x008,
  RegPortMac = 0x010,
  RegPortIp = 0x018,
  RegCmdArg0 = 0x100,
  RegCmdGo = 0x140,
  RegCmdStatus = 0x148,
  RegCmdOut0 = 0x150,
  RegCntTx = 0x200,
  RegSqDb = 0x1000,
  RegRqDb = 0x1008,
  RegCqDb = 0x1010,
  RegSrqDb = 0x1018,
};
enum : uint8_t {
  CmdQpWrite = 0x01,
  CmdQpQuery = 0x02,
  CmdCqWrite = 0x10,
  CmdMrWrite = 0x20,
  CmdSrqWrite = 0x30,
};
constexpr unsigned kArgs = 8;  // CMD_ARG0..7, all on cmd_args_o
constexpr uint64_t kDevId = 0x524e494300010000ull;
constexpr unsigned kMaxSge = 4;  // rnic_pkg::MaxSge

namespace {

unsigned clog2(unsigned n) {
  unsigned l = 0;
  while ((1u << l) < n) l++;
  return l;
}

uint64_t caps_ref() {
  return (uint64_t)clog2(NQP) | (uint64_t)clog2(NCQ) << 8 | (uint64_t)clog2(NMR) << 16 |
         (uint64_t)kMaxSge << 24 | (uint64_t)DATAW << 32 | (uint64_t)MAXRD << 48;
}

struct Op {
  bool we = false;
  uint16_t addr = 0;
  uint64_t data = 0;
};

// What the RTL sees of one QP: state and {rq_psn, sq_psn}.
struct QpView {
  uint8_t state = 0;
  uint64_t psn = 0;
  bool operator==(const QpView &o) const { return state == o.state && psn == o.psn; }
};

bool good_op(uint8_t op) {
  return op == CmdQpWrite || op == CmdQpQuery || op == CmdCqWrite || op == CmdMrWrite ||
         op == CmdSrqWrite;
}
// The table a command's index must lie in (SRQs: one per QP number at most).
unsigned op_limit(uint8_t op) { return op == CmdCqWrite ? NCQ : op == CmdMrWrite ? NMR : NQP; }

// What the doorbell queue receives for a write of data to a doorbell: bit 63
// marks an SRQ doorbell (SRQ_DB) and is 0 for every other doorbell.
// A BlueFlame word (RegSqBf0 + 8 slot): WQE data for the SQ doorbell queue,
// all 64 bits kept, with db_bf_o = {1, slot}.
constexpr uint16_t RegSqBf0 = 0x1040;
bool is_bf(uint16_t a) { return a >= RegSqBf0 && a < RegSqBf0 + 0x40; }

uint64_t db_word(uint16_t a, uint64_t data) {
  if (is_bf(a)) return data;
  return (data & ~(1ull << 63)) | (uint64_t)(a == RegSrqDb) << 63;
}

bool mapped(uint16_t a) {
  return a <= RegPortIp || (a >= RegCmdArg0 && a <= RegCmdOut0 + 0x18) ||
         (a >= RegCntTx && a <= RegCntTx + 0x18) || (a >= RegSqDb && a <= RegSrqDb);
}

}  // namespace

int main(int argc, char **argv) {
  static const std::string name =
      std::string("blk_mmio") + (DATAW == 256 ? "" : "_w" + std::to_string(DATAW));
  g_bench = name.c_str();
  VerilatedContext vctx;
  vctx.commandArgs(argc, argv);
  Vrnic_mmio top{&vctx};
  Rng r(0x3310000u + NQP * 7 + DATAW);

  // QP table seen through qp_query_idx_o (beyond NQp the table answers 0, as
  // rnic_ctx_tables does).
  std::vector<QpView> tbl(NQP);
  auto rand_view = [&]() {
    QpView v;
    v.state = (uint8_t)r.range(0, 6);
    v.psn = r.u64() & 0xFFFFFFFFFFFFull;
    return v;
  };
  for (auto &v : tbl) v = rand_view();
  auto view_of = [&](uint32_t idx) { return idx < NQP ? tbl[idx] : QpView(); };
  uint64_t cnt[4] = {r.u64(), r.u64(), r.u64(), r.u64()};

  // Register model (reset values 0).
  uint64_t mac = 0, args[8] = {};
  uint32_t ip = 0, qidx = 0;
  uint8_t result = 0;
  bool busy = false;          // a QP_WRITE that resets a queue waits for quiet_i
  bool busy_cq = false;       // a CQ_WRITE that invalidates waits for cq_quiet_i
  unsigned busy_reads = 0, reset_gos = 0, inval_gos = 0, cq_inval_gos = 0, bf_words = 0;
  QpView seen_prev;  // what the query inputs showed in the previous cycle

  // Doorbells: written by the host (accepted MMIO writes) and seen by the
  // consumers (valid && ready on their port); the two lists must be equal.
  // RQ_DB and SRQ_DB share the receive queue: one list, in write order.
  std::vector<uint64_t> sq_host, sq_seen, rq_host, rq_seen;
  unsigned n_rq = 0, n_srq = 0, rq_switch = 0, db_hi_in = 0;
  int rq_last_srq = -1;  // kind of the last receive-queue doorbell written

  top.mmio_valid_i = 0;
  top.sq_db_ready_i = 0;
  top.rq_db_ready_i = 0;
  reset_dut(top);

  std::deque<Op> script;
  bool have = false;
  Op cur;
  bool rd_pending = false;
  uint64_t rd_exp = 0;
  Op rd_op;
  bool prev_query = false;  // the previous cycle took a QP_QUERY GO
  QpView prev_fresh;        // the queried QP's view in that cycle

  const unsigned kOps = 30000;
  unsigned ops = 0, reads = 0, writes = 0, strobes[4] = {}, bad_op = 0, bad_idx = 0;
  unsigned out_reads = 0, stale_out = 0, cq_dbs = 0, db_stalls = 0, go_stalls = 0, ro_writes = 0;
  unsigned arg_reads = 0, arg_reads_nz = 0, arg7_strobes = 0, srq_bad_idx = 0, srq_stalls = 0;
  double p_sq = 0.5, p_rq = 0.5;

  auto rand_go = [&]() {
    static const uint8_t good[] = {CmdQpWrite, CmdQpQuery, CmdCqWrite, CmdMrWrite, CmdSrqWrite};
    uint8_t op;
    if (r.chance(0.85)) {
      op = good[r.range(0, std::size(good) - 1)];
    } else {
      do {
        op = (uint8_t)r.u32();
      } while (good_op(op));
    }
    const unsigned lim = op_limit(op);
    uint32_t idx;
    const unsigned k = (unsigned)r.range(0, 99);
    if (k < 75)
      idx = (uint32_t)r.range(0, lim - 1);
    else if (k < 80)
      idx = lim - 1;
    else if (k < 90)
      idx = (uint32_t)r.range(lim, lim + 3);
    else
      idx = r.u32() & 0xFFFFFF;
    // bits [63:32] are not part of CMD_GO: garbage there must not matter
    return Op{true, RegCmdGo, op | (uint64_t)idx << 8 | (r.u64() << 32)};
  };
  auto unmapped = [&]() {
    uint16_t a;
    do {
      a = (uint16_t)(r.u32() & 0xFFF8);
    } while (mapped(a) || is_bf(a));
    return a;
  };
  auto rand_op = [&]() {
    static const uint16_t rd_addrs[] = {
        RegDevId,     RegCaps,      RegPortMac,      RegPortIp,         RegCmdGo,
        RegCmdStatus, RegCmdOut0,   RegCmdOut0 + 8,  RegCmdOut0 + 0x10, RegCmdOut0 + 0x18,
        RegCntTx,     RegCntTx + 8, RegCntTx + 0x10, RegCntTx + 0x18,   RegSqDb,
        RegRqDb,      RegCqDb,      RegSrqDb};
    static const uint16_t ro_addrs[] = {RegDevId,       RegCaps,  RegCmdStatus,   RegCmdOut0,
                                        RegCmdOut0 + 8, RegCntTx, RegCntTx + 0x18};
    Op o;
    const unsigned k = (unsigned)r.range(0, 99);
    if (k < 30) {
      o.we = false;
      if (r.chance(0.1)) {
        o.addr = unmapped();
      } else if (r.chance(0.3)) {
        o.addr = (uint16_t)(RegCmdArg0 + 8 * r.range(0, kArgs - 1));
      } else {
        o.addr = rd_addrs[r.range(0, std::size(rd_addrs) - 1)];
      }
      o.data = r.u64();  // ignored on a read
      return o;
    }
    o.we = true;
    o.data = r.u64();
    if (k < 36)
      o.addr = r.chance(0.5) ? RegPortMac : RegPortIp;
    else if (k < 50)
      o.addr = (uint16_t)(RegCmdArg0 + 8 * r.range(0, 7));
    else if (k < 60)
      return rand_go();
    else if (k < 73)
      o.addr = r.chance(0.2) ? (uint16_t)(RegSqBf0 + 8 * r.range(0, 7)) : (uint16_t)RegSqDb;
    else if (k < 81)
      o.addr = RegRqDb;
    else if (k < 88)
      o.addr = RegSrqDb;
    else if (k < 93)
      o.addr = RegCqDb;
    else if (k < 97)
      o.addr = ro_addrs[r.range(0, std::size(ro_addrs) - 1)];
    else
      o.addr = unmapped();
    return o;
  };
  // The driver's rnic_cmd(): arguments, GO, status poll, query results.
  auto push_cmd_script = [&]() {
    const unsigned nargs = (unsigned)r.range(0, kArgs);
    for (unsigned i = 0; i < nargs; i++)
      script.push_back(Op{true, (uint16_t)(RegCmdArg0 + 8 * i), r.u64()});
    script.push_back(rand_go());
    script.push_back(Op{false, RegCmdStatus, 0});
    for (unsigned i = 0; i < 4; i++) script.push_back(Op{false, (uint16_t)(RegCmdOut0 + 8 * i), 0});
  };
  // A query read back in the very next cycle (see the OUT check below).
  auto push_fast_query = [&]() {
    script.push_back(Op{true, RegCmdGo, CmdQpQuery | (uint64_t)r.range(0, NQP - 1) << 8});
    script.push_back(Op{false, (uint16_t)(RegCmdOut0 + 8 * r.range(0, 1)), 0});
  };
  auto push_db_burst = [&]() {
    static const uint16_t dbs[] = {RegSqDb, RegRqDb, RegSrqDb};
    const unsigned n = (unsigned)r.range(4, 24);
    for (unsigned i = 0; i < n; i++)
      script.push_back(Op{true, dbs[r.range(0, std::size(dbs) - 1)], r.u64()});
  };
  // The driver's SRQ creation: ARG0/ARG1, SRQ_WRITE, status, then the first
  // SRQ doorbells interleaved with RQ doorbells of other QPs.
  auto push_srq_script = [&]() {
    script.push_back(Op{true, RegCmdArg0, r.u64()});
    script.push_back(Op{true, (uint16_t)(RegCmdArg0 + 8), r.u64()});
    if (r.chance(0.3)) script.push_back(Op{true, (uint16_t)(RegCmdArg0 + 0x38), r.u64()});
    const uint32_t idx =
        r.chance(0.8) ? (uint32_t)r.range(0, NQP - 1) : (uint32_t)r.range(NQP, 0xFFFFFF);
    script.push_back(Op{true, RegCmdGo, CmdSrqWrite | (uint64_t)idx << 8 | (r.u64() << 32)});
    script.push_back(Op{false, RegCmdStatus, 0});
    const unsigned n = (unsigned)r.range(2, 12);
    for (unsigned i = 0; i < n; i++)
      script.push_back(Op{true, r.chance(0.5) ? RegSrqDb : RegRqDb, r.u64()});
  };

  for (; g_cycle < 2000000; g_cycle++) {
    if (ops >= kOps && !have && script.empty() && !rd_pending) break;
    const unsigned ph = (unsigned)(g_cycle / 3000) % 4;
    p_sq = ph == 0 ? 0.5 : ph == 1 ? 1.0 : ph == 2 ? 0.1 : 0.8;
    p_rq = ph == 0 ? 0.5 : ph == 1 ? 0.1 : ph == 2 ? 1.0 : 0.8;

    // The engines move on: one QP may change its state or PSNs this cycle.
    if (r.chance(0.1)) tbl[r.range(0, NQP - 1)] = rand_view();
    for (auto &c : cnt) {
      if (r.chance(0.3)) c += r.range(1, 4);
      if (r.chance(0.002)) c = r.u64();
    }

    if (!have && ops < kOps) {
      if (script.empty() && r.chance(0.03)) push_cmd_script();
      if (script.empty() && r.chance(0.01)) push_fast_query();
      if (script.empty() && r.chance(0.01)) push_db_burst();
      if (script.empty() && r.chance(0.01)) push_srq_script();
      if (!script.empty() && r.chance(0.9)) {
        cur = script.front();
        script.pop_front();
        have = true;
      } else if (script.empty() && r.chance(0.7)) {
        cur = rand_op();
        have = true;
      }
    }

    top.clk_i = 0;
    top.mmio_valid_i = have;
    if (have) {
      top.mmio_we_i = cur.we;
      top.mmio_addr_i = cur.addr;
      top.mmio_wdata_i = cur.data;
    } else {  // idle: the other request fields are garbage and must not act
      top.mmio_we_i = r.chance(0.5);
      static const uint16_t junk[] = {RegSqDb,  RegRqDb,    RegCqDb,    RegSrqDb,
                                      RegCmdGo, RegPortMac, RegCmdArg0, RegCmdArg0 + 0x38};
      top.mmio_addr_i = junk[r.range(0, std::size(junk) - 1)];
      top.mmio_wdata_i = r.u64();
    }
    top.sq_db_ready_i = r.chance(p_sq);
    top.rq_db_ready_i = r.chance(p_rq);
    // The engine's write of a QP's state, which holds CMD_GO back a cycle.
    top.qp_err_i = r.chance(0.15);
    top.cnt_tx_pkts_i = cnt[0];
    top.cnt_rx_pkts_i = cnt[1];
    top.cnt_rx_drop_i = cnt[2];
    top.cnt_dma_rd_err_i = cnt[3];
    const bool quiet = r.chance(0.6);
    top.quiet_i = quiet;
    const bool cq_quiet = r.chance(0.6);
    top.cq_quiet_i = cq_quiet;
    top.eval();
    const QpView now_view = view_of(top.qp_query_idx_o);
    top.qp_query_state_i = now_view.state;
    top.qp_query_psn_i = now_view.psn;
    top.eval();

    // ---- read data of the previous cycle's read
    BLK_CHECK(top.mmio_rvalid_o == rd_pending, "mmio_rvalid_o=%d, expected %d", top.mmio_rvalid_o,
              rd_pending);
    if (rd_pending && top.mmio_rvalid_o)
      BLK_CHECK(top.mmio_rdata_o == rd_exp, "read 0x%03x: 0x%016llx, expected 0x%016llx",
                rd_op.addr, (unsigned long long)top.mmio_rdata_o, (unsigned long long)rd_exp);
    rd_pending = false;

    // ---- registered state on the outputs
    BLK_CHECK(top.port_mac_o == mac && top.port_ip_o == ip,
              "port_mac_o=0x%012llx port_ip_o=0x%08x, expected 0x%012llx 0x%08x",
              (unsigned long long)top.port_mac_o, top.port_ip_o, (unsigned long long)mac, ip);
    BLK_CHECK(top.qp_query_idx_o == qidx, "qp_query_idx_o=%u, expected %u (last QP_QUERY)",
              top.qp_query_idx_o, qidx);
    {
      const Bits a = vget(top.cmd_args_o, kArgs * 64);
      for (unsigned i = 0; i < kArgs; i++)
        BLK_CHECK(a.get(64 * i, 64) == args[i], "cmd_args_o ARG%u=0x%016llx, expected 0x%016llx", i,
                  (unsigned long long)a.get(64 * i, 64), (unsigned long long)args[i]);
    }

    // ---- handshake: only a doorbell whose queue is not ready waits
    const bool is_sq = have && cur.we && (cur.addr == RegSqDb || is_bf(cur.addr));
    const bool is_srq = have && cur.we && cur.addr == RegSrqDb;
    const bool is_rq = (have && cur.we && cur.addr == RegRqDb) || is_srq;
    if (have) {
      const bool is_go = cur.we && cur.addr == RegCmdGo;
      const bool exp_ready = is_sq ? top.sq_db_ready_i : is_rq ? top.rq_db_ready_i :
                             is_go ? !top.qp_err_i : true;
      BLK_CHECK(top.mmio_ready_o == exp_ready, "%s 0x%03x: mmio_ready_o=%d, expected %d",
                cur.we ? "write" : "read", cur.addr, top.mmio_ready_o, exp_ready);
    }
    const bool take = have && top.mmio_ready_o;
    if (have && !top.mmio_ready_o && cur.we && cur.addr == RegCmdGo) go_stalls++;
    else if (have && !top.mmio_ready_o) db_stalls++;
    if (is_srq && !top.mmio_ready_o) srq_stalls++;

    // ---- doorbell ports
    BLK_CHECK(top.sq_db_valid_o == is_sq && top.rq_db_valid_o == is_rq,
              "sq_db_valid_o=%d rq_db_valid_o=%d, expected %d %d (request %s 0x%03x)",
              top.sq_db_valid_o, top.rq_db_valid_o, is_sq, is_rq,
              have ? (cur.we ? "write" : "read") : "none", cur.addr);
    const bool exp_cq = take && cur.we && cur.addr == RegCqDb;
    BLK_CHECK(top.cq_db_valid_o == exp_cq, "cq_db_valid_o=%d, expected %d", top.cq_db_valid_o,
              exp_cq);
    if (top.sq_db_valid_o || top.rq_db_valid_o || top.cq_db_valid_o)
      BLK_CHECK(top.db_data_o == db_word(cur.addr, cur.data),
                "%s 0x%04x: db_data_o=0x%016llx, expected 0x%016llx (written 0x%016llx)",
                have ? "write" : "no request", cur.addr, (unsigned long long)top.db_data_o,
                (unsigned long long)db_word(cur.addr, cur.data), (unsigned long long)cur.data);
    if (top.sq_db_valid_o) {
      const unsigned bf = is_bf(cur.addr) ? 8u | ((cur.addr - RegSqBf0) >> 3) : 0u;
      BLK_CHECK(top.db_bf_o == bf, "write 0x%04x: db_bf_o=0x%x, expected 0x%x", cur.addr,
                top.db_bf_o, bf);
    }
    if (top.sq_db_valid_o && top.sq_db_ready_i) sq_seen.push_back(top.db_data_o);
    if (top.rq_db_valid_o && top.rq_db_ready_i) rq_seen.push_back(top.db_data_o);
    cq_dbs += top.cq_db_valid_o;

    // ---- command strobes
    bool exp_wr[4] = {false, false, false, false};
    uint8_t go_op = 0;
    uint32_t go_idx = 0;
    const bool go = take && cur.we && cur.addr == RegCmdGo;
    if (go) {
      go_op = (uint8_t)cur.data;
      go_idx = (uint32_t)(cur.data >> 8) & 0xFFFFFF;
      exp_wr[0] = go_op == CmdQpWrite && go_idx < NQP;
      exp_wr[1] = go_op == CmdCqWrite && go_idx < NCQ;
      exp_wr[2] = go_op == CmdMrWrite && go_idx < NMR;
      exp_wr[3] = go_op == CmdSrqWrite && go_idx < NQP;
    }
    const bool got_wr[4] = {(bool)top.qp_wr_o, (bool)top.cq_wr_o, (bool)top.mr_wr_o,
                            (bool)top.srq_wr_o};
    static const char *wr_name[4] = {"qp_wr_o", "cq_wr_o", "mr_wr_o", "srq_wr_o"};
    for (unsigned k = 0; k < 4; k++) {
      BLK_CHECK(got_wr[k] == exp_wr[k], "%s=%d, expected %d (GO op 0x%02x index %u)", wr_name[k],
                got_wr[k], exp_wr[k], go_op, go_idx);
      if (got_wr[k] && exp_wr[k]) {
        strobes[k]++;
        BLK_CHECK(top.cmd_idx_o == go_idx, "%s: cmd_idx_o=%u, expected %u", wr_name[k],
                  top.cmd_idx_o, go_idx);
        const Bits a = vget(top.cmd_args_o, kArgs * 64);
        if (args[7]) arg7_strobes++;
        for (unsigned i = 0; i < kArgs; i++)
          BLK_CHECK(a.get(64 * i, 64) == args[i], "%s: ARG%u=0x%016llx, expected 0x%016llx",
                    wr_name[k], i, (unsigned long long)a.get(64 * i, 64),
                    (unsigned long long)args[i]);
      }
    }

    // ---- reads: the expected answer for the next cycle
    if (take && !cur.we) {
      rd_pending = true;
      rd_op = cur;
      reads++;
      const uint16_t a = cur.addr;
      uint64_t v = 0;
      if (a == RegDevId) {
        v = kDevId;
      } else if (a == RegCaps) {
        v = caps_ref();
      } else if (a == RegPortMac) {
        v = mac;
      } else if (a == RegPortIp) {
        v = ip;
      } else if (a >= RegCmdArg0 && a < RegCmdGo) {
        v = args[(a - RegCmdArg0) / 8];
        arg_reads++;
        arg_reads_nz += v != 0;
      } else if (a == RegCmdStatus) {
        // Busy only after a QP_WRITE that resets a queue or an MR_WRITE that
        // invalidates, until quiet_i, and after a CQ_WRITE that invalidates,
        // until cq_quiet_i.
        v = (uint64_t)result << 8 | (busy || busy_cq);
        busy_reads += busy || busy_cq;
      } else if (a == RegCmdOut0 || a == RegCmdOut0 + 8) {
        // The OUT registers show the queried QP as the inputs showed it in
        // the previous cycle, so a read in the cycle right after the GO sees
        // the previous query's QP (the driver always reads CMD_STATUS first).
        v = a == RegCmdOut0 ? seen_prev.state : seen_prev.psn;
        out_reads++;
        if (prev_query && !(prev_fresh == seen_prev)) stale_out++;
      } else if (a >= RegCntTx && a <= RegCntTx + 0x18) {
        v = cnt[(a - RegCntTx) / 8];
      }
      rd_exp = v;
    }

    top.clk_i = 1;
    top.eval();

    // ---- model after the edge
    seen_prev = now_view;
    prev_query = false;
    {
      // So does an MR_WRITE that invalidates (ARG0 bit 32 clear); a
      // CQ_WRITE that invalidates (ARG0 bit 8 clear: the CQ's destroy)
      // waits for cq_quiet_i.
      const bool reset_go = go && go_op == CmdQpWrite && go_idx < NQP &&
                            ((args[1] >> 24) & 3) != 0;
      const bool inval_go = go && go_op == CmdMrWrite && go_idx < NMR && !((args[0] >> 32) & 1);
      const bool cq_inval_go = go && go_op == CmdCqWrite && go_idx < NCQ &&
                               !((args[0] >> 8) & 1);
      reset_gos += reset_go;
      inval_gos += inval_go;
      cq_inval_gos += cq_inval_go;
      busy = (reset_go || inval_go) ? true : quiet ? false : busy;
      busy_cq = cq_inval_go ? true : cq_quiet ? false : busy_cq;
    }
    if (take) {
      ops++;
      have = false;
      if (cur.we) {
        writes++;
        const uint16_t a = cur.addr;
        if (a == RegPortMac) mac = cur.data & 0xFFFFFFFFFFFFull;
        if (a == RegPortIp) ip = (uint32_t)cur.data;
        if (a >= RegCmdArg0 && a < RegCmdGo) args[(a - RegCmdArg0) / 8] = cur.data;
        if (a == RegSqDb || is_bf(a)) sq_host.push_back(db_word(a, cur.data));
        bf_words += is_bf(a);
        if (a == RegRqDb || a == RegSrqDb) {
          const int srq = a == RegSrqDb;
          rq_host.push_back(db_word(a, cur.data));
          (srq ? n_srq : n_rq)++;
          rq_switch += rq_last_srq >= 0 && rq_last_srq != srq;
          rq_last_srq = srq;
        }
        if ((a == RegSqDb || a == RegRqDb || a == RegCqDb) && (cur.data >> 63)) db_hi_in++;
        if (a == RegDevId || a == RegCaps || a == RegCmdStatus || a == RegCmdOut0 ||
            a == RegCmdOut0 + 8 || a == RegCntTx || a == RegCntTx + 0x18 ||
            (!mapped(a) && !is_bf(a)))
          ro_writes++;
        if (go) {
          result = !good_op(go_op) ? 1 : go_idx >= op_limit(go_op) ? 2 : 0;
          bad_op += result == 1;
          bad_idx += result == 2;
          srq_bad_idx += result == 2 && go_op == CmdSrqWrite;
          if (go_op == CmdQpQuery) {
            qidx = go_idx;
            prev_query = true;
            prev_fresh = view_of(go_idx);
          }
        }
      }
    }
  }

  // ---- every doorbell exactly once, in order
  auto cmp_db = [&](const char *q, const std::vector<uint64_t> &host,
                    const std::vector<uint64_t> &seen) {
    BLK_CHECK(host.size() == seen.size(), "%s: %zu doorbells written, %zu delivered", q,
              host.size(), seen.size());
    for (size_t i = 0; i < std::min(host.size(), seen.size()); i++)
      if (host[i] != seen[i]) {
        fail("%s doorbell #%zu: delivered 0x%016llx, written 0x%016llx", q, i,
             (unsigned long long)seen[i], (unsigned long long)host[i]);
        break;
      }
  };
  cmp_db("SQ", sq_host, sq_seen);
  cmp_db("RQ/SRQ", rq_host, rq_seen);
  BLK_CHECK(ops == kOps, "only %u of %u MMIO operations done", ops, kOps);
  BLK_CHECK(strobes[0] > 100 && strobes[1] > 100 && strobes[2] > 100 && strobes[3] > 100 &&
                bad_op > 50 && bad_idx > 100 && srq_bad_idx > 20 && out_reads > 300 &&
                stale_out > 10 && sq_host.size() > 3000 && n_rq > 1500 && n_srq > 1500 &&
                rq_switch > 1000 && db_hi_in > 1000 && srq_stalls > 200 && cq_dbs > 500 &&
                db_stalls > 1000 && ro_writes > 200 && arg_reads_nz > 500 && arg7_strobes > 100 &&
                reset_gos > 50 && inval_gos > 20 && cq_inval_gos > 20 && busy_reads > 5 &&
                bf_words > 300 && go_stalls > 100,
            "weak coverage: strobes %u/%u/%u/%u, bad op %u, bad index %u (SRQ %u), OUT reads %u "
            "(%u right after GO), doorbells SQ %zu RQ %u SRQ %u (%u RQ/SRQ switches, %u with "
            "bit 63 written) CQ %u, %u stall cycles (%u SRQ), %u writes to RO/unmapped, %u "
            "non-zero ARG reads, %u strobes with ARG7 set, %u resetting QP_WRITEs, %u "
            "invalidating MR_WRITEs, %u invalidating CQ_WRITEs, %u busy status reads, %u "
            "BlueFlame words, %u CMD_GO stall cycles",
            strobes[0], strobes[1], strobes[2], strobes[3], bad_op, bad_idx, srq_bad_idx, out_reads,
            stale_out, sq_host.size(), n_rq, n_srq, rq_switch, db_hi_in, cq_dbs, db_stalls,
            srq_stalls, ro_writes, arg_reads_nz, arg7_strobes, reset_gos, inval_gos, cq_inval_gos,
            busy_reads, bf_words, go_stalls);
  info("NQp=%u NCq=%u NMr=%u DataW=%u MaxRdOut=%u: CAPS 0x%016llx", NQP, NCQ, NMR, DATAW, MAXRD,
       (unsigned long long)caps_ref());
  info(
      "%u MMIO ops (%u reads, %u writes): QP/CQ/MR/SRQ strobes %u/%u/%u/%u, bad op %u, bad "
      "index %u (SRQ_WRITE %u); doorbells SQ %zu, RQ %u + SRQ %u in one queue (%u switches "
      "between them), CQ %u, %u written with bit 63 set on SQ/RQ/CQ_DB; %u cycles of doorbell "
      "back-pressure (%u on SRQ_DB), %u of CMD_GO held by the engine's QP write; %u OUT reads, "
      "%u CMD_ARG reads (%u non-zero); %u BlueFlame words",
      ops, reads, writes, strobes[0], strobes[1], strobes[2], strobes[3], bad_op, bad_idx,
      srq_bad_idx, sq_host.size(), n_rq, n_srq, rq_switch, cq_dbs, db_hi_in, db_stalls, srq_stalls,
      go_stalls, out_reads, arg_reads, arg_reads_nz, bf_words);
  info(
      "note: %u CMD_OUT reads in the cycle right after a QP_QUERY GO returned the previous "
      "query's QP (OUT registers lag the GO by one cycle)",
      stale_out);
  top.final();
  return finish(vctx);
}
