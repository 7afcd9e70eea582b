// SPDX-License-Identifier: MIT
/*
 * sim.cpp - the cycle loop that ticks every node in lockstep, and the C API.
 *
 * One cycle (the rising edge number c, c = rnic_sim_cycle() before the tick):
 *   1. frames due at c move from the wire to the receivers' RX queues;
 *   2. per node, the model drives every RTL input for this cycle from its own
 *      state (nothing it drives depends on RTL outputs of the same cycle) and
 *      evaluates clk_i = 0: the RTL's outputs settle to what its flops will see
 *      at the edge;
 *   3. per node, the model takes the handshakes of edge c (valid && ready on
 *      those settled values), records irq/trace events, and evaluates
 *      clk_i = 1 (the edge);
 *   4. the cycle count becomes c + 1, due DMA writes become visible, and the
 *      event and interrupt callbacks of edge c run.
 * So the model acts like registered logic: whatever it learns at edge c shows
 * on its outputs at edge c + 1 at the earliest.
 *
 * Evaluation passes: only what changed is evaluated. The input-dependent
 * logic (Verilator's "ico" region) runs when the inputs changed, the edge
 * (the "act"/"nba" regions: flops and the logic behind them) once per cycle:
 *  - the clk_i = 0 evaluation is left out when no input changed since the
 *    model's last evaluation and the level is not dumped: the outputs
 *    already are what it would compute (an evaluation settles every
 *    combinational value, and a falling edge clocks nothing), so only
 *    Verilator's record of the clock's last value is set to 0, which lets
 *    the clk_i = 1 evaluation see the rising edge;
 *  - the clk_i = 1 evaluation runs only the edge (eval_edge()): no input
 *    changed since the clk_i = 0 one, whose input-dependent values stand.
 *    Verilator 5.006's eval() would compute them again first (its "ico"
 *    region runs on every call); this needs its scheduler's functions, so it
 *    is built only for that version (RNIC_VL_EDGE_EVAL), else eval() runs.
 * An edge with skip_i set is a whole eval(). The input-dependent values it
 * leaves were computed with the skip (no output depends on skip_i, so the
 * next cycle's decision may still use the outputs); before an ordinary edge
 * they are computed again (ico_skip). RNIC_EVAL_ALL=1 evaluates every
 * level with eval().
 *
 * Handshakes are taken from the settled clk_i = 0 values, not after the edge:
 * after the edge a registered valid may already have dropped, and an output
 * that depends combinationally on an input (ready on valid, say) is only right
 * before it.
 *
 * Reset holds rst_ni low for kResetCycles edges at creation; edge 0 is the
 * first one after it. Waveforms are dumped after each level with a 250 MHz
 * clock, so edge c rises at (c + kResetCycles) * 4000 + 2000 ps.
 *
 * Fast-forward (docs/time-model.md): when every node's RTL is quiet
 * (quiet_o), its inputs are idle and no edge of the next n is due (the RTL's
 * next_due_o, the next wire arrival or held frame's deadline, the next
 * DMA/MMIO event of the host models, the end of the caller's budget, the
 * fabric's bound and the start of a trace window), the model evaluates one
 * edge with skip_i set that stands for the n edges: the RTL advances its
 * free-running counters by n, the host memory refills its credit, and the
 * cycle count moves by n. Everything after is as if every edge had been
 * evaluated; RNIC_FFWD=0 turns it off, RNIC_FFWD=check evaluates every
 * skipped edge anyway and compares the whole RTL state with the skip's.
 * A node that is quiet with idle ports while another works is left out
 * edge by edge (a lag, from lag_from): it is neither driven nor evaluated
 * until a frame reaches its RX, its MMIO or host memory has an event, its
 * next_due_o comes or edges are dumped, and then takes the edges it missed
 * as one skip edge, the one a skip decided at lag_from would have been
 * (lag_end()); a system-wide skip takes a lag with it. Nodes meet only
 * through the wire and between cycles through software, which reaches a
 * node only by MMIO, so nothing sees a lagging node's stale state.
 * RNIC_FFWD_NODE=0 turns lags off; in check mode a lag is a shadow (the node
 * is evaluated all the same) whose end compares the state with the skip's.
 *
 * Trace windows: every level is dumped only while dump_on_ is set, which is
 * decided once per cycle from the windows (cycle range, doorbell trigger,
 * begin/end calls; trace_gate()). Skipping dumps is safe: Verilator's FST
 * writer emits on the next dump whatever changed since the last one, and
 * whether a level is dumped never changes what the RTL computes.
 *
 * Environment: RNIC_TRACE / RNIC_PCAP open a waveform / packet capture when a
 * simulation is created; the k-th simulation of the process (k >= 1) writes
 * "<name>.simK.<ext>" so that it does not overwrite the first.
 * RNIC_TRACE_NODES/_START/_END/_QPN/_CYCLES/_API limit the waveform,
 * RNIC_PROGRESS prints progress (env_trace(), env_progress()). The global
 * simulation also takes its configuration from RNIC_NODES, RNIC_MEM_*,
 * RNIC_WIRE_* and RNIC_MMIO_LATENCY (see env_cfg()).
 *
 * Batches (RNIC_THREADS=2, docs/time-model.md): with a core to spare, runs
 * of up to wire_latency + 1 edge-by-edge cycles are run node by node, the
 * node a wait watches on the calling thread and the others on a worker
 * (batch(), node_cycle()); no frame sent in a batch arrives in it, and
 * what the nodes share (frames sent, events, the monitor's view) is kept
 * per node and merged in this loop's order when the batch ends.
 *
 * Not thread-safe: one thread drives a simulation (rnic_sim_global() itself
 * may be called from any thread).
 */
#include "rnic_model.h"

#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <memory>
#include <mutex>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <thread>
#include <unordered_map>
#include <string>
#include <sys/stat.h>
#include <type_traits>
#include <unistd.h>
#include <utility>

#include "Vrnic_top.h"
#include "Vrnic_top___024root.h"
#include "Vrnic_top__Syms.h"
#include "fabric/fabric_link.h"
#include "host_mem.h"
#include "mmio.h"
#include "monitor.h"
#include "sim_phase.h"
#include "sim_util.h"
#include "verilated_fst_c.h"
#if VM_COVERAGE
#include "verilated_cov.h"
#endif
#include "wire.h"

#if RNIC_VL_EDGE_EVAL
/* Verilator 5.006's scheduler regions of the model (generated code). */
void Vrnic_top___024root___eval_triggers__act(Vrnic_top___024root *vlSelf);
void Vrnic_top___024root___eval_act(Vrnic_top___024root *vlSelf);
void Vrnic_top___024root___eval_nba(Vrnic_top___024root *vlSelf);
#endif

using namespace rnic;

namespace {

constexpr uint64_t kHalfPeriodPs = 2000;	/* 250 MHz */
constexpr unsigned kResetCycles = 8;
constexpr uint64_t kMmioReadTimeout = 100000;
constexpr unsigned kEvKinds = 5;		/* kinds the RTL reports */
constexpr uint8_t kIrqKind = 0xff;		/* marks an interrupt in pend */
constexpr uint64_t kNoCycle = ~0ull;
constexpr uint64_t kProgressStride = 1024;	/* cycles between clock reads */
constexpr uint64_t kDefaultTriggerCycles = 4000;
constexpr uint64_t kPromiseStride = 4;		/* cycles between fabric promises */
constexpr uint64_t kMinSkip = 2;		/* shorter idle stretches are evaluated */

using port_data_t = std::remove_reference_t<decltype(std::declval<Vrnic_top &>().dma_wr_data_o)>;
using port_keep_t = std::remove_reference_t<decltype(std::declval<Vrnic_top &>().tx_keep_o)>;
static_assert(sizeof(port_data_t) >= kBytes && sizeof(port_data_t) < kBytes + 8,
	      "Vrnic_top was verilated with another DataW than RNIC_DATA_W");
static_assert(sizeof(port_keep_t) * 8 >= kBytes && sizeof(port_keep_t) <= 8,
	      "keep ports wider than 64 lanes are not supported");

struct node {
	node(VerilatedContext *ctx, unsigned idx, const rnic_sim_cfg &cfg)
		: top(new Vrnic_top(ctx, ("node" + std::to_string(idx)).c_str())),
		  mem(idx, {cfg.mem_rd_latency, cfg.mem_wr_latency,
			    cfg.mem_bytes_per_cycle, cfg.mem_max_rd_out}),
		  io(idx, cfg.mmio_latency)
	{
	}

	std::unique_ptr<Vrnic_top> top;
	host_mem mem;
	mmio io;
	/* MSIs raised but not delivered: PCIe ordering lets an MSI (a posted
	 * write) reach the host only after the DMA writes posted before it,
	 * so each waits for the write count it saw to become visible. */
	struct msi {
		uint64_t after_writes;
		uint16_t cqn;
	};
	std::deque<msi> msis;
	uint64_t irqs = 0;	/* MSIs delivered */
	uint64_t mmio_timeouts = 0;
	uint64_t cqes = 0;
	/* The inputs the model was last evaluated with (in_ok: recorded). */
	struct inputs {
		uint64_t mmio_wdata;
		uint16_t mmio_addr;
		uint8_t bits[11];
		port_data_t rd_data, rx_data;
		port_keep_t rx_keep;
	} in{};
	bool in_ok = false;
	bool ico_skip = false;	/* input-dependent values still of a skip edge */
	/* RNIC_FFWD=check: the state the skip left, and the host memory's
	 * counters it predicted. */
	std::vector<uint8_t> ff_expect;
	uint64_t ff_credit = 0, ff_writes = 0, ff_irqs = 0;
	/* Fast-forward of this node alone while others work: from edge
	 * lag_from on it is not evaluated (it was quiet with idle ports, its
	 * next_due_o then lag_due); kNoCycle: evaluated every edge. */
	uint64_t lag_from = kNoCycle;
	uint64_t lag_due = 0;
	/* RNIC_FFWD=check: the lag is a shadow (the node is evaluated all the
	 * same) and its end compares the edges' state with the skip from the
	 * state and host memory credit it began with. */
	bool lag_shadow = false;
	std::vector<uint8_t> lag_state;
	uint64_t lag_credit = 0;
	/* Left out now (a lag that is not a shadow). */
	bool lagging() const { return lag_from != kNoCycle && !lag_shadow; }
};

#if RNIC_VL_EDGE_EVAL
/* Vrnic_top::eval_step() and Vrnic_top___024root___eval() of Verilator
 * 5.006 without the input-combinational region: the clock edge and what
 * follows it, settled. */
static void eval_edge(Vrnic_top &t)
{
	Vrnic_top___024root *r = t.rootp;
	Vrnic_top__Syms *syms = r->vlSymsp;
	VlTriggerVec<2> pre;
	uint32_t nba_iter = 0;
	bool nba_more = true;

	syms->__Vm_activity = true;
	while (nba_more) {
		nba_more = false;
		r->__VnbaTriggered.clear();
		r->__VactIterCount = 0;
		r->__VactContinue = 1;
		while (r->__VactContinue) {
			r->__VactContinue = 0;
			Vrnic_top___024root___eval_triggers__act(r);
			if (r->__VactTriggered.any()) {
				r->__VactContinue = 1;
				if (VL_UNLIKELY(0x64U < r->__VactIterCount))
					VL_FATAL_MT(__FILE__, __LINE__, "", "Active region did not converge.");
				r->__VactIterCount++;
				pre.andNot(r->__VactTriggered, r->__VnbaTriggered);
				r->__VnbaTriggered.set(r->__VactTriggered);
				Vrnic_top___024root___eval_act(r);
			}
		}
		if (r->__VnbaTriggered.any()) {
			nba_more = true;
			if (VL_UNLIKELY(0x64U < nba_iter))
				VL_FATAL_MT(__FILE__, __LINE__, "", "NBA region did not converge.");
			nba_iter++;
			Vrnic_top___024root___eval_nba(r);
		}
	}
	Verilated::endOfThreadMTask(syms->__Vm_evalMsgQp);
	Verilated::endOfEval(syms->__Vm_evalMsgQp);
}
#else
static void eval_edge(Vrnic_top &t)
{
	t.eval();
}
#endif

/* Records @t's inputs in @in; returns whether they were already those. */
static bool same_inputs(node::inputs &in, const Vrnic_top &t)
{
	const uint8_t bits[11] = {
		t.rst_ni, t.mmio_valid_i, t.mmio_we_i, t.dma_rd_req_ready_i, t.dma_rd_rsp_valid_i,
		t.dma_rd_rsp_tag_i, t.dma_rd_rsp_last_i, t.dma_rd_rsp_err_i, t.dma_wr_ready_i,
		t.tx_ready_i, (uint8_t)(t.rx_valid_i | t.rx_last_i << 1),
	};
	bool same = in.mmio_wdata == t.mmio_wdata_i && in.mmio_addr == t.mmio_addr_i &&
		    !std::memcmp(in.bits, bits, sizeof(bits)) && in.rx_keep == t.rx_keep_i &&
		    !std::memcmp(&in.rd_data, &t.dma_rd_rsp_data_i, sizeof(in.rd_data)) &&
		    !std::memcmp(&in.rx_data, &t.rx_data_i, sizeof(in.rx_data));

	if (!same) {
		in.mmio_wdata = t.mmio_wdata_i;
		in.mmio_addr = t.mmio_addr_i;
		std::memcpy(in.bits, bits, sizeof(bits));
		in.rx_keep = t.rx_keep_i;
		std::memcpy(&in.rd_data, &t.dma_rd_rsp_data_i, sizeof(in.rd_data));
		std::memcpy(&in.rx_data, &t.rx_data_i, sizeof(in.rx_data));
	}
	return same;
}

/* Marks the clock low as the clk_i = 0 evaluation would (Verilator 5
 * detects the rising edge against the value its last evaluation saw);
 * false when this Verilator keeps that record under another name. */
template <typename R>
static auto mark_clk_low(R &r, int) -> decltype(r.__Vtrigrprev__TOP__clk_i = 0, bool())
{
	r.__Vtrigrprev__TOP__clk_i = 0;
	return true;
}
template <typename R>
static bool mark_clk_low(R &, long)
{
	return false;
}

/* The RTL's design state: every variable of the Verilated model (ports,
 * flops, memories, combinational values, scheduler triggers) lies between
 * the base VerilatedModule and the symbol table pointer. */
static std::pair<uint8_t *, size_t> rtl_state(Vrnic_top &t)
{
	uint8_t *b = reinterpret_cast<uint8_t *>(t.rootp) + sizeof(VerilatedModule);
	uint8_t *e = reinterpret_cast<uint8_t *>(const_cast<Vrnic_top__Syms **>(&t.rootp->vlSymsp));

	return {b, (size_t)(e - b)};
}

/* One edge with skip_i set, standing for @k edges (clk_i rises). */
static void eval_skip(Vrnic_top &t, uint64_t k)
{
	t.skip_i = 1;
	t.skip_cycles_i = (uint32_t)k;
	t.clk_i = 1;
	t.eval();
	t.skip_i = 0;
	t.skip_cycles_i = 0;
}

/* How many bytes of @t's RTL state differ from @expect, the first in
 * @first; the scheduler's activity flags are left out (whether a region
 * ran says nothing about values). */
static size_t state_diff(Vrnic_top &t, const uint8_t *expect, size_t *first)
{
	std::pair<uint8_t *, size_t> st = rtl_state(t);
	const uint8_t *act = reinterpret_cast<const uint8_t *>(&t.rootp->__Vm_traceActivity);
	const size_t a0 = (size_t)(act - st.first);
	const size_t a1 = a0 + sizeof(t.rootp->__Vm_traceActivity);
	size_t n = 0;

	*first = 0;
	for (size_t b = 0; b < st.second; b++) {
		if ((b >= a0 && b < a1) || st.first[b] == expect[b])
			continue;
		if (!n++)
			*first = b;
	}
	return n;
}

std::atomic<unsigned> warn_budget{20};

} /* namespace */

void rnic::model_warn(unsigned node, uint64_t cycle, const char *fmt, ...)
{
	va_list ap;
	/* Two nodes may warn at once (batches on two threads). */
	unsigned left = warn_budget.load(std::memory_order_relaxed);

	do {
		if (!left)
			return;
	} while (!warn_budget.compare_exchange_weak(left, left - 1, std::memory_order_relaxed));
	std::fprintf(stderr, "rnic model: node %u cycle %llu: ", node,
		     (unsigned long long)cycle);
	va_start(ap, fmt);
	std::vfprintf(stderr, fmt, ap);
	va_end(ap);
	std::fprintf(stderr, "%s\n", left > 1 ? "" : " (further warnings suppressed)");
}

/* Forks so far in this process's line (a child counts the fork it came from). */
static unsigned fork_gen;

struct rnic_sim {
	/* @fabric: the directory of a multi-process fabric (docs/fabric.md);
	 * nullptr: every node is simulated here and the wire is local. */
	rnic_sim(const rnic_sim_cfg &c, const char *fabric);
	~rnic_sim();

	/* Runs the edge rnic_sim_cycle() - and, fast-forwarding, up to
	 * @limit edges in all; returns how many. */
	uint64_t tick(uint64_t limit = 1);
	void run(uint64_t cycles)
	{
		for (uint64_t i = 0; i < cycles;)
			i += advance(cycles - i, -1, 0, 0);
		check_finish();
	}
	bool may_run(const char *what);
	void check_finish()
	{
		if (ctx->gotFinish() && !finish_seen) {
			std::fprintf(stderr, "rnic model: the RTL executed $finish at cycle %llu\n",
				     (unsigned long long)cycle);
			finish_seen = true;
		}
	}
	int trace_open(const char *path, uint32_t node_mask);
	void trace_close();
	/* Whether edge @c is inside the trace windows. */
	bool trace_gate(uint64_t c) const
	{
		if (api_depth)
			return true;
		if (!windowed)
			return true;
		if (c >= tr_start && c < tr_end)
			return true;
		return trig_until != kNoCycle && c < trig_until;
	}
	void doorbell_posted(unsigned node, uint32_t qpn)
	{
		if (!trig_cycles || (trig_node >= 0 && (unsigned)trig_node != node) ||
		    (trig_qpn >= 0 && (uint32_t)trig_qpn != qpn))
			return;
		uint64_t until = cycle + trig_cycles;

		if (trig_until == kNoCycle || until > trig_until)
			trig_until = until;
	}
	void update_windowed()
	{
		windowed = api_only || tr_end > tr_start || trig_cycles;
	}
	void progress(uint64_t c);

	/* Multi-process fabric. A node exists here once attach() hosted it. */
	bool on_fabric() const { return !fabric_dir.empty(); }
	int attach(unsigned i);
	void fabric_take();
	uint64_t fabric_bound() const
	{
		uint64_t b = ~0ull;

		for (unsigned i = 0; i < n; i++)
			if (nodes[i])
				b = std::min(b, links[i].bound());
		return b;
	}
	void fabric_wait(uint64_t c);
	void fabric_block(unsigned us);
	void fabric_promise(uint64_t next)
	{
		for (unsigned i = 0; i < n; i++)
			if (nodes[i])
				links[i].promise(next);
	}

	/* A fork's child inherits the simulation but not the threads of
	 * Verilator's pool (and the trace, coverage file and fabric links
	 * are the parent's): it leaves the object alone (forked()). */
	bool forked() const { return fork_gen != born_gen; }
	unsigned born_gen;

	rnic_sim_cfg cfg;
	std::unique_ptr<VerilatedContext> ctx;
	std::unique_ptr<node> nodes[RNIC_SIM_MAX_NODES];
	unsigned n;
	wire net;
	monitor mon;
	std::unique_ptr<VerilatedFstC> tfp;
	std::string fabric_dir;
	fabric_link links[RNIC_SIM_MAX_NODES];
	std::vector<fabric_link::rx_frame> fab_rx;

	/* Trace windows (rnic_model.h). tr_start < tr_end is the cycle range. */
	uint64_t tr_start = 0, tr_end = 0;
	int trig_node = -1;
	int64_t trig_qpn = -1;
	uint64_t trig_cycles = 0;
	uint64_t trig_until = kNoCycle;
	unsigned api_depth = 0;
	bool api_only = false;
	bool windowed = false;
	bool dump_on = true;

	/* Fast-forward: mode (RNIC_FFWD), the edges skipped and the skips;
	 * ff_check_until: a checked skip ends at this cycle (0: none). */
	enum { kFfOff, kFfOn, kFfCheck } ffwd = kFfOn;
	bool eval_all = false;	/* RNIC_EVAL_ALL: no clk_i = 0 evaluation left out */
	uint64_t ff_cycles = 0, ff_skips = 0, ff_checked = 0;
	uint64_t ff_check_from = 0, ff_check_until = 0;
	/* A quiet node's own skips (lags) while another node works:
	 * RNIC_FFWD_NODE=0 turns them off; node-edges they left out, lags. */
	bool lag_on = true;
	std::atomic<uint64_t> lag_edges{0}, lag_runs{0};
	uint64_t lag_checked = 0;
	/* RNIC_THREADS: batches of cycles, each node on a thread of its own
	 * (batch()); the cycles and batches run so; in a batch each node's
	 * events go to its own list (bpend) first. */
	std::unique_ptr<class batch_thread> bat;
	uint64_t batch_max = 0;
	uint64_t batch_cycles = 0, batches = 0;
	/* RNIC_THREADS unset or auto: batches only while they are faster than
	 * one thread. Per window of kJudgeBatches batches, the wall time per
	 * cycle of the batches against that of the one-thread cycles before
	 * them; two lost windows in a row turn batches off for bat_backoff
	 * cycles (doubled on each such loss in a row). Wall time decides only
	 * which thread runs a node, never what it computes. */
	bool bat_auto = false;
	uint64_t bat_off_until = 0, bat_backoff = 0, bat_lost = 0;
	uint64_t judge_n = 0, judge_lost = 0;
	double judge_ser_ns = 0, judge_ser_cyc = 0, judge_bat_ns = 0, judge_bat_cyc = 0;
	uint64_t advance(uint64_t limit, int w, uint64_t w0, uint64_t i0);
	void judge(double ser_ns, uint64_t ser_cyc, double bat_ns, uint64_t bat_cyc);
	bool wait_end(int w, uint64_t w0, uint64_t i0) const
	{
		return w >= 0 && (nodes[w]->mem.writes() != w0 || nodes[w]->irqs != i0);
	}
	bool in_batch = false;
	std::vector<sim_event> bpend[RNIC_SIM_MAX_NODES];
	/* ... and what the monitor would have seen, per cycle */
	std::vector<std::pair<uint64_t, mon_ports>> bmon[RNIC_SIM_MAX_NODES];
	std::vector<sim_event> &evq(unsigned i) { return in_batch ? bpend[i] : pend; }
	/* Host pages the nodes' IOMMUs map: per node how often, and how many
	 * pages more than one node maps (DMA of two nodes to one page keeps
	 * the loop on one thread: their order is the cycles'). */
	std::unordered_map<uintptr_t, uint32_t> hp_refs[RNIC_SIM_MAX_NODES];
	std::unordered_map<uintptr_t, uint8_t> hp_nodes;
	uint64_t shared_pages = 0;
	void host_pages(unsigned i, uintptr_t host, size_t len, bool add);
	bool batch_ok() const;
	uint64_t batch(uint64_t limit, int w, uint64_t w0, uint64_t i0);
	void node_cycle(unsigned i, uint64_t k);

	/* Progress on stderr (wall-clock driven, output only). */
	double prog_interval = 0;
	uint64_t prog_next = 0;
	std::chrono::steady_clock::time_point prog_t0, prog_last;
	uint64_t prog_last_cycle = 0;

	uint64_t cycle = 0;	/* edges since reset; the next edge's number */
	uint64_t half = 0;	/* clock levels evaluated since creation */

	rnic_sim_irq_cb irq_cb = nullptr;
	void *irq_arg = nullptr;
	rnic_sim_event_cb ev_cb = nullptr;
	void *ev_arg = nullptr;
	std::vector<sim_event> pend;
	bool in_cb = false;
	bool finish_seen = false;

	/* The phases of tick() (model/sim_phase.h). */
	void begin_cycle(uint64_t c);
	void settle(unsigned i, uint64_t c);
	uint64_t decide(uint64_t c, uint64_t limit, uint64_t ext_next);
	void edge(unsigned i, uint64_t c);
	void retire(unsigned i, uint64_t last);
	void dispatch(uint64_t c);
	/* A platform that owns time (sim_set_host()), or nullptr; the level
	 * after its last edge is not dumped yet (sim_flush()). */
	rnic::sim_host *host = nullptr;
	bool high_pending = false;
	/* The wire the frames cross if not ours (sim_set_link()). */
	rnic::sim_link *xlink = nullptr;
	bool wire_stats_done = false;

	void ff_compare();
	void dump()
	{
		if (dump_on)
			tfp->dump(half * kHalfPeriodPs);
		half++;
		ctx->time(half * kHalfPeriodPs);
	}
	void sample(unsigned i, uint64_t c);
	uint64_t skip_len(uint64_t c, uint64_t limit, uint64_t ext_next);
	void skip_edge(uint64_t c, uint64_t n);
	bool node_idle(unsigned i) const;
	bool lag_may_start(unsigned i, uint64_t c) const;
	bool lag_must_end(unsigned i, uint64_t c) const;
	void lag_end(unsigned i, uint64_t c);
	void lag_check(unsigned i, uint64_t c);
	void init_inputs(unsigned i);
	void add_node(unsigned i);
};

static wire_cfg make_wire_cfg(const rnic_sim_cfg &c)
{
	return {c.nodes, c.wire_latency, c.wire_bytes_per_cycle, c.wire_overhead};
}

/* Zeros would divide by zero or deadlock; they mean "default" instead. */
static rnic_sim_cfg sanitize(const rnic_sim_cfg *in)
{
	rnic_sim_cfg d, c;

	rnic_sim_default_cfg(&d);
	c = in ? *in : d;
	if (c.nodes < 1 || c.nodes > RNIC_SIM_MAX_NODES) {
		std::fprintf(stderr, "rnic model: %u nodes is out of range, using %u\n",
			     c.nodes, d.nodes);
		c.nodes = d.nodes;
	}
	if (!c.mem_bytes_per_cycle)
		c.mem_bytes_per_cycle = d.mem_bytes_per_cycle;
	if (!c.mem_max_rd_out)
		c.mem_max_rd_out = d.mem_max_rd_out;
	if (!c.wire_bytes_per_cycle)
		c.wire_bytes_per_cycle = d.wire_bytes_per_cycle;
	return c;
}

/* The k-th simulation of the process that traces from the environment writes
 * "<base>.simK<ext>" (k >= 1) so that it does not overwrite the first one. */
static std::string env_path(const char *path, unsigned k)
{
	std::string p(path);

	if (!k)
		return p;
	size_t dot = p.rfind('.');
	size_t slash = p.rfind('/');
	std::string sfx = ".sim" + std::to_string(k);

	if (dot == std::string::npos || (slash != std::string::npos && dot < slash))
		return p + sfx;
	return p.substr(0, dot) + sfx + p.substr(dot);
}

static bool env_u64(const char *name, uint64_t *v)
{
	const char *s = std::getenv(name);
	char *end;

	if (!s || !*s)
		return false;
	errno = 0;
	unsigned long long x = std::strtoull(s, &end, 0);

	if (*end || errno) {
		std::fprintf(stderr, "rnic model: ignoring %s=%s\n", name, s);
		return false;
	}
	*v = x;
	return true;
}

/* RNIC_TRACE_* (docs/time-model.md): sets the windows, returns the nodes. */
static uint32_t env_trace(rnic_sim *sim)
{
	uint32_t mask = (1u << sim->n) - 1;
	const char *s = std::getenv("RNIC_TRACE_NODES");
	uint64_t a = 0, b = 0;

	if (s && *s && std::strcmp(s, "all")) {
		uint32_t m = 0;
		char *end;

		for (const char *p = s; *p; p = *end ? end + 1 : end) {
			unsigned long x = std::strtoul(p, &end, 10);

			if (end == p || (*end && *end != ',') || x >= sim->n) {
				std::fprintf(stderr, "rnic model: ignoring RNIC_TRACE_NODES=%s\n", s);
				m = 0;
				break;
			}
			m |= 1u << x;
		}
		if (m)
			mask = m;
	}
	bool hs = env_u64("RNIC_TRACE_START", &a);
	bool he = env_u64("RNIC_TRACE_END", &b);

	if (hs || he)
		rnic_sim_trace_window(sim, a, he ? b : 0);
	s = std::getenv("RNIC_TRACE_QPN");
	if (s && *s) {
		int node = -1;
		int64_t qpn = -1;
		const char *at = std::strchr(s, '@');
		std::string q(s, at ? (size_t)(at - s) : std::strlen(s));
		char *end;
		bool ok = true;

		if (q != "any") {
			qpn = (int64_t)std::strtoll(q.c_str(), &end, 0);
			ok = !q.empty() && !*end && qpn >= 0 && qpn < (1 << 24);
		}
		if (at) {
			node = (int)std::strtol(at + 1, &end, 10);
			ok = ok && end != at + 1 && !*end && node >= 0 && (unsigned)node < sim->n;
		}
		uint64_t cyc = kDefaultTriggerCycles;

		env_u64("RNIC_TRACE_CYCLES", &cyc);
		if (ok)
			rnic_sim_trace_trigger(sim, node, qpn, cyc);
		else
			std::fprintf(stderr, "rnic model: ignoring RNIC_TRACE_QPN=%s\n", s);
	}
	s = std::getenv("RNIC_TRACE_API");
	if (s && *s && std::strcmp(s, "0"))
		rnic_sim_trace_api_only(sim);
	return mask;
}

/* RNIC_PCAP: one file, or one per node link when it names a directory. */
static void env_pcap(rnic_sim *sim, const char *e, unsigned k)
{
	std::string p(e);
	struct stat st;

	if (p.back() == '/' || (!stat(e, &st) && S_ISDIR(st.st_mode))) {
		if (p.back() != '/')
			p += '/';
		mkdir(p.c_str(), 0777);	/* may exist */
		for (unsigned i = 0; i < sim->n; i++) {
			std::string f = env_path((p + "node" + std::to_string(i) + ".pcap").c_str(), k);

			if (rnic_sim_pcap_open_link(sim, i, f.c_str()))
				std::fprintf(stderr, "rnic model: cannot open pcap %s\n", f.c_str());
		}
		return;
	}
	p = env_path(e, k);
	if (sim->net.pcap_open(p.c_str()))
		std::fprintf(stderr, "rnic model: cannot open pcap %s\n", p.c_str());
}

static void env_progress(rnic_sim *sim)
{
	const char *s = std::getenv("RNIC_PROGRESS");
	char *end;

	if (!s || !*s)
		return;
	double sec = std::strtod(s, &end);

	if (*end || !(sec >= 0))
		std::fprintf(stderr, "rnic model: ignoring RNIC_PROGRESS=%s\n", s);
	else
		rnic_sim_progress(sim, sec);
}

/* RNIC_FFWD: 0 off, check, anything else (or unset) on; RNIC_FFWD_NODE=0:
 * no node fast-forwards alone (lags). */
static void env_ffwd(rnic_sim *sim)
{
	const char *s = std::getenv("RNIC_FFWD_NODE");

	if (s && !std::strcmp(s, "0"))
		sim->lag_on = false;
	s = std::getenv("RNIC_FFWD");
	if (!s || !*s)
		return;
	if (!std::strcmp(s, "0"))
		sim->ffwd = rnic_sim::kFfOff;
	else if (!std::strcmp(s, "check"))
		sim->ffwd = rnic_sim::kFfCheck;
	else if (std::strcmp(s, "1"))
		std::fprintf(stderr, "rnic model: ignoring RNIC_FFWD=%s\n", s);
}

static void env_eval_all(rnic_sim *sim)
{
	const char *s = std::getenv("RNIC_EVAL_ALL");

	sim->eval_all = s && *s && std::strcmp(s, "0");
}

static void env_threads(rnic_sim *sim);
static std::atomic<unsigned> env_trace_seq{0}, env_pcap_seq{0};

void rnic_sim::init_inputs(unsigned i)
{
	Vrnic_top &t = *nodes[i]->top;

	t.clk_i = 0;
	t.rst_ni = 0;
	t.mmio_valid_i = 0;
	t.mmio_we_i = 0;
	t.mmio_addr_i = 0;
	t.mmio_wdata_i = 0;
	t.dma_rd_req_ready_i = 0;
	t.dma_rd_rsp_valid_i = 0;
	port_put(t.dma_rd_rsp_data_i, nullptr, 0);
	t.dma_rd_rsp_tag_i = 0;
	t.dma_rd_rsp_last_i = 0;
	t.dma_rd_rsp_err_i = 0;
	t.dma_wr_ready_i = 0;
	t.tx_ready_i = 0;
	t.rx_valid_i = 0;
	port_put(t.rx_data_i, nullptr, 0);
	t.rx_keep_i = 0;
	t.rx_last_i = 0;
	t.skip_i = 0;
	t.skip_cycles_i = 0;
}

static void fabric_uplink(void *arg, unsigned node, uint64_t cycle, const uint8_t *f, size_t len)
{
	static_cast<rnic_sim *>(arg)->links[node].send_frame(cycle, f, len);
}

rnic_sim::rnic_sim(const rnic_sim_cfg &c, const char *fabric)
	: cfg(c), ctx(new VerilatedContext), n(c.nodes), net(make_wire_cfg(c)), mon(c.nodes)
{
	static std::once_flag once;

	std::call_once(once, [] { pthread_atfork(nullptr, nullptr, [] { fork_gen++; }); });
	born_gen = fork_gen;	/* after the handler exists: every later fork counts */
	/* Deterministic start: no random X initialisation, tracing possible. */
	ctx->randReset(0);
	ctx->traceEverOn(true);
	pend.reserve(64);
	env_ffwd(this);
	env_eval_all(this);
	if (fabric && *fabric) {
		/* Nodes come with attach(); the trace opens with the first. */
		fabric_dir = fabric;
		net.set_uplink(fabric_uplink, this);
		const char *e = std::getenv("RNIC_PCAP");

		if (e && *e)
			env_pcap(this, e, env_pcap_seq++);
		env_progress(this);
		return;
	}
	for (unsigned i = 0; i < n; i++) {
		nodes[i].reset(new node(ctx.get(), i, cfg));
		init_inputs(i);
	}
	env_threads(this);

	const char *e = std::getenv("RNIC_TRACE");

	if (e && *e) {
		std::string p = env_path(e, env_trace_seq++);

		if (trace_open(p.c_str(), env_trace(this)))
			std::fprintf(stderr, "rnic model: cannot open trace %s\n", p.c_str());
	}
	e = std::getenv("RNIC_PCAP");
	if (e && *e)
		env_pcap(this, e, env_pcap_seq++);
	env_progress(this);

	/* Reset is held over a few edges and released before edge 0; it is
	 * dumped unless a window starts later. */
	dump_on = tfp && (!windowed || (tr_end > tr_start && tr_start == 0));
	for (unsigned k = 0; k < kResetCycles; k++) {
		for (unsigned i = 0; i < n; i++) {
			nodes[i]->top->clk_i = 0;
			nodes[i]->top->eval();
		}
		dump();
		for (unsigned i = 0; i < n; i++) {
			nodes[i]->top->clk_i = 1;
			nodes[i]->top->eval();
		}
		dump();
	}
	for (unsigned i = 0; i < n; i++)
		nodes[i]->top->rst_ni = 1;
}

/* A coverage build (cmake -DRNIC_COVERAGE=ON) writes the counts of a
 * simulation's models into $RNIC_COVERAGE_DIR, one file per simulation, while
 * the models (which hold the counters) still exist; scripts/coverage.sh
 * merges them. A node on a multi-process fabric names its file fab-*: what
 * it reaches depends on how the processes' calls interleave, so the CI check
 * leaves those files out (docs/coverage.md). */
static void cov_write(VerilatedContext *ctx, bool fabric)
{
#if VM_COVERAGE
	static std::atomic<unsigned> seq;
	const char *dir = std::getenv("RNIC_COVERAGE_DIR");

	if (!dir || !*dir)
		return;
	std::string p = std::string(dir) + (fabric ? "/fab-" : "/sim-") +
			std::to_string(getpid()) + "-" +
			std::to_string(seq++) + ".dat";
	/* Per instance: the FSM cover points differ only in generate indices. */
	ctx->coveragep()->forcePerInstance(true);
	ctx->coveragep()->write(p.c_str());
#else
	(void)ctx;
	(void)fabric;
#endif
}

/*
 * Batches on two host threads (RNIC_THREADS, batch()): the worker runs
 * the cycles of every hosted node but the main thread's, each cycle only
 * once the main thread has finished that cycle without ending the batch (a
 * wait ends it at the cycle its node shows activity), so it never runs a
 * cycle the batch does not have. Between batches it spins a little, then
 * sleeps.
 */
class batch_thread {
public:
	explicit batch_thread(rnic_sim *sim) : sim_(sim)
	{
		born_ = fork_gen;	/* counted from the simulation's construction */
		/* The program's signals stay with its own threads: the worker
		 * starts with every signal blocked. */
		sigset_t all, old;

		sigfillset(&all);
		pthread_sigmask(SIG_SETMASK, &all, &old);
		th_ = std::thread(&batch_thread::run, this);
		pthread_sigmask(SIG_SETMASK, &old, nullptr);
	}
	~batch_thread()
	{
		if (!alive()) {
			th_.detach();	/* a fork's child: the worker stayed behind */
			return;
		}
		stop_.store(true, std::memory_order_seq_cst);
		gen_.fetch_add(1, std::memory_order_seq_cst);
		gen_.notify_one();
		th_.join();
	}
	batch_thread(const batch_thread &) = delete;
	batch_thread &operator=(const batch_thread &) = delete;
	/* False in the child of a fork(), which has no worker. */
	bool alive() const { return fork_gen == born_; }

	/* A batch of the cycles [@c, @end); the main thread runs node @m. */
	void start(uint64_t c, uint64_t end, unsigned m)
	{
		c0_ = c;
		main_ = m;
		end_.store(end, std::memory_order_relaxed);
		main_at_.store(c, std::memory_order_relaxed);
		gen_.store(gen_.load(std::memory_order_relaxed) + 1, std::memory_order_seq_cst);
		if (sleeping_.load(std::memory_order_seq_cst))
			gen_.notify_one();
	}
	/* The batch ends at @end (before the main thread's progress moves). */
	void cut(uint64_t end) { end_.store(end, std::memory_order_release); }
	/* The main thread finished the cycles before @k. */
	void progress(uint64_t k) { main_at_.store(k, std::memory_order_release); }
	/* Returns once the worker finished the batch. */
	void finish()
	{
		const uint32_t g = gen_.load(std::memory_order_relaxed);

		for (unsigned spins = 0; done_.load(std::memory_order_acquire) != g; spins++)
			relax(spins);
	}

private:
	static void relax(unsigned spins)
	{
		if (spins < 4096) {
#if defined(__x86_64__) || defined(__i386__)
			__builtin_ia32_pause();
#endif
		} else {
			sched_yield();
		}
	}
	void run();

	rnic_sim *sim_;
	unsigned born_;
	uint64_t c0_ = 0;
	unsigned main_ = 0;
	std::atomic<uint64_t> end_{0}, main_at_{0};
	std::atomic<uint32_t> gen_{0}, done_{0};
	std::atomic<bool> sleeping_{false}, stop_{false};
	std::thread th_;
};

void batch_thread::run()
{
	using clk = std::chrono::steady_clock;
	uint32_t seen = 0;

	Verilated::threadContextp(sim_->ctx.get());
	for (;;) {
		uint32_t g;
		auto t0 = clk::now();

		/* Spin for 200 us after a batch (the next one usually comes
		 * within microseconds), then sleep. */
		for (unsigned spins = 1; (g = gen_.load(std::memory_order_acquire)) == seen; spins++) {
			if (spins % 256) {
				relax(0);
				continue;
			}
			if (clk::now() - t0 < std::chrono::microseconds(200))
				continue;
			sleeping_.store(true, std::memory_order_seq_cst);
			if (gen_.load(std::memory_order_seq_cst) == seen)
				gen_.wait(seen, std::memory_order_seq_cst);
			sleeping_.store(false, std::memory_order_relaxed);
			t0 = clk::now();
		}
		if (stop_.load(std::memory_order_acquire))
			return;
		seen = g;
		for (uint64_t k = c0_;; k++) {
			for (unsigned spins = 0; main_at_.load(std::memory_order_acquire) <= k &&
			     k < end_.load(std::memory_order_acquire); spins++)
				relax(spins);
			if (k >= end_.load(std::memory_order_acquire))
				break;
			for (unsigned j = 0; j < sim_->n; j++)
				if (j != main_ && sim_->nodes[j])
					sim_->node_cycle(j, k);
		}
		done_.store(g, std::memory_order_release);
	}
}

/* RNIC_THREADS: 2 batches of cycles on two host threads (batch()); auto
 * (or unset) the same where the machine has two processors, for as long as
 * batches are faster than one thread (judge()); 0 or 1 one thread.
 * docs/performance.md, "Two host threads". */
static void env_threads(rnic_sim *sim)
{
	const char *s = std::getenv("RNIC_THREADS");
	bool on, autom = false;

	if (!s || !*s || !std::strcmp(s, "auto")) {
		on = std::thread::hardware_concurrency() >= 2;
		autom = true;
	} else if (!std::strcmp(s, "2")) {
		on = true;
	} else if (!std::strcmp(s, "0") || !std::strcmp(s, "1")) {
		on = false;
	} else {
		std::fprintf(stderr, "rnic model: ignoring RNIC_THREADS=%s (0, 1, 2 or auto)\n", s);
		return;
	}
	/* No frame sent in a batch may arrive in it: a frame takes at least
	 * one cycle on the link and then the wire's latency. */
	sim->batch_max = std::min<uint64_t>(sim->cfg.wire_latency + 1, 64);
	if (on && sim->n >= 2 && sim->batch_max >= 4) {
		sim->bat.reset(new batch_thread(sim));
		sim->bat_auto = autom;
	}
}

/* Whether the next cycles may run as a batch: the plain loop without
 * anything that watches every cycle of every node (traces, checks, a
 * fabric or another platform, wire faults, the wire's capture), no host
 * page two nodes map, and at least two nodes that are not lagging (a
 * batch of one busy node only adds the handoffs). */
bool rnic_sim::batch_ok() const
{
	unsigned busy = 0;

	if (!bat || cycle < bat_off_until || !bat->alive() || tfp || ffwd != kFfOn ||
	    ff_check_until || host || xlink || on_fabric() || !net.batchable() || shared_pages)
		return false;
	for (unsigned i = 0; i < n; i++)
		if (nodes[i] && !nodes[i]->lagging())
			busy++;
	return busy >= 2;
}

/* One cycle @k of node @i alone (a batch): what tick() does for it. */
void rnic_sim::node_cycle(unsigned i, uint64_t k)
{
	node &nd = *nodes[i];

	net.deliver_node(i, k);
	settle(i, k);
	/* decide() for this node: no skip in a batch (the nodes lag instead,
	 * which leaves the same state) */
	if (nd.ico_skip) {
		nd.top->eval();
		nd.ico_skip = false;
	}
	if (nd.lag_from == kNoCycle && lag_may_start(i, k)) {
		nd.lag_from = k;
		nd.lag_due = nd.top->next_due_o;
		nd.lag_shadow = false;
		lag_runs++;
	}
	edge(i, k);
	retire(i, k);
}

/*
 * Up to @limit cycles from the current one as a batch: each node runs them
 * on its own (node_cycle()), the main thread node @w (or the first hosted
 * node, @w < 0) and the worker the others. Nodes meet only through the wire
 * and, between calls of the loop, through software; a batch is never longer
 * than a frame takes from its last beat to its receiver, so no frame sent in
 * it arrives in it, and it ends after the cycle in which node @w's visible
 * DMA writes or MSIs are no longer @w0 and @i0 (a wait's end). Events for
 * the callbacks are delivered after it, in the order tick() would have.
 * Returns the cycles run.
 */
uint64_t rnic_sim::batch(uint64_t limit, int w, uint64_t w0, uint64_t i0)
{
	const uint64_t c = cycle;
	uint64_t end = c + std::min(limit, batch_max);
	unsigned m = 0;

	if (w >= 0) {
		m = (unsigned)w;
	} else {
		while (!nodes[m])
			m++;
	}
	if (prog_interval > 0 && c >= prog_next) {
		progress(c);
		prog_next = (c / kProgressStride + 1) * kProgressStride;
	}
	net.batch_begin(end, end - c);
	in_batch = true;
	bat->start(c, end, m);

	const node &nd = *nodes[m];

	for (uint64_t k = c; k < end; k++) {
		node_cycle(m, k);
		if (w >= 0 && (nd.mem.writes() != w0 || nd.irqs != i0)) {
			end = k + 1;
			bat->cut(end);
		}
		bat->progress(k + 1);
	}
	bat->finish();
	in_batch = false;
	net.batch_end();
	/* tick()'s order: per cycle, node by node, the sampled events and
	 * the monitor's, then the nodes' interrupts. */
	size_t ev[RNIC_SIM_MAX_NODES] = {}, mo[RNIC_SIM_MAX_NODES] = {};

	for (uint64_t k = c; k < end; k++) {
		for (unsigned i = 0; i < n; i++) {
			std::vector<sim_event> &q = bpend[i];

			while (ev[i] < q.size() && q[ev[i]].cycle == k && q[ev[i]].kind != kIrqKind)
				pend.push_back(q[ev[i]++]);
			if (mo[i] < bmon[i].size() && bmon[i][mo[i]].first == k) {
				mon.sample(i, bmon[i][mo[i]].second, k, pend);
				mo[i]++;
			}
		}
		for (unsigned i = 0; i < n; i++) {
			std::vector<sim_event> &q = bpend[i];

			while (ev[i] < q.size() && q[ev[i]].cycle == k)
				pend.push_back(q[ev[i]++]);
		}
	}
	for (unsigned i = 0; i < n; i++) {
		bpend[i].clear();
		bmon[i].clear();
	}
	half += 2 * (end - c);
	ctx->time(half * kHalfPeriodPs);
	cycle = end;
	batches++;
	batch_cycles += end - c;
	if (!pend.empty())
		dispatch(end - 1);
	return end - c;
}

/* A cycle on one thread (tick()) and, when it was evaluated edge by edge,
 * the wait it serves (@w, @w0, @i0 as for batch()) goes on and batch_ok(),
 * a batch after it. Returns the cycles run. */
uint64_t rnic_sim::advance(uint64_t limit, int w, uint64_t w0, uint64_t i0)
{
	using clk = std::chrono::steady_clock;
	/* only judge() needs the host's time */
	auto now = [this] { return bat_auto ? clk::now() : clk::time_point(); };

	if (!bat || cycle < bat_off_until)
		return tick(limit);
	/* A node whose RTL is not quiet rules out a skip, so no cycle on one
	 * thread is needed to find out whether one comes; in auto mode every
	 * fourth batch still has one before it, the yardstick of judge(). */
	bool busy = false;

	for (unsigned i = 0; i < n; i++)
		if (nodes[i] && !nodes[i]->lagging() && !nodes[i]->top->quiet_o)
			busy = true;
	if (busy && (!bat_auto || (batches & 3)) && batch_ok()) {
		const auto t0 = now();
		const uint64_t b = batch(limit, w, w0, i0);

		if (bat_auto)
			judge(0, 0, std::chrono::duration<double, std::nano>(now() - t0).count(), b);
		return b;
	}
	const auto t0 = now();
	const uint64_t s = tick(limit);

	if (s != 1 || limit == 1 || wait_end(w, w0, i0) || !batch_ok())
		return s;
	const auto t1 = now();
	const uint64_t b = batch(limit - 1, w, w0, i0);

	if (bat_auto)
		judge(std::chrono::duration<double, std::nano>(t1 - t0).count(), 1,
		      std::chrono::duration<double, std::nano>(now() - t1).count(), b);
	return s + b;
}

void rnic_sim::judge(double ser_ns, uint64_t ser_cyc, double bat_ns, uint64_t bat_cyc)
{
	constexpr uint64_t kJudgeBatches = 16;
	constexpr uint64_t kBackoffMin = 1 << 14, kBackoffMax = 1 << 24;

	judge_ser_ns += ser_ns;
	judge_ser_cyc += (double)ser_cyc;
	judge_bat_ns += bat_ns;
	judge_bat_cyc += (double)bat_cyc;
	if (++judge_n < kJudgeBatches || !judge_ser_cyc)
		return;
	/* one-thread cycles against batched ones; one lost window may be a
	 * hiccup (a page fault, the worker's first batch), two in a row are
	 * not */
	if (judge_bat_ns / judge_bat_cyc < judge_ser_ns / judge_ser_cyc) {
		judge_lost = 0;
		bat_backoff = 0;
	} else if (++judge_lost >= 2) {
		judge_lost = 0;
		bat_backoff = bat_backoff ? std::min(2 * bat_backoff, kBackoffMax) : kBackoffMin;
		bat_off_until = cycle + bat_backoff;
		bat_lost++;
	}
	judge_n = 0;
	judge_ser_ns = judge_ser_cyc = judge_bat_ns = judge_bat_cyc = 0;
}

/* Node @i's IOMMU maps (@add) or unmaps the host range [@host, +@len). */
void rnic_sim::host_pages(unsigned i, uintptr_t host, size_t len, bool add)
{
	for (uintptr_t p = host & ~(uintptr_t)4095; p < host + len; p += 4096) {
		if (add) {
			if (hp_refs[i][p]++ == 0 && ++hp_nodes[p] == 2)
				shared_pages++;
			continue;
		}
		auto it = hp_refs[i].find(p);

		if (it == hp_refs[i].end() || --it->second)
			continue;
		hp_refs[i].erase(it);
		if (hp_nodes[p]-- == 2)
			shared_pages--;
		if (!hp_nodes[p])
			hp_nodes.erase(p);
	}
}

rnic_sim::~rnic_sim()
{
	bat.reset();
	/* The trace refers to the models: close it first. */
	trace_close();
	for (unsigned i = 0; i < n; i++)
		if (nodes[i])
			nodes[i]->top->final();
	cov_write(ctx.get(), on_fabric());
	for (unsigned i = 0; i < n; i++) {
		nodes[i].reset();
		links[i].detach();
	}
}

/* A node joining a fabric: created and reset on its own (not dumped). */
void rnic_sim::add_node(unsigned i)
{
	nodes[i].reset(new node(ctx.get(), i, cfg));
	init_inputs(i);
	Vrnic_top &t = *nodes[i]->top;

	for (unsigned k = 0; k < kResetCycles; k++) {
		t.clk_i = 0;
		t.eval();
		t.clk_i = 1;
		t.eval();
	}
	t.rst_ni = 1;
}

int rnic_sim::attach(unsigned i)
{
	uint64_t start;
	bool any = false;

	if (!on_fabric() || nodes[i])
		return 0;
	for (unsigned k = 0; k < n; k++)
		any = any || nodes[k];
	int r = links[i].attach(fabric_dir, i, cfg.wire_latency, cycle, &start);

	if (r)
		return r;
	if (start != cycle) {
		/* Only a process that simulates nothing yet may move its clock. */
		if (any) {
			links[i].detach();
			return -EIO;
		}
		cycle = start;
	}
	add_node(i);
	const char *e = std::getenv("RNIC_TRACE");

	if (e && *e && !tfp) {
		std::string p = env_path(e, env_trace_seq++);

		if (trace_open(p.c_str(), 1u << i))
			std::fprintf(stderr, "rnic model: cannot open trace %s\n", p.c_str());
	}
	return 0;
}

/* The switch's frames join the wire at their arrival cycles. */
void rnic_sim::fabric_take()
{
	for (unsigned i = 0; i < n; i++) {
		if (!nodes[i] || !links[i].drain(fab_rx))
			continue;
		for (const fabric_link::rx_frame &f : fab_rx) {
			/* Cannot happen while the lookahead holds (fabric_proto.h). */
			if (f.at < cycle)
				model_warn(i, cycle, "fabric frame for cycle %llu arrived late",
					   (unsigned long long)f.at);
			net.arrive(i, f.at, f.data.data(), f.data.size());
		}
		fab_rx.clear();
	}
}

/* Edge @c may run once every hosted node's link promised past it. */
void rnic_sim::fabric_wait(uint64_t c)
{
	unsigned spins = 0;

	fabric_take();
	while (c >= fabric_bound()) {
		fabric_promise(c);
		fabric_take();
		if (c < fabric_bound())
			break;
		if (!(++spins & 255)) {
			for (unsigned i = 0; i < n; i++)
				if (nodes[i])
					links[i].check_alive();
		}
		if (spins > fabric_spins())
			fabric_block(1000);
	}
}

/* Sleeps on the link that holds this process back. */
void rnic_sim::fabric_block(unsigned us)
{
	unsigned lim = n;

	for (unsigned i = 0; i < n; i++)
		if (nodes[i] && (lim == n || links[i].bound() < links[lim].bound()))
			lim = i;
	if (lim < n)
		links[lim].wait(us);
}

uint64_t rnic_sim::tick(uint64_t limit)
{
	const uint64_t c = cycle;

	if (on_fabric())
		fabric_wait(c);
	begin_cycle(c);
	for (unsigned i = 0; i < n; i++)
		if (nodes[i])
			settle(i, c);
	const uint64_t steps = decide(c, limit, ~0ull);

	for (unsigned i = 0; steps == 1 && i < n; i++)
		if (nodes[i])
			edge(i, c);
	dump();
	for (unsigned i = 0; i < n; i++)
		if (nodes[i])
			retire(i, cycle - 1);
	if (!pend.empty())
		dispatch(c);
	if (ff_check_until && cycle >= ff_check_until)
		ff_compare();
	/* Keep the switch going while this process runs ahead of its promise
	 * (at the multiples of kPromiseStride, the last one a skip passed). */
	if (on_fabric()) {
		uint64_t p = cycle & ~(kPromiseStride - 1);

		if (p > c)
			fabric_promise(p);
	}
	return steps;
}

/* The phases of tick() (model/sim_phase.h). Start of the cycle of edge @c. */
void rnic_sim::begin_cycle(uint64_t c)
{
	dump_on = tfp && trace_gate(c);
	if (prog_interval > 0 && c >= prog_next) {
		progress(c);
		prog_next = (c / kProgressStride + 1) * kProgressStride;
	}
	net.deliver(c);
}

/* Node @i drives its inputs for edge @c; clk_i = 0 settles the outputs. */
void rnic_sim::settle(unsigned i, uint64_t c)
{
	node &nd = *nodes[i];
	Vrnic_top &t = *nd.top;

	if (nd.lag_from != kNoCycle) {
		if (lag_must_end(i, c)) {
			if (nd.lag_shadow)
				lag_check(i, c);
			else
				lag_end(i, c);
		} else if (!nd.lag_shadow) {
			return;
		}
	}
	nd.mem.drive(t, c);
	nd.io.drive(t, c);
	net.drive(i, t, c);
	t.clk_i = 0;
	if (!(same_inputs(nd.in, t) && nd.in_ok && !dump_on && !eval_all &&
	      mark_clk_low(*t.rootp, 0))) {
		t.eval();
		nd.ico_skip = false;
	}
	nd.in_ok = true;
}

/* Every node settled: the low level is dumped and the edges to run decided.
 * A skip is taken here by every node; the cycle count moves on. */
uint64_t rnic_sim::decide(uint64_t c, uint64_t limit, uint64_t ext_next)
{
	uint64_t steps = 1;

	dump();
	if (ffwd != kFfOff && limit >= kMinSkip && !ff_check_until)
		steps = skip_len(c, limit, ext_next);
	if (steps > 1 && ffwd == kFfOn) {
		skip_edge(c, steps);
		half += 2 * (steps - 1);
	} else {
		for (unsigned i = 0; i < n; i++) {
			if (nodes[i] && nodes[i]->ico_skip) {
				nodes[i]->top->eval();	/* clk_i is 0: no edge */
				nodes[i]->ico_skip = false;
			}
		}
		if (steps > 1) {
			/* Check: the skip's state is the expectation, then the
			 * edges are evaluated one by one from the state before. */
			skip_edge(c, steps);
			ff_check_from = c;
			ff_check_until = c + steps;
			steps = 1;
		}
	}
	/* Edge by edge: a quiet node with idle ports waits out its edges
	 * while the others run (a lag), and takes them as one skip when
	 * something reaches it or falls due (lag_end()). */
	for (unsigned i = 0; steps == 1 && i < n; i++) {
		if (!nodes[i] || nodes[i]->lag_from != kNoCycle || !lag_may_start(i, c))
			continue;
		node &nd = *nodes[i];

		nd.lag_from = c;
		nd.lag_due = nd.top->next_due_o;
		nd.lag_shadow = ffwd == kFfCheck;
		if (nd.lag_shadow) {
			std::pair<uint8_t *, size_t> st = rtl_state(*nd.top);

			nd.lag_state.assign(st.first, st.first + st.second);
			nd.lag_credit = nd.mem.credit();
		}
		lag_runs++;
	}
	cycle = c + steps;
	return steps;
}

/* Edge @c of node @i: the handshakes on the settled values, then the edge. */
void rnic_sim::edge(unsigned i, uint64_t c)
{
	Vrnic_top &t = *nodes[i]->top;

	if (nodes[i]->lagging())
		return;
	sample(i, c);
	t.clk_i = 1;
	if (eval_all)
		t.eval();
	else
		eval_edge(t);
}

/* After the edge(s): due DMA writes become visible, then the MSIs they
 * held back are delivered. */
void rnic_sim::retire(unsigned i, uint64_t last)
{
	node &nd = *nodes[i];

	nd.mem.retire(last);
	while (!nd.msis.empty() && nd.msis.front().after_writes <= nd.mem.writes()) {
		nd.irqs++;
		if (irq_cb || host)
			evq(i).push_back({last, nd.msis.front().cqn, 0, (uint8_t)i, kIrqKind});
		nd.msis.pop_front();
	}
}

/* How many edges from @c on (at most @limit) one skip may stand for: 1
 * unless every hosted node is quiet with idle ports and nothing is due. */
uint64_t rnic_sim::skip_len(uint64_t c, uint64_t limit, uint64_t ext_next)
{
	uint64_t end = limit > ~0ull - c ? ~0ull : c + limit;

	end = std::min(end, ext_next);

	if (dump_on)
		return 1;
	/* A trace window that starts later is evaluated edge by edge. */
	if (tfp && tr_end > tr_start && c < tr_start)
		end = std::min(end, tr_start);
	if (on_fabric())
		end = std::min(end, fabric_bound());
	end = std::min(end, net.next_event());
	for (unsigned i = 0; i < n; i++) {
		if (!nodes[i])
			continue;
		const node &nd = *nodes[i];

		if (!node_idle(i))
			return 1;
		/* A lagging node's outputs are still those of its lag's start. */
		if (nd.lagging())
			end = std::min(end, nd.lag_from + nd.lag_due);
		else
			end = std::min(end, c + nd.top->next_due_o);
		end = std::min(end, nd.mem.next_event());
		end = std::min(end, nd.io.next_event());
	}
	return end >= c + kMinSkip ? end - c : 1;
}

/* Node @i, settled, is quiet with idle ports: its edges from here on
 * change nothing but its free-running counters until something reaches it
 * or its next_due_o comes. */
bool rnic_sim::node_idle(unsigned i) const
{
	const Vrnic_top &t = *nodes[i]->top;

	return t.quiet_o && !t.mmio_valid_i && !t.dma_rd_rsp_valid_i && !t.rx_valid_i &&
	       !t.dma_rd_req_valid_o && !t.dma_wr_valid_o && !t.tx_valid_o && !t.irq_valid_o &&
	       !t.ev_valid_o && !t.ev_place_o && !t.mmio_rvalid_o && !net.rx_pending(i);
}

/* Whether node @i may leave out edge @c and the ones after it (a lag): it
 * is idle, nothing of its own is due within kMinSkip edges, nothing is
 * dumped and it is not on a fabric (whose promises assume every hosted
 * node at the process's cycle). */
bool rnic_sim::lag_may_start(unsigned i, uint64_t c) const
{
	const node &nd = *nodes[i];

	return lag_on && (ffwd == kFfOn || (ffwd == kFfCheck && !ff_check_until)) && !dump_on &&
	       !on_fabric() && nd.msis.empty() &&
	       node_idle(i) && nd.top->next_due_o >= kMinSkip &&
	       nd.mem.next_event() >= c + kMinSkip && nd.io.next_event() >= c + kMinSkip;
}

/* Whether lagging node @i must take edge @c itself: something reaches its
 * ports at @c (a frame, an MMIO request, a DMA beat or a write becoming
 * visible), its next_due_o has come, or edges are dumped or checked. */
bool rnic_sim::lag_must_end(unsigned i, uint64_t c) const
{
	const node &nd = *nodes[i];

	return !lag_on || ffwd == kFfOff || nd.lag_shadow != (ffwd == kFfCheck) || dump_on ||
	       net.rx_pending(i) ||
	       nd.mem.next_event() <= c || nd.io.next_event() <= c ||
	       c - nd.lag_from >= nd.lag_due;
}

/* Node @i takes the edges of its lag, lag_from to @c - 1, as one edge with
 * skip_i set, as a fast-forward skip decided at lag_from would have; edge
 * @c follows as usual. */
void rnic_sim::lag_end(unsigned i, uint64_t c)
{
	node &nd = *nodes[i];
	Vrnic_top &t = *nd.top;
	const uint64_t k = c - nd.lag_from;

	nd.lag_from = kNoCycle;
	eval_skip(t, k);
	nd.ico_skip = true;
	nd.mem.skip(k);
	lag_edges += k;
}

/* Check mode: node @i was evaluated over the edges of its shadow lag,
 * lag_from to @c - 1; its state now must be what the skip lag_end() takes
 * gives from the state and credit the lag began with. */
void rnic_sim::lag_check(unsigned i, uint64_t c)
{
	node &nd = *nodes[i];
	Vrnic_top &t = *nd.top;
	const uint64_t k = c - nd.lag_from;
	std::pair<uint8_t *, size_t> st = rtl_state(t);
	std::vector<uint8_t> real(st.first, st.first + st.second);
	const uint64_t credit = nd.mem.credit_after(nd.lag_credit, k);
	size_t bad, nbad;

	std::memcpy(st.first, nd.lag_state.data(), st.second);
	eval_skip(t, k);
	t.eval();	/* settled without the skip inputs, as after an edge */
	nbad = state_diff(t, real.data(), &bad);
	std::memcpy(st.first, real.data(), st.second);
	if (nbad || credit != nd.mem.credit()) {
		std::fprintf(stderr, "rnic model: fast-forward check: node %u: its lag over edges "
			     "[%llu, %llu) differs from evaluating them: %zu RTL state bytes (first "
			     "at offset %zu of %zu), credit %llu/%llu\n", i,
			     (unsigned long long)nd.lag_from, (unsigned long long)c, nbad,
			     bad, st.second, (unsigned long long)credit,
			     (unsigned long long)nd.mem.credit());
		std::abort();
	}
	nd.lag_from = kNoCycle;
	nd.lag_shadow = false;
	lag_edges += k;
	lag_checked++;
}

/* Edge @c standing for @n edges, on every node. In check mode the state it
 * leaves is kept as the expectation and the state before it restored. */
void rnic_sim::skip_edge(uint64_t c, uint64_t n)
{
	std::vector<uint8_t> before;

	for (unsigned i = 0; i < this->n; i++) {
		if (!nodes[i])
			continue;
		node &nd = *nodes[i];
		Vrnic_top &t = *nd.top;
		std::pair<uint8_t *, size_t> st = rtl_state(t);
		/* A lagging node takes its lag with it (a shadow lag of check
		 * mode goes on: its node is evaluated). */
		const bool lag = nd.lagging();
		const uint64_t k = lag ? c - nd.lag_from + n : n;

		if (lag) {
			lag_edges += c - nd.lag_from;
			nd.lag_from = kNoCycle;
		}
		if (ffwd == kFfCheck)
			before.assign(st.first, st.first + st.second);
		eval_skip(t, k);
		if (ffwd != kFfCheck) {
			nd.ico_skip = true;
			nd.mem.skip(k);
			continue;
		}
		/* Settle without the skip inputs, as after an ordinary edge. */
		t.eval();
		nd.ff_expect.assign(st.first, st.first + st.second);
		nd.ff_credit = nd.mem.credit_after(n);
		nd.ff_writes = nd.mem.writes();
		nd.ff_irqs = nd.irqs;
		std::memcpy(st.first, before.data(), st.second);
	}
	ff_cycles += n;
	ff_skips++;
}

/* Check mode: the edges a skip stood for were all evaluated; the RTL state
 * and the host memory must be what the skip gave. */
void rnic_sim::ff_compare()
{
	for (unsigned i = 0; i < n; i++) {
		if (!nodes[i])
			continue;
		node &nd = *nodes[i];
		Vrnic_top &t = *nd.top;
		std::pair<uint8_t *, size_t> st = rtl_state(t);
		size_t bad;
		const size_t nbad = state_diff(t, nd.ff_expect.data(), &bad);

		if (nbad || nd.mem.credit() != nd.ff_credit || nd.mem.writes() != nd.ff_writes ||
		    nd.irqs != nd.ff_irqs) {
			std::fprintf(stderr, "rnic model: fast-forward check: node %u: skipping edges "
				     "[%llu, %llu) differs from evaluating them: %zu RTL state bytes "
				     "(first at offset %zu of %zu), credit %llu/%llu, writes %llu/%llu, "
				     "irqs %llu/%llu\n", i, (unsigned long long)ff_check_from,
				     (unsigned long long)ff_check_until, nbad, bad,
				     st.second, (unsigned long long)nd.ff_credit,
				     (unsigned long long)nd.mem.credit(),
				     (unsigned long long)nd.ff_writes,
				     (unsigned long long)nd.mem.writes(),
				     (unsigned long long)nd.ff_irqs, (unsigned long long)nd.irqs);
			std::abort();
		}
	}
	ff_checked++;
	ff_check_until = 0;
}

void rnic_sim::sample(unsigned i, uint64_t c)
{
	node &nd = *nodes[i];
	Vrnic_top &t = *nd.top;

	nd.io.sample(t, c);
	nd.mem.sample(t, c);
	net.sample(i, t, c);
	if (t.irq_valid_o)
		nd.msis.push_back({nd.mem.writes() + nd.mem.writes_queued(), t.irq_cqn_o});
	if (t.ev_valid_o) {
		nd.cqes += __builtin_popcount(t.ev_valid_o & (1u << RNIC_EV_SEND_CQE |
							     1u << RNIC_EV_RECV_CQE));
		for (unsigned k = 0; ev_cb && k < kEvKinds; k++) {
			if (!(t.ev_valid_o >> k & 1))
				continue;
			evq(i).push_back({c, port_field(t.ev_qpn_o, 24 * k, 24),
					port_field(t.ev_idx_o, 16 * k, 16), (uint8_t)i,
					(uint8_t)k});
		}
	}
	if (mon.active()) {
		mon_ports p;

		p.take(t);
		if (in_batch)
			bmon[i].push_back({c, p});
		else
			mon.sample(i, p, c, pend);
	}
}

void rnic_sim::dispatch(uint64_t c)
{
	(void)c;
	in_cb = true;
	for (const sim_event &p : pend) {
		if (p.kind == kIrqKind) {
			if (host)
				host->msi(p.node, p.qpn);
			else if (irq_cb)
				irq_cb(irq_arg, p.node, p.qpn);
		} else if (ev_cb) {
			ev_cb(ev_arg, p.node, p.kind, p.qpn, p.idx, p.cycle);
		}
	}
	pend.clear();
	in_cb = false;
}

/* Wall-clock driven printing only: nothing simulated depends on it. */
void rnic_sim::progress(uint64_t c)
{
	using clk = std::chrono::steady_clock;
	clk::time_point now = clk::now();
	double dt = std::chrono::duration<double>(now - prog_last).count();
	double all = std::chrono::duration<double>(now - prog_t0).count();
	uint64_t cq = 0;

	if (dt < prog_interval)
		return;
	for (unsigned i = 0; i < n; i++)
		if (nodes[i])
			cq += nodes[i]->cqes;
	std::fprintf(stderr, "rnic progress: cycle %llu (%.3f ms simulated), %llu CQEs written, "
		     "%.3g cycles/s (%.3g over %.1f s), %llu cycles fast-forwarded\n",
		     (unsigned long long)c, (double)c * 4e-6, (unsigned long long)cq,
		     (double)(c - prog_last_cycle) / dt, all > 0 ? (double)c / all : 0.0, all,
		     (unsigned long long)ff_cycles);
	prog_last = now;
	prog_last_cycle = c;
}

/* Callbacks run between two cycles; they may post MMIO writes and look at
 * memory, but must not run the simulation themselves. */
bool rnic_sim::may_run(const char *what)
{
	if (!in_cb)
		return true;
	std::fprintf(stderr, "rnic model: %s called from a callback; ignored\n", what);
	return false;
}

int rnic_sim::trace_open(const char *path, uint32_t node_mask)
{
	if (!path || !*path || !(node_mask & ((1u << n) - 1)))
		return -EINVAL;
	trace_close();
	/* Verilator 5 takes several models of one context in one trace; each
	 * model's signals sit under its name (node0, node1, ...). */
	tfp.reset(new VerilatedFstC);
	for (unsigned i = 0; i < n; i++)
		if ((node_mask >> i & 1) && nodes[i])
			nodes[i]->top->trace(tfp.get(), 99);
	tfp->open(path);
	if (!tfp->isOpen()) {
		tfp.reset();
		return -EIO;
	}
	return 0;
}

void rnic_sim::trace_close()
{
	if (!tfp)
		return;
	tfp->close();
	tfp.reset();
	dump_on = false;
}

/* ---- C API ---- */

static bool node_ok(const rnic_sim *sim, unsigned node, const char *fn)
{
	if (sim && node < sim->n && sim->nodes[node])
		return true;
	if (sim && node < sim->n)
		std::fprintf(stderr, "rnic model: %s: node %u is not hosted by this process\n",
			     fn, node);
	else
		std::fprintf(stderr, "rnic model: %s: no node %u\n", fn, node);
	return false;
}

/* For counters: a node another process hosts has none here. */
static bool node_here(const rnic_sim *sim, unsigned node)
{
	return sim && node < sim->n && sim->nodes[node];
}

/* The wire whose faults, rules and counts the C API reaches: the
 * platform's (sim_set_link()) or ours. */
static rnic::wire &link_wire(rnic_sim *sim)
{
	return sim->xlink ? sim->xlink->sync() : sim->net;
}

static const rnic::wire &link_wire(const rnic_sim *sim)
{
	return sim->xlink ? sim->xlink->sync() : sim->net;
}

static std::mutex global_lock;
static rnic_sim *global_sim;

/* RNIC_WIRE_STATS=<1, stderr, stdout or a file>: the fault counters, and for
 * each node the frames its RTL took and dropped (CNT_RX_PKTS, CNT_RX_DROP),
 * read once the wire is quiet. The program is exiting: callbacks are off. */
static void wire_stats(rnic_sim *sim)
{
	constexpr uint32_t kRegCntRxPkts = 0x208, kRegCntRxDrop = 0x210;
	const char *e = std::getenv("RNIC_WIRE_STATS");
	FILE *f;

	if (!sim || sim->wire_stats_done || !e || !*e || !std::strcmp(e, "0"))
		return;
	sim->wire_stats_done = true;
	f = !std::strcmp(e, "stdout") ? stdout :
	    !std::strcmp(e, "1") || !std::strcmp(e, "stderr") ? stderr : std::fopen(e, "w");
	if (!f) {
		std::fprintf(stderr, "rnic model: cannot open %s\n", e);
		return;
	}
	uint64_t pkts[RNIC_SIM_MAX_NODES], drop[RNIC_SIM_MAX_NODES];

	rnic_sim_set_event_cb(sim, nullptr, nullptr);
	rnic_sim_set_irq_cb(sim, nullptr, nullptr);
	auto idle = [sim] { return sim->net.idle() && link_wire(sim).idle(); };

	for (unsigned k = 0; k < 1000 && !sim->in_cb && !idle(); k++)
		rnic_sim_step(sim, 100);	/* a platform's host runs it in its time */
	for (unsigned i = 0; i < sim->n; i++) {
		if (!node_here(sim, i))
			continue;
		pkts[i] = rnic_sim_mmio_read(sim, i, kRegCntRxPkts);	/* ~0 in a callback */
		drop[i] = rnic_sim_mmio_read(sim, i, kRegCntRxDrop);
	}
	print_fault_header(f);
	for (unsigned i = 0; i < sim->n; i++) {
		if (!node_here(sim, i))
			continue;
		for (unsigned d = 0; d < 2; d++)
			print_fault_counts(f, i, d, link_wire(sim).fault_counts(i, d));
		std::fprintf(f, "%4u rtl rx_pkts %llu rx_drop %llu%s\n", i, (unsigned long long)pkts[i],
			     (unsigned long long)drop[i], idle() ? "" : " (wire not idle)");
	}
	if (f != stdout && f != stderr)
		std::fclose(f);
	else
		std::fflush(f);
}

/* RNIC_FFWD_STATS=1: the fast-forward counts on stderr at exit. */
static void ffwd_stats(const rnic_sim *sim)
{
	const char *e = std::getenv("RNIC_FFWD_STATS");

	if (!sim || !e || !*e || !std::strcmp(e, "0"))
		return;
	std::fprintf(stderr, "rnic model: fast-forward %s: %llu of %llu cycles in %llu skips"
		     " (%llu checked); nodes alone: %llu node-edges in %llu lags (%llu checked)\n",
		     sim->ffwd == rnic_sim::kFfOff ? "off" :
		     sim->ffwd == rnic_sim::kFfCheck ? "check" : "on",
		     (unsigned long long)sim->ff_cycles, (unsigned long long)sim->cycle,
		     (unsigned long long)sim->ff_skips, (unsigned long long)sim->ff_checked,
		     (unsigned long long)sim->lag_edges, (unsigned long long)sim->lag_runs,
		     (unsigned long long)sim->lag_checked);
	if (sim->bat)
		std::fprintf(stderr, "rnic model: two threads%s: %llu cycles in %llu batches"
			     " (host pages of more than one node now: %llu; turned off after losing to one"
			     " thread: %llu times)\n", sim->bat_auto ? " (auto)" : "",
			     (unsigned long long)sim->batch_cycles, (unsigned long long)sim->batches,
			     (unsigned long long)sim->shared_pages, (unsigned long long)sim->bat_lost);
}

/*
 * A fork's child does not destroy the simulation it inherited
 * (rnic_sim::forked()): its memory goes with the child's exit. Kept
 * reachable here, so that a leak checker does not count it as lost.
 */
static rnic_sim *left_to_parent[16];

static void leave_to_parent(rnic_sim *sim)
{
	static unsigned n;

	left_to_parent[n++ % 16] = sim;
}

static void global_fini(void)
{
	rnic_sim *sim;

	{
		std::lock_guard<std::mutex> g(global_lock);

		sim = global_sim;
		global_sim = nullptr;
	}
	if (sim && sim->forked()) {
		leave_to_parent(sim);
		return;
	}
	wire_stats(sim);
	ffwd_stats(sim);
	delete sim;	/* closes the trace */
}

/* Environment overrides of the global simulation's configuration. */
static void env_cfg(struct rnic_sim_cfg *cfg)
{
	static const struct {
		const char *name;
		unsigned int rnic_sim_cfg::*field;
	} vars[] = {
		{"RNIC_NODES", &rnic_sim_cfg::nodes},
		{"RNIC_MEM_RD_LATENCY", &rnic_sim_cfg::mem_rd_latency},
		{"RNIC_MEM_WR_LATENCY", &rnic_sim_cfg::mem_wr_latency},
		{"RNIC_MEM_BYTES_PER_CYCLE", &rnic_sim_cfg::mem_bytes_per_cycle},
		{"RNIC_MEM_MAX_RD_OUT", &rnic_sim_cfg::mem_max_rd_out},
		{"RNIC_WIRE_LATENCY", &rnic_sim_cfg::wire_latency},
		{"RNIC_WIRE_BYTES_PER_CYCLE", &rnic_sim_cfg::wire_bytes_per_cycle},
		{"RNIC_WIRE_OVERHEAD", &rnic_sim_cfg::wire_overhead},
		{"RNIC_MMIO_LATENCY", &rnic_sim_cfg::mmio_latency},
	};

	for (const auto &v : vars) {
		const char *s = std::getenv(v.name);
		char *end;

		if (!s || !*s)
			continue;
		unsigned long x = std::strtoul(s, &end, 0);

		if (*end || x > 0xffffffffu)
			std::fprintf(stderr, "rnic model: ignoring %s=%s\n", v.name, s);
		else
			cfg->*v.field = (unsigned int)x;
	}
}

/* RNIC_WIRE_<fault>[_<n>[_TX|_RX]]: faults of the global simulation's links
 * (parsed in wire_faults.cpp). */
static void env_faults(rnic_sim *sim)
{
	env_wire_check(sim->n);
	for (unsigned i = 0; i < sim->n; i++) {
		for (unsigned d = 0; d < 2; d++) {
			rnic_wire_faults f;

			if (env_link_faults(i, d, &f))
				rnic_sim_set_link_faults(sim, i, d, &f);
		}
	}
}

extern "C" {

void rnic_sim_default_cfg(struct rnic_sim_cfg *cfg)
{
	cfg->nodes = 2;
	cfg->mem_rd_latency = 50;
	cfg->mem_wr_latency = 25;
	cfg->mem_bytes_per_cycle = 64;
	cfg->mem_max_rd_out = 32;
	cfg->wire_latency = 25;
	cfg->wire_bytes_per_cycle = kBytes;
	cfg->wire_overhead = 24;
	cfg->mmio_latency = 8;
}

struct rnic_sim *rnic_sim_create(const struct rnic_sim_cfg *cfg)
{
	return new rnic_sim(sanitize(cfg), nullptr);
}

struct rnic_sim *rnic_sim_create_fabric(const struct rnic_sim_cfg *cfg, const char *dir)
{
	if (!dir || !*dir)
		return nullptr;
	return new rnic_sim(sanitize(cfg), dir);
}

int rnic_sim_node_attach(struct rnic_sim *sim, unsigned int node)
{
	if (!sim || node >= sim->n)
		return -ENODEV;
	if (!sim->may_run(__func__))
		return -EBUSY;
	return sim->attach(node);
}

int rnic_sim_node_hosted(const struct rnic_sim *sim, unsigned int node)
{
	return node_here(sim, node);
}

const char *rnic_sim_fabric_dir(const struct rnic_sim *sim)
{
	return sim && sim->on_fabric() ? sim->fabric_dir.c_str() : nullptr;
}

void rnic_sim_fabric_block(struct rnic_sim *sim, unsigned int timeout_us)
{
	if (sim->on_fabric() && sim->may_run(__func__)) {
		sim->fabric_block(timeout_us);
		sim->fabric_take();
	}
}

uint64_t rnic_sim_run_avail(struct rnic_sim *sim, uint64_t max_cycles)
{
	uint64_t i = 0;

	if (!sim->may_run(__func__))
		return 0;
	if (!sim->on_fabric()) {
		sim->run(max_cycles);
		return max_cycles;
	}
	sim->fabric_take();
	while (i < max_cycles && sim->cycle < sim->fabric_bound())
		i += sim->tick(std::min(max_cycles - i, sim->fabric_bound() - sim->cycle));
	/* Stopping here: let the switch move on meanwhile. */
	sim->fabric_promise(sim->cycle);
	sim->check_finish();
	return i;
}

void rnic_sim_destroy(struct rnic_sim *sim)
{
	if (!sim)
		return;
	{
		std::lock_guard<std::mutex> g(global_lock);

		if (sim == global_sim)
			global_sim = nullptr;
	}
	if (sim->forked()) {
		leave_to_parent(sim);
		return;
	}
	delete sim;
}

struct rnic_sim *rnic_sim_global(void)
{
	static bool fini_registered;
	std::lock_guard<std::mutex> g(global_lock);

	if (!global_sim) {
		struct rnic_sim_cfg cfg;

		rnic_sim_default_cfg(&cfg);
		env_cfg(&cfg);
		global_sim = new rnic_sim(sanitize(&cfg), std::getenv("RNIC_FABRIC"));
		env_faults(global_sim);
		/* Registered after Verilator's own statics exist, so it runs
		 * before they are destroyed. */
		if (!fini_registered)
			fini_registered = !std::atexit(global_fini);
	}
	return global_sim;
}

unsigned int rnic_sim_nodes(const struct rnic_sim *sim)
{
	return sim->n;
}

uint64_t rnic_sim_cycle(const struct rnic_sim *sim)
{
	return sim->cycle;
}

unsigned int rnic_sim_data_bits(const struct rnic_sim *sim)
{
	(void)sim;
	return kDataBits;
}

uint64_t rnic_sim_node_mac(const struct rnic_sim *sim, unsigned int node)
{
	(void)sim;
	return 0x020000000000ull | (node + 1);
}

uint32_t rnic_sim_node_ip(const struct rnic_sim *sim, unsigned int node)
{
	(void)sim;
	return 0x0a000000u | (node + 1);
}

void rnic_sim_step(struct rnic_sim *sim, uint64_t cycles)
{
	if (!sim->may_run("rnic_sim_step"))
		return;
	if (sim->host)
		sim->host->step(cycles);
	else
		sim->run(cycles);
}

uint64_t rnic_sim_wait(struct rnic_sim *sim, unsigned int node, uint64_t max_cycles)
{
	if (!node_ok(sim, node, __func__) || !sim->may_run(__func__))
		return 0;
	if (sim->host)
		return sim->host->wait(node, max_cycles);

	const ::node &nd = *sim->nodes[node];
	const uint64_t w0 = nd.mem.writes(), i0 = nd.irqs;
	uint64_t i = 0;

	while (i < max_cycles) {
		i += sim->advance(max_cycles - i, (int)node, w0, i0);
		if (nd.mem.writes() != w0 || nd.irqs != i0)
			break;
	}
	sim->check_finish();
	return i;
}

void rnic_sim_mmio_write(struct rnic_sim *sim, unsigned int node, uint32_t addr, uint64_t val)
{
	if (!node_ok(sim, node, __func__))
		return;
	if (sim->host)
		sim->host->mmio_write(node, addr, val);
	else
		rnic::sim_mmio_post_write(sim, node, addr, val);
}

uint64_t rnic_sim_mmio_read(struct rnic_sim *sim, unsigned int node, uint32_t addr)
{
	if (!node_ok(sim, node, __func__) || !sim->may_run(__func__))
		return ~0ull;
	if (sim->host)
		return sim->host->mmio_read(node, addr);

	::node &nd = *sim->nodes[node];
	const uint32_t id = nd.io.post_read(sim->cycle, addr);
	uint64_t val;

	for (uint64_t i = 0; i < kMmioReadTimeout;) {
		i += sim->tick(kMmioReadTimeout - i);
		if (nd.io.read_done(id, &val)) {
			/* PCIe ordering: a read completion does not pass the
			 * device's posted writes issued before it, so the read
			 * returns once they are visible (docs/time-model.md). */
			const uint64_t target = nd.mem.writes() + nd.mem.writes_queued();

			while (nd.mem.writes() < target)
				sim->tick(~0ull);
			return val;
		}
	}
	std::fprintf(stderr, "rnic model: node %u: MMIO read of 0x%x got no answer in %llu cycles\n",
		     node, addr, (unsigned long long)kMmioReadTimeout);
	nd.io.cancel(id);
	nd.mmio_timeouts++;
	sim->check_finish();
	return ~0ull;
}

int rnic_sim_iommu_map(struct rnic_sim *sim, unsigned int node, uint64_t iova, void *host, size_t len)
{
	if (!node_ok(sim, node, __func__))
		return -EINVAL;
	if (sim->host)
		return sim->host->iommu_map(node, iova, host, len);
	int ret = sim->nodes[node]->mem.map(iova, host, len);

	if (!ret)
		sim->host_pages(node, (uintptr_t)host, len, true);
	return ret;
}

int rnic_sim_iommu_unmap(struct rnic_sim *sim, unsigned int node, uint64_t iova, size_t len)
{
	if (!node_ok(sim, node, __func__))
		return -EINVAL;
	if (sim->host)
		return sim->host->iommu_unmap(node, iova, len);

	rnic::host_mem &m = sim->nodes[node]->mem;
	std::vector<uintptr_t> pages;

	for (uint64_t off = 0; off < len && iova + off >= iova; off += kPageSize)
		pages.push_back((uintptr_t)m.host_of(iova + off));
	int ret = m.unmap(iova, len);

	if (!ret)
		for (uintptr_t p : pages)
			sim->host_pages(node, p, kPageSize, false);
	return ret;
}

uint64_t rnic_sim_iommu_faults(const struct rnic_sim *sim, unsigned int node)
{
	return node_here(sim, node) ? sim->nodes[node]->mem.faults() : 0;
}

uint64_t rnic_sim_dma_writes(const struct rnic_sim *sim, unsigned int node)
{
	return node_here(sim, node) ? sim->nodes[node]->mem.writes() : 0;
}

uint64_t rnic_sim_irqs(const struct rnic_sim *sim, unsigned int node)
{
	return node_here(sim, node) ? sim->nodes[node]->irqs : 0;
}

uint64_t rnic_sim_wire_frames(const struct rnic_sim *sim, unsigned int node)
{
	return node_here(sim, node) ? sim->net.frames(node) : 0;
}

uint64_t rnic_sim_wire_drops(const struct rnic_sim *sim, unsigned int node)
{
	return node_here(sim, node) ? link_wire(sim).drops(node) : 0;
}

uint64_t rnic_sim_mmio_timeouts(const struct rnic_sim *sim, unsigned int node)
{
	return node_here(sim, node) ? sim->nodes[node]->mmio_timeouts : 0;
}

uint64_t rnic_sim_protocol_errors(const struct rnic_sim *sim, unsigned int node)
{
	if (!node_here(sim, node))
		return 0;
	const ::node &nd = *sim->nodes[node];

	return nd.mem.proto_errors() + nd.io.proto_errors() + sim->net.proto_errors(node);
}

void rnic_sim_set_irq_cb(struct rnic_sim *sim, rnic_sim_irq_cb cb, void *arg)
{
	sim->irq_cb = cb;
	sim->irq_arg = arg;
}

void rnic_sim_set_event_cb(struct rnic_sim *sim, rnic_sim_event_cb cb, void *arg)
{
	sim->ev_cb = cb;
	sim->ev_arg = arg;
	sim->mon.set_events(cb != nullptr);
}

int rnic_sim_trace_open(struct rnic_sim *sim, const char *path)
{
	return sim->trace_open(path, ~0u);
}

int rnic_sim_trace_open_nodes(struct rnic_sim *sim, const char *path, uint32_t node_mask)
{
	return sim->trace_open(path, node_mask);
}

void rnic_sim_trace_window(struct rnic_sim *sim, uint64_t start, uint64_t end)
{
	sim->tr_start = start;
	sim->tr_end = end ? end : (start || end ? kNoCycle : 0);
	if (sim->tr_end <= sim->tr_start)
		sim->tr_start = sim->tr_end = 0;
	sim->update_windowed();
}

void rnic_sim_trace_trigger(struct rnic_sim *sim, int node, int64_t qpn, uint64_t cycles)
{
	sim->trig_node = node;
	sim->trig_qpn = qpn;
	sim->trig_cycles = cycles;
	sim->trig_until = kNoCycle;
	sim->update_windowed();
}

void rnic_sim_trace_begin(struct rnic_sim *sim)
{
	sim->api_depth++;
	sim->api_only = true;
	sim->update_windowed();
}

void rnic_sim_trace_end(struct rnic_sim *sim)
{
	if (sim->api_depth)
		sim->api_depth--;
}

void rnic_sim_trace_api_only(struct rnic_sim *sim)
{
	sim->api_only = true;
	sim->update_windowed();
}

int rnic_sim_trace_dumping(const struct rnic_sim *sim)
{
	return sim->tfp && sim->trace_gate(sim->cycle);
}

void rnic_sim_trace_close(struct rnic_sim *sim)
{
	sim->trace_close();
}

int rnic_sim_pcap_open(struct rnic_sim *sim, const char *path)
{
	if (!path || !*path)
		return -EINVAL;
	return sim->net.pcap_open(path);
}

void rnic_sim_pcap_close(struct rnic_sim *sim)
{
	sim->net.pcap_close();
}

int rnic_sim_pcap_open_link(struct rnic_sim *sim, unsigned int node, const char *path)
{
	if (!node_ok(sim, node, __func__))
		return -EINVAL;
	return sim->mon.pcap_open(node, path);
}

void rnic_sim_pcap_close_link(struct rnic_sim *sim, unsigned int node)
{
	if (node_ok(sim, node, __func__))
		sim->mon.pcap_close(node);
}

uint64_t rnic_sim_cqes(const struct rnic_sim *sim, unsigned int node)
{
	return node_here(sim, node) ? sim->nodes[node]->cqes : 0;
}

void rnic_sim_set_ffwd(struct rnic_sim *sim, int mode)
{
	sim->ffwd = mode == 0 ? rnic_sim::kFfOff : mode == 2 ? rnic_sim::kFfCheck : rnic_sim::kFfOn;
	sim->ff_check_until = 0;
}

uint64_t rnic_sim_ffwd_cycles(const struct rnic_sim *sim)
{
	return sim->ff_cycles;
}

uint64_t rnic_sim_ffwd_skips(const struct rnic_sim *sim)
{
	return sim->ff_skips;
}

uint64_t rnic_sim_ffwd_checked(const struct rnic_sim *sim)
{
	return sim->ff_checked;
}

void rnic_sim_progress(struct rnic_sim *sim, double seconds)
{
	sim->prog_interval = seconds > 0 ? seconds : 0;
	sim->prog_t0 = sim->prog_last = std::chrono::steady_clock::now();
	sim->prog_last_cycle = sim->cycle;
}

void rnic_wire_faults_default(struct rnic_wire_faults *f)
{
	*f = rnic_wire_faults{};
}

static bool link_ok(const rnic_sim *sim, unsigned node, unsigned dir, const char *fn)
{
	return node_ok(sim, node, fn) && dir <= RNIC_WIRE_DIR_RX;
}

int rnic_sim_set_link_faults(struct rnic_sim *sim, unsigned int node, unsigned int dir,
			     const struct rnic_wire_faults *f)
{
	if (!link_ok(sim, node, dir, __func__) || (f && !faults_valid(*f)))
		return -EINVAL;
	sim->ff_check_until = 0;
	link_wire(sim).set_faults(node, dir, f, sim->cycle);
	return 0;
}

int rnic_sim_get_link_faults(const struct rnic_sim *sim, unsigned int node, unsigned int dir,
			     struct rnic_wire_faults *f)
{
	if (!link_ok(sim, node, dir, __func__) || !f)
		return -EINVAL;
	*f = link_wire(sim).faults(node, dir);
	return 0;
}

int rnic_sim_link_fault_counts(const struct rnic_sim *sim, unsigned int node, unsigned int dir,
			       struct rnic_wire_fault_counts *c)
{
	if (!link_ok(sim, node, dir, __func__) || !c)
		return -EINVAL;
	*c = link_wire(sim).fault_counts(node, dir);
	return 0;
}

int rnic_sim_wire_drop(struct rnic_sim *sim, unsigned int node, int opcode, int64_t psn,
		       unsigned int skip, unsigned int count)
{
	if (!node_ok(sim, node, __func__) || opcode > 255 || psn > 0xffffff || !count)
		return -EINVAL;
	link_wire(sim).add_drop_rule(node, opcode, psn, skip, count);
	return 0;
}

uint64_t rnic_sim_wire_drop_hits(const struct rnic_sim *sim, unsigned int node)
{
	if (!node_ok(sim, node, __func__))
		return 0;
	return link_wire(sim).rule_drops(node);
}

int rnic_sim_wire_inject(struct rnic_sim *sim, unsigned int node, const void *frame, size_t len)
{
	if (!node_ok(sim, node, __func__) || !frame || !len || len > 65535)
		return -EINVAL;
	sim->ff_check_until = 0;
	sim->net.inject(node, sim->cycle, static_cast<const uint8_t *>(frame), len);
	return 0;
}

} /* extern "C" */

/* ---- Phases (model/sim_phase.h) ---- */

namespace rnic {

void sim_set_host(rnic_sim *sim, sim_host *host)
{
	sim->host = host;
	/* The platform runs the phases node by node: no batches, no worker
	 * thread waiting for one. */
	if (host)
		sim->bat.reset();
}

void sim_set_dma_port(rnic_sim *sim, unsigned node, dma_port *p)
{
	if (node_ok(sim, node, __func__))
		sim->nodes[node]->mem.set_port(p);
}

void sim_set_uplink(rnic_sim *sim, sim_uplink_fn fn, void *arg)
{
	sim->net.set_uplink(fn, arg);
}

void sim_set_link(rnic_sim *sim, sim_link *l)
{
	sim->xlink = l;
}

void sim_wire_stats(rnic_sim *sim)
{
	wire_stats(sim);
}

void sim_frame_arrive(rnic_sim *sim, unsigned node, uint64_t at, const uint8_t *frame, size_t len)
{
	if (at < sim->cycle)
		model_warn(node, sim->cycle, "frame for cycle %llu arrived late",
			   (unsigned long long)at);
	sim->net.arrive(node, at, frame, len);
}

void sim_begin_cycle(rnic_sim *sim, uint64_t c)
{
	if (sim->high_pending) {
		sim->high_pending = false;
		sim->dump();
	}
	if (sim->ff_check_until && c >= sim->ff_check_until)
		sim->ff_compare();
	sim->begin_cycle(c);
}

void sim_settle(rnic_sim *sim, unsigned node, uint64_t c)
{
	sim->settle(node, c);
}

uint64_t sim_decide(rnic_sim *sim, uint64_t c, uint64_t limit, uint64_t ext_next)
{
	sim->high_pending = true;
	return sim->decide(c, limit, ext_next);
}

void sim_edge(rnic_sim *sim, unsigned node, uint64_t c, bool skipped)
{
	if (!skipped)
		sim->edge(node, c);
	sim->retire(node, sim->cycle - 1);
	if (!sim->pend.empty())
		sim->dispatch(c);
}

bool sim_edge_pending(const rnic_sim *sim, unsigned node)
{
	const ::node &nd = *sim->nodes[node];

	return nd.mem.next_visible() <= sim->cycle - 1 || !nd.msis.empty() || !sim->pend.empty();
}

void sim_flush(rnic_sim *sim)
{
	if (sim->high_pending) {
		sim->high_pending = false;
		sim->dump();
	}
	sim->check_finish();
}

void sim_mmio_post_write(rnic_sim *sim, unsigned node, uint32_t addr, uint64_t val)
{
	if (addr == kRegSqDb)
		sim->doorbell_posted(node, (uint32_t)(val & 0xffffff));
	sim->ff_check_until = 0;	/* a checked skip would not have seen it */
	sim->nodes[node]->io.post_write(sim->cycle, addr, val);
}

uint32_t sim_mmio_post_read(rnic_sim *sim, unsigned node, uint32_t addr)
{
	sim->ff_check_until = 0;
	return sim->nodes[node]->io.post_read(sim->cycle, addr);
}

bool sim_mmio_read_done(rnic_sim *sim, unsigned node, uint32_t id, uint64_t *val)
{
	return sim->nodes[node]->io.read_done(id, val);
}

void sim_mmio_cancel(rnic_sim *sim, unsigned node, uint32_t id)
{
	std::fprintf(stderr, "rnic model: node %u: MMIO read got no answer\n", node);
	sim->nodes[node]->io.cancel(id);
	sim->nodes[node]->mmio_timeouts++;
}

uint64_t sim_writes(const rnic_sim *sim, unsigned node)
{
	return sim->nodes[node]->mem.writes();
}

uint64_t sim_writes_taken(const rnic_sim *sim, unsigned node)
{
	const host_mem &m = sim->nodes[node]->mem;

	return m.writes() + m.writes_queued();
}

void sim_irq(rnic_sim *sim, unsigned node, uint32_t cqn)
{
	if (sim->irq_cb)
		sim->irq_cb(sim->irq_arg, node, cqn);
}

const rnic_sim_cfg &sim_cfg(const rnic_sim *sim)
{
	return sim->cfg;
}

} /* namespace rnic */
