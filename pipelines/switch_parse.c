/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Switch ingress, per chunk of a burst, one pass: parse -> count what is
 * seen -> admit (kind, destination MAC, TTL; a PFC frame is consumed
 * here), then the admitted frames, as a burst, to switch_route.c.
 */
#include <string.h>

#include <rte_ether.h>
#include <rte_ip.h>
#include <rte_prefetch.h>

#include "switch_priv.h"

/* The rarely seen kinds, counted at once (RoCE and IPv6: per burst). */
static inline void
sw_count_rare(struct sw_worker *wk, uint16_t p, uint32_t flags)
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
sw_admit(struct sw *sw, struct sw_worker *wk, uint16_t in_port,
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

/* Headers prefetched this many frames ahead of the parse. */
#define SW_PREFETCH 8

/*
 * Stage 1 for one frame: the common frame (untagged IPv4 UDP, headers in
 * the first segment) inline, anything else through lib/pkt's parser.
 * Sets *hdr to where the headers were read.
 */
static inline enum aifab_pkt_err
sw_parse(const struct sw *sw, struct sw_worker *wk, uint16_t i,
	 const struct rte_mbuf *m, struct aifab_pkt_info *pi,
	 const uint8_t **hdr, bool *fast)
{
	uint32_t window = RTE_MIN(m->pkt_len, (uint32_t)AIFAB_PKT_HDR_WINDOW);
	enum aifab_pkt_err e;

	if (likely(rte_pktmbuf_data_len(m) >= window)) {
		*hdr = rte_pktmbuf_mtod(m, const uint8_t *);
		if (likely(aifab_pkt_parse_udp4_fast(*hdr, window, m->pkt_len,
						     pi, sw->check_csum))) {
			*fast = true;
			return AIFAB_PKT_ERR_OK;
		}
		return aifab_pkt_parse(*hdr, window, m->pkt_len, pi,
				       sw->check_csum);
	}
	e = aifab_pkt_parse_mbuf(m, pi, wk->scratch[i], sw->check_csum);
	*hdr = wk->scratch[i];
	return e;
}

/*
 * Parse, count and admit a burst of frames received on @p in_port, in one
 * pass over the burst (headers prefetched ahead): parse, admit (kind,
 * destination MAC, TTL); the admitted ones go on, as a burst, to routing.
 * Counters are summed over the burst and added once.
 */
void
sw_ingress(struct sw *sw, struct sw_worker *wk, uint16_t in_port,
	   struct rte_mbuf **pkts, uint16_t n)
{
	struct sw_admitted a;
	struct aifab_pkt_info *pi = a.pi;
	const struct rte_ether_addr *mac = &sw->env.ports[in_port].mac;
	uint16_t n4 = 0, n6 = 0, i;
	uint64_t rx_bytes = 0;
	uint32_t n_roce = 0, n_ip6 = 0; /* n_ip6: dropped before routing */

	if (unlikely(sw->reference)) {
		sw_ingress_ref(sw, wk, in_port, pkts, n);
		return;
	}
	/* the common burst: parse, route and enqueue fused (switch_route.c) */
	if (likely(n != 0) && sw_fused(sw, wk, in_port, pkts, n))
		return;
	for (i = 0; i < RTE_MIN(n, (uint16_t)SW_PREFETCH); i++)
		rte_prefetch0(rte_pktmbuf_mtod(pkts[i], void *));
	/* Parse and admit each frame (drops by parser reason, then by
	 * admission; the common frame: IPv4 to our MAC, TTL > 1). One pass:
	 * nothing here depends on another frame of the burst (a PFC frame
	 * pauses egress, which runs after the burst). */
	for (i = 0; i < n; i++) {
		struct rte_mbuf *m = pkts[i];
		struct aifab_pkt_info *p = &pi[i];
		enum aifab_pkt_err e;
		const uint8_t *l3;
		unsigned int reason;
		bool fast;

		if (i + SW_PREFETCH < n)
			rte_prefetch0(rte_pktmbuf_mtod(pkts[i + SW_PREFETCH],
						       void *));
		rx_bytes += m->pkt_len;
		fast = false;
		e = sw_parse(sw, wk, i, m, p, &a.hdr[i], &fast);
		if (likely(fast)) {
			/* untagged IPv4 UDP, no options, not a fragment, its
			 * headers (and 8 bytes more) in the first segment:
			 * only the MAC and the TTL are left to admit */
			const uint8_t *h = a.hdr[i];
			uint32_t dst;

			n_roce += (p->flags & AIFAB_PKT_F_ROCE) ? 1 : 0;
			if (unlikely(!rte_is_same_ether_addr(
				    (const struct rte_ether_addr *)h, mac) ||
				     p->ttl <= 1)) {
				sw_drop(wk, in_port,
					sw_admit(sw, wk, in_port, m, p), m);
				continue;
			}
			memcpy(&dst, h + 14 + 16, sizeof(dst));
			a.ip4[n4] = rte_be_to_cpu_32(dst);
			a.idx4[n4++] = i;
			continue;
		}
		if (unlikely(e != AIFAB_PKT_ERR_OK)) {
			sw_drop(wk, in_port, SW_ST_PKT(e), m);
			continue;
		}
		n_roce += (p->flags & AIFAB_PKT_F_ROCE) ? 1 : 0;
		/* seen on receive: the rare kinds, admitted or not */
#if AIFAB_SW_STATS
		if (unlikely(p->flags & (AIFAB_PKT_F_VLAN | AIFAB_PKT_F_QINQ |
					 AIFAB_PKT_F_IP_OPTS |
					 AIFAB_PKT_F_FRAG)))
			sw_count_rare(wk, in_port, p->flags);
#endif
		if (likely(p->l3 == AIFAB_L3_IPV4 &&
			   (uint32_t)p->l3_off + p->l3_len <=
			   rte_pktmbuf_data_len(m) &&
			   rte_is_same_ether_addr(rte_pktmbuf_mtod(m,
				const struct rte_ether_addr *), mac) &&
			   p->ttl > 1))
			reason = 0;
		else
			reason = sw_admit(sw, wk, in_port, m, p);
		if (reason != 0) {
			n_ip6 += p->l3 == AIFAB_L3_IPV6;
			sw_drop(wk, in_port, reason, m);
			continue;
		}
		l3 = rte_pktmbuf_mtod_offset(m, const uint8_t *, p->l3_off);
		if (likely(p->l3 == AIFAB_L3_IPV4)) {
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
	sw_route(sw, wk, in_port, pkts, &a);
}

/*
 * Several RX ports' bursts (@p nseg segments of @p seg over @p pkts, @p n
 * frames in all, at most SW_CHUNK), as sw_ingress() of each in turn
 * would take them: the common burst fused at once (sw_fused_segs(): the
 * same frames in the same order, each with its own port); else each
 * segment its own way (the general path's order inside a burst, IPv4
 * before IPv6, is per segment).
 */
void
sw_ingress_segs(struct sw *sw, struct sw_worker *wk, struct rte_mbuf **pkts,
		uint16_t n, const struct sw_seg *seg, unsigned int nseg)
{
	unsigned int s;

	if (nseg > 1 && likely(!sw->reference) &&
	    sw_fused_segs(sw, wk, pkts, n, seg, nseg))
		return;
	for (s = 0; s < nseg; s++) {
		sw_ingress(sw, wk, seg[s].port, pkts, seg[s].n);
		pkts += seg[s].n;
	}
}
