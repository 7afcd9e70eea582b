// Properties of rnic_rd_resp (JobDepth 2, two QPs): the READ response
// streams and atomic ACKs it sends. Against a shadow queue per QP of the
// READ and atomic jobs taken (ACK jobs may merge in the job queue; these
// never do):
// - every frame is an ACK, a READ response or an atomic ACK;
// - a READ job becomes consecutive frames of its QP, FIRST/MIDDLE.../LAST or
//   ONLY, with PSNs from the job's PSN on, path-MTU payloads but the last,
//   which carries what is left (1 to MTU bytes, or 0 for a zero-length
//   READ), each read from the job's address plus the bytes before it; no
//   other frame of its QP comes between them (frames of the other QP may:
//   responses are ordered per QP; until stop 48 nothing came between);
// - an atomic job becomes one atomic ACK with its QPN, PSN and original
//   value, after the QP's READ and atomic jobs before it;
// - done_o pulses exactly when the last frame of a READ or atomic job that
//   is not a duplicate leaves, with its QPN;
// - the frame descriptor holds valid and data until taken;
// - once the QPs are in RESET only a frame offered before and not yet taken
//   goes out (valid is not withdrawn); every other queued job, and the rest
//   of a READ response stream, is dropped without a frame or done_o.
// Environment (assumed): the engine holds a job's valid and data until
// taken; job kinds are ACK, READ or atomic, of QP 0 or 1; the QP context
// (its path MTU, the same for both QPs) stays fixed from reset, but its
// state may become RESET in any cycle (and stays so); PSNs, addresses,
// lengths and readiness are otherwise free.
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

  // A shadow queue per QP of its READ and atomic jobs (the job queue holds
  // 2, the stream one more): sh[x][0] is QP x's oldest. An empty job queue
  // passes a job through, so with none of its QP's queued the head is the
  // one arriving (a frame sent in that cycle is its first).
  localparam int unsigned JW = rnic_pkg::RspJobW;
  logic [JW-1:0] s00, s01, s02, s10, s11, s12;   // s<QP><entry>
  logic [1:0] n0, n1, nx;
  logic [23:0] k0, k1, kx;             // the head's frames so far
  logic [31:0] db0, db1, dbx;          // and the bytes they carried
  logic take, sent, fx, push, pop, px0, px1, qx0, qx1;
  assign take = job_valid_i && job_ready_o;
  assign push = take && (jin.kind != rnic_pkg::JobAck) && !is_rst;
  assign sent = txd_valid_o && txd_ready_i;
  assign fx = f.qpn[0];                // the frame's QP
  assign nx = fx ? n1 : n0;
  assign kx = fx ? k1 : k0;
  assign dbx = fx ? db1 : db0;
  assign h = (nx == 2'd0) ? jin : fx ? s10 : s00;
  logic [31:0] left;
  logic is_rd, is_at, last;
  assign is_rd = (f.opcode >= rnic_pkg::OpReadRespFirst) && (f.opcode <= rnic_pkg::OpReadRespOnly);
  assign is_at = (f.opcode == rnic_pkg::OpAtomicAck);
  assign left = h.len - dbx;
  assign last = (left <= mtu);
  assign pop = sent && (is_at || (is_rd && last));
  assign px0 = push && !jin.qpn[0];
  assign px1 = push && jin.qpn[0];
  assign qx0 = pop && !fx;
  assign qx1 = pop && fx;

  always_ff @(posedge clk_i) begin
    if (!rst_ni) begin
      n0 <= '0;
      n1 <= '0;
      k0 <= '0;
      k1 <= '0;
      db0 <= '0;
      db1 <= '0;
    end else begin
      n0 <= n0 + 2'(px0) - 2'(qx0);
      n1 <= n1 + 2'(px1) - 2'(qx1);
      if (qx0) begin
        k0 <= '0;
        db0 <= '0;
      end else if (sent && is_rd && !fx) begin
        k0 <= k0 + 24'd1;
        db0 <= db0 + mtu;
      end
      if (qx1) begin
        k1 <= '0;
        db1 <= '0;
      end else if (sent && is_rd && fx) begin
        k1 <= k1 + 24'd1;
        db1 <= db1 + mtu;
      end
    end
    if (qx0) begin
      s00 <= s01;
      s01 <= s02;
    end
    if (qx1) begin
      s10 <= s11;
      s11 <= s12;
    end
    // (n 0 with push and pop: sent in the cycle it arrived, never stored)
    if (px0 && (n0 - 2'(qx0) == 2'd0)) s00 <= job_i;
    if (px0 && (n0 - 2'(qx0) == 2'd1)) s01 <= job_i;
    if (px0 && (n0 - 2'(qx0) == 2'd2)) s02 <= job_i;
    if (px1 && (n1 - 2'(qx1) == 2'd0)) s10 <= job_i;
    if (px1 && (n1 - 2'(qx1) == 2'd1)) s11 <= job_i;
    if (px1 && (n1 - 2'(qx1) == 2'd2)) s12 <= job_i;
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
      assume (jin.qpn[23:1] == 23'd0);

      // In RESET only a frame offered before (and not yet taken) goes out.
      if (is_rst && txd_valid_o) assert (out_wait);
      if (is_rst && done_o) assert (out_wait);
      // No QP has more READ/atomic jobs than the queue and the stream hold.
      if (px0 && !qx0) assert (n0 != 2'd3);
      if (px1 && !qx1) assert (n1 != 2'd3);
      // Every frame is one of the three; responses belong to their QP's
      // head job.
      if (txd_valid_o) begin
        assert (is_rd || is_at || (f.opcode == rnic_pkg::OpAck));
        assert (f.qpn[23:1] == 23'd0);
        // Nothing of its QP comes between the frames of a READ response.
        if (kx != 24'd0) assert (is_rd);
        if (is_rd || is_at) begin
          assert ((nx != 2'd0) || (push && (jin.qpn[0] == fx)));
          assert (f.qpn == h.qpn);
          assert (f.psn == h.psn + kx);
        end
        if (is_at) begin
          assert (h.kind == rnic_pkg::JobAtomic);
          assert (f.atomic_swap == h.orig);
        end
        if (is_rd) begin
          assert (h.kind == rnic_pkg::JobRead);
          assert (f.opcode == ((kx == 24'd0) ? (last ? rnic_pkg::OpReadRespOnly :
                                                      rnic_pkg::OpReadRespFirst) :
                               (last ? rnic_pkg::OpReadRespLast :
                                       rnic_pkg::OpReadRespMiddle)));
          assert ({19'd0, f.pay_len} == (last ? left : mtu));
          assert (f.nchunk == ((f.pay_len != 13'd0) ? 3'd1 : 3'd0));
          assert (f.chunk_addr[63:0] == h.addr + {32'd0, dbx});
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
