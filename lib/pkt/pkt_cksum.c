/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * IPv4 header checksum: full computation for any IHL and the RFC 1624
 * incremental update used when a router changes TTL or TOS.
 *
 * One's complement sums do not depend on byte order as long as every word
 * is taken the same way, so words are loaded as they sit in memory and
 * the results are stored back the same way.
 */
#include <stddef.h>
#include <string.h>

#include <rte_ip.h>

#include "aifab_pkt.h"

#define IP4_MIN_HDR_LEN 20
#define IP4_CKSUM_OFF 10

/* Fold a 32-bit sum of 16-bit words to 16 bits with end-around carry. */
static uint16_t
cksum_fold(uint32_t sum)
{
	sum = (sum & 0xffff) + (sum >> 16);
	sum = (sum & 0xffff) + (sum >> 16);
	return (uint16_t)sum;
}

uint16_t
aifab_cksum_update16(uint16_t cksum, uint16_t old_word, uint16_t new_word)
{
	uint32_t sum;

	if (old_word == new_word)
		return cksum;
	/* RFC 1624 eqn. 3: HC' = ~(~HC + ~m + m'). */
	sum = (uint32_t)(uint16_t)~cksum + (uint16_t)~old_word + new_word;
	return (uint16_t)~cksum_fold(sum);
}

static uint16_t
load16(const void *p)
{
	uint16_t v;

	memcpy(&v, p, sizeof(v));
	return v;
}

/* Replace the byte at @p off of @p ip and fix the header checksum. */
static void
ipv4_set_byte(struct rte_ipv4_hdr *ip, unsigned int off, uint8_t val)
{
	uint8_t *h = (uint8_t *)ip;
	unsigned int word = off & ~1u;
	uint16_t old_word = load16(h + word);

	h[off] = val;
	ip->hdr_checksum = aifab_cksum_update16(ip->hdr_checksum, old_word,
						load16(h + word));
}

uint8_t
aifab_ipv4_dec_ttl(struct rte_ipv4_hdr *ip)
{
	/* TTL 0 is left alone: the caller drops such a packet. */
	if (ip->time_to_live == 0)
		return 0;
	ipv4_set_byte(ip, offsetof(struct rte_ipv4_hdr, time_to_live),
		      (uint8_t)(ip->time_to_live - 1));
	return ip->time_to_live;
}

void
aifab_ipv4_dec_ttl_bulk(struct rte_ipv4_hdr *const *ip, uint16_t n)
{
	uint16_t i;

	for (i = 0; i < n; i++)
		aifab_ipv4_dec_ttl(ip[i]);
}

void
aifab_ipv4_set_tos(struct rte_ipv4_hdr *ip, uint8_t tos)
{
	if (ip->type_of_service == tos)
		return;
	ipv4_set_byte(ip, offsetof(struct rte_ipv4_hdr, type_of_service), tos);
}

uint16_t
aifab_ipv4_cksum(const struct rte_ipv4_hdr *ip)
{
	const uint8_t *h = (const uint8_t *)ip;
	uint32_t hl = (uint32_t)(ip->version_ihl & 0x0f) * 4;
	uint32_t sum = 0;
	uint32_t off;

	if (hl < IP4_MIN_HDR_LEN)
		hl = IP4_MIN_HDR_LEN;
	for (off = 0; off < hl; off += 2) {
		if (off != IP4_CKSUM_OFF)
			sum += load16(h + off);
	}
	return (uint16_t)~cksum_fold(sum);
}
