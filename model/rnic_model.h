/* SPDX-License-Identifier: MIT */
/*
 * rnic_model.h - C API of the simulated platform around the RNIC RTL.
 *
 * One simulation holds N nodes. Each node is a Verilated rnic_top with its own
 * host memory (this process's memory, reached only through a per-node IOMMU),
 * MMIO access, and a port on the wire. All nodes share one clock and are ticked
 * in lockstep, so a run is deterministic.
 *
 * Time rule: software is instantaneous; simulated time only advances inside
 * rnic_sim_step(), rnic_sim_mmio_read() (runs until the read data returns) and
 * rnic_sim_wait() (runs until the node shows activity or a cycle budget ends).
 */
#ifndef RNIC_MODEL_H
#define RNIC_MODEL_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define RNIC_SIM_MAX_NODES 8
#define RNIC_SIM_PAGE_SIZE 4096u

struct rnic_sim;

struct rnic_sim_cfg {
	unsigned int nodes;              /* default 2 */
	unsigned int mem_rd_latency;     /* cycles from request to first beat, default 50 */
	unsigned int mem_wr_latency;     /* cycles from last beat to visible, default 25 */
	unsigned int mem_bytes_per_cycle; /* host memory bandwidth, default 64 */
	unsigned int mem_max_rd_out;     /* outstanding reads accepted, default 32 */
	unsigned int wire_latency;       /* cycles of propagation, default 25 */
	unsigned int wire_bytes_per_cycle; /* link rate, default DataW/8 */
	unsigned int wire_overhead;      /* bytes per frame: preamble, FCS, IFG; default 24 */
	unsigned int mmio_latency;       /* cycles before a posted MMIO write reaches the RTL, default 8 */
};

/*
 * Event kinds. 0..4 are reported by the RTL trace ports (docs/interfaces.md);
 * the model adds what it observes at the RTL's ports (docs/observability.md):
 * doorbell writes taken by the RTL and frames on the wire, parsed down to the
 * BTH and attributed to the WR whose first/last packet they are.
 */
enum rnic_sim_event {
	RNIC_EV_WQE_FETCHED = 0,	/* send WQE (qpn, idx) fetched */
	RNIC_EV_TX_FIRST = 1,		/* its first packet left TX */
	RNIC_EV_TX_LAST = 2,		/* its last packet left TX */
	RNIC_EV_SEND_CQE = 3,		/* send CQE (qpn, idx) written */
	RNIC_EV_RECV_CQE = 4,		/* receive CQE (qpn, idx) written */
	/* Observed by the model: */
	RNIC_EV_SQ_DB = 5,		/* SQ_DB taken by the RTL; idx = producer index */
	RNIC_EV_RQ_DB = 6,		/* RQ_DB taken by the RTL; idx = producer index */
	RNIC_EV_PEER_FIRST = 7,		/* first packet of send WQE (qpn, idx) of @node:
					 * its first beat taken by the peer's RX */
	RNIC_EV_PEER_LAST = 8,		/* last packet: its last beat taken by the peer */
	RNIC_EV_ACKED = 9,		/* the ACK, NAK or last READ response that covers
					 * send WQE (qpn, idx) taken by @node's RX */
	RNIC_EV_RECV_FIRST = 10,	/* a message that consumes a receive WQE of
					 * (node, qpn) started arriving (first beat); idx 0 */
	RNIC_EV_RECV_LAST = 11,		/* ... and ended (last beat of its last packet) */
	RNIC_EV_DMA_ISSUED = 12,	/* the first payload DMA read of the first packet of
					 * send WQE (qpn, idx) of @node was issued (READ:
					 * of the first READ response, at the responder) */
	RNIC_EV_DMA_RETURNED = 13,	/* ... and the last beat of that packet's last
					 * payload read returned */
	RNIC_EV_PLACE_FIRST = 14,	/* the responder's placement of the first packet of
					 * send WQE (qpn, idx) of @node started (READ:
					 * the requester's, of its first response) */
	RNIC_EV_PLACE_LAST = 15,	/* ... placement of its last packet handed its last
					 * write beat to the DMA write port */
	RNIC_EV_KINDS = 16,
};

/* @cycle is the edge of the event. Events are delivered after that edge, in
 * the order they happened (RECV_FIRST comes with RECV_LAST, with its own
 * earlier cycle; DMA_* come when the packet's first beat leaves TX, with
 * the earlier cycles of its reads). The model only observes frames and
 * payload reads for the RNIC_EV_PEER_*, ACKED, RECV_* and DMA_* kinds while an
 * event callback is set. */
typedef void (*rnic_sim_event_cb)(void *arg, unsigned int node, unsigned int kind,
				  uint32_t qpn, uint32_t wqe_idx, uint64_t cycle);

void rnic_sim_default_cfg(struct rnic_sim_cfg *cfg);
/* cfg may be NULL for the defaults. Environment (docs/time-model.md):
 * RNIC_TRACE=<file.fst> starts tracing, RNIC_TRACE_NODES, RNIC_TRACE_START,
 * RNIC_TRACE_END, RNIC_TRACE_QPN, RNIC_TRACE_CYCLES and RNIC_TRACE_API limit
 * it; RNIC_PCAP captures frames; RNIC_PROGRESS prints progress. */
struct rnic_sim *rnic_sim_create(const struct rnic_sim_cfg *cfg);
void rnic_sim_destroy(struct rnic_sim *sim);

/* The process-wide simulation used by the verbs library (created on first use;
 * with RNIC_FABRIC=<dir> in the environment it is a fabric simulation). */
struct rnic_sim *rnic_sim_global(void);

/*
 * Multi-process fabric (docs/fabric.md). A fabric simulation starts without
 * nodes; rnic_sim_node_attach() hosts node @node in this process: its RTL,
 * host memory and IOMMU live here and its link goes to the switch serving
 * directory @dir (`rnic-fabric DIR`, started by the first attach if none
 * runs), over SimBricks' Ethernet adapter protocol with the wire latency as
 * lookahead. Simulated time only advances as far as the switch allows, so
 * frames arrive at the cycles the single-process wire gives. Every other
 * call works on hosted nodes only.
 */
struct rnic_sim *rnic_sim_create_fabric(const struct rnic_sim_cfg *cfg, const char *dir);
/* 0; -EBUSY: another process hosts the node; -EHOSTUNREACH: no switch could
 * be reached or started; -EINVAL: wire latency 0; other -errno. A simulation
 * without a fabric hosts every node: 0. */
int rnic_sim_node_attach(struct rnic_sim *sim, unsigned int node);
int rnic_sim_node_hosted(const struct rnic_sim *sim, unsigned int node);
/* The fabric directory, or NULL. */
const char *rnic_sim_fabric_dir(const struct rnic_sim *sim);
/* Runs up to @max_cycles cycles, as many as the fabric allows without
 * waiting for another process; returns the number run (all of them
 * without a fabric). */
uint64_t rnic_sim_run_avail(struct rnic_sim *sim, uint64_t max_cycles);
/* Sleeps until the fabric lets this process go on or @timeout_us pass. */
void rnic_sim_fabric_block(struct rnic_sim *sim, unsigned int timeout_us);

unsigned int rnic_sim_nodes(const struct rnic_sim *sim);
uint64_t rnic_sim_cycle(const struct rnic_sim *sim);
unsigned int rnic_sim_data_bits(const struct rnic_sim *sim);
/* Node addresses: MAC 02:00:00:00:00:<n+1>, IPv4 10.0.0.<n+1>. */
uint64_t rnic_sim_node_mac(const struct rnic_sim *sim, unsigned int node);
uint32_t rnic_sim_node_ip(const struct rnic_sim *sim, unsigned int node);

void rnic_sim_step(struct rnic_sim *sim, uint64_t cycles);
/* Runs until a DMA write of @node becomes visible, an interrupt of @node fires,
 * or @max_cycles pass. Returns the number of cycles run. */
uint64_t rnic_sim_wait(struct rnic_sim *sim, unsigned int node, uint64_t max_cycles);

/* MMIO: writes are posted (queued, applied in order); a read runs the simulation
 * until the data returns. */
void rnic_sim_mmio_write(struct rnic_sim *sim, unsigned int node, uint32_t addr, uint64_t val);
uint64_t rnic_sim_mmio_read(struct rnic_sim *sim, unsigned int node, uint32_t addr);

/* IOMMU: map [iova, iova+len) of @node to host memory at @host. iova, host and
 * len must be page aligned. Returns 0 or -errno. */
int rnic_sim_iommu_map(struct rnic_sim *sim, unsigned int node, uint64_t iova, void *host, size_t len);
int rnic_sim_iommu_unmap(struct rnic_sim *sim, unsigned int node, uint64_t iova, size_t len);
/* DMA accesses (reads or writes) that touched an unmapped page. */
uint64_t rnic_sim_iommu_faults(const struct rnic_sim *sim, unsigned int node);

/* Counts: completed DMA writes, interrupts, and frames on the wire. */
uint64_t rnic_sim_dma_writes(const struct rnic_sim *sim, unsigned int node);
uint64_t rnic_sim_irqs(const struct rnic_sim *sim, unsigned int node);
uint64_t rnic_sim_wire_frames(const struct rnic_sim *sim, unsigned int node);

/* Called when an armed CQ of @node raises its interrupt. */
typedef void (*rnic_sim_irq_cb)(void *arg, unsigned int node, uint32_t cqn);
void rnic_sim_set_irq_cb(struct rnic_sim *sim, rnic_sim_irq_cb cb, void *arg);
void rnic_sim_set_event_cb(struct rnic_sim *sim, rnic_sim_event_cb cb, void *arg);

/* FST waveform of every node (scopes node0, node1, ...). */
int rnic_sim_trace_open(struct rnic_sim *sim, const char *path);
void rnic_sim_trace_close(struct rnic_sim *sim);

/*
 * Trace windows. Without any window every cycle is dumped. Once a window is
 * set, only the cycles inside at least one of them are dumped: a cycle range,
 * a doorbell trigger, or begin/end calls around code of interest. Times in
 * the file stay absolute (edge c at (c + 8) * 4000 + 2000 ps). Windows never
 * change what is simulated: cycle counts are the same with tracing on or off.
 */
/* Only the nodes whose bit is set in @node_mask (bit n = node n). */
int rnic_sim_trace_open_nodes(struct rnic_sim *sim, const char *path, uint32_t node_mask);
/* Dump the edges start <= c < end (end 0: no end). start == end == 0 removes it. */
void rnic_sim_trace_window(struct rnic_sim *sim, uint64_t start, uint64_t end);
/* Dump @cycles cycles from every SQ doorbell write that software posts for QP
 * @qpn (-1: any QP) of @node (-1: any node); each doorbell extends the window.
 * @cycles 0 removes the trigger. */
void rnic_sim_trace_trigger(struct rnic_sim *sim, int node, int64_t qpn, uint64_t cycles);
/* Dump from now until the matching rnic_sim_trace_end() (calls nest). The
 * first begin makes the trace windowed from then on; set RNIC_TRACE_API=1
 * (or call rnic_sim_trace_api_only()) to dump nothing before it. */
void rnic_sim_trace_begin(struct rnic_sim *sim);
void rnic_sim_trace_end(struct rnic_sim *sim);
void rnic_sim_trace_api_only(struct rnic_sim *sim);
/* 1 if the next cycle will be dumped into an open trace. */
int rnic_sim_trace_dumping(const struct rnic_sim *sim);

/* Additions. */

/* Frames sent by @node that matched no node's IPv4 address (or were too
 * short to carry one) and were dropped; they are included in wire_frames. */
uint64_t rnic_sim_wire_drops(const struct rnic_sim *sim, unsigned int node);
/* MMIO reads of @node that got no answer (they returned ~0). */
uint64_t rnic_sim_mmio_timeouts(const struct rnic_sim *sim, unsigned int node);
/* Interface rule violations the model saw on @node's ports (DMA length and
 * last mismatches, non-contiguous tx_keep_o, unexpected mmio_rvalid_o). The
 * first few are also printed on stderr. */
uint64_t rnic_sim_protocol_errors(const struct rnic_sim *sim, unsigned int node);
/* Every frame sent on the wire, by any node, into a pcap file (Ethernet,
 * nanosecond timestamps, cycle of the frame's last beat x 4 ns). Environment:
 * RNIC_PCAP=<file.pcap> opens it at creation. Returns 0 or -errno. */
int rnic_sim_pcap_open(struct rnic_sim *sim, const char *path);
void rnic_sim_pcap_close(struct rnic_sim *sim);
/* The link of @node into a pcap file of its own: every frame its TX sent
 * (timestamp: its last beat) and every frame its RX took (its last beat), as
 * the RTL's ports saw them. Environment: RNIC_PCAP=<directory>/ (a trailing
 * slash or an existing directory) writes <directory>/node<n>.pcap per node
 * instead of the one file. Returns 0 or -errno. */
int rnic_sim_pcap_open_link(struct rnic_sim *sim, unsigned int node, const char *path);
void rnic_sim_pcap_close_link(struct rnic_sim *sim, unsigned int node);

/* CQEs written by @node's RTL (send + receive), counted at the trace port. */
uint64_t rnic_sim_cqes(const struct rnic_sim *sim, unsigned int node);
/* Print progress on stderr every @seconds of wall-clock time (0 stops it):
 * simulated cycles, CQEs written, simulated cycles per second. Environment:
 * RNIC_PROGRESS=<seconds>. Printing never changes what is simulated. */
void rnic_sim_progress(struct rnic_sim *sim, double seconds);

/*
 * Fast-forward (docs/time-model.md): while every node is quiet and nothing
 * is due, one evaluated edge stands for many, with exactly the state that
 * evaluating each of them gives. @mode: 0 off, 1 on (the default), 2 check:
 * the skipped edges are evaluated as well and the RTL state compared (a
 * difference aborts). Environment: RNIC_FFWD=0/1/check when a simulation is
 * created, RNIC_FFWD_STATS=1 prints the counts of the global simulation at
 * exit.
 */
void rnic_sim_set_ffwd(struct rnic_sim *sim, int mode);
/* Edges covered by skips, the skips, and (check mode) the skips checked. */
uint64_t rnic_sim_ffwd_cycles(const struct rnic_sim *sim);
uint64_t rnic_sim_ffwd_skips(const struct rnic_sim *sim);
uint64_t rnic_sim_ffwd_checked(const struct rnic_sim *sim);

/*
 * Wire faults. Every node has one full-duplex link into the switch; each
 * direction is a link of its own with its own faults, seeded random stream
 * and counters: RNIC_WIRE_DIR_TX carries the frames @node sends (node ->
 * switch), RNIC_WIRE_DIR_RX the frames @node receives (switch -> node). A
 * frame crosses the sender's TX link, is routed on its (possibly corrupted)
 * destination IPv4 address, then crosses the receiver's RX link. On each link
 * the faults apply in this order: delay spike, link down, drop, corruption,
 * duplication, reordering. docs/time-model.md has the exact rules.
 *
 * With every probability zero and no down window a link adds no cost and
 * changes no cycle. The same seed, configuration and traffic give the same
 * faults on every run; a link draws exactly one number of its own stream per
 * frame, so one link's faults never shift another link's.
 */
#define RNIC_WIRE_MAX_DOWN 8

enum rnic_wire_dir {
	RNIC_WIRE_DIR_TX = 0,	/* node -> switch */
	RNIC_WIRE_DIR_RX = 1,	/* switch -> node */
};

/* A down window: cycles [start, start + len) of rnic_sim_cycle(). */
struct rnic_wire_window {
	uint64_t start;
	uint64_t len;
};

struct rnic_wire_faults {
	/* Probabilities per frame, 0..1. */
	double drop;		/* the frame is lost */
	double corrupt;		/* corrupt_bits distinct random bits of the frame flip */
	double dup;		/* the frame is delivered twice */
	double reorder;		/* held back until 1..reorder_window later frames passed */
	double delay_spike;	/* the link stalls delay_cycles before this frame */
	/* Probability per cycle that the link goes down for down_cycles. */
	double down_rate;
	/* Zeros mean the defaults in brackets. */
	unsigned int corrupt_bits;	/* 1..64 [1] */
	unsigned int reorder_window;	/* [4] */
	unsigned int reorder_timeout;	/* a held frame goes on after this many cycles anyway [2000] */
	unsigned int delay_cycles;	/* [1000] */
	unsigned int down_cycles;	/* length of a random down window [1000] */
	/* Fixed down windows, in any order, may overlap. */
	unsigned int n_down;
	struct rnic_wire_window down[RNIC_WIRE_MAX_DOWN];
	/* The link's streams derive from (seed, node, dir); random down windows
	 * from (seed, node) only, so both directions of a link configured alike
	 * go down together. */
	uint64_t seed;
};

/* Counters of one link direction; they keep counting across
 * rnic_sim_set_link_faults() calls. */
struct rnic_wire_fault_counts {
	uint64_t frames;	/* frames that entered the link (faults on or off) */
	uint64_t dropped;
	uint64_t corrupted;
	uint64_t duplicated;	/* extra copies made */
	uint64_t reordered;	/* frames held back */
	uint64_t delayed;	/* delay spikes */
	uint64_t down_lost;	/* frames on the link while it was down */
	uint64_t misrouted;	/* TX: corrupted frames the switch sent to another node or nowhere */
	/* RX only: frames put into the node's RX queue, those of them
	 * corrupted on any link, and of those the ones a RoCEv2 receiver must
	 * discard (not IPv4, length other than IPv4 total length + 14, or ICRC
	 * mismatch). */
	uint64_t delivered;
	uint64_t delivered_corrupted;
	uint64_t delivered_bad;
};

/* All faults off, seed 0. */
void rnic_wire_faults_default(struct rnic_wire_faults *f);
/* Sets the faults of one link direction (@f NULL: off) and restarts its
 * random streams from f->seed; frames it holds back go on at once. Returns 0
 * or -EINVAL (bad node, dir, probability or count). Environment, global
 * simulation only: RNIC_WIRE_DROP, _CORRUPT, _CORRUPT_BITS, _DUP, _REORDER,
 * _REORDER_WINDOW, _REORDER_TIMEOUT, _DELAY_SPIKE, _DELAY_CYCLES, _DOWN,
 * _DOWN_RATE, _DOWN_CYCLES, _SEED (docs/time-model.md). */
int rnic_sim_set_link_faults(struct rnic_sim *sim, unsigned int node, unsigned int dir,
			     const struct rnic_wire_faults *f);
int rnic_sim_get_link_faults(const struct rnic_sim *sim, unsigned int node, unsigned int dir,
			     struct rnic_wire_faults *f);
int rnic_sim_link_fault_counts(const struct rnic_sim *sim, unsigned int node, unsigned int dir,
			       struct rnic_wire_fault_counts *c);
/* Sends a raw frame (1..65535 bytes) on @node's TX link as if @node's RTL had
 * ended it on the next edge: it is routed, serialised, faulted and delivered
 * like any other. Returns 0 or -EINVAL. */
int rnic_sim_wire_inject(struct rnic_sim *sim, unsigned int node, const void *frame, size_t len);

/*
 * Directed loss, for transport tests: the next @count frames sent by @node
 * whose BTH opcode equals @opcode and whose PSN equals @psn (either
 * negative: any) are lost on the wire, after @skip such frames have passed.
 * Rules stack; each ends when its count is used up. Returns 0 or -EINVAL.
 */
int rnic_sim_wire_drop(struct rnic_sim *sim, unsigned int node, int opcode, int64_t psn,
		       unsigned int skip, unsigned int count);
/* Frames lost to those rules, sent by @node. */
uint64_t rnic_sim_wire_drop_hits(const struct rnic_sim *sim, unsigned int node);

#ifdef __cplusplus
}
#endif
#endif /* RNIC_MODEL_H */
