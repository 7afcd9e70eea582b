// rnic_rsp_job_q: the responder's job queue in front of the transmit side,
// with ACK coalescing. A plain ACK (AETH syndrome ACK) that arrives while
// the newest queued job is a plain ACK of the same QP for an older or equal
// PSN replaces it instead of taking a new entry: one frame then acknowledges
// both (the requester's completer retires everything up to the newer MSN).
// Only the tail is replaced, never the head the transmit side is reading,
// so job order per QP is kept and no frame changes while it is built. A
// replacement needs no free entry, so a burst of ACKs behind a long READ
// response stream does not stall the receive path. An empty queue passes a
// job straight through (no cycle in the queue for a lone ACK); a job the
// transmit side does not take in that cycle is stored and offered again.
module rnic_rsp_job_q #(
  parameter int unsigned Depth = 8,
  localparam int unsigned AddrW = $clog2(Depth)
) (
  input  logic                          clk_i,
  input  logic                          rst_ni,
  input  logic                          in_valid_i,
  output logic                          in_ready_o,
  input  logic [rnic_pkg::RspJobW-1:0]  in_data_i,
  output logic                          out_valid_o,
  input  logic                          out_ready_i,
  output logic [rnic_pkg::RspJobW-1:0]  out_data_o,
  output logic                          merged_o      // an ACK replaced the tail
);
  localparam logic [AddrW:0] DepthC = (AddrW+1)'(Depth);
  logic [rnic_pkg::RspJobW-1:0] mem_q [Depth];
  logic [AddrW:0] wr_q, rd_q, count;
  logic [AddrW-1:0] tail_idx;
  /* verilator lint_off UNUSEDSIGNAL */  // only kind, qpn, psn and syn decide a merge
  rnic_pkg::rsp_job_t in_job, tail_job;
  /* verilator lint_on UNUSEDSIGNAL */
  logic push, pop, merge, empty, bypass;

  assign count = wr_q - rd_q;
  assign tail_idx = wr_q[AddrW-1:0] - 1'b1;
  assign in_job = in_data_i;
  assign tail_job = mem_q[tail_idx];

  // The tail is not the head (count >= 2), so the reader never sees it change.
  assign merge = in_valid_i && (count >= (AddrW+1)'(2)) &&
                 (in_job.kind == rnic_pkg::JobAck) && (in_job.syn == rnic_pkg::AethAck) &&
                 (tail_job.kind == rnic_pkg::JobAck) && (tail_job.syn == rnic_pkg::AethAck) &&
                 (in_job.qpn == tail_job.qpn) && rnic_pkg::psn_ge(in_job.psn, tail_job.psn);

  assign empty = (count == '0);
  assign in_ready_o = merge || (count < DepthC);
  assign out_valid_o = !empty || in_valid_i;
  assign out_data_o = empty ? in_data_i : mem_q[rd_q[AddrW-1:0]];
  assign pop = out_valid_o && out_ready_i;
  assign bypass = empty && pop;  // taken in the cycle it arrived: never stored
  assign push = in_valid_i && !merge && (count < DepthC) && !bypass;
  assign merged_o = merge;

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      wr_q <= '0;
      rd_q <= '0;
    end else begin
      if (push) wr_q <= wr_q + 1'b1;
      if (pop && !bypass) rd_q <= rd_q + 1'b1;
    end
  end

  always_ff @(posedge clk_i) begin
    if (push) mem_q[wr_q[AddrW-1:0]] <= in_data_i;
    else if (merge) mem_q[tail_idx] <= in_data_i;
  end
endmodule
