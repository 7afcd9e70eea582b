// SPDX-License-Identifier: MIT
/*
 * simbricks_eth.cpp - SimBricks Ethernet adapter link: handshake over a Unix
 * socket, two shared-memory slot queues (simbricks_eth.h, docs/fabric.md).
 */
#include "simbricks_eth.h"

#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <fcntl.h>
#include <linux/futex.h>
#include <poll.h>
#include <sched.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <unistd.h>

namespace rnic {

namespace {

constexpr uint64_t kVersion = 1;
constexpr uint64_t kProtoNet = 1;
constexpr uint64_t kFlagSync = 1;		/* LI_SYNC / CO_SYNC */
constexpr uint64_t kFlagSyncForce = 2;		/* ..._SYNC_FORCE */
constexpr uint8_t kOwnMask = 0x80;
constexpr uint8_t kOwnCon = 0x80;		/* the consumer owns the slot */
constexpr size_t kHdr = 64;
constexpr size_t kOffLen = 0, kOffPort = 2, kOffTs = 48, kOffOwn = 63;

struct listener_intro {
	uint64_t version, flags;
	uint64_t l2c_offset, l2c_elen, l2c_nentries;
	uint64_t c2l_offset, c2l_elen, c2l_nentries;
	uint64_t upper_layer_proto, upper_layer_intro_off;
} __attribute__((packed));

struct connecter_intro {
	uint64_t version, flags;
	uint64_t upper_layer_proto, upper_layer_intro_off;
} __attribute__((packed));

/* Our doorbell page, after the queues (docs/fabric.md). */
constexpr uint64_t kBellMagic = 0x31424443494e52ull;	/* "RNICDB1" */
constexpr size_t kBellPage = 4096;

size_t page_up(size_t x)
{
	return (x + kBellPage - 1) & ~(kBellPage - 1);
}

long futex(uint32_t *w, int op, uint32_t val, const timespec *ts)
{
	return syscall(SYS_futex, w, op, val, ts, nullptr, 0);
}

static_assert(sizeof(listener_intro) == 80 && sizeof(connecter_intro) == 32,
	      "SimBricks intro layouts");

uint8_t own_load(const uint8_t *slot)
{
	return __atomic_load_n(slot + kOffOwn, __ATOMIC_ACQUIRE);
}

void own_store(uint8_t *slot, uint8_t v)
{
	__atomic_store_n(slot + kOffOwn, v, __ATOMIC_RELEASE);
}

int set_unix_addr(sockaddr_un *a, const std::string &path)
{
	std::memset(a, 0, sizeof(*a));
	a->sun_family = AF_UNIX;
	if (path.size() >= sizeof(a->sun_path))
		return -ENAMETOOLONG;
	std::memcpy(a->sun_path, path.c_str(), path.size() + 1);
	return 0;
}

/* Waits until @fd is readable, up to @ms; -ETIMEDOUT otherwise. */
int wait_readable(int fd, int ms)
{
	pollfd p = {fd, POLLIN, 0};
	int r;

	do {
		r = ::poll(&p, 1, ms);
	} while (r < 0 && errno == EINTR);
	if (r < 0)
		return -errno;
	return r ? 0 : -ETIMEDOUT;
}

} /* namespace */

sb_eth::~sb_eth()
{
	close_conn();
	if (lfd_ >= 0) {
		::close(lfd_);
		::unlink(path_.c_str());
	}
}

void sb_eth::unmap()
{
	if (shm_)
		munmap(shm_, shm_len_);
	if (shm_fd_ >= 0)
		::close(shm_fd_);
	shm_ = nullptr;
	shm_fd_ = -1;
	in_q_ = out_q_ = nullptr;
	bell_in_ = bell_out_ = nullptr;
}

/* After publishing a message: wake the peer if it sleeps on this queue. The
 * fence orders our slot store before the read of its waiting flag, against
 * its flag store before its look at the slot (wait_in()). */
void sb_eth::ring_out()
{
	if (!bell_out_)
		return;
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	if (!__atomic_load_n(&bell_out_->waiting, __ATOMIC_RELAXED))
		return;
	__atomic_fetch_add(&bell_out_->seq, 1, __ATOMIC_SEQ_CST);
	futex(&bell_out_->seq, FUTEX_WAKE, 1, nullptr);
}

bool sb_eth::in_ready() const
{
	return open_ && (own_load(in_q_ + in_pos_ * in_elen_) & kOwnMask) == kOwnCon;
}

void sb_eth::wait_in(unsigned timeout_us)
{
	if (!bell_in_) {
		sched_yield();
		return;
	}
	uint32_t seq = __atomic_load_n(&bell_in_->seq, __ATOMIC_SEQ_CST);

	__atomic_store_n(&bell_in_->waiting, 1, __ATOMIC_SEQ_CST);
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	if (!in_ready()) {
		timespec ts = {(time_t)(timeout_us / 1000000), (long)(timeout_us % 1000000) * 1000};

		futex(&bell_in_->seq, FUTEX_WAIT, seq, &ts);
	}
	__atomic_store_n(&bell_in_->waiting, 0, __ATOMIC_RELAXED);
}

int sb_eth::listen(const std::string &path, const params &p)
{
	sockaddr_un a;
	int r = set_unix_addr(&a, path);

	if (r)
		return r;
	p_ = p;
	path_ = path;
	listener_ = true;
	lfd_ = ::socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (lfd_ < 0)
		return -errno;
	::unlink(path.c_str());	/* a stale socket of a fabric that died */
	if (::bind(lfd_, (sockaddr *)&a, sizeof(a)) || ::listen(lfd_, 4)) {
		r = -errno;
		::close(lfd_);
		lfd_ = -1;
		return r;
	}
	return 0;
}

int sb_eth::accept_one()
{
	if (lfd_ < 0 || open_)
		return 0;
	int fd = ::accept4(lfd_, nullptr, nullptr, SOCK_CLOEXEC);

	if (fd < 0)
		return (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR) ? 0 : -errno;
	cfd_ = fd;
	int r = handshake_listener();

	if (r) {
		::close(cfd_);
		cfd_ = -1;
		unmap();
		return r;
	}
	return 1;
}

/* A fresh shared memory region per connection: the queues start empty. */
int sb_eth::handshake_listener()
{
	unmap();
	const size_t qlen = p_.entries * p_.entry_size * 2;

	shm_len_ = page_up(qlen) + kBellPage;
	shm_fd_ = memfd_create("rnic-fabric-link", MFD_CLOEXEC);
	if (shm_fd_ < 0)
		return -errno;
	if (ftruncate(shm_fd_, (off_t)shm_len_))
		return -errno;
	void *m = mmap(nullptr, shm_len_, PROT_READ | PROT_WRITE, MAP_SHARED, shm_fd_, 0);

	if (m == MAP_FAILED) {
		shm_ = nullptr;
		return -errno;
	}
	shm_ = static_cast<uint8_t *>(m);
	/* listener -> connecter first, then connecter -> listener */
	out_q_ = shm_;
	out_elen_ = p_.entry_size;
	out_n_ = p_.entries;
	in_q_ = shm_ + p_.entries * p_.entry_size;
	in_elen_ = p_.entry_size;
	in_n_ = p_.entries;
	std::memcpy(shm_ + page_up(qlen), &kBellMagic, sizeof(kBellMagic));
	bell_out_ = reinterpret_cast<bell *>(shm_ + page_up(qlen) + 8);
	bell_in_ = bell_out_ + 1;

	listener_intro li = {kVersion, kFlagSync | kFlagSyncForce,
			     0, p_.entry_size, p_.entries,
			     p_.entries * p_.entry_size, p_.entry_size, p_.entries,
			     kProtoNet, sizeof(listener_intro)};
	iovec iov = {&li, sizeof(li)};
	union {
		char buf[CMSG_SPACE(sizeof(int))];
		cmsghdr align;
	} u;
	msghdr mh = {};

	mh.msg_iov = &iov;
	mh.msg_iovlen = 1;
	mh.msg_control = u.buf;
	mh.msg_controllen = sizeof(u.buf);
	cmsghdr *c = CMSG_FIRSTHDR(&mh);

	c->cmsg_level = SOL_SOCKET;
	c->cmsg_type = SCM_RIGHTS;
	c->cmsg_len = CMSG_LEN(sizeof(int));
	std::memcpy(CMSG_DATA(c), &shm_fd_, sizeof(int));
	if (::sendmsg(cfd_, &mh, MSG_NOSIGNAL) != (ssize_t)sizeof(li))
		return -EPROTO;

	int r = wait_readable(cfd_, 5000);

	if (r)
		return r;
	uint8_t buf[512];
	ssize_t n = ::recv(cfd_, buf, sizeof(buf), 0);
	connecter_intro ci;

	if (n < (ssize_t)sizeof(ci))
		return -EPROTO;
	std::memcpy(&ci, buf, sizeof(ci));
	if (ci.version != kVersion || ci.upper_layer_proto != kProtoNet)
		return -EPROTO;
	in_pos_ = out_pos_ = 0;
	out_ts_ = 0;
	terminated_ = false;
	open_ = true;
	return 0;
}

int sb_eth::connect(const std::string &path, int timeout_ms)
{
	sockaddr_un a;
	int r = set_unix_addr(&a, path);

	if (r)
		return r;
	path_.clear();
	listener_ = false;
	cfd_ = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (cfd_ < 0)
		return -errno;
	if (::connect(cfd_, (sockaddr *)&a, sizeof(a))) {
		r = -errno;
		::close(cfd_);
		cfd_ = -1;
		return r;
	}
	r = handshake_connecter(timeout_ms);
	if (r) {
		::close(cfd_);
		cfd_ = -1;
		unmap();
	}
	return r;
}

int sb_eth::handshake_connecter(int timeout_ms)
{
	connecter_intro ci = {kVersion, kFlagSync | kFlagSyncForce, kProtoNet,
			      sizeof(connecter_intro)};

	if (::send(cfd_, &ci, sizeof(ci), MSG_NOSIGNAL) != (ssize_t)sizeof(ci))
		return -EPROTO;

	int r = wait_readable(cfd_, timeout_ms);

	if (r)
		return r;
	uint8_t buf[512];
	iovec iov = {buf, sizeof(buf)};
	union {
		char buf[CMSG_SPACE(sizeof(int))];
		cmsghdr align;
	} u;
	msghdr mh = {};

	mh.msg_iov = &iov;
	mh.msg_iovlen = 1;
	mh.msg_control = u.buf;
	mh.msg_controllen = sizeof(u.buf);
	ssize_t n = ::recvmsg(cfd_, &mh, MSG_CMSG_CLOEXEC);
	listener_intro li;
	cmsghdr *c = CMSG_FIRSTHDR(&mh);

	if (n < (ssize_t)sizeof(li) || !c || c->cmsg_type != SCM_RIGHTS ||
	    c->cmsg_len != CMSG_LEN(sizeof(int)))
		return -EPROTO;
	std::memcpy(&shm_fd_, CMSG_DATA(c), sizeof(int));
	std::memcpy(&li, buf, sizeof(li));
	if (li.version != kVersion || li.upper_layer_proto != kProtoNet ||
	    li.l2c_elen < kHdr || li.c2l_elen < kHdr || !li.l2c_nentries || !li.c2l_nentries)
		return -EPROTO;

	struct stat st;

	if (fstat(shm_fd_, &st))
		return -errno;
	shm_len_ = (size_t)st.st_size;
	if (li.l2c_offset + li.l2c_elen * li.l2c_nentries > shm_len_ ||
	    li.c2l_offset + li.c2l_elen * li.c2l_nentries > shm_len_)
		return -EPROTO;
	void *m = mmap(nullptr, shm_len_, PROT_READ | PROT_WRITE, MAP_SHARED, shm_fd_, 0);

	if (m == MAP_FAILED)
		return -errno;
	shm_ = static_cast<uint8_t *>(m);
	in_q_ = shm_ + li.l2c_offset;
	in_elen_ = li.l2c_elen;
	in_n_ = li.l2c_nentries;
	out_q_ = shm_ + li.c2l_offset;
	out_elen_ = li.c2l_elen;
	out_n_ = li.c2l_nentries;

	/* A listener of ours leaves its doorbells after the queues. */
	size_t qend = std::max(li.l2c_offset + li.l2c_elen * li.l2c_nentries,
			       li.c2l_offset + li.c2l_elen * li.c2l_nentries);
	uint64_t magic = 0;

	if (page_up(qend) + kBellPage <= shm_len_)
		std::memcpy(&magic, shm_ + page_up(qend), sizeof(magic));
	if (magic == kBellMagic) {
		bell_in_ = reinterpret_cast<bell *>(shm_ + page_up(qend) + 8);
		bell_out_ = bell_in_ + 1;
	}
	in_pos_ = out_pos_ = 0;
	out_ts_ = 0;
	terminated_ = false;
	open_ = true;
	return 0;
}

bool sb_eth::peek(msg *m)
{
	if (!open_)
		return false;
	const uint8_t *s = in_q_ + in_pos_ * in_elen_;
	uint8_t own = own_load(s);

	if ((own & kOwnMask) != kOwnCon)
		return false;
	m->type = own & ~kOwnMask;
	std::memcpy(&m->ts, s + kOffTs, sizeof(m->ts));
	m->data = s + kHdr;
	m->len = 0;
	if (m->type == kSbMsgPacket) {
		uint16_t len;

		std::memcpy(&len, s + kOffLen, sizeof(len));
		m->len = std::min<size_t>(len, in_elen_ - kHdr);
	} else if (m->type == kSbMsgTerminate) {
		terminated_ = true;
	}
	return true;
}

void sb_eth::release()
{
	uint8_t *s = in_q_ + in_pos_ * in_elen_;

	own_store(s, (uint8_t)(own_load(s) & ~kOwnMask));
	in_pos_ = (in_pos_ + 1) % in_n_;
}

uint8_t *sb_eth::out_slot()
{
	if (!open_)
		return nullptr;
	uint8_t *s = out_q_ + out_pos_ * out_elen_;

	return (own_load(s) & kOwnMask) == kOwnCon ? nullptr : s;
}

bool sb_eth::send_packet(uint64_t ts, const uint8_t *frame, size_t len)
{
	uint8_t *s = out_slot();
	uint16_t l = (uint16_t)len;

	if (!s || len > payload_max() || len > 0xffff)
		return false;
	std::memset(s, 0, kHdr - 1);
	std::memcpy(s + kOffLen, &l, sizeof(l));
	s[kOffPort] = 0;
	std::memcpy(s + kOffTs, &ts, sizeof(ts));
	std::memcpy(s + kHdr, frame, len);
	own_store(s, kSbMsgPacket | kOwnCon);
	out_pos_ = (out_pos_ + 1) % out_n_;
	out_ts_ = ts;
	ring_out();
	return true;
}

bool sb_eth::send_sync(uint64_t ts)
{
	uint8_t *s = out_slot();

	if (!s)
		return false;
	std::memset(s, 0, kHdr - 1);
	std::memcpy(s + kOffTs, &ts, sizeof(ts));
	own_store(s, kSbMsgSync | kOwnCon);
	out_pos_ = (out_pos_ + 1) % out_n_;
	out_ts_ = ts;
	ring_out();
	return true;
}

bool sb_eth::peer_gone()
{
	if (terminated_)
		return true;
	if (cfd_ < 0)
		return true;
	pollfd p = {cfd_, POLLIN | POLLRDHUP, 0};

	if (::poll(&p, 1, 0) <= 0)
		return false;
	if (p.revents & (POLLHUP | POLLRDHUP | POLLERR))
		return true;
	if (p.revents & POLLIN) {
		char c;
		ssize_t n = ::recv(cfd_, &c, 1, MSG_DONTWAIT | MSG_PEEK);

		return n == 0;
	}
	return false;
}

void sb_eth::close_conn()
{
	if (open_ && !terminated_) {
		/* Best effort: a full queue means the peer stopped reading. */
		uint8_t *s = out_slot();

		if (s) {
			std::memset(s, 0, kHdr - 1);
			std::memcpy(s + kOffTs, &out_ts_, sizeof(out_ts_));
			own_store(s, kSbMsgTerminate | kOwnCon);
			ring_out();
		}
	}
	open_ = false;
	if (cfd_ >= 0)
		::close(cfd_);
	cfd_ = -1;
	unmap();
}

} /* namespace rnic */
