/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The generator pipeline: N emulated ranks walk their collective schedule
 * and send RoCEv2 RDMA WRITEs; what comes back is accounted per QP and per
 * port. This file is the ops table the app drives; one poll is
 *
 *   receive   generator_rx.c: every port's RX burst, dispatched
 *   send      generator_tx.c: every rank (round robin from a rotating
 *             first) posts what its schedule allows and sends up to a
 *             burst, paced; closed-loop state in generator_cl.c
 *   flush     generator_tx.c: every port's queues, unless paused by PFC
 *
 * with the counters mirrored to lib/stats about every millisecond
 * (generator_report.c). Building and freeing: generator_setup.c.
 *
 * One worker owns everything: no sharing, no atomics; counters are plain.
 */
#include <stdio.h>
#include <string.h>

#include <rte_common.h>

#include "generator_priv.h"

/* ---- ops ----------------------------------------------------------------- */

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
	g->started = true;
}

/* The clock of this poll: the app's TSC, or the virtual one advanced. */
static uint64_t
gen_clock(struct gen *g, uint64_t now)
{
	if (g->p.virtual_tick_ns == 0)
		return now;
	now = g->vnow;
	g->vnow += g->p.virtual_tick_ns;
	return now;
}

static unsigned int
gen_poll(void *st, unsigned int w, uint64_t now)
{
	struct gen *g = st;
	unsigned int handled = 0;
	uint32_t i, n = g->n_own;
	uint64_t tsc = now;
	uint16_t u;

	RTE_SET_USED(w);
	/* Counters to lib/stats about every millisecond of the app's clock
	 * (the last poll's: readers see at most that much staleness). */
	if (now - g->last_sync >= g->sync_cycles) {
		g->last_sync = now;
		gen_stats_sync(g);
	}
	now = gen_clock(g, now);
	g->last_now = now;
	/* Before the start (several servers) the ports are only drained:
	 * a leader's start frame may be among what arrives. */
	if (!g->started && gen_start_due(g, tsc, now))
		gen_start(g, now);
	if (g->p.rx || !g->started) {
		unsigned int got = gen_rx_poll(g, now);

		if (got > 0)
			g->last_rx = now;
		handled += got;
	}
	if (!g->started && gen_start_due(g, tsc, now))
		gen_start(g, now);
	if (!g->started)
		return handled;
	/* The ranks emulated here, round robin from a rotating first. */
	for (i = 0; i < n; i++) {
		uint32_t r = g->own_list[(g->rr_rank + i) % n];

		handled += g->p.closed_loop ? gen_tx_cl_rank_poll(g, r, now) :
			gen_tx_rank_poll(g, r, now);
	}
	g->rr_rank = (g->rr_rank + 1) % n;
	for (u = 0; u < g->n_used_ports; u++)
		gen_tx_flush(g, g->used_ports[u], now);
	return handled;
}

static void
gen_drain(void *st, unsigned int w, uint64_t now)
{
	struct gen *g = st;

	RTE_SET_USED(w);
	now = gen_clock(g, now);
	if (g->p.rx)
		gen_rx_poll(g, now);
	gen_tx_drain(g);
	gen_stats_sync(g); /* the final values: readers now match the report */
}

static bool
gen_done(const void *st)
{
	const struct gen *g = st;
	uint32_t r;
	uint16_t u;

	if (g->start.state == AIFAB_GEN_REFUSED)
		return true;            /* another profile: nothing to run */
	for (r = 0; r < g->n_own; r++)
		if (g->ranks[g->own_list[r]].state != RANK_DONE)
			return false;
	/* Ranks on other hosts may still need our ACKs (their last ones
	 * lost): closed loop, stay until the fabric has been quiet for
	 * GEN_LINGER_S or 8 retransmit timeouts. */
	if (g->p.closed_loop && g->n_own < g->p.n_ranks &&
	    g->last_now - g->last_rx < g->linger)
		return false;
	for (u = 0; u < g->n_used_ports; u++)
		if (g->port[g->used_ports[u]].n_tx != 0 ||
		    g->port[g->used_ports[u]].n_cnp != 0)
			return false;
	return g->started;
}

static void
gen_port_counters(const void *st, struct aifab_port_counters *out)
{
	const struct gen *g = st;
	uint16_t p;

	memset(out, 0, sizeof(*out) * g->env.n_ports);
	/* its ports are among the first AIFAB_GEN_MAX_PORTS */
	for (p = 0; p < RTE_MIN(g->env.n_ports, AIFAB_GEN_MAX_PORTS); p++) {
		out[p].rx_packets = g->port[p].rx_packets;
		out[p].rx_bytes = g->port[p].rx_bytes;
		out[p].tx_packets = g->port[p].tx_packets;
		out[p].tx_bytes = g->port[p].tx_bytes;
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
