// Properties of rnic_ack_delay (4 QPs, Delay 2) against the contract of a
// delayed ACK: a debt opens with set_i (set wins over a clr_i of the same
// cycle) and closes with clr_i, with a context write (rst_i) or with the
// ACK taken for its QP; this wrapper keeps each QP's debt and how long it
// has been open. With the engine taking every due ACK at once (take_i ==
// due_o):
//   - an ACK is due only for an open debt, never before the debt has been
//     open Delay + 1 cycles (no ACK for nothing, none early: the debt
//     reaches the queue a cycle after set_i and waits Delay at its head);
//   - no debt stays open longer than NQp x (Delay + 1) cycles, the wait
//     behind every other QP's ACK (none is lost).
// Reset is asserted in the first step only.
module fv_rnic_ack_delay (
  input logic       clk_i,
  input logic       rst_ni,
  input logic       set_i,
  input logic       clr_i,
  input logic [1:0] qpn_i,
  input logic       rst_i,
  input logic [1:0] rst_qpn_i
);
  localparam int unsigned NQp = 4;
  localparam int unsigned Delay = 2;
  localparam int unsigned Bound = NQp * (Delay + 1);

  logic valid_o, due_o, take_i;
  logic [1:0] qpn_o;
  assign take_i = due_o;

  rnic_ack_delay #(.NQp(NQp), .Delay(Delay)) dut (
    .clk_i, .rst_ni, .set_i, .clr_i, .qpn_i, .rst_i, .rst_qpn_i,
    .valid_o, .due_o, .qpn_o, .take_i
  );

  logic ran;
  always_ff @(posedge clk_i) ran <= ran || !rst_ni;
  always_comb assume (rst_ni == ran);

  // Each QP's debt and the cycles it has been open.
  logic [NQp-1:0] open_q;
  logic [4:0] wait_q [NQp];
  always_ff @(posedge clk_i) begin
    for (int i = 0; i < NQp; i++) begin
      if (!rst_ni) begin
        open_q[i] <= 1'b0;
        wait_q[i] <= '0;
      end else if (set_i && (qpn_i == 2'(i))) begin
        // A debt opened again while open is the same debt, but one opened
        // as its ACK is taken is a new one (its QP goes to the queue's end).
        open_q[i] <= 1'b1;
        wait_q[i] <= (open_q[i] && !(take_i && (qpn_o == 2'(i)))) ? wait_q[i] + 5'd1 : 5'd1;
      end else if ((clr_i && (qpn_i == 2'(i))) || (rst_i && (rst_qpn_i == 2'(i))) ||
                   (take_i && (qpn_o == 2'(i)))) begin
        open_q[i] <= 1'b0;
        wait_q[i] <= '0;
      end else if (open_q[i]) begin
        wait_q[i] <= wait_q[i] + 5'd1;
      end
    end
  end

  always_comb begin
    if (rst_ni) begin
      if (due_o) begin
        assert (valid_o);
        assert (open_q[qpn_o]);
        assert (wait_q[qpn_o] >= 5'(Delay + 1));
      end
      for (int i = 0; i < NQp; i++) assert (wait_q[i] <= 5'(Bound));
    end
  end
endmodule
