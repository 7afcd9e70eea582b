// Properties of rnic_sq_fetch (2 QPs, 2 WQEs in flight per QP, 2 read slots,
// 256-bit data): every WQE (read or flush item) it hands on is the next one
// of its QP - in order, none skipped or repeated - and lies before the
// producer index of the doorbells accepted so far (the fetcher never
// fetches beyond it) and inside the in-flight window (fewer than InflDepth
// past the completer's done index); reads are answered only while
// outstanding; the output holds valid and data until taken; an ignored
// doorbell (behind the current producer index, or more than 32768 past the
// done index) does not move the producer index.
// Environment (assumed): QP contexts are fixed (RTS, or ERR for a QP chosen
// at the start, ring of 16 WQEs of 64 bytes at address 0); software posts
// at most 16 WQEs past the completed ones; the completer reports only WQEs
// handed on, in order; the DMA answers in order; no
// rewinds, no context writes, no fast-forward skips (docs/verification.md).
module fv_rnic_sq_fetch (
  input logic        clk_i,
  input logic        rst_ni,
  input logic        db_valid_i,
  input logic [63:0] db_data_i,
  input logic        done_valid_i,
  input logic [23:0] done_qpn_i,
  input logic [15:0] done_ci_i,
  input logic        rd_req_ready_i,
  input logic        rd_rsp_valid_i,
  input logic [255:0] rd_rsp_data_i,
  input logic        rd_rsp_last_i,
  input logic        rd_rsp_err_i,
  input logic        wqe_ready_i,
  input logic        drained_ready_i,
  input logic [23:0] query_idx_i
);
  localparam int unsigned WB = rnic_pkg::WqeBits;
  logic db_ready_o, done_ready_o, rewind_ready_o, rd_req_valid_o, rd_rsp_ready_o;
  logic wqe_valid_o, drained_valid_o, query_draining_o, ev_valid_o, quiet_o;
  logic [23:0] ctx_idx_o, drained_qpn_o, ev_qpn_o;
  logic [15:0] ev_idx_o, rd_req_len_o;
  logic [63:0] rd_req_addr_o;
  logic [WB+42-1:0] wqe_o;
  logic [7:0] wqe_epoch_o;
  logic [rnic_pkg::QpCfgW-1:0] cfg;

  rnic_sq_fetch #(.DataW(256), .NQp(2), .InflDepth(2), .Slots(2)) dut (
    .clk_i, .rst_ni, .db_valid_i, .db_ready_o, .db_data_i, .db_bf_i(4'd0), .done_valid_i,
    .done_ready_o,
    .done_qpn_i, .done_ci_i, .rewind_valid_i(1'b0), .rewind_ready_o, .rewind_qpn_i(24'd0),
    .rewind_idx_i(16'd0), .rewind_hold_i(1'b0), .rewind_resume_i(1'b0), .qp_wr_i(1'b0),
    .qp_wr_idx_i(24'd0), .qp_wr_flags_i(8'd0), .ctx_idx_o, .ctx_i(cfg), .rd_req_valid_o,
    .rd_req_ready_i, .rd_req_addr_o, .rd_req_len_o, .rd_rsp_valid_i, .rd_rsp_ready_o,
    .rd_rsp_data_i, .rd_rsp_last_i, .rd_rsp_err_i, .wqe_valid_o, .wqe_ready_i, .wqe_o,
    .wqe_epoch_o, .drained_valid_o, .drained_ready_i, .drained_qpn_o, .query_idx_i,
    .query_draining_o, .ev_valid_o, .ev_qpn_o, .ev_idx_o, .quiet_o, .skip_i(1'b0),
    .skip_cycles_i(32'd0)
  );

  logic ran;
  always_ff @(posedge clk_i) ran <= ran || !rst_ni;
  always_comb assume (rst_ni == ran);
  // Nothing arrives during reset (the memories are written without one).
  always_comb if (!rst_ni) assume (!db_valid_i && !done_valid_i && !rd_rsp_valid_i);

  // QPs in ERR: any choice, fixed for the whole run.
  (* anyconst *) logic [1:0] qerr;
  // The flat rnic_pkg::qp_cfg_t: state, 170 bits to sq_log_size, 4 (16
  // slots), sq_wqe_shift 6 (64 bytes), the rest (sq_base 0 ...) zero. (Yosys
  // 0.23 loses field writes to a struct variable here: the flat vector.)
  assign cfg = {qerr[ctx_idx_o[0]] ? rnic_pkg::QpsErr : rnic_pkg::QpsRts, 170'd0, 5'd4, 4'd6,
                274'd0};

  // Shadow state per QP: producer index, next WQE expected out, done index.
  logic [15:0] pi [2];
  logic [15:0] nxt [2];
  logic [15:0] dn [2];
  logic [2:0] rd_out;        // reads issued, last beat not yet taken
  logic db_take, done_take, out_take, rd_issue, rd_end;
  logic [23:0] db_q, o_qpn;
  logic [15:0] db_pi, o_idx;
  logic o_flush;
  assign db_take = db_valid_i && db_ready_o;
  assign done_take = done_valid_i && done_ready_o;
  assign out_take = wqe_valid_o && wqe_ready_i;
  assign rd_issue = rd_req_valid_o && rd_req_ready_i;
  assign rd_end = rd_rsp_valid_i && rd_rsp_ready_o && rd_rsp_last_i;
  assign db_q = db_data_i[23:0];
  assign db_pi = db_data_i[47:32];
  // The doorbell rule: not behind the producer index, at most 32768 past
  // the done index.
  logic db_ok;
  assign db_ok = (db_q < 24'd2) && ((db_pi - dn[db_q[0]]) <= 16'h8000) &&
                 ((db_pi - dn[db_q[0]]) >= (pi[db_q[0]] - dn[db_q[0]]));
  assign o_idx = wqe_o[WB +: 16];
  assign o_qpn = wqe_o[WB + 16 +: 24];
  assign o_flush = wqe_o[WB + 40];

  always_ff @(posedge clk_i) begin
    if (!rst_ni) begin
      for (int i = 0; i < 2; i++) begin
        pi[i] <= '0;
        nxt[i] <= '0;
        dn[i] <= '0;
      end
      rd_out <= '0;
    end else begin
      if (db_take && db_ok) pi[db_q[0]] <= db_pi;
      if (out_take && (o_qpn < 24'd2)) nxt[o_qpn[0]] <= o_idx + 16'd1;
      if (done_take && (done_qpn_i < 24'd2)) dn[done_qpn_i[0]] <= done_ci_i;
      rd_out <= rd_out + 3'(rd_issue) - 3'(rd_end);
    end
  end

  logic out_wait;
  logic [WB+42-1:0] wqe_q;
  always_ff @(posedge clk_i) begin
    out_wait <= rst_ni && wqe_valid_o && !wqe_ready_i;
    wqe_q <= wqe_o;
  end

  always_comb begin
    if (rst_ni) begin
      // Completer: reports, per QP in order, only WQEs handed on.
      if (done_valid_i) begin
        assume (done_qpn_i < 24'd2);
        assume ((done_ci_i - dn[done_qpn_i[0]]) <= (nxt[done_qpn_i[0]] - dn[done_qpn_i[0]]));
      end
      // Software: a doorbell the RTL takes posts at most the ring's 16 WQEs
      // past the completed ones (up to a full ring of 32768 the RTL cannot
      // tell such a bug from a legal doorbell; beyond, it ignores it).
      if (db_valid_i && db_ok) assume ((db_pi - dn[db_q[0]]) <= 16'd16);
      // DMA: beats only for reads outstanding.
      if (rd_rsp_valid_i) assume (rd_out != 3'd0);

      // Reads go only to RTS QPs and stay within the slots.
      if (rd_req_valid_o) begin
        assert (!qerr[ctx_idx_o[0]]);
        assert (rd_req_len_o == 16'd64);
      end
      assert (rd_out <= 3'd2);
      // Every WQE handed on: the next of its QP, before the producer index,
      // inside the in-flight window.
      if (wqe_valid_o) begin
        assert (o_qpn < 24'd2);
        assert (o_idx == nxt[o_qpn[0]]);
        // With o_idx == nxt (one after the last handed on), this is "never
        // beyond the producer index": the walk from 0 stops at pi.
        assert (o_idx != pi[o_qpn[0]]);
        assert ((o_idx - dn[o_qpn[0]]) < 16'd2);
        assert (o_flush == qerr[o_qpn[0]]);
      end
      if (out_wait) begin
        assert (wqe_valid_o);
        assert (wqe_o == wqe_q);
      end
      // At most two in flight per QP: the completer is never more than
      // InflDepth behind what was handed on.
      for (int i = 0; i < 2; i++) assert ((nxt[i] - dn[i]) <= 16'd2);
    end
  end
endmodule
