// rnic_rd_resp: the responder's transmit side. Jobs from the transport
// engine, in the order the requests arrived, become ACK/NAK frames, atomic
// ACKs (with the original value), or RDMA READ response streams
// (first/middle/last/only, path-MTU payloads read from host memory by the TX
// builder). One queue keeps an ACK from passing the responses before it;
// a newer ACK of the same QP replaces a queued one (rnic_rsp_job_q).
// done_o reports each READ or atomic job whose last frame left, which frees
// one of the QP's responder resources (max_dest_rd_atomic). A QP moved to
// RESET owes nothing: its jobs leave the queue without a frame, also the
// rest of a READ response stream (the engine cleared its resources).
module rnic_rd_resp #(
  parameter int unsigned JobDepth = 8
) (
  input  logic        clk_i,
  input  logic        rst_ni,
  input  logic        job_valid_i,
  output logic        job_ready_o,
  input  logic [rnic_pkg::RspJobW-1:0] job_i,
  output logic [23:0] ctx_idx_o,
  input  logic [rnic_pkg::QpCfgW-1:0] ctx_i,
  output logic        txd_valid_o,
  input  logic        txd_ready_i,
  output logic [rnic_pkg::TxdW-1:0] txd_o,
  output logic        done_o,
  output logic [23:0] done_qpn_o,
  // No job queued (fast-forward)
  output logic        quiet_o
);
  logic jv;
  logic [rnic_pkg::RspJobW-1:0] j;
  logic jpop;
  logic merged;
  rnic_rsp_job_q #(.Depth(JobDepth)) u_jobs (
    .clk_i, .rst_ni,
    .in_valid_i(job_valid_i), .in_ready_o(job_ready_o), .in_data_i(job_i),
    .out_valid_o(jv), .out_ready_i(jpop), .out_data_o(j),
    .merged_o(merged)
  );

  logic j_read;
  logic [1:0] j_kind;
  logic [23:0] j_qpn, j_psn, j_msn;
  logic [7:0] j_syn;
  logic [63:0] j_addr, j_orig;
  logic [31:0] j_len;
  logic j_dup;
  assign {j_kind, j_qpn, j_psn, j_syn, j_msn, j_addr, j_len, j_orig, j_dup} = j;
  assign j_read = (j_kind == rnic_pkg::JobRead);
  assign ctx_idx_o = j_qpn;

  /* verilator lint_off UNUSEDSIGNAL */  // a context view: each block reads its own fields
  rnic_pkg::qp_cfg_t ctx;
  /* verilator lint_on UNUSEDSIGNAL */
  assign ctx = ctx_i;
  logic [12:0] mtu;
  assign mtu = rnic_pkg::mtu_bytes(ctx.pmtu);

  logic [31:0] sent_q;     // READ bytes already in earlier responses
  logic [23:0] k_q;        // response packet number
  logic [31:0] left;
  logic first, last;
  logic [12:0] pay;
  assign left = j_len - sent_q;
  assign first = (k_q == 24'd0);
  assign last = (left <= {19'd0, mtu});
  assign pay = last ? left[12:0] : mtu;

  rnic_pkg::txd_t t;
  always_comb begin
    t = '0;
    t.qpn = j_qpn;
    t.aeth_syn = j_syn;
    t.aeth_msn = j_msn;
    if (j_kind == rnic_pkg::JobAtomic) begin
      t.opcode = rnic_pkg::OpAtomicAck;
      t.psn = j_psn;
      t.atomic_swap = j_orig;
    end else if (!j_read) begin
      t.opcode = rnic_pkg::OpAck;
      t.psn = j_psn;
    end else begin
      t.psn = j_psn + k_q;
      t.opcode = (first && last) ? rnic_pkg::OpReadRespOnly :
                 first ? rnic_pkg::OpReadRespFirst :
                 last ? rnic_pkg::OpReadRespLast : rnic_pkg::OpReadRespMiddle;
      t.pay_len = pay;
      t.nchunk = (pay != 13'd0) ? 3'd1 : 3'd0;
      t.chunk_addr[63:0] = j_addr + {32'd0, sent_q};
      t.chunk_len[12:0] = pay;
    end
  end
  // The reset command waits for this queue to drain (rnic_mmio's quiet), so
  // no job of a reset QP is left when the QP is used again. A frame already
  // offered stays offered until taken (valid is not withdrawn).
  logic held_q, drop;
  assign drop = jv && !held_q && (ctx.state == rnic_pkg::QpsReset);
  assign txd_o = t;
  assign txd_valid_o = jv && !drop;
  assign jpop = drop || (jv && txd_ready_i && (!j_read || last));
  assign done_o = jpop && !drop && (j_kind != rnic_pkg::JobAck) && !j_dup;
  assign done_qpn_o = j_qpn;
  assign quiet_o = !jv;

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      held_q <= 1'b0;
    end else begin
      held_q <= txd_valid_o && !txd_ready_i;
    end
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      sent_q <= '0;
      k_q <= '0;
    end else if (jpop) begin
      sent_q <= '0;
      k_q <= '0;
    end else if (jv && txd_ready_i) begin
      sent_q <= sent_q + {19'd0, pay};
      k_q <= k_q + 24'd1;
    end
  end

  logic unused;
  assign unused = merged;  // visible in traces: an ACK was coalesced
endmodule
