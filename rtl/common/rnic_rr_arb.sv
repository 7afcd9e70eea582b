// rnic_rr_arb: two sources onto one valid/ready sink, round robin.
// Used for the TX builder's frames (the requester, source 0, and the
// responder's ACK/READ-response generator, source 1) and for the CQE
// writer's completions (the completer's send CQEs, source 0, and the
// responder's receive CQEs, source 1). The grant is combinational: a lone
// source passes in its own cycle, as if it were wired to the sink.
module rnic_rr_arb #(
  parameter int unsigned Width = 8
) (
  input  logic        clk_i,
  input  logic        rst_ni,
  input  logic [1:0]  valid_i,
  output logic [1:0]  ready_o,
  input  logic [2*Width-1:0] data_i,
  output logic        valid_o,
  input  logic        ready_i,
  output logic [Width-1:0] data_o
);
  logic last_q, sel, hold_q, hold_sel_q, hold_live;
  // An item presented and not taken stays presented while its source still
  // asks (valid and item stable until ready); otherwise round robin.
  assign hold_live = hold_q && valid_i[hold_sel_q];
  assign sel = hold_live ? hold_sel_q
             : (valid_i[0] && valid_i[1]) ? !last_q : valid_i[1];
  assign valid_o = valid_i[sel];
  // A plain 2:1 mux: Verilator 5.006 compiles the equivalent indexed part
  // select of a wide vector into a read past a temporary (ASan reports it).
  assign data_o = sel ? data_i[2*Width-1 : Width] : data_i[Width-1:0];
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
