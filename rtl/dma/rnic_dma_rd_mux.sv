// rnic_dma_rd_mux: shares the DMA read channel between the WQE fetcher, the TX
// payload reader and the RX engine (round robin). The source travels in the
// top tag bits; read data come back in request order and are steered by them.
// Each source only asks for data it will take without waiting on another
// source, so in-order return cannot deadlock.
module rnic_dma_rd_mux #(
  parameter int unsigned DataW = 256,
  parameter int unsigned N = 3
) (
  input  logic        clk_i,
  input  logic        rst_ni,
  input  logic [N-1:0] req_valid_i,
  output logic [N-1:0] req_ready_o,
  input  logic [N*64-1:0] req_addr_i,
  input  logic [N*16-1:0] req_len_i,
  output logic [N-1:0] rsp_valid_o,
  input  logic [N-1:0] rsp_ready_i,
  output logic        dma_req_valid_o,
  input  logic        dma_req_ready_i,
  output logic [63:0] dma_req_addr_o,
  output logic [15:0] dma_req_len_o,
  output logic [7:0]  dma_req_tag_o,
  input  logic        dma_rsp_valid_i,
  output logic        dma_rsp_ready_o,
  input  logic [7:0]  dma_rsp_tag_i
);
  localparam int unsigned SelW = (N > 1) ? $clog2(N) : 1;
  logic [SelW-1:0] last_q, sel, rr_sel, hold_sel_q;
  logic any, rr_any, hold_q, hold_live;

  // Round robin after the last source served. last_q + k is below 2N, so
  // one subtraction wraps it (no divider for N not a power of two).
  always_comb begin
    rr_sel = last_q;
    rr_any = 1'b0;
    for (int k = 1; k <= N; k++) begin
      logic [SelW:0] j;
      logic [SelW-1:0] i;
      j = (SelW + 1)'(last_q) + (SelW + 1)'(k);
      i = (j >= (SelW + 1)'(N)) ? SelW'(j - (SelW + 1)'(N)) : SelW'(j);
      if (!rr_any && req_valid_i[i]) begin
        rr_any = 1'b1;
        rr_sel = i;
      end
    end
  end

  // A request presented and not taken stays presented (valid, address and
  // length stable until ready) while its source still asks.
  assign hold_live = hold_q && req_valid_i[hold_sel_q];
  assign any = hold_live || rr_any;
  assign sel = hold_live ? hold_sel_q : rr_sel;

  assign dma_req_valid_o = any;
  assign dma_req_addr_o = req_addr_i[sel*64 +: 64];
  assign dma_req_len_o = req_len_i[sel*16 +: 16];
  assign dma_req_tag_o = {3'(sel), 5'd0};
  always_comb begin
    req_ready_o = '0;
    req_ready_o[sel] = any && dma_req_ready_i;
  end

  logic [2:0] src;
  assign src = dma_rsp_tag_i[7:5];
  always_comb begin
    rsp_valid_o = '0;
    dma_rsp_ready_o = 1'b0;
    for (int i = 0; i < N; i++) begin
      if (src == 3'(i)) begin
        rsp_valid_o[i] = dma_rsp_valid_i;
        dma_rsp_ready_o = rsp_ready_i[i];
      end
    end
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      last_q <= SelW'(N - 1);
      hold_q <= 1'b0;
      hold_sel_q <= '0;
    end else begin
      if (any && dma_req_ready_i) last_q <= sel;
      hold_q <= any && !dma_req_ready_i;
      hold_sel_q <= sel;
    end
  end

  logic unused;
  assign unused = ^{DataW, dma_rsp_tag_i[4:0]};
endmodule
