/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Live statistics: every interval the main lcore reads each pipeline's
 * lib/stats set and the app's "lcores" set into snapshots, then shows the
 * console (a table on a terminal, one line otherwise), rewrites the
 * Prometheus file, appends a JSON line and keeps a history for the HTML
 * report. Workers never wait for any of it: they only write their blocks.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <rte_cycles.h>
#include <rte_errno.h>
#include <rte_lcore.h>

#include "aifab_json.h"
#include "export.h"

/* The app's own set: only lib/stats' built-in per-lcore load counters. */
static int
lcores_set(struct app_stats *s, const unsigned int *lcores, unsigned int n,
	   char *err, size_t errlen)
{
	static const char *const all[] = { "all" };
	struct aifab_stats_params p = {
		.name = "lcores", .n_ports = 1, .port_names = all,
		.n_tcs = 1, .n_blocks = n, .block_lcore = lcores,
		.tsc_hz = s->hz,
	};
	struct app_set *as = &s->set[s->n_sets];
	unsigned int i;

	as->set = aifab_stats_create(&p);
	if (as->set == NULL) {
		snprintf(err, errlen, "cannot create the lcores counters: %s",
			 rte_strerror(rte_errno));
		return -1;
	}
	as->owned = true;
	for (i = 0; i < n; i++)
		s->lc_block[lcores[i]] = (int)i;
	s->lc = (int)s->n_sets++;
	return 0;
}

struct app_stats *
app_stats_new(const struct app_args *a, const struct aifab_env *env)
{
	struct app_stats *s = calloc(1, sizeof(*s));
	unsigned int i;

	if (s == NULL)
		return NULL;
	s->args = a;
	s->env = env;
	s->hz = rte_get_tsc_hz();
	s->sw = s->lc = s->html_set = s->gen_set = -1;
	s->gen_stride = 1;
	for (i = 0; i < RTE_MAX_LCORE; i++)
		s->lc_block[i] = -1;
	return s;
}

void
app_stats_model_time(struct app_stats *s)
{
	s->model_time = true;
	s->hz = APP_VCLOCK_HZ;
}

int
app_stats_add_pipe(struct app_stats *s, const struct aifab_pipeline_ops *ops,
		   void *st, const uint16_t *map, unsigned int n_map)
{
	struct aifab_stats_set *set;

	if (s->n_pipes == APP_MAX_PIPES)
		return -1;
	s->pipe[s->n_pipes].ops = ops;
	s->pipe[s->n_pipes].st = st;
	s->pipe[s->n_pipes].map = map;
	s->pipe[s->n_pipes].n_map = n_map;
	s->n_pipes++;
	set = ops->stats != NULL ? ops->stats(st) : NULL;
	if (set == NULL)
		return 0;
	/* Port views (console, /aifab/ports) read the first switch's set. */
	s->set[s->n_sets].sw = strcmp(ops->name, "switch") == 0;
	if (s->set[s->n_sets].sw && s->sw < 0) {
		s->sw = (int)s->n_sets;
		s->sw_map = map;
		s->sw_n_map = n_map;
	}
	if (strcmp(ops->name, "generator") == 0)
		s->gen_set = (int)s->n_sets;
	s->set[s->n_sets++].set = set;
	return 0;
}

void
app_stats_set_gen(struct app_stats *s, const void *gen)
{
	s->gen = gen;
}

void
app_stats_set_lab(struct app_stats *s, const void *lab)
{
	if (s != NULL)
		s->lab = lab;
}

struct aifab_stats_block *
app_stats_lcore_block(struct app_stats *s, unsigned int lcore)
{
	if (s->lc < 0 || lcore >= RTE_MAX_LCORE || s->lc_block[lcore] < 0)
		return NULL;
	return aifab_stats_block(s->set[s->lc].set,
				 (unsigned int)s->lc_block[lcore]);
}

static double
wall_time(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

int
app_stats_start(struct app_stats *s, const unsigned int *lcores,
		unsigned int n, char *err, size_t errlen)
{
	unsigned int i;

	if (n > 0 && lcores_set(s, lcores, n, err, errlen) != 0)
		return -1;
	for (i = 0; i < s->n_sets; i++) {
		struct app_set *as = &s->set[i];

		as->prev = aifab_stats_snap_alloc(as->set);
		as->cur = aifab_stats_snap_alloc(as->set);
		if (as->prev == NULL || as->cur == NULL)
			goto nomem;
	}
	/* The report's charts: the switch's, else whatever set there is. */
	s->html_set = s->sw >= 0 ? s->sw : s->lc;
	if (s->args->report_html != NULL && s->html_set >= 0) {
		s->hist = aifab_stats_hist_create(s->set[s->html_set].set,
						  APP_HIST_CAP);
		if (s->hist == NULL)
			goto nomem;
	}
	/* The other switch instances' and the generator's charts. */
	for (i = 0; s->hist != NULL && i < s->n_sets; i++) {
		struct app_set *as = &s->set[i];

		if ((int)i == s->html_set || (!as->sw && (int)i != s->gen_set))
			continue;
		as->hist = aifab_stats_hist_create(as->set, APP_HIST_CAP);
		if (as->hist == NULL)
			goto nomem;
	}
	if (s->args->stats_jsonl != NULL) {
		s->jsonl = fopen(s->args->stats_jsonl, "w");
		if (s->jsonl == NULL) {
			snprintf(err, errlen, "--stats-jsonl %s: %s",
				 s->args->stats_jsonl, strerror(errno));
			return -1;
		}
	}
	s->tty = isatty(STDOUT_FILENO) == 1;
	s->start = s->model_time ? 0 : rte_rdtsc();
	for (i = 0; i < s->n_sets; i++) {
		aifab_stats_read(s->set[i].set, s->set[i].cur, s->start);
		aifab_stats_snap_copy(s->set[i].prev, s->set[i].cur);
	}
	if (s->hist != NULL)
		aifab_stats_hist_push(s->hist, s->set[s->html_set].cur);
	for (i = 0; i < s->n_sets; i++)
		if (s->set[i].hist != NULL)
			aifab_stats_hist_push(s->set[i].hist, s->set[i].cur);
	return 0;
nomem:
	snprintf(err, errlen, "out of memory for statistics");
	return -1;
}

/* ---- generator samples ------------------------------------------------------ */

static void
gen_sample(struct app_stats *s, double t, const struct aifab_gen_summary *g)
{
	const struct aifab_gen_summary *o = &s->gs_prev;
	struct app_gen_sample x = {
		.t = t, .iterations = g->iterations, .avg_us = g->time_us_avg,
		.busbw = g->busbw_gbps, .tx_packets = g->tx_packets,
		.rx_packets = g->rx_packets,
	};
	unsigned int i;

	/* Mean time of the iterations completed in this interval, and the
	 * bus bandwidth that time gives (busbw is inversely proportional). */
	if (g->iterations > o->iterations) {
		x.int_us = (g->time_us_avg * g->iterations -
			    o->time_us_avg * o->iterations) /
			   (g->iterations - o->iterations);
		if (x.int_us > 0)
			x.int_busbw = g->busbw_gbps * g->time_us_avg / x.int_us;
	}
	s->gs_prev = *g;
	if (s->gen_pushes++ % s->gen_stride != 0)
		return;
	if (s->n_gen == APP_GEN_SAMPLES) {
		for (i = 0; 2 * i < s->n_gen; i++)
			s->gs[i] = s->gs[2 * i];
		s->n_gen /= 2;
		s->gen_stride *= 2;
	}
	s->gs[s->n_gen++] = x;
}

/* ---- files ------------------------------------------------------------------ */

/* Generator figures as Prometheus metrics (base units). */
static void
prom_gen_write(FILE *f, const struct aifab_gen_summary *g)
{
	fprintf(f, "# HELP aifab_generator_iterations_total Timed collective "
		"iterations completed\n# TYPE aifab_generator_iterations_total "
		"counter\naifab_generator_iterations_total %u\n",
		g->iterations);
	fprintf(f, "# HELP aifab_generator_collective_seconds Time of one "
		"collective over the iterations so far\n# TYPE "
		"aifab_generator_collective_seconds gauge\n");
	fprintf(f, "aifab_generator_collective_seconds{stat=\"min\"} %.9f\n"
		"aifab_generator_collective_seconds{stat=\"avg\"} %.9f\n"
		"aifab_generator_collective_seconds{stat=\"max\"} %.9f\n",
		g->time_us_min * 1e-6, g->time_us_avg * 1e-6,
		g->time_us_max * 1e-6);
	fprintf(f, "# HELP aifab_generator_busbw_bytes_per_second Bus "
		"bandwidth (nccl-tests busbw) from the average time\n# TYPE "
		"aifab_generator_busbw_bytes_per_second gauge\n"
		"aifab_generator_busbw_bytes_per_second %.0f\n",
		g->busbw_gbps * 1e9);
	fprintf(f, "# HELP aifab_generator_algbw_bytes_per_second Algorithm "
		"bandwidth from the average time\n# TYPE "
		"aifab_generator_algbw_bytes_per_second gauge\n"
		"aifab_generator_algbw_bytes_per_second %.0f\n",
		g->algbw_gbps * 1e9);
	fprintf(f, "# HELP aifab_generator_tx_packets_total Frames the "
		"generator sent\n# TYPE aifab_generator_tx_packets_total "
		"counter\naifab_generator_tx_packets_total %" PRIu64 "\n",
		g->tx_packets);
	fprintf(f, "# HELP aifab_generator_rx_packets_total Frames the "
		"generator received\n# TYPE aifab_generator_rx_packets_total "
		"counter\naifab_generator_rx_packets_total %" PRIu64 "\n",
		g->rx_packets);
}

/* Write "<path>.tmp", fsync, rename: scrapers never see half a file. */
static int
prom_file(const struct app_stats *s, const struct aifab_gen_summary *g)
{
	struct aifab_stats_view v[APP_STATS_MAX_SETS];
	const char *path = s->args->prometheus;
	char tmp[PATH_MAX];
	unsigned int i;
	FILE *f;
	int rc;

	for (i = 0; i < s->n_sets; i++) {
		v[i].set = s->set[i].set;
		v[i].snap = s->set[i].cur;
	}
	f = aifab_stats_file_open(path, tmp, sizeof(tmp));
	if (f == NULL)
		return -errno;
	rc = aifab_stats_prom_write(f, v, s->n_sets);
	if (rc == 0 && g != NULL)
		prom_gen_write(f, g);
	return aifab_stats_file_commit(f, tmp, rc);
}

/* A write of --stats-jsonl failed (a full disk): said once, and no line
 * after it; the run's exit status says so (app_stats_finish()). */
static void
jsonl_failed(struct app_stats *s)
{
	if (s->jsonl_err != 0)
		return;
	s->jsonl_err = errno != 0 ? errno : EIO;
	fprintf(stderr, "dpdk-aifab: --stats-jsonl %s: %s (no line after "
		"this one's)\n", s->args->stats_jsonl, strerror(s->jsonl_err));
}

/* The generator's figures so far, and every counter of its set. */
static void
jsonl_gen(struct aifab_json *j, const struct app_stats *s,
	  const struct aifab_gen_summary *g)
{
	aifab_json_obj(j, "generator");
	aifab_json_u64(j, "iterations", g->iterations);
	aifab_json_dbl(j, "time_us_avg", g->time_us_avg, 3);
	aifab_json_dbl(j, "busbw_gbps", g->busbw_gbps, 6);
	aifab_json_dbl(j, "algbw_gbps", g->algbw_gbps, 6);
	aifab_json_u64(j, "tx_packets", g->tx_packets);
	aifab_json_u64(j, "rx_packets", g->rx_packets);
	/* Every generator counter (lib/stats' form) in the object. */
	if (s->gen_set >= 0)
		aifab_stats_json_counters(j, "counters", s->set[s->gen_set].set,
					  s->set[s->gen_set].cur);
	aifab_json_end(j);
}

/*
 * One JSON object per interval, on one line: {"time": epoch s, "t": s
 * since start, "<set>": lib/stats' object per set, "ports": rx/tx of
 * every pipeline, "generator": its figures so far}.
 */
static void
jsonl_line(struct app_stats *s, double t, const struct aifab_gen_summary *g)
{
	struct aifab_port_counters pc[AIFAB_MAX_PORTS];
	double now_s = wall_time();
	struct aifab_json j;
	unsigned int i, p;

	aifab_json_begin(&j, s->jsonl, 0);
	aifab_json_obj(&j, NULL);
	aifab_json_dbl(&j, "time", now_s, 6);
	aifab_json_dbl(&j, "t", t, 6);
	for (i = 0; i < s->n_sets; i++)
		if ((int)i != s->gen_set)
			aifab_stats_json_set(&j, aifab_stats_name(s->set[i].set),
					     s->set[i].set, s->set[i].cur,
					     now_s);
	app_port_counters(s, pc);
	aifab_json_obj(&j, "ports");
	for (p = 0; p < s->env->n_ports; p++) {
		aifab_json_obj(&j, s->env->ports[p].name);
		aifab_json_u64(&j, "rx_packets", pc[p].rx_packets);
		aifab_json_u64(&j, "tx_packets", pc[p].tx_packets);
		aifab_json_u64(&j, "rx_bytes", pc[p].rx_bytes);
		aifab_json_u64(&j, "tx_bytes", pc[p].tx_bytes);
		aifab_json_end(&j);
	}
	aifab_json_end(&j);
	if (g != NULL)
		jsonl_gen(&j, s, g);
	aifab_json_end(&j);
	aifab_json_finish(&j);
	fputc('\n', s->jsonl);
	if (fflush(s->jsonl) != 0 || ferror(s->jsonl))
		jsonl_failed(s);
}

/* ---- console ----------------------------------------------------------------- */

static void
gen_line(const struct app_stats *s, const struct aifab_gen_summary *g,
	 const struct aifab_gen_summary *gp, double dt, char *buf, size_t len)
{
	const struct app_gen_sample *x = s->n_gen ? &s->gs[s->n_gen - 1] : NULL;

	snprintf(buf, len, "generator: %s %" PRIu64 " B x %u ranks, "
		 "iterations %u, time avg %.1f us (last %.1f us), busbw %.2f "
		 "GB/s, tx %.3f Mpps", g->op != NULL ? g->op : "?", g->size,
		 g->n_ranks, g->iterations, g->time_us_avg,
		 x != NULL ? x->int_us : 0.0, g->busbw_gbps,
		 dt > 0 ? (double)(g->tx_packets - gp->tx_packets) /
		 dt / 1e6 : 0.0);
}

/* The interval's console lines out. Their reader gone (`| head`, a pager
 * quit: EPIPE, SIGPIPE being ignored) the run stops as at a signal, its
 * report and files written: said once on stderr. */
static void
console_flush(struct app_stats *s)
{
	if (fflush(stdout) == 0 || errno != EPIPE || s->stdout_closed)
		return;
	s->stdout_closed = true;
	fprintf(stderr, "dpdk-aifab: standard output closed (its reader went "
		"away): the run stops, its report is written\n");
}

bool
app_stats_stdout_closed(const struct app_stats *s)
{
	return s != NULL && s->stdout_closed;
}

/* Not a terminal: one line per interval. */
static void
console_line(struct app_stats *s, double t, double dt,
	     const struct aifab_gen_summary *g)
{
	struct aifab_port_counters pc[AIFAB_MAX_PORTS];
	uint64_t rx = 0, tx = 0, rxb = 0, txb = 0;
	unsigned int p;

	app_port_counters(s, pc);
	for (p = 0; p < s->env->n_ports; p++) {
		rx += pc[p].rx_packets - s->pc_prev[p].rx_packets;
		tx += pc[p].tx_packets - s->pc_prev[p].tx_packets;
		rxb += pc[p].rx_bytes - s->pc_prev[p].rx_bytes;
		txb += pc[p].tx_bytes - s->pc_prev[p].tx_bytes;
	}
	memcpy(s->pc_prev, pc, sizeof(pc));
	/* intervals under 0.05 s exist on the virtual clock only: model
	 * time in ms, so its ~200 lines of a 14 ms run do not all say 0.0 s */
	if (dt < 0.05)
		printf("t=%8.3fms", t * 1e3);
	else
		printf("t=%6.1fs", t);
	printf("  rx %8.3f Mpps %7.2f Gb/s  tx %8.3f Mpps %7.2f Gb/s",
	       rx / dt / 1e6, rxb * 8 / dt / 1e9, tx / dt / 1e6,
	       txb * 8 / dt / 1e9);
	if (s->sw >= 0) {
		const struct app_set *w = &s->set[s->sw];

#define D(pat) (app_stats_sum(w->set, w->cur, pat, -1) - \
		app_stats_sum(w->set, w->prev, pat, -1))
		printf("  drops %" PRIu64 "  ecn %" PRIu64 "  pfc tx %" PRIu64
		       " rx %" PRIu64 "  paused %.1f ms", D("drop_*"),
		       D("ecn_marked"), D("pfc_tx"), D("pfc_rx"),
		       (double)D("pfc_paused_cycles") / (double)s->hz * 1e3);
#undef D
	}
	if (g != NULL)
		printf("  | gen it %u  %.1f us  busbw %.2f GB/s", g->iterations,
		       s->n_gen ? s->gs[s->n_gen - 1].int_us : 0.0,
		       g->busbw_gbps);
	if (g != NULL && s->gen_set >= 0) {
		const struct app_set *w = &s->set[s->gen_set];

		/* frames the ranks' NICs dropped for a wrong ICRC */
		printf("  bad icrc %" PRIu64,
		       app_stats_sum(w->set, w->cur, "rx_bad_icrc", -1) -
		       app_stats_sum(w->set, w->prev, "rx_bad_icrc", -1));
	}
	printf("\n");
	console_flush(s);
}

/* A terminal: the whole table, redrawn in place. */
static void
console_table(struct app_stats *s, double t, double dt,
	      const struct aifab_gen_summary *g,
	      const struct aifab_gen_summary *gp)
{
	char line[256];

	uint64_t gen_ports = 0;
	unsigned int p;

	for (p = 0; p < s->env->n_ports && p < 64; p++)
		if (s->env->ports[p].gen_owned)
			gen_ports |= UINT64_C(1) << p;
	printf("\033[H\033[2Jdpdk-aifab  t=%.1f s  (%s; Ctrl-C stops)\n\n", t,
	       s->env->prof->name);
	if (s->sw >= 0) {
		const struct app_set *w = &s->set[s->sw];

		/* the generator's ports have their own table below */
		aifab_stats_console_ports(stdout, w->set, w->prev, w->cur,
					  NULL, 0, s->gen_set >= 0 ?
					  ~gen_ports : UINT64_MAX);
	}
	if (s->gen_set >= 0) {
		/* The NICs of the ranks: what they sent and received, the
		 * congestion they saw (CE, CNPs), the frames they dropped
		 * for a wrong ICRC and the pauses they obeyed. */
		static const struct aifab_stats_col gen_cols[] = {
			{ "rx Mpps", "rx_pkts", AIFAB_STATS_COL_MPPS },
			{ "rx Gb/s", "rx_bytes", AIFAB_STATS_COL_GBPS },
			{ "tx Mpps", "tx_pkts", AIFAB_STATS_COL_MPPS },
			{ "tx Gb/s", "tx_bytes", AIFAB_STATS_COL_GBPS },
			{ "CE rx", "rx_ce", AIFAB_STATS_COL_DELTA },
			{ "CNP tx", "tx_cnp", AIFAB_STATS_COL_DELTA },
			{ "bad ICRC", "rx_bad_icrc", AIFAB_STATS_COL_DELTA },
			{ "PFC rx", "pfc_rx", AIFAB_STATS_COL_DELTA },
			{ "paused ms", "pfc_paused_cycles",
			  AIFAB_STATS_COL_MS },
		};
		const struct app_set *w = &s->set[s->gen_set];

		printf("\ngenerator ports (the ranks' NICs)\n");
		aifab_stats_console_ports(stdout, w->set, w->prev, w->cur,
					  gen_cols, RTE_DIM(gen_cols),
					  gen_ports);
	}
	if (g != NULL) {
		gen_line(s, g, gp, dt, line, sizeof(line));
		printf("\n%s\n", line);
	}
	console_flush(s);
}

/* ---- the interval ---------------------------------------------------------- */

static void
read_all(struct app_stats *s, uint64_t now)
{
	unsigned int i;

	for (i = 0; i < s->n_sets; i++) {
		struct aifab_stats_snap *t = s->set[i].prev;

		s->set[i].prev = s->set[i].cur;
		s->set[i].cur = t;
		aifab_stats_read(s->set[i].set, t, now);
	}
	if (s->hist != NULL)
		aifab_stats_hist_push(s->hist, s->set[s->html_set].cur);
	for (i = 0; i < s->n_sets; i++)
		if (s->set[i].hist != NULL)
			aifab_stats_hist_push(s->set[i].hist, s->set[i].cur);
}

static void
interval(struct app_stats *s, uint64_t now, bool show)
{
	struct aifab_gen_summary g = { 0 }, gprev = s->gs_prev;
	double t = (double)(now - s->start) / (double)s->hz, dt;
	int rc;

	if (s->n_sets == 0 || now <= s->set[0].cur->tsc)
		return;
	dt = (double)(now - s->set[0].cur->tsc) / (double)s->hz;
	read_all(s, now);
	if (s->gen != NULL) {
		/* no latency: nothing of an interval shows it */
		aifab_gen_summary_lat(s->gen, &g, false);
		gen_sample(s, t, &g);
	}
	if (s->args->prometheus != NULL) {
		/* its first failure said (not one line per interval); the
		 * last write's result is the exit status's */
		rc = prom_file(s, s->gen != NULL ? &g : NULL);
		s->prom_err = -rc;
		if (rc != 0 && !s->prom_told) {
			s->prom_told = true;
			fprintf(stderr, "dpdk-aifab: --prometheus %s: %s\n",
				s->args->prometheus, strerror(-rc));
		}
	}
	if (s->jsonl != NULL && s->jsonl_err == 0)
		jsonl_line(s, t, s->gen != NULL ? &g : NULL);
	s->ticks++;
	if (!show || s->args->quiet)
		return;
	if (s->tty)
		console_table(s, t, dt, s->gen != NULL ? &g : NULL, &gprev);
	else
		console_line(s, t, dt, s->gen != NULL ? &g : NULL);
}

void
app_stats_tick(struct app_stats *s, uint64_t now)
{
	interval(s, now, true);
}

int
app_stats_finish(struct app_stats *s, uint64_t now)
{
	int rc = 0;

	/* Workers have stopped and drained: this is the final state. */
	interval(s, now, false);
	if (s->args->report_html != NULL) {
		rc = app_html_write(s, s->args->report_html);
		if (rc != 0)
			fprintf(stderr, "dpdk-aifab: --report-html %s: %s\n",
				s->args->report_html, strerror(-rc));
		else
			printf("report: %s\n", s->args->report_html);
	}
	if (s->jsonl != NULL) {
		if (fclose(s->jsonl) != 0)
			jsonl_failed(s);
		s->jsonl = NULL;
	}
	if (s->jsonl_err != 0)
		rc = -s->jsonl_err;
	if (s->prom_err != 0) /* the final file is not the final counters */
		rc = -s->prom_err;
	return rc;
}

void
app_stats_lcore_load(const struct app_stats *s, unsigned int lcore,
		     uint64_t v[5])
{
	const struct app_set *as;
	unsigned int base, k;

	memset(v, 0, 5 * sizeof(uint64_t));
	if (s->lc < 0 || lcore >= RTE_MAX_LCORE || s->lc_block[lcore] < 0)
		return;
	as = &s->set[s->lc];
	base = aifab_stats_n_counters(as->set) - aifab_stats_bi_N;
	for (k = 0; k < aifab_stats_bi_N; k++)
		v[k] = aifab_stats_value(as->set, as->cur, base + k,
					 (unsigned int)s->lc_block[lcore]);
}

void
app_stats_free(struct app_stats *s)
{
	unsigned int i;

	if (s == NULL)
		return;
	if (s->jsonl != NULL)
		fclose(s->jsonl);
	aifab_stats_hist_free(s->hist);
	for (i = 0; i < s->n_sets; i++) {
		aifab_stats_hist_free(s->set[i].hist);
		aifab_stats_snap_free(s->set[i].prev);
		aifab_stats_snap_free(s->set[i].cur);
		if (s->set[i].owned)
			aifab_stats_free(s->set[i].set);
	}
	free(s);
}
