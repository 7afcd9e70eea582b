// rnic_rx_wqe_fetch: the WQE whose scatter list a packet's payload goes to
// (a receive WQE for a SEND, the send WQE of a READ response or atomic
// ACK), for both roles of the receive transport. Either the WQE cache hands
// the whole WQE in one cycle (load_i), or the engine's fetch states read it
// over the DMA read port: req_i while the request for addr_i/len_i is
// offered, collect_i while the beats come.
//
// done_o is the cycle of the last beat: the mapping starts then (the
// engine's map_start) with cnt_o, the SGE count, taken from that beat when
// the WQE has only one; wqe_o holds the whole WQE from the next cycle. A
// beat with an error marks the WQE bad (err_o) until the next read or load.
module rnic_rx_wqe_fetch #(
  parameter int unsigned DataW = 256,
  parameter int unsigned WqeBits = rnic_pkg::WqeBits,
  parameter int unsigned LoadBits = rnic_pkg::RwqeBits
) (
  input  logic        clk_i,
  input  logic        rst_ni,
  // Where the WQE is and how many bytes to read, while req_i.
  input  logic [63:0] addr_i,
  input  logic [15:0] len_i,
  // The engine's fetch states; sent_o: the request is taken this cycle.
  input  logic        req_i,
  input  logic        collect_i,
  output logic        sent_o,
  output logic        done_o,
  // The WQE from the cache, with its error flag, in one cycle.
  input  logic        load_i,
  input  logic [LoadBits-1:0] load_data_i,
  input  logic        load_err_i,
  // SGE slot of the first data segment (1: a receive WQE, whose byte 0 is
  // its SGE count; else a send WQE: its ds byte counts every segment).
  input  logic [2:0]  first_i,
  output logic [7:0]  cnt_o,
  output logic [WqeBits-1:0] wqe_o,
  output logic        err_o,
  // DMA read port
  output logic        rd_req_valid_o,
  input  logic        rd_req_ready_i,
  output logic [63:0] rd_req_addr_o,
  output logic [15:0] rd_req_len_o,
  input  logic        rd_rsp_valid_i,
  output logic        rd_rsp_ready_o,
  input  logic [DataW-1:0] rd_rsp_data_i,
  input  logic        rd_rsp_last_i,
  input  logic        rd_rsp_err_i
);
  localparam int unsigned BeatsMax = WqeBits / DataW;
  localparam int unsigned BeatW = (BeatsMax > 1) ? $clog2(BeatsMax) : 1;

  logic [WqeBits-1:0] wqe_q;
  logic [BeatW-1:0] beat_q;
  logic err_q;

  assign rd_req_valid_o = req_i;
  assign rd_req_addr_o = addr_i;
  assign rd_req_len_o = len_i;
  assign rd_rsp_ready_o = collect_i;
  assign sent_o = req_i && rd_req_ready_i;
  assign done_o = collect_i && rd_rsp_valid_i && rd_rsp_last_i;
  assign wqe_o = wqe_q;
  assign err_o = err_q;

  // The count fields are in the first beat, read as it arrives when the
  // WQE is one beat long.
  logic [7:0] b0, ds;
  assign b0 = (beat_q == '0) ? rd_rsp_data_i[7:0] : wqe_q[7:0];
  assign ds = (beat_q == '0) ? rd_rsp_data_i[39:32] : wqe_q[39:32];
  assign cnt_o = (first_i == 3'd1) ? b0 : (ds - {5'd0, first_i});

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      beat_q <= '0;
      err_q <= 1'b0;
    end else begin
      if (sent_o) begin
        beat_q <= '0;
        err_q <= 1'b0;
      end
      if (collect_i && rd_rsp_valid_i) begin
        beat_q <= beat_q + 1'b1;
        if (rd_rsp_err_i) err_q <= 1'b1;
      end
      if (load_i) err_q <= load_err_i;
    end
  end

  // The 2,048 WQE bits in a process of their own: Yosys 0.23's proc_mux
  // time grows with a signal's width times the assignments on its path.
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      wqe_q <= '0;
    end else if (load_i) begin
      wqe_q <= WqeBits'(load_data_i);
    end else if (sent_o) begin
      wqe_q <= '0;
    end else if (collect_i && rd_rsp_valid_i) begin
      // A constant part-select per beat: Yosys makes the indexed write
      // a shift of the whole 2,048 bits, slow to map (docs/verification.md).
      for (int unsigned b = 0; b < BeatsMax; b++) begin
        if (beat_q == BeatW'(b)) wqe_q[b*DataW +: DataW] <= rd_rsp_data_i;
      end
    end
  end
endmodule
