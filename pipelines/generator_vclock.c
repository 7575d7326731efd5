/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The one virtual clock ([general] clock = virtual, app/vclock.c): when
 * the generator next has something to do without a frame arriving. Its
 * poll is the usual one, run at that instant with `now` in nanoseconds
 * (env tsc_hz = 10^9, so pacing, gaps, RTO and DCQCN timers read it).
 */
#include "generator_priv.h"

/* One frame of the largest payload at the fastest rank's rate: a sending
 * rank is polled this often, so its departures keep the pace its token
 * bucket sets (the wire serializes what it gets). */
static uint64_t
gen_vclock_step(const struct gen *g)
{
	uint64_t bits_k = ((uint64_t)g->p.ib_mtu + GEN_WIRE_EXTRA + 64) * 8000;
	double mbps = 0;
	uint32_t r;

	for (r = 0; r < g->p.n_ranks; r++)
		mbps = RTE_MAX(mbps, g->ranks[r].line_mbps);
	if (mbps < 1)
		return 1000;
	return RTE_MAX((uint64_t)((double)bits_k / mbps), (uint64_t)1);
}

uint64_t
gen_next_event(const void *st, unsigned int w, uint64_t now)
{
	const struct gen *g = st;
	uint64_t next = UINT64_MAX;
	uint32_t r;
	uint16_t u;

	RTE_SET_USED(w);
	if (!g->started)
		return now;
	for (u = 0; u < g->n_used_ports; u++)
		if (g->port[g->used_ports[u]].n_tx != 0 ||
		    g->port[g->used_ports[u]].n_cnp != 0)
			return now + gen_vclock_step(g);
	for (r = 0; r < g->p.n_ranks; r++) {
		const struct gen_rank *rk = &g->ranks[r];

		if (rk->state == RANK_SEND)
			return now + gen_vclock_step(g);
		if (rk->state == RANK_WAIT)
			next = RTE_MIN(next, RTE_MAX(rk->next_start, now + 1));
	}
	return next;
}
