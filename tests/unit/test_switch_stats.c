/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The switch's counter list (pipelines/switch_stats.h) against lib/stats'
 * exporters: every counter of the list reaches every exporter (Prometheus,
 * JSON lines, telemetry, console, HTML), under the names the console and
 * the report's default charts expect; the list names what lib/pkt and
 * lib/qos name (the JSON report's keys come from them). No EAL.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <rte_telemetry.h>

#include "switch_stats.h"

#define N_PORTS 4
#define N_BLOCKS 2

static const char *const port_names[N_PORTS] = { "p0", "p1", "p2", "p3" };
static const unsigned int lcores[N_BLOCKS] = { 1, 3 };

struct fx {
	struct aifab_stats_set *set;
	struct aifab_stats_snap *a, *b;
	struct aifab_stats_hist *h;
};

/* Text an exporter wrote into memory (caller frees). */
#define CAPTURE(buf, expr) do { \
		size_t len_ = 0; \
		FILE *m_ = open_memstream(&(buf), &len_); \
		assert_non_null(m_); \
		assert_int_equal((expr), 0); \
		fclose(m_); \
	} while (0)
#define OUT m_

/* Every instance of every counter gets a distinct non-zero value. */
static void
fill(struct aifab_stats_set *s, uint64_t scale)
{
	unsigned int b, id, i;

	for (b = 0; b < N_BLOCKS; b++) {
		struct aifab_stats_block *blk = aifab_stats_block(s, b);

		for (id = 0; id < sw_st_N; id++)
			for (i = 0; i < aifab_stats_n_instances(s, id); i++) {
				if (sw_st_descs[id].scope == AIFAB_STATS_LCORE)
					break;
				blk->v[blk->off[id] + i] += scale * (id + i + 1);
			}
		aifab_stats_account(blk, 1000 * scale, 32);
		aifab_stats_account(blk, 10 * scale, 0);
	}
}

static int
setup(void **state)
{
	struct aifab_stats_params p = {
		.name = "sw", .descs = sw_st_descs, .n_descs = sw_st_N,
		.n_ports = N_PORTS, .port_names = port_names,
		.n_tcs = AIFAB_QOS_N_TC, .n_blocks = N_BLOCKS,
		.block_lcore = lcores, .tsc_hz = 1000000000,
	};
	struct fx *f = calloc(1, sizeof(*f));

	assert_non_null(f);
	f->set = aifab_stats_create(&p);
	assert_non_null(f->set); /* valid names, no duplicates */
	f->a = aifab_stats_snap_alloc(f->set);
	f->b = aifab_stats_snap_alloc(f->set);
	f->h = aifab_stats_hist_create(f->set, 8);
	fill(f->set, 1);
	aifab_stats_read(f->set, f->a, 1000000000);
	aifab_stats_hist_push(f->h, f->a);
	fill(f->set, 2);
	aifab_stats_read(f->set, f->b, 2000000000);
	aifab_stats_hist_push(f->h, f->b);
	*state = f;
	return 0;
}

static int
teardown(void **state)
{
	struct fx *f = *state;

	aifab_stats_hist_free(f->h);
	aifab_stats_snap_free(f->a);
	aifab_stats_snap_free(f->b);
	aifab_stats_free(f->set);
	free(f);
	return 0;
}

static void
test_names_follow_libs(void **state)
{
	char name[64];
	unsigned int k;

	(void)state;
	for (k = 1; k < AIFAB_PKT_ERR_MAX; k++) {
		snprintf(name, sizeof(name), "drop_%s", aifab_pkt_err_name(k));
		assert_string_equal(sw_st_descs[SW_ST_PKT(k)].name, name);
	}
	for (k = AIFAB_QOS_CTR_ECN_MARKED; k < AIFAB_QOS_CTR_MAX; k++)
		if (k != AIFAB_QOS_CTR_QUEUE_HWM_BYTES)
			assert_string_equal(sw_st_descs[sw_st_qos(k)].name,
					    aifab_qos_ctr_name(k));
	assert_int_equal(sw_st_qos(AIFAB_QOS_CTR_TX_PACKETS), sw_st_tc_tx_pkts);
	assert_int_equal(sw_st_qos(AIFAB_QOS_CTR_TX_BYTES), sw_st_tc_tx_bytes);
	/* The console's and the report's conventional names. */
	assert_int_equal(sw_st_descs[sw_st_rx_pkts].scope, AIFAB_STATS_PORT);
	assert_int_equal(sw_st_descs[sw_st_ecn_marked].scope,
			 AIFAB_STATS_PORT_TC);
	assert_int_equal(sw_st_descs[sw_st_pfc_tx].scope,
			 AIFAB_STATS_PORT_PRIO);
	assert_int_equal(sw_st_descs[sw_st_queue_bytes].kind,
			 AIFAB_STATS_GAUGE);
	assert_string_equal(sw_st_descs[sw_st_pfc_paused_cycles].unit,
			    "cycles");
}

static void
test_prometheus(void **state)
{
	struct fx *f = *state;
	struct aifab_stats_view v = { f->set, f->b };
	char *buf = NULL, want[160];
	unsigned int id;

	CAPTURE(buf, aifab_stats_prom_write(OUT, &v, 1));
	for (id = 0; id < sw_st_N; id++) {
		snprintf(want, sizeof(want), "\n# TYPE aifab_sw_%s%s %s\n",
			 sw_st_descs[id].name,
			 sw_st_descs[id].kind == AIFAB_STATS_COUNTER ?
			 "_total" : "",
			 sw_st_descs[id].kind == AIFAB_STATS_COUNTER ?
			 "counter" : "gauge");
		if (strstr(buf, want) == NULL)
			fail_msg("Prometheus lacks %s", want);
	}
	assert_non_null(strstr(buf, "aifab_sw_queue_bytes{port=\"p3\",tc=\"7\"}"));
	assert_non_null(strstr(buf, "aifab_sw_pfc_rx_total{port=\"p1\","
				    "priority=\"3\"}"));
	free(buf);
}

static void
test_jsonl(void **state)
{
	struct fx *f = *state;
	char *buf = NULL, want[96];
	unsigned int id;

	CAPTURE(buf, aifab_stats_jsonl_write(OUT, f->set, f->b, 2.0));
	for (id = 0; id < sw_st_N; id++) {
		snprintf(want, sizeof(want), "\"%s\":", sw_st_descs[id].name);
		if (strstr(buf, want) == NULL)
			fail_msg("JSON line lacks %s", want);
	}
	free(buf);
}

static void
test_telemetry(void **state)
{
	struct fx *f = *state;
	unsigned int id;

	/* The filler answers every counter by name. Replies are built on a
	 * data object of our own (no telemetry thread): only flat ones
	 * (GLOBAL, PORT) can be freed here, the others are looked up. */
	for (id = 0; id < sw_st_N; id++) {
		enum aifab_stats_scope sc = sw_st_descs[id].scope;
		struct rte_tel_data *d;

		assert_int_equal(aifab_stats_find(f->set, sw_st_descs[id].name),
				 (int)id);
		if (sc != AIFAB_STATS_PORT && sc != AIFAB_STATS_GLOBAL)
			continue;
		d = rte_tel_data_alloc();
		assert_non_null(d);
		if (aifab_stats_telemetry_fill(f->set, f->b,
					       sw_st_descs[id].name, d) != 0)
			fail_msg("telemetry: %s", sw_st_descs[id].name);
		rte_tel_data_free(d);
	}
}

static void
test_console(void **state)
{
	struct fx *f = *state;
	char *buf = NULL;

	CAPTURE(buf, aifab_stats_console(OUT, f->set, f->a, f->b, NULL, 0));
	/* Every default column found its counter: no "-" cell. */
	assert_null(strstr(buf, "          -"));
	assert_non_null(strstr(buf, "rx Mpps"));
	assert_non_null(strstr(buf, "paused ms"));
	assert_non_null(strstr(buf, "\np3 "));
	free(buf);
}

static void
test_html(void **state)
{
	static const char *const titles[] = {
		"Throughput received per port", "Throughput sent per port",
		"Egress queue depth", "PFC pause frames sent",
		"PFC pause frames received", "ECN CE marks",
		"Drops (all reasons)",
	};
	struct fx *f = *state;
	char *buf = NULL, want[96];
	unsigned int i, id;

	CAPTURE(buf, aifab_stats_html_write(OUT, "t", f->h, NULL, 0));
	for (i = 0; i < RTE_DIM(titles); i++)
		if (strstr(buf, titles[i]) == NULL)
			fail_msg("HTML lacks the chart '%s'", titles[i]);
	for (id = 0; id < sw_st_N; id++) {
		snprintf(want, sizeof(want), "<td class=\"name\">%s</td>",
			 sw_st_descs[id].name);
		if (strstr(buf, want) == NULL)
			fail_msg("HTML table lacks %s", sw_st_descs[id].name);
	}
	free(buf);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_names_follow_libs),
		cmocka_unit_test_setup_teardown(test_prometheus, setup, teardown),
		cmocka_unit_test_setup_teardown(test_jsonl, setup, teardown),
		cmocka_unit_test_setup_teardown(test_telemetry, setup, teardown),
		cmocka_unit_test_setup_teardown(test_console, setup, teardown),
		cmocka_unit_test_setup_teardown(test_html, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
