// rnic_rsp_job_q: the responder's job queue in front of the transmit side,
// with ACK coalescing. A plain ACK (AETH syndrome ACK) that arrives while
// the newest queued job of its QP is a plain ACK for an older or equal PSN
// replaces it instead of taking a new entry: one frame then acknowledges
// both (the requester's completer retires everything up to the newer MSN).
// Jobs of other QPs may sit behind the one replaced (until stop 48 only
// the tail was, so the ACKs of QPs that alternate never merged); nothing of
// its own QP does, so job order per QP is kept. The head the transmit side
// is reading is never replaced, so no frame changes while it is built. A
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
  /* verilator lint_off UNUSEDSIGNAL */  // only kind, qpn, psn and syn decide a merge
  rnic_pkg::rsp_job_t in_job, m_job;
  /* verilator lint_on UNUSEDSIGNAL */
  logic push, pop, merge, empty, bypass;

  assign count = wr_q - rd_q;
  assign in_job = in_data_i;

  // The newest queued job of the arriving job's QP (m_idx; m_hit: there is
  // one), found from the head on. Not the head itself (m_pos 0): the reader
  // never sees an entry change.
  // (An entry's QPN is the 24 bits after its 2-bit kind, rsp_job_t being
  // packed MSB first: only those are read, not the whole entry.)
  localparam int unsigned QpnTop = rnic_pkg::RspJobW - 3;
  logic m_hit;
  logic [AddrW-1:0] m_idx, m_pos, e_idx;
  always_comb begin
    m_hit = 1'b0;
    m_idx = '0;
    m_pos = '0;
    e_idx = '0;
    for (int unsigned p = 0; p < Depth; p++) begin
      e_idx = rd_q[AddrW-1:0] + AddrW'(p);
      if (((AddrW+1)'(p) < count) && (mem_q[e_idx][QpnTop -: 24] == in_job.qpn)) begin
        m_hit = 1'b1;
        m_idx = e_idx;
        m_pos = AddrW'(p);
      end
    end
  end
  assign m_job = mem_q[m_idx];
  assign merge = in_valid_i && m_hit && (m_pos != '0) &&
                 (in_job.kind == rnic_pkg::JobAck) && (in_job.syn == rnic_pkg::AethAck) &&
                 (m_job.kind == rnic_pkg::JobAck) && (m_job.syn == rnic_pkg::AethAck) &&
                 rnic_pkg::psn_ge(in_job.psn, m_job.psn);

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
    else if (merge) mem_q[m_idx] <= in_data_i;
  end
endmodule
