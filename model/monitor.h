/* SPDX-License-Identifier: MIT */
/*
 * monitor.h - what the model observes at the RTL's ports, for the per-WR
 * timeline and the per-link packet captures. Internal to the model.
 *
 * The RTL reports five trace events (WQE fetched, first/last packet to TX,
 * send/receive CQE written). The rest of a WR's life is seen at the ports:
 * the doorbell write the RTL takes on its MMIO port, the TX builder's payload
 * reads on the DMA read port (tag source 1), and the frames on each node's TX
 * and RX ports, parsed down to Ethernet/IPv4/UDP 4791/BTH (and the AETH
 * syndrome and the payload length). A frame is attributed to a send WQE by
 * the RTL's TX event that fires on its first beat; the peer's RX finds it
 * again by (destination node, destination QPN, PSN). The payload reads
 * before a frame are the ones whose lengths add up to its payload.
 */
#ifndef RNIC_MONITOR_H
#define RNIC_MONITOR_H

#include <cstdint>
#include <cstdio>
#include <deque>
#include <unordered_map>
#include <vector>

#include "rnic_model.h"
#include "sim_util.h"

#include <type_traits>
#include <utility>

#include "Vrnic_top.h"

namespace rnic {

/* Doorbell registers (docs/formats.md). */
constexpr uint32_t kRegSqDb = 0x1000;
constexpr uint32_t kRegRqDb = 0x1008;

/* An event for the event callback; kind 0xff marks an interrupt. */
struct sim_event {
	uint64_t cycle;
	uint32_t qpn;	/* CQN for an interrupt */
	uint32_t idx;
	uint8_t node;
	uint8_t kind;
};

/* The RTL ports the monitor watches, with one edge's settled values: taken
 * from the model, or kept for later (a batch, sim.cpp). */
#define RNIC_MON_PORTS(X) \
	X(dma_rd_req_len_o) \
	X(dma_rd_req_ready_i) \
	X(dma_rd_req_tag_o) \
	X(dma_rd_req_valid_o) \
	X(dma_rd_rsp_last_i) \
	X(dma_rd_rsp_ready_o) \
	X(dma_rd_rsp_tag_i) \
	X(dma_rd_rsp_valid_i) \
	X(ev_idx_o) \
	X(ev_place_o) \
	X(ev_place_pos_o) \
	X(ev_place_psn_o) \
	X(ev_place_qpn_o) \
	X(ev_qpn_o) \
	X(ev_valid_o) \
	X(mmio_addr_i) \
	X(mmio_ready_o) \
	X(mmio_valid_i) \
	X(mmio_wdata_i) \
	X(mmio_we_i) \
	X(rx_data_i) \
	X(rx_keep_i) \
	X(rx_last_i) \
	X(rx_ready_o) \
	X(rx_valid_i) \
	X(tx_data_o) \
	X(tx_keep_o) \
	X(tx_last_o) \
	X(tx_ready_i) \
	X(tx_valid_o)
struct mon_ports {
#define RNIC_MON_FIELD(f) \
	std::remove_cv_t<std::remove_reference_t<decltype(std::declval<Vrnic_top &>().f)>> f;
	RNIC_MON_PORTS(RNIC_MON_FIELD)
#undef RNIC_MON_FIELD
	void take(const Vrnic_top &t)
	{
#define RNIC_MON_COPY(f) f = t.f;
		RNIC_MON_PORTS(RNIC_MON_COPY)
#undef RNIC_MON_COPY
	}
};

class monitor {
public:
	explicit monitor(unsigned nodes) : n_(nodes) {}
	~monitor();

	/* Frame and doorbell observation for events (while a callback is set). */
	void set_events(bool on)
	{
		events_ = on;
		update();
	}
	/* Whether sample() has anything to do. */
	bool active() const { return active_; }
	/* Edge @cycle of @node, on the settled values of that edge. */
	void sample(unsigned node, const mon_ports &t, uint64_t cycle,
		    std::vector<sim_event> &out);

	int pcap_open(unsigned node, const char *path);
	void pcap_close(unsigned node);

private:
	/* Header fields of a RoCEv2 frame. */
	struct roce {
		uint32_t sip, dip;
		uint32_t dqpn, psn;
		uint8_t op;
		uint8_t syn;	/* AETH syndrome, if the opcode has an AETH */
		uint32_t payload;	/* payload bytes (0 for an unknown opcode) */
	};
	/* The send WQE a frame belongs to (from the RTL's TX event). */
	struct tag {
		uint32_t qpn;
		uint16_t idx;
		uint8_t node;
		bool first, last;
	};
	/* A send WQE whose packets went out and that waits for its ACK. */
	struct wr {
		uint32_t first_psn, last_psn;
		uint16_t idx;
		bool have_last;
		bool read;	/* a READ: its responses carry the payload */
	};
	/* A message that consumes a receive WQE, arriving at a responder QP. */
	struct msg {
		uint64_t first_cycle, last_cycle;
		uint32_t first_psn, last_psn;
	};
	/* A responder QP: its messages count once the responder ACKs them. */
	struct resp {
		msg cur = {};
		bool active = false;	/* cur is being received */
		std::deque<msg> cand;	/* complete, not yet acknowledged */
		uint32_t acked = 0;	/* last PSN of the last message counted */
		bool have_acked = false;
	};
	/* A payload read of the TX builder (DMA read tag source 1). */
	struct rd {
		uint64_t issued, returned;	/* returned: 0 until its last beat */
		uint32_t len;
	};
	struct port {
		std::vector<uint8_t> tx, rx;	/* the frame being seen */
		/* Payload reads not yet matched with a frame, in issue order
		 * (the builder issues them in frame order and the data return
		 * in request order); rd_ret: how many of them returned. */
		std::deque<rd> rds;
		size_t rd_ret = 0;
		size_t txlen = 0, rxlen = 0;	/* its length so far */
		size_t txhave = 0, rxhave = 0;	/* bytes of it kept: the headers,
						 * or all of it for a capture */
		tag txtag = {};
		uint64_t tx_first = 0;		/* edge of the TX frame's first beat */
		uint64_t rx_first = 0;		/* edge of the RX frame's first beat */
		uint64_t place_key = 0;		/* packet of the running placement */
		bool place_last = false;	/* ... is its message's last */
		FILE *pcap = nullptr;
	};

	void update();
	static bool parse(const uint8_t *f, size_t len, roce &h);
	void payload_dma(unsigned node, int dst, const roce &h, const tag &tg,
			 std::vector<sim_event> &out);
	void tx_frame(unsigned node, uint64_t cycle, std::vector<sim_event> &out);
	void rx_frame(unsigned node, uint64_t cycle, std::vector<sim_event> &out);
	void retire(unsigned node, uint32_t qpn, uint16_t idx);
	static const wr *answered(const std::deque<wr> &q, uint32_t psn);
	void placement(unsigned node, const mon_ports &t, uint64_t cycle,
		       std::vector<sim_event> &out);
	void ack_sent(unsigned node, const roce &h, std::vector<sim_event> &out);
	void count_msg(unsigned node, uint32_t qpn, resp &r, const msg &m,
		       std::vector<sim_event> &out);
	void pcap_frame(FILE *f, uint64_t cycle, const uint8_t *p, size_t len);

	unsigned n_;
	bool events_ = false;
	bool active_ = false;
	port port_[RNIC_SIM_MAX_NODES];
	/* Packets taken by an RX and not yet placed, by (node, QPN, PSN): the
	 * send WQE they belong to (a request's sender, or the READ a response
	 * answers). */
	std::unordered_map<uint64_t, tag> place_;
	/* Frames of send WQEs on their way, by (dest node, dest QPN, PSN). */
	std::unordered_map<uint64_t, tag> flight_;
	/* Send WQEs waiting for their ACK, by (node, QPN), in PSN order. */
	std::unordered_map<uint64_t, std::deque<wr>> wait_;
	/* Responder QPs by (node, QPN). */
	std::unordered_map<uint64_t, resp> resp_;
	/* Responder QPN by (responder node, requester node, requester QPN),
	 * learnt from the requester's tagged frames. */
	std::unordered_map<uint64_t, uint32_t> pair_;
};

} /* namespace rnic */

#endif /* RNIC_MONITOR_H */
