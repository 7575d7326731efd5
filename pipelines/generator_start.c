/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Several servers, one collective: when this process's ranks may begin.
 *
 *   start_tsc = 0          at the first poll (one process: as always)
 *   start_tsc = instant    when the app's clock reaches it (--start-at:
 *                          the app converts the wall clock instant and
 *                          re-arms it as the clocks drift)
 *   AIFAB_GEN_START_FRAME  when a leader's start frame arrives
 *
 * A leader (--leader) sends, when it starts, one start frame to every rank
 * it does not emulate, from its first generator port. The frame (EtherType
 * 0x88B5, docs/lab.md "Start frame") carries the leader's profile digest:
 * a follower whose digest differs refuses to start (REFUSED) and the run
 * ends. Before the start the ports are only drained (generator_ops.c).
 */
#include <string.h>

#include <rte_byteorder.h>
#include <rte_common.h>
#include <rte_ether.h>
#include <rte_mbuf.h>

#include "generator_priv.h"

#define START_MAGIC "AIFS"
#define START_VERSION 1
#define START_KIND 1            /* start */
#define START_LEN 88            /* payload bytes after the Ethernet header */
/* payload offsets */
#define SO_RANKS 8
#define SO_WALL 16
#define SO_DIGEST 24
#define SO_HOST 56

static void
hex32(const uint8_t *d, char out[65])
{
	static const char x[] = "0123456789abcdef";
	unsigned int i;

	for (i = 0; i < 32; i++) {
		out[2 * i] = x[d[i] >> 4];
		out[2 * i + 1] = x[d[i] & 15];
	}
	out[64] = '\0';
}

/* The wall clock (ns) at app clock @p tsc. */
static int64_t
wall_ns(const struct gen *g, uint64_t tsc)
{
	double d = (double)((int64_t)(tsc - g->p.wall0_tsc)) * 1e9 /
		(double)(g->env.tsc_hz ? g->env.tsc_hz : 1);

	return g->p.wall0_ns + (int64_t)d;
}

/* One start frame to rank MAC @p dst, from port @p p. */
static bool
start_send_one(struct gen_wk *wk, uint16_t p, const struct rte_ether_addr *dst,
	       int64_t wall, uint64_t now)
{
	const struct gen *g = wk->g;
	struct rte_mbuf *m = rte_pktmbuf_alloc(wk->hdr_pool);
	struct rte_ether_hdr *eh;
	uint64_t wall_be;
	uint32_t ranks;
	uint8_t *b;

	if (m == NULL)
		return false;
	eh = (struct rte_ether_hdr *)rte_pktmbuf_append(m, sizeof(*eh) +
							START_LEN);
	if (eh == NULL) {
		rte_pktmbuf_free(m);
		return false;
	}
	eh->dst_addr = *dst;
	eh->src_addr = g->env.ports[p].mac;
	eh->ether_type = rte_cpu_to_be_16(AIFAB_GEN_START_ETHERTYPE);
	b = (uint8_t *)(eh + 1);
	memset(b, 0, START_LEN);
	memcpy(b, START_MAGIC, 4);
	b[4] = START_VERSION;
	b[5] = START_KIND;
	ranks = rte_cpu_to_be_32(g->p.n_ranks);
	wall_be = rte_cpu_to_be_64((uint64_t)wall);
	memcpy(b + SO_RANKS, &ranks, sizeof(ranks));   /* unaligned fields */
	memcpy(b + SO_WALL, &wall_be, sizeof(wall_be));
	memcpy(b + SO_DIGEST, g->p.digest, 32);
	memcpy(b + SO_HOST, g->host, AIFAB_GEN_HOST_LEN - 1);
	return gen_tx_ctl(wk, p, m, false, now);
}

/* The leader: a start frame to every rank emulated elsewhere. */
static void
start_send(struct gen_wk *wk, uint64_t tsc, uint64_t now)
{
	struct gen *g = wk->g;
	uint16_t p = g->used_ports[0];
	int64_t wall = wall_ns(g, tsc);
	uint32_t i;

	for (i = 0; i < g->n_start_dst; i++)
		if (start_send_one(wk, p, &g->start_dst[i], wall, now))
			g->start.frames_tx++;
	gen_tx_flush(wk, p, now);
}

bool
gen_start_due(struct gen_wk *wk, uint64_t tsc, uint64_t now)
{
	struct gen *g = wk->g;
	uint64_t go = __atomic_load_n(&g->go, __ATOMIC_RELAXED);

	if (g->start.state != AIFAB_GEN_WAITING ||
	    go == AIFAB_GEN_START_FRAME || tsc < go)
		return false;
	if (g->p.leader)
		start_send(wk, tsc, now);
	g->start.state = AIFAB_GEN_STARTED;
	g->start.start_tsc = tsc;
	return true;
}

bool
gen_start_rx(struct gen_wk *wk, uint16_t p, struct rte_mbuf *m, uint64_t now)
{
	struct gen *g = wk->g;
	uint8_t tmp[sizeof(struct rte_ether_hdr) + START_LEN];
	const struct rte_ether_hdr *eh;
	struct aifab_gen_start *st = &g->start;
	const uint8_t *b;
	uint64_t wall_be;
	uint32_t ranks;
	bool same;

	RTE_SET_USED(p);
	RTE_SET_USED(now);
	eh = rte_pktmbuf_read(m, 0, sizeof(tmp), tmp);
	if (eh == NULL || eh->ether_type !=
	    rte_cpu_to_be_16(AIFAB_GEN_START_ETHERTYPE))
		return false;
	b = (const uint8_t *)(eh + 1);
	if (memcmp(b, START_MAGIC, 4) != 0 || b[4] != START_VERSION ||
	    b[5] != START_KIND)
		return false;
	st->frames_rx++;
	if (st->state != AIFAB_GEN_WAITING)
		return true;            /* a copy, or too late: ignored */
	memcpy(&ranks, b + SO_RANKS, sizeof(ranks));     /* unaligned fields */
	memcpy(&wall_be, b + SO_WALL, sizeof(wall_be));
	same = memcmp(b + SO_DIGEST, g->p.digest, 32) == 0 &&
		rte_be_to_cpu_32(ranks) == g->p.n_ranks;
	st->leader_wall_ns = (int64_t)rte_be_to_cpu_64(wall_be);
	memcpy(st->leader_host, b + SO_HOST, AIFAB_GEN_HOST_LEN - 1);
	st->leader_host[AIFAB_GEN_HOST_LEN - 1] = '\0';
	st->leader_mac = eh->src_addr;
	hex32(b + SO_DIGEST, st->leader_digest);
	if (!same) {
		st->state = AIFAB_GEN_REFUSED;
		g->refused = true;
		return true;
	}
	if (__atomic_load_n(&g->go, __ATOMIC_RELAXED) ==
	    AIFAB_GEN_START_FRAME) {
		st->by_frame = true;
		__atomic_store_n(&g->go, 0, __ATOMIC_RELAXED);
	}
	return true;
}

/* ---- the app's side ------------------------------------------------------ */

void
aifab_gen_start_info(const void *st, struct aifab_gen_start *out)
{
	*out = ((const struct gen *)st)->start;
}

void
aifab_gen_arm(void *st, uint64_t start_tsc)
{
	struct gen *g = st;

	__atomic_store_n(&g->go, start_tsc, __ATOMIC_RELAXED);
}

bool
aifab_gen_rank_owned(const void *st, uint32_t r)
{
	const struct gen *g = st;

	return r < g->p.n_ranks && g->own[r];
}

const char *
aifab_gen_rank_host(const void *st, uint32_t r)
{
	const struct gen *g = st;

	return r < g->p.n_ranks ? g->hosts[g->rank_host[r]] : "";
}
