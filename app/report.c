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

#include "aifab_ecmp.h"
#include "aifab_version.h"
#include "app.h"
#include "lab.h"
#include "generator.h"

#define REP_MAX_ENTRIES 512
#define REP_MAX_ECMP 256

static void json_str(FILE *f, const char *s);

struct rep_entry {
	char group[24];
	char name[40];
	uint64_t value;
};

struct rep_port {
	unsigned int n;
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
	bool has_gen;
	struct aifab_gen_summary gen;
	unsigned int n_lcores;
	struct rep_lcore lcore[RTE_MAX_LCORE];
	struct aifab_report_sink sink;
	const struct aifab_env *env;
	struct aifab_port_counters ctr[AIFAB_MAX_PORTS];
	/* the ethdev's own counters (rte_eth_stats) when the run ended */
	bool has_eth[AIFAB_MAX_PORTS];
	struct rte_eth_stats eth[AIFAB_MAX_PORTS];
	struct rep_port port[AIFAB_MAX_PORTS];
	unsigned int n_ecmp;
	struct rep_ecmp ecmp[REP_MAX_ECMP];
	char cur_sw[AIFAB_NAME_LEN];  /* switch of the next ecmp members */
};

static void
rep_port_u64(void *ctx, uint16_t port, const char *group, const char *name,
	     uint64_t value)
{
	struct app_report *r = ctx;
	struct rep_port *rp;
	unsigned int i;

	if (port >= r->env->n_ports)
		return;
	rp = &r->port[port];
	for (i = 0; i < rp->n; i++)
		if (strcmp(rp->e[i].group, group) == 0 &&
		    strcmp(rp->e[i].name, name) == 0) {
			rp->e[i].value += value;
			return;
		}
	if (rp->n == REP_MAX_ENTRIES)
		return;
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

	if (r == NULL)
		return NULL;
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
		r->has_eth[p] = rte_eth_stats_get(r->env->ports[p].port_id,
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

/* "lcores": {"1": {...}}: cycles per packet counts busy polls only. */
static void
json_lcores(FILE *f, const struct app_report *r)
{
	unsigned int i;

	fprintf(f, "  \"tsc_hz\": %" PRIu64 ",\n  \"lcores\": {", r->env->tsc_hz);
	for (i = 0; i < r->n_lcores; i++) {
		const struct rep_lcore *l = &r->lcore[i];

		fprintf(f, "%s\n    \"%u\": {\"busy_cycles\": %" PRIu64
			", \"idle_cycles\": %" PRIu64 ", \"busy_polls\": %"
			PRIu64 ", \"idle_polls\": %" PRIu64 ", \"packets\": %"
			PRIu64 ", \"cycles_per_packet\": %.2f, "
			"\"packets_per_busy_poll\": %.2f}", i ? "," : "", l->id,
			l->busy_cycles, l->idle_cycles, l->busy_polls,
			l->idle_polls, l->packets,
			l->packets ? (double)l->busy_cycles / l->packets : 0.0,
			l->busy_polls ? (double)l->packets / l->busy_polls : 0.0);
	}
	fprintf(f, "%s},\n", r->n_lcores ? "\n  " : "");
}

void
app_report_generator(struct app_report *r, const struct aifab_gen_summary *s)
{
	r->gen = *s;
	r->has_gen = true;
}

/* "per_qp": the spread over QPs and the slowest ones. */
static void
json_generator_qps(FILE *f, const struct aifab_gen_summary *g)
{
	const double *d = g->qp_rate_dist_mbps;
	uint32_t i;

	fprintf(f, "    \"per_qp\": {\"qps\": %u, \"rate_avg_mbps\": "
		"{\"min\": %.3f, \"p10\": %.3f, \"p50\": %.3f, \"p90\": "
		"%.3f, \"max\": %.3f},\n      \"with_loss\": %u, "
		"\"with_reorder\": %u, \"with_duplicates\": %u, "
		"\"lost_max\": %" PRIu64 ",\n      \"slowest\": [",
		g->n_qps, d[0], d[1], d[2], d[3], d[4], g->qps_with_loss,
		g->qps_with_reorder, g->qps_with_duplicates, g->qp_lost_max);
	for (i = 0; i < g->n_qp_listed; i++) {
		const struct aifab_gen_qp_sum *q = &g->qp[i];

		fprintf(f, "%s{\"qpn\": %u, \"src\": %u, \"dst\": %u, "
			"\"channel\": %u, \"rate_avg_mbps\": %.3f, "
			"\"rate_min_mbps\": %.3f, \"lost\": %" PRIu64
			", \"reordered\": %" PRIu64 ", \"duplicates\": %"
			PRIu64 ", \"retx_packets\": %" PRIu64
			", \"timeouts\": %" PRIu64 "}",
			i ? ",\n        " : "\n        ", q->qpn, q->src,
			q->dst, q->channel, q->rate_avg_mbps, q->rate_min_mbps,
			q->lost, q->reordered, q->duplicates, q->retx_packets,
			q->timeouts);
	}
	fprintf(f, "]},\n");
}

/* "generator", continued: per iteration, the wait beyond the ideal and
 * its price, the closed loop's RC / DCQCN / PFC / fault figures. */
static void
json_generator_loop(FILE *f, const struct aifab_gen_summary *g)
{
	uint32_t i;

	fprintf(f, "    \"closed_loop\": %s,\n    \"per_iteration\": [",
		g->closed_loop ? "true" : "false");
	for (i = 0; i < g->n_iter; i++) {
		const struct aifab_gen_iter_sum *is = &g->iter[i];

		fprintf(f, "%s{\"time_us\": %.3f, \"algbw_gbps\": %.6f, "
			"\"busbw_gbps\": %.6f", i ? ",\n      " : "\n      ",
			g->iter_us[i], g->iter_us[i] > 0 ?
			(double)g->size / (g->iter_us[i] * 1e3) : 0.0,
			g->iter_us[i] > 0 && g->algbw_gbps > 0 ?
			(double)g->size / (g->iter_us[i] * 1e3) *
			g->busbw_gbps / g->algbw_gbps : 0.0);
		if (g->closed_loop)
			fprintf(f, ",\n       \"retx_packets\": %" PRIu64
				", \"retx_bytes\": %" PRIu64 ", \"naks_rx\": %"
				PRIu64 ", \"timeouts\": %" PRIu64,
				is->retx_packets, is->retx_bytes, is->naks_rx,
				is->timeouts);
		if (is->has_slowest)
			fprintf(f, ",\n       \"slowest\": {\"step\": %u, "
				"\"step_us\": %.3f, \"rank\": %u}",
				is->slowest_step, is->slowest_step_us,
				is->slowest_rank);
		fputc('}', f);
	}
	fprintf(f, "],\n    \"ideal_us\": %.3f, \"wait_beyond_ideal_us\": "
		"%.3f, \"wait_cost_usd\": %.9f,\n", g->ideal_us,
		g->wait_beyond_ideal_us, g->wait_cost_usd);
	fprintf(f, "    \"slowest\": {\"step\": %u, \"step_us\": %.3f, "
		"\"rank\": %u},\n", g->slowest_step, g->slowest_step_us,
		g->slowest_rank);
	fprintf(f, "    \"rc\": {\"retx_packets\": %" PRIu64
		", \"retx_bytes\": %" PRIu64 ", \"timeouts\": %" PRIu64
		", \"naks_tx\": %" PRIu64 ", \"naks_rx\": %" PRIu64
		", \"acks_tx\": %" PRIu64 ", \"acks_rx\": %" PRIu64
		", \"duplicates_rx\": %" PRIu64 ", \"out_of_sequence_rx\": %"
		PRIu64 ", \"delivered_bytes\": %" PRIu64 "},\n",
		g->retx_packets, g->retx_bytes, g->timeouts, g->naks_tx,
		g->naks_rx, g->acks_tx, g->acks_rx, g->dup_rx, g->oos_rx,
		g->delivered_bytes);
	fprintf(f, "    \"dcqcn\": {\"ce_rx\": %" PRIu64 ", \"cnp_tx\": %"
		PRIu64 ", \"cnp_rx\": %" PRIu64 ", \"rate_cuts\": %" PRIu64
		", \"qp_rate_avg_mbps\": %.3f, \"qp_rate_min_mbps\": %.3f},\n",
		g->ce_rx, g->cnp_tx, g->cnp_rx, g->rate_cuts,
		g->qp_rate_avg_mbps, g->qp_rate_min_mbps);
	json_generator_qps(f, g);
	fprintf(f, "    \"pfc\": {\"rx_frames\": %" PRIu64 ", \"paused_us\": "
		"%.3f},\n    \"fault\": {\"dropped\": %" PRIu64
		", \"ce_marked\": %" PRIu64 "}\n  },\n", g->pfc_rx,
		g->paused_us, g->fault_dropped, g->fault_ce_marked);
}

/* "generator": what nccl-tests reports, plus what came back. */
static void
json_generator(FILE *f, const struct app_report *r)
{
	const struct aifab_gen_summary *g = &r->gen;

	if (!r->has_gen)
		return;
	fprintf(f, "  \"generator\": {\n    \"collective\": {\"op\": ");
	json_str(f, g->op != NULL ? g->op : "?");
	fprintf(f, ", \"size\": %" PRIu64 ", \"ranks\": %u, "
		"\"iterations\": %u,\n      \"time_us\": {\"min\": %.3f, "
		"\"avg\": %.3f, \"max\": %.3f}, \"algbw_gbps\": %.6f, "
		"\"busbw_gbps\": %.6f},\n", g->size, g->n_ranks,
		g->iterations, g->time_us_min, g->time_us_avg, g->time_us_max,
		g->algbw_gbps, g->busbw_gbps);
	fprintf(f, "    \"tx_packets\": %" PRIu64 ", \"tx_bytes\": %" PRIu64
		", \"tx_dropped\": %" PRIu64 ",\n    \"rx_packets\": %" PRIu64
		", \"rx_roce\": %" PRIu64 ",\n    \"qps\": {\"lost\": %"
		PRIu64 ", \"reordered\": %" PRIu64 ", \"duplicates\": %"
		PRIu64 ", \"stale\": %" PRIu64 "},\n", g->tx_packets,
		g->tx_bytes, g->tx_dropped, g->rx_packets, g->rx_roce,
		g->rx_lost, g->rx_reordered, g->rx_duplicates, g->rx_stale);
	fprintf(f, "    \"latency_ns\": {\"samples\": %" PRIu64 ", \"min\": %"
		PRIu64 ", \"avg\": %" PRIu64 ", \"p50\": %" PRIu64
		", \"p99\": %" PRIu64 ", \"p999\": %" PRIu64 ", \"max\": %"
		PRIu64 "},\n", g->lat_count, g->lat_min, g->lat_avg,
		g->lat_p50, g->lat_p99, g->lat_p999, g->lat_max);
	json_generator_loop(f, g);
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
app_report_free(struct app_report *r)
{
	if (r != NULL)
		free(r->lab_json);
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
	}
	return "unknown";
}

/* JSON string with the escapes RFC 8259 requires. */
static void
json_str(FILE *f, const char *s)
{
	fputc('"', f);
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == '"' || c == '\\')
			fprintf(f, "\\%c", c);
		else if (c < 0x20)
			fprintf(f, "\\u%04x", c);
		else
			fputc(c, f);
	}
	fputc('"', f);
}

/* Every entry of one group as a JSON object body. */
static void
json_group(FILE *f, const struct rep_port *rp, const char *group)
{
	unsigned int i;
	bool first = true;

	fputc('{', f);
	for (i = 0; i < rp->n; i++) {
		if (strcmp(rp->e[i].group, group) != 0)
			continue;
		fprintf(f, "%s\n        ", first ? "" : ",");
		json_str(f, rp->e[i].name);
		fprintf(f, ": %" PRIu64, rp->e[i].value);
		first = false;
	}
	fprintf(f, "%s}", first ? "" : "\n      ");
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

/* "tc": {"0": {...}, ...} from the groups tc0..tc7. */
static void
json_tcs(FILE *f, const struct rep_port *rp, const char **groups,
	 unsigned int ng)
{
	unsigned int g;
	bool first = true;

	for (g = 0; g < ng; g++) {
		if (strncmp(groups[g], "tc", 2) != 0)
			continue;
		fprintf(f, "%s\n        \"%s\": ", first ?
			",\n      \"tc\": {" : ",", groups[g] + 2);
		json_group(f, rp, groups[g]);
		first = false;
	}
	if (!first)
		fprintf(f, "\n      }");
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
 * for the groups of switch @p sw; the largest packet imbalance of a group
 * with several members in @p max.
 */
static void
json_ecmp_groups(FILE *f, const struct app_report *r, const char *sw,
		 const char *ind, double *max)
{
	unsigned int i, k, end;
	bool first = true;

	*max = 0.0;
	fputc('{', f);
	for (i = 0; i < r->n_ecmp; i = end) {
		end = ecmp_group_end(r, i);
		if (strcmp(r->ecmp[i].sw, sw) != 0)
			continue;
		fprintf(f, "%s\n%s  ", first ? "" : ",", ind);
		first = false;
		json_str(f, r->ecmp[i].group);
		fprintf(f, ": {\n%s    \"members\": {", ind);
		for (k = i; k < end; k++) {
			fprintf(f, "%s\n%s      ", k > i ? "," : "", ind);
			json_str(f, r->ecmp[k].member);
			fprintf(f, ": {\"packets\": %" PRIu64 ", \"bytes\": %"
				PRIu64 ", \"down_events\": %" PRIu64 "}",
				r->ecmp[k].packets, r->ecmp[k].bytes,
				r->ecmp[k].down_events);
		}
		fprintf(f, "\n%s    },\n%s    \"imbalance\": %.6f,\n%s    "
			"\"imbalance_packets\": %.6f,\n%s    \"remaps\": %"
			PRIu64 ",\n%s    \"remap_buckets\": %" PRIu64 "\n%s  }",
			ind, ind, ecmp_imb(r, i, end, false), ind,
			ecmp_imb(r, i, end, true), ind, r->ecmp[i].remaps, ind,
			r->ecmp[i].remap_buckets, ind);
		if (end - i > 1)
			*max = RTE_MAX(*max, ecmp_imb(r, i, end, true));
	}
	fprintf(f, "%s}", first ? "" : "\n");
	if (!first)
		fputs(ind, f);
}

/* "ecmp": the default switch's groups (max/mean of member bytes, and of
 * packets); "switches": each named switch instance's ports and groups. */
static void
json_ecmp(FILE *f, const struct app_report *r, const struct aifab_profile *prof)
{
	unsigned int s, p;
	double max;
	bool first_port;

	fprintf(f, "  \"ecmp\": ");
	json_ecmp_groups(f, r, "", "  ", &max);
	fprintf(f, ",\n");
	if (prof->n_switches <= 1)
		return;
	fprintf(f, "  \"switches\": {");
	for (s = 1; s < prof->n_switches; s++) {
		fprintf(f, "%s\n    ", s > 1 ? "," : "");
		json_str(f, prof->switches[s].name);
		fprintf(f, ": {\n      \"stats_set\": \"sw_%s\",\n      "
			"\"ports\": [", prof->switches[s].name);
		for (p = 0, first_port = true; p < prof->n_ports; p++) {
			if (prof->ports[p].sw != s)
				continue;
			fprintf(f, "%s", first_port ? "" : ", ");
			json_str(f, prof->ports[p].name);
			first_port = false;
		}
		fprintf(f, "],\n      \"ecmp\": ");
		json_ecmp_groups(f, r, prof->switches[s].name, "      ", &max);
		fprintf(f, ",\n      \"ecmp_imbalance_max\": %.6f\n    }", max);
	}
	fprintf(f, "\n  },\n");
}

static void
json_port(FILE *f, const struct app_report *r, unsigned int p)
{
	const struct aifab_port_rt *rt = &r->env->ports[p];
	const struct aifab_port_counters *c = &r->ctr[p];
	const char *groups[16];
	unsigned int g, ng = groups_of(&r->port[p], groups, RTE_DIM(groups));

	fprintf(f, "    ");
	json_str(f, rt->name);
	fprintf(f, ": {\n      \"device\": ");
	json_str(f, rt->device);
	fprintf(f, ",\n      \"speed_mbps\": %u,\n"
		"      \"rx_packets\": %" PRIu64 ",\n"
		"      \"tx_packets\": %" PRIu64 ",\n"
		"      \"rx_bytes\": %" PRIu64 ",\n"
		"      \"tx_bytes\": %" PRIu64,
		rt->speed_mbps, c->rx_packets, c->tx_packets, c->rx_bytes,
		c->tx_bytes);
	if (r->has_eth[p])
		fprintf(f, ",\n      \"rx_nombuf\": %" PRIu64 ",\n"
			"      \"imissed\": %" PRIu64 ",\n"
			"      \"ierrors\": %" PRIu64 ",\n"
			"      \"oerrors\": %" PRIu64, r->eth[p].rx_nombuf,
			r->eth[p].imissed, r->eth[p].ierrors,
			r->eth[p].oerrors);
	for (g = 0; g < ng; g++) {
		if (strncmp(groups[g], "tc", 2) == 0)
			continue;
		fprintf(f, ",\n      ");
		json_str(f, groups[g]);
		fprintf(f, ": ");
		json_group(f, &r->port[p], groups[g]);
	}
	json_tcs(f, &r->port[p], groups, ng);
	fprintf(f, "\n    }");
}

int
app_report_write_json(const struct app_report *r, const char *path,
		      const struct aifab_profile *prof, double elapsed_s,
		      enum app_end end, unsigned int mbufs_in_use)
{
	char tmp[PATH_MAX];
	unsigned int p;
	FILE *f;
	int rc;

	/* Write a temporary file and rename it: readers never see half. */
	if (snprintf(tmp, sizeof(tmp), "%s.tmp", path) >= (int)sizeof(tmp)) {
		errno = ENAMETOOLONG;
		return -1;
	}
	f = fopen(tmp, "w");
	if (f == NULL)
		return -1;
	fprintf(f, "{\n  \"tool\": \"dpdk-aifab\",\n  \"version\": ");
	json_str(f, AIFAB_VERSION);
	fprintf(f, ",\n  \"profile\": {\"name\": ");
	json_str(f, prof->name);
	fprintf(f, ", \"path\": ");
	json_str(f, prof->path);
	fprintf(f, "},\n  \"elapsed_s\": %.6f,\n  \"end\": \"%s\",\n"
		"  \"ports\": {\n", elapsed_s, app_end_name(end));
	for (p = 0; p < r->env->n_ports; p++) {
		json_port(f, r, p);
		fprintf(f, "%s\n", p + 1 < r->env->n_ports ? "," : "");
	}
	fprintf(f, "  },\n");
	json_ecmp(f, r, prof);
	json_generator(f, r);
	if (r->lab_json != NULL)
		fprintf(f, "  \"lab\": %s,\n", r->lab_json);
	json_lcores(f, r);
	fprintf(f, "  \"mempool_in_use_at_exit\": %u\n}\n", mbufs_in_use);
	rc = ferror(f) ? -1 : 0;
	if (fclose(f) != 0)
		rc = -1;
	if (rc == 0 && rename(tmp, path) != 0)
		rc = -1;
	if (rc != 0)
		remove(tmp);
	return rc;
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
			"collective ran at the pace of the links and the CPU\n");
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
