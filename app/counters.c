/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Counter sums the exporters, telemetry and the report share: one counter
 * name (or "prefix*") over a lib/stats snapshot, and every pipeline's
 * rx/tx per port. Below export.c and telemetry.c: it calls neither.
 */
#include <string.h>

#include "export.h"

uint64_t
app_stats_sum(const struct aifab_stats_set *set,
	      const struct aifab_stats_snap *snap, const char *pat, int port)
{
	size_t n = strlen(pat);
	bool prefix = n > 0 && pat[n - 1] == '*';
	unsigned int id, i;
	uint64_t v = 0;

	for (id = 0; id < aifab_stats_n_counters(set); id++) {
		const char *name = aifab_stats_desc(set, id)->name;

		if (prefix ? strncmp(name, pat, n - 1) != 0 :
		    strcmp(name, pat) != 0)
			continue;
		for (i = 0; i < aifab_stats_n_instances(set, id); i++)
			if (port < 0 ||
			    aifab_stats_instance_port(set, id, i) == port)
				v += aifab_stats_value(set, snap, id, i);
	}
	return v;
}

/* Every pipeline's port counters, summed (each counts its own ports). */
void
app_port_counters(const struct app_stats *s, struct aifab_port_counters *out)
{
	struct aifab_port_counters c[AIFAB_MAX_PORTS];
	unsigned int i, p;

	memset(out, 0, sizeof(*out) * AIFAB_MAX_PORTS);
	for (i = 0; i < s->n_pipes; i++) {
		s->pipe[i].ops->port_counters(s->pipe[i].st, c);
		for (p = 0; p < s->env->n_ports; p++) {
			out[p].rx_packets += c[p].rx_packets;
			out[p].rx_bytes += c[p].rx_bytes;
			out[p].tx_packets += c[p].tx_packets;
			out[p].tx_bytes += c[p].tx_bytes;
		}
	}
}
