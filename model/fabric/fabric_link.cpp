// SPDX-License-Identifier: MIT
/*
 * fabric_link.cpp - a node's link to the multi-process fabric: hosting lock,
 * starting the switch when none runs, joining, frames and promises.
 */
#include "fabric_link.h"

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <sched.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>

#ifndef RNIC_FABRIC_DEFAULT_BIN
#define RNIC_FABRIC_DEFAULT_BIN "rnic-fabric"
#endif

namespace rnic {

namespace {

constexpr int kConnectTimeoutMs = 5000;
constexpr int kStartTimeoutMs = 10000;
constexpr const char *kIdleExit = "30";	/* seconds a started switch waits for nodes */

/* Whether a switch holds DIR/fabric.lock. */
bool switch_running(const std::string &dir)
{
	int fd = ::open(fabric_lock(dir).c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0666);
	bool held;

	if (fd < 0)
		return false;
	held = ::flock(fd, LOCK_EX | LOCK_NB) && errno == EWOULDBLOCK;
	::close(fd);	/* drops the lock if we took it */
	return held;
}

/* Starts `rnic-fabric DIR --idle-exit 30` detached from this process (its
 * own session, no inherited descriptors), its messages in DIR/fabric.log.
 * Only async-signal-safe calls between fork and exec: the caller may have
 * threads. */
int spawn_switch(const std::string &dir)
{
	const char *bin = std::getenv("RNIC_FABRIC_BIN");
	std::string log = dir + "/fabric.log";

	if (!bin || !*bin)
		bin = RNIC_FABRIC_DEFAULT_BIN;
	pid_t pid = ::fork();

	if (pid < 0)
		return -errno;
	if (pid == 0) {
		if (::setsid() < 0 || ::fork() != 0)
			_exit(0);
		int in = ::open("/dev/null", O_RDONLY);
		int out = ::open(log.c_str(), O_WRONLY | O_CREAT | O_APPEND, 0666);

		if (in >= 0)
			::dup2(in, 0);
		if (out >= 0) {
			::dup2(out, 1);
			::dup2(out, 2);
		}
		::close_range(3, ~0u, 0);
		::execl(bin, "rnic-fabric", dir.c_str(), "--idle-exit", kIdleExit, (char *)nullptr);
		_exit(127);
	}
	int st;

	while (::waitpid(pid, &st, 0) < 0 && errno == EINTR)
		;
	return 0;
}

} /* namespace */

int fabric_link::connect_or_start(const std::string &dir, unsigned node)
{
	const std::string sock = fabric_sock(dir, node);
	int r = link_.connect(sock, kConnectTimeoutMs);

	if (r != -ENOENT && r != -ECONNREFUSED)
		return r;
	if (!switch_running(dir)) {
		r = spawn_switch(dir);
		if (r)
			return r;
	}
	/* Wait for the switch (ours or one another process just started). */
	auto t0 = std::chrono::steady_clock::now();

	for (;;) {
		r = link_.connect(sock, kConnectTimeoutMs);
		if (r != -ENOENT && r != -ECONNREFUSED)
			return r;
		if (std::chrono::steady_clock::now() - t0 >
		    std::chrono::milliseconds(kStartTimeoutMs))
			return -EHOSTUNREACH;
		std::this_thread::sleep_for(std::chrono::milliseconds(10));
	}
}

int fabric_link::attach(const std::string &dir, unsigned node, unsigned wire_latency,
			uint64_t cycle, uint64_t *start)
{
	if (attached_)
		return -EALREADY;
	if (wire_latency < 1 || node >= kFabricPorts)
		return -EINVAL;
	lat_ = fabric_split(wire_latency);
	node_ = node;
	::mkdir(dir.c_str(), 0777);	/* may exist */
	lock_fd_ = ::open(fabric_node_lock(dir, node).c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0666);
	if (lock_fd_ < 0)
		return -errno;
	if (::flock(lock_fd_, LOCK_EX | LOCK_NB)) {
		int r = errno == EWOULDBLOCK ? -EBUSY : -errno;

		::close(lock_fd_);
		lock_fd_ = -1;
		return r;
	}
	int r = connect_or_start(dir, node);

	if (r) {
		detach();
		return r;
	}
	/* Join: ask to start at @cycle, take what the switch grants. */
	link_.send_sync((cycle + lat_.up) * kPsPerCycle);
	auto t0 = std::chrono::steady_clock::now();
	sb_eth::msg m;

	while (!link_.peek(&m)) {
		if (std::chrono::steady_clock::now() - t0 >
		    std::chrono::milliseconds(kStartTimeoutMs) || link_.peer_gone()) {
			detach();
			return -ETIMEDOUT;
		}
		sched_yield();
	}
	uint64_t ts = m.ts / kPsPerCycle;

	if (m.type != kSbMsgSync || ts < lat_.down) {
		link_.release();
		detach();
		return -EPROTO;
	}
	link_.release();
	*start = std::max(cycle, ts - lat_.down);
	bound_ = ts;
	lost_ = false;
	attached_ = true;
	return 0;
}

void fabric_link::detach()
{
	link_.close_conn();
	if (lock_fd_ >= 0)
		::close(lock_fd_);
	lock_fd_ = -1;
	attached_ = false;
}

void fabric_link::mark_lost(const char *why)
{
	if (lost_)
		return;
	lost_ = true;
	std::fprintf(stderr, "rnic model: node %u: the fabric %s; the node runs on "
		     "without a network\n", node_, why);
}

void fabric_link::check_alive()
{
	if (attached_ && !lost_ && link_.peer_gone())
		mark_lost("went away");
}

void fabric_link::send_frame(uint64_t edge, const uint8_t *f, size_t len)
{
	if (!attached_ || lost_)
		return;
	if (len > link_.payload_max()) {
		std::fprintf(stderr, "rnic model: node %u: a %zu-byte frame does not fit a "
			     "fabric slot; dropped\n", node_, len);
		return;
	}
	unsigned spins = 0;

	/* The switch drains its queues eagerly: a full queue clears soon. */
	while (!link_.send_packet((edge + lat_.up) * kPsPerCycle, f, len)) {
		if (!(++spins & 1023))
			check_alive();
		if (lost_)
			return;
		sched_yield();
	}
}

bool fabric_link::drain(std::vector<rx_frame> &out)
{
	sb_eth::msg m;
	bool any = false;

	if (!attached_ || lost_)
		return false;
	while (link_.peek(&m)) {
		uint64_t ts = m.ts / kPsPerCycle;

		any = true;
		if (m.type == kSbMsgTerminate) {
			link_.release();
			mark_lost("stopped");
			return true;
		}
		if (m.type == kSbMsgPacket)
			out.push_back({ts, std::vector<uint8_t>(m.data, m.data + m.len)});
		if (ts > bound_)
			bound_ = ts;
		link_.release();
	}
	return any;
}

void fabric_link::promise(uint64_t next_cycle)
{
	uint64_t ts = (next_cycle + lat_.up) * kPsPerCycle;

	if (attached_ && !lost_ && ts > link_.out_ts())
		link_.send_sync(ts);
}

} /* namespace rnic */
