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
  logic [SelW-1:0] last_q, sel;
  logic any;

  always_comb begin
    sel = last_q;
    any = 1'b0;
    for (int k = 1; k <= N; k++) begin
      logic [SelW-1:0] i;
      i = SelW'((32'(last_q) + k) % N);
      if (!any && req_valid_i[i]) begin
        any = 1'b1;
        sel = i;
      end
    end
  end

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
    if (!rst_ni) last_q <= SelW'(N - 1);
    else if (any && dma_req_ready_i) last_q <= sel;
  end

  logic unused;
  assign unused = ^{DataW, dma_rsp_tag_i[4:0]};
endmodule
