// rnic_mr_check: the protection check of one memory access against the MR
// context its key selects: index, key byte, PD, access rights and bounds.
// A memory window is only usable as an rkey, and a type 2 window only by
// the QP it is bound to. Passing accesses get their bus (IOVA) address.
module rnic_mr_check (
  input  logic [rnic_pkg::MrCfgW-1:0] mr_i,
  input  logic [31:0] key_i,
  input  logic        rkey_i,     // the key came from the peer
  input  logic [23:0] qpn_i,      // the QP making the access
  input  logic [15:0] pd_i,
  input  logic [63:0] va_i,
  input  logic [31:0] len_i,
  input  logic [3:0]  access_i,   // rights the access needs (ibv_access_flags bits)
  output logic        ok_o,
  output logic [63:0] bus_o
);
  rnic_pkg::mr_cfg_t mr;
  logic [64:0] end_req, end_mr;

  assign mr = mr_i;
  assign end_req = {1'b0, va_i} + {33'd0, len_i};
  assign end_mr = {1'b0, mr.va} + {1'b0, mr.len};
  assign ok_o = mr.valid && (mr.key == key_i[7:0]) && (mr.pd == pd_i) &&
                ((access_i & ~mr.access[3:0]) == 4'd0) &&
                (!mr.is_mw || (rkey_i && (!mr.mw_type2 || (mr.mw_qpn == qpn_i)))) &&
                (va_i >= mr.va) && (end_req <= end_mr);
  assign bus_o = mr.iova + (va_i - mr.va);
  // The index bits selected the MR before it got here.
  logic unused;
  assign unused = ^key_i[31:8];
endmodule
