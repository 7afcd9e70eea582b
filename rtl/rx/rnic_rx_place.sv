// rnic_rx_place: writes received payload to host memory. Each segment is one
// DMA write of bytes taken from the frame slot at any byte offset; the two
// adjacent slot words are shifted so the write data start at lane 0.
module rnic_rx_place #(
  parameter int unsigned DataW = 256,
  parameter int unsigned SlotW = rnic_pkg::RxSlotW,
  localparam int unsigned MaxSeg = rnic_pkg::MaxSeg,
  localparam int unsigned Bytes = DataW / 8
) (
  input  logic        clk_i,
  input  logic        rst_ni,
  input  logic        start_i,          // one-cycle pulse, busy_o rises next cycle
  // busy_o falls after the cycle whose write the DMA path takes as the job's
  // last (or, for a job with nothing left to write, the cycle that finds so)
  input  logic [SlotW-1:0] slot_i,
  input  logic [15:0] base_i,           // frame byte offset of payload byte 0
  input  logic [2:0]  nseg_i,
  input  logic [64*MaxSeg-1:0] seg_addr_i,   // bus address, segment i in [64i+63:64i]
  input  logic [32*MaxSeg-1:0] seg_len_i,    // bytes, [32i+31:32i]
  input  logic [16*MaxSeg-1:0] seg_poff_i,   // payload offset, [16i+15:16i]
  output logic        busy_o,
  // The frame slot is no longer needed (one-cycle pulse in the job's last cycle)
  output logic        release_o,
  output logic [SlotW-1:0] release_slot_o,
  // Frame slot read port
  output logic [SlotW-1:0] rd_slot_o,
  output logic [15:0] rd_word_o,
  input  logic [2*DataW-1:0] rd_data_i,
  // DMA write
  output logic        wr_valid_o,
  input  logic        wr_ready_i,
  output logic [63:0] wr_addr_o,
  output logic [15:0] wr_len_o,
  output logic [DataW-1:0] wr_data_o,
  output logic        wr_last_o
);
  localparam int unsigned LaneW = $clog2(Bytes);

  logic busy_q;
  logic [SlotW-1:0] slot_q;
  logic [15:0] base_q;
  logic [2:0] nseg_q, seg_q;
  logic [64*MaxSeg-1:0] addr_q;
  logic [32*MaxSeg-1:0] len_q;
  logic [16*MaxSeg-1:0] poff_q;
  logic [15:0] done_q;     // bytes of the current segment written

  logic [31:0] cur_len;
  logic [15:0] src;
  logic fin;               // the job's last cycle
  logic [2:0] seg_i;       // seg_q within the vectors (past nseg_q nothing is read)
  assign seg_i = (seg_q < 3'(MaxSeg)) ? seg_q : 3'd0;
  assign cur_len = len_q[seg_i*32 +: 32];
  assign src = base_q + poff_q[seg_i*16 +: 16] + done_q;

  assign busy_o = busy_q;
  assign release_o = fin;
  assign release_slot_o = slot_q;
  assign rd_slot_o = slot_q;
  assign rd_word_o = src >> LaneW;
  assign wr_data_o = DataW'(rd_data_i >> (8 * src[LaneW-1:0]));
  assign wr_addr_o = addr_q[seg_i*64 +: 64];
  assign wr_len_o = cur_len[15:0];
  assign wr_last_o = ({16'd0, done_q} + Bytes >= cur_len);

  logic active;
  assign active = busy_q && (seg_q < nseg_q) && (cur_len != 32'd0);
  assign wr_valid_o = active;
  // The job ends in the cycle its last segment's last write is taken: the
  // slot's bytes are in that write, so the slot is free, and what waits for
  // placement to drain sees it idle in the next cycle.
  assign fin = busy_q && ((seg_q >= nseg_q) ||
                          (active && wr_ready_i && wr_last_o && ((seg_q + 3'd1) >= nseg_q)));

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      busy_q <= 1'b0;
      slot_q <= '0;
      base_q <= '0;
      nseg_q <= '0;
      seg_q <= '0;
      addr_q <= '0;
      len_q <= '0;
      poff_q <= '0;
      done_q <= '0;
    end else if (start_i) begin
      busy_q <= 1'b1;
      slot_q <= slot_i;
      base_q <= base_i;
      nseg_q <= nseg_i;
      seg_q <= '0;
      addr_q <= seg_addr_i;
      len_q <= seg_len_i;
      poff_q <= seg_poff_i;
      done_q <= '0;
    end else if (busy_q) begin
      if (fin) begin
        busy_q <= 1'b0;
      end else if (cur_len == 32'd0) begin
        seg_q <= seg_q + 3'd1;
      end else if (wr_ready_i) begin
        if (wr_last_o) begin
          seg_q <= seg_q + 3'd1;
          done_q <= '0;
        end else begin
          done_q <= done_q + 16'(Bytes);
        end
      end
    end
  end
endmodule
