/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The trace replay pipeline: frames of a loaded trace (replay_trace.c) sent
 * in order from one lcore. Frame i of pass k is due at
 *   base_k + t_ns(i) x tsc_hz / 1e9 / speed
 * and leaves no earlier than its port's wire is free: each port keeps the
 * TSC its last frame finishes at ((len + 24) x 8 bits at the port speed),
 * so the replay is never faster than the port. A late lcore catches up at
 * most REPLAY_CATCHUP_NS worth of wire time at once. Speed 0 drops the
 * trace clock: frames go as fast as the ports allow. Pass k + 1 starts one
 * average frame gap after pass k's last frame was due.
 *
 * Each frame is copied from the trace buffer into a fresh mbuf (rewritten
 * frames on later passes get their PSN moved on and the ICRC recombined
 * from the headers): the trace stays read-only and shared by nothing.
 *
 * One worker owns everything: no sharing, no atomics.
 */
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_common.h>
#include <rte_errno.h>
#include <rte_ethdev.h>
#include <rte_lcore.h>
#include <rte_malloc.h>
#include <rte_mbuf.h>
#include <rte_mempool.h>

#include "replay.h"

#define REPLAY_TXBUF 64
#define REPLAY_RX_BURST 32
#define REPLAY_WIRE_EXTRA 24     /* FCS 4 + preamble 8 + IFG 12 */
#define REPLAY_CATCHUP_NS 100000 /* most a late lcore catches up at once */
#define REPLAY_DEFAULT_MBUFS 8192
#define REPLAY_POOL_CACHE 256

struct rp_port {
	uint64_t tx_packets, tx_bytes, rx_packets, rx_bytes;
	uint64_t tx_dropped, tx_nombuf;
	uint64_t next_free;         /* TSC the port's wire is free at */
	double cyc_per_byte;        /* 0: speed unknown, unpaced */
	uint16_t n_tx;
	struct rte_mbuf *tx[REPLAY_TXBUF];
};

struct replay {
	struct aifab_env env;
	struct aifab_replay_params p;
	char path[PATH_MAX];
	struct aifab_replay_trace t;
	struct rte_mempool *pool;
	uint16_t n_slots;
	uint16_t slot_port[AIFAB_MAX_PORTS]; /* slot -> env port */
	double cyc_per_ns;          /* trace ns -> TSC, speed applied; 0: none */
	uint64_t loop_period;       /* TSC between the starts of two passes */
	uint64_t catchup;
	bool started, finished;
	uint64_t base;              /* TSC of the current pass's t = 0 */
	uint32_t loop, idx, loops_done;
	uint64_t first_tx, last_tx, lag_max;
	struct rp_port port[AIFAB_MAX_PORTS];
};

/* ---- fast path ----------------------------------------------------------- */

static void
tx_flush(struct replay *r, uint16_t p)
{
	struct rp_port *pp = &r->port[p];
	uint16_t sent;

	if (pp->n_tx == 0)
		return;
	sent = aifab_port_tx_burst(&r->env.ports[p], r->p.txq, pp->tx,
				pp->n_tx);
	pp->tx_packets += sent;
	if (sent < pp->n_tx)
		memmove(pp->tx, pp->tx + sent,
			sizeof(pp->tx[0]) * (pp->n_tx - sent));
	pp->n_tx = (uint16_t)(pp->n_tx - sent);
}

static unsigned int
rx_poll(struct replay *r)
{
	struct rte_mbuf *pkts[REPLAY_RX_BURST];
	unsigned int got = 0;
	uint16_t s, i, n;

	for (s = 0; s < r->n_slots; s++) {
		uint16_t p = r->slot_port[s];
		struct rp_port *pp = &r->port[p];

		n = aifab_port_rx_burst(&r->env.ports[p], r->p.rxq, pkts,
					REPLAY_RX_BURST);
		for (i = 0; i < n; i++) {
			pp->rx_packets++;
			pp->rx_bytes += pkts[i]->pkt_len;
			rte_pktmbuf_free(pkts[i]);
		}
		got += n;
	}
	return got;
}

/* Next pass, or the end. @return false when the replay is finished. */
static bool
next_pass(struct replay *r)
{
	r->loops_done++;
	if (r->p.loops != 0 && r->loops_done >= r->p.loops) {
		r->finished = true;
		return false;
	}
	r->idx = 0;
	r->loop++;
	r->base += r->loop_period;
	return true;
}

/* Send frame r->idx if it is due and its port is free: 1 sent, 0 not yet,
 * -1 stop this poll (TX full, no mbufs). */
static int
send_one(struct replay *r, uint64_t now)
{
	const struct aifab_replay_frame *f = &r->t.f[r->idx];
	uint16_t p = r->slot_port[f->slot];
	struct rp_port *pp = &r->port[p];
	uint64_t due = 0, start;
	struct rte_mbuf *m;
	uint8_t *dst;

	if (r->cyc_per_ns > 0)
		due = r->base + (uint64_t)((double)f->t_ns * r->cyc_per_ns);
	start = RTE_MAX(pp->next_free, due);
	if (now > r->catchup)
		start = RTE_MAX(start, now - r->catchup);
	if (start > now)
		return 0;
	if (pp->n_tx == REPLAY_TXBUF) {
		tx_flush(r, p);
		if (pp->n_tx == REPLAY_TXBUF)
			return -1;
	}
	m = rte_pktmbuf_alloc(r->pool);
	if (m == NULL) {
		pp->tx_nombuf++;
		return -1;
	}
	dst = (uint8_t *)rte_pktmbuf_append(m, (uint16_t)f->len);
	aifab_replay_frame_write(&r->t, r->idx, r->loop, dst);
	pp->tx[pp->n_tx++] = m;
	pp->tx_bytes += f->len;
	pp->next_free = start + (uint64_t)((double)(f->len + REPLAY_WIRE_EXTRA)
					   * pp->cyc_per_byte);
	if (due != 0 && now > due)
		r->lag_max = RTE_MAX(r->lag_max, now - due);
	if (r->first_tx == 0)
		r->first_tx = now;
	r->last_tx = now;
	r->idx++;
	return 1;
}

static unsigned int
rp_poll(void *st, unsigned int w, uint64_t now)
{
	struct replay *r = st;
	unsigned int handled = 0, sent = 0;
	uint16_t s;
	int rc;

	RTE_SET_USED(w);
	if (!r->started) {
		r->base = now;
		for (s = 0; s < r->n_slots; s++)
			r->port[r->slot_port[s]].next_free = now;
		r->started = true;
	}
	if (r->p.rx)
		handled += rx_poll(r);
	while (!r->finished && sent < r->p.burst_pkts) {
		if (r->idx == r->t.n && !next_pass(r))
			break;
		rc = send_one(r, now);
		if (rc <= 0)
			break;
		sent++;
	}
	for (s = 0; s < r->n_slots; s++)
		tx_flush(r, r->slot_port[s]);
	return handled + sent;
}

static void
rp_drain(void *st, unsigned int w, uint64_t now)
{
	struct replay *r = st;
	uint16_t s, i;

	RTE_SET_USED(w);
	RTE_SET_USED(now);
	if (r->p.rx)
		rx_poll(r);
	for (s = 0; s < r->n_slots; s++) {
		struct rp_port *pp = &r->port[r->slot_port[s]];

		tx_flush(r, r->slot_port[s]);
		for (i = 0; i < pp->n_tx; i++) {
			pp->tx_bytes -= pp->tx[i]->pkt_len;
			rte_pktmbuf_free(pp->tx[i]);
		}
		pp->tx_dropped += pp->n_tx;
		pp->n_tx = 0;
	}
}

static bool
rp_done(const void *st)
{
	const struct replay *r = st;
	uint16_t s;

	if (!r->finished)
		return false;
	for (s = 0; s < r->n_slots; s++)
		if (r->port[r->slot_port[s]].n_tx != 0)
			return false;
	return true;
}

static void
rp_port_counters(const void *st, struct aifab_port_counters *out)
{
	const struct replay *r = st;
	uint16_t p;

	memset(out, 0, sizeof(*out) * r->env.n_ports);
	for (p = 0; p < r->env.n_ports; p++) {
		out[p].rx_packets = r->port[p].rx_packets;
		out[p].rx_bytes = r->port[p].rx_bytes;
		out[p].tx_packets = r->port[p].tx_packets;
		out[p].tx_bytes = r->port[p].tx_bytes;
	}
}

/* ---- control path -------------------------------------------------------- */

#define BAD(...) do { snprintf(err, errlen, __VA_ARGS__); goto fail; } while (0)

static void
rp_fini(void *st)
{
	struct replay *r = st;
	uint16_t p, i;

	if (r == NULL)
		return;
	for (p = 0; p < AIFAB_MAX_PORTS; p++) {
		for (i = 0; i < r->port[p].n_tx; i++)
			rte_pktmbuf_free(r->port[p].tx[i]);
		r->port[p].n_tx = 0;
	}
	aifab_pipeline_pool_free(r->pool, "replay");
	aifab_replay_trace_free(&r->t);
	rte_free(r);
}

static int
setup_ports(struct replay *r, char *err, size_t errlen)
{
	const struct aifab_replay_params *p = &r->p;
	uint16_t s;

	if (r->env.n_ports == 0)
		BAD("no ports; allowed: at least one env port");
	if (p->n_ports > AIFAB_MAX_PORTS)
		BAD("%u ports; allowed: 0..%u", p->n_ports, AIFAB_MAX_PORTS);
	r->n_slots = p->n_ports ? p->n_ports : r->env.n_ports;
	for (s = 0; s < r->n_slots; s++) {
		uint16_t pi = p->n_ports ? p->ports[s] : s;
		uint32_t mbps;

		if (pi >= r->env.n_ports)
			BAD("port %u: no such port; allowed: 0..%u", pi,
			    r->env.n_ports - 1);
		r->slot_port[s] = pi;
		mbps = r->env.ports[pi].speed_mbps;
		if (mbps != 0 && r->env.tsc_hz != 0)
			r->port[pi].cyc_per_byte = 8.0 * (double)r->env.tsc_hz /
				((double)mbps * 1e6);
	}
	return 0;
fail:
	return -1;
}

void *
aifab_replay_create(const struct aifab_env *env,
		    const struct aifab_replay_params *p, unsigned int n_workers,
		    char *err, size_t errlen)
{
	struct replay *r;
	char name[RTE_MEMPOOL_NAMESIZE];
	uint32_t n_mbufs = p->mbufs ? p->mbufs : REPLAY_DEFAULT_MBUFS;
	double hz;

	if (n_workers != 1) {
		snprintf(err, errlen, "%u workers; allowed: 1", n_workers);
		return NULL;
	}
	if (p->burst_pkts < 1 || p->burst_pkts > 512) {
		snprintf(err, errlen, "burst_pkts = '%u'; allowed: 1..512",
			 p->burst_pkts);
		return NULL;
	}
	r = rte_zmalloc_socket("aifab_replay", sizeof(*r), RTE_CACHE_LINE_SIZE,
			       rte_socket_id());
	if (r == NULL) {
		snprintf(err, errlen, "out of memory (raise -m)");
		return NULL;
	}
	r->env = *env;
	r->p = *p;
	snprintf(r->path, sizeof(r->path), "%s", p->path ? p->path : "");
	r->p.path = r->path;
	if (setup_ports(r, err, errlen) != 0 ||
	    aifab_replay_trace_load(&r->t, &r->p, r->n_slots, err, errlen) != 0)
		goto fail;
	snprintf(name, sizeof(name), "replay_%" PRIxPTR,
		 (uintptr_t)r & 0xffffff);
	r->pool = rte_pktmbuf_pool_create(name, n_mbufs, REPLAY_POOL_CACHE, 0,
		(uint16_t)(RTE_PKTMBUF_HEADROOM + r->t.max_len),
		rte_socket_id());
	if (r->pool == NULL)
		BAD("cannot create a pool of %u mbufs of %u bytes: %s (raise "
		    "-m or lower mbufs)", n_mbufs, r->t.max_len,
		    rte_strerror(rte_errno));
	hz = (double)env->tsc_hz;
	if (p->speed_milli != 0)
		r->cyc_per_ns = hz / 1e9 * 1000.0 / (double)p->speed_milli;
	r->loop_period = (uint64_t)((double)r->t.span_ns * r->cyc_per_ns);
	if (r->t.n > 1)
		r->loop_period += r->loop_period / (r->t.n - 1);
	r->catchup = (uint64_t)(hz / 1e9 * REPLAY_CATCHUP_NS);
	return r;
fail:
	rp_fini(r);
	return NULL;
}

/* ---- results ------------------------------------------------------------- */

void
aifab_replay_summary(const void *st, struct aifab_replay_summary *s)
{
	const struct replay *r = st;
	double ns_per_tsc = r->env.tsc_hz ? 1e9 / (double)r->env.tsc_hz : 1.0;
	uint16_t i;

	memset(s, 0, sizeof(*s));
	s->load = r->t.st;
	for (i = 0; i < r->n_slots; i++) {
		const struct rp_port *pp = &r->port[r->slot_port[i]];

		s->tx_packets += pp->tx_packets;
		s->tx_bytes += pp->tx_bytes;
		s->tx_dropped += pp->tx_dropped;
		s->tx_nombuf += pp->tx_nombuf;
		s->rx_packets += pp->rx_packets;
		s->rx_bytes += pp->rx_bytes;
	}
	s->loops_done = r->loops_done;
	s->elapsed_ns = (uint64_t)((double)(r->last_tx - r->first_tx) *
				   ns_per_tsc);
	if (s->elapsed_ns > 0)
		s->achieved_mbps = (double)s->tx_bytes * 8e3 /
			(double)s->elapsed_ns;
	if (r->t.span_ns > 0)
		s->trace_mbps = (double)r->t.bytes * 8e3 / (double)r->t.span_ns;
	s->target_mbps = s->trace_mbps * (double)r->p.speed_milli / 1000.0;
	s->lag_max_ns = (uint64_t)((double)r->lag_max * ns_per_tsc);
}

static void
rp_report(const void *st, const struct aifab_report_sink *sink)
{
	const struct replay *r = st;
	struct aifab_replay_summary s;
	uint64_t passes, skipped;
	uint16_t i, p;

	for (i = 0; i < r->n_slots; i++) {
		const struct rp_port *pp = &r->port[r->slot_port[i]];

		p = r->slot_port[i];
		sink->port_u64(sink->ctx, p, "replay", "tx_dropped",
			       pp->tx_dropped);
		sink->port_u64(sink->ctx, p, "replay", "tx_nombuf",
			       pp->tx_nombuf);
	}
	/* Replay-wide numbers go with the first replay port. */
	aifab_replay_summary(st, &s);
	p = r->slot_port[0];
	passes = s.loops_done + (!r->finished && r->idx > 0);
	skipped = (s.load.skipped_other + s.load.skipped_bad) * passes;
#define OUT(n, v) sink->port_u64(sink->ctx, p, "replay", n, (uint64_t)(v))
	OUT("frames_sent", s.tx_packets);
	OUT("bytes_sent", s.tx_bytes);
	OUT("frames_skipped", skipped);
	OUT("loops_done", s.loops_done);
	OUT("elapsed_ns", s.elapsed_ns);
	OUT("achieved_kbit_s", s.achieved_mbps * 1e3);
	OUT("trace_kbit_s", s.trace_mbps * 1e3);
	OUT("target_kbit_s", s.target_mbps * 1e3);
	OUT("lag_max_ns", s.lag_max_ns);
	OUT("trace_frames", s.load.frames);
	OUT("trace_roce", s.load.roce);
	OUT("trace_rewritten", s.load.rewritten);
	OUT("trace_other", s.load.other);
	OUT("trace_skipped_other", s.load.skipped_other);
	OUT("trace_skipped_bad", s.load.skipped_bad);
	OUT("trace_hosts", s.load.hosts);
	OUT("trace_conns", s.load.conns);
#undef OUT
}

static void *
rp_init_refuse(const struct aifab_env *env, unsigned int n_workers,
	       char *err, size_t errlen)
{
	RTE_SET_USED(env);
	RTE_SET_USED(n_workers);
	snprintf(err, errlen, "replay: create it with aifab_replay_create()");
	return NULL;
}

const struct aifab_pipeline_ops aifab_replay_ops = {
	.name = "replay",
	.init = rp_init_refuse,
	.poll = rp_poll,
	.drain = rp_drain,
	.done = rp_done,
	.port_counters = rp_port_counters,
	.report = rp_report,
	.fini = rp_fini,
};
