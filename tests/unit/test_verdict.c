/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lib/verdict: the lab verdicts' statistics against their definitions.
 * Chi-square tail: published critical values (the 0.05 and 0.01 columns
 * of the chi-square table), the closed forms for 1 and 2 degrees of
 * freedom, and a numerical integral of the density. Spread: imbalance =
 * max / mean, chi-square = sum (o - e)^2 / e. RED inference: bins filled
 * from the RED ramp itself (0 below Kmin, Pmax x (d - Kmin) / (Kmax -
 * Kmin) up to Kmax, 1 above) must give back Kmin, Kmax within one bin and
 * Pmax within 0.01. Depth bins by hand. Percentiles: nearest rank, checked
 * on latencies whose rank is their value and against the definition (the
 * smallest value with at least q x n values at or below it). PFC: the
 * 802.3 31B table, pause and cable arithmetic of PROTOCOLS.md.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "aifab_verdict.h"

#define N_BINS 64u

/* The chi-square density with k degrees of freedom at x. */
static double
chi2_pdf(double x, unsigned int k)
{
	return pow(x, k / 2.0 - 1) * exp(-x / 2) /
		(pow(2, k / 2.0) * tgamma(k / 2.0));
}

/* Its integral from x to x + 200 (the rest is < 1e-40), Simpson's rule. */
static double
chi2_tail_numeric(double x, unsigned int k)
{
	const unsigned int steps = 200000;
	double h = 200.0 / steps, s = chi2_pdf(x, k) + chi2_pdf(x + 200, k);
	unsigned int i;

	for (i = 1; i < steps; i++)
		s += (i % 2 ? 4 : 2) * chi2_pdf(x + i * h, k);
	return s * h / 3;
}

static void
test_chi2_upper(void **state)
{
	/* x, k, the table's tail probability */
	static const struct { double x; unsigned int k; double q; } table[] = {
		{ 3.841, 1, 0.05 }, { 5.991, 2, 0.05 }, { 7.815, 3, 0.05 },
		{ 9.488, 4, 0.05 }, { 11.070, 5, 0.05 }, { 18.307, 10, 0.05 },
		{ 6.635, 1, 0.01 }, { 9.210, 2, 0.01 }, { 11.345, 3, 0.01 },
		{ 13.277, 4, 0.01 }, { 18.475, 7, 0.01 }, { 23.209, 10, 0.01 },
	};
	unsigned int i, k;

	(void)state;
	for (i = 0; i < sizeof(table) / sizeof(table[0]); i++)
		/* the table's x has 3 decimals: p within 0.3% of q */
		assert_true(fabs(aifab_verdict_chi2_upper(table[i].x,
			table[i].k) - table[i].q) <= 0.003 * table[i].q);
	for (k = 1; k <= 9; k++) {
		double x = 0.7 * k + 0.3;

		assert_true(fabs(aifab_verdict_chi2_upper(x, k) -
				 chi2_tail_numeric(x, k)) < 1e-6);
	}
	assert_true(fabs(aifab_verdict_chi2_upper(4.0, 1) -
			 erfc(sqrt(2.0))) < 1e-12);
	assert_true(fabs(aifab_verdict_chi2_upper(10.0, 2) - exp(-5.0)) < 1e-12);
	assert_true(aifab_verdict_chi2_upper(0, 3) == 1.0);
	assert_true(aifab_verdict_chi2_upper(5.0, 0) == 1.0);
}

static void
test_spread(void **state)
{
	const uint32_t even[2] = { 32, 32 }, skew[2] = { 40, 24 };
	const uint32_t one[2] = { 64, 0 }, three[3] = { 10, 20, 30 };
	const uint32_t none[2] = { 0, 0 };
	double imb, chi2, p;

	(void)state;
	aifab_verdict_spread(even, 2, &imb, &chi2, &p);
	assert_true(fabs(imb - 1.0) < 1e-12 && chi2 == 0 && fabs(p - 1) < 1e-12);
	aifab_verdict_spread(skew, 2, &imb, &chi2, &p);
	/* e = 32: (8^2 + 8^2) / 32 = 4; imbalance 40 / 32 */
	assert_true(fabs(imb - 1.25) < 1e-12);
	assert_true(fabs(chi2 - 4.0) < 1e-12);
	assert_true(fabs(p - erfc(sqrt(2.0))) < 1e-12);
	aifab_verdict_spread(one, 2, &imb, &chi2, &p);
	assert_true(fabs(imb - 2.0) < 1e-12 && fabs(chi2 - 64.0) < 1e-12);
	/* e = 20: (100 + 0 + 100) / 20 = 10; 2 dof: e^(-5) */
	aifab_verdict_spread(three, 3, &imb, &chi2, &p);
	assert_true(fabs(chi2 - 10.0) < 1e-12 && fabs(imb - 1.5) < 1e-12);
	assert_true(fabs(p - exp(-5.0)) < 1e-12);
	aifab_verdict_spread(none, 2, &imb, &chi2, &p);
	assert_true(imb == 0 && chi2 == 0 && p == 1);
}

/* Bins of width @p w filled from the RED ramp, @p n frames each. */
static void
red_bins(struct aifab_verdict_bin *b, uint32_t w, double kmin, double kmax,
	 double pmax, uint64_t n)
{
	unsigned int i;

	memset(b, 0, sizeof(*b) * N_BINS);
	for (i = 0; i < N_BINS; i++) {
		double d = (i + 0.5) * w, q;

		q = d < kmin ? 0 : d < kmax ?
			pmax * (d - kmin) / (kmax - kmin) : 1.0;
		b[i].frames = n;
		b[i].ce = (uint64_t)llround(q * (double)n);
	}
}

static void
test_infer_red(void **state)
{
	struct aifab_verdict_bin b[N_BINS];
	struct aifab_verdict_red r;
	static const double cases[][3] = {
		{ 100000, 300000, 0.20 },
		{ 40000, 160000, 0.05 },
		{ 20000, 400000, 0.50 },
	};
	unsigned int c;

	(void)state;
	for (c = 0; c < 3; c++) {
		memset(&r, 0, sizeof(r));
		red_bins(b, 8192, cases[c][0], cases[c][1], cases[c][2], 10000);
		aifab_verdict_infer_red(b, N_BINS, 8192, 30, &r);
		assert_true(r.has_kmin && r.has_kmax);
		assert_true(fabs((double)r.kmin - cases[c][0]) <= 8192);
		assert_true(fabs((double)r.kmax - cases[c][1]) <= 8192);
		assert_true(fabs(r.pmax - cases[c][2]) <= 0.01 + cases[c][2] *
			    8192 / (cases[c][1] - cases[c][0]));
	}
	/* nothing marked: no Kmin, no Kmax */
	memset(b, 0, sizeof(b));
	b[0].frames = 100;
	aifab_verdict_infer_red(b, N_BINS, 8192, 30, &r);
	assert_false(r.has_kmin);
	assert_false(r.has_kmax);
	/* thin bins are not judged: a lone marked frame is no Kmin */
	b[1].frames = 2;
	b[1].ce = 2;
	aifab_verdict_infer_red(b, N_BINS, 8192, 30, &r);
	assert_false(r.has_kmin || r.has_kmax);
	/* one marked bin (no line): Kmin there, Pmax its fraction */
	b[3].frames = 100;
	b[3].ce = 10;
	aifab_verdict_infer_red(b, N_BINS, 8192, 30, &r);
	assert_true(r.has_kmin && r.kmin == 3 * 8192 && !r.has_kmax);
	assert_true(fabs(r.pmax - 0.1) < 1e-12);
}

static void
test_depth_bins(void **state)
{
	struct aifab_verdict_bin b[4];
	/* 1.25 bytes per ns (10 Gb/s), 1000-byte bins: 800 ns per bin */
	const uint32_t lat[] = { 5000, 5000 + 799, (5000 + 800) | 0x80000000u,
				 5000 + 2000, (5000 + 1000000) | 0x80000000u };

	(void)state;
	memset(b, 0, sizeof(b));
	assert_int_equal(aifab_verdict_depth_bins(lat, 5, 1.25, 1000, b, 4),
			 5000);
	assert_true(b[0].frames == 2 && b[0].ce == 0);
	assert_true(b[1].frames == 1 && b[1].ce == 1);
	assert_true(b[2].frames == 1 && b[2].ce == 0);
	assert_true(b[3].frames == 1 && b[3].ce == 1);  /* the deepest: last */
	assert_int_equal(aifab_verdict_depth_bins(lat, 0, 1.25, 1000, b, 4),
			 UINT32_MAX);
	assert_true(aifab_verdict_near(110, 100, 0.05, 5));
	assert_false(aifab_verdict_near(110.5, 100, 0.05, 5));
	assert_true(aifab_verdict_near(89.0, 100, 0.1, 1));
}

/* The definition: the smallest value v of the data with at least q x n
 * values <= v (q = permille / 1000). */
static uint32_t
pct_by_definition(const uint32_t *v, uint32_t n, uint32_t permille)
{
	uint32_t best = UINT32_MAX, i, j, le;

	for (i = 0; i < n; i++) {
		for (j = 0, le = 0; j < n; j++)
			le += v[j] <= v[i];
		if ((uint64_t)le * 1000 >= (uint64_t)permille * n && v[i] < best)
			best = v[i];
	}
	return best;
}

static void
test_percentile(void **state)
{
	static uint32_t v[1000];
	uint32_t i, seven[7] = { 10, 20, 30, 40, 50, 60, 70 };

	(void)state;
	for (i = 0; i < 1000; i++)
		v[i] = (i + 1) * 1000u;      /* rank r: r us */
	assert_true(aifab_verdict_pct_us(v, 1000, 500) == 500.0);
	assert_true(aifab_verdict_pct_us(v, 1000, 990) == 990.0);
	assert_true(aifab_verdict_pct_us(v, 1000, 999) == 999.0);
	assert_true(aifab_verdict_pct_us(v, 1000, 1000) == 1000.0);
	/* 999 values: p999 is rank ceil(998.001) = 999 */
	assert_true(aifab_verdict_pct_us(v, 999, 999) == 999.0);
	/* 7 values: p50 rank ceil(3.5) = 4, p99 and p999 rank 7 */
	assert_true(aifab_verdict_pct_us(seven, 7, 500) == 0.04);
	assert_true(aifab_verdict_pct_us(seven, 7, 990) == 0.07);
	assert_true(aifab_verdict_pct_us(seven, 7, 999) == 0.07);
	assert_true(aifab_verdict_pct_us(seven, 1, 999) == 0.01);
	assert_true(aifab_verdict_pct_us(seven, 0, 500) == 0);
	/* the CE flag (bit 31) is not part of the latency */
	seven[3] |= 0x80000000u;
	assert_true(aifab_verdict_pct_us(seven, 7, 500) == 0.04);
}

static void
test_percentile_definition(void **state)
{
	static const uint32_t q[] = { 1, 250, 500, 900, 990, 999, 1000 };
	uint32_t data[60], sorted[60], n, i, k, trial;
	struct aifab_verdict_lat s;

	(void)state;
	srand(7);
	for (trial = 0; trial < 200; trial++) {
		n = 1 + (uint32_t)rand() % 60;
		for (i = 0; i < n; i++)        /* duplicates on purpose */
			data[i] = 1000u * (1 + (uint32_t)rand() % 40);
		memcpy(sorted, data, sizeof(data[0]) * n);
		aifab_verdict_sort_ns(sorted, n);
		for (i = 1; i < n; i++)
			assert_true(sorted[i - 1] <= sorted[i]);
		for (k = 0; k < sizeof(q) / sizeof(q[0]); k++)
			assert_true(aifab_verdict_pct_us(sorted, n, q[k]) ==
				    pct_by_definition(data, n, q[k]) / 1e3);
		aifab_verdict_latency_us(data, n, &s);
		assert_true(s.p50 == pct_by_definition(data, n, 500) / 1e3);
		assert_true(s.p99 == pct_by_definition(data, n, 990) / 1e3);
		assert_true(s.p999 == pct_by_definition(data, n, 999) / 1e3);
		assert_true(s.max == sorted[n - 1] / 1e3);
	}
	aifab_verdict_latency_us(data, 0, &s);
	assert_true(s.p50 == 0 && s.p99 == 0 && s.p999 == 0 && s.max == 0);
}

static void
test_pfc(void **state)
{
	(void)state;
	/* PROTOCOLS.md: 67 quanta at 10G, 80 at 25G, 394 at 100G, 905 at 400G */
	assert_int_equal(aifab_verdict_pfc_bound_quanta(1000), 67);
	assert_int_equal(aifab_verdict_pfc_bound_quanta(10000), 67);
	assert_int_equal(aifab_verdict_pfc_bound_quanta(25000), 80);
	assert_int_equal(aifab_verdict_pfc_bound_quanta(40000), 394);
	assert_int_equal(aifab_verdict_pfc_bound_quanta(100000), 394);
	assert_int_equal(aifab_verdict_pfc_bound_quanta(200000), 905);
	assert_int_equal(aifab_verdict_pfc_bound_quanta(400000), 905);
	/* 0xffff quanta: 3.355 ms at 10G, 335.5 us at 100G */
	assert_true(fabs(aifab_verdict_pause_us(65535, 10000) - 3355.392) < 1e-9);
	assert_true(fabs(aifab_verdict_pause_us(65535, 100000) - 335.5392) <
		    1e-9);
	assert_true(aifab_verdict_pause_us(65535, 0) == 0);
	/* 2 x 100 m x 100 Gb/s / (2e8 m/s x 8) = 12500 bytes; 3 m at 10G:
	 * 37.5, whole bytes */
	assert_int_equal(aifab_verdict_cable_bytes(100, 100000), 12500);
	assert_int_equal(aifab_verdict_cable_bytes(3, 10000), 37);
	assert_int_equal(aifab_verdict_cable_bytes(0, 10000), 0);
	/* 67 quanta (4288 bytes) + 2 x 256 + 37 */
	assert_int_equal(aifab_verdict_headroom_bytes(67 * 64, 256, 37),
			 4288 + 512 + 37);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_chi2_upper),
		cmocka_unit_test(test_spread),
		cmocka_unit_test(test_infer_red),
		cmocka_unit_test(test_depth_bins),
		cmocka_unit_test(test_percentile),
		cmocka_unit_test(test_percentile_definition),
		cmocka_unit_test(test_pfc),
	};

	return cmocka_run_group_tests_name("verdict", tests, NULL, NULL);
}
