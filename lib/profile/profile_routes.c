/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * [neighbors] and [routes] sections (and a named switch's
 * [neighbors.<name>] / [routes.<name>]): each entry parsed, checked on its
 * own and kept with the key it came from; a later --set of the same address
 * or prefix replaces it. Checks against the ports are profile_validate.c's.
 *
 * `[routes] file = PATH` reads a route table too large to write as INI
 * keys: one "<prefix/len> <next hop> [<next hop> ...]" line each. The
 * route table grows with the routes (no fixed array), and duplicates are
 * found through a hash index, so a million routes load in a second.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <arpa/inet.h>
#include <sys/socket.h>

#include <rte_common.h>
#include <rte_jhash.h>
#include <rte_string_fns.h>

#include "profile_priv.h"

#define NEIGH_ALLOWED "<IPv4 or IPv6 address> = <unicast MAC>"
#define ROUTE_NH_ALLOWED "1..16 addresses of the prefix's family, space or " \
	"comma separated"
#define ROUTE_ALLOWED "<prefix/len> = <next hop> [<next hop> ...]: " \
	ROUTE_NH_ALLOWED ", or file = <path of a routes file>"
#define ROUTE_LINE_ALLOWED "one route a line: <prefix/len> <next hop> " \
	"[<next hop> ...], " ROUTE_NH_ALLOWED "; # comments"
#define ROUTE_LINE_MAX 1024

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

/*
 * One route from its text: @p key the prefix, @p val the next hops.
 * Errors name @p file (the INI, "--set" or "PATH:LINE") and @p allowed.
 */
static int
parse_route(struct profile_loader *l, const char *file, const char *sect,
	    const char *key, const char *val, const char *allowed,
	    struct aifab_route_params *r)
{
	char buf[ROUTE_LINE_MAX], why[128], a[INET6_ADDRSTRLEN];
	uint8_t net[16];
	char *tok, *save = NULL;
	unsigned int i;

	memset(r, 0, sizeof(*r));
	if (profile_parse_prefix(key, &r->family, r->prefix, &r->depth,
				 why, sizeof(why)) != 0)
		return profile_fail(l, file, sect, key, val, allowed,
				    "key: %s", why);
	memcpy(net, r->prefix, sizeof(net));
	prefix_mask(net, r->depth, addr_len(r->family));
	if (memcmp(net, r->prefix, sizeof(net)) != 0) {
		profile_fmt_addr(r->family, net, a, sizeof(a));
		return profile_fail(l, file, sect, key, val,
				    "a prefix with host bits zero",
				    "host bits set in the prefix (network is "
				    "%s/%u)", a, r->depth);
	}
	strlcpy(buf, val, sizeof(buf));
	for (tok = strtok_r(buf, " \t,", &save); tok != NULL;
	     tok = strtok_r(NULL, " \t,", &save)) {
		uint8_t fam, nh[16];

		if (r->n_nh >= AIFAB_MAX_ECMP)
			return profile_fail(l, file, sect, key, val, allowed,
					    "more than "
					    RTE_STR(AIFAB_MAX_ECMP)
					    " next hops");
		if (profile_parse_addr(tok, &fam, nh) != 0)
			return profile_fail(l, file, sect, key, val, allowed,
					    "next hop '%s' is "
					    "not an IP address", tok);
		if (fam != r->family)
			return profile_fail(l, file, sect, key, val, allowed,
					    "next hop '%s' is "
					    "not in the prefix's address "
					    "family", tok);
		for (i = 0; i < r->n_nh; i++)
			if (memcmp(r->nh_addr[i], nh, 16) == 0)
				return profile_fail(l, file, sect, key, val,
						    allowed, "next hop '%s' "
						    "listed twice", tok);
		memcpy(r->nh_addr[r->n_nh++], nh, 16);
	}
	if (r->n_nh == 0)
		return profile_fail(l, file, sect, key, val, allowed,
				    "no next hop");
	return 0;
}

/* ---- the route table and its duplicate index -------------------------- */

static uint32_t
route_hash(const struct aifab_route_params *r)
{
	uint32_t k[5];

	memcpy(k, r->prefix, 16);
	k[4] = (uint32_t)r->family << 16 | (uint32_t)r->depth << 8 | r->sw;
	return rte_jhash_32b(k, RTE_DIM(k), 0x9e3779b9);
}

static bool
route_same(const struct aifab_route_params *a,
	   const struct aifab_route_params *b)
{
	return a->sw == b->sw && a->family == b->family &&
	       a->depth == b->depth && memcmp(a->prefix, b->prefix, 16) == 0;
}

/* The index slot of @p r: its route's (value != 0) or a free one. */
static uint32_t *
route_slot(struct profile_loader *l, const struct aifab_route_params *r)
{
	uint32_t mask = l->idx_cap - 1, h = route_hash(r) & mask;

	while (l->route_idx[h] != 0 &&
	       !route_same(&l->p->routes[l->route_idx[h] - 1], r))
		h = (h + 1) & mask;
	return &l->route_idx[h];
}

/* Room for one more route: the table, its origins and the index grown
 * (doubled) as needed. @return 0, or -ENOMEM. */
static int
route_reserve(struct profile_loader *l)
{
	struct aifab_profile *p = l->p;
	uint32_t i;

	if (p->n_routes == p->cap_routes) {
		uint32_t cap = p->cap_routes != 0 ? p->cap_routes * 2 : 64;
		void *nr = realloc(p->routes, sizeof(*p->routes) * cap);
		void *ns;

		if (nr == NULL)
			return -ENOMEM;
		p->routes = nr;
		ns = realloc(l->route_src, sizeof(*l->route_src) * cap);
		if (ns == NULL)
			return -ENOMEM;
		l->route_src = ns;
		p->cap_routes = cap;
	}
	if ((uint64_t)(p->n_routes + 1) * 2 > l->idx_cap) {
		uint32_t cap = l->idx_cap != 0 ? l->idx_cap * 2 : 256;
		uint32_t *ni = calloc(cap, sizeof(*ni));

		if (ni == NULL)
			return -ENOMEM;
		free(l->route_idx);
		l->route_idx = ni;
		l->idx_cap = cap;
		for (i = 0; i < p->n_routes; i++)
			*route_slot(l, &p->routes[i]) = i + 1;
	}
	return 0;
}

void
profile_routes_done(struct profile_loader *l)
{
	unsigned int i;

	free(l->route_src);
	free(l->route_idx);
	for (i = 0; i < l->n_route_files; i++)
		free(l->route_files[i]);
	l->route_src = NULL;
	l->route_idx = NULL;
	l->n_route_files = 0;
}

/* "PATH:LINE" of route @p i from a file, or its INI origin. */
static const char *
route_file(const struct profile_loader *l, uint32_t i, const char *sect,
	   char *buf, size_t len)
{
	const struct profile_route_src *s = &l->route_src[i];

	if (s->line == 0)
		return profile_origin(l, sect, s->key);
	snprintf(buf, len, "%s:%u", l->route_files[s->file], s->line);
	return buf;
}

/* The next hops of route @p r as text (a file route's value). */
static void
route_nh_text(const struct aifab_route_params *r, char *buf, size_t len)
{
	char a[INET6_ADDRSTRLEN];
	unsigned int k;

	buf[0] = '\0';
	for (k = 0; k < r->n_nh; k++) {
		profile_fmt_addr(r->family, r->nh_addr[k], a, sizeof(a));
		if (k > 0)
			strlcat(buf, " ", len);
		strlcat(buf, a, len);
	}
}

int
profile_route_fail(const struct profile_loader *l, uint32_t i,
		   const char *sect, const char *allowed, const char *fmt, ...)
{
	const struct profile_route_src *s = &l->route_src[i];
	char file[PATH_MAX + 16], val[ROUTE_LINE_MAX];
	const char *v = NULL;
	va_list ap;
	int rc;

	if (s->line == 0)
		v = rte_cfgfile_get_entry(l->cfg, sect, s->key);
	if (v == NULL) {
		route_nh_text(&l->p->routes[i], val, sizeof(val));
		v = val;
	}
	va_start(ap, fmt);
	rc = profile_vfail(l, route_file(l, i, sect, file, sizeof(file)),
			   sect, s->key, v, allowed, fmt, ap);
	va_end(ap);
	return rc;
}

/*
 * Add or replace route @p r (switch set) from @p file. @p src is its
 * origin; @p replace: a --set, which may replace the same prefix.
 */
static int
route_put(struct profile_loader *l, const char *file, const char *sect,
	  const char *key, const char *val, bool replace,
	  const struct aifab_route_params *r,
	  const struct profile_route_src *src)
{
	struct aifab_profile *p = l->p;
	char where[PATH_MAX + 16];
	uint32_t *slot, idx;

	if (route_reserve(l) != 0)
		return profile_fail(l, file, sect, key, val, "more memory",
				    "out of memory for %u routes",
				    p->n_routes + 1);
	slot = route_slot(l, r);
	if (*slot != 0 && !replace) {
		const struct profile_route_src *o = &l->route_src[*slot - 1];

		if (o->line != 0)
			snprintf(where, sizeof(where), "%s:%u %s",
				 l->route_files[o->file], o->line, o->key);
		else
			snprintf(where, sizeof(where), "[%s] %s", sect,
				 o->key);
		return profile_fail(l, file, sect, key, val,
				    "each prefix once",
				    "duplicate route, also %s", where);
	}
	if (*slot == 0) {
		if (p->n_routes >= AIFAB_MAX_ROUTES)
			return profile_fail(l, file, sect, key, val, "at most "
					    RTE_STR(AIFAB_MAX_ROUTES)
					    " routes", "too many routes");
		*slot = ++p->n_routes;
	}
	idx = *slot - 1;
	p->routes[idx] = *r;
	l->route_src[idx] = *src;
	return 0;
}

/* `file = PATH`: every line of the routes file. */
static int
load_route_file(struct profile_loader *l, const char *sect, uint8_t sw,
		const struct rte_cfgfile_entry *e)
{
	const char *ini = profile_origin(l, sect, e->name);
	char line[ROUTE_LINE_MAX + 2], where[PATH_MAX + 16];
	struct aifab_route_params r;
	struct profile_route_src src;
	uint32_t n = 0;
	FILE *f;
	int rc = 0;

	if (e->value[0] == '\0')
		return profile_fail(l, ini, sect, e->name, e->value,
				    "the path of a routes file", "empty path");
	if (l->n_route_files >= PROFILE_MAX_ROUTE_FILES)
		return profile_fail(l, ini, sect, e->name, e->value, "at most "
				    RTE_STR(PROFILE_MAX_ROUTE_FILES)
				    " routes files", "too many routes files");
	f = fopen(e->value, "r");
	if (f == NULL)
		return profile_fail(l, ini, sect, e->name, e->value,
				    "a readable file of routes (a relative "
				    "path is from the working directory)",
				    "cannot open: %s", strerror(errno));
	l->route_files[l->n_route_files] = strdup(e->value);
	if (l->route_files[l->n_route_files] == NULL) {
		fclose(f);
		return profile_fail(l, ini, sect, e->name, e->value,
				    "more memory", "out of memory");
	}
	memset(&src, 0, sizeof(src));
	src.file = (uint16_t)l->n_route_files++;
	while (rc == 0 && fgets(line, sizeof(line), f) != NULL) {
		char *key, *val, *c;
		size_t len = strlen(line);

		n++;
		snprintf(where, sizeof(where), "%s:%u", e->value, n);
		if (len > ROUTE_LINE_MAX && line[len - 1] != '\n') {
			rc = profile_fail(l, where, sect, "-", "",
					  ROUTE_LINE_ALLOWED, "line longer "
					  "than " RTE_STR(ROUTE_LINE_MAX)
					  " bytes");
			break;
		}
		c = strchr(line, '#');
		if (c != NULL)
			*c = '\0';
		key = profile_trim(line);
		if (key[0] == '\0')
			continue;
		val = key + strcspn(key, " \t=");
		if (*val != '\0')
			*val++ = '\0';
		val = profile_trim(val);
		if (val[0] == '=') /* "prefix = next hops" as in the INI */
			val = profile_trim(val + 1);
		rc = parse_route(l, where, sect, key, val, ROUTE_LINE_ALLOWED,
				 &r);
		if (rc != 0)
			break;
		r.sw = sw;
		src.line = n;
		strlcpy(src.key, key, sizeof(src.key));
		rc = route_put(l, where, sect, key, val, false, &r, &src);
	}
	if (rc == 0 && ferror(f))
		rc = profile_fail(l, ini, sect, e->name, e->value,
				  "a readable file of routes",
				  "read error after line %u", n);
	fclose(f);
	return rc;
}

int
profile_load_routes(struct profile_loader *l, const char *sect, uint8_t sw,
		    const struct rte_cfgfile_entry *e, int ne)
{
	struct aifab_route_params r;
	struct profile_route_src src;
	int j;

	for (j = 0; j < ne; j++) {
		const char *file = profile_origin(l, sect, e[j].name);

		if (e[j].name[0] == '#')
			continue;
		if (strcmp(e[j].name, "file") == 0) {
			if (load_route_file(l, sect, sw, &e[j]) != 0)
				return -1;
			continue;
		}
		if (parse_route(l, file, sect, e[j].name, e[j].value,
				ROUTE_ALLOWED, &r) != 0)
			return -1;
		r.sw = sw;
		memset(&src, 0, sizeof(src));
		strlcpy(src.key, e[j].name, sizeof(src.key));
		if (route_put(l, file, sect, e[j].name, e[j].value,
			      profile_from_set(l, sect, e[j].name), &r,
			      &src) != 0)
			return -1;
	}
	return 0;
}
