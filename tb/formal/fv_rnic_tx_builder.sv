// Properties of rnic_tx_builder (DataW 256, a frame ring of 256 bytes, eight
// words, with up to two frames in it: frames of up to 129 bytes, five
// words, so a frame waits for words as well as for the frame count, and
// frames wrap at the ring's end), without the side lane (LaneFrames 0:
// frames leave in intake order; fv_rnic_tx_builder_lane.sv proves the lane).
// Descriptors carry up to two payload chunks of at most 40 bytes in all,
// and hold valid and data until taken; the DMA answers each read in order
// with ceil(len / 32) beats, byte a of host memory being mem_byte(a), the
// error flag the same on every beat of a read; noack_ready_i falls only
// after a noack_valid_o (assumed). Asserted at the ports, against a shadow
// queue of the descriptors taken:
// - each descriptor issues exactly its chunks' reads, in order, each held
//   until taken (the first one may go out in the cycle it is taken);
// - the wire gets one frame per descriptor, in order, unless a read of it
//   failed (then no beat of it); a frame holds valid, data, keep and last
//   until taken, keeps lanes contiguous from lane 0 (all of them but on its
//   last beat) and is exactly 58 + extension + payload + pad bytes long;
// - its opcode and PSN are the descriptor's; frame byte P (free, fixed) is
//   the payload byte there (host memory at the chunk's address) or zero in
//   the pad;
// - noack_valid_o: on the first beat of a UC/UD message's last frame, or
//   for a failed request frame (with noack_err_o, and then no beat of it),
//   never otherwise (the DMA fails reads of request frames only: a failed
//   READ response is dropped silently, which the ports do not show);
// - cnt_pkts_o counts the frames sent, quiet_o exactly when no descriptor
//   is in the block.
// The ICRC bytes are the block bench's and the pcap tests' (tshark checks
// them): the proof takes fv_icrc_free.sv's free CRC (the SAT solver stalls
// on the real one's XOR matrix), so the ICRC lanes are left out of the
// stability check (the real CRC is a function of registers that are
// stable while a beat waits).
module fv_rnic_tx_builder (
  input logic         clk_i,
  input logic         rst_ni,
  input logic         txd_valid_i,
  input logic [rnic_pkg::TxdW-1:0] txd_i,
  input logic [rnic_pkg::QpCfgW-1:0] ctx_i,
  input logic         rd_req_ready_i,
  input logic         req_err_i,
  input logic         rd_rsp_valid_i,
  input logic         tx_ready_i,
  input logic         noack_ready_i,
  input logic [6:0]   p_sel_i
);
  localparam int unsigned DataW = 256;
  localparam int unsigned Bytes = DataW / 8;
  localparam int unsigned NQ = 4;        // shadow queue entries (2 frames)

  logic txd_ready_o, rd_req_valid_o, rd_rsp_ready_o, tx_valid_o, tx_last_o;
  logic [23:0] ctx_idx_o, ev_qpn_o;
  logic [63:0] rd_req_addr_o, cnt_pkts_o, cnt_rd_err_o;
  logic [15:0] rd_req_len_o, ev_idx_o;
  logic [DataW-1:0] rd_rsp_data_i, tx_data_o;
  logic rd_rsp_last_i, rd_rsp_err_i;
  logic [Bytes-1:0] tx_keep_o;
  logic ev_first_o, ev_last_o, noack_valid_o, noack_err_o, intake_idle_o, quiet_o;

  rnic_tx_builder #(
    .DataW(DataW), .RingBytes(256), .NFrames(2), .LaneFrames(0)
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

  rnic_pkg::txd_t td;
  assign td = txd_i;
  logic [15:0] t_ext, t_pad, t_len;
  assign t_ext = {9'd0, rnic_pkg::ext_hdr_bytes(td.opcode)};
  assign t_pad = {14'd0, 2'(3'd4 - {1'b0, td.pay_len[1:0]})};
  assign t_len = 16'd58 + t_ext + {3'd0, td.pay_len} + t_pad;

  // ---------------------------------------------------------------------------
  // Shadow queue of descriptors taken (tail: the one in intake)
  // ---------------------------------------------------------------------------
  logic [15:0] q_len_q [NQ];      // frame bytes with ICRC
  logic [15:0] q_hdr_q [NQ];      // header bytes (payload starts there)
  logic [12:0] q_pay_q [NQ];
  logic [7:0] q_op_q [NQ];
  logic [23:0] q_psn_q [NQ];
  logic [63:0] q_a0_q [NQ], q_a1_q [NQ];
  logic [12:0] q_l0_q [NQ];
  logic [2:0] q_nch_q [NQ];
  logic q_err_q [NQ], q_rep_q [NQ], q_resp_q [NQ];
  logic [1:0] hd_q, tl_q;
  logic [2:0] n_q;
  logic [2:0] reqs_q;             // reads issued for the tail
  logic [15:0] ob_q;              // bytes of the head frame sent
  logic [7:0] sent_q;

  logic take_d, take_r, take_t, go;
  assign take_d = txd_valid_i && txd_ready_o;
  assign take_r = rd_req_valid_o && rd_req_ready_i;
  assign go = tx_valid_o && tx_ready_i;
  // A request frame whose read failed is dropped with its report (a failed
  // READ response, dropped without one, is left to the block bench: the
  // DMA fails only reads of request frames here).
  logic drop;
  assign drop = noack_valid_o && noack_err_o;
  logic [1:0] tl_last;            // the newest entry
  assign tl_last = tl_q - 2'd1;

  // The DMA: reads in order, {address, length, error} each.
  logic [63:0] r_a_q [NQ];
  logic [15:0] r_l_q [NQ];
  logic r_e_q [NQ];
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
      hd_q <= '0;
      tl_q <= '0;
      n_q <= '0;
      reqs_q <= '0;
      ob_q <= '0;
      sent_q <= '0;
      rh_q <= '0;
      rt_q <= '0;
      rn_q <= '0;
      roff_q <= '0;
    end else begin
      if (take_d) begin
        // The first read may go out in the cycle the descriptor is taken.
        q_len_q[tl_q] <= t_len;
        q_hdr_q[tl_q] <= 16'd54 + t_ext;
        q_pay_q[tl_q] <= td.pay_len;
        q_op_q[tl_q] <= td.opcode;
        q_psn_q[tl_q] <= td.psn;
        q_a0_q[tl_q] <= td.chunk_addr[63:0];
        q_a1_q[tl_q] <= td.chunk_addr[127:64];
        q_l0_q[tl_q] <= td.chunk_len[12:0];
        q_nch_q[tl_q] <= td.nchunk;
        q_err_q[tl_q] <= take_r && req_err_i;
        q_resp_q[tl_q] <= rnic_pkg::op_is_response(td.opcode);
        q_rep_q[tl_q] <= td.ev_last && (td.opcode[7:5] != rnic_pkg::TrRc);
        tl_q <= tl_q + 2'd1;
        reqs_q <= {2'd0, take_r};
      end
      if (take_r) begin
        if (!take_d) reqs_q <= reqs_q + 3'd1;
        if (req_err_i && !take_d) q_err_q[tl_last] <= 1'b1;
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
        end else begin
          ob_q <= ob_q + 16'(Bytes);
        end
      end
      // A frame leaves the queue with its last beat, or dropped (its
      // report, or nothing for a response, in the cycle it goes).
      if ((go && tx_last_o) || drop) hd_q <= hd_q + 2'd1;
      n_q <= n_q + 3'(take_d) - 3'((go && tx_last_o) || drop);
    end
  end

  logic [15:0] ob_end;            // bytes sent with this beat
  assign ob_end = ob_q + 16'($countones(tx_keep_o));

  // The expected byte at frame offset P of the head frame.
  logic [15:0] pq;
  logic [12:0] poff;
  logic [63:0] paddr;
  assign pq = 16'(p_q);
  assign poff = 13'(pq - q_hdr_q[hd_q]);
  assign paddr = (poff < q_l0_q[hd_q]) ? q_a0_q[hd_q] + 64'(poff) :
                 q_a1_q[hd_q] + 64'(poff - q_l0_q[hd_q]);
  logic p_pay, p_pad;
  assign p_pay = (pq >= q_hdr_q[hd_q]) && (pq < q_hdr_q[hd_q] + 16'(q_pay_q[hd_q]));
  assign p_pad = (pq >= q_hdr_q[hd_q] + 16'(q_pay_q[hd_q])) && (pq + 16'd4 < q_len_q[hd_q]);

  // The lanes of this beat that hold ICRC bytes (the last 4 of the frame).
  logic [Bytes-1:0] icrc_lane;
  always_comb begin
    for (int i = 0; i < Bytes; i++)
      icrc_lane[i] = (ob_q + 16'(i) + 16'd4 >= q_len_q[hd_q]) && (ob_q + 16'(i) < q_len_q[hd_q]);
  end

  logic wait_t_q, wait_r_q, ready_na_q, na_q;
  logic [DataW-1:0] data_w;
  logic [Bytes-1:0] keep_w;
  logic last_w;
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
    raddr_w <= rd_req_addr_o;
    rlen_w <= rd_req_len_o;
  end

  logic d_wait_q;
  logic [rnic_pkg::TxdW-1:0] txd_w;
  always_ff @(posedge clk_i) begin
    d_wait_q <= rst_ni && txd_valid_i && !txd_ready_o;
    txd_w <= txd_i;
  end

  always_comb begin
    if (ran && rst_ni) begin
      // The requester: descriptors held until taken, chunks as it makes
      // them (the payload split into one or two non-empty chunks).
      if (d_wait_q) assume (txd_valid_i && (txd_i == txd_w));
      if (txd_valid_i) begin
        // Header fields the properties do not read are zero (fewer free
        // bits for the solver); chunks 2 and 3 are unused.
        assume ((td.reth_va == '0) && (td.reth_rkey == '0) && (td.reth_len == '0) &&
                (td.imm == '0) && (td.aeth_syn == '0) && (td.aeth_msn == '0) &&
                (td.atomic_swap == '0) && (td.atomic_cmp == '0) && (td.qkey == '0) &&
                (td.ud_dqpn == '0) && (td.ud_dip == '0) && (td.ud_dmac == '0) &&
                (td.chunk_addr[255:128] == '0) && (td.chunk_len[51:26] == '0) &&
                (td.chunk_addr[127:80] == '0) && (td.chunk_addr[63:16] == '0));
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
      if (req_err_i) assume (take_d ? !rnic_pkg::op_is_response(td.opcode) : !q_resp_q[tl_last]);
      if (rd_rsp_valid_i) assume (rn_q != 3'd0);
      if (rn_q == 3'(NQ)) assume (!rd_req_ready_i);
      // The completion FIFO's in_ready: falls only after a report.
      if (ready_na_q && !na_q) assume (noack_ready_i);

      // Reads: the tail's chunks, in order, held until taken.
      if (wait_r_q) assert (rd_req_valid_o && (rd_req_addr_o == raddr_w) &&
                            (rd_req_len_o == rlen_w));
      if (rd_req_valid_o && take_d) begin
        // The descriptor's first read, in the cycle it is taken.
        assert ((n_q == 3'd0) || (reqs_q == q_nch_q[tl_last]));
        assert (td.nchunk != 3'd0);
        assert (rd_req_addr_o == td.chunk_addr[63:0]);
        assert (rd_req_len_o == 16'(td.chunk_len[12:0]));
      end
      if (rd_req_valid_o && !take_d) begin
        assert (n_q != 3'd0);
        assert (reqs_q < q_nch_q[tl_last]);
        assert (rd_req_addr_o == ((reqs_q == 3'd0) ? q_a0_q[tl_last] : q_a1_q[tl_last]));
        assert (rd_req_len_o == ((reqs_q == 3'd0) ? 16'(q_l0_q[tl_last]) :
                                 16'(q_pay_q[tl_last] - q_l0_q[tl_last])));
      end
      if (take_d && (n_q != 3'd0)) assert (reqs_q == q_nch_q[tl_last]);
      // The wire.
      assert (n_q <= 3'd2);
      assert (quiet_o == (n_q == 3'd0));
      assert (cnt_pkts_o[7:0] == sent_q);
      if (wait_t_q) begin
        assert (tx_valid_o && (tx_keep_o == keep_w) && (tx_last_o == last_w));
        for (int i = 0; i < Bytes; i++)
          if (!icrc_lane[i]) assert (tx_data_o[8*i +: 8] == data_w[8*i +: 8]);
      end
      if (tx_valid_o) begin
        assert (n_q != 3'd0);
        assert (!q_err_q[hd_q]);
        assert (tx_keep_o[0]);
        assert ((tx_keep_o & (tx_keep_o + 32'd1)) == '0);
        if (!tx_last_o) assert (tx_keep_o == '1);
        assert (tx_last_o == (ob_end == q_len_q[hd_q]));
        assert (ob_end <= q_len_q[hd_q]);
        if (ob_q == 16'd32) begin
          assert (tx_data_o[8*10 +: 8] == q_op_q[hd_q]);
          assert (tx_data_o[8*19 +: 24] == rnic_pkg::bswap24(q_psn_q[hd_q]));
        end
        if ((pq >= ob_q) && (pq < ob_q + 16'(Bytes))) begin
          if (p_pay) assert (tx_data_o[8*5'(pq - ob_q) +: 8] == mem_byte(paddr));
          if (p_pad) assert (tx_data_o[8*5'(pq - ob_q) +: 8] == 8'd0);
        end
      end
      // Completion reports.
      if (noack_valid_o) begin
        assert (n_q != 3'd0);
        assert (noack_err_o == q_err_q[hd_q]);
        if (!noack_err_o) assert (q_rep_q[hd_q] && go && (ob_q == 16'd0));
      end
      if (go && (ob_q == 16'd0) && q_rep_q[hd_q]) assert (noack_valid_o);
      if (drop) assert (!go && !q_resp_q[hd_q]);
`ifdef FV_COVER_FRAME
      // Non-vacuity (expected to fail): a frame's last beat sent, byte P of
      // it being payload, checked.
      assert (!(go && tx_last_o && p_pay && (pq >= ob_q)));
`endif
    end
  end
endmodule
