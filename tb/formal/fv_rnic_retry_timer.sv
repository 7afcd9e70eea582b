// Properties of rnic_retry_timer (NQp 2): commands of any op, QP (in range
// or not) and length (below 32 edges) in any cycle; the expiry port ready
// or not. The model
// skips (skip_i) only as it does: no command that cycle, no expiry waiting,
// 2 to due_o edges (assumed). Asserted at the ports, against a shadow of
// the arm rules (Start arms an idle timer, Restart and Rnr re-arm from now,
// length 0 or Stop disarms, a report disarms) and of the edges that passed:
// - a report names a QP that was armed and whose deadline had passed, with
//   its RNR flag;
// - a report holds its QP and flag until taken; a command for its QP that
//   is not a taking withdraws it;
// - due_o keeps its promise: once given while no report waits, no report
//   appears within the edges it said unless a command came, skips included
//   (the fast-forward's bound is never too large).
module fv_rnic_retry_timer (
  input logic        clk_i,
  input logic        rst_ni,
  input logic        cmd_valid_i,
  input logic [1:0]  cmd_op_i,
  input logic [23:0] cmd_qpn_i,
  input logic [41:0] cmd_cycles_i,
  input logic        exp_ready_i,
  input logic        skip_i,
  input logic [31:0] skip_cycles_i
);
  localparam int unsigned NQp = 2;

  logic exp_valid_o, exp_rnr_o, idle_o;
  logic [23:0] exp_qpn_o;
  logic [31:0] due_o;

  rnic_retry_timer #(.NQp(NQp)) dut (
    .clk_i, .rst_ni, .cmd_valid_i, .cmd_op_i, .cmd_qpn_i, .cmd_cycles_i,
    .exp_valid_o, .exp_ready_i, .exp_qpn_o, .exp_rnr_o, .idle_o, .due_o, .skip_i,
    .skip_cycles_i
  );

  logic ran;
  always_ff @(posedge clk_i) ran <= ran || !rst_ni;
  always_comb assume (rst_ni == ran);

  logic cmd_ok, q;
  assign cmd_ok = cmd_valid_i && (cmd_qpn_i < 24'(NQp));
  assign q = cmd_qpn_i[0];
  logic [47:0] adv;
  assign adv = skip_i ? {16'd0, skip_cycles_i} : 48'd1;

  // Shadow: edges so far, the timers, the report port.
  logic [47:0] now_q;
  logic armed_q [NQp];
  logic rnr_q [NQp];
  logic [47:0] dl_q [NQp];
  logic stay_q;              // the report of the last cycle is still offered
  logic [23:0] rq_q;
  logic rrnr_q;
  logic [47:0] g_q;          // edges still promised without a new report
  logic [47:0] now_prev_q;

  logic taken, withdrawn;
  assign taken = exp_valid_o && exp_ready_i;
  assign withdrawn = exp_valid_o && !exp_ready_i && cmd_ok && (cmd_qpn_i == exp_qpn_o);
  // A report not offered in the last cycle (or taken or withdrawn then):
  // the block's hit of the last cycle.
  logic new_rep;
  assign new_rep = exp_valid_o && !stay_q;
  logic rq;
  assign rq = exp_qpn_o[0];
  // Edges promised from this one: due_o while no report waits (the model
  // skips only then; a waiting report stops the scanner), or what is left
  // of an earlier promise.
  logic [47:0] g, due;
  assign due = idle_o ? 48'(due_o) : '0;
  assign g = (due > g_q) ? due : g_q;

  always_ff @(posedge clk_i) begin
    if (!rst_ni) begin
      now_q <= '0;
      now_prev_q <= '0;
      stay_q <= 1'b0;
      g_q <= '0;
      for (int i = 0; i < NQp; i++) begin
        armed_q[i] <= 1'b0;
        rnr_q[i] <= 1'b0;
      end
    end else begin
      now_q <= now_q + adv;
      now_prev_q <= now_q;
      stay_q <= exp_valid_o && !exp_ready_i && !withdrawn;
      rq_q <= exp_qpn_o;
      rrnr_q <= exp_rnr_o;
      g_q <= cmd_valid_i ? '0 : (g > adv) ? g - adv : '0;
      // The report disarmed its QP (in the last cycle, before that
      // cycle's commands, which excluded its QP); then this cycle's command.
      if (new_rep && (exp_qpn_o < 24'(NQp))) armed_q[rq] <= 1'b0;
      if (cmd_ok) begin
        if ((cmd_op_i == rnic_pkg::TmrStop) || (cmd_cycles_i == '0)) begin
          armed_q[q] <= 1'b0;
        end else if ((cmd_op_i != rnic_pkg::TmrStart) ||
                     !(armed_q[q] && !(new_rep && (rq == q)))) begin
          armed_q[q] <= 1'b1;
          rnr_q[q] <= (cmd_op_i == rnic_pkg::TmrRnr);
          dl_q[q] <= now_q + {6'd0, cmd_cycles_i};
        end
      end
    end
  end

  logic g_last_q;            // the last cycle promised at least its own edge
  logic wd_q;                // the last cycle withdrew its report
  always_ff @(posedge clk_i) begin
    g_last_q <= rst_ni && (g != '0);
    wd_q <= rst_ni && withdrawn;
  end

  always_comb begin
    if (ran && rst_ni) begin
      // Timer lengths and skips below 32 edges (wider values made step 7
      // take minutes; the arithmetic is the same at every width).
      assume (cmd_cycles_i < 42'd32);
      assume (skip_cycles_i < 32'd32);
      // The model's skips.
      if (skip_i) begin
        assume (!cmd_valid_i && idle_o);
        assume ((skip_cycles_i >= 32'd2) && (skip_cycles_i <= due_o));
      end
      assert (idle_o == !exp_valid_o);
      if (exp_valid_o) assert (exp_qpn_o < 24'(NQp));
      // A new report: armed, deadline passed (at the edge of the last
      // cycle, where the block found it), its RNR flag; not promised away.
      if (new_rep) begin
        assert (armed_q[rq]);
        assert (dl_q[rq] <= now_prev_q);
        assert (exp_rnr_o == rnr_q[rq]);
        assert (!g_last_q);
      end
      // An offered report stays until taken or withdrawn.
      if (stay_q) assert (exp_valid_o && (exp_qpn_o == rq_q) && (exp_rnr_o == rrnr_q));
      if (wd_q) assert (!exp_valid_o);
`ifdef FV_COVER_EXP
      // Non-vacuity (expected to fail): a report after a skip.
      assert (!(new_rep && (now_prev_q >= 48'd4)));
`endif
    end
  end
endmodule
