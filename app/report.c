/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The final report: what pipelines hand over through a sink (named values
 * per port, grouped), plus the port counters, written as JSON and printed as
 * a table. Names are stable: scripts and tests read them.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_ethdev.h>
#include <rte_hash_crc.h>

#include "aifab_ecmp.h"
#include "aifab_json.h"
#include "aifab_stats.h"
#include "aifab_version.h"
#include "app.h"
#include "lab.h"
#include "generator.h"

#define REP_MAX_ENTRIES 512
#define REP_HASH 1024           /* a power of two, twice the entries */
#define REP_MAX_ECMP 4096

struct rep_entry {
	char group[24];
	char name[40];
	uint64_t value;
};

/* A port's named values, in the order first reported (the report's
 * order); slot: open addressing by (group, name), entry index + 1, 0
 * empty, so a value reported again (another worker, instance) finds its
 * entry without comparing every name before it (a 1024-rank Clos reports
 * ~300 values for each of 2560 ports). */
struct rep_port {
	unsigned int n;
	uint16_t slot[REP_HASH];
	struct rep_entry e[REP_MAX_ENTRIES];
};

struct rep_ecmp {
	char sw[AIFAB_NAME_LEN];   /* switch instance, "" = the default */
	char group[48];
	char member[96];
	uint64_t packets, bytes;
	/* link events: the member's port going down; the group's remaps */
	uint64_t down_events, remaps, remap_buckets;
};

struct rep_lcore {
	unsigned int id;
	uint64_t busy_cycles, idle_cycles, busy_polls, idle_polls, packets;
};

struct app_report {
	char *lab_json;             /* the "lab" object, rendered at the end */
	char *mh_json;              /* "multihost" (app/multihost.c) */
	bool has_gen;
	struct aifab_gen_summary gen;
	unsigned int n_lcores;
	struct rep_lcore lcore[RTE_MAX_LCORE];
	struct aifab_report_sink sink;
	const struct aifab_env *env;
	/* env->n_ports each: */
	struct aifab_port_counters *ctr;
	/* the ethdev's own counters (rte_eth_stats) when the run ended;
	 * none for a ring port (an in-memory wire has no ethdev) */
	bool *has_eth;
	struct rte_eth_stats *eth;
	struct rep_port *port;
	unsigned int n_ecmp;
	struct rep_ecmp ecmp[REP_MAX_ECMP];
	char cur_sw[AIFAB_NAME_LEN];  /* switch of the next ecmp members */
	bool has_vclock;              /* the whole-process virtual clock ran */
	uint64_t vc_now_ns, vc_steps, vc_hops;
};

void
app_report_vclock(struct app_report *r, uint64_t now_ns, uint64_t steps,
		  uint64_t hops)
{
	r->has_vclock = true;
	r->vc_now_ns = now_ns;
	r->vc_steps = steps;
	r->vc_hops = hops;
}

/* CRC32C of string @p str from @p h, a byte at a time (the strings are
 * not 8-byte aligned, which rte_hash_crc()'s word loads assume). */
static uint32_t
rep_hash(const char *str, uint32_t h)
{
	for (; *str != '\0'; str++)
		h = rte_hash_crc_1byte((uint8_t)*str, h);
	return h;
}

static void
rep_port_u64(void *ctx, uint16_t port, const char *group, const char *name,
	     uint64_t value)
{
	struct app_report *r = ctx;
	struct rep_port *rp;
	unsigned int k;

	if (port >= r->env->n_ports)
		return;
	rp = &r->port[port];
	k = rep_hash(name, rep_hash(group, 0)) & (REP_HASH - 1);
	for (; rp->slot[k] != 0; k = (k + 1) & (REP_HASH - 1)) {
		struct rep_entry *e = &rp->e[rp->slot[k] - 1];

		if (strcmp(e->group, group) == 0 &&
		    strcmp(e->name, name) == 0) {
			e->value += value;
			return;
		}
	}
	if (rp->n == REP_MAX_ENTRIES)
		return;
	rp->slot[k] = (uint16_t)(rp->n + 1);
	snprintf(rp->e[rp->n].group, sizeof(rp->e[0].group), "%s", group);
	snprintf(rp->e[rp->n].name, sizeof(rp->e[0].name), "%s", name);
	rp->e[rp->n].value = value;
	rp->n++;
}

/* Per-TC values are kept as group "tc<N>" and written under "tc". */
static void
rep_port_tc_u64(void *ctx, uint16_t port, unsigned int tc, const char *name,
		uint64_t value)
{
	char group[8];

	snprintf(group, sizeof(group), "tc%u", tc % 8);
	rep_port_u64(ctx, port, group, name, value);
}

static void
rep_ecmp_member(void *ctx, const char *group, const char *member,
		uint64_t packets, uint64_t bytes)
{
	struct app_report *r = ctx;
	struct rep_ecmp *e;

	if (r->n_ecmp == REP_MAX_ECMP)
		return;
	e = &r->ecmp[r->n_ecmp++];
	snprintf(e->sw, sizeof(e->sw), "%s", r->cur_sw);
	snprintf(e->group, sizeof(e->group), "%s", group);
	snprintf(e->member, sizeof(e->member), "%s", member);
	e->packets = packets;
	e->bytes = bytes;
}

static void
rep_ecmp_member_link(void *ctx, uint64_t down_events, uint64_t remaps,
		     uint64_t remap_buckets)
{
	struct app_report *r = ctx;
	struct rep_ecmp *e;

	if (r->n_ecmp == 0)
		return;
	e = &r->ecmp[r->n_ecmp - 1];
	e->down_events = down_events;
	e->remaps = remaps;
	e->remap_buckets = remap_buckets;
}

static void
rep_switch_begin(void *ctx, const char *sw)
{
	struct app_report *r = ctx;

	snprintf(r->cur_sw, sizeof(r->cur_sw), "%s", sw);
}

struct app_report *
app_report_new(const struct aifab_env *env)
{
	struct app_report *r = calloc(1, sizeof(*r));

	unsigned int n = RTE_MAX(env->n_ports, 1);

	if (r == NULL)
		return NULL;
	r->ctr = calloc(n, sizeof(*r->ctr));
	r->has_eth = calloc(n, sizeof(*r->has_eth));
	r->eth = calloc(n, sizeof(*r->eth));
	r->port = calloc(n, sizeof(*r->port));
	if (r->ctr == NULL || r->has_eth == NULL || r->eth == NULL ||
	    r->port == NULL) {
		app_report_free(r);
		return NULL;
	}
	r->env = env;
	r->sink.ctx = r;
	r->sink.port_u64 = rep_port_u64;
	r->sink.port_tc_u64 = rep_port_tc_u64;
	r->sink.ecmp_member = rep_ecmp_member;
	r->sink.ecmp_member_link = rep_ecmp_member_link;
	r->sink.switch_begin = rep_switch_begin;
	return r;
}

const struct aifab_report_sink *
app_report_sink(struct app_report *r)
{
	return &r->sink;
}

void
app_report_set_counters(struct app_report *r,
			const struct aifab_port_counters *c)
{
	uint16_t p;

	memcpy(r->ctr, c, sizeof(r->ctr[0]) * r->env->n_ports);
	/* Allocation failures and misses happen in the PMD, before any
	 * pipeline sees a frame: only the ethdev counts them. The ports are
	 * still open here (the report is written after they close). */
	for (p = 0; p < r->env->n_ports; p++)
		r->has_eth[p] = !aifab_port_is_ring(&r->env->ports[p]) &&
			rte_eth_stats_get(r->env->ports[p].port_id,
					  &r->eth[p]) == 0;
}

void
app_report_lcore(struct app_report *r, unsigned int lcore,
		 uint64_t busy_cycles, uint64_t idle_cycles,
		 uint64_t busy_polls, uint64_t idle_polls, uint64_t packets)
{
	if (r->n_lcores < RTE_MAX_LCORE)
		r->lcore[r->n_lcores++] = (struct rep_lcore){ lcore,
			busy_cycles, idle_cycles, busy_polls, idle_polls,
			packets };
}

/* Named unsigned values, in order, into the open object. */
struct kv {
	const char *k;
	uint64_t v;
};

static void
json_u64s(struct aifab_json *j, const struct kv *kv, unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		aifab_json_u64(j, kv[i].k, kv[i].v);
}

/* "lcores": {"1": {...}}: cycles per packet counts busy polls only. */
static void
json_lcores(struct aifab_json *j, const struct app_report *r)
{
	char id[16];
	unsigned int i;

	aifab_json_u64(j, "tsc_hz", r->env->tsc_hz);
	aifab_json_obj(j, "lcores");
	for (i = 0; i < r->n_lcores; i++) {
		const struct rep_lcore *l = &r->lcore[i];
		const struct kv kv[] = {
			{ "busy_cycles", l->busy_cycles },
			{ "idle_cycles", l->idle_cycles },
			{ "busy_polls", l->busy_polls },
			{ "idle_polls", l->idle_polls },
			{ "packets", l->packets },
		};

		snprintf(id, sizeof(id), "%u", l->id);
		aifab_json_obj(j, id);
		json_u64s(j, kv, RTE_DIM(kv));
		aifab_json_dbl(j, "cycles_per_packet", l->packets ?
			       (double)l->busy_cycles / l->packets : 0.0, 2);
		aifab_json_dbl(j, "packets_per_busy_poll", l->busy_polls ?
			       (double)l->packets / l->busy_polls : 0.0, 2);
		aifab_json_end(j);
	}
	aifab_json_end(j);
}

void
app_report_generator(struct app_report *r, const struct aifab_gen_summary *s)
{
	r->gen = *s;
	r->has_gen = true;
}

/* "per_qp": the spread over QPs and the slowest ones. */
static void
json_generator_qps(struct aifab_json *j, const struct aifab_gen_summary *g)
{
	static const char *const dist[] = { "min", "p10", "p50", "p90",
					    "max" };
	const struct kv kv[] = {
		{ "with_loss", g->qps_with_loss },
		{ "with_reorder", g->qps_with_reorder },
		{ "with_duplicates", g->qps_with_duplicates },
		{ "lost_max", g->qp_lost_max },
	};
	uint32_t i;

	aifab_json_obj(j, "per_qp");
	aifab_json_u64(j, "qps", g->n_qps);
	aifab_json_obj(j, "rate_avg_mbps");
	for (i = 0; i < RTE_DIM(dist); i++)
		aifab_json_dbl(j, dist[i], g->qp_rate_dist_mbps[i], 3);
	aifab_json_end(j);
	json_u64s(j, kv, RTE_DIM(kv));
	aifab_json_arr(j, "slowest");
	for (i = 0; i < g->n_qp_listed; i++) {
		const struct aifab_gen_qp_sum *q = &g->qp[i];
		const struct kv ids[] = {
			{ "qpn", q->qpn }, { "src", q->src },
			{ "dst", q->dst }, { "channel", q->channel },
		};
		const struct kv loss[] = {
			{ "lost", q->lost }, { "reordered", q->reordered },
			{ "duplicates", q->duplicates },
			{ "retx_packets", q->retx_packets },
			{ "timeouts", q->timeouts },
		};

		aifab_json_obj(j, NULL);
		json_u64s(j, ids, RTE_DIM(ids));
		aifab_json_dbl(j, "rate_avg_mbps", q->rate_avg_mbps, 3);
		aifab_json_dbl(j, "rate_min_mbps", q->rate_min_mbps, 3);
		json_u64s(j, loss, RTE_DIM(loss));
		aifab_json_end(j);
	}
	aifab_json_end(j);
	aifab_json_end(j);
}

/* {"step": n, "step_us": x, "rank": n} under @p key. */
static void
json_slowest(struct aifab_json *j, const char *key, uint32_t step,
	     double step_us, uint32_t rank)
{
	aifab_json_obj(j, key);
	aifab_json_u64(j, "step", step);
	aifab_json_dbl(j, "step_us", step_us, 3);
	aifab_json_u64(j, "rank", rank);
	aifab_json_end(j);
}

/* "per_iteration": time and bandwidth of each; RC events and the slowest
 * step when known. */
static void
json_generator_iters(struct aifab_json *j, const struct aifab_gen_summary *g)
{
	uint32_t i;

	aifab_json_arr(j, "per_iteration");
	for (i = 0; i < g->n_iter; i++) {
		const struct aifab_gen_iter_sum *is = &g->iter[i];
		double us = g->iter_us[i];
		double alg = us > 0 ? (double)g->size / (us * 1e3) : 0.0;
		const struct kv rc[] = {
			{ "retx_packets", is->retx_packets },
			{ "retx_bytes", is->retx_bytes },
			{ "naks_rx", is->naks_rx },
			{ "timeouts", is->timeouts },
		};

		aifab_json_obj(j, NULL);
		aifab_json_dbl(j, "time_us", us, 3);
		aifab_json_dbl(j, "algbw_gbps", alg, 6);
		aifab_json_dbl(j, "busbw_gbps", us > 0 && g->algbw_gbps > 0 ?
			       alg * g->busbw_gbps / g->algbw_gbps : 0.0, 6);
		if (g->closed_loop)
			json_u64s(j, rc, RTE_DIM(rc));
		if (is->has_slowest)
			json_slowest(j, "slowest", is->slowest_step,
				     is->slowest_step_us, is->slowest_rank);
		aifab_json_end(j);
	}
	aifab_json_end(j);
}

/* "generator", continued: per iteration, the wait beyond the ideal and
 * its price, the closed loop's RC / DCQCN / PFC / fault figures. */
static void
json_generator_loop(struct aifab_json *j, const struct aifab_gen_summary *g)
{
	const struct kv rc[] = {
		{ "retx_packets", g->retx_packets },
		{ "retx_bytes", g->retx_bytes }, { "timeouts", g->timeouts },
		{ "naks_tx", g->naks_tx }, { "naks_rx", g->naks_rx },
		{ "acks_tx", g->acks_tx }, { "acks_rx", g->acks_rx },
		{ "duplicates_rx", g->dup_rx },
		{ "out_of_sequence_rx", g->oos_rx },
		{ "delivered_bytes", g->delivered_bytes },
	};
	const struct kv dcqcn[] = {
		{ "ce_rx", g->ce_rx }, { "cnp_tx", g->cnp_tx },
		{ "cnp_rx", g->cnp_rx }, { "rate_cuts", g->rate_cuts },
	};

	aifab_json_bool(j, "closed_loop", g->closed_loop);
	json_generator_iters(j, g);
	aifab_json_dbl(j, "ideal_us", g->ideal_us, 3);
	aifab_json_dbl(j, "ideal_payload_us", g->ideal_payload_us, 3);
	aifab_json_dbl(j, "wait_beyond_ideal_us", g->wait_beyond_ideal_us, 3);
	aifab_json_dbl(j, "wait_cost_usd", g->wait_cost_usd, 9);
	json_slowest(j, "slowest", g->slowest_step, g->slowest_step_us,
		     g->slowest_rank);
	aifab_json_obj(j, "rc");
	json_u64s(j, rc, RTE_DIM(rc));
	aifab_json_end(j);
	aifab_json_obj(j, "dcqcn");
	json_u64s(j, dcqcn, RTE_DIM(dcqcn));
	aifab_json_dbl(j, "qp_rate_avg_mbps", g->qp_rate_avg_mbps, 3);
	aifab_json_dbl(j, "qp_rate_min_mbps", g->qp_rate_min_mbps, 3);
	aifab_json_end(j);
	json_generator_qps(j, g);
	aifab_json_obj(j, "pfc");
	aifab_json_u64(j, "rx_frames", g->pfc_rx);
	aifab_json_dbl(j, "paused_us", g->paused_us, 3);
	aifab_json_end(j);
	aifab_json_obj(j, "fault");
	aifab_json_u64(j, "dropped", g->fault_dropped);
	aifab_json_u64(j, "ce_marked", g->fault_ce_marked);
	aifab_json_end(j);
}

/* "generator": what nccl-tests reports, plus what came back. */
static void
json_generator(struct aifab_json *j, const struct app_report *r)
{
	const struct aifab_gen_summary *g = &r->gen;
	const struct kv tx[] = {
		{ "tx_packets", g->tx_packets }, { "tx_bytes", g->tx_bytes },
		{ "tx_dropped", g->tx_dropped }, { "rx_packets", g->rx_packets },
		{ "rx_roce", g->rx_roce },
	};
	const struct kv qps[] = {
		{ "lost", g->rx_lost }, { "reordered", g->rx_reordered },
		{ "duplicates", g->rx_duplicates }, { "stale", g->rx_stale },
	};
	const struct kv lat[] = {
		{ "samples", g->lat_count }, { "min", g->lat_min },
		{ "avg", g->lat_avg }, { "p50", g->lat_p50 },
		{ "p99", g->lat_p99 }, { "p999", g->lat_p999 },
		{ "max", g->lat_max },
	};

	if (!r->has_gen)
		return;
	aifab_json_obj(j, "generator");
	aifab_json_obj(j, "collective");
	aifab_json_str(j, "op", g->op != NULL ? g->op : "?");
	aifab_json_u64(j, "size", g->size);
	aifab_json_u64(j, "ranks", g->n_ranks);
	aifab_json_u64(j, "iterations", g->iterations);
	aifab_json_obj(j, "time_us");
	aifab_json_dbl(j, "min", g->time_us_min, 3);
	aifab_json_dbl(j, "avg", g->time_us_avg, 3);
	aifab_json_dbl(j, "max", g->time_us_max, 3);
	aifab_json_end(j);
	aifab_json_dbl(j, "algbw_gbps", g->algbw_gbps, 6);
	aifab_json_dbl(j, "busbw_gbps", g->busbw_gbps, 6);
	aifab_json_end(j);
	json_u64s(j, tx, RTE_DIM(tx));
	aifab_json_obj(j, "qps");
	json_u64s(j, qps, RTE_DIM(qps));
	aifab_json_end(j);
	aifab_json_obj(j, "latency_ns");
	json_u64s(j, lat, RTE_DIM(lat));
	aifab_json_end(j);
	json_generator_loop(j, g);
	aifab_json_end(j);
}

void
app_report_lab(struct app_report *r, const void *lab)
{
	size_t len = 0;
	FILE *f = open_memstream(&r->lab_json, &len);

	if (f == NULL) {
		r->lab_json = NULL;
		return;
	}
	aifab_lab_json(lab, f);
	fclose(f);
}

void
app_report_multihost(struct app_report *r, char *json)
{
	free(r->mh_json);
	r->mh_json = json;
}

void
app_report_free(struct app_report *r)
{
	if (r != NULL) {
		free(r->lab_json);
		free(r->mh_json);
		free(r->ctr);
		free(r->has_eth);
		free(r->eth);
		free(r->port);
	}
	free(r);
}

const char *
app_end_name(enum app_end e)
{
	switch (e) {
	case APP_END_CONSUMED:
		return "input_consumed";
	case APP_END_DURATION:
		return "duration";
	case APP_END_SIGNAL:
		return "signal";
	case APP_END_START_TIMEOUT:
		return "start_timeout";
	case APP_END_REFUSED:
		return "profile_mismatch";
	}
	return "unknown";
}

/* Every entry of one group as an object under @p key. */
static void
json_group(struct aifab_json *j, const char *key, const struct rep_port *rp,
	   const char *group)
{
	unsigned int i;

	aifab_json_obj(j, key);
	for (i = 0; i < rp->n; i++)
		if (strcmp(rp->e[i].group, group) == 0)
			aifab_json_u64(j, rp->e[i].name, rp->e[i].value);
	aifab_json_end(j);
}

/* Distinct group names of a port, in first-seen order. */
static unsigned int
groups_of(const struct rep_port *rp, const char **out, unsigned int max)
{
	unsigned int i, k, n = 0;

	for (i = 0; i < rp->n; i++) {
		for (k = 0; k < n; k++)
			if (strcmp(out[k], rp->e[i].group) == 0)
				break;
		if (k == n && n < max)
			out[n++] = rp->e[i].group;
	}
	return n;
}

/* "tc": {"0": {...}, ...} from the groups tc0..tc7 (none: no "tc"). */
static void
json_tcs(struct aifab_json *j, const struct rep_port *rp,
	 const char **groups, unsigned int ng)
{
	unsigned int g;
	bool first = true;

	for (g = 0; g < ng; g++) {
		if (strncmp(groups[g], "tc", 2) != 0)
			continue;
		if (first)
			aifab_json_obj(j, "tc");
		first = false;
		json_group(j, groups[g] + 2, rp, groups[g]);
	}
	if (!first)
		aifab_json_end(j);
}

/* Members of one group: entries i..(end - 1) of switch @p sw. */
static unsigned int
ecmp_group_end(const struct app_report *r, unsigned int i)
{
	unsigned int k;

	for (k = i; k < r->n_ecmp &&
	     strcmp(r->ecmp[k].group, r->ecmp[i].group) == 0 &&
	     strcmp(r->ecmp[k].sw, r->ecmp[i].sw) == 0; k++)
		;
	return k;
}

/* max/mean of the members' packets (or bytes) of group i..end-1. */
static double
ecmp_imb(const struct app_report *r, unsigned int i, unsigned int end,
	 bool packets)
{
	uint64_t v[AIFAB_MAX_ECMP];
	unsigned int k, n = 0;

	for (k = i; k < end && n < AIFAB_MAX_ECMP; k++)
		v[n++] = packets ? r->ecmp[k].packets : r->ecmp[k].bytes;
	return aifab_ecmp_imbalance(v, n);
}

/*
 * {"<route>": {"members": {...}, "imbalance": x, "imbalance_packets": y}}
 * for the groups of switch @p sw, under @p key; the largest packet
 * imbalance of a group with several members in @p max.
 */
static void
json_ecmp_groups(struct aifab_json *j, const char *key,
		 const struct app_report *r, const char *sw, double *max)
{
	unsigned int i, k, end;

	*max = 0.0;
	aifab_json_obj(j, key);
	for (i = 0; i < r->n_ecmp; i = end) {
		end = ecmp_group_end(r, i);
		if (strcmp(r->ecmp[i].sw, sw) != 0)
			continue;
		aifab_json_obj(j, r->ecmp[i].group);
		aifab_json_obj(j, "members");
		for (k = i; k < end; k++) {
			aifab_json_obj(j, r->ecmp[k].member);
			aifab_json_u64(j, "packets", r->ecmp[k].packets);
			aifab_json_u64(j, "bytes", r->ecmp[k].bytes);
			aifab_json_u64(j, "down_events", r->ecmp[k].down_events);
			aifab_json_end(j);
		}
		aifab_json_end(j);
		aifab_json_dbl(j, "imbalance", ecmp_imb(r, i, end, false), 6);
		aifab_json_dbl(j, "imbalance_packets",
			       ecmp_imb(r, i, end, true), 6);
		aifab_json_u64(j, "remaps", r->ecmp[i].remaps);
		aifab_json_u64(j, "remap_buckets", r->ecmp[i].remap_buckets);
		aifab_json_end(j);
		if (end - i > 1)
			*max = RTE_MAX(*max, ecmp_imb(r, i, end, true));
	}
	aifab_json_end(j);
}

/* "ecmp": the default switch's groups (max/mean of member bytes, and of
 * packets); "switches": each named switch instance's ports and groups. */
static void
json_ecmp(struct aifab_json *j, const struct app_report *r,
	  const struct aifab_profile *prof)
{
	char set[AIFAB_NAME_LEN + 4];
	unsigned int s, p;
	double max;

	json_ecmp_groups(j, "ecmp", r, "", &max);
	if (prof->n_switches <= 1)
		return;
	aifab_json_obj(j, "switches");
	for (s = 1; s < prof->n_switches; s++) {
		aifab_json_obj(j, prof->switches[s].name);
		snprintf(set, sizeof(set), "sw_%s", prof->switches[s].name);
		aifab_json_str(j, "stats_set", set);
		aifab_json_arr(j, "ports");
		for (p = 0; p < prof->n_ports; p++)
			if (prof->ports[p].sw == s)
				aifab_json_str(j, NULL, prof->ports[p].name);
		aifab_json_end(j);
		json_ecmp_groups(j, "ecmp", r, prof->switches[s].name, &max);
		aifab_json_dbl(j, "ecmp_imbalance_max", max, 6);
		aifab_json_end(j);
	}
	aifab_json_end(j);
}

static void
json_port(struct aifab_json *j, const struct app_report *r, unsigned int p)
{
	const struct aifab_port_rt *rt = &r->env->ports[p];
	const struct aifab_port_counters *c = &r->ctr[p];
	const char *groups[16];
	unsigned int g, ng = groups_of(&r->port[p], groups, RTE_DIM(groups));
	const struct kv ctr[] = {
		{ "speed_mbps", rt->speed_mbps },
		{ "rx_packets", c->rx_packets }, { "tx_packets", c->tx_packets },
		{ "rx_bytes", c->rx_bytes }, { "tx_bytes", c->tx_bytes },
	};
	const struct kv eth[] = {
		{ "rx_nombuf", r->eth[p].rx_nombuf },
		{ "imissed", r->eth[p].imissed },
		{ "ierrors", r->eth[p].ierrors },
		{ "oerrors", r->eth[p].oerrors },
	};

	aifab_json_obj(j, rt->name);
	aifab_json_str(j, "device", rt->device);
	json_u64s(j, ctr, RTE_DIM(ctr));
	if (r->has_eth[p])
		json_u64s(j, eth, RTE_DIM(eth));
	for (g = 0; g < ng; g++)
		if (strncmp(groups[g], "tc", 2) != 0)
			json_group(j, groups[g], &r->port[p], groups[g]);
	json_tcs(j, &r->port[p], groups, ng);
	aifab_json_end(j);
}

/* The whole report as one object, pretty-printed. */
static int
json_report(FILE *f, const struct app_report *r,
	    const struct aifab_profile *prof, double elapsed_s,
	    enum app_end end, unsigned int mbufs_in_use)
{
	struct aifab_json j;
	unsigned int p;

	aifab_json_begin(&j, f, 2);
	aifab_json_obj(&j, NULL);
	aifab_json_str(&j, "tool", "dpdk-aifab");
	aifab_json_str(&j, "version", AIFAB_VERSION);
	aifab_json_obj(&j, "profile");
	aifab_json_str(&j, "name", prof->name);
	aifab_json_str(&j, "path", prof->path);
	aifab_json_str(&j, "digest", prof->digest);
	aifab_json_end(&j);
	aifab_json_dbl(&j, "elapsed_s", elapsed_s, 6);
	aifab_json_str(&j, "end", app_end_name(end));
	aifab_json_str(&j, "clock", prof->clock == AIFAB_CLOCK_VIRTUAL ?
		       "virtual" : "realtime");
	if (r->has_vclock) {
		aifab_json_obj(&j, "virtual_clock");
		aifab_json_u64(&j, "model_time_ns", r->vc_now_ns);
		aifab_json_u64(&j, "steps", r->vc_steps);
		aifab_json_u64(&j, "frame_hops", r->vc_hops);
		aifab_json_end(&j);
	}
	aifab_json_obj(&j, "ports");
	for (p = 0; p < r->env->n_ports; p++)
		json_port(&j, r, p);
	aifab_json_end(&j);
	json_ecmp(&j, r, prof);
	json_generator(&j, r);
	if (r->lab_json != NULL)
		aifab_json_raw(&j, "lab", r->lab_json);
	if (r->mh_json != NULL)
		aifab_json_raw(&j, "multihost", r->mh_json);
	json_lcores(&j, r);
	aifab_json_u64(&j, "mempool_in_use_at_exit", mbufs_in_use);
	aifab_json_end(&j);
	if (aifab_json_finish(&j) != 0 || fputc('\n', f) == EOF) {
		if (!ferror(f))
			errno = EINVAL;   /* misuse: a bug in this file */
		return -1;
	}
	return 0;
}

int
app_report_write_json(const struct app_report *r, const char *path,
		      const struct aifab_profile *prof, double elapsed_s,
		      enum app_end end, unsigned int mbufs_in_use)
{
	char tmp[PATH_MAX];
	FILE *f;
	int rc;

	/* Write a temporary file and rename it: readers never see half. */
	f = aifab_stats_file_open(path, tmp, sizeof(tmp));
	if (f == NULL)
		return -1;
	errno = 0;
	rc = json_report(f, r, prof, elapsed_s, end, mbufs_in_use) == 0 ?
		0 : -(errno != 0 ? errno : EIO);
	rc = aifab_stats_file_commit(f, tmp, rc);
	if (rc != 0) {
		errno = -rc;
		return -1;
	}
	return 0;
}

/* Groups with several members: packets per member and max/mean. */
static void
app_report_print_ecmp(const struct app_report *r, FILE *f)
{
	unsigned int i, k, end;
	bool head = false;

	for (i = 0; i < r->n_ecmp; i = end) {
		end = ecmp_group_end(r, i);
		if (end - i < 2)
			continue;
		if (!head)
			fprintf(f, "\n%-8s %-20s %9s  %s\n", "ecmp", "group",
				"imbalance", "member packets");
		head = true;
		fprintf(f, "%-8s %-20s %9.3f ", r->ecmp[i].sw[0] ?
			r->ecmp[i].sw : "switch", r->ecmp[i].group,
			ecmp_imb(r, i, end, true));
		for (k = i; k < end; k++)
			fprintf(f, " %s=%" PRIu64, r->ecmp[k].member,
				r->ecmp[k].packets);
		fputc('\n', f);
	}
}

/* Sum of a named value over ports, in group @p grp ("tc" = every TC). */
static uint64_t
rep_sum(const struct app_report *r, const char *grp, const char *name)
{
	unsigned int p, i;
	uint64_t v = 0;

	for (p = 0; p < r->env->n_ports; p++)
		for (i = 0; i < r->port[p].n; i++) {
			const struct rep_entry *e = &r->port[p].e[i];

			if (strcmp(e->name, name) == 0 &&
			    strncmp(e->group, grp, strlen(grp)) == 0)
				v += e->value;
		}
	return v;
}

/*
 * The thesis in numbers: what the PFC, ECN and ECMP counters of this run
 * say, in a few lines a newcomer can read (the demo ends with them).
 */
void
app_report_explain(const struct app_report *r, FILE *f)
{
	uint64_t xoff = rep_sum(r, "tc", "pfc_xoff_sent");
	uint64_t paused = rep_sum(r, "tc", "paused_ns");
	uint64_t marked = rep_sum(r, "tc", "ecn_marked");
	uint64_t drops = rep_sum(r, "drops", "egress_queue") +
		rep_sum(r, "drops", "headroom_overflow") +
		rep_sum(r, "drops", "pfcwd") + rep_sum(r, "drops", "fault_loss") +
		rep_sum(r, "drops", "link_down");
	unsigned int i, end, groups = 0;
	double worst = 0;

	for (i = 0; i < r->n_ecmp; i = end) {
		end = ecmp_group_end(r, i);
		if (end - i < 2)
			continue;
		groups++;
		worst = RTE_MAX(worst, ecmp_imb(r, i, end, true));
	}
	fprintf(f, "\nwhat the fabric counters say:\n");
	if (xoff == 0)
		fprintf(f, "  PFC   no pause: no lossless queue reached its XOFF "
			"threshold\n");
	else
		fprintf(f, "  PFC   the switch sent %" PRIu64 " XOFF: lossless "
			"queues filled and it paused senders instead of "
			"dropping; %s %.1f us in all\n", xoff,
			r->has_gen ? "the NICs were held back" :
			"its egress was paused", r->has_gen ? r->gen.paused_us :
			paused / 1e3);
	if (marked == 0)
		fprintf(f, "  ECN   nothing marked: no queue reached Kmin\n");
	else if (r->has_gen && r->gen.closed_loop)
		fprintf(f, "  ECN   %" PRIu64 " packets marked CE from queue "
			"depth; receivers answered with %" PRIu64 " CNPs and "
			"DCQCN cut rates %" PRIu64 " times\n", marked,
			r->gen.cnp_tx, r->gen.rate_cuts);
	else
		fprintf(f, "  ECN   %" PRIu64 " packets marked CE from queue "
			"depth\n", marked);
	if (groups > 0)
		fprintf(f, "  ECMP  %u multi-path groups; the busiest member "
			"carried %.2fx the mean (1.00 = even; polarised tiers "
			"reach 2.00)\n", groups, worst);
	else
		fprintf(f, "  ECMP  no multi-path route in this fabric (see "
			"profiles/clos.ini and profiles/scenarios/"
			"ecmp-polarization*.ini)\n");
	if (drops == 0 && (!r->has_gen || r->gen.retx_packets == 0))
		fprintf(f, "  loss  nothing dropped, nothing re-sent: the "
			"collective ran at the pace of the links%s\n",
			r->has_vclock ? "" : " and the CPU");
	else if (r->has_gen && r->gen.closed_loop)
		fprintf(f, "  loss  %" PRIu64 " frames dropped in the fabric; "
			"go-back-N re-sent %" PRIu64 " packets and %" PRIu64
			" recoveries waited for the retransmit timer: every GPU "
			"waits for the slowest\n", drops, r->gen.retx_packets,
			r->gen.timeouts);
	else
		fprintf(f, "  loss  %" PRIu64 " frames dropped in the fabric\n",
			drops);
}

void
app_report_print(const struct app_report *r, FILE *f)
{
	unsigned int p, i;

	fprintf(f, "\n%-6s %12s %12s %14s %14s %10s  %s\n", "port", "rx_pkts",
		"tx_pkts", "rx_bytes", "tx_bytes", "dropped", "drop reasons");
	for (p = 0; p < r->env->n_ports; p++) {
		const struct rep_port *rp = &r->port[p];
		const struct aifab_port_counters *c = &r->ctr[p];
		uint64_t drops = 0;

		for (i = 0; i < rp->n; i++)
			if (strcmp(rp->e[i].group, "drops") == 0)
				drops += rp->e[i].value;
		fprintf(f, "%-6s %12" PRIu64 " %12" PRIu64 " %14" PRIu64
			" %14" PRIu64 " %10" PRIu64 " ", r->env->ports[p].name,
			c->rx_packets, c->tx_packets, c->rx_bytes, c->tx_bytes,
			drops);
		for (i = 0; i < rp->n; i++)
			if (strcmp(rp->e[i].group, "drops") == 0 &&
			    rp->e[i].value != 0)
				fprintf(f, " %s=%" PRIu64, rp->e[i].name,
					rp->e[i].value);
		if (r->has_eth[p] && r->eth[p].rx_nombuf != 0)
			fprintf(f, " (PMD: rx_nombuf=%" PRIu64 ")",
				r->eth[p].rx_nombuf);
		if (r->has_eth[p] && r->eth[p].imissed != 0)
			fprintf(f, " (PMD: imissed=%" PRIu64 ")",
				r->eth[p].imissed);
		fputc('\n', f);
	}
	app_report_print_ecmp(r, f);
}
