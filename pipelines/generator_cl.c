/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The generator's closed loop: RC reliability and DCQCN glued onto the
 * ranks' schedules.
 *
 *  - receiver (responder + notification point, per QP): lib/rc's
 *    responder decides ACK / NAK / nothing for each data packet; a
 *    CE-marked packet asks lib/dcqcn's notification point for a CNP; the
 *    frames are built by lib/roce and sent from the receiving rank's port.
 *    A completed message is a delivered chunk: it may release the next
 *    step of the receiving rank.
 *  - sender (requester + reaction point, per QP): messages are posted to
 *    lib/rc's requester when their step's dependency is met; its packets
 *    (new or go-back-N retransmissions from the PSN ring) become segments
 *    for lib/roce's builder; ACKs and NAKs move its window, the retransmit
 *    timer is polled every loop; CNPs cut the QP's DCQCN rate, which paces
 *    the QP (the rank's token bucket still caps the sum).
 *
 * Arrivals are kept per receiving rank, per schedule entry and iteration
 * parity: a sender can run at most one iteration ahead of a receiver (it
 * cannot end iteration i + 1 before the receiver has started it).
 */
#include <string.h>

#include <rte_common.h>
#include <rte_malloc.h>
#include <rte_mbuf.h>

#include "generator_priv.h"

#define CL_REAP 16

/* Bytes QP @p q of an entry of @p bytes carries. */
static inline uint64_t
split(uint64_t bytes, uint32_t nq, uint32_t q)
{
	return bytes / nq + (q < bytes % nq);
}

/* ---- receiver --------------------------------------------------------------- */

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
		    split(s->sched[e].bytes, g->p.qps_per_conn, cn->q) > 0)
			return e;
	return UINT32_MAX;
}

/* Step @p k of iteration @p it: a chunk from @p sender was delivered. */
static void
stat_arrive(struct gen *g, uint32_t it, uint32_t k, uint32_t sender,
	    uint64_t now, struct gen_port *gp)
{
	struct gen_iter_stat *st = &g->ist[it % GEN_STAT_SLOTS];

	if (st->iter != it) {
		if (st->iter != UINT32_MAX) {
			gp->ctr[GEN_STAT_OVERRUN]++;
			return;
		}
		st->iter = it;
		memset(st->end, 0, sizeof(st->end[0]) * g->n_steps);
		memset(st->last, 0, sizeof(st->last[0]) * g->n_steps);
	}
	if (now >= st->end[k]) {
		st->end[k] = now;
		st->last[k] = sender;
	}
}

/* The message at the head of @p cn completed at its receiver. */
static void
delivered(struct gen *g, struct gen_conn *cn, uint64_t now,
	  struct gen_port *gp)
{
	struct gen_rank *rk = &g->ranks[cn->dst];
	uint32_t e = cn->rx_e, it = cn->rx_iter, par = it & 1;

	if (e == UINT32_MAX)
		return; /* cannot happen: nothing is sent on such a QP */
	rk->got_total[par]++;
	if (++rk->got[par][e] == rk->need[e])
		stat_arrive(g, it, e / g->n_chan, cn->src, now, gp);
	cn->rx_e = conn_next_entry(g, cn, e + 1);
	if (cn->rx_e == UINT32_MAX) {
		cn->rx_iter++;
		cn->rx_e = conn_next_entry(g, cn, 0);
	}
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

/* Run-wide counters move with lib/rc's and lib/dcqcn's per-QP ones: what
 * a call added to QP counter @p c (read before it as @p before). */
#define GEN_DELTA(g, gi, cnt, c, before) \
	((g)->glob[gi] += (cnt)[c] - (before))

static void
rx_data(struct gen *g, uint16_t p, struct rte_mbuf *m,
	const struct aifab_pkt_info *pi, uint64_t now)
{
	struct gen_port *gp = &g->port[p];
	struct gen_conn *cn = gen_conn_of_rqpn(g, pi->dqpn);
	struct aifab_rc_resp_action act;
	struct gen_rank *rk;
	struct rte_mbuf *r;
	uint8_t b8, tmp;
	const uint8_t *bp;
	int flags;

	if (cn == NULL) {
		gp->ctr[GEN_RX_UNKNOWN_QP]++;
		return;
	}
	rk = &g->ranks[cn->dst];
	aifab_roce_rx_psn(&cn->rx, pi->psn);
	bp = rte_pktmbuf_read(m, pi->bth_off + 8, 1, &tmp);
	b8 = bp != NULL ? *bp : 0;
	flags = aifab_rc_opcode_flags(pi->bth_opcode);
	if (b8 & 0x80)
		flags |= AIFAB_RC_F_ACK_REQ;
	if ((pi->tos & 3) == 3) {
		gp->ctr[GEN_RX_CE]++;
		g->glob[GEN_G_CE_RX]++;     /* lib/dcqcn: ce_rx per call */
		if (aifab_dcqcn_np_on_ce(&rk->dq, &cn->np, now)) {
			g->glob[GEN_G_CNP_TX]++; /* and cnp_tx when true */
			r = aifab_roce_build_cnp(&cn->qp, g->cnp_tos, g->hdr_pool);
			if (r == NULL)
				gp->ctr[GEN_TX_NOMBUF]++;
			else if (gen_tx_ctl(g, rk->port, r, true, now))
				g->port[rk->port].ctr[GEN_TX_CNP]++;
		}
	}
	{
		const uint64_t *rc = cn->resp.cnt;
		uint64_t a0 = rc[AIFAB_RC_RESP_CNT_ACKS_TX];
		uint64_t n0 = rc[AIFAB_RC_RESP_CNT_NAKS_TX];
		uint64_t d0 = rc[AIFAB_RC_RESP_CNT_RX_DUP];
		uint64_t o0 = rc[AIFAB_RC_RESP_CNT_RX_OOS];
		uint64_t b0 = rc[AIFAB_RC_RESP_CNT_RX_BYTES];

		aifab_rc_resp_on_data(&cn->resp, pi->psn, payload_len(m, pi),
				      (unsigned int)flags, &act);
		GEN_DELTA(g, GEN_G_ACKS_TX, rc, AIFAB_RC_RESP_CNT_ACKS_TX, a0);
		GEN_DELTA(g, GEN_G_NAKS_TX, rc, AIFAB_RC_RESP_CNT_NAKS_TX, n0);
		GEN_DELTA(g, GEN_G_DUP_RX, rc, AIFAB_RC_RESP_CNT_RX_DUP, d0);
		GEN_DELTA(g, GEN_G_OOS_RX, rc, AIFAB_RC_RESP_CNT_RX_OOS, o0);
		GEN_DELTA(g, GEN_G_DELIVERED, rc, AIFAB_RC_RESP_CNT_RX_BYTES,
			  b0);
	}
	if (act.reply != AIFAB_RC_REPLY_NONE) {
		r = aifab_roce_build_ack(&cn->qp, act.psn, act.syndrome, act.msn,
					 (uint8_t)(cn->qp.cfg.dscp << 2 |
						   cn->qp.cfg.ecn),
					 g->hdr_pool);
		if (r == NULL)
			gp->ctr[GEN_TX_NOMBUF]++;
		else if (gen_tx_ctl(g, rk->port, r, false, now))
			g->port[rk->port].ctr[act.reply == AIFAB_RC_REPLY_NAK ?
					      GEN_TX_NAK : GEN_TX_ACK]++;
	}
	if (act.message_completed)
		delivered(g, cn, now, gp);
}

/* ---- sender ----------------------------------------------------------------- */

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
	uint64_t cookies[CL_REAP];
	unsigned int n;

	while ((n = aifab_rc_req_reap(cn->req, cookies, CL_REAP)) > 0)
		g->ranks[cn->src].msgs_out -= n;
}

static void
rx_ack(struct gen *g, uint16_t p, struct rte_mbuf *m,
       const struct aifab_pkt_info *pi, uint64_t now)
{
	struct gen_port *gp = &g->port[p];
	struct gen_conn *cn = gen_conn_of_sqpn(g, pi->dqpn);
	uint8_t tmp;
	const uint8_t *syn;

	syn = rte_pktmbuf_read(m, pi->bth_off + AIFAB_BTH_LEN, 1, &tmp);
	if (cn == NULL || syn == NULL) {
		gp->ctr[GEN_RX_UNKNOWN_QP]++;
		return;
	}
	if ((*syn & 0x60) == 0) {
		uint64_t before = cn->req->cnt[AIFAB_RC_REQ_CNT_ACKS_RX];

		gp->ctr[GEN_RX_ACK]++;
		if (aifab_rc_req_on_ack(cn->req, pi->psn, now) > 0)
			reap(g, cn);
		GEN_DELTA(g, GEN_G_ACKS_RX, cn->req->cnt,
			  AIFAB_RC_REQ_CNT_ACKS_RX, before);
	} else if (*syn == AIFAB_RC_SYN_NAK_PSN_SEQ) {
		struct gen_iter_rec *ir = oldest_rec(g, cn);
		uint64_t before = cn->req->cnt[AIFAB_RC_REQ_CNT_NAKS_RX];

		gp->ctr[GEN_RX_NAK]++;
		if (aifab_rc_req_on_nak(cn->req, pi->psn, now) > 0)
			reap(g, cn);
		if (ir != NULL)
			ir->naks_rx += cn->req->cnt[AIFAB_RC_REQ_CNT_NAKS_RX] -
				before;
		GEN_DELTA(g, GEN_G_NAKS_RX, cn->req->cnt,
			  AIFAB_RC_REQ_CNT_NAKS_RX, before);
	} else {
		gp->ctr[GEN_RX_NAK_OTHER]++;
	}
}

static void
rx_cnp(struct gen *g, uint16_t p, const struct aifab_pkt_info *pi,
       uint64_t now)
{
	struct gen_port *gp = &g->port[p];
	struct gen_conn *cn = gen_conn_of_sqpn(g, pi->dqpn);

	if (cn == NULL) {
		gp->ctr[GEN_RX_UNKNOWN_QP]++;
		return;
	}
	gp->ctr[GEN_RX_CNP]++;
	g->glob[GEN_G_CNP_RX]++;
	if (g->p.dcqcn) {
		uint64_t before = cn->rp.cnt[AIFAB_DCQCN_RP_CNT_RATE_CUTS];

		aifab_dcqcn_rp_on_cnp(&g->ranks[cn->src].dq, &cn->rp, now);
		GEN_DELTA(g, GEN_G_RATE_CUTS, cn->rp.cnt,
			  AIFAB_DCQCN_RP_CNT_RATE_CUTS, before);
		if (cn->rate_n > 0 && cn->rp.min_rc < g->rate_min)
			g->rate_min = cn->rp.min_rc;
	}
}

void
gen_cl_rx(struct gen *g, uint16_t p, struct rte_mbuf *m,
	  const struct aifab_pkt_info *pi, uint64_t now)
{
	if (aifab_rc_opcode_flags(pi->bth_opcode) >= 0)
		rx_data(g, p, m, pi, now);
	else if (pi->bth_opcode == AIFAB_BTH_OP_ACK)
		rx_ack(g, p, m, pi, now);
	else if (pi->bth_opcode == AIFAB_BTH_OP_CNP)
		rx_cnp(g, p, pi, now);
	else
		g->port[p].ctr[GEN_RX_ROCE_OTHER]++;
}

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

		if (split(s->bytes, nq, q) > 0 &&
		    cn->n_posted - cn->req->msg_reaped > cn->msg_mask)
			return false;
	}
	for (q = 0; q < nq; q++, off += b) {
		struct gen_conn *cn;
		struct gen_msg *gm;

		b = split(s->bytes, nq, q);
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
		if (!cn->in_act) {
			cn->in_act = true;
			rk->act[rk->n_act++] = ci;
		}
	}
	return true;
}

/* Post every step whose chunk from the predecessor has arrived. */
static void
post_ready(struct gen *g, struct gen_rank *rk)
{
	uint32_t c, e, par = rk->iter & 1, de;
	int32_t dep;

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
static struct gen_conn *
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

/* Build and queue one packet of @p cn: 1, or -1 out of mbufs. */
static int
send_one(struct gen *g, struct gen_rank *rk, struct gen_conn *cn, uint32_t r,
	 uint64_t now)
{
	struct aifab_roce_tag_info ti = { .rank = (uint16_t)r, .tx_tsc = now };
	struct aifab_roce_seg seg;
	struct aifab_rc_pkt pk;
	const struct gen_msg *gm;
	struct rte_mbuf *m;
	uint32_t slot, wire;
	double rate, gap, lo;

	if (cn->has_pend) {
		seg = cn->pend;
		slot = cn->pend_msg;
		cn->has_pend = false;
	} else {
		if (aifab_rc_req_next(cn->req, now, &pk) != 0)
			return 0;
		slot = (uint32_t)pk.cookie & cn->msg_mask;
		gm = &cn->msgs[slot];
		if (pk.flags & AIFAB_RC_F_RETX) {
			g->irec[gm->iter].retx_packets++;
			g->irec[gm->iter].retx_bytes += pk.len;
			g->glob[GEN_G_RETX_PKTS]++;
			g->glob[GEN_G_RETX_BYTES] += pk.len;
		}
		aifab_roce_seg_make(&seg, cn->qp.cfg.remote_va + gm->va_off,
				    pk.msg_len, pk.offset, pk.len, pk.psn,
				    pk.flags & AIFAB_RC_F_FIRST,
				    pk.flags & AIFAB_RC_F_LAST);
	}
	gm = &cn->msgs[slot];
	ti.step = gm->step;
	ti.iter = gm->iter;
	m = aifab_roce_build(&cn->qp, &seg, &ti, g->hdr_pool, g->ext_pool);
	if (m == NULL) {
		cn->pend = seg;
		cn->pend_msg = slot;
		cn->has_pend = true;
		g->port[rk->port].ctr[GEN_TX_NOMBUF]++;
		return -1;
	}
	wire = m->pkt_len + GEN_WIRE_EXTRA;
	rk->tokens -= (int64_t)wire << GEN_FP;
	gen_tx_data(g, rk->port, m, now);
	if (g->p.dcqcn) {
		aifab_dcqcn_rp_on_bytes_sent(&rk->dq, &cn->rp, wire, now);
		rate = aifab_dcqcn_rp_rate(&cn->rp);
		gap = (double)wire * 8.0 * (double)g->hz / (rate * 1e6);
		cn->pace_t = RTE_MAX(cn->pace_t, (double)now - gap) + gap;
	} else {
		rate = rk->line_mbps;
	}
	if (cn->rate_n++ == 0) {
		g->n_rated++;
		lo = g->p.dcqcn ? cn->rp.min_rc : rk->line_mbps;
		if (g->rate_min < 0 || lo < g->rate_min)
			g->rate_min = lo;
	}
	cn->rate_sum += rate;
	g->rate_last_sum += rate - cn->rate_last;
	cn->rate_last = rate;
	return 1;
}

/* Retransmit timers of the rank's QPs; QPs with nothing left leave. */
static void
timers_and_prune(struct gen *g, struct gen_rank *rk, uint64_t now)
{
	uint32_t i = 0;

	while (i < rk->n_act) {
		struct gen_conn *cn = &g->conns[rk->act[i]];
		uint64_t before = cn->req->cnt[AIFAB_RC_REQ_CNT_TIMEOUTS];
		struct gen_iter_rec *ir;

		aifab_rc_req_poll_timeout(cn->req, now);
		if (cn->req->cnt[AIFAB_RC_REQ_CNT_TIMEOUTS] != before) {
			if ((ir = oldest_rec(g, cn)) != NULL)
				ir->timeouts += cn->req->cnt[
					AIFAB_RC_REQ_CNT_TIMEOUTS] - before;
			GEN_DELTA(g, GEN_G_TIMEOUTS, cn->req->cnt,
				  AIFAB_RC_REQ_CNT_TIMEOUTS, before);
		}
		if (cn->req->msg_reaped == cn->n_posted && !cn->has_pend) {
			cn->in_act = false;
			rk->act[i] = rk->act[--rk->n_act];
			continue;
		}
		i++;
	}
}

static void
iter_begin(struct gen *g, struct gen_rank *rk, uint64_t now)
{
	g->iter_start[rk->iter] = RTE_MIN(g->iter_start[rk->iter], now);
	memset(rk->cstep, 0, sizeof(rk->cstep[0]) * g->n_chan);
	rk->ch_done = 0;
	rk->state = RANK_SEND;
}

unsigned int
gen_cl_rank_poll(struct gen *g, uint32_t r, uint64_t now)
{
	struct gen_rank *rk = &g->ranks[r];
	struct gen_port *gp = &g->port[rk->port];
	unsigned int sent = 0;
	struct gen_conn *cn;

	gen_bucket_refill(rk, now);
	rk->backlogged = false;
	if (rk->state == RANK_DONE)
		return 0;
	if (rk->state == RANK_WAIT) {
		if (now < rk->next_start)
			return 0;
		iter_begin(g, rk, now);
	}
	post_ready(g, rk);
	timers_and_prune(g, rk, now);
	while (sent < g->p.burst_pkts) {
		if (rk->rate_fp != 0 && rk->tokens <= 0) {
			rk->backlogged = true;
			break;
		}
		if (gen_data_paused(g, rk->port, now))
			break;
		if (gp->n_tx == GEN_TXBUF) {
			gen_tx_flush(g, rk->port, now);
			if (gp->n_tx == GEN_TXBUF)
				break;
		}
		cn = pick(g, rk, now);
		if (cn == NULL || send_one(g, rk, cn, r, now) < 0)
			break;
		sent++;
	}
	if (rk->ch_done == g->n_chan && rk->msgs_out == 0 &&
	    rk->got_total[rk->iter & 1] == rk->need_total)
		gen_iter_rank_done(g, rk, r, now);
	return sent;
}

/* ---- building ----------------------------------------------------------------- */

#define BAD(...) do { snprintf(err, errlen, "generator: " __VA_ARGS__); \
		      return -1; } while (0)

/* Every send is expected by its receiver at the same entry index: the
 * receiver's entry e names the sender as recv_from. */
static int
build_need(struct gen *g, char *err, size_t errlen)
{
	uint32_t r, e, n = g->n_steps * g->n_chan, nq = g->p.qps_per_conn;

	for (r = 0; r < g->p.n_ranks; r++) {
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
	for (r = 0; r < g->p.n_ranks; r++) {
		struct gen_rank *rk = &g->ranks[r];

		rk->cstep = rte_zmalloc_socket("gen_cstep", sizeof(uint32_t) *
					       g->n_chan, 0, socket);
		rk->need = rte_zmalloc_socket("gen_need", n, 0, socket);
		rk->got[0] = rte_zmalloc_socket("gen_got", n, 0, socket);
		rk->got[1] = rte_zmalloc_socket("gen_got", n, 0, socket);
		if (rk->cstep == NULL || rk->need == NULL ||
		    rk->got[0] == NULL || rk->got[1] == NULL)
			BAD("out of memory (raise -m)");
		if (build_dcqcn(g, rk, err, errlen) != 0)
			return -1;
	}
	if (build_need(g, err, errlen) != 0)
		return -1;
	for (i = 0; i < g->n_conns; i++)
		if (build_conn(g, &g->conns[i], m, socket) != 0)
			BAD("window = '%u' / max messages %u for %u QPs: "
			    "invalid or out of memory; allowed: window "
			    "1..%u, raise -m", g->p.window, m, g->n_conns,
			    AIFAB_RC_MAX_WINDOW);
	for (k = 0; k < GEN_STAT_SLOTS; k++) {
		g->ist[k].iter = UINT32_MAX;
		g->ist[k].end = rte_zmalloc_socket("gen_ist", sizeof(uint64_t) *
						   g->n_steps, 0, socket);
		g->ist[k].last = rte_zmalloc_socket("gen_ist", sizeof(uint32_t) *
						    g->n_steps, 0, socket);
		if (g->ist[k].end == NULL || g->ist[k].last == NULL)
			BAD("out of memory (raise -m)");
	}
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
	for (i = 0; i < GEN_STAT_SLOTS; i++) {
		rte_free(g->ist[i].end);
		rte_free(g->ist[i].last);
	}
	rte_free(g->step_sum_us);
	rte_free(g->slow_count);
}
