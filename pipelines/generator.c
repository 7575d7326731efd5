/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The generator pipeline, open loop: N emulated ranks walk their collective
 * schedule; each step posts one RDMA WRITE per (channel, QP); a per-rank
 * token bucket on the TSC paces the packets, which are built by lib/roce
 * (payload attached, never copied) and sent in bursts per port. What comes
 * back is accounted per QP (PSN) and per port (latency histogram).
 *
 * One worker owns everything: no sharing, no atomics; counters are plain.
 */
#include <stdio.h>
#include <string.h>

#include <rte_common.h>
#include <rte_ethdev.h>
#include <rte_mbuf.h>

#include "aifab_collective.h"
#include "aifab_pkt.h"
#include "aifab_roce.h"
#include "generator_priv.h"

/* ---- TX ------------------------------------------------------------------ */

static void
tx_flush(struct gen *g, uint16_t p)
{
	struct gen_port *gp = &g->port[p];
	uint16_t sent;

	if (gp->n_tx == 0)
		return;
	sent = rte_eth_tx_burst(g->env.ports[p].port_id, g->p.txq, gp->tx,
				gp->n_tx);
	/* Bytes were counted when built; unsent ones are kept for later. */
	gp->tx_packets += sent;
	if (sent < gp->n_tx)
		memmove(gp->tx, gp->tx + sent,
			sizeof(gp->tx[0]) * (gp->n_tx - sent));
	gp->n_tx = (uint16_t)(gp->n_tx - sent);
}

/*
 * Add the tokens accrued since the last poll. A rank that was held back by
 * the rate at its last poll keeps all of them (the cap is the depth plus
 * this interval's accrual), so it never loses rate when polls are further
 * apart than one frame time; an idle rank fills up to the depth only.
 */
static void
bucket_refill(struct gen_rank *rk, uint64_t now)
{
	int64_t add;

	if (rk->rate_fp == 0 || now <= rk->last_tsc)
		return;
	add = (int64_t)(RTE_MIN(now - rk->last_tsc, rk->max_idle) *
			rk->rate_fp);
	rk->tokens = RTE_MIN(rk->tokens + add,
			     rk->depth + (rk->backlogged ? add : 0));
	rk->last_tsc = now;
}

/* Post step rk->step: one message per (channel, QP) with bytes. */
static void
step_post(struct gen *g, struct gen_rank *rk, uint64_t now)
{
	uint32_t c, q, nq = g->p.qps_per_conn;

	rk->n_act = 0;
	rk->rr = 0;
	rk->step_start = now;
	for (c = 0; c < g->n_chan; c++) {
		uint32_t e = rk->step * g->n_chan + c;
		const struct aifab_coll_step *s = &rk->sched[e];
		uint64_t off = s->offset;

		for (q = 0; q < nq; q++) {
			uint64_t b = s->bytes / nq + (q < s->bytes % nq);
			struct gen_conn *cn = &g->conns[rk->entry_conn[e] + q];

			if (b == 0)
				continue;
			/* Sizes were validated: the QP is idle, len fits. */
			if (aifab_roce_msg_post(&cn->qp, b, off, rk->step) == 0)
				rk->act[rk->n_act++] = rk->entry_conn[e] + q;
			off += b;
		}
	}
	rk->state = RANK_SEND;
}

static void
rank_step_done(struct gen *g, struct gen_rank *rk, uint32_t r, uint64_t now)
{
	if (++rk->step < g->n_steps) {
		rk->next_start = rk->step_start +
			(uint64_t)((double)g->p.step_time_ns / g->ns_per_tsc);
		rk->state = RANK_WAIT;
		return;
	}
	g->iter_end[rk->iter] = RTE_MAX(g->iter_end[rk->iter], now);
	g->iter_ranks_done[rk->iter]++;
	RTE_SET_USED(r);
	rk->step = 0;
	if (++rk->iter == g->total_iters) {
		rk->state = RANK_DONE;
		return;
	}
	rk->next_start = now + (uint64_t)((double)g->p.gap_ns / g->ns_per_tsc);
	rk->state = RANK_WAIT;
}

/* Next segment of an active conn, or false when its message is done. */
static bool
conn_seg(struct gen_conn *cn, struct aifab_roce_seg *s)
{
	if (cn->has_pend) {
		*s = cn->pend;
		cn->has_pend = false;
		return true;
	}
	return aifab_roce_seg_next(&cn->qp, s);
}

/* Send one packet of the rank's current step: 1 sent, 0 a QP finished
 * (nothing sent), -1 out of mbufs. */
static int
rank_send_one(struct gen *g, struct gen_rank *rk, uint32_t r, uint64_t now)
{
	struct gen_port *gp = &g->port[rk->port];
	uint32_t ci = rk->act[rk->rr];
	struct gen_conn *cn = &g->conns[ci];
	struct aifab_roce_tag_info ti = {
		.rank = (uint16_t)r, .step = (uint16_t)rk->step,
		.iter = rk->iter, .tx_tsc = now,
	};
	struct aifab_roce_seg s;
	struct rte_mbuf *m;

	if (!conn_seg(cn, &s)) {
		rk->act[rk->rr] = rk->act[--rk->n_act];
		if (rk->rr >= rk->n_act)
			rk->rr = 0;
		return 0;
	}
	m = aifab_roce_build(&cn->qp, &s, &ti, g->hdr_pool, g->ext_pool);
	if (m == NULL) {
		cn->pend = s;
		cn->has_pend = true;
		gp->ctr[GEN_TX_NOMBUF]++;
		return -1;
	}
	gp->tx_bytes += m->pkt_len;
	rk->tokens -= (int64_t)(m->pkt_len + GEN_WIRE_EXTRA) << GEN_FP;
	gp->tx[gp->n_tx++] = m;
	if (!aifab_roce_qp_busy(&cn->qp))
		rk->act[rk->rr] = rk->act[--rk->n_act];
	else
		rk->rr++;
	if (rk->rr >= rk->n_act)
		rk->rr = 0;
	return 1;
}

/* Start the next step if due; false when the rank has nothing to send. */
static bool
rank_ready(struct gen *g, struct gen_rank *rk, uint64_t now)
{
	if (rk->state == RANK_WAIT) {
		if (now < rk->next_start)
			return false;
		if (rk->step == 0)
			g->iter_start[rk->iter] =
				RTE_MIN(g->iter_start[rk->iter], now);
		step_post(g, rk, now);
	}
	return rk->state == RANK_SEND;
}

static unsigned int
rank_poll(struct gen *g, uint32_t r, uint64_t now)
{
	struct gen_rank *rk = &g->ranks[r];
	unsigned int sent = 0;
	int rc;

	bucket_refill(rk, now);
	while (sent < g->p.burst_pkts && rank_ready(g, rk, now)) {
		if (rk->n_act == 0) {
			rank_step_done(g, rk, r, now);
			continue;
		}
		if (rk->rate_fp != 0 && rk->tokens <= 0)
			break;
		if (g->port[rk->port].n_tx == GEN_TXBUF) {
			tx_flush(g, rk->port);
			if (g->port[rk->port].n_tx == GEN_TXBUF)
				break;
		}
		rc = rank_send_one(g, rk, r, now);
		if (rc < 0)
			break;
		sent += (unsigned int)rc;
	}
	rk->backlogged = rk->state == RANK_SEND && rk->n_act > 0;
	return sent;
}

/* ---- RX ------------------------------------------------------------------ */

static struct gen_conn *
conn_of_qpn(struct gen *g, uint32_t dqpn)
{
	uint32_t i;

	if (dqpn <= g->p.qpn_base || ((dqpn - g->p.qpn_base) & 1) == 0)
		return NULL;
	i = (dqpn - g->p.qpn_base - 1) / 2;
	return i < g->n_conns ? &g->conns[i] : NULL;
}

static void
rx_one(struct gen *g, struct gen_port *gp, struct rte_mbuf *m, uint64_t now)
{
	struct aifab_pkt_info pi;
	struct aifab_roce_tag_info ti;
	struct gen_conn *cn;
	uint8_t tagbuf[AIFAB_ROCE_TAG_LEN];
	const uint8_t *t;
	uint32_t off;

	gp->rx_packets++;
	gp->rx_bytes += m->pkt_len;
	if (aifab_pkt_parse_mbuf(m, &pi, gp->scratch, false) !=
	    AIFAB_PKT_ERR_OK || !(pi.flags & AIFAB_PKT_F_ROCE)) {
		gp->ctr[GEN_RX_OTHER]++;
		return;
	}
	gp->ctr[GEN_RX_ROCE]++;
	cn = conn_of_qpn(g, pi.dqpn);
	if (cn == NULL) {
		gp->ctr[GEN_RX_UNKNOWN_QP]++;
		return;
	}
	aifab_roce_rx_psn(&cn->rx, pi.psn);
	off = pi.bth_off + AIFAB_BTH_LEN;
	if (pi.bth_opcode == AIFAB_BTH_OP_WRITE_FIRST ||
	    pi.bth_opcode == AIFAB_BTH_OP_WRITE_ONLY)
		off += AIFAB_RETH_LEN;
	t = off + AIFAB_ROCE_TAG_LEN + AIFAB_ICRC_LEN <= m->pkt_len ?
		rte_pktmbuf_read(m, off, AIFAB_ROCE_TAG_LEN, tagbuf) : NULL;
	if (t == NULL || !aifab_roce_tag_read(t, AIFAB_ROCE_TAG_LEN, &ti) ||
	    ti.tx_tsc > now) {
		gp->ctr[GEN_RX_NO_TAG]++;
		return;
	}
	aifab_roce_hist_add(&gp->lat,
			    (uint64_t)((double)(now - ti.tx_tsc) * g->ns_per_tsc));
}

static unsigned int
rx_poll(struct gen *g, uint64_t now)
{
	struct rte_mbuf *pkts[GEN_RX_BURST];
	unsigned int got = 0, i;
	uint16_t u, n;

	for (u = 0; u < g->n_used_ports; u++) {
		uint16_t p = g->used_ports[u];

		n = rte_eth_rx_burst(g->env.ports[p].port_id, g->p.rxq, pkts,
				     GEN_RX_BURST);
		for (i = 0; i < n; i++) {
			rx_one(g, &g->port[p], pkts[i], now);
			rte_pktmbuf_free(pkts[i]);
		}
		got += n;
	}
	return got;
}

/* ---- ops ----------------------------------------------------------------- */

static void
gen_start(struct gen *g, uint64_t now)
{
	uint32_t r;

	for (r = 0; r < g->p.n_ranks; r++) {
		g->ranks[r].next_start = now;
		g->ranks[r].last_tsc = now;
	}
	g->started = true;
}

static unsigned int
gen_poll(void *st, unsigned int w, uint64_t now)
{
	struct gen *g = st;
	unsigned int handled = 0;
	uint32_t i, n = g->p.n_ranks;
	uint16_t u;

	RTE_SET_USED(w);
	if (!g->started)
		gen_start(g, now);
	if (g->p.rx)
		handled += rx_poll(g, now);
	for (i = 0; i < n; i++)
		handled += rank_poll(g, (g->rr_rank + i) % n, now);
	g->rr_rank = (g->rr_rank + 1) % n;
	for (u = 0; u < g->n_used_ports; u++)
		tx_flush(g, g->used_ports[u]);
	return handled;
}

static void
gen_drain(void *st, unsigned int w, uint64_t now)
{
	struct gen *g = st;
	uint16_t u, i;

	RTE_SET_USED(w);
	if (g->p.rx)
		rx_poll(g, now);
	for (u = 0; u < g->n_used_ports; u++) {
		struct gen_port *gp = &g->port[g->used_ports[u]];

		tx_flush(g, g->used_ports[u]);
		for (i = 0; i < gp->n_tx; i++) {
			gp->tx_bytes -= gp->tx[i]->pkt_len;
			rte_pktmbuf_free(gp->tx[i]);
		}
		gp->ctr[GEN_TX_DROPPED] += gp->n_tx;
		gp->n_tx = 0;
	}
}

static bool
gen_done(const void *st)
{
	const struct gen *g = st;
	uint32_t r;
	uint16_t u;

	for (r = 0; r < g->p.n_ranks; r++)
		if (g->ranks[r].state != RANK_DONE)
			return false;
	for (u = 0; u < g->n_used_ports; u++)
		if (g->port[g->used_ports[u]].n_tx != 0)
			return false;
	return g->started;
}

static void
gen_port_counters(const void *st, struct aifab_port_counters *out)
{
	const struct gen *g = st;
	uint16_t p;

	memset(out, 0, sizeof(*out) * g->env.n_ports);
	for (p = 0; p < g->env.n_ports; p++) {
		out[p].rx_packets = g->port[p].rx_packets;
		out[p].rx_bytes = g->port[p].rx_bytes;
		out[p].tx_packets = g->port[p].tx_packets;
		out[p].tx_bytes = g->port[p].tx_bytes;
	}
}

static void *
gen_init_refuse(const struct aifab_env *env, unsigned int n_workers,
		char *err, size_t errlen)
{
	RTE_SET_USED(env);
	RTE_SET_USED(n_workers);
	snprintf(err, errlen, "generator: create it with aifab_gen_create()");
	return NULL;
}

const struct aifab_pipeline_ops aifab_generator_ops = {
	.name = "generator",
	.init = gen_init_refuse,
	.poll = gen_poll,
	.drain = gen_drain,
	.done = gen_done,
	.port_counters = gen_port_counters,
	.report = gen_report,
	.fini = gen_fini,
};
