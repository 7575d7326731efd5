/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The one virtual clock ([general] clock = virtual, app/vclock.c): when
 * the generator next has something to do without a frame arriving (a
 * paced send, the next step or iteration, a retransmit timeout). Its
 * poll is the usual one, run at that instant with `now` in nanoseconds
 * (env tsc_hz = 10^9, so pacing, gaps, RTO and DCQCN timers read it).
 */
#include <rte_ring.h>

#include "generator_priv.h"

/* One frame of the largest payload at the fastest rank's rate: a sending
 * rank is polled this often, so its departures keep the pace its token
 * bucket sets (the wire serializes what it gets). The ranks' rates are
 * set up before the run starts and never change: computed once (a pass
 * over every rank), on the first call after the start. */
static uint64_t
gen_vclock_step(const struct gen *g)
{
	uint64_t bits_k = ((uint64_t)g->p.ib_mtu + GEN_WIRE_EXTRA + 64) * 8000;
	uint64_t step;
	double mbps = 0;
	uint32_t r;

	if (g->vc_step != 0)
		return g->vc_step;
	for (r = 0; r < g->p.n_ranks; r++)
		mbps = RTE_MAX(mbps, g->ranks[r].line_mbps);
	if (mbps < 1)
		step = 1000;
	else
		step = RTE_MAX((uint64_t)((double)bits_k / mbps), (uint64_t)1);
	/* a cache of a constant: the clock's one thread writes it */
	((struct gen *)(uintptr_t)g)->vc_step = step;
	return step;
}

/*
 * When rank @p rk (out of tokens) has tokens again: last_tsc +
 * -tokens / rate_fp + 1; @p ready (or less) when that is not after
 * @p ready, told by a multiply (most calls: one frame's debt is paid
 * within the step), not a division.
 */
static inline uint64_t
tokens_at(const struct gen_rank *rk, uint64_t ready)
{
	uint64_t debt = (uint64_t)(-rk->tokens), prod;

	/* last + debt / rate + 1 <= ready <=> debt < (ready - last) x rate */
	if (ready > rk->last_tsc &&
	    !__builtin_mul_overflow(ready - rk->last_tsc, rk->rate_fp, &prod) &&
	    debt < prod)
		return ready;
	return rk->last_tsc + debt / rk->rate_fp + 1;
}

/* Rebuild rank @p rk's summary of its active QPs (struct gen_rank,
 * vc_ok): what gen_vclock_cl_rank() needs of them. */
static void
cl_rank_summary(const struct gen *g, struct gen_rank *rk)
{
	uint64_t dl = UINT64_MAX, c = UINT64_MAX, f1 = UINT64_MAX, fl;
	bool send = false;
	uint32_t i;

	for (i = 0; i < rk->n_act; i++) {
		const struct gen_conn *cn = &g->conns[rk->act[i]];

		if (cn->has_pend || aifab_rc_req_can_send(cn->req)) {
			send = true;
			if (g->p.dcqcn) {
				/* pace_t >= 0 (it starts at 0 and grows) */
				fl = (uint64_t)cn->pace_t;
				c = RTE_MIN(c, fl + ((double)fl < cn->pace_t));
				f1 = RTE_MIN(f1, fl + 1);
			}
		}
		dl = RTE_MIN(dl, aifab_rc_req_deadline(cn->req));
	}
	rk->vc_send = send;
	rk->vc_dl = dl;
	rk->vc_ceil = c;
	rk->vc_floor1 = f1;
	rk->vc_ok = true;
}

/*
 * Closed loop: when rank @p rk next sends or times out by itself. A QP
 * with something to send goes when its rank has tokens again and its
 * DCQCN pace allows (not before the next step); a QP waiting for ACKs
 * wakes at its retransmit timeout. Everything else waits for a frame.
 *
 * Per QP q with a packet that is min(e_q) over them with e_q = ready, or
 * floor(pace_t) + 1 when pace_t > ready; for a whole ready that test is
 * ready < ceil(pace_t): the least e_q is ready if some QP has
 * ceil(pace_t) <= ready, else the least floor(pace_t) + 1. So the
 * rank's summary (cl_rank_summary(), rebuilt only when a QP changed)
 * gives it without a pass over the QPs at every step.
 */
static uint64_t
gen_vclock_cl_rank(const struct gen *g, struct gen_rank *rk, uint64_t now,
		   uint64_t step)
{
	uint64_t t = UINT64_MAX, ready = now + step;

	if (!rk->vc_ok)
		cl_rank_summary(g, rk);
	if (rk->vc_send) {
		if (rk->rate_fp != 0 && rk->tokens <= 0)
			ready = RTE_MAX(ready, tokens_at(rk, ready));
		t = g->p.dcqcn && rk->vc_ceil > ready ? rk->vc_floor1 : ready;
	}
	if (rk->vc_dl != UINT64_MAX)
		t = RTE_MIN(t, RTE_MAX(rk->vc_dl, now + 1));
	return t;
}

uint64_t
gen_next_event(const void *st, unsigned int w, uint64_t now)
{
	struct gen *g = (struct gen *)(uintptr_t)st;
	const struct gen_wk *wk = &g->wk[w];
	uint64_t next = UINT64_MAX, step = 0;
	uint32_t i;
	uint16_t u;

	if (!__atomic_load_n(&g->started, __ATOMIC_ACQUIRE))
		return now;
	/* Frames another worker handed over: read them in this instant
	 * (the workers are polled in a fixed order, so this stays
	 * deterministic). */
	if (wk->inbox != NULL && rte_ring_count(wk->inbox) != 0)
		return now;
	if (g->port_sets) {
		/* the ports whose queues may hold frames (a superset) */
		unsigned int k, nw = gen_port_words(g);
		uint64_t m;

		for (k = 0; k < nw; k++)
			for (m = wk->txq_set[k]; m != 0; m &= m - 1) {
				const struct gen_port *gp = &wk->port[
					g->used_ports[k * 64 +
						      __builtin_ctzll(m)]];

				if (gp->n_tx != 0 || gp->n_cnp != 0)
					return now + gen_vclock_step(g);
			}
	} else {
		for (u = 0; u < g->n_used_ports; u++)
			if (wk->port[g->used_ports[u]].n_tx != 0 ||
			    wk->port[g->used_ports[u]].n_cnp != 0)
				return now + gen_vclock_step(g);
	}
	for (i = 0; i < wk->n_own; i++) {
		/* (the clock's one thread rebuilds a rank's summary here) */
		struct gen_rank *rk = &g->ranks[wk->own_list[i]];

		if (rk->state == RANK_SEND && !g->p.closed_loop)
			return now + gen_vclock_step(g);
		/* Once per call, not per rank: it reads every rank. */
		if (rk->state == RANK_SEND && step == 0)
			step = gen_vclock_step(g);
		if (rk->state == RANK_SEND)
			next = RTE_MIN(next, gen_vclock_cl_rank(g, rk, now,
								step));
		if (rk->state == RANK_WAIT)
			next = RTE_MIN(next, RTE_MAX(rk->next_start, now + 1));
	}
	return next;
}
