// rnic_crc32_beat: next state of a CRC-32 (IEEE 802.3, reflected, the ICRC's
// and the FCS's) over one datapath beat, word-parallel.
//
// The bytes that go in are lanes 0 .. len_i-1 of data_i (lane i is
// data_i[8i+7:8i], the order on the wire); the lanes at and above len_i are
// ignored. This is the byte-valid mask of a packed stream beat (contiguous from
// lane 0) in count form; len_i == 0 leaves the state as it is.
//
// As a 100G MAC computes it: the CRC is linear over GF(2), so a full beat is
// one XOR matrix over {state, data} (each output bit is the parity of a fixed
// subset of the 32 + DataW input bits). A partial beat of n bytes is the full
// matrix over the data with lanes n.. zeroed, followed by the inverse of
// Bytes - n zero-byte steps: a zero byte only shifts the state, and the shift
// is invertible because the polynomial has a constant term. The inverse is a
// chain of fixed 32x32 matrices (undo 1, 2, 4, ... zero bytes), each taken or
// bypassed by a bit of Bytes - n. The matrices are constants computed at
// elaboration by the functions below from the bit-serial definition.
module rnic_crc32_beat #(
  parameter int unsigned DataW = 256,  // a multiple of 32
  localparam int unsigned Bytes = DataW / 8,
  localparam int unsigned LenW = $clog2(Bytes + 1),
  localparam int unsigned NStage = $clog2(Bytes)
) (
  input  logic [31:0]      crc_i,
  input  logic [DataW-1:0] data_i,
  input  logic [LenW-1:0]  len_i,
  output logic [31:0]      crc_o
);
  localparam logic [31:0] Poly = 32'hedb88320;

  // The functions below build constant matrices at elaboration; nothing of
  // them runs in simulation, so coverage leaves them out.
  /* verilator coverage_off */

  // One bit step of the reflected CRC with no data, and its inverse (Poly[31]
  // is set and the shifted state's bit 31 is clear, so bit 31 tells which).
  function automatic logic [31:0] bit_step(input logic [31:0] c);
    bit_step = c[0] ? ((c >> 1) ^ Poly) : (c >> 1);
  endfunction
  function automatic logic [31:0] bit_unstep(input logic [31:0] c);
    bit_unstep = c[31] ? (((c ^ Poly) << 1) | 32'd1) : (c << 1);
  endfunction

  // The matrices are built column by column (the state the CRC reaches from
  // one input bit) and stored by rows, a row written whole: bit j of row k is
  // output bit k's dependence on input bit j.

  // Rows of a 32x32 matrix from its columns (column j at [32j +: 32]).
  function automatic logic [32*32-1:0] transpose32(input logic [32*32-1:0] cols);
    logic [31:0] row;
    transpose32 = '0;
    for (int k = 0; k < 32; k++) begin
      for (int j = 0; j < 32; j++) row[j] = cols[32*j + k];
      transpose32[32*k +: 32] = row;
    end
  endfunction

  // The state after Bytes zero bytes; row k at [32k +: 32].
  function automatic logic [32*32-1:0] state_matrix();
    logic [32*32-1:0] cols;
    logic [31:0] c;
    for (int j = 0; j < 32; j++) begin
      c = 32'd1 << j;
      for (int s = 0; s < 8 * Bytes; s++) c = bit_step(c);
      cols[32*j +: 32] = c;
    end
    state_matrix = transpose32(cols);
  endfunction

  // The data's share; row k at [DataW*k +: DataW]. Data bit b of lane i
  // enters the state, then goes through the Bytes - 1 - i bytes after it.
  function automatic logic [32*DataW-1:0] data_matrix();
    logic [32*DataW-1:0] cols;
    logic [DataW-1:0] row;
    logic [31:0] c;
    for (int b = 0; b < 8; b++) begin
      c = 32'd1 << b;
      for (int s = 0; s < 8; s++) c = bit_step(c);
      for (int i = Bytes - 1; i >= 0; i--) begin
        cols[32*(8*i + b) +: 32] = c;
        for (int s = 0; s < 8; s++) c = bit_step(c);
      end
    end
    for (int k = 0; k < 32; k++) begin
      for (int j = 0; j < DataW; j++) row[j] = cols[32*j + k];
      data_matrix[DataW*k +: DataW] = row;
    end
  endfunction

  // Undo 2^j zero bytes, j = 0 .. NStage - 1: matrix j at [1024j +: 1024].
  function automatic logic [32*32*NStage-1:0] unshift_matrices();
    logic [32*32-1:0] cols;
    for (int j = 0; j < NStage; j++) begin
      for (int i = 0; i < 32; i++) begin
        cols[32*i +: 32] = 32'd1 << i;
        for (int s = 0; s < 8 * (1 << j); s++) cols[32*i +: 32] = bit_unstep(cols[32*i +: 32]);
      end
      unshift_matrices[1024*j +: 1024] = transpose32(cols);
    end
  endfunction

  /* verilator coverage_on */

  localparam logic [32*32-1:0] SMat = state_matrix();
  localparam logic [32*DataW-1:0] DMat = data_matrix();
  localparam logic [32*32*NStage-1:0] UMat = unshift_matrices();

  // The full-beat matrix: row k is the parity of the selected bits of
  // {state, data}, folded 32 bits at a time.
  function automatic logic [31:0] beat_next(input logic [31:0] c, input logic [DataW-1:0] d);
    logic [31:0] acc;
    for (int k = 0; k < 32; k++) begin
      acc = c & SMat[32*k +: 32];
      for (int w = 0; w < DataW / 32; w++) begin
        acc = acc ^ (d[32*w +: 32] & DMat[DataW*k + 32*w +: 32]);
      end
      beat_next[k] = ^acc;
    end
  endfunction

  // Undoes m zero bytes (m below 2^NStage): the fixed matrix of each set bit.
  function automatic logic [31:0] unshift(input logic [31:0] c, input logic [LenW-1:0] m);
    logic [31:0] y;
    unshift = c;
    for (int j = 0; j < NStage; j++) begin
      if (m[j]) begin
        for (int k = 0; k < 32; k++) y[k] = ^(unshift & UMat[1024*j + 32*k +: 32]);
        unshift = y;
      end
    end
  endfunction

  always_comb begin
    crc_o = crc_i;
    if (len_i >= LenW'(Bytes)) begin
      crc_o = beat_next(crc_i, data_i);
    end else if (len_i != '0) begin
      // Lanes past the valid bytes go in as zero bytes, then are undone.
      crc_o = unshift(beat_next(crc_i, data_i & ~({DataW{1'b1}} << {len_i, 3'b000})),
                      LenW'(Bytes) - len_i);
    end
  end
endmodule
