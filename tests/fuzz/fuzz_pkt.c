/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Fuzz target: the packet parser and the ICRC check (lib/pkt).
 *
 * Input: one flags byte, then the frame.
 *   flags bit 0     check the IPv4 header checksum
 *   flags bits 1-7  how the frame is cut into an mbuf chain (0: one segment)
 *
 * Checks, besides ASan/UBSan staying quiet:
 * - parse() over the whole frame, over the 256-byte header window and over
 *   a shorter window: a window that parses OK gives exactly what the whole
 *   frame gives (the window only adds "truncated" answers);
 * - parse_mbuf() over the chain gives exactly what parse() gives over the
 *   header window (segment boundaries never change an answer);
 * - an OK answer is self-consistent: every header it reports lies inside
 *   the bytes given and the frame, offsets are ordered, flags agree;
 * - for an OK RoCEv2 answer, aifab_icrc_verify() over the chain gives
 *   what aifab_icrc_verify_buf() gives over the frame (the input's own
 *   bytes: ASan sees a read past them), never "malformed", and its answer
 *   matches aifab_icrc() computed over the datagram (plain IPv4/IPv6);
 *   aifab_icrc_verify_known() over the chain gives it too, expecting the
 *   frame's own bytes from some byte of its payload on, and those bytes
 *   with one changed (a lookup only where they are the same).
 */
#include <stdbool.h>
#include <string.h>

#include <rte_lcore.h>

#include "aifab_pkt.h"
#include "fuzz_common.h"

static struct rte_mempool *pool;

int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
	RTE_SET_USED(argc);
	RTE_SET_USED(argv);
	fuzz_eal("fz_pkt");
	/* Small data rooms: long frames become long chains. */
	pool = rte_pktmbuf_pool_create("fz_pkt", 4095, 0, 0,
				       RTE_PKTMBUF_HEADROOM + 512,
				       (int)rte_socket_id());
	if (pool == NULL)
		abort();
	return 0;
}

/* What an OK answer over @p avail readable bytes must satisfy. */
static void
check_ok(const struct aifab_pkt_info *pi, uint32_t avail, uint32_t pkt_len)
{
	uint32_t lim = RTE_MIN(avail, pkt_len);

	FUZZ_ASSERT(pi->pkt_len == pkt_len);
	FUZZ_ASSERT(pi->n_vlans <= 2);
	FUZZ_ASSERT(pi->l3_off == 14 + 4u * pi->n_vlans);
	FUZZ_ASSERT(!!(pi->flags & AIFAB_PKT_F_VLAN) == (pi->n_vlans > 0));
	FUZZ_ASSERT(!!(pi->flags & AIFAB_PKT_F_QINQ) == (pi->n_vlans == 2));
	switch (pi->l3) {
	case AIFAB_L3_IPV4:
		FUZZ_ASSERT(pi->l3_len >= 20 && pi->l3_len <= 60);
		FUZZ_ASSERT(pi->ip_len >= pi->l3_len);
		FUZZ_ASSERT(pi->l3_off + pi->l3_len <= lim);
		FUZZ_ASSERT(pi->l3_off + pi->ip_len <= pkt_len);
		FUZZ_ASSERT(!!(pi->flags & AIFAB_PKT_F_IP_OPTS) ==
			    (pi->l3_len > 20));
		break;
	case AIFAB_L3_IPV6:
		FUZZ_ASSERT(pi->l3_len >= 40);
		FUZZ_ASSERT(pi->ip_len >= pi->l3_len);
		FUZZ_ASSERT(pi->l3_off + pi->l3_len <= lim);
		FUZZ_ASSERT(pi->l3_off + pi->ip_len <= pkt_len);
		FUZZ_ASSERT(!(pi->flags & AIFAB_PKT_F_IP6_EXT) ==
			    (pi->l3_len == 40));
		break;
	case AIFAB_L3_MAC_CTRL:
		FUZZ_ASSERT(!(pi->flags & AIFAB_PKT_F_PFC) ||
			    (pi->l3_off + 20u <= lim &&
			     pi->pfc_enable <= 0xff));
		FUZZ_ASSERT(!(pi->flags & AIFAB_PKT_F_PAUSE) ||
			    pi->l3_off + 4u <= lim);
		break;
	default:
		FUZZ_ASSERT(!(pi->flags & (AIFAB_PKT_F_UDP | AIFAB_PKT_F_ROCE)));
		break;
	}
	if (pi->l3 != AIFAB_L3_IPV4 && pi->l3 != AIFAB_L3_IPV6)
		FUZZ_ASSERT(!(pi->flags & (AIFAB_PKT_F_UDP | AIFAB_PKT_F_FRAG |
					   AIFAB_PKT_F_IP_OPTS)));
	if (pi->flags & AIFAB_PKT_F_UDP) {
		FUZZ_ASSERT(pi->l4_proto == 17);
		FUZZ_ASSERT(pi->l4_off == pi->l3_off + pi->l3_len);
		FUZZ_ASSERT(pi->l4_off + 8u <= lim);
	}
	if (pi->flags & AIFAB_PKT_F_ROCE) {
		FUZZ_ASSERT(pi->flags & AIFAB_PKT_F_UDP);
		FUZZ_ASSERT(pi->dport == AIFAB_ROCEV2_UDP_PORT);
		FUZZ_ASSERT(pi->bth_off == pi->l4_off + 8);
		FUZZ_ASSERT(pi->bth_off + (uint32_t)AIFAB_BTH_LEN <= lim);
		/* BTH, pad and ICRC inside the IP datagram and the frame */
		FUZZ_ASSERT(pi->bth_off + (uint32_t)AIFAB_BTH_LEN +
			    pi->pad_cnt + AIFAB_ICRC_LEN <=
			    pi->l3_off + pi->ip_len);
		FUZZ_ASSERT(pi->dqpn <= 0xffffff && pi->psn <= 0xffffff);
	}
}

/* aifab_icrc_verify_known() gives @p vb, aifab_icrc_verify_buf()'s. */
static void
check_known(const uint8_t *frame, uint32_t len, const struct rte_mbuf *m,
	    const struct aifab_pkt_info *pi, enum aifab_icrc_verdict vb)
{
	static uint8_t ref[4096];
	uint32_t skip = len % 29, known, kl, other;
	struct aifab_icrc_known *k;

	known = pi->bth_off + AIFAB_BTH_LEN + skip +
		aifab_bth_data_ext_len(pi->bth_opcode);
	if (known >= len)
		return;
	kl = RTE_MIN(len - known, (uint32_t)sizeof(ref));
	for (other = 0; other < 2; other++) {
		memcpy(ref, frame + known, kl);
		ref[kl / 2] ^= (uint8_t)other;
		k = aifab_icrc_known_create(ref, kl, skip);
		FUZZ_ASSERT(k != NULL);
		FUZZ_ASSERT(aifab_icrc_verify_known(m, pi, k) == vb);
		aifab_icrc_known_free(k);
	}
}

/* The ICRC check of a frame that parsed as RoCEv2, flat and chained. */
static void
check_icrc(const uint8_t *frame, uint32_t len, const struct rte_mbuf *m,
	   const struct aifab_pkt_info *pi)
{
	enum aifab_icrc_verdict vb = aifab_icrc_verify_buf(frame, len, pi);
	uint32_t end = pi->l3_off + pi->ip_len, udp_end, want;

	FUZZ_ASSERT(vb == AIFAB_ICRC_OK || vb == AIFAB_ICRC_BAD);
	FUZZ_ASSERT(aifab_icrc_verify(m, pi) == vb);
	check_known(frame, len, m, pi, vb);
	udp_end = pi->l4_off + ((uint32_t)frame[pi->l4_off + 4] << 8 |
				frame[pi->l4_off + 5]);
	end = RTE_MIN(end, udp_end);
	/* aifab_icrc() masks the fixed headers only: IPv4 options and
	 * IPv6 extension headers are the check's own business. */
	if (pi->l4_off != pi->l3_off + (pi->l3 == AIFAB_L3_IPV4 ? 20 : 40))
		return;
	want = aifab_icrc(frame + pi->l3_off, end - AIFAB_ICRC_LEN - pi->l3_off,
			  pi->l3 == AIFAB_L3_IPV6);
	FUZZ_ASSERT((vb == AIFAB_ICRC_OK) ==
		    (want == aifab_icrc_load(frame + end - AIFAB_ICRC_LEN)));
}

static void
check_same(enum aifab_pkt_err a, const struct aifab_pkt_info *pa,
	   enum aifab_pkt_err b, const struct aifab_pkt_info *pb)
{
	FUZZ_ASSERT(a == b);
	FUZZ_ASSERT(memcmp(pa, pb, sizeof(*pa)) == 0);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct aifab_pkt_info full, win, part, mb, fast;
	enum aifab_pkt_err ef, ew, ep, em;
	uint8_t scratch[AIFAB_PKT_HDR_WINDOW];
	const uint8_t *frame;
	uint32_t len, wlen, plen;
	struct rte_mbuf *m;
	bool csum;
	uint8_t flags;

	if (size < 1 || size > 65535)
		return 0;
	flags = data[0];
	csum = flags & 1;
	frame = data + 1;
	len = (uint32_t)size - 1;

	ef = aifab_pkt_parse(frame, len, len, &full, csum);
	FUZZ_ASSERT((unsigned int)ef < AIFAB_PKT_ERR_MAX);
	FUZZ_ASSERT(strcmp(aifab_pkt_err_name(ef), "unknown") != 0);
	if (ef == AIFAB_PKT_ERR_OK)
		check_ok(&full, len, len);

	/* The header window, as the switch reads a chained mbuf. */
	wlen = RTE_MIN(len, (uint32_t)AIFAB_PKT_HDR_WINDOW);
	ew = aifab_pkt_parse(frame, wlen, len, &win, csum);
	if (ew == AIFAB_PKT_ERR_OK) {
		check_ok(&win, wlen, len);
		check_same(ew, &win, ef, &full);
	}
	/* The inline parser of the common frame: where it answers, the
	 * full parser's answer exactly (it may decline any frame). */
	if (aifab_pkt_parse_udp4_fast(frame, wlen, len, &fast, csum))
		check_same(AIFAB_PKT_ERR_OK, &fast, ew, &win);
	/* A shorter window still. */
	plen = len ? (uint32_t)(flags >> 1) % (len + 1) : 0;
	ep = aifab_pkt_parse(frame, plen, len, &part, csum);
	if (ep == AIFAB_PKT_ERR_OK) {
		check_ok(&part, plen, len);
		check_same(ep, &part, ef, &full);
	}

	/* Chained mbufs: the same answer as the window, however cut. */
	m = fuzz_mbuf_chain(pool, frame, len, flags >> 1);
	if (m == NULL)
		return 0; /* pool or chain limit: not the parser's business */
	FUZZ_ASSERT(m->pkt_len == len);
	em = aifab_pkt_parse_mbuf(m, &mb, scratch, csum);
	check_same(em, &mb, ew, &win);
	if (em == AIFAB_PKT_ERR_OK && (mb.flags & AIFAB_PKT_F_ROCE))
		check_icrc(frame, len, m, &mb);
	rte_pktmbuf_free(m);
	FUZZ_ASSERT(rte_mempool_in_use_count(pool) == 0);
	return 0;
}
