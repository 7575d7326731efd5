/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lib/rc: responder and requester state machines on a fake clock. Expected
 * ACK/NAK sequences, PSNs, offsets and byte counts are written out by hand;
 * a lossy loopback checks the pair against the posted messages themselves.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include <cmocka.h>

#include <rte_common.h>

#include "aifab_rc.h"
#include "aifab_rng.h"

#define F_FIRST AIFAB_RC_F_FIRST
#define F_LAST AIFAB_RC_F_LAST
#define F_ONLY (AIFAB_RC_F_FIRST | AIFAB_RC_F_LAST)
#define F_AR AIFAB_RC_F_ACK_REQ
#define F_RETX AIFAB_RC_F_RETX

#define HZ 2000000000ull

static struct aifab_rc_resp
mkresp(uint32_t psn, uint32_t ack_every)
{
	struct aifab_rc_resp_params p = { .init_psn = psn,
					  .ack_every = ack_every };
	struct aifab_rc_resp r;

	assert_int_equal(aifab_rc_resp_init(&r, &p), 0);
	return r;
}

static struct aifab_rc_req *
mkreq(uint32_t psn, uint32_t window, uint32_t mtu, uint64_t timeout_ns)
{
	struct aifab_rc_req_params p = {
		.init_psn = psn, .window = window, .max_msgs = 64, .mtu = mtu,
		.timeout_ns = timeout_ns, .tsc_hz = HZ,
	};
	size_t sz = aifab_rc_req_memsize(&p);
	struct aifab_rc_req *q;

	assert_true(sz > sizeof(*q));
	q = calloc(1, sz);
	assert_non_null(q);
	assert_int_equal(aifab_rc_req_init(q, &p), 0);
	return q;
}

/* One data packet in, expected reply out. */
struct rx_case {
	uint32_t psn;
	uint32_t len;
	unsigned int flags;
	uint8_t reply;
	uint32_t reply_psn;
	uint32_t msn;
	uint32_t delivered;
	bool completed;
	uint64_t msg_bytes;
};

#define NONE AIFAB_RC_REPLY_NONE
#define ACK AIFAB_RC_REPLY_ACK
#define NAK AIFAB_RC_REPLY_NAK

static void
run_rx(struct aifab_rc_resp *r, const struct rx_case *c, unsigned int n)
{
	struct aifab_rc_resp_action a;
	unsigned int i;

	for (i = 0; i < n; i++) {
		enum aifab_rc_reply got = aifab_rc_resp_on_data(r, c[i].psn,
			c[i].len, c[i].flags, &a);

		if (got != c[i].reply || a.delivered_bytes != c[i].delivered ||
		    a.message_completed != c[i].completed)
			fail_msg("case %u (psn %u): reply %d delivered %u "
				 "done %d", i, c[i].psn, got, a.delivered_bytes,
				 a.message_completed);
		if (got != NONE) {
			assert_int_equal(a.psn, c[i].reply_psn);
			assert_int_equal(a.msn, c[i].msn);
			assert_int_equal(a.syndrome, got == ACK ? 0x1F : 0x60);
		}
		if (c[i].completed)
			assert_int_equal(a.message_bytes, c[i].msg_bytes);
	}
}

static void
test_psn_arith(void **state)
{
	struct aifab_rng rng;
	unsigned int i;

	(void)state;
	assert_int_equal(aifab_rc_psn_add(0xFFFFFF, 1), 0);
	assert_int_equal(aifab_rc_psn_add(0, -1), 0xFFFFFF);
	assert_int_equal(aifab_rc_psn_diff(0, 0xFFFFFF), 1);
	assert_int_equal(aifab_rc_psn_diff(0xFFFFFF, 0), -1);
	assert_int_equal(aifab_rc_psn_diff(0x7FFFFF, 0), 0x7FFFFF);
	assert_int_equal(aifab_rc_psn_diff(0x800000, 0), -0x800000);
	/* Naive reference: 64-bit difference folded into [-2^23, 2^23). */
	aifab_rng_seed(&rng, 7, 0);
	for (i = 0; i < 100000; i++) {
		int64_t a = (int64_t)(aifab_rng_u64(&rng) & 0xFFFFFF);
		int64_t b = (int64_t)(aifab_rng_u64(&rng) & 0xFFFFFF);
		int64_t d = a - b;

		while (d >= 0x800000)
			d -= 0x1000000;
		while (d < -0x800000)
			d += 0x1000000;
		assert_int_equal(aifab_rc_psn_diff((uint32_t)a, (uint32_t)b),
				 d);
	}
}

static void
test_opcodes(void **state)
{
	/* RC opcodes per PROTOCOLS.md. */
	static const struct { uint8_t op; int flags; } t[] = {
		{ 0x00, F_FIRST }, { 0x01, 0 }, { 0x02, F_LAST },
		{ 0x03, F_LAST }, { 0x04, F_ONLY }, { 0x05, F_ONLY },
		{ 0x06, F_FIRST }, { 0x07, 0 }, { 0x08, F_LAST },
		{ 0x09, F_LAST }, { 0x0A, F_ONLY }, { 0x0B, F_ONLY },
		{ 0x0C, -1 }, { 0x0D, -1 }, { 0x11, -1 }, { 0x81, -1 },
	};
	unsigned int i;

	(void)state;
	for (i = 0; i < RTE_DIM(t); i++)
		assert_int_equal(aifab_rc_opcode_flags(t[i].op), t[i].flags);
	assert_int_equal(aifab_rc_write_opcode(F_FIRST), 0x06);
	assert_int_equal(aifab_rc_write_opcode(0), 0x07);
	assert_int_equal(aifab_rc_write_opcode(F_LAST | F_AR), 0x08);
	assert_int_equal(aifab_rc_write_opcode(F_ONLY | F_RETX), 0x0A);
	assert_int_equal(aifab_rc_timeout_ns_from_exp(14), 67108864);
	assert_int_equal(aifab_rc_timeout_ns_from_exp(0), 4096);
}

/* ACK every 4; a 10-packet message without AckReq, then an AckReq'd one. */
static void
test_resp_in_order(void **state)
{
	struct aifab_rc_resp r = mkresp(100, 4);
	const struct rx_case c[] = {
		{ 100, 1024, F_FIRST, NONE, 0, 0, 1024, false, 0 },
		{ 101, 1024, 0, NONE, 0, 0, 1024, false, 0 },
		{ 102, 1024, 0, NONE, 0, 0, 1024, false, 0 },
		{ 103, 1024, 0, ACK, 103, 0, 1024, false, 0 },
		{ 104, 1024, 0, NONE, 0, 0, 1024, false, 0 },
		{ 105, 1024, 0, NONE, 0, 0, 1024, false, 0 },
		{ 106, 1024, 0, NONE, 0, 0, 1024, false, 0 },
		{ 107, 1024, 0, ACK, 107, 0, 1024, false, 0 },
		{ 108, 1024, 0, NONE, 0, 0, 1024, false, 0 },
		{ 109, 100, F_LAST, NONE, 0, 0, 100, true, 9 * 1024 + 100 },
		/* AckReq: immediate ACK, MSN counts both messages. */
		{ 110, 64, F_ONLY | F_AR, ACK, 110, 2, 64, true, 64 },
		{ 111, 1024, F_FIRST, NONE, 0, 2, 1024, false, 0 },
		{ 112, 1024, F_AR, ACK, 112, 2, 1024, false, 0 },
	};

	(void)state;
	run_rx(&r, c, RTE_DIM(c));
	assert_int_equal(r.cnt[AIFAB_RC_RESP_CNT_RX_ACCEPTED], 13);
	assert_int_equal(r.cnt[AIFAB_RC_RESP_CNT_RX_BYTES],
			 11 * 1024 + 100 + 64);
	assert_int_equal(r.cnt[AIFAB_RC_RESP_CNT_ACKS_TX], 4);
	assert_int_equal(r.cnt[AIFAB_RC_RESP_CNT_MSGS_COMPLETED], 2);
}

/* One NAK per gap, silence until ePSN, re-ACK of duplicates meanwhile. */
static void
test_resp_nak_once_per_gap(void **state)
{
	struct aifab_rc_resp r = mkresp(0, 2);
	const struct rx_case c[] = {
		{ 0, 256, F_FIRST, NONE, 0, 0, 256, false, 0 },
		/* 1 lost: NAK for 1 once, then nothing for 3, 4. */
		{ 2, 256, 0, NAK, 1, 0, 0, false, 0 },
		{ 3, 256, 0, NONE, 0, 0, 0, false, 0 },
		{ 4, 256, F_LAST | F_AR, NONE, 0, 0, 0, false, 0 },
		/* A duplicate is still re-ACKed with ePSN - 1. */
		{ 0, 256, F_FIRST, ACK, 0, 0, 0, false, 0 },
		/* Go-back-N from 1: accepted again; the re-ACK restarted the
		 * count of 2, AckReq forces the last. */
		{ 1, 256, 0, NONE, 0, 0, 256, false, 0 },
		{ 2, 256, 0, ACK, 2, 0, 256, false, 0 },
		{ 3, 256, 0, NONE, 0, 0, 256, false, 0 },
		{ 4, 256, F_LAST | F_AR, ACK, 4, 1, 256, true, 5 * 256 },
		/* A second gap (5 lost) earns a second NAK. */
		{ 6, 256, F_ONLY, NAK, 5, 1, 0, false, 0 },
		{ 7, 256, F_ONLY, NONE, 0, 0, 0, false, 0 },
		{ 5, 256, F_ONLY, NONE, 0, 0, 256, true, 256 },
		{ 6, 256, F_ONLY | F_AR, ACK, 6, 3, 256, true, 256 },
	};

	(void)state;
	run_rx(&r, c, RTE_DIM(c));
	assert_int_equal(r.cnt[AIFAB_RC_RESP_CNT_NAKS_TX], 2);
	assert_int_equal(r.cnt[AIFAB_RC_RESP_CNT_RX_OOS], 5); /* 2 3 4 6 7 */
	assert_int_equal(r.cnt[AIFAB_RC_RESP_CNT_RX_DUP], 1);
	assert_int_equal(r.epsn, 7);
}

static void
test_resp_duplicates(void **state)
{
	struct aifab_rc_resp r = mkresp(40, 8);
	const struct rx_case c[] = {
		{ 40, 100, F_ONLY, NONE, 0, 0, 100, true, 100 },
		{ 41, 100, F_FIRST, NONE, 0, 1, 100, false, 0 },
		{ 42, 100, F_LAST, NONE, 0, 1, 100, true, 200 },
		/* Duplicates: dropped (no delivery nor completion), re-ACKed */
		{ 42, 100, F_LAST, ACK, 42, 2, 0, false, 0 },
		{ 40, 100, F_ONLY | F_AR, ACK, 42, 2, 0, false, 0 },
		{ 43, 100, F_ONLY, NONE, 0, 2, 100, true, 100 },
	};

	(void)state;
	run_rx(&r, c, RTE_DIM(c));
	assert_int_equal(r.cnt[AIFAB_RC_RESP_CNT_RX_DUP], 2);
	assert_int_equal(r.msn, 3);
}

static void
test_resp_wrap(void **state)
{
	struct aifab_rc_resp r = mkresp(0xFFFFFE, 1);
	const struct rx_case c[] = {
		{ 0xFFFFFE, 8, F_FIRST, ACK, 0xFFFFFE, 0, 8, false, 0 },
		{ 0xFFFFFF, 8, 0, ACK, 0xFFFFFF, 0, 8, false, 0 },
		{ 0, 8, 0, ACK, 0, 0, 8, false, 0 },
		{ 1, 8, F_LAST, ACK, 1, 1, 8, true, 32 },
		/* Across the wrap: 0xFFFFFF is behind 2, 3 is ahead. */
		{ 0xFFFFFF, 8, 0, ACK, 1, 1, 0, false, 0 },
		{ 3, 8, F_ONLY, NAK, 2, 1, 0, false, 0 },
		{ 2, 8, F_ONLY, ACK, 2, 2, 8, true, 8 },
		/* Half window: ePSN 3 + 0x7FFFFF is ahead, + 0x800000 behind */
		{ 0x800002, 8, F_ONLY, NAK, 3, 2, 0, false, 0 },
		{ 0x800003, 8, F_ONLY, ACK, 2, 2, 0, false, 0 },
	};

	(void)state;
	run_rx(&r, c, RTE_DIM(c));
}

/* Drain the requester into @p out; @return the count. */
static unsigned int
drain(struct aifab_rc_req *q, uint64_t now, struct aifab_rc_pkt *out,
      unsigned int max)
{
	unsigned int n = 0;

	while (n < max && aifab_rc_req_next(q, now, &out[n]) == 0)
		n++;
	return n;
}

struct pkt_want {
	uint64_t cookie;
	uint32_t psn, offset, len, msg_len;
	uint8_t flags;
};

static void
check_pkts(const struct aifab_rc_pkt *p, const struct pkt_want *w,
	   unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++) {
		if (p[i].cookie != w[i].cookie || p[i].psn != w[i].psn ||
		    p[i].offset != w[i].offset || p[i].len != w[i].len ||
		    p[i].msg_len != w[i].msg_len || p[i].flags != w[i].flags)
			fail_msg("pkt %u: cookie %lu psn %u off %u len %u "
				 "msg %u flags %#x", i,
				 (unsigned long)p[i].cookie, p[i].psn,
				 p[i].offset, p[i].len, p[i].msg_len,
				 p[i].flags);
	}
}

static void
test_req_segmentation(void **state)
{
	struct aifab_rc_req *q = mkreq(7, 64, 1024, 1000000);
	struct aifab_rc_pkt p[8];
	static const struct pkt_want w[] = {
		{ 0xA, 7, 0, 1024, 2500, F_FIRST },
		{ 0xA, 8, 1024, 1024, 2500, 0 },
		{ 0xA, 9, 2048, 452, 2500, F_LAST | F_AR },
		{ 0xB, 10, 0, 1024, 1024, F_ONLY | F_AR },
		{ 0xC, 11, 0, 0, 0, F_ONLY | F_AR },
	};

	(void)state;
	assert_false(aifab_rc_req_can_send(q));
	assert_int_equal(aifab_rc_req_post(q, 0xA, 2500), 0);
	assert_int_equal(aifab_rc_req_post(q, 0xB, 1024), 0);
	assert_int_equal(aifab_rc_req_post(q, 0xC, 0), 0);
	assert_int_equal(drain(q, 0, p, 8), 5);
	check_pkts(p, w, 5);
	assert_false(aifab_rc_req_can_send(q));
	assert_int_equal(aifab_rc_req_next(q, 0, p), -EAGAIN);
	assert_int_equal(q->cnt[AIFAB_RC_REQ_CNT_TX_BYTES], 3524);
	assert_int_equal(q->cnt[AIFAB_RC_REQ_CNT_RETX_PACKETS], 0);
	free(q);
}

static void
test_req_window(void **state)
{
	struct aifab_rc_req *q = mkreq(0, 4, 256, 1000000);
	struct aifab_rc_pkt p[16];
	uint64_t ck[4];

	(void)state;
	assert_int_equal(aifab_rc_req_post(q, 1, 10 * 256), 0);
	assert_int_equal(drain(q, 0, p, 16), 4);
	assert_int_equal(p[3].psn, 3);
	assert_int_equal(aifab_rc_req_outstanding(q), 4);
	/* ACK of PSN 1 opens two slots. */
	assert_int_equal(aifab_rc_req_on_ack(q, 1, 10), 0);
	assert_int_equal(drain(q, 10, p, 16), 2);
	assert_int_equal(p[0].psn, 4);
	assert_int_equal(p[1].psn, 5);
	assert_int_equal(p[1].offset, 5 * 256);
	assert_int_equal(aifab_rc_req_on_ack(q, 5, 20), 0);
	assert_int_equal(drain(q, 20, p, 16), 4);
	assert_int_equal(p[3].psn, 9);
	assert_int_equal(p[3].flags, F_LAST | F_AR);
	assert_int_equal(aifab_rc_req_reap(q, ck, 4), 0);
	assert_int_equal(aifab_rc_req_on_ack(q, 9, 30), 1);
	assert_int_equal(aifab_rc_req_reap(q, ck, 4), 1);
	assert_int_equal(ck[0], 1);
	assert_int_equal(aifab_rc_req_outstanding(q), 0);
	free(q);
}

/* Messages of 4, 3 and 2 packets at MTU 256: PSNs 10..18. */
static struct aifab_rc_req *
three_msgs(uint32_t psn, struct aifab_rc_pkt *p)
{
	struct aifab_rc_req *q = mkreq(psn, 16, 256, 1000000);

	assert_int_equal(aifab_rc_req_post(q, 100, 1000), 0);
	assert_int_equal(aifab_rc_req_post(q, 101, 600), 0);
	assert_int_equal(aifab_rc_req_post(q, 102, 300), 0);
	assert_int_equal(drain(q, 0, p, 16), 9);
	return q;
}

static void
test_req_go_back_n(void **state)
{
	struct aifab_rc_pkt p[16];
	struct aifab_rc_req *q = three_msgs(10, p);
	/* Re-sent from PSN 12 exactly as first sent, flagged RETX. */
	static const struct pkt_want w[] = {
		{ 100, 12, 512, 256, 1000, F_RETX },
		{ 100, 13, 768, 232, 1000, F_LAST | F_AR | F_RETX },
		{ 101, 14, 0, 256, 600, F_FIRST | F_RETX },
		{ 101, 15, 256, 256, 600, F_RETX },
		{ 101, 16, 512, 88, 600, F_LAST | F_AR | F_RETX },
		{ 102, 17, 0, 256, 300, F_FIRST | F_RETX },
		{ 102, 18, 256, 44, 300, F_LAST | F_AR | F_RETX },
	};
	uint64_t ck[4];

	(void)state;
	/* NAK 12: 10 and 11 are acknowledged, no message ends there. */
	assert_int_equal(aifab_rc_req_on_nak(q, 12, 100), 0);
	assert_int_equal(aifab_rc_req_outstanding(q), 7);
	assert_int_equal(drain(q, 100, p, 16), 7);
	check_pkts(p, w, 7);
	/* 256 + 232 + 256 + 256 + 88 + 256 + 44 */
	assert_int_equal(q->cnt[AIFAB_RC_REQ_CNT_RETX_BYTES], 1388);
	assert_int_equal(q->cnt[AIFAB_RC_REQ_CNT_RETX_PACKETS], 7);
	assert_int_equal(q->cnt[AIFAB_RC_REQ_CNT_TX_BYTES], 1900);
	assert_int_equal(q->cnt[AIFAB_RC_REQ_CNT_NAKS_RX], 1);
	/* A NAK that acks 12..15 completes message 100 (last PSN 13). */
	assert_int_equal(aifab_rc_req_on_nak(q, 16, 200), 1);
	assert_int_equal(drain(q, 200, p, 16), 3);
	assert_int_equal(p[0].psn, 16);
	assert_int_equal(q->cnt[AIFAB_RC_REQ_CNT_RETX_BYTES], 1388 + 388);
	assert_int_equal(aifab_rc_req_on_ack(q, 18, 300), 2);
	assert_int_equal(aifab_rc_req_reap(q, ck, 4), 3);
	assert_int_equal(ck[0], 100);
	assert_int_equal(ck[1], 101);
	assert_int_equal(ck[2], 102);
	free(q);
}

static void
test_req_timeout(void **state)
{
	/* exp 14 = 67108864 ns = 134217728 cycles at 2 GHz. */
	struct aifab_rc_req *q = mkreq(0, 16, 256, 4096ull << 14);
	const uint64_t to = 134217728, t0 = 5000;
	struct aifab_rc_pkt p[16];

	(void)state;
	assert_false(aifab_rc_req_poll_timeout(q, t0 + 10 * to));
	assert_int_equal(aifab_rc_req_post(q, 1, 768), 0);
	assert_int_equal(drain(q, t0, p, 16), 3);
	assert_false(aifab_rc_req_poll_timeout(q, t0 + to - 1));
	assert_true(aifab_rc_req_poll_timeout(q, t0 + to));
	assert_int_equal(q->cnt[AIFAB_RC_REQ_CNT_TIMEOUTS], 1);
	/* Everything from PSN 0 again. */
	assert_int_equal(drain(q, t0 + to, p, 16), 3);
	assert_int_equal(p[0].psn, 0);
	assert_int_equal(p[0].flags, F_FIRST | F_RETX);
	assert_int_equal(q->cnt[AIFAB_RC_REQ_CNT_RETX_BYTES], 768);
	/* The timer restarted at the timeout, and again at progress. */
	assert_false(aifab_rc_req_poll_timeout(q, t0 + 2 * to - 1));
	assert_int_equal(aifab_rc_req_on_ack(q, 0, t0 + 2 * to - 1), 0);
	assert_false(aifab_rc_req_poll_timeout(q, t0 + 3 * to - 2));
	/* A duplicate ACK is not progress. */
	assert_int_equal(aifab_rc_req_on_ack(q, 0, t0 + 3 * to - 2), 0);
	assert_true(aifab_rc_req_poll_timeout(q, t0 + 3 * to - 1));
	assert_int_equal(drain(q, t0 + 3 * to, p, 16), 2);
	assert_int_equal(p[0].psn, 1);
	assert_int_equal(aifab_rc_req_on_ack(q, 2, t0 + 3 * to), 1);
	/* Nothing outstanding: no timeout ever. */
	assert_false(aifab_rc_req_poll_timeout(q, t0 + 100 * to));
	assert_int_equal(q->cnt[AIFAB_RC_REQ_CNT_TIMEOUTS], 2);
	assert_int_equal(q->cnt[AIFAB_RC_REQ_CNT_DUP_ACKS], 1);
	free(q);
}

static void
test_req_wrap_and_bad_aeth(void **state)
{
	struct aifab_rc_pkt p[16];
	struct aifab_rc_req *q = three_msgs(0xFFFFFD, p);
	uint64_t ck[4];

	(void)state;
	/* PSNs FFFFFD FFFFFE FFFFFF 0 | 1 2 3 | 4 5. */
	assert_int_equal(p[3].psn, 0);
	assert_int_equal(p[3].flags, F_LAST | F_AR);
	assert_int_equal(p[8].psn, 5);
	/* Out of range: beyond the highest sent, or before the oldest. */
	assert_int_equal(aifab_rc_req_on_ack(q, 6, 0), 0);
	assert_int_equal(aifab_rc_req_on_nak(q, 6, 0), 0);
	assert_int_equal(aifab_rc_req_on_ack(q, 0xFFFFF0, 0), 0);
	assert_int_equal(q->cnt[AIFAB_RC_REQ_CNT_BAD_AETH], 3);
	assert_int_equal(aifab_rc_req_outstanding(q), 9);
	/* ACK 0 across the wrap completes message 100. */
	assert_int_equal(aifab_rc_req_on_ack(q, 0, 1), 1);
	assert_int_equal(aifab_rc_req_outstanding(q), 5);
	/* NAK 0xFFFFFF is now stale; NAK 2 goes back to 2. */
	assert_int_equal(aifab_rc_req_on_nak(q, 0xFFFFFF, 2), 0);
	assert_int_equal(q->cnt[AIFAB_RC_REQ_CNT_BAD_AETH], 4);
	assert_int_equal(aifab_rc_req_on_nak(q, 2, 2), 0);
	assert_int_equal(drain(q, 2, p, 16), 4);
	assert_int_equal(p[0].psn, 2);
	assert_int_equal(p[0].offset, 256);
	assert_int_equal(p[0].cookie, 101);
	assert_int_equal(q->cnt[AIFAB_RC_REQ_CNT_RETX_BYTES],
			 256 + 88 + 256 + 44);
	assert_int_equal(aifab_rc_req_on_ack(q, 5, 3), 2);
	assert_int_equal(aifab_rc_req_reap(q, ck, 1), 1);
	assert_int_equal(aifab_rc_req_reap(q, ck, 4), 2);
	assert_int_equal(ck[1], 102);
	free(q);
}

static void
test_params_and_queue_full(void **state)
{
	struct aifab_rc_req_params p = {
		.init_psn = 0, .window = 8, .max_msgs = 2, .mtu = 1024,
		.timeout_ns = 1000, .tsc_hz = HZ,
	}, bad;
	struct aifab_rc_resp_params rp = { .init_psn = 0x1000000,
					   .ack_every = 1 };
	struct aifab_rc_resp r;
	struct aifab_rc_req *q;
	struct aifab_rc_pkt pkt;
	uint64_t ck;

	(void)state;
	assert_int_equal(aifab_rc_resp_init(&r, &rp), -EINVAL);
	rp.init_psn = 0;
	rp.ack_every = 0;
	assert_int_equal(aifab_rc_resp_init(&r, &rp), -EINVAL);
	bad = p; bad.mtu = 1000;
	assert_int_equal(aifab_rc_req_memsize(&bad), 0);
	bad = p; bad.window = 0;
	assert_int_equal(aifab_rc_req_memsize(&bad), 0);
	bad = p; bad.window = AIFAB_RC_MAX_WINDOW + 1;
	assert_int_equal(aifab_rc_req_memsize(&bad), 0);
	bad = p; bad.init_psn = 0x1000000;
	assert_int_equal(aifab_rc_req_memsize(&bad), 0);
	bad = p; bad.timeout_ns = 0;
	assert_int_equal(aifab_rc_req_memsize(&bad), 0);

	q = calloc(1, aifab_rc_req_memsize(&p));
	assert_non_null(q);
	assert_int_equal(aifab_rc_req_init(q, &bad), -EINVAL);
	assert_int_equal(aifab_rc_req_init(q, &p), 0);
	assert_int_equal(aifab_rc_req_post(q, 1, 10), 0);
	assert_int_equal(aifab_rc_req_post(q, 2, 10), 0);
	assert_int_equal(aifab_rc_req_post(q, 3, 10), -ENOBUFS);
	assert_int_equal(aifab_rc_req_next(q, 0, &pkt), 0);
	assert_int_equal(aifab_rc_req_on_ack(q, 0, 0), 1);
	/* Completed but not reaped still holds its place. */
	assert_int_equal(aifab_rc_req_post(q, 3, 10), -ENOBUFS);
	assert_int_equal(aifab_rc_req_reap(q, &ck, 1), 1);
	assert_int_equal(aifab_rc_req_post(q, 3, 10), 0);
	assert_string_equal(aifab_rc_req_cnt_name(AIFAB_RC_REQ_CNT_NAKS_RX),
			    "naks_rx");
	assert_string_equal(aifab_rc_resp_cnt_name(AIFAB_RC_RESP_CNT_NAKS_TX),
			    "naks_tx");
	free(q);
}

/*
 * Requester and responder over a lossy in-order link (seeded drops of data
 * and of ACK/NAKs, 1 us per round). Oracle: the posted messages. Every one
 * must be delivered exactly once, in order, with its length, and reaped in
 * post order; new bytes sent equal posted bytes.
 */
static void
test_loopback_lossy(void **state)
{
	enum { N_MSGS = 300, BURST = 8, LOSS_PCT = 10 };
	struct aifab_rc_req *q = mkreq(0xFFFF00, 32, 256, 50000);
	struct aifab_rc_resp r = mkresp(0xFFFF00, 4);
	static uint32_t len[N_MSGS];
	struct aifab_rng rng;
	uint64_t now = 0, posted = 0, retx_seen = 0, delivered = 0;
	unsigned int i, posted_n = 0, done_rx = 0, reaped = 0, rounds = 0;

	(void)state;
	aifab_rng_seed(&rng, 2024, 0);
	for (i = 0; i < N_MSGS; i++)
		len[i] = (uint32_t)(aifab_rng_u64(&rng) % 5000);
	while (reaped < N_MSGS) {
		struct aifab_rc_pkt pkt;
		struct aifab_rc_resp_action a;
		uint64_t ck[8];
		unsigned int k, n;

		assert_true(++rounds < 1000000);
		now += HZ / 1000000;
		while (posted_n < N_MSGS &&
		       aifab_rc_req_post(q, posted_n, len[posted_n]) == 0)
			posted += len[posted_n++];
		aifab_rc_req_poll_timeout(q, now);
		for (k = 0; k < BURST && aifab_rc_req_next(q, now, &pkt) == 0;
		     k++) {
			assert_true(aifab_rc_req_outstanding(q) <= 32);
			if (pkt.flags & F_RETX)
				retx_seen += pkt.len;
			if (aifab_rng_u64(&rng) % 100 < LOSS_PCT)
				continue;
			aifab_rc_resp_on_data(&r, pkt.psn, pkt.len,
					      pkt.flags, &a);
			delivered += a.delivered_bytes;
			if (a.message_completed) {
				assert_true(done_rx < N_MSGS);
				assert_int_equal(a.message_bytes,
						 len[done_rx]);
				done_rx++;
			}
			if (a.reply == NONE ||
			    aifab_rng_u64(&rng) % 100 < LOSS_PCT)
				continue;
			if (a.reply == ACK)
				aifab_rc_req_on_ack(q, a.psn, now);
			else
				aifab_rc_req_on_nak(q, a.psn, now);
		}
		n = aifab_rc_req_reap(q, ck, RTE_DIM(ck));
		for (k = 0; k < n; k++)
			assert_int_equal(ck[k], reaped++);
	}
	assert_int_equal(done_rx, N_MSGS);
	assert_int_equal(delivered, posted);
	assert_int_equal(r.msn, N_MSGS);
	assert_int_equal(q->cnt[AIFAB_RC_REQ_CNT_TX_BYTES], posted);
	assert_int_equal(q->cnt[AIFAB_RC_REQ_CNT_RETX_BYTES], retx_seen);
	/* With 10% loss both recovery paths must have run. */
	assert_true(q->cnt[AIFAB_RC_REQ_CNT_NAKS_RX] > 0);
	assert_true(q->cnt[AIFAB_RC_REQ_CNT_TIMEOUTS] > 0);
	assert_true(retx_seen > 0);
	free(q);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_psn_arith),
		cmocka_unit_test(test_opcodes),
		cmocka_unit_test(test_resp_in_order),
		cmocka_unit_test(test_resp_nak_once_per_gap),
		cmocka_unit_test(test_resp_duplicates),
		cmocka_unit_test(test_resp_wrap),
		cmocka_unit_test(test_req_segmentation),
		cmocka_unit_test(test_req_window),
		cmocka_unit_test(test_req_go_back_n),
		cmocka_unit_test(test_req_timeout),
		cmocka_unit_test(test_req_wrap_and_bad_aeth),
		cmocka_unit_test(test_params_and_queue_full),
		cmocka_unit_test(test_loopback_lossy),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
