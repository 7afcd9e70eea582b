// Properties of rnic_rr_arb: the item presented is a valid source's and
// only that source's transfer happens; valid and item are held until taken;
// round robin - a waiting source is passed over at most once. Sources hold
// valid and item until taken (assumed). The item's width (W) does not enter
// the logic's decisions: 8 bits stand for the TX frames' and the CQEs'.
module fv_rnic_rr_arb #(
  parameter int unsigned W = 8
) (
  input logic       clk_i,
  input logic       rst_ni,
  input logic [1:0] valid_i,
  input logic [2*W-1:0] data_i,
  input logic       ready_i
);
  logic [1:0] ready_o;
  logic valid_o;
  logic [W-1:0] data_o;

  rnic_rr_arb #(.Width(W)) dut (
    .clk_i, .rst_ni, .valid_i, .ready_o, .data_i, .valid_o, .ready_i, .data_o
  );

  logic ran;
  always_ff @(posedge clk_i) ran <= ran || !rst_ni;
  always_comb assume (rst_ni == ran);

  logic [1:0] wait_q, passed;
  logic [2*W-1:0] data_q;
  logic [W-1:0] odata_q;
  logic out_wait;
  always_ff @(posedge clk_i) begin
    wait_q <= rst_ni ? (valid_i & ~ready_o) : 2'b00;
    data_q <= data_i;
    out_wait <= rst_ni && valid_o && !ready_i;
    odata_q <= data_o;
    for (int i = 0; i < 2; i++) begin
      if (!rst_ni || !valid_i[i] || ready_o[i]) passed[i] <= 1'b0;
      else if (valid_o && ready_i) passed[i] <= 1'b1;
    end
  end

  always_comb begin
    if (rst_ni) begin
      if (wait_q[0]) begin
        assume (valid_i[0]);
        assume (data_i[W-1:0] == data_q[W-1:0]);
      end
      if (wait_q[1]) begin
        assume (valid_i[1]);
        assume (data_i[2*W-1:W] == data_q[2*W-1:W]);
      end
      assert (valid_o == (valid_i != 2'b00));
      // A source's transfer (its valid and ready) is the item presented,
      // and happens only with the sink's ready, one source at a time.
      // (ready_o without valid_i is allowed and happens.)
      if (valid_i[0] && ready_o[0]) assert (ready_i && (data_o == data_i[W-1:0]));
      if (valid_i[1] && ready_o[1]) assert (ready_i && (data_o == data_i[2*W-1:W]));
      assert (!(valid_i[0] && ready_o[0] && valid_i[1] && ready_o[1]));
      if (valid_o && ready_i) assert ((valid_i & ready_o) != 2'b00);
      // Valid and the item presented held until taken.
      if (out_wait) begin
        assert (valid_o);
        assert (data_o == odata_q);
      end
      // Passed over once at most: a source passed once is served next.
      for (int i = 0; i < 2; i++) begin
        if (passed[i] && valid_o && ready_i) assert (ready_o[i]);
      end
    end
  end
endmodule
