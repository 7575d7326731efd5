/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * JSON lines: one object per interval.
 */
#include <errno.h>
#include <inttypes.h>

#include "stats_priv.h"

static void
key(FILE *f, const char *k)
{
	fputc('"', f);
	stats_json_escape(f, k);
	fputs("\":", f);
}

static void
write_counter(FILE *f, const struct aifab_stats_set *s,
	      const struct aifab_stats_snap *snap, unsigned int id)
{
	const uint64_t *v = &snap->v[s->soff[id]];
	unsigned int p, i;

	key(f, s->descs[id].name);
	switch (s->descs[id].scope) {
	case AIFAB_STATS_PORT:
	case AIFAB_STATS_PORT_TC:
	case AIFAB_STATS_PORT_PRIO: {
		unsigned int per = s->ninst[id] / s->n_ports;

		fputc('{', f);
		for (p = 0; p < s->n_ports; p++) {
			fputs(p > 0 ? "," : "", f);
			key(f, s->port_names[p]);
			if (s->descs[id].scope == AIFAB_STATS_PORT) {
				fprintf(f, "%" PRIu64, v[p]);
				continue;
			}
			for (i = 0; i < per; i++)
				fprintf(f, "%c%" PRIu64, i > 0 ? ',' : '[',
					v[p * per + i]);
			fputc(']', f);
		}
		fputc('}', f);
		break;
	}
	case AIFAB_STATS_LCORE:
		fputc('{', f);
		for (i = 0; i < s->n_blocks; i++)
			fprintf(f, "%s\"%u\":%" PRIu64, i > 0 ? "," : "",
				s->block_lcore[i], v[i]);
		fputc('}', f);
		break;
	default:
		fprintf(f, "%" PRIu64, v[0]);
	}
}

int
aifab_stats_json_counters(FILE *f, const struct aifab_stats_set *s,
			  const struct aifab_stats_snap *snap)
{
	unsigned int id;

	fputc('{', f);
	for (id = 0; id < s->n_counters; id++) {
		if (id > 0)
			fputc(',', f);
		write_counter(f, s, snap, id);
	}
	fputc('}', f);
	return ferror(f) ? -EIO : 0;
}

int
aifab_stats_jsonl_write(FILE *f, const struct aifab_stats_set *s,
			const struct aifab_stats_snap *snap, double time_s)
{
	fprintf(f, "{\"time\":%.6f,\"tsc\":%" PRIu64 ",\"tsc_hz\":%" PRIu64
		",\"set\":\"", time_s, snap->tsc, s->tsc_hz);
	stats_json_escape(f, s->name);
	fputs("\",\"counters\":", f);
	aifab_stats_json_counters(f, s, snap);
	fputs("}\n", f);
	return ferror(f) ? -EIO : 0;
}
