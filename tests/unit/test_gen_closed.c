/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The generator's closed loop on a fake clock (1 cycle = 1 ns, one poll per
 * microsecond), over a port made of two rings (rte_eth_from_rings): after
 * every poll the test takes what the generator sent from its TX ring,
 * decodes it with its own fixed-offset reader (not lib/pkt), records it,
 * and decides what reaches the generator's RX ring on the next poll:
 * delivered, dropped, held back, or CE-marked (IPv4 checksum recomputed
 * here from scratch). PFC frames are written byte by byte from
 * PROTOCOLS.md and injected the same way.
 *
 * Checked against these records, not against the generator's own view:
 *  - the step dependency: a rank's first packet of step k+1 never leaves
 *    before the poll in which its predecessor's step-k chunk completed;
 *    holding one rank's chunk back D us delays the collective by ~D;
 *  - go-back-N: one dropped data packet gives exactly one NAK (AETH 0x60,
 *    its PSN, to the sender's QP, valid ICRC) and the sender resends
 *    exactly the PSNs from the dropped one to the highest sent before the
 *    NAK arrived; a lost last packet is resent after the timeout from the
 *    first unacknowledged PSN;
 *  - CE: CE-marked data gives CNPs (0x81, BECN, 16 zero bytes, DSCP 48,
 *    valid ICRC) to the sender's QP at most one per 50 us, and DCQCN
 *    lowers that QP's rate;
 *  - per QP: with 32 QPs, the 16 listed are the slowest (the CE-marked
 *    rank's QPs first, cut below the rate), and the spread agrees;
 *  - channel_dscp: each channel's data and ACKs carry its DSCP/ECN;
 *  - payload: a trailer after the IP datagram (padding a NIC left) is
 *    not counted as delivered payload (the IP/UDP length is);
 *  - PFC: XOFF for the data priority stops every data/ACK frame for
 *    quanta x 512 bit times at the port speed, XON resumes at once, a
 *    pause of another priority stops nothing; the paused time reported
 *    equals the computed one.
 * The same checks run again with the ranks sharded over 2 and 3 generator
 * workers ([generator] lcores), each with its own TX queue of the port,
 * polled in order each step: a PFC pause silences every worker's frames.
 * And again with next_event() asked before each poll, as the
 * whole-process virtual clock does: that switches on the generator's
 * rank sets (a poll visits only the ranks whose poll may change
 * something, generator_vclock.c); every frame, and the poll that sent
 * it, must be those of the run that visits every rank.
 * The ICRC checker is a bitwise CRC-32 over the masked bytes, itself
 * checked on PROTOCOLS.md's test vector.
 */
#include <errno.h>
#include <inttypes.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
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
#include <rte_eth_ring.h>
#include <rte_ethdev.h>
#include <rte_mbuf.h>
#include <rte_ring.h>

#include "aifab_eal.h"
#include "generator.h"
#include "unit_judges.h"

#define TSC_HZ 1000000000ull
#define TICK 1000ull
#define N_RANKS 4
#define MTU 1024
#define SIZE (N_RANKS * 8 * MTU)     /* chunk: 8 packets */
#define ITERS 2
#define QPN_BASE 0x100
#define BASE_IP 0x0A640001u
#define SPEED_MBPS 100000
#define RATE_MBPS 10000
#define RING_SZ 4096
#define FRAME_MAX 9216
#define MAX_HELD 4096
#define MAX_WORKERS 3        /* the port's TX queues, all into one ring */

/* ---- frames as the test reads them ------------------------------------------ */

struct frame {
	uint64_t t;              /* poll that sent it */
	uint32_t len;
	bool roce, pfc;
	uint8_t tos, op;
	uint32_t sip, dip;       /* host order */
	uint32_t dqpn, psn;
	bool ack_req, becn, icrc_ok;
	uint32_t payload;        /* data: payload bytes */
	bool tag;
	uint16_t rank, step;
	uint32_t iter;
	uint8_t syndrome;
	uint32_t msn;
	bool zeros16;            /* CNP: 16 zero bytes after the BTH */
};

/* ICRC per PROTOCOLS.md: 8 x 0xFF, IPv4 .. payload with TOS, TTL, IP
 * checksum, UDP checksum and BTH byte 4 as ones; stored little-endian. */
static bool
icrc_ok(const uint8_t *f, uint32_t len)
{
	uint8_t buf[FRAME_MAX + 8];
	uint32_t n = len - 14 - 4, want;

	memset(buf, 0xFF, 8);
	memcpy(buf + 8, f + 14, n);
	buf[8 + 1] = 0xFF;                      /* TOS */
	buf[8 + 8] = 0xFF;                      /* TTL */
	buf[8 + 10] = buf[8 + 11] = 0xFF;       /* IP checksum */
	buf[8 + 26] = buf[8 + 27] = 0xFF;       /* UDP checksum */
	buf[8 + 28 + 4] = 0xFF;                 /* BTH FECN/BECN byte */
	want = (uint32_t)f[len - 4] | (uint32_t)f[len - 3] << 8 |
		(uint32_t)f[len - 2] << 16 | (uint32_t)f[len - 1] << 24;
	return unit_crc32(buf, 8 + n) == want;
}

static uint32_t
be32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 |
		(uint32_t)p[2] << 8 | p[3];
}

static uint32_t
be24(const uint8_t *p)
{
	return (uint32_t)p[0] << 16 | (uint32_t)p[1] << 8 | p[2];
}

static void
decode(const uint8_t *f, uint32_t len, struct frame *fr)
{
	uint32_t off;

	memset(fr, 0, sizeof(*fr));
	fr->len = len;
	if (len >= 60 && f[12] == 0x88 && f[13] == 0x08) {
		fr->pfc = true;
		return;
	}
	if (len < 14 + 20 + 8 + 12 + 4 || f[12] != 0x08 || f[13] != 0x00 ||
	    f[23] != 17 || (f[36] << 8 | f[37]) != 4791)
		return;
	fr->roce = true;
	fr->tos = f[15];
	fr->sip = be32(f + 26);
	fr->dip = be32(f + 30);
	fr->op = f[42];
	fr->becn = f[46] & 0x40;
	fr->dqpn = be24(f + 47);
	fr->ack_req = f[50] & 0x80;
	fr->psn = be24(f + 51);
	fr->icrc_ok = icrc_ok(f, len);
	off = 54;
	if (fr->op == 0x11) {
		fr->syndrome = f[off];
		fr->msn = be24(f + off + 1);
		return;
	}
	if (fr->op == 0x81) {
		uint32_t i;

		fr->zeros16 = len == 74;
		for (i = 0; fr->zeros16 && i < 16; i++)
			fr->zeros16 = f[off + i] == 0;
		return;
	}
	if (fr->op == 0x06 || fr->op == 0x0A)
		off += 16; /* RETH */
	fr->payload = len - off - ((f[43] >> 4) & 3) - 4;
	if (fr->payload >= 24 && be32(f + off) == 0x41494642u) {
		fr->tag = true;
		fr->rank = (uint16_t)(f[off + 4] << 8 | f[off + 5]);
		fr->step = (uint16_t)(f[off + 6] << 8 | f[off + 7]);
		fr->iter = be32(f + off + 8);
	}
}

static bool
is_data(const struct frame *f)
{
	return f->roce && f->op <= 0x0B;
}

static bool
is_last(const struct frame *f)
{
	return f->op == 0x08 || f->op == 0x0A;
}

/* ---- the harness -------------------------------------------------------------- */

enum verdict { DELIVER, DROP, HOLD, MARK_CE, PAD };

struct harness;
typedef enum verdict (*hook_fn)(struct harness *h, const struct frame *f);

struct held {
	struct rte_mbuf *m;
};

struct harness {
	void *g;
	uint64_t now, t0;
	hook_fn hook;
	uint64_t release_at;     /* HOLD: delivered from this poll on */
	struct rte_mbuf *held[MAX_HELD];
	unsigned int n_held;
	struct frame *rec;
	unsigned int n_rec, cap_rec;
	/* per-test state */
	uint32_t drop_qpn, drop_psn;
	bool dropped;
	uint32_t hold_rank;
	uint32_t ce_qpn;
};

static struct {
	struct rte_ring *rx, *tx;
	int port;
	struct rte_mempool *pool;
	char run_dir[512];
	/* generator workers of the test running (ranks round robin): each
	 * its own TX queue of the port; polled in order every step */
	unsigned int workers;
	/* next_event() before each poll (the virtual clock's rank sets) */
	bool vclock;
	/* harness_end() hands its records here instead of freeing them */
	struct harness *keep;
} env = { .workers = 1 };

static void
gen_params(struct aifab_gen_params *p)
{
	aifab_gen_params_defaults(p);
	p->n_ranks = N_RANKS;
	p->size = SIZE;
	p->ib_mtu = MTU;
	p->iterations = ITERS;
	p->warmup = 0;
	p->rate_mbps = RATE_MBPS;
	p->seed = 11;
	p->mbufs = 4096;
	p->qpn_base = QPN_BASE;
	p->closed_loop = true;
	p->window = 16;
	p->ack_every = 4;
	p->retx_timeout_ns = 1000000; /* 1 ms */
	p->dcqcn = false;
}

static void *
gen_make(const struct aifab_gen_params *p)
{
	static struct aifab_port_rt port0;
	struct aifab_env e = { .n_ports = 1, .tsc_hz = TSC_HZ,
			       .ports = &port0 };
	char err[512];
	void *g;

	e.ports[0] = (struct aifab_port_rt){
		.name = "p0", .port_id = (uint16_t)env.port, .nb_rxq = 1,
		.nb_txq = MAX_WORKERS, .mtu = 9000, .speed_mbps = SPEED_MBPS,
		.pool = env.pool,
	};
	g = aifab_gen_create(&e, p, env.workers, err, sizeof(err));
	if (g == NULL)
		fail_msg("aifab_gen_create: %s", err);
	return g;
}

static void
record(struct harness *h, const struct frame *f)
{
	if (h->n_rec == h->cap_rec) {
		h->cap_rec = h->cap_rec ? 2 * h->cap_rec : 4096;
		h->rec = realloc(h->rec, sizeof(*h->rec) * h->cap_rec);
		assert_non_null(h->rec);
	}
	h->rec[h->n_rec++] = *f;
}

/* Set CE (unit_ipv4_set_ce()) on the IPv4 frame in @p m. */
static void
set_ce(struct rte_mbuf *m)
{
	unit_ipv4_set_ce(rte_pktmbuf_mtod_offset(m, uint8_t *, 14));
}

/* A trailer after the IP datagram (as a NIC that does not strip padding
 * or an FCS would leave): not payload. */
#define TRAILER 18

static void
add_trailer(struct rte_mbuf *m)
{
	char *t = rte_pktmbuf_append(m, TRAILER);

	if (t == NULL)
		fail_msg("no tailroom for a %u-byte trailer", TRAILER);
	memset(t, 0xA5, TRAILER);
}

static void
to_rx(struct rte_mbuf *m)
{
	if (rte_ring_enqueue(env.rx, m) != 0) {
		rte_pktmbuf_free(m);
		fail_msg("generator RX ring full");
	}
}

/* One poll at h->now, then the network's turn; the clock moves on. */
static void
step(struct harness *h)
{
	struct rte_mbuf *pkts[64];
	uint8_t flat[FRAME_MAX];
	unsigned int n, i;

	for (i = 0; i < env.workers; i++) {
		if (env.vclock)
			(void)aifab_generator_ops.next_event(h->g, i, h->now);
		aifab_generator_ops.poll(h->g, i, h->now);
	}
	if (h->n_held > 0 && h->now + TICK >= h->release_at) {
		for (i = 0; i < h->n_held; i++)
			to_rx(h->held[i]);
		h->n_held = 0;
	}
	while ((n = rte_ring_dequeue_burst(env.tx, (void **)pkts,
					   RTE_DIM(pkts), NULL)) > 0) {
		for (i = 0; i < n; i++) {
			struct rte_mbuf *m = pkts[i];
			const uint8_t *f = rte_pktmbuf_read(m, 0, m->pkt_len,
							    flat);
			struct frame fr;
			enum verdict v;

			assert_non_null(f);
			decode(f, m->pkt_len, &fr);
			fr.t = h->now;
			record(h, &fr);
			v = h->hook != NULL ? h->hook(h, &fr) : DELIVER;
			if (v == DELIVER && h->n_held > 0 &&
			    is_data(&fr) && fr.sip == BASE_IP + h->hold_rank)
				v = HOLD; /* keep the held QP in order */
			switch (v) {
			case DROP:
				rte_pktmbuf_free(m);
				break;
			case HOLD:
				assert_true(h->n_held < MAX_HELD);
				h->held[h->n_held++] = m;
				break;
			case MARK_CE:
				set_ce(m);
				to_rx(m);
				break;
			case PAD:
				add_trailer(m);
				to_rx(m);
				break;
			default:
				to_rx(m);
			}
		}
	}
	h->now += TICK;
}

static void
run(struct harness *h, unsigned int max_polls)
{
	unsigned int i;

	h->t0 = h->now;
	for (i = 0; i < max_polls && !aifab_generator_ops.done(h->g); i++)
		step(h);
	assert_true(aifab_generator_ops.done(h->g));
	/* What is still in flight (duplicate ACKs...) arrives; then drain. */
	step(h);
	step(h);
	for (i = 0; i < env.workers; i++)
		aifab_generator_ops.drain(h->g, i, h->now);
}

static void
harness_start(struct harness *h, const struct aifab_gen_params *p)
{
	memset(h, 0, sizeof(*h));
	h->now = 5 * TSC_HZ;
	h->g = gen_make(p);
}

static void
harness_end(struct harness *h)
{
	struct rte_mbuf *m;
	unsigned int i;

	for (i = 0; i < h->n_held; i++)
		rte_pktmbuf_free(h->held[i]);
	while (rte_ring_dequeue(env.tx, (void **)&m) == 0)
		rte_pktmbuf_free(m);
	while (rte_ring_dequeue(env.rx, (void **)&m) == 0)
		rte_pktmbuf_free(m);
	aifab_generator_ops.fini(h->g);
	if (env.keep != NULL && h->n_rec > 0) { /* appended: a test may
						 * run several harnesses */
		struct harness *k = env.keep;

		k->rec = realloc(k->rec, sizeof(*k->rec) * (k->n_rec +
							   h->n_rec));
		MUST(k->rec);
		memcpy(k->rec + k->n_rec, h->rec, sizeof(*h->rec) * h->n_rec);
		k->n_rec += h->n_rec;
	}
	free(h->rec);
	h->rec = NULL;
}

/* ---- fixtures ------------------------------------------------------------------- */

static int
eal_up(void **state)
{
	struct rte_eth_conf conf = { 0 };
	struct rte_ring *txr[MAX_WORKERS];
	uint16_t q;

	(void)state;
	if (aifab_eal_init_private("test_gen_closed", env.run_dir,
				   sizeof(env.run_dir)) != 0)
		return -1;
	env.pool = rte_pktmbuf_pool_create("tgc_pool", 8191, 256, 0,
					   RTE_MBUF_DEFAULT_BUF_SIZE, 0);
	env.rx = rte_ring_create("tgc_rx", RING_SZ, 0,
				 RING_F_SP_ENQ | RING_F_SC_DEQ);
	env.tx = rte_ring_create("tgc_tx", RING_SZ, 0, RING_F_SC_DEQ);
	if (env.pool == NULL || env.rx == NULL || env.tx == NULL)
		return -1;
	for (q = 0; q < MAX_WORKERS; q++)
		txr[q] = env.tx;
	env.port = rte_eth_from_rings("tgc_port", &env.rx, 1, txr,
				      MAX_WORKERS, 0);
	if (env.port < 0 ||
	    rte_eth_dev_configure((uint16_t)env.port, 1, MAX_WORKERS,
				  &conf) != 0 ||
	    rte_eth_rx_queue_setup((uint16_t)env.port, 0, 256, 0, NULL,
				   env.pool) != 0)
		return -1;
	for (q = 0; q < MAX_WORKERS; q++)
		if (rte_eth_tx_queue_setup((uint16_t)env.port, q, 256, 0,
					   NULL) != 0)
			return -1;
	return rte_eth_dev_start((uint16_t)env.port) != 0 ? -1 : 0;
}

static int
eal_down(void **state)
{
	(void)state;
	rte_eth_dev_stop((uint16_t)env.port);
	rte_eth_dev_close((uint16_t)env.port);
	rte_ring_free(env.rx);
	rte_ring_free(env.tx);
	rte_mempool_free(env.pool);
	rte_eal_cleanup();
	aifab_eal_remove_runtime_dir(env.run_dir);
	return 0;
}

/* ---- the ICRC checker itself ------------------------------------------------ */

static void
test_icrc_checker(void **state)
{
	static const char hex[] =
		"0200000000020200000000010800456a003c00010000401166440a000001"
		"0a000002c00012b7002800000400ffff0000001280000005";
	uint8_t f[128];
	size_t n = 0, i;

	(void)state;
	for (i = 0; hex[i] != '\0'; i += 2) {
		unsigned int b;

		sscanf(hex + i, "%2x", &b);
		f[n++] = (uint8_t)b;
	}
	memset(f + n, 0x41, 16);
	n += 16;
	memcpy(f + n, "\x8a\x62\x29\x3a", 4);
	n += 4;
	assert_true(icrc_ok(f, (uint32_t)n));
	f[n - 1] ^= 1;
	assert_false(icrc_ok(f, (uint32_t)n));
}

/* ---- closed loop: the step dependency ------------------------------------------- */

/* Per (iteration, rank, step): first data packet sent; completion of the
 * chunk the rank received in that step (the poll that received the last
 * packet: one after it was sent). */
struct dep_times {
	uint64_t first_send[ITERS][N_RANKS][2 * (N_RANKS - 1)];
	uint64_t delivered[ITERS][N_RANKS][2 * (N_RANKS - 1)];
};

static void
dep_times(const struct harness *h, struct dep_times *d)
{
	unsigned int i;

	memset(d, 0, sizeof(*d));
	for (i = 0; i < h->n_rec; i++) {
		const struct frame *f = &h->rec[i];
		uint32_t dst = f->dip - BASE_IP;

		if (!is_data(f))
			continue;
		assert_true(f->tag && f->iter < ITERS && f->rank < N_RANKS &&
			    f->step < 2 * (N_RANKS - 1) && dst < N_RANKS);
		if (d->first_send[f->iter][f->rank][f->step] == 0)
			d->first_send[f->iter][f->rank][f->step] = f->t;
		if (is_last(f))
			d->delivered[f->iter][dst][f->step] = f->t + TICK;
	}
}

static double
coll_time_us(void *g, unsigned int it)
{
	struct aifab_gen_summary s;

	aifab_gen_summary(g, &s);
	assert_true(it < s.n_iter);
	return s.iter_us[it];
}

static void
test_dependency(void **state)
{
	struct aifab_gen_params p;
	struct aifab_gen_summary s;
	struct harness h;
	struct dep_times *d = calloc(1, sizeof(*d));
	unsigned int it, r, k, same_poll = 0, i;

	(void)state;
	assert_non_null(d);
	gen_params(&p);
	harness_start(&h, &p);
	run(&h, 200000);
	aifab_gen_summary(h.g, &s);
	assert_int_equal(s.iterations, ITERS);
	assert_true(s.closed_loop);
	assert_int_equal(s.retx_packets, 0);
	assert_int_equal(s.naks_tx, 0);
	assert_int_equal(s.timeouts, 0);
	dep_times(&h, d);
	for (it = 0; it < ITERS; it++)
		for (r = 0; r < N_RANKS; r++)
			for (k = 1; k < 2 * (N_RANKS - 1); k++) {
				uint64_t sent = d->first_send[it][r][k];
				uint64_t got = d->delivered[it][r][k - 1];

				assert_true(sent != 0 && got != 0);
				if (sent < got)
					fail_msg("iter %u rank %u sent step %u "
						 "at %" PRIu64 " before step %u "
						 "arrived at %" PRIu64, it, r, k,
						 sent, k - 1, got);
				same_poll += sent == got;
			}
	/* The loop reacts: most steps start in the very poll that
	 * completed the previous one. */
	assert_true(same_poll > ITERS * N_RANKS);
	/* Every ACK goes to a sender QP (even), valid ICRC, syndrome ACK. */
	for (i = 0; i < h.n_rec; i++) {
		const struct frame *f = &h.rec[i];

		if (!f->roce || f->op != 0x11)
			continue;
		assert_true(f->icrc_ok);
		assert_int_equal(f->syndrome, 0x1F);
		assert_int_equal((f->dqpn - QPN_BASE) % 2, 0);
	}
	harness_end(&h);
	free(d);
}

/* ---- payload from the IP length, not the frame's --------------------------- */

static enum verdict
hook_pad(struct harness *h, const struct frame *f)
{
	(void)h;
	return is_data(f) ? PAD : DELIVER;
}

static void
test_trailer_not_payload(void **state)
{
	struct aifab_gen_params p;
	struct aifab_gen_summary s;
	struct harness h;
	uint64_t sent = 0;
	unsigned int i;

	(void)state;
	gen_params(&p);
	harness_start(&h, &p);
	h.hook = hook_pad;
	run(&h, 200000);
	aifab_gen_summary(h.g, &s);
	assert_int_equal(s.iterations, ITERS);
	assert_int_equal(s.retx_packets, 0);
	for (i = 0; i < h.n_rec; i++)
		if (is_data(&h.rec[i]))
			sent += h.rec[i].payload;
	/* Ring AllReduce: every rank sends 2(N-1) chunks of S/N per
	 * iteration, each delivered once; the trailers add nothing. */
	assert_int_equal(sent, (uint64_t)ITERS * 2 * (N_RANKS - 1) * SIZE);
	assert_int_equal(s.delivered_bytes, sent);
	harness_end(&h);
}

/* Hold rank 0's data of iteration 0 step 0 for HOLD_US: every rank waits. */
#define HOLD_US 300

static enum verdict
hook_hold(struct harness *h, const struct frame *f)
{
	if (is_data(f) && f->rank == h->hold_rank && f->iter == 0 &&
	    f->step == 0) {
		if (h->release_at == 0)
			h->release_at = f->t + HOLD_US * TICK;
		return HOLD;
	}
	return DELIVER;
}

static void
test_time_reacts(void **state)
{
	struct aifab_gen_params p;
	struct harness h;
	double base, held;

	(void)state;
	gen_params(&p);
	harness_start(&h, &p);
	run(&h, 200000);
	base = coll_time_us(h.g, 0);
	harness_end(&h);

	harness_start(&h, &p);
	h.hook = hook_hold;
	h.hold_rank = 0;
	run(&h, 200000);
	held = coll_time_us(h.g, 0);
	harness_end(&h);
	print_message("iteration 0: %.1f us, with rank 0's first chunk held "
		      "%u us: %.1f us\n", base, HOLD_US, held);
	/* The chunk's own sending overlaps the hold a little. */
	assert_true(held - base >= HOLD_US - 20);
	assert_true(held - base <= HOLD_US + 20);
}

/* ---- go-back-N ---------------------------------------------------------------- */

static enum verdict
hook_drop_once(struct harness *h, const struct frame *f)
{
	if (!h->dropped && is_data(f) && f->dqpn == h->drop_qpn &&
	    f->psn == h->drop_psn) {
		h->dropped = true;
		return DROP;
	}
	return DELIVER;
}

/* First PSN of the QP whose receiver is @p dqpn, from the records. */
static uint32_t
first_psn(const struct harness *h, uint32_t dqpn)
{
	unsigned int i;

	for (i = 0; i < h->n_rec; i++)
		if (is_data(&h->rec[i]) && h->rec[i].dqpn == dqpn)
			return h->rec[i].psn;
	fail_msg("no data on QP 0x%x", dqpn);
	return 0;
}

static void
test_go_back_n(void **state)
{
	struct aifab_gen_params p;
	struct aifab_gen_summary s;
	struct harness h;
	uint32_t qpn = QPN_BASE + 1, psn0, drop, hi = 0;
	uint64_t t_nak = 0, want_bytes = 0, want_pkts = 0, naks = 0;
	unsigned int i, k;

	(void)state;
	gen_params(&p);
	/* A first run tells which PSN the QP starts at (seeded). */
	harness_start(&h, &p);
	step(&h);
	step(&h);
	psn0 = first_psn(&h, qpn);
	harness_end(&h);
	drop = (psn0 + 5) & 0xFFFFFF;

	harness_start(&h, &p);
	h.hook = hook_drop_once;
	h.drop_qpn = qpn;
	h.drop_psn = drop;
	run(&h, 200000);
	aifab_gen_summary(h.g, &s);
	assert_true(h.dropped);
	assert_int_equal(s.iterations, ITERS);
	/* Exactly one NAK: PSN sequence error for the dropped PSN, to the
	 * sender's QP. */
	for (i = 0; i < h.n_rec; i++) {
		const struct frame *f = &h.rec[i];

		if (f->roce && f->op == 0x11 && f->syndrome == 0x60) {
			naks++;
			assert_int_equal(f->psn, drop);
			assert_int_equal(f->dqpn, qpn - 1);
			assert_true(f->icrc_ok);
			t_nak = f->t + TICK; /* the poll that receives it */
		}
	}
	assert_int_equal(naks, 1);
	/* Go-back-N resends what was sent from `drop` before the NAK
	 * arrived; at that poll, RX comes first, so frames of that poll
	 * are already retransmissions. */
	for (i = 0; i < h.n_rec; i++) {
		const struct frame *f = &h.rec[i];
		int32_t d = (int32_t)((f->psn - drop) << 8) >> 8;

		if (is_data(f) && f->dqpn == qpn && f->t < t_nak && d >= 0 &&
		    (uint32_t)d >= hi) {
			hi = (uint32_t)d + 1;
			want_pkts++;
			want_bytes += f->payload;
		}
	}
	/* ... and they are resent in order, starting at `drop`. */
	for (i = 0, k = 0; i < h.n_rec && k < want_pkts; i++) {
		const struct frame *f = &h.rec[i];

		if (is_data(f) && f->dqpn == qpn && f->t >= t_nak) {
			assert_int_equal(f->psn, (drop + k) & 0xFFFFFF);
			k++;
		}
	}
	assert_int_equal(k, want_pkts);
	print_message("dropped PSN %u: %" PRIu64 " packets (%" PRIu64
		      " bytes) resent\n", drop, want_pkts, want_bytes);
	assert_true(want_pkts >= 2);
	assert_int_equal(s.retx_packets, want_pkts);
	assert_int_equal(s.retx_bytes, want_bytes);
	assert_int_equal(s.naks_tx, 1);
	assert_int_equal(s.naks_rx, 1);
	assert_int_equal(s.timeouts, 0);
	harness_end(&h);
}

/* The last packet of the last message on a QP: no later packet shows the
 * gap, so only the retransmit timer recovers it. */
static void
test_timeout(void **state)
{
	struct aifab_gen_params p;
	struct aifab_gen_summary s;
	struct harness h;
	uint32_t qpn = QPN_BASE + 1, last = 0, una = 0;
	uint64_t t_drop = 0, t_retx = 0, t_prog = 0, want = 0;
	unsigned int i;
	bool found = false;

	(void)state;
	gen_params(&p);
	p.iterations = 1;
	harness_start(&h, &p);
	run(&h, 200000);
	for (i = 0; i < h.n_rec; i++)
		if (is_data(&h.rec[i]) && h.rec[i].dqpn == qpn) {
			last = h.rec[i].psn;
			found = true;
		}
	assert_true(found);
	harness_end(&h);

	harness_start(&h, &p);
	h.hook = hook_drop_once;
	h.drop_qpn = qpn;
	h.drop_psn = last;
	run(&h, 200000);
	aifab_gen_summary(h.g, &s);
	assert_true(h.dropped);
	for (i = 0; i < h.n_rec; i++) {
		const struct frame *f = &h.rec[i];

		if (!is_data(f) || f->dqpn != qpn)
			continue;
		if (f->psn == last && t_drop == 0)
			t_drop = f->t;
		else if (t_drop != 0 && t_retx == 0)
			t_retx = f->t; /* the first packet resent */
	}
	/* The ACKs that arrived before the resend tell the first
	 * unacknowledged PSN and when the sender last made progress (the
	 * responder coalesces: the lost AckReq packet got no ACK). */
	for (i = 0; i < h.n_rec; i++) {
		const struct frame *f = &h.rec[i];

		if (f->roce && f->op == 0x11 && f->dqpn == qpn - 1 &&
		    f->t + TICK <= t_retx &&
		    (una == 0 || ((f->psn + 1 - una) & 0xFFFFFF) != 0)) {
			una = (f->psn + 1) & 0xFFFFFF;
			t_prog = f->t + TICK;
		}
	}
	want = ((last - una) & 0xFFFFFF) + 1;
	print_message("last PSN %u lost; last progress %" PRIu64 " ns before, "
		      "resent after %" PRIu64 " ns: %" PRIu64 " packets from "
		      "PSN %u\n", last, t_drop - t_prog, t_retx - t_drop, want,
		      una);
	assert_int_equal(s.timeouts, 1);
	assert_int_equal(s.naks_tx, 0);
	assert_int_equal(s.retx_packets, want);
	/* The timer restarts with every ACK that makes progress: the resend
	 * comes exactly one timeout after the last one arrived. */
	assert_int_equal(t_retx - t_prog, p.retx_timeout_ns);
	harness_end(&h);
}

/* ---- CE -> CNP -> DCQCN ---------------------------------------------------------- */

/* Mark the QP's data CE during its first CE_US microseconds. */
#define CE_US 300

static enum verdict
hook_ce(struct harness *h, const struct frame *f)
{
	return is_data(f) && f->dqpn == h->ce_qpn &&
		f->t < h->t0 + CE_US * TICK ? MARK_CE : DELIVER;
}

static void
test_ce_cnp(void **state)
{
	struct aifab_gen_params p;
	struct aifab_gen_summary s;
	struct harness h;
	uint64_t last_t = 0, n_cnp = 0, n_ce_data = 0;
	unsigned int i;
	double base;

	(void)state;
	gen_params(&p);
	p.dcqcn = true;
	p.size = 16 * SIZE; /* long enough for several CNP intervals */
	harness_start(&h, &p);
	run(&h, 400000);
	base = coll_time_us(h.g, 0);
	harness_end(&h);

	harness_start(&h, &p);
	h.hook = hook_ce;
	h.ce_qpn = QPN_BASE + 1;
	run(&h, 400000);
	aifab_gen_summary(h.g, &s);
	for (i = 0; i < h.n_rec; i++) {
		const struct frame *f = &h.rec[i];

		if (is_data(f) && f->dqpn == h.ce_qpn && f->t < h.t0 + CE_US * TICK)
			n_ce_data++;
		if (!f->roce || f->op != 0x81)
			continue;
		n_cnp++;
		assert_int_equal(f->dqpn, QPN_BASE);   /* the sender's QP */
		assert_true(f->becn);
		assert_true(f->zeros16);
		assert_true(f->icrc_ok);
		assert_int_equal(f->tos >> 2, 48);
		/* Sent by the receiver (rank 1) to the sender (rank 0). */
		assert_int_equal(f->sip, BASE_IP + 1);
		assert_int_equal(f->dip, BASE_IP + 0);
		if (last_t != 0)
			assert_true(f->t - last_t >= 50000);
		last_t = f->t;
	}
	print_message("%" PRIu64 " CE-marked data packets, %" PRIu64 " CNPs; "
		      "QP rate min %.0f Mb/s; time %.1f -> %.1f us\n",
		      n_ce_data, n_cnp, s.qp_rate_min_mbps, base,
		      coll_time_us(h.g, 0));
	/* Paced: the first CE packet gets a CNP, then one per 50 us. */
	assert_true(n_ce_data >= 50);
	assert_true(n_cnp >= CE_US / 50 - 1 && n_cnp <= CE_US / 50 + 1);
	assert_int_equal(s.cnp_tx, n_cnp);
	assert_int_equal(s.cnp_rx, n_cnp);
	assert_int_equal(s.ce_rx, n_ce_data);
	assert_true(s.rate_cuts >= 1);
	assert_true(s.qp_rate_min_mbps < RATE_MBPS / 2);
	assert_true(coll_time_us(h.g, 0) > base);
	harness_end(&h);
}

/* ---- per-channel DSCP/ECN ------------------------------------------------------ */

static void
test_channel_dscp(void **state)
{
	static const uint8_t want[2] = { 10 << 2 | 2, 34 << 2 | 1 };
	struct aifab_gen_params p;
	struct harness h;
	unsigned int i, n_data[2] = { 0 }, n_ack[2] = { 0 };

	(void)state;
	gen_params(&p);
	p.n_channels = 2;
	p.channel_dscp = "10, 34/1";
	harness_start(&h, &p);
	run(&h, 200000);
	/* Ring, one QP per connection: rank r opens channel 0's connection
	 * then channel 1's, so connection i is channel i % 2; data goes to
	 * its receiver QPN (base + 2i + 1), ACKs to its sender's (base + 2i). */
	for (i = 0; i < h.n_rec; i++) {
		const struct frame *f = &h.rec[i];
		uint32_t c = ((f->dqpn - QPN_BASE) / 2) % 2;

		if (!f->roce || (!is_data(f) && f->op != 0x11))
			continue;
		assert_int_equal(f->tos, want[c]);
		if (is_data(f))
			n_data[c]++;
		else
			n_ack[c]++;
	}
	assert_true(n_data[0] > 0 && n_data[0] == n_data[1]);
	assert_true(n_ack[0] > 0 && n_ack[1] > 0);
	harness_end(&h);
}

/* ---- per QP: the slowest listed first ------------------------------------- */

/* CE-mark every data packet rank 0 sends (its receivers are rank 1). */
static enum verdict
hook_ce_rank0(struct harness *h, const struct frame *f)
{
	(void)h;
	return is_data(f) && f->sip == BASE_IP ? MARK_CE : DELIVER;
}

static void
test_slowest_qps(void **state)
{
	struct aifab_gen_params p;
	struct aifab_gen_summary s;
	struct harness h;
	unsigned int i, rank0 = 0;

	(void)state;
	gen_params(&p);
	p.dcqcn = true;
	p.qps_per_conn = 8;     /* 4 ranks x 8 = 32 QPs: more than listed */
	p.size = 4 * SIZE;
	harness_start(&h, &p);
	h.hook = hook_ce_rank0;
	run(&h, 400000);
	aifab_gen_summary(h.g, &s);
	assert_int_equal(s.n_qps, N_RANKS * 8);
	assert_int_equal(s.n_qp_listed, AIFAB_GEN_SUMMARY_QPS);
	/* Rank 0's 8 QPs were cut by CNPs: they are the slowest, first;
	 * then 8 of the others, all at the rank's rate. */
	for (i = 0; i < s.n_qp_listed; i++) {
		const struct aifab_gen_qp_sum *q = &s.qp[i];

		if (i > 0)
			assert_true(q->rate_avg_mbps >= s.qp[i - 1].rate_avg_mbps);
		assert_true(q->rate_min_mbps <= q->rate_avg_mbps);
		assert_int_equal((q->qpn - QPN_BASE) % 2, 0);
		if (i < 8) {
			assert_int_equal(q->src, 0);
			assert_int_equal(q->dst, 1);
			assert_true(q->rate_min_mbps < RATE_MBPS);
			rank0++;
		} else {
			assert_int_not_equal(q->src, 0);
			assert_true(q->rate_avg_mbps == RATE_MBPS);
		}
	}
	assert_int_equal(rank0, 8);
	/* Distribution of the 32 means: the lowest is rank 0's slowest,
	 * p50 and above are at the rank's rate (24 of 32). */
	assert_true(s.qp_rate_dist_mbps[0] == s.qp[0].rate_avg_mbps);
	assert_true(s.qp_rate_dist_mbps[2] == RATE_MBPS);
	assert_true(s.qp_rate_dist_mbps[4] == RATE_MBPS);
	assert_true(s.qp_rate_min_mbps < RATE_MBPS);
	harness_end(&h);
}

/* ---- PFC ------------------------------------------------------------------------ */

/* 802.1Qbb frame from PROTOCOLS.md (unit_judges.h). */
static void
inject_pfc(uint8_t enable, const uint16_t quanta[8])
{
	struct rte_mbuf *m = rte_pktmbuf_alloc(env.pool);
	uint8_t *p;

	MUST(m);
	p = (uint8_t *)rte_pktmbuf_append(m, 60);
	MUST(p);
	unit_pfc_frame(p, enable, quanta);
	to_rx(m);
}

/* Polls (sending times) of data/ACK frames in [from, to). */
static unsigned int
data_between(const struct harness *h, uint64_t from, uint64_t to)
{
	unsigned int i, n = 0;

	for (i = 0; i < h->n_rec; i++)
		if (h->rec[i].roce && h->rec[i].op != 0x81 &&
		    h->rec[i].t >= from && h->rec[i].t < to)
			n++;
	return n;
}

static void
test_pfc_pause(void **state)
{
	struct aifab_gen_params p;
	struct aifab_gen_summary s;
	struct harness h;
	uint16_t q[8] = { 0 };
	/* 10000 quanta x 512 bit / 100 Gb/s = 51.2 us */
	const uint64_t pause_ns = 10000ull * 512 * 1000 / SPEED_MBPS;
	uint64_t tp, t_resume = 0;
	unsigned int i;

	(void)state;
	gen_params(&p);
	p.size = 8 * SIZE;
	harness_start(&h, &p);
	for (i = 0; i < 20; i++)
		step(&h);
	assert_true(data_between(&h, 0, h.now) > 0);

	/* Another priority (4): nothing stops. */
	q[4] = 10000;
	inject_pfc(1 << 4, q);
	tp = h.now;
	for (i = 0; i < 20; i++)
		step(&h);
	assert_true(data_between(&h, tp, h.now) > 0);

	/* XOFF for the data priority 3: silence for exactly the pause. */
	q[4] = 0;
	q[3] = 10000;
	inject_pfc(1 << 3, q);
	tp = h.now;
	for (i = 0; i < 100; i++)
		step(&h);
	assert_int_equal(data_between(&h, tp, tp + pause_ns), 0);
	for (i = 0; i < h.n_rec; i++)
		if (h.rec[i].roce && h.rec[i].t >= tp) {
			t_resume = h.rec[i].t;
			break;
		}
	print_message("XOFF 10000 quanta at 100G: paused %" PRIu64 " ns, "
		      "first frame after %" PRIu64 " ns\n", pause_ns,
		      t_resume - tp);
	/* The first poll at or after the end of the pause sends. */
	assert_int_equal(t_resume - tp, (pause_ns + TICK - 1) / TICK * TICK);

	/* XOFF for the longest time, then XON 10 us later: resumes then. */
	q[3] = 0xFFFF;
	inject_pfc(1 << 3, q);
	tp = h.now;
	for (i = 0; i < 10; i++)
		step(&h);
	q[3] = 0;
	inject_pfc(1 << 3, q);
	for (i = 0; i < 5; i++)
		step(&h);
	assert_int_equal(data_between(&h, tp, tp + 10 * TICK), 0);
	assert_true(data_between(&h, tp + 10 * TICK, tp + 11 * TICK) > 0);

	run(&h, 400000);
	aifab_gen_summary(h.g, &s);
	assert_int_equal(s.iterations, ITERS);
	assert_int_equal(s.pfc_rx, 4);
	/* 51.2 us + 10 us, to the nanosecond. */
	assert_true(s.paused_us > (pause_ns + 10 * TICK) / 1e3 - 1e-6 &&
		    s.paused_us < (pause_ns + 10 * TICK) / 1e3 + 1e-6);
	harness_end(&h);
}

/* ---- open loop stays available ---------------------------------------------- */

static void
test_open_loop_option(void **state)
{
	struct aifab_gen_params p;
	struct aifab_gen_summary s;
	struct harness h;
	unsigned int i, early = 0;
	uint64_t step1_first = 0;

	(void)state;
	gen_params(&p);
	p.closed_loop = false;
	p.step_time_ns = 200 * TICK;
	harness_start(&h, &p);
	run(&h, 200000);
	aifab_gen_summary(h.g, &s);
	assert_false(s.closed_loop);
	assert_int_equal(s.iterations, ITERS);
	/* No ACKs in open loop; steps start by the clock (200 us apart). */
	for (i = 0; i < h.n_rec; i++) {
		const struct frame *f = &h.rec[i];

		assert_false(f->roce && f->op > 0x0B);
		if (is_data(f) && f->iter == 0 && f->rank == 0 &&
		    f->step == 1 && step1_first == 0)
			step1_first = f->t;
		early += is_data(f) && f->t < h.t0;
	}
	assert_int_equal(early, 0);
	assert_int_equal(step1_first - h.t0, 200 * TICK);
	harness_end(&h);
}

/* ---- several workers ([generator] lcores) ----------------------------------- */

/*
 * The same tests with the ranks sharded over 2 and 3 workers, polled in
 * order each step (as the virtual clock does): the frames' oracles above
 * do not change - the schedule is the same, only who sends it. Worker 0
 * polls the port's one RX queue and hands the other workers their frames;
 * with 2 workers ranks 0 and 2 send on TX queue 0 and ranks 1 and 3 on
 * queue 1, yet a PFC pause of the port silences both.
 */
static void
run_plain(void (*fn)(void **), void **state)
{
	fn(state);
}

/* Test @p name: @p run (run_plain(), same_with_rank_sets()) of test
 * @p fn with @p n generator workers. */
#define ON_WORKERS_BY(name, run, fn, n) \
static void \
name(void **state) \
{ \
	env.workers = (n); \
	run(fn, state); \
	env.workers = 1; \
}
#define ON_WORKERS(name, fn, n) ON_WORKERS_BY(name, run_plain, fn, n)

ON_WORKERS(test_dependency_w2, test_dependency, 2)
ON_WORKERS(test_dependency_w3, test_dependency, 3)
ON_WORKERS(test_go_back_n_w2, test_go_back_n, 2)
ON_WORKERS(test_timeout_w3, test_timeout, 3)
ON_WORKERS(test_ce_cnp_w2, test_ce_cnp, 2)
ON_WORKERS(test_time_reacts_w2, test_time_reacts, 2)
ON_WORKERS(test_slowest_qps_w3, test_slowest_qps, 3)
ON_WORKERS(test_pfc_pause_w2, test_pfc_pause, 2)
ON_WORKERS(test_pfc_pause_w3, test_pfc_pause, 3)
ON_WORKERS(test_open_loop_option_w2, test_open_loop_option, 2)

/* ---- the virtual clock's rank sets ----------------------------------------- */

/*
 * Test @p fn (its own checks) visiting every rank at every poll, then
 * with next_event() asked before each poll (the generator's rank sets
 * on): the same frames, field by field, sent at the same polls.
 */
static void
same_with_rank_sets(void (*fn)(void **), void **state)
{
	struct harness *a = calloc(1, sizeof(*a)), *b = calloc(1, sizeof(*b));

	MUST(a);
	MUST(b);
	env.keep = a;
	fn(state);
	env.vclock = true;
	env.keep = b;
	fn(state);
	env.vclock = false;
	env.keep = NULL;
	assert_true(a->n_rec > 0);
	assert_int_equal(a->n_rec, b->n_rec);
	assert_memory_equal(a->rec, b->rec, sizeof(*a->rec) * a->n_rec);
	free(a->rec);
	free(b->rec);
	free(a);
	free(b);
}

#define WITH_RANK_SETS(name, fn, n) \
	ON_WORKERS_BY(name, same_with_rank_sets, fn, n)

WITH_RANK_SETS(test_dependency_rs, test_dependency, 1)
WITH_RANK_SETS(test_go_back_n_rs, test_go_back_n, 1)
WITH_RANK_SETS(test_timeout_rs, test_timeout, 1)
WITH_RANK_SETS(test_ce_cnp_rs, test_ce_cnp, 1)
WITH_RANK_SETS(test_slowest_qps_rs, test_slowest_qps, 1)
WITH_RANK_SETS(test_pfc_pause_rs, test_pfc_pause, 1)
WITH_RANK_SETS(test_time_reacts_rs, test_time_reacts, 1)
WITH_RANK_SETS(test_dependency_rs_w3, test_dependency, 3)
WITH_RANK_SETS(test_pfc_pause_rs_w2, test_pfc_pause, 2)

int
main(void)
{
	const struct CMUnitTest pure[] = {
		cmocka_unit_test(test_icrc_checker),
	};
	const struct CMUnitTest loop[] = {
		cmocka_unit_test(test_dependency),
		cmocka_unit_test(test_trailer_not_payload),
		cmocka_unit_test(test_time_reacts),
		cmocka_unit_test(test_go_back_n),
		cmocka_unit_test(test_timeout),
		cmocka_unit_test(test_ce_cnp),
		cmocka_unit_test(test_slowest_qps),
		cmocka_unit_test(test_channel_dscp),
		cmocka_unit_test(test_pfc_pause),
		cmocka_unit_test(test_open_loop_option),
		cmocka_unit_test(test_dependency_w2),
		cmocka_unit_test(test_dependency_w3),
		cmocka_unit_test(test_go_back_n_w2),
		cmocka_unit_test(test_timeout_w3),
		cmocka_unit_test(test_ce_cnp_w2),
		cmocka_unit_test(test_time_reacts_w2),
		cmocka_unit_test(test_slowest_qps_w3),
		cmocka_unit_test(test_pfc_pause_w2),
		cmocka_unit_test(test_pfc_pause_w3),
		cmocka_unit_test(test_open_loop_option_w2),
		cmocka_unit_test(test_dependency_rs),
		cmocka_unit_test(test_go_back_n_rs),
		cmocka_unit_test(test_timeout_rs),
		cmocka_unit_test(test_ce_cnp_rs),
		cmocka_unit_test(test_slowest_qps_rs),
		cmocka_unit_test(test_pfc_pause_rs),
		cmocka_unit_test(test_time_reacts_rs),
		cmocka_unit_test(test_dependency_rs_w3),
		cmocka_unit_test(test_pfc_pause_rs_w2),
	};
	int fails = 0;

	fails += cmocka_run_group_tests_name("gen_closed_pure", pure, NULL,
					     NULL);
	fails += cmocka_run_group_tests_name("gen_closed_loop", loop, eal_up,
					     eal_down);
	return fails;
}
