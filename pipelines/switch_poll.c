/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * One poll of a switch worker: in real time, each RX queue's burst
 * through ingress, the RX fault stages' delayed frames, then the egress
 * pass (on the whole-process virtual clock, the exact egress run at the
 * poll's instant); with pcap virtual time, switch_vt.c. Then the counters' mirror, and the
 * run's end: drain (free and count what is still held), done and idle.
 */
#include "switch_priv.h"

/* Real time: RX frames whose delay has passed go through ingress. */
static void
sw_link_rx_release(struct sw *sw, struct sw_worker *wk)
{
	struct rte_mbuf *pkts[SW_CHUNK];
	uint64_t ns = sw_ns(sw, wk->now);
	uint16_t p, n;

	for (p = 0; p < sw->env.n_ports; p++) {
		struct aifab_link *l = wk->link[p][AIFAB_FAULT_DIR_RX];

		if (l == NULL || !l->delaying)
			continue;
		while ((n = aifab_link_out(l, pkts, SW_CHUNK, ns)) > 0)
			sw_ingress(sw, wk, p, pkts, n);
	}
}

/* Real time: each RX queue's burst through ingress, then egress. */
static unsigned int
sw_poll_real(struct sw *sw, struct sw_worker *wk, uint64_t now)
{
	struct rte_mbuf *pkts[SW_CHUNK];
	unsigned int handled = 0, q;
	uint16_t n;

	wk->now = now;
	if (unlikely(sw->n_watch != 0))
		sw_link_state(sw, wk);
	for (q = 0; q < wk->n_rxq; q++) {
		struct sw_rxq *rq = &wk->rxq[q];
		uint32_t budget = sw->burst;

		if (rq->exhausted)
			continue;
		do {
			n = sw_rx(sw, wk, rq, pkts, (uint16_t)RTE_MIN(budget,
						(uint32_t)SW_CHUNK));
			sw_ingress(sw, wk, rq->port, pkts, n);
			if (n != 0) /* sw_egress_exact(): PFC to look at */
				wk->vc_in |= UINT64_C(1) << rq->port;
			handled += n;
			budget -= n;
		} while (n == SW_CHUNK && budget > 0);
	}
	if (unlikely(wk->n_links != 0))
		sw_link_rx_release(sw, wk);
	if (unlikely(sw->vclock)) /* the whole-process clock: exact egress */
		sw_egress_exact(sw, wk, now);
	else
		sw_egress_run(sw, wk, now);
	return handled;
}

unsigned int
sw_poll(void *st, unsigned int w, uint64_t now)
{
	struct sw *sw = st;
	struct sw_worker *wk = &sw->w[w];
	unsigned int n;

	if (sw->virtual_time)
		n = sw_poll_virtual(sw, wk);
	else
		n = sw_poll_real(sw, wk, now);
	if (now - wk->synced >= sw->sync_cycles) {
		wk->synced = now;
		sw_stats_sync(sw, wk);
	}
	return n;
}

/* Stopping: what the delay lines hold is freed and counted. */
static void
sw_link_drain(struct sw *sw, struct sw_worker *wk)
{
	struct rte_mbuf *pkts[SW_CHUNK];
	uint16_t p, n, i;
	unsigned int d;

	for (p = 0; p < sw->env.n_ports; p++)
		for (d = 0; d < 2; d++) {
			struct aifab_link *l = wk->link[p][d];

			if (l == NULL)
				continue;
			while ((n = aifab_link_out(l, pkts, SW_CHUNK,
						   UINT64_MAX)) > 0)
				for (i = 0; i < n; i++)
					sw_drop(wk, p,
						SW_DROP(flushed_at_stop),
						pkts[i]);
		}
	RTE_SET_USED(sw);
}

void
sw_drain(void *st, unsigned int w, uint64_t now)
{
	struct sw *sw = st;
	struct sw_worker *wk = &sw->w[w];
	unsigned int q, i;
	uint16_t p;

	/* Stopping: what is still queued or staged is freed and counted. */
	RTE_SET_USED(now);
	for (q = 0; q < wk->n_rxq; q++) {
		struct sw_rxq *rq = &wk->rxq[q];

		for (i = rq->st_next; i < rq->st_n; i++)
			sw_drop(wk, rq->port, SW_DROP(flushed_at_stop),
				rq->st[i]);
		rq->st_n = rq->st_next = 0;
	}
	sw_flush_queues(sw, wk);
	for (p = 0; p < sw->env.n_ports; p++)
		sw_tx_flush(sw, wk, p);
	sw_link_drain(sw, wk);
	sw_stats_sync(sw, wk);
}

bool
sw_done(const void *st)
{
	const struct sw *sw = st;
	unsigned int w, q, n = 0;

	for (w = 0; w < sw->n_workers; w++) {
		const struct sw_worker *wk = &sw->w[w];

		for (q = 0; q < wk->n_rxq; q++) {
			const struct sw_rxq *rq = &wk->rxq[q];

			if (!rq->finite ||
			    !__atomic_load_n(&rq->exhausted, __ATOMIC_ACQUIRE) ||
			    rq->st_next != rq->st_n)
				return false;
			n++;
		}
		/* Read from another lcore: a stale answer only delays the end. */
		if (!sw_queues_empty(sw, wk))
			return false;
	}
	return n > 0;
}

bool
sw_idle(const void *st)
{
	const struct sw *sw = st;
	unsigned int w;

	/* Read from another lcore: a stale answer only delays the end. */
	for (w = 0; w < sw->n_workers; w++)
		if (!sw_queues_empty(sw, &sw->w[w]))
			return false;
	return true;
}
