// Properties of rnic_fifo (Width 4, Depth 4): the valid/ready contract on
// both sides, no overflow or underflow, count_o exact, and data out in the
// order they went in (a shadow queue in this wrapper). The producer and
// consumer are free except that the producer keeps valid and data stable
// until taken (assumed); reset is asserted in the first step only.
module fv_rnic_fifo (
  input logic       clk_i,
  input logic       rst_ni,
  input logic       in_valid_i,
  input logic       out_ready_i,
  input logic [3:0] in_data_i
);
  logic in_ready_o, out_valid_o;
  logic [3:0] out_data_o;
  logic [2:0] count_o;

  rnic_fifo #(.Width(4), .Depth(4)) dut (
    .clk_i, .rst_ni, .in_valid_i, .in_ready_o, .in_data_i, .out_valid_o, .out_ready_i,
    .out_data_o, .count_o
  );

  // Reset in the first step only: rst_ni is low while ran is 0 (step 1),
  // high ever after. (Not `ran <= 1`: Yosys would fold a register with
  // a constant input into the constant, and the assumption would forbid the
  // reset itself, which makes every proof vacuous.)
  logic ran;
  always_ff @(posedge clk_i) ran <= ran || !rst_ni;
  always_comb assume (rst_ni == ran);

  // Shadow queue: sh0 is the oldest of n entries. A shift register, unlike
  // the DUT's circular buffer.
  logic [3:0] sh0, sh1, sh2, sh3;
  logic [2:0] n, at;
  logic push, pop;
  assign push = in_valid_i && in_ready_o;
  assign pop = out_valid_o && out_ready_i;
  assign at = n - 3'(pop);   // where a pushed entry lands after the shift
  always_ff @(posedge clk_i) begin
    if (!rst_ni) n <= '0;
    else n <= n + 3'(push) - 3'(pop);
    if (pop) begin
      sh0 <= sh1;
      sh1 <= sh2;
      sh2 <= sh3;
    end
    if (push && (at == 3'd0)) sh0 <= in_data_i;
    if (push && (at == 3'd1)) sh1 <= in_data_i;
    if (push && (at == 3'd2)) sh2 <= in_data_i;
    if (push && (at == 3'd3)) sh3 <= in_data_i;
  end

  // Last cycle's handshake state, for the stability rules.
  logic in_wait, out_wait;
  logic [3:0] in_data_q, out_data_q;
  always_ff @(posedge clk_i) begin
    in_wait <= rst_ni && in_valid_i && !in_ready_o;
    out_wait <= rst_ni && out_valid_o && !out_ready_i;
    in_data_q <= in_data_i;
    out_data_q <= out_data_o;
  end

  always_comb begin
    if (rst_ni) begin
      // Producer contract (assumed): valid and data held until taken.
      if (in_wait) begin
        assume (in_valid_i);
        assume (in_data_i == in_data_q);
      end
      // Consumer side (asserted): an offered entry stays offered, unchanged.
      if (out_wait) begin
        assert (out_valid_o);
        assert (out_data_o == out_data_q);
      end
      // No overflow, no underflow, count exact.
      assert (count_o <= 3'd4);
      assert (count_o == n);
      assert (in_ready_o == (n < 3'd4));
      assert (out_valid_o == (n != 3'd0));
`ifndef FV_NO_DATA
      // In order (bounded proof only: the entries behind the head are not
      // visible at the ports, so induction cannot relate them).
      if (n != 3'd0) assert (out_data_o == sh0);
`endif
    end
  end
endmodule
