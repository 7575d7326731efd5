/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Prometheus text exposition format 0.0.4, written atomically.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <unistd.h>

#include "stats_priv.h"

/* HELP text: escape backslash and newline. */
static void
help_escape(FILE *f, const char *s)
{
	for (; *s != '\0'; s++) {
		if (*s == '\\')
			fputs("\\\\", f);
		else if (*s == '\n')
			fputs("\\n", f);
		else
			fputc(*s, f);
	}
}

static void
metric_name(const struct aifab_stats_set *s, unsigned int id, char *buf,
	    size_t len)
{
	const struct aifab_stats_desc *d = &s->descs[id];

	snprintf(buf, len, "aifab_%s%s%s%s", s->name,
		 s->name[0] != '\0' ? "_" : "", d->name,
		 d->kind == AIFAB_STATS_COUNTER ? "_total" : "");
}

static void
write_counter(FILE *f, const struct aifab_stats_set *s,
	      const struct aifab_stats_snap *snap, unsigned int id)
{
	const struct aifab_stats_desc *d = &s->descs[id];
	char name[2 * STATS_NAME_MAX + 16], labels[4 * STATS_NAME_MAX];
	unsigned int i;

	metric_name(s, id, name, sizeof(name));
	fprintf(f, "# HELP %s ", name);
	help_escape(f, d->help);
	fputs(" (", f);
	help_escape(f, d->unit);
	fputs(")\n", f);
	fprintf(f, "# TYPE %s %s\n", name,
		d->kind == AIFAB_STATS_COUNTER ? "counter" : "gauge");
	for (i = 0; i < s->ninst[id]; i++) {
		stats_instance_label(s, id, i, STATS_LABEL_PROM, labels,
				     sizeof(labels));
		fprintf(f, "%s%s%s%s %" PRIu64 "\n", name,
			labels[0] != '\0' ? "{" : "", labels,
			labels[0] != '\0' ? "}" : "", snap->v[s->soff[id] + i]);
	}
}

int
aifab_stats_prom_write(FILE *f, const struct aifab_stats_view *v,
		       unsigned int n)
{
	unsigned int k, id;

	fputs("# HELP aifab_tsc_hz TSC frequency: cycles per second (hertz)\n"
	      "# TYPE aifab_tsc_hz gauge\n", f);
	fprintf(f, "aifab_tsc_hz %" PRIu64 "\n",
		n > 0 ? v[0].set->tsc_hz : 0);
	for (k = 0; k < n; k++)
		for (id = 0; id < v[k].set->n_counters; id++)
			write_counter(f, v[k].set, v[k].snap, id);
	return ferror(f) ? -EIO : 0;
}

int
aifab_stats_prom_write_file(const char *path,
			    const struct aifab_stats_view *v, unsigned int n)
{
	char tmp[4096];
	FILE *f;
	int rc;

	f = aifab_stats_file_open(path, tmp, sizeof(tmp));
	if (f == NULL)
		return -errno;
	rc = aifab_stats_prom_write(f, v, n);
	return aifab_stats_file_commit(f, tmp, rc);
}
