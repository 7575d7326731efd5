/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Sections into struct aifab_profile: each key of a typed section through
 * the key table, [port.<name>] sections in file order, then the switch
 * instances the ports name and their [switch.<name>], [neighbors.<name>]
 * and [routes.<name>] sections.
 */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include <rte_common.h>
#include <rte_string_fns.h>

#include "profile_priv.h"

#define SW_NAME_ALLOWED "a switch name: a lower-case letter, then a-z 0-9 _ " \
	"(1..31 characters)"
#define PORT_NAME_ALLOWED "port.<name>, name 1..31 characters of " \
	"A-Z a-z 0-9 _ -"

static int
load_keys(struct profile_loader *l, enum profile_sect kind, const char *sect,
	  void *base, const struct rte_cfgfile_entry *e, int ne)
{
	char allowed[PROFILE_ALLOWED_LEN], why[128];
	int j, m;

	for (j = 0; j < ne; j++) {
		const struct profile_key *k;
		const char *file = profile_origin(l, sect, e[j].name);

		if (e[j].name[0] == '#')
			continue;
		k = profile_key_find(kind, e[j].name);
		if (k == NULL) {
			profile_keys_of(kind, allowed, sizeof(allowed));
			return profile_fail(l, file, sect, e[j].name,
					    e[j].value, allowed, "unknown key");
		}
		for (m = 0; m < j; m++)
			if (strcmp(e[m].name, e[j].name) == 0)
				return profile_fail(l, file, sect, e[j].name,
						    e[j].value, "each key once "
						    "per section (--set "
						    "overrides)",
						    "duplicate key");
		if (profile_key_parse(k, base, e[j].value, why,
				      sizeof(why)) != 0) {
			profile_key_allowed(k, allowed, sizeof(allowed));
			return profile_fail(l, file, sect, e[j].name,
					    e[j].value, allowed, "%s", why);
		}
	}
	return 0;
}

static void
port_defaults(struct aifab_port_params *pp)
{
	char why[128];
	unsigned int i;

	memset(pp, 0, sizeof(*pp));
	for (i = 0; i < profile_n_keys; i++)
		if (profile_keys[i].sect == PROFILE_SECT_PORT &&
		    profile_keys[i].def != NULL)
			profile_key_parse(&profile_keys[i], pp,
					  profile_keys[i].def, why,
					  sizeof(why));
}

static bool
port_name_ok(const char *s)
{
	size_t n = strlen(s);

	if (n == 0 || n >= AIFAB_NAME_LEN)
		return false;
	for (; *s != '\0'; s++)
		if (!isalnum((unsigned char)*s) && *s != '_' && *s != '-')
			return false;
	return true;
}

static int
load_port(struct profile_loader *l, const char *sect,
	  const struct rte_cfgfile_entry *e, int ne)
{
	struct aifab_profile *p = l->p;
	const char *k0 = ne > 0 ? e[0].name : "-";
	const char *v0 = ne > 0 ? e[0].value : "";
	struct aifab_port_params *pp;

	if (!port_name_ok(sect + 5))
		return profile_fail(l, profile_origin(l, sect, k0), sect, k0,
				    v0, PORT_NAME_ALLOWED,
				    "bad port name '%s'", sect + 5);
	if (p->n_ports >= AIFAB_MAX_PORTS)
		return profile_fail(l, profile_origin(l, sect, k0), sect, k0,
				    v0, "at most " RTE_STR(AIFAB_MAX_PORTS)
				    " ports", "too many ports");
	pp = &p->ports[p->n_ports];
	port_defaults(pp);
	strlcpy(pp->name, sect + 5, sizeof(pp->name));
	strlcpy(l->port_sect[p->n_ports], sect, CFG_NAME_LEN);
	p->n_ports++;
	return load_keys(l, PROFILE_SECT_PORT, sect, pp, e, ne);
}

static int
load_section(struct profile_loader *l, int idx, const char *name,
	     const struct rte_cfgfile_entry *e, int ne)
{
	const char *k0 = ne > 0 ? e[0].name : "-";
	const char *v0 = ne > 0 ? e[0].value : "";
	unsigned int tc;
	int kind = profile_sect_kind(name, &tc);
	int j;

	if (idx == 0 && strcmp(name, "GLOBAL") == 0) {
		/* Implicit: holds only '#' lines that contain '='. */
		for (j = 0; j < ne; j++)
			if (e[j].name[0] != '#')
				return profile_fail(l, l->file, "-", e[j].name,
						    e[j].value, "key = value "
						    "lines inside a [section]",
						    "key outside any section");
		return 0;
	}
	if (kind == PROFILE_SECT_PORT)
		return load_port(l, name, e, ne);
	/* Named switches' sections: once every port's switch is known. */
	if (kind == PROFILE_SECT_SWNAMED ||
	    strncmp(name, "neighbors.", 10) == 0 ||
	    strncmp(name, "routes.", 7) == 0)
		return 0;
	if (kind == PROFILE_SECT_BAD_INDEX)
		return profile_fail(l, profile_origin(l, name, k0), name, k0,
				    v0, PROFILE_TC_INDEX_ALLOWED,
				    "bad TC index '%s'", name + 3);
	if (kind >= 0)
		return load_keys(l, kind, name,
				 profile_sect_base(l->p, kind, tc), e, ne);
	if (strcmp(name, "neighbors") == 0)
		return profile_load_neighbors(l, name, 0, e, ne);
	if (strcmp(name, "routes") == 0)
		return profile_load_routes(l, name, 0, e, ne);
	return profile_fail(l, profile_origin(l, name, k0), name, k0, v0,
			    PROFILE_SECTS_ALLOWED, "unknown section '%s'",
			    name);
}

static int
sw_find(const struct aifab_profile *p, const char *name)
{
	int i;

	for (i = 0; i < p->n_switches; i++)
		if (strcmp(p->switches[i].name, name) == 0)
			return i;
	return -1;
}

/* True if port @p i is one of the [generator] ports. */
static bool
gen_port(const struct aifab_profile *p, int i)
{
	char buf[sizeof(p->gen.ports)], *tok, *save = NULL;

	if (!p->gen.enabled)
		return false;
	if (p->gen.ports[0] == '\0')
		return true;
	strlcpy(buf, p->gen.ports, sizeof(buf));
	for (tok = strtok_r(buf, " ,", &save); tok != NULL;
	     tok = strtok_r(NULL, " ,", &save)) {
		size_t n = strlen(tok);

		if (strcmp(tok, p->ports[i].name) == 0 ||
		    (n > 0 && tok[n - 1] == '*' &&
		     strncmp(tok, p->ports[i].name, n - 1) == 0))
			return true; /* "g*": every port named g... */
	}
	return false;
}

/* switches[0] is the default; the others in order of first use by a port. */
int
profile_build_switches(struct profile_loader *l)
{
	struct aifab_profile *p = l->p;
	int i, s;

	p->n_switches = 1;
	memset(&p->switches[0], 0, sizeof(p->switches[0]));
	p->switches[0].ecmp = p->ecmp;
	for (i = 0; i < p->n_ports; i++) {
		struct aifab_port_params *pp = &p->ports[i];
		const char *si = l->port_sect[i];
		const char *file;

		if (pp->sw_name[0] == '\0') {
			pp->sw = 0;
			p->switches[0].n_ports++;
			continue;
		}
		file = profile_origin(l, si, "switch");
		if (!profile_sw_name_ok(pp->sw_name))
			return profile_fail(l, file, si, "switch",
					    pp->sw_name,
					    SW_NAME_ALLOWED " or empty",
					    "bad switch name");
		if (gen_port(p, i))
			return profile_fail(l, file, si, "switch",
					    pp->sw_name,
					    "empty on [generator] ports",
					    "port %s is a [generator] port",
					    pp->name);
		s = sw_find(p, pp->sw_name);
		if (s < 0) {
			if (p->n_switches >= AIFAB_MAX_SWITCHES)
				return profile_fail(l, file, si, "switch",
						    pp->sw_name, "at most "
						    RTE_STR(AIFAB_MAX_SWITCHES)
						    " switches, the default "
						    "one included",
						    "too many switches");
			s = p->n_switches++;
			memset(&p->switches[s], 0, sizeof(p->switches[s]));
			strlcpy(p->switches[s].name, pp->sw_name,
				sizeof(p->switches[s].name));
			p->switches[s].ecmp = p->ecmp;
		}
		pp->sw = (uint8_t)s;
		if (s > 0 && p->switches[s].n_ports >= AIFAB_SW_MAX_PORTS)
			return profile_fail(l, file, si, "switch",
					    pp->sw_name, "at most "
					    RTE_STR(AIFAB_SW_MAX_PORTS)
					    " ports per switch instance",
					    "too many ports on one switch");
		p->switches[s].n_ports++;
	}
	return 0;
}

/* "a b c": the named switches, for an error's allowed part. */
static void
sw_names(const struct aifab_profile *p, char *buf, size_t len)
{
	int i;

	strlcpy(buf, "a switch named by some [port.<name>] switch key:", len);
	for (i = 1; i < p->n_switches; i++) {
		strlcat(buf, " ", len);
		strlcat(buf, p->switches[i].name, len);
	}
	if (p->n_switches <= 1)
		strlcat(buf, " (none is)", len);
}

static int
load_sw_section(struct profile_loader *l, const char *name,
		const struct rte_cfgfile_entry *e, int ne)
{
	struct aifab_profile *p = l->p;
	const char *k0 = ne > 0 ? e[0].name : "-";
	const char *v0 = ne > 0 ? e[0].value : "";
	const char *sw_name;
	char allowed[PROFILE_ALLOWED_LEN];
	int kind = 0, s;

	if (strncmp(name, "switch.", 7) == 0)
		kind = 1, sw_name = name + 7;
	else if (strncmp(name, "neighbors.", 10) == 0)
		kind = 2, sw_name = name + 10;
	else if (strncmp(name, "routes.", 7) == 0)
		kind = 3, sw_name = name + 7;
	else
		return 0;
	s = sw_find(p, sw_name);
	if (s <= 0) {
		sw_names(p, allowed, sizeof(allowed));
		return profile_fail(l, profile_origin(l, name, k0), name, k0,
				    v0, allowed, "no port has switch = '%s'",
				    sw_name);
	}
	if (kind == 1)
		return load_keys(l, PROFILE_SECT_SWNAMED, name,
				 &p->switches[s], e, ne);
	if (kind == 2)
		return profile_load_neighbors(l, name, (uint8_t)s, e, ne);
	return profile_load_routes(l, name, (uint8_t)s, e, ne);
}

static bool
sw_section(const char *name)
{
	return strncmp(name, "switch.", 7) == 0 ||
		strncmp(name, "neighbors.", 10) == 0 ||
		strncmp(name, "routes.", 7) == 0;
}

/*
 * Every section in file order (with @p sw_only, only the named switches'
 * sections) with its entries, to load_section() or load_sw_section().
 */
static int
each_section(struct profile_loader *l, bool sw_only)
{
	int n = rte_cfgfile_num_sections(l->cfg, "", 0);
	char name[CFG_NAME_LEN];
	int i, ne, rc = 0;

	for (i = 0; i < n && rc == 0; i++) {
		struct rte_cfgfile_entry *e = NULL;

		ne = rte_cfgfile_section_num_entries_by_index(l->cfg, name, i);
		if (sw_only && !sw_section(name))
			continue;
		if (ne > 0) {
			e = calloc((size_t)ne, sizeof(*e));
			if (e == NULL)
				return profile_fail(l, l->file, name, "-", "",
						    "less", "out of memory");
			ne = rte_cfgfile_section_entries_by_index(l->cfg, i,
								  name, e, ne);
		}
		if (ne < 0)
			ne = 0;
		rc = sw_only ? load_sw_section(l, name, e, ne) :
			load_section(l, i, name, e, ne);
		free(e);
	}
	return rc;
}

int
profile_load_sections(struct profile_loader *l)
{
	return each_section(l, false);
}

int
profile_load_sw_sections(struct profile_loader *l)
{
	return each_section(l, true);
}
