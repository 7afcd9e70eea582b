// rnic_rx_parser: receives frames into NSlots slots, checks them (Ethernet type,
// IPv4, UDP port 4791, our address, BTH opcode, lengths, ICRC) and hands the
// parsed headers of good frames to the transport engine. Placement reads the
// payload from the slot and releases it when done; the engine releases the
// slots of frames it does not place. rx_ready_o stays low while every slot is
// taken, which back-pressures the link instead of dropping.
module rnic_rx_parser #(
  parameter int unsigned DataW = 256,
  parameter int unsigned NSlots = rnic_pkg::RxSlots,
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
  input  logic        release_i,
  input  logic [SlotW-1:0] release_slot_i,
  input  logic        place_release_i,
  input  logic [SlotW-1:0] place_release_slot_i,
  output logic [63:0] cnt_rx_pkts_o,
  output logic [63:0] cnt_rx_drop_o,
  // No frame being received or waiting for the engine (fast-forward)
  output logic        quiet_o
);
  localparam int unsigned FrameBytes = 4096 + 96 + 8;
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
  logic [31:0] icrc_rx_q;
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

  // Header bytes seen so far, including this beat.
  logic [HdrBytes*8-1:0] hdr_d;
  always_comb begin
    hdr_d = in_frame_q ? hdr_q : '0;
    if (cur_w < 16'(HdrWords)) hdr_d[cur_w*DataW +: DataW] = rx_data_i;
  end
  logic [7:0] hb [HdrBytes];
  always_comb begin
    for (int i = 0; i < HdrBytes; i++) hb[i] = hdr_d[8*i +: 8];
  end

  logic [15:0] ip_len, crc_end, frame_end;
  assign ip_len = {hb[16], hb[17]};
  assign frame_end = ip_len + 16'd14;
  assign crc_end = frame_end - 16'd4;

  logic [31:0] crc_d, icrc_d;
  logic [15:0] nbytes_d;
  always_comb begin
    logic [15:0] p;
    logic [7:0] b;
    crc_d = in_frame_q ? crc_q : rnic_pkg::IcrcSeed;
    icrc_d = in_frame_q ? icrc_rx_q : '0;
    nbytes_d = cur_w * 16'(Bytes);
    for (int i = 0; i < Bytes; i++) begin
      p = cur_w * 16'(Bytes) + 16'(i);
      b = rx_data_i[8*i +: 8];
      if (rx_keep_i[i]) begin
        nbytes_d = p + 16'd1;
        if ((p >= 16'd14) && ((p < 16'd18) || (p < crc_end))) begin
          if ((p == 16'd15) || (p == 16'd22) || (p == 16'd24) || (p == 16'd25) ||
              (p == 16'd40) || (p == 16'd41) || (p == 16'd46)) begin
            crc_d = rnic_pkg::crc32_byte(crc_d, 8'hff);
          end else begin
            crc_d = rnic_pkg::crc32_byte(crc_d, b);
          end
        end else if ((p >= crc_end) && (p < frame_end) && (p >= 16'd18)) begin
          icrc_d[8*(p - crc_end) +: 8] = b;
        end
      end
    end
  end

  // Parse (valid on the last beat)
  rnic_pkg::rx_desc_t desc;
  logic [7:0] op;
  logic [6:0] ext;
  logic [1:0] pad;
  logic [15:0] pay_len;
  logic [7:0] pay_off;
  logic [31:0] dst_ip;
  logic good;
  always_comb begin
    op = hb[42];
    ext = rnic_pkg::ext_hdr_bytes(op);
    pad = hb[43][5:4];
    pay_off = 8'd54 + {1'b0, ext};
    pay_len = ip_len - 16'd44 - {9'd0, ext} - {14'd0, pad};
    dst_ip = {hb[30], hb[31], hb[32], hb[33]};
    desc = '0;
    desc.dqpn = {hb[47], hb[48], hb[49]};
    desc.opcode = op;
    desc.psn = {hb[51], hb[52], hb[53]};
    desc.ack_req = hb[50][7];
    desc.se = hb[43][7];
    desc.pay_len = pay_len[12:0];
    desc.src_ip = {hb[26], hb[27], hb[28], hb[29]};
    // Extension headers at the fixed offsets of their IBA order (DETH, RETH,
    // AtomicETH, AETH, AtomicAckETH, ImmDt, IETH; at most two per opcode).
    // ImmDt and IETH keep the wire byte order (imm[8i+7:8i] = wire byte i).
    if (rnic_pkg::op_has_deth(op)) begin
      desc.qkey = {hb[54], hb[55], hb[56], hb[57]};
      desc.src_qp = {hb[59], hb[60], hb[61]};
      if (rnic_pkg::op_has_imm(op)) desc.imm = {hb[65], hb[64], hb[63], hb[62]};
    end else if (rnic_pkg::op_has_reth(op)) begin
      desc.reth_va = {hb[54], hb[55], hb[56], hb[57], hb[58], hb[59], hb[60], hb[61]};
      desc.reth_rkey = {hb[62], hb[63], hb[64], hb[65]};
      desc.reth_len = {hb[66], hb[67], hb[68], hb[69]};
      if (rnic_pkg::op_has_imm(op)) desc.imm = {hb[73], hb[72], hb[71], hb[70]};
    end else if (rnic_pkg::op_has_atomic_eth(op)) begin
      // The 8 bytes the atomic touches, as a RETH would describe them, so the
      // engine's key check is the same as for a READ or WRITE.
      desc.reth_va = {hb[54], hb[55], hb[56], hb[57], hb[58], hb[59], hb[60], hb[61]};
      desc.reth_rkey = {hb[62], hb[63], hb[64], hb[65]};
      desc.reth_len = 32'd8;
      desc.atomic_swap = {hb[66], hb[67], hb[68], hb[69], hb[70], hb[71], hb[72], hb[73]};
      desc.atomic_cmp = {hb[74], hb[75], hb[76], hb[77], hb[78], hb[79], hb[80], hb[81]};
    end else if (rnic_pkg::op_has_aeth(op)) begin
      desc.aeth_syn = hb[54];
      desc.aeth_msn = {hb[55], hb[56], hb[57]};
      if (op == rnic_pkg::OpAtomicAck) begin
        desc.atomic_swap = {hb[58], hb[59], hb[60], hb[61], hb[62], hb[63], hb[64], hb[65]};
      end
    end else if (rnic_pkg::op_has_imm(op) || rnic_pkg::op_has_ieth(op)) begin
      desc.imm = {hb[57], hb[56], hb[55], hb[54]};
    end
    good = ({hb[12], hb[13]} == 16'h0800) && (hb[14] == 8'h45) && (hb[23] == 8'd17) &&
           ({hb[36], hb[37]} == 16'd4791) && (dst_ip == port_ip_i) &&
           rnic_pkg::op_is_known(op) && (hb[43][3:0] == 4'd0) &&
           (nbytes_d == frame_end) && (ip_len >= 16'd44 + {9'd0, ext}) &&
           (pay_len <= 16'd4096) && !overflow_q && (icrc_d == ~crc_d);
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
      icrc_rx_q <= '0;
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
          hdr_q <= hdr_d;
          crc_q <= crc_d;
          icrc_rx_q <= icrc_d;
          if (cur_w + 16'd1 >= 16'(Words)) overflow_q <= 1'b1;
        end
      end
      if (release_i) busy_q[release_slot_i] <= 1'b0;
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
