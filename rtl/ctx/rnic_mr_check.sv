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
  logic [63:0] off;

  assign mr = mr_i;
  // In bounds: va_i >= mr.va and va_i + len_i <= mr.va + mr.len, computed
  // in 64 bits from the offset into the MR (which the bus address needs
  // anyway): len_i <= mr.len and off <= mr.len - len_i. Equivalent to the
  // 65-bit sums (fv_mr_check_bmc, docs/verification.md).
  assign off = va_i - mr.va;
  assign ok_o = mr.valid && (mr.key == key_i[7:0]) && (mr.pd == pd_i) &&
                ((access_i & ~mr.access[3:0]) == 4'd0) &&
                (!mr.is_mw || (rkey_i && (!mr.mw_type2 || (mr.mw_qpn == qpn_i)))) &&
                (va_i >= mr.va) && ({32'd0, len_i} <= mr.len) && (off <= mr.len - {32'd0, len_i});
  assign bus_o = mr.iova + off;
  // The index bits selected the MR before it got here.
  logic unused;
  assign unused = ^key_i[31:8];
endmodule
