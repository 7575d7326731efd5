/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lib/stats: lcore-pinned counter blocks, snapshots and exporters.
 *
 * Oracles: values the test wrote itself (hand-computed sums and rates),
 * a small Prometheus text-format parser written here, DPDK's own telemetry
 * socket (a real client request, JSON rendered by DPDK), and the SVG
 * geometry read back from the HTML. With AIFAB_STATS_DUMP=<dir> the test
 * also writes t.prom, t.jsonl and t.html there for
 * tests/integration/check_stats_exports.py (promtool, json, XML).
 */
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <cmocka.h>

#include <rte_atomic.h>
#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_telemetry.h>

#include "aifab_stats.h"
#include "unit_common.h"

#define T_STATS(X, p) \
	X(p, rx_pkts, COUNTER, PORT, "packets", "Packets received") \
	X(p, rx_bytes, COUNTER, PORT, "bytes", "Bytes received") \
	X(p, tx_pkts, COUNTER, PORT, "packets", "Packets sent") \
	X(p, tx_bytes, COUNTER, PORT, "bytes", "Bytes sent") \
	X(p, drop_no_route, COUNTER, PORT, "packets", "Dropped: no route") \
	X(p, drop_queue_full, COUNTER, PORT_TC, "packets", \
	  "Dropped: egress queue full") \
	X(p, ecn_marked, COUNTER, PORT_TC, "packets", "Packets marked CE") \
	X(p, pfc_tx, COUNTER, PORT_PRIO, "frames", "PFC frames sent") \
	X(p, pfc_rx, COUNTER, PORT_PRIO, "frames", "PFC frames received") \
	X(p, pfc_paused_cycles, COUNTER, PORT_PRIO, "cycles", \
	  "Time paused by received PFC") \
	X(p, queue_bytes, GAUGE, PORT_TC, "bytes", "Egress queue depth") \
	X(p, parse_errors, COUNTER, GLOBAL, "packets", \
	  "Malformed \"frames\"\n with a back\\slash") \
	X(p, worker_bursts, COUNTER, LCORE, "bursts", "Bursts handled")
AIFAB_STATS_ENUM(t_stat, T_STATS);
AIFAB_STATS_DESCS(t_stat, T_STATS);

#define HZ 1000000000ull

static bool
starts_with(const char *s, const char *prefix)
{
	return strncmp(s, prefix, strlen(prefix)) == 0;
}

static const char *const names2[] = { "p0", "p1" };
static const unsigned int lcores4[] = { 1, 3, 5, 7 };

static struct aifab_stats_set *
mk(const char *name, const char *const *ports, unsigned int n_ports,
   unsigned int n_blocks)
{
	struct aifab_stats_params p = {
		.name = name, .descs = t_stat_descs, .n_descs = t_stat_N,
		.n_ports = n_ports, .port_names = ports, .n_tcs = 8,
		.n_blocks = n_blocks, .block_lcore = lcores4, .tsc_hz = HZ,
	};
	struct aifab_stats_set *s = aifab_stats_create(&p);

	assert_non_null(s);
	return s;
}

/* Distinct value per (counter, instance) written by block b: (b+1)*base. */
static uint64_t
base_val(unsigned int id, unsigned int inst)
{
	return 1000 * (uint64_t)(id + 1) + inst;
}

/* Every block writes (b+1)*base into every instance of the user counters. */
static void
fill_pattern(struct aifab_stats_set *s, unsigned int n_blocks)
{
	unsigned int b, id, port, tc;

	for (b = 0; b < n_blocks; b++) {
		struct aifab_stats_block *blk = aifab_stats_block(s, b);

		for (id = 0; id < t_stat_N; id++) {
			switch (t_stat_descs[id].scope) {
			case AIFAB_STATS_PORT:
				for (port = 0; port < 2; port++)
					aifab_stats_add_port(blk, id, port,
						(b + 1) * base_val(id, port));
				break;
			case AIFAB_STATS_PORT_TC:
			case AIFAB_STATS_PORT_PRIO:
				for (port = 0; port < 2; port++)
					for (tc = 0; tc < 8; tc++)
						aifab_stats_add_tc(blk, id, port, tc,
							(b + 1) * base_val(id,
							port * 8 + tc));
				break;
			default:
				aifab_stats_add(blk, id, (b + 1) *
						base_val(id, 0));
			}
		}
	}
}

/* Expected snapshot value after fill_pattern() over 4 blocks. */
static uint64_t
expect_val(unsigned int id, unsigned int inst)
{
	if (t_stat_descs[id].scope == AIFAB_STATS_LCORE)
		return (inst + 1) * base_val(id, 0);
	return (1 + 2 + 3 + 4) * base_val(id, inst);
}

static void
test_layout_and_sums(void **state)
{
	struct aifab_stats_set *s = mk("t", names2, 2, 4);
	struct aifab_stats_snap *snap = aifab_stats_snap_alloc(s);
	unsigned int b, id, i;

	(void)state;
	assert_int_equal(aifab_stats_n_counters(s), t_stat_N + 5);
	for (b = 0; b < 4; b++) {
		uintptr_t me = (uintptr_t)aifab_stats_block(s, b);
		uintptr_t next = (uintptr_t)aifab_stats_block(s, b + 1);
		uintptr_t end = (uintptr_t)&aifab_stats_block(s, b)->v[
			aifab_stats_block(s, b)->n_values];

		assert_int_equal(me % 64, 0);
		/* A whole free cache line between two owners' data. */
		if (b < 3)
			assert_true(next >= RTE_ALIGN_CEIL(end, 64) + 64);
	}
	assert_null(aifab_stats_block(s, 4));
	fill_pattern(s, 4);
	aifab_stats_read(s, snap, 77);
	assert_int_equal(snap->tsc, 77);
	for (id = 0; id < t_stat_N; id++) {
		unsigned int n = t_stat_descs[id].scope == AIFAB_STATS_PORT ? 2 :
			t_stat_descs[id].scope == AIFAB_STATS_LCORE ? 4 :
			t_stat_descs[id].scope == AIFAB_STATS_GLOBAL ? 1 : 16;

		assert_int_equal(aifab_stats_n_instances(s, id), n);
		for (i = 0; i < n; i++)
			assert_int_equal(aifab_stats_value(s, snap, id, i),
					 expect_val(id, i));
	}
	/* Built-ins: per lcore, from account(). */
	aifab_stats_account(aifab_stats_block(s, 2), 100, 0);
	aifab_stats_account(aifab_stats_block(s, 2), 300, 32);
	aifab_stats_read(s, snap, 78);
	id = (unsigned int)aifab_stats_find(s, "lcore_busy_cycles");
	assert_int_equal(id, t_stat_N + aifab_stats_bi_lcore_busy_cycles);
	assert_int_equal(aifab_stats_value(s, snap, id, 2), 300);
	assert_int_equal(aifab_stats_value(s, snap, id, 1), 0);
	id = (unsigned int)aifab_stats_find(s, "lcore_idle_cycles");
	assert_int_equal(aifab_stats_value(s, snap, id, 2), 100);
	id = (unsigned int)aifab_stats_find(s, "lcore_poll_pkts");
	assert_int_equal(aifab_stats_value(s, snap, id, 2), 32);
	aifab_stats_snap_free(snap);
	aifab_stats_free(s);
}

static void
test_bad_params(void **state)
{
	static const struct aifab_stats_desc bad[][2] = {
		{ { "Rx", AIFAB_STATS_COUNTER, AIFAB_STATS_PORT, "p", "h" } },
		{ { "rx_total", AIFAB_STATS_COUNTER, AIFAB_STATS_PORT, "p", "h" } },
		{ { "lcore_busy_cycles", AIFAB_STATS_COUNTER,
		    AIFAB_STATS_LCORE, "c", "h" } },
		{ { "a", AIFAB_STATS_COUNTER, AIFAB_STATS_PORT, "p", "h" },
		  { "a", AIFAB_STATS_GAUGE, AIFAB_STATS_PORT, "p", "h" } },
		{ { "a", AIFAB_STATS_COUNTER, (enum aifab_stats_scope)9, "p",
		    "h" } },
		{ { "a", AIFAB_STATS_COUNTER, AIFAB_STATS_PORT, NULL, "h" } },
	};
	struct aifab_stats_params p = {
		.name = "t", .n_ports = 2, .n_blocks = 1,
	};
	unsigned int i;

	(void)state;
	for (i = 0; i < RTE_DIM(bad); i++) {
		p.descs = bad[i];
		p.n_descs = bad[i][1].name != NULL ? 2 : 1;
		rte_errno = 0;
		assert_null(aifab_stats_create(&p));
		assert_int_equal(rte_errno, EINVAL);
	}
	p.descs = t_stat_descs;
	p.n_descs = t_stat_N;
	p.name = "Bad-name";
	assert_null(aifab_stats_create(&p));
	p.name = "t";
	p.n_ports = AIFAB_STATS_MAX_PORTS + 1;
	assert_null(aifab_stats_create(&p));
	p.n_ports = 2;
	p.n_blocks = 0;
	assert_null(aifab_stats_create(&p));
	assert_int_equal(rte_errno, EINVAL);
	p.n_blocks = 1;
	aifab_stats_free(aifab_stats_create(&p));
}

/* ---- concurrent writers ---- */

#define N_WRITERS 4
#define N_ITER 3000000u

struct writer {
	struct aifab_stats_block *blk;
	pthread_t th;
};

static void *
writer_main(void *arg)
{
	struct writer *w = arg;
	uint32_t i;

	for (i = 0; i < N_ITER; i++) {
		aifab_stats_inc(w->blk, t_stat_parse_errors);
		aifab_stats_add_port(w->blk, t_stat_rx_pkts, i & 1, 1);
		aifab_stats_add_tc(w->blk, t_stat_ecn_marked, i & 1, i % 8, 1);
		aifab_stats_inc(w->blk, t_stat_worker_bursts);
		aifab_stats_account(w->blk, 10, i & 1);
		/* A poll loop calls out between bursts: stores reach memory. */
		if ((i & 63) == 0)
			rte_compiler_barrier();
	}
	return NULL;
}

static void
test_concurrent_writers(void **state)
{
	struct aifab_stats_set *s = mk("t", names2, 2, N_WRITERS);
	struct aifab_stats_snap *prev = aifab_stats_snap_alloc(s);
	struct aifab_stats_snap *cur = aifab_stats_snap_alloc(s);
	struct writer w[N_WRITERS];
	unsigned int i, reads = 0, partial = 0;
	uint64_t total = (uint64_t)N_WRITERS * N_ITER;

	(void)state;
	for (i = 0; i < N_WRITERS; i++) {
		w[i].blk = aifab_stats_block(s, i);
		assert_int_equal(pthread_create(&w[i].th, NULL, writer_main,
						&w[i]), 0);
	}
	do {
		aifab_stats_read(s, cur, reads + 1);
		for (i = 0; i < cur->n; i++)
			if (cur->v[i] < prev->v[i])
				fail_msg("value %u went back: %lu -> %lu", i,
					 (unsigned long)prev->v[i],
					 (unsigned long)cur->v[i]);
		if (aifab_stats_value(s, cur, t_stat_parse_errors, 0) > 0 &&
		    aifab_stats_value(s, cur, t_stat_parse_errors, 0) < total)
			partial++;
		aifab_stats_snap_copy(prev, cur);
		reads++;
	} while (aifab_stats_value(s, cur, t_stat_parse_errors, 0) < total);
	for (i = 0; i < N_WRITERS; i++)
		pthread_join(w[i].th, NULL);
	aifab_stats_read(s, cur, 0);
	print_message("reader: %u reads, %u saw partial sums\n", reads,
		      partial);
	assert_int_equal(aifab_stats_value(s, cur, t_stat_parse_errors, 0),
			 total);
	assert_int_equal(aifab_stats_value(s, cur, t_stat_rx_pkts, 0), total / 2);
	assert_int_equal(aifab_stats_value(s, cur, t_stat_rx_pkts, 1), total / 2);
	/* ecn port (i&1), tc i%8: odd i hit port 1 at tc 1,3,5,7 only. */
	assert_int_equal(aifab_stats_value(s, cur, t_stat_ecn_marked, 8 + 3),
			 total / 8);
	assert_int_equal(aifab_stats_value(s, cur, t_stat_ecn_marked, 8 + 2), 0);
	for (i = 0; i < N_WRITERS; i++) {
		assert_int_equal(aifab_stats_value(s, cur, t_stat_worker_bursts,
						   i), N_ITER);
		assert_int_equal(aifab_stats_value(s, cur, t_stat_N +
			aifab_stats_bi_lcore_busy_cycles, i), 10 * (N_ITER / 2));
		assert_int_equal(aifab_stats_value(s, cur, t_stat_N +
			aifab_stats_bi_lcore_idle_polls, i), N_ITER / 2);
	}
	aifab_stats_snap_free(prev);
	aifab_stats_snap_free(cur);
	aifab_stats_free(s);
}

/* ---- a small, independent Prometheus text-format parser ---- */

struct prom_sample {
	char name[128];
	char lk[3][32], lv[3][128];
	unsigned int nl;
	double value;
};

struct prom_doc {
	struct prom_sample smp[2048];
	unsigned int n;
	char help_of[128][128], type_of[128][128], types[128][16];
	char helps[128][256];
	unsigned int n_help, n_type;
};

static bool
is_name_char(char c, bool first)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' ||
	       c == ':' || (!first && c >= '0' && c <= '9');
}

static const char *
parse_name(const char *p, char *out, size_t len)
{
	size_t n = 0;

	if (!is_name_char(*p, true))
		return NULL;
	while (is_name_char(*p, n == 0) && n + 1 < len)
		out[n++] = *p++;
	out[n] = '\0';
	return p;
}

/* "text" with \\ \" \n escapes; returns past the closing quote. */
static const char *
parse_quoted(const char *p, char *out, size_t len)
{
	size_t n = 0;

	if (*p++ != '"')
		return NULL;
	while (*p != '"') {
		char c = *p++;

		if (c == '\0' || c == '\n')
			return NULL;
		if (c == '\\') {
			c = *p++;
			if (c == 'n')
				c = '\n';
			else if (c != '\\' && c != '"')
				return NULL;
		}
		if (n + 1 < len)
			out[n++] = c;
	}
	out[n] = '\0';
	return p + 1;
}

static void
help_unescape(const char *p, char *out, size_t len)
{
	size_t n = 0;

	for (; *p != '\0' && n + 1 < len; p++) {
		if (*p == '\\' && p[1] == 'n') {
			out[n++] = '\n';
			p++;
		} else if (*p == '\\' && p[1] == '\\') {
			out[n++] = '\\';
			p++;
		} else {
			out[n++] = *p;
		}
	}
	out[n] = '\0';
}

static int
prom_find_type(const struct prom_doc *d, const char *name)
{
	unsigned int i;

	for (i = 0; i < d->n_type; i++)
		if (strcmp(d->type_of[i], name) == 0)
			return (int)i;
	return -1;
}

static void
prom_comment(struct prom_doc *d, const char *line)
{
	char name[128];
	const char *p;

	if (strncmp(line, "# HELP ", 7) == 0) {
		p = parse_name(line + 7, name, sizeof(name));
		assert_non_null(p);
		assert_true(*p == ' ');
		for (unsigned int i = 0; i < d->n_help; i++)
			assert_string_not_equal(d->help_of[i], name);
		snprintf(d->help_of[d->n_help], 128, "%s", name);
		help_unescape(p + 1, d->helps[d->n_help], 256);
		d->n_help++;
	} else if (strncmp(line, "# TYPE ", 7) == 0) {
		p = parse_name(line + 7, name, sizeof(name));
		assert_non_null(p);
		assert_int_equal(prom_find_type(d, name), -1);
		assert_true(strcmp(p, " counter") == 0 ||
			    strcmp(p, " gauge") == 0);
		snprintf(d->type_of[d->n_type], 128, "%s", name);
		snprintf(d->types[d->n_type], 16, "%s", p + 1);
		d->n_type++;
	}
}

static void
prom_sample_line(struct prom_doc *d, const char *line)
{
	struct prom_sample *s = &d->smp[d->n];
	const char *p = parse_name(line, s->name, sizeof(s->name));
	char *end;

	if (p == NULL) {
		fail_msg("bad metric name: %s", line);
		return;
	}
	/* Samples follow their family's TYPE line, grouped. */
	assert_true(d->n_type > 0);
	assert_string_equal(d->type_of[d->n_type - 1], s->name);
	if (strcmp(d->types[d->n_type - 1], "counter") == 0)
		assert_non_null(strstr(s->name, "_total"));
	if (*p == '{') {
		p++;
		while (*p != '}') {
			assert_true(s->nl < 3);
			p = parse_name(p, s->lk[s->nl], 32);
			if (p == NULL || *p != '=') {
				p = NULL;
				break;
			}
			p = parse_quoted(p + 1, s->lv[s->nl], 128);
			if (p == NULL)
				break;
			s->nl++;
			if (*p == ',')
				p++;
		}
		if (p == NULL) {
			fail_msg("bad labels: %s", line);
			return;
		}
		p++;
	}
	assert_true(*p == ' ');
	s->value = strtod(p + 1, &end);
	assert_true(end != p + 1 && *end == '\0');
	d->n++;
}

static void
prom_parse(struct prom_doc *d, char *text)
{
	char *save = NULL, *line;

	memset(d, 0, sizeof(*d));
	/* The format wants every line ended by \n, the last one too. */
	assert_true(text[0] != '\0' && text[strlen(text) - 1] == '\n');
	for (line = strtok_r(text, "\n", &save); line != NULL;
	     line = strtok_r(NULL, "\n", &save)) {
		if (line[0] == '#')
			prom_comment(d, line);
		else
			prom_sample_line(d, line);
	}
}

/* Value of the sample with these labels (k1 NULL: no labels), or -1. */
static double
prom_get(const struct prom_doc *d, const char *name, const char *k1,
	 const char *v1, const char *k2, const char *v2)
{
	unsigned int i;

	for (i = 0; i < d->n; i++) {
		const struct prom_sample *s = &d->smp[i];

		if (strcmp(s->name, name) != 0)
			continue;
		if (k1 == NULL && s->nl == 0)
			return s->value;
		if (k1 != NULL && s->nl == (k2 ? 2u : 1u) &&
		    strcmp(s->lk[0], k1) == 0 && strcmp(s->lv[0], v1) == 0 &&
		    (k2 == NULL || (strcmp(s->lk[1], k2) == 0 &&
				    strcmp(s->lv[1], v2) == 0)))
			return s->value;
	}
	return -1;
}

static char *
slurp_stream(FILE *f)
{
	long n;
	char *buf;

	fflush(f);
	n = ftell(f);
	rewind(f);
	buf = calloc(1, (size_t)n + 1);
	assert_non_null(buf);
	assert_int_equal(fread(buf, 1, (size_t)n, f), (size_t)n);
	return buf;
}

static char *
render_prom(const struct aifab_stats_view *v, unsigned int n)
{
	FILE *f = tmpfile();
	char *text;

	assert_non_null(f);
	assert_int_equal(aifab_stats_prom_write(f, v, n), 0);
	text = slurp_stream(f);
	fclose(f);
	return text;
}

static void
dump(const char *file, const char *text)
{
	const char *dir = getenv("AIFAB_STATS_DUMP");
	char path[PATH_MAX];
	FILE *f;

	if (dir == NULL)
		return;
	snprintf(path, sizeof(path), "%s/%s", dir, file);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

static void
test_prometheus(void **state)
{
	static const char *const odd[] = { "p0", "we\"ird\\port" };
	struct aifab_stats_set *s = mk("sw", odd, 2, 4);
	struct aifab_stats_set *g = mk("gen", names2, 2, 1);
	struct aifab_stats_snap *snap = aifab_stats_snap_alloc(s);
	struct aifab_stats_snap *gsnap = aifab_stats_snap_alloc(g);
	struct aifab_stats_view v[2] = { { s, snap }, { g, gsnap } };
	struct prom_doc *d = calloc(1, sizeof(*d));
	char name[128], *text;
	unsigned int id;
	int t;

	(void)state;
	fill_pattern(s, 4);
	aifab_stats_read(s, snap, 5);
	aifab_stats_read(g, gsnap, 5);
	text = render_prom(v, 2);
	dump("t.prom", text);
	prom_parse(d, text);
	free(text);
	/* Every counter of both sets is a family with HELP and TYPE. */
	for (id = 0; id < aifab_stats_n_counters(s); id++) {
		const struct aifab_stats_desc *de = aifab_stats_desc(s, id);
		bool ctr = de->kind == AIFAB_STATS_COUNTER;

		snprintf(name, sizeof(name), "aifab_sw_%s%s", de->name,
			 ctr ? "_total" : "");
		t = prom_find_type(d, name);
		assert_true(t >= 0);
		assert_string_equal(d->types[t], ctr ? "counter" : "gauge");
		snprintf(name, sizeof(name), "aifab_gen_%s%s", de->name,
			 ctr ? "_total" : "");
		assert_true(prom_find_type(d, name) >= 0);
	}
	assert_int_equal(d->n_help, d->n_type);
	/* Values and labels, including the escaped port name. */
	assert_true(prom_get(d, "aifab_sw_rx_pkts_total", "port", "p0", NULL,
			     NULL) == 10 * base_val(t_stat_rx_pkts, 0));
	assert_true(prom_get(d, "aifab_sw_rx_pkts_total", "port",
			     "we\"ird\\port", NULL, NULL) ==
		    10 * base_val(t_stat_rx_pkts, 1));
	assert_true(prom_get(d, "aifab_sw_ecn_marked_total", "port",
			     "we\"ird\\port", "tc", "3") ==
		    10 * base_val(t_stat_ecn_marked, 8 + 3));
	assert_true(prom_get(d, "aifab_sw_pfc_rx_total", "port", "p0",
			     "priority", "6") ==
		    10 * base_val(t_stat_pfc_rx, 6));
	assert_true(prom_get(d, "aifab_sw_queue_bytes", "port", "p0", "tc",
			     "0") == 10 * base_val(t_stat_queue_bytes, 0));
	assert_true(prom_get(d, "aifab_sw_worker_bursts_total", "lcore", "5",
			     NULL, NULL) == 3 * base_val(t_stat_worker_bursts, 0));
	assert_true(prom_get(d, "aifab_sw_parse_errors_total", NULL, NULL,
			     NULL, NULL) == 10 * base_val(t_stat_parse_errors, 0));
	assert_true(prom_get(d, "aifab_tsc_hz", NULL, NULL, NULL, NULL) ==
		    (double)HZ);
	/* HELP text survives escaping. */
	for (id = 0; id < d->n_help; id++)
		if (strcmp(d->help_of[id], "aifab_sw_parse_errors_total") == 0)
			assert_string_equal(d->helps[id],
				"Malformed \"frames\"\n with a back\\slash "
				"(packets)");
	free(d);
	aifab_stats_snap_free(snap);
	aifab_stats_snap_free(gsnap);
	aifab_stats_free(s);
	aifab_stats_free(g);
}

static void
test_prometheus_file_atomic(void **state)
{
	struct aifab_stats_set *s = mk("sw", names2, 2, 1);
	struct aifab_stats_snap *snap = aifab_stats_snap_alloc(s);
	struct aifab_stats_view v = { s, snap };
	char dir[] = "/tmp/aifab-stats-XXXXXX", path[128], tmp[160];
	char *want, *got;
	FILE *f;

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/m.prom", dir);
	snprintf(tmp, sizeof(tmp), "%s.tmp", path);
	f = fopen(path, "w");
	fputs("old\n", f);
	fclose(f);
	aifab_stats_add_port(aifab_stats_block(s, 0), t_stat_tx_pkts, 1, 42);
	aifab_stats_read(s, snap, 1);
	assert_int_equal(aifab_stats_prom_write_file(path, &v, 1), 0);
	assert_int_equal(access(tmp, F_OK), -1);
	want = render_prom(&v, 1);
	f = fopen(path, "r");
	fseek(f, 0, SEEK_END);
	got = slurp_stream(f);
	fclose(f);
	assert_string_equal(got, want);
	assert_non_null(strstr(got, "aifab_sw_tx_pkts_total{port=\"p1\"} 42\n"));
	/* Unwritable directory: error, nothing left behind. */
	assert_true(aifab_stats_prom_write_file("/nonexistent/x.prom", &v, 1)
		    < 0);
	free(want);
	free(got);
	unlink(path);
	rmdir(dir);
	aifab_stats_snap_free(snap);
	aifab_stats_free(s);
}

static void
test_jsonl(void **state)
{
	struct aifab_stats_set *s = mk("sw", names2, 2, 4);
	struct aifab_stats_snap *snap = aifab_stats_snap_alloc(s);
	char key[96], want[512], *text;
	unsigned int id;
	FILE *f = tmpfile();

	(void)state;
	aifab_stats_add_port(aifab_stats_block(s, 0), t_stat_rx_pkts, 0, 5);
	aifab_stats_add_port(aifab_stats_block(s, 3), t_stat_rx_pkts, 1, 7);
	aifab_stats_add_tc(aifab_stats_block(s, 1), t_stat_ecn_marked, 1, 2, 9);
	aifab_stats_add(aifab_stats_block(s, 1), t_stat_worker_bursts, 4);
	aifab_stats_add(aifab_stats_block(s, 2), t_stat_parse_errors, 3);
	aifab_stats_read(s, snap, 123456);
	assert_int_equal(aifab_stats_jsonl_write(f, s, snap, 1.5), 0);
	aifab_stats_read(s, snap, 123457);
	assert_int_equal(aifab_stats_jsonl_write(f, s, snap, 2.5), 0);
	text = slurp_stream(f);
	fclose(f);
	dump("t.jsonl", text);
	/* Two lines, one object each. */
	assert_non_null(strchr(text, '\n'));
	assert_string_equal(strchr(strchr(text, '\n') + 1, '\n'), "\n");
	*strchr(text, '\n') = '\0';
	for (id = 0; id < aifab_stats_n_counters(s); id++) {
		snprintf(key, sizeof(key), "\"%s\":",
			 aifab_stats_desc(s, id)->name);
		assert_non_null(strstr(text, key));
	}
	assert_true(starts_with(text, "{\"time\":1.500000,\"tsc\":123456,"
				"\"tsc_hz\":1000000000,\"set\":\"sw\","
				"\"counters\":{"));
	assert_non_null(strstr(text, "\"rx_pkts\":{\"p0\":5,\"p1\":7}"));
	snprintf(want, sizeof(want), "\"ecn_marked\":{\"p0\":[0,0,0,0,0,0,0,0],"
		 "\"p1\":[0,0,9,0,0,0,0,0]}");
	assert_non_null(strstr(text, want));
	assert_non_null(strstr(text, "\"worker_bursts\":{\"1\":0,\"3\":4,"
			       "\"5\":0,\"7\":0}"));
	assert_non_null(strstr(text, "\"parse_errors\":3"));
	assert_string_equal(text + strlen(text) - 2, "}}");
	free(text);
	aifab_stats_snap_free(snap);
	aifab_stats_free(s);
}

/* Console: two snapshots 0.5 s apart with hand-picked deltas. */
static void
test_console(void **state)
{
	struct aifab_stats_set *s = mk("sw", names2, 2, 2);
	struct aifab_stats_snap *a = aifab_stats_snap_alloc(s);
	struct aifab_stats_snap *b = aifab_stats_snap_alloc(s);
	struct aifab_stats_block *b0 = aifab_stats_block(s, 0);
	struct aifab_stats_block *b1 = aifab_stats_block(s, 1);
	double c[9], busy, ppp, polls;
	unsigned int lc;
	char *text, *row;
	FILE *f = tmpfile();

	(void)state;
	aifab_stats_add_port(b0, t_stat_rx_pkts, 0, 999); /* before a */
	aifab_stats_account(b1, 1000, 0);
	aifab_stats_read(s, a, 1000000000);
	aifab_stats_add_port(b0, t_stat_rx_pkts, 0, 1500000);
	aifab_stats_add_port(b1, t_stat_rx_pkts, 0, 500000);
	aifab_stats_add_port(b0, t_stat_rx_bytes, 0, 125000000);
	aifab_stats_add_port(b1, t_stat_tx_bytes, 1, 62500000);
	aifab_stats_add_port(b1, t_stat_drop_no_route, 0, 3);
	aifab_stats_add_tc(b0, t_stat_drop_queue_full, 0, 1, 4);
	aifab_stats_add_tc(b1, t_stat_drop_queue_full, 0, 7, 5);
	aifab_stats_add_tc(b0, t_stat_ecn_marked, 1, 3, 11);
	aifab_stats_add_tc(b0, t_stat_pfc_tx, 1, 3, 2);
	aifab_stats_add_tc(b0, t_stat_pfc_rx, 0, 3, 6);
	aifab_stats_add_tc(b0, t_stat_pfc_paused_cycles, 0, 3, 2000000);
	aifab_stats_add_tc(b0, t_stat_pfc_paused_cycles, 0, 4, 500000);
	aifab_stats_account(b1, 750, 40);
	aifab_stats_account(b1, 100, 24);
	aifab_stats_account(b1, 250, 0);
	aifab_stats_read(s, b, 1500000000);
	assert_int_equal(aifab_stats_console(f, s, b, a, NULL, 0), -EINVAL);
	assert_int_equal(aifab_stats_console(f, s, a, b, NULL, 0), 0);
	text = slurp_stream(f);
	fclose(f);
	print_message("%s", text);
	row = strstr(text, "\np0 ");
	assert_non_null(row);
	assert_int_equal(sscanf(row, " p0 %lf %lf %lf %lf %lf %lf %lf %lf %lf",
				&c[0], &c[1], &c[2], &c[3], &c[4], &c[5], &c[6],
				&c[7], &c[8]), 9);
	/* 2e6 pkts / 0.5 s = 4 Mpps; 125e6 B * 8 / 0.5 s = 2 Gb/s. */
	assert_float_equal(c[0], 4.0, 1e-3);
	assert_float_equal(c[1], 2.0, 1e-3);
	assert_float_equal(c[2], 0, 1e-9);
	assert_float_equal(c[4], 3 + 4 + 5, 1e-9);
	assert_float_equal(c[5], 0, 1e-9);
	assert_float_equal(c[7], 6, 1e-9);
	/* 2.5e6 cycles at 1 GHz = 2.5 ms. */
	assert_float_equal(c[8], 2.5, 1e-3);
	row = strstr(text, "\np1 ");
	assert_int_equal(sscanf(row, " p1 %lf %lf %lf %lf %lf %lf %lf %lf %lf",
				&c[0], &c[1], &c[2], &c[3], &c[4], &c[5], &c[6],
				&c[7], &c[8]), 9);
	assert_float_equal(c[3], 1.0, 1e-3);
	assert_float_equal(c[5], 11, 1e-9);
	assert_float_equal(c[6], 2, 1e-9);
	/* lcore 3 (block 1): busy 850 of 1100 cycles, 64 pkts / 2 polls. */
	row = strstr(text, "\n3 ");
	assert_non_null(row);
	assert_int_equal(sscanf(row, " %u %lf %lf %lf", &lc, &busy, &ppp,
				&polls), 4);
	assert_float_equal(busy, 100.0 * 850 / 1100, 0.05);
	assert_float_equal(ppp, 32.0, 1e-9);
	assert_float_equal(polls, 3, 1e-9);
	free(text);
	aifab_stats_snap_free(a);
	aifab_stats_snap_free(b);
	aifab_stats_free(s);
}

static void
test_history_decimates(void **state)
{
	static const uint64_t want[] = { 0, 16, 32, 48, 64, 80, 96, 99 };
	struct aifab_stats_set *s = mk("sw", names2, 2, 1);
	struct aifab_stats_snap *snap = aifab_stats_snap_alloc(s);
	struct aifab_stats_hist *h = aifab_stats_hist_create(s, 8);
	unsigned int i;

	(void)state;
	assert_null(aifab_stats_hist_create(s, 7));
	assert_int_equal(aifab_stats_hist_count(h), 0);
	for (i = 0; i < 100; i++) {
		aifab_stats_add(aifab_stats_block(s, 0), t_stat_parse_errors, 1);
		aifab_stats_read(s, snap, i);
		aifab_stats_hist_push(h, snap);
		assert_true(aifab_stats_hist_count(h) <= 9);
	}
	/* Hand-traced: stride 16 after four halvings, plus the last push. */
	assert_int_equal(aifab_stats_hist_count(h), RTE_DIM(want));
	for (i = 0; i < RTE_DIM(want); i++) {
		const struct aifab_stats_snap *g = aifab_stats_hist_get(h, i);

		assert_int_equal(g->tsc, want[i]);
		assert_int_equal(aifab_stats_value(s, g, t_stat_parse_errors,
						   0), want[i] + 1);
	}
	assert_null(aifab_stats_hist_get(h, RTE_DIM(want)));
	aifab_stats_hist_free(h);
	aifab_stats_snap_free(snap);
	aifab_stats_free(s);
}

/* ---- HTML: read the charts back ---- */

static double
attr(const char *tag, const char *name)
{
	char pat[64];
	const char *p;

	snprintf(pat, sizeof(pat), " %s=\"", name);
	p = strstr(tag, pat);
	assert_non_null(p);
	return strtod(p + strlen(pat), NULL);
}

/* The <svg> right after <h2>title</h2>, NUL-terminated in place. */
static char *
find_chart(char *html, const char *title)
{
	char h2[160], *p, *end;

	snprintf(h2, sizeof(h2), "<h2>%s</h2>\n<svg", title);
	p = strstr(html, h2);
	if (p == NULL)
		return NULL;
	p += strlen(h2) - 4;
	end = strstr(p, "</svg>");
	assert_non_null(end);
	*end = '\0';
	return p;
}

/* Points of the polyline of @p series, mapped back to (t, value). */
static unsigned int
read_series(const char *svg, const char *series, double *t, double *y,
	    unsigned int max)
{
	const char *rect = strstr(svg, "<rect class=\"plot\"");
	const char *ym = strstr(svg, "class=\"ymax\"");
	const char *tm = strstr(svg, "class=\"tmax\"");
	double px, py, pw, ph, ymax, tmax, x, yy;
	char pat[96];
	const char *p;
	unsigned int n = 0;
	int used;

	assert_non_null(rect);
	assert_non_null(ym);
	assert_non_null(tm);
	px = attr(rect, "x");
	py = attr(rect, "y");
	pw = attr(rect, "width");
	ph = attr(rect, "height");
	ymax = strtod(strchr(ym, '>') + 1, NULL);
	tmax = strtod(strchr(tm, '>') + 1, NULL);
	snprintf(pat, sizeof(pat), "data-series=\"%s\"", series);
	p = strstr(svg, pat);
	if (p == NULL)
		return 0;
	p = strstr(p, "points=\"") + 8;
	while (n < max && sscanf(p, "%lf,%lf%n", &x, &yy, &used) == 2) {
		t[n] = (x - px) / pw * tmax;
		y[n] = (py + ph - yy) / ph * ymax;
		n++;
		p += used;
	}
	return n;
}

static unsigned int
count(const char *hay, const char *needle)
{
	unsigned int n = 0;

	while ((hay = strstr(hay, needle)) != NULL) {
		n++;
		hay++;
	}
	return n;
}

static void
test_html(void **state)
{
	/* p0 tx Gb/s per 1 s interval; p1 twice as much. */
	static const double gbps[4] = { 10, 20, 10, 5 };
	static const struct aifab_stats_chart mine[] = {
		{ "Bursts per lcore", "worker_bursts", 1, "bursts/s",
		  AIFAB_STATS_SPLIT_INSTANCE },
		{ "Throughput sent per port", "tx_bytes", 8e-9, "Gb/s",
		  AIFAB_STATS_SPLIT_PORT },
		{ "Absent", "no_such_counter", 1, "x", AIFAB_STATS_SPLIT_NONE },
	};
	struct aifab_stats_set *s = mk("sw", names2, 2, 2);
	struct aifab_stats_snap *snap = aifab_stats_snap_alloc(s);
	struct aifab_stats_hist *h = aifab_stats_hist_create(s, 16);
	struct aifab_stats_block *b0 = aifab_stats_block(s, 0);
	double t[8], y[8];
	char key[96], *html, *svg;
	unsigned int k, id;
	FILE *f = tmpfile();

	(void)state;
	aifab_stats_read(s, snap, 0);
	aifab_stats_hist_push(h, snap);
	for (k = 0; k < 4; k++) {
		aifab_stats_add_port(b0, t_stat_tx_bytes, 0,
				     (uint64_t)(gbps[k] * 1e9 / 8));
		aifab_stats_add_port(b0, t_stat_tx_bytes, 1,
				     (uint64_t)(2 * gbps[k] * 1e9 / 8));
		aifab_stats_gauge(b0, t_stat_queue_bytes, 8 + 3, 1000 * (k + 1));
		aifab_stats_add(aifab_stats_block(s, 1), t_stat_worker_bursts,
				100);
		aifab_stats_read(s, snap, (k + 1) * HZ);
		aifab_stats_hist_push(h, snap);
	}
	assert_int_equal(aifab_stats_html_write(f, "run <1>", h, NULL, 0), 0);
	html = slurp_stream(f);
	fclose(f);
	dump("t.html", html);
	/* Default charts whose counters exist: all seven. */
	assert_int_equal(count(html, "<svg"), 7);
	assert_null(strstr(html, "<script"));
	assert_null(strstr(html, "src="));
	assert_null(strstr(html, "href"));
	assert_non_null(strstr(html, "<title>run &lt;1&gt;</title>"));
	for (id = 0; id < aifab_stats_n_counters(s); id++) {
		snprintf(key, sizeof(key), "<td class=\"name\">%s</td>",
			 aifab_stats_desc(s, id)->name);
		assert_non_null(strstr(html, key));
	}
	svg = find_chart(html, "Throughput sent per port");
	assert_non_null(svg);
	assert_int_equal(count(svg, "<polyline"), 2);
	assert_int_equal(read_series(svg, "p0", t, y, 8), 4);
	for (k = 0; k < 4; k++) {
		assert_float_equal(t[k], k + 1, 0.01);
		assert_float_equal(y[k], gbps[k], 0.2);
	}
	assert_int_equal(read_series(svg, "p1", t, y, 8), 4);
	for (k = 0; k < 4; k++)
		assert_float_equal(y[k], 2 * gbps[k], 0.2);
	free(html);

	/* Gauge, split per instance: queue p1 tc3 in KB, as sampled. */
	f = tmpfile();
	assert_int_equal(aifab_stats_html_write(f, "q", h, NULL, 0), 0);
	html = slurp_stream(f);
	fclose(f);
	svg = find_chart(html, "Egress queue depth");
	assert_int_equal(count(svg, "<polyline"), 1);
	assert_int_equal(read_series(svg, "p1 tc3", t, y, 8), 4);
	for (k = 0; k < 4; k++)
		assert_float_equal(y[k], k + 1, 0.02);
	free(html);

	/* The caller's charts: a per-lcore series; absent counters skipped. */
	f = tmpfile();
	assert_int_equal(aifab_stats_html_write(f, "mine", h, mine,
						RTE_DIM(mine)), 0);
	html = slurp_stream(f);
	fclose(f);
	assert_int_equal(count(html, "<svg"), 2);
	svg = find_chart(html, "Bursts per lcore");
	assert_int_equal(read_series(svg, "lcore 3", t, y, 8), 4);
	assert_float_equal(y[2], 100, 0.5);
	assert_int_equal(read_series(svg, "lcore 1", t, y, 8), 0);
	free(html);
	aifab_stats_hist_free(h);
	aifab_stats_snap_free(snap);
	aifab_stats_free(s);
}

/* ---- telemetry: a real client on DPDK's socket ---- */

static int
tel_connect(void)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	char buf[1024];
	int fd = socket(AF_UNIX, SOCK_SEQPACKET, 0);

	assert_true(fd >= 0);
	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s/dpdk_telemetry.v2",
		 unit_run_dir());
	assert_int_equal(connect(fd, (struct sockaddr *)&sa, sizeof(sa)), 0);
	assert_true(read(fd, buf, sizeof(buf)) > 0); /* greeting */
	return fd;
}

static char *
tel_ask(int fd, const char *cmd)
{
	static char buf[16384];
	ssize_t n;

	assert_int_equal(write(fd, cmd, strlen(cmd)), (ssize_t)strlen(cmd));
	n = read(fd, buf, sizeof(buf) - 1);
	assert_true(n > 0);
	buf[n] = '\0';
	return buf;
}

static uint64_t
fake_clock(void)
{
	return 4242;
}

static void
test_telemetry(void **state)
{
	struct aifab_stats_set *s = mk("tsw", names2, 2, 4);
	struct aifab_stats_set *dup = mk("tsw", names2, 2, 1);
	struct aifab_stats_snap *snap = aifab_stats_snap_alloc(s);
	struct rte_tel_data *d = rte_tel_data_alloc();
	char key[96], *r;
	unsigned int id;
	int fd;

	(void)state;
	aifab_stats_add_port(aifab_stats_block(s, 0), t_stat_rx_pkts, 0, 5);
	aifab_stats_add_port(aifab_stats_block(s, 2), t_stat_rx_pkts, 1, 7);
	aifab_stats_add_tc(aifab_stats_block(s, 1), t_stat_ecn_marked, 1, 3, 9);
	aifab_stats_add(aifab_stats_block(s, 3), t_stat_parse_errors, 2);
	aifab_stats_add(aifab_stats_block(s, 3), t_stat_worker_bursts, 6);
	/*
	 * The pure filler, on a data object of our own: one counter (a flat
	 * dict; rte_tel_data_free() would leak a full reply's containers,
	 * which only the telemetry thread frees).
	 */
	aifab_stats_read(s, snap, 1);
	assert_int_equal(aifab_stats_telemetry_fill(s, snap, "rx_pkts", d), 0);
	assert_int_equal(aifab_stats_telemetry_fill(s, snap, "nope", d),
			 -ENOENT);
	rte_tel_data_free(d);

	assert_int_equal(aifab_stats_telemetry_register(s, fake_clock), 0);
	assert_int_equal(aifab_stats_telemetry_register(dup, NULL), -EEXIST);
	fd = tel_connect();
	r = tel_ask(fd, "/aifab/tsw");
	print_message("%.300s...\n", r);
	assert_true(starts_with(r, "{\"/aifab/tsw\":{\"tsc\":4242,"
				"\"ports\":[\"p0\",\"p1\"],\"lcores\":[1,3,5,7],"));
	for (id = 0; id < aifab_stats_n_counters(s); id++) {
		snprintf(key, sizeof(key), "\"%s\":",
			 aifab_stats_desc(s, id)->name);
		assert_non_null(strstr(r, key));
	}
	assert_non_null(strstr(r, "\"rx_pkts\":[5,7]"));
	assert_non_null(strstr(r, "\"parse_errors\":2,"));
	assert_non_null(strstr(r, "\"worker_bursts\":[0,0,0,6]"));
	assert_non_null(strstr(r, "\"ecn_marked\":[0,0,0,0,0,0,0,0,"
			       "0,0,0,9,0,0,0,0]"));
	r = tel_ask(fd, "/aifab/tsw,ecn_marked");
	assert_string_equal(r, "{\"/aifab/tsw\":{\"p0\":[0,0,0,0,0,0,0,0],"
			    "\"p1\":[0,0,0,9,0,0,0,0]}}");
	r = tel_ask(fd, "/aifab/tsw,rx_pkts");
	assert_string_equal(r, "{\"/aifab/tsw\":{\"p0\":5,\"p1\":7}}");
	r = tel_ask(fd, "/aifab/tsw,parse_errors");
	assert_string_equal(r, "{\"/aifab/tsw\":{\"value\":2}}");
	r = tel_ask(fd, "/aifab/tsw,worker_bursts");
	assert_non_null(strstr(r, "\"lcore_7\":6"));
	aifab_stats_telemetry_unregister(s);
	r = tel_ask(fd, "/aifab/tsw");
	assert_string_equal(r, "{\"/aifab/tsw\":null}");
	/* The command's slot can serve another set with that name. */
	assert_int_equal(aifab_stats_telemetry_register(dup, NULL), 0);
	r = tel_ask(fd, "/aifab/tsw");
	assert_non_null(strstr(r, "\"rx_pkts\":[0,0]"));
	aifab_stats_telemetry_unregister(dup);
	close(fd);
	aifab_stats_snap_free(snap);
	aifab_stats_free(s);
	aifab_stats_free(dup);
}

int
main(void)
{
	const struct CMUnitTest plain[] = {
		cmocka_unit_test(test_layout_and_sums),
		cmocka_unit_test(test_bad_params),
		cmocka_unit_test(test_concurrent_writers),
		cmocka_unit_test(test_prometheus),
		cmocka_unit_test(test_prometheus_file_atomic),
		cmocka_unit_test(test_jsonl),
		cmocka_unit_test(test_console),
		cmocka_unit_test(test_history_decimates),
		cmocka_unit_test(test_html),
	};
	const struct CMUnitTest with_eal[] = {
		cmocka_unit_test(test_telemetry),
	};
	int rc = cmocka_run_group_tests_name("stats", plain, NULL, NULL);

	return rc + cmocka_run_group_tests_name("stats_telemetry", with_eal,
						unit_eal_up, unit_eal_down);
}
