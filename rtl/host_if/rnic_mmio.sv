// rnic_mmio: the BAR. Device registers, the command interface that writes the
// QP/CQ/MR contexts, and the doorbell page. Register map: docs/formats.md.
module rnic_mmio #(
  parameter int unsigned DataW = 256,
  parameter int unsigned NQp = 1024,
  parameter int unsigned NCq = 1024,
  parameter int unsigned NMr = 1024,
  parameter int unsigned MaxRdOut = 32
) (
  input  logic        clk_i,
  input  logic        rst_ni,
  input  logic        mmio_valid_i,
  output logic        mmio_ready_o,
  input  logic        mmio_we_i,
  input  logic [15:0] mmio_addr_i,
  input  logic [63:0] mmio_wdata_i,
  output logic        mmio_rvalid_o,
  output logic [63:0] mmio_rdata_o,
  // Port identity
  output logic [47:0] port_mac_o,
  output logic [31:0] port_ip_o,
  // Context writes (one-cycle strobes; words as in docs/formats.md)
  output logic        qp_wr_o,
  output logic        cq_wr_o,
  output logic        mr_wr_o,
  output logic        srq_wr_o,
  output logic [23:0] cmd_idx_o,
  output logic [8*64-1:0] cmd_args_o,
  // QP query
  output logic [23:0] qp_query_idx_o,
  input  logic [3:0]  qp_query_state_i,   // [2:0] state, [3] SQ draining
  input  logic [47:0] qp_query_psn_i,
  // Doorbells
  output logic        sq_db_valid_o,
  input  logic        sq_db_ready_i,
  output logic        rq_db_valid_o,
  input  logic        rq_db_ready_i,
  output logic        cq_db_valid_o,
  output logic [63:0] db_data_o,
  // BlueFlame: the SQ doorbell queue also carries the words of a WQE
  // written to SQ_BF0..7: [3] a WQE word, [2:0] which
  output logic [3:0]  db_bf_o,
  // Counters
  input  logic [63:0] cnt_tx_pkts_i,
  input  logic [63:0] cnt_rx_pkts_i,
  input  logic [63:0] cnt_rx_drop_i,
  input  logic [63:0] cnt_dma_rd_err_i,
  // The receive engine writes a QP's state (to ERR or SQE) this cycle: the
  // context table has one write port, so a CMD_GO waits a cycle
  input  logic        qp_err_i,
  // Nothing of a QP reaches host memory any more (no DMA read outstanding,
  // requester, TX intake and receive engine idle, no CQE waiting or being
  // written; rnic_top): a QP_WRITE that resets a queue is done then
  input  logic        quiet_i,
  // No read of a CQ's doorbell record under way (rnic_cqe_writer)
  input  logic        cq_quiet_i,
  // No command waiting for quiet_i and no read answer going out (fast-forward)
  output logic        quiet_o
);
  localparam logic [15:0] RegDevId = 16'h000;
  localparam logic [15:0] RegCaps = 16'h008;
  localparam logic [15:0] RegPortMac = 16'h010;
  localparam logic [15:0] RegPortIp = 16'h018;
  localparam logic [15:0] RegCmdArg0 = 16'h100;
  localparam logic [15:0] RegCmdGo = 16'h140;
  localparam logic [15:0] RegCmdStatus = 16'h148;
  localparam logic [15:0] RegCmdOut0 = 16'h150;
  localparam logic [15:0] RegCntBase = 16'h200;
  localparam logic [15:0] RegSqDb = 16'h1000;
  localparam logic [15:0] RegRqDb = 16'h1008;
  localparam logic [15:0] RegCqDb = 16'h1010;
  localparam logic [15:0] RegSrqDb = 16'h1018;
  localparam logic [15:0] RegSqBf0 = 16'h1040;

  localparam logic [7:0] CmdQpWrite = 8'h01;
  localparam logic [7:0] CmdQpQuery = 8'h02;
  localparam logic [7:0] CmdCqWrite = 8'h10;
  localparam logic [7:0] CmdMrWrite = 8'h20;
  localparam logic [7:0] CmdSrqWrite = 8'h30;

  localparam logic [7:0] LogQp = 8'($clog2(NQp));
  localparam logic [7:0] LogCq = 8'($clog2(NCq));
  localparam logic [7:0] LogMr = 8'($clog2(NMr));
  localparam logic [15:0] DataBits = 16'(DataW);
  localparam logic [7:0] RdOut = 8'(MaxRdOut);
  localparam logic [63:0] Caps = {8'd0, RdOut, DataBits, 8'd4, LogMr, LogCq, LogQp};

  logic [63:0] args_q [8];
  logic [7:0] cmd_result_q;
  logic [47:0] mac_q;
  logic [31:0] ip_q;
  logic [23:0] query_idx_q;
  logic [63:0] out0_q, out1_q;
  logic [15:0] addr;
  logic wr, rd, db_wait;

  assign addr = mmio_addr_i;
  // A doorbell write waits until its queue takes it; everything else is immediate.
  logic is_bf;
  assign is_bf = (addr[15:6] == RegSqBf0[15:6]);
  assign db_wait = mmio_we_i && ((((addr == RegSqDb) || is_bf) && !sq_db_ready_i) ||
                                 (((addr == RegRqDb) || (addr == RegSrqDb)) && !rq_db_ready_i));
  // A command waits while the engine takes the context table's write port
  // (its QP_WRITE would otherwise drop the engine's move to ERR).
  logic go_wait;
  assign go_wait = mmio_we_i && (addr == RegCmdGo) && qp_err_i;
  assign mmio_ready_o = !db_wait && !go_wait;
  assign wr = mmio_valid_i && mmio_we_i && !db_wait && !go_wait;
  assign rd = mmio_valid_i && !mmio_we_i;

  assign sq_db_valid_o = mmio_valid_i && mmio_we_i && ((addr == RegSqDb) || is_bf);
  assign db_bf_o = {is_bf, addr[5:3]};
  // SRQ doorbells share the receive doorbell queue; bit 63 marks them.
  assign rq_db_valid_o = mmio_valid_i && mmio_we_i && ((addr == RegRqDb) || (addr == RegSrqDb));
  assign cq_db_valid_o = wr && (addr == RegCqDb);
  // A BlueFlame word is WQE data: all 64 bits go through.
  assign db_data_o = {is_bf ? mmio_wdata_i[63] : (addr == RegSrqDb), mmio_wdata_i[62:0]};

  assign port_mac_o = mac_q;
  assign port_ip_o = ip_q;
  assign qp_query_idx_o = query_idx_q;
  assign cmd_idx_o = mmio_wdata_i[31:8];
  for (genvar i = 0; i < 8; i++) begin : g_args
    assign cmd_args_o[i*64 +: 64] = args_q[i];
  end

  logic go;
  logic [7:0] go_op;
  assign go = wr && (addr == RegCmdGo);
  assign go_op = mmio_wdata_i[7:0];

  // A QP_WRITE that resets the send or receive queue (the move to RESET,
  // also before a destroy) stays busy until quiet_i: when the driver sees
  // the command done, no DMA of the QP's rings is in flight (it may unmap
  // them) and the CQEs the QP produced before the reset are in its CQs (the
  // DMA writes are ordered before the status read's completion), so the
  // library's CQ clean removes them all. An MR_WRITE that invalidates (the
  // deregistration) waits the same way: the message being sent or answered
  // with the MR's bytes has read them all before the driver unmaps the pages
  // (a later packet checks the key again: a resent WQE at the requester,
  // every WRITE packet at the responder). A CQ_WRITE that invalidates (the
  // CQ's destroy) stays busy until cq_quiet_i (busy_cq_q): a read of the
  // CQ's doorbell record the CQE writer started (ahead, while CQEs went out)
  // has returned before the driver unmaps the record (finding
  // cq-dbrec-after-destroy). Its QPs are gone already (verbs destroys them
  // first), so nothing else of the CQ is in flight, and the traffic of other
  // QPs does not hold the destroy back.
  logic busy_q, busy_cq_q, reset_go, mr_inval_go, cq_inval_go;
  assign reset_go = go && (go_op == CmdQpWrite) && (mmio_wdata_i[31:8] < 24'(NQp)) &&
                    (args_q[1][24 + rnic_pkg::QpFlagResetSq] ||
                     args_q[1][24 + rnic_pkg::QpFlagResetRq]);
  assign mr_inval_go = go && (go_op == CmdMrWrite) && (mmio_wdata_i[31:8] < 24'(NMr)) &&
                       !args_q[0][32];
  assign cq_inval_go = go && (go_op == CmdCqWrite) && (mmio_wdata_i[31:8] < 24'(NCq)) &&
                       !args_q[0][8];
  assign qp_wr_o = go && (go_op == CmdQpWrite) && (mmio_wdata_i[31:8] < 24'(NQp));
  assign cq_wr_o = go && (go_op == CmdCqWrite) && (mmio_wdata_i[31:8] < 24'(NCq));
  assign mr_wr_o = go && (go_op == CmdMrWrite) && (mmio_wdata_i[31:8] < 24'(NMr));
  assign srq_wr_o = go && (go_op == CmdSrqWrite) && (mmio_wdata_i[31:8] < 24'(NQp));

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      for (int i = 0; i < 8; i++) args_q[i] <= '0;
      cmd_result_q <= '0;
      busy_q <= 1'b0;
      busy_cq_q <= 1'b0;
      mac_q <= '0;
      ip_q <= '0;
      query_idx_q <= '0;
      out0_q <= '0;
      out1_q <= '0;
    end else begin
      if (wr && (addr[15:6] == RegCmdArg0[15:6])) args_q[addr[5:3]] <= mmio_wdata_i;
      // quiet_i counts from the cycle after the context write.
      if (reset_go || mr_inval_go) busy_q <= 1'b1;
      else if (quiet_i) busy_q <= 1'b0;
      if (cq_inval_go) busy_cq_q <= 1'b1;
      else if (cq_quiet_i) busy_cq_q <= 1'b0;
      if (wr && (addr == RegPortMac)) mac_q <= mmio_wdata_i[47:0];
      if (wr && (addr == RegPortIp)) ip_q <= mmio_wdata_i[31:0];
      if (go) begin
        cmd_result_q <= 8'd0;
        unique case (go_op)
          CmdQpWrite, CmdQpQuery: if (mmio_wdata_i[31:8] >= 24'(NQp)) cmd_result_q <= 8'd2;
          CmdCqWrite: if (mmio_wdata_i[31:8] >= 24'(NCq)) cmd_result_q <= 8'd2;
          CmdMrWrite: if (mmio_wdata_i[31:8] >= 24'(NMr)) cmd_result_q <= 8'd2;
          CmdSrqWrite: if (mmio_wdata_i[31:8] >= 24'(NQp)) cmd_result_q <= 8'd2;
          default: cmd_result_q <= 8'd1;
        endcase
        if (go_op == CmdQpQuery) query_idx_q <= mmio_wdata_i[31:8];
      end
      // Query results are sampled one cycle after GO, once the index is registered.
      out0_q <= {60'd0, qp_query_state_i};
      out1_q <= {16'd0, qp_query_psn_i};
    end
  end

  assign quiet_o = !busy_q && !busy_cq_q && !mmio_rvalid_o;

  // Read data: one cycle after the request.
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      mmio_rvalid_o <= 1'b0;
      mmio_rdata_o <= '0;
    end else begin
      mmio_rvalid_o <= rd;
      if (rd) begin
        unique case (addr)
          RegDevId: mmio_rdata_o <= 64'h524e_4943_0001_0000;
          RegCaps: mmio_rdata_o <= Caps;
          RegPortMac: mmio_rdata_o <= {16'd0, mac_q};
          RegPortIp: mmio_rdata_o <= {32'd0, ip_q};
          RegCmdArg0, RegCmdArg0 + 16'h08, RegCmdArg0 + 16'h10, RegCmdArg0 + 16'h18,
          RegCmdArg0 + 16'h20, RegCmdArg0 + 16'h28, RegCmdArg0 + 16'h30, RegCmdArg0 + 16'h38:
            mmio_rdata_o <= args_q[addr[5:3]];
          RegCmdStatus: mmio_rdata_o <= {48'd0, cmd_result_q, 7'd0, busy_q || busy_cq_q};
          RegCmdOut0: mmio_rdata_o <= out0_q;
          RegCmdOut0 + 16'h8: mmio_rdata_o <= out1_q;
          RegCntBase: mmio_rdata_o <= cnt_tx_pkts_i;
          RegCntBase + 16'h8: mmio_rdata_o <= cnt_rx_pkts_i;
          RegCntBase + 16'h10: mmio_rdata_o <= cnt_rx_drop_i;
          RegCntBase + 16'h18: mmio_rdata_o <= cnt_dma_rd_err_i;
          default: mmio_rdata_o <= '0;
        endcase
      end
    end
  end
endmodule
