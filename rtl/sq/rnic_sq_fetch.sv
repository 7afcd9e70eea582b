// rnic_sq_fetch: send-queue doorbells, QP scheduling and WQE fetch.
//
// Each QP has three indices: sq_pi (from the doorbell), fetch_ci (next WQE to
// fetch) and done_ci (first WQE not yet completed, from the completer). A QP
// with work sits in the active FIFO; the head QP fetches one WQE and goes to the
// tail, so QPs are served round robin. At most InflDepth WQEs of a QP are
// between fetch and completion. Up to Slots WQE reads and fetched WQEs are in
// flight at once; their data return in order and are assembled into whole
// WQEs. Every read waits out the host memory's latency, so Slots (a power
// of two) sets the rate of small messages: with a 50-cycle read, 4 slots
// gave a WQE per ~14 cycles, 8 one per ~7, 16 one per ~3.5
// (docs/performance.md). A QP in ERR produces
// flush items instead of reads. rewind_* moves fetch_ci back to an
// unacknowledged WQE: the requester then re-reads WQE and payload from host
// memory, which is how retransmission restarts. Every rewind starts a new
// epoch of the QP; WQEs carry the epoch they were fetched in, so the
// requester can drop those fetched before the rewind. A rewind with hold
// parks the QP (RNR wait) until a rewind with resume.
//
// SQD: only WQEs fetched before (up to the high-water mark hi) are fetched
// again (retransmission); new ones wait. A QP moved to SQD with the notify
// flag gets an SQ_DRAINED event once every WQE fetched before completed: a
// sweep visits one QP per cycle. SQE: like ERR, the SQ is flushed (the RQ
// goes on).
//
// Fast-forward (docs/time-model.md): quiet_o says nothing is queued, fetched
// or reported and the sweep cannot fire - no QP waits for its SQ_DRAINED
// event, or a whole round of the sweep passed since anything that decides
// one changed. Then only the sweep position moves; skip_i makes this edge
// stand for skip_cycles_i edges.
//
// BlueFlame: the doorbell queue also brings the eight words of a 64-byte
// WQE software wrote to SQ_BF0..7 just before its doorbell; a doorbell with
// bit 48 that adds exactly that one WQE claims them, and when the QP comes
// to fetch it the WQE goes out from the buffer instead of a DMA read. It is
// in the SQ ring too, so a rewind reads it from host memory as usual. New
// words drop an unused claim; they wait while a claimed WQE is in flight.
module rnic_sq_fetch #(
  parameter int unsigned DataW = 256,
  parameter int unsigned NQp = 1024,
  parameter int unsigned InflDepth = 8,
  parameter int unsigned Slots = 16
) (
  input  logic        clk_i,
  input  logic        rst_ni,
  // Doorbell: [23:0] QPN, [47:32] producer index
  input  logic        db_valid_i,
  output logic        db_ready_o,
  input  logic [63:0] db_data_i,
  input  logic [3:0]  db_bf_i,       // [3] a BlueFlame WQE word, [2:0] which
  // Completer progress
  input  logic        done_valid_i,
  output logic        done_ready_o,
  input  logic [23:0] done_qpn_i,
  input  logic [15:0] done_ci_i,
  // Rewind (retransmission): fetch again from rewind_idx_i; hold parks the
  // QP, resume (with nothing else) lets it go on
  input  logic        rewind_valid_i,
  output logic        rewind_ready_o,
  input  logic [23:0] rewind_qpn_i,
  input  logic [15:0] rewind_idx_i,
  input  logic        rewind_hold_i,
  input  logic        rewind_resume_i,
  // QP context writes (reset of the SQ indices)
  input  logic        qp_wr_i,
  input  logic [23:0] qp_wr_idx_i,
  input  logic [7:0]  qp_wr_flags_i,
  // QP context read port
  output logic [23:0] ctx_idx_o,
  input  logic [rnic_pkg::QpCfgW-1:0] ctx_i,
  // DMA read
  output logic        rd_req_valid_o,
  input  logic        rd_req_ready_i,
  output logic [63:0] rd_req_addr_o,
  output logic [15:0] rd_req_len_o,
  input  logic        rd_rsp_valid_i,
  output logic        rd_rsp_ready_o,
  input  logic [DataW-1:0] rd_rsp_data_i,
  input  logic        rd_rsp_last_i,
  input  logic        rd_rsp_err_i,
  // Fetched WQEs: {err, flush, qpn[23:0], idx[15:0], wqe}
  output logic        wqe_valid_o,
  input  logic        wqe_ready_i,
  output logic [rnic_pkg::WqeBits+42-1:0] wqe_o,
  output logic [7:0]  wqe_epoch_o,
  // SQ_DRAINED events: the QP
  output logic        drained_valid_o,
  input  logic        drained_ready_i,
  output logic [23:0] drained_qpn_o,
  // QP_QUERY: WQEs fetched have not all completed
  input  logic [23:0] query_idx_i,
  output logic        query_draining_o,
  // Trace: WQE fetched
  output logic        ev_valid_o,
  output logic [23:0] ev_qpn_o,
  output logic [15:0] ev_idx_o,
  // Fast-forward
  output logic        quiet_o,
  input  logic        skip_i,
  input  logic [31:0] skip_cycles_i
);
  localparam int unsigned QpW = $clog2(NQp);
  localparam int unsigned WqeBits = rnic_pkg::WqeBits;
  localparam int unsigned BeatsMax = WqeBits / DataW;
  localparam int unsigned BeatW = (BeatsMax > 1) ? $clog2(BeatsMax) : 1;
  localparam int unsigned OutW = WqeBits + 50;
  localparam int unsigned PendW = 50;
  localparam int unsigned SlotCntW = $clog2(Slots) + 1;
  localparam logic [15:0] InflMax = 16'(InflDepth);
  localparam logic [SlotCntW:0] SlotsC = (SlotCntW+1)'(Slots);

  logic [15:0] sq_pi_q [NQp];
  logic [15:0] fetch_ci_q [NQp];
  logic [15:0] done_ci_q [NQp];
  logic queued_q [NQp];
  logic [7:0] epoch_q [NQp];
  logic hold_q [NQp];
  logic [15:0] hi_q [NQp];     // one past the furthest WQE ever fetched
  logic [NQp-1:0] arm_q;       // SQD entered with notify, not drained yet (flops)

  // ---------------------------------------------------------------------------
  // Active QP FIFO
  // ---------------------------------------------------------------------------
  logic act_push, act_pop, act_valid, act_in_ready;
  logic [23:0] act_push_qpn, act_head;
  logic [QpW+1:0] act_count;

  // A QP is queued at most once, but the head goes back to the tail in the
  // cycle it leaves: with every QP queued the FIFO must take a push while it
  // pops, which rnic_fifo refuses when full, hence twice the entries.
  rnic_fifo #(.Width(24), .Depth(2 * NQp)) u_active (
    .clk_i, .rst_ni,
    .in_valid_i(act_push), .in_ready_o(act_in_ready), .in_data_i(act_push_qpn),
    .out_valid_o(act_valid), .out_ready_i(act_pop), .out_data_o(act_head),
    .count_o(act_count)
  );

  // ---------------------------------------------------------------------------
  // Head QP: decide
  // ---------------------------------------------------------------------------
  /* verilator lint_off UNUSEDSIGNAL */  // a context view: each block reads its own fields
  rnic_pkg::qp_cfg_t ctx;
  /* verilator lint_on UNUSEDSIGNAL */
  logic [QpW-1:0] h;
  logic [15:0] h_pi, h_fetch, h_done;
  logic h_work, h_window, h_err, h_run, can_issue, issue, h_more;
  logic [SlotCntW:0] pend_cnt_w, out_cnt_w;
  logic [$clog2(Slots):0] pend_count, out_count;

  assign ctx_idx_o = act_head;
  assign ctx = ctx_i;
  assign h = act_head[QpW-1:0];
  assign h_pi = sq_pi_q[h];
  assign h_fetch = fetch_ci_q[h];
  assign h_done = done_ci_q[h];
  assign h_work = (h_fetch != h_pi);
  // During a rewind the completer may retire WQEs past the fetch index
  // (their ACKs were on the way): a fetch index behind done_ci is in the
  // window (the requester skips WQEs that completed).
  logic [15:0] h_ahead;
  assign h_ahead = h_fetch - h_done;
  assign h_window = h_ahead[15] || (h_ahead < InflMax);
  // A fetch index behind the high-water mark is a WQE fetched before.
  logic [15:0] h_behind;
  assign h_behind = hi_q[h] - h_fetch;
  assign h_err = (ctx.state == rnic_pkg::QpsErr) || (ctx.state == rnic_pkg::QpsSqe);
  assign h_run = ((ctx.state == rnic_pkg::QpsRts) ||
                  ((ctx.state == rnic_pkg::QpsSqd) && (h_behind != 16'd0) && !h_behind[15])) &&
                 !hold_q[h];
  assign pend_cnt_w = {1'b0, pend_count};
  assign out_cnt_w = {1'b0, out_count};
  // BlueFlame: the head's next WQE is the one in the buffer.
  logic [63:0] bf_q [8];
  logic [7:0] bf_have_q;
  logic bf_v_q, bf_lock_q;
  logic [23:0] bf_qpn_q;
  logic [15:0] bf_idx_q;
  logic bf_hit;
  assign bf_hit = bf_v_q && (bf_qpn_q == act_head) && (bf_idx_q == h_fetch) && !h_err &&
                  (ctx.sq_wqe_shift == 4'd6);
  assign can_issue = act_valid && h_work && h_window && (h_err || h_run) &&
                     ((pend_cnt_w + out_cnt_w) < SlotsC) && (h_err || bf_hit || rd_req_ready_i);
  assign issue = can_issue;
  assign h_more = (h_fetch + 16'd1 != h_pi);

  // Pop when the head fetched (it goes back to the tail if it has more) or has
  // nothing it may do now (a completion or doorbell brings it back).
  logic head_idle;
  assign head_idle = act_valid && (!h_work || !h_window || !(h_err || h_run));
  assign act_pop = issue || head_idle;

  assign rd_req_valid_o = act_valid && h_work && h_window && h_run && !h_err && !bf_hit &&
                          ((pend_cnt_w + out_cnt_w) < SlotsC);
  assign rd_req_addr_o = ctx.sq_base +
      ({48'd0, h_fetch & ((16'd1 << ctx.sq_log_size) - 16'd1)} << ctx.sq_wqe_shift);
  assign rd_req_len_o = 16'd1 << ctx.sq_wqe_shift;

  // Push priority: requeue of the head, then rewinds, then completer progress,
  // then doorbells.
  logic db_take, done_take, rewind_take;
  logic [23:0] db_qpn;
  logic [15:0] db_pi;
  assign db_qpn = db_data_i[23:0];
  assign db_pi = db_data_i[47:32];
  // Producer indices are free running over 16 bits, so one means something
  // only within half their range of the WQEs not completed yet: a doorbell
  // is taken only if its index lies at most 32768 WQEs (RNIC_MAX_QP_WR, a
  // full ring) past the QP's done index and not behind the current producer
  // index. Anything else is a software bug and is ignored. A doorbell behind
  // the current one, taken as 65535 WQEs ahead, starts a walk that a rewind
  // can leave behind the completed ones (finding sq-walk-hang); a run of
  // doorbells each "ahead" of the last can wrap the 16 bits and put the
  // producer index behind WQEs already fetched, whose records then complete
  // past it (finding sq-pi-wrap). Both compare with the done index, so the
  // producer index never gets more than a full ring ahead of it.
  logic [15:0] db_step, db_done, db_rel, db_cur;
  logic db_ignore;
  assign db_step = db_pi - sq_pi_q[db_qpn[QpW-1:0]];
  assign db_done = done_ci_q[db_qpn[QpW-1:0]];
  assign db_rel = db_pi - db_done;
  assign db_cur = sq_pi_q[db_qpn[QpW-1:0]] - db_done;
  assign db_ignore = (db_rel > 16'h8000) || (db_rel < db_cur);
  assign rewind_ready_o = !(issue && h_more);
  assign rewind_take = rewind_valid_i && rewind_ready_o;
  // A doorbell or completion whose QP needs no push (it is queued) is
  // taken at once: a doorbell not taken stalls all MMIO of the node.
  assign done_ready_o = (!(issue && h_more) && !rewind_valid_i) || !done_needs;
  assign done_take = done_valid_i && done_ready_o;
  // A BlueFlame word is taken unless a claimed WQE waits to go out.
  logic bfw_take;
  assign db_ready_o = db_bf_i[3] ? !bf_lock_q :
                      ((!(issue && h_more) && !rewind_valid_i && !(done_valid_i && done_needs)) ||
                       !db_needs);
  assign db_take = db_valid_i && !db_bf_i[3] && db_ready_o;
  assign bfw_take = db_valid_i && db_bf_i[3] && !bf_lock_q;
  // A context write may let a QP with work go on (SQD -> RTS): it is
  // queued again (one write at a time: commands are far apart).
  logic kick_v_q, kick_take;
  logic [23:0] kick_qpn_q;
  assign kick_take = kick_v_q && !(issue && h_more) && !rewind_valid_i &&
                     !(done_valid_i && done_needs) && !(db_valid_i && db_needs);

  // A QP needs queueing when it is not queued, or when it is the head and
  // leaves the FIFO in this very cycle (else that doorbell or completion
  // would be lost).
  logic head_leaves, done_needs, db_needs, rewind_needs;
  assign head_leaves = act_pop && !(issue && h_more);
  logic [15:0] rw_fetch;
  assign rw_fetch = rewind_resume_i ? fetch_ci_q[rewind_qpn_i[QpW-1:0]] : rewind_idx_i;
  assign rewind_needs = (rewind_qpn_i < 24'(NQp)) && !rewind_hold_i &&
                        (!queued_q[rewind_qpn_i[QpW-1:0]] ||
                         (head_leaves && (rewind_qpn_i == act_head))) &&
                        (rw_fetch != sq_pi_q[rewind_qpn_i[QpW-1:0]]);
  // The done index moves forward and never past the producer index (the
  // doorbell rule above relies on it); a report that would is stale, of a
  // QP whose queues were reset since, and is dropped.
  logic [15:0] dn_step, dn_room;
  logic done_fwd;
  assign dn_step = done_ci_i - done_ci_q[done_qpn_i[QpW-1:0]];
  assign dn_room = sq_pi_q[done_qpn_i[QpW-1:0]] - done_ci_q[done_qpn_i[QpW-1:0]];
  assign done_fwd = (dn_step <= dn_room);
  assign done_needs = (done_qpn_i < 24'(NQp)) &&
                      (!queued_q[done_qpn_i[QpW-1:0]] ||
                       (head_leaves && (done_qpn_i == act_head))) &&
                      (fetch_ci_q[done_qpn_i[QpW-1:0]] != sq_pi_q[done_qpn_i[QpW-1:0]]);
  assign db_needs = (db_qpn < 24'(NQp)) &&
                    (!queued_q[db_qpn[QpW-1:0]] || (head_leaves && (db_qpn == act_head)));
  logic kick_needs;
  assign kick_needs = (!queued_q[kick_qpn_q[QpW-1:0]] ||
                       (head_leaves && (kick_qpn_q == act_head))) &&
                      (fetch_ci_q[kick_qpn_q[QpW-1:0]] != sq_pi_q[kick_qpn_q[QpW-1:0]]);

  always_comb begin
    act_push = 1'b0;
    act_push_qpn = act_head;
    if (issue && h_more) begin
      act_push = 1'b1;
    end else if (rewind_take && rewind_needs) begin
      act_push = 1'b1;
      act_push_qpn = rewind_qpn_i;
    end else if (done_take && done_needs) begin
      act_push = 1'b1;
      act_push_qpn = done_qpn_i;
    end else if (db_take && db_needs) begin
      act_push = 1'b1;
      act_push_qpn = db_qpn;
    end else if (kick_take && kick_needs) begin
      act_push = 1'b1;
      act_push_qpn = kick_qpn_q;
    end
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      kick_v_q <= 1'b0;
      kick_qpn_q <= '0;
    end else if (qp_wr_i && (qp_wr_idx_i < 24'(NQp))) begin
      kick_v_q <= 1'b1;
      kick_qpn_q <= qp_wr_idx_i;
    end else if (kick_take) begin
      kick_v_q <= 1'b0;
    end
  end

  always_ff @(posedge clk_i) begin
    if (head_leaves) queued_q[h] <= 1'b0;
    if (done_take && (done_qpn_i < 24'(NQp))) begin
      if (done_fwd) done_ci_q[done_qpn_i[QpW-1:0]] <= done_ci_i;
      if (done_needs) queued_q[done_qpn_i[QpW-1:0]] <= 1'b1;
    end
    if (db_take && (db_qpn < 24'(NQp))) begin
      if (!db_ignore) sq_pi_q[db_qpn[QpW-1:0]] <= db_pi;
      if (db_needs) queued_q[db_qpn[QpW-1:0]] <= 1'b1;
    end
    if (kick_take && kick_needs) queued_q[kick_qpn_q[QpW-1:0]] <= 1'b1;
    if (issue) begin
      fetch_ci_q[h] <= h_fetch + 16'd1;
      if ((h_behind == 16'd0) || h_behind[15]) hi_q[h] <= h_fetch + 16'd1;
    end
    if (rewind_take && (rewind_qpn_i < 24'(NQp))) begin
      if (!rewind_resume_i) begin
        fetch_ci_q[rewind_qpn_i[QpW-1:0]] <= rewind_idx_i;
        epoch_q[rewind_qpn_i[QpW-1:0]] <= epoch_q[rewind_qpn_i[QpW-1:0]] + 8'd1;
      end
      hold_q[rewind_qpn_i[QpW-1:0]] <= rewind_hold_i;
      if (rewind_needs) queued_q[rewind_qpn_i[QpW-1:0]] <= 1'b1;
    end
    if (qp_wr_i && qp_wr_flags_i[rnic_pkg::QpFlagResetSq] && (qp_wr_idx_i < 24'(NQp))) begin
      sq_pi_q[qp_wr_idx_i[QpW-1:0]] <= '0;
      fetch_ci_q[qp_wr_idx_i[QpW-1:0]] <= '0;
      done_ci_q[qp_wr_idx_i[QpW-1:0]] <= '0;
      hold_q[qp_wr_idx_i[QpW-1:0]] <= 1'b0;
      hi_q[qp_wr_idx_i[QpW-1:0]] <= '0;
      epoch_q[qp_wr_idx_i[QpW-1:0]] <= epoch_q[qp_wr_idx_i[QpW-1:0]] + 8'd1;
    end
  end

  // ---------------------------------------------------------------------------
  // SQ drained: the sweep
  // ---------------------------------------------------------------------------
  logic [QpW-1:0] sw_q;
  logic dr_v_q, sw_fire;
  logic [23:0] dr_qpn_q;
  assign sw_fire = !dr_v_q && arm_q[sw_q] && (done_ci_q[sw_q] == hi_q[sw_q]) &&
                   !(qp_wr_i && (qp_wr_idx_i == 24'(sw_q)));
  assign drained_valid_o = dr_v_q;
  assign query_draining_o = (query_idx_i < 24'(NQp)) &&
                            (done_ci_q[query_idx_i[QpW-1:0]] != hi_q[query_idx_i[QpW-1:0]]);
  assign drained_qpn_o = dr_qpn_q;

  // Edges this one stands for (1 unless the model skips idle cycles).
  logic [31:0] adv;
  assign adv = skip_i ? skip_cycles_i : 32'd1;

  // Edges since anything that decides a sweep fire (arm, done, hi) last
  // changed or a fire was held back by a waiting event, up to a whole round:
  // a QP the round passed did not fire and will not until one of them
  // changes.
  localparam logic [QpW:0] Round = {1'b1, {QpW{1'b0}}};
  logic [QpW:0] calm_q;
  logic [32:0] calm_sum;
  logic sw_settled;
  assign calm_sum = {{(32-QpW){1'b0}}, calm_q} + {1'b0, adv};
  assign sw_settled = !(|arm_q) || calm_q[QpW];
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      calm_q <= '0;
    end else if ((qp_wr_i && (qp_wr_idx_i < 24'(NQp))) || done_take || issue || sw_fire ||
                 dr_v_q) begin
      calm_q <= '0;
    end else begin
      calm_q <= (calm_sum >= {{(32-QpW){1'b0}}, Round}) ? Round : calm_sum[QpW:0];
    end
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      sw_q <= '0;
      dr_v_q <= 1'b0;
      dr_qpn_q <= '0;
    end else begin
      sw_q <= sw_q + adv[QpW-1:0];
      if (drained_valid_o && drained_ready_i) dr_v_q <= 1'b0;
      if (sw_fire) begin
        dr_v_q <= 1'b1;
        dr_qpn_q <= 24'(sw_q);
      end
    end
  end

  // Any context write re-arms or disarms (SQD -> SQD with notify again).
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      arm_q <= '0;
    end else begin
      if (sw_fire) arm_q[sw_q] <= 1'b0;
      if (qp_wr_i && (qp_wr_idx_i < 24'(NQp)))
        arm_q[qp_wr_idx_i[QpW-1:0]] <= qp_wr_flags_i[rnic_pkg::QpFlagSqdNotify];
    end
  end

  // ---------------------------------------------------------------------------
  // Pending reads and WQE assembly
  // ---------------------------------------------------------------------------
  logic pend_valid, pend_pop;
  logic [PendW-1:0] pend_in, pend_head;
  logic pend_in_ready;
  logic pend_flush;
  logic [23:0] pend_qpn;
  logic [15:0] pend_idx;
  logic [7:0] pend_epoch;

  logic pend_bf;
  assign pend_in = {bf_hit, epoch_q[h], h_err, act_head, h_fetch};
  rnic_fifo #(.Width(PendW), .Depth(Slots)) u_pending (
    .clk_i, .rst_ni,
    .in_valid_i(issue), .in_ready_o(pend_in_ready), .in_data_i(pend_in),
    .out_valid_o(pend_valid), .out_ready_i(pend_pop), .out_data_o(pend_head),
    .count_o(pend_count)
  );
  assign {pend_bf, pend_epoch, pend_flush, pend_qpn, pend_idx} = pend_head;

  logic [WqeBits-1:0] asm_q;
  logic [BeatW-1:0] beat_q;
  logic asm_err_q;
  logic out_push, out_in_ready;
  logic [OutW-1:0] out_in;
  logic beat_take;

  assign rd_rsp_ready_o = pend_valid && !pend_flush && !pend_bf && out_in_ready;
  assign beat_take = rd_rsp_valid_i && rd_rsp_ready_o;
  assign out_push = pend_valid && out_in_ready &&
                    (pend_flush || pend_bf || (beat_take && rd_rsp_last_i));
  assign pend_pop = out_push;

  // The WQE pushed: the BlueFlame copy, or the beats so far with this one
  // in place (zero for a flush). Assembled only in a cycle that pushes: a
  // simulator skips the 2048-bit copies in the others.
  logic [WqeBits-1:0] out_wqe;
  always_comb begin
    out_wqe = '0;
    if (out_push && !pend_flush) begin
      if (pend_bf) begin
        for (int unsigned w = 0; w < 8; w++) out_wqe[w*64 +: 64] = bf_q[w];
      end else begin
        out_wqe = asm_q;
        for (int unsigned b = 0; b < BeatsMax; b++) begin
          if (beat_q == BeatW'(b)) out_wqe[b*DataW +: DataW] = rd_rsp_data_i;
        end
      end
    end
  end
  assign out_in = {pend_epoch, asm_err_q || (beat_take && rd_rsp_err_i), pend_flush, pend_qpn,
                   pend_idx, out_wqe};

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      for (int unsigned w = 0; w < 8; w++) bf_q[w] <= '0;
      bf_have_q <= '0;
      bf_v_q <= 1'b0;
      bf_lock_q <= 1'b0;
      bf_qpn_q <= '0;
      bf_idx_q <= '0;
    end else begin
      if (bfw_take) begin
        bf_q[db_bf_i[2:0]] <= db_data_i;
        bf_have_q <= ((db_bf_i[2:0] == 3'd0) ? 8'd0 : bf_have_q) | (8'd1 << db_bf_i[2:0]);
        bf_v_q <= 1'b0;
      end
      if (issue && (act_head == bf_qpn_q)) bf_v_q <= 1'b0;
      if (issue && bf_hit) bf_lock_q <= 1'b1;
      if (out_push && pend_bf) bf_lock_q <= 1'b0;
      if (qp_wr_i && qp_wr_flags_i[rnic_pkg::QpFlagResetSq] && (qp_wr_idx_i == bf_qpn_q))
        bf_v_q <= 1'b0;
      if (db_take && db_data_i[48]) begin
        bf_have_q <= '0;
        if ((bf_have_q == 8'hff) && !db_ignore && (db_step == 16'd1) && (db_qpn < 24'(NQp))) begin
          bf_v_q <= 1'b1;
          bf_qpn_q <= db_qpn;
          bf_idx_q <= db_pi - 16'd1;
        end
      end
    end
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      asm_q <= '0;
      beat_q <= '0;
      asm_err_q <= 1'b0;
    end else if (beat_take) begin
      if (rd_rsp_last_i) begin
        asm_q <= '0;
        beat_q <= '0;
        asm_err_q <= 1'b0;
      end else begin
        for (int unsigned b = 0; b < BeatsMax; b++) begin
          if (beat_q == BeatW'(b)) asm_q[b*DataW +: DataW] <= rd_rsp_data_i;
        end
        beat_q <= beat_q + 1'b1;
        asm_err_q <= asm_err_q || rd_rsp_err_i;
      end
    end
  end

  rnic_fifo #(.Width(OutW), .Depth(Slots)) u_out (
    .clk_i, .rst_ni,
    .in_valid_i(out_push), .in_ready_o(out_in_ready), .in_data_i(out_in),
    .out_valid_o(wqe_valid_o), .out_ready_i(wqe_ready_i), .out_data_o({wqe_epoch_o, wqe_o}),
    .count_o(out_count)
  );

  assign ev_valid_o = out_push && !pend_flush;

  assign quiet_o = !act_valid && !pend_valid && !wqe_valid_o && !dr_v_q && !kick_v_q &&
                   sw_settled;
  assign ev_qpn_o = pend_qpn;
  assign ev_idx_o = pend_idx;

  logic unused;
  assign unused = ^{pend_in_ready, act_count, act_in_ready, db_data_i[63:49], db_data_i[31:24],
                    query_idx_i[23:QpW], kick_qpn_q[23:QpW]};
endmodule
