/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The generator's closed loop on the whole-process virtual clock, judged
 * against brute force (docs/virtual-time.md, "next_event").
 *
 * A small copy of app/vclock.c's loop drives two generators built from
 * the same parameters, each on its own two ring ports: the clock jumps
 * to the earliest of the next arrival and generator A's next_event(),
 * delivers what is due, polls the workers, and puts what they sent on a
 * wire per destination port (serialized at the port speed, a fixed
 * cable delay; data CE-marked while the port's backlog exceeds a
 * threshold, data and ACKs dropped at seeded random, PFC XOFF / XON for
 * the data priority injected at seeded random instants, and a step of
 * "another pipeline" at the instant each XOFF ends), so every kind of
 * key the generator keeps matters: token times (ranks of two rates),
 * DCQCN paces (rate cuts from the CNPs; whole-ns paces too), retransmit
 * deadlines (NAKs and timeouts), the waits of `gap_ns`, queues and
 * ranks held by a pause. Each run prints how often each kind gave the
 * answer. Five runs (4 to 130 ranks, 1 and 2 workers) take about half
 * a second.
 *
 * Generator A is asked next_event() at every step, which switches its
 * rank sets on (a poll visits only the ranks whose poll may change
 * something; next_event() reads per-rank keys and their least per 64
 * ranks, generator_vclock.c). Generator B is never asked: its polls
 * visit every rank. At every step, for every worker:
 *
 *  - A's next_event() equals the oracle below, which asks every rank of
 *    the worker directly (its state, its active QPs' requesters, their
 *    paces: no key, no summary, no vc_* field) from the rules of
 *    docs/virtual-time.md: a queue waiting, a frame time from now; a
 *    sending rank's QP with a packet, the first instant from a frame
 *    time from now at which its rank's token bucket, refilled, is
 *    positive (found by a search over the refill formula, not by the
 *    division the generator uses) and its DCQCN pace allows (pick()'s
 *    test, pace_t <= now); a QP waiting for ACKs, its retransmit
 *    deadline; a waiting rank, its next start; those at least now + 1;
 *  - the oracle gives the same answer on B's state;
 *  - A and B sent the same frames, byte for byte, from the same ports,
 *    at the same step;
 * and at the end both have the same summary and port counters.
 *
 * Mutations of generator_vclock.c this catches (each tried by hand and
 * reverted, 2026-11-26; "closed" says whether test_gen_closed did):
 *  - gen_vclock_acked() not remaking the keys of a rank an ACK or NAK
 *    reached (its rank_settle() left out; closed: passed): "4 ranks:
 *    step 12 at 1002300 ns, worker 0: next_event() 1030000 ns, the
 *    oracle 1002655 (rank 1: a frame time)";
 *  - key_put() not marking a word dirty when its least key went up, a
 *    stale 64-rank summary (closed: passed): "next_event() 1002637 ns,
 *    the oracle 1030000 (rank 0: deadline)";
 *  - rank_ta() without its + 1 (closed: passed): "6 ranks, tokens: step
 *    17 at 4877 ns, worker 0: next_event() 6163 ns, the oracle 6164
 *    (rank 1: tokens)";
 *  - rank_keys() taking the deadline key one ns late (closed: passed):
 *    "next_event() 1030001 ns, the oracle 1030000 (rank 0: deadline)";
 *  - the pace answered floor(pace_t) + 1 (the code before this test,
 *    one ns late on a whole pace; closed: passed): "4 ranks, whole
 *    paces: step 32 at 1008750 ns, worker 0: next_event() 1009491 ns,
 *    the oracle 1009490 (rank 0: pace)";
 *  - rank_wake() a paused rank's wake one ns after the pause ends
 *    (closed: passed): "4 ranks: step 307 at 1056627 ns: port 1: rank
 *    sets sent 1 frames, every rank 3";
 *  - rank_wake() ignoring timer_next, wake_due() taking only wakes
 *    before now, gen_vclock_pause_changed() marking nothing (closed:
 *    failed too): "rank sets sent 0 frames, every rank 2" and the like.
 * Not caught, and equivalent as far as we can tell (a visit more, of a
 * rank that can only refill its bucket): a paused rank woken at now + 1
 * instead of the pause's end; gen_vclock_acked() remaking the keys of a
 * rank already due.
 *
 * Deterministic: the seeds and the start instant are the workloads'
 * fields; nothing reads a clock of the machine.
 */
#include <inttypes.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <rte_eth_ring.h>
#include <rte_ethdev.h>
#include <rte_mbuf.h>
#include <rte_ring.h>

#include "generator_priv.h"
#include "unit_common.h"
#include "unit_judges.h"

#define TSC_HZ 1000000000ull
#define N_PORTS 2               /* per generator: ranks alternate */
#define N_INST 2                /* A: rank sets, B: every rank */
#define MAX_WORKERS 2
#define MTU 1024
#define BASE_IP 0x0A640001u
#define QPN_BASE 0x100
#define SPEED_MBPS 40000        /* each port's wire */
#define RATE_MBPS 25000         /* each rank: two ranks overrun a port */
#define CABLE_NS 500
#define RING_SZ 4096
#define FRAME_MAX 9216
#define MAX_FLIGHT 65536        /* frames on a wire, per instance */
#define MAX_STEPS 4000000u
#define MAX_EXT 64

/* next_event()'s "a frame time from now": one frame of ib_mtu payload
 * and 88 bytes more (headers, FCS, preamble, gap) at the fastest rank's
 * rate (run_workload() sets it from the workload). */
static uint64_t step_ns;
#define STEP_NS step_ns

/* ---- the workloads ---------------------------------------------------------- */

struct workload {
	const char *name;
	uint32_t n_ranks;
	unsigned int workers;
	uint32_t iters;
	uint64_t size_per_rank;     /* S / N */
	uint32_t channels, qps;     /* 0: the defaults */
	uint32_t rate_mbps;         /* per rank; 0: port speed / its ranks */
	uint16_t mtu;               /* ib_mtu (0: MTU) */
	uint32_t speed1_mbps;       /* port 1 (0: SPEED_MBPS, as port 0) */
	bool dcqcn;
	uint32_t drop_data_ppm, drop_ack_ppm; /* per frame, seeded */
	uint64_t ecn_backlog_ns;    /* CE-mark data queued behind this */
	uint64_t pfc_every_ns;      /* mean gap of injected PFC (0: none) */
	uint64_t rto_ns;
	uint64_t gap_ns;
	uint64_t t0;                /* the clock's start */
	uint64_t seed;              /* the network's draws */
	uint64_t gen_seed;          /* [generator] seed */
};

/* ---- environment ------------------------------------------------------------ */

struct inst {
	struct rte_ring *rx[N_PORTS], *tx[N_PORTS];
	int port[N_PORTS];
	struct aifab_port_rt rt[N_PORTS];
	void *g;
};

static struct {
	struct rte_mempool *pool;
	struct inst in[N_INST];
} env;

static int
eal_up(void **state)
{
	struct rte_eth_conf conf = { 0 };
	struct rte_ring *txr[MAX_WORKERS];
	char name[64];
	unsigned int i, p, q;

	if (unit_eal_up(state) != 0)
		return -1;
	env.pool = rte_pktmbuf_pool_create("tne_pool", 1023, 0, 0,
					   RTE_MBUF_DEFAULT_BUF_SIZE, 0);
	if (env.pool == NULL)
		return -1;
	for (i = 0; i < N_INST; i++)
		for (p = 0; p < N_PORTS; p++) {
			struct inst *in = &env.in[i];
			uint16_t id;

			snprintf(name, sizeof(name), "tne_rx%u%u", i, p);
			in->rx[p] = rte_ring_create(name, RING_SZ, 0,
				RING_F_SP_ENQ | RING_F_SC_DEQ);
			snprintf(name, sizeof(name), "tne_tx%u%u", i, p);
			in->tx[p] = rte_ring_create(name, RING_SZ, 0,
						    RING_F_SC_DEQ);
			if (in->rx[p] == NULL || in->tx[p] == NULL)
				return -1;
			for (q = 0; q < MAX_WORKERS; q++)
				txr[q] = in->tx[p];
			snprintf(name, sizeof(name), "tne_port%u%u", i, p);
			in->port[p] = rte_eth_from_rings(name, &in->rx[p], 1,
							 txr, MAX_WORKERS, 0);
			if (in->port[p] < 0)
				return -1;
			id = (uint16_t)in->port[p];
			if (rte_eth_dev_configure(id, 1, MAX_WORKERS,
						  &conf) != 0 ||
			    rte_eth_rx_queue_setup(id, 0, 256, 0, NULL,
						   env.pool) != 0)
				return -1;
			for (q = 0; q < MAX_WORKERS; q++)
				if (rte_eth_tx_queue_setup(id, (uint16_t)q,
							   256, 0, NULL) != 0)
					return -1;
			if (rte_eth_dev_start(id) != 0)
				return -1;
		}
	return 0;
}

static int
eal_down(void **state)
{
	unsigned int i, p;

	for (i = 0; i < N_INST; i++)
		for (p = 0; p < N_PORTS; p++) {
			rte_eth_dev_stop((uint16_t)env.in[i].port[p]);
			rte_eth_dev_close((uint16_t)env.in[i].port[p]);
			rte_ring_free(env.in[i].rx[p]);
			rte_ring_free(env.in[i].tx[p]);
		}
	rte_mempool_free(env.pool);
	return unit_eal_down(state);
}

static uint32_t
port_speed(const struct workload *wl, unsigned int p)
{
	return p == 1 && wl->speed1_mbps != 0 ? wl->speed1_mbps : SPEED_MBPS;
}

static uint16_t
wl_mtu(const struct workload *wl)
{
	return wl->mtu != 0 ? wl->mtu : MTU;
}

/* A frame time at the fastest rank (ranks alternate the ports). */
static uint64_t
frame_time(const struct workload *wl)
{
	uint64_t fastest = wl->rate_mbps;
	uint64_t bits_k = ((uint64_t)wl_mtu(wl) + 88) * 8000;
	unsigned int p;
	uint32_t on;

	for (p = 0; wl->rate_mbps == 0 && p < N_PORTS; p++) {
		on = wl->n_ranks / N_PORTS + (p < wl->n_ranks % N_PORTS);
		fastest = RTE_MAX(fastest, (uint64_t)port_speed(wl, p) / on);
	}
	return RTE_MAX(bits_k / fastest, (uint64_t)1);
}

static void *
gen_make(struct inst *in, const struct workload *wl)
{
	struct aifab_gen_params p;
	struct aifab_env e = { .n_ports = N_PORTS, .tsc_hz = TSC_HZ,
			       .ports = in->rt };
	char err[512];
	unsigned int k;
	void *g;

	for (k = 0; k < N_PORTS; k++) {
		in->rt[k] = (struct aifab_port_rt){
			.port_id = (uint16_t)in->port[k], .nb_rxq = 1,
			.nb_txq = MAX_WORKERS, .mtu = 9000,
			.speed_mbps = port_speed(wl, k), .pool = env.pool,
		};
		snprintf(in->rt[k].name, sizeof(in->rt[k].name), "p%u", k);
	}
	aifab_gen_params_defaults(&p);
	p.n_ranks = wl->n_ranks;
	p.size = wl->size_per_rank * wl->n_ranks;
	p.ib_mtu = wl_mtu(wl);
	p.iterations = wl->iters;
	p.warmup = 0;
	p.gap_ns = wl->gap_ns;
	p.rate_mbps = wl->rate_mbps;
	p.seed = wl->gen_seed;
	p.mbufs = 2048;
	p.qpn_base = QPN_BASE;
	p.closed_loop = true;
	p.window = 8;
	p.ack_every = 2;
	p.retx_timeout_ns = wl->rto_ns;
	p.dcqcn = wl->dcqcn;
	if (wl->channels != 0)
		p.n_channels = wl->channels;
	if (wl->qps != 0)
		p.qps_per_conn = wl->qps;
	g = aifab_gen_create(&e, &p, wl->workers, err, sizeof(err));
	if (g == NULL)
		fail_msg("aifab_gen_create: %s", err);
	return g;
}

/* ---- the oracle: every rank asked, from the rules ------------------------- */

/* Rank @p rk's token bucket refilled at @p t (bucket_refill()'s formula,
 * backlogged or not: its tokens are <= 0 here, so the cap at the depth
 * does not bind) is positive. */
static bool
tokens_positive_at(const struct gen_rank *rk, uint64_t t)
{
	__int128 add;

	if (t <= rk->last_tsc)
		return rk->tokens > 0;
	add = (__int128)(t - rk->last_tsc < rk->max_idle ?
			 t - rk->last_tsc : rk->max_idle) *
		(__int128)rk->rate_fp;
	return (__int128)rk->tokens + add > 0;
}

/* The first instant >= @p from at which rank @p rk has tokens: a search,
 * the predicate being monotone in the instant. */
static uint64_t
tokens_from(const struct gen_rank *rk, uint64_t from)
{
	uint64_t lo = from, hi = from, span = 1;

	if (rk->rate_fp == 0 || tokens_positive_at(rk, from))
		return from;
	while (!tokens_positive_at(rk, hi)) {
		lo = hi;
		hi = from + span;
		span *= 2;
	}
	/* lo: not yet, hi: positive */
	while (hi - lo > 1) {
		uint64_t mid = lo + (hi - lo) / 2;

		if (tokens_positive_at(rk, mid))
			hi = mid;
		else
			lo = mid;
	}
	return hi;
}

/* The first instant >= @p from at which pick() would not skip @p cn for
 * its pace (pace_t > (double)now skips it). */
static uint64_t
pace_from(const struct gen_conn *cn, uint64_t from)
{
	uint64_t t;

	if (!(cn->pace_t > (double)from))
		return from;
	t = (uint64_t)cn->pace_t;
	while (cn->pace_t > (double)t)
		t++;
	return t;
}

/* Who gave the oracle's answer (for the failure message). */
struct why {
	uint32_t rank;
	const char *what;
	unsigned int kind;          /* enum why_kind */
};

/* What gave the answers of a run (printed: every kind must occur). */
enum why_kind { W_NEVER, W_START, W_INBOX, W_QUEUE, W_WAIT, W_READY,
		W_TOKENS, W_PACE, W_DEADLINE, W_N };
static const char *const why_name[W_N] = {
	"never", "not started", "inbox", "queue", "next start",
	"a frame time", "tokens", "pace", "deadline",
};

static void
why_set(struct why *why, uint32_t r, unsigned int kind)
{
	why->rank = r;
	why->kind = kind;
	why->what = why_name[kind];
}

static uint64_t
oracle_next(struct gen *g, unsigned int w, uint64_t now, struct why *why)
{
	struct gen_wk *wk = &g->wk[w];
	uint64_t best = UINT64_MAX, t, ready = now + STEP_NS, tk;
	uint32_t i, q;
	unsigned int p;

	why_set(why, UINT32_MAX, W_NEVER);
	if (!__atomic_load_n(&g->started, __ATOMIC_ACQUIRE)) {
		why_set(why, UINT32_MAX, W_START);
		return now;
	}
	if (wk->inbox != NULL && rte_ring_count(wk->inbox) != 0) {
		why_set(why, UINT32_MAX, W_INBOX);
		return now;
	}
	for (p = 0; p < N_PORTS; p++)
		if (wk->port[p].n_tx != 0 || wk->port[p].n_cnp != 0) {
			why_set(why, UINT32_MAX, W_QUEUE);
			return ready;
		}
	for (i = 0; i < wk->n_own; i++) {
		uint32_t r = wk->own_list[i];
		const struct gen_rank *rk = &g->ranks[r];

		if (rk->state == RANK_WAIT) {
			t = RTE_MAX(rk->next_start, now + 1);
			if (t < best) {
				best = t;
				why_set(why, r, W_WAIT);
			}
			continue;
		}
		if (rk->state != RANK_SEND)
			continue;
		tk = tokens_from(rk, ready);
		for (q = 0; q < rk->n_act; q++) {
			const struct gen_conn *cn = &g->conns[rk->act[q]];
			const struct aifab_rc_req *rq = cn->req;

			if (cn->has_pend || aifab_rc_req_can_send(rq)) {
				t = g->p.dcqcn ? pace_from(cn, tk) : tk;
				if (t < best) {
					best = t;
					why_set(why, r, t > tk ? W_PACE :
						tk > ready ? W_TOKENS :
						W_READY);
				}
			}
			if (rq->timer_on) {
				t = RTE_MAX(rq->timer_start + rq->timeout_tsc,
					    now + 1);
				if (t < best) {
					best = t;
					why_set(why, r, W_DEADLINE);
				}
			}
		}
	}
	return best;
}

/* ---- the network -------------------------------------------------------------- */

struct flight {
	uint64_t at;                 /* arrival */
	struct rte_mbuf *m[N_INST];
	uint8_t port;                /* destination */
};

struct net {
	const struct workload *wl;
	struct flight *fl;           /* FIFO in arrival order, per port */
	unsigned int head[N_PORTS], tail[N_PORTS];
	uint64_t free_at[N_PORTS];   /* the wire's next free instant */
	uint64_t next_pfc;           /* next injected PFC frame */
	/* steps of other pipelines (app/vclock.c polls every worker whose
	 * answer is not never at every step): the instants an injected
	 * XOFF ends (floor and ceil), where a missed wake shows */
	uint64_t ext[MAX_EXT];
	unsigned int n_ext;
	uint64_t n_frames, n_dropped, n_ce, n_pfc, n_cnp, n_nak;
	uint64_t draws;
};

static uint64_t
splitmix(uint64_t *s)
{
	uint64_t z = (*s += 0x9E3779B97F4A7C15ull);

	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
	z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
	return z ^ (z >> 31);
}

static uint64_t
draw(struct net *n, uint64_t mod)
{
	return splitmix(&n->draws) % mod;
}

static struct flight *
slot(struct net *n, unsigned int p, unsigned int k)
{
	return &n->fl[p * MAX_FLIGHT + (k % MAX_FLIGHT)];
}

/* Set CE (unit_ipv4_set_ce()) on the IPv4 frame in @p m. */
static void
set_ce(struct rte_mbuf *m)
{
	unit_ipv4_set_ce(rte_pktmbuf_mtod_offset(m, uint8_t *, 14));
}

/* A PFC frame (802.1Qbb, PROTOCOLS.md) for priority @p prio. */
static struct rte_mbuf *
pfc_frame(uint8_t prio, uint16_t quanta)
{
	struct rte_mbuf *m = rte_pktmbuf_alloc(env.pool);
	uint16_t q[8] = { 0 };
	uint8_t *f;

	if (m == NULL) {
		fail_msg("out of test mbufs");
		abort();
	}
	f = (uint8_t *)rte_pktmbuf_append(m, 60);
	if (f == NULL) {
		fail_msg("no room for a PFC frame");
		abort();
	}
	q[prio] = quanta;
	unit_pfc_frame(f, (uint8_t)(1u << prio), q);
	return m;
}

static void
to_rx(struct inst *in, unsigned int p, struct rte_mbuf *m)
{
	if (rte_ring_enqueue(in->rx[p], m) != 0)
		fail_msg("RX ring of port %u full", p);
}

/* Deliver what arrives by @p now; PFC frames injected by then. True if
 * any frame was delivered. */
static bool
deliver(struct net *n, uint64_t now)
{
	bool any = false;
	unsigned int p, i;

	for (p = 0; p < N_PORTS; p++)
		while (n->head[p] != n->tail[p] &&
		       slot(n, p, n->head[p])->at <= now) {
			struct flight *f = slot(n, p, n->head[p]++);

			for (i = 0; i < N_INST; i++)
				to_rx(&env.in[i], p, f->m[i]);
			any = true;
		}
	while (n->wl->pfc_every_ns != 0 && n->next_pfc <= now) {
		/* mostly the data priority (3): XOFF of 1..4096 quanta, an
		 * XON now and then; sometimes another priority */
		uint8_t prio = draw(n, 8) == 0 ? 4 : 3;
		uint16_t quanta = draw(n, 4) == 0 ? 0 :
			(uint16_t)(1 + draw(n, 4096));

		p = (unsigned int)draw(n, N_PORTS);
		for (i = 0; i < N_INST; i++)
			to_rx(&env.in[i], p, pfc_frame(prio, quanta));
		/* quanta x 512 bit times at the port's speed (read now) */
		if (quanta != 0 && n->n_ext + 2 <= MAX_EXT) {
			uint64_t d = (uint64_t)quanta * 512 * 1000 /
				port_speed(n->wl, p);

			n->ext[n->n_ext++] = now + d;
			n->ext[n->n_ext++] = now + d + 1;
		}
		n->n_pfc++;
		n->next_pfc += 1 + draw(n, 2 * n->wl->pfc_every_ns);
		any = true;
	}
	return any;
}

/* The earliest other pipeline's step after @p now (those by it gone). */
static uint64_t
ext_next(struct net *n, uint64_t now)
{
	uint64_t t = UINT64_MAX;
	unsigned int i = 0;

	while (i < n->n_ext)
		if (n->ext[i] <= now) {
			n->ext[i] = n->ext[--n->n_ext];
		} else {
			t = RTE_MIN(t, n->ext[i]);
			i++;
		}
	return t;
}

static uint64_t
net_next(const struct net *n)
{
	uint64_t t = UINT64_MAX;
	unsigned int p;

	for (p = 0; p < N_PORTS; p++)
		if (n->head[p] != n->tail[p])
			t = RTE_MIN(t, slot((struct net *)(uintptr_t)n, p,
					    n->head[p])->at);
	return t;
}

static bool
net_idle(const struct net *n)
{
	unsigned int p;

	for (p = 0; p < N_PORTS; p++)
		if (n->head[p] != n->tail[p])
			return false;
	return true;
}

/* Port @p p's frames of this step from A and B: the same, byte for
 * byte; then onto the wire of their destination. */
static void
take_tx(struct net *n, unsigned int p, uint64_t now, uint64_t stepno)
{
	struct rte_mbuf *a[64], *b[64];
	uint8_t fa[FRAME_MAX], fb[FRAME_MAX];
	unsigned int na, nb, i;

	for (;;) {
		na = rte_ring_dequeue_burst(env.in[0].tx[p], (void **)a,
					    RTE_DIM(a), NULL);
		nb = rte_ring_dequeue_burst(env.in[1].tx[p], (void **)b,
					    RTE_DIM(b), NULL);
		if (na != nb)
			fail_msg("%s: step %" PRIu64 " at %" PRIu64 " ns: "
				 "port %u: rank sets sent %u frames, every "
				 "rank %u", n->wl->name, stepno, now, p, na,
				 nb);
		if (na == 0)
			return;
		for (i = 0; i < na; i++) {
			const uint8_t *x = rte_pktmbuf_read(a[i], 0,
						a[i]->pkt_len, fa);
			const uint8_t *y = rte_pktmbuf_read(b[i], 0,
						b[i]->pkt_len, fb);
			uint32_t len = a[i]->pkt_len, dst;
			uint8_t op;
			unsigned int dp;
			struct flight *f;
			uint64_t start, ser;
			bool data;

			if (x == NULL || y == NULL || len != b[i]->pkt_len ||
			    memcmp(x, y, len) != 0)
				fail_msg("%s: step %" PRIu64 " at %" PRIu64
					 " ns: port %u frame %u differs "
					 "between rank sets and every rank",
					 n->wl->name, stepno, now, p, i);
			n->n_frames++;
			if (len < 14 + 20 + 8 + 12 || x[12] != 0x08 ||
			    x[13] != 0x00)
				fail_msg("%s: a frame that is not IPv4",
					 n->wl->name);
			dst = ((uint32_t)x[30] << 24 | (uint32_t)x[31] << 16 |
			       (uint32_t)x[32] << 8 | x[33]) - BASE_IP;
			op = x[42];
			data = op <= 0x0B;
			n->n_cnp += op == 0x81;
			n->n_nak += op == 0x11 && (x[54] & 0xE0) == 0x60;
			if (dst >= n->wl->n_ranks)
				fail_msg("%s: a frame to rank %u",
					 n->wl->name, dst);
			dp = dst % N_PORTS;
			if ((data && draw(n, 1000000) <
			     n->wl->drop_data_ppm) ||
			    (op == 0x11 && draw(n, 1000000) <
			     n->wl->drop_ack_ppm)) {
				rte_pktmbuf_free(a[i]);
				rte_pktmbuf_free(b[i]);
				n->n_dropped++;
				continue;
			}
			start = RTE_MAX(now, n->free_at[dp]);
			if (data && n->wl->ecn_backlog_ns != 0 &&
			    start - now > n->wl->ecn_backlog_ns) {
				set_ce(a[i]);
				set_ce(b[i]);
				n->n_ce++;
			}
			ser = ((uint64_t)len + 4 + 24) * 8000 /
				port_speed(n->wl, dp);
			n->free_at[dp] = start + ser;
			if (n->tail[dp] - n->head[dp] == MAX_FLIGHT)
				fail_msg("%s: more than %u frames on a wire",
					 n->wl->name, MAX_FLIGHT);
			f = slot(n, dp, n->tail[dp]++);
			f->at = start + ser + CABLE_NS;
			f->m[0] = a[i];
			f->m[1] = b[i];
			f->port = (uint8_t)dp;
		}
	}
}

/* ---- the loop ------------------------------------------------------------------- */

/* A's next_event() @p ne for worker @p w at @p now against the oracle
 * on A's state and on B's; the kind of answer counted in @p kinds. */
static void
check_next(const struct workload *wl, unsigned int w, uint64_t now,
	   uint64_t stepno, uint64_t ne, uint64_t kinds[W_N])
{
	struct gen *ga = env.in[0].g, *gb = env.in[1].g;
	struct why wa, wb;
	uint64_t oa = oracle_next(ga, w, now, &wa);
	uint64_t ob = oracle_next(gb, w, now, &wb);

	if (ne != oa)
		fail_msg("%s: step %" PRIu64 " at %" PRIu64 " ns, worker %u: "
			 "next_event() %" PRIu64 " ns, the oracle %" PRIu64
			 " (rank %" PRIu32 ": %s)", wl->name, stepno, now, w,
			 ne, oa, wa.rank, wa.what);
	if (oa != ob)
		fail_msg("%s: step %" PRIu64 " at %" PRIu64 " ns, worker %u: "
			 "the oracle on the rank sets' state %" PRIu64
			 " (rank %" PRIu32 ": %s), on every rank's %" PRIu64
			 " (rank %" PRIu32 ": %s)", wl->name, stepno, now, w,
			 oa, wa.rank, wa.what, ob, wb.rank, wb.what);
	kinds[wa.kind]++;
}

static void
run_workload(const struct workload *wl)
{
	struct net n = { .wl = wl };
	struct aifab_gen_summary sa, sb;
	struct aifab_port_counters ca[N_PORTS], cb[N_PORTS];
	uint64_t now = wl->t0, ne[MAX_WORKERS], t, stepno = 0, checks = 0;
	uint64_t kinds[W_N] = { 0 };
	unsigned int i, w, p, nw = wl->workers;
	struct rte_mbuf *m;
	bool got;

	step_ns = frame_time(wl);
	n.fl = calloc((size_t)N_PORTS * MAX_FLIGHT, sizeof(*n.fl));
	assert_non_null(n.fl);
	n.draws = wl->seed;
	n.next_pfc = wl->pfc_every_ns != 0 ? now + wl->pfc_every_ns :
		UINT64_MAX;
	for (i = 0; i < N_INST; i++)
		env.in[i].g = gen_make(&env.in[i], wl);
	/* As app/vclock.c: asked before the first poll (not started yet:
	 * now), which switches A's rank sets on. */
	for (w = 0; w < nw; w++) {
		ne[w] = aifab_generator_ops.next_event(env.in[0].g, w, now);
		check_next(wl, w, now, stepno, ne[w], kinds);
	}
	got = false;
	while (stepno < MAX_STEPS) {
		bool done = aifab_generator_ops.done(env.in[0].g);

		if (done != aifab_generator_ops.done(env.in[1].g))
			fail_msg("%s: step %" PRIu64 ": done() differs",
				 wl->name, stepno);
		if (done && net_idle(&n))
			break;
		/* the next instant: an arrival, a worker's event, or a
		 * reader that left frames in its RX ring (at once) */
		t = net_next(&n);
		for (w = 0; w < nw; w++)
			t = RTE_MIN(t, ne[w]);
		for (p = 0; p < N_PORTS; p++)
			if (rte_ring_count(env.in[0].rx[p]) != 0)
				t = now;
		if (wl->pfc_every_ns != 0 && !done)
			t = RTE_MIN(t, n.next_pfc);
		if (!done)
			t = RTE_MIN(t, ext_next(&n, now));
		if (t == UINT64_MAX)
			fail_msg("%s: step %" PRIu64 " at %" PRIu64 " ns: "
				 "nothing left to happen, not done",
				 wl->name, stepno, now);
		now = RTE_MAX(now, t);
		stepno++;
		got = deliver(&n, now);
		for (p = 0; p < N_PORTS; p++)
			got |= rte_ring_count(env.in[0].rx[p]) != 0;
		for (w = 0; w < nw; w++) {
			/* polled: a frame for it (worker 0 reads the ports'
			 * one RX queue and hands the others theirs), or an
			 * event (its answer is not never) */
			if (!(ne[w] != UINT64_MAX || (w == 0 && got)))
				continue;
			for (i = 0; i < N_INST; i++)
				aifab_generator_ops.poll(env.in[i].g, w, now);
		}
		for (p = 0; p < N_PORTS; p++)
			take_tx(&n, p, now, stepno);
		for (w = 0; w < nw; w++) {
			ne[w] = aifab_generator_ops.next_event(env.in[0].g, w,
							       now);
			check_next(wl, w, now, stepno, ne[w], kinds);
			checks++;
		}
	}
	if (stepno >= MAX_STEPS)
		fail_msg("%s: not done in %u steps", wl->name, MAX_STEPS);
	for (w = 0; w < nw; w++)
		for (i = 0; i < N_INST; i++)
			aifab_generator_ops.drain(env.in[i].g, w, now);
	for (p = 0; p < N_PORTS; p++)
		take_tx(&n, p, now, stepno);
	aifab_gen_summary(env.in[0].g, &sa);
	aifab_gen_summary(env.in[1].g, &sb);
	assert_int_equal(sa.iterations, wl->iters);
	assert_int_equal(sb.iterations, wl->iters);
	assert_int_equal(sa.tx_packets, sb.tx_packets);
	assert_int_equal(sa.rx_packets, sb.rx_packets);
	assert_int_equal(sa.run_t1, sb.run_t1);
	assert_memory_equal(sa.iter_t1, sb.iter_t1, sizeof(sa.iter_t1));
	assert_memory_equal(&sa, &sb, sizeof(sa));
	aifab_generator_ops.port_counters(env.in[0].g, ca);
	aifab_generator_ops.port_counters(env.in[1].g, cb);
	assert_memory_equal(ca, cb, sizeof(ca));
	/* the injected PFC frames paused the ranks (else the pause part of
	 * the comparison would run on nothing) */
	if (wl->pfc_every_ns != 0) {
		assert_int_equal(sa.pfc_rx, n.n_pfc);
		assert_true(sa.paused_us > 0);
	}
	print_message("%s: %" PRIu64 " steps, %" PRIu64 " next_event() "
		      "checks, %" PRIu64 " frames (%" PRIu64 " dropped, %"
		      PRIu64 " CE, %" PRIu64 " CNPs, %" PRIu64 " NAKs), %"
		      PRIu64 " PFC injected, model time %.3f ms\n", wl->name,
		      stepno, checks, n.n_frames, n.n_dropped, n.n_ce,
		      n.n_cnp, n.n_nak, n.n_pfc,
		      (double)(now - wl->t0) / 1e6);
	print_message("  next_event() answers by kind:");
	for (i = 0; i < W_N; i++)
		print_message(" %s %" PRIu64 "%s", why_name[i], kinds[i],
			      i + 1 < W_N ? "," : "\n");
	for (i = 0; i < N_INST; i++) {
		aifab_generator_ops.fini(env.in[i].g);
		env.in[i].g = NULL;
		for (p = 0; p < N_PORTS; p++) {
			while (rte_ring_dequeue(env.in[i].rx[p],
						(void **)&m) == 0)
				rte_pktmbuf_free(m);
			while (rte_ring_dequeue(env.in[i].tx[p],
						(void **)&m) == 0)
				rte_pktmbuf_free(m);
		}
	}
	free(n.fl);
}

/* ---- the tests ------------------------------------------------------------------ */

/* 4 ranks, one worker: losses (NAKs, timeouts), ECN and DCQCN rate cuts,
 * PFC pauses, a gap between iterations. */
static void
test_small(void **state)
{
	const struct workload wl = {
		.name = "4 ranks", .n_ranks = 4, .workers = 1, .iters = 3,
		.size_per_rank = 16 * MTU, .dcqcn = true,
		.drop_data_ppm = 20000, .drop_ack_ppm = 20000,
		.ecn_backlog_ns = 1000, .pfc_every_ns = 40000,
		.rto_ns = 30000, .gap_ns = 5000,
		.rate_mbps = RATE_MBPS,
		.t0 = 1000000, .seed = 1, .gen_seed = 7,
	};

	(void)state;
	run_workload(&wl);
}

/* The same kinds of events without DCQCN (the send key from the tokens
 * alone), two workers (hand-offs, each worker's own keys). */
static void
test_two_workers(void **state)
{
	const struct workload wl = {
		.name = "8 ranks, 2 workers", .n_ranks = 8, .workers = 2,
		.iters = 2, .size_per_rank = 8 * MTU, .dcqcn = false,
		.drop_data_ppm = 10000, .drop_ack_ppm = 30000,
		.ecn_backlog_ns = 0, .pfc_every_ns = 25000,
		.rto_ns = 20000, .gap_ns = 3000,
		.rate_mbps = RATE_MBPS,
		.t0 = 123456789, .seed = 2, .gen_seed = 3,
	};

	(void)state;
	run_workload(&wl);
}

/* 130 ranks on one worker: three words of 64 ranks, so the per-word
 * least keys (and their dirty marks) matter. */
static void
test_words(void **state)
{
	const struct workload wl = {
		.name = "130 ranks", .n_ranks = 130, .workers = 1,
		.iters = 1, .size_per_rank = 2 * MTU, .dcqcn = true,
		.drop_data_ppm = 3000, .drop_ack_ppm = 3000,
		.ecn_backlog_ns = 2000, .pfc_every_ns = 200000,
		.rto_ns = 50000, .gap_ns = 0,
		.rate_mbps = RATE_MBPS,
		.t0 = 5000000000ull, .seed = 3, .gen_seed = 11,
	};

	(void)state;
	run_workload(&wl);
}

/* Ranks of two rates (the port speed over its ranks: 40G and 10G
 * ports), several QPs per rank with room in their windows, no DCQCN:
 * the slower ranks' tokens come back after more than the frame time
 * next_event() adds (that of the fastest rank), so the token key (TA,
 * rank_ta()) gives the answer often. */
static void
test_tokens(void **state)
{
	const struct workload wl = {
		.name = "6 ranks, tokens", .n_ranks = 6, .workers = 1,
		.iters = 2, .size_per_rank = 8 * MTU, .channels = 2,
		.qps = 4, .dcqcn = false,
		.drop_data_ppm = 5000, .drop_ack_ppm = 5000,
		.ecn_backlog_ns = 0, .pfc_every_ns = 30000,
		.rto_ns = 40000, .gap_ns = 2000,
		.rate_mbps = 0, .speed1_mbps = 10000,
		.t0 = 777, .seed = 4, .gen_seed = 5,
	};

	(void)state;
	run_workload(&wl);
}

/* Exact paces: 2 KiB MTU frames (2130 bytes on the wire) at 40G leave
 * 426 ns apart, at 20G (DCQCN's first cut, alpha 1) 852: a QP's pace
 * falls on a whole nanosecond. */
static void
test_whole_paces(void **state)
{
	const struct workload wl = {
		.name = "4 ranks, whole paces", .n_ranks = 4, .workers = 1,
		.iters = 2, .size_per_rank = 16 * 2048, .mtu = 2048,
		.dcqcn = true, .drop_data_ppm = 0, .drop_ack_ppm = 0,
		.ecn_backlog_ns = 1000, .pfc_every_ns = 0,
		.rto_ns = 100000, .gap_ns = 0, .rate_mbps = 40000,
		.t0 = 1000000, .seed = 5, .gen_seed = 9,
	};

	(void)state;
	run_workload(&wl);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_small),
		cmocka_unit_test(test_two_workers),
		cmocka_unit_test(test_words),
		cmocka_unit_test(test_tokens),
		cmocka_unit_test(test_whole_paces),
	};

	return cmocka_run_group_tests_name("gen_nextev", tests, eal_up,
					   eal_down);
}
