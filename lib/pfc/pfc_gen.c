/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * PFC generation: ingress accounting per priority, XOFF/XON with hysteresis,
 * headroom, refresh. The peer is told XOFF/XON only from
 * aifab_pfc_gen_poll(): add/sub move `want`, poll sends `want != told`.
 * Shared (aifab_pfc_gen_share()), XON goes out only when the last
 * worker's shard of the port falls to XON, and refreshes are per port.
 */
#include <errno.h>
#include <string.h>

#include <rte_common.h>

#include "aifab_pfc.h"

#define ALPHA_LOG2_MIN (-7)
#define ALPHA_LOG2_MAX 3
#define ALPHA_MAX_DEN 65536u

static int
prio_thresholds_valid(const struct aifab_pfc_gen_prio_params *pp)
{
	if (pp->xon_mode != AIFAB_PFC_XON_ABS &&
	    pp->xon_mode != AIFAB_PFC_XON_OFFSET)
		return 0;
	if (pp->xoff_mode == AIFAB_PFC_XOFF_DYNAMIC)
		return (pp->alpha_den != 0 ?
			pp->alpha_den <= ALPHA_MAX_DEN &&
			(uint64_t)pp->alpha_num * 128 >= pp->alpha_den &&
			pp->alpha_num <= (uint64_t)pp->alpha_den * 8 :
			pp->alpha_log2 >= ALPHA_LOG2_MIN &&
			pp->alpha_log2 <= ALPHA_LOG2_MAX) &&
		       (pp->xon_mode == AIFAB_PFC_XON_ABS || pp->xon_bytes >= 1);
	if (pp->xoff_mode != AIFAB_PFC_XOFF_STATIC || pp->xoff_bytes == 0)
		return 0;
	if (pp->xon_mode == AIFAB_PFC_XON_ABS)
		return pp->xon_bytes < pp->xoff_bytes;
	return pp->xon_bytes >= 1 && pp->xon_bytes <= pp->xoff_bytes;
}

static uint32_t
gcd32(uint32_t a, uint32_t b)
{
	while (b != 0) {
		uint32_t t = a % b;

		a = b;
		b = t;
	}
	return a;
}

static int
prio_compile(struct aifab_pfc_gen_prio_cfg *pc,
	     const struct aifab_pfc_gen_prio_params *pp,
	     uint32_t speed_mbps, uint64_t tsc_hz)
{
	uint16_t pause = pp->pause_quanta ? pp->pause_quanta :
		AIFAB_PFC_QUANTA_MAX;
	uint16_t refresh = pp->refresh_quanta ? pp->refresh_quanta :
		(uint16_t)(pause / 2);

	if (!prio_thresholds_valid(pp) || pause < 2 || refresh >= pause)
		return -EINVAL;
	pc->xoff_mode = pp->xoff_mode;
	pc->xon_mode = pp->xon_mode;
	pc->alpha_log2 = pp->alpha_log2;
	pc->alpha_num = pp->alpha_den != 0 ? pp->alpha_num : 0;
	pc->alpha_den = pp->alpha_den;
	if (pc->alpha_den != 0) {
		/* num / den = 1 / 2^k (alpha 1, 0.5, 0.125 ... as x/1000): a
		 * shift instead of a division per packet, the same floor for
		 * every free buffer below 2^64 / num (buffers are at most
		 * 4 GiB) */
		uint32_t g = gcd32(pc->alpha_num, pc->alpha_den);

		if (pc->alpha_num / g == 1 &&
		    rte_is_power_of_2(pc->alpha_den / g)) {
			pc->alpha_log2 = (int8_t)-rte_log2_u32(pc->alpha_den / g);
			pc->alpha_num = 0;
			pc->alpha_den = 0;
		}
	}
	pc->pause_quanta = pause;
	pc->xoff_bytes = pp->xoff_bytes;
	pc->xon_bytes = pp->xon_bytes;
	pc->headroom_bytes = pp->headroom_bytes;
	pc->refresh_cycles = aifab_pfc_quanta_to_cycles(refresh, speed_mbps,
							tsc_hz);
	return pc->refresh_cycles == 0 ? -EINVAL : 0;
}

int
aifab_pfc_gen_config_init(struct aifab_pfc_gen_config *cfg,
			  const struct aifab_pfc_gen_params *p)
{
	unsigned int i;

	if (cfg == NULL || p == NULL || p->speed_mbps == 0 ||
	    p->speed_mbps > AIFAB_PFC_SPEED_MAX_MBPS || p->tsc_hz == 0 ||
	    p->tsc_hz > AIFAB_PFC_TSC_HZ_MAX)
		return -EINVAL;
	memset(cfg, 0, sizeof(*cfg));
	for (i = 0; i < AIFAB_PFC_NUM_PRIO; i++) {
		if (!p->prio[i].enabled)
			continue;
		if (prio_compile(&cfg->prio[i], &p->prio[i], p->speed_mbps,
				 p->tsc_hz) != 0)
			return -EINVAL;
		cfg->enabled |= (uint8_t)(1u << i);
	}
	return 0;
}

void
aifab_pfc_gen_init(struct aifab_pfc_gen *g,
		   const struct aifab_pfc_gen_config *cfg)
{
	memset(g, 0, sizeof(*g));
	g->cfg = cfg;
}

/* The thresholds and the hysteresis are inline in aifab_pfc.h (the
 * switch's datapath adds per packet without a call). */
static uint64_t
xoff_at(const struct aifab_pfc_gen_prio_cfg *pc, uint64_t free)
{
	return aifab_pfc_xoff_at(pc, free);
}

static void
update_want(struct aifab_pfc_gen *g, unsigned int prio, uint64_t free)
{
	aifab_pfc_gen_update_want(g, prio, xoff_at(&g->cfg->prio[prio], free));
}

enum aifab_pfc_verdict
aifab_pfc_gen_add(struct aifab_pfc_gen *g, unsigned int prio, uint32_t bytes,
		  uint64_t free)
{
	return aifab_pfc_gen_add_inline(g, prio, bytes, free);
}

enum aifab_pfc_verdict
aifab_pfc_gen_spill(struct aifab_pfc_gen *g, unsigned int prio,
		    uint32_t bytes)
{
	const struct aifab_pfc_gen_prio_cfg *pc = &g->cfg->prio[prio];
	uint64_t b = bytes;

	if (!(g->cfg->enabled & (1u << prio)))
		return AIFAB_PFC_ADMIT;
	g->want |= (uint8_t)(1u << prio);
	if (g->headroom[prio] + b > pc->headroom_bytes) {
		g->stats.v[AIFAB_PFC_CNT_HEADROOM_OVERFLOW][prio]++;
		g->bytes[prio] -= b < g->bytes[prio] ? b : g->bytes[prio];
		return AIFAB_PFC_DROP;
	}
	g->headroom[prio] += b;
	return AIFAB_PFC_ADMIT_HEADROOM;
}

void
aifab_pfc_gen_sub(struct aifab_pfc_gen *g, unsigned int prio, uint32_t bytes,
		  uint64_t free)
{
	aifab_pfc_gen_sub_inline(g, prio, bytes, free);
}

void
aifab_pfc_share_init(struct aifab_pfc_share *s)
{
	memset(s, 0, sizeof(*s));
}

void
aifab_pfc_gen_share(struct aifab_pfc_gen *g, struct aifab_pfc_share *s,
		    unsigned int worker)
{
	g->share = s;
	g->wbit = s != NULL ? (uint64_t)1 << (worker % 64) : 0;
}

/* XOFF of priority @p i is due for a refresh at @p now (the port's
 * refresh when shared: at most one worker wins each interval). */
static bool
refresh_due(struct aifab_pfc_gen *g, unsigned int i, uint64_t now)
{
	struct aifab_pfc_share *s = g->share;
	uint64_t next;

	if (s == NULL)
		return now >= g->next_refresh[i];
	next = __atomic_load_n(&s->next_refresh[i], __ATOMIC_RELAXED);
	return now >= next &&
	       __atomic_compare_exchange_n(&s->next_refresh[i], &next,
			now + g->cfg->prio[i].refresh_cycles, false,
			__ATOMIC_RELAXED, __ATOMIC_RELAXED);
}

/* This worker's shard crossed XOFF: the port is above XOFF. */
static void
share_xoff(struct aifab_pfc_gen *g, unsigned int i, uint64_t now)
{
	struct aifab_pfc_share *s = g->share;

	if (s == NULL)
		return;
	__atomic_fetch_or(&s->above[i], g->wbit, __ATOMIC_RELAXED);
	__atomic_store_n(&s->next_refresh[i],
			 now + g->cfg->prio[i].refresh_cycles,
			 __ATOMIC_RELAXED);
}

/* This worker's shard fell to XON: true if the port did (no other shard
 * above XOFF), so XON must be sent. */
static bool
share_xon(struct aifab_pfc_gen *g, unsigned int i)
{
	struct aifab_pfc_share *s = g->share;

	if (s == NULL)
		return true;
	return (__atomic_fetch_and(&s->above[i], ~g->wbit, __ATOMIC_RELAXED) &
		~g->wbit) == 0;
}

/* After sending XON: a shard that crossed XOFF meanwhile may have its XOFF
 * overtaken by our XON on the wire; make its refresh due now. */
static void
share_after_xon(struct aifab_pfc_gen *g, unsigned int i)
{
	struct aifab_pfc_share *s = g->share;

	if (s != NULL && __atomic_load_n(&s->above[i], __ATOMIC_RELAXED) != 0)
		__atomic_store_n(&s->next_refresh[i], 0, __ATOMIC_RELAXED);
}

bool
aifab_pfc_gen_poll(struct aifab_pfc_gen *g, uint64_t free, uint64_t now,
		   struct aifab_pfc_frame *f)
{
	const struct aifab_pfc_gen_config *cfg = g->cfg;
	unsigned int i;

	memset(f, 0, sizeof(*f));
	for (i = 0; i < AIFAB_PFC_NUM_PRIO; i++) {
		uint8_t bit = (uint8_t)(1u << i);

		if (!(cfg->enabled & bit))
			continue;
		update_want(g, i, free);
		if ((g->want & bit) &&
		    (!(g->told & bit) || refresh_due(g, i, now))) {
			if (!(g->told & bit))
				share_xoff(g, i, now);
			f->enable |= bit;
			f->quanta[i] = cfg->prio[i].pause_quanta;
			g->next_refresh[i] = now + cfg->prio[i].refresh_cycles;
			g->stats.v[AIFAB_PFC_CNT_XOFF_SENT][i]++;
		} else if (!(g->want & bit) && (g->told & bit) &&
			   share_xon(g, i)) {
			f->enable |= bit;
			g->stats.v[AIFAB_PFC_CNT_XON_SENT][i]++;
			share_after_xon(g, i);
		}
	}
	g->told = g->want & cfg->enabled;
	return f->enable != 0;
}
