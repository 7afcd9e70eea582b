// Properties of rnic_uniq_fifo (Width 2: four values, four entries): the
// values come out in the order they were first offered, each once while it
// waits (a shadow queue in this wrapper that holds a value only if it does
// not hold it already, the one leaving excepted), and an offered value is
// never lost (the wrapper's queue has room for every value, so the FIFO
// must take each one the shadow takes). The consumer keeps nothing stable;
// reset is asserted in the first step only.
module fv_rnic_uniq_fifo (
  input logic       clk_i,
  input logic       rst_ni,
  input logic       in_valid_i,
  input logic       out_ready_i,
  input logic [1:0] in_data_i
);
  logic out_valid_o;
  logic [1:0] out_data_o;

  rnic_uniq_fifo #(.Width(2)) dut (
    .clk_i, .rst_ni, .in_valid_i, .in_data_i, .out_valid_o, .out_ready_i, .out_data_o
  );

  logic ran;
  always_ff @(posedge clk_i) ran <= ran || !rst_ni;
  always_comb assume (rst_ni == ran);

  // Shadow queue: sh[0] is the oldest of n entries (a shift register).
  logic [1:0] sh [4];
  logic [2:0] n, at;
  logic pop, held, take;
  assign pop = out_valid_o && out_ready_i;
  // Held by the shadow after this cycle's pop: entries 1..n-1 if one
  // leaves, 0..n-1 otherwise.
  always_comb begin
    held = 1'b0;
    for (int i = 0; i < 4; i++) begin
      if ((3'(i) < n) && (sh[i] == in_data_i) && !(pop && (i == 0))) held = 1'b1;
    end
  end
  assign take = in_valid_i && !held;
  assign at = n - 3'(pop);
  always_ff @(posedge clk_i) begin
    if (!rst_ni) n <= '0;
    else n <= n + 3'(take) - 3'(pop);
    if (pop) begin
      sh[0] <= sh[1];
      sh[1] <= sh[2];
      sh[2] <= sh[3];
    end
    for (int i = 0; i < 4; i++) begin
      if (take && (at == 3'(i))) sh[i] <= in_data_i;
    end
  end

  always_comb begin
    if (rst_ni) begin
      assert (n <= 3'd4);
      assert (out_valid_o == (n != 3'd0));
      if (n != 3'd0) assert (out_data_o == sh[0]);
    end
  end
endmodule
