// rnic_ack_delay: the responder's delayed ACKs (ACK coalescing: an RC ACK
// acknowledges every request up to its PSN, so one may stand for several).
//
// A message whose last packet does not ask for an ACK (AckReq clear)
// leaves its QP owing one (set_i): the QP waits in a queue, each QP once,
// and when it has been at the head for Delay cycles with the debt still
// open, due_o asks for an ACK of everything received so far; take_i is the
// engine taking it (the debt is paid and the QP leaves). A job the engine
// makes for the QP in the meantime (an ACK, a NAK, a new READ's or
// atomic's response: each acknowledges as much) pays the debt (clr_i), and
// so does a write of the QP's context by the driver (rst_i: a modify or
// reset starts afresh); a QP whose debt is paid leaves the head without an
// ACK. Under load the ACKs of the messages that ask cover the others, and
// no frame is sent for them.
//
// The queue is served in order: with k QPs owing at once the k-th waits
// about k x Delay cycles (docs/performance.md, "The delayed ACK when
// several QPs owe one": a stamp per QP acknowledged earlier but cost more
// frames than it saved).
module rnic_ack_delay #(
  parameter int unsigned NQp = 1024,
  parameter int unsigned Delay = 256,
  localparam int unsigned QpW = $clog2(NQp)
) (
  input  logic           clk_i,
  input  logic           rst_ni,
  // The QP of the engine's decision: set_i opens its debt, clr_i pays it
  // (set_i wins when both).
  input  logic           set_i,
  input  logic           clr_i,
  input  logic [QpW-1:0] qpn_i,
  // A write of a QP's context pays its debt.
  input  logic           rst_i,
  input  logic [QpW-1:0] rst_qpn_i,
  // The head of the queue: valid_o while any QP waits (paid or not),
  // due_o when the head's ACK is due; take_i takes it.
  output logic           valid_o,
  output logic           due_o,
  output logic [QpW-1:0] qpn_o,
  input  logic           take_i
);
  localparam int unsigned AgeW = $clog2(Delay + 1);

  logic pop, live;
  logic [NQp-1:0] owe_q;
  logic [AgeW-1:0] age_q;

  rnic_uniq_fifo #(.Width(QpW)) u_queue (
    .clk_i, .rst_ni,
    .in_valid_i(set_i), .in_data_i(qpn_i),
    .out_valid_o(valid_o), .out_ready_i(pop), .out_data_o(qpn_o)
  );
  // The head still owes; it leaves when taken or paid.
  assign live = valid_o && owe_q[qpn_o];
  assign due_o = live && (age_q == AgeW'(Delay));
  assign pop = valid_o && (!live || take_i);

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      owe_q <= '0;
      age_q <= '0;
    end else begin
      if (clr_i) owe_q[qpn_i] <= 1'b0;
      if (rst_i) owe_q[rst_qpn_i] <= 1'b0;
      if (set_i) owe_q[qpn_i] <= 1'b1;
      age_q <= (pop || !live) ? '0 : due_o ? age_q : age_q + 1'b1;
    end
  end
endmodule
