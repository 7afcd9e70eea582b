// rnic_rwqe_cache: WQEs read ahead of the packets whose data they scatter.
//
// The transport engine needs a WQE's scatter list for every SEND packet (the
// receive WQE) and every READ response or atomic ACK (the send WQE). Read
// from host memory when the packet arrives, it stalls the engine for a whole
// read latency per message. The engine hints a WQE as soon as it is known to
// be needed: a receive WQE when it is posted and comes next (an RQ doorbell
// names the head; taking a WQE names the two after it; while room_o holds,
// both name WQEs further ahead, up to the engine's RqAhead), a READ's or atomic's
// send WQE when the requester hands its in-flight record over. This block
// reads its first bytes (at most RwqeBytes: the header, the segments before
// the SGEs and the MaxSge SGEs the engine supports) on its own DMA read port
// into one of Entries entries, tagged with {kind (RQ, SRQ, SQ), QP or SRQ
// number, WQE index}. A packet whose WQE is here skips the read, every packet
// of a multi-packet message included; one whose read is in flight waits for
// it; a miss reads it as before. An entry is dropped when its WQE is retired
// (completed, failed or flushed), when a send WQE's slot gets a new record,
// and when its queue is reset, so a ring slot the application fills again is
// read again.
//
// Hints are always taken: one already held or in flight is ignored, and
// one that finds no entry is dropped, which only costs the read it would
// have saved. Only a hint of a WQE needed next (hint_evict_i) may evict a
// filled entry: one read ahead of a receive queue's next WQEs first, else
// one that has aged (not allocated for a while), each in turn. A send
// WQE's hint (a READ's or atomic's, whose response is on its way) may take
// an entry read ahead. One that looks further ahead takes a free entry or
// nothing, so that more queues than entries do not thrash the cache, and
// the engine looks further than the next two WQEs only while room_o says
// that a sixteenth of the entries are free. Reads return in request order
// (rnic_dma_rd_mux); the block takes every beat at once.
module rnic_rwqe_cache #(
  parameter int unsigned DataW = 256,
  parameter int unsigned Entries = 16,          // a power of two, 2 or more
  // An age tick every Entries << AgeLog allocations and refused hints
  // (a formal proof ticks sooner)
  parameter int unsigned AgeLog = 2,
  localparam int unsigned KeyW = rnic_pkg::RwqeKeyW,
  localparam int unsigned EntW = $clog2(Entries)
) (
  input  logic                           clk_i,
  input  logic                           rst_ni,
  // Hints: a posted WQE worth reading now
  input  logic                           hint_valid_i,
  input  logic                           hint_evict_i,   // may evict a filled entry
  input  logic [KeyW-1:0]                hint_key_i,
  input  logic [63:0]                    hint_addr_i,
  input  logic [15:0]                    hint_len_i,
  // At least a sixteenth of the entries are free: room for WQEs further ahead
  output logic                           room_o,
  // Lookup of the WQE the engine is about to read (outputs valid with lk_valid_i)
  input  logic                           lk_valid_i,
  input  logic [KeyW-1:0]                lk_key_i,
  output logic                           lk_hit_o,
  output logic                           lk_pend_o,  // its read is in flight
  output logic                           lk_err_o,   // its read failed
  output logic [rnic_pkg::RwqeBits-1:0]  lk_data_o,
  // WQEs retired: one by each role's engine (a receive WQE by the
  // responder, a send WQE by the completer), in the same cycle at times
  input  logic                           inv_i,
  input  logic [KeyW-1:0]                inv_key_i,
  input  logic                           inv_b_i,
  input  logic [KeyW-1:0]                inv_b_key_i,
  // A QP's queues reset (its RQ and SQ entries) or an SRQ's (its entries)
  input  logic                           clr_qp_i,
  input  logic                           clr_srq_i,
  input  logic [23:0]                    clr_num_i,
  // DMA reads
  output logic                           rd_req_valid_o,
  input  logic                           rd_req_ready_i,
  output logic [63:0]                    rd_req_addr_o,
  output logic [15:0]                    rd_req_len_o,
  input  logic                           rd_rsp_valid_i,
  output logic                           rd_rsp_ready_o,
  input  logic [DataW-1:0]               rd_rsp_data_i,
  input  logic                           rd_rsp_last_i,
  input  logic                           rd_rsp_err_i
);
  localparam int unsigned NBeats = (rnic_pkg::RwqeBits + DataW - 1) / DataW;
  localparam int unsigned BeatCW = $clog2(NBeats + 1);
  localparam logic [15:0] RdMax = 16'(rnic_pkg::RwqeBytes);

  // Entry state: free (neither bit), read pending, or filled. "live" is
  // cleared by retirement or reset; a pending entry that is no longer live
  // becomes free when its read ends.
  logic [Entries-1:0] pend_q, full_q, live_q, err_q;
  // A receive WQE read ahead beyond the next one (a hint that may not
  // evict): evicted before the entries of WQEs needed next and of send
  // WQEs (whose responses are on their way). A hint that names the WQE as
  // needed next clears it.
  logic [Entries-1:0] far_q;
  // Ages, counted in allocations and in hints that may evict refused for
  // want of a victim: every 4 * Entries of them (AgeLog 2) a tick sets
  // aged_q, and a second tick old_q; an allocation makes its entry young
  // again. A hint that may evict takes a filled entry not read ahead only
  // once it is old: with more receive queues than entries, the WQEs needed
  // next keep the entries they have instead of evicting each other in turn
  // before their SENDs come (a cycle of queues larger than the cache hits
  // nothing in turn), and an entry nobody needs ages out within 8 * Entries
  // such events. (A tick every Entries events gives 128 QPs fewer hits;
  // docs/performance.md.)
  logic [Entries-1:0] aged_q, old_q;
  localparam int unsigned AgeW = EntW + AgeLog;
  logic [AgeW-1:0] age_cnt_q;             // events counted since the last tick
  logic [KeyW-1:0] key_q [Entries];
  logic [BeatCW-1:0] nbeat_q [Entries];   // beats the read returned (a short WQE)
  logic [DataW-1:0] mem_q [Entries * NBeats];
  logic [EntW-1:0] rr_q;                  // next filled entry to evict

  // ---------------------------------------------------------------------------
  // Lookup
  // ---------------------------------------------------------------------------
  // Compared only while the engine looks up (its read enable): one tag
  // comparison per entry serves both the hit and the pending match.
  logic [Entries-1:0] lk_match, lk_pmatch;
  logic [EntW-1:0] lk_e;
  always_comb begin
    lk_e = '0;
    lk_match = '0;
    lk_pmatch = '0;
    if (lk_valid_i) begin
      for (int e = Entries - 1; e >= 0; e--) begin
        lk_pmatch[e] = live_q[e] && (key_q[e] == lk_key_i);
        lk_match[e] = full_q[e] && lk_pmatch[e];
        lk_pmatch[e] = pend_q[e] && lk_pmatch[e];
        if (lk_match[e]) lk_e = EntW'(e);
      end
    end
  end
  assign lk_hit_o = |lk_match;
  assign lk_pend_o = |lk_pmatch;
  assign lk_err_o = err_q[lk_e];
  logic [NBeats*DataW-1:0] lk_beats;
  // The data multiplexer too works only for a lookup.
  always_comb begin
    lk_beats = '0;
    for (int b = 0; b < NBeats; b++) begin
      if (lk_valid_i && (BeatCW'(b) < nbeat_q[lk_e])) begin
        lk_beats[b*DataW +: DataW] = mem_q[32'(lk_e) * NBeats + b];
      end
    end
  end
  assign lk_data_o = lk_beats[rnic_pkg::RwqeBits-1:0];

  // ---------------------------------------------------------------------------
  // Retirement and reset
  // ---------------------------------------------------------------------------
  // tag: {kind, number} of a key
  function automatic logic cleared(input logic [25:0] tag, input logic qp, input logic srq,
                                   input logic [23:0] num);
    cleared = (tag[23:0] == num) &&
              ((qp && (tag[25:24] != rnic_pkg::RwqeSrq)) || (srq && (tag[25:24] == rnic_pkg::RwqeSrq)));
  endfunction
  // Compared only when a retirement or reset comes: the same logic, but a
  // simulator skips the per-entry comparisons on the other cycles.
  logic [Entries-1:0] kill;
  always_comb begin
    kill = '0;
    if (inv_i || inv_b_i || clr_qp_i || clr_srq_i) begin
      for (int e = 0; e < Entries; e++) begin
        kill[e] = (inv_i && (key_q[e] == inv_key_i)) || (inv_b_i && (key_q[e] == inv_b_key_i)) ||
                  cleared(key_q[e][KeyW-1:16], clr_qp_i, clr_srq_i, clr_num_i);
      end
    end
  end

  // ---------------------------------------------------------------------------
  // Hints: an entry for a WQE not held yet, a free one first, else the
  // next filled one read ahead (far_q) in turn, else the next filled old
  // one in turn; pending entries are never evicted. The tags are compared
  // only in a cycle with a hint (alloc needs one).
  // ---------------------------------------------------------------------------
  logic held, vic_ok, hint_sq;
  logic [Entries-1:0] held_e;
  // A send WQE (a READ's or atomic's: its response is on its way) may take
  // a receive WQE's entry read ahead, whether or not it may evict.
  assign hint_sq = (hint_key_i[KeyW-1 -: 2] == rnic_pkg::RwqeSq);
  logic [EntW-1:0] vic;
  always_comb begin
    held_e = '0;
    if (hint_valid_i) begin
      for (int e = 0; e < Entries; e++) begin
        held_e[e] = (pend_q[e] || full_q[e]) && live_q[e] && (key_q[e] == hint_key_i);
      end
    end
    held = |held_e;
  end
  always_comb begin
    vic_ok = 1'b0;
    vic = '0;
    if (hint_valid_i) begin
      for (int e = 0; e < Entries; e++) begin
        if (!vic_ok && !pend_q[e] && !full_q[e]) begin
          vic_ok = 1'b1;
          vic = EntW'(e);
        end
      end
      for (int k = 0; k < Entries; k++) begin
        if (!vic_ok && (hint_evict_i || hint_sq) && full_q[rr_q + EntW'(k)] &&
            far_q[rr_q + EntW'(k)]) begin
          vic_ok = 1'b1;
          vic = rr_q + EntW'(k);
        end
      end
      for (int k = 0; k < Entries; k++) begin
        if (!vic_ok && hint_evict_i && full_q[rr_q + EntW'(k)] && old_q[rr_q + EntW'(k)]) begin
          vic_ok = 1'b1;
          vic = rr_q + EntW'(k);
        end
      end
    end
  end
  // Room for a look further ahead: hints beyond the next WQEs are sent only
  // while a sixteenth of the entries are free. What they fill is evicted
  // first when a queue's next WQE needs an entry, so they may take nearly
  // all of it: 8 QPs each read 7 or 8 receives ahead, as a burst of SENDs
  // to one QP needs. (A half kept 16 QPs x 4 receives from reading ahead;
  // a quarter, before far_q, kept 8 QPs to 6 ahead: docs/performance.md.)
  assign room_o = $countones(~(pend_q | full_q)) >= (Entries + 15) / 16;
  // A hint for a WQE being retired or reset in the same cycle is stale.
  logic hint_stale, alloc;
  assign hint_stale = (inv_i && (hint_key_i == inv_key_i)) ||
                      (inv_b_i && (hint_key_i == inv_b_key_i)) ||
                      cleared(hint_key_i[KeyW-1:16], clr_qp_i, clr_srq_i, clr_num_i);

  // Reads to issue, then reads in flight (at most one per entry each).
  logic iq_in_ready, iq_valid, wq_valid;
  logic [EntW+80-1:0] iq_out;
  logic [EntW-1:0] wq_out;
  // A read is issued only for an entry pending, so neither queue overflows.
  logic wq_in_ready;
  logic [EntW:0] iq_count, wq_count;
  assign alloc = hint_valid_i && !held && vic_ok && !hint_stale && iq_in_ready;
  logic age_ev;
  assign age_ev = alloc || (hint_valid_i && hint_evict_i && !held && !vic_ok && !hint_stale);

  rnic_fifo #(.Width(EntW + 80), .Depth(Entries)) u_issue_q (
    .clk_i, .rst_ni,
    .in_valid_i(alloc), .in_ready_o(iq_in_ready),
    .in_data_i({vic, hint_addr_i, (hint_len_i < RdMax) ? hint_len_i : RdMax}),
    .out_valid_o(iq_valid), .out_ready_i(rd_req_ready_i), .out_data_o(iq_out),
    .count_o(iq_count)
  );
  assign rd_req_valid_o = iq_valid;
  assign rd_req_addr_o = iq_out[79:16];
  assign rd_req_len_o = iq_out[15:0];

  logic fill_end;
  rnic_fifo #(.Width(EntW), .Depth(Entries)) u_wait_q (
    .clk_i, .rst_ni,
    .in_valid_i(iq_valid && rd_req_ready_i), .in_ready_o(wq_in_ready),
    .in_data_i(iq_out[EntW+79:80]),
    .out_valid_o(wq_valid), .out_ready_i(fill_end), .out_data_o(wq_out),
    .count_o(wq_count)
  );

  // ---------------------------------------------------------------------------
  // Fill
  // ---------------------------------------------------------------------------
  logic [BeatCW-1:0] beat_q;
  logic fill_err_q;
  logic fill;
  assign rd_rsp_ready_o = 1'b1;
  assign fill = rd_rsp_valid_i && wq_valid;
  assign fill_end = fill && rd_rsp_last_i;

  always_ff @(posedge clk_i) begin
    if (fill && (beat_q < BeatCW'(NBeats))) mem_q[32'(wq_out) * NBeats + 32'(beat_q)] <= rd_rsp_data_i;
  end
  // Tags and beat counts are RAM like the data, not reset: a tag counts only
  // while its entry is live, a count only once its entry is filled, and
  // live_q and full_q are reset. (Their reset loop, above 64 entries, was
  // also an error in Verilator 5.006: BLKLOOPINIT.)
  always_ff @(posedge clk_i) begin
    if (fill_end) nbeat_q[wq_out] <= (beat_q < BeatCW'(NBeats)) ? beat_q + 1'b1 : beat_q;
    if (alloc) key_q[vic] <= hint_key_i;
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      pend_q <= '0;
      full_q <= '0;
      live_q <= '0;
      err_q <= '0;
      far_q <= '0;
      aged_q <= '0;
      old_q <= '0;
      age_cnt_q <= '0;
      rr_q <= '0;
      beat_q <= '0;
      fill_err_q <= 1'b0;
    end else begin
      // Killed entries: no longer live, and free if they were filled (a
      // fill ending now and an allocation below write their own bits).
      live_q <= live_q & ~kill;
      full_q <= full_q & ~kill;
      if (fill) begin
        beat_q <= fill_end ? '0 : ((beat_q < BeatCW'(NBeats)) ? beat_q + 1'b1 : beat_q);
        fill_err_q <= fill_end ? 1'b0 : (fill_err_q || rd_rsp_err_i);
      end
      if (fill_end) begin
        pend_q[wq_out] <= 1'b0;
        full_q[wq_out] <= live_q[wq_out] && !kill[wq_out];
        err_q[wq_out] <= fill_err_q || rd_rsp_err_i;
      end
      if (hint_evict_i) far_q <= far_q & ~held_e;
      if (age_ev) begin
        age_cnt_q <= age_cnt_q + 1'b1;
        if (&age_cnt_q) begin
          old_q <= aged_q;  // (an old entry is aged too)
          aged_q <= '1;
        end
      end
      if (alloc) begin
        aged_q[vic] <= 1'b0;
        old_q[vic] <= 1'b0;
        far_q[vic] <= !hint_evict_i && !hint_sq;
        live_q[vic] <= 1'b1;
        pend_q[vic] <= 1'b1;
        full_q[vic] <= 1'b0;
        if (full_q[vic]) rr_q <= vic + 1'b1;
      end
    end
  end

  logic unused;
  assign unused = ^{lk_beats, wq_in_ready, iq_count, wq_count};
endmodule
