// rnic_fsm_cover: coverage points of one state register, for coverage builds
// (Verilator --coverage-user with RNIC_COVER defined; scripts/coverage.sh).
// Each state 0..NStates-1 is a point (the register holds it at a clock edge
// out of reset), and so is each change from one state to another. Without
// RNIC_COVER the module is empty; the FSMs instantiate it only under
// RNIC_COVER, so synthesis never sees it.
module rnic_fsm_cover #(
  parameter int unsigned StW = 4,
  parameter int unsigned NStates = 16
) (
  input logic           clk_i,
  input logic           rst_ni,
  input logic [StW-1:0] st_i
);
`ifdef RNIC_COVER
  logic [StW-1:0] prev_q;
  logic prev_v_q;  // prev_q holds a state sampled out of reset
  logic chg;       // the state changed at this edge (tested first: cheap)
  assign chg = rst_ni && prev_v_q && (prev_q != st_i);

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      prev_q <= '0;
      prev_v_q <= 1'b0;
    end else begin
      prev_q <= st_i;
      prev_v_q <= 1'b1;
    end
  end

  for (genvar s = 0; s < NStates; s++) begin : g_st
    c_state: cover property (@(posedge clk_i) rst_ni && st_i == StW'(s));
    for (genvar t = 0; t < NStates; t++) begin : g_to
      if (s != t) begin : g_tr
        c_trans: cover property (@(posedge clk_i)
                                 chg && prev_q == StW'(s) && st_i == StW'(t));
      end
    end
  end
`else
  logic unused_cover;
  assign unused_cover = ^{clk_i, rst_ni, st_i, 32'(NStates)};
`endif
endmodule
