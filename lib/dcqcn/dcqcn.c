/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * DCQCN reaction point (rate cut on CNP, alpha decay, fast recovery /
 * additive / hyper increase on timer and byte counter) and notification
 * point (CNP pacing per QP). See aifab_dcqcn.h for the rules.
 */
#include <errno.h>
#include <math.h>
#include <string.h>

#include <rte_common.h>

#include "aifab_dcqcn.h"

#define NS_PER_S 1000000000ull
#define MAX_TSC_HZ 10000000000ull
/* Longest timer or CNP interval: an hour (keeps TSC values far from wrap). */
#define MAX_PERIOD_NS (3600 * NS_PER_S)
/* Beyond this many alpha periods at once, use pow() instead of a loop. */
#define ALPHA_LOOP_MAX 64

#define RP_NAME(e, s) [AIFAB_DCQCN_RP_CNT_##e] = s,
static const char *const rp_names[] = { AIFAB_DCQCN_RP_COUNTERS(RP_NAME) };
#undef RP_NAME
#define NP_NAME(e, s) [AIFAB_DCQCN_NP_CNT_##e] = s,
static const char *const np_names[] = { AIFAB_DCQCN_NP_COUNTERS(NP_NAME) };
#undef NP_NAME

const char *
aifab_dcqcn_rp_cnt_name(enum aifab_dcqcn_rp_cnt c)
{
	return (unsigned int)c < AIFAB_DCQCN_RP_CNT_MAX ? rp_names[c] :
		"unknown";
}

const char *
aifab_dcqcn_np_cnt_name(enum aifab_dcqcn_np_cnt c)
{
	return (unsigned int)c < AIFAB_DCQCN_NP_CNT_MAX ? np_names[c] :
		"unknown";
}

void
aifab_dcqcn_params_default(struct aifab_dcqcn_params *p, double line_mbps,
			   uint64_t tsc_hz)
{
	*p = (struct aifab_dcqcn_params){
		.tsc_hz = tsc_hz,
		.line_rate_mbps = line_mbps,
		.min_rate_mbps = RTE_MIN(AIFAB_DCQCN_DEF_MIN_RATE_MBPS,
					 line_mbps),
		.g = AIFAB_DCQCN_DEF_G,
		.alpha_init = AIFAB_DCQCN_DEF_ALPHA_INIT,
		.rai_mbps = AIFAB_DCQCN_DEF_RAI_MBPS,
		.rhai_mbps = AIFAB_DCQCN_DEF_RHAI_MBPS,
		.alpha_period_ns = AIFAB_DCQCN_DEF_ALPHA_PERIOD_NS,
		.rate_period_ns = AIFAB_DCQCN_DEF_RATE_PERIOD_NS,
		.byte_counter = AIFAB_DCQCN_DEF_BYTE_COUNTER,
		.f = AIFAB_DCQCN_DEF_F,
		.cnp_interval_ns = AIFAB_DCQCN_DEF_CNP_INTERVAL_NS,
	};
}

/* ns to TSC, exact in 64 bits for any TSC up to MAX_TSC_HZ. */
static uint64_t
ns_to_tsc(uint64_t ns, uint64_t hz)
{
	return ns / NS_PER_S * hz + ns % NS_PER_S * hz / NS_PER_S;
}

static bool
params_ok(const struct aifab_dcqcn_params *p)
{
	/* Written so that NaN fails every test. */
	return p->tsc_hz > 0 && p->tsc_hz <= MAX_TSC_HZ &&
	       p->line_rate_mbps > 0 && isfinite(p->line_rate_mbps) &&
	       p->min_rate_mbps > 0 && p->min_rate_mbps <= p->line_rate_mbps &&
	       p->g > 0 && p->g <= 1 &&
	       p->alpha_init >= 0 && p->alpha_init <= 1 &&
	       p->rai_mbps >= 0 && isfinite(p->rai_mbps) &&
	       p->rhai_mbps >= 0 && isfinite(p->rhai_mbps) &&
	       p->alpha_period_ns > 0 && p->rate_period_ns > 0 &&
	       p->alpha_period_ns <= MAX_PERIOD_NS &&
	       p->rate_period_ns <= MAX_PERIOD_NS &&
	       p->cnp_interval_ns <= MAX_PERIOD_NS && p->f >= 1;
}

int
aifab_dcqcn_conf_init(struct aifab_dcqcn_conf *c,
		      const struct aifab_dcqcn_params *p)
{
	if (!params_ok(p))
		return -EINVAL;
	*c = (struct aifab_dcqcn_conf){
		.line = p->line_rate_mbps,
		.min = p->min_rate_mbps,
		.g = p->g,
		.alpha_init = p->alpha_init,
		.rai = p->rai_mbps,
		.rhai = p->rhai_mbps,
		.alpha_period = RTE_MAX(ns_to_tsc(p->alpha_period_ns,
						  p->tsc_hz), 1ull),
		.rate_period = RTE_MAX(ns_to_tsc(p->rate_period_ns,
						 p->tsc_hz), 1ull),
		.cnp_interval = ns_to_tsc(p->cnp_interval_ns, p->tsc_hz),
		.byte_counter = p->byte_counter,
		.f = p->f,
	};
	return 0;
}

void
aifab_dcqcn_rp_init(const struct aifab_dcqcn_conf *c,
		    struct aifab_dcqcn_rp *rp, uint64_t now)
{
	memset(rp, 0, sizeof(*rp));
	rp->rc = c->line;
	rp->rt = c->line;
	rp->min_rc = c->line;
	rp->alpha = c->alpha_init;
	rp->alpha_start = now;
	rp->rate_start = now;
}

/*
 * Whole periods elapsed since *@p start by @p now (0 if now is earlier):
 * *@p start moves on by that many periods and *@p events counts them.
 */
static uint64_t
take_periods(uint64_t *start, uint64_t period, uint64_t now,
	     uint64_t *events)
{
	uint64_t d = now - *start, n;

	/* Most calls (one per packet sent) are within the period: no
	 * division, nothing written (the counter's line untouched). */
	if ((int64_t)d <= 0 || d < period)
		return 0;
	n = d / period;
	*start += n * period;
	*events += n;
	return n;
}

/* @p n alpha periods without a CNP: alpha decays n times. */
static void
decay_alpha(const struct aifab_dcqcn_conf *c, struct aifab_dcqcn_rp *rp,
	    uint64_t n)
{
	uint64_t i;

	if (n <= ALPHA_LOOP_MAX)
		for (i = 0; i < n; i++)
			rp->alpha *= 1 - c->g;
	else
		rp->alpha *= pow(1 - c->g, (double)n);
}

/* One increase step after T or B counted. @return whether Rc or Rt moved. */
static bool
increase(const struct aifab_dcqcn_conf *c, struct aifab_dcqcn_rp *rp)
{
	uint32_t hi = RTE_MAX(rp->t, rp->b), lo = RTE_MIN(rp->t, rp->b);
	double rc = rp->rc, rt = rp->rt;

	if (hi <= c->f) {
		rp->cnt[AIFAB_DCQCN_RP_CNT_FAST_RECOVERY]++;
	} else if (lo > c->f) {
		rp->rt += (double)(lo - c->f) * c->rhai;
		rp->cnt[AIFAB_DCQCN_RP_CNT_HYPER]++;
	} else {
		rp->rt += c->rai;
		rp->cnt[AIFAB_DCQCN_RP_CNT_ADDITIVE]++;
	}
	rp->rt = RTE_MIN(rp->rt, c->line);
	rp->rc = RTE_MIN((rp->rt + rp->rc) / 2, c->line);
	return rp->rc != rc || rp->rt != rt;
}

/* @p n rate timer events: T counts each, each an increase step. */
static void
rate_timer_events(const struct aifab_dcqcn_conf *c,
		  struct aifab_dcqcn_rp *rp, uint64_t n)
{
	uint64_t i;

	for (i = 0; i < n; i++) {
		if (rp->t < UINT32_MAX)
			rp->t++;
		/* Pinned at line rate: the rest would change nothing. */
		if (!increase(c, rp) && rp->rt == c->line) {
			rp->t = (uint32_t)RTE_MIN(rp->t + (n - i - 1),
						  (uint64_t)UINT32_MAX);
			break;
		}
	}
}

double
aifab_dcqcn_rp_poll(const struct aifab_dcqcn_conf *c,
		    struct aifab_dcqcn_rp *rp, uint64_t now)
{
	uint64_t decays, events;

	decays = take_periods(&rp->alpha_start, c->alpha_period, now,
			      &rp->cnt[AIFAB_DCQCN_RP_CNT_ALPHA_DECAYS]);
	events = take_periods(&rp->rate_start, c->rate_period, now,
			      &rp->cnt[AIFAB_DCQCN_RP_CNT_TIMER_EVENTS]);
	decay_alpha(c, rp, decays);
	rate_timer_events(c, rp, events);
	return rp->rc;
}

void
aifab_dcqcn_rp_on_cnp(const struct aifab_dcqcn_conf *c,
		      struct aifab_dcqcn_rp *rp, uint64_t now)
{
	double rc;

	aifab_dcqcn_rp_poll(c, rp, now);
	rp->cnt[AIFAB_DCQCN_RP_CNT_CNP_RX]++;
	rp->rt = rp->rc;
	rc = RTE_MAX(rp->rc * (1 - rp->alpha / 2), c->min);
	if (rc < rp->rc)
		rp->cnt[AIFAB_DCQCN_RP_CNT_RATE_CUTS]++;
	rp->rc = rc;
	rp->min_rc = RTE_MIN(rp->min_rc, rc);
	rp->alpha = (1 - c->g) * rp->alpha + c->g;
	rp->t = 0;
	rp->b = 0;
	rp->bytes = 0;
	rp->alpha_start = now;
	rp->rate_start = now;
}

void
aifab_dcqcn_rp_on_bytes_sent(const struct aifab_dcqcn_conf *c,
			     struct aifab_dcqcn_rp *rp, uint32_t n,
			     uint64_t now)
{
	aifab_dcqcn_rp_poll(c, rp, now);
	if (c->byte_counter == 0)
		return;
	rp->bytes += n;
	while (rp->bytes >= c->byte_counter) {
		rp->bytes -= c->byte_counter;
		if (rp->b < UINT32_MAX)
			rp->b++;
		rp->cnt[AIFAB_DCQCN_RP_CNT_BYTE_EVENTS]++;
		increase(c, rp);
	}
}

void
aifab_dcqcn_np_init(struct aifab_dcqcn_np *np)
{
	memset(np, 0, sizeof(*np));
}

bool
aifab_dcqcn_np_on_ce(const struct aifab_dcqcn_conf *c,
		     struct aifab_dcqcn_np *np, uint64_t now)
{
	np->cnt[AIFAB_DCQCN_NP_CNT_CE_RX]++;
	if (np->sent && (int64_t)(now - np->last_cnp) <
	    (int64_t)c->cnp_interval) {
		np->cnt[AIFAB_DCQCN_NP_CNT_CNP_SUPPRESSED]++;
		return false;
	}
	np->sent = true;
	np->last_cnp = now;
	np->cnt[AIFAB_DCQCN_NP_CNT_CNP_TX]++;
	return true;
}
