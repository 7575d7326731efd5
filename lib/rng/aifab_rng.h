/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * Seeded pseudo-random numbers for every random decision (ECN marking
 * draws, ECMP seeds, generator jitter): xoshiro256** seeded through
 * splitmix64, per Blackman & Vigna. State is the caller's: each lcore keeps
 * its own, derived from the profile seed, so a run with the same seed and
 * input repeats exactly. Not for cryptography.
 */
#ifndef AIFAB_RNG_H
#define AIFAB_RNG_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

struct aifab_rng {
	uint64_t s[4];
};

static inline uint64_t
aifab_splitmix64(uint64_t *x)
{
	uint64_t z = (*x += 0x9E3779B97F4A7C15ull);

	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
	z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
	return z ^ (z >> 31);
}

/**
 * Seed @p r from @p seed and a @p stream number (e.g. lcore or port index),
 * so independent users of one profile seed draw independent sequences.
 */
static inline void
aifab_rng_seed(struct aifab_rng *r, uint64_t seed, uint64_t stream)
{
	uint64_t x = seed ^ (stream * 0xD1B54A32D192ED03ull);
	int i;

	for (i = 0; i < 4; i++)
		r->s[i] = aifab_splitmix64(&x);
}

static inline uint64_t
aifab_rng_rotl(uint64_t x, int k)
{
	return (x << k) | (x >> (64 - k));
}

/** Next 64 random bits. */
static inline uint64_t
aifab_rng_u64(struct aifab_rng *r)
{
	uint64_t *s = r->s;
	uint64_t res = aifab_rng_rotl(s[1] * 5, 7) * 9;
	uint64_t t = s[1] << 17;

	s[2] ^= s[0];
	s[3] ^= s[1];
	s[1] ^= s[2];
	s[0] ^= s[3];
	s[2] ^= t;
	s[3] = aifab_rng_rotl(s[3], 45);
	return res;
}

/** Next 32 random bits (the high half, the better one). */
static inline uint32_t
aifab_rng_u32(struct aifab_rng *r)
{
	return (uint32_t)(aifab_rng_u64(r) >> 32);
}

/** Uniform in [0, n) for n >= 1 (Lemire's multiply; bias < n / 2^32). */
static inline uint32_t
aifab_rng_below(struct aifab_rng *r, uint32_t n)
{
	return (uint32_t)(((uint64_t)aifab_rng_u32(r) * n) >> 32);
}

#ifdef __cplusplus
}
#endif

#endif /* AIFAB_RNG_H */
