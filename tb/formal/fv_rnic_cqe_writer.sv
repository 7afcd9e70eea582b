// Properties of rnic_cqe_writer (2 CQs, 256-bit data: a CQE is 2 beats;
// queue Depth 2, one moderation slot): a CQE write holds valid, address,
// data and last until taken, and so does the doorbell-record read request;
// events go in before completions; each CQ's CQEs go to consecutive ring
// slots (base + 64 * (n mod size) for its n-th CQE) with the owner bit of
// the pass; no CQE is written over one that software has not consumed as
// far as the writer knows (its n minus the consumer index last read from the
// doorbell record stays below the ring size); nothing is written to a CQ
// that does not exist or after its CQ_ERR event; every event record
// interrupts in the next cycle. Shadow counters in this wrapper, not the
// block's, give n and the consumer index.
// Environment (assumed): the driver creates the two CQs (a context write
// each) before any traffic, and their contexts stay fixed (CQ 0, the event
// queue, valid with no doorbell record; CQ 1 free, ring of at most 4 CQEs);
// completions go to CQ 1; the engine sends no CQ_ERR events; producers hold valid and data until
// taken; a doorbell-record response comes only when the writer waits for it.
module fv_rnic_cqe_writer (
  input logic        clk_i,
  input logic        rst_ni,
  input logic        cqe_valid_i,
  input logic [rnic_pkg::CqeReqW-1:0] cqe_i,
  input logic        aev_valid_i,
  input logic [31:0] aev_i,
  input logic        arm_valid_i,
  input logic [63:0] arm_data_i,
  input logic        rd_req_ready_i,
  input logic        rd_rsp_valid_i,
  input logic [255:0] rd_rsp_data_i,
  input logic        rd_rsp_err_i,
  input logic        wr_ready_i,
  input logic [rnic_pkg::CqCfgW-1:0] cq0_i,  // the contexts, taken at reset
  input logic [rnic_pkg::CqCfgW-1:0] cq1_i
);
  localparam int unsigned DataW = 256;
  logic cqe_ready_o, aev_ready_o, rd_req_valid_o, rd_rsp_ready_o, wr_valid_o, wr_last_o;
  logic irq_valid_o, ev_send_o, ev_recv_o, idle_o, quiet_o;
  logic [15:0] ctx_idx_o, rd_req_len_o, wr_len_o, irq_cqn_o, ev_idx_o;
  logic [63:0] rd_req_addr_o, wr_addr_o;
  logic [DataW-1:0] wr_data_o;
  logic [23:0] ev_qpn_o;
  logic [rnic_pkg::CqCfgW-1:0] ctx_i;

  rnic_cqe_writer #(.DataW(DataW), .NCq(2), .Depth(2), .ModSlots(1), .ClkPerUs(2)) dut (
    .clk_i, .rst_ni, .cqe_valid_i, .cqe_ready_o, .cqe_i, .aev_valid_i, .aev_ready_o, .aev_i,
    .cq_wr_i, .cq_wr_idx_i, .arm_valid_i, .arm_data_i, .ctx_idx_o, .ctx_i,
    .rd_req_valid_o, .rd_req_ready_i, .rd_req_addr_o, .rd_req_len_o, .rd_rsp_valid_i,
    .rd_rsp_ready_o, .rd_rsp_data_i, .rd_rsp_err_i, .wr_valid_o, .wr_ready_i, .wr_addr_o,
    .wr_len_o, .wr_data_o, .wr_last_o, .irq_valid_o, .irq_cqn_o, .ev_send_o, .ev_recv_o,
    .ev_qpn_o, .ev_idx_o, .idle_o, .quiet_o
  );

  logic ran;
  always_ff @(posedge clk_i) ran <= ran || !rst_ni;
  always_comb assume (rst_ni == ran);

  // The driver creates both CQs first (a context write each, which clears
  // their producer index, error and arm state; those tables have no reset).
  logic [1:0] init_q;
  logic cq_wr_i;
  logic [23:0] cq_wr_idx_i;
  always_ff @(posedge clk_i) begin
    if (!rst_ni) init_q <= '0;
    else if (init_q != 2'd2) init_q <= init_q + 2'd1;
  end
  assign cq_wr_i = rst_ni && (init_q != 2'd2);
  assign cq_wr_idx_i = 24'(init_q[0]);

  // The CQ table, fixed from reset on.
  rnic_pkg::cq_cfg_t cq0, cq1, ctx;
  always_ff @(posedge clk_i) begin
    if (!rst_ni) begin
      cq0 <= cq0_i;
      cq1 <= cq1_i;
    end
  end
  assign ctx = ctx_idx_o[0] ? cq1 : cq0;
  assign ctx_i = ctx;

  // Shadows: CQEs written per CQ (the ring position n), the consumer index
  // last read from CQ 1's doorbell record, CQ 1 reported in error.
  logic [31:0] n0, n1, ci1;
  logic err1;
  logic [31:0] n_cur;
  logic [31:0] size;
  logic take, done;
  assign n_cur = ctx_idx_o[0] ? n1 : n0;
  assign size = 32'd1 << ctx.log_size;
  assign take = wr_valid_o && wr_ready_i;
  assign done = take && wr_last_o;

  // The record being written: beat 0 holds byte_len..src_qp, beat 1 the owner bit.
  logic is_ev_rec, ev_cq_err;
  assign is_ev_rec = (ctx_idx_o == rnic_pkg::EvCqn);
  assign ev_cq_err = is_ev_rec && !wr_last_o && (wr_data_o[119:112] == rnic_pkg::EvCqErr) &&
                     (wr_data_o[87:64] == 24'd1);
  logic cq_err_seen_q;  // beat 0 of a CQ_ERR record of CQ 1 went out

  always_ff @(posedge clk_i) begin
    if (!rst_ni) begin
      n0 <= '0;
      n1 <= '0;
      ci1 <= '0;
      err1 <= 1'b0;
      cq_err_seen_q <= 1'b0;
    end else begin
      if (done && !ctx_idx_o[0]) n0 <= n0 + 32'd1;
      if (done && ctx_idx_o[0]) n1 <= n1 + 32'd1;
      // Only CQ 1 has a doorbell record: every read is of it (a read ahead
      // may return while an event is the head). An index outside ci..n is
      // not taken.
      if (rd_rsp_valid_i && rd_rsp_ready_o && !rd_rsp_err_i &&
          ((rd_rsp_data_i[31:0] - ci1) <= (n1 - ci1)))
        ci1 <= rd_rsp_data_i[31:0];
      if (take && ev_cq_err) cq_err_seen_q <= 1'b1;
      if (done && cq_err_seen_q) err1 <= 1'b1;
    end
  end

  logic wr_wait, rd_wait, cqe_wait, aev_wait, ev_done_q;
  logic [63:0] wr_addr_w, rd_addr_w;
  logic [DataW-1:0] wr_data_w;
  logic wr_last_w;
  logic [rnic_pkg::CqeReqW-1:0] cqe_w;
  logic [31:0] aev_w;
  always_ff @(posedge clk_i) begin
    wr_wait <= rst_ni && wr_valid_o && !wr_ready_i;
    rd_wait <= rst_ni && rd_req_valid_o && !rd_req_ready_i;
    cqe_wait <= rst_ni && cqe_valid_i && !cqe_ready_o;
    aev_wait <= rst_ni && aev_valid_i && !aev_ready_o;
    ev_done_q <= rst_ni && done && is_ev_rec;
    wr_addr_w <= wr_addr_o;
    wr_data_w <= wr_data_o;
    wr_last_w <= wr_last_o;
    rd_addr_w <= rd_req_addr_o;
    cqe_w <= cqe_i;
    aev_w <= aev_i;
  end

  rnic_pkg::cqe_req_t cin;
  assign cin = cqe_i;

  always_comb begin
    if (rst_ni) begin
      // Environment
      if (ran) begin
        assume (cq0.valid && (cq0.dbrec == '0));
        assume (cq1.log_size <= 5'd2);
      end
      assume (cin.cqn == 16'd1);
      if (cq_wr_i) assume (!cqe_valid_i && !aev_valid_i && !arm_valid_i);
      // The engine's events are QP and SRQ events; CQ_ERR is the writer's own.
      assume (aev_i[31:24] != rnic_pkg::EvCqErr);
      if (cqe_wait) assume (cqe_valid_i && (cqe_i == cqe_w));
      if (aev_wait) assume (aev_valid_i && (aev_i == aev_w));
      if (rd_rsp_valid_i) assume (rd_rsp_ready_o);

      // The write port and the read request hold until taken.
      if (wr_wait) begin
        assert (wr_valid_o);
        assert (wr_addr_o == wr_addr_w && wr_data_o == wr_data_w && wr_last_o == wr_last_w);
      end
      if (rd_wait) assert (rd_req_valid_o && (rd_req_addr_o == rd_addr_w));
      // Events first.
      if (cqe_ready_o) assert (!aev_valid_i);
      if (wr_valid_o) begin
        // Only to a CQ that exists, not after its CQ_ERR event.
        assert (ctx.valid);
        if (ctx_idx_o[0]) assert (!err1);
        // The next ring slot, with the owner bit of the pass.
        assert (wr_addr_o == ctx.base + ({32'd0, n_cur & (size - 32'd1)} << 6));
        assert (wr_len_o == 16'd64);
        if (wr_last_o) assert (wr_data_o[504-DataW] == n_cur[ctx.log_size]);
        // Never over an unconsumed CQE.
        if (ctx_idx_o[0] && (ctx.dbrec != '0)) assert ((n1 - ci1) < size);
      end
      if (ev_done_q) assert (irq_valid_o && (irq_cqn_o == rnic_pkg::EvCqn));
    end
  end
endmodule
