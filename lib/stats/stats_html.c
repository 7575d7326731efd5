/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The HTML report: inline SVG line charts over a history of snapshots and
 * a table of final values. No scripts, no external resources.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "stats_priv.h"

/* Chart geometry (the tests read it back from the <rect class="plot">). */
#define SVG_W 820
#define SVG_H 260
#define PLOT_X 70
#define PLOT_Y 15
#define PLOT_W 560
#define PLOT_H 200
#define MAX_SERIES_SHOWN 32

static const char *const palette[] = {
	"#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd",
	"#8c564b", "#e377c2", "#7f7f7f", "#bcbd22", "#17becf",
};

static const struct aifab_stats_chart default_charts[] = {
	{ "Throughput received per port", "rx_bytes", 8e-9, "Gb/s",
	  AIFAB_STATS_SPLIT_PORT },
	{ "Throughput sent per port", "tx_bytes", 8e-9, "Gb/s",
	  AIFAB_STATS_SPLIT_PORT },
	{ "Egress queue depth", "queue_bytes", 1e-3, "KB",
	  AIFAB_STATS_SPLIT_INSTANCE },
	{ "PFC pause frames sent", "pfc_tx", 1, "frames/s",
	  AIFAB_STATS_SPLIT_INSTANCE },
	{ "PFC pause frames received", "pfc_rx", 1, "frames/s",
	  AIFAB_STATS_SPLIT_INSTANCE },
	{ "ECN CE marks", "ecn_marked", 1, "packets/s",
	  AIFAB_STATS_SPLIT_INSTANCE },
	{ "Drops (all reasons)", "drop_*", 1, "packets/s",
	  AIFAB_STATS_SPLIT_PORT },
};

struct series {
	char label[4 * STATS_NAME_MAX];
	double *y;  /* n - 1 points: samples 1 .. n-1 */
};

struct chart_data {
	struct series *s;
	unsigned int n_series, cap;
	unsigned int n_points;
	double ymax;
};

static void
html_escape(FILE *f, const char *s)
{
	for (; *s != '\0'; s++) {
		switch (*s) {
		case '<': fputs("&lt;", f); break;
		case '>': fputs("&gt;", f); break;
		case '&': fputs("&amp;", f); break;
		case '"': fputs("&quot;", f); break;
		default: fputc(*s, f);
		}
	}
}

static bool
chart_applies(const struct aifab_stats_set *s, const char *pat,
	      enum aifab_stats_split split, unsigned int id)
{
	if (!stats_name_matches(s, id, pat))
		return false;
	return split != AIFAB_STATS_SPLIT_PORT ||
	       aifab_stats_instance_port(s, id, 0) >= 0;
}

static void
series_key(const struct aifab_stats_set *s, const struct aifab_stats_chart *c,
	   unsigned int id, unsigned int inst, char *buf, size_t len)
{
	char lab[3 * STATS_NAME_MAX];
	bool many = c->counter[strlen(c->counter) - 1] == '*';

	if (c->split == AIFAB_STATS_SPLIT_NONE) {
		snprintf(buf, len, "total");
	} else if (c->split == AIFAB_STATS_SPLIT_PORT) {
		snprintf(buf, len, "%s",
			 s->port_names[aifab_stats_instance_port(s, id, inst)]);
	} else {
		stats_instance_label(s, id, inst, STATS_LABEL_SHORT, lab,
				     sizeof(lab));
		snprintf(buf, len, "%s%s%s", many ? s->descs[id].name : "",
			 many ? " " : "", lab);
	}
}

static struct series *
series_get(struct chart_data *cd, const char *key)
{
	unsigned int i;

	for (i = 0; i < cd->n_series; i++)
		if (strcmp(cd->s[i].label, key) == 0)
			return &cd->s[i];
	if (cd->n_series == cd->cap)
		return NULL;
	snprintf(cd->s[i].label, sizeof(cd->s[i].label), "%s", key);
	cd->s[i].y = calloc(cd->n_points, sizeof(double));
	if (cd->s[i].y == NULL)
		return NULL;
	cd->n_series++;
	return &cd->s[i];
}

/* Rate (counters) or value (gauges) of one instance at each point. */
static void
add_points(const struct aifab_stats_hist *h, unsigned int id,
	   unsigned int inst, double scale, double *y)
{
	const struct aifab_stats_set *s = aifab_stats_hist_set(h);
	double hz = s->tsc_hz != 0 ? (double)s->tsc_hz : 1.0;
	unsigned int k, off = s->soff[id] + inst;

	for (k = 1; k < aifab_stats_hist_count(h); k++) {
		const struct aifab_stats_snap *a = aifab_stats_hist_get(h, k - 1);
		const struct aifab_stats_snap *b = aifab_stats_hist_get(h, k);
		double dt = (double)(b->tsc - a->tsc) / hz;

		if (s->descs[id].kind == AIFAB_STATS_GAUGE)
			y[k - 1] += (double)b->v[off] * scale;
		else if (dt > 0)
			y[k - 1] += (double)(b->v[off] - a->v[off]) / dt * scale;
	}
}

static int
chart_collect(const struct aifab_stats_hist *h,
	      const struct aifab_stats_chart *c, struct chart_data *cd)
{
	const struct aifab_stats_set *s = aifab_stats_hist_set(h);
	double scale = c->scale != 0 ? c->scale : 1.0;
	char key[4 * STATS_NAME_MAX];
	unsigned int id, i, k;
	struct series *se;

	cd->n_points = aifab_stats_hist_count(h) - 1;
	for (id = 0; id < s->n_counters; id++)
		if (chart_applies(s, c->counter, c->split, id))
			cd->cap += s->ninst[id];
	cd->s = calloc(cd->cap + 1, sizeof(*cd->s));
	if (cd->s == NULL)
		return -ENOMEM;
	for (id = 0; id < s->n_counters; id++) {
		if (!chart_applies(s, c->counter, c->split, id))
			continue;
		for (i = 0; i < s->ninst[id]; i++) {
			series_key(s, c, id, i, key, sizeof(key));
			se = series_get(cd, key);
			if (se == NULL)
				return -ENOMEM;
			add_points(h, id, i, scale, se->y);
		}
	}
	for (i = 0; i < cd->n_series; i++)
		for (k = 0; k < cd->n_points; k++)
			cd->ymax = RTE_MAX(cd->ymax, cd->s[i].y[k]);
	return 0;
}

static void
chart_free(struct chart_data *cd)
{
	unsigned int i;

	for (i = 0; cd->s != NULL && i < cd->n_series; i++)
		free(cd->s[i].y);
	free(cd->s);
}

static bool
all_zero(const struct series *se, unsigned int n)
{
	unsigned int k;

	for (k = 0; k < n; k++)
		if (se->y[k] != 0)
			return false;
	return true;
}

static void
svg_frame(FILE *f, const struct aifab_stats_chart *c, double ymax,
	  double tmax)
{
	fprintf(f, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" "
		"height=\"%d\" viewBox=\"0 0 %d %d\">\n", SVG_W, SVG_H, SVG_W,
		SVG_H);
	fprintf(f, "<rect class=\"plot\" x=\"%d\" y=\"%d\" width=\"%d\" "
		"height=\"%d\" fill=\"#fafafa\" stroke=\"#999\"/>\n",
		PLOT_X, PLOT_Y, PLOT_W, PLOT_H);
	fprintf(f, "<text class=\"ymax\" x=\"%d\" y=\"%d\" "
		"text-anchor=\"end\">%g</text>\n", PLOT_X - 4, PLOT_Y + 4,
		ymax);
	fprintf(f, "<text x=\"%d\" y=\"%d\" text-anchor=\"end\">0</text>\n",
		PLOT_X - 4, PLOT_Y + PLOT_H);
	fprintf(f, "<text class=\"yunit\" x=\"4\" y=\"%d\">", PLOT_Y + PLOT_H / 2);
	html_escape(f, c->unit != NULL ? c->unit : "");
	fprintf(f, "</text>\n<text x=\"%d\" y=\"%d\">0 s</text>\n", PLOT_X,
		PLOT_Y + PLOT_H + 16);
	fprintf(f, "<text class=\"tmax\" x=\"%d\" y=\"%d\" "
		"text-anchor=\"end\">%g s</text>\n", PLOT_X + PLOT_W,
		PLOT_Y + PLOT_H + 16, tmax);
}

static void
svg_series(FILE *f, const struct series *se, unsigned int color,
	   const double *t, unsigned int n, double ymax, double tmax)
{
	unsigned int k;

	fprintf(f, "<polyline class=\"series\" data-series=\"");
	html_escape(f, se->label);
	fprintf(f, "\" fill=\"none\" stroke=\"%s\" stroke-width=\"1.5\" "
		"points=\"", palette[color % RTE_DIM(palette)]);
	for (k = 0; k < n; k++)
		fprintf(f, "%s%.2f,%.2f", k > 0 ? " " : "",
			PLOT_X + t[k] / tmax * PLOT_W,
			PLOT_Y + PLOT_H - se->y[k] / ymax * PLOT_H);
	fputs("\"/>\n", f);
	fprintf(f, "<text x=\"%d\" y=\"%u\" fill=\"%s\">", PLOT_X + PLOT_W + 10,
		PLOT_Y + 10 + 14 * color, palette[color % RTE_DIM(palette)]);
	html_escape(f, se->label);
	fputs("</text>\n", f);
}

static int
write_chart(FILE *f, const struct aifab_stats_hist *h,
	    const struct aifab_stats_chart *c, const double *t, double tmax)
{
	struct chart_data cd = { 0 };
	unsigned int i, shown = 0;
	int rc = chart_collect(h, c, &cd);

	if (rc == 0) {
		double ymax = aifab_stats_nice_ceil(cd.ymax);

		fputs("<h2>", f);
		html_escape(f, c->title);
		fputs("</h2>\n", f);
		svg_frame(f, c, ymax, tmax);
		for (i = 0; i < cd.n_series && shown < MAX_SERIES_SHOWN; i++)
			if (!all_zero(&cd.s[i], cd.n_points))
				svg_series(f, &cd.s[i], shown++, t,
					   cd.n_points, ymax, tmax);
		if (shown == 0)
			fprintf(f, "<text x=\"%d\" y=\"%d\">no activity</text>\n",
				PLOT_X + 10, PLOT_Y + 20);
		fputs("</svg>\n", f);
	}
	chart_free(&cd);
	return rc;
}

static bool
chart_has_counter(const struct aifab_stats_set *s,
		  const struct aifab_stats_chart *c)
{
	unsigned int id;

	for (id = 0; id < s->n_counters; id++)
		if (chart_applies(s, c->counter, c->split, id))
			return true;
	return false;
}

static void
write_table(FILE *f, const struct aifab_stats_set *s,
	    const struct aifab_stats_snap *last)
{
	char lab[4 * STATS_NAME_MAX];
	unsigned int id, i;

	fputs("<h2>Final values</h2>\n<table>\n<tr><th>counter</th>"
	      "<th>kind</th><th>unit</th><th>total</th><th>by instance "
	      "(non-zero)</th><th>help</th></tr>\n", f);
	for (id = 0; id < s->n_counters; id++) {
		const struct aifab_stats_desc *d = &s->descs[id];
		uint64_t sum = 0;

		for (i = 0; i < s->ninst[id]; i++)
			sum += last->v[s->soff[id] + i];
		fputs("<tr><td class=\"name\">", f);
		html_escape(f, d->name);
		fprintf(f, "</td><td>%s</td><td>",
			d->kind == AIFAB_STATS_COUNTER ? "counter" : "gauge");
		html_escape(f, d->unit);
		fprintf(f, "</td><td>%" PRIu64 "</td><td>", sum);
		for (i = 0; i < s->ninst[id]; i++) {
			if (last->v[s->soff[id] + i] == 0)
				continue;
			stats_instance_label(s, id, i, STATS_LABEL_SHORT, lab,
					     sizeof(lab));
			html_escape(f, lab);
			fprintf(f, ": %" PRIu64 "; ", last->v[s->soff[id] + i]);
		}
		fputs("</td><td>", f);
		html_escape(f, d->help);
		fputs("</td></tr>\n", f);
	}
	fputs("</table>\n", f);
}

static void
write_head(FILE *f, const char *title, const struct aifab_stats_set *s,
	   unsigned int n, double tmax)
{
	fputs("<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\">\n<title>",
	      f);
	html_escape(f, title);
	fputs("</title>\n<style>body{font-family:sans-serif;margin:2em}"
	      "svg{font-size:11px}table{border-collapse:collapse}"
	      "td,th{border:1px solid #ccc;padding:2px 6px;font-size:12px}"
	      "</style></head><body>\n<h1>", f);
	html_escape(f, title);
	fputs("</h1>\n<p>Pipeline <b>", f);
	html_escape(f, s->name);
	fprintf(f, "</b>: %u snapshots over %g s; counters as rates per "
		"second between snapshots, gauges as sampled.</p>\n", n, tmax);
}

int
aifab_stats_html_write(FILE *f, const char *title,
		       const struct aifab_stats_hist *h,
		       const struct aifab_stats_chart *charts,
		       unsigned int n_charts)
{
	const struct aifab_stats_set *s = aifab_stats_hist_set(h);
	unsigned int n = aifab_stats_hist_count(h), k;
	double hz = s->tsc_hz != 0 ? (double)s->tsc_hz : 1.0, tmax, *t;
	int rc = 0;

	if (n < 2)
		return -EINVAL;
	if (charts == NULL) {
		charts = default_charts;
		n_charts = RTE_DIM(default_charts);
	}
	t = calloc(n - 1, sizeof(double));
	if (t == NULL)
		return -ENOMEM;
	for (k = 1; k < n; k++)
		t[k - 1] = (double)(aifab_stats_hist_get(h, k)->tsc -
				    aifab_stats_hist_get(h, 0)->tsc) / hz;
	tmax = t[n - 2] > 0 ? t[n - 2] : 1;
	write_head(f, title, s, n, tmax);
	for (k = 0; rc == 0 && k < n_charts; k++)
		if (chart_has_counter(s, &charts[k]))
			rc = write_chart(f, h, &charts[k], t, tmax);
	write_table(f, s, aifab_stats_hist_get(h, n - 1));
	fputs("</body></html>\n", f);
	free(t);
	if (rc == 0 && ferror(f))
		rc = -EIO;
	return rc;
}
