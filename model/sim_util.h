/* SPDX-License-Identifier: MIT */
/*
 * sim_util.h - helpers shared by the model components (internal, not part of
 * the C API): datapath constants, allocation-free queues, port access.
 */
#ifndef RNIC_SIM_UTIL_H
#define RNIC_SIM_UTIL_H

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <vector>

#ifndef RNIC_DATA_W
#error "RNIC_DATA_W must be defined (model/CMakeLists.txt passes it)"
#endif

namespace rnic {

constexpr unsigned kDataBits = RNIC_DATA_W;
constexpr unsigned kBytes = RNIC_DATA_W / 8;	/* bytes per beat */
constexpr uint64_t kPageSize = 4096;
constexpr unsigned kPageShift = 12;

static_assert(RNIC_DATA_W % 8 == 0 && RNIC_DATA_W >= 64 && RNIC_DATA_W <= 512,
	      "DataW must be a whole number of bytes in 64..512");
/* Ports are accessed as raw little-endian bytes (Verilator stores wide
 * signals as arrays of 32-bit words, least significant first). */
static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__, "little-endian host only");

/* Warnings about protocol violations by the RTL: the first few are printed,
 * all are counted. */
void model_warn(unsigned node, uint64_t cycle, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* FIFO on a power-of-two ring that only allocates when it has to grow, so
 * steady-state traffic never touches the heap. */
template <typename T>
class ring {
public:
	explicit ring(size_t cap = 16)
	{
		size_t c = 1;

		while (c < cap)
			c <<= 1;
		buf_.resize(c);
		mask_ = c - 1;
	}
	bool empty() const { return head_ == tail_; }
	size_t size() const { return tail_ - head_; }
	T &front() { return buf_[head_ & mask_]; }
	const T &front() const { return buf_[head_ & mask_]; }
	T &back() { return buf_[(tail_ - 1) & mask_]; }
	T &operator[](size_t i) { return buf_[(head_ + i) & mask_]; }
	const T &operator[](size_t i) const { return buf_[(head_ + i) & mask_]; }
	void push_back(const T &v)
	{
		if (size() == buf_.size())
			grow();
		buf_[tail_++ & mask_] = v;
	}
	void pop_front() { head_++; }
	void clear() { head_ = tail_ = 0; }

private:
	void grow()
	{
		std::vector<T> n(buf_.size() * 2);
		size_t cnt = size();

		for (size_t i = 0; i < cnt; i++)
			n[i] = buf_[(head_ + i) & mask_];
		buf_.swap(n);
		mask_ = buf_.size() - 1;
		head_ = 0;
		tail_ = cnt;
	}

	std::vector<T> buf_;
	size_t mask_ = 0;
	size_t head_ = 0;
	size_t tail_ = 0;
};

/* Byte FIFO (same idea) for posted DMA write data. */
class byte_ring {
public:
	explicit byte_ring(size_t cap = 1 << 16) : ring_(cap) {}
	size_t size() const { return tail_ - head_; }
	void push(const uint8_t *src, size_t n)
	{
		if (size() + n > ring_.size())
			grow(size() + n);
		size_t pos = tail_ & (ring_.size() - 1);
		size_t first = std::min(n, ring_.size() - pos);

		std::memcpy(&ring_[pos], src, first);
		std::memcpy(&ring_[0], src + first, n - first);
		tail_ += n;
	}
	/* Copy @n bytes starting @off bytes after the head. */
	void copy_out(size_t off, uint8_t *dst, size_t n) const
	{
		size_t pos = (head_ + off) & (ring_.size() - 1);
		size_t first = std::min(n, ring_.size() - pos);

		std::memcpy(dst, &ring_[pos], first);
		std::memcpy(dst + first, &ring_[0], n - first);
	}
	void pop(size_t n) { head_ += n; }

private:
	void grow(size_t need)
	{
		size_t c = ring_.size();

		while (c < need)
			c <<= 1;
		std::vector<uint8_t> n(c);
		copy_out(0, n.data(), size());
		tail_ = size();
		head_ = 0;
		ring_.swap(n);
	}

	std::vector<uint8_t> ring_;	/* size is a power of two */
	size_t head_ = 0;
	size_t tail_ = 0;
};

/*
 * Port access. A Verilated port is a CData/SData/IData/QData or a VlWide<N>
 * whose only member is its word array, so on a little-endian host its object
 * representation is the signal's bytes, lane 0 first.
 */
template <typename T>
inline void port_put(T &p, const uint8_t *src, unsigned n)
{
	uint8_t *d = reinterpret_cast<uint8_t *>(&p);

	if (n)
		std::memcpy(d, src, n);
	/* Unused lanes and the padding above DataW must be zero. */
	std::memset(d + n, 0, sizeof(T) - n);
}

template <typename T>
inline const uint8_t *port_bytes(const T &p)
{
	return reinterpret_cast<const uint8_t *>(&p);
}

/* Bits [lsb + width - 1 : lsb] of a port, width <= 32. */
template <typename T>
inline uint32_t port_field(const T &p, unsigned lsb, unsigned width)
{
	const uint8_t *b = port_bytes(p);
	unsigned first = lsb / 8;
	unsigned last = (lsb + width - 1) / 8;
	uint64_t v = 0;

	std::memcpy(&v, b + first, last - first + 1);
	return (uint32_t)((v >> (lsb % 8)) & ((1ull << width) - 1));
}

/* keep mask with the low @n lanes set. */
inline uint64_t keep_mask(unsigned n)
{
	return n >= 64 ? ~0ull : (1ull << n) - 1;
}

} /* namespace rnic */

#endif /* RNIC_SIM_UTIL_H */
