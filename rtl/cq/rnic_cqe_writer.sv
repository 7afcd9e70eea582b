// rnic_cqe_writer: writes 64-byte CQEs into the CQ ring in host memory with the
// owner bit of the current pass, and raises the interrupt of an armed CQ.
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
  // CQ context writes (reset the producer index) and arm doorbells
  input  logic        cq_wr_i,
  input  logic [23:0] cq_wr_idx_i,
  input  logic        arm_valid_i,
  input  logic [63:0] arm_data_i,
  output logic [15:0] ctx_idx_o,
  input  logic [rnic_pkg::CqCfgW-1:0] ctx_i,
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
  output logic [15:0] ev_idx_o
);
  localparam int unsigned CqW = $clog2(NCq);
  localparam int unsigned Beats = (512 + DataW - 1) / DataW;
  localparam int unsigned BeatW = (Beats > 1) ? $clog2(Beats) : 1;

  logic [31:0] pi_q [NCq];
  logic armed_q [NCq];
  logic sol_q [NCq];

  logic qv, qpop;
  logic [rnic_pkg::CqeReqW-1:0] qd;
  logic [$clog2(Depth):0] qcount;
  rnic_fifo #(.Width(rnic_pkg::CqeReqW), .Depth(Depth)) u_q (
    .clk_i, .rst_ni,
    .in_valid_i(cqe_valid_i), .in_ready_o(cqe_ready_o), .in_data_i(cqe_i),
    .out_valid_o(qv), .out_ready_i(qpop), .out_data_o(qd),
    .count_o(qcount)
  );

  rnic_pkg::cqe_req_t c;
  rnic_pkg::cq_cfg_t ctx;
  assign c = qd;
  assign ctx = ctx_i;
  assign ctx_idx_o = c.cqn;

  logic [CqW-1:0] n;
  logic [31:0] pi;
  logic owner;
  assign n = c.cqn[CqW-1:0];
  assign pi = pi_q[n];
  assign owner = pi[ctx.log_size];

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
  assign img_sh = img >> (beat_q * DataW);
  assign wr_valid_o = qv && ctx.valid;
  assign wr_addr_o = ctx.base + ({32'd0, pi & ((32'd1 << ctx.log_size) - 32'd1)} << 6);
  assign wr_len_o = 16'd64;
  assign wr_data_o = img_sh[DataW-1:0];
  assign wr_last_o = (beat_q == BeatW'(Beats - 1));

  logic done;
  assign done = wr_valid_o && wr_ready_i && wr_last_o;
  // A CQE for a CQ that does not exist is dropped.
  assign qpop = done || (qv && !ctx.valid);

  logic fire;
  assign fire = done && armed_q[n] && (!sol_q[n] || c.flags[rnic_pkg::CqeFlagSolicited] ||
                                       (c.status != rnic_pkg::WcSuccess));

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      beat_q <= '0;
      irq_valid_o <= 1'b0;
      irq_cqn_o <= '0;
    end else begin
      irq_valid_o <= fire;
      irq_cqn_o <= c.cqn;
      if (wr_valid_o && wr_ready_i) beat_q <= wr_last_o ? '0 : beat_q + 1'b1;
    end
  end

  always_ff @(posedge clk_i) begin
    if (done) pi_q[n] <= pi + 32'd1;
    if (fire) armed_q[n] <= 1'b0;
    if (arm_valid_i && (arm_data_i[23:0] < 24'(NCq))) begin
      armed_q[arm_data_i[CqW-1:0]] <= arm_data_i[32];
      sol_q[arm_data_i[CqW-1:0]] <= arm_data_i[33];
    end
    if (cq_wr_i && (cq_wr_idx_i < 24'(NCq))) begin
      pi_q[cq_wr_idx_i[CqW-1:0]] <= '0;
      armed_q[cq_wr_idx_i[CqW-1:0]] <= 1'b0;
    end
  end

  assign ev_send_o = done && !c.opcode[7];
  assign ev_recv_o = done && c.opcode[7];
  assign ev_qpn_o = c.qpn;
  assign ev_idx_o = c.wqe_idx;

  logic unused;
  assign unused = ^{qcount, arm_data_i[63:34], arm_data_i[31:24], img_sh[511:DataW]};
endmodule
