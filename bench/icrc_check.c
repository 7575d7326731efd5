/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * bench/icrc_check: what the generator's receive-side ICRC check costs per
 * frame at IB MTU 4096 (a 4154-byte RDMA WRITE middle over IPv4), in TSC
 * cycles: the header part alone (masked headers and the 24-byte tag, then
 * one GF(2) multiply by a precomputed payload CRC: what TX pays per frame)
 * against the full check of lib/pkt's aifab_icrc_verify() over one
 * segment and over the generator's three-segment layout, with the CRC
 * the app chooses for it (aifab_icrc_verify_init()), the generator's own
 * check (aifab_icrc_verify_known(): the payload after the tag compared
 * with the one it sends, its CRC looked up), and the CRC loops
 * alone over 4096 bytes: slice-by-8, lib/pkt's aifab_crc32_raw_fold()
 * and each of rte_net_crc's algorithms.
 * A figure, not a test: it exits non-zero only if a check gives the wrong
 * answer.
 *
 *   ninja -C build bench/icrc_check && build/bench/icrc_check [FRAMES]
 *
 * Each figure is the fewest cycles per frame of 7 rounds of FRAMES
 * (default 20000) back-to-back checks of the same frame (data in cache).
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_cpuflags.h>
#include <rte_cycles.h>
#include <rte_eal.h>
#include <rte_ether.h>
#include <rte_ip.h>
#include <rte_mbuf.h>
#include <rte_net_crc.h>
#include <rte_vect.h>

#include "aifab_eal.h"
#include "aifab_pkt.h"

#define PAYLOAD 4096u
#define HDRS (14u + 20u + 8u + AIFAB_BTH_LEN)   /* Ethernet .. BTH */
#define TAG 24u                                 /* in the header mbuf */
#define FRAME (HDRS + PAYLOAD + AIFAB_ICRC_LEN) /* 4154 */
#define ROUNDS 7

enum what { W_HDR, W_FLAT, W_CHAIN, W_KNOWN, W_FOLD, W_OURS, W_SLICE };

struct bench {
	uint8_t frame[FRAME];
	struct rte_mbuf *one, *three;
	struct aifab_pkt_info pi;
	struct aifab_crc_shift shift;  /* for the payload after the tag */
	uint32_t tail_raw;             /* raw CRC of that payload */
	struct aifab_icrc_known *known; /* that payload, for the check */
	unsigned int n;
};

static void
die(const char *what)
{
	fprintf(stderr, "icrc_check: %s\n", what);
	exit(1);
}

static void
frame_build(uint8_t *b)
{
	static const struct rte_ether_addr a = { { 2, 0, 0, 0, 0, 1 } };
	static const struct rte_ether_addr c = { { 2, 0, 0, 0, 0, 2 } };
	uint32_t off = 0, i;

	off += aifab_build_eth(b, &c, &a, -1, 0, RTE_ETHER_TYPE_IPV4);
	off += aifab_build_ipv4(b + off, RTE_BE32(0x0a000001),
				RTE_BE32(0x0a000002), IPPROTO_UDP, 26 << 2 | 2,
				64, 8 + AIFAB_BTH_LEN + PAYLOAD +
				AIFAB_ICRC_LEN, 1);
	off += aifab_build_udp(b + off, 0xc001, AIFAB_ROCEV2_UDP_PORT,
			       AIFAB_BTH_LEN + PAYLOAD + AIFAB_ICRC_LEN);
	off += aifab_build_bth(b + off, AIFAB_BTH_OP_WRITE_MIDDLE, false, 0,
			       0x101, false, 1234, false);
	for (i = 0; i < PAYLOAD; i++)
		b[off + i] = (uint8_t)(i * 131 + 7);
	aifab_icrc_store(b + off + PAYLOAD,
			 aifab_icrc(b + 14, off + PAYLOAD - 14, false));
}

/* @p len bytes of @p b from @p off as a new mbuf (chained to @p head). */
static struct rte_mbuf *
seg(struct rte_mempool *mp, struct rte_mbuf *head, const uint8_t *b,
    uint32_t off, uint32_t len)
{
	struct rte_mbuf *m = rte_pktmbuf_alloc(mp);
	char *d = m != NULL ? rte_pktmbuf_append(m, (uint16_t)len) : NULL;

	if (d == NULL)
		die("mbuf");
	memcpy(d, b + off, len);
	if (head != NULL && rte_pktmbuf_chain(head, m) != 0)
		die("chain");
	return head != NULL ? head : m;
}

static void
setup(struct bench *bn)
{
	struct rte_mempool *mp = rte_pktmbuf_pool_create("icrc_bench", 15, 0, 0,
		RTE_PKTMBUF_HEADROOM + FRAME, SOCKET_ID_ANY);
	uint8_t scratch[AIFAB_PKT_HDR_WINDOW];
	const uint8_t *tail;

	if (mp == NULL)
		die("mempool");
	frame_build(bn->frame);
	bn->one = seg(mp, NULL, bn->frame, 0, FRAME);
	/* The generator's frames: headers + tag, payload, ICRC. */
	bn->three = seg(mp, NULL, bn->frame, 0, HDRS + TAG);
	seg(mp, bn->three, bn->frame, HDRS + TAG, PAYLOAD - TAG);
	seg(mp, bn->three, bn->frame, HDRS + PAYLOAD, AIFAB_ICRC_LEN);
	if (aifab_pkt_parse_mbuf(bn->one, &bn->pi, scratch, false) !=
	    AIFAB_PKT_ERR_OK || !(bn->pi.flags & AIFAB_PKT_F_ROCE))
		die("parse");
	tail = bn->frame + HDRS + TAG;
	bn->tail_raw = aifab_crc32_raw(0, tail, PAYLOAD - TAG);
	aifab_crc_shift_init(&bn->shift, PAYLOAD - TAG);
	bn->known = aifab_icrc_known_create(tail, PAYLOAD - TAG, TAG);
	if (bn->known == NULL)
		die("known payload");
}

/* One frame's worth of @p w; returns something the compiler must keep. */
static uint32_t
once(const struct bench *bn, enum what w)
{
	const uint8_t *p = bn->frame + HDRS;

	switch (w) {
	case W_HDR:
		return aifab_icrc_combine(bn->frame + 14, HDRS - 14 + TAG, false,
					  bn->tail_raw, &bn->shift);
	case W_FLAT:
		return aifab_icrc_verify(bn->one, &bn->pi);
	case W_CHAIN:
		return aifab_icrc_verify(bn->three, &bn->pi);
	case W_KNOWN:
		return aifab_icrc_verify_known(bn->one, &bn->pi, bn->known);
	case W_FOLD:
		return rte_net_crc_calc(p, PAYLOAD, RTE_NET_CRC32_ETH);
	case W_OURS:
		return aifab_crc32_raw_fold(UINT32_MAX, p, PAYLOAD);
	default:
		return aifab_crc32_raw(UINT32_MAX, p, PAYLOAD);
	}
}

/* Fewest cycles per frame over the rounds. */
static double
measure(const struct bench *bn, enum what w)
{
	volatile uint32_t sink = 0;
	double best = 0;
	unsigned int r, i;

	for (r = 0; r < ROUNDS; r++) {
		uint64_t t0 = rte_rdtsc_precise(), t;

		for (i = 0; i < bn->n; i++)
			sink += once(bn, w);
		t = rte_rdtsc_precise() - t0;
		if (r == 0 || (double)t / bn->n < best)
			best = (double)t / bn->n;
	}
	(void)sink;
	return best;
}

static void
row(const struct bench *bn, const char *what, enum what w)
{
	printf("| %s | %.0f |\n", what, measure(bn, w));
}

int
main(int argc, char **argv)
{
	static const struct { enum rte_net_crc_alg alg; const char *name; }
	algs[] = {
		{ RTE_NET_CRC_SCALAR, "table (RTE_NET_CRC_SCALAR)" },
		{ RTE_NET_CRC_SSE42, "SSE4.2 + PCLMULQDQ" },
		{ RTE_NET_CRC_AVX512, "AVX-512 VPCLMULQDQ if built and allowed, "
		  "else SSE4.2" },
	};
	static struct bench bn;
	char run_dir[512], what[160];
	unsigned int a;

	bn.n = argc > 1 ? (unsigned int)strtoul(argv[1], NULL, 0) : 20000;
	if (bn.n == 0)
		die("FRAMES must be > 0");
	if (aifab_eal_init_private("icrc-bench", run_dir, sizeof(run_dir)))
		die("EAL");
	/* Let rte_net_crc pick AVX-512 where the CPU has it (EAL's default
	 * caps SIMD at 256 bits; the app takes --force-max-simd-bitwidth). */
	rte_vect_set_max_simd_bitwidth(RTE_VECT_SIMD_512);
	setup(&bn);
	printf("# icrc_check: %u-byte frames (IB MTU 4096, IPv4 RDMA WRITE "
	       "middle), fewest of %u rounds of %u; TSC %.2f GHz; CPU "
	       "avx512f %d vpclmulqdq %d\n\n", FRAME, ROUNDS, bn.n,
	       rte_get_tsc_hz() / 1e9,
	       rte_cpu_get_flag_enabled(RTE_CPUFLAG_AVX512F),
	       rte_cpu_get_flag_enabled(RTE_CPUFLAG_VPCLMULQDQ));
	printf("| per frame | cycles |\n|---|---:|\n");
	row(&bn, "header part only: masked headers + tag, one multiply "
	    "(aifab_icrc_combine, what TX pays)", W_HDR);
	row(&bn, "slice-by-8 over the 4096-byte payload alone", W_SLICE);
	snprintf(what, sizeof(what), "aifab_crc32_raw_fold over 4096 bytes "
		 "(%s)", !aifab_crc32_fold_fast() ? "slice-by-8: no PCLMULQDQ" :
		 rte_cpu_get_flag_enabled(RTE_CPUFLAG_VPCLMULQDQ) > 0 &&
		 rte_cpu_get_flag_enabled(RTE_CPUFLAG_AVX2) > 0 ?
		 "8 chunks in flight, VPCLMULQDQ" :
		 "4 chunks in flight, PCLMULQDQ");
	row(&bn, what, W_OURS);
	for (a = 0; a < RTE_DIM(algs); a++) {
		rte_net_crc_set_alg(algs[a].alg);
		if (rte_net_crc_calc(bn.frame + HDRS, PAYLOAD,
				     RTE_NET_CRC32_ETH) !=
		    ~aifab_crc32_raw(UINT32_MAX, bn.frame + HDRS, PAYLOAD))
			die("rte_net_crc and the slice-by-8 disagree");
		snprintf(what, sizeof(what), "rte_net_crc_calc over 4096 bytes, "
			 "%s", algs[a].name);
		row(&bn, what, W_FOLD);
	}
	/* the full check as the app runs it: its choice of CRC for runs */
	rte_vect_set_max_simd_bitwidth(RTE_VECT_SIMD_256);
	aifab_icrc_verify_init();
	if (aifab_icrc_verify(bn.one, &bn.pi) != AIFAB_ICRC_OK ||
	    aifab_icrc_verify(bn.three, &bn.pi) != AIFAB_ICRC_OK)
		die("a right ICRC does not verify");
	row(&bn, "full check (aifab_icrc_verify), 1 segment, the app's "
	    "choice (aifab_icrc_verify_init)", W_FLAT);
	row(&bn, "full check, 3 segments (headers + tag, payload, ICRC), the "
	    "app's choice", W_CHAIN);
	if (aifab_icrc_verify_known(bn.one, &bn.pi, bn.known) != AIFAB_ICRC_OK)
		die("a right ICRC does not verify with the known payload");
	row(&bn, "full check, 1 segment, the payload after the tag the known "
	    "one (aifab_icrc_verify_known: compared, its CRC looked up; the "
	    "generator's check)", W_KNOWN);
	bn.frame[HDRS + 100] ^= 1;
	rte_pktmbuf_mtod(bn.one, uint8_t *)[HDRS + 100] ^= 1;
	if (aifab_icrc_verify(bn.one, &bn.pi) != AIFAB_ICRC_BAD ||
	    aifab_icrc_verify_known(bn.one, &bn.pi, bn.known) !=
	    AIFAB_ICRC_BAD)
		die("a flipped payload bit verifies");
	aifab_icrc_known_free(bn.known);
	rte_eal_cleanup();
	aifab_eal_remove_runtime_dir(run_dir);
	return 0;
}
