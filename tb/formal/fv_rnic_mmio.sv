// Properties of rnic_mmio (4 QPs, CQs and MRs): the BAR's request
// handshake, its read answers, the doorbell queues and the command strobes.
// - A request stalls (mmio_ready_o low) only as a doorbell write whose
//   queue is full; every read is answered exactly once, in the next cycle,
//   and a write never.
// - Each accepted doorbell write reaches its queue exactly once, in the
//   cycle it is accepted (SQ doorbells and BlueFlame words to the SQ queue
//   with the word's slot, RQ and SRQ doorbells to the RQ queue with bit 63
//   marking an SRQ's, CQ doorbells as a pulse), with the written data (bit
//   63 only for a BlueFlame word, which is WQE data); no doorbell leaves
//   otherwise.
// - A read returns the device id, the last value written to a command
//   argument or the port MAC/IP, and the busy bit of a queue-resetting
//   QP write or an MR invalidation until quiet_i says the NIC is quiet, and
//   of a CQ invalidation until cq_quiet_i (no doorbell-record read under way).
// - At most one context strobe per cycle, only for a GO write of its
//   command with an index inside its table.
// Environment (assumed): nothing; every input is free (the host's requests,
// the doorbell queues' readiness, quiet_i, the query answers, counters).
module fv_rnic_mmio (
  input logic        clk_i,
  input logic        rst_ni,
  input logic        mmio_valid_i,
  input logic        mmio_we_i,
  input logic [15:0] mmio_addr_i,
  input logic [63:0] mmio_wdata_i,
  input logic [3:0]  qp_query_state_i,
  input logic [47:0] qp_query_psn_i,
  input logic        sq_db_ready_i,
  input logic        rq_db_ready_i,
  input logic [63:0] cnt_tx_pkts_i,
  input logic [63:0] cnt_rx_pkts_i,
  input logic [63:0] cnt_rx_drop_i,
  input logic [63:0] cnt_dma_rd_err_i,
  input logic        quiet_i,
  input logic        cq_quiet_i
);
  localparam int unsigned N = 4;
  logic mmio_ready_o, mmio_rvalid_o, qp_wr_o, cq_wr_o, mr_wr_o, srq_wr_o;
  logic sq_db_valid_o, rq_db_valid_o, cq_db_valid_o, quiet_o;
  logic [63:0] mmio_rdata_o, db_data_o;
  logic [47:0] port_mac_o;
  logic [31:0] port_ip_o;
  logic [23:0] cmd_idx_o, qp_query_idx_o;
  logic [8*64-1:0] cmd_args_o;
  logic [3:0] db_bf_o;

  rnic_mmio #(.DataW(256), .NQp(N), .NCq(N), .NMr(N), .MaxRdOut(32)) dut (
    .clk_i, .rst_ni, .mmio_valid_i, .mmio_ready_o, .mmio_we_i, .mmio_addr_i, .mmio_wdata_i,
    .mmio_rvalid_o, .mmio_rdata_o, .port_mac_o, .port_ip_o, .qp_wr_o, .cq_wr_o, .mr_wr_o,
    .srq_wr_o, .cmd_idx_o, .cmd_args_o, .qp_query_idx_o, .qp_query_state_i, .qp_query_psn_i,
    .sq_db_valid_o, .sq_db_ready_i, .rq_db_valid_o, .rq_db_ready_i, .cq_db_valid_o,
    .db_data_o, .db_bf_o, .cnt_tx_pkts_i, .cnt_rx_pkts_i, .cnt_rx_drop_i, .cnt_dma_rd_err_i,
    .quiet_i, .cq_quiet_i, .quiet_o
  );

  logic ran;
  always_ff @(posedge clk_i) ran <= ran || !rst_ni;
  always_comb assume (rst_ni == ran);

  logic [15:0] a;
  logic wr_req, rd_req, acc_wr, is_sq, is_bf, is_rq, is_srq, is_cq, go, inval;
  assign a = mmio_addr_i;
  assign wr_req = mmio_valid_i && mmio_we_i;
  assign rd_req = mmio_valid_i && !mmio_we_i;
  assign acc_wr = wr_req && mmio_ready_o;
  assign is_bf = (a >= 16'h1040) && (a < 16'h1080);
  assign is_sq = (a == 16'h1000) || is_bf;
  assign is_rq = (a == 16'h1008);
  assign is_srq = (a == 16'h1018);
  assign is_cq = (a == 16'h1010);
  assign go = acc_wr && (a == 16'h140);

  // Shadows: the argument registers and the port identity as written, the
  // command status's busy bit, and the read in flight.
  logic [8*64-1:0] arg_sh;  // flat: registers, not a memory, for Yosys
  logic [47:0] mac_sh;
  logic [31:0] ip_sh;
  logic busy_sh, busy_cq_sh, rd_q;
  logic [15:0] rd_addr_q;
  logic [63:0] rd_exp_q;
  logic rd_chk_q;
  assign inval = go && (mmio_wdata_i[7:0] == 8'h20) && (mmio_wdata_i[31:8] < 24'(N)) &&
                 !arg_sh[32];
  logic cq_inval;
  assign cq_inval = go && (mmio_wdata_i[7:0] == 8'h10) && (mmio_wdata_i[31:8] < 24'(N)) &&
                    !arg_sh[8];
  logic reset_go;
  assign reset_go = go && (mmio_wdata_i[7:0] == 8'h01) && (mmio_wdata_i[31:8] < 24'(N)) &&
                    (arg_sh[64 + 24 + rnic_pkg::QpFlagResetSq] ||
                     arg_sh[64 + 24 + rnic_pkg::QpFlagResetRq]);
  always_ff @(posedge clk_i) begin
    if (!rst_ni) begin
      arg_sh <= '0;
      mac_sh <= '0;
      ip_sh <= '0;
      busy_sh <= 1'b0;
      busy_cq_sh <= 1'b0;
      rd_q <= 1'b0;
      rd_chk_q <= 1'b0;
    end else begin
      if (acc_wr && (a >= 16'h100) && (a < 16'h140)) arg_sh[64*a[5:3] +: 64] <= mmio_wdata_i;
      if (acc_wr && (a == 16'h010)) mac_sh <= mmio_wdata_i[47:0];
      if (acc_wr && (a == 16'h018)) ip_sh <= mmio_wdata_i[31:0];
      if (reset_go || inval) busy_sh <= 1'b1;
      else if (quiet_i) busy_sh <= 1'b0;
      if (cq_inval) busy_cq_sh <= 1'b1;
      else if (cq_quiet_i) busy_cq_sh <= 1'b0;
      rd_q <= rd_req;
      rd_addr_q <= a;
      // What a read of these registers must return.
      rd_chk_q <= rd_req && ((a == 16'h000) || (a == 16'h010) || (a == 16'h018) ||
                             (a == 16'h148) || ((a >= 16'h100) && (a < 16'h140) &&
                                                (a[2:0] == 3'd0)));
      if (a == 16'h000) rd_exp_q <= 64'h524e_4943_0001_0000;
      else if (a == 16'h010) rd_exp_q <= {16'd0, mac_sh};
      else if (a == 16'h018) rd_exp_q <= {32'd0, ip_sh};
      else if (a == 16'h148) rd_exp_q <= {63'd0, busy_sh || busy_cq_sh};
      else rd_exp_q <= arg_sh[64*a[5:3] +: 64];
    end
  end

  always_comb begin
    if (rst_ni && ran) begin
      // Stalls: only a doorbell write whose queue is full.
      if (mmio_valid_i) begin
        assert (mmio_ready_o == !(mmio_we_i && ((is_sq && !sq_db_ready_i) ||
                                                ((is_rq || is_srq) && !rq_db_ready_i))));
      end
      // Reads: one answer, in the next cycle.
      assert (mmio_rvalid_o == rd_q);
      if (rd_chk_q) begin
        if (rd_addr_q == 16'h148) begin
          assert (mmio_rdata_o[0] == rd_exp_q[0]);
        end else begin
          assert (mmio_rdata_o == rd_exp_q);
        end
      end
      // Doorbells: exactly the accepted doorbell writes, with their data.
      assert ((sq_db_valid_o && sq_db_ready_i) == (acc_wr && is_sq));
      assert ((rq_db_valid_o && rq_db_ready_i) == (acc_wr && (is_rq || is_srq)));
      assert (cq_db_valid_o == (acc_wr && is_cq));
      if (sq_db_valid_o) begin
        assert (db_data_o == {is_bf && mmio_wdata_i[63], mmio_wdata_i[62:0]});
        assert (db_bf_o == {is_bf, a[5:3]});
      end
      if (rq_db_valid_o) assert (db_data_o == {is_srq, mmio_wdata_i[62:0]});
      if (cq_db_valid_o) assert (db_data_o == {1'b0, mmio_wdata_i[62:0]});
      // Context strobes: one at most, for a GO of its command in range.
      assert (!(qp_wr_o && (cq_wr_o || mr_wr_o || srq_wr_o)));
      assert (!(cq_wr_o && (mr_wr_o || srq_wr_o)));
      assert (!(mr_wr_o && srq_wr_o));
      if (qp_wr_o || cq_wr_o || mr_wr_o || srq_wr_o) begin
        assert (go && (mmio_wdata_i[31:8] < 24'(N)));
        assert (cmd_idx_o == mmio_wdata_i[31:8]);
      end
      if (qp_wr_o) assert (mmio_wdata_i[7:0] == 8'h01);
      if (cq_wr_o) assert (mmio_wdata_i[7:0] == 8'h10);
      if (mr_wr_o) assert (mmio_wdata_i[7:0] == 8'h20);
      if (srq_wr_o) assert (mmio_wdata_i[7:0] == 8'h30);
      assert (cmd_args_o == arg_sh);
      assert (quiet_o == (!busy_sh && !busy_cq_sh && !mmio_rvalid_o));
      assert (port_mac_o == mac_sh);
      assert (port_ip_o == ip_sh);
    end
  end
endmodule
