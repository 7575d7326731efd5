/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Switch routing, per burst of admitted frames, each stage over the whole
 * burst before the next: LPM (one bulk lookup per family) -> the ECMP
 * hashes -> resolve (the target's drop, ECMP member, egress MTU) and
 * rewrite (classify DSCP / PCP -> TC, L2 rewrite, TTL or hop limit - 1
 * with the checksum) in one walk -> enqueue in order: the whole burst at once when it is sure to be
 * queued with nothing decided (sw_enqueue_sure()), else per frame
 * (switch_enqueue.h, inline). Nothing per packet
 * calls out of this file on the common path (IPv4 UDP, CRC32C ECMP); the
 * rare cases (other hash functions, non-UDP, IPv6) call lib/ecmp.
 * A burst of only common frames comes here from sw_ingress() unparsed,
 * to sw_fused(): check and hash, LPM, resolve and rewrite, enqueue, with
 * what routing reads kept in small arrays.
 */
#include <string.h>

#include <rte_ether.h>
#include <rte_ip.h>
#include <rte_prefetch.h>

#include "switch_enqueue.h"
#include "switch_priv.h"

static inline unsigned int
sw_target_drop(uint32_t target)
{
	if (likely(target < AIFAB_FIB_UNRESOLVED))
		return 0;
	if (target == AIFAB_FIB_MISS)
		return SW_DROP(no_route);
	if (target == AIFAB_FIB_LOCAL)
		return SW_DROP(own_address);
	if (target == AIFAB_FIB_UNRESOLVED)
		return SW_DROP(no_neighbor);
	return 0;
}

/*
 * A burst's routed frames between the stages: position in the burst and
 * queue (the next hop's port and the TC), in the order they will be
 * enqueued (IPv4 first, then IPv6, each in arrival order).
 */
struct sw_routed {
	uint16_t pos[SW_CHUNK];
	uint16_t q[SW_CHUNK];         /* sw_queue(the next hop's port, TC) */
	uint32_t len[SW_CHUNK];       /* pkt_len */
	uint16_t n;
	uint8_t tcs;                  /* the TCs of the n, a mask */
	uint64_t bytes, cells;        /* sum of pkt_len, SW_CELLS(pkt_len) */
	/* the queues (sw_queue()) of the n, a bit set */
	uint64_t qs[AIFAB_SW_MAX_PORTS * AIFAB_QOS_N_TC / 64];
};

/*
 * The ECMP hash of one frame whose group has a choice. The common frame
 * (IPv4 UDP, not a fragment, CRC32C) inline; others through lib/ecmp.
 * @return false if the frame has no hashable flow.
 */
static inline bool
sw_hash1(const struct sw *sw, const struct aifab_pkt_info *pi,
	 const uint8_t *hdr, uint32_t *hash)
{
	const uint32_t *avail_p;
	const struct aifab_pkt_info *pip = pi;
	uint32_t avail = RTE_MIN(pi->pkt_len, (uint32_t)AIFAB_PKT_HDR_WINDOW);
	uint8_t ok;

	if (likely(sw->ecmp_cfg.fn == AIFAB_ECMP_HASH_CRC32C &&
		   pi->l3 == AIFAB_L3_IPV4 &&
		   (pi->flags & (AIFAB_PKT_F_UDP | AIFAB_PKT_F_FRAG)) ==
		   AIFAB_PKT_F_UDP && pi->l3_off + 20u <= avail)) {
		*hash = aifab_ecmp_hash4_crc32c(&sw->ecmp_cfg,
			hdr + pi->l3_off, pi->sport, pi->dport, pi->l4_proto,
			(pi->flags & AIFAB_PKT_F_ROCE) ? pi->dqpn : 0);
		return true;
	}
	avail_p = &avail;
	aifab_ecmp_hash_pkts(&sw->ecmp_cfg, &hdr, avail_p, &pip, 1, hash, &ok);
	return ok != 0;
}

/*
 * Many routes: a frame's route is a line of the FIB's tbl24 (rte_fib
 * prefetches it in its bulk lookup), one of sw->tgt[] and one of the
 * worker's member counters, each apart from the last frame's (1k flows
 * over 100k routes: +20-23% on-CPU against 10 routes on a Zen 3 with a
 * 512 KB L2, bench/README). So the counters a frame will add to are
 * prefetched ahead of the walk that adds them: sw_fused_body()'s, the
 * frame SW_TGT_PREFETCH ahead (reading its sw->tgt[] entry: the loads
 * of frames apart do not wait on one another); sw_resolve()'s, in its
 * first pass, which reads the entry anyway. Only when the targets'
 * entries and counters can outgrow the L1 cache (more than
 * SW_TGT_PREFETCH_MIN targets); with fewer they stay there, and the
 * walks are as they were. A prefetch changes no result.
 */
#define SW_TGT_PREFETCH 4
#define SW_TGT_PREFETCH_MIN 256u

static inline void
sw_tgt_prefetch(const struct sw *sw, const struct sw_worker *wk,
		uint32_t target)
{
	if (likely(target < AIFAB_FIB_UNRESOLVED))
		rte_prefetch0(&wk->ectr[2 * sw->tgt[target].ctr]);
}

/*
 * Resolve and rewrite over the burst, in two passes. The first hashes
 * every frame whose target is a group with a choice: nothing there
 * depends on another frame, so the CRC and finalizer chains of successive
 * frames overlap. The second, per frame in order, resolves: the target's
 * drop, the ECMP member, the counters, the egress MTU; and then rewrites
 * the frame that survives (one walk of the burst, the frame's parse
 * result, next hop and port in registers): classify (DSCP / PCP -> TC),
 * MACs, TTL (checksum) or hop limit - 1, the metadata enqueue and dequeue
 * read; the frame listed in @p r, in order, with its queue (egress
 * port and TC), and the burst's TCs, queues (a bit set), bytes and cells summed
 * for the enqueue. ECMP counters count a frame once its member is chosen
 * (before the MTU check, as always), added in place per frame (a burst
 * to 1k routes changes target nearly every frame, so summing runs of one
 * target cost more than it saved).
 */
static inline void
sw_resolve(struct sw *sw, struct sw_worker *wk, uint16_t in_port,
	   struct rte_mbuf **pkts, const struct sw_admitted *a,
	   const uint32_t *target, const uint16_t *pos, uint16_t n,
	   struct sw_routed *r)
{
	const struct aifab_ecmp_group *gs[SW_CHUNK];
	uint32_t hash[SW_CHUNK];
	uint8_t ok[SW_CHUNK];
	const struct aifab_fib_nh *nhs = sw->fib->nh;
	const uint32_t mtu_min = sw->mtu_min;
	uint8_t trust = sw->trust[in_port];
	uint8_t tcs = 0;
	const bool tpf = sw->n_groups > SW_TGT_PREFETCH_MIN;
	uint64_t bytes = 0, cells = 0;
	uint16_t i, k = 0;

	for (i = 0; i < n; i++) {
		const struct aifab_ecmp_group *g;

		ok[i] = 1;
		if (unlikely(target[i] >= AIFAB_FIB_UNRESOLVED)) {
			gs[i] = NULL;
			continue;
		}
		g = &wk->groups[sw->tgt[target[i]].group];
		gs[i] = g;
		if (tpf)
			sw_tgt_prefetch(sw, wk, target[i]);
		if (g->n_members != 1)
			ok[i] = sw_hash1(sw, &a->pi[pos[i]], a->hdr[pos[i]],
					 &hash[i]);
		else
			hash[i] = 0;
	}
	memset(r->qs, 0, sizeof(r->qs));
	for (i = 0; i < n; i++) {
		const struct aifab_pkt_info *pi = &a->pi[pos[i]];
		const struct aifab_ecmp_group *g = gs[i];
		struct rte_mbuf *m = pkts[pos[i]];
		const struct aifab_fib_nh *nh;
		unsigned int slot = 0;
		uint64_t *c;
		uint16_t member, port;
		uint8_t *l3, tc;
		uint32_t q;

		if (unlikely(g == NULL)) {
			unsigned int reason = sw_target_drop(target[i]);

			if (reason != 0) {
				sw_drop(wk, in_port, reason, m);
				continue;
			}
			g = &wk->groups[sw->tgt[target[i]].group];
			if (g->n_members != 1)
				ok[i] = sw_hash1(sw, pi, a->hdr[pos[i]],
						 &hash[i]);
		}
		if (g->n_members != 1) {
			if (unlikely(!ok[i]) ||
			    unlikely((slot = aifab_ecmp_select(g, hash[i])) ==
				     AIFAB_ECMP_NONE)) {
				sw_drop(wk, in_port, SW_DROP(ecmp_no_member),
					m);
				continue;
			}
		}
		c = &wk->ectr[2 * (sw->tgt[target[i]].ctr + slot)];
		c[0]++;
		c[1] += pi->pkt_len;
		member = aifab_ecmp_member(g, slot);
		nh = &nhs[member];
		port = nh->port;
		if (unlikely(pi->ip_len > mtu_min) &&
		    pi->ip_len > sw->env.ports[port].mtu) {
			sw_drop(wk, in_port, SW_DROP(mtu_exceeded), m);
			continue;
		}
		/* rewrite */
		tc = aifab_qos_classify(&sw->map, trust, pi->tos,
					pi->n_vlans > 0, pi->pcp);
		/* the neighbour's MAC and the port's (nh->dmac, ports[].mac) */
		memcpy(rte_pktmbuf_mtod(m, uint8_t *), sw->nh_l2[member],
		       sizeof(sw->nh_l2[0]));
		l3 = rte_pktmbuf_mtod_offset(m, uint8_t *, pi->l3_off);
		if (likely(pi->l3 == AIFAB_L3_IPV4))
			aifab_ipv4_dec_ttl_inline((struct rte_ipv4_hdr *)l3);
		else
			((struct rte_ipv6_hdr *)l3)->hop_limits--;
		m->hash.usr = SW_META(in_port, tc);
		tcs |= (uint8_t)(1u << tc);
		q = sw_queue(port, tc);
		r->qs[q / 64] |= 1ull << (q % 64);
		r->q[k] = (uint16_t)q;
		r->len[k] = pi->pkt_len;
		bytes += pi->pkt_len;
		cells += SW_CELLS(pi->pkt_len);
		r->pos[k++] = pos[i];
	}
	r->n = k;
	r->tcs = tcs;
	r->bytes = bytes;
	r->cells = cells;
}

/*
 * The lossless TCs of the burst whose PFC accounting at enqueue is a
 * plain add of the bytes (aifab_pfc_gen_add_plain()): the free buffer
 * any of the burst's adds sees is at most today's and at least today's
 * less every cell of the burst (nothing leaves the buffer during the
 * enqueue but frames dropped there). The common case then computes no
 * XOFF threshold per packet.
 */
static inline uint8_t
sw_pfc_plain(const struct sw *sw, const struct sw_worker *wk,
	     uint16_t in_port, const struct sw_routed *r)
{
	uint8_t tcs = r->tcs & sw->lossless;
	uint64_t free;

	if (tcs == 0)
		return 0;
	free = sw_free(wk);
	return aifab_pfc_gen_add_plain(&wk->eg[in_port].pfc_gen, tcs,
				       r->bytes,
				       free > r->cells ? free - r->cells : 0,
				       free);
}

/*
 * Whether every frame of the burst is sure to be queued by sw_enqueue()
 * with nothing decided but its place: for each queue the burst goes to,
 * the PFC watchdog drops nothing, its PFC accounting is plain (@p plain),
 * the whole burst's cells would fit in the shared pool and the queue's
 * own under its limit at the least free buffer the burst can leave, its
 * FIFO has room for its frames and one slot more (sw_enqueue_queues()
 * writes one slot past its last frame), and ECN at enqueue cannot select
 * (off, or the queue's frames' bytes keep it at or below kmin). Each
 * queue's bounds first take the whole burst, as if it all went to that
 * queue (no pass over the frames); only if one fails are that queue's
 * own frames counted (sw_routed_queue()) and the bounds taken again with
 * them: a burst spread over an ECMP pair of uplinks is half each, which
 * matters where the bounds are near a burst (a worker of n has 1/n of
 * the buffer and of kmin: 64 frames of 4 KB are 266 KB, kmin 400 KB /
 * 2). The limits only fall as the buffer fills, so what holds at the
 * end holds for every frame before it. The watchdog's stormed mask is read once
 * per burst: with one worker nothing changes it during the burst; with
 * several, one that worker 0 publishes meanwhile applies from the next
 * burst, as if it had come that much later.
 * @return the number of queues the burst goes to (their ids in @p qid,
 *   the first SW_ENQ_QUEUES), or 0: not sure.
 */
#define SW_ENQ_QUEUES 2

/* The frames of the burst @p r that go to queue @p q: their count,
 * bytes and cells. */
static inline void
sw_routed_queue(const struct sw_routed *r, uint32_t q, uint32_t *n,
		uint64_t *bytes, uint64_t *cells)
{
	uint64_t b = 0, c = 0;
	uint32_t k, cnt = 0;

	for (k = 0; k < r->n; k++) {
		uint32_t in = -(uint32_t)(r->q[k] == q);

		cnt -= in;
		b += r->len[k] & in;
		c += SW_CELLS(r->len[k]) & in;
	}
	*n = cnt;
	*bytes = b;
	*cells = c;
}

/* Whether @p n frames of @p bytes and @p cells keep queue @p bq / @p f
 * under its limit @p lim, within its FIFO's room (one slot more) and,
 * with ECN at enqueue, at or below kmin. */
static inline bool
sw_queue_fits(const struct aifab_qos_bufq *bq, const struct aifab_qos_fifo *f,
	      const struct aifab_qos_ecn_cfg *ecn, uint64_t lim, uint32_t n,
	      uint64_t bytes, uint64_t cells)
{
	return bq->shared + cells <= lim &&
	       (uint64_t)aifab_qos_fifo_count(f) + n <= f->mask &&
	       !(ecn->enabled && f->bytes + bytes > ecn->kmin);
}

static inline unsigned int
sw_enqueue_sure(const struct sw *sw, const struct sw_worker *wk,
		const struct sw_routed *r, uint8_t plain, uint16_t *qid)
{
	const struct aifab_qos_buf *b = wk->buf;
	uint64_t free_min;
	unsigned int w, nq = 0;

	if ((r->tcs & sw->lossless & (uint8_t)~plain) != 0 ||
	    sw->ecn_at_dequeue || b->used + r->cells > b->size)
		return 0;
	free_min = b->size - b->used - r->cells;
	for (w = 0; w < RTE_DIM(r->qs); w++) {
		uint64_t bits = r->qs[w];

		while (bits != 0) {
			uint32_t q = w * 64 + (uint32_t)__builtin_ctzll(bits);
			uint16_t p = (uint16_t)(q / AIFAB_QOS_N_TC);
			uint8_t tc = (uint8_t)(q % AIFAB_QOS_N_TC);
			const struct aifab_qos_bufq *bq = &b->q[q];
			const struct aifab_qos_fifo *f = wk->eg[p].q[tc];
			const struct aifab_qos_ecn_cfg *ecn = &sw->ecn[tc];
			uint64_t lim = bq->alpha_q16 == 0 ? bq->static_lim :
				(free_min * bq->alpha_q16) >> 16;

			bits &= bits - 1;
			if (sw->tcs_of_prios[sw_stormed(sw, p) &
					     sw->wd.drop] & (1u << tc))
				return 0;
			if (!sw_queue_fits(bq, f, ecn, lim, r->n, r->bytes,
					   r->cells)) {
				uint64_t qb, qc;
				uint32_t qn;

				/* its own frames are at least one frame of a
				 * byte and a cell: a queue that cannot take
				 * that (congested) is not counted */
				if (r->n == 1 ||
				    !sw_queue_fits(bq, f, ecn, lim, 1, 1, 1))
					return 0;
				sw_routed_queue(r, q, &qn, &qb, &qc);
				if (qn == r->n ||
				    !sw_queue_fits(bq, f, ecn, lim, qn, qb, qc))
					return 0;
			}
			if (nq < SW_ENQ_QUEUES)
				qid[nq] = (uint16_t)q;
			nq++;
		}
	}
	return nq;
}

/* The end of sw_enqueue_queues() for queue @p q: its FIFO's tail, bytes
 * and high-water mark, shared cells, PFC bytes and nonempty bit. */
static inline void
sw_enqueue_queue_done(struct sw *sw, struct sw_worker *wk, uint16_t in_port,
		      uint16_t q, uint32_t tail, uint32_t bytes, uint32_t cells)
{
	uint16_t p = (uint16_t)(q / AIFAB_QOS_N_TC);
	uint8_t tc = (uint8_t)(q % AIFAB_QOS_N_TC);
	struct sw_egress *eg = &wk->eg[p];
	struct aifab_qos_fifo *f = eg->q[tc];

	f->tail = tail;
	f->bytes += bytes;
	if (f->bytes > f->hwm_bytes)
		f->hwm_bytes = f->bytes;
	wk->buf->q[q].shared += cells;
	if (sw->lossless & (1u << tc))
		wk->eg[in_port].pfc_gen.bytes[tc] += bytes;
	eg->nonempty |= (uint8_t)(1u << tc);
	wk->vc_ne |= UINT64_C(1) << p; /* virtual clock summary */
}

/*
 * sw_enqueue_queues()'s pointers of a burst to two queues whose slots
 * from @p s0 and @p s1 on hold it without a wrap: each frame's at both,
 * the one of its own queue (@p q0's or the other) moved on. @return the
 * frames of @p q0. A function of its own: inline, the walk's live values
 * left its loop too few registers (a spill or two a frame).
 */
static __rte_noinline uint32_t
sw_enqueue_two(struct rte_mbuf **s0, struct rte_mbuf **s1,
	       struct rte_mbuf *const *pkts, const struct sw_routed *r,
	       uint16_t q0)
{
	uintptr_t k, j0 = 0, n = r->n;

	for (k = 0; k < n; k++) {
		struct rte_mbuf *m = pkts[r->pos[k]];

		s0[j0] = m;
		s1[k - j0] = m; /* the other queue's: k less q0's */
		j0 += r->q[k] == q0;
	}
	return (uint32_t)j0;
}

/*
 * sw_enqueue_all() of a burst to at most SW_ENQ_QUEUES queues: each
 * queue's frames' slots in order (without a branch: each frame's pointer
 * is written at the tail, which moves on only for the queue's own, so one
 * slot past the last is written too: sw_enqueue_sure() left room), its
 * bytes and cells summed, then the FIFO's bytes and high-water mark (the
 * bytes only grow over the burst, so the mark the per-frame updates would
 * leave is the larger of the mark and the bytes after), the queue's
 * shared cells and the PFC bytes once. Per-frame updates of those
 * counters would chain each frame's through the store of the one before.
 * Two queues (a burst over a two-member ECMP group) in two passes over
 * the burst: the first queue's bytes and cells (without a store: gcc
 * makes vectors of it), then each frame's pointer to both tails; the
 * second queue's bytes and cells are the burst's less the first's (one
 * pass of both cost ~10 instructions a frame more: bench/README).
 */
static inline void
sw_enqueue_queues(struct sw *sw, struct sw_worker *wk, uint16_t in_port,
		  struct rte_mbuf **pkts, const struct sw_routed *r,
		  const uint16_t *qid, unsigned int nq)
{
	uint16_t k;

	if (nq == 2) {
		uint16_t q0 = qid[0], q1 = qid[1];
		struct aifab_qos_fifo *f0 =
			wk->eg[q0 / AIFAB_QOS_N_TC].q[q0 % AIFAB_QOS_N_TC];
		struct aifab_qos_fifo *f1 =
			wk->eg[q1 / AIFAB_QOS_N_TC].q[q1 % AIFAB_QOS_N_TC];
		uint32_t t0 = f0->tail, m0 = f0->mask;
		uint32_t t1 = f1->tail, m1 = f1->mask;
		uint32_t bytes = 0, cells = 0, n = r->n;

		/* the first queue's bytes and cells (vectors) */
		for (k = 0; k < n; k++) {
			uint32_t in = -(uint32_t)(r->q[k] == q0);

			bytes += r->len[k] & in;
			cells += SW_CELLS(r->len[k]) & in;
		}
		/* each frame's pointer to both tails, the one of its own
		 * queue moved on. Both FIFOs' slots from their tails on
		 * hold the burst's n without a wrap, usually (capacities
		 * are many bursts): then as indices from there, with no
		 * mask (the second queue's frames before k are k less the
		 * first's) */
		if (likely((t0 & m0) + n <= m0 + 1 && (t1 & m1) + n <= m1 + 1)) {
			uint32_t j0 = sw_enqueue_two(&f0->slot[t0 & m0],
				&f1->slot[t1 & m1], pkts, r, q0);

			t0 += j0;
			t1 += n - j0;
		} else {
			for (k = 0; k < n; k++) {
				struct rte_mbuf *m = pkts[r->pos[k]];
				uint32_t in = r->q[k] == q0;

				f0->slot[t0 & m0] = m;
				f1->slot[t1 & m1] = m;
				t0 += in;
				t1 += 1 - in;
			}
		}
		sw_enqueue_queue_done(sw, wk, in_port, q0, t0, bytes, cells);
		sw_enqueue_queue_done(sw, wk, in_port, q1, t1,
				      (uint32_t)r->bytes - bytes,
				      (uint32_t)r->cells - cells);
	} else {
		uint16_t q = qid[0];
		struct aifab_qos_fifo *f =
			wk->eg[q / AIFAB_QOS_N_TC].q[q % AIFAB_QOS_N_TC];
		uint32_t tail = f->tail, mask = f->mask;

		/* one queue: every frame is its own */
		for (k = 0; k < r->n; k++)
			f->slot[tail++ & mask] = pkts[r->pos[k]];
		sw_enqueue_queue_done(sw, wk, in_port, q, tail,
				      (uint32_t)r->bytes, (uint32_t)r->cells);
	}
}

/*
 * sw_enqueue() of a burst that sw_enqueue_sure() passed to more queues
 * than sw_enqueue_queues() takes: what it would do, with every decision
 * known (shared pool, plain PFC add, queued), frame by frame through
 * sw_enqueue_queue_done().
 */
static inline void
sw_enqueue_all(struct sw *sw, struct sw_worker *wk, uint16_t in_port,
	       struct rte_mbuf **pkts, const struct sw_routed *r)
{
	uint16_t k;

	for (k = 0; k < r->n; k++) {
		uint16_t q = r->q[k];
		struct aifab_qos_fifo *f =
			wk->eg[q / AIFAB_QOS_N_TC].q[q % AIFAB_QOS_N_TC];

		/* aifab_qos_fifo_enqueue() but its room check (it has room) */
		f->slot[f->tail & f->mask] = pkts[r->pos[k]];
		sw_enqueue_queue_done(sw, wk, in_port, q, f->tail + 1,
				      r->len[k], SW_CELLS(r->len[k]));
	}
}

/*
 * The end of routing a burst, @p r resolved and rewritten: the whole
 * burst at once when sw_enqueue_sure() says so, else frame by frame
 * through sw_enqueue() in order. @p a: the frames' parse results (their
 * IP header offsets), or NULL: every frame untagged IPv4 (at 14).
 */
static __rte_always_inline void
sw_route_enqueue(struct sw *sw, struct sw_worker *wk, uint16_t in_port,
		 struct rte_mbuf **pkts, const struct sw_routed *r,
		 const struct sw_admitted *a)
{
	uint16_t qid[SW_ENQ_QUEUES];
	unsigned int nq;
	uint8_t plain;
	uint16_t k;

	plain = sw_pfc_plain(sw, wk, in_port, r);
	nq = sw_enqueue_sure(sw, wk, r, plain, qid);
	if (likely(nq != 0)) {
		if (nq <= SW_ENQ_QUEUES)
			sw_enqueue_queues(sw, wk, in_port, pkts, r, qid, nq);
		else
			sw_enqueue_all(sw, wk, in_port, pkts, r);
		wk->buf->used += r->cells; /* nothing above reads it */
		return;
	}
	for (k = 0; k < r->n; k++)
		sw_enqueue(sw, wk, (uint16_t)(r->q[k] / AIFAB_QOS_N_TC),
			   (uint8_t)(r->q[k] % AIFAB_QOS_N_TC), pkts[r->pos[k]],
			   a != NULL ? a->pi[r->pos[k]].l3_off :
			   RTE_ETHER_HDR_LEN, plain);
}

/*
 * Route the admitted frames of a burst, stage by stage over all of them:
 * LPM (one bulk lookup per family), resolve (drop, ECMP member, MTU),
 * rewrite, then enqueue in order (IPv4 first, then IPv6).
 */
void
sw_route(struct sw *sw, struct sw_worker *wk, uint16_t in_port,
	 struct rte_mbuf **pkts, struct sw_admitted *a)
{
	uint32_t target[SW_CHUNK];
	uint16_t pos[SW_CHUNK];
	struct sw_routed r;
	uint16_t n4 = a->n4, n6 = a->n6;

	if (n4)
		aifab_fib_lookup4_bulk(sw->fib, a->ip4, target, n4);
	if (unlikely(n6))
		aifab_fib_lookup6_bulk(sw->fib, a->ip6, target + n4, n6);
	memcpy(pos, a->idx4, sizeof(pos[0]) * n4);
	memcpy(pos + n4, a->idx6, sizeof(pos[0]) * n6);
	sw_resolve(sw, wk, in_port, pkts, a, target, pos,
		   (uint16_t)(n4 + n6), &r);
	sw_route_enqueue(sw, wk, in_port, pkts, &r, a);
}

/*
 * sw_route_enqueue() of a burst of several RX ports' frames (sw_fused_segs()):
 * PFC ingress accounting is per (ingress port, TC), so each segment's
 * lossless TCs are shown plain (aifab_pfc_gen_add_plain()) on its own
 * port's counts with its own routed bytes (@p s_tcs, @p s_bytes: per
 * segment), over the free buffer the whole burst may leave; the burst
 * is then queued at once as sw_enqueue_all() does, each frame's PFC
 * bytes added to its own port (@p inp: per position), or else frame by
 * frame through sw_enqueue() with its segment's plain TCs (@p sidx:
 * segment per position).
 */
static __rte_always_inline void
sw_route_enqueue_segs(struct sw *sw, struct sw_worker *wk,
		      struct rte_mbuf **pkts, const struct sw_routed *r,
		      const struct sw_seg *seg, unsigned int nseg,
		      const uint8_t *s_tcs, const uint64_t *s_bytes,
		      const uint16_t *inp, const uint8_t *sidx)
{
	uint8_t plain[SW_CHUNK];
	uint64_t free = sw_free(wk);
	uint64_t lo = free > r->cells ? free - r->cells : 0;
	uint16_t qid[SW_ENQ_QUEUES];
	bool all = true;
	unsigned int s;
	uint16_t k;

	for (s = 0; s < nseg; s++) {
		uint8_t tcs = s_tcs[s] & sw->lossless;

		plain[s] = tcs == 0 ? 0 : aifab_pfc_gen_add_plain(
			&wk->eg[seg[s].port].pfc_gen, tcs, s_bytes[s], lo,
			free);
		all = all && (tcs & (uint8_t)~plain[s]) == 0;
	}
	if (likely(all) && sw_enqueue_sure(sw, wk, r, 0xff, qid) != 0) {
		for (k = 0; k < r->n; k++) {
			uint16_t q = r->q[k];
			struct aifab_qos_fifo *f =
				wk->eg[q / AIFAB_QOS_N_TC].q[q % AIFAB_QOS_N_TC];

			f->slot[f->tail & f->mask] = pkts[r->pos[k]];
			sw_enqueue_queue_done(sw, wk, inp[r->pos[k]], q,
					      f->tail + 1, r->len[k],
					      SW_CELLS(r->len[k]));
		}
		wk->buf->used += r->cells; /* nothing above reads it */
		return;
	}
	for (k = 0; k < r->n; k++)
		sw_enqueue(sw, wk, (uint16_t)(r->q[k] / AIFAB_QOS_N_TC),
			   (uint8_t)(r->q[k] % AIFAB_QOS_N_TC), pkts[r->pos[k]],
			   RTE_ETHER_HDR_LEN, plain[sidx[r->pos[k]]]);
}

/* A MAC address's 6 bytes as the low 48 bits of an 8-byte little-endian
 * load of them. */
static inline uint64_t
sw_mac48(const struct rte_ether_addr *a)
{
	uint32_t lo;
	uint16_t hi;

	memcpy(&lo, a->addr_bytes, sizeof(lo));
	memcpy(&hi, a->addr_bytes + 4, sizeof(hi));
	return rte_le_to_cpu_32(lo) | (uint64_t)rte_le_to_cpu_16(hi) << 32;
}

/* Headers prefetched this many frames ahead (as sw_ingress()), and the
 * mbufs themselves twice as far: the header's address is read from the
 * mbuf's first line, which at 4 KB frames the RX copies of the frames
 * after it have pushed out of L1 and L2 (a demand miss there held ~20%
 * of the fused walk's samples at 4154 B). */
#define SW_FUSED_PREFETCH 8

/*
 * The common burst in one pass of checks and two of work: every frame
 * untagged IPv4 UDP (RoCEv2 or not) without options or fragmentation, its
 * headers in the first segment, aifab_pkt_parse_udp4_fast()'s checks
 * passed, to its RX port's MAC with TTL > 1, and the ECMP hash CRC32C.
 * The first walk checks each frame and keeps what routing reads (the
 * destination, lengths, TOS, the ECMP hash: a pure function, taken for
 * every frame) in small arrays, not a struct aifab_pkt_info per frame;
 * a frame that is anything else ends it with nothing done, and the burst
 * goes the general way (sw_ingress()). Then the receive counters, one
 * bulk LPM, and one walk that resolves and rewrites as sw_resolve()'s
 * second pass (its drops, counters and order), and the enqueue as
 * sw_route()'s. The same counters, bytes and order as sw_ingress() +
 * sw_route() on such a burst.
 * The burst is @p nseg segments of @p seg (one RX port's frames each, in
 * order); with @p multi false, one (sw_fused()), and the port is a
 * constant of the walks. Several (sw_fused_segs()) do what the
 * segments' bursts one after the other would: nothing a frame's routing
 * reads depends on the frames before it but the enqueue's buffer and
 * PFC state, which the enqueue takes frame by frame in order (or shows
 * it need not: sw_route_enqueue_segs()).
 * @return false, having changed nothing: not a common burst.
 */
static __rte_always_inline bool
sw_fused_body(struct sw *sw, struct sw_worker *wk, struct rte_mbuf **pkts,
	      uint16_t n, const struct sw_seg *seg, unsigned int nseg,
	      const bool multi)
{
	uint32_t ip4[SW_CHUNK], target[SW_CHUNK], hash[SW_CHUNK];
	uint32_t len[SW_CHUNK], ip_len[SW_CHUNK];
	uint8_t tos[SW_CHUNK];
	/* multi: per position, its RX port and segment; per segment, what
	 * it received, and its routed frames' TCs and bytes */
	uint16_t inp[SW_CHUNK];
	uint8_t sidx[SW_CHUNK], s_tcs[SW_CHUNK];
	uint64_t s_rxb[SW_CHUNK], s_bytes[SW_CHUNK];
	uint32_t s_roce[SW_CHUNK];
	const struct aifab_ecmp_cfg *ecfg = &sw->ecmp_cfg;
	const struct aifab_fib_nh *nhs = sw->fib->nh;
	uint64_t macw; /* the RX port's MAC as the low 48 bits of a load */
	const bool csum = sw->check_csum;
	const uint32_t mtu_min = sw->mtu_min;
	const bool tpf = sw->n_groups > SW_TGT_PREFETCH_MIN;
	uint32_t n_roce = 0;
	uint64_t rx_bytes = 0, bytes = 0, cells = 0;
	uint16_t in_port = seg[0].port;
	uint64_t qall = 0;
	struct sw_routed r;
	/* the last target resolved (none yet: a value no lookup gives) */
	uint32_t t_id = UINT32_MAX - 1;
	const struct sw_target *t = NULL;
	const struct aifab_ecmp_group *g = NULL;
	uint64_t *ctr = NULL;
	unsigned int pick = 0;
	uint32_t bmask = 0;
	/* what the walk reads of sw for every frame, in registers: its
	 * stores into the frames (char) would make the compiler read them
	 * again each time */
	const uint8_t *dscp_tc = sw->map.dscp_tc;
	const uint8_t (*nh_l2)[2 * RTE_ETHER_ADDR_LEN] = sw->nh_l2;
	/* the hash's configuration, in registers for the same reason */
	const uint32_t h_seed = ecfg->seed, h_ports = ecfg->ports_mask;
	const uint32_t h_extra = ecfg->extra_mask;
	const uint64_t h_addrs = (uint64_t)ecfg->dst_mask << 32 |
		ecfg->src_mask;
	const bool h_xw = ecfg->extra_word;
	uint16_t i, k = 0, end = 0;
	unsigned int s;

	if (ecfg->fn != AIFAB_ECMP_HASH_CRC32C)
		return false;
	for (i = 0; i < RTE_MIN(n, (uint16_t)SW_FUSED_PREFETCH); i++)
		rte_prefetch0(rte_pktmbuf_mtod(pkts[i], void *));
	for (; i < RTE_MIN(n, (uint16_t)(2 * SW_FUSED_PREFETCH)); i++)
		rte_prefetch0(pkts[i]);
	s = 0;
	end = seg[0].n;
	macw = sw_mac48(&sw->env.ports[in_port].mac);
	for (i = 0; i < n; i++) {
		const struct rte_mbuf *m = pkts[i];
		const uint8_t *buf = rte_pktmbuf_mtod(m, const uint8_t *);
		const uint8_t *u = buf + 34;
		uint32_t pl = m->pkt_len, tl, ulen, dqpn = 0, d, ports;
		uint64_t wd, w0, w1, sd;
		uint16_t t16;

		/* multi: the next segment's port (its sums start at 0) */
		while (multi && i == end && s + 1 < nseg) {
			s_rxb[s] = rx_bytes;
			s_roce[s] = n_roce;
			rx_bytes = 0;
			n_roce = 0;
			in_port = seg[++s].port;
			macw = sw_mac48(&sw->env.ports[in_port].mac);
			end = (uint16_t)(end + seg[s].n);
		}
		/* the same prefetches as a test of each, the usual frame's
		 * (both) with one test, in line */
		if (likely(i + 2 * SW_FUSED_PREFETCH < n)) {
			rte_prefetch0(rte_pktmbuf_mtod(
				pkts[i + SW_FUSED_PREFETCH], void *));
			rte_prefetch0(pkts[i + 2 * SW_FUSED_PREFETCH]);
		} else if (i + SW_FUSED_PREFETCH < n) {
			rte_prefetch0(rte_pktmbuf_mtod(
				pkts[i + SW_FUSED_PREFETCH], void *));
		}
		/* sw_parse()'s fast case: the header window in the first
		 * segment, and aifab_pkt_parse_udp4_fast()'s checks with
		 * lim = that window */
		if (pl < 42 || rte_pktmbuf_data_len(m) <
		    RTE_MIN(pl, (uint32_t)AIFAB_PKT_HDR_WINDOW))
			return false;
		memcpy(&wd, buf, sizeof(wd)); /* the destination MAC */
		memcpy(&w0, buf + 12, sizeof(w0));
		memcpy(&w1, buf + 20, sizeof(w1));
		w0 = rte_le_to_cpu_64(w0);
		w1 = rte_le_to_cpu_64(w1);
		/* the total length, bytes 16-17: a load of its own is
		 * fewer instructions than its two bytes out of w0 */
		memcpy(&t16, buf + 16, sizeof(t16));
		tl = rte_be_to_cpu_16(t16);
		ulen = (uint32_t)u[4] << 8 | u[5];
		/* ... and sw_ingress()'s admission: the RX port's MAC, TTL >
		 * 1 (the TTL: byte 22, bits 16-23 of w1) */
		if ((w0 & 0xffffff) != 0x450008 ||
		    (w1 & 0xff00ff3f) != 0x11000000 ||
		    tl < 20 || tl > pl - 14 || ulen < 8 || ulen > tl - 20 ||
		    ((w1 >> 16) & 0xff) <= 1 ||
		    ((rte_le_to_cpu_64(wd) ^ macw) & 0xffffffffffffull) != 0 ||
		    (csum && !aifab_ipv4_cksum20_ok(buf + 14)))
			return false;
		/* sport << 16 | dport, as the hash's ports word has them */
		memcpy(&ports, u, sizeof(ports));
		ports = rte_be_to_cpu_32(ports);
		if ((uint16_t)ports == AIFAB_ROCEV2_UDP_PORT) {
			/* the BTH checks of the fast parse (lim >= 42 + BTH:
			 * the window is min(pl, 256) and pl >= tl + 14) */
			if (ulen - 8 < AIFAB_BTH_LEN + AIFAB_ICRC_LEN ||
			    RTE_MIN(pl, (uint32_t)AIFAB_PKT_HDR_WINDOW) <
			    42 + AIFAB_BTH_LEN ||
			    ((buf[43] >> 4) & 0x3) >
			    ulen - 8 - AIFAB_BTH_LEN - AIFAB_ICRC_LEN)
				return false;
			/* aifab_get_u24(buf + 47), in one load */
			memcpy(&d, buf + 46, sizeof(d));
			dqpn = rte_be_to_cpu_32(d) & 0xffffff;
			n_roce++;
		}
		/* both addresses in one load: the source in the high half
		 * in host order, the destination (the lookup's) in the low */
		memcpy(&sd, buf + 26, sizeof(sd));
		sd = rte_be_to_cpu_64(sd);
		ip4[i] = (uint32_t)sd;
		/* aifab_ecmp_hash4_crc32c_raw() of the frame (its words:
		 * the source low, the destination high); the finalizer
		 * after the walk, over the burst */
		hash[i] = aifab_ecmp_crc32c_words4(h_seed,
			(sd >> 32 | sd << 32) & h_addrs, ports & h_ports,
			h_xw, ((uint32_t)17 << 24 | dqpn) & h_extra);
		tos[i] = buf[15];
		ip_len[i] = tl;
		len[i] = pl;
		rx_bytes += pl;
		if (multi) {
			inp[i] = in_port;
			sidx[i] = (uint8_t)s;
		}
	}
	if (multi) {
		/* the segments are the burst */
		if (end != n || s + 1 != nseg)
			return false;
		s_rxb[s] = rx_bytes;
		s_roce[s] = n_roce;
		memset(s_tcs, 0, nseg);
		memset(s_bytes, 0, nseg * sizeof(s_bytes[0]));
	}
	for (i = 0; i < n; i++) /* (4 frames an instruction: SSE4.1) */
		hash[i] = aifab_ecmp_fmix32(hash[i]);
	/* sw_ingress()'s counters (per RX port), then sw_route() */
	if (multi) {
		for (s = 0; s < nseg; s++) {
			SW_ADD(wk, sw_st_rx_pkts, seg[s].port, seg[s].n);
			SW_ADD(wk, sw_st_rx_bytes, seg[s].port, s_rxb[s]);
			SW_ADD(wk, sw_st_rx_roce, seg[s].port, s_roce[s]);
		}
	} else {
		SW_ADD(wk, sw_st_rx_pkts, in_port, n);
		SW_ADD(wk, sw_st_rx_bytes, in_port, rx_bytes);
		SW_ADD(wk, sw_st_rx_roce, in_port, n_roce);
	}
	aifab_fib_lookup4_bulk(sw->fib, ip4, target, n);
	if (tpf)
		for (i = 0; i < RTE_MIN(n, (uint16_t)SW_TGT_PREFETCH); i++)
			sw_tgt_prefetch(sw, wk, target[i]);
	memset(r.qs, 0, sizeof(r.qs));
	for (i = 0; i < n; i++) {
		struct rte_mbuf *m = pkts[i];
		uint8_t *buf, tc;
		unsigned int slot = 0;
		uint16_t member, port;
		uint64_t *c;
		uint32_t q, l = len[i], ttlw;

		if (multi)
			in_port = inp[i];
		if (tpf && i + SW_TGT_PREFETCH < n)
			sw_tgt_prefetch(sw, wk, target[i + SW_TGT_PREFETCH]);
		if (target[i] != t_id) { /* a burst is mostly one route's */
			if (unlikely(target[i] >= AIFAB_FIB_UNRESOLVED)) {
				unsigned int reason = sw_target_drop(target[i]);

				if (reason != 0) {
					sw_drop(wk, in_port, reason, m);
					continue;
				}
			}
			t_id = target[i];
			t = &sw->tgt[t_id];
			g = &wk->groups[t->group];
			ctr = &wk->ectr[2 * t->ctr];
			if (!multi) { /* (multi: targets change more often) */
				pick = g->n_members == 1 ? 0 :
					g->resilient ? 1 : 2;
				bmask = (uint32_t)(g->n_buckets - 1);
			}
		}
		/* aifab_ecmp_select() of a group with a choice (a resilient
		 * group's bucket: AIFAB_ECMP_NONE when no member is active) */
		if (!multi && pick == 1)
			slot = g->bucket[hash[i] & bmask];
		else if (multi ? g->n_members != 1 : pick == 2)
			slot = aifab_ecmp_select(g, hash[i]);
		if (unlikely(slot == AIFAB_ECMP_NONE)) {
			sw_drop(wk, in_port, SW_DROP(ecmp_no_member), m);
			continue;
		}
		c = &ctr[2 * slot];
		c[0]++;
		/* two scalar adds: as a pair gcc makes a vector add of them,
		 * which builds {1, l} first (5 instructions, not 2); an
		 * empty asm hides that c is the same pointer */
		__asm__("" : "+r"(c));
		c[1] += l;
		member = aifab_ecmp_member(g, slot);
		port = nhs[member].port;
		if (unlikely(ip_len[i] > mtu_min) &&
		    ip_len[i] > sw->env.ports[port].mtu) {
			sw_drop(wk, in_port, SW_DROP(mtu_exceeded), m);
			continue;
		}
		/* aifab_qos_classify() of an untagged frame: DSCP, whatever
		 * the trust */
		tc = dscp_tc[tos[i] >> 2];
		buf = rte_pktmbuf_mtod(m, uint8_t *);
		memcpy(buf, nh_l2[member], sizeof(nh_l2[0]));
		/* aifab_ipv4_dec_ttl_inline(): the first walk admitted only
		 * TTL > 1 */
		memcpy(&ttlw, buf + 22, sizeof(ttlw));
		ttlw = rte_cpu_to_le_32(aifab_ipv4_dec_ttl_word(
			rte_le_to_cpu_32(ttlw)));
		memcpy(buf + 22, &ttlw, sizeof(ttlw));
		m->hash.usr = SW_META(in_port, tc);
		q = sw_queue(port, tc);
		r.qs[q / 64] |= 1ull << (q % 64);
		r.q[k] = (uint16_t)q;
		r.len[k] = l;
		if (multi) {
			s_tcs[sidx[i]] |= (uint8_t)(1u << tc);
			s_bytes[sidx[i]] += l;
		}
		r.pos[k++] = i;
	}
	r.n = k;
	/* the TCs routed: a queue's bit is its port's byte's TC bit
	 * (sw_queue(), 8 TCs), so every port's byte of the set ORed */
	RTE_BUILD_BUG_ON(AIFAB_QOS_N_TC != 8);
	for (i = 0; i < RTE_DIM(r.qs); i++)
		qall |= r.qs[i];
	qall |= qall >> 32;
	qall |= qall >> 16;
	qall |= qall >> 8;
	r.tcs = (uint8_t)qall;
	/* the routed frames' bytes and cells: a pass of their own over
	 * r.len (vectors), not two more sums live through the walk */
	for (i = 0; i < k; i++) {
		bytes += r.len[i];
		cells += SW_CELLS(r.len[i]);
	}
	r.bytes = bytes;
	r.cells = cells;
	if (multi)
		sw_route_enqueue_segs(sw, wk, pkts, &r, seg, nseg, s_tcs,
				      s_bytes, inp, sidx);
	else
		sw_route_enqueue(sw, wk, in_port, pkts, &r, NULL);
	return true;
}

/* sw_fused_body() of one RX port's burst. */
bool
sw_fused(struct sw *sw, struct sw_worker *wk, uint16_t in_port,
	 struct rte_mbuf **pkts, uint16_t n)
{
	const struct sw_seg seg = { .port = in_port, .n = n };

	return sw_fused_body(sw, wk, pkts, n, &seg, 1, false);
}

/* sw_fused_body() of several RX ports' bursts, one after the other
 * (@p nseg segments of @p seg, @p n frames in all, at most SW_CHUNK). */
bool
sw_fused_segs(struct sw *sw, struct sw_worker *wk, struct rte_mbuf **pkts,
	      uint16_t n, const struct sw_seg *seg, unsigned int nseg)
{
	return sw_fused_body(sw, wk, pkts, n, seg, nseg, true);
}
