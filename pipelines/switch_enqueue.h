/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Switch enqueue, inline into the routing stage (switch_route.c): the PFC
 * watchdog's drop action, PFC ingress accounting (headroom), buffer
 * admission (cells, shared pool, headroom reserve), the queue descriptor
 * ring and ECN at enqueue. Per packet and in arrival order: each decision
 * reads the buffer the packets before it left (dynamic thresholds), so
 * packets are not regrouped here. The cold outcomes call out of line.
 */
#ifndef SWITCH_ENQUEUE_H
#define SWITCH_ENQUEUE_H

#include "switch_priv.h"

/*
 * Admission of @p m (@p len bytes, from @p in_port) to queue (@p out_port,
 * @p tc): the PFC watchdog's drop action, PFC ingress accounting, buffer
 * admission (shared pool, else the headroom reserve for lossless TCs).
 * @p pfc_plain: the burst's PFC accounting of this TC was shown to be a
 * plain add (aifab_pfc_gen_add_plain()), so no threshold is computed.
 * @return false if it was dropped (counted, freed). The reference
 * ingress's enqueue (switch_ref.c) shares it, always with @p pfc_plain
 * false.
 */
static __rte_always_inline bool
sw_admit(struct sw *sw, struct sw_worker *wk, uint16_t in_port,
	 uint16_t out_port, uint8_t tc, struct rte_mbuf *m, uint32_t len,
	 bool pfc_plain)
{
	bool lossless = sw->lossless & (1u << tc);
	uint32_t q = sw_queue(out_port, tc);
	enum aifab_pfc_verdict v = AIFAB_PFC_ADMIT;
	int r;

	if (unlikely(sw->tcs_of_prios[sw_stormed(sw, out_port) &
				      sw->wd.drop] & (1u << tc))) {
		SW_ADD_TC(wk, sw_st_pfcwd_drops, out_port, tc, 1);
		sw_drop(wk, out_port, SW_DROP(pfcwd), m);
		return false;
	}
	/* PFC thresholds are in bytes; the buffer is accounted in cells. */
	if (lossless && pfc_plain)
		wk->eg[in_port].pfc_gen.bytes[tc] += len;
	else if (lossless &&
		 (v = aifab_pfc_gen_add_inline(&wk->eg[in_port].pfc_gen,
				tc, len, sw_free(wk))) == AIFAB_PFC_DROP) {
		sw_drop(wk, in_port, SW_DROP(headroom_overflow), m);
		return false;
	}
	r = aifab_qos_buf_admit(wk->buf, q, SW_CELLS(len));
	if (likely(r == AIFAB_QOS_ADMIT_SHARED))
		return true;
	if (r < 0) {
		if (lossless)
			aifab_pfc_gen_sub(&wk->eg[in_port].pfc_gen, tc, len,
					  sw_free(wk));
		SW_ADD_TC(wk, sw_st_qos(aifab_qos_drop_ctr(
			(enum aifab_qos_drop)-r)), out_port, tc, 1);
		sw_drop(wk, out_port, SW_DROP(egress_queue), m);
		return false;
	}
	/* Lossless into the headroom reserve (shared pool full): it is
	 * headroom for PFC too, which pauses the sender; past the port's
	 * headroom it is an overflow. An ingress port without PFC
	 * ([port.X] pfc = false) has no headroom. */
	if (v == AIFAB_PFC_ADMIT)
		v = aifab_pfc_gen_spill(&wk->eg[in_port].pfc_gen, tc, len);
	if (v != AIFAB_PFC_ADMIT_HEADROOM) {
		aifab_qos_buf_release(wk->buf, q, SW_CELLS(len));
		if (v == AIFAB_PFC_DROP) {
			sw_drop(wk, in_port, SW_DROP(headroom_overflow), m);
			return false;
		}
		aifab_pfc_gen_sub(&wk->eg[in_port].pfc_gen, tc, len,
				  sw_free(wk));
		SW_ADD_TC(wk, sw_st_qos(aifab_qos_drop_ctr(
			AIFAB_QOS_DROP_BUFFER_FULL)), out_port, tc, 1);
		sw_drop(wk, out_port, SW_DROP(egress_queue), m);
		return false;
	}
	SW_ADD_TC(wk, sw_st_headroom_admits, out_port, tc, 1);
	return true;
}

/* Enqueue @p m (routed to @p out_port, class @p tc) or drop it.
 * @p pfc_plain: TCs whose PFC adds are plain this burst (sw_admit()). */
static inline void
sw_enqueue(struct sw *sw, struct sw_worker *wk, uint16_t out_port,
	   uint8_t tc, struct rte_mbuf *m, uint32_t l3_off, uint8_t pfc_plain)
{
	struct sw_egress *eg = &wk->eg[out_port];
	struct aifab_qos_fifo *f = eg->q[tc];
	const struct aifab_qos_ecn_cfg *ecn = &sw->ecn[tc];

	/* sw_ecn() finds the IP header at l2_len: set only when it may be
	 * called (a store to the mbuf's second line, cold after a 4 KB
	 * copy, saved in the common case) */
	if (unlikely(sw->ecn_at_dequeue))
		m->l2_len = l3_off;
	if (!sw_admit(sw, wk, SW_META_PORT(m->hash.usr), out_port, tc, m,
		      m->pkt_len, (pfc_plain >> tc) & 1))
		return;
	/* A full FIFO drops first: ECN counts only frames that are queued. */
	if (unlikely(aifab_qos_fifo_count(f) > f->mask)) {
		SW_ADD_TC(wk, sw_st_tail_drop_fifo_full, out_port, tc, 1);
		sw_release(sw, wk, out_port, m);
		sw_drop(wk, out_port, SW_DROP(egress_queue), m);
		return;
	}
	/* ECN at enqueue: a ramp that cannot select (off, or the queue at
	 * or below kmin) passes without a call or a random draw. */
	if (!sw->ecn_at_dequeue && ecn->enabled && f->bytes > ecn->kmin) {
		m->l2_len = l3_off;
		if (!sw_ecn(sw, wk, out_port, tc, m, f->bytes)) {
			sw_release(sw, wk, out_port, m);
			sw_drop(wk, out_port, SW_DROP(egress_queue), m);
			return;
		}
	}
	aifab_qos_fifo_enqueue(f, m); /* room checked above */
	eg->nonempty |= (uint8_t)(1u << tc);
	wk->vc_ne |= UINT64_C(1) << out_port; /* virtual clock summary */
}

#endif /* SWITCH_ENQUEUE_H */
