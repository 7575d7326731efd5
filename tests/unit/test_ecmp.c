/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lib/ecmp: flow hashing and group selection. Oracles: the Microsoft RSS
 * verification table, a bitwise Toeplitz and a bitwise CRC32C written here
 * from their definitions, the documented tuple layout built here, binomial
 * and chi-square bounds for seeded random flows, and hand-computed bucket
 * counts. No EAL needed: the hashes are header-only in DPDK.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <math.h>
#include <netinet/in.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <rte_byteorder.h>
#include <rte_common.h>
#include <rte_hash_crc.h>
#include <rte_jhash.h>

#include "aifab_ecmp.h"
#include "aifab_pkt.h"
#include "aifab_rng.h"

#define N_FLOWS 100000u
#define SIGMAS 6.0

/* 99.99% quantiles of chi-square with 1, 2, 3 and 7 degrees of freedom. */
static double
chi2_q9999(unsigned int df)
{
	switch (df) {
	case 1: return 15.1367;
	case 2: return 18.4207;
	case 3: return 21.1075;
	case 7: return 29.8775;
	default: fail_msg("no quantile for df %u", df);
	}
	return 0.0;
}

/* ---- oracles written from the definitions ------------------------------- */

/* Bit @p pos of a big-endian bit string. */
static unsigned int
bit_at(const uint8_t *s, unsigned int pos)
{
	return (s[pos / 8] >> (7 - pos % 8)) & 1u;
}

/*
 * Toeplitz per Microsoft's description: for every set input bit i (most
 * significant bit of the first byte is bit 0), XOR in the 32 key bits
 * starting at key bit i.
 */
static uint32_t
naive_toeplitz(const uint8_t *in, unsigned int len, const uint8_t *key)
{
	uint32_t h = 0, win;
	unsigned int i, k;

	for (i = 0; i < 8 * len; i++) {
		if (!bit_at(in, i))
			continue;
		for (win = 0, k = 0; k < 32; k++)
			win = (win << 1) | bit_at(key, i + k);
		h ^= win;
	}
	return h;
}

/* CRC-32C, reflected polynomial 0x82F63B78, no final XOR. */
static uint32_t
naive_crc32c(uint32_t crc, const uint8_t *p, unsigned int len)
{
	unsigned int i, b;

	for (i = 0; i < len; i++) {
		crc ^= p[i];
		for (b = 0; b < 8; b++)
			crc = (crc >> 1) ^ (0x82F63B78u & (0u - (crc & 1u)));
	}
	return crc;
}

/* MurmurHash3 fmix32, as published. */
static uint32_t
murmur_fmix32(uint32_t h)
{
	h ^= h >> 16;
	h *= 0x85ebca6bu;
	h ^= h >> 13;
	h *= 0xc2b2ae35u;
	return h ^ (h >> 16);
}

/* The header's tuple, on the wire order: src, dst, ports, [proto, dqpn]. */
static unsigned int
wire_tuple(const struct aifab_ecmp_flow *f, uint32_t fields, uint8_t *out)
{
	unsigned int alen = f->family == 6 ? 16 : 4, n = 0;
	uint32_t extra = AIFAB_ECMP_F_PROTO | AIFAB_ECMP_F_DQPN;

	memset(out, 0, 4 * AIFAB_ECMP_TUPLE_WORDS);
	if (fields & AIFAB_ECMP_F_SIP)
		memcpy(out, f->src, alen);
	if (fields & AIFAB_ECMP_F_DIP)
		memcpy(out + alen, f->dst, alen);
	n = 2 * alen;
	if (fields & AIFAB_ECMP_F_SPORT) {
		out[n] = (uint8_t)(f->sport >> 8);
		out[n + 1] = (uint8_t)f->sport;
	}
	if (fields & AIFAB_ECMP_F_DPORT) {
		out[n + 2] = (uint8_t)(f->dport >> 8);
		out[n + 3] = (uint8_t)f->dport;
	}
	n += 4;
	if (!(fields & extra))
		return n;
	if (fields & AIFAB_ECMP_F_PROTO)
		out[n] = f->proto;
	if (fields & AIFAB_ECMP_F_DQPN) {
		out[n + 1] = (uint8_t)(f->dqpn >> 16);
		out[n + 2] = (uint8_t)(f->dqpn >> 8);
		out[n + 3] = (uint8_t)f->dqpn;
	}
	return n + 4;
}

/* The same tuple as CPU-order words (what crc32c / jhash read). */
static unsigned int
word_tuple(const struct aifab_ecmp_flow *f, uint32_t fields, uint32_t *w)
{
	uint8_t b[4 * AIFAB_ECMP_TUPLE_WORDS];
	unsigned int i, len = wire_tuple(f, fields, b);

	for (i = 0; i < len / 4; i++)
		w[i] = ((uint32_t)b[4 * i] << 24) | ((uint32_t)b[4 * i + 1] << 16) |
		       ((uint32_t)b[4 * i + 2] << 8) | b[4 * i + 3];
	return len / 4;
}

/* Default key per the header: MS key, then its first 12 bytes; seed XOR. */
static void
expected_key(uint8_t *key, uint32_t seed)
{
	uint64_t x = seed, r;
	unsigned int i, j;

	memcpy(key, aifab_ecmp_ms_rss_key, 40);
	memcpy(key + 40, aifab_ecmp_ms_rss_key, 12);
	/* Zero tail so the window past byte 52 reads zeros. */
	memset(key + 52, 0, 8);
	if (seed == 0)
		return;
	for (i = 0; i < 52; i += 8) {
		r = aifab_splitmix64(&x);
		for (j = 0; j < 8 && i + j < 52; j++)
			key[i + j] ^= (uint8_t)(r >> (56 - 8 * j));
	}
}

/* ---- helpers ------------------------------------------------------------ */

static void
cfg_make(struct aifab_ecmp_cfg *c, enum aifab_ecmp_hash_fn fn, uint32_t seed,
	 uint32_t fields)
{
	struct aifab_ecmp_params p = { .fn = fn, .seed = seed,
				       .fields = fields };

	assert_int_equal(aifab_ecmp_config(c, &p), 0);
}

static void
rand_bytes(struct aifab_rng *r, uint8_t *p, unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		p[i] = (uint8_t)aifab_rng_u32(r);
}

/* A random RoCEv2 flow: random addresses, QP and per-QP source port. */
static void
rand_roce_flow(struct aifab_rng *r, struct aifab_ecmp_flow *f, bool v6)
{
	memset(f, 0, sizeof(*f));
	f->family = v6 ? 6 : 4;
	rand_bytes(r, f->src, v6 ? 16 : 4);
	rand_bytes(r, f->dst, v6 ? 16 : 4);
	f->proto = IPPROTO_UDP;
	f->sport = (uint16_t)(0xC000 | aifab_rng_below(r, 0x4000));
	f->dport = AIFAB_ROCEV2_UDP_PORT;
	f->dqpn = aifab_rng_u32(r) & 0xFFFFFF;
}

/* Hashes of N_FLOWS seeded random IPv4 RoCE flows under @p c. */
static uint32_t *
flow_hashes(const struct aifab_ecmp_cfg *c, uint64_t seed)
{
	uint32_t *h = malloc(N_FLOWS * sizeof(*h));
	struct aifab_ecmp_flow f;
	struct aifab_rng r;
	unsigned int i;

	assert_non_null(h);
	aifab_rng_seed(&r, seed, 0);
	for (i = 0; i < N_FLOWS; i++) {
		rand_roce_flow(&r, &f, false);
		h[i] = aifab_ecmp_hash(c, &f);
	}
	return h;
}

/* |count - n p| within SIGMAS binomial standard deviations. */
static void
assert_binomial(unsigned long count, unsigned long n, double p)
{
	double mean = (double)n * p, sd = sqrt((double)n * p * (1.0 - p));

	if (fabs((double)count - mean) > SIGMAS * sd)
		fail_msg("count %lu, expected %.1f +- %.1f", count, mean,
			 SIGMAS * sd);
}

/* Buckets each slot owns, probing select() with hash = bucket index. */
static void
bucket_counts(const struct aifab_ecmp_group *g, unsigned int *cnt)
{
	unsigned int b, s;

	memset(cnt, 0, AIFAB_ECMP_MAX_MEMBERS * sizeof(*cnt));
	for (b = 0; b < g->n_buckets; b++) {
		s = aifab_ecmp_select(g, b);
		assert_true(s < g->n_members);
		cnt[s]++;
	}
}

static const uint16_t ids[AIFAB_ECMP_MAX_MEMBERS] = {
	100, 101, 102, 103, 104, 105, 106, 107,
	108, 109, 110, 111, 112, 113, 114, 115,
};

/* ---- Toeplitz ----------------------------------------------------------- */

struct ms_vec {
	const char *src, *dst; /* inet_pton input */
	uint16_t sport, dport;
	uint32_t ip_only, with_ports;
};

/* Microsoft, "Verifying the RSS hash calculation". */
static const struct ms_vec ms_v4[] = {
	{ "66.9.149.187", "161.142.100.80", 2794, 1766, 0x323e8fc2, 0x51ccc178 },
	{ "199.92.111.2", "65.69.140.83", 14230, 4739, 0xd718262a, 0xc626b0ea },
	{ "24.19.198.95", "12.22.207.184", 12898, 38024, 0xd2d0a5de, 0x5c2b394a },
	{ "38.27.205.30", "209.142.163.6", 48228, 2217, 0x82989176, 0xafc7327f },
	{ "153.39.163.191", "202.188.127.2", 44251, 1303, 0x5d1809c5, 0x10e828a2 },
};
static const struct ms_vec ms_v6[] = {
	{ "3ffe:2501:200:1fff::7", "3ffe:2501:200:3::1", 2794, 1766,
	  0x2cc18cd5, 0x40207d3d },
	{ "3ffe:501:8::260:97ff:fe40:efab", "ff02::1", 14230, 4739,
	  0x0f0c461c, 0xdde51bbf },
	{ "3ffe:1900:4545:3:200:f8ff:fe21:67cf", "fe80::200:f8ff:fe21:67cf",
	  44251, 38024, 0x4b61e985, 0x02d1feef },
};

static void
ms_flow(const struct ms_vec *v, bool v6, struct aifab_ecmp_flow *f)
{
	memset(f, 0, sizeof(*f));
	f->family = v6 ? 6 : 4;
	assert_int_equal(inet_pton(v6 ? AF_INET6 : AF_INET, v->src, f->src), 1);
	assert_int_equal(inet_pton(v6 ? AF_INET6 : AF_INET, v->dst, f->dst), 1);
	f->sport = v->sport;
	f->dport = v->dport;
	f->proto = IPPROTO_TCP;
}

static void
check_ms_table(const struct ms_vec *t, unsigned int n, bool v6,
	       uint8_t key_len)
{
	struct aifab_ecmp_params p = {
		.fn = AIFAB_ECMP_HASH_TOEPLITZ, .rss_key_len = key_len,
	};
	struct aifab_ecmp_cfg ip_only, ports;
	struct aifab_ecmp_flow f;
	unsigned int i;

	memcpy(p.rss_key, aifab_ecmp_ms_rss_key, 40);
	p.fields = AIFAB_ECMP_F_SIP | AIFAB_ECMP_F_DIP;
	assert_int_equal(aifab_ecmp_config(&ip_only, &p), 0);
	p.fields |= AIFAB_ECMP_F_SPORT | AIFAB_ECMP_F_DPORT;
	assert_int_equal(aifab_ecmp_config(&ports, &p), 0);
	for (i = 0; i < n; i++) {
		ms_flow(&t[i], v6, &f);
		assert_int_equal(aifab_ecmp_hash(&ip_only, &f), t[i].ip_only);
		assert_int_equal(aifab_ecmp_hash(&ports, &f), t[i].with_ports);
	}
}

static void
test_toeplitz_ms_vectors(void **state)
{
	(void)state;
	/* Explicit 40-byte MS key, and the default key (len 0). */
	check_ms_table(ms_v4, RTE_DIM(ms_v4), false, 40);
	check_ms_table(ms_v6, RTE_DIM(ms_v6), true, 40);
	check_ms_table(ms_v4, RTE_DIM(ms_v4), false, 0);
	check_ms_table(ms_v6, RTE_DIM(ms_v6), true, 0);
}

/* Against the bitwise Toeplitz, all fields, IPv4 and IPv6, two seeds. */
static void
test_toeplitz_vs_naive(void **state)
{
	static const uint32_t seeds[] = { 0, 0xC0FFEE };
	uint8_t key[60], in[4 * AIFAB_ECMP_TUPLE_WORDS];
	struct aifab_ecmp_flow f;
	struct aifab_ecmp_cfg c;
	struct aifab_rng r;
	unsigned int s, i, len;

	(void)state;
	aifab_rng_seed(&r, 11, 0);
	for (s = 0; s < RTE_DIM(seeds); s++) {
		expected_key(key, seeds[s]);
		cfg_make(&c, AIFAB_ECMP_HASH_TOEPLITZ, seeds[s],
			 AIFAB_ECMP_F_ALL);
		for (i = 0; i < 200; i++) {
			rand_roce_flow(&r, &f, i % 2);
			len = wire_tuple(&f, AIFAB_ECMP_F_ALL, in);
			assert_int_equal(aifab_ecmp_hash(&c, &f),
					 naive_toeplitz(in, len, key));
		}
	}
}

/* ---- crc32c and jhash over the documented layout ------------------------ */

static void
test_crc32c_jhash_layout(void **state)
{
	static const uint32_t field_sets[] = {
		AIFAB_ECMP_F_ALL, AIFAB_ECMP_F_5TUPLE,
		AIFAB_ECMP_F_SPORT | AIFAB_ECMP_F_DQPN,
	};
	uint32_t w[AIFAB_ECMP_TUPLE_WORDS], seed = 0x1234567;
	struct aifab_ecmp_cfg crc, jh;
	struct aifab_ecmp_flow f;
	struct aifab_rng r;
	unsigned int k, i, n;

	(void)state;
	/* The bitwise CRC-32C itself: the standard check value. */
	assert_int_equal(~naive_crc32c(~0u, (const uint8_t *)"123456789", 9),
			 0xE3069283u);
	aifab_rng_seed(&r, 12, 0);
	for (k = 0; k < RTE_DIM(field_sets); k++) {
		cfg_make(&crc, AIFAB_ECMP_HASH_CRC32C, seed, field_sets[k]);
		cfg_make(&jh, AIFAB_ECMP_HASH_JHASH, seed, field_sets[k]);
		for (i = 0; i < 500; i++) {
			rand_roce_flow(&r, &f, i % 2);
			n = word_tuple(&f, field_sets[k], w);
			assert_int_equal(aifab_ecmp_hash(&crc, &f),
				murmur_fmix32(naive_crc32c(seed,
					(const uint8_t *)w, 4 * n)));
			assert_int_equal(aifab_ecmp_hash(&jh, &f),
					 rte_jhash(w, 4 * n, seed));
		}
	}
}

/*
 * aifab_ecmp_hash4_crc32c() (the switch's inline hash of an IPv4 flow)
 * against the bitwise CRC-32C of the documented tuple and fmix32, for
 * field sets with and without the proto/dqpn word, addresses at odd
 * offsets (any alignment), several seeds.
 */
static void
test_hash4_crc32c_inline(void **state)
{
	static const uint32_t field_sets[] = {
		AIFAB_ECMP_F_ALL, AIFAB_ECMP_F_5TUPLE,
		AIFAB_ECMP_F_SPORT | AIFAB_ECMP_F_DQPN,
		AIFAB_ECMP_F_SIP | AIFAB_ECMP_F_DIP,
	};
	static const uint32_t seeds[] = { 0, 0x1234567, 0xffffffffu };
	uint32_t w[AIFAB_ECMP_TUPLE_WORDS];
	uint8_t hdr[64];
	struct aifab_ecmp_cfg crc;
	struct aifab_ecmp_flow f;
	struct aifab_rng r;
	unsigned int k, s, i, n;

	(void)state;
	aifab_rng_seed(&r, 14, 0);
	for (k = 0; k < RTE_DIM(field_sets); k++)
		for (s = 0; s < RTE_DIM(seeds); s++) {
			cfg_make(&crc, AIFAB_ECMP_HASH_CRC32C, seeds[s],
				 field_sets[k]);
			for (i = 0; i < 300; i++) {
				uint8_t *l3 = hdr + 1 + i % 3;

				rand_roce_flow(&r, &f, false);
				memcpy(l3 + 12, f.src, 4);
				memcpy(l3 + 16, f.dst, 4);
				n = word_tuple(&f, field_sets[k], w);
				assert_int_equal(aifab_ecmp_hash4_crc32c(&crc,
					l3, f.sport, f.dport, f.proto, f.dqpn),
					murmur_fmix32(naive_crc32c(seeds[s],
						(const uint8_t *)w, 4 * n)));
			}
		}
}

/* ---- field selection ---------------------------------------------------- */

/* Change field @p bit of @p f to a different value. */
static void
mutate(struct aifab_rng *r, struct aifab_ecmp_flow *f, uint32_t bit)
{
	unsigned int alen = f->family == 6 ? 16 : 4;

	switch (bit) {
	case AIFAB_ECMP_F_SIP:
		f->src[aifab_rng_below(r, alen)] ^=
			(uint8_t)(1 + aifab_rng_below(r, 255));
		break;
	case AIFAB_ECMP_F_DIP:
		f->dst[aifab_rng_below(r, alen)] ^=
			(uint8_t)(1 + aifab_rng_below(r, 255));
		break;
	case AIFAB_ECMP_F_PROTO:
		f->proto = f->proto == IPPROTO_UDP ? IPPROTO_TCP : IPPROTO_UDP;
		break;
	case AIFAB_ECMP_F_SPORT:
		f->sport ^= (uint16_t)(1 + aifab_rng_below(r, 0x3FFF));
		break;
	case AIFAB_ECMP_F_DPORT:
		f->dport ^= (uint16_t)(1 + aifab_rng_below(r, 0xFFFE));
		break;
	default:
		f->dqpn ^= 1 + aifab_rng_below(r, 0xFFFFFE);
		break;
	}
}

static void
test_field_selection(void **state)
{
	struct aifab_ecmp_cfg without, with;
	struct aifab_ecmp_flow f, g;
	unsigned int fn, b, i, changed;
	struct aifab_rng r;
	uint32_t bit;

	(void)state;
	aifab_rng_seed(&r, 13, 0);
	for (fn = 0; fn < AIFAB_ECMP_HASH_MAX; fn++) {
		for (b = 0; b < AIFAB_ECMP_FB_MAX; b++) {
			bit = 1u << b;
			cfg_make(&without, fn, 99, AIFAB_ECMP_F_ALL & ~bit);
			cfg_make(&with, fn, 99, AIFAB_ECMP_F_ALL);
			changed = 0;
			for (i = 0; i < 1000; i++) {
				rand_roce_flow(&r, &f, i % 2);
				g = f;
				mutate(&r, &g, bit);
				assert_int_equal(aifab_ecmp_hash(&without, &f),
						 aifab_ecmp_hash(&without, &g));
				changed += aifab_ecmp_hash(&with, &f) !=
					   aifab_ecmp_hash(&with, &g);
			}
			if (changed < 990)
				fail_msg("%s field %s: only %u of 1000 changed",
					 aifab_ecmp_hash_fn_name(fn),
					 aifab_ecmp_field_name(bit), changed);
		}
	}
}

/* ---- distribution ------------------------------------------------------- */

static void
check_spread(const uint32_t *h, const struct aifab_ecmp_group *g)
{
	unsigned long cnt[AIFAB_ECMP_MAX_MEMBERS] = { 0 };
	unsigned int owned[AIFAB_ECMP_MAX_MEMBERS], n = g->n_members;
	unsigned int i, s, lo = g->n_buckets / n;
	double p, chi2 = 0.0, e;

	if (g->resilient) {
		bucket_counts(g, owned);
		for (s = 0; s < n; s++)
			assert_true(owned[s] == lo || owned[s] == lo + 1);
	}
	for (i = 0; i < N_FLOWS; i++) {
		s = aifab_ecmp_select(g, h[i]);
		assert_true(s < n);
		cnt[s]++;
	}
	for (s = 0; s < n; s++) {
		p = g->resilient ? (double)owned[s] / g->n_buckets : 1.0 / n;
		assert_binomial(cnt[s], N_FLOWS, p);
		e = p * N_FLOWS;
		chi2 += ((double)cnt[s] - e) * ((double)cnt[s] - e) / e;
	}
	if (chi2 >= chi2_q9999(n - 1))
		fail_msg("chi2 %.2f over %u members", chi2, n);
}

static void
test_distribution(void **state)
{
	static const unsigned int sizes[] = { 2, 3, 4, 8 };
	struct aifab_ecmp_group g;
	struct aifab_ecmp_cfg c;
	unsigned int fn, k, res;
	uint32_t *h;

	(void)state;
	for (fn = 0; fn < AIFAB_ECMP_HASH_MAX; fn++) {
		cfg_make(&c, fn, 0x5EED, AIFAB_ECMP_F_ALL);
		h = flow_hashes(&c, 100 + fn);
		for (k = 0; k < RTE_DIM(sizes); k++)
			for (res = 0; res < 2; res++) {
				assert_int_equal(aifab_ecmp_group_init(&g, ids,
					sizes[k], 256, res), 0);
				check_spread(h, &g);
			}
		free(h);
	}
}

/* ---- resilient groups --------------------------------------------------- */

static void
select_all(const uint32_t *h, const struct aifab_ecmp_group *g, uint8_t *out)
{
	unsigned int i;

	for (i = 0; i < N_FLOWS; i++)
		out[i] = (uint8_t)aifab_ecmp_select(g, h[i]);
}

/* Remove slot 1 of 4 (256 buckets), then bring it back. */
static void
resilient_cycle(const uint32_t *h, uint8_t *before, uint8_t *after)
{
	unsigned int own0[AIFAB_ECMP_MAX_MEMBERS], own1[AIFAB_ECMP_MAX_MEMBERS];
	unsigned long recv[AIFAB_ECMP_MAX_MEMBERS] = { 0 }, moved = 0;
	struct aifab_ecmp_group g;
	unsigned int i, s;

	assert_int_equal(aifab_ecmp_group_init(&g, ids, 4, 256, true), 0);
	select_all(h, &g, before);
	bucket_counts(&g, own0);
	/* Slot 1 owns 256 / 4 = 64 buckets: exactly those move. */
	assert_int_equal(aifab_ecmp_member_set_active(&g, 1, false), 64);
	assert_false(aifab_ecmp_member_active(&g, 1));
	select_all(h, &g, after);
	bucket_counts(&g, own1);
	assert_int_equal(own1[1], 0);
	/* 64 spread over 3: 22, 21, 21 in some order; owners 85 or 86. */
	for (s = 0; s < 4; s++) {
		if (s == 1)
			continue;
		assert_true(own1[s] - own0[s] == 21 || own1[s] - own0[s] == 22);
		assert_true(own1[s] == 85 || own1[s] == 86);
	}
	for (i = 0; i < N_FLOWS; i++) {
		if (before[i] != 1) {
			assert_int_equal(after[i], before[i]);
			continue;
		}
		assert_true(after[i] != 1 && after[i] < 4);
		recv[after[i]]++;
		moved++;
	}
	assert_binomial(moved, N_FLOWS, 0.25);
	for (s = 0; s < 4; s++)
		if (s != 1)
			assert_binomial(recv[s], moved,
					(own1[s] - own0[s]) / 64.0);

	/* Back up: takes floor(256 / 4) = 64 buckets, only from others. */
	memcpy(before, after, N_FLOWS);
	assert_int_equal(aifab_ecmp_member_set_active(&g, 1, true), 64);
	select_all(h, &g, after);
	bucket_counts(&g, own1);
	for (s = 0; s < 4; s++)
		assert_int_equal(own1[s], 64);
	for (moved = 0, i = 0; i < N_FLOWS; i++) {
		if (after[i] != before[i]) {
			assert_int_equal(after[i], 1);
			moved++;
		}
	}
	assert_binomial(moved, N_FLOWS, 0.25);
}

static void
test_resilient_remove_readd(void **state)
{
	uint8_t *before = malloc(N_FLOWS), *after = malloc(N_FLOWS);
	struct aifab_ecmp_cfg c;
	unsigned int fn;
	uint32_t *h;

	(void)state;
	assert_non_null(before);
	assert_non_null(after);
	for (fn = 0; fn < AIFAB_ECMP_HASH_MAX; fn++) {
		cfg_make(&c, fn, 7, AIFAB_ECMP_F_ALL);
		h = flow_hashes(&c, 200 + fn);
		resilient_cycle(h, before, after);
		free(h);
	}
	free(before);
	free(after);
}

/* Odd sizes, all down, back up; counts against floor / ceil by hand. */
static void
test_resilient_edges(void **state)
{
	unsigned int own[AIFAB_ECMP_MAX_MEMBERS];
	struct aifab_ecmp_group g;

	(void)state;
	/* 3 members, 16 buckets: 6, 5, 5 (bucket b on b mod 3). */
	assert_int_equal(aifab_ecmp_group_init(&g, ids, 3, 16, true), 0);
	bucket_counts(&g, own);
	assert_int_equal(own[0], 6);
	assert_int_equal(own[1], 5);
	assert_int_equal(own[2], 5);
	assert_int_equal(aifab_ecmp_member_set_active(&g, 1, false), 5);
	/* Again: already down, nothing moves. */
	assert_int_equal(aifab_ecmp_member_set_active(&g, 1, false), 0);
	bucket_counts(&g, own);
	assert_int_equal(own[0], 8);
	assert_int_equal(own[2], 8);
	assert_int_equal(aifab_ecmp_member_set_active(&g, 0, false), 8);
	assert_int_equal(aifab_ecmp_member_set_active(&g, 2, false), 16);
	assert_int_equal(aifab_ecmp_select(&g, 5), AIFAB_ECMP_NONE);
	/* First back takes everything, the next half. */
	assert_int_equal(aifab_ecmp_member_set_active(&g, 2, true), 16);
	assert_int_equal(aifab_ecmp_select(&g, 5), 2);
	assert_int_equal(aifab_ecmp_member_set_active(&g, 0, true), 8);
	assert_int_equal(aifab_ecmp_member_set_active(&g, 1, true), 5);
	bucket_counts(&g, own);
	assert_int_equal(own[0] + own[1] + own[2], 16);
	assert_true(own[1] == 5 && own[0] >= 5 && own[0] <= 6 &&
		    own[2] >= 5 && own[2] <= 6);
	assert_int_equal(aifab_ecmp_member_set_active(&g, 3, true), -EINVAL);
}

/* ---- plain groups ------------------------------------------------------- */

static void
test_plain_remaps_many(void **state)
{
	uint8_t *before = malloc(N_FLOWS), *after = malloc(N_FLOWS);
	struct aifab_ecmp_group g;
	struct aifab_ecmp_cfg c;
	unsigned long moved = 0;
	unsigned int i;
	uint32_t *h;

	(void)state;
	assert_non_null(before);
	assert_non_null(after);
	cfg_make(&c, AIFAB_ECMP_HASH_CRC32C, 3, AIFAB_ECMP_F_ALL);
	h = flow_hashes(&c, 300);
	assert_int_equal(aifab_ecmp_group_init(&g, ids, 4, 256, false), 0);
	select_all(h, &g, before);
	/*
	 * 4 -> 3 by removing slot 3: a flow stays only if h mod 4 == h mod 3,
	 * i.e. h mod 12 in {0, 1, 2}: 1/4 stay. Over h = 0..255: 21 * 3 + 3
	 * (252, 253, 254) = 66 stay, 190 move.
	 */
	assert_int_equal(aifab_ecmp_member_set_active(&g, 3, false), 190);
	select_all(h, &g, after);
	for (i = 0; i < N_FLOWS; i++) {
		assert_true(after[i] < 3);
		moved += after[i] != before[i];
	}
	assert_binomial(moved, N_FLOWS, 0.75);
	/* All down: no member. */
	aifab_ecmp_member_set_active(&g, 0, false);
	aifab_ecmp_member_set_active(&g, 1, false);
	aifab_ecmp_member_set_active(&g, 2, false);
	assert_int_equal(aifab_ecmp_select(&g, 12345), AIFAB_ECMP_NONE);
	free(h);
	free(before);
	free(after);
}

/* ---- polarisation ------------------------------------------------------- */

/*
 * Tier 1 and tier 2 each pick among 2 members; count tier-2 picks of 0
 * among the flows tier 1 sent to member 0 (*m of them).
 */
static void
two_tiers(enum aifab_ecmp_hash_fn fn, uint32_t seed1, uint32_t seed2,
	  bool resilient, unsigned long *m, unsigned long *zero)
{
	struct aifab_ecmp_cfg c1, c2;
	struct aifab_ecmp_group g;
	struct aifab_ecmp_flow f;
	struct aifab_rng r;
	unsigned int i;

	cfg_make(&c1, fn, seed1, AIFAB_ECMP_F_ALL);
	cfg_make(&c2, fn, seed2, AIFAB_ECMP_F_ALL);
	assert_int_equal(aifab_ecmp_group_init(&g, ids, 2, 256, resilient), 0);
	aifab_rng_seed(&r, 400, fn);
	*m = *zero = 0;
	for (i = 0; i < N_FLOWS; i++) {
		rand_roce_flow(&r, &f, false);
		if (aifab_ecmp_select(&g, aifab_ecmp_hash(&c1, &f)) != 0)
			continue;
		(*m)++;
		*zero += aifab_ecmp_select(&g, aifab_ecmp_hash(&c2, &f)) == 0;
	}
}

static void
test_polarization(void **state)
{
	unsigned long m, zero;
	unsigned int fn, res;

	(void)state;
	for (fn = 0; fn < AIFAB_ECMP_HASH_MAX; fn++)
		for (res = 0; res < 2; res++) {
			/* Same function and seed: tier 2 repeats tier 1. */
			two_tiers(fn, 42, 42, res, &m, &zero);
			assert_binomial(m, N_FLOWS, 0.5);
			assert_int_equal(zero, m);
			/* Another seed at tier 2: about half each way. */
			two_tiers(fn, 42, 4242, res, &m, &zero);
			assert_binomial(zero, m, 0.5);
		}
}

/*
 * Why crc32c has a finalizer: CRC is affine, so raw rte_hash_crc under two
 * seeds differs by a constant XOR and bit 0 agrees (or disagrees) for every
 * flow: a per-switch seed alone would not break polarisation.
 */
static void
test_raw_crc_seed_is_xor(void **state)
{
	uint32_t w[AIFAB_ECMP_TUPLE_WORDS] __rte_aligned(8), d0 = 0, d;
	struct aifab_ecmp_flow f;
	struct aifab_rng r;
	unsigned int i, n;

	(void)state;
	aifab_rng_seed(&r, 14, 0);
	for (i = 0; i < 1000; i++) {
		rand_roce_flow(&r, &f, false);
		n = word_tuple(&f, AIFAB_ECMP_F_ALL, w);
		d = rte_hash_crc(w, 4 * n, 42) ^ rte_hash_crc(w, 4 * n, 4242);
		if (i == 0)
			d0 = d;
		assert_int_equal(d, d0);
	}
}

/* ---- flow keys from frames ---------------------------------------------- */

static const struct rte_ether_addr mac_a = { { 2, 0, 0, 0, 0, 1 } };
static const struct rte_ether_addr mac_b = { { 2, 0, 0, 0, 0, 2 } };

/* Eth + IPv4 + UDP(sport, 4791) + BTH(dqpn) + 16 bytes + ICRC space. */
static uint16_t
roce4_frame(uint8_t *buf, uint16_t sport, uint32_t dqpn)
{
	uint16_t off, udp_pay = AIFAB_BTH_LEN + 16 + AIFAB_ICRC_LEN;

	off = aifab_build_eth(buf, &mac_b, &mac_a, -1, 0, RTE_ETHER_TYPE_IPV4);
	off += aifab_build_ipv4(buf + off, rte_cpu_to_be_32(0x0A000001),
				rte_cpu_to_be_32(0x0A000102), IPPROTO_UDP, 0,
				64, (uint16_t)(8 + udp_pay), 1);
	off += aifab_build_udp(buf + off, sport, AIFAB_ROCEV2_UDP_PORT,
			       udp_pay);
	off += aifab_build_bth(buf + off, AIFAB_BTH_OP_WRITE_ONLY, false, 0,
			       dqpn, false, 5, false);
	memset(buf + off, 0, 16 + AIFAB_ICRC_LEN);
	return (uint16_t)(off + 16 + AIFAB_ICRC_LEN);
}

static void
parse_flow(const uint8_t *buf, uint16_t len, struct aifab_ecmp_flow *f)
{
	struct aifab_pkt_info pi;

	assert_int_equal(aifab_pkt_parse(buf, len, len, &pi, false),
			 AIFAB_PKT_ERR_OK);
	assert_int_equal(aifab_ecmp_flow_from_pkt(f, buf, len, &pi), 0);
}

static void
test_flow_from_pkt(void **state)
{
	static const uint8_t src4[4] = { 10, 0, 0, 1 }, dst4[4] = { 10, 0, 1, 2 };
	uint8_t buf[256], s6[16] = { 0xfd, [15] = 1 }, d6[16] = { 0xfd, [15] = 2 };
	struct aifab_ecmp_flow f;
	struct aifab_pkt_info pi;
	uint16_t len, off;

	(void)state;
	len = roce4_frame(buf, 0xC123, 0xABCDEF);
	parse_flow(buf, len, &f);
	assert_int_equal(f.family, 4);
	assert_memory_equal(f.src, src4, 4);
	assert_memory_equal(f.dst, dst4, 4);
	assert_int_equal(f.proto, IPPROTO_UDP);
	assert_int_equal(f.sport, 0xC123);
	assert_int_equal(f.dport, 4791);
	assert_int_equal(f.dqpn, 0xABCDEF);

	/* First fragment (MF set): ports and QP left out. */
	buf[14 + 6] |= 0x20;
	parse_flow(buf, len, &f);
	assert_int_equal(f.sport, 0);
	assert_int_equal(f.dport, 0);
	assert_int_equal(f.dqpn, 0);
	assert_int_equal(f.proto, IPPROTO_UDP);

	/* TCP: ports from the 4 bytes after the IP header. */
	off = aifab_build_eth(buf, &mac_b, &mac_a, -1, 0, RTE_ETHER_TYPE_IPV4);
	off += aifab_build_ipv4(buf + off, rte_cpu_to_be_32(0x0A000001),
				rte_cpu_to_be_32(0x0A000102), IPPROTO_TCP, 0,
				64, 20, 1);
	memset(buf + off, 0, 20);
	buf[off] = 0x12;
	buf[off + 1] = 0x34;
	buf[off + 2] = 0x00;
	buf[off + 3] = 0x50;
	parse_flow(buf, (uint16_t)(off + 20), &f);
	assert_int_equal(f.sport, 0x1234);
	assert_int_equal(f.dport, 80);
	assert_int_equal(f.dqpn, 0);

	/* IPv6 RoCE. */
	off = aifab_build_eth(buf, &mac_b, &mac_a, -1, 0, RTE_ETHER_TYPE_IPV6);
	off += aifab_build_ipv6(buf + off, s6, d6, IPPROTO_UDP, 0, 0, 64,
				8 + AIFAB_BTH_LEN + AIFAB_ICRC_LEN);
	off += aifab_build_udp(buf + off, 0xD00D, AIFAB_ROCEV2_UDP_PORT,
			       AIFAB_BTH_LEN + AIFAB_ICRC_LEN);
	off += aifab_build_bth(buf + off, AIFAB_BTH_OP_SEND_ONLY, false, 0,
			       0x000123, false, 1, false);
	memset(buf + off, 0, AIFAB_ICRC_LEN);
	parse_flow(buf, (uint16_t)(off + AIFAB_ICRC_LEN), &f);
	assert_int_equal(f.family, 6);
	assert_memory_equal(f.src, s6, 16);
	assert_memory_equal(f.dst, d6, 16);
	assert_int_equal(f.sport, 0xD00D);
	assert_int_equal(f.dqpn, 0x123);

	/* Not IP. */
	off = aifab_build_eth(buf, &mac_b, &mac_a, -1, 0, RTE_ETHER_TYPE_ARP);
	memset(buf + off, 0, 28);
	assert_int_equal(aifab_pkt_parse(buf, off + 28, off + 28, &pi, false),
			 AIFAB_PKT_ERR_OK);
	assert_int_equal(aifab_ecmp_flow_from_pkt(&f, buf, off + 28, &pi),
			 -EINVAL);
}

/*
 * aifab_ecmp_hash_pkts(): a burst hashed in one call gives each frame the
 * hash of flow_from_pkt() + hash(), and ok 0 where there is no flow.
 */
static void
test_hash_pkts(void **state)
{
	static const uint32_t sport[4] = { 0xC000, 0xC001, 0, 0xD123 };
	uint8_t buf[4][256];
	const uint8_t *bp[4];
	const struct aifab_pkt_info *pp[4];
	struct aifab_pkt_info pi[4];
	struct aifab_ecmp_flow f;
	struct aifab_ecmp_cfg c;
	uint32_t avail[4], hash[4] = { 0 };
	uint8_t ok[4];
	uint16_t i, off;

	(void)state;
	cfg_make(&c, AIFAB_ECMP_HASH_CRC32C, 7, AIFAB_ECMP_F_ALL);
	for (i = 0; i < 4; i++) {
		if (i == 2) { /* not IP: no flow */
			off = aifab_build_eth(buf[i], &mac_b, &mac_a, -1, 0,
					      RTE_ETHER_TYPE_ARP);
			memset(buf[i] + off, 0, 28);
			avail[i] = off + 28u;
		} else {
			avail[i] = roce4_frame(buf[i], (uint16_t)sport[i],
					       0x100u + i);
		}
		assert_int_equal(aifab_pkt_parse(buf[i], avail[i], avail[i],
						 &pi[i], false),
				 AIFAB_PKT_ERR_OK);
		bp[i] = buf[i];
		pp[i] = &pi[i];
	}
	aifab_ecmp_hash_pkts(&c, bp, avail, pp, 4, hash, ok);
	for (i = 0; i < 4; i++) {
		if (i == 2) {
			assert_int_equal(ok[i], 0);
			continue;
		}
		assert_int_equal(ok[i], 1);
		parse_flow(buf[i], (uint16_t)avail[i], &f);
		assert_int_equal(hash[i], aifab_ecmp_hash(&c, &f));
	}
	assert_int_not_equal(hash[0], hash[1]);
}

/* ---- small helpers and validation --------------------------------------- */

static void
test_imbalance(void **state)
{
	static const uint64_t a[] = { 100, 200, 300 }, b[] = { 0, 0, 0 },
		c[] = { 5 }, d[] = { 10, 10, 10, 10 }, e[] = { 0, 0, 0, 8 };

	(void)state;
	/* mean 200, max 300 */
	assert_float_equal(aifab_ecmp_imbalance(a, 3), 1.5, 1e-6);
	assert_float_equal(aifab_ecmp_imbalance(b, 3), 0.0, 0.0);
	assert_float_equal(aifab_ecmp_imbalance(c, 1), 1.0, 1e-6);
	assert_float_equal(aifab_ecmp_imbalance(d, 4), 1.0, 1e-6);
	/* all on one of 4: mean 2, max 8 */
	assert_float_equal(aifab_ecmp_imbalance(e, 4), 4.0, 1e-6);
	assert_float_equal(aifab_ecmp_imbalance(a, 0), 0.0, 0.0);
}

static void
test_names(void **state)
{
	uint32_t fields = 0;

	(void)state;
	assert_string_equal(aifab_ecmp_hash_fn_name(AIFAB_ECMP_HASH_CRC32C),
			    "crc32c");
	assert_string_equal(aifab_ecmp_hash_fn_name(AIFAB_ECMP_HASH_TOEPLITZ),
			    "toeplitz");
	assert_string_equal(aifab_ecmp_hash_fn_name(AIFAB_ECMP_HASH_JHASH),
			    "jhash");
	assert_null(aifab_ecmp_hash_fn_name(AIFAB_ECMP_HASH_MAX));
	assert_int_equal(aifab_ecmp_hash_fn_parse("toeplitz"),
			 AIFAB_ECMP_HASH_TOEPLITZ);
	assert_int_equal(aifab_ecmp_hash_fn_parse("crc16"), -EINVAL);
	assert_int_equal(aifab_ecmp_hash_fn_parse(NULL), -EINVAL);
	assert_string_equal(aifab_ecmp_field_name(AIFAB_ECMP_F_DQPN), "dqpn");
	assert_null(aifab_ecmp_field_name(AIFAB_ECMP_F_SIP | AIFAB_ECMP_F_DIP));

	assert_int_equal(aifab_ecmp_fields_parse("sip,dip+sport , dqpn",
						 &fields), 0);
	assert_int_equal(fields, AIFAB_ECMP_F_SIP | AIFAB_ECMP_F_DIP |
				 AIFAB_ECMP_F_SPORT | AIFAB_ECMP_F_DQPN);
	assert_int_equal(aifab_ecmp_fields_parse(
		"sip,dip,proto,sport,dport,dqpn", &fields), 0);
	assert_int_equal(fields, AIFAB_ECMP_F_ALL);
	fields = 7;
	assert_int_equal(aifab_ecmp_fields_parse("", &fields), -EINVAL);
	assert_int_equal(aifab_ecmp_fields_parse(" , ", &fields), -EINVAL);
	assert_int_equal(aifab_ecmp_fields_parse("sip,sipx", &fields), -EINVAL);
	assert_int_equal(aifab_ecmp_fields_parse("si", &fields), -EINVAL);
	assert_int_equal(fields, 7);
}

static void
test_bad_params(void **state)
{
	struct aifab_ecmp_params p = {
		.fn = AIFAB_ECMP_HASH_TOEPLITZ, .fields = AIFAB_ECMP_F_5TUPLE,
	};
	struct aifab_ecmp_group g;
	struct aifab_ecmp_cfg c;

	(void)state;
	assert_int_equal(aifab_ecmp_config(&c, &p), 0);
	p.fields = 0;
	assert_int_equal(aifab_ecmp_config(&c, &p), -EINVAL);
	p.fields = AIFAB_ECMP_F_ALL + 1;
	assert_int_equal(aifab_ecmp_config(&c, &p), -EINVAL);
	p.fields = AIFAB_ECMP_F_SIP;
	p.fn = AIFAB_ECMP_HASH_MAX;
	assert_int_equal(aifab_ecmp_config(&c, &p), -EINVAL);
	p.fn = AIFAB_ECMP_HASH_TOEPLITZ;
	p.rss_key_len = 36;
	assert_int_equal(aifab_ecmp_config(&c, &p), -EINVAL);
	p.rss_key_len = 42;
	assert_int_equal(aifab_ecmp_config(&c, &p), -EINVAL);
	p.rss_key_len = 56;
	assert_int_equal(aifab_ecmp_config(&c, &p), -EINVAL);
	p.rss_key_len = 40;
	assert_int_equal(aifab_ecmp_config(&c, &p), 0);
	/* 10 input words need 11 key words. */
	p.fields = AIFAB_ECMP_F_ALL;
	assert_int_equal(aifab_ecmp_config(&c, &p), -EINVAL);
	p.rss_key_len = 44;
	assert_int_equal(aifab_ecmp_config(&c, &p), 0);

	assert_int_equal(aifab_ecmp_group_init(&g, ids, 0, 0, true), -EINVAL);
	assert_int_equal(aifab_ecmp_group_init(&g, ids, 17, 0, true), -EINVAL);
	assert_int_equal(aifab_ecmp_group_init(&g, ids, 2, 100, true), -EINVAL);
	assert_int_equal(aifab_ecmp_group_init(&g, ids, 2, 2048, true),
			 -EINVAL);
	assert_int_equal(aifab_ecmp_group_init(&g, ids, 8, 4, true), -EINVAL);
	assert_int_equal(aifab_ecmp_group_init(&g, ids, 3, 0, true), 0);
	assert_int_equal(g.n_buckets, AIFAB_ECMP_DEFAULT_BUCKETS);
	assert_int_equal(aifab_ecmp_group_find(&g, 102), 2);
	assert_int_equal(aifab_ecmp_group_find(&g, 7), -ENOENT);
	assert_int_equal(aifab_ecmp_member(&g, 1), 101);
	assert_false(aifab_ecmp_member_active(&g, 3));
}

/* ---- link events: members by port ---------------------------------------- */

/*
 * Ids 20..24 (slots 0..4) on ports 2, 3, 2, 5, 6: port 2 carries two
 * slots (a weight). port_of is indexed by id; id 24 is past n_ids, so it
 * is on no port. The bucket table is read through aifab_ecmp_select()
 * only.
 */
static void
test_port_events(void **state)
{
	static const uint16_t mem[5] = { 20, 21, 22, 23, 24 };
	uint16_t port_of[24] = { 0 };
	uint8_t init[256], mid[256], end[256];
	struct aifab_ecmp_group g;
	unsigned int b, n_on_port = 0;
	uint32_t slots;
	int moved;

	(void)state;
	port_of[20] = 2;
	port_of[21] = 3;
	port_of[22] = 2;
	port_of[23] = 5;
	assert_int_equal(aifab_ecmp_group_init(&g, mem, 5, 256, true), 0);
	for (b = 0; b < 256; b++) {
		init[b] = (uint8_t)aifab_ecmp_select(&g, b);
		n_on_port += init[b] == 0 || init[b] == 2;
	}
	/* A port no member is on, and id 24 (past n_ids): nothing moves. */
	slots = 0;
	assert_int_equal(aifab_ecmp_group_port_set(&g, port_of, 24, 7, false,
						   &slots), 0);
	assert_int_equal(slots, 0);
	assert_int_equal(aifab_ecmp_group_port_set(&g, port_of, 24, 0, false,
						   &slots), 0);
	assert_true(aifab_ecmp_member_active(&g, 4));

	/* Port 2 down: slots 0 and 2 leave; no bucket of 1, 3, 4 moves, each
	 * of theirs goes to 1, 3 or 4. */
	moved = aifab_ecmp_group_port_set(&g, port_of, 24, 2, false, &slots);
	assert_int_equal(slots, (1u << 0) | (1u << 2));
	assert_false(aifab_ecmp_member_active(&g, 0));
	assert_false(aifab_ecmp_member_active(&g, 2));
	/* At least each of their buckets once (some of slot 0's go to
	 * slot 2 first, then move again). */
	assert_true(moved >= (int)n_on_port);
	for (b = 0; b < 256; b++) {
		mid[b] = (uint8_t)aifab_ecmp_select(&g, b);
		if (init[b] != 0 && init[b] != 2)
			assert_int_equal(mid[b], init[b]);
		else
			assert_true(mid[b] == 1 || mid[b] == 3 || mid[b] == 4);
	}
	/* Again down: already so. */
	slots = 0;
	assert_int_equal(aifab_ecmp_group_port_set(&g, port_of, 24, 2, false,
						   &slots), 0);
	assert_int_equal(slots, 0);

	/* Back up: every bucket returns home, so each flow is where it was
	 * before the link went down (its own and everybody else's). */
	moved = aifab_ecmp_group_port_set(&g, port_of, 24, 2, true, &slots);
	assert_int_equal(slots, (1u << 0) | (1u << 2));
	/* Slot 0 first (4 active: 64 buckets, its 52 home ones and 12 of
	 * slot 2's), then slot 2 makes the group whole: its 51 home. */
	assert_int_equal(moved, 52 + 12 + 51);
	assert_int_equal(n_on_port, 52 + 51);
	for (b = 0; b < 256; b++) {
		end[b] = (uint8_t)aifab_ecmp_select(&g, b);
		assert_int_equal(end[b], init[b]);
	}

	/* Every port down. */
	aifab_ecmp_group_port_set(&g, port_of, 24, 2, false, NULL);
	aifab_ecmp_group_port_set(&g, port_of, 24, 3, false, NULL);
	aifab_ecmp_group_port_set(&g, port_of, 24, 5, false, NULL);
	/* id 24 is on no port: it alone is left, with every bucket. */
	for (b = 0; b < 256; b++)
		assert_int_equal(aifab_ecmp_select(&g, b), 4);
}

/* Plain group: a port down re-hashes over the live members, in slot
 * order: hash mod 2 picks slot 1 or 3 (by hand), back up: mod 4 again. */
static void
test_port_events_plain(void **state)
{
	static const uint16_t mem[4] = { 0, 1, 2, 3 };
	static const uint16_t port_of[4] = { 2, 3, 2, 5 };
	struct aifab_ecmp_group g;
	uint32_t h, slots = 0;

	(void)state;
	assert_int_equal(aifab_ecmp_group_init(&g, mem, 4, 0, false), 0);
	assert_true(aifab_ecmp_group_port_set(&g, port_of, 4, 2, false,
					      &slots) > 0);
	assert_int_equal(slots, 0x5u);
	for (h = 0; h < 1000; h++)
		assert_int_equal(aifab_ecmp_select(&g, h), h % 2 ? 3 : 1);
	aifab_ecmp_group_port_set(&g, port_of, 4, 3, false, NULL);
	aifab_ecmp_group_port_set(&g, port_of, 4, 5, false, NULL);
	assert_int_equal(aifab_ecmp_select(&g, 9), AIFAB_ECMP_NONE);
	aifab_ecmp_group_port_set(&g, port_of, 4, 3, true, NULL);
	aifab_ecmp_group_port_set(&g, port_of, 4, 5, true, NULL);
	aifab_ecmp_group_port_set(&g, port_of, 4, 2, true, NULL);
	for (h = 0; h < 1000; h++)
		assert_int_equal(aifab_ecmp_select(&g, h), h % 4);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_toeplitz_ms_vectors),
		cmocka_unit_test(test_toeplitz_vs_naive),
		cmocka_unit_test(test_crc32c_jhash_layout),
		cmocka_unit_test(test_hash4_crc32c_inline),
		cmocka_unit_test(test_field_selection),
		cmocka_unit_test(test_distribution),
		cmocka_unit_test(test_resilient_remove_readd),
		cmocka_unit_test(test_resilient_edges),
		cmocka_unit_test(test_plain_remaps_many),
		cmocka_unit_test(test_port_events),
		cmocka_unit_test(test_port_events_plain),
		cmocka_unit_test(test_polarization),
		cmocka_unit_test(test_raw_crc_seed_is_xor),
		cmocka_unit_test(test_flow_from_pkt),
		cmocka_unit_test(test_hash_pkts),
		cmocka_unit_test(test_imbalance),
		cmocka_unit_test(test_names),
		cmocka_unit_test(test_bad_params),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
