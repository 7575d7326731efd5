/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Building the generator and freeing it: params (defaults, validation),
 * (the rank table, addresses and ownership: generator_ranks.c), the plan, the ranks and their pacing, the
 * connections (QPs), the pools, the ports' PFC and fault stages; then the
 * counter set (generator_report.c) and the closed-loop state
 * (generator_cl.c).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <arpa/inet.h>

#include <rte_byteorder.h>
#include <rte_common.h>
#include <rte_errno.h>
#include <rte_flow.h>
#include <rte_lcore.h>
#include <rte_log.h>
#include <rte_malloc.h>
#include <rte_mbuf.h>
#include <rte_mbuf_dyn.h>
#include <rte_mempool.h>

#include "aifab_rng.h"
#include "generator_priv.h"

#define GEN_DEFAULT_MBUFS 8192
/* [generator] mbufs at most: the bound of when frames shared one payload
 * extbuf (16-bit refcount); the frame pool has no such limit (issue 15). */
#define GEN_MAX_EXT_MBUFS 65000
#define GEN_POOL_CACHE 256
#define GEN_L3_OVERHEAD (20 + 8 + AIFAB_BTH_LEN + AIFAB_RETH_LEN + \
			 AIFAB_ICRC_LEN)

void
aifab_gen_params_defaults(struct aifab_gen_params *p)
{
	memset(p, 0, sizeof(*p));
	*p = (struct aifab_gen_params){
		.n_ranks = 8,
		.base_mac = { { 0x02, 0xa1, 0xfa, 0x00, 0x00, 0x00 } },
		.base_ip = 0x0A640001, /* 10.100.0.1 */
		.rx = true,
		.rx_check_icrc = 1,
		.type = AIFAB_COLL_ALLREDUCE_RING,
		.size = 1u << 20,
		.n_channels = 1,
		.qps_per_conn = 1,
		.ib_mtu = 1024,
		.iterations = 10,
		.warmup = 2,
		.burst_pkts = 32,
		.seed = 1,
		.dscp = 26,
		.ecn = 2,
		.qpn_base = 0x100,
		.window = 128,
		.ack_every = 8,
		.retx_timeout_ns = AIFAB_RC_DEFAULT_TIMEOUT_NS,
		.dcqcn = true,
		.dcqcn_g = AIFAB_DCQCN_DEF_G,
		.dcqcn_alpha_init = AIFAB_DCQCN_DEF_ALPHA_INIT,
		.dcqcn_rai_mbps = AIFAB_DCQCN_DEF_RAI_MBPS,
		.dcqcn_rhai_mbps = AIFAB_DCQCN_DEF_RHAI_MBPS,
		.dcqcn_min_rate_mbps = AIFAB_DCQCN_DEF_MIN_RATE_MBPS,
		.dcqcn_alpha_period_ns = AIFAB_DCQCN_DEF_ALPHA_PERIOD_NS,
		.dcqcn_rate_period_ns = AIFAB_DCQCN_DEF_RATE_PERIOD_NS,
		.dcqcn_byte_counter = AIFAB_DCQCN_DEF_BYTE_COUNTER,
		.dcqcn_f = AIFAB_DCQCN_DEF_F,
		.cnp_interval_ns = AIFAB_DCQCN_DEF_CNP_INTERVAL_NS,
		.cnp_dscp = 48,
		.cnp_ecn = 0,
		.data_prio = 3,
		.cnp_prio = 6,
		.gpu_hour_usd = 30.0,
	};
}

/* ---- validation ---------------------------------------------------------- */

static int
check_ports(const struct aifab_env *env, const struct aifab_gen_params *p,
	    char *err, size_t errlen)
{
	uint16_t i, n = p->n_ports ? p->n_ports : env->n_ports;

	if (env->n_ports == 0)
		BAD("no ports; allowed: at least one env port");
	if (p->n_ports > AIFAB_GEN_MAX_PORTS ||
	    (p->n_ports == 0 && env->n_ports > AIFAB_GEN_MAX_PORTS))
		BAD("n_ports = '%u'; allowed: 0..%u", p->n_ports,
		    AIFAB_GEN_MAX_PORTS);
	for (i = 0; i < n; i++) {
		uint16_t pi = p->n_ports ? p->ports[i] : i;
		uint32_t l3 = (uint32_t)p->ib_mtu + GEN_L3_OVERHEAD;

		if (pi >= env->n_ports || pi >= AIFAB_GEN_MAX_PORTS)
			BAD("ports = '%u': no such port; allowed: 0..%u", pi,
			    RTE_MIN(env->n_ports, AIFAB_GEN_MAX_PORTS) - 1);
		if (env->ports[pi].mtu != 0 && l3 > env->ports[pi].mtu)
			BAD("ib_mtu = '%u': %u-byte IPv4 packets exceed port "
			    "%s's MTU %u; allowed: ib_mtu <= %u or a larger "
			    "port mtu", p->ib_mtu, l3, env->ports[pi].name,
			    env->ports[pi].mtu,
			    (unsigned int)rte_align32prevpow2(
				    RTE_MAX(env->ports[pi].mtu,
					    (uint16_t)GEN_L3_OVERHEAD + 1) -
				    GEN_L3_OVERHEAD));
	}
	return 0;
}

static int
check_params(const struct aifab_env *env, const struct aifab_gen_params *p,
	     unsigned int n_workers, char *err, size_t errlen)
{
	if (n_workers < 1 || n_workers > GEN_MAX_WORKERS)
		BAD("lcores: %u workers; allowed: 1..%u", n_workers,
		    GEN_MAX_WORKERS);
	if (n_workers > 1 && p->virtual_tick_ns != 0)
		BAD("virtual_tick_ns = '%" PRIu64 "' with %u lcores: one clock "
		    "per lcore would drift apart; allowed: 0 with several "
		    "lcores ([general] clock = virtual runs them "
		    "deterministically), or lcores = one lcore",
		    p->virtual_tick_ns, n_workers);
	if (p->n_ranks < 2 || p->n_ranks > AIFAB_GEN_MAX_RANKS)
		BAD("ranks = '%u'; allowed: 2..%u", p->n_ranks,
		    AIFAB_GEN_MAX_RANKS);
	if (p->type >= AIFAB_COLL_TYPE_MAX)
		BAD("collective = '%d'; allowed: a collective type", p->type);
	if (p->n_channels < 1 || p->n_channels > AIFAB_COLL_MAX_CHANNELS)
		BAD("channels = '%u'; allowed: 1..%u", p->n_channels,
		    AIFAB_COLL_MAX_CHANNELS);
	if (p->qps_per_conn < 1 || p->qps_per_conn > GEN_MAX_QPS_PER_CONN)
		BAD("qps_per_conn = '%u'; allowed: 1..%u", p->qps_per_conn,
		    GEN_MAX_QPS_PER_CONN);
	if (p->ib_mtu < AIFAB_ROCE_MTU_MIN || p->ib_mtu > AIFAB_ROCE_MTU_MAX ||
	    !rte_is_power_of_2(p->ib_mtu))
		BAD("ib_mtu = '%u'; allowed: 256, 512, 1024, 2048, 4096",
		    p->ib_mtu);
	if (p->iterations < 1)
		BAD("iterations = '0'; allowed: >= 1");
	if (p->burst_pkts < 1 || p->burst_pkts > 512)
		BAD("burst = '%u'; allowed: 1..512", p->burst_pkts);
	if (p->dscp > 63 || p->ecn > 3)
		BAD("dscp/ecn = '%u/%u'; allowed: 0..63 / 0..3", p->dscp,
		    p->ecn);
	if (p->mbufs > GEN_MAX_EXT_MBUFS)
		BAD("mbufs = '%u'; allowed: 0..%u", p->mbufs,
		    GEN_MAX_EXT_MBUFS);
	if (p->size == 0)
		BAD("size = '0'; allowed: >= 1 byte");
	if (p->window < 1 || p->window > AIFAB_RC_MAX_WINDOW)
		BAD("window = '%u'; allowed: 1..%u", p->window,
		    AIFAB_RC_MAX_WINDOW);
	if (p->ack_every < 1 || p->ack_every > AIFAB_RC_MAX_ACK_EVERY)
		BAD("ack_every = '%u'; allowed: 1..%u", p->ack_every,
		    AIFAB_RC_MAX_ACK_EVERY);
	/* The responder ACKs every ack_every packets and on AckReq, which
	 * the requester sets on a message's last packet only (as lib/rc's
	 * responder, a coalescing RoCE responder does not know the sender's
	 * window): with ack_every > window, a window inside a long message
	 * gets no ACK, and every window waits for the retransmit timer. */
	if (p->closed_loop && p->ack_every > p->window)
		BAD("ack_every = '%u' > window = '%u': a full window would get "
		    "no ACK before the retransmit timeout (AckReq is on a "
		    "message's last packet only); allowed: 1..window (%u)",
		    p->ack_every, p->window, p->window);
	if (p->retx_timeout_ns < 1000 ||
	    p->retx_timeout_ns > AIFAB_RC_MAX_TIMEOUT_NS)
		BAD("retx_timeout_us = '%" PRIu64 "'; allowed: 1..%llu",
		    p->retx_timeout_ns / 1000,
		    (unsigned long long)(AIFAB_RC_MAX_TIMEOUT_NS / 1000));
	if (p->max_msgs > AIFAB_RC_MAX_MSGS)
		BAD("max_msgs = '%u'; allowed: 0..%u", p->max_msgs,
		    AIFAB_RC_MAX_MSGS);
	if (p->cnp_dscp > 63 || p->cnp_ecn > 3)
		BAD("cnp_dscp/cnp_ecn = '%u/%u'; allowed: 0..63 / 0..3",
		    p->cnp_dscp, p->cnp_ecn);
	if (p->data_prio >= AIFAB_PFC_NUM_PRIO ||
	    p->cnp_prio >= AIFAB_PFC_NUM_PRIO)
		BAD("PFC priorities of data/CNP = '%u/%u'; allowed: 0..7",
		    p->data_prio, p->cnp_prio);
	if (p->fault.match >= AIFAB_FAULT_MATCH_MAX ||
	    p->fault.drop_ppm > AIFAB_FAULT_PPM_MAX ||
	    p->fault.ce_ppm > AIFAB_FAULT_PPM_MAX)
		BAD("fault: match %u, drop_ppm %u, ce_ppm %u; allowed: "
		    "data/roce/all and 0..%u ppm", p->fault.match,
		    p->fault.drop_ppm, p->fault.ce_ppm, AIFAB_FAULT_PPM_MAX);
	if (p->virtual_tick_ns > 1000000000ull)
		BAD("virtual_tick_ns = '%" PRIu64 "'; allowed: 0..1000000000",
		    p->virtual_tick_ns);
	if (!(p->gpu_hour_usd >= 0))
		BAD("gpu_hour_usd = '%f'; allowed: >= 0", p->gpu_hour_usd);
	if (p->closed_loop && !p->rx)
		BAD("closed_loop = 'true' with rx = 'false'; allowed: rx = "
		    "true (ACKs must come back)");
	return check_ports(env, p, err, errlen);
}

/* ---- building ------------------------------------------------------------ */

/* The env port rank @p r sends from and receives on. */
static uint16_t
rank_port(const struct gen *g, uint32_t r)
{
	if (g->rank_port != NULL && g->rank_port[r] != UINT16_MAX)
		return g->rank_port[r];
	return g->used_ports[r % g->n_used_ports];
}

/* The random draws of one QP, in the order every host makes them. */
struct qp_draw {
	uint32_t psn, rkey;
	uint64_t va;
};

static struct qp_draw
qp_draw(struct aifab_rng *rng)
{
	struct qp_draw d;

	d.psn = aifab_rng_u32(rng) & AIFAB_ROCE_PSN_MASK;
	d.va = aifab_rng_u64(rng) & 0x00007FFFFFFFF000ull;
	d.rkey = aifab_rng_u32(rng);
	return d;
}

/* Conn @p i, QP number @p gi of the whole collective (QPN, UDP source
 * port and random draws are the same on every host). */
static int
conn_qp_init(struct gen *g, uint32_t i, uint32_t gi, struct qp_draw d)
{
	struct gen_conn *cn = &g->conns[i];
	struct aifab_roce_qp_params qp = {
		.qpn = g->p.qpn_base + 2 * gi,
		.dqpn = g->p.qpn_base + 2 * gi + 1,
		.start_psn = d.psn,
		.dscp = g->chan_dscp[cn->channel],
		.ecn = g->chan_ecn[cn->channel],
		.mtu = g->p.ib_mtu,
		.remote_va = d.va,
		.rkey = d.rkey,
	};

	if (g->p.sport_count > 0)
		qp.sport = (uint16_t)(g->p.sport_base + gi % g->p.sport_count);
	gen_rank_addr(&g->p, cn->src, &qp.smac, &qp.sip);
	gen_rank_addr(&g->p, cn->dst, &qp.dmac, &qp.dip);
	/* Through a switch: each end sends to its own port's gateway. */
	qp.has_rev = true;
	qp.rsmac = qp.dmac;
	qp.rdmac = qp.smac;
	if (g->p.has_gw[rank_port(g, cn->src)])
		qp.dmac = g->p.gw_mac[rank_port(g, cn->src)];
	if (g->p.has_gw[rank_port(g, cn->dst)])
		qp.rdmac = g->p.gw_mac[rank_port(g, cn->dst)];
	if (aifab_roce_qp_init(&cn->qp, &qp, g->pl) != 0)
		return -1;
	aifab_roce_rx_init(&cn->rx, qp.start_psn);
	return 0;
}

/* Per channel DSCP/ECN: dscp/ecn, then the channel_dscp list. */
static int
chan_tos(struct gen *g, char *err, size_t errlen)
{
	const char *list = g->p.channel_dscp;
	char buf[512], *tok, *save = NULL, *end;
	unsigned long d, e;
	uint32_t c = 0;

	for (c = 0; c < AIFAB_COLL_MAX_CHANNELS; c++) {
		g->chan_dscp[c] = g->p.dscp;
		g->chan_ecn[c] = g->p.ecn;
	}
	if (list == NULL || list[0] == '\0')
		return 0;
	if (strlen(list) >= sizeof(buf))
		BAD("channel_dscp = '%.40s...': too long; allowed: up to %zu "
		    "characters", list, sizeof(buf) - 1);
	snprintf(buf, sizeof(buf), "%s", list);
	c = 0;
	for (tok = strtok_r(buf, " ,\t", &save); tok != NULL;
	     tok = strtok_r(NULL, " ,\t", &save), c++) {
		if (c >= g->n_chan)
			BAD("channel_dscp = '%s': '%s' is one entry too many; "
			    "allowed: up to channels (%u) entries", list, tok,
			    g->n_chan);
		errno = 0;
		d = strtoul(tok, &end, 10);
		e = g->p.ecn;
		if (end != tok && *end == '/') {
			char *e0 = end + 1;

			e = strtoul(e0, &end, 10);
			if (end == e0)
				e = 4;
		}
		if (errno != 0 || end == tok || *end != '\0' || d > 63 || e > 3)
			BAD("channel_dscp = '%s': '%s'; allowed: dscp[/ecn] "
			    "with dscp 0..63, ecn 0..3, per channel", list, tok);
		g->chan_dscp[c] = (uint8_t)d;
		g->chan_ecn[c] = (uint8_t)e;
	}
	return 0;
}

/* QP number of the whole collective of conn @p i. */
static uint32_t
conn_gidx(const struct gen *g, uint32_t i)
{
	return g->conn_gidx != NULL ? g->conn_gidx[i] : i;
}

/*
 * One connection (qps_per_conn QPs) per distinct (rank, peer, channel), in
 * the order of the rank's schedule; each rank has the same number of them
 * (g->qps_per_rank) in every collective, so rank r's QPs are numbered from
 * r x qps_per_rank on every host. This process keeps those with an end
 * among its ranks (every QP when it owns every rank), walking the ranks
 * whose schedule it has. @p slot: N x C entries, all UINT32_MAX. @p fill
 * false: only count them (and set g->qps_per_rank).
 */
static int
conns_walk(struct gen *g, uint32_t *slot, bool fill, uint32_t *n_kept)
{
	uint32_t nq = g->p.qps_per_conn, n = 0, r, e, cnt, q, j;

	for (r = 0; r < g->p.n_ranks; r++) {
		const struct aifab_coll_step *s =
			aifab_coll_plan_rank(g->plan, r, &cnt);

		if (s == NULL)
			continue;
		for (e = 0, j = 0; e < cnt; e++) {
			uint32_t *sl = &slot[s[e].peer * g->n_chan + s[e].channel];
			bool keep = g->own[r] || g->own[s[e].peer];

			if (*sl == UINT32_MAX) {
				*sl = keep ? n : UINT32_MAX - 1;
				for (q = 0; fill && keep && q < nq; q++) {
					g->conns[n + q].src = r;
					g->conns[n + q].dst = s[e].peer;
					g->conns[n + q].channel = s[e].channel;
					if (g->conn_gidx != NULL)
						g->conn_gidx[n + q] = r *
							g->qps_per_rank + j + q;
				}
				n += keep ? nq : 0;
				j += nq;
			}
			if (fill)
				g->ranks[r].entry_conn[e] = keep ? *sl : UINT32_MAX;
		}
		for (e = 0; e < cnt; e++)
			slot[s[e].peer * g->n_chan + s[e].channel] = UINT32_MAX;
		if (g->qps_per_rank == 0)
			g->qps_per_rank = j;
		if (j != g->qps_per_rank)
			return -1;
	}
	*n_kept = n;
	return 0;
}

/* Per rank with a schedule: its entries' conns; false: out of memory. */
static bool
alloc_entry_conn(struct gen *g)
{
	uint32_t i, steps_per_rank = g->n_steps * g->n_chan, cnt;
	int socket = rte_socket_id();

	for (i = 0; i < g->p.n_ranks; i++) {
		if (aifab_coll_plan_rank(g->plan, i, &cnt) == NULL)
			continue;
		g->ranks[i].entry_conn = rte_malloc_socket("gen_ec",
			sizeof(uint32_t) * steps_per_rank, 0, socket);
		if (g->ranks[i].entry_conn == NULL)
			return false;
	}
	return true;
}

/* Per own rank: the active list (open loop: the QPs of one step; closed
 * loop: every QP it has). */
static int
build_rank_conns(struct gen *g, char *err, size_t errlen)
{
	uint32_t i;
	int socket = rte_socket_id();

	for (i = 0; i < g->n_conns; i++) {
		g->conns[i].q = i % g->p.qps_per_conn;
		g->ranks[g->conns[i].src].n_conns++;
	}
	for (i = 0; i < g->n_own; i++) {
		struct gen_rank *rk = &g->ranks[g->own_list[i]];

		rk->act = rte_malloc_socket("gen_act", sizeof(uint32_t) *
			RTE_MAX(rk->n_conns, g->n_chan * g->p.qps_per_conn), 0,
			socket);
		if (rk->act == NULL)
			BAD("out of memory for %u QPs (raise -m)", g->n_conns);
	}
	return 0;
}

static int
build_conns(struct gen *g, char *err, size_t errlen)
{
	uint32_t *slot, i, n, all, next = 0;
	struct aifab_rng rng;
	int socket = rte_socket_id();

	slot = rte_malloc("gen_slot", sizeof(*slot) * g->p.n_ranks * g->n_chan,
			  0);
	if (slot == NULL)
		BAD("out of memory (raise -m)");
	memset(slot, 0xff, sizeof(*slot) * g->p.n_ranks * g->n_chan);
	if (conns_walk(g, slot, false, &n) != 0) {
		rte_free(slot);
		BAD("collective = '%s': ranks have different numbers of QPs; "
		    "allowed: a collective whose ranks have as many peers",
		    aifab_coll_type_name(g->p.type));
	}
	all = g->qps_per_rank * g->p.n_ranks;
	if (all > GEN_MAX_CONNS ||
	    g->p.qpn_base + 2ull * all > AIFAB_ROCE_QPN_MASK) {
		rte_free(slot);
		BAD("%u QPs from qpn_base 0x%x; allowed: up to %u QPs below "
		    "2^24", all, g->p.qpn_base, GEN_MAX_CONNS);
	}
	g->n_conns = n;
	g->conns = rte_zmalloc_socket("gen_conns", sizeof(*g->conns) * n,
				      RTE_CACHE_LINE_SIZE, socket);
	if (n < all)
		g->conn_gidx = rte_malloc_socket("gen_gidx", sizeof(uint32_t) *
						 n, 0, socket);
	if (g->conns == NULL || (n < all && g->conn_gidx == NULL) ||
	    !alloc_entry_conn(g)) {
		rte_free(slot);
		BAD("out of memory for %u QPs (raise -m)", n);
	}
	conns_walk(g, slot, true, &n);
	rte_free(slot);
	if (build_rank_conns(g, err, errlen) != 0)
		return -1;
	aifab_rng_seed(&rng, g->p.seed, 0x9e4);
	for (i = 0; i < n; i++) {
		uint32_t gi = conn_gidx(g, i);

		for (; next < gi; next++)
			qp_draw(&rng);  /* another host's QP */
		next = gi + 1;
		if (conn_qp_init(g, i, gi, qp_draw(&rng)) != 0)
			BAD("QP %u: invalid QP parameters", gi);
	}
	return 0;
}

/* The largest message a QP gets must fit a RETH DMA length. */
static int
check_msg_sizes(const struct gen *g, char *err, size_t errlen)
{
	uint32_t r, e, cnt;
	uint64_t max = 0;

	for (r = 0; r < g->p.n_ranks; r++) {
		const struct aifab_coll_step *s =
			aifab_coll_plan_rank(g->plan, r, &cnt);

		for (e = 0; s != NULL && e < cnt; e++)
			max = RTE_MAX(max, s[e].bytes);
	}
	if ((max + g->p.qps_per_conn - 1) / g->p.qps_per_conn >
	    AIFAB_ROCE_MSG_MAX)
		BAD("size = '%" PRIu64 "': a message of %" PRIu64 " bytes "
		    "per QP; allowed: up to 4 GiB - 1 per message",
		    g->p.size, max);
	return 0;
}

static void
setup_rank(struct gen *g, uint32_t r, uint32_t ranks_on_port)
{
	struct gen_rank *rk = &g->ranks[r];
	const struct aifab_port_rt *pr;
	uint64_t mbps, frame = (uint64_t)g->p.ib_mtu + 14 + GEN_L3_OVERHEAD +
		GEN_WIRE_EXTRA;
	uint32_t cnt;
	double bps;

	rk->port = rank_port(g, r);
	pr = &g->env.ports[rk->port];
	rk->sched = aifab_coll_plan_rank(g->plan, r, &cnt);
	mbps = g->p.rate_mbps ? g->p.rate_mbps :
		pr->speed_mbps / RTE_MAX(ranks_on_port, 1u);
	rk->depth = (int64_t)((g->p.bursty ? g->p.burst_pkts : 1) * frame)
		<< GEN_FP;
	rk->tokens = rk->depth;
	rk->line_mbps = mbps ? (double)mbps :
		(pr->speed_mbps ? (double)pr->speed_mbps : 100000.0);
	if (mbps == 0 || g->hz == 0)
		return; /* unpaced */
	bps = (double)mbps * 1e6 / 8.0;
	rk->rate_fp = (uint64_t)(bps * (double)(1u << GEN_FP) /
				 (double)g->hz);
	if (rk->rate_fp == 0)
		rk->rate_fp = 1;
	rk->max_idle = ((uint64_t)INT64_MAX >> 2) / rk->rate_fp;
	rk->rate_rcp = rte_reciprocal_value_u64(rk->rate_fp);
}

/* Each worker's pools (`mbufs` frames each): no mempool shared by
 * lcores, so no cache traffic between them. */
static int
build_pools(struct gen *g, char *err, size_t errlen)
{
	uint32_t n = g->p.mbufs ? g->p.mbufs : GEN_DEFAULT_MBUFS;
	int socket = rte_socket_id();
	char name[RTE_MEMPOOL_NAMESIZE];
	unsigned int w;

	g->pl = aifab_roce_payload_create(g->p.ib_mtu, g->p.seed, socket);
	if (g->pl == NULL)
		BAD("cannot create the payload: %s (raise -m)",
		    rte_strerror(rte_errno));
	/* The payload's bytes after the tag are in every frame of ours, and
	 * frames that come back through a switch keep them: the receive
	 * check compares them there instead of folding them (NULL, out of
	 * memory: folded) */
	if (g->pl->len > AIFAB_ROCE_TAG_LEN)
		g->icrc_known = aifab_icrc_known_create(g->pl->buf,
				g->pl->len - AIFAB_ROCE_TAG_LEN,
				AIFAB_ROCE_TAG_LEN);
	for (w = 0; w < g->n_wk; w++) {
		struct gen_wk *wk = &g->wk[w];

		snprintf(name, sizeof(name), "gen_h%u_%" PRIxPTR, w,
			 (uintptr_t)g & 0xffffff);
		wk->hdr_pool = rte_pktmbuf_pool_create(name, 2 * n,
				GEN_POOL_CACHE, 0, RTE_PKTMBUF_HEADROOM + 128,
				socket);
		snprintf(name, sizeof(name), "gen_f%u_%" PRIxPTR, w,
			 (uintptr_t)g & 0xffffff);
		wk->frame_pool = aifab_roce_frame_pool_create(name, n,
				GEN_POOL_CACHE, g->pl, socket);
		if (wk->hdr_pool == NULL || wk->frame_pool == NULL)
			BAD("lcore %u: cannot create pools of %u mbufs: %s "
			    "(raise -m or lower mbufs)", w, n,
			    rte_strerror(rte_errno));
	}
	return 0;
}

/*
 * The workers ([generator] lcores): the ranks emulated here dealt round
 * robin (own_list[i] to worker i % n), so each has an even share of the
 * ranks on every port. Ranks, not QPs: a rank's token bucket, schedule
 * and step gating are its own, so all its sending stays on one lcore;
 * only a QP's two ends may be on two. Worker w uses TX queue txq + w and
 * RX queue rxq + w (where the port has it) of every port; with more than
 * one, each gets an inbox ring for frames the others receive for it.
 */
static int
build_workers(struct gen *g, unsigned int n, char *err, size_t errlen)
{
	int socket = rte_socket_id();
	uint32_t i, cnt[GEN_MAX_WORKERS] = { 0 };
	char name[RTE_RING_NAMESIZE];
	unsigned int w;
	uint16_t u;

	for (u = 0; u < g->n_used_ports; u++) {
		const struct aifab_port_rt *pr = &g->env.ports[g->used_ports[u]];

		if ((unsigned int)g->p.txq + n > pr->nb_txq)
			BAD("lcores: %u lcores need TX queues %u..%u on port "
			    "%s (%s), it has %u; allowed: up to %u lcores "
			    "(net_pcap: one tx_pcap per queue)", n, g->p.txq,
			    g->p.txq + n - 1, pr->name, pr->device,
			    pr->nb_txq, pr->nb_txq > g->p.txq ?
			    pr->nb_txq - g->p.txq : 0);
	}
	g->n_wk = n;
	g->wk = rte_zmalloc_socket("gen_wk", sizeof(*g->wk) * n,
				   RTE_CACHE_LINE_SIZE, socket);
	g->rank_wk = calloc(g->p.n_ranks, sizeof(*g->rank_wk));
	if (g->wk == NULL || g->rank_wk == NULL)
		BAD("out of memory (raise -m)");
	for (i = 0; i < g->n_own; i++) {
		g->rank_wk[g->own_list[i]] = (uint8_t)(i % n);
		cnt[i % n]++;
	}
	for (w = 0; w < n; w++) {
		struct gen_wk *wk = &g->wk[w];

		wk->g = g;
		wk->w = w;
		wk->txq = (uint16_t)(g->p.txq + w);
		wk->rxq = (uint16_t)(g->p.rxq + w);
		wk->own_list = calloc(RTE_MAX(cnt[w], 1u),
				      sizeof(*wk->own_list));
		if (wk->own_list == NULL)
			BAD("out of memory");
		if (n > 1) {
			snprintf(name, sizeof(name), "gen_in%u_%" PRIxPTR, w,
				 (uintptr_t)g & 0xffffff);
			wk->inbox = rte_ring_create(name, GEN_INBOX, socket,
						    RING_F_SC_DEQ);
			if (wk->inbox == NULL)
				BAD("lcore %u: cannot create its hand-off "
				    "ring: %s (raise -m)", w,
				    rte_strerror(rte_errno));
		}
	}
	for (i = 0; i < g->n_own; i++) {
		struct gen_wk *wk = &g->wk[i % n];

		wk->own_list[wk->n_own++] = g->own_list[i];
	}
	return gen_vclock_build(g, err, errlen);
}

/* PFC honouring and the fault stage per port; departure stamps. */
static int
build_ports(struct gen *g, char *err, size_t errlen)
{
	int flag;
	uint16_t u;

	g->ts_off = rte_mbuf_dynfield_lookup(RTE_MBUF_DYNFIELD_TIMESTAMP_NAME,
					     NULL);
	flag = rte_mbuf_dynflag_lookup(RTE_MBUF_DYNFLAG_RX_TIMESTAMP_NAME, NULL);
	g->ts_flag = flag >= 0 ? RTE_BIT64(flag) : 0;
	if (g->ts_flag == 0)
		g->ts_off = -1;
	g->data_tos = (uint8_t)(g->p.dscp << 2 | g->p.ecn);
	g->cnp_tos = (uint8_t)(g->p.cnp_dscp << 2 | g->p.cnp_ecn);
	/* Our frames' payload past the tag is the frame pool's, shared by
	 * every frame an mbuf carries (and in-memory wires hand the same mbuf
	 * to the receiver): a corruption flips a bit of the tag only, which
	 * the next frame rewrites. */
	g->p.fault.corrupt_head = AIFAB_ROCE_TAG_LEN;
	for (u = 0; u < g->n_used_ports; u++) {
		uint16_t p = g->used_ports[u];
		uint32_t sp = g->env.ports[p].speed_mbps;

		unsigned int w;

		rte_spinlock_init(&g->pfc_lock[p]);
		if (aifab_pfc_rx_init(&g->pfc[p], sp ? sp : 10000,
				      g->hz) != 0)
			BAD("port %s: speed %u Mb/s, clock %" PRIu64 " Hz: "
			    "cannot time PFC pauses; allowed: speed 1..%u",
			    g->env.ports[p].name, sp, g->hz,
			    AIFAB_PFC_SPEED_MAX_MBPS);
		/* One stage per worker and port; worker 0's draws are
		 * those of a one-lcore run. */
		for (w = 0; w < g->n_wk; w++)
			if (aifab_fault_init(&g->wk[w].port[p].fault,
					     &g->p.fault,
					     p + w * AIFAB_GEN_MAX_PORTS) != 0)
				BAD("fault: invalid parameters");
	}
	return 0;
}

/*
 * The plan: the schedule of every rank this process needs, its own and
 * those they send to or receive from (a receiver walks its sender's
 * schedule; closed loop pairs each entry with both): O(own ranks x steps).
 */
static int
build_plan(struct gen *g, char *err, size_t errlen)
{
	struct aifab_coll_params cp = {
		.type = g->p.type, .n_ranks = g->p.n_ranks, .size = g->p.size,
		.n_channels = g->p.n_channels,
	};
	uint32_t n = aifab_coll_n_steps(&cp) * cp.n_channels, i, e;
	struct aifab_coll_step *row = NULL;
	uint8_t *want = NULL;

	if (g->n_own < g->p.n_ranks && n > 0) {
		want = calloc(g->p.n_ranks, 1);
		row = malloc(sizeof(*row) * n);
		if (want == NULL || row == NULL) {
			free(want);
			free(row);
			BAD("out of memory for the schedule of %u ranks",
			    g->n_own);
		}
		for (i = 0; i < g->n_own; i++) {
			want[g->own_list[i]] = 1;
			aifab_coll_rank_sched(&cp, g->own_list[i], row);
			for (e = 0; e < n; e++) {
				want[row[e].peer] = 1;
				want[row[e].recv_from] = 1;
			}
		}
		free(row);
	}
	g->plan = aifab_coll_plan_create_for(&cp, want);
	free(want);
	if (g->plan == NULL)
		BAD("collective = '%s' with %u ranks: %s; allowed: a power of "
		    "two ranks for halving-doubling",
		    aifab_coll_type_name(g->p.type), g->p.n_ranks,
		    rte_strerror(rte_errno));
	return 0;
}

/*
 * Several workers on a port with an RX queue each (a NIC with RSS): one
 * rte_flow rule per rank of the port, IPv4 destination = the rank's
 * address -> its worker's RX queue. Data frames go to their receiving
 * rank, ACKs, NAKs and CNPs to the sending rank: each lands where its QP
 * end lives, with no hand-off. A PMD that refuses the first rule of a
 * port (vdevs, most of them) leaves that port to the hand-off; so does a
 * table that fills up. The rules go with the port (closed before fini).
 */
static void
build_steering(struct gen *g)
{
	struct rte_flow_attr attr = { .ingress = 1 };
	struct rte_flow_item_ipv4 spec, mask;
	struct rte_flow_item pattern[] = {
		{ .type = RTE_FLOW_ITEM_TYPE_ETH },
		{ .type = RTE_FLOW_ITEM_TYPE_IPV4, .spec = &spec, .mask = &mask },
		{ .type = RTE_FLOW_ITEM_TYPE_END },
	};
	struct rte_flow_action_queue q;
	struct rte_flow_action act[] = {
		{ .type = RTE_FLOW_ACTION_TYPE_QUEUE, .conf = &q },
		{ .type = RTE_FLOW_ACTION_TYPE_END },
	};
	struct rte_flow_error fe;
	bool refused[AIFAB_GEN_MAX_PORTS] = { false };
	struct rte_ether_addr mac;
	uint32_t i, ip;

	if (g->n_wk < 2)
		return;
	memset(&mask, 0, sizeof(mask));
	mask.hdr.dst_addr = RTE_BE32(0xffffffff);
	for (i = 0; i < g->n_own; i++) {
		uint32_t r = g->own_list[i];
		uint16_t p = g->ranks[r].port;
		const struct aifab_port_rt *pr = &g->env.ports[p];

		if (refused[p] || (unsigned int)g->p.rxq + g->n_wk > pr->nb_rxq)
			continue;
		gen_rank_addr(&g->p, r, &mac, &ip);
		memset(&spec, 0, sizeof(spec));
		spec.hdr.dst_addr = rte_cpu_to_be_32(ip);
		q.index = (uint16_t)(g->p.rxq + g->rank_wk[r]);
		memset(&fe, 0, sizeof(fe));
		if (rte_flow_create(pr->port_id, &attr, pattern, act, &fe) !=
		    NULL) {
			g->flow_rules[p]++;
			continue;
		}
		refused[p] = true;  /* the rest of it: hand-off */
		RTE_LOG(NOTICE, USER1, "generator: port %s (%s): rte_flow "
			"refused rule %u (IPv4 dst of rank %u -> RX queue "
			"%u): %s (%s); the port's frames of other lcores' "
			"ranks are handed over in software\n", pr->name,
			pr->device, g->flow_rules[p] + 1, r, q.index,
			fe.message != NULL ? fe.message : "no reason given",
			rte_strerror(rte_errno));
	}
	for (i = 0; i < g->n_used_ports; i++) {
		uint16_t p = g->used_ports[i];

		if (g->flow_rules[p] > 0)
			RTE_LOG(NOTICE, USER1, "generator: port %s (%s): %u "
				"rte_flow rules steer its ranks' IPv4 "
				"destinations to their lcores' RX queues%s\n",
				g->env.ports[p].name, g->env.ports[p].device,
				g->flow_rules[p], refused[p] ?
				" (the rest are handed over)" : "");
	}
}

static int
build(struct gen *g, char *err, size_t errlen)
{
	uint32_t on_port[AIFAB_GEN_MAX_PORTS] = { 0 }, r, it;
	int socket = rte_socket_id();
	uint16_t u;

	if (build_plan(g, err, errlen) != 0)
		return -1;
	g->n_steps = aifab_coll_plan_n_steps(g->plan);
	g->n_chan = g->p.n_channels;
	g->total_iters = g->p.warmup + g->p.iterations;
	g->hz = g->p.virtual_tick_ns ? GEN_VT_HZ : g->env.tsc_hz;
	g->ns_per_tsc = g->hz ? 1e9 / (double)g->hz : 1.0;
	g->linger = (uint64_t)(RTE_MAX((double)GEN_LINGER_S * 1e9,
				       8.0 * (double)g->p.retx_timeout_ns) /
			       g->ns_per_tsc);
	if (check_msg_sizes(g, err, errlen) != 0 ||
	    build_pools(g, err, errlen) != 0)
		return -1;
	g->ranks = rte_zmalloc_socket("gen_ranks",
				      sizeof(*g->ranks) * g->p.n_ranks,
				      RTE_CACHE_LINE_SIZE, socket);
	g->iter_start = rte_malloc_socket("gen_it", sizeof(uint64_t) *
					  g->total_iters, 0, socket);
	g->iter_end = rte_zmalloc_socket("gen_it", sizeof(uint64_t) *
					 g->total_iters, 0, socket);
	g->iter_ranks_done = rte_zmalloc_socket("gen_it", sizeof(uint32_t) *
						g->total_iters, 0, socket);
	g->irec = rte_zmalloc_socket("gen_irec", sizeof(*g->irec) *
				     g->total_iters, 0, socket);
	if (g->ranks == NULL || g->iter_start == NULL || g->iter_end == NULL ||
	    g->iter_ranks_done == NULL || g->irec == NULL)
		BAD("out of memory (raise -m)");
	for (it = 0; it < g->total_iters; it++) {
		g->iter_start[it] = UINT64_MAX;
		g->irec[it].slow_step = UINT32_MAX;
	}
	for (r = 0; r < g->n_own; r++)
		on_port[rank_port(g, g->own_list[r])]++;
	for (r = 0; r < g->p.n_ranks; r++)
		setup_rank(g, r, on_port[rank_port(g, r)]);
	for (u = 0; u < AIFAB_GEN_MAX_PORTS * g->n_wk; u++)
		aifab_roce_hist_reset(&g->wk[u / AIFAB_GEN_MAX_PORTS].port[
			u % AIFAB_GEN_MAX_PORTS].lat);
	if (build_ports(g, err, errlen) != 0 ||
	    chan_tos(g, err, errlen) != 0 ||
	    build_conns(g, err, errlen) != 0 ||
	    gen_stats_create(g, err, errlen) != 0)
		return -1;
	if (g->p.closed_loop && gen_cl_build(g, err, errlen) != 0)
		return -1;
	build_steering(g); /* while the rank table's addresses are here */
	return 0;
}

/*
 * The port sets (generator_priv.h): with distinct used ports, each ring
 * port's tap asks the virtual clock to mark the port when it fills the
 * RX ring (the clock says at its first step whether it does). Every port
 * starts marked: its ring may hold frames already.
 */
static void
port_sets_init(struct gen *g)
{
	uint16_t u, p;

	for (p = 0; p < AIFAB_GEN_MAX_PORTS; p++)
		g->port_u[p] = UINT16_MAX;
	g->port_sets = true;
	for (u = 0; u < g->n_used_ports; u++) {
		p = g->used_ports[u];
		if (p >= AIFAB_GEN_MAX_PORTS || g->port_u[p] != UINT16_MAX)
			g->port_sets = false;
		else
			g->port_u[p] = u;
	}
	if (!g->port_sets) {
		for (p = 0; p < AIFAB_GEN_MAX_PORTS; p++)
			g->port_u[p] = UINT16_MAX;
		return;
	}
	for (u = 0; u < g->n_used_ports; u++) {
		struct aifab_port_rt *rt = &g->env.ports[g->used_ports[u]];

		g->rx_set[u >> 6] |= UINT64_C(1) << (u & 63);
		if (aifab_port_is_ring(rt) && rt->tap != NULL)
			aifab_port_rx_mark_to(rt, &g->rx_set[u >> 6],
					      UINT64_C(1) << (u & 63));
	}
}

void *
aifab_gen_create(const struct aifab_env *env, const struct aifab_gen_params *p,
		 unsigned int n_workers, char *err, size_t errlen)
{
	struct gen_rank_tab tab = { 0 };
	struct gen *g;
	uint16_t i;
	int rc;

	if (check_params(env, p, n_workers, err, errlen) != 0)
		return NULL;
	g = rte_zmalloc_socket("aifab_gen", sizeof(*g), RTE_CACHE_LINE_SIZE,
			       rte_socket_id());
	if (g == NULL) {
		snprintf(err, errlen, "generator: out of memory (raise -m)");
		return NULL;
	}
	g->env = *env;
	g->p = *p;  /* rank_mac/rank_ip/rank_table are read while building */
	g->n_used_ports = p->n_ports ? p->n_ports : env->n_ports;
	for (i = 0; i < g->n_used_ports; i++)
		g->used_ports[i] = p->n_ports ? p->ports[i] : i;
	port_sets_init(g);
	g->go = p->start_tsc;
	rc = p->rank_table != NULL && p->rank_table[0] != '\0' ?
		gen_rank_tab_load(g, &tab, err, errlen) : 0;
	if (rc == 0)
		rc = gen_ranks_own(g, err, errlen);
	if (rc == 0)
		rc = build_workers(g, n_workers, err, errlen);
	if (rc == 0)
		rc = build(g, err, errlen);
	g->p.rank_mac = NULL;
	g->p.rank_ip = NULL;
	g->p.rank_table = NULL;
	g->p.host = NULL;
	g->rank_port = NULL;
	gen_rank_tab_free(&tab);
	if (rc != 0) {
		gen_fini(g);
		return NULL;
	}
	return g;
}

/* What a worker still holds: queued frames, its stash, its inbox. */
static void
wk_free_held(struct gen_wk *wk)
{
	struct rte_mbuf *m;
	uint16_t u, i;

	for (u = 0; u < AIFAB_GEN_MAX_PORTS; u++) {
		struct gen_port *gp = &wk->port[u];

		for (i = 0; i < gp->n_tx; i++)
			rte_pktmbuf_free(gp->tx[i]);
		for (i = 0; i < gp->n_cnp; i++)
			rte_pktmbuf_free(gp->cnp[i]);
		gp->n_tx = 0;
		gp->n_cnp = 0;
	}
	rte_pktmbuf_free_bulk(wk->stash, wk->n_stash);
	wk->n_stash = 0;
	while (wk->inbox != NULL && rte_ring_dequeue(wk->inbox,
						     (void **)&m) == 0)
		rte_pktmbuf_free(m);
	rte_ring_free(wk->inbox);
	wk->inbox = NULL;
}

void
gen_fini(void *st)
{
	struct gen *g = st;
	unsigned int w;
	uint32_t r;

	if (g == NULL)
		return;
	for (w = 0; g->wk != NULL && w < g->n_wk; w++)
		wk_free_held(&g->wk[w]);
	gen_cl_free(g);
	gen_vclock_free(g);
	aifab_stats_free(g->stats);
	for (r = 0; g->ranks != NULL && r < g->p.n_ranks; r++) {
		rte_free(g->ranks[r].entry_conn);
		rte_free(g->ranks[r].act);
	}
	rte_free(g->ranks);
	rte_free(g->conns);
	rte_free(g->conn_gidx);
	rte_free(g->iter_start);
	rte_free(g->iter_end);
	rte_free(g->iter_ranks_done);
	rte_free(g->irec);
	free(g->own);
	free(g->own_list);
	free(g->rank_host);
	free(g->start_dst);
	aifab_coll_plan_free(g->plan);
	/* Frame mbufs hold copies of the payload. Pools with mbufs not
	 * returned are kept; mempool_in_use_at_exit counts them. */
	aifab_roce_payload_free(g->pl);
	aifab_icrc_known_free(g->icrc_known);
	for (w = 0; g->wk != NULL && w < g->n_wk; w++) {
		aifab_pipeline_pool_free(g->wk[w].hdr_pool, "generator");
		aifab_pipeline_pool_free(g->wk[w].frame_pool, "generator");
		free(g->wk[w].own_list);
	}
	rte_free(g->wk);
	free(g->rank_wk);
	rte_free(g);
}
