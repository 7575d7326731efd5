/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The ecn recipe (docs/lab.md "ecn"): load steps of `loads` percent of
 * dut_rate_gbps for step_ms each, gap_ms apart, ECT frames; per step the
 * frames back, CE-marked, and their one-way latency. Each returned frame's
 * queueing delay (its latency - the smallest) x the DUT's rate is the
 * queue depth it met: the marking per depth bin gives Kmin, Kmax and Pmax
 * (lib/verdict). The verdict: every step got frames back, and the inferred
 * values are within the profile's expectations where it has some.
 */
#include <inttypes.h>
#include <string.h>

#include <rte_common.h>

#include "aifab_verdict.h"
#include "lab_priv.h"

#define ECN_BINS 64u

struct ecn {
	struct lab_steps st;
	uint64_t received[AIFAB_LAB_MAX_STEPS];
	uint64_t ce[AIFAB_LAB_MAX_STEPS], ect[AIFAB_LAB_MAX_STEPS];
	uint64_t lat_sum[AIFAB_LAB_MAX_STEPS], lat_max[AIFAB_LAB_MAX_STEPS];
};

/** One load step. */
struct ecn_step {
	uint32_t load_pct;
	uint64_t sent, received, ce, ect;
	double lat_avg_us, lat_max_us;
};

struct ecn_result {
	uint32_t n_steps;
	struct ecn_step step[AIFAB_LAB_MAX_STEPS];
	struct aifab_verdict_bin bin[ECN_BINS];
	double base_lat_us;               /* smallest latency seen: no queue */
	struct aifab_verdict_red red;     /* inferred */
	bool kmin_ok, kmax_ok, pmax_ok;   /* against what the profile expects */
	bool pass;
};

static int
ecn_init(struct lab *l, char *err, size_t errlen)
{
	const struct aifab_lab_params *p = &l->p;
	struct ecn *x = l->rs;
	uint64_t frames = 0;
	uint32_t i;

	if (p->dut_rate_mbps == 0)
		LAB_BAD("dut_rate_gbps = '0'; allowed: the DUT egress port's "
			"rate, above 0");
	if (p->n_loads == 0 || p->n_loads > AIFAB_LAB_MAX_STEPS)
		LAB_BAD("loads: %u steps; allowed: 1..%u", p->n_loads,
			AIFAB_LAB_MAX_STEPS);
	if (p->bin_bytes == 0)
		LAB_BAD("bin_bytes = '0'; allowed: above 0");
	for (i = 0; i < p->n_loads; i++)
		frames += (uint64_t)p->dut_rate_mbps * 1000 / 8 *
			p->load_pct[i] / 100 * p->step_ms /
			(p->frame_bytes + LAB_WIRE_EXTRA) + 1;
	lab_steps_init(l, &x->st, p->n_loads);
	return lab_lat_alloc(l, frames, err, errlen);
}

/* Step s offers load_pct[s] % of the DUT's rate for step_ms, then nothing
 * for gap_ms (the queue drains), then the next step. */
static unsigned int
ecn_tx(struct lab *l, uint64_t now)
{
	struct lab_steps *s = &((struct ecn *)l->rs)->st;
	uint64_t end;
	uint16_t n;

	if (lab_steps_begin(l, s, l->p.load_pct[s->ph], now) < 0)
		return 0;
	end = s->start + s->len_cyc;
	n = lab_steps_send(l, s, end, now);
	if (s->next_tsc >= end)
		lab_steps_next(l, s, s->start + s->len_cyc + s->gap_cyc, now);
	return n;
}

/* A returned frame of step f->ph: its latency and CE. */
static bool
ecn_rx(struct lab *l, const struct lab_rx *f, uint64_t now)
{
	struct ecn *x = l->rs;
	uint64_t ns = lab_lat_ns(l, f, now);
	bool ce = (f->tos & 3) == 3;

	if (f->ph >= x->st.n)
		return false;
	x->received[f->ph]++;
	x->ce[f->ph] += ce;
	x->ect[f->ph] += (f->tos & 3) != 0;
	x->lat_sum[f->ph] += ns;
	x->lat_max[f->ph] = RTE_MAX(x->lat_max[f->ph], ns);
	lab_lat_keep(l, ns, ce);
	return true;
}

/* Steps, depth bins (from each frame's queueing delay), inference. */
static void
ecn_result(const struct lab *l, void *res)
{
	const struct aifab_lab_params *p = &l->p;
	const struct ecn *x = l->rs;
	struct ecn_result *r = res;
	/* bytes of queue per ns of delay at the DUT's rate; the queue holds
	 * frames, the rate counts wire bytes */
	double bpns = (double)p->dut_rate_mbps / 8000.0 *
		(double)p->frame_bytes / (p->frame_bytes + LAB_WIRE_EXTRA);
	uint32_t base, s;
	bool ok = true;

	r->n_steps = x->st.n;
	for (s = 0; s < x->st.n; s++) {
		struct ecn_step *y = &r->step[s];

		y->load_pct = p->load_pct[s];
		y->sent = x->st.sent[s];
		y->received = x->received[s];
		y->ce = x->ce[s];
		y->ect = x->ect[s];
		y->lat_avg_us = y->received ?
			(double)x->lat_sum[s] / y->received / 1000.0 : 0;
		y->lat_max_us = (double)x->lat_max[s] / 1000.0;
		ok &= y->received > 0;
	}
	base = aifab_verdict_depth_bins(l->lat, l->n_lat, bpns, p->bin_bytes,
					r->bin, ECN_BINS);
	r->base_lat_us = base == UINT32_MAX ? 0 : base / 1000.0;
	aifab_verdict_infer_red(r->bin, ECN_BINS, p->bin_bytes,
				p->min_bin_frames, &r->red);
	/* verdict: what the profile expects, where it says */
	r->kmin_ok = r->red.has_kmin && aifab_verdict_near(r->red.kmin,
		p->expect_kmin, p->tolerance, p->bin_bytes);
	r->kmax_ok = r->red.has_kmax && aifab_verdict_near(r->red.kmax,
		p->expect_kmax, p->tolerance, p->bin_bytes);
	r->pmax_ok = aifab_verdict_near(r->red.pmax, p->expect_pmax, 0, 0.1);
	if (p->expect_kmin != 0)
		ok &= r->kmin_ok;
	if (p->expect_kmax != 0)
		ok &= r->kmax_ok;
	if (p->expect_pmax >= 0)
		ok &= r->pmax_ok;
	r->pass = ok;
}

static void
print_verdict(const struct lab *l, const struct ecn_result *r, FILE *f)
{
	const struct aifab_lab_params *p = &l->p;
	uint32_t s;

	fprintf(f, "# verdict\n");
	for (s = 0; s < r->n_steps; s++)
		if (r->step[s].received == 0)
			fprintf(f, "  step %u%%: nothing came back %26s FAIL\n",
				r->step[s].load_pct, "");
	if (p->expect_kmin)
		fprintf(f, "  Kmin %-10u vs %-10u (+-%.0f%% + 1 bin) %12s %s\n",
			r->red.kmin, p->expect_kmin, p->tolerance * 100, "",
			lab_pf(r->kmin_ok));
	if (p->expect_kmax)
		fprintf(f, "  Kmax %-10u vs %-10u (+-%.0f%% + 1 bin) %12s %s\n",
			r->red.kmax, p->expect_kmax, p->tolerance * 100, "",
			lab_pf(r->kmax_ok));
	if (p->expect_pmax >= 0)
		fprintf(f, "  Pmax %-10.3f vs %-10.3f (+-0.1) %23s %s\n",
			r->red.pmax, p->expect_pmax, "", lab_pf(r->pmax_ok));
}

static void
ecn_print(const struct lab *l, const void *res, FILE *f)
{
	const struct aifab_lab_params *p = &l->p;
	const struct ecn_result *r = res;
	uint32_t s, b;

	fprintf(f, "\n# lab ecn: %s -> DUT egress at %.3f Gb/s, %u-byte ECT "
		"frames, %u ms per step\n", lab_port_name(l, p->tx_port),
		p->dut_rate_mbps / 1000.0, p->frame_bytes, p->step_ms);
	fprintf(f, "# %6s %9s %9s %9s %10s %12s %12s\n", "load", "sent",
		"back", "CE", "CE frac", "lat avg us", "lat max us");
	for (s = 0; s < r->n_steps; s++) {
		const struct ecn_step *x = &r->step[s];

		fprintf(f, "  %5u%% %9" PRIu64 " %9" PRIu64 " %9" PRIu64
			" %10.4f %12.1f %12.1f\n", x->load_pct, x->sent,
			x->received, x->ce, x->received ?
			(double)x->ce / x->received : 0, x->lat_avg_us,
			x->lat_max_us);
	}
	fprintf(f, "# marking by queue depth (delay beyond %.1f us x rate), "
		"%u-byte bins with >= %u frames\n# %10s %9s %9s\n",
		r->base_lat_us, p->bin_bytes, p->min_bin_frames, "depth",
		"frames", "CE frac");
	for (b = 0; b < ECN_BINS; b++)
		if (r->bin[b].frames >= RTE_MAX(p->min_bin_frames, 1u))
			fprintf(f, "  %10u %9" PRIu64 " %9.4f\n",
				b * p->bin_bytes, r->bin[b].frames,
				(double)r->bin[b].ce / r->bin[b].frames);
	fprintf(f, "# inferred: Kmin %s%u B, Kmax %s%u B, Pmax %.3f\n",
		r->red.has_kmin ? "" : "none ", r->red.kmin,
		r->red.has_kmax ? "" : "none ", r->red.kmax, r->red.pmax);
	print_verdict(l, r, f);
	lab_print_tail(l, r->pass, f);
}

static void
ecn_json(const struct lab *l, const void *res, struct aifab_json *j)
{
	const struct ecn_result *r = res;
	uint32_t s, b;

	aifab_json_str(j, "tx_port", lab_port_name(l, l->p.tx_port));
	aifab_json_u64(j, "dut_rate_mbps", l->p.dut_rate_mbps);
	aifab_json_u64(j, "frame_bytes", l->p.frame_bytes);
	aifab_json_u64(j, "step_ms", l->p.step_ms);
	aifab_json_dbl(j, "base_latency_us", r->base_lat_us, 3);
	aifab_json_arr(j, "steps");
	for (s = 0; s < r->n_steps; s++) {
		const struct ecn_step *x = &r->step[s];

		aifab_json_obj(j, NULL);
		aifab_json_u64(j, "load_pct", x->load_pct);
		aifab_json_u64(j, "sent", x->sent);
		aifab_json_u64(j, "received", x->received);
		aifab_json_u64(j, "ce", x->ce);
		aifab_json_u64(j, "ect", x->ect);
		aifab_json_dbl(j, "lat_avg_us", x->lat_avg_us, 3);
		aifab_json_dbl(j, "lat_max_us", x->lat_max_us, 3);
		aifab_json_end(j);
	}
	aifab_json_end(j);
	aifab_json_u64(j, "bin_bytes", l->p.bin_bytes);
	aifab_json_arr(j, "bins");
	for (b = 0; b < ECN_BINS; b++) {
		if (r->bin[b].frames == 0)
			continue;
		aifab_json_obj(j, NULL);
		aifab_json_u64(j, "depth", b * l->p.bin_bytes);
		aifab_json_u64(j, "frames", r->bin[b].frames);
		aifab_json_u64(j, "ce", r->bin[b].ce);
		aifab_json_end(j);
	}
	aifab_json_end(j);
	aifab_json_obj(j, "inferred");
	if (r->red.has_kmin)
		aifab_json_u64(j, "kmin_bytes", r->red.kmin);
	else
		aifab_json_null(j, "kmin_bytes");
	if (r->red.has_kmax)
		aifab_json_u64(j, "kmax_bytes", r->red.kmax);
	else
		aifab_json_null(j, "kmax_bytes");
	aifab_json_dbl(j, "pmax", r->red.pmax, 6);
	aifab_json_end(j);
	lab_json_tail(l, r->pass, j);
}

const struct lab_recipe lab_recipe_ecn = {
	.name = "ecn",
	.state_size = sizeof(struct ecn),
	.result_size = sizeof(struct ecn_result),
	.init = ecn_init,
	.tx = ecn_tx,
	.rx = ecn_rx,
	.result = ecn_result,
	.print = ecn_print,
	.json = ecn_json,
};
