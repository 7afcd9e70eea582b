// rnic_rx_engine: the RC transport engine for received packets.
//
// Responder (requests from the peer): PSN and opcode-sequence checks, SEND
// placement into the receive WQE's scatter list, RDMA WRITE placement after an
// rkey check, RDMA READ jobs for the response generator, atomics (checked
// here, executed by rnic_atomic_unit, which also answers their duplicates
// from the results it keeps), ACK/NAK jobs, receive CQEs. Duplicates are
// acknowledged again without being placed (READs are executed again); a
// packet ahead of the expected PSN gets one PSN-sequence NAK per gap.
// Completer (responses to our requests): the per-QP ring of in-flight send
// WQEs (rnic_infl_ring; records from the requester in WQE order), retired
// by ACKs, by READ and atomic responses (whose data are placed into the
// WQE's SGEs) and by NAKs.
// Sequence NAKs, implied NAKs (an ACK or response that skips a READ/atomic
// response) and ACK timeouts rewind the send queue (go-back-N) up to
// retry_cnt times; RNR NAKs park the QP for the NAK's RNR time up to
// rnr_retry times (7: no limit); the other NAKs, and exhausted retries,
// complete the WQE with the error and flush the rest. docs/transport.md.
// UC: no ACKs or NAKs; a PSN gap drops the rest of the message, the next
// FIRST/ONLY packet starts again. UD: one-packet SENDs checked against the
// QP's Q_Key; the receive buffer gets the 40-byte GRH area (its last 20
// bytes hold the IPv4 header) before the payload. Receives come from the
// QP's RQ or from its SRQ (a WQE is taken for a message at its first packet);
// SRQ limit, last-WQE-reached and responder errors raise asynchronous events.
// Each instance plays one role (Responder or Completer): rnic_responder and
// rnic_completer each hold one and run side by side in rnic_top, each
// handling one event at a time. The WQEs whose scatter lists placement
// needs (a receive's, a READ's or atomic's) usually come from
// rnic_rwqe_cache, which the engine asks to read them ahead; a miss reads
// the WQE from host memory.
module rnic_rx_engine #(
  parameter int unsigned DataW = 256,
  parameter int unsigned NQp = 1024,
  parameter int unsigned InflDepth = 8,
  // Receive WQEs of a QP read ahead into the WQE cache: up to RqAhead - 1
  // beyond the one a SEND takes (a power of two is not needed)
  parameter int unsigned RqAhead = 8,
  // The role this instance plays, one of the two (rnic_responder and
  // rnic_completer set them and give the engine only their role's inputs;
  // the other role's tables, queues and decisions are left out)
  parameter bit Responder = 1'b1,
  parameter bit Completer = !Responder
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
  input  logic [23:0] qp_wr_sq_psn_i,
  // Context read ports, QP error report
  output logic [23:0] ctx_idx_o,
  input  logic [rnic_pkg::QpCfgW-1:0] ctx_i,
  output logic [23:0] mr_idx_o,
  input  logic [rnic_pkg::MrCfgW-1:0] mr_i,
  output logic        qp_err_o,
  output logic        qp_err_sqe_o,   // with qp_err_o: to SQE, not ERR (UC/UD send error)
  output logic [23:0] qp_err_qpn_o,
  // A QP the other role's engine moved to ERR (rnic_top runs one engine per
  // role): it is flushed here as after a move by the driver
  input  logic        err_in_valid_i,
  input  logic [23:0] err_in_qpn_i,
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
  // WQE cache (rnic_rwqe_cache): hints of WQEs to read ahead, the lookup of
  // the WQE a receive or READ response needs, retired WQEs
  output logic        rwc_hint_valid_o,
  output logic        rwc_hint_evict_o,   // the WQE is needed next
  output logic [rnic_pkg::RwqeKeyW-1:0] rwc_hint_key_o,
  output logic [63:0] rwc_hint_addr_o,
  output logic [15:0] rwc_hint_len_o,
  output logic        rwc_lk_valid_o,     // the states that use a lookup
  output logic [rnic_pkg::RwqeKeyW-1:0] rwc_lk_key_o,
  input  logic        rwc_lk_hit_i,
  input  logic        rwc_lk_pend_i,
  input  logic        rwc_lk_err_i,
  input  logic        rwc_room_i,        // room for WQEs further ahead
  input  logic [rnic_pkg::RwqeBits-1:0] rwc_lk_data_i,
  output logic        rwc_inv_o,
  output logic [rnic_pkg::RwqeKeyW-1:0] rwc_inv_key_o,
  // Placement unit control
  output logic        place_start_o,
  output logic [rnic_pkg::RxSlotW-1:0] place_slot_o,
  output logic [15:0] place_base_o,
  output logic [2:0]  place_nseg_o,
  output logic [64*rnic_pkg::MaxSeg-1:0] place_addr_o,
  output logic [32*rnic_pkg::MaxSeg-1:0] place_len_o,
  output logic [16*rnic_pkg::MaxSeg-1:0] place_poff_o,
  input  logic        place_busy_i,
  // In the state that starts a placement job: it does as soon as
  // place_busy_i is low (rnic_top gives the unit to one engine at a time)
  output logic        place_want_o,
  // Trace: the packet of the placement job place_start_o starts (its QPN,
  // PSN, and bit 0 first / bit 1 last packet of its message or response,
  // bit 2 a response: the PSN is of our send queue, not of the peer's)
  output logic [23:0] place_ev_qpn_o,
  output logic [23:0] place_ev_psn_o,
  output logic [2:0]  place_ev_pos_o,
  // CQEs, one stream per role (rnic_top arbitrates them into the CQE
  // writer): the completer's send completions, the responder's receive
  // completions
  output logic        scqe_valid_o,
  input  logic        scqe_ready_i,
  output logic [rnic_pkg::CqeReqW-1:0] scqe_o,
  output logic        rcqe_valid_o,
  input  logic        rcqe_ready_i,
  output logic [rnic_pkg::CqeReqW-1:0] rcqe_o,
  // Responder transmit jobs (rnic_pkg::rsp_job_t), and the READ/atomic jobs
  // whose responses have left (a responder resource is free again)
  output logic        job_valid_o,
  input  logic        job_ready_i,
  output logic [rnic_pkg::RspJobW-1:0] job_o,
  input  logic        rsp_done_i,
  input  logic [23:0] rsp_done_qpn_i,
  // Atomics to rnic_atomic_unit (rnic_pkg::at_op_t); whether the unit holds
  // one of a QP (its other requests and the engine's jobs for it wait); a
  // refused atomic read (the QP goes to ERR)
  output logic        at_valid_o,
  input  logic        at_ready_i,
  output logic [rnic_pkg::AtOpW-1:0] at_o,
  output logic [23:0] at_busy_qpn_o,
  input  logic        at_busy_i,
  input  logic        at_err_valid_i,
  output logic        at_err_ready_o,
  input  logic [23:0] at_err_qpn_i,
  // The original value of an atomic ACK, to the requester's buffer
  output logic        wr_valid_o,
  input  logic        wr_ready_i,
  output logic [63:0] wr_addr_o,
  output logic [15:0] wr_len_o,
  output logic [DataW-1:0] wr_data_o,
  output logic        wr_last_o,
  // Rewinds of the send queue (to rnic_sq_fetch and rnic_requester)
  output logic        rewind_valid_o,
  input  logic        rewind_ready_i,
  output logic [rnic_pkg::RewindW-1:0] rewind_o,
  output logic        rewind_resume_o,
  // The requester reads the in-flight record of a WQE it sends again
  input  logic [23:0] ring_rd_qpn_i,
  input  logic [15:0] ring_rd_idx_i,
  output logic        ring_rd_v_o,
  output logic [rnic_pkg::InflW-1:0] ring_rd_o,
  // A READ/atomic WQE left the ring (its requester credit returns)
  output logic        rd_done_o,
  output logic [23:0] rd_done_qpn_o,
  // UC/UD: the last frame of a send WQE left (rnic_tx_builder); with
  // noack_err_i: a request frame of the WQE was dropped, its payload read
  // failed (any QP type)
  input  logic        noack_valid_i,
  input  logic        noack_err_i,
  output logic        noack_ready_o,
  input  logic [23:0] noack_qpn_i,
  input  logic [15:0] noack_idx_i,
  // SRQ contexts and their writes (limit arming)
  output logic [15:0] srq_idx_o,
  input  logic [rnic_pkg::SrqCfgW-1:0] srq_i,
  input  logic        srq_wr_i,
  input  logic [47:0] srq_wr_limit_i,   // [47:32] limit of the written context
  // MR-table update (SEND_WITH_INV invalidates a memory window)
  output logic        mr_upd_valid_o,
  input  logic        mr_upd_ready_i,
  output logic [23:0] mr_upd_idx_o,
  output logic [rnic_pkg::MrCfgW-1:0] mr_upd_o,
  // Asynchronous events {type (enum ibv_event_type), QPN/SRQN}
  output logic        aev_valid_o,
  input  logic        aev_ready_i,
  output logic [31:0] aev_o,
  // Completer progress to the SQ scheduler
  output logic        done_valid_o,
  input  logic        done_ready_i,
  output logic [23:0] done_qpn_o,
  output logic [15:0] done_ci_o,
  // QP_QUERY: the PSN the responder expects next
  input  logic [23:0] query_idx_i,
  output logic [23:0] query_rq_psn_o,
  // Fast-forward (rnic_retry_timer): no event in hand or waiting to leave,
  // the edges before the transport timer may expire, and this edge standing
  // for skip_cycles_i edges
  output logic        quiet_o,
  // No event in hand and no in-flight record held (the command path's
  // quiet check)
  output logic        idle_o,
  output logic [31:0] due_o,
  input  logic        skip_i,
  input  logic [31:0] skip_cycles_i
);
  if (Responder == Completer) begin : g_one_role
    $error("rnic_rx_engine: an instance plays exactly one role (Responder or Completer)");
  end
  localparam int unsigned QpW = $clog2(NQp);
  localparam int unsigned RingW = $clog2(InflDepth);
  localparam int unsigned WqeBits = rnic_pkg::WqeBits;

  // ---------------------------------------------------------------------------
  // Per-QP state
  // ---------------------------------------------------------------------------
  // RAMs, none of them reset (a QP context write clears a QP's entries).
  // (* nomem2reg *) keeps Yosys from expanding them into registers, its rule
  // for arrays written in a process with an asynchronous reset: with it they
  // are memories, most with two write ports (the engine's, the context
  // writes'), as they would be at 1024 QPs.
  // Responder
  (* nomem2reg *) logic [23:0] epsn_q [NQp];
  (* nomem2reg *) logic [23:0] msn_q [NQp];
  (* nomem2reg *) logic [15:0] rq_pi_q [NQp];
  (* nomem2reg *) logic [15:0] rq_ci_q [NQp];
  (* nomem2reg *) logic [15:0] rq_hf_q [NQp];    // next receive WQE to read ahead (rwqe cache)
  (* nomem2reg *) logic [31:0] rmsg_off_q [NQp];
  (* nomem2reg *) logic [31:0] wr_rkey_q [NQp];  // WRITE in progress: its rkey and the VA
  (* nomem2reg *) logic [63:0] wr_va_q [NQp];    // of its next packet (checked per packet)
  (* nomem2reg *) logic [31:0] wr_left_q [NQp];
  (* nomem2reg *) logic [31:0] wr_len_q [NQp];
  (* nomem2reg *) logic [1:0] seq_q [NQp];       // 0 idle, 1 inside a SEND, 2 inside a WRITE
  (* nomem2reg *) logic [15:0] rwqe_q [NQp];     // SRQ WQE of the message in progress
  (* nomem2reg *) logic rwqe_v_q [NQp];
  // SRQs (indexed by SRQ number, one per QP number at most)
  (* nomem2reg *) logic [15:0] srq_pi_q [NQp];
  (* nomem2reg *) logic [15:0] srq_ci_q [NQp];
  (* nomem2reg *) logic srq_armed_q [NQp];
  (* nomem2reg *) logic nak_sent_q [NQp];       // a sequence NAK went out for the current gap
  (* nomem2reg *) logic [3:0] rsp_out_q [NQp];   // READ/atomic responses not yet sent
  // Completer (its ring of in-flight records: u_ring)
  (* nomem2reg *) logic [23:0] una_q [NQp];      // first PSN not yet acknowledged
  (* nomem2reg *) logic [2:0] rc_used_q [NQp];   // retries since the last progress
  (* nomem2reg *) logic [2:0] rnr_used_q [NQp];
  (* nomem2reg *) logic rw_v_q [NQp];            // a rewind to rw_psn_q is under way
  (* nomem2reg *) logic [23:0] rw_psn_q [NQp];

  // One engine write port per table. The engine writes only the entry of
  // its current QP (q; an SRQ table that of the QP's SRQ, sn), and does so
  // through a one-entry write buffer per table: the value goes to *_wd_q
  // (*_wv_q set) and reaches the RAM in the next cycle, at the address the
  // cycle before had (wa_q, swa_q). Reads of the current entry (*_cur) see
  // a buffered value first. Each table then has two write ports (the
  // buffer's and the context writes', which come last and win) instead of
  // one per write in the state machine.
  logic [QpW-1:0] wa_q, swa_q;
  logic epsn_wv_q;
  logic [23:0] epsn_wd_q, epsn_cur;
  logic msn_wv_q;
  logic [23:0] msn_wd_q, msn_cur;
  logic rq_ci_wv_q;
  logic [15:0] rq_ci_wd_q, rq_ci_cur;
  logic rmsg_off_wv_q;
  logic [31:0] rmsg_off_wd_q, rmsg_off_cur;
  logic wr_va_wv_q;
  logic [63:0] wr_va_wd_q, wr_va_cur;
  logic wr_left_wv_q;
  logic [31:0] wr_left_wd_q, wr_left_cur;
  logic seq_wv_q;
  logic [1:0] seq_wd_q, seq_cur;
  logic rwqe_wv_q;
  logic [15:0] rwqe_wd_q, rwqe_cur;
  logic rwqe_v_wv_q;
  logic rwqe_v_wd_q, rwqe_v_cur;
  logic nak_sent_wv_q;
  logic nak_sent_wd_q, nak_sent_cur;
  logic una_wv_q;
  logic [23:0] una_wd_q, una_cur;
  logic rc_used_wv_q;
  logic [2:0] rc_used_wd_q, rc_used_cur;
  logic rnr_used_wv_q;
  logic [2:0] rnr_used_wd_q, rnr_used_cur;
  logic rw_v_wv_q;
  logic rw_v_wd_q, rw_v_cur;
  logic srq_ci_wv_q;
  logic [15:0] srq_ci_wd_q, srq_ci_cur;
  logic srq_armed_wv_q;
  logic srq_armed_wd_q, srq_armed_cur;

  localparam logic [1:0] SeqIdle = 2'd0;
  localparam logic [1:0] SeqSend = 2'd1;
  localparam logic [1:0] SeqWrite = 2'd2;

  typedef enum logic [5:0] {
    StIdle, StPkt, StRetire, StRetireOut, StNakHead, StRdRespHead,
    StReq, StFetchReq, StFetchData, StMap, StPlace, StAfterPlace,
    StRqFlush, StJob, StErrCqe, StDrop,
    StAckPost, StSeqNak, StRnr, StTmr, StRetry, StFail, StRewind,
    StTmrUpd, StAtOp, StAtDup, StAckWr, StTxFault, StInv, StInvWr,
    StRwcWait, StAckOwed
  } state_e;
  state_e st_q, ret_st_q;
  state_e st_sel;          // the arm the state machine runs (st_q but for merged cycles)
  state_e st_pre;          // st_sel before a retire loop's end takes the next event
  logic ap_now;            // StPlace doing the StAfterPlace work
  logic aw_now;            // StAckWr whose write is taken doing it too
  logic mw_try, mw_now;    // StMap offering that write itself, taken
  logic rq_now;            // StPkt doing a request's StReq work
  logic rt_now;            // StPkt doing a plain ACK's first StRetire
  logic rh_now;            // StPkt doing a head READ response's StRdRespHead
  logic rh_sel;            // the StRdRespHead arm runs (its state or rh_now)
  logic mp_now;            // StPkt doing an in-order WRITE's, READ's or atomic's StMap

  // Current packet
  logic [rnic_pkg::RxSlotW-1:0] slot_q;
  logic placed_q;          // the payload went to placement, which frees the slot
  logic from_pkt_q;        // the event is a packet (its frame slot is held)
  logic dup_q;             // the request is a duplicate (READ executed again)
  logic progress_q;        // the completer retired something or got response data
  logic [23:0] restart_q;  // rewind: first PSN to send again
  logic rw_hold_q;         // rewind parks the QP (RNR)
  logic rw_resume_q;       // a resume, not a rewind
  logic [7:0] fail_status_q;
  logic [7:0] fail_vend_q;     // its vendor_err (rnic_pkg::Vend*)
  logic [63:0] at_addr_q;
  logic noack_mode_q;      // retiring UC/UD records up to noack_idx_q
  logic [15:0] noack_idx_q;
  logic ud_pass1_q;        // mapping the GRH area of a UD receive
  logic [15:0] adj_q;      // slot offset of message byte m: base + m - adj
  logic [7:0] poff_q;
  /* verilator lint_off UNUSEDSIGNAL */  // packet header view
  rnic_pkg::rx_desc_t d_q;
  /* verilator lint_on UNUSEDSIGNAL */
  logic [23:0] qpn_q;
  logic [QpW-1:0] q;
  assign q = qpn_q[QpW-1:0];
  assign epsn_cur = (epsn_wv_q && (wa_q == q)) ? epsn_wd_q : (Responder ? epsn_q[q] : '0);
  assign msn_cur = (msn_wv_q && (wa_q == q)) ? msn_wd_q : (Responder ? msn_q[q] : '0);
  assign rq_ci_cur = (rq_ci_wv_q && (wa_q == q)) ? rq_ci_wd_q : (Responder ? rq_ci_q[q] : '0);
  assign rmsg_off_cur = (rmsg_off_wv_q && (wa_q == q)) ? rmsg_off_wd_q :
                        (Responder ? rmsg_off_q[q] : '0);
  assign wr_va_cur = (wr_va_wv_q && (wa_q == q)) ? wr_va_wd_q : (Responder ? wr_va_q[q] : '0);
  assign wr_left_cur = (wr_left_wv_q && (wa_q == q)) ? wr_left_wd_q :
                       (Responder ? wr_left_q[q] : '0);
  assign seq_cur = (seq_wv_q && (wa_q == q)) ? seq_wd_q : (Responder ? seq_q[q] : '0);
  assign rwqe_cur = (rwqe_wv_q && (wa_q == q)) ? rwqe_wd_q : (Responder ? rwqe_q[q] : '0);
  assign rwqe_v_cur = (rwqe_v_wv_q && (wa_q == q)) ? rwqe_v_wd_q : (Responder ? rwqe_v_q[q] : '0);
  assign nak_sent_cur = (nak_sent_wv_q && (wa_q == q)) ? nak_sent_wd_q :
                        (Responder ? nak_sent_q[q] : '0);
  assign una_cur = (una_wv_q && (wa_q == q)) ? una_wd_q : (Completer ? una_q[q] : '0);
  assign rc_used_cur = (rc_used_wv_q && (wa_q == q)) ? rc_used_wd_q :
                       (Completer ? rc_used_q[q] : '0);
  assign rnr_used_cur = (rnr_used_wv_q && (wa_q == q)) ? rnr_used_wd_q :
                        (Completer ? rnr_used_q[q] : '0);
  assign rw_v_cur = (rw_v_wv_q && (wa_q == q)) ? rw_v_wd_q : (Completer ? rw_v_q[q] : '0);
  assign query_rq_psn_o = (epsn_wv_q && (wa_q == query_idx_i[QpW-1:0])) ? epsn_wd_q :
                          (Responder ? epsn_q[query_idx_i[QpW-1:0]] : '0);
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
  /* verilator lint_off UNUSEDSIGNAL */  // in-flight record views
  rnic_pkg::infl_t head, nxt;
  /* verilator lint_on UNUSEDSIGNAL */
  logic head_v, nxt_v;

  // The record of a WQE sent again holds its PSNs; a WQE without its
  // record (or whose slot holds a later WQE) has completed already.
  // A record still held (hold_q) is in the ring already as the requester
  // sees it.
  logic ring_rd_hold;
  assign ring_rd_hold = Completer && hold_v_q && (hold_q.qpn == ring_rd_qpn_i) &&
                        (hold_q.wqe_idx[RingW-1:0] == ring_rd_idx_i[RingW-1:0]);
  rnic_pkg::infl_t ring_rd_rec;
  logic ring_rd_v;
  assign ring_rd_o = ring_rd_hold ? hold_q : ring_rd_rec;
  assign ring_rd_v_o = ring_rd_hold || ((ring_rd_qpn_i < 24'(NQp)) && ring_rd_v);

  // The record of a WQE whose frame the TX builder dropped (StTxFault)
  logic [RingW-1:0] fault_slot;
  rnic_pkg::infl_t fault_rec, fault_upd;
  logic fault_v;
  assign fault_slot = noack_idx_q[RingW-1:0];
  always_comb begin
    fault_upd = fault_rec;
    fault_upd.kind = rnic_pkg::InflLocalErr;
    fault_upd.status = rnic_pkg::WcGeneralErr;
  end

  // The driver moved QPs to ERR (QP_WRITE with state ERR): each waits in
  // u_err_pend once until the engine flushes it, first thing when idle
  // (StIdle: its in-flight records, then its receive queue).
  // Until stop 42 one register held one such QP, and a second move before
  // the engine was idle replaced it: the first QP's WQEs in flight then
  // waited for their ACK timeout (forever with timeout 0).
  logic pend_err, errp_pop;
  logic [QpW-1:0] errp_qpn;
  // A move by the other role's engine comes the same way (the mmio holds
  // commands back while an engine moves a QP, so the two never meet).
  logic errp_drv;
  assign errp_drv = qp_wr_i && (qp_wr_state_i == rnic_pkg::QpsErr) && (qp_wr_idx_i < 24'(NQp));
  rnic_uniq_fifo #(.Width(QpW)) u_err_pend (
    .clk_i, .rst_ni,
    .in_valid_i(errp_drv || (err_in_valid_i && (err_in_qpn_i < 24'(NQp)))),
    .in_data_i(errp_drv ? qp_wr_idx_i[QpW-1:0] : err_in_qpn_i[QpW-1:0]),
    .out_valid_o(pend_err), .out_ready_i(errp_pop), .out_data_o(errp_qpn)
  );

  // Retire loop parameters
  logic flushing_q;       // complete everything with flush error
  // A receive queue flush of a QP in ERR yields after FlushBatch CQEs: the
  // QP waits in u_flush_pend (each QP once) and the engine takes other
  // work (doorbells, packets) before the next batch, so a hostile producer
  // index cannot hold the node for 65535 CQEs.
  localparam logic [3:0] FlushBatch = 4'd8;
  logic [3:0] fl_cnt_q;   // flush CQEs of this visit
  logic fl_yield, flp_pop, flp_valid;
  logic [QpW-1:0] flp_qpn;
  // (This queue and the delayed ACKs below are the responder's: a
  // completer-only instance has neither.)
  if (Responder) begin : g_flush_pend
    rnic_uniq_fifo #(.Width(QpW)) u_flush_pend (
      .clk_i, .rst_ni,
      .in_valid_i(fl_yield), .in_data_i(q),
      .out_valid_o(flp_valid), .out_ready_i(flp_pop), .out_data_o(flp_qpn)
    );
  end else begin : g_no_flush_pend
    assign flp_valid = 1'b0;
    assign flp_qpn = '0;
    logic unused_flp;
    assign unused_flp = ^{fl_yield, flp_pop};
  end
  // Delayed ACKs (u_ack_delay, the responder's): a message whose last
  // packet does not ask for an ACK (AckReq clear: rnic_requester asks on
  // signaled WQEs and on every AckEvery-th) leaves its QP owing one, which
  // StAckOwed sends AckDelay cycles later (taken before the next packet)
  // unless a job or an atomic made for the QP since paid it. The marks are
  // set and cleared a cycle after the arm decides, for the QP of that cycle
  // (wa_q).
  localparam int unsigned AckDelay = 256;
  logic owe_set_q, owe_clr_q;
  logic owe_valid, owe_first, owe_take;
  logic [QpW-1:0] owe_qpn;
  if (Responder) begin : g_owe
    rnic_ack_delay #(
      .NQp(NQp),
      .Delay(AckDelay)
    ) u_ack_delay (
      .clk_i,
      .rst_ni,
      .set_i(owe_set_q),
      .clr_i(owe_clr_q),
      .qpn_i(wa_q),
      .rst_i(qp_wr_i && (qp_wr_idx_i < 24'(NQp))),
      .rst_qpn_i(qp_wr_idx_i[QpW-1:0]),
      .valid_o(owe_valid),
      .due_o(owe_first),
      .qpn_o(owe_qpn),
      .take_i(owe_take)
    );
  end else begin : g_no_owe
    assign owe_valid = 1'b0;
    assign owe_qpn = '0;
    assign owe_first = 1'b0;
    logic unused_owe;
    assign unused_owe = ^{owe_set_q, owe_clr_q, owe_take};
  end
  logic [23:0] ack_psn_q; // highest PSN acknowledged
  logic ack_mode_q;
  // What the retire loop reads: the registers, or in an rt_now cycle what
  // StPkt would have put in them for a plain ACK.
  logic [23:0] ack_psn;
  logic ack_mode, flushing;
  state_e ret_st;
  assign ack_psn = rt_now ? d_q.psn : ack_psn_q;
  assign ack_mode = rt_now || ack_mode_q;
  assign flushing = !rt_now && flushing_q;
  assign ret_st = rt_now ? StAckPost : ret_st_q;
  logic [7:0] nak_status_q;

  // Retire outputs in flight
  logic need_done_q;
  // One CQE register per role: the completer's (scqe_q: send completions,
  // written by the retire loop, StFail and a READ's last response) and the
  // responder's (rcqe_q: receive completions, written by the after-place
  // work, StInvWr, StErrCqe and StRqFlush), so a completion one role waits
  // to hand over does not hold the other role back. Each queue's CQEs
  // still leave in order: each comes from one register.
  logic need_scqe_q, need_rcqe_q;
  rnic_pkg::cqe_req_t scqe_q, rcqe_q;
  // A receive completion, a READ's or atomic's send completion (scqe_dat_q:
  // placement wrote its data), and a READ request's DMA reads see memory
  // only after every payload handed to placement before them has been
  // written. Other send completions have no data in local memory and do not
  // wait: under another QP's READ response stream placement is rarely idle.
  logic place_idle, scqe_dat_q;
  assign place_idle = !place_busy_i && !place_start_o;
  assign scqe_valid_o = need_scqe_q && (place_idle || !scqe_dat_q);
  assign scqe_o = scqe_q;
  assign rcqe_valid_o = need_rcqe_q && place_idle;
  assign rcqe_o = rcqe_q;
  // A CQE register takes the next completion in the cycle its CQE is
  // taken (a one-entry pipeline stage): the after-place work and the
  // retire loop do not wait a cycle for it to empty.
  logic scqe_free, rcqe_free;
  assign scqe_free = !need_scqe_q || (scqe_valid_o && scqe_ready_i);
  assign rcqe_free = !need_rcqe_q || (rcqe_valid_o && rcqe_ready_i);
  // The move to ERR is written into the QP table in the cycle after the
  // engine decides it; a reset of the QP written at that decision's edge
  // wins (a QP in RESET is not moved by the hardware). The mmio holds a
  // command back while qp_err_o is high, so no reset meets the write.
  logic qp_err_q;
  assign qp_err_o = qp_err_q && !((qp_err_qpn_o == qpn_q) && (ctx.state == rnic_pkg::QpsReset));
  assign done_valid_o = need_done_q;
  assign done_qpn_o = qpn_q;
  assign done_ci_o = head_idx;

  // Jobs: njob_q is built by the states of a request, job_q waits for the
  // transmit side.
  logic job_v_q;
  rnic_pkg::rsp_job_t job_q, njob_q;
  logic ack_merge;
  // The timer update after progress (StTmrUpd, or the end of a retire
  // loop that would go on to it: a READ response's, or an ACK's when no
  // implied NAK sends it to StAckPost and StRetry).
  logic tmr_upd, imp_nak, ret_end;
  assign imp_nak = head_resp && rnic_pkg::psn_ge(ack_psn, head.first_psn) && !imp_dup;
  assign ret_end = (st_pre == StRetire) && !ret_take &&
                   (((ret_st == StAckPost) && !imp_nak) || (ret_st == StTmrUpd));
  assign tmr_upd = (st_q == StTmrUpd) || ret_end;
  assign ack_merge = Responder && job_v_q && (job_q.kind == rnic_pkg::JobAck) &&
                     (job_q.syn == rnic_pkg::AethAck) && (njob_q.kind == rnic_pkg::JobAck) &&
                     (njob_q.syn == rnic_pkg::AethAck) && (njob_q.qpn == job_q.qpn) &&
                     rnic_pkg::psn_ge(njob_q.psn, job_q.psn) && !(job_valid_o && job_ready_i);
  assign job_valid_o = job_v_q && ((job_q.kind != rnic_pkg::JobRead) || place_idle);
  assign job_o = job_q;

  // A job as the flat vector of rnic_pkg::rsp_job_t (fields MSB first).
  function automatic logic [rnic_pkg::RspJobW-1:0] mk_job(
      input logic [1:0] kind, input logic [23:0] qpn, input logic [23:0] psn,
      input logic [7:0] syn, input logic [23:0] msn, input logic [63:0] addr,
      input logic [31:0] len, input logic [63:0] orig, input logic dup);
    mk_job = {kind, qpn, psn, syn, msn, addr, len, orig, dup};
  endfunction

  // ---------------------------------------------------------------------------
  // WQE fetch for placement (u_wqe_fetch below): the states name the WQE
  // (wqe_addr_q, wqe_len_q); StFetchReq and StFetchData read it.
  // ---------------------------------------------------------------------------
  logic [63:0] wqe_addr_q;
  logic [15:0] wqe_len_q;
  logic [WqeBits-1:0] wqe;
  logic wqe_err, wqe_sent, wqe_done;

  // ---------------------------------------------------------------------------
  // SGE mapping: message bytes [moff, moff+plen) onto the WQE's SGEs
  // (u_sge_map below; its SGE key checks go through u_mr_check). Mapping
  // ends in the cycle that takes the last SGE: the fit checks see the state
  // after it, so a message costs no cycle of its own for them.
  // ---------------------------------------------------------------------------
  logic [2:0] sge_first_q;
  logic [31:0] moff_q;
  logic [12:0] plen_q;
  logic map_start, map_walk, map_rewalk, map_seg_set;
  logic [2:0] map_cnt, sge_cnt, nseg;
  logic map_all, map_last, map_hit, map_fits, map_ovf, map_prot;
  logic [31:0] sge_key, sge_chk_len;
  logic [63:0] sge_chk_va;
  logic [64*rnic_pkg::MaxSeg-1:0] seg_addr;
  logic [32*rnic_pkg::MaxSeg-1:0] seg_len;
  logic [16*rnic_pkg::MaxSeg-1:0] seg_poff;

  // Key check: SGE (local write) while mapping a receive or response, the
  // request's rkey otherwise (READ: remote read, atomic: remote atomic,
  // WRITE: remote write). An SGE is checked for the bytes this packet puts
  // into it, when they are written: a receive SGE may be longer than the
  // message (length 0 is 2^31 bytes) and its MR.
  logic chk_sge;
  assign chk_sge = (st_q == StMap) && !is_write && !is_read_req && !is_atomic;
  logic [31:0] chk_key, chk_len;
  logic [63:0] chk_va;
  logic [3:0] chk_acc;
  // A WRITE's later packets are checked again with the first one's rkey
  // (the MR may have been deregistered meanwhile).
  logic chk_cont;
  assign chk_cont = is_write && !is_first;
  assign chk_key = chk_sge ? sge_key : chk_cont ? wr_rkey_rd : d_q.reth_rkey;
  assign chk_va = chk_sge ? sge_chk_va : chk_cont ? wr_va_cur : d_q.reth_va;
  assign chk_len = chk_sge ? sge_chk_len : is_atomic ? 32'd8 :
                   chk_cont ? {19'd0, d_q.pay_len} : d_q.reth_len;
  assign chk_acc = chk_sge ? 4'b0001 : is_read_req ? 4'b0100 : is_atomic ? 4'b1000 : 4'b0010;
  // SEND_WITH_INV: the IETH holds the rkey big-endian (imm: wire bytes).
  logic [31:0] inv_key;
  assign inv_key = {d_q.imm[7:0], d_q.imm[15:8], d_q.imm[23:16], d_q.imm[31:24]};
  assign mr_idx_o = ((st_q == StInv) || (st_q == StInvWr)) ? inv_key[31:8] : chk_key[31:8];
  logic chk_ok;
  logic [63:0] chk_bus;
  rnic_mr_check u_mr_check (
    .mr_i(mr_i), .key_i(chk_key), .rkey_i(!chk_sge), .qpn_i(qpn_q), .pd_i(ctx.pd), .va_i(chk_va),
    .len_i(chk_len), .access_i(chk_acc), .ok_o(chk_ok), .bus_o(chk_bus)
  );
  // The window a SEND_WITH_INV names: bound, of this PD, and (type 2) to
  // this QP.
  /* verilator lint_off UNUSEDSIGNAL */  // a view of the MR port
  rnic_pkg::mr_cfg_t mrv;
  /* verilator lint_on UNUSEDSIGNAL */
  assign mrv = mr_i;
  logic inv_ok;
  assign inv_ok = mrv.valid && mrv.is_mw && (mrv.key == inv_key[7:0]) && (mrv.pd == ctx.pd) &&
                  (!mrv.mw_type2 || (mrv.mw_qpn == qpn_q));
  rnic_pkg::mr_cfg_t inv_upd;
  always_comb begin
    inv_upd = mrv;
    inv_upd.valid = 1'b0;
  end
  assign mr_upd_valid_o = (st_q == StInvWr);
  assign mr_upd_idx_o = inv_key[31:8];
  assign mr_upd_o = inv_upd;


  // ---------------------------------------------------------------------------
  // Packet classification
  // ---------------------------------------------------------------------------
  logic [7:0] op;
  assign op = d_q.opcode;
  // QP type, and the opcode as an RC code (UC uses the RC SEND/WRITE codes
  // with other transport bits); a packet of another transport is dropped.
  logic qp_uc, qp_ud, tr_ok;
  logic [7:0] opc;
  assign qp_uc = (ctx.qp_type == rnic_pkg::QptUc);
  assign qp_ud = (ctx.qp_type == rnic_pkg::QptUd);
  assign opc = {3'b000, op[4:0]};
  assign tr_ok = qp_ud ? ((op == rnic_pkg::OpUdSendOnly) || (op == rnic_pkg::OpUdSendOnlyImm)) :
                 qp_uc ? ((op[7:5] == rnic_pkg::TrUc) && (opc <= rnic_pkg::OpWriteOnlyImm)) :
                 (op[7:5] == rnic_pkg::TrRc);
  logic is_send, is_write, is_read_req, is_atomic, is_first, is_last, has_imm;
  logic is_inv;
  assign is_inv = rnic_pkg::op_has_ieth(op);
  assign is_send = qp_ud || (opc <= rnic_pkg::OpSendOnlyImm) || is_inv;
  assign is_write = !qp_ud && (opc >= rnic_pkg::OpWriteFirst) && (opc <= rnic_pkg::OpWriteOnlyImm);
  assign is_read_req = (op == rnic_pkg::OpReadReq);
  assign is_atomic = (op == rnic_pkg::OpCmpSwap) || (op == rnic_pkg::OpFetchAdd);
  assign is_first = qp_ud || (op == rnic_pkg::OpSendOnlyInv) ||
                    (opc == rnic_pkg::OpSendFirst) || (opc == rnic_pkg::OpSendOnly) ||
                    (opc == rnic_pkg::OpSendOnlyImm) || (opc == rnic_pkg::OpWriteFirst) ||
                    (opc == rnic_pkg::OpWriteOnly) || (opc == rnic_pkg::OpWriteOnlyImm);
  assign is_last = qp_ud || is_inv ||
                   (opc == rnic_pkg::OpSendLast) || (opc == rnic_pkg::OpSendLastImm) ||
                   (opc == rnic_pkg::OpSendOnly) || (opc == rnic_pkg::OpSendOnlyImm) ||
                   (opc == rnic_pkg::OpWriteLast) || (opc == rnic_pkg::OpWriteLastImm) ||
                   (opc == rnic_pkg::OpWriteOnly) || (opc == rnic_pkg::OpWriteOnlyImm);
  assign has_imm = rnic_pkg::op_has_imm(op);
  logic noack;                  // UC/UD: the responder never answers
  assign noack = qp_uc || qp_ud;

  logic resp_state_ok, req_state_ok;
  assign resp_state_ok = (ctx.state == rnic_pkg::QpsRts) || (ctx.state == rnic_pkg::QpsSqd) ||
                         (ctx.state == rnic_pkg::QpsSqe);
  assign req_state_ok = (ctx.state == rnic_pkg::QpsRtr) || resp_state_ok;

  logic [23:0] epsn;
  assign epsn = epsn_cur;
  logic rq_empty;
  assign rq_empty = (rq_ci_cur == rq_pi_rd);

  // The receive WQE of a message: from the QP's RQ, or from its SRQ, where
  // a message takes one at its first packet (rwqe_q) so that packets of
  // other QPs in between take the next ones.
  /* verilator lint_off UNUSEDSIGNAL */  // a context view
  rnic_pkg::srq_cfg_t srq;
  /* verilator lint_on UNUSEDSIGNAL */
  assign srq_idx_o = ctx.srqn;
  assign srq = srq_i;
  logic use_srq;
  logic [QpW-1:0] sn;
  assign use_srq = ctx.use_srq;
  assign sn = ctx.srqn[QpW-1:0];
  assign srq_ci_cur = (srq_ci_wv_q && (swa_q == sn)) ? srq_ci_wd_q :
                      (Responder ? srq_ci_q[sn] : '0);
  assign srq_armed_cur = (srq_armed_wv_q && (swa_q == sn)) ? srq_armed_wd_q :
                         (Responder ? srq_armed_q[sn] : '0);

  // Reads of the tables that are not this instance's role's give 0 (a
  // single-role instance of rnic_top: nothing reads them, and Verilator
  // and synthesis drop them; so do the *_cur views above).
  logic [15:0] rq_pi_rd, rq_hf_rd, srq_pi_rd;
  logic [31:0] wr_rkey_rd, wr_len_rd;
  logic [3:0] rsp_out_rd;
  logic [23:0] rw_psn_rd;
  assign rq_pi_rd = Responder ? rq_pi_q[q] : '0;
  assign rq_hf_rd = Responder ? rq_hf_q[q] : '0;
  assign wr_rkey_rd = Responder ? wr_rkey_q[q] : '0;
  assign wr_len_rd = Responder ? wr_len_q[q] : '0;
  assign rsp_out_rd = Responder ? rsp_out_q[q] : '0;
  assign rw_psn_rd = Completer ? rw_psn_q[q] : '0;
  assign srq_pi_rd = Responder ? srq_pi_q[sn] : '0;
  logic rx_avail;
  logic [15:0] rx_next, rx_widx;
  logic [63:0] rx_wqe_addr;
  logic [15:0] rx_wqe_len;
  assign rx_avail = use_srq ? (srq.valid && (rwqe_v_cur || (srq_ci_cur != srq_pi_rd))) :
                    !rq_empty;
  assign rx_next = use_srq ? (rwqe_v_cur ? rwqe_cur : srq_ci_cur) : rq_ci_cur;
  assign rx_widx = use_srq ? rwqe_cur : rq_ci_cur;
  assign rx_wqe_addr = use_srq ?
      srq.base + ({48'd0, rx_next & ((16'd1 << srq.log_size) - 16'd1)} << srq.wqe_shift) :
      ctx.rq_base + ({48'd0, rx_next & ((16'd1 << ctx.rq_log_size) - 16'd1)} << ctx.rq_wqe_shift);
  assign rx_wqe_len = use_srq ? (16'd1 << srq.wqe_shift) : (16'd1 << ctx.rq_wqe_shift);
  // The WQE cache's tag of the WQE a receive takes (or holds), and the
  // WQE worth reading ahead: an RQ doorbell (StRqFlush) names the head or
  // the read-ahead frontier, a receive the one after its own and then the
  // second next or the frontier (rq_hf below).
  logic [25:0] rx_num;
  assign rx_num = use_srq ? {rnic_pkg::RwqeSrq, 8'd0, ctx.srqn} : {rnic_pkg::RwqeRq, qpn_q};
  // A READ response or atomic ACK looks up its send WQE (the head record's)
  // in StRdRespHead, and in StRwcWait when it waits for it (rwc_sq_q).
  logic rwc_sq_q;
  logic [rnic_pkg::RwqeKeyW-1:0] sq_key;
  assign sq_key = {rnic_pkg::RwqeSq, qpn_q, head.wqe_idx};
  assign rwc_lk_valid_o = (st_sel == StReq) || rh_sel || (st_q == StRwcWait);
  assign rwc_lk_key_o = (rh_sel || ((st_q == StRwcWait) && rwc_sq_q)) ? sq_key :
                        {rx_num, rx_next};
  // A receive hints the WQE after its own, and in the next cycle
  // (rwc_hint2_q) the one after that: a burst of SENDs to one QP finds them
  // read or on their way.
  logic [15:0] pf_next, pf_idx, pf_ci, pf_pi;
  logic pf_more, rwc_hint2_q;
  // A READ/atomic record taken in StIdle: its send WQE is hinted in the
  // next cycle, when the context is the record's QP's. It takes a free
  // entry only: responses come in record order, so the filled entries are
  // needed before it (evicting the oldest would drop the one needed next).
  logic sq_hint_q;
  logic [15:0] sq_hint_idx_q;
  // An RQ keeps a read-ahead frontier (rq_hf_q): the next WQE to hint.
  // While the WQE cache has room (a sixteenth of its entries free), every RQ
  // doorbell and every take's second hint names the frontier and moves it
  // on, up to RqAhead WQEs from the head, so that WQEs posted while the
  // queue is not empty, and bursts of SENDs to one QP, find their WQEs
  // read or on their way (a hint of the next two arrives one SEND ahead,
  // less than a read's latency). Without room they name the head and the
  // second next as before, so that queues whose next WQEs need the entries
  // get them; the frontier moves only when it is the WQE named. A
  // frontier outside the posted WQEs (the queue was reset or flushed)
  // means the head; the take's second hint starts two after it (the first
  // names the next).
  logic [15:0] rq_hf, rq_hf_off, rq_hf_lo;
  logic rq_hf_adv;
  assign rq_hf_lo = rwc_hint2_q ? 16'd2 : 16'd0;
  assign rq_hf_off = rq_hf_rd - rq_ci_cur;
  assign rq_hf = ((rq_hf_off >= rq_hf_lo) && (rq_hf_off <= (rq_pi_rd - rq_ci_cur))) ?
                 rq_hf_rd : rq_ci_cur + rq_hf_lo;
  assign pf_next = use_srq ? (rwqe_v_cur ? srq_ci_cur : srq_ci_cur + 16'd1) : rq_ci_cur + 16'd1;
  assign pf_idx = use_srq ? (rwc_hint2_q ? pf_next + 16'd1 : pf_next) :
                  (((st_q == StRqFlush) || rwc_hint2_q) && rwc_room_i) ? rq_hf :
                  (st_q == StRqFlush) ? rq_ci_cur : rwc_hint2_q ? pf_next + 16'd1 : pf_next;
  assign pf_ci = use_srq ? srq_ci_cur : rq_ci_cur;
  assign pf_pi = use_srq ? srq_pi_rd : rq_pi_rd;
  // Posted and not taken: between the consumer and producer indices; an
  // RQ's within RqAhead of the head.
  logic [15:0] pf_off;
  assign pf_off = pf_idx - pf_ci;
  assign pf_more = Responder && (!use_srq || srq.valid) && (pf_off < (pf_pi - pf_ci)) &&
                   (use_srq || (pf_off < 16'(RqAhead)));
  logic rwc_hint_q, rwc_hint_ev_q, rwc_inv_q;
  logic [rnic_pkg::RwqeKeyW-1:0] rwc_hint_key_q, rwc_inv_key_q;
  logic [63:0] rwc_hint_addr_q;
  logic [15:0] rwc_hint_len_q;
  // The hint this cycle decides is of a QP whose queues are reset in it
  // (an SRQ's WQEs are not the QP's).
  logic hint_rst;
  assign hint_rst = qp_wr_i && (qp_wr_idx_i == qpn_q) && (sq_hint_q || !use_srq) &&
                    (qp_wr_flags_i[rnic_pkg::QpFlagResetRq] ||
                     qp_wr_flags_i[rnic_pkg::QpFlagResetSq]);
  assign rwc_hint_valid_o = rwc_hint_q;
  assign rwc_hint_evict_o = rwc_hint_ev_q;
  assign rwc_hint_key_o = rwc_hint_key_q;
  assign rwc_hint_addr_o = rwc_hint_addr_q;
  assign rwc_hint_len_o = rwc_hint_len_q;
  assign rwc_inv_o = rwc_inv_q;
  assign rwc_inv_key_o = rwc_inv_key_q;
  // A WQE from the cache: the receive's in StReq (the SEND and UD paths
  // only get there when they take it; the other paths ignore these
  // registers), the send WQE's in StRdRespHead (when it goes on to the
  // scatter list), either when StRwcWait waited for it. A send WQE's
  // SGEs follow two segments (READ) or three (atomic); one that does not
  // fit into the entry is read.
  logic [2:0] rwc_first;
  logic [7:0] rwc_cnt;
  logic rr_fetch, sq_hit, rwc_use;
  assign rr_fetch = Completer && head_resp && psn_in_head &&
                    ((op == rnic_pkg::OpAtomicAck) == head_atomic) && (d_q.psn == una_cur);
  assign rwc_first = rh_sel ? (head_atomic ? 3'd3 : 3'd2) :
                     ((st_q == StRwcWait) && rwc_sq_q) ? sge_first_q : 3'd1;
  assign rwc_cnt = (rwc_first == 3'd1) ? rwc_lk_data_i[7:0] :
                   (rwc_lk_data_i[39:32] - {5'd0, rwc_first});
  assign sq_hit = rwc_lk_hit_i && ((rwc_cnt > 8'd4) ||
                  ({5'd0, rwc_first} + rwc_cnt <= 8'(rnic_pkg::RwqeBytes / 16)));
  assign rwc_use = ((st_sel == StReq) && rwc_lk_hit_i) ||
                   (rh_sel && rr_fetch && sq_hit) ||
                   ((st_q == StRwcWait) && (rwc_sq_q ? sq_hit : rwc_lk_hit_i));
  logic [63:0] pf_addr, sq_pf_addr;
  assign pf_addr = use_srq ?
      srq.base + ({48'd0, pf_idx & ((16'd1 << srq.log_size) - 16'd1)} << srq.wqe_shift) :
      ctx.rq_base + ({48'd0, pf_idx & ((16'd1 << ctx.rq_log_size) - 16'd1)} << ctx.rq_wqe_shift);
  assign sq_pf_addr = ctx.sq_base +
      ({48'd0, sq_hint_idx_q & ((16'd1 << ctx.sq_log_size) - 16'd1)} << ctx.sq_wqe_shift);
  // What a receive WQE's scatter list needs of it, and a send WQE's.
  logic [15:0] rq_pf_len, sq_pf_len;
  assign rq_pf_len = (rx_wqe_len < 16'(rnic_pkg::RwqeRqBytes)) ? rx_wqe_len :
                     16'(rnic_pkg::RwqeRqBytes);
  assign sq_pf_len = ((16'd1 << ctx.sq_wqe_shift) < 16'(rnic_pkg::RwqeBytes)) ?
                     (16'd1 << ctx.sq_wqe_shift) : 16'(rnic_pkg::RwqeBytes);
  // Retired or replaced: a receive WQE when its message ends (or fails or
  // is flushed); a send WQE when a record for its slot arrives and when
  // its last response is placed.
  logic infl_take;
  assign infl_take = Completer && inf_v && idle_infl && (inf_rec.qpn < 24'(NQp));
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      rwc_hint_key_q <= '0;
      rwc_hint_addr_q <= '0;
      rwc_hint_len_q <= '0;
      rwc_inv_key_q <= '0;
    end else begin
      rwc_hint_key_q <= sq_hint_q ? {rnic_pkg::RwqeSq, qpn_q, sq_hint_idx_q} : {rx_num, pf_idx};
      rwc_hint_addr_q <= sq_hint_q ? sq_pf_addr : pf_addr;
      rwc_hint_len_q <= sq_hint_q ? sq_pf_len : rq_pf_len;
      rwc_inv_key_q <= infl_take ? {rnic_pkg::RwqeSq, inf_rec.qpn, inf_rec.wqe_idx} :
                       ((st_sel == StAfterPlace) && rnic_pkg::op_is_response(op)) ? sq_key :
                       {rx_num, rx_widx};
    end
  end
  // WQEs an SRQ still holds after this message takes one
  logic [15:0] srq_left;
  assign srq_left = srq_pi_rd - srq_ci_cur - 16'd1;
  logic [1:0] seq;
  assign seq = seq_cur;
  logic seq_ok;
  assign seq_ok = is_first ? (seq == SeqIdle) :
                  is_send ? (seq == SeqSend) :
                  is_write ? (seq == SeqWrite) : (seq == SeqIdle);

  logic [31:0] rd_npkts;
  assign rd_npkts = (d_q.reth_len == 32'd0) ? 32'd1 :
                    ((d_q.reth_len + (32'd1 << mtu_lg) - 32'd1) >> mtu_lg);

  // NAK status at the requester, by syndrome
  function automatic logic [7:0] nak_status(input logic [7:0] syn);
    if (syn == rnic_pkg::AethNakInvReq) nak_status = rnic_pkg::WcRemInvReqErr;
    else if (syn == rnic_pkg::AethNakRemAcc) nak_status = rnic_pkg::WcRemAccessErr;
    else if (syn == rnic_pkg::AethNakRemOp) nak_status = rnic_pkg::WcRemOpErr;
    else nak_status = rnic_pkg::WcBadRespErr;
  endfunction

  // Head record and the packet: is the PSN inside the head WQE?
  logic psn_in_head, head_resp, head_atomic;
  assign psn_in_head = rnic_pkg::psn_ge(d_q.psn, head.first_psn) &&
                       rnic_pkg::psn_ge(head.last_psn, d_q.psn);
  assign head_resp = head_v && head.is_read && (head.kind == rnic_pkg::InflNormal);

  // StRetire completes the head record: flushed, a local operation, or
  // covered by the ACK (or by the frames having left, for UC/UD).
  logic ret_ack_ok, ret_take, ret_out;
  // head_acked: an RC request (not a READ/atomic) the ACK covers
  logic head_acked;
  assign head_acked = ack_mode && !head.is_read && (head.kind == rnic_pkg::InflNormal) &&
                      rnic_pkg::psn_ge(ack_psn, head.last_psn);
  assign ret_ack_ok = (noack_mode_q && (head.kind == rnic_pkg::InflNoAck) &&
                       ((noack_idx_q - head.wqe_idx) < 16'h8000)) || head_acked;
  assign ret_take = head_v && (flushing || (ctx.state == rnic_pkg::QpsErr) ||
                               (ctx.state == rnic_pkg::QpsSqe) ||
                               (head.kind == rnic_pkg::InflFlush) ||
                               (head.kind == rnic_pkg::InflLocalErr) || ret_ack_ok);
  // StRetireOut's work (the record leaves the ring, progress is reported):
  // in the StRetire cycle that completes it when the report register is
  // free, else in StRetireOut. The register frees in the cycle its report
  // is taken (done_free, as the CQE registers): the report is the QP's
  // done index, which the next one carries further, so a retire loop
  // retires a record per cycle (every other cycle until stop 51, each
  // retire waiting out the previous report).
  // A READ's last response (or an atomic ACK) retires its record in the
  // StAfterPlace work that completes it (rd_last, also from StPlace).
  logic rd_last;
  assign rd_last = (st_sel == StAfterPlace) && scqe_free && rnic_pkg::op_is_response(op) &&
                   (d_q.psn == head.last_psn);
  // A record taken by StRetire (or completed by its last READ response)
  // leaves only if it is still there: a context write that resets the SQ
  // meanwhile (a progress report or a placement in between) emptied the
  // ring, and the QP starts again from WQE 0.
  logic done_free;
  assign done_free = !need_done_q || (done_valid_o && done_ready_i);
  assign ret_out = done_free && head_v &&
                   ((st_q == StRetireOut) || ((st_sel == StRetire) && scqe_free && ret_take) ||
                    rd_last);
  // Two records in one retire (ret_pair): an ACK that covers the head, an
  // RC WQE without a completion of its own (unsignaled), and the record
  // after it; the completion, if any, is the second's. An ACK that asks
  // for an ACK on every second WQE (AckEvery) covers two such records,
  // which took a cycle each.
  logic ret_pair;
  assign ret_pair = ret_out && (st_sel == StRetire) && !flushing &&
                    (ctx.state != rnic_pkg::QpsErr) && (ctx.state != rnic_pkg::QpsSqe) &&
                    head_acked && !head.signaled && nxt_v && !nxt.is_read &&
                    (nxt.kind == rnic_pkg::InflNormal) && rnic_pkg::psn_ge(ack_psn, nxt.last_psn);
  assign head_atomic = (head.wc_op == rnic_pkg::WcOpCompSwap) ||
                       (head.wc_op == rnic_pkg::WcOpFetchAdd);

  // An implied NAK restarts the head READ/atomic at una; a rewind to that
  // PSN already under way (duplicate ACKs of packets sent before it) is not
  // a new loss and costs no retry.
  logic [23:0] imp_restart;
  logic imp_dup;
  assign imp_restart = rnic_pkg::psn_ge(una_cur, head.first_psn) ? una_cur : head.first_psn;
  assign imp_dup = rw_v_cur && (rw_psn_rd == imp_restart);

  // Retry limits of the QP (rnr_retry 7: no limit)
  logic retry_left, rnr_left;
  assign retry_left = (rc_used_cur != ctx.retry_cnt);
  assign rnr_left = (ctx.rnr_retry == 3'd7) || (rnr_used_cur != ctx.rnr_retry);

  // Deferred responder actions after the placement
  logic [7:0] err_syn_q;      // NAK to send after a responder error
  logic [7:0] err_status_q;   // receive completion status of that error
  logic err_cqe_q;            // the error consumes a receive WQE

  // The requester's in-flight records. One that arrives while the engine
  // is busy waits in hold_q, so the requester goes on to send its frames;
  // the engine takes it before any other event once idle (an ACK for it
  // comes after its frame, as a packet, which waits for that). Only RC and
  // UC/UD requests without responses are held: flush and error records
  // complete as soon as they are the head, and a flush record replacing one
  // still in the ring must find it there when it is taken (rnic_requester's
  // repl_q). READ/atomic records are not: each hints its send WQE into the
  // WQE cache, which takes only a free entry, and READs handed over faster
  // than responses retire them found the cache full, missed for every
  // response and ran at 37 cycles per READ instead of 12 (16 QPs).
  /* verilator lint_off UNUSEDSIGNAL */
  rnic_pkg::infl_t infl_in, hold_q, inf_rec;
  /* verilator lint_on UNUSEDSIGNAL */
  logic hold_v_q, inf_v, idle_infl, hold_ok;
  assign infl_in = infl_i;
  assign inf_v = Completer && (hold_v_q || infl_valid_i);
  assign inf_rec = hold_v_q ? hold_q : infl_in;
  assign hold_ok = (((infl_in.kind == rnic_pkg::InflNormal) && !infl_in.is_read) ||
                    (infl_in.kind == rnic_pkg::InflNoAck)) && (infl_in.qpn < 24'(NQp));

  // The ring of in-flight records. Written by the StIdle arm's take of a
  // record (ring_push, infl_take), StTxFault's change of a record whose
  // frame was dropped (ring_fix), the retire (ret_out) and a send-queue
  // reset (ring_clr).
  logic ring_push, ring_fix, ring_clr;
  assign ring_push = infl_take;
  assign ring_fix = (st_sel == StTxFault) && fault_v && (fault_rec.wqe_idx == noack_idx_q) &&
                    ((fault_rec.kind == rnic_pkg::InflNormal) ||
                     (fault_rec.kind == rnic_pkg::InflNoAck));
  assign ring_clr = qp_wr_i && (qp_wr_idx_i < 24'(NQp)) && qp_wr_flags_i[rnic_pkg::QpFlagResetSq];
  // (A responder-only instance has no ring: no record ever comes to it.)
  if (Completer) begin : g_ring
  rnic_infl_ring #(
    .NQp(NQp),
    .InflDepth(InflDepth)
  ) u_ring (
    .clk_i,
    .rst_ni,
    .q_i(q),
    .done_o(head_idx),
    .head_o(head),
    .head_v_o(head_v),
    .next_o(nxt),
    .next_v_o(nxt_v),
    .slot_i(fault_slot),
    .slot_rec_o(fault_rec),
    .slot_v_o(fault_v),
    .retire_i(ret_out),
    .retire2_i(ret_pair),
    .wr_i(ring_push || ring_fix),
    .wr_new_i(ring_push),
    .wr_q_i(ring_push ? inf_rec.qpn[QpW-1:0] : q),
    .wr_slot_i(ring_push ? inf_rec.wqe_idx[RingW-1:0] : fault_slot),
    .wr_rec_i(ring_push ? inf_rec : fault_upd),
    .clr_i(ring_clr),
    .clr_q_i(qp_wr_idx_i[QpW-1:0]),
    .rd_q_i(ring_rd_qpn_i[QpW-1:0]),
    .rd_slot_i(ring_rd_idx_i[RingW-1:0]),
    .rd_rec_o(ring_rd_rec),
    .rd_v_o(ring_rd_v)
  );
  end else begin : g_no_ring
    assign head_idx = '0;
    assign head = '0;
    assign head_v = 1'b0;
    assign nxt = '0;
    assign nxt_v = 1'b0;
    assign fault_rec = '0;
    assign fault_v = 1'b0;
    assign ring_rd_rec = '0;
    assign ring_rd_v = 1'b0;
    logic unused_ring;
    assign unused_ring = ^{ret_pair, ring_push, ring_fix, ring_clr, fault_upd, fault_slot,
                           ring_rd_qpn_i, ring_rd_idx_i};
  end

  // ---------------------------------------------------------------------------
  // Transport timer
  // ---------------------------------------------------------------------------
  logic tmr_v_q;
  // The command's QP: the event's when the command was issued (qpn_q may
  // move on in the cycle the timer takes it).
  logic [23:0] tmr_qpn_q;
  // An RC request's in-flight record was taken: its ACK timer starts in
  // the next cycle, beside whatever the engine does then (the QP's context
  // is still selected: qpn_q changes only at the end of that cycle).
  logic infl_tmr_q;
  // A request's record (RC, or UC/UD waiting for its frames) taken in the
  // previous cycle whose QP is in ERR by now: its flush walked the ring
  // before the record came (the requester had read the context before the
  // move, or the record waited in the hold), so it is flushed now
  // (StRetire) in place of starting the timer. A response or NAK is dropped
  // in ERR, an ACK timeout does nothing there, and the requester stops a
  // message of a QP in ERR before its last frame.
  logic infl_new_q, infl_err;
  assign infl_err = infl_new_q && (ctx.state == rnic_pkg::QpsErr);
  logic [1:0] tmr_op_q;
  logic [41:0] tmr_cycles_q;
  logic tmr_exp_v, tmr_exp_ready, tmr_exp_rnr, tmr_rnr_q, tmr_idle;
  logic [23:0] tmr_exp_qpn;
  // (A responder-only instance has no timer: only records start one.)
  if (Completer) begin : g_timer
    rnic_retry_timer #(.NQp(NQp)) u_timer (
      .clk_i, .rst_ni,
      .cmd_valid_i(tmr_v_q), .cmd_op_i(tmr_op_q), .cmd_qpn_i(tmr_qpn_q),
      .cmd_cycles_i(tmr_cycles_q),
      .exp_valid_o(tmr_exp_v), .exp_ready_i(tmr_exp_ready), .exp_qpn_o(tmr_exp_qpn),
      .exp_rnr_o(tmr_exp_rnr),
      .idle_o(tmr_idle), .due_o, .skip_i, .skip_cycles_i
    );
  end else begin : g_no_timer
    assign tmr_exp_v = 1'b0;
    assign tmr_exp_qpn = '0;
    assign tmr_exp_rnr = 1'b0;
    assign tmr_idle = 1'b1;
    assign due_o = '1;
    logic unused_tmr;
    assign unused_tmr = ^{tmr_op_q, tmr_qpn_q, tmr_cycles_q, tmr_exp_ready, skip_i, skip_cycles_i};
  end

  // UC/UD send completions and payload read failures from the TX builder
  logic na_v, na_pop;
  logic [40:0] na_d;
  logic [3:0] na_cnt;
  // (The completer's: a responder-only instance has none.)
  if (Completer) begin : g_noack
    rnic_fifo #(.Width(41), .Depth(8)) u_noack (
      .clk_i, .rst_ni,
      .in_valid_i(noack_valid_i), .in_ready_o(noack_ready_o),
      .in_data_i({noack_err_i, noack_qpn_i, noack_idx_i}),
      .out_valid_o(na_v), .out_ready_i(na_pop), .out_data_o(na_d), .count_o(na_cnt)
    );
  end else begin : g_no_noack
    assign noack_ready_o = 1'b1;
    assign na_v = 1'b0;
    assign na_d = '0;
    assign na_cnt = '0;
    logic unused_na;
    assign unused_na = ^{noack_valid_i, noack_err_i, noack_qpn_i, noack_idx_i, na_pop};
  end

  // Asynchronous events. They are rare; one that finds the queue full is lost.
  logic aev_push_q, aev_in_ready;
  logic [31:0] aev_in_q;
  logic [2:0] aev_cnt;
  rnic_fifo #(.Width(32), .Depth(4)) u_aev (
    .clk_i, .rst_ni,
    .in_valid_i(aev_push_q), .in_ready_o(aev_in_ready), .in_data_i(aev_in_q),
    .out_valid_o(aev_valid_o), .out_ready_i(aev_ready_i), .out_data_o(aev_o), .count_o(aev_cnt)
  );

  // Rewind output
  rnic_pkg::rewind_t rw_out;
  always_comb begin
    rw_out.qpn = qpn_q;
    rw_out.idx = head.wqe_idx;
    rw_out.first_psn = head.first_psn;
    rw_out.restart_psn = restart_q;
    rw_out.hold = rw_hold_q;
  end
  assign rewind_valid_o = (st_q == StRewind);
  assign rewind_o = rw_out;
  assign rewind_resume_o = rw_resume_q;

  // The original value of an atomic ACK, one 8-byte beat (it travels
  // big-endian, memory wants the host's little-endian order, so it is not
  // copied from the frame like READ data).
  // An atomic ACK whose 8-byte buffer is one SGE, mapped without error in
  // its first StMap cycle, offers the write in that cycle (mw_try) with the
  // address StMap would put in the first segment; if the write is not taken, StMap
  // goes on to StAckWr as before, which offers the same write.
  assign mw_try = Completer && (st_q == StMap) && (op == rnic_pkg::OpAtomicAck) && !wqe_err &&
                  (sge_cnt <= 3'd4) && map_last && !ud_pass1_q && (nseg == 3'd0) &&
                  map_hit && map_fits && !map_ovf && !map_prot;
  assign wr_valid_o = (st_q == StAckWr) || mw_try;
  assign wr_addr_o = mw_try ? chk_bus : seg_addr[63:0];
  assign wr_len_o = 16'd8;
  assign wr_data_o = DataW'(d_q.atomic_swap);
  assign wr_last_o = 1'b1;

  // Atomics go to rnic_atomic_unit once every earlier payload is in memory;
  // the MSN and expected PSN move on as the unit takes one (its answer
  // carries them). A duplicate goes too: the unit answers it from the
  // results it keeps, in order behind the QP's atomics still in it.
  rnic_pkg::at_op_t at_op;
  always_comb begin
    at_op.qpn = qpn_q;
    at_op.psn = d_q.psn;
    at_op.msn = msn_cur;
    at_op.addr = at_addr_q;
    at_op.swap = d_q.atomic_swap;
    at_op.cmp = d_q.atomic_cmp;
    at_op.cas = (op == rnic_pkg::OpCmpSwap);
    at_op.dup = (st_q == StAtDup);
  end
  assign at_o = at_op;
  assign at_valid_o = ((st_q == StAtOp) && place_idle) || (st_q == StAtDup);
  // While the unit holds an atomic of a QP, the QP's other requests wait
  // (a later WRITE must not land before the atomic's write, a later ACK not
  // leave before its answer), and so do the engine's jobs for it (StJob,
  // StErrCqe). Responses and atomics pass.
  logic [7:0] pkt_op;
  logic pkt_hold;
  assign pkt_op = pkt_i[rnic_pkg::RxDescW-25 -: 8];
  assign at_busy_qpn_o = ((st_q == StJob) || (st_q == StErrCqe)) ? qpn_q :
                         pkt_i[rnic_pkg::RxDescW-1 -: 24];
  assign pkt_hold = at_busy_i && !rnic_pkg::op_is_response(pkt_op) &&
                    (pkt_op != rnic_pkg::OpCmpSwap) && (pkt_op != rnic_pkg::OpFetchAdd);

  logic rsp_inc;
  assign rsp_inc = Responder && ((st_q == StJob) && !job_v_q && !at_busy_i &&
                    (njob_q.kind != rnic_pkg::JobAck) && !njob_q.dup) ||
                   ((st_q == StAtOp) && at_valid_o && at_ready_i);

  // Inputs: one event at a time, errors of the command path first.
  // The QP of a finished event stays selected until its progress report left.
  // StDrop ends an event (its frame slot is released) and takes the next
  // one in the same cycle, as StIdle does.
  // An RQ doorbell of a QP that is not in ERR (nothing to flush) ends in
  // its StRqFlush cycle, which takes the next event as StIdle does
  // (rqf_end: the case below runs the StIdle arm).
  logic rqf_end, ret_drop, done_wait;
  assign rqf_end = Responder && (st_q == StRqFlush) && !flushing_q && !from_pkt_q &&
                   (ctx.state != rnic_pkg::QpsErr);
  // The StPlace cycle that starts a placement also does the StAfterPlace
  // work (a request's sequence state, ACK job and receive CQE; a response's
  // progress, retire and send CQE; a CQE waits for placement through
  // place_idle): the case below runs the StAfterPlace arm (ap_now), which
  // stays in StAfterPlace only when a completion is still pending.
  assign ap_now = (st_q == StPlace) && place_idle;
  // So does the StAckWr cycle whose write (the atomic's original value) is
  // taken: a CQE it makes follows that write on the in-order write path.
  assign aw_now = (st_q == StAckWr) && wr_ready_i;
  // And the StMap cycle whose offered write is taken (mw_now): the StMap
  // arm's own work there is only the mapping registers, which the next
  // mapping sets again.
  assign mw_now = mw_try && wr_ready_i;
  // A request of a QP in a state that takes it (and a transport that
  // matches) is checked in its StPkt cycle: the StReq arm runs (rq_now).
  assign rq_now = Responder && (st_q == StPkt) && (qpn_q < 24'(NQp)) &&
                  !rnic_pkg::op_is_response(op) && req_state_ok && tr_ok;
  // A plain ACK (a QP in a state that takes responses) starts its retire
  // loop in its StPkt cycle: the StRetire arm runs (rt_now), reading the
  // ACK's PSN and mode through ack_psn, ack_mode, flushing and ret_st.
  logic resp_take;          // StPkt: a response the QP takes
  assign resp_take = Completer && (st_q == StPkt) && (qpn_q < 24'(NQp)) &&
                     rnic_pkg::op_is_response(op) && resp_state_ok && !noack;
  assign rt_now = resp_take && (op == rnic_pkg::OpAck) && (d_q.aeth_syn[7:5] == 3'b000);
  // A READ response or atomic ACK for the head record (nothing before it
  // to retire) looks up its send WQE in its StPkt cycle: the StRdRespHead
  // arm runs (rh_now). Only while the WQE cache has room: without that
  // gate, READs on 22 or more QPs got ahead of the cache (more send WQEs
  // in flight than entries, hints without a free entry, responses reading
  // their WQE from memory: docs/performance.md).
  assign rh_now = resp_take && (op != rnic_pkg::OpAck) && head_resp &&
                  (ctx.state != rnic_pkg::QpsSqe) && rwc_room_i;
  assign rh_sel = (st_q == StRdRespHead) || rh_now;
  // An in-order WRITE (without immediate on its last packet), READ
  // request or atomic with a responder resource free passes StReq doing
  // nothing but choosing StMap: its StPkt cycle maps it (mp_now; the
  // StReq work it skips is done beside, below).
  assign mp_now = rq_now && !qp_ud && (d_q.psn == epsn) && seq_ok &&
                  ((is_write && !(is_last && has_imm)) ||
                   ((is_read_req || is_atomic) && (rsp_out_rd < ctx.max_dest_rd_atomic)));
  assign st_pre = rqf_end ? StIdle : (ap_now || aw_now || mw_now) ? StAfterPlace :
                  mp_now ? StMap : rq_now ? StReq :
                  rt_now ? StRetire : rh_now ? StRdRespHead : st_q;
  // Such a doorbell reads its QP's frontier WQE ahead (the head when the
  // queue was empty); the take's second hint moves the frontier too.
  logic rq_db_hint;
  assign rq_db_hint = Responder && rqf_end && !use_srq && (qpn_q < 24'(NQp)) &&
                      (ctx.state != rnic_pkg::QpsReset) && pf_more;
  assign rq_hf_adv = (rq_db_hint || (rwc_hint2_q && !use_srq && pf_more)) && (pf_idx == rq_hf);
  logic idle;
  // The end of a packet's retire loop (ret_end in StRetire: nothing more
  // to retire, the timer updated) also ends the event: the case below runs
  // the StIdle arm (ret_drop), which does StDrop's work.
  assign ret_drop = ret_end && (st_q == StRetire) && from_pkt_q;
  assign st_sel = ret_drop ? StIdle : st_pre;
  // A progress report taken in this cycle holds nothing back: qpn_q moves
  // on at its end.
  assign done_wait = need_done_q && !done_ready_i;
  assign idle = ((st_q == StIdle) || (st_q == StDrop) || rqf_end || ret_drop) && !done_wait &&
                !infl_err && !pend_err;
  // The StIdle arm takes the first QP moved to ERR before anything else
  // (after a record taken for a QP in ERR already).
  assign errp_pop = ((st_sel == StIdle) || (st_sel == StDrop)) && !done_wait && !infl_err &&
                    pend_err;
  // A request's after-place work that ends the event (no ACK job left for
  // StJob, no invalidation) takes a waiting RQ doorbell in the same cycle
  // (ap_db; doorbells come first in StIdle too): it touches neither the
  // frame slot nor the placement job, which starts in the next cycle.
  logic ap_db;
  assign ap_db = Responder && (st_sel == StAfterPlace) && rcqe_free &&
                 !rnic_pkg::op_is_response(op) && !rnic_pkg::op_has_ieth(op) &&
                 (!d_q.ack_req || noack || !job_v_q) &&
                 !done_wait && !pend_err && rq_db_valid_i;
  assign rq_db_ready_o = idle || ap_db;
  logic db_take;
  assign db_take = rq_db_valid_i && rq_db_ready_o;
  // An RQ producer index is taken by the rule of SQ doorbells
  // (rnic_sq_fetch), measured from the QP's consumer index: not behind the
  // current producer index, at most 32768 WQEs (a full ring) past the
  // consumer index. Anything else would flush up to 65535 WQEs in ERR, or
  // wrap onto the consumer index and hide every WQE posted.
  logic [QpW-1:0] rdb_q;
  logic [15:0] rdb_ci, rdb_rel, rdb_cur;
  logic rdb_ok;
  assign rdb_q = rq_db_data_i[QpW-1:0];
  assign rdb_ci = (rq_ci_wv_q && (wa_q == rdb_q)) ? rq_ci_wd_q : (Responder ? rq_ci_q[rdb_q] : '0);
  assign rdb_rel = rq_db_data_i[47:32] - rdb_ci;
  assign rdb_cur = (Responder ? rq_pi_q[rdb_q] : '0) - rdb_ci;
  assign rdb_ok = Responder && (rq_db_data_i[23:0] < 24'(NQp)) && (rdb_rel <= 16'h8000) &&
                  (rdb_rel >= rdb_cur);
  assign at_err_ready_o = idle && !rq_db_valid_i;
  assign idle_infl = idle && !rq_db_valid_i && !at_err_valid_i;
  assign infl_ready_o = !hold_v_q && (idle_infl || hold_ok);
  assign idle_o = idle_infl && !hold_v_q;
  assign tmr_exp_ready = idle_infl && !inf_v;
  assign na_pop = idle_infl && !inf_v && !tmr_exp_v;
  assign flp_pop = idle_infl && !inf_v && !tmr_exp_v && !na_v && flp_valid;
  assign owe_take = idle_infl && !inf_v && !tmr_exp_v && !na_v && !flp_valid && owe_first;
  assign pkt_ready_o = idle_infl && !inf_v && !tmr_exp_v && !na_v && !flp_valid && !pkt_hold &&
                       !owe_first;
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      hold_v_q <= 1'b0;
      hold_q <= '0;
    end else if (infl_valid_i && infl_ready_o && !idle_infl) begin
      hold_v_q <= 1'b1;
      hold_q <= infl_in;
    end else if (idle_infl || (qp_wr_i && (qp_wr_idx_i == hold_q.qpn) &&
                               qp_wr_flags_i[rnic_pkg::QpFlagResetSq])) begin
      // taken, or its QP reset (its ring emptied)
      hold_v_q <= 1'b0;
    end
  end
  // Nothing to do and nothing on its way out: the one-cycle strobes are low,
  // no CQE, progress report, job, event or timer command waits, and the
  // queues into the engine are empty.
  assign quiet_o = idle && (st_q == StIdle) && !hold_v_q && !infl_tmr_q && !infl_new_q &&
                   tmr_idle && !tmr_v_q && !rwc_hint_q && !rwc_hint2_q && !rwc_inv_q &&
                   !need_scqe_q && !need_rcqe_q && !job_v_q && !na_v && !flp_valid &&
                   !aev_valid_o && !aev_push_q && !release_o && !place_start_o && !qp_err_q && !rd_done_o &&
                   !owe_valid && !owe_set_q && !owe_clr_q;
  logic fl_more;
  assign fl_more = use_srq ? rwqe_v_cur : (rq_ci_cur != rq_pi_rd);
  assign fl_yield = Responder && (st_q == StRqFlush) && !need_rcqe_q && (fl_cnt_q == FlushBatch) &&
                    (ctx.state == rnic_pkg::QpsErr) && !use_srq && fl_more;

  assign place_want_o = (st_q == StPlace);
  assign place_slot_o = slot_q;
  assign place_base_o = {8'd0, poff_q};
  assign place_nseg_o = nseg;
  assign place_addr_o = seg_addr;
  assign place_len_o = seg_len;
  assign place_poff_o = seg_poff;

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      place_ev_qpn_o <= '0;
      place_ev_psn_o <= '0;
      place_ev_pos_o <= '0;
    end else if ((st_q == StPlace) && place_idle) begin
      place_ev_qpn_o <= qpn_q;
      place_ev_psn_o <= d_q.psn;
      place_ev_pos_o <= rnic_pkg::op_is_response(op) ?
          {1'b1, (op == rnic_pkg::OpReadRespLast) || (op == rnic_pkg::OpReadRespOnly),
           (op == rnic_pkg::OpReadRespFirst) || (op == rnic_pkg::OpReadRespOnly)} :
          {1'b0, is_last, is_first};
    end
  end

  // The SGE count of a fetched WQE (u_wqe_fetch): RQ WQEs say it in byte
  // 0; SQ WQEs have ds - (segments before the data) data segments.
  logic [7:0] f_cnt;

  // StMap's rkey path (WRITE, READ request, atomic): an operation the QP's
  // access flags do not enable is an invalid request; a key, range or
  // MR-right failure a remote access error. A WRITE's payload must fit what
  // its RETH (or what is left of it) announced.
  logic rk_bad, rk_long;
  assign rk_bad = Responder && !ctx.access[is_read_req ? 2 : is_atomic ? 3 : 1] ||
                  ((d_q.reth_len != 32'd0) && is_first && !chk_ok) ||
                  (chk_cont && (d_q.pay_len != 13'd0) && !chk_ok) ||
                  ((is_read_req || is_atomic) && (d_q.reth_len != 32'd0) && !chk_ok);
  assign rk_long = Responder && (is_first && ({19'd0, d_q.pay_len} > d_q.reth_len)) ||
                   (!is_first && ({19'd0, d_q.pay_len} > wr_left_cur));
  // The mapper's controls, as the state machine's arms decide: a WQE read
  // or taken from the cache starts a list; StMap walks it for a receive or
  // response (map_walk), walks it again for a UD receive's payload after
  // its GRH area (map_rewalk), and sets a WRITE's one segment.
  assign map_start = wqe_done || rwc_use;
  assign map_cnt = rwc_use ? ((rwc_cnt > 8'd4) ? 3'd5 : rwc_cnt[2:0]) :
                             ((f_cnt > 8'd4) ? 3'd5 : f_cnt[2:0]);
  assign map_walk = (st_sel == StMap) && !is_write && !is_read_req && !is_atomic &&
                    !wqe_err && (sge_cnt <= 3'd4);
  assign map_rewalk = map_walk && ud_pass1_q && map_all && map_fits && !map_ovf && !map_prot;
  assign map_seg_set = (st_sel == StMap) && is_write && !rk_bad && !rk_long;
  rnic_sge_map u_sge_map (
    .clk_i, .rst_ni,
    .wqe_i(wqe), .first_i(sge_first_q),
    .moff_i(moff_q), .plen_i(plen_q), .adj_i(adj_q),
    .start_i(map_start), .cnt_i(map_cnt), .rewalk_i(map_rewalk), .step_i(map_walk),
    .seg_set_i(map_seg_set), .seg_len_i(d_q.pay_len),
    .key_o(sge_key), .va_o(sge_chk_va), .len_o(sge_chk_len),
    .chk_ok_i(chk_ok), .chk_bus_i(chk_bus),
    .cnt_o(sge_cnt), .all_o(map_all), .last_o(map_last), .hit_o(map_hit),
    .fits_o(map_fits), .ovf_o(map_ovf), .prot_o(map_prot),
    .nseg_o(nseg), .seg_addr_o(seg_addr), .seg_len_o(seg_len), .seg_poff_o(seg_poff)
  );

  // The WQE being read (StFetchReq, StFetchData) or taken from the cache
  // (rwc_use, with its error flag).
  rnic_rx_wqe_fetch #(
    .DataW(DataW),
    .WqeBits(WqeBits),
    .LoadBits(rnic_pkg::RwqeBits)
  ) u_wqe_fetch (
    .clk_i,
    .rst_ni,
    .addr_i(wqe_addr_q),
    .len_i(wqe_len_q),
    .req_i(st_q == StFetchReq),
    .collect_i(st_q == StFetchData),
    .sent_o(wqe_sent),
    .done_o(wqe_done),
    .load_i(rwc_use),
    .load_data_i(rwc_lk_data_i),
    .load_err_i(rwc_lk_err_i),
    .first_i(sge_first_q),
    .cnt_o(f_cnt),
    .wqe_o(wqe),
    .err_o(wqe_err),
    .rd_req_valid_o,
    .rd_req_ready_i,
    .rd_req_addr_o,
    .rd_req_len_o,
    .rd_rsp_valid_i,
    .rd_rsp_ready_o,
    .rd_rsp_data_i,
    .rd_rsp_last_i,
    .rd_rsp_err_i
  );

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      st_q <= StIdle;
      ret_st_q <= StIdle;
      slot_q <= '0;
      poff_q <= '0;
      d_q <= '0;
      qpn_q <= '0;
      flushing_q <= 1'b0;
      fl_cnt_q <= '0;
      ack_psn_q <= '0;
      ack_mode_q <= 1'b0;
      nak_status_q <= '0;
      need_scqe_q <= 1'b0;
      scqe_dat_q <= 1'b0;
      need_rcqe_q <= 1'b0;
      need_done_q <= 1'b0;
      scqe_q <= '0;
      rcqe_q <= '0;
      job_v_q <= 1'b0;
      job_q <= '0;
      njob_q <= '0;
      wqe_addr_q <= '0;
      wqe_len_q <= '0;
      sge_first_q <= '0;
      moff_q <= '0;
      plen_q <= '0;
      err_syn_q <= '0;
      err_status_q <= '0;
      err_cqe_q <= 1'b0;
      release_o <= 1'b0;
      release_slot_o <= '0;
      placed_q <= 1'b0;
      from_pkt_q <= 1'b0;
      dup_q <= 1'b0;
      progress_q <= 1'b0;
      restart_q <= '0;
      rw_hold_q <= 1'b0;
      rw_resume_q <= 1'b0;
      fail_status_q <= '0;
      fail_vend_q <= '0;
      at_addr_q <= '0;
      tmr_v_q <= 1'b0;
      tmr_op_q <= '0;
      tmr_qpn_q <= '0;
      infl_tmr_q <= 1'b0;
      infl_new_q <= 1'b0;
      tmr_cycles_q <= '0;
      tmr_rnr_q <= 1'b0;
      rd_done_o <= 1'b0;
      rd_done_qpn_o <= '0;
      noack_mode_q <= 1'b0;
      noack_idx_q <= '0;
      ud_pass1_q <= 1'b0;
      adj_q <= '0;
      aev_push_q <= 1'b0;
      aev_in_q <= '0;
      place_start_o <= 1'b0;
      qp_err_q <= 1'b0;
      qp_err_sqe_o <= 1'b0;
      qp_err_qpn_o <= '0;
      rwc_hint_q <= 1'b0;
      rwc_hint_ev_q <= 1'b0;
      rwc_hint2_q <= 1'b0;
      rwc_inv_q <= 1'b0;
      rwc_sq_q <= 1'b0;
      sq_hint_q <= 1'b0;
      sq_hint_idx_q <= '0;
      wa_q <= '0;
      swa_q <= '0;
      owe_set_q <= 1'b0;
      owe_clr_q <= 1'b0;
      epsn_wv_q <= 1'b0;
      epsn_wd_q <= '0;
      msn_wv_q <= 1'b0;
      msn_wd_q <= '0;
      rq_ci_wv_q <= 1'b0;
      rq_ci_wd_q <= '0;
      rmsg_off_wv_q <= 1'b0;
      rmsg_off_wd_q <= '0;
      wr_va_wv_q <= 1'b0;
      wr_va_wd_q <= '0;
      wr_left_wv_q <= 1'b0;
      wr_left_wd_q <= '0;
      seq_wv_q <= 1'b0;
      seq_wd_q <= '0;
      rwqe_wv_q <= 1'b0;
      rwqe_wd_q <= '0;
      rwqe_v_wv_q <= 1'b0;
      rwqe_v_wd_q <= '0;
      nak_sent_wv_q <= 1'b0;
      nak_sent_wd_q <= '0;
      una_wv_q <= 1'b0;
      una_wd_q <= '0;
      rc_used_wv_q <= 1'b0;
      rc_used_wd_q <= '0;
      rnr_used_wv_q <= 1'b0;
      rnr_used_wd_q <= '0;
      rw_v_wv_q <= 1'b0;
      rw_v_wd_q <= '0;
      srq_ci_wv_q <= 1'b0;
      srq_ci_wd_q <= '0;
      srq_armed_wv_q <= 1'b0;
      srq_armed_wd_q <= '0;
    end else begin
      // The write buffers reach their tables (before the context writes,
      // which win); the buffers then take this cycle's writes.
      wa_q <= q;
      swa_q <= sn;
      if (epsn_wv_q) epsn_q[wa_q] <= epsn_wd_q;
      if (msn_wv_q) msn_q[wa_q] <= msn_wd_q;
      if (rq_ci_wv_q) rq_ci_q[wa_q] <= rq_ci_wd_q;
      if (rmsg_off_wv_q) rmsg_off_q[wa_q] <= rmsg_off_wd_q;
      if (wr_va_wv_q) wr_va_q[wa_q] <= wr_va_wd_q;
      if (wr_left_wv_q) wr_left_q[wa_q] <= wr_left_wd_q;
      if (seq_wv_q) seq_q[wa_q] <= seq_wd_q;
      if (rwqe_wv_q) rwqe_q[wa_q] <= rwqe_wd_q;
      if (rwqe_v_wv_q) rwqe_v_q[wa_q] <= rwqe_v_wd_q;
      if (nak_sent_wv_q) nak_sent_q[wa_q] <= nak_sent_wd_q;
      if (una_wv_q) una_q[wa_q] <= una_wd_q;
      if (rc_used_wv_q) rc_used_q[wa_q] <= rc_used_wd_q;
      if (rnr_used_wv_q) rnr_used_q[wa_q] <= rnr_used_wd_q;
      if (rw_v_wv_q) rw_v_q[wa_q] <= rw_v_wd_q;
      if (srq_ci_wv_q) srq_ci_q[swa_q] <= srq_ci_wd_q;
      if (srq_armed_wv_q) srq_armed_q[swa_q] <= srq_armed_wd_q;
      epsn_wv_q <= 1'b0;
      msn_wv_q <= 1'b0;
      rq_ci_wv_q <= 1'b0;
      rmsg_off_wv_q <= 1'b0;
      wr_va_wv_q <= 1'b0;
      wr_left_wv_q <= 1'b0;
      seq_wv_q <= 1'b0;
      rwqe_wv_q <= 1'b0;
      rwqe_v_wv_q <= 1'b0;
      nak_sent_wv_q <= 1'b0;
      una_wv_q <= 1'b0;
      rc_used_wv_q <= 1'b0;
      rnr_used_wv_q <= 1'b0;
      rw_v_wv_q <= 1'b0;
      srq_ci_wv_q <= 1'b0;
      srq_armed_wv_q <= 1'b0;
      release_o <= 1'b0;
      rwc_hint_q <= (rwc_hint2_q && pf_more) || sq_hint_q;
      if (rq_hf_adv) rq_hf_q[q] <= pf_idx + 16'd1;
      rwc_hint_ev_q <= 1'b0;
      rwc_hint2_q <= 1'b0;
      sq_hint_q <= 1'b0;
      rwc_inv_q <= 1'b0;
      owe_set_q <= 1'b0;
      owe_clr_q <= 1'b0;
      place_start_o <= 1'b0;
      tmr_qpn_q <= qpn_q;
      qp_err_q <= 1'b0;
      qp_err_sqe_o <= 1'b0;
      tmr_v_q <= 1'b0;
      rd_done_o <= 1'b0;
      aev_push_q <= 1'b0;
      if (scqe_valid_o && scqe_ready_i) need_scqe_q <= 1'b0;
      if (rcqe_valid_o && rcqe_ready_i) need_rcqe_q <= 1'b0;
      if (st_q != StRqFlush) fl_cnt_q <= '0;
      if (done_valid_o && done_ready_i) need_done_q <= 1'b0;
      if (job_valid_o && job_ready_i) job_v_q <= 1'b0;
      if (ret_out) begin
        // (u_ring: the head's slot is free, the done index moves on)
        need_done_q <= 1'b1;
        // Its requester credit returns with a READ/atomic.
        rd_done_o <= head.is_read && (head.kind == rnic_pkg::InflNormal);
        rd_done_qpn_o <= qpn_q;
      end
      // A progress report of a QP whose queues a context write resets is
      // stale: rnic_sq_fetch starts the QP's indices at 0 (a report it takes
      // in the reset's own cycle loses there).
      if (ring_clr && (qp_wr_idx_i == qpn_q)) need_done_q <= 1'b0;

      // StPkt's opening for a response the QP takes, also in an rt_now
      // cycle (which runs the StRetire arm).
      if (resp_take) begin
        flushing_q <= 1'b0;
        ack_mode_q <= 1'b1;
      end
      if (rh_now) begin
        // StPkt's work for it (the arm is StRdRespHead's)
        ack_psn_q <= d_q.psn - 24'd1;
        ret_st_q <= StRdRespHead;
      end
      if (rt_now) begin
        ack_psn_q <= d_q.psn;
        ret_st_q <= StAckPost;
        st_q <= StRetire;
      end
      // StReq's opening, also in an mp_now cycle (which runs the StMap arm;
      // the arms override what it sets).
      if ((st_sel == StReq) || mp_now) begin
        err_syn_q <= '0;
        err_cqe_q <= 1'b0;
        err_status_q <= '0;
        njob_q <= mk_job(rnic_pkg::JobAck, qpn_q, d_q.psn, rnic_pkg::AethAck, msn_cur, '0, '0, '0, 1'b0);
      end
      if (mp_now) begin
        // What StReq's in-order path sets before it chooses StMap
        {nak_sent_wv_q, nak_sent_wd_q} <= {1'b1, 1'b0};
      end
      if (ap_now) begin
        place_start_o <= 1'b1;
        placed_q <= 1'b1;
        st_q <= StAfterPlace;
      end
      if (aw_now || mw_now) begin
        // The frame is not placed from: release it here.
        release_o <= 1'b1;
        release_slot_o <= slot_q;
        placed_q <= 1'b1;
        st_q <= StAfterPlace;
      end
      // An event ends (the StIdle/StDrop arm runs, or ap_db): its flags go
      // back before the arm sets the next event's.
      if ((st_sel == StIdle) || (st_sel == StDrop) || ap_db) begin
        from_pkt_q <= 1'b0;
        dup_q <= 1'b0;
        progress_q <= 1'b0;
        rw_resume_q <= 1'b0;
        noack_mode_q <= 1'b0;
        ud_pass1_q <= 1'b0;
      end
      unique case (st_sel)
        // ---------------------------------------------------------------------
        StIdle, StDrop: begin
          if ((st_q == StDrop) || ret_drop) begin
            release_o <= !placed_q;  // a placed frame's slot is released by placement
            release_slot_o <= slot_q;
          end
          if (st_q == StRqFlush) begin
            // rqf_end: the doorbell's QP takes receives (INIT to SQE): read
            // its frontier WQE ahead (rq_db_hint).
            rwc_hint_q <= rq_db_hint;
            placed_q <= 1'b1;
          end
          if (!infl_err) infl_new_q <= 1'b0;
          if (infl_tmr_q && !infl_err) begin
            infl_tmr_q <= 1'b0;
            tmr_v_q <= 1'b1;
            tmr_op_q <= rnic_pkg::TmrStart;
            tmr_cycles_q <= rnic_pkg::ack_timeout_cycles(ctx.timeout);
          end
          st_q <= StIdle;
          if (done_wait) begin
            // wait: done_ci_o still describes qpn_q
          end else if (infl_err) begin
            // qpn_q is the record's QP: flush its ring (the RQ was flushed
            // when it moved to ERR). StRetire flushes in ERR without
            // flushing_q, which would stay set after this walk and make the
            // next RQ doorbell's StRqFlush flush that QP's receives.
            infl_new_q <= 1'b0;
            infl_tmr_q <= 1'b0;
            ack_mode_q <= 1'b0;
            ret_st_q <= StIdle;
            st_q <= StRetire;
          end else if (pend_err) begin
            qpn_q <= 24'(errp_qpn);   // (errp_pop)
            flushing_q <= 1'b1;
            ack_mode_q <= 1'b0;
            // the ring, then the RQ (a completer-only instance's StRqFlush
            // finds no RQ and ends the walk; a responder-only one has no
            // ring to walk)
            ret_st_q <= StRqFlush;
            st_q <= Completer ? StRetire : StRqFlush;
          end else if (rq_db_valid_i) begin
            // Doorbells first: they are posted MMIO writes, and one not
            // taken stalls every later MMIO access of the node. Taken
            // below the case (db_take).
          end else if (at_err_valid_i && (at_err_qpn_i >= 24'(NQp))) begin
            // not ours to act on
          end else if (at_err_valid_i) begin
            // The atomic unit's read was refused (its NAK is sent): the
            // QP goes to ERR, as after any responder error.
            qpn_q <= at_err_qpn_i;
            aev_push_q <= 1'b1;
            aev_in_q <= {rnic_pkg::EvQpAccessErr, at_err_qpn_i};
            qp_err_q <= 1'b1;
            qp_err_qpn_o <= at_err_qpn_i;
            flushing_q <= 1'b1;
            ack_mode_q <= 1'b0;
            ret_st_q <= StRqFlush;
            st_q <= StRetire;
          end else if (inf_v && (inf_rec.qpn >= 24'(NQp))) begin
            // not ours to keep
          end else if (inf_v) begin
            qpn_q <= inf_rec.qpn;
            // The slot holds this WQE now; a READ's or atomic's is read ahead.
            rwc_inv_q <= 1'b1;
            sq_hint_q <= (inf_rec.kind == rnic_pkg::InflNormal) && inf_rec.is_read;
            sq_hint_idx_q <= inf_rec.wqe_idx;
            // (u_ring takes the record: ring_push)
            flushing_q <= 1'b0;
            ack_mode_q <= 1'b0;
            ret_st_q <= StIdle;
            // Error and flush records complete as soon as they are the head;
            // RC requests start the ACK timer; UC/UD ones wait for their
            // frames to leave.
            infl_tmr_q <= (inf_rec.kind == rnic_pkg::InflNormal);
            infl_new_q <= (inf_rec.kind == rnic_pkg::InflNormal) ||
                          (inf_rec.kind == rnic_pkg::InflNoAck);
            st_q <= (inf_rec.kind == rnic_pkg::InflNormal) ? StIdle :
                    (inf_rec.kind == rnic_pkg::InflNoAck) ? StIdle : StRetire;
          end else if (tmr_exp_v) begin
            qpn_q <= tmr_exp_qpn;
            tmr_rnr_q <= tmr_exp_rnr;
            st_q <= StTmr;
          end else if (na_v) begin
            qpn_q <= na_d[39:16];
            noack_idx_q <= na_d[15:0];
            noack_mode_q <= !na_d[40];
            ack_mode_q <= 1'b0;
            flushing_q <= 1'b0;
            ret_st_q <= StIdle;
            st_q <= (na_d[39:16] >= 24'(NQp)) ? StIdle : na_d[40] ? StTxFault : StRetire;
          end else if (flp_valid) begin
            qpn_q <= 24'(flp_qpn);   // the next batch of a yielded flush
            st_q <= StRqFlush;
          end else if (owe_take) begin
            qpn_q <= 24'(owe_qpn);   // a delayed ACK
            st_q <= StAckOwed;
          end else if (pkt_valid_i && !pkt_hold) begin
            {slot_q, poff_q, d_q} <= pkt_i;
            placed_q <= 1'b0;
            from_pkt_q <= 1'b1;
            qpn_q <= pkt_i[rnic_pkg::RxDescW-1 -: 24];
            st_q <= StPkt;
          end
        end
        // ---------------------------------------------------------------------
        StPkt: begin
          if (qpn_q >= 24'(NQp)) begin
            st_q <= StDrop;
          end else if (rnic_pkg::op_is_response(op)) begin
            // A response for the completer: what it acknowledges, then the
            // retire loop.
            if (resp_state_ok && !noack) begin
              // (flushing_q, ack_mode_q: resp_take above; a plain ACK
              // starts its retire loop here: rt_now.)
              if (op == rnic_pkg::OpAck) begin
                // A NAK: everything before the NAKed PSN was received.
                ack_psn_q <= d_q.psn - 24'd1;
                nak_status_q <= nak_status(d_q.aeth_syn);
                ret_st_q <= (d_q.aeth_syn[7:5] == 3'b001) ? StRnr :
                            (d_q.aeth_syn == rnic_pkg::AethNakPsnSeq) ? StSeqNak : StNakHead;
              end else begin
                // READ response or atomic ACK: implicitly acknowledges what came
                // before it.
                ack_psn_q <= d_q.psn - 24'd1;
                ret_st_q <= StRdRespHead;
              end
              st_q <= StRetire;
              // A READ/atomic at the head has nothing before it to retire:
              // the retire loop would end at once (no ret_take).
              if ((op != rnic_pkg::OpAck) && head_resp && (ctx.state != rnic_pkg::QpsSqe)) begin
                st_q <= StRdRespHead;
              end
            end else begin
              st_q <= StDrop;
            end
          end else begin
            st_q <= StDrop;  // a request the QP does not take (else rq_now)
          end
        end
        // ---------------------------------------------------------------------
        // Completer
        // ---------------------------------------------------------------------
        // A frame of WQE noack_idx_q was not sent (its payload read failed):
        // the WQE fails with IBV_WC_GENERAL_ERR when it is the head. A
        // record already gone (or reused by a later WQE) is left alone.
        StTxFault: begin
          // (u_ring: ring_fix)
          st_q <= StRetire;
        end
        StRetire: begin
          // Complete the head record if it may complete now.
          // scqe_q is one register: a completion still waiting to be written
          // (for placement to drain) holds the next one back; a head that
          // does not complete now ends the loop without waiting for it.
          if (scqe_free || !ret_take) begin
            st_q <= ret_st;
            if (ret_take) begin
              // In SQE every WQE after the failed one is flushed, also one
              // whose frames had already left.
              if (flushing || (ctx.state == rnic_pkg::QpsErr) ||
                  (ctx.state == rnic_pkg::QpsSqe) || (head.kind == rnic_pkg::InflFlush)) begin
                scqe_q <= '0;
                scqe_q.status <= rnic_pkg::WcWrFlushErr;
                scqe_q.opcode <= head.wc_op;
                need_scqe_q <= 1'b1;
                st_q <= StRetireOut;
              end else if ((head.kind == rnic_pkg::InflLocalErr) &&
                           (head.status == rnic_pkg::WcSuccess)) begin
                // A local operation (LOCAL_INV, BIND_MW) that succeeded.
                scqe_q <= '0;
                scqe_q.status <= rnic_pkg::WcSuccess;
                scqe_q.opcode <= head.wc_op;
                need_scqe_q <= head.signaled;
                st_q <= StRetireOut;
              end else if (head.kind == rnic_pkg::InflLocalErr) begin
                scqe_q <= '0;
                scqe_q.status <= head.status;
                scqe_q.vendor_err <= {rnic_pkg::VendUnitReq, head.status[4:0]};
                scqe_q.opcode <= head.wc_op;
                need_scqe_q <= 1'b1;
                qp_err_q <= 1'b1;
                qp_err_qpn_o <= qpn_q;
                // A UC/UD send error takes the QP to SQE: the rest of the
                // SQ is flushed (the records here now, flush records for the
                // WQEs not fetched yet), the RQ goes on. RC: ERR.
                qp_err_sqe_o <= qp_uc || qp_ud;
                flushing_q <= 1'b1;
                ret_st_q <= (qp_uc || qp_ud) ? StIdle : StRqFlush;
                st_q <= StRetireOut;
              end else begin  // ret_ack_ok (ret_pair: the next record's completion)
                scqe_q <= '0;
                scqe_q.status <= rnic_pkg::WcSuccess;
                scqe_q.opcode <= ret_pair ? nxt.wc_op : head.wc_op;
                scqe_q.byte_len <= ret_pair ? nxt.len : head.len;
                need_scqe_q <= ret_pair ? nxt.signaled : head.signaled;
                {una_wv_q, una_wd_q} <= {1'b1, (ret_pair ? nxt.last_psn : head.last_psn) + 24'd1};
                progress_q <= 1'b1;
                st_q <= StRetireOut;
              end
            end
            if (scqe_free) begin
              scqe_q.cqn <= ctx.scqn;
              scqe_q.qpn <= qpn_q;
              scqe_q.wqe_idx <= ret_pair ? nxt.wqe_idx : head.wqe_idx;
              scqe_dat_q <= head.is_read;
              scqe_q.src_qp <= ctx.dest_qpn;
            end
            if (ret_out) st_q <= StRetire;  // retired in this cycle (ret_out)
            if (ret_end) st_q <= from_pkt_q ? StDrop : StIdle;  // and tmr_upd
          end
        end
        // The completion may still be on its way to the CQE writer: the
        // next StRetire waits for it. The record leaves here (ret_out) when
        // the previous progress report was still pending in StRetire.
        StRetireOut: begin
          if (done_free) st_q <= StRetire;
        end
        // After the ACK retired what it covers: an ACK beyond a READ/atomic
        // at the head means its response was lost (implied NAK, imp_nak;
        // without one the loop ends in StRetire, ret_end).
        StAckPost: begin
          restart_q <= imp_restart;
          st_q <= StRetry;
        end
        // PSN sequence NAK: go back to the NAKed PSN, unless that rewind is
        // already under way (NAKs of packets sent before it) or stale.
        StSeqNak: begin
          if (!head_v || (head.kind != rnic_pkg::InflNormal)) begin
            st_q <= StTmrUpd;
          end else if (head.is_read && rnic_pkg::psn_ge(ack_psn_q, head.first_psn)) begin
            restart_q <= imp_restart;
            st_q <= imp_dup ? StTmrUpd : StRetry;
          end else if (!psn_in_head || (rw_v_cur && (rw_psn_rd == d_q.psn))) begin
            st_q <= StTmrUpd;
          end else begin
            // Everything before the NAKed PSN arrived: inside a long message
            // that is progress too (the retry count starts again).
            if (rnic_pkg::psn_ge(d_q.psn, una_cur) && (d_q.psn != una_cur)) begin
              {una_wv_q, una_wd_q} <= {1'b1, d_q.psn};
              progress_q <= 1'b1;
            end
            restart_q <= d_q.psn;
            st_q <= StRetry;
          end
        end
        // RNR NAK: park the QP for the NAK's timer, then send again from the
        // NAKed PSN; after rnr_retry tries the WQE fails.
        StRnr: begin
          if (!head_v || (head.kind != rnic_pkg::InflNormal) || !psn_in_head) begin
            st_q <= StTmrUpd;
          end else if (!rnr_left) begin
            fail_status_q <= rnic_pkg::WcRnrRetryExcErr;
            fail_vend_q <= rnic_pkg::VendRnrExc;
            st_q <= StFail;
          end else begin
            if (ctx.rnr_retry != 3'd7) {rnr_used_wv_q, rnr_used_wd_q} <= {1'b1, rnr_used_cur + 3'd1};
            restart_q <= d_q.psn;
            rw_hold_q <= 1'b1;
            tmr_rnr_q <= 1'b1;
            st_q <= StRewind;
          end
        end
        // Timer expiry: an RNR wait ended (let the QP go on) or an ACK
        // timeout (go back to the first unacknowledged PSN).
        StTmr: begin
          if (!head_v || (head.kind != rnic_pkg::InflNormal) ||
              (ctx.state == rnic_pkg::QpsErr)) begin
            st_q <= StIdle;
          end else if (tmr_rnr_q) begin
            rw_resume_q <= 1'b1;
            rw_hold_q <= 1'b0;
            tmr_rnr_q <= 1'b0;
            st_q <= StRewind;
          end else begin
            restart_q <= rnic_pkg::psn_ge(una_cur, head.first_psn) ? una_cur : head.first_psn;
            st_q <= StRetry;
          end
        end
        // A NAK that also acknowledged something is progress: the count
        // starts again.
        StRetry: begin
          if (!retry_left && !progress_q) begin
            fail_status_q <= rnic_pkg::WcRetryExcErr;
            fail_vend_q <= rnic_pkg::VendRetryExc;
            st_q <= StFail;
          end else begin
            {rc_used_wv_q, rc_used_wd_q} <= {1'b1, progress_q ? 3'd1 : rc_used_cur + 3'd1};
            rw_hold_q <= 1'b0;
            tmr_rnr_q <= 1'b0;
            st_q <= StRewind;
          end
        end
        StRewind: begin
          if (rewind_ready_i) begin
            if (!rw_resume_q) begin
              {rw_v_wv_q, rw_v_wd_q} <= {1'b1, 1'b1};
              rw_psn_q[q] <= restart_q;
            end
            tmr_v_q <= 1'b1;
            tmr_op_q <= tmr_rnr_q ? rnic_pkg::TmrRnr : rnic_pkg::TmrRestart;
            tmr_cycles_q <= tmr_rnr_q ? rnic_pkg::rnr_cycles(d_q.aeth_syn[4:0]) :
                                        rnic_pkg::ack_timeout_cycles(ctx.timeout);
            st_q <= from_pkt_q ? StDrop : StIdle;
          end
        end
        // Progress resets the retry counts and restarts the ACK timer
        // (tmr_upd).
        StTmrUpd: st_q <= from_pkt_q ? StDrop : StIdle;
        // The head WQE fails (remote error NAK, retries exhausted): its
        // completion, QP to ERR, flush of the rest of the SQ and the RQ.
        StNakHead: begin
          if (head_v && (head.kind == rnic_pkg::InflNormal) && psn_in_head) begin
            fail_status_q <= nak_status_q;
            fail_vend_q <= {rnic_pkg::VendUnitNak, d_q.aeth_syn[4:0]};
            st_q <= StFail;
          end else begin
            st_q <= StDrop;  // a NAK for nothing outstanding
          end
        end
        StFail: begin
          if (!need_scqe_q) begin
          scqe_q <= '0;
          scqe_q.cqn <= ctx.scqn;
          scqe_q.qpn <= qpn_q;
          scqe_q.wqe_idx <= head.wqe_idx;
          scqe_dat_q <= head.is_read;
          scqe_q.status <= fail_status_q;
          scqe_q.vendor_err <= fail_vend_q;
          scqe_q.opcode <= head.wc_op;
          scqe_q.src_qp <= ctx.dest_qpn;
          need_scqe_q <= 1'b1;
          qp_err_q <= 1'b1;
          qp_err_qpn_o <= qpn_q;
          flushing_q <= 1'b1;
          tmr_v_q <= 1'b1;
          tmr_op_q <= rnic_pkg::TmrStop;
          release_o <= from_pkt_q && !placed_q;
          release_slot_o <= slot_q;
          placed_q <= 1'b1;
          ret_st_q <= StRqFlush;
          st_q <= StRetireOut;
          end
        end
        // READ response or atomic ACK for the head WQE: in order, its data
        // go to the WQE's SGEs; a gap is an implied NAK; earlier ones are
        // duplicates.
        StRdRespHead: begin
          if (head_resp && psn_in_head &&
              ((op == rnic_pkg::OpAtomicAck) == head_atomic)) begin
            if (d_q.psn != una_cur) begin
              if (rnic_pkg::psn_ge(d_q.psn, una_cur)) begin
                restart_q <= imp_restart;
                st_q <= imp_dup ? StTmrUpd : StRetry;
              end else begin
                st_q <= StTmrUpd;
              end
            end else begin
              wqe_addr_q <= ctx.sq_base +
                  ({48'd0, head.wqe_idx & ((16'd1 << ctx.sq_log_size) - 16'd1)} << ctx.sq_wqe_shift);
              wqe_len_q <= 16'd1 << ctx.sq_wqe_shift;
              if (head_atomic) begin
                // The original value (AtomicAckETH) goes to the one 8-byte SGE.
                sge_first_q <= 3'd3;
                moff_q <= '0;
                adj_q <= '0;
                plen_q <= 13'd8;
              end else begin
                sge_first_q <= 3'd2;
                moff_q <= {8'd0, d_q.psn - head.first_psn} << mtu_lg;
                adj_q <= 16'({8'd0, d_q.psn - head.first_psn} << mtu_lg);
                plen_q <= d_q.pay_len;
              end
              rwc_sq_q <= 1'b1;
              st_q <= sq_hit ? StMap : rwc_lk_pend_i ? StRwcWait : StFetchReq;
            end
          end else if (head_v && (head.kind == rnic_pkg::InflNormal) && psn_in_head &&
                       (d_q.psn == una_cur)) begin
            // The response the head WQE waits for next, of the wrong kind
            // (a READ response or atomic ACK for a WRITE/SEND, or the other
            // of the two): a bad response, the WQE fails.
            fail_status_q <= rnic_pkg::WcBadRespErr;
            fail_vend_q <= rnic_pkg::VendBadResp;
            st_q <= StFail;
          end else begin
            st_q <= StTmrUpd;
          end
        end
        // ---------------------------------------------------------------------
        // Responder
        // ---------------------------------------------------------------------
        StReq: begin
          begin
            // (error registers, default ACK job: StReq's opening above)
            if (qp_ud) begin
              // UD: no PSN order; a wrong Q_Key or no receive WQE drops it.
              if ((d_q.qkey != ctx.qkey) || !rx_avail) begin
                st_q <= StDrop;
              end else begin
                if (use_srq && !rwqe_v_cur) begin
                  {rwqe_wv_q, rwqe_wd_q} <= {1'b1, srq_ci_cur};
                  {rwqe_v_wv_q, rwqe_v_wd_q} <= {1'b1, 1'b1};
                  {srq_ci_wv_q, srq_ci_wd_q} <= {1'b1, srq_ci_cur + 16'd1};
                  if (srq_armed_cur && (srq_left < srq.limit)) begin
                    {srq_armed_wv_q, srq_armed_wd_q} <= {1'b1, 1'b0};
                    aev_push_q <= 1'b1;
                    aev_in_q <= {rnic_pkg::EvSrqLimit, 8'd0, ctx.srqn};
                  end
                end
                wqe_addr_q <= rx_wqe_addr;
                wqe_len_q <= rx_wqe_len;
                sge_first_q <= 3'd1;
                // First the IPv4 header into bytes 20..39 of the GRH area
                // (frame bytes 14..33), then the payload from byte 40.
                ud_pass1_q <= 1'b1;
                moff_q <= 32'd20;
                plen_q <= 13'd20;
                adj_q <= 16'd6 + {8'd0, poff_q};
                rwc_hint_q <= pf_more;
                rwc_hint_ev_q <= 1'b1;
                rwc_hint2_q <= 1'b1;
                st_q <= rwc_lk_hit_i ? StMap : rwc_lk_pend_i ? StRwcWait : StFetchReq;
              end
            end else if (d_q.psn != epsn) begin
              if (qp_uc) begin
                // UC: a new message starts over at its PSN; anything else
                // out of order drops the rest of the message.
                {seq_wv_q, seq_wd_q} <= {1'b1, SeqIdle};
                {rmsg_off_wv_q, rmsg_off_wd_q} <= {1'b1, 32'd0};
                if (is_first) {epsn_wv_q, epsn_wd_q} <= {1'b1, d_q.psn};
                st_q <= is_first ? StReq : StDrop;
              end else if (rnic_pkg::psn_ge(epsn - 24'd1, d_q.psn)) begin
                // Duplicate: READs run again, atomics are answered from the
                // cache, the rest is acknowledged again without placing it.
                if (is_read_req) begin
                  dup_q <= 1'b1;
                  st_q <= StMap;  // a duplicate takes no new resource
                end else if (is_atomic) begin
                  st_q <= StAtDup;
                end else begin
                  njob_q <= mk_job(rnic_pkg::JobAck, qpn_q, epsn - 24'd1, rnic_pkg::AethAck, msn_cur,
                                  '0, '0, '0, 1'b0);
                  ret_st_q <= StDrop;
                  st_q <= StJob;
                end
              end else if (!nak_sent_cur) begin
                // Ahead of the expected PSN: one NAK per gap.
                {nak_sent_wv_q, nak_sent_wd_q} <= {1'b1, 1'b1};
                njob_q <= mk_job(rnic_pkg::JobAck, qpn_q, epsn, rnic_pkg::AethNakPsnSeq, msn_cur,
                                '0, '0, '0, 1'b0);
                ret_st_q <= StDrop;
                st_q <= StJob;
              end else begin
                st_q <= StDrop;
              end
            end else if (!seq_ok) begin
              {nak_sent_wv_q, nak_sent_wd_q} <= {1'b1, 1'b0};
              if (qp_uc) begin
                // UC: a MIDDLE/LAST without its FIRST is dropped.
                {epsn_wv_q, epsn_wd_q} <= {1'b1, epsn + 24'd1};
                {seq_wv_q, seq_wd_q} <= {1'b1, SeqIdle};
                {rmsg_off_wv_q, rmsg_off_wd_q} <= {1'b1, 32'd0};
                st_q <= StDrop;
              end else begin
                err_syn_q <= rnic_pkg::AethNakInvReq;
                st_q <= StErrCqe;
              end
            end else if (is_send || (is_write && is_last && has_imm)) begin
              {nak_sent_wv_q, nak_sent_wd_q} <= {1'b1, 1'b0};
              if (!rx_avail) begin
                if (qp_uc) begin
                  // UC has no RNR: the message is lost.
                  {epsn_wv_q, epsn_wd_q} <= {1'b1, epsn + 24'd1};
                  {seq_wv_q, seq_wd_q} <= {1'b1, SeqIdle};
                  {rmsg_off_wv_q, rmsg_off_wd_q} <= {1'b1, 32'd0};
                  st_q <= StDrop;
                end else begin
                  // Receiver not ready: RNR NAK with our minimum RNR timer.
                  njob_q <= mk_job(rnic_pkg::JobAck, qpn_q, d_q.psn, {3'b001, ctx.min_rnr_timer},
                                  msn_cur, '0, '0, '0, 1'b0);
                  ret_st_q <= StDrop;
                  st_q <= StJob;
                end
              end else if (is_send) begin
                if (use_srq && !rwqe_v_cur) begin
                  {rwqe_wv_q, rwqe_wd_q} <= {1'b1, srq_ci_cur};
                  {rwqe_v_wv_q, rwqe_v_wd_q} <= {1'b1, 1'b1};
                  {srq_ci_wv_q, srq_ci_wd_q} <= {1'b1, srq_ci_cur + 16'd1};
                  if (srq_armed_cur && (srq_left < srq.limit)) begin
                    {srq_armed_wv_q, srq_armed_wd_q} <= {1'b1, 1'b0};
                    aev_push_q <= 1'b1;
                    aev_in_q <= {rnic_pkg::EvSrqLimit, 8'd0, ctx.srqn};
                  end
                end
                wqe_addr_q <= rx_wqe_addr;
                wqe_len_q <= rx_wqe_len;
                sge_first_q <= 3'd1;
                moff_q <= rmsg_off_cur;
                adj_q <= rmsg_off_cur[15:0];
                plen_q <= d_q.pay_len;
                rwc_hint_q <= pf_more;
                rwc_hint_ev_q <= 1'b1;
                rwc_hint2_q <= 1'b1;
                st_q <= rwc_lk_hit_i ? StMap : rwc_lk_pend_i ? StRwcWait : StFetchReq;
              end else begin
                if (use_srq && !rwqe_v_cur) begin
                  {rwqe_wv_q, rwqe_wd_q} <= {1'b1, srq_ci_cur};
                  {rwqe_v_wv_q, rwqe_v_wd_q} <= {1'b1, 1'b1};
                  {srq_ci_wv_q, srq_ci_wd_q} <= {1'b1, srq_ci_cur + 16'd1};
                  if (srq_armed_cur && (srq_left < srq.limit)) begin
                    {srq_armed_wv_q, srq_armed_wd_q} <= {1'b1, 1'b0};
                    aev_push_q <= 1'b1;
                    aev_in_q <= {rnic_pkg::EvSrqLimit, 8'd0, ctx.srqn};
                  end
                end
                st_q <= StMap;  // WRITE with immediate: the RQ WQE only gets the CQE
              end
            end else if ((is_read_req || is_atomic) &&
                         (rsp_out_rd >= ctx.max_dest_rd_atomic)) begin
              // More READs/atomics outstanding than the responder has room for.
              {nak_sent_wv_q, nak_sent_wd_q} <= {1'b1, 1'b0};
              err_syn_q <= rnic_pkg::AethNakInvReq;
              st_q <= StErrCqe;
            end else begin
              {nak_sent_wv_q, nak_sent_wd_q} <= {1'b1, 1'b0};
              st_q <= StMap;  // WRITE, READ request or atomic
            end
          end
        end
        // The cache is reading this receive's WQE: wait for it (its read
        // is older than one issued now), or read it if the entry went.
        StRwcWait: begin
          if (rwc_sq_q ? sq_hit : rwc_lk_hit_i) st_q <= StMap;
          else if (!rwc_lk_pend_i || rwc_lk_hit_i) st_q <= StFetchReq;
          // A packet whose QP is reset while it waits for its WQE goes, as
          // one for a QP in RESET does: its WQE is of the old queue (read
          // from host memory it failed, and its error moved the QP to ERR).
          if (ctx.state == rnic_pkg::QpsReset) st_q <= StDrop;
        end
        StFetchReq: begin
          if (wqe_sent) st_q <= StFetchData;
        end
        StFetchData: begin
          if (wqe_done) st_q <= (ctx.state == rnic_pkg::QpsReset) ? StDrop : StMap;   // (map_start)
        end
        StMap: begin
          if (is_write || is_read_req || is_atomic) begin
            // rkey path: one segment, the READ job, or the atomic.
            // An operation the QP's access flags do not enable is an
            // invalid request; a key, range or MR-right failure is a
            // remote access error.
            if (rk_bad) begin
              err_syn_q <= !ctx.access[is_read_req ? 2 : is_atomic ? 3 : 1] ?
                           rnic_pkg::AethNakInvReq : rnic_pkg::AethNakRemAcc;
              // A WRITE_ONLY with immediate already holds its receive: a
              // bad rkey completes it as a local access error. (A FIRST
              // cannot know yet; its receive is flushed with the QP.)
              err_status_q <= rnic_pkg::WcLocAccessErr;
              err_cqe_q <= is_last && has_imm && ctx.access[1];
              st_q <= (dup_q || qp_uc) ? StDrop : StErrCqe;
              if (qp_uc) begin
                // UC: the message is dropped; the next FIRST starts again.
                {epsn_wv_q, epsn_wd_q} <= {1'b1, epsn + 24'd1};
                {seq_wv_q, seq_wd_q} <= {1'b1, SeqIdle};
                {rmsg_off_wv_q, rmsg_off_wd_q} <= {1'b1, 32'd0};
              end
            end else if (is_atomic && (d_q.reth_va[2:0] != 3'd0)) begin
              err_syn_q <= rnic_pkg::AethNakInvReq;   // atomics need 8-byte alignment
              st_q <= StErrCqe;
            end else if (is_atomic) begin
              at_addr_q <= chk_bus;
              st_q <= StAtOp;
            end else if (is_read_req) begin
              njob_q <= mk_job(rnic_pkg::JobRead, qpn_q, d_q.psn, rnic_pkg::AethAck,
                              dup_q ? msn_cur : msn_cur + 24'd1, chk_bus, d_q.reth_len, '0, dup_q);
              if (!dup_q) begin
                {msn_wv_q, msn_wd_q} <= {1'b1, msn_cur + 24'd1};
                {epsn_wv_q, epsn_wd_q} <= {1'b1, epsn + rd_npkts[23:0]};
              end
              ret_st_q <= StDrop;
              st_q <= StJob;
            end else if (rk_long) begin
              err_syn_q <= rnic_pkg::AethNakInvReq;
              st_q <= qp_uc ? StDrop : StErrCqe;
              if (qp_uc) begin
                // UC: the message is dropped; the next FIRST starts again.
                {epsn_wv_q, epsn_wd_q} <= {1'b1, epsn + 24'd1};
                {seq_wv_q, seq_wd_q} <= {1'b1, SeqIdle};
                {rmsg_off_wv_q, rmsg_off_wd_q} <= {1'b1, 32'd0};
              end
            end else begin
              // (the one segment: map_seg_set)
              if (is_first) begin
                wr_rkey_q[q] <= d_q.reth_rkey;
                {wr_va_wv_q, wr_va_wd_q} <= {1'b1, d_q.reth_va + {51'd0, d_q.pay_len}};
                {wr_left_wv_q, wr_left_wd_q} <= {1'b1, d_q.reth_len - {19'd0, d_q.pay_len}};
                wr_len_q[q] <= d_q.reth_len;
              end else begin
                {wr_va_wv_q, wr_va_wd_q} <= {1'b1, wr_va_cur + {51'd0, d_q.pay_len}};
                {wr_left_wv_q, wr_left_wd_q} <= {1'b1, wr_left_cur - {19'd0, d_q.pay_len}};
              end
              st_q <= StPlace;
            end
          end else if (wqe_err || (sge_cnt > 3'd4)) begin
            err_syn_q <= rnic_pkg::AethNakRemOp;
            err_status_q <= rnic_pkg::WcLocQpOpErr;
            err_cqe_q <= is_send;
            st_q <= is_send ? StErrCqe : StDrop;
          end else begin
            // The mapper takes this SGE (map_walk): its key is checked
            // when the message touches it; at most MaxSeg segments per
            // packet (more is a length error).
            // All SGEs seen, or the last one taken now: does the message
            // fit? (A UD GRH pass ends in a cycle of its own: it maps again.)
            if (map_all || (map_last && !ud_pass1_q)) begin
              if (!map_fits || map_ovf) begin
                err_syn_q <= rnic_pkg::AethNakInvReq;
                err_status_q <= rnic_pkg::WcLocLenErr;
                err_cqe_q <= is_send;
                st_q <= is_send ? StErrCqe : StDrop;
              end else if (map_prot) begin
                err_syn_q <= rnic_pkg::AethNakRemOp;
                err_status_q <= rnic_pkg::WcLocProtErr;
                err_cqe_q <= is_send;
                st_q <= is_send ? StErrCqe : StDrop;
              end else if (ud_pass1_q) begin
                // GRH area mapped: now the payload, from message byte 40.
                // (map_rewalk)
                ud_pass1_q <= 1'b0;
                moff_q <= 32'd40;
                adj_q <= 16'd40;
                plen_q <= d_q.pay_len;
              end else begin
                st_q <= (op == rnic_pkg::OpAtomicAck) ? StAckWr : StPlace;
              end
            end
          end
        end
        // Atomic: to the unit once every earlier payload is in memory
        // (at_valid_o); a duplicate without waiting.
        StAtOp: begin
          if (place_idle && at_ready_i) begin
            {msn_wv_q, msn_wd_q} <= {1'b1, msn_cur + 24'd1};
            {epsn_wv_q, epsn_wd_q} <= {1'b1, epsn + 24'd1};
            // Its response acknowledges everything before it: a debt is
            // paid (until stop 55 its delayed ACK still followed).
            owe_clr_q <= 1'b1;
            st_q <= StDrop;
          end
        end
        StAtDup: begin
          if (at_ready_i) st_q <= StDrop;
        end
        // Here only while the write waits: the cycle it is taken runs the
        // StAfterPlace arm (aw_now).
        StAckWr: begin
        end
        // Placement runs behind the engine: the engine hands the job over
        // and goes on with the next packet while the payload is written;
        // placement releases the frame slot. What makes data observable
        // waits for placement to drain (see place_idle).
        // Here only while placement is busy: the cycle it is idle starts
        // the job and runs the StAfterPlace arm (ap_now).
        StPlace: begin
        end
        StAfterPlace: begin
          if (rnic_pkg::op_is_response(op) ? !scqe_free : !rcqe_free) begin
            // the role's previous completion is not written yet (one CQE
            // register each)
          end else if (rnic_pkg::op_is_response(op)) begin
            // READ response data or the atomic's original value placed.
            {una_wv_q, una_wd_q} <= {1'b1, d_q.psn + 24'd1};
            progress_q <= 1'b1;
            if (d_q.psn == head.last_psn) begin
              rwc_inv_q <= 1'b1;
              scqe_q <= '0;
              scqe_q.cqn <= ctx.scqn;
              scqe_q.qpn <= qpn_q;
              scqe_q.wqe_idx <= head.wqe_idx;
              scqe_dat_q <= head.is_read;
              scqe_q.status <= rnic_pkg::WcSuccess;
              scqe_q.opcode <= head.wc_op;
              scqe_q.byte_len <= head.len;
              scqe_q.src_qp <= ctx.dest_qpn;
              need_scqe_q <= head.signaled;
              ack_mode_q <= 1'b0;
              ret_st_q <= StTmrUpd;
              st_q <= ret_out ? StRetire : StRetireOut;
            end else begin
              st_q <= StTmrUpd;
            end
          end else begin
            if (!qp_ud) {epsn_wv_q, epsn_wd_q} <= {1'b1, epsn + 24'd1};
            njob_q <= mk_job(rnic_pkg::JobAck, qpn_q, d_q.psn, rnic_pkg::AethAck,
                            msn_cur + (is_last ? 24'd1 : 24'd0), '0, '0, '0, 1'b0);
            if (is_last) begin
              {msn_wv_q, msn_wd_q} <= {1'b1, msn_cur + 24'd1};
              {seq_wv_q, seq_wd_q} <= {1'b1, SeqIdle};
              {rmsg_off_wv_q, rmsg_off_wd_q} <= {1'b1, 32'd0};
            end else begin
              {seq_wv_q, seq_wd_q} <= {1'b1, is_send ? SeqSend : SeqWrite};
              if (is_send) {rmsg_off_wv_q, rmsg_off_wd_q} <= {1'b1, rmsg_off_cur + {19'd0, d_q.pay_len}};
            end
            // SEND_WITH_INV: the completion waits for the invalidation (StInv).
            if (is_last && (is_send || has_imm)) begin
              rcqe_q <= '0;
              rcqe_q.cqn <= ctx.rcqn;
              rcqe_q.qpn <= qpn_q;
              rcqe_q.wqe_idx <= rx_widx;
              rcqe_q.status <= rnic_pkg::WcSuccess;
              rcqe_q.opcode <= (is_send || qp_ud) ? rnic_pkg::WcOpRecv : rnic_pkg::WcOpRecvImm;
              rcqe_q.byte_len <= qp_ud ? (32'd40 + {19'd0, d_q.pay_len}) :
                                 is_send ? (rmsg_off_cur + {19'd0, d_q.pay_len}) : wr_len_rd;
              rcqe_q.imm <= d_q.imm;
              rcqe_q.flags <= {4'd0, d_q.se, 1'b0, qp_ud, has_imm};
              rcqe_q.src_qp <= qp_ud ? d_q.src_qp : ctx.dest_qpn;
              if (!rnic_pkg::op_has_ieth(op)) begin
                need_rcqe_q <= 1'b1;
                if (use_srq) {rwqe_v_wv_q, rwqe_v_wd_q} <= {1'b1, 1'b0};
                else {rq_ci_wv_q, rq_ci_wd_q} <= {1'b1, rq_ci_cur + 16'd1};
                rwc_inv_q <= 1'b1;
              end
            end
            ret_st_q <= StDrop;
            st_q <= rnic_pkg::op_has_ieth(op) ? StInv :
                    (d_q.ack_req && !noack) ? StJob : StDrop;
            // A message that did not ask for its ACK owes one.
            owe_set_q <= !rnic_pkg::op_has_ieth(op) && !d_q.ack_req && !noack && is_last;
            // The job register is free: the ACK goes to it now, not via StJob.
            if (!rnic_pkg::op_has_ieth(op) && d_q.ack_req && !noack && !job_v_q) begin
              job_q <= mk_job(rnic_pkg::JobAck, qpn_q, d_q.psn, rnic_pkg::AethAck,
                              msn_cur + (is_last ? 24'd1 : 24'd0), '0, '0, '0, 1'b0);
              job_v_q <= 1'b1;
              owe_clr_q <= 1'b1;
              st_q <= StDrop;
            end
          end
        end
        // SEND_WITH_INV, last packet placed: invalidate the window, then
        // the receive completion says so (or the message fails).
        StInv: begin
          if (inv_ok) begin
            st_q <= StInvWr;
          end else begin
            err_syn_q <= rnic_pkg::AethNakInvReq;
            err_status_q <= rnic_pkg::WcLocProtErr;
            err_cqe_q <= 1'b1;
            st_q <= StErrCqe;
          end
        end
        StInvWr: begin
          if (mr_upd_ready_i && !need_rcqe_q) begin
            rcqe_q.imm <= inv_key;
            rcqe_q.flags <= {4'd0, d_q.se, 3'b100};
            need_rcqe_q <= 1'b1;
            if (use_srq) {rwqe_v_wv_q, rwqe_v_wd_q} <= {1'b1, 1'b0};
            else {rq_ci_wv_q, rq_ci_wd_q} <= {1'b1, rq_ci_cur + 16'd1};
            rwc_inv_q <= 1'b1;
            owe_set_q <= !d_q.ack_req && !noack;
            st_q <= (d_q.ack_req && !noack) ? StJob : StDrop;
          end
        end
        // Hand the new job over. ACK coalescing: while an ACK of the same
        // QP still waits to be taken (the transmit side is busy), a newer
        // ACK replaces it - one frame acknowledges both.
        // The job does not wait for a receive CQE still queued behind its
        // placement: the CQE leaves on its own (every later CQE waits for it).
        StJob: begin
          if (at_busy_i) begin
            // the atomic unit's answers for this QP go first
          end else if (!job_v_q) begin
            job_q <= njob_q;
            job_v_q <= 1'b1;
            // A duplicate READ's responses carry its own, older PSNs: they
            // acknowledge nothing received since, so a debt stays (until
            // stop 54 they paid it, and the requester waited for its ACK
            // timeout).
            owe_clr_q <= !((njob_q.kind == rnic_pkg::JobRead) && njob_q.dup);
            st_q <= ret_st_q;
          end else if (ack_merge) begin
            job_q <= njob_q;
            owe_clr_q <= 1'b1;
            st_q <= ret_st_q;
          end
        end
        // A delayed ACK (u_owe): everything received so far, unless the QP
        // went to ERR meanwhile (UC/UD QPs owe none; a context write clears
        // the QP's debt).
        StAckOwed: begin
          if (req_state_ok) begin
            njob_q <= mk_job(rnic_pkg::JobAck, qpn_q, epsn - 24'd1, rnic_pkg::AethAck, msn_cur,
                            '0, '0, '0, 1'b0);
            ret_st_q <= StIdle;
            st_q <= StJob;
          end else begin
            owe_clr_q <= 1'b1;
            st_q <= StIdle;
          end
        end
        // Responder error: receive completion (if a receive is consumed), NAK,
        // QP to ERR, flush.
        StErrCqe: begin
          if (!need_rcqe_q && !job_v_q && !at_busy_i) begin
            if (err_cqe_q) begin
              rcqe_q <= '0;
              rcqe_q.cqn <= ctx.rcqn;
              rcqe_q.qpn <= qpn_q;
              rcqe_q.wqe_idx <= rx_widx;
              rcqe_q.status <= err_status_q;
              rcqe_q.vendor_err <= {rnic_pkg::VendUnitResp, err_status_q[4:0]};
              rcqe_q.opcode <= rnic_pkg::WcOpRecv;
              rcqe_q.src_qp <= qp_ud ? d_q.src_qp : ctx.dest_qpn;
              need_rcqe_q <= 1'b1;
              if (use_srq) {rwqe_v_wv_q, rwqe_v_wd_q} <= {1'b1, 1'b0};
              else {rq_ci_wv_q, rq_ci_wd_q} <= {1'b1, rq_ci_cur + 16'd1};
              rwc_inv_q <= 1'b1;
            end
            // RC tells the requester; the QP's owner learns it from an
            // asynchronous event when no receive completion reports it.
            job_q <= mk_job(rnic_pkg::JobAck, qpn_q, d_q.psn, err_syn_q, msn_cur, '0, '0, '0, 1'b0);
            job_v_q <= !noack;
            owe_clr_q <= 1'b1;
            if (!err_cqe_q) begin
              aev_push_q <= 1'b1;
              aev_in_q <= {(err_syn_q == rnic_pkg::AethNakInvReq) ? rnic_pkg::EvQpReqErr :
                           (err_syn_q == rnic_pkg::AethNakRemAcc) ? rnic_pkg::EvQpAccessErr :
                           rnic_pkg::EvQpFatal, qpn_q};
            end
            qp_err_q <= 1'b1;
            qp_err_qpn_o <= qpn_q;
            release_o <= !placed_q;
            release_slot_o <= slot_q;
            placed_q <= 1'b1;
            flushing_q <= 1'b1;
            ack_mode_q <= 1'b0;
            ret_st_q <= StRqFlush;
            st_q <= StRetire;
          end
        end
        // Flush the receive queue of a QP in ERR.
        // An SRQ is shared: only the WQE a message of this QP took is
        // flushed, and the owner hears "last WQE reached".
        // Only a flush waits for the CQE register: a doorbell of a QP that
        // takes receives goes on while the last SEND's CQE waits for its
        // placement.
        StRqFlush: begin
          if (!need_rcqe_q || !((ctx.state == rnic_pkg::QpsErr) || flushing_q)) begin
            if (fl_yield) begin
              // Yield: the rest comes back through flp (already there, or
              // pushed now; there is room for every QP). What ends a
              // flush otherwise happens now.
              release_o <= from_pkt_q && !placed_q;
              release_slot_o <= slot_q;
              placed_q <= 1'b1;
              flushing_q <= 1'b0;
              st_q <= StIdle;
            end else if (((ctx.state == rnic_pkg::QpsErr) || flushing_q) && (qpn_q < 24'(NQp)) &&
                (use_srq ? rwqe_v_cur : (rq_ci_cur != rq_pi_rd))) begin
              fl_cnt_q <= fl_cnt_q + 4'd1;
              rcqe_q <= '0;
              rcqe_q.cqn <= ctx.rcqn;
              rcqe_q.qpn <= qpn_q;
              rcqe_q.wqe_idx <= rx_widx;
              rcqe_q.status <= rnic_pkg::WcWrFlushErr;
              rcqe_q.opcode <= rnic_pkg::WcOpRecv;
              need_rcqe_q <= 1'b1;
              if (use_srq) {rwqe_v_wv_q, rwqe_v_wd_q} <= {1'b1, 1'b0};
              else {rq_ci_wv_q, rq_ci_wd_q} <= {1'b1, rq_ci_cur + 16'd1};
              rwc_inv_q <= 1'b1;
            end else begin
              // (A doorbell of a QP that is not in ERR never gets here: it
              // ends in rqf_end, which reads its WQEs ahead.)
              if (Responder && flushing_q && use_srq && (qpn_q < 24'(NQp))) begin
                aev_push_q <= 1'b1;
                aev_in_q <= {rnic_pkg::EvQpLastWqe, qpn_q};
              end
              // A packet whose retiring ended in this flush (an ACK that
              // reached a failed WQE) still holds its frame slot.
              release_o <= from_pkt_q && !placed_q;
              release_slot_o <= slot_q;
              placed_q <= 1'b1;
              flushing_q <= 1'b0;
              st_q <= StIdle;
            end
          end
        end
        default: st_q <= StIdle;
      endcase
      // An RQ or SRQ doorbell taken, by StIdle or with the after-place work
      // (ap_db: the event ends here as in StIdle, which would take this
      // doorbell first in the next cycle). An RQ's goes on to StRqFlush,
      // which flushes only when the QP is in ERR.
      if (db_take) begin
        if (ap_db) st_q <= StIdle;
        if (rq_db_data_i[63]) begin
          if (rq_db_data_i[23:0] < 24'(NQp)) srq_pi_q[rq_db_data_i[QpW-1:0]] <= rq_db_data_i[47:32];
        end else begin
          qpn_q <= rq_db_data_i[23:0];
          if (rdb_ok) rq_pi_q[rq_db_data_i[QpW-1:0]] <= rq_db_data_i[47:32];
          st_q <= StRqFlush;
        end
      end

      // A hint decided in the cycle its QP's queues are reset would reach
      // the cache a cycle after the cache dropped the QP's entries (one in
      // the same cycle is dropped there): its read would outlive the reset
      // command, whose end lets ibv_destroy_qp unmap the ring, and its entry
      // would serve the QP's next WQE of that index.
      if (hint_rst) rwc_hint_q <= 1'b0;

      // (A WQE from the cache, rwc_use, skips the read: the mapping starts,
      // map_start, as at the end of StFetchData.)
      if (st_sel == StReq) rwc_sq_q <= 1'b0;

      // The ACK timer after progress, in StTmrUpd or at the end of a plain
      // ACK's or READ response's retire loop (ret_end): the retry counts
      // start again.
      if (tmr_upd && progress_q) begin
        {rc_used_wv_q, rc_used_wd_q} <= {1'b1, 3'd0};
        {rnr_used_wv_q, rnr_used_wd_q} <= {1'b1, 3'd0};
        {rw_v_wv_q, rw_v_wd_q} <= {1'b1, 1'b0};
        tmr_v_q <= 1'b1;
        tmr_op_q <= head_v ? rnic_pkg::TmrRestart : rnic_pkg::TmrStop;
        tmr_cycles_q <= rnic_pkg::ack_timeout_cycles(ctx.timeout);
      end

      // Responder resources: taken when a READ/atomic job is queued, back
      // when its responses have left. A QP reset clears the count, and
      // rnic_rd_resp drops the reset QP's queued jobs without a return (a
      // return that finds 0 is dropped all the same).
      if (Responder && rsp_done_i && (rsp_done_qpn_i < 24'(NQp))) begin
        if (!(rsp_inc && (rsp_done_qpn_i == qpn_q))) begin
          rsp_out_q[rsp_done_qpn_i[QpW-1:0]] <= rsp_out_q[rsp_done_qpn_i[QpW-1:0]] -
              {3'd0, (rsp_out_q[rsp_done_qpn_i[QpW-1:0]] != 4'd0)};
          if (rsp_inc) rsp_out_q[q] <= rsp_out_rd + 4'd1;
        end
      end else if (rsp_inc) begin
        rsp_out_q[q] <= rsp_out_rd + 4'd1;
      end

      // SRQ context writes: bit 9 resets the indices (creation), a limit
      // arms the limit event.
      if (srq_wr_i && (qp_wr_idx_i < 24'(NQp))) begin
        srq_armed_q[qp_wr_idx_i[QpW-1:0]] <= (srq_wr_limit_i[47:32] != 16'd0);
        if (srq_wr_limit_i[9]) begin
          srq_pi_q[qp_wr_idx_i[QpW-1:0]] <= '0;
          srq_ci_q[qp_wr_idx_i[QpW-1:0]] <= '0;
        end
        // A context write of the entry this cycle's buffered write is for
        // wins over it, as it does over a direct write.
        if (qp_wr_idx_i[QpW-1:0] == sn) begin
          srq_armed_wv_q <= 1'b0;
          if (srq_wr_limit_i[9]) srq_ci_wv_q <= 1'b0;
        end
      end

      // Context writes reset the per-QP transport state.
      if (qp_wr_i && (qp_wr_idx_i < 24'(NQp))) begin
        if (qp_wr_flags_i[rnic_pkg::QpFlagResetRq]) begin
          rwqe_v_q[qp_wr_idx_i[QpW-1:0]] <= 1'b0;
          rq_pi_q[qp_wr_idx_i[QpW-1:0]] <= '0;
          rq_ci_q[qp_wr_idx_i[QpW-1:0]] <= '0;
          rq_hf_q[qp_wr_idx_i[QpW-1:0]] <= '0;
          rmsg_off_q[qp_wr_idx_i[QpW-1:0]] <= '0;
          seq_q[qp_wr_idx_i[QpW-1:0]] <= SeqIdle;
          msn_q[qp_wr_idx_i[QpW-1:0]] <= '0;
          nak_sent_q[qp_wr_idx_i[QpW-1:0]] <= 1'b0;
          rsp_out_q[qp_wr_idx_i[QpW-1:0]] <= '0;
        end
        if (qp_wr_flags_i[rnic_pkg::QpFlagSetRqPsn]) epsn_q[qp_wr_idx_i[QpW-1:0]] <= qp_wr_rq_psn_i;
        if (qp_wr_flags_i[rnic_pkg::QpFlagSetSqPsn]) una_q[qp_wr_idx_i[QpW-1:0]] <= qp_wr_sq_psn_i;
        if (qp_wr_flags_i[rnic_pkg::QpFlagResetSq]) begin
          // (u_ring empties the QP's ring: ring_clr)
          rc_used_q[qp_wr_idx_i[QpW-1:0]] <= '0;
          rnr_used_q[qp_wr_idx_i[QpW-1:0]] <= '0;
          rw_v_q[qp_wr_idx_i[QpW-1:0]] <= 1'b0;
        end
        // A context write of the entry this cycle's buffered write is for
        // wins over it, as it does over a direct write.
        if (qp_wr_idx_i[QpW-1:0] == q) begin
          if (qp_wr_flags_i[rnic_pkg::QpFlagResetRq]) begin
            rwqe_v_wv_q <= 1'b0;
            rq_ci_wv_q <= 1'b0;
            rmsg_off_wv_q <= 1'b0;
            seq_wv_q <= 1'b0;
            msn_wv_q <= 1'b0;
            nak_sent_wv_q <= 1'b0;
          end
          if (qp_wr_flags_i[rnic_pkg::QpFlagSetRqPsn]) epsn_wv_q <= 1'b0;
          if (qp_wr_flags_i[rnic_pkg::QpFlagSetSqPsn]) una_wv_q <= 1'b0;
          if (qp_wr_flags_i[rnic_pkg::QpFlagResetSq]) begin
            rc_used_wv_q <= 1'b0;
            rnr_used_wv_q <= 1'b0;
            rw_v_wv_q <= 1'b0;
          end
        end
      end
    end
  end
  logic unused;
  assign unused = ^{query_idx_i[23:QpW], rq_db_data_i[62:48], rq_db_data_i[31:24], rd_npkts[31:24], na_cnt,
                    aev_in_ready, aev_cnt, srq_wr_limit_i[31:10], srq_wr_limit_i[8:0],
                    ring_rd_idx_i[15:RingW]};

`ifdef RNIC_ASSERT
  /* verilator coverage_off */
  // Simulation checks (the model's builds): a WQE completes once and in
  // order (the record retired is in the ring and is the QP's next); the
  // responder's READ/atomic count stays within its 4 bits (a job is queued
  // only under the QP's max_dest_rd_atomic, at most 15). (The QP queues
  // check their own room: rnic_uniq_fifo.)
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
    end else begin
      if (ret_out) assert (head_v && (head.wqe_idx == head_idx));
      if (rsp_inc) assert (rsp_out_rd != 4'hf);
    end
  end
  /* verilator coverage_on */
`endif

`ifdef RNIC_COVER
  // Coverage builds: each state and each change of state is a cover point.
  rnic_fsm_cover #(
    .StW($bits(state_e)),
    .NStates(int'(StAckOwed) + 1)
  ) u_st_q_cover (
    .clk_i,
    .rst_ni,
    .st_i(st_q)
  );
`endif
endmodule
