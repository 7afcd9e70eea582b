// Properties of rnic_rd_resp (JobDepth 2): the READ response streams and
// atomic ACKs it sends. Against a shadow queue of the READ and atomic jobs
// taken (ACK jobs may merge in the job queue; these never do):
// - every frame is an ACK, a READ response or an atomic ACK;
// - a READ job becomes consecutive frames of its QP, FIRST/MIDDLE.../LAST or
//   ONLY, with PSNs from the job's PSN on, path-MTU payloads but the last,
//   which carries what is left (1 to MTU bytes, or 0 for a zero-length
//   READ), each read from the job's address plus the bytes before it; no
//   other frame comes between them;
// - an atomic job becomes one atomic ACK with its QPN, PSN and original value;
// - done_o pulses exactly when the last frame of a READ or atomic job that
//   is not a duplicate leaves, with its QPN;
// - the frame descriptor holds valid and data until taken;
// - once the QP is in RESET only a frame offered before and not yet taken
//   goes out (valid is not withdrawn); every other queued job, and the rest
//   of a READ response stream, is dropped without a frame or done_o.
// Environment (assumed): the engine holds a job's valid and data until
// taken; job kinds are ACK, READ or atomic; the QP context (its path MTU)
// stays fixed from reset, but its state may become RESET in any cycle (and
// stays so); QPNs, PSNs, addresses, lengths and readiness are otherwise
// free.
module fv_rnic_rd_resp (
  input logic        clk_i,
  input logic        rst_ni,
  input logic        job_valid_i,
  input logic [rnic_pkg::RspJobW-1:0] job_i,
  input logic [rnic_pkg::QpCfgW-1:0] ctx_free_i,  // the context, taken at reset
  input logic        qp_reset_i,                  // the QP moves to RESET
  input logic        txd_ready_i
);
  logic job_ready_o, txd_valid_o, done_o, quiet_o;
  logic [23:0] ctx_idx_o, done_qpn_o;
  logic [rnic_pkg::TxdW-1:0] txd_o;
  logic [rnic_pkg::QpCfgW-1:0] ctx_i;

  rnic_rd_resp #(.JobDepth(2)) dut (
    .clk_i, .rst_ni, .job_valid_i, .job_ready_o, .job_i, .ctx_idx_o, .ctx_i,
    .txd_valid_o, .txd_ready_i, .txd_o, .done_o, .done_qpn_o, .quiet_o
  );

  logic ran;
  always_ff @(posedge clk_i) ran <= ran || !rst_ni;
  always_comb assume (rst_ni == ran);

  rnic_pkg::qp_cfg_t ctx0, ctx;
  logic gone_q;
  always_ff @(posedge clk_i) begin
    if (!rst_ni) begin
      ctx0 <= ctx_free_i;
      gone_q <= 1'b0;
    end else if (qp_reset_i) begin
      gone_q <= 1'b1;
    end
  end
  always_comb begin
    ctx = ctx0;
    if (gone_q) ctx.state = rnic_pkg::QpsReset;
  end
  assign ctx_i = ctx;
  logic is_rst;
  assign is_rst = (ctx.state == rnic_pkg::QpsReset);
  logic [31:0] mtu;
  assign mtu = {19'd0, rnic_pkg::mtu_bytes(ctx.pmtu)};

  rnic_pkg::rsp_job_t jin, h;
  rnic_pkg::txd_t f;
  assign jin = job_i;
  assign f = txd_o;

  // Shadow queue of READ and atomic jobs (the job queue holds 2, one more
  // may be in the frame being sent): h is the oldest. An empty job queue
  // passes a job through, so with none queued the head is the one arriving
  // (a frame sent in that cycle is its first; it is stored only if more
  // frames follow).
  logic [rnic_pkg::RspJobW-1:0] sh0, sh1, sh2;
  logic [1:0] n;
  logic push, pop, take, sent;
  assign h = (n == 2'd0) ? jin : sh0;
  assign take = job_valid_i && job_ready_o;
  assign push = take && (jin.kind != rnic_pkg::JobAck) && !is_rst;
  assign sent = txd_valid_o && txd_ready_i;
  // The head's frames so far and the bytes they carried.
  logic [23:0] k;
  logic [31:0] done_bytes, left;
  logic is_rd, is_at, last;
  assign is_rd = (f.opcode >= rnic_pkg::OpReadRespFirst) && (f.opcode <= rnic_pkg::OpReadRespOnly);
  assign is_at = (f.opcode == rnic_pkg::OpAtomicAck);
  assign left = h.len - done_bytes;
  assign last = (left <= mtu);
  assign pop = sent && (is_at || (is_rd && last));

  always_ff @(posedge clk_i) begin
    if (!rst_ni) begin
      n <= '0;
      k <= '0;
      done_bytes <= '0;
    end else begin
      n <= n + 2'(push) - 2'(pop);
      if (pop) begin
        k <= '0;
        done_bytes <= '0;
      end else if (sent && is_rd) begin
        k <= k + 24'd1;
        done_bytes <= done_bytes + mtu;
      end
    end
    if (pop) begin
      sh0 <= sh1;
      sh1 <= sh2;
    end
    // (n 0 with push and pop: sent in the cycle it arrived, never stored)
    if (push && (n - 2'(pop) == 2'd0)) sh0 <= job_i;
    if (push && (n - 2'(pop) == 2'd1)) sh1 <= job_i;
    if (push && (n - 2'(pop) == 2'd2)) sh2 <= job_i;
  end

  logic in_wait, out_wait;
  logic [rnic_pkg::RspJobW-1:0] in_q;
  logic [rnic_pkg::TxdW-1:0] out_q;
  always_ff @(posedge clk_i) begin
    in_wait <= rst_ni && job_valid_i && !job_ready_o;
    out_wait <= rst_ni && txd_valid_o && !txd_ready_i;
    in_q <= job_i;
    out_q <= txd_o;
  end

  always_comb begin
    if (rst_ni && ran) begin
      if (in_wait) begin
        assume (job_valid_i);
        assume (job_i == in_q);
      end
      assume (jin.kind != 2'd3);

      // In RESET only a frame offered before (and not yet taken) goes out.
      if (is_rst && txd_valid_o) assert (out_wait);
      if (is_rst && done_o) assert (out_wait);
      assert (n != 2'd3);
      // Every frame is one of the three; responses belong to the head job.
      if (txd_valid_o) begin
        assert (is_rd || is_at || (f.opcode == rnic_pkg::OpAck));
        // Nothing comes between the frames of a READ response.
        if (k != 24'd0) assert (is_rd);
        if (is_rd || is_at) begin
          assert ((n != 2'd0) || push);
          assert (f.qpn == h.qpn);
          assert (f.psn == h.psn + k);
        end
        if (is_at) begin
          assert (h.kind == rnic_pkg::JobAtomic);
          assert (f.atomic_swap == h.orig);
        end
        if (is_rd) begin
          assert (h.kind == rnic_pkg::JobRead);
          assert (f.opcode == ((k == 24'd0) ? (last ? rnic_pkg::OpReadRespOnly :
                                                      rnic_pkg::OpReadRespFirst) :
                               (last ? rnic_pkg::OpReadRespLast :
                                       rnic_pkg::OpReadRespMiddle)));
          assert ({19'd0, f.pay_len} == (last ? left : mtu));
          assert (f.nchunk == ((f.pay_len != 13'd0) ? 3'd1 : 3'd0));
          assert (f.chunk_addr[63:0] == h.addr + {32'd0, done_bytes});
          assert (f.chunk_len[12:0] == f.pay_len);
        end
      end
      // A READ or atomic job that is not a duplicate frees its resource
      // when its last frame leaves, and only then.
      assert (done_o == (pop && !h.dup));
      if (done_o) assert (done_qpn_o == h.qpn);
      if (out_wait) begin
        assert (txd_valid_o);
        assert (txd_o == out_q);
      end
    end
  end
endmodule
