/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lib/qos: classification, FIFOs, shared buffer, ECN ramp, shaper and
 * scheduler. No EAL: mbufs are plain structs with pkt_len set. Oracles are
 * hand-computed numbers (scapy-checked header bytes), the ramp formula with
 * binomial bounds, exact rate x time bounds, a naive reference queue and
 * weight ratios. Time is a fake TSC advanced here; RNGs are seeded.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <rte_ip.h>
#include <rte_mbuf_core.h>

#include "aifab_qos.h"
#include "aifab_rng.h"

typedef unsigned __int128 u128;

/* ---- classification and counters ---------------------------------------- */

static void
test_classify(void **state)
{
	struct aifab_qos_map m;
	const char *why = NULL;
	unsigned int d;

	(void)state;
	aifab_qos_map_default(&m);
	assert_int_equal(aifab_qos_map_check(&m, &why), 0);
	for (d = 0; d < 64; d++) {
		uint8_t want = d == 26 ? 3 : d == 48 ? 6 : 0;

		/* ECN bits must not matter. */
		assert_int_equal(aifab_qos_classify(&m, AIFAB_QOS_TRUST_DSCP,
			(uint8_t)(d << 2 | 3), true, 7), want);
	}
	for (d = 0; d < 8; d++) {
		assert_int_equal(aifab_qos_classify(&m, AIFAB_QOS_TRUST_PCP,
			0, true, (uint8_t)d), d);
		/* Untagged under PCP trust: falls back to DSCP. */
		assert_int_equal(aifab_qos_classify(&m, AIFAB_QOS_TRUST_PCP,
			48 << 2, false, (uint8_t)d), 6);
	}
	m.pcp_tc[5] = 8;
	assert_int_equal(aifab_qos_map_check(&m, &why), -EINVAL);
	assert_non_null(strstr(why, "PCP"));
	aifab_qos_map_default(&m);
	m.dscp_tc[63] = 200;
	assert_int_equal(aifab_qos_map_check(&m, &why), -EINVAL);
	assert_non_null(strstr(why, "DSCP"));
}

static void
test_counter_names(void **state)
{
	unsigned int i, k;

	(void)state;
	assert_string_equal(aifab_qos_ctr_name(AIFAB_QOS_CTR_ECN_MARKED),
			    "ecn_marked");
	assert_string_equal(aifab_qos_ctr_name(AIFAB_QOS_CTR_QUEUE_HWM_BYTES),
			    "queue_hwm_bytes");
	assert_string_equal(aifab_qos_ctr_name(
		aifab_qos_drop_ctr(AIFAB_QOS_DROP_QUEUE_LIMIT)),
		"tail_drop_queue_limit");
	assert_string_equal(aifab_qos_ctr_name(
		aifab_qos_drop_ctr(AIFAB_QOS_DROP_ECN_NOT_ECT)),
		"ecn_drop_not_ect");
	assert_int_equal(aifab_qos_drop_ctr(AIFAB_QOS_DROP_MAX - 1),
			 AIFAB_QOS_CTR_MAX - 1);
	assert_string_equal(aifab_qos_ctr_name(AIFAB_QOS_CTR_MAX), "?");
	for (i = 0; i < AIFAB_QOS_CTR_MAX; i++)
		for (k = 0; k < i; k++)
			assert_string_not_equal(aifab_qos_ctr_name(i),
						aifab_qos_ctr_name(k));
}

/* ---- FIFO ---------------------------------------------------------------- */

#define N_MBUF 64
static struct rte_mbuf mbufs[N_MBUF];

static struct aifab_qos_fifo *
fifo_new(uint32_t cap)
{
	struct aifab_qos_fifo *f = malloc(aifab_qos_fifo_memsize(cap));

	assert_non_null(f);
	assert_int_equal(aifab_qos_fifo_init(f, cap), 0);
	return f;
}

static void
test_fifo_wrap_hwm(void **state)
{
	struct aifab_qos_fifo *f = fifo_new(8);
	struct rte_mbuf *ref[8];  /* naive reference: shifted array */
	unsigned int n = 0, i, step, next = 0;
	uint32_t bytes = 0, hwm = 0;
	struct aifab_rng r;

	(void)state;
	assert_int_equal(aifab_qos_fifo_memsize(6), 0);
	assert_int_equal(aifab_qos_fifo_memsize(0), 0);
	assert_int_equal(aifab_qos_fifo_init(f, 12), -EINVAL);
	for (i = 0; i < N_MBUF; i++)
		mbufs[i].pkt_len = 60 + i * 97;
	/* Start the free-running indexes just below 2^32 to cross the wrap. */
	f->head = f->tail = UINT32_MAX - 100;
	aifab_rng_seed(&r, 7, 0);
	for (step = 0; step < 20000; step++) {
		if (aifab_rng_below(&r, 2) == 0) {
			struct rte_mbuf *m = &mbufs[next++ % N_MBUF];
			int rc = aifab_qos_fifo_enqueue(f, m);

			if (n == 8) {
				assert_int_equal(rc, -ENOBUFS);
				continue;
			}
			assert_int_equal(rc, 0);
			ref[n++] = m;
			bytes += m->pkt_len;
			hwm = bytes > hwm ? bytes : hwm;
		} else {
			struct rte_mbuf *m = aifab_qos_fifo_dequeue(f);

			if (n == 0) {
				assert_null(m);
				continue;
			}
			assert_ptr_equal(m, ref[0]);
			bytes -= m->pkt_len;
			memmove(ref, ref + 1, --n * sizeof(ref[0]));
		}
		assert_int_equal(aifab_qos_fifo_count(f), n);
		assert_int_equal(f->bytes, bytes);
		assert_int_equal(f->hwm_bytes, hwm);
		assert_int_equal(aifab_qos_fifo_head_len(f),
				 n ? ref[0]->pkt_len : 0);
	}
	assert_true(f->head < (1u << 20)); /* it did wrap */
	assert_int_equal(aifab_qos_fifo_hwm_reset(f), hwm);
	assert_int_equal(f->hwm_bytes, bytes);
	free(f);
}

/* ---- shared buffer ------------------------------------------------------- */

static struct aifab_qos_buf *
buf_new(uint64_t size, uint64_t headroom, uint32_t n)
{
	struct aifab_qos_buf_params p = { .size_bytes = size,
		.headroom_bytes = headroom, .n_queues = n };
	struct aifab_qos_buf *b = malloc(aifab_qos_buf_memsize(n));
	const char *why = NULL;

	assert_non_null(b);
	assert_int_equal(aifab_qos_buf_init(b, &p, &why), 0);
	return b;
}

static void
set_dynamic(struct aifab_qos_buf *b, uint32_t q, uint32_t num, uint32_t den)
{
	struct aifab_qos_queue_params p = { .mode = AIFAB_QOS_LIMIT_DYNAMIC,
		.alpha_num = num, .alpha_den = den };
	const char *why = NULL;

	assert_int_equal(aifab_qos_buf_queue_config(b, q, &p, &why), 0);
}

/* Packets of @p len admitted to @p q until the first refusal. */
static unsigned int
fill(struct aifab_qos_buf *b, uint32_t q, uint32_t len, int *why)
{
	unsigned int n = 0;
	int rc;

	while ((rc = aifab_qos_buf_admit(b, q, len)) == AIFAB_QOS_ADMIT_SHARED)
		n++;
	*why = rc;
	return n;
}

static void
test_buf_static(void **state)
{
	struct aifab_qos_buf *b = buf_new(1000000, 0, 2);
	struct aifab_qos_queue_params p = { .mode = AIFAB_QOS_LIMIT_STATIC,
		.static_bytes = 10000 };
	const char *why = NULL;
	int rc;

	(void)state;
	assert_int_equal(aifab_qos_buf_queue_config(b, 0, &p, &why), 0);
	/* 6 x 1500 = 9000 <= 10000; the 7th would make 10500. */
	assert_int_equal(fill(b, 0, 1500, &rc), 6);
	assert_int_equal(rc, -AIFAB_QOS_DROP_QUEUE_LIMIT);
	assert_int_equal(aifab_qos_buf_limit(b, 0), 10000);
	/* 1000 more fits exactly. */
	assert_int_equal(aifab_qos_buf_admit(b, 0, 1000), 0);
	assert_int_equal(aifab_qos_buf_admit(b, 0, 1),
			 -AIFAB_QOS_DROP_QUEUE_LIMIT);
	assert_int_equal(b->used, 10000);

	/* Buffer full beats queue limits: q0 600 KB, q1 would take 600 KB. */
	p.static_bytes = 600000;
	aifab_qos_buf_queue_config(b, 0, &p, &why);
	aifab_qos_buf_queue_config(b, 1, &p, &why);
	assert_int_equal(fill(b, 0, 1000, &rc), 590);
	assert_int_equal(fill(b, 1, 1000, &rc), 400);
	assert_int_equal(rc, -AIFAB_QOS_DROP_BUFFER_FULL);
	assert_int_equal(b->used, 1000000);
	aifab_qos_buf_release(b, 1, 1000);
	assert_int_equal(b->q[1].shared, 399000);
	assert_int_equal(aifab_qos_buf_admit(b, 1, 1000), 0);
	free(b);
}

static void
test_buf_dynamic(void **state)
{
	/* alpha = 1, 1/2, 8: lone queue of 1000-byte packets in 1 MB. Admit
	 * while (k + 1) x 1000 <= alpha x (10^6 - k x 1000):
	 * alpha 1: k <= 499 -> 500 (half the buffer); alpha 1/2:
	 * 3k <= 998 -> 333; alpha 8: 9k <= 7999 -> 889. */
	static const struct { uint32_t num, den, want; } c[] = {
		{ 1, 1, 500 }, { 1, 2, 333 }, { 8, 1, 889 }, { 4, 8, 333 },
	};
	struct aifab_qos_buf *b = buf_new(1000000, 0, 2);
	unsigned int i, k, a = 0, bb = 0;
	int rc;

	(void)state;
	for (i = 0; i < RTE_DIM(c); i++) {
		unsigned int n;

		set_dynamic(b, 0, c[i].num, c[i].den);
		n = fill(b, 0, 1000, &rc);
		assert_int_equal(n, c[i].want);
		assert_int_equal(rc, -AIFAB_QOS_DROP_QUEUE_LIMIT);
		for (k = 0; k < n; k++)
			aifab_qos_buf_release(b, 0, 1000);
		assert_int_equal(b->used, 0);
		assert_int_equal(b->q[0].shared, 0);
	}
	/* Defaults are alpha 1: two greedy queues, alternating. A admits
	 * while 3k <= 999 (k = 0..333), B while 3k <= 998 (k = 0..332):
	 * 334 and 333, about a third each. */
	set_dynamic(b, 0, 1, 1);
	for (k = 0; k < 2000; k++) {
		a += aifab_qos_buf_admit(b, 0, 1000) == 0;
		bb += aifab_qos_buf_admit(b, 1, 1000) == 0;
	}
	assert_int_equal(a, 334);
	assert_int_equal(bb, 333);
	free(b);
}

static void
test_buf_headroom(void **state)
{
	struct aifab_qos_buf *b = buf_new(1000000, 5000, 2);
	struct aifab_qos_queue_params p = { .mode = AIFAB_QOS_LIMIT_STATIC,
		.static_bytes = 10000, .headroom_bytes = 3000 };
	const char *why = NULL;
	int rc, i;

	(void)state;
	assert_int_equal(aifab_qos_buf_queue_config(b, 0, &p, &why), 0);
	assert_int_equal(aifab_qos_buf_queue_config(b, 1, &p, &why), 0);
	assert_int_equal(fill(b, 0, 1000, &rc), 10);
	/* The 11th went to headroom; two more, then the allowance is used. */
	assert_int_equal(rc, AIFAB_QOS_ADMIT_HEADROOM);
	for (i = 0; i < 2; i++)
		assert_int_equal(aifab_qos_buf_admit(b, 0, 1000),
				 AIFAB_QOS_ADMIT_HEADROOM);
	assert_int_equal(aifab_qos_buf_admit(b, 0, 1000),
			 -AIFAB_QOS_DROP_HEADROOM_FULL);
	assert_int_equal(b->hr_used, 3000);
	/* q1: its allowance is 3000 but only 2000 of the pool is left. */
	assert_int_equal(fill(b, 1, 1000, &rc), 10);
	assert_int_equal(aifab_qos_buf_admit(b, 1, 1000),
			 AIFAB_QOS_ADMIT_HEADROOM);
	assert_int_equal(aifab_qos_buf_admit(b, 1, 1000),
			 -AIFAB_QOS_DROP_HEADROOM_FULL);
	assert_int_equal(b->hr_used, 5000);
	/* Release drains headroom first: q1 holds 2000 there, so the first
	 * 1500 all come from it, the next 1500 are 500 + 1000 shared. */
	aifab_qos_buf_release(b, 1, 1500);
	assert_int_equal(b->q[1].headroom, 500);
	assert_int_equal(b->q[1].shared, 10000);
	aifab_qos_buf_release(b, 1, 1500);
	assert_int_equal(b->q[1].headroom, 0);
	assert_int_equal(b->q[1].shared, 9000);
	assert_int_equal(b->hr_used, 3000);
	assert_int_equal(b->used, 19000);
	free(b);
}

static void
test_buf_bad_params(void **state)
{
	struct aifab_qos_buf *b = buf_new(1000, 100, 2);
	struct aifab_qos_buf_params bp = { .size_bytes = 1ull << 32,
		.n_queues = 1 };
	static const struct aifab_qos_queue_params bad[] = {
		{ .mode = AIFAB_QOS_LIMIT_STATIC, .static_bytes = 0 },
		{ .mode = AIFAB_QOS_LIMIT_DYNAMIC, .alpha_num = 1,
		  .alpha_den = 129 },
		{ .mode = AIFAB_QOS_LIMIT_DYNAMIC, .alpha_num = 9,
		  .alpha_den = 1 },
		{ .mode = AIFAB_QOS_LIMIT_DYNAMIC, .alpha_num = 1,
		  .alpha_den = 0 },
		{ .mode = 7, .static_bytes = 10 },
		{ .mode = AIFAB_QOS_LIMIT_STATIC, .static_bytes = 10,
		  .headroom_bytes = 101 },
	};
	struct aifab_qos_queue_params ok = { .mode = AIFAB_QOS_LIMIT_DYNAMIC,
		.alpha_num = 1, .alpha_den = 128 };
	const char *why;
	unsigned int i;

	(void)state;
	for (i = 0; i < RTE_DIM(bad); i++) {
		why = NULL;
		assert_int_equal(aifab_qos_buf_queue_config(b, 0, &bad[i],
							    &why), -EINVAL);
		assert_non_null(why);
	}
	assert_int_equal(aifab_qos_buf_queue_config(b, 2, &ok, &why), -EINVAL);
	assert_int_equal(aifab_qos_buf_queue_config(b, 1, &ok, &why), 0);
	/* 1/128 is exact in Q16. 1000 free x 1/128 = 7.8 -> 7. */
	assert_int_equal(b->q[1].alpha_q16, 512);
	assert_int_equal(aifab_qos_buf_limit(b, 1), 7);
	assert_int_equal(aifab_qos_buf_init(b, &bp, &why), -EINVAL);
	bp.size_bytes = 10;
	bp.n_queues = 0;
	assert_int_equal(aifab_qos_buf_init(b, &bp, &why), -EINVAL);
	free(b);
}

/* ---- ECN ----------------------------------------------------------------- */

static struct aifab_qos_ecn_cfg
ecn_cfg(uint32_t kmin, uint32_t kmax, double pmax, bool lossless)
{
	struct aifab_qos_ecn_params p = { .enabled = true,
		.lossless = lossless, .kmin_bytes = kmin, .kmax_bytes = kmax,
		.pmax_percent = pmax };
	struct aifab_qos_ecn_cfg c;
	const char *why = NULL;

	assert_int_equal(aifab_qos_ecn_config(&c, &p, &why), 0);
	return c;
}

static void
check_ramp(uint32_t kmin, uint32_t kmax, double pmax, const uint32_t *depth,
	   unsigned int n_depth)
{
	struct aifab_qos_ecn_cfg c = ecn_cfg(kmin, kmax, pmax, false);
	const unsigned int n = 200000;
	struct aifab_rng r;
	unsigned int i, k;

	aifab_rng_seed(&r, 0xEC0, kmin);
	for (i = 0; i < n_depth; i++) {
		double q = depth[i], p, sd;
		unsigned int marked = 0;

		/* The ramp, straight from PROTOCOLS.md. */
		if (q <= kmin)
			p = 0;
		else if (q > kmax)
			p = 1;
		else
			p = pmax / 100 * (q - kmin) / (kmax - kmin);
		for (k = 0; k < n; k++)
			marked += aifab_qos_ecn_decide(&c, depth[i],
				AIFAB_QOS_ECT0, &r) == AIFAB_QOS_ECN_MARK;
		sd = sqrt(n * p * (1 - p));
		/* 6 sigma, +1 for the 2^-32 rounding of the threshold. */
		if (fabs(marked - n * p) > 6 * sd + 1)
			fail_msg("kmin %u kmax %u pmax %g depth %u: %u marked, "
				 "expected %.1f +- %.1f", kmin, kmax, pmax,
				 depth[i], marked, n * p, 6 * sd + 1);
	}
}

static void
test_ecn_ramp_probability(void **state)
{
	static const uint32_t d1[] = { 0, 99999, 100000, 100001, 175000,
		250000, 325000, 399999, 400000, 400001, 5000000 };
	static const uint32_t d2[] = { 150000, 500000, 825000, 1500000,
		1500001 };
	static const uint32_t d3[] = { 400000, 700000, 1000000, 1600000 };

	(void)state;
	check_ramp(100000, 400000, 20, d1, RTE_DIM(d1));  /* coarse */
	check_ramp(150000, 1500000, 1.5, d2, RTE_DIM(d2)); /* Cumulus-like */
	check_ramp(400000, 1600000, 0.2, d3, RTE_DIM(d3)); /* HPCC 100G */
	check_ramp(5000, 5000, 50, (const uint32_t[]){ 4999, 5000, 5001 }, 3);
}

static void
test_ecn_codepoints(void **state)
{
	struct aifab_qos_ecn_cfg lossy = ecn_cfg(1000, 2000, 5, false);
	struct aifab_qos_ecn_cfg lossless = ecn_cfg(1000, 2000, 5, true);
	struct aifab_qos_ecn_params off = { .enabled = false,
		.kmin_bytes = 9, .kmax_bytes = 1 }; /* not checked when off */
	struct aifab_qos_ecn_cfg dis;
	struct aifab_rng r, before;
	const char *why = NULL;
	uint8_t dscp = 26 << 2;

	(void)state;
	assert_int_equal(aifab_qos_ecn_config(&dis, &off, &why), 0);
	aifab_rng_seed(&r, 1, 2);
	before = r;
	/* Above kmax every packet is selected, without a draw. */
	assert_int_equal(aifab_qos_ecn_decide(&lossy, 2001, dscp | 2, &r),
			 AIFAB_QOS_ECN_MARK);
	assert_int_equal(aifab_qos_ecn_decide(&lossy, 2001, dscp | 1, &r),
			 AIFAB_QOS_ECN_MARK);
	assert_int_equal(aifab_qos_ecn_decide(&lossy, 2001, dscp | 3, &r),
			 AIFAB_QOS_ECN_SELECTED);
	assert_int_equal(aifab_qos_ecn_decide(&lossy, 2001, dscp, &r),
			 AIFAB_QOS_ECN_DROP);
	assert_int_equal(aifab_qos_ecn_decide(&lossless, 2001, dscp, &r),
			 AIFAB_QOS_ECN_SELECTED);
	assert_int_equal(aifab_qos_ecn_decide(&lossless, 9999, dscp | 3, &r),
			 AIFAB_QOS_ECN_SELECTED);
	/* At or below kmin, and disabled: pass, no draw. */
	assert_int_equal(aifab_qos_ecn_decide(&lossy, 1000, dscp, &r),
			 AIFAB_QOS_ECN_PASS);
	assert_int_equal(aifab_qos_ecn_decide(&lossy, 0, dscp | 2, &r),
			 AIFAB_QOS_ECN_PASS);
	assert_int_equal(aifab_qos_ecn_decide(&dis, 1u << 30, dscp, &r),
			 AIFAB_QOS_ECN_PASS);
	assert_memory_equal(&r, &before, sizeof(r));
	/* In the ramp: exactly one draw per packet. */
	aifab_qos_ecn_decide(&lossy, 1500, dscp | 2, &r);
	aifab_rng_u32(&before);
	assert_memory_equal(&r, &before, sizeof(r));
}

static void
test_ecn_config(void **state)
{
	static const struct aifab_qos_ecn_params bad[] = {
		{ .enabled = true, .kmin_bytes = 2, .kmax_bytes = 1 },
		{ .enabled = true, .kmax_bytes = 1, .pmax_percent = 100.01 },
		{ .enabled = true, .kmax_bytes = 1, .pmax_percent = -0.5 },
		{ .enabled = true, .kmax_bytes = 1, .pmax_percent = NAN },
	};
	struct aifab_qos_ecn_cfg c;
	const char *why;
	unsigned int i;

	(void)state;
	for (i = 0; i < RTE_DIM(bad); i++) {
		why = NULL;
		assert_int_equal(aifab_qos_ecn_config(&c, &bad[i], &why),
				 -EINVAL);
		assert_non_null(why);
	}
	/* Threshold is pmax x 2^32: 50 % = 2^31, 100 % clamps, 0.2 % =
	 * 8589934.592 -> 8589935. */
	assert_int_equal(ecn_cfg(0, 1, 50, false).pmax_thr, 1u << 31);
	assert_int_equal(ecn_cfg(0, 1, 100, false).pmax_thr, UINT32_MAX);
	assert_int_equal(ecn_cfg(0, 1, 0.2, false).pmax_thr, 8589935);
	assert_int_equal(ecn_cfg(0, 1, 0, false).pmax_thr, 0);
}

static void
test_ecn_set_ce(void **state)
{
	/* PROTOCOLS.md vector: DSCP 26 ECT(0), checksum 0x6644. Marked
	 * (scapy): TOS 0x6b, checksum 0x6643. */
	static const uint8_t v4[20] = {
		0x45, 0x6a, 0x00, 0x3c, 0x00, 0x01, 0x00, 0x00, 0x40, 0x11,
		0x66, 0x44, 0x0a, 0x00, 0x00, 0x01, 0x0a, 0x00, 0x00, 0x02 };
	/* scapy IPv6(tc=0x6a/0x69/0x6b, fl=0x12345) first 4 bytes. */
	static const uint8_t v6_ect0[4] = { 0x66, 0xa1, 0x23, 0x45 };
	static const uint8_t v6_ect1[4] = { 0x66, 0x91, 0x23, 0x45 };
	static const uint8_t v6_ce[4] = { 0x66, 0xb1, 0x23, 0x45 };
	uint8_t h[40], want[20];
	struct rte_ipv4_hdr *ip = (struct rte_ipv4_hdr *)h;
	uint16_t ck;

	(void)state;
	memcpy(h, v4, 20);
	memcpy(want, v4, 20);
	want[1] = 0x6b;
	want[11] = 0x43;
	assert_true(aifab_qos_ecn_set_ce(h));
	assert_memory_equal(h, want, 20);
	/* Again: CE stays, nothing changes. */
	assert_false(aifab_qos_ecn_set_ce(h));
	assert_memory_equal(h, want, 20);
	/* ECT(1) -> CE, checksum against DPDK's full computation. */
	memcpy(h, v4, 20);
	h[1] = 0x69;
	ip->hdr_checksum = 0;
	ip->hdr_checksum = rte_ipv4_cksum(ip);
	assert_true(aifab_qos_ecn_set_ce(h));
	assert_int_equal(h[1], 0x6b);
	ck = ip->hdr_checksum;
	ip->hdr_checksum = 0;
	assert_int_equal(ck, rte_ipv4_cksum(ip));
	/* Not-ECT is never changed. */
	memcpy(h, v4, 20);
	h[1] = 0x68;
	memcpy(want, h, 20);
	assert_false(aifab_qos_ecn_set_ce(h));
	assert_memory_equal(h, want, 20);

	memset(h, 0, sizeof(h));
	memcpy(h, v6_ect0, 4);
	assert_true(aifab_qos_ecn_set_ce(h));
	assert_memory_equal(h, v6_ce, 4);
	assert_false(aifab_qos_ecn_set_ce(h));
	memcpy(h, v6_ect1, 4);
	assert_true(aifab_qos_ecn_set_ce(h));
	assert_memory_equal(h, v6_ce, 4);
	h[1] = 0x81; /* tc 0x68: Not-ECT */
	assert_false(aifab_qos_ecn_set_ce(h));
	assert_int_equal(h[1], 0x81);
	h[0] = 0x00; /* not IP */
	assert_false(aifab_qos_ecn_set_ce(h));
}

/* ---- shaper -------------------------------------------------------------- */

static struct aifab_qos_shaper_cfg
shaper_cfg(uint64_t mbps, uint64_t hz, uint32_t max_frame, uint32_t burst)
{
	struct aifab_qos_shaper_params p = { .rate_mbps = mbps, .tsc_hz = hz,
		.max_frame = max_frame, .burst_bytes = burst };
	struct aifab_qos_shaper_cfg c;
	const char *why = NULL;

	assert_int_equal(aifab_qos_shaper_config(&c, &p, &why), 0);
	return c;
}

/*
 * Always backlogged, polls every 0-2 us of virtual time for 1 s, mixed
 * frame sizes, starting with a full bucket. As the bucket never overflows
 * (burst covers a 2 us gap plus a frame), the wire bytes S sent between
 * the first and the last poll, T cycles apart, satisfy
 *   rate x T + burst - (max_frame + 24) < S <= rate x T + burst.
 */
static void
check_rate(uint64_t mbps, uint64_t hz, uint32_t burst, uint64_t seed)
{
	struct aifab_qos_shaper_cfg c = shaper_cfg(mbps, hz, 1514, burst);
	struct aifab_qos_shaper s;
	struct aifab_rng r;
	uint64_t now = 1000, t0 = now, sent = 0, gap_max = hz / 500000;
	uint32_t len;
	u128 lhs, hi, lo;
	double rel;

	aifab_rng_seed(&r, seed, mbps);
	aifab_qos_shaper_init(&c, &s, now);
	len = 60 + aifab_rng_below(&r, 1455);
	for (;;) {
		aifab_qos_shaper_update(&c, &s, now);
		while (aifab_qos_shaper_ready(&c, &s)) {
			aifab_qos_shaper_consume(&c, &s, len);
			sent += len + 24;
			len = 60 + aifab_rng_below(&r, 1455);
		}
		if (now - t0 >= hz)
			break;
		now += 1 + aifab_rng_below(&r, (uint32_t)gap_max);
	}
	/* Compare in bits x tsc_hz, exactly. */
	lhs = (u128)sent * 8 * hz;
	hi = (u128)mbps * 1000000 * (now - t0) + (u128)burst * 8 * hz;
	lo = hi - (u128)(1514 + 24) * 8 * hz;
	assert_true(lhs <= hi);
	assert_true(lhs > lo);
	rel = (double)sent * 8 * hz / ((double)mbps * 1e6 * (now - t0)) - 1;
	if (fabs(rel) > 1e-4) /* 0.01 %, ten times tighter than asked */
		fail_msg("%" PRIu64 " Mbit/s at %" PRIu64 " Hz: off by %g",
			 mbps, hz, rel);
}

static void
test_shaper_rate(void **state)
{
	(void)state;
	check_rate(10000, 2500000000ull, 16384, 1);
	check_rate(25000, 2194843117ull, 16384, 2);   /* gcd 1 */
	check_rate(100000, 3000000007ull, 65536, 3);
	check_rate(1000, 1999999999ull, 4096, 4);
}

/*
 * 3 Mbit/s at 1 GHz: a byte takes 8000/3 cycles. After draining the bucket,
 * the k-th 100-byte frame (124 wire bytes) may go at ceil(k x 992000 / 3):
 * 330667, 661334, 992000. Rounding each frame up on its own would give
 * 992001 for the third; the shaper keeps the remainder. Updated every cycle.
 */
static void
test_shaper_exact_times(void **state)
{
	struct aifab_qos_shaper_cfg c = shaper_cfg(3, 1000000000, 100, 248);
	static const uint64_t want[] = { 330667, 661334, 992000 };
	struct aifab_qos_shaper s;
	uint64_t t0 = 5000000, now;
	unsigned int k = 0;

	(void)state;
	aifab_qos_shaper_init(&c, &s, t0);
	assert_true(aifab_qos_shaper_conform(&c, &s, 100));
	assert_true(aifab_qos_shaper_conform(&c, &s, 100));
	assert_false(aifab_qos_shaper_conform(&c, &s, 100));
	for (now = t0 + 1; k < RTE_DIM(want); now++) {
		aifab_qos_shaper_update(&c, &s, now);
		if (aifab_qos_shaper_conform(&c, &s, 100)) {
			assert_int_equal(now - t0, want[k]);
			k++;
		}
	}
	/* A clock that goes back earns nothing. */
	aifab_qos_shaper_update(&c, &s, t0);
	assert_false(aifab_qos_shaper_conform(&c, &s, 1));
}

/*
 * Bursty arrivals with idle gaps: for every window [a, b] between two polls
 * that sent, the bytes sent in it are at most burst + rate x (b - a).
 */
static void
test_shaper_burst_bound(void **state)
{
	enum { N_POLL = 4000 };
	const uint64_t hz = 2000000000, mbps = 10000;
	const uint32_t burst = 8192;
	struct aifab_qos_shaper_cfg c = shaper_cfg(mbps, hz, 1514, burst);
	static uint64_t t[N_POLL], bytes[N_POLL + 1]; /* bytes: prefix sums */
	struct aifab_qos_shaper s;
	uint64_t now = 123456789, sent;
	unsigned int i, j, backlog = 0;
	struct aifab_rng r;

	(void)state;
	aifab_rng_seed(&r, 99, 0);
	aifab_qos_shaper_init(&c, &s, now);
	/* Long idle, then a big backlog at one instant: at most one bucket. */
	now += 10 * hz;
	aifab_qos_shaper_update(&c, &s, now);
	for (sent = 0; aifab_qos_shaper_ready(&c, &s); sent += 1024)
		aifab_qos_shaper_consume(&c, &s, 1000);
	assert_true(sent <= burst && sent > burst - 1538);

	bytes[0] = 0;
	for (i = 0; i < N_POLL; i++) {
		/* Sometimes idle for up to 20 us, usually 0.5 us. */
		now += aifab_rng_below(&r, 8) == 0 ?
			aifab_rng_below(&r, 40000) : 1000;
		backlog += aifab_rng_below(&r, 4);
		aifab_qos_shaper_update(&c, &s, now);
		sent = 0;
		while (backlog > 0 && aifab_qos_shaper_ready(&c, &s)) {
			uint32_t len = 60 + aifab_rng_below(&r, 1455);

			aifab_qos_shaper_consume(&c, &s, len);
			sent += len + 24;
			backlog--;
		}
		t[i] = now;
		bytes[i + 1] = bytes[i] + sent;
	}
	for (i = 0; i < N_POLL; i++)
		for (j = i; j < N_POLL; j++) {
			u128 got = (u128)(bytes[j + 1] - bytes[i]) * 8 * hz;
			u128 cap = (u128)burst * 8 * hz +
				(u128)mbps * 1000000 * (t[j] - t[i]);

			if (got > cap)
				fail_msg("polls %u..%u sent %" PRIu64 " bytes",
					 i, j, bytes[j + 1] - bytes[i]);
		}
}

static void
test_shaper_bad_params(void **state)
{
	static const struct aifab_qos_shaper_params bad[] = {
		{ 0, 2000000000, 1514, 4096 },
		{ 10000001, 2000000000, 1514, 4096 },
		{ 10000, 0, 1514, 4096 },
		{ 10000, 1ull << 35, 1514, 4096 },
		{ 10000, 2000000000, 59, 4096 },
		{ 10000, 2000000000, 1514, 1537 },      /* < max frame + 24 */
		{ 10000, 2000000000, 1514, (1u << 26) + 1 },
	};
	struct aifab_qos_shaper_cfg c;
	const char *why;
	unsigned int i;

	(void)state;
	for (i = 0; i < RTE_DIM(bad); i++) {
		why = NULL;
		assert_int_equal(aifab_qos_shaper_config(&c, &bad[i], &why),
				 -EINVAL);
		assert_non_null(why);
	}
	/* Largest legal: 10 Tbit/s, 2^34 Hz, 64 MiB bucket, no overflow. */
	c = shaper_cfg(10000000, 1ull << 34, 65535, 1u << 26);
	assert_true(c.depth > 0 && c.dt_full > 0);
}

/* ---- scheduler ----------------------------------------------------------- */

static struct aifab_qos_sched_cfg
sched_cfg(uint8_t strict, const uint16_t *w, uint32_t quantum)
{
	struct aifab_qos_sched_params p = { .strict_mask = strict,
		.quantum_bytes = quantum };
	struct aifab_qos_sched_cfg c;
	const char *why = NULL;

	memcpy(p.weight, w, sizeof(p.weight));
	assert_int_equal(aifab_qos_sched_config(&c, &p, &why), 0);
	return c;
}

static void
test_sched_strict(void **state)
{
	static const uint16_t w[8] = { 1, 1, 1, 1, 1, 1, 0, 0 };
	struct aifab_qos_sched_cfg c = sched_cfg(0xC0, w, 1500);
	uint32_t len[8] = { 100, 100, 100, 100, 100, 100, 100, 100 };
	unsigned int left[8], i, tc;
	struct aifab_qos_sched s;
	uint8_t nonempty;
	int got;

	(void)state;
	aifab_qos_sched_init(&c, &s);
	for (tc = 0; tc < 8; tc++)
		left[tc] = 50;
	/* TC7 drains first, then TC6, only then anything else. */
	for (i = 0; i < 100; i++) {
		nonempty = 0;
		for (tc = 0; tc < 8; tc++)
			nonempty |= (uint8_t)((left[tc] > 0) << tc);
		got = aifab_qos_sched_next(&c, &s, nonempty, 0xFF, len);
		assert_int_equal(got, i < 50 ? 7 : 6);
		left[got]--;
	}
	got = aifab_qos_sched_next(&c, &s, 0x3F, 0xFF, len);
	assert_true(got >= 0 && got < 6);
	/* A strict TC that stays busy starves the rest. */
	for (i = 0; i < 10000; i++)
		assert_int_equal(aifab_qos_sched_next(&c, &s, 0xFF, 0xFF, len),
				 7);
	/* Paused by PFC: skipped, the next strict TC runs, then DWRR. */
	assert_int_equal(aifab_qos_sched_next(&c, &s, 0xFF, 0x7F, len), 6);
	got = aifab_qos_sched_next(&c, &s, 0xFF, 0x3F, len);
	assert_true(got >= 0 && got < 6);
	assert_int_equal(aifab_qos_sched_next(&c, &s, 0xFF, 0x00, len), -1);
	assert_int_equal(aifab_qos_sched_next(&c, &s, 0x00, 0xFF, len), -1);
}

/*
 * All listed TCs backlogged; each draws its packet sizes from its own
 * range. Over many rounds each TC's byte share must match weight / sum of
 * the weights of the TCs that may send.
 */
static void
run_dwrr(const uint16_t *w, uint8_t busy, uint8_t eligible,
	 const uint32_t *lo, const uint32_t *hi, unsigned int picks)
{
	struct aifab_qos_sched_cfg c = sched_cfg(0, w, 1500);
	uint64_t bytes[8] = { 0 }, total = 0;
	unsigned int i, tc, wsum = 0;
	struct aifab_qos_sched s;
	struct aifab_rng r;
	uint32_t len[8];

	aifab_rng_seed(&r, 42, busy);
	aifab_qos_sched_init(&c, &s);
	for (tc = 0; tc < 8; tc++) {
		len[tc] = lo[tc] + aifab_rng_below(&r, hi[tc] - lo[tc] + 1);
		if (busy & eligible & (1u << tc))
			wsum += w[tc];
	}
	for (i = 0; i < picks; i++) {
		int got = aifab_qos_sched_next(&c, &s, busy, eligible, len);

		assert_true(got >= 0 && (busy & eligible & (1u << got)));
		bytes[got] += len[got];
		total += len[got];
		len[got] = lo[got] + aifab_rng_below(&r,
						     hi[got] - lo[got] + 1);
	}
	for (tc = 0; tc < 8; tc++) {
		double want = (busy & eligible & (1u << tc)) ?
			(double)w[tc] / wsum : 0;
		double share = (double)bytes[tc] / total;

		if (fabs(share - want) > 0.01 * want)
			fail_msg("TC %u: share %.4f, weight share %.4f", tc,
				 share, want);
	}
}

static void
test_sched_dwrr_shares(void **state)
{
	static const uint16_t w[8] = { 1, 2, 3, 4, 1, 5, 1, 1 };
	static const uint32_t lo[8] = { 64, 1000, 64, 500, 64, 64, 64, 64 };
	static const uint32_t hi[8] = { 200, 1500, 1500, 1500, 9000, 1500,
		1500, 1500 };

	(void)state;
	/* TCs 0-3, weights 1:2:3:4, small vs large packets. */
	run_dwrr(w, 0x0F, 0xFF, lo, hi, 200000);
	/* Six TCs, one with jumbo frames above the quantum. */
	run_dwrr(w, 0x3F, 0xFF, lo, hi, 300000);
	/* TC1 and TC3 paused: never picked, the rest share 1:3:1:5. */
	run_dwrr(w, 0x3F, 0xF5, lo, hi, 200000);
}

/*
 * DRR keeps a TC's unused deficit only while it stays backlogged. Weights
 * 1, quantum 1500, hand-traced:
 *  1. TC0 {100}, TC1 {1500}: TC0 gets 1500, sends 100 (1400 left).
 *  2. TC0 empty: its 1400 is dropped; TC1 gets 1500, sends 1500.
 *  3. TC0 now sends 1000s: gets 1500, sends one (500 left) ...
 *  4. ... 500 < 1000, so TC1's turn. (Kept credit would give TC0 2900
 *     at step 3 and TC0 again at step 4.) Same for a paused TC (5-7).
 */
/*
 * aifab_qos_sched_alone() (the inline case: one ready TC, the DWRR one
 * being served) against aifab_qos_sched_next() over random steps of
 * mixed strict / DWRR configurations with small quanta (several grants
 * per frame): where it answers, the same TC and the same scheduler
 * state after; where it declines, nothing changed.
 */
static void
test_sched_alone(void **state)
{
	static const uint16_t w[8] = { 1, 3, 2, 1, 5, 1, 2, 4 };
	static const uint8_t strict[] = { 0, 0x80, 0xC1 };
	struct aifab_qos_fifo *q[AIFAB_QOS_N_TC];
	unsigned int k, i, tc, hits = 0, declined = 0;
	struct aifab_rng r;

	(void)state;
	aifab_rng_seed(&r, 11, 0);
	for (tc = 0; tc < AIFAB_QOS_N_TC; tc++)
		q[tc] = fifo_new(4);
	for (k = 0; k < RTE_DIM(strict); k++) {
		struct aifab_qos_sched_cfg c = sched_cfg(strict[k], w, 300);
		struct aifab_qos_sched a, b, before;

		aifab_qos_sched_init(&c, &a);
		b = a;
		for (i = 0; i < 20000; i++) {
			uint32_t len[8] = { 0 };
			uint8_t ne, el;
			int ref, got;

			/* often the TC being served alone, or another one
			 * alone, sometimes several */
			switch (aifab_rng_below(&r, 4)) {
			case 0:
			case 1:
				ne = (uint8_t)(1u << b.cur);
				break;
			case 2:
				ne = (uint8_t)(1u << aifab_rng_below(&r, 8));
				break;
			default:
				ne = (uint8_t)aifab_rng_below(&r, 256);
			}
			el = aifab_rng_below(&r, 8) != 0 ? 0xFF :
				(uint8_t)aifab_rng_below(&r, 256);
			for (tc = 0; tc < AIFAB_QOS_N_TC; tc++) {
				while (aifab_qos_fifo_count(q[tc]) != 0)
					(void)aifab_qos_fifo_dequeue(q[tc]);
				q[tc]->bytes = 0;
				if (!(ne & (1u << tc)))
					continue;
				mbufs[tc].pkt_len = 64 +
					aifab_rng_below(&r, 9000);
				assert_int_equal(aifab_qos_fifo_enqueue(
					q[tc], &mbufs[tc]), 0);
				len[tc] = mbufs[tc].pkt_len + 24;
			}
			before = b;
			got = aifab_qos_sched_alone(&c, &b, ne, el, q, 24);
			ref = aifab_qos_sched_next(&c, &a, ne, el, len);
			if (got < 0) {
				assert_memory_equal(&b, &before, sizeof(b));
				declined++;
				b = a;
				continue;
			}
			hits++;
			assert_int_equal(got, ref);
			assert_memory_equal(&b, &a, sizeof(a));
		}
	}
	/* both ways taken, often */
	print_message("aifab_qos_sched_alone(): %u answered, %u declined\n",
		      hits, declined);
	assert_true(hits > 10000 && declined > 10000);
	for (tc = 0; tc < AIFAB_QOS_N_TC; tc++)
		free(q[tc]);
}

static void
test_sched_idle_loses_credit(void **state)
{
	static const uint16_t w[8] = { 1, 1, 1, 1, 1, 1, 1, 1 };
	struct aifab_qos_sched_cfg c = sched_cfg(0, w, 1500);
	uint32_t a[8] = { 100, 1500 }, b[8] = { 1000, 1500 };
	struct aifab_qos_sched s;

	(void)state;
	aifab_qos_sched_init(&c, &s);
	assert_int_equal(aifab_qos_sched_next(&c, &s, 0x3, 0xFF, a), 0);
	assert_int_equal(aifab_qos_sched_next(&c, &s, 0x2, 0xFF, a), 1);
	assert_int_equal(aifab_qos_sched_next(&c, &s, 0x3, 0xFF, b), 0);
	assert_int_equal(aifab_qos_sched_next(&c, &s, 0x3, 0xFF, b), 1);
	/* 5. TC0 gets 1500, sends 100; 6. paused, loses 1400; 7. as 3-4. */
	assert_int_equal(aifab_qos_sched_next(&c, &s, 0x3, 0xFF, a), 0);
	assert_int_equal(aifab_qos_sched_next(&c, &s, 0x3, 0xFE, a), 1);
	assert_int_equal(aifab_qos_sched_next(&c, &s, 0x3, 0xFF, b), 0);
	assert_int_equal(aifab_qos_sched_next(&c, &s, 0x3, 0xFF, b), 1);
}

static void
test_sched_bad_params(void **state)
{
	static const uint16_t ok[8] = { 1, 1, 1, 1, 1, 1, 1, 1 };
	static const uint16_t zero[8] = { 1, 0, 1, 1, 1, 1, 1, 1 };
	static const uint16_t big[8] = { 1, 1025, 1, 1, 1, 1, 1, 1 };
	struct aifab_qos_sched_params p = { .quantum_bytes = 1500 };
	struct aifab_qos_sched_cfg c;
	const char *why = NULL;

	(void)state;
	memcpy(p.weight, zero, sizeof(p.weight));
	assert_int_equal(aifab_qos_sched_config(&c, &p, &why), -EINVAL);
	/* ... unless that TC is strict. */
	p.strict_mask = 0x02;
	assert_int_equal(aifab_qos_sched_config(&c, &p, &why), 0);
	memcpy(p.weight, big, sizeof(p.weight));
	assert_int_equal(aifab_qos_sched_config(&c, &p, &why), 0);
	p.strict_mask = 0;
	assert_int_equal(aifab_qos_sched_config(&c, &p, &why), -EINVAL);
	memcpy(p.weight, ok, sizeof(p.weight));
	p.quantum_bytes = 63;
	why = NULL;
	assert_int_equal(aifab_qos_sched_config(&c, &p, &why), -EINVAL);
	assert_non_null(why);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_classify),
		cmocka_unit_test(test_counter_names),
		cmocka_unit_test(test_fifo_wrap_hwm),
		cmocka_unit_test(test_buf_static),
		cmocka_unit_test(test_buf_dynamic),
		cmocka_unit_test(test_buf_headroom),
		cmocka_unit_test(test_buf_bad_params),
		cmocka_unit_test(test_ecn_ramp_probability),
		cmocka_unit_test(test_ecn_codepoints),
		cmocka_unit_test(test_ecn_config),
		cmocka_unit_test(test_ecn_set_ce),
		cmocka_unit_test(test_shaper_rate),
		cmocka_unit_test(test_shaper_exact_times),
		cmocka_unit_test(test_shaper_burst_bound),
		cmocka_unit_test(test_shaper_bad_params),
		cmocka_unit_test(test_sched_strict),
		cmocka_unit_test(test_sched_dwrr_shares),
		cmocka_unit_test(test_sched_idle_loses_credit),
		cmocka_unit_test(test_sched_alone),
		cmocka_unit_test(test_sched_bad_params),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
