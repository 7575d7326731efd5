/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Switch enqueue: the PFC watchdog's drop action, PFC ingress accounting
 * (headroom), buffer admission (cells, shared pool, headroom reserve),
 * the queue descriptor ring and ECN at enqueue (sw_ecn: switch_tx.c
 * calls it for ECN at dequeue). The release at dequeue is inline in
 * switch_priv.h.
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

void
sw_enqueue(struct sw *sw, struct sw_worker *wk, uint16_t out_port,
	   uint8_t tc, struct rte_mbuf *m, uint32_t l3_off)
{
	struct sw_egress *eg = &wk->eg[out_port];
	uint16_t in_port = SW_META_PORT(m->hash.usr);
	bool lossless = sw->lossless & (1u << tc);
	/* PFC thresholds are in bytes; the buffer is accounted in cells. */
	uint32_t len = m->pkt_len, q = sw_queue(out_port, tc);
	enum aifab_pfc_verdict v = AIFAB_PFC_ADMIT;
	int r;

	m->l2_len = l3_off;
	if (sw->tcs_of_prios[aifab_pfc_share_stormed(&sw->pfc_share[out_port]) &
			     sw->wd.drop] & (1u << tc)) {
		SW_ADD_TC(wk, sw_st_pfcwd_drops, out_port, tc, 1);
		sw_drop(wk, out_port, SW_DROP(pfcwd), m);
		return;
	}
	if (lossless && (v = aifab_pfc_gen_add(&wk->eg[in_port].pfc_gen, tc,
				len, sw_free(wk))) == AIFAB_PFC_DROP) {
		sw_drop(wk, in_port, SW_DROP(headroom_overflow), m);
		return;
	}
	r = aifab_qos_buf_admit(wk->buf, q, SW_CELLS(len));
	if (r < 0) {
		if (lossless)
			aifab_pfc_gen_sub(&wk->eg[in_port].pfc_gen, tc, len,
					  sw_free(wk));
		SW_ADD_TC(wk, sw_st_qos(aifab_qos_drop_ctr(
			(enum aifab_qos_drop)-r)), out_port, tc, 1);
		sw_drop(wk, out_port, SW_DROP(egress_queue), m);
		return;
	}
	if (r == AIFAB_QOS_ADMIT_HEADROOM) {
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
	if (aifab_qos_fifo_count(eg->q[tc]) > eg->q[tc]->mask) {
		SW_ADD_TC(wk, sw_st_tail_drop_fifo_full, out_port, tc, 1);
		sw_release(sw, wk, out_port, m);
		sw_drop(wk, out_port, SW_DROP(egress_queue), m);
		return;
	}
	if (!sw->ecn_at_dequeue &&
	    !sw_ecn(sw, wk, out_port, tc, m, eg->q[tc]->bytes)) {
		sw_release(sw, wk, out_port, m);
		sw_drop(wk, out_port, SW_DROP(egress_queue), m);
		return;
	}
	aifab_qos_fifo_enqueue(eg->q[tc], m); /* room checked above */
	eg->nonempty |= (uint8_t)(1u << tc);
}
