/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Switch routing, per chunk of admitted frames: LPM (one bulk lookup per
 * family) -> ECMP member -> MTU -> classify (DSCP / PCP -> TC) -> L2
 * rewrite, TTL or hop limit - 1 -> enqueue (switch_queue.c).
 */
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

/* The group member for this flow: hashed only when there is a choice. */
static int
sw_member(const struct sw *sw, struct sw_worker *wk, uint32_t target,
	  const uint8_t *hdr, const struct aifab_pkt_info *pi)
{
	const struct aifab_ecmp_group *g = &wk->groups[target];
	struct aifab_ecmp_flow flow;
	unsigned int slot;

	if (aifab_fib_group(sw->fib, target)->n == 1)
		slot = 0;
	else {
		uint32_t avail = RTE_MIN(pi->pkt_len,
					 (uint32_t)AIFAB_PKT_HDR_WINDOW);

		if (aifab_ecmp_flow_from_pkt(&flow, hdr, avail, pi) != 0)
			return -1;
		slot = aifab_ecmp_select(g, aifab_ecmp_hash(&sw->ecmp_cfg,
							    &flow));
		if (slot == AIFAB_ECMP_NONE)
			return -1;
	}
	wk->ecmp[target].packets[slot]++;
	wk->ecmp[target].bytes[slot] += pi->pkt_len;
	return (int)aifab_ecmp_member(g, slot);
}

/* Route, rewrite, classify and hand one packet to the egress queues. */
static void
sw_forward(struct sw *sw, struct sw_worker *wk, uint16_t in_port,
	   struct rte_mbuf *m, const struct aifab_pkt_info *pi,
	   const uint8_t *hdr, uint32_t target)
{
	const struct aifab_fib_nh *nh;
	struct rte_ether_hdr *eth;
	unsigned int reason = sw_target_drop(target);
	uint8_t *l3, tc;
	int member;

	if (reason != 0) {
		sw_drop(wk, in_port, reason, m);
		return;
	}
	member = sw_member(sw, wk, target, hdr, pi);
	if (member < 0) {
		sw_drop(wk, in_port, SW_DROP(ecmp_no_member), m);
		return;
	}
	nh = aifab_fib_nh(sw->fib, (uint16_t)member);
	if (pi->ip_len > sw->env.ports[nh->port].mtu) {
		sw_drop(wk, in_port, SW_DROP(mtu_exceeded), m);
		return;
	}
	tc = aifab_qos_classify(&sw->map, sw->trust[in_port], pi->tos,
				pi->n_vlans > 0, pi->pcp);
	eth = rte_pktmbuf_mtod(m, struct rte_ether_hdr *);
	rte_ether_addr_copy(&nh->dmac, &eth->dst_addr);
	rte_ether_addr_copy(&sw->env.ports[nh->port].mac, &eth->src_addr);
	l3 = rte_pktmbuf_mtod_offset(m, uint8_t *, pi->l3_off);
	if (pi->l3 == AIFAB_L3_IPV4)
		aifab_ipv4_dec_ttl((struct rte_ipv4_hdr *)l3);
	else
		((struct rte_ipv6_hdr *)l3)->hop_limits--;
	m->hash.usr = SW_META(in_port, tc);
	sw_enqueue(sw, wk, nh->port, tc, m, pi->l3_off);
}

/* Route the admitted frames of a chunk: IPv4 first, then IPv6. */
void
sw_route(struct sw *sw, struct sw_worker *wk, uint16_t in_port,
	 struct rte_mbuf **pkts, struct sw_admitted *a)
{
	uint32_t t4[SW_CHUNK], t6[SW_CHUNK];
	uint16_t n4 = a->n4, n6 = a->n6, i;

	if (n4)
		aifab_fib_lookup4_bulk(sw->fib, a->ip4, t4, n4);
	if (n6)
		aifab_fib_lookup6_bulk(sw->fib, a->ip6, t6, n6);
	for (i = 0; i < n4; i++)
		sw_forward(sw, wk, in_port, pkts[a->idx4[i]],
			   &a->pi[a->idx4[i]], a->hdr[a->idx4[i]], t4[i]);
	for (i = 0; i < n6; i++)
		sw_forward(sw, wk, in_port, pkts[a->idx6[i]],
			   &a->pi[a->idx6[i]], a->hdr[a->idx6[i]], t6[i]);
}
