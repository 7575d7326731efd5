/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The one virtual clock ([general] clock = virtual, app/vclock.c): when
 * the generator next has something to do without a frame arriving (a
 * paced send, the next step or iteration, a retransmit timeout). Its
 * poll is the usual one, run at that instant with `now` in nanoseconds
 * (env tsc_hz = 10^9, so pacing, gaps, RTO and DCQCN timers read it).
 */
#include <stdlib.h>
#include <string.h>

#include <rte_ring.h>

#include "generator_priv.h"

/* One frame of the largest payload at the fastest rank's rate: a sending
 * rank is polled this often, so its departures keep the pace its token
 * bucket sets (the wire serializes what it gets). The ranks' rates are
 * set up before the run starts and never change: computed once (a pass
 * over every rank), on the first call after the start. */
static uint64_t
gen_vclock_step(struct gen *g)
{
	uint64_t bits_k = ((uint64_t)g->p.ib_mtu + GEN_WIRE_EXTRA + 64) * 8000;
	uint64_t step;
	double mbps = 0;
	uint32_t r;

	if (g->vc_step != 0)
		return g->vc_step;
	for (r = 0; r < g->p.n_ranks; r++)
		mbps = RTE_MAX(mbps, g->ranks[r].line_mbps);
	if (mbps < 1)
		step = 1000;
	else
		step = RTE_MAX((uint64_t)((double)bits_k / mbps), (uint64_t)1);
	/* a cache of a constant: the clock's one thread writes it */
	g->vc_step = step;
	return step;
}

/*
 * When rank @p rk (out of tokens) has tokens again: last_tsc +
 * -tokens / rate_fp + 1; @p ready (or less) when that is not after
 * @p ready, told by a multiply (most calls: one frame's debt is paid
 * within the step), not a division.
 */
static inline uint64_t
tokens_at(const struct gen_rank *rk, uint64_t ready)
{
	uint64_t debt = (uint64_t)(-rk->tokens), prod;

	/* last + debt / rate + 1 <= ready <=> debt < (ready - last) x rate */
	if (ready > rk->last_tsc &&
	    !__builtin_mul_overflow(ready - rk->last_tsc, rk->rate_fp, &prod) &&
	    debt < prod)
		return ready;
	return rk->last_tsc + debt / rk->rate_fp + 1;
}

/* Rebuild rank @p rk's summary of its active QPs (struct gen_rank,
 * vc_ok): what gen_vclock_cl_rank() needs of them. */
static inline void
cl_rank_summary(const struct gen *g, struct gen_rank *rk)
{
	uint64_t dl = UINT64_MAX, c = UINT64_MAX;
	bool send = false;
	int64_t fl;
	uint32_t i;

	for (i = 0; i < rk->n_act; i++) {
		const struct gen_conn *cn = &g->conns[rk->act[i]];

		if (cn->has_pend || aifab_rc_req_can_send(cn->req)) {
			send = true;
			if (g->p.dcqcn) {
				/* 0 <= pace_t < 2^63 (it starts at 0 and
				 * grows by frame times): the signed
				 * conversions, one instruction each */
				fl = (int64_t)cn->pace_t;
				c = RTE_MIN(c, (uint64_t)fl +
					    ((double)fl < cn->pace_t));
			}
		}
		dl = RTE_MIN(dl, aifab_rc_req_deadline(cn->req));
	}
	rk->vc_send = send;
	rk->vc_dl = dl;
	rk->vc_ceil = c;
	rk->vc_ok = true;
}

/*
 * Closed loop: when rank @p rk next sends or times out by itself. A QP
 * with something to send goes when its rank has tokens again and its
 * DCQCN pace allows (not before the next step); a QP waiting for ACKs
 * wakes at its retransmit timeout. Everything else waits for a frame.
 *
 * Per QP q with a packet that is the first instant from ready at which
 * pick() takes it: it skips q while pace_t > now, so at a whole instant
 * max(ready, ceil(pace_t)); over the QPs, max(ready, the least
 * ceil(pace_t)). So the rank's summary (cl_rank_summary(), rebuilt only
 * when a QP changed) gives it without a pass over the QPs at every
 * step. (It was floor(pace_t) + 1 when pace_t > ready, one ns late when
 * pace_t is whole: tests/unit/test_gen_nextev.c, test_whole_paces.)
 */
static uint64_t
gen_vclock_cl_rank(const struct gen *g, struct gen_rank *rk, uint64_t now,
		   uint64_t step)
{
	uint64_t t = UINT64_MAX, ready = now + step;

	if (!rk->vc_ok)
		cl_rank_summary(g, rk);
	if (rk->vc_send) {
		if (rk->rate_fp != 0 && rk->tokens <= 0)
			ready = RTE_MAX(ready, tokens_at(rk, ready));
		t = g->p.dcqcn ? RTE_MAX(ready, rk->vc_ceil) : ready;
	}
	if (rk->vc_dl != UINT64_MAX)
		t = RTE_MIN(t, RTE_MAX(rk->vc_dl, now + 1));
	return t;
}

/* ---- the ranks that may act (closed loop) -------------------------------- */

/*
 * gen_poll() polls every rank in turn; most of those polls change
 * nothing. On this clock a worker visits only the ranks whose poll may
 * change something, in the same order, so its results are those of
 * visiting all of them. A closed-loop rank's poll (generator_tx.c) at
 * an instant T changes nothing but its token bucket's refill, which a
 * later poll's refill gives the same (over two intervals or one:
 * additive while out of tokens, capped at the depth once not
 * backlogged), when all of these hold:
 *
 *  - nothing reached it since its last poll: a frame for it or one of
 *    its QPs (an arrival may release a step, an ACK or NAK moves a
 *    requester, a CNP its rate) marks it (gen_rank_mark(), in the same
 *    poll, before the ranks; an ACK or NAK after which the rank would
 *    only refill remakes its keys instead, gen_vclock_acked());
 *  - waiting (RANK_WAIT): T < next_start, and not backlogged (a poll
 *    would clear it, and the next refill then caps at the depth);
 *  - sending (RANK_SEND): post_more false, T < timer_next; out of
 *    tokens, backlogged and T before its tokens are positive again
 *    (rank_ta(): a poll then only refills, still out of them); with
 *    tokens, not backlogged and its round-robin pointer one pick()
 *    finding nothing leaves as it is (rr in 1..n_act); and T before
 *    its send key R (its tokens and the least DCQCN pace of the QPs
 *    with a packet: nothing can leave before it), or R passed but
 *    received PFC pausing its port's data priority until after T (the
 *    poll stops at port_room(); a PFC frame received on the port marks
 *    the port's ranks, gen_vclock_pause_changed());
 *  - done (RANK_DONE): always (its bucket is never read again).
 *
 * (port_room() may flush the rank's port when its data queue is full:
 * at the same instant the next writer of that port, or the flush at
 * the end of the poll, sends the same frames in the same order.)
 *
 * After each visit rank_settle() gives the first instant that is not
 * so (its wake; "now": the next poll, even at the same instant) and
 * next_event()'s keys: with x = now + the step, the answer for a
 * sending rank, min(max(x, TA, C), the retransmit deadline) (C: the
 * least ceil of the paces of its QPs with a packet, 0 without DCQCN,
 * gen_vclock_cl_rank()), is max(x, R) with R = max(TA, C), which does
 * not depend on x. TA does not move while a rank is not polled (a
 * refill keeps last_tsc + debt / rate), so the keys stay right for the
 * ranks not visited: over the ranks the answer is max(x, the least R);
 * the deadlines and the waiting ranks' starts are a second key A, taken
 * as max(A, now + 1). (tests/unit/test_gen_nextev.c compares the
 * answer with a pass over every rank's QPs at every step.)
 */

/* When rank @p rk (sending) has positive tokens again: TA = last_tsc +
 * debt / rate + 1 (as tokens_at()); 0 when it has tokens or is not
 * paced. */
static inline uint64_t
rank_ta(const struct gen_rank *rk)
{
	if (rk->rate_fp == 0 || rk->tokens > 0)
		return 0;
	/* (the division by a multiply: DPDK's exact reciprocal) */
	return rk->last_tsc + rte_reciprocal_divide_u64(
		(uint64_t)(-rk->tokens), &rk->rate_rcp) + 1;
}

/* next_event()'s keys of rank @p rk (the comment above). */
static inline void
rank_keys(const struct gen *g, bool dcqcn, struct gen_rank *rk, uint64_t ta,
	  uint64_t k[GEN_K_N])
{
	uint64_t c;

	k[GEN_K_R] = k[GEN_K_A] = UINT64_MAX;
	if (rk->state == RANK_WAIT) {
		k[GEN_K_A] = rk->next_start;
		return;
	}
	if (rk->state != RANK_SEND)
		return;
	if (!rk->vc_ok)
		cl_rank_summary(g, rk);
	k[GEN_K_A] = rk->vc_dl;
	if (!rk->vc_send)
		return;
	c = dcqcn ? rk->vc_ceil : 0;
	k[GEN_K_R] = RTE_MAX(ta, c);
}

/* The first instant from which rank @p rk's poll may change something
 * (<= @p now: at the next poll); @p kr its send key. */
static uint64_t
rank_wake(const struct gen *g, const struct gen_rank *rk, uint64_t ta,
	  uint64_t kr, uint64_t now)
{
	uint64_t w, until;

	if (rk->state == RANK_DONE)
		return UINT64_MAX;
	if (rk->state == RANK_WAIT)
		return rk->backlogged ? now : rk->next_start;
	if (rk->post_more)
		return now;
	w = rk->timer_next;
	if (ta != 0)
		w = RTE_MIN(w, rk->backlogged ? ta : now);
	else if (rk->backlogged ||
		 (rk->n_act > 0 && (rk->rr == 0 || rk->rr > rk->n_act)))
		return now;
	/* A frame that may leave waits for the end of its port's pause:
	 * until then the poll stops at port_room() (a PFC frame received
	 * on the port marks the rank, gen_vclock_pause_changed()). */
	if (kr <= now) {
		until = __atomic_load_n(&g->pfc[rk->port].until[g->p.data_prio],
					__ATOMIC_RELAXED);
		if (now < until)
			kr = until;
	}
	return RTE_MIN(w, kr);
}

static inline void
key_put(struct gen_rs *rs, unsigned int n, uint32_t i, uint64_t v)
{
	uint64_t old = rs->key[n][i], *wm = &rs->key_w[n][i >> 6];

	if (v == old)
		return;
	rs->key[n][i] = v;
	if (v < *wm)
		*wm = v;
	else if (old == *wm) /* the word's least may have gone up */
		rs->dirty[i >> 12] |= UINT64_C(1) << ((i >> 6) & 63);
}

/* After the poll of own rank @p i: its keys, its wake. */
static void
rank_settle(struct gen_wk *wk, uint32_t i, uint64_t now)
{
	struct gen_rs *rs = &wk->rs;
	struct gen_rank *rk = &wk->g->ranks[wk->own_list[i]];
	uint64_t ta = rk->state == RANK_SEND ? rank_ta(rk) : 0;
	uint64_t k[GEN_K_N], w, bit = UINT64_C(1) << (i & 63);
	unsigned int n;

	rank_keys(wk->g, rs->dcqcn, rk, ta, k);
	for (n = 0; n < GEN_K_N; n++)
		key_put(rs, n, i, k[n]);
	w = rank_wake(wk->g, rk, ta, k[GEN_K_R], now);
	if (w <= now) {
		rs->due[i >> 6] |= bit;
		rs->wake[i] = UINT64_MAX;
	} else {
		rs->due[i >> 6] &= ~bit;
		rs->wake[i] = w;
		rs->wake_w[i >> 6] = RTE_MIN(rs->wake_w[i >> 6], w);
	}
}

/* Ranks of word @p j (the last word: those that exist, of @p n). */
static inline uint32_t
word_ranks(uint32_t j, uint32_t n)
{
	return n - j * 64 < 64 ? n - j * 64 : 64;
}

/* The ranks of word @p j whose wake came by @p now are due. */
static void
wake_due(struct gen_rs *rs, uint32_t j, uint32_t n, uint64_t now)
{
	uint32_t i, nr = word_ranks(j, n);
	uint64_t lo = UINT64_MAX, d = 0;

	for (i = 0; i < nr; i++) {
		uint64_t w = rs->wake[j * 64 + i];

		if (w <= now) {
			d |= UINT64_C(1) << i;
			rs->wake[j * 64 + i] = UINT64_MAX;
		} else if (w < lo) {
			lo = w;
		}
	}
	rs->due[j] |= d;
	rs->wake_w[j] = lo;
}

unsigned int
gen_vclock_ranks_poll(struct gen_wk *wk, uint64_t now)
{
	struct gen_rs *rs = &wk->rs;
	uint32_t s = wk->rr_rank, j0 = s >> 6, j, k, i;
	uint64_t below = (UINT64_C(1) << (s & 63)) - 1, m;
	unsigned int sent = 0;

	for (j = 0; j < rs->nw; j++)
		if (rs->wake_w[j] <= now)
			wake_due(rs, j, wk->n_own, now);
	/* own_list[s], ..., the last, the first, ..., own_list[s - 1]: the
	 * order of gen_poll()'s loop over every rank. A visit changes its
	 * own rank's bit only. */
	for (k = 0; k <= rs->nw; k++) {
		j = j0 + k < rs->nw ? j0 + k : j0 + k - rs->nw;
		m = rs->due[j];
		if (k == 0)
			m &= ~below;
		else if (k == rs->nw)
			m &= below;
		for (; m != 0; m &= m - 1) {
			i = j * 64 + (uint32_t)__builtin_ctzll(m);
			sent += gen_tx_cl_rank_poll(wk, wk->own_list[i], now);
			rank_settle(wk, i, now);
		}
	}
	return sent;
}

/* The clock asks: from now on the worker's polls visit the ranks that
 * may act. Every rank is due (its keys are made at its first visit). */
static void
rs_start(struct gen_wk *wk)
{
	struct gen_rs *rs = &wk->rs;
	struct gen *g = wk->g;
	uint32_t i, u, nu = g->n_used_ports;

	for (i = 0; i < wk->n_own; i++)
		rs->due[i >> 6] |= UINT64_C(1) << (i & 63);
	/* its ranks by port (a counting sort; the ranks' ports are set) */
	rs->pr_all = !g->port_sets;
	for (i = 0; i < wk->n_own && !rs->pr_all; i++) {
		u = g->port_u[g->ranks[wk->own_list[i]].port];
		if (u == UINT16_MAX)
			rs->pr_all = true;
		else
			rs->pr_start[u + 1]++;
	}
	for (u = 0; u < nu && !rs->pr_all; u++)
		rs->pr_start[u + 1] += rs->pr_start[u];
	for (i = 0; i < wk->n_own && !rs->pr_all; i++) {
		u = g->port_u[g->ranks[wk->own_list[i]].port];
		rs->pr_list[rs->pr_start[u]++] = i;
	}
	for (u = nu; u > 0 && !rs->pr_all; u--)   /* back to the starts */
		rs->pr_start[u] = rs->pr_start[u - 1];
	if (!rs->pr_all)
		rs->pr_start[0] = 0;
	rs->on = true;
}

/*
 * An ACK or NAK for a rank out of tokens (the demo's: one every
 * ack_every frames, each while its rank waits for its next token) moved
 * its requester and nothing else of it. When, after it, the rank is
 * sending, backlogged, with no schedule to look at (post_more: a reap
 * sets it), now before its timers (timer_next: a reap sets 0,
 * timer_bound() lowers it to the new deadline) and before its tokens
 * are positive again (rank_ta(): its refill at now leaves them <= 0),
 * its poll would only refill (the list at the top of this section) and
 * stop at the tokens: only its keys changed (the requester's deadline,
 * whether a QP may send, the summary). So they are remade here, as
 * rank_settle() after that visit would make them (TA is the same
 * before and after a refill), and the rank is not visited. A rank
 * already due is left due (rank_settle() would clear its bit).
 */
void
gen_vclock_acked(struct gen_wk *wk, uint32_t r, uint64_t now)
{
	struct gen_rs *rs = &wk->rs;
	struct gen_rank *rk;
	uint32_t i;
	uint64_t bit;

	if (!rs->on)
		return;
	i = wk->g->rank_pos[r];
	bit = UINT64_C(1) << (i & 63);
	if (rs->due[i >> 6] & bit)
		return;
	rk = &wk->g->ranks[r];
	if (rk->state == RANK_SEND && rk->backlogged && !rk->post_more &&
	    now < rk->timer_next && rank_ta(rk) > now) {
		rank_settle(wk, i, now);
		return;
	}
	rs->due[i >> 6] |= bit;
}

void
gen_vclock_pause_changed(struct gen *g, uint16_t p)
{
	uint16_t u = g->port_u[p];
	unsigned int w;
	uint32_t k, i;

	for (w = 0; w < g->n_wk; w++) {
		struct gen_rs *rs = &g->wk[w].rs;

		if (!rs->on)
			continue;
		if (rs->pr_all || u == UINT16_MAX) {
			for (i = 0; i < g->wk[w].n_own; i++)
				rs->due[i >> 6] |= UINT64_C(1) << (i & 63);
			continue;
		}
		for (k = rs->pr_start[u]; k < rs->pr_start[u + 1]; k++) {
			i = rs->pr_list[k];
			rs->due[i >> 6] |= UINT64_C(1) << (i & 63);
		}
	}
}

/* The least keys @p mn over the words (the dirty ones made again). */
static void
rs_words_min(struct gen_wk *wk, uint64_t mn[GEN_K_N])
{
	struct gen_rs *rs = &wk->rs;
	uint32_t d, j, i, nr;
	unsigned int n;

	for (d = 0; d < (rs->nw + 63) / 64; d++)
		for (; rs->dirty[d] != 0; rs->dirty[d] &= rs->dirty[d] - 1) {
			j = d * 64 + (uint32_t)__builtin_ctzll(rs->dirty[d]);
			nr = word_ranks(j, wk->n_own);
			for (n = 0; n < GEN_K_N; n++) {
				const uint64_t *key = &rs->key[n][j * 64];
				uint64_t lo = UINT64_MAX;

				for (i = 0; i < nr; i++)
					lo = RTE_MIN(lo, key[i]);
				rs->key_w[n][j] = lo;
			}
		}
	for (n = 0; n < GEN_K_N; n++)
		mn[n] = UINT64_MAX;
	for (j = 0; j < rs->nw; j++)
		for (n = 0; n < GEN_K_N; n++)
			mn[n] = RTE_MIN(mn[n], rs->key_w[n][j]);
}

/* Closed loop on the rank sets: the loop over the ranks below, from
 * the keys. */
static uint64_t
rs_next_event(struct gen *g, struct gen_wk *wk, uint64_t now)
{
	struct gen_rs *rs = &wk->rs;
	uint64_t mn[GEN_K_N], t;
	uint32_t i;

	if (rs->nw == 1) {
		/* up to 64 ranks (the demo's 8): one word, both keys' least
		 * in one pass when it is dirty */
		if (rs->dirty[0] != 0) {
			const uint64_t *kr = rs->key[GEN_K_R];
			const uint64_t *ka = rs->key[GEN_K_A];
			uint64_t lr = UINT64_MAX, la = UINT64_MAX;

			for (i = 0; i < wk->n_own; i++) {
				lr = RTE_MIN(lr, kr[i]);
				la = RTE_MIN(la, ka[i]);
			}
			rs->key_w[GEN_K_R][0] = lr;
			rs->key_w[GEN_K_A][0] = la;
			rs->dirty[0] = 0;
		}
		mn[GEN_K_R] = rs->key_w[GEN_K_R][0];
		mn[GEN_K_A] = rs->key_w[GEN_K_A][0];
	} else {
		rs_words_min(wk, mn);
	}
	t = UINT64_MAX;
	if (mn[GEN_K_R] != UINT64_MAX)
		t = RTE_MAX(now + gen_vclock_step(g), mn[GEN_K_R]);
	if (mn[GEN_K_A] != UINT64_MAX)
		t = RTE_MIN(t, RTE_MAX(mn[GEN_K_A], now + 1));
	return t;
}

/* @p n instants, all "never" (UINT64_MAX); NULL: out of memory. */
static uint64_t *
never_array(size_t n)
{
	uint64_t *a = malloc(sizeof(*a) * n);

	if (a != NULL)
		memset(a, 0xff, sizeof(*a) * n);
	return a;
}

int
gen_vclock_build(struct gen *g, char *err, size_t errlen)
{
	unsigned int w, n;
	uint32_t i;

	if (!g->p.closed_loop)
		return 0;
	g->rank_pos = calloc(RTE_MAX(g->p.n_ranks, 1u), sizeof(uint32_t));
	if (g->rank_pos == NULL)
		BAD("out of memory");
	for (w = 0; w < g->n_wk; w++) {
		struct gen_wk *wk = &g->wk[w];
		struct gen_rs *rs = &wk->rs;
		uint32_t nw = RTE_MAX((wk->n_own + 63) / 64, 1u);

		for (i = 0; i < wk->n_own; i++)
			g->rank_pos[wk->own_list[i]] = i;
		rs->nw = nw;
		rs->dcqcn = g->p.dcqcn;
		/* The per-word arrays, which every step reads, in one block
		 * (one cache line up to 64 ranks): wake_w, key_w, then due
		 * and dirty (zero); the per-rank ones in another. */
		rs->word_mem = never_array((size_t)nw * (1 + GEN_K_N + 1) +
					(nw + 63) / 64);
		rs->rank_mem = never_array((size_t)nw * 64 * (1 + GEN_K_N));
		rs->pr_start = calloc(g->n_used_ports + 1u, sizeof(uint32_t));
		rs->pr_list = calloc(RTE_MAX(wk->n_own, 1u), sizeof(uint32_t));
		if (rs->word_mem == NULL || rs->rank_mem == NULL ||
		    rs->pr_start == NULL || rs->pr_list == NULL)
			BAD("out of memory");
		rs->wake_w = rs->word_mem;
		rs->wake = rs->rank_mem;
		for (n = 0; n < GEN_K_N; n++) {
			rs->key_w[n] = rs->word_mem + (size_t)nw * (1 + n);
			rs->key[n] = rs->rank_mem + (size_t)nw * 64 * (1 + n);
		}
		rs->due = rs->word_mem + (size_t)nw * (1 + GEN_K_N);
		rs->dirty = rs->due + nw;
		memset(rs->due, 0, sizeof(uint64_t) * (nw + (nw + 63) / 64));
	}
	return 0;
}

void
gen_vclock_free(struct gen *g)
{
	unsigned int w;

	for (w = 0; g->wk != NULL && w < g->n_wk; w++) {
		struct gen_rs *rs = &g->wk[w].rs;

		free(rs->word_mem);
		free(rs->rank_mem);
		free(rs->pr_start);
		free(rs->pr_list);
	}
	free(g->rank_pos);
}

uint64_t
gen_next_event(void *st, unsigned int w, uint64_t now)
{
	struct gen *g = st;
	struct gen_wk *wk = &g->wk[w];
	uint64_t next = UINT64_MAX, step = 0;
	uint32_t i;
	uint16_t u;

	if (!wk->rs.on && wk->rs.due != NULL)
		rs_start(wk);
	if (!__atomic_load_n(&g->started, __ATOMIC_ACQUIRE))
		return now;
	/* Frames another worker handed over: read them in this instant
	 * (the workers are polled in a fixed order, so this stays
	 * deterministic). */
	if (wk->inbox != NULL && rte_ring_count(wk->inbox) != 0)
		return now;
	if (g->port_sets) {
		/* the ports whose queues may hold frames (a superset) */
		unsigned int k, nw = gen_port_words(g);
		uint64_t m;

		for (k = 0; k < nw; k++)
			for (m = wk->txq_set[k]; m != 0; m &= m - 1) {
				const struct gen_port *gp = &wk->port[
					g->used_ports[k * 64 +
						      __builtin_ctzll(m)]];

				if (gp->n_tx != 0 || gp->n_cnp != 0)
					return now + gen_vclock_step(g);
			}
	} else {
		for (u = 0; u < g->n_used_ports; u++)
			if (wk->port[g->used_ports[u]].n_tx != 0 ||
			    wk->port[g->used_ports[u]].n_cnp != 0)
				return now + gen_vclock_step(g);
	}
	if (wk->rs.on)
		return rs_next_event(g, wk, now);
	for (i = 0; i < wk->n_own; i++) {
		/* (the clock's one thread rebuilds a rank's summary here) */
		struct gen_rank *rk = &g->ranks[wk->own_list[i]];

		if (rk->state == RANK_SEND && !g->p.closed_loop)
			return now + gen_vclock_step(g);
		/* Once per call, not per rank: it reads every rank. */
		if (rk->state == RANK_SEND && step == 0)
			step = gen_vclock_step(g);
		if (rk->state == RANK_SEND)
			next = RTE_MIN(next, gen_vclock_cl_rank(g, rk, now,
								step));
		if (rk->state == RANK_WAIT)
			next = RTE_MIN(next, RTE_MAX(rk->next_start, now + 1));
	}
	return next;
}
