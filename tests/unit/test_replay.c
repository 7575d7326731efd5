/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * pipelines/replay: loading and rewriting a trace, judged against an
 * independent recomputation written here from PROTOCOLS.md (a bitwise
 * CRC-32 for the ICRC, the one's complement IPv4 checksum, the Linux UDP
 * source-port formula) on frames built by hand, byte by byte (not with
 * lib/pkt). The pcap is written with libpcap. No EAL needed.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>
#include <pcap/pcap.h>

#include "replay.h"
#include "unit_judges.h"

#define QPN_BASE 0x100
#define N_RANKS 2

/* ---- independent judges -------------------------------------------------- */

/* ICRC of an untagged-or-tagged IPv4 frame: l3 at @p l3, IHL 5. */
static uint32_t
icrc_ref(const uint8_t *fr, size_t l3, size_t len)
{
	uint8_t b[2048];
	size_t n = len - l3 - 4;

	memset(b, 0xFF, 8);
	memcpy(b + 8, fr + l3, n);
	b[8 + 1] = 0xFF;                  /* TOS */
	b[8 + 8] = 0xFF;                  /* TTL */
	b[8 + 10] = b[8 + 11] = 0xFF;     /* header checksum */
	b[8 + 20 + 6] = b[8 + 20 + 7] = 0xFF; /* UDP checksum */
	b[8 + 28 + 4] = 0xFF;             /* BTH byte 4 */
	return unit_crc32(b, n + 8);
}

static uint32_t
le32(const uint8_t *p)
{
	return p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
	       (uint32_t)p[3] << 24;
}

static uint32_t
be24(const uint8_t *p)
{
	return (uint32_t)p[0] << 16 | (uint32_t)p[1] << 8 | p[2];
}

static uint32_t
be32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | be24(p + 1);
}

static bool
ip_sum_ok(const uint8_t *ip)
{
	uint32_t s = 0;
	int i;

	for (i = 0; i < 20; i += 2)
		s += (uint32_t)ip[i] << 8 | ip[i + 1];
	while (s >> 16)
		s = (s & 0xFFFF) + (s >> 16);
	return s == 0xFFFF;
}

static uint16_t
linux_sport(uint32_t l, uint32_t r)
{
	uint64_t fl = (uint64_t)l * r;

	fl ^= fl >> 20;
	fl ^= fl >> 40;
	fl &= 0xFFFFF;
	return (uint16_t)(((fl & 0x3FFF) ^ ((fl & 0xFC000) >> 14)) | 0xC000);
}

/* ---- frames built by hand ------------------------------------------------ */

struct tframe {
	uint8_t b[512];
	uint32_t len, caplen;
	uint64_t t_ns;
};

static uint32_t
ip4(int a, int b, int c, int d)
{
	return (uint32_t)a << 24 | (uint32_t)b << 16 | (uint32_t)c << 8 |
	       (uint32_t)d;
}

static void
put32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 24);
	p[1] = (uint8_t)(v >> 16);
	p[2] = (uint8_t)(v >> 8);
	p[3] = (uint8_t)v;
}

/* A RoCEv2 frame: [VLAN] IPv4 UDP(sport 0x1111, csum 0x5555) BTH payload
 * ICRC (a wrong one: the rewrite must recompute it). */
static void
roce(struct tframe *f, uint32_t sip, uint32_t dip, uint8_t op, uint32_t dqpn,
     uint32_t psn, uint32_t paylen, bool vlan, uint64_t t)
{
	uint8_t *p = f->b, *ip;
	uint32_t l3, iplen = 20 + 8 + 12 + paylen + 4, i;

	memset(f, 0, sizeof(*f));
	memcpy(p, "\x0e\x00\x00\x00\x00\x02\x0e\x00\x00\x00\x00\x01", 12);
	l3 = 14;
	if (vlan) {
		memcpy(p + 12, "\x81\x00\x60\x07", 4);
		l3 = 18;
	}
	p[l3 - 2] = 0x08;
	p[l3 - 1] = 0x00;
	ip = p + l3;
	ip[0] = 0x45;
	ip[1] = 26 << 2 | 2;
	ip[2] = (uint8_t)(iplen >> 8);
	ip[3] = (uint8_t)iplen;
	ip[6] = 0x40;
	ip[8] = 64;
	ip[9] = 17;
	put32(ip + 12, sip);
	put32(ip + 16, dip);
	ip[10] = 0x12;  /* wrong checksum on purpose */
	ip[11] = 0x34;
	ip[20] = 0x11; ip[21] = 0x11;             /* sport */
	ip[22] = 0x12; ip[23] = 0xB7;             /* 4791 */
	ip[24] = (uint8_t)((iplen - 20) >> 8);
	ip[25] = (uint8_t)(iplen - 20);
	ip[26] = 0x55; ip[27] = 0x55;             /* UDP checksum */
	ip[28] = op;
	ip[30] = ip[31] = 0xFF;                   /* P_Key */
	ip[33] = (uint8_t)(dqpn >> 16);
	ip[34] = (uint8_t)(dqpn >> 8);
	ip[35] = (uint8_t)dqpn;
	ip[37] = (uint8_t)(psn >> 16);
	ip[38] = (uint8_t)(psn >> 8);
	ip[39] = (uint8_t)psn;
	for (i = 0; i < paylen; i++)
		ip[40 + i] = (uint8_t)(i * 7 + 3);
	memset(ip + 40 + paylen, 0xEE, 4);
	f->len = f->caplen = l3 + iplen;
	f->t_ns = t;
}

static void
arp(struct tframe *f, uint64_t t)
{
	memset(f, 0, sizeof(*f));
	memset(f->b, 0xFF, 6);
	memcpy(f->b + 6, "\x0e\x00\x00\x00\x00\x09\x08\x06", 8);
	memset(f->b + 14, 0xA5, 46);
	f->len = f->caplen = 60;
	f->t_ns = t;
}

static void
ipv6_roce(struct tframe *f, uint64_t t)
{
	memset(f, 0, sizeof(*f));
	memcpy(f->b, "\x0e\x00\x00\x00\x00\x02\x0e\x00\x00\x00\x00\x01\x86\xdd",
	       14);
	f->b[14] = 0x60;
	f->b[18] = 0;
	f->b[19] = 8 + 12 + 4;
	f->b[20] = 17;
	f->b[21] = 64;
	f->b[54] = 0xC0; f->b[56] = 0x12; f->b[57] = 0xB7;
	f->b[59] = 8 + 12 + 4;
	f->b[62] = 0x0A;
	f->len = f->caplen = 14 + 40 + 8 + 12 + 4;
	f->t_ns = t;
}

enum { F1, F2, F3, F4, F5, F6, F7, F8, NF };

static struct tframe in[NF];
static char pcap_path[64];

#define A ip4(192, 168, 1, 10)
#define B ip4(192, 168, 1, 20)
#define C ip4(192, 168, 1, 30)

static void
write_trace(void)
{
	pcap_t *pd = pcap_open_dead_with_tstamp_precision(DLT_EN10MB, 65535,
			PCAP_TSTAMP_PRECISION_NANO);
	pcap_dumper_t *d;
	int i;

	roce(&in[F1], A, B, 0x06, 0x1234, 100, 64, false, 1000);
	roce(&in[F2], A, B, 0x08, 0x1234, 101, 32, false, 3000);
	arp(&in[F3], 2000);              /* earlier: time must not go back */
	roce(&in[F4], B, A, 0x11, 0x777, 100, 4, false, 5000);
	roce(&in[F5], C, A, 0x0A, 0x1234, 5, 16, true, 6000);
	roce(&in[F6], A, B, 0x07, 0x1234, 102, 256, false, 7000);
	in[F6].caplen = 100;             /* cut by the snaplen */
	roce(&in[F7], A, B, 0x08, 0x1234, 103, 8, false, 8000);
	ipv6_roce(&in[F8], 9000);
	snprintf(pcap_path, sizeof(pcap_path), "/tmp/test_replay_%d.pcap",
		 (int)getpid());
	assert_non_null(pd);
	d = pcap_dump_open(pd, pcap_path);
	assert_non_null(d);
	for (i = 0; i < NF; i++) {
		struct pcap_pkthdr h = {
			.caplen = in[i].caplen, .len = in[i].len,
		};

		h.ts.tv_sec = 1700000000 + (time_t)(in[i].t_ns / 1000000000);
		h.ts.tv_usec = (suseconds_t)(in[i].t_ns % 1000000000);
		pcap_dump((u_char *)d, &h, in[i].b);
	}
	pcap_dump_close(d);
	pcap_close(pd);
}

static void
params(struct aifab_replay_params *p)
{
	aifab_replay_params_defaults(p);
	p->path = pcap_path;
	p->n_ranks = N_RANKS;
	p->qpn_base = QPN_BASE;
	p->base_ip = ip4(10, 100, 0, 1);
}

static int
setup(void **state)
{
	(void)state;
	write_trace();
	return 0;
}

static int
teardown(void **state)
{
	(void)state;
	unlink(pcap_path);
	return 0;
}

/* Check one rewritten frame against the input it came from. */
static void
check_rewritten(const uint8_t *out, const struct tframe *src, uint32_t l3,
		uint32_t src_rank, uint32_t dst_rank, uint32_t conn,
		uint32_t psn)
{
	const uint8_t *ip = out + l3;
	uint32_t qpn = QPN_BASE + 2 * conn;
	uint8_t dmac[6] = { 0x02, 0xa1, 0xfa, 0, 0, (uint8_t)dst_rank };
	uint8_t smac[6] = { 0x02, 0xa1, 0xfa, 0, 0, (uint8_t)src_rank };

	assert_memory_equal(out, dmac, 6);
	assert_memory_equal(out + 6, smac, 6);
	assert_memory_equal(out + 12, src->b + 12, l3 - 12); /* tag, type */
	assert_int_equal(be32(ip + 12), ip4(10, 100, 0, 1) + src_rank);
	assert_int_equal(be32(ip + 16), ip4(10, 100, 0, 1) + dst_rank);
	assert_true(ip_sum_ok(ip));
	assert_int_equal(ip[20] << 8 | ip[21], linux_sport(qpn, qpn + 1));
	assert_int_equal(ip[26] << 8 | ip[27], 0);
	assert_int_equal(be24(ip + 33), qpn + 1);
	assert_int_equal(be24(ip + 37), psn);
	/* TOS, TTL, opcode, payload untouched */
	assert_int_equal(ip[1], src->b[l3 + 1]);
	assert_int_equal(ip[8], src->b[l3 + 8]);
	assert_int_equal(ip[28], src->b[l3 + 28]);
	assert_memory_equal(ip + 40, src->b + l3 + 40, src->len - l3 - 44);
	assert_int_equal(le32(out + src->len - 4),
			 icrc_ref(out, l3, src->len));
}

static void
test_rewrite(void **state)
{
	struct aifab_replay_params p;
	struct aifab_replay_trace t;
	char err[256] = "";
	uint8_t out[512];
	/* kept: F1 F2 F3 F4 F5 F7 F8 */
	static const int kept[] = { F1, F2, F3, F4, F5, F7, F8 };
	static const uint64_t t_ns[] = { 0, 2000, 2000, 4000, 5000, 7000, 8000 };
	uint32_t i;

	(void)state;
	params(&p);
	assert_int_equal(aifab_replay_trace_load(&t, &p, 2, err, sizeof(err)),
			 0);
	assert_int_equal(t.n, 7);
	assert_int_equal(t.st.frames, 8);
	assert_int_equal(t.st.roce, 5);
	assert_int_equal(t.st.rewritten, 5);
	assert_int_equal(t.st.other, 2);
	assert_int_equal(t.st.skipped_bad, 1);
	assert_int_equal(t.st.skipped_other, 0);
	assert_int_equal(t.st.hosts, 3);
	assert_int_equal(t.st.conns, 3);   /* A>B 0x1234, B>A 0x777, C>A */
	assert_int_equal(t.span_ns, 8000);
	for (i = 0; i < t.n; i++) {
		assert_int_equal(t.f[i].len, in[kept[i]].len);
		assert_int_equal(t.f[i].t_ns, t_ns[i]);
	}
	/* hosts: A 0 -> rank 0, B 1 -> rank 1, C 2 -> rank 0 */
	aifab_replay_frame_write(&t, 0, 0, out);
	check_rewritten(out, &in[F1], 14, 0, 1, 0, 100);
	assert_int_equal(t.f[0].slot, 0);
	aifab_replay_frame_write(&t, 1, 0, out);
	check_rewritten(out, &in[F2], 14, 0, 1, 0, 101);
	aifab_replay_frame_write(&t, 2, 0, out);
	assert_memory_equal(out, in[F3].b, in[F3].len);  /* ARP as is */
	aifab_replay_frame_write(&t, 3, 0, out);
	check_rewritten(out, &in[F4], 14, 1, 0, 1, 100);
	assert_int_equal(t.f[3].slot, 1);
	aifab_replay_frame_write(&t, 4, 0, out);
	check_rewritten(out, &in[F5], 18, 0, 0, 2, 5);
	assert_int_equal(t.f[4].slot, 0);
	aifab_replay_frame_write(&t, 5, 0, out);
	check_rewritten(out, &in[F7], 14, 0, 1, 0, 103);
	aifab_replay_frame_write(&t, 6, 0, out);
	assert_memory_equal(out, in[F8].b, in[F8].len);  /* IPv6 as is */

	/* Pass 2: PSNs move on by each connection's span (A>B: 100..103 = 4,
	 * B>A: 1, C>A: 1), ICRC still right. Pass 3: twice that. */
	aifab_replay_frame_write(&t, 0, 1, out);
	check_rewritten(out, &in[F1], 14, 0, 1, 0, 104);
	aifab_replay_frame_write(&t, 5, 2, out);
	check_rewritten(out, &in[F7], 14, 0, 1, 0, 111);
	aifab_replay_frame_write(&t, 3, 1, out);
	check_rewritten(out, &in[F4], 14, 1, 0, 1, 101);
	aifab_replay_frame_write(&t, 4, 1, out);
	check_rewritten(out, &in[F5], 18, 0, 0, 2, 6);
	aifab_replay_frame_write(&t, 2, 5, out);
	assert_memory_equal(out, in[F3].b, in[F3].len);
	aifab_replay_trace_free(&t);
}

static void
test_skip_other_and_sport_range(void **state)
{
	struct aifab_replay_params p;
	struct aifab_replay_trace t;
	char err[256] = "";
	uint8_t out[512];

	(void)state;
	params(&p);
	p.send_other = false;
	p.sport_base = 50000;
	p.sport_count = 2;
	assert_int_equal(aifab_replay_trace_load(&t, &p, 1, err, sizeof(err)),
			 0);
	assert_int_equal(t.n, 5);
	assert_int_equal(t.st.skipped_other, 2);
	assert_int_equal(t.st.other, 0);
	aifab_replay_frame_write(&t, 2, 0, out);          /* F4: conn 1 */
	assert_int_equal(out[14 + 20] << 8 | out[14 + 21], 50001);
	aifab_replay_frame_write(&t, 3, 0, out);          /* F5: conn 2 */
	assert_int_equal(out[18 + 20] << 8 | out[18 + 21], 50000);
	assert_int_equal(le32(out + in[F5].len - 4),
			 icrc_ref(out, 18, in[F5].len));
	aifab_replay_trace_free(&t);
}

static void
test_no_rewrite(void **state)
{
	struct aifab_replay_params p;
	struct aifab_replay_trace t;
	char err[256] = "";
	uint8_t out[512];
	static const int kept[] = { F1, F2, F3, F4, F5, F7, F8 };
	uint32_t i;

	(void)state;
	params(&p);
	p.rewrite = false;
	assert_int_equal(aifab_replay_trace_load(&t, &p, 4, err, sizeof(err)),
			 0);
	assert_int_equal(t.n, 7);
	assert_int_equal(t.st.roce, 5);
	assert_int_equal(t.st.rewritten, 0);
	for (i = 0; i < t.n; i++) {
		aifab_replay_frame_write(&t, i, 3, out);  /* any pass */
		assert_memory_equal(out, in[kept[i]].b, in[kept[i]].len);
	}
	assert_int_equal(t.f[3].slot, 1);   /* B is host 1 */
	aifab_replay_trace_free(&t);
}

static void
test_errors(void **state)
{
	struct aifab_replay_params p;
	struct aifab_replay_trace t;
	char err[256] = "";

	(void)state;
	params(&p);
	p.path = "/nonexistent/x.pcap";
	assert_int_equal(aifab_replay_trace_load(&t, &p, 1, err, sizeof(err)),
			 -1);
	assert_non_null(strstr(err, "trace = '/nonexistent/x.pcap'"));
	assert_non_null(strstr(err, "allowed:"));
	params(&p);
	p.qpn_base = 0xFFFFFC;     /* room for 2 connections, not 3 */
	assert_int_equal(aifab_replay_trace_load(&t, &p, 1, err, sizeof(err)),
			 -1);
	assert_non_null(strstr(err, "qpn_base"));
	assert_null(t.buf);
	params(&p);
	p.send_other = false;
	p.path = pcap_path;
	assert_int_equal(aifab_replay_trace_load(&t, &p, 1, err, sizeof(err)),
			 0);
	aifab_replay_trace_free(&t);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_rewrite),
		cmocka_unit_test(test_skip_other_and_sport_range),
		cmocka_unit_test(test_no_rewrite),
		cmocka_unit_test(test_errors),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
