// rnic_requester: turns fetched send WQEs into RoCEv2 request frames.
//
// Per WQE: decode the control segment, check every gather SGE against its MR
// (lkey, PD, bounds, rights; READ and atomic targets need LOCAL_WRITE), hand
// an in-flight record to the completer, then cut the message into path-MTU
// packets whose payload is a list of DMA chunks for the TX builder. After a
// local error the QP stops: its later WQEs go to the completer as flush
// records.
//
// Retransmission (docs/transport.md): a rewind from the completer starts a
// new epoch of the QP. WQEs fetched in an older epoch are dropped, and a
// message being cut is abandoned. WQEs before the QP's first never-sent WQE
// (new_idx) are sent again without a new in-flight record, with the PSNs of
// their record in the completer's ring (a WQE whose record is gone has
// completed meanwhile and is not sent); packets before the restart PSN are
// skipped, and a READ restarted inside its response stream asks only for
// the rest.
//
// READ and atomic WQEs take a credit (max_rd_atomic) until the completer
// retires them; a WQE without a credit, or a fenced WQE behind outstanding
// READs/atomics, waits here (which also holds back other QPs' WQEs).
//
// UC QPs send the RC SEND/WRITE codes with transport bits 001; UD QPs send
// one-packet SENDs to the address in the WQE's UD address segments. Their
// records complete when the last frame leaves (InflNoAck). Inline data are
// a DMA chunk that points into the WQE itself, in the SQ ring.
//
// LOCAL_INV and BIND_MW execute here, on the MR table (through an update
// port), and complete in order without sending anything; SEND_WITH_INV
// carries the rkey to invalidate in the IETH.
//
// AckReq (docs/transport.md, "ACK requests"): the last packet of an RC
// message asks for an ACK when its WQE is signaled or is every AckEvery-th
// of its QP (WQE index), and READ and atomic requests always do; the
// responder acknowledges the other messages later (its delayed ACK) unless
// an ACK it sends meanwhile covers them.
module rnic_requester #(
  parameter int unsigned NQp = 1024,
  // A power of two; at most a quarter of the QP's in-flight window, so the
  // ACKs free its slots while the rest of the window keeps the wire busy
  parameter int unsigned AckEvery = 2
) (
  input  logic        clk_i,
  input  logic        rst_ni,
  // Fetched WQEs from rnic_sq_fetch
  input  logic        wqe_valid_i,
  output logic        wqe_ready_o,
  input  logic [rnic_pkg::WqeBits+42-1:0] wqe_i,
  input  logic [7:0]  wqe_epoch_i,
  // QP context writes (PSN load, SQ reset)
  input  logic        qp_wr_i,
  input  logic [23:0] qp_wr_idx_i,
  input  logic [7:0]  qp_wr_flags_i,
  input  logic [23:0] qp_wr_sq_psn_i,
  // Rewinds accepted by rnic_sq_fetch (same handshake)
  input  logic        rewind_take_i,
  input  logic [rnic_pkg::RewindW-1:0] rewind_i,
  input  logic        rewind_resume_i,
  // The completer's in-flight record of the WQE being decoded
  output logic [23:0] ring_rd_qpn_o,
  output logic [15:0] ring_rd_idx_o,
  input  logic        ring_rd_v_i,
  input  logic [rnic_pkg::InflW-1:0] ring_rd_i,
  // A READ or atomic WQE retired by the completer (its credit returns)
  input  logic        rd_done_i,
  input  logic [23:0] rd_done_qpn_i,
  // Context read ports
  output logic [23:0] ctx_idx_o,
  input  logic [rnic_pkg::QpCfgW-1:0] ctx_i,
  output logic [23:0] mr_idx_o,
  input  logic [rnic_pkg::MrCfgW-1:0] mr_i,
  // In-flight records to the completer
  output logic        infl_valid_o,
  input  logic        infl_ready_i,
  output logic [rnic_pkg::InflW-1:0] infl_o,
  // Frames to the TX builder
  output logic        txd_valid_o,
  input  logic        txd_ready_i,
  output logic [rnic_pkg::TxdW-1:0] txd_o,
  // MR-table updates (memory window bind and invalidation)
  output logic        mr_upd_valid_o,
  input  logic        mr_upd_ready_i,
  output logic [23:0] mr_upd_idx_o,
  output logic [rnic_pkg::MrCfgW-1:0] mr_upd_o,
  // QP_QUERY: the next PSN a new WQE of this QP takes
  input  logic [23:0] query_idx_i,
  output logic [23:0] query_sq_psn_o,
  // No WQE in hand (fast-forward)
  output logic        quiet_o
);
  localparam int unsigned QpW = $clog2(NQp);
  localparam int unsigned WqeBits = rnic_pkg::WqeBits;

  typedef enum logic [3:0] {
    StIdle, StDecode, StCheck, StInfl, StChunk, StSend, StMw0, StMw1, StMwWr
  } state_e;
  state_e st_q;

  // Per-QP state
  logic [23:0] sq_psn_q [NQp];   // PSN of the next never-sent WQE
  logic [15:0] new_idx_q [NQp];  // index of the next never-sent WQE
  logic [23:0] skip_q [NQp];     // packets before this PSN are not sent again
  logic [7:0] epoch_q [NQp];
  logic [3:0] rd_out_q [NQp];    // READ/atomic WQEs not yet retired
  logic stopped_q [NQp];

  logic [WqeBits-1:0] wqe_q;
  logic [23:0] qpn_q;
  logic [15:0] idx_q;
  logic [7:0] wepoch_q;
  logic flush_q, ferr_q, resend_q;

  /* verilator lint_off UNUSEDSIGNAL */  // a context view: each block reads its own fields
  rnic_pkg::qp_cfg_t ctx;
  rnic_pkg::rewind_t rw;
  /* verilator lint_on UNUSEDSIGNAL */
  assign ctx_idx_o = qpn_q;
  assign ctx = ctx_i;
  assign rw = rewind_i;

  // Decoded control segment
  logic [7:0] w_op, w_flags, w_ds;
  logic [31:0] w_imm;
  logic [63:0] w_rva;
  logic [31:0] w_rkey;
  logic [63:0] w_swap, w_cmp;
  logic [127:0] w_av_a, w_av_b;
  assign w_op = wqe_q[7:0];
  assign w_flags = wqe_q[15:8];
  assign w_ds = wqe_q[39:32];
  assign w_imm = wqe_q[95:64];
  assign w_rva = wqe_q[128 +: 64];
  assign w_rkey = wqe_q[192 +: 32];
  assign w_swap = wqe_q[256 +: 64];
  assign w_cmp = wqe_q[320 +: 64];
  assign w_av_a = wqe_q[128 +: 128];
  assign w_av_b = wqe_q[256 +: 128];

  logic op_write, op_send, op_read, op_atomic, op_imm, op_ok, op_resp;
  logic op_inv, op_linv, op_bind, op_local;
  assign op_write = (w_op == rnic_pkg::WqeOpWrite) || (w_op == rnic_pkg::WqeOpWriteImm);
  assign op_send = (w_op == rnic_pkg::WqeOpSend) || (w_op == rnic_pkg::WqeOpSendImm) ||
                   (w_op == rnic_pkg::WqeOpSendInv);
  assign op_inv = (w_op == rnic_pkg::WqeOpSendInv);
  assign op_linv = (w_op == rnic_pkg::WqeOpLocalInv);
  assign op_bind = (w_op == rnic_pkg::WqeOpBindMw);
  assign op_local = op_linv || op_bind;
  assign op_read = (w_op == rnic_pkg::WqeOpRead);
  assign op_atomic = (w_op == rnic_pkg::WqeOpCmpSwap) || (w_op == rnic_pkg::WqeOpFetchAdd);
  assign op_imm = (w_op == rnic_pkg::WqeOpWriteImm) || (w_op == rnic_pkg::WqeOpSendImm);
  assign op_ok = op_write || op_send || op_read || op_atomic || op_local;
  assign op_resp = op_read || op_atomic;   // answered by response data

  logic qp_uc, qp_ud, type_ok, w_inline;
  assign qp_uc = (ctx.qp_type == rnic_pkg::QptUc);
  assign qp_ud = (ctx.qp_type == rnic_pkg::QptUd);
  assign type_ok = qp_ud ? (op_send && !op_inv) :
                   qp_uc ? ((op_send && !op_inv) || op_write || op_local) : 1'b1;
  assign w_inline = w_flags[rnic_pkg::WqeFlagInline];

  logic [7:0] first_seg;
  logic [7:0] nsge_w;
  assign first_seg = op_send ? (qp_ud ? 8'd3 : 8'd1) : (op_atomic || op_bind) ? 8'd3 :
                     op_linv ? 8'd1 : 8'd2;
  assign nsge_w = w_ds - first_seg;

  // Inline data: header word 0x80000000 | length, then the bytes, inside
  // this WQE's slot of the SQ ring.
  logic [31:0] i_hdr;
  logic [63:0] wqe_iova;
  logic [31:0] i_end;
  logic i_ok;
  // The WQE's 16-byte slots are read by constant part-selects: an indexed
  // part-select of its 2,048 bits is a shifter Yosys maps slowly
  // (docs/verification.md). first_seg is 1 to 3, first_seg + sge_idx at
  // most 3 + MaxSge - 1.
  always_comb begin
    i_hdr = wqe_q[128 +: 32];
    for (int unsigned s = 2; s < 4; s++) begin
      if (first_seg == 8'(s)) i_hdr = wqe_q[s*128 +: 32];
    end
  end
  assign wqe_iova = ctx.sq_base +
      ({48'd0, idx_q & ((16'd1 << ctx.sq_log_size) - 16'd1)} << ctx.sq_wqe_shift);
  assign i_end = {20'd0, first_seg, 4'd0} + 32'd4 + {1'b0, i_hdr[30:0]};
  assign i_ok = i_hdr[31] && !op_resp && (i_end <= (32'd1 << ctx.sq_wqe_shift));

  // SGE table after the check
  logic [2:0] nsge_q, sge_i_q;
  logic [63:0] sge_bus_q [4];
  logic [31:0] sge_len_q [4];
  logic [31:0] total_q;
  logic [7:0] status_q;

  // The SGE being checked: StCheck's, or in StDecode the first (a WQE
  // with one SGE is checked in its StDecode cycle).
  logic [2:0] sge_idx;
  logic [31:0] chk_total;   // message bytes before this SGE
  logic chk_last;
  assign sge_idx = (st_q == StDecode) ? 3'd0 : sge_i_q;
  assign chk_total = (st_q == StDecode) ? 32'd0 : total_q;
  assign chk_last = (st_q == StDecode) || (sge_i_q + 3'd1 == nsge_q);
  logic [127:0] seg;
  logic [31:0] seg_len, seg_key;
  logic [63:0] seg_va;
  logic [3:0] seg_slot;
  assign seg_slot = 4'(first_seg) + 4'(sge_idx);
  always_comb begin
    seg = wqe_q[127:0];
    for (int unsigned s = 1; s < WqeBits / 128; s++) begin
      if (seg_slot == 4'(s)) seg = wqe_q[s*128 +: 128];
    end
  end
  assign seg_len = seg[31:0];
  assign seg_key = seg[63:32];
  assign seg_va = seg[127:64];

  logic mr_ok;
  logic [63:0] mr_bus;
  rnic_mr_check u_mr_check (
    .mr_i(mr_i), .key_i(seg_key), .rkey_i(1'b0), .qpn_i(qpn_q), .pd_i(ctx.pd), .va_i(seg_va),
    .len_i(seg_len), .access_i(op_resp ? 4'b0001 : 4'b0000), .ok_o(mr_ok), .bus_o(mr_bus)
  );
  // The SGE's verdict: its key (a zero-length SGE does not touch memory
  // and needs none), an atomic's 8 bytes, and with the last SGE the
  // message's length (UD messages are one packet; none is over 2^31).
  logic [7:0] chk_status;
  logic [31:0] chk_sum;
  assign chk_sum = chk_total + seg_len;
  assign chk_status = (!mr_ok && (seg_len != 32'd0)) ? rnic_pkg::WcLocProtErr :
                      (op_atomic && (seg_len != 32'd8)) ? rnic_pkg::WcLocLenErr :
                      (chk_last && ((qp_ud && (chk_sum > {19'd0, mtu})) ||
                                    (chk_sum > 32'h8000_0000))) ? rnic_pkg::WcLocLenErr :
                      rnic_pkg::WcSuccess;

  // Memory windows: BIND_MW (bind A: new rkey, MR lkey, VA; bind B: length,
  // access) and LOCAL_INV (the key in the control segment).
  logic [31:0] b_rkey, b_lkey, b_acc;
  logic [63:0] b_va, b_len;
  assign b_rkey = wqe_q[128 +: 32];
  assign b_lkey = wqe_q[160 +: 32];
  assign b_va = wqe_q[192 +: 64];
  assign b_len = wqe_q[256 +: 64];
  assign b_acc = wqe_q[320 +: 32];
  /* verilator lint_off UNUSEDSIGNAL */  // views of the MR port
  rnic_pkg::mr_cfg_t mrv, bmr_q;
  /* verilator lint_on UNUSEDSIGNAL */
  rnic_pkg::mr_cfg_t upd_q;
  logic [23:0] upd_idx_q;
  assign mrv = mr_i;
  assign mr_idx_o = (st_q == StMw0) ? (op_linv ? w_imm[31:8] : b_lkey[31:8]) :
                    (st_q == StMw1) ? b_rkey[31:8] : seg_key[31:8];
  assign mr_upd_valid_o = (st_q == StMwWr);
  assign mr_upd_idx_o = upd_idx_q;
  assign mr_upd_o = upd_q;

  logic linv_ok, bind_mr_ok, bind_mw_ok;
  assign linv_ok = mrv.valid && mrv.is_mw && (mrv.key == w_imm[7:0]) && (mrv.pd == ctx.pd) &&
                   (!mrv.mw_type2 || (mrv.mw_qpn == qpn_q));
  // The window lies in an MR of this PD that allows binding (its bounds
  // in 64 bits as rnic_mr_check's); remote write or atomic rights need
  // local write on the MR.
  assign bind_mr_ok = bmr_q.valid && !bmr_q.is_mw && (bmr_q.key == b_lkey[7:0]) &&
                      (bmr_q.pd == ctx.pd) && bmr_q.access[rnic_pkg::AccMwBind] &&
                      (b_va >= bmr_q.va) && (b_len <= bmr_q.len) &&
                      ((b_va - bmr_q.va) <= bmr_q.len - b_len) &&
                      (!(b_acc[rnic_pkg::AccRemoteWrite] || b_acc[rnic_pkg::AccRemoteAtomic]) ||
                       bmr_q.access[rnic_pkg::AccLocalWrite]);
  // A type 2 window is bound only while unbound.
  assign bind_mw_ok = mrv.is_mw && (mrv.pd == ctx.pd) && (!mrv.mw_type2 || !mrv.valid);

  // Packetization
  logic [12:0] mtu;
  logic [3:0] mtu_lg;
  assign mtu = rnic_pkg::mtu_bytes(ctx.pmtu);
  assign mtu_lg = rnic_pkg::mtu_log(ctx.pmtu);

  logic [31:0] remain_q;      // message bytes not yet packetized
  logic [23:0] psn_q, first_psn_q, skip_psn_q;
  logic first_pkt_q;
  logic [12:0] pkt_len_q, need_q;
  logic [2:0] cur_sge_q;
  logic [31:0] cur_off_q;
  logic [2:0] nchunk_q;
  logic [255:0] chunk_addr_q;
  logic [51:0] chunk_len_q;

  logic [31:0] npkts;          // PSNs of the message (READ: of its response)
  assign npkts = op_atomic ? 32'd1 :
                 (total_q == 32'd0) ? 32'd1 :
                 ((total_q + {19'd0, mtu} - 32'd1) >> mtu_lg);

  rnic_pkg::infl_t infl;
  rnic_pkg::txd_t txd;
  logic [QpW-1:0] q;
  assign q = qpn_q[QpW-1:0];
  assign query_sq_psn_o = sq_psn_q[query_idx_i[QpW-1:0]];

  logic local_err;
  assign local_err = (status_q != rnic_pkg::WcSuccess);

  // The message's first PSN: a WQE sent again has it in its ring record.
  /* verilator lint_off UNUSEDSIGNAL */  // a view of the completer's record
  rnic_pkg::infl_t rec;
  /* verilator lint_on UNUSEDSIGNAL */
  assign ring_rd_qpn_o = qpn_q;
  assign ring_rd_idx_o = idx_q;
  assign rec = ring_rd_i;
  logic rec_ok;
  assign rec_ok = ring_rd_v_i && (rec.wqe_idx == idx_q) && (rec.kind == rnic_pkg::InflNormal);
  // A flush record that replaces the record of a WQE sent before (repl_q)
  // goes to the completer only while that record is still in the ring: the
  // completer may retire it (its ACK came, or the error record ahead of it
  // ended the QP) while the flush record waits for infl_ready_i, and a
  // record for a retired WQE would complete it a second time. The ring read
  // is combinational, so the check holds in the cycle of the handshake.
  logic repl_q;
  logic [23:0] base_psn;
  // The QP went to ERR after its WQE was decoded (the engine's move after an
  // error, or the application's): StInfl hands over a flush record in place
  // of its record, a resend stops, and a message being sent stops at its
  // next packet (StChunk): a QP in ERR sends nothing more, its outstanding
  // WRs complete with a flush error.
  logic err_now;
  assign err_now = (ctx.state == rnic_pkg::QpsErr);
  assign base_psn = resend_q ? rec.first_psn : sq_psn_q[q];

  always_comb begin
    infl = '0;
    infl.qpn = qpn_q;
    infl.epoch = wepoch_q;
    infl.wqe_idx = idx_q;
    infl.kind = flush_q ? rnic_pkg::InflFlush :
                (local_err || op_local) ? rnic_pkg::InflLocalErr :
                (qp_uc || qp_ud) ? rnic_pkg::InflNoAck : rnic_pkg::InflNormal;
    infl.status = flush_q ? rnic_pkg::WcWrFlushErr : status_q;
    infl.wc_op = op_read ? rnic_pkg::WcOpRead : op_write ? rnic_pkg::WcOpWrite :
                 op_linv ? rnic_pkg::WcOpLocalInv : op_bind ? rnic_pkg::WcOpBindMw :
                 (w_op == rnic_pkg::WqeOpCmpSwap) ? rnic_pkg::WcOpCompSwap :
                 (w_op == rnic_pkg::WqeOpFetchAdd) ? rnic_pkg::WcOpFetchAdd :
                 rnic_pkg::WcOpSend;
    infl.signaled = w_flags[rnic_pkg::WqeFlagSignaled];
    infl.is_read = op_resp;
    infl.first_psn = sq_psn_q[q];
    infl.last_psn = sq_psn_q[q] + npkts[23:0] - 24'd1;
    infl.len = op_atomic ? 32'd8 : total_q;
  end
  assign infl_o = infl;
  // A WQE sent again already has its record; a stale one gets none, nor
  // does one fetched before a reset or rewind of its QP (a flush record
  // too: the flush walk of the new epoch makes its own).
  assign infl_valid_o = (st_q == StInfl) && !resend_q && !(repl_q && !rec_ok) && !stale &&
                        !(err_now && !flush_q);

  logic last_pkt;
  assign last_pkt = (remain_q <= {19'd0, mtu});
  localparam logic [15:0] AckMask = 16'(AckEvery - 1);
  logic ack_due;
  assign ack_due = w_flags[rnic_pkg::WqeFlagSignaled] || ((idx_q & AckMask) == AckMask);

  // A READ sent again from inside its response stream asks for the rest.
  logic [31:0] rd_skip_bytes;
  assign rd_skip_bytes = {8'd0, skip_psn_q - first_psn_q} << mtu_lg;
  logic rd_partial;
  assign rd_partial = op_read && (skip_psn_q != first_psn_q) &&
                      rnic_pkg::psn_ge(skip_psn_q, first_psn_q);

  always_comb begin
    txd = '0;
    txd.qpn = qpn_q;
    txd.psn = psn_q;
    txd.pay_len = op_resp ? 13'd0 : pkt_len_q;
    txd.reth_va = w_rva;
    txd.reth_rkey = w_rkey;
    txd.reth_len = total_q;
    txd.imm = w_imm;
    txd.ack_req = last_pkt && ack_due;
    // SE rides on the last packet of a message that consumes a receive.
    txd.se = last_pkt && w_flags[rnic_pkg::WqeFlagSolicited] &&
             (op_send || (w_op == rnic_pkg::WqeOpWriteImm));
    txd.nchunk = nchunk_q;
    txd.chunk_addr = chunk_addr_q;
    txd.chunk_len = chunk_len_q;
    txd.ev_first = first_pkt_q;
    txd.ev_last = last_pkt;
    txd.wqe_idx = idx_q;
    txd.atomic_swap = w_swap;
    txd.atomic_cmp = w_cmp;
    txd.ud_en = qp_ud;
    txd.ud_dqpn = w_av_a[23:0];
    txd.qkey = w_av_a[63:32];
    txd.ud_dip = w_av_a[95:64];
    txd.ud_dmac = w_av_b[47:0];
    if (op_read) begin
      txd.opcode = rnic_pkg::OpReadReq;
      txd.ack_req = 1'b1;
      txd.ev_last = 1'b1;
      if (rd_partial) begin
        txd.psn = skip_psn_q;
        txd.reth_va = w_rva + {32'd0, rd_skip_bytes};
        txd.reth_len = total_q - rd_skip_bytes;
      end
    end else if (op_atomic) begin
      txd.opcode = (w_op == rnic_pkg::WqeOpCmpSwap) ? rnic_pkg::OpCmpSwap : rnic_pkg::OpFetchAdd;
      txd.ack_req = 1'b1;
      txd.ev_last = 1'b1;
      txd.reth_len = 32'd8;
    end else if (op_inv) begin
      // IETH: the rkey, big-endian on the wire (imm holds wire bytes).
      txd.imm = {w_imm[7:0], w_imm[15:8], w_imm[23:16], w_imm[31:24]};
      if (first_pkt_q && last_pkt) txd.opcode = rnic_pkg::OpSendOnlyInv;
      else if (first_pkt_q) txd.opcode = rnic_pkg::OpSendFirst;
      else if (last_pkt) txd.opcode = rnic_pkg::OpSendLastInv;
      else txd.opcode = rnic_pkg::OpSendMiddle;
    end else if (op_send) begin
      if (first_pkt_q && last_pkt) txd.opcode = op_imm ? rnic_pkg::OpSendOnlyImm : rnic_pkg::OpSendOnly;
      else if (first_pkt_q) txd.opcode = rnic_pkg::OpSendFirst;
      else if (last_pkt) txd.opcode = op_imm ? rnic_pkg::OpSendLastImm : rnic_pkg::OpSendLast;
      else txd.opcode = rnic_pkg::OpSendMiddle;
    end else begin
      if (first_pkt_q && last_pkt) txd.opcode = op_imm ? rnic_pkg::OpWriteOnlyImm : rnic_pkg::OpWriteOnly;
      else if (first_pkt_q) txd.opcode = rnic_pkg::OpWriteFirst;
      else if (last_pkt) txd.opcode = op_imm ? rnic_pkg::OpWriteLastImm : rnic_pkg::OpWriteLast;
      else txd.opcode = rnic_pkg::OpWriteMiddle;
    end
    if (qp_ud) begin
      txd.opcode = op_imm ? rnic_pkg::OpUdSendOnlyImm : rnic_pkg::OpUdSendOnly;
      txd.ack_req = 1'b0;
    end else if (qp_uc) begin
      txd.opcode = {rnic_pkg::TrUc, txd.opcode[4:0]};
      txd.ack_req = 1'b0;
    end
  end
  assign txd_o = txd;

  // Packets before the restart PSN are counted but not sent. A message whose
  // QP was rewound meanwhile is abandoned (stale) before its next packet; a
  // packet already offered stays offered (valid does not drop) and the
  // responder treats it as out of sequence.
  // A reset of the QP in this very cycle counts too: its epoch moves at
  // this edge, and a record handed over now would reach the completer after
  // the reset emptied the QP's ring.
  logic skip_pkt, stale, rst_now;
  assign skip_pkt = !op_resp && !rnic_pkg::psn_ge(psn_q, skip_psn_q);
  assign rst_now = qp_wr_i && qp_wr_flags_i[rnic_pkg::QpFlagResetSq] && (qp_wr_idx_i == qpn_q);
  assign stale = (wepoch_q != epoch_q[q]) || rst_now;
  assign txd_valid_o = (st_q == StSend) && !skip_pkt;
  // The next WQE is taken in StIdle, or as the last packet of the current
  // one leaves (StSend), which saves the idle cycle between WQEs.
  logic send_done, wqe_end;
  assign wqe_ready_o = (st_q == StIdle) || wqe_end;
  assign quiet_o = (st_q == StIdle);

  // Credits and fences
  logic rd_block;
  assign rd_block = (op_resp && (rd_out_q[q] >= ctx.max_rd_atomic)) ||
                    (w_flags[rnic_pkg::WqeFlagFence] && (rd_out_q[q] != 4'd0));

  // The first packet's length. When SGE 0 holds it whole (or it carries
  // no payload), StInfl makes its chunk itself and goes straight to StSend.
  logic [12:0] first_len;
  logic first_one;
  assign first_len = (total_q < {19'd0, mtu}) ? total_q[12:0] : mtu;
  assign first_one = !stale && (op_resp || (first_len == 13'd0) ||
                                (sge_len_q[0] >= {19'd0, first_len}));

  // Chunk step: the bytes of the current SGE that go into this packet.
  logic [31:0] sge_left, take;
  assign sge_left = sge_len_q[cur_sge_q[1:0]] - cur_off_q;
  assign take = (sge_left < {19'd0, need_q}) ? sge_left : {19'd0, need_q};

  assign send_done = (st_q == StSend) && (skip_pkt || txd_ready_i);
  assign wqe_end = send_done && (op_resp || last_pkt);

  // The WQE taken, in a process of its own (as in rnic_rx_engine: Yosys's
  // proc_mux time grows with a process's width times its assignments).
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      wqe_q <= '0;
    end else if (wqe_valid_i && wqe_ready_o) begin
      wqe_q <= wqe_i[WqeBits-1:0];
    end
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      st_q <= StIdle;
      qpn_q <= '0;
      idx_q <= '0;
      wepoch_q <= '0;
      flush_q <= 1'b0;
      ferr_q <= 1'b0;
      resend_q <= 1'b0;
      repl_q <= 1'b0;
      nsge_q <= '0;
      sge_i_q <= '0;
      total_q <= '0;
      status_q <= '0;
      remain_q <= '0;
      psn_q <= '0;
      first_psn_q <= '0;
      skip_psn_q <= '0;
      first_pkt_q <= 1'b0;
      pkt_len_q <= '0;
      need_q <= '0;
      cur_sge_q <= '0;
      cur_off_q <= '0;
      nchunk_q <= '0;
      chunk_addr_q <= '0;
      chunk_len_q <= '0;
      bmr_q <= '0;
      upd_q <= '0;
      upd_idx_q <= '0;
      for (int i = 0; i < 4; i++) begin
        sge_bus_q[i] <= '0;
        sge_len_q[i] <= '0;
      end
    end else begin
      unique case (st_q)
        StIdle: begin
          if (wqe_valid_i) begin
            {ferr_q, flush_q, qpn_q, idx_q} <= wqe_i[WqeBits +: 42];
            wepoch_q <= wqe_epoch_i;
            st_q <= StDecode;
          end
        end
        StDecode: begin
          sge_i_q <= '0;
          total_q <= '0;
          status_q <= rnic_pkg::WcSuccess;
          resend_q <= (idx_q != new_idx_q[q]);
          skip_psn_q <= (idx_q != new_idx_q[q]) ? skip_q[q] : sq_psn_q[q];
          repl_q <= 1'b0;
          if ((ctx.state == rnic_pkg::QpsReset) || stale) begin
            st_q <= StIdle;     // fetched before the QP was reset or rewound
          end else if (flush_q || stopped_q[q] || (ctx.state == rnic_pkg::QpsErr)) begin
            // A WQE sent before gets a flush record in place of its record
            // (which waits for an ACK that will not come). One whose record
            // is gone has completed already; an error or flush record stays
            // (its status is the WQE's completion).
            flush_q <= 1'b1;
            resend_q <= 1'b0;
            repl_q <= (idx_q != new_idx_q[q]);
            st_q <= ((idx_q != new_idx_q[q]) && !rec_ok) ? StIdle : StInfl;
          end else if ((idx_q != new_idx_q[q]) && !rec_ok) begin
            st_q <= StIdle;     // sent again, but it has completed meanwhile
          end else if (ferr_q || !op_ok || !type_ok || (w_ds < first_seg) ||
                       (!w_inline && (nsge_w > 8'd4)) || (w_inline && !i_ok) ||
                       (op_resp && (ctx.max_rd_atomic == 4'd0)) ||
                       (op_atomic && (nsge_w != 8'd1))) begin
            status_q <= rnic_pkg::WcLocQpOpErr;
            st_q <= (idx_q != new_idx_q[q]) ? StIdle : StInfl;
          end else if ((idx_q == new_idx_q[q]) && rd_block) begin
            // wait for a credit (the completer retires READs/atomics)
          end else if (op_local) begin
            st_q <= (idx_q != new_idx_q[q]) ? StIdle : StMw0;
          end else if (w_inline) begin
            // One chunk: the bytes after the inline header, in the ring.
            nsge_q <= 3'd1;
            sge_i_q <= 3'd1;
            sge_bus_q[0] <= wqe_iova + {52'd0, first_seg, 4'd0} + 64'd4;
            sge_len_q[0] <= {1'b0, i_hdr[30:0]};
            total_q <= {1'b0, i_hdr[30:0]};
            // (under 2^31: only UD's one packet can be too long)
            if (qp_ud && ({1'b0, i_hdr[30:0]} > {19'd0, mtu})) status_q <= rnic_pkg::WcLocLenErr;
            st_q <= StInfl;
          end else if (nsge_w == 8'd0) begin
            nsge_q <= 3'd0;     // no SGE: nothing to check
            st_q <= StInfl;
          end else if (nsge_w == 8'd1) begin
            // The only SGE: StCheck's step in this cycle.
            nsge_q <= 3'd1;
            sge_i_q <= 3'd1;
            sge_bus_q[0] <= mr_bus;
            sge_len_q[0] <= seg_len;
            total_q <= seg_len;
            status_q <= chk_status;
            st_q <= StInfl;
          end else begin
            nsge_q <= nsge_w[2:0];
            st_q <= StCheck;
          end
        end
        // Two to four SGEs, one per cycle (none or one: StDecode checks).
        StCheck: begin
          sge_bus_q[sge_i_q[1:0]] <= mr_bus;
          sge_len_q[sge_i_q[1:0]] <= seg_len;
          total_q <= chk_sum;
          sge_i_q <= sge_i_q + 3'd1;
          // An SGE that fails ends the check; the last one also does the
          // message's length checks.
          status_q <= chk_status;
          if ((chk_status != rnic_pkg::WcSuccess) || chk_last) st_q <= StInfl;
        end
        // LOCAL_INV: the window becomes invalid. BIND_MW: read the MR,
        // then the window, then write the bound window.
        StMw0: begin
          if (op_linv) begin
            upd_q <= mrv;
            upd_q.valid <= 1'b0;
            upd_idx_q <= w_imm[31:8];
            if (linv_ok) st_q <= StMwWr;
            else begin
              status_q <= rnic_pkg::WcLocProtErr;
              st_q <= StInfl;
            end
          end else begin
            bmr_q <= mrv;
            st_q <= StMw1;
          end
        end
        StMw1: begin
          upd_q <= mrv;
          upd_q.valid <= 1'b1;
          upd_q.key <= b_rkey[7:0];
          upd_q.access <= b_acc[4:0] & 5'b01110;
          upd_q.va <= b_va;
          upd_q.len <= b_len;
          upd_q.iova <= bmr_q.iova + (b_va - bmr_q.va);
          upd_q.mw_qpn <= qpn_q;
          upd_idx_q <= b_rkey[31:8];
          if (bind_mr_ok && bind_mw_ok) st_q <= StMwWr;
          else begin
            status_q <= rnic_pkg::WcMwBindErr;
            st_q <= StInfl;
          end
        end
        StMwWr: begin
          if (mr_upd_ready_i) st_q <= StInfl;
        end
        StInfl: begin
          if (stale) begin
            st_q <= StIdle;     // its QP was reset or rewound meanwhile
          end else if (repl_q && !rec_ok) begin
            st_q <= StIdle;     // its record was retired meanwhile
          end else if (err_now && !flush_q && !resend_q) begin
            flush_q <= 1'b1;    // its flush record in the next cycle
          end else if (resend_q && (flush_q || local_err || err_now)) begin
            // Sent before, now refused (its MR went away): the record in
            // the ring stays; the ACK timeout ends the QP. In ERR the flush
            // takes the record.
            st_q <= StIdle;
          end else if (resend_q || infl_ready_i) begin
            if (flush_q || local_err || op_local) begin
              st_q <= StIdle;
            end else begin
              psn_q <= base_psn;
              first_psn_q <= base_psn;
              remain_q <= total_q;
              first_pkt_q <= 1'b1;
              cur_sge_q <= '0;
              cur_off_q <= '0;
              nchunk_q <= '0;
              pkt_len_q <= first_len;
              need_q <= op_resp ? 13'd0 : first_len;
              // A skip that lies before this message does not apply.
              if (!rnic_pkg::psn_ge(skip_psn_q, base_psn)) skip_psn_q <= base_psn;
              st_q <= StChunk;
              if (first_one) begin
                // What StChunk would do in one step: the packet's only
                // chunk from SGE 0, or none.
                if (!op_resp && (first_len != 13'd0)) begin
                  chunk_addr_q[63:0] <= sge_bus_q[0];
                  chunk_len_q[12:0] <= first_len;
                  nchunk_q <= 3'd1;
                  need_q <= '0;
                  cur_off_q <= {19'd0, first_len};
                end
                st_q <= StSend;
              end
            end
          end
        end
        // A packet without payload never comes here (StInfl sends it).
        StChunk: begin
          if (stale || err_now) begin
            st_q <= StIdle;
          end else if (sge_left == 32'd0) begin
            cur_sge_q <= cur_sge_q + 3'd1;
            cur_off_q <= '0;
          end else begin
            chunk_addr_q[nchunk_q[1:0]*64 +: 64] <= sge_bus_q[cur_sge_q[1:0]] + {32'd0, cur_off_q};
            chunk_len_q[nchunk_q[1:0]*13 +: 13] <= take[12:0];
            nchunk_q <= nchunk_q + 3'd1;
            need_q <= need_q - take[12:0];
            cur_off_q <= cur_off_q + take;
            // The chunk that completes the packet: send it next.
            if (take[12:0] == need_q) st_q <= StSend;
          end
        end
        StSend: begin
          if (send_done) begin
            first_pkt_q <= 1'b0;
            nchunk_q <= '0;
            psn_q <= psn_q + 24'd1;
            if (wqe_end) begin
              st_q <= StIdle;
              if (wqe_valid_i) begin
                {ferr_q, flush_q, qpn_q, idx_q} <= wqe_i[WqeBits +: 42];
                wepoch_q <= wqe_epoch_i;
                st_q <= StDecode;
              end
            end else begin
              remain_q <= remain_q - {19'd0, mtu};
              pkt_len_q <= ((remain_q - {19'd0, mtu}) < {19'd0, mtu}) ?
                           13'(remain_q - {19'd0, mtu}) : mtu;
              need_q <= ((remain_q - {19'd0, mtu}) < {19'd0, mtu}) ?
                        13'(remain_q - {19'd0, mtu}) : mtu;
              st_q <= StChunk;
            end
          end
        end
        default: st_q <= StIdle;
      endcase
    end
  end

  // Per-QP state. A rewind (not a resume) starts a new epoch and points the
  // resend sequence at the rewound WQE.
  logic rw_take;
  logic [QpW-1:0] rq;
  assign rw_take = rewind_take_i && !rewind_resume_i && (rw.qpn < 24'(NQp));
  assign rq = rw.qpn[QpW-1:0];

  logic infl_take, new_resp;
  assign infl_take = (st_q == StInfl) && infl_valid_o && infl_ready_i;
  assign new_resp = infl_take && !flush_q && !local_err && op_resp;

  always_ff @(posedge clk_i) begin
    if (qp_wr_i && (qp_wr_idx_i < 24'(NQp))) begin
      if (qp_wr_flags_i[rnic_pkg::QpFlagSetSqPsn]) sq_psn_q[qp_wr_idx_i[QpW-1:0]] <= qp_wr_sq_psn_i;
      if (qp_wr_flags_i[rnic_pkg::QpFlagResetSq]) begin
        // A new epoch: WQEs fetched before the reset are dropped.
        epoch_q[qp_wr_idx_i[QpW-1:0]] <= epoch_q[qp_wr_idx_i[QpW-1:0]] + 8'd1;
        stopped_q[qp_wr_idx_i[QpW-1:0]] <= 1'b0;
        new_idx_q[qp_wr_idx_i[QpW-1:0]] <= '0;
        rd_out_q[qp_wr_idx_i[QpW-1:0]] <= '0;
      end
      // SQE -> RTS: WQEs posted from now on are sent again.
      if (qp_wr_flags_i[rnic_pkg::QpFlagResumeSq]) stopped_q[qp_wr_idx_i[QpW-1:0]] <= 1'b0;
    end
    if (infl_take) begin
      if (flush_q || local_err) begin
        if (local_err) stopped_q[q] <= 1'b1;
      end else if (!op_local) begin
        // LOCAL_INV and BIND_MW send no packet: they take no PSN.
        sq_psn_q[q] <= sq_psn_q[q] + npkts[23:0];
      end
      if (idx_q == new_idx_q[q]) new_idx_q[q] <= new_idx_q[q] + 16'd1;
    end
    if (rw_take) begin
      epoch_q[rq] <= epoch_q[rq] + 8'd1;
      skip_q[rq] <= rw.restart_psn;
    end
    // Credits: taken when a new READ/atomic is recorded, returned on retire.
    // A return that finds 0 is dropped: the completer's strobe comes a
    // cycle after its retire, which an SQ reset of the QP may have cleared.
    if (rd_done_i && (rd_done_qpn_i < 24'(NQp))) begin
      if (new_resp && (rd_done_qpn_i[QpW-1:0] == q)) begin
        // both at once: unchanged
      end else begin
        rd_out_q[rd_done_qpn_i[QpW-1:0]] <= rd_out_q[rd_done_qpn_i[QpW-1:0]] -
            {3'd0, (rd_out_q[rd_done_qpn_i[QpW-1:0]] != 4'd0)};
        if (new_resp) rd_out_q[q] <= rd_out_q[q] + 4'd1;
      end
    end else if (new_resp) begin
      rd_out_q[q] <= rd_out_q[q] + 4'd1;
    end
  end
  logic unused;
  assign unused = ^{query_idx_i[23:QpW], npkts[31:24], rw.idx, rw.hold, rw.first_psn, w_av_a[127:96], w_av_a[31:24], w_av_b[127:48]};

`ifdef RNIC_ASSERT
  /* verilator coverage_off */
  // Simulation check (the model's builds): READ/atomic credits within
  // bounds - one is taken only under the QP's max_rd_atomic (at most 15).
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
    end else if (new_resp) begin
      assert (rd_out_q[q] != 4'hf);
    end
  end
  /* verilator coverage_on */
`endif

`ifdef RNIC_COVER
  // Coverage builds: each state and each change of state is a cover point.
  rnic_fsm_cover #(
    .StW($bits(state_e)),
    .NStates(int'(StMwWr) + 1)
  ) u_st_q_cover (
    .clk_i,
    .rst_ni,
    .st_i(st_q)
  );
`endif
endmodule
