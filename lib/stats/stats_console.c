/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Console table: per port rates and interval counts from two snapshots,
 * then per lcore load.
 */
#include <errno.h>
#include <inttypes.h>

#include "stats_priv.h"

static const struct aifab_stats_col default_cols[] = {
	{ "rx Mpps", "rx_pkts", AIFAB_STATS_COL_MPPS },
	{ "rx Gb/s", "rx_bytes", AIFAB_STATS_COL_GBPS },
	{ "tx Mpps", "tx_pkts", AIFAB_STATS_COL_MPPS },
	{ "tx Gb/s", "tx_bytes", AIFAB_STATS_COL_GBPS },
	{ "drops", "drop_*", AIFAB_STATS_COL_DELTA },
	{ "ECN marks", "ecn_marked", AIFAB_STATS_COL_DELTA },
	{ "PFC tx", "pfc_tx", AIFAB_STATS_COL_DELTA },
	{ "PFC rx", "pfc_rx", AIFAB_STATS_COL_DELTA },
	{ "paused ms", "pfc_paused_cycles", AIFAB_STATS_COL_MS },
};

/* Sum over matching counters of port @p port's instances; false if none. */
static bool
col_sum(const struct aifab_stats_set *s, const struct aifab_stats_col *c,
	const struct aifab_stats_snap *a, const struct aifab_stats_snap *b,
	unsigned int port, uint64_t *sum)
{
	unsigned int id, i;
	bool found = false;

	*sum = 0;
	for (id = 0; id < s->n_counters; id++) {
		if (!stats_name_matches(s, id, c->counter) ||
		    aifab_stats_instance_port(s, id, 0) < 0)
			continue;
		found = true;
		for (i = 0; i < s->ninst[id]; i++) {
			unsigned int o = s->soff[id] + i;

			if ((unsigned int)aifab_stats_instance_port(s, id, i) !=
			    port)
				continue;
			*sum += c->fmt == AIFAB_STATS_COL_TOTAL ?
				b->v[o] : b->v[o] - a->v[o];
		}
	}
	return found;
}

static void
print_cell(FILE *f, const struct aifab_stats_col *c, bool found,
	   uint64_t v, double dt, double hz)
{
	if (!found) {
		fprintf(f, " %10s", "-");
		return;
	}
	switch (c->fmt) {
	case AIFAB_STATS_COL_MPPS:
		fprintf(f, " %10.3f", (double)v / dt / 1e6);
		break;
	case AIFAB_STATS_COL_GBPS:
		fprintf(f, " %10.3f", (double)v * 8 / dt / 1e9);
		break;
	case AIFAB_STATS_COL_MS:
		fprintf(f, " %10.3f", (double)v / hz * 1e3);
		break;
	default:
		fprintf(f, " %10" PRIu64, v);
	}
}

static void
print_lcores(FILE *f, const struct aifab_stats_set *s,
	     const struct aifab_stats_snap *a, const struct aifab_stats_snap *b)
{
	unsigned int i, base = s->n_user;

	fprintf(f, "%-8s %10s %10s %10s\n", "lcore", "busy %", "pkts/poll",
		"polls");
	for (i = 0; i < s->n_blocks; i++) {
#define D(bi) ((double)(b->v[s->soff[base + (bi)] + i] - \
			a->v[s->soff[base + (bi)] + i]))
		double busy = D(aifab_stats_bi_lcore_busy_cycles);
		double idle = D(aifab_stats_bi_lcore_idle_cycles);
		double bp = D(aifab_stats_bi_lcore_busy_polls);
		double ip = D(aifab_stats_bi_lcore_idle_polls);
		double pk = D(aifab_stats_bi_lcore_poll_pkts);
#undef D
		fprintf(f, "%-8u %10.1f %10.1f %10.0f\n", s->block_lcore[i],
			busy + idle > 0 ? 100 * busy / (busy + idle) : 0.0,
			bp > 0 ? pk / bp : 0.0, bp + ip);
	}
}

int
aifab_stats_console(FILE *f, const struct aifab_stats_set *s,
		    const struct aifab_stats_snap *a,
		    const struct aifab_stats_snap *b,
		    const struct aifab_stats_col *cols, unsigned int n_cols)
{
	return aifab_stats_console_ports(f, s, a, b, cols, n_cols, UINT64_MAX);
}

int
aifab_stats_console_ports(FILE *f, const struct aifab_stats_set *s,
			  const struct aifab_stats_snap *a,
			  const struct aifab_stats_snap *b,
			  const struct aifab_stats_col *cols,
			  unsigned int n_cols, uint64_t ports)
{
	double hz = s->tsc_hz != 0 ? (double)s->tsc_hz : 1.0, dt;
	unsigned int p, c;
	uint64_t v;
	bool found;

	if (b->tsc <= a->tsc)
		return -EINVAL;
	dt = (double)(b->tsc - a->tsc) / hz;
	if (cols == NULL) {
		cols = default_cols;
		n_cols = RTE_DIM(default_cols);
	}
	fprintf(f, "%-8s", "port");
	for (c = 0; c < n_cols; c++)
		fprintf(f, " %10.10s", cols[c].title);
	fputc('\n', f);
	for (p = 0; p < s->n_ports; p++) {
		if (p < 64 && !(ports >> p & 1))
			continue;
		fprintf(f, "%-8.8s", s->port_names[p]);
		for (c = 0; c < n_cols; c++) {
			found = col_sum(s, &cols[c], a, b, p, &v);
			print_cell(f, &cols[c], found, v, dt, hz);
		}
		fputc('\n', f);
	}
	print_lcores(f, s, a, b);
	return ferror(f) ? -EIO : 0;
}
