/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Differential fuzz target: the switch's fast ingress and real-time
 * egress against their references (pipelines/switch_ref.c, the ingress
 * before the burst-vector datapath; switch_tx.c sw_port_dequeue_ref(),
 * the egress dequeue per packet before runs of packets). The same input (bursts, ports, segmentation, clock steps) is
 * run through two switches built from the same profile, one of each
 * datapath; they must send the same frames (bytes, segment count, port,
 * order, poll by poll: ECN marks and PFC frames included) and report the
 * same counters (every per-port, per-TC and ECMP member value of the
 * report, and the port counters).
 *
 * Set-up (once): a private --no-huge EAL (2 GB: each switch's LPM table
 * takes 64 MB), one mbuf pool, four ring
 * ethdevs (fuzz_ring_ports()) shared by every switch, and per profile
 * variant a pair of switches (reference, fast), each its own instance
 * (sw_index, counter set name), kept for the whole run: inputs do not
 * build or free anything, so thousands run per second under ASan. The two
 * of a pair see the same inputs in the same order from the same start,
 * so their state (clock, counters, PFC, ECN random draws) stays the same
 * between inputs: a difference is a difference of the datapaths. A crash
 * input usually reproduces alone; if not, replay the corpus before it.
 *
 * The fast switch reads its RX queues one of two ways, picked per input
 * (the first byte / the variant count, bit 0): queue by queue, each
 * queue's burst through ingress, or gathered (aifab_switch_gather_rx():
 * the chunks of several queues in one ingress burst of per-port
 * segments, as the whole-process virtual clock reads its marked queues);
 * the reference reads queue by queue.
 *
 * Input: as fuzz_switch.c's: one byte picks the variant, then records
 *   ctl (1)  bits 0-1 port, bit 2 poll after this frame, bit 3 cut into
 *            a chain of small segments, bits 4-7 clock step before the
 *            poll: 4^k microseconds (virtual TSC at 1 GHz)
 *   len (2)  big-endian frame length, at most 9300
 *   frame
 * Each input ends with every queue drained (the clock steps on) and the
 * switch's drain(); after it no mbuf is in use.
 */
#include <inttypes.h>
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
#include "switch_ref.h"
#define FUZZ_RING_PORTS
#include "fuzz_common.h"
#include "fuzz_switch_variants.h"

/* fuzz_switch.c's variants, the one with ECN at enqueue and the one of
 * shallow static PFC thresholds */
#define N_VARIANTS RTE_DIM(fuzz_sw_variants)

enum { REF, FAST, N_PATHS };
static const char *const path_name[N_PATHS] = { "reference", "fast" };

/* One switch instance and its clock. */
struct inst {
	struct aifab_env env;
	/* its own ports: fuzz_env_fill's array is shared, and the instance
	 * owning a port (rt->sw) differs per instance */
	struct aifab_port_rt ports[N_PORTS];
	void *st;
	uint64_t now;
};

static struct aifab_profile prof[N_VARIANTS];
static struct inst inst[N_VARIANTS][N_PATHS];
static struct rte_mempool *pool;
static struct rte_ring *rxr[N_PORTS], *txr[N_PORTS];
static uint16_t port_id[N_PORTS];
static const struct aifab_pipeline_ops *ops = &aifab_switch_ops;

static void
die(const char *what, const char *detail)
{
	fprintf(stderr, "fuzz_switch_diff: %s: %s\n", what, detail);
	abort();
}

static void
fini_all(void)
{
	unsigned int v, k;

	for (v = 0; v < N_VARIANTS; v++)
		for (k = 0; k < N_PATHS; k++)
			if (inst[v][k].st != NULL) {
				ops->fini(inst[v][k].st);
				inst[v][k].st = NULL;
			}
}

int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
	char err[AIFAB_ERR_LEN];
	unsigned int v, k, p;

	RTE_SET_USED(argc);
	RTE_SET_USED(argv);
	fuzz_sw_profiles(prof, N_VARIANTS, "fuzz_switch_diff");
	pool = fuzz_setup("fz_swdiff", 2048, 16383, N_PORTS, "fd", RING_SZ,
			  rxr, txr, port_id);
	for (v = 0; v < N_VARIANTS; v++)
		for (k = 0; k < N_PATHS; k++) {
			struct inst *in = &inst[v][k];
			/* Its own instance: FIB and counter set names apart. */
			uint8_t idx = (uint8_t)(v * N_PATHS + k);

			fuzz_env_fill(&in->env, &prof[v], N_PORTS, "fd",
				      port_id, pool, FAKE_HZ, 0);
			memcpy(in->ports, in->env.ports, sizeof(in->ports));
			in->env.ports = in->ports;
			in->env.sw_index = idx;
			snprintf(in->env.sw_name, sizeof(in->env.sw_name),
				 "d%u%c", v, k == REF ? 'r' : 'f');
			for (p = 0; p < N_PORTS; p++)
				in->env.ports[p].sw = idx;
			in->st = ops->init(&in->env, 1, err, sizeof(err));
			if (in->st == NULL)
				die("switch init", err);
			aifab_switch_use_reference(in->st, k == REF);
			in->now = FAKE_HZ;
		}
	/* before EAL's cleanup (atexit runs last registered first) */
	atexit(fini_all);
	return 0;
}

/* ---- what a switch did with one input -------------------------------------- */

struct frame_rec {
	uint32_t poll;       /* the poll that sent it */
	uint16_t port;
	uint16_t nb_segs;
	uint32_t len;
	size_t off;          /* bytes in the arena */
};

struct outcome {
	struct frame_rec *fr;
	size_t n_fr, cap_fr;
	uint8_t *arena;
	size_t n_arena, cap_arena;
	uint64_t *ctr;
	size_t n_ctr, cap_ctr;
	uint32_t polls;
	uint64_t in;
};

static struct outcome out[N_PATHS];

static void *
grow(void *p, size_t *cap, size_t need, size_t elem)
{
	if (need <= *cap)
		return p;
	*cap = RTE_MAX(need, *cap * 2 + 64);
	p = realloc(p, *cap * elem);
	if (p == NULL)
		die("realloc", "out of memory");
	return p;
}

static void
record_frame(struct outcome *o, uint16_t port, const struct rte_mbuf *m)
{
	struct frame_rec *r;
	const void *d;

	o->fr = grow(o->fr, &o->cap_fr, o->n_fr + 1, sizeof(*o->fr));
	o->arena = grow(o->arena, &o->cap_arena, o->n_arena + m->pkt_len, 1);
	r = &o->fr[o->n_fr++];
	r->poll = o->polls;
	r->port = port;
	r->nb_segs = m->nb_segs;
	r->len = m->pkt_len;
	r->off = o->n_arena;
	d = rte_pktmbuf_read(m, 0, m->pkt_len, o->arena + o->n_arena);
	FUZZ_ASSERT(d != NULL);
	if (d != o->arena + o->n_arena)
		memcpy(o->arena + o->n_arena, d, m->pkt_len);
	o->n_arena += m->pkt_len;
}

/*
 * Values only, in report order (the keys are the same code's on both
 * sides; a mismatch prints them by running the report again).
 */
static void
record_ctr(struct outcome *o, uint64_t value)
{
	o->ctr = grow(o->ctr, &o->cap_ctr, o->n_ctr + 1, sizeof(*o->ctr));
	o->ctr[o->n_ctr++] = value;
}

static void
sink_port(void *ctx, uint16_t port, const char *group, const char *name,
	  uint64_t value)
{
	RTE_SET_USED(port);
	RTE_SET_USED(group);
	RTE_SET_USED(name);
	record_ctr(ctx, value);
}

static void
sink_tc(void *ctx, uint16_t port, unsigned int tc, const char *name,
	uint64_t value)
{
	RTE_SET_USED(port);
	RTE_SET_USED(tc);
	RTE_SET_USED(name);
	record_ctr(ctx, value);
}

static void
sink_ecmp(void *ctx, const char *group, const char *member, uint64_t packets,
	  uint64_t bytes)
{
	RTE_SET_USED(group);
	RTE_SET_USED(member);
	record_ctr(ctx, packets);
	record_ctr(ctx, bytes);
}

static void
sink_ecmp_link(void *ctx, uint64_t down_events, uint64_t remaps,
	       uint64_t remap_buckets)
{
	record_ctr(ctx, down_events);
	record_ctr(ctx, remaps);
	record_ctr(ctx, remap_buckets);
}

/* A mismatch: print the report's entry @p want (counting as above). */
struct ctr_find {
	size_t at, want;
	const char *who;
};

static void
find_hit(struct ctr_find *f, const char *kind, unsigned int port,
	 unsigned int tc, const char *a, const char *b, uint64_t v)
{
	if (f->at++ == f->want)
		fprintf(stderr, "  %s: %s port %u tc %u %s %s = %" PRIu64 "\n",
			f->who, kind, port, tc, a, b, v);
}

static void
find_port(void *ctx, uint16_t port, const char *group, const char *name,
	  uint64_t value)
{
	find_hit(ctx, "port", port, 0, group, name, value);
}

static void
find_tc(void *ctx, uint16_t port, unsigned int tc, const char *name,
	uint64_t value)
{
	find_hit(ctx, "tc", port, tc, "", name, value);
}

static void
find_ecmp(void *ctx, const char *group, const char *member, uint64_t packets,
	  uint64_t bytes)
{
	find_hit(ctx, "ecmp packets", 0, 0, group, member, packets);
	find_hit(ctx, "ecmp bytes", 0, 0, group, member, bytes);
}

static void
find_ecmp_link(void *ctx, uint64_t down_events, uint64_t remaps,
	       uint64_t remap_buckets)
{
	find_hit(ctx, "ecmp link", 0, 0, "", "down_events", down_events);
	find_hit(ctx, "ecmp link", 0, 0, "", "remaps", remaps);
	find_hit(ctx, "ecmp link", 0, 0, "", "remap_buckets", remap_buckets);
}

/* The first N_PC_CTRS entries are the port counters (run()). */
#define N_PC_CTRS (N_PORTS * 4)

static void
ctr_print(const char *who, void *st, size_t i)
{
	struct ctr_find f = { 0, i - N_PC_CTRS, who };
	struct aifab_report_sink sink = {
		.ctx = &f, .port_u64 = find_port, .port_tc_u64 = find_tc,
		.ecmp_member = find_ecmp, .ecmp_member_link = find_ecmp_link,
	};

	if (i < N_PC_CTRS)
		fprintf(stderr, "  %s: port %zu port counter %zu\n", who,
			i / 4, i % 4);
	else
		ops->report(st, &sink);
}

static void
tx_collect(struct outcome *o)
{
	struct rte_mbuf *m;
	uint16_t p;

	for (p = 0; p < N_PORTS; p++)
		while (rte_ring_sc_dequeue(txr[p], (void **)&m) == 0) {
			record_frame(o, p, m);
			rte_pktmbuf_free(m);
		}
}

static void
poll_once(struct inst *in, struct outcome *o)
{
	ops->poll(in->st, 0, in->now);
	o->polls++;
	tx_collect(o);
}

/* Run one input through one switch; what it did goes into @p o. */
static void
run(struct inst *in, const uint8_t *data, size_t size, struct outcome *o)
{
	struct fuzz_in f = { data, size };
	struct aifab_port_counters pc[AIFAB_MAX_PORTS];
	struct aifab_report_sink sink = {
		.ctx = o, .port_u64 = sink_port, .port_tc_u64 = sink_tc,
		.ecmp_member = sink_ecmp, .ecmp_member_link = sink_ecmp_link,
	};
	unsigned int guard, p;

	o->n_fr = o->n_arena = o->n_ctr = 0;
	o->polls = 0;
	o->in = 0;
	while (f.n > 0) {
		uint8_t ctl = fuzz_u8(&f);
		uint32_t len = fuzz_u16(&f) % (MAX_FRAME + 1);
		size_t got;
		const uint8_t *fr = fuzz_bytes(&f, len, &got);
		struct rte_mbuf *m;

		p = ctl & 3;
		if (rte_ring_count(rxr[p]) >= RING_SZ - 1)
			poll_once(in, o);
		m = fuzz_mbuf_chain(pool, fr, (uint32_t)got,
				    ctl & 8 ? (uint8_t)(ctl | 1) : 0);
		if (m == NULL)
			die("mbuf", "pool too small for one input");
		if (rte_ring_sp_enqueue(rxr[p], m) != 0) {
			rte_pktmbuf_free(m);
			continue;
		}
		o->in++;
		if (ctl & 4) {
			in->now += (1ull << (2 * (ctl >> 4))) * 1000;
			poll_once(in, o);
		}
	}
	for (guard = 0; guard < 100000 && !fuzz_rings_empty(N_PORTS, rxr);
	     guard++) {
		in->now += 1000;
		poll_once(in, o);
	}
	FUZZ_ASSERT(fuzz_rings_empty(N_PORTS, rxr));
	/* Let the queues drain (PFC pauses run out as the clock moves on);
	 * stop once idle: the state left is the pair's shared history. */
	for (guard = 0; guard < 64 && !ops->idle(in->st); guard++) {
		in->now += 1000000;
		poll_once(in, o);
	}
	ops->drain(in->st, 0, in->now);
	tx_collect(o);
	ops->port_counters(in->st, pc);
	for (p = 0; p < N_PORTS; p++) {
		record_ctr(o, pc[p].rx_packets);
		record_ctr(o, pc[p].rx_bytes);
		record_ctr(o, pc[p].tx_packets);
		record_ctr(o, pc[p].tx_bytes);
	}
	ops->report(in->st, &sink);
	FUZZ_ASSERT(rte_mempool_in_use_count(pool) == 0);
}

static void
hexdump_frame(const char *who, const struct outcome *o, size_t i)
{
	const struct frame_rec *r = &o->fr[i];
	uint32_t b;

	fprintf(stderr, "  %s frame %zu: poll %u port %u len %u segs %u:",
		who, i, r->poll, r->port, r->len, r->nb_segs);
	for (b = 0; b < RTE_MIN(r->len, 96u); b++)
		fprintf(stderr, "%s%02x", b % 16 ? "" : "\n    ",
			o->arena[r->off + b]);
	fprintf(stderr, "\n");
}

static void
compare(unsigned int v, const struct outcome *a, const struct outcome *b)
{
	size_t i;

	if (a->polls != b->polls)
		fprintf(stderr, "fuzz_switch_diff: %u polls vs %u\n",
			a->polls, b->polls);
	for (i = 0; i < RTE_MIN(a->n_fr, b->n_fr); i++) {
		const struct frame_rec *x = &a->fr[i], *y = &b->fr[i];

		if (x->poll != y->poll || x->port != y->port ||
		    x->len != y->len || x->nb_segs != y->nb_segs ||
		    memcmp(a->arena + x->off, b->arena + y->off, x->len)) {
			fprintf(stderr, "fuzz_switch_diff: frame %zu differs\n",
				i);
			hexdump_frame(path_name[REF], a, i);
			hexdump_frame(path_name[FAST], b, i);
			abort();
		}
	}
	if (a->n_fr != b->n_fr) {
		fprintf(stderr, "fuzz_switch_diff: %zu frames sent by the "
			"reference, %zu by the fast path\n", a->n_fr, b->n_fr);
		hexdump_frame(a->n_fr > b->n_fr ? path_name[REF] :
			      path_name[FAST], a->n_fr > b->n_fr ? a : b, i);
		abort();
	}
	FUZZ_ASSERT(a->n_ctr == b->n_ctr);
	for (i = 0; i < a->n_ctr; i++)
		if (a->ctr[i] != b->ctr[i]) {
			fprintf(stderr, "fuzz_switch_diff: a counter differs\n");
			ctr_print(path_name[REF], inst[v][REF].st, i);
			ctr_print(path_name[FAST], inst[v][FAST].st, i);
			abort();
		}
	FUZZ_ASSERT(a->polls == b->polls);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	unsigned int v, k;

	if (size < 1 || size > 1 << 16)
		return 0;
	v = data[0] % N_VARIANTS;
	/* the pair has seen the same inputs: the same clock */
	FUZZ_ASSERT(inst[v][REF].now == inst[v][FAST].now);
	aifab_switch_gather_rx(inst[v][FAST].st,
			       (data[0] / N_VARIANTS) & 1);
	for (k = 0; k < N_PATHS; k++)
		run(&inst[v][k], data + 1, size - 1, &out[k]);
	compare(v, &out[REF], &out[FAST]);
	return 0;
}
