/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Queries on a loaded profile: a port's effective PFC thresholds, a port by
 * name, one switch instance's view, a neighbour by address. Calls nothing
 * else in lib/profile.
 */
#include <string.h>

#include "profile_priv.h"

void
aifab_profile_pfc_eff(const struct aifab_profile *p, unsigned int port,
		      unsigned int tc, struct aifab_pfc_eff *out)
{
	const struct aifab_port_params *pp = &p->ports[port];
	const struct aifab_tc_params *t = &p->tc[tc];
	bool port_xon = pp->has_pfc_xon || pp->has_pfc_xon_offset;

	out->enabled = t->lossless && pp->pfc;
	out->xoff_bytes = pp->has_pfc_xoff ? pp->pfc_xoff_bytes :
		t->pfc_xoff_bytes;
	out->xon_bytes = !port_xon ? t->pfc_xon_bytes :
		pp->has_pfc_xon ? pp->pfc_xon_bytes : 0;
	out->xon_offset_bytes = pp->has_pfc_xon_offset ?
		pp->pfc_xon_offset_bytes : t->pfc_xon_offset_bytes;
	out->headroom_bytes = pp->has_pfc_headroom ? pp->pfc_headroom_bytes :
		t->pfc_headroom_bytes;
}

int
aifab_profile_port_index(const struct aifab_profile *p, const char *name)
{
	int i;

	for (i = 0; i < p->n_ports; i++)
		if (strcmp(p->ports[i].name, name) == 0)
			return i;
	return -1;
}

int
aifab_profile_switch_view(const struct aifab_profile *p, unsigned int sw,
			  struct aifab_profile *out)
{
	uint16_t map[AIFAB_MAX_NEIGHS];
	unsigned int i, k;

	if (sw >= p->n_switches)
		return -1;
	*out = *p;
	out->n_neighs = 0;
	for (i = 0; i < p->n_neighs; i++) {
		if (p->neighs[i].sw != sw)
			continue;
		map[i] = out->n_neighs;
		out->neighs[out->n_neighs++] = p->neighs[i];
	}
	out->n_routes = 0;
	for (i = 0; i < p->n_routes; i++) {
		struct aifab_route_params *r;

		if (p->routes[i].sw != sw)
			continue;
		r = &out->routes[out->n_routes++];
		*r = p->routes[i];
		for (k = 0; k < r->n_nh; k++)
			r->nh_neigh[k] = map[r->nh_neigh[k]];
	}
	out->ecmp = p->switches[sw].ecmp;
	return 0;
}

int
profile_neigh_find(const struct aifab_profile *p, uint8_t sw, uint8_t family,
		   const uint8_t *a)
{
	int i;

	for (i = 0; i < p->n_neighs; i++)
		if (p->neighs[i].sw == sw && p->neighs[i].family == family &&
		    memcmp(p->neighs[i].addr, a, 16) == 0)
			return i;
	return -1;
}
