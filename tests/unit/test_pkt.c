/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Unit tests for lib/pkt: parser, builders, IPv4 checksum, RoCEv2 ICRC
 * (computed on TX, checked on RX).
 *
 * Expected values come from PROTOCOLS.md, RFC 1624 and hand computation,
 * never from the code under test. The first group needs no EAL; the mbuf
 * group starts EAL with --no-huge in its group setup.
 *
 * With AIFAB_PKT_DUMP=<file> set, test_dump_pcap writes every frame kind
 * the builders make to a pcap for tests/integration/check_builders.py.
 */
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>
#include <pcap/pcap.h>

#include <rte_eal.h>
#include <rte_ip.h>
#include <rte_lcore.h>
#include <rte_mbuf.h>
#include <rte_mempool.h>
#include <rte_net_crc.h>
#include <rte_udp.h>

#include "aifab_eal.h"
#include "aifab_pkt.h"

#define FRAME_MAX 9216
#define ETH_LEN 14
#define IP4_LEN 20
#define IP6_LEN 40
#define UDP_LEN 8
#define SEED 0x5eed2024u

/* ---- helpers ------------------------------------------------------------ */

/* splitmix64: a seeded PRNG private to each test. */
static uint64_t
prng_next(uint64_t *s)
{
	uint64_t z = (*s += 0x9E3779B97F4A7C15ull);

	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
	z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
	return z ^ (z >> 31);
}

static uint32_t
prng_below(uint64_t *s, uint32_t n)
{
	return (uint32_t)(prng_next(s) % n);
}

static void
prng_fill(uint64_t *s, uint8_t *p, uint32_t len)
{
	uint32_t i;

	for (i = 0; i < len; i++)
		p[i] = (uint8_t)prng_next(s);
}

static uint32_t
hex_decode(const char *hex, uint8_t *out)
{
	uint32_t n = 0;
	unsigned int byte;

	while (hex[0] != '\0' && hex[1] != '\0') {
		assert_int_equal(sscanf(hex, "%2x", &byte), 1);
		out[n++] = (uint8_t)byte;
		hex += 2;
	}
	return n;
}

static const struct rte_ether_addr mac_a = {
	.addr_bytes = { 0x02, 0x00, 0x00, 0x00, 0x00, 0x01 } };
static const struct rte_ether_addr mac_b = {
	.addr_bytes = { 0x02, 0x00, 0x00, 0x00, 0x00, 0x02 } };
static const uint8_t ip6_a[16] = { 0xfd, 0, 0, 0, 0, 0, 0, 0,
				   0, 0, 0, 0, 0, 0, 0, 1 };
static const uint8_t ip6_b[16] = { 0xfd, 0, 0, 0, 0, 0, 0, 0,
				   0, 0, 0, 0, 0, 0, 0, 2 };

/* What mk_roce() builds. */
struct roce_spec {
	bool ipv6;
	int vid;              /* < 0: untagged */
	uint8_t pcp;
	uint8_t opcode;
	uint8_t tos;
	bool reth;
	bool aeth;
	uint32_t dqpn;
	uint32_t psn;
	uint32_t payload_len; /* before pad */
	uint8_t fill;         /* payload byte; 0 = counting pattern */
};

struct roce_frame {
	uint8_t b[FRAME_MAX];
	uint32_t len;     /* whole frame incl. ICRC */
	uint32_t l3;      /* IP header offset */
	uint32_t hdr_len; /* IP .. end of transport headers */
	uint32_t pay_len; /* payload + pad */
};

/* A RoCEv2 frame from the library's builders, ICRC computed in full. */
static void
mk_roce(struct roce_frame *f, const struct roce_spec *s)
{
	uint32_t pad = (4 - (s->payload_len & 3)) & 3;
	uint32_t ext = (s->reth ? AIFAB_RETH_LEN : 0) +
		       (s->aeth ? AIFAB_AETH_LEN : 0);
	uint32_t udp_pay = AIFAB_BTH_LEN + ext + s->payload_len + pad +
			   AIFAB_ICRC_LEN;
	uint32_t off, i;

	memset(f, 0, sizeof(*f));
	off = aifab_build_eth(f->b, &mac_b, &mac_a, s->vid, s->pcp,
			      s->ipv6 ? RTE_ETHER_TYPE_IPV6 :
			      RTE_ETHER_TYPE_IPV4);
	f->l3 = off;
	if (s->ipv6)
		off += aifab_build_ipv6(f->b + off, ip6_a, ip6_b, IPPROTO_UDP,
					s->tos, 0x12345, 64,
					(uint16_t)(UDP_LEN + udp_pay));
	else
		off += aifab_build_ipv4(f->b + off, RTE_BE32(0x0a000001),
					RTE_BE32(0x0a000002), IPPROTO_UDP,
					s->tos, 64,
					(uint16_t)(UDP_LEN + udp_pay), 7);
	off += aifab_build_udp(f->b + off, aifab_roce_sport(0x11, s->dqpn),
			       AIFAB_ROCEV2_UDP_PORT, (uint16_t)udp_pay);
	off += aifab_build_bth(f->b + off, s->opcode, false, (uint8_t)pad,
			       s->dqpn, true, s->psn, false);
	if (s->reth)
		off += aifab_build_reth(f->b + off, 0x7f0000001000ull,
					0xabcd, s->payload_len);
	if (s->aeth)
		off += aifab_build_aeth(f->b + off, AIFAB_AETH_ACK, s->psn);
	f->hdr_len = off - f->l3;
	for (i = 0; i < s->payload_len; i++)
		f->b[off + i] = s->fill != 0 ? s->fill : (uint8_t)i;
	f->pay_len = s->payload_len + pad;
	off += f->pay_len;
	aifab_icrc_store(f->b + off,
			 aifab_icrc(f->b + f->l3, off - f->l3, s->ipv6));
	f->len = off + AIFAB_ICRC_LEN;
}

static const struct roce_spec write_only_v4 = {
	.vid = -1, .opcode = AIFAB_BTH_OP_WRITE_ONLY, .tos = 0x6a,
	.reth = true, .dqpn = 0x000123, .psn = 0xfffffe, .payload_len = 64,
};

/* Parse a copy of exactly @p avail bytes (so ASan sees any overread). */
static enum aifab_pkt_err
parse_exact(const uint8_t *frame, uint32_t avail, uint32_t pkt_len,
	    struct aifab_pkt_info *pi, bool csum)
{
	uint8_t *copy = malloc(avail ? avail : 1);
	enum aifab_pkt_err err;

	assert_non_null(copy);
	memcpy(copy, frame, avail);
	err = aifab_pkt_parse(copy, avail, pkt_len, pi, csum);
	free(copy);
	return err;
}

/* ---- ICRC ---------------------------------------------------------------- */

/* PROTOCOLS.md test vector: IPv4 SEND-only-like BTH, 16 x 0x41 payload. */
static const char icrc_vector_hex[] =
	"0200000000020200000000010800456a003c00010000401166440a0000010a000002"
	"c00012b7002800000400ffff0000001280000005";

static void
test_icrc_vector(void **state)
{
	static const uint8_t expect[4] = { 0x8a, 0x62, 0x29, 0x3a };
	uint8_t frame[128], copy[128];
	uint32_t len = hex_decode(icrc_vector_hex, frame);
	uint8_t wire[4];
	uint32_t icrc;

	(void)state;
	memset(frame + len, 0x41, 16);
	len += 16;
	memcpy(copy, frame, len);
	icrc = aifab_icrc(frame + ETH_LEN, len - ETH_LEN, false);
	aifab_icrc_store(wire, icrc);
	assert_memory_equal(wire, expect, 4);
	assert_int_equal(aifab_icrc_load(wire), icrc);
	assert_int_equal(icrc, 0x3a29628a);
	assert_memory_equal(frame, copy, len); /* input untouched */
}

/* aifab_crc32_raw vs DPDK's own CRC-32 (independent implementation). */
static void
test_crc32_raw_vs_rte_net_crc(void **state)
{
	uint64_t rng = SEED;
	uint8_t buf[2048];
	uint32_t i, len, split;

	(void)state;
	/* Without EAL the SIMD probes fail noisily; scalar is what we want. */
	rte_net_crc_set_alg(RTE_NET_CRC_SCALAR);
	assert_int_equal(~aifab_crc32_raw(UINT32_MAX, "123456789", 9),
			 0xcbf43926);
	assert_int_equal(rte_net_crc_calc("123456789", 9, RTE_NET_CRC32_ETH),
			 0xcbf43926);
	for (i = 0; i < 200; i++) {
		len = prng_below(&rng, sizeof(buf));
		split = len ? prng_below(&rng, len) : 0;
		prng_fill(&rng, buf, len);
		assert_int_equal(~aifab_crc32_raw(aifab_crc32_raw(UINT32_MAX,
				 buf, split), buf + split, len - split),
				 rte_net_crc_calc(buf, len, RTE_NET_CRC32_ETH));
	}
}

/* IBA 9.2 (Table 38): extension headers between BTH and payload. */
static void
test_bth_data_ext_len(void **state)
{
	static const struct { uint8_t op; uint32_t len; } t[] = {
		{ 0x00, 0 }, { 0x01, 0 }, { 0x02, 0 }, { 0x03, 4 },
		{ 0x04, 0 }, { 0x05, 4 }, { 0x06, 16 }, { 0x07, 0 },
		{ 0x08, 0 }, { 0x09, 4 }, { 0x0a, 16 }, { 0x0b, 20 },
		{ 0x11, 0 }, { 0x81, 0 },
	};
	unsigned int i;

	(void)state;
	for (i = 0; i < sizeof(t) / sizeof(t[0]); i++)
		assert_int_equal(aifab_bth_data_ext_len(t[i].op), t[i].len);
}

/* zlib's multmodp, branches and all: the reference for aifab_crc32_mul. */
static uint32_t
ref_crc_mul(uint32_t a, uint32_t b)
{
	uint32_t m, p = 0;

	for (m = 0x80000000u; m != 0; m >>= 1) {
		if (a & m)
			p ^= b;
		b = (b & 1) ? (b >> 1) ^ 0xEDB88320u : b >> 1;
	}
	return p;
}

/*
 * aifab_crc32_mul (PCLMULQDQ where the CPU has it) against the bit loop,
 * and as what it is for: multiplying by x^(8n) advances a CRC register
 * over n zero bytes (checked with the table-driven aifab_crc32_raw).
 */
static void
test_crc32_mul(void **state)
{
	static const uint8_t zeros[64];
	struct aifab_crc_shift sh;
	uint64_t rng = SEED;
	uint32_t i, a, b, n;

	(void)state;
	assert_int_equal(aifab_crc32_mul(0x80000000u, 0x12345678u), 0x12345678u);
	assert_int_equal(aifab_crc32_mul(0, 0xffffffffu), 0);
	for (i = 0; i < 100000; i++) {
		a = (uint32_t)prng_next(&rng);
		b = (uint32_t)(prng_next(&rng) >> 32);
		assert_int_equal(aifab_crc32_mul(a, b), ref_crc_mul(a, b));
		assert_int_equal(aifab_crc32_mul(a, b), aifab_crc32_mul(b, a));
	}
	for (n = 0; n <= sizeof(zeros); n++) {
		a = (uint32_t)prng_next(&rng);
		aifab_crc_shift_init(&sh, n);
		assert_int_equal(aifab_crc32_mul(a, sh.x8n),
				 aifab_crc32_raw(a, zeros, n));
	}
}

static uint32_t
frame_icrc(const struct roce_frame *f, bool ipv6)
{
	return aifab_icrc(f->b + f->l3, f->len - f->l3 - AIFAB_ICRC_LEN, ipv6);
}

static void
test_icrc_invariant_fields(void **state)
{
	static struct roce_frame f;
	struct roce_spec s = write_only_v4;
	struct rte_ipv4_hdr *ip;
	uint32_t base;
	int v6;

	(void)state;
	for (v6 = 0; v6 < 2; v6++) {
		s.ipv6 = v6;
		mk_roce(&f, &s);
		base = frame_icrc(&f, s.ipv6);
		assert_int_equal(base, aifab_icrc_load(f.b + f.len - 4));
		if (!s.ipv6) {
			ip = (struct rte_ipv4_hdr *)(f.b + f.l3);
			aifab_ipv4_dec_ttl(ip);
			assert_int_equal(frame_icrc(&f, false), base);
			aifab_ipv4_set_tos(ip, 0x6b); /* CE */
			assert_int_equal(frame_icrc(&f, false), base);
		} else {
			f.b[f.l3 + 0] = 0x6f; /* traffic class high nibble */
			f.b[f.l3 + 1] = 0xff; /* TC low nibble + flow label */
			f.b[f.l3 + 3] = 0x00;
			f.b[f.l3 + 7] = 1;    /* hop limit */
			assert_int_equal(frame_icrc(&f, true), base);
		}
		f.b[f.l3 + (s.ipv6 ? IP6_LEN : IP4_LEN) + 6] = 0x12; /* UDP ck */
		f.b[f.l3 + (s.ipv6 ? IP6_LEN : IP4_LEN) + UDP_LEN + 4] = 0xc0;
		assert_int_equal(frame_icrc(&f, s.ipv6), base);
		/* ... but covered fields do change it. */
		f.b[f.len - 5] ^= 1; /* last pad/payload byte */
		assert_int_not_equal(frame_icrc(&f, s.ipv6), base);
		f.b[f.len - 5] ^= 1;
		f.b[f.l3 + (s.ipv6 ? IP6_LEN : IP4_LEN) + UDP_LEN + 5] ^= 1;
		assert_int_not_equal(frame_icrc(&f, s.ipv6), base);
	}
	/* IPv6: the version nibble is covered. */
	s.ipv6 = true;
	mk_roce(&f, &s);
	base = frame_icrc(&f, true);
	f.b[f.l3] ^= 0x10;
	assert_int_not_equal(frame_icrc(&f, true), base);
}

static void
check_combine(uint64_t *rng, uint32_t len)
{
	static struct roce_frame f;
	struct roce_spec s = write_only_v4;
	struct aifab_crc_shift sh;
	const uint8_t *pay;
	uint32_t raw, full;

	s.ipv6 = prng_below(rng, 2);
	s.reth = prng_below(rng, 2);
	s.opcode = s.reth ? AIFAB_BTH_OP_WRITE_ONLY : AIFAB_BTH_OP_WRITE_MIDDLE;
	s.payload_len = len;
	s.psn = (uint32_t)prng_next(rng);
	mk_roce(&f, &s);
	prng_fill(rng, f.b + f.l3 + f.hdr_len, len); /* random payload */
	pay = f.b + f.l3 + f.hdr_len;
	full = aifab_icrc(f.b + f.l3, f.hdr_len + f.pay_len, s.ipv6);
	aifab_crc_shift_init(&sh, f.pay_len);
	assert_int_equal(sh.len, f.pay_len);
	raw = aifab_crc32_raw(0, pay, f.pay_len);
	assert_int_equal(aifab_icrc_combine(f.b + f.l3, f.hdr_len, s.ipv6,
					    raw, &sh), full);
}

static void
test_icrc_combine_random(void **state)
{
	static const uint32_t fixed[] = { 0, 1, 2, 3, 4, 5, 7, 255, 256, 1021,
					  4096, 8999, 9000 };
	uint64_t rng = SEED;
	unsigned int i;

	(void)state;
	for (i = 0; i < RTE_DIM(fixed); i++)
		check_combine(&rng, fixed[i]);
	for (i = 0; i < 300; i++)
		check_combine(&rng, prng_below(&rng, 9001));
}

/* ---- ICRC receive check ------------------------------------------------- */

/* PROTOCOLS.md: the bytes the ICRC treats as ones, by offset from the IP
 * header (bit: of that byte, 0 = least significant). Written from the
 * spec, not from lib/pkt's mask. */
static bool
icrc_masked(uint32_t rel, uint32_t bit, bool ipv6)
{
	uint32_t udp = ipv6 ? IP6_LEN : IP4_LEN, bth = udp + UDP_LEN;

	if (rel == udp + 6 || rel == udp + 7 || rel == bth + 4)
		return true;    /* UDP checksum; FECN, BECN, reserved */
	if (ipv6)               /* traffic class, flow label, hop limit */
		return (rel == 0 && bit < 4) || (rel >= 1 && rel <= 3) ||
		       rel == 7;
	return rel == 1 || rel == 8 || rel == 10 || rel == 11;
}

/* The PROTOCOLS.md vector verifies; with its ICRC off by one bit, not. */
static void
test_icrc_verify_vector(void **state)
{
	uint8_t frame[128];
	uint32_t len = hex_decode(icrc_vector_hex, frame);
	struct aifab_pkt_info pi;
	uint8_t *exact;

	(void)state;
	memset(frame + len, 0x41, 16);
	len += 16;
	memcpy(frame + len, "\x8a\x62\x29\x3a", 4);
	len += 4;
	assert_int_equal(aifab_pkt_parse(frame, len, len, &pi, true),
			 AIFAB_PKT_ERR_OK);
	/* An exact-size copy: ASan sees a read past the frame. */
	exact = malloc(len);
	assert_non_null(exact);
	memcpy(exact, frame, len);
	assert_int_equal(aifab_icrc_verify_buf(exact, len, &pi),
			 AIFAB_ICRC_OK);
	exact[len - 1] ^= 0x80;
	assert_int_equal(aifab_icrc_verify_buf(exact, len, &pi),
			 AIFAB_ICRC_BAD);
	/* The buffer ends inside the ICRC: nothing to compare with. */
	assert_int_equal(aifab_icrc_verify_buf(exact, len - 1, &pi),
			 AIFAB_ICRC_MALFORMED);
	free(exact);
}

/*
 * Every single-bit flip of @p f: in the Ethernet header or a masked field
 * the check still passes; anywhere else the ICRC covers (IP, UDP, BTH,
 * extension headers, payload, pad, the ICRC itself) it fails, judged with
 * the unflipped frame's parse and, as the generator sees it, re-parsed.
 * Only flips of the UDP length may make the frame malformed instead.
 */
static void
check_icrc_flips(const struct roce_frame *f, bool ipv6)
{
	static uint8_t b[FRAME_MAX];
	struct aifab_pkt_info pi, pj;
	uint32_t off, bit, covered = 0, bad = 0;
	enum aifab_icrc_verdict v;

	assert_int_equal(aifab_pkt_parse(f->b, f->len, f->len, &pi, false),
			 AIFAB_PKT_ERR_OK);
	assert_int_equal(aifab_icrc_verify_buf(f->b, f->len, &pi),
			 AIFAB_ICRC_OK);
	memcpy(b, f->b, f->len);
	for (off = 0; off < f->len; off++) {
		for (bit = 0; bit < 8; bit++) {
			b[off] ^= (uint8_t)(1u << bit);
			v = aifab_icrc_verify_buf(b, f->len, &pi);
			if (off < f->l3 ||
			    icrc_masked(off - f->l3, bit, ipv6)) {
				if (v != AIFAB_ICRC_OK)
					fail_msg("byte %u bit %u: %d", off,
						 bit, v);
			} else {
				covered++;
				bad += v == AIFAB_ICRC_BAD;
				if (v == AIFAB_ICRC_OK)
					fail_msg("byte %u bit %u passes", off,
						 bit);
				if (aifab_pkt_parse(b, f->len, f->len, &pj,
						    false) == AIFAB_PKT_ERR_OK &&
				    (pj.flags & AIFAB_PKT_F_ROCE))
					assert_int_not_equal(
						aifab_icrc_verify_buf(b, f->len,
								      &pj),
						AIFAB_ICRC_OK);
			}
			b[off] ^= (uint8_t)(1u << bit);
		}
	}
	assert_int_equal(covered, (f->len - f->l3) * 8 -
			 (ipv6 ? 4 + 8 * 7 : 8 * 7)); /* masked bits */
	assert_true(bad + 16 >= covered); /* 16: the UDP length's bits */
}

static void
test_icrc_verify_flips(void **state)
{
	static struct roce_frame f;
	struct roce_spec s = write_only_v4;
	int v6;

	(void)state;
	for (v6 = 0; v6 < 2; v6++) {
		s = write_only_v4;
		s.ipv6 = v6;
		s.payload_len = 37;         /* pad 3 */
		mk_roce(&f, &s);
		check_icrc_flips(&f, v6);
		s.vid = 100;                /* a VLAN tag moves everything */
		s.opcode = AIFAB_BTH_OP_ACK;
		s.reth = false;
		s.aeth = true;
		s.payload_len = 0;
		mk_roce(&f, &s);
		check_icrc_flips(&f, v6);
	}
}

/* Frames as the TX path builds them verify, whatever their length, and
 * bytes after the datagram (Ethernet padding, a trailer) do not count. */
static void
test_icrc_verify_tx_frames(void **state)
{
	static const uint32_t lens[] = { 0, 1, 2, 3, 4, 24, 63, 64, 65, 255,
					 1024, 4095, 4096, 8000 };
	static struct roce_frame f;
	struct roce_spec s = write_only_v4;
	struct aifab_pkt_info pi;
	uint8_t cnp[128];
	uint32_t len;
	unsigned int i;
	int v6;

	(void)state;
	for (v6 = 0; v6 < 2; v6++)
		for (i = 0; i < RTE_DIM(lens); i++) {
			s.ipv6 = v6;
			s.payload_len = lens[i];
			s.reth = i % 2 == 0;
			s.opcode = s.reth ? AIFAB_BTH_OP_WRITE_ONLY :
				AIFAB_BTH_OP_SEND_MIDDLE;
			mk_roce(&f, &s);
			assert_int_equal(aifab_pkt_parse(f.b, f.len, f.len,
							 &pi, true),
					 AIFAB_PKT_ERR_OK);
			assert_int_equal(aifab_icrc_verify_buf(f.b, f.len, &pi),
					 AIFAB_ICRC_OK);
			f.b[f.len - 5] ^= 0x10; /* last payload / pad byte */
			assert_int_equal(aifab_icrc_verify_buf(f.b, f.len, &pi),
					 AIFAB_ICRC_BAD);
		}
	len = aifab_build_cnp_ipv4(cnp, &mac_a, &mac_b, RTE_BE32(0x0a000002),
				   RTE_BE32(0x0a000001), 0xc132, 48 << 2, 7);
	memset(cnp + len, 0xa5, 10); /* padding after the datagram */
	assert_int_equal(aifab_pkt_parse(cnp, len + 10, len + 10, &pi, true),
			 AIFAB_PKT_ERR_OK);
	assert_int_equal(aifab_icrc_verify_buf(cnp, len + 10, &pi),
			 AIFAB_ICRC_OK);
	cnp[len + 9] ^= 0xff;
	assert_int_equal(aifab_icrc_verify_buf(cnp, len + 10, &pi),
			 AIFAB_ICRC_OK);
	cnp[len - 1] ^= 1;
	assert_int_equal(aifab_icrc_verify_buf(cnp, len + 10, &pi),
			 AIFAB_ICRC_BAD);
	/* Not RoCEv2: nothing to check. */
	pi.flags &= (uint16_t)~AIFAB_PKT_F_ROCE;
	assert_int_equal(aifab_icrc_verify_buf(cnp, len + 10, &pi),
			 AIFAB_ICRC_MALFORMED);
}

/* ---- IPv4 checksum ------------------------------------------------------- */

/* RFC 1624 section 4's worked example, plus both zero representations. */
static void
test_cksum_rfc1624_example(void **state)
{
	uint16_t hc = rte_cpu_to_be_16(0xDD2F);

	(void)state;
	assert_int_equal(rte_be_to_cpu_16(aifab_cksum_update16(hc,
			 rte_cpu_to_be_16(0x5555), rte_cpu_to_be_16(0x3285))),
			 0x0000);
	assert_int_equal(aifab_cksum_update16(0x1234, 0xabcd, 0xabcd), 0x1234);
	/* other words sum to 0x0001; m 0 -> 0xfffe makes the sum 0xffff */
	assert_int_equal(aifab_cksum_update16(0xfffe, 0x0000, 0xfffe), 0x0000);
	/* m 0x0000 and m 0xffff are both zero in one's complement */
	assert_int_equal(aifab_cksum_update16(0x4321, 0x0000, 0xffff), 0x4321);
}

static uint16_t
ref_ipv4_cksum(const uint8_t *hdr)
{
	uint8_t copy[60];
	struct rte_ipv4_hdr *ip = (struct rte_ipv4_hdr *)copy;

	memcpy(copy, hdr, (hdr[0] & 0xf) * 4);
	ip->hdr_checksum = 0;
	return rte_ipv4_cksum(ip); /* DPDK's, independent of ours */
}

static void
test_cksum_incremental_random(void **state)
{
	uint64_t rng = SEED;
	uint8_t buf[60];
	struct rte_ipv4_hdr *ip = (struct rte_ipv4_hdr *)buf;
	uint8_t ttl;
	int i;

	(void)state;
	for (i = 0; i < 10000; i++) {
		prng_fill(&rng, buf, sizeof(buf));
		buf[0] = (uint8_t)(0x40 | (5 + prng_below(&rng, 11)));
		ip->hdr_checksum = aifab_ipv4_cksum(ip);
		assert_int_equal(ip->hdr_checksum, ref_ipv4_cksum(buf));
		if (ip->time_to_live == 0)
			ip->time_to_live = 1;
		ip->hdr_checksum = aifab_ipv4_cksum(ip);
		ttl = ip->time_to_live;
		assert_int_equal(aifab_ipv4_dec_ttl(ip), ttl - 1);
		assert_int_equal(ip->hdr_checksum, ref_ipv4_cksum(buf));
		aifab_ipv4_set_tos(ip, (uint8_t)prng_next(&rng));
		assert_int_equal(ip->hdr_checksum, ref_ipv4_cksum(buf));
		aifab_ipv4_set_tos(ip, ip->type_of_service | 0x03); /* CE */
		assert_int_equal(ip->hdr_checksum, ref_ipv4_cksum(buf));
		assert_int_equal(__rte_raw_cksum_reduce(__rte_raw_cksum(buf,
				 (buf[0] & 0xf) * 4, 0)), 0xffff);
	}
	/* TTL 0 is left alone. */
	ip->time_to_live = 0;
	ip->hdr_checksum = aifab_ipv4_cksum(ip);
	assert_int_equal(aifab_ipv4_dec_ttl(ip), 0);
	assert_int_equal(ip->hdr_checksum, ref_ipv4_cksum(buf));
}

/* aifab_ipv4_dec_ttl_bulk(): each header as aifab_ipv4_dec_ttl() leaves it
 * (TTL - 1, DPDK's checksum; TTL 0 untouched). */
static void
test_dec_ttl_bulk(void **state)
{
	uint64_t rng = SEED;
	uint8_t buf[8][60];
	struct rte_ipv4_hdr *ip[8];
	uint8_t ttl[8];
	int i;

	(void)state;
	for (i = 0; i < 8; i++) {
		prng_fill(&rng, buf[i], sizeof(buf[i]));
		buf[i][0] = (uint8_t)(0x40 | (5 + prng_below(&rng, 11)));
		ip[i] = (struct rte_ipv4_hdr *)buf[i];
		if (i == 3)
			ip[i]->time_to_live = 0;
		ip[i]->hdr_checksum = aifab_ipv4_cksum(ip[i]);
		ttl[i] = ip[i]->time_to_live;
	}
	aifab_ipv4_dec_ttl_bulk(ip, 8);
	for (i = 0; i < 8; i++) {
		assert_int_equal(ip[i]->time_to_live,
				 ttl[i] == 0 ? 0 : ttl[i] - 1);
		assert_int_equal(ip[i]->hdr_checksum, ref_ipv4_cksum(buf[i]));
	}
}

/*
 * The switch's inline TTL decrement and 20-byte checksum check against a
 * full recomputation (ref_ipv4_cksum) and DPDK's raw checksum: random
 * headers, every IHL, TTL 1..255 (0 left alone); a header with one bit
 * flipped no longer checks.
 */
static void
test_dec_ttl_inline_cksum20(void **state)
{
	uint64_t rng = SEED;
	uint8_t buf[61], *h = buf + 1; /* odd address: any alignment */
	struct rte_ipv4_hdr *ip = (struct rte_ipv4_hdr *)h;
	uint8_t ttl;
	bool ok;
	int i;

	(void)state;
	for (i = 0; i < 10000; i++) {
		prng_fill(&rng, h, 60);
		h[0] = (uint8_t)(0x40 | (5 + prng_below(&rng, 11)));
		if (ip->time_to_live == 0)
			ip->time_to_live = 1;
		ip->hdr_checksum = aifab_ipv4_cksum(ip);
		assert_int_equal(ip->hdr_checksum, ref_ipv4_cksum(h));
		ttl = ip->time_to_live;
		aifab_ipv4_dec_ttl_inline(ip);
		assert_int_equal(ip->time_to_live, ttl - 1);
		assert_int_equal(ip->hdr_checksum, ref_ipv4_cksum(h));
		/* 20-byte check: as DPDK's raw sum says, valid or flipped */
		h[0] = 0x45;
		ip->hdr_checksum = prng_below(&rng, 2) ? aifab_ipv4_cksum(ip) :
			(uint16_t)prng_next(&rng);
		if (prng_below(&rng, 4) == 0)
			h[prng_below(&rng, 20)] ^=
				(uint8_t)(1u << prng_below(&rng, 8));
		ok = __rte_raw_cksum_reduce(__rte_raw_cksum(h, 20, 0)) == 0xffff;
		assert_int_equal(aifab_ipv4_cksum20_ok(h), ok);
	}
	ip->time_to_live = 0;
	ip->hdr_checksum = aifab_ipv4_cksum(ip);
	aifab_ipv4_dec_ttl_inline(ip);
	assert_int_equal(ip->time_to_live, 0);
	assert_int_equal(ip->hdr_checksum, ref_ipv4_cksum(h));
	/* every checksum word (the end-around carry's cases at 0xfffe and
	 * 0xffff), TTL 1, 2 and 255: the one-add word of
	 * aifab_ipv4_dec_ttl_word() against aifab_ipv4_dec_ttl()'s update */
	for (i = 0; i < 3 * 65536; i++) {
		static const uint8_t ttls[3] = { 1, 2, 255 };
		uint8_t r[20];

		memcpy(r, h, sizeof(r));
		r[8] = ttls[i / 65536];
		r[9] = (uint8_t)i;
		r[10] = (uint8_t)(i >> 8);
		r[11] = (uint8_t)i;
		memcpy(h, r, sizeof(r));
		aifab_ipv4_dec_ttl((struct rte_ipv4_hdr *)r);
		aifab_ipv4_dec_ttl_inline(ip);
		assert_memory_equal(h, r, sizeof(r));
	}
}

/* ---- parser: good frames -------------------------------------------------- */

static void
test_parse_roce_ipv4(void **state)
{
	static struct roce_frame f;
	struct aifab_pkt_info pi;

	(void)state;
	mk_roce(&f, &write_only_v4);
	assert_int_equal(aifab_pkt_parse(f.b, f.len, f.len, &pi, true),
			 AIFAB_PKT_ERR_OK);
	assert_int_equal(pi.flags, AIFAB_PKT_F_UDP | AIFAB_PKT_F_ROCE);
	assert_int_equal(pi.l3, AIFAB_L3_IPV4);
	assert_int_equal(pi.ethertype, 0x0800);
	assert_int_equal(pi.l3_off, 14);
	assert_int_equal(pi.l3_len, 20);
	assert_int_equal(pi.l4_off, 34);
	assert_int_equal(pi.bth_off, 42);
	assert_int_equal(pi.ip_len, f.len - 14);
	assert_int_equal(pi.pkt_len, f.len);
	assert_int_equal(pi.tos, 0x6a);
	assert_int_equal(pi.ttl, 64);
	assert_int_equal(pi.l4_proto, IPPROTO_UDP);
	assert_int_equal(pi.dport, 4791);
	/* sport(0x11, 0x123) by hand: 17 * 291 = 0x1353, no bits >= 20 */
	assert_int_equal(pi.sport, 0xd353);
	assert_int_equal(pi.bth_opcode, AIFAB_BTH_OP_WRITE_ONLY);
	assert_int_equal(pi.dqpn, 0x123);
	assert_int_equal(pi.psn, 0xfffffe);
	assert_int_equal(pi.pad_cnt, 0);
	/* Ethernet padding after the IP packet is fine. */
	assert_int_equal(aifab_pkt_parse(f.b, f.len + 6, f.len + 6, &pi, true),
			 AIFAB_PKT_ERR_OK);
}

/*
 * Truncating the window at every length gives the error of the layer cut
 * (pkt_len still says the full frame), and cutting the frame itself
 * (avail == pkt_len) always gives an error. Copies are exact-size mallocs,
 * so ASan would catch any read past the end.
 */
static void
test_parse_truncation_every_length(void **state)
{
	static struct roce_frame f;
	struct aifab_pkt_info pi;
	enum aifab_pkt_err want;
	uint32_t k;

	(void)state;
	mk_roce(&f, &write_only_v4);
	for (k = 0; k <= f.len; k++) {
		if (k < 14)
			want = AIFAB_PKT_ERR_TRUNC_L2;
		else if (k < 34)
			want = AIFAB_PKT_ERR_TRUNC_L3;
		else if (k < 42)
			want = AIFAB_PKT_ERR_TRUNC_L4;
		else if (k < 54)
			want = AIFAB_PKT_ERR_TRUNC_BTH;
		else
			want = AIFAB_PKT_ERR_OK;
		assert_int_equal(parse_exact(f.b, k, f.len, &pi, true), want);
		if (k < f.len)
			assert_int_not_equal(parse_exact(f.b, k, k, &pi, true),
					     AIFAB_PKT_ERR_OK);
	}
}

static void
test_parse_vlan_qinq(void **state)
{
	static struct roce_frame f;
	struct roce_spec s = write_only_v4;
	struct aifab_pkt_info pi;
	uint8_t q[FRAME_MAX];

	(void)state;
	s.vid = 100;
	s.pcp = 3;
	mk_roce(&f, &s);
	assert_int_equal(aifab_pkt_parse(f.b, f.len, f.len, &pi, true),
			 AIFAB_PKT_ERR_OK);
	assert_int_equal(pi.flags, AIFAB_PKT_F_VLAN | AIFAB_PKT_F_UDP |
			 AIFAB_PKT_F_ROCE);
	assert_int_equal(pi.n_vlans, 1);
	assert_int_equal(pi.vid, 100);
	assert_int_equal(pi.pcp, 3);
	assert_int_equal(pi.l3_off, 18);
	assert_int_equal(pi.bth_off, 46);

	/* Add an outer 802.1ad tag: PCP 5, VID 0xabc. */
	memcpy(q, f.b, 12);
	memcpy(q + 12, "\x88\xa8\xaa\xbc", 4);
	memcpy(q + 16, f.b + 12, f.len - 12);
	assert_int_equal(aifab_pkt_parse(q, f.len + 4, f.len + 4, &pi, true),
			 AIFAB_PKT_ERR_OK);
	assert_true(pi.flags & AIFAB_PKT_F_QINQ);
	assert_true(pi.flags & AIFAB_PKT_F_ROCE);
	assert_int_equal(pi.n_vlans, 2);
	assert_int_equal(pi.pcp, 5);
	assert_int_equal(pi.vid, 0xabc);
	assert_int_equal(pi.l3_off, 22);
	assert_int_equal(pi.ethertype, 0x0800);
	assert_int_equal(pi.dqpn, 0x123);
}

/* Rebuild @p f as IPv6 with @p ext extension header bytes before UDP. */
static uint32_t
mk_ipv6_ext(uint8_t *out, const struct roce_frame *f, const uint8_t *ext,
	    uint32_t ext_len, uint8_t first_nh)
{
	uint32_t l4 = f->l3 + IP6_LEN;
	uint32_t rest = f->len - l4;

	memcpy(out, f->b, l4);
	memcpy(out + l4, ext, ext_len);
	memcpy(out + l4 + ext_len, f->b + l4, rest);
	out[f->l3 + 6] = first_nh;
	out[f->l3 + 4] = (uint8_t)((ext_len + rest) >> 8);
	out[f->l3 + 5] = (uint8_t)(ext_len + rest);
	return f->len + ext_len;
}

static void
test_parse_ipv6_ext(void **state)
{
	/* hop-by-hop (8) -> routing (16) -> dest opts (8) -> UDP */
	static const uint8_t chain[] = {
		43, 0, 1, 4, 0, 0, 0, 0,
		60, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
		17, 0, 1, 4, 0, 0, 0, 0,
	};
	/* first fragment (offset 0, M=1) then UDP */
	static const uint8_t frag0[] = { 17, 0, 0x00, 0x01, 0, 0, 0, 9 };
	/* later fragment (offset 8 x 8) */
	static const uint8_t frag8[] = { 17, 0, 0x00, 0x40, 0, 0, 0, 9 };
	/* AH (payload len 4 -> (4+2)*4 = 24 bytes) then UDP */
	static const uint8_t ah[24] = { 17, 4 };
	static struct roce_frame f;
	struct roce_spec s = write_only_v4;
	struct aifab_pkt_info pi;
	uint8_t b[FRAME_MAX];
	uint32_t len;

	(void)state;
	s.ipv6 = true;
	s.tos = 0xb9;
	mk_roce(&f, &s);
	assert_int_equal(aifab_pkt_parse(f.b, f.len, f.len, &pi, true),
			 AIFAB_PKT_ERR_OK);
	assert_int_equal(pi.l3, AIFAB_L3_IPV6);
	assert_int_equal(pi.flags, AIFAB_PKT_F_UDP | AIFAB_PKT_F_ROCE);
	assert_int_equal(pi.tos, 0xb9);
	assert_int_equal(pi.ttl, 64);
	assert_int_equal(pi.l3_len, 40);
	assert_int_equal(pi.bth_off, 14 + 40 + 8);
	assert_int_equal(pi.ip_len, f.len - 14);

	len = mk_ipv6_ext(b, &f, chain, sizeof(chain), 0);
	assert_int_equal(aifab_pkt_parse(b, len, len, &pi, true),
			 AIFAB_PKT_ERR_OK);
	assert_int_equal(pi.flags, AIFAB_PKT_F_IP6_EXT | AIFAB_PKT_F_UDP |
			 AIFAB_PKT_F_ROCE);
	assert_int_equal(pi.l3_len, 40 + 32);
	assert_int_equal(pi.l4_off, 14 + 72);
	assert_int_equal(pi.l4_proto, IPPROTO_UDP);
	assert_int_equal(pi.dqpn, 0x123);
	/* The chain cut anywhere inside the window: truncation, no crash. */
	for (uint32_t k = 54; k < 14 + 72; k++)
		assert_int_equal(parse_exact(b, k, len, &pi, false),
				 AIFAB_PKT_ERR_TRUNC_L3);

	len = mk_ipv6_ext(b, &f, frag0, sizeof(frag0), 44);
	b[14 + 48 + 4] = 0x40; /* UDP length beyond this fragment: allowed */
	assert_int_equal(aifab_pkt_parse(b, len, len, &pi, true),
			 AIFAB_PKT_ERR_OK);
	assert_int_equal(pi.flags, AIFAB_PKT_F_IP6_EXT | AIFAB_PKT_F_FRAG |
			 AIFAB_PKT_F_UDP | AIFAB_PKT_F_ROCE);

	len = mk_ipv6_ext(b, &f, frag8, sizeof(frag8), 44);
	assert_int_equal(aifab_pkt_parse(b, len, len, &pi, true),
			 AIFAB_PKT_ERR_OK);
	assert_int_equal(pi.flags, AIFAB_PKT_F_IP6_EXT | AIFAB_PKT_F_FRAG);
	assert_int_equal(pi.l4_proto, IPPROTO_UDP);

	len = mk_ipv6_ext(b, &f, ah, sizeof(ah), 51);
	assert_int_equal(aifab_pkt_parse(b, len, len, &pi, true),
			 AIFAB_PKT_ERR_OK);
	assert_int_equal(pi.l3_len, 40 + 24);
	assert_true(pi.flags & AIFAB_PKT_F_ROCE);
}

static void
test_parse_ipv4_opts_frag(void **state)
{
	static struct roce_frame f;
	struct aifab_pkt_info pi;
	uint8_t b[FRAME_MAX];
	struct rte_ipv4_hdr *ip = (struct rte_ipv4_hdr *)(b + 14);

	(void)state;
	mk_roce(&f, &write_only_v4);
	/* Insert 4 bytes of options (NOP x 3, EOL): IHL 6. */
	memcpy(b, f.b, 34);
	memcpy(b + 34, "\x01\x01\x01\x00", 4);
	memcpy(b + 38, f.b + 34, f.len - 34);
	ip->version_ihl = 0x46;
	ip->total_length = rte_cpu_to_be_16((uint16_t)(f.len - 14 + 4));
	ip->hdr_checksum = ref_ipv4_cksum(b + 14);
	assert_int_equal(aifab_pkt_parse(b, f.len + 4, f.len + 4, &pi, true),
			 AIFAB_PKT_ERR_OK);
	assert_int_equal(pi.flags, AIFAB_PKT_F_IP_OPTS | AIFAB_PKT_F_UDP |
			 AIFAB_PKT_F_ROCE);
	assert_int_equal(pi.l3_len, 24);
	assert_int_equal(pi.l4_off, 38);
	assert_int_equal(pi.bth_off, 46);

	/* First fragment (MF, offset 0), UDP length beyond it: UDP parsed. */
	memcpy(b, f.b, f.len);
	ip->fragment_offset = rte_cpu_to_be_16(0x2000);
	b[34 + 4] = 0x20;
	ip->hdr_checksum = ref_ipv4_cksum(b + 14);
	assert_int_equal(aifab_pkt_parse(b, f.len, f.len, &pi, true),
			 AIFAB_PKT_ERR_OK);
	assert_int_equal(pi.flags, AIFAB_PKT_F_FRAG | AIFAB_PKT_F_UDP |
			 AIFAB_PKT_F_ROCE);
	/* Later fragment: no L4. */
	ip->fragment_offset = rte_cpu_to_be_16(0x0010);
	ip->hdr_checksum = ref_ipv4_cksum(b + 14);
	assert_int_equal(aifab_pkt_parse(b, f.len, f.len, &pi, true),
			 AIFAB_PKT_ERR_OK);
	assert_int_equal(pi.flags, AIFAB_PKT_F_FRAG);
	assert_int_equal(pi.l4_proto, IPPROTO_UDP);
}

/* Hand-written PFC frame: XOFF priority 3 for 0xffff quanta, XON prio 5. */
static const uint8_t pfc_frame[60] = {
	0x01, 0x80, 0xc2, 0x00, 0x00, 0x01, 0x02, 0x00, 0x00, 0x00, 0x00, 0x01,
	0x88, 0x08, 0x01, 0x01, 0x00, 0x28,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0xff, 0xff,
	0x00, 0x00, 0x00, 0x00, 0x12, 0x34, 0x00, 0x00,
	/* 26 bytes of zero pad */
};

static void
test_parse_mac_ctrl(void **state)
{
	static const uint8_t pause[60] = {
		0x01, 0x80, 0xc2, 0x00, 0x00, 0x01, 0x02, 0, 0, 0, 0, 1,
		0x88, 0x08, 0x00, 0x01, 0x02, 0x00,
	};
	struct aifab_pkt_info pi;

	(void)state;
	assert_int_equal(parse_exact(pfc_frame, 60, 60, &pi, true),
			 AIFAB_PKT_ERR_OK);
	assert_int_equal(pi.l3, AIFAB_L3_MAC_CTRL);
	assert_int_equal(pi.flags, AIFAB_PKT_F_PFC);
	assert_int_equal(pi.l3_off, 14);
	assert_int_equal(pi.pfc_enable, 0x28);
	assert_int_equal(pi.pfc_time[3], 0xffff);
	assert_int_equal(pi.pfc_time[5], 0);
	assert_int_equal(pi.pfc_time[6], 0x1234);
	assert_int_equal(pi.pfc_time[0], 0);
	/* Exactly 2 + 2 + 16 bytes after the EtherType suffice. */
	assert_int_equal(parse_exact(pfc_frame, 34, 34, &pi, true),
			 AIFAB_PKT_ERR_OK);

	assert_int_equal(parse_exact(pause, 60, 60, &pi, true),
			 AIFAB_PKT_ERR_OK);
	assert_int_equal(pi.flags, AIFAB_PKT_F_PAUSE);
	assert_int_equal(pi.pfc_time[0], 0x0200);
}

static void
test_parse_other_l3(void **state)
{
	static const struct { uint16_t type; uint8_t l3; } cases[] = {
		{ 0x0806, AIFAB_L3_ARP },
		{ 0x88cc, AIFAB_L3_LLDP },
		{ 0x88f7, AIFAB_L3_OTHER }, /* PTP */
		{ 0x8915, AIFAB_L3_OTHER }, /* RoCEv1 */
	};
	uint8_t b[60] = { 0 };
	struct aifab_pkt_info pi;
	unsigned int i;

	(void)state;
	for (i = 0; i < RTE_DIM(cases); i++) {
		b[12] = (uint8_t)(cases[i].type >> 8);
		b[13] = (uint8_t)cases[i].type;
		assert_int_equal(parse_exact(b, 60, 60, &pi, true),
				 AIFAB_PKT_ERR_OK);
		assert_int_equal(pi.l3, cases[i].l3);
		assert_int_equal(pi.ethertype, cases[i].type);
		assert_int_equal(pi.l3_off, 14);
		assert_int_equal(pi.flags, 0);
	}
	/* ARP behind a VLAN tag. */
	memcpy(b + 12, "\x81\x00\x20\x05\x08\x06", 6);
	assert_int_equal(parse_exact(b, 60, 60, &pi, true), AIFAB_PKT_ERR_OK);
	assert_int_equal(pi.l3, AIFAB_L3_ARP);
	assert_int_equal(pi.l3_off, 18);
	assert_int_equal(pi.vid, 5);
	assert_int_equal(pi.pcp, 1);
}

/* ---- parser: one crafted frame per error reason -------------------------- */

struct err_case {
	const char *what;
	enum aifab_pkt_err want;
	bool ipv6;
	/* Turn a valid RoCE frame into a bad one; returns the new length. */
	uint32_t (*mutate)(uint8_t *b, uint32_t len);
};

static void
fix_ip4_cksum(uint8_t *b)
{
	struct rte_ipv4_hdr *ip = (struct rte_ipv4_hdr *)(b + 14);

	ip->hdr_checksum = ref_ipv4_cksum(b + 14);
}

static uint32_t
m_none(uint8_t *b, uint32_t len)
{
	(void)b;
	return len;
}

static uint32_t
m_trunc_l2(uint8_t *b, uint32_t len)
{
	(void)b;
	(void)len;
	return 13;
}

static uint32_t
m_trunc_vlan(uint8_t *b, uint32_t len)
{
	(void)len;
	memcpy(b + 12, "\x81\x00", 2);
	return 16; /* tag cut */
}

static uint32_t
m_trunc_l3(uint8_t *b, uint32_t len)
{
	(void)b;
	(void)len;
	return 14 + 19;
}

static uint32_t
m_vlan_depth(uint8_t *b, uint32_t len)
{
	memmove(b + 24, b + 12, len - 12);
	memcpy(b + 12, "\x88\xa8\x00\x01\x81\x00\x00\x02\x81\x00\x00\x03", 12);
	return len + 12;
}

static uint32_t
m_ip4_version(uint8_t *b, uint32_t len)
{
	b[14] = 0x65;
	return len;
}

static uint32_t
m_ip4_ihl(uint8_t *b, uint32_t len)
{
	b[14] = 0x44;
	return len;
}

static uint32_t
m_ip4_len_long(uint8_t *b, uint32_t len)
{
	b[16] = (uint8_t)((len - 14 + 1) >> 8);
	b[17] = (uint8_t)(len - 14 + 1);
	fix_ip4_cksum(b);
	return len;
}

static uint32_t
m_ip4_len_short(uint8_t *b, uint32_t len)
{
	b[16] = 0;
	b[17] = 19; /* less than IHL*4 */
	fix_ip4_cksum(b);
	return len;
}

static uint32_t
m_ip4_csum(uint8_t *b, uint32_t len)
{
	b[14 + 8]--; /* TTL changed, checksum not */
	return len;
}

static uint32_t
m_trunc_l4(uint8_t *b, uint32_t len)
{
	(void)b;
	(void)len;
	return 34 + 7; /* pkt_len is set to the full frame by the caller */
}

static uint32_t
m_udp_len_short(uint8_t *b, uint32_t len)
{
	b[34 + 4] = 0;
	b[34 + 5] = 7;
	return len;
}

static uint32_t
m_udp_len_long(uint8_t *b, uint32_t len)
{
	b[34 + 5]++; /* one more than the IP payload */
	return len;
}

static uint32_t
m_ip4_no_room_udp(uint8_t *b, uint32_t len)
{
	(void)len;
	b[16] = 0;
	b[17] = 20 + 4; /* IP payload of 4 bytes: no UDP header fits */
	fix_ip4_cksum(b);
	return 60;
}

static uint32_t
m_bth_short(uint8_t *b, uint32_t len)
{
	(void)len;
	/* UDP length 8 + 12: room for BTH but not the ICRC. */
	b[16] = 0;
	b[17] = 20 + 8 + 12;
	fix_ip4_cksum(b);
	b[34 + 4] = 0;
	b[34 + 5] = 8 + 12;
	return 14 + 40;
}

static uint32_t
m_trunc_bth(uint8_t *b, uint32_t len)
{
	(void)b;
	(void)len;
	return 42 + 11;
}

static uint32_t
m_bth_pad(uint8_t *b, uint32_t len)
{
	/* BTH + ICRC only (an ACK-sized datagram), PadCnt 1. */
	(void)len;
	b[16] = 0;
	b[17] = 20 + 8 + 16;
	fix_ip4_cksum(b);
	b[34 + 4] = 0;
	b[34 + 5] = 8 + 16;
	b[42 + 1] = 0x10;
	return 14 + 44;
}

static uint32_t
m_ip6_version(uint8_t *b, uint32_t len)
{
	b[14] = (uint8_t)((b[14] & 0x0f) | 0x40);
	return len;
}

static uint32_t
m_ip6_len(uint8_t *b, uint32_t len)
{
	b[14 + 5]++; /* payload length one more than the frame holds */
	return len;
}

static uint32_t
m_ip6_trunc(uint8_t *b, uint32_t len)
{
	(void)b;
	(void)len;
	return 14 + 39;
}

static uint32_t
m_ip6_ext_overrun(uint8_t *b, uint32_t len)
{
	/* Hop-by-hop claiming 256 bytes inside a smaller payload. */
	b[14 + 6] = 0;
	b[54] = 17;
	b[55] = 31;
	return len;
}

static uint32_t
m_ip6_ext_hbh_late(uint8_t *b, uint32_t len)
{
	/* dest opts -> hop-by-hop: hop-by-hop only allowed first. */
	b[14 + 6] = 60;
	b[54] = 0;
	b[55] = 0;
	b[62] = 17;
	b[63] = 0;
	return len;
}

static uint32_t
m_ip6_ext_loop(uint8_t *b, uint32_t len)
{
	uint32_t i;

	/* 9 dest-opts headers of 8 bytes each: more than the walk allows. */
	b[14 + 6] = 60;
	for (i = 0; i < 9; i++) {
		b[54 + 8 * i] = 60;
		b[54 + 8 * i + 1] = 0;
	}
	return len;
}

static uint32_t
m_mac_ctrl_short(uint8_t *b, uint32_t len)
{
	(void)len;
	memcpy(b, pfc_frame, 60);
	return 33; /* one byte short of opcode + vector + 8 timers */
}

static uint32_t
m_mac_ctrl_vec(uint8_t *b, uint32_t len)
{
	(void)len;
	memcpy(b, pfc_frame, 60);
	b[16] = 0x01; /* high byte of class-enable vector must be 0 */
	return 60;
}

static uint32_t
m_mac_ctrl_no_opcode(uint8_t *b, uint32_t len)
{
	(void)len;
	memcpy(b, pfc_frame, 60);
	return 15;
}

static uint32_t
m_pause_short(uint8_t *b, uint32_t len)
{
	(void)len;
	memcpy(b, pfc_frame, 60);
	b[14] = 0x00; /* opcode 0x0001 PAUSE, cut inside the pause time */
	return 17;
}

static const struct err_case err_cases[] = {
	{ "valid", AIFAB_PKT_ERR_OK, false, m_none },
	{ "valid ipv6", AIFAB_PKT_ERR_OK, true, m_none },
	{ "13 bytes", AIFAB_PKT_ERR_TRUNC_L2, false, m_trunc_l2 },
	{ "vlan tag cut", AIFAB_PKT_ERR_TRUNC_L2, false, m_trunc_vlan },
	{ "ipv4 cut", AIFAB_PKT_ERR_TRUNC_L3, false, m_trunc_l3 },
	{ "ipv6 cut", AIFAB_PKT_ERR_TRUNC_L3, true, m_ip6_trunc },
	{ "udp cut", AIFAB_PKT_ERR_TRUNC_L4, false, m_trunc_l4 },
	{ "bth cut", AIFAB_PKT_ERR_TRUNC_BTH, false, m_trunc_bth },
	{ "no room for icrc", AIFAB_PKT_ERR_TRUNC_BTH, false, m_bth_short },
	{ "three tags", AIFAB_PKT_ERR_VLAN_DEPTH, false, m_vlan_depth },
	{ "ipv4 version 6", AIFAB_PKT_ERR_IP4_VERSION, false, m_ip4_version },
	{ "ipv4 ihl 4", AIFAB_PKT_ERR_IP4_IHL, false, m_ip4_ihl },
	{ "ipv4 len > frame", AIFAB_PKT_ERR_IP4_LEN, false, m_ip4_len_long },
	{ "ipv4 len < ihl", AIFAB_PKT_ERR_IP4_LEN, false, m_ip4_len_short },
	{ "ipv4 bad checksum", AIFAB_PKT_ERR_IP4_CSUM, false, m_ip4_csum },
	{ "ipv6 version 4", AIFAB_PKT_ERR_IP6_VERSION, true, m_ip6_version },
	{ "ipv6 len > frame", AIFAB_PKT_ERR_IP6_LEN, true, m_ip6_len },
	{ "ipv6 ext overrun", AIFAB_PKT_ERR_IP6_EXT, true, m_ip6_ext_overrun },
	{ "ipv6 late hbh", AIFAB_PKT_ERR_IP6_EXT, true, m_ip6_ext_hbh_late },
	{ "ipv6 ext chain", AIFAB_PKT_ERR_IP6_EXT, true, m_ip6_ext_loop },
	{ "udp len 7", AIFAB_PKT_ERR_UDP_LEN, false, m_udp_len_short },
	{ "udp len > ip", AIFAB_PKT_ERR_UDP_LEN, false, m_udp_len_long },
	{ "ip payload < 8", AIFAB_PKT_ERR_UDP_LEN, false, m_ip4_no_room_udp },
	{ "padcnt > payload", AIFAB_PKT_ERR_BTH_PAD, false, m_bth_pad },
	{ "pfc short", AIFAB_PKT_ERR_MAC_CTRL, false, m_mac_ctrl_short },
	{ "pfc vector", AIFAB_PKT_ERR_MAC_CTRL, false, m_mac_ctrl_vec },
	{ "no opcode", AIFAB_PKT_ERR_MAC_CTRL, false, m_mac_ctrl_no_opcode },
	{ "pause short", AIFAB_PKT_ERR_MAC_CTRL, false, m_pause_short },
};

/* Cases whose frame is cut in the window only (pkt_len stays full). */
static bool
window_cut(const struct err_case *c)
{
	return c->mutate == m_trunc_l4 || c->mutate == m_trunc_bth;
}

static void
test_parse_errors(void **state)
{
	static struct roce_frame f;
	struct roce_spec s = write_only_v4;
	bool seen[AIFAB_PKT_ERR_MAX] = { false };
	struct aifab_pkt_info pi;
	uint8_t b[FRAME_MAX];
	uint32_t len, pkt_len;
	enum aifab_pkt_err err;
	unsigned int i;

	(void)state;
	s.payload_len = 200; /* room for the IPv6 extension-header cases */
	for (i = 0; i < RTE_DIM(err_cases); i++) {
		s.ipv6 = err_cases[i].ipv6;
		mk_roce(&f, &s);
		memcpy(b, f.b, f.len);
		len = err_cases[i].mutate(b, f.len);
		pkt_len = window_cut(&err_cases[i]) ? f.len : len;
		err = parse_exact(b, len, pkt_len, &pi, true);
		if (err != err_cases[i].want)
			fail_msg("case '%s': got %s, want %s",
				 err_cases[i].what, aifab_pkt_err_name(err),
				 aifab_pkt_err_name(err_cases[i].want));
		seen[err] = true;
	}
	for (i = 0; i < AIFAB_PKT_ERR_MAX; i++)
		if (!seen[i])
			fail_msg("no case for %s", aifab_pkt_err_name(i));
	/* Checksum not checked when not asked. */
	mk_roce(&f, &write_only_v4);
	len = m_ip4_csum(f.b, f.len);
	assert_int_equal(aifab_pkt_parse(f.b, len, len, &pi, false),
			 AIFAB_PKT_ERR_OK);
}

static void
test_err_names(void **state)
{
	(void)state;
	assert_string_equal(aifab_pkt_err_name(AIFAB_PKT_ERR_OK), "ok");
	assert_string_equal(aifab_pkt_err_name(AIFAB_PKT_ERR_TRUNC_L3),
			    "truncated_l3");
	assert_string_equal(aifab_pkt_err_name(AIFAB_PKT_ERR_MAC_CTRL),
			    "mac_ctrl_malformed");
	assert_string_equal(aifab_pkt_err_name(AIFAB_PKT_ERR_MAX), "unknown");
	assert_string_equal(aifab_pkt_err_name((enum aifab_pkt_err)-1),
			    "unknown");
}

/* ---- builders -------------------------------------------------------------- */

static void
test_build_pfc_bytes(void **state)
{
	/* PROTOCOLS.md layout, written out by hand. */
	static const uint8_t want[60] = {
		0x01, 0x80, 0xc2, 0x00, 0x00, 0x01,     /* dst */
		0x02, 0x00, 0x00, 0x00, 0x00, 0x01,     /* src */
		0x88, 0x08,                             /* MAC control */
		0x01, 0x01,                             /* PFC opcode */
		0x00, 0x28,                             /* classes 3 and 5 */
		0x00, 0x00, 0x00, 0x00, 0x00, 0x00,     /* time[0..2] */
		0xff, 0xff,                             /* time[3] */
		0x00, 0x00, 0x00, 0x00,                 /* time[4..5] */
		0x12, 0x34,                             /* time[6] */
		0x00, 0x00,                             /* time[7] */
	};
	static const uint16_t quanta[8] = { 0, 0, 0, 0xffff, 0, 0, 0x1234, 0 };
	uint8_t buf[64];

	(void)state;
	memset(buf, 0xee, sizeof(buf));
	assert_int_equal(aifab_build_pfc(buf, &mac_a, 0x28, quanta), 60);
	assert_memory_equal(buf, want, 60);
	assert_memory_equal(buf, pfc_frame, 60);
	assert_int_equal(buf[60], 0xee); /* nothing written past 60 */
}

static void
test_build_cnp(void **state)
{
	uint8_t buf[128];
	struct aifab_pkt_info pi;
	uint16_t len;

	(void)state;
	len = aifab_build_cnp_ipv4(buf, &mac_a, &mac_b, RTE_BE32(0x0a000002),
				   RTE_BE32(0x0a000001), 0xc132, 48 << 2,
				   0x000456);
	assert_int_equal(len, 74);
	assert_int_equal(buf[42], 0x81);           /* BTH opcode */
	assert_int_equal(buf[42 + 4], 0x40);       /* BECN, no FECN */
	assert_memory_equal(buf + 42 + 5, "\x00\x04\x56", 3);
	assert_int_equal(buf[42 + 2], 0xff);       /* P_Key */
	assert_int_equal(buf[42 + 3], 0xff);
	assert_memory_equal(buf + 12, "\x08\x00\x45\xc0\x00\x3c", 6);
	assert_memory_equal(buf + 34 + 2, "\x12\xb7\x00\x28\x00\x00", 6);
	assert_int_equal(parse_exact(buf, len, len, &pi, true),
			 AIFAB_PKT_ERR_OK);
	assert_true(pi.flags & AIFAB_PKT_F_ROCE);
	assert_int_equal(pi.bth_opcode, AIFAB_BTH_OP_CNP);
	assert_int_equal(pi.dqpn, 0x456);
	assert_int_equal(pi.tos, 0xc0);
	assert_int_equal(aifab_icrc_load(buf + 70),
			 aifab_icrc(buf + 14, 56, false));
}

static void
test_build_headers(void **state)
{
	uint8_t buf[64];

	(void)state;
	assert_int_equal(aifab_build_bth(buf, 0x0a, true, 3, 0xabcdef, true,
					 0x123456, false), 12);
	assert_memory_equal(buf, "\x0a\xb0\xff\xff\x00\xab\xcd\xef"
			    "\x80\x12\x34\x56", 12);
	assert_int_equal(aifab_build_reth(buf, 0x0102030405060708ull,
					  0xa1b2c3d4, 4096), 16);
	assert_memory_equal(buf, "\x01\x02\x03\x04\x05\x06\x07\x08"
			    "\xa1\xb2\xc3\xd4\x00\x00\x10\x00", 16);
	assert_int_equal(aifab_build_aeth(buf, AIFAB_AETH_NAK_PSN_SEQ,
					  0x010203), 4);
	assert_memory_equal(buf, "\x60\x01\x02\x03", 4);
	assert_int_equal(aifab_build_eth(buf, &mac_b, &mac_a, 0x123, 6,
					 0x0800), 18);
	assert_memory_equal(buf + 12, "\x81\x00\xc1\x23\x08\x00", 6);
	assert_int_equal(aifab_build_ipv6(buf, ip6_a, ip6_b, 17, 0xb8,
					  0xfffff, 9, 100), 40);
	assert_memory_equal(buf, "\x6b\x8f\xff\xff\x00\x64\x11\x09", 8);
	assert_int_equal(aifab_build_udp(buf, 0xc000, 4791, 24), 8);
	assert_memory_equal(buf, "\xc0\x00\x12\xb7\x00\x20\x00\x00", 8);
}

/* ---- RoCE UDP source port ------------------------------------------------- */

static void
test_roce_sport(void **state)
{
	/* Worked by hand from the formula in PROTOCOLS.md. */
	static const struct { uint32_t l, r; uint16_t sport; } ex[] = {
		{ 0x11, 0x12, 0xc132 },    /* 0x132: no high bits */
		{ 1000, 2000, 0xc4bb },    /* fl 0xe8481: 0x481 ^ 0x3a */
		{ 1, 1, 0xc001 },
		{ 0, 5, 0xc000 },
		{ 0x100, 0x200, 0xc008 },  /* fl 0x20000: 0 ^ 0x8 */
		{ 0x123456, 0xabcdef, 0xc3c8 },
		{ 0xffffff, 0xffffff, 0xff21 },
	};
	uint64_t rng = SEED;
	uint16_t sp;
	unsigned int i;

	(void)state;
	for (i = 0; i < RTE_DIM(ex); i++)
		assert_int_equal(aifab_roce_sport(ex[i].l, ex[i].r),
				 ex[i].sport);
	for (i = 0; i < 10000; i++) {
		sp = aifab_roce_sport((uint32_t)prng_next(&rng) & 0xffffff,
				      (uint32_t)prng_next(&rng) & 0xffffff);
		assert_true(sp >= 0xc000);
	}
}

/* ---- pcap of every frame kind (for check_builders.py) ---------------------- */

static void
dump_frame(pcap_dumper_t *d, const uint8_t *b, uint32_t len, uint32_t n)
{
	struct pcap_pkthdr h = {
		.ts = { .tv_sec = 1700000000, .tv_usec = n },
		.caplen = len,
		.len = len,
	};

	pcap_dump((u_char *)d, &h, b);
}

/* Keep in step with the EXPECT table in check_builders.py. */
static const struct roce_spec dump_specs[] = {
	{ .vid = -1, .opcode = AIFAB_BTH_OP_WRITE_FIRST, .tos = 0x6a,
	  .reth = true, .dqpn = 0x000101, .psn = 100, .payload_len = 1024 },
	{ .vid = -1, .opcode = AIFAB_BTH_OP_WRITE_MIDDLE, .tos = 0x6a,
	  .dqpn = 0x000101, .psn = 101, .payload_len = 1024, .fill = 0x5a },
	{ .vid = -1, .opcode = AIFAB_BTH_OP_WRITE_LAST, .tos = 0x6b,
	  .dqpn = 0x000101, .psn = 102, .payload_len = 1021 },
	{ .vid = -1, .opcode = AIFAB_BTH_OP_WRITE_ONLY, .tos = 0x6a,
	  .reth = true, .dqpn = 0x000202, .psn = 0xffffff, .payload_len = 13 },
	{ .vid = -1, .opcode = AIFAB_BTH_OP_ACK, .tos = 0x6a,
	  .aeth = true, .dqpn = 0x000303, .psn = 102 },
	{ .ipv6 = true, .vid = -1, .opcode = AIFAB_BTH_OP_WRITE_ONLY,
	  .tos = 0x6a, .reth = true, .dqpn = 0x000404, .psn = 7,
	  .payload_len = 130 },
	{ .vid = 10, .pcp = 3, .opcode = AIFAB_BTH_OP_SEND_ONLY, .tos = 0x6a,
	  .dqpn = 0x000505, .psn = 8, .payload_len = 64 },
};

static void
test_dump_pcap(void **state)
{
	static const uint16_t quanta[8] = { 0, 0, 0, 0xffff, 0, 0, 0x1234, 0 };
	static struct roce_frame f;
	const char *path = getenv("AIFAB_PKT_DUMP");
	pcap_dumper_t *d;
	pcap_t *p;
	uint8_t buf[128];
	uint32_t n = 0;
	unsigned int i;

	(void)state;
	if (path == NULL || path[0] == '\0')
		skip();
	p = pcap_open_dead(DLT_EN10MB, 65535);
	assert_non_null(p);
	d = pcap_dump_open(p, path);
	if (d == NULL)
		fail_msg("%s: %s", path, pcap_geterr(p));
	for (i = 0; i < RTE_DIM(dump_specs); i++, n++) {
		mk_roce(&f, &dump_specs[i]);
		dump_frame(d, f.b, f.len, n);
	}
	dump_frame(d, buf, aifab_build_cnp_ipv4(buf, &mac_a, &mac_b,
		   RTE_BE32(0x0a000002), RTE_BE32(0x0a000001), 0xc132, 48 << 2,
		   0x000606), n++);
	dump_frame(d, buf, aifab_build_pfc(buf, &mac_a, 0x28, quanta), n++);
	pcap_dump_close(d);
	pcap_close(p);
}

/* ---- mbuf parsing (EAL) ----------------------------------------------------- */

struct mbuf_ctx {
	struct rte_mempool *pool;
	char run_dir[PATH_MAX];
};

static int
eal_setup(void **state)
{
	static struct mbuf_ctx ctx;

	if (aifab_eal_init_private("test-pkt", ctx.run_dir,
				   sizeof(ctx.run_dir)) != 0)
		return -1;
	/* a 4 KB RoCE frame fits one mbuf, as the generator's do */
	ctx.pool = rte_pktmbuf_pool_create("test_pkt_pool", 511, 0, 0,
					   RTE_PKTMBUF_HEADROOM + 4352,
					   SOCKET_ID_ANY);
	if (ctx.pool == NULL)
		return -1;
	*state = &ctx;
	return 0;
}

static int
eal_teardown(void **state)
{
	struct mbuf_ctx *ctx = *state;

	rte_mempool_free(ctx->pool);
	rte_eal_cleanup();
	aifab_eal_remove_runtime_dir(ctx->run_dir);
	return 0;
}

/* Spread @p len bytes of @p b over segments of @p seg_len bytes. */
static struct rte_mbuf *
mk_chain(struct rte_mempool *mp, const uint8_t *b, uint32_t len,
	 uint32_t seg_len)
{
	struct rte_mbuf *head = NULL, *m;
	uint32_t off, n;
	char *p;

	for (off = 0; off < len; off += n) {
		n = RTE_MIN(seg_len, len - off);
		m = rte_pktmbuf_alloc(mp);
		assert_non_null(m);
		p = rte_pktmbuf_append(m, (uint16_t)n);
		assert_non_null(p);
		memcpy(p, b + off, n);
		if (head == NULL)
			head = m;
		else
			assert_int_equal(rte_pktmbuf_chain(head, m), 0);
	}
	return head;
}

static void
test_parse_mbuf(void **state)
{
	static const uint32_t seg_lens[] = { 2048, 30, 45, 7, 100 };
	struct mbuf_ctx *ctx = *state;
	static struct roce_frame f;
	struct roce_spec s = write_only_v4;
	struct aifab_pkt_info want, got;
	uint8_t scratch[AIFAB_PKT_HDR_WINDOW];
	struct rte_mbuf *m;
	unsigned int i;
	int v6;

	for (v6 = 0; v6 < 2; v6++) {
		s.ipv6 = v6;
		s.payload_len = 1000;
		mk_roce(&f, &s);
		assert_int_equal(aifab_pkt_parse(f.b, f.len, f.len, &want,
						 true), AIFAB_PKT_ERR_OK);
		for (i = 0; i < RTE_DIM(seg_lens); i++) {
			m = mk_chain(ctx->pool, f.b, f.len, seg_lens[i]);
			assert_int_equal(m->pkt_len, f.len);
			memset(scratch, 0, sizeof(scratch));
			assert_int_equal(aifab_pkt_parse_mbuf(m, &got, scratch,
							      true),
					 AIFAB_PKT_ERR_OK);
			assert_memory_equal(&got, &want, sizeof(got));
			/* Split headers went through the scratch copy. */
			if (seg_lens[i] < AIFAB_PKT_HDR_WINDOW)
				assert_memory_equal(scratch, f.b,
						    AIFAB_PKT_HDR_WINDOW);
			rte_pktmbuf_free(m);
		}
	}
	/* A frame shorter than the window, split in two segments. */
	m = mk_chain(ctx->pool, pfc_frame, 60, 20);
	assert_int_equal(m->nb_segs, 3);
	assert_int_equal(aifab_pkt_parse_mbuf(m, &got, scratch, true),
			 AIFAB_PKT_ERR_OK);
	assert_true(got.flags & AIFAB_PKT_F_PFC);
	assert_int_equal(got.pfc_time[6], 0x1234);
	rte_pktmbuf_free(m);
}

/*
 * aifab_icrc_verify() over chains cut at many places (SIMD CRC selected
 * after EAL init) gives what the flat check gives: OK, and BAD with one
 * payload bit flipped; a chain whose data ends before its pkt_len says is
 * malformed, not read past.
 */
static void
test_icrc_verify_mbuf(void **state)
{
	/* 11: 4200 bytes in 382 segments, within the pool of 511. */
	static const uint32_t seg_lens[] = { 11, 30, 45, 64, 100, 1000, 2048 };
	struct mbuf_ctx *ctx = *state;
	static struct roce_frame f;
	struct roce_spec s = write_only_v4;
	uint8_t scratch[AIFAB_PKT_HDR_WINDOW];
	struct aifab_pkt_info pi;
	struct rte_mbuf *m;
	uint64_t rng = SEED;
	unsigned int i, flip;
	int v6;

	aifab_icrc_verify_init();
	for (v6 = 0; v6 < 2; v6++) {
		s.ipv6 = v6;
		s.payload_len = 4096;
		mk_roce(&f, &s);
		prng_fill(&rng, f.b + f.l3 + f.hdr_len, 4096);
		aifab_icrc_store(f.b + f.len - 4, aifab_icrc(f.b + f.l3,
				 f.len - f.l3 - 4, v6));
		for (i = 0; i < RTE_DIM(seg_lens); i++) {
			m = mk_chain(ctx->pool, f.b, f.len, seg_lens[i]);
			assert_int_equal(aifab_pkt_parse_mbuf(m, &pi, scratch,
							      true),
					 AIFAB_PKT_ERR_OK);
			assert_int_equal(aifab_icrc_verify(m, &pi),
					 AIFAB_ICRC_OK);
			rte_pktmbuf_free(m);
			flip = f.l3 + f.hdr_len + prng_below(&rng, 4096);
			f.b[flip] ^= 4;
			m = mk_chain(ctx->pool, f.b, f.len, seg_lens[i]);
			assert_int_equal(aifab_icrc_verify(m, &pi),
					 AIFAB_ICRC_BAD);
			f.b[flip] ^= 4;
			rte_pktmbuf_free(m);
		}
		/* Data 3 bytes short of what pkt_len claims. */
		m = mk_chain(ctx->pool, f.b, f.len - 3, 1000);
		m->pkt_len += 3;
		assert_int_equal(aifab_icrc_verify(m, &pi),
				 AIFAB_ICRC_MALFORMED);
		m->pkt_len -= 3;
		rte_pktmbuf_free(m);
	}
}

/* aifab_icrc_verify_known() over @p f (as @p segs-byte segments) against
 * aifab_icrc_verify(): the same verdict, and @p want. */
static void
check_known(struct mbuf_ctx *ctx, const struct roce_frame *f,
	    const struct aifab_icrc_known *k, uint32_t segs,
	    enum aifab_icrc_verdict want)
{
	uint8_t scratch[AIFAB_PKT_HDR_WINDOW];
	struct aifab_pkt_info pi;
	struct rte_mbuf *m = mk_chain(ctx->pool, f->b, f->len, segs);

	assert_int_equal(aifab_pkt_parse_mbuf(m, &pi, scratch, false),
			 AIFAB_PKT_ERR_OK);
	assert_int_equal(aifab_icrc_verify(m, &pi), want);
	assert_int_equal(aifab_icrc_verify_known(m, &pi, k), want);
	rte_pktmbuf_free(m);
}

/*
 * The receive check with a known payload (the generator's bytes after its
 * 24-byte tag) gives aifab_icrc_verify()'s verdict whatever the frame
 * holds: its own bytes OK, a bit flipped anywhere the ICRC covers (tag,
 * the known bytes, after them, the ICRC) BAD, a known byte changed with
 * the ICRC made for it OK (compared, not assumed); with and without
 * RETH, a short last payload with pad, k shorter and longer than the
 * payload, IPv4 and IPv6, one segment and chains cut inside the known
 * bytes.
 */
static void
test_icrc_verify_known(void **state)
{
	static const uint32_t segs[] = { 4352, 1000, 61 };
	static const struct {
		uint8_t opcode;
		bool reth;
		uint32_t payload, known;        /* known: 0 = all after tag */
	} cases[] = {
		{ AIFAB_BTH_OP_WRITE_ONLY, true, 4096, 0 },
		{ AIFAB_BTH_OP_WRITE_MIDDLE, false, 4096, 0 },
		{ AIFAB_BTH_OP_WRITE_LAST, false, 1001, 0 },
		{ AIFAB_BTH_OP_WRITE_MIDDLE, false, 4096, 1000 },
		{ AIFAB_BTH_OP_WRITE_MIDDLE, false, 4096, 8000 },
	};
	struct mbuf_ctx *ctx = *state;
	static struct roce_frame f;
	struct aifab_icrc_known *k;
	uint64_t rng = SEED;
	uint8_t *ref;
	unsigned int c, i, j, v6;
	uint32_t pay, kl, at, icrc_at;

	aifab_icrc_verify_init();
	assert_null(aifab_icrc_known_create(&rng, 0, 24));
	for (c = 0; c < RTE_DIM(cases); c++) {
		for (v6 = 0; v6 < 2; v6++) {
			struct roce_spec s = write_only_v4;

			s.ipv6 = v6;
			s.opcode = cases[c].opcode;
			s.reth = cases[c].reth;
			s.payload_len = cases[c].payload;
			mk_roce(&f, &s);
			pay = f.l3 + f.hdr_len;
			icrc_at = f.len - AIFAB_ICRC_LEN;
			prng_fill(&rng, f.b + pay, s.payload_len);
			kl = cases[c].known ? cases[c].known :
				s.payload_len - 24;
			ref = calloc(1, kl);
			assert_non_null(ref);
			memcpy(ref, f.b + pay + 24,
			       RTE_MIN(kl, s.payload_len - 24));
			k = aifab_icrc_known_create(ref, kl, 24);
			assert_non_null(k);
			aifab_icrc_store(f.b + icrc_at, aifab_icrc(f.b + f.l3,
					 icrc_at - f.l3, v6));
			for (i = 0; i < RTE_DIM(segs); i++) {
				check_known(ctx, &f, k, segs[i], AIFAB_ICRC_OK);
				/* tag, known bytes, the rest, the ICRC */
				for (j = 0; j < 6; j++) {
					at = j == 0 ? pay + prng_below(&rng, 24) :
					     j == 5 ? icrc_at + prng_below(&rng, 4) :
					     pay + 24 + prng_below(&rng,
						f.pay_len - 24);
					f.b[at] ^= (uint8_t)(1u << (j + 1));
					check_known(ctx, &f, k, segs[i],
						    AIFAB_ICRC_BAD);
					f.b[at] ^= (uint8_t)(1u << (j + 1));
				}
			}
			/* a known byte changed, the ICRC made for it */
			at = pay + 24 + prng_below(&rng, RTE_MIN(kl,
					s.payload_len - 24));
			f.b[at] ^= 0x10;
			aifab_icrc_store(f.b + icrc_at, aifab_icrc(f.b + f.l3,
					 icrc_at - f.l3, v6));
			for (i = 0; i < RTE_DIM(segs); i++)
				check_known(ctx, &f, k, segs[i], AIFAB_ICRC_OK);
			aifab_icrc_known_free(k);
			free(ref);
		}
	}
}

int
main(void)
{
	const struct CMUnitTest pure[] = {
		cmocka_unit_test(test_icrc_vector),
		cmocka_unit_test(test_crc32_raw_vs_rte_net_crc),
		cmocka_unit_test(test_crc32_mul),
		cmocka_unit_test(test_bth_data_ext_len),
		cmocka_unit_test(test_icrc_invariant_fields),
		cmocka_unit_test(test_icrc_combine_random),
		cmocka_unit_test(test_icrc_verify_vector),
		cmocka_unit_test(test_icrc_verify_flips),
		cmocka_unit_test(test_icrc_verify_tx_frames),
		cmocka_unit_test(test_cksum_rfc1624_example),
		cmocka_unit_test(test_cksum_incremental_random),
		cmocka_unit_test(test_dec_ttl_bulk),
		cmocka_unit_test(test_dec_ttl_inline_cksum20),
		cmocka_unit_test(test_parse_roce_ipv4),
		cmocka_unit_test(test_parse_truncation_every_length),
		cmocka_unit_test(test_parse_vlan_qinq),
		cmocka_unit_test(test_parse_ipv6_ext),
		cmocka_unit_test(test_parse_ipv4_opts_frag),
		cmocka_unit_test(test_parse_mac_ctrl),
		cmocka_unit_test(test_parse_other_l3),
		cmocka_unit_test(test_parse_errors),
		cmocka_unit_test(test_err_names),
		cmocka_unit_test(test_build_pfc_bytes),
		cmocka_unit_test(test_build_cnp),
		cmocka_unit_test(test_build_headers),
		cmocka_unit_test(test_roce_sport),
		cmocka_unit_test(test_dump_pcap),
	};
	const struct CMUnitTest with_eal[] = {
		cmocka_unit_test(test_parse_mbuf),
		cmocka_unit_test(test_icrc_verify_mbuf),
		cmocka_unit_test(test_icrc_verify_known),
	};
	int fails;

	fails = cmocka_run_group_tests_name("pkt", pure, NULL, NULL);
	fails += cmocka_run_group_tests_name("pkt_mbuf", with_eal, eal_setup,
					     eal_teardown);
	return fails != 0;
}
