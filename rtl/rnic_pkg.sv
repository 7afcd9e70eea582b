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
  // Placement segments per packet: MaxSge, and one more for a UD receive
  // whose GRH area and payload share an SGE (each part is its own segment).
  localparam int unsigned MaxSeg = MaxSge + 1;
  // WQEs the transport engine reads for their scatter lists (rnic_rwqe_cache):
  // a receive WQE's 16-byte header and MaxSge SGEs (RwqeRqBytes); a READ's
  // send WQE with its two segments before the SGEs (RwqeBytes, what an entry
  // keeps; an atomic's has three and one SGE). The cache's tag is {kind,
  // QP or SRQ number, WQE index}.
  localparam int unsigned RwqeRqBytes = 16 * (1 + MaxSge);
  localparam int unsigned RwqeBytes = 16 * (2 + MaxSge);
  localparam int unsigned RwqeBits = 8 * RwqeBytes;
  localparam int unsigned RwqeKeyW = 2 + 24 + 16;
  localparam logic [1:0] RwqeRq = 2'd0;
  localparam logic [1:0] RwqeSrq = 2'd1;
  localparam logic [1:0] RwqeSq = 2'd2;
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

  // Atomics the engine hands to rnic_atomic_unit, in arrival order.
  typedef struct packed {
    logic [23:0] qpn;
    logic [23:0] psn;
    logic [23:0] msn;     // the QP's MSN before this request
    logic [63:0] addr;    // bus address of the 8 bytes (8-byte aligned)
    logic [63:0] swap;    // CMP_SWAP: the swap value; FETCH_ADD: the addend
    logic [63:0] cmp;     // CMP_SWAP: the compare value
    logic        cas;     // CMP_SWAP (else FETCH_ADD)
    logic        dup;     // a duplicate: answered from the results kept
  } at_op_t;
  localparam int unsigned AtOpW = 266;

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

  // CRC state after 8 bytes of 0xff (the masked LRH of the ICRC).
  localparam logic [31:0] IcrcSeed = 32'hdebb20e3;
  // CRC state after the covered bytes and then the ICRC itself (the complement
  // of the state before it, least significant byte first): a constant, the
  // CRC-32 residue, exactly when the ICRC matches. A receiver runs the CRC on
  // through the ICRC and compares with this, as a MAC checks its FCS.
  localparam logic [31:0] IcrcResidue = 32'hdebb20e3;

  // The CRC state that reaches c after n zero bytes (run backwards: a step's
  // bit 31 says whether the reflected polynomial was added). Elaboration only.
  function automatic logic [31:0] crc32_unshift(input logic [31:0] c, input int n);
    crc32_unshift = c;
    for (int i = 0; i < 8 * n; i++) begin
      crc32_unshift = crc32_unshift[31] ? (((crc32_unshift ^ 32'hedb88320) << 1) | 32'd1)
                                        : (crc32_unshift << 1);
    end
  endfunction

  // Byte order reversal: wire bytes (byte 0 in the low bits of a header
  // vector) to a big-endian field value, and back.
  function automatic logic [15:0] bswap16(input logic [15:0] x);
    bswap16 = {x[7:0], x[15:8]};
  endfunction
  function automatic logic [23:0] bswap24(input logic [23:0] x);
    bswap24 = {x[7:0], x[15:8], x[23:16]};
  endfunction
  function automatic logic [31:0] bswap32(input logic [31:0] x);
    bswap32 = {x[7:0], x[15:8], x[23:16], x[31:24]};
  endfunction
  function automatic logic [47:0] bswap48(input logic [47:0] x);
    bswap48 = {x[7:0], x[15:8], x[23:16], x[31:24], x[39:32], x[47:40]};
  endfunction
  function automatic logic [63:0] bswap64(input logic [63:0] x);
    bswap64 = {bswap32(x[31:0]), bswap32(x[63:32])};
  endfunction

endpackage
/* verilator lint_on UNUSEDPARAM */
