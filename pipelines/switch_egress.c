/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Switch egress: buffer admission with PFC ingress accounting and ECN at
 * enqueue; per poll and port: PFC frames to send, the PFC watchdog, the
 * pause mask from received PFC, then scheduler + shaper dequeue (ECN at
 * dequeue) into the TX buffer.
 */
#include <string.h>

#include <rte_ethdev.h>

#include "switch_priv.h"

static inline uint32_t
sw_queue(uint16_t port, uint8_t tc)
{
	return (uint32_t)port * AIFAB_QOS_N_TC + tc;
}

static inline uint64_t
sw_free(const struct sw_worker *wk)
{
	return wk->buf->size - wk->buf->used;
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
static bool
sw_ecn(struct sw *sw, struct sw_worker *wk, uint64_t *ctr, uint8_t tc,
       struct rte_mbuf *m, uint32_t qbytes)
{
	uint8_t *l3 = rte_pktmbuf_mtod_offset(m, uint8_t *, m->l2_len);

	switch (aifab_qos_ecn_decide(&sw->ecn[tc], qbytes, sw_tos(l3),
				     &wk->rng)) {
	case AIFAB_QOS_ECN_PASS:
		return true;
	case AIFAB_QOS_ECN_MARK:
		if (aifab_qos_ecn_set_ce(l3))
			ctr[AIFAB_QOS_CTR_ECN_MARKED]++;
		ctr[AIFAB_QOS_CTR_ECN_SELECTED]++;
		return true;
	case AIFAB_QOS_ECN_SELECTED:
		ctr[AIFAB_QOS_CTR_ECN_SELECTED]++;
		return true;
	case AIFAB_QOS_ECN_DROP:
	default:
		ctr[AIFAB_QOS_CTR_ECN_SELECTED]++;
		ctr[aifab_qos_drop_ctr(AIFAB_QOS_DROP_ECN_NOT_ECT)]++;
		return false;
	}
}

/* Undo a packet's buffer and PFC accounting (dequeued or dropped). */
static inline void
sw_release(struct sw *sw, struct sw_worker *wk, uint16_t out_port,
	   const struct rte_mbuf *m)
{
	uint8_t tc = SW_META_TC(m->hash.usr);

	aifab_qos_buf_release(wk->buf, sw_queue(out_port, tc), m->pkt_len);
	if (sw->lossless & (1u << tc))
		aifab_pfc_gen_sub(&wk->eg[SW_META_PORT(m->hash.usr)].pfc_gen,
				  tc, m->pkt_len, sw_free(wk));
}

void
sw_enqueue(struct sw *sw, struct sw_worker *wk, uint16_t out_port,
	   uint8_t tc, struct rte_mbuf *m, uint32_t l3_off)
{
	struct sw_egress *eg = &wk->eg[out_port];
	struct sw_port_ctr *c = &wk->ctr[out_port];
	uint16_t in_port = SW_META_PORT(m->hash.usr);
	bool lossless = sw->lossless & (1u << tc);
	uint32_t len = m->pkt_len, q = sw_queue(out_port, tc);
	int r;

	m->l2_len = l3_off;
	if (aifab_pfc_wd_drop_mask(&eg->wd) & (1u << tc)) {
		c->pfcwd_drops[tc]++;
		sw_drop(wk, out_port, SW_DROP_IDX(SW_DROP_PFCWD), m);
		return;
	}
	if (lossless && aifab_pfc_gen_add(&wk->eg[in_port].pfc_gen, tc, len,
					  sw_free(wk)) == AIFAB_PFC_DROP) {
		sw_drop(wk, in_port, SW_DROP_IDX(SW_DROP_PFC_HEADROOM), m);
		return;
	}
	r = aifab_qos_buf_admit(wk->buf, q, len);
	if (r < 0) {
		if (lossless)
			aifab_pfc_gen_sub(&wk->eg[in_port].pfc_gen, tc, len,
					  sw_free(wk));
		c->qos[tc][aifab_qos_drop_ctr((enum aifab_qos_drop)-r)]++;
		sw_drop(wk, out_port, SW_DROP_IDX(SW_DROP_QOS), m);
		return;
	}
	if (r == AIFAB_QOS_ADMIT_HEADROOM)
		c->qos[tc][AIFAB_QOS_CTR_HEADROOM_ADMITS]++;
	if ((!sw->ecn_at_dequeue &&
	     !sw_ecn(sw, wk, c->qos[tc], tc, m, eg->q[tc]->bytes)) ||
	    aifab_qos_fifo_enqueue(eg->q[tc], m) != 0) {
		if (aifab_qos_fifo_count(eg->q[tc]) > eg->q[tc]->mask)
			c->qos[tc][aifab_qos_drop_ctr(
				AIFAB_QOS_DROP_FIFO_FULL)]++;
		sw_release(sw, wk, out_port, m);
		sw_drop(wk, out_port, SW_DROP_IDX(SW_DROP_QOS), m);
		return;
	}
	eg->nonempty |= (uint8_t)(1u << tc);
}

/* ---- TX ----------------------------------------------------------------- */

void
sw_tx_flush(struct sw *sw, struct sw_worker *wk, uint16_t port)
{
	struct sw_txbuf *tb = &wk->tx[port];
	struct sw_port_ctr *c = &wk->ctr[port];
	uint64_t bytes = 0;
	uint16_t i, sent;

	if (tb->n == 0)
		return;
	/* Count before the burst: the PMD may free mbufs as it sends. */
	for (i = 0; i < tb->n; i++)
		bytes += tb->pkts[i]->pkt_len;
	sent = rte_eth_tx_burst(sw->env.ports[port].port_id, wk->txq,
				tb->pkts, tb->n);
	for (i = sent; i < tb->n; i++) {
		bytes -= tb->pkts[i]->pkt_len;
		sw_drop(wk, port, SW_DROP_IDX(SW_DROP_TX_FULL), tb->pkts[i]);
	}
	c->tx_packets += sent;
	c->tx_bytes += bytes;
	tb->n = 0;
}

/* Queue for TX, stamping the departure time (captures read it). */
static inline void
sw_tx(struct sw *sw, struct sw_worker *wk, uint16_t port, struct rte_mbuf *m)
{
	struct sw_txbuf *tb = &wk->tx[port];

	if (sw->ts_off >= 0) {
		*RTE_MBUF_DYNFIELD(m, sw->ts_off, uint64_t *) =
			sw->virtual_time ? wk->now :
			wk->now * 1000000000ull / sw->hz;
		m->ol_flags |= sw->ts_flag;
	}
	tb->pkts[tb->n++] = m;
	if (tb->n == SW_TXBUF)
		sw_tx_flush(sw, wk, port);
}

/* ---- PFC ---------------------------------------------------------------- */

void
sw_pfc_received(struct sw *sw, struct sw_worker *wk, uint16_t port,
		const struct aifab_pkt_info *pi)
{
	struct sw_egress *eg = &wk->eg[port];
	unsigned int prio;

	aifab_pfc_rx_frame(&eg->pfc_rx, pi->pfc_enable, pi->pfc_time, wk->now);
	if (sw->wd.enabled == 0)
		return;
	for (prio = 0; prio < AIFAB_PFC_NUM_PRIO; prio++)
		if (pi->pfc_enable & (1u << prio))
			aifab_pfc_wd_feed(&eg->wd, prio, wk->now);
}

/* Send the PFC frame the ingress accounting of @p port asks for. */
static void
sw_pfc_send(struct sw *sw, struct sw_worker *wk, uint16_t port,
	    const struct aifab_pfc_frame *f)
{
	struct rte_mbuf *m = rte_pktmbuf_alloc(sw->env.ports[port].pool);
	uint16_t len;

	if (m == NULL) {
		wk->ctr[port].drops[SW_DROP_IDX(SW_DROP_NO_MBUF)]++;
		return;
	}
	len = aifab_build_pfc(rte_pktmbuf_mtod(m, uint8_t *),
			      &sw->env.ports[port].mac, f->enable, f->quanta);
	m->data_len = len;
	m->pkt_len = len;
	sw_tx(sw, wk, port, m);
	if (sw->peer_pause)
		sw_peer_pfc(sw, wk, port, f);
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
		if (reason == SW_DROP_PFCWD)
			wk->ctr[port].pfcwd_drops[tc]++;
		sw_drop(wk, port, SW_DROP_IDX(reason), m);
	}
	eg->nonempty &= (uint8_t)~(1u << tc);
}

/* PFC to send, watchdog; returns the TCs the scheduler may serve. */
static uint8_t
sw_pfc_poll(struct sw *sw, struct sw_worker *wk, uint16_t port, uint64_t now)
{
	struct sw_egress *eg = &wk->eg[port];
	struct aifab_pfc_wd_events ev;
	struct aifab_pfc_frame f;
	uint8_t paused, tc;

	if (sw->pfc_gen[port].enabled &&
	    aifab_pfc_gen_poll(&eg->pfc_gen, sw_free(wk), now, &f))
		sw_pfc_send(sw, wk, port, &f);
	paused = aifab_pfc_rx_paused_mask(&eg->pfc_rx, now);
	if (sw->wd.enabled &&
	    aifab_pfc_wd_poll(&eg->wd, now, paused, &ev) > 0 &&
	    (ev.stormed & sw->wd.drop) != 0)
		for (tc = 0; tc < AIFAB_QOS_N_TC; tc++)
			if (ev.stormed & sw->wd.drop & (1u << tc))
				sw_flush_tc(sw, wk, port, tc, SW_DROP_PFCWD);
	return (uint8_t)~(paused & ~aifab_pfc_wd_ignore_mask(&eg->wd));
}

/* ---- scheduler ------------------------------------------------------------ */

static void
sw_port_dequeue(struct sw *sw, struct sw_worker *wk, uint16_t port,
		uint8_t eligible, uint64_t now)
{
	struct sw_egress *eg = &wk->eg[port];
	const struct aifab_qos_shaper_cfg *shc = &sw->shaper[port];
	uint32_t head[AIFAB_QOS_N_TC];
	uint8_t tc;
	int pick;

	aifab_qos_shaper_update(shc, &eg->shaper, now);
	while (eg->nonempty != 0 && aifab_qos_shaper_ready(shc, &eg->shaper)) {
		struct rte_mbuf *m;
		uint64_t *ctr;

		for (tc = 0; tc < AIFAB_QOS_N_TC; tc++)
			head[tc] = aifab_qos_fifo_head_len(eg->q[tc]) +
				AIFAB_QOS_WIRE_OVERHEAD;
		pick = aifab_qos_sched_next(&sw->sched, &eg->sched,
					    eg->nonempty, eligible, head);
		if (pick < 0)
			break;
		tc = (uint8_t)pick;
		m = aifab_qos_fifo_dequeue(eg->q[tc]);
		if (aifab_qos_fifo_count(eg->q[tc]) == 0)
			eg->nonempty &= (uint8_t)~(1u << tc);
		sw_release(sw, wk, port, m);
		ctr = wk->ctr[port].qos[tc];
		if (sw->ecn_at_dequeue &&
		    !sw_ecn(sw, wk, ctr, tc, m, eg->q[tc]->bytes)) {
			sw_drop(wk, port, SW_DROP_IDX(SW_DROP_QOS), m);
			continue;
		}
		aifab_qos_shaper_consume(shc, &eg->shaper, m->pkt_len);
		ctr[AIFAB_QOS_CTR_TX_PACKETS]++;
		ctr[AIFAB_QOS_CTR_TX_BYTES] += m->pkt_len;
		sw_tx(sw, wk, port, m);
	}
}

void
sw_egress_run(struct sw *sw, struct sw_worker *wk, uint64_t now)
{
	uint16_t p;

	wk->now = now;
	for (p = 0; p < sw->env.n_ports; p++) {
		uint8_t eligible = sw_pfc_poll(sw, wk, p, now);

		if (wk->eg[p].nonempty != 0)
			sw_port_dequeue(sw, wk, p, eligible, now);
		sw_tx_flush(sw, wk, p);
	}
}

void
sw_flush_queues(struct sw *sw, struct sw_worker *wk)
{
	uint16_t p;
	uint8_t tc;

	for (p = 0; p < sw->env.n_ports; p++)
		for (tc = 0; tc < AIFAB_QOS_N_TC; tc++)
			if (wk->eg[p].q[tc] != NULL)
				sw_flush_tc(sw, wk, p, tc, SW_DROP_FLUSHED);
}

bool
sw_queues_empty(const struct sw *sw, const struct sw_worker *wk)
{
	uint16_t p;

	for (p = 0; p < sw->env.n_ports; p++)
		if (wk->eg[p].nonempty != 0 || wk->tx[p].n != 0)
			return false;
	return true;
}
