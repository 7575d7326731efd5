/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Queries on a loaded profile: a port's effective PFC thresholds, a port by
 * name, one switch instance's view, a neighbour by address. Calls nothing
 * else in lib/profile.
 */
#include <stdlib.h>
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

	struct aifab_route_params *rt = NULL;
	uint32_t n = 0;

	if (sw >= p->n_switches)
		return -1;
	for (i = 0; i < p->n_routes; i++)
		n += p->routes[i].sw == sw;
	if (n > 0 && (rt = malloc(sizeof(*rt) * n)) == NULL)
		return -1;
	if (out != p)
		free(out->routes); /* an earlier view's, or NULL */
	*out = *p;
	out->routes = rt;
	out->cap_routes = n;
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
aifab_profile_switch_view_own(const struct aifab_profile *p, unsigned int sw,
			      const bool *gen, struct aifab_profile *out,
			      uint16_t *map)
{
	uint16_t local[AIFAB_MAX_PORTS];
	unsigned int i, n = 0;

	if (aifab_profile_switch_view(p, sw, out) != 0)
		return -1;
	for (i = 0; i < p->n_ports; i++) {
		local[i] = UINT16_MAX;
		if (gen[i] || p->ports[i].sw != sw)
			continue;
		if (n == AIFAB_SW_MAX_PORTS)
			return -1;
		local[i] = (uint16_t)n;
		map[n] = (uint16_t)i;
		out->ports[n++] = p->ports[i];
	}
	out->n_ports = (uint16_t)n;
	/* A neighbour lies in one of its own switch's ports' subnets. */
	for (i = 0; i < out->n_neighs; i++)
		if (out->neighs[i].port < p->n_ports)
			out->neighs[i].port = local[out->neighs[i].port];
	return (int)n;
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
