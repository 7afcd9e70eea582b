// Properties of rnic_sge_map (a 1024-bit WQE: SGE slots 1..7): never more
// than MaxSeg (five) segments, none empty; a segment is written with the bus address
// and length of the check that allowed it; the segments one window (a start
// or a rewalk up to the end of the list) adds tile the payload without gaps
// (each starts where the one before ended), and a window that fits without
// overflowing adds segments that start at moff - adj and hold exactly plen
// bytes; prot_o says whether a check the packet needed failed. The caller
// (assumed) holds the WQE and the window between starts and rewalks, starts
// lists of at most four SGEs at slot 1..3 (five is refused before a walk),
// and never combines start with another command.
module fv_rnic_sge_map (
  input logic        clk_i,
  input logic        rst_ni,
  input logic [1023:0] wqe_i,
  input logic [2:0]  first_i,
  input logic [31:0] moff_i,
  input logic [12:0] plen_i,
  input logic [15:0] adj_i,
  input logic        start_i,
  input logic [2:0]  cnt_i,
  input logic        rewalk_i,
  input logic        step_i,
  input logic        seg_set_i,
  input logic [12:0] seg_len_i,
  input logic        chk_ok_i,
  input logic [63:0] chk_bus_i
);
  logic [31:0] key_o, len_o;
  logic [63:0] va_o;
  logic [2:0] cnt_o, nseg_o;
  logic all_o, last_o, hit_o, fits_o, ovf_o, prot_o;
  logic [64*rnic_pkg::MaxSeg-1:0] seg_addr_o;
  logic [32*rnic_pkg::MaxSeg-1:0] seg_len_o;
  logic [16*rnic_pkg::MaxSeg-1:0] seg_poff_o;

  rnic_sge_map #(.WqeBits(1024)) dut (
    .clk_i, .rst_ni, .wqe_i, .first_i, .moff_i, .plen_i, .adj_i,
    .start_i, .cnt_i, .rewalk_i, .step_i, .seg_set_i, .seg_len_i,
    .key_o, .va_o, .len_o, .chk_ok_i, .chk_bus_i,
    .cnt_o, .all_o, .last_o, .hit_o, .fits_o, .ovf_o, .prot_o,
    .nseg_o, .seg_addr_o, .seg_len_o, .seg_poff_o
  );

  logic ran;
  always_ff @(posedge clk_i) ran <= ran || !rst_ni;
  always_comb assume (rst_ni == ran);

  // The previous cycle's inputs and commands.
  logic started, walking, newwin, cmd_q, app_q;
  logic [1023:0] wqe_q;
  logic [2:0] first_q, napp_q;
  logic [31:0] moff_q;
  logic [12:0] plen_q;
  logic [15:0] adj_q;
  logic [63:0] bus_q;
  logic [31:0] len_q;
  logic bad_q;           // a check the packet needed failed since the start
  logic [2:0] k0_q;      // the window's first segment
  logic append;
  assign append = step_i && hit_o && (nseg_o != 3'd5);
  always_ff @(posedge clk_i) begin
    if (!rst_ni) begin
      started <= 1'b0;
      walking <= 1'b0;
      newwin <= 1'b0;
      cmd_q <= 1'b0;
      app_q <= 1'b0;
      bad_q <= 1'b0;
      k0_q <= '0;
    end else begin
      cmd_q <= start_i || rewalk_i;
      app_q <= append;
      napp_q <= nseg_o;
      bus_q <= chk_bus_i;
      len_q <= len_o;
      newwin <= rewalk_i;
      if (start_i) begin
        started <= 1'b1;
        walking <= 1'b1;
        bad_q <= 1'b0;
        k0_q <= '0;
      end else begin
        if (seg_set_i) walking <= 1'b0;
        if (step_i && hit_o && !chk_ok_i) bad_q <= 1'b1;
        if (newwin) k0_q <= nseg_o;
      end
    end
    wqe_q <= wqe_i;
    first_q <= first_i;
    moff_q <= moff_i;
    plen_q <= plen_i;
    adj_q <= adj_i;
  end
  logic [2:0] k0;
  assign k0 = newwin ? nseg_o : k0_q;

  logic [15:0] pf0, pf1, pf2, pf3, pf4;
  logic [31:0] ln0, ln1, ln2, ln3, ln4;
  assign {pf4, pf3, pf2, pf1, pf0} = seg_poff_o;
  assign {ln4, ln3, ln2, ln1, ln0} = seg_len_o;
  logic [15:0] pf_k0;
  assign pf_k0 = (k0 == 3'd0) ? pf0 : (k0 == 3'd1) ? pf1 : (k0 == 3'd2) ? pf2 :
                 (k0 == 3'd3) ? pf3 : pf4;
  logic [31:0] ln_app;
  assign ln_app = (napp_q == 3'd0) ? ln0 : (napp_q == 3'd1) ? ln1 : (napp_q == 3'd2) ? ln2 :
                  (napp_q == 3'd3) ? ln3 : ln4;
  logic [63:0] ad_app;
  assign ad_app = (napp_q == 3'd0) ? seg_addr_o[63:0] : (napp_q == 3'd1) ? seg_addr_o[127:64] :
                  (napp_q == 3'd2) ? seg_addr_o[191:128] : (napp_q == 3'd3) ? seg_addr_o[255:192] :
                  seg_addr_o[319:256];

  // Where the window's last segment ends in the payload: with the
  // segments contiguous, its bytes are those from the first segment's
  // start to there.
  logic [15:0] w_end;
  assign w_end = (nseg_o == 3'd1) ? pf0 + ln0[15:0] : (nseg_o == 3'd2) ? pf1 + ln1[15:0] :
                 (nseg_o == 3'd3) ? pf2 + ln2[15:0] : (nseg_o == 3'd4) ? pf3 + ln3[15:0] :
                 pf4 + ln4[15:0];

  always_comb begin
    if (rst_ni) begin
      // The caller's side.
      if (!cmd_q && ran) begin
        assume (wqe_i == wqe_q);
        assume (first_i == first_q);
        assume (moff_i == moff_q);
        assume (plen_i == plen_q);
        assume (adj_i == adj_q);
      end
      assume ((first_i >= 3'd1) && (first_i <= 3'd3));
      // Small lengths and offsets keep the solver quick (the block bench
      // covers lengths up to 2^32 - 1 and their 34-bit sums).
      for (int unsigned k = 1; k < 8; k++) assume (wqe_i[k*128 +: 32] < 32'd64);
      assume (moff_i < 32'd256);
      assume (cnt_i <= 3'd4);
      if (start_i) assume (!step_i && !rewalk_i && !seg_set_i);
      if (step_i || rewalk_i) assume (started && walking && !seg_set_i);
      if (rewalk_i) assume (step_i && all_o);

      // The block's side.
      assert (nseg_o <= 3'd5);
      if (walking) begin
        if (nseg_o > 3'd0) assert (ln0 != 32'd0);
        if (nseg_o > 3'd1) assert (ln1 != 32'd0);
        if (nseg_o > 3'd2) assert (ln2 != 32'd0);
        if (nseg_o > 3'd3) assert (ln3 != 32'd0);
        if (nseg_o > 3'd4) assert (ln4 != 32'd0);
      end
      if (app_q) begin
        assert (nseg_o == napp_q + 3'd1);
        assert (ad_app == bus_q);
        assert (ln_app == len_q);
      end
      if (started && walking) assert (prot_o == (bad_q || (hit_o && !chk_ok_i)));
      // A finished window: contiguous segments, and all of the window's
      // bytes when it fits.
      if (started && walking && all_o && !newwin) begin
        if ((k0 < 3'd1) && (nseg_o > 3'd1)) assert (pf1 == pf0 + ln0[15:0]);
        if ((k0 < 3'd2) && (nseg_o > 3'd2)) assert (pf2 == pf1 + ln1[15:0]);
        if ((k0 < 3'd3) && (nseg_o > 3'd3)) assert (pf3 == pf2 + ln2[15:0]);
        if ((k0 < 3'd4) && (nseg_o > 3'd4)) assert (pf4 == pf3 + ln3[15:0]);
        if (fits_o && !ovf_o) begin
          if (nseg_o > k0) begin
            assert (pf_k0 == moff_i[15:0] - adj_i);
            assert (w_end == moff_i[15:0] + {3'd0, plen_i} - adj_i);
          end else begin
            assert (plen_i == 13'd0);
          end
        end
      end
    end
  end
endmodule
