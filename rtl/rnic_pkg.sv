// rnic_pkg: formats, opcodes and structures shared by every RNIC block.
//
// Host-visible formats (WQE, CQE, contexts) are described in docs/formats.md;
// the C side mirrors them in driver/rnic_hw.h. Yosys 0.23 does not accept
// package types in ports, so ports are flat vectors of the *_W widths below
// and modules assign them to struct-typed variables inside.
// The package is a vocabulary: not every constant is used by every build.
/* verilator lint_off UNUSEDPARAM */
package rnic_pkg;

  // ---------------------------------------------------------------------------
  // Wire protocol: RoCEv2 over IPv4
  // ---------------------------------------------------------------------------
  localparam int unsigned EthHdrBytes = 14;
  localparam int unsigned Ip4HdrBytes = 20;
  localparam int unsigned UdpHdrBytes = 8;
  localparam int unsigned BthBytes = 12;
  localparam int unsigned BaseHdrBytes = 54;  // Eth + IPv4 + UDP + BTH
  localparam int unsigned HdrMaxBytes = 96;   // base + largest extension set, rounded up
  localparam int unsigned IcrcBytes = 4;
  localparam logic [15:0] RoceUdpPort = 16'd4791;
  localparam logic [15:0] EtherTypeIpv4 = 16'h0800;

  // BTH opcodes, RC transport (IBA table 38)
  localparam logic [7:0] OpSendFirst = 8'h00;
  localparam logic [7:0] OpSendMiddle = 8'h01;
  localparam logic [7:0] OpSendLast = 8'h02;
  localparam logic [7:0] OpSendLastImm = 8'h03;
  localparam logic [7:0] OpSendOnly = 8'h04;
  localparam logic [7:0] OpSendOnlyImm = 8'h05;
  localparam logic [7:0] OpWriteFirst = 8'h06;
  localparam logic [7:0] OpWriteMiddle = 8'h07;
  localparam logic [7:0] OpWriteLast = 8'h08;
  localparam logic [7:0] OpWriteLastImm = 8'h09;
  localparam logic [7:0] OpWriteOnly = 8'h0a;
  localparam logic [7:0] OpWriteOnlyImm = 8'h0b;
  localparam logic [7:0] OpReadReq = 8'h0c;
  localparam logic [7:0] OpReadRespFirst = 8'h0d;
  localparam logic [7:0] OpReadRespMiddle = 8'h0e;
  localparam logic [7:0] OpReadRespLast = 8'h0f;
  localparam logic [7:0] OpReadRespOnly = 8'h10;
  localparam logic [7:0] OpAck = 8'h11;
  localparam logic [7:0] OpAtomicAck = 8'h12;
  localparam logic [7:0] OpCmpSwap = 8'h13;
  localparam logic [7:0] OpFetchAdd = 8'h14;
  localparam logic [7:0] OpSendLastInv = 8'h16;
  localparam logic [7:0] OpSendOnlyInv = 8'h17;
  // UC: the RC SEND/WRITE codes with transport bits 001 (IBA table 38)
  localparam logic [7:0] OpUcSendFirst = 8'h20;
  localparam logic [7:0] OpUcSendMiddle = 8'h21;
  localparam logic [7:0] OpUcSendLast = 8'h22;
  localparam logic [7:0] OpUcSendLastImm = 8'h23;
  localparam logic [7:0] OpUcSendOnly = 8'h24;
  localparam logic [7:0] OpUcSendOnlyImm = 8'h25;
  localparam logic [7:0] OpUcWriteFirst = 8'h26;
  localparam logic [7:0] OpUcWriteMiddle = 8'h27;
  localparam logic [7:0] OpUcWriteLast = 8'h28;
  localparam logic [7:0] OpUcWriteLastImm = 8'h29;
  localparam logic [7:0] OpUcWriteOnly = 8'h2a;
  localparam logic [7:0] OpUcWriteOnlyImm = 8'h2b;
  // UD
  localparam logic [7:0] OpUdSendOnly = 8'h64;
  localparam logic [7:0] OpUdSendOnlyImm = 8'h65;
  // Transport field of the opcode, bits [7:5]
  localparam logic [2:0] TrRc = 3'b000;
  localparam logic [2:0] TrUc = 3'b001;
  localparam logic [2:0] TrUd = 3'b011;

  // AETH syndromes (IBA 9.7.5.1.1): [7:5] type, [4:0] value
  localparam logic [7:0] AethAck = 8'h1f;         // ACK, credits "unlimited"
  localparam logic [7:0] AethRnrNak = 8'h20;      // | min_rnr_timer
  localparam logic [7:0] AethNakPsnSeq = 8'h60;
  localparam logic [7:0] AethNakInvReq = 8'h61;
  localparam logic [7:0] AethNakRemAcc = 8'h62;
  localparam logic [7:0] AethNakRemOp = 8'h63;

  // ---------------------------------------------------------------------------
  // Host formats (docs/formats.md)
  // ---------------------------------------------------------------------------
  localparam int unsigned WqeMaxBytes = 256;
  localparam int unsigned WqeBits = 8 * WqeMaxBytes;
  localparam int unsigned MaxSge = 4;
  localparam int unsigned CqeBytes = 64;

  // WQE control-segment opcodes
  localparam logic [7:0] WqeOpNop = 8'h00;
  localparam logic [7:0] WqeOpWrite = 8'h08;
  localparam logic [7:0] WqeOpWriteImm = 8'h09;
  localparam logic [7:0] WqeOpSend = 8'h0a;
  localparam logic [7:0] WqeOpSendImm = 8'h0b;
  localparam logic [7:0] WqeOpSendInv = 8'h0c;
  localparam logic [7:0] WqeOpRead = 8'h10;
  localparam logic [7:0] WqeOpCmpSwap = 8'h11;
  localparam logic [7:0] WqeOpFetchAdd = 8'h12;
  localparam logic [7:0] WqeOpLocalInv = 8'h13;
  localparam logic [7:0] WqeOpBindMw = 8'h14;

  // WQE control-segment flags
  localparam int unsigned WqeFlagSignaled = 0;
  localparam int unsigned WqeFlagSolicited = 1;
  localparam int unsigned WqeFlagFence = 2;
  localparam int unsigned WqeFlagInline = 3;
  localparam logic [31:0] InlineFlag = 32'h8000_0000;

  // Completion status: the values of enum ibv_wc_status
  localparam logic [7:0] WcSuccess = 8'd0;
  localparam logic [7:0] WcLocLenErr = 8'd1;
  localparam logic [7:0] WcLocQpOpErr = 8'd2;
  localparam logic [7:0] WcLocProtErr = 8'd4;
  localparam logic [7:0] WcWrFlushErr = 8'd5;
  localparam logic [7:0] WcBadRespErr = 8'd7;
  localparam logic [7:0] WcMwBindErr = 8'd6;
  localparam logic [7:0] WcLocAccessErr = 8'd8;
  localparam logic [7:0] WcRemInvReqErr = 8'd9;
  localparam logic [7:0] WcRemAccessErr = 8'd10;
  localparam logic [7:0] WcRemOpErr = 8'd11;
  localparam logic [7:0] WcRetryExcErr = 8'd12;
  localparam logic [7:0] WcRnrRetryExcErr = 8'd13;
  localparam logic [7:0] WcGeneralErr = 8'd21;

  // vendor_err of an error completion (not a flush): the unit that found
  // the error in bits 7:5, its detail in bits 4:0 (docs/formats.md).
  localparam logic [2:0] VendUnitReq = 3'd1;   // requester checks; detail = status
  localparam logic [2:0] VendUnitNak = 3'd2;   // NAK from the peer; detail = AETH code
  localparam logic [2:0] VendUnitCmp = 3'd3;   // completer
  localparam logic [2:0] VendUnitResp = 3'd4;  // responder; detail = status
  localparam logic [7:0] VendRetryExc = 8'h61;  // {VendUnitCmp, 1}: ACK timeouts
  localparam logic [7:0] VendRnrExc = 8'h62;    // {VendUnitCmp, 2}: RNR NAKs
  localparam logic [7:0] VendBadResp = 8'h63;   // {VendUnitCmp, 3}: response of the wrong kind

  // Completion opcode: the values of enum ibv_wc_opcode
  localparam logic [7:0] WcOpSend = 8'd0;
  localparam logic [7:0] WcOpWrite = 8'd1;
  localparam logic [7:0] WcOpRead = 8'd2;
  localparam logic [7:0] WcOpCompSwap = 8'd3;
  localparam logic [7:0] WcOpFetchAdd = 8'd4;
  localparam logic [7:0] WcOpBindMw = 8'd5;
  localparam logic [7:0] WcOpLocalInv = 8'd6;
  localparam logic [7:0] WcOpRecv = 8'd128;
  localparam logic [7:0] WcOpRecvImm = 8'd129;

  // CQE flag bits
  localparam int unsigned CqeFlagImm = 0;
  localparam int unsigned CqeFlagGrh = 1;
  localparam int unsigned CqeFlagInv = 2;
  localparam int unsigned CqeFlagSolicited = 3;

  // QP states: the values of enum ibv_qp_state
  localparam logic [2:0] QpsReset = 3'd0;
  localparam logic [2:0] QpsInit = 3'd1;
  localparam logic [2:0] QpsRtr = 3'd2;
  localparam logic [2:0] QpsRts = 3'd3;
  localparam logic [2:0] QpsSqd = 3'd4;
  localparam logic [2:0] QpsSqe = 3'd5;
  localparam logic [2:0] QpsErr = 3'd6;

  // QP types: the values of enum ibv_qp_type
  localparam logic [2:0] QptRc = 3'd2;
  localparam logic [2:0] QptUc = 3'd3;
  localparam logic [2:0] QptUd = 3'd4;

  // Memory access rights: the bits of enum ibv_access_flags
  localparam int unsigned AccLocalWrite = 0;
  localparam int unsigned AccRemoteWrite = 1;
  localparam int unsigned AccRemoteRead = 2;
  localparam int unsigned AccRemoteAtomic = 3;
  localparam int unsigned AccMwBind = 4;

  // Result of a key check (rnic_mr_check)
  localparam logic [2:0] KeyOk = 3'd0;
  localparam logic [2:0] KeyBadIndex = 3'd1;  // no such MR, or invalid
  localparam logic [2:0] KeyBadTag = 3'd2;    // key byte differs
  localparam logic [2:0] KeyBadPd = 3'd3;
  localparam logic [2:0] KeyBadAccess = 3'd4;
  localparam logic [2:0] KeyBadBounds = 3'd5;

  // DMA read tag sources (upper tag bits route the completion back)
  localparam int unsigned TagW = 8;
  localparam int unsigned TagSrcW = 3;
  localparam logic [2:0] SrcWqeFetch = 3'd0;
  localparam logic [2:0] SrcReqPayload = 3'd1;
  localparam logic [2:0] SrcRspPayload = 3'd2;
  localparam logic [2:0] SrcRespPlace = 3'd3;
  localparam logic [2:0] SrcComplPlace = 3'd4;
  localparam int unsigned NumRdSrc = 5;

  // ---------------------------------------------------------------------------
  // Contexts written by the command interface (rnic_cmd)
  // ---------------------------------------------------------------------------
  // Modify flags: what the driver asks each engine to (re)initialise.
  localparam int unsigned QpFlagResetSq = 0;
  localparam int unsigned QpFlagResetRq = 1;
  localparam int unsigned QpFlagSetSqPsn = 2;
  localparam int unsigned QpFlagSetRqPsn = 3;
  localparam int unsigned QpFlagSqdNotify = 4;  // RTS -> SQD: event once drained
  localparam int unsigned QpFlagResumeSq = 5;   // SQE -> RTS: the SQ runs again

  typedef struct packed {
    logic [2:0]  state;
    logic [2:0]  qp_type;
    logic [2:0]  pmtu;          // enum ibv_mtu: 1 = 256 ... 5 = 4096
    logic [3:0]  access;        // remote access rights (ibv_access_flags bits 1..3)
    logic [15:0] pd;
    logic [15:0] scqn;
    logic [15:0] rcqn;
    logic [23:0] dest_qpn;
    logic [7:0]  flags;
    logic [31:0] dest_ip;
    logic [47:0] dest_mac;
    logic [4:0]  sq_log_size;   // log2 of WQE slots
    logic [3:0]  sq_wqe_shift;  // log2 of WQE stride in bytes
    logic [63:0] sq_base;
    logic [63:0] rq_base;
    logic [4:0]  rq_log_size;
    logic [3:0]  rq_wqe_shift;
    logic [23:0] sq_psn;
    logic [23:0] rq_psn;
    logic [4:0]  timeout;
    logic [2:0]  retry_cnt;
    logic [2:0]  rnr_retry;
    logic [4:0]  min_rnr_timer;
    logic [3:0]  max_rd_atomic;
    logic [3:0]  max_dest_rd_atomic;
    logic [15:0] udp_sport;
    logic [31:0] qkey;          // UD
    logic [15:0] srqn;          // receives come from this SRQ when use_srq
    logic        use_srq;
  } qp_cfg_t;
  localparam int unsigned QpCfgW = 456;

  // Shared receive queue context (SRQ_WRITE)
  typedef struct packed {
    logic        valid;
    logic [4:0]  log_size;
    logic [3:0]  wqe_shift;
    logic [63:0] base;
    logic [15:0] limit;         // limit event when fewer WQEs remain (0: not armed)
  } srq_cfg_t;
  localparam int unsigned SrqCfgW = 90;

  typedef struct packed {
    logic        valid;
    logic [4:0]  log_size;
    logic [63:0] base;
    logic [63:0] dbrec;   // bus address of the consumer index (0: not checked)
  } cq_cfg_t;
  localparam int unsigned CqCfgW = 134;
  // CQ 0 is the device's event queue: asynchronous events are written there
  // as CQE-sized records (opcode EvOpcode, status = enum ibv_event_type,
  // qpn = the QP, CQ or SRQ number) and always interrupt.
  localparam logic [15:0] EvCqn = 16'd0;
  localparam logic [7:0] EvOpcode = 8'hff;

  typedef struct packed {
    logic        valid;
    logic [7:0]  key;     // low byte of lkey/rkey; the upper bits are the index
    logic [4:0]  access;  // ibv_access_flags bits 0..4 (bit 4: MW_BIND)
    logic [15:0] pd;
    logic [63:0] va;
    logic [63:0] len;
    logic [63:0] iova;    // bus address of va in the IOMMU's space
    logic        is_mw;   // a memory window: only as an rkey
    logic        mw_type2;
    logic [23:0] mw_qpn;  // type 2: the only QP that may use it
  } mr_cfg_t;
  localparam int unsigned MrCfgW = 248;

  // ---------------------------------------------------------------------------
  // Internal descriptors
  // ---------------------------------------------------------------------------
  // One packet for the TX builder.
  typedef struct packed {
    logic [23:0] qpn;       // local QP: selects the addressing (dest MAC/IP/QPN)
    logic [7:0]  opcode;
    logic [23:0] psn;
    logic        ack_req;
    logic        se;
    logic [12:0] pay_len;
    logic [63:0] reth_va;
    logic [31:0] reth_rkey;
    logic [31:0] reth_len;
    logic [31:0] imm;       // host byte order of the 4 bytes = wire order
    logic [7:0]  aeth_syn;
    logic [23:0] aeth_msn;
  } tx_desc_t;
  localparam int unsigned TxDescW = 263;


  // One frame for the TX builder: header fields, payload as up to four DMA
  // chunks (bus address, length), and trace information.
  typedef struct packed {
    logic [23:0]  qpn;        // local QP: gives dest MAC/IP/QPN and UDP port
    logic [7:0]   opcode;
    logic [23:0]  psn;
    logic         ack_req;
    logic         se;
    logic [12:0]  pay_len;
    logic [63:0]  reth_va;
    logic [31:0]  reth_rkey;
    logic [31:0]  reth_len;
    logic [31:0]  imm;
    logic [7:0]   aeth_syn;
    logic [23:0]  aeth_msn;
    logic [2:0]   nchunk;
    logic [255:0] chunk_addr; // chunk i in bits [64i+63:64i]
    logic [51:0]  chunk_len;  // chunk i in bits [13i+12:13i]
    logic         ev_first;
    logic         ev_last;
    logic [15:0]  wqe_idx;
    // AtomicETH (swap or add operand, compare operand); AtomicAckETH carries
    // the original value in atomic_swap.
    logic [63:0]  atomic_swap;
    logic [63:0]  atomic_cmp;
    // UD: DETH Q_Key, and the address handle's destination in place of the
    // QP context's (ud_en selects it). IETH travels in imm.
    logic [31:0]  qkey;
    logic         ud_en;
    logic [23:0]  ud_dqpn;
    logic [31:0]  ud_dip;
    logic [47:0]  ud_dmac;
  } txd_t;
  localparam int unsigned TxdW = 857;

  // One received, parsed and ICRC-checked packet.
  typedef struct packed {
    logic [23:0] dqpn;
    logic [7:0]  opcode;
    logic [23:0] psn;
    logic        ack_req;
    logic        se;
    logic [12:0] pay_len;
    logic [63:0] reth_va;
    logic [31:0] reth_rkey;
    logic [31:0] reth_len;
    logic [31:0] imm;
    logic [7:0]  aeth_syn;
    logic [23:0] aeth_msn;
    logic [31:0] src_ip;
    // AtomicETH operands (AtomicAckETH: original value in atomic_swap),
    // DETH. IETH arrives in imm.
    logic [63:0] atomic_swap;
    logic [63:0] atomic_cmp;
    logic [31:0] qkey;
    logic [23:0] src_qp;
  } rx_desc_t;
  localparam int unsigned RxDescW = 479;
  // RX frame slots: one being received, one in the engine, one being placed.
  localparam int unsigned RxSlots = 3;
  localparam int unsigned RxSlotW = 2;

  // A completion to be written as a CQE.
  typedef struct packed {
    logic [15:0] cqn;
    logic [23:0] qpn;
    logic [15:0] wqe_idx;
    logic [7:0]  status;
    logic [7:0]  opcode;
    logic [31:0] byte_len;
    logic [31:0] imm;
    logic [7:0]  flags;
    logic [7:0]  vendor_err;
    logic [23:0] src_qp;
  } cqe_req_t;
  localparam int unsigned CqeReqW = 176;

  // Requester -> completer: one send WQE that left (or failed to leave) the SQ.
  localparam logic [1:0] InflNormal = 2'd0;   // wait for ACK / read response
  localparam logic [1:0] InflLocalErr = 2'd1; // complete with status when at head
  localparam logic [1:0] InflFlush = 2'd2;    // complete with flush error at head
  localparam logic [1:0] InflNoAck = 2'd3;    // UC/UD: complete once its last frame left
  typedef struct packed {
    logic [23:0] qpn;
    logic [7:0]  epoch;
    logic [15:0] wqe_idx;
    logic [1:0]  kind;
    logic [7:0]  status;
    logic [7:0]  wc_op;
    logic        signaled;
    logic        is_read;
    logic [23:0] first_psn;
    logic [23:0] last_psn;
    logic [31:0] len;
  } infl_t;
  localparam int unsigned InflW = 148;

  // Retransmission: the completer rewinds a QP's send queue to the WQE that
  // holds the first PSN to send again. The requester sends that WQE again
  // from first_psn on, skipping the packets before restart_psn; hold keeps
  // the QP from fetching until a resume (RNR wait).
  typedef struct packed {
    logic [23:0] qpn;
    logic [15:0] idx;
    logic [23:0] first_psn;
    logic [23:0] restart_psn;
    logic        hold;
  } rewind_t;
  localparam int unsigned RewindW = 89;

  // Responder transmit jobs (rnic_rd_resp), in request order.
  localparam logic [1:0] JobAck = 2'd0;      // ACK or NAK (syn)
  localparam logic [1:0] JobRead = 2'd1;     // READ response stream
  localparam logic [1:0] JobAtomic = 2'd2;   // atomic ACK with the original value
  typedef struct packed {
    logic [1:0]  kind;
    logic [23:0] qpn;
    logic [23:0] psn;
    logic [7:0]  syn;
    logic [23:0] msn;
    logic [63:0] addr;    // READ: bus address of the first byte
    logic [31:0] len;     // READ: bytes
    logic [63:0] orig;    // atomic: value before the operation
    logic        dup;     // answers a duplicate: takes no responder resource
  } rsp_job_t;
  localparam int unsigned RspJobW = 243;

  // Asynchronous events: the values of enum ibv_event_type
  localparam logic [7:0] EvCqErr = 8'd0;
  localparam logic [7:0] EvQpFatal = 8'd1;
  localparam logic [7:0] EvQpReqErr = 8'd2;
  localparam logic [7:0] EvQpAccessErr = 8'd3;
  localparam logic [7:0] EvSqDrained = 8'd5;
  localparam logic [7:0] EvSrqLimit = 8'd15;
  localparam logic [7:0] EvQpLastWqe = 8'd16;

  // Transport timer commands (rnic_retry_timer)
  localparam logic [1:0] TmrStart = 2'd0;    // arm if not armed
  localparam logic [1:0] TmrRestart = 2'd1;  // arm from now
  localparam logic [1:0] TmrRnr = 2'd2;      // arm an RNR wait from now
  localparam logic [1:0] TmrStop = 2'd3;

  // Key check request (rnic_mr_check).
  typedef struct packed {
    logic [31:0] key;
    logic [15:0] pd;
    logic [63:0] va;
    logic [31:0] len;
    logic [3:0]  access;
  } mr_req_t;
  localparam int unsigned MrReqW = 148;

  // ---------------------------------------------------------------------------
  // Helpers
  // ---------------------------------------------------------------------------
  function automatic logic [12:0] mtu_bytes(input logic [2:0] pmtu);
    unique case (pmtu)
      3'd1: mtu_bytes = 13'd256;
      3'd2: mtu_bytes = 13'd512;
      3'd3: mtu_bytes = 13'd1024;
      3'd4: mtu_bytes = 13'd2048;
      default: mtu_bytes = 13'd4096;
    endcase
  endfunction

  function automatic logic [3:0] mtu_log(input logic [2:0] pmtu);
    unique case (pmtu)
      3'd1: mtu_log = 4'd8;
      3'd2: mtu_log = 4'd9;
      3'd3: mtu_log = 4'd10;
      3'd4: mtu_log = 4'd11;
      default: mtu_log = 4'd12;
    endcase
  endfunction

  // Extension header bytes that follow the BTH, by opcode. UC uses the RC
  // SEND/WRITE codes (only those are known for UC, see op_is_known).
  function automatic logic [6:0] ext_hdr_bytes(input logic [7:0] op);
    ext_hdr_bytes = 7'd0;
    if (op[7:5] == TrUd) begin
      ext_hdr_bytes = (op == OpUdSendOnlyImm) ? 7'd12 : 7'd8;           // DETH (+ ImmDt)
    end else if ((op[7:5] == TrRc) || (op[7:5] == TrUc)) begin
      unique case ({3'b000, op[4:0]})
        OpWriteFirst, OpWriteOnly, OpReadReq: ext_hdr_bytes = 7'd16;     // RETH
        OpWriteOnlyImm: ext_hdr_bytes = 7'd20;                           // RETH + ImmDt
        OpSendLastImm, OpSendOnlyImm, OpWriteLastImm: ext_hdr_bytes = 7'd4;  // ImmDt
        OpReadRespFirst, OpReadRespLast, OpReadRespOnly, OpAck: ext_hdr_bytes = 7'd4;  // AETH
        OpAtomicAck: ext_hdr_bytes = 7'd12;                              // AETH + AtomicAckETH
        OpCmpSwap, OpFetchAdd: ext_hdr_bytes = 7'd28;                    // AtomicETH
        OpSendLastInv, OpSendOnlyInv: ext_hdr_bytes = 7'd4;              // IETH
        default: ext_hdr_bytes = 7'd0;
      endcase
    end
  endfunction

  // Opcodes this RNIC understands: RC 0x00-0x14, 0x16, 0x17; UC 0x20-0x2b;
  // UD 0x64, 0x65.
  function automatic logic op_is_known(input logic [7:0] op);
    op_is_known = ((op[7:5] == TrRc) && ((op <= OpFetchAdd) || (op == OpSendLastInv) ||
                                        (op == OpSendOnlyInv))) ||
                  ((op[7:5] == TrUc) && (op[4:0] <= 5'h0b)) ||
                  (op == OpUdSendOnly) || (op == OpUdSendOnlyImm);
  endfunction

  // Responses travel to the completer, requests to the responder.
  function automatic logic op_is_response(input logic [7:0] op);
    op_is_response = (op >= OpReadRespFirst) && (op <= OpAtomicAck);
  endfunction

  function automatic logic op_has_imm(input logic [7:0] op);
    op_has_imm = (((op[7:5] == TrRc) || (op[7:5] == TrUc)) &&
                  ((op[4:0] == OpSendLastImm[4:0]) || (op[4:0] == OpSendOnlyImm[4:0]) ||
                   (op[4:0] == OpWriteLastImm[4:0]) || (op[4:0] == OpWriteOnlyImm[4:0]))) ||
                 (op == OpUdSendOnlyImm);
  endfunction

  function automatic logic op_has_reth(input logic [7:0] op);
    op_has_reth = ((op[7:5] == TrRc) || (op[7:5] == TrUc)) &&
                  ((op[4:0] == OpWriteFirst[4:0]) || (op[4:0] == OpWriteOnly[4:0]) ||
                   (op[4:0] == OpWriteOnlyImm[4:0]) || (op[4:0] == OpReadReq[4:0]));
  endfunction

  function automatic logic op_has_aeth(input logic [7:0] op);
    op_has_aeth = (op == OpReadRespFirst) || (op == OpReadRespLast) ||
                  (op == OpReadRespOnly) || (op == OpAck) || (op == OpAtomicAck);
  endfunction

  function automatic logic op_has_atomic_eth(input logic [7:0] op);
    op_has_atomic_eth = (op == OpCmpSwap) || (op == OpFetchAdd);
  endfunction

  function automatic logic op_has_ieth(input logic [7:0] op);
    op_has_ieth = (op == OpSendLastInv) || (op == OpSendOnlyInv);
  endfunction

  function automatic logic op_has_deth(input logic [7:0] op);
    op_has_deth = (op == OpUdSendOnly) || (op == OpUdSendOnlyImm);
  endfunction

  // Local ACK timeout: 4.096 us * 2^timeout, which is 1024 << timeout cycles
  // of the 250 MHz clock; 0 means no timeout.
  function automatic logic [41:0] ack_timeout_cycles(input logic [4:0] timeout);
    ack_timeout_cycles = (timeout == 5'd0) ? 42'd0 : (42'd1024 << timeout);
  endfunction

  // RNR NAK timer field (IBA table 45) in cycles of the 250 MHz clock.
  function automatic logic [41:0] rnr_cycles(input logic [4:0] t);
    unique case (t)
      5'd0: rnr_cycles = 42'd163840000;   // 655.36 ms
      5'd1: rnr_cycles = 42'd2500;        // 0.01 ms
      5'd2: rnr_cycles = 42'd5000;
      5'd3: rnr_cycles = 42'd7500;
      5'd4: rnr_cycles = 42'd10000;
      5'd5: rnr_cycles = 42'd15000;
      5'd6: rnr_cycles = 42'd20000;
      5'd7: rnr_cycles = 42'd30000;
      5'd8: rnr_cycles = 42'd40000;
      5'd9: rnr_cycles = 42'd60000;
      5'd10: rnr_cycles = 42'd80000;
      5'd11: rnr_cycles = 42'd120000;
      5'd12: rnr_cycles = 42'd160000;
      5'd13: rnr_cycles = 42'd240000;
      5'd14: rnr_cycles = 42'd320000;
      5'd15: rnr_cycles = 42'd480000;
      5'd16: rnr_cycles = 42'd640000;
      5'd17: rnr_cycles = 42'd960000;
      5'd18: rnr_cycles = 42'd1280000;
      5'd19: rnr_cycles = 42'd1920000;
      5'd20: rnr_cycles = 42'd2560000;
      5'd21: rnr_cycles = 42'd3840000;
      5'd22: rnr_cycles = 42'd5120000;
      5'd23: rnr_cycles = 42'd7680000;
      5'd24: rnr_cycles = 42'd10240000;
      5'd25: rnr_cycles = 42'd15360000;
      5'd26: rnr_cycles = 42'd20480000;
      5'd27: rnr_cycles = 42'd30720000;
      5'd28: rnr_cycles = 42'd40960000;
      5'd29: rnr_cycles = 42'd61440000;
      5'd30: rnr_cycles = 42'd81920000;
      default: rnr_cycles = 42'd122880000; // 491.52 ms
    endcase
  endfunction

  // 24-bit PSN order: a is at or after b (within half the space).
  function automatic logic psn_ge(input logic [23:0] a, input logic [23:0] b);
    logic [23:0] d;
    d = a - b;
    psn_ge = (d < 24'h800000);
  endfunction

  // CRC-32 (IEEE 802.3, reflected) byte step, table driven.
  function automatic logic [31:0] crc32_tab(input logic [7:0] i);
    unique case (i)
      8'h00: crc32_tab = 32'h00000000;
      8'h01: crc32_tab = 32'h77073096;
      8'h02: crc32_tab = 32'hee0e612c;
      8'h03: crc32_tab = 32'h990951ba;
      8'h04: crc32_tab = 32'h076dc419;
      8'h05: crc32_tab = 32'h706af48f;
      8'h06: crc32_tab = 32'he963a535;
      8'h07: crc32_tab = 32'h9e6495a3;
      8'h08: crc32_tab = 32'h0edb8832;
      8'h09: crc32_tab = 32'h79dcb8a4;
      8'h0a: crc32_tab = 32'he0d5e91e;
      8'h0b: crc32_tab = 32'h97d2d988;
      8'h0c: crc32_tab = 32'h09b64c2b;
      8'h0d: crc32_tab = 32'h7eb17cbd;
      8'h0e: crc32_tab = 32'he7b82d07;
      8'h0f: crc32_tab = 32'h90bf1d91;
      8'h10: crc32_tab = 32'h1db71064;
      8'h11: crc32_tab = 32'h6ab020f2;
      8'h12: crc32_tab = 32'hf3b97148;
      8'h13: crc32_tab = 32'h84be41de;
      8'h14: crc32_tab = 32'h1adad47d;
      8'h15: crc32_tab = 32'h6ddde4eb;
      8'h16: crc32_tab = 32'hf4d4b551;
      8'h17: crc32_tab = 32'h83d385c7;
      8'h18: crc32_tab = 32'h136c9856;
      8'h19: crc32_tab = 32'h646ba8c0;
      8'h1a: crc32_tab = 32'hfd62f97a;
      8'h1b: crc32_tab = 32'h8a65c9ec;
      8'h1c: crc32_tab = 32'h14015c4f;
      8'h1d: crc32_tab = 32'h63066cd9;
      8'h1e: crc32_tab = 32'hfa0f3d63;
      8'h1f: crc32_tab = 32'h8d080df5;
      8'h20: crc32_tab = 32'h3b6e20c8;
      8'h21: crc32_tab = 32'h4c69105e;
      8'h22: crc32_tab = 32'hd56041e4;
      8'h23: crc32_tab = 32'ha2677172;
      8'h24: crc32_tab = 32'h3c03e4d1;
      8'h25: crc32_tab = 32'h4b04d447;
      8'h26: crc32_tab = 32'hd20d85fd;
      8'h27: crc32_tab = 32'ha50ab56b;
      8'h28: crc32_tab = 32'h35b5a8fa;
      8'h29: crc32_tab = 32'h42b2986c;
      8'h2a: crc32_tab = 32'hdbbbc9d6;
      8'h2b: crc32_tab = 32'hacbcf940;
      8'h2c: crc32_tab = 32'h32d86ce3;
      8'h2d: crc32_tab = 32'h45df5c75;
      8'h2e: crc32_tab = 32'hdcd60dcf;
      8'h2f: crc32_tab = 32'habd13d59;
      8'h30: crc32_tab = 32'h26d930ac;
      8'h31: crc32_tab = 32'h51de003a;
      8'h32: crc32_tab = 32'hc8d75180;
      8'h33: crc32_tab = 32'hbfd06116;
      8'h34: crc32_tab = 32'h21b4f4b5;
      8'h35: crc32_tab = 32'h56b3c423;
      8'h36: crc32_tab = 32'hcfba9599;
      8'h37: crc32_tab = 32'hb8bda50f;
      8'h38: crc32_tab = 32'h2802b89e;
      8'h39: crc32_tab = 32'h5f058808;
      8'h3a: crc32_tab = 32'hc60cd9b2;
      8'h3b: crc32_tab = 32'hb10be924;
      8'h3c: crc32_tab = 32'h2f6f7c87;
      8'h3d: crc32_tab = 32'h58684c11;
      8'h3e: crc32_tab = 32'hc1611dab;
      8'h3f: crc32_tab = 32'hb6662d3d;
      8'h40: crc32_tab = 32'h76dc4190;
      8'h41: crc32_tab = 32'h01db7106;
      8'h42: crc32_tab = 32'h98d220bc;
      8'h43: crc32_tab = 32'hefd5102a;
      8'h44: crc32_tab = 32'h71b18589;
      8'h45: crc32_tab = 32'h06b6b51f;
      8'h46: crc32_tab = 32'h9fbfe4a5;
      8'h47: crc32_tab = 32'he8b8d433;
      8'h48: crc32_tab = 32'h7807c9a2;
      8'h49: crc32_tab = 32'h0f00f934;
      8'h4a: crc32_tab = 32'h9609a88e;
      8'h4b: crc32_tab = 32'he10e9818;
      8'h4c: crc32_tab = 32'h7f6a0dbb;
      8'h4d: crc32_tab = 32'h086d3d2d;
      8'h4e: crc32_tab = 32'h91646c97;
      8'h4f: crc32_tab = 32'he6635c01;
      8'h50: crc32_tab = 32'h6b6b51f4;
      8'h51: crc32_tab = 32'h1c6c6162;
      8'h52: crc32_tab = 32'h856530d8;
      8'h53: crc32_tab = 32'hf262004e;
      8'h54: crc32_tab = 32'h6c0695ed;
      8'h55: crc32_tab = 32'h1b01a57b;
      8'h56: crc32_tab = 32'h8208f4c1;
      8'h57: crc32_tab = 32'hf50fc457;
      8'h58: crc32_tab = 32'h65b0d9c6;
      8'h59: crc32_tab = 32'h12b7e950;
      8'h5a: crc32_tab = 32'h8bbeb8ea;
      8'h5b: crc32_tab = 32'hfcb9887c;
      8'h5c: crc32_tab = 32'h62dd1ddf;
      8'h5d: crc32_tab = 32'h15da2d49;
      8'h5e: crc32_tab = 32'h8cd37cf3;
      8'h5f: crc32_tab = 32'hfbd44c65;
      8'h60: crc32_tab = 32'h4db26158;
      8'h61: crc32_tab = 32'h3ab551ce;
      8'h62: crc32_tab = 32'ha3bc0074;
      8'h63: crc32_tab = 32'hd4bb30e2;
      8'h64: crc32_tab = 32'h4adfa541;
      8'h65: crc32_tab = 32'h3dd895d7;
      8'h66: crc32_tab = 32'ha4d1c46d;
      8'h67: crc32_tab = 32'hd3d6f4fb;
      8'h68: crc32_tab = 32'h4369e96a;
      8'h69: crc32_tab = 32'h346ed9fc;
      8'h6a: crc32_tab = 32'had678846;
      8'h6b: crc32_tab = 32'hda60b8d0;
      8'h6c: crc32_tab = 32'h44042d73;
      8'h6d: crc32_tab = 32'h33031de5;
      8'h6e: crc32_tab = 32'haa0a4c5f;
      8'h6f: crc32_tab = 32'hdd0d7cc9;
      8'h70: crc32_tab = 32'h5005713c;
      8'h71: crc32_tab = 32'h270241aa;
      8'h72: crc32_tab = 32'hbe0b1010;
      8'h73: crc32_tab = 32'hc90c2086;
      8'h74: crc32_tab = 32'h5768b525;
      8'h75: crc32_tab = 32'h206f85b3;
      8'h76: crc32_tab = 32'hb966d409;
      8'h77: crc32_tab = 32'hce61e49f;
      8'h78: crc32_tab = 32'h5edef90e;
      8'h79: crc32_tab = 32'h29d9c998;
      8'h7a: crc32_tab = 32'hb0d09822;
      8'h7b: crc32_tab = 32'hc7d7a8b4;
      8'h7c: crc32_tab = 32'h59b33d17;
      8'h7d: crc32_tab = 32'h2eb40d81;
      8'h7e: crc32_tab = 32'hb7bd5c3b;
      8'h7f: crc32_tab = 32'hc0ba6cad;
      8'h80: crc32_tab = 32'hedb88320;
      8'h81: crc32_tab = 32'h9abfb3b6;
      8'h82: crc32_tab = 32'h03b6e20c;
      8'h83: crc32_tab = 32'h74b1d29a;
      8'h84: crc32_tab = 32'head54739;
      8'h85: crc32_tab = 32'h9dd277af;
      8'h86: crc32_tab = 32'h04db2615;
      8'h87: crc32_tab = 32'h73dc1683;
      8'h88: crc32_tab = 32'he3630b12;
      8'h89: crc32_tab = 32'h94643b84;
      8'h8a: crc32_tab = 32'h0d6d6a3e;
      8'h8b: crc32_tab = 32'h7a6a5aa8;
      8'h8c: crc32_tab = 32'he40ecf0b;
      8'h8d: crc32_tab = 32'h9309ff9d;
      8'h8e: crc32_tab = 32'h0a00ae27;
      8'h8f: crc32_tab = 32'h7d079eb1;
      8'h90: crc32_tab = 32'hf00f9344;
      8'h91: crc32_tab = 32'h8708a3d2;
      8'h92: crc32_tab = 32'h1e01f268;
      8'h93: crc32_tab = 32'h6906c2fe;
      8'h94: crc32_tab = 32'hf762575d;
      8'h95: crc32_tab = 32'h806567cb;
      8'h96: crc32_tab = 32'h196c3671;
      8'h97: crc32_tab = 32'h6e6b06e7;
      8'h98: crc32_tab = 32'hfed41b76;
      8'h99: crc32_tab = 32'h89d32be0;
      8'h9a: crc32_tab = 32'h10da7a5a;
      8'h9b: crc32_tab = 32'h67dd4acc;
      8'h9c: crc32_tab = 32'hf9b9df6f;
      8'h9d: crc32_tab = 32'h8ebeeff9;
      8'h9e: crc32_tab = 32'h17b7be43;
      8'h9f: crc32_tab = 32'h60b08ed5;
      8'ha0: crc32_tab = 32'hd6d6a3e8;
      8'ha1: crc32_tab = 32'ha1d1937e;
      8'ha2: crc32_tab = 32'h38d8c2c4;
      8'ha3: crc32_tab = 32'h4fdff252;
      8'ha4: crc32_tab = 32'hd1bb67f1;
      8'ha5: crc32_tab = 32'ha6bc5767;
      8'ha6: crc32_tab = 32'h3fb506dd;
      8'ha7: crc32_tab = 32'h48b2364b;
      8'ha8: crc32_tab = 32'hd80d2bda;
      8'ha9: crc32_tab = 32'haf0a1b4c;
      8'haa: crc32_tab = 32'h36034af6;
      8'hab: crc32_tab = 32'h41047a60;
      8'hac: crc32_tab = 32'hdf60efc3;
      8'had: crc32_tab = 32'ha867df55;
      8'hae: crc32_tab = 32'h316e8eef;
      8'haf: crc32_tab = 32'h4669be79;
      8'hb0: crc32_tab = 32'hcb61b38c;
      8'hb1: crc32_tab = 32'hbc66831a;
      8'hb2: crc32_tab = 32'h256fd2a0;
      8'hb3: crc32_tab = 32'h5268e236;
      8'hb4: crc32_tab = 32'hcc0c7795;
      8'hb5: crc32_tab = 32'hbb0b4703;
      8'hb6: crc32_tab = 32'h220216b9;
      8'hb7: crc32_tab = 32'h5505262f;
      8'hb8: crc32_tab = 32'hc5ba3bbe;
      8'hb9: crc32_tab = 32'hb2bd0b28;
      8'hba: crc32_tab = 32'h2bb45a92;
      8'hbb: crc32_tab = 32'h5cb36a04;
      8'hbc: crc32_tab = 32'hc2d7ffa7;
      8'hbd: crc32_tab = 32'hb5d0cf31;
      8'hbe: crc32_tab = 32'h2cd99e8b;
      8'hbf: crc32_tab = 32'h5bdeae1d;
      8'hc0: crc32_tab = 32'h9b64c2b0;
      8'hc1: crc32_tab = 32'hec63f226;
      8'hc2: crc32_tab = 32'h756aa39c;
      8'hc3: crc32_tab = 32'h026d930a;
      8'hc4: crc32_tab = 32'h9c0906a9;
      8'hc5: crc32_tab = 32'heb0e363f;
      8'hc6: crc32_tab = 32'h72076785;
      8'hc7: crc32_tab = 32'h05005713;
      8'hc8: crc32_tab = 32'h95bf4a82;
      8'hc9: crc32_tab = 32'he2b87a14;
      8'hca: crc32_tab = 32'h7bb12bae;
      8'hcb: crc32_tab = 32'h0cb61b38;
      8'hcc: crc32_tab = 32'h92d28e9b;
      8'hcd: crc32_tab = 32'he5d5be0d;
      8'hce: crc32_tab = 32'h7cdcefb7;
      8'hcf: crc32_tab = 32'h0bdbdf21;
      8'hd0: crc32_tab = 32'h86d3d2d4;
      8'hd1: crc32_tab = 32'hf1d4e242;
      8'hd2: crc32_tab = 32'h68ddb3f8;
      8'hd3: crc32_tab = 32'h1fda836e;
      8'hd4: crc32_tab = 32'h81be16cd;
      8'hd5: crc32_tab = 32'hf6b9265b;
      8'hd6: crc32_tab = 32'h6fb077e1;
      8'hd7: crc32_tab = 32'h18b74777;
      8'hd8: crc32_tab = 32'h88085ae6;
      8'hd9: crc32_tab = 32'hff0f6a70;
      8'hda: crc32_tab = 32'h66063bca;
      8'hdb: crc32_tab = 32'h11010b5c;
      8'hdc: crc32_tab = 32'h8f659eff;
      8'hdd: crc32_tab = 32'hf862ae69;
      8'hde: crc32_tab = 32'h616bffd3;
      8'hdf: crc32_tab = 32'h166ccf45;
      8'he0: crc32_tab = 32'ha00ae278;
      8'he1: crc32_tab = 32'hd70dd2ee;
      8'he2: crc32_tab = 32'h4e048354;
      8'he3: crc32_tab = 32'h3903b3c2;
      8'he4: crc32_tab = 32'ha7672661;
      8'he5: crc32_tab = 32'hd06016f7;
      8'he6: crc32_tab = 32'h4969474d;
      8'he7: crc32_tab = 32'h3e6e77db;
      8'he8: crc32_tab = 32'haed16a4a;
      8'he9: crc32_tab = 32'hd9d65adc;
      8'hea: crc32_tab = 32'h40df0b66;
      8'heb: crc32_tab = 32'h37d83bf0;
      8'hec: crc32_tab = 32'ha9bcae53;
      8'hed: crc32_tab = 32'hdebb9ec5;
      8'hee: crc32_tab = 32'h47b2cf7f;
      8'hef: crc32_tab = 32'h30b5ffe9;
      8'hf0: crc32_tab = 32'hbdbdf21c;
      8'hf1: crc32_tab = 32'hcabac28a;
      8'hf2: crc32_tab = 32'h53b39330;
      8'hf3: crc32_tab = 32'h24b4a3a6;
      8'hf4: crc32_tab = 32'hbad03605;
      8'hf5: crc32_tab = 32'hcdd70693;
      8'hf6: crc32_tab = 32'h54de5729;
      8'hf7: crc32_tab = 32'h23d967bf;
      8'hf8: crc32_tab = 32'hb3667a2e;
      8'hf9: crc32_tab = 32'hc4614ab8;
      8'hfa: crc32_tab = 32'h5d681b02;
      8'hfb: crc32_tab = 32'h2a6f2b94;
      8'hfc: crc32_tab = 32'hb40bbe37;
      8'hfd: crc32_tab = 32'hc30c8ea1;
      8'hfe: crc32_tab = 32'h5a05df1b;
      8'hff: crc32_tab = 32'h2d02ef8d;
      default: crc32_tab = 32'h0;
    endcase
  endfunction

  function automatic logic [31:0] crc32_byte(input logic [31:0] c, input logic [7:0] b);
    crc32_byte = crc32_tab(c[7:0] ^ b) ^ {8'h00, c[31:8]};
  endfunction

  // CRC state after 8 bytes of 0xff (the masked LRH of the ICRC).
  localparam logic [31:0] IcrcSeed = 32'hdebb20e3;

endpackage
/* verilator lint_on UNUSEDPARAM */
