/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The lab verdicts' statistics (aifab_verdict.h): pure functions.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "aifab_verdict.h"

static double
dmin(double a, double b)
{
	return a < b ? a : b;
}

static double
dmax(double a, double b)
{
	return a > b ? a : b;
}

/* ---- chi-square ---------------------------------------------------------- */

/*
 * Q(k/2, x/2). Even k: e^(-x/2) sum_{j<k/2} (x/2)^j / j!; odd k:
 * erfc(sqrt(x/2)) + sqrt(2x/pi) e^(-x/2) sum_{j=1}^{(k-1)/2}
 * x^(j-1) / (1 x 3 x ... x (2j-1)).
 */
double
aifab_verdict_chi2_upper(double x, unsigned int k)
{
	double term, sum = 0;
	unsigned int j;

	if (k == 0 || x <= 0)
		return 1.0;
	if (k % 2 == 0) {
		for (j = 0, term = 1; j < k / 2; j++) {
			sum += term;
			term *= x / 2 / (j + 1);
		}
		return dmin(exp(-x / 2) * sum, 1.0);
	}
	for (j = 1, term = 1; j <= (k - 1) / 2; j++) {
		sum += term;
		term *= x / (2 * j + 1);
	}
	return dmin(erfc(sqrt(x / 2)) + sqrt(2 * x / M_PI) * exp(-x / 2) * sum,
		    1.0);
}

void
aifab_verdict_spread(const uint32_t *per_port, unsigned int n,
		     double *imbalance, double *chi2, double *p)
{
	uint64_t seen = 0;
	uint32_t max = 0;
	double e, c = 0;
	unsigned int i;

	for (i = 0; i < n; i++) {
		seen += per_port[i];
		if (per_port[i] > max)
			max = per_port[i];
	}
	if (n == 0 || seen == 0) {
		*imbalance = 0;
		*chi2 = 0;
		*p = 1;
		return;
	}
	e = (double)seen / n;
	for (i = 0; i < n; i++)
		c += ((double)per_port[i] - e) * ((double)per_port[i] - e) / e;
	*imbalance = max / e;
	*chi2 = c;
	*p = aifab_verdict_chi2_upper(c, n - 1);
}

/* ---- RED / ECN ----------------------------------------------------------- */

uint32_t
aifab_verdict_depth_bins(const uint32_t *lat, uint32_t n, double bytes_per_ns,
			 uint32_t bin_bytes, struct aifab_verdict_bin *bins,
			 unsigned int n_bins)
{
	uint32_t base = UINT32_MAX, i;

	for (i = 0; i < n; i++)
		if ((lat[i] & AIFAB_VERDICT_NS_MASK) < base)
			base = lat[i] & AIFAB_VERDICT_NS_MASK;
	for (i = 0; i < n && n_bins > 0; i++) {
		double d = ((lat[i] & AIFAB_VERDICT_NS_MASK) - base) *
			bytes_per_ns;
		uint32_t b = (uint32_t)(d / bin_bytes);

		if (b >= n_bins)
			b = n_bins - 1;
		bins[b].frames++;
		bins[b].ce += lat[i] >> 31;
	}
	return base;
}

/* Kmax: where marking becomes (nearly) certain; n when nowhere. */
static unsigned int
red_kmax(const struct aifab_verdict_bin *bins, unsigned int n,
	 uint32_t bin_bytes, uint32_t min_frames, struct aifab_verdict_red *r)
{
	unsigned int i;

	for (i = 0; i < n; i++) {
		if (bins[i].frames < min_frames)
			continue;
		if ((double)bins[i].ce / (double)bins[i].frames >= 0.9) {
			r->has_kmax = true;
			r->kmax = i * bin_bytes;
			return i;
		}
	}
	return n;
}

/*
 * The ramp: RED marks with a probability rising linearly from 0 at Kmin to
 * Pmax at Kmax. A least-squares line (weighted by frames) through the bins
 * strictly on the ramp (some marks, fewer than half, below Kmax) gives Kmin
 * where it crosses 0 and Pmax where it meets Kmax; bins where delay noise
 * mixes in frames from beyond Kmax (half marked or more) stay out.
 * false when there are too few such bins for a rising line.
 */
static bool
red_ramp(const struct aifab_verdict_bin *bins, unsigned int n,
	 unsigned int kmax_bin, uint32_t bin_bytes, uint32_t min_frames,
	 struct aifab_verdict_red *r)
{
	double sw = 0, sx = 0, sy = 0, sxx = 0, sxy = 0, x, y, w, den;
	unsigned int i, used = 0;

	for (i = 0; i < kmax_bin && i < n; i++) {
		if (bins[i].frames < min_frames || bins[i].ce == 0)
			continue;
		w = (double)bins[i].frames;
		y = (double)bins[i].ce / w;
		if (y >= 0.5)
			continue;
		x = (i + 0.5) * bin_bytes;
		sw += w;
		sx += w * x;
		sy += w * y;
		sxx += w * x * x;
		sxy += w * x * y;
		used++;
	}
	den = sw * sxx - sx * sx;
	if (used >= 2 && den > 0) {
		double b = (sw * sxy - sx * sy) / den;
		double a = (sy - b * sx) / sw;
		double at = r->has_kmax ? (double)r->kmax : (double)n * bin_bytes;

		if (b > 0) {
			r->has_kmin = true;
			r->kmin = (uint32_t)dmax(-a / b, 0.0);
			r->pmax = dmin(dmax(a + b * at, 0.0), 1.0);
			return true;
		}
	}
	return false;
}

void
aifab_verdict_infer_red(const struct aifab_verdict_bin *bins, unsigned int n,
			uint32_t bin_bytes, uint32_t min_frames,
			struct aifab_verdict_red *r)
{
	unsigned int i, kmax_bin;
	double p;

	if (min_frames < 1)
		min_frames = 1;
	r->has_kmin = r->has_kmax = false;
	r->kmin = r->kmax = 0;
	r->pmax = 0;
	kmax_bin = red_kmax(bins, n, bin_bytes, min_frames, r);
	if (red_ramp(bins, n, kmax_bin, bin_bytes, min_frames, r))
		return;
	/* too few ramp bins for a line: the first marked bin, the largest
	 * fraction below Kmax */
	for (i = 0; i < kmax_bin && i < n; i++) {
		if (bins[i].frames < min_frames)
			continue;
		p = (double)bins[i].ce / (double)bins[i].frames;
		if (!r->has_kmin && p >= 0.02) {
			r->has_kmin = true;
			r->kmin = i * bin_bytes;
		}
		r->pmax = dmax(r->pmax, p);
	}
}

bool
aifab_verdict_near(double got, double want, double rel, double abs)
{
	return fabs(got - want) <= rel * want + abs;
}

/* ---- percentiles --------------------------------------------------------- */

static int
cmp_ns(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a & AIFAB_VERDICT_NS_MASK;
	uint32_t y = *(const uint32_t *)b & AIFAB_VERDICT_NS_MASK;

	return x < y ? -1 : x > y;
}

void
aifab_verdict_sort_ns(uint32_t *lat, uint32_t n)
{
	if (n > 1)
		qsort(lat, n, sizeof(*lat), cmp_ns);
}

double
aifab_verdict_pct_us(const uint32_t *sorted, uint32_t n, uint32_t permille)
{
	uint64_t k = ((uint64_t)n * permille + 999) / 1000; /* ceil(n q) */

	if (n == 0)
		return 0;
	if (k < 1)
		k = 1;
	if (k > n)
		k = n;
	return (sorted[k - 1] & AIFAB_VERDICT_NS_MASK) / 1e3;
}

void
aifab_verdict_latency_us(const uint32_t *lat, uint32_t n,
			 struct aifab_verdict_lat *out)
{
	uint32_t *sorted = n ? malloc(sizeof(*sorted) * n) : NULL;

	memset(out, 0, sizeof(*out));
	if (sorted == NULL)
		return;
	memcpy(sorted, lat, sizeof(*sorted) * n);
	aifab_verdict_sort_ns(sorted, n);
	out->p50 = aifab_verdict_pct_us(sorted, n, 500);
	out->p99 = aifab_verdict_pct_us(sorted, n, 990);
	out->p999 = aifab_verdict_pct_us(sorted, n, 999);
	out->max = (sorted[n - 1] & AIFAB_VERDICT_NS_MASK) / 1e3;
	free(sorted);
}

/* ---- PFC ----------------------------------------------------------------- */

uint32_t
aifab_verdict_pfc_bound_quanta(uint32_t mbps)
{
	if (mbps <= 10000)
		return 67;
	if (mbps <= 25000)
		return 80;
	if (mbps <= 100000)
		return 394;
	return 905;
}

double
aifab_verdict_pause_us(uint32_t quanta, uint32_t mbps)
{
	return mbps ? quanta * 512.0 / mbps : 0;
}

uint64_t
aifab_verdict_cable_bytes(uint32_t cable_m, uint32_t mbps)
{
	return (uint64_t)(2.0 * cable_m * mbps * 1e6 / (2e8 * 8));
}

uint64_t
aifab_verdict_headroom_bytes(uint64_t response_bytes, uint32_t frame_bytes,
			     uint64_t cable_bytes)
{
	return response_bytes + 2ull * frame_bytes + cable_bytes;
}
