// Properties of rnic_requester (2 QPs): the in-flight records it hands to
// the completer and its READ/atomic credits.
// - Every record is for the QP and the WQE it was fetched as, and a QP's
//   records come in WQE order, one per WQE, none skipped: the n-th record of
//   a QP is for its n-th WQE (what fv_rnic_completer assumes of its
//   requester).
// - A new READ or atomic record (which takes a credit) leaves only while
//   fewer than the QP's max_rd_atomic READs/atomics are outstanding
//   (handed over and not yet retired by the completer).
// - The frame descriptor and the record hold valid and data until taken.
// Environment (assumed): the driver creates both QPs (an SQ-resetting
// context write each) before any WQE; the SQ fetch hands over a QP's WQEs in order from
// index 0 (fv_rnic_sq_fetch), with free contents, flush and error flags,
// and holds them until taken; the QP contexts are fixed from reset (any
// state, MTU, credit limit...); MR contexts are free in every cycle; the
// completer retires a READ/atomic only while one is outstanding
// (fv_rnic_completer); no rewinds, later context writes or ring records
// (no WQE is sent twice).
module fv_rnic_requester (
  input logic        clk_i,
  input logic        rst_ni,
  input logic        wqe_valid_i,
  input logic [rnic_pkg::WqeBits+42-1:0] wqe_free_i,
  input logic        rd_done_i,
  input logic [23:0] rd_done_qpn_i,
  input logic [rnic_pkg::QpCfgW-1:0] ctx0_i,  // the contexts, taken at reset
  input logic [rnic_pkg::QpCfgW-1:0] ctx1_i,
  input logic [rnic_pkg::MrCfgW-1:0] mr_i,
  input logic        infl_ready_i,
  input logic        txd_ready_i,
  input logic        mr_upd_ready_i,
  input logic [23:0] qp_wr_sq_psn_i
);
  localparam int unsigned NQp = 2;
  localparam int unsigned W = rnic_pkg::WqeBits;
  logic wqe_ready_o, ring_rd_v_i, infl_valid_o, txd_valid_o, mr_upd_valid_o, quiet_o;
  logic [23:0] ring_rd_qpn_o, ctx_idx_o, mr_idx_o, mr_upd_idx_o, query_sq_psn_o;
  logic [15:0] ring_rd_idx_o;
  logic [rnic_pkg::InflW-1:0] infl_o, ring_rd_i;
  logic [rnic_pkg::TxdW-1:0] txd_o;
  logic [rnic_pkg::MrCfgW-1:0] mr_upd_o;
  logic [rnic_pkg::QpCfgW-1:0] ctx_i;
  logic [W+42-1:0] wqe_i;

  rnic_requester #(.NQp(NQp)) dut (
    .clk_i, .rst_ni, .wqe_valid_i, .wqe_ready_o, .wqe_i, .wqe_epoch_i(8'd1),
    .qp_wr_i, .qp_wr_idx_i, .qp_wr_flags_i, .qp_wr_sq_psn_i,
    .rewind_take_i(1'b0), .rewind_i('0), .rewind_resume_i(1'b0),
    .ring_rd_qpn_o, .ring_rd_idx_o, .ring_rd_v_i, .ring_rd_i, .rd_done_i, .rd_done_qpn_i,
    .ctx_idx_o, .ctx_i, .mr_idx_o, .mr_i, .infl_valid_o, .infl_ready_i, .infl_o,
    .txd_valid_o, .txd_ready_i, .txd_o, .mr_upd_valid_o, .mr_upd_ready_i, .mr_upd_idx_o,
    .mr_upd_o, .query_idx_i(24'd0), .query_sq_psn_o, .quiet_o
  );
  assign ring_rd_v_i = 1'b0;
  assign ring_rd_i = '0;

  logic ran;
  always_ff @(posedge clk_i) ran <= ran || !rst_ni;
  always_comb assume (rst_ni == ran);

  // The driver creates both QPs first: a context write each that resets the
  // send queue and loads its PSN (the per-QP tables have no reset; an
  // unwritten "stopped" flag would flush every WQE). The reset starts the
  // QP's epoch 1, which the SQ fetch then gives every WQE (wqe_epoch_i).
  logic [1:0] init_q;
  logic qp_wr_i, init_done;
  logic [23:0] qp_wr_idx_i;
  logic [7:0] qp_wr_flags_i;
  always_ff @(posedge clk_i) begin
    if (!rst_ni) init_q <= '0;
    else if (init_q != 2'd2) init_q <= init_q + 2'd1;
  end
  assign init_done = (init_q == 2'd2);
  assign qp_wr_i = rst_ni && !init_done;
  assign qp_wr_idx_i = 24'(init_q[0]);
  assign qp_wr_flags_i = 8'((1 << rnic_pkg::QpFlagResetSq) | (1 << rnic_pkg::QpFlagSetSqPsn));

  logic [rnic_pkg::QpCfgW-1:0] ctx0, ctx1;
  always_ff @(posedge clk_i) begin
    if (!rst_ni) begin
      ctx0 <= ctx0_i;
      ctx1 <= ctx1_i;
    end
  end
  assign ctx_i = ctx_idx_o[0] ? ctx1 : ctx0;

  // Shadows per QP (flat vectors: registers for Yosys): WQEs handed over
  // (fetched), records taken (recs), READ/atomic credits outstanding (rd).
  logic [16*NQp-1:0] fetched, recs;
  logic [4*NQp-1:0] rd;

  // The WQE: {error, flush, QPN, index, WQE}; its QP's next index.
  logic wq;
  assign wq = wqe_free_i[W+16];
  always_comb begin
    wqe_i = wqe_free_i;
    wqe_i[W+39:W+16] = {23'd0, wq};
    wqe_i[W+15:W] = fetched[16*wq +: 16];
  end

  rnic_pkg::infl_t rec;
  rnic_pkg::qp_cfg_t rctx;
  logic iq, dq, take_w, take_r, rd_new;
  assign rec = infl_o;
  assign iq = rec.qpn[0];
  assign dq = rd_done_qpn_i[0];
  assign rctx = iq ? ctx1 : ctx0;
  assign take_w = wqe_valid_i && wqe_ready_o;
  assign take_r = infl_valid_o && infl_ready_i;
  assign rd_new = take_r && rec.is_read && (rec.kind == rnic_pkg::InflNormal);

  always_ff @(posedge clk_i) begin
    if (!rst_ni) begin
      fetched <= '0;
      recs <= '0;
      rd <= '0;
    end else begin
      if (take_w) fetched[16*wq +: 16] <= fetched[16*wq +: 16] + 16'd1;
      if (take_r) recs[16*iq +: 16] <= recs[16*iq +: 16] + 16'd1;
      for (int i = 0; i < NQp; i++) begin
        rd[4*i +: 4] <= rd[4*i +: 4] + 4'((rd_new && (32'(iq) == i)) ? 1 : 0) -
                        4'((rd_done_i && (32'(dq) == i)) ? 1 : 0);
      end
    end
  end

  logic w_wait, t_wait, r_wait;
  logic [W+42-1:0] w_q;
  logic [rnic_pkg::TxdW-1:0] t_q;
  logic [rnic_pkg::InflW-1:0] r_q;
  always_ff @(posedge clk_i) begin
    w_wait <= rst_ni && wqe_valid_i && !wqe_ready_o;
    t_wait <= rst_ni && txd_valid_o && !txd_ready_i;
    r_wait <= rst_ni && infl_valid_o && !infl_ready_i;
    w_q <= wqe_free_i;
    t_q <= txd_o;
    r_q <= infl_o;
  end

  always_comb begin
    if (rst_ni && ran) begin
      if (!init_done) begin
        assume (!wqe_valid_i);
        assume (!rd_done_i);
      end
      if (w_wait) begin
        assume (wqe_valid_i);
        assume (wqe_free_i == w_q);
      end
      if (rd_done_i) begin
        assume (rd_done_qpn_i < 24'(NQp));
        assume (rd[4*dq +: 4] != 4'd0);
      end
      // Records: the QP's next WQE, one each, never ahead of the fetch.
      if (infl_valid_o) begin
        assert (rec.qpn < 24'(NQp));
        assert (rec.wqe_idx == recs[16*iq +: 16]);
        assert (recs[16*iq +: 16] != fetched[16*iq +: 16]);
      end
      // Credits: a new READ/atomic only under the QP's limit.
      if (infl_valid_o && rec.is_read && (rec.kind == rnic_pkg::InflNormal)) begin
        assert (rd[4*iq +: 4] < rctx.max_rd_atomic);
      end
      if (t_wait) begin
        assert (txd_valid_o);
        assert (txd_o == t_q);
      end
      if (r_wait) begin
        assert (infl_valid_o);
        assert (infl_o == r_q);
      end
    end
  end
endmodule
