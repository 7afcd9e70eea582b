// rnic_uniq_fifo: a FIFO of distinct values (QP numbers waiting for a
// service): a value that waits already is not queued again, so one entry
// per possible value (Depth = 2**Width) always leaves room and the producer
// needs no ready. A value leaving in the cycle it is offered again is queued
// again (it no longer waits). Used by rnic_rx_engine for the QPs the driver
// moved to ERR, the receive-queue flushes that yielded and the QPs owing a
// delayed ACK.
module rnic_uniq_fifo #(
  parameter int unsigned Width = 4,
  localparam int unsigned Depth = 2 ** Width
) (
  input  logic             clk_i,
  input  logic             rst_ni,
  input  logic             in_valid_i,
  input  logic [Width-1:0] in_data_i,
  output logic             out_valid_o,
  input  logic             out_ready_i,
  output logic [Width-1:0] out_data_o
);
  logic [Depth-1:0] queued_q;   // the value waits in the FIFO
  logic [Width-1:0] mem_q [Depth];
  logic [Width:0] wr_q, rd_q;
  logic push, pop;

  // Its own circular buffer rather than rnic_fifo: a full FIFO (every value
  // waits) whose head leaves and is offered again in one cycle takes it, the
  // write going to the slot the read frees (rnic_fifo's ready does not
  // look at the consumer's side, and the value would be lost while marked
  // as waiting).
  assign out_valid_o = (wr_q != rd_q);
  assign out_data_o = mem_q[rd_q[Width-1:0]];
  assign pop = out_valid_o && out_ready_i;
  assign push = in_valid_i && (!queued_q[in_data_i] || (pop && (out_data_o == in_data_i)));

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      queued_q <= '0;
      wr_q <= '0;
      rd_q <= '0;
    end else begin
      if (pop) begin
        queued_q[out_data_o] <= 1'b0;
        rd_q <= rd_q + 1'b1;
      end
      if (push) begin
        queued_q[in_data_i] <= 1'b1;
        wr_q <= wr_q + 1'b1;
      end
    end
  end
  always_ff @(posedge clk_i) begin
    if (push) mem_q[wr_q[Width-1:0]] <= in_data_i;
  end

`ifdef RNIC_ASSERT
  /* verilator coverage_off */
  // Each value waits once, so there is always room.
  logic [Width:0] count;
  assign count = wr_q - rd_q;
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
    end else begin
      if (push && !pop) assert (count < (Width+1)'(Depth));
    end
  end
  /* verilator coverage_on */
`endif
endmodule
