/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Live statistics of a run (private to app/export*.c, app/telemetry.c and
 * app/counters.c):
 * the pipelines' lib/stats sets plus the app's own "lcores" set, read by
 * the main lcore every interval into snapshots and exported (console,
 * Prometheus text, JSON lines, history for the HTML report), and by the
 * telemetry thread on request.
 */
#ifndef APP_EXPORT_H
#define APP_EXPORT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "aifab_stats.h"
#include "app.h"
#include "generator.h"

#define APP_STATS_MAX_SETS (APP_MAX_PIPES + 1)
#define APP_GEN_SAMPLES 1024   /* generator samples kept (decimated) */
#define APP_HIST_CAP 512       /* snapshots kept for the HTML report */

/* One set with its two latest snapshots. */
struct app_set {
	struct aifab_stats_set *set;
	struct aifab_stats_snap *prev, *cur;
	bool owned;        /* the app's (lcores), freed by app_stats_free */
	bool tel;          /* registered with telemetry through lib/stats */
	bool sw;           /* a switch instance's */
	/* Its history for the HTML page, when it is not the page's own set
	 * (html_set): other switch instances, the generator. */
	struct aifab_stats_hist *hist;
};

/* A running pipeline as the exporters see it. */
struct app_stats_pipe {
	const struct aifab_pipeline_ops *ops;
	void *st;
	const uint16_t *map;      /* its port i is the app's map[i]; NULL: i */
	unsigned int n_map;
};

/* The generator at one interval (cumulative figures from its summary). */
struct app_gen_sample {
	double t;                 /* s since start */
	uint32_t iterations;      /* timed iterations completed */
	double avg_us, busbw;     /* over all iterations so far */
	double int_us, int_busbw; /* iterations completed in this interval */
	uint64_t tx_packets, rx_packets;
};

struct app_stats {
	const struct app_args *args;
	const struct aifab_env *env;
	uint64_t hz, start;
	bool model_time;          /* `now` is the virtual clock's ns */
	unsigned int n_pipes;
	struct app_stats_pipe pipe[APP_MAX_PIPES];
	unsigned int n_sets;
	struct app_set set[APP_STATS_MAX_SETS];
	int sw;                   /* index of the switch's set, or -1 */
	const uint16_t *sw_map;   /* its port i is env port sw_map[i]; NULL: i */
	unsigned int sw_n_map;
	int gen_set;              /* index of the generator's set, or -1:
				   * exported inside its "generator" views */
	int lc;                   /* index of the lcores set */
	int lc_block[RTE_MAX_LCORE]; /* lcore -> block of lcores, or -1 */
	struct aifab_stats_hist *hist; /* of set[html_set] */
	int html_set;
	struct aifab_port_counters pc_prev[AIFAB_MAX_PORTS];
	const void *gen;
	const void *lab;              /* the lab recipe, for the HTML page */
	struct aifab_gen_summary gs_prev;
	unsigned int n_gen, gen_stride;
	uint64_t gen_pushes;
	struct app_gen_sample gs[APP_GEN_SAMPLES];
	FILE *jsonl;
	int jsonl_err;            /* errno of its first failed write: no
				   * line after it (a file with a gap would
				   * read as a quiet run) */
	int prom_err;             /* --prometheus: the last write's errno */
	bool prom_told;           /* its first failure said on stderr */
	bool stdout_closed;       /* a console write found no reader (EPIPE):
				   * the run stops (app_stats_stdout_closed()) */
	bool tty;
	uint64_t ticks;
	bool live;                /* telemetry commands answer */
};

/* export_html.c */
int app_html_write(struct app_stats *s, const char *path);

#endif /* APP_EXPORT_H */
