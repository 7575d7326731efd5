/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rte_telemetry commands under /aifab/ (see README "Statistics"):
 *
 *   /aifab/ports[,<port>]   per port rx/tx (the JSON report's figures),
 *                           drops, ECN marks, PFC; one port: every counter
 *   /aifab/tc[,<port>]      per (port, TC) counters and queue depth
 *   /aifab/pfc[,<port>]     per (port, priority) PFC counters, paused time
 *   /aifab/ecmp             packets and bytes per ECMP group member
 *   /aifab/generator        the collective's figures so far and every
 *                           counter of the generator's lib/stats set
 *   /aifab/lcores           per lcore busy/idle cycles, polls, packets
 *   /aifab/mempool          mbufs in use: the app's port pools (app_in_use),
 *                           every mempool of the process (total_in_use:
 *                           what mempool_in_use_at_exit reports at exit)
 *                           and each pool by name
 *   /aifab/port_list[,<from>]  every port of the process by id (its index
 *                           in the profile), name and kind: ethdevs and the
 *                           in-memory `wire` ports DPDK's /ethdev/ commands
 *                           do not see; at most TEL_PORTS_PAGE per answer
 *   /aifab/port_stats,<id|name>  one port like /ethdev/stats: ipackets,
 *                           opackets, ibytes, obytes (the JSON report's
 *                           figures), kind, peer, speed, its switch's drops
 *   /aifab/sw[,<inst>][,<counter>]  a switch instance's whole set (lib/stats;
 *                           one command for every instance: DPDK 22.11
 *                           has a fixed table of 64 commands); with one
 *                           switch /aifab/sw[,<counter>] as before
 *   /aifab/<set>[,<name>]   any other pipeline's whole set (lib/stats)
 *
 * Requests run on DPDK's telemetry thread and read the counter blocks as
 * any reader does. DPDK 22.11 callbacks get no user pointer: the running
 * app is found through the one static pointer below, under a mutex so
 * that app_telemetry_stop() waits for a request in flight. Telemetry keeps
 * a command for the life of the process: later requests answer null.
 */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include <rte_cycles.h>
#include <rte_mempool.h>
#include <rte_telemetry.h>

#include "export.h"

/* Ports per /aifab/port_list answer: DPDK 22.11 answers at most 16 KB and
 * 512 array entries; 2560 ports of a 1024-rank Clos take several pages. */
#define TEL_PORTS_PAGE 256

static pthread_mutex_t tel_lock = PTHREAD_MUTEX_INITIALIZER;
static struct app_stats *tel_app;
static bool tel_registered;

typedef int (*tel_fill_fn)(struct app_stats *s, const char *params,
			   struct rte_tel_data *d);

static uint64_t
tel_now(void)
{
	return rte_rdtsc();
}

static int
tel_run(tel_fill_fn fn, const char *params, struct rte_tel_data *d)
{
	int rc = -ENODEV;

	pthread_mutex_lock(&tel_lock);
	if (tel_app != NULL)
		rc = fn(tel_app, params != NULL && params[0] != '\0' ?
			params : NULL, d);
	pthread_mutex_unlock(&tel_lock);
	return rc;
}

/* ---- helpers --------------------------------------------------------------- */

static int
add_port_names(struct app_stats *s, struct rte_tel_data *d)
{
	struct rte_tel_data *a = rte_tel_data_alloc();
	unsigned int p;
	int rc;

	if (a == NULL)
		return -ENOMEM;
	rc = rte_tel_data_start_array(a, RTE_TEL_STRING_VAL);
	for (p = 0; rc == 0 && p < s->env->n_ports; p++)
		rc = rte_tel_data_add_array_string(a, s->env->ports[p].name);
	if (rc == 0)
		rc = rte_tel_data_add_dict_container(d, "ports", a, 0);
	if (rc != 0)
		rte_tel_data_free(a);
	return rc;
}

/* Env port @p p in the first switch's set: its index there, or -1 (a
 * switch of a big fabric counts only its own ports, from 0). */
static int
sw_port(const struct app_stats *s, unsigned int p)
{
	unsigned int i;

	if (s->sw_map == NULL)
		return (int)p;
	for (i = 0; i < s->sw_n_map; i++)
		if (s->sw_map[i] == p)
			return (int)i;
	return -1;
}

/* The first switch's set's port names (its own ports). */
static int
add_sw_port_names(struct app_stats *s, struct rte_tel_data *d)
{
	const struct aifab_stats_set *set = s->set[s->sw].set;
	struct rte_tel_data *a;
	unsigned int p;
	int rc;

	if (s->sw_map == NULL)
		return add_port_names(s, d);
	a = rte_tel_data_alloc();
	if (a == NULL)
		return -ENOMEM;
	rc = rte_tel_data_start_array(a, RTE_TEL_STRING_VAL);
	for (p = 0; rc == 0 && p < aifab_stats_n_ports(set); p++)
		rc = rte_tel_data_add_array_string(a,
					aifab_stats_port_name(set, p));
	if (rc == 0)
		rc = rte_tel_data_add_dict_container(d, "ports", a, 0);
	if (rc != 0)
		rte_tel_data_free(a);
	return rc;
}

static int
port_index(const struct app_stats *s, const char *name)
{
	unsigned int p;

	for (p = 0; p < s->env->n_ports; p++)
		if (strcmp(s->env->ports[p].name, name) == 0)
			return (int)p;
	return -1;
}

/* A fresh snapshot of set @p i (caller frees). */
static struct aifab_stats_snap *
snap_of(const struct app_stats *s, int i)
{
	struct aifab_stats_snap *snap;

	if (i < 0)
		return NULL;
	snap = aifab_stats_snap_alloc(s->set[i].set);
	if (snap != NULL)
		aifab_stats_read(s->set[i].set, snap, rte_rdtsc());
	return snap;
}

/* ---- /aifab/ports ------------------------------------------------------------ */

static int
ports_all(struct app_stats *s, const struct aifab_port_counters *pc,
	  const struct aifab_stats_snap *snap, struct rte_tel_data *d)
{
	static const char *const sums[] = {
		"drops", "drop_*", "ecn_marked", "ecn_marked", "pfc_tx",
		"pfc_tx", "pfc_rx", "pfc_rx", "pfc_paused_cycles",
		"pfc_paused_cycles",
	};
	uint64_t v[AIFAB_MAX_PORTS];
	unsigned int p, k, n = s->env->n_ports;
	int rc = add_port_names(s, d);

#define COL(field) do { \
		for (p = 0; p < n; p++) \
			v[p] = pc[p].field; \
		if (rc == 0) \
			rc = aifab_stats_tel_u64s(d, #field, v, n); \
	} while (0)
	COL(rx_packets);
	COL(tx_packets);
	COL(rx_bytes);
	COL(tx_bytes);
#undef COL
	for (k = 0; snap != NULL && rc == 0 && k < RTE_DIM(sums); k += 2) {
		for (p = 0; p < n; p++)
			v[p] = sw_port(s, p) < 0 ? 0 :
				app_stats_sum(s->set[s->sw].set, snap,
					      sums[k + 1], sw_port(s, p));
		rc = aifab_stats_tel_u64s(d, sums[k], v, n);
	}
	return rc;
}

/* One port: the report's rx/tx, then every port-scoped switch counter
 * (per-TC and per-priority ones summed over the port's instances). */
static int
ports_one(struct app_stats *s, int port, const struct aifab_port_counters *pc,
	  const struct aifab_stats_snap *snap, struct rte_tel_data *d)
{
	const struct aifab_stats_set *set;
	unsigned int id, i;
	int rc;

	rc = rte_tel_data_add_dict_string(d, "port", s->env->ports[port].name);
	if (rc == 0)
		rc = rte_tel_data_add_dict_u64(d, "rx_packets",
					       pc[port].rx_packets);
	if (rc == 0)
		rc = rte_tel_data_add_dict_u64(d, "tx_packets",
					       pc[port].tx_packets);
	if (rc == 0)
		rc = rte_tel_data_add_dict_u64(d, "rx_bytes", pc[port].rx_bytes);
	if (rc == 0)
		rc = rte_tel_data_add_dict_u64(d, "tx_bytes", pc[port].tx_bytes);
	if (snap == NULL)
		return rc;
	set = s->set[s->sw].set;
	port = sw_port(s, (unsigned int)port);
	for (id = 0; rc == 0 && id < aifab_stats_n_counters(set); id++) {
		uint64_t v = 0;

		if (aifab_stats_instance_port(set, id, 0) < 0)
			continue;
		for (i = 0; i < aifab_stats_n_instances(set, id); i++)
			if (port >= 0 &&
			    aifab_stats_instance_port(set, id, i) == port)
				v += aifab_stats_value(set, snap, id, i);
		rc = rte_tel_data_add_dict_u64(d, aifab_stats_desc(set, id)->name,
					       v);
	}
	return rc;
}

static int
fill_ports(struct app_stats *s, const char *params, struct rte_tel_data *d)
{
	struct aifab_port_counters pc[AIFAB_MAX_PORTS];
	struct aifab_stats_snap *snap = snap_of(s, s->sw);
	int port = params != NULL ? port_index(s, params) : -1;
	int rc;

	if (params != NULL && port < 0) {
		rc = -EINVAL;
		goto out;
	}
	app_port_counters(s, pc);
	rc = rte_tel_data_start_dict(d);
	if (rc == 0)
		rc = rte_tel_data_add_dict_u64(d, "tsc", rte_rdtsc());
	if (rc == 0)
		rc = port < 0 ? ports_all(s, pc, snap, d) :
			ports_one(s, port, pc, snap, d);
out:
	aifab_stats_snap_free(snap);
	return rc;
}

/* ---- /aifab/tc, /aifab/pfc ------------------------------------------------- */

/* Counters of @p scope: all ports port-major, or one port's n_tcs. */
static int
fill_scope(struct app_stats *s, const char *params, struct rte_tel_data *d,
	   enum aifab_stats_scope scope)
{
	struct aifab_stats_snap *snap = snap_of(s, s->sw);
	const struct aifab_stats_set *set;
	uint64_t v[RTE_TEL_MAX_ARRAY_ENTRIES];
	int port = params != NULL ? port_index(s, params) : -1;
	unsigned int id, i, n, from;
	int rc;

	if (params != NULL && port < 0)
		rc = -EINVAL;
	else
		rc = rte_tel_data_start_dict(d);
	if (rc != 0 || snap == NULL)
		goto out;
	set = s->set[s->sw].set;
	rc = rte_tel_data_add_dict_u64(d, "tsc", snap->tsc);
	if (rc == 0)
		rc = port < 0 ? add_sw_port_names(s, d) :
			rte_tel_data_add_dict_string(d, "port", params);
	if (port >= 0 && sw_port(s, (unsigned int)port) < 0)
		goto out; /* not the first switch's port: no values */
	if (port >= 0)
		port = sw_port(s, (unsigned int)port);
	for (id = 0; rc == 0 && id < aifab_stats_n_counters(set); id++) {
		if (aifab_stats_desc(set, id)->scope != scope)
			continue;
		n = port < 0 ? aifab_stats_n_instances(set, id) :
			aifab_stats_n_tcs(set);
		from = port < 0 ? 0 : (unsigned int)port * aifab_stats_n_tcs(set);
		for (i = 0; i < n && i < RTE_DIM(v); i++)
			v[i] = aifab_stats_value(set, snap, id, from + i);
		rc = aifab_stats_tel_u64s(d, aifab_stats_desc(set, id)->name, v,
			      RTE_MIN(n, (unsigned int)RTE_TEL_MAX_ARRAY_ENTRIES));
	}
out:
	aifab_stats_snap_free(snap);
	return rc;
}

static int
fill_tc(struct app_stats *s, const char *params, struct rte_tel_data *d)
{
	return fill_scope(s, params, d, AIFAB_STATS_PORT_TC);
}

static int
fill_pfc(struct app_stats *s, const char *params, struct rte_tel_data *d)
{
	return fill_scope(s, params, d, AIFAB_STATS_PORT_PRIO);
}

/* ---- /aifab/ecmp -------------------------------------------------------------- */

struct ecmp_acc {
	char sw[AIFAB_NAME_LEN];    /* switch instance of the members */
	struct rte_tel_data *names;
	unsigned int n;
	uint64_t packets[RTE_TEL_MAX_ARRAY_ENTRIES];
	uint64_t bytes[RTE_TEL_MAX_ARRAY_ENTRIES];
};

static void
nop_port(void *ctx, uint16_t port, const char *group, const char *name,
	 uint64_t value)
{
	RTE_SET_USED(ctx);
	RTE_SET_USED(port);
	RTE_SET_USED(group);
	RTE_SET_USED(name);
	RTE_SET_USED(value);
}

static void
nop_tc(void *ctx, uint16_t port, unsigned int tc, const char *name,
       uint64_t value)
{
	RTE_SET_USED(ctx);
	RTE_SET_USED(port);
	RTE_SET_USED(tc);
	RTE_SET_USED(name);
	RTE_SET_USED(value);
}

static void
ecmp_member(void *ctx, const char *group, const char *member,
	    uint64_t packets, uint64_t bytes)
{
	struct ecmp_acc *a = ctx;
	char label[RTE_TEL_MAX_STRING_LEN];

	if (a->n == RTE_TEL_MAX_ARRAY_ENTRIES)
		return;
	snprintf(label, sizeof(label), "%s%s%s %s", a->sw, a->sw[0] ? " " : "",
		 group, member);
	if (rte_tel_data_add_array_string(a->names, label) != 0)
		return;
	a->packets[a->n] = packets;
	a->bytes[a->n] = bytes;
	a->n++;
}

static void
ecmp_switch(void *ctx, const char *sw)
{
	struct ecmp_acc *a = ctx;

	snprintf(a->sw, sizeof(a->sw), "%s", sw);
}

static int
fill_ecmp(struct app_stats *s, const char *params, struct rte_tel_data *d)
{
	struct ecmp_acc *a = calloc(1, sizeof(*a));
	struct aifab_report_sink sink = {
		.ctx = a, .port_u64 = nop_port, .port_tc_u64 = nop_tc,
		.ecmp_member = ecmp_member, .switch_begin = ecmp_switch,
	};
	unsigned int i;
	int rc = a != NULL ? 0 : -ENOMEM;

	RTE_SET_USED(params);
	if (rc == 0)
		a->names = rte_tel_data_alloc();
	if (rc == 0 && a->names == NULL)
		rc = -ENOMEM;
	if (rc == 0)
		rc = rte_tel_data_start_array(a->names, RTE_TEL_STRING_VAL);
	for (i = 0; rc == 0 && i < s->n_pipes; i++)
		if (strcmp(s->pipe[i].ops->name, "switch") == 0)
			s->pipe[i].ops->report(s->pipe[i].st, &sink);
	if (rc == 0)
		rc = rte_tel_data_start_dict(d);
	if (rc == 0) {
		rc = rte_tel_data_add_dict_container(d, "members", a->names, 0);
		if (rc == 0)
			a->names = NULL;
	}
	if (rc == 0)
		rc = aifab_stats_tel_u64s(d, "packets", a->packets, a->n);
	if (rc == 0)
		rc = aifab_stats_tel_u64s(d, "bytes", a->bytes, a->n);
	if (a != NULL)
		rte_tel_data_free(a->names);
	free(a);
	return rc;
}

/* ---- /aifab/generator ------------------------------------------------------ */

/* Keys the summary part of /aifab/generator uses (a set counter of the
 * same name is given as "<name>_per_port"). */
static const char *const gen_summary_keys[] = {
	"running", "op", "size", "ranks", "iterations", "time_ns_min",
	"time_ns_avg", "time_ns_max", "algbw_mbps", "busbw_mbps", "tx_packets",
	"tx_bytes", "tx_dropped", "rx_packets", "rx_roce", "rx_lost",
	"rx_reordered", "rx_duplicates", "lat_ns_p50", "lat_ns_p99",
	"ports", "tsc",
};

/* Every counter of the generator's lib/stats set: GLOBAL as a number,
 * others as arrays (per port in "ports" order; per port and priority,
 * port-major; per lcore). */
static int
gen_set_fill(struct app_stats *s, struct rte_tel_data *d)
{
	struct aifab_stats_snap *snap = snap_of(s, s->gen_set);
	const struct aifab_stats_set *set;
	uint64_t *v = NULL;
	unsigned int id, i, n, k;
	char key[80];
	int rc = 0;

	if (snap == NULL)
		return s->gen_set < 0 ? 0 : -ENOMEM;
	set = s->set[s->gen_set].set;
	rc = rte_tel_data_add_dict_u64(d, "tsc", snap->tsc);
	for (id = 0; rc == 0 && id < aifab_stats_n_counters(set); id++) {
		const struct aifab_stats_desc *de = aifab_stats_desc(set, id);

		snprintf(key, sizeof(key), "%s", de->name);
		for (k = 0; k < RTE_DIM(gen_summary_keys); k++)
			if (strcmp(de->name, gen_summary_keys[k]) == 0)
				snprintf(key, sizeof(key), "%s_per_port",
					 de->name);
		n = aifab_stats_n_instances(set, id);
		if (de->scope == AIFAB_STATS_GLOBAL) {
			rc = rte_tel_data_add_dict_u64(d, key,
				aifab_stats_value(set, snap, id, 0));
			continue;
		}
		free(v);
		v = malloc(sizeof(*v) * RTE_MAX(n, 1u));
		if (v == NULL) {
			rc = -ENOMEM;
			break;
		}
		for (i = 0; i < n; i++)
			v[i] = aifab_stats_value(set, snap, id, i);
		rc = aifab_stats_tel_u64s(d, key, v, n);
	}
	free(v);
	aifab_stats_snap_free(snap);
	return rc;
}

static int
fill_generator(struct app_stats *s, const char *params, struct rte_tel_data *d)
{
	struct aifab_gen_summary *g;
	int rc;

	RTE_SET_USED(params);
	rc = rte_tel_data_start_dict(d);
	if (rc == 0)
		rc = rte_tel_data_add_dict_int(d, "running", s->gen != NULL);
	if (rc != 0 || s->gen == NULL)
		return rc;
	g = malloc(sizeof(*g));
	if (g == NULL)
		return -ENOMEM;
	aifab_gen_summary(s->gen, g);
	rc = rte_tel_data_add_dict_string(d, "op", g->op != NULL ? g->op : "?");
#define U(name, val) do { \
		if (rc == 0) \
			rc = rte_tel_data_add_dict_u64(d, name, (uint64_t)(val)); \
	} while (0)
	U("size", g->size);
	U("ranks", g->n_ranks);
	U("iterations", g->iterations);
	U("time_ns_min", g->time_us_min * 1e3);
	U("time_ns_avg", g->time_us_avg * 1e3);
	U("time_ns_max", g->time_us_max * 1e3);
	U("algbw_mbps", g->algbw_gbps * 1e3); /* MB/s: 1e6 bytes/s */
	U("busbw_mbps", g->busbw_gbps * 1e3);
	U("tx_packets", g->tx_packets);
	U("tx_bytes", g->tx_bytes);
	U("tx_dropped", g->tx_dropped);
	U("rx_packets", g->rx_packets);
	U("rx_roce", g->rx_roce);
	U("rx_lost", g->rx_lost);
	U("rx_reordered", g->rx_reordered);
	U("rx_duplicates", g->rx_duplicates);
	U("lat_ns_p50", g->lat_p50);
	U("lat_ns_p99", g->lat_p99);
#undef U
	free(g);
	if (rc == 0)
		rc = add_port_names(s, d);
	if (rc == 0)
		rc = gen_set_fill(s, d);
	return rc;
}

/* ---- /aifab/lcores ----------------------------------------------------------- */

static int
fill_lcores(struct app_stats *s, const char *params, struct rte_tel_data *d)
{
	static const char *const names[aifab_stats_bi_N] = {
		"busy_cycles", "idle_cycles", "busy_polls", "idle_polls",
		"packets",
	};
	struct aifab_stats_snap *snap = snap_of(s, s->lc);
	const struct aifab_stats_set *set;
	struct rte_tel_data *ids = NULL;
	uint64_t v[AIFAB_STATS_MAX_BLOCKS];
	unsigned int k, b, n, base;
	int rc;

	RTE_SET_USED(params);
	rc = rte_tel_data_start_dict(d);
	if (rc != 0 || snap == NULL)
		goto out;
	set = s->set[s->lc].set;
	n = aifab_stats_n_blocks(set);
	base = aifab_stats_n_counters(set) - aifab_stats_bi_N;
	ids = rte_tel_data_alloc();
	rc = ids != NULL ? rte_tel_data_start_array(ids, RTE_TEL_INT_VAL) :
		-ENOMEM;
	for (b = 0; rc == 0 && b < RTE_MAX_LCORE; b++)
		if (s->lc_block[b] >= 0)
			rc = rte_tel_data_add_array_int(ids, (int)b);
	if (rc == 0) {
		rc = rte_tel_data_add_dict_container(d, "lcores", ids, 0);
		if (rc == 0)
			ids = NULL;
	}
	/* Blocks are in lcore order (the app creates them so). */
	for (k = 0; rc == 0 && k < aifab_stats_bi_N; k++) {
		for (b = 0; b < n; b++)
			v[b] = aifab_stats_value(set, snap, base + k, b);
		rc = aifab_stats_tel_u64s(d, names[k], v, n);
	}
	for (b = 0; rc == 0 && b < n; b++) {
		uint64_t busy = aifab_stats_value(set, snap, base +
			aifab_stats_bi_lcore_busy_cycles, b);
		uint64_t all = busy + aifab_stats_value(set, snap, base +
			aifab_stats_bi_lcore_idle_cycles, b);

		v[b] = all ? busy * 100 / all : 0;
	}
	if (rc == 0)
		rc = aifab_stats_tel_u64s(d, "busy_percent", v, n);
out:
	rte_tel_data_free(ids);
	aifab_stats_snap_free(snap);
	return rc;
}

/* ---- /aifab/mempool ------------------------------------------------------------ */

struct pool_walk {
	struct rte_tel_data *names;
	uint64_t size[64], in_use[64];
	unsigned int n;
	uint64_t total_in_use;
	int rc;
};

static void
pool_one(struct rte_mempool *mp, void *arg)
{
	struct pool_walk *w = arg;
	uint64_t in_use = rte_mempool_in_use_count(mp);

	w->total_in_use += in_use;
	if (w->n == RTE_DIM(w->size) || w->rc != 0)
		return;
	w->rc = rte_tel_data_add_array_string(w->names, mp->name);
	w->size[w->n] = mp->size;
	w->in_use[w->n] = in_use;
	w->n++;
}

/* The app's pools (one per socket, the ports' RX buffers) and every
 * mempool of the process (the generator's, rings' ...), in use = size -
 * available (per-lcore caches count as available). */
static int
fill_mempool(struct app_stats *s, const char *params, struct rte_tel_data *d)
{
	struct pool_walk *w = calloc(1, sizeof(*w));
	int rc;

	RTE_SET_USED(s);
	RTE_SET_USED(params);
	if (w == NULL)
		return -ENOMEM;
	rc = rte_tel_data_start_dict(d);
	if (rc == 0)
		rc = rte_tel_data_add_dict_u64(d, "app_in_use",
					       app_pools_in_use());
	w->names = rte_tel_data_alloc();
	if (rc == 0)
		rc = w->names != NULL ?
			rte_tel_data_start_array(w->names, RTE_TEL_STRING_VAL) :
			-ENOMEM;
	if (rc == 0) {
		rte_mempool_walk(pool_one, w);
		rc = w->rc;
	}
	if (rc == 0)
		rc = rte_tel_data_add_dict_u64(d, "total_in_use",
					       w->total_in_use);
	if (rc == 0) {
		rc = rte_tel_data_add_dict_container(d, "pools", w->names, 0);
		if (rc == 0)
			w->names = NULL;
	}
	if (rc == 0)
		rc = aifab_stats_tel_u64s(d, "size", w->size, w->n);
	if (rc == 0)
		rc = aifab_stats_tel_u64s(d, "in_use", w->in_use, w->n);
	rte_tel_data_free(w->names);
	free(w);
	return rc;
}

/* Below, with /aifab/sw. */
static int sw_set_named(const struct app_stats *s, const char *name,
			size_t len);

/* ---- /aifab/port_list, /aifab/port_stats -------------------------------------- */

/* Port @p params: a profile port name, or its id (decimal index). */
static int
port_of_param(const struct app_stats *s, const char *params)
{
	char *end;
	unsigned long v;
	int p;

	if (params == NULL)
		return -1;
	p = port_index(s, params);
	if (p >= 0)
		return p;
	v = strtoul(params, &end, 10);
	if (end == params || *end != '\0' || v >= s->env->n_ports)
		return -1;
	return (int)v;
}

static const char *
port_kind(const struct aifab_port_rt *rt)
{
	return aifab_port_is_ring(rt) ? "wire" : "ethdev";
}

/* The other end of port @p p's in-memory cable, or NULL. */
static const char *
port_peer(const struct app_stats *s, unsigned int p)
{
	const struct aifab_profile *prof = s->env->prof;
	const char *name = s->env->ports[p].name;
	unsigned int q;

	if (prof == NULL || p >= prof->n_ports)
		return NULL;
	if (prof->ports[p].wire[0] != '\0')
		return prof->ports[p].wire;
	for (q = 0; q < prof->n_ports; q++)
		if (strcmp(prof->ports[q].wire, name) == 0)
			return prof->ports[q].name;
	return NULL;
}

static int
fill_port_list(struct app_stats *s, const char *params, struct rte_tel_data *d)
{
	struct rte_tel_data *names = NULL, *kinds = NULL;
	unsigned int from = 0, p, n = s->env->n_ports, to;
	char *end;
	int rc;

	if (params != NULL) {
		unsigned long v = strtoul(params, &end, 10);

		if (end == params || *end != '\0' || v > n)
			return -EINVAL;
		from = (unsigned int)v;
	}
	to = RTE_MIN(n, from + TEL_PORTS_PAGE);
	rc = rte_tel_data_start_dict(d);
	if (rc == 0)
		rc = rte_tel_data_add_dict_u64(d, "n_ports", n);
	if (rc == 0)
		rc = rte_tel_data_add_dict_u64(d, "from", from);
	/* the id of the next page, n_ports when this is the last */
	if (rc == 0)
		rc = rte_tel_data_add_dict_u64(d, "next", to);
	names = rte_tel_data_alloc();
	kinds = rte_tel_data_alloc();
	if (rc == 0 && (names == NULL || kinds == NULL))
		rc = -ENOMEM;
	if (rc == 0)
		rc = rte_tel_data_start_array(names, RTE_TEL_STRING_VAL);
	if (rc == 0)
		rc = rte_tel_data_start_array(kinds, RTE_TEL_STRING_VAL);
	for (p = from; rc == 0 && p < to; p++) {
		rc = rte_tel_data_add_array_string(names, s->env->ports[p].name);
		if (rc == 0)
			rc = rte_tel_data_add_array_string(kinds,
					port_kind(&s->env->ports[p]));
	}
	if (rc == 0) {
		rc = rte_tel_data_add_dict_container(d, "ports", names, 0);
		if (rc == 0)
			names = NULL;
	}
	if (rc == 0) {
		rc = rte_tel_data_add_dict_container(d, "kinds", kinds, 0);
		if (rc == 0)
			kinds = NULL;
	}
	rte_tel_data_free(names);
	rte_tel_data_free(kinds);
	return rc;
}

/* The set of the switch instance owning env port @p p (profile
 * switches[] of the port), and the port's index in that set; -1 for a
 * generator port (or no switch). */
static int
sw_set_of_port(const struct app_stats *s, unsigned int p, int *sp)
{
	const struct aifab_profile *prof = s->env->prof;
	const struct aifab_stats_set *set;
	const char *inst;
	unsigned int k;
	int i;

	if (s->env->ports[p].gen_owned || prof == NULL ||
	    s->env->ports[p].sw >= prof->n_switches)
		return -1;
	inst = prof->switches[s->env->ports[p].sw].name;
	i = sw_set_named(s, inst[0] != '\0' ? inst : "sw",
			 inst[0] != '\0' ? strlen(inst) : 2);
	if (i < 0)
		return -1;
	set = s->set[i].set;
	for (k = 0; k < aifab_stats_n_ports(set); k++)
		if (strcmp(aifab_stats_port_name(set, k),
			   s->env->ports[p].name) == 0) {
			*sp = (int)k;
			return i;
		}
	return -1;
}

static int
fill_port_stats(struct app_stats *s, const char *params,
		struct rte_tel_data *d)
{
	struct aifab_port_counters *pc;
	const struct aifab_port_rt *rt;
	struct aifab_stats_snap *snap = NULL;
	const char *peer;
	int p = port_of_param(s, params), set, sp = -1, rc;

	if (p < 0)
		return -EINVAL;
	pc = malloc(sizeof(*pc) * AIFAB_MAX_PORTS);
	if (pc == NULL)
		return -ENOMEM;
	app_port_counters(s, pc);
	rt = &s->env->ports[p];
	peer = port_peer(s, (unsigned int)p);
	set = sw_set_of_port(s, (unsigned int)p, &sp);
	rc = rte_tel_data_start_dict(d);
	if (rc == 0)
		rc = rte_tel_data_add_dict_string(d, "port", rt->name);
	if (rc == 0)
		rc = rte_tel_data_add_dict_u64(d, "id", (uint64_t)p);
	if (rc == 0)
		rc = rte_tel_data_add_dict_string(d, "kind", port_kind(rt));
	if (rc == 0)
		rc = rte_tel_data_add_dict_int(d, "ethdev_port_id",
				aifab_port_is_ring(rt) ? -1 : (int)rt->port_id);
	if (rc == 0)
		rc = rte_tel_data_add_dict_string(d, "peer",
						  peer != NULL ? peer : "");
	if (rc == 0)
		rc = rte_tel_data_add_dict_string(d, "owner", rt->gen_owned ?
			"generator" : set >= 0 ?
			aifab_stats_name(s->set[set].set) : "");
	if (rc == 0)
		rc = rte_tel_data_add_dict_u64(d, "speed_mbps", rt->speed_mbps);
	if (rc == 0)
		rc = rte_tel_data_add_dict_u64(d, "mtu", rt->mtu);
	/* /ethdev/stats' names for what the port's pipeline received and
	 * sent (the report's rx/tx) */
	if (rc == 0)
		rc = rte_tel_data_add_dict_u64(d, "ipackets", pc[p].rx_packets);
	if (rc == 0)
		rc = rte_tel_data_add_dict_u64(d, "opackets", pc[p].tx_packets);
	if (rc == 0)
		rc = rte_tel_data_add_dict_u64(d, "ibytes", pc[p].rx_bytes);
	if (rc == 0)
		rc = rte_tel_data_add_dict_u64(d, "obytes", pc[p].tx_bytes);
	if (rc == 0 && set >= 0) {
		snap = snap_of(s, set);
		if (snap != NULL)
			rc = rte_tel_data_add_dict_u64(d, "drops",
				app_stats_sum(s->set[set].set, snap, "drop_*",
					      (unsigned int)sp));
	}
	aifab_stats_snap_free(snap);
	free(pc);
	return rc;
}

/* ---- /aifab/sw ------------------------------------------------------------------ */

/* Switch set of instance @p name ("sw" or "sw_<name>", or the instance's
 * own name), or -1. */
static int
sw_set_named(const struct app_stats *s, const char *name, size_t len)
{
	const char *n;
	unsigned int i;

	for (i = 0; i < s->n_sets; i++) {
		if (!s->set[i].sw)
			continue;
		n = aifab_stats_name(s->set[i].set);
		if ((strlen(n) == len && strncmp(n, name, len) == 0) ||
		    (strncmp(n, "sw_", 3) == 0 && strlen(n + 3) == len &&
		     strncmp(n + 3, name, len) == 0))
			return (int)i;
	}
	return -1;
}

static unsigned int
sw_n_sets(const struct app_stats *s)
{
	unsigned int i, n = 0;

	for (i = 0; i < s->n_sets; i++)
		n += s->set[i].sw;
	return n;
}

/*
 * /aifab/sw[,<instance>][,<counter>]: one command for every switch
 * instance (one per instance would overflow DPDK's command table at 40
 * instances). With one switch the params are a counter, as lib/stats'
 * own /aifab/<set> command answered; with several and no params, the
 * instances' names.
 */
static int
fill_sw(struct app_stats *s, const char *params, struct rte_tel_data *d)
{
	struct aifab_stats_snap *snap;
	struct rte_tel_data *a;
	const char *comma = params != NULL ? strchr(params, ',') : NULL;
	const char *counter = params;
	unsigned int i;
	int set = -1, rc;

	if (params != NULL) {
		set = sw_set_named(s, params, comma != NULL ?
				   (size_t)(comma - params) : strlen(params));
		if (set >= 0)
			counter = comma != NULL ? comma + 1 : NULL;
		else if (comma != NULL)
			return -EINVAL; /* no such instance */
	}
	if (set < 0 && sw_n_sets(s) == 1)
		set = s->sw;
	if (set < 0 && params == NULL) {
		rc = rte_tel_data_start_dict(d);
		a = rte_tel_data_alloc();
		if (rc == 0 && a == NULL)
			rc = -ENOMEM;
		if (rc == 0)
			rc = rte_tel_data_start_array(a, RTE_TEL_STRING_VAL);
		for (i = 0; rc == 0 && i < s->n_sets; i++)
			if (s->set[i].sw)
				rc = rte_tel_data_add_array_string(a,
					aifab_stats_name(s->set[i].set));
		if (rc == 0) {
			rc = rte_tel_data_add_dict_container(d, "instances", a,
							     0);
			if (rc == 0)
				a = NULL;
		}
		rte_tel_data_free(a);
		return rc;
	}
	if (set < 0)
		return -EINVAL;
	snap = snap_of(s, set);
	if (snap == NULL)
		return -ENOMEM;
	rc = aifab_stats_telemetry_fill(s->set[set].set, snap,
					counter != NULL && counter[0] != '\0' ?
					counter : NULL, d);
	aifab_stats_snap_free(snap);
	return rc;
}

/* ---- registration -------------------------------------------------------------- */

#define TEL_CB(name) \
	static int tel_##name(const char *cmd, const char *params, \
			      struct rte_tel_data *d) \
	{ \
		RTE_SET_USED(cmd); \
		return tel_run(fill_##name, params, d); \
	}
TEL_CB(ports)
TEL_CB(tc)
TEL_CB(pfc)
TEL_CB(ecmp)
TEL_CB(generator)
TEL_CB(lcores)
TEL_CB(mempool)
TEL_CB(port_list)
TEL_CB(port_stats)
TEL_CB(sw)
#undef TEL_CB

static const struct {
	const char *cmd;
	telemetry_cb fn;
	const char *help;
} tel_cmds[] = {
	/* DPDK 22.11: help texts under 128 characters. */
	{ "/aifab/ports", tel_ports, "Per port rx/tx, drops, ECN marks, PFC. "
	  "Params: a port name for all its counters." },
	{ "/aifab/tc", tel_tc, "Per (port, TC) counters and queue depth. "
	  "Params: a port name." },
	{ "/aifab/pfc", tel_pfc, "Per (port, priority) PFC counters, paused "
	  "cycles. Params: a port name." },
	{ "/aifab/ecmp", tel_ecmp, "Packets and bytes per ECMP route member." },
	{ "/aifab/generator", tel_generator, "Collective generator figures "
	  "so far (ns, MB/s)." },
	{ "/aifab/lcores", tel_lcores, "Per lcore busy/idle cycles and "
	  "polls, packets, busy percent." },
	{ "/aifab/mempool", tel_mempool, "Mbufs in use: app_in_use (port "
	  "pools), total_in_use (every pool), per pool size and in_use." },
	{ "/aifab/port_list", tel_port_list, "Every port (ethdev or in-memory "
	  "wire): names, kinds. Params: the first id (256 per page)." },
	{ "/aifab/port_stats", tel_port_stats, "One port's ipackets, opackets, "
	  "ibytes, obytes, kind, peer. Params: a port id or name." },
	{ "/aifab/sw", tel_sw, "A switch's counters (lib/stats). Params: "
	  "[instance][,counter]; none: the instances (or the one's set)." },
};

int
app_telemetry_start(struct app_stats *s)
{
	unsigned int i;
	int rc = 0, r;

	pthread_mutex_lock(&tel_lock);
	tel_app = s;
	pthread_mutex_unlock(&tel_lock);
	s->live = true;
	if (!tel_registered) {
		for (i = 0; rc == 0 && i < RTE_DIM(tel_cmds); i++)
			rc = rte_telemetry_register_cmd(tel_cmds[i].cmd,
							tel_cmds[i].fn,
							tel_cmds[i].help);
		tel_registered = rc == 0;
	}
	/* Each pipeline's whole set: /aifab/<set>[,<counter>]. */
	for (i = 0; i < s->n_sets; i++) {
		/* The generator's set answers inside /aifab/generator, the
		 * switches' in /aifab/sw. */
		if (s->set[i].owned || (int)i == s->gen_set || s->set[i].sw)
			continue;
		r = aifab_stats_telemetry_register(s->set[i].set, tel_now);
		s->set[i].tel = r == 0;
		if (rc == 0)
			rc = r;
	}
	return rc;
}

void
app_telemetry_stop(struct app_stats *s)
{
	unsigned int i;

	if (s == NULL || !s->live)
		return;
	pthread_mutex_lock(&tel_lock);
	if (tel_app == s)
		tel_app = NULL;
	pthread_mutex_unlock(&tel_lock);
	for (i = 0; i < s->n_sets; i++)
		if (s->set[i].tel) {
			aifab_stats_telemetry_unregister(s->set[i].set);
			s->set[i].tel = false;
		}
	s->live = false;
}
