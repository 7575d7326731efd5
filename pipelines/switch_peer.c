/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Virtual time: the model of what sits at the other end of a port (struct
 * sw_peer): the link into the port, busy one frame after another, and the
 * peer honouring the PFC the switch sends it (with replay_peer_pause).
 * switch_vt.c reads it to time arrivals; switch_tx.c tells it of PFC sent.
 */
#include "switch_priv.h"

/* The link into port @p p is busy from @p t for one frame: exact, the
 * fraction of a ns carried from frame to frame. */
void
sw_link_busy(const struct sw *sw, struct sw_peer *pe, uint16_t p, uint64_t t,
	     uint32_t len)
{
	uint32_t mbps = sw->env.ports[p].speed_mbps;
	uint64_t bits_k = ((uint64_t)len + AIFAB_QOS_WIRE_OVERHEAD) * 8000;

	if (t > pe->link_free)
		pe->link_frac = 0; /* an idle link starts on a whole ns */
	pe->link_free = RTE_MAX(t, pe->link_free) + bits_k / mbps;
	pe->link_frac += (uint32_t)(bits_k % mbps);
	if (pe->link_frac >= mbps) {
		pe->link_frac -= mbps;
		pe->link_free++;
	}
}

/* The peer's view of a PFC frame we sent out of @p port (virtual time),
 * its serialization starting at @p sent. */
void
sw_peer_pfc(struct sw *sw, struct sw_worker *wk, uint16_t port,
	    const struct aifab_pfc_frame *f, uint64_t sent)
{
	struct sw_peer *pe = &wk->peer[port];
	uint64_t at = sent + sw->peer_delay[port];
	unsigned int tc;

	for (tc = 0; tc < AIFAB_QOS_N_TC; tc++) {
		if (!(f->enable & (1u << tc)))
			continue;
		if (f->quanta[tc] == 0) {
			if (pe->until[tc] > at)
				pe->until[tc] = at;
			continue;
		}
		if (pe->until[tc] <= at)
			pe->from[tc] = at;
		pe->until[tc] = at + (uint64_t)f->quanta[tc] *
			AIFAB_PFC_QUANTUM_BITS * 1000 /
			sw->env.ports[port].speed_mbps;
	}
}
