// Properties of rnic_rx_place (DataW 32: 4-byte beats, 2-bit slot numbers):
// a write request holds valid, address, length, data and last until taken;
// nothing is written while idle; the segments of a job are written in order,
// zero-length ones skipped, each at its address and length, with last on
// exactly its final beat; every beat carries the frame bytes from
// base + payload offset + 4 * beat (the slot's contents are a fixed function
// of slot and byte offset, read through the block's read port); the slot is
// released once per job, in the cycle the last beat of its last segment with
// bytes is taken or later, never before, and busy ends the cycle after. The engine starts a job only when the block is idle and gives at
// MaxSeg (five) segments of at most 12 bytes (assumed).
module fv_rnic_rx_place (
  input logic        clk_i,
  input logic        rst_ni,
  input logic        start_i,
  input logic [1:0]  slot_i,
  input logic [15:0] base_i,
  input logic [2:0]  nseg_i,
  input logic [64*rnic_pkg::MaxSeg-1:0] seg_addr_i,
  input logic [32*rnic_pkg::MaxSeg-1:0] seg_len_i,
  input logic [16*rnic_pkg::MaxSeg-1:0] seg_poff_i,
  input logic        wr_ready_i
);
  localparam int unsigned DataW = 32;
  localparam int unsigned Bytes = DataW / 8;
  localparam int unsigned MaxSeg = rnic_pkg::MaxSeg;

  logic busy_o, release_o, wr_valid_o, wr_last_o;
  logic [1:0] release_slot_o, rd_slot_o;
  logic [15:0] rd_word_o, wr_len_o;
  logic [2*DataW-1:0] rd_data_i;
  logic [63:0] wr_addr_o;
  logic [DataW-1:0] wr_data_o;

  rnic_rx_place #(.DataW(DataW), .SlotW(2)) dut (
    .clk_i, .rst_ni, .start_i, .slot_i, .base_i, .nseg_i, .seg_addr_i, .seg_len_i,
    .seg_poff_i, .busy_o, .release_o, .release_slot_o, .rd_slot_o, .rd_word_o, .rd_data_i,
    .wr_valid_o, .wr_ready_i, .wr_addr_o, .wr_len_o, .wr_data_o, .wr_last_o
  );

  logic ran;
  always_ff @(posedge clk_i) ran <= ran || !rst_ni;
  always_comb assume (rst_ni == ran);

  // The frame slots: byte a of slot s holds a[7:0] ^ {s, 6'h15}.
  function automatic logic [7:0] slot_byte(input logic [1:0] s, input logic [15:0] a);
    slot_byte = a[7:0] ^ {s, 6'h15};
  endfunction
  always_comb begin
    for (int i = 0; i < 2 * Bytes; i++)
      rd_data_i[8*i +: 8] = slot_byte(rd_slot_o, 16'(rd_word_o * Bytes) + 16'(i));
  end

  // The job as started.
  logic [1:0] slot_q;
  logic [15:0] base_q;
  logic [2:0] nseg_q;
  logic [64*MaxSeg-1:0] addr_q;
  logic [32*MaxSeg-1:0] len_q;
  logic [16*MaxSeg-1:0] poff_q;
  // Shadow progress: segment k (the next one with bytes at or after k),
  // beat b of it; released once.
  logic [2:0] k;
  logic [15:0] b;
  logic job_q, released_q;

  function automatic logic [2:0] next_seg(input logic [2:0] from, input logic [2:0] n,
                                         input logic [32*MaxSeg-1:0] lens);
    next_seg = n;
    for (int j = MaxSeg - 1; j >= 0; j--)
      if ((3'(j) >= from) && (3'(j) < n) && (lens[32*j +: 32] != 32'd0)) next_seg = 3'(j);
  endfunction

  logic [2:0] seg;
  logic [31:0] seg_len;
  logic [15:0] src;
  logic take;
  assign seg = next_seg(k, nseg_q, len_q);
  assign seg_len = len_q[32*seg +: 32];
  assign src = base_q + poff_q[16*seg +: 16] + 16'(b * Bytes);
  assign take = wr_valid_o && wr_ready_i;

  always_ff @(posedge clk_i) begin
    if (!rst_ni) begin
      job_q <= 1'b0;
      released_q <= 1'b0;
      k <= '0;
      b <= '0;
    end else if (start_i) begin
      job_q <= 1'b1;
      released_q <= 1'b0;
      slot_q <= slot_i;
      base_q <= base_i;
      nseg_q <= nseg_i;
      addr_q <= seg_addr_i;
      len_q <= seg_len_i;
      poff_q <= seg_poff_i;
      k <= '0;
      b <= '0;
    end else begin
      if (take) begin
        if (wr_last_o) begin
          k <= seg + 3'd1;
          b <= '0;
        end else begin
          b <= b + 16'd1;
        end
      end
      if (release_o) begin
        released_q <= 1'b1;
        job_q <= 1'b0;
      end
    end
  end

  logic wait_q, rel_q;
  logic [63:0] addr_w;
  logic [15:0] len_w;
  logic [DataW-1:0] data_w;
  logic last_w;
  always_ff @(posedge clk_i) begin
    wait_q <= rst_ni && wr_valid_o && !wr_ready_i;
    rel_q <= rst_ni && release_o;
    addr_w <= wr_addr_o;
    len_w <= wr_len_o;
    data_w <= wr_data_o;
    last_w <= wr_last_o;
  end

  always_comb begin
    if (rst_ni) begin
      if (busy_o) assume (!start_i);
      assume (nseg_i <= 3'(MaxSeg));
      for (int j = 0; j < MaxSeg; j++) assume (seg_len_i[32*j +: 32] <= 32'd12);

      assert (busy_o == job_q);
      if (!busy_o) assert (!wr_valid_o && !release_o);
      if (wait_q) begin
        assert (wr_valid_o);
        assert (wr_addr_o == addr_w && wr_len_o == len_w);
        assert (wr_data_o == data_w && wr_last_o == last_w);
      end
      if (wr_valid_o) begin
        assert (seg < nseg_q);
        assert (wr_addr_o == addr_q[64*seg +: 64]);
        assert (wr_len_o == seg_len[15:0]);
        assert (wr_last_o == (32'(b + 16'd1) * Bytes >= seg_len));
        for (int i = 0; i < Bytes; i++)
          assert (wr_data_o[8*i +: 8] == slot_byte(slot_q, src + 16'(i)));
      end
      if (release_o) begin
        assert (!released_q);
        assert ((seg == nseg_q) ||
                (take && wr_last_o && (next_seg(seg + 3'd1, nseg_q, len_q) == nseg_q)));
        assert (release_slot_o == slot_q);
      end
      if (rel_q) assert (!busy_o);
    end
  end
endmodule
