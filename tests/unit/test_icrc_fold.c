/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Unit tests for lib/pkt's folded ICRC (pkt_icrc_fold.c): the header part
 * by carry-less multiplies, combined with a precomputed payload CRC; and
 * the folded CRC of long runs (aifab_crc32_raw_fold(): the receive check's
 * payload).
 *
 * Judged by a bit-at-a-time CRC-32 written here (reflected 0x04C11DB7,
 * preset ones, final complement) over the ICRC's input as the spec lays it
 * out: 8 bytes of 0xFF, the headers with the variant fields set to ones,
 * payload and pad; and by PROTOCOLS.md's test vector.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "aifab_pkt.h"
#include "unit_judges.h"

#define HDR_MAX 128
#define PAY_MAX 600

/* ICRC of IPv4 (any IHL) + UDP + BTH headers of @p hdr_len bytes at @p l3
 * followed by @p plen payload bytes, by the book. */
static uint32_t
ref_icrc(const uint8_t *l3, uint32_t hdr_len, const uint8_t *pay,
	 uint32_t plen)
{
	static const uint8_t lrh[8] = { 0xff, 0xff, 0xff, 0xff,
					0xff, 0xff, 0xff, 0xff };
	uint8_t h[HDR_MAX];
	uint32_t ihl = (uint32_t)(l3[0] & 0x0f) * 4, crc;

	memcpy(h, l3, hdr_len);
	h[1] = 0xff;                            /* TOS */
	h[8] = 0xff;                            /* TTL */
	h[10] = h[11] = 0xff;                   /* header checksum */
	h[ihl + 6] = h[ihl + 7] = 0xff;         /* UDP checksum */
	h[ihl + 8 + 4] = 0xff;                  /* BTH FECN/BECN/resv */
	crc = unit_crc32_update(0xffffffffu, lrh, sizeof(lrh));
	crc = unit_crc32_update(crc, h, hdr_len);
	return ~unit_crc32_update(crc, pay, plen);
}

static uint32_t
fold(const uint8_t *l3, uint32_t hdr_len, const uint8_t *pay, uint32_t plen)
{
	struct aifab_crc_shift s;

	aifab_crc_shift_init(&s, plen);
	return aifab_icrc4_combine_fold(l3, hdr_len,
					aifab_crc32_raw(0, pay, plen), &s);
}

/* PROTOCOLS.md test vector: IPv4 SEND-only-like BTH, 16 x 0x41 payload. */
static void
test_vector(void **state)
{
	static const uint8_t l3[40] = {
		0x45, 0x6a, 0x00, 0x3c, 0x00, 0x01, 0x00, 0x00, 0x40, 0x11,
		0x66, 0x44, 0x0a, 0x00, 0x00, 0x01, 0x0a, 0x00, 0x00, 0x02,
		0xc0, 0x00, 0x12, 0xb7, 0x00, 0x28, 0x00, 0x00, 0x04, 0x00,
		0xff, 0xff, 0x00, 0x00, 0x00, 0x12, 0x80, 0x00, 0x00, 0x05,
	};
	uint8_t pay[16];

	(void)state;
	memset(pay, 0x41, sizeof(pay));
	assert_true(aifab_icrc4_fold_ok(40) ==
		    (__builtin_cpu_supports("pclmul") != 0));
	assert_int_equal(ref_icrc(l3, 40, pay, 16), 0x3a29628a);
	assert_int_equal(fold(l3, 40, pay, 16), 0x3a29628a);
}

static uint64_t
xs(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

/* Random headers of every foldable length and some that are not, random
 * payloads: the fold equals the bitwise reference and the table CRC. */
static void
test_random(void **state)
{
	uint8_t l3[HDR_MAX], pay[PAY_MAX];
	uint64_t rng = 0x9e3779b97f4a7c15ull;
	struct aifab_crc_shift s;
	uint32_t i, k, hl, pl, ref;

	(void)state;
	for (i = 0; i < 4000; i++) {
		hl = 40 + (uint32_t)(xs(&rng) % (HDR_MAX - 40 + 1));
		if (i % 4 != 3)
			hl &= ~7u;              /* mostly foldable lengths */
		pl = (uint32_t)(xs(&rng) % PAY_MAX);
		for (k = 0; k < hl; k++)
			l3[k] = (uint8_t)xs(&rng);
		for (k = 0; k < pl; k++)
			pay[k] = (uint8_t)xs(&rng);
		/* IHL 5 mostly; sometimes options (IHL 6: not folded). */
		l3[0] = i % 8 == 7 && hl >= 48 ? 0x46 : 0x45;
		ref = ref_icrc(l3, hl, pay, pl);
		assert_int_equal(fold(l3, hl, pay, pl), ref);
		aifab_crc_shift_init(&s, pl);
		assert_int_equal(aifab_icrc_combine(l3, hl, false,
				 aifab_crc32_raw(0, pay, pl), &s), ref);
	}
}

/* The variant fields do not count; every other header bit does. */
static void
test_masked_fields(void **state)
{
	static const uint32_t variant[] = { 1, 8, 10, 11, 26, 27, 32 };
	uint8_t l3[80], pay[8] = { 1, 2, 3, 4, 5, 6, 7, 8 };
	uint32_t base, i, bit;

	(void)state;
	for (i = 0; i < sizeof(l3); i++)
		l3[i] = (uint8_t)(i * 37 + 11);
	l3[0] = 0x45;
	base = fold(l3, sizeof(l3), pay, sizeof(pay));
	for (i = 0; i < sizeof(variant) / sizeof(variant[0]); i++) {
		l3[variant[i]] ^= 0x5a;
		assert_int_equal(fold(l3, sizeof(l3), pay, sizeof(pay)), base);
	}
	base = fold(l3, sizeof(l3), pay, sizeof(pay));
	for (bit = 8; bit < 8 * sizeof(l3); bit++) {
		bool var = false;

		for (i = 0; i < sizeof(variant) / sizeof(variant[0]); i++)
			var |= bit / 8 == variant[i];
		if (var)
			continue;
		l3[bit / 8] ^= (uint8_t)(1u << (bit % 8));
		assert_int_not_equal(fold(l3, sizeof(l3), pay, sizeof(pay)),
				     base);
		l3[bit / 8] ^= (uint8_t)(1u << (bit % 8));
	}
}

/*
 * aifab_crc32_raw_fold() against the bit-at-a-time judge: every length to
 * 300 (the slice-by-8 runs, the four-chunk fold from 64, the eight-chunk
 * one from 128 where the CPU has VPCLMULQDQ, and every tail below 16),
 * then lengths 61 apart to 9000 (a jumbo frame), from offsets 0..12 (loads
 * not aligned) and registers from an LCG, and the same for the four-chunk
 * fold alone (aifab_crc32_raw_fold128(): on a CPU with VPCLMULQDQ the
 * first takes it only below 128 bytes); and one bit flipped anywhere in
 * a 4096-byte run changes the register (a fold that dropped a lane's
 * bytes would not see it).
 */
static void
test_raw_fold(void **state)
{
	static uint8_t buf[9000 + 16];
	uint32_t x = 0x2545f491u, len, off, reg, i, good, want;

	(void)state;
	for (i = 0; i < sizeof(buf); i++) {
		x = x * 1103515245u + 12345u;
		buf[i] = (uint8_t)(x >> 24);
	}
	for (len = 0; len <= 9000; len += len < 300 ? 1 : 61) {
		x = x * 1103515245u + 12345u;
		off = len % 13;
		reg = x ^ (x << 7);
		want = unit_crc32_update(reg, buf + off, len);
		assert_int_equal(aifab_crc32_raw_fold(reg, buf + off, len),
				 want);
		assert_int_equal(aifab_crc32_raw_fold128(reg, buf + off, len),
				 want);
	}
	good = aifab_crc32_raw_fold(0xffffffffu, buf, 4096);
	assert_int_equal(good, unit_crc32_update(0xffffffffu, buf, 4096));
	for (i = 0; i < 4096 * 8; i += 509) {
		buf[i / 8] ^= (uint8_t)(1u << (i % 8));
		assert_int_not_equal(aifab_crc32_raw_fold(0xffffffffu, buf,
							  4096), good);
		buf[i / 8] ^= (uint8_t)(1u << (i % 8));
	}
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_vector),
		cmocka_unit_test(test_raw_fold),
		cmocka_unit_test(test_random),
		cmocka_unit_test(test_masked_fields),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
