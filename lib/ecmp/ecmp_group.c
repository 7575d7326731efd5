/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * ECMP next-hop groups: plain (hash mod n_active) and resilient (bucket
 * table) member selection, member down / up, and the imbalance figure.
 * Control-plane code: loops over the bucket table are fine here.
 */
#include <errno.h>
#include <string.h>

#include <rte_common.h>

#include "aifab_ecmp.h"

/* Rebuild the plain-mode list of active slots, in slot order. */
static void
active_list_build(struct aifab_ecmp_group *g)
{
	unsigned int s, n = 0;

	for (s = 0; s < g->n_members; s++)
		if (g->active[s])
			g->active_slot[n++] = (uint8_t)s;
	g->n_active = (uint16_t)n;
}

int
aifab_ecmp_group_init(struct aifab_ecmp_group *g, const uint16_t *members,
		      unsigned int n, unsigned int n_buckets, bool resilient)
{
	unsigned int i;

	if (n_buckets == 0)
		n_buckets = AIFAB_ECMP_DEFAULT_BUCKETS;
	if (g == NULL || members == NULL || n == 0 ||
	    n > AIFAB_ECMP_MAX_MEMBERS || n_buckets < n ||
	    n_buckets > AIFAB_ECMP_MAX_BUCKETS ||
	    !rte_is_power_of_2(n_buckets))
		return -EINVAL;
	memset(g, 0, sizeof(*g));
	g->n_members = (uint16_t)n;
	g->n_buckets = (uint16_t)n_buckets;
	g->resilient = resilient;
	for (i = 0; i < n; i++) {
		g->member[i] = members[i];
		g->active[i] = 1;
	}
	active_list_build(g);
	memset(g->bucket, AIFAB_ECMP_NONE, sizeof(g->bucket));
	for (i = 0; i < n_buckets; i++) {
		g->bucket[i] = (uint8_t)(i % n);
		g->home[i] = (uint8_t)(i % n);
		g->n_owned[i % n]++;
	}
	return 0;
}

/* Active slot owning the fewest (most) buckets, lowest slot on ties. */
static unsigned int
slot_by_load(const struct aifab_ecmp_group *g, bool most, unsigned int skip)
{
	unsigned int s, best = AIFAB_ECMP_NONE;

	for (s = 0; s < g->n_members; s++) {
		if (!g->active[s] || s == skip)
			continue;
		if (best == AIFAB_ECMP_NONE ||
		    (most ? g->n_owned[s] > g->n_owned[best] :
			    g->n_owned[s] < g->n_owned[best]))
			best = s;
	}
	return best;
}

/* Give each of @p slot's buckets to the least-loaded active member. */
static int
resilient_down(struct aifab_ecmp_group *g, unsigned int slot)
{
	unsigned int b, to;
	int moved = 0;

	for (b = 0; b < g->n_buckets; b++) {
		if (g->bucket[b] != slot)
			continue;
		to = slot_by_load(g, false, AIFAB_ECMP_NONE);
		g->bucket[b] = (uint8_t)to;
		if (to != AIFAB_ECMP_NONE)
			g->n_owned[to]++;
		moved++;
	}
	g->n_owned[slot] = 0;
	return moved;
}

/* Every bucket back on its initial slot (all members active again). */
static int
resilient_home(struct aifab_ecmp_group *g)
{
	unsigned int b;
	int moved = 0;

	memset(g->n_owned, 0, sizeof(g->n_owned));
	for (b = 0; b < g->n_buckets; b++) {
		moved += g->bucket[b] != g->home[b];
		g->bucket[b] = g->home[b];
		g->n_owned[g->home[b]]++;
	}
	return moved;
}

/*
 * @p slot takes orphaned buckets (there are some only if it is the sole
 * active member), then floor(n_buckets / n_active) in all, one at a time
 * from whichever member owns the most. Of each donor's buckets it takes
 * its own (home) ones first, then those whose home member is down (they
 * move again when it returns), then any. When this makes the group whole
 * again, the initial table comes back instead.
 */
static int
resilient_up(struct aifab_ecmp_group *g, unsigned int slot)
{
	uint16_t give[AIFAB_ECMP_MAX_MEMBERS] = { 0 };
	unsigned int b, d, pass, target = g->n_buckets / g->n_active;
	unsigned int owner, taken = 0;
	int moved = 0;

	if (g->n_active == g->n_members)
		return resilient_home(g);
	/* Decide how many each donor gives, on counts only. */
	while (taken < target) {
		d = slot_by_load(g, true, slot);
		if (d == AIFAB_ECMP_NONE)
			break;
		g->n_owned[d]--;
		give[d]++;
		taken++;
	}
	for (pass = 0; pass < 3; pass++)
		for (b = 0; b < g->n_buckets; b++) {
			owner = g->bucket[b];
			if (owner == slot ||
			    (pass == 0 && g->home[b] != slot) ||
			    (pass == 1 && g->active[g->home[b]]))
				continue;
			if (owner == AIFAB_ECMP_NONE) {
				g->bucket[b] = (uint8_t)slot;
			} else if (give[owner] > 0) {
				give[owner]--;
				g->bucket[b] = (uint8_t)slot;
			} else {
				continue;
			}
			g->n_owned[slot]++;
			moved++;
		}
	return moved;
}

/* Plain-mode member of hash value @p h given an active list. */
static unsigned int
plain_pick(const uint8_t *list, unsigned int n, uint32_t h)
{
	return n == 0 ? AIFAB_ECMP_NONE : list[h % n];
}

static int
plain_set(struct aifab_ecmp_group *g, unsigned int slot, bool active)
{
	uint8_t old_list[AIFAB_ECMP_MAX_MEMBERS];
	unsigned int h, old_n = g->n_active;
	int moved = 0;

	memcpy(old_list, g->active_slot, sizeof(old_list));
	g->active[slot] = active;
	active_list_build(g);
	for (h = 0; h < g->n_buckets; h++)
		if (plain_pick(old_list, old_n, h) !=
		    plain_pick(g->active_slot, g->n_active, h))
			moved++;
	return moved;
}

int
aifab_ecmp_member_set_active(struct aifab_ecmp_group *g, unsigned int slot,
			     bool active)
{
	if (slot >= g->n_members)
		return -EINVAL;
	if ((g->active[slot] != 0) == active)
		return 0;
	if (!g->resilient)
		return plain_set(g, slot, active);
	g->active[slot] = active;
	active_list_build(g);
	return active ? resilient_up(g, slot) : resilient_down(g, slot);
}

int
aifab_ecmp_group_port_set(struct aifab_ecmp_group *g, const uint16_t *port_of,
			  unsigned int n_ids, uint16_t port, bool active,
			  uint32_t *slots)
{
	unsigned int s;
	int moved = 0, rc;

	for (s = 0; s < g->n_members; s++) {
		uint16_t id = g->member[s];

		if (id >= n_ids || port_of[id] != port ||
		    (g->active[s] != 0) == active)
			continue;
		rc = aifab_ecmp_member_set_active(g, s, active);
		if (rc < 0)
			return rc;
		moved += rc;
		if (slots != NULL)
			*slots |= 1u << s;
	}
	return moved;
}

bool
aifab_ecmp_member_active(const struct aifab_ecmp_group *g, unsigned int slot)
{
	return slot < g->n_members && g->active[slot] != 0;
}

int
aifab_ecmp_group_find(const struct aifab_ecmp_group *g, uint16_t id)
{
	unsigned int s;

	for (s = 0; s < g->n_members; s++)
		if (g->member[s] == id)
			return (int)s;
	return -ENOENT;
}

double
aifab_ecmp_imbalance(const uint64_t *bytes, unsigned int n)
{
	uint64_t max = 0;
	double sum = 0.0;
	unsigned int i;

	for (i = 0; i < n; i++) {
		sum += (double)bytes[i];
		if (bytes[i] > max)
			max = bytes[i];
	}
	if (n == 0 || sum == 0.0)
		return 0.0;
	return (double)max * n / sum;
}
