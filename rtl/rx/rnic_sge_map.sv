// rnic_sge_map: maps one packet's message bytes [moff, moff + plen) onto a
// WQE's scatter list, one SGE per step, into placement segments (bus address, length, payload offset). Each SGE the packet
// touches is checked for the bytes it gets (key_o/va_o/len_o go to an MR
// check outside, its result comes back on chk_ok_i/chk_bus_i in the same
// cycle), so a receive SGE longer than the message (length 0 is 2^31 bytes)
// or its MR is never refused for bytes it does not get. The responder maps
// receives with it; the completer maps READ responses and atomic ACKs.
// A list has at most four SGEs, so one window makes at most four segments;
// a UD receive maps two windows (its GRH area, then the payload), which may
// share an SGE: MaxSeg (five) segments hold both.
//
// The fit signals show the state after the current step (all_o, last_o,
// acc_o, ovf_o, prot_o, fits_o), so the step that takes the last SGE also
// decides whether the packet fits.
module rnic_sge_map #(
  parameter int unsigned WqeBits = rnic_pkg::WqeBits,
  localparam int unsigned MaxSeg = rnic_pkg::MaxSeg
) (
  input  logic        clk_i,
  input  logic        rst_ni,
  // The WQE; SGE i of the list is its 16-byte slot first_i + i.
  input  logic [WqeBits-1:0] wqe_i,
  input  logic [2:0]  first_i,
  // This packet's window of message bytes; segment payload offsets are
  // message byte - adj_i.
  input  logic [31:0] moff_i,
  input  logic [12:0] plen_i,
  input  logic [15:0] adj_i,
  // start_i: a new list of cnt_i SGEs (5: more than four, refused outside),
  // no segments. rewalk_i: walk the list again from SGE 0 for another window
  // (the segments stay). step_i: take the current SGE (no effect once all
  // are taken). seg_set_i: one segment of seg_len_i bytes at chk_bus_i (an
  // rkey access, checked outside). Segments are read only after a start_i
  // and its steps or after a seg_set_i.
  input  logic        start_i,
  input  logic [2:0]  cnt_i,
  input  logic        rewalk_i,
  input  logic        step_i,
  input  logic        seg_set_i,
  input  logic [12:0] seg_len_i,
  // The current SGE's key check: key, first address and length of the
  // bytes this packet puts into it.
  output logic [31:0] key_o,
  output logic [63:0] va_o,
  output logic [31:0] len_o,
  input  logic        chk_ok_i,
  input  logic [63:0] chk_bus_i,
  // State of the walk
  output logic [2:0]  cnt_o,
  output logic        all_o,      // every SGE taken before this cycle
  output logic        last_o,     // the current SGE is the last
  output logic        hit_o,      // the packet puts bytes into the current SGE
  output logic        fits_o,     // the SGEs taken (this step's included) hold the window's end
  output logic        ovf_o,      // the packet needs more than MaxSeg segments
  output logic        prot_o,     // an SGE the packet touches failed its key check
  // Segments for placement
  output logic [2:0]  nseg_o,
  output logic [64*MaxSeg-1:0] seg_addr_o,   // segment i in [64i+63:64i]
  output logic [32*MaxSeg-1:0] seg_len_o,    // [32i+31:32i]
  output logic [16*MaxSeg-1:0] seg_poff_o    // [16i+15:16i]
);
  logic [2:0] cnt_q, i_q, nseg_q;
  logic [33:0] acc_q;      // message bytes the SGEs before i_q hold (4 x 2^32 max)
  logic prot_q, ovf_q;
  logic [64*MaxSeg-1:0] seg_addr_q;
  logic [32*MaxSeg-1:0] seg_len_q;
  logic [16*MaxSeg-1:0] seg_poff_q;

  logic [3:0] slot;
  logic [127:0] sge;
  logic [31:0] sge_len;
  logic [63:0] sge_va;
  assign slot = {1'b0, first_i} + {1'b0, i_q};
  always_comb begin
    sge = wqe_i[127:0];
    for (int unsigned s = 1; s < 16; s++) begin
      if (slot == 4'(s)) sge = wqe_i[s*128 +: 128];
    end
  end
  assign sge_len = sge[31:0];
  assign key_o = sge[63:32];
  assign sge_va = sge[127:64];

  // Overlap of the window [m_lo, m_hi) and the SGE's bytes [acc, s_end).
  logic [33:0] m_lo, m_hi, s_lo, s_hi, s_end, acc_next;
  assign m_lo = {2'd0, moff_i};
  assign m_hi = {2'd0, moff_i} + {21'd0, plen_i};
  assign s_end = acc_q + {2'd0, sge_len};
  assign s_lo = (acc_q > m_lo) ? acc_q : m_lo;
  assign s_hi = (s_end < m_hi) ? s_end : m_hi;
  assign va_o = sge_va + {30'd0, s_lo - acc_q};
  assign len_o = 32'(s_hi - s_lo);

  assign cnt_o = cnt_q;
  assign all_o = (i_q == cnt_q);
  assign last_o = (i_q + 3'd1 == cnt_q);
  assign hit_o = !all_o && (s_hi > s_lo);
  assign acc_next = all_o ? acc_q : s_end;
  assign fits_o = (m_hi <= acc_next);
  assign ovf_o = ovf_q || (hit_o && (nseg_q == 3'(MaxSeg)));
  assign prot_o = prot_q || (hit_o && !chk_ok_i);

  assign nseg_o = nseg_q;
  assign seg_addr_o = seg_addr_q;
  assign seg_len_o = seg_len_q;
  assign seg_poff_o = seg_poff_q;

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      cnt_q <= '0;
      i_q <= '0;
      acc_q <= '0;
      prot_q <= 1'b0;
      ovf_q <= 1'b0;
      nseg_q <= '0;
      seg_addr_q <= '0;
      seg_len_q <= '0;
      seg_poff_q <= '0;
    end else if (start_i) begin
      cnt_q <= cnt_i;
      i_q <= '0;
      acc_q <= '0;
      prot_q <= 1'b0;
      ovf_q <= 1'b0;
      nseg_q <= '0;
      seg_len_q <= '0;
    end else begin
      if (seg_set_i) begin
        seg_addr_q[63:0] <= chk_bus_i;
        seg_len_q <= (32*MaxSeg)'(seg_len_i);
        seg_poff_q <= '0;
        nseg_q <= 3'd1;
      end
      if (step_i && !all_o) begin
        if (hit_o) begin
          if (!chk_ok_i) prot_q <= 1'b1;
          if (nseg_q == 3'(MaxSeg)) ovf_q <= 1'b1;
          else begin
            seg_addr_q[nseg_q*64 +: 64] <= chk_bus_i;
            seg_len_q[nseg_q*32 +: 32] <= len_o;
            seg_poff_q[nseg_q*16 +: 16] <= 16'(s_lo) - adj_i;
            nseg_q <= nseg_q + 3'd1;
          end
        end
        acc_q <= s_end;
        i_q <= i_q + 3'd1;
      end
      if (rewalk_i) begin
        i_q <= '0;
        acc_q <= '0;
      end
    end
  end

`ifdef RNIC_ASSERT
  /* verilator coverage_off */
  // A new list is never started in a cycle that also steps or sets a
  // segment (the caller's states are exclusive), and a step or a set never
  // meets a second writer of the segments.
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
    end else begin
      if (start_i) assert (!step_i && !seg_set_i && !rewalk_i);
      if (seg_set_i) assert (!step_i);
    end
  end
  /* verilator coverage_on */
`endif
endmodule
