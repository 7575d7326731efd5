/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Sets: validation, layout, blocks, snapshots and reading.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <rte_errno.h>

#include "stats_priv.h"

AIFAB_STATS_DESCS(aifab_stats_bi, AIFAB_STATS_BUILTINS);

static bool
name_ok(const char *s, bool may_be_empty)
{
	size_t i, n = s != NULL ? strlen(s) : 0;

	if (s == NULL || n >= STATS_NAME_MAX || (n == 0 && !may_be_empty))
		return false;
	if (n > 0 && !(s[0] >= 'a' && s[0] <= 'z'))
		return false;
	for (i = 0; i < n; i++)
		if (!((s[i] >= 'a' && s[i] <= 'z') ||
		      (s[i] >= '0' && s[i] <= '9') || s[i] == '_'))
			return false;
	return true;
}

static bool
desc_ok(const struct aifab_stats_desc *d)
{
	size_t n;

	if (!name_ok(d->name, false) || d->unit == NULL || d->help == NULL)
		return false;
	if (d->kind != AIFAB_STATS_COUNTER && d->kind != AIFAB_STATS_GAUGE)
		return false;
	if ((unsigned int)d->scope > AIFAB_STATS_LCORE)
		return false;
	/* The Prometheus exporter adds _total itself. */
	n = strlen(d->name);
	return !(n >= 6 && strcmp(d->name + n - 6, "_total") == 0);
}

static int
params_check(const struct aifab_stats_params *p)
{
	unsigned int i, j;

	if (p == NULL || p->name == NULL || !name_ok(p->name, true) ||
	    (p->descs == NULL && p->n_descs > 0) ||
	    p->n_ports == 0 || p->n_ports > AIFAB_STATS_MAX_PORTS ||
	    p->n_tcs > 8 || p->n_blocks == 0 ||
	    p->n_blocks > AIFAB_STATS_MAX_BLOCKS ||
	    p->n_descs > 4096)
		return -EINVAL;
	for (i = 0; i < p->n_descs; i++) {
		if (!desc_ok(&p->descs[i]))
			return -EINVAL;
		for (j = 0; j < aifab_stats_bi_N; j++)
			if (strcmp(p->descs[i].name,
				   aifab_stats_bi_descs[j].name) == 0)
				return -EINVAL;
		for (j = 0; j < i; j++)
			if (strcmp(p->descs[i].name, p->descs[j].name) == 0)
				return -EINVAL;
	}
	for (i = 0; p->port_names != NULL && i < p->n_ports; i++)
		if (p->port_names[i] == NULL ||
		    strlen(p->port_names[i]) >= STATS_NAME_MAX)
			return -EINVAL;
	return 0;
}

/* Instances of a counter in one block and in a snapshot. */
static void
scope_sizes(const struct aifab_stats_set *s, enum aifab_stats_scope scope,
	    uint32_t *in_block, uint32_t *in_snap)
{
	switch (scope) {
	case AIFAB_STATS_PORT:
		*in_block = *in_snap = s->n_ports;
		break;
	case AIFAB_STATS_PORT_TC:
	case AIFAB_STATS_PORT_PRIO:
		*in_block = *in_snap = s->n_ports * s->n_tcs;
		break;
	case AIFAB_STATS_LCORE:
		*in_block = 1;
		*in_snap = s->n_blocks;
		break;
	default:
		*in_block = *in_snap = 1;
	}
}

static char *
dup_or_null(const char *s, bool *fail)
{
	char *d = strdup(s);

	if (d == NULL)
		*fail = true;
	return d;
}

/* Copy descriptors: built-ins first in the block, but ids after the user's. */
static int
copy_descs(struct aifab_stats_set *s, const struct aifab_stats_params *p)
{
	bool fail = false;
	unsigned int i;

	s->descs = calloc(s->n_counters, sizeof(*s->descs));
	if (s->descs == NULL)
		return -ENOMEM;
	for (i = 0; i < s->n_counters; i++) {
		const struct aifab_stats_desc *d = i < p->n_descs ?
			&p->descs[i] : &aifab_stats_bi_descs[i - p->n_descs];

		s->descs[i] = *d;
		s->descs[i].name = dup_or_null(d->name, &fail);
		s->descs[i].unit = dup_or_null(d->unit, &fail);
		s->descs[i].help = dup_or_null(d->help, &fail);
	}
	return fail ? -ENOMEM : 0;
}

static int
copy_labels(struct aifab_stats_set *s, const struct aifab_stats_params *p)
{
	unsigned int i;

	s->port_names = calloc(s->n_ports, sizeof(*s->port_names));
	s->block_lcore = calloc(s->n_blocks, sizeof(*s->block_lcore));
	if (s->port_names == NULL || s->block_lcore == NULL)
		return -ENOMEM;
	for (i = 0; i < s->n_ports; i++) {
		if (p->port_names != NULL)
			snprintf(s->port_names[i], STATS_NAME_MAX, "%s",
				 p->port_names[i]);
		else
			snprintf(s->port_names[i], STATS_NAME_MAX, "%u", i);
	}
	for (i = 0; i < s->n_blocks; i++)
		s->block_lcore[i] = p->block_lcore != NULL ?
			p->block_lcore[i] : i;
	return 0;
}

static int
layout(struct aifab_stats_set *s)
{
	uint32_t in_block, in_snap, boff = 0, soff = 0;
	unsigned int i, id;

	s->boff = calloc(s->n_counters, sizeof(uint32_t));
	s->soff = calloc(s->n_counters, sizeof(uint32_t));
	s->ninst = calloc(s->n_counters, sizeof(uint32_t));
	if (s->boff == NULL || s->soff == NULL || s->ninst == NULL)
		return -ENOMEM;
	/* Block order: built-ins at v[0..] (fixed for account()), then user. */
	for (i = 0; i < s->n_counters; i++) {
		id = i < aifab_stats_bi_N ? s->n_user + i :
			i - aifab_stats_bi_N;
		scope_sizes(s, s->descs[id].scope, &in_block, &in_snap);
		s->boff[id] = boff;
		boff += in_block;
	}
	for (id = 0; id < s->n_counters; id++) {
		scope_sizes(s, s->descs[id].scope, &in_block, &in_snap);
		s->soff[id] = soff;
		s->ninst[id] = in_snap;
		soff += in_snap;
	}
	s->block_values = boff;
	s->snap_values = soff;
	return 0;
}

/* Blocks: a guard line, then per block its lines and one guard line. */
static int
alloc_blocks(struct aifab_stats_set *s)
{
	size_t bytes = sizeof(struct aifab_stats_block) +
		       s->block_values * sizeof(uint64_t);
	unsigned int i;

	s->block_stride = RTE_ALIGN_CEIL(bytes, RTE_CACHE_LINE_SIZE) +
			  RTE_CACHE_LINE_SIZE;
	if (posix_memalign(&s->mem, RTE_CACHE_LINE_SIZE,
			   RTE_CACHE_LINE_SIZE +
			   s->n_blocks * s->block_stride) != 0) {
		s->mem = NULL;
		return -ENOMEM;
	}
	memset(s->mem, 0, RTE_CACHE_LINE_SIZE + s->n_blocks * s->block_stride);
	s->first = (unsigned char *)s->mem + RTE_CACHE_LINE_SIZE;
	for (i = 0; i < s->n_blocks; i++) {
		struct aifab_stats_block *b = aifab_stats_block(s, i);

		b->off = s->boff;
		b->n_tcs = s->n_tcs;
		b->n_values = s->block_values;
	}
	return 0;
}

struct aifab_stats_set *
aifab_stats_create(const struct aifab_stats_params *p)
{
	struct aifab_stats_set *s;
	int rc = params_check(p);

	if (rc < 0) {
		rte_errno = -rc;
		return NULL;
	}
	s = calloc(1, sizeof(*s));
	if (s == NULL) {
		rte_errno = ENOMEM;
		return NULL;
	}
	snprintf(s->name, sizeof(s->name), "%s", p->name);
	s->n_user = p->n_descs;
	s->n_counters = p->n_descs + aifab_stats_bi_N;
	s->n_ports = p->n_ports;
	s->n_tcs = p->n_tcs != 0 ? p->n_tcs : 8;
	s->n_blocks = p->n_blocks;
	s->tsc_hz = p->tsc_hz;
	rc = copy_descs(s, p);
	if (rc == 0)
		rc = copy_labels(s, p);
	if (rc == 0)
		rc = layout(s);
	if (rc == 0)
		rc = alloc_blocks(s);
	if (rc < 0) {
		aifab_stats_free(s);
		rte_errno = -rc;
		return NULL;
	}
	return s;
}

void
aifab_stats_free(struct aifab_stats_set *s)
{
	unsigned int i;

	if (s == NULL)
		return;
	for (i = 0; s->descs != NULL && i < s->n_counters; i++) {
		free((void *)(uintptr_t)s->descs[i].name);
		free((void *)(uintptr_t)s->descs[i].unit);
		free((void *)(uintptr_t)s->descs[i].help);
	}
	free(s->descs);
	free(s->port_names);
	free(s->block_lcore);
	free(s->boff);
	free(s->soff);
	free(s->ninst);
	free(s->mem);
	free(s);
}

struct aifab_stats_block *
aifab_stats_block(struct aifab_stats_set *s, unsigned int idx)
{
	if (idx >= s->n_blocks)
		return NULL;
	return (struct aifab_stats_block *)(void *)
		(s->first + (size_t)idx * s->block_stride);
}

unsigned int
aifab_stats_n_counters(const struct aifab_stats_set *s)
{
	return s->n_counters;
}

const struct aifab_stats_desc *
aifab_stats_desc(const struct aifab_stats_set *s, unsigned int id)
{
	return id < s->n_counters ? &s->descs[id] : NULL;
}

int
aifab_stats_find(const struct aifab_stats_set *s, const char *name)
{
	unsigned int i;

	for (i = 0; i < s->n_counters; i++)
		if (strcmp(s->descs[i].name, name) == 0)
			return (int)i;
	return -1;
}

unsigned int
aifab_stats_n_instances(const struct aifab_stats_set *s, unsigned int id)
{
	return id < s->n_counters ? s->ninst[id] : 0;
}

uint64_t
aifab_stats_value(const struct aifab_stats_set *s,
		  const struct aifab_stats_snap *snap, unsigned int id,
		  unsigned int inst)
{
	if (id >= s->n_counters || inst >= s->ninst[id])
		return 0;
	return snap->v[s->soff[id] + inst];
}

int
aifab_stats_instance_port(const struct aifab_stats_set *s, unsigned int id,
			  unsigned int inst)
{
	switch (s->descs[id].scope) {
	case AIFAB_STATS_PORT:
		return (int)inst;
	case AIFAB_STATS_PORT_TC:
	case AIFAB_STATS_PORT_PRIO:
		return (int)(inst / s->n_tcs);
	default:
		return -1;
	}
}

const char *
aifab_stats_name(const struct aifab_stats_set *s)
{
	return s->name;
}

const char *
aifab_stats_port_name(const struct aifab_stats_set *s, unsigned int i)
{
	return i < s->n_ports ? s->port_names[i] : NULL;
}

unsigned int
aifab_stats_n_ports(const struct aifab_stats_set *s)
{
	return s->n_ports;
}

unsigned int
aifab_stats_n_tcs(const struct aifab_stats_set *s)
{
	return s->n_tcs;
}

unsigned int
aifab_stats_n_blocks(const struct aifab_stats_set *s)
{
	return s->n_blocks;
}

uint64_t
aifab_stats_tsc_hz(const struct aifab_stats_set *s)
{
	return s->tsc_hz;
}

struct aifab_stats_snap *
aifab_stats_snap_alloc(const struct aifab_stats_set *s)
{
	struct aifab_stats_snap *snap = calloc(1, sizeof(*snap) +
					       s->snap_values * sizeof(uint64_t));

	if (snap == NULL) {
		rte_errno = ENOMEM;
		return NULL;
	}
	snap->n = s->snap_values;
	return snap;
}

void
aifab_stats_snap_free(struct aifab_stats_snap *snap)
{
	free(snap);
}

void
aifab_stats_snap_copy(struct aifab_stats_snap *dst,
		      const struct aifab_stats_snap *src)
{
	dst->tsc = src->tsc;
	memcpy(dst->v, src->v, RTE_MIN(dst->n, src->n) * sizeof(uint64_t));
}

void
aifab_stats_read(const struct aifab_stats_set *s,
		 struct aifab_stats_snap *snap, uint64_t tsc)
{
	unsigned int id, b, i;

	memset(snap->v, 0, snap->n * sizeof(uint64_t));
	for (b = 0; b < s->n_blocks; b++) {
		const struct aifab_stats_block *blk = (const void *)
			(s->first + (size_t)b * s->block_stride);

		for (id = 0; id < s->n_counters; id++) {
			const uint64_t *src = &blk->v[s->boff[id]];
			uint64_t *dst = &snap->v[s->soff[id]];

			if (s->descs[id].scope == AIFAB_STATS_LCORE) {
				dst[b] = __atomic_load_n(src, __ATOMIC_RELAXED);
				continue;
			}
			for (i = 0; i < s->ninst[id]; i++)
				dst[i] += __atomic_load_n(&src[i],
							  __ATOMIC_RELAXED);
		}
	}
	snap->tsc = tsc;
}
