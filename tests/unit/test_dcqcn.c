/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lib/dcqcn: CNP pacing and the reaction point's rate trajectory, on a fake
 * clock. Expected rates are worked out by hand from the DCQCN formulas in
 * PROTOCOLS.md, one step at a time (the comments show each step); most are
 * exact binary fractions, compared with a tiny relative tolerance.
 */
#include <errno.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <rte_common.h>

#include "aifab_dcqcn.h"
#include "aifab_rng.h"

#define HZ 2500000000ull /* 2.5 GHz TSC */
#define US(x) ((uint64_t)((x) * 2500.0 + 0.5))

static void
near(double got, double want)
{
	double tol = 1e-12 * fabs(want) + 1e-12;

	if (fabs(got - want) > tol)
		fail_msg("got %.17g, want %.17g", got, want);
}

/* 100 Gb/s, g 1/256, alpha0 1, T = alpha period = 55 us, no byte counter. */
static struct aifab_dcqcn_conf
conf(double rai, double rhai, uint64_t byte_counter)
{
	struct aifab_dcqcn_params p = {
		.tsc_hz = HZ, .line_rate_mbps = 100000, .min_rate_mbps = 100,
		.g = 1.0 / 256, .alpha_init = 1, .rai_mbps = rai,
		.rhai_mbps = rhai, .alpha_period_ns = 55000,
		.rate_period_ns = 55000, .byte_counter = byte_counter, .f = 5,
		.cnp_interval_ns = 50000,
	};
	struct aifab_dcqcn_conf c;

	assert_int_equal(aifab_dcqcn_conf_init(&c, &p), 0);
	return c;
}

static void
test_np_ce_train_1us(void **state)
{
	struct aifab_dcqcn_conf c = conf(40, 400, 0);
	struct aifab_dcqcn_np np;
	uint64_t sent[32];
	unsigned int n = 0, i;

	(void)state;
	aifab_dcqcn_np_init(&np);
	/* CE every 1 us from 7 us to 507 us: 501 packets. */
	for (i = 0; i <= 500; i++)
		if (aifab_dcqcn_np_on_ce(&c, &np, US(7 + i)))
			sent[n++] = US(7 + i);
	/* 7, 57, 107, ..., 507 us: exactly every 50 us. */
	assert_int_equal(n, 11);
	for (i = 0; i < n; i++)
		assert_int_equal(sent[i], US(7 + 50 * i));
	assert_int_equal(np.cnt[AIFAB_DCQCN_NP_CNT_CE_RX], 501);
	assert_int_equal(np.cnt[AIFAB_DCQCN_NP_CNT_CNP_TX], 11);
	assert_int_equal(np.cnt[AIFAB_DCQCN_NP_CNT_CNP_SUPPRESSED], 490);
}

static void
test_np_ce_train_3us_and_random(void **state)
{
	struct aifab_dcqcn_conf c = conf(40, 400, 0);
	static const unsigned int want_us[] = { 0, 51, 102, 153, 204 };
	struct aifab_dcqcn_np np;
	struct aifab_rng rng;
	uint64_t t, last = 0;
	unsigned int i, n = 0;
	bool any = false;

	(void)state;
	aifab_dcqcn_np_init(&np);
	/* Every 3 us: the first CE at least 50 us after the last CNP. */
	for (i = 0; i <= 70; i++)
		if (aifab_dcqcn_np_on_ce(&c, &np, US(3 * i))) {
			assert_true(n < 5);
			assert_int_equal(US(3 * i), US(want_us[n]));
			n++;
		}
	assert_int_equal(n, 5);

	/* Random gaps 0..20 us vs a naive reference of the rule. */
	aifab_dcqcn_np_init(&np);
	aifab_rng_seed(&rng, 42, 0);
	t = 1000;
	for (i = 0; i < 5000; i++) {
		bool ref;

		t += aifab_rng_u64(&rng) % US(20);
		ref = !any || t - last >= US(50);
		if (ref) {
			any = true;
			last = t;
		}
		assert_int_equal(aifab_dcqcn_np_on_ce(&c, &np, t), ref);
	}
}

/* Line 100G, R_AI 40 Mb/s: two CNPs, then fast recovery and additive. */
static void
test_rp_hand_trajectory(void **state)
{
	struct aifab_dcqcn_conf c = conf(40, 400, 0);
	struct aifab_dcqcn_rp rp;
	/* After CNP2 at 150 us; T events every 55 us from there. */
	static const struct { double rc, rt, alpha; } after_t[] = {
		/* T1 fast: (87500 + 44091.129302978515625) / 2 */
		{ 65795.5646514892578125, 87500, 0.988357305759564 },
		{ 76647.78232574462890625, 87500, 0.9844965350339407 },
		{ 82073.891162872314453125, 87500, 0.9806508454439644 },
		{ 84786.9455814361572265625, 87500, 0.9768201780789489 },
		/* T5: last fast recovery step (max(T,B) = 5 <= F) */
		{ 86143.47279071807861328125, 87500, 0.973004474258328 },
		/* T6 additive: Rt = 87500 + 40; Rc = (87540 + 86143.47...)/2 */
		{ 86841.736395359039306640625, 87540, 0.9692036755307565 },
		/* T7 additive: Rt = 87580 */
		{ 87210.8681976795196533203125, 87580, 0.9654177236732144 },
	};
	unsigned int i;

	(void)state;
	aifab_dcqcn_rp_init(&c, &rp, 0);
	near(aifab_dcqcn_rp_poll(&c, &rp, US(9)), 100000);

	/* CNP1 at 10 us: Rt = 100000, Rc = 100000 (1 - 1/2), alpha stays 1. */
	aifab_dcqcn_rp_on_cnp(&c, &rp, US(10));
	near(rp.rc, 50000);
	near(rp.rt, 100000);
	near(rp.alpha, 1);
	/* Timers restarted at 10 us: nothing due before 65 us. */
	near(aifab_dcqcn_rp_poll(&c, &rp, US(65) - 1), 50000);
	near(rp.alpha, 1);
	/* 65 us: T1 fast recovery (100000 + 50000) / 2; alpha = 255/256. */
	near(aifab_dcqcn_rp_poll(&c, &rp, US(65)), 75000);
	near(rp.alpha, 0.99609375);
	/* 120 us: (100000 + 75000) / 2; alpha = (255/256)^2. */
	near(aifab_dcqcn_rp_poll(&c, &rp, US(120)), 87500);
	near(rp.alpha, 0.9922027587890625);

	/*
	 * CNP2 at 150 us: Rt = 87500; Rc = 87500 (1 - 0.9922027587890625/2)
	 * = 44091.129302978515625; alpha = (255/256) 0.9922027587890625
	 * + 1/256 = 16646911/16777216 = 0.99223321676254272...
	 */
	aifab_dcqcn_rp_on_cnp(&c, &rp, US(150));
	near(rp.rc, 44091.129302978515625);
	near(rp.rt, 87500);
	near(rp.alpha, 16646911.0 / 16777216);
	for (i = 0; i < RTE_DIM(after_t); i++) {
		uint64_t t = US(150 + 55 * (i + 1));

		near(aifab_dcqcn_rp_poll(&c, &rp, t - 1), i == 0 ?
		     44091.129302978515625 : after_t[i - 1].rc);
		near(aifab_dcqcn_rp_poll(&c, &rp, t), after_t[i].rc);
		near(rp.rt, after_t[i].rt);
		assert_true(fabs(rp.alpha - after_t[i].alpha) < 1e-15);
	}
	assert_int_equal(rp.cnt[AIFAB_DCQCN_RP_CNT_CNP_RX], 2);
	assert_int_equal(rp.cnt[AIFAB_DCQCN_RP_CNT_RATE_CUTS], 2);
	assert_int_equal(rp.cnt[AIFAB_DCQCN_RP_CNT_FAST_RECOVERY], 2 + 5);
	assert_int_equal(rp.cnt[AIFAB_DCQCN_RP_CNT_ADDITIVE], 2);
	assert_int_equal(rp.cnt[AIFAB_DCQCN_RP_CNT_HYPER], 0);
	near(rp.min_rc, 44091.129302978515625);
}

/* R_AI 1000, R_HAI 5000, B = 1 MB: fast, additive, then hyper. */
static void
test_rp_additive_and_hyper(void **state)
{
	struct aifab_dcqcn_conf c = conf(1000, 5000, 1000000);
	struct aifab_dcqcn_rp rp;
	/* T1..T6 at 56 + 55k us after CNP2 at 1 us. */
	static const double t_rc[] = {
		37500, 43750, 46875, 48437.5, 49218.75, /* fast to Rt 50000 */
		50109.375, /* T6: additive, Rt 51000 */
	};
	/* Six byte events at 332 us, T = 6. */
	static const double b_rt[] = { 52000, 53000, 54000, 55000, 56000,
				       61000 /* B6: min 6 > F: += 1 x 5000 */ };
	static const double b_rc[] = { 51054.6875, 52027.34375, 53013.671875,
				       54006.8359375, 55003.41796875,
				       58001.708984375 };
	unsigned int i;

	(void)state;
	aifab_dcqcn_rp_init(&c, &rp, 0);
	/* CNP1: Rc 50000, Rt 100000; CNP2 (alpha 1): Rt 50000, Rc 25000. */
	aifab_dcqcn_rp_on_cnp(&c, &rp, 0);
	aifab_dcqcn_rp_on_cnp(&c, &rp, US(1));
	near(rp.rc, 25000);
	near(rp.rt, 50000);
	for (i = 0; i < RTE_DIM(t_rc); i++)
		near(aifab_dcqcn_rp_poll(&c, &rp, US(56 + 55 * i)), t_rc[i]);
	near(rp.rt, 51000);
	for (i = 0; i < 6; i++) {
		aifab_dcqcn_rp_on_bytes_sent(&c, &rp, 1000000, US(332));
		near(rp.rt, b_rt[i]);
		near(rp.rc, b_rc[i]);
	}
	/* T7 at 386 us, B = 6: min 6 > 5: Rt = 61000 + 5000 = 66000,
	 * Rc = (66000 + 58001.708984375) / 2. */
	near(aifab_dcqcn_rp_poll(&c, &rp, US(386)), 62000.8544921875);
	near(rp.rt, 66000);
	/* B7 (split over two calls): min 7: Rt += 2 x 5000 = 76000,
	 * Rc = (76000 + 62000.8544921875) / 2. */
	aifab_dcqcn_rp_on_bytes_sent(&c, &rp, 400000, US(387));
	aifab_dcqcn_rp_on_bytes_sent(&c, &rp, 600000, US(387));
	near(rp.rt, 76000);
	near(rp.rc, 69000.42724609375);
	assert_int_equal(rp.cnt[AIFAB_DCQCN_RP_CNT_FAST_RECOVERY], 5);
	assert_int_equal(rp.cnt[AIFAB_DCQCN_RP_CNT_ADDITIVE], 6);
	assert_int_equal(rp.cnt[AIFAB_DCQCN_RP_CNT_HYPER], 3);
	assert_int_equal(rp.cnt[AIFAB_DCQCN_RP_CNT_BYTE_EVENTS], 7);
	assert_int_equal(rp.cnt[AIFAB_DCQCN_RP_CNT_TIMER_EVENTS], 7);

	/* One byte short of B changes nothing; the B-th byte is one step. */
	aifab_dcqcn_rp_init(&c, &rp, 0);
	aifab_dcqcn_rp_on_cnp(&c, &rp, 0);
	aifab_dcqcn_rp_on_bytes_sent(&c, &rp, 999999, US(2));
	near(rp.rc, 50000);
	aifab_dcqcn_rp_on_bytes_sent(&c, &rp, 1, US(3));
	near(rp.rc, 75000); /* fast recovery: (100000 + 50000) / 2 */
	assert_int_equal(rp.b, 1);
}

static void
test_rp_alpha_decay(void **state)
{
	struct aifab_dcqcn_conf c = conf(40, 400, 0);
	struct aifab_dcqcn_rp rp;
	double want = 1;
	unsigned int k;

	(void)state;
	aifab_dcqcn_rp_init(&c, &rp, 0);
	/* Period by period: alpha = (255/256)^k. */
	for (k = 1; k <= 100; k++) {
		want *= 255.0 / 256;
		aifab_dcqcn_rp_poll(&c, &rp, US(55 * k));
		near(rp.alpha, want);
	}
	/* Half a period later: unchanged. */
	aifab_dcqcn_rp_poll(&c, &rp, US(55 * 100 + 27));
	near(rp.alpha, want);
	/* 1000 periods in one poll: (255/256)^1100 = exp(1100 ln(255/256)). */
	aifab_dcqcn_rp_poll(&c, &rp, US(55 * 1100));
	assert_true(fabs(rp.alpha / exp(1100 * log(255.0 / 256)) - 1) < 1e-9);
	assert_int_equal(rp.cnt[AIFAB_DCQCN_RP_CNT_ALPHA_DECAYS], 1100);

	/* A CNP restarts the alpha period: CNP at 30 us after period 0 ends. */
	aifab_dcqcn_rp_init(&c, &rp, 0);
	aifab_dcqcn_rp_poll(&c, &rp, US(55));
	near(rp.alpha, 0.99609375);
	/* alpha = (255/256) 0.99609375 + 1/256 = 0.9961090087890625 */
	aifab_dcqcn_rp_on_cnp(&c, &rp, US(85));
	near(rp.alpha, 0.9961090087890625);
	aifab_dcqcn_rp_poll(&c, &rp, US(110)); /* old schedule: no decay */
	near(rp.alpha, 0.9961090087890625);
	aifab_dcqcn_rp_poll(&c, &rp, US(140));
	near(rp.alpha, 0.9961090087890625 * 255 / 256);
}

static void
test_rp_cap_and_long_idle(void **state)
{
	struct aifab_dcqcn_conf c = conf(40, 50000, 1000);
	struct aifab_dcqcn_rp rp;
	unsigned int i;

	(void)state;
	aifab_dcqcn_rp_init(&c, &rp, 0);
	aifab_dcqcn_rp_on_cnp(&c, &rp, 0);
	/* Hyper steps of 50 Gb/s: Rt must stop at line, Rc never above. */
	for (i = 1; i <= 400; i++) {
		aifab_dcqcn_rp_on_bytes_sent(&c, &rp, 1000, US(55 * i));
		assert_true(rp.rt <= 100000);
		assert_true(rp.rc <= 100000);
	}
	near(rp.rt, 100000);
	near(rp.rc, 100000);

	/* One poll after 1 s idle: 18181 whole periods of 55 us. */
	aifab_dcqcn_rp_init(&c, &rp, 0);
	aifab_dcqcn_rp_on_cnp(&c, &rp, 0);
	aifab_dcqcn_rp_poll(&c, &rp, HZ);
	assert_int_equal(rp.cnt[AIFAB_DCQCN_RP_CNT_TIMER_EVENTS], 18181);
	assert_int_equal(rp.t, 18181);
	near(rp.rc, 100000);
	near(rp.rt, 100000);
}

static void
test_rp_min_rate(void **state)
{
	struct aifab_dcqcn_conf c = conf(40, 400, 0);
	struct aifab_dcqcn_rp rp;
	unsigned int i;

	(void)state;
	aifab_dcqcn_rp_init(&c, &rp, 0);
	/*
	 * alpha stays 1 ((1-g) 1 + g), so each CNP halves Rc:
	 * 100000 / 2^9 = 195.3125, then max(97.65625, 100) = 100: ten cuts,
	 * the next 90 CNPs leave Rc at the floor.
	 */
	for (i = 0; i < 100; i++) {
		aifab_dcqcn_rp_on_cnp(&c, &rp, US(i));
		if (i == 8)
			near(rp.rc, 195.3125);
	}
	near(rp.rc, 100);
	near(rp.min_rc, 100);
	assert_int_equal(rp.cnt[AIFAB_DCQCN_RP_CNT_CNP_RX], 100);
	assert_int_equal(rp.cnt[AIFAB_DCQCN_RP_CNT_RATE_CUTS], 10);
}

static void
test_params(void **state)
{
	struct aifab_dcqcn_params p, bad;
	struct aifab_dcqcn_conf c;

	(void)state;
	aifab_dcqcn_params_default(&p, 25000, HZ);
	assert_true(p.g == 1.0 / 256 && p.alpha_init == 1);
	assert_true(p.rai_mbps == 40 && p.rhai_mbps == 400);
	assert_int_equal(p.alpha_period_ns, 55000);
	assert_int_equal(p.rate_period_ns, 55000);
	assert_int_equal(p.byte_counter, 10 * 1024 * 1024);
	assert_int_equal(p.f, 5);
	assert_int_equal(p.cnp_interval_ns, 50000);
	assert_int_equal(aifab_dcqcn_conf_init(&c, &p), 0);
	/* 55 us at 2.5 GHz, 50 us at 2.5 GHz. */
	assert_int_equal(c.rate_period, 137500);
	assert_int_equal(c.cnp_interval, 125000);

	bad = p; bad.g = 0;
	assert_int_equal(aifab_dcqcn_conf_init(&c, &bad), -EINVAL);
	bad = p; bad.g = NAN;
	assert_int_equal(aifab_dcqcn_conf_init(&c, &bad), -EINVAL);
	bad = p; bad.min_rate_mbps = 30000;
	assert_int_equal(aifab_dcqcn_conf_init(&c, &bad), -EINVAL);
	bad = p; bad.line_rate_mbps = INFINITY;
	assert_int_equal(aifab_dcqcn_conf_init(&c, &bad), -EINVAL);
	bad = p; bad.alpha_init = 1.5;
	assert_int_equal(aifab_dcqcn_conf_init(&c, &bad), -EINVAL);
	bad = p; bad.rate_period_ns = 0;
	assert_int_equal(aifab_dcqcn_conf_init(&c, &bad), -EINVAL);
	bad = p; bad.f = 0;
	assert_int_equal(aifab_dcqcn_conf_init(&c, &bad), -EINVAL);
	bad = p; bad.tsc_hz = 0;
	assert_int_equal(aifab_dcqcn_conf_init(&c, &bad), -EINVAL);
	assert_string_equal(aifab_dcqcn_rp_cnt_name(AIFAB_DCQCN_RP_CNT_CNP_RX),
			    "cnp_rx");
	assert_string_equal(aifab_dcqcn_np_cnt_name(AIFAB_DCQCN_NP_CNT_CNP_TX),
			    "cnp_tx");
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_np_ce_train_1us),
		cmocka_unit_test(test_np_ce_train_3us_and_random),
		cmocka_unit_test(test_rp_hand_trajectory),
		cmocka_unit_test(test_rp_additive_and_hyper),
		cmocka_unit_test(test_rp_alpha_decay),
		cmocka_unit_test(test_rp_cap_and_long_idle),
		cmocka_unit_test(test_rp_min_rate),
		cmocka_unit_test(test_params),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
