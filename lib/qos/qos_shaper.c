/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Token-bucket shaper set-up. A wire byte is worth tsc_hz units and a TSC
 * cycle earns rate_bytes_per_s units (both divided by their gcd), so the
 * bucket never rounds: over any interval the bytes allowed are exactly
 * rate x time, up to the bucket depth.
 */
#include <errno.h>

#include "aifab_qos.h"

#define BYTES_PER_S_PER_MBPS 125000u /* 10^6 / 8 */
#define SHAPER_MAX_MBPS 10000000u     /* 10 Tbit/s */
#define SHAPER_MIN_HZ 1000u
#define SHAPER_MAX_HZ (1ull << 34)
#define SHAPER_MIN_FRAME 60u
#define SHAPER_MAX_FRAME 65535u
#define SHAPER_MAX_BURST (1u << 26)

static uint64_t
gcd64(uint64_t a, uint64_t b)
{
	while (b != 0) {
		uint64_t t = a % b;

		a = b;
		b = t;
	}
	return a;
}

static int
shaper_check(const struct aifab_qos_shaper_params *p, const char **why)
{
	if (p->rate_mbps == 0 || p->rate_mbps > SHAPER_MAX_MBPS) {
		*why = "shaper rate must be 1..10000000 Mbit/s";
		return -EINVAL;
	}
	if (p->tsc_hz < SHAPER_MIN_HZ || p->tsc_hz > SHAPER_MAX_HZ) {
		*why = "TSC frequency out of range (1 kHz..17 GHz)";
		return -EINVAL;
	}
	if (p->max_frame < SHAPER_MIN_FRAME ||
	    p->max_frame > SHAPER_MAX_FRAME) {
		*why = "shaper max frame must be 60..65535 bytes";
		return -EINVAL;
	}
	if (p->burst_bytes < p->max_frame + AIFAB_QOS_WIRE_OVERHEAD ||
	    p->burst_bytes > SHAPER_MAX_BURST) {
		*why = "shaper burst must be max frame + 24 .. 67108864 bytes";
		return -EINVAL;
	}
	return 0;
}

int
aifab_qos_shaper_config(struct aifab_qos_shaper_cfg *cfg,
			const struct aifab_qos_shaper_params *p,
			const char **why)
{
	uint64_t bps, g;
	int rc = shaper_check(p, why);

	if (rc != 0)
		return rc;
	bps = p->rate_mbps * BYTES_PER_S_PER_MBPS;
	g = gcd64(bps, p->tsc_hz);
	cfg->fill = bps / g;
	cfg->cost = p->tsc_hz / g;
	/* burst <= 2^26, cost <= 2^34: depth <= 2^60, 2 x depth fits. */
	cfg->depth = (int64_t)(p->burst_bytes * cfg->cost);
	cfg->ready = (int64_t)((p->max_frame + AIFAB_QOS_WIRE_OVERHEAD) *
			       cfg->cost);
	/* Tokens stay >= -depth, so this many cycles fill any bucket; below
	 * it dt x fill < 2 x depth + fill cannot overflow. */
	cfg->dt_full = ((uint64_t)cfg->depth * 2 + cfg->fill - 1) / cfg->fill;
	return 0;
}

void
aifab_qos_shaper_init(const struct aifab_qos_shaper_cfg *cfg,
		      struct aifab_qos_shaper *s, uint64_t now)
{
	s->tokens = cfg->depth;
	s->last = now;
}
