// rnic_responder: the responder of the RC/UC/UD transport (requests from
// the peer), one event at a time beside rnic_completer.
//
// PSN and opcode-sequence checks; SEND placement into the receive WQE's
// scatter list (rnic_rx_wqe_fetch, usually from rnic_rwqe_cache, which it
// asks to read WQEs ahead; rnic_sge_map; rnic_mr_check on every SGE);
// RDMA WRITE placement after an rkey check on every packet; RDMA READ jobs
// for the response generator; atomics (checked here, executed by
// rnic_atomic_unit, which also answers their duplicates from the results
// it keeps); ACK/NAK jobs, with delayed ACKs for messages that do not ask
// (rnic_ack_delay); receive CQEs. Duplicates are acknowledged again without
// being placed (READs are executed again); a packet ahead of the expected
// PSN gets one PSN-sequence NAK per gap. UC: no ACKs or NAKs; a PSN gap
// drops the rest of the message, the next FIRST/ONLY packet starts again.
// UD: one-packet SENDs checked against the QP's Q_Key; the receive buffer
// gets the 40-byte GRH area (its last 20 bytes hold the IPv4 header)
// before the payload. Receives come from the QP's RQ or from its SRQ (a
// WQE is taken for a message at its first packet); SRQ limit,
// last-WQE-reached and responder errors raise asynchronous events. The
// receive queue's flush in ERR (also of a QP the completer moved there).
// docs/transport.md. Until stop 56 this was one role of rnic_rx_engine,
// which held both.
module rnic_responder #(
  parameter int unsigned DataW = 256,
  parameter int unsigned NQp = 1024,
  // Receive WQEs of a QP read ahead into the WQE cache: up to RqAhead - 1
  // beyond the one a SEND takes (a power of two is not needed)
  parameter int unsigned RqAhead = 8
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
  // Fast-forward and the command path's quiet check
  output logic        quiet_o,
  output logic        idle_o
);
  localparam int unsigned QpW = $clog2(NQp);
  localparam int unsigned WqeBits = rnic_pkg::WqeBits;

  // ---------------------------------------------------------------------------
  // Per-QP state
  // ---------------------------------------------------------------------------
  // RAMs, none of them reset (a QP context write clears a QP's entries).
  // (* nomem2reg *) keeps Yosys from expanding them into registers, its rule
  // for arrays written in a process with an asynchronous reset: with it they
  // are memories, most with two write ports (the state machine's, the
  // context writes'), as they would be at 1024 QPs.
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

  // One state-machine write port per table. Only the entry of the current
  // QP (q; an SRQ table that of the QP's SRQ, sn) is written, through a
  // one-entry write buffer per table: the value goes to *_wd_q (*_wv_q set)
  // and reaches the RAM in the next cycle, at the address the cycle before
  // had (wa_q, swa_q). Reads of the current entry (*_cur) see a buffered
  // value first. Each table then has two write ports (the buffer's and the
  // context writes', which come last and win) instead of one per write in
  // the state machine.
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
  logic srq_ci_wv_q;
  logic [15:0] srq_ci_wd_q, srq_ci_cur;
  logic srq_armed_wv_q;
  logic srq_armed_wd_q, srq_armed_cur;

  localparam logic [1:0] SeqIdle = 2'd0;
  localparam logic [1:0] SeqSend = 2'd1;
  localparam logic [1:0] SeqWrite = 2'd2;

  // StToFlush is the cycle between a responder error (or a refused atomic
  // read) and the receive queue's flush: in rnic_rx_engine, which held both
  // roles until stop 56, the error went through the ring's walk there; it
  // stays so that no cycle count moved with the split.
  typedef enum logic [4:0] {
    StIdle, StPkt, StReq, StFetchReq, StFetchData, StMap, StPlace, StAfterPlace,
    StRqFlush, StJob, StErrCqe, StDrop, StAtOp, StAtDup, StInv, StInvWr,
    StRwcWait, StAckOwed, StToFlush
  } state_e;
  state_e st_q;
  state_e job_st_q;        // where StJob goes on to
  state_e st_sel;          // the arm the state machine runs (st_q but for merged cycles)
  logic ap_now;            // StPlace doing the StAfterPlace work
  logic rq_now;            // StPkt doing a request's StReq work
  logic mp_now;            // StPkt doing an in-order WRITE's, READ's or atomic's StMap

  // Current event
  logic [rnic_pkg::RxSlotW-1:0] slot_q;
  logic placed_q;          // the payload went to placement, which frees the slot
  logic from_pkt_q;        // the event is a packet (its frame slot is held)
  logic dup_q;             // the request is a duplicate (READ executed again)
  logic [63:0] at_addr_q;
  logic ud_pass1_q;        // mapping the GRH area of a UD receive
  logic [15:0] adj_q;      // slot offset of message byte m: base + m - adj
  logic [7:0] poff_q;
  /* verilator lint_off UNUSEDSIGNAL */  // packet header view
  rnic_pkg::rx_desc_t d_q;
  /* verilator lint_on UNUSEDSIGNAL */
  logic [23:0] qpn_q;
  logic [QpW-1:0] q;
  assign q = qpn_q[QpW-1:0];
  assign epsn_cur = (epsn_wv_q && (wa_q == q)) ? epsn_wd_q : epsn_q[q];
  assign msn_cur = (msn_wv_q && (wa_q == q)) ? msn_wd_q : msn_q[q];
  assign rq_ci_cur = (rq_ci_wv_q && (wa_q == q)) ? rq_ci_wd_q : rq_ci_q[q];
  assign rmsg_off_cur = (rmsg_off_wv_q && (wa_q == q)) ? rmsg_off_wd_q : rmsg_off_q[q];
  assign wr_va_cur = (wr_va_wv_q && (wa_q == q)) ? wr_va_wd_q : wr_va_q[q];
  assign wr_left_cur = (wr_left_wv_q && (wa_q == q)) ? wr_left_wd_q : wr_left_q[q];
  assign seq_cur = (seq_wv_q && (wa_q == q)) ? seq_wd_q : seq_q[q];
  assign rwqe_cur = (rwqe_wv_q && (wa_q == q)) ? rwqe_wd_q : rwqe_q[q];
  assign rwqe_v_cur = (rwqe_v_wv_q && (wa_q == q)) ? rwqe_v_wd_q : rwqe_v_q[q];
  assign nak_sent_cur = (nak_sent_wv_q && (wa_q == q)) ? nak_sent_wd_q : nak_sent_q[q];
  assign query_rq_psn_o = (epsn_wv_q && (wa_q == query_idx_i[QpW-1:0])) ? epsn_wd_q :
                          epsn_q[query_idx_i[QpW-1:0]];
  assign ctx_idx_o = qpn_q;
  /* verilator lint_off UNUSEDSIGNAL */  // a context view: each block reads its own fields
  rnic_pkg::qp_cfg_t ctx;
  /* verilator lint_on UNUSEDSIGNAL */
  assign ctx = ctx_i;

  logic [3:0] mtu_lg;
  assign mtu_lg = rnic_pkg::mtu_log(ctx.pmtu);

  // The driver moved QPs to ERR (QP_WRITE with state ERR), or the
  // completer did (err_in): each waits in u_err_pend once until its receive
  // queue is flushed, first thing when idle. (The mmio holds commands back
  // while a role moves a QP, so the two never meet.)
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

  logic flushing_q;       // flush the receive queue (the QP is moving to ERR)
  // A receive queue flush of a QP in ERR yields after FlushBatch CQEs: the
  // QP waits in u_flush_pend (each QP once) and other work (doorbells,
  // packets) goes before the next batch, so a hostile producer index cannot
  // hold the node for 65535 CQEs.
  localparam logic [3:0] FlushBatch = 4'd8;
  logic [3:0] fl_cnt_q;   // flush CQEs of this visit
  logic fl_yield, flp_pop, flp_valid;
  logic [QpW-1:0] flp_qpn;
  rnic_uniq_fifo #(.Width(QpW)) u_flush_pend (
    .clk_i, .rst_ni,
    .in_valid_i(fl_yield), .in_data_i(q),
    .out_valid_o(flp_valid), .out_ready_i(flp_pop), .out_data_o(flp_qpn)
  );
  // Delayed ACKs: a message whose last packet does not ask for an ACK
  // (AckReq clear: rnic_requester asks on signaled WQEs and on every
  // AckEvery-th) leaves its QP owing one, which StAckOwed sends AckDelay
  // cycles later (taken before the next packet) unless a job or an atomic
  // made for the QP since paid it. The marks are set and cleared a cycle
  // after the arm decides, for the QP of that cycle (wa_q).
  localparam int unsigned AckDelay = 256;
  logic owe_set_q, owe_clr_q;
  logic owe_valid, owe_first, owe_take;
  logic [QpW-1:0] owe_qpn;
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

  // The receive CQE register (written by the after-place work, StInvWr,
  // StErrCqe and StRqFlush). A receive completion, and a READ request's
  // DMA reads, see memory only after every payload handed to placement
  // before them has been written.
  logic need_rcqe_q;
  rnic_pkg::cqe_req_t rcqe_q;
  logic place_idle;
  assign place_idle = !place_busy_i && !place_start_o;
  assign rcqe_valid_o = need_rcqe_q && place_idle;
  assign rcqe_o = rcqe_q;
  // The CQE register takes the next completion in the cycle its CQE is
  // taken (a one-entry pipeline stage): the after-place work does not wait
  // a cycle for it to empty.
  logic rcqe_free;
  assign rcqe_free = !need_rcqe_q || (rcqe_valid_o && rcqe_ready_i);
  // The move to ERR is written into the QP table in the cycle after it is
  // decided; a reset of the QP written at that decision's edge wins (a QP
  // in RESET is not moved by the hardware). The mmio holds a command back
  // while qp_err_o is high, so no reset meets the write.
  logic qp_err_q;
  assign qp_err_o = qp_err_q && !((qp_err_qpn_o == qpn_q) && (ctx.state == rnic_pkg::QpsReset));

  // Jobs: njob_q is built by the states of a request, job_q waits for the
  // transmit side.
  logic job_v_q;
  rnic_pkg::rsp_job_t job_q, njob_q;
  logic ack_merge;
  assign ack_merge = job_v_q && (job_q.kind == rnic_pkg::JobAck) &&
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
  // The receive WQE of a SEND (u_wqe_fetch below): StReq names it
  // (wqe_addr_q, wqe_len_q); StFetchReq and StFetchData read it when the
  // WQE cache does not hold it.
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

  // Key check: SGE (local write) while mapping a receive, the request's
  // rkey otherwise (READ: remote read, atomic: remote atomic, WRITE: remote
  // write). An SGE is checked for the bytes this packet puts into it, when
  // they are written: a receive SGE may be longer than the message (length
  // 0 is 2^31 bytes) and its MR.
  logic chk_sge;
  assign chk_sge = (st_q == StMap) && !is_write && !is_read_req && !is_atomic;
  logic [31:0] chk_key, chk_len;
  logic [63:0] chk_va;
  logic [3:0] chk_acc;
  // A WRITE's later packets are checked again with the first one's rkey
  // (the MR may have been deregistered meanwhile).
  logic chk_cont;
  assign chk_cont = is_write && !is_first;
  assign chk_key = chk_sge ? sge_key : chk_cont ? wr_rkey_q[q] : d_q.reth_rkey;
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

  logic req_state_ok;
  assign req_state_ok = (ctx.state == rnic_pkg::QpsRtr) || (ctx.state == rnic_pkg::QpsRts) ||
                        (ctx.state == rnic_pkg::QpsSqd) || (ctx.state == rnic_pkg::QpsSqe);

  logic [23:0] epsn;
  assign epsn = epsn_cur;
  logic rq_empty;
  assign rq_empty = (rq_ci_cur == rq_pi_q[q]);

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
  assign srq_ci_cur = (srq_ci_wv_q && (swa_q == sn)) ? srq_ci_wd_q : srq_ci_q[sn];
  assign srq_armed_cur = (srq_armed_wv_q && (swa_q == sn)) ? srq_armed_wd_q : srq_armed_q[sn];
  logic rx_avail;
  logic [15:0] rx_next, rx_widx;
  logic [63:0] rx_wqe_addr;
  logic [15:0] rx_wqe_len;
  assign rx_avail = use_srq ? (srq.valid && (rwqe_v_cur || (srq_ci_cur != srq_pi_q[sn]))) :
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
  assign rwc_lk_valid_o = (st_sel == StReq) || (st_q == StRwcWait);
  assign rwc_lk_key_o = {rx_num, rx_next};
  // A receive hints the WQE after its own, and in the next cycle
  // (rwc_hint2_q) the one after that: a burst of SENDs to one QP finds them
  // read or on their way.
  logic [15:0] pf_next, pf_idx, pf_ci, pf_pi;
  logic pf_more, rwc_hint2_q;
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
  assign rq_hf_off = rq_hf_q[q] - rq_ci_cur;
  assign rq_hf = ((rq_hf_off >= rq_hf_lo) && (rq_hf_off <= (rq_pi_q[q] - rq_ci_cur))) ?
                 rq_hf_q[q] : rq_ci_cur + rq_hf_lo;
  assign pf_next = use_srq ? (rwqe_v_cur ? srq_ci_cur : srq_ci_cur + 16'd1) : rq_ci_cur + 16'd1;
  assign pf_idx = use_srq ? (rwc_hint2_q ? pf_next + 16'd1 : pf_next) :
                  (((st_q == StRqFlush) || rwc_hint2_q) && rwc_room_i) ? rq_hf :
                  (st_q == StRqFlush) ? rq_ci_cur : rwc_hint2_q ? pf_next + 16'd1 : pf_next;
  assign pf_ci = use_srq ? srq_ci_cur : rq_ci_cur;
  assign pf_pi = use_srq ? srq_pi_q[sn] : rq_pi_q[q];
  // Posted and not taken: between the consumer and producer indices; an
  // RQ's within RqAhead of the head.
  logic [15:0] pf_off;
  assign pf_off = pf_idx - pf_ci;
  assign pf_more = (!use_srq || srq.valid) && (pf_off < (pf_pi - pf_ci)) &&
                   (use_srq || (pf_off < 16'(RqAhead)));
  logic rwc_hint_q, rwc_hint_ev_q, rwc_inv_q;
  logic [rnic_pkg::RwqeKeyW-1:0] rwc_hint_key_q, rwc_inv_key_q;
  logic [63:0] rwc_hint_addr_q;
  logic [15:0] rwc_hint_len_q;
  // The hint this cycle decides is of a QP whose queues are reset in it
  // (an SRQ's WQEs are not the QP's).
  logic hint_rst;
  assign hint_rst = qp_wr_i && (qp_wr_idx_i == qpn_q) && !use_srq &&
                    (qp_wr_flags_i[rnic_pkg::QpFlagResetRq] ||
                     qp_wr_flags_i[rnic_pkg::QpFlagResetSq]);
  assign rwc_hint_valid_o = rwc_hint_q;
  assign rwc_hint_evict_o = rwc_hint_ev_q;
  assign rwc_hint_key_o = rwc_hint_key_q;
  assign rwc_hint_addr_o = rwc_hint_addr_q;
  assign rwc_hint_len_o = rwc_hint_len_q;
  assign rwc_inv_o = rwc_inv_q;
  assign rwc_inv_key_o = rwc_inv_key_q;
  // A receive WQE from the cache, in StReq (the SEND and UD paths only get
  // there when they take it; the other paths ignore these registers) or
  // when StRwcWait waited for it.
  logic rwc_use;
  assign rwc_use = ((st_sel == StReq) || (st_q == StRwcWait)) && rwc_lk_hit_i;
  logic [63:0] pf_addr;
  assign pf_addr = use_srq ?
      srq.base + ({48'd0, pf_idx & ((16'd1 << srq.log_size) - 16'd1)} << srq.wqe_shift) :
      ctx.rq_base + ({48'd0, pf_idx & ((16'd1 << ctx.rq_log_size) - 16'd1)} << ctx.rq_wqe_shift);
  // What a receive WQE's scatter list needs of it.
  logic [15:0] rq_pf_len;
  assign rq_pf_len = (rx_wqe_len < 16'(rnic_pkg::RwqeRqBytes)) ? rx_wqe_len :
                     16'(rnic_pkg::RwqeRqBytes);
  // Retired: a receive WQE when its message ends (or fails or is flushed).
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      rwc_hint_key_q <= '0;
      rwc_hint_addr_q <= '0;
      rwc_hint_len_q <= '0;
      rwc_inv_key_q <= '0;
    end else begin
      rwc_hint_key_q <= {rx_num, pf_idx};
      rwc_hint_addr_q <= pf_addr;
      rwc_hint_len_q <= rq_pf_len;
      rwc_inv_key_q <= {rx_num, rx_widx};
    end
  end
  // WQEs an SRQ still holds after this message takes one
  logic [15:0] srq_left;
  assign srq_left = srq_pi_q[sn] - srq_ci_cur - 16'd1;
  logic [1:0] seq;
  assign seq = seq_cur;
  logic seq_ok;
  assign seq_ok = is_first ? (seq == SeqIdle) :
                  is_send ? (seq == SeqSend) :
                  is_write ? (seq == SeqWrite) : (seq == SeqIdle);

  logic [31:0] rd_npkts;
  assign rd_npkts = (d_q.reth_len == 32'd0) ? 32'd1 :
                    ((d_q.reth_len + (32'd1 << mtu_lg) - 32'd1) >> mtu_lg);

  // Deferred actions after the placement
  logic [7:0] err_syn_q;      // NAK to send after a responder error
  logic [7:0] err_status_q;   // receive completion status of that error
  logic err_cqe_q;            // the error consumes a receive WQE

  // Asynchronous events. They are rare; one that finds the queue full is lost.
  logic aev_push_q, aev_in_ready;
  logic [31:0] aev_in_q;
  logic [2:0] aev_cnt;
  rnic_fifo #(.Width(32), .Depth(4)) u_aev (
    .clk_i, .rst_ni,
    .in_valid_i(aev_push_q), .in_ready_o(aev_in_ready), .in_data_i(aev_in_q),
    .out_valid_o(aev_valid_o), .out_ready_i(aev_ready_i), .out_data_o(aev_o), .count_o(aev_cnt)
  );

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
  // leave before its answer), and so do the jobs for it (StJob, StErrCqe).
  // Atomics pass.
  logic [7:0] pkt_op;
  logic pkt_hold;
  assign pkt_op = pkt_i[rnic_pkg::RxDescW-25 -: 8];
  assign at_busy_qpn_o = ((st_q == StJob) || (st_q == StErrCqe)) ? qpn_q :
                         pkt_i[rnic_pkg::RxDescW-1 -: 24];
  assign pkt_hold = at_busy_i && !rnic_pkg::op_is_response(pkt_op) &&
                    (pkt_op != rnic_pkg::OpCmpSwap) && (pkt_op != rnic_pkg::OpFetchAdd);

  logic rsp_inc;
  assign rsp_inc = ((st_q == StJob) && !job_v_q && !at_busy_i &&
                    (njob_q.kind != rnic_pkg::JobAck) && !njob_q.dup) ||
                   ((st_q == StAtOp) && at_valid_o && at_ready_i);

  // Inputs: one event at a time, errors of the command path first.
  // StDrop ends an event (its frame slot is released) and takes the next
  // one in the same cycle, as StIdle does.
  // An RQ doorbell of a QP that is not in ERR (nothing to flush) ends in
  // its StRqFlush cycle, which takes the next event as StIdle does
  // (rqf_end: the case below runs the StIdle arm).
  logic rqf_end;
  assign rqf_end = (st_q == StRqFlush) && !flushing_q && !from_pkt_q &&
                   (ctx.state != rnic_pkg::QpsErr);
  // The StPlace cycle that starts a placement also does the StAfterPlace
  // work (the sequence state, ACK job and receive CQE; a CQE waits for
  // placement through place_idle): the case below runs the StAfterPlace
  // arm (ap_now), which stays in StAfterPlace only when a completion is
  // still pending.
  assign ap_now = (st_q == StPlace) && place_idle;
  // A request of a QP in a state that takes it (and a transport that
  // matches) is checked in its StPkt cycle: the StReq arm runs (rq_now).
  assign rq_now = (st_q == StPkt) && (qpn_q < 24'(NQp)) && !rnic_pkg::op_is_response(op) &&
                  req_state_ok && tr_ok;
  // An in-order WRITE (without immediate on its last packet), READ
  // request or atomic with a responder resource free passes StReq doing
  // nothing but choosing StMap: its StPkt cycle maps it (mp_now; the
  // StReq work it skips is done beside, below).
  assign mp_now = rq_now && !qp_ud && (d_q.psn == epsn) && seq_ok &&
                  ((is_write && !(is_last && has_imm)) ||
                   ((is_read_req || is_atomic) && (rsp_out_q[q] < ctx.max_dest_rd_atomic)));
  assign st_sel = rqf_end ? StIdle : ap_now ? StAfterPlace :
                  mp_now ? StMap : rq_now ? StReq : st_q;
  // Such a doorbell reads its QP's frontier WQE ahead (the head when the
  // queue was empty); the take's second hint moves the frontier too.
  logic rq_db_hint;
  assign rq_db_hint = rqf_end && !use_srq && (qpn_q < 24'(NQp)) &&
                      (ctx.state != rnic_pkg::QpsReset) && pf_more;
  assign rq_hf_adv = (rq_db_hint || (rwc_hint2_q && !use_srq && pf_more)) && (pf_idx == rq_hf);
  logic idle, idle_take;
  assign idle = ((st_q == StIdle) || (st_q == StDrop) || rqf_end) && !pend_err;
  // The StIdle arm takes the first QP moved to ERR before anything else.
  assign errp_pop = ((st_sel == StIdle) || (st_sel == StDrop)) && pend_err;
  // A request's after-place work that ends the event (no ACK job left for
  // StJob, no invalidation) takes a waiting RQ doorbell in the same cycle
  // (ap_db; doorbells come first in StIdle too): it touches neither the
  // frame slot nor the placement job, which starts in the next cycle.
  logic ap_db;
  assign ap_db = (st_sel == StAfterPlace) && rcqe_free && !rnic_pkg::op_has_ieth(op) &&
                 (!d_q.ack_req || noack || !job_v_q) && !pend_err && rq_db_valid_i;
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
  assign rdb_ci = (rq_ci_wv_q && (wa_q == rdb_q)) ? rq_ci_wd_q : rq_ci_q[rdb_q];
  assign rdb_rel = rq_db_data_i[47:32] - rdb_ci;
  assign rdb_cur = rq_pi_q[rdb_q] - rdb_ci;
  assign rdb_ok = (rq_db_data_i[23:0] < 24'(NQp)) && (rdb_rel <= 16'h8000) &&
                  (rdb_rel >= rdb_cur);
  assign at_err_ready_o = idle && !rq_db_valid_i;
  // What the StIdle arm takes after doorbells and refused atomics
  assign idle_take = idle && !rq_db_valid_i && !at_err_valid_i;
  assign idle_o = idle_take;
  assign flp_pop = idle_take && flp_valid;
  assign owe_take = idle_take && !flp_valid && owe_first;
  assign pkt_ready_o = idle_take && !flp_valid && !pkt_hold && !owe_first;
  // Nothing to do and nothing on its way out: the one-cycle strobes are low,
  // no CQE, job or event waits, and the queues in are empty.
  assign quiet_o = idle && (st_q == StIdle) && !rwc_hint_q && !rwc_hint2_q && !rwc_inv_q &&
                   !need_rcqe_q && !job_v_q && !flp_valid && !aev_valid_o && !aev_push_q &&
                   !release_o && !place_start_o && !qp_err_q &&
                   !owe_valid && !owe_set_q && !owe_clr_q;
  logic fl_more;
  assign fl_more = use_srq ? rwqe_v_cur : (rq_ci_cur != rq_pi_q[q]);
  assign fl_yield = (st_q == StRqFlush) && !need_rcqe_q && (fl_cnt_q == FlushBatch) &&
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
      place_ev_pos_o <= {1'b0, is_last, is_first};
    end
  end

  // The SGE count of a fetched receive WQE (u_wqe_fetch): byte 0.
  logic [7:0] f_cnt;

  // StMap's rkey path (WRITE, READ request, atomic): an operation the QP's
  // access flags do not enable is an invalid request; a key, range or
  // MR-right failure a remote access error. A WRITE's payload must fit what
  // its RETH (or what is left of it) announced.
  logic rk_bad, rk_long;
  assign rk_bad = !ctx.access[is_read_req ? 2 : is_atomic ? 3 : 1] ||
                  ((d_q.reth_len != 32'd0) && is_first && !chk_ok) ||
                  (chk_cont && (d_q.pay_len != 13'd0) && !chk_ok) ||
                  ((is_read_req || is_atomic) && (d_q.reth_len != 32'd0) && !chk_ok);
  assign rk_long = (is_first && ({19'd0, d_q.pay_len} > d_q.reth_len)) ||
                   (!is_first && ({19'd0, d_q.pay_len} > wr_left_cur));
  // The mapper's controls, as the state machine's arms decide: a WQE read
  // or taken from the cache starts a list; StMap walks it for a receive
  // (map_walk), walks it again for a UD receive's payload after its GRH
  // area (map_rewalk), and sets a WRITE's one segment.
  assign map_start = wqe_done || rwc_use;
  assign map_cnt = rwc_use ? ((rwc_lk_data_i[7:0] > 8'd4) ? 3'd5 : rwc_lk_data_i[2:0]) :
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
      job_st_q <= StIdle;
      slot_q <= '0;
      poff_q <= '0;
      d_q <= '0;
      qpn_q <= '0;
      flushing_q <= 1'b0;
      fl_cnt_q <= '0;
      need_rcqe_q <= 1'b0;
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
      at_addr_q <= '0;
      ud_pass1_q <= 1'b0;
      adj_q <= '0;
      aev_push_q <= 1'b0;
      aev_in_q <= '0;
      place_start_o <= 1'b0;
      qp_err_q <= 1'b0;
      qp_err_qpn_o <= '0;
      rwc_hint_q <= 1'b0;
      rwc_hint_ev_q <= 1'b0;
      rwc_hint2_q <= 1'b0;
      rwc_inv_q <= 1'b0;
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
      srq_ci_wv_q <= 1'b0;
      srq_armed_wv_q <= 1'b0;
      release_o <= 1'b0;
      rwc_hint_q <= rwc_hint2_q && pf_more;
      if (rq_hf_adv) rq_hf_q[q] <= pf_idx + 16'd1;
      rwc_hint_ev_q <= 1'b0;
      rwc_hint2_q <= 1'b0;
      rwc_inv_q <= 1'b0;
      owe_set_q <= 1'b0;
      owe_clr_q <= 1'b0;
      place_start_o <= 1'b0;
      qp_err_q <= 1'b0;
      aev_push_q <= 1'b0;
      if (rcqe_valid_o && rcqe_ready_i) need_rcqe_q <= 1'b0;
      if (st_q != StRqFlush) fl_cnt_q <= '0;
      if (job_valid_o && job_ready_i) job_v_q <= 1'b0;

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
      // An event ends (the StIdle/StDrop arm runs, or ap_db): its flags go
      // back before the arm sets the next event's.
      if ((st_sel == StIdle) || (st_sel == StDrop) || ap_db) begin
        from_pkt_q <= 1'b0;
        dup_q <= 1'b0;
        ud_pass1_q <= 1'b0;
      end
      unique case (st_sel)
        // ---------------------------------------------------------------------
        StIdle, StDrop: begin
          if (st_q == StDrop) begin
            release_o <= !placed_q;  // a placed frame's slot is released by placement
            release_slot_o <= slot_q;
          end
          if (st_q == StRqFlush) begin
            // rqf_end: the doorbell's QP takes receives (INIT to SQE): read
            // its frontier WQE ahead (rq_db_hint).
            rwc_hint_q <= rq_db_hint;
            placed_q <= 1'b1;
          end
          st_q <= StIdle;
          if (pend_err) begin
            qpn_q <= 24'(errp_qpn);   // (errp_pop)
            flushing_q <= 1'b1;
            st_q <= StRqFlush;
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
            st_q <= StToFlush;
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
        // A request of a QP that does not take it (a state or transport that
        // does not match, a QPN beyond the table); otherwise its StPkt cycle
        // runs the StReq arm (rq_now). Responses are the completer's.
        StPkt: begin
          st_q <= StDrop;
        end
        StReq: begin
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
                job_st_q <= StDrop;
                st_q <= StJob;
              end
            end else if (!nak_sent_cur) begin
              // Ahead of the expected PSN: one NAK per gap.
              {nak_sent_wv_q, nak_sent_wd_q} <= {1'b1, 1'b1};
              njob_q <= mk_job(rnic_pkg::JobAck, qpn_q, epsn, rnic_pkg::AethNakPsnSeq, msn_cur,
                              '0, '0, '0, 1'b0);
              job_st_q <= StDrop;
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
                job_st_q <= StDrop;
                st_q <= StJob;
              end
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
              if (is_send) begin
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
                st_q <= StMap;  // WRITE with immediate: the RQ WQE only gets the CQE
              end
            end
          end else if ((is_read_req || is_atomic) &&
                       (rsp_out_q[q] >= ctx.max_dest_rd_atomic)) begin
            // More READs/atomics outstanding than the responder has room for.
            {nak_sent_wv_q, nak_sent_wd_q} <= {1'b1, 1'b0};
            err_syn_q <= rnic_pkg::AethNakInvReq;
            st_q <= StErrCqe;
          end else begin
            {nak_sent_wv_q, nak_sent_wd_q} <= {1'b1, 1'b0};
            st_q <= StMap;  // WRITE, READ request or atomic
          end
        end
        // The cache is reading this receive's WQE: wait for it (its read
        // is older than one issued now), or read it if the entry went.
        StRwcWait: begin
          if (rwc_lk_hit_i) st_q <= StMap;
          else if (!rwc_lk_pend_i) st_q <= StFetchReq;
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
              job_st_q <= StDrop;
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
                st_q <= StPlace;
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
        // Placement runs behind: the job is handed over and the next packet
        // taken while the payload is written; placement releases the frame
        // slot. What makes data observable waits for placement to drain
        // (see place_idle).
        // Here only while placement is busy: the cycle it is idle starts
        // the job and runs the StAfterPlace arm (ap_now).
        StPlace: begin
        end
        StAfterPlace: begin
          if (!rcqe_free) begin
            // the previous receive completion is not written yet (one CQE
            // register)
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
                                 is_send ? (rmsg_off_cur + {19'd0, d_q.pay_len}) : wr_len_q[q];
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
            job_st_q <= StDrop;
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
            st_q <= job_st_q;
          end else if (ack_merge) begin
            job_q <= njob_q;
            owe_clr_q <= 1'b1;
            st_q <= job_st_q;
          end
        end
        // A delayed ACK (u_ack_delay): everything received so far, unless
        // the QP went to ERR meanwhile (UC/UD QPs owe none; a context write
        // clears the QP's debt).
        StAckOwed: begin
          if (req_state_ok) begin
            njob_q <= mk_job(rnic_pkg::JobAck, qpn_q, epsn - 24'd1, rnic_pkg::AethAck, msn_cur,
                            '0, '0, '0, 1'b0);
            job_st_q <= StIdle;
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
            st_q <= StToFlush;
          end
        end
        StToFlush: begin
          st_q <= StRqFlush;
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
                fl_more) begin
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
              if (flushing_q && use_srq && (qpn_q < 24'(NQp))) begin
                aev_push_q <= 1'b1;
                aev_in_q <= {rnic_pkg::EvQpLastWqe, qpn_q};
              end
              // A packet whose error ended in this flush still holds its
              // frame slot.
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

      // Responder resources: taken when a READ/atomic job is queued, back
      // when its responses have left. A QP reset clears the count, and
      // rnic_rd_resp drops the reset QP's queued jobs without a return (a
      // return that finds 0 is dropped all the same).
      if (rsp_done_i && (rsp_done_qpn_i < 24'(NQp))) begin
        if (!(rsp_inc && (rsp_done_qpn_i == qpn_q))) begin
          rsp_out_q[rsp_done_qpn_i[QpW-1:0]] <= rsp_out_q[rsp_done_qpn_i[QpW-1:0]] -
              {3'd0, (rsp_out_q[rsp_done_qpn_i[QpW-1:0]] != 4'd0)};
          if (rsp_inc) rsp_out_q[q] <= rsp_out_q[q] + 4'd1;
        end
      end else if (rsp_inc) begin
        rsp_out_q[q] <= rsp_out_q[q] + 4'd1;
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
        end
      end
    end
  end
  logic unused;
  assign unused = ^{query_idx_i[23:QpW], rq_db_data_i[62:48], rq_db_data_i[31:24], rd_npkts[31:24],
                    aev_in_ready, aev_cnt, srq_wr_limit_i[31:10], srq_wr_limit_i[8:0],
                    qp_wr_sq_psn_i, rwc_lk_data_i[rnic_pkg::RwqeBits-1:8], map_hit};

`ifdef RNIC_ASSERT
  /* verilator coverage_off */
  // Simulation check: the READ/atomic count stays within its 4 bits (a job
  // is queued only under the QP's max_dest_rd_atomic, at most 15). (The QP
  // queues check their own room: rnic_uniq_fifo.)
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
    end else begin
      if (rsp_inc) assert (rsp_out_q[q] != 4'hf);
    end
  end
  /* verilator coverage_on */
`endif

`ifdef RNIC_COVER
  // Coverage builds: each state and each change of state is a cover point.
  rnic_fsm_cover #(
    .StW($bits(state_e)),
    .NStates(int'(StToFlush) + 1)
  ) u_st_q_cover (
    .clk_i,
    .rst_ni,
    .st_i(st_q)
  );
`endif
endmodule
