/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Whole-profile checks, once every section is loaded: ports (wires, unique
 * devices, MACs and addresses, subnets on one switch), neighbours inside a
 * port subnet of their switch, routes whose next hops are neighbours, each
 * TC's thresholds and the ports' PFC overrides. Errors quote the text the
 * value came from.
 */
#include <inttypes.h>
#include <stdarg.h>
#include <string.h>
#include <arpa/inet.h>
#include <sys/socket.h>

#include <rte_byteorder.h>
#include <rte_common.h>
#include <rte_ether.h>
#include <rte_string_fns.h>

#include "profile_priv.h"

static const char *
text_of(const struct profile_loader *l, const char *sect, const char *key)
{
	const char *v = rte_cfgfile_get_entry(l->cfg, sect, key);

	return v != NULL ? v : "";
}

/* Port @p i's subnet of @p family as bytes; false if it has none. */
static bool
port_net(const struct aifab_port_params *pp, uint8_t family, uint8_t a[16],
	 uint8_t *depth)
{
	memset(a, 0, 16);
	if (family == AF_INET && pp->has_ip4) {
		uint32_t be = rte_cpu_to_be_32(pp->ip4);

		memcpy(a, &be, 4);
		*depth = pp->ip4_depth;
		return true;
	}
	if (family == AF_INET6 && pp->has_ip6) {
		memcpy(a, pp->ip6, 16);
		*depth = pp->ip6_depth;
		return true;
	}
	return false;
}

/* First @p depth bits of @p a and @p b equal. */
static bool
prefix_match(const uint8_t *a, const uint8_t *b, unsigned int depth)
{
	unsigned int full = depth / 8, rest = depth % 8;
	uint8_t mask = (uint8_t)(0xff << (8 - rest));

	if (memcmp(a, b, full) != 0)
		return false;
	return rest == 0 || ((a[full] ^ b[full]) & mask) == 0;
}

/* Section of neighbour / route entries of switch @p sw. */
static void
sw_sect(const struct aifab_profile *p, const char *base, uint8_t sw,
	char *buf, size_t len)
{
	if (sw == 0)
		strlcpy(buf, base, len);
	else
		snprintf(buf, len, "%s.%s", base, p->switches[sw].name);
}

static int
check_port_pair(struct profile_loader *l, int i, int j, uint8_t family)
{
	const struct aifab_profile *p = l->p;
	const char *key = family == AF_INET ? "ipv4" : "ipv6";
	const char *si = l->port_sect[i], *sj = l->port_sect[j];
	uint8_t a[16], b[16], da, db;

	if (!port_net(&p->ports[i], family, a, &da) ||
	    !port_net(&p->ports[j], family, b, &db))
		return 0;
	if (memcmp(a, b, 16) == 0)
		return profile_fail(l, profile_origin(l, si, key), si, key,
				    text_of(l, si, key),
				    "an address unique among ports",
				    "duplicate address, also on [%s]", sj);
	/* Two switches' ends of one link share a subnet. */
	if (p->ports[i].sw == p->ports[j].sw &&
	    prefix_match(a, b, RTE_MIN(da, db)))
		return profile_fail(l, profile_origin(l, si, key), si, key,
				    text_of(l, si, key), "port subnets that "
				    "do not overlap on one switch",
				    "subnet overlaps [%s] %s = %s", sj, key,
				    text_of(l, sj, key));
	return 0;
}

/* A wire names another port, not itself, not one wired elsewhere. */
static int
check_wire(struct profile_loader *l, int i)
{
	const struct aifab_profile *p = l->p;
	const struct aifab_port_params *pi = &p->ports[i];
	const char *si = l->port_sect[i];
	int j, k;

	if (pi->wire[0] == '\0')
		return 0;
	j = aifab_profile_port_index(p, pi->wire);
	if (j < 0 || j == i)
		return profile_fail(l, profile_origin(l, si, "wire"), si,
				    "wire", pi->wire,
				    "the name of another [port.<name>]",
				    j < 0 ? "no such port" :
				    "a port cannot wire itself");
	if (pi->device[0] != '\0')
		return profile_fail(l, profile_origin(l, si, "wire"), si,
				    "wire", pi->wire,
				    "wire or device, not both",
				    "the port also has device = '%s'",
				    pi->device);
	for (k = 0; k < p->n_ports; k++) {
		const char *w = p->ports[k].wire;

		if (k == i || w[0] == '\0')
			continue;
		/* Another port wired to i or j, other than the pair itself. */
		if ((strcmp(w, pi->name) == 0 && k != j) ||
		    (strcmp(w, pi->wire) == 0) ||
		    (k == j && strcmp(w, pi->name) != 0))
			return profile_fail(l, profile_origin(l, si, "wire"),
					    si, "wire", pi->wire,
					    "one cable per port",
					    "[%s] is wired too",
					    l->port_sect[k]);
	}
	return 0;
}

static int
check_ports(struct profile_loader *l)
{
	const struct aifab_profile *p = l->p;
	int i, j;

	if (p->n_ports == 0)
		return profile_fail(l, l->file, "port.<name>", "-", "",
				    "1.." RTE_STR(AIFAB_MAX_PORTS)
				    " [port.<name>] sections", "no ports");
	for (i = 0; i < p->n_ports; i++)
		if (check_wire(l, i) != 0)
			return -1;
	for (i = 1; i < p->n_ports; i++) {
		const struct aifab_port_params *pi = &p->ports[i];
		const char *si = l->port_sect[i];

		for (j = 0; j < i; j++) {
			const struct aifab_port_params *pj = &p->ports[j];

			if (pi->device[0] != '\0' &&
			    strcmp(pi->device, pj->device) == 0)
				return profile_fail(l, profile_origin(l, si,
						    "device"), si, "device",
						    pi->device, "a device "
						    "unique among ports, or "
						    "empty = bind by order",
						    "device also used by [%s]",
						    l->port_sect[j]);
			if (pi->has_mac && pj->has_mac &&
			    rte_is_same_ether_addr(&pi->mac, &pj->mac))
				return profile_fail(l, profile_origin(l, si,
						    "mac"), si, "mac",
						    text_of(l, si, "mac"),
						    "a MAC unique among ports",
						    "duplicate MAC, also on "
						    "[%s]", l->port_sect[j]);
			if (check_port_pair(l, i, j, AF_INET) != 0 ||
			    check_port_pair(l, i, j, AF_INET6) != 0)
				return -1;
		}
	}
	return 0;
}

static int
check_neighbors(struct profile_loader *l)
{
	struct aifab_profile *p = l->p;
	char allowed[PROFILE_ALLOWED_LEN], sect[CFG_NAME_LEN];
	uint8_t net[16], depth;
	int i, j;

	for (i = 0; i < p->n_neighs; i++) {
		struct aifab_neigh_params *nb = &p->neighs[i];
		const char *key = l->neigh_key[i];
		const char *file;
		int found = -1;

		sw_sect(p, "neighbors", nb->sw, sect, sizeof(sect));
		file = profile_origin(l, sect, key);
		for (j = 0; j < p->n_ports && found < 0; j++) {
			if (p->ports[j].sw != nb->sw ||
			    !port_net(&p->ports[j], nb->family, net, &depth) ||
			    !prefix_match(net, nb->addr, depth))
				continue;
			if (memcmp(net, nb->addr, 16) == 0)
				return profile_fail(l, file, sect, key,
						    text_of(l, sect, key),
						    "an address other than "
						    "the ports'", "neighbour "
						    "address is [%s]'s own",
						    l->port_sect[j]);
			found = j;
		}
		if (found < 0) {
			strlcpy(allowed, nb->sw == 0 ?
				"an address inside a port subnet:" :
				"an address inside a subnet of the switch's "
				"ports:", sizeof(allowed));
			for (j = 0; j < p->n_ports; j++) {
				if (p->ports[j].sw != nb->sw ||
				    !port_net(&p->ports[j], nb->family, net,
					      &depth))
					continue;
				strlcat(allowed, " ", sizeof(allowed));
				strlcat(allowed, text_of(l, l->port_sect[j],
					nb->family == AF_INET ? "ipv4" : "ipv6"),
					sizeof(allowed));
			}
			if (nb->sw == 0)
				return profile_fail(l, file, sect, key,
						    text_of(l, sect, key),
						    allowed, "neighbour is "
						    "not inside any port's "
						    "subnet");
			return profile_fail(l, file, sect, key,
					    text_of(l, sect, key), allowed,
					    "neighbour is not inside the "
					    "subnet of any port of switch %s",
					    p->switches[nb->sw].name);
		}
		nb->port = (uint16_t)found;
	}
	return 0;
}

static int
check_routes(struct profile_loader *l)
{
	struct aifab_profile *p = l->p;
	char a[INET6_ADDRSTRLEN], sect[CFG_NAME_LEN], nsect[CFG_NAME_LEN];
	char allowed[PROFILE_ALLOWED_LEN];
	uint32_t i;
	int j, idx;

	for (i = 0; i < p->n_routes; i++) {
		struct aifab_route_params *r = &p->routes[i];

		for (j = 0; j < r->n_nh; j++) {
			idx = profile_neigh_find(p, r->sw, r->family,
						 r->nh_addr[j]);
			if (idx >= 0) {
				r->nh_neigh[j] = (uint16_t)idx;
				continue;
			}
			sw_sect(p, "routes", r->sw, sect, sizeof(sect));
			sw_sect(p, "neighbors", r->sw, nsect, sizeof(nsect));
			profile_fmt_addr(r->family, r->nh_addr[j], a,
					 sizeof(a));
			snprintf(allowed, sizeof(allowed),
				 "next hops that are [%s] entries", nsect);
			return profile_route_fail(l, i, sect, allowed,
						  "route to nowhere: next hop "
						  "%s is not a configured "
						  "neighbour%s%s", a,
						  r->sw != 0 ?
						  " of switch " : "",
						  p->switches[r->sw].name);
		}
	}
	return 0;
}

/*
 * The text of @p key in @p sect; for a key left at its default, which has
 * no text, @p v printed into @p buf.
 */
static const char *
text_or_value(const struct profile_loader *l, const char *sect,
	      const char *key, uint64_t v, char *buf, size_t len)
{
	const char *t = rte_cfgfile_get_entry(l->cfg, sect, key);

	if (t != NULL)
		return t;
	snprintf(buf, len, "%" PRIu64, v);
	return buf;
}

/* profile_fail() on @p key of @p sect, quoting its text or its value @p v. */
static int
fail_value(const struct profile_loader *l, const char *sect, const char *key,
	   uint64_t v, const char *allowed, const char *fmt, ...)
	__rte_format_printf(6, 7);

static int
fail_value(const struct profile_loader *l, const char *sect, const char *key,
	   uint64_t v, const char *allowed, const char *fmt, ...)
{
	char val[32];
	va_list ap;
	int rc;

	va_start(ap, fmt);
	rc = profile_vfail(l, profile_origin(l, sect, key), sect, key,
			   text_or_value(l, sect, key, v, val, sizeof(val)),
			   allowed, fmt, ap);
	va_end(ap);
	return rc;
}

/* For a why naming a second key: where that key's value came from. */
static const char *
set_note(const struct profile_loader *l, const char *sect, const char *key)
{
	return profile_from_set(l, sect, key) ? " (from --set)" : "";
}

/* Each TC against itself and the shared buffer. */
static int
check_tcs(struct profile_loader *l)
{
	const struct aifab_profile *p = l->p;
	char sect[CFG_NAME_LEN], allowed[PROFILE_ALLOWED_LEN];
	const char *key;
	unsigned int n;
	uint32_t xon;
	bool xon_abs;

	for (n = 0; n < AIFAB_N_TC; n++) {
		const struct aifab_tc_params *tc = &p->tc[n];

		snprintf(sect, sizeof(sect), "tc.%u", n);
		key = "queue_limit_bytes";
		if (tc->queue_limit_bytes != 0 &&
		    tc->queue_limit_bytes > p->qos.buffer_bytes) {
			snprintf(allowed, sizeof(allowed), "0 or 1024..%" PRIu64
				 " ([qos] buffer_bytes)", p->qos.buffer_bytes);
			return fail_value(l, sect, key, tc->queue_limit_bytes,
					  allowed,
					  "above [qos] buffer_bytes = %" PRIu64,
					  p->qos.buffer_bytes);
		}
		key = "ecn_kmin_bytes";
		if (tc->ecn_kmin_bytes > tc->ecn_kmax_bytes) {
			snprintf(allowed, sizeof(allowed), "0..%" PRIu32
				 " (at most ecn_kmax_bytes)",
				 tc->ecn_kmax_bytes);
			return fail_value(l, sect, key, tc->ecn_kmin_bytes,
					  allowed, "above ecn_kmax_bytes = %"
					  PRIu32 "%s", tc->ecn_kmax_bytes,
					  set_note(l, sect, "ecn_kmax_bytes"));
		}
		/* XON (absolute, else the offset) below a static XOFF */
		xon_abs = tc->pfc_xon_bytes != 0;
		key = xon_abs ? "pfc_xon_bytes" : "pfc_xon_offset_bytes";
		xon = xon_abs ? tc->pfc_xon_bytes : tc->pfc_xon_offset_bytes;
		if (tc->pfc_xoff_bytes != 0 && xon >= tc->pfc_xoff_bytes) {
			snprintf(allowed, sizeof(allowed), "%s..%" PRIu32
				 " (below a static pfc_xoff_bytes)",
				 xon_abs ? "0 or 1" : "0",
				 tc->pfc_xoff_bytes - 1);
			return fail_value(l, sect, key, xon, allowed,
					  "not below pfc_xoff_bytes = %" PRIu32
					  "%s", tc->pfc_xoff_bytes,
					  set_note(l, sect, "pfc_xoff_bytes"));
		}
	}
	return 0;
}

/* A port's PFC overrides: XON below a static XOFF once resolved. */
static int
check_ports_pfc(struct profile_loader *l)
{
	const struct aifab_profile *p = l->p;
	char sect[CFG_NAME_LEN], allowed[PROFILE_ALLOWED_LEN];
	struct aifab_pfc_eff e;
	const char *key;
	unsigned int i, n;
	uint32_t xon;

	for (i = 0; i < p->n_ports; i++) {
		const struct aifab_port_params *pp = &p->ports[i];

		if (!pp->has_pfc_xoff && !pp->has_pfc_xon &&
		    !pp->has_pfc_xon_offset)
			continue; /* check_tcs() covered the TCs' own */
		snprintf(sect, sizeof(sect), "port.%s", pp->name);
		for (n = 0; n < AIFAB_N_TC; n++) {
			aifab_profile_pfc_eff(p, i, n, &e);
			if (!e.enabled || e.xoff_bytes == 0)
				continue;
			key = e.xon_bytes != 0 ? "pfc_xon_bytes" :
				"pfc_xon_offset_bytes";
			xon = e.xon_bytes != 0 ? e.xon_bytes :
				e.xon_offset_bytes;
			if (xon < e.xoff_bytes)
				continue;
			snprintf(allowed, sizeof(allowed), "%s..%" PRIu32
				 " (below the port's static pfc_xoff_bytes)",
				 e.xon_bytes != 0 ? "0 or 1" : "0",
				 e.xoff_bytes - 1);
			return fail_value(l, sect, key, xon, allowed,
					  "not below pfc_xoff_bytes = %" PRIu32
					  " (lossless [tc.%u]%s)", e.xoff_bytes,
					  n, pp->has_pfc_xoff ? "" :
					  ": the TC's");
		}
	}
	return 0;
}

/*
 * [general] clock: `virtual_time = true` is an alias of `clock = virtual`
 * (pcap replays); the generator's own virtual tick would be a second
 * clock beside the process's one.
 */
static int
check_clock(struct profile_loader *l)
{
	struct aifab_profile *p = l->p;

	if (p->virtual_time)
		p->clock = AIFAB_CLOCK_VIRTUAL;
	if (p->clock == AIFAB_CLOCK_VIRTUAL && p->gen.virtual_tick_ns != 0)
		return fail_value(l, "generator", "virtual_tick_ns",
				  p->gen.virtual_tick_ns, "0 with [general] "
				  "clock = virtual", "a second clock beside "
				  "the process's virtual one%s",
				  set_note(l, "general", "clock"));
	return 0;
}

int
profile_validate(struct profile_loader *l)
{
	int rc = check_clock(l);

	if (rc == 0)
		rc = check_ports(l);

	if (rc == 0)
		rc = check_neighbors(l);
	if (rc == 0)
		rc = check_routes(l);
	if (rc == 0)
		rc = check_tcs(l);
	if (rc == 0)
		rc = check_ports_pfc(l);
	return rc;
}
