// SPDX-License-Identifier: MIT
/*
 * fabric_switch.cpp - the switch of the multi-process fabric.
 *
 * Time. The switch processes cycle t once every joined node has promised
 * that nothing it sends later is stamped t or earlier (its newest timestamp
 * is > t). Processing t: the frames stamped t (sent by their node at edge
 * t - up) go into the wire model, as wire::inject() at that edge; then the
 * frames the wire model makes arrive at t + down leave towards their node,
 * stamped t + down. Every node hears from the switch at least once per
 * batch of processed cycles (a SYNC stamped t + down, t the next cycle to
 * process), so it may simulate every cycle before that.
 *
 * Exactness. A frame sent at edge c reaches its receiver at the cycle the
 * single-process wire gives: the same code computes it, from the same edge,
 * in the same order of edges and senders. Since the earliest arrival is
 * c + 1 + latency = c + up + down, every frame reaches its node's queue no
 * later than the promise the node is running under.
 *
 * Joining. A node's first message (a SYNC) names the cycle it would start
 * at; the switch answers with the start it grants, max(that, t - up), so
 * that the node's frames are not stamped in the switch's past. A node whose
 * process already simulates other nodes asks for its current cycle, which
 * is never earlier than t - up (it runs under the switch's promises).
 */
#include "fabric_switch.h"

#include <cerrno>
#include <chrono>
#include <cstdarg>
#include <cstdio>
#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <thread>
#include <unistd.h>

#include "wire_faults.h"

namespace rnic {

fabric_switch::fabric_switch(const std::string &dir, const fabric_cfg &cfg)
	: dir_(dir), cfg_(cfg), lat_(fabric_split(cfg.wire_latency)),
	  net_(new wire({kFabricPorts, cfg.wire_latency, cfg.wire_bytes_per_cycle,
			 cfg.wire_overhead}))
{
}

fabric_switch::~fabric_switch()
{
	for (unsigned p = 0; p < kFabricPorts; p++)
		ports_[p].link.close_conn();
	if (lock_fd_ >= 0)
		::close(lock_fd_);	/* the sockets are unlinked by ~sb_eth */
}

void fabric_switch::log(const char *fmt, ...)
{
	va_list ap;

	if (cfg_.quiet)
		return;
	std::fprintf(stderr, "rnic-fabric: cycle %llu: ", (unsigned long long)t_);
	va_start(ap, fmt);
	std::vfprintf(stderr, fmt, ap);
	va_end(ap);
	std::fputc('\n', stderr);
}

int fabric_switch::start()
{
	::mkdir(dir_.c_str(), 0777);	/* may exist */
	lock_fd_ = ::open(fabric_lock(dir_).c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0666);
	if (lock_fd_ < 0)
		return -errno;
	if (::flock(lock_fd_, LOCK_EX | LOCK_NB))
		return errno == EWOULDBLOCK ? -EBUSY : -errno;

	sb_eth::params p;

	for (unsigned i = 0; i < kFabricPorts; i++) {
		int r = ports_[i].link.listen(fabric_sock(dir_, i), p);

		if (r)
			return r;
	}
	return 0;
}

void fabric_switch::drop_port(unsigned p, const char *why)
{
	port &pt = ports_[p];

	log("node %u left (%s)", p, why);
	pt.link.close_conn();
	pt.open = false;
	pt.joined = false;
	pt.in_ts = 0;
	pt.q.clear();
}

void fabric_switch::join(unsigned p, uint64_t start_req)
{
	port &pt = ports_[p];
	uint64_t floor = t_ > lat_.up ? t_ - lat_.up : 0;
	uint64_t start = std::max(start_req, floor);

	pt.joined = true;
	pt.st.joins++;
	/* The first promise to this node; later ones are >= t + down, which
	 * is not earlier. */
	pt.link.send_sync((start + lat_.down) * kPsPerCycle);
	log("node %u joined, starts at cycle %llu", p, (unsigned long long)start);
}

/* Accepts new links and drains every open link's queue. */
bool fabric_switch::poll_ports()
{
	bool any = false;

	for (unsigned p = 0; p < kFabricPorts; p++) {
		port &pt = ports_[p];

		if (!pt.open) {
			int r = pt.link.accept_one();

			if (r < 0)
				log("node %u: handshake failed: %s", p, std::strerror(-r));
			if (r <= 0)
				continue;
			pt.open = true;
			pt.joined = false;
			pt.in_ts = 0;
			any = true;
		}
		sb_eth::msg m;

		while (pt.link.peek(&m)) {
			uint64_t ts = m.ts / kPsPerCycle;

			any = true;
			if (m.type == kSbMsgTerminate) {
				pt.link.release();
				drop_port(p, "terminated");
				break;
			}
			if (!pt.joined)
				join(p, ts > lat_.up ? ts - lat_.up : 0);
			if (m.type == kSbMsgPacket) {
				if (ts < t_) {
					log("node %u: frame stamped %llu arrived late; taken now",
					    p, (unsigned long long)ts);
					ts = t_;
				}
				pt.q.push_back({ts, std::vector<uint8_t>(m.data, m.data + m.len)});
			}
			pt.in_ts = std::max(pt.in_ts, ts);
			pt.link.release();
		}
	}
	return any;
}

/* Frames the wire model delivers at @at leave towards their nodes. */
void fabric_switch::deliver_out(uint64_t at)
{
	wire &w = *net_;

	w.deliver(at);
	for (unsigned p = 0; p < kFabricPorts; p++) {
		port &pt = ports_[p];

		while (w.rx_queued(p)) {
			const std::vector<uint8_t> &f = w.rx_front(p);

			if (pt.open && pt.joined) {
				/* The node drains its queue eagerly; a full queue
				 * only waits for it to catch up. */
				while (!pt.link.send_packet(at * kPsPerCycle, f.data(), f.size())) {
					if (pt.link.peer_gone()) {
						drop_port(p, "gone");
						break;
					}
					poll_ports();
					sched_yield();
				}
				if (pt.open)
					pt.st.frames_out++;
				else
					pt.st.unhosted++;
			} else {
				pt.st.unhosted++;
			}
			w.rx_pop(p);
		}
	}
}

/* Processes cycle t_ if every joined node has promised past it. */
bool fabric_switch::step()
{
	bool any = false;

	for (unsigned p = 0; p < kFabricPorts; p++) {
		const port &pt = ports_[p];

		if (!pt.open || !pt.joined)
			continue;
		if (pt.in_ts <= t_)
			return false;
		any = true;
	}
	if (!any)
		return false;	/* time stands still without nodes */
	for (unsigned p = 0; p < kFabricPorts; p++) {
		port &pt = ports_[p];

		while (!pt.q.empty() && pt.q.front().ts <= t_) {
			const std::vector<uint8_t> &f = pt.q.front().frame;

			net_->inject(p, t_ - lat_.up, f.data(), f.size());
			pt.st.frames_in++;
			pt.q.pop_front();
		}
	}
	deliver_out(t_ + lat_.down);
	t_++;
	return true;
}

void fabric_switch::send_syncs()
{
	const uint64_t ts = (t_ + lat_.down) * kPsPerCycle;

	for (unsigned p = 0; p < kFabricPorts; p++) {
		port &pt = ports_[p];

		if (pt.open && pt.joined && ts > pt.link.out_ts())
			pt.link.send_sync(ts);
	}
}

void fabric_switch::run(const volatile int *stop)
{
	using clk = std::chrono::steady_clock;
	clk::time_point idle_since = clk::now();
	unsigned spins = 0;

	while (!*stop) {
		bool did = poll_ports();
		unsigned n = 0;

		while (n < 4096 && step())
			n++;
		if (n)
			send_syncs();
		if (did || n) {
			spins = 0;
			continue;
		}
		bool any_open = false;

		for (unsigned p = 0; p < kFabricPorts; p++)
			any_open = any_open || ports_[p].open;
		if (!any_open) {
			/* Nobody there: sleep until a node connects. */
			pollfd pf[kFabricPorts];

			for (unsigned p = 0; p < kFabricPorts; p++)
				pf[p] = {ports_[p].link.listen_fd(), POLLIN, 0};
			::poll(pf, kFabricPorts, 100);
			if (cfg_.idle_exit > 0 &&
			    std::chrono::duration<double>(clk::now() - idle_since).count() >
			    cfg_.idle_exit) {
				log("no node for %.0f s, exiting", cfg_.idle_exit);
				return;
			}
			continue;
		}
		idle_since = clk::now();
		/* Waiting for a node: spin briefly, then sleep on the link of
		 * the node that holds time back (or any, while none has joined). */
		if (++spins < fabric_spins())
			continue;
		if (!(spins & 255)) {
			for (unsigned p = 0; p < kFabricPorts; p++)
				if (ports_[p].open && ports_[p].link.peer_gone())
					drop_port(p, "gone");
		}
		unsigned w = kFabricPorts;

		for (unsigned p = 0; p < kFabricPorts && w == kFabricPorts; p++)
			if (ports_[p].open && (!ports_[p].joined || ports_[p].in_ts <= t_))
				w = p;
		if (w < kFabricPorts)
			ports_[w].link.wait_in(1000);
		else
			sched_yield();
	}
}

} /* namespace rnic */
