/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * RoCEv2 Invariant CRC.
 *
 * The ICRC is the Ethernet CRC-32 (reflected polynomial 0x04C11DB7, register
 * preset to all ones, final complement) over 8 bytes of 0xFF standing in for
 * the InfiniBand LRH, then IP header, UDP header, BTH, extension headers,
 * payload and pad, with the fields a router may change set to all ones.
 *
 * The CRC register is affine in the data, so for a payload P of n bytes
 *   raw(P, c) = raw(P, 0) ^ (c * x^(8n) mod poly)
 * which lets aifab_icrc_combine() append a precomputed payload CRC to the
 * per-packet header CRC with one GF(2) multiply (zlib's crc32_combine).
 */
#include <string.h>

#include "aifab_pkt.h"

/* Reflected 0x04C11DB7. */
#define CRC32_POLY_REFL 0xEDB88320u
/* x^0 in the reflected representation (bit 31 is the x^0 coefficient). */
#define CRC32_X0 0x80000000u

#define IP4_MIN_HDR_LEN 20
#define IP6_HDR_LEN 40
#define UDP_HDR_LEN 8
/* Largest masked prefix: IPv4 with 40 bytes of options + UDP + BTH. */
#define ICRC_MASK_MAX (60 + UDP_HDR_LEN + AIFAB_BTH_LEN)

/* Byte-at-a-time table: crc32_table[i] = i * x^32 mod poly, reflected. */
static const uint32_t crc32_table[256] = {
	0x00000000, 0x77073096, 0xee0e612c, 0x990951ba, 0x076dc419, 0x706af48f,
	0xe963a535, 0x9e6495a3, 0x0edb8832, 0x79dcb8a4, 0xe0d5e91e, 0x97d2d988,
	0x09b64c2b, 0x7eb17cbd, 0xe7b82d07, 0x90bf1d91, 0x1db71064, 0x6ab020f2,
	0xf3b97148, 0x84be41de, 0x1adad47d, 0x6ddde4eb, 0xf4d4b551, 0x83d385c7,
	0x136c9856, 0x646ba8c0, 0xfd62f97a, 0x8a65c9ec, 0x14015c4f, 0x63066cd9,
	0xfa0f3d63, 0x8d080df5, 0x3b6e20c8, 0x4c69105e, 0xd56041e4, 0xa2677172,
	0x3c03e4d1, 0x4b04d447, 0xd20d85fd, 0xa50ab56b, 0x35b5a8fa, 0x42b2986c,
	0xdbbbc9d6, 0xacbcf940, 0x32d86ce3, 0x45df5c75, 0xdcd60dcf, 0xabd13d59,
	0x26d930ac, 0x51de003a, 0xc8d75180, 0xbfd06116, 0x21b4f4b5, 0x56b3c423,
	0xcfba9599, 0xb8bda50f, 0x2802b89e, 0x5f058808, 0xc60cd9b2, 0xb10be924,
	0x2f6f7c87, 0x58684c11, 0xc1611dab, 0xb6662d3d, 0x76dc4190, 0x01db7106,
	0x98d220bc, 0xefd5102a, 0x71b18589, 0x06b6b51f, 0x9fbfe4a5, 0xe8b8d433,
	0x7807c9a2, 0x0f00f934, 0x9609a88e, 0xe10e9818, 0x7f6a0dbb, 0x086d3d2d,
	0x91646c97, 0xe6635c01, 0x6b6b51f4, 0x1c6c6162, 0x856530d8, 0xf262004e,
	0x6c0695ed, 0x1b01a57b, 0x8208f4c1, 0xf50fc457, 0x65b0d9c6, 0x12b7e950,
	0x8bbeb8ea, 0xfcb9887c, 0x62dd1ddf, 0x15da2d49, 0x8cd37cf3, 0xfbd44c65,
	0x4db26158, 0x3ab551ce, 0xa3bc0074, 0xd4bb30e2, 0x4adfa541, 0x3dd895d7,
	0xa4d1c46d, 0xd3d6f4fb, 0x4369e96a, 0x346ed9fc, 0xad678846, 0xda60b8d0,
	0x44042d73, 0x33031de5, 0xaa0a4c5f, 0xdd0d7cc9, 0x5005713c, 0x270241aa,
	0xbe0b1010, 0xc90c2086, 0x5768b525, 0x206f85b3, 0xb966d409, 0xce61e49f,
	0x5edef90e, 0x29d9c998, 0xb0d09822, 0xc7d7a8b4, 0x59b33d17, 0x2eb40d81,
	0xb7bd5c3b, 0xc0ba6cad, 0xedb88320, 0x9abfb3b6, 0x03b6e20c, 0x74b1d29a,
	0xead54739, 0x9dd277af, 0x04db2615, 0x73dc1683, 0xe3630b12, 0x94643b84,
	0x0d6d6a3e, 0x7a6a5aa8, 0xe40ecf0b, 0x9309ff9d, 0x0a00ae27, 0x7d079eb1,
	0xf00f9344, 0x8708a3d2, 0x1e01f268, 0x6906c2fe, 0xf762575d, 0x806567cb,
	0x196c3671, 0x6e6b06e7, 0xfed41b76, 0x89d32be0, 0x10da7a5a, 0x67dd4acc,
	0xf9b9df6f, 0x8ebeeff9, 0x17b7be43, 0x60b08ed5, 0xd6d6a3e8, 0xa1d1937e,
	0x38d8c2c4, 0x4fdff252, 0xd1bb67f1, 0xa6bc5767, 0x3fb506dd, 0x48b2364b,
	0xd80d2bda, 0xaf0a1b4c, 0x36034af6, 0x41047a60, 0xdf60efc3, 0xa867df55,
	0x316e8eef, 0x4669be79, 0xcb61b38c, 0xbc66831a, 0x256fd2a0, 0x5268e236,
	0xcc0c7795, 0xbb0b4703, 0x220216b9, 0x5505262f, 0xc5ba3bbe, 0xb2bd0b28,
	0x2bb45a92, 0x5cb36a04, 0xc2d7ffa7, 0xb5d0cf31, 0x2cd99e8b, 0x5bdeae1d,
	0x9b64c2b0, 0xec63f226, 0x756aa39c, 0x026d930a, 0x9c0906a9, 0xeb0e363f,
	0x72076785, 0x05005713, 0x95bf4a82, 0xe2b87a14, 0x7bb12bae, 0x0cb61b38,
	0x92d28e9b, 0xe5d5be0d, 0x7cdcefb7, 0x0bdbdf21, 0x86d3d2d4, 0xf1d4e242,
	0x68ddb3f8, 0x1fda836e, 0x81be16cd, 0xf6b9265b, 0x6fb077e1, 0x18b74777,
	0x88085ae6, 0xff0f6a70, 0x66063bca, 0x11010b5c, 0x8f659eff, 0xf862ae69,
	0x616bffd3, 0x166ccf45, 0xa00ae278, 0xd70dd2ee, 0x4e048354, 0x3903b3c2,
	0xa7672661, 0xd06016f7, 0x4969474d, 0x3e6e77db, 0xaed16a4a, 0xd9d65adc,
	0x40df0b66, 0x37d83bf0, 0xa9bcae53, 0xdebb9ec5, 0x47b2cf7f, 0x30b5ffe9,
	0xbdbdf21c, 0xcabac28a, 0x53b39330, 0x24b4a3a6, 0xbad03605, 0xcdd70693,
	0x54de5729, 0x23d967bf, 0xb3667a2e, 0xc4614ab8, 0x5d681b02, 0x2a6f2b94,
	0xb40bbe37, 0xc30c8ea1, 0x5a05df1b, 0x2d02ef8d,
};

static const uint8_t icrc_lrh_ones[8] = {
	0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
};

uint32_t
aifab_crc32_raw(uint32_t crc, const void *buf, uint32_t len)
{
	const uint8_t *p = buf;
	uint32_t i;

	for (i = 0; i < len; i++)
		crc = crc32_table[(crc ^ p[i]) & 0xff] ^ (crc >> 8);
	return crc;
}

/* a * b mod poly, both reflected. Bounded loop (zlib's multmodp). */
static uint32_t
crc_mulmod(uint32_t a, uint32_t b)
{
	uint32_t m;
	uint32_t p = 0;

	for (m = CRC32_X0; m != 0; m >>= 1) {
		if (a & m)
			p ^= b;
		b = (b & 1) ? (b >> 1) ^ CRC32_POLY_REFL : b >> 1;
	}
	return p;
}

/* x^(8*len) mod poly by square-and-multiply, starting from x^8. */
static uint32_t
crc_x8n(uint32_t len)
{
	uint32_t sq = CRC32_X0 >> 8;
	uint32_t p = CRC32_X0;

	while (len != 0) {
		if (len & 1)
			p = crc_mulmod(sq, p);
		sq = crc_mulmod(sq, sq);
		len >>= 1;
	}
	return p;
}

void
aifab_crc_shift_init(struct aifab_crc_shift *s, uint32_t len)
{
	s->len = len;
	s->x8n = crc_x8n(len);
}

/* Bytes of IP header at @p l3 (IPv4 IHL, IPv6 fixed 40; no ext headers). */
static uint32_t
icrc_ip_hdr_len(const uint8_t *l3, uint32_t len, bool ipv6)
{
	uint32_t ihl;

	if (ipv6)
		return IP6_HDR_LEN;
	if (len == 0)
		return IP4_MIN_HDR_LEN;
	ihl = (uint32_t)(l3[0] & 0x0f) * 4;
	return ihl < IP4_MIN_HDR_LEN ? IP4_MIN_HDR_LEN : ihl;
}

static void
icrc_mask_byte(uint8_t *h, uint32_t n, uint32_t off, uint8_t val)
{
	if (off < n)
		h[off] = val;
}

/* Set the variant fields of the first @p n header bytes to ones. */
static void
icrc_mask(uint8_t *h, uint32_t n, uint32_t ip_len, bool ipv6)
{
	uint32_t udp = ip_len;
	uint32_t bth = ip_len + UDP_HDR_LEN;

	if (ipv6) {
		/* Version nibble kept; traffic class, flow label, hop limit. */
		icrc_mask_byte(h, n, 0, (uint8_t)(h[0] | 0x0f));
		icrc_mask_byte(h, n, 1, 0xff);
		icrc_mask_byte(h, n, 2, 0xff);
		icrc_mask_byte(h, n, 3, 0xff);
		icrc_mask_byte(h, n, 7, 0xff);
	} else {
		icrc_mask_byte(h, n, 1, 0xff);  /* TOS */
		icrc_mask_byte(h, n, 8, 0xff);  /* TTL */
		icrc_mask_byte(h, n, 10, 0xff); /* header checksum */
		icrc_mask_byte(h, n, 11, 0xff);
	}
	icrc_mask_byte(h, n, udp + 6, 0xff);    /* UDP checksum */
	icrc_mask_byte(h, n, udp + 7, 0xff);
	icrc_mask_byte(h, n, bth + 4, 0xff);    /* FECN, BECN, reserved */
}

/*
 * CRC register after the LRH stand-in and the first @p hdr_len bytes at
 * @p l3, with the variant fields masked on a stack copy.
 */
static uint32_t
icrc_hdr_reg(const uint8_t *l3, uint32_t hdr_len, bool ipv6)
{
	uint8_t tmp[ICRC_MASK_MAX];
	uint32_t ip_len = icrc_ip_hdr_len(l3, hdr_len, ipv6);
	uint32_t n = ip_len + UDP_HDR_LEN + AIFAB_BTH_LEN;
	uint32_t crc;

	if (n > hdr_len)
		n = hdr_len;
	memcpy(tmp, l3, n);
	icrc_mask(tmp, n, ip_len, ipv6);
	crc = aifab_crc32_raw(UINT32_MAX, icrc_lrh_ones, sizeof(icrc_lrh_ones));
	crc = aifab_crc32_raw(crc, tmp, n);
	return aifab_crc32_raw(crc, l3 + n, hdr_len - n);
}

uint32_t
aifab_icrc(const uint8_t *l3, uint32_t len, bool ipv6)
{
	return ~icrc_hdr_reg(l3, len, ipv6);
}

uint32_t
aifab_icrc_combine(const uint8_t *l3, uint32_t hdr_len, bool ipv6,
		   uint32_t payload_raw, const struct aifab_crc_shift *s)
{
	uint32_t crc = icrc_hdr_reg(l3, hdr_len, ipv6);

	return ~(crc_mulmod(s->x8n, crc) ^ payload_raw);
}

void
aifab_icrc_store(uint8_t *dst, uint32_t icrc)
{
	dst[0] = (uint8_t)icrc;
	dst[1] = (uint8_t)(icrc >> 8);
	dst[2] = (uint8_t)(icrc >> 16);
	dst[3] = (uint8_t)(icrc >> 24);
}

uint32_t
aifab_icrc_load(const uint8_t *src)
{
	return (uint32_t)src[0] | ((uint32_t)src[1] << 8) |
		((uint32_t)src[2] << 16) | ((uint32_t)src[3] << 24);
}
