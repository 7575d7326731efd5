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

/*
 * The whole-process clock marks a ring port's RX ring when it puts frames
 * in it (the tap's rx_mark; it says so with rx_marked before any poll).
 * A worker that is its instance's only one, whose RX queues (at most 64)
 * are each the one RX ring of an in-memory port without an RX fault
 * stage, then reads only the queues marked since: an unmarked ring is
 * empty, and its read would give nothing (no EOF to count: not a pcap).
 * Decided at the first poll, which reads every queue.
 */
static bool
sw_rx_by_mark(struct sw *sw, struct sw_worker *wk)
{
	unsigned int q;

	if (likely(wk->vc_rx_mode != 0))
		return wk->vc_rx_mode == 1;
	wk->vc_rx_mode = 2;
	if (!sw->vclock || sw->n_workers != 1 || wk->n_rxq == 0 ||
	    wk->n_rxq > 64)
		return false;
	for (q = 0; q < wk->n_rxq; q++) {
		const struct sw_rxq *rq = &wk->rxq[q];
		const struct aifab_port_rt *rt = &sw->env.ports[rq->port];

		if (!aifab_port_rx_clock_marked(rt) ||
		    rt->tap[0].rx_mark != NULL || rt->nb_rxq != 1 ||
		    rq->finite ||
		    wk->link[rq->port][AIFAB_FAULT_DIR_RX] != NULL)
			return false;
	}
	for (q = 0; q < wk->n_rxq; q++) {
		const struct aifab_port_rt *rt =
			&sw->env.ports[wk->rxq[q].port];

		aifab_port_rx_mark_to(rt, &wk->vc_rx, UINT64_C(1) << q);
		/* sw_rx() reads the clock's wire (rx_marked: it has one;
		 * aifab_port_rx_burst() would read it too) */
		wk->rxq[q].wire = aifab_port_rx_wire(rt);
	}
	/* from the next poll on; this one reads every queue */
	wk->vc_rx = wk->n_rxq == 64 ? UINT64_MAX :
		(UINT64_C(1) << wk->n_rxq) - 1;
	wk->vc_rx_mode = 1;
	return false;
}

/* RX queue @p q's bursts through ingress, up to the burst budget.
 * @return whether its ring may still hold frames (the last read took
 * all it asked for). */
static __rte_always_inline bool
sw_rx_queue(struct sw *sw, struct sw_worker *wk, unsigned int q,
	    struct rte_mbuf **pkts, unsigned int *handled)
{
	struct sw_rxq *rq = &wk->rxq[q];
	uint32_t budget = sw->burst;
	uint16_t n, ask;

	if (rq->exhausted)
		return false;
	do {
		ask = (uint16_t)RTE_MIN(budget, (uint32_t)SW_CHUNK);
		n = sw_rx(sw, wk, rq, pkts, ask);
		/* an empty read: nothing for ingress (its counters would
		 * add 0), and most queues are empty most polls */
		if (n != 0) {
			sw_ingress(sw, wk, rq->port, pkts, n);
			/* sw_egress_exact(): PFC to look at */
			wk->vc_in |= UINT64_C(1) << rq->port;
		}
		*handled += n;
		budget -= n;
	} while (n == SW_CHUNK && budget > 0);
	return n == ask && ask != 0;
}

/*
 * The queues the clock marked (sw_rx_by_mark()), in queue order, as
 * sw_rx_queue() of each would read them: from each wire the frames it
 * delivered, up to the burst budget, in chunks of SW_CHUNK from its
 * first (so a chunk is the burst sw_rx_queue() would give ingress); but
 * the chunks of several queues go to ingress as one burst of segments
 * (sw_ingress_segs()), up to SW_CHUNK frames: at one instant of the demo
 * each RX queue holds a frame or two, and a call per frame cost more
 * than the frame. Nothing ingress does changes a wire (the clock
 * delivers between steps), so reading a queue before the one before it
 * is processed reads the same frames. A queue stays marked when it gave
 * its whole budget (sw_rx_queue()'s "the last read took all it asked
 * for").
 */
static unsigned int
sw_rx_marked(struct sw *sw, struct sw_worker *wk)
{
	struct rte_mbuf *pkts[SW_CHUNK];
	struct sw_seg seg[SW_CHUNK];
	unsigned int handled = 0, nseg = 0, have = 0, q;
	uint32_t budget = sw->burst;
	uint64_t m;

	for (m = wk->vc_rx; m != 0; m &= m - 1) {
		struct sw_rxq *rq;
		uint32_t tot, off, c;

		q = (unsigned int)__builtin_ctzll(m);
		rq = &wk->rxq[q];
		tot = RTE_MIN(rq->wire->dlv - rq->wire->head, budget);
		if (tot != budget || budget == 0)
			wk->vc_rx &= ~(UINT64_C(1) << q);
		if (tot == 0)
			continue;
		wk->vc_in |= UINT64_C(1) << rq->port; /* sw_egress_exact() */
		handled += tot;
		for (off = 0; off < tot; off += c) {
			c = RTE_MIN(tot - off, (uint32_t)SW_CHUNK);
			if (have + c > SW_CHUNK) {
				sw_ingress_segs(sw, wk, pkts, (uint16_t)have,
						seg, nseg);
				have = nseg = 0;
			}
			aifab_wire_read(rq->wire, pkts + have, (uint16_t)c);
			seg[nseg].port = rq->port;
			seg[nseg++].n = (uint16_t)c;
			have += c;
		}
	}
	if (have != 0)
		sw_ingress_segs(sw, wk, pkts, (uint16_t)have, seg, nseg);
	return handled;
}

/*
 * Tests only (aifab_switch_gather_rx()): every RX queue read as
 * sw_rx_queue() reads it (chunks of up to SW_CHUNK, to its budget), the
 * chunks of several queues to ingress as one burst of segments, as
 * sw_rx_marked() does on the whole-process clock; a chunk whose size is
 * not known before the read starts a new burst unless one of SW_CHUNK
 * still fits. tests/fuzz/fuzz_switch_diff.c runs it against the
 * reference ingress, queue by queue: the same frames, counters and
 * order when nothing writes the RX queues during the poll.
 */
static unsigned int
sw_rx_gather(struct sw *sw, struct sw_worker *wk)
{
	struct rte_mbuf *pkts[SW_CHUNK];
	struct sw_seg seg[SW_CHUNK];
	unsigned int handled = 0, nseg = 0, have = 0, q;

	for (q = 0; q < wk->n_rxq; q++) {
		struct sw_rxq *rq = &wk->rxq[q];
		uint32_t budget = sw->burst;
		uint16_t n, ask;

		if (rq->exhausted)
			continue;
		do {
			ask = (uint16_t)RTE_MIN(budget, (uint32_t)SW_CHUNK);
			if (have + ask > SW_CHUNK) {
				sw_ingress_segs(sw, wk, pkts, (uint16_t)have,
						seg, nseg);
				have = nseg = 0;
			}
			n = sw_rx(sw, wk, rq, pkts + have, ask);
			if (n != 0) {
				wk->vc_in |= UINT64_C(1) << rq->port;
				seg[nseg].port = rq->port;
				seg[nseg++].n = n;
				have += n;
			}
			handled += n;
			budget -= n;
		} while (n == SW_CHUNK && budget > 0);
	}
	if (have != 0)
		sw_ingress_segs(sw, wk, pkts, (uint16_t)have, seg, nseg);
	return handled;
}

/* Real time: each RX queue's burst through ingress, then egress. */
static unsigned int
sw_poll_real(struct sw *sw, struct sw_worker *wk, uint64_t now)
{
	struct rte_mbuf *pkts[SW_CHUNK];
	unsigned int handled = 0, q;

	wk->now = now;
	wk->vc_next_ok = false; /* sw_next_event(): the poll changes it */
	if (unlikely(sw->n_watch != 0))
		sw_link_state(sw, wk);
	if (sw_rx_by_mark(sw, wk)) {
		/* the marked queues, in queue order as below */
		handled = sw_rx_marked(sw, wk);
	} else if (unlikely(sw->gather_rx)) {
		handled = sw_rx_gather(sw, wk);
	} else {
		for (q = 0; q < wk->n_rxq; q++)
			sw_rx_queue(sw, wk, q, pkts, &handled);
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
		/* the whole-process clock's summary: the ports whose
		 * counters may have changed since the last mirror */
		if (wk->vc_act_ok)
			sw_stats_sync_ports(sw, wk);
		else
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
	wk->vc_next_ok = false;
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
