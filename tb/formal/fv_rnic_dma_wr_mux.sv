// Properties of rnic_dma_wr_mux (N = 3 writers, 8-bit data): a write is
// never interleaved (from its first beat to its last, only its writer is
// presented and sees ready); outside a write the lowest waiting writer goes
// first; the beat presented is one valid writer's, and only that writer
// sees ready; valid is held until taken; quiet_o says no write is in
// progress. Writers hold valid, address, length, data and last until taken
// (assumed).
module fv_rnic_dma_wr_mux (
  input logic        clk_i,
  input logic        rst_ni,
  input logic [2:0]  valid_i,
  input logic [191:0] addr_i,
  input logic [47:0] len_i,
  input logic [23:0] data_i,
  input logic [2:0]  last_i,
  input logic        ready_i
);
  logic [2:0] ready_o;
  logic valid_o, last_o, quiet_o;
  logic [63:0] addr_o;
  logic [15:0] len_o;
  logic [7:0] data_o;

  rnic_dma_wr_mux #(.DataW(8), .N(3)) dut (
    .clk_i, .rst_ni, .valid_i, .ready_o, .addr_i, .len_i, .data_i, .last_i, .valid_o, .ready_i,
    .addr_o, .len_o, .data_o, .last_o, .quiet_o
  );

  // Reset in the first step only: rst_ni is low while ran is 0 (step 1),
  // high ever after. (Not `ran <= 1`: Yosys would fold a register with
  // a constant input into the constant, and the assumption would forbid the
  // reset itself, which makes every proof vacuous.)
  logic ran;
  always_ff @(posedge clk_i) ran <= ran || !rst_ni;
  always_comb assume (rst_ni == ran);

  // The write in progress (wrapper's view): its writer, after a beat that
  // was not the last.
  logic busy;
  logic [1:0] own;
  logic take;
  assign take = valid_o && ready_i;

  logic [2:0] wait_q;
  logic [191:0] addr_q;
  logic [47:0] len_q;
  logic [23:0] data_q;
  logic [2:0] last_q;
  logic out_wait;
  logic [1:0] out_src;
  always_ff @(posedge clk_i) begin
    wait_q <= rst_ni ? (valid_i & ~ready_o) : 3'b000;
    addr_q <= addr_i;
    len_q <= len_i;
    data_q <= data_i;
    last_q <= last_i;
    out_wait <= rst_ni && valid_o && !ready_i;
    if (!rst_ni) begin
      busy <= 1'b0;
      own <= '0;
    end else if (valid_o) begin
      // A writer presented keeps the port until its last beat is taken.
      busy <= !(take && last_o);
      own <= sel_w;
    end
  end

  // The writer presented: the owner in a write, else the lowest valid one.
  logic [1:0] sel_w;
  always_comb begin
    sel_w = 2'd2;
    if (busy) sel_w = own;
    else if (valid_i[0]) sel_w = 2'd0;
    else if (valid_i[1]) sel_w = 2'd1;
  end
  logic [1:0] sel_q;
  always_ff @(posedge clk_i) sel_q <= sel_w;

  always_comb begin
    if (rst_ni) begin
      for (int i = 0; i < 3; i++) begin
        if (wait_q[i]) begin
          assume (valid_i[i]);
          assume (addr_i[i*64 +: 64] == addr_q[i*64 +: 64]);
          assume (len_i[i*16 +: 16] == len_q[i*16 +: 16]);
          assume (data_i[i*8 +: 8] == data_q[i*8 +: 8]);
          assume (last_i[i] == last_q[i]);
        end
      end
      assert (quiet_o == !busy);
      // The beat presented is sel_w's, only sel_w sees ready.
      assert (valid_o == valid_i[sel_w]);
      assert (addr_o == addr_i[sel_w*64 +: 64]);
      assert (len_o == len_i[sel_w*16 +: 16]);
      assert (data_o == data_i[sel_w*8 +: 8]);
      assert (last_o == last_i[sel_w]);
      assert (ready_o == (ready_i ? (3'b001 << sel_w) : 3'b000));
      // No interleaving: in a write, nobody else moves.
      if (busy) assert ((ready_o & ~(3'b001 << own)) == 3'b000);
      if (out_wait) begin
        assert (valid_o);
        assert (sel_w == sel_q);
      end
    end
  end
endmodule
