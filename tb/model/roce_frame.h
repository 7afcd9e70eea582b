/* SPDX-License-Identifier: MIT */
/*
 * roce_frame.h - RoCEv2 frames for the model tests, built and checked here
 * independently of the model's code (bitwise CRC-32, no table).
 */
#ifndef RNIC_TB_ROCE_FRAME_H
#define RNIC_TB_ROCE_FRAME_H

#include <cstddef>
#include <cstdint>
#include <vector>

namespace tb {

inline uint32_t crc32_step(uint32_t c, uint8_t b)
{
	c ^= b;
	for (int k = 0; k < 8; k++)
		c = (c >> 1) ^ (0xedb88320u & (0u - (c & 1)));
	return c;
}

/* CRC state after the 8 masked LRH bytes (all ones). */
inline uint32_t icrc_seed()
{
	uint32_t c = 0xffffffffu;

	for (int i = 0; i < 8; i++)
		c = crc32_step(c, 0xff);
	return c;
}

inline bool icrc_masked(size_t p)
{
	/* ToS, TTL, IP checksum, UDP checksum, BTH resv8a */
	return p == 15 || p == 22 || p == 24 || p == 25 || p == 40 || p == 41 || p == 46;
}

/* ICRC over a frame of @len bytes whose last 4 bytes are the ICRC. */
inline uint32_t icrc(const uint8_t *f, size_t len)
{
	uint32_t c = icrc_seed();

	for (size_t p = 14; p + 4 < len; p++)
		c = crc32_step(c, icrc_masked(p) ? 0xff : f[p]);
	return ~c;
}

/* What a RoCEv2 receiver keeps: IPv4, length = IPv4 total length + 14,
 * ICRC right. */
inline bool intact(const std::vector<uint8_t> &f)
{
	if (f.size() < 58 || f[12] != 0x08 || f[13] != 0x00)
		return false;
	if ((size_t)(f[16] << 8 | f[17]) + 14 != f.size())
		return false;

	const size_t n = f.size();
	uint32_t got = f[n - 4] | f[n - 3] << 8 | f[n - 2] << 16 | (uint32_t)f[n - 1] << 24;

	return got == icrc(f.data(), n);
}

/* RC SEND_ONLY from node @src to node @dst (10.0.0.<n+1>, MAC
 * 02:00:00:00:00:<n+1>) for QP @dqpn with PSN @id and @pay bytes of payload
 * (a multiple of 4) that start with @id. */
inline std::vector<uint8_t> send_only(unsigned src, unsigned dst, uint32_t dqpn, uint32_t id,
				      unsigned pay)
{
	std::vector<uint8_t> f(14 + 20 + 8 + 12 + pay + 4);
	const unsigned ip_len = 20 + 8 + 12 + pay + 4;
	uint8_t *p = f.data();

	/* Ethernet */
	const uint8_t dmac[6] = {2, 0, 0, 0, 0, (uint8_t)(dst + 1)};
	const uint8_t smac[6] = {2, 0, 0, 0, 0, (uint8_t)(src + 1)};

	for (int i = 0; i < 6; i++) {
		p[i] = dmac[i];
		p[6 + i] = smac[i];
	}
	p[12] = 0x08;
	p[13] = 0x00;
	/* IPv4 */
	uint8_t *ip = p + 14;

	ip[0] = 0x45;
	ip[2] = ip_len >> 8;
	ip[3] = ip_len & 0xff;
	ip[4] = id >> 8;
	ip[5] = id & 0xff;
	ip[6] = 0x40;
	ip[8] = 64;
	ip[9] = 17;
	ip[12] = 10;
	ip[15] = src + 1;
	ip[16] = 10;
	ip[19] = dst + 1;
	uint32_t sum = 0;

	for (int i = 0; i < 20; i += 2)
		sum += ip[i] << 8 | ip[i + 1];
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	ip[10] = ~sum >> 8;
	ip[11] = ~sum & 0xff;
	/* UDP */
	uint8_t *udp = ip + 20;
	const unsigned udp_len = ip_len - 20;

	udp[0] = 0xc0;
	udp[1] = id & 0xff;
	udp[2] = 4791 >> 8;
	udp[3] = 4791 & 0xff;
	udp[4] = udp_len >> 8;
	udp[5] = udp_len & 0xff;
	/* BTH: SEND_ONLY, no pad, TVer 0, default P_Key */
	uint8_t *bth = udp + 8;

	bth[0] = 0x04;
	bth[2] = 0xff;
	bth[3] = 0xff;
	bth[5] = dqpn >> 16;
	bth[6] = dqpn >> 8;
	bth[7] = dqpn;
	bth[9] = id >> 16;
	bth[10] = id >> 8;
	bth[11] = id;
	/* payload */
	uint8_t *pl = bth + 12;
	uint32_t x = id * 2654435761u + 1;

	for (unsigned i = 0; i < pay; i++) {
		x ^= x << 13;
		x ^= x >> 17;
		x ^= x << 5;
		pl[i] = i < 4 ? (uint8_t)(id >> (8 * i)) : (uint8_t)x;
	}
	uint32_t c = icrc(p, f.size());

	for (int i = 0; i < 4; i++)
		p[f.size() - 4 + i] = (uint8_t)(c >> (8 * i));
	return f;
}

inline unsigned hamming(const std::vector<uint8_t> &a, const std::vector<uint8_t> &b)
{
	unsigned d = 0;

	if (a.size() != b.size())
		return ~0u;
	for (size_t i = 0; i < a.size(); i++)
		d += __builtin_popcount(a[i] ^ b[i]);
	return d;
}

} /* namespace tb */

#endif /* RNIC_TB_ROCE_FRAME_H */
