/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lib/fault: the decision (index, period, seeded probability, only
 * matching frames numbered) against hand-counted expectations, and the
 * mbuf stage against frames written byte by byte here: dropped frames are
 * freed and removed in order, CE is set only on ECT frames with the IPv4
 * checksum recomputed from scratch, IPv6 gets its traffic class bits; a
 * corrupted frame differs from its copy in exactly one payload bit of a
 * segment it owns (never an attached external buffer), so its ICRC
 * (lib/pkt's check) fails where CE marking alone keeps it valid.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

/* assert_non_null() that the compiler knows does not return. */
#define MUST(x) do { if ((x) == NULL) { fail_msg("%s is NULL", #x); \
			 abort(); } } while (0)

#include <rte_eal.h>
#include <rte_mbuf.h>

#include "aifab_fault.h"
#include "aifab_link.h"
#include "aifab_pkt.h"
#include "unit_common.h"

static struct rte_mempool *pool;

static void
test_params(void **state)
{
	struct aifab_fault f;
	struct aifab_fault_params p = { 0 };

	(void)state;
	assert_int_equal(aifab_fault_init(&f, &p, 0), 0);
	assert_false(aifab_fault_active(&f));
	p.match = AIFAB_FAULT_MATCH_MAX;
	assert_int_equal(aifab_fault_init(&f, &p, 0), -EINVAL);
	p.match = 0;
	p.drop_ppm = 1000001;
	assert_int_equal(aifab_fault_init(&f, &p, 0), -EINVAL);
	assert_string_equal(aifab_fault_cnt_name(AIFAB_FAULT_CNT_DROPPED),
			    "fault_dropped");
	assert_string_equal(aifab_fault_match_name(AIFAB_FAULT_MATCH_ROCE),
			    "roce");
}

static void
test_judge_index_every(void **state)
{
	struct aifab_fault f;
	struct aifab_fault_params p = { .drop_index = 3, .drop_every = 5,
					.ce_every = 2, .ce_index = 7 };
	/* matching frames 1..10 (with a non-matching one between each) */
	static const enum aifab_fault_verdict want[10] = {
		AIFAB_FAULT_PASS, AIFAB_FAULT_MARK_CE, AIFAB_FAULT_DROP,
		AIFAB_FAULT_MARK_CE, AIFAB_FAULT_DROP, AIFAB_FAULT_MARK_CE,
		AIFAB_FAULT_MARK_CE, AIFAB_FAULT_MARK_CE, AIFAB_FAULT_PASS,
		AIFAB_FAULT_DROP,
	};
	unsigned int i;

	(void)state;
	assert_int_equal(aifab_fault_init(&f, &p, 0), 0);
	assert_true(aifab_fault_active(&f));
	for (i = 0; i < 10; i++) {
		assert_int_equal(aifab_fault_judge(&f, false),
				 AIFAB_FAULT_PASS);
		assert_int_equal(aifab_fault_judge(&f, true), want[i]);
	}
	assert_int_equal(f.cnt[AIFAB_FAULT_CNT_SEEN], 20);
	assert_int_equal(f.cnt[AIFAB_FAULT_CNT_MATCHED], 10);
	assert_int_equal(f.cnt[AIFAB_FAULT_CNT_DROPPED], 3);
}

static void
test_judge_ppm(void **state)
{
	struct aifab_fault a, b;
	struct aifab_fault_params p = { .drop_ppm = 100000, .seed = 42 };
	unsigned int i, drops = 0, same = 0;
	const unsigned int n = 100000;

	(void)state;
	assert_int_equal(aifab_fault_init(&a, &p, 1), 0);
	assert_int_equal(aifab_fault_init(&b, &p, 1), 0);
	for (i = 0; i < n; i++) {
		enum aifab_fault_verdict va = aifab_fault_judge(&a, true);

		same += va == aifab_fault_judge(&b, true);
		drops += va == AIFAB_FAULT_DROP;
	}
	assert_int_equal(same, n);                 /* seeded: repeatable */
	assert_true(drops > 9400 && drops < 10600); /* 10% +- 6 sigma */
	/* Adding a CE probability does not move the drop draws. */
	p.ce_ppm = 500000;
	assert_int_equal(aifab_fault_init(&b, &p, 1), 0);
	assert_int_equal(aifab_fault_init(&a, &(struct aifab_fault_params){
		.drop_ppm = 100000, .seed = 42 }, 1), 0);
	for (i = 0; i < 1000; i++)
		assert_int_equal(aifab_fault_judge(&a, true) ==
				 AIFAB_FAULT_DROP,
				 aifab_fault_judge(&b, true) ==
				 AIFAB_FAULT_DROP);
}

/* Corruption numbers frames like the other rules, combines with CE, yields
 * to a drop, and its draws neither move nor are moved by the others. */
static void
test_judge_corrupt(void **state)
{
	struct aifab_fault f, a, b;
	struct aifab_fault_params p = { .corrupt_index = 1,
					.corrupt_every = 3, .ce_every = 2,
					.drop_index = 6 };
	static const enum aifab_fault_verdict want[7] = {
		AIFAB_FAULT_CORRUPT, AIFAB_FAULT_MARK_CE, AIFAB_FAULT_CORRUPT,
		AIFAB_FAULT_MARK_CE, AIFAB_FAULT_PASS, AIFAB_FAULT_DROP,
		AIFAB_FAULT_PASS,
	};
	unsigned int i, bad = 0;

	(void)state;
	assert_int_equal(aifab_fault_init(&f, &p, 0), 0);
	assert_true(aifab_fault_active(&f));
	for (i = 0; i < 7; i++)
		assert_int_equal(aifab_fault_judge(&f, true), want[i]);
	p = (struct aifab_fault_params){ .corrupt_every = 2, .ce_every = 4 };
	assert_int_equal(aifab_fault_init(&f, &p, 0), 0);
	for (i = 1; i <= 8; i++)
		assert_int_equal(aifab_fault_judge(&f, true),
				 i % 4 == 0 ? AIFAB_FAULT_MARK_CE_CORRUPT :
				 i % 2 == 0 ? AIFAB_FAULT_CORRUPT :
				 AIFAB_FAULT_PASS);
	p = (struct aifab_fault_params){ .corrupt_ppm = 1000001 };
	assert_int_equal(aifab_fault_init(&f, &p, 0), -EINVAL);
	p = (struct aifab_fault_params){ .corrupt_ppm = 1000 };
	assert_true(aifab_fault_params_active(&p));
	/* Drops at 10% and CE at 50% with and without corruption at 20%. */
	p = (struct aifab_fault_params){ .drop_ppm = 100000, .ce_ppm = 500000,
					 .seed = 9 };
	assert_int_equal(aifab_fault_init(&a, &p, 3), 0);
	p.corrupt_ppm = 200000;
	assert_int_equal(aifab_fault_init(&b, &p, 3), 0);
	for (i = 0; i < 20000; i++) {
		unsigned int va = aifab_fault_judge(&a, true);
		unsigned int vb = aifab_fault_judge(&b, true);

		assert_int_equal(va, vb & ~(unsigned int)AIFAB_FAULT_CORRUPT);
		bad += (vb & AIFAB_FAULT_CORRUPT) != 0;
	}
	/* 20% of the 90% not dropped, +- 6 sigma */
	assert_true(bad > 3600 - 360 && bad < 3600 + 360);
}

/* ---- mbufs ---------------------------------------------------------------- */

static uint16_t
ip_csum(const uint8_t *ip)
{
	uint32_t sum = 0;
	int i;

	for (i = 0; i < 20; i += 2)
		sum += (uint32_t)ip[i] << 8 | ip[i + 1];
	while (sum >> 16)
		sum = (sum & 0xFFFF) + (sum >> 16);
	return (uint16_t)~sum;
}

/* Ethernet + IPv4 (TOS @p tos) + UDP 4791 + BTH(@p op) + 32 bytes + ICRC. */
static struct rte_mbuf *
roce4(uint8_t tos, uint8_t op, uint8_t id)
{
	struct rte_mbuf *m = rte_pktmbuf_alloc(pool);
	uint8_t *f;
	uint16_t c;

	MUST(m);
	f = (uint8_t *)rte_pktmbuf_append(m, 14 + 20 + 8 + 12 + 32 + 4);
	MUST(f);
	memset(f, 0, m->pkt_len);
	memcpy(f, "\x02\0\0\0\0\x02\x02\0\0\0\0\x01\x08\x00", 14);
	f[14] = 0x45;
	f[15] = tos;
	f[16] = 0;
	f[17] = 20 + 8 + 12 + 32 + 4;
	f[19] = id;
	f[22] = 64;
	f[23] = 17;
	memcpy(f + 26, "\x0a\0\0\x01\x0a\0\0\x02", 8);
	c = ip_csum(f + 14);
	f[24] = (uint8_t)(c >> 8);
	f[25] = (uint8_t)c;
	f[34] = 0xc0;
	f[36] = 0x12;
	f[37] = 0xb7;                 /* 4791 */
	f[39] = 8 + 12 + 32 + 4;
	f[42] = op;
	f[44] = f[45] = 0xff;
	return m;
}

static struct rte_mbuf *
arp(void)
{
	struct rte_mbuf *m = rte_pktmbuf_alloc(pool);
	uint8_t *f;

	MUST(m);
	f = (uint8_t *)rte_pktmbuf_append(m, 60);
	MUST(f);
	memset(f, 0, 60);
	f[12] = 0x08;
	f[13] = 0x06;
	return m;
}

static void
test_burst(void **state)
{
	struct aifab_fault f;
	struct aifab_fault_params p = { .match = AIFAB_FAULT_MATCH_DATA,
					.drop_index = 2, .ce_every = 1 };
	struct rte_mbuf *pk[6];
	uint16_t n;
	uint8_t *ip;

	(void)state;
	assert_int_equal(aifab_fault_init(&f, &p, 0), 0);
	pk[0] = roce4(26 << 2 | 2, 0x0A, 1);    /* data 1: ECT(0) -> CE */
	pk[1] = roce4(26 << 2 | 2, 0x11, 2);    /* ACK: not matched */
	pk[2] = arp();                          /* not matched */
	pk[3] = roce4(26 << 2 | 2, 0x06, 4);    /* data 2: dropped */
	pk[4] = roce4(26 << 2 | 0, 0x07, 5);    /* data 3: Not-ECT */
	pk[5] = roce4(26 << 2 | 3, 0x08, 6);    /* data 4: already CE */
	n = aifab_fault_burst(&f, pk, 6, (uint8_t[256]){ 0 });
	assert_int_equal(n, 5);
	/* order kept, the dropped one gone */
	assert_int_equal(rte_pktmbuf_mtod(pk[0], uint8_t *)[19], 1);
	assert_int_equal(rte_pktmbuf_mtod(pk[1], uint8_t *)[19], 2);
	assert_int_equal(rte_pktmbuf_mtod(pk[2], uint8_t *)[13], 0x06);
	assert_int_equal(rte_pktmbuf_mtod(pk[3], uint8_t *)[19], 5);
	assert_int_equal(rte_pktmbuf_mtod(pk[4], uint8_t *)[19], 6);
	ip = rte_pktmbuf_mtod_offset(pk[0], uint8_t *, 14);
	assert_int_equal(ip[1], 26 << 2 | 3);
	assert_int_equal(ip_csum(ip), 0);       /* checksum still valid */
	assert_int_equal(rte_pktmbuf_mtod(pk[1], uint8_t *)[15], 26 << 2 | 2);
	assert_int_equal(rte_pktmbuf_mtod(pk[3], uint8_t *)[15], 26 << 2);
	assert_int_equal(f.cnt[AIFAB_FAULT_CNT_SEEN], 6);
	assert_int_equal(f.cnt[AIFAB_FAULT_CNT_MATCHED], 4);
	assert_int_equal(f.cnt[AIFAB_FAULT_CNT_DROPPED], 1);
	assert_int_equal(f.cnt[AIFAB_FAULT_CNT_CE_MARKED], 1);
	assert_int_equal(f.cnt[AIFAB_FAULT_CNT_CE_NOT_ECT], 1);
	assert_int_equal(f.cnt[AIFAB_FAULT_CNT_CE_ALREADY], 1);
	rte_pktmbuf_free_bulk(pk, n);
	assert_int_equal(rte_mempool_in_use_count(pool), 0);
}

static void
test_burst_ipv6_all(void **state)
{
	struct aifab_fault f;
	struct aifab_fault_params p = { .match = AIFAB_FAULT_MATCH_ALL,
					.ce_index = 1, .drop_index = 2 };
	struct rte_mbuf *pk[2];
	uint8_t *b;

	(void)state;
	assert_int_equal(aifab_fault_init(&f, &p, 0), 0);
	pk[0] = rte_pktmbuf_alloc(pool);
	MUST(pk[0]);
	b = (uint8_t *)rte_pktmbuf_append(pk[0], 14 + 40 + 8);
	MUST(b);
	memset(b, 0, 14 + 40 + 8);
	b[12] = 0x86;
	b[13] = 0xdd;
	/* version 6, traffic class 0x6a (DSCP 26, ECT(0)), flow label 0 */
	b[14] = 0x66;
	b[15] = 0xa0;
	b[19] = 8;                    /* payload length */
	b[20] = 17;
	b[21] = 64;
	b[14 + 40 + 5] = 8;
	pk[1] = arp();
	assert_int_equal(aifab_fault_burst(&f, pk, 2, (uint8_t[256]){ 0 }), 1);
	b = rte_pktmbuf_mtod(pk[0], uint8_t *);
	/* traffic class 0x6b: CE */
	assert_int_equal(b[14], 0x66);
	assert_int_equal(b[15], 0xb0);
	assert_int_equal(f.cnt[AIFAB_FAULT_CNT_CE_MARKED], 1);
	assert_int_equal(f.cnt[AIFAB_FAULT_CNT_DROPPED], 1);
	rte_pktmbuf_free(pk[0]);
	assert_int_equal(rte_mempool_in_use_count(pool), 0);
}

/* roce4() with its ICRC right (lib/pkt's TX computation). */
static struct rte_mbuf *
roce4_icrc(uint8_t tos, uint8_t op, uint8_t id)
{
	struct rte_mbuf *m = roce4(tos, op, id);
	uint8_t *f = rte_pktmbuf_mtod(m, uint8_t *);

	aifab_icrc_store(f + 86, aifab_icrc(f + 14, 72, false));
	return m;
}

static enum aifab_icrc_verdict
icrc_of(const struct rte_mbuf *m)
{
	struct aifab_pkt_info pi;
	uint8_t scratch[AIFAB_PKT_HDR_WINDOW];

	assert_int_equal(aifab_pkt_parse_mbuf(m, &pi, scratch, false),
			 AIFAB_PKT_ERR_OK);
	return aifab_icrc_verify(m, &pi);
}

/* The one byte offset where @p m differs from @p ref, which is one bit;
 * -1 if none. */
static int
one_bit_diff(const struct rte_mbuf *m, const uint8_t *ref, uint32_t len)
{
	const uint8_t *b = rte_pktmbuf_mtod(m, const uint8_t *);
	int at = -1;
	uint32_t i;

	assert_int_equal(m->pkt_len, len);
	for (i = 0; i < len; i++) {
		if (b[i] == ref[i])
			continue;
		assert_int_equal(at, -1);
		assert_int_equal(__builtin_popcount(b[i] ^ ref[i]), 1);
		at = (int)i;
	}
	return at;
}

static void
test_burst_corrupt(void **state)
{
	struct aifab_fault f, g;
	struct aifab_fault_params p = { .match = AIFAB_FAULT_MATCH_DATA,
					.corrupt_every = 1, .seed = 5 };
	struct rte_mbuf *pk[4], *m2;
	uint8_t ref[4][90];
	unsigned int i;
	int at;

	(void)state;
	assert_int_equal(aifab_fault_init(&f, &p, 0), 0);
	pk[0] = roce4_icrc(2, 0x07, 1);   /* WRITE middle: payload 54..85 */
	pk[1] = roce4_icrc(2, 0x11, 2);   /* ACK: not data */
	pk[2] = arp();
	pk[3] = roce4_icrc(2, 0x0A, 4);   /* WRITE only: RETH, then 70..85 */
	for (i = 0; i < 4; i++)
		memcpy(ref[i], rte_pktmbuf_mtod(pk[i], uint8_t *),
		       pk[i]->pkt_len);
	assert_int_equal(icrc_of(pk[0]), AIFAB_ICRC_OK);
	assert_int_equal(aifab_fault_burst(&f, pk, 4, (uint8_t[256]){ 0 }), 4);
	at = one_bit_diff(pk[0], ref[0], 90);
	assert_true(at >= 54 && at < 86);
	assert_int_equal(icrc_of(pk[0]), AIFAB_ICRC_BAD);
	assert_int_equal(one_bit_diff(pk[1], ref[1], 90), -1);
	assert_int_equal(one_bit_diff(pk[2], ref[2], 60), -1);
	at = one_bit_diff(pk[3], ref[3], 90);
	assert_true(at >= 70 && at < 86);
	assert_int_equal(icrc_of(pk[3]), AIFAB_ICRC_BAD);
	assert_int_equal(f.cnt[AIFAB_FAULT_CNT_CORRUPTED], 2);
	assert_int_equal(f.cnt[AIFAB_FAULT_CNT_CORRUPT_SKIPPED], 0);
	rte_pktmbuf_free_bulk(pk, 4);

	/* Every frame: the ARP is skipped, the ACK's bytes after the BTH
	 * are hit; CE on top keeps the ICRC valid by itself. The same seed
	 * flips the same bit. */
	p = (struct aifab_fault_params){ .match = AIFAB_FAULT_MATCH_ALL,
					 .corrupt_every = 1, .seed = 5 };
	assert_int_equal(aifab_fault_init(&f, &p, 0), 0);
	assert_int_equal(aifab_fault_init(&g, &p, 0), 0);
	pk[0] = arp();
	pk[1] = roce4_icrc(2, 0x11, 2);
	m2 = roce4_icrc(2, 0x11, 2);
	assert_int_equal(aifab_fault_burst(&f, pk, 2, (uint8_t[256]){ 0 }), 2);
	assert_int_equal(aifab_fault_burst(&g, &m2, 1, (uint8_t[256]){ 0 }), 1);
	at = one_bit_diff(pk[1], ref[1], 90);
	assert_true(at >= 54 && at < 86);
	assert_int_equal(one_bit_diff(m2, ref[1], 90), at);
	assert_memory_equal(rte_pktmbuf_mtod(m2, uint8_t *),
			    rte_pktmbuf_mtod(pk[1], uint8_t *), 90);
	assert_int_equal(f.cnt[AIFAB_FAULT_CNT_CORRUPT_SKIPPED], 1);
	assert_int_equal(f.cnt[AIFAB_FAULT_CNT_CORRUPTED], 1);
	rte_pktmbuf_free_bulk(pk, 2);
	rte_pktmbuf_free(m2);
	p = (struct aifab_fault_params){ .ce_every = 1 };
	assert_int_equal(aifab_fault_init(&f, &p, 0), 0);
	pk[0] = roce4_icrc(26 << 2 | 2, 0x07, 1);
	assert_int_equal(aifab_fault_burst(&f, pk, 1, (uint8_t[256]){ 0 }), 1);
	assert_int_equal(rte_pktmbuf_mtod(pk[0], uint8_t *)[15], 26 << 2 | 3);
	assert_int_equal(icrc_of(pk[0]), AIFAB_ICRC_OK);
	p.corrupt_every = 1;
	assert_int_equal(aifab_fault_init(&f, &p, 0), 0);
	assert_int_equal(aifab_fault_burst(&f, pk, 1, (uint8_t[256]){ 0 }), 1);
	assert_int_equal(icrc_of(pk[0]), AIFAB_ICRC_BAD);
	assert_int_equal(f.cnt[AIFAB_FAULT_CNT_CE_ALREADY], 1);
	rte_pktmbuf_free(pk[0]);
	assert_int_equal(rte_mempool_in_use_count(pool), 0);
}

static void
ext_free(void *addr, void *opaque)
{
	(void)addr;
	(void)opaque;
}

/*
 * A frame as the generator builds it: headers in one mbuf, the payload in
 * an external buffer every frame shares, the ICRC in a third mbuf. The
 * shared bytes are never written: with @p in_head payload bytes in the
 * first segment the flip lands there, with none the frame is skipped.
 */
static void
check_chain(uint32_t in_head)
{
	static uint8_t shared[64];
	struct rte_mbuf_ext_shared_info sh = { .free_cb = ext_free };
	struct aifab_fault_params p = { .corrupt_every = 1, .seed = 1 };
	struct aifab_fault f;
	struct rte_mbuf *src = roce4_icrc(2, 0x07, 1), *m, *e, *t;
	const uint8_t *b = rte_pktmbuf_mtod(src, const uint8_t *);
	uint8_t before[90], after[90];
	uint32_t head = 54 + in_head, i, diff = 0;
	char *d;

	memcpy(before, b, 90);
	memcpy(shared, b + head, 86 - head);
	m = rte_pktmbuf_alloc(pool);
	e = rte_pktmbuf_alloc(pool);
	t = rte_pktmbuf_alloc(pool);
	MUST(m);
	MUST(e);
	MUST(t);
	d = rte_pktmbuf_append(m, (uint16_t)head);
	MUST(d);
	memcpy(d, b, head);
	rte_mbuf_ext_refcnt_set(&sh, 1);
	rte_pktmbuf_attach_extbuf(e, shared, (rte_iova_t)(uintptr_t)shared,
				  sizeof(shared), &sh);
	e->data_off = 0;
	e->data_len = (uint16_t)(86 - head);
	e->pkt_len = e->data_len;
	d = rte_pktmbuf_append(t, 4);
	MUST(d);
	memcpy(d, b + 86, 4);
	assert_int_equal(rte_pktmbuf_chain(m, e), 0);
	assert_int_equal(rte_pktmbuf_chain(m, t), 0);
	rte_pktmbuf_free(src);
	assert_int_equal(icrc_of(m), AIFAB_ICRC_OK);
	assert_int_equal(aifab_fault_init(&f, &p, 0), 0);
	assert_int_equal(aifab_fault_burst(&f, &m, 1, (uint8_t[256]){ 0 }), 1);
	assert_memory_equal(shared, before + head, 86 - head);
	assert_non_null(rte_pktmbuf_read(m, 0, 90, after));
	for (i = 0; i < 90; i++)
		if (after[i] != before[i]) {
			assert_true(i >= 54 && i < head);
			diff++;
		}
	assert_int_equal(diff, in_head ? 1 : 0);
	assert_int_equal(f.cnt[in_head ? AIFAB_FAULT_CNT_CORRUPTED :
			       AIFAB_FAULT_CNT_CORRUPT_SKIPPED], 1);
	assert_int_equal(icrc_of(m), in_head ? AIFAB_ICRC_BAD : AIFAB_ICRC_OK);
	rte_pktmbuf_free(m);
	assert_int_equal(rte_mempool_in_use_count(pool), 0);
}

static void
test_burst_corrupt_chain(void **state)
{
	(void)state;
	check_chain(0);
	check_chain(8);
}

/*
 * lib/fault link stage. Departures from the formula, not from the code:
 * a frame of L bytes at R Mb/s occupies (L + 24) x 8 / R us of wire
 * (FCS, preamble + SFD, IFG), a delayed frame leaves at arrival + delay,
 * and a FIFO line never lets a frame pass the one ahead of it.
 */
static void
test_link_delay_rate(void **state)
{
	struct aifab_link l;
	struct aifab_link_params p = { .delay_ns = 10000, .rate_mbps = 1000 };
	struct rte_mbuf *pk[4], *out[4];
	const uint64_t t0 = 5000000; /* any origin: times are relative */
	/* 90-byte frames at 1 Gb/s: (90 + 24) x 8 = 912 ns each */
	const uint64_t wire = 912;

	(void)state;
	assert_int_equal(aifab_link_init(&l, &p, 0, SOCKET_ID_ANY), 0);
	assert_true(aifab_link_params_active(&p));
	pk[0] = roce4(2, 0x0A, 1);
	pk[1] = roce4(2, 0x0A, 2);
	pk[2] = roce4(2, 0x0A, 3);
	assert_int_equal(pk[0]->pkt_len, 90);
	assert_int_equal(aifab_link_in(&l, pk, 3, t0, (uint8_t[256]){ 0 }), 0);
	assert_int_equal(aifab_link_held(&l), 3);
	/* first: at t0 + delay (+ its own wire time: the line starts idle,
	 * last_out = 0, so max(delay, wire) = delay) */
	assert_int_equal(aifab_link_out(&l, out, 4, t0 + 10000 - 1), 0);
	assert_int_equal(aifab_link_out(&l, out, 4, t0 + 10000), 1);
	assert_int_equal(rte_pktmbuf_mtod(out[0], uint8_t *)[19], 1);
	rte_pktmbuf_free(out[0]);
	/* second and third: one wire time apart after the first */
	assert_int_equal(aifab_link_out(&l, out, 4, t0 + 10000 + wire - 1), 0);
	assert_int_equal(aifab_link_out(&l, out, 4, t0 + 10000 + wire), 1);
	assert_int_equal(rte_pktmbuf_mtod(out[0], uint8_t *)[19], 2);
	rte_pktmbuf_free(out[0]);
	assert_int_equal(aifab_link_out(&l, out, 4, t0 + 10000 + 2 * wire), 1);
	assert_int_equal(rte_pktmbuf_mtod(out[0], uint8_t *)[19], 3);
	rte_pktmbuf_free(out[0]);
	assert_int_equal(l.cnt[AIFAB_LINK_CNT_DELAYED], 3);
	/* a frame held at stop is freed by fini */
	pk[3] = roce4(2, 0x0A, 4);
	aifab_link_in(&l, &pk[3], 1, t0 + 20000, (uint8_t[256]){ 0 });
	aifab_link_fini(&l);
	assert_int_equal(rte_mempool_in_use_count(pool), 0);
}

static void
test_link_jitter_fifo_queue(void **state)
{
	struct aifab_link l;
	struct aifab_link_params p = { .delay_ns = 1000, .jitter_ns = 50000,
				       .queue = 8 };
	struct rte_mbuf *pk[10], *out[10];
	uint16_t n, got = 0, i;
	uint64_t t;

	(void)state;
	assert_int_equal(aifab_link_init(&l, &p, 7, SOCKET_ID_ANY), 0);
	for (i = 0; i < 10; i++)
		pk[i] = roce4(2, 0x0A, (uint8_t)i);
	/* 10 frames, 8 slots: 2 lost to the full line */
	assert_int_equal(aifab_link_in(&l, pk, 10, 0, (uint8_t[256]){ 0 }), 0);
	assert_int_equal(l.cnt[AIFAB_LINK_CNT_QUEUE_DROPPED], 2);
	assert_int_equal(aifab_link_held(&l), 8);
	/* nothing before delay; all by delay + jitter; ids in order */
	assert_int_equal(aifab_link_out(&l, out, 10, 999), 0);
	for (t = 1000; t <= 1000 + 50000; t += 997) {
		n = aifab_link_out(&l, out + got, (uint16_t)(10 - got), t);
		got = (uint16_t)(got + n);
	}
	got = (uint16_t)(got + aifab_link_out(&l, out + got,
					     (uint16_t)(10 - got), 51000));
	assert_int_equal(got, 8);
	for (i = 0; i < 8; i++)
		assert_int_equal(rte_pktmbuf_mtod(out[i], uint8_t *)[19], i);
	rte_pktmbuf_free_bulk(out, 8);
	aifab_link_fini(&l);
	assert_int_equal(rte_mempool_in_use_count(pool), 0);
}

static void
test_link_down_window_storm(void **state)
{
	struct aifab_link l;
	struct aifab_link_params p = {
		.down_at_ns = 2000, .down_for_ns = 3000,
		.loss = { .match = AIFAB_FAULT_MATCH_ALL, .drop_every = 1 },
		.from_ns = 10000, .until_ns = 20000,
		.storm_prio = 1 << 3, .storm_at_ns = 1000000,
		.storm_for_ns = 1000000, .storm_refresh_ns = 100000,
	};
	struct rte_mbuf *m;
	uint64_t t;
	uint8_t prio = 0;
	unsigned int storms = 0;

	(void)state;
	assert_int_equal(aifab_link_init(&l, &p, 0, SOCKET_ID_ANY), 0);
	/* origin 0 at the first call; down in [2000, 5000) */
	m = roce4(2, 0x0A, 1);
	assert_int_equal(aifab_link_in(&l, &m, 1, 0, (uint8_t[256]){ 0 }), 1);
	rte_pktmbuf_free(m);
	assert_false(aifab_link_down(&l, 1999));
	assert_true(aifab_link_down(&l, 2000));
	assert_true(aifab_link_down(&l, 4999));
	assert_false(aifab_link_down(&l, 5000));
	m = roce4(2, 0x0A, 2);
	assert_int_equal(aifab_link_in(&l, &m, 1, 3000, (uint8_t[256]){ 0 }), 0);
	assert_int_equal(l.cnt[AIFAB_LINK_CNT_DOWN_DROPPED], 1);
	/* loss only inside [10000, 20000) */
	m = roce4(2, 0x0A, 3);
	assert_int_equal(aifab_link_in(&l, &m, 1, 9999, (uint8_t[256]){ 0 }), 1);
	rte_pktmbuf_free(m);
	m = roce4(2, 0x0A, 4);
	assert_int_equal(aifab_link_in(&l, &m, 1, 10000, (uint8_t[256]){ 0 }), 0);
	m = roce4(2, 0x0A, 5);
	assert_int_equal(aifab_link_in(&l, &m, 1, 20000, (uint8_t[256]){ 0 }), 1);
	rte_pktmbuf_free(m);
	assert_int_equal(l.loss.cnt[AIFAB_FAULT_CNT_DROPPED], 1);
	/* storm: one XOFF per 100 us in [1 ms, 2 ms), polled every 10 us */
	for (t = 0; t < 3000000; t += 10000)
		if (aifab_link_storm(&l, t, false, &prio)) {
			assert_true(t >= 1000000 && t < 2000000);
			assert_int_equal(prio, 1 << 3);
			storms++;
		}
	assert_int_equal(storms, 10);
	assert_int_equal(l.cnt[AIFAB_LINK_CNT_STORM_FRAMES], 10);
	/* due now whatever the refresh timer says, but only in the storm */
	assert_false(aifab_link_storm(&l, 2500000, true, &prio));
	assert_false(aifab_link_storm(&l, 1950000, false, &prio));
	assert_true(aifab_link_storm(&l, 1950001, true, &prio));
	assert_int_equal(l.cnt[AIFAB_LINK_CNT_STORM_FRAMES], 11);
	aifab_link_fini(&l);
	assert_int_equal(rte_mempool_in_use_count(pool), 0);
}

static int
eal_up(void **state)
{
	if (unit_eal_up(state) != 0)
		return -1;
	pool = rte_pktmbuf_pool_create("tf_pool", 255, 0, 0,
				       RTE_MBUF_DEFAULT_BUF_SIZE, 0);
	return pool == NULL ? -1 : 0;
}

static int
eal_down(void **state)
{
	rte_mempool_free(pool);
	return unit_eal_down(state);
}

int
main(void)
{
	const struct CMUnitTest pure[] = {
		cmocka_unit_test(test_params),
		cmocka_unit_test(test_judge_index_every),
		cmocka_unit_test(test_judge_ppm),
		cmocka_unit_test(test_judge_corrupt),
	};
	const struct CMUnitTest mbufs[] = {
		cmocka_unit_test(test_burst),
		cmocka_unit_test(test_burst_ipv6_all),
		cmocka_unit_test(test_burst_corrupt),
		cmocka_unit_test(test_burst_corrupt_chain),
		cmocka_unit_test(test_link_delay_rate),
		cmocka_unit_test(test_link_jitter_fifo_queue),
		cmocka_unit_test(test_link_down_window_storm),
	};
	int fails = 0;

	fails += cmocka_run_group_tests_name("fault", pure, NULL, NULL);
	fails += cmocka_run_group_tests_name("fault_mbufs", mbufs, eal_up,
					     eal_down);
	return fails;
}
