// rnic_completer: the completer of the RC/UC/UD transport (responses to our
// requests), one event at a time beside rnic_responder.
//
// The per-QP ring of in-flight send WQEs (rnic_infl_ring; records from the
// requester in WQE order) is retired by ACKs, by READ responses and atomic
// ACKs (whose data are placed into the WQE's SGEs: rnic_rx_wqe_fetch,
// rnic_sge_map, rnic_mr_check) and by NAKs. Sequence NAKs, implied NAKs (an
// ACK or response that skips a READ/atomic response) and ACK timeouts
// (rnic_retry_timer) rewind the send queue (go-back-N) up to retry_cnt
// times; RNR NAKs park the QP for the NAK's RNR time up to rnr_retry times
// (7: no limit); the other NAKs, and exhausted retries, complete the WQE
// with the error, move the QP to ERR and flush the rest. UC/UD send WQEs
// complete when rnic_tx_builder reports their last frame gone. Send CQEs,
// progress reports to the SQ scheduler, the ring's flush in ERR (also of a
// QP the responder moved there). docs/transport.md.
// Until stop 56 this was one role of rnic_rx_engine, which held both.
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
  // quiet check
  output logic        quiet_o,
  output logic        idle_o,
  output logic [31:0] due_o,
  input  logic        skip_i,
  input  logic [31:0] skip_cycles_i
);
  localparam int unsigned QpW = $clog2(NQp);
  localparam int unsigned RingW = $clog2(InflDepth);
  localparam int unsigned WqeBits = rnic_pkg::WqeBits;

  // ---------------------------------------------------------------------------
  // Per-QP state
  // ---------------------------------------------------------------------------
  // RAMs, none of them reset (a QP context write clears a QP's entries).
  // (* nomem2reg *) keeps Yosys from expanding them into registers, its rule
  // for arrays written in a process with an asynchronous reset: with it they
  // are memories with two write ports (the state machine's, the context
  // writes'), as they would be at 1024 QPs. The ring of in-flight records
  // and the timer's deadlines are u_ring's and u_timer's.
  (* nomem2reg *) logic [23:0] una_q [NQp];      // first PSN not yet acknowledged
  (* nomem2reg *) logic [2:0] rc_used_q [NQp];   // retries since the last progress
  (* nomem2reg *) logic [2:0] rnr_used_q [NQp];
  (* nomem2reg *) logic rw_v_q [NQp];            // a rewind to rw_psn_q is under way
  (* nomem2reg *) logic [23:0] rw_psn_q [NQp];

  // One state-machine write port per table. Only the entry of the current
  // QP (q) is written, through a one-entry write buffer per table: the
  // value goes to *_wd_q (*_wv_q set) and reaches the RAM in the next cycle,
  // at the address the cycle before had (wa_q). Reads of the current entry
  // (*_cur) see a buffered value first.
  logic [QpW-1:0] wa_q;
  logic una_wv_q;
  logic [23:0] una_wd_q, una_cur;
  logic rc_used_wv_q;
  logic [2:0] rc_used_wd_q, rc_used_cur;
  logic rnr_used_wv_q;
  logic [2:0] rnr_used_wd_q, rnr_used_cur;
  logic rw_v_wv_q;
  logic rw_v_wd_q, rw_v_cur;

  typedef enum logic [4:0] {
    StIdle, StPkt, StRetire, StRetireOut, StNakHead, StRdRespHead,
    StFetchReq, StFetchData, StMap, StPlace, StAfterPlace, StFlushEnd, StDrop,
    StAckPost, StSeqNak, StRnr, StTmr, StRetry, StFail, StRewind,
    StTmrUpd, StAckWr, StTxFault, StRwcWait
  } state_e;
  state_e st_q, ret_st_q;
  state_e st_sel;          // the arm the state machine runs (st_q but for merged cycles)
  state_e st_pre;          // st_sel before a retire loop's end takes the next event
  logic ap_now;            // StPlace doing the StAfterPlace work
  logic aw_now;            // StAckWr whose write is taken doing it too
  logic mw_try, mw_now;    // StMap offering that write itself, taken
  logic rt_now;            // StPkt doing a plain ACK's first StRetire
  logic rh_now;            // StPkt doing a head READ response's StRdRespHead
  logic rh_sel;            // the StRdRespHead arm runs (its state or rh_now)

  // Current event
  logic [rnic_pkg::RxSlotW-1:0] slot_q;
  logic placed_q;          // the payload went to placement, which frees the slot
  logic from_pkt_q;        // the event is a packet (its frame slot is held)
  logic progress_q;        // something retired or response data arrived
  logic [23:0] restart_q;  // rewind: first PSN to send again
  logic rw_hold_q;         // rewind parks the QP (RNR)
  logic rw_resume_q;       // a resume, not a rewind
  logic [7:0] fail_status_q;
  logic [7:0] fail_vend_q;     // its vendor_err (rnic_pkg::Vend*)
  logic noack_mode_q;      // retiring UC/UD records up to noack_idx_q
  logic [15:0] noack_idx_q;
  logic [15:0] adj_q;      // slot offset of message byte m: base + m - adj
  logic [7:0] poff_q;
  /* verilator lint_off UNUSEDSIGNAL */  // packet header view
  rnic_pkg::rx_desc_t d_q;
  /* verilator lint_on UNUSEDSIGNAL */
  logic [23:0] qpn_q;
  logic [QpW-1:0] q;
  assign q = qpn_q[QpW-1:0];
  assign una_cur = (una_wv_q && (wa_q == q)) ? una_wd_q : una_q[q];
  assign rc_used_cur = (rc_used_wv_q && (wa_q == q)) ? rc_used_wd_q : rc_used_q[q];
  assign rnr_used_cur = (rnr_used_wv_q && (wa_q == q)) ? rnr_used_wd_q : rnr_used_q[q];
  assign rw_v_cur = (rw_v_wv_q && (wa_q == q)) ? rw_v_wd_q : rw_v_q[q];
  assign ctx_idx_o = qpn_q;
  /* verilator lint_off UNUSEDSIGNAL */  // a context view: each block reads its own fields
  rnic_pkg::qp_cfg_t ctx;
  /* verilator lint_on UNUSEDSIGNAL */
  assign ctx = ctx_i;

  logic [3:0] mtu_lg;
  assign mtu_lg = rnic_pkg::mtu_log(ctx.pmtu);

  // The packet: its opcode, and the QP's transport (UC/UD responses are
  // dropped: those QPs get none).
  logic [7:0] op;
  assign op = d_q.opcode;
  logic qp_uc, qp_ud;
  assign qp_uc = (ctx.qp_type == rnic_pkg::QptUc);
  assign qp_ud = (ctx.qp_type == rnic_pkg::QptUd);

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
  assign ring_rd_hold = hold_v_q && (hold_q.qpn == ring_rd_qpn_i) &&
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

  // The driver moved QPs to ERR (QP_WRITE with state ERR), or the
  // responder did (err_in): each waits in u_err_pend once until its ring is
  // flushed, first thing when idle. (The mmio holds commands back while a
  // role moves a QP, so the two never meet.)
  logic pend_err, errp_pop;
  logic [QpW-1:0] errp_qpn;
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

  // Retire outputs in flight: the send CQE register (written by the retire
  // loop, StFail and a READ's last response) and the progress report.
  logic need_done_q;
  logic need_scqe_q;
  rnic_pkg::cqe_req_t scqe_q;
  // A READ's or atomic's send completion (scqe_dat_q: placement wrote its
  // data) sees memory only after every payload handed to placement before
  // it has been written. Other send completions have no data in local
  // memory and do not wait: under another QP's READ response stream
  // placement is rarely idle.
  logic place_idle, scqe_dat_q;
  assign place_idle = !place_busy_i && !place_start_o;
  assign scqe_valid_o = need_scqe_q && (place_idle || !scqe_dat_q);
  assign scqe_o = scqe_q;
  // The CQE register takes the next completion in the cycle its CQE is
  // taken (a one-entry pipeline stage): the retire loop does not wait a
  // cycle for it to empty.
  logic scqe_free;
  assign scqe_free = !need_scqe_q || (scqe_valid_o && scqe_ready_i);
  // The move to ERR (or SQE) is written into the QP table in the cycle
  // after it is decided; a reset of the QP written at that decision's edge
  // wins (a QP in RESET is not moved by the hardware). The mmio holds a
  // command back while qp_err_o is high, so no reset meets the write.
  logic qp_err_q;
  assign qp_err_o = qp_err_q && !((qp_err_qpn_o == qpn_q) && (ctx.state == rnic_pkg::QpsReset));
  assign done_valid_o = need_done_q;
  assign done_qpn_o = qpn_q;
  assign done_ci_o = head_idx;

  // The timer update after progress (StTmrUpd, or the end of a retire
  // loop that would go on to it: a READ response's, or an ACK's when no
  // implied NAK sends it to StAckPost and StRetry).
  logic tmr_upd, imp_nak, ret_end;
  assign imp_nak = head_resp && rnic_pkg::psn_ge(ack_psn, head.first_psn) && !imp_dup;
  assign ret_end = (st_pre == StRetire) && !ret_take &&
                   (((ret_st == StAckPost) && !imp_nak) || (ret_st == StTmrUpd));
  assign tmr_upd = (st_q == StTmrUpd) || ret_end;

  // ---------------------------------------------------------------------------
  // The send WQE of a READ response or atomic ACK (u_wqe_fetch below):
  // StRdRespHead names it (wqe_addr_q, wqe_len_q); StFetchReq and
  // StFetchData read it when the WQE cache does not hold it.
  // ---------------------------------------------------------------------------
  logic [63:0] wqe_addr_q;
  logic [15:0] wqe_len_q;
  logic [WqeBits-1:0] wqe;
  logic wqe_err, wqe_sent, wqe_done;

  // ---------------------------------------------------------------------------
  // SGE mapping: response bytes [moff, moff+plen) onto the WQE's SGEs
  // (u_sge_map; each SGE's key checked by u_mr_check for the bytes this
  // packet writes into it). Mapping ends in the cycle that takes the last
  // SGE: the fit checks see the state after it.
  // ---------------------------------------------------------------------------
  logic [2:0] sge_first_q;
  logic [31:0] moff_q;
  logic [12:0] plen_q;
  logic map_start, map_walk;
  logic [2:0] map_cnt, sge_cnt, nseg;
  logic map_all, map_last, map_hit, map_fits, map_ovf, map_prot;
  logic [31:0] sge_key, sge_chk_len;
  logic [63:0] sge_chk_va;
  logic [64*rnic_pkg::MaxSeg-1:0] seg_addr;
  logic [32*rnic_pkg::MaxSeg-1:0] seg_len;
  logic [16*rnic_pkg::MaxSeg-1:0] seg_poff;
  logic chk_ok;
  logic [63:0] chk_bus;
  assign mr_idx_o = sge_key[31:8];
  rnic_mr_check u_mr_check (
    .mr_i(mr_i), .key_i(sge_key), .rkey_i(1'b0), .qpn_i(qpn_q), .pd_i(ctx.pd), .va_i(sge_chk_va),
    .len_i(sge_chk_len), .access_i(4'b0001), .ok_o(chk_ok), .bus_o(chk_bus)
  );

  // ---------------------------------------------------------------------------
  // The WQE cache: a READ/atomic record's send WQE read ahead (its hint),
  // looked up by its responses (sq_key); entries retired as records replace
  // them and when a READ's last response is placed.
  // ---------------------------------------------------------------------------
  logic [rnic_pkg::RwqeKeyW-1:0] sq_key;
  assign sq_key = {rnic_pkg::RwqeSq, qpn_q, head.wqe_idx};
  assign rwc_lk_valid_o = rh_sel || (st_q == StRwcWait);
  assign rwc_lk_key_o = sq_key;
  // A READ/atomic record taken in StIdle: its send WQE is hinted in the
  // next cycle, when the context is the record's QP's. It takes a free
  // entry only: responses come in record order, so the filled entries are
  // needed before it (evicting the oldest would drop the one needed next).
  logic sq_hint_q;
  logic [15:0] sq_hint_idx_q;
  logic rwc_hint_q, rwc_inv_q;
  logic [rnic_pkg::RwqeKeyW-1:0] rwc_hint_key_q, rwc_inv_key_q;
  logic [63:0] rwc_hint_addr_q;
  logic [15:0] rwc_hint_len_q;
  // The hint this cycle decides is of a QP whose queues are reset in it.
  logic hint_rst;
  assign hint_rst = qp_wr_i && (qp_wr_idx_i == qpn_q) && sq_hint_q &&
                    (qp_wr_flags_i[rnic_pkg::QpFlagResetRq] ||
                     qp_wr_flags_i[rnic_pkg::QpFlagResetSq]);
  assign rwc_hint_valid_o = rwc_hint_q;
  assign rwc_hint_evict_o = 1'b0;
  assign rwc_hint_key_o = rwc_hint_key_q;
  assign rwc_hint_addr_o = rwc_hint_addr_q;
  assign rwc_hint_len_o = rwc_hint_len_q;
  assign rwc_inv_o = rwc_inv_q;
  assign rwc_inv_key_o = rwc_inv_key_q;
  // The send WQE from the cache, in StRdRespHead (when it goes on to the
  // scatter list) or when StRwcWait waited for it. Its SGEs follow two
  // segments (READ) or three (atomic); one whose SGEs do not fit into the
  // entry is read.
  logic [2:0] rwc_first;
  logic [7:0] rwc_cnt;
  logic rr_fetch, sq_hit, rwc_use;
  assign rr_fetch = head_resp && psn_in_head &&
                    ((op == rnic_pkg::OpAtomicAck) == head_atomic) && (d_q.psn == una_cur);
  assign rwc_first = rh_sel ? (head_atomic ? 3'd3 : 3'd2) : sge_first_q;
  assign rwc_cnt = rwc_lk_data_i[39:32] - {5'd0, rwc_first};
  assign sq_hit = rwc_lk_hit_i && ((rwc_cnt > 8'd4) ||
                  ({5'd0, rwc_first} + rwc_cnt <= 8'(rnic_pkg::RwqeBytes / 16)));
  assign rwc_use = (rh_sel && rr_fetch && sq_hit) || ((st_q == StRwcWait) && sq_hit);
  logic [63:0] sq_pf_addr;
  assign sq_pf_addr = ctx.sq_base +
      ({48'd0, sq_hint_idx_q & ((16'd1 << ctx.sq_log_size) - 16'd1)} << ctx.sq_wqe_shift);
  logic [15:0] sq_pf_len;
  assign sq_pf_len = ((16'd1 << ctx.sq_wqe_shift) < 16'(rnic_pkg::RwqeBytes)) ?
                     (16'd1 << ctx.sq_wqe_shift) : 16'(rnic_pkg::RwqeBytes);
  logic infl_take;
  assign infl_take = inf_v && idle_infl && (inf_rec.qpn < 24'(NQp));
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      rwc_hint_key_q <= '0;
      rwc_hint_addr_q <= '0;
      rwc_hint_len_q <= '0;
      rwc_inv_key_q <= '0;
    end else begin
      rwc_hint_key_q <= {rnic_pkg::RwqeSq, qpn_q, sq_hint_idx_q};
      rwc_hint_addr_q <= sq_pf_addr;
      rwc_hint_len_q <= sq_pf_len;
      rwc_inv_key_q <= infl_take ? {rnic_pkg::RwqeSq, inf_rec.qpn, inf_rec.wqe_idx} : sq_key;
    end
  end

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
  assign head_atomic = (head.wc_op == rnic_pkg::WcOpCompSwap) ||
                       (head.wc_op == rnic_pkg::WcOpFetchAdd);

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
  // is taken (done_free, as the CQE register): the report is the QP's
  // done index, which the next one carries further, so a retire loop
  // retires a record per cycle.
  // A READ's last response (or an atomic ACK) retires its record in the
  // StAfterPlace work that completes it (rd_last, also from StPlace).
  logic rd_last;
  assign rd_last = (st_sel == StAfterPlace) && scqe_free && (d_q.psn == head.last_psn);
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

  // An implied NAK restarts the head READ/atomic at una; a rewind to that
  // PSN already under way (duplicate ACKs of packets sent before it) is not
  // a new loss and costs no retry.
  logic [23:0] imp_restart;
  logic imp_dup;
  assign imp_restart = rnic_pkg::psn_ge(una_cur, head.first_psn) ? una_cur : head.first_psn;
  assign imp_dup = rw_v_cur && (rw_psn_q[q] == imp_restart);

  // Retry limits of the QP (rnr_retry 7: no limit)
  logic retry_left, rnr_left;
  assign retry_left = (rc_used_cur != ctx.retry_cnt);
  assign rnr_left = (ctx.rnr_retry == 3'd7) || (rnr_used_cur != ctx.rnr_retry);

  // The requester's in-flight records. One that arrives while the
  // completer is busy waits in hold_q, so the requester goes on to send its
  // frames; it is taken before any other event once idle (an ACK for it
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
  assign inf_v = hold_v_q || infl_valid_i;
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

  // ---------------------------------------------------------------------------
  // Transport timer
  // ---------------------------------------------------------------------------
  logic tmr_v_q;
  // The command's QP: the event's when the command was issued (qpn_q may
  // move on in the cycle the timer takes it).
  logic [23:0] tmr_qpn_q;
  // An RC request's in-flight record was taken: its ACK timer starts in
  // the next cycle, beside whatever happens then (the QP's context is
  // still selected: qpn_q changes only at the end of that cycle).
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
  rnic_retry_timer #(.NQp(NQp)) u_timer (
    .clk_i, .rst_ni,
    .cmd_valid_i(tmr_v_q), .cmd_op_i(tmr_op_q), .cmd_qpn_i(tmr_qpn_q),
    .cmd_cycles_i(tmr_cycles_q),
    .exp_valid_o(tmr_exp_v), .exp_ready_i(tmr_exp_ready), .exp_qpn_o(tmr_exp_qpn),
    .exp_rnr_o(tmr_exp_rnr),
    .idle_o(tmr_idle), .due_o, .skip_i, .skip_cycles_i
  );

  // UC/UD send completions and payload read failures from the TX builder
  logic na_v, na_pop;
  logic [40:0] na_d;
  logic [3:0] na_cnt;
  rnic_fifo #(.Width(41), .Depth(8)) u_noack (
    .clk_i, .rst_ni,
    .in_valid_i(noack_valid_i), .in_ready_o(noack_ready_o),
    .in_data_i({noack_err_i, noack_qpn_i, noack_idx_i}),
    .out_valid_o(na_v), .out_ready_i(na_pop), .out_data_o(na_d), .count_o(na_cnt)
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
  // address StMap would put in the first segment; if the write is not
  // taken, StMap goes on to StAckWr, which offers the same write.
  assign mw_try = (st_q == StMap) && (op == rnic_pkg::OpAtomicAck) && !wqe_err &&
                  (sge_cnt <= 3'd4) && map_last && (nseg == 3'd0) &&
                  map_hit && map_fits && !map_ovf && !map_prot;
  assign wr_valid_o = (st_q == StAckWr) || mw_try;
  assign wr_addr_o = mw_try ? chk_bus : seg_addr[63:0];
  assign wr_len_o = 16'd8;
  assign wr_data_o = DataW'(d_q.atomic_swap);
  assign wr_last_o = 1'b1;

  // Inputs: one event at a time, errors of the command path first.
  // The QP of a finished event stays selected until its progress report left.
  // StDrop ends an event (its frame slot is released) and takes the next
  // one in the same cycle, as StIdle does.
  logic ret_drop, done_wait;
  // The StPlace cycle that starts a placement also does the StAfterPlace
  // work (the response's progress, retire and send CQE; the CQE waits for
  // placement through place_idle): the case below runs the StAfterPlace arm
  // (ap_now), which stays in StAfterPlace only when a completion is still
  // pending.
  assign ap_now = (st_q == StPlace) && place_idle;
  // So does the StAckWr cycle whose write (the atomic's original value) is
  // taken: its CQE follows that write on the in-order write path.
  assign aw_now = (st_q == StAckWr) && wr_ready_i;
  // And the StMap cycle whose offered write is taken (mw_now): the StMap
  // arm's own work there is only the mapping registers, which the next
  // mapping sets again.
  assign mw_now = mw_try && wr_ready_i;
  // A plain ACK (a QP in a state that takes responses) starts its retire
  // loop in its StPkt cycle: the StRetire arm runs (rt_now), reading the
  // ACK's PSN and mode through ack_psn, ack_mode, flushing and ret_st.
  logic resp_state_ok, resp_take;
  assign resp_state_ok = (ctx.state == rnic_pkg::QpsRts) || (ctx.state == rnic_pkg::QpsSqd) ||
                         (ctx.state == rnic_pkg::QpsSqe);
  // StPkt: a response the QP takes
  assign resp_take = (st_q == StPkt) && (qpn_q < 24'(NQp)) && rnic_pkg::op_is_response(op) &&
                     resp_state_ok && !qp_uc && !qp_ud;
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
  assign st_pre = (ap_now || aw_now || mw_now) ? StAfterPlace :
                  rt_now ? StRetire : rh_now ? StRdRespHead : st_q;
  logic idle;
  // The end of a packet's retire loop (ret_end in StRetire: nothing more
  // to retire, the timer updated) also ends the event: the case below runs
  // the StIdle arm (ret_drop), which does StDrop's work.
  assign ret_drop = ret_end && (st_q == StRetire) && from_pkt_q;
  assign st_sel = ret_drop ? StIdle : st_pre;
  // A progress report taken in this cycle holds nothing back: qpn_q moves
  // on at its end.
  assign done_wait = need_done_q && !done_ready_i;
  assign idle = ((st_q == StIdle) || (st_q == StDrop) || ret_drop) && !done_wait &&
                !infl_err && !pend_err;
  // The StIdle arm takes the first QP moved to ERR before anything else
  // (after a record taken for a QP in ERR already).
  assign errp_pop = ((st_sel == StIdle) || (st_sel == StDrop)) && !done_wait && !infl_err &&
                    pend_err;
  assign idle_infl = idle;
  assign infl_ready_o = !hold_v_q && (idle_infl || hold_ok);
  assign idle_o = idle_infl && !hold_v_q;
  assign tmr_exp_ready = idle_infl && !inf_v;
  assign na_pop = idle_infl && !inf_v && !tmr_exp_v;
  assign pkt_ready_o = idle_infl && !inf_v && !tmr_exp_v && !na_v;
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
  // no CQE, progress report or timer command waits, and the queues in are
  // empty.
  assign quiet_o = idle && (st_q == StIdle) && !hold_v_q && !infl_tmr_q && !infl_new_q &&
                   tmr_idle && !tmr_v_q && !rwc_hint_q && !rwc_inv_q && !need_scqe_q && !na_v &&
                   !release_o && !place_start_o && !qp_err_q && !rd_done_o;

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
      place_ev_pos_o <= {1'b1, (op == rnic_pkg::OpReadRespLast) || (op == rnic_pkg::OpReadRespOnly),
                         (op == rnic_pkg::OpReadRespFirst) || (op == rnic_pkg::OpReadRespOnly)};
    end
  end

  // The SGE count of a fetched send WQE (u_wqe_fetch): ds - (segments
  // before the data) data segments.
  logic [7:0] f_cnt;

  // The mapper's controls: a WQE read or taken from the cache starts a
  // list; StMap walks it.
  assign map_start = wqe_done || rwc_use;
  assign map_cnt = rwc_use ? ((rwc_cnt > 8'd4) ? 3'd5 : rwc_cnt[2:0]) :
                             ((f_cnt > 8'd4) ? 3'd5 : f_cnt[2:0]);
  assign map_walk = (st_sel == StMap) && !wqe_err && (sge_cnt <= 3'd4);
  rnic_sge_map u_sge_map (
    .clk_i, .rst_ni,
    .wqe_i(wqe), .first_i(sge_first_q),
    .moff_i(moff_q), .plen_i(plen_q), .adj_i(adj_q),
    .start_i(map_start), .cnt_i(map_cnt), .rewalk_i(1'b0), .step_i(map_walk),
    .seg_set_i(1'b0), .seg_len_i(d_q.pay_len),
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
      ack_psn_q <= '0;
      ack_mode_q <= 1'b0;
      nak_status_q <= '0;
      need_scqe_q <= 1'b0;
      scqe_dat_q <= 1'b0;
      need_done_q <= 1'b0;
      scqe_q <= '0;
      wqe_addr_q <= '0;
      wqe_len_q <= '0;
      sge_first_q <= '0;
      moff_q <= '0;
      plen_q <= '0;
      release_o <= 1'b0;
      release_slot_o <= '0;
      placed_q <= 1'b0;
      from_pkt_q <= 1'b0;
      progress_q <= 1'b0;
      restart_q <= '0;
      rw_hold_q <= 1'b0;
      rw_resume_q <= 1'b0;
      fail_status_q <= '0;
      fail_vend_q <= '0;
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
      adj_q <= '0;
      place_start_o <= 1'b0;
      qp_err_q <= 1'b0;
      qp_err_sqe_o <= 1'b0;
      qp_err_qpn_o <= '0;
      rwc_hint_q <= 1'b0;
      rwc_inv_q <= 1'b0;
      sq_hint_q <= 1'b0;
      sq_hint_idx_q <= '0;
      wa_q <= '0;
      una_wv_q <= 1'b0;
      una_wd_q <= '0;
      rc_used_wv_q <= 1'b0;
      rc_used_wd_q <= '0;
      rnr_used_wv_q <= 1'b0;
      rnr_used_wd_q <= '0;
      rw_v_wv_q <= 1'b0;
      rw_v_wd_q <= '0;
    end else begin
      // The write buffers reach their tables (before the context writes,
      // which win); the buffers then take this cycle's writes.
      wa_q <= q;
      if (una_wv_q) una_q[wa_q] <= una_wd_q;
      if (rc_used_wv_q) rc_used_q[wa_q] <= rc_used_wd_q;
      if (rnr_used_wv_q) rnr_used_q[wa_q] <= rnr_used_wd_q;
      if (rw_v_wv_q) rw_v_q[wa_q] <= rw_v_wd_q;
      una_wv_q <= 1'b0;
      rc_used_wv_q <= 1'b0;
      rnr_used_wv_q <= 1'b0;
      rw_v_wv_q <= 1'b0;
      release_o <= 1'b0;
      rwc_hint_q <= sq_hint_q;
      sq_hint_q <= 1'b0;
      rwc_inv_q <= 1'b0;
      place_start_o <= 1'b0;
      tmr_qpn_q <= qpn_q;
      qp_err_q <= 1'b0;
      qp_err_sqe_o <= 1'b0;
      tmr_v_q <= 1'b0;
      rd_done_o <= 1'b0;
      if (scqe_valid_o && scqe_ready_i) need_scqe_q <= 1'b0;
      if (done_valid_o && done_ready_i) need_done_q <= 1'b0;
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
      // An event ends (the StIdle/StDrop arm runs): its flags go back
      // before the arm sets the next event's.
      if ((st_sel == StIdle) || (st_sel == StDrop)) begin
        from_pkt_q <= 1'b0;
        progress_q <= 1'b0;
        rw_resume_q <= 1'b0;
        noack_mode_q <= 1'b0;
      end
      unique case (st_sel)
        // ---------------------------------------------------------------------
        StIdle, StDrop: begin
          if ((st_q == StDrop) || ret_drop) begin
            release_o <= !placed_q;  // a placed frame's slot is released by placement
            release_slot_o <= slot_q;
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
            // qpn_q is the record's QP: flush its ring. StRetire flushes in
            // ERR without flushing_q.
            infl_new_q <= 1'b0;
            infl_tmr_q <= 1'b0;
            ack_mode_q <= 1'b0;
            ret_st_q <= StIdle;
            st_q <= StRetire;
          end else if (pend_err) begin
            qpn_q <= 24'(errp_qpn);   // (errp_pop)
            flushing_q <= 1'b1;
            ack_mode_q <= 1'b0;
            ret_st_q <= StFlushEnd;
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
          end else if (pkt_valid_i) begin
            {slot_q, poff_q, d_q} <= pkt_i;
            placed_q <= 1'b0;
            from_pkt_q <= 1'b1;
            qpn_q <= pkt_i[rnic_pkg::RxDescW-1 -: 24];
            st_q <= StPkt;
          end
        end
        // ---------------------------------------------------------------------
        // A response: what it acknowledges, then the retire loop. (A plain
        // ACK's starts here: rt_now; a request is the responder's.)
        StPkt: begin
          if (qpn_q >= 24'(NQp)) begin
            st_q <= StDrop;
          end else if (rnic_pkg::op_is_response(op) && resp_state_ok && !qp_uc && !qp_ud) begin
            // (flushing_q, ack_mode_q: resp_take above)
            if (op == rnic_pkg::OpAck) begin
              // A NAK: everything before the NAKed PSN was received.
              ack_psn_q <= d_q.psn - 24'd1;
              nak_status_q <= nak_status(d_q.aeth_syn);
              ret_st_q <= (d_q.aeth_syn[7:5] == 3'b001) ? StRnr :
                          (d_q.aeth_syn == rnic_pkg::AethNakPsnSeq) ? StSeqNak : StNakHead;
            end else begin
              // READ response or atomic ACK: implicitly acknowledges what
              // came before it.
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
        end
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
                // WQEs not fetched yet), the RQ goes on. RC: ERR (the
                // responder flushes the RQ: err_in there).
                qp_err_sqe_o <= qp_uc || qp_ud;
                flushing_q <= 1'b1;
                ret_st_q <= (qp_uc || qp_ud) ? StIdle : StFlushEnd;
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
          end else if (!psn_in_head || (rw_v_cur && (rw_psn_q[q] == d_q.psn))) begin
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
        // completion, QP to ERR, flush of the rest of the SQ (and, by the
        // responder, of the RQ).
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
            ret_st_q <= StFlushEnd;
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
        // The cache is reading the send WQE: wait for it (its read is older
        // than one issued now), or read it if the entry went (or its SGEs
        // do not fit into it).
        StRwcWait: begin
          if (sq_hit) st_q <= StMap;
          else if (!rwc_lk_pend_i || rwc_lk_hit_i) st_q <= StFetchReq;
          // A packet whose QP is reset while it waits for its WQE goes, as
          // one for a QP in RESET does.
          if (ctx.state == rnic_pkg::QpsReset) st_q <= StDrop;
        end
        StFetchReq: begin
          if (wqe_sent) st_q <= StFetchData;
        end
        StFetchData: begin
          if (wqe_done) st_q <= (ctx.state == rnic_pkg::QpsReset) ? StDrop : StMap;   // (map_start)
        end
        // The mapper takes this SGE (map_walk): its key is checked when the
        // response touches it; at most MaxSeg segments per packet. A WQE
        // that failed to read, too many SGEs, a response that does not fit
        // or an SGE that refuses it: the response is dropped (the WQE waits
        // for its retry).
        StMap: begin
          if (wqe_err || (sge_cnt > 3'd4)) begin
            st_q <= StDrop;
          end else if (map_all || map_last) begin
            if (!map_fits || map_ovf || map_prot) begin
              st_q <= StDrop;
            end else begin
              st_q <= (op == rnic_pkg::OpAtomicAck) ? StAckWr : StPlace;
            end
          end
        end
        // Here only while the write waits: the cycle it is taken runs the
        // StAfterPlace arm (aw_now).
        StAckWr: begin
        end
        // Placement runs behind: the job is handed over and the next event
        // taken while the payload is written; placement releases the frame
        // slot. The send CQE waits for placement to drain (scqe_dat_q).
        // Here only while placement is busy: the cycle it is idle starts
        // the job and runs the StAfterPlace arm (ap_now).
        StPlace: begin
        end
        // READ response data or the atomic's original value placed.
        StAfterPlace: begin
          if (scqe_free) begin
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
          end
        end
        // The end of a flush walk of the ring (a QP in ERR): a packet whose
        // retiring ended in the flush (an ACK that reached a failed WQE)
        // still holds its frame slot.
        StFlushEnd: begin
          release_o <= from_pkt_q && !placed_q;
          release_slot_o <= slot_q;
          placed_q <= 1'b1;
          flushing_q <= 1'b0;
          st_q <= StIdle;
        end
        default: st_q <= StIdle;
      endcase

      // A hint decided in the cycle its QP's queues are reset would reach
      // the cache a cycle after the cache dropped the QP's entries (one in
      // the same cycle is dropped there): its read would outlive the reset
      // command, whose end lets ibv_destroy_qp unmap the ring, and its entry
      // would serve the QP's next WQE of that index.
      if (hint_rst) rwc_hint_q <= 1'b0;

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

      // Context writes reset the per-QP transport state.
      if (qp_wr_i && (qp_wr_idx_i < 24'(NQp))) begin
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
  assign unused = ^{na_cnt, ring_rd_idx_i[15:RingW], qp_wr_rq_psn_i};

`ifdef RNIC_ASSERT
  /* verilator coverage_off */
  // Simulation check: a WQE completes once and in order (the record
  // retired is in the ring and is the QP's next).
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
    end else begin
      if (ret_out) assert (head_v && (head.wqe_idx == head_idx));
    end
  end
  /* verilator coverage_on */
`endif

`ifdef RNIC_COVER
  // Coverage builds: each state and each change of state is a cover point.
  rnic_fsm_cover #(
    .StW($bits(state_e)),
    .NStates(int'(StRwcWait) + 1)
  ) u_st_q_cover (
    .clk_i,
    .rst_ni,
    .st_i(st_q)
  );
`endif
endmodule
