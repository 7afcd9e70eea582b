// rnic_atomic_unit: the responder's atomics (FETCH_AND_ADD, CMP_AND_SWP),
// executed beside rnic_rx_engine. The engine checks an atomic (PSN, rkey,
// alignment, responder resources) and hands it over; the unit reads the 8
// bytes, computes, writes the result back and answers with the original
// value, while the engine goes on with the next packet instead of waiting out
// a host read per atomic.
//
// Up to Depth atomics of any QPs are in the unit; reads are issued in order,
// several at a time, and atomics complete in the order they came. An atomic
// whose address an older one in the unit also targets does not read memory:
// it takes the value that one leaves there (forwarding, as an atomic unit's
// cache does), so atomics on one address complete back to back and every
// read-modify-write stays atomic with respect to the others.
//
// Order per QP: the engine holds back a QP's other requests while the unit
// holds an atomic of it (busy_o), and its own jobs for that QP; the unit's
// answer waits for an older engine job of the same QP (the job merge below).
// Duplicates are answered from the last four results of their QP. A refused
// read: NAK (remote access error), the QP's later atomics in the unit are
// dropped (no write, no answer), the engine takes the QP to ERR (err_*).
module rnic_atomic_unit #(
  parameter int unsigned DataW = 256,
  parameter int unsigned NQp = 1024,
  parameter int unsigned Depth = 16   // a power of two
) (
  input  logic        clk_i,
  input  logic        rst_ni,
  // Atomics from the engine (rnic_pkg::at_op_t)
  input  logic        op_valid_i,
  output logic        op_ready_o,
  input  logic [rnic_pkg::AtOpW-1:0] op_i,
  // The unit holds an atomic of this QP, or a failure not yet reported
  input  logic [23:0] busy_qpn_i,
  output logic        busy_o,
  // 8-byte host memory reads and writes
  output logic        rd_req_valid_o,
  input  logic        rd_req_ready_i,
  output logic [63:0] rd_req_addr_o,
  output logic [15:0] rd_req_len_o,
  input  logic        rd_rsp_valid_i,
  output logic        rd_rsp_ready_o,
  input  logic [DataW-1:0] rd_rsp_data_i,
  input  logic        rd_rsp_last_i,
  input  logic        rd_rsp_err_i,
  output logic        wr_valid_o,
  input  logic        wr_ready_i,
  output logic [63:0] wr_addr_o,
  output logic [15:0] wr_len_o,
  output logic [DataW-1:0] wr_data_o,
  output logic        wr_last_o,
  // The engine's responder jobs in, all responder jobs out (rnic_pkg::rsp_job_t)
  input  logic        eng_job_valid_i,
  output logic        eng_job_ready_o,
  input  logic [rnic_pkg::RspJobW-1:0] eng_job_i,
  output logic        job_valid_o,
  input  logic        job_ready_i,
  output logic [rnic_pkg::RspJobW-1:0] job_o,
  // A refused read: the engine takes the QP to ERR and flushes it
  output logic        err_valid_o,
  input  logic        err_ready_i,
  output logic [23:0] err_qpn_o,
  // A QP's RQ reset (creation, RESET) forgets its results
  input  logic        qp_clr_i,
  input  logic [23:0] qp_clr_idx_i,
  // Nothing in the unit (fast-forward, the command path's quiet check)
  output logic        quiet_o
);
  localparam int unsigned QpW = $clog2(NQp);
  localparam int unsigned IdxW = $clog2(Depth);
  localparam int unsigned NAc = 4;

  // ---------------------------------------------------------------------------
  // Entries, oldest at head_q; iss_q is the next one to issue its read
  // ---------------------------------------------------------------------------
  logic [176:0] arg_q [Depth];  // {psn, msn, swap, cmp, cas}
  logic [23:0] qpn_q [Depth];
  logic [60:0] addr_q [Depth];   // address / 8
  logic [Depth-1:0] v_q;         // live
  logic [Depth-1:0] dup_q;
  logic [Depth-1:0] fwd_q;       // takes src_q's result instead of reading
  logic [IdxW-1:0] src_q [Depth];
  logic [Depth-1:0] yng_q;       // a younger entry forwards from this one
  logic [Depth-1:0] got_q;       // read data in
  logic [Depth-1:0] rerr_q;      // read refused
  logic [Depth-1:0] kill_q;      // an older atomic of its QP failed
  logic [63:0] rdat_q [Depth];
  // What an entry left in memory and whether it failed, written when it
  // completes: the entries that forward from it read them later (an entry
  // taking its slot writes them only when it completes itself, after them).
  logic [63:0] res_q [Depth];
  logic [Depth-1:0] res_err_q;
  logic [IdxW:0] head_q, tail_q, iss_q;
  logic wdone_q;                 // the head's write is taken
  logic err_v_q;
  logic [23:0] err_qpn_q;

  logic [IdxW-1:0] hi, ti, ii;
  assign hi = head_q[IdxW-1:0];
  assign ti = tail_q[IdxW-1:0];
  assign ii = iss_q[IdxW-1:0];

  // ---------------------------------------------------------------------------
  // Entry
  // ---------------------------------------------------------------------------
  rnic_pkg::at_op_t in;
  assign in = op_i;
  logic push, full;
  assign full = (tail_q[IdxW] != head_q[IdxW]) && (ti == hi);
  assign op_ready_o = !full;
  assign push = op_valid_i && op_ready_o;
  // The youngest live entry on the same address (at most one has no
  // younger one): the new entry forwards from it.
  logic m_any;
  logic [IdxW-1:0] m_idx;
  // (Each block of this unit evaluates only in a cycle that needs it: the
  // simulation cost of an idle unit stays small.)
  always_comb begin
    m_any = 1'b0;
    m_idx = '0;
    if (op_valid_i && (v_q != '0)) begin
      for (int i = 0; i < Depth; i++) begin
        if (v_q[i] && !dup_q[i] && !yng_q[i] && (addr_q[i] == in.addr[63:3])) begin
          m_any = 1'b1;
          m_idx = IdxW'(i);
        end
      end
    end
  end

  // ---------------------------------------------------------------------------
  // Reads, in entry order; their data come back in the same order
  // ---------------------------------------------------------------------------
  logic iss_any, iss_rd, iss_adv;
  logic rf_in_ready, rf_out_valid, rf_pop;
  logic [IdxW-1:0] rf_idx;
  logic [IdxW:0] rf_count;
  assign iss_any = (iss_q != tail_q);
  assign iss_rd = iss_any && !fwd_q[ii] && !dup_q[ii];
  assign rd_req_valid_o = iss_rd && rf_in_ready;
  assign rd_req_addr_o = {addr_q[ii], 3'd0};
  assign rd_req_len_o = 16'd8;
  assign iss_adv = iss_any && (!iss_rd || (rd_req_valid_o && rd_req_ready_i));
  assign rd_rsp_ready_o = 1'b1;
  assign rf_pop = rd_rsp_valid_i && rd_rsp_last_i;

  rnic_fifo #(.Width(IdxW), .Depth(Depth)) u_rd_order (
    .clk_i, .rst_ni,
    .in_valid_i(rd_req_valid_o && rd_req_ready_i), .in_ready_o(rf_in_ready), .in_data_i(ii),
    .out_valid_o(rf_out_valid), .out_ready_i(rf_pop), .out_data_o(rf_idx),
    .count_o(rf_count)
  );

  // ---------------------------------------------------------------------------
  // Completion at the head: compute, write, answer
  // ---------------------------------------------------------------------------
  rnic_pkg::at_op_t h;
  always_comb begin
    h = '0;
    if (v_q[hi]) begin
      {h.psn, h.msn, h.swap, h.cmp, h.cas} = arg_q[hi];
      h.qpn = qpn_q[hi];
      h.addr = {addr_q[hi], 3'd0};
      h.dup = dup_q[hi];
    end
  end
  logic h_rdy;
  assign h_rdy = v_q[hi] && (iss_q != head_q) && (dup_q[hi] || fwd_q[hi] || got_q[hi]);
  logic [63:0] orig, newv;
  logic herr, cas_ok, need_wr, h_ok;
  assign orig = fwd_q[hi] ? res_q[src_q[hi]] : rdat_q[hi];
  assign herr = fwd_q[hi] ? res_err_q[src_q[hi]] : rerr_q[hi];
  assign cas_ok = (orig == h.cmp);
  assign newv = !h.cas ? orig + h.swap : cas_ok ? h.swap : orig;
  assign h_ok = !dup_q[hi] && !kill_q[hi] && !herr;
  assign need_wr = h_ok && (!h.cas || cas_ok);

  // Duplicates: the results kept per QP (not reset: a QP's RQ reset clears
  // its entries)
  logic ac_v_q [NQp * NAc];
  logic [23:0] ac_psn_q [NQp * NAc];
  logic [63:0] ac_val_q [NQp * NAc];
  logic [1:0] ac_ptr_q [NQp];
  logic [QpW-1:0] hq;
  assign hq = h.qpn[QpW-1:0];
  logic ac_hit;
  logic [63:0] ac_val;
  always_comb begin
    ac_hit = 1'b0;
    ac_val = '0;
    if (dup_q[hi]) begin
      for (int i = 0; i < NAc; i++) begin
        if (ac_v_q[{hq, 2'(i)}] && (ac_psn_q[{hq, 2'(i)}] == h.psn)) begin
          ac_hit = 1'b1;
          ac_val = ac_val_q[{hq, 2'(i)}];
        end
      end
    end
  end

  // The answer: the original value, a duplicate's kept value, or the NAK of
  // a refused read; a dropped atomic or a duplicate too old has none.
  logic has_job, err_rep, h_wdone, h_jobv, h_ret, wr_hs;
  rnic_pkg::rsp_job_t ujob;
  always_comb begin
    ujob = '0;
    if (h_rdy) begin
      ujob.kind = (herr && !dup_q[hi]) ? rnic_pkg::JobAck : rnic_pkg::JobAtomic;
      ujob.qpn = h.qpn;
      ujob.psn = h.psn;
      ujob.syn = (herr && !dup_q[hi]) ? rnic_pkg::AethNakRemAcc : rnic_pkg::AethAck;
      ujob.msn = h_ok ? h.msn + 24'd1 : h.msn;
      ujob.orig = dup_q[hi] ? ac_val : orig;
      ujob.dup = dup_q[hi];
    end
  end
  assign has_job = !kill_q[hi] && (dup_q[hi] ? ac_hit : 1'b1);
  assign err_rep = !dup_q[hi] && !kill_q[hi] && herr;
  assign wr_valid_o = h_rdy && need_wr && !wdone_q;
  assign wr_hs = wr_valid_o && wr_ready_i;
  assign wr_addr_o = {addr_q[hi], 3'd0};
  assign wr_len_o = 16'd8;
  assign wr_data_o = DataW'(newv);
  assign wr_last_o = 1'b1;
  // The answer leaves after the write was taken (not in the same cycle: the
  // job path does not depend on the DMA write port's ready); a failure waits
  // for the report register.
  assign h_wdone = !need_wr || wdone_q;
  assign h_jobv = h_rdy && has_job && h_wdone && !(err_rep && err_v_q);

  // Job merge: the unit's answer goes first unless the engine's job is of
  // the same QP (then the engine's is older: the engine makes no job for a
  // QP the unit holds).
  logic [23:0] eng_qpn;
  assign eng_qpn = eng_job_i[rnic_pkg::RspJobW-3 -: 24];   // rsp_job_t.qpn
  logic u_go;
  assign u_go = h_jobv && !(eng_job_valid_i && (eng_qpn == h.qpn));
  assign job_valid_o = u_go || eng_job_valid_i;
  assign job_o = u_go ? ujob : eng_job_i;
  assign eng_job_ready_o = job_ready_i && !u_go;
  assign h_ret = h_rdy && h_wdone && !(err_rep && err_v_q) && (!has_job || (u_go && job_ready_i));

  // ---------------------------------------------------------------------------
  // Busy QPs, failure report, quiet
  // ---------------------------------------------------------------------------
  always_comb begin
    busy_o = err_v_q && (err_qpn_q == busy_qpn_i);
    if (v_q != '0) begin
      for (int i = 0; i < Depth; i++) begin
        if (v_q[i] && (qpn_q[i] == busy_qpn_i)) busy_o = 1'b1;
      end
    end
  end
  assign err_valid_o = err_v_q;
  assign err_qpn_o = err_qpn_q;
  assign quiet_o = (head_q == tail_q) && !err_v_q;

  // A failure drops the QP's later atomics: those in the unit, and one
  // coming in now or before the engine took the report.
  logic fail_now, in_kill;
  assign fail_now = h_ret && err_rep;
  assign in_kill = (err_v_q && (err_qpn_q == in.qpn)) || (fail_now && (h.qpn == in.qpn));

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      v_q <= '0;
      dup_q <= '0;
      fwd_q <= '0;
      yng_q <= '0;
      got_q <= '0;
      rerr_q <= '0;
      kill_q <= '0;
      res_err_q <= '0;
      head_q <= '0;
      tail_q <= '0;
      iss_q <= '0;
      wdone_q <= 1'b0;
      err_v_q <= 1'b0;
      err_qpn_q <= '0;
    end else begin
      if (iss_adv) iss_q <= iss_q + 1'b1;
      if (rd_rsp_valid_i && rf_out_valid) begin
        if (rd_rsp_err_i) rerr_q[rf_idx] <= 1'b1;
        if (rd_rsp_last_i) got_q[rf_idx] <= 1'b1;
      end
      if (wr_hs) wdone_q <= 1'b1;
      if (err_valid_o && err_ready_i) err_v_q <= 1'b0;
      if (h_ret) begin
        v_q[hi] <= 1'b0;
        res_err_q[hi] <= herr;
        wdone_q <= 1'b0;
        head_q <= head_q + 1'b1;
        if (err_rep) begin
          err_v_q <= 1'b1;
          err_qpn_q <= h.qpn;
          for (int i = 0; i < Depth; i++) begin
            if (v_q[i] && (qpn_q[i] == h.qpn)) kill_q[i] <= 1'b1;
          end
        end
      end
      if (push) begin
        v_q[ti] <= 1'b1;
        dup_q[ti] <= in.dup;
        fwd_q[ti] <= !in.dup && m_any;
        yng_q[ti] <= 1'b0;
        got_q[ti] <= 1'b0;
        rerr_q[ti] <= 1'b0;
        kill_q[ti] <= in_kill;
        tail_q <= tail_q + 1'b1;
        if (!in.dup && m_any) yng_q[m_idx] <= 1'b1;
      end
    end
  end

  // The entries' data: not reset (v_q says which are live), so that they
  // are plain registers or RAM without a reset network.
  always_ff @(posedge clk_i) begin
    if (rd_rsp_valid_i && rf_out_valid) rdat_q[rf_idx] <= rd_rsp_data_i[63:0];
    if (h_ret) res_q[hi] <= need_wr ? newv : orig;
    if (push) begin
      arg_q[ti] <= {in.psn, in.msn, in.swap, in.cmp, in.cas};
      qpn_q[ti] <= in.qpn;
      addr_q[ti] <= in.addr[63:3];
      src_q[ti] <= m_idx;
    end
  end

  // The results kept for duplicates
  logic ac_wr;
  assign ac_wr = h_ret && h_ok;
  always_ff @(posedge clk_i) begin
    if (ac_wr) begin
      ac_v_q[{hq, ac_ptr_q[hq]}] <= 1'b1;
      ac_psn_q[{hq, ac_ptr_q[hq]}] <= h.psn;
      ac_val_q[{hq, ac_ptr_q[hq]}] <= orig;
      ac_ptr_q[hq] <= ac_ptr_q[hq] + 2'd1;
    end
    if (qp_clr_i && (qp_clr_idx_i < 24'(NQp))) begin
      ac_ptr_q[qp_clr_idx_i[QpW-1:0]] <= '0;
      for (int i = 0; i < NAc; i++) ac_v_q[{qp_clr_idx_i[QpW-1:0], 2'(i)}] <= 1'b0;
    end
  end

  logic unused;
  if (DataW > 64) begin : g_unused_wide
    assign unused = ^{rd_rsp_data_i[DataW-1:64], rf_count, h.addr, h.dup, in.addr[2:0]};
  end else begin : g_unused
    assign unused = ^{rf_count, h.addr, h.dup, in.addr[2:0]};
  end

`ifdef RNIC_ASSERT
  /* verilator coverage_off */
  // Simulation checks: read data come back only for a read issued; the
  // entries on one address form one chain (at most one without a younger).
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
    end else begin
      if (rd_rsp_valid_i) assert (rf_out_valid);
      if (push && m_any) assert (!(m_idx == hi && !v_q[hi]));
    end
  end
  /* verilator coverage_on */
`endif
endmodule
