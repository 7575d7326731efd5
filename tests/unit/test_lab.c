/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * pipelines/lab: the pure figures of the recipes against their formulas.
 * Spread: imbalance = max / mean, chi-square = sum (o - e)^2 / e, p the
 * exact upper tail (1 degree of freedom: erfc(sqrt(x / 2)); 2: e^(-x/2)).
 * RED inference: bins filled from the RED ramp itself (0 below Kmin, Pmax
 * x (d - Kmin) / (Kmax - Kmin) up to Kmax, 1 above) must give back Kmin,
 * Kmax within one bin and Pmax within 0.01.
 * Percentiles: nearest rank, the value of rank ceil(n q) (incast's
 * p50/p99/p999), on latencies whose rank is their value.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "lab.h"

static void
test_spread(void **state)
{
	const uint32_t even[2] = { 32, 32 }, skew[2] = { 40, 24 };
	const uint32_t one[2] = { 64, 0 }, three[3] = { 10, 20, 30 };
	double imb, chi2, p;

	(void)state;
	aifab_lab_spread(even, 2, &imb, &chi2, &p);
	assert_true(fabs(imb - 1.0) < 1e-12 && chi2 == 0 && fabs(p - 1) < 1e-12);
	aifab_lab_spread(skew, 2, &imb, &chi2, &p);
	/* e = 32: (8^2 + 8^2) / 32 = 4; imbalance 40 / 32 */
	assert_true(fabs(imb - 1.25) < 1e-12);
	assert_true(fabs(chi2 - 4.0) < 1e-12);
	assert_true(fabs(p - erfc(sqrt(2.0))) < 1e-12);
	aifab_lab_spread(one, 2, &imb, &chi2, &p);
	assert_true(fabs(imb - 2.0) < 1e-12 && fabs(chi2 - 64.0) < 1e-12);
	/* e = 20: (100 + 0 + 100) / 20 = 10; 2 dof: e^(-5) */
	aifab_lab_spread(three, 3, &imb, &chi2, &p);
	assert_true(fabs(chi2 - 10.0) < 1e-12 && fabs(imb - 1.5) < 1e-12);
	assert_true(fabs(p - exp(-5.0)) < 1e-12);
}

/* Bins of width @p w filled from the RED ramp, @p n frames each. */
static void
red_bins(struct aifab_lab_bin *b, uint32_t w, double kmin, double kmax,
	 double pmax, uint64_t n)
{
	unsigned int i;

	memset(b, 0, sizeof(*b) * AIFAB_LAB_BINS);
	for (i = 0; i < AIFAB_LAB_BINS; i++) {
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
	struct aifab_lab_bin b[AIFAB_LAB_BINS];
	struct aifab_lab_result r;
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
		aifab_lab_infer_red(b, AIFAB_LAB_BINS, 8192, 30, &r);
		assert_true(r.has_kmin && r.has_kmax);
		assert_true(fabs((double)r.kmin - cases[c][0]) <= 8192);
		assert_true(fabs((double)r.kmax - cases[c][1]) <= 8192);
		assert_true(fabs(r.pmax - cases[c][2]) <= 0.01 + cases[c][2] *
			    8192 / (cases[c][1] - cases[c][0]));
	}
	/* nothing marked: no Kmin, no Kmax */
	memset(b, 0, sizeof(b));
	b[0].frames = 100;
	aifab_lab_infer_red(b, AIFAB_LAB_BINS, 8192, 30, &r);
	assert_false(r.has_kmin);
	assert_false(r.has_kmax);
	/* thin bins are not judged: a lone marked frame is no Kmin */
	b[1].frames = 2;
	b[1].ce = 2;
	aifab_lab_infer_red(b, AIFAB_LAB_BINS, 8192, 30, &r);
	assert_false(r.has_kmin || r.has_kmax);
}

static void
test_percentile(void **state)
{
	static uint32_t v[1000];
	uint32_t i, seven[7] = { 10, 20, 30, 40, 50, 60, 70 };

	(void)state;
	for (i = 0; i < 1000; i++)
		v[i] = (i + 1) * 1000u;      /* rank r: r us */
	assert_true(aifab_lab_pct_us(v, 1000, 500) == 500.0);
	assert_true(aifab_lab_pct_us(v, 1000, 990) == 990.0);
	assert_true(aifab_lab_pct_us(v, 1000, 999) == 999.0);
	assert_true(aifab_lab_pct_us(v, 1000, 1000) == 1000.0);
	/* 999 values: p999 is rank ceil(998.001) = 999 */
	assert_true(aifab_lab_pct_us(v, 999, 999) == 999.0);
	/* 7 values: p50 rank ceil(3.5) = 4, p99 and p999 rank 7 */
	assert_true(aifab_lab_pct_us(seven, 7, 500) == 0.04);
	assert_true(aifab_lab_pct_us(seven, 7, 990) == 0.07);
	assert_true(aifab_lab_pct_us(seven, 7, 999) == 0.07);
	assert_true(aifab_lab_pct_us(seven, 1, 999) == 0.01);
	assert_true(aifab_lab_pct_us(seven, 0, 500) == 0);
	/* the CE flag (bit 31) is not part of the latency */
	seven[3] |= 0x80000000u;
	assert_true(aifab_lab_pct_us(seven, 7, 500) == 0.04);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_spread),
		cmocka_unit_test(test_infer_red),
		cmocka_unit_test(test_percentile),
	};

	return cmocka_run_group_tests_name("lab", tests, NULL, NULL);
}
