// Properties of rnic_rx_parser (DataW 256, 2 slots of 64 bytes: 4 buffer
// words each). The link sends packed beats (keep contiguous from lane 0,
// full but for a frame's last beat); the engine and placement release only
// slots they hold, two different ones when both release in a cycle
// (assumed). Asserted at the ports, against shadows kept here:
// - every frame the link ends is counted once (cnt_rx_pkts_o), and is
//   either dropped (cnt_rx_drop_o) or handed to the engine once, in order;
// - a packet holds valid and data until taken and never names a slot the
//   engine or placement still holds;
// - rx_ready_o is low exactly when no frame is open and every slot is
//   queued or held (back-pressure, never a drop for want of a slot);
// - quiet_o exactly when no frame is open and no packet waits;
// - a held slot reads back byte L of word W (both free, fixed) of the frame
//   it was handed for, whatever frames arrive and are dropped meanwhile.
// The ICRC and the header checks are the block bench's (blk_rx_parser):
// here the solver picks frames of any content, good ones included.
module fv_rnic_rx_parser (
  input logic         clk_i,
  input logic         rst_ni,
  input logic         rx_valid_i,
  input logic [255:0] rx_data_i,
  input logic [31:0]  rx_keep_i,
  input logic         rx_last_i,
  input logic         pkt_ready_i,
  input logic         rd_slot_i,
  input logic [15:0]  rd_word_i,
  input logic         release_i,
  input logic         release_slot_i,
  input logic         place_release_i,
  input logic         place_release_slot_i,
  input logic [2:0]   w_sel_i,
  input logic [4:0]   l_sel_i
);
  localparam int unsigned DataW = 256;
  localparam int unsigned NSlots = 2;
  localparam int unsigned FrameBytes = 64;
  localparam int unsigned Words = (FrameBytes + DataW / 8 - 1) / (DataW / 8) + 2;
  localparam int unsigned SlotW = 1;
  localparam int unsigned PktW = rnic_pkg::RxDescW + 8 + SlotW;
  localparam logic [31:0] PortIp = 32'h0a00_0002;

  logic rx_ready_o, pkt_valid_o, quiet_o;
  logic [PktW-1:0] pkt_o;
  logic [2*DataW-1:0] rd_data_o;
  logic [63:0] cnt_rx_pkts_o, cnt_rx_drop_o;

  rnic_rx_parser #(.DataW(DataW), .NSlots(NSlots), .FrameBytes(FrameBytes)) dut (
    .clk_i, .rst_ni, .port_ip_i(PortIp), .rx_valid_i, .rx_ready_o, .rx_data_i, .rx_keep_i,
    .rx_last_i, .pkt_valid_o, .pkt_ready_i, .pkt_o, .rd_slot_i, .rd_word_i, .rd_data_o,
    .release_i, .release_slot_i, .cpl_release_i(1'b0), .cpl_release_slot_i('0),
    .place_release_i, .place_release_slot_i, .cnt_rx_pkts_o,
    .cnt_rx_drop_o, .quiet_o
  );

  logic ran;
  always_ff @(posedge clk_i) ran <= ran || !rst_ni;
  always_comb assume (rst_ni == ran);

  // Byte L of word W of each frame is the one checked; they stay the same.
  // (A whole word made the proof take minutes per step.)
  logic [2:0] w_q;
  logic [4:0] l_q;
  always_ff @(posedge clk_i) begin
    w_q <= w_sel_i;
    l_q <= l_sel_i;
  end
  always_comb if (ran && rst_ni) assume ((w_sel_i == w_q) && (l_sel_i == l_q));
  always_comb assume (32'(w_sel_i) < Words);

  // ---------------------------------------------------------------------------
  // Shadows
  // ---------------------------------------------------------------------------
  logic take, hand;
  assign take = rx_valid_i && rx_ready_o;
  assign hand = pkt_valid_o && pkt_ready_i;
  logic [SlotW-1:0] pslot;
  assign pslot = pkt_o[PktW-1 -: SlotW];

  logic in_frame_q;          // a frame is open (beats taken, not its last)
  logic [15:0] beat_q;       // beat index in the open frame
  logic [7:0] frames_q;      // frames ended
  logic [7:0] handed_q;      // packets handed
  logic [7:0] good_q;        // cnt_rx_pkts - cnt_rx_drop a cycle ago
  logic [NSlots-1:0] held_q; // slots handed and not released
  logic cur_has_q;           // the open frame's byte, taken so far
  logic [7:0] cur_d_q;
  logic end_has_q;           // the same for the frame that ended a cycle ago
  logic [7:0] end_d_q;
  logic rec_v_q [NSlots];    // a held slot's byte as handed
  logic [7:0] rec_d_q [NSlots];
  // Good frames not yet handed, oldest first: their byte.
  logic q_has_q [NSlots];
  logic [7:0] q_d_q [NSlots];
  logic [1:0] q_n_q;

  logic [7:0] good;
  assign good = cnt_rx_pkts_o[7:0] - cnt_rx_drop_o[7:0];
  logic arrive;              // the frame that ended a cycle ago was good
  assign arrive = ran && rst_ni && (good != good_q);
  logic [7:0] queued;
  assign queued = good - handed_q;
  logic [1:0] nheld;
  assign nheld = 2'($countones(held_q));
  logic [7:0] used;
  assign used = queued + 8'(nheld);

  logic beat_w;
  assign beat_w = take && (beat_q == 16'(w_q));
  logic head_has;
  logic [7:0] head_d;
  logic [7:0] in_byte;
  assign in_byte = rx_data_i[8*l_q +: 8];
  assign head_has = (q_n_q == 2'd0) ? end_has_q : q_has_q[0];
  assign head_d = (q_n_q == 2'd0) ? end_d_q : q_d_q[0];

  always_ff @(posedge clk_i) begin
    if (!rst_ni) begin
      in_frame_q <= 1'b0;
      beat_q <= '0;
      frames_q <= '0;
      handed_q <= '0;
      good_q <= '0;
      held_q <= '0;
      cur_has_q <= 1'b0;
      end_has_q <= 1'b0;
      q_n_q <= '0;
      for (int s = 0; s < NSlots; s++) begin
        rec_v_q[s] <= 1'b0;
        q_has_q[s] <= 1'b0;
      end
    end else begin
      good_q <= good;
      if (take) begin
        if (rx_last_i) begin
          in_frame_q <= 1'b0;
          beat_q <= '0;
          frames_q <= frames_q + 8'd1;
          cur_has_q <= 1'b0;
          end_has_q <= cur_has_q || beat_w;
          end_d_q <= beat_w ? in_byte : cur_d_q;
        end else begin
          in_frame_q <= 1'b1;
          beat_q <= beat_q + 16'd1;
          if (beat_w) begin
            cur_has_q <= 1'b1;
            cur_d_q <= in_byte;
          end
        end
      end
      // The queue of good frames: pop the head when handed, append the
      // frame that ended a cycle ago when it was good.
      if (hand) begin
        handed_q <= handed_q + 8'd1;
        held_q[pslot] <= 1'b1;
        rec_v_q[pslot] <= head_has;
        rec_d_q[pslot] <= head_d;
      end
      if (hand && (q_n_q != 2'd0)) begin
        for (int s = 0; s < NSlots - 1; s++) begin
          q_has_q[s] <= q_has_q[s + 1];
          q_d_q[s] <= q_d_q[s + 1];
        end
      end
      if (arrive && !(hand && (q_n_q == 2'd0))) begin
        q_has_q[hand ? q_n_q - 2'd1 : q_n_q] <= end_has_q;
        q_d_q[hand ? q_n_q - 2'd1 : q_n_q] <= end_d_q;
      end
      q_n_q <= q_n_q + 2'(arrive) - 2'(hand);
      if (release_i) held_q[release_slot_i] <= 1'b0;
      if (place_release_i) held_q[place_release_slot_i] <= 1'b0;
    end
  end

  logic wait_q;
  logic [PktW-1:0] pkt_w;
  always_ff @(posedge clk_i) begin
    wait_q <= rst_ni && pkt_valid_o && !pkt_ready_i;
    pkt_w <= pkt_o;
  end

  always_comb begin
    if (ran && rst_ni) begin
      // The link: packed beats, full but for a frame's last.
      if (rx_valid_i) begin
        assume (rx_keep_i != 32'd0);
        assume ((rx_keep_i & (rx_keep_i + 32'd1)) == 32'd0);
        if (!rx_last_i) assume (rx_keep_i == 32'hffff_ffff);
      end
      // The engine and placement release slots they hold.
      if (release_i) assume (held_q[release_slot_i]);
      if (place_release_i) assume (held_q[place_release_slot_i]);
      if (release_i && place_release_i) assume (release_slot_i != place_release_slot_i);
      assume (32'(rd_word_i) + 1 < Words);

      // Every frame counted once; dropped or queued, handed in order.
      assert (cnt_rx_pkts_o[7:0] == frames_q);
      assert (queued <= 8'(NSlots));
      assert (q_n_q == 2'(queued) - 2'(arrive));
      assert (pkt_valid_o == (queued != 8'd0));
      // Back-pressure exactly when every slot is taken.
      assert (used <= 8'(NSlots));
      assert (rx_ready_o == (in_frame_q || (used < 8'(NSlots))));
      assert (quiet_o == (!in_frame_q && (queued == 8'd0)));
      // A packet: stable until taken, a slot of its own.
      if (wait_q) assert (pkt_valid_o && (pkt_o == pkt_w));
      if (pkt_valid_o) begin
        assert (!held_q[pslot]);
      end
      // A held slot keeps its frame's bytes.
`ifndef FV_NO_DATA
      if (held_q[rd_slot_i] && rec_v_q[rd_slot_i]) begin
        if (rd_word_i == 16'(w_q)) assert (rd_data_o[8*l_q +: 8] == rec_d_q[rd_slot_i]);
        if (rd_word_i + 16'd1 == 16'(w_q))
          assert (rd_data_o[DataW + 8*l_q +: 8] == rec_d_q[rd_slot_i]);
      end
`endif
`ifdef FV_COVER_REUSE
      // Non-vacuity (expected to fail): a third packet handed (a slot
      // released and taken again), its byte recorded.
      assert (!(hand && (handed_q >= 8'd2) && head_has));
`endif
    end
  end
endmodule
