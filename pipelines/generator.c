/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The generator pipeline: N emulated ranks walk their collective schedule;
 * each step posts one RDMA WRITE per (channel, QP); a per-rank token bucket
 * on the TSC paces the packets, which are built by lib/roce (payload
 * attached, never copied) and sent in bursts per port. What comes back is
 * accounted per QP (PSN) and per port (latency histogram). This file holds
 * the open loop and what both loops share: TX buffers that honour received
 * PFC, the fault stage, departure stamps, RX dispatch and the ops table;
 * generator_cl.c holds the closed loop (RC, DCQCN).
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

static bool
prio_paused(const struct gen *g, uint16_t p, uint8_t prio, uint64_t now)
{
	return (aifab_pfc_rx_paused_mask(&g->port[p].pfc, now) >> prio) & 1;
}

bool
gen_data_paused(const struct gen *g, uint16_t p, uint64_t now)
{
	return prio_paused(g, p, g->p.data_prio, now);
}

/* Send what the PMD takes from @p buf; unsent frames stay for later. */
static void
flush_buf(struct gen *g, uint16_t p, struct rte_mbuf **buf, uint16_t *n)
{
	struct gen_port *gp = &g->port[p];
	uint16_t sent;

	if (*n == 0)
		return;
	sent = rte_eth_tx_burst(g->env.ports[p].port_id, g->p.txq, buf, *n);
	/* Bytes were counted when queued. */
	gp->tx_packets += sent;
	if (sent < *n)
		memmove(buf, buf + sent, sizeof(buf[0]) * (*n - sent));
	*n = (uint16_t)(*n - sent);
}

/* Flush both queues of port @p p unless PFC pauses their priority. */
void
gen_tx_flush(struct gen *g, uint16_t p, uint64_t now)
{
	struct gen_port *gp = &g->port[p];

	if (gp->n_tx > 0 && !gen_data_paused(g, p, now))
		flush_buf(g, p, gp->tx, &gp->n_tx);
	if (gp->n_cnp > 0 && !prio_paused(g, p, g->p.cnp_prio, now))
		flush_buf(g, p, gp->cnp, &gp->n_cnp);
}

/* Departure stamp (ns) for --capture, the virtual clock's when it runs. */
static void
stamp(const struct gen *g, struct rte_mbuf *m, uint64_t now)
{
	if (g->ts_off < 0)
		return;
	*RTE_MBUF_DYNFIELD(m, g->ts_off, uint64_t *) = g->p.virtual_tick_ns ?
		now : (uint64_t)((double)now * g->ns_per_tsc);
	m->ol_flags |= g->ts_flag;
}

/* Queue on the wire: counted as sent; a TX fault stage may lose it. */
static bool
tx_queue(struct gen *g, uint16_t p, struct rte_mbuf *m, uint64_t now)
{
	struct gen_port *gp = &g->port[p];

	gp->tx_bytes += m->pkt_len;
	stamp(g, m, now);
	if (g->p.fault_on_tx && aifab_fault_active(&gp->fault) &&
	    aifab_fault_burst(&gp->fault, &m, 1, gp->scratch) == 0) {
		gp->tx_packets++; /* left the NIC, lost on the wire */
		return false;
	}
	return true;
}

/* A data frame; the caller made room in the data queue. */
void
gen_tx_data(struct gen *g, uint16_t p, struct rte_mbuf *m, uint64_t now)
{
	struct gen_port *gp = &g->port[p];

	if (tx_queue(g, p, m, now))
		gp->tx[gp->n_tx++] = m;
}

/* An ACK / NAK (data queue) or CNP; dropped if its queue stays full. */
bool
gen_tx_ctl(struct gen *g, uint16_t p, struct rte_mbuf *m, bool cnp,
	   uint64_t now)
{
	struct gen_port *gp = &g->port[p];
	uint16_t *n = cnp ? &gp->n_cnp : &gp->n_tx;
	uint16_t cap = cnp ? GEN_CNPBUF : GEN_TXBUF;

	if (*n == cap)
		gen_tx_flush(g, p, now);
	if (*n == cap) {
		gp->ctr[GEN_TX_CTL_DROPPED]++;
		rte_pktmbuf_free(m);
		return false;
	}
	if (tx_queue(g, p, m, now))
		(cnp ? gp->cnp : gp->tx)[(*n)++] = m;
	return true;
}

/*
 * Add the tokens accrued since the last poll. A rank that was held back by
 * the rate at its last poll keeps all of them (the cap is the depth plus
 * this interval's accrual), so it never loses rate when polls are further
 * apart than one frame time; an idle rank fills up to the depth only.
 */
void
gen_bucket_refill(struct gen_rank *rk, uint64_t now)
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

/* Step statistics: free the slot of iteration @p it, adding its step
 * durations (timed iterations) and blaming the slowest step's sender. */
static void
iter_stats_close(struct gen *g, uint32_t it)
{
	struct gen_iter_stat *st = &g->ist[it % GEN_STAT_SLOTS];
	uint64_t prev = g->iter_start[it], d, worst = 0;
	uint32_t k, slow = UINT32_MAX;

	if (st->iter != it)
		return;
	for (k = 0; k < g->n_steps; k++) {
		d = st->end[k] > prev ? st->end[k] - prev : 0;
		prev = RTE_MAX(prev, st->end[k]);
		if (it >= g->p.warmup)
			g->step_sum_us[k] += (double)d * g->ns_per_tsc / 1e3;
		if (slow == UINT32_MAX || d > worst) {
			worst = d;
			slow = k;
		}
	}
	if (slow != UINT32_MAX && st->end[slow] != 0) {
		g->irec[it].slow_step = slow;
		g->irec[it].slow_rank = st->last[slow];
		g->irec[it].slow_step_tsc = worst;
		if (it >= g->p.warmup)
			g->slow_count[st->last[slow]]++;
	}
	st->iter = UINT32_MAX;
}

/* Rank @p r finished its iteration at @p now: account it, start the gap. */
void
gen_iter_rank_done(struct gen *g, struct gen_rank *rk, uint32_t r,
		   uint64_t now)
{
	uint32_t it = rk->iter;

	g->iter_end[it] = RTE_MAX(g->iter_end[it], now);
	if (++g->iter_ranks_done[it] == g->p.n_ranks && g->p.closed_loop)
		iter_stats_close(g, it);
	if (g->p.closed_loop) {
		/* This parity's arrivals now belong to iteration it + 2. */
		memset(rk->got[it & 1], 0, g->n_steps * g->n_chan);
		rk->got_total[it & 1] = 0;
	}
	RTE_SET_USED(r);
	rk->step = 0;
	if (++rk->iter == g->total_iters) {
		rk->state = RANK_DONE;
		return;
	}
	rk->next_start = now + (uint64_t)((double)g->p.gap_ns / g->ns_per_tsc);
	rk->state = RANK_WAIT;
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
	gen_iter_rank_done(g, rk, r, now);
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
	rk->tokens -= (int64_t)(m->pkt_len + GEN_WIRE_EXTRA) << GEN_FP;
	gen_tx_data(g, rk->port, m, now);
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

	gen_bucket_refill(rk, now);
	while (sent < g->p.burst_pkts && rank_ready(g, rk, now)) {
		if (rk->n_act == 0) {
			rank_step_done(g, rk, r, now);
			continue;
		}
		if (rk->rate_fp != 0 && rk->tokens <= 0)
			break;
		if (gen_data_paused(g, rk->port, now))
			break;
		if (g->port[rk->port].n_tx == GEN_TXBUF) {
			gen_tx_flush(g, rk->port, now);
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

/* Latency from the tag of a data packet (both loops). */
static void
rx_latency(struct gen *g, struct gen_port *gp, struct rte_mbuf *m,
	   const struct aifab_pkt_info *pi, uint64_t now)
{
	struct aifab_roce_tag_info ti;
	uint8_t tagbuf[AIFAB_ROCE_TAG_LEN];
	const uint8_t *t;
	uint32_t off;

	off = pi->bth_off + AIFAB_BTH_LEN + aifab_bth_data_ext_len(
		pi->bth_opcode);
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

	if (every == 0 || gp->icrc_seq++ % every != 0)
		return true;
	gp->ctr[GEN_RX_ICRC_CHECKED]++;
	if (aifab_icrc_verify(m, pi) == AIFAB_ICRC_OK)
		return true;
	gp->ctr[GEN_RX_BAD_ICRC]++;
	return false;
}

static void
rx_one(struct gen *g, uint16_t p, struct rte_mbuf *m, uint64_t now)
{
	struct gen_port *gp = &g->port[p];
	struct aifab_pkt_info pi;
	struct gen_conn *cn;
	enum aifab_pkt_err e;

	gp->rx_packets++;
	gp->rx_bytes += m->pkt_len;
	e = aifab_pkt_parse_mbuf(m, &pi, gp->scratch, false);
	if (e != AIFAB_PKT_ERR_OK) {
		gp->ctr[GEN_RX_OTHER]++;
		gp->rx_err[e]++;
		return;
	}
	if (pi.flags & AIFAB_PKT_F_PFC) {
		gp->ctr[GEN_RX_PFC]++;
		aifab_pfc_rx_frame(&gp->pfc, pi.pfc_enable, pi.pfc_time, now);
		return;
	}
	if (pi.flags & AIFAB_PKT_F_PAUSE) {
		gp->ctr[GEN_RX_PAUSE]++;
		return;
	}
	if (!(pi.flags & AIFAB_PKT_F_ROCE)) {
		gp->ctr[GEN_RX_OTHER]++;
		return;
	}
	if (!rx_icrc_ok(g, gp, m, &pi))
		return;
	gp->ctr[GEN_RX_ROCE]++;
	if (pi.bth_opcode <= AIFAB_BTH_OP_WRITE_ONLY_IMM)
		rx_latency(g, gp, m, &pi, now);
	if (g->p.closed_loop) {
		gen_cl_rx(g, p, m, &pi, now);
		return;
	}
	cn = gen_conn_of_rqpn(g, pi.dqpn);
	if (cn == NULL) {
		gp->ctr[GEN_RX_UNKNOWN_QP]++;
		return;
	}
	aifab_roce_rx_psn(&cn->rx, pi.psn);
}

static unsigned int
rx_poll(struct gen *g, uint64_t now)
{
	struct rte_mbuf *pkts[GEN_RX_BURST];
	unsigned int got = 0, i;
	uint16_t u, n;

	for (u = 0; u < g->n_used_ports; u++) {
		uint16_t p = g->used_ports[u];
		struct gen_port *gp = &g->port[p];

		n = rte_eth_rx_burst(g->env.ports[p].port_id, g->p.rxq, pkts,
				     GEN_RX_BURST);
		got += n;
		if (n > 0 && !g->p.fault_on_tx && aifab_fault_active(&gp->fault))
			n = aifab_fault_burst(&gp->fault, pkts, n, gp->scratch);
		for (i = 0; i < n; i++) {
			rx_one(g, p, pkts[i], now);
			rte_pktmbuf_free(pkts[i]);
		}
	}
	return got;
}

/* ---- ops ----------------------------------------------------------------- */

static void
gen_start(struct gen *g, uint64_t now)
{
	uint32_t r, i;

	for (r = 0; r < g->p.n_ranks; r++) {
		g->ranks[r].next_start = now;
		g->ranks[r].last_tsc = now;
	}
	for (i = 0; g->p.closed_loop && i < g->n_conns; i++)
		aifab_dcqcn_rp_init(&g->ranks[g->conns[i].src].dq,
				    &g->conns[i].rp, now);
	g->started = true;
}

/* The clock of this poll: the app's TSC, or the virtual one advanced. */
static uint64_t
gen_clock(struct gen *g, uint64_t now)
{
	if (g->p.virtual_tick_ns == 0)
		return now;
	now = g->vnow;
	g->vnow += g->p.virtual_tick_ns;
	return now;
}

static unsigned int
gen_poll(void *st, unsigned int w, uint64_t now)
{
	struct gen *g = st;
	unsigned int handled = 0;
	uint32_t i, n = g->p.n_ranks;
	uint16_t u;

	RTE_SET_USED(w);
	/* Counters to lib/stats about every millisecond of the app's clock
	 * (the last poll's: readers see at most that much staleness). */
	if (now - g->last_sync >= g->sync_cycles) {
		g->last_sync = now;
		gen_stats_sync(g);
	}
	now = gen_clock(g, now);
	g->last_now = now;
	if (!g->started)
		gen_start(g, now);
	if (g->p.rx)
		handled += rx_poll(g, now);
	for (i = 0; i < n; i++)
		handled += g->p.closed_loop ?
			gen_cl_rank_poll(g, (g->rr_rank + i) % n, now) :
			rank_poll(g, (g->rr_rank + i) % n, now);
	g->rr_rank = (g->rr_rank + 1) % n;
	for (u = 0; u < g->n_used_ports; u++)
		gen_tx_flush(g, g->used_ports[u], now);
	return handled;
}

static void
drop_held(struct gen *g, struct gen_port *gp, struct rte_mbuf **buf,
	  uint16_t *n)
{
	uint16_t i;

	RTE_SET_USED(g);
	for (i = 0; i < *n; i++) {
		gp->tx_bytes -= buf[i]->pkt_len;
		rte_pktmbuf_free(buf[i]);
	}
	gp->ctr[GEN_TX_DROPPED] += *n;
	*n = 0;
}

static void
gen_drain(void *st, unsigned int w, uint64_t now)
{
	struct gen *g = st;
	uint16_t u;

	RTE_SET_USED(w);
	now = gen_clock(g, now);
	if (g->p.rx)
		rx_poll(g, now);
	for (u = 0; u < g->n_used_ports; u++) {
		uint16_t p = g->used_ports[u];
		struct gen_port *gp = &g->port[p];

		/* The run is over: what a pause still holds goes now. */
		flush_buf(g, p, gp->tx, &gp->n_tx);
		flush_buf(g, p, gp->cnp, &gp->n_cnp);
		drop_held(g, gp, gp->tx, &gp->n_tx);
		drop_held(g, gp, gp->cnp, &gp->n_cnp);
	}
	gen_stats_sync(g); /* the final values: readers now match the report */
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
		if (g->port[g->used_ports[u]].n_tx != 0 ||
		    g->port[g->used_ports[u]].n_cnp != 0)
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

static struct aifab_stats_set *
gen_stats(const void *st)
{
	return ((const struct gen *)st)->stats;
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
	.stats = gen_stats,
};
