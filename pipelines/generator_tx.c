/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The generator's send side: each rank's schedule becomes packets on the
 * wire. Per rank and poll:
 *
 *   schedule  open loop: step k is posted (one message per channel and QP)
 *             when due (step_post); closed loop: a channel's step is posted
 *             to the QPs' RC requesters once the chunk it depends on has
 *             arrived (post_ready)
 *   QP        the next segment: lib/roce's message cursor (open loop) or
 *             lib/rc's requester, go-back-N resends included (closed loop)
 *   build     lib/roce builds the frame into an mbuf of the frame pool,
 *             whose payload is stored once (never written per frame)
 *   pace      the rank's token bucket; closed loop with DCQCN also each
 *             QP's rate (lib/dcqcn's reaction point)
 *   TX        the port's data queue (departure stamp, fault stage at TX),
 *             flushed in bursts unless received PFC pauses its priority
 *
 * and the iteration bookkeeping both loops share. Closed-loop events (what
 * comes back, retransmit timers) are generator_cl.c's.
 *
 * Everything here runs on the worker (struct gen_wk) owning the rank: its
 * pools, its TX queue of each port, its counters. What workers share is
 * read-only while running, or the iteration bounds and records (atomics),
 * or a port's received PFC pause (gen_prio_paused()).
 */
#include <string.h>

#include <rte_common.h>
#include <rte_ethdev.h>
#include <rte_mbuf.h>

#include "aifab_collective.h"
#include "aifab_roce.h"
#include "generator_priv.h"

/* ---- port queues --------------------------------------------------------- */

static inline bool
data_paused(const struct gen *g, uint16_t p, uint64_t now)
{
	return gen_prio_paused(g, p, g->p.data_prio, now);
}

/* Whether port @p p's bursts go straight onto the whole-process
 * clock's wire (a ring port whose TX tap has the clock's put and no
 * hook: no --capture), as aifab_port_ring_tx() would put them. Asked at
 * the first flush: polls run after the clock's first step, which sets
 * the put (and the clock is freed after the last drain). */
static void
vc_tx_learn(struct gen_wk *wk, uint16_t p)
{
	const struct aifab_port_tap *t = aifab_port_tx_wire_tap(
		&wk->g->env.ports[p], wk->txq);
	struct gen_port *gp = &wk->port[p];

	gp->vc_tx_known = true;
	if (t != NULL) {
		gp->vc_tx_put = t->put;
		gp->vc_tx_wire = t->wire;
	}
}

/* Send what the PMD takes from @p buf (the worker's own TX queue);
 * unsent frames stay for later. (Inlined: on the virtual clock a flush
 * often sends one frame.) */
static __rte_always_inline void
flush_buf(struct gen_wk *wk, uint16_t p, struct rte_mbuf **buf, uint16_t *n)
{
	struct gen_port *gp = &wk->port[p];
	uint16_t sent;

	if (*n == 0)
		return;
	if (unlikely(!gp->vc_tx_known))
		vc_tx_learn(wk, p);
	if (gp->vc_tx_put != NULL) {
		/* aifab_port_ring_tx() without the port's or the tap's
		 * read: the put, what it did not take the ring port's way
		 * (whose put then takes nothing: the FIFO is full or frames
		 * wait in the TX ring) */
		sent = gp->vc_tx_put(gp->vc_tx_wire, buf, *n);
		if (unlikely(sent != *n))
			sent = (uint16_t)(sent + aifab_port_ring_tx(
				&wk->g->env.ports[p], wk->txq, buf + sent,
				(uint16_t)(*n - sent)));
	} else {
		sent = aifab_port_tx_burst(&wk->g->env.ports[p], wk->txq,
					   buf, *n);
	}
	/* Bytes were counted when queued. */
	gp->tx_packets += sent;
	if (sent < *n)
		memmove(buf, buf + sent, sizeof(buf[0]) * (*n - sent));
	*n = (uint16_t)(*n - sent);
}

/* Flush both queues of port @p p unless PFC pauses their priority. */
void
gen_tx_flush(struct gen_wk *wk, uint16_t p, uint64_t now)
{
	struct gen_port *gp = &wk->port[p];
	const struct gen *g = wk->g;

	if (gp->n_tx > 0 && !data_paused(g, p, now))
		flush_buf(wk, p, gp->tx, &gp->n_tx);
	if (gp->n_cnp > 0 && !gen_prio_paused(g, p, g->p.cnp_prio, now))
		flush_buf(wk, p, gp->cnp, &gp->n_cnp);
}

/* Departure stamp (ns) for --capture, the virtual clock's when it runs;
 * converted once per `now` (a poll). */
static inline void
stamp(struct gen_wk *wk, struct rte_mbuf *m, uint64_t now)
{
	const struct gen *g = wk->g;

	if (g->ts_off < 0)
		return;
	if (now != wk->stamp_now) {
		wk->stamp_now = now;
		wk->stamp_ns = g->p.virtual_tick_ns ? now :
			(uint64_t)((double)now * g->ns_per_tsc);
	}
	*RTE_MBUF_DYNFIELD(m, g->ts_off, uint64_t *) = wk->stamp_ns;
	m->ol_flags |= g->ts_flag;
}

/* Queue on the wire: counted as sent; a TX fault stage may lose it. */
static __rte_always_inline bool
tx_queue(struct gen_wk *wk, uint16_t p, struct rte_mbuf *m, uint64_t now)
{
	struct gen_port *gp = &wk->port[p];
	const struct gen *g = wk->g;

	gp->tx_bytes += m->pkt_len;
	stamp(wk, m, now);
	if (g->p.fault_on_tx && aifab_fault_active(&gp->fault) &&
	    aifab_fault_burst(&gp->fault, &m, 1, gp->scratch) == 0) {
		gp->tx_packets++; /* left the NIC, lost on the wire */
		return false;
	}
	return true;
}

/* A data frame; the caller made room in the data queue. */
static __rte_always_inline void
tx_data(struct gen_wk *wk, uint16_t p, struct rte_mbuf *m, uint64_t now)
{
	struct gen_port *gp = &wk->port[p];

	if (tx_queue(wk, p, m, now)) {
		gp->tx[gp->n_tx++] = m;
		gen_txq_mark(wk, p);
	}
}

/* An ACK / NAK (data queue) or CNP; dropped if its queue stays full. */
bool
gen_tx_ctl(struct gen_wk *wk, uint16_t p, struct rte_mbuf *m, bool cnp,
	   uint64_t now)
{
	struct gen_port *gp = &wk->port[p];
	uint16_t *n = cnp ? &gp->n_cnp : &gp->n_tx;
	uint16_t cap = cnp ? GEN_CNPBUF : GEN_TXBUF;

	if (*n == cap)
		gen_tx_flush(wk, p, now);
	if (*n == cap) {
		gp->ctr[GEN_TX_CTL_DROPPED]++;
		rte_pktmbuf_free(m);
		return false;
	}
	if (tx_queue(wk, p, m, now)) {
		(cnp ? gp->cnp : gp->tx)[(*n)++] = m;
		gen_txq_mark(wk, p);
	}
	return true;
}

static void
drop_held(struct gen_port *gp, struct rte_mbuf **buf, uint16_t *n)
{
	uint16_t i;

	for (i = 0; i < *n; i++) {
		gp->tx_bytes -= buf[i]->pkt_len;
		rte_pktmbuf_free(buf[i]);
	}
	gp->ctr[GEN_TX_DROPPED] += *n;
	*n = 0;
}

/* The run is over: what the PMD takes goes, what a pause still holds is
 * dropped. */
void
gen_tx_drain(struct gen_wk *wk)
{
	const struct gen *g = wk->g;
	uint16_t u;

	for (u = 0; u < g->n_used_ports; u++) {
		uint16_t p = g->used_ports[u];
		struct gen_port *gp = &wk->port[p];

		flush_buf(wk, p, gp->tx, &gp->n_tx);
		flush_buf(wk, p, gp->cnp, &gp->n_cnp);
		drop_held(gp, gp->tx, &gp->n_tx);
		drop_held(gp, gp->cnp, &gp->n_cnp);
	}
	rte_pktmbuf_free_bulk(wk->stash, wk->n_stash);
	wk->n_stash = 0;
}

/* ---- pacing -------------------------------------------------------------- */

/*
 * Add the tokens accrued since the last poll. A rank that was held back by
 * the rate at its last poll keeps all of them (the cap is the depth plus
 * this interval's accrual), so it never loses rate when polls are further
 * apart than one frame time; an idle rank fills up to the depth only.
 */
static inline void
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

/* Whether rank @p rk's port takes a data frame now: its priority not
 * paused, room in its data queue (after a flush if full). */
static inline bool
port_room(struct gen_wk *wk, struct gen_rank *rk, uint64_t now)
{
	struct gen_port *gp = &wk->port[rk->port];

	if (data_paused(wk->g, rk->port, now))
		return false;
	if (gp->n_tx == GEN_TXBUF) {
		gen_tx_flush(wk, rk->port, now);
		if (gp->n_tx == GEN_TXBUF)
			return false;
	}
	return true;
}

/* A frame mbuf: from the stash, refilled GEN_STASH at a time (one at a
 * time when the pool runs low). NULL: the pool is empty. */
static __rte_always_inline struct rte_mbuf *
frame_mbuf(struct gen_wk *wk)
{
	if (wk->n_stash > 0)
		return wk->stash[--wk->n_stash];
	if (rte_pktmbuf_alloc_bulk(wk->frame_pool, wk->stash, GEN_STASH) == 0) {
		wk->n_stash = GEN_STASH - 1;
		return wk->stash[GEN_STASH - 1];
	}
	return rte_pktmbuf_alloc(wk->frame_pool);
}

/* Build one frame of @p cn and queue it (tokens spent): its wire length
 * with FCS, preamble and IFG, or 0 out of mbufs (@p s kept as pending). */
static __rte_always_inline uint32_t
frame_send(struct gen_wk *wk, struct gen_rank *rk, struct gen_conn *cn,
	   const struct aifab_roce_seg *s, const struct aifab_roce_tag_info *ti,
	   uint64_t now)
{
	struct rte_mbuf *m = frame_mbuf(wk);
	uint32_t wire;

	if (m != NULL && aifab_roce_frame_build_inline(&cn->qp, s, ti, m,
						       wk->hdr_pool) != 0) {
		wk->stash[wk->n_stash++] = m; /* room: it came from there */
		m = NULL;
	}
	if (m == NULL) {
		cn->pend = *s;
		cn->has_pend = true;
		wk->port[rk->port].ctr[GEN_TX_NOMBUF]++;
		return 0;
	}
	wire = m->pkt_len + GEN_WIRE_EXTRA;
	rk->tokens -= (int64_t)wire << GEN_FP;
	tx_data(wk, rk->port, m, now);
	return wire;
}

/* ---- iterations ---------------------------------------------------------- */

/* Rank @p rk finished its iteration at @p now: account it, start the gap. */
static void
iter_rank_done(struct gen_wk *wk, struct gen_rank *rk, uint64_t now)
{
	struct gen *g = wk->g;
	uint32_t it = rk->iter, done;

	gen_max(&g->iter_end[it], now);
	/* Release: this worker's arrivals of the iteration (its step
	 * statistics slot) are seen by whoever counts the last rank. */
	done = __atomic_add_fetch(&g->iter_ranks_done[it], 1, __ATOMIC_ACQ_REL);
	if (g->p.closed_loop)
		gen_cl_iter_done(wk, rk, it, done);
	rk->step = 0;
	if (++rk->iter == g->total_iters) {
		rk->state = RANK_DONE;
		__atomic_store_n(&wk->n_done, wk->n_done + 1,
				 __ATOMIC_RELAXED);
		return;
	}
	rk->next_start = now + (uint64_t)((double)g->p.gap_ns / g->ns_per_tsc);
	rk->state = RANK_WAIT;
}

/* ---- open loop ----------------------------------------------------------- */

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
			uint64_t b = gen_qp_bytes(s->bytes, nq, q);
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
rank_step_done(struct gen_wk *wk, struct gen_rank *rk, uint64_t now)
{
	const struct gen *g = wk->g;

	if (++rk->step < g->n_steps) {
		rk->next_start = rk->step_start +
			(uint64_t)((double)g->p.step_time_ns / g->ns_per_tsc);
		rk->state = RANK_WAIT;
		return;
	}
	iter_rank_done(wk, rk, now);
}

/* Next segment of an active conn, or false when its message is done. */
static __rte_always_inline bool
conn_seg(struct gen_conn *cn, struct aifab_roce_seg *s)
{
	if (cn->has_pend) {
		*s = cn->pend;
		cn->has_pend = false;
		return true;
	}
	return aifab_roce_seg_next_inline(&cn->qp, s);
}

/* Send one packet of the rank's current step: 1 sent, 0 a QP finished
 * (nothing sent), -1 out of mbufs. */
static __rte_always_inline int
rank_send_one(struct gen_wk *wk, struct gen_rank *rk, uint32_t r, uint64_t now)
{
	struct gen *g = wk->g;
	uint32_t ci = rk->act[rk->rr];
	struct gen_conn *cn = &g->conns[ci];
	struct aifab_roce_tag_info ti = {
		.rank = (uint16_t)r, .step = (uint16_t)rk->step,
		.iter = rk->iter, .tx_tsc = now,
	};
	struct aifab_roce_seg s;

	if (!conn_seg(cn, &s)) {
		rk->act[rk->rr] = rk->act[--rk->n_act];
		if (rk->rr >= rk->n_act)
			rk->rr = 0;
		return 0;
	}
	if (frame_send(wk, rk, cn, &s, &ti, now) == 0)
		return -1;
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
			gen_min(&g->iter_start[rk->iter], now);
		step_post(g, rk, now);
	}
	return rk->state == RANK_SEND;
}

unsigned int
gen_tx_rank_poll(struct gen_wk *wk, uint32_t r, uint64_t now)
{
	struct gen *g = wk->g;
	struct gen_rank *rk = &g->ranks[r];
	unsigned int sent = 0;
	int rc;

	bucket_refill(rk, now);
	while (sent < g->p.burst_pkts && rank_ready(g, rk, now)) {
		if (rk->n_act == 0) {
			rank_step_done(wk, rk, now);
			continue;
		}
		if (rk->rate_fp != 0 && rk->tokens <= 0)
			break;
		if (!port_room(wk, rk, now))
			break;
		rc = rank_send_one(wk, rk, r, now);
		if (rc < 0)
			break;
		sent += (unsigned int)rc;
	}
	rk->backlogged = rk->state == RANK_SEND && rk->n_act > 0;
	return sent;
}

/* ---- closed loop --------------------------------------------------------- */

/* Post entry @p e (one message per QP with bytes); false if some QP's
 * message queue is full (then nothing is posted). */
static bool
post_entry(struct gen *g, struct gen_rank *rk, uint32_t e)
{
	const struct aifab_coll_step *s = &rk->sched[e];
	uint32_t q, nq = g->p.qps_per_conn, ci;
	uint64_t off = s->offset, b;

	for (q = 0; q < nq; q++) {
		const struct gen_conn *cn = &g->conns[rk->entry_conn[e] + q];

		if (gen_qp_bytes(s->bytes, nq, q) > 0 &&
		    cn->n_posted - cn->req->msg_reaped > cn->msg_mask)
			return false;
	}
	for (q = 0; q < nq; q++, off += b) {
		struct gen_conn *cn;
		struct gen_msg *gm;

		b = gen_qp_bytes(s->bytes, nq, q);
		if (b == 0)
			continue;
		ci = rk->entry_conn[e] + q;
		cn = &g->conns[ci];
		gm = &cn->msgs[cn->n_posted & cn->msg_mask];
		gm->va_off = off;
		gm->iter = rk->iter;
		gm->step = (uint16_t)s->step;
		/* Room was checked; sizes were validated at create. */
		aifab_rc_req_post(cn->req, cn->n_posted, (uint32_t)b);
		cn->n_posted++;
		rk->msgs_out++;
		rk->vc_ok = false;
		if (!cn->in_act) {
			cn->in_act = true;
			rk->act[rk->n_act++] = ci;
		}
	}
	return true;
}

/* Post every step whose chunk from the predecessor has arrived. Only
 * an arrival (generator_cl.c delivered()), a reap (room in a QP's message
 * queue) or a new iteration can unblock a channel it left blocked: it
 * looks again only after one of those (rk->post_more), not at every poll. */
static void
post_ready(struct gen *g, struct gen_rank *rk)
{
	uint32_t c, e, par = rk->iter & 1, de;
	int32_t dep;

	if (!rk->post_more)
		return;
	rk->post_more = false;
	for (c = 0; c < g->n_chan; c++) {
		while (rk->cstep[c] < g->n_steps) {
			e = rk->cstep[c] * g->n_chan + c;
			dep = rk->sched[e].depends_on;
			if (dep != AIFAB_COLL_NO_DEP) {
				de = (uint32_t)dep * g->n_chan + c;
				if (rk->got[par][de] < rk->need[de])
					break;
			}
			if (!post_entry(g, rk, e))
				break;
			if (++rk->cstep[c] == g->n_steps)
				rk->ch_done++;
		}
	}
}

/* Next QP of the rank (round robin) with a packet it may send now. */
static inline struct gen_conn *
pick(struct gen *g, struct gen_rank *rk, uint64_t now)
{
	uint32_t i;

	for (i = 0; i < rk->n_act; i++) {
		struct gen_conn *cn;

		if (rk->rr >= rk->n_act)
			rk->rr = 0;
		cn = &g->conns[rk->act[rk->rr++]];
		if (!cn->has_pend && !aifab_rc_req_can_send(cn->req))
			continue;
		if (g->p.dcqcn && cn->pace_t > (double)now)
			continue;
		return cn;
	}
	return NULL;
}

/* The requester's next packet of @p cn (new or a go-back-N resend, counted
 * as such) as a segment; its message slot in @p slot. False: none. */
static inline bool
req_seg(struct gen_wk *wk, struct gen_rank *rk, struct gen_conn *cn,
	uint64_t now, struct aifab_roce_seg *seg, uint32_t *slot)
{
	const struct aifab_rc_req *q = cn->req;
	const struct gen_msg *gm;
	struct aifab_rc_pkt pk;

	if (cn->has_pend) {
		*seg = cn->pend;
		*slot = cn->pend_msg;
		cn->has_pend = false;
		rk->timer_next = 0; /* the QP may leave the active list */
		return true;
	}
	if (aifab_rc_req_next(cn->req, now, &pk) != 0)
		return false;
	/* its retransmit timer may have started (gen_cl_timers()) */
	rk->timer_next = RTE_MIN(rk->timer_next, aifab_rc_req_deadline(q));
	*slot = (uint32_t)pk.cookie & cn->msg_mask;
	gm = &cn->msgs[*slot];
	if (pk.flags & AIFAB_RC_F_RETX) {
		gen_add(&wk->g->irec[gm->iter].retx_packets, 1);
		gen_add(&wk->g->irec[gm->iter].retx_bytes, pk.len);
		wk->glob[GEN_G_RETX_PKTS]++;
		wk->glob[GEN_G_RETX_BYTES] += pk.len;
	}
	aifab_roce_seg_make(seg, cn->qp.cfg.remote_va + gm->va_off,
			    pk.msg_len, pk.offset, pk.len, pk.psn,
			    pk.flags & AIFAB_RC_F_FIRST,
			    pk.flags & AIFAB_RC_F_LAST);
	return true;
}

/* @p wire bytes of @p cn left: DCQCN's byte counter and the QP's next
 * departure at its rate; the rate statistics. */
static inline void
qp_paced(struct gen_wk *wk, struct gen_rank *rk, struct gen_conn *cn,
	 uint32_t wire, uint64_t now)
{
	const struct gen *g = wk->g;
	double rate, gap, lo;

	if (g->p.dcqcn) {
		aifab_dcqcn_rp_on_bytes_sent(&rk->dq, &cn->rp, wire, now);
		rate = aifab_dcqcn_rp_rate(&cn->rp);
		gap = (double)wire * 8.0 * (double)g->hz / (rate * 1e6);
		cn->pace_t = RTE_MAX(cn->pace_t, (double)now - gap) + gap;
	} else {
		rate = rk->line_mbps;
	}
	if (cn->rate_n++ == 0) {
		wk->n_rated++;
		lo = g->p.dcqcn ? cn->rp.min_rc : rk->line_mbps;
		if (wk->rate_min < 0 || lo < wk->rate_min)
			wk->rate_min = lo;
	}
	cn->rate_sum += rate;
	wk->rate_last_sum += rate - cn->rate_last;
	cn->rate_last = rate;
}

/* Build and queue one packet of @p cn: 1, 0 nothing to send, or -1 out of
 * mbufs. */
static inline int
cl_send_one(struct gen_wk *wk, struct gen_rank *rk, struct gen_conn *cn,
	    uint32_t r, uint64_t now)
{
	struct aifab_roce_tag_info ti = { .rank = (uint16_t)r, .tx_tsc = now };
	struct aifab_roce_seg seg;
	const struct gen_msg *gm;
	uint32_t slot, wire;

	rk->vc_ok = false; /* the requester, its pace or has_pend move */
	if (!req_seg(wk, rk, cn, now, &seg, &slot))
		return 0;
	gm = &cn->msgs[slot];
	ti.step = gm->step;
	ti.iter = gm->iter;
	wire = frame_send(wk, rk, cn, &seg, &ti, now);
	if (wire == 0) {
		cn->pend_msg = slot;
		return -1;
	}
	qp_paced(wk, rk, cn, wire, now);
	return 1;
}

static void
iter_begin(struct gen *g, struct gen_rank *rk, uint64_t now)
{
	gen_min(&g->iter_start[rk->iter], now);
	memset(rk->cstep, 0, sizeof(rk->cstep[0]) * g->n_chan);
	rk->ch_done = 0;
	rk->post_more = true;
	rk->vc_ok = false;
	rk->state = RANK_SEND;
}

unsigned int
gen_tx_cl_rank_poll(struct gen_wk *wk, uint32_t r, uint64_t now)
{
	struct gen *g = wk->g;
	struct gen_rank *rk = &g->ranks[r];
	unsigned int sent = 0;
	struct gen_conn *cn;
	bool looked;

	bucket_refill(rk, now);
	rk->backlogged = false;
	if (rk->state == RANK_DONE)
		return 0;
	if (rk->state == RANK_WAIT) {
		if (now < rk->next_start)
			return 0;
		iter_begin(g, rk, now);
	}
	/* A poll of a rank that cannot act reads its first cache line only:
	 * post_ready() and the timers look only when something may have
	 * changed (post_more, timer_next), and so does the test of the
	 * iteration's end below. */
	looked = rk->post_more;
	post_ready(g, rk);
	if (now >= rk->timer_next)
		gen_cl_timers(wk, rk, now);
	while (sent < g->p.burst_pkts) {
		if (rk->rate_fp != 0 && rk->tokens <= 0) {
			rk->backlogged = true;
			break;
		}
		if (!port_room(wk, rk, now))
			break;
		cn = pick(g, rk, now);
		if (cn == NULL || cl_send_one(wk, rk, cn, r, now) < 0)
			break;
		sent++;
	}
	/* Only an arrival or a reap (which set post_more) or post_ready()
	 * can make it true: it was false at the end of the last poll. */
	if (looked && rk->ch_done == g->n_chan && rk->msgs_out == 0 &&
	    rk->got_total[rk->iter & 1] == rk->need_total)
		iter_rank_done(wk, rk, now);
	return sent;
}
