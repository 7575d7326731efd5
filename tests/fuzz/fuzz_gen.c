/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Fuzz target: the generator pipeline's receive side (RoCEv2 responder and
 * requester: BTH / RETH / AETH handling, ACK / NAK / CNP, the DCQCN
 * notification and reaction points; PFC and PAUSE; the open loop's PSN
 * accounting and the RX fault stage) while the generator is sending,
 * through aifab_generator_ops as the app drives it.
 *
 * Set-up (once): a private --no-huge EAL and two ethdevs made with
 * rte_eth_from_rings(): we enqueue frames into a generator port's RX ring
 * and take what it sends out of its TX ring. A small profile (written to a
 * temporary file, the [generator] of profiles/gen-closed-loop.ini scaled
 * down, two ports) is loaded with aifab_profile_load() in a few variants
 * (--set strings); app/pipes.c turns it into the generator as the app
 * does (app_gen_port_mask(), app_gen_create()).
 *
 * Input: one byte picks the variant, then records
 *   ctl (1)  bit 0 the generator port (of those it owns), bit 1 reflect:
 *            at this record's poll, what the generator sends goes back
 *            into its RX ring (valid data, ACKs, NAKs and CNPs for the
 *            fuzzed frames to interleave with), bit 2 poll after this
 *            frame, bit 3 cut into a chain of small segments, bits 4-7
 *            clock step before the poll: 4^k microseconds (virtual TSC at
 *            1 GHz; variants on the generator's own clock ignore it)
 *   len (2)  big-endian frame length, at most 9300; fewer bytes if the
 *            input ends
 *   frame
 * Per input a generator is built, fed, drained and freed, so inputs do not
 * depend on each other. Most variants turn the ICRC check off, so that
 * fuzzed frames (whose ICRC a mutation breaks) reach the RoCE logic; the
 * default variant checks every frame and variant 3 one in two.
 *
 * Checks: every frame given to the generator (fuzzed or reflected) is
 * counted exactly once: rx_packets + frames the RX fault stage dropped =
 * frames given; rx_packets = not RoCE + PFC + PAUSE + bad ICRC + RoCE
 * (bad ICRC <= ICRC checked <= bad ICRC + RoCE, and with rx_check_icrc
 * = full, checked = bad ICRC + RoCE; off: none checked); RoCE =
 * unknown QP + ACK + NAK + other NAK + CNP + other opcode + data (data:
 * the per-QP PSN classes, in order + reordered + duplicates + stale; the
 * open loop has only unknown QP + data); tx_packets = frames taken from
 * the TX rings; after drain no mbuf of any pool is in use, and after fini
 * the generator's pools are gone and ours is full.
 */
#include <inttypes.h>
#include <stdbool.h>
#include <unistd.h>

#include <rte_eth_ring.h>
#include <rte_ethdev.h>
#include <rte_lcore.h>
#include <rte_mbuf_dyn.h>
#include <rte_ring.h>

#include "aifab_pipeline.h"
#include "aifab_pkt.h"
#include "aifab_profile.h"
#include "aifab_rc.h"
#include "app.h"
#include "generator.h"
#define FUZZ_RING_PORTS
#include "fuzz_common.h"

#define N_PORTS 2
#define RING_SZ 1024
#define MAX_FRAME 9300
#define FAKE_HZ 1000000000ull

/* profiles/gen-closed-loop.ini scaled down: small collectives, small
 * pools, a 100 us retransmit timeout, the TSC (ours) as clock. */
static const char base_profile[] =
	"[general]\nname = fuzz-gen\nseed = 1\n"
	"[switch]\nenabled = false\n"
	"[port.p0]\nmac = 02:aa:00:00:01:00\nspeed_gbps = 100\nmtu = 9000\n"
	"[port.p1]\nmac = 02:aa:00:00:01:01\nspeed_gbps = 100\nmtu = 9000\n"
	"[generator]\nenabled = true\nports = p0\n"
	"collective = allreduce_ring\nranks = 4\nsize_bytes = 65536\n"
	"ib_mtu = 1024\niterations = 2\nwarmup = 1\nrate_gbps = 25\n"
	"closed_loop = true\nwindow = 16\nack_every = 4\n"
	"retx_timeout_us = 100\ndcqcn = true\ncnp_interval_us = 50\n"
	"mbufs = 1024\nvirtual_tick_ns = 0\n";

static const char *const variant_sets[][12] = {
	/* 0: closed loop with DCQCN, four ranks on p0 */
	{ NULL },
	/* 1: open loop, rx on, four ranks over p0 and p1, steps paced */
	{ "generator.closed_loop=false", "generator.ports=p0 p1",
	  "generator.step_time_us=20", "generator.ib_mtu=512",
	  "generator.rx_check_icrc=off", NULL },
	/* 2: tiny window, an ACK per packet, two QPs per connection, a CNP
	 * per CE mark, fixed-rate senders, 256-byte MTU */
	{ "generator.window=1", "generator.ack_every=1",
	  "generator.qps_per_conn=2", "generator.cnp_interval_us=0",
	  "generator.dcqcn=false", "generator.ib_mtu=256",
	  "generator.size_bytes=8192", "generator.bursty=true",
	  "generator.rx_check_icrc=off", NULL },
	/* 3: two ranks on two ports, two channels, the generator's own
	 * clock, every third RoCE frame marked CE and every fifth corrupted
	 * on arrival, the ICRC of one in two checked, a gateway */
	{ "generator.ranks=2", "generator.ports=p0 p1",
	  "generator.channels=2", "generator.virtual_tick_ns=1000",
	  "generator.fault_match=roce", "generator.fault_ce_every=3",
	  "generator.fault_corrupt_every=5", "generator.rx_check_icrc=every=2",
	  "generator.gateway_macs=02:bb:00:00:00:00,02:bb:00:00:00:01",
	  "generator.collective=allgather_ring", NULL },
	/* 4: halving-doubling with arrivals lost: every fifth frame dropped
	 * at RX, a big window, PFC priorities from the fabric's mapping */
	{ "generator.collective=allreduce_hd", "generator.window=256",
	  "generator.fault_match=all", "generator.fault_drop_every=5",
	  "generator.ports=p0 p1", "generator.dscp=24",
	  "generator.qpn_base=4096", "generator.rx_check_icrc=off", NULL },
};
#define N_VARIANTS RTE_DIM(variant_sets)

static struct aifab_profile prof[N_VARIANTS];
static uint32_t gen_mask[N_VARIANTS];
static struct rte_mempool *pool;
static struct rte_ring *rxr[N_PORTS], *txr[N_PORTS];
static uint16_t port_id[N_PORTS];
static FILE *devnull;           /* the nccl-tests table goes here */

static void
die(const char *what, const char *detail)
{
	fprintf(stderr, "fuzz_gen: %s: %s\n", what, detail);
	abort();
}

/* The base profile in a temporary file (aifab_profile_load reads files). */
static void
profiles_load(void)
{
	const char *tmp = getenv("TMPDIR");
	char path[PATH_MAX], err[AIFAB_ERR_LEN];
	unsigned int v, n;
	FILE *f;
	int fd;

	snprintf(path, sizeof(path), "%s/fuzz_gen_XXXXXX.ini",
		 tmp != NULL && tmp[0] != '\0' ? tmp : "/tmp");
	fd = mkstemps(path, 4);
	if (fd < 0)
		die("profile file", path);
	f = fdopen(fd, "w");
	if (f == NULL || fputs(base_profile, f) == EOF || fclose(f) != 0)
		die("profile file", path);
	for (v = 0; v < N_VARIANTS; v++) {
		for (n = 0; variant_sets[v][n] != NULL; n++)
			;
		struct app_portset set;

		if (aifab_profile_load(&prof[v], path, variant_sets[v], n,
				       err, sizeof(err)) != 0 ||
		    app_gen_port_mask(&prof[v], &set, err,
				      sizeof(err)) != 0) {
			unlink(path);
			die("profile", err);
		}
		gen_mask[v] = (uint32_t)set.b[0]; /* N_PORTS ports */
		if (prof[v].n_ports != N_PORTS || gen_mask[v] == 0)
			die("profile", "two ports, the generator on one or both");
	}
	unlink(path);
}

int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
	RTE_SET_USED(argc);
	RTE_SET_USED(argv);
	profiles_load();
	pool = fuzz_setup("fz_gen", 0, 8191, N_PORTS, "fg", RING_SZ, rxr, txr,
			  port_id);
	devnull = fopen("/dev/null", "w");
	return 0;
}

/* ---- report sink: what the generator counted -------------------------------- */

/* Report keys (pipelines/generator_priv.h GEN_PORT_CTRS, lib/roce's
 * PSN classes, lib/fault's counters) summed over the generator's ports. */
enum key {
	K_NOT_ROCE, K_PFC, K_PAUSE, K_ROCE, K_UNKNOWN_QP, K_ACK, K_NAK,
	K_NAK_OTHER, K_CNP, K_OTHER_OP, K_IN_ORDER, K_REORDERED, K_DUP,
	K_STALE, K_FAULT_SEEN, K_FAULT_DROPPED, K_ICRC_CHECKED, K_BAD_ICRC,
	K_MAX
};

static const struct {
	const char *group, *name;
} key_names[K_MAX] = {
	[K_NOT_ROCE] = { "generator", "rx_not_roce" },
	[K_PFC] = { "generator", "rx_pfc" },
	[K_PAUSE] = { "generator", "rx_pause_802_3x" },
	[K_ROCE] = { "generator", "rx_roce" },
	[K_UNKNOWN_QP] = { "generator", "rx_unknown_qp" },
	[K_ACK] = { "generator", "rx_ack" },
	[K_NAK] = { "generator", "rx_nak" },
	[K_NAK_OTHER] = { "generator", "rx_nak_other_syndrome" },
	[K_CNP] = { "generator", "rx_cnp" },
	[K_OTHER_OP] = { "generator", "rx_roce_other_opcode" },
	[K_IN_ORDER] = { "rx_psn", "in_order" },
	[K_REORDERED] = { "rx_psn", "reordered" },
	[K_DUP] = { "rx_psn", "duplicates" },
	[K_STALE] = { "rx_psn", "stale" },
	[K_FAULT_SEEN] = { "fault", "fault_seen" },
	[K_FAULT_DROPPED] = { "fault", "fault_dropped" },
	[K_ICRC_CHECKED] = { "generator", "rx_icrc_checked" },
	[K_BAD_ICRC] = { "generator", "rx_bad_icrc" },
};

struct tally {
	uint32_t mask;         /* generator ports */
	uint64_t v[K_MAX];
	unsigned int seen[K_MAX];
};

static void
sink_port(void *ctx, uint16_t port, const char *group, const char *name,
	  uint64_t value)
{
	struct tally *t = ctx;
	unsigned int k;

	FUZZ_ASSERT(port < N_PORTS && ((t->mask >> port) & 1));
	for (k = 0; k < K_MAX; k++)
		if (strcmp(group, key_names[k].group) == 0 &&
		    strcmp(name, key_names[k].name) == 0) {
			t->v[k] += value;
			t->seen[k]++;
		}
}

static void
sink_tc(void *ctx, uint16_t port, unsigned int tc, const char *name,
	uint64_t value)
{
	struct tally *t = ctx;

	RTE_SET_USED(name);
	RTE_SET_USED(value);
	FUZZ_ASSERT(port < N_PORTS && ((t->mask >> port) & 1) && tc < 8);
}

/* ---- mempools ------------------------------------------------------------- */

struct pools {
	unsigned int n, busy;
};

static void
pool_walk(struct rte_mempool *mp, void *arg)
{
	struct pools *ps = arg;

	ps->n++;
	if (rte_mempool_in_use_count(mp) != 0) {
		fprintf(stderr, "fuzz_gen: pool %s: %u mbufs in use\n",
			mp->name, rte_mempool_in_use_count(mp));
		ps->busy++;
	}
}

/* ---- one input -------------------------------------------------------------- */

struct feed {
	const struct aifab_pipeline_ops *ops;
	void *st;
	const struct aifab_gen_profile *gp;
	uint64_t now;
	uint64_t given;        /* frames enqueued into RX rings */
	uint64_t fuzzed;       /* of those, from the input */
	uint64_t out;          /* frames taken from TX rings */
};

/*
 * What the generator sends is well-formed RoCEv2 over IPv4 (checksum
 * right): data (RDMA WRITE first / middle / last / only) to a receiver
 * QPN (odd), at most one IB MTU of payload; ACKs (syndrome ACK or NAK PSN
 * sequence error) and CNPs to a sender QPN (even) - whatever it was fed.
 */
static void
tx_check(const struct feed *f, const struct rte_mbuf *m)
{
	static uint8_t scratch[AIFAB_PKT_HDR_WINDOW];
	const struct aifab_gen_profile *gp = f->gp;
	uint32_t base = gp->qpn_base, hdr, n_qpn;
	struct aifab_pkt_info pi;
	const uint8_t *syn;
	uint8_t tmp;

	n_qpn = 2 * gp->ranks * gp->ranks * gp->channels * gp->qps_per_conn;
	FUZZ_ASSERT(aifab_pkt_parse_mbuf(m, &pi, scratch, true) ==
		    AIFAB_PKT_ERR_OK);
	FUZZ_ASSERT(pi.l3 == AIFAB_L3_IPV4 && (pi.flags & AIFAB_PKT_F_ROCE));
	FUZZ_ASSERT(pi.dqpn >= base && pi.dqpn < base + n_qpn);
	switch (pi.bth_opcode) {
	case AIFAB_BTH_OP_WRITE_FIRST:
	case AIFAB_BTH_OP_WRITE_MIDDLE:
	case AIFAB_BTH_OP_WRITE_LAST:
	case AIFAB_BTH_OP_WRITE_ONLY:
		FUZZ_ASSERT(((pi.dqpn - base) & 1) == 1);
		hdr = pi.bth_off + AIFAB_BTH_LEN + AIFAB_ICRC_LEN + pi.pad_cnt;
		if (pi.bth_opcode == AIFAB_BTH_OP_WRITE_FIRST ||
		    pi.bth_opcode == AIFAB_BTH_OP_WRITE_ONLY)
			hdr += AIFAB_RETH_LEN;
		FUZZ_ASSERT(m->pkt_len >= hdr &&
			    m->pkt_len - hdr <= gp->ib_mtu);
		break;
	case AIFAB_BTH_OP_ACK:
		FUZZ_ASSERT(((pi.dqpn - base) & 1) == 0);
		syn = rte_pktmbuf_read(m, pi.bth_off + AIFAB_BTH_LEN, 1, &tmp);
		FUZZ_ASSERT(syn != NULL && ((*syn & 0x60) == 0 ||
					    *syn == AIFAB_RC_SYN_NAK_PSN_SEQ));
		break;
	case AIFAB_BTH_OP_CNP:
		FUZZ_ASSERT(((pi.dqpn - base) & 1) == 0);
		break;
	default:
		fprintf(stderr, "fuzz_gen: sent opcode 0x%02x\n",
			pi.bth_opcode);
		abort();
	}
}

/* Take what the generator sent; @p reflect: back into its RX ring. */
static void
tx_collect(struct feed *f, bool reflect)
{
	struct rte_mbuf *m;
	unsigned int p;

	for (p = 0; p < N_PORTS; p++)
		while (rte_ring_sc_dequeue(txr[p], (void **)&m) == 0) {
			f->out++;
			tx_check(f, m);
			if (reflect && rte_ring_sp_enqueue(rxr[p], m) == 0)
				f->given++;
			else
				rte_pktmbuf_free(m);
		}
}

static void
poll_once(struct feed *f, bool reflect)
{
	f->ops->poll(f->st, 0, f->now);
	tx_collect(f, reflect);
}

/* The ICRC check's counters against rx_check_icrc @p every. */
static void
check_icrc(const struct tally *t, uint32_t every)
{
	uint64_t chk = t->v[K_ICRC_CHECKED], bad = t->v[K_BAD_ICRC];

	FUZZ_ASSERT(bad <= chk && chk <= bad + t->v[K_ROCE]);
	FUZZ_ASSERT(every != 0 || chk == 0);
	FUZZ_ASSERT(every != 1 || chk == bad + t->v[K_ROCE]);
}

static void
check_counts(const struct feed *f, const struct tally *t, bool closed,
	     uint64_t rx, uint64_t tx)
{
	uint64_t data = t->v[K_IN_ORDER] + t->v[K_REORDERED] + t->v[K_DUP] +
		t->v[K_STALE];
	uint64_t roce = t->v[K_UNKNOWN_QP] + data;
	unsigned int k;

	for (k = 0; k < K_MAX; k++)
		FUZZ_ASSERT(t->seen[k] > 0); /* the report has every key */
	if (closed)
		roce += t->v[K_ACK] + t->v[K_NAK] + t->v[K_NAK_OTHER] +
			t->v[K_CNP] + t->v[K_OTHER_OP];
	else
		FUZZ_ASSERT(t->v[K_ACK] + t->v[K_NAK] + t->v[K_NAK_OTHER] +
			    t->v[K_CNP] + t->v[K_OTHER_OP] == 0);
	if (rx + t->v[K_FAULT_DROPPED] != f->given ||
	    rx != t->v[K_NOT_ROCE] + t->v[K_PFC] + t->v[K_PAUSE] +
	    t->v[K_BAD_ICRC] + t->v[K_ROCE] || t->v[K_ROCE] != roce ||
	    tx != f->out) {
		fprintf(stderr, "fuzz_gen: %" PRIu64 " frames given (%" PRIu64
			" fuzzed), rx_packets %" PRIu64 ", fault dropped %"
			PRIu64 "; not RoCE %" PRIu64 ", PFC %" PRIu64
			", PAUSE %" PRIu64 ", bad ICRC %" PRIu64 ", RoCE %"
			PRIu64 " = unknown QP %"
			PRIu64 " + ACK %" PRIu64 " + NAK %" PRIu64 " + NAK "
			"other %" PRIu64 " + CNP %" PRIu64 " + other opcode %"
			PRIu64 " + data %" PRIu64 "?; tx_packets %" PRIu64
			", frames out %" PRIu64 "\n", f->given, f->fuzzed, rx,
			t->v[K_FAULT_DROPPED], t->v[K_NOT_ROCE], t->v[K_PFC],
			t->v[K_PAUSE], t->v[K_BAD_ICRC], t->v[K_ROCE],
			t->v[K_UNKNOWN_QP],
			t->v[K_ACK], t->v[K_NAK], t->v[K_NAK_OTHER],
			t->v[K_CNP], t->v[K_OTHER_OP], data, tx, f->out);
		abort();
	}
	/* The RX fault stage sees each frame once (variants with one). */
	FUZZ_ASSERT(t->v[K_FAULT_SEEN] == 0 || t->v[K_FAULT_SEEN] == f->given);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fuzz_in in = { data, size };
	struct aifab_port_counters pc[AIFAB_MAX_PORTS];
	struct feed f = { .ops = &aifab_generator_ops, .now = FAKE_HZ };
	struct tally t = { 0 };
	struct aifab_report_sink sink = {
		.ctx = &t, .port_u64 = sink_port, .port_tc_u64 = sink_tc,
	};
	struct pools ps = { 0 };
	struct aifab_env env;
	char err[AIFAB_ERR_LEN];
	uint8_t gp[N_PORTS], n_gp = 0;
	uint64_t rx = 0, tx = 0;
	unsigned int v, p, guard;

	if (size > 1 << 16)
		return 0;
	v = fuzz_u8(&in) % N_VARIANTS;
	t.mask = gen_mask[v];
	f.gp = &prof[v].gen;
	for (p = 0; p < N_PORTS; p++)
		if ((gen_mask[v] >> p) & 1)
			gp[n_gp++] = (uint8_t)p;
	fuzz_env_fill(&env, &prof[v], N_PORTS, "fg", port_id, pool, FAKE_HZ,
		      gen_mask[v]);
	f.st = app_gen_create(&prof[v], &env, NULL, err,
			      sizeof(err));
	if (f.st == NULL)
		die("generator create", err);

	while (in.n > 0) {
		uint8_t ctl = fuzz_u8(&in);
		uint32_t len = fuzz_u16(&in) % (MAX_FRAME + 1);
		size_t got;
		const uint8_t *fr = fuzz_bytes(&in, len, &got);
		struct rte_mbuf *m;

		p = gp[(ctl & 1) % n_gp];
		if (rte_ring_count(rxr[p]) >= RING_SZ - 1)
			poll_once(&f, false);
		m = fuzz_mbuf_chain(pool, fr, (uint32_t)got,
				    ctl & 8 ? (uint8_t)(ctl | 1) : 0);
		if (m == NULL)
			die("mbuf", "pool too small for one input");
		if (rte_ring_sp_enqueue(rxr[p], m) != 0) {
			rte_pktmbuf_free(m);
			continue;
		}
		f.given++;
		f.fuzzed++;
		if (ctl & 4) {
			f.now += (1ull << (2 * (ctl >> 4))) * 1000;
			poll_once(&f, ctl & 2);
		}
	}
	/* Let the generator read everything (nothing reflected now). */
	for (guard = 0; guard < 100000 && !fuzz_rings_empty(N_PORTS, rxr);
	     guard++) {
		f.now += 1000;
		poll_once(&f, false);
	}
	FUZZ_ASSERT(fuzz_rings_empty(N_PORTS, rxr));
	f.ops->drain(f.st, 0, f.now);
	tx_collect(&f, false);

	f.ops->port_counters(f.st, pc);
	for (p = 0; p < N_PORTS; p++) {
		FUZZ_ASSERT(((gen_mask[v] >> p) & 1) ||
			    (pc[p].rx_packets == 0 && pc[p].tx_packets == 0));
		rx += pc[p].rx_packets;
		tx += pc[p].tx_packets;
	}
	/* What the app does at the end of a run (done() decides it). */
	(void)f.ops->done(f.st);
	f.ops->report(f.st, &sink);
	if (devnull != NULL)
		aifab_gen_print_table(f.st, devnull);
	check_counts(&f, &t, prof[v].gen.closed_loop, rx, tx);
	check_icrc(&t, prof[v].gen.rx_check_icrc);

	/* Drained: no pool (ours, the generator's) holds an mbuf in use. */
	rte_mempool_walk(pool_walk, &ps);
	FUZZ_ASSERT(ps.busy == 0 && ps.n >= 3);
	f.ops->fini(f.st);
	memset(&ps, 0, sizeof(ps));
	rte_mempool_walk(pool_walk, &ps);
	FUZZ_ASSERT(ps.busy == 0 && ps.n == 1); /* only ours is left */
	return 0;
}
