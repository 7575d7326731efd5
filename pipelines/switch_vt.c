/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Virtual time (pcap replays, [general] virtual_time): one poll of a
 * worker on a clock that is the arrival time of the packet being handled.
 * Arrivals are merged by time over the worker's inputs (pcap time, the
 * link into the port, the peer's PFC pause: switch_peer.c); egress runs
 * up to each arrival.
 */
#include <rte_mbuf_dyn.h>
#include <rte_mempool.h>

#include "switch_priv.h"

static inline uint64_t
sw_pkt_time(const struct sw *sw, const struct rte_mbuf *m)
{
	/* net_pcap stamps microseconds. */
	if (!(m->ol_flags & sw->ts_flag))
		return 0;
	return *RTE_MBUF_DYNFIELD(m, sw->ts_off, const uint64_t *) * 1000;
}

/* TC the switch will give the staged head of @p rq (cached). */
static uint8_t
sw_head_tc(const struct sw *sw, struct sw_worker *wk, struct sw_rxq *rq)
{
	struct aifab_pkt_info pi;

	if (rq->head_tc < 0) {
		if (aifab_pkt_parse_mbuf(rq->st[rq->st_next], &pi,
					 wk->scratch[0], false) != 0 ||
		    (pi.l3 != AIFAB_L3_IPV4 && pi.l3 != AIFAB_L3_IPV6))
			rq->head_tc = 0;
		else
			rq->head_tc = aifab_qos_classify(&sw->map,
				sw->trust[rq->port], pi.tos, pi.n_vlans > 0,
				pi.pcp);
	}
	return (uint8_t)rq->head_tc;
}

/*
 * When the staged head of @p rq reaches the switch: its pcap time, but not
 * before the link into the port is free, nor, if the peer honours our PFC,
 * while its priority is paused at the peer.
 */
static uint64_t
sw_arrival(const struct sw *sw, struct sw_worker *wk, struct sw_rxq *rq)
{
	const struct sw_peer *pe = &wk->peer[rq->port];
	uint64_t t = RTE_MAX(sw_pkt_time(sw, rq->st[rq->st_next]),
			     pe->link_free);

	if (sw->peer_pause) {
		uint8_t tc = sw_head_tc(sw, wk, rq);

		if (pe->from[tc] <= t && t < pe->until[tc])
			t = pe->until[tc];
	}
	return t;
}

/* Egress runs after the inputs are consumed, per poll (then the app
 * looks at done()). */
#define SW_VT_DRAIN_RUNS 256u

/*
 * Virtual time: the clock is the arrival time of the packet being handled.
 * Staged bursts are merged by arrival; before each arrival, the egress
 * events that come earlier run at their instants (sw_egress_next()), and
 * once every input is consumed they run on until the queues have
 * drained. At one instant arrivals come first, then the egress run.
 * Results depend only on the inputs and the profile.
 */
unsigned int
sw_poll_virtual(struct sw *sw, struct sw_worker *wk)
{
	unsigned int handled = 0, runs = 0, q;

	for (;;) {
		struct sw_rxq *best = NULL;
		uint64_t best_t = UINT64_MAX, e;
		struct rte_mbuf *m;

		for (q = 0; q < wk->n_rxq; q++) {
			struct sw_rxq *rq = &wk->rxq[q];
			uint64_t t;

			if (rq->st_next == rq->st_n && !rq->exhausted) {
				/* net_pcap loses a record it has no mbuf for:
				 * let the queues drain before reading on. */
				if (rte_mempool_avail_count(
					sw->env.ports[rq->port].pool) <
				    2 * SW_CHUNK && !sw_queues_empty(sw, wk)) {
					e = sw_egress_next(sw, wk, wk->now);
					if (e != UINT64_MAX)
						sw_egress_exact(sw, wk, e);
					return handled;
				}
				rq->st_n = sw_rx(sw, wk, rq, rq->st, SW_CHUNK);
				rq->st_next = 0;
				rq->head_tc = -1;
				/* Empty but not known to be over: wait. */
				if (rq->st_n == 0 && !rq->exhausted)
					return handled;
			}
			if (rq->st_next == rq->st_n)
				continue;
			t = sw_arrival(sw, wk, rq);
			if (t < best_t) {
				best_t = t;
				best = rq;
			}
		}
		/* Egress first while it acts before the next arrival: what it
		 * does (an XOFF reaching the peer) may move that arrival. */
		e = sw_egress_next(sw, wk, wk->now);
		if (e < best_t) {
			sw_egress_exact(sw, wk, e);
			if (best == NULL && ++runs >= SW_VT_DRAIN_RUNS)
				return handled;
			continue;
		}
		if (best == NULL)
			break;
		best_t = RTE_MAX(best_t, wk->now);
		wk->now = best_t;
		wk->now_ns = best_t;
		m = best->st[best->st_next++];
		best->head_tc = -1;
		sw_link_busy(sw, &wk->peer[best->port], best->port, best_t,
			     m->pkt_len);
		/* link state as of this arrival */
		if (unlikely(sw->n_watch != 0))
			sw_link_state(sw, wk);
		sw_ingress(sw, wk, best->port, &m, 1);
		wk->vt_due = true;
		if (++handled >= sw->burst)
			return handled;
	}
	return handled;
}
