// rnic_dma_wr_mux: shares the DMA write channel between N writers: payload
// placement (source 0), the CQE writer (1) and the responder's atomic result
// writes (2, in rnic_top). A write is never interleaved: the grant holds
// from its first to its last beat. Lower sources go first, so a receive CQE
// always follows the data it reports.
module rnic_dma_wr_mux #(
  parameter int unsigned DataW = 256,
  parameter int unsigned N = 2
) (
  input  logic        clk_i,
  input  logic        rst_ni,
  input  logic [N-1:0] valid_i,
  output logic [N-1:0] ready_o,
  input  logic [N*64-1:0] addr_i,
  input  logic [N*16-1:0] len_i,
  input  logic [N*DataW-1:0] data_i,
  input  logic [N-1:0] last_i,
  output logic        valid_o,
  input  logic        ready_i,
  output logic [63:0] addr_o,
  output logic [15:0] len_o,
  output logic [DataW-1:0] data_o,
  output logic        last_o,
  // No write burst in progress (fast-forward)
  output logic        quiet_o
);
  localparam int unsigned SelW = (N > 1) ? $clog2(N) : 1;
  logic locked_q;
  logic [SelW-1:0] owner_q, first, sel;

  always_comb begin
    first = SelW'(N - 1);
    for (int i = N - 1; i >= 0; i--) begin
      if (valid_i[i]) first = SelW'(i);
    end
  end
  assign sel = locked_q ? owner_q : first;
  assign valid_o = valid_i[sel];
  assign addr_o = addr_i[sel*64 +: 64];
  assign len_o = len_i[sel*16 +: 16];
  assign data_o = data_i[sel*DataW +: DataW];
  assign last_o = last_i[sel];
  always_comb begin
    ready_o = '0;
    ready_o[sel] = ready_i;
  end

  assign quiet_o = !locked_q;

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      locked_q <= 1'b0;
      owner_q <= '0;
    end else if (valid_o) begin
      // The writer of a beat presented keeps the port until its write's
      // last beat is taken: a waiting first beat is not replaced either.
      locked_q <= !(ready_i && last_o);
      owner_q <= sel;
    end
  end
endmodule
