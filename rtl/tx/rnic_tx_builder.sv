// rnic_tx_builder: builds RoCEv2 frames and sends them.
//
// Store and forward through a frame ring and three stages that overlap:
// intake writes the Ethernet/IPv4/UDP/BTH/extension headers of a frame (to
// the QP context's peer, or to the descriptor's address handle for UD) and
// issues its payload DMA reads (one per chunk, back to back); assembly packs
// the returned beats behind the header at any byte offset; emission streams a
// finished frame. Frames leave in the order intake takes them, so one ring
// of RingBytes holds them all: intake allocates a frame's words (its length
// with pad and ICRC, rounded up to whole words) at the tail when they are
// free, emission frees them at the head as the frame's last beat leaves. A
// frame's payload read waits out the host memory's latency whatever its
// size, so it is the number of frames in flight that sets the rate of small
// and mid-size messages: up to NFrames of any mix of sizes are in the ring
// (16 KiB holds three of 4 KiB payload, or eleven of 1 KiB). Fixed slots
// (three of 4 KiB and eight of 512 bytes until stop 38) made every frame
// of 480 bytes to 4 KiB wait for one of the three large ones
// (docs/performance.md). A frame without payload reads (ACK,
// READ or atomic request) skips assembly, and when nothing is queued before it,
// emission streams its header words as intake writes them. The emitter
// appends pad bytes and the ICRC, computed over the masked headers and
// payload as the frame streams out.
// A frame whose payload read failed (the IOMMU refused it) is not sent: a
// request frame's WQE is reported to the completer, which fails it with
// IBV_WC_GENERAL_ERR; a READ response is dropped (the requester retries).
//
// The side lane: an RC frame without payload reads (an ACK or NAK, an atomic
// ACK, a READ or atomic request) that finds frames in the ring, none of its
// QP and direction (request or response), goes to a lane of LaneFrames
// header slots instead, also when the ring is full, and may leave before
// the ring's frames: an ACK need not wait behind 16 KiB of READ response
// frames, nor a READ request behind WRITE payload. Each QP's requests, and
// its responses, keep their order (the IBA orders those, not different QPs'
// or the two directions). At a frame boundary an older lane frame goes
// first; when the ring's head is older the two take turns.
module rnic_tx_builder #(
  parameter int unsigned DataW = 256,
  // The frame ring (rounded up to a power of two words; it must hold the
  // largest frame, 4 KiB of payload and 96 bytes of headers and ICRC) and
  // the frames it may hold at once
  parameter int unsigned RingBytes = 16384,
  parameter int unsigned NFrames = 11,
  // Frames the side lane holds (0: none, frames leave in intake order)
  parameter int unsigned LaneFrames = 4,
  localparam int unsigned Bytes = DataW / 8
) (
  input  logic        clk_i,
  input  logic        rst_ni,
  input  logic [47:0] port_mac_i,
  input  logic [31:0] port_ip_i,
  input  logic        txd_valid_i,
  output logic        txd_ready_o,
  input  logic [rnic_pkg::TxdW-1:0] txd_i,
  output logic [23:0] ctx_idx_o,
  input  logic [rnic_pkg::QpCfgW-1:0] ctx_i,
  // Payload DMA
  output logic        rd_req_valid_o,
  input  logic        rd_req_ready_i,
  output logic [63:0] rd_req_addr_o,
  output logic [15:0] rd_req_len_o,
  input  logic        rd_rsp_valid_i,
  output logic        rd_rsp_ready_o,
  input  logic [DataW-1:0] rd_rsp_data_i,
  input  logic        rd_rsp_last_i,
  input  logic        rd_rsp_err_i,
  // Wire
  output logic        tx_valid_o,
  input  logic        tx_ready_i,
  output logic [DataW-1:0] tx_data_o,
  output logic [Bytes-1:0] tx_keep_o,
  output logic        tx_last_o,
  // Trace and counters
  output logic        ev_first_o,
  output logic        ev_last_o,
  output logic [23:0] ev_qpn_o,
  output logic [15:0] ev_idx_o,
  // The last frame of a UC/UD message starts on the wire: its payload has
  // been read, so the send WQE may complete (no ACK will come). Or, with
  // noack_err_o, a request frame was dropped because its payload read
  // failed: its WQE fails. The frame waits while noack_ready_i is low;
  // noack_ready_i may only fall after a noack_valid_o (it is a FIFO's
  // in_ready), so an offered frame stays offered.
  output logic        noack_valid_o,
  output logic        noack_err_o,
  input  logic        noack_ready_i,
  output logic [63:0] cnt_pkts_o,
  output logic [63:0] cnt_rd_err_o,
  // No frame in intake: every payload read of the frames taken was issued
  output logic        intake_idle_o,
  // No frame anywhere: intake, assembly and emission idle (fast-forward)
  output logic        quiet_o
);
  localparam int unsigned LaneW = $clog2(Bytes);
  localparam int unsigned HdrWords = (96 + Bytes - 1) / Bytes;
  localparam int unsigned HdrBytes = HdrWords * Bytes;
  // Word addresses wrap at the ring's end; a frame's word count fits one.
  localparam int unsigned BufW = $clog2(RingBytes / Bytes);
  localparam int unsigned RingWords = 2 ** BufW;
  localparam int unsigned WordW = BufW;
  localparam int unsigned UsedW = BufW + 1;
  localparam int unsigned NfW = $clog2(NFrames + 1);
  // rnic_fifo wants a power-of-two depth; NFrames bounds the occupancy.
  localparam int unsigned QDepth = (NFrames > 1) ? 2 ** $clog2(NFrames) : 2;
  localparam int unsigned QW = $clog2(QDepth);
  // Side lane slots (a power of two), header words per slot (a frame
  // without payload is its header and ICRC: HdrWords words at most)
  localparam int unsigned LnSlots = (LaneFrames > 1) ? 2 ** $clog2(LaneFrames) : 2;
  localparam int unsigned LnW = $clog2(LnSlots);
  localparam int unsigned LnWordW = (HdrWords > 1) ? $clog2(HdrWords) : 1;
  localparam int unsigned LnCntW = $clog2(LnSlots + 1);

  // ---------------------------------------------------------------------------
  // The frame ring: frames from r_head_q on, r_used_q words, n_fr_q frames
  // ---------------------------------------------------------------------------
  logic [DataW-1:0] buf_q [RingWords];
  logic [BufW-1:0] r_head_q;
  logic [UsedW-1:0] r_used_q;
  logic [NfW-1:0] n_fr_q;

  // ---------------------------------------------------------------------------
  // Header construction
  // ---------------------------------------------------------------------------
  rnic_pkg::txd_t d_q;
  /* verilator lint_off UNUSEDSIGNAL */  // a context view: each block reads its own fields
  rnic_pkg::qp_cfg_t ctx;
  /* verilator lint_on UNUSEDSIGNAL */
  assign ctx_idx_o = d_q.qpn;
  assign ctx = ctx_i;

  logic [6:0] ext_len;
  logic [1:0] pad;
  logic [15:0] hdr_len, pay_end, frame_len, ip_len, udp_len;
  assign ext_len = rnic_pkg::ext_hdr_bytes(d_q.opcode);
  assign pad = 2'(3'd4 - {1'b0, d_q.pay_len[1:0]});
  assign hdr_len = 16'd54 + {9'd0, ext_len};
  assign pay_end = hdr_len + {3'd0, d_q.pay_len};
  assign frame_len = pay_end + {14'd0, pad};
  assign ip_len = frame_len + 16'd4 - 16'd14;
  assign udp_len = ip_len - 16'd20;

  // Destination: a UD descriptor carries its address handle's; everything
  // else goes to the QP context's peer.
  logic [47:0] dst_mac;
  logic [31:0] dst_ip;
  logic [23:0] dst_qpn;
  assign dst_mac = d_q.ud_en ? d_q.ud_dmac : ctx.dest_mac;
  assign dst_ip = d_q.ud_en ? d_q.ud_dip : ctx.dest_ip;
  assign dst_qpn = d_q.ud_en ? d_q.ud_dqpn : ctx.dest_qpn;

  // Intake state (below): the header is written while in_q is InHdr.
  typedef enum logic {InIdle, InHdr} in_e;
  in_e in_q;
  logic [WordW-1:0] hw_q;           // header word being written

  // The header, byte i of the frame at hdr_vec[8i +: 8] (fixed part-selects;
  // multi-byte fields are big-endian on the wire). Built only while intake
  // writes it; hdr_word is the word written this cycle.
  logic [HdrBytes*8-1:0] hdr_vec;
  logic [DataW-1:0] hdr_word;
  logic [19:0] csum_acc;
  logic [15:0] ip_csum;

  always_comb begin
    hdr_vec = '0;
    hdr_word = '0;
    csum_acc = '0;
    ip_csum = '0;
    if (in_q == InHdr) begin
      // Ethernet
      hdr_vec[8*0 +: 48] = rnic_pkg::bswap48(dst_mac);
      hdr_vec[8*6 +: 48] = rnic_pkg::bswap48(port_mac_i);
      hdr_vec[8*12 +: 16] = rnic_pkg::bswap16(16'h0800);
      // IPv4
      hdr_vec[8*14 +: 8] = 8'h45;
      hdr_vec[8*16 +: 16] = rnic_pkg::bswap16(ip_len);
      hdr_vec[8*20 +: 8] = 8'h40;  // don't fragment
      hdr_vec[8*22 +: 8] = 8'd64;
      hdr_vec[8*23 +: 8] = 8'd17;
      hdr_vec[8*26 +: 32] = rnic_pkg::bswap32(port_ip_i);
      hdr_vec[8*30 +: 32] = rnic_pkg::bswap32(dst_ip);
      // UDP
      hdr_vec[8*34 +: 16] = rnic_pkg::bswap16(ctx.udp_sport);
      hdr_vec[8*36 +: 16] = rnic_pkg::bswap16(16'd4791);
      hdr_vec[8*38 +: 16] = rnic_pkg::bswap16(udp_len);
      // BTH
      hdr_vec[8*42 +: 8] = d_q.opcode;
      hdr_vec[8*43 +: 8] = {d_q.se, 1'b0, pad, 4'd0};
      hdr_vec[8*44 +: 16] = 16'hffff;
      hdr_vec[8*47 +: 24] = rnic_pkg::bswap24(dst_qpn);
      hdr_vec[8*50 +: 8] = {d_q.ack_req, 7'd0};
      hdr_vec[8*51 +: 24] = rnic_pkg::bswap24(d_q.psn);
      // Extension headers, in IBA order (DETH, RETH, AtomicETH, AETH,
      // AtomicAckETH, ImmDt, IETH); no opcode has more than two of them, so
      // each combination sits at fixed offsets. ImmDt and IETH are the four
      // bytes of imm as they are in host memory (byte i of the wire =
      // imm[8i+7:8i]).
      if (rnic_pkg::op_has_deth(d_q.opcode)) begin
        hdr_vec[8*54 +: 32] = rnic_pkg::bswap32(d_q.qkey);
        // byte 58 reserved
        hdr_vec[8*59 +: 24] = rnic_pkg::bswap24(d_q.qpn);
        if (rnic_pkg::op_has_imm(d_q.opcode)) hdr_vec[8*62 +: 32] = d_q.imm;
      end else if (rnic_pkg::op_has_reth(d_q.opcode)) begin
        hdr_vec[8*54 +: 64] = rnic_pkg::bswap64(d_q.reth_va);
        hdr_vec[8*62 +: 32] = rnic_pkg::bswap32(d_q.reth_rkey);
        hdr_vec[8*66 +: 32] = rnic_pkg::bswap32(d_q.reth_len);
        if (rnic_pkg::op_has_imm(d_q.opcode)) hdr_vec[8*70 +: 32] = d_q.imm;
      end else if (rnic_pkg::op_has_atomic_eth(d_q.opcode)) begin
        hdr_vec[8*54 +: 64] = rnic_pkg::bswap64(d_q.reth_va);
        hdr_vec[8*62 +: 32] = rnic_pkg::bswap32(d_q.reth_rkey);
        hdr_vec[8*66 +: 64] = rnic_pkg::bswap64(d_q.atomic_swap);
        hdr_vec[8*74 +: 64] = rnic_pkg::bswap64(d_q.atomic_cmp);
      end else if (rnic_pkg::op_has_aeth(d_q.opcode)) begin
        hdr_vec[8*54 +: 8] = d_q.aeth_syn;
        hdr_vec[8*55 +: 24] = rnic_pkg::bswap24(d_q.aeth_msn);
        if (d_q.opcode == rnic_pkg::OpAtomicAck) begin
          hdr_vec[8*58 +: 64] = rnic_pkg::bswap64(d_q.atomic_swap);
        end
      end else if (rnic_pkg::op_has_imm(d_q.opcode) || rnic_pkg::op_has_ieth(d_q.opcode)) begin
        hdr_vec[8*54 +: 32] = d_q.imm;
      end
      // IPv4 header checksum (over the header with the checksum field zero)
      for (int i = 0; i < 10; i++) begin
        csum_acc = csum_acc + {4'd0, rnic_pkg::bswap16(hdr_vec[8*(14+2*i) +: 16])};
      end
      csum_acc = {4'd0, csum_acc[15:0]} + {16'd0, csum_acc[19:16]};
      csum_acc = {4'd0, csum_acc[15:0]} + {16'd0, csum_acc[19:16]};
      ip_csum = ~csum_acc[15:0];
      hdr_vec[8*24 +: 16] = rnic_pkg::bswap16(ip_csum);
      for (int k = 0; k < HdrWords; k++) begin
        if (hw_q == WordW'(k)) hdr_word = hdr_vec[k*DataW +: DataW];
      end
    end
  end

  // ---------------------------------------------------------------------------
  // Intake: take a descriptor into a free slot, write its header and issue
  // all its payload reads, then queue it for assembly. Intake runs ahead of
  // assembly, so the reads of the next frame are in flight while the beats of
  // the current one arrive (DMA data return in request order).
  // ---------------------------------------------------------------------------
  logic [2:0] req_i_q;              // next chunk to request
  logic [BufW-1:0] ibase_q;         // first word of the frame in intake
  logic d_lane_q;                   // the frame in intake goes to the side lane
  logic room;                       // the offered frame fits the ring now

  // The offered frame's length with pad and ICRC, as intake will compute it.
  rnic_pkg::txd_t txd_view;
  logic [15:0] t_len;
  logic [16:0] t_words;
  assign txd_view = txd_i;
  assign t_len = 16'd58 + {9'd0, rnic_pkg::ext_hdr_bytes(txd_view.opcode)} +
                 {3'd0, txd_view.pay_len} + {14'd0, 2'(3'd4 - {1'b0, txd_view.pay_len[1:0]})};
  // Every word emission reads: the frame's bytes with pad and ICRC.
  assign t_words = (17'(t_len) + 17'(Bytes - 1)) >> LaneW;

  // A frame takes its words when that many are free and fewer than
  // NFrames frames are in the ring.
  assign room = (32'(n_fr_q) < NFrames) && (17'(r_used_q) + t_words <= 17'(RingWords));

  // The ring's frames' QP and direction, in ring order (rf_rd_q is the
  // ring's head frame): the side lane's check.
  logic [24:0] rf_key_q [QDepth];
  logic [QW-1:0] rf_rd_q, rf_wr_q;
  logic [24:0] t_key;
  logic t_elig, t_hit, to_lane;
  logic [LnCntW-1:0] ln_cnt_q;      // frames in the side lane
  assign t_key = {txd_view.qpn, rnic_pkg::op_is_response(txd_view.opcode)};
  assign t_elig = (LaneFrames > 0) && (txd_view.opcode[7:5] == rnic_pkg::TrRc) &&
                  (txd_view.nchunk == 3'd0);
  // Compared only while such a frame is offered to an idle intake.
  always_comb begin
    t_hit = 1'b0;
    if ((in_q == InIdle) && txd_valid_i && t_elig) begin
      for (int k = 0; k < QDepth; k++) begin
        if ((NfW'(QW'(k) - rf_rd_q) < n_fr_q) && (rf_key_q[k] == t_key)) t_hit = 1'b1;
      end
    end
  end
  assign to_lane = t_elig && (n_fr_q != '0) && !t_hit && (32'(ln_cnt_q) < LaneFrames);
  assign txd_ready_o = (in_q == InIdle) && (room || to_lane);
  assign intake_idle_o = (in_q == InIdle);
  logic take, r_take;
  assign take = txd_valid_i && txd_ready_o;
  assign r_take = take && !to_lane;

  // The chunk being requested, by constant part-selects (an indexed one is
  // a shifter over the whole descriptor to Yosys; docs/rtl-style.md).
  logic [12:0] req_len;
  logic [63:0] req_addr;
  always_comb begin
    req_len = d_q.chunk_len[12:0];
    req_addr = d_q.chunk_addr[63:0];
    for (int unsigned c = 1; c < 4; c++) begin
      if (req_i_q[1:0] == 2'(c)) begin
        req_len = d_q.chunk_len[c*13 +: 13];
        req_addr = d_q.chunk_addr[c*64 +: 64];
      end
    end
  end
  // The first payload read goes out in the cycle the descriptor is taken
  // (from the descriptor itself); the rest, and a first one not taken
  // then, while the header is written.
  logic rd_first;
  assign rd_first = (in_q == InIdle) && txd_valid_i && room && (txd_view.nchunk != 3'd0);
  assign rd_req_valid_o = rd_first || ((in_q == InHdr) && (req_i_q < d_q.nchunk));
  assign rd_req_addr_o = rd_first ? txd_view.chunk_addr[63:0] : req_addr;
  assign rd_req_len_o = rd_first ? {3'd0, txd_view.chunk_len[12:0]} : {3'd0, req_len};

  // Assembly queue: what assembly needs to know of a frame.
  localparam int unsigned AqW = BufW + 16 + 16 + 16 + 3 + 52 + 1 + 1 + 1 + 1 + 24 + 16;
  logic aq_push, aq_in_ready, aq_valid, aq_pop;
  logic [AqW-1:0] aq_in, aq_out;
  logic [$clog2(QDepth):0] aq_count;
  always_comb begin
    aq_in = '0;
    if (in_q != InIdle) begin
      aq_in = {ibase_q, hdr_len, pay_end, frame_len, d_q.nchunk, d_q.chunk_len,
               d_q.ev_first, d_q.ev_last, (d_q.opcode[7:5] != rnic_pkg::TrRc),
               rnic_pkg::op_is_response(d_q.opcode), d_q.qpn, d_q.wqe_idx};
    end
  end
  // Intake writes the header words the frame has (no header length is a
  // multiple of the word, so the last one also holds the payload's first
  // bytes: assembly's tail word) and queues the frame for assembly in the
  // cycle it writes the last one and issues the last read. The queue has
  // an entry per slot and every queued frame holds one, so it has room.
  logic [WordW-1:0] hdr_last;
  logic hdr_done;
  assign hdr_last = WordW'((hdr_len - 16'd1) >> LaneW);
  assign hdr_done = (in_q == InHdr) && (hw_q == hdr_last) &&
                    ((req_i_q == d_q.nchunk) ||
                     ((req_i_q + 3'd1 == d_q.nchunk) && rd_req_ready_i));

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      in_q <= InIdle;
      d_q <= '0;
      d_lane_q <= 1'b0;
      ibase_q <= '0;
      hw_q <= '0;
      req_i_q <= '0;
    end else begin
      if (rd_req_valid_o && rd_req_ready_i) req_i_q <= req_i_q + 3'd1;
      unique case (in_q)
        InIdle: begin
          if (take) begin
            d_q <= txd_i;
            d_lane_q <= to_lane;
            ibase_q <= r_head_q + BufW'(r_used_q);
            hw_q <= '0;
            req_i_q <= {2'd0, rd_first && rd_req_ready_i};
            in_q <= InHdr;
          end
        end
        InHdr: begin
          if (hw_q != hdr_last) hw_q <= hw_q + 1'b1;
          if (hdr_done) in_q <= InIdle;
        end
        default: in_q <= InIdle;
      endcase
    end
  end

  rnic_fifo #(.Width(AqW), .Depth(QDepth)) u_asm_q (
    .clk_i, .rst_ni,
    .in_valid_i(aq_push), .in_ready_o(aq_in_ready), .in_data_i(aq_in),
    .out_valid_o(aq_valid), .out_ready_i(aq_pop), .out_data_o(aq_out),
    .count_o(aq_count)
  );
`ifdef RNIC_ASSERT
  /* verilator coverage_off */
  // A frame in intake holds a slot, so the queue is never full at a push.
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
    end else if (aq_push) begin
      assert (aq_in_ready);
    end
  end
  /* verilator coverage_on */
`endif

  // ---------------------------------------------------------------------------
  // Assembly: pack the returned beats behind the header, then queue the frame
  // for emission.
  // ---------------------------------------------------------------------------
  logic [BufW-1:0] abase;           // first word of the frame in assembly
  logic [15:0] a_hdr_len, a_pay_end, a_len, a_idx;
  logic [2:0] a_nchunk;
  logic [51:0] a_chunk_len;
  logic a_first, a_last, a_noack, a_resp;
  logic [23:0] a_qpn;
  assign {abase, a_hdr_len, a_pay_end, a_len, a_nchunk, a_chunk_len, a_first, a_last,
          a_noack, a_resp, a_qpn, a_idx} = aq_out;

  logic a_run_q;                    // beats of the head frame are being packed
  logic [2:0] rsp_i_q;              // chunk whose beats arrive
  logic [12:0] rsp_left_q;          // bytes of that chunk still to come
  logic [15:0] woff_q;              // byte offset of the next payload byte
  logic a_err_q;                    // a payload read of the head frame failed

  assign rd_rsp_ready_o = aq_valid && a_run_q && (rsp_i_q < a_nchunk);
  logic beat;
  assign beat = rd_rsp_valid_i && rd_rsp_ready_o;

  // Where this beat lands: word and lane of woff_q, valid bytes of the beat.
  // Assembly writes whole words: tail_q holds the bytes already packed into
  // the word woff_q is in (header bytes, loaded when the frame starts, or the
  // previous beat's); a beat fills that word from its lane on and, when it
  // crosses, the start of the next. Bytes past the packed ones are left as
  // they come: nothing reads them (emission zeroes everything from pay_end).
  logic [12:0] nbytes;
  logic [LaneW-1:0] lane;
  logic [WordW-1:0] wword;
  logic spill;
  logic [DataW-1:0] tail_q;
  logic [2*DataW-1:0] sh_data;
  logic [DataW-1:0] wr_lo;
  assign nbytes = (rsp_left_q < 13'(Bytes)) ? rsp_left_q : 13'(Bytes);
  assign lane = woff_q[LaneW-1:0];
  assign wword = WordW'(woff_q >> LaneW);
  assign spill = (13'(lane) + nbytes > 13'(Bytes));
  // The shifter runs only for a beat that is taken.
  always_comb begin
    sh_data = '0;
    wr_lo = '0;
    if (beat) begin
      sh_data = {{DataW{1'b0}}, rd_rsp_data_i} << {lane, 3'b000};
      wr_lo = (tail_q & ~({DataW{1'b1}} << {lane, 3'b000})) | sh_data[DataW-1:0];
    end
  end

  // Emit queue
  logic eq_push, eq_valid, eq_pop, eq_in_ready;
  logic [BufW+16+16+1+1+1+1+1+24+16-1:0] eq_in, eq_out;
  logic [$clog2(QDepth):0] eq_count;
  logic a_done;
  assign a_done = aq_valid && a_run_q && (rsp_i_q == a_nchunk);
  // A frame without payload reads (an ACK, a READ or atomic request) needs
  // no assembly: when no frame is queued for or in assembly, intake queues
  // it for emission itself (byp) in the cycle of its last header word
  // (frames stay in order; a frame in intake holds a slot, so the emit queue
  // has room, checked all the same). If the emit queue is empty too,
  // emission already has it (direct, below) and it is queued only if its
  // last beat has not gone by then.
  logic no_asm, byp, direct, e_done;
  assign no_asm = !d_lane_q && (d_q.nchunk == 3'd0) && !aq_valid && !a_run_q && eq_in_ready;
  assign byp = hdr_done && no_asm && !(direct && e_done);
  assign aq_push = hdr_done && !d_lane_q && !no_asm;
  assign eq_push = byp || (a_done && eq_in_ready);
  assign aq_pop = a_done && eq_in_ready;
  // The frame in intake as the emit queue holds it (byp, direct).
  logic [$bits(eq_in)-1:0] i_ent;
  assign i_ent = {ibase_q, pay_end, frame_len, d_q.ev_first, d_q.ev_last,
                  (d_q.opcode[7:5] != rnic_pkg::TrRc), rnic_pkg::op_is_response(d_q.opcode),
                  1'b0, d_q.qpn, d_q.wqe_idx};
  assign eq_in = byp ? i_ent :
                 {abase, a_pay_end, a_len, a_first, a_last, a_noack, a_resp, a_err_q, a_qpn,
                  a_idx};

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      a_run_q <= 1'b0;
      rsp_i_q <= '0;
      rsp_left_q <= '0;
      woff_q <= '0;
      a_err_q <= 1'b0;
      cnt_rd_err_o <= '0;
    end else if (!a_run_q) begin
      if (aq_valid) begin
        a_run_q <= 1'b1;
        a_err_q <= 1'b0;
        rsp_i_q <= '0;
        rsp_left_q <= a_chunk_len[12:0];
        woff_q <= a_hdr_len;
      end
    end else if (eq_push) begin
      a_run_q <= 1'b0;
    end else if (beat) begin
      woff_q <= woff_q + {3'd0, nbytes};
      // One count per failed read (the error flag is on every beat of it).
      if (rd_rsp_err_i && rd_rsp_last_i) cnt_rd_err_o <= cnt_rd_err_o + 64'd1;
      if (rd_rsp_err_i) a_err_q <= 1'b1;
      if (rd_rsp_last_i) begin
        rsp_i_q <= rsp_i_q + 3'd1;
        rsp_left_q <= a_chunk_len[2'(rsp_i_q[1:0] + 2'd1)*13 +: 13];
      end else begin
        rsp_left_q <= rsp_left_q - nbytes;
      end
    end
  end

  always_ff @(posedge clk_i) begin
    if ((in_q == InHdr) && !d_lane_q) begin
      buf_q[ibase_q + BufW'(hw_q)] <= hdr_word;
    end
    if (!a_run_q && aq_valid) begin
      tail_q <= buf_q[abase + BufW'(a_hdr_len >> LaneW)];
    end
    if (beat) begin
      buf_q[abase + BufW'(wword)] <= wr_lo;
      if (spill) buf_q[abase + BufW'(wword) + 1'b1] <= sh_data[DataW +: DataW];
      tail_q <= (13'(lane) + nbytes >= 13'(Bytes)) ? sh_data[DataW +: DataW] : wr_lo;
    end
  end

  rnic_fifo #(.Width($bits(eq_in)), .Depth(QDepth)) u_emit_q (
    .clk_i, .rst_ni,
    .in_valid_i(eq_push), .in_ready_o(eq_in_ready), .in_data_i(eq_in),
    .out_valid_o(eq_valid), .out_ready_i(eq_pop), .out_data_o(eq_out),
    .count_o(eq_count)
  );

  // ---------------------------------------------------------------------------
  // Emission with pad and ICRC
  // ---------------------------------------------------------------------------
  // Emission takes the emit queue's head, or with the queue empty, a frame
  // without payload reads that intake is writing and nothing precedes
  // (direct): its beats follow the header words as intake writes them, the
  // word written in this cycle from intake itself. Its entry goes into the
  // queue with the last header word (byp) unless its last beat went.
  logic e_valid;
  logic [$bits(eq_in)-1:0] e_ent;
  assign direct = (in_q == InHdr) && no_asm && !eq_valid;   // an empty queue has room
  assign e_valid = eq_valid || direct;

  // The side lane: LnSlots slots of header words, the emit entry of each
  // and the ring frames still ahead of it (taken before it), in intake
  // order from ln_rd_q; a slot can go once intake wrote its last header
  // word (ln_done_q).
  logic [DataW-1:0] lbuf_q [LnSlots * (2 ** LnWordW)];
  logic [$bits(eq_in)-1:0] ln_ent_q [LnSlots];
  logic [NfW-1:0] ln_ahead_q [LnSlots];
  logic [LnSlots-1:0] ln_done_q;
  logic [LnW-1:0] ln_rd_q, ln_wr_q, ln_islot_q;
  logic ln_ok, ln_older, r_ok, pick_ln, sel_ln;
  logic e_cur_q, e_ln_q, last_ln_q;
  assign ln_ok = (ln_cnt_q != '0) && ln_done_q[ln_rd_q];
  // The ring's head can offer a beat or be dropped.
  assign r_ok = e_valid && !e_hold;
  // Ring frames leave in order: once those taken before the lane's head
  // have left, the ring's head is younger than it.
  assign ln_older = (ln_ahead_q[ln_rd_q] == '0);
  // A ring frame never passes an older lane frame; with the ring's head
  // older the two take turns (last_ln_q: a lane frame went last). The
  // choice holds from a frame's first beat offered to its last taken.
  assign pick_ln = ln_ok && (!r_ok || ln_older || !last_ln_q);
  assign sel_ln = e_cur_q ? e_ln_q : pick_ln;
  assign e_ent = sel_ln ? ln_ent_q[ln_rd_q] : eq_valid ? eq_out : i_ent;
  logic [BufW-1:0] ebase;
  logic e_first, e_last, e_noack, e_resp, e_err;
  logic [15:0] e_pay_end, e_len;
  logic [23:0] e_qpn;
  logic [15:0] e_idx;
  assign {ebase, e_pay_end, e_len, e_first, e_last, e_noack, e_resp, e_err, e_qpn,
          e_idx} = e_ent;

  logic [WordW-1:0] ew_q;
  logic [31:0] crc_q;
  // Words the frame holds in the ring (as t_words was when it was taken).
  logic [UsedW-1:0] e_words;
  assign e_words = UsedW'((17'(e_len) + 17'(4 + Bytes - 1)) >> LaneW);

  // Evaluated only while a beat is offered (tx_valid_o): the pad bytes (from
  // pay_end on) are zero, the ICRC follows the covered bytes (14 .. e_len),
  // lanes past it are not kept.
  logic [15:0] eoff;                // frame offset of lane 0 of the beat
  logic [DataW-1:0] edata;
  logic [31:0] crc_d, icrc;
  logic [DataW-1:0] odata;
  logic [Bytes-1:0] okeep;
  logic olast;
  logic e_hold, e_report, tx_go, e_drop;
  assign eoff = 16'(ew_q) * 16'(Bytes);
  assign olast = (eoff + 16'(Bytes) >= e_len + 16'd4);

  // A direct frame's word that intake writes in this cycle comes from
  // intake (emission never passes intake: both move a word per cycle).
  logic [DataW-1:0] eword;
  always_comb begin
    edata = '0;
    eword = '0;
    if (tx_valid_o) begin
      if (sel_ln) begin
        eword = lbuf_q[{ln_rd_q, LnWordW'(ew_q)}];
      end else begin
        eword = (direct && (ew_q == hw_q)) ? hdr_word : buf_q[ebase + BufW'(ew_q)];
      end
      if (eoff + 16'(Bytes) <= e_pay_end) begin
        edata = eword;
      end else if (eoff < e_pay_end) begin
        edata = eword & ~({DataW{1'b1}} << {LaneW'(e_pay_end - eoff), 3'b000});
      end
    end
  end

  rnic_icrc_beat #(.DataW(DataW)) u_icrc (
    .valid_i(tx_valid_o), .word_i(16'(ew_q)), .end_i({1'b0, e_len}), .crc_i(crc_q),
    .data_i(edata), .crc_o(crc_d)
  );

  always_comb begin
    icrc = ~crc_d;
    odata = edata;
    okeep = '0;
    if (tx_valid_o) begin
      if (eoff + 16'(Bytes) <= e_len + 16'd4) begin
        okeep = '1;
      end else if (eoff < e_len + 16'd4) begin
        okeep = ~({Bytes{1'b1}} << LaneW'(e_len + 16'd4 - eoff));
      end
      for (int k = 0; k < 4; k++) begin
        if ((e_len + 16'(k) >= eoff) && (e_len + 16'(k) < eoff + 16'(Bytes))) begin
          odata[8*LaneW'(e_len + 16'(k) - eoff) +: 8] = icrc[8*k +: 8];
        end
      end
    end
  end

  // A UC/UD message's last frame starts only when its completion can be
  // taken, a failed request frame is dropped only when its report can be.
  // A failed frame never starts, so ew_q is 0 while it is the head.
  // The hold and the drop concern the ring's head only (a lane frame has no
  // report and no read): r_ok is computed from the ring's entry.
  // Bits of an emit entry, from {..., last, noack, resp, err, qpn, idx}.
  localparam int unsigned EntErr = 40, EntResp = 41, EntNoack = 42, EntLast = 43;
  logic [$bits(eq_in)-1:0] r_ent;
  logic r_err, r_report;
  assign r_ent = eq_valid ? eq_out : i_ent;
  assign r_err = r_ent[EntErr];
  assign r_report = r_err ? !r_ent[EntResp] : (r_ent[EntLast] && r_ent[EntNoack]);
  assign e_report = !sel_ln && r_report;
  assign e_hold = (ew_q == '0) && r_report && !noack_ready_i;
  assign tx_valid_o = sel_ln || (e_valid && !r_err && !e_hold);
  assign tx_data_o = odata;
  assign tx_keep_o = okeep;
  assign tx_last_o = olast;
  assign tx_go = tx_valid_o && tx_ready_i;
  // e_done: a ring frame's last beat left or it was dropped; ln_done: a
  // lane frame's last beat left.
  logic ln_fin;
  assign e_drop = !sel_ln && e_valid && r_err && !e_hold;
  assign e_done = (!sel_ln && tx_go && olast) || e_drop;
  assign ln_fin = sel_ln && tx_go && olast;
  assign eq_pop = e_done && eq_valid;

  assign ev_first_o = tx_go && (ew_q == '0) && e_first;
  assign ev_last_o = tx_go && (ew_q == '0) && e_last;
  assign noack_valid_o = ((tx_go && (ew_q == '0)) || e_drop) && e_report;
  assign noack_err_o = e_err;
  assign ev_qpn_o = e_qpn;
  assign ev_idx_o = e_idx;

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      ew_q <= '0;
      crc_q <= rnic_pkg::IcrcSeed;
      r_head_q <= '0;
      r_used_q <= '0;
      n_fr_q <= '0;
      cnt_pkts_o <= '0;
    end else begin
      if (tx_go) begin
        if (olast) begin
          ew_q <= '0;
          crc_q <= rnic_pkg::IcrcSeed;
          cnt_pkts_o <= cnt_pkts_o + 64'd1;
        end else begin
          ew_q <= ew_q + 1'b1;
          crc_q <= crc_d;
        end
      end
      // A frame holds its words from intake until its last beat left (or
      // it was dropped); frames leave in order, so from the ring's head.
      if (e_done) r_head_q <= r_head_q + BufW'(e_words);
      r_used_q <= r_used_q + (r_take ? UsedW'(t_words) : '0) - (e_done ? e_words : '0);
      n_fr_q <= n_fr_q + NfW'(r_take) - NfW'(e_done);
    end
  end

  // The ring's frame records, the side lane's slots and the choice between
  // the two heads.
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      rf_rd_q <= '0;
      rf_wr_q <= '0;
      ln_cnt_q <= '0;
      ln_rd_q <= '0;
      ln_wr_q <= '0;
      ln_islot_q <= '0;
      ln_done_q <= '0;
      e_cur_q <= 1'b0;
      e_ln_q <= 1'b0;
      last_ln_q <= 1'b0;
    end else begin
      if (r_take) rf_wr_q <= rf_wr_q + 1'b1;
      if (e_done) rf_rd_q <= rf_rd_q + 1'b1;
      if (take && to_lane) begin
        ln_wr_q <= ln_wr_q + 1'b1;
        ln_islot_q <= ln_wr_q;
      end
      if (hdr_done && d_lane_q) ln_done_q[ln_islot_q] <= 1'b1;
      if (ln_fin) begin
        ln_done_q[ln_rd_q] <= 1'b0;
        ln_rd_q <= ln_rd_q + 1'b1;
      end
      ln_cnt_q <= ln_cnt_q + LnCntW'(take && to_lane) - LnCntW'(ln_fin);
      if (tx_go && olast) begin
        e_cur_q <= 1'b0;
        last_ln_q <= sel_ln;
      end else if (tx_valid_o) begin
        e_cur_q <= 1'b1;
        e_ln_q <= sel_ln;
      end
      if (e_drop) last_ln_q <= 1'b0;
    end
  end

  always_ff @(posedge clk_i) begin
    if (r_take) rf_key_q[rf_wr_q] <= t_key;
    // A lane frame is behind every frame in the ring but one leaving now.
    for (int k = 0; k < LnSlots; k++) begin
      if (take && to_lane && (ln_wr_q == LnW'(k))) begin
        ln_ahead_q[k] <= n_fr_q - NfW'(e_done);
      end else if (e_done && (ln_ahead_q[k] != '0)) begin
        ln_ahead_q[k] <= ln_ahead_q[k] - 1'b1;
      end
    end
    if ((in_q == InHdr) && d_lane_q) lbuf_q[{ln_islot_q, LnWordW'(hw_q)}] <= hdr_word;
    if (hdr_done && d_lane_q) ln_ent_q[ln_islot_q] <= i_ent;
  end

  assign quiet_o = (in_q == InIdle) && !aq_valid && !a_run_q && !eq_valid && (ln_cnt_q == '0);

`ifdef RNIC_ASSERT
  /* verilator coverage_off */
  // A direct frame's beats never pass the header words intake has written;
  // the frame that leaves is the oldest in the ring.
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
    end else begin
      if (direct && tx_valid_o && !sel_ln) assert (ew_q <= hw_q);
      // A lane frame leaves from a slot intake filled; a ring frame never
      // leaves before an older lane frame.
      if (ln_fin) assert (ln_done_q[ln_rd_q] && (ln_cnt_q != '0));
      if (e_done && (ln_cnt_q != '0) && ln_done_q[ln_rd_q]) assert (!ln_older);
      if (e_done) assert ((ebase == r_head_q) && (n_fr_q != '0) &&
                          (r_used_q >= e_words));
    end
  end
  /* verilator coverage_on */
`endif

  logic unused;
  assign unused = ^{eq_count, aq_count, txd_view, aq_in_ready, e_noack, e_resp};

`ifdef RNIC_COVER
  // Coverage builds: each state and each change of state is a cover point.
  rnic_fsm_cover #(
    .StW($bits(in_e)),
    .NStates(int'(InHdr) + 1)
  ) u_in_q_cover (
    .clk_i,
    .rst_ni,
    .st_i(in_q)
  );
`endif
endmodule
