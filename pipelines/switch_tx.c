/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Switch egress, one pass per poll and port: configured PFC storms, PFC
 * frames to send, the PFC watchdog, the pause mask from received PFC,
 * then scheduler + shaper dequeue (ECN at dequeue) into the TX buffer,
 * and TX through the port's TX fault stage. PFC frames received are
 * honoured here too (sw_pfc_received, from ingress).
 */
#include <string.h>

#include <rte_ethdev.h>

#include "switch_priv.h"

/* ---- TX ----------------------------------------------------------------- */

/* Hand @p n frames to the PMD; what it refuses is dropped, counted. */
static void
sw_tx_burst(struct sw *sw, struct sw_worker *wk, uint16_t port,
	    struct rte_mbuf **pkts, uint16_t n, uint64_t bytes)
{
	uint16_t i, sent;

	sent = aifab_port_tx_burst(&sw->env.ports[port], wk->txq, pkts, n);
	for (i = sent; i < n; i++) {
		bytes -= pkts[i]->pkt_len;
		sw_drop(wk, port, SW_DROP(tx_full), pkts[i]);
	}
	SW_ADD(wk, sw_st_tx_pkts, port, sent);
	SW_ADD(wk, sw_st_tx_bytes, port, bytes);
}

/* TX through the port's fault stage: loss, link down, the delay line. */
static void
sw_tx_link(struct sw *sw, struct sw_worker *wk, uint16_t port,
	   struct aifab_link *l)
{
	struct sw_txbuf *tb = &wk->tx[port];
	uint64_t ns = sw_ns(sw, wk->now), bytes = 0;
	struct rte_mbuf *out[SW_TXBUF];
	uint16_t n, i;

	n = aifab_link_in(l, tb->pkts, tb->n, ns, wk->scratch[0]);
	tb->n = 0;
	tb->bytes = 0;
	if (n == 0)
		n = aifab_link_out(l, tb->pkts, SW_TXBUF, ns);
	while (n > 0) {
		for (i = 0; i < n; i++)
			bytes += tb->pkts[i]->pkt_len;
		sw_tx_burst(sw, wk, port, tb->pkts, n, bytes);
		if (!l->delaying || n < SW_TXBUF)
			break;
		bytes = 0;
		n = aifab_link_out(l, out, SW_TXBUF, ns);
		rte_memcpy(tb->pkts, out, sizeof(out[0]) * n);
	}
}

void
sw_tx_flush(struct sw *sw, struct sw_worker *wk, uint16_t port)
{
	struct sw_txbuf *tb = &wk->tx[port];
	struct aifab_link *l = wk->link[port][AIFAB_FAULT_DIR_TX];
	uint64_t bytes = tb->bytes; /* summed by sw_tx(): the PMD may free */

	if (unlikely(l != NULL)) {
		sw_tx_link(sw, wk, port, l);
		return;
	}
	if (tb->n == 0)
		return;
	tb->bytes = 0;
	sw_tx_burst(sw, wk, port, tb->pkts, tb->n, bytes);
	tb->n = 0;
}

/*
 * The whole-process clock's flush at the end of an exact run with the
 * summary (no fault stage): a ring port whose TX tap puts straight onto
 * the clock's wire and has no hook (no --capture) gets the frames
 * through that put, without sw_tx_burst()'s read of the port (a line of
 * its own per departure); what the put does not take goes the ring
 * port's way (aifab_port_ring_tx(), whose own put then takes nothing
 * either: the wire's FIFO is full or frames wait in the TX ring). The
 * same frames, counters and drops as sw_tx_flush().
 */
static void
sw_tx_flush_vc(struct sw *sw, struct sw_worker *wk, uint16_t port)
{
	struct sw_txbuf *tb = &wk->tx[port];
	uint64_t bytes;
	uint16_t i, n, sent;

	if (tb->n == 0)
		return;
	if (unlikely(tb->vc_put == NULL)) {
		const struct aifab_port_tap *t = aifab_port_tx_wire_tap(
			&sw->env.ports[port], wk->txq);

		if (t == NULL) {
			sw_tx_flush(sw, wk, port);
			return;
		}
		tb->vc_put = t->put;
		tb->vc_wire = t->wire;
	}
	bytes = tb->bytes; /* summed by sw_tx() */
	n = tb->n;
	tb->bytes = 0;
	tb->n = 0;
	sent = tb->vc_put(tb->vc_wire, tb->pkts, n);
	if (unlikely(sent != n))
		sent = (uint16_t)(sent + aifab_port_ring_tx(
				&sw->env.ports[port], wk->txq,
				tb->pkts + sent, (uint16_t)(n - sent)));
	for (i = sent; i < n; i++) {
		bytes -= tb->pkts[i]->pkt_len;
		sw_drop(wk, port, SW_DROP(tx_full), tb->pkts[i]);
	}
	SW_ADD(wk, sw_st_tx_pkts, port, sent);
	SW_ADD(wk, sw_st_tx_bytes, port, bytes);
}

/* Queue for TX, stamping the departure time @p ns (captures read it;
 * without one, sw->stamp is off and the field is left as it is). */
static inline void
sw_tx(struct sw *sw, struct sw_worker *wk, uint16_t port, struct rte_mbuf *m,
      uint64_t ns)
{
	struct sw_txbuf *tb = &wk->tx[port];

	if (sw->stamp) {
		*RTE_MBUF_DYNFIELD(m, sw->ts_off, uint64_t *) = ns;
		m->ol_flags |= sw->ts_flag;
	}
#if AIFAB_SW_STATS
	tb->bytes += m->pkt_len;
#endif
	tb->pkts[tb->n++] = m;
	if (tb->n == SW_TXBUF)
		sw_tx_flush(sw, wk, port);
}

/*
 * Virtual time: port @p port's transmitter takes a frame of @p len bytes
 * handed over at @p t. @return when its serialization starts: max(t, the
 * port free); it then takes (len + 24) x 8 / speed, exact (the fraction
 * of a ns carried; an idle transmitter starts on a whole ns), as the
 * in-memory wire computes it (app/vclock.c app_serial_start()). Inlined:
 * a departure on the whole-process clock calls it per frame.
 */
static __rte_always_inline uint64_t
sw_serial_start(const struct sw *sw, struct sw_worker *wk, uint16_t port,
		uint64_t t, uint32_t len)
{
	struct sw_serial *s = &wk->eg[port].ser;
	uint64_t start;

	if (unlikely(s->mbps == 0))
		s->mbps = RTE_MAX(sw->env.ports[port].speed_mbps /
				  sw->n_workers, 1u);
	if (t > s->free_ns) {
		s->free_ns = t;
		s->frac = 0;
	}
	if (unlikely(s->len1 != len + 1)) {
		uint64_t bits_k = ((uint64_t)len + AIFAB_QOS_WIRE_OVERHEAD) *
			8000;

		s->len1 = len + 1;
		s->q = bits_k / s->mbps;
		s->r = (uint32_t)(bits_k % s->mbps);
	}
	start = s->free_ns;
	s->free_ns += s->q;
	s->frac += s->r;
	if (s->frac >= s->mbps) {
		s->frac -= s->mbps;
		s->free_ns++;
	}
	return start;
}

/* ---- PFC ---------------------------------------------------------------- */

void
sw_pfc_received(struct sw *sw, struct sw_worker *wk, uint16_t port,
		const struct aifab_pkt_info *pi)
{
	struct sw_egress *eg = &wk->eg[port];
	unsigned int prio;

	if (!sw->pfc_on[port])
		return; /* [port.X] pfc = false: counted, not honoured */
	/* Counted and timed here (this worker's pfc_rx: RSS puts every
	 * non-IP frame of a port on one queue, so one worker accounts a
	 * port's paused time), honoured by every worker (the share). */
	aifab_pfc_rx_frame(&eg->pfc_rx, pi->pfc_enable, pi->pfc_time, wk->now);
	aifab_pfc_share_rx(&sw->pfc_share[port], &eg->pfc_rx, pi->pfc_enable,
			   wk->now);
	/* the summary: when the port's pause is over at the latest (one
	 * worker), and its paused time to mirror until then */
	for (prio = 0; prio < AIFAB_PFC_NUM_PRIO; prio++)
		if (pi->pfc_enable & (1u << prio))
			wk->pause_end[port] = RTE_MAX(wk->pause_end[port],
				__atomic_load_n(&sw->pfc_share[port].until[prio],
						__ATOMIC_RELAXED));
	wk->vc_pausing |= UINT64_C(1) << port;
	/* The watchdog owner feeds itself; others' frames reach it through
	 * the share's last_rx (aifab_pfc_share_wd_feed()). */
	if (sw->wd.enabled == 0 || !sw_wd_owner(sw, wk))
		return;
	wk->vc_wd |= UINT64_C(1) << port; /* the summary: it has state */
	for (prio = 0; prio < AIFAB_PFC_NUM_PRIO; prio++)
		if (pi->pfc_enable & (1u << prio))
			aifab_pfc_wd_feed(&eg->wd, prio, wk->now);
}

/* Send PFC frame @p f (bits and timers per 802.1p priority) on @p port. */
static void
sw_pfc_send(struct sw *sw, struct sw_worker *wk, uint16_t port,
	    const struct aifab_pfc_frame *f)
{
	struct rte_mbuf *m = rte_pktmbuf_alloc(sw->env.ports[port].pool);
	uint64_t ns = wk->now_ns;
	uint16_t len;

	if (m == NULL) {
		SW_INC(wk, SW_DROP(no_mbuf), port);
		return;
	}
	len = aifab_build_pfc(rte_pktmbuf_mtod(m, uint8_t *),
			      &sw->env.ports[port].mac, f->enable, f->quanta);
	m->data_len = len;
	m->pkt_len = len;
	/* Virtual time: it waits for the frame on the wire, and delays
	 * the next one (the wire serializes it too). */
	if (sw->virtual_time || sw->vclock)
		ns = sw_serial_start(sw, wk, port, wk->now, len);
	sw_tx(sw, wk, port, m, ns);
	wk->vc_tx |= UINT64_C(1) << port;
	if (sw->peer_pause) {
		/* the peer model pauses its frames by the TC we give them */
		struct aifab_pfc_frame t = { .enable = 0 };
		unsigned int prio, tc;

		for (prio = 0; prio < AIFAB_PFC_NUM_PRIO; prio++)
			if (f->enable & (1u << prio)) {
				tc = sw->map.pcp_tc[prio] & 7;
				t.enable |= (uint8_t)(1u << tc);
				t.quanta[tc] = f->quanta[prio];
			}
		sw_peer_pfc(sw, wk, port, &t, ns);
	}
}

/*
 * The ingress accounting's frame is per TC (priority group): XOFF/XON
 * goes to every 802.1p priority that maps to the TC. False if no
 * priority maps to any TC in it.
 */
static bool
sw_pfc_to_prios(const struct sw *sw, const struct aifab_pfc_frame *tcf,
		struct aifab_pfc_frame *f)
{
	unsigned int prio, tc;

	memset(f, 0, sizeof(*f));
	for (prio = 0; prio < AIFAB_PFC_NUM_PRIO; prio++) {
		tc = sw->map.pcp_tc[prio] & 7;
		if (tcf->enable & (1u << tc)) {
			f->enable |= (uint8_t)(1u << prio);
			f->quanta[prio] = tcf->quanta[tc];
		}
	}
	return f->enable != 0;
}

/* Free a TC's queue (watchdog drop, or at stop). */
static void
sw_flush_tc(struct sw *sw, struct sw_worker *wk, uint16_t port, uint8_t tc,
	    unsigned int reason)
{
	struct sw_egress *eg = &wk->eg[port];
	struct rte_mbuf *m;

	while ((m = aifab_qos_fifo_dequeue(eg->q[tc])) != NULL) {
		sw_release(sw, wk, port, m);
		if (reason == SW_DROP(pfcwd))
			SW_ADD_TC(wk, sw_st_pfcwd_drops, port, tc, 1);
		sw_drop(wk, port, reason, m);
	}
	eg->nonempty &= (uint8_t)~(1u << tc);
}

/* The PFC frame due on @p port as an ingress port (XOFF, refresh, XON). */
static inline void
sw_pfc_gen_send(struct sw *sw, struct sw_worker *wk, uint16_t port,
		uint64_t now)
{
	struct aifab_pfc_frame tcf, f;

	if (sw->pfc_gen[port].enabled &&
	    aifab_pfc_gen_poll_inline(&wk->eg[port].pfc_gen, sw_free(wk), now,
				      &tcf) &&
	    sw_pfc_to_prios(sw, &tcf, &f))
		sw_pfc_send(sw, wk, port, &f);
}

/* Watchdog, pause; returns the TCs the scheduler may serve. Inlined in
 * both egress passes, as it was in the real-time one alone. */
static __rte_always_inline uint8_t
sw_pfc_pause(struct sw *sw, struct sw_worker *wk, uint16_t port, uint64_t now)
{
	struct sw_egress *eg = &wk->eg[port];
	struct aifab_pfc_share *sh = &sw->pfc_share[port];
	uint8_t paused, stormed = 0, flush, tc;

	/* Pauses and the watchdog are per priority; queues per TC. The
	 * pause is the port's, whichever worker received the frame. */
	paused = aifab_pfc_share_paused_mask(sh, now);
	if (sw->wd.enabled) {
		/* One watchdog per port decides; every worker flushes its
		 * own queues of a priority newly stormed with action drop. */
		if (sw_wd_owner(sw, wk)) {
			if (sw->n_workers > 1)
				aifab_pfc_share_wd_feed(sh, &eg->wd, now);
			if (aifab_pfc_wd_poll_inline(&eg->wd, now, paused,
						     NULL) > 0) {
				aifab_pfc_share_set_stormed(sh, eg->wd.stormed);
				/* sw_stormed()'s bit: set after the mask,
				 * cleared after it */
				if (eg->wd.stormed != 0)
					__atomic_fetch_or(&sw->stormed_ports,
						UINT64_C(1) << port,
						__ATOMIC_RELAXED);
				else
					__atomic_fetch_and(&sw->stormed_ports,
						~(UINT64_C(1) << port),
						__ATOMIC_RELAXED);
			}
		}
		stormed = sw_stormed(sw, port);
		flush = sw->tcs_of_prios[stormed & ~eg->stormed_seen &
					 sw->wd.drop];
		eg->stormed_seen = stormed;
		for (tc = 0; flush != 0 && tc < AIFAB_QOS_N_TC; tc++)
			if (flush & (1u << tc))
				sw_flush_tc(sw, wk, port, tc, SW_DROP(pfcwd));
	}
	return (uint8_t)~sw->tcs_of_prios[(uint8_t)(paused &
		~(stormed & (sw->wd.drop | sw->wd.forward)))];
}

/* PFC to send, watchdog; returns the TCs the scheduler may serve. */
static inline uint8_t
sw_pfc_poll(struct sw *sw, struct sw_worker *wk, uint16_t port, uint64_t now)
{
	sw_pfc_gen_send(sw, wk, port, now);
	return sw_pfc_pause(sw, wk, port, now);
}

/* ---- scheduler ---------------------------------------------------------- */

/* The head of @p port's TC @p tc leaves its queue (the buffer released);
 * NULL if ECN at dequeue dropped it (counted). Both egress passes. */
static __rte_always_inline struct rte_mbuf *
sw_take(struct sw *sw, struct sw_worker *wk, uint16_t port, uint8_t tc)
{
	struct sw_egress *eg = &wk->eg[port];
	struct rte_mbuf *m = aifab_qos_fifo_dequeue(eg->q[tc]);

	if (aifab_qos_fifo_count(eg->q[tc]) == 0)
		eg->nonempty &= (uint8_t)~(1u << tc);
	sw_release(sw, wk, port, m);
	if (sw->ecn_at_dequeue &&
	    !sw_ecn(sw, wk, port, tc, m, eg->q[tc]->bytes)) {
		sw_drop(wk, port, SW_DROP(egress_queue), m);
		return NULL;
	}
	return m;
}

/*
 * The reference real-time egress (tests: aifab_switch_use_reference(),
 * and ECN at dequeue, which decides each frame from the depth the one
 * before it left): one scheduler call and one dequeue per packet.
 */
static void
sw_port_dequeue_ref(struct sw *sw, struct sw_worker *wk, uint16_t port,
		uint8_t eligible, uint64_t now)
{
	struct sw_egress *eg = &wk->eg[port];
	const struct aifab_qos_shaper_cfg *shc = &sw->shaper[port];
	uint32_t head[AIFAB_QOS_N_TC];
	uint8_t tc;
	int pick;
#if AIFAB_SW_STATS
	/* This port's per-TC counters, hoisted out of the loop. */
	uint64_t *tc_pkts = &wk->cb[sw_st_tc_tx_pkts][port * AIFAB_QOS_N_TC];
	uint64_t *tc_bytes = &wk->cb[sw_st_tc_tx_bytes][port * AIFAB_QOS_N_TC];
#endif

	aifab_qos_shaper_update(shc, &eg->shaper, now);
	/* The queues' head lengths, read once per pass: a dequeue changes
	 * only its own TC's head (nothing is enqueued during the pass). */
	for (tc = 0; tc < AIFAB_QOS_N_TC; tc++)
		head[tc] = aifab_qos_fifo_head_len(eg->q[tc]) +
			AIFAB_QOS_WIRE_OVERHEAD;
	while (eg->nonempty != 0 && aifab_qos_shaper_ready(shc, &eg->shaper)) {
		struct rte_mbuf *m;

		pick = aifab_qos_sched_next(&sw->sched, &eg->sched,
					    eg->nonempty, eligible, head);
		if (pick < 0)
			break;
		tc = (uint8_t)pick;
		m = sw_take(sw, wk, port, tc);
		head[tc] = aifab_qos_fifo_head_len(eg->q[tc]) +
			AIFAB_QOS_WIRE_OVERHEAD;
		if (m == NULL)
			continue;
		aifab_qos_shaper_consume(shc, &eg->shaper, m->pkt_len);
#if AIFAB_SW_STATS
		tc_pkts[tc]++;
		tc_bytes[tc] += m->pkt_len;
#endif
		sw_tx(sw, wk, port, m, wk->now_ns);
	}
}

/*
 * Real time, a run of packets: the scheduler picked @p tc (and charged
 * its head to DWRR); take that head and those behind it for as long as
 * the scheduler would pick @p tc again with nothing else changed: a
 * strict TC (the highest ready one stays so while it has packets), or a
 * DWRR TC whose deficit covers its next head (charged here as
 * dwrr_next() would), or whatever its head when it is the only DWRR TC
 * ready (it gets the quanta dwrr_next()'s rounds would give it); while
 * the shaper is ready and the TX buffer has room. Whatever ends the run
 * leaves the scheduler and shaper as the per-packet loop
 * (sw_port_dequeue_ref()) would have them there, so the caller's next
 * aifab_qos_sched_next() goes on exactly. The pointers go
 * from the FIFO's ring straight into the TX buffer; the FIFO's bytes,
 * the buffer's cells, the ingress port's PFC bytes and the counters are
 * accounted once per run (see sw_release_run()).
 */
static __rte_always_inline void
sw_take_run(struct sw *sw, struct sw_worker *wk, uint16_t port, uint8_t tc,
	    uint8_t eligible, uint32_t head[AIFAB_QOS_N_TC])
{
	struct sw_egress *eg = &wk->eg[port];
	struct aifab_qos_fifo *f = eg->q[tc];
	const struct aifab_qos_shaper_cfg *shc = &sw->shaper[port];
	/* The shaper is ready (the caller checked): it stays so while
	 * cost x (the wire bytes taken) <= avail. */
	uint64_t cost = shc->cost;
	uint64_t avail = (uint64_t)(eg->shaper.tokens - shc->ready);
	int64_t tokens;
	struct sw_txbuf *tb = &wk->tx[port];
	struct rte_mbuf **out = &tb->pkts[tb->n];
	int32_t deficit = eg->sched.deficit[tc];
	bool strict = (sw->sched.strict_mask >> tc) & 1;
	/* The only DWRR TC ready (no strict one is, or it would have been
	 * picked): when its deficit runs short, dwrr_next() would come
	 * round to it again and again, a quantum each time, and pick it. */
	bool alone = (eg->nonempty & eligible & sw->sched.dwrr_mask) ==
		(1u << tc);
	int32_t quantum = (int32_t)sw->sched.quantum[tc];
	int ts_off = sw->stamp ? sw->ts_off : -1;
	/* DWRR charged frame by frame only for a DWRR TC with others ready
	 * (its run ends where its deficit does); a strict TC is not
	 * charged, the lone DWRR TC once after the run */
	bool each = !strict && !alone;
	uint32_t h = f->head, max, len, bytes, cells = 0, diff = 0;
	/* n: frames taken; j: the next one's slot. The ring wraps at most
	 * once in a run, rarely: j runs to the end of the slots (jend) and
	 * only there is the run's end (max) or the wrap looked at, so the
	 * loop keeps no mask and no spilled end (64-bit, as indices). */
	uintptr_t n = 0, j = h & f->mask, jend;
	struct rte_mbuf *m = f->slot[j];
	uint32_t meta = m->hash.usr;
	uint32_t first = m->pkt_len + AIFAB_QOS_WIRE_OVERHEAD;
	/* the wire bytes taken; the shaper's test as a byte budget:
	 * cost x wire > avail exactly when wire > avail / cost */
	uint64_t budget = cost != 0 ? avail / cost : UINT64_MAX, wire = 0;
	bool one_meta;

	max = RTE_MIN(f->tail - h, (uint32_t)(SW_TXBUF - tb->n));
	jend = RTE_MIN(j + max, (uintptr_t)f->mask + 1);
	for (;;) {
		len = m->pkt_len;
		if (ts_off >= 0) { /* the departure stamp (captures read it) */
			*RTE_MBUF_DYNFIELD(m, ts_off, uint64_t *) = wk->now_ns;
			m->ol_flags |= sw->ts_flag;
		}
		out[n++] = m;
		j++;
		cells += SW_CELLS(len);
		diff |= m->hash.usr ^ meta;
		wire += len + AIFAB_QOS_WIRE_OVERHEAD;
		if (wire > budget)
			break;
		if (unlikely(j == jend)) {
			if (n == max)
				break;
			j = 0; /* the wrap: what is left from slot 0 */
			jend = max - n;
		}
		m = f->slot[j];
		if (each) {
			uint32_t next = m->pkt_len + AIFAB_QOS_WIRE_OVERHEAD;

			if ((int64_t)deficit < next)
				break;
			deficit -= (int32_t)next;
		}
	}
	/* the frames' bytes: their wire bytes less the overhead of each */
	bytes = (uint32_t)(wire - (uint64_t)n * AIFAB_QOS_WIRE_OVERHEAD);
	one_meta = diff == 0;
	/* The only DWRR TC ready: charged as the per-frame charges would
	 * have it, each frame after the first its wire bytes, a quantum
	 * added whenever the deficit falls short; with P the frames' wire
	 * bytes after the first, the quanta added are the fewest K with
	 * deficit + K * quantum >= P (P only grows frame by frame). */
	if (!strict && alone) {
		int64_t p = (int64_t)(wire - first), d = deficit;

		if (p > d)
			d += (p - d + quantum - 1) / quantum * quantum;
		deficit = (int32_t)(d - p);
	}
	eg->sched.deficit[tc] = deficit;
	if (!strict) /* (it may not be 0) */
		eg->sched.nz = (uint8_t)(eg->sched.nz | 1u << tc);
	/* aifab_qos_shaper_consume() per frame: only the last can take the
	 * tokens below -depth (that ends the run), so clamp once */
	tokens = eg->shaper.tokens - (int64_t)(wire * cost);
	eg->shaper.tokens = RTE_MAX(tokens, -shc->depth);
	f->head = h + (uint32_t)n;
	f->bytes -= bytes;
	if (f->head == f->tail)
		eg->nonempty &= (uint8_t)~(1u << tc);
	if (!strict) /* DWRR's next charge; a strict TC needs none */
		head[tc] = aifab_qos_fifo_head_len(f) +
			AIFAB_QOS_WIRE_OVERHEAD;
	sw_release_run(sw, wk, port, out, (uint32_t)n, one_meta, bytes,
		       cells);
	SW_ADD_TC(wk, sw_st_tc_tx_pkts, port, tc, n);
	SW_ADD_TC(wk, sw_st_tc_tx_bytes, port, tc, bytes);
#if AIFAB_SW_STATS
	tb->bytes += bytes;
#endif
	tb->n = (uint16_t)(tb->n + n);
	if (tb->n == SW_TXBUF)
		sw_tx_flush(sw, wk, port);
}

/* Real time: the port's scheduler and shaper, a run of packets a pick. */
static void
sw_port_dequeue(struct sw *sw, struct sw_worker *wk, uint16_t port,
		uint8_t eligible, uint64_t now)
{
	struct sw_egress *eg = &wk->eg[port];
	const struct aifab_qos_shaper_cfg *shc = &sw->shaper[port];
	uint32_t head[AIFAB_QOS_N_TC];
	unsigned int m;
	uint8_t tc;
	int pick;

	if (unlikely(sw->reference || sw->ecn_at_dequeue)) {
		sw_port_dequeue_ref(sw, wk, port, eligible, now);
		return;
	}
	aifab_qos_shaper_update(shc, &eg->shaper, now);
	/* The queues' head lengths, read once per pass: a dequeue changes
	 * only its own TC's head (nothing is enqueued during the pass).
	 * DWRR reads only those of ready TCs of its own: just those (each
	 * FIFO is a line, and a page, of its own). */
	memset(head, 0, sizeof(head));
	for (m = eg->nonempty & eligible & sw->sched.dwrr_mask; m != 0;
	     m &= m - 1) {
		tc = (uint8_t)__builtin_ctz(m);
		head[tc] = aifab_qos_fifo_head_len(eg->q[tc]) +
			AIFAB_QOS_WIRE_OVERHEAD;
	}
	while (eg->nonempty != 0 && aifab_qos_shaper_ready(shc, &eg->shaper)) {
		pick = aifab_qos_sched_next(&sw->sched, &eg->sched,
					    eg->nonempty, eligible, head);
		if (pick < 0)
			break;
		sw_take_run(sw, wk, port, (uint8_t)pick, eligible, head);
	}
}

/*
 * Virtual time: the frame whose serialization starts on @p port at @p now,
 * if the port is free (the previous frame's wire time over), the shaper
 * has the tokens and the scheduler finds an eligible TC. One frame: the
 * next can only start when this one is on the wire (sw_egress_next()
 * says when). A frame ECN drops at dequeue lets the next one go at once.
 */
static void
sw_port_depart(struct sw *sw, struct sw_worker *wk, uint16_t port,
	       uint8_t eligible, uint64_t now)
{
	struct sw_egress *eg = &wk->eg[port];
	const struct aifab_qos_shaper_cfg *shc = &sw->shaper[port];
	uint32_t head[AIFAB_QOS_N_TC] = { 0 };
	struct rte_mbuf *m;
	uint8_t tc;
	int pick;

	if (eg->ser.free_ns > now)
		return;
	aifab_qos_shaper_update(shc, &eg->shaper, now);
	while (eg->nonempty != 0 && aifab_qos_shaper_ready(shc, &eg->shaper)) {
		unsigned int r;

		/* one class ready, the one DWRR serves: inline */
		pick = aifab_qos_sched_alone(&sw->sched, &eg->sched,
					     eg->nonempty, eligible, eg->q,
					     AIFAB_QOS_WIRE_OVERHEAD);
		if (pick < 0) {
			/* DWRR reads the heads of its ready TCs only: just
			 * those (each FIFO is a line of its own, as
			 * sw_port_dequeue()) */
			for (r = eg->nonempty & eligible & sw->sched.dwrr_mask;
			     r != 0; r &= r - 1) {
				tc = (uint8_t)__builtin_ctz(r);
				head[tc] = aifab_qos_fifo_head_len(eg->q[tc]) +
					AIFAB_QOS_WIRE_OVERHEAD;
			}
			pick = aifab_qos_sched_next(&sw->sched, &eg->sched,
						    eg->nonempty, eligible,
						    head);
			if (pick < 0)
				return;
		}
		tc = (uint8_t)pick;
		m = sw_take(sw, wk, port, tc);
		if (m == NULL)
			continue;
		aifab_qos_shaper_consume(shc, &eg->shaper, m->pkt_len);
		SW_ADD_TC(wk, sw_st_tc_tx_pkts, port, tc, 1);
		SW_ADD_TC(wk, sw_st_tc_tx_bytes, port, tc, m->pkt_len);
		sw_tx(sw, wk, port, m,
		      sw_serial_start(sw, wk, port, now, m->pkt_len));
		wk->vc_tx |= UINT64_C(1) << port;
		return;
	}
}

/*
 * Configured PFC storms: TX, the port sends XOFF to its peer; RX, the
 * port acts as if its peer had sent one (the egress pauses, the watchdog
 * sees it).
 */
static void
sw_link_storms(struct sw *sw, struct sw_worker *wk, uint16_t port)
{
	struct aifab_link *rx = wk->link[port][AIFAB_FAULT_DIR_RX];
	struct aifab_link *tx = wk->link[port][AIFAB_FAULT_DIR_TX];
	uint64_t ns = sw_ns(sw, wk->now);
	uint8_t prio, i;

	/* RX: a stuck peer's pause never lapses, even when this lcore was
	 * not scheduled for longer than the pause: re-apply it if it did */
	if (rx != NULL &&
	    aifab_link_storm(rx, ns, (aifab_pfc_share_paused_mask(
			&sw->pfc_share[port], wk->now) & rx->p.storm_prio) !=
			rx->p.storm_prio, &prio)) {
		struct aifab_pkt_info pi = { .pfc_enable = prio };

		for (i = 0; i < AIFAB_PFC_NUM_PRIO; i++)
			pi.pfc_time[i] = (prio >> i & 1) ? 0xffff : 0;
		sw_pfc_received(sw, wk, port, &pi);
	}
	if (tx != NULL && aifab_link_storm(tx, ns, false, &prio)) {
		struct aifab_pfc_frame f = { .enable = prio };

		for (i = 0; i < AIFAB_PFC_NUM_PRIO; i++)
			f.quanta[i] = (prio >> i & 1) ? 0xffff : 0;
		sw_pfc_send(sw, wk, port, &f);
	}
}

/*
 * sw_pfc_pause() of @p port only while it can act, by the summary both
 * passes keep (vc_wd: the watchdog has state, cleared here once it is
 * quiet until fed; pause_end: a received pause may still hold); else
 * every TC (@p all) is eligible.
 */
static __rte_always_inline uint8_t
sw_pfc_pause_set(struct sw *sw, struct sw_worker *wk, uint16_t port,
		 uint64_t now, uint8_t all)
{
	const struct sw_egress *eg = &wk->eg[port];
	uint64_t bit = UINT64_C(1) << port;
	uint8_t eligible;

	if (wk->vc_wd & bit) {
		eligible = sw_pfc_pause(sw, wk, port, now);
		if ((eg->wd.active & sw->wd.enabled) == 0 &&
		    eg->wd.stormed == 0 && eg->stormed_seen == 0)
			wk->vc_wd &= ~bit; /* quiet until fed */
		return eligible;
	}
	if (now < wk->pause_end[port])
		return sw_pfc_pause(sw, wk, port, now);
	return all;
}

/*
 * Real time (sw_poll_real()): one pass over every port. With one worker,
 * no fault stage and the fast paths, once the sets are kept (rt_sets_ok:
 * from the second pass), without the parts that could not act: a port's
 * PFC generation is polled only if it had something to look at after
 * its last poll or a frame came in by it since (rt_pfc | vc_in: with
 * neither, nothing is buffered from the port and nothing wanted or told,
 * and only an arrival changes that; dequeues, XON included, act only on
 * a port with bytes buffered from it). Its watchdog and pause only while
 * the watchdog has state (vc_wd: fed since it was last quiet, in an
 * episode, stormed) or a received pause may still hold (pause_end, this
 * worker's own as the port's only writer); otherwise the watchdog's poll
 * would change nothing and every TC is eligible. The same frames,
 * transitions and flushes as the pass that polls them all, without
 * reading two or three lines of every port per poll that the frames'
 * data evict between polls (sw_egress_ne() does the same in the exact
 * run).
 */
void
sw_egress_run(struct sw *sw, struct sw_worker *wk, uint64_t now)
{
	bool sets = wk->rt_sets_ok && !sw->reference && wk->n_links == 0;
	uint8_t all = (uint8_t)~sw->tcs_of_prios[0];
	uint64_t pfc = wk->rt_pfc | wk->vc_in, bit;
	uint16_t p;

	wk->now = now;
	/* departure stamps: once per pass, without overflow (TSC x 10^9
	 * wraps 64 bits within seconds of TSC time) */
	wk->now_ns = sw_ns(sw, now);
	wk->vc_in = 0;
	for (p = 0, bit = 1; p < sw->env.n_ports; p++, bit <<= 1) {
		struct sw_egress *eg = &wk->eg[p];
		uint8_t eligible = all;

		if (unlikely(!sets)) {
			if (unlikely(wk->n_links != 0))
				sw_link_storms(sw, wk, p);
			eligible = sw_pfc_poll(sw, wk, p, now);
		} else {
			if (pfc & bit) {
				sw_pfc_gen_send(sw, wk, p, now);
				if (sw_pfc_gen_live(sw, wk, p))
					wk->rt_pfc |= bit;
				else
					wk->rt_pfc &= ~bit;
			}
			eligible = sw_pfc_pause_set(sw, wk, p, now, all);
		}
		if (eg->nonempty != 0)
			sw_port_dequeue(sw, wk, p, eligible, now);
		sw_tx_flush(sw, wk, p);
	}
	if (likely(sets))
		return;
	/* the sets from the next pass on: every port as this pass left
	 * it (a superset: a port in them is only polled) */
	wk->rt_sets_ok = sw->n_workers == 1 && wk->n_links == 0 &&
		!sw->reference;
	if (wk->rt_sets_ok) {
		wk->rt_pfc = 0;
		for (p = 0; p < sw->env.n_ports; p++)
			if (sw_pfc_gen_live(sw, wk, p))
				wk->rt_pfc |= UINT64_C(1) << p;
		wk->vc_wd = sw_wd_all(sw);
	}
}

/*
 * The exact run's egress on the whole-process clock with the summary
 * (vc_act_ok: one worker, no fault stage): in port order as the loop over
 * every port, only the ports with a queued frame (vc_ne) or a watchdog
 * with state (vc_wd: fed, in an episode or stormed); a port's received
 * pause only while it may still hold (pause_end); the others' watchdog
 * polls would change nothing (no priority paused or stormed, none in an
 * episode) and their pause, over, leaves every TC eligible. The same
 * departures, watchdog transitions and flushes as that loop, without
 * reading the state of every port (one line each, which the other
 * pipelines' polls evict between runs).
 */
static void
sw_egress_ne(struct sw *sw, struct sw_worker *wk, uint64_t now)
{
	uint8_t all = (uint8_t)~sw->tcs_of_prios[0];
	uint64_t m;

	for (m = wk->vc_ne | wk->vc_wd; m != 0; m &= m - 1) {
		uint16_t p = (uint16_t)__builtin_ctzll(m);
		uint64_t bit = UINT64_C(1) << p;
		struct sw_egress *eg = &wk->eg[p];
		uint8_t eligible = all;

		/* a TC enqueued on since the last run has its bit here, and
		 * only a TC with its bit here is dequeued from (the mirror's
		 * tc_dirty) */
		eg->tc_dirty |= eg->nonempty;
		eligible = sw_pfc_pause_set(sw, wk, p, now, all);
		if (eg->nonempty != 0)
			sw_port_depart(sw, wk, p, eligible, now);
		if (eg->nonempty == 0)
			wk->vc_ne &= ~bit;
	}
}

/*
 * Virtual time (pcap replays and the whole-process clock): the egress run
 * at instant @p now, which sw_egress_next() chose or an arrival brought
 * (after every arrival at @p now). In an order that does not depend on
 * the ports' order: configured storms, the PFC frames due (XOFF from the
 * depths the arrivals left), then per port the watchdog, the pause and
 * the frame whose serialization starts now; what the departures (or the
 * watchdog's flush) freed may make an XON due at this same instant.
 */
void
sw_egress_exact(struct sw *sw, struct sw_worker *wk, uint64_t now)
{
	bool sum = wk->vc_act_ok;
	/* without the summary, every port's PFC generation, twice */
	uint64_t used, pfc, pfc2 = sum ? 0 : UINT64_MAX, m;
	uint16_t p;

	wk->now = now;
	wk->now_ns = now;
	wk->vt_due = false;
	if (unlikely(wk->n_links != 0))
		for (p = 0; p < sw->env.n_ports; p++)
			sw_link_storms(sw, wk, p);
	/*
	 * sw_vclock_note(): only these ports' PFC generation can act. A
	 * port with nothing wanted or told whose last poll saw no more free
	 * buffer and no fewer bytes buffered from it than now (no frame came
	 * in since: enqueues alone add bytes and take buffer) would stay so
	 * (XOFF's threshold does not fall as the buffer frees, struct
	 * aifab_pfc_gen_prio_cfg): with no arrival since the last run, the
	 * ports with XOFF wanted or told only (vc_pfc_w); after the
	 * departures, those told XOFF by the first pass.
	 */
	if (!sum)
		pfc = UINT64_MAX;
	else if (wk->vc_in != 0)
		pfc = (wk->vc_pfc | wk->vc_in) & wk->vc_pfc_en;
	else
		pfc = wk->vc_pfc_w;
	for (m = pfc; m != 0; m &= m - 1) {
		p = (uint16_t)__builtin_ctzll(m);
		if (p >= sw->env.n_ports)
			break;
		sw_pfc_gen_send(sw, wk, p, now);
		if (wk->eg[p].pfc_gen.told != 0)
			pfc2 |= UINT64_C(1) << p;
	}
	used = wk->buf->used;
	if (sum) {
		/* the counters sw_stats_sync_ports() mirrors: queues, PFC
		 * generation, PFC received */
		wk->vc_dirty |= wk->vc_ne | pfc | wk->vc_in | wk->vc_wd;
		sw_egress_ne(sw, wk, now);
	} else {
		for (p = 0; p < sw->env.n_ports; p++) {
			uint8_t eligible;

			/* without the watchdog, the pause of an empty port
			 * is only read, never acted on */
			if (!sw->wd.enabled && wk->eg[p].nonempty == 0)
				continue;
			eligible = sw_pfc_pause(sw, wk, p, now);
			if (wk->eg[p].nonempty != 0)
				sw_port_depart(sw, wk, p, eligible, now);
		}
	}
	if (wk->buf->used != used)
		for (m = pfc2; m != 0; m &= m - 1) {
			p = (uint16_t)__builtin_ctzll(m);
			if (p >= sw->env.n_ports)
				break;
			sw_pfc_gen_send(sw, wk, p, now);
		}
	if (sum) {
		/* only departures and PFC frames fill a TX buffer here */
		for (m = wk->vc_tx; m != 0; m &= m - 1)
			sw_tx_flush_vc(sw, wk, (uint16_t)__builtin_ctzll(m));
	} else {
		for (p = 0; p < sw->env.n_ports; p++)
			sw_tx_flush(sw, wk, p);
	}
	wk->vc_tx = 0;
	sw_vclock_note(sw, wk);
}

void
sw_flush_queues(struct sw *sw, struct sw_worker *wk)
{
	uint16_t p;
	uint8_t tc;

	for (p = 0; p < sw->env.n_ports; p++)
		for (tc = 0; tc < AIFAB_QOS_N_TC; tc++)
			if (wk->eg[p].q[tc] != NULL)
				sw_flush_tc(sw, wk, p, tc,
					    SW_DROP(flushed_at_stop));
}

bool
sw_queues_empty(const struct sw *sw, const struct sw_worker *wk)
{
	uint16_t p;

	for (p = 0; p < sw->env.n_ports; p++) {
		if (wk->eg[p].nonempty != 0 || wk->tx[p].n != 0)
			return false;
		if (unlikely(wk->n_links != 0) &&
		    ((wk->link[p][0] != NULL &&
		      aifab_link_held(wk->link[p][0]) != 0) ||
		     (wk->link[p][1] != NULL &&
		      aifab_link_held(wk->link[p][1]) != 0)))
			return false;
	}
	return true;
}
