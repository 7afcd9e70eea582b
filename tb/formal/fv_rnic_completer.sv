// Properties of rnic_completer's in-flight ring (2 QPs, InflDepth 2, 256-bit
// data): each WQE of a QP completes once and in WQE order. The progress
// the completer reports to the SQ scheduler (done_ci_o) steps by one per
// report, or by two when the first of the two WQEs is an RC request
// without a completion of its own (the completer retires such a record and
// the next in one cycle), and never past the last WQE the requester handed
// over; every send completion names a WQE handed over and later than the
// QP's previous send completion (a CQE may leave after the progress report
// of its WQE) and carries a send opcode; a READ/atomic credit is returned
// (rd_done_o) only for a READ/atomic record still owed one; nothing is
// reported for a QPN beyond the table. (Until stop 54 the proof was of
// rnic_rx_engine with both roles, a configuration rnic_top no longer has;
// until stop 56 of that engine built for the completer's role alone.)
// Environment (assumed): the requester hands over a QP's records in WQE
// order, with send opcodes, each at most InflDepth past the progress last
// reported to the scheduler (the window rnic_sq_fetch keeps, fv_rnic_sq_fetch), or replaces
// a record still in the ring by a flush record (checked through the ring
// read port in the same cycle, as rnic_requester does); no QP context
// writes after reset (the per-QP tables start zeroed, as after a reset of
// the SQ); no move to ERR by the responder; no fast-forward skip. Every
// other input is free: packets (requests among them, which the completer
// drops), contexts, DMA responses, timers, and every ready.
module fv_rnic_completer (
  input logic        clk_i,
  input logic        rst_ni,
  input logic  pkt_valid_i,
  input logic [rnic_pkg::RxDescW+8+rnic_pkg::RxSlotW-1:0] pkt_i,
  input logic  infl_valid_i,
  input logic [23:0] qp_wr_idx_i,
  input logic [7:0] qp_wr_flags_i,
  input logic [2:0] qp_wr_state_i,
  input logic [23:0] qp_wr_rq_psn_i,
  input logic [23:0] qp_wr_sq_psn_i,
  input logic [rnic_pkg::QpCfgW-1:0] ctx_i,
  input logic [rnic_pkg::MrCfgW-1:0] mr_i,
  input logic  rd_req_ready_i,
  input logic  rd_rsp_valid_i,
  input logic [DataW-1:0] rd_rsp_data_i,
  input logic  rd_rsp_last_i,
  input logic  rd_rsp_err_i,
  input logic  rwc_lk_hit_i,
  input logic  rwc_lk_pend_i,
  input logic  rwc_lk_err_i,
  input logic  rwc_room_i,
  input logic [rnic_pkg::RwqeBits-1:0] rwc_lk_data_i,
  input logic  place_busy_i,
  input logic  scqe_ready_i,
  input logic  wr_ready_i,
  input logic  rewind_ready_i,
  input logic  noack_valid_i,
  input logic  noack_err_i,
  input logic [23:0] noack_qpn_i,
  input logic [15:0] noack_idx_i,
  input logic  done_ready_i,
  input logic [31:0] skip_cycles_i,
  input logic [rnic_pkg::InflW-1:0] infl_free_i,
  input logic        infl_repl_i,
  input logic [15:0] infl_repl_idx_i
);
  localparam int unsigned DataW = 256;
  localparam int unsigned NQp = 2;
  localparam int unsigned InflDepth = 2;
  logic  pkt_ready_o;
  logic  release_o;
  logic [rnic_pkg::RxSlotW-1:0] release_slot_o;
  logic  infl_ready_o;
  logic [23:0] ctx_idx_o;
  logic [23:0] mr_idx_o;
  logic  qp_err_o;
  logic  qp_err_sqe_o;
  logic [23:0] qp_err_qpn_o;
  logic  rd_req_valid_o;
  logic [63:0] rd_req_addr_o;
  logic [15:0] rd_req_len_o;
  logic  rd_rsp_ready_o;
  logic  rwc_hint_valid_o;
  logic  rwc_hint_evict_o;
  logic [rnic_pkg::RwqeKeyW-1:0] rwc_hint_key_o;
  logic [63:0] rwc_hint_addr_o;
  logic [15:0] rwc_hint_len_o;
  logic  rwc_lk_valid_o;
  logic [rnic_pkg::RwqeKeyW-1:0] rwc_lk_key_o;
  logic  rwc_inv_o;
  logic [rnic_pkg::RwqeKeyW-1:0] rwc_inv_key_o;
  logic  place_start_o;
  logic [rnic_pkg::RxSlotW-1:0] place_slot_o;
  logic [15:0] place_base_o;
  logic [2:0] place_nseg_o;
  logic [64*rnic_pkg::MaxSeg-1:0] place_addr_o;
  logic [32*rnic_pkg::MaxSeg-1:0] place_len_o;
  logic [16*rnic_pkg::MaxSeg-1:0] place_poff_o;
  logic [23:0] place_ev_qpn_o;
  logic [23:0] place_ev_psn_o;
  logic [2:0] place_ev_pos_o;
  logic  scqe_valid_o;
  logic [rnic_pkg::CqeReqW-1:0] scqe_o;
  logic  wr_valid_o;
  logic [63:0] wr_addr_o;
  logic [15:0] wr_len_o;
  logic [DataW-1:0] wr_data_o;
  logic  wr_last_o;
  logic  rewind_valid_o;
  logic [rnic_pkg::RewindW-1:0] rewind_o;
  logic  rewind_resume_o;
  logic  ring_rd_v_o;
  logic [rnic_pkg::InflW-1:0] ring_rd_o;
  logic  rd_done_o;
  logic [23:0] rd_done_qpn_o;
  logic  noack_ready_o;
  logic  done_valid_o;
  logic [23:0] done_qpn_o;
  logic [15:0] done_ci_o;
  logic  quiet_o, idle_o;
  logic [31:0] due_o;
  logic [rnic_pkg::InflW-1:0] infl_i;
  logic        qp_wr_i;
  logic [23:0] ring_rd_qpn_i;
  logic [15:0] ring_rd_idx_i;
  logic        skip_i;

  rnic_completer #(.DataW(DataW), .NQp(NQp), .InflDepth(InflDepth)) dut (
    .clk_i, .rst_ni, .pkt_valid_i, .pkt_ready_o, .pkt_i, .release_o, .release_slot_o,
    .infl_valid_i, .infl_ready_o, .infl_i,
    .qp_wr_i, .qp_wr_idx_i, .qp_wr_flags_i, .qp_wr_state_i, .qp_wr_rq_psn_i,
    .qp_wr_sq_psn_i, .ctx_idx_o, .ctx_i, .mr_idx_o, .mr_i, .qp_err_o, .qp_err_sqe_o,
    .qp_err_qpn_o, .err_in_valid_i(1'b0), .err_in_qpn_i('0),
    .rd_req_valid_o, .rd_req_ready_i, .rd_req_addr_o, .rd_req_len_o,
    .rd_rsp_valid_i, .rd_rsp_ready_o, .rd_rsp_data_i, .rd_rsp_last_i, .rd_rsp_err_i,
    .rwc_hint_valid_o, .rwc_hint_evict_o, .rwc_hint_key_o, .rwc_hint_addr_o, .rwc_hint_len_o,
    .rwc_lk_valid_o, .rwc_lk_key_o, .rwc_lk_hit_i, .rwc_lk_pend_i, .rwc_lk_err_i, .rwc_room_i,
    .rwc_lk_data_i, .rwc_inv_o, .rwc_inv_key_o,
    .place_start_o, .place_slot_o, .place_base_o, .place_nseg_o, .place_addr_o,
    .place_len_o, .place_poff_o, .place_busy_i, .place_want_o(), .place_ev_qpn_o,
    .place_ev_psn_o, .place_ev_pos_o,
    .scqe_valid_o, .scqe_ready_i, .scqe_o,
    .wr_valid_o, .wr_ready_i, .wr_addr_o, .wr_len_o, .wr_data_o, .wr_last_o,
    .rewind_valid_o, .rewind_ready_i, .rewind_o, .rewind_resume_o,
    .ring_rd_qpn_i, .ring_rd_idx_i, .ring_rd_v_o, .ring_rd_o, .rd_done_o, .rd_done_qpn_o,
    .noack_valid_i, .noack_err_i, .noack_ready_o, .noack_qpn_i, .noack_idx_i,
    .done_valid_o, .done_ready_i, .done_qpn_o, .done_ci_o,
    .quiet_o, .idle_o, .due_o, .skip_i, .skip_cycles_i
  );

  logic ran;
  always_ff @(posedge clk_i) ran <= ran || !rst_ni;
  always_comb assume (rst_ni == ran);
  assign qp_wr_i = 1'b0;
  assign skip_i = 1'b0;

  // Shadows per QP: records handed over (issued), the progress last
  // reported (done), the next WQE a send completion may name (cnext), and
  // READ/atomic records still owed a credit (rd). Flat vectors: registers,
  // not memories, in Yosys's formal flow.
  logic [16*NQp-1:0] issued, done, cnext;
  logic [4*NQp-1:0] rd;
  // Per QP and ring slot: the record handed over is an RC request without a
  // completion of its own (normal, not a READ/atomic, unsignaled).
  logic [NQp*InflDepth-1:0] plain;

  // The record: the requester's WQE order, or a flush record replacing one
  // still in the ring.
  rnic_pkg::infl_t rec, ring_rec;
  logic iq;
  logic [15:0] i_issued, i_done;
  assign iq = infl_free_i[rnic_pkg::InflW-24];
  assign i_issued = issued[16*iq +: 16];
  assign i_done = done[16*iq +: 16];
  always_comb begin
    rec = infl_free_i;
    rec.qpn = {23'd0, iq};
    rec.wqe_idx = infl_repl_i ? infl_repl_idx_i : i_issued;
    if (infl_repl_i) rec.kind = rnic_pkg::InflFlush;
  end
  assign infl_i = rec;
  assign ring_rd_qpn_i = rec.qpn;
  assign ring_rd_idx_i = rec.wqe_idx;
  assign ring_rec = ring_rd_o;
  always_comb begin
    // The requester's records carry send opcodes (its WQEs' wc_op).
    if (rst_ni && infl_valid_i) assume (rec.wc_op < rnic_pkg::WcOpRecv);
    if (rst_ni && infl_valid_i && !infl_repl_i) begin
      assume (16'(i_issued - i_done) < 16'(InflDepth));
    end
    if (rst_ni && infl_valid_i && infl_repl_i) begin
      assume (16'(infl_repl_idx_i - i_done) < 16'(i_issued - i_done));
      assume (ring_rd_v_o && (ring_rec.wqe_idx == infl_repl_idx_i) &&
              (ring_rec.kind == rnic_pkg::InflNormal));
    end
  end

  // The views of the QP each output names.
  rnic_pkg::cqe_req_t cqe;
  logic dq, cq, rq, send_cqe, infl_take, rd_new;
  logic [15:0] d_issued, d_done, c_issued, c_next;
  assign cqe = scqe_o;
  assign dq = done_qpn_o[0];
  assign cq = cqe.qpn[0];
  assign rq = rd_done_qpn_o[0];
  assign d_issued = issued[16*dq +: 16];
  assign d_done = done[16*dq +: 16];
  assign c_issued = issued[16*cq +: 16];
  assign c_next = cnext[16*cq +: 16];
  assign send_cqe = scqe_valid_o;
  assign infl_take = infl_valid_i && infl_ready_o;
  assign rd_new = infl_take && !infl_repl_i && rec.is_read &&
                  (rec.kind == rnic_pkg::InflNormal);

  always_ff @(posedge clk_i) begin
    if (!rst_ni) begin
      issued <= '0;
      done <= '0;
      cnext <= '0;
      rd <= '0;
      plain <= '0;
    end else begin
      if (infl_take && !infl_repl_i) issued[16*iq +: 16] <= i_issued + 16'd1;
      if (infl_take) begin
        plain[InflDepth*iq + 32'(rec.wqe_idx[$clog2(InflDepth)-1:0])] <=
            (rec.kind == rnic_pkg::InflNormal) && !rec.is_read && !rec.signaled;
      end
      if (done_valid_o && done_ready_i) done[16*dq +: 16] <= done_ci_o;
      if (send_cqe && scqe_ready_i) cnext[16*cq +: 16] <= cqe.wqe_idx + 16'd1;
      for (int i = 0; i < NQp; i++) begin
        rd[4*i +: 4] <= rd[4*i +: 4] + 4'((rd_new && (32'(iq) == i)) ? 1 : 0) -
                        4'((rd_done_o && (32'(rq) == i)) ? 1 : 0);
      end
    end
  end

  always_comb begin
    if (rst_ni && ran) begin
      // Progress: one WQE per report, or two of which the first needs no
      // completion; never past what was handed over.
      if (done_valid_o) begin
        assert (done_qpn_o < 24'(NQp));
        assert ((done_ci_o == d_done + 16'd1) ||
                ((done_ci_o == d_done + 16'd2) &&
                 plain[InflDepth*dq + 32'(d_done[$clog2(InflDepth)-1:0])]));
        assert (16'(done_ci_o - d_done) <= 16'(d_issued - d_done));
      end
      // Send completions: a WQE handed over, after the QP's previous one.
      if (send_cqe) begin
        assert (cqe.opcode < rnic_pkg::WcOpRecv);
        assert (cqe.qpn < 24'(NQp));
        assert (16'(cqe.wqe_idx - c_next) < 16'(c_issued - c_next));
      end
      // READ/atomic credits: only one that is owed.
      if (rd_done_o) begin
        assert (rd_done_qpn_o < 24'(NQp));
        assert (rd[4*rq +: 4] != 4'd0);
      end
    end
  end
endmodule
