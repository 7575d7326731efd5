/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The reference ingress: the switch's ingress as it was before the
 * burst-vector datapath (switch_parse.c, switch_route.c, sw_enqueue of
 * switch_queue.c at commit 6ecb245), kept frozen apart from renames so
 * that tests/fuzz/fuzz_switch_diff.c can run the same bursts through both
 * and require the same frames, marks and counters. Chosen per switch at
 * run time (aifab_switch_use_reference(), tests only): sw_ingress()
 * tests the flag once per burst. The same flag makes the real-time
 * egress pass dequeue per packet (switch_tx.c sw_port_dequeue_ref(),
 * the loop before runs of packets); the rest of egress is shared.
 *
 * Change it only to follow a deliberate change of the switch's
 * behaviour, made the same way in the fast path. One step is shared
 * rather than copied: buffer and PFC admission (sw_admit(),
 * switch_enqueue.h), which the two had line for line.
 */
#include <string.h>

#include <rte_ether.h>
#include <rte_ip.h>
#include <rte_prefetch.h>

#include "switch_enqueue.h"
#include "switch_priv.h"
#include "switch_ref.h"

/* A chunk's frames admitted for routing (as switch_priv.h had it). */
struct ref_admitted {
	struct aifab_pkt_info pi[SW_CHUNK];
	const uint8_t *hdr[SW_CHUNK];  /* where the parser read the headers */
	uint32_t ip4[SW_CHUNK];        /* host order */
	uint8_t ip6[SW_CHUNK][16];
	uint16_t idx4[SW_CHUNK], idx6[SW_CHUNK]; /* positions in the chunk */
	uint16_t n4, n6;
};

static void ref_route(struct sw *sw, struct sw_worker *wk, uint16_t in_port,
		      struct rte_mbuf **pkts, struct ref_admitted *a);
static void ref_enqueue(struct sw *sw, struct sw_worker *wk, uint16_t out_port,
			uint8_t tc, struct rte_mbuf *m, uint32_t l3_off);

/* The rarely seen kinds, counted at once (RoCE and IPv6: per burst). */
static inline void
ref_count_rare(struct sw_worker *wk, uint16_t p, uint32_t flags)
{
	SW_ADD(wk, sw_st_rx_vlan_tagged, p, (flags & AIFAB_PKT_F_VLAN) != 0);
	SW_ADD(wk, sw_st_rx_qinq, p, (flags & AIFAB_PKT_F_QINQ) != 0);
	SW_ADD(wk, sw_st_rx_ipv4_options, p, (flags & AIFAB_PKT_F_IP_OPTS) != 0);
	SW_ADD(wk, sw_st_rx_fragments, p, (flags & AIFAB_PKT_F_FRAG) != 0);
}

/*
 * Admit a parsed frame for routing, or return the drop index. A PFC frame
 * is consumed here (it pauses this port's egress); PAUSE and other MAC
 * control frames, ARP, LLDP and non-IP are counted and dropped.
 */
static unsigned int
ref_admit(struct sw *sw, struct sw_worker *wk, uint16_t in_port,
	 const struct rte_mbuf *m, const struct aifab_pkt_info *pi)
{
	const struct rte_ether_hdr *eth;

	switch (pi->l3) {
	case AIFAB_L3_IPV4:
	case AIFAB_L3_IPV6:
		break;
	case AIFAB_L3_ARP:
		return SW_DROP(arp);
	case AIFAB_L3_LLDP:
		return SW_DROP(lldp);
	case AIFAB_L3_MAC_CTRL:
		if (pi->flags & AIFAB_PKT_F_PFC) {
			SW_INC(wk, sw_st_rx_pfc_frames, in_port);
			sw_pfc_received(sw, wk, in_port, pi);
		} else if (pi->flags & AIFAB_PKT_F_PAUSE) {
			SW_INC(wk, sw_st_rx_pause_frames, in_port);
		}
		return SW_DROP(mac_control);
	default:
		return SW_DROP(non_ip);
	}
	/* Headers are rewritten in place: they must sit in the first segment. */
	if ((uint32_t)pi->l3_off + pi->l3_len > rte_pktmbuf_data_len(m))
		return SW_DROP(headers_segmented);
	eth = rte_pktmbuf_mtod(m, const struct rte_ether_hdr *);
	if (!rte_is_same_ether_addr(&eth->dst_addr, &sw->env.ports[in_port].mac))
		return SW_DROP(dst_mac_mismatch);
	if (pi->ttl <= 1)
		return SW_DROP(ttl_expired);
	return 0;
}

/*
 * Parse, count and admit a chunk of frames received on @p in_port; the
 * admitted ones go on to routing.
 */
void
sw_ingress_ref(struct sw *sw, struct sw_worker *wk, uint16_t in_port,
	   struct rte_mbuf **pkts, uint16_t n)
{
	struct ref_admitted a;
	struct aifab_pkt_info *pi = a.pi;
	uint16_t n4 = 0, n6 = 0, i;
	uint64_t rx_bytes = 0;
	uint32_t n_roce = 0, n_ip6 = 0; /* n_ip6: dropped before routing */

	for (i = 0; i < n; i++) {
		struct rte_mbuf *m = pkts[i];
		enum aifab_pkt_err e;
		unsigned int reason;
		const uint8_t *l3;

		if (i + 1 < n)
			rte_prefetch0(rte_pktmbuf_mtod(pkts[i + 1], void *));
		rx_bytes += m->pkt_len;
		e = aifab_pkt_parse_mbuf(m, &pi[i], wk->scratch[i],
					 sw->check_csum);
		if (e != AIFAB_PKT_ERR_OK) {
			sw_drop(wk, in_port, SW_ST_PKT(e), m);
			continue;
		}
		/* Where the parser read the headers: in place or scratch. */
		a.hdr[i] = rte_pktmbuf_data_len(m) >= RTE_MIN(m->pkt_len,
			(uint32_t)AIFAB_PKT_HDR_WINDOW) ?
			rte_pktmbuf_mtod(m, const uint8_t *) : wk->scratch[i];
		/* Seen on receive: common kinds summed here, added per burst
		 * (measured: 6 counter updates per packet cost ~36 insns). */
#if AIFAB_SW_STATS
		n_roce += (pi[i].flags & AIFAB_PKT_F_ROCE) ? 1 : 0;
		if (pi[i].flags & (AIFAB_PKT_F_VLAN | AIFAB_PKT_F_QINQ |
				   AIFAB_PKT_F_IP_OPTS | AIFAB_PKT_F_FRAG))
			ref_count_rare(wk, in_port, pi[i].flags);
#endif
		reason = ref_admit(sw, wk, in_port, m, &pi[i]);
		if (reason != 0) {
			n_ip6 += pi[i].l3 == AIFAB_L3_IPV6;
			sw_drop(wk, in_port, reason, m);
			continue;
		}
		l3 = rte_pktmbuf_mtod_offset(m, const uint8_t *, pi[i].l3_off);
		if (pi[i].l3 == AIFAB_L3_IPV4) {
			a.ip4[n4] = rte_be_to_cpu_32(
				((const struct rte_ipv4_hdr *)l3)->dst_addr);
			a.idx4[n4++] = i;
		} else {
			memcpy(a.ip6[n6],
			       ((const struct rte_ipv6_hdr *)l3)->dst_addr, 16);
			a.idx6[n6++] = i;
		}
	}
	SW_ADD(wk, sw_st_rx_pkts, in_port, n);
	SW_ADD(wk, sw_st_rx_bytes, in_port, rx_bytes);
	SW_ADD(wk, sw_st_rx_roce, in_port, n_roce);
	SW_ADD(wk, sw_st_rx_ipv6, in_port, n_ip6 + n6); /* all parsed IPv6 */
	if (n4 == 0 && n6 == 0)
		return;
	a.n4 = n4;
	a.n6 = n6;
	ref_route(sw, wk, in_port, pkts, &a);
}

static unsigned int
ref_target_drop(uint32_t target)
{
	if (target == AIFAB_FIB_MISS)
		return SW_DROP(no_route);
	if (target == AIFAB_FIB_LOCAL)
		return SW_DROP(own_address);
	if (target == AIFAB_FIB_UNRESOLVED)
		return SW_DROP(no_neighbor);
	return 0;
}

/*
 * A chunk's routed frames between the stages: position in the chunk, the
 * next hop and the TC, in the order they will be enqueued (IPv4 first,
 * then IPv6, each in arrival order).
 */
struct ref_routed {
	uint16_t pos[SW_CHUNK];
	uint16_t nh[SW_CHUNK];
	uint8_t tc[SW_CHUNK];
	uint16_t n;
};

/*
 * The ECMP hashes of the frames whose group has a choice (the others'
 * hash[] and ok[] are left alone), in one call for the chunk.
 */
static void
ref_hash(const struct sw *sw, const struct ref_admitted *a,
	const uint32_t *target, const uint16_t *pos, uint16_t n,
	uint32_t *hash, uint8_t *ok)
{
	const struct aifab_pkt_info *pi[SW_CHUNK];
	const uint8_t *buf[SW_CHUNK];
	uint32_t avail[SW_CHUNK], h[SW_CHUNK];
	uint16_t at[SW_CHUNK], i, j = 0;
	uint8_t good[SW_CHUNK];

	for (i = 0; i < n; i++) {
		if (ref_target_drop(target[i]) != 0 ||
		    aifab_fib_group(sw->fib, target[i])->n == 1)
			continue;
		pi[j] = &a->pi[pos[i]];
		buf[j] = a->hdr[pos[i]];
		avail[j] = RTE_MIN(pi[j]->pkt_len,
				   (uint32_t)AIFAB_PKT_HDR_WINDOW);
		at[j++] = i;
	}
	if (j == 0)
		return;
	aifab_ecmp_hash_pkts(&sw->ecmp_cfg, buf, avail, pi, j, h, good);
	for (i = 0; i < j; i++) {
		hash[at[i]] = h[i];
		ok[at[i]] = good[i];
	}
}

/* The group member for a flow: its hash (ref_hash) is read only when the
 * group has a choice. */
static int
ref_member(const struct sw *sw, struct sw_worker *wk, uint32_t target,
	  uint32_t len, const uint32_t *hash, const uint8_t *ok)
{
	const struct sw_target *t = &sw->tgt[target];
	const struct aifab_ecmp_group *g = &wk->groups[t->group];
	unsigned int slot;

	if (aifab_fib_group(sw->fib, target)->n == 1)
		slot = 0;
	else {
		if (!*ok)
			return -1;
		slot = aifab_ecmp_select(g, *hash);
		if (slot == AIFAB_ECMP_NONE)
			return -1;
	}
	wk->ectr[2 * (t->ctr + slot)]++;
	wk->ectr[2 * (t->ctr + slot) + 1] += len;
	return (int)aifab_ecmp_member(g, slot);
}

/*
 * Stage 1 over the chunk: the FIB target's drop, the ECMP hashes (one
 * call), the member, the egress MTU. What survives is listed in @p r, in
 * order.
 */
static void
ref_resolve(struct sw *sw, struct sw_worker *wk, uint16_t in_port,
	   struct rte_mbuf **pkts, const struct ref_admitted *a,
	   const uint32_t *target, const uint16_t *pos, uint16_t n,
	   struct ref_routed *r)
{
	uint32_t hash[SW_CHUNK];
	uint8_t ok[SW_CHUNK];
	uint16_t i, k = 0;

	ref_hash(sw, a, target, pos, n, hash, ok);
	for (i = 0; i < n; i++) {
		const struct aifab_pkt_info *pi = &a->pi[pos[i]];
		unsigned int reason = ref_target_drop(target[i]);
		int member;

		if (reason == 0) {
			member = ref_member(sw, wk, target[i], pi->pkt_len,
					   &hash[i], &ok[i]);
			if (member < 0)
				reason = SW_DROP(ecmp_no_member);
			else if (pi->ip_len > sw->env.ports[aifab_fib_nh(
					sw->fib, (uint16_t)member)->port].mtu)
				reason = SW_DROP(mtu_exceeded);
			else
				r->nh[k] = (uint16_t)member;
		}
		if (reason != 0) {
			sw_drop(wk, in_port, reason, pkts[pos[i]]);
			continue;
		}
		r->pos[k++] = pos[i];
	}
	r->n = k;
}

/* Stage 2 over the chunk: classify, L2 rewrite, hop limit - 1; the IPv4
 * TTLs (and checksums) in one call at the end. */
static void
ref_rewrite(struct sw *sw, uint16_t in_port, struct rte_mbuf **pkts,
	   const struct ref_admitted *a, struct ref_routed *r)
{
	struct rte_ipv4_hdr *ip4[SW_CHUNK];
	uint16_t k, n4 = 0;

	for (k = 0; k < r->n; k++) {
		const struct aifab_pkt_info *pi = &a->pi[r->pos[k]];
		const struct aifab_fib_nh *nh = aifab_fib_nh(sw->fib, r->nh[k]);
		struct rte_mbuf *m = pkts[r->pos[k]];
		struct rte_ether_hdr *eth;
		uint8_t *l3, tc;

		tc = aifab_qos_classify(&sw->map, sw->trust[in_port], pi->tos,
					pi->n_vlans > 0, pi->pcp);
		eth = rte_pktmbuf_mtod(m, struct rte_ether_hdr *);
		rte_ether_addr_copy(&nh->dmac, &eth->dst_addr);
		rte_ether_addr_copy(&sw->env.ports[nh->port].mac,
				    &eth->src_addr);
		l3 = rte_pktmbuf_mtod_offset(m, uint8_t *, pi->l3_off);
		if (pi->l3 == AIFAB_L3_IPV4)
			ip4[n4++] = (struct rte_ipv4_hdr *)l3;
		else
			((struct rte_ipv6_hdr *)l3)->hop_limits--;
		m->hash.usr = SW_META(in_port, tc);
		r->tc[k] = tc;
	}
	aifab_ipv4_dec_ttl_bulk(ip4, n4);
}

/*
 * Route the admitted frames of a chunk, stage by stage over all of them:
 * LPM (one bulk lookup per family), resolve (drop, ECMP member, MTU),
 * rewrite, then enqueue in order (IPv4 first, then IPv6).
 */
static void
ref_route(struct sw *sw, struct sw_worker *wk, uint16_t in_port,
	 struct rte_mbuf **pkts, struct ref_admitted *a)
{
	uint32_t target[SW_CHUNK];
	uint16_t pos[SW_CHUNK];
	struct ref_routed r;
	uint16_t n4 = a->n4, n6 = a->n6, k;

	if (n4)
		aifab_fib_lookup4_bulk(sw->fib, a->ip4, target, n4);
	if (n6)
		aifab_fib_lookup6_bulk(sw->fib, a->ip6, target + n4, n6);
	memcpy(pos, a->idx4, sizeof(pos[0]) * n4);
	memcpy(pos + n4, a->idx6, sizeof(pos[0]) * n6);
	ref_resolve(sw, wk, in_port, pkts, a, target, pos,
		   (uint16_t)(n4 + n6), &r);
	ref_rewrite(sw, in_port, pkts, a, &r);
	for (k = 0; k < r.n; k++)
		ref_enqueue(sw, wk, aifab_fib_nh(sw->fib, r.nh[k])->port,
			   r.tc[k], pkts[r.pos[k]], a->pi[r.pos[k]].l3_off);
}
static void
ref_enqueue(struct sw *sw, struct sw_worker *wk, uint16_t out_port,
	   uint8_t tc, struct rte_mbuf *m, uint32_t l3_off)
{
	struct sw_egress *eg = &wk->eg[out_port];

	m->l2_len = l3_off;
	/* Admission: the fast path's own (switch_enqueue.h), not a copy. */
	if (!sw_admit(sw, wk, SW_META_PORT(m->hash.usr), out_port, tc, m,
		      m->pkt_len, false))
		return;
	/* A full FIFO drops first: ECN counts only frames that are queued. */
	if (aifab_qos_fifo_count(eg->q[tc]) > eg->q[tc]->mask) {
		SW_ADD_TC(wk, sw_st_tail_drop_fifo_full, out_port, tc, 1);
		sw_release(sw, wk, out_port, m);
		sw_drop(wk, out_port, SW_DROP(egress_queue), m);
		return;
	}
	if (!sw->ecn_at_dequeue &&
	    !sw_ecn(sw, wk, out_port, tc, m, eg->q[tc]->bytes)) {
		sw_release(sw, wk, out_port, m);
		sw_drop(wk, out_port, SW_DROP(egress_queue), m);
		return;
	}
	aifab_qos_fifo_enqueue(eg->q[tc], m); /* room checked above */
	eg->nonempty |= (uint8_t)(1u << tc);
	wk->vc_ne |= UINT64_C(1) << out_port; /* virtual clock summary */
}

void
aifab_switch_use_reference(void *st, bool on)
{
	((struct sw *)st)->reference = on;
}

void
aifab_switch_gather_rx(void *st, bool on)
{
	((struct sw *)st)->gather_rx = on;
}
