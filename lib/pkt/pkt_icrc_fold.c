/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The header part of a RoCEv2 ICRC by carry-less multiplies (PCLMULQDQ),
 * for senders that build IPv4 RoCEv2 headers per packet.
 *
 * CRC is linear: the raw register over a header of n 8-byte blocks B_0 ..
 * B_(n-1) (the LRH stand-in's register XORed into the first four bytes,
 * as slice-by-8 does) is the XOR over i of B_i * x^(32 + 64 (n-1-i)) mod P.
 * In the reflected representation (a block loaded little-endian: bit k
 * stands for x^(63-k); a CRC value: bit k for x^(31-k)) the carry-less
 * product of B_i and K = x^(64 j + 31) mod P (j = n-1-i, blocks after it)
 * holds B_i * K with bit k standing for x^(94-k); read one power up (bit k
 * for x^(95-k)) it is B_i * x^(64 j + 32): the block's contribution,
 * unreduced. The products are XORed (one 96-bit sum), then reduced once:
 * the low 64 bits stand for G * x^32, i.e. the register after feeding the
 * 8 bytes G from 0 (one slice-by-8 step), the high 32 bits are already
 * reduced. Per header: one multiply per 8 bytes, all independent, then
 * eight table lookups and the payload combine (aifab_crc32_mul).
 *
 * The variant fields (TOS, TTL, IPv4 checksum, UDP checksum, BTH byte 4)
 * are set to ones by ORing constant masks into the first five blocks: no
 * copy of the header.
 */
#include <string.h>

#include "aifab_pkt.h"

#if defined(RTE_ARCH_X86_64) && defined(__GNUC__)
#include <wmmintrin.h>
#define ICRC_FOLD_CLMUL 1
#endif

/* crc32_slice[k][i]: slice-by-8 tables; CRC32_REG_LRH_ONES. */
#include "crc32_tables.h"
/* crc32_fold_k[i] = x^(64 (CRC32_FOLD_BLOCKS - 1 - i) + 31) mod P. */
#include "crc32_fold.h"

/* IPv4 (IHL 5) + UDP + BTH: the five blocks the masks cover. */
#define FOLD_MASKED_LEN 40

#ifdef ICRC_FOLD_CLMUL

/*
 * Variant bytes of IPv4 (IHL 5) + UDP + BTH as ones, per 16 bytes: TOS
 * (byte 1); TTL (8), header checksum (10, 11); UDP checksum (26, 27); BTH
 * FECN/BECN/reserved (32). The LRH stand-in's register goes into bytes
 * 0..3 (XOR).
 */
static const uint64_t fold_mask[6] = {
	0xff00ull, 0xffff00ffull, 0, 0xffff0000ull, 0xffull, 0,
};

/* Raw register after 8 bytes @p g (little-endian) from 0. */
static inline uint32_t
reduce64(uint64_t g)
{
	uint32_t lo = (uint32_t)g, hi = (uint32_t)(g >> 32);

	return crc32_slice[7][lo & 0xff] ^ crc32_slice[6][(lo >> 8) & 0xff] ^
	       crc32_slice[5][(lo >> 16) & 0xff] ^ crc32_slice[4][lo >> 24] ^
	       crc32_slice[3][hi & 0xff] ^ crc32_slice[2][(hi >> 8) & 0xff] ^
	       crc32_slice[1][(hi >> 16) & 0xff] ^ crc32_slice[0][hi >> 24];
}

/* 16 bytes times their two constants @p k (block j: lane 0, j+1: lane 1). */
__attribute__((target("pclmul,sse2")))
static inline __m128i
fold16(__m128i d, const uint64_t *k)
{
	__m128i kk = _mm_loadu_si128((const __m128i *)(const void *)k);

	return _mm_xor_si128(_mm_clmulepi64_si128(d, kk, 0x00),
			     _mm_clmulepi64_si128(d, kk, 0x11));
}

static inline __m128i
load16(const uint8_t *p)
{
	return _mm_loadu_si128((const __m128i *)(const void *)p);
}

/* Raw register over @p n (5..CRC32_FOLD_BLOCKS) blocks at @p l3, masked,
 * from the LRH stand-in's register. */
__attribute__((target("pclmul,sse2")))
static uint32_t
fold_hdr(const uint8_t *l3, uint32_t n)
{
	const __m128i *m = (const __m128i *)(const void *)fold_mask;
	const uint64_t *k = crc32_fold_k + CRC32_FOLD_BLOCKS - n;
	__m128i acc, d;
	uint32_t j;

	d = _mm_xor_si128(_mm_or_si128(load16(l3), _mm_loadu_si128(m)),
			  _mm_cvtsi32_si128((int)CRC32_REG_LRH_ONES));
	acc = fold16(d, k);
	d = _mm_or_si128(load16(l3 + 16), _mm_loadu_si128(m + 1));
	acc = _mm_xor_si128(acc, fold16(d, k + 2));
	if (n == 5) {
		d = _mm_or_si128(_mm_loadl_epi64((const __m128i *)
				 (const void *)(l3 + 32)), _mm_loadu_si128(m + 2));
		acc = _mm_xor_si128(acc, _mm_clmulepi64_si128(d,
				    _mm_loadl_epi64((const __m128i *)
				    (const void *)(k + 4)), 0x00));
	} else {
		d = _mm_or_si128(load16(l3 + 32), _mm_loadu_si128(m + 2));
		acc = _mm_xor_si128(acc, fold16(d, k + 4));
	}
	for (j = 6; j + 2 <= n; j += 2)
		acc = _mm_xor_si128(acc, fold16(load16(l3 + 8 * j), k + j));
	if (j < n && n > 5)
		acc = _mm_xor_si128(acc, _mm_clmulepi64_si128(
			_mm_loadl_epi64((const __m128i *)(const void *)(l3 + 8 * j)),
			_mm_loadl_epi64((const __m128i *)(const void *)(k + j)),
			0x00));
	return reduce64((uint64_t)_mm_cvtsi128_si64(acc)) ^
	       (uint32_t)_mm_cvtsi128_si32(_mm_srli_si128(acc, 8));
}

#endif

bool
aifab_icrc4_fold_ok(uint32_t hdr_len)
{
#ifdef ICRC_FOLD_CLMUL
	return hdr_len >= FOLD_MASKED_LEN && hdr_len % 8 == 0 &&
	       hdr_len / 8 <= CRC32_FOLD_BLOCKS &&
	       __builtin_cpu_supports("pclmul");
#else
	RTE_SET_USED(hdr_len);
	return false;
#endif
}

bool
aifab_icrc4_hdr_fold(const uint8_t *l3, uint32_t hdr_len, uint32_t *reg)
{
#ifdef ICRC_FOLD_CLMUL
	if (l3[0] == 0x45 && aifab_icrc4_fold_ok(hdr_len)) {
		*reg = fold_hdr(l3, hdr_len / 8);
		return true;
	}
#else
	RTE_SET_USED(l3);
	RTE_SET_USED(hdr_len);
	RTE_SET_USED(reg);
#endif
	return false;
}

uint32_t
aifab_icrc4_combine_fold(const uint8_t *l3, uint32_t hdr_len,
			 uint32_t payload_raw, const struct aifab_crc_shift *s)
{
#ifdef ICRC_FOLD_CLMUL
	if (l3[0] == 0x45 && aifab_icrc4_fold_ok(hdr_len))
		return ~(aifab_crc32_mul(s->x8n, fold_hdr(l3, hdr_len / 8)) ^
			 payload_raw);
#endif
	return aifab_icrc_combine(l3, hdr_len, false, payload_raw, s);
}
