// rnic_requester: turns fetched send WQEs into RoCEv2 request frames.
//
// Per WQE: decode the control segment, check every gather SGE against its MR
// (lkey, PD, bounds, rights; READ targets need LOCAL_WRITE), hand an in-flight
// record to the completer, then cut the message into path-MTU packets whose
// payload is a list of DMA chunks for the TX builder. After a local error the
// QP stops: its later WQEs go to the completer as flush records.
module rnic_requester #(
  parameter int unsigned NQp = 1024
) (
  input  logic        clk_i,
  input  logic        rst_ni,
  // Fetched WQEs from rnic_sq_fetch
  input  logic        wqe_valid_i,
  output logic        wqe_ready_o,
  input  logic [rnic_pkg::WqeBits+42-1:0] wqe_i,
  // QP context writes (PSN load, SQ reset)
  input  logic        qp_wr_i,
  input  logic [23:0] qp_wr_idx_i,
  input  logic [7:0]  qp_wr_flags_i,
  input  logic [23:0] qp_wr_sq_psn_i,
  // Context read ports
  output logic [23:0] ctx_idx_o,
  input  logic [rnic_pkg::QpCfgW-1:0] ctx_i,
  output logic [23:0] mr_idx_o,
  input  logic [rnic_pkg::MrCfgW-1:0] mr_i,
  // In-flight records to the completer
  output logic        infl_valid_o,
  input  logic        infl_ready_i,
  output logic [rnic_pkg::InflW-1:0] infl_o,
  // Frames to the TX builder
  output logic        txd_valid_o,
  input  logic        txd_ready_i,
  output logic [rnic_pkg::TxdW-1:0] txd_o
);
  localparam int unsigned QpW = $clog2(NQp);
  localparam int unsigned WqeBits = rnic_pkg::WqeBits;

  typedef enum logic [2:0] {
    StIdle, StDecode, StCheck, StInfl, StChunk, StSend
  } state_e;
  state_e st_q;

  logic [23:0] sq_psn_q [NQp];
  logic stopped_q [NQp];

  logic [WqeBits-1:0] wqe_q;
  logic [23:0] qpn_q;
  logic [15:0] idx_q;
  logic flush_q, ferr_q;

  /* verilator lint_off UNUSEDSIGNAL */  // a context view: each block reads its own fields
  rnic_pkg::qp_cfg_t ctx;
  /* verilator lint_on UNUSEDSIGNAL */
  assign ctx_idx_o = qpn_q;
  assign ctx = ctx_i;

  // Decoded control segment
  logic [7:0] w_op, w_flags, w_ds;
  logic [31:0] w_imm;
  logic [63:0] w_rva;
  logic [31:0] w_rkey;
  assign w_op = wqe_q[7:0];
  assign w_flags = wqe_q[15:8];
  assign w_ds = wqe_q[39:32];
  assign w_imm = wqe_q[95:64];
  assign w_rva = wqe_q[128 +: 64];
  assign w_rkey = wqe_q[192 +: 32];

  logic op_write, op_send, op_read, op_imm, op_ok;
  assign op_write = (w_op == rnic_pkg::WqeOpWrite) || (w_op == rnic_pkg::WqeOpWriteImm);
  assign op_send = (w_op == rnic_pkg::WqeOpSend) || (w_op == rnic_pkg::WqeOpSendImm);
  assign op_read = (w_op == rnic_pkg::WqeOpRead);
  assign op_imm = (w_op == rnic_pkg::WqeOpWriteImm) || (w_op == rnic_pkg::WqeOpSendImm);
  assign op_ok = op_write || op_send || op_read;

  logic [7:0] first_seg;
  logic [7:0] nsge_w;
  assign first_seg = op_send ? 8'd1 : 8'd2;
  assign nsge_w = w_ds - first_seg;

  // SGE table after the check
  logic [2:0] nsge_q, sge_i_q;
  logic [63:0] sge_bus_q [4];
  logic [31:0] sge_len_q [4];
  logic [31:0] total_q;
  logic [7:0] status_q;

  logic [127:0] seg;
  logic [31:0] seg_len, seg_key;
  logic [63:0] seg_va;
  assign seg = wqe_q[(11'(first_seg) + 11'(sge_i_q)) * 128 +: 128];
  assign seg_len = seg[31:0];
  assign seg_key = seg[63:32];
  assign seg_va = seg[127:64];
  assign mr_idx_o = seg_key[31:8];

  logic mr_ok;
  logic [63:0] mr_bus;
  rnic_mr_check u_mr_check (
    .mr_i(mr_i), .key_i(seg_key), .pd_i(ctx.pd), .va_i(seg_va), .len_i(seg_len),
    .access_i(op_read ? 4'b0001 : 4'b0000), .ok_o(mr_ok), .bus_o(mr_bus)
  );

  // Packetization
  logic [12:0] mtu;
  logic [3:0] mtu_lg;
  assign mtu = rnic_pkg::mtu_bytes(ctx.pmtu);
  assign mtu_lg = rnic_pkg::mtu_log(ctx.pmtu);

  logic [31:0] remain_q;      // message bytes not yet packetized
  logic [23:0] psn_q;
  logic first_pkt_q;
  logic [12:0] pkt_len_q, need_q;
  logic [2:0] cur_sge_q;
  logic [31:0] cur_off_q;
  logic [2:0] nchunk_q;
  logic [255:0] chunk_addr_q;
  logic [51:0] chunk_len_q;

  logic [31:0] npkts;          // packets of the message (READ: of the response)
  assign npkts = (total_q == 32'd0) ? 32'd1 :
                 ((total_q + {19'd0, mtu} - 32'd1) >> mtu_lg);

  rnic_pkg::infl_t infl;
  rnic_pkg::txd_t txd;
  logic [QpW-1:0] q;
  assign q = qpn_q[QpW-1:0];

  logic local_err;
  assign local_err = (status_q != rnic_pkg::WcSuccess);

  always_comb begin
    infl = '0;
    infl.qpn = qpn_q;
    infl.wqe_idx = idx_q;
    infl.kind = flush_q ? rnic_pkg::InflFlush :
                local_err ? rnic_pkg::InflLocalErr : rnic_pkg::InflNormal;
    infl.status = flush_q ? rnic_pkg::WcWrFlushErr : status_q;
    infl.wc_op = op_read ? rnic_pkg::WcOpRead : op_write ? rnic_pkg::WcOpWrite :
                 rnic_pkg::WcOpSend;
    infl.signaled = w_flags[rnic_pkg::WqeFlagSignaled];
    infl.is_read = op_read;
    infl.first_psn = sq_psn_q[q];
    infl.last_psn = sq_psn_q[q] + npkts[23:0] - 24'd1;
    infl.len = total_q;
  end
  assign infl_o = infl;
  assign infl_valid_o = (st_q == StInfl);

  logic last_pkt;
  assign last_pkt = (remain_q <= {19'd0, mtu});

  always_comb begin
    txd = '0;
    txd.qpn = qpn_q;
    txd.psn = psn_q;
    txd.pay_len = op_read ? 13'd0 : pkt_len_q;
    txd.reth_va = w_rva;
    txd.reth_rkey = w_rkey;
    txd.reth_len = total_q;
    txd.imm = w_imm;
    txd.ack_req = last_pkt;
    txd.se = last_pkt && w_flags[rnic_pkg::WqeFlagSolicited] && op_send;
    txd.nchunk = nchunk_q;
    txd.chunk_addr = chunk_addr_q;
    txd.chunk_len = chunk_len_q;
    txd.ev_first = first_pkt_q;
    txd.ev_last = last_pkt;
    txd.wqe_idx = idx_q;
    if (op_read) begin
      txd.opcode = rnic_pkg::OpReadReq;
      txd.ack_req = 1'b1;
    end else if (op_send) begin
      if (first_pkt_q && last_pkt) txd.opcode = op_imm ? rnic_pkg::OpSendOnlyImm : rnic_pkg::OpSendOnly;
      else if (first_pkt_q) txd.opcode = rnic_pkg::OpSendFirst;
      else if (last_pkt) txd.opcode = op_imm ? rnic_pkg::OpSendLastImm : rnic_pkg::OpSendLast;
      else txd.opcode = rnic_pkg::OpSendMiddle;
    end else begin
      if (first_pkt_q && last_pkt) txd.opcode = op_imm ? rnic_pkg::OpWriteOnlyImm : rnic_pkg::OpWriteOnly;
      else if (first_pkt_q) txd.opcode = rnic_pkg::OpWriteFirst;
      else if (last_pkt) txd.opcode = op_imm ? rnic_pkg::OpWriteLastImm : rnic_pkg::OpWriteLast;
      else txd.opcode = rnic_pkg::OpWriteMiddle;
    end
  end
  assign txd_o = txd;
  assign txd_valid_o = (st_q == StSend);
  assign wqe_ready_o = (st_q == StIdle);

  // Chunk step: the bytes of the current SGE that go into this packet.
  logic [31:0] sge_left, take;
  assign sge_left = sge_len_q[cur_sge_q[1:0]] - cur_off_q;
  assign take = (sge_left < {19'd0, need_q}) ? sge_left : {19'd0, need_q};

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      st_q <= StIdle;
      wqe_q <= '0;
      qpn_q <= '0;
      idx_q <= '0;
      flush_q <= 1'b0;
      ferr_q <= 1'b0;
      nsge_q <= '0;
      sge_i_q <= '0;
      total_q <= '0;
      status_q <= '0;
      remain_q <= '0;
      psn_q <= '0;
      first_pkt_q <= 1'b0;
      pkt_len_q <= '0;
      need_q <= '0;
      cur_sge_q <= '0;
      cur_off_q <= '0;
      nchunk_q <= '0;
      chunk_addr_q <= '0;
      chunk_len_q <= '0;
      for (int i = 0; i < 4; i++) begin
        sge_bus_q[i] <= '0;
        sge_len_q[i] <= '0;
      end
    end else begin
      unique case (st_q)
        StIdle: begin
          if (wqe_valid_i) begin
            {ferr_q, flush_q, qpn_q, idx_q, wqe_q} <= wqe_i;
            st_q <= StDecode;
          end
        end
        StDecode: begin
          sge_i_q <= '0;
          total_q <= '0;
          status_q <= rnic_pkg::WcSuccess;
          if (flush_q || stopped_q[q] || (ctx.state == rnic_pkg::QpsErr)) begin
            flush_q <= 1'b1;
            st_q <= StInfl;
          end else if (ferr_q || !op_ok || (w_ds < first_seg) || (nsge_w > 8'd4)) begin
            status_q <= rnic_pkg::WcLocQpOpErr;
            st_q <= StInfl;
          end else begin
            nsge_q <= nsge_w[2:0];
            st_q <= StCheck;
          end
        end
        StCheck: begin
          if (sge_i_q == nsge_q) begin
            st_q <= StInfl;
          end else begin
            sge_bus_q[sge_i_q[1:0]] <= mr_bus;
            sge_len_q[sge_i_q[1:0]] <= seg_len;
            total_q <= total_q + seg_len;
            sge_i_q <= sge_i_q + 3'd1;
            // A zero-length SGE does not touch memory and needs no key.
            if (!mr_ok && (seg_len != 32'd0)) begin
              status_q <= rnic_pkg::WcLocProtErr;
              st_q <= StInfl;
            end
          end
        end
        StInfl: begin
          if (infl_ready_i) begin
            if (flush_q || local_err) begin
              st_q <= StIdle;
            end else begin
              psn_q <= sq_psn_q[q];
              remain_q <= total_q;
              first_pkt_q <= 1'b1;
              cur_sge_q <= '0;
              cur_off_q <= '0;
              nchunk_q <= '0;
              pkt_len_q <= (total_q < {19'd0, mtu}) ? total_q[12:0] : mtu;
              need_q <= op_read ? 13'd0 : ((total_q < {19'd0, mtu}) ? total_q[12:0] : mtu);
              st_q <= StChunk;
            end
          end
        end
        StChunk: begin
          if (need_q == 13'd0) begin
            st_q <= StSend;
          end else if (sge_left == 32'd0) begin
            cur_sge_q <= cur_sge_q + 3'd1;
            cur_off_q <= '0;
          end else begin
            chunk_addr_q[nchunk_q[1:0]*64 +: 64] <= sge_bus_q[cur_sge_q[1:0]] + {32'd0, cur_off_q};
            chunk_len_q[nchunk_q[1:0]*13 +: 13] <= take[12:0];
            nchunk_q <= nchunk_q + 3'd1;
            need_q <= need_q - take[12:0];
            cur_off_q <= cur_off_q + take;
          end
        end
        StSend: begin
          if (txd_ready_i) begin
            first_pkt_q <= 1'b0;
            nchunk_q <= '0;
            psn_q <= psn_q + 24'd1;
            if (op_read || last_pkt) begin
              st_q <= StIdle;
            end else begin
              remain_q <= remain_q - {19'd0, mtu};
              pkt_len_q <= ((remain_q - {19'd0, mtu}) < {19'd0, mtu}) ?
                           13'(remain_q - {19'd0, mtu}) : mtu;
              need_q <= ((remain_q - {19'd0, mtu}) < {19'd0, mtu}) ?
                        13'(remain_q - {19'd0, mtu}) : mtu;
              st_q <= StChunk;
            end
          end
        end
        default: st_q <= StIdle;
      endcase
    end
  end

  // Per-QP state: next PSN and the stop after a local error.
  always_ff @(posedge clk_i) begin
    if (qp_wr_i && (qp_wr_idx_i < 24'(NQp))) begin
      if (qp_wr_flags_i[rnic_pkg::QpFlagSetSqPsn]) sq_psn_q[qp_wr_idx_i[QpW-1:0]] <= qp_wr_sq_psn_i;
      if (qp_wr_flags_i[rnic_pkg::QpFlagResetSq]) stopped_q[qp_wr_idx_i[QpW-1:0]] <= 1'b0;
    end
    if ((st_q == StInfl) && infl_ready_i && !flush_q) begin
      if (local_err) stopped_q[q] <= 1'b1;
      else sq_psn_q[q] <= sq_psn_q[q] + npkts[23:0];
    end
  end
  logic unused;
  assign unused = ^npkts[31:24];  // PSNs wrap at 24 bits
endmodule
