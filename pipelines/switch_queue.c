/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Switch enqueue, the out-of-line part: ECN's verdict (sw_ecn: at enqueue
 * from switch_enqueue.h's sw_enqueue(), inline into routing, when the ramp
 * can select; at dequeue from switch_tx.c). The release at dequeue is
 * inline in switch_priv.h.
 */
#include "switch_priv.h"

/* Count a non-pass ECN verdict (cold: out of the hot path's registers). */
static __rte_noinline void
sw_ecn_count(struct sw_worker *wk, uint16_t port, uint8_t tc,
	     enum aifab_qos_ecn_verdict v, bool marked)
{
	SW_ADD_TC(wk, sw_st_ecn_selected, port, tc, 1);
	if (marked)
		SW_ADD_TC(wk, sw_st_ecn_marked, port, tc, 1);
	if (v == AIFAB_QOS_ECN_DROP)
		SW_ADD_TC(wk, sw_st_ecn_drop_not_ect, port, tc, 1);
}

/* TOS / traffic class byte of the IP header at @p l3. */
static inline uint8_t
sw_tos(const uint8_t *l3)
{
	if ((l3[0] >> 4) == 4)
		return l3[1];
	return (uint8_t)((l3[0] & 0x0F) << 4 | l3[1] >> 4);
}

/* Apply an ECN verdict. @return false if the packet must be dropped. */
bool
sw_ecn(struct sw *sw, struct sw_worker *wk, uint16_t port, uint8_t tc,
       struct rte_mbuf *m, uint32_t qbytes)
{
	uint8_t *l3 = rte_pktmbuf_mtod_offset(m, uint8_t *, m->l2_len);
	enum aifab_qos_ecn_verdict v = aifab_qos_ecn_decide(&sw->ecn[tc],
		qbytes, sw_tos(l3), &wk->rng);
	bool marked = false;

	if (v == AIFAB_QOS_ECN_PASS)
		return true;
	if (v == AIFAB_QOS_ECN_MARK)
		marked = aifab_qos_ecn_set_ce(l3);
	sw_ecn_count(wk, port, tc, v, marked);
	return v != AIFAB_QOS_ECN_DROP;
}
