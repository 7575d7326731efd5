/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Frame parser: Ethernet, up to two VLAN tags, IPv4 / IPv6 (with extension
 * headers), UDP, RoCEv2 BTH, MAC control (PFC / PAUSE), ARP, LLDP.
 *
 * Every read is checked against `lim` = min(avail, pkt_len); length fields
 * are checked against the whole frame (pkt_len), so a header that lies in
 * the frame but beyond the bytes given is reported as truncated while a
 * length field that points past the frame is reported as bad.
 */
#include <string.h>

#include <rte_byteorder.h>
#include <rte_ether.h>
#include <rte_ip.h>
#include <rte_mbuf.h>

#include "aifab_pkt.h"

#define ETH_HDR_LEN 14
#define VLAN_TAG_LEN 4
#define MAX_VLANS 2
#define IP4_HDR_LEN 20
#define IP6_HDR_LEN 40
#define UDP_HDR_LEN 8
#define IP4_MF 0x2000
#define IP4_OFF_MASK 0x1fff
#define IP6_MAX_EXT 8
#define IP6_FRAG_HDR_LEN 8
#define PFC_BODY_LEN (2 + 2 + 16) /* opcode, class-enable vector, timers */
#define PAUSE_BODY_LEN (2 + 2)    /* opcode, pause time */

/* IPv6 extension headers the parser walks. */
#define IP6_EXT_HOPOPTS 0
#define IP6_EXT_ROUTING 43
#define IP6_EXT_FRAG 44
#define IP6_EXT_AH 51
#define IP6_EXT_DSTOPTS 60

/* What the parser reads from: the window and the frame it belongs to. */
struct pkt_view {
	const uint8_t *buf;
	uint32_t lim;     /**< readable bytes: min(avail, pkt_len) */
	uint32_t pkt_len; /**< whole frame */
};

static bool
view_has(const struct pkt_view *v, uint32_t off, uint32_t len)
{
	return off <= v->lim && len <= v->lim - off;
}

static uint16_t
get_be16(const uint8_t *p)
{
	return (uint16_t)((p[0] << 8) | p[1]);
}

static enum aifab_pkt_err
parse_bth(const struct pkt_view *v, uint32_t off, uint32_t udp_payload,
	  struct aifab_pkt_info *pi)
{
	const uint8_t *b;

	/* The datagram must hold BTH + ICRC and the window the BTH. */
	if (udp_payload < AIFAB_BTH_LEN + AIFAB_ICRC_LEN ||
	    !view_has(v, off, AIFAB_BTH_LEN))
		return AIFAB_PKT_ERR_TRUNC_BTH;
	b = v->buf + off;
	pi->bth_off = (uint16_t)off;
	pi->bth_opcode = b[0];
	pi->pad_cnt = (b[1] >> 4) & 0x3;
	pi->dqpn = aifab_get_u24(b + 5);
	pi->psn = aifab_get_u24(b + 9);
	pi->flags |= AIFAB_PKT_F_ROCE;
	if (pi->pad_cnt > udp_payload - AIFAB_BTH_LEN - AIFAB_ICRC_LEN)
		return AIFAB_PKT_ERR_BTH_PAD;
	return AIFAB_PKT_ERR_OK;
}

/*
 * UDP at @p off with @p ip_rem bytes of IP payload from there. In a first
 * fragment (@p partial) the datagram goes on in later fragments, so its
 * length may exceed @p ip_rem.
 */
static enum aifab_pkt_err
parse_udp(const struct pkt_view *v, uint32_t off, uint32_t ip_rem,
	  bool partial, struct aifab_pkt_info *pi)
{
	const uint8_t *u;
	uint32_t ulen;

	if (ip_rem < UDP_HDR_LEN)
		return AIFAB_PKT_ERR_UDP_LEN;
	if (!view_has(v, off, UDP_HDR_LEN))
		return AIFAB_PKT_ERR_TRUNC_L4;
	u = v->buf + off;
	ulen = get_be16(u + 4);
	if (ulen < UDP_HDR_LEN || (ulen > ip_rem && !partial))
		return AIFAB_PKT_ERR_UDP_LEN;
	pi->l4_off = (uint16_t)off;
	pi->sport = get_be16(u);
	pi->dport = get_be16(u + 2);
	pi->flags |= AIFAB_PKT_F_UDP;
	if (pi->dport != AIFAB_ROCEV2_UDP_PORT)
		return AIFAB_PKT_ERR_OK;
	return parse_bth(v, off + UDP_HDR_LEN,
			 RTE_MIN(ulen, ip_rem) - UDP_HDR_LEN, pi);
}

static bool
ipv4_cksum_ok(const uint8_t *h, uint32_t hl)
{
	uint32_t sum = __rte_raw_cksum(h, hl, 0);

	return __rte_raw_cksum_reduce(sum) == 0xffff;
}

static enum aifab_pkt_err
parse_ipv4(const struct pkt_view *v, uint32_t off, struct aifab_pkt_info *pi,
	   bool check_csum)
{
	const uint8_t *h;
	uint32_t hl, tl;
	uint16_t frag;

	if (!view_has(v, off, IP4_HDR_LEN))
		return AIFAB_PKT_ERR_TRUNC_L3;
	h = v->buf + off;
	if ((h[0] >> 4) != 4)
		return AIFAB_PKT_ERR_IP4_VERSION;
	hl = (uint32_t)(h[0] & 0x0f) * 4;
	if (hl < IP4_HDR_LEN)
		return AIFAB_PKT_ERR_IP4_IHL;
	tl = get_be16(h + 2);
	if (tl < hl || tl > v->pkt_len - off)
		return AIFAB_PKT_ERR_IP4_LEN;
	if (!view_has(v, off, hl))
		return AIFAB_PKT_ERR_TRUNC_L3;
	if (check_csum && !ipv4_cksum_ok(h, hl))
		return AIFAB_PKT_ERR_IP4_CSUM;
	pi->l3_len = (uint16_t)hl;
	pi->ip_len = tl;
	pi->tos = h[1];
	pi->ttl = h[8];
	pi->l4_proto = h[9];
	if (hl > IP4_HDR_LEN)
		pi->flags |= AIFAB_PKT_F_IP_OPTS;
	frag = get_be16(h + 6);
	if (frag & (IP4_MF | IP4_OFF_MASK))
		pi->flags |= AIFAB_PKT_F_FRAG;
	if ((frag & IP4_OFF_MASK) != 0 || pi->l4_proto != IPPROTO_UDP)
		return AIFAB_PKT_ERR_OK;
	return parse_udp(v, off + hl, tl - hl, (frag & IP4_MF) != 0, pi);
}

/* Length of the extension header at @p p, or 0 if @p nh is not one. */
static uint32_t
ip6_ext_len(uint8_t nh, const uint8_t *p)
{
	switch (nh) {
	case IP6_EXT_HOPOPTS:
	case IP6_EXT_ROUTING:
	case IP6_EXT_DSTOPTS:
		return ((uint32_t)p[1] + 1) * 8;
	case IP6_EXT_AH:
		return ((uint32_t)p[1] + 2) * 4;
	case IP6_EXT_FRAG:
		return IP6_FRAG_HDR_LEN;
	default:
		return 0;
	}
}

static bool
ip6_is_ext(uint8_t nh)
{
	return nh == IP6_EXT_HOPOPTS || nh == IP6_EXT_ROUTING ||
		nh == IP6_EXT_DSTOPTS || nh == IP6_EXT_AH ||
		nh == IP6_EXT_FRAG;
}

/* Whether the upper-layer header after the IP header(s) can be parsed. */
enum l4_state {
	L4_WHOLE,   /**< not fragmented (or an atomic fragment) */
	L4_PARTIAL, /**< first fragment: upper header here, datagram goes on */
	L4_NONE,    /**< later fragment: no upper header */
};

static enum l4_state
ip6_frag_state(const uint8_t *frag_hdr)
{
	uint16_t off_m = get_be16(frag_hdr + 2);

	if ((off_m & 0xfff8) != 0)
		return L4_NONE;
	return (off_m & 1) ? L4_PARTIAL : L4_WHOLE;
}

/*
 * Walk the extension headers after the fixed header at @p off. On return
 * *next is the first byte after them and pi->l4_proto the final next
 * header (the fragmented protocol after a non-first fragment).
 */
static enum aifab_pkt_err
walk_ip6_ext(const struct pkt_view *v, uint32_t off, uint32_t plen,
	     struct aifab_pkt_info *pi, uint32_t *next, enum l4_state *l4)
{
	uint32_t pos = off + IP6_HDR_LEN;
	uint32_t end = pos + plen;
	uint8_t nh = pi->l4_proto;
	uint32_t n, len;

	*l4 = L4_WHOLE;
	for (n = 0; ip6_is_ext(nh) && *l4 != L4_NONE; n++) {
		if (n == IP6_MAX_EXT || (nh == IP6_EXT_HOPOPTS && n != 0) ||
		    end - pos < 2)
			return AIFAB_PKT_ERR_IP6_EXT;
		if (!view_has(v, pos, 2))
			return AIFAB_PKT_ERR_TRUNC_L3;
		len = ip6_ext_len(nh, v->buf + pos);
		if (len > end - pos)
			return AIFAB_PKT_ERR_IP6_EXT;
		if (!view_has(v, pos, len))
			return AIFAB_PKT_ERR_TRUNC_L3;
		if (nh == IP6_EXT_FRAG) {
			pi->flags |= AIFAB_PKT_F_FRAG;
			*l4 = ip6_frag_state(v->buf + pos);
		}
		pi->flags |= AIFAB_PKT_F_IP6_EXT;
		nh = v->buf[pos];
		pos += len;
	}
	pi->l4_proto = nh;
	*next = pos;
	return AIFAB_PKT_ERR_OK;
}

static enum aifab_pkt_err
parse_ipv6(const struct pkt_view *v, uint32_t off, struct aifab_pkt_info *pi)
{
	const uint8_t *h;
	uint32_t plen, next;
	enum aifab_pkt_err err;
	enum l4_state l4;

	if (!view_has(v, off, IP6_HDR_LEN))
		return AIFAB_PKT_ERR_TRUNC_L3;
	h = v->buf + off;
	if ((h[0] >> 4) != 6)
		return AIFAB_PKT_ERR_IP6_VERSION;
	plen = get_be16(h + 4);
	if (plen > v->pkt_len - off - IP6_HDR_LEN)
		return AIFAB_PKT_ERR_IP6_LEN;
	pi->ip_len = IP6_HDR_LEN + plen;
	pi->tos = (uint8_t)(((h[0] & 0x0f) << 4) | (h[1] >> 4));
	pi->ttl = h[7];
	pi->l4_proto = h[6];
	err = walk_ip6_ext(v, off, plen, pi, &next, &l4);
	if (err != AIFAB_PKT_ERR_OK)
		return err;
	pi->l3_len = (uint16_t)(next - off);
	if (l4 == L4_NONE || pi->l4_proto != IPPROTO_UDP)
		return AIFAB_PKT_ERR_OK;
	return parse_udp(v, next, off + IP6_HDR_LEN + plen - next,
			 l4 == L4_PARTIAL, pi);
}

static enum aifab_pkt_err
parse_mac_ctrl(const struct pkt_view *v, uint32_t off,
	       struct aifab_pkt_info *pi)
{
	const uint8_t *p = v->buf + off;
	unsigned int i;

	if (!view_has(v, off, 2))
		return AIFAB_PKT_ERR_MAC_CTRL;
	switch (get_be16(p)) {
	case AIFAB_PFC_OPCODE:
		if (!view_has(v, off, PFC_BODY_LEN) || p[2] != 0)
			return AIFAB_PKT_ERR_MAC_CTRL;
		pi->pfc_enable = get_be16(p + 2);
		for (i = 0; i < RTE_DIM(pi->pfc_time); i++)
			pi->pfc_time[i] = get_be16(p + 4 + 2 * i);
		pi->flags |= AIFAB_PKT_F_PFC;
		break;
	case AIFAB_PAUSE_OPCODE:
		if (!view_has(v, off, PAUSE_BODY_LEN))
			return AIFAB_PKT_ERR_MAC_CTRL;
		pi->pfc_time[0] = get_be16(p + 2);
		pi->flags |= AIFAB_PKT_F_PAUSE;
		break;
	default:
		break; /* other MAC control opcodes: nothing to decode */
	}
	return AIFAB_PKT_ERR_OK;
}

static bool
is_vlan_tpid(uint16_t type)
{
	return type == RTE_ETHER_TYPE_VLAN || type == RTE_ETHER_TYPE_QINQ;
}

/* Ethernet and VLAN tags; *off is left at the innermost EtherType's end. */
static enum aifab_pkt_err
parse_l2(const struct pkt_view *v, struct aifab_pkt_info *pi, uint32_t *off)
{
	uint16_t type, tci;
	uint32_t pos = ETH_HDR_LEN;

	if (!view_has(v, 0, ETH_HDR_LEN))
		return AIFAB_PKT_ERR_TRUNC_L2;
	type = get_be16(v->buf + 12);
	while (is_vlan_tpid(type)) {
		if (pi->n_vlans == MAX_VLANS)
			return AIFAB_PKT_ERR_VLAN_DEPTH;
		if (!view_has(v, pos, VLAN_TAG_LEN))
			return AIFAB_PKT_ERR_TRUNC_L2;
		tci = get_be16(v->buf + pos);
		if (pi->n_vlans == 0) {
			pi->pcp = (uint8_t)(tci >> 13);
			pi->vid = tci & 0x0fff;
			pi->flags |= AIFAB_PKT_F_VLAN;
		}
		pi->n_vlans++;
		type = get_be16(v->buf + pos + 2);
		pos += VLAN_TAG_LEN;
	}
	if (pi->n_vlans == MAX_VLANS)
		pi->flags |= AIFAB_PKT_F_QINQ;
	pi->ethertype = type;
	pi->l3_off = (uint16_t)pos;
	*off = pos;
	return AIFAB_PKT_ERR_OK;
}

enum aifab_pkt_err
aifab_pkt_parse(const uint8_t *buf, uint32_t avail, uint32_t pkt_len,
		struct aifab_pkt_info *pi, bool check_ip4_csum)
{
	struct pkt_view v = {
		.buf = buf,
		.lim = RTE_MIN(avail, pkt_len),
		.pkt_len = pkt_len,
	};
	enum aifab_pkt_err err;
	uint32_t off;

	memset(pi, 0, sizeof(*pi));
	pi->pkt_len = pkt_len;
	err = parse_l2(&v, pi, &off);
	if (err != AIFAB_PKT_ERR_OK)
		return err;
	switch (pi->ethertype) {
	case RTE_ETHER_TYPE_IPV4:
		pi->l3 = AIFAB_L3_IPV4;
		return parse_ipv4(&v, off, pi, check_ip4_csum);
	case RTE_ETHER_TYPE_IPV6:
		pi->l3 = AIFAB_L3_IPV6;
		return parse_ipv6(&v, off, pi);
	case AIFAB_ETHER_TYPE_MAC_CTRL:
		pi->l3 = AIFAB_L3_MAC_CTRL;
		return parse_mac_ctrl(&v, off, pi);
	case RTE_ETHER_TYPE_ARP:
		pi->l3 = AIFAB_L3_ARP;
		return AIFAB_PKT_ERR_OK;
	case AIFAB_ETHER_TYPE_LLDP:
		pi->l3 = AIFAB_L3_LLDP;
		return AIFAB_PKT_ERR_OK;
	default:
		pi->l3 = AIFAB_L3_OTHER;
		return AIFAB_PKT_ERR_OK;
	}
}

enum aifab_pkt_err
aifab_pkt_parse_mbuf(const struct rte_mbuf *m, struct aifab_pkt_info *pi,
		     uint8_t *scratch, bool check_ip4_csum)
{
	uint32_t window = RTE_MIN(m->pkt_len, (uint32_t)AIFAB_PKT_HDR_WINDOW);
	const uint8_t *p;

	if (rte_pktmbuf_data_len(m) >= window) {
		p = rte_pktmbuf_mtod(m, const uint8_t *);
		/* the common frame inline: the same answer (fuzz_pkt) */
		if (aifab_pkt_parse_udp4_fast(p, window, m->pkt_len, pi,
					      check_ip4_csum))
			return AIFAB_PKT_ERR_OK;
	} else {
		p = rte_pktmbuf_read(m, 0, window, scratch);
	}
	if (p == NULL) { /* chain shorter than pkt_len says */
		memset(pi, 0, sizeof(*pi));
		pi->pkt_len = m->pkt_len;
		return AIFAB_PKT_ERR_TRUNC_L2;
	}
	return aifab_pkt_parse(p, window, m->pkt_len, pi, check_ip4_csum);
}

#define AIFAB_PKT_ERR_NAME(e, s) [AIFAB_PKT_ERR_##e] = s,
static const char *const pkt_err_names[] = {
	AIFAB_PKT_ERRORS(AIFAB_PKT_ERR_NAME)
};
#undef AIFAB_PKT_ERR_NAME

const char *
aifab_pkt_err_name(enum aifab_pkt_err e)
{
	if ((unsigned int)e >= RTE_DIM(pkt_err_names))
		return "unknown";
	return pkt_err_names[e];
}
