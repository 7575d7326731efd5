/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Switch routing, per chunk of admitted frames, each stage over the whole
 * chunk before the next: LPM (one bulk lookup per family) -> resolve
 * (target's drop, ECMP member, MTU) -> rewrite (classify DSCP / PCP -> TC,
 * L2 rewrite, TTL or hop limit - 1) -> enqueue in order (switch_queue.c).
 */
#include <string.h>

#include <rte_ether.h>
#include <rte_ip.h>

#include "switch_priv.h"

static unsigned int
sw_target_drop(uint32_t target)
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
struct sw_routed {
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
sw_hash(const struct sw *sw, const struct sw_admitted *a,
	const uint32_t *target, const uint16_t *pos, uint16_t n,
	uint32_t *hash, uint8_t *ok)
{
	const struct aifab_pkt_info *pi[SW_CHUNK];
	const uint8_t *buf[SW_CHUNK];
	uint32_t avail[SW_CHUNK], h[SW_CHUNK];
	uint16_t at[SW_CHUNK], i, j = 0;
	uint8_t good[SW_CHUNK];

	for (i = 0; i < n; i++) {
		if (sw_target_drop(target[i]) != 0 ||
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

/* The group member for a flow: its hash (sw_hash) is read only when the
 * group has a choice. */
static int
sw_member(const struct sw *sw, struct sw_worker *wk, uint32_t target,
	  uint32_t len, const uint32_t *hash, const uint8_t *ok)
{
	const struct aifab_ecmp_group *g = &wk->groups[target];
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
	wk->ecmp[target].packets[slot]++;
	wk->ecmp[target].bytes[slot] += len;
	return (int)aifab_ecmp_member(g, slot);
}

/*
 * Stage 1 over the chunk: the FIB target's drop, the ECMP hashes (one
 * call), the member, the egress MTU. What survives is listed in @p r, in
 * order.
 */
static void
sw_resolve(struct sw *sw, struct sw_worker *wk, uint16_t in_port,
	   struct rte_mbuf **pkts, const struct sw_admitted *a,
	   const uint32_t *target, const uint16_t *pos, uint16_t n,
	   struct sw_routed *r)
{
	uint32_t hash[SW_CHUNK];
	uint8_t ok[SW_CHUNK];
	uint16_t i, k = 0;

	sw_hash(sw, a, target, pos, n, hash, ok);
	for (i = 0; i < n; i++) {
		const struct aifab_pkt_info *pi = &a->pi[pos[i]];
		unsigned int reason = sw_target_drop(target[i]);
		int member;

		if (reason == 0) {
			member = sw_member(sw, wk, target[i], pi->pkt_len,
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
sw_rewrite(struct sw *sw, uint16_t in_port, struct rte_mbuf **pkts,
	   const struct sw_admitted *a, struct sw_routed *r)
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
void
sw_route(struct sw *sw, struct sw_worker *wk, uint16_t in_port,
	 struct rte_mbuf **pkts, struct sw_admitted *a)
{
	uint32_t target[SW_CHUNK];
	uint16_t pos[SW_CHUNK];
	struct sw_routed r;
	uint16_t n4 = a->n4, n6 = a->n6, k;

	if (n4)
		aifab_fib_lookup4_bulk(sw->fib, a->ip4, target, n4);
	if (n6)
		aifab_fib_lookup6_bulk(sw->fib, a->ip6, target + n4, n6);
	memcpy(pos, a->idx4, sizeof(pos[0]) * n4);
	memcpy(pos + n4, a->idx6, sizeof(pos[0]) * n6);
	sw_resolve(sw, wk, in_port, pkts, a, target, pos,
		   (uint16_t)(n4 + n6), &r);
	sw_rewrite(sw, in_port, pkts, a, &r);
	for (k = 0; k < r.n; k++)
		sw_enqueue(sw, wk, aifab_fib_nh(sw->fib, r.nh[k])->port,
			   r.tc[k], pkts[r.pos[k]], a->pi[r.pos[k]].l3_off);
}
