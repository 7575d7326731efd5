/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A bounded, decimating history of snapshots for the report.
 *
 * Kept samples are the pushes whose index is a multiple of the stride,
 * oldest first. When the table fills, every other one is dropped and the
 * stride doubles, so the history always spans the whole run. The latest
 * push is kept apart so the report always ends at the last snapshot.
 */
#include <errno.h>
#include <stdlib.h>

#include <rte_errno.h>

#include "stats_priv.h"

struct aifab_stats_hist {
	const struct aifab_stats_set *set;
	unsigned int cap, n_kept;
	uint64_t pushes, stride;
	bool latest_kept;  /**< the latest push is also kept[n_kept - 1] */
	struct aifab_stats_snap *latest;
	struct aifab_stats_snap **kept;
};

struct aifab_stats_hist *
aifab_stats_hist_create(const struct aifab_stats_set *set,
			unsigned int capacity)
{
	struct aifab_stats_hist *h;
	unsigned int i;

	if (set == NULL || capacity < 4 || capacity % 2 != 0) {
		rte_errno = EINVAL;
		return NULL;
	}
	h = calloc(1, sizeof(*h));
	if (h == NULL)
		goto nomem;
	h->set = set;
	h->cap = capacity;
	h->stride = 1;
	h->kept = calloc(capacity, sizeof(*h->kept));
	h->latest = aifab_stats_snap_alloc(set);
	if (h->kept == NULL || h->latest == NULL)
		goto nomem;
	for (i = 0; i < capacity; i++) {
		h->kept[i] = aifab_stats_snap_alloc(set);
		if (h->kept[i] == NULL)
			goto nomem;
	}
	return h;
nomem:
	aifab_stats_hist_free(h);
	rte_errno = ENOMEM;
	return NULL;
}

void
aifab_stats_hist_free(struct aifab_stats_hist *h)
{
	unsigned int i;

	if (h == NULL)
		return;
	for (i = 0; h->kept != NULL && i < h->cap; i++)
		aifab_stats_snap_free(h->kept[i]);
	free(h->kept);
	aifab_stats_snap_free(h->latest);
	free(h);
}

/* Keep kept[0], kept[2], ...: they are the multiples of twice the stride. */
static void
decimate(struct aifab_stats_hist *h)
{
	struct aifab_stats_snap *t;
	unsigned int i;

	for (i = 1; 2 * i < h->n_kept; i++) {
		t = h->kept[i];
		h->kept[i] = h->kept[2 * i];
		h->kept[2 * i] = t;
	}
	h->n_kept = (h->n_kept + 1) / 2;
	h->stride *= 2;
}

void
aifab_stats_hist_push(struct aifab_stats_hist *h,
		      const struct aifab_stats_snap *snap)
{
	uint64_t idx = h->pushes++;

	aifab_stats_snap_copy(h->latest, snap);
	h->latest_kept = false;
	if (idx % h->stride != 0)
		return;
	if (h->n_kept == h->cap) {
		decimate(h);
		if (idx % h->stride != 0)
			return;
	}
	aifab_stats_snap_copy(h->kept[h->n_kept++], snap);
	h->latest_kept = true;
}

unsigned int
aifab_stats_hist_count(const struct aifab_stats_hist *h)
{
	return h->n_kept + (h->pushes > 0 && !h->latest_kept ? 1 : 0);
}

const struct aifab_stats_snap *
aifab_stats_hist_get(const struct aifab_stats_hist *h, unsigned int i)
{
	if (i < h->n_kept)
		return h->kept[i];
	if (i == h->n_kept && i < aifab_stats_hist_count(h))
		return h->latest;
	return NULL;
}

const struct aifab_stats_set *
aifab_stats_hist_set(const struct aifab_stats_hist *h)
{
	return h->set;
}
