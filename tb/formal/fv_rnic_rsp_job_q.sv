// Properties of rnic_rsp_job_q (Depth 4): no overflow or underflow; the head
// the transmit side reads never changes while it waits (a merge replaces
// only an entry behind it); a merge happens exactly when the arriving job is
// a plain ACK and the newest queued job of its QP, not the head, is a plain
// ACK at an older or equal PSN (since stop 48; before, only the tail was
// looked at), and then takes no entry; jobs leave in order, merged ones as
// their replacement, in the replaced job's place (a shadow queue); an empty queue offers the arriving job in the same
// cycle and stores it only if it is not taken. The producer holds valid and data until taken
// (assumed). Jobs use 2-bit kinds and small QPN/PSN values so merges are
// frequent; the other fields are free.
module fv_rnic_rsp_job_q (
  input logic        clk_i,
  input logic        rst_ni,
  input logic        in_valid_i,
  input logic [rnic_pkg::RspJobW-1:0] in_data_i,
  input logic        out_ready_i
);
  localparam int unsigned W = rnic_pkg::RspJobW;
  logic in_ready_o, out_valid_o, merged_o;
  logic [W-1:0] out_data_o;

  rnic_rsp_job_q #(.Depth(4)) dut (
    .clk_i, .rst_ni, .in_valid_i, .in_ready_o, .in_data_i, .out_valid_o, .out_ready_i,
    .out_data_o, .merged_o
  );

  logic ran;
  always_ff @(posedge clk_i) ran <= ran || !rst_ni;
  always_comb assume (rst_ni == ran);

  // Field views (flat rsp_job_t, MSB first: kind 2, qpn 24, psn 24, syn 8, ...).
  function automatic logic plain_ack(input logic [W-1:0] j);
    plain_ack = (j[W-1 -: 2] == rnic_pkg::JobAck) && (j[W-51 -: 8] == rnic_pkg::AethAck);
  endfunction
  function automatic logic [23:0] qpn_of(input logic [W-1:0] j);
    qpn_of = j[W-3 -: 24];
  endfunction
  function automatic logic [23:0] psn_of(input logic [W-1:0] j);
    psn_of = j[W-27 -: 24];
  endfunction

  // Shadow queue: sh0 oldest, n entries; a merge replaces entry mp, the
  // newest of the arriving job's QP.
  logic [W-1:0] sh0, sh1, sh2, sh3, mj;
  logic [2:0] n, at, mp, mat;
  logic push, pop, take, bypass, mh, exp_merge;
  assign take = in_valid_i && in_ready_o;
  // taken on arrival from an empty queue: never stored
  assign bypass = (n == 3'd0) && out_valid_o && out_ready_i;
  assign push = take && !merged_o && !bypass;
  assign pop = out_valid_o && out_ready_i && !bypass;
  assign at = n - 3'(pop);
  always_comb begin
    mh = 1'b0;
    mp = '0;
    if ((n > 3'd0) && (qpn_of(sh0) == qpn_of(in_data_i))) begin mh = 1'b1; mp = 3'd0; end
    if ((n > 3'd1) && (qpn_of(sh1) == qpn_of(in_data_i))) begin mh = 1'b1; mp = 3'd1; end
    if ((n > 3'd2) && (qpn_of(sh2) == qpn_of(in_data_i))) begin mh = 1'b1; mp = 3'd2; end
    if ((n > 3'd3) && (qpn_of(sh3) == qpn_of(in_data_i))) begin mh = 1'b1; mp = 3'd3; end
    mj = (mp == 3'd1) ? sh1 : (mp == 3'd2) ? sh2 : (mp == 3'd3) ? sh3 : sh0;
  end
  assign exp_merge = in_valid_i && mh && (mp != 3'd0) && plain_ack(in_data_i) && plain_ack(mj) &&
                     rnic_pkg::psn_ge(psn_of(in_data_i), psn_of(mj));
  assign mat = mp - 3'(pop);   // where the replaced entry is after this cycle's pop
  always_ff @(posedge clk_i) begin
    if (!rst_ni) n <= '0;
    else n <= n + 3'(push) - 3'(pop);
    if (pop) begin
      sh0 <= sh1;
      sh1 <= sh2;
      sh2 <= sh3;
    end
    // a pushed entry lands at n - pop; a merged one replaces mp - pop
    if ((push && (at == 3'd0)) || (merged_o && take && (mat == 3'd0))) sh0 <= in_data_i;
    if ((push && (at == 3'd1)) || (merged_o && take && (mat == 3'd1))) sh1 <= in_data_i;
    if ((push && (at == 3'd2)) || (merged_o && take && (mat == 3'd2))) sh2 <= in_data_i;
    if ((push && (at == 3'd3)) || (merged_o && take && (mat == 3'd3))) sh3 <= in_data_i;
  end

  logic in_wait, out_wait;
  logic [W-1:0] in_q, out_q;
  always_ff @(posedge clk_i) begin
    in_wait <= rst_ni && in_valid_i && !in_ready_o;
    out_wait <= rst_ni && out_valid_o && !out_ready_i;
    in_q <= in_data_i;
    out_q <= out_data_o;
  end

  always_comb begin
    if (rst_ni) begin
      if (in_wait) begin
        assume (in_valid_i);
        assume (in_data_i == in_q);
      end
      // Few QPs and PSNs, so that merges happen within the depth.
      assume (qpn_of(in_data_i) < 24'd2);
      assume (psn_of(in_data_i) < 24'd4);

      assert (n <= 3'd4);
      assert (out_valid_o == ((n != 3'd0) || in_valid_i));
      assert (in_ready_o == (merged_o || (n < 3'd4)));
      assert (merged_o == exp_merge);
      if (out_wait) begin
        assert (out_valid_o);
        assert (out_data_o == out_q);
      end
      if (n != 3'd0) assert (out_data_o == sh0);
      else assert (out_data_o == in_data_i);
    end
  end
endmodule
