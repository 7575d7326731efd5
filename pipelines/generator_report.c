/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The generator's results: its lib/stats counter set (created at build,
 * mirrored by the worker), the summary in numbers, the report's generator
 * section and the nccl-tests table. Readers only: nothing here moves the
 * run.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_common.h>
#include <rte_errno.h>

#include "generator_priv.h"

#define GEN_NAME(e, s, u, h) #s,
static const char *const gen_ctr_names[] = { GEN_PORT_CTRS(GEN_NAME) };
#undef GEN_NAME

/* ---- lib/stats ----------------------------------------------------------- */

#define GEN_DESC(e, s, u, h) \
	{ #s, AIFAB_STATS_COUNTER, AIFAB_STATS_PORT, u, h },
static const struct aifab_stats_desc gen_ctr_descs[] = {
	GEN_PORT_CTRS(GEN_DESC)
};
#undef GEN_DESC
#define GEN_DESC(e, s, k, u, h) \
	{ #s, AIFAB_STATS_##k, AIFAB_STATS_GLOBAL, u, h },
static const struct aifab_stats_desc gen_glob_descs[] = {
	GEN_GLOBAL_CTRS(GEN_DESC)
};
#undef GEN_DESC

static const struct aifab_stats_desc gen_head_descs[] = {
	{ "tx_pkts", AIFAB_STATS_COUNTER, AIFAB_STATS_PORT, "packets",
	  "Frames the generator sent (data, ACKs, NAKs, CNPs)" },
	{ "tx_bytes", AIFAB_STATS_COUNTER, AIFAB_STATS_PORT, "bytes",
	  "Bytes the generator sent (frames without FCS)" },
	{ "rx_pkts", AIFAB_STATS_COUNTER, AIFAB_STATS_PORT, "packets",
	  "Frames the generator received" },
	{ "rx_bytes", AIFAB_STATS_COUNTER, AIFAB_STATS_PORT, "bytes",
	  "Bytes the generator received" },
};

/*
 * The set "generator": every counter of the generator (per port: tx/rx,
 * the GEN_PORT_CTRS, malformed frames per parse error, the fault stage;
 * per port and priority: PFC received and paused time; run-wide: RC and
 * DCQCN). One block per worker, each written by its worker
 * (gen_stats_sync()); readers sum them. What workers share (received PFC,
 * the rate gauges over every QP) is in worker 0's block only.
 */
int
gen_stats_create(struct gen *g, char *err, size_t errlen)
{
	struct aifab_stats_desc d[GS_N];
	char mal[AIFAB_PKT_ERR_MAX][48], mal_help[AIFAB_PKT_ERR_MAX][96];
	const char *names[AIFAB_GEN_MAX_PORTS];
	unsigned int lcores[GEN_MAX_WORKERS];
	struct aifab_stats_params sp = {
		.name = "generator", .descs = d, .n_descs = GS_N,
		/* its ports are among the first AIFAB_GEN_MAX_PORTS */
		.n_ports = RTE_MIN(g->env.n_ports, AIFAB_GEN_MAX_PORTS),
		.port_names = names,
		.n_tcs = AIFAB_PFC_NUM_PRIO, .n_blocks = g->n_wk,
		.block_lcore = lcores,
		.tsc_hz = g->env.tsc_hz ? g->env.tsc_hz : GEN_VT_HZ,
	};
	unsigned int i;
	uint16_t p;

	for (i = 0; i < g->n_wk; i++)
		lcores[i] = g->env.worker_lcores != NULL ?
			g->env.worker_lcores[i] : i;
	RTE_BUILD_BUG_ON(RTE_DIM(gen_ctr_descs) != GEN_CTR_MAX);
	RTE_BUILD_BUG_ON(RTE_DIM(gen_glob_descs) != GEN_GLOB_MAX);
	memcpy(&d[GS_TX_PKTS], gen_head_descs, sizeof(gen_head_descs));
	memcpy(&d[GS_CTR0], gen_ctr_descs, sizeof(gen_ctr_descs));
	memcpy(&d[GS_GLOB0], gen_glob_descs, sizeof(gen_glob_descs));
	for (i = 1; i < AIFAB_PKT_ERR_MAX; i++) {
		snprintf(mal[i], sizeof(mal[i]), "rx_malformed_%s",
			 aifab_pkt_err_name(i));
		snprintf(mal_help[i], sizeof(mal_help[i]), "Malformed frames "
			 "received: %s", aifab_pkt_err_name(i));
		d[GS_MAL0 + i - 1] = (struct aifab_stats_desc){ mal[i],
			AIFAB_STATS_COUNTER, AIFAB_STATS_PORT, "packets",
			mal_help[i] };
	}
	for (i = 0; i < AIFAB_FAULT_CNT_MAX; i++)
		d[GS_FAULT0 + i] = (struct aifab_stats_desc){
			aifab_fault_cnt_name(i), AIFAB_STATS_COUNTER,
			AIFAB_STATS_PORT, "packets",
			"Fault stage (generator.fault_*) on this port" };
	d[GS_PFC_RX] = (struct aifab_stats_desc){ "pfc_rx",
		AIFAB_STATS_COUNTER, AIFAB_STATS_PORT_PRIO, "frames",
		"PFC frames received enabling this priority" };
	d[GS_PFC_PAUSED] = (struct aifab_stats_desc){ "pfc_paused_cycles",
		AIFAB_STATS_COUNTER, AIFAB_STATS_PORT_PRIO, "cycles",
		"Time received PFC paused this priority, in TSC cycles at "
		"aifab_tsc_hz" };
	for (p = 0; p < sp.n_ports; p++)
		names[p] = g->env.ports[p].name;
	g->stats = aifab_stats_create(&sp);
	if (g->stats == NULL)
		BAD("cannot create its counters: %s", rte_strerror(rte_errno));
	for (i = 0; i < g->n_wk; i++) {
		g->wk[i].blk = aifab_stats_block(g->stats, i);
		g->wk[i].rate_min = -1;
	}
	g->sync_cycles = g->env.stats_sync != 0 ? g->env.stats_sync :
		RTE_MAX(sp.tsc_hz / 1000, (uint64_t)1);
	return 0;
}

static inline void
put(struct aifab_stats_block *b, unsigned int id, uint32_t inst, uint64_t v)
{
	b->v[b->off[id] + inst] = v;
}

/* put() of a counter that only grows from 0, as the block's value did
 * (the block starts at 0, only this worker writes it): a 0 is there
 * already. On the virtual clock the mirror runs every model
 * microsecond and most of the generator's counters stay 0 (errors,
 * faults, PFC): a store is a line of the block written (a counter's
 * ports share lines of their own). */
static inline void
put_grown(struct aifab_stats_block *b, unsigned int id, uint32_t inst,
	  uint64_t v)
{
	if (v != 0)
		put(b, id, inst, v);
}

/* Mirror everything into the block (worker only): values only grow, as
 * the generator's own counters do (tx_bytes but at the end, when the
 * frames a pause holds are dropped); gauges are levels. */
void
gen_stats_sync(struct gen_wk *wk)
{
	const struct gen *g = wk->g;
	struct aifab_stats_block *b = wk->blk;
	uint64_t hz = aifab_stats_tsc_hz(g->stats);
	unsigned int c, k, w;
	double rsum = 0, rmin = -1;
	uint32_t nr = 0;
	uint16_t u;

	if (b == NULL)
		return;
	for (u = 0; u < g->n_used_ports; u++) {
		uint16_t p = g->used_ports[u];
		const struct gen_port *gp = &wk->port[p];

		put(b, GS_TX_PKTS, p, gp->tx_packets);
		put(b, GS_TX_BYTES, p, gp->tx_bytes);
		put(b, GS_RX_PKTS, p, gp->rx_packets);
		put(b, GS_RX_BYTES, p, gp->rx_bytes);
		for (c = 0; c < GEN_CTR_MAX; c++)
			put_grown(b, GS_CTR0 + c, p, gp->ctr[c]);
		/* (a malformed frame counts in rx_err and rx_not_roce: none
		 * of those, none of these; a fault stage counts only when
		 * active: not reading lines of zeros) */
		for (c = 1; c < AIFAB_PKT_ERR_MAX && gp->ctr[GEN_RX_OTHER];
		     c++)
			put_grown(b, GS_MAL0 + c - 1, p, gp->rx_err[c]);
		for (c = 0; c < AIFAB_FAULT_CNT_MAX &&
			    aifab_fault_active(&gp->fault); c++)
			put_grown(b, GS_FAULT0 + c, p, gp->fault.cnt[c]);
		for (k = 0; k < AIFAB_PFC_NUM_PRIO && wk->w == 0; k++) {
			uint64_t rx = g->pfc[p].stats.v[AIFAB_PFC_CNT_RX][k];
			uint64_t ns;

			/* A priority no frame paused (lib/pfc moves a pause
			 * only in aifab_pfc_rx_frame(), which counts it in
			 * rx) has paused 0 ns: nothing to put. */
			if (rx == 0)
				continue;
			put(b, GS_PFC_RX, p * AIFAB_PFC_NUM_PRIO + k, rx);
			ns = aifab_pfc_rx_paused_ns(&g->pfc[p], k,
						    wk->last_now);
			put_grown(b, GS_PFC_PAUSED, p * AIFAB_PFC_NUM_PRIO + k,
				  (uint64_t)((double)ns * (double)hz / 1e9));
		}
	}
	/* The gauges over every worker's QPs (worker 0's block; the others
	 * keep 0 as blocks are summed). Mb/s -> bytes/s (Prometheus' base
	 * unit). */
	for (w = 0; w < g->n_wk && wk->w == 0; w++) {
		const struct gen_wk *o = &g->wk[w];

		rsum += o->rate_last_sum;
		nr += o->n_rated;
		if (o->rate_min > 0 && (rmin < 0 || o->rate_min < rmin))
			rmin = o->rate_min;
	}
	wk->glob[GEN_G_RATE_AVG] = nr ? (uint64_t)(rsum / nr * 1e6 / 8) : 0;
	wk->glob[GEN_G_RATE_MIN] = rmin > 0 ? (uint64_t)(rmin * 1e6 / 8) : 0;
	for (c = 0; c < GEN_GLOB_MAX; c++)
		put(b, GS_GLOB0 + c, 0, wk->glob[c]);
}

/* ---- results ------------------------------------------------------------- */

/*
 * Wire bytes of one RDMA WRITE message of @p len payload bytes cut into
 * @p mtu frames: each frame adds its headers and ICRC
 * (AIFAB_ROCE_OVERHEAD: Ethernet, IPv4, UDP, BTH, ICRC), FCS, preamble
 * and inter-frame gap (24), the last its pad to 4 bytes, the first RETH.
 * A 4096-byte frame's payload takes 4178 bytes of wire time.
 */
static uint64_t
msg_wire_bytes(uint64_t len, uint32_t mtu)
{
	uint64_t n = (len + mtu - 1) / mtu, last = len - (n - 1) * mtu;

	if (len == 0)
		return 0;
	return len + ((4 - last % 4) % 4) + AIFAB_RETH_LEN +
		n * (AIFAB_ROCE_OVERHEAD(false) + GEN_WIRE_EXTRA);
}

/* Wire bytes / payload bytes of what this process's ranks send in one
 * iteration, as they frame it (per QP message, ib_mtu frames); 1 if
 * nothing. */
static double
wire_ratio(const struct gen *g)
{
	uint64_t pay = 0, wire = 0, b;
	uint32_t r, e, q, nq = g->p.qps_per_conn;

	for (r = 0; r < g->n_own; r++) {
		const struct gen_rank *rk = &g->ranks[g->own_list[r]];

		if (rk->sched == NULL)
			continue;
		for (e = 0; e < g->n_steps * g->n_chan; e++)
			for (q = 0; q < nq; q++) {
				b = gen_qp_bytes(rk->sched[e].bytes, nq, q);
				pay += b;
				wire += msg_wire_bytes(b, g->p.ib_mtu);
			}
	}
	return pay > 0 ? (double)wire / (double)pay : 1.0;
}

/*
 * Ideal time at the slowest rank's line rate, and the wait beyond it.
 * Payload only: busbw factor x S / rate (what nccl-tests' busbw compares
 * with the line rate); the ideal: that x the frames' wire overhead, the
 * time the links need at the least to carry the collective's frames.
 */
static void
summary_ideal(const struct gen *g, struct aifab_gen_summary *s)
{
	double rate = 0, t;
	uint32_t r, it;

	for (r = 0; r < g->n_own; r++)
		if (rate == 0 || g->ranks[g->own_list[r]].line_mbps < rate)
			rate = g->ranks[g->own_list[r]].line_mbps;
	if (rate <= 0)
		return;
	s->ideal_payload_us = (double)g->p.size * aifab_coll_busbw_factor(
		aifab_coll_type_op(g->p.type), g->p.n_ranks) * 8.0 / rate;
	s->ideal_us = s->ideal_payload_us * wire_ratio(g);
	for (it = g->p.warmup; it < g->total_iters; it++) {
		if (g->iter_ranks_done[it] != g->n_own)
			continue;
		t = (double)(g->iter_end[it] - g->iter_start[it]) *
			g->ns_per_tsc / 1e3;
		if (t > s->ideal_us)
			s->wait_beyond_ideal_us += t - s->ideal_us;
	}
	s->wait_cost_usd = s->wait_beyond_ideal_us / 3600e6 *
		g->n_own * g->p.gpu_hour_usd;
}

/* Closed loop: RC and DCQCN counters over every QP; the slowest step. */
static void
summary_closed(const struct gen *g, struct aifab_gen_summary *s)
{
	double rate_sum = 0, best = -1;
	uint32_t i, n_rated = 0, k;

	s->closed_loop = true;
	s->qp_rate_min_mbps = 0;
	for (i = 0; i < g->n_conns; i++) {
		const struct gen_conn *cn = &g->conns[i];
		double lo;

		s->retx_packets += cn->req->cnt[AIFAB_RC_REQ_CNT_RETX_PACKETS];
		s->retx_bytes += cn->req->cnt[AIFAB_RC_REQ_CNT_RETX_BYTES];
		s->timeouts += cn->req->cnt[AIFAB_RC_REQ_CNT_TIMEOUTS];
		s->naks_rx += cn->req->cnt[AIFAB_RC_REQ_CNT_NAKS_RX];
		s->acks_rx += cn->req->cnt[AIFAB_RC_REQ_CNT_ACKS_RX];
		s->naks_tx += cn->resp.cnt[AIFAB_RC_RESP_CNT_NAKS_TX];
		s->acks_tx += cn->resp.cnt[AIFAB_RC_RESP_CNT_ACKS_TX];
		s->dup_rx += cn->resp.cnt[AIFAB_RC_RESP_CNT_RX_DUP];
		s->oos_rx += cn->resp.cnt[AIFAB_RC_RESP_CNT_RX_OOS];
		s->delivered_bytes += cn->resp.cnt[AIFAB_RC_RESP_CNT_RX_BYTES];
		s->ce_rx += cn->np.cnt[AIFAB_DCQCN_NP_CNT_CE_RX];
		s->cnp_tx += cn->np.cnt[AIFAB_DCQCN_NP_CNT_CNP_TX];
		s->rate_cuts += cn->rp.cnt[AIFAB_DCQCN_RP_CNT_RATE_CUTS];
		if (cn->rate_n == 0)
			continue;
		rate_sum += cn->rate_sum / (double)cn->rate_n;
		lo = g->p.dcqcn ? cn->rp.min_rc : g->ranks[cn->src].line_mbps;
		if (n_rated++ == 0 || lo < s->qp_rate_min_mbps)
			s->qp_rate_min_mbps = lo;
	}
	if (n_rated > 0)
		s->qp_rate_avg_mbps = rate_sum / n_rated;
	for (k = 0; g->step_sum_us != NULL && k < g->n_steps; k++)
		if (g->step_sum_us[k] > best) {
			best = g->step_sum_us[k];
			s->slowest_step = k;
		}
	if (s->iterations > 0 && best >= 0)
		s->slowest_step_us = best / s->iterations;
	for (i = 0; g->slow_count != NULL && i < g->p.n_ranks; i++)
		if (g->slow_count[i] > g->slow_count[s->slowest_rank])
			s->slowest_rank = i; /* (a rank of any host: whose
					      * chunk came last here) */
}

static void
summary_time(const struct gen *g, struct aifab_gen_summary *s)
{
	double sum = 0, t;
	uint32_t it;

	s->time_us_min = 0;
	s->time_us_max = 0;
	s->n_own = g->n_own;
	for (it = 0; it < g->total_iters; it++) {
		if (g->iter_start[it] != UINT64_MAX && s->run_t0 == 0)
			s->run_t0 = g->iter_start[it];
		s->run_t1 = RTE_MAX(s->run_t1, g->iter_end[it]);
	}
	for (it = g->p.warmup; it < g->total_iters; it++) {
		if (g->iter_ranks_done[it] != g->n_own)
			continue;
		t = (double)(g->iter_end[it] - g->iter_start[it]) *
			g->ns_per_tsc / 1e3;
		if (s->n_iter < AIFAB_GEN_SUMMARY_ITERS) {
			const struct gen_iter_rec *ir = &g->irec[it];
			struct aifab_gen_iter_sum *is = &s->iter[s->n_iter];

			is->has_slowest = ir->slow_step != UINT32_MAX;
			if (is->has_slowest) {
				is->slowest_step = ir->slow_step;
				is->slowest_rank = ir->slow_rank;
				is->slowest_step_us = (double)ir->slow_step_tsc *
					g->ns_per_tsc / 1e3;
			}
			is->retx_packets = ir->retx_packets;
			is->retx_bytes = ir->retx_bytes;
			is->naks_rx = ir->naks_rx;
			is->timeouts = ir->timeouts;
			s->iter_t0[s->n_iter] = g->iter_start[it];
			s->iter_t1[s->n_iter] = g->iter_end[it];
			s->iter_us[s->n_iter++] = t;
		}
		if (s->iterations == 0 || t < s->time_us_min)
			s->time_us_min = t;
		s->time_us_max = RTE_MAX(s->time_us_max, t);
		sum += t;
		s->iterations++;
	}
	if (s->iterations == 0)
		return;
	s->time_us_avg = sum / s->iterations;
	summary_ideal(g, s);
	s->algbw_gbps = aifab_coll_algbw(g->p.size, s->time_us_avg * 1e-6) / 1e9;
	s->busbw_gbps = s->algbw_gbps * aifab_coll_busbw_factor(
		aifab_coll_type_op(g->p.type), g->p.n_ranks);
}

/* ---- per QP -------------------------------------------------------------- */

/* What @p cn's receiver lost: gaps not filled, and what the sender sent
 * beyond the last PSN received when the sender is emulated here too (a
 * sender on another host: its gaps only). */
static uint64_t
conn_lost(const struct gen *g, const struct gen_conn *cn)
{
	return aifab_roce_rx_lost(&cn->rx, g->own[cn->src] ? cn->qp.psn :
				  cn->rx.expected);
}

void
aifab_gen_rank_bytes(const void *st, uint64_t (*out)[AIFAB_GEN_RB_MAX])
{
	const struct gen *g = st;
	uint32_t i, r;

	memset(out, 0, sizeof(out[0]) * g->p.n_ranks);
	for (r = 0; r < g->n_own && !g->p.closed_loop; r++)
		out[g->own_list[r]][AIFAB_GEN_RB_SENT] =
			aifab_coll_plan_rank_bytes(g->plan,
			g->own_list[r]) * g->ranks[g->own_list[r]].iter;
	for (i = 0; i < g->n_conns; i++) {
		const struct gen_conn *cn = &g->conns[i];

		if (g->own[cn->dst]) {
			out[cn->src][AIFAB_GEN_RB_RX_FROM] += cn->rx.packets;
			out[cn->src][AIFAB_GEN_RB_QPS_TO_US]++;
		}
		if (!g->p.closed_loop)
			continue;
		if (g->own[cn->src]) {
			out[cn->src][AIFAB_GEN_RB_SENT] +=
				cn->req->cnt[AIFAB_RC_REQ_CNT_TX_BYTES];
			out[cn->src][AIFAB_GEN_RB_RETX] +=
				cn->req->cnt[AIFAB_RC_REQ_CNT_RETX_BYTES];
		}
		if (g->own[cn->dst])
			out[cn->dst][AIFAB_GEN_RB_DELIVERED] +=
				cn->resp.cnt[AIFAB_RC_RESP_CNT_RX_BYTES];
	}
}

static void
qp_fill(const struct gen *g, uint32_t i, struct aifab_gen_qp_sum *q)
{
	const struct gen_conn *cn = &g->conns[i];

	memset(q, 0, sizeof(*q));
	q->qpn = cn->qp.cfg.qpn;
	q->src = cn->src;
	q->dst = cn->dst;
	q->channel = cn->channel;
	if (g->p.rx && g->own[cn->dst]) {
		q->lost = conn_lost(g, cn);
		q->reordered = cn->rx.ctr[AIFAB_ROCE_RX_REORDERED];
		q->duplicates = cn->rx.ctr[AIFAB_ROCE_RX_DUPLICATE];
	}
	if (!g->p.closed_loop)
		return;
	q->retx_packets = cn->req->cnt[AIFAB_RC_REQ_CNT_RETX_PACKETS];
	q->timeouts = cn->req->cnt[AIFAB_RC_REQ_CNT_TIMEOUTS];
	if (cn->rate_n == 0)
		return;
	q->rate_avg_mbps = cn->rate_sum / (double)cn->rate_n;
	q->rate_min_mbps = g->p.dcqcn ? cn->rp.min_rc :
		g->ranks[cn->src].line_mbps;
}

/* Whether QP @p a is slower (worse) than @p b: lower mean rate, then more
 * trouble, then the lower QPN. QPs that sent nothing come last. */
static bool
qp_worse(const struct aifab_gen_qp_sum *a, const struct aifab_gen_qp_sum *b)
{
	uint64_t ta = a->lost + a->reordered + a->duplicates + a->retx_packets;
	uint64_t tb = b->lost + b->reordered + b->duplicates + b->retx_packets;

	if ((a->rate_avg_mbps > 0) != (b->rate_avg_mbps > 0))
		return a->rate_avg_mbps > 0;
	if (a->rate_avg_mbps != b->rate_avg_mbps)
		return a->rate_avg_mbps < b->rate_avg_mbps;
	if (ta != tb)
		return ta > tb;
	return a->qpn < b->qpn;
}

static int
cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* Per QP: the slowest few, the spread of mean rates, trouble counts. */
static void
summary_qps(const struct gen *g, struct aifab_gen_summary *s)
{
	static const double pct[5] = { 0, 0.10, 0.50, 0.90, 1.0 };
	double *rates = malloc(sizeof(double) * RTE_MAX(g->n_conns, 1u));
	struct aifab_gen_qp_sum q;
	uint32_t i, j, n_rated = 0, k;

	for (i = 0; i < g->n_conns; i++) {
		if (!g->own[g->conns[i].src] && !g->own[g->conns[i].dst])
			continue;       /* both ends on other hosts */
		s->n_qps++;
		qp_fill(g, i, &q);
		s->qps_with_loss += q.lost > 0;
		s->qps_with_reorder += q.reordered > 0;
		s->qps_with_duplicates += q.duplicates > 0;
		s->qp_lost_max = RTE_MAX(s->qp_lost_max, q.lost);
		if (rates != NULL && q.rate_avg_mbps > 0)
			rates[n_rated++] = q.rate_avg_mbps;
		/* Insert into the sorted list of the worst. */
		j = s->n_qp_listed;
		if (j == AIFAB_GEN_SUMMARY_QPS) {
			if (!qp_worse(&q, &s->qp[j - 1]))
				continue;
			j--;
		} else {
			s->n_qp_listed++;
		}
		for (; j > 0 && qp_worse(&q, &s->qp[j - 1]); j--)
			s->qp[j] = s->qp[j - 1];
		s->qp[j] = q;
	}
	if (n_rated > 0) {
		qsort(rates, n_rated, sizeof(double), cmp_double);
		for (k = 0; k < RTE_DIM(pct); k++) {
			uint32_t r = (uint32_t)(pct[k] * n_rated + 0.999999);

			s->qp_rate_dist_mbps[k] = rates[r > 0 ? r - 1 : 0];
		}
	}
	free(rates);
}

/* Per-QP receive counters of the QPs whose receiver sits on port @p p. */
static void
rx_sums(const struct gen *g, int p, uint64_t *lost, uint64_t *ctr)
{
	uint32_t i, c;

	*lost = 0;
	memset(ctr, 0, sizeof(uint64_t) * AIFAB_ROCE_RX_MAX);
	/* TX-only runs: nothing is expected back, report nothing lost. */
	if (!g->p.rx)
		return;
	for (i = 0; i < g->n_conns; i++) {
		const struct gen_conn *cn = &g->conns[i];

		if (!g->own[cn->dst] || (p >= 0 && g->ranks[cn->dst].port != p))
			continue;
		*lost += conn_lost(g, cn);
		for (c = 0; c < AIFAB_ROCE_RX_MAX; c++)
			ctr[c] += cn->rx.ctr[c];
	}
}

static void
lat_fill(const struct aifab_roce_hist *h, struct aifab_gen_summary *s)
{
	s->lat_count = h->count;
	if (h->count == 0)
		return;
	s->lat_min = h->min;
	s->lat_max = h->max;
	s->lat_avg = h->sum / h->count;
	s->lat_p50 = aifab_roce_hist_quantile(h, 0.5);
	s->lat_p99 = aifab_roce_hist_quantile(h, 0.99);
	s->lat_p999 = aifab_roce_hist_quantile(h, 0.999);
}

/* The generator's clock as of its last poll (for open pauses). */
static uint64_t
port_now(const struct gen *g)
{
	uint64_t t = 0;
	unsigned int w;

	for (w = 0; w < g->n_wk; w++)
		t = RTE_MAX(t, g->wk[w].last_now);
	return t;
}

/* Port @p p's counters summed over the workers into @p o (latency
 * histograms merged; the queues are not copied). Racy while running. */
static void
port_sum_lat(const struct gen *g, uint16_t p, struct gen_port *o, bool lat)
{
	unsigned int w, c;

	/* Only the fields summed below (the callers read no other): the
	 * whole struct is ~20 KB, its histogram half of it, and the stats
	 * tick sums every port (1024 at a 1024-rank Clos) ~200 times. */
	o->rx_packets = o->rx_bytes = o->tx_packets = o->tx_bytes = 0;
	memset(o->ctr, 0, sizeof(o->ctr));
	memset(o->rx_err, 0, sizeof(o->rx_err));
	memset(o->fault.cnt, 0, sizeof(o->fault.cnt));
	if (lat)
		aifab_roce_hist_reset(&o->lat);
	for (w = 0; w < g->n_wk; w++) {
		const struct gen_port *gp = &g->wk[w].port[p];

		o->rx_packets += gp->rx_packets;
		o->rx_bytes += gp->rx_bytes;
		o->tx_packets += gp->tx_packets;
		o->tx_bytes += gp->tx_bytes;
		for (c = 0; c < GEN_CTR_MAX; c++)
			o->ctr[c] += gp->ctr[c];
		for (c = 0; c < AIFAB_PKT_ERR_MAX; c++)
			o->rx_err[c] += gp->rx_err[c];
		for (c = 0; c < AIFAB_FAULT_CNT_MAX; c++)
			o->fault.cnt[c] += gp->fault.cnt[c];
		if (lat)
			aifab_roce_hist_merge(&o->lat, &gp->lat);
	}
}

static void
port_sum(const struct gen *g, uint16_t p, struct gen_port *o)
{
	port_sum_lat(g, p, o, true);
}

void
aifab_gen_summary(const void *st, struct aifab_gen_summary *s)
{
	aifab_gen_summary_lat(st, s, true);
}

void
aifab_gen_summary_lat(const void *st, struct aifab_gen_summary *s,
		      bool latency)
{
	const struct gen *g = st;
	struct aifab_roce_hist *h = latency ? malloc(sizeof(*h)) : NULL;
	struct gen_port *gp = malloc(sizeof(*gp));
	uint64_t ctr[AIFAB_ROCE_RX_MAX];
	unsigned int w;
	uint16_t u;

	memset(s, 0, sizeof(*s));
	if (gp == NULL) {
		free(h);
		return;
	}
	s->op = aifab_coll_op_name(aifab_coll_type_op(g->p.type));
	s->size = g->p.size;
	s->n_ranks = g->p.n_ranks;
	summary_time(g, s);
	if (h != NULL)
		aifab_roce_hist_reset(h);
	for (u = 0; u < g->n_used_ports; u++) {
		/* latency: each worker's histogram straight into h (merging
		 * adds counts and keeps min and max: the same sum) */
		port_sum_lat(g, g->used_ports[u], gp, false);
		s->tx_packets += gp->tx_packets;
		s->tx_bytes += gp->tx_bytes;
		s->tx_dropped += gp->ctr[GEN_TX_DROPPED];
		s->rx_packets += gp->rx_packets;
		s->rx_roce += gp->ctr[GEN_RX_ROCE];
		s->cnp_rx += gp->ctr[GEN_RX_CNP];
		s->pfc_rx += gp->ctr[GEN_RX_PFC];
		s->paused_us += (double)aifab_pfc_rx_paused_ns(
			&g->pfc[g->used_ports[u]], g->p.data_prio,
			port_now(g)) / 1e3;
		s->fault_dropped += gp->fault.cnt[AIFAB_FAULT_CNT_DROPPED];
		s->fault_ce_marked += gp->fault.cnt[AIFAB_FAULT_CNT_CE_MARKED];
		for (w = 0; h != NULL && w < g->n_wk; w++)
			aifab_roce_hist_merge(h, &g->wk[w].port[
					      g->used_ports[u]].lat);
	}
	if (g->p.closed_loop)
		summary_closed(g, s);
	summary_qps(g, s);
	rx_sums(g, -1, &s->rx_lost, ctr);
	s->rx_reordered = ctr[AIFAB_ROCE_RX_REORDERED];
	s->rx_duplicates = ctr[AIFAB_ROCE_RX_DUPLICATE];
	s->rx_stale = ctr[AIFAB_ROCE_RX_STALE];
	if (h != NULL)
		lat_fill(h, s);
	free(h);
	free(gp);
}

void
gen_report(const void *st, const struct aifab_report_sink *sink)
{
	const struct gen *g = st;
	struct gen_port *gp = malloc(sizeof(*gp));
	struct aifab_gen_summary s;
	uint64_t ctr[AIFAB_ROCE_RX_MAX], lost;
	uint16_t u, p;
	unsigned int c;

	if (gp == NULL)
		return;
	for (u = 0; u < g->n_used_ports; u++) {
		struct aifab_gen_summary ls = { 0 };

		p = g->used_ports[u];
		port_sum(g, p, gp);
		for (c = 0; c < GEN_CTR_MAX; c++)
			sink->port_u64(sink->ctx, p, "generator",
				       gen_ctr_names[c], gp->ctr[c]);
		sink->port_u64(sink->ctx, p, "rx_steering", "flow_rules",
			       g->flow_rules[p]);
		for (c = 1; c < AIFAB_PKT_ERR_MAX; c++)
			sink->port_u64(sink->ctx, p, "rx_malformed",
				       aifab_pkt_err_name(c), gp->rx_err[c]);
		rx_sums(g, p, &lost, ctr);
		sink->port_u64(sink->ctx, p, "rx_psn", "lost", lost);
		for (c = 0; c < AIFAB_ROCE_RX_MAX; c++)
			sink->port_u64(sink->ctx, p, "rx_psn",
				       aifab_roce_rx_ctr_name(c), ctr[c]);
		for (c = 0; c < AIFAB_FAULT_CNT_MAX; c++)
			sink->port_u64(sink->ctx, p, "fault",
				       aifab_fault_cnt_name(c),
				       gp->fault.cnt[c]);
		for (c = 0; c < AIFAB_PFC_NUM_PRIO; c++) {
			sink->port_tc_u64(sink->ctx, p, c, "pfc_rx",
				g->pfc[p].stats.v[AIFAB_PFC_CNT_RX][c]);
			sink->port_tc_u64(sink->ctx, p, c, "pfc_paused_ns",
				aifab_pfc_rx_paused_ns(&g->pfc[p], c,
						       port_now(g)));
		}
		lat_fill(&gp->lat, &ls);
		sink->port_u64(sink->ctx, p, "latency_ns", "samples",
			       ls.lat_count);
		sink->port_u64(sink->ctx, p, "latency_ns", "min", ls.lat_min);
		sink->port_u64(sink->ctx, p, "latency_ns", "avg", ls.lat_avg);
		sink->port_u64(sink->ctx, p, "latency_ns", "p50", ls.lat_p50);
		sink->port_u64(sink->ctx, p, "latency_ns", "p99", ls.lat_p99);
		sink->port_u64(sink->ctx, p, "latency_ns", "p999", ls.lat_p999);
		sink->port_u64(sink->ctx, p, "latency_ns", "max", ls.lat_max);
	}
	free(gp);
	/* Collective-wide numbers go with the first generator port. */
	aifab_gen_summary(st, &s);
	p = g->used_ports[0];
	sink->port_u64(sink->ctx, p, "collective", "size", s.size);
	sink->port_u64(sink->ctx, p, "collective", "iterations", s.iterations);
	sink->port_u64(sink->ctx, p, "collective", "time_ns_min",
		       (uint64_t)(s.time_us_min * 1e3));
	sink->port_u64(sink->ctx, p, "collective", "time_ns_avg",
		       (uint64_t)(s.time_us_avg * 1e3));
	sink->port_u64(sink->ctx, p, "collective", "time_ns_max",
		       (uint64_t)(s.time_us_max * 1e3));
	sink->port_u64(sink->ctx, p, "collective", "algbw_mbyte_s",
		       (uint64_t)(s.algbw_gbps * 1e3));
	sink->port_u64(sink->ctx, p, "collective", "busbw_mbyte_s",
		       (uint64_t)(s.busbw_gbps * 1e3));
	sink->port_u64(sink->ctx, p, "collective", "ideal_ns",
		       (uint64_t)(s.ideal_us * 1e3));
	sink->port_u64(sink->ctx, p, "collective", "wait_beyond_ideal_ns",
		       (uint64_t)(s.wait_beyond_ideal_us * 1e3));
	if (!s.closed_loop)
		return;
	sink->port_u64(sink->ctx, p, "closed_loop", "retx_packets",
		       s.retx_packets);
	sink->port_u64(sink->ctx, p, "closed_loop", "retx_bytes",
		       s.retx_bytes);
	sink->port_u64(sink->ctx, p, "closed_loop", "timeouts", s.timeouts);
	sink->port_u64(sink->ctx, p, "closed_loop", "naks_tx", s.naks_tx);
	sink->port_u64(sink->ctx, p, "closed_loop", "cnp_tx", s.cnp_tx);
	sink->port_u64(sink->ctx, p, "closed_loop", "cnp_rx", s.cnp_rx);
	sink->port_u64(sink->ctx, p, "closed_loop", "slowest_step",
		       s.slowest_step);
	sink->port_u64(sink->ctx, p, "closed_loop", "slowest_rank",
		       s.slowest_rank);
}

/* Closed loop: one line per timed iteration (the first 16). */
static void
print_iters(const struct aifab_gen_summary *s, FILE *f)
{
	uint32_t i;

	for (i = 0; i < s->n_iter && i < 16; i++) {
		const struct aifab_gen_iter_sum *is = &s->iter[i];

		fprintf(f, "# iteration %u: %.1f us", i, s->iter_us[i]);
		if (is->has_slowest)
			fprintf(f, ", slowest step %u (%.1f us, waiting for "
				"rank %u)", is->slowest_step,
				is->slowest_step_us, is->slowest_rank);
		fprintf(f, "; resent %" PRIu64 " packets %" PRIu64 " bytes, "
			"NAKs %" PRIu64 ", timeouts %" PRIu64 "\n",
			is->retx_packets, is->retx_bytes, is->naks_rx,
			is->timeouts);
	}
}

void
aifab_gen_print_table(const void *st, FILE *f)
{
	const struct gen *g = st;
	enum aifab_coll_op op = aifab_coll_type_op(g->p.type);
	struct aifab_gen_summary s;
	bool reduce = op == AIFAB_COLL_OP_ALLREDUCE ||
		op == AIFAB_COLL_OP_REDUCESCATTER;

	aifab_gen_summary(st, &s);
	fprintf(f, "# %s: %u ranks, %u channel(s), %u QP(s)/connection, "
		"IB MTU %u, %s, %u iteration(s) timed after %u warm-up%s\n",
		aifab_coll_type_name(g->p.type), g->p.n_ranks, g->p.n_channels,
		g->p.qps_per_conn, g->p.ib_mtu, !g->p.closed_loop ?
		"open loop (time = time to send)" : g->p.dcqcn ?
		"closed loop (RC, DCQCN)" : "closed loop (RC, fixed rate)",
		s.iterations, g->p.warmup,
		g->p.virtual_tick_ns ? ", virtual clock" : "");
	fprintf(f, "#%11s %12s %8s %6s %10s %8s %8s %6s\n", "size", "count",
		"type", "redop", "time", "algbw", "busbw", "#wrong");
	fprintf(f, "#%11s %12s %8s %6s %10s %8s %8s %6s\n", "(B)",
		"(elements)", "", "", "(us)", "(GB/s)", "(GB/s)", "");
	fprintf(f, "%12" PRIu64 " %12" PRIu64 " %8s %6s %10.1f %8.2f %8.2f "
		"%6s\n", g->p.size, g->p.size / 4, "float",
		reduce ? "sum" : "none", s.time_us_avg, s.algbw_gbps,
		s.busbw_gbps, "N/A");
	fprintf(f, "# time min/avg/max %.1f/%.1f/%.1f us; tx %" PRIu64
		" packets %" PRIu64 " bytes; rx %" PRIu64 " RoCE, lost %" PRIu64
		", reordered %" PRIu64 ", duplicates %" PRIu64 "\n",
		s.time_us_min, s.time_us_avg, s.time_us_max, s.tx_packets,
		s.tx_bytes, s.rx_roce, s.rx_lost, s.rx_reordered,
		s.rx_duplicates);
	fprintf(f, "# ideal %.1f us per collective (the frames' wire time; "
		"payload alone %.1f us); waited beyond it "
		"%.1f us in all = $%.6f at $%.2f per GPU-hour x %u ranks\n",
		s.ideal_us, s.ideal_payload_us, s.wait_beyond_ideal_us,
		s.wait_cost_usd,
		g->p.gpu_hour_usd, g->p.n_ranks);
	if (s.pfc_rx > 0 || s.paused_us > 0)
		fprintf(f, "# PFC: %" PRIu64 " frames received, data priority "
			"%u paused %.1f us (all ports)\n", s.pfc_rx,
			g->p.data_prio, s.paused_us);
	if (s.fault_dropped > 0 || s.fault_ce_marked > 0)
		fprintf(f, "# fault stage: %" PRIu64 " dropped, %" PRIu64
			" marked CE\n", s.fault_dropped, s.fault_ce_marked);
	if (s.closed_loop) {
		fprintf(f, "# RC: retransmitted %" PRIu64 " packets %" PRIu64
			" bytes; NAKs %" PRIu64 "; timeouts %" PRIu64 "; ACKs %"
			PRIu64 "\n", s.retx_packets, s.retx_bytes, s.naks_rx,
			s.timeouts, s.acks_rx);
		fprintf(f, "# DCQCN%s: CE %" PRIu64 ", CNPs sent %" PRIu64
			" received %" PRIu64 ", rate cuts %" PRIu64 "; QP rate "
			"avg %.0f min %.0f Mb/s\n", g->p.dcqcn ? "" : " (off)",
			s.ce_rx, s.cnp_tx, s.cnp_rx, s.rate_cuts,
			s.qp_rate_avg_mbps, s.qp_rate_min_mbps);
		fprintf(f, "# slowest step %u (%.1f us on average), waiting "
			"most often for rank %u\n", s.slowest_step,
			s.slowest_step_us, s.slowest_rank);
		print_iters(&s, f);
		if (s.n_qp_listed > 0)
			fprintf(f, "# %u QPs: mean rate min/p50/max %.0f/%.0f/"
				"%.0f Mb/s; slowest QP 0x%x (rank %u -> %u) "
				"avg %.0f min %.0f Mb/s; %u QP(s) lost packets\n",
				s.n_qps, s.qp_rate_dist_mbps[0],
				s.qp_rate_dist_mbps[2], s.qp_rate_dist_mbps[4],
				s.qp[0].qpn, s.qp[0].src, s.qp[0].dst,
				s.qp[0].rate_avg_mbps, s.qp[0].rate_min_mbps,
				s.qps_with_loss);
	}
	if (s.lat_count > 0)
		fprintf(f, "# latency ns: min %" PRIu64 " avg %" PRIu64
			" p50 %" PRIu64 " p99 %" PRIu64 " p99.9 %" PRIu64
			" max %" PRIu64 " (%" PRIu64 " samples)\n",
			s.lat_min, s.lat_avg, s.lat_p50, s.lat_p99,
			s.lat_p999, s.lat_max, s.lat_count);
}
