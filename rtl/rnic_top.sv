// rnic_top: the RNIC. See docs/architecture.md for the blocks and docs/interfaces.md
// for the ports.
module rnic_top #(
  parameter int unsigned DataW = 256,
  parameter int unsigned NQp = 1024,
  parameter int unsigned NCq = 1024,
  parameter int unsigned NMr = 1024,
  parameter int unsigned MaxRdOut = 32,
  // Send WQEs of a QP between fetch and completion (the completer's
  // in-flight ring per QP; a power of 2)
  parameter int unsigned InflDepth = 8,
  // The TX builder's frame ring (bytes, a power of two; it holds three
  // frames of 4 KiB payload) and the frames in it at once (the frames in
  // flight that set the small-message rate; docs/performance.md)
  parameter int unsigned TxRingBytes = 16384,
  parameter int unsigned TxFrames = 11,
  // WQEs read ahead of the SENDs and READ responses that scatter into them
  // (rnic_rwqe_cache entries; 0: none, else a power of 2)
  parameter int unsigned RwqeCache = 64,
  // Atomics the responder executes at once (rnic_atomic_unit; a power of 2)
  parameter int unsigned AtomicDepth = 16,
  localparam int unsigned Bytes = DataW / 8
) (
  input  logic                clk_i,
  input  logic                rst_ni,
  // MMIO slave
  input  logic                mmio_valid_i,
  output logic                mmio_ready_o,
  input  logic                mmio_we_i,
  input  logic [15:0]         mmio_addr_i,
  input  logic [63:0]         mmio_wdata_i,
  output logic                mmio_rvalid_o,
  output logic [63:0]         mmio_rdata_o,
  // DMA read
  output logic                dma_rd_req_valid_o,
  input  logic                dma_rd_req_ready_i,
  output logic [63:0]         dma_rd_req_addr_o,
  output logic [15:0]         dma_rd_req_len_o,
  output logic [7:0]          dma_rd_req_tag_o,
  input  logic                dma_rd_rsp_valid_i,
  output logic                dma_rd_rsp_ready_o,
  input  logic [DataW-1:0]    dma_rd_rsp_data_i,
  input  logic [7:0]          dma_rd_rsp_tag_i,
  input  logic                dma_rd_rsp_last_i,
  input  logic                dma_rd_rsp_err_i,
  // DMA write
  output logic                dma_wr_valid_o,
  input  logic                dma_wr_ready_i,
  output logic [63:0]         dma_wr_addr_o,
  output logic [15:0]         dma_wr_len_o,
  output logic [DataW-1:0]    dma_wr_data_o,
  output logic                dma_wr_last_o,
  // Network
  output logic                tx_valid_o,
  input  logic                tx_ready_i,
  output logic [DataW-1:0]    tx_data_o,
  output logic [Bytes-1:0]    tx_keep_o,
  output logic                tx_last_o,
  input  logic                rx_valid_i,
  output logic                rx_ready_o,
  input  logic [DataW-1:0]    rx_data_i,
  input  logic [Bytes-1:0]    rx_keep_i,
  input  logic                rx_last_i,
  // Interrupt and trace events
  output logic                irq_valid_o,
  output logic [15:0]         irq_cqn_o,
  output logic [4:0]          ev_valid_o,
  output logic [5*24-1:0]     ev_qpn_o,
  output logic [5*16-1:0]     ev_idx_o,
  // Payload placement (trace): bit 0 a job starts, bit 1 its last write
  // beat was taken; QPN, PSN, first/last-of-message and response bits of
  // the packet
  output logic [1:0]          ev_place_o,
  output logic [23:0]         ev_place_qpn_o,
  output logic [23:0]         ev_place_psn_o,
  output logic [2:0]          ev_place_pos_o,
  // Fast-forward (docs/time-model.md). quiet_o: no frame in the parser or
  // the builder, every queue empty, every engine idle, no DMA read
  // outstanding, no MMIO answer or interrupt going out and no sweep due;
  // with idle inputs only free-running counters move then. next_due_o: the
  // edges from this one on (saturated) before the design could act by
  // itself (a transport timer expiry). With skip_i this edge stands for
  // skip_cycles_i edges: the model asks for it only while quiet_o, with
  // skip_cycles_i <= next_due_o and every input idle.
  output logic                quiet_o,
  output logic [31:0]         next_due_o,
  input  logic                skip_i,
  input  logic [31:0]         skip_cycles_i
);
  localparam int unsigned QpW = rnic_pkg::QpCfgW;

  // ---------------------------------------------------------------------------
  // Host interface: registers, commands, doorbells
  // ---------------------------------------------------------------------------
  logic [47:0] port_mac;
  logic [31:0] port_ip;
  logic qp_wr, cq_wr, mr_wr, srq_wr;
  logic [23:0] cmd_idx;
  logic [8*64-1:0] cmd_args;
  logic [23:0] query_idx;
  logic [QpW-1:0] query_ctx;
  logic sq_db_valid, sq_db_ready, rq_db_valid, rq_db_ready, cq_db_valid;
  logic [63:0] db_data;
  logic [3:0] db_bf;
  logic [63:0] cnt_tx, cnt_rx, cnt_drop, cnt_rd_err;
  /* verilator lint_off UNUSEDSIGNAL */  // a context view: each block reads its own fields
  rnic_pkg::qp_cfg_t qcfg_q;
  // ibv_query_qp reports the live PSNs: the requester's next PSN and the
  // responder's expected PSN (loaded from the context at RTS/RTR).
  logic [23:0] query_sq_psn, query_rq_psn;
  logic query_draining;   // SQD: WQEs fetched before have not all completed
  /* verilator lint_on UNUSEDSIGNAL */
  assign qcfg_q = query_ctx;

  // Quiet, for a QP_WRITE that resets a queue (rnic_mmio): nothing the QP
  // did before the reset still reaches host memory - no DMA read outstanding
  // or about to be issued (WQE fetch, the TX builder's payload reads, inline
  // data in the SQ ring), the requester and the TX intake idle with nothing
  // offered, the receive engine idle with no CQE waiting (placement idle, so
  // a waiting CQE shows as cqe_valid) and the CQE writer empty. Then the
  // driver may unmap the QP's rings, and the QP's CQEs are all in host
  // memory for the library's CQ clean.
  logic cmd_quiet, cqw_idle, cqw_dbrec_idle, txb_intake_idle;
  // Fast-forward: each block's own quiet
  logic mmio_quiet, fetch_quiet, req_quiet, txb_quiet, parser_quiet, eng_quiet, rr_quiet;
  logic cqw_quiet, wrmux_quiet;
  logic [8:0] rd_out_q;   // DMA reads accepted whose last beat has not returned
  // The receive engines' moves of a QP to ERR/SQE (0 the responder's, 1
  // the completer's): writes of the QP table that a command's context write
  // must not meet (the mmio holds it back while either is high)
  logic [1:0] qp_err, qp_err_sqe;
  logic [47:0] qp_err_qpn;

  rnic_mmio #(
    .DataW(DataW), .NQp(NQp), .NCq(NCq), .NMr(NMr), .MaxRdOut(MaxRdOut)
  ) u_mmio (
    .clk_i, .rst_ni,
    .mmio_valid_i, .mmio_ready_o, .mmio_we_i, .mmio_addr_i, .mmio_wdata_i,
    .mmio_rvalid_o, .mmio_rdata_o,
    .port_mac_o(port_mac), .port_ip_o(port_ip),
    .qp_wr_o(qp_wr), .cq_wr_o(cq_wr), .mr_wr_o(mr_wr), .srq_wr_o(srq_wr),
    .cmd_idx_o(cmd_idx), .cmd_args_o(cmd_args),
    .qp_query_idx_o(query_idx), .qp_query_state_i({query_draining, qcfg_q.state}),
    .qp_query_psn_i({query_rq_psn, query_sq_psn}),
    .sq_db_valid_o(sq_db_valid), .sq_db_ready_i(sq_db_ready),
    .rq_db_valid_o(rq_db_valid), .rq_db_ready_i(rq_db_ready),
    .cq_db_valid_o(cq_db_valid), .db_data_o(db_data), .db_bf_o(db_bf),
    .cnt_tx_pkts_i(cnt_tx), .cnt_rx_pkts_i(cnt_rx), .cnt_rx_drop_i(cnt_drop),
    .cnt_dma_rd_err_i(cnt_rd_err), .qp_err_i(|qp_err), .quiet_i(cmd_quiet), .cq_quiet_i(cqw_dbrec_idle),
    .quiet_o(mmio_quiet)
  );

  // Fields of the command arguments every engine snoops
  logic [7:0] qp_wr_flags;
  logic [2:0] qp_wr_state;
  logic [23:0] qp_wr_sq_psn, qp_wr_rq_psn;
  assign qp_wr_state = cmd_args[2:0];
  assign qp_wr_flags = cmd_args[64 + 24 +: 8];
  assign qp_wr_sq_psn = cmd_args[5*64 + 16 +: 24];
  assign qp_wr_rq_psn = cmd_args[5*64 + 40 +: 24];

  // SQ doorbells queue up so MMIO is not stalled by a busy scheduler; the
  // BlueFlame WQE words go through the same queue, in order with them.
  logic sqdb_v, sqdb_r;
  logic [63:0] sqdb_d;
  logic [3:0] sqdb_bf;
  logic [2:0] sqdb_cnt;
  rnic_fifo #(.Width(68), .Depth(4)) u_sq_db_q (
    .clk_i, .rst_ni,
    .in_valid_i(sq_db_valid), .in_ready_o(sq_db_ready), .in_data_i({db_bf, db_data}),
    .out_valid_o(sqdb_v), .out_ready_i(sqdb_r), .out_data_o({sqdb_bf, sqdb_d}),
    .count_o(sqdb_cnt)
  );
  logic rqdb_v, rqdb_r;
  logic [63:0] rqdb_d;
  logic [2:0] rqdb_cnt;
  rnic_fifo #(.Width(64), .Depth(4)) u_rq_db_q (
    .clk_i, .rst_ni,
    .in_valid_i(rq_db_valid), .in_ready_o(rq_db_ready), .in_data_i(db_data),
    .out_valid_o(rqdb_v), .out_ready_i(rqdb_r), .out_data_o(rqdb_d), .count_o(rqdb_cnt)
  );

  // ---------------------------------------------------------------------------
  // Contexts
  // ---------------------------------------------------------------------------
  logic [23:0] fetch_ctx_idx, rx_ctx_idx, tx_ctx_idx, rr_ctx_idx, req_ctx_idx, cpl_ctx_idx;
  logic [QpW-1:0] fetch_ctx, rx_ctx, tx_ctx, rr_ctx, req_ctx, cpl_ctx;
  logic [15:0] cq_ctx_idx;
  logic [rnic_pkg::CqCfgW-1:0] cq_ctx;
  logic [23:0] req_mr_idx, rx_mr_idx, cpl_mr_idx;
  logic [rnic_pkg::MrCfgW-1:0] req_mr, rx_mr, cpl_mr;
  logic [15:0] rx_srq_idx;
  logic [rnic_pkg::SrqCfgW-1:0] rx_srq;
  // MR-table updates: 0 the engine (SEND_WITH_INV), 1 the requester (bind, LOCAL_INV)
  logic [1:0] mr_upd_valid, mr_upd_ready;
  logic [47:0] mr_upd_idx;
  logic [2*rnic_pkg::MrCfgW-1:0] mr_upd;

  rnic_ctx_tables #(.NQp(NQp), .NCq(NCq), .NMr(NMr)) u_ctx (
    .clk_i, .rst_ni,
    .qp_wr_i(qp_wr), .cq_wr_i(cq_wr), .mr_wr_i(mr_wr), .srq_wr_i(srq_wr), .cmd_idx_i(cmd_idx),
    .cmd_args_i(cmd_args), .qp_err_i(qp_err), .qp_err_sqe_i(qp_err_sqe),
    .qp_err_qpn_i(qp_err_qpn),
    .qp_a_idx_i(fetch_ctx_idx), .qp_a_o(fetch_ctx),
    .qp_b_idx_i(rx_ctx_idx), .qp_b_o(rx_ctx),
    .qp_c_idx_i(tx_ctx_idx), .qp_c_o(tx_ctx),
    .qp_d_idx_i(rr_ctx_idx), .qp_d_o(rr_ctx),
    .qp_e_idx_i(req_ctx_idx), .qp_e_o(req_ctx),
    .qp_f_idx_i(query_idx), .qp_f_o(query_ctx),
    .qp_g_idx_i(cpl_ctx_idx), .qp_g_o(cpl_ctx),
    .cq_idx_i(cq_ctx_idx), .cq_o(cq_ctx),
    .mr_a_idx_i(req_mr_idx), .mr_a_o(req_mr),
    .mr_b_idx_i(rx_mr_idx), .mr_b_o(rx_mr),
    .mr_c_idx_i(cpl_mr_idx), .mr_c_o(cpl_mr),
    .srq_idx_i(rx_srq_idx), .srq_o(rx_srq),
    .mr_upd_valid_i(mr_upd_valid), .mr_upd_ready_o(mr_upd_ready), .mr_upd_idx_i(mr_upd_idx),
    .mr_upd_i(mr_upd)
  );

  // ---------------------------------------------------------------------------
  // DMA read sharing: 0 WQE fetch, 1 TX payload, 2 the responder's WQE
  // reads, 3 CQ doorbell records, 4 WQEs read ahead (rnic_rwqe_cache), 5 the
  // atomic unit, 6 the completer's WQE reads
  // ---------------------------------------------------------------------------
  logic [6:0] rdq_valid, rdq_ready, rdr_valid, rdr_ready;
  logic [7*64-1:0] rdq_addr;
  logic [7*16-1:0] rdq_len;

  rnic_dma_rd_mux #(.DataW(DataW), .N(7)) u_dma_rd_mux (
    .clk_i, .rst_ni,
    .req_valid_i(rdq_valid), .req_ready_o(rdq_ready), .req_addr_i(rdq_addr),
    .req_len_i(rdq_len), .rsp_valid_o(rdr_valid), .rsp_ready_i(rdr_ready),
    .dma_req_valid_o(dma_rd_req_valid_o), .dma_req_ready_i(dma_rd_req_ready_i),
    .dma_req_addr_o(dma_rd_req_addr_o), .dma_req_len_o(dma_rd_req_len_o),
    .dma_req_tag_o(dma_rd_req_tag_o),
    .dma_rsp_valid_i(dma_rd_rsp_valid_i), .dma_rsp_ready_o(dma_rd_rsp_ready_o),
    .dma_rsp_tag_i(dma_rd_rsp_tag_i)
  );

  // ---------------------------------------------------------------------------
  // Send queue: doorbell -> WQE fetch -> requester
  // ---------------------------------------------------------------------------
  logic done_valid, done_ready;
  logic [23:0] done_qpn;
  logic [15:0] done_ci;
  logic wqe_valid, wqe_ready;
  logic [rnic_pkg::WqeBits+42-1:0] wqe;
  logic [7:0] wqe_epoch;
  logic ev_fetch;
  logic [23:0] ev_fetch_qpn;
  logic [15:0] ev_fetch_idx;

  // Rewinds from the completer go to the fetcher and the requester at once.
  logic rewind_valid, rewind_ready, rewind_resume, rewind_take;
  logic [rnic_pkg::RewindW-1:0] rewind;
  /* verilator lint_off UNUSEDSIGNAL */  // a view: the fetcher takes some fields
  rnic_pkg::rewind_t rewind_s;
  /* verilator lint_on UNUSEDSIGNAL */
  assign rewind_s = rewind;
  assign rewind_take = rewind_valid && rewind_ready;
  logic rd_done;
  logic [23:0] rd_done_qpn;
  logic [23:0] ring_rd_qpn;
  logic [15:0] ring_rd_idx;
  logic ring_rd_v;
  logic [rnic_pkg::InflW-1:0] ring_rd;

  logic drained_valid, drained_ready;
  logic [23:0] drained_qpn;
  rnic_sq_fetch #(.DataW(DataW), .NQp(NQp), .InflDepth(InflDepth)) u_sq_fetch (
    .clk_i, .rst_ni,
    .db_valid_i(sqdb_v), .db_ready_o(sqdb_r), .db_data_i(sqdb_d), .db_bf_i(sqdb_bf),
    .done_valid_i(done_valid), .done_ready_o(done_ready), .done_qpn_i(done_qpn),
    .done_ci_i(done_ci),
    .rewind_valid_i(rewind_valid), .rewind_ready_o(rewind_ready),
    .rewind_qpn_i(rewind_s.qpn), .rewind_idx_i(rewind_s.idx), .rewind_hold_i(rewind_s.hold),
    .rewind_resume_i(rewind_resume),
    .qp_wr_i(qp_wr), .qp_wr_idx_i(cmd_idx), .qp_wr_flags_i(qp_wr_flags),
    .ctx_idx_o(fetch_ctx_idx), .ctx_i(fetch_ctx),
    .rd_req_valid_o(rdq_valid[0]), .rd_req_ready_i(rdq_ready[0]),
    .rd_req_addr_o(rdq_addr[0 +: 64]), .rd_req_len_o(rdq_len[0 +: 16]),
    .rd_rsp_valid_i(rdr_valid[0]), .rd_rsp_ready_o(rdr_ready[0]),
    .rd_rsp_data_i(dma_rd_rsp_data_i), .rd_rsp_last_i(dma_rd_rsp_last_i),
    .rd_rsp_err_i(dma_rd_rsp_err_i),
    .wqe_valid_o(wqe_valid), .wqe_ready_i(wqe_ready), .wqe_o(wqe), .wqe_epoch_o(wqe_epoch),
    .drained_valid_o(drained_valid), .drained_ready_i(drained_ready),
    .drained_qpn_o(drained_qpn),
    .query_idx_i(query_idx), .query_draining_o(query_draining),
    .ev_valid_o(ev_fetch), .ev_qpn_o(ev_fetch_qpn), .ev_idx_o(ev_fetch_idx),
    .quiet_o(fetch_quiet), .skip_i, .skip_cycles_i
  );

  logic infl_valid, infl_ready, eng_idle;
  logic [rnic_pkg::InflW-1:0] infl;
  logic [1:0] txa_valid, txa_ready;
  logic [2*rnic_pkg::TxdW-1:0] txa_d;

  rnic_requester #(.NQp(NQp), .AckEvery((InflDepth >= 8) ? InflDepth / 4 : 1)) u_requester (
    .clk_i, .rst_ni,
    .wqe_valid_i(wqe_valid), .wqe_ready_o(wqe_ready), .wqe_i(wqe), .wqe_epoch_i(wqe_epoch),
    .qp_wr_i(qp_wr), .qp_wr_idx_i(cmd_idx), .qp_wr_flags_i(qp_wr_flags),
    .qp_wr_sq_psn_i(qp_wr_sq_psn),
    .rewind_take_i(rewind_take), .rewind_i(rewind), .rewind_resume_i(rewind_resume),
    .rd_done_i(rd_done), .rd_done_qpn_i(rd_done_qpn),
    .ring_rd_qpn_o(ring_rd_qpn), .ring_rd_idx_o(ring_rd_idx), .ring_rd_v_i(ring_rd_v),
    .ring_rd_i(ring_rd),
    .ctx_idx_o(req_ctx_idx), .ctx_i(req_ctx),
    .mr_idx_o(req_mr_idx), .mr_i(req_mr),
    .infl_valid_o(infl_valid), .infl_ready_i(infl_ready), .infl_o(infl),
    .query_idx_i(query_idx), .query_sq_psn_o(query_sq_psn),
    .txd_valid_o(txa_valid[0]), .txd_ready_i(txa_ready[0]),
    .txd_o(txa_d[0 +: rnic_pkg::TxdW]),
    .mr_upd_valid_o(mr_upd_valid[1]), .mr_upd_ready_i(mr_upd_ready[1]),
    .mr_upd_idx_o(mr_upd_idx[24 +: 24]), .mr_upd_o(mr_upd[rnic_pkg::MrCfgW +: rnic_pkg::MrCfgW]),
    .quiet_o(req_quiet)
  );

  // ---------------------------------------------------------------------------
  // TX: arbitration, frame build, payload DMA, ICRC
  // ---------------------------------------------------------------------------
  logic txd_valid, txd_ready;
  logic [rnic_pkg::TxdW-1:0] txd;
  rnic_rr_arb #(.Width(rnic_pkg::TxdW)) u_tx_arb (
    .clk_i, .rst_ni,
    .valid_i(txa_valid), .ready_o(txa_ready), .data_i(txa_d),
    .valid_o(txd_valid), .ready_i(txd_ready), .data_o(txd)
  );

  logic ev_tx_first, ev_tx_last, noack_valid, noack_err, noack_ready;
  logic [23:0] ev_tx_qpn;
  logic [15:0] ev_tx_idx;
  rnic_tx_builder #(
    .DataW(DataW), .RingBytes(TxRingBytes), .NFrames(TxFrames)
  ) u_tx_builder (
    .clk_i, .rst_ni,
    .port_mac_i(port_mac), .port_ip_i(port_ip),
    .txd_valid_i(txd_valid), .txd_ready_o(txd_ready), .txd_i(txd),
    .ctx_idx_o(tx_ctx_idx), .ctx_i(tx_ctx),
    .rd_req_valid_o(rdq_valid[1]), .rd_req_ready_i(rdq_ready[1]),
    .rd_req_addr_o(rdq_addr[64 +: 64]), .rd_req_len_o(rdq_len[16 +: 16]),
    .rd_rsp_valid_i(rdr_valid[1]), .rd_rsp_ready_o(rdr_ready[1]),
    .rd_rsp_data_i(dma_rd_rsp_data_i), .rd_rsp_last_i(dma_rd_rsp_last_i),
    .rd_rsp_err_i(dma_rd_rsp_err_i),
    .tx_valid_o, .tx_ready_i, .tx_data_o, .tx_keep_o, .tx_last_o,
    .ev_first_o(ev_tx_first), .ev_last_o(ev_tx_last), .ev_qpn_o(ev_tx_qpn),
    .ev_idx_o(ev_tx_idx), .noack_valid_o(noack_valid), .noack_err_o(noack_err),
    .noack_ready_i(noack_ready),
    .cnt_pkts_o(cnt_tx), .cnt_rd_err_o(cnt_rd_err), .intake_idle_o(txb_intake_idle),
    .quiet_o(txb_quiet)
  );

  // ---------------------------------------------------------------------------
  // RX: parse, transport engine, placement
  // ---------------------------------------------------------------------------
  logic pkt_valid, pkt_ready;
  logic [rnic_pkg::RxDescW+8+rnic_pkg::RxSlotW-1:0] pkt;
  logic rel, cpl_rel, pl_rel;
  logic [rnic_pkg::RxSlotW-1:0] prd_slot, rel_slot, cpl_rel_slot, pl_rel_slot;
  logic [15:0] prd_word;
  logic [2*DataW-1:0] prd_data;

  rnic_rx_parser #(.DataW(DataW)) u_rx_parser (
    .clk_i, .rst_ni, .port_ip_i(port_ip),
    .rx_valid_i, .rx_ready_o, .rx_data_i, .rx_keep_i, .rx_last_i,
    .pkt_valid_o(pkt_valid), .pkt_ready_i(pkt_ready), .pkt_o(pkt),
    .rd_slot_i(prd_slot), .rd_word_i(prd_word), .rd_data_o(prd_data),
    .release_i(rel), .release_slot_i(rel_slot),
    .cpl_release_i(cpl_rel), .cpl_release_slot_i(cpl_rel_slot),
    .place_release_i(pl_rel), .place_release_slot_i(pl_rel_slot),
    .cnt_rx_pkts_o(cnt_rx), .cnt_rx_drop_o(cnt_drop), .quiet_o(parser_quiet)
  );

  logic pl_start, pl_busy;
  logic [rnic_pkg::RxSlotW-1:0] pl_slot;
  logic [15:0] pl_base;
  logic [2:0] pl_nseg;
  logic [64*rnic_pkg::MaxSeg-1:0] pl_addr;
  logic [32*rnic_pkg::MaxSeg-1:0] pl_len;
  logic [16*rnic_pkg::MaxSeg-1:0] pl_poff;
  logic cqe_valid, cqe_ready;
  logic [rnic_pkg::CqeReqW-1:0] cqe;
  // The engine's two CQE streams (0: the completer's send CQEs, 1: the
  // responder's receive CQEs) into the CQE writer (u_cqe_arb)
  logic [1:0] ecqe_valid, ecqe_ready;
  logic [2*rnic_pkg::CqeReqW-1:0] ecqe;
  // Responder jobs: the engine's through the atomic unit (which merges its
  // answers) to the response generator
  logic eng_job_valid, eng_job_ready, job_valid, job_ready;
  logic [rnic_pkg::RspJobW-1:0] eng_job, job;
  logic at_valid, at_ready, at_busy, at_err_valid, at_err_ready, at_quiet;
  logic [rnic_pkg::AtOpW-1:0] at_op;
  logic [23:0] at_busy_qpn, at_err_qpn;
  logic rsp_done;
  logic [23:0] rsp_done_qpn;
  logic aev_valid, aev_ready, eng_aev_valid, eng_aev_ready;
  logic [31:0] aev, eng_aev;
  // DMA write sharing: 0 placement, 1 CQE writer, 2 atomic ACK values (the
  // completer), 3 atomic results (the atomic unit)
  logic [3:0] wr_valid, wr_ready, wr_last;
  logic [255:0] wr_addr;
  logic [63:0] wr_len;
  logic [4*DataW-1:0] wr_data;

  // WQEs read ahead: hinted by the engine, looked up by its receives and READ
  // responses.
  logic rwc_hint_valid, rwc_hint_evict, rwc_room, rwc_lk_valid, rwc_lk_hit, rwc_lk_pend, rwc_lk_err, rwc_inv;
  logic rwc_inv_b;
  logic [rnic_pkg::RwqeKeyW-1:0] rwc_hint_key, rwc_lk_key, rwc_inv_key, rwc_inv_b_key;
  logic [63:0] rwc_hint_addr;
  logic [15:0] rwc_hint_len;
  logic [rnic_pkg::RwqeBits-1:0] rwc_lk_data;
  if (RwqeCache > 0) begin : g_rwqe_cache
    // A QP's RQ or SQ reset (creation, RESET) or an SRQ's creation drops
    // the entries of those queues.
    logic rwc_clr_qp, rwc_clr_srq;
    assign rwc_clr_qp = qp_wr && (qp_wr_flags[rnic_pkg::QpFlagResetRq] ||
                                  qp_wr_flags[rnic_pkg::QpFlagResetSq]);
    assign rwc_clr_srq = srq_wr && cmd_args[9];
    rnic_rwqe_cache #(.DataW(DataW), .Entries(RwqeCache)) u_rwqe_cache (
      .clk_i, .rst_ni,
      .hint_valid_i(rwc_hint_valid), .hint_evict_i(rwc_hint_evict), .hint_key_i(rwc_hint_key),
      .hint_addr_i(rwc_hint_addr),
      .hint_len_i(rwc_hint_len), .room_o(rwc_room),
      .lk_valid_i(rwc_lk_valid), .lk_key_i(rwc_lk_key), .lk_hit_o(rwc_lk_hit), .lk_pend_o(rwc_lk_pend), .lk_err_o(rwc_lk_err),
      .lk_data_o(rwc_lk_data),
      .inv_i(rwc_inv), .inv_key_i(rwc_inv_key),
      .inv_b_i(rwc_inv_b), .inv_b_key_i(rwc_inv_b_key),
      .clr_qp_i(rwc_clr_qp), .clr_srq_i(rwc_clr_srq), .clr_num_i(cmd_idx),
      .rd_req_valid_o(rdq_valid[4]), .rd_req_ready_i(rdq_ready[4]),
      .rd_req_addr_o(rdq_addr[256 +: 64]), .rd_req_len_o(rdq_len[64 +: 16]),
      .rd_rsp_valid_i(rdr_valid[4]), .rd_rsp_ready_o(rdr_ready[4]),
      .rd_rsp_data_i(dma_rd_rsp_data_i), .rd_rsp_last_i(dma_rd_rsp_last_i),
      .rd_rsp_err_i(dma_rd_rsp_err_i)
    );
  end else begin : g_no_rwqe_cache
    assign rwc_lk_hit = 1'b0;
    assign rwc_room = 1'b0;
    assign rwc_lk_pend = 1'b0;
    assign rwc_lk_err = 1'b0;
    assign rwc_lk_data = '0;
    assign rdq_valid[4] = 1'b0;
    assign rdq_addr[256 +: 64] = '0;
    assign rdq_len[64 +: 16] = '0;
    assign rdr_ready[4] = 1'b1;
    logic unused_rwc;
    assign unused_rwc = ^{rwc_hint_valid, rwc_hint_evict, rwc_hint_key, rwc_hint_addr, rwc_hint_len, rwc_lk_valid,
                          rwc_lk_key, rwc_inv, rwc_inv_key, rwc_inv_b, rwc_inv_b_key, rdq_ready[4],
                          rdr_valid[4]};
  end

  // The receive transport, one module per IBTA role (docs/transport.md):
  // rnic_responder takes the peer's requests and our receive doorbells,
  // rnic_completer the responses to our requests, the requester's in-flight
  // records, the TX builder's reports of unacknowledged frames and runs the
  // ACK timer. They run side by side; what they share is arbitrated here. A
  // move to ERR by one is flushed by the other too (err_in).
  //
  // Packets go by opcode to the role that takes them.
  logic pkt_resp;
  logic [1:0] e_pkt_valid, e_pkt_ready;
  assign pkt_resp = rnic_pkg::op_is_response(pkt[rnic_pkg::RxDescW-25 -: 8]);
  assign e_pkt_valid = {pkt_valid && pkt_resp, pkt_valid && !pkt_resp};
  assign pkt_ready = pkt_resp ? e_pkt_ready[1] : e_pkt_ready[0];

  // Placement: one job at a time. An engine that wants the unit sees it
  // busy while the other starts a job, and while the other wants it too and
  // its own job was the last (round robin).
  logic [1:0] e_pl_want, e_pl_start, e_pl_busy;
  logic pl_last_q;   // the completer started the last job
  assign e_pl_busy[0] = pl_busy || e_pl_start[1] || (e_pl_want[1] && !pl_last_q);
  assign e_pl_busy[1] = pl_busy || e_pl_start[0] || (e_pl_want[0] && pl_last_q);
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) pl_last_q <= 1'b0;
    else if (e_pl_start[1]) pl_last_q <= 1'b1;
    else if (e_pl_start[0]) pl_last_q <= 1'b0;
  end
  logic pl_sel;      // the engine whose job starts now, or started last
  assign pl_sel = e_pl_start[1] || (!e_pl_start[0] && pl_last_q);
  logic [rnic_pkg::RxSlotW-1:0] e_pl_slot [2];
  logic [15:0] e_pl_base [2];
  logic [2:0] e_pl_nseg [2];
  logic [64*rnic_pkg::MaxSeg-1:0] e_pl_addr [2];
  logic [32*rnic_pkg::MaxSeg-1:0] e_pl_len [2];
  logic [16*rnic_pkg::MaxSeg-1:0] e_pl_poff [2];
  logic [23:0] e_ev_qpn [2], e_ev_psn [2];
  logic [2:0] e_ev_pos [2];
  assign pl_start = |e_pl_start;
  assign pl_slot = pl_sel ? e_pl_slot[1] : e_pl_slot[0];
  assign pl_base = pl_sel ? e_pl_base[1] : e_pl_base[0];
  assign pl_nseg = pl_sel ? e_pl_nseg[1] : e_pl_nseg[0];
  assign pl_addr = pl_sel ? e_pl_addr[1] : e_pl_addr[0];
  assign pl_len = pl_sel ? e_pl_len[1] : e_pl_len[0];
  assign pl_poff = pl_sel ? e_pl_poff[1] : e_pl_poff[0];
  assign ev_place_qpn_o = pl_sel ? e_ev_qpn[1] : e_ev_qpn[0];
  assign ev_place_psn_o = pl_sel ? e_ev_psn[1] : e_ev_psn[0];
  assign ev_place_pos_o = pl_sel ? e_ev_pos[1] : e_ev_pos[0];

  // WQE cache lookups: one port, kept by the engine that has it while it
  // goes on looking up (a lookup waits for a read in flight); the other
  // sees its WQE as in flight and waits. Hints: the completer's (a READ's
  // or atomic's WQE, whose response is on its way) first; a hint not taken
  // only costs the read it would have saved. Retirements: a port each.
  logic [1:0] e_lk_valid, e_hint_valid, e_hint_evict;
  logic [rnic_pkg::RwqeKeyW-1:0] e_lk_key [2], e_hint_key [2];
  logic [63:0] e_hint_addr [2];
  logic [15:0] e_hint_len [2];
  logic lk_own_q, lk_sel;   // 1: the completer
  assign lk_sel = e_lk_valid[lk_own_q] ? lk_own_q : e_lk_valid[1];
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) lk_own_q <= 1'b0;
    else if (|e_lk_valid) lk_own_q <= lk_sel;
  end
  assign rwc_lk_valid = |e_lk_valid;
  assign rwc_lk_key = lk_sel ? e_lk_key[1] : e_lk_key[0];
  assign rwc_hint_valid = |e_hint_valid;
  assign rwc_hint_evict = e_hint_valid[1] ? e_hint_evict[1] : e_hint_evict[0];
  assign rwc_hint_key = e_hint_valid[1] ? e_hint_key[1] : e_hint_key[0];
  assign rwc_hint_addr = e_hint_valid[1] ? e_hint_addr[1] : e_hint_addr[0];
  assign rwc_hint_len = e_hint_valid[1] ? e_hint_len[1] : e_hint_len[0];
  logic [1:0] e_lk_hit, e_lk_pend, e_lk_err;
  assign e_lk_hit = {rwc_lk_hit && lk_sel, rwc_lk_hit && !lk_sel};
  assign e_lk_pend = {lk_sel ? rwc_lk_pend : e_lk_valid[1], lk_sel ? e_lk_valid[0] : rwc_lk_pend};
  assign e_lk_err = {rwc_lk_err && lk_sel, rwc_lk_err && !lk_sel};

  // Quiet and idle when both are; the ACK timer is the completer's
  logic [1:0] e_quiet, e_idle;
  assign eng_quiet = &e_quiet;
  assign eng_idle = &e_idle;

  rnic_responder #(.DataW(DataW), .NQp(NQp)) u_responder (
    .clk_i, .rst_ni,
    .pkt_valid_i(e_pkt_valid[0]), .pkt_ready_o(e_pkt_ready[0]), .pkt_i(pkt),
    .release_o(rel), .release_slot_o(rel_slot),
    .rq_db_valid_i(rqdb_v), .rq_db_ready_o(rqdb_r), .rq_db_data_i(rqdb_d),
    .qp_wr_i(qp_wr), .qp_wr_idx_i(cmd_idx), .qp_wr_flags_i(qp_wr_flags),
    .qp_wr_state_i(qp_wr_state), .qp_wr_rq_psn_i(qp_wr_rq_psn), .qp_wr_sq_psn_i(qp_wr_sq_psn),
    .ctx_idx_o(rx_ctx_idx), .ctx_i(rx_ctx), .mr_idx_o(rx_mr_idx), .mr_i(rx_mr),
    .qp_err_o(qp_err[0]), .qp_err_qpn_o(qp_err_qpn[0 +: 24]),
    .err_in_valid_i(qp_err[1] && !qp_err_sqe[1]), .err_in_qpn_i(qp_err_qpn[24 +: 24]),
    .rd_req_valid_o(rdq_valid[2]), .rd_req_ready_i(rdq_ready[2]),
    .rd_req_addr_o(rdq_addr[128 +: 64]), .rd_req_len_o(rdq_len[32 +: 16]),
    .rd_rsp_valid_i(rdr_valid[2]), .rd_rsp_ready_o(rdr_ready[2]),
    .rd_rsp_data_i(dma_rd_rsp_data_i), .rd_rsp_last_i(dma_rd_rsp_last_i),
    .rd_rsp_err_i(dma_rd_rsp_err_i),
    .rwc_hint_valid_o(e_hint_valid[0]), .rwc_hint_evict_o(e_hint_evict[0]),
    .rwc_hint_key_o(e_hint_key[0]), .rwc_hint_addr_o(e_hint_addr[0]),
    .rwc_hint_len_o(e_hint_len[0]),
    .rwc_lk_valid_o(e_lk_valid[0]), .rwc_lk_key_o(e_lk_key[0]), .rwc_lk_hit_i(e_lk_hit[0]),
    .rwc_lk_pend_i(e_lk_pend[0]), .rwc_lk_err_i(e_lk_err[0]), .rwc_room_i(rwc_room),
    .rwc_lk_data_i(rwc_lk_data), .rwc_inv_o(rwc_inv), .rwc_inv_key_o(rwc_inv_key),
    .place_start_o(e_pl_start[0]), .place_slot_o(e_pl_slot[0]), .place_base_o(e_pl_base[0]),
    .place_nseg_o(e_pl_nseg[0]), .place_addr_o(e_pl_addr[0]), .place_len_o(e_pl_len[0]),
    .place_poff_o(e_pl_poff[0]), .place_busy_i(e_pl_busy[0]), .place_want_o(e_pl_want[0]),
    .place_ev_qpn_o(e_ev_qpn[0]), .place_ev_psn_o(e_ev_psn[0]), .place_ev_pos_o(e_ev_pos[0]),
    .rcqe_valid_o(ecqe_valid[1]), .rcqe_ready_i(ecqe_ready[1]),
    .rcqe_o(ecqe[rnic_pkg::CqeReqW +: rnic_pkg::CqeReqW]),
    .job_valid_o(eng_job_valid), .job_ready_i(eng_job_ready), .job_o(eng_job),
    .rsp_done_i(rsp_done), .rsp_done_qpn_i(rsp_done_qpn),
    .at_valid_o(at_valid), .at_ready_i(at_ready), .at_o(at_op),
    .at_busy_qpn_o(at_busy_qpn), .at_busy_i(at_busy),
    .at_err_valid_i(at_err_valid), .at_err_ready_o(at_err_ready), .at_err_qpn_i(at_err_qpn),
    .srq_idx_o(rx_srq_idx), .srq_i(rx_srq), .srq_wr_i(srq_wr), .srq_wr_limit_i(cmd_args[47:0]),
    .mr_upd_valid_o(mr_upd_valid[0]), .mr_upd_ready_i(mr_upd_ready[0]),
    .mr_upd_idx_o(mr_upd_idx[0 +: 24]), .mr_upd_o(mr_upd[0 +: rnic_pkg::MrCfgW]),
    .aev_valid_o(eng_aev_valid), .aev_ready_i(eng_aev_ready), .aev_o(eng_aev),
    .query_idx_i(query_idx), .query_rq_psn_o(query_rq_psn),
    .quiet_o(e_quiet[0]), .idle_o(e_idle[0])
  );
  assign qp_err_sqe[0] = 1'b0;   // (SQE: a send error, the completer's)

  rnic_completer #(.DataW(DataW), .NQp(NQp), .InflDepth(InflDepth)) u_completer (
    .clk_i, .rst_ni,
    .pkt_valid_i(e_pkt_valid[1]), .pkt_ready_o(e_pkt_ready[1]), .pkt_i(pkt),
    .release_o(cpl_rel), .release_slot_o(cpl_rel_slot),
    .infl_valid_i(infl_valid), .infl_ready_o(infl_ready), .infl_i(infl),
    .qp_wr_i(qp_wr), .qp_wr_idx_i(cmd_idx), .qp_wr_flags_i(qp_wr_flags),
    .qp_wr_state_i(qp_wr_state), .qp_wr_rq_psn_i(qp_wr_rq_psn), .qp_wr_sq_psn_i(qp_wr_sq_psn),
    .ctx_idx_o(cpl_ctx_idx), .ctx_i(cpl_ctx), .mr_idx_o(cpl_mr_idx), .mr_i(cpl_mr),
    .qp_err_o(qp_err[1]), .qp_err_sqe_o(qp_err_sqe[1]), .qp_err_qpn_o(qp_err_qpn[24 +: 24]),
    .err_in_valid_i(qp_err[0]), .err_in_qpn_i(qp_err_qpn[0 +: 24]),
    .rd_req_valid_o(rdq_valid[6]), .rd_req_ready_i(rdq_ready[6]),
    .rd_req_addr_o(rdq_addr[384 +: 64]), .rd_req_len_o(rdq_len[96 +: 16]),
    .rd_rsp_valid_i(rdr_valid[6]), .rd_rsp_ready_o(rdr_ready[6]),
    .rd_rsp_data_i(dma_rd_rsp_data_i), .rd_rsp_last_i(dma_rd_rsp_last_i),
    .rd_rsp_err_i(dma_rd_rsp_err_i),
    .rwc_hint_valid_o(e_hint_valid[1]), .rwc_hint_evict_o(e_hint_evict[1]),
    .rwc_hint_key_o(e_hint_key[1]), .rwc_hint_addr_o(e_hint_addr[1]),
    .rwc_hint_len_o(e_hint_len[1]),
    .rwc_lk_valid_o(e_lk_valid[1]), .rwc_lk_key_o(e_lk_key[1]), .rwc_lk_hit_i(e_lk_hit[1]),
    .rwc_lk_pend_i(e_lk_pend[1]), .rwc_lk_err_i(e_lk_err[1]), .rwc_room_i(rwc_room),
    .rwc_lk_data_i(rwc_lk_data), .rwc_inv_o(rwc_inv_b), .rwc_inv_key_o(rwc_inv_b_key),
    .place_start_o(e_pl_start[1]), .place_slot_o(e_pl_slot[1]), .place_base_o(e_pl_base[1]),
    .place_nseg_o(e_pl_nseg[1]), .place_addr_o(e_pl_addr[1]), .place_len_o(e_pl_len[1]),
    .place_poff_o(e_pl_poff[1]), .place_busy_i(e_pl_busy[1]), .place_want_o(e_pl_want[1]),
    .place_ev_qpn_o(e_ev_qpn[1]), .place_ev_psn_o(e_ev_psn[1]), .place_ev_pos_o(e_ev_pos[1]),
    .scqe_valid_o(ecqe_valid[0]), .scqe_ready_i(ecqe_ready[0]),
    .scqe_o(ecqe[0 +: rnic_pkg::CqeReqW]),
    .wr_valid_o(wr_valid[2]), .wr_ready_i(wr_ready[2]), .wr_addr_o(wr_addr[128 +: 64]),
    .wr_len_o(wr_len[32 +: 16]), .wr_data_o(wr_data[2*DataW +: DataW]), .wr_last_o(wr_last[2]),
    .rewind_valid_o(rewind_valid), .rewind_ready_i(rewind_ready), .rewind_o(rewind),
    .rewind_resume_o(rewind_resume),
    .ring_rd_qpn_i(ring_rd_qpn), .ring_rd_idx_i(ring_rd_idx), .ring_rd_v_o(ring_rd_v),
    .ring_rd_o(ring_rd),
    .rd_done_o(rd_done), .rd_done_qpn_o(rd_done_qpn),
    .noack_valid_i(noack_valid), .noack_err_i(noack_err), .noack_ready_o(noack_ready),
    .noack_qpn_i(ev_tx_qpn), .noack_idx_i(ev_tx_idx),
    .done_valid_o(done_valid), .done_ready_i(done_ready), .done_qpn_o(done_qpn),
    .done_ci_o(done_ci),
    .quiet_o(e_quiet[1]), .idle_o(e_idle[1]), .due_o(next_due_o), .skip_i, .skip_cycles_i
  );

  // A QP's RQ reset (creation, RESET) forgets its atomic results.
  logic at_clr;
  assign at_clr = qp_wr && qp_wr_flags[rnic_pkg::QpFlagResetRq];
  rnic_atomic_unit #(.DataW(DataW), .NQp(NQp), .Depth(AtomicDepth)) u_atomic_unit (
    .clk_i, .rst_ni,
    .op_valid_i(at_valid), .op_ready_o(at_ready), .op_i(at_op),
    .busy_qpn_i(at_busy_qpn), .busy_o(at_busy),
    .rd_req_valid_o(rdq_valid[5]), .rd_req_ready_i(rdq_ready[5]),
    .rd_req_addr_o(rdq_addr[320 +: 64]), .rd_req_len_o(rdq_len[80 +: 16]),
    .rd_rsp_valid_i(rdr_valid[5]), .rd_rsp_ready_o(rdr_ready[5]),
    .rd_rsp_data_i(dma_rd_rsp_data_i), .rd_rsp_last_i(dma_rd_rsp_last_i),
    .rd_rsp_err_i(dma_rd_rsp_err_i),
    .wr_valid_o(wr_valid[3]), .wr_ready_i(wr_ready[3]), .wr_addr_o(wr_addr[192 +: 64]),
    .wr_len_o(wr_len[48 +: 16]), .wr_data_o(wr_data[3*DataW +: DataW]), .wr_last_o(wr_last[3]),
    .eng_job_valid_i(eng_job_valid), .eng_job_ready_o(eng_job_ready), .eng_job_i(eng_job),
    .job_valid_o(job_valid), .job_ready_i(job_ready), .job_o(job),
    .err_valid_o(at_err_valid), .err_ready_i(at_err_ready), .err_qpn_o(at_err_qpn),
    .qp_clr_i(at_clr), .qp_clr_idx_i(cmd_idx),
    .quiet_o(at_quiet)
  );

  rnic_rd_resp u_rd_resp (
    .clk_i, .rst_ni,
    .job_valid_i(job_valid), .job_ready_o(job_ready), .job_i(job),
    .ctx_idx_o(rr_ctx_idx), .ctx_i(rr_ctx),
    .txd_valid_o(txa_valid[1]), .txd_ready_i(txa_ready[1]),
    .txd_o(txa_d[rnic_pkg::TxdW +: rnic_pkg::TxdW]),
    .done_o(rsp_done), .done_qpn_o(rsp_done_qpn), .quiet_o(rr_quiet)
  );

  rnic_rx_place #(.DataW(DataW)) u_rx_place (
    .clk_i, .rst_ni,
    .start_i(pl_start), .slot_i(pl_slot), .base_i(pl_base), .nseg_i(pl_nseg),
    .seg_addr_i(pl_addr), .seg_len_i(pl_len), .seg_poff_i(pl_poff), .busy_o(pl_busy),
    .release_o(pl_rel), .release_slot_o(pl_rel_slot),
    .rd_slot_o(prd_slot), .rd_word_o(prd_word), .rd_data_i(prd_data),
    .wr_valid_o(wr_valid[0]), .wr_ready_i(wr_ready[0]), .wr_addr_o(wr_addr[0 +: 64]),
    .wr_len_o(wr_len[0 +: 16]), .wr_data_o(wr_data[0 +: DataW]), .wr_last_o(wr_last[0])
  );

  // ---------------------------------------------------------------------------
  // Completions
  // ---------------------------------------------------------------------------
  logic rd_req_hs, rd_rsp_end;
  assign rd_req_hs = dma_rd_req_valid_o && dma_rd_req_ready_i;
  assign rd_rsp_end = dma_rd_rsp_valid_i && dma_rd_rsp_ready_o && dma_rd_rsp_last_i;
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) rd_out_q <= '0;
    else if (rd_req_hs && !rd_rsp_end) rd_out_q <= rd_out_q + 9'd1;
    else if (!rd_req_hs && rd_rsp_end) rd_out_q <= rd_out_q - 9'd1;
  end
`ifdef RNIC_ASSERT
  /* verilator coverage_off */
  // Simulation check: a read's last beat comes back only while a read is
  // out (the host side keeps the DMA contract).
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
    end else if (rd_rsp_end && !rd_req_hs) begin
      assert (rd_out_q != 9'd0);
    end
  end
  /* verilator coverage_on */
`endif
  assign cmd_quiet = eng_idle && at_quiet && !cqe_valid && !pl_busy && !pl_start && cqw_idle &&
                     wqe_ready && !txa_valid[0] && !txa_valid[1] && !txd_valid &&
                     txb_intake_idle &&
                     (rd_out_q == 9'd0) && !dma_rd_req_valid_o;
  logic ev_scqe, ev_rcqe;
  logic [23:0] ev_cqe_qpn;
  logic [15:0] ev_cqe_idx;
  // Asynchronous events to the event queue: the engine's first, then the
  // SQ scheduler's SQ_DRAINED.
  assign aev_valid = eng_aev_valid || drained_valid;
  assign aev = eng_aev_valid ? eng_aev : {rnic_pkg::EvSqDrained, drained_qpn};
  assign eng_aev_ready = aev_ready;
  assign drained_ready = aev_ready && !eng_aev_valid;

  // Send and receive completions take turns when both wait.
  rnic_rr_arb #(.Width(rnic_pkg::CqeReqW)) u_cqe_arb (
    .clk_i, .rst_ni,
    .valid_i(ecqe_valid), .ready_o(ecqe_ready), .data_i(ecqe),
    .valid_o(cqe_valid), .ready_i(cqe_ready), .data_o(cqe)
  );

  rnic_cqe_writer #(.DataW(DataW), .NCq(NCq)) u_cqe_writer (
    .clk_i, .rst_ni,
    .cqe_valid_i(cqe_valid), .cqe_ready_o(cqe_ready), .cqe_i(cqe),
    .aev_valid_i(aev_valid), .aev_ready_o(aev_ready), .aev_i(aev),
    .rd_req_valid_o(rdq_valid[3]), .rd_req_ready_i(rdq_ready[3]),
    .rd_req_addr_o(rdq_addr[192 +: 64]), .rd_req_len_o(rdq_len[48 +: 16]),
    .rd_rsp_valid_i(rdr_valid[3]), .rd_rsp_ready_o(rdr_ready[3]),
    .rd_rsp_data_i(dma_rd_rsp_data_i), .rd_rsp_err_i(dma_rd_rsp_err_i),
    .cq_wr_i(cq_wr), .cq_wr_idx_i(cmd_idx),
    .arm_valid_i(cq_db_valid), .arm_data_i(db_data),
    .ctx_idx_o(cq_ctx_idx), .ctx_i(cq_ctx),
    .wr_valid_o(wr_valid[1]), .wr_ready_i(wr_ready[1]), .wr_addr_o(wr_addr[64 +: 64]),
    .wr_len_o(wr_len[16 +: 16]), .wr_data_o(wr_data[DataW +: DataW]), .wr_last_o(wr_last[1]),
    .irq_valid_o, .irq_cqn_o,
    .ev_send_o(ev_scqe), .ev_recv_o(ev_rcqe), .ev_qpn_o(ev_cqe_qpn), .ev_idx_o(ev_cqe_idx),
    .idle_o(cqw_idle), .dbrec_idle_o(cqw_dbrec_idle), .quiet_o(cqw_quiet)
  );

  rnic_dma_wr_mux #(.DataW(DataW), .N(4)) u_dma_wr_mux (
    .clk_i, .rst_ni,
    .valid_i(wr_valid), .ready_o(wr_ready), .addr_i(wr_addr), .len_i(wr_len),
    .data_i(wr_data), .last_i(wr_last),
    .valid_o(dma_wr_valid_o), .ready_i(dma_wr_ready_i), .addr_o(dma_wr_addr_o),
    .len_o(dma_wr_len_o), .data_o(dma_wr_data_o), .last_o(dma_wr_last_o),
    .quiet_o(wrmux_quiet)
  );

  // The DMA read mux and the TX arbiter only move on a handshake, the
  // context tables on a command or an engine's update: they are quiet when
  // the blocks around them are.
  assign quiet_o = mmio_quiet && fetch_quiet && req_quiet && txb_quiet && parser_quiet &&
                   eng_quiet && at_quiet && rr_quiet && cqw_quiet && wrmux_quiet && !pl_busy &&
                   !sqdb_v && !rqdb_v && (rd_out_q == 9'd0);

  // Trace events
  assign ev_place_o = {pl_rel, pl_start};
  assign ev_valid_o = {ev_rcqe, ev_scqe, ev_tx_last, ev_tx_first, ev_fetch};
  assign ev_qpn_o = {ev_cqe_qpn, ev_cqe_qpn, ev_tx_qpn, ev_tx_qpn, ev_fetch_qpn};
  assign ev_idx_o = {ev_cqe_idx, ev_cqe_idx, ev_tx_idx, ev_tx_idx, ev_fetch_idx};

  logic unused;
  assign unused = ^{sqdb_cnt, rqdb_cnt};
endmodule
