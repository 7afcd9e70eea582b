// rnic_fifo: synchronous FIFO with valid/ready on both sides.
// Depth must be a power of two. count_o lets producers reserve space ahead.
module rnic_fifo #(
  parameter int unsigned Width = 8,
  parameter int unsigned Depth = 4,
  localparam int unsigned AddrW = (Depth > 1) ? $clog2(Depth) : 1
) (
  input  logic             clk_i,
  input  logic             rst_ni,
  input  logic             in_valid_i,
  output logic             in_ready_o,
  input  logic [Width-1:0] in_data_i,
  output logic             out_valid_o,
  input  logic             out_ready_i,
  output logic [Width-1:0] out_data_o,
  output logic [AddrW:0]   count_o
);
  localparam logic [AddrW:0] DepthC = (AddrW+1)'(Depth);
  logic [Width-1:0] mem_q [Depth];
  logic [AddrW:0] wr_q, rd_q;
  logic push, pop;

  assign count_o = wr_q - rd_q;
  assign in_ready_o = (count_o < DepthC);
  assign out_valid_o = (wr_q != rd_q);
  assign out_data_o = mem_q[rd_q[AddrW-1:0]];
  assign push = in_valid_i && in_ready_o;
  assign pop = out_valid_o && out_ready_i;

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      wr_q <= '0;
      rd_q <= '0;
    end else begin
      if (push) wr_q <= wr_q + 1'b1;
      if (pop) rd_q <= rd_q + 1'b1;
    end
  end

  always_ff @(posedge clk_i) begin
    if (push) mem_q[wr_q[AddrW-1:0]] <= in_data_i;
  end
endmodule
