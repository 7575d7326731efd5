/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The one virtual clock ([general] clock = virtual, app/vclock.c): when a
 * switch worker next has something to do without a frame arriving. The
 * poll itself is the real-time one (switch_poll.c), run at that instant
 * on the app's clock in nanoseconds.
 */
#include "switch_priv.h"

/* Half a shaper bucket at the fastest of this instance's ports: while a
 * queue holds packets, egress runs at least this often, so the shaper
 * never lets a wire it feeds go idle (a wire serializes what it gets). */
static uint64_t
sw_vclock_step(const struct sw *sw)
{
	const struct aifab_profile *prof = sw->env.prof;
	uint64_t step = UINT64_MAX;
	uint16_t p;

	for (p = 0; p < sw->env.n_ports; p++) {
		const struct aifab_port_rt *rt = &sw->env.ports[p];
		uint64_t bucket_ns;

		if (aifab_env_port_foreign(&sw->env, p) || rt->speed_mbps == 0)
			continue;
		bucket_ns = (uint64_t)RTE_MAX(prof->qos.shaper_burst_bytes,
			(uint32_t)rt->mtu + 64) * 8000 * sw->n_workers /
			rt->speed_mbps;
		step = RTE_MIN(step, RTE_MAX(bucket_ns / 2, (uint64_t)1));
	}
	return step == UINT64_MAX ? 1000 : step;
}

/* Whether worker @p wk holds anything a poll must move on: queued
 * packets, a TX buffer, a stormed priority waiting for its restoration. */
static bool
sw_vclock_busy(const struct sw *sw, const struct sw_worker *wk)
{
	uint16_t p;

	if (!sw_queues_empty(sw, wk))
		return true;
	for (p = 0; p < sw->env.n_ports; p++)
		if (wk->tx[p].n != 0 || wk->eg[p].stormed_seen != 0)
			return true;
	return false;
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
 * A stage not started yet (its clock starts at its first use) is polled
 * each @p step. */
static uint64_t
sw_vclock_link(const struct aifab_link *l, uint64_t now, uint64_t step)
{
	uint64_t t = UINT64_MAX;

	if (!l->started)
		return now + step;
	if (l->head != l->tail)
		t = RTE_MAX(l->origin + l->ring[l->head & l->mask].t, now + 1);
	if (l->p.storm_prio != 0 && (l->p.storm_for_ns == 0 ||
	    l->origin + l->p.storm_at_ns + l->p.storm_for_ns > now))
		t = RTE_MIN(t, RTE_MAX(l->origin + l->storm_next, now + 1));
	if (l->p.down_for_ns != 0) {
		t = sw_vclock_at(l, l->p.down_at_ns, now, t);
		t = sw_vclock_at(l, l->p.down_at_ns + l->p.down_for_ns, now, t);
	}
	return t;
}

uint64_t
sw_next_event(const void *st, unsigned int w, uint64_t now)
{
	const struct sw *sw = st;
	const struct sw_worker *wk = &sw->w[w];
	uint64_t step = sw_vclock_step(sw), t = UINT64_MAX;
	uint16_t p;
	unsigned int d;

	if (sw_vclock_busy(sw, wk))
		t = now + step;
	for (p = 0; wk->n_links != 0 && p < sw->env.n_ports; p++)
		for (d = 0; d < 2; d++)
			if (wk->link[p][d] != NULL)
				t = RTE_MIN(t, sw_vclock_link(wk->link[p][d],
							      now, step));
	return t;
}
