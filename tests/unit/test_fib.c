/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lib/fib: LPM onto next-hop groups and special targets. rte_fib needs EAL
 * memory, so a group fixture starts EAL with --no-huge. Lookups are checked
 * against a naive linear longest-prefix match written here.
 */
#include <errno.h>
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include <rte_eal.h>
#include <rte_errno.h>

#include "aifab_fib.h"
#include "unit_common.h"

static struct aifab_fib *
mk(const char *name)
{
	struct aifab_fib_params p = {
		.name = name, .socket_id = 0, .max_routes4 = 1024,
		.max_routes6 = 1024, .max_nh = 8, .max_groups = 16,
	};
	struct aifab_fib *f = aifab_fib_create(&p);

	assert_non_null(f);
	return f;
}

static const struct rte_ether_addr mac_a = { { 2, 0xbb, 0, 0, 0, 1 } };
static const struct rte_ether_addr mac_b = { { 2, 0xbb, 0, 0, 0, 2 } };

static uint32_t
lookup4(const struct aifab_fib *f, uint32_t ip)
{
	uint32_t t;

	aifab_fib_lookup4_bulk(f, &ip, &t, 1);
	return t;
}

static void
test_special_targets_v4(void **state)
{
	struct aifab_fib *f = mk("t_spec");
	uint16_t nh;
	int g;

	(void)state;
	nh = (uint16_t)aifab_fib_nh_add(f, 1, &mac_a);
	g = aifab_fib_group_add(f, &nh, 1);
	assert_int_equal(g, 0);
	assert_int_equal(aifab_fib_route4_add(f, 0x0A000100, 24,
					      AIFAB_FIB_UNRESOLVED), 0);
	assert_int_equal(aifab_fib_route4_add(f, 0x0A000101, 32,
					      AIFAB_FIB_LOCAL), 0);
	assert_int_equal(aifab_fib_route4_add(f, 0x0A000102, 32, 0), 0);

	assert_int_equal(lookup4(f, 0x0A000101), AIFAB_FIB_LOCAL);
	assert_int_equal(lookup4(f, 0x0A000102), 0);
	assert_int_equal(lookup4(f, 0x0A00014D), AIFAB_FIB_UNRESOLVED);
	/* Nothing covers 192.0.2.1 and there is no default route. */
	assert_int_equal(lookup4(f, 0xC0000201), AIFAB_FIB_MISS);
	aifab_fib_free(f);
}

static void
test_default_route_is_least_specific(void **state)
{
	struct aifab_fib *f = mk("t_def");
	uint16_t nh[2];
	int g_def, g_one;

	(void)state;
	nh[0] = (uint16_t)aifab_fib_nh_add(f, 2, &mac_a);
	nh[1] = (uint16_t)aifab_fib_nh_add(f, 3, &mac_b);
	g_def = aifab_fib_group_add(f, nh, 2);
	g_one = aifab_fib_group_add(f, &nh[1], 1);
	/* A user /1 must beat the default, whatever the order of adding. */
	assert_int_equal(aifab_fib_route4_add(f, 0x80000000, 1,
					      (uint32_t)g_one), 0);
	assert_int_equal(aifab_fib_route4_add(f, 0, 0, (uint32_t)g_def), 0);
	assert_int_equal(lookup4(f, 0xC0000201), (uint32_t)g_one);
	assert_int_equal(lookup4(f, 0x0A000001), (uint32_t)g_def);
	assert_int_equal(aifab_fib_group(f, (uint32_t)g_def)->n, 2);
	assert_int_equal(aifab_fib_nh(f, aifab_fib_group(f,
		(uint32_t)g_def)->nh[1])->port, 3);
	aifab_fib_free(f);
}

static void
test_ipv6(void **state)
{
	struct aifab_fib *f = mk("t_v6");
	uint8_t net[16] = { 0xfd, 0, 0, 0, 0, 0, 0, 1 };
	uint8_t own[16] = { 0xfd, 0, 0, 0, 0, 0, 0, 1, [15] = 1 };
	uint8_t q[3][16] = {
		{ 0xfd, 0, 0, 0, 0, 0, 0, 1, [15] = 1 },
		{ 0xfd, 0, 0, 0, 0, 0, 0, 1, [15] = 7 },
		{ 0x20, 0x01, 0x0d, 0xb8, [15] = 1 },
	};
	uint32_t t[3];
	uint16_t nh;
	int g;

	(void)state;
	nh = (uint16_t)aifab_fib_nh_add(f, 0, &mac_a);
	g = aifab_fib_group_add(f, &nh, 1);
	assert_int_equal(aifab_fib_route6_add(f, net, 64,
					      AIFAB_FIB_UNRESOLVED), 0);
	assert_int_equal(aifab_fib_route6_add(f, own, 128, AIFAB_FIB_LOCAL), 0);
	aifab_fib_lookup6_bulk(f, q, t, 3);
	assert_int_equal(t[0], AIFAB_FIB_LOCAL);
	assert_int_equal(t[1], AIFAB_FIB_UNRESOLVED);
	assert_int_equal(t[2], AIFAB_FIB_MISS);
	assert_int_equal(aifab_fib_route6_add(f, net, 0, (uint32_t)g), 0);
	aifab_fib_lookup6_bulk(f, q, t, 3);
	assert_int_equal(t[2], (uint32_t)g);
	aifab_fib_free(f);
}

static void
test_bad_arguments(void **state)
{
	struct aifab_fib *f = mk("t_bad");
	struct aifab_fib_params p = { .name = "x", .max_nh = 0, .max_groups = 1 };
	uint16_t nh = 0, many[AIFAB_FIB_MAX_MEMBERS + 1] = { 0 };
	unsigned int i;

	(void)state;
	assert_null(aifab_fib_create(&p));
	assert_int_equal(rte_errno, EINVAL);
	/* No next hop 0 yet. */
	assert_int_equal(aifab_fib_group_add(f, &nh, 1), -EINVAL);
	for (i = 0; i < 8; i++)
		assert_int_equal(aifab_fib_nh_add(f, 0, &mac_a), (int)i);
	assert_int_equal(aifab_fib_nh_add(f, 0, &mac_a), -ENOSPC);
	assert_int_equal(aifab_fib_group_add(f, &nh, 0), -EINVAL);
	assert_int_equal(aifab_fib_group_add(f, many, RTE_DIM(many)), -EINVAL);
	assert_int_equal(aifab_fib_route4_add(f, 0, 33, AIFAB_FIB_LOCAL),
			 -EINVAL);
	/* Group 5 does not exist. */
	assert_int_equal(aifab_fib_route4_add(f, 0x0A000000, 8, 5), -EINVAL);
	for (i = 0; i < 16; i++)
		assert_int_equal(aifab_fib_group_add(f, &nh, 1), (int)i);
	assert_int_equal(aifab_fib_group_add(f, &nh, 1), -ENOSPC);
	aifab_fib_free(f);
}

/* Naive reference: the longest matching prefix, by scanning them all. */
struct ref_route {
	uint32_t ip;
	uint8_t depth;
	uint32_t target;
};

static uint32_t
ref_lookup(const struct ref_route *r, unsigned int n, uint32_t ip)
{
	int best = -1;
	unsigned int i;

	for (i = 0; i < n; i++) {
		uint32_t mask = r[i].depth ? ~0u << (32 - r[i].depth) : 0;

		if ((ip & mask) == r[i].ip &&
		    (best < 0 || r[i].depth >= r[best].depth))
			best = (int)i;
	}
	return best < 0 ? AIFAB_FIB_MISS : r[best].target;
}

/* xorshift64, fixed seeds: the same routes and addresses every run */
static uint32_t
next32(uint64_t *x)
{
	*x ^= *x << 13;
	*x ^= *x >> 7;
	*x ^= *x << 17;
	return (uint32_t)*x;
}

/* Add (or replace) a route in both the FIB and the reference. */
static void
ref_add(struct aifab_fib *f, struct ref_route *r, unsigned int *n,
	uint32_t ip, uint8_t depth, uint32_t target)
{
	unsigned int k;

	for (k = 0; k < *n; k++)
		if (r[k].ip == ip && r[k].depth == depth)
			break;
	if (k == *n)
		(*n)++;
	r[k] = (struct ref_route){ ip, depth, target };
	assert_int_equal(aifab_fib_route4_add(f, ip, depth, target), 0);
}

/* @p rounds bulk lookups of 64 random addresses (few top bits, where the
 * routes are) against the reference. */
static void
check_vs_ref(struct aifab_fib *f, const struct ref_route *r, unsigned int n,
	     uint64_t *x, unsigned int rounds)
{
	uint32_t ips[64], got[64];
	unsigned int i, k;

	for (i = 0; i < rounds; i++) {
		for (k = 0; k < RTE_DIM(ips); k++)
			ips[k] = next32(x) & 0x0F0F0F0Fu;
		aifab_fib_lookup4_bulk(f, ips, got, RTE_DIM(ips));
		for (k = 0; k < RTE_DIM(ips); k++)
			assert_int_equal(got[k], ref_lookup(r, n, ips[k]));
	}
}

static void
test_random_vs_reference(void **state)
{
	struct aifab_fib *f = mk("t_rand");
	struct ref_route r[200];
	uint64_t x = 0x9E3779B97F4A7C15ull; /* xorshift, fixed seed */
	unsigned int i, n = 0;
	uint16_t nh;

	(void)state;
	nh = (uint16_t)aifab_fib_nh_add(f, 0, &mac_a);
	for (i = 0; i < 16; i++)
		aifab_fib_group_add(f, &nh, 1);
	for (i = 0; i < RTE_DIM(r); i++) {
		uint8_t depth = (uint8_t)(next32(&x) % 33);
		uint32_t mask = depth ? ~0u << (32 - depth) : 0;
		/* Few top bits so prefixes nest and overlap. */
		uint32_t ip = (next32(&x) & 0x0F0F0F0Fu) & mask;

		ref_add(f, r, &n, ip, depth, next32(&x) % 16);
	}
	check_vs_ref(f, r, n, &x, 200);
	aifab_fib_free(f);
}

/*
 * Next hops are 1, 2 or 4 bytes wide as the groups need (16, 1000,
 * 40000 groups); each width must give back the largest group and the
 * special targets, against the reference.
 */
static void
test_widths_vs_reference(void **state)
{
	static const uint32_t n_groups[] = { 16, 1000, 40000 };
	struct ref_route r[300];
	uint64_t x = 0x2545F4914F6CDD1Dull;
	unsigned int w, i, n;
	uint16_t nh;

	(void)state;
	for (w = 0; w < RTE_DIM(n_groups); w++) {
		struct aifab_fib_params p = {
			.name = "t_width", .socket_id = 0, .max_routes4 = 300,
			.max_routes6 = 8, .max_nh = 1,
			.max_groups = n_groups[w],
		};
		struct aifab_fib *f = aifab_fib_create(&p);
		uint8_t a6[16] = { 0xfd, [15] = 9 };
		uint32_t t6;

		assert_non_null(f);
		nh = (uint16_t)aifab_fib_nh_add(f, 0, &mac_a);
		for (i = 0; i < n_groups[w]; i++)
			assert_int_equal(aifab_fib_group_add(f, &nh, 1),
					 (int)i);
		n = 0;
		for (i = 0; i < RTE_DIM(r); i++) {
			uint8_t depth = (uint8_t)(1 + next32(&x) % 32);
			uint32_t mask = ~0u << (32 - depth);
			uint32_t ip = (next32(&x) & 0x0F0F0F0Fu) & mask;
			uint32_t c = next32(&x) % 4, target =
				c == 0 ? AIFAB_FIB_LOCAL :
				c == 1 ? AIFAB_FIB_UNRESOLVED :
				c == 2 ? n_groups[w] - 1 :
				next32(&x) % n_groups[w];

			ref_add(f, r, &n, ip, depth, target);
		}
		check_vs_ref(f, r, n, &x, 100);
		assert_int_equal(aifab_fib_route6_add(f, a6, 128,
						      n_groups[w] - 1), 0);
		aifab_fib_lookup6_bulk(f, &a6, &t6, 1);
		assert_int_equal(t6, n_groups[w] - 1);
		aifab_fib_free(f);
	}
}

/* A family sized 0 has no table: only its /0 is taken. */
static void
test_family_without_table(void **state)
{
	struct aifab_fib_params p = {
		.name = "t_none", .socket_id = 0, .max_routes4 = 4,
		.max_routes6 = 0, .max_nh = 1, .max_groups = 1,
	};
	struct aifab_fib *f = aifab_fib_create(&p);
	uint8_t a6[16] = { 0xfd, [15] = 1 };
	uint32_t t6;
	uint16_t nh;
	int g;

	(void)state;
	assert_non_null(f);
	nh = (uint16_t)aifab_fib_nh_add(f, 0, &mac_a);
	g = aifab_fib_group_add(f, &nh, 1);
	aifab_fib_lookup6_bulk(f, &a6, &t6, 1);
	assert_int_equal(t6, AIFAB_FIB_MISS);
	assert_int_equal(aifab_fib_route6_add(f, a6, 64, (uint32_t)g),
			 -ENOSPC);
	assert_int_equal(aifab_fib_route6_add(f, a6, 0, (uint32_t)g), 0);
	aifab_fib_lookup6_bulk(f, &a6, &t6, 1);
	assert_int_equal(t6, (uint32_t)g);
	assert_int_equal(lookup4(f, 0x0A000001), AIFAB_FIB_MISS);
	aifab_fib_free(f);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_special_targets_v4),
		cmocka_unit_test(test_default_route_is_least_specific),
		cmocka_unit_test(test_ipv6),
		cmocka_unit_test(test_bad_arguments),
		cmocka_unit_test(test_random_vs_reference),
		cmocka_unit_test(test_widths_vs_reference),
		cmocka_unit_test(test_family_without_table),
	};

	return cmocka_run_group_tests(tests, unit_eal_up, unit_eal_down);
}
