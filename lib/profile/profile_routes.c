/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * [neighbors] and [routes] sections (and a named switch's
 * [neighbors.<name>] / [routes.<name>]): each entry parsed, checked on its
 * own and kept with the key it came from; a later --set of the same address
 * or prefix replaces it. Checks against the ports are profile_validate.c's.
 */
#include <string.h>
#include <arpa/inet.h>
#include <sys/socket.h>

#include <rte_common.h>
#include <rte_string_fns.h>

#include "profile_priv.h"

#define NEIGH_ALLOWED "<IPv4 or IPv6 address> = <unicast MAC>"
#define ROUTE_ALLOWED "<prefix/len> = <next hop> [<next hop> ...]: " \
	"1..16 addresses of the prefix's family, space or comma separated"

static int
addr_len(uint8_t family)
{
	return family == AF_INET ? 4 : 16;
}

static void
prefix_mask(uint8_t *a, unsigned int depth, int len)
{
	int i;

	for (i = 0; i < len; i++) {
		unsigned int bits = depth > (unsigned int)i * 8 ?
			depth - (unsigned int)i * 8 : 0;

		if (bits < 8)
			a[i] &= (uint8_t)(0xff << (8 - bits));
	}
}

int
profile_load_neighbors(struct profile_loader *l, const char *sect, uint8_t sw,
		       const struct rte_cfgfile_entry *e, int ne)
{
	struct aifab_profile *p = l->p;
	char why[128];
	int j, idx;

	for (j = 0; j < ne; j++) {
		const char *file = profile_origin(l, sect, e[j].name);
		struct aifab_neigh_params nb;

		if (e[j].name[0] == '#')
			continue;
		memset(&nb, 0, sizeof(nb));
		nb.sw = sw;
		if (profile_parse_addr(e[j].name, &nb.family, nb.addr) != 0)
			return profile_fail(l, file, sect, e[j].name,
					    e[j].value, NEIGH_ALLOWED,
					    "key is not an IPv4 or IPv6 "
					    "address");
		if (profile_parse_mac(e[j].value, &nb.mac, why,
				      sizeof(why)) != 0)
			return profile_fail(l, file, sect, e[j].name,
					    e[j].value, NEIGH_ALLOWED, "%s",
					    why);
		idx = profile_neigh_find(p, sw, nb.family, nb.addr);
		if (idx >= 0 && !profile_from_set(l, sect, e[j].name))
			return profile_fail(l, file, sect, e[j].name,
					    e[j].value, "each address once",
					    "duplicate neighbour, also [%s] %s",
					    sect, l->neigh_key[idx]);
		if (idx < 0) {
			unsigned int k, mine = 0;

			for (k = 0; k < p->n_neighs; k++)
				mine += p->neighs[k].sw == sw;
			if (p->n_neighs >= AIFAB_MAX_NEIGHS ||
			    mine >= AIFAB_SW_MAX_NEIGHS)
				return profile_fail(l, file, sect, e[j].name,
						    e[j].value, "at most "
						    RTE_STR(AIFAB_SW_MAX_NEIGHS)
						    " neighbours per switch, "
						    RTE_STR(AIFAB_MAX_NEIGHS)
						    " in all", "too many "
						    "neighbours");
			idx = p->n_neighs++;
		}
		p->neighs[idx] = nb;
		strlcpy(l->neigh_key[idx], e[j].name, CFG_NAME_LEN);
	}
	return 0;
}

static int
parse_route(struct profile_loader *l, const char *sect,
	    const struct rte_cfgfile_entry *e, struct aifab_route_params *r)
{
	const char *file = profile_origin(l, sect, e->name);
	char buf[CFG_VALUE_LEN], why[128], a[INET6_ADDRSTRLEN];
	uint8_t net[16];
	char *tok, *save = NULL;
	unsigned int i;

	memset(r, 0, sizeof(*r));
	if (profile_parse_prefix(e->name, &r->family, r->prefix, &r->depth,
				 why, sizeof(why)) != 0)
		return profile_fail(l, file, sect, e->name, e->value,
				    ROUTE_ALLOWED, "key: %s", why);
	memcpy(net, r->prefix, sizeof(net));
	prefix_mask(net, r->depth, addr_len(r->family));
	if (memcmp(net, r->prefix, sizeof(net)) != 0) {
		profile_fmt_addr(r->family, net, a, sizeof(a));
		return profile_fail(l, file, sect, e->name, e->value,
				    "a prefix with host bits zero",
				    "host bits set in the prefix (network is "
				    "%s/%u)", a, r->depth);
	}
	strlcpy(buf, e->value, sizeof(buf));
	for (tok = strtok_r(buf, " \t,", &save); tok != NULL;
	     tok = strtok_r(NULL, " \t,", &save)) {
		uint8_t fam, nh[16];

		if (r->n_nh >= AIFAB_MAX_ECMP)
			return profile_fail(l, file, sect, e->name, e->value,
					    ROUTE_ALLOWED, "more than "
					    RTE_STR(AIFAB_MAX_ECMP)
					    " next hops");
		if (profile_parse_addr(tok, &fam, nh) != 0)
			return profile_fail(l, file, sect, e->name, e->value,
					    ROUTE_ALLOWED, "next hop '%s' is "
					    "not an IP address", tok);
		if (fam != r->family)
			return profile_fail(l, file, sect, e->name, e->value,
					    ROUTE_ALLOWED, "next hop '%s' is "
					    "not in the prefix's address "
					    "family", tok);
		for (i = 0; i < r->n_nh; i++)
			if (memcmp(r->nh_addr[i], nh, 16) == 0)
				return profile_fail(l, file, sect, e->name,
						    e->value, ROUTE_ALLOWED,
						    "next hop '%s' listed "
						    "twice", tok);
		memcpy(r->nh_addr[r->n_nh++], nh, 16);
	}
	if (r->n_nh == 0)
		return profile_fail(l, file, sect, e->name, e->value,
				    ROUTE_ALLOWED, "no next hop");
	return 0;
}

int
profile_load_routes(struct profile_loader *l, const char *sect, uint8_t sw,
		    const struct rte_cfgfile_entry *e, int ne)
{
	struct aifab_profile *p = l->p;
	struct aifab_route_params r;
	int i, j, idx;

	for (j = 0; j < ne; j++) {
		if (e[j].name[0] == '#')
			continue;
		if (parse_route(l, sect, &e[j], &r) != 0)
			return -1;
		r.sw = sw;
		idx = -1;
		for (i = 0; i < p->n_routes; i++)
			if (p->routes[i].sw == sw &&
			    p->routes[i].family == r.family &&
			    p->routes[i].depth == r.depth &&
			    memcmp(p->routes[i].prefix, r.prefix, 16) == 0)
				idx = i;
		if (idx >= 0 && !profile_from_set(l, sect, e[j].name))
			return profile_fail(l, l->file, sect, e[j].name,
					    e[j].value, "each prefix once",
					    "duplicate route, also [%s] %s",
					    sect, l->route_key[idx]);
		if (idx < 0) {
			if (p->n_routes >= AIFAB_MAX_ROUTES)
				return profile_fail(l, profile_origin(l, sect,
						    e[j].name), sect, e[j].name,
						    e[j].value, "at most "
						    RTE_STR(AIFAB_MAX_ROUTES)
						    " routes",
						    "too many routes");
			idx = p->n_routes++;
		}
		p->routes[idx] = r;
		strlcpy(l->route_key[idx], e[j].name, CFG_NAME_LEN);
	}
	return 0;
}
