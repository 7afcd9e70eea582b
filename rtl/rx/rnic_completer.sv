// rnic_completer: the completer of the RC/UC/UD transport (responses to our
// requests): the per-QP ring of in-flight send WQEs, retired by ACKs, READ
// responses and atomic ACKs (whose data it places into the WQE's SGEs) and
// NAKs; sequence and implied NAKs, ACK timeouts and RNR NAKs rewind the send
// queue; send CQEs and the progress reports to the SQ scheduler; the ring's
// flush in ERR (docs/transport.md). It runs beside rnic_responder. The
// logic is rnic_rx_engine's, built for this role alone (Responder 0,
// Completer 1): these are the ports the role uses; the engine's other ones
// are tied off here.
module rnic_completer #(
  parameter int unsigned DataW = 256,
  parameter int unsigned NQp = 1024,
  parameter int unsigned InflDepth = 8
) (
  input  logic        clk_i,
  input  logic        rst_ni,
  // Parsed response packets, and the slots of the frames not placed
  input  logic        pkt_valid_i,
  output logic        pkt_ready_o,
  input  logic [rnic_pkg::RxDescW+8+rnic_pkg::RxSlotW-1:0] pkt_i,
  output logic        release_o,
  output logic [rnic_pkg::RxSlotW-1:0] release_slot_o,
  // In-flight records from the requester
  input  logic        infl_valid_i,
  output logic        infl_ready_o,
  input  logic [rnic_pkg::InflW-1:0] infl_i,
  // QP context writes
  input  logic        qp_wr_i,
  input  logic [23:0] qp_wr_idx_i,
  input  logic [7:0]  qp_wr_flags_i,
  input  logic [2:0]  qp_wr_state_i,
  input  logic [23:0] qp_wr_rq_psn_i,
  input  logic [23:0] qp_wr_sq_psn_i,
  // Context read ports; a QP moved to ERR (or SQE) here, and one the
  // responder moved to ERR
  output logic [23:0] ctx_idx_o,
  input  logic [rnic_pkg::QpCfgW-1:0] ctx_i,
  output logic [23:0] mr_idx_o,
  input  logic [rnic_pkg::MrCfgW-1:0] mr_i,
  output logic        qp_err_o,
  output logic        qp_err_sqe_o,
  output logic [23:0] qp_err_qpn_o,
  input  logic        err_in_valid_i,
  input  logic [23:0] err_in_qpn_i,
  // Send WQE reads (a WQE cache miss)
  output logic        rd_req_valid_o,
  input  logic        rd_req_ready_i,
  output logic [63:0] rd_req_addr_o,
  output logic [15:0] rd_req_len_o,
  input  logic        rd_rsp_valid_i,
  output logic        rd_rsp_ready_o,
  input  logic [DataW-1:0] rd_rsp_data_i,
  input  logic        rd_rsp_last_i,
  input  logic        rd_rsp_err_i,
  // WQE cache: a READ's or atomic's send WQE to read ahead, looked up,
  // retired
  output logic        rwc_hint_valid_o,
  output logic        rwc_hint_evict_o,
  output logic [rnic_pkg::RwqeKeyW-1:0] rwc_hint_key_o,
  output logic [63:0] rwc_hint_addr_o,
  output logic [15:0] rwc_hint_len_o,
  output logic        rwc_lk_valid_o,
  output logic [rnic_pkg::RwqeKeyW-1:0] rwc_lk_key_o,
  input  logic        rwc_lk_hit_i,
  input  logic        rwc_lk_pend_i,
  input  logic        rwc_lk_err_i,
  input  logic        rwc_room_i,
  input  logic [rnic_pkg::RwqeBits-1:0] rwc_lk_data_i,
  output logic        rwc_inv_o,
  output logic [rnic_pkg::RwqeKeyW-1:0] rwc_inv_key_o,
  // Placement jobs of READ response data (shared with the responder)
  output logic        place_start_o,
  output logic [rnic_pkg::RxSlotW-1:0] place_slot_o,
  output logic [15:0] place_base_o,
  output logic [2:0]  place_nseg_o,
  output logic [64*rnic_pkg::MaxSeg-1:0] place_addr_o,
  output logic [32*rnic_pkg::MaxSeg-1:0] place_len_o,
  output logic [16*rnic_pkg::MaxSeg-1:0] place_poff_o,
  input  logic        place_busy_i,
  output logic        place_want_o,
  output logic [23:0] place_ev_qpn_o,
  output logic [23:0] place_ev_psn_o,
  output logic [2:0]  place_ev_pos_o,
  // Send completions
  output logic        scqe_valid_o,
  input  logic        scqe_ready_i,
  output logic [rnic_pkg::CqeReqW-1:0] scqe_o,
  // The original value of an atomic ACK, to the requester's buffer
  output logic        wr_valid_o,
  input  logic        wr_ready_i,
  output logic [63:0] wr_addr_o,
  output logic [15:0] wr_len_o,
  output logic [DataW-1:0] wr_data_o,
  output logic        wr_last_o,
  // Rewinds of the send queue
  output logic        rewind_valid_o,
  input  logic        rewind_ready_i,
  output logic [rnic_pkg::RewindW-1:0] rewind_o,
  output logic        rewind_resume_o,
  // The requester reads the record of a WQE it sends again
  input  logic [23:0] ring_rd_qpn_i,
  input  logic [15:0] ring_rd_idx_i,
  output logic        ring_rd_v_o,
  output logic [rnic_pkg::InflW-1:0] ring_rd_o,
  // A READ/atomic WQE left the ring (its requester credit returns)
  output logic        rd_done_o,
  output logic [23:0] rd_done_qpn_o,
  // UC/UD frames that left, request frames dropped (rnic_tx_builder)
  input  logic        noack_valid_i,
  input  logic        noack_err_i,
  output logic        noack_ready_o,
  input  logic [23:0] noack_qpn_i,
  input  logic [15:0] noack_idx_i,
  // Progress to the SQ scheduler
  output logic        done_valid_o,
  input  logic        done_ready_i,
  output logic [23:0] done_qpn_o,
  output logic [15:0] done_ci_o,
  // Fast-forward (the ACK timer's next expiry) and the command path's
  // quiet check (rnic_rx_engine)
  output logic        quiet_o,
  output logic        idle_o,
  output logic [31:0] due_o,
  input  logic        skip_i,
  input  logic [31:0] skip_cycles_i
);
  // The responder's outputs, which this role never drives
  logic rq_db_ready, rcqe_valid, job_valid, at_valid, at_err_ready, mr_upd_valid, aev_valid;
  logic [rnic_pkg::CqeReqW-1:0] rcqe;
  logic [rnic_pkg::RspJobW-1:0] job;
  logic [rnic_pkg::AtOpW-1:0] at;
  logic [23:0] at_busy_qpn, mr_upd_idx, query_rq_psn;
  logic [15:0] srq_idx;
  logic [rnic_pkg::MrCfgW-1:0] mr_upd;
  logic [31:0] aev;

  rnic_rx_engine #(
    .DataW(DataW), .NQp(NQp), .InflDepth(InflDepth), .Responder(1'b0), .Completer(1'b1)
  ) u_engine (
    .clk_i, .rst_ni,
    .pkt_valid_i, .pkt_ready_o, .pkt_i, .release_o, .release_slot_o,
    .infl_valid_i, .infl_ready_o, .infl_i,
    .rq_db_valid_i(1'b0), .rq_db_ready_o(rq_db_ready), .rq_db_data_i('0),
    .qp_wr_i, .qp_wr_idx_i, .qp_wr_flags_i, .qp_wr_state_i, .qp_wr_rq_psn_i, .qp_wr_sq_psn_i,
    .ctx_idx_o, .ctx_i, .mr_idx_o, .mr_i,
    .qp_err_o, .qp_err_sqe_o, .qp_err_qpn_o, .err_in_valid_i, .err_in_qpn_i,
    .rd_req_valid_o, .rd_req_ready_i, .rd_req_addr_o, .rd_req_len_o,
    .rd_rsp_valid_i, .rd_rsp_ready_o, .rd_rsp_data_i, .rd_rsp_last_i, .rd_rsp_err_i,
    .rwc_hint_valid_o, .rwc_hint_evict_o, .rwc_hint_key_o, .rwc_hint_addr_o, .rwc_hint_len_o,
    .rwc_lk_valid_o, .rwc_lk_key_o, .rwc_lk_hit_i, .rwc_lk_pend_i, .rwc_lk_err_i, .rwc_room_i,
    .rwc_lk_data_i, .rwc_inv_o, .rwc_inv_key_o,
    .place_start_o, .place_slot_o, .place_base_o, .place_nseg_o, .place_addr_o, .place_len_o,
    .place_poff_o, .place_busy_i, .place_want_o,
    .place_ev_qpn_o, .place_ev_psn_o, .place_ev_pos_o,
    .scqe_valid_o, .scqe_ready_i, .scqe_o,
    .rcqe_valid_o(rcqe_valid), .rcqe_ready_i(1'b0), .rcqe_o(rcqe),
    .job_valid_o(job_valid), .job_ready_i(1'b0), .job_o(job),
    .rsp_done_i(1'b0), .rsp_done_qpn_i('0),
    .at_valid_o(at_valid), .at_ready_i(1'b0), .at_o(at), .at_busy_qpn_o(at_busy_qpn),
    .at_busy_i(1'b0), .at_err_valid_i(1'b0), .at_err_ready_o(at_err_ready), .at_err_qpn_i('0),
    .wr_valid_o, .wr_ready_i, .wr_addr_o, .wr_len_o, .wr_data_o, .wr_last_o,
    .rewind_valid_o, .rewind_ready_i, .rewind_o, .rewind_resume_o,
    .ring_rd_qpn_i, .ring_rd_idx_i, .ring_rd_v_o, .ring_rd_o,
    .rd_done_o, .rd_done_qpn_o,
    .noack_valid_i, .noack_err_i, .noack_ready_o, .noack_qpn_i, .noack_idx_i,
    .srq_idx_o(srq_idx), .srq_i('0), .srq_wr_i(1'b0), .srq_wr_limit_i('0),
    .mr_upd_valid_o(mr_upd_valid), .mr_upd_ready_i(1'b0), .mr_upd_idx_o(mr_upd_idx),
    .mr_upd_o(mr_upd),
    .aev_valid_o(aev_valid), .aev_ready_i(1'b0), .aev_o(aev),
    .done_valid_o, .done_ready_i, .done_qpn_o, .done_ci_o,
    .query_idx_i('0), .query_rq_psn_o(query_rq_psn),
    .quiet_o, .idle_o, .due_o, .skip_i, .skip_cycles_i
  );

  logic unused;
  assign unused = ^{rq_db_ready, rcqe_valid, rcqe, job_valid, job, at_valid, at, at_busy_qpn,
                    at_err_ready, srq_idx, mr_upd_valid, mr_upd_idx, mr_upd, aev_valid, aev,
                    query_rq_psn};

`ifdef RNIC_ASSERT
  /* verilator coverage_off */
  // Simulation check: nothing of the responder's leaves this role (its
  // events among them: the completer raises none).
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
    end else begin
      assert (!rcqe_valid && !job_valid && !at_valid && !mr_upd_valid && !aev_valid);
    end
  end
  /* verilator coverage_on */
`endif
endmodule
