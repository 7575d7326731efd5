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
#include "fuzz_switch_variants.h"

#define N_VARIANTS FUZZ_SW_N_BASIC

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

int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
	RTE_SET_USED(argc);
	RTE_SET_USED(argv);
	fuzz_sw_profiles(prof, N_VARIANTS, "fuzz_switch");
	pool = fuzz_setup("fz_switch", 0, 8191, N_PORTS, "fz", RING_SZ, rxr,
			  txr, port_id);
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
