// Properties of rnic_dma_rd_mux (N = 3 sources): the request presented is
// one waiting source's, stamped with its number, and only that source sees
// ready; valid is held until taken; a waiting source is granted within N-1
// grants to others (round robin); responses, returned by the DMA in request
// order (assumed), reach exactly the source that asked, beat by beat, with
// its ready. Sources hold valid, address and length until taken (assumed).
// Up to 4 requests outstanding (the wrapper's order queue).
module fv_rnic_dma_rd_mux (
  input logic         clk_i,
  input logic         rst_ni,
  input logic [2:0]   req_valid_i,
  input logic [191:0] req_addr_i,
  input logic [47:0]  req_len_i,
  input logic [2:0]   rsp_ready_i,
  input logic         dma_req_ready_i,
  input logic         dma_rsp_valid_i,
  input logic         dma_rsp_last_i,   // last beat of the oldest read (wrapper only)
  input logic [7:0]   dma_rsp_tag_i
);
  logic [2:0] req_ready_o, rsp_valid_o;
  logic dma_req_valid_o, dma_rsp_ready_o;
  logic [63:0] dma_req_addr_o;
  logic [15:0] dma_req_len_o;
  logic [7:0] dma_req_tag_o;

  rnic_dma_rd_mux #(.DataW(64), .N(3)) dut (
    .clk_i, .rst_ni, .req_valid_i, .req_ready_o, .req_addr_i, .req_len_i, .rsp_valid_o,
    .rsp_ready_i, .dma_req_valid_o, .dma_req_ready_i, .dma_req_addr_o, .dma_req_len_o,
    .dma_req_tag_o, .dma_rsp_valid_i, .dma_rsp_ready_o, .dma_rsp_tag_i
  );

  // Reset in the first step only: rst_ni is low while ran is 0 (step 1),
  // high ever after. (Not `ran <= 1`: Yosys would fold a register with
  // a constant input into the constant, and the assumption would forbid the
  // reset itself, which makes every proof vacuous.)
  logic ran;
  always_ff @(posedge clk_i) ran <= ran || !rst_ni;
  always_comb assume (rst_ni == ran);

  // Issued requests in order: the tags the DMA must answer with.
  logic [7:0] oq0, oq1, oq2, oq3;
  logic [2:0] on;
  logic issue, beat, done;
  logic [2:0] at;
  assign issue = dma_req_valid_o && dma_req_ready_i;
  assign beat = dma_rsp_valid_i && dma_rsp_ready_o;
  assign done = beat && dma_rsp_last_i;
  assign at = on - 3'(done);
  always_ff @(posedge clk_i) begin
    if (!rst_ni) on <= '0;
    else on <= on + 3'(issue) - 3'(done);
    if (done) begin
      oq0 <= oq1;
      oq1 <= oq2;
      oq2 <= oq3;
    end
    if (issue && (at == 3'd0)) oq0 <= dma_req_tag_o;
    if (issue && (at == 3'd1)) oq1 <= dma_req_tag_o;
    if (issue && (at == 3'd2)) oq2 <= dma_req_tag_o;
    if (issue && (at == 3'd3)) oq3 <= dma_req_tag_o;
  end

  // Last cycle, for the stability rules; grants to others while a source waits.
  logic [2:0] src_wait;
  logic [191:0] addr_q;
  logic [47:0] len_q;
  logic out_wait;
  logic [63:0] oaddr_q;
  logic [15:0] olen_q;
  logic [7:0] otag_q;
  logic [1:0] passed [3];
  always_ff @(posedge clk_i) begin
    src_wait <= rst_ni ? (req_valid_i & ~req_ready_o) : 3'b000;
    addr_q <= req_addr_i;
    len_q <= req_len_i;
    out_wait <= rst_ni && dma_req_valid_o && !dma_req_ready_i;
    oaddr_q <= dma_req_addr_o;
    olen_q <= dma_req_len_o;
    otag_q <= dma_req_tag_o;
    for (int i = 0; i < 3; i++) begin
      if (!rst_ni || !req_valid_i[i] || req_ready_o[i]) passed[i] <= '0;
      else if (issue) passed[i] <= passed[i] + 2'd1;
    end
  end

  logic [2:0] sel;
  assign sel = dma_req_tag_o[7:5];
  always_comb begin
    if (rst_ni) begin
      // Sources (assumed): valid, address and length held until taken.
      for (int i = 0; i < 3; i++) begin
        if (src_wait[i]) begin
          assume (req_valid_i[i]);
          assume (req_addr_i[i*64 +: 64] == addr_q[i*64 +: 64]);
          assume (req_len_i[i*16 +: 16] == len_q[i*16 +: 16]);
        end
      end
      // DMA (assumed): at most 4 reads outstanding, answered in order.
      assume (on <= 3'd4);
      if (on == 3'd4) assume (!dma_req_ready_i);
      if (dma_rsp_valid_i) begin
        assume (on != 3'd0);
        assume (dma_rsp_tag_i == oq0);
      end

      // Requests: one waiting source's, with its number and only its ready.
      assert (dma_req_valid_o == (req_valid_i != 3'b000));
      if (dma_req_valid_o) begin
        assert (sel < 3'd3);
        assert (dma_req_tag_o[4:0] == 5'd0);
        assert (req_valid_i[sel[1:0]]);
        assert (dma_req_addr_o == req_addr_i[sel[1:0]*64 +: 64]);
        assert (dma_req_len_o == req_len_i[sel[1:0]*16 +: 16]);
        assert (req_ready_o == (dma_req_ready_i ? (3'b001 << sel[1:0]) : 3'b000));
      end else begin
        assert (req_ready_o == 3'b000);
      end
      // Valid, source, address and length held until taken (the grant
      // stays with a waiting request: docs/verification.md, arbiter
      // stability).
      if (out_wait) begin
        assert (dma_req_valid_o);
        assert (dma_req_tag_o == otag_q);
        assert (dma_req_addr_o == oaddr_q);
        assert (dma_req_len_o == olen_q);
      end
      // Round robin: a waiting source is passed over at most twice.
      for (int i = 0; i < 3; i++) assert (passed[i] <= 2'd2);
      // Responses: to the source of the oldest read only, with its ready.
      if (dma_rsp_valid_i) begin
        assert (rsp_valid_o == (3'b001 << oq0[6:5]));
        assert (dma_rsp_ready_o == rsp_ready_i[oq0[6:5]]);
      end else begin
        assert (rsp_valid_o == 3'b000);
      end
      for (int k = 0; k < 4; k++) begin
        if (3'(k) < on) assert (((k == 0) ? oq0 : (k == 1) ? oq1 : (k == 2) ? oq2 : oq3) < 8'h60);
      end
    end
  end
endmodule
