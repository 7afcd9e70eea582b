// rnic_responder: the responder of the RC/UC/UD transport (requests from
// the peer): PSN and opcode-sequence checks, receive WQEs, rkey and bounds,
// placement jobs, ACK/NAK, READ and atomic jobs, receive CQEs, the receive
// queue's flush in ERR (docs/transport.md). It runs beside rnic_completer.
// The logic is rnic_rx_engine's, built for this role alone (Responder 1,
// Completer 0): these are the ports the role uses; the engine's other ones
// are tied off here.
module rnic_responder #(
  parameter int unsigned DataW = 256,
  parameter int unsigned NQp = 1024,
  parameter int unsigned InflDepth = 8
) (
  input  logic        clk_i,
  input  logic        rst_ni,
  // Parsed request packets, and the slots of the frames not placed
  input  logic        pkt_valid_i,
  output logic        pkt_ready_o,
  input  logic [rnic_pkg::RxDescW+8+rnic_pkg::RxSlotW-1:0] pkt_i,
  output logic        release_o,
  output logic [rnic_pkg::RxSlotW-1:0] release_slot_o,
  // Receive doorbells
  input  logic        rq_db_valid_i,
  output logic        rq_db_ready_o,
  input  logic [63:0] rq_db_data_i,
  // QP context writes
  input  logic        qp_wr_i,
  input  logic [23:0] qp_wr_idx_i,
  input  logic [7:0]  qp_wr_flags_i,
  input  logic [2:0]  qp_wr_state_i,
  input  logic [23:0] qp_wr_rq_psn_i,
  input  logic [23:0] qp_wr_sq_psn_i,
  // Context read ports; a QP moved to ERR here, and one the completer moved
  output logic [23:0] ctx_idx_o,
  input  logic [rnic_pkg::QpCfgW-1:0] ctx_i,
  output logic [23:0] mr_idx_o,
  input  logic [rnic_pkg::MrCfgW-1:0] mr_i,
  output logic        qp_err_o,
  output logic [23:0] qp_err_qpn_o,
  input  logic        err_in_valid_i,
  input  logic [23:0] err_in_qpn_i,
  // Receive WQE reads (a WQE cache miss)
  output logic        rd_req_valid_o,
  input  logic        rd_req_ready_i,
  output logic [63:0] rd_req_addr_o,
  output logic [15:0] rd_req_len_o,
  input  logic        rd_rsp_valid_i,
  output logic        rd_rsp_ready_o,
  input  logic [DataW-1:0] rd_rsp_data_i,
  input  logic        rd_rsp_last_i,
  input  logic        rd_rsp_err_i,
  // WQE cache: receive WQEs to read ahead, looked up, retired
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
  // Placement jobs (shared with the completer: place_want_o asks, a low
  // place_busy_i grants)
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
  // Receive completions
  output logic        rcqe_valid_o,
  input  logic        rcqe_ready_i,
  output logic [rnic_pkg::CqeReqW-1:0] rcqe_o,
  // Transmit jobs, and the READ/atomic jobs whose responses have left
  output logic        job_valid_o,
  input  logic        job_ready_i,
  output logic [rnic_pkg::RspJobW-1:0] job_o,
  input  logic        rsp_done_i,
  input  logic [23:0] rsp_done_qpn_i,
  // Atomics to rnic_atomic_unit
  output logic        at_valid_o,
  input  logic        at_ready_i,
  output logic [rnic_pkg::AtOpW-1:0] at_o,
  output logic [23:0] at_busy_qpn_o,
  input  logic        at_busy_i,
  input  logic        at_err_valid_i,
  output logic        at_err_ready_o,
  input  logic [23:0] at_err_qpn_i,
  // SRQ contexts and their writes
  output logic [15:0] srq_idx_o,
  input  logic [rnic_pkg::SrqCfgW-1:0] srq_i,
  input  logic        srq_wr_i,
  input  logic [47:0] srq_wr_limit_i,
  // MR-table update (SEND_WITH_INV invalidates a memory window)
  output logic        mr_upd_valid_o,
  input  logic        mr_upd_ready_i,
  output logic [23:0] mr_upd_idx_o,
  output logic [rnic_pkg::MrCfgW-1:0] mr_upd_o,
  // Asynchronous events {type, QPN/SRQN}
  output logic        aev_valid_o,
  input  logic        aev_ready_i,
  output logic [31:0] aev_o,
  // QP_QUERY: the PSN expected next
  input  logic [23:0] query_idx_i,
  output logic [23:0] query_rq_psn_o,
  // Fast-forward and the command path's quiet check (rnic_rx_engine)
  output logic        quiet_o,
  output logic        idle_o
);
  // The completer's outputs, which this role never drives
  logic sqe, infl_ready, scqe_valid, wr_valid, wr_last, rewind_valid, rewind_resume, rd_done;
  logic ring_rd_v, noack_ready, done_valid;
  logic [23:0] rd_done_qpn, done_qpn;
  logic [15:0] wr_len, done_ci;
  logic [63:0] wr_addr;
  logic [DataW-1:0] wr_data;
  logic [rnic_pkg::CqeReqW-1:0] scqe;
  logic [rnic_pkg::RewindW-1:0] rewind;
  logic [rnic_pkg::InflW-1:0] ring_rd;
  logic [31:0] due;

  rnic_rx_engine #(
    .DataW(DataW), .NQp(NQp), .InflDepth(InflDepth), .Responder(1'b1), .Completer(1'b0)
  ) u_engine (
    .clk_i, .rst_ni,
    .pkt_valid_i, .pkt_ready_o, .pkt_i, .release_o, .release_slot_o,
    .infl_valid_i(1'b0), .infl_ready_o(infl_ready), .infl_i('0),
    .rq_db_valid_i, .rq_db_ready_o, .rq_db_data_i,
    .qp_wr_i, .qp_wr_idx_i, .qp_wr_flags_i, .qp_wr_state_i, .qp_wr_rq_psn_i, .qp_wr_sq_psn_i,
    .ctx_idx_o, .ctx_i, .mr_idx_o, .mr_i,
    .qp_err_o, .qp_err_sqe_o(sqe), .qp_err_qpn_o, .err_in_valid_i, .err_in_qpn_i,
    .rd_req_valid_o, .rd_req_ready_i, .rd_req_addr_o, .rd_req_len_o,
    .rd_rsp_valid_i, .rd_rsp_ready_o, .rd_rsp_data_i, .rd_rsp_last_i, .rd_rsp_err_i,
    .rwc_hint_valid_o, .rwc_hint_evict_o, .rwc_hint_key_o, .rwc_hint_addr_o, .rwc_hint_len_o,
    .rwc_lk_valid_o, .rwc_lk_key_o, .rwc_lk_hit_i, .rwc_lk_pend_i, .rwc_lk_err_i, .rwc_room_i,
    .rwc_lk_data_i, .rwc_inv_o, .rwc_inv_key_o,
    .place_start_o, .place_slot_o, .place_base_o, .place_nseg_o, .place_addr_o, .place_len_o,
    .place_poff_o, .place_busy_i, .place_want_o,
    .place_ev_qpn_o, .place_ev_psn_o, .place_ev_pos_o,
    .scqe_valid_o(scqe_valid), .scqe_ready_i(1'b0), .scqe_o(scqe),
    .rcqe_valid_o, .rcqe_ready_i, .rcqe_o,
    .job_valid_o, .job_ready_i, .job_o, .rsp_done_i, .rsp_done_qpn_i,
    .at_valid_o, .at_ready_i, .at_o, .at_busy_qpn_o, .at_busy_i,
    .at_err_valid_i, .at_err_ready_o, .at_err_qpn_i,
    .wr_valid_o(wr_valid), .wr_ready_i(1'b0), .wr_addr_o(wr_addr), .wr_len_o(wr_len),
    .wr_data_o(wr_data), .wr_last_o(wr_last),
    .rewind_valid_o(rewind_valid), .rewind_ready_i(1'b0), .rewind_o(rewind),
    .rewind_resume_o(rewind_resume),
    .ring_rd_qpn_i('0), .ring_rd_idx_i('0), .ring_rd_v_o(ring_rd_v), .ring_rd_o(ring_rd),
    .rd_done_o(rd_done), .rd_done_qpn_o(rd_done_qpn),
    .noack_valid_i(1'b0), .noack_err_i(1'b0), .noack_ready_o(noack_ready),
    .noack_qpn_i('0), .noack_idx_i('0),
    .srq_idx_o, .srq_i, .srq_wr_i, .srq_wr_limit_i,
    .mr_upd_valid_o, .mr_upd_ready_i, .mr_upd_idx_o, .mr_upd_o,
    .aev_valid_o, .aev_ready_i, .aev_o,
    .done_valid_o(done_valid), .done_ready_i(1'b0), .done_qpn_o(done_qpn), .done_ci_o(done_ci),
    .query_idx_i, .query_rq_psn_o,
    .quiet_o, .idle_o, .due_o(due), .skip_i(1'b0), .skip_cycles_i('0)
  );

  logic unused;
  assign unused = ^{sqe, infl_ready, scqe_valid, scqe, wr_valid, wr_addr, wr_len, wr_data,
                    wr_last, rewind_valid, rewind, rewind_resume, ring_rd_v, ring_rd, rd_done,
                    rd_done_qpn, noack_ready, done_valid, done_qpn, done_ci, due};

`ifdef RNIC_ASSERT
  /* verilator coverage_off */
  // Simulation check: nothing of the completer's leaves this role.
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
    end else begin
      assert (!scqe_valid && !wr_valid && !rewind_valid && !rd_done && !done_valid && !sqe);
    end
  end
  /* verilator coverage_on */
`endif
endmodule
