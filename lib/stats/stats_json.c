/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * JSON lines: one object per interval, written by lib/json.
 */
#include <errno.h>

#include "aifab_json.h"
#include "stats_priv.h"

static void
write_counter(struct aifab_json *j, const struct aifab_stats_set *s,
	      const struct aifab_stats_snap *snap, unsigned int id)
{
	const uint64_t *v = &snap->v[s->soff[id]];
	const char *name = s->descs[id].name;
	char lcore[16];
	unsigned int p, i;

	switch (s->descs[id].scope) {
	case AIFAB_STATS_PORT:
	case AIFAB_STATS_PORT_TC:
	case AIFAB_STATS_PORT_PRIO: {
		unsigned int per = s->ninst[id] / s->n_ports;

		aifab_json_obj(j, name);
		for (p = 0; p < s->n_ports; p++) {
			if (s->descs[id].scope == AIFAB_STATS_PORT) {
				aifab_json_u64(j, s->port_names[p], v[p]);
				continue;
			}
			aifab_json_arr(j, s->port_names[p]);
			for (i = 0; i < per; i++)
				aifab_json_u64(j, NULL, v[p * per + i]);
			aifab_json_end(j);
		}
		aifab_json_end(j);
		break;
	}
	case AIFAB_STATS_LCORE:
		aifab_json_obj(j, name);
		for (i = 0; i < s->n_blocks; i++) {
			snprintf(lcore, sizeof(lcore), "%u", s->block_lcore[i]);
			aifab_json_u64(j, lcore, v[i]);
		}
		aifab_json_end(j);
		break;
	default:
		aifab_json_u64(j, name, v[0]);
	}
}

void
aifab_stats_json_counters(struct aifab_json *j, const char *key,
			  const struct aifab_stats_set *s,
			  const struct aifab_stats_snap *snap)
{
	unsigned int id;

	aifab_json_obj(j, key);
	for (id = 0; id < s->n_counters; id++)
		write_counter(j, s, snap, id);
	aifab_json_end(j);
}

void
aifab_stats_json_set(struct aifab_json *j, const char *key,
		     const struct aifab_stats_set *s,
		     const struct aifab_stats_snap *snap, double time_s)
{
	aifab_json_obj(j, key);
	aifab_json_dbl(j, "time", time_s, 6);
	aifab_json_u64(j, "tsc", snap->tsc);
	aifab_json_u64(j, "tsc_hz", s->tsc_hz);
	aifab_json_str(j, "set", s->name);
	aifab_stats_json_counters(j, "counters", s, snap);
	aifab_json_end(j);
}

int
aifab_stats_jsonl_write(FILE *f, const struct aifab_stats_set *s,
			const struct aifab_stats_snap *snap, double time_s)
{
	struct aifab_json j;

	aifab_json_begin(&j, f, 0);
	aifab_stats_json_set(&j, NULL, s, snap, time_s);
	if (aifab_json_finish(&j) != 0 || fputc('\n', f) == EOF)
		return -EIO;
	return 0;
}
