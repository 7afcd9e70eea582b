// Properties of rnic_tx_builder's side lane: DataW 256, the frame ring of
// fv_rnic_tx_builder.sv (256 bytes, eight words, two frames at most) and
// LaneFrames 1 (LANE_FRAMES: --define LANE_FRAMES=2 for two). A frame without
// payload reads may leave before older frames of other QPs or of the other
// direction; everything else keeps its order (rnic_tx_builder.sv's header).
// Assumed, as in fv_rnic_tx_builder.sv: descriptors held until taken, with
// up to two non-empty payload chunks of at most 40 bytes in all (addresses:
// low 16 bits free); the DMA answers each read in order with ceil(len / 32)
// beats, byte a of host memory being mem_byte(a), its error flag the same on
// every beat, failing only reads of request frames (failed reads and noack
// reports are kept); noack_ready_i falls only after a noack_valid_o. Besides:
// descriptor n taken (from 0 on) has wqe_idx n, so ev_idx_o names the frame
// on the wire, and QPN 0 or 1 (free), so frames of one QP and direction meet
// in the ring and the lane. Opcode, PSN, pay_len, chunks, ev_first/ev_last
// are free inputs; every other descriptor field (ack_req, se, ud_en and the
// extension headers' fields) and the QP context are constant zero: the
// descriptor is built from the free fields (constants, not assumptions: the
// solver sees fewer free bits). At most NQ (4) descriptors in a run (depth
// 10 takes 3).
// Asserted at the ports, against a table of the descriptors taken (by
// wqe_idx):
// - each descriptor issues exactly its chunks' reads, in order, each held
//   until taken (the first one may go out in the cycle it is taken);
// - a frame that starts (first beat offered) is a descriptor taken and not
//   yet sent or dropped, never one whose read failed; ev_idx_o and ev_qpn_o
//   are that descriptor's on every beat (so the frame's beats are
//   contiguous: no other frame's beat in between); ev_first_o/ev_last_o are
//   its trace bits with its first beat taken;
// - order: a frame never starts while an older descriptor (taken before it)
//   of the same QPN and direction (rnic_pkg::op_is_response) is unsent; a
//   frame that may not use the lane (not RC, or with payload) never starts
//   while any older descriptor is unsent; a failed request frame is dropped
//   (with its report) only as the oldest descriptor not done;
// - a frame holds valid, data, keep, last and ev_idx_o until taken, keeps
//   lanes contiguous from lane 0 (all of them but on its last beat) and is
//   exactly 58 + extension + payload + pad bytes long; its opcode and PSN
//   (bytes 42, 51-53) are its descriptor's; frame byte P (free, fixed) is
//   the payload byte there (host memory at the chunk's address) or zero in
//   the pad;
// - noack_valid_o: on the first beat of a UC/UD message's last frame, or for
//   a failed request frame (with noack_err_o, and then no beat of it), never
//   otherwise;
// - cnt_pkts_o counts the frames sent; quiet_o exactly when no descriptor is
//   in the block (ring, lane or intake); at most 2 + LaneFrames are.
// The ICRC is fv_icrc_free.sv's free CRC, its lanes left out of the
// stability check (as in fv_rnic_tx_builder.sv). Which head goes at a frame
// boundary (an older lane frame first, else turns) is not asserted, only the
// orders above. With LaneFrames 1, the lane's `ln_older ||` term in pick_ln
// is implied by the turns (a lane frame older than the ring's head was in
// the lane with every lane frame sent since the last ring frame left), so no
// proof at this size can catch its removal; with 2, a counterexample needs
// about depth 12 (counted by hand).
// Non-vacuity (by hand, expected to fail at step 9):
//   scripts/formal.sh --name lane_cover --top fv_rnic_tx_builder_lane
//     --depth 10 --define FV_COVER_PASS --expect-fail -- rtl/rnic_pkg.sv
//     rtl/common/rnic_fifo.sv tb/formal/fv_icrc_free.sv
//     rtl/tx/rnic_tx_builder.sv tb/formal/fv_rnic_tx_builder_lane.sv
// a frame's last beat is sent while an older descriptor is unsent (a lane
// frame passed a ring frame).
`ifndef LANE_FRAMES
`define LANE_FRAMES 1
`endif
module fv_rnic_tx_builder_lane (
  input logic         clk_i,
  input logic         rst_ni,
  input logic         txd_valid_i,
  // The descriptor's free fields (the rest are constants, below)
  input logic         d_qp_i,
  input logic [7:0]   d_op_i,
  input logic [23:0]  d_psn_i,
  input logic [5:0]   d_pay_i,
  input logic [1:0]   d_nch_i,
  input logic [5:0]   d_l0_i,
  input logic [5:0]   d_l1_i,
  input logic [15:0]  d_a0_i,
  input logic [15:0]  d_a1_i,
  input logic         d_first_i,
  input logic         d_last_i,
  input logic         rd_req_ready_i,
  input logic         req_err_i,
  input logic         rd_rsp_valid_i,
  input logic         tx_ready_i,
  input logic         noack_ready_i,
  input logic [6:0]   p_sel_i
);
  localparam int unsigned DataW = 256;
  localparam int unsigned Bytes = DataW / 8;
  localparam int unsigned NQ = 4;        // descriptors taken in a run (table entries)
  localparam int unsigned NR = 4;        // DMA reads outstanding

  logic txd_ready_o, rd_req_valid_o, rd_rsp_ready_o, tx_valid_o, tx_last_o;
  logic [23:0] ctx_idx_o, ev_qpn_o;
  logic [63:0] rd_req_addr_o, cnt_pkts_o, cnt_rd_err_o;
  logic [15:0] rd_req_len_o, ev_idx_o;
  logic [DataW-1:0] rd_rsp_data_i, tx_data_o;
  logic rd_rsp_last_i, rd_rsp_err_i;
  logic [Bytes-1:0] tx_keep_o;
  logic ev_first_o, ev_last_o, noack_valid_o, noack_err_o, intake_idle_o, quiet_o;
  logic [rnic_pkg::TxdW-1:0] txd_i;
  logic [rnic_pkg::QpCfgW-1:0] ctx_i;

  rnic_tx_builder #(
    .DataW(DataW), .RingBytes(256), .NFrames(2), .LaneFrames(`LANE_FRAMES)
  ) dut (
    .clk_i, .rst_ni, .port_mac_i(48'h02_00_00_00_00_01), .port_ip_i(32'h0a00_0001),
    .txd_valid_i, .txd_ready_o, .txd_i, .ctx_idx_o, .ctx_i,
    .rd_req_valid_o, .rd_req_ready_i, .rd_req_addr_o, .rd_req_len_o,
    .rd_rsp_valid_i, .rd_rsp_ready_o, .rd_rsp_data_i, .rd_rsp_last_i, .rd_rsp_err_i,
    .tx_valid_o, .tx_ready_i, .tx_data_o, .tx_keep_o, .tx_last_o,
    .ev_first_o, .ev_last_o, .ev_qpn_o, .ev_idx_o,
    .noack_valid_o, .noack_err_o, .noack_ready_i, .cnt_pkts_o, .cnt_rd_err_o,
    .intake_idle_o, .quiet_o
  );

  logic ran;
  always_ff @(posedge clk_i) ran <= ran || !rst_ni;
  always_comb assume (rst_ni == ran);

  function automatic logic [7:0] mem_byte(input logic [63:0] a);
    mem_byte = a[7:0] ^ a[15:8] ^ 8'h5a;
  endfunction

  logic [6:0] p_q;
  always_ff @(posedge clk_i) p_q <= p_sel_i;
  always_comb if (ran && rst_ni) assume (p_sel_i == p_q);

  // Descriptor n taken (from 0 on) has wqe_idx n and QPN 0 or 1; header
  // fields the properties do not read are zero, and so is the QP context
  // (fewer free bits for the solver: constants, not assumptions).
  logic [3:0] cnt_q;              // descriptors taken
  rnic_pkg::txd_t td;
  always_comb begin
    td = '0;
    td.qpn = {23'd0, d_qp_i};
    td.opcode = d_op_i;
    td.psn = d_psn_i;
    td.pay_len = 13'(d_pay_i);
    td.nchunk = 3'(d_nch_i);
    td.chunk_addr[15:0] = d_a0_i;
    td.chunk_addr[79:64] = d_a1_i;
    td.chunk_len[12:0] = 13'(d_l0_i);
    td.chunk_len[25:13] = 13'(d_l1_i);
    td.ev_first = d_first_i;
    td.ev_last = d_last_i;
    td.wqe_idx = 16'(cnt_q);
  end
  assign txd_i = td;
  assign ctx_i = '0;
  logic [15:0] t_ext, t_pad, t_len, t_hdr;
  assign t_ext = {9'd0, rnic_pkg::ext_hdr_bytes(td.opcode)};
  assign t_pad = {14'd0, 2'(3'd4 - {1'b0, td.pay_len[1:0]})};
  assign t_len = 16'd58 + t_ext + {3'd0, td.pay_len} + t_pad;
  assign t_hdr = 16'd54 + t_ext;
  // Frame byte P of the descriptor offered: a payload byte (host memory at
  // the chunk's address), a pad byte (zero) or neither.
  logic [15:0] pq;
  logic [12:0] t_poff;
  logic [63:0] t_paddr;
  logic t_ppay, t_ppad;
  assign pq = 16'(p_q);
  assign t_poff = 13'(pq - t_hdr);
  assign t_paddr = (t_poff < td.chunk_len[12:0]) ? td.chunk_addr[63:0] + 64'(t_poff) :
                   td.chunk_addr[127:64] + 64'(t_poff - td.chunk_len[12:0]);
  assign t_ppay = (pq >= t_hdr) && (pq < t_hdr + 16'(td.pay_len));
  assign t_ppad = (pq >= t_hdr + 16'(td.pay_len)) && (pq + 16'd4 < t_len);

  // ---------------------------------------------------------------------------
  // The descriptors taken, by wqe_idx (cnt_q of them; tail: the newest, the
  // one whose reads intake issues)
  // ---------------------------------------------------------------------------
  logic [15:0] q_len_q [NQ];      // frame bytes with ICRC
  logic [7:0] q_pb_q [NQ];        // frame byte P if payload
  logic q_ppay_q [NQ], q_ppad_q [NQ];  // frame byte P is payload, pad
  logic [12:0] q_pay_q [NQ];
  logic [7:0] q_op_q [NQ];
  logic [23:0] q_psn_q [NQ];
  logic [63:0] q_a0_q [NQ], q_a1_q [NQ];
  logic [12:0] q_l0_q [NQ];
  logic [2:0] q_nch_q [NQ];
  logic q_err_q [NQ], q_rep_q [NQ], q_resp_q [NQ], q_qp_q [NQ], q_elig_q [NQ];
  logic q_first_q [NQ], q_last_q [NQ];
  logic [NQ-1:0] done_q;          // sent (last beat taken) or dropped
  logic [2:0] n_q;                // taken and not done
  logic [2:0] reqs_q;             // reads issued for the tail
  logic [15:0] ob_q;              // bytes of the current frame sent
  logic [1:0] cur_q;              // the current frame (while ob_q != 0)
  logic [7:0] sent_q;

  logic take_d, take_r, take_t, go;
  assign take_d = txd_valid_i && txd_ready_o;
  assign take_r = rd_req_valid_o && rd_req_ready_i;
  assign go = tx_valid_o && tx_ready_i;
  logic drop;
  assign drop = noack_valid_o && noack_err_o;
  logic [1:0] tl;                 // the tail
  assign tl = 2'(cnt_q - 4'd1);

  // The frame on the wire: named by ev_idx_o on its first beat, by the
  // first beat's name after it.
  logic first_b;
  logic [1:0] fid;
  assign first_b = (ob_q == 16'd0);
  assign fid = first_b ? ev_idx_o[1:0] : cur_q;

  // The oldest descriptor not done (cnt_q if none); older descriptors of
  // the frame on the wire not done, of its QPN and direction.
  logic [3:0] lo;
  logic older_any, older_key;
  always_comb begin
    lo = cnt_q;
    for (int j = NQ - 1; j >= 0; j--)
      if ((4'(j) < cnt_q) && !done_q[j]) lo = 4'(j);
    older_any = 1'b0;
    older_key = 1'b0;
    for (int j = 0; j < NQ; j++) begin
      if ((2'(j) < fid) && !done_q[j]) begin
        older_any = 1'b1;
        if ((q_qp_q[j] == q_qp_q[fid]) && (q_resp_q[j] == q_resp_q[fid])) older_key = 1'b1;
      end
    end
  end

  // The DMA: reads in order, {address, length, error} each.
  logic [63:0] r_a_q [NR];
  logic [15:0] r_l_q [NR];
  logic r_e_q [NR];
  logic [1:0] rh_q, rt_q;
  logic [2:0] rn_q;
  logic [15:0] roff_q;            // bytes of the head read returned
  assign take_t = rd_rsp_valid_i && rd_rsp_ready_o;
  always_comb begin
    rd_rsp_last_i = (roff_q + 16'(Bytes) >= r_l_q[rh_q]);
    rd_rsp_err_i = r_e_q[rh_q];
    for (int i = 0; i < Bytes; i++)
      rd_rsp_data_i[8*i +: 8] = mem_byte(r_a_q[rh_q] + 64'(roff_q) + 64'(i));
  end

  always_ff @(posedge clk_i) begin
    if (!rst_ni) begin
      cnt_q <= '0;
      done_q <= '0;
      n_q <= '0;
      reqs_q <= '0;
      ob_q <= '0;
      cur_q <= '0;
      sent_q <= '0;
      rh_q <= '0;
      rt_q <= '0;
      rn_q <= '0;
      roff_q <= '0;
    end else begin
      if (take_d) begin
        // The first read may go out in the cycle the descriptor is taken.
        q_len_q[cnt_q[1:0]] <= t_len;
        q_pb_q[cnt_q[1:0]] <= mem_byte(t_paddr);
        q_ppay_q[cnt_q[1:0]] <= t_ppay;
        q_ppad_q[cnt_q[1:0]] <= t_ppad;
        q_pay_q[cnt_q[1:0]] <= td.pay_len;
        q_op_q[cnt_q[1:0]] <= td.opcode;
        q_psn_q[cnt_q[1:0]] <= td.psn;
        q_a0_q[cnt_q[1:0]] <= td.chunk_addr[63:0];
        q_a1_q[cnt_q[1:0]] <= td.chunk_addr[127:64];
        q_l0_q[cnt_q[1:0]] <= td.chunk_len[12:0];
        q_nch_q[cnt_q[1:0]] <= td.nchunk;
        q_err_q[cnt_q[1:0]] <= take_r && req_err_i;
        q_resp_q[cnt_q[1:0]] <= rnic_pkg::op_is_response(td.opcode);
        q_rep_q[cnt_q[1:0]] <= td.ev_last && (td.opcode[7:5] != rnic_pkg::TrRc);
        q_qp_q[cnt_q[1:0]] <= td.qpn[0];
        q_elig_q[cnt_q[1:0]] <= (td.opcode[7:5] == rnic_pkg::TrRc) && (td.nchunk == 3'd0);
        q_first_q[cnt_q[1:0]] <= td.ev_first;
        q_last_q[cnt_q[1:0]] <= td.ev_last;
        cnt_q <= cnt_q + 4'd1;
        reqs_q <= {2'd0, take_r};
      end
      if (take_r) begin
        if (!take_d) reqs_q <= reqs_q + 3'd1;
        if (req_err_i && !take_d) q_err_q[tl] <= 1'b1;
        r_a_q[rt_q] <= rd_req_addr_o;
        r_l_q[rt_q] <= rd_req_len_o;
        r_e_q[rt_q] <= req_err_i;
        rt_q <= rt_q + 2'd1;
      end
      if (take_t) begin
        if (rd_rsp_last_i) begin
          rh_q <= rh_q + 2'd1;
          roff_q <= '0;
        end else begin
          roff_q <= roff_q + 16'(Bytes);
        end
      end
      rn_q <= rn_q + 3'(take_r) - 3'(take_t && rd_rsp_last_i);
      if (go) begin
        if (tx_last_o) begin
          ob_q <= '0;
          sent_q <= sent_q + 8'd1;
          done_q[fid] <= 1'b1;
        end else begin
          ob_q <= ob_q + 16'(Bytes);
          cur_q <= fid;
        end
      end
      // A failed request frame is dropped with its report (asserted: the
      // oldest descriptor not done).
      if (drop) done_q[lo[1:0]] <= 1'b1;
      n_q <= n_q + 3'(take_d) - 3'(go && tx_last_o) - 3'(drop);
    end
  end

  logic [15:0] ob_end;            // bytes sent with this beat
  assign ob_end = ob_q + 16'($countones(tx_keep_o));

  // The expected byte at frame offset P of the frame on the wire.
  logic [15:0] pq;
  assign pq = 16'(p_q);

  // The lanes of this beat that hold ICRC bytes (the last 4 of the frame).
  logic [Bytes-1:0] icrc_lane;
  always_comb begin
    for (int i = 0; i < Bytes; i++)
      icrc_lane[i] = (ob_q + 16'(i) + 16'd4 >= q_len_q[fid]) && (ob_q + 16'(i) < q_len_q[fid]);
  end

  logic wait_t_q, wait_r_q, ready_na_q, na_q;
  logic [DataW-1:0] data_w;
  logic [Bytes-1:0] keep_w;
  logic last_w;
  logic [15:0] idx_w;
  logic [63:0] raddr_w;
  logic [15:0] rlen_w;
  always_ff @(posedge clk_i) begin
    wait_t_q <= rst_ni && tx_valid_o && !tx_ready_i;
    wait_r_q <= rst_ni && rd_req_valid_o && !rd_req_ready_i;
    ready_na_q <= rst_ni && noack_ready_i;
    na_q <= noack_valid_o;
    data_w <= tx_data_o;
    keep_w <= tx_keep_o;
    last_w <= tx_last_o;
    idx_w <= ev_idx_o;
    raddr_w <= rd_req_addr_o;
    rlen_w <= rd_req_len_o;
  end

  logic d_wait_q;
  logic [86:0] d_in, d_w;
  assign d_in = {d_qp_i, d_op_i, d_psn_i, d_pay_i, d_nch_i, d_l0_i, d_l1_i, d_a0_i, d_a1_i,
                 d_first_i, d_last_i};
  always_ff @(posedge clk_i) begin
    d_wait_q <= rst_ni && txd_valid_i && !txd_ready_o;
    d_w <= d_in;
  end

  always_comb begin
    if (ran && rst_ni) begin
      // The requester: descriptors held until taken, chunks as it makes
      // them (the payload split into one or two non-empty chunks).
      if (d_wait_q) assume (txd_valid_i && (d_in == d_w));
      if (txd_valid_i) begin
        assume (cnt_q < 4'(NQ));
        assume (td.pay_len <= 13'd40);
        assume (td.nchunk <= 3'd2);
        assume ((td.nchunk == 3'd0) == (td.pay_len == 13'd0));
        if (td.nchunk >= 3'd1) assume (td.chunk_len[12:0] != 13'd0);
        if (td.nchunk == 3'd1) assume (td.chunk_len[12:0] == td.pay_len);
        if (td.nchunk == 3'd2) begin
          assume (td.chunk_len[25:13] != 13'd0 && td.chunk_len[12:0] < td.pay_len);
          assume (td.chunk_len[12:0] + td.chunk_len[25:13] == td.pay_len);
        end
      end
      // The DMA answers only reads it was asked, and fails only reads of
      // request frames.
      if (req_err_i) assume (take_d ? !rnic_pkg::op_is_response(td.opcode) : !q_resp_q[tl]);
      if (rd_rsp_valid_i) assume (rn_q != 3'd0);
      if (rn_q == 3'(NR)) assume (!rd_req_ready_i);
      // The completion FIFO's in_ready: falls only after a report.
      if (ready_na_q && !na_q) assume (noack_ready_i);

      // Reads: the tail's chunks, in order, held until taken.
      if (wait_r_q) assert (rd_req_valid_o && (rd_req_addr_o == raddr_w) &&
                            (rd_req_len_o == rlen_w));
      if (rd_req_valid_o && take_d) begin
        // The descriptor's first read, in the cycle it is taken.
        assert ((cnt_q == 4'd0) || (reqs_q == q_nch_q[tl]));
        assert (td.nchunk != 3'd0);
        assert (rd_req_addr_o == td.chunk_addr[63:0]);
        assert (rd_req_len_o == 16'(td.chunk_len[12:0]));
      end
      if (rd_req_valid_o && !take_d) begin
        assert (cnt_q != 4'd0);
        assert (reqs_q < q_nch_q[tl]);
        assert (rd_req_addr_o == ((reqs_q == 3'd0) ? q_a0_q[tl] : q_a1_q[tl]));
        assert (rd_req_len_o == ((reqs_q == 3'd0) ? 16'(q_l0_q[tl]) :
                                 16'(q_pay_q[tl] - q_l0_q[tl])));
      end
      if (take_d && (cnt_q != 4'd0)) assert (reqs_q == q_nch_q[tl]);
      // Occupancy, counters.
      assert (n_q <= 3'(2 + `LANE_FRAMES));
      assert (quiet_o == (n_q == 3'd0));
      assert (cnt_pkts_o[7:0] == sent_q);
      // The wire: beats held until taken.
      if (wait_t_q) begin
        assert (tx_valid_o && (tx_keep_o == keep_w) && (tx_last_o == last_w) &&
                (ev_idx_o == idx_w));
        for (int i = 0; i < Bytes; i++)
          if (!icrc_lane[i]) assert (tx_data_o[8*i +: 8] == data_w[8*i +: 8]);
      end
      if (tx_valid_o) begin
        // The frame is a descriptor taken, not done, that did not fail; the
        // same one on every beat; it passes no older one it may not pass.
        assert (ev_idx_o[15:2] == '0);
        assert ({2'b0, ev_idx_o[1:0]} < cnt_q);
        assert (!done_q[fid] && !q_err_q[fid]);
        if (!first_b) assert (ev_idx_o[1:0] == cur_q);
        assert (ev_qpn_o == {23'd0, q_qp_q[fid]});
        assert (!older_key);
        if (!q_elig_q[fid]) assert (!older_any);
        // Its beats.
        assert (tx_keep_o[0]);
        assert ((tx_keep_o & (tx_keep_o + 32'd1)) == '0);
        if (!tx_last_o) assert (tx_keep_o == '1);
        assert (tx_last_o == (ob_end == q_len_q[fid]));
        assert (ob_end <= q_len_q[fid]);
        if (ob_q == 16'd32) begin
          assert (tx_data_o[8*10 +: 8] == q_op_q[fid]);
          assert (tx_data_o[8*19 +: 24] == rnic_pkg::bswap24(q_psn_q[fid]));
        end
        if ((pq >= ob_q) && (pq < ob_q + 16'(Bytes))) begin
          if (q_ppay_q[fid]) assert (tx_data_o[8*5'(pq - ob_q) +: 8] == q_pb_q[fid]);
          if (q_ppad_q[fid]) assert (tx_data_o[8*5'(pq - ob_q) +: 8] == 8'd0);
        end
      end
      assert (ev_first_o == (go && first_b && q_first_q[fid]));
      assert (ev_last_o == (go && first_b && q_last_q[fid]));
      // Completion reports; a drop is the oldest descriptor's.
      if (noack_valid_o) begin
        assert (n_q != 3'd0);
        if (noack_err_o) assert (!go && (lo < cnt_q) && q_err_q[lo[1:0]] &&
                                 !q_resp_q[lo[1:0]]);
        else assert (go && first_b && q_rep_q[fid] && !q_err_q[fid]);
      end
      if (go && first_b && q_rep_q[fid]) assert (noack_valid_o);
`ifdef FV_COVER_PASS
      // Non-vacuity (expected to fail): a frame's last beat sent while an
      // older descriptor is unsent.
      assert (!(go && tx_last_o && older_any));
`endif
    end
  end
endmodule
