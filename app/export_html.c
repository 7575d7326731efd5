/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * --report-html: lib/stats' page for the switch (inline SVG charts over
 * the run's history, final values), the same charts for every other
 * switch instance, followed by the generator's
 * collective time and bus bandwidth per timed iteration, its own counters
 * over time (DCQCN, PFC at the NICs) and the lcores' load.
 * One self-contained file: no scripts, no external resources.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lab.h"
#include "export.h"

#define APP_HTML_SW_CHARTS 9 /* switch_chart_list() */
#define G_W 820
#define G_H 260
#define G_X 70
#define G_Y 15
#define G_PW 560
#define G_PH 200

/* One chart of up to two series over the timed iterations (x: the
 * iteration, from 0); each point also a circle, so one iteration shows. */
static void
iter_chart(FILE *f, const char *title, const char *unit, unsigned int n,
	   const char *const label[2], const double *const ys[2])
{
	static const char *const color[2] = { "#1f77b4", "#ff7f0e" };
	double ymax = 0, xs = n > 1 ? (double)G_PW / (n - 1) : 0;
	unsigned int k, j;

	for (j = 0; j < 2; j++)
		for (k = 0; ys[j] != NULL && k < n; k++)
			ymax = RTE_MAX(ymax, ys[j][k]);
	ymax = aifab_stats_nice_ceil(ymax);
	fprintf(f, "<h2>%s</h2>\n<svg xmlns=\"http://www.w3.org/2000/svg\" "
		"class=\"iterations\" width=\"%d\" height=\"%d\" "
		"viewBox=\"0 0 %d %d\">\n", title, G_W, G_H, G_W, G_H);
	fprintf(f, "<rect class=\"plot\" x=\"%d\" y=\"%d\" width=\"%d\" "
		"height=\"%d\" fill=\"#fafafa\" stroke=\"#999\"/>\n", G_X, G_Y,
		G_PW, G_PH);
	fprintf(f, "<text class=\"ymax\" x=\"%d\" y=\"%d\" text-anchor=\"end\">"
		"%g</text>\n<text x=\"%d\" y=\"%d\" text-anchor=\"end\">0</text>"
		"\n<text class=\"yunit\" x=\"4\" y=\"%d\">%s</text>\n<text "
		"x=\"%d\" y=\"%d\">iteration 0</text>\n<text class=\"xmax\" "
		"x=\"%d\" y=\"%d\" text-anchor=\"end\">%u</text>\n", G_X - 4,
		G_Y + 4, ymax, G_X - 4, G_Y + G_PH, G_Y + G_PH / 2, unit, G_X,
		G_Y + G_PH + 16, G_X + G_PW, G_Y + G_PH + 16, n ? n - 1 : 0);
	for (j = 0; j < 2; j++) {
		if (ys[j] == NULL)
			continue;
		fprintf(f, "<polyline class=\"series\" data-series=\"%s\" "
			"fill=\"none\" stroke=\"%s\" stroke-width=\"1.5\" "
			"points=\"", label[j], color[j]);
		for (k = 0; k < n; k++)
			fprintf(f, "%s%.2f,%.2f", k ? " " : "", G_X + k * xs,
				G_Y + G_PH - ys[j][k] / ymax * G_PH);
		fputs("\"/>\n", f);
		for (k = 0; k < n; k++)
			fprintf(f, "<circle class=\"point\" data-series=\"%s\" "
				"cx=\"%.2f\" cy=\"%.2f\" r=\"2.5\" fill=\"%s\"/>\n",
				label[j], G_X + k * xs,
				G_Y + G_PH - ys[j][k] / ymax * G_PH, color[j]);
		fprintf(f, "<text x=\"%d\" y=\"%u\" fill=\"%s\">%s</text>\n",
			G_X + G_PW + 10, G_Y + 10 + 14 * j, color[j], label[j]);
	}
	if (n == 0)
		fprintf(f, "<text x=\"%d\" y=\"%d\">no iteration completed</text>"
			"\n", G_X + 10, G_Y + 20);
	fputs("</svg>\n", f);
}

/*
 * The charts of another stats set than the page's (lib/stats writes a
 * page for one set): its page is written to memory and its charts taken
 * out of it (from the first <h2> to its table of final values).
 */
static void
set_charts(FILE *f, const struct aifab_stats_hist *h,
	   const struct aifab_stats_chart *charts, unsigned int n)
{
	char *buf = NULL, *a = NULL, *b = NULL;
	size_t len = 0;
	FILE *m;
	int rc;

	if (h == NULL)
		return;
	m = open_memstream(&buf, &len);
	if (m == NULL)
		return;
	rc = aifab_stats_html_write(m, "", h, charts, n);
	if (fclose(m) == 0 && rc == 0 && buf != NULL) {
		a = strstr(buf, "<h2>");
		b = a != NULL ? strstr(a, "<h2>Final values</h2>") : NULL;
	}
	if (b != NULL)
		fwrite(a, 1, (size_t)(b - a), f);
	free(buf);
}

/* The generator's own counters over the run: DCQCN rate cuts, CNPs and
 * the slowest QP's rate, PFC its NICs received and the time it paused
 * them. */
static void
gen_charts(FILE *f, const struct app_stats *s)
{
	double pct = s->hz ? 100.0 / (double)s->hz : 0;
	const struct aifab_stats_chart charts[] = {
		{ "DCQCN rate cuts", "dcqcn_rate_cuts", 1, "events/s",
		  AIFAB_STATS_SPLIT_NONE },
		{ "DCQCN CNPs received", "dcqcn_cnp_rx", 1, "packets/s",
		  AIFAB_STATS_SPLIT_NONE },
		{ "DCQCN rate of the slowest QP", "dcqcn_rate_min_bytes_per_second",
		  8e-9, "Gb/s", AIFAB_STATS_SPLIT_NONE },
		{ "PFC pause frames the NICs received", "pfc_rx", 1, "frames/s",
		  AIFAB_STATS_SPLIT_INSTANCE },
		{ "Time the NICs were paused by PFC", "pfc_paused_cycles", pct,
		  "% of time", AIFAB_STATS_SPLIT_INSTANCE },
	};

	if (s->gen_set >= 0)
		set_charts(f, s->set[s->gen_set].hist, charts, RTE_DIM(charts));
}

/* The collective per timed iteration (the first AIFAB_GEN_SUMMARY_ITERS):
 * its time against the ideal, its busbw against the average's. */
static void
gen_section(FILE *f, const struct app_stats *s)
{
	const struct aifab_gen_summary *g = &s->gs_prev;
	const char *const t_lab[2] = { "per iteration", "ideal" };
	const char *const b_lab[2] = { "per iteration", "from the average" };
	double ideal[AIFAB_GEN_SUMMARY_ITERS], bw[AIFAB_GEN_SUMMARY_ITERS];
	double avg[AIFAB_GEN_SUMMARY_ITERS];
	double factor = g->algbw_gbps > 0 ? g->busbw_gbps / g->algbw_gbps : 0;
	const double *t_ys[2] = { g->iter_us, g->ideal_us > 0 ? ideal : NULL };
	const double *b_ys[2] = { bw, avg };
	const struct app_set *w = s->gen_set >= 0 ? &s->set[s->gen_set] : NULL;
	uint64_t bad = w != NULL && w->cur != NULL ?
		app_stats_sum(w->set, w->cur, "rx_bad_icrc", -1) : 0;
	unsigned int i;

	fprintf(f, "<h1>Generator</h1>\n<p>%s of %" PRIu64 " bytes over %u "
		"ranks: %u timed iterations, time min/avg/max %.3f / %.3f / "
		"%.3f us, algbw %.3f GB/s, busbw %.3f GB/s; sent %" PRIu64
		" frames, received %" PRIu64 " (<span class=\"rx_bad_icrc\">"
		"%" PRIu64 "</span> dropped for a wrong ICRC). Charts: each "
		"timed iteration (the first %u); busbw of one = S / its time x "
		"the busbw factor.</p>\n",
		g->op != NULL ? g->op : "?", g->size, g->n_ranks, g->iterations,
		g->time_us_min, g->time_us_avg, g->time_us_max, g->algbw_gbps,
		g->busbw_gbps, g->tx_packets, g->rx_packets, bad,
		AIFAB_GEN_SUMMARY_ITERS);
	for (i = 0; i < g->n_iter; i++) {
		ideal[i] = g->ideal_us;
		bw[i] = g->iter_us[i] > 0 ?
			(double)g->size / (g->iter_us[i] * 1e3) * factor : 0;
		avg[i] = g->busbw_gbps;
	}
	iter_chart(f, "Collective time per iteration", "us", g->n_iter, t_lab,
		   t_ys);
	iter_chart(f, "Bus bandwidth (busbw) per iteration", "GB/s", g->n_iter,
		   b_lab, b_ys);
	gen_charts(f, s);
}

static void
lcores_section(FILE *f, const struct app_stats *s)
{
	const struct app_set *as;
	unsigned int l, base;

	if (s->lc < 0)
		return;
	as = &s->set[s->lc];
	base = aifab_stats_n_counters(as->set) - aifab_stats_bi_N;
	fputs("<h2>Lcores</h2>\n<table class=\"lcores\">\n<tr><th>lcore</th>"
	      "<th>busy %</th><th>packets</th><th>packets per busy poll</th>"
	      "<th>busy cycles per packet</th></tr>\n", f);
	for (l = 0; l < RTE_MAX_LCORE; l++) {
		unsigned int b;
		double busy, idle, bp, pk;

		if (s->lc_block[l] < 0)
			continue;
		b = (unsigned int)s->lc_block[l];
#define V(k) ((double)aifab_stats_value(as->set, as->cur, base + (k), b))
		busy = V(aifab_stats_bi_lcore_busy_cycles);
		idle = V(aifab_stats_bi_lcore_idle_cycles);
		bp = V(aifab_stats_bi_lcore_busy_polls);
		pk = V(aifab_stats_bi_lcore_poll_pkts);
#undef V
		fprintf(f, "<tr><td>%u</td><td>%.1f</td><td>%.0f</td><td>%.2f"
			"</td><td>%.1f</td></tr>\n", l,
			busy + idle > 0 ? 100 * busy / (busy + idle) : 0.0, pk,
			bp > 0 ? pk / bp : 0.0, pk > 0 ? busy / pk : 0.0);
	}
	fputs("</table>\n", f);
}

/* The lab recipe's verdict table, as the console shows it, escaped. */
static void
lab_section(FILE *f, const struct app_stats *s)
{
	char *buf = NULL, *c;
	size_t len = 0;
	FILE *m = open_memstream(&buf, &len);

	if (m == NULL)
		return;
	aifab_lab_print(s->lab, m);
	fclose(m);
	fputs("<h2>Lab recipe</h2>\n<pre>", f);
	for (c = buf; c != NULL && *c != '\0'; c++) {
		if (*c == '<')
			fputs("&lt;", f);
		else if (*c == '>')
			fputs("&gt;", f);
		else if (*c == '&')
			fputs("&amp;", f);
		else
			fputc(*c, f);
	}
	fputs("</pre>\n", f);
	free(buf);
}

/* The switch's charts (each instance's stats set). */
static unsigned int
switch_chart_list(const struct app_stats *s, struct aifab_stats_chart *c)
{
	double pct = s->hz ? 100.0 / (double)s->hz : 0;
	const struct aifab_stats_chart charts[] = {
		{ "Throughput received per port", "rx_bytes", 8e-9, "Gb/s",
		  AIFAB_STATS_SPLIT_PORT },
		{ "Throughput sent per port", "tx_bytes", 8e-9, "Gb/s",
		  AIFAB_STATS_SPLIT_PORT },
		{ "Egress queue depth", "queue_bytes", 1e-3, "KB",
		  AIFAB_STATS_SPLIT_INSTANCE },
		{ "Shared buffer in use", "buffer_used_bytes", 1e-3, "KB",
		  AIFAB_STATS_SPLIT_NONE },
		{ "PFC pause frames sent", "pfc_tx", 1, "frames/s",
		  AIFAB_STATS_SPLIT_INSTANCE },
		{ "PFC pause frames received", "pfc_rx", 1, "frames/s",
		  AIFAB_STATS_SPLIT_INSTANCE },
		{ "Time paused by received PFC", "pfc_paused_cycles", pct,
		  "% of time", AIFAB_STATS_SPLIT_INSTANCE },
		{ "ECN CE marks", "ecn_marked", 1, "packets/s",
		  AIFAB_STATS_SPLIT_INSTANCE },
		{ "Drops (all reasons)", "drop_*", 1, "packets/s",
		  AIFAB_STATS_SPLIT_PORT },
	};

	RTE_BUILD_BUG_ON(RTE_DIM(charts) != APP_HTML_SW_CHARTS);
	memcpy(c, charts, sizeof(charts));
	return RTE_DIM(charts);
}

/* Switch instances after the first (whose set is the page's): a heading
 * with the set's name and the same charts. */
static void
other_switches(FILE *f, const struct app_stats *s)
{
	struct aifab_stats_chart charts[APP_HTML_SW_CHARTS];
	unsigned int n = switch_chart_list(s, charts), i;

	for (i = 0; i < s->n_sets; i++) {
		const struct app_set *as = &s->set[i];

		if (!as->sw || (int)i == s->html_set || as->hist == NULL)
			continue;
		fprintf(f, "<h1>Switch %s</h1>\n",
			aifab_stats_name(as->set));
		set_charts(f, as->hist, charts, n);
	}
}

int
app_html_write(struct app_stats *s, const char *path)
{
	struct aifab_stats_chart charts[APP_HTML_SW_CHARTS];
	unsigned int n_charts = switch_chart_list(s, charts);
	char tmp[PATH_MAX], title[160], *buf = NULL, *end;
	size_t len = 0;
	FILE *m, *f;
	int rc;

	if (s->hist == NULL)
		return -EINVAL;
	snprintf(title, sizeof(title), "dpdk-aifab: %s", s->env->prof->name);
	m = open_memstream(&buf, &len);
	if (m == NULL)
		return -errno;
	rc = aifab_stats_html_write(m, title, s->hist, charts, n_charts);
	if (fclose(m) != 0 && rc == 0)
		rc = -EIO;
	if (rc != 0) {
		free(buf);
		return rc;
	}
	/* Insert our sections before the page's end. */
	end = strstr(buf, "</body>");
	if (end != NULL)
		*end = '\0';
	f = aifab_stats_file_open(path, tmp, sizeof(tmp));
	if (f == NULL) {
		rc = -errno;
		free(buf);
		return rc;
	}
	fputs(buf, f);
	free(buf);
	other_switches(f, s);
	if (s->gen != NULL)
		gen_section(f, s);
	if (s->lab != NULL)
		lab_section(f, s);
	lcores_section(f, s);
	fputs("</body></html>\n", f);
	return aifab_stats_file_commit(f, tmp, rc);
}
