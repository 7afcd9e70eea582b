// rnic_cqe_writer: writes 64-byte CQEs into the CQ ring in host memory with the
// owner bit of the current pass, and raises the interrupt of an armed CQ.
//
// Overrun: before a CQE would fill the ring beyond its size, the writer reads
// the CQ's doorbell record (the consumer index software keeps in host memory)
// by DMA; if the ring is still full the CQE is lost, the CQ is in error from
// then on (its later CQEs are dropped too) and an IBV_EVENT_CQ_ERR event goes
// to the event queue. A consumer index outside the CQEs written since the
// last read is not taken. So that a busy CQ rarely waits for that read, the
// record is also read ahead, while CQEs keep going out, when the CQEs
// written since the last read reach half the ring. Asynchronous events (from the transport engine, and
// CQ errors) are written as CQE-sized records to CQ 0, the device's event
// queue, which always interrupts. Events go first, then completions.
//
// CQ moderation (ibv_modify_cq): a CQ_DB write with bit 34 sets a CQ's
// count and period; an armed CQ with either then interrupts once `count`
// CQEs that would have interrupted were written, or `period` microseconds
// (ClkPerUs cycles each) after the first of them, whichever comes first.
// Its pending CQEs are counted in one of ModSlots slots, each with a
// countdown; a CQE that finds no free slot interrupts at once. Count and
// period 0 (the state after the CQ is created) is no moderation.
module rnic_cqe_writer #(
  parameter int unsigned DataW = 256,
  parameter int unsigned NCq = 1024,
  parameter int unsigned Depth = 4,
  parameter int unsigned ModSlots = 4,
  parameter int unsigned ClkPerUs = 250
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
  // CQ context writes (reset the producer index), arm and moderation
  // doorbells ([15:0] CQN, [31:16] count, [34] moderation, [50:35] period)
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
  // Nothing queued or being written (a QP reset command waits for it; a
  // doorbell-record read is not a QP's DMA)
  output logic        idle_o,
  // No doorbell-record read under way (a CQ destroy command waits for it)
  output logic        dbrec_idle_o,
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

  // An empty queue offers the arriving entry in the same cycle (its first
  // beat goes out then) and stores it unless it also leaves in that cycle.
  logic qv, qpop, q_sv, q_push;
  logic [rnic_pkg::CqeReqW-1:0] qd, q_sd;
  logic [$clog2(Depth):0] qcount;
  rnic_fifo #(.Width(rnic_pkg::CqeReqW), .Depth(Depth)) u_q (
    .clk_i, .rst_ni,
    .in_valid_i(q_push), .in_ready_o(q_in_ready), .in_data_i(q_in),
    .out_valid_o(q_sv), .out_ready_i(qpop && q_sv), .out_data_o(q_sd),
    .count_o(qcount)
  );
  assign qv = q_sv || q_in_valid;
  assign qd = q_sv ? q_sd : q_in;
  assign q_push = q_in_valid && (q_sv || !qpop);

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

  // Doorbell-record read: 0 idle, 1 request, 2 data, 3 decide. The read is
  // of CQ rd_cq_q; a read ahead (pf_q) decides nothing. pf_want_q: a read
  // ahead of CQ pf_cq_q waits to start (one at a time; another CQ's is not
  // taken meanwhile, its CQEs wait for a read when their ring looks full).
  logic [1:0] rd_st_q;
  logic pf_q, pf_want_q, rd_void_q;
  logic [CqW-1:0] rd_cq_q, pf_cq_q;
  logic [63:0] rd_addr_q, pf_addr_q;
  assign rd_req_valid_o = (rd_st_q == 2'd1);
  assign rd_req_addr_o = rd_addr_q;
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
  logic rd_free;
  assign rd_free = (rd_st_q == 2'd0) || pf_q;
  assign go = qv && ctx.valid && !err_q[n] && !full && rd_free;
  assign img_sh = img >> (beat_q * DataW);
  assign wr_valid_o = go;
  assign idle_o = !q_sv;
  assign dbrec_idle_o = (rd_st_q == 2'd0);
  assign wr_addr_o = ctx.base + ({32'd0, pi & ((32'd1 << ctx.log_size) - 32'd1)} << 6);
  assign wr_len_o = 16'd64;
  assign wr_data_o = img_sh[DataW-1:0];
  assign wr_last_o = (beat_q == BeatW'(Beats - 1));

  logic done;
  assign done = wr_valid_o && wr_ready_i && wr_last_o;
  // A CQE for a CQ that does not exist or is in error is dropped; one that
  // overruns its CQ too (rd_st_q 3 with the ring still full).
  assign drop = qv && rd_free && (!ctx.valid || err_q[n]);
  logic overrun;
  assign overrun = (rd_st_q == 2'd3) && !pf_q && full;
  // This CQE brings the CQEs written since the last read to half the ring.
  logic [31:0] half;
  logic pf_start;
  assign half = (32'd1 << ctx.log_size) >> 1;
  assign pf_start = done && !is_ev && (ctx.dbrec != '0) && (half != 32'd0) &&
                    ((pi + 32'd1 - ci_q[n]) == half);
  // A CQ created again meanwhile: the read's value is not its index.
  logic rd_cq_wr, pf_cq_wr;
  assign rd_cq_wr = cq_wr_i && (cq_wr_idx_i < 24'(NCq)) && (cq_wr_idx_i[CqW-1:0] == rd_cq_q);
  assign pf_cq_wr = cq_wr_i && (cq_wr_idx_i < 24'(NCq)) && (cq_wr_idx_i[CqW-1:0] == pf_cq_q);
  // A consumer index read is taken only if it lies between the cached one
  // and the producer index (software consumes forward, and never more
  // than was written; any other value is garbage and leaves the ring as
  // full as it was): a read may only make room, so a read ahead never
  // stops a CQE whose write has started.
  logic ci_ok;
  assign ci_ok = ((rd_rsp_data_i[31:0] - ci_q[rd_cq_q]) <= (pi_q[rd_cq_q] - ci_q[rd_cq_q]));
  // A CQE that finds its ring full reads first; a read ahead then.
  logic rd_block, pf_take;
  assign rd_block = (rd_st_q == 2'd0) && qv && ctx.valid && !err_q[n] && full;
  assign pf_take = (rd_st_q == 2'd0) && !rd_block && pf_want_q && !pf_cq_wr;
  assign qpop = done || drop || overrun;

  // A CQE that would interrupt (the CQ is armed and, for a solicited-only
  // arm, the CQE is solicited or an error).
  logic want;
  assign want = armed_q[n] && (!sol_q[n] || c.flags[rnic_pkg::CqeFlagSolicited] ||
                               (c.status != rnic_pkg::WcSuccess));

  // ---------------------------------------------------------------------------
  // Moderation: per CQ {count, period} (valid once set since the CQ was
  // created), and the slots of the moderated CQs with CQEs pending
  // ---------------------------------------------------------------------------
  localparam int unsigned SlotW = (ModSlots > 1) ? $clog2(ModSlots) : 1;
  localparam int unsigned DownW = 16 + $clog2(ClkPerUs + 1);
  logic [31:0] mod_q [NCq];   // {period us, count}
  logic mod_on_q [NCq];
  logic mod_wr, arm_wr;
  assign mod_wr = arm_valid_i && arm_data_i[34] && (32'(arm_data_i[15:0]) < 32'(NCq));
  assign arm_wr = arm_valid_i && !arm_data_i[34] && (arm_data_i[23:0] < 24'(NCq));

  logic [15:0] mcnt, mper;
  assign mcnt = mod_on_q[n] ? mod_q[n][15:0] : 16'd0;
  assign mper = mod_on_q[n] ? mod_q[n][31:16] : 16'd0;
  logic moderated;
  assign moderated = !is_ev && ((mcnt > 16'd1) || (mper != 16'd0));

  logic [ModSlots-1:0] sv_q;
  logic [CqW-1:0] scq_q [ModSlots];
  logic [15:0] scnt_q [ModSlots];
  logic [DownW-1:0] sdown_q [ModSlots];  // cycles left; 0: no period; 1: due

  logic hit, has_free, tdue;
  logic [SlotW-1:0] hit_idx, free_idx, tidx;
  always_comb begin
    hit = 1'b0;
    hit_idx = '0;
    has_free = 1'b0;
    free_idx = '0;
    tdue = 1'b0;
    tidx = '0;
    for (int unsigned k = 0; k < ModSlots; k++) begin
      if (sv_q[k] && (scq_q[k] == n) && !hit) begin
        hit = 1'b1;
        hit_idx = SlotW'(k);
      end
      if (!sv_q[k] && !has_free) begin
        has_free = 1'b1;
        free_idx = SlotW'(k);
      end
      if (sv_q[k] && (sdown_q[k] == DownW'(1)) && !tdue) begin
        tdue = 1'b1;
        tidx = SlotW'(k);
      end
    end
  end
  logic [15:0] cnt_now;
  assign cnt_now = (hit ? scnt_q[hit_idx] : 16'd0) + 16'd1;
  logic reach;
  assign reach = (mcnt != 16'd0) && (cnt_now >= mcnt);

  // A CQE interrupts now, or is counted in its CQ's slot (a new one if it
  // has none); a slot whose period ran out interrupts when no CQE does.
  logic fire, hold, tfire;
  assign fire = done && (is_ev || (want && (!moderated || reach || (!hit && !has_free))));
  assign hold = done && want && moderated && !fire;
  assign tfire = tdue && !fire;

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      beat_q <= '0;
      irq_valid_o <= 1'b0;
      irq_cqn_o <= '0;
      rd_st_q <= 2'd0;
      ovf_v_q <= 1'b0;
      ovf_cqn_q <= '0;
      pf_q <= 1'b0;
      pf_want_q <= 1'b0;
      rd_void_q <= 1'b0;
      rd_cq_q <= '0;
      pf_cq_q <= '0;
      rd_addr_q <= '0;
      pf_addr_q <= '0;
    end else begin
      // A read ahead waits until the read port is free; one of a CQ created
      // again meanwhile is dropped.
      pf_want_q <= (pf_start && !pf_want_q) || (pf_want_q && !pf_take && !pf_cq_wr);
      if (pf_start && !pf_want_q) begin
        pf_cq_q <= n;
        pf_addr_q <= ctx.dbrec;
      end
      rd_void_q <= (rd_st_q != 2'd0) && (rd_void_q || rd_cq_wr);
      irq_valid_o <= fire || tfire;
      irq_cqn_o <= fire ? c.cqn : 16'(scq_q[tidx]);
      if (wr_valid_o && wr_ready_i) beat_q <= wr_last_o ? '0 : beat_q + 1'b1;
      if (ovf_v_q && q_in_ready) ovf_v_q <= 1'b0;
      unique case (rd_st_q)
        2'd0: begin
          if (rd_block) begin
            rd_st_q <= 2'd1;
            pf_q <= 1'b0;
            rd_cq_q <= n;
            rd_addr_q <= ctx.dbrec;
          end else if (pf_take) begin
            rd_st_q <= 2'd1;
            pf_q <= 1'b1;
            rd_cq_q <= pf_cq_q;
            rd_addr_q <= pf_addr_q;
          end
        end
        2'd1: if (rd_req_ready_i) rd_st_q <= 2'd2;
        2'd2: if (rd_rsp_valid_i) rd_st_q <= 2'd3;
        default: begin
          rd_st_q <= 2'd0;
          pf_q <= 1'b0;
          if (!pf_q && full) begin
            ovf_v_q <= 1'b1;
            ovf_cqn_q <= c.cqn;
          end
        end
      endcase
    end
  end

  // Slots: taken by a held CQE, counted down, freed by the interrupt or
  // when their CQ is disarmed or created again.
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      sv_q <= '0;
      for (int unsigned k = 0; k < ModSlots; k++) begin
        scq_q[k] <= '0;
        scnt_q[k] <= '0;
        sdown_q[k] <= '0;
      end
    end else begin
      for (int unsigned k = 0; k < ModSlots; k++) begin
        if (sv_q[k] && (sdown_q[k] > DownW'(1))) sdown_q[k] <= sdown_q[k] - 1'b1;
        if (sv_q[k] && ((arm_wr && !arm_data_i[32] && (scq_q[k] == arm_data_i[CqW-1:0])) ||
                        (cq_wr_i && (cq_wr_idx_i < 24'(NCq)) &&
                         (scq_q[k] == cq_wr_idx_i[CqW-1:0]))))
          sv_q[k] <= 1'b0;
      end
      if (hold && hit) scnt_q[hit_idx] <= cnt_now;
      if (hold && !hit) begin
        sv_q[free_idx] <= 1'b1;
        scq_q[free_idx] <= n;
        scnt_q[free_idx] <= 16'd1;
        sdown_q[free_idx] <= DownW'(mper) * DownW'(ClkPerUs);
      end
      if (fire && hit) sv_q[hit_idx] <= 1'b0;
      if (tfire) sv_q[tidx] <= 1'b0;
    end
  end

  always_ff @(posedge clk_i) begin
    if (mod_wr) mod_q[arm_data_i[CqW-1:0]] <= {arm_data_i[50:35], arm_data_i[31:16]};
  end

  always_ff @(posedge clk_i) begin
    if (done) pi_q[n] <= pi + 32'd1;
    if (fire && !is_ev) armed_q[n] <= 1'b0;
    if (tfire) armed_q[scq_q[tidx]] <= 1'b0;
    if (mod_wr) mod_on_q[arm_data_i[CqW-1:0]] <= 1'b1;
    // A record that could not be read leaves the cached index as it was
    // (the CQE is then treated as an overrun).
    if ((rd_st_q == 2'd2) && rd_rsp_valid_i && !rd_rsp_err_i && !rd_void_q && !rd_cq_wr && ci_ok)
      ci_q[rd_cq_q] <= rd_rsp_data_i[31:0];
    if (overrun) err_q[n] <= 1'b1;
    if (arm_wr) begin
      armed_q[arm_data_i[CqW-1:0]] <= arm_data_i[32];
      sol_q[arm_data_i[CqW-1:0]] <= arm_data_i[33];
    end
    if (cq_wr_i && (cq_wr_idx_i < 24'(NCq))) begin
      pi_q[cq_wr_idx_i[CqW-1:0]] <= '0;
      ci_q[cq_wr_idx_i[CqW-1:0]] <= '0;
      err_q[cq_wr_idx_i[CqW-1:0]] <= 1'b0;
      armed_q[cq_wr_idx_i[CqW-1:0]] <= 1'b0;
      mod_on_q[cq_wr_idx_i[CqW-1:0]] <= 1'b0;
    end
  end

  // A slot counts down every cycle: not quiet while one is taken.
  assign quiet_o = !q_sv && !ovf_v_q && (rd_st_q == 2'd0) && !pf_want_q && !irq_valid_o &&
                   (sv_q == '0);

  assign ev_send_o = done && !is_ev && !c.opcode[7];
  assign ev_recv_o = done && !is_ev && c.opcode[7];
  assign ev_qpn_o = c.qpn;
  assign ev_idx_o = c.wqe_idx;

  logic unused;
  if (DataW < 512) begin : g_unused_narrow
    assign unused = ^{qcount, arm_data_i[63:51], img_sh[511:DataW], rd_rsp_data_i[DataW-1:32]};
  end else begin : g_unused
    assign unused = ^{qcount, arm_data_i[63:51], rd_rsp_data_i[DataW-1:32]};
  end

`ifdef RNIC_COVER
  // Coverage builds: each state and each change of state is a cover point.
  rnic_fsm_cover #(
    .StW(2),
    .NStates(4)
  ) u_rd_st_q_cover (
    .clk_i,
    .rst_ni,
    .st_i(rd_st_q)
  );
`endif
endmodule
