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
	unsigned int i, p, n, q;

	memset(out, 0, sizeof(*out) * AIFAB_MAX_PORTS);
	for (i = 0; i < s->n_pipes; i++) {
		const struct app_stats_pipe *pp = &s->pipe[i];

		pp->ops->port_counters(pp->st, c);
		n = pp->map != NULL ? pp->n_map : s->env->n_ports;
		for (p = 0; p < n; p++) {
			q = pp->map != NULL ? pp->map[p] : p;
			out[q].rx_packets += c[p].rx_packets;
			out[q].rx_bytes += c[p].rx_bytes;
			out[q].tx_packets += c[p].tx_packets;
			out[q].tx_bytes += c[p].tx_bytes;
		}
	}
}

static void
mapped_port_u64(void *ctx, uint16_t port, const char *group,
		const char *name, uint64_t value)
{
	const struct app_mapped_sink *ms = ctx;

	if (port < ms->n_map)
		ms->to->port_u64(ms->to->ctx, ms->map[port], group, name,
				 value);
}

static void
mapped_port_tc_u64(void *ctx, uint16_t port, unsigned int tc,
		   const char *name, uint64_t value)
{
	const struct app_mapped_sink *ms = ctx;

	if (port < ms->n_map)
		ms->to->port_tc_u64(ms->to->ctx, ms->map[port], tc, name,
				    value);
}

static void
mapped_ecmp_member(void *ctx, const char *group, const char *member,
		   uint64_t packets, uint64_t bytes)
{
	const struct app_mapped_sink *ms = ctx;

	ms->to->ecmp_member(ms->to->ctx, group, member, packets, bytes);
}

static void
mapped_ecmp_member_link(void *ctx, uint64_t down_events, uint64_t remaps,
			uint64_t remap_buckets)
{
	const struct app_mapped_sink *ms = ctx;

	ms->to->ecmp_member_link(ms->to->ctx, down_events, remaps,
				 remap_buckets);
}

static void
mapped_switch_begin(void *ctx, const char *sw)
{
	const struct app_mapped_sink *ms = ctx;

	ms->to->switch_begin(ms->to->ctx, sw);
}

void
app_mapped_sink_init(struct app_mapped_sink *ms,
		     const struct aifab_report_sink *to, const uint16_t *map,
		     unsigned int n_map)
{
	memset(ms, 0, sizeof(*ms));
	ms->to = to;
	ms->map = map;
	ms->n_map = n_map;
	if (map == NULL) {
		ms->sink = *to;
		return;
	}
	ms->sink.ctx = ms;
	ms->sink.port_u64 = mapped_port_u64;
	ms->sink.port_tc_u64 = mapped_port_tc_u64;
	ms->sink.ecmp_member = mapped_ecmp_member;
	if (to->ecmp_member_link != NULL)
		ms->sink.ecmp_member_link = mapped_ecmp_member_link;
	if (to->switch_begin != NULL)
		ms->sink.switch_begin = mapped_switch_begin;
}
