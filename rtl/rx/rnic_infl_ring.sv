// rnic_infl_ring: the completer's per-QP ring of in-flight send WQEs.
//
// Each QP has InflDepth slots of records (rnic_pkg::infl_t), a valid bit per
// slot and a done index: the first WQE not yet completed, whose record is
// the QP's head (slot done % InflDepth). The requester makes a record per
// WQE in WQE order (rnic_sq_fetch keeps at most InflDepth of a QP between
// fetch and completion, so a slot is free when its WQE's record comes, but
// for a flush record that replaces the record of a WQE sent before); the
// completer retires the head, and a reset of the send queue empties the
// ring and restarts the done index at 0.
//
// Storage: a record RAM of NQp * InflDepth entries with one write port (a
// new record, or a record the completer changes) and four read ports (the
// head of the completer's QP and the record after it, a record of that QP
// by slot, and the requester's lookup of a record by QP and WQE index), all
// combinational;
// the valid bits and done indices are per-QP tables. Writes of one cycle
// apply in this order, a later one winning where they meet: the retire,
// the record write, the reset.
module rnic_infl_ring #(
  parameter int unsigned NQp = 1024,
  parameter int unsigned InflDepth = 8,
  localparam int unsigned QpW = $clog2(NQp),
  localparam int unsigned RingW = $clog2(InflDepth),
  localparam int unsigned InflW = rnic_pkg::InflW
) (
  input  logic             clk_i,
  input  logic             rst_ni,
  // The completer's QP: its done index, its head record and the one after
  // it, one of its records by slot; retire_i completes the head (slot
  // invalid, done index + 1), with retire2_i the record after it too (done
  // index + 2).
  input  logic [QpW-1:0]   q_i,
  output logic [15:0]      done_o,
  output logic [InflW-1:0] head_o,
  output logic             head_v_o,
  output logic [InflW-1:0] next_o,
  output logic             next_v_o,
  input  logic [RingW-1:0] slot_i,
  output logic [InflW-1:0] slot_rec_o,
  output logic             slot_v_o,
  input  logic             retire_i,
  input  logic             retire2_i,
  // Record write: wr_rec_i into slot wr_slot_i of QP wr_q_i; wr_new_i marks
  // the slot valid (a new record), else the record changes in place.
  input  logic             wr_i,
  input  logic             wr_new_i,
  input  logic [QpW-1:0]   wr_q_i,
  input  logic [RingW-1:0] wr_slot_i,
  input  logic [InflW-1:0] wr_rec_i,
  // Reset of a QP's send queue: no record, done index 0.
  input  logic             clr_i,
  input  logic [QpW-1:0]   clr_q_i,
  // The requester's lookup
  input  logic [QpW-1:0]   rd_q_i,
  input  logic [RingW-1:0] rd_slot_i,
  output logic [InflW-1:0] rd_rec_o,
  output logic             rd_v_o
);
  // RAMs: defined by a QP's reset (the driver resets every QP it creates).
  (* nomem2reg *) logic [InflW-1:0] ring_q [NQp * InflDepth];
  (* nomem2reg *) logic [InflDepth-1:0] ring_v_q [NQp];
  (* nomem2reg *) logic [15:0] done_q [NQp];

  logic [RingW-1:0] head_slot, next_slot;
  assign done_o = done_q[q_i];
  assign head_slot = done_q[q_i][RingW-1:0];
  assign next_slot = head_slot + 1'b1;
  assign head_o = ring_q[{q_i, head_slot}];
  assign head_v_o = ring_v_q[q_i][head_slot];
  assign next_o = ring_q[{q_i, next_slot}];
  assign next_v_o = ring_v_q[q_i][next_slot];
  // The valid bits a retire clears (one word write, as the others)
  logic [InflDepth-1:0] ret_clr;
  assign ret_clr = (InflDepth'(1) << head_slot) |
                   (retire2_i ? (InflDepth'(1) << next_slot) : '0);
  assign slot_rec_o = ring_q[{q_i, slot_i}];
  assign slot_v_o = ring_v_q[q_i][slot_i];
  assign rd_rec_o = ring_q[{rd_q_i, rd_slot_i}];
  assign rd_v_o = ring_v_q[rd_q_i][rd_slot_i];

  // No write while rst_ni is low (the memories are not reset, they are
  // held): a handshake the engine's ports show during reset changes nothing.
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
    end else begin
      if (retire_i) begin
        ring_v_q[q_i] <= ring_v_q[q_i] & ~ret_clr;
        done_q[q_i] <= done_q[q_i] + (retire2_i ? 16'd2 : 16'd1);
      end
      if (wr_i) begin
        ring_q[{wr_q_i, wr_slot_i}] <= wr_rec_i;
        if (wr_new_i) ring_v_q[wr_q_i][wr_slot_i] <= 1'b1;
      end
      if (clr_i) begin
        ring_v_q[clr_q_i] <= '0;
        done_q[clr_q_i] <= '0;
      end
    end
  end

`ifdef RNIC_ASSERT
  /* verilator coverage_off */
  // Simulation check: the records that retire are there (a second only
  // with the first).
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
    end else begin
      if (retire_i) assert (head_v_o);
      if (retire2_i) assert (retire_i && next_v_o);
    end
  end
  /* verilator coverage_on */
`endif
endmodule
