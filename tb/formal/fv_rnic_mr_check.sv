// Properties of rnic_mr_check: its verdict and bus address are those of the
// check written as its specification reads, with the bounds as 65-bit sums
// (va_i >= va and va_i + len_i <= va + len); the block computes the bounds
// in 64 bits from the offset into the MR. Combinational: every input is
// free in every step.
module fv_rnic_mr_check (
  input logic        clk_i,
  input logic [rnic_pkg::MrCfgW-1:0] mr_i,
  input logic [31:0] key_i,
  input logic        rkey_i,
  input logic [23:0] qpn_i,
  input logic [15:0] pd_i,
  input logic [63:0] va_i,
  input logic [31:0] len_i,
  input logic [3:0]  access_i
);
  logic ok_o;
  logic [63:0] bus_o;

  rnic_mr_check dut (
    .mr_i, .key_i, .rkey_i, .qpn_i, .pd_i, .va_i, .len_i, .access_i, .ok_o, .bus_o
  );

  rnic_pkg::mr_cfg_t mr;
  logic [64:0] end_req, end_mr;
  logic ok_ref;
  assign mr = mr_i;
  assign end_req = {1'b0, va_i} + {33'd0, len_i};
  assign end_mr = {1'b0, mr.va} + {1'b0, mr.len};
  assign ok_ref = mr.valid && (mr.key == key_i[7:0]) && (mr.pd == pd_i) &&
                  ((access_i & ~mr.access[3:0]) == 4'd0) &&
                  (!mr.is_mw || (rkey_i && (!mr.mw_type2 || (mr.mw_qpn == qpn_i)))) &&
                  (va_i >= mr.va) && (end_req <= end_mr);

  always_ff @(posedge clk_i) begin
    assert (ok_o == ok_ref);
    if (ok_ref) assert (bus_o == mr.iova + (va_i - mr.va));
  end
endmodule
