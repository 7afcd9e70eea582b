// rnic_dma_wr_mux: shares the DMA write channel between payload placement
// (source 0) and the CQE writer (source 1). A write is never interleaved:
// the grant holds from its first to its last beat. Placement goes first, so a
// receive CQE always follows the data it reports.
module rnic_dma_wr_mux #(
  parameter int unsigned DataW = 256
) (
  input  logic        clk_i,
  input  logic        rst_ni,
  input  logic [1:0]  valid_i,
  output logic [1:0]  ready_o,
  input  logic [127:0] addr_i,
  input  logic [31:0] len_i,
  input  logic [2*DataW-1:0] data_i,
  input  logic [1:0]  last_i,
  output logic        valid_o,
  input  logic        ready_i,
  output logic [63:0] addr_o,
  output logic [15:0] len_o,
  output logic [DataW-1:0] data_o,
  output logic        last_o
);
  logic locked_q, owner_q, sel;
  assign sel = locked_q ? owner_q : !valid_i[0];
  assign valid_o = valid_i[sel];
  assign addr_o = addr_i[sel*64 +: 64];
  assign len_o = len_i[sel*16 +: 16];
  assign data_o = data_i[sel*DataW +: DataW];
  assign last_o = last_i[sel];
  always_comb begin
    ready_o = '0;
    ready_o[sel] = ready_i;
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      locked_q <= 1'b0;
      owner_q <= 1'b0;
    end else if (valid_o && ready_i) begin
      locked_q <= !last_o;
      owner_q <= sel;
    end
  end
endmodule
