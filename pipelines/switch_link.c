/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Link state into ECMP: which ports the workers watch (set-up), and each
 * worker following them in its own copy of the groups (per poll in real
 * time, per arrival in virtual time).
 */
#include <stdio.h>

#include <rte_malloc.h>

#include "switch_priv.h"

/* A fault stage whose down window may take port @p p down. */
static bool
link_may_go_down(const struct sw *sw, unsigned int p)
{
	const struct aifab_port_fault *f = sw->env.prof->ports[p].fault;

	return f[AIFAB_FAULT_DIR_RX].down_for_us != 0 ||
	       f[AIFAB_FAULT_DIR_TX].down_for_us != 0;
}

/*
 * The groups of several members (a single next hop is left alone: frames
 * to its down port are lost at the fault stage or the NIC) and the ports
 * whose link state the workers follow: this switch's ports with a
 * fault-stage down window, and, when the app publishes the NICs' link
 * state, every NIC port (an in-memory ring port has no NIC: the app
 * never marks it down, app_link_poll(), so watching it, once per poll,
 * would only read its 0).
 */
int
sw_link_watch_setup(struct sw *sw, int socket, char *err, size_t errlen)
{
	unsigned int g, p;

	sw->multi = rte_zmalloc_socket("aifab_sw_multi",
		sizeof(*sw->multi) * RTE_MAX(sw->n_egroups, 1u), 0, socket);
	if (sw->multi == NULL) {
		snprintf(err, errlen, "switch: out of memory (raise -m)");
		return -1;
	}
	for (g = 0; g < sw->n_egroups; g++)
		if (sw->groups[g].n_members > 1)
			sw->multi[sw->n_multi++] = g;
	for (p = 0; p < sw->env.n_ports; p++)
		if (!aifab_env_port_foreign(&sw->env, p) &&
		    ((sw->env.link_down != NULL &&
		      !aifab_port_is_ring(&sw->env.ports[p])) ||
		     link_may_go_down(sw, p)))
			sw->watch[sw->n_watch++] = (uint16_t)p;
	return 0;
}

/*
 * Port @p p as worker @p wk sees it now: down while the NIC says so, or
 * inside the down window of the port's RX or TX fault stage. A stage no
 * frame has passed yet has no origin: up (asking would set the origin).
 */
static bool
sw_port_down(const struct sw *sw, const struct sw_worker *wk, uint16_t p,
	     uint64_t ns)
{
	unsigned int d;

	if (sw->env.link_down != NULL &&
	    __atomic_load_n(&sw->env.link_down[p], __ATOMIC_RELAXED) != 0)
		return true;
	for (d = 0; d < 2; d++) {
		struct aifab_link *l = wk->link[p][d];

		if (l != NULL && l->p.down_for_ns != 0 && l->started &&
		    aifab_link_down(l, ns))
			return true;
	}
	return false;
}

/*
 * Follow the watched ports' link state in this worker's copy of the
 * groups: a member whose port went down leaves its groups (resilient:
 * only its buckets move; plain: hash mod the live members), and comes
 * back when the port does. Once per poll (real time) or per arrival
 * (virtual time), on the worker's own clock, when sw_link_state()
 * (switch_priv.h) did not find every port as the worker last saw it.
 */
void
sw_link_state_set(struct sw *sw, struct sw_worker *wk)
{
	/* only a fault stage's down window reads the time */
	uint64_t ns = wk->n_links != 0 ? sw_ns(sw, wk->now) : 0;
	unsigned int i, k, s;

	for (i = 0; i < sw->n_watch; i++) {
		uint16_t p = sw->watch[i];
		bool down = sw_port_down(sw, wk, p, ns);

		if (down == (wk->port_down[p] != 0))
			continue;
		wk->port_down[p] = down;
		wk->port_down_events[p] += down;
		for (k = 0; k < sw->n_multi; k++) {
			uint32_t g = sw->multi[k], slots = 0;
			int moved = aifab_ecmp_group_port_set(&wk->groups[g],
				sw->nh_port, sw->n_nh, p, !down, &slots);

			if (slots == 0)
				continue;
			wk->elink[g].remaps++;
			wk->elink[g].remap_buckets += (uint64_t)RTE_MAX(moved, 0);
			for (s = 0; down && s < AIFAB_FIB_MAX_MEMBERS; s++)
				wk->elink[g].down_events[s] += (slots >> s) & 1;
		}
	}
}
