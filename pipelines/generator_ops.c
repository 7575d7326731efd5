/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The generator pipeline: N emulated ranks walk their collective schedule
 * and send RoCEv2 RDMA WRITEs; what comes back is accounted per QP and per
 * port. This file is the ops table the app drives; one poll is
 *
 *   receive   generator_rx.c: every port's RX burst, dispatched
 *   send      generator_tx.c: every rank (round robin from a rotating
 *             first) posts what its schedule allows and sends up to a
 *             burst, paced; closed-loop state in generator_cl.c (on the
 *             whole-process virtual clock, closed loop: only the ranks
 *             whose poll may change something, in the same order,
 *             generator_vclock.c)
 *   flush     generator_tx.c: every port's queues, unless paused by PFC
 *
 * with the counters mirrored to lib/stats about every millisecond
 * (generator_report.c). Building and freeing: generator_setup.c.
 *
 * Several workers ([generator] lcores) each run this poll for their share
 * of the ranks (struct gen_wk: own pools, TX queues, counters, inbox); see
 * generator_priv.h for what they share and how. Counters are plain, one
 * writer each; readers sum the workers'.
 */
#include <stdio.h>
#include <string.h>

#include <rte_common.h>
#include <rte_ring.h>

#include "generator_priv.h"

/* ---- ops ----------------------------------------------------------------- */

/* Worker 0, once: every rank's clock starts at @p now; the others see
 * `started` (release) after it. */
static void
gen_start(struct gen *g, uint64_t now)
{
	uint32_t r;

	for (r = 0; r < g->p.n_ranks; r++) {
		g->ranks[r].next_start = now;
		g->ranks[r].last_tsc = now;
	}
	/* (a rank's token bucket starts full: its last_tsc is now) */
	if (g->p.closed_loop)
		gen_cl_start(g, now);
	__atomic_store_n(&g->started, true, __ATOMIC_RELEASE);
}

/* The clock of this poll: the app's TSC, or the virtual one advanced
 * (virtual_tick_ns: one worker only, refused with more). */
static uint64_t
gen_clock(struct gen *g, uint64_t now)
{
	if (g->p.virtual_tick_ns == 0)
		return now;
	now = g->vnow;
	g->vnow += g->p.virtual_tick_ns;
	return now;
}

/* Worker 0 decides the start (several servers: a leader's frame, the
 * start gate); true once started. */
static bool
gen_started(struct gen_wk *wk, uint64_t tsc, uint64_t now)
{
	struct gen *g = wk->g;

	if (__atomic_load_n(&g->started, __ATOMIC_ACQUIRE))
		return true;
	if (wk->w == 0 && gen_start_due(wk, tsc, now)) {
		gen_start(g, now);
		return true;
	}
	return false;
}

/* Flush the ports whose queues may hold frames (in port order: those
 * the loop over every port would find non-empty); forget the emptied. */
static void
flush_marked(struct gen_wk *wk, uint64_t now)
{
	const struct gen *g = wk->g;
	unsigned int k, nw = gen_port_words(g);
	uint64_t m;

	for (k = 0; k < nw; k++)
		for (m = wk->txq_set[k]; m != 0; m &= m - 1) {
			unsigned int b = (unsigned int)__builtin_ctzll(m);
			uint16_t p = g->used_ports[k * 64 + b];
			const struct gen_port *gp = &wk->port[p];

			gen_tx_flush(wk, p, now);
			if (gp->n_tx == 0 && gp->n_cnp == 0)
				wk->txq_set[k] &= ~(UINT64_C(1) << b);
		}
}

static unsigned int
gen_poll(void *st, unsigned int w, uint64_t now)
{
	struct gen *g = st;
	struct gen_wk *wk = &g->wk[w];
	unsigned int handled = 0;
	uint32_t i, j, n = wk->n_own;
	uint64_t tsc = now;
	bool started;
	uint16_t u;

	/* Counters to lib/stats about every millisecond of the app's clock
	 * (the last poll's: readers see at most that much staleness). */
	if (now - wk->last_sync >= g->sync_cycles) {
		wk->last_sync = now;
		gen_stats_sync(wk);
	}
	now = gen_clock(g, now);
	wk->last_now = now;
	/* Before the start (several servers) the ports are only drained:
	 * a leader's start frame may be among what arrives. */
	started = gen_started(wk, tsc, now);
	if (g->p.rx || !started) {
		unsigned int got = gen_rx_poll(wk, now);

		if (got > 0)
			wk->last_rx = now;
		handled += got;
	}
	if (!started && !gen_started(wk, tsc, now))
		return handled;
	/* The worker's ranks, round robin from a rotating first (an index
	 * that wraps: no division per rank). */
	if (wk->rs.on) {
		/* the virtual clock, closed loop: those that may act */
		handled += gen_vclock_ranks_poll(wk, now);
	} else {
		for (i = 0, j = wk->rr_rank; i < n; i++) {
			uint32_t r = wk->own_list[j];

			if (++j == n)
				j = 0;
			handled += g->p.closed_loop ?
				gen_tx_cl_rank_poll(wk, r, now) :
				gen_tx_rank_poll(wk, r, now);
		}
	}
	if (n > 0 && ++wk->rr_rank >= n)
		wk->rr_rank = 0;
	if (g->port_sets)
		flush_marked(wk, now);
	else
		for (u = 0; u < g->n_used_ports; u++)
			gen_tx_flush(wk, g->used_ports[u], now);
	return handled;
}

static void
gen_drain(void *st, unsigned int w, uint64_t now)
{
	struct gen *g = st;
	struct gen_wk *wk = &g->wk[w];

	now = gen_clock(g, now);
	if (g->p.rx)
		gen_rx_poll(wk, now);
	gen_tx_drain(wk);
	gen_stats_sync(wk); /* the final values: readers now match the report */
}

static bool
gen_done(const void *st)
{
	const struct gen *g = st;
	uint64_t last_now = 0, last_rx = 0;
	unsigned int w;
	uint32_t n = 0;
	uint16_t u;

	if (g->refused)
		return true;            /* another profile: nothing to run */
	/* every rank done: the workers' counts, not a pass over the ranks
	 * (the virtual clock asks at every step) */
	for (w = 0; w < g->n_wk; w++)
		n += __atomic_load_n(&g->wk[w].n_done, __ATOMIC_RELAXED);
	if (n != g->n_own)
		return false;
	for (w = 0; w < g->n_wk; w++) {
		const struct gen_wk *wk = &g->wk[w];

		last_now = RTE_MAX(last_now, wk->last_now);
		last_rx = RTE_MAX(last_rx, wk->last_rx);
		if (wk->inbox != NULL && rte_ring_count(wk->inbox) != 0)
			return false;
		for (u = 0; u < g->n_used_ports; u++)
			if (wk->port[g->used_ports[u]].n_tx != 0 ||
			    wk->port[g->used_ports[u]].n_cnp != 0)
				return false;
	}
	/* Ranks on other hosts may still need our ACKs (their last ones
	 * lost): closed loop, stay until the fabric has been quiet for
	 * GEN_LINGER_S or 8 retransmit timeouts. */
	if (g->p.closed_loop && g->n_own < g->p.n_ranks &&
	    last_now - last_rx < g->linger)
		return false;
	return __atomic_load_n(&g->started, __ATOMIC_ACQUIRE);
}

static void
gen_port_counters(const void *st, struct aifab_port_counters *out)
{
	const struct gen *g = st;
	unsigned int w;
	uint16_t p;

	memset(out, 0, sizeof(*out) * g->env.n_ports);
	/* its ports are among the first AIFAB_GEN_MAX_PORTS */
	for (w = 0; w < g->n_wk; w++)
		for (p = 0; p < RTE_MIN(g->env.n_ports, AIFAB_GEN_MAX_PORTS);
		     p++) {
			const struct gen_port *gp = &g->wk[w].port[p];

			out[p].rx_packets += gp->rx_packets;
			out[p].rx_bytes += gp->rx_bytes;
			out[p].tx_packets += gp->tx_packets;
			out[p].tx_bytes += gp->tx_bytes;
		}
}

static struct aifab_stats_set *
gen_stats(const void *st)
{
	return ((const struct gen *)st)->stats;
}

static void *
gen_init_refuse(const struct aifab_env *env, unsigned int n_workers,
		char *err, size_t errlen)
{
	RTE_SET_USED(env);
	RTE_SET_USED(n_workers);
	snprintf(err, errlen, "generator: create it with aifab_gen_create()");
	return NULL;
}

const struct aifab_pipeline_ops aifab_generator_ops = {
	.name = "generator",
	.init = gen_init_refuse,
	.poll = gen_poll,
	.drain = gen_drain,
	.done = gen_done,
	.port_counters = gen_port_counters,
	.report = gen_report,
	.fini = gen_fini,
	.stats = gen_stats,
	.next_event = gen_next_event,
};
