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
//
// Fast-forward (docs/time-model.md): without commands and expiries now_q and
// scan_q are the only flops that move. due_o tells the model how many edges
// from this one cannot report an expiry; skip_i makes this edge stand for
// skip_cycles_i idle edges (both counters advance by that much), which the
// model only does for at most due_o edges while no command comes. The bound
// is exact while one QP is armed that was armed alone (the scanner's arrival
// at that QP after its deadline), else the earliest deadline armed since none
// was. It depends on commands and expiries only, not on the scanner's walk,
// so a skip leaves it as the edges would.
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
  output logic        exp_rnr_o,      // 1: an RNR wait ended, 0: ACK timeout
  // Fast-forward: no expiry waiting; edges before the next possible expiry
  // (saturated); this edge stands for skip_cycles_i edges
  output logic        idle_o,
  output logic [31:0] due_o,
  input  logic        skip_i,
  input  logic [31:0] skip_cycles_i
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

  // Edges this one stands for.
  logic [47:0] adv;
  assign adv = skip_i ? {16'd0, skip_cycles_i} : 48'd1;

  // Armed QPs: how many, the earliest deadline armed since none was (a lower
  // bound of every armed deadline), and the QP and deadline when exactly one
  // is armed and known (one_v_q).
  logic [QpW:0] n_armed_q, n_armed_d;
  logic [47:0] lb_q, one_dl_q, new_dl;
  logic [QpW-1:0] one_qp_q;
  logic one_v_q;
  logic arm_new, disarm_old;
  assign new_dl = now_q + {6'd0, cmd_cycles_i};
  assign arm_new = cmd_arm && !armed_q[cq];
  assign disarm_old = cmd_disarm && armed_q[cq];
  always_comb begin
    n_armed_d = n_armed_q;
    if (arm_new) n_armed_d = n_armed_d + 1'b1;
    if (disarm_old) n_armed_d = n_armed_d - 1'b1;
    if (hit) n_armed_d = n_armed_d - 1'b1;
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      n_armed_q <= '0;
      lb_q <= '1;
      one_v_q <= 1'b0;
      one_qp_q <= '0;
      one_dl_q <= '0;
    end else begin
      n_armed_q <= n_armed_d;
      if (n_armed_d == '0) lb_q <= '1;
      else if (cmd_arm && (new_dl < lb_q)) lb_q <= new_dl;
      // One armed after an arm: it is that QP. Still one and nothing armed
      // or disarmed: unchanged. Otherwise not known.
      if ((n_armed_d == (QpW+1)'(1)) && cmd_arm) begin
        one_v_q <= 1'b1;
        one_qp_q <= cq;
        one_dl_q <= new_dl;
      end else if (!((n_armed_d == (QpW+1)'(1)) && (n_armed_q == (QpW+1)'(1)))) begin
        one_v_q <= 1'b0;
      end
    end
  end

  // Edges until now_q reaches the deadline, then until the scanner is at the QP.
  logic [47:0] wait_lb, wait_one, due_w;
  logic [QpW-1:0] gap;
  assign wait_lb = (lb_q > now_q) ? lb_q - now_q : '0;
  assign wait_one = (one_dl_q > now_q) ? one_dl_q - now_q : '0;
  assign gap = one_qp_q - (scan_q + wait_one[QpW-1:0]);
  always_comb begin
    if (n_armed_q == '0) due_w = '1;
    else if (one_v_q) due_w = wait_one + {{(48-QpW){1'b0}}, gap};
    else due_w = wait_lb;
  end
  assign due_o = (due_w[47:32] != '0) ? '1 : due_w[31:0];
  assign idle_o = !exp_v_q;

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
      now_q <= now_q + adv;
      if (!exp_v_q) scan_q <= scan_q + adv[QpW-1:0];
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
    if (cmd_arm) deadline_q[cq] <= new_dl;
  end
endmodule
