/* SPDX-License-Identifier: MIT */
/*
 * fabric_link.h - a node's link to the multi-process fabric (internal to the
 * model; docs/fabric.md). The node's frames leave stamped (edge + up); the
 * switch's frames arrive stamped with their RX cycle; the newest stamp the
 * switch sent bounds the cycles the node may simulate.
 */
#ifndef RNIC_FABRIC_LINK_H
#define RNIC_FABRIC_LINK_H

#include <cstdint>
#include <string>
#include <vector>

#include "fabric_proto.h"
#include "simbricks_eth.h"

namespace rnic {

class fabric_link {
public:
	~fabric_link() { detach(); }

	/*
	 * Hosts node @node on the fabric in @dir: takes DIR/node<N>.lock
	 * (-EBUSY: another process hosts it), starts a switch if none serves the
	 * directory, connects and joins. @cycle is the cycle this process would
	 * start the node at; *start receives the one the switch granted
	 * (>= @cycle). Returns 0 or -errno.
	 */
	int attach(const std::string &dir, unsigned node, unsigned wire_latency,
		   uint64_t cycle, uint64_t *start);
	void detach();
	bool attached() const { return attached_; }
	/* The switch went away: the node runs on alone, its frames are lost. */
	bool lost() const { return lost_; }

	/* Sends the frame whose last beat left at edge @edge. */
	void send_frame(uint64_t edge, const uint8_t *f, size_t len);

	struct rx_frame {
		uint64_t at;	/* cycle of its first RX beat */
		std::vector<uint8_t> data;
	};
	/* Takes what the switch sent: frames are appended to @out. Returns
	 * true if anything came. */
	bool drain(std::vector<rx_frame> &out);
	/* Cycles below this may be simulated (~0 once the switch is gone). */
	uint64_t bound() const { return lost_ ? ~0ull : bound_; }
	/* Promises the switch that nothing this node sends from now on is
	 * stamped below (@next_cycle + up). Cheap when nothing new is promised. */
	void promise(uint64_t next_cycle);
	/* Checks whether the switch is still there (a syscall: call rarely). */
	void check_alive();
	/* Sleeps until the switch sends something or @us pass. */
	void wait(unsigned us)
	{
		if (attached_ && !lost_)
			link_.wait_in(us);
	}

private:
	int connect_or_start(const std::string &dir, unsigned node);
	void mark_lost(const char *why);

	sb_eth link_;
	fabric_lat lat_ = {1, 1};
	unsigned node_ = 0;
	int lock_fd_ = -1;
	bool attached_ = false;
	bool lost_ = false;
	uint64_t bound_ = 0;
};

} /* namespace rnic */

#endif /* RNIC_FABRIC_LINK_H */
