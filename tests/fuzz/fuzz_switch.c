/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Fuzz target: the whole switch pipeline on fuzzed bursts (parse -> admit
 * -> route -> ECMP -> classify -> buffer / ECN / PFC accounting -> queue ->
 * PFC watchdog -> scheduler -> shaper -> TX), through aifab_switch_ops as
 * the app drives it.
 *
 * Set-up (once): a private --no-huge EAL and four ethdevs made with
 * rte_eth_from_rings(): we enqueue frames into each port's RX ring and
 * take what the switch sends out of its TX ring. profiles/pcap-leaf.ini is
 * loaded with aifab_profile_load() in a few variants (--set strings) that
 * make queues, ECN, PFC and the watchdog busy with small inputs.
 *
 * Input: one byte picks the variant, then records
 *   ctl (1)  bits 0-1 port, bit 2 poll after this frame, bit 3 cut into
 *            a chain of small segments, bits 4-7 clock step before the
 *            poll: 4^k microseconds (virtual TSC at 1 GHz)
 *   len (2)  big-endian frame length, at most 9300; fewer bytes if the
 *            input ends
 *   frame
 * Per input a switch is built (init), fed, drained and freed (fini), so
 * inputs do not depend on each other.
 *
 * Checks: every frame is accounted for exactly once (rx_packets = frames
 * given; frames out + every drop reason except no_mbuf = frames given,
 * where frames out excludes the PFC frames the switch generates), and
 * after fini no mbuf is left in use.
 */
#include <stdbool.h>

#include <rte_eth_ring.h>
#include <rte_ethdev.h>
#include <rte_lcore.h>
#include <rte_mbuf_dyn.h>
#include <rte_ring.h>

#include "aifab_pipeline.h"
#include "aifab_pkt.h"
#include "aifab_profile.h"
#include "aifab_version.h"
#define FUZZ_RING_PORTS
#include "fuzz_common.h"

#define N_PORTS 4
#define RING_SZ 1024
#define MAX_FRAME 9300
#define FAKE_HZ 1000000000ull

static const char *const variant_sets[][16] = {
	/* 0: the profile as shipped */
	{ NULL },
	/* 1: tiny static queues, ECN at dequeue on a ramp that starts at 0,
	 * static PFC thresholds a few frames deep, slow uplinks */
	{ "qos.buffer_bytes=262144", "qos.limit_mode=static",
	  "qos.ecn_at=dequeue", "tc.0.queue_limit_bytes=4096",
	  "tc.0.ecn=true", "tc.0.ecn_kmin_bytes=0", "tc.0.ecn_kmax_bytes=3000",
	  "tc.3.ecn_kmin_bytes=0", "tc.3.ecn_kmax_bytes=3000",
	  "tc.3.pfc_xoff_bytes=4096", "tc.3.pfc_xon_offset_bytes=1024",
	  "tc.3.pfc_headroom_bytes=4096", "port.p2.speed_gbps=0.01",
	  "port.p3.speed_gbps=0.01", "pfc.detection_ms=100", NULL },
	/* 2: PCP trust, Toeplitz over every field, plain ECMP groups,
	 * watchdog forwards, jumbo uplinks, no checksum check, tiny bursts */
	{ "port.p0.trust=pcp", "port.p1.trust=pcp", "ecmp.hash=toeplitz",
	  "ecmp.fields=sip,dip,proto,sport,dport,dqpn", "ecmp.resilient=false",
	  "pfc.action=forward", "port.p2.mtu=9000", "port.p3.mtu=9000",
	  "switch.check_ipv4_checksum=false", "general.burst=4",
	  "tc.3.pfc_pause_quanta=2", "port.p1.speed_gbps=0.01", NULL },
	/* 3: several lossless TCs with dynamic thresholds, watchdog alert,
	 * jhash, static limits */
	{ "tc.0.lossless=true", "tc.5.lossless=true", "tc.5.alpha=0.015",
	  "pfc.action=alert", "ecmp.hash=jhash", "qos.buffer_bytes=262144",
	  "port.p0.speed_gbps=0.01", "port.p3.speed_gbps=0.01", NULL },
};
#define N_VARIANTS RTE_DIM(variant_sets)

static struct aifab_profile prof[N_VARIANTS];
static struct rte_mempool *pool;
static struct rte_ring *rxr[N_PORTS], *txr[N_PORTS];
static uint16_t port_id[N_PORTS];

static void
die(const char *what, const char *detail)
{
	fprintf(stderr, "fuzz_switch: %s: %s\n", what, detail);
	abort();
}

static const char *
leaf_profile(void)
{
	static char path[PATH_MAX];
	const char *root = getenv("AIFAB_SOURCE_ROOT");

	snprintf(path, sizeof(path), "%s/profiles/pcap-leaf.ini",
		 root != NULL ? root : AIFAB_SOURCE_ROOT);
	return path;
}

int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
	char err[AIFAB_ERR_LEN];
	int ts_off;
	uint64_t ts_flag;
	unsigned int v, n;

	RTE_SET_USED(argc);
	RTE_SET_USED(argv);
	for (v = 0; v < N_VARIANTS; v++) {
		for (n = 0; variant_sets[v][n] != NULL; n++)
			;
		if (aifab_profile_load(&prof[v], leaf_profile(),
				       variant_sets[v], n, err,
				       sizeof(err)) != 0)
			die("profile", err);
		if (prof[v].n_ports != N_PORTS)
			die("profile", "pcap-leaf.ini must have four ports");
	}
	fuzz_eal("fz_switch");
	pool = rte_pktmbuf_pool_create("fz_sw", 8191, 32, 0,
				       RTE_MBUF_DEFAULT_BUF_SIZE,
				       (int)rte_socket_id());
	if (pool == NULL)
		die("pool", rte_strerror(rte_errno));
	/* As the app does: departure stamps use the RX timestamp field. */
	if (rte_mbuf_dyn_rx_timestamp_register(&ts_off, &ts_flag) != 0)
		die("timestamp field", rte_strerror(rte_errno));
	fuzz_ring_ports(N_PORTS, "fz", pool, RING_SZ, rxr, txr,
			port_id);
	return 0;
}

/* ---- report sink: sum the drops ------------------------------------------ */

struct tally {
	uint64_t drops;      /* every reason but no_mbuf */
	uint64_t no_mbuf;
};

static void
sink_port(void *ctx, uint16_t port, const char *group, const char *name,
	  uint64_t value)
{
	struct tally *t = ctx;

	FUZZ_ASSERT(port < N_PORTS);
	if (strcmp(group, "drops") != 0)
		return;
	if (strcmp(name, "no_mbuf") == 0)
		t->no_mbuf += value;
	else
		t->drops += value;
}

static void
sink_tc(void *ctx, uint16_t port, unsigned int tc, const char *name,
	uint64_t value)
{
	RTE_SET_USED(ctx);
	RTE_SET_USED(name);
	RTE_SET_USED(value);
	FUZZ_ASSERT(port < N_PORTS && tc < 8);
}

static void
sink_ecmp(void *ctx, const char *group, const char *member, uint64_t packets,
	  uint64_t bytes)
{
	RTE_SET_USED(ctx);
	RTE_SET_USED(group);
	RTE_SET_USED(member);
	FUZZ_ASSERT(bytes >= packets * 14);
}

/* ---- one input -------------------------------------------------------------- */

struct feed {
	const struct aifab_pipeline_ops *ops;
	void *st;
	uint64_t now;
	uint64_t in, out, pfc_out;
};

static bool
is_pfc_from(const struct rte_mbuf *m, const struct rte_ether_addr *mac)
{
	const struct rte_ether_hdr *e =
		rte_pktmbuf_mtod(m, const struct rte_ether_hdr *);

	return m->data_len >= 14 &&
	       e->ether_type == rte_cpu_to_be_16(AIFAB_ETHER_TYPE_MAC_CTRL) &&
	       rte_is_same_ether_addr(&e->src_addr, mac);
}

static void
tx_collect(struct feed *f, const struct aifab_env *env)
{
	struct rte_mbuf *m;
	unsigned int p;

	for (p = 0; p < N_PORTS; p++)
		while (rte_ring_sc_dequeue(txr[p], (void **)&m) == 0) {
			if (is_pfc_from(m, &env->ports[p].mac))
				f->pfc_out++;
			else
				f->out++;
			rte_pktmbuf_free(m);
		}
}

static void
poll_once(struct feed *f, const struct aifab_env *env)
{
	f->ops->poll(f->st, 0, f->now);
	tx_collect(f, env);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fuzz_in in = { data, size };
	struct aifab_port_counters pc[AIFAB_MAX_PORTS];
	struct tally t = { 0 };
	struct aifab_report_sink sink = {
		.ctx = &t, .port_u64 = sink_port, .port_tc_u64 = sink_tc,
		.ecmp_member = sink_ecmp,
	};
	struct feed f = { .ops = &aifab_switch_ops, .now = FAKE_HZ };
	struct aifab_env env;
	char err[AIFAB_ERR_LEN];
	uint64_t rx = 0, tx = 0;
	unsigned int p, guard;

	if (size > 1 << 16)
		return 0;
	fuzz_env_fill(&env, &prof[fuzz_u8(&in) % N_VARIANTS], N_PORTS, "fz",
		      port_id, pool, FAKE_HZ, 0);
	f.st = f.ops->init(&env, 1, err, sizeof(err));
	if (f.st == NULL)
		die("switch init", err);

	while (in.n > 0) {
		uint8_t ctl = fuzz_u8(&in);
		uint32_t len = fuzz_u16(&in) % (MAX_FRAME + 1);
		size_t got;
		const uint8_t *fr = fuzz_bytes(&in, len, &got);
		struct rte_mbuf *m;

		p = ctl & 3;
		if (rte_ring_count(rxr[p]) >= RING_SZ - 1)
			poll_once(&f, &env);
		m = fuzz_mbuf_chain(pool, fr, (uint32_t)got,
				    ctl & 8 ? (uint8_t)(ctl | 1) : 0);
		if (m == NULL)
			die("mbuf", "pool too small for one input");
		if (rte_ring_sp_enqueue(rxr[p], m) != 0) {
			rte_pktmbuf_free(m);
			continue;
		}
		f.in++;
		if (ctl & 4) {
			f.now += (1ull << (2 * (ctl >> 4))) * 1000;
			poll_once(&f, &env);
		}
	}
	/* Let everything through (queues drain as the clock moves on). */
	for (guard = 0; guard < 100000 && !fuzz_rings_empty(N_PORTS, rxr);
	     guard++) {
		f.now += 1000;
		poll_once(&f, &env);
	}
	FUZZ_ASSERT(fuzz_rings_empty(N_PORTS, rxr));
	for (guard = 0; guard < 64; guard++) {
		f.now += 1000000;
		poll_once(&f, &env);
	}
	f.ops->drain(f.st, 0, f.now);
	tx_collect(&f, &env);
	FUZZ_ASSERT(f.ops->done(f.st) == false); /* ring RX never ends */

	f.ops->port_counters(f.st, pc);
	for (p = 0; p < N_PORTS; p++) {
		rx += pc[p].rx_packets;
		tx += pc[p].tx_packets;
	}
	f.ops->report(f.st, &sink);
	f.ops->fini(f.st);

	FUZZ_ASSERT(rx == f.in);
	FUZZ_ASSERT(tx == f.out + f.pfc_out);
	if (f.out + t.drops != f.in) {
		fprintf(stderr, "fuzz_switch: %" PRIu64 " frames in, %" PRIu64
			" out, %" PRIu64 " dropped\n", f.in, f.out, t.drops);
		abort();
	}
	FUZZ_ASSERT(rte_mempool_in_use_count(pool) == 0);
	return 0;
}
