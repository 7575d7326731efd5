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
#include <stdlib.h>
#include <string.h>

#include <rte_common.h>
#include <rte_cpuflags.h>
#include <rte_mbuf.h>
#include <rte_net_crc.h>
#include <rte_vect.h>

#include "aifab_pkt.h"

#if defined(RTE_ARCH_X86_64) && defined(__GNUC__)
#include <wmmintrin.h>
#define CRC_MUL_CLMUL 1 /* PCLMULQDQ when the CPU has it */
#endif

/* Reflected 0x04C11DB7. */
#define CRC32_POLY_REFL 0xEDB88320u
/* x^0 in the reflected representation (bit 31 is the x^0 coefficient). */
#define CRC32_X0 0x80000000u

#define IP4_MIN_HDR_LEN 20
#define IP6_HDR_LEN 40
#define UDP_HDR_LEN 8
/* Largest masked prefix: IPv4 with 40 bytes of options + UDP + BTH. */
#define ICRC_MASK_MAX (60 + UDP_HDR_LEN + AIFAB_BTH_LEN)

/* crc32_slice[0][i] = i * x^32 mod poly (reflected); [k] for slice-by-8;
 * crc32_x8n_lo[i] = x^(8i), crc32_x8n_hi[i] = x^(2048i) mod poly. */
#include "crc32_tables.h"

/* Receive check: contiguous runs this long or longer go to DPDK's folding
 * CRC (rte_net_crc_calc) and are appended with one multiply when it is
 * DPDK's AVX-512 one (icrc_dpdk), else to aifab_crc32_raw_fold(); shorter
 * ones to the slice-by-8 loop. Runs are cut to fit the x^(8n) tables. */
#define ICRC_FOLD_MIN 64
#define ICRC_RUN_MAX 65535u

static inline uint32_t
load_le32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
	       (uint32_t)p[3] << 24;
}

uint32_t
aifab_crc32_raw(uint32_t crc, const void *buf, uint32_t len)
{
	const uint8_t *p = buf;

	/* Slice-by-8: eight table lookups per 8 bytes. */
	for (; len >= 8; len -= 8, p += 8) {
		uint32_t lo = load_le32(p) ^ crc, hi = load_le32(p + 4);

		crc = crc32_slice[7][lo & 0xff] ^
		      crc32_slice[6][(lo >> 8) & 0xff] ^
		      crc32_slice[5][(lo >> 16) & 0xff] ^
		      crc32_slice[4][lo >> 24] ^
		      crc32_slice[3][hi & 0xff] ^
		      crc32_slice[2][(hi >> 8) & 0xff] ^
		      crc32_slice[1][(hi >> 16) & 0xff] ^
		      crc32_slice[0][hi >> 24];
	}
	for (; len > 0; len--, p++)
		crc = crc32_slice[0][(crc ^ *p) & 0xff] ^ (crc >> 8);
	return crc;
}

/*
 * a * b mod poly, both reflected: zlib's multmodp without its branches.
 * For each bit of a from x^0 up, add b when the bit is set, then b *= x.
 */
static uint32_t
crc_mul_loop(uint32_t a, uint32_t b)
{
	uint32_t p = 0;
	unsigned int i;

	for (i = 0; i < 32; i++) {
		p ^= b & (0u - ((a >> (31 - i)) & 1u));
		b = (b >> 1) ^ (CRC32_POLY_REFL & (0u - (b & 1u)));
	}
	return p;
}

#ifdef CRC_MUL_CLMUL

/*
 * The same with one carry-less multiply. With bit i of a 32-bit reflected
 * value standing for x^(31-i), clmul(a, b) << 1 holds the 64-coefficient
 * product with bit k standing for x^(63-k): its low half is H (the x^63..
 * x^32 part, reflected) and its high half L (x^31..x^0). a * b mod P =
 * (H * x^32 mod P) ^ L, and H * x^32 mod P is one slice-by-4 step of the
 * CRC register over four zero bytes.
 */
__attribute__((target("pclmul,sse2")))
static uint32_t
crc_mul_clmul(uint32_t a, uint32_t b)
{
	__m128i x = _mm_clmulepi64_si128(_mm_cvtsi32_si128((int)a),
					 _mm_cvtsi32_si128((int)b), 0x00);
	uint64_t c = (uint64_t)_mm_cvtsi128_si64(x) << 1;
	uint32_t h = (uint32_t)c;

	return crc32_slice[3][h & 0xff] ^ crc32_slice[2][(h >> 8) & 0xff] ^
	       crc32_slice[1][(h >> 16) & 0xff] ^ crc32_slice[0][h >> 24] ^
	       (uint32_t)(c >> 32);
}
#endif

uint32_t
aifab_crc32_mul(uint32_t a, uint32_t b)
{
#ifdef CRC_MUL_CLMUL
	if (__builtin_cpu_supports("pclmul"))
		return crc_mul_clmul(a, b);
#endif
	return crc_mul_loop(a, b);
}

/* x^(8*len) mod poly by square-and-multiply, starting from x^8. */
static uint32_t
crc_x8n(uint32_t len)
{
	uint32_t sq = CRC32_X0 >> 8;
	uint32_t p = CRC32_X0;

	while (len != 0) {
		if (len & 1)
			p = aifab_crc32_mul(sq, p);
		sq = aifab_crc32_mul(sq, sq);
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

	/* IPv4 without options: the masked part by carry-less multiplies
	 * (an ACK's 40 bytes, then its AETH by the table). */
	if (!ipv6 && n == 40 && hdr_len >= n &&
	    aifab_icrc4_hdr_fold(l3, n, &crc))
		return aifab_crc32_raw_fold(crc, l3 + n, hdr_len - n);
	if (n > hdr_len)
		n = hdr_len;
	memcpy(tmp, l3, n);
	icrc_mask(tmp, n, ip_len, ipv6);
	/* The LRH stand-in (8 x 0xFF) is constant: start after it. The
	 * rest (a whole frame's payload, for aifab_icrc()) by folding. */
	crc = aifab_crc32_raw(CRC32_REG_LRH_ONES, tmp, n);
	return aifab_crc32_raw_fold(crc, l3 + n, hdr_len - n);
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

	return ~(aifab_crc32_mul(s->x8n, crc) ^ payload_raw);
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

/* ---- receive check ------------------------------------------------------ */

/* Runs go to DPDK's CRC (aifab_icrc_verify_init(): its AVX-512 one, or
 * no carry-less multiply here for aifab_crc32_raw_fold()); until then to
 * aifab_crc32_raw_fold(), which falls back to the slice-by-8 itself. */
static bool icrc_dpdk;

/* True if the CPU has every flag of @p f (an RTE_CPUFLAG_NUMFLAGS end). */
static bool
cpu_has(const enum rte_cpu_flag_t *f)
{
	for (; *f != RTE_CPUFLAG_NUMFLAGS; f++)
		if (rte_cpu_get_flag_enabled(*f) <= 0)
			return false;
	return true;
}

void
aifab_icrc_verify_init(void)
{
	enum rte_net_crc_alg alg = RTE_NET_CRC_SCALAR;
	uint16_t simd = rte_vect_get_max_simd_bitwidth();
#if defined(RTE_ARCH_X86)
	/* What DPDK's folding needs (asking for more makes it log). */
	static const enum rte_cpu_flag_t avx512[] = {
		RTE_CPUFLAG_AVX512F, RTE_CPUFLAG_AVX512BW, RTE_CPUFLAG_AVX512DQ,
		RTE_CPUFLAG_AVX512VL, RTE_CPUFLAG_PCLMULQDQ,
		RTE_CPUFLAG_VPCLMULQDQ, RTE_CPUFLAG_NUMFLAGS,
	};
	static const enum rte_cpu_flag_t sse[] = {
		RTE_CPUFLAG_PCLMULQDQ, RTE_CPUFLAG_NUMFLAGS,
	};

	/*
	 * EAL's default SIMD width is 256 bits, which leaves DPDK's
	 * VPCLMULQDQ CRC unused: ~2900 cycles per 4 KB payload with SSE4.2
	 * against ~220 (bench/icrc_check). Where the CPU has it, raise the
	 * width just for this choice and put it back, so nothing else
	 * (PMD vector paths) changes; a user's --force-max-simd-bitwidth
	 * makes the raise fail (EAL says so) and is obeyed.
	 */
	if (simd < RTE_VECT_SIMD_512 && cpu_has(avx512) &&
	    rte_vect_set_max_simd_bitwidth(RTE_VECT_SIMD_512) == 0) {
		alg = RTE_NET_CRC_AVX512;
		rte_net_crc_set_alg(alg);
		rte_vect_set_max_simd_bitwidth(simd);
		icrc_dpdk = true;
		return;
	}
	/* Without AVX-512, DPDK's SSE4.2 CRC carries one 16-byte chunk at a
	 * time (1331 cycles per 4 KB on a Zen 3 EPYC); aifab_crc32_raw_fold()
	 * keeps four or eight in flight (875, 464) and takes the runs
	 * (bench/icrc_check). */
	if (simd >= RTE_VECT_SIMD_512 && cpu_has(avx512))
		alg = RTE_NET_CRC_AVX512;
	else if (simd >= RTE_VECT_SIMD_128 && cpu_has(sse))
		alg = RTE_NET_CRC_SSE42;
#elif defined(RTE_ARCH_ARM64)
	static const enum rte_cpu_flag_t pmull[] = {
		RTE_CPUFLAG_PMULL, RTE_CPUFLAG_NUMFLAGS,
	};

	if (simd >= RTE_VECT_SIMD_128 && cpu_has(pmull))
		alg = RTE_NET_CRC_NEON;
#endif
	rte_net_crc_set_alg(alg);
	icrc_dpdk = alg == RTE_NET_CRC_AVX512 || !aifab_crc32_fold_fast();
}

/* x^(8n) mod poly, n < 65536: one multiply of two table entries. */
static inline uint32_t
crc_x8n_fast(uint32_t n)
{
	return aifab_crc32_mul(crc32_x8n_lo[n & 0xff], crc32_x8n_hi[n >> 8]);
}

/* The register after @p n bytes at @p p from @p crc. With rte_net_crc_calc
 * = ~raw(P, ~0) and raw(P, c) = raw(P, ~0) ^ (c ^ ~0) * x^(8|P|). */
static uint32_t
crc_run(uint32_t crc, const uint8_t *p, uint32_t n)
{
	if (!icrc_dpdk)
		return aifab_crc32_raw_fold(crc, p, n);
	while (n >= ICRC_FOLD_MIN) {
		uint32_t k = RTE_MIN(n, ICRC_RUN_MAX);

		crc = ~rte_net_crc_calc(p, k, RTE_NET_CRC32_ETH) ^
			aifab_crc32_mul(crc ^ UINT32_MAX, crc_x8n_fast(k));
		p += k;
		n -= k;
	}
	return aifab_crc32_raw(crc, p, n);
}

/*
 * The frame's bytes, read forward: an mbuf chain (each segment's data_len
 * bytes, never more) or one flat buffer (seg NULL).
 */
struct icrc_src {
	const struct rte_mbuf *seg;
	const uint8_t *p;       /* data of the current piece */
	uint32_t n;             /* its length */
	uint32_t base;          /* frame offset of p[0] */
};

/* Move to the piece holding frame offset @p off (>= the current base). */
static bool
src_seek(struct icrc_src *s, uint32_t off)
{
	while (off - s->base >= s->n) {
		if (s->seg == NULL || s->seg->next == NULL)
			return false;
		s->base += s->n;
		s->seg = s->seg->next;
		s->p = rte_pktmbuf_mtod(s->seg, const uint8_t *);
		s->n = s->seg->data_len;
	}
	return true;
}

/* The @p len bytes from frame offset @p off (at or after the last read):
 * copied to @p dst, or if it is NULL fed to the CRC register @p crc.
 * False if the data ends first. */
static bool
src_walk(struct icrc_src *s, uint32_t off, uint32_t len, uint8_t *dst,
	 uint32_t *crc)
{
	while (len > 0) {
		uint32_t at, k;

		if (!src_seek(s, off))
			return false;
		at = off - s->base;
		k = RTE_MIN(len, s->n - at);
		if (dst != NULL) {
			memcpy(dst, s->p + at, k);
			dst += k;
		} else {
			*crc = crc_run(*crc, s->p + at, k);
		}
		off += k;
		len -= k;
	}
	return true;
}

/* What aifab_icrc_verify_known() looks up (aifab_pkt.h). */
struct aifab_icrc_known {
	uint32_t len, skip;
	uint32_t x8n;           /* x^(8 len) mod P: their CRC's shift */
	const uint8_t *ref;     /* len bytes (after reg[]) */
	uint32_t reg[];         /* reg[l]: raw(ref[0..l), 0), l = 0..len */
};

struct aifab_icrc_known *
aifab_icrc_known_create(const void *ref, uint32_t len, uint32_t skip)
{
	struct aifab_icrc_known *k;
	uint32_t l;

	if (len == 0 || len > ICRC_RUN_MAX)
		return NULL;
	k = malloc(sizeof(*k) + (len + 1) * sizeof(k->reg[0]) + len);
	if (k == NULL)
		return NULL;
	k->len = len;
	k->skip = skip;
	k->ref = (const uint8_t *)&k->reg[len + 1];
	memcpy((uint8_t *)&k->reg[len + 1], ref, len);
	k->x8n = crc_x8n_fast(len);
	k->reg[0] = 0;
	for (l = 0; l < len; l++)
		k->reg[l + 1] = aifab_crc32_raw(k->reg[l], k->ref + l, 1);
	return k;
}

void
aifab_icrc_known_free(struct aifab_icrc_known *k)
{
	free(k);
}

/*
 * The CRC register @p crc carried over frame bytes @p from .. @p to (the
 * ICRC's start), with @p k's bytes (NULL: none) looked up where they are
 * found: from @p known (>= @p from) up to the data's end @p data_end
 * (before the pad) or k's, in one piece of the source and the same byte
 * for byte. False if the data ends first.
 */
static bool
icrc_payload(struct icrc_src *s, uint32_t from, uint32_t to, uint32_t *crc,
	     const struct aifab_icrc_known *k, uint32_t known,
	     uint32_t data_end)
{
	uint32_t l, at;

	if (k == NULL || known >= data_end)
		return src_walk(s, from, to - from, NULL, crc);
	l = RTE_MIN(data_end - known, k->len);
	if (!src_walk(s, from, known - from, NULL, crc) || !src_seek(s, known))
		return false;
	at = known - s->base;
	if (s->n - at >= l && memcmp(s->p + at, k->ref, l) == 0)
		*crc = k->reg[l] ^ aifab_crc32_mul(*crc, l == k->len ?
						   k->x8n : crc_x8n_fast(l));
	else if (!src_walk(s, known, l, NULL, crc))
		return false;
	return src_walk(s, known + l, to - known - l, NULL, crc);
}

static enum aifab_icrc_verdict
icrc_verify(struct icrc_src *s, uint32_t pkt_len,
	    const struct aifab_pkt_info *pi, const struct aifab_icrc_known *k)
{
	uint8_t hdr[AIFAB_PKT_HDR_WINDOW], icrc[AIFAB_ICRC_LEN];
	uint32_t l3 = pi->l3_off, l4 = pi->l4_off, bth = pi->bth_off;
	uint32_t hl = bth + AIFAB_BTH_LEN - l3, end, data_end, crc;
	uint32_t known = UINT32_MAX;
	bool ipv6 = pi->l3 == AIFAB_L3_IPV6;
	const uint8_t *h = hdr; /* the headers from l3: copied, or in place */

	if (!(pi->flags & AIFAB_PKT_F_ROCE) || !(pi->flags & AIFAB_PKT_F_UDP) ||
	    (pi->l3 != AIFAB_L3_IPV4 && !ipv6) ||
	    l4 < l3 + IP4_MIN_HDR_LEN || bth != l4 + UDP_HDR_LEN ||
	    hl > sizeof(hdr))
		return AIFAB_ICRC_MALFORMED;
	/* IPv4 headers in the first piece are folded where they are (the
	 * fold masks them as it loads); others are copied and masked. */
	if (!ipv6 && s->base == 0 && s->n >= l3 + hl)
		h = s->p + l3;
	else if (!src_walk(s, l3, hl, hdr, NULL))
		return AIFAB_ICRC_MALFORMED;
	/* The datagram ends where IP and UDP both say it does; the ICRC is
	 * its last 4 bytes (Ethernet padding after it is not covered). */
	end = RTE_MIN(l3 + pi->ip_len,
		      l4 + ((uint32_t)h[l4 - l3 + 4] << 8 | h[l4 - l3 + 5]));
	if (end > pkt_len || end < bth + AIFAB_BTH_LEN + AIFAB_ICRC_LEN)
		return AIFAB_ICRC_MALFORMED;
	data_end = end - AIFAB_ICRC_LEN - pi->pad_cnt;
	if (k != NULL) {
		known = bth + AIFAB_BTH_LEN + k->skip +
			aifab_bth_data_ext_len(pi->bth_opcode);
		/* The bytes before k's (extension headers, a tag) go with
		 * the IPv4 headers' fold when it takes them. */
		if (!ipv6 && known < data_end && known - l3 <= sizeof(hdr) &&
		    h[0] == 0x45 && aifab_icrc4_fold_ok(known - l3)) {
			if (h != hdr && s->n < known) {
				memcpy(hdr, h, hl);
				h = hdr;
			}
			if (h == hdr && !src_walk(s, l3 + hl, known - l3 - hl,
						  hdr + hl, NULL))
				return AIFAB_ICRC_MALFORMED;
			hl = known - l3;
		}
	}
	/* The usual IPv4 header by carry-less multiplies (no table: its
	 * 8 KB are cold after the payload's CRC), else a masked copy. */
	if (ipv6 || !aifab_icrc4_hdr_fold(h, hl, &crc)) {
		if (h != hdr)
			memcpy(hdr, h, hl);
		icrc_mask(hdr, hl, l4 - l3, ipv6);
		crc = aifab_crc32_raw(CRC32_REG_LRH_ONES, hdr, hl);
	}
	if (!icrc_payload(s, l3 + hl, end - AIFAB_ICRC_LEN, &crc, k, known,
			  data_end) ||
	    !src_seek(s, end - AIFAB_ICRC_LEN))
		return AIFAB_ICRC_MALFORMED;
	/* the ICRC where it is, unless it spans two pieces */
	if (end - s->base <= s->n)
		memcpy(icrc, s->p + (end - AIFAB_ICRC_LEN - s->base),
		       AIFAB_ICRC_LEN);
	else if (!src_walk(s, end - AIFAB_ICRC_LEN, AIFAB_ICRC_LEN, icrc,
			   NULL))
		return AIFAB_ICRC_MALFORMED;
	return ~crc == aifab_icrc_load(icrc) ? AIFAB_ICRC_OK : AIFAB_ICRC_BAD;
}

enum aifab_icrc_verdict
aifab_icrc_verify(const struct rte_mbuf *m, const struct aifab_pkt_info *pi)
{
	return aifab_icrc_verify_known(m, pi, NULL);
}

enum aifab_icrc_verdict
aifab_icrc_verify_known(const struct rte_mbuf *m,
			const struct aifab_pkt_info *pi,
			const struct aifab_icrc_known *k)
{
	struct icrc_src s = {
		.seg = m, .p = rte_pktmbuf_mtod(m, const uint8_t *),
		.n = m->data_len, .base = 0,
	};

	return icrc_verify(&s, m->pkt_len, pi, k);
}

enum aifab_icrc_verdict
aifab_icrc_verify_buf(const uint8_t *frame, uint32_t len,
		      const struct aifab_pkt_info *pi)
{
	struct icrc_src s = { .seg = NULL, .p = frame, .n = len, .base = 0 };

	return icrc_verify(&s, len, pi, NULL);
}
