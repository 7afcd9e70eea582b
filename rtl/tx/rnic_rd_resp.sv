// rnic_rd_resp: the responder's transmit side. Jobs from the transport
// engine, in the order the requests arrived, become ACK/NAK frames, atomic
// ACKs (with the original value), or RDMA READ response streams
// (first/middle/last/only, path-MTU payloads read from host memory by the TX
// builder). One queue keeps an ACK from passing the responses before it;
// a newer ACK of the same QP replaces a queued one (rnic_rsp_job_q). A READ
// response stream leaves the queue with its first frame, and the jobs of
// other QPs behind it take turns with its frames (responses are ordered per
// QP only).
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

  // The head job's fields
  logic j_read;
  logic [1:0] j_kind;
  logic [23:0] j_qpn, j_psn, j_msn;
  logic [7:0] j_syn;
  logic [63:0] j_addr, j_orig;
  logic [31:0] j_len;
  logic j_dup;
  assign {j_kind, j_qpn, j_psn, j_syn, j_msn, j_addr, j_len, j_orig, j_dup} = j;
  assign j_read = (j_kind == rnic_pkg::JobRead);

  // The READ response stream in progress. A READ job leaves the queue with
  // its first frame (unless that is also its last) and its other frames
  // come from here, so the jobs behind it of other QPs go out between them:
  // the IBA orders a QP's responses, not those of different QPs, and an ACK
  // no longer waits for another QP's whole stream (sys_ack_beside_read). A
  // job of the stream's own QP, and another READ, wait for its end.
  logic sv_q;
  logic [rnic_pkg::RspJobW-1:0] s_q;
  logic [31:0] sent_q;     // READ bytes already in earlier responses
  logic [23:0] k_q;        // response packet number
  logic [1:0] s_kind;
  logic [23:0] s_qpn, s_psn, s_msn;
  logic [7:0] s_syn;
  logic [63:0] s_addr, s_orig;
  logic [31:0] s_len;
  logic s_dup;
  assign {s_kind, s_qpn, s_psn, s_syn, s_msn, s_addr, s_len, s_orig, s_dup} = s_q;

  // The source of this cycle's frame (sel: the stream): a frame offered
  // and not taken stays offered (held_q); otherwise the two take turns
  // (last_q: the stream's frame went last) when both have one.
  logic held_q, sel_q, last_q, sel, head_ok;
  assign head_ok = jv && (!sv_q || (!j_read && (j_qpn != s_qpn)));
  assign sel = held_q ? sel_q : (sv_q && head_ok) ? !last_q : sv_q;

  logic c_v, c_read, c_dup;
  logic [1:0] c_kind;
  logic [23:0] c_qpn, c_psn, c_msn, c_k;
  logic [7:0] c_syn;
  logic [63:0] c_addr, c_orig;
  logic [31:0] c_len, c_sent;
  assign c_v = sel ? sv_q : jv;
  assign c_kind = sel ? rnic_pkg::JobRead : j_kind;   // the stream is a READ
  assign c_qpn = sel ? s_qpn : j_qpn;
  assign c_psn = sel ? s_psn : j_psn;
  assign c_msn = sel ? s_msn : j_msn;
  assign c_syn = sel ? s_syn : j_syn;
  assign c_addr = sel ? s_addr : j_addr;
  assign c_orig = j_orig;   // an atomic's, never the stream's
  assign c_len = sel ? s_len : j_len;
  assign c_dup = sel ? s_dup : j_dup;
  assign c_k = sel ? k_q : '0;
  assign c_sent = sel ? sent_q : '0;
  assign c_read = (c_kind == rnic_pkg::JobRead);
  assign ctx_idx_o = c_qpn;

  /* verilator lint_off UNUSEDSIGNAL */  // a context view: each block reads its own fields
  rnic_pkg::qp_cfg_t ctx;
  /* verilator lint_on UNUSEDSIGNAL */
  assign ctx = ctx_i;
  logic [12:0] mtu;
  assign mtu = rnic_pkg::mtu_bytes(ctx.pmtu);

  logic [31:0] left;
  logic first, last;
  logic [12:0] pay;
  assign left = c_len - c_sent;
  assign first = (c_k == 24'd0);
  assign last = (left <= {19'd0, mtu});
  assign pay = last ? left[12:0] : mtu;

  rnic_pkg::txd_t t;
  always_comb begin
    t = '0;
    t.qpn = c_qpn;
    t.aeth_syn = c_syn;
    t.aeth_msn = c_msn;
    if (c_kind == rnic_pkg::JobAtomic) begin
      t.opcode = rnic_pkg::OpAtomicAck;
      t.psn = c_psn;
      t.atomic_swap = c_orig;
    end else if (!c_read) begin
      t.opcode = rnic_pkg::OpAck;
      t.psn = c_psn;
    end else begin
      t.psn = c_psn + c_k;
      t.opcode = (first && last) ? rnic_pkg::OpReadRespOnly :
                 first ? rnic_pkg::OpReadRespFirst :
                 last ? rnic_pkg::OpReadRespLast : rnic_pkg::OpReadRespMiddle;
      t.pay_len = pay;
      t.nchunk = (pay != 13'd0) ? 3'd1 : 3'd0;
      t.chunk_addr[63:0] = c_addr + {32'd0, c_sent};
      t.chunk_len[12:0] = pay;
    end
  end
  // The reset command waits for this queue and the stream to drain
  // (rnic_mmio's quiet), so no job of a reset QP is left when the QP is
  // used again. A frame already offered stays offered until taken (valid
  // is not withdrawn).
  logic drop, sent;
  assign drop = c_v && !held_q && (ctx.state == rnic_pkg::QpsReset);
  assign txd_o = t;
  assign txd_valid_o = c_v && !drop;
  assign sent = txd_valid_o && txd_ready_i;
  // The head leaves with its frame (a READ's first) or when dropped.
  assign jpop = !sel && (drop || sent);
  assign done_o = sent && (c_kind != rnic_pkg::JobAck) && !c_dup && (!c_read || last);
  assign done_qpn_o = c_qpn;
  assign quiet_o = !jv && !sv_q;

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      held_q <= 1'b0;
      sel_q <= 1'b0;
      last_q <= 1'b0;
      sv_q <= 1'b0;
      s_q <= '0;
      sent_q <= '0;
      k_q <= '0;
    end else begin
      held_q <= txd_valid_o && !txd_ready_i;
      sel_q <= sel;
      if (sent) last_q <= sel;
      if (sel && (drop || (sent && last))) begin
        sv_q <= 1'b0;   // the stream's last frame left, or its QP was reset
      end else if (sel && sent) begin
        sent_q <= sent_q + {19'd0, pay};
        k_q <= k_q + 24'd1;
      end else if (!sel && sent && c_read && !last) begin
        sv_q <= 1'b1;   // a READ's first frame left: the rest is the stream's
        s_q <= j;
        sent_q <= {19'd0, pay};
        k_q <= 24'd1;
      end
    end
  end

  logic unused;
  assign unused = ^{merged,            // visible in traces: an ACK was coalesced
                    s_kind, s_orig};   // the stream's kind is READ; orig is an atomic's
endmodule
