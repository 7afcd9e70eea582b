// Properties of rnic_rsp_job_q (Depth 4): no overflow or underflow; the head
// the transmit side reads never changes while it waits (a merge replaces
// only a tail behind it); a merge happens only for a plain ACK of the same
// QP at an older or equal PSN than the queued plain-ACK tail, and then
// takes no entry; jobs leave in order, merged ones as their replacement
// (a shadow queue); an empty queue offers the arriving job in the same
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

  // Shadow queue: sh0 oldest, n entries; a merge replaces entry n-1.
  logic [W-1:0] sh0, sh1, sh2, sh3, tail;
  logic [2:0] n, at;
  logic push, pop, take, bypass;
  assign take = in_valid_i && in_ready_o;
  // taken on arrival from an empty queue: never stored
  assign bypass = (n == 3'd0) && out_valid_o && out_ready_i;
  assign push = take && !merged_o && !bypass;
  assign pop = out_valid_o && out_ready_i && !bypass;
  assign at = n - 3'(pop);
  always_comb begin
    tail = sh0;
    if (n == 3'd2) tail = sh1;
    if (n == 3'd3) tail = sh2;
    if (n == 3'd4) tail = sh3;
  end
  always_ff @(posedge clk_i) begin
    if (!rst_ni) n <= '0;
    else n <= n + 3'(push) - 3'(pop);
    if (pop) begin
      sh0 <= sh1;
      sh1 <= sh2;
      sh2 <= sh3;
    end
    // a pushed entry lands at n - pop; a merged one replaces n - 1 - pop
    if ((push && (at == 3'd0)) || (merged_o && take && (at == 3'd1))) sh0 <= in_data_i;
    if ((push && (at == 3'd1)) || (merged_o && take && (at == 3'd2))) sh1 <= in_data_i;
    if ((push && (at == 3'd2)) || (merged_o && take && (at == 3'd3))) sh2 <= in_data_i;
    if ((push && (at == 3'd3)) || (merged_o && take && (at == 3'd4))) sh3 <= in_data_i;
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
      if (merged_o) begin
        assert (in_valid_i);
        assert (n >= 3'd2);
        assert (plain_ack(in_data_i) && plain_ack(tail));
        assert (qpn_of(in_data_i) == qpn_of(tail));
        assert (rnic_pkg::psn_ge(psn_of(in_data_i), psn_of(tail)));
      end
      if (out_wait) begin
        assert (out_valid_o);
        assert (out_data_o == out_q);
      end
      if (n != 3'd0) assert (out_data_o == sh0);
      else assert (out_data_o == in_data_i);
    end
  end
endmodule
