/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Generator control path: params validation, building the plan, the
 * connections (QPs) and the pools; the report, the summary and the
 * nccl-tests table.
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
#include <rte_lcore.h>
#include <rte_malloc.h>
#include <rte_mbuf.h>
#include <rte_mbuf_dyn.h>
#include <rte_mempool.h>

#include "aifab_rng.h"
#include "generator_priv.h"

#define GEN_NAME(e, s, u, h) #s,
static const char *const gen_ctr_names[] = { GEN_PORT_CTRS(GEN_NAME) };
#undef GEN_NAME

#define GEN_DEFAULT_MBUFS 8192
#define GEN_MAX_EXT_MBUFS 65000 /* payload shinfo refcount is 16 bits */
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

/* ---- validation ------------------------------------------------------------ */

#define BAD(...) do { snprintf(err, errlen, "generator: " __VA_ARGS__); \
		      return -1; } while (0)

static int
check_ports(const struct aifab_env *env, const struct aifab_gen_params *p,
	    char *err, size_t errlen)
{
	uint16_t i, n = p->n_ports ? p->n_ports : env->n_ports;

	if (env->n_ports == 0)
		BAD("no ports; allowed: at least one env port");
	if (p->n_ports > AIFAB_MAX_PORTS)
		BAD("n_ports = '%u'; allowed: 0..%u", p->n_ports,
		    AIFAB_MAX_PORTS);
	for (i = 0; i < n; i++) {
		uint16_t pi = p->n_ports ? p->ports[i] : i;
		uint32_t l3 = (uint32_t)p->ib_mtu + GEN_L3_OVERHEAD;

		if (pi >= env->n_ports)
			BAD("ports = '%u': no such port; allowed: 0..%u", pi,
			    env->n_ports - 1);
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
	if (n_workers != 1)
		BAD("%u workers; allowed: 1 (one lcore emulates all ranks)",
		    n_workers);
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

/* ---- building -------------------------------------------------------------- */

static void
rank_addr(const struct aifab_gen_params *p, uint32_t r,
	  struct rte_ether_addr *mac, uint32_t *ip)
{
	uint32_t low;

	if (p->rank_mac != NULL) {
		*mac = p->rank_mac[r];
	} else {
		*mac = p->base_mac;
		low = ((uint32_t)mac->addr_bytes[3] << 16 |
		       (uint32_t)mac->addr_bytes[4] << 8 |
		       mac->addr_bytes[5]) + r;
		mac->addr_bytes[3] = (uint8_t)(low >> 16);
		mac->addr_bytes[4] = (uint8_t)(low >> 8);
		mac->addr_bytes[5] = (uint8_t)low;
	}
	*ip = p->rank_ip != NULL ? p->rank_ip[r] :
		p->base_ip + r * RTE_MAX(p->ip_stride, 1u);
}

/* The env port rank @p r sends from and receives on. */
static uint16_t
rank_port(const struct gen *g, uint32_t r)
{
	if (g->rank_port != NULL && g->rank_port[r] != UINT16_MAX)
		return g->rank_port[r];
	return g->used_ports[r % g->n_used_ports];
}

/* ---- rank table ------------------------------------------------------------- */

struct rank_tab {
	struct rte_ether_addr *mac;
	uint32_t *ip;
	uint16_t *port;
	uint8_t *seen;
};

static void
rank_tab_free(struct rank_tab *t)
{
	free(t->mac);
	free(t->ip);
	free(t->port);
	free(t->seen);
}

#define TAB_BAD(...) do { \
		int o_ = snprintf(err, errlen, "generator: rank_table = '%s': ", \
				  path); \
		if (o_ > 0 && (size_t)o_ < errlen) \
			snprintf(err + o_, errlen - (size_t)o_, __VA_ARGS__); \
		goto fail; \
	} while (0)

/* One line: "<rank> <mac> <ipv4> [<port>]"; 0, or -1 with err filled. */
static int
rank_tab_line(struct gen *g, struct rank_tab *t, const char *path,
	      unsigned int ln, char *line, char *err, size_t errlen)
{
	char *tok[5], *save = NULL, *end;
	unsigned int n = 0, i;
	unsigned long r;
	struct in_addr a;
	uint16_t u;

	for (tok[0] = strtok_r(line, " \t,", &save); tok[n] != NULL && n < 4;
	     tok[++n] = strtok_r(NULL, " \t,", &save))
		;
	if (n == 0)
		return 0;
	if (n < 3 || n > 4)
		TAB_BAD("line %u: %u fields; allowed: <rank> <mac> <ipv4> "
			"[<port>]", ln, n);
	errno = 0;
	r = strtoul(tok[0], &end, 10);
	if (errno != 0 || *end != '\0' || r >= g->p.n_ranks)
		TAB_BAD("line %u: rank '%s'; allowed: 0..%u", ln, tok[0],
			g->p.n_ranks - 1);
	if (t->seen[r])
		TAB_BAD("line %u: rank %lu listed twice; allowed: each rank "
			"once", ln, r);
	t->seen[r] = 1;
	if (rte_ether_unformat_addr(tok[1], &t->mac[r]) != 0 ||
	    !rte_is_unicast_ether_addr(&t->mac[r]) ||
	    rte_is_zero_ether_addr(&t->mac[r]))
		TAB_BAD("line %u: MAC '%s'; allowed: a unicast MAC "
			"(xx:xx:xx:xx:xx:xx)", ln, tok[1]);
	if (inet_pton(AF_INET, tok[2], &a) != 1)
		TAB_BAD("line %u: IPv4 '%s'; allowed: a dotted quad", ln,
			tok[2]);
	t->ip[r] = rte_be_to_cpu_32(a.s_addr);
	t->port[r] = UINT16_MAX;
	if (n == 4) {
		for (u = 0; u < g->n_used_ports; u++)
			if (strcmp(g->env.ports[g->used_ports[u]].name,
				   tok[3]) == 0)
				break;
		if (u == g->n_used_ports) {
			char names[256] = "";
			size_t o = 0;

			for (i = 0; i < g->n_used_ports && o < sizeof(names);
			     i++)
				o += (size_t)snprintf(names + o,
					sizeof(names) - o, "%s%s", i ? ", " : "",
					g->env.ports[g->used_ports[i]].name);
			TAB_BAD("line %u: port '%s' is not a generator port; "
				"allowed: %s", ln, tok[3], names);
		}
		t->port[r] = g->used_ports[u];
	}
	return 0;
fail:
	return -1;
}

/* Read the rank table into g->p.rank_mac/rank_ip and g->rank_port. */
static int
rank_tab_load(struct gen *g, struct rank_tab *t, char *err, size_t errlen)
{
	const char *path = g->p.rank_table;
	char line[512], *hash;
	unsigned int ln = 0;
	uint32_t r, n = g->p.n_ranks;
	FILE *f;

	t->mac = calloc(n, sizeof(*t->mac));
	t->ip = calloc(n, sizeof(*t->ip));
	t->port = calloc(n, sizeof(*t->port));
	t->seen = calloc(n, 1);
	if (t->mac == NULL || t->ip == NULL || t->port == NULL ||
	    t->seen == NULL)
		BAD("out of memory for the rank table");
	f = fopen(path, "r");
	if (f == NULL)
		BAD("rank_table = '%s': %s; allowed: a readable file", path,
		    strerror(errno));
	while (fgets(line, sizeof(line), f) != NULL) {
		ln++;
		if (strchr(line, '\n') == NULL && !feof(f)) {
			fclose(f);
			BAD("rank_table = '%s': line %u longer than %zu "
			    "characters", path, ln, sizeof(line) - 2);
		}
		hash = strchr(line, '#');
		if (hash != NULL)
			*hash = '\0';
		line[strcspn(line, "\r\n")] = '\0';
		if (rank_tab_line(g, t, path, ln, line, err, errlen) != 0) {
			fclose(f);
			return -1;
		}
	}
	fclose(f);
	for (r = 0; r < n; r++)
		if (!t->seen[r])
			BAD("rank_table = '%s': rank %u missing; allowed: every "
			    "rank 0..%u once", path, r, n - 1);
	g->p.rank_mac = t->mac;
	g->p.rank_ip = t->ip;
	g->rank_port = t->port;
	return 0;
}

static int
conn_qp_init(struct gen *g, uint32_t i, struct aifab_rng *rng)
{
	struct gen_conn *cn = &g->conns[i];
	struct aifab_roce_qp_params qp = {
		.qpn = g->p.qpn_base + 2 * i,
		.dqpn = g->p.qpn_base + 2 * i + 1,
		.start_psn = aifab_rng_u32(rng) & AIFAB_ROCE_PSN_MASK,
		.dscp = g->chan_dscp[cn->channel],
		.ecn = g->chan_ecn[cn->channel],
		.mtu = g->p.ib_mtu,
		.remote_va = (aifab_rng_u64(rng) & 0x00007FFFFFFFF000ull),
		.rkey = aifab_rng_u32(rng),
	};

	if (g->p.sport_count > 0)
		qp.sport = (uint16_t)(g->p.sport_base + i % g->p.sport_count);
	rank_addr(&g->p, cn->src, &qp.smac, &qp.sip);
	rank_addr(&g->p, cn->dst, &qp.dmac, &qp.dip);
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

/*
 * One connection (qps_per_conn QPs) per distinct (rank, peer, channel).
 * @p fill false: only count them.
 */
static uint32_t
conns_walk(struct gen *g, uint32_t *slot, bool fill)
{
	uint32_t nq = g->p.qps_per_conn, n = 0, r, e, cnt, q, k;
	uint32_t width = g->p.n_ranks * g->n_chan;

	for (r = 0; r < g->p.n_ranks; r++) {
		const struct aifab_coll_step *s =
			aifab_coll_plan_rank(g->plan, r, &cnt);

		for (k = 0; k < width; k++)
			slot[k] = UINT32_MAX;
		for (e = 0; e < cnt; e++) {
			uint32_t *sl = &slot[s[e].peer * g->n_chan + s[e].channel];

			if (*sl == UINT32_MAX) {
				*sl = n;
				for (q = 0; fill && q < nq; q++) {
					g->conns[n + q].src = r;
					g->conns[n + q].dst = s[e].peer;
					g->conns[n + q].channel = s[e].channel;
				}
				n += nq;
			}
			if (fill)
				g->ranks[r].entry_conn[e] = *sl;
		}
	}
	return n;
}

static int
build_conns(struct gen *g, char *err, size_t errlen)
{
	uint32_t *slot, i, n, steps_per_rank;
	struct aifab_rng rng;
	int socket = rte_socket_id();

	slot = rte_malloc("gen_slot", sizeof(*slot) * g->p.n_ranks * g->n_chan,
			  0);
	if (slot == NULL)
		BAD("out of memory (raise -m)");
	n = conns_walk(g, slot, false);
	if (n > GEN_MAX_CONNS ||
	    g->p.qpn_base + 2ull * n > AIFAB_ROCE_QPN_MASK) {
		rte_free(slot);
		BAD("%u QPs from qpn_base 0x%x; allowed: up to %u QPs below "
		    "2^24", n, g->p.qpn_base, GEN_MAX_CONNS);
	}
	steps_per_rank = g->n_steps * g->n_chan;
	g->n_conns = n;
	g->conns = rte_zmalloc_socket("gen_conns", sizeof(*g->conns) * n,
				      RTE_CACHE_LINE_SIZE, socket);
	for (i = 0; i < g->p.n_ranks && g->conns != NULL; i++) {
		g->ranks[i].entry_conn = rte_malloc_socket("gen_ec",
			sizeof(uint32_t) * steps_per_rank, 0, socket);
		if (g->ranks[i].entry_conn == NULL)
			break;
	}
	if (g->conns == NULL || i < g->p.n_ranks) {
		rte_free(slot);
		BAD("out of memory for %u QPs (raise -m)", n);
	}
	conns_walk(g, slot, true);
	rte_free(slot);
	for (i = 0; i < n; i++) {
		g->conns[i].q = i % g->p.qps_per_conn;
		g->ranks[g->conns[i].src].n_conns++;
	}
	/* Open loop: the QPs of one step; closed loop: every QP it has. */
	for (i = 0; i < g->p.n_ranks; i++) {
		g->ranks[i].act = rte_malloc_socket("gen_act", sizeof(uint32_t) *
			RTE_MAX(g->ranks[i].n_conns,
				g->n_chan * g->p.qps_per_conn), 0, socket);
		if (g->ranks[i].act == NULL)
			BAD("out of memory for %u QPs (raise -m)", n);
	}
	aifab_rng_seed(&rng, g->p.seed, 0x9e4);
	for (i = 0; i < n; i++)
		if (conn_qp_init(g, i, &rng) != 0)
			BAD("QP %u: invalid QP parameters", i);
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

		for (e = 0; e < cnt; e++)
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
}

static int
build_pools(struct gen *g, char *err, size_t errlen)
{
	uint32_t n = g->p.mbufs ? g->p.mbufs : GEN_DEFAULT_MBUFS;
	int socket = rte_socket_id();
	char name[RTE_MEMPOOL_NAMESIZE];

	snprintf(name, sizeof(name), "gen_h_%" PRIxPTR, (uintptr_t)g & 0xffffff);
	g->hdr_pool = rte_pktmbuf_pool_create(name, 2 * n, GEN_POOL_CACHE, 0,
					      RTE_PKTMBUF_HEADROOM + 128,
					      socket);
	snprintf(name, sizeof(name), "gen_e_%" PRIxPTR, (uintptr_t)g & 0xffffff);
	g->ext_pool = rte_pktmbuf_pool_create(name, n, GEN_POOL_CACHE, 0, 0,
					      socket);
	g->pl = aifab_roce_payload_create(g->p.ib_mtu, g->p.seed, socket);
	if (g->hdr_pool == NULL || g->ext_pool == NULL || g->pl == NULL)
		BAD("cannot create pools of %u mbufs: %s (raise -m or lower "
		    "mbufs)", n, rte_strerror(rte_errno));
	return 0;
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
	for (u = 0; u < g->n_used_ports; u++) {
		uint16_t p = g->used_ports[u];
		uint32_t sp = g->env.ports[p].speed_mbps;

		if (aifab_pfc_rx_init(&g->port[p].pfc, sp ? sp : 10000,
				      g->hz) != 0)
			BAD("port %s: speed %u Mb/s, clock %" PRIu64 " Hz: "
			    "cannot time PFC pauses; allowed: speed 1..%u",
			    g->env.ports[p].name, sp, g->hz,
			    AIFAB_PFC_SPEED_MAX_MBPS);
		if (aifab_fault_init(&g->port[p].fault, &g->p.fault, p) != 0)
			BAD("fault: invalid parameters");
	}
	return 0;
}

static int
build(struct gen *g, char *err, size_t errlen)
{
	struct aifab_coll_params cp = {
		.type = g->p.type, .n_ranks = g->p.n_ranks, .size = g->p.size,
		.n_channels = g->p.n_channels,
	};
	uint32_t on_port[AIFAB_MAX_PORTS] = { 0 }, r, it;
	int socket = rte_socket_id();
	uint16_t u;

	g->plan = aifab_coll_plan_create(&cp);
	if (g->plan == NULL)
		BAD("collective = '%s' with %u ranks: %s; allowed: a power of "
		    "two ranks for halving-doubling",
		    aifab_coll_type_name(g->p.type), g->p.n_ranks,
		    rte_strerror(rte_errno));
	g->n_steps = aifab_coll_plan_n_steps(g->plan);
	g->n_chan = g->p.n_channels;
	g->total_iters = g->p.warmup + g->p.iterations;
	g->hz = g->p.virtual_tick_ns ? GEN_VT_HZ : g->env.tsc_hz;
	g->ns_per_tsc = g->hz ? 1e9 / (double)g->hz : 1.0;
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
	for (r = 0; r < g->p.n_ranks; r++)
		on_port[rank_port(g, r)]++;
	for (r = 0; r < g->p.n_ranks; r++)
		setup_rank(g, r, on_port[rank_port(g, r)]);
	for (u = 0; u < AIFAB_MAX_PORTS; u++)
		aifab_roce_hist_reset(&g->port[u].lat);
	if (build_ports(g, err, errlen) != 0 ||
	    chan_tos(g, err, errlen) != 0 ||
	    build_conns(g, err, errlen) != 0 ||
	    gen_stats_create(g, err, errlen) != 0)
		return -1;
	return g->p.closed_loop ? gen_cl_build(g, err, errlen) : 0;
}

void *
aifab_gen_create(const struct aifab_env *env, const struct aifab_gen_params *p,
		 unsigned int n_workers, char *err, size_t errlen)
{
	struct rank_tab tab = { 0 };
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
	rc = p->rank_table != NULL && p->rank_table[0] != '\0' ?
		rank_tab_load(g, &tab, err, errlen) : 0;
	if (rc == 0)
		rc = build(g, err, errlen);
	g->p.rank_mac = NULL;
	g->p.rank_ip = NULL;
	g->p.rank_table = NULL;
	g->rank_port = NULL;
	rank_tab_free(&tab);
	if (rc != 0) {
		gen_fini(g);
		return NULL;
	}
	return g;
}

void
gen_fini(void *st)
{
	struct gen *g = st;
	uint32_t r;
	uint16_t u, i;

	if (g == NULL)
		return;
	for (u = 0; u < AIFAB_MAX_PORTS; u++) {
		for (i = 0; i < g->port[u].n_tx; i++)
			rte_pktmbuf_free(g->port[u].tx[i]);
		for (i = 0; i < g->port[u].n_cnp; i++)
			rte_pktmbuf_free(g->port[u].cnp[i]);
		g->port[u].n_tx = 0;
		g->port[u].n_cnp = 0;
	}
	gen_cl_free(g);
	aifab_stats_free(g->stats);
	for (r = 0; g->ranks != NULL && r < g->p.n_ranks; r++) {
		rte_free(g->ranks[r].entry_conn);
		rte_free(g->ranks[r].act);
	}
	rte_free(g->ranks);
	rte_free(g->conns);
	rte_free(g->iter_start);
	rte_free(g->iter_end);
	rte_free(g->iter_ranks_done);
	rte_free(g->irec);
	aifab_coll_plan_free(g->plan);
	/* Mbufs not returned hold the payload: then it is kept, with the
	 * pools, and mempool_in_use_at_exit counts them. */
	if (aifab_roce_payload_free(g->pl) != 0)
		RTE_LOG(WARNING, USER1, "generator: payload still referenced\n");
	aifab_pipeline_pool_free(g->hdr_pool, "generator");
	aifab_pipeline_pool_free(g->ext_pool, "generator");
	rte_free(g);
}

/* ---- lib/stats ------------------------------------------------------------ */

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
 * DCQCN). One block, written by the worker (gen_stats_sync()).
 */
int
gen_stats_create(struct gen *g, char *err, size_t errlen)
{
	struct aifab_stats_desc d[GS_N];
	char mal[AIFAB_PKT_ERR_MAX][48], mal_help[AIFAB_PKT_ERR_MAX][96];
	const char *names[AIFAB_MAX_PORTS];
	unsigned int lcore = g->env.worker_lcores != NULL ?
		g->env.worker_lcores[0] : 0;
	struct aifab_stats_params sp = {
		.name = "generator", .descs = d, .n_descs = GS_N,
		.n_ports = g->env.n_ports, .port_names = names,
		.n_tcs = AIFAB_PFC_NUM_PRIO, .n_blocks = 1,
		.block_lcore = &lcore,
		.tsc_hz = g->env.tsc_hz ? g->env.tsc_hz : GEN_VT_HZ,
	};
	unsigned int i;
	uint16_t p;

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
	for (p = 0; p < g->env.n_ports; p++)
		names[p] = g->env.ports[p].name;
	g->stats = aifab_stats_create(&sp);
	if (g->stats == NULL)
		BAD("cannot create its counters: %s", rte_strerror(rte_errno));
	g->blk = aifab_stats_block(g->stats, 0);
	g->sync_cycles = RTE_MAX(sp.tsc_hz / 1000, (uint64_t)1);
	g->rate_min = -1;
	return 0;
}

static inline void
put(struct aifab_stats_block *b, unsigned int id, uint32_t inst, uint64_t v)
{
	b->v[b->off[id] + inst] = v;
}

/* Mirror everything into the block (worker only): values only grow, as
 * the generator's own counters do; gauges are levels. */
void
gen_stats_sync(struct gen *g)
{
	struct aifab_stats_block *b = g->blk;
	uint64_t hz = aifab_stats_tsc_hz(g->stats);
	unsigned int c, k;
	uint16_t u;

	if (b == NULL)
		return;
	for (u = 0; u < g->n_used_ports; u++) {
		uint16_t p = g->used_ports[u];
		const struct gen_port *gp = &g->port[p];

		put(b, GS_TX_PKTS, p, gp->tx_packets);
		put(b, GS_TX_BYTES, p, gp->tx_bytes);
		put(b, GS_RX_PKTS, p, gp->rx_packets);
		put(b, GS_RX_BYTES, p, gp->rx_bytes);
		for (c = 0; c < GEN_CTR_MAX; c++)
			put(b, GS_CTR0 + c, p, gp->ctr[c]);
		for (c = 1; c < AIFAB_PKT_ERR_MAX; c++)
			put(b, GS_MAL0 + c - 1, p, gp->rx_err[c]);
		for (c = 0; c < AIFAB_FAULT_CNT_MAX; c++)
			put(b, GS_FAULT0 + c, p, gp->fault.cnt[c]);
		for (k = 0; k < AIFAB_PFC_NUM_PRIO; k++) {
			uint64_t ns = aifab_pfc_rx_paused_ns(&gp->pfc, k,
							     g->last_now);

			put(b, GS_PFC_RX, p * AIFAB_PFC_NUM_PRIO + k,
			    gp->pfc.stats.v[AIFAB_PFC_CNT_RX][k]);
			put(b, GS_PFC_PAUSED, p * AIFAB_PFC_NUM_PRIO + k,
			    (uint64_t)((double)ns * (double)hz / 1e9));
		}
	}
	/* Mb/s -> bytes/s (Prometheus' base unit) */
	g->glob[GEN_G_RATE_AVG] = g->n_rated ? (uint64_t)(g->rate_last_sum /
		g->n_rated * 1e6 / 8) : 0;
	g->glob[GEN_G_RATE_MIN] = g->rate_min > 0 ?
		(uint64_t)(g->rate_min * 1e6 / 8) : 0;
	for (c = 0; c < GEN_GLOB_MAX; c++)
		put(b, GS_GLOB0 + c, 0, g->glob[c]);
}

/* ---- results --------------------------------------------------------------- */

/* Ideal time at the slowest rank's line rate, and the wait beyond it. */
static void
summary_ideal(const struct gen *g, struct aifab_gen_summary *s)
{
	double rate = 0, t;
	uint32_t r, it;

	for (r = 0; r < g->p.n_ranks; r++)
		if (rate == 0 || g->ranks[r].line_mbps < rate)
			rate = g->ranks[r].line_mbps;
	if (rate <= 0)
		return;
	s->ideal_us = (double)g->p.size * aifab_coll_busbw_factor(
		aifab_coll_type_op(g->p.type), g->p.n_ranks) * 8.0 / rate;
	for (it = g->p.warmup; it < g->total_iters; it++) {
		if (g->iter_ranks_done[it] != g->p.n_ranks)
			continue;
		t = (double)(g->iter_end[it] - g->iter_start[it]) *
			g->ns_per_tsc / 1e3;
		if (t > s->ideal_us)
			s->wait_beyond_ideal_us += t - s->ideal_us;
	}
	s->wait_cost_usd = s->wait_beyond_ideal_us / 3600e6 *
		g->p.n_ranks * g->p.gpu_hour_usd;
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
			s->slowest_rank = i;
}

static void
summary_time(const struct gen *g, struct aifab_gen_summary *s)
{
	double sum = 0, t;
	uint32_t it;

	s->time_us_min = 0;
	s->time_us_max = 0;
	for (it = g->p.warmup; it < g->total_iters; it++) {
		if (g->iter_ranks_done[it] != g->p.n_ranks)
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

/* ---- per QP ---------------------------------------------------------------- */

static void
qp_fill(const struct gen *g, uint32_t i, struct aifab_gen_qp_sum *q)
{
	const struct gen_conn *cn = &g->conns[i];

	memset(q, 0, sizeof(*q));
	q->qpn = g->p.qpn_base + 2 * i;
	q->src = cn->src;
	q->dst = cn->dst;
	q->channel = cn->channel;
	if (g->p.rx) {
		q->lost = aifab_roce_rx_lost(&cn->rx, cn->qp.psn);
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

	s->n_qps = g->n_conns;
	for (i = 0; i < g->n_conns; i++) {
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

		if (p >= 0 && g->ranks[cn->dst].port != p)
			continue;
		*lost += aifab_roce_rx_lost(&cn->rx, cn->qp.psn);
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
	return g->last_now;
}

void
aifab_gen_summary(const void *st, struct aifab_gen_summary *s)
{
	const struct gen *g = st;
	struct aifab_roce_hist *h = malloc(sizeof(*h)); /* 9 KB */
	uint64_t ctr[AIFAB_ROCE_RX_MAX];
	uint16_t u;

	memset(s, 0, sizeof(*s));
	s->op = aifab_coll_op_name(aifab_coll_type_op(g->p.type));
	s->size = g->p.size;
	s->n_ranks = g->p.n_ranks;
	summary_time(g, s);
	if (h != NULL)
		aifab_roce_hist_reset(h);
	for (u = 0; u < g->n_used_ports; u++) {
		const struct gen_port *gp = &g->port[g->used_ports[u]];

		s->tx_packets += gp->tx_packets;
		s->tx_bytes += gp->tx_bytes;
		s->tx_dropped += gp->ctr[GEN_TX_DROPPED];
		s->rx_packets += gp->rx_packets;
		s->rx_roce += gp->ctr[GEN_RX_ROCE];
		s->cnp_rx += gp->ctr[GEN_RX_CNP];
		s->pfc_rx += gp->ctr[GEN_RX_PFC];
		s->paused_us += (double)aifab_pfc_rx_paused_ns(&gp->pfc,
			g->p.data_prio, port_now(g)) / 1e3;
		s->fault_dropped += gp->fault.cnt[AIFAB_FAULT_CNT_DROPPED];
		s->fault_ce_marked += gp->fault.cnt[AIFAB_FAULT_CNT_CE_MARKED];
		if (h != NULL)
			aifab_roce_hist_merge(h, &gp->lat);
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
}

void
gen_report(const void *st, const struct aifab_report_sink *sink)
{
	const struct gen *g = st;
	struct aifab_gen_summary s;
	uint64_t ctr[AIFAB_ROCE_RX_MAX], lost;
	uint16_t u, p;
	unsigned int c;

	for (u = 0; u < g->n_used_ports; u++) {
		const struct gen_port *gp = &g->port[g->used_ports[u]];
		struct aifab_gen_summary ls = { 0 };

		p = g->used_ports[u];
		for (c = 0; c < GEN_CTR_MAX; c++)
			sink->port_u64(sink->ctx, p, "generator",
				       gen_ctr_names[c], gp->ctr[c]);
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
				gp->pfc.stats.v[AIFAB_PFC_CNT_RX][c]);
			sink->port_tc_u64(sink->ctx, p, c, "pfc_paused_ns",
				aifab_pfc_rx_paused_ns(&gp->pfc, c,
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
	fprintf(f, "# ideal %.1f us per collective; waited beyond it "
		"%.1f us in all = $%.6f at $%.2f per GPU-hour x %u ranks\n",
		s.ideal_us, s.wait_beyond_ideal_us, s.wait_cost_usd,
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
