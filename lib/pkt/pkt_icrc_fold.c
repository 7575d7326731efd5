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
 *
 * aifab_crc32_raw_fold(): the same algebra for a long run (a received
 * payload), folded forward instead of multiplied out: a 16-byte chunk C
 * (its first 8 bytes c0, second c1) b blocks before the end of the run
 * contributes C(x) x^(64 b + 32) with C(x) = c0 x^64 + c1; carried b
 * blocks forward it becomes the chunk c0 x^(64 b + 64) + c1 x^(64 b),
 * congruent mod P, which is what two carry-less products give: c0 times
 * x^(64 b + 31) and c1 times x^(64 b - 33) (constants as above: a
 * product's bit k stands for x^(94-k), read 33 powers up as a chunk's,
 * bit k for x^(127-k)). Four chunks in flight, each carried 64 bytes
 * per step (or with VPCLMULQDQ eight, in four 32-byte registers, 128
 * bytes a step), so the multiplies do not wait on each other; the lanes
 * are then carried onto the last one, and the final chunk is the
 * register after its 16 bytes from 0: two slice-by-8 steps. DPDK's
 * SSE4.2 CRC (rte_net_crc) carries one chunk 16 bytes a step, each step
 * waiting for the one before (bench/icrc_check has both); its AVX-512
 * one stays the choice where the CPU has it (aifab_icrc_verify_init()).
 */
#include <string.h>

#include <rte_vect.h>

#include "aifab_pkt.h"

#if defined(RTE_ARCH_X86_64) && defined(__GNUC__)
#include <immintrin.h>
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

/* Chunk @p v carried forward by the constants @p k (crc32_fwd<b>). */
__attribute__((target("pclmul,sse2")))
static inline __m128i
fold_fwd(__m128i v, __m128i k)
{
	return _mm_xor_si128(_mm_clmulepi64_si128(v, k, 0x00),
			     _mm_clmulepi64_si128(v, k, 0x11));
}

/* The register after the chunk @p v (the run's last 16 bytes so far)
 * from 0, then the @p n (< 16) bytes at @p p. */
__attribute__((target("sse2")))
static inline uint32_t
fold_last(__m128i v, const uint8_t *p, uint32_t n)
{
	uint32_t r = reduce64((uint64_t)_mm_cvtsi128_si64(v));

	r = reduce64((uint64_t)_mm_cvtsi128_si64(_mm_srli_si128(v, 8)) ^ r);
	return aifab_crc32_raw(r, p, n);
}

/* Raw register over @p n >= 64 bytes at @p p from @p crc: four chunks a
 * step, each carried 64 bytes (8 blocks) forward. */
__attribute__((target("pclmul,sse2")))
static uint32_t
crc_fold4(uint32_t crc, const uint8_t *p, uint32_t n)
{
	const __m128i k8 = _mm_loadu_si128((const __m128i *)(const void *)
					   crc32_fwd8);
	const __m128i k2 = _mm_loadu_si128((const __m128i *)(const void *)
					   crc32_fwd2);
	__m128i x0 = _mm_xor_si128(load16(p), _mm_cvtsi32_si128((int)crc));
	__m128i x1 = load16(p + 16), x2 = load16(p + 32), x3 = load16(p + 48);

	for (p += 64, n -= 64; n >= 64; p += 64, n -= 64) {
		x0 = _mm_xor_si128(fold_fwd(x0, k8), load16(p));
		x1 = _mm_xor_si128(fold_fwd(x1, k8), load16(p + 16));
		x2 = _mm_xor_si128(fold_fwd(x2, k8), load16(p + 32));
		x3 = _mm_xor_si128(fold_fwd(x3, k8), load16(p + 48));
	}
	x1 = _mm_xor_si128(x1, fold_fwd(x0, k2));
	x2 = _mm_xor_si128(x2, fold_fwd(x1, k2));
	x3 = _mm_xor_si128(x3, fold_fwd(x2, k2));
	for (; n >= 16; p += 16, n -= 16)
		x3 = _mm_xor_si128(fold_fwd(x3, k2), load16(p));
	return fold_last(x3, p, n);
}

/* The same over @p n >= 128 bytes with 32-byte registers (VPCLMULQDQ):
 * eight chunks a step, each carried 128 bytes (16 blocks) forward. */
__attribute__((target("vpclmulqdq,avx2,pclmul")))
static uint32_t
crc_fold8(uint32_t crc, const uint8_t *p, uint32_t n)
{
	const __m256i k16 = _mm256_broadcastsi128_si256(_mm_loadu_si128(
		(const __m128i *)(const void *)crc32_fwd16));
	const __m256i k4 = _mm256_broadcastsi128_si256(_mm_loadu_si128(
		(const __m128i *)(const void *)crc32_fwd4));
	const __m128i k2 = _mm_loadu_si128((const __m128i *)(const void *)
					   crc32_fwd2);
	__m256i y[4];
	__m128i x;
	unsigned int i;

	for (i = 0; i < 4; i++)
		y[i] = _mm256_loadu_si256((const __m256i *)(const void *)
					  (p + 32 * i));
	y[0] = _mm256_xor_si256(y[0], _mm256_zextsi128_si256(
					_mm_cvtsi32_si128((int)crc)));
	for (p += 128, n -= 128; n >= 128; p += 128, n -= 128)
		for (i = 0; i < 4; i++)
			y[i] = _mm256_xor_si256(_mm256_xor_si256(
				_mm256_clmulepi64_epi128(y[i], k16, 0x00),
				_mm256_clmulepi64_epi128(y[i], k16, 0x11)),
				_mm256_loadu_si256((const __m256i *)
					(const void *)(p + 32 * i)));
	/* each register onto the next, 32 bytes (4 blocks) forward */
	for (i = 1; i < 4; i++)
		y[i] = _mm256_xor_si256(y[i], _mm256_xor_si256(
			_mm256_clmulepi64_epi128(y[i - 1], k4, 0x00),
			_mm256_clmulepi64_epi128(y[i - 1], k4, 0x11)));
	x = _mm_xor_si128(_mm256_extracti128_si256(y[3], 1),
			  fold_fwd(_mm256_castsi256_si128(y[3]), k2));
	for (; n >= 16; p += 16, n -= 16)
		x = _mm_xor_si128(fold_fwd(x, k2), load16(p));
	return fold_last(x, p, n);
}

/* 0: not chosen yet; 1: slice-by-8; 2: crc_fold4; 3: crc_fold8. */
static int crc_fold_kind;

/* By the CPU and EAL's SIMD width (--force-max-simd-bitwidth is obeyed:
 * 128 bits for crc_fold4, 256 for crc_fold8; 0, before rte_eal_init(),
 * is taken as DPDK's x86 default, 256). */
static int
crc_fold_choose(void)
{
	uint16_t simd = rte_vect_get_max_simd_bitwidth();
	int k = 1;

	if (simd == 0)
		simd = RTE_VECT_SIMD_256;
	if (simd >= RTE_VECT_SIMD_128 && __builtin_cpu_supports("pclmul"))
		k = 2;
	if (k == 2 && simd >= RTE_VECT_SIMD_256 &&
	    __builtin_cpu_supports("avx2") &&
	    __builtin_cpu_supports("vpclmulqdq"))
		k = 3;
	__atomic_store_n(&crc_fold_kind, k, __ATOMIC_RELAXED);
	return k;
}

/* crc_fold_kind, chosen at the first call. */
static inline int
crc_fold_get(void)
{
	int k = __atomic_load_n(&crc_fold_kind, __ATOMIC_RELAXED);

	return likely(k != 0) ? k : crc_fold_choose();
}

#endif

uint32_t
aifab_crc32_raw_fold(uint32_t crc, const void *buf, uint32_t len)
{
#ifdef ICRC_FOLD_CLMUL
	int k = crc_fold_get();

	if (k == 3 && len >= 128)
		return crc_fold8(crc, buf, len);
	if (k >= 2 && len >= 64)
		return crc_fold4(crc, buf, len);
#endif
	return aifab_crc32_raw(crc, buf, len);
}

uint32_t
aifab_crc32_raw_fold128(uint32_t crc, const void *buf, uint32_t len)
{
#ifdef ICRC_FOLD_CLMUL
	if (len >= 64 && __builtin_cpu_supports("pclmul"))
		return crc_fold4(crc, buf, len);
#endif
	return aifab_crc32_raw(crc, buf, len);
}

bool
aifab_crc32_fold_fast(void)
{
#ifdef ICRC_FOLD_CLMUL
	return crc_fold_get() >= 2;
#else
	return false;
#endif
}

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
