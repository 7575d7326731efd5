/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lib/collective: schedules checked against PROTOCOLS.md's formulas, hand
 * computed chunk sizes, and a naive simulation written here that executes
 * every rank's sends round by round on per-byte "whose data is in here"
 * masks: an AllReduce schedule is right only if every rank ends up holding
 * every byte reduced over all ranks, and it may only send bytes it holds.
 * No EAL needed.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <rte_common.h>
#include <rte_errno.h>

#include "aifab_collective.h"

static struct aifab_coll_plan *
mk(enum aifab_coll_type t, uint32_t n, uint64_t s, uint32_t c)
{
	struct aifab_coll_params p = {
		.type = t, .n_ranks = n, .size = s, .n_channels = c,
	};
	struct aifab_coll_plan *pl = aifab_coll_plan_create(&p);

	assert_non_null(pl);
	return pl;
}

static uint64_t
total_bytes(const struct aifab_coll_plan *pl, uint32_t n)
{
	uint64_t sum = 0;
	uint32_t r;

	for (r = 0; r < n; r++)
		sum += aifab_coll_plan_rank_bytes(pl, r);
	return sum;
}

/* ---- naive simulation ------------------------------------------------------ */

#define SIM_MAX_RANKS 8
#define SIM_MAX_BYTES 4096

/* mask[r][b]: set of ranks whose contribution to byte b rank r holds. */
static uint8_t sim_mask[SIM_MAX_RANKS][SIM_MAX_BYTES];
static uint8_t sim_next[SIM_MAX_RANKS][SIM_MAX_BYTES];

/*
 * Run the plan in synchronous rounds (every send of step k uses the state
 * after step k-1). Reduce steps OR the masks; gathers do the same, which is
 * a copy when the data is complete. A rank may only send bytes it holds
 * something of.
 */
static void
simulate(const struct aifab_coll_plan *pl, uint32_t n, uint64_t size,
	 bool own_chunk_only)
{
	uint32_t r, k, i, cnt, steps = aifab_coll_plan_n_steps(pl);
	uint64_t b;

	assert_true(n <= SIM_MAX_RANKS && size <= SIM_MAX_BYTES);
	memset(sim_mask, 0, sizeof(sim_mask));
	for (r = 0; r < n; r++)
		for (b = 0; b < size; b++)
			sim_mask[r][b] = own_chunk_only ? 0 : (uint8_t)(1u << r);
	if (own_chunk_only) {
		/* AllGather: rank r starts with the chunk it sends first. */
		const struct aifab_coll_step *s;

		for (r = 0; r < n; r++) {
			s = aifab_coll_plan_rank(pl, r, &cnt);
			for (i = 0; i < cnt; i++)
				if (s[i].step == 0)
					memset(&sim_mask[r][s[i].offset],
					       1u << r, s[i].bytes);
		}
	}
	for (k = 0; k < steps; k++) {
		memcpy(sim_next, sim_mask, sizeof(sim_mask));
		for (r = 0; r < n; r++) {
			const struct aifab_coll_step *s =
				aifab_coll_plan_rank(pl, r, &cnt);

			for (i = 0; i < cnt; i++) {
				if (s[i].step != k)
					continue;
				assert_true(s[i].offset + s[i].bytes <= size);
				for (b = s[i].offset;
				     b < s[i].offset + s[i].bytes; b++) {
					assert_int_not_equal(sim_mask[r][b], 0);
					sim_next[s[i].peer][b] |= sim_mask[r][b];
				}
			}
		}
		memcpy(sim_mask, sim_next, sizeof(sim_mask));
	}
}

static void
assert_all_reduced(uint32_t n, uint64_t size)
{
	uint8_t all = (uint8_t)((1u << n) - 1);
	uint32_t r;
	uint64_t b;

	for (r = 0; r < n; r++)
		for (b = 0; b < size; b++)
			if (sim_mask[r][b] != all)
				fail_msg("rank %u byte %lu holds mask 0x%x, want 0x%x",
					 r, (unsigned long)b, sim_mask[r][b], all);
}

/* ---- tests ---------------------------------------------------------------- */

/* Sizes around the N x C divisibility boundaries, and tiny ones. */
static const uint64_t odd_sizes[] = { 1, 3, 7, 10, 64, 97, 1000, 1023, 4093 };

static void
test_ring_allreduce_steps_and_bytes(void **state)
{
	uint32_t n, c, r, cnt, i;

	(void)state;
	for (n = 2; n <= 8; n++)
		for (c = 1; c <= 3; c++) {
			/* Divisible: every rank sends exactly 2(N-1)/N x S. */
			uint64_t s = (uint64_t)n * c * 1000;
			struct aifab_coll_plan *pl =
				mk(AIFAB_COLL_ALLREDUCE_RING, n, s, c);
			const struct aifab_coll_step *st;

			assert_int_equal(aifab_coll_plan_n_steps(pl), 2 * (n - 1));
			for (r = 0; r < n; r++) {
				st = aifab_coll_plan_rank(pl, r, &cnt);
				assert_int_equal(cnt, 2 * (n - 1) * c);
				assert_int_equal(aifab_coll_plan_rank_bytes(pl, r),
						 2 * (n - 1) * s / n);
				for (i = 0; i < cnt; i++) {
					assert_int_equal(st[i].peer, (r + 1) % n);
					assert_int_equal(st[i].recv_from,
							 (r + n - 1) % n);
					assert_int_equal(st[i].bytes, s / (n * c));
					/* Ordered by step, then channel. */
					assert_int_equal(st[i].step, i / c);
					assert_int_equal(st[i].channel, i % c);
				}
			}
			aifab_coll_plan_free(pl);
		}
}

static void
test_ring_allreduce_remainders(void **state)
{
	/* S=10, N=4, C=1: chunks 3,3,2,2. Rank r sends every chunk twice
	 * except chunk r+1 (RS) and r+2 (AG): 20-3-2, 20-2-2, 20-2-3, 20-3-3.
	 */
	static const uint64_t want[4] = { 15, 16, 15, 14 };
	struct aifab_coll_plan *pl = mk(AIFAB_COLL_ALLREDUCE_RING, 4, 10, 1);
	uint32_t r, n, c, i;

	(void)state;
	for (r = 0; r < 4; r++)
		assert_int_equal(aifab_coll_plan_rank_bytes(pl, r), want[r]);
	aifab_coll_plan_free(pl);
	/* Any S: the whole collective moves exactly 2(N-1) x S bytes, and the
	 * schedule really reduces every byte everywhere. */
	for (n = 2; n <= 8; n++)
		for (c = 1; c <= 3; c++)
			for (i = 0; i < RTE_DIM(odd_sizes); i++) {
				uint64_t s = odd_sizes[i];

				pl = mk(AIFAB_COLL_ALLREDUCE_RING, n, s, c);
				assert_int_equal(total_bytes(pl, n),
						 2 * (n - 1) * s);
				for (r = 0; r < n; r++) {
					uint64_t b = aifab_coll_plan_rank_bytes(pl, r);
					/* within one chunk per step and channel
					 * of the ideal share */
					assert_true(b * n + 2 * (n - 1) * c * n >=
						    2 * (n - 1) * s);
					assert_true(b * n <= 2 * (n - 1) * s +
						    2 * (n - 1) * c * n);
				}
				simulate(pl, n, s, false);
				assert_all_reduced(n, s);
				aifab_coll_plan_free(pl);
			}
}

/* Every dependency names a step whose data came from recv_from, and that
 * rank's entry of that step (same channel) really sends to us. */
static void
check_dependencies(const struct aifab_coll_plan *pl, uint32_t n)
{
	uint32_t r, i, cnt, cnt2, c;

	c = aifab_coll_plan_params(pl)->n_channels;
	for (r = 0; r < n; r++) {
		const struct aifab_coll_step *s = aifab_coll_plan_rank(pl, r, &cnt);

		for (i = 0; i < cnt; i++) {
			const struct aifab_coll_step *d, *src;

			if (s[i].depends_on == AIFAB_COLL_NO_DEP)
				continue;
			assert_true(s[i].depends_on >= 0 &&
				    (uint32_t)s[i].depends_on < s[i].step);
			d = &s[(uint32_t)s[i].depends_on * c + s[i].channel];
			src = aifab_coll_plan_rank(pl, d->recv_from, &cnt2);
			src = &src[(uint32_t)s[i].depends_on * c + s[i].channel];
			assert_int_equal(src->peer, r);
			assert_int_equal(src->step, (uint32_t)s[i].depends_on);
		}
	}
}

static void
test_dependency_order(void **state)
{
	static const enum aifab_coll_type types[] = {
		AIFAB_COLL_ALLREDUCE_RING, AIFAB_COLL_ALLREDUCE_HD,
		AIFAB_COLL_REDUCESCATTER_RING, AIFAB_COLL_ALLGATHER_RING,
	};
	uint32_t t, n, r, cnt, i;

	(void)state;
	for (t = 0; t < RTE_DIM(types); t++)
		for (n = 2; n <= 8; n *= 2) {
			struct aifab_coll_plan *pl = mk(types[t], n, 4096, 2);

			check_dependencies(pl, n);
			for (r = 0; r < n; r++) {
				const struct aifab_coll_step *s =
					aifab_coll_plan_rank(pl, r, &cnt);

				for (i = 0; i < cnt; i++)
					assert_int_equal(s[i].depends_on,
						s[i].step == 0 ? AIFAB_COLL_NO_DEP :
						(int32_t)s[i].step - 1);
			}
			aifab_coll_plan_free(pl);
		}
}

static void
test_reducescatter_allgather(void **state)
{
	uint32_t n, i, r;

	(void)state;
	for (n = 2; n <= 8; n++)
		for (i = 0; i < RTE_DIM(odd_sizes); i++) {
			uint64_t s = odd_sizes[i];
			struct aifab_coll_plan *rs =
				mk(AIFAB_COLL_REDUCESCATTER_RING, n, s, 2);
			struct aifab_coll_plan *ag =
				mk(AIFAB_COLL_ALLGATHER_RING, n, s, 2);
			uint8_t all = (uint8_t)((1u << n) - 1);
			uint64_t b;

			assert_int_equal(aifab_coll_plan_n_steps(rs), n - 1);
			assert_int_equal(total_bytes(rs, n), (n - 1) * s);
			assert_int_equal(total_bytes(ag, n), (n - 1) * s);
			/* After reduce-scatter each byte is fully reduced at
			 * exactly one rank. */
			simulate(rs, n, s, false);
			for (b = 0; b < s; b++) {
				uint32_t owners = 0;

				for (r = 0; r < n; r++)
					owners += sim_mask[r][b] == all;
				assert_int_equal(owners, 1);
			}
			/* All-gather: every byte starts at one rank (its
			 * chunk's owner) and ends at all ranks. */
			simulate(ag, n, s, true);
			for (b = 0; b < s; b++)
				for (r = 0; r < n; r++) {
					assert_int_not_equal(sim_mask[r][b], 0);
					assert_int_equal(sim_mask[r][b],
							 sim_mask[0][b]);
				}
			aifab_coll_plan_free(rs);
			aifab_coll_plan_free(ag);
		}
}

static void
test_alltoall(void **state)
{
	uint32_t n, r, k, cnt, c;

	(void)state;
	for (n = 2; n <= 8; n *= 2)
		for (c = 1; c <= 2; c++) {
			uint64_t s = (uint64_t)n * c * 512;
			struct aifab_coll_plan *pl = mk(AIFAB_COLL_ALLTOALL, n, s, c);
			uint8_t pairs[SIM_MAX_RANKS][SIM_MAX_RANKS] = { { 0 } };

			assert_int_equal(aifab_coll_plan_n_steps(pl), n - 1);
			for (r = 0; r < n; r++) {
				const struct aifab_coll_step *st =
					aifab_coll_plan_rank(pl, r, &cnt);

				assert_int_equal(aifab_coll_plan_rank_bytes(pl, r),
						 (n - 1) * s / n);
				for (k = 0; k < cnt; k++) {
					assert_int_equal(st[k].peer,
						(r + st[k].step + 1) % n);
					assert_int_equal(st[k].bytes, s / n / c);
					assert_int_equal(st[k].depends_on,
							 AIFAB_COLL_NO_DEP);
					pairs[r][st[k].peer]++;
				}
			}
			/* Every ordered pair once per channel, nobody to self. */
			for (r = 0; r < n; r++)
				for (k = 0; k < n; k++)
					assert_int_equal(pairs[r][k],
							 r == k ? 0 : c);
			aifab_coll_plan_free(pl);
		}
	/* Remainders: S=10, N=4: blocks 3,3,2,2; rank r sends S - block r. */
	{
		struct aifab_coll_plan *pl = mk(AIFAB_COLL_ALLTOALL, 4, 10, 1);
		static const uint64_t want[4] = { 7, 7, 8, 8 };

		for (r = 0; r < 4; r++)
			assert_int_equal(aifab_coll_plan_rank_bytes(pl, r),
					 want[r]);
		aifab_coll_plan_free(pl);
	}
}

static void
test_halving_doubling(void **state)
{
	uint32_t n, r, cnt, i, c, levels;
	struct aifab_coll_params bad = {
		.type = AIFAB_COLL_ALLREDUCE_HD, .n_ranks = 6, .size = 64,
		.n_channels = 1,
	};

	(void)state;
	for (n = 2, levels = 1; n <= 8; n *= 2, levels++)
		for (c = 1; c <= 2; c++) {
			uint64_t s = (uint64_t)n * c * 64;
			struct aifab_coll_plan *pl =
				mk(AIFAB_COLL_ALLREDUCE_HD, n, s, c);

			assert_int_equal(aifab_coll_plan_n_steps(pl), 2 * levels);
			for (r = 0; r < n; r++) {
				const struct aifab_coll_step *st =
					aifab_coll_plan_rank(pl, r, &cnt);

				assert_int_equal(aifab_coll_plan_rank_bytes(pl, r),
						 2 * (n - 1) * s / n);
				for (i = 0; i < cnt; i++) {
					uint32_t k = st[i].step;
					/* level: 0..L-1 then back down */
					uint32_t lvl = k < levels ? k :
						2 * levels - 1 - k;

					assert_int_equal(st[i].peer, r ^ (1u << lvl));
					/* S/2, S/4, ... per channel */
					assert_int_equal(st[i].bytes,
							 s / c >> (lvl + 1));
				}
			}
			simulate(pl, n, s, false);
			assert_all_reduced(n, s);
			aifab_coll_plan_free(pl);
		}
	/* Odd sizes still reduce everything and move 2(N-1) S in total. */
	for (i = 0; i < RTE_DIM(odd_sizes); i++) {
		struct aifab_coll_plan *pl =
			mk(AIFAB_COLL_ALLREDUCE_HD, 8, odd_sizes[i], 3);

		assert_int_equal(total_bytes(pl, 8), 2 * 7 * odd_sizes[i]);
		simulate(pl, 8, odd_sizes[i], false);
		assert_all_reduced(8, odd_sizes[i]);
		aifab_coll_plan_free(pl);
	}
	rte_errno = 0;
	assert_null(aifab_coll_plan_create(&bad));
	assert_int_equal(rte_errno, EINVAL);
}

static void
test_busbw_and_names(void **state)
{
	struct aifab_coll_params p = { .type = AIFAB_COLL_ALLREDUCE_RING,
				       .n_ranks = 1, .size = 1, .n_channels = 1 };
	enum aifab_coll_type t;

	(void)state;
	/* PROTOCOLS.md: 2(N-1)/N, (N-1)/N, 1. */
	assert_true(aifab_coll_busbw_factor(AIFAB_COLL_OP_ALLREDUCE, 8) == 1.75);
	assert_true(aifab_coll_busbw_factor(AIFAB_COLL_OP_ALLTOALL, 8) == 0.875);
	assert_true(aifab_coll_busbw_factor(AIFAB_COLL_OP_ALLGATHER, 4) == 0.75);
	assert_true(aifab_coll_busbw_factor(AIFAB_COLL_OP_REDUCESCATTER, 2) ==
		    0.5);
	assert_true(aifab_coll_busbw_factor(AIFAB_COLL_OP_BROADCAST, 8) == 1.0);
	assert_true(aifab_coll_busbw_factor(AIFAB_COLL_OP_REDUCE, 8) == 1.0);
	/* 1 GB in 10 ms = 100 GB/s. */
	assert_true(aifab_coll_algbw(1000000000ull, 0.01) == 1e11);
	assert_int_equal(aifab_coll_type_op(AIFAB_COLL_ALLREDUCE_HD),
			 AIFAB_COLL_OP_ALLREDUCE);
	assert_int_equal(aifab_coll_type_parse("alltoall", &t), 0);
	assert_int_equal(t, AIFAB_COLL_ALLTOALL);
	assert_int_equal(aifab_coll_type_parse("ring", &t), -EINVAL);
	assert_string_equal(aifab_coll_type_name(AIFAB_COLL_ALLREDUCE_RING),
			    "allreduce_ring");
	/* Bad params. */
	assert_null(aifab_coll_plan_create(&p));
	p.n_ranks = 4;
	p.n_channels = 0;
	assert_null(aifab_coll_plan_create(&p));
	assert_int_equal(rte_errno, EINVAL);
}

/* Distinct (peer, channel) pairs of one row: the generator numbers QPs
 * by it and needs it the same for every rank. */
static uint32_t
distinct_peers(const struct aifab_coll_step *s, uint32_t cnt, uint32_t n,
	       uint32_t c)
{
	uint8_t *seen = calloc((size_t)n * c, 1);
	uint32_t e, d = 0;

	assert_non_null(seen);
	for (e = 0; e < cnt; e++)
		if (!seen[s[e].peer * c + s[e].channel]++)
			d++;
	free(seen);
	return d;
}

/* One rank's row computed alone, and a plan of some ranks only, equal the
 * whole plan's rows; the ranks left out have none. */
static void
check_rows(enum aifab_coll_type t, uint32_t n, uint64_t size, uint32_t c)
{
	struct aifab_coll_params p = {
		.type = t, .n_ranks = n, .size = size, .n_channels = c,
	};
	struct aifab_coll_plan *all = mk(t, n, size, c), *some;
	uint32_t steps = aifab_coll_plan_n_steps(all), r, cnt, cnt2, d0 = 0;
	struct aifab_coll_step *row = calloc((size_t)steps * c, sizeof(*row));
	uint8_t *want = calloc(n, 1);

	assert_non_null(row);
	assert_non_null(want);
	assert_int_equal(aifab_coll_n_steps(&p), steps);
	for (r = 0; r < n; r++)
		want[r] = r % 3 == 1 || r == n - 1;
	some = aifab_coll_plan_create_for(&p, want);
	assert_non_null(some);
	for (r = 0; r < n; r++) {
		const struct aifab_coll_step *a = aifab_coll_plan_rank(all, r, &cnt);
		const struct aifab_coll_step *b =
			aifab_coll_plan_rank(some, r, &cnt2);

		assert_int_equal(cnt, steps * c);
		assert_int_equal(aifab_coll_rank_sched(&p, r, row), 0);
		assert_memory_equal(row, a, sizeof(*row) * cnt);
		if (!want[r]) {
			assert_null(b);
		} else {
			assert_int_equal(cnt2, cnt);
			assert_memory_equal(b, a, sizeof(*a) * cnt);
		}
		if (r == 0)
			d0 = distinct_peers(a, cnt, n, c);
		assert_int_equal(distinct_peers(a, cnt, n, c), d0);
	}
	assert_int_equal(aifab_coll_rank_sched(&p, n, row), -EINVAL);
	aifab_coll_plan_free(some);
	aifab_coll_plan_free(all);
	free(row);
	free(want);
}

static void
test_rank_rows(void **state)
{
	static const enum aifab_coll_type types[] = {
		AIFAB_COLL_ALLREDUCE_RING, AIFAB_COLL_REDUCESCATTER_RING,
		AIFAB_COLL_ALLGATHER_RING, AIFAB_COLL_ALLTOALL,
	};
	struct aifab_coll_params p = { .type = AIFAB_COLL_ALLREDUCE_RING,
				       .n_ranks = AIFAB_COLL_MAX_RANKS,
				       .size = 1u << 20, .n_channels = 1 };
	struct aifab_coll_step *row;
	uint32_t t, n, c;

	(void)state;
	for (t = 0; t < RTE_DIM(types); t++)
		for (n = 2; n <= 40; n++)
			for (c = 1; c <= 3; c += 2) {
				check_rows(types[t], n, 1000003, c);
				check_rows(types[t], n, 7, c);
			}
	for (n = 2; n <= 256; n *= 2)
		for (c = 1; c <= 3; c += 2) {
			check_rows(AIFAB_COLL_ALLREDUCE_HD, n, 1000003, c);
			check_rows(AIFAB_COLL_ALLREDUCE_HD, n, 5, c);
			check_rows(AIFAB_COLL_ALLREDUCE_RING, n, 4096, c);
		}
	/* The largest collective: one rank's row alone, no plan. */
	row = calloc(2 * (AIFAB_COLL_MAX_RANKS - 1), sizeof(*row));
	assert_non_null(row);
	assert_int_equal(AIFAB_COLL_MAX_RANKS, 16384);
	assert_int_equal(aifab_coll_n_steps(&p), 2 * (AIFAB_COLL_MAX_RANKS - 1));
	assert_int_equal(aifab_coll_rank_sched(&p, 16383, row), 0);
	assert_int_equal(row[0].peer, 0);
	assert_int_equal(row[0].recv_from, 16382);
	assert_int_equal(row[2 * 16383 - 1].step, 2 * 16383 - 1);
	p.n_ranks = AIFAB_COLL_MAX_RANKS + 1;
	assert_int_equal(aifab_coll_n_steps(&p), 0);
	assert_int_equal(aifab_coll_rank_sched(&p, 0, row), -EINVAL);
	free(row);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ring_allreduce_steps_and_bytes),
		cmocka_unit_test(test_ring_allreduce_remainders),
		cmocka_unit_test(test_dependency_order),
		cmocka_unit_test(test_reducescatter_allgather),
		cmocka_unit_test(test_alltoall),
		cmocka_unit_test(test_halving_doubling),
		cmocka_unit_test(test_busbw_and_names),
		cmocka_unit_test(test_rank_rows),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
