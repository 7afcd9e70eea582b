// rnic_tx_arb: picks the next frame for the TX builder, round robin between
// the requester (source 0) and the responder's ACK/READ-response generator
// (source 1).
module rnic_tx_arb (
  input  logic        clk_i,
  input  logic        rst_ni,
  input  logic [1:0]  valid_i,
  output logic [1:0]  ready_o,
  input  logic [2*rnic_pkg::TxdW-1:0] txd_i,
  output logic        valid_o,
  input  logic        ready_i,
  output logic [rnic_pkg::TxdW-1:0] txd_o
);
  logic last_q, sel, hold_q, hold_sel_q, hold_live;
  // A frame presented and not taken stays presented while its source still
  // asks (valid and frame stable until ready); otherwise round robin.
  assign hold_live = hold_q && valid_i[hold_sel_q];
  assign sel = hold_live ? hold_sel_q
             : (valid_i[0] && valid_i[1]) ? !last_q : valid_i[1];
  assign valid_o = valid_i[sel];
  // A plain 2:1 mux: Verilator 5.006 compiles the equivalent indexed part
  // select of this wide vector into a read past a temporary (ASan reports it).
  assign txd_o = sel ? txd_i[2*rnic_pkg::TxdW-1 : rnic_pkg::TxdW] : txd_i[rnic_pkg::TxdW-1:0];
  always_comb begin
    ready_o = '0;
    ready_o[sel] = ready_i;
  end
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      last_q <= 1'b0;
      hold_q <= 1'b0;
      hold_sel_q <= 1'b0;
    end else begin
      if (valid_o && ready_i) last_q <= sel;
      hold_q <= valid_o && !ready_i;
      hold_sel_q <= sel;
    end
  end
endmodule
