/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Switch RX: one burst from a port's RX queue, through the port's RX
 * fault stage if it has one, and when a pcap input is over.
 */
#include <rte_ethdev.h>

#include "switch_priv.h"

/*
 * A pcap file returns 0 at its end, but so does any port when the pool is
 * dry: only count an empty poll as EOF when rx_nombuf did not move.
 */
static void
sw_note_empty(const struct sw *sw, struct sw_rxq *q)
{
	struct rte_eth_stats st;

	if (!q->finite)
		return;
	if (rte_eth_stats_get(sw->env.ports[q->port].port_id, &st) != 0)
		return;
	if (st.rx_nombuf != q->nombuf_seen) {
		q->nombuf_seen = st.rx_nombuf;
		q->empty_polls = 0;
		return;
	}
	if (++q->empty_polls >= SW_EMPTY_POLLS_EOF)
		__atomic_store_n(&q->exhausted, true, __ATOMIC_RELEASE);
}

/* One RX burst, through the port's RX fault stage if it has one (frames
 * it delays come back through sw_link_rx_release()). */
uint16_t
sw_rx(struct sw *sw, struct sw_worker *wk, struct sw_rxq *rq,
      struct rte_mbuf **pkts, uint16_t n)
{
	struct aifab_link *l;
	uint16_t got;

	/* the whole-process clock's wire: no fault stage, not a pcap */
	if (rq->wire != NULL)
		return aifab_wire_read(rq->wire, pkts, n);
	l = wk->link[rq->port][AIFAB_FAULT_DIR_RX];
	got = aifab_port_rx_burst(&sw->env.ports[rq->port], rq->queue, pkts,
				  n);
	if (got == 0) {
		sw_note_empty(sw, rq);
		return 0;
	}
	rq->empty_polls = 0;
	if (unlikely(l != NULL))
		got = aifab_link_in(l, pkts, got, sw_ns(sw, wk->now),
				    wk->scratch[0]);
	return got;
}
