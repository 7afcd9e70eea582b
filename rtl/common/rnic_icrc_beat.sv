// rnic_icrc_beat: the ICRC's CRC over one beat of a RoCEv2 frame, for the
// sender (which appends it) and the receiver (which checks it).
//
// The ICRC covers the frame from the IPv4 header (byte 14) on, with the
// variant fields seen as 0xff (IPv4 TOS, TTL and header checksum, UDP
// checksum, BTH resv8a); the 8 bytes of 0xff of the masked LRH are in the
// seed. This beat is word word_i of the frame (bytes Bytes*word_i ..); the
// bytes from 14 up to end_i go in. crc_i is the state after the beats before,
// which must be rnic_pkg::IcrcSeed until a byte has gone in (the state of a
// new frame). valid_i low (or no byte to take) passes crc_i through and costs
// nothing else.
//
// The beat that holds byte 14 starts from a constant: the state that reaches
// the seed after 14 % Bytes zero bytes, with the lanes below byte 14 zeroed.
// Every beat then is a run of bytes from lane 0, one rnic_crc32_beat.
module rnic_icrc_beat #(
  parameter int unsigned DataW = 256,
  localparam int unsigned Bytes = DataW / 8,
  localparam int unsigned LenW = $clog2(Bytes + 1)
) (
  input  logic             valid_i,
  input  logic [15:0]      word_i,
  input  logic [16:0]      end_i,
  input  logic [31:0]      crc_i,
  input  logic [DataW-1:0] data_i,
  output logic [31:0]      crc_o
);
  localparam int unsigned StartWord = 14 / Bytes;
  localparam int unsigned StartLane = 14 % Bytes;
  localparam logic [31:0] StartCrc = rnic_pkg::crc32_unshift(rnic_pkg::IcrcSeed, StartLane);
  localparam logic [DataW-1:0] StartMask = ~((DataW'(1) << (8 * StartLane)) - DataW'(1));

  logic [16:0] base, first;
  logic [31:0] crc;
  logic [DataW-1:0] data;
  logic [LenW-1:0] len;

  // Masks byte p of the frame (a variant field) if this beat holds it.
  function automatic logic [DataW-1:0] mask_ff(input logic [DataW-1:0] d,
                                               input logic [15:0] w, input int unsigned p);
    mask_ff = d;
    if (w == 16'(p / Bytes)) mask_ff[8*(p % Bytes) +: 8] = 8'hff;
  endfunction

  always_comb begin
    base = '0;
    first = '0;
    crc = crc_i;
    data = '0;
    len = '0;
    if (valid_i) begin
      base = {1'b0, word_i} * 17'(Bytes);
      first = (base < 17'd14) ? 17'd14 : base;
    end
    if (valid_i && (end_i > first) && (first < base + 17'(Bytes))) begin
      len = (end_i - base >= 17'(Bytes)) ? LenW'(Bytes) : LenW'(end_i - base);
      data = data_i;
      if (word_i == 16'(StartWord)) begin
        crc = StartCrc;
        data = data & StartMask;
      end
      if (word_i < 16'(47 / Bytes + 1)) begin
        data = mask_ff(data, word_i, 15);  // IPv4 TOS (DSCP, ECN)
        data = mask_ff(data, word_i, 22);  // IPv4 TTL
        data = mask_ff(data, word_i, 24);  // IPv4 header checksum
        data = mask_ff(data, word_i, 25);
        data = mask_ff(data, word_i, 40);  // UDP checksum
        data = mask_ff(data, word_i, 41);
        data = mask_ff(data, word_i, 46);  // BTH resv8a
      end
    end
  end

  rnic_crc32_beat #(.DataW(DataW)) u_crc (
    .crc_i(crc), .data_i(data), .len_i(len), .crc_o(crc_o)
  );
endmodule
