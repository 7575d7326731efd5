/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Header builders: each writes one header into a caller buffer in network
 * order and returns the bytes written. No allocation, no mbufs.
 */
#include <string.h>

#include <rte_byteorder.h>
#include <rte_ether.h>
#include <rte_ip.h>
#include <rte_udp.h>

#include "aifab_pkt.h"

#define PFC_HDR_LEN 34 /* Ethernet 14 + opcode 2 + vector 2 + timers 16 */
#define VLAN_TPID 0x8100
#define IP4_DEFAULT_TTL 64
/* CNP: IPv4 20 + UDP 8 + BTH 12 + 16 reserved + ICRC 4. */
#define CNP_UDP_PAYLOAD (AIFAB_BTH_LEN + AIFAB_CNP_PAYLOAD_LEN + AIFAB_ICRC_LEN)

static const struct rte_ether_addr pfc_dst = {
	.addr_bytes = { 0x01, 0x80, 0xC2, 0x00, 0x00, 0x01 },
};

static void
put_be16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

uint16_t
aifab_build_eth(uint8_t *buf, const struct rte_ether_addr *dst,
		const struct rte_ether_addr *src, int vid, uint8_t pcp,
		uint16_t ethertype)
{
	uint16_t off = 2 * RTE_ETHER_ADDR_LEN;

	memcpy(buf, dst, RTE_ETHER_ADDR_LEN);
	memcpy(buf + RTE_ETHER_ADDR_LEN, src, RTE_ETHER_ADDR_LEN);
	if (vid >= 0) {
		put_be16(buf + off, VLAN_TPID);
		put_be16(buf + off + 2,
			 (uint16_t)(((pcp & 0x7) << 13) | (vid & 0x0fff)));
		off += 4;
	}
	put_be16(buf + off, ethertype);
	return (uint16_t)(off + 2);
}

uint16_t
aifab_build_ipv4(uint8_t *buf, uint32_t src_be, uint32_t dst_be,
		 uint8_t proto, uint8_t tos, uint8_t ttl, uint16_t payload_len,
		 uint16_t id)
{
	struct rte_ipv4_hdr ip = {
		.version_ihl = RTE_IPV4_VHL_DEF,
		.type_of_service = tos,
		.total_length = rte_cpu_to_be_16((uint16_t)
				(sizeof(ip) + payload_len)),
		.packet_id = rte_cpu_to_be_16(id),
		/* RoCE must not be fragmented: DF, as RDMA NICs send it. */
		.fragment_offset = rte_cpu_to_be_16(RTE_IPV4_HDR_DF_FLAG),
		.time_to_live = ttl,
		.next_proto_id = proto,
		.src_addr = src_be,
		.dst_addr = dst_be,
	};

	ip.hdr_checksum = aifab_ipv4_cksum(&ip);
	memcpy(buf, &ip, sizeof(ip));
	return sizeof(ip);
}

uint16_t
aifab_build_ipv6(uint8_t *buf, const uint8_t src[16], const uint8_t dst[16],
		 uint8_t next_hdr, uint8_t tc, uint32_t flow_label,
		 uint8_t hop_limit, uint16_t payload_len)
{
	struct rte_ipv6_hdr ip = {
		.vtc_flow = rte_cpu_to_be_32((6u << 28) | ((uint32_t)tc << 20) |
					     (flow_label & 0xfffff)),
		.payload_len = rte_cpu_to_be_16(payload_len),
		.proto = next_hdr,
		.hop_limits = hop_limit,
	};

	memcpy(ip.src_addr, src, sizeof(ip.src_addr));
	memcpy(ip.dst_addr, dst, sizeof(ip.dst_addr));
	memcpy(buf, &ip, sizeof(ip));
	return sizeof(ip);
}

uint16_t
aifab_build_udp(uint8_t *buf, uint16_t sport, uint16_t dport,
		uint16_t payload_len)
{
	struct rte_udp_hdr udp = {
		.src_port = rte_cpu_to_be_16(sport),
		.dst_port = rte_cpu_to_be_16(dport),
		.dgram_len = rte_cpu_to_be_16((uint16_t)
				(sizeof(udp) + payload_len)),
		.dgram_cksum = 0,
	};

	memcpy(buf, &udp, sizeof(udp));
	return sizeof(udp);
}

uint16_t
aifab_build_bth(uint8_t *buf, uint8_t opcode, bool se, uint8_t pad_cnt,
		uint32_t dqpn, bool ack_req, uint32_t psn, bool becn)
{
	struct aifab_bth *bth = (struct aifab_bth *)buf;

	bth->opcode = opcode;
	bth->flags = (uint8_t)((se ? 0x80 : 0) | ((pad_cnt & 0x3) << 4));
	bth->pkey = RTE_BE16(0xFFFF);
	bth->fb = becn ? 0x40 : 0;
	aifab_put_u24(bth->dqpn, dqpn);
	bth->ack_req = ack_req ? 0x80 : 0;
	aifab_put_u24(bth->psn, psn);
	return AIFAB_BTH_LEN;
}

uint16_t
aifab_build_reth(uint8_t *buf, uint64_t va, uint32_t rkey, uint32_t dma_len)
{
	struct aifab_reth reth = {
		.va = rte_cpu_to_be_64(va),
		.rkey = rte_cpu_to_be_32(rkey),
		.dma_len = rte_cpu_to_be_32(dma_len),
	};

	memcpy(buf, &reth, sizeof(reth));
	return AIFAB_RETH_LEN;
}

uint16_t
aifab_build_aeth(uint8_t *buf, uint8_t syndrome, uint32_t msn)
{
	buf[0] = syndrome;
	aifab_put_u24(buf + 1, msn);
	return AIFAB_AETH_LEN;
}

uint16_t
aifab_build_cnp_ipv4(uint8_t *buf, const struct rte_ether_addr *dst,
		     const struct rte_ether_addr *src, uint32_t sip_be,
		     uint32_t dip_be, uint16_t sport, uint8_t tos,
		     uint32_t dqpn)
{
	uint16_t l3 = aifab_build_eth(buf, dst, src, -1, 0,
				      RTE_ETHER_TYPE_IPV4);
	uint16_t off = l3;

	off += aifab_build_ipv4(buf + off, sip_be, dip_be, IPPROTO_UDP, tos,
				IP4_DEFAULT_TTL,
				sizeof(struct rte_udp_hdr) + CNP_UDP_PAYLOAD, 0);
	off += aifab_build_udp(buf + off, sport, AIFAB_ROCEV2_UDP_PORT,
			       CNP_UDP_PAYLOAD);
	off += aifab_build_bth(buf + off, AIFAB_BTH_OP_CNP, false, 0, dqpn,
			       false, 0, true);
	memset(buf + off, 0, AIFAB_CNP_PAYLOAD_LEN);
	off += AIFAB_CNP_PAYLOAD_LEN;
	aifab_icrc_store(buf + off, aifab_icrc(buf + l3, off - l3, false));
	return (uint16_t)(off + AIFAB_ICRC_LEN);
}

uint16_t
aifab_build_pfc(uint8_t *buf, const struct rte_ether_addr *src,
		uint8_t enable_vec, const uint16_t quanta[8])
{
	uint16_t off = aifab_build_eth(buf, &pfc_dst, src, -1, 0,
				       AIFAB_ETHER_TYPE_MAC_CTRL);
	unsigned int i;

	put_be16(buf + off, AIFAB_PFC_OPCODE);
	put_be16(buf + off + 2, enable_vec); /* high byte 0 */
	off += 4;
	for (i = 0; i < 8; i++, off += 2)
		put_be16(buf + off, quanta[i]);
	memset(buf + PFC_HDR_LEN, 0, AIFAB_PFC_FRAME_LEN - PFC_HDR_LEN);
	return AIFAB_PFC_FRAME_LEN;
}

uint16_t
aifab_roce_sport(uint32_t lqpn, uint32_t rqpn)
{
	uint64_t fl = (uint64_t)lqpn * rqpn;

	fl ^= fl >> 20;
	fl ^= fl >> 40;
	fl &= 0xFFFFF;
	return (uint16_t)(((fl & 0x3FFF) ^ ((fl & 0xFC000) >> 14)) | 0xC000);
}
