/* SPDX-License-Identifier: MIT */
/*
 * simbricks_eth.h - one end of a SimBricks Ethernet adapter link (internal to
 * the model; docs/fabric.md).
 *
 * The wire format is SimBricks' base and network protocol (lib/simbricks/
 * base/proto.h and network/proto.h in the SimBricks repository), so a node
 * can talk to a SimBricks switch or network simulator and our fabric to a
 * SimBricks NIC:
 *   - a Unix stream socket carries the handshake: the listener sends its
 *     intro (protocol version, flags, offsets, entry sizes and counts of the
 *     two queues, upper-layer protocol 1 = Ethernet) with the shared memory
 *     file descriptor attached (SCM_RIGHTS); the connecter answers with its
 *     own intro. The network upper-layer intro is empty.
 *   - two queues of fixed-size slots in that shared memory, one per
 *     direction. A slot's last header byte holds the owner bit (0x80: the
 *     consumer owns it) and the message type; the 64-bit timestamp sits at
 *     byte 48; a PACKET (type 0x40) has its length in bytes 0..1, a port
 *     number in byte 2 and the frame from byte 64 on.
 *   - timestamps are picoseconds. A message stamped T promises that nothing
 *     stamped earlier follows it on that queue: a receiver may simulate every
 *     instant before the newest timestamp it has seen. SYNC messages carry
 *     only that promise; TERMINATE ends the link.
 */
#ifndef RNIC_SIMBRICKS_ETH_H
#define RNIC_SIMBRICKS_ETH_H

#include <cstddef>
#include <cstdint>
#include <string>

namespace rnic {

constexpr uint8_t kSbMsgSync = 0x00;
constexpr uint8_t kSbMsgTerminate = 0x01;
constexpr uint8_t kSbMsgPacket = 0x40;
constexpr uint64_t kPsPerCycle = 4000;	/* 250 MHz core clock */

class sb_eth {
public:
	struct params {
		size_t entries = 256;		/* slots per direction */
		size_t entry_size = 4352;	/* 64-byte header + frame */
	};
	/* What the queue held when poll() looked. */
	struct msg {
		uint8_t type;		/* kSbMsg* or another type (ignored) */
		uint64_t ts;		/* picoseconds */
		const uint8_t *data;	/* PACKET: the frame, valid until release() */
		size_t len;
	};

	sb_eth() = default;
	~sb_eth();
	sb_eth(const sb_eth &) = delete;
	sb_eth &operator=(const sb_eth &) = delete;

	/* Listener: binds @path (replacing a stale socket file) and creates the
	 * shared memory. Returns 0 or -errno. */
	int listen(const std::string &path, const params &p);
	/* Listener: takes a pending connection and completes the handshake.
	 * Returns 1 when the link is open, 0 if nobody is waiting, -errno on a
	 * failed handshake (the listener stays usable). */
	int accept_one();
	/* Connecter: connects to @path and completes the handshake (waits up to
	 * @timeout_ms). Returns 0 or -errno (-ENOENT/-ECONNREFUSED: nobody
	 * listens). */
	int connect(const std::string &path, int timeout_ms);

	bool is_open() const { return open_; }
	int listen_fd() const { return lfd_; }

	/* The next message, if the peer has put one in the queue; it stays the
	 * head until release(). */
	bool peek(msg *m);
	void release();

	/* Send; false when the queue is full (the peer has not caught up). A
	 * frame longer than a slot holds is refused with false too (payload_max()). */
	bool send_packet(uint64_t ts, const uint8_t *frame, size_t len);
	bool send_sync(uint64_t ts);
	size_t payload_max() const { return out_elen_ > 64 ? out_elen_ - 64 : 0; }
	/* Timestamp of the last message sent (0 before the first). */
	uint64_t out_ts() const { return out_ts_; }

	/* Blocks until the peer puts a message in the queue or @timeout_us
	 * passes. Between two of our own ends it sleeps on a futex in a page
	 * after the queues that SimBricks peers do not know of (they never ring
	 * it: with them this only yields the processor). */
	void wait_in(unsigned timeout_us);

	/* True once the peer closed its end of the socket (process gone) or sent
	 * TERMINATE. */
	bool peer_gone();
	bool terminated() const { return terminated_; }
	/* Sends TERMINATE (if open) and closes the connection; a listener keeps
	 * listening. */
	void close_conn();

private:
	int handshake_listener();
	int handshake_connecter(int timeout_ms);
	uint8_t *out_slot();
	void unmap();
	void ring_out();
	bool in_ready() const;

	int lfd_ = -1;		/* listening socket */
	int cfd_ = -1;		/* connection */
	int shm_fd_ = -1;
	uint8_t *shm_ = nullptr;
	size_t shm_len_ = 0;
	params p_;
	std::string path_;
	bool listener_ = false;
	bool open_ = false;
	bool terminated_ = false;

	uint8_t *in_q_ = nullptr, *out_q_ = nullptr;
	size_t in_elen_ = 0, in_n_ = 0, in_pos_ = 0;
	size_t out_elen_ = 0, out_n_ = 0, out_pos_ = 0;
	uint64_t out_ts_ = 0;
	/* Doorbells: [0] the listener -> connecter queue, [1] the other one. */
	struct bell {
		uint32_t seq;
		uint32_t waiting;
	};
	bell *bell_in_ = nullptr, *bell_out_ = nullptr;
};

} /* namespace rnic */

#endif /* RNIC_SIMBRICKS_ETH_H */
