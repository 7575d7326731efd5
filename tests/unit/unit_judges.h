/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Independent judges the cmocka unit tests share: written here from
 * PROTOCOLS.md and the standards, never with the code under test.
 */
#ifndef UNIT_JUDGES_H
#define UNIT_JUDGES_H

#include <stddef.h>
#include <stdint.h>

/* CRC-32 (reflected 0x04C11DB7) register update, bit by bit: no preset,
 * no final complement, so a CRC can be run over several pieces. */
static inline uint32_t
unit_crc32_update(uint32_t c, const uint8_t *p, size_t n)
{
	size_t i;
	int k;

	for (i = 0; i < n; i++) {
		c ^= p[i];
		for (k = 0; k < 8; k++)
			c = (c >> 1) ^ (0xEDB88320u & (0u - (c & 1)));
	}
	return c;
}

/* CRC-32 as zlib's (preset and complemented): the CRC under the RoCEv2
 * ICRC. */
static inline uint32_t
unit_crc32(const uint8_t *p, size_t n)
{
	return ~unit_crc32_update(0xFFFFFFFFu, p, n);
}

/* An IPv4 header (20 bytes, no options) marked CE (RFC 3168: ECN bits 11)
 * and its checksum recomputed from scratch (RFC 791), as a congested
 * switch would leave it: the network between two generators in a test. */
static inline void
unit_ipv4_set_ce(uint8_t *ip)
{
	uint32_t sum = 0;
	int i;

	ip[1] |= 3;
	ip[10] = ip[11] = 0;
	for (i = 0; i < 20; i += 2)
		sum += (uint32_t)ip[i] << 8 | ip[i + 1];
	while (sum >> 16)
		sum = (sum & 0xFFFF) + (sum >> 16);
	sum = ~sum & 0xFFFF;
	ip[10] = (uint8_t)(sum >> 8);
	ip[11] = (uint8_t)sum;
}

/* An 802.1Qbb PFC frame (PROTOCOLS.md), byte by byte, into the 60 bytes
 * at @p f: to the reserved multicast address from 02:00:00:00:00:99,
 * MAC Control (0x8808) opcode 0x0101, class-enable vector @p enable and
 * each priority's pause time from @p quanta. */
static inline void
unit_pfc_frame(uint8_t *f, uint8_t enable, const uint16_t quanta[8])
{
	int i;

	for (i = 0; i < 60; i++)
		f[i] = 0;
	f[0] = 0x01, f[1] = 0x80, f[2] = 0xc2, f[5] = 0x01;	/* dst */
	f[6] = 0x02, f[11] = 0x99;				/* src */
	f[12] = 0x88;
	f[13] = 0x08;
	f[14] = 0x01;
	f[15] = 0x01;
	f[17] = enable;
	for (i = 0; i < 8; i++) {
		f[18 + 2 * i] = (uint8_t)(quanta[i] >> 8);
		f[19 + 2 * i] = (uint8_t)quanta[i];
	}
}

#endif /* UNIT_JUDGES_H */
