// rnic_top: the RNIC. See docs/architecture.md for the blocks and docs/interfaces.md
// for the ports.
module rnic_top #(
  parameter int unsigned DataW = 256,
  parameter int unsigned NQp = 1024,
  parameter int unsigned NCq = 1024,
  parameter int unsigned NMr = 1024,
  parameter int unsigned MaxRdOut = 32,
  localparam int unsigned Bytes = DataW / 8
) (
  input  logic                clk_i,
  input  logic                rst_ni,
  // MMIO slave
  input  logic                mmio_valid_i,
  output logic                mmio_ready_o,
  input  logic                mmio_we_i,
  input  logic [15:0]         mmio_addr_i,
  input  logic [63:0]         mmio_wdata_i,
  output logic                mmio_rvalid_o,
  output logic [63:0]         mmio_rdata_o,
  // DMA read
  output logic                dma_rd_req_valid_o,
  input  logic                dma_rd_req_ready_i,
  output logic [63:0]         dma_rd_req_addr_o,
  output logic [15:0]         dma_rd_req_len_o,
  output logic [7:0]          dma_rd_req_tag_o,
  input  logic                dma_rd_rsp_valid_i,
  output logic                dma_rd_rsp_ready_o,
  input  logic [DataW-1:0]    dma_rd_rsp_data_i,
  input  logic [7:0]          dma_rd_rsp_tag_i,
  input  logic                dma_rd_rsp_last_i,
  input  logic                dma_rd_rsp_err_i,
  // DMA write
  output logic                dma_wr_valid_o,
  input  logic                dma_wr_ready_i,
  output logic [63:0]         dma_wr_addr_o,
  output logic [15:0]         dma_wr_len_o,
  output logic [DataW-1:0]    dma_wr_data_o,
  output logic                dma_wr_last_o,
  // Network
  output logic                tx_valid_o,
  input  logic                tx_ready_i,
  output logic [DataW-1:0]    tx_data_o,
  output logic [Bytes-1:0]    tx_keep_o,
  output logic                tx_last_o,
  input  logic                rx_valid_i,
  output logic                rx_ready_o,
  input  logic [DataW-1:0]    rx_data_i,
  input  logic [Bytes-1:0]    rx_keep_i,
  input  logic                rx_last_i,
  // Interrupt and trace events
  output logic                irq_valid_o,
  output logic [15:0]         irq_cqn_o,
  output logic [4:0]          ev_valid_o,
  output logic [5*24-1:0]     ev_qpn_o,
  output logic [5*16-1:0]     ev_idx_o
);
endmodule
