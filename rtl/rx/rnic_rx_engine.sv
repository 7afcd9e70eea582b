// rnic_rx_engine: the RC transport engine for received packets.
//
// Responder (requests from the peer): PSN and opcode-sequence checks, SEND
// placement into the receive WQE's scatter list, RDMA WRITE placement after an
// rkey check, RDMA READ jobs for the response generator, ACK/NAK jobs, receive
// CQEs. Completer (responses to our requests): the per-QP ring of in-flight
// send WQEs (written by the requester in WQE order), retired by ACKs, by READ
// responses (whose data are placed into the READ WQE's SGEs) and by NAKs,
// which complete the WQE with the error of the syndrome and flush the rest.
// One event is handled at a time; placement re-reads the WQE from host memory
// (the SGEs are not cached).
module rnic_rx_engine #(
  parameter int unsigned DataW = 256,
  parameter int unsigned NQp = 1024,
  parameter int unsigned InflDepth = 8
) (
  input  logic        clk_i,
  input  logic        rst_ni,
  // Parsed packets
  input  logic        pkt_valid_i,
  output logic        pkt_ready_o,
  input  logic [rnic_pkg::RxDescW+8+rnic_pkg::RxSlotW-1:0] pkt_i,
  output logic        release_o,
  output logic [rnic_pkg::RxSlotW-1:0] release_slot_o,
  // In-flight records from the requester
  input  logic        infl_valid_i,
  output logic        infl_ready_o,
  input  logic [rnic_pkg::InflW-1:0] infl_i,
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
  // Context read ports, QP error report
  output logic [23:0] ctx_idx_o,
  input  logic [rnic_pkg::QpCfgW-1:0] ctx_i,
  output logic [23:0] mr_idx_o,
  input  logic [rnic_pkg::MrCfgW-1:0] mr_i,
  output logic        qp_err_o,
  output logic [23:0] qp_err_qpn_o,
  // WQE reads for placement
  output logic        rd_req_valid_o,
  input  logic        rd_req_ready_i,
  output logic [63:0] rd_req_addr_o,
  output logic [15:0] rd_req_len_o,
  input  logic        rd_rsp_valid_i,
  output logic        rd_rsp_ready_o,
  input  logic [DataW-1:0] rd_rsp_data_i,
  input  logic        rd_rsp_last_i,
  input  logic        rd_rsp_err_i,
  // Placement unit control
  output logic        place_start_o,
  output logic [rnic_pkg::RxSlotW-1:0] place_slot_o,
  output logic [15:0] place_base_o,
  output logic [2:0]  place_nseg_o,
  output logic [255:0] place_addr_o,
  output logic [127:0] place_len_o,
  output logic [63:0] place_poff_o,
  input  logic        place_busy_i,
  // CQEs
  output logic        cqe_valid_o,
  input  logic        cqe_ready_i,
  output logic [rnic_pkg::CqeReqW-1:0] cqe_o,
  // ACK/NAK and READ response jobs: {is_read, qpn, psn, syn, msn, addr, len}
  output logic        job_valid_o,
  input  logic        job_ready_i,
  output logic [176:0] job_o,
  // Completer progress to the SQ scheduler
  output logic        done_valid_o,
  input  logic        done_ready_i,
  output logic [23:0] done_qpn_o,
  output logic [15:0] done_ci_o
);
  localparam int unsigned QpW = $clog2(NQp);
  localparam int unsigned RingW = $clog2(InflDepth);
  localparam int unsigned WqeBits = rnic_pkg::WqeBits;
  localparam int unsigned BeatsMax = WqeBits / DataW;
  localparam int unsigned BeatW = (BeatsMax > 1) ? $clog2(BeatsMax) : 1;

  // ---------------------------------------------------------------------------
  // Per-QP state
  // ---------------------------------------------------------------------------
  // Responder
  logic [23:0] epsn_q [NQp];
  logic [23:0] msn_q [NQp];
  logic [15:0] rq_pi_q [NQp];
  logic [15:0] rq_ci_q [NQp];
  logic [31:0] rmsg_off_q [NQp];
  logic [63:0] wr_addr_q [NQp];
  logic [31:0] wr_left_q [NQp];
  logic [31:0] wr_len_q [NQp];
  logic [1:0] seq_q [NQp];       // 0 idle, 1 inside a SEND, 2 inside a WRITE
  // Completer
  logic [rnic_pkg::InflW-1:0] ring_q [NQp * InflDepth];
  logic [InflDepth-1:0] ring_v_q [NQp];
  logic [15:0] cdone_q [NQp];

  localparam logic [1:0] SeqIdle = 2'd0;
  localparam logic [1:0] SeqSend = 2'd1;
  localparam logic [1:0] SeqWrite = 2'd2;

  typedef enum logic [4:0] {
    StIdle, StPkt, StResp, StRetire, StRetireOut, StNakHead, StRdRespHead,
    StReq, StFetchReq, StFetchData, StMap, StPlace, StAfterPlace,
    StRqFlush, StJob, StErrCqe, StDrop
  } state_e;
  state_e st_q, ret_st_q;

  // Current packet
  logic [rnic_pkg::RxSlotW-1:0] slot_q;
  logic placed_q;          // the payload went to placement, which frees the slot
  logic [7:0] poff_q;
  /* verilator lint_off UNUSEDSIGNAL */  // packet header view
  rnic_pkg::rx_desc_t d_q;
  /* verilator lint_on UNUSEDSIGNAL */
  logic [23:0] qpn_q;
  logic [QpW-1:0] q;
  assign q = qpn_q[QpW-1:0];
  assign ctx_idx_o = qpn_q;
  /* verilator lint_off UNUSEDSIGNAL */  // a context view: each block reads its own fields
  rnic_pkg::qp_cfg_t ctx;
  /* verilator lint_on UNUSEDSIGNAL */
  assign ctx = ctx_i;

  logic [3:0] mtu_lg;
  assign mtu_lg = rnic_pkg::mtu_log(ctx.pmtu);

  // ---------------------------------------------------------------------------
  // Ring head
  // ---------------------------------------------------------------------------
  logic [15:0] head_idx;
  logic [RingW-1:0] head_slot;
  /* verilator lint_off UNUSEDSIGNAL */  // in-flight record views
  rnic_pkg::infl_t head;
  /* verilator lint_on UNUSEDSIGNAL */
  logic head_v;
  assign head_idx = cdone_q[q];
  assign head_slot = head_idx[RingW-1:0];
  assign head = ring_q[{q, head_slot}];
  assign head_v = ring_v_q[q][head_slot];

  logic pend_err_q;          // driver moved a QP to ERR: flush it
  logic [23:0] pend_err_qpn_q;

  // Retire loop parameters
  logic flushing_q;       // complete everything with flush error
  logic [23:0] ack_psn_q; // highest PSN acknowledged
  logic ack_mode_q;
  logic [7:0] nak_status_q;

  // Retire outputs in flight
  logic need_cqe_q, need_done_q;
  rnic_pkg::cqe_req_t cqe_q;
  // A completion, and a READ request's DMA reads, see memory only after every
  // payload handed to placement before them has been written.
  logic place_idle;
  assign place_idle = !place_busy_i && !place_start_o;
  assign cqe_valid_o = need_cqe_q && place_idle;
  assign cqe_o = cqe_q;
  assign done_valid_o = need_done_q;
  assign done_qpn_o = qpn_q;
  assign done_ci_o = cdone_q[q];

  // Jobs
  logic job_v_q;
  logic [176:0] job_q;
  assign job_valid_o = job_v_q && (!job_q[176] || place_idle);
  assign job_o = job_q;

  // ---------------------------------------------------------------------------
  // WQE fetch for placement
  // ---------------------------------------------------------------------------
  logic [63:0] wqe_addr_q;
  logic [15:0] wqe_len_q;
  logic [WqeBits-1:0] wqe_q;
  logic [BeatW-1:0] beat_q;
  logic wqe_err_q;
  assign rd_req_valid_o = (st_q == StFetchReq);
  assign rd_req_addr_o = wqe_addr_q;
  assign rd_req_len_o = wqe_len_q;
  assign rd_rsp_ready_o = (st_q == StFetchData);

  // ---------------------------------------------------------------------------
  // SGE mapping: message bytes [moff, moff+plen) onto the WQE's SGEs
  // ---------------------------------------------------------------------------
  logic [2:0] sge_first_q, sge_cnt_q, sge_i_q;
  logic [31:0] moff_q, acc_q;
  logic [12:0] plen_q;
  logic [2:0] nseg_q;
  logic [255:0] seg_addr_q;
  logic [127:0] seg_len_q;
  logic [63:0] seg_poff_q;
  logic map_prot_q;

  logic [127:0] sge;
  logic [31:0] sge_len, sge_key;
  logic [63:0] sge_va;
  assign sge = wqe_q[({4'd0, sge_first_q} + {4'd0, sge_i_q}) * 128 +: 128];
  assign sge_len = sge[31:0];
  assign sge_key = sge[63:32];
  assign sge_va = sge[127:64];

  // Key check: SGE (local write) while mapping, rkey otherwise.
  logic chk_sge;
  assign chk_sge = (st_q == StMap) && !is_write && !is_read_req;
  logic [31:0] chk_key, chk_len;
  logic [63:0] chk_va;
  logic [3:0] chk_acc;
  assign chk_key = chk_sge ? sge_key : d_q.reth_rkey;
  assign chk_va = chk_sge ? sge_va : d_q.reth_va;
  assign chk_len = chk_sge ? sge_len : d_q.reth_len;
  assign chk_acc = chk_sge ? 4'b0001 :
                   (d_q.opcode == rnic_pkg::OpReadReq) ? 4'b0100 : 4'b0010;
  assign mr_idx_o = chk_key[31:8];
  logic chk_ok;
  logic [63:0] chk_bus;
  rnic_mr_check u_mr_check (
    .mr_i(mr_i), .key_i(chk_key), .pd_i(ctx.pd), .va_i(chk_va), .len_i(chk_len),
    .access_i(chk_acc), .ok_o(chk_ok), .bus_o(chk_bus)
  );

  logic [31:0] m_lo, m_hi, s_lo, s_hi;   // overlap of message range and SGE
  assign m_lo = moff_q;
  assign m_hi = moff_q + {19'd0, plen_q};
  assign s_lo = (acc_q > m_lo) ? acc_q : m_lo;
  assign s_hi = ((acc_q + sge_len) < m_hi) ? (acc_q + sge_len) : m_hi;

  // ---------------------------------------------------------------------------
  // Packet classification
  // ---------------------------------------------------------------------------
  logic [7:0] op;
  assign op = d_q.opcode;
  logic is_send, is_write, is_read_req, is_first, is_last, has_imm;
  assign is_send = (op <= rnic_pkg::OpSendOnlyImm);
  assign is_write = (op >= rnic_pkg::OpWriteFirst) && (op <= rnic_pkg::OpWriteOnlyImm);
  assign is_read_req = (op == rnic_pkg::OpReadReq);
  assign is_first = (op == rnic_pkg::OpSendFirst) || (op == rnic_pkg::OpSendOnly) ||
                    (op == rnic_pkg::OpSendOnlyImm) || (op == rnic_pkg::OpWriteFirst) ||
                    (op == rnic_pkg::OpWriteOnly) || (op == rnic_pkg::OpWriteOnlyImm);
  assign is_last = (op == rnic_pkg::OpSendLast) || (op == rnic_pkg::OpSendLastImm) ||
                   (op == rnic_pkg::OpSendOnly) || (op == rnic_pkg::OpSendOnlyImm) ||
                   (op == rnic_pkg::OpWriteLast) || (op == rnic_pkg::OpWriteLastImm) ||
                   (op == rnic_pkg::OpWriteOnly) || (op == rnic_pkg::OpWriteOnlyImm);
  assign has_imm = rnic_pkg::op_has_imm(op);

  logic resp_state_ok, req_state_ok;
  assign resp_state_ok = (ctx.state == rnic_pkg::QpsRts) || (ctx.state == rnic_pkg::QpsSqd) ||
                         (ctx.state == rnic_pkg::QpsSqe);
  assign req_state_ok = (ctx.state == rnic_pkg::QpsRtr) || resp_state_ok;

  logic [23:0] epsn;
  assign epsn = epsn_q[q];
  logic rq_empty;
  assign rq_empty = (rq_ci_q[q] == rq_pi_q[q]);
  logic [1:0] seq;
  assign seq = seq_q[q];
  logic seq_ok;
  assign seq_ok = is_first ? (seq == SeqIdle) :
                  is_send ? (seq == SeqSend) :
                  is_write ? (seq == SeqWrite) : (seq == SeqIdle);

  logic [31:0] rd_npkts;
  assign rd_npkts = (d_q.reth_len == 32'd0) ? 32'd1 :
                    ((d_q.reth_len + (32'd1 << mtu_lg) - 32'd1) >> mtu_lg);

  // NAK status at the requester, by syndrome
  function automatic logic [7:0] nak_status(input logic [7:0] syn);
    if (syn[7:5] == 3'b001) nak_status = rnic_pkg::WcRnrRetryExcErr;
    else if (syn == rnic_pkg::AethNakInvReq) nak_status = rnic_pkg::WcRemInvReqErr;
    else if (syn == rnic_pkg::AethNakRemAcc) nak_status = rnic_pkg::WcRemAccessErr;
    else if (syn == rnic_pkg::AethNakRemOp) nak_status = rnic_pkg::WcRemOpErr;
    else nak_status = rnic_pkg::WcBadRespErr;
  endfunction

  // Deferred responder actions after the placement
  logic [7:0] err_syn_q;      // NAK to send after a responder error
  logic [7:0] err_status_q;   // receive completion status of that error
  logic err_cqe_q;            // the error consumes a receive WQE

  /* verilator lint_off UNUSEDSIGNAL */
  rnic_pkg::infl_t infl_in;
  /* verilator lint_on UNUSEDSIGNAL */
  assign infl_in = infl_i;

  // Inputs: one event at a time, errors of the command path first.
  // The QP of a finished event stays selected until its progress report left.
  logic idle;
  assign idle = (st_q == StIdle) && !need_done_q && !pend_err_q;
  assign infl_ready_o = idle;
  assign rq_db_ready_o = idle && !infl_valid_i;
  assign pkt_ready_o = idle && !infl_valid_i && !rq_db_valid_i;

  assign place_slot_o = slot_q;
  assign place_base_o = {8'd0, poff_q};
  assign place_nseg_o = nseg_q;
  assign place_addr_o = seg_addr_q;
  assign place_len_o = seg_len_q;
  assign place_poff_o = seg_poff_q;


  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      st_q <= StIdle;
      ret_st_q <= StIdle;
      slot_q <= '0;
      poff_q <= '0;
      d_q <= '0;
      qpn_q <= '0;
      flushing_q <= 1'b0;
      ack_psn_q <= '0;
      ack_mode_q <= 1'b0;
      nak_status_q <= '0;
      need_cqe_q <= 1'b0;
      need_done_q <= 1'b0;
      cqe_q <= '0;
      job_v_q <= 1'b0;
      job_q <= '0;
      wqe_addr_q <= '0;
      wqe_len_q <= '0;
      wqe_q <= '0;
      beat_q <= '0;
      wqe_err_q <= 1'b0;
      sge_first_q <= '0;
      sge_cnt_q <= '0;
      sge_i_q <= '0;
      moff_q <= '0;
      acc_q <= '0;
      plen_q <= '0;
      nseg_q <= '0;
      seg_addr_q <= '0;
      seg_len_q <= '0;
      seg_poff_q <= '0;
      map_prot_q <= 1'b0;
      err_syn_q <= '0;
      err_status_q <= '0;
      err_cqe_q <= 1'b0;
      release_o <= 1'b0;
      release_slot_o <= '0;
      placed_q <= 1'b0;
      place_start_o <= 1'b0;
      qp_err_o <= 1'b0;
      qp_err_qpn_o <= '0;
      pend_err_q <= 1'b0;
      pend_err_qpn_q <= '0;
    end else begin
      release_o <= 1'b0;
      place_start_o <= 1'b0;
      qp_err_o <= 1'b0;
      if (qp_wr_i && (qp_wr_state_i == rnic_pkg::QpsErr)) begin
        pend_err_q <= 1'b1;
        pend_err_qpn_q <= qp_wr_idx_i;
      end
      if (cqe_valid_o && cqe_ready_i) need_cqe_q <= 1'b0;
      if (done_valid_o && done_ready_i) need_done_q <= 1'b0;
      if (job_valid_o && job_ready_i) job_v_q <= 1'b0;

      unique case (st_q)
        // ---------------------------------------------------------------------
        StIdle: begin
          if (need_done_q) begin
            // wait: done_ci_o still describes qpn_q
          end else if (pend_err_q && !(qp_wr_i && (qp_wr_state_i == rnic_pkg::QpsErr))) begin
            pend_err_q <= 1'b0;
            qpn_q <= pend_err_qpn_q;
            flushing_q <= 1'b1;
            ack_mode_q <= 1'b0;
            ret_st_q <= StRqFlush;
            st_q <= StRetire;
          end else if (infl_valid_i && (infl_in.qpn >= 24'(NQp))) begin
            // not ours to keep
          end else if (infl_valid_i) begin
            qpn_q <= infl_in.qpn;
            ring_q[{infl_in.qpn[QpW-1:0], infl_in.wqe_idx[RingW-1:0]}] <= infl_i;
            ring_v_q[infl_in.qpn[QpW-1:0]][infl_in.wqe_idx[RingW-1:0]] <= 1'b1;
            flushing_q <= 1'b0;
            ack_mode_q <= 1'b0;
            ret_st_q <= StIdle;
            // Records that need no response complete as soon as they are the head.
            st_q <= (infl_in.kind != rnic_pkg::InflNormal) ? StRetire : StIdle;
          end else if (rq_db_valid_i) begin
            qpn_q <= rq_db_data_i[23:0];
            if (rq_db_data_i[23:0] < 24'(NQp)) rq_pi_q[rq_db_data_i[QpW-1:0]] <= rq_db_data_i[47:32];
            st_q <= StRqFlush;  // flushes only when the QP is in ERR
          end else if (pkt_valid_i) begin
            {slot_q, poff_q, d_q} <= pkt_i;
            placed_q <= 1'b0;
            qpn_q <= pkt_i[rnic_pkg::RxDescW-1 -: 24];
            st_q <= StPkt;
          end
        end
        // ---------------------------------------------------------------------
        StPkt: begin
          if (qpn_q >= 24'(NQp)) begin
            st_q <= StDrop;
          end else if (rnic_pkg::op_is_response(op)) begin
            st_q <= resp_state_ok ? StResp : StDrop;
          end else begin
            st_q <= req_state_ok ? StReq : StDrop;
          end
        end
        StDrop: begin
          release_o <= !placed_q;  // a placed frame's slot is released by placement
          release_slot_o <= slot_q;
          st_q <= StIdle;
        end
        // ---------------------------------------------------------------------
        // Completer
        // ---------------------------------------------------------------------
        StResp: begin
          flushing_q <= 1'b0;
          ack_mode_q <= 1'b1;
          if (op == rnic_pkg::OpAck) begin
            if (d_q.aeth_syn[7:5] == 3'b000) begin
              ack_psn_q <= d_q.psn;
              ret_st_q <= StDrop;
            end else begin
              // Everything before the NAKed PSN was received.
              ack_psn_q <= d_q.psn - 24'd1;
              nak_status_q <= nak_status(d_q.aeth_syn);
              ret_st_q <= StNakHead;
            end
          end else begin
            ack_psn_q <= d_q.psn - 24'd1;
            ret_st_q <= StRdRespHead;
          end
          st_q <= StRetire;
        end
        StRetire: begin
          // Complete the head record if it may complete now.
          st_q <= ret_st_q;
          if (head_v) begin
            if (flushing_q || (ctx.state == rnic_pkg::QpsErr) ||
                (head.kind == rnic_pkg::InflFlush)) begin
              cqe_q <= '0;
              cqe_q.status <= rnic_pkg::WcWrFlushErr;
              cqe_q.opcode <= head.wc_op;
              need_cqe_q <= 1'b1;
              st_q <= StRetireOut;
            end else if (head.kind == rnic_pkg::InflLocalErr) begin
              cqe_q <= '0;
              cqe_q.status <= head.status;
              cqe_q.opcode <= head.wc_op;
              need_cqe_q <= 1'b1;
              qp_err_o <= 1'b1;
              qp_err_qpn_o <= qpn_q;
              flushing_q <= 1'b1;
              ret_st_q <= StRqFlush;
              st_q <= StRetireOut;
            end else if (ack_mode_q && !head.is_read &&
                         rnic_pkg::psn_ge(ack_psn_q, head.last_psn)) begin
              cqe_q <= '0;
              cqe_q.status <= rnic_pkg::WcSuccess;
              cqe_q.opcode <= head.wc_op;
              cqe_q.byte_len <= head.len;
              need_cqe_q <= head.signaled;
              st_q <= StRetireOut;
            end
          end
          cqe_q.cqn <= ctx.scqn;
          cqe_q.qpn <= qpn_q;
          cqe_q.wqe_idx <= head.wqe_idx;
          cqe_q.src_qp <= ctx.dest_qpn;
        end
        StRetireOut: begin
          if (!need_cqe_q && !need_done_q) begin
            ring_v_q[q][head_slot] <= 1'b0;
            cdone_q[q] <= head_idx + 16'd1;
            need_done_q <= 1'b1;
            st_q <= StRetire;
          end
        end
        StNakHead: begin
          if (head_v && (head.kind == rnic_pkg::InflNormal) &&
              rnic_pkg::psn_ge(d_q.psn, head.first_psn) &&
              rnic_pkg::psn_ge(head.last_psn, d_q.psn)) begin
            cqe_q <= '0;
            cqe_q.cqn <= ctx.scqn;
            cqe_q.qpn <= qpn_q;
            cqe_q.wqe_idx <= head.wqe_idx;
            cqe_q.status <= nak_status_q;
            cqe_q.opcode <= head.wc_op;
            cqe_q.src_qp <= ctx.dest_qpn;
            need_cqe_q <= 1'b1;
            qp_err_o <= 1'b1;
            qp_err_qpn_o <= qpn_q;
            flushing_q <= 1'b1;
            // Release the frame, then flush the rest of the SQ and the RQ.
            release_o <= 1'b1;
            release_slot_o <= slot_q;
            ret_st_q <= StRqFlush;
            st_q <= StRetireOut;
          end else begin
            st_q <= StDrop;  // a NAK for nothing outstanding
          end
        end
        StRdRespHead: begin
          if (head_v && head.is_read && (head.kind == rnic_pkg::InflNormal) &&
              rnic_pkg::psn_ge(d_q.psn, head.first_psn) &&
              rnic_pkg::psn_ge(head.last_psn, d_q.psn)) begin
            // Place into the READ WQE's local SGEs (from segment 2 on).
            wqe_addr_q <= ctx.sq_base +
                ({48'd0, head.wqe_idx & ((16'd1 << ctx.sq_log_size) - 16'd1)} << ctx.sq_wqe_shift);
            wqe_len_q <= 16'd1 << ctx.sq_wqe_shift;
            sge_first_q <= 3'd2;
            moff_q <= {8'd0, d_q.psn - head.first_psn} << mtu_lg;
            plen_q <= d_q.pay_len;
            st_q <= StFetchReq;
          end else begin
            st_q <= StDrop;
          end
        end
        // ---------------------------------------------------------------------
        // Responder
        // ---------------------------------------------------------------------
        StReq: begin
          err_syn_q <= '0;
          err_cqe_q <= 1'b0;
          err_status_q <= '0;
          job_q <= {1'b0, qpn_q, d_q.psn, rnic_pkg::AethAck, msn_q[q], 64'd0, 32'd0};
          if (d_q.psn != epsn) begin
            if (rnic_pkg::psn_ge(epsn - 24'd1, d_q.psn)) begin
              // Duplicate: acknowledge again what we have.
              job_q <= {1'b0, qpn_q, epsn - 24'd1, rnic_pkg::AethAck, msn_q[q], 64'd0, 32'd0};
            end else begin
              job_q <= {1'b0, qpn_q, epsn, rnic_pkg::AethNakPsnSeq, msn_q[q], 64'd0, 32'd0};
            end
            ret_st_q <= StDrop;
            st_q <= StJob;
          end else if (!seq_ok) begin
            err_syn_q <= rnic_pkg::AethNakInvReq;
            st_q <= StErrCqe;
          end else if (is_send || (is_write && is_last && has_imm)) begin
            if (rq_empty) begin
              // Receiver not ready: RNR NAK with our minimum RNR timer.
              job_q <= {1'b0, qpn_q, d_q.psn, 3'b001, ctx.min_rnr_timer, msn_q[q], 64'd0, 32'd0};
              ret_st_q <= StDrop;
              st_q <= StJob;
            end else if (is_send) begin
              wqe_addr_q <= ctx.rq_base +
                  ({48'd0, rq_ci_q[q] & ((16'd1 << ctx.rq_log_size) - 16'd1)} << ctx.rq_wqe_shift);
              wqe_len_q <= 16'd1 << ctx.rq_wqe_shift;
              sge_first_q <= 3'd1;
              moff_q <= rmsg_off_q[q];
              plen_q <= d_q.pay_len;
              st_q <= StFetchReq;
            end else begin
              st_q <= StMap;  // WRITE with immediate: the RQ WQE only gets the CQE
              nseg_q <= '0;
            end
          end else if (is_write) begin
            st_q <= StMap;
            nseg_q <= '0;
          end else begin
            st_q <= StMap;  // READ request
            nseg_q <= '0;
          end
        end
        StFetchReq: begin
          if (rd_req_ready_i) begin
            wqe_q <= '0;
            beat_q <= '0;
            wqe_err_q <= 1'b0;
            st_q <= StFetchData;
          end
        end
        StFetchData: begin
          if (rd_rsp_valid_i) begin
            wqe_q[beat_q*DataW +: DataW] <= rd_rsp_data_i;
            beat_q <= beat_q + 1'b1;
            if (rd_rsp_err_i) wqe_err_q <= 1'b1;
            if (rd_rsp_last_i) begin
              sge_i_q <= '0;
              acc_q <= '0;
              nseg_q <= '0;
              seg_len_q <= '0;
              map_prot_q <= 1'b0;
              // RQ WQE: count in byte 0; SQ WQE: ds - 2 data segments.
              sge_cnt_q <= (sge_first_q == 3'd1) ?
                  ((beat_q == '0 ? rd_rsp_data_i[7:0] : wqe_q[7:0]) > 8'd4 ? 3'd5 :
                   (beat_q == '0 ? rd_rsp_data_i[2:0] : wqe_q[2:0])) :
                  ((beat_q == '0 ? rd_rsp_data_i[39:32] : wqe_q[39:32]) - 8'd2 > 8'd4 ? 3'd5 :
                   3'((beat_q == '0 ? rd_rsp_data_i[39:32] : wqe_q[39:32]) - 8'd2));
              st_q <= StMap;
            end
          end
        end
        StMap: begin
          if (is_write || is_read_req) begin
            // rkey path: one segment, or the READ job.
            if (!ctx.access[is_read_req ? 2 : 1] ||
                ((d_q.reth_len != 32'd0) && is_first && !chk_ok) ||
                (is_read_req && (d_q.reth_len != 32'd0) && !chk_ok)) begin
              err_syn_q <= rnic_pkg::AethNakRemAcc;
              st_q <= StErrCqe;
            end else if (is_read_req) begin
              job_q <= {1'b1, qpn_q, d_q.psn, rnic_pkg::AethAck, msn_q[q] + 24'd1,
                        chk_bus, d_q.reth_len};
              msn_q[q] <= msn_q[q] + 24'd1;
              epsn_q[q] <= epsn + rd_npkts[23:0];
              ret_st_q <= StDrop;
              st_q <= StJob;
            end else if (is_first && ({19'd0, d_q.pay_len} > d_q.reth_len)) begin
              err_syn_q <= rnic_pkg::AethNakInvReq;
              st_q <= StErrCqe;
            end else if (!is_first && ({19'd0, d_q.pay_len} > wr_left_q[q])) begin
              err_syn_q <= rnic_pkg::AethNakInvReq;
              st_q <= StErrCqe;
            end else begin
              seg_addr_q[63:0] <= is_first ? chk_bus : wr_addr_q[q];
              seg_len_q <= {96'd0, 19'd0, d_q.pay_len};
              seg_poff_q <= '0;
              nseg_q <= 3'd1;
              if (is_first) begin
                wr_addr_q[q] <= chk_bus + {51'd0, d_q.pay_len};
                wr_left_q[q] <= d_q.reth_len - {19'd0, d_q.pay_len};
                wr_len_q[q] <= d_q.reth_len;
              end else begin
                wr_addr_q[q] <= wr_addr_q[q] + {51'd0, d_q.pay_len};
                wr_left_q[q] <= wr_left_q[q] - {19'd0, d_q.pay_len};
              end
              st_q <= StPlace;
            end
          end else if (wqe_err_q || (sge_cnt_q > 3'd4)) begin
            err_syn_q <= rnic_pkg::AethNakRemOp;
            err_status_q <= rnic_pkg::WcLocQpOpErr;
            err_cqe_q <= is_send;
            st_q <= is_send ? StErrCqe : StDrop;
          end else if (sge_i_q == sge_cnt_q) begin
            // All SGEs seen: does the message fit?
            if (m_hi > acc_q) begin
              err_syn_q <= rnic_pkg::AethNakInvReq;
              err_status_q <= rnic_pkg::WcLocLenErr;
              err_cqe_q <= is_send;
              st_q <= is_send ? StErrCqe : StDrop;
            end else if (map_prot_q) begin
              err_syn_q <= rnic_pkg::AethNakRemOp;
              err_status_q <= rnic_pkg::WcLocProtErr;
              err_cqe_q <= is_send;
              st_q <= is_send ? StErrCqe : StDrop;
            end else begin
              st_q <= StPlace;
            end
          end else begin
            // This SGE: check its key when the message touches it.
            if (s_hi > s_lo) begin
              if (!chk_ok) map_prot_q <= 1'b1;
              seg_addr_q[nseg_q[1:0]*64 +: 64] <= chk_bus + {32'd0, s_lo - acc_q};
              seg_len_q[nseg_q[1:0]*32 +: 32] <= s_hi - s_lo;
              seg_poff_q[nseg_q[1:0]*16 +: 16] <= 16'(s_lo - m_lo);
              nseg_q <= nseg_q + 3'd1;
            end
            acc_q <= acc_q + sge_len;
            sge_i_q <= sge_i_q + 3'd1;
          end
        end
        // Placement runs behind the engine: the engine hands the job over
        // and goes on with the next packet while the payload is written;
        // placement releases the frame slot. What makes data observable
        // waits for placement to drain (see place_idle).
        StPlace: begin
          if (place_idle) begin
            place_start_o <= 1'b1;
            placed_q <= 1'b1;
            st_q <= StAfterPlace;
          end
        end
        StAfterPlace: begin
          if (rnic_pkg::op_is_response(op)) begin
            // READ response data placed.
            if (d_q.psn == head.last_psn) begin
              cqe_q <= '0;
              cqe_q.cqn <= ctx.scqn;
              cqe_q.qpn <= qpn_q;
              cqe_q.wqe_idx <= head.wqe_idx;
              cqe_q.status <= rnic_pkg::WcSuccess;
              cqe_q.opcode <= rnic_pkg::WcOpRead;
              cqe_q.byte_len <= head.len;
              cqe_q.src_qp <= ctx.dest_qpn;
              need_cqe_q <= head.signaled;
              ack_mode_q <= 1'b0;
              ret_st_q <= StIdle;
              st_q <= StRetireOut;
            end else begin
              st_q <= StDrop;
            end
          end else begin
            epsn_q[q] <= epsn + 24'd1;
            job_q <= {1'b0, qpn_q, d_q.psn, rnic_pkg::AethAck, msn_q[q] + (is_last ? 24'd1 : 24'd0),
                      64'd0, 32'd0};
            if (is_last) begin
              msn_q[q] <= msn_q[q] + 24'd1;
              seq_q[q] <= SeqIdle;
              rmsg_off_q[q] <= '0;
            end else begin
              seq_q[q] <= is_send ? SeqSend : SeqWrite;
              if (is_send) rmsg_off_q[q] <= rmsg_off_q[q] + {19'd0, d_q.pay_len};
            end
            if (is_last && (is_send || has_imm)) begin
              cqe_q <= '0;
              cqe_q.cqn <= ctx.rcqn;
              cqe_q.qpn <= qpn_q;
              cqe_q.wqe_idx <= rq_ci_q[q];
              cqe_q.status <= rnic_pkg::WcSuccess;
              cqe_q.opcode <= is_send ? rnic_pkg::WcOpRecv : rnic_pkg::WcOpRecvImm;
              cqe_q.byte_len <= is_send ? (rmsg_off_q[q] + {19'd0, d_q.pay_len}) : wr_len_q[q];
              cqe_q.imm <= d_q.imm;
              cqe_q.flags <= {4'd0, d_q.se, 2'd0, has_imm};
              cqe_q.src_qp <= ctx.dest_qpn;
              need_cqe_q <= 1'b1;
              rq_ci_q[q] <= rq_ci_q[q] + 16'd1;
            end
            ret_st_q <= StDrop;
            st_q <= d_q.ack_req ? StJob : StDrop;
          end
        end
        StJob: begin
          if (!job_v_q && !need_cqe_q) begin
            job_v_q <= 1'b1;
            st_q <= ret_st_q;
          end
        end
        // Responder error: receive completion (if a receive is consumed), NAK,
        // QP to ERR, flush.
        StErrCqe: begin
          if (!need_cqe_q && !job_v_q) begin
            if (err_cqe_q) begin
              cqe_q <= '0;
              cqe_q.cqn <= ctx.rcqn;
              cqe_q.qpn <= qpn_q;
              cqe_q.wqe_idx <= rq_ci_q[q];
              cqe_q.status <= err_status_q;
              cqe_q.opcode <= rnic_pkg::WcOpRecv;
              cqe_q.src_qp <= ctx.dest_qpn;
              need_cqe_q <= 1'b1;
              rq_ci_q[q] <= rq_ci_q[q] + 16'd1;
            end
            job_q <= {1'b0, qpn_q, d_q.psn, err_syn_q, msn_q[q], 64'd0, 32'd0};
            job_v_q <= 1'b1;
            qp_err_o <= 1'b1;
            qp_err_qpn_o <= qpn_q;
            release_o <= 1'b1;
            release_slot_o <= slot_q;
            flushing_q <= 1'b1;
            ack_mode_q <= 1'b0;
            ret_st_q <= StRqFlush;
            st_q <= StRetire;
          end
        end
        // Flush the receive queue of a QP in ERR.
        StRqFlush: begin
          if (!need_cqe_q) begin
            if (((ctx.state == rnic_pkg::QpsErr) || flushing_q) && (qpn_q < 24'(NQp)) &&
                (rq_ci_q[q] != rq_pi_q[q])) begin
              cqe_q <= '0;
              cqe_q.cqn <= ctx.rcqn;
              cqe_q.qpn <= qpn_q;
              cqe_q.wqe_idx <= rq_ci_q[q];
              cqe_q.status <= rnic_pkg::WcWrFlushErr;
              cqe_q.opcode <= rnic_pkg::WcOpRecv;
              need_cqe_q <= 1'b1;
              rq_ci_q[q] <= rq_ci_q[q] + 16'd1;
            end else begin
              flushing_q <= 1'b0;
              st_q <= StIdle;
            end
          end
        end
        default: st_q <= StIdle;
      endcase

      // Context writes reset the per-QP transport state.
      if (qp_wr_i && (qp_wr_idx_i < 24'(NQp))) begin
        if (qp_wr_flags_i[rnic_pkg::QpFlagResetRq]) begin
          rq_pi_q[qp_wr_idx_i[QpW-1:0]] <= '0;
          rq_ci_q[qp_wr_idx_i[QpW-1:0]] <= '0;
          rmsg_off_q[qp_wr_idx_i[QpW-1:0]] <= '0;
          seq_q[qp_wr_idx_i[QpW-1:0]] <= SeqIdle;
          msn_q[qp_wr_idx_i[QpW-1:0]] <= '0;
        end
        if (qp_wr_flags_i[rnic_pkg::QpFlagSetRqPsn]) epsn_q[qp_wr_idx_i[QpW-1:0]] <= qp_wr_rq_psn_i;
        if (qp_wr_flags_i[rnic_pkg::QpFlagResetSq]) begin
          ring_v_q[qp_wr_idx_i[QpW-1:0]] <= '0;
          cdone_q[qp_wr_idx_i[QpW-1:0]] <= '0;
        end
      end
    end
  end
  logic unused;
  assign unused = ^{rq_db_data_i[63:48], rq_db_data_i[31:24], rd_npkts[31:24]};
endmodule
