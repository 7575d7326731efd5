/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * PFC watchdog, SONiC-style: a priority paused continuously for the
 * detection time while PFC frames keep arriving is stormed; it is restored
 * after the restoration time without PFC frames.
 */
#include <errno.h>
#include <string.h>

#include "aifab_pfc.h"

static uint64_t
ms_to_cycles(uint32_t ms, uint64_t tsc_hz)
{
	/* ms <= 60000 < 2^16, tsc_hz < 2^35: no overflow. */
	return (uint64_t)ms * tsc_hz / 1000u;
}

static int
prio_compile(struct aifab_pfc_wd_config *cfg, unsigned int i,
	     const struct aifab_pfc_wd_prio_params *pp, uint64_t tsc_hz)
{
	uint32_t det = pp->detection_ms ? pp->detection_ms :
		AIFAB_PFC_WD_DEFAULT_MS;
	uint32_t res = pp->restoration_ms ? pp->restoration_ms :
		AIFAB_PFC_WD_DEFAULT_MS;
	uint8_t bit = (uint8_t)(1u << i);

	if (det < AIFAB_PFC_WD_DETECT_MIN_MS ||
	    det > AIFAB_PFC_WD_DETECT_MAX_MS ||
	    res < AIFAB_PFC_WD_RESTORE_MIN_MS ||
	    res > AIFAB_PFC_WD_RESTORE_MAX_MS ||
	    pp->action > AIFAB_PFC_WD_ALERT)
		return -EINVAL;
	cfg->detect_cycles[i] = ms_to_cycles(det, tsc_hz);
	cfg->restore_cycles[i] = ms_to_cycles(res, tsc_hz);
	cfg->enabled |= bit;
	if (pp->action == AIFAB_PFC_WD_DROP)
		cfg->drop |= bit;
	else if (pp->action == AIFAB_PFC_WD_FORWARD)
		cfg->forward |= bit;
	return 0;
}

int
aifab_pfc_wd_config_init(struct aifab_pfc_wd_config *cfg,
			 const struct aifab_pfc_wd_params *p)
{
	unsigned int i;

	if (cfg == NULL || p == NULL || p->tsc_hz == 0 ||
	    p->tsc_hz > AIFAB_PFC_TSC_HZ_MAX)
		return -EINVAL;
	memset(cfg, 0, sizeof(*cfg));
	for (i = 0; i < AIFAB_PFC_NUM_PRIO; i++)
		if (p->prio[i].enabled &&
		    prio_compile(cfg, i, &p->prio[i], p->tsc_hz) != 0)
			return -EINVAL;
	return 0;
}

void
aifab_pfc_wd_init(struct aifab_pfc_wd *wd,
		  const struct aifab_pfc_wd_config *cfg)
{
	memset(wd, 0, sizeof(*wd));
	wd->cfg = cfg;
}

void
aifab_pfc_wd_feed(struct aifab_pfc_wd *wd, unsigned int prio, uint64_t now)
{
	uint8_t bit = (uint8_t)(1u << prio);

	if (!(wd->active & bit)) {
		wd->active |= bit;
		wd->start[prio] = now;
	}
	wd->last_feed[prio] = now;
}

/* NORMAL priority @p i: true when its storm is detected at @p now. */
static bool
detect(struct aifab_pfc_wd *wd, unsigned int i, uint64_t now, bool paused)
{
	uint8_t bit = (uint8_t)(1u << i);

	if (!paused) {
		wd->active &= (uint8_t)~bit;
		return false;
	}
	return (wd->active & bit) &&
	       now - wd->start[i] >= wd->cfg->detect_cycles[i];
}

unsigned int
aifab_pfc_wd_poll(struct aifab_pfc_wd *wd, uint64_t now, uint8_t paused_mask,
		  struct aifab_pfc_wd_events *ev)
{
	struct aifab_pfc_wd_events e = { 0, 0 };
	unsigned int i, n = 0;

	for (i = 0; i < AIFAB_PFC_NUM_PRIO; i++) {
		uint8_t bit = (uint8_t)(1u << i);

		if (!(wd->cfg->enabled & bit))
			continue;
		if (!(wd->stormed & bit)) {
			if (!detect(wd, i, now, paused_mask & bit))
				continue;
			wd->stormed |= bit;
			e.stormed |= bit;
			wd->stats.v[AIFAB_PFC_CNT_WD_STORMS][i]++;
		} else if (now - wd->last_feed[i] >=
			   wd->cfg->restore_cycles[i]) {
			wd->stormed &= (uint8_t)~bit;
			wd->active &= (uint8_t)~bit;
			e.restored |= bit;
			wd->stats.v[AIFAB_PFC_CNT_WD_RESTORED][i]++;
		} else {
			continue;
		}
		n++;
	}
	if (ev != NULL)
		*ev = e;
	return n;
}

void
aifab_pfc_share_wd_feed(const struct aifab_pfc_share *s,
			struct aifab_pfc_wd *wd, uint64_t now)
{
	unsigned int i;

	for (i = 0; i < AIFAB_PFC_NUM_PRIO; i++) {
		uint64_t t = __atomic_load_n(&s->last_rx[i], __ATOMIC_RELAXED);

		if (!(wd->cfg->enabled & (1u << i)) || t == 0)
			continue;
		/* another lcore's clock may be a little ahead of ours */
		if (t > now)
			t = now;
		if (t > wd->last_feed[i])
			aifab_pfc_wd_feed(wd, i, t);
	}
}
