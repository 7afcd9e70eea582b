// rnic_retry_timer: the requester's per-QP transport timer (local ACK timeout
// and RNR wait).
//
// One deadline per QP against a free-running cycle counter. The completer
// starts, restarts or stops a QP's timer with one command per cycle; a
// scanner visits one QP per cycle and reports an armed QP whose deadline has
// passed (the timer disarms itself when it reports). A deadline is therefore
// seen at most NQp cycles late; docs/transport.md gives the numbers. A
// command for the QP whose expiry is waiting to be taken cancels that expiry:
// the completer has news for the QP that make the old deadline moot.
module rnic_retry_timer #(
  parameter int unsigned NQp = 1024
) (
  input  logic        clk_i,
  input  logic        rst_ni,
  // Commands (no back-pressure): op per rnic_pkg::Tmr*, cycles = 0 disarms
  input  logic        cmd_valid_i,
  input  logic [1:0]  cmd_op_i,
  input  logic [23:0] cmd_qpn_i,
  input  logic [41:0] cmd_cycles_i,
  // Expiry
  output logic        exp_valid_o,
  input  logic        exp_ready_i,
  output logic [23:0] exp_qpn_o,
  output logic        exp_rnr_o       // 1: an RNR wait ended, 0: ACK timeout
);
  localparam int unsigned QpW = $clog2(NQp);

  logic [47:0] now_q;
  logic [47:0] deadline_q [NQp];
  logic [NQp-1:0] armed_q;
  logic [NQp-1:0] rnr_q;
  logic [QpW-1:0] scan_q;

  logic exp_v_q, exp_rnr_q;
  logic [QpW-1:0] exp_q;

  assign exp_valid_o = exp_v_q;
  assign exp_qpn_o = 24'(exp_q);
  assign exp_rnr_o = exp_rnr_q;

  logic cmd_ok;
  logic [QpW-1:0] cq;
  assign cmd_ok = cmd_valid_i && (cmd_qpn_i < 24'(NQp));
  assign cq = cmd_qpn_i[QpW-1:0];

  // Start arms only an idle timer (a new request behind outstanding ones does
  // not push the deadline out); Restart and Rnr re-arm; cycles = 0 disarms.
  logic cmd_arm, cmd_disarm;
  assign cmd_arm = cmd_ok && (cmd_cycles_i != '0) &&
                   ((cmd_op_i != rnic_pkg::TmrStart) || !armed_q[cq]) &&
                   (cmd_op_i != rnic_pkg::TmrStop);
  assign cmd_disarm = cmd_ok && ((cmd_op_i == rnic_pkg::TmrStop) || (cmd_cycles_i == '0));

  logic hit;
  assign hit = !exp_v_q && armed_q[scan_q] && (now_q >= deadline_q[scan_q]) &&
               !(cmd_ok && (cq == scan_q));

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      now_q <= '0;
      armed_q <= '0;
      rnr_q <= '0;
      scan_q <= '0;
      exp_v_q <= 1'b0;
      exp_rnr_q <= 1'b0;
      exp_q <= '0;
    end else begin
      now_q <= now_q + 48'd1;
      if (!exp_v_q) scan_q <= scan_q + 1'b1;
      if (hit) begin
        exp_v_q <= 1'b1;
        exp_q <= scan_q;
        exp_rnr_q <= rnr_q[scan_q];
        armed_q[scan_q] <= 1'b0;
      end else if (exp_v_q && (exp_ready_i || (cmd_ok && (cq == exp_q)))) begin
        exp_v_q <= 1'b0;
      end
      if (cmd_arm) begin
        armed_q[cq] <= 1'b1;
        rnr_q[cq] <= (cmd_op_i == rnic_pkg::TmrRnr);
      end else if (cmd_disarm) begin
        armed_q[cq] <= 1'b0;
      end
    end
  end

  always_ff @(posedge clk_i) begin
    if (cmd_arm) deadline_q[cq] <= now_q + {6'd0, cmd_cycles_i};
  end
endmodule
