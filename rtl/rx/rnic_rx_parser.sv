// rnic_rx_parser: receives frames into NSlots slots, checks them (Ethernet type,
// IPv4, UDP port 4791, our address, BTH opcode, lengths, ICRC) and hands the
// parsed headers of good frames to the transport engine. Placement reads the
// payload from the slot and releases it when done; the responder and the
// completer release the slots of the frames they do not place. rx_ready_o stays low while every slot is
// taken, which back-pressures the link instead of dropping.
module rnic_rx_parser #(
  parameter int unsigned DataW = 256,
  parameter int unsigned NSlots = rnic_pkg::RxSlots,
  // Bytes a slot holds: a 4 KiB payload and the largest header (a formal
  // proof uses small slots)
  parameter int unsigned FrameBytes = 4096 + 96 + 8,
  localparam int unsigned Bytes = DataW / 8,
  localparam int unsigned SlotW = (NSlots > 1) ? $clog2(NSlots) : 1
) (
  input  logic        clk_i,
  input  logic        rst_ni,
  input  logic [31:0] port_ip_i,
  input  logic        rx_valid_i,
  output logic        rx_ready_o,
  input  logic [DataW-1:0] rx_data_i,
  input  logic [Bytes-1:0] rx_keep_i,
  input  logic        rx_last_i,
  // Parsed frames: {slot, payload offset[7:0], rx_desc}
  output logic        pkt_valid_o,
  input  logic        pkt_ready_i,
  output logic [rnic_pkg::RxDescW+8+SlotW-1:0] pkt_o,
  // Payload read port and slot release
  input  logic [SlotW-1:0] rd_slot_i,
  input  logic [15:0] rd_word_i,
  output logic [2*DataW-1:0] rd_data_o,
  input  logic        release_i,         // the responder's
  input  logic [SlotW-1:0] release_slot_i,
  input  logic        cpl_release_i,     // the completer's
  input  logic [SlotW-1:0] cpl_release_slot_i,
  input  logic        place_release_i,
  input  logic [SlotW-1:0] place_release_slot_i,
  output logic [63:0] cnt_rx_pkts_o,
  output logic [63:0] cnt_rx_drop_o,
  // No frame being received or waiting for the engine (fast-forward)
  output logic        quiet_o
);
  localparam int unsigned Words = (FrameBytes + Bytes - 1) / Bytes + 2;
  localparam int unsigned WordW = $clog2(Words);
  localparam int unsigned HdrWords = (96 + Bytes - 1) / Bytes;
  localparam int unsigned HdrBytes = HdrWords * Bytes;

  localparam int unsigned BufW = $clog2(NSlots * Words);
  logic [DataW-1:0] buf_q [NSlots * Words];
  logic [NSlots-1:0] busy_q;
  logic [SlotW-1:0] slot_q;  // slot being received
  logic in_frame_q;
  logic [15:0] w_q;    // word index in the frame
  logic [HdrBytes*8-1:0] hdr_q;
  logic [31:0] crc_q;
  logic overflow_q;

  // The lowest free slot takes the next frame.
  logic free;
  logic [SlotW-1:0] free_slot;
  always_comb begin
    free = 1'b0;
    free_slot = '0;
    for (int i = NSlots - 1; i >= 0; i--) begin
      if (!busy_q[i]) begin
        free = 1'b1;
        free_slot = SlotW'(i);
      end
    end
  end
  assign rx_ready_o = in_frame_q || free;
  logic take;
  assign take = rx_valid_i && rx_ready_o;
  logic [SlotW-1:0] cur_slot;
  assign cur_slot = in_frame_q ? slot_q : free_slot;
  logic [15:0] cur_w;
  assign cur_w = in_frame_q ? w_q : 16'd0;

  // ---------------------------------------------------------------------------
  // Per beat: where it is in the frame, its valid bytes, the ICRC. Nothing is
  // evaluated for a beat that is not taken.
  // ---------------------------------------------------------------------------
  // The IPv4 total length (bytes 16-17) is in header word IpWord; until that
  // word arrives it reads 0 (every byte below 18 is covered regardless).
  localparam int unsigned IpWord = 16 / Bytes;
  localparam int unsigned LenW = $clog2(Bytes + 1);

  logic [15:0] boff;     // frame offset of lane 0
  logic [LenW-1:0] nkeep;
  logic [15:0] ip_len, frame_end, nbytes_d;
  logic [16:0] icrc_end;
  logic [31:0] crc_in, crc_d;
  always_comb begin
    boff = '0;
    nkeep = '0;
    ip_len = '0;
    frame_end = '0;
    nbytes_d = '0;
    icrc_end = '0;
    crc_in = rnic_pkg::IcrcSeed;
    if (take) begin
      boff = cur_w * 16'(Bytes);
      // rx_keep_i is contiguous from lane 0 (a packed stream): its count.
      nkeep = LenW'($countones(rx_keep_i));
      nbytes_d = boff + 16'(nkeep);
      if (cur_w == 16'(IpWord)) begin
        ip_len = rnic_pkg::bswap16(rx_data_i[8*(16 % Bytes) +: 16]);
      end else if (in_frame_q) begin
        ip_len = rnic_pkg::bswap16(hdr_q[8*16 +: 16]);
      end
      frame_end = ip_len + 16'd14;
      // The CRC runs on through the ICRC (the last 4 bytes) and is compared
      // with the residue; bytes 14..17 go in before the length is known.
      icrc_end = {1'b0, boff} + 17'(nkeep);
      if (icrc_end > {1'b0, frame_end} && frame_end >= 16'd18) icrc_end = {1'b0, frame_end};
      else if (icrc_end > 17'd18 && frame_end < 16'd18) icrc_end = 17'd18;
      if (in_frame_q) crc_in = crc_q;
    end
  end

  rnic_icrc_beat #(.DataW(DataW)) u_icrc (
    .valid_i(take), .word_i(cur_w), .end_i(icrc_end), .crc_i(crc_in), .data_i(rx_data_i),
    .crc_o(crc_d)
  );

  // ---------------------------------------------------------------------------
  // Parse and check (on the last beat only). The header is read with fixed
  // part-selects: byte i of the frame is hdr_d[8i +: 8], multi-byte fields are
  // big-endian on the wire.
  // ---------------------------------------------------------------------------
  // The BTH opcode of the frame arriving (byte 42, from the beat that holds
  // it on; zero before), kept up for waveforms while the frame arrives.
  localparam int unsigned OpWord = 42 / Bytes;
  logic [7:0] op;
  always_comb begin
    if (cur_w == 16'(OpWord)) op = rx_data_i[8*(42 % Bytes) +: 8];
    else if (in_frame_q) op = hdr_q[8*42 +: 8];
    else op = '0;
  end

  rnic_pkg::rx_desc_t desc;
  /* verilator lint_off UNUSEDSIGNAL */  // the header: the parse reads its fields
  logic [HdrBytes*8-1:0] hdr_d;
  /* verilator lint_on UNUSEDSIGNAL */
  logic [6:0] ext;
  logic [1:0] pad;
  logic [15:0] pay_len;
  logic [7:0] pay_off;
  logic [31:0] dst_ip;
  logic good;
  always_comb begin
    hdr_d = '0;
    ext = '0;
    pad = '0;
    pay_off = '0;
    pay_len = '0;
    dst_ip = '0;
    desc = '0;
    good = 1'b0;
    if (take && rx_last_i) begin
      // Header words seen so far, this beat's included (zero past it).
      for (int k = 0; k < HdrWords; k++) begin
        if (cur_w == 16'(k)) hdr_d[k*DataW +: DataW] = rx_data_i;
        else if (in_frame_q) hdr_d[k*DataW +: DataW] = hdr_q[k*DataW +: DataW];
      end
      ext = rnic_pkg::ext_hdr_bytes(op);
      pad = hdr_d[8*43+4 +: 2];
      pay_off = 8'd54 + {1'b0, ext};
      pay_len = ip_len - 16'd44 - {9'd0, ext} - {14'd0, pad};
      dst_ip = rnic_pkg::bswap32(hdr_d[8*30 +: 32]);
      desc.dqpn = rnic_pkg::bswap24(hdr_d[8*47 +: 24]);
      desc.opcode = op;
      desc.psn = rnic_pkg::bswap24(hdr_d[8*51 +: 24]);
      desc.ack_req = hdr_d[8*50+7];
      desc.se = hdr_d[8*43+7];
      desc.pay_len = pay_len[12:0];
      desc.src_ip = rnic_pkg::bswap32(hdr_d[8*26 +: 32]);
      // Extension headers at the fixed offsets of their IBA order (DETH, RETH,
      // AtomicETH, AETH, AtomicAckETH, ImmDt, IETH; at most two per opcode).
      // ImmDt and IETH keep the wire byte order (imm[8i+7:8i] = wire byte i).
      if (rnic_pkg::op_has_deth(op)) begin
        desc.qkey = rnic_pkg::bswap32(hdr_d[8*54 +: 32]);
        desc.src_qp = rnic_pkg::bswap24(hdr_d[8*59 +: 24]);
        if (rnic_pkg::op_has_imm(op)) desc.imm = hdr_d[8*62 +: 32];
      end else if (rnic_pkg::op_has_reth(op)) begin
        desc.reth_va = rnic_pkg::bswap64(hdr_d[8*54 +: 64]);
        desc.reth_rkey = rnic_pkg::bswap32(hdr_d[8*62 +: 32]);
        desc.reth_len = rnic_pkg::bswap32(hdr_d[8*66 +: 32]);
        if (rnic_pkg::op_has_imm(op)) desc.imm = hdr_d[8*70 +: 32];
      end else if (rnic_pkg::op_has_atomic_eth(op)) begin
        // The 8 bytes the atomic touches, as a RETH would describe them, so the
        // engine's key check is the same as for a READ or WRITE.
        desc.reth_va = rnic_pkg::bswap64(hdr_d[8*54 +: 64]);
        desc.reth_rkey = rnic_pkg::bswap32(hdr_d[8*62 +: 32]);
        desc.reth_len = 32'd8;
        desc.atomic_swap = rnic_pkg::bswap64(hdr_d[8*66 +: 64]);
        desc.atomic_cmp = rnic_pkg::bswap64(hdr_d[8*74 +: 64]);
      end else if (rnic_pkg::op_has_aeth(op)) begin
        desc.aeth_syn = hdr_d[8*54 +: 8];
        desc.aeth_msn = rnic_pkg::bswap24(hdr_d[8*55 +: 24]);
        if (op == rnic_pkg::OpAtomicAck) begin
          desc.atomic_swap = rnic_pkg::bswap64(hdr_d[8*58 +: 64]);
        end
      end else if (rnic_pkg::op_has_imm(op) || rnic_pkg::op_has_ieth(op)) begin
        desc.imm = hdr_d[8*54 +: 32];
      end
      good = (rnic_pkg::bswap16(hdr_d[8*12 +: 16]) == 16'h0800) && (hdr_d[8*14 +: 8] == 8'h45) &&
             (hdr_d[8*23 +: 8] == 8'd17) && (rnic_pkg::bswap16(hdr_d[8*36 +: 16]) == 16'd4791) &&
             (dst_ip == port_ip_i) && rnic_pkg::op_is_known(op) && (hdr_d[8*43 +: 4] == 4'd0) &&
             (nbytes_d == frame_end) && (ip_len >= 16'd44 + {9'd0, ext}) &&
             (pay_len <= 16'd4096) && !overflow_q && (crc_d == rnic_pkg::IcrcResidue);
    end
  end

  logic pq_push, pq_in_ready;
  logic [SlotW:0] pq_count;
  assign pq_push = take && rx_last_i && good;
  // Depth: a power of two at least NSlots (a frame holds its slot while queued).
  rnic_fifo #(.Width(rnic_pkg::RxDescW + 8 + SlotW), .Depth(2 ** SlotW)) u_pkt_q (
    .clk_i, .rst_ni,
    .in_valid_i(pq_push), .in_ready_o(pq_in_ready), .in_data_i({cur_slot, pay_off, desc}),
    .out_valid_o(pkt_valid_o), .out_ready_i(pkt_ready_i), .out_data_o(pkt_o),
    .count_o(pq_count)
  );

  logic [BufW-1:0] base;
  assign base = BufW'(cur_slot) * BufW'(Words);

  always_ff @(posedge clk_i) begin
    if (take && (cur_w < 16'(Words))) buf_q[base + BufW'(cur_w)] <= rx_data_i;
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      busy_q <= '0;
      slot_q <= '0;
      in_frame_q <= 1'b0;
      w_q <= '0;
      hdr_q <= '0;
      crc_q <= '0;
      overflow_q <= 1'b0;
      cnt_rx_pkts_o <= '0;
      cnt_rx_drop_o <= '0;
    end else begin
      if (take) begin
        if (rx_last_i) begin
          in_frame_q <= 1'b0;
          w_q <= '0;
          overflow_q <= 1'b0;
          cnt_rx_pkts_o <= cnt_rx_pkts_o + 64'd1;
          if (good) busy_q[cur_slot] <= 1'b1;
          else cnt_rx_drop_o <= cnt_rx_drop_o + 64'd1;
        end else begin
          in_frame_q <= 1'b1;
          slot_q <= cur_slot;
          w_q <= cur_w + 16'd1;
          // The header words so far: this beat's, and zero past it in a
          // frame's first beat.
          for (int k = 0; k < HdrWords; k++) begin
            if (cur_w == 16'(k)) hdr_q[k*DataW +: DataW] <= rx_data_i;
            else if (!in_frame_q) hdr_q[k*DataW +: DataW] <= '0;
          end
          crc_q <= crc_d;
          if (cur_w + 16'd1 >= 16'(Words)) overflow_q <= 1'b1;
        end
      end
      if (release_i) busy_q[release_slot_i] <= 1'b0;
      if (cpl_release_i) busy_q[cpl_release_slot_i] <= 1'b0;
      if (place_release_i) busy_q[place_release_slot_i] <= 1'b0;
    end
  end

  // Payload read port: two consecutive words so any byte offset can be realigned.
  logic [BufW-1:0] rbase;
  assign rbase = BufW'(rd_slot_i) * BufW'(Words);
  assign rd_data_o = {buf_q[rbase + BufW'(rd_word_i) + 1'b1], buf_q[rbase + BufW'(rd_word_i)]};

  assign quiet_o = !in_frame_q && !pkt_valid_o;

  logic unused;
  assign unused = ^{pq_in_ready, pq_count, rd_word_i[15:WordW]};
endmodule
