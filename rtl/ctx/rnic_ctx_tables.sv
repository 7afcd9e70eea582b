// rnic_ctx_tables: QP, CQ, MR and SRQ context tables, written by the command
// interface, read by the engines. The QP state also moves to ERR when the
// transport engine reports an error on a QP. The engines update MR-table
// entries of memory windows (bind, invalidate) through two update ports;
// the command interface goes first, then port 0, then port 1.
module rnic_ctx_tables #(
  parameter int unsigned NQp = 1024,
  parameter int unsigned NCq = 1024,
  parameter int unsigned NMr = 1024
) (
  input  logic        clk_i,
  input  logic        rst_ni,
  input  logic        qp_wr_i,
  input  logic        cq_wr_i,
  input  logic        mr_wr_i,
  input  logic        srq_wr_i,
  input  logic [23:0] cmd_idx_i,
  input  logic [8*64-1:0] cmd_args_i,
  // Hardware-detected QP error
  // The receive engines' moves of a QP to ERR (or SQE): 0 the responder's,
  // 1 the completer's
  input  logic [1:0]  qp_err_i,
  input  logic [1:0]  qp_err_sqe_i,   // to SQE instead of ERR
  input  logic [47:0] qp_err_qpn_i,
  // Read ports (combinational)
  input  logic [23:0] qp_a_idx_i,
  output logic [rnic_pkg::QpCfgW-1:0] qp_a_o,
  input  logic [23:0] qp_b_idx_i,
  output logic [rnic_pkg::QpCfgW-1:0] qp_b_o,
  input  logic [23:0] qp_c_idx_i,
  output logic [rnic_pkg::QpCfgW-1:0] qp_c_o,
  input  logic [23:0] qp_d_idx_i,
  output logic [rnic_pkg::QpCfgW-1:0] qp_d_o,
  input  logic [23:0] qp_e_idx_i,
  output logic [rnic_pkg::QpCfgW-1:0] qp_e_o,
  input  logic [23:0] qp_f_idx_i,
  output logic [rnic_pkg::QpCfgW-1:0] qp_f_o,
  input  logic [23:0] qp_g_idx_i,
  output logic [rnic_pkg::QpCfgW-1:0] qp_g_o,
  input  logic [15:0] cq_idx_i,
  output logic [rnic_pkg::CqCfgW-1:0] cq_o,
  input  logic [23:0] mr_a_idx_i,
  output logic [rnic_pkg::MrCfgW-1:0] mr_a_o,
  input  logic [23:0] mr_b_idx_i,
  output logic [rnic_pkg::MrCfgW-1:0] mr_b_o,
  input  logic [23:0] mr_c_idx_i,
  output logic [rnic_pkg::MrCfgW-1:0] mr_c_o,
  input  logic [15:0] srq_idx_i,
  output logic [rnic_pkg::SrqCfgW-1:0] srq_o,
  // MR/MW entry updates from the engines
  input  logic [1:0]  mr_upd_valid_i,
  output logic [1:0]  mr_upd_ready_o,
  input  logic [47:0] mr_upd_idx_i,
  input  logic [2*rnic_pkg::MrCfgW-1:0] mr_upd_i
);
  localparam int unsigned QpW = $clog2(NQp);
  localparam int unsigned CqW = $clog2(NCq);
  localparam int unsigned MrW = $clog2(NMr);

  logic [rnic_pkg::QpCfgW-1:0] qp_mem [NQp];
  logic [rnic_pkg::CqCfgW-1:0] cq_mem [NCq];
  logic [rnic_pkg::MrCfgW-1:0] mr_mem [NMr];
  // One SRQ per QP number at most.
  logic [rnic_pkg::SrqCfgW-1:0] srq_mem [NQp];

  logic [63:0] w [8];
  for (genvar i = 0; i < 8; i++) begin : g_w
    assign w[i] = cmd_args_i[i*64 +: 64];
  end

  rnic_pkg::qp_cfg_t qp_new;
  rnic_pkg::cq_cfg_t cq_new;
  rnic_pkg::mr_cfg_t mr_new;
  rnic_pkg::srq_cfg_t srq_new;

  always_comb begin
    qp_new.state = w[0][2:0];
    qp_new.qp_type = w[0][6:4];
    qp_new.pmtu = w[0][10:8];
    qp_new.access = w[0][15:12];
    qp_new.pd = w[0][31:16];
    qp_new.scqn = w[0][47:32];
    qp_new.rcqn = w[0][63:48];
    qp_new.dest_qpn = w[1][23:0];
    qp_new.flags = w[1][31:24];
    qp_new.dest_ip = w[1][63:32];
    qp_new.dest_mac = w[2][47:0];
    qp_new.sq_log_size = w[2][52:48];
    qp_new.sq_wqe_shift = w[2][59:56];
    qp_new.sq_base = w[3];
    qp_new.rq_base = w[4];
    qp_new.rq_log_size = w[5][4:0];
    qp_new.rq_wqe_shift = w[5][11:8];
    qp_new.sq_psn = w[5][39:16];
    qp_new.rq_psn = w[5][63:40];
    qp_new.timeout = w[6][4:0];
    qp_new.retry_cnt = w[6][10:8];
    qp_new.rnr_retry = w[6][14:12];
    qp_new.min_rnr_timer = w[6][20:16];
    qp_new.max_rd_atomic = w[6][27:24];
    qp_new.max_dest_rd_atomic = w[6][31:28];
    qp_new.udp_sport = w[6][47:32];
    qp_new.qkey = w[7][31:0];
    qp_new.srqn = w[7][47:32];
    qp_new.use_srq = w[7][48];

    srq_new.valid = w[0][8];
    srq_new.log_size = w[0][4:0];
    srq_new.wqe_shift = w[0][15:12];
    srq_new.limit = w[0][47:32];
    srq_new.base = w[1];

    cq_new.valid = w[0][8];
    cq_new.log_size = w[0][4:0];
    cq_new.base = w[1];
    cq_new.dbrec = w[2];

    mr_new.key = w[0][7:0];
    mr_new.access = w[0][12:8];
    mr_new.is_mw = w[0][33];
    mr_new.mw_type2 = w[0][34];
    mr_new.mw_qpn = w[0][63:40];
    mr_new.pd = w[0][31:16];
    mr_new.valid = w[0][32];
    mr_new.va = w[1];
    mr_new.len = w[2];
    mr_new.iova = w[3];
  end

  // Write ports. Reset clears the valid/state fields only (the tables are RAMs).
  // The QP table has the command's and one per engine: rnic_mmio holds a
  // command back while an engine writes a QP's state (qp_err_i), so those
  // never meet; when both engines move the same QP in one cycle, ERR wins
  // over SQE.
  logic [2:0] err_st [2];
  always_comb begin
    for (int i = 0; i < 2; i++) begin
      err_st[i] = (qp_err_sqe_i[i] && !(qp_err_i[1-i] && !qp_err_sqe_i[1-i] &&
                   (qp_err_qpn_i[24*(1-i) +: QpW] == qp_err_qpn_i[24*i +: QpW]))) ?
                  rnic_pkg::QpsSqe : rnic_pkg::QpsErr;
    end
  end
  always_ff @(posedge clk_i) begin
    if (qp_wr_i) begin
      qp_mem[cmd_idx_i[QpW-1:0]] <= qp_new;
    end else begin
      if (qp_err_i[0]) qp_mem[qp_err_qpn_i[QpW-1:0]][rnic_pkg::QpCfgW-1 -: 3] <= err_st[0];
      if (qp_err_i[1]) qp_mem[qp_err_qpn_i[24 +: QpW]][rnic_pkg::QpCfgW-1 -: 3] <= err_st[1];
    end
    if (cq_wr_i) cq_mem[cmd_idx_i[CqW-1:0]] <= cq_new;
    if (mr_wr_i) mr_mem[cmd_idx_i[MrW-1:0]] <= mr_new;
    else if (mr_upd_valid_i[0] && (mr_upd_idx_i[23:0] < 24'(NMr)))
      mr_mem[mr_upd_idx_i[MrW-1:0]] <= mr_upd_i[0 +: rnic_pkg::MrCfgW];
    else if (mr_upd_valid_i[1] && (mr_upd_idx_i[47:24] < 24'(NMr)))
      mr_mem[mr_upd_idx_i[24 +: MrW]] <= mr_upd_i[rnic_pkg::MrCfgW +: rnic_pkg::MrCfgW];
    if (srq_wr_i) srq_mem[cmd_idx_i[QpW-1:0]] <= srq_new;
  end

  assign mr_upd_ready_o = {!mr_wr_i && !mr_upd_valid_i[0], !mr_wr_i};

  // A QP index beyond the table reads as RESET; an MR index beyond it as invalid.
  always_comb begin
    qp_a_o = (qp_a_idx_i < 24'(NQp)) ? qp_mem[qp_a_idx_i[QpW-1:0]] : '0;
    qp_b_o = (qp_b_idx_i < 24'(NQp)) ? qp_mem[qp_b_idx_i[QpW-1:0]] : '0;
    qp_c_o = (qp_c_idx_i < 24'(NQp)) ? qp_mem[qp_c_idx_i[QpW-1:0]] : '0;
    qp_d_o = (qp_d_idx_i < 24'(NQp)) ? qp_mem[qp_d_idx_i[QpW-1:0]] : '0;
    qp_e_o = (qp_e_idx_i < 24'(NQp)) ? qp_mem[qp_e_idx_i[QpW-1:0]] : '0;
    qp_f_o = (qp_f_idx_i < 24'(NQp)) ? qp_mem[qp_f_idx_i[QpW-1:0]] : '0;
    qp_g_o = (qp_g_idx_i < 24'(NQp)) ? qp_mem[qp_g_idx_i[QpW-1:0]] : '0;
    cq_o = (cq_idx_i < 16'(NCq)) ? cq_mem[cq_idx_i[CqW-1:0]] : '0;
    mr_a_o = (mr_a_idx_i < 24'(NMr)) ? mr_mem[mr_a_idx_i[MrW-1:0]] : '0;
    mr_b_o = (mr_b_idx_i < 24'(NMr)) ? mr_mem[mr_b_idx_i[MrW-1:0]] : '0;
    mr_c_o = (mr_c_idx_i < 24'(NMr)) ? mr_mem[mr_c_idx_i[MrW-1:0]] : '0;
    srq_o = (srq_idx_i < 16'(NQp)) ? srq_mem[srq_idx_i[QpW-1:0]] : '0;
  end

  // rst_ni is kept in the port list for the common block interface; contexts
  // are RAM contents and are defined by the driver before use.
  logic unused;
  assign unused = ^{rst_ni, cmd_idx_i[23:QpW], qp_err_qpn_i[23:QpW], qp_err_qpn_i[47:24+QpW],
                    mr_upd_idx_i[47:24+MrW],
                    mr_upd_idx_i[23:MrW]};

`ifdef RNIC_ASSERT
  /* verilator coverage_off */
  // Simulation check: the QP table's one write port is never claimed twice.
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
    end else begin
      assert (!(qp_wr_i && (qp_err_i != 2'b00)));
    end
  end
  /* verilator coverage_on */
`endif
endmodule
