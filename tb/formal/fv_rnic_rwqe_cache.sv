// Properties of rnic_rwqe_cache (DataW 256, Entries 2: an entry keeps
// RwqeBytes = 96 bytes, NBeats = 3 beats), for one key K chosen at reset:
// - never stale: no hit for K unless a read of K hinted after K's last
//   retirement (inv) or reset (clr_qp of its QP for an RQ or SQ WQE,
//   clr_srq of its SRQ for an SRQ WQE) has completed since;
// - a hit for K returns the data and error of the last such read (the beats
//   returned, zero beyond the beats returned);
// - no duplicate read: at most one such read of K is in flight, and none is
//   in flight or presented while K hits;
// - pending: lk_pend_o for K while such a read is in flight or presented,
//   never with a hit, and only after a hint of K since its last retirement
//   or reset;
// - kept: once such a read completes, K hits until K is retired or reset or
//   a hint that may evict (hint_evict_i) or a send WQE's hint (kind SQ,
//   which may take an entry read ahead) comes; no other hint evicts;
// - DMA requests hold valid, address and length until taken; the length is
//   at most RwqeBytes, for K the hint's clamped to it; at most Entries
//   reads are in flight; responses are always taken.
// Reads are identified by address (the block only passes it on): every
// WQE's address ends with its key, and K's is {generation, K}, generation
// being the number of retirements and resets of K so far. A read of K with
// the current generation ("fresh") was hinted after the last of them.
// Environment (assumed): few keys, so that they collide often ({kind RQ,
// SRQ or SQ, number 0 or 1, index 0 to 3}); lookups are of K (they change
// no state); hints, retirements and resets otherwise free in every cycle;
// K's hints have a length chosen at reset; the DMA accepts requests at will and
// answers the reads issued, in order, with any number of beats (last free),
// error bits free, data free in bytes 0, 15 and 31 of each beat and zero
// elsewhere (the block moves whole beats; this keeps the proof about a
// minute).
// Non-vacuity, run by hand (expected to fail, docs/verification.md):
// --define FV_COVER_HIT, _PEND, _REHIT, _STALE or _EVICT.
module fv_rnic_rwqe_cache (
  input logic        clk_i,
  input logic        rst_ni,
  input logic [rnic_pkg::RwqeKeyW-1:0] k_i,    // K, taken at reset
  input logic [15:0] k_len_i,                  // K's hint length, taken at reset
  input logic        hint_valid_i,
  input logic        hint_evict_i,                // the hint may evict
  input logic [rnic_pkg::RwqeKeyW-1:0] hint_key_i,
  input logic [63:0] hint_addr_i,
  input logic [15:0] hint_len_i,
  input logic        lk_valid_i,
  input logic [rnic_pkg::RwqeKeyW-1:0] lk_key_i,
  input logic        inv_i,
  input logic [rnic_pkg::RwqeKeyW-1:0] inv_key_i,
  input logic        clr_qp_i,
  input logic        clr_srq_i,
  input logic [23:0] clr_num_i,
  input logic        rd_req_ready_i,
  input logic        rd_rsp_valid_i,
  input logic [255:0] rd_rsp_data_i,
  input logic        rd_rsp_last_i,
  input logic        rd_rsp_err_i
);
  localparam int unsigned KeyW = rnic_pkg::RwqeKeyW;
  localparam int unsigned Bits = rnic_pkg::RwqeBits;
  localparam int unsigned NB = (Bits + 255) / 256;      // beats per entry
  localparam int unsigned BW = $clog2(NB + 1);
  localparam logic [15:0] RdMax = 16'(rnic_pkg::RwqeBytes);
  logic lk_hit_o, lk_pend_o, lk_err_o, rd_req_valid_o, rd_rsp_ready_o, room_o;
  logic [Bits-1:0] lk_data_o;
  logic [63:0] rd_req_addr_o;
  logic [15:0] rd_req_len_o;

  // An age tick every 2 events, so that entries grow old within the depth
  rnic_rwqe_cache #(.DataW(256), .Entries(2), .AgeLog(0)) dut (
    .clk_i, .rst_ni, .hint_valid_i, .hint_evict_i, .hint_key_i, .hint_addr_i, .hint_len_i,
    .room_o, .lk_valid_i, .lk_key_i, .lk_hit_o, .lk_pend_o, .lk_err_o, .lk_data_o, .inv_i, .inv_key_i,
    .inv_b_i(1'b0), .inv_b_key_i('0), .clr_qp_i,
    .clr_srq_i, .clr_num_i,
    .rd_req_valid_o, .rd_req_ready_i, .rd_req_addr_o, .rd_req_len_o, .rd_rsp_valid_i,
    .rd_rsp_ready_o, .rd_rsp_data_i, .rd_rsp_last_i, .rd_rsp_err_i
  );

  logic ran;
  always_ff @(posedge clk_i) ran <= ran || !rst_ni;
  always_comb assume (rst_ni == ran);

  // K and the length of its hints, fixed from reset on; K's generation.
  logic [KeyW-1:0] k;
  logic [15:0] k_len, k_rd_len;
  logic [7:0] gen;
  logic kill_k, k_srq;
  always_ff @(posedge clk_i) begin
    if (!rst_ni) begin
      k <= k_i;
      k_len <= k_len_i;
    end
  end
  assign k_rd_len = (k_len < RdMax) ? k_len : RdMax;
  // K's retirement, or the reset of its queue: its QP's for an RQ or SQ
  // WQE, its SRQ's for an SRQ WQE.
  assign k_srq = (k[KeyW-1:KeyW-2] == rnic_pkg::RwqeSrq);
  assign kill_k = (inv_i && (inv_key_i == k)) ||
                  ((k_srq ? clr_srq_i : clr_qp_i) && (clr_num_i == k[KeyW-3:16]));
  always_ff @(posedge clk_i) begin
    if (!rst_ni) gen <= '0;
    else if (kill_k) gen <= gen + 8'd1;
  end

  // Reads in flight, oldest first (3 places: the count may reach 3 only if
  // the assertion that it stays at most 2 fails). fresh: a read of K of the
  // current generation (cleared when K is retired or reset).
  logic issue, beat, done, k_rd, k_fresh_rd;
  logic [1:0] on, at;
  logic [2:0] fresh, kany;   // kany: a read of K, any generation
  assign issue = rd_req_valid_o && rd_req_ready_i;
  assign beat = rd_rsp_valid_i;
  assign done = beat && rd_rsp_last_i;
  assign at = on - 2'(done);
  assign k_rd = (rd_req_addr_o[KeyW-1:0] == k);
  assign k_fresh_rd = (rd_req_addr_o == {{(64-KeyW-8){1'b0}}, gen, k});
  always_ff @(posedge clk_i) begin
    if (!rst_ni) begin
      on <= '0;
      fresh <= '0;
      kany <= '0;
    end else begin
      on <= on + 2'(issue) - 2'(done);
      if (done) fresh <= {1'b0, fresh[2:1]};
      if (done) kany <= {1'b0, kany[2:1]};
      if (issue && (at == 2'd0)) fresh[0] <= k_fresh_rd;
      if (issue && (at == 2'd1)) fresh[1] <= k_fresh_rd;
      if (issue && (at == 2'd2)) fresh[2] <= k_fresh_rd;
      if (issue && (at == 2'd0)) kany[0] <= k_rd;
      if (issue && (at == 2'd1)) kany[1] <= k_rd;
      if (issue && (at == 2'd2)) kany[2] <= k_rd;
      if (kill_k) fresh <= '0;
    end
  end

  // The read being returned, beat by beat (beats past the NB-th dropped,
  // missing ones zero), and K's last fresh read to complete.
  logic [BW-1:0] rbeat;
  logic [NB*256-1:0] racc, rnext;
  // khinted: a hint of K came since K's last retirement or reset;
  // kheld: K's last fresh read completed, and since then neither a
  // retirement or reset of K nor a hint that may evict (or a send WQE's);
  // stale_done: a read of K completed after K's retirement or reset;
  // reread: a fresh read of K completed while K had one already (evicted).
  logic rerr, kok, kerr, khinted, kheld, stale_done, reread;
  logic [NB*256-1:0] kdata;
  always_comb begin
    rnext = (rbeat == '0) ? '0 : racc;
    for (int b = 0; b < NB; b++) begin
      if (rbeat == BW'(b)) rnext[b*256 +: 256] = rd_rsp_data_i;
    end
  end
  always_ff @(posedge clk_i) begin
    if (!rst_ni) begin
      rbeat <= '0;
      rerr <= 1'b0;
      kok <= 1'b0;
      khinted <= 1'b0;
      kheld <= 1'b0;
      stale_done <= 1'b0;
      reread <= 1'b0;
    end else begin
      if (done && kany[0] && !fresh[0]) stale_done <= 1'b1;
      if (done && fresh[0] && kok) reread <= 1'b1;
      if (beat) begin
        racc <= rnext;
        rbeat <= done ? '0 : ((rbeat == BW'(NB)) ? rbeat : rbeat + 1'b1);
        rerr <= !done && (rerr || rd_rsp_err_i);
      end
      if (done && fresh[0]) begin
        kok <= 1'b1;
        kdata <= rnext;
        kerr <= rerr || rd_rsp_err_i;
      end
      if (hint_valid_i && (hint_key_i == k)) khinted <= 1'b1;
      if (done && fresh[0]) kheld <= 1'b1;
      if (hint_valid_i &&
          (hint_evict_i || (hint_key_i[rnic_pkg::RwqeKeyW-1 -: 2] == rnic_pkg::RwqeSq))) begin
        kheld <= 1'b0;
      end
      if (kill_k) begin
        kok <= 1'b0;
        khinted <= 1'b0;
        kheld <= 1'b0;
      end
    end
  end

  // Last cycle, for the request stability rule.
  logic req_wait;
  logic [63:0] addr_q;
  logic [15:0] len_q;
  always_ff @(posedge clk_i) begin
    req_wait <= rst_ni && rd_req_valid_o && !rd_req_ready_i;
    addr_q <= rd_req_addr_o;
    len_q <= rd_req_len_o;
  end

  function automatic logic small_key(input logic [KeyW-1:0] x);
    small_key = (x[KeyW-1:KeyW-2] != 2'd3) && (x[KeyW-3:17] == '0) && (x[15:2] == '0);
  endfunction

  localparam logic [255:0] DataFree = {8'hff, 112'd0, 8'hff, 120'd0, 8'hff};
  logic k_hit, k_pend;
  logic k_lk;
  assign k_lk = lk_valid_i && (lk_key_i == k);
  assign k_hit = k_lk && lk_hit_o;
  assign k_pend = k_lk && lk_pend_o;
  always_comb begin
    if (rst_ni) begin
      // Few keys, so that they collide often: {kind RQ, SRQ or SQ, number
      // 0 or 1, index 0 to 3}, for every key input (and K).
      assume (small_key(hint_key_i) && small_key(inv_key_i));
      assume (small_key(k));
      assume (clr_num_i[23:1] == '0);
      // Lookups are of K: a lookup changes no state, and every property
      // is about K's (K is any key).
      assume (lk_key_i == k);
`ifndef FV_LK_FREE
      // A lookup every cycle: with lk_valid_i free the proof takes 3.5
      // times as long, and without a lookup the block answers nothing
      // (property 7), proved with FV_LK_FREE at a smaller depth.
      assume (lk_valid_i);
`endif
      // Addresses: each WQE's ends with its key; K's is {generation, K}.
      assume (hint_addr_i[KeyW-1:0] == hint_key_i);
      if (hint_key_i == k) begin
        assume (hint_addr_i[63:KeyW] == {{(64-KeyW-8){1'b0}}, gen});
        assume (hint_len_i == k_len);
      end
      // Read data: free in bytes 0, 15 and 31 of each beat, zero elsewhere.
      assume ((rd_rsp_data_i & ~DataFree) == 256'd0);
      // The DMA answers only reads issued (in order: the oldest first).
      if (rd_rsp_valid_i) assume (on != 2'd0);

      // DMA request rules.
      assert (rd_rsp_ready_o);
      assert (on <= 2'd2);
      if (rd_req_valid_o) assert (rd_req_len_o <= RdMax);
      if (req_wait) begin
        assert (rd_req_valid_o);
        assert (rd_req_addr_o == addr_q);
        assert (rd_req_len_o == len_q);
      end
      if (rd_req_valid_o && k_rd) assert (rd_req_len_o == k_rd_len);
      // Never stale, and the data and error of K's last fresh read.
      if (k_hit) begin
        assert (kok);
        assert (lk_data_o == kdata[Bits-1:0]);
        assert (lk_err_o == kerr);
      end
      // No duplicate: at most one fresh read of K in flight, and none in
      // flight or presented while K hits.
      assert (!(fresh[0] && fresh[1]) && !(fresh[0] && fresh[2]) && !(fresh[1] && fresh[2]));
      if (fresh != 3'd0) assert (!k_hit);
      if (rd_req_valid_o && k_fresh_rd) assert (!k_hit);
      // Pending: while a fresh read of K is in flight or presented, never
      // with a hit, never stale.
      if (k_lk && ((fresh != 3'd0) || (rd_req_valid_o && k_fresh_rd))) assert (lk_pend_o);
      if (k_pend) begin
        assert (!lk_hit_o);
        assert (khinted);
      end
      // Kept until retired, reset or evicted by a hint that may evict (or a
      // send WQE's hint).
      if (kheld && k_lk) assert (lk_hit_o);
      // No lookup, no answer.
      if (!lk_valid_i) assert (!lk_hit_o && !lk_pend_o);
`ifdef FV_COVER_HIT
      // Non-vacuity (expected to fail): K hits.
      assert (!k_hit);
`endif
`ifdef FV_COVER_PEND
      // Non-vacuity (expected to fail): K's read is reported in flight.
      assert (!k_pend);
`endif
`ifdef FV_COVER_REHIT
      // Non-vacuity (expected to fail): K hits after a retirement or reset
      // of K, with data in its last beat.
      assert (!(k_hit && (gen != 8'd0) && (kdata[Bits-1:(NB-1)*256] != '0)));
`endif
`ifdef FV_COVER_STALE
      // Non-vacuity (expected to fail): K hits after a read of K completed
      // that K's retirement or reset made stale while it was in flight.
      assert (!(k_hit && stale_done));
`endif
`ifdef FV_COVER_EVICT
      // Non-vacuity (expected to fail): K is read again without a
      // retirement or reset (its entry was evicted) and hits.
      assert (!(k_hit && reread));
`endif
    end
  end
endmodule
