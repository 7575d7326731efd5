/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Building the generator and freeing it: params (defaults, validation),
 * the rank table and addresses, the plan, the ranks and their pacing, the
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
#include <rte_lcore.h>
#include <rte_malloc.h>
#include <rte_mbuf.h>
#include <rte_mbuf_dyn.h>
#include <rte_mempool.h>

#include "aifab_rng.h"
#include "generator_priv.h"

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

/* ---- validation ---------------------------------------------------------- */

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

/* ---- building ------------------------------------------------------------ */

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

/* ---- rank table ---------------------------------------------------------- */

struct rank_tab {
	struct rte_ether_addr *mac;
	uint32_t *ip;
	uint16_t *port;
	uint16_t *host;             /* index into g->hosts, 0: no host= */
	uint8_t *seen;
};

static void
rank_tab_free(struct rank_tab *t)
{
	free(t->mac);
	free(t->ip);
	free(t->port);
	free(t->host);
	free(t->seen);
}

/* This process's host name ("" none). */
static const char *
my_host(const struct gen *g)
{
	return g->p.host != NULL ? g->p.host : "";
}

/* Index of host @p name in g->hosts (added if new); -1: too many. */
static int
host_index(struct gen *g, const char *name)
{
	uint16_t h;

	if (g->n_hosts == 0)
		g->n_hosts = 1; /* hosts[0] = "": lines without host= */
	for (h = 1; h < g->n_hosts; h++)
		if (strcmp(g->hosts[h], name) == 0)
			return h;
	if (g->n_hosts == GEN_MAX_HOSTS)
		return -1;
	snprintf(g->hosts[g->n_hosts], sizeof(g->hosts[0]), "%s", name);
	return g->n_hosts++;
}

/* The rank table's host names, ", "-separated, for errors. */
static void
host_names(const struct gen *g, char *buf, size_t len)
{
	size_t o = 0;
	uint16_t h;

	buf[0] = '\0';
	for (h = 1; h < g->n_hosts && o < len; h++)
		o += (size_t)snprintf(buf + o, len - o, "%s%s", h > 1 ? ", " : "",
				      g->hosts[h]);
}

#define TAB_BAD(...) do { \
		int o_ = snprintf(err, errlen, "generator: rank_table = '%s': ", \
				  path); \
		if (o_ > 0 && (size_t)o_ < errlen) \
			snprintf(err + o_, errlen - (size_t)o_, __VA_ARGS__); \
		goto fail; \
	} while (0)

#define TAB_FIELDS "<rank> <mac> <ipv4> [<port>] [host=<name>]"

/* The optional host=NAME field among @p n tokens (removed from them): its
 * g->hosts index in @p *h (0: none); 0, or -1 with err filled. */
static int
rank_tab_host(struct gen *g, const char *path, unsigned int ln, char **tok,
	      unsigned int *n, uint16_t *h, char *err, size_t errlen)
{
	unsigned int i;
	int idx;

	*h = 0;
	for (i = 3; i < *n; i++) {
		if (strncmp(tok[i], "host=", 5) != 0)
			continue;
		if (tok[i][5] == '\0' ||
		    strlen(tok[i] + 5) >= AIFAB_GEN_HOST_LEN || *h != 0)
			TAB_BAD("line %u: '%s'; allowed: one host=<name> of 1..%u "
				"characters", ln, tok[i], AIFAB_GEN_HOST_LEN - 1);
		idx = host_index(g, tok[i] + 5);
		if (idx < 0)
			TAB_BAD("line %u: host '%s' is one too many; allowed: up "
				"to %u hosts", ln, tok[i] + 5, GEN_MAX_HOSTS - 1);
		*h = (uint16_t)idx;
		memmove(&tok[i], &tok[i + 1], sizeof(tok[0]) * (*n - i - 1));
		(*n)--;
		i--;
	}
	return 0;
fail:
	return -1;
}

/* One line: TAB_FIELDS; 0, or -1 with err filled. */
static int
rank_tab_line(struct gen *g, struct rank_tab *t, const char *path,
	      unsigned int ln, char *line, char *err, size_t errlen)
{
	char *tok[6], *save = NULL, *end;
	unsigned int n = 0, i;
	unsigned long r;
	struct in_addr a;
	uint16_t u, h;

	for (tok[0] = strtok_r(line, " \t,", &save); tok[n] != NULL && n < 5;
	     tok[++n] = strtok_r(NULL, " \t,", &save))
		;
	if (n == 0)
		return 0;
	if (n > 5 || rank_tab_host(g, path, ln, tok, &n, &h, err,
				   errlen) != 0) {
		if (n > 5)
			TAB_BAD("line %u: more than 5 fields; allowed: "
				TAB_FIELDS, ln);
		return -1;
	}
	if (n < 3 || n > 4)
		TAB_BAD("line %u: %u fields; allowed: " TAB_FIELDS, ln, n);
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
	t->host[r] = h;
	/* Another host's port is that host's business. */
	if (n == 4 && (h == 0 || strcmp(g->hosts[h], my_host(g)) == 0)) {
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
	t->host = calloc(n, sizeof(*t->host));
	t->seen = calloc(n, 1);
	if (t->mac == NULL || t->ip == NULL || t->port == NULL ||
	    t->host == NULL || t->seen == NULL)
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
	g->rank_host = t->host;     /* kept: aifab_gen_rank_host() */
	t->host = NULL;
	return 0;
}

/* ---- ownership ----------------------------------------------------------- */

/* A leader's start frames go to every rank emulated elsewhere. */
static int
build_start_dst(struct gen *g, char *err, size_t errlen)
{
	uint32_t r, ip;

	if (!g->p.leader || g->n_own == g->p.n_ranks)
		return 0;
	g->start_dst = calloc(g->p.n_ranks - g->n_own, sizeof(*g->start_dst));
	if (g->start_dst == NULL)
		BAD("out of memory for start frames");
	for (r = 0; r < g->p.n_ranks; r++)
		if (!g->own[r])
			rank_addr(&g->p, r, &g->start_dst[g->n_start_dst++], &ip);
	return 0;
}

/* The ranks this process emulates: those of its host and those without a
 * host (every rank without a rank table). */
static int
build_own(struct gen *g, char *err, size_t errlen)
{
	const char *me = my_host(g);
	uint32_t r, n = g->p.n_ranks;
	char names[512];

	g->own = calloc(n, 1);
	g->own_list = calloc(n, sizeof(*g->own_list));
	if (g->rank_host == NULL)
		g->rank_host = calloc(n, sizeof(*g->rank_host));
	if (g->own == NULL || g->own_list == NULL || g->rank_host == NULL)
		BAD("out of memory for %u ranks", n);
	for (r = 0; r < n; r++) {
		uint16_t h = g->rank_host[r];

		if (h == 0 || strcmp(g->hosts[h], me) == 0) {
			g->own[r] = 1;
			g->own_list[g->n_own++] = r;
		}
	}
	host_names(g, names, sizeof(names));
	if (g->n_hosts > 1 && me[0] == '\0')
		BAD("rank_table = '%s' places ranks on hosts (%s) but this "
		    "process has none; allowed: --host (or [general] host) one "
		    "of %s", g->p.rank_table, names, names);
	if (g->n_own == 0)
		BAD("host = '%s' emulates no rank of the rank_table; allowed: "
		    "one of %s", me, names);
	if (strlen(me) >= sizeof(g->host))
		BAD("host = '%s': too long; allowed: up to %zu characters", me,
		    sizeof(g->host) - 1);
	snprintf(g->host, sizeof(g->host), "%s", me);
	return build_start_dst(g, err, errlen);
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
	g->go = p->start_tsc;
	rc = p->rank_table != NULL && p->rank_table[0] != '\0' ?
		rank_tab_load(g, &tab, err, errlen) : 0;
	if (rc == 0)
		rc = build_own(g, err, errlen);
	if (rc == 0)
		rc = build(g, err, errlen);
	g->p.rank_mac = NULL;
	g->p.rank_ip = NULL;
	g->p.rank_table = NULL;
	g->p.host = NULL;
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
	free(g->own);
	free(g->own_list);
	free(g->rank_host);
	free(g->start_dst);
	aifab_coll_plan_free(g->plan);
	/* Mbufs not returned hold the payload: then it is kept, with the
	 * pools, and mempool_in_use_at_exit counts them. */
	if (aifab_roce_payload_free(g->pl) != 0)
		RTE_LOG(WARNING, USER1, "generator: payload still referenced\n");
	aifab_pipeline_pool_free(g->hdr_pool, "generator");
	aifab_pipeline_pool_free(g->ext_pool, "generator");
	rte_free(g);
}
