/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The generator's receive side: what comes back on its ports, frame by
 * frame, from the fault stage at RX through one dispatch:
 *
 *   rx_one            every frame: counted, parsed (lib/pkt); malformed
 *                     frames, PFC (pauses the port's priorities for every
 *                     worker, lib/pfc) and 802.3x PAUSE end here; with
 *                     several workers a frame for another worker's rank
 *                     (by BTH dest QP) goes to that worker's inbox ring,
 *                     where it is parsed again (rx_inbox); frames not
 *                     RoCEv2 (start frames) go to worker 0
 *   rx_roce_dispatch  every RoCEv2 frame: its ICRC checked
 *                     ([generator] rx_check_icrc: a bad one is dropped and
 *                     counted rx_bad_icrc, as a NIC does), counted, latency
 *                     from the payload tag of data packets, then by loop
 *                     and BTH opcode:
 *     open loop       the receiver QP's PSN tracking (lib/roce)
 *     closed loop     data -> the responder and notification point
 *                     (generator_cl.c), whose ACK, NAK or CNP this file
 *                     builds and queues (generator_tx.c); ACK / NAK (by
 *                     AETH syndrome) and CNP -> the requester and reaction
 *                     point (generator_cl.c)
 */
#include <rte_common.h>
#include <rte_cycles.h>
#include <rte_ethdev.h>
#include <rte_mbuf.h>

#include "aifab_pkt.h"
#include "aifab_profile.h"
#include "aifab_roce.h"
#include "generator_priv.h"

/*
 * Several workers on the TSC: `now` is read once per poll, and another
 * worker may stamp a frame after that and its frame come back during this
 * poll (a worker descheduled mid-poll sees it often). Such a departure
 * stamp is past this poll's clock but not past the TSC: read the TSC
 * again then (rarely: only for a stamp ahead of `now`). Virtual clocks
 * are one clock for every worker.
 */
static bool
rx_clock_rereads(const struct gen *g)
{
	const struct aifab_profile *pr = g->env.prof;

	return g->n_wk > 1 && g->p.virtual_tick_ns == 0 && pr != NULL &&
	       pr->clock == AIFAB_CLOCK_REALTIME && !pr->virtual_time;
}

/* Latency from the tag of a data packet (both loops). */
static void
rx_latency(struct gen *g, struct gen_port *gp, struct rte_mbuf *m,
	   const struct aifab_pkt_info *pi, uint64_t now)
{
	struct aifab_roce_tag_info ti;
	uint8_t tagbuf[AIFAB_ROCE_TAG_LEN];
	const uint8_t *t;
	uint32_t off;
	bool ok;

	off = pi->bth_off + AIFAB_BTH_LEN + aifab_bth_data_ext_len(
		pi->bth_opcode);
	t = off + AIFAB_ROCE_TAG_LEN + AIFAB_ICRC_LEN <= m->pkt_len ?
		rte_pktmbuf_read(m, off, AIFAB_ROCE_TAG_LEN, tagbuf) : NULL;
	ok = t != NULL && aifab_roce_tag_read(t, AIFAB_ROCE_TAG_LEN, &ti);
	if (ok && ti.tx_tsc > now && rx_clock_rereads(g))
		now = rte_rdtsc();
	if (!ok || ti.tx_tsc > now) {
		gp->ctr[GEN_RX_NO_TAG]++;
		return;
	}
	aifab_roce_hist_add(&gp->lat,
			    (uint64_t)((double)(now - ti.tx_tsc) * g->ns_per_tsc));
}

/* Payload bytes of a data packet (no pad, no ICRC): from the IP and UDP
 * lengths, not the frame's, so Ethernet padding or a trailer after the
 * datagram is not payload. */
static uint32_t
payload_len(const struct rte_mbuf *m, const struct aifab_pkt_info *pi)
{
	uint32_t hdr = pi->bth_off + AIFAB_BTH_LEN + AIFAB_ICRC_LEN + pi->pad_cnt;
	uint32_t end = (uint32_t)pi->l3_off + pi->ip_len;
	const uint8_t *u;
	uint8_t tmp[2];

	u = rte_pktmbuf_read(m, (uint32_t)pi->l4_off + 4, 2, tmp);
	if (u != NULL)
		end = RTE_MIN(end, (uint32_t)pi->l4_off +
			      ((uint32_t)u[0] << 8 | u[1]));
	hdr += aifab_bth_data_ext_len(pi->bth_opcode); /* RETH, ImmDt */
	return end > hdr ? end - hdr : 0;
}

/* The responder's ACK / NAK and the notification point's CNP for a data
 * packet of @p cn, from the receiving rank's port. */
static void
rx_data_reply(struct gen_wk *wk, struct gen_port *gp, struct gen_conn *cn,
	      bool cnp, const struct aifab_rc_resp_action *act, uint64_t now)
{
	const struct gen *g = wk->g;
	uint16_t port = g->ranks[cn->dst].port;
	struct rte_mbuf *r;

	if (cnp) {
		r = aifab_roce_build_cnp(&cn->qp, g->cnp_tos, wk->hdr_pool);
		if (r == NULL)
			gp->ctr[GEN_TX_NOMBUF]++;
		else if (gen_tx_ctl(wk, port, r, true, now))
			wk->port[port].ctr[GEN_TX_CNP]++;
	}
	if (act->reply == AIFAB_RC_REPLY_NONE)
		return;
	r = aifab_roce_build_ack(&cn->qp, act->psn, act->syndrome, act->msn,
				 (uint8_t)(cn->qp.cfg.dscp << 2 |
					   cn->qp.cfg.ecn),
				 wk->hdr_pool);
	if (r == NULL)
		gp->ctr[GEN_TX_NOMBUF]++;
	else if (gen_tx_ctl(wk, port, r, false, now))
		wk->port[port].ctr[act->reply == AIFAB_RC_REPLY_NAK ?
				  GEN_TX_NAK : GEN_TX_ACK]++;
}

/* Closed loop: a data packet to a receiver QP. */
static void
rx_data(struct gen_wk *wk, struct gen_port *gp, struct rte_mbuf *m,
	const struct aifab_pkt_info *pi, uint64_t now)
{
	struct gen_conn *cn = gen_conn_of_rqpn(wk->g, pi->dqpn);
	struct aifab_rc_resp_action act;
	struct gen_rx_data d;
	const uint8_t *bp;
	uint8_t tmp;
	bool cnp;

	if (cn == NULL) {
		gp->ctr[GEN_RX_UNKNOWN_QP]++;
		return;
	}
	bp = rte_pktmbuf_read(m, pi->bth_off + 8, 1, &tmp);
	d.psn = pi->psn;
	d.len = payload_len(m, pi);
	d.flags = (unsigned int)aifab_rc_opcode_flags(pi->bth_opcode);
	if (bp != NULL && (*bp & 0x80))             /* BTH AckReq */
		d.flags |= AIFAB_RC_F_ACK_REQ;
	d.ce = (pi->tos & 3) == 3;
	if (d.ce)
		gp->ctr[GEN_RX_CE]++;
	cnp = gen_cl_on_data(wk, cn, &d, now, gp, &act);
	rx_data_reply(wk, gp, cn, cnp, &act, now);
}

/* Closed loop: an ACK or NAK (AETH syndrome) to a sender QP. */
static void
rx_ack(struct gen_wk *wk, struct gen_port *gp, struct rte_mbuf *m,
       const struct aifab_pkt_info *pi, uint64_t now)
{
	struct gen_conn *cn = gen_conn_of_sqpn(wk->g, pi->dqpn);
	uint8_t tmp;
	const uint8_t *syn;

	syn = rte_pktmbuf_read(m, pi->bth_off + AIFAB_BTH_LEN, 1, &tmp);
	if (cn == NULL || syn == NULL) {
		gp->ctr[GEN_RX_UNKNOWN_QP]++;
		return;
	}
	if ((*syn & 0x60) == 0) {
		gp->ctr[GEN_RX_ACK]++;
		gen_cl_on_ack(wk, cn, pi->psn, now);
	} else if (*syn == AIFAB_RC_SYN_NAK_PSN_SEQ) {
		gp->ctr[GEN_RX_NAK]++;
		gen_cl_on_nak(wk, cn, pi->psn, now);
	} else {
		gp->ctr[GEN_RX_NAK_OTHER]++;
	}
}

/* Closed loop: a CNP to a sender QP. */
static void
rx_cnp(struct gen_wk *wk, struct gen_port *gp, const struct aifab_pkt_info *pi,
       uint64_t now)
{
	struct gen_conn *cn = gen_conn_of_sqpn(wk->g, pi->dqpn);

	if (cn == NULL) {
		gp->ctr[GEN_RX_UNKNOWN_QP]++;
		return;
	}
	gp->ctr[GEN_RX_CNP]++;
	gen_cl_on_cnp(wk, cn, now);
}

/*
 * [generator] rx_check_icrc: every RoCEv2 frame (or one in N per port,
 * counted) has its ICRC checked; a wrong one is dropped and counted as an
 * RDMA NIC does, so the closed loop recovers it as a lost frame (NAK or
 * timeout). False: drop the frame.
 */
static bool
rx_icrc_ok(const struct gen *g, struct gen_port *gp, const struct rte_mbuf *m,
	   const struct aifab_pkt_info *pi)
{
	uint32_t every = g->p.rx_check_icrc;

	if (every == 0)
		return true;
	if (gp->icrc_skip > 0) {        /* one in N: no division per frame */
		gp->icrc_skip--;
		return true;
	}
	gp->icrc_skip = every - 1;
	gp->ctr[GEN_RX_ICRC_CHECKED]++;
	if (aifab_icrc_verify_known(m, pi, g->icrc_known) == AIFAB_ICRC_OK)
		return true;
	gp->ctr[GEN_RX_BAD_ICRC]++;
	return false;
}

/* Every RoCEv2 frame the generator receives enters here, parsed and of a
 * known layout: checks of the whole frame go first. */
static void
rx_roce_dispatch(struct gen_wk *wk, struct gen_port *gp, struct rte_mbuf *m,
	const struct aifab_pkt_info *pi, uint64_t now)
{
	struct gen *g = wk->g;
	struct gen_conn *cn;

	if (!rx_icrc_ok(g, gp, m, pi))
		return;
	gp->ctr[GEN_RX_ROCE]++;
	if (pi->bth_opcode <= AIFAB_BTH_OP_WRITE_ONLY_IMM)
		rx_latency(g, gp, m, pi, now);
	if (!g->p.closed_loop) {
		cn = gen_conn_of_rqpn(g, pi->dqpn);
		if (cn == NULL)
			gp->ctr[GEN_RX_UNKNOWN_QP]++;
		else
			aifab_roce_rx_psn(&cn->rx, pi->psn);
		return;
	}
	if (aifab_rc_opcode_flags(pi->bth_opcode) >= 0)
		rx_data(wk, gp, m, pi, now);
	else if (pi->bth_opcode == AIFAB_BTH_OP_ACK)
		rx_ack(wk, gp, m, pi, now);
	else if (pi->bth_opcode == AIFAB_BTH_OP_CNP)
		rx_cnp(wk, gp, pi, now);
	else
		gp->ctr[GEN_RX_ROCE_OTHER]++;
}

/* A frame for one of this worker's ranks (or, not RoCEv2, for worker 0:
 * start frames), parsed as @p pi. */
static void
rx_mine(struct gen_wk *wk, uint16_t p, struct rte_mbuf *m,
	const struct aifab_pkt_info *pi, uint64_t now)
{
	struct gen_port *gp = &wk->port[p];

	if (!(pi->flags & AIFAB_PKT_F_ROCE)) {
		if (!gen_start_rx(wk, p, m, now)) /* several servers */
			gp->ctr[GEN_RX_OTHER]++;
		return;
	}
	rx_roce_dispatch(wk, gp, m, pi, now);
}

/* The worker a RoCEv2 frame to QP @p dqpn is for: a receiver QPN's
 * destination rank's, a sender QPN's source rank's; @p self for a QP the
 * generator does not have (counted there). */
static unsigned int
rx_owner(const struct gen *g, uint32_t dqpn, unsigned int self)
{
	struct gen *gg = (struct gen *)(uintptr_t)g; /* lookups only */
	const struct gen_conn *cn = gen_conn_of_rqpn(gg, dqpn);

	if (cn != NULL)
		return g->rank_wk[cn->dst];
	cn = gen_conn_of_sqpn(gg, dqpn);
	return cn != NULL ? g->rank_wk[cn->src] : self;
}

/* Hand @p m, received on env port @p p, to worker @p o's inbox (m->port
 * carries @p p there). False: the inbox was full, the frame is dropped. */
static bool
rx_handoff(struct gen_wk *wk, unsigned int o, uint16_t p, struct rte_mbuf *m)
{
	m->port = p;
	if (rte_ring_mp_enqueue(wk->g->wk[o].inbox, m) == 0) {
		wk->port[p].ctr[GEN_RX_HANDOFF]++;
		return true;
	}
	wk->port[p].ctr[GEN_RX_HANDOFF_DROPPED]++;
	return false;
}

/* Every frame an RX queue of this worker gave: counted, parsed; PFC acts
 * on the port for every worker; a frame of another worker's rank goes to
 * its inbox. True: @p m was handed off (not to be freed here). */
static bool
rx_one(struct gen_wk *wk, uint16_t p, struct rte_mbuf *m, uint64_t now)
{
	struct gen *g = wk->g;
	struct gen_port *gp = &wk->port[p];
	struct aifab_pkt_info pi;
	enum aifab_pkt_err e;
	unsigned int o;

	gp->rx_packets++;
	gp->rx_bytes += m->pkt_len;
	e = aifab_pkt_parse_mbuf(m, &pi, gp->scratch, false);
	if (e != AIFAB_PKT_ERR_OK) {
		gp->ctr[GEN_RX_OTHER]++;
		gp->rx_err[e]++;
		return false;
	}
	if (pi.flags & AIFAB_PKT_F_PFC) {
		gp->ctr[GEN_RX_PFC]++;
		rte_spinlock_lock(&g->pfc_lock[p]);
		__atomic_fetch_or(&g->pfc_seen[p >> 6], UINT64_C(1) << (p & 63),
				  __ATOMIC_RELAXED);
		aifab_pfc_rx_frame(&g->pfc[p], pi.pfc_enable, pi.pfc_time, now);
		rte_spinlock_unlock(&g->pfc_lock[p]);
		if (wk->rs.on)
			gen_vclock_pause_changed(g, p);
		return false;
	}
	if (pi.flags & AIFAB_PKT_F_PAUSE) {
		gp->ctr[GEN_RX_PAUSE]++;
		return false;
	}
	if (g->n_wk > 1) {
		o = (pi.flags & AIFAB_PKT_F_ROCE) ?
			rx_owner(g, pi.dqpn, wk->w) : 0;
		if (o != wk->w)
			return rx_handoff(wk, o, p, m);
	}
	rx_mine(wk, p, m, &pi, now);
	return false;
}

/* Frames other workers received for this one's ranks: parsed again (they
 * parsed before). */
static unsigned int
rx_inbox(struct gen_wk *wk, uint64_t now)
{
	struct rte_mbuf *pkts[GEN_RX_BURST];
	struct aifab_pkt_info pi;
	unsigned int n, i;

	n = rte_ring_sc_dequeue_burst(wk->inbox, (void **)pkts, GEN_RX_BURST,
				      NULL);
	for (i = 0; i < n; i++) {
		uint16_t p = pkts[i]->port;

		if (aifab_pkt_parse_mbuf(pkts[i], &pi, wk->port[p].scratch,
					 false) == AIFAB_PKT_ERR_OK)
			rx_mine(wk, p, pkts[i], &pi, now);
		rte_pktmbuf_free(pkts[i]);
	}
	return n;
}

/* One RX burst of port @p p (the worker's queue), each frame handled;
 * the frames the queue gave. */
static uint16_t
rx_port(struct gen_wk *wk, uint16_t p, uint64_t now)
{
	struct gen *g = wk->g;
	struct gen_port *gp = &wk->port[p];
	struct rte_mbuf *pkts[GEN_RX_BURST];
	uint16_t n, got, i;

	if (unlikely(!gp->vc_rx_known)) {
		/* the clock's wire, if it reads one (set at the clock's
		 * first step, before any poll; freed after the drain) */
		gp->vc_rx_known = true;
		gp->vc_rx_wire = aifab_port_rx_wire(&g->env.ports[p]);
	}
	if (gp->vc_rx_wire != NULL) /* as aifab_port_rx_burst() reads it */
		got = n = aifab_wire_read(gp->vc_rx_wire, pkts, GEN_RX_BURST);
	else
		got = n = aifab_port_rx_burst(&g->env.ports[p], wk->rxq, pkts,
					      GEN_RX_BURST);
	if (n > 0 && !g->p.fault_on_tx && aifab_fault_active(&gp->fault))
		n = aifab_fault_burst(&gp->fault, pkts, n, gp->scratch);
	for (i = 0; i < n; i++)
		if (!rx_one(wk, p, pkts[i], now))
			rte_pktmbuf_free(pkts[i]);
	return got;
}

/* Whether worker @p wk has an RX queue on port @p p: learnt at the
 * first poll (queues are set up before), then read from the worker's
 * own line of the port, not the port's (a line less per burst). */
static inline bool
rxq_here(struct gen_wk *wk, uint16_t p)
{
	struct gen_port *gp = &wk->port[p];

	if (unlikely(gp->rxq_here == 0))
		gp->rxq_here = wk->rxq < wk->g->env.ports[p].nb_rxq ? 1 : -1;
	return gp->rxq_here > 0;
}

/* Whether the virtual clock marks every used port's RX ring it fills
 * (port_sets_init() asked it to; it says so at its first step, before
 * any poll): then a poll reads the marked rings only. */
static bool
rx_by_mark(struct gen *g)
{
	uint8_t mode = __atomic_load_n(&g->rx_mode, __ATOMIC_RELAXED);
	uint16_t u;

	if (mode == 0) {
		mode = g->port_sets ? 1 : 2;
		for (u = 0; u < g->n_used_ports && mode == 1; u++) {
			const struct aifab_port_rt *rt =
				&g->env.ports[g->used_ports[u]];

			if (!aifab_port_rx_clock_marked(rt) ||
			    rt->tap[0].rx_mark != &g->rx_set[u >> 6])
				mode = 2;
		}
		__atomic_store_n(&g->rx_mode, mode, __ATOMIC_RELAXED);
	}
	return mode == 1;
}

/* The worker's RX queue of every port that has one for it (vdevs have
 * one: worker 0's), then its inbox. On the virtual clock only the ports
 * it filled since (a ring left non-empty by a full burst stays marked):
 * an empty ring would give nothing. */
unsigned int
gen_rx_poll(struct gen_wk *wk, uint64_t now)
{
	struct gen *g = wk->g;
	unsigned int got = 0, k, nw;
	uint64_t m;
	uint16_t u;

	if (rx_by_mark(g)) {
		nw = gen_port_words(g);
		for (k = 0; k < nw; k++)
			for (m = g->rx_set[k]; m != 0; m &= m - 1) {
				unsigned int b = (unsigned int)
					__builtin_ctzll(m);
				uint16_t p = g->used_ports[k * 64 + b];
				uint16_t n;

				if (!rxq_here(wk, p))
					continue;
				n = rx_port(wk, p, now);
				if (n < GEN_RX_BURST)
					g->rx_set[k] &= ~(UINT64_C(1) << b);
				got += n;
			}
	} else {
		for (u = 0; u < g->n_used_ports; u++) {
			uint16_t p = g->used_ports[u];

			if (!rxq_here(wk, p))
				continue;
			got += rx_port(wk, p, now);
		}
	}
	if (wk->inbox != NULL)
		got += rx_inbox(wk, now);
	return got;
}
