/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The leaf switch pipeline: parse -> route (LPM) -> next-hop group member
 * -> L2 rewrite + TTL/hop-limit decrement -> per-port TX buffer.
 *
 * Each worker polls its share of the RX queues and owns TX queue w on every
 * port, so workers never share a queue or a counter. Counters are per worker
 * and per port, written only by their worker; readers sum them.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>

#include <rte_common.h>
#include <rte_ethdev.h>
#include <rte_lcore.h>
#include <rte_malloc.h>
#include <rte_mbuf.h>
#include <rte_prefetch.h>

#include "aifab_fib.h"
#include "aifab_pipeline.h"
#include "aifab_pkt.h"

/* Drops the switch adds to the parser's reasons (names are report keys). */
#define SW_DROPS(X) \
	X(NO_ROUTE, "no_route") \
	X(NO_NEIGHBOR, "no_neighbor") \
	X(TTL_EXPIRED, "ttl_expired") \
	X(OWN_ADDRESS, "own_address") \
	X(NON_IP, "non_ip") \
	X(ARP, "arp") \
	X(LLDP, "lldp") \
	X(MAC_CONTROL, "mac_control") \
	X(DST_MAC, "dst_mac_mismatch") \
	X(HDR_SEGMENTED, "headers_segmented") \
	X(MTU, "mtu_exceeded") \
	X(TX_FULL, "tx_full")

/* What was seen on receive, not dropped for it. */
#define SW_INFO(X) \
	X(VLAN, "rx_vlan_tagged") \
	X(QINQ, "rx_qinq") \
	X(IP_OPTS, "rx_ipv4_options") \
	X(FRAG, "rx_fragments") \
	X(ROCE, "rx_roce") \
	X(IPV6, "rx_ipv6")

#define SW_ENUM(e, s) SW_DROP_##e,
enum sw_drop { SW_DROPS(SW_ENUM) SW_DROP_MAX };
#undef SW_ENUM
#define SW_ENUM(e, s) SW_INFO_##e,
enum sw_info { SW_INFO(SW_ENUM) SW_INFO_MAX };
#undef SW_ENUM
#define SW_NAME(e, s) s,
static const char *const sw_drop_names[] = { SW_DROPS(SW_NAME) };
static const char *const sw_info_names[] = { SW_INFO(SW_NAME) };
#undef SW_NAME

/* Parser reasons first, then the switch's own. */
#define N_DROPS (AIFAB_PKT_ERR_MAX + SW_DROP_MAX)
#define DROP_IDX(r) (AIFAB_PKT_ERR_MAX + (r))

#define SW_CHUNK 64          /* packets processed per pass */
#define SW_TXBUF 64          /* per (worker, port) before a TX burst */
#define SW_MAX_RXQ (AIFAB_MAX_PORTS * 8)
#define SW_EMPTY_POLLS_EOF 2 /* empty polls of a pcap before calling it EOF */

struct sw_port_ctr {
	uint64_t rx_packets, rx_bytes;
	uint64_t tx_packets, tx_bytes;
	uint64_t drops[N_DROPS];
	uint64_t info[SW_INFO_MAX];
} __rte_cache_aligned;

struct sw_rxq {
	uint16_t port;           /* index into env ports */
	uint16_t queue;
	bool finite;
	uint8_t empty_polls;
	bool exhausted;          /* read by done() on another lcore */
	uint64_t nombuf_seen;
};

struct sw_txbuf {
	uint16_t n;
	struct rte_mbuf *pkts[SW_TXBUF];
};

struct sw_worker {
	struct sw_port_ctr ctr[AIFAB_MAX_PORTS];
	struct sw_txbuf tx[AIFAB_MAX_PORTS];
	uint16_t n_rxq;
	uint16_t txq;
	struct sw_rxq rxq[SW_MAX_RXQ];
	uint8_t scratch[SW_CHUNK][AIFAB_PKT_HDR_WINDOW];
} __rte_cache_aligned;

struct sw {
	struct aifab_env env;
	struct aifab_fib *fib;
	unsigned int n_workers;
	uint32_t burst;
	bool check_csum;
	struct sw_worker *w;     /* n_workers of them */
};

/* ---- FIB from the profile ------------------------------------------------ */

static uint32_t
v4_host(const uint8_t *a)
{
	return ((uint32_t)a[0] << 24) | ((uint32_t)a[1] << 16) |
	       ((uint32_t)a[2] << 8) | a[3];
}

static int
fib_add_port(struct aifab_fib *fib, const struct aifab_port_params *pp)
{
	uint8_t net6[16];
	unsigned int b;
	int rc = 0;

	if (pp->has_ip4) {
		uint32_t mask = pp->ip4_depth ?
			~0u << (32 - pp->ip4_depth) : 0;

		rc |= aifab_fib_route4_add(fib, pp->ip4 & mask, pp->ip4_depth,
					   AIFAB_FIB_UNRESOLVED);
		rc |= aifab_fib_route4_add(fib, pp->ip4, 32, AIFAB_FIB_LOCAL);
	}
	if (pp->has_ip6) {
		memcpy(net6, pp->ip6, 16);
		for (b = pp->ip6_depth; b < 128; b++)
			net6[b / 8] &= (uint8_t)~(0x80u >> (b % 8));
		rc |= aifab_fib_route6_add(fib, net6, pp->ip6_depth,
					   AIFAB_FIB_UNRESOLVED);
		rc |= aifab_fib_route6_add(fib, pp->ip6, 128, AIFAB_FIB_LOCAL);
	}
	return rc;
}

static int
fib_add_route(struct aifab_fib *fib, uint8_t family, const uint8_t *addr,
	      uint8_t depth, uint32_t target)
{
	if (family == AF_INET)
		return aifab_fib_route4_add(fib, v4_host(addr), depth, target);
	return aifab_fib_route6_add(fib, addr, depth, target);
}

static struct aifab_fib *
fib_build(const struct aifab_profile *prof, int socket, char *err,
	  size_t errlen)
{
	struct aifab_fib_params fp = {
		.name = "aifab_sw",
		.socket_id = socket,
		.max_routes4 = prof->n_routes + prof->n_neighs +
			2u * prof->n_ports + 16,
		.max_routes6 = prof->n_routes + prof->n_neighs +
			2u * prof->n_ports + 16,
		.max_nh = RTE_MAX(prof->n_neighs, 1u),
		.max_groups = prof->n_neighs + prof->n_routes + 1u,
	};
	uint16_t nh_of[AIFAB_MAX_NEIGHS];
	uint16_t members[AIFAB_MAX_ECMP];
	struct aifab_fib *fib;
	unsigned int i, k;
	int rc, g;

	fib = aifab_fib_create(&fp);
	if (fib == NULL) {
		snprintf(err, errlen, "switch: cannot create FIB: %s",
			 rte_strerror(rte_errno));
		return NULL;
	}
	for (i = 0; i < prof->n_ports; i++)
		if (fib_add_port(fib, &prof->ports[i]) != 0)
			goto fail;
	for (i = 0; i < prof->n_neighs; i++) {
		const struct aifab_neigh_params *n = &prof->neighs[i];
		uint16_t nh;

		rc = aifab_fib_nh_add(fib, n->port, &n->mac);
		if (rc < 0)
			goto fail;
		nh = (uint16_t)rc;
		nh_of[i] = nh;
		g = aifab_fib_group_add(fib, &nh, 1);
		if (g < 0 || fib_add_route(fib, n->family, n->addr,
			     n->family == AF_INET ? 32 : 128, (uint32_t)g) != 0)
			goto fail;
	}
	for (i = 0; i < prof->n_routes; i++) {
		const struct aifab_route_params *r = &prof->routes[i];

		for (k = 0; k < r->n_nh; k++)
			members[k] = nh_of[r->nh_neigh[k]];
		g = aifab_fib_group_add(fib, members, r->n_nh);
		if (g < 0 || fib_add_route(fib, r->family, r->prefix, r->depth,
					   (uint32_t)g) != 0)
			goto fail;
	}
	return fib;
fail:
	snprintf(err, errlen, "switch: FIB too small for the profile's routes");
	aifab_fib_free(fib);
	return NULL;
}

/* ---- fast path ----------------------------------------------------------- */

static inline void
sw_drop(struct sw_worker *wk, uint16_t port, unsigned int reason,
	struct rte_mbuf *m)
{
	wk->ctr[port].drops[reason]++;
	rte_pktmbuf_free(m);
}

static void
sw_tx_flush(struct sw *sw, struct sw_worker *wk, uint16_t port)
{
	struct sw_txbuf *tb = &wk->tx[port];
	struct sw_port_ctr *c = &wk->ctr[port];
	uint64_t bytes = 0;
	uint16_t i, sent;

	if (tb->n == 0)
		return;
	/* Count before the burst: the PMD may free mbufs as it sends. */
	for (i = 0; i < tb->n; i++)
		bytes += tb->pkts[i]->pkt_len;
	sent = rte_eth_tx_burst(sw->env.ports[port].port_id, wk->txq,
				tb->pkts, tb->n);
	for (i = sent; i < tb->n; i++) {
		bytes -= tb->pkts[i]->pkt_len;
		sw_drop(wk, port, DROP_IDX(SW_DROP_TX_FULL), tb->pkts[i]);
	}
	c->tx_packets += sent;
	c->tx_bytes += bytes;
	tb->n = 0;
}

static inline void
sw_tx(struct sw *sw, struct sw_worker *wk, uint16_t port, struct rte_mbuf *m)
{
	struct sw_txbuf *tb = &wk->tx[port];

	tb->pkts[tb->n++] = m;
	if (tb->n == SW_TXBUF)
		sw_tx_flush(sw, wk, port);
}

static inline void
sw_count_info(struct sw_port_ctr *c, const struct aifab_pkt_info *pi)
{
	c->info[SW_INFO_VLAN] += (pi->flags & AIFAB_PKT_F_VLAN) != 0;
	c->info[SW_INFO_QINQ] += (pi->flags & AIFAB_PKT_F_QINQ) != 0;
	c->info[SW_INFO_IP_OPTS] += (pi->flags & AIFAB_PKT_F_IP_OPTS) != 0;
	c->info[SW_INFO_FRAG] += (pi->flags & AIFAB_PKT_F_FRAG) != 0;
	c->info[SW_INFO_ROCE] += (pi->flags & AIFAB_PKT_F_ROCE) != 0;
	c->info[SW_INFO_IPV6] += pi->l3 == AIFAB_L3_IPV6;
}

/*
 * Admit a parsed frame for routing, or return the drop index. Non-IP
 * frames are counted by kind; PFC/PAUSE are consumed here until the PFC
 * stage exists.
 */
static unsigned int
sw_admit(const struct sw *sw, uint16_t in_port, const struct rte_mbuf *m,
	 const struct aifab_pkt_info *pi)
{
	const struct rte_ether_hdr *eth;

	switch (pi->l3) {
	case AIFAB_L3_IPV4:
	case AIFAB_L3_IPV6:
		break;
	case AIFAB_L3_ARP:
		return DROP_IDX(SW_DROP_ARP);
	case AIFAB_L3_LLDP:
		return DROP_IDX(SW_DROP_LLDP);
	case AIFAB_L3_MAC_CTRL:
		return DROP_IDX(SW_DROP_MAC_CONTROL);
	default:
		return DROP_IDX(SW_DROP_NON_IP);
	}
	/* Headers are rewritten in place: they must sit in the first segment. */
	if ((uint32_t)pi->l3_off + pi->l3_len > rte_pktmbuf_data_len(m))
		return DROP_IDX(SW_DROP_HDR_SEGMENTED);
	eth = rte_pktmbuf_mtod(m, const struct rte_ether_hdr *);
	if (!rte_is_same_ether_addr(&eth->dst_addr, &sw->env.ports[in_port].mac))
		return DROP_IDX(SW_DROP_DST_MAC);
	if (pi->ttl <= 1)
		return DROP_IDX(SW_DROP_TTL_EXPIRED);
	return 0;
}

static unsigned int
sw_target_drop(uint32_t target)
{
	if (target == AIFAB_FIB_MISS)
		return DROP_IDX(SW_DROP_NO_ROUTE);
	if (target == AIFAB_FIB_LOCAL)
		return DROP_IDX(SW_DROP_OWN_ADDRESS);
	if (target == AIFAB_FIB_UNRESOLVED)
		return DROP_IDX(SW_DROP_NO_NEIGHBOR);
	return 0;
}

/* Rewrite L2, decrement TTL / hop limit, queue for TX. */
static void
sw_forward(struct sw *sw, struct sw_worker *wk, uint16_t in_port,
	   struct rte_mbuf *m, const struct aifab_pkt_info *pi,
	   uint32_t target)
{
	const struct aifab_fib_group *g;
	const struct aifab_fib_nh *nh;
	struct rte_ether_hdr *eth;
	uint8_t *l3;
	unsigned int reason = sw_target_drop(target);

	if (reason != 0) {
		sw_drop(wk, in_port, reason, m);
		return;
	}
	g = aifab_fib_group(sw->fib, target);
	/* ECMP member selection arrives with lib/ecmp: first member for now. */
	nh = aifab_fib_nh(sw->fib, g->nh[0]);
	if (pi->ip_len > sw->env.ports[nh->port].mtu) {
		sw_drop(wk, in_port, DROP_IDX(SW_DROP_MTU), m);
		return;
	}
	eth = rte_pktmbuf_mtod(m, struct rte_ether_hdr *);
	rte_ether_addr_copy(&nh->dmac, &eth->dst_addr);
	rte_ether_addr_copy(&sw->env.ports[nh->port].mac, &eth->src_addr);
	l3 = rte_pktmbuf_mtod_offset(m, uint8_t *, pi->l3_off);
	if (pi->l3 == AIFAB_L3_IPV4)
		aifab_ipv4_dec_ttl((struct rte_ipv4_hdr *)l3);
	else
		((struct rte_ipv6_hdr *)l3)->hop_limits--;
	sw_tx(sw, wk, nh->port, m);
}

static void
sw_process(struct sw *sw, struct sw_worker *wk, uint16_t in_port,
	   struct rte_mbuf **pkts, uint16_t n)
{
	struct aifab_pkt_info pi[SW_CHUNK];
	uint32_t ip4[SW_CHUNK], t4[SW_CHUNK], t6[SW_CHUNK];
	uint8_t ip6[SW_CHUNK][16];
	uint16_t idx4[SW_CHUNK], idx6[SW_CHUNK];
	uint16_t n4 = 0, n6 = 0, i;
	struct sw_port_ctr *c = &wk->ctr[in_port];

	for (i = 0; i < n; i++) {
		struct rte_mbuf *m = pkts[i];
		enum aifab_pkt_err e;
		unsigned int reason;
		const uint8_t *l3;

		if (i + 1 < n)
			rte_prefetch0(rte_pktmbuf_mtod(pkts[i + 1], void *));
		c->rx_packets++;
		c->rx_bytes += m->pkt_len;
		e = aifab_pkt_parse_mbuf(m, &pi[i], wk->scratch[i],
					 sw->check_csum);
		if (e != AIFAB_PKT_ERR_OK) {
			sw_drop(wk, in_port, e, m);
			pkts[i] = NULL;
			continue;
		}
		sw_count_info(c, &pi[i]);
		reason = sw_admit(sw, in_port, m, &pi[i]);
		if (reason != 0) {
			sw_drop(wk, in_port, reason, m);
			pkts[i] = NULL;
			continue;
		}
		l3 = rte_pktmbuf_mtod_offset(m, const uint8_t *, pi[i].l3_off);
		if (pi[i].l3 == AIFAB_L3_IPV4) {
			ip4[n4] = rte_be_to_cpu_32(
				((const struct rte_ipv4_hdr *)l3)->dst_addr);
			idx4[n4++] = i;
		} else {
			memcpy(ip6[n6],
			       ((const struct rte_ipv6_hdr *)l3)->dst_addr, 16);
			idx6[n6++] = i;
		}
	}
	if (n4)
		aifab_fib_lookup4_bulk(sw->fib, ip4, t4, n4);
	if (n6)
		aifab_fib_lookup6_bulk(sw->fib, ip6, t6, n6);
	for (i = 0; i < n4; i++)
		sw_forward(sw, wk, in_port, pkts[idx4[i]], &pi[idx4[i]], t4[i]);
	for (i = 0; i < n6; i++)
		sw_forward(sw, wk, in_port, pkts[idx6[i]], &pi[idx6[i]], t6[i]);
}

/*
 * A pcap file returns 0 at its end, but so does any port when the pool is
 * dry: only count an empty poll as EOF when rx_nombuf did not move.
 */
static void
sw_note_empty(const struct sw *sw, struct sw_rxq *q)
{
	struct rte_eth_stats st;

	if (!q->finite)
		return;
	if (rte_eth_stats_get(sw->env.ports[q->port].port_id, &st) != 0)
		return;
	if (st.rx_nombuf != q->nombuf_seen) {
		q->nombuf_seen = st.rx_nombuf;
		q->empty_polls = 0;
		return;
	}
	if (++q->empty_polls >= SW_EMPTY_POLLS_EOF)
		__atomic_store_n(&q->exhausted, true, __ATOMIC_RELEASE);
}

static unsigned int
sw_poll(void *st, unsigned int w, uint64_t now)
{
	struct sw *sw = st;
	struct sw_worker *wk = &sw->w[w];
	struct rte_mbuf *pkts[SW_CHUNK];
	unsigned int handled = 0, q;
	uint16_t n, p;

	RTE_SET_USED(now);
	for (q = 0; q < wk->n_rxq; q++) {
		struct sw_rxq *rq = &wk->rxq[q];
		uint32_t budget = sw->burst;
		unsigned int got = 0;

		if (rq->exhausted)
			continue;
		do {
			n = rte_eth_rx_burst(sw->env.ports[rq->port].port_id,
					     rq->queue, pkts,
					     (uint16_t)RTE_MIN(budget,
							       (uint32_t)SW_CHUNK));
			if (n == 0)
				break;
			rq->empty_polls = 0;
			sw_process(sw, wk, rq->port, pkts, n);
			got += n;
			budget -= n;
		} while (n == SW_CHUNK && budget > 0);
		if (got == 0)
			sw_note_empty(sw, rq);
		handled += got;
	}
	for (p = 0; p < sw->env.n_ports; p++)
		sw_tx_flush(sw, wk, p);
	return handled;
}

static void
sw_drain(void *st, unsigned int w, uint64_t now)
{
	struct sw *sw = st;
	uint16_t p;

	RTE_SET_USED(now);
	for (p = 0; p < sw->env.n_ports; p++)
		sw_tx_flush(sw, &sw->w[w], p);
}

static bool
sw_done(const void *st)
{
	const struct sw *sw = st;
	unsigned int w, q, n = 0;

	for (w = 0; w < sw->n_workers; w++)
		for (q = 0; q < sw->w[w].n_rxq; q++) {
			const struct sw_rxq *rq = &sw->w[w].rxq[q];

			if (!rq->finite ||
			    !__atomic_load_n(&rq->exhausted, __ATOMIC_ACQUIRE))
				return false;
			n++;
		}
	return n > 0;
}

/* ---- control ------------------------------------------------------------- */

static void *
sw_init(const struct aifab_env *env, unsigned int n_workers, char *err,
	size_t errlen)
{
	const struct aifab_profile *prof = env->prof;
	struct sw *sw;
	unsigned int w, p, q;
	int socket = rte_socket_id();

	if (n_workers == 0 || n_workers > AIFAB_MAX_WORKERS) {
		snprintf(err, errlen, "switch: %u workers (allowed 1..%u)",
			 n_workers, AIFAB_MAX_WORKERS);
		return NULL;
	}
	sw = rte_zmalloc_socket("aifab_switch", sizeof(*sw), RTE_CACHE_LINE_SIZE,
				socket);
	if (sw == NULL)
		goto nomem;
	sw->env = *env;
	sw->n_workers = n_workers;
	sw->burst = prof->burst;
	sw->check_csum = prof->check_ip4_csum;
	sw->w = rte_zmalloc_socket("aifab_switch_w", sizeof(*sw->w) * n_workers,
				   RTE_CACHE_LINE_SIZE, socket);
	if (sw->w == NULL)
		goto nomem;
	for (p = 0; p < env->n_ports; p++) {
		if (env->ports[p].nb_txq < n_workers) {
			snprintf(err, errlen,
				 "switch: port %s has %u TX queues for %u workers",
				 env->ports[p].name, env->ports[p].nb_txq,
				 n_workers);
			goto fail;
		}
		for (q = 0; q < env->ports[p].nb_rxq; q++) {
			struct sw_worker *wk = &sw->w[q % n_workers];
			struct sw_rxq *rq;

			if (wk->n_rxq == SW_MAX_RXQ) {
				snprintf(err, errlen, "switch: over %u RX queues per worker",
					 SW_MAX_RXQ);
				goto fail;
			}
			rq = &wk->rxq[wk->n_rxq++];
			rq->port = (uint16_t)p;
			rq->queue = (uint16_t)q;
			rq->finite = env->ports[p].finite_rx;
		}
	}
	for (w = 0; w < n_workers; w++)
		sw->w[w].txq = (uint16_t)w;
	sw->fib = fib_build(prof, socket, err, errlen);
	if (sw->fib == NULL)
		goto fail;
	return sw;
nomem:
	snprintf(err, errlen, "switch: out of memory (raise -m)");
fail:
	if (sw != NULL) {
		rte_free(sw->w);
		rte_free(sw);
	}
	return NULL;
}

static void
sw_port_counters(const void *st, struct aifab_port_counters *out)
{
	const struct sw *sw = st;
	unsigned int w, p;

	memset(out, 0, sizeof(*out) * sw->env.n_ports);
	for (w = 0; w < sw->n_workers; w++)
		for (p = 0; p < sw->env.n_ports; p++) {
			const struct sw_port_ctr *c = &sw->w[w].ctr[p];

			out[p].rx_packets += c->rx_packets;
			out[p].rx_bytes += c->rx_bytes;
			out[p].tx_packets += c->tx_packets;
			out[p].tx_bytes += c->tx_bytes;
		}
}

static void
sw_report(const void *st, const struct aifab_report_sink *sink)
{
	const struct sw *sw = st;
	unsigned int w, p, r;

	for (p = 0; p < sw->env.n_ports; p++) {
		for (r = 1; r < N_DROPS; r++) {
			uint64_t v = 0;

			for (w = 0; w < sw->n_workers; w++)
				v += sw->w[w].ctr[p].drops[r];
			sink->port_u64(sink->ctx, (uint16_t)p, "drops",
				       r < AIFAB_PKT_ERR_MAX ?
				       aifab_pkt_err_name(r) :
				       sw_drop_names[r - AIFAB_PKT_ERR_MAX], v);
		}
		for (r = 0; r < SW_INFO_MAX; r++) {
			uint64_t v = 0;

			for (w = 0; w < sw->n_workers; w++)
				v += sw->w[w].ctr[p].info[r];
			sink->port_u64(sink->ctx, (uint16_t)p, "seen",
				       sw_info_names[r], v);
		}
	}
}

static void
sw_fini(void *st)
{
	struct sw *sw = st;
	unsigned int w, p, i;

	if (sw == NULL)
		return;
	for (w = 0; w < sw->n_workers; w++)
		for (p = 0; p < sw->env.n_ports; p++) {
			struct sw_txbuf *tb = &sw->w[w].tx[p];

			for (i = 0; i < tb->n; i++)
				rte_pktmbuf_free(tb->pkts[i]);
			tb->n = 0;
		}
	aifab_fib_free(sw->fib);
	rte_free(sw->w);
	rte_free(sw);
}

const struct aifab_pipeline_ops aifab_switch_ops = {
	.name = "switch",
	.init = sw_init,
	.poll = sw_poll,
	.drain = sw_drain,
	.done = sw_done,
	.port_counters = sw_port_counters,
	.report = sw_report,
	.fini = sw_fini,
};
