// rnic_cqe_writer: writes 64-byte CQEs into the CQ ring in host memory with the
// owner bit of the current pass, and raises the interrupt of an armed CQ.
//
// Overrun: before a CQE would fill the ring beyond its size, the writer reads
// the CQ's doorbell record (the consumer index software keeps in host memory)
// by DMA; if the ring is still full the CQE is lost, the CQ is in error from
// then on (its later CQEs are dropped too) and an IBV_EVENT_CQ_ERR event goes
// to the event queue. Asynchronous events (from the transport engine, and
// CQ errors) are written as CQE-sized records to CQ 0, the device's event
// queue, which always interrupts. Events go first, then completions.
module rnic_cqe_writer #(
  parameter int unsigned DataW = 256,
  parameter int unsigned NCq = 1024,
  parameter int unsigned Depth = 4
) (
  input  logic        clk_i,
  input  logic        rst_ni,
  input  logic        cqe_valid_i,
  output logic        cqe_ready_o,
  input  logic [rnic_pkg::CqeReqW-1:0] cqe_i,
  // Asynchronous events {type (enum ibv_event_type), number}
  input  logic        aev_valid_i,
  output logic        aev_ready_o,
  input  logic [31:0] aev_i,
  // CQ context writes (reset the producer index) and arm doorbells
  input  logic        cq_wr_i,
  input  logic [23:0] cq_wr_idx_i,
  input  logic        arm_valid_i,
  input  logic [63:0] arm_data_i,
  output logic [15:0] ctx_idx_o,
  input  logic [rnic_pkg::CqCfgW-1:0] ctx_i,
  // DMA read of doorbell records
  output logic        rd_req_valid_o,
  input  logic        rd_req_ready_i,
  output logic [63:0] rd_req_addr_o,
  output logic [15:0] rd_req_len_o,
  input  logic        rd_rsp_valid_i,
  output logic        rd_rsp_ready_o,
  input  logic [DataW-1:0] rd_rsp_data_i,
  input  logic        rd_rsp_err_i,
  // DMA write
  output logic        wr_valid_o,
  input  logic        wr_ready_i,
  output logic [63:0] wr_addr_o,
  output logic [15:0] wr_len_o,
  output logic [DataW-1:0] wr_data_o,
  output logic        wr_last_o,
  output logic        irq_valid_o,
  output logic [15:0] irq_cqn_o,
  output logic        ev_send_o,
  output logic        ev_recv_o,
  output logic [23:0] ev_qpn_o,
  output logic [15:0] ev_idx_o,
  // Nothing queued or being written (a QP reset command waits for it)
  output logic        idle_o,
  // Nothing queued, read, reported or signalled (fast-forward)
  output logic        quiet_o
);
  localparam int unsigned CqW = $clog2(NCq);
  localparam int unsigned Beats = (512 + DataW - 1) / DataW;
  localparam int unsigned BeatW = (Beats > 1) ? $clog2(Beats) : 1;

  logic [31:0] pi_q [NCq];
  logic [31:0] ci_q [NCq];    // consumer index as last read from the doorbell record
  logic err_q [NCq];
  logic armed_q [NCq];
  logic sol_q [NCq];

  // ---------------------------------------------------------------------------
  // Input: a CQ error event of our own, then engine events, then completions
  // ---------------------------------------------------------------------------
  logic ovf_v_q;
  logic [15:0] ovf_cqn_q;
  rnic_pkg::cqe_req_t ev_req;
  logic [31:0] ev_in;
  assign ev_in = ovf_v_q ? {rnic_pkg::EvCqErr, 8'd0, ovf_cqn_q} : aev_i;
  always_comb begin
    ev_req = '0;
    ev_req.cqn = rnic_pkg::EvCqn;
    ev_req.qpn = ev_in[23:0];
    ev_req.status = ev_in[31:24];
    ev_req.opcode = rnic_pkg::EvOpcode;
  end

  logic q_in_valid, q_in_ready;
  logic [rnic_pkg::CqeReqW-1:0] q_in;
  assign q_in_valid = ovf_v_q || aev_valid_i || cqe_valid_i;
  assign q_in = (ovf_v_q || aev_valid_i) ? ev_req : cqe_i;
  assign aev_ready_o = q_in_ready && !ovf_v_q;
  assign cqe_ready_o = q_in_ready && !ovf_v_q && !aev_valid_i;

  logic qv, qpop;
  logic [rnic_pkg::CqeReqW-1:0] qd;
  logic [$clog2(Depth):0] qcount;
  rnic_fifo #(.Width(rnic_pkg::CqeReqW), .Depth(Depth)) u_q (
    .clk_i, .rst_ni,
    .in_valid_i(q_in_valid), .in_ready_o(q_in_ready), .in_data_i(q_in),
    .out_valid_o(qv), .out_ready_i(qpop), .out_data_o(qd),
    .count_o(qcount)
  );

  rnic_pkg::cqe_req_t c;
  /* verilator lint_off UNUSEDSIGNAL */  // a context view
  rnic_pkg::cq_cfg_t ctx;
  /* verilator lint_on UNUSEDSIGNAL */
  assign c = qd;
  assign ctx = ctx_i;
  assign ctx_idx_o = c.cqn;

  logic [CqW-1:0] n;
  logic [31:0] pi;
  logic owner;
  assign n = c.cqn[CqW-1:0];
  assign pi = pi_q[n];
  assign owner = pi[ctx.log_size];

  // Full: the ring already holds 2^log_size unconsumed CQEs. The event
  // queue is never checked (software drains it at every interrupt).
  logic is_ev, full;
  assign is_ev = (c.cqn == rnic_pkg::EvCqn);
  assign full = !is_ev && (ctx.dbrec != '0) &&
                ((pi - ci_q[n]) >= (32'd1 << ctx.log_size));

  // Doorbell-record read: 0 idle, 1 request, 2 data, 3 decide
  logic [1:0] rd_st_q;
  assign rd_req_valid_o = (rd_st_q == 2'd1);
  assign rd_req_addr_o = ctx.dbrec;
  assign rd_req_len_o = 16'd8;
  assign rd_rsp_ready_o = (rd_st_q == 2'd2);

  logic [511:0] img;
  always_comb begin
    img = '0;
    img[31:0] = c.byte_len;
    img[63:32] = c.imm;
    img[95:64] = {8'd0, c.qpn};
    img[111:96] = c.wqe_idx;
    img[119:112] = c.status;
    img[127:120] = c.opcode;
    img[135:128] = c.flags;
    img[143:136] = c.vendor_err;
    img[191:160] = {8'd0, c.src_qp};
    img[504] = owner;
  end

  logic [BeatW-1:0] beat_q;
  logic [511:0] img_sh;
  // A CQE goes out when its CQ exists, is not in error and has room.
  logic go, drop;
  assign go = qv && ctx.valid && !err_q[n] && !full && (rd_st_q == 2'd0);
  assign img_sh = img >> (beat_q * DataW);
  assign wr_valid_o = go;
  assign idle_o = !qv;
  assign wr_addr_o = ctx.base + ({32'd0, pi & ((32'd1 << ctx.log_size) - 32'd1)} << 6);
  assign wr_len_o = 16'd64;
  assign wr_data_o = img_sh[DataW-1:0];
  assign wr_last_o = (beat_q == BeatW'(Beats - 1));

  logic done;
  assign done = wr_valid_o && wr_ready_i && wr_last_o;
  // A CQE for a CQ that does not exist or is in error is dropped; one that
  // overruns its CQ too (rd_st_q 3 with the ring still full).
  assign drop = qv && (rd_st_q == 2'd0) && (!ctx.valid || err_q[n]);
  logic overrun;
  assign overrun = (rd_st_q == 2'd3) && full;
  assign qpop = done || drop || overrun;

  logic fire;
  assign fire = done && (is_ev ||
                         (armed_q[n] && (!sol_q[n] || c.flags[rnic_pkg::CqeFlagSolicited] ||
                                         (c.status != rnic_pkg::WcSuccess))));

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      beat_q <= '0;
      irq_valid_o <= 1'b0;
      irq_cqn_o <= '0;
      rd_st_q <= 2'd0;
      ovf_v_q <= 1'b0;
      ovf_cqn_q <= '0;
    end else begin
      irq_valid_o <= fire;
      irq_cqn_o <= c.cqn;
      if (wr_valid_o && wr_ready_i) beat_q <= wr_last_o ? '0 : beat_q + 1'b1;
      if (ovf_v_q && q_in_ready) ovf_v_q <= 1'b0;
      unique case (rd_st_q)
        2'd0: if (qv && ctx.valid && !err_q[n] && full) rd_st_q <= 2'd1;
        2'd1: if (rd_req_ready_i) rd_st_q <= 2'd2;
        2'd2: if (rd_rsp_valid_i) rd_st_q <= 2'd3;
        default: begin
          rd_st_q <= 2'd0;
          if (full) begin
            ovf_v_q <= 1'b1;
            ovf_cqn_q <= c.cqn;
          end
        end
      endcase
    end
  end

  always_ff @(posedge clk_i) begin
    if (done) pi_q[n] <= pi + 32'd1;
    if (fire && !is_ev) armed_q[n] <= 1'b0;
    // A record that could not be read leaves the cached index as it was
    // (the CQE is then treated as an overrun).
    if ((rd_st_q == 2'd2) && rd_rsp_valid_i && !rd_rsp_err_i) ci_q[n] <= rd_rsp_data_i[31:0];
    if (overrun) err_q[n] <= 1'b1;
    if (arm_valid_i && (arm_data_i[23:0] < 24'(NCq))) begin
      armed_q[arm_data_i[CqW-1:0]] <= arm_data_i[32];
      sol_q[arm_data_i[CqW-1:0]] <= arm_data_i[33];
    end
    if (cq_wr_i && (cq_wr_idx_i < 24'(NCq))) begin
      pi_q[cq_wr_idx_i[CqW-1:0]] <= '0;
      ci_q[cq_wr_idx_i[CqW-1:0]] <= '0;
      err_q[cq_wr_idx_i[CqW-1:0]] <= 1'b0;
      armed_q[cq_wr_idx_i[CqW-1:0]] <= 1'b0;
    end
  end

  assign quiet_o = !qv && !ovf_v_q && (rd_st_q == 2'd0) && !irq_valid_o;

  assign ev_send_o = done && !is_ev && !c.opcode[7];
  assign ev_recv_o = done && !is_ev && c.opcode[7];
  assign ev_qpn_o = c.qpn;
  assign ev_idx_o = c.wqe_idx;

  logic unused;
  assign unused = ^{qcount, arm_data_i[63:34], arm_data_i[31:24], img_sh[511:DataW],
                    rd_rsp_data_i[DataW-1:32]};
endmodule
