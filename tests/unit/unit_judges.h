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

#endif /* UNIT_JUDGES_H */
