/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Port scheduler: strict priority TCs (highest number first) above deficit
 * round robin among the rest (Shreedhar and Varghese, SIGCOMM 1995). A TC
 * receives its quantum when the round reaches it, sends while its deficit
 * covers its head packet, and keeps the remainder for the next round only
 * while it stays backlogged.
 */
#include <errno.h>

#include "aifab_qos.h"

#define SCHED_MAX_WEIGHT 1024u
#define SCHED_MIN_QUANTUM 64u
#define SCHED_MAX_QUANTUM 65536u

int
aifab_qos_sched_config(struct aifab_qos_sched_cfg *cfg,
		       const struct aifab_qos_sched_params *p,
		       const char **why)
{
	unsigned int tc;

	if (p->quantum_bytes < SCHED_MIN_QUANTUM ||
	    p->quantum_bytes > SCHED_MAX_QUANTUM) {
		*why = "scheduler quantum must be 64..65536 bytes";
		return -EINVAL;
	}
	*cfg = (struct aifab_qos_sched_cfg){ .strict_mask = p->strict_mask,
		.dwrr_mask = (uint8_t)~p->strict_mask };
	for (tc = 0; tc < AIFAB_QOS_N_TC; tc++) {
		if (p->strict_mask & (1u << tc))
			continue;
		if (p->weight[tc] == 0 || p->weight[tc] > SCHED_MAX_WEIGHT) {
			*why = "DWRR weight must be 1..1024";
			return -EINVAL;
		}
		cfg->quantum[tc] = p->weight[tc] * p->quantum_bytes;
	}
	return 0;
}

void
aifab_qos_sched_init(const struct aifab_qos_sched_cfg *cfg,
		     struct aifab_qos_sched *s)
{
	*s = (struct aifab_qos_sched){ 0 };
	if (cfg->dwrr_mask != 0)
		s->cur = (uint8_t)__builtin_ctz(cfg->dwrr_mask);
}

/* The first TC of @p set after @p tc, wrapping around. */
static unsigned int
next_in(unsigned int set, unsigned int tc)
{
	unsigned int after = set & ~((2u << tc) - 1);

	return (unsigned int)__builtin_ctz(after != 0 ? after : set);
}

static int
dwrr_next(const struct aifab_qos_sched_cfg *cfg, struct aifab_qos_sched *s,
	  unsigned int ready, const uint32_t *head_len)
{
	unsigned int idle = cfg->dwrr_mask & ~ready & s->nz;

	/* An idle TC (empty or paused) carries no credit into later rounds
	 * (nz: those whose deficit may not be 0 already). */
	s->nz = (uint8_t)(s->nz & ~idle);
	while (idle != 0) {
		s->deficit[__builtin_ctz(idle)] = 0;
		idle &= idle - 1;
	}
	if (ready == 0)
		return -1;
	/* Ends: every round adds a quantum (>= 64) to each ready TC. */
	for (;;) {
		unsigned int tc = s->cur;

		if (ready & (1u << tc)) {
			if (!s->granted) {
				s->deficit[tc] += (int32_t)cfg->quantum[tc];
				s->granted = 1;
				s->nz = (uint8_t)(s->nz | 1u << tc);
			}
			if ((int64_t)s->deficit[tc] >= head_len[tc]) {
				s->deficit[tc] -= (int32_t)head_len[tc];
				return (int)tc;
			}
		}
		s->cur = (uint8_t)next_in(ready, tc);
		s->granted = 0;
	}
}

int
aifab_qos_sched_next(const struct aifab_qos_sched_cfg *cfg,
		     struct aifab_qos_sched *s, uint8_t nonempty,
		     uint8_t eligible, const uint32_t head_len[AIFAB_QOS_N_TC])
{
	unsigned int ready = (unsigned int)(nonempty & eligible);
	unsigned int strict = ready & cfg->strict_mask;

	if (strict != 0)
		return 31 - __builtin_clz(strict);
	return dwrr_next(cfg, s, ready & cfg->dwrr_mask, head_len);
}
