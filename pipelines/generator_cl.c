/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The generator's closed loop: the state of each QP's two RC endpoints and
 * what moves it (lib/rc, lib/dcqcn), apart from sending (generator_tx.c
 * asks the requester for its next packet and paces it) and from frames
 * (generator_rx.c reads them and builds the replies this file decides).
 *
 *  - receiver (responder + notification point, per QP): lib/rc's
 *    responder decides ACK / NAK / nothing for each data packet; a
 *    CE-marked packet asks lib/dcqcn's notification point for a CNP. A
 *    completed message is a delivered chunk: it may release the next step
 *    of the receiving rank, and ends a step in the step statistics.
 *  - sender (requester + reaction point, per QP): ACKs and NAKs move its
 *    window (go-back-N on a NAK), the retransmit timer is polled every
 *    loop; CNPs cut the QP's DCQCN rate.
 *
 * Arrivals are kept per receiving rank, per schedule entry and iteration
 * parity: a sender can run at most one iteration ahead of a receiver (it
 * cannot end iteration i + 1 before the receiver has started it).
 *
 * With several workers (generator lcores) a QP's receiver end is its
 * destination rank's worker's and its sender end its source rank's: each
 * half is written by one worker only. Step statistics are per worker and
 * merged when the last rank ends an iteration (iter_stats_close).
 *
 * Run-wide counters (the worker's glob) move with lib/rc's and lib/dcqcn's per-QP
 * ones at each call here.
 */
#include <string.h>

#include <rte_common.h>
#include <rte_malloc.h>

#include "generator_priv.h"

#define CL_REAP 16

/* Run-wide counters move with lib/rc's and lib/dcqcn's per-QP ones: what
 * a call added to QP counter @p c (read before it as @p before). */
#define GEN_DELTA(wk, gi, cnt, c, before) \
	((wk)->glob[gi] += (cnt)[c] - (before))

/* ---- receiver ------------------------------------------------------------ */

/* First entry >= @p from of the sender's schedule that puts a message on
 * @p cn; UINT32_MAX if none. */
static uint32_t
conn_next_entry(const struct gen *g, const struct gen_conn *cn, uint32_t from)
{
	const struct gen_rank *s = &g->ranks[cn->src];
	uint32_t base = (uint32_t)(cn - g->conns) - cn->q, e;
	uint32_t n = g->n_steps * g->n_chan;

	for (e = from; e < n; e++)
		if (s->entry_conn[e] == base &&
		    gen_qp_bytes(s->sched[e].bytes, g->p.qps_per_conn,
				 cn->q) > 0)
			return e;
	return UINT32_MAX;
}

/* Step @p k of iteration @p it: a chunk from @p sender was delivered. */
static void
stat_arrive(struct gen_wk *wk, uint32_t it, uint32_t k, uint32_t sender,
	    uint64_t now, struct gen_port *gp)
{
	struct gen_iter_stat *st = &wk->ist[it % GEN_STAT_SLOTS];
	uint32_t cur = __atomic_load_n(&st->iter, __ATOMIC_ACQUIRE);

	if (cur != it) {
		if (cur != UINT32_MAX) {
			gp->ctr[GEN_STAT_OVERRUN]++;
			return;
		}
		memset(st->end, 0, sizeof(st->end[0]) * wk->g->n_steps);
		memset(st->last, 0, sizeof(st->last[0]) * wk->g->n_steps);
		__atomic_store_n(&st->iter, it, __ATOMIC_RELAXED);
	}
	if (now >= st->end[k]) {
		st->end[k] = now;
		st->last[k] = sender;
	}
}

/* The message at the head of @p cn completed at its receiver. */
static void
delivered(struct gen_wk *wk, struct gen_conn *cn, uint64_t now,
	  struct gen_port *gp)
{
	struct gen *g = wk->g;
	struct gen_rank *rk = &g->ranks[cn->dst];
	uint32_t e = cn->rx_e, it = cn->rx_iter, par = it & 1;

	if (e == UINT32_MAX)
		return; /* cannot happen: nothing is sent on such a QP */
	rk->got_total[par]++;
	rk->post_more = true;       /* may release a step (post_ready) */
	gen_rank_mark(wk, cn->dst);
	if (++rk->got[par][e] == rk->need[e])
		stat_arrive(wk, it, e / g->n_chan, cn->src, now, gp);
	cn->rx_e = conn_next_entry(g, cn, e + 1);
	if (cn->rx_e == UINT32_MAX) {
		cn->rx_iter++;
		cn->rx_e = conn_next_entry(g, cn, 0);
	}
}

bool
gen_cl_on_data(struct gen_wk *wk, struct gen_conn *cn,
	       const struct gen_rx_data *d, uint64_t now, struct gen_port *gp,
	       struct aifab_rc_resp_action *act)
{
	struct gen *g = wk->g;
	const uint64_t *rc = cn->resp.cnt;
	uint64_t a0, n0, d0, o0, b0;
	bool cnp = false;

	aifab_roce_rx_psn(&cn->rx, d->psn);
	if (d->ce) {
		wk->glob[GEN_G_CE_RX]++;     /* lib/dcqcn: ce_rx per call */
		cnp = aifab_dcqcn_np_on_ce(&g->ranks[cn->dst].dq, &cn->np,
					   now);
		if (cnp)
			wk->glob[GEN_G_CNP_TX]++; /* and cnp_tx when true */
	}
	a0 = rc[AIFAB_RC_RESP_CNT_ACKS_TX];
	n0 = rc[AIFAB_RC_RESP_CNT_NAKS_TX];
	d0 = rc[AIFAB_RC_RESP_CNT_RX_DUP];
	o0 = rc[AIFAB_RC_RESP_CNT_RX_OOS];
	b0 = rc[AIFAB_RC_RESP_CNT_RX_BYTES];
	aifab_rc_resp_on_data(&cn->resp, d->psn, d->len, d->flags, act);
	GEN_DELTA(wk, GEN_G_ACKS_TX, rc, AIFAB_RC_RESP_CNT_ACKS_TX, a0);
	GEN_DELTA(wk, GEN_G_NAKS_TX, rc, AIFAB_RC_RESP_CNT_NAKS_TX, n0);
	GEN_DELTA(wk, GEN_G_DUP_RX, rc, AIFAB_RC_RESP_CNT_RX_DUP, d0);
	GEN_DELTA(wk, GEN_G_OOS_RX, rc, AIFAB_RC_RESP_CNT_RX_OOS, o0);
	GEN_DELTA(wk, GEN_G_DELIVERED, rc, AIFAB_RC_RESP_CNT_RX_BYTES, b0);
	if (act->message_completed)
		delivered(wk, cn, now, gp);
	return cnp;
}

/* The end of step @p k of iteration @p it over the workers' slots (the
 * latest arrival) and its sender; 0 if none arrived. */
static uint64_t
step_end(const struct gen *g, uint32_t it, uint32_t k, uint32_t *last)
{
	uint64_t end = 0;
	unsigned int w;

	for (w = 0; w < g->n_wk; w++) {
		const struct gen_iter_stat *st =
			&g->wk[w].ist[it % GEN_STAT_SLOTS];

		if (st->iter == it && st->end[k] >= end && st->end[k] != 0) {
			end = st->end[k];
			*last = st->last[k];
		}
	}
	return end;
}

/* Step statistics: free the workers' slots of iteration @p it, adding its
 * step durations (timed iterations) and blaming the slowest step's sender.
 * Every rank has ended @p it (its arrivals were written before its worker
 * counted it, acquire-release on iter_ranks_done); one close at a time. */
static void
iter_stats_close(struct gen *g, uint32_t it)
{
	uint64_t prev = g->iter_start[it], d, worst = 0, end;
	uint32_t k, slow = UINT32_MAX, last = 0, slow_last = 0;
	unsigned int w;

	rte_spinlock_lock(&g->close_lock);
	for (k = 0; k < g->n_steps; k++) {
		end = step_end(g, it, k, &last);
		d = end > prev ? end - prev : 0;
		prev = RTE_MAX(prev, end);
		if (it >= g->p.warmup)
			g->step_sum_us[k] += (double)d * g->ns_per_tsc / 1e3;
		if (slow == UINT32_MAX || d > worst) {
			worst = d;
			slow = k;
			slow_last = end != 0 ? last : UINT32_MAX;
		}
	}
	if (slow != UINT32_MAX && slow_last != UINT32_MAX) {
		g->irec[it].slow_step = slow;
		g->irec[it].slow_rank = slow_last;
		g->irec[it].slow_step_tsc = worst;
		if (it >= g->p.warmup)
			g->slow_count[slow_last]++;
	}
	for (w = 0; w < g->n_wk; w++) {
		struct gen_iter_stat *st = &g->wk[w].ist[it % GEN_STAT_SLOTS];

		if (st->iter == it)
			__atomic_store_n(&st->iter, UINT32_MAX,
					 __ATOMIC_RELEASE);
	}
	rte_spinlock_unlock(&g->close_lock);
}

void
gen_cl_iter_done(struct gen_wk *wk, struct gen_rank *rk, uint32_t it,
		 uint32_t done)
{
	struct gen *g = wk->g;

	if (done == g->n_own)
		iter_stats_close(g, it);
	/* This parity's arrivals now belong to iteration it + 2. */
	memset(rk->got[it & 1], 0, g->n_steps * g->n_chan);
	rk->got_total[it & 1] = 0;
}

/* ---- sender -------------------------------------------------------------- */

/* The iteration record of @p cn's oldest unacknowledged message (what a
 * NAK or a timeout holds up); NULL if nothing is outstanding. */
static struct gen_iter_rec *
oldest_rec(struct gen *g, const struct gen_conn *cn)
{
	const struct aifab_rc_req *q = cn->req;

	if (q->msg_acked == q->msg_post)
		return NULL;
	return &g->irec[cn->msgs[q->msg_acked & cn->msg_mask].iter];
}

/* Completed messages of @p cn leave the rank's count of outstanding ones. */
static void
reap(struct gen *g, struct gen_conn *cn)
{
	struct gen_rank *rk = &g->ranks[cn->src];
	uint64_t cookies[CL_REAP];
	unsigned int n;

	while ((n = aifab_rc_req_reap(cn->req, cookies, CL_REAP)) > 0) {
		rk->msgs_out -= n;
		rk->post_more = true; /* room in the QP's message queue */
		rk->timer_next = 0;   /* the QP may leave the active list */
	}
}

/* An ACK or NAK moved @p cn's requester: its retransmit timer may have
 * started (its deadline in the rank's bound, gen_cl_timers()), and the
 * rank's summary for next_event() is stale. */
static inline void
timer_bound(struct gen *g, const struct gen_conn *cn)
{
	const struct aifab_rc_req *q = cn->req;
	struct gen_rank *rk = &g->ranks[cn->src];

	rk->timer_next = RTE_MIN(rk->timer_next, aifab_rc_req_deadline(q));
	rk->vc_ok = false; /* the ACK or NAK moved the requester */
}

void
gen_cl_on_ack(struct gen_wk *wk, struct gen_conn *cn, uint32_t psn,
	      uint64_t now)
{
	struct gen *g = wk->g;
	uint64_t before = cn->req->cnt[AIFAB_RC_REQ_CNT_ACKS_RX];

	if (aifab_rc_req_on_ack(cn->req, psn, now) > 0)
		reap(g, cn);
	timer_bound(g, cn);
	gen_vclock_acked(wk, cn->src, now);   /* (or its mark) */
	GEN_DELTA(wk, GEN_G_ACKS_RX, cn->req->cnt, AIFAB_RC_REQ_CNT_ACKS_RX,
		  before);
}

void
gen_cl_on_nak(struct gen_wk *wk, struct gen_conn *cn, uint32_t psn,
	      uint64_t now)
{
	struct gen *g = wk->g;
	struct gen_iter_rec *ir = oldest_rec(g, cn);
	uint64_t before = cn->req->cnt[AIFAB_RC_REQ_CNT_NAKS_RX];

	if (aifab_rc_req_on_nak(cn->req, psn, now) > 0)
		reap(g, cn);
	timer_bound(g, cn);
	gen_vclock_acked(wk, cn->src, now);   /* (or its mark) */
	if (ir != NULL)
		gen_add(&ir->naks_rx,
			cn->req->cnt[AIFAB_RC_REQ_CNT_NAKS_RX] - before);
	GEN_DELTA(wk, GEN_G_NAKS_RX, cn->req->cnt, AIFAB_RC_REQ_CNT_NAKS_RX,
		  before);
}

void
gen_cl_on_cnp(struct gen_wk *wk, struct gen_conn *cn, uint64_t now)
{
	const struct gen *g = wk->g;
	uint64_t before;

	wk->glob[GEN_G_CNP_RX]++;
	gen_rank_mark(wk, cn->src);
	if (!g->p.dcqcn)
		return;
	before = cn->rp.cnt[AIFAB_DCQCN_RP_CNT_RATE_CUTS];
	aifab_dcqcn_rp_on_cnp(&g->ranks[cn->src].dq, &cn->rp, now);
	GEN_DELTA(wk, GEN_G_RATE_CUTS, cn->rp.cnt, AIFAB_DCQCN_RP_CNT_RATE_CUTS,
		  before);
	if (cn->rate_n > 0 && cn->rp.min_rc < wk->rate_min)
		wk->rate_min = cn->rp.min_rc;
}

void
gen_cl_timers(struct gen_wk *wk, struct gen_rank *rk, uint64_t now)
{
	struct gen *g = wk->g;
	uint64_t next = UINT64_MAX;
	uint32_t i = 0;

	while (i < rk->n_act) {
		struct gen_conn *cn = &g->conns[rk->act[i]];
		struct aifab_rc_req *q = cn->req;
		struct gen_iter_rec *ir;

		/* lib/rc's test, here first: the call only when it fires */
		if (aifab_rc_req_timeout_due(q, now)) {
			uint64_t before = q->cnt[AIFAB_RC_REQ_CNT_TIMEOUTS];

			aifab_rc_req_poll_timeout(q, now);
			rk->vc_ok = false;
			if ((ir = oldest_rec(g, cn)) != NULL)
				gen_add(&ir->timeouts, q->cnt[
					AIFAB_RC_REQ_CNT_TIMEOUTS] - before);
			GEN_DELTA(wk, GEN_G_TIMEOUTS, q->cnt,
				  AIFAB_RC_REQ_CNT_TIMEOUTS, before);
		}
		if (q->msg_reaped == cn->n_posted && !cn->has_pend) {
			cn->in_act = false;
			rk->act[i] = rk->act[--rk->n_act];
			rk->vc_ok = false;
			continue;
		}
		next = RTE_MIN(next, aifab_rc_req_deadline(q));
		i++;
	}
	/* Until then this loop would do nothing, unless a QP may leave the
	 * list or a timer starts (those lower it: reap(), timer_bound(),
	 * generator_tx.c). */
	rk->timer_next = next;
}

/* The run starts at @p now: every QP's reaction point at the line rate. */
void
gen_cl_start(struct gen *g, uint64_t now)
{
	uint32_t i;

	for (i = 0; i < g->n_conns; i++)
		aifab_dcqcn_rp_init(&g->ranks[g->conns[i].src].dq,
				    &g->conns[i].rp, now);
}

/* ---- building ------------------------------------------------------------ */

/* Every send is expected by its receiver at the same entry index: the
 * receiver's entry e names the sender as recv_from. */
static int
build_need(struct gen *g, char *err, size_t errlen)
{
	uint32_t i, e, n = g->n_steps * g->n_chan, nq = g->p.qps_per_conn;

	for (i = 0; i < g->n_own; i++) {
		uint32_t r = g->own_list[i];
		struct gen_rank *rk = &g->ranks[r];

		for (e = 0; e < n; e++) {
			const struct aifab_coll_step *me = &rk->sched[e];
			const struct aifab_coll_step *in, *out;

			if (me->recv_from >= g->p.n_ranks ||
			    me->peer >= g->p.n_ranks)
				BAD("closed_loop: rank %u step %u has no peer; "
				    "allowed: closed_loop = false", r, me->step);
			in = &g->ranks[me->recv_from].sched[e];
			out = &g->ranks[me->peer].sched[e];
			if (in->peer != r || in->channel != me->channel ||
			    out->recv_from != r)
				BAD("closed_loop: collective '%s': rank %u "
				    "step %u: sends and receives do not pair "
				    "up; allowed: closed_loop = false",
				    aifab_coll_type_name(g->p.type), r,
				    me->step);
			rk->need[e] = (uint8_t)RTE_MIN((uint64_t)nq, in->bytes);
			rk->need_total += rk->need[e];
		}
	}
	return 0;
}

static int
build_conn(struct gen *g, struct gen_conn *cn, uint32_t m, int socket)
{
	struct aifab_rc_req_params rq = {
		.init_psn = cn->qp.cfg.start_psn, .window = g->p.window,
		.max_msgs = m, .mtu = g->p.ib_mtu,
		.timeout_ns = g->p.retx_timeout_ns, .tsc_hz = g->hz,
	};
	struct aifab_rc_resp_params rs = {
		.init_psn = cn->qp.cfg.start_psn, .ack_every = g->p.ack_every,
	};
	size_t sz = aifab_rc_req_memsize(&rq);

	if (sz == 0)
		return -1;
	cn->req = rte_zmalloc_socket("gen_req", sz, RTE_CACHE_LINE_SIZE,
				     socket);
	cn->msgs = rte_zmalloc_socket("gen_msgs", sizeof(*cn->msgs) * m, 0,
				      socket);
	if (cn->req == NULL || cn->msgs == NULL)
		return -1;
	cn->msg_mask = m - 1;
	if (aifab_rc_req_init(cn->req, &rq) != 0 ||
	    aifab_rc_resp_init(&cn->resp, &rs) != 0)
		return -1;
	aifab_dcqcn_np_init(&cn->np);
	cn->rx_e = conn_next_entry(g, cn, 0);
	return 0;
}

static int
build_dcqcn(struct gen *g, struct gen_rank *rk, char *err, size_t errlen)
{
	struct aifab_dcqcn_params dp = {
		.tsc_hz = g->hz, .line_rate_mbps = rk->line_mbps,
		.min_rate_mbps = RTE_MIN(g->p.dcqcn_min_rate_mbps, rk->line_mbps),
		.g = g->p.dcqcn_g, .alpha_init = g->p.dcqcn_alpha_init,
		.rai_mbps = g->p.dcqcn_rai_mbps,
		.rhai_mbps = g->p.dcqcn_rhai_mbps,
		.alpha_period_ns = g->p.dcqcn_alpha_period_ns,
		.rate_period_ns = g->p.dcqcn_rate_period_ns,
		.byte_counter = g->p.dcqcn_byte_counter, .f = g->p.dcqcn_f,
		.cnp_interval_ns = g->p.cnp_interval_ns,
	};

	if (aifab_dcqcn_conf_init(&rk->dq, &dp) != 0)
		BAD("dcqcn: g %.8f, alpha_init %.6f, rai %.3f Mb/s, rhai %.3f "
		    "Mb/s, min rate %.3f Mb/s, periods %lu/%lu ns, F %u, cnp "
		    "interval %lu ns: out of range; allowed: g in (0,1], "
		    "alpha_init in [0,1], periods (0, 1 h], F >= 1",
		    dp.g, dp.alpha_init, dp.rai_mbps, dp.rhai_mbps,
		    dp.min_rate_mbps, (unsigned long)dp.alpha_period_ns,
		    (unsigned long)dp.rate_period_ns, dp.f,
		    (unsigned long)dp.cnp_interval_ns);
	return 0;
}

int
gen_cl_build(struct gen *g, char *err, size_t errlen)
{
	uint32_t n = g->n_steps * g->n_chan, r, i, m, k;
	int socket = rte_socket_id();

	m = g->p.max_msgs ? g->p.max_msgs : RTE_MIN(g->n_steps, 64u);
	m = rte_align32pow2(RTE_MAX(m, 1u));
	for (r = 0; r < g->p.n_ranks; r++)
		if (build_dcqcn(g, &g->ranks[r], err, errlen) != 0)
			return -1;
	for (r = 0; r < g->n_own; r++) {   /* senders and receivers here */
		struct gen_rank *rk = &g->ranks[g->own_list[r]];

		rk->cstep = rte_zmalloc_socket("gen_cstep", sizeof(uint32_t) *
					       g->n_chan, 0, socket);
		rk->need = rte_zmalloc_socket("gen_need", n, 0, socket);
		rk->got[0] = rte_zmalloc_socket("gen_got", n, 0, socket);
		rk->got[1] = rte_zmalloc_socket("gen_got", n, 0, socket);
		if (rk->cstep == NULL || rk->need == NULL ||
		    rk->got[0] == NULL || rk->got[1] == NULL)
			BAD("out of memory (raise -m)");
	}
	if (build_need(g, err, errlen) != 0)
		return -1;
	for (i = 0; i < g->n_conns; i++)
		if (build_conn(g, &g->conns[i], m, socket) != 0)
			BAD("window = '%u' / max messages %u for %u QPs: "
			    "invalid or out of memory; allowed: window "
			    "1..%u, raise -m", g->p.window, m, g->n_conns,
			    AIFAB_RC_MAX_WINDOW);
	for (i = 0; i < g->n_wk; i++) {
		for (k = 0; k < GEN_STAT_SLOTS; k++) {
			struct gen_iter_stat *st = &g->wk[i].ist[k];

			st->iter = UINT32_MAX;
			st->end = rte_zmalloc_socket("gen_ist",
				sizeof(uint64_t) * g->n_steps, 0, socket);
			st->last = rte_zmalloc_socket("gen_ist",
				sizeof(uint32_t) * g->n_steps, 0, socket);
			if (st->end == NULL || st->last == NULL)
				BAD("out of memory (raise -m)");
		}
	}
	rte_spinlock_init(&g->close_lock);
	g->step_sum_us = rte_zmalloc_socket("gen_ss", sizeof(double) *
					    g->n_steps, 0, socket);
	g->slow_count = rte_zmalloc_socket("gen_sc", sizeof(uint32_t) *
					   g->p.n_ranks, 0, socket);
	if (g->step_sum_us == NULL || g->slow_count == NULL)
		BAD("out of memory (raise -m)");
	return 0;
}

void
gen_cl_free(struct gen *g)
{
	uint32_t i;

	for (i = 0; g->conns != NULL && i < g->n_conns; i++) {
		rte_free(g->conns[i].req);
		rte_free(g->conns[i].msgs);
	}
	for (i = 0; g->ranks != NULL && i < g->p.n_ranks; i++) {
		rte_free(g->ranks[i].cstep);
		rte_free(g->ranks[i].need);
		rte_free(g->ranks[i].got[0]);
		rte_free(g->ranks[i].got[1]);
	}
	for (i = 0; g->wk != NULL && i < g->n_wk * GEN_STAT_SLOTS; i++) {
		rte_free(g->wk[i / GEN_STAT_SLOTS].ist[i % GEN_STAT_SLOTS].end);
		rte_free(g->wk[i / GEN_STAT_SLOTS].ist[i % GEN_STAT_SLOTS].last);
	}
	rte_free(g->step_sum_us);
	rte_free(g->slow_count);
}
