/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A pipeline's own mempool at fini: freed only when every mbuf came back.
 */
#include <rte_log.h>
#include <rte_mempool.h>

#include "aifab_pipeline.h"

bool
aifab_pipeline_pool_free(struct rte_mempool *mp, const char *who)
{
	unsigned int n;

	if (mp == NULL)
		return true;
	n = rte_mempool_in_use_count(mp);
	if (n == 0) {
		rte_mempool_free(mp);
		return true;
	}
	/* Freeing it would let a late rte_pktmbuf_free() write into freed
	 * memory; kept, it is counted in mempool_in_use_at_exit. */
	RTE_LOG(WARNING, USER1, "%s: %u mbufs of pool %s not returned; "
		"pool kept\n", who, n, mp->name);
	return false;
}

uint16_t
aifab_port_ring_tx(const struct aifab_port_rt *rt, uint16_t q,
		   struct rte_mbuf **pkts, uint16_t n)
{
	const struct aifab_port_tap *t = &rt->tap[q]; /* one per TX queue */
	unsigned int k = 0, r;

	if (t->fn != NULL)
		n = t->fn(rt->port_id, q, pkts, n, t->arg);
	if (t->put != NULL) {
		k = t->put(t->wire, pkts, n);
		if (k == n)
			return n;
	}
	r = rte_ring_enqueue_burst(rt->tx_ring, (void **)(pkts + k), n - k,
				   NULL);
	if (t->mark != NULL && r != 0)
		*t->mark |= t->mark_bit;
	return (uint16_t)(k + r);
}
