// Properties of rnic_atomic_unit (2 QPs, Depth 2, 64-bit data), against a
// shadow queue of the atomics taken and a shadow of one 8-byte word of
// memory (its address sa chosen once, any): atomics answer in the order the
// unit took them, each with its QP and PSN; every write to sa is the
// operation of the atomic answering next applied to the word's value (a
// CMP_SWAP writes only when the word equals its compare value), and its
// answer carries the word's value before it: each read-modify-write on sa
// sees the one before, even when its read left before that one's write
// (forwarding); an engine job passes unchanged, and goes before the unit's
// answer when it is of the same QP; busy_o says exactly whether an atomic of
// the QP asked about is in the unit, quiet_o whether any is.
// Environment (assumed): atomics are 8-byte aligned, not duplicates, and
// reads are never refused (the block bench covers duplicates and refused
// reads); host memory answers reads in order, one beat each, with the
// word's value when the read was taken for sa (anything elsewhere); nothing
// but the unit writes sa. Everything else is free: the timing of every
// handshake, the operands (below 8, as the word's first value), the engine's
// jobs (valid and contents may change while not taken, as its job
// register's merges do), QP resets, busy queries.
module fv_rnic_atomic_unit (
  input logic        clk_i,
  input logic        rst_ni,
  input logic        op_valid_i,
  input logic [rnic_pkg::AtOpW-1:0] op_i,
  input logic [23:0] busy_qpn_i,
  input logic        rd_req_ready_i,
  input logic        rd_rsp_valid_i,
  input logic [63:0] rd_rsp_data_i,
  input logic        wr_ready_i,
  input logic        eng_job_valid_i,
  input logic [rnic_pkg::RspJobW-1:0] eng_job_i,
  input logic        job_ready_i,
  input logic        err_ready_i,
  input logic        qp_clr_i,
  input logic [23:0] qp_clr_idx_i
);
  localparam int unsigned DataW = 64;
  localparam int unsigned JW = rnic_pkg::RspJobW;
  logic op_ready_o, busy_o, rd_req_valid_o, rd_rsp_ready_o, wr_valid_o, wr_last_o;
  logic eng_job_ready_o, job_valid_o, err_valid_o, quiet_o;
  logic [63:0] rd_req_addr_o, wr_addr_o;
  logic [15:0] rd_req_len_o, wr_len_o;
  logic [DataW-1:0] wr_data_o;
  logic [JW-1:0] job_o;
  logic [23:0] err_qpn_o;
  logic rd_rsp_last_i, rd_rsp_err_i;

  rnic_atomic_unit #(.DataW(DataW), .NQp(2), .Depth(2)) dut (
    .clk_i, .rst_ni, .op_valid_i, .op_ready_o, .op_i, .busy_qpn_i, .busy_o,
    .rd_req_valid_o, .rd_req_ready_i, .rd_req_addr_o, .rd_req_len_o,
    .rd_rsp_valid_i, .rd_rsp_ready_o, .rd_rsp_data_i, .rd_rsp_last_i, .rd_rsp_err_i,
    .wr_valid_o, .wr_ready_i, .wr_addr_o, .wr_len_o, .wr_data_o, .wr_last_o,
    .eng_job_valid_i, .eng_job_ready_o, .eng_job_i, .job_valid_o, .job_ready_i, .job_o,
    .err_valid_o, .err_ready_i, .err_qpn_o, .qp_clr_i, .qp_clr_idx_i, .quiet_o
  );

  logic ran;
  always_ff @(posedge clk_i) ran <= ran || !rst_ni;
  always_comb assume (rst_ni == ran);

  // The word watched, and its value after reset
  (* anyconst *) logic [60:0] sa;
  (* anyconst *) logic [63:0] m0;

  rnic_pkg::at_op_t in;
  assign in = op_i;
  always_comb begin
    assume (in.addr[2:0] == 3'd0);
    assume (!in.dup);
    assume (in.qpn < 24'd2);
    // Small operands and values keep the 64-bit adder and comparators
    // cheap for the solver; the unit's logic does not depend on them.
    assume ((in.swap < 64'd8) && (in.cmp < 64'd8) && (m0 < 64'd8));
    if (rd_rsp_valid_i && !rq0[64]) assume (rd_rsp_data_i < 64'd8);
  end
  assign rd_rsp_last_i = 1'b1;
  assign rd_rsp_err_i = 1'b0;

  // Field views of a job (flat rsp_job_t, MSB first: kind 2, qpn 24, psn 24,
  // syn 8, msn 24, addr 64, len 32, orig 64, dup 1).
  function automatic logic [1:0] kind_of(input logic [JW-1:0] j);
    kind_of = j[JW-1 -: 2];
  endfunction
  function automatic logic [23:0] qpn_of(input logic [JW-1:0] j);
    qpn_of = j[JW-3 -: 24];
  endfunction
  function automatic logic [23:0] psn_of(input logic [JW-1:0] j);
    psn_of = j[JW-27 -: 24];
  endfunction
  function automatic logic [63:0] orig_of(input logic [JW-1:0] j);
    orig_of = j[64:1];
  endfunction

  // Memory: the watched word, and the reads in flight ({at sa, value taken})
  logic [63:0] mem;
  logic wr_hs, rd_hs, wr_sa;
  assign wr_hs = wr_valid_o && wr_ready_i;
  assign rd_hs = rd_req_valid_o && rd_req_ready_i;
  assign wr_sa = wr_hs && (wr_addr_o[63:3] == sa);
  logic [1:0] rn;
  logic [64:0] rq0, rq1;
  always_comb begin
    assume (!rd_rsp_valid_i || (rn != 2'd0));
    if (rd_rsp_valid_i && rq0[64]) assume (rd_rsp_data_i == rq0[63:0]);
  end
  always_ff @(posedge clk_i) begin
    if (!rst_ni) begin
      mem <= m0;
      rn <= '0;
    end else begin
      if (wr_sa) mem <= wr_data_o[63:0];
      rn <= rn + 2'(rd_hs) - 2'(rd_rsp_valid_i);
      if (rd_rsp_valid_i) rq0 <= rq1;
      if (rd_hs) begin
        if ((rn == 2'd0) || ((rn == 2'd1) && rd_rsp_valid_i)) begin
          rq0 <= {rd_req_addr_o[63:3] == sa, mem};
        end else begin
          rq1 <= {rd_req_addr_o[63:3] == sa, mem};
        end
      end
    end
  end

  // Shadow queue of the atomics taken: {qpn, psn, at sa, cas, swap, cmp}
  localparam int unsigned SW = 24 + 24 + 1 + 1 + 64 + 64;
  logic [1:0] sn;
  logic [SW-1:0] sq0, sq1, snew;
  logic op_hs, ujob, ejob;
  assign op_hs = op_valid_i && op_ready_o;
  assign ejob = eng_job_valid_i && eng_job_ready_o;
  assign ujob = job_valid_o && job_ready_i && !ejob;
  assign snew = {in.qpn, in.psn, in.addr[63:3] == sa, in.cas, in.swap, in.cmp};
  logic [23:0] f_qpn, f_psn;
  logic f_sa, f_cas;
  logic [63:0] f_swap, f_cmp;
  assign {f_qpn, f_psn, f_sa, f_cas, f_swap, f_cmp} = sq0;
  // The front atomic's write taken, and the word's value before it
  logic wrote;
  logic [63:0] pre;
  always_ff @(posedge clk_i) begin
    if (!rst_ni) begin
      sn <= '0;
      wrote <= 1'b0;
    end else begin
      sn <= sn + 2'(op_hs) - 2'(ujob);
      if (ujob) sq0 <= sq1;
      if (op_hs) begin
        if ((sn == 2'd0) || ((sn == 2'd1) && ujob)) sq0 <= snew;
        else sq1 <= snew;
      end
      if (wr_hs) begin
        wrote <= 1'b1;
        pre <= mem;
      end
      if (ujob) wrote <= 1'b0;
    end
  end

  always_comb begin
    if (rst_ni) begin
      // Answers in order, one per atomic, each its own.
      if (ujob) begin
        assert (sn != 2'd0);
        assert (kind_of(job_o) == rnic_pkg::JobAtomic);
        assert ((qpn_of(job_o) == f_qpn) && (psn_of(job_o) == f_psn) && !job_o[0]);
      end
      // The front atomic writes its operation's result on its address,
      // once, before or with its answer.
      if (wr_hs) begin
        assert ((sn != 2'd0) && !wrote);
        assert ((wr_addr_o[63:3] == sa) == f_sa);
        if (f_sa) begin
          assert (f_cas ? ((mem == f_cmp) && (wr_data_o[63:0] == f_swap)) :
                          (wr_data_o[63:0] == mem + f_swap));
        end
      end
      // Its answer: the value before it; without a write only a CMP_SWAP
      // whose compare failed.
      if (ujob && f_sa) begin
        assert (orig_of(job_o) == (wrote ? pre : mem));
        if (!wrote && !wr_hs) assert (f_cas && (mem != f_cmp));
      end
      if (ujob && !f_sa && !f_cas) assert (wrote || wr_hs);
      // The engine's job passes unchanged, before an answer of its QP.
      if (eng_job_valid_i && eng_job_ready_o) assert (job_valid_o && (job_o == eng_job_i));
      if (eng_job_valid_i && (sn != 2'd0) && (qpn_of(eng_job_i) == f_qpn)) assert (!ujob);
      // busy_o and quiet_o tell the shadow's contents.
      assert (busy_o == (((sn != 2'd0) && (f_qpn == busy_qpn_i)) ||
                         ((sn == 2'd2) && (sq1[SW-1 -: 24] == busy_qpn_i))));
      assert (quiet_o == (sn == 2'd0));
      assert (!err_valid_o);
      assert (sn <= 2'd2);
    end
  end

  logic unused;
  assign unused = ^{rd_rsp_ready_o, rd_req_len_o, wr_len_o, wr_last_o, err_qpn_o, in.msn};
endmodule
