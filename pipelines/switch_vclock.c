/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Virtual time, both clocks (pcap replays, switch_vt.c, and the one
 * clock of [general] clock = virtual, app/vclock.c): when a switch worker
 * next has something to do without a frame arriving. Egress is event
 * driven: each port is a transmitter, and its next frame starts at the
 * first instant the port is free (the previous frame's wire time over),
 * the shaper has the tokens and one of its queued TCs is not paused; the
 * next event is the earliest such instant over the ports, or a PFC frame
 * due (XOFF, refresh, XON), the watchdog's detection or restoration, the
 * end of a pause it must see, or a fault stage's own event. Nothing is
 * polled on a fixed step.
 */
#include "switch_priv.h"

/* When the shaper of @p port holds a frame's tokens, from @p now. */
static uint64_t
sw_shaper_at(const struct sw *sw, const struct sw_egress *eg, uint16_t port,
	     uint64_t now)
{
	const struct aifab_qos_shaper_cfg *c = &sw->shaper[port];
	int64_t tok = eg->shaper.tokens;
	uint64_t dt = now > eg->shaper.last ? now - eg->shaper.last : 0;

	if (dt >= c->dt_full)
		tok = c->depth;
	else
		tok = RTE_MIN(tok + (int64_t)(dt * c->fill), c->depth);
	if (tok >= c->ready)
		return now;
	return now + ((uint64_t)(c->ready - tok) + c->fill - 1) / c->fill;
}

/* When the next frame of @p port starts: the port free, the shaper's
 * tokens there, and a queued TC unpaused (the pause ends at the latest
 * `until` of its paused priorities). */
static uint64_t
sw_depart_at(const struct sw *sw, const struct sw_egress *eg, uint16_t port,
	     uint64_t now)
{
	const struct aifab_pfc_share *sh = &sw->pfc_share[port];
	uint64_t t = RTE_MAX(now, eg->ser.free_ns), u = UINT64_MAX;
	uint8_t paused, tc, prio;

	t = sw_shaper_at(sw, eg, port, t);
	paused = aifab_pfc_share_paused_mask(sh, t);
	if (sw->wd.enabled)
		paused &= (uint8_t)~(sw_stormed(sw, port) &
				     (sw->wd.drop | sw->wd.forward));
	if (eg->nonempty & (uint8_t)~sw->tcs_of_prios[paused])
		return t;
	for (tc = 0; tc < AIFAB_QOS_N_TC; tc++) {
		uint64_t end = t;

		if (!(eg->nonempty & (1u << tc)))
			continue;
		for (prio = 0; prio < AIFAB_PFC_NUM_PRIO; prio++)
			if (paused & sw->prios_of_tc[tc] & (1u << prio))
				end = RTE_MAX(end, __atomic_load_n(
					&sh->until[prio], __ATOMIC_RELAXED));
		u = RTE_MIN(u, end);
	}
	return u;
}

/* The PFC frame @p port (as an ingress port) sends next: XOFF or XON not
 * sent yet at once, else the refresh of the XOFF it keeps. */
static uint64_t
sw_pfc_gen_at(const struct sw *sw, const struct sw_egress *eg, uint16_t port,
	      uint64_t now)
{
	const struct aifab_pfc_gen *g = &eg->pfc_gen;
	uint8_t on = sw->pfc_gen[port].enabled, held;
	uint64_t t = UINT64_MAX, r;
	unsigned int prio;

	if ((g->want ^ g->told) & on)
		return now;
	held = g->want & g->told & on;
	for (prio = 0; held != 0 && prio < AIFAB_PFC_NUM_PRIO; prio++) {
		if (!(held & (1u << prio)))
			continue;
		r = g->share != NULL ? __atomic_load_n(
			&g->share->next_refresh[prio], __ATOMIC_RELAXED) :
			g->next_refresh[prio];
		t = RTE_MIN(t, RTE_MAX(r, now));
	}
	return t;
}

/* The watchdog of @p port (its owner): a storm detected (paused since
 * the episode's first PFC for the detection time), the episode's pause
 * running out first (the poll that sees it ends the episode), a stormed
 * priority restored (no PFC for the restoration time). */
static uint64_t
sw_wd_at(const struct sw *sw, const struct sw_egress *eg, uint16_t port,
	 uint64_t now)
{
	const struct aifab_pfc_wd *wd = &eg->wd;
	const struct aifab_pfc_share *sh = &sw->pfc_share[port];
	uint64_t t = UINT64_MAX, until, at;
	unsigned int prio;

	for (prio = 0; prio < AIFAB_PFC_NUM_PRIO; prio++) {
		uint8_t bit = (uint8_t)(1u << prio);

		if (!(sw->wd.enabled & bit))
			continue;
		if (wd->stormed & bit) {
			at = wd->last_feed[prio] + sw->wd.restore_cycles[prio];
		} else if (wd->active & bit) {
			until = __atomic_load_n(&sh->until[prio],
						__ATOMIC_RELAXED);
			at = RTE_MIN(until, wd->start[prio] +
				     sw->wd.detect_cycles[prio]);
		} else {
			continue;
		}
		t = RTE_MIN(t, RTE_MAX(at, now));
	}
	return t;
}

/* Earliest of @p t and the stage time @p rel (ns from its origin), if
 * still to come. */
static uint64_t
sw_vclock_at(const struct aifab_link *l, uint64_t rel, uint64_t now,
	     uint64_t t)
{
	uint64_t at = l->origin + rel;

	return at > now ? RTE_MIN(t, at) : t;
}

/* When fault stage @p l next acts by itself: its delay line's next
 * frame leaves, a storm XOFF is due, a link-down window opens or closes.
 * A stage not started yet (its clock starts at its first use) starts at
 * the next egress run if it storms, else at its first frame. */
static uint64_t
sw_vclock_link(const struct aifab_link *l, uint64_t now)
{
	uint64_t t = UINT64_MAX;

	if (!l->started)
		return l->p.storm_prio != 0 ? now : UINT64_MAX;
	if (l->head != l->tail)
		t = RTE_MAX(l->origin + l->ring[l->head & l->mask].t, now);
	if (l->p.storm_prio != 0 && (l->p.storm_for_ns == 0 ||
	    l->origin + l->p.storm_at_ns + l->p.storm_for_ns > now))
		t = RTE_MIN(t, RTE_MAX(l->origin + l->storm_next, now));
	if (l->p.down_for_ns != 0) {
		t = sw_vclock_at(l, l->p.down_at_ns, now, t);
		t = sw_vclock_at(l, l->p.down_at_ns + l->p.down_for_ns, now, t);
	}
	return t;
}

/* An RX storm re-applies its XOFF the instant the pause it asked for
 * lapses (sw_link_storms(): `now_due`), not only at its refresh period:
 * that instant, while the storm window is open. */
static uint64_t
sw_vclock_storm_lapse(const struct sw *sw, const struct aifab_link *l,
		      uint16_t p, uint64_t now)
{
	uint64_t t = UINT64_MAX, u;
	unsigned int i;

	if (l == NULL || !l->started || l->p.storm_prio == 0 ||
	    now < l->origin + l->p.storm_at_ns ||
	    (l->p.storm_for_ns != 0 &&
	     l->origin + l->p.storm_at_ns + l->p.storm_for_ns <= now))
		return UINT64_MAX;
	for (i = 0; i < AIFAB_PFC_NUM_PRIO; i++)
		if ((l->p.storm_prio >> i) & 1) {
			u = __atomic_load_n(&sw->pfc_share[p].until[i],
					    __ATOMIC_RELAXED);
			if (u > now)
				t = RTE_MIN(t, u);
		}
	return t;
}

/*
 * The whole-process clock: note which ports have something of their own
 * to do as the exact egress run (the end of every poll) leaves them, so
 * that sw_egress_next() visits those only. A port outside the set is idle
 * until a frame reaches the switch, and that is a poll, which ends in an
 * exact egress run and a new set. The set stays unused (every port
 * visited) where another worker or a stage can change a port's state
 * between polls: more than one worker (shared PFC state and stormed
 * mask), fault stages (their own clocks). The PFC watchdog's ports are
 * in the set while the watchdog has state (vc_wd: fed since it was last
 * quiet, in an episode, stormed), which only a PFC frame coming in (a
 * poll) starts.
 *
 * The sets are kept without visiting every port: the ports with a
 * queued frame are the summary's (vc_ne, exact after the run; the TX
 * buffers are empty after its flush); PFC generation can have something
 * to look at only on a port it had something on before or that a frame
 * came in by since (a port with nothing buffered from it, nothing
 * wanted or told, changes only by a frame coming in by it). And the
 * next event, which the loop asks for at this same instant after the
 * other pipelines' polls, is computed here, with this run's lines still
 * in the cache (sw_next_event()).
 */
void
sw_vclock_note(const struct sw *sw, struct sw_worker *wk)
{
	uint64_t act, pfc = 0, pfc_w = 0, cand, m;
	uint16_t p;

	if (unlikely(!wk->vc_act_ok)) {
		wk->vc_in = 0;
		if (!sw->vclock || sw->n_workers != 1 || wk->n_links != 0)
			return;
		/* from now on: the summary (vc_ne was set at every enqueue
		 * and cleared nowhere yet: make it exact) */
		wk->vc_act_ok = true;
		wk->vc_ne = 0;
		wk->vc_pfc_en = 0;
		for (p = 0; p < sw->env.n_ports; p++) {
			if (wk->eg[p].nonempty != 0)
				wk->vc_ne |= UINT64_C(1) << p;
			wk->eg[p].tc_dirty = 0xff; /* the first mirror */
			if (sw->pfc_gen[p].enabled != 0)
				wk->vc_pfc_en |= UINT64_C(1) << p;
		}
		wk->vc_dirty = UINT64_MAX; /* the first mirror: every port */
		/* every port's watchdog polled at the first summary run */
		wk->vc_wd = sw_wd_all(sw);
		wk->vc_pfc = wk->vc_pfc_en;
	}
	act = wk->vc_ne | wk->vc_wd;
	cand = (wk->vc_pfc | wk->vc_in) & wk->vc_pfc_en;
	for (m = cand; m != 0; m &= m - 1) {
		const struct aifab_pfc_gen *g;

		p = (uint16_t)__builtin_ctzll(m);
		g = &wk->eg[p].pfc_gen;
		if (((g->want | g->told) & sw->pfc_gen[p].enabled) != 0)
			pfc_w |= UINT64_C(1) << p;
		/* nothing buffered from the port, nothing wanted or told:
		 * no PFC to poll, until a frame comes in by it (vc_in) */
		if (sw_pfc_gen_live(sw, wk, p))
			pfc |= UINT64_C(1) << p;
	}
	wk->vc_in = 0;
	wk->vc_act = act | pfc_w;
	wk->vc_pfc = pfc;
	wk->vc_pfc_w = pfc_w;
	wk->vc_next = sw_egress_next(sw, wk, wk->now);
	wk->vc_next_at = wk->now;
	wk->vc_next_ok = true;
}

/* sw_egress_next() for port @p p: false when @p now is due already
 * (then *t = now). */
static inline bool
sw_egress_next_port(const struct sw *sw, const struct sw_worker *wk,
		    uint16_t p, uint64_t now, uint64_t *tp)
{
	const struct sw_egress *eg = &wk->eg[p];
	uint64_t t = *tp;
	unsigned int d;

	if (wk->tx[p].n != 0) {
		*tp = now;
		return false;
	}
	if (eg->nonempty != 0)
		t = RTE_MIN(t, sw_depart_at(sw, eg, p, now));
	if (sw->pfc_gen[p].enabled)
		t = RTE_MIN(t, sw_pfc_gen_at(sw, eg, p, now));
	if (sw->wd.enabled) {
		if (sw_stormed(sw, p) != eg->stormed_seen) {
			*tp = now;
			return false;
		}
		if (sw_wd_owner(sw, wk))
			t = RTE_MIN(t, sw_wd_at(sw, eg, p, now));
	}
	for (d = 0; wk->n_links != 0 && d < 2; d++)
		if (wk->link[p][d] != NULL)
			t = RTE_MIN(t, sw_vclock_link(wk->link[p][d], now));
	if (wk->n_links != 0)
		t = RTE_MIN(t, sw_vclock_storm_lapse(sw,
				wk->link[p][AIFAB_FAULT_DIR_RX], p, now));
	*tp = t;
	return t != now;
}

/*
 * The earliest instant, at or after @p now, at which an egress run of
 * @p wk does something: @p now itself if something is due already (an
 * arrival's PFC thresholds to check, a TX buffer, a stormed mask not yet
 * acted on). UINT64_MAX: only a frame can wake it.
 */
uint64_t
sw_egress_next(const struct sw *sw, const struct sw_worker *wk, uint64_t now)
{
	uint64_t t = UINT64_MAX, act;
	uint16_t p;

	if (wk->vt_due)
		return now;
	if (wk->vc_act_ok) {
		for (act = wk->vc_act; act != 0; act &= act - 1)
			if (!sw_egress_next_port(sw, wk,
						 (uint16_t)__builtin_ctzll(act),
						 now, &t))
				return now;
		return t;
	}
	for (p = 0; p < sw->env.n_ports; p++)
		if (!sw_egress_next_port(sw, wk, p, now, &t))
			return now;
	return t;
}

uint64_t
sw_next_event(void *st, unsigned int w, uint64_t now)
{
	const struct sw *sw = st;
	const struct sw_worker *wk = &sw->w[w];

	/* as the last exact run left it (sw_vclock_note()), if nothing
	 * happened since: no poll, the same instant */
	if (wk->vc_next_ok && now == wk->vc_next_at)
		return wk->vc_next;
	return sw_egress_next(sw, wk, now);
}

/*
 * The clock may skip this worker's polls before sw_next_event()'s time
 * (aifab_pipeline_ops.next_event_exact): with one worker, what a poll
 * acts on is its own (its ports' queues, transmitters, shapers, PFC
 * generation and received pauses, the watchdog, fault stages), which only
 * its polls and the frames reaching it change; the answer is the
 * earliest instant any of them acts (sw_egress_next()), and a poll before
 * it with nothing received does nothing. Several workers share the PFC
 * state and the watchdog's stormed mask: one worker's poll can move
 * another's next event, so those are polled at every step.
 */
bool
sw_next_event_exact(const void *st, unsigned int w)
{
	const struct sw *sw = st;

	RTE_SET_USED(w);
	return sw->n_workers == 1;
}
