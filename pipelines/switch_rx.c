/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Switch RX: when a pcap input is over (the burst itself: sw_rx(),
 * inline in switch_priv.h).
 */
#include <rte_ethdev.h>

#include "switch_priv.h"

/*
 * A pcap file returns 0 at its end, but so does any port when the pool is
 * dry: only count an empty poll as EOF when rx_nombuf did not move.
 * sw_rx() (switch_priv.h) calls it for a finite input only.
 */
void
sw_rx_empty(const struct sw *sw, struct sw_rxq *q)
{
	struct rte_eth_stats st;

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
