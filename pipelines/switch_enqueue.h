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

/* Enqueue @p m (routed to @p out_port, class @p tc) or drop it. */
static inline void
sw_enqueue(struct sw *sw, struct sw_worker *wk, uint16_t out_port,
	   uint8_t tc, struct rte_mbuf *m, uint32_t l3_off)
{
	struct sw_egress *eg = &wk->eg[out_port];
	struct aifab_qos_fifo *f = eg->q[tc];
	uint16_t in_port = SW_META_PORT(m->hash.usr);
	bool lossless = sw->lossless & (1u << tc);
	/* PFC thresholds are in bytes; the buffer is accounted in cells. */
	uint32_t len = m->pkt_len, q = sw_queue(out_port, tc);
	enum aifab_pfc_verdict v = AIFAB_PFC_ADMIT;
	const struct aifab_qos_ecn_cfg *ecn = &sw->ecn[tc];
	int r;

	m->l2_len = l3_off;
	if (unlikely(sw->tcs_of_prios[aifab_pfc_share_stormed(
			&sw->pfc_share[out_port]) & sw->wd.drop] & (1u << tc))) {
		SW_ADD_TC(wk, sw_st_pfcwd_drops, out_port, tc, 1);
		sw_drop(wk, out_port, SW_DROP(pfcwd), m);
		return;
	}
	if (lossless && (v = aifab_pfc_gen_add_inline(&wk->eg[in_port].pfc_gen,
				tc, len, sw_free(wk))) == AIFAB_PFC_DROP) {
		sw_drop(wk, in_port, SW_DROP(headroom_overflow), m);
		return;
	}
	r = aifab_qos_buf_admit(wk->buf, q, SW_CELLS(len));
	if (unlikely(r != AIFAB_QOS_ADMIT_SHARED)) {
		if (r < 0) {
			if (lossless)
				aifab_pfc_gen_sub(&wk->eg[in_port].pfc_gen, tc,
						  len, sw_free(wk));
			SW_ADD_TC(wk, sw_st_qos(aifab_qos_drop_ctr(
				(enum aifab_qos_drop)-r)), out_port, tc, 1);
			sw_drop(wk, out_port, SW_DROP(egress_queue), m);
			return;
		}
		/* Lossless into the headroom reserve (shared pool full): it
		 * is headroom for PFC too, which pauses the sender; past
		 * the port's headroom it is an overflow. An ingress port
		 * without PFC ([port.X] pfc = false) has no headroom. */
		if (v == AIFAB_PFC_ADMIT)
			v = aifab_pfc_gen_spill(&wk->eg[in_port].pfc_gen, tc,
						len);
		if (v != AIFAB_PFC_ADMIT_HEADROOM) {
			aifab_qos_buf_release(wk->buf, q, SW_CELLS(len));
			if (v == AIFAB_PFC_DROP) {
				sw_drop(wk, in_port, SW_DROP(headroom_overflow),
					m);
				return;
			}
			aifab_pfc_gen_sub(&wk->eg[in_port].pfc_gen, tc, len,
					  sw_free(wk));
			SW_ADD_TC(wk, sw_st_qos(aifab_qos_drop_ctr(
				AIFAB_QOS_DROP_BUFFER_FULL)), out_port, tc, 1);
			sw_drop(wk, out_port, SW_DROP(egress_queue), m);
			return;
		}
		SW_ADD_TC(wk, sw_st_headroom_admits, out_port, tc, 1);
	}
	/* A full FIFO drops first: ECN counts only frames that are queued. */
	if (unlikely(aifab_qos_fifo_count(f) > f->mask)) {
		SW_ADD_TC(wk, sw_st_tail_drop_fifo_full, out_port, tc, 1);
		sw_release(sw, wk, out_port, m);
		sw_drop(wk, out_port, SW_DROP(egress_queue), m);
		return;
	}
	/* ECN at enqueue: a ramp that cannot select (off, or the queue at
	 * or below kmin) passes without a call or a random draw. */
	if (!sw->ecn_at_dequeue && ecn->enabled && f->bytes > ecn->kmin &&
	    !sw_ecn(sw, wk, out_port, tc, m, f->bytes)) {
		sw_release(sw, wk, out_port, m);
		sw_drop(wk, out_port, SW_DROP(egress_queue), m);
		return;
	}
	aifab_qos_fifo_enqueue(f, m); /* room checked above */
	eg->nonempty |= (uint8_t)(1u << tc);
}

#endif /* SWITCH_ENQUEUE_H */
