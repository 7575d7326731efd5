/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Profile loading: rte_cfgfile reads the text (after a line check that turns
 * what it would reject or silently skip into one-line errors), --set edits
 * the text, then the key table (profile_keys.c) parses it into struct
 * aifab_profile and the whole profile is validated. Nothing here prints.
 */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <sys/mman.h>
#include <sys/socket.h>

#include <rte_byteorder.h>
#include <rte_cfgfile.h>
#include <rte_common.h>
#include <rte_ether.h>
#include <rte_string_fns.h>

#include "profile_priv.h"
#include "profile_default.h" /* generated: AIFAB_PROFILE_DEFAULT_TEXT */

#define EMBEDDED_FILE "<embedded demo.ini>"
#define SET_FILE "--set"
#define COMMENT_CHAR ';'
/* rte_cfgfile reads lines into a CFG_NAME_LEN + CFG_VALUE_LEN + 4 buffer. */
#define LINE_MAX_CHARS (CFG_NAME_LEN + CFG_VALUE_LEN + 2)
#define ALLOWED_LEN 384

#define SECTS_ALLOWED "general, switch, port.<name>, qos, tc.<0..7>, " \
	"ecmp, pfc, generator, lab, neighbors, routes, switch.<name>, " \
	"neighbors.<name>, routes.<name>"
#define SW_NAME_ALLOWED "a switch name: a lower-case letter, then a-z 0-9 _ " \
	"(1..31 characters)"
#define SET_ALLOWED "section.key=value with section one of " SECTS_ALLOWED
#define PORT_NAME_ALLOWED "port.<name>, name 1..31 characters of " \
	"A-Z a-z 0-9 _ -"
#define TC_INDEX_ALLOWED "tc.<n> with n one of 0..7"
#define NEIGH_ALLOWED "<IPv4 or IPv6 address> = <unicast MAC>"
#define ROUTE_ALLOWED "<prefix/len> = <next hop> [<next hop> ...]: " \
	"1..16 addresses of the prefix's family, space or comma separated"

struct loader {
	struct aifab_profile *p;
	struct rte_cfgfile *cfg;
	const char *file;            /* name for errors: path or embedded */
	const char *const *sets;
	unsigned int n_sets;
	char *err;
	size_t errlen;
	/* The text each entry came from, for error messages. */
	char port_sect[AIFAB_MAX_PORTS][CFG_NAME_LEN];
	char neigh_key[AIFAB_MAX_NEIGHS][CFG_NAME_LEN];
	char route_key[AIFAB_MAX_ROUTES][CFG_NAME_LEN];
};

/* One "--set section.key=value", split. */
struct set_parts {
	char sect[CFG_NAME_LEN];
	char key[CFG_NAME_LEN];
	char val[CFG_VALUE_LEN];
};

static int
fail(const struct loader *l, const char *file, const char *sect,
     const char *key, const char *val, const char *allowed,
     const char *fmt, ...) __rte_format_printf(7, 8);

/* Longest value and reason echoed in an error line (then "..."). */
#define ERR_VAL_MAX 80
#define ERR_WHY_MAX 120

/*
 * Error lines echo bytes from the file or --set: show control characters
 * (a CR, a newline in a --set value, terminal escapes) as '?' so the
 * message stays one printable line.
 */
static void
one_line(char *s)
{
	for (; *s != '\0'; s++)
		if ((unsigned char)*s < 0x20 || *s == 0x7f)
			*s = '?';
}

static int
fail(const struct loader *l, const char *file, const char *sect,
     const char *key, const char *val, const char *allowed,
     const char *fmt, ...)
{
	char why[256], v[ERR_VAL_MAX + 4];
	va_list ap;

	if (l->err == NULL || l->errlen == 0)
		return -1;
	va_start(ap, fmt);
	vsnprintf(why, sizeof(why), fmt, ap);
	va_end(ap);
	/* Long values are cut so that "allowed" always fits the line. */
	if (strlen(val) > ERR_VAL_MAX)
		snprintf(v, sizeof(v), "%.*s...", ERR_VAL_MAX - 3, val);
	else
		snprintf(v, sizeof(v), "%s", val);
	if (strlen(why) > ERR_WHY_MAX)
		strcpy(why + ERR_WHY_MAX - 3, "...");
	snprintf(l->err, l->errlen, "%s: [%s] %s = '%s': %s; allowed: %s",
		 file, sect, key, v, why, allowed);
	one_line(l->err);
	return -1;
}

static char *
trim(char *s)
{
	char *e;

	while (isspace((unsigned char)*s))
		s++;
	e = s + strlen(s);
	while (e > s && isspace((unsigned char)e[-1]))
		*--e = '\0';
	return s;
}

/* ---- --set ------------------------------------------------------------ */

/* A switch name: a lower-case letter, then a-z 0-9 _ (a lib/stats set
 * name "sw_<name>" and a telemetry command). */
static bool
sw_name_ok(const char *s)
{
	size_t n = strlen(s);

	if (n == 0 || n >= AIFAB_NAME_LEN || !islower((unsigned char)s[0]))
		return false;
	for (; *s != '\0'; s++)
		if (!islower((unsigned char)*s) && !isdigit((unsigned char)*s) &&
		    *s != '_')
			return false;
	return true;
}

/*
 * Split at the dot that ends a known section name. On error @p sp holds as
 * much as could be split and the reason is returned; NULL on success.
 */
static const char *
set_split(const char *s, struct set_parts *sp)
{
	static const char *const fixed[] = {
		"general", "switch", "qos", "ecmp", "pfc", "generator", "lab",
		"neighbors", "routes",
	};
	/* Sections with a name or index that runs to the next dot. */
	static const char *const named[] = { "port.", "tc." };
	static const char *const sw_named[] = {
		"switch.", "routes.", "neighbors.",
	};
	char lhs[2 * CFG_NAME_LEN + 8];
	const char *eq = strchr(s, '=');
	const char *key = NULL;
	char *t, *dot;
	size_t n, sect_len = 0;
	unsigned int i;

	memset(sp, 0, sizeof(*sp));
	n = eq != NULL ? (size_t)(eq - s) : strlen(s);
	if (n >= sizeof(lhs))
		n = sizeof(lhs) - 1;
	memcpy(lhs, s, n);
	lhs[n] = '\0';
	t = trim(lhs);
	if (eq != NULL && strlcpy(sp->val, eq + 1, sizeof(sp->val)) >=
	    sizeof(sp->val))
		return "value too long";
	if (eq != NULL) {
		char *v = trim(sp->val);

		memmove(sp->val, v, strlen(v) + 1);
	}

	/* "switch.<name>.", "routes.<name>.", "neighbors.<name>.": a switch
	 * name up to the next dot (an IPv4 key starts with a digit, an IPv6
	 * one has ':' before any dot; [switch] keys have no dot). */
	for (i = 0; i < RTE_DIM(sw_named); i++) {
		size_t nl = strlen(sw_named[i]);
		char nm[CFG_NAME_LEN];

		if (strncmp(t, sw_named[i], nl) != 0 ||
		    (dot = strchr(t + nl, '.')) == NULL ||
		    (size_t)(dot - t - nl) >= sizeof(nm))
			continue;
		memcpy(nm, t + nl, (size_t)(dot - t - nl));
		nm[dot - t - nl] = '\0';
		if (sw_name_ok(nm)) {
			sect_len = (size_t)(dot - t);
			break;
		}
	}
	for (i = 0; sect_len == 0 && i < RTE_DIM(fixed); i++) {
		size_t fl = strlen(fixed[i]);

		if (strncmp(t, fixed[i], fl) == 0 && t[fl] == '.') {
			sect_len = fl;
			break;
		}
	}
	for (i = 0; sect_len == 0 && i < RTE_DIM(named); i++) {
		size_t nl = strlen(named[i]);

		if (strncmp(t, named[i], nl) == 0 &&
		    (dot = strchr(t + nl, '.')) != NULL)
			sect_len = (size_t)(dot - t);
	}
	if (sect_len != 0) {
		key = t + sect_len + 1;
		t[sect_len] = '\0';
	} else if ((dot = strchr(t, '.')) != NULL) {
		*dot = '\0';
		key = dot + 1;
	}
	if (strlcpy(sp->sect, key != NULL ? t : "", sizeof(sp->sect)) >=
	    sizeof(sp->sect))
		return "section name too long";
	if (strlcpy(sp->key, key != NULL ? key : t, sizeof(sp->key)) >=
	    sizeof(sp->key))
		return "key too long";
	if (key == NULL)
		return "no '.' between section and key";
	if (sect_len == 0) {
		if (strcmp(sp->sect, "port") == 0)
			return "no key after the port name";
		if (strcmp(sp->sect, "tc") == 0)
			return "no key after the TC index";
		return "unknown section";
	}
	if (eq == NULL)
		return "no '=' between key and value";
	if (sp->key[0] == '\0')
		return "empty key";
	return NULL;
}

/* "--set" if the last word on sect/key came from a --set, else the file. */
static const char *
origin(const struct loader *l, const char *sect, const char *key)
{
	struct set_parts sp;
	unsigned int i;

	for (i = 0; i < l->n_sets; i++)
		if (set_split(l->sets[i], &sp) == NULL &&
		    strcmp(sp.sect, sect) == 0 && strcmp(sp.key, key) == 0)
			return SET_FILE;
	return l->file;
}

static bool
from_set(const struct loader *l, const char *sect, const char *key)
{
	return strcmp(origin(l, sect, key), SET_FILE) == 0;
}

static const struct profile_key *
key_find(enum profile_sect kind, const char *name)
{
	unsigned int i;

	for (i = 0; i < profile_n_keys; i++)
		if (profile_keys[i].sect == kind &&
		    strcmp(profile_keys[i].name, name) == 0)
			return &profile_keys[i];
	return NULL;
}

static void
keys_of(enum profile_sect kind, char *buf, size_t len)
{
	unsigned int i;

	buf[0] = '\0';
	for (i = 0; i < profile_n_keys; i++) {
		const char *name = profile_keys[i].name;

		if (profile_keys[i].sect != kind)
			continue;
		/* The fault keys are one family per direction: name it once. */
		if (strncmp(name, "fault_rx_", 9) == 0 ||
		    strncmp(name, "fault_tx_", 9) == 0) {
			if (strstr(buf, "fault_rx_*") != NULL)
				continue;
			name = "fault_rx_* and fault_tx_* (docs/profiles.md)";
		}
		if (buf[0] != '\0')
			strlcat(buf, ", ", len);
		strlcat(buf, name, len);
	}
}

#define SECT_BAD_INDEX (-2)

/*
 * Section kind of a section name, and for [tc.<n>] its index in @p idx;
 * -1 for neighbors/routes/unknown, SECT_BAD_INDEX for "tc.<not 0..7>".
 */
static int
sect_kind(const char *name, unsigned int *idx)
{
	static const struct {
		const char *name;
		enum profile_sect kind;
	} single[] = {
		{ "general", PROFILE_SECT_GENERAL },
		{ "switch", PROFILE_SECT_SWITCH },
		{ "qos", PROFILE_SECT_QOS },
		{ "ecmp", PROFILE_SECT_ECMP },
		{ "pfc", PROFILE_SECT_PFC },
		{ "generator", PROFILE_SECT_GENERATOR },
		{ "lab", PROFILE_SECT_LAB },
	};
	unsigned int i;

	*idx = 0;
	for (i = 0; i < RTE_DIM(single); i++)
		if (strcmp(name, single[i].name) == 0)
			return single[i].kind;
	if (strncmp(name, "port.", 5) == 0)
		return PROFILE_SECT_PORT;
	if (strncmp(name, "switch.", 7) == 0)
		return PROFILE_SECT_SWNAMED;
	if (strncmp(name, "tc.", 3) == 0) {
		/* One digit: "tc.03" or "tc.+3" would be a second [tc.3]. */
		if (name[3] < '0' || name[3] >= '0' + AIFAB_N_TC ||
		    name[4] != '\0')
			return SECT_BAD_INDEX;
		*idx = (unsigned int)(name[3] - '0');
		return PROFILE_SECT_TC;
	}
	return -1;
}

/* Where the keys of a singleton or indexed section live (ports: load_port). */
static void *
sect_base(struct aifab_profile *p, int kind, unsigned int idx)
{
	return kind == PROFILE_SECT_TC ? (void *)&p->tc[idx] : (void *)p;
}

static int
apply_set(struct loader *l, const char *s)
{
	char allowed[ALLOWED_LEN];
	struct set_parts sp;
	const char *why = set_split(s, &sp);
	unsigned int idx;
	int kind, rc;

	if (why != NULL)
		return fail(l, SET_FILE, sp.sect, sp.key, sp.val, SET_ALLOWED,
			    "%s in '%s'", why, s);
	kind = sect_kind(sp.sect, &idx);
	if (kind == SECT_BAD_INDEX)
		return fail(l, SET_FILE, sp.sect, sp.key, sp.val,
			    TC_INDEX_ALLOWED, "bad TC index '%s'", sp.sect + 3);
	if (kind >= 0 && key_find(kind, sp.key) == NULL) {
		keys_of(kind, allowed, sizeof(allowed));
		return fail(l, SET_FILE, sp.sect, sp.key, sp.val, allowed,
			    "unknown key");
	}
	if (!rte_cfgfile_has_section(l->cfg, sp.sect) &&
	    rte_cfgfile_add_section(l->cfg, sp.sect) != 0)
		return fail(l, SET_FILE, sp.sect, sp.key, sp.val, SET_ALLOWED,
			    "out of memory");
	if (rte_cfgfile_has_entry(l->cfg, sp.sect, sp.key))
		rc = rte_cfgfile_set_entry(l->cfg, sp.sect, sp.key, sp.val);
	else
		rc = rte_cfgfile_add_entry(l->cfg, sp.sect, sp.key, sp.val);
	if (rc != 0)
		return fail(l, SET_FILE, sp.sect, sp.key, sp.val, SET_ALLOWED,
			    "rte_cfgfile: %s", strerror(-rc));
	return 0;
}

/* ---- text checks ------------------------------------------------------ */

/*
 * rte_cfgfile silently skips lines that are neither "[section]" nor contain
 * '=', truncates long names and values, and fails without saying why on
 * other malformed lines. Check each line first, with the same comment rule.
 */
static int
check_lines(struct loader *l, const char *src)
{
	char line[LINE_MAX_CHARS + 8], text[LINE_MAX_CHARS + 8];
	char sect[CFG_NAME_LEN] = "-", where[32];
	unsigned int lineno = 0;
	int rc = 0;
	FILE *f = fopen(src, "r");

	if (f == NULL) {
		/* No section or key to name: the file itself is the problem. */
		if (l->err != NULL && l->errlen != 0)
			snprintf(l->err, l->errlen, "%s: cannot open: %s",
				 l->file, strerror(errno));
		return -1;
	}
	while (rc == 0 && fgets(line, sizeof(line), f) != NULL) {
		size_t len = strlen(line);
		char *s, *c, *eq, *key, *val;

		lineno++;
		snprintf(where, sizeof(where), "line %u", lineno);
		if (len > 0 && line[len - 1] == '\n')
			line[--len] = '\0';
		else if (!feof(f))
			len = sizeof(line); /* longer than the buffer */
		strlcpy(text, trim(line), sizeof(text));
		if (len > LINE_MAX_CHARS) {
			rc = fail(l, l->file, sect, where, text,
				  "lines of at most " RTE_STR(LINE_MAX_CHARS)
				  " characters", "line too long");
			break;
		}
		c = strchr(line, COMMENT_CHAR);
		if (c != NULL && (c == line || c[-1] != '\\'))
			*c = '\0';
		s = trim(line);
		if (*s == '\0' || *s == '#')
			continue;
		if (*s == '[') {
			char *end = strchr(s, ']');
			char *name;

			if (end == NULL) {
				rc = fail(l, l->file, sect, where, text,
					  "[section]", "no closing ']'");
				continue;
			}
			if (*trim(end + 1) != '\0') {
				rc = fail(l, l->file, sect, where, text,
					  "[section]", "text after ']'");
				continue;
			}
			*end = '\0';
			name = trim(s + 1);
			if (*name == '\0')
				rc = fail(l, l->file, sect, where, text,
					  SECTS_ALLOWED, "empty section name");
			else if (strlen(name) >= sizeof(sect))
				rc = fail(l, l->file, sect, where, text,
					  "section names of at most 63 "
					  "characters", "section name too long");
			else
				strlcpy(sect, name, sizeof(sect));
			continue;
		}
		eq = strchr(s, '=');
		if (eq == NULL) {
			rc = fail(l, l->file, sect, where, text,
				  "key = value, [section], ; comment, "
				  "# comment", "not a 'key = value' line");
			continue;
		}
		*eq = '\0';
		key = trim(s);
		val = trim(eq + 1);
		if (*key == '\0')
			rc = fail(l, l->file, sect, where, text, "key = value",
				  "empty key");
		else if (strcmp(sect, "-") == 0)
			rc = fail(l, l->file, sect, key, val,
				  "key = value lines inside a [section]",
				  "key outside any section");
		else if (strlen(key) >= CFG_NAME_LEN)
			rc = fail(l, l->file, sect, where, text,
				  "keys of at most 63 characters",
				  "key too long");
		else if (strlen(val) >= CFG_VALUE_LEN)
			rc = fail(l, l->file, sect, key, val,
				  "values of at most 255 characters",
				  "value too long");
	}
	fclose(f);
	return rc;
}

/* Name of section @p i (0 is rte_cfgfile's implicit GLOBAL). */
static void
sect_name(const struct loader *l, int i, char name[CFG_NAME_LEN])
{
	name[0] = '\0';
	rte_cfgfile_section_num_entries_by_index(l->cfg, name, i);
}

/* Index 0 is the GLOBAL section CFG_FLAG_GLOBAL_SECTION always creates. */
static int
check_dup_sections(struct loader *l)
{
	int n = rte_cfgfile_num_sections(l->cfg, "", 0);
	char a[CFG_NAME_LEN], b[CFG_NAME_LEN];
	int i, j;

	for (i = 2; i < n; i++) {
		sect_name(l, i, a);
		for (j = 1; j < i; j++) {
			sect_name(l, j, b);
			if (strcmp(a, b) == 0)
				return fail(l, l->file, a, "-", a,
					    "each section once",
					    "duplicate section");
		}
	}
	return 0;
}

/* ---- typed sections --------------------------------------------------- */

static int
load_keys(struct loader *l, enum profile_sect kind, const char *sect,
	  void *base, const struct rte_cfgfile_entry *e, int ne)
{
	char allowed[ALLOWED_LEN], why[128];
	int j, m;

	for (j = 0; j < ne; j++) {
		const struct profile_key *k;
		const char *file = origin(l, sect, e[j].name);

		if (e[j].name[0] == '#')
			continue;
		k = key_find(kind, e[j].name);
		if (k == NULL) {
			keys_of(kind, allowed, sizeof(allowed));
			return fail(l, file, sect, e[j].name, e[j].value,
				    allowed, "unknown key");
		}
		for (m = 0; m < j; m++)
			if (strcmp(e[m].name, e[j].name) == 0)
				return fail(l, file, sect, e[j].name,
					    e[j].value, "each key once per "
					    "section (--set overrides)",
					    "duplicate key");
		if (profile_key_parse(k, base, e[j].value, why,
				      sizeof(why)) != 0) {
			profile_key_allowed(k, allowed, sizeof(allowed));
			return fail(l, file, sect, e[j].name, e[j].value,
				    allowed, "%s", why);
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
					  profile_keys[i].def, why, sizeof(why));
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
load_port(struct loader *l, const char *sect,
	  const struct rte_cfgfile_entry *e, int ne)
{
	struct aifab_profile *p = l->p;
	const char *k0 = ne > 0 ? e[0].name : "-";
	const char *v0 = ne > 0 ? e[0].value : "";
	struct aifab_port_params *pp;

	if (!port_name_ok(sect + 5))
		return fail(l, origin(l, sect, k0), sect, k0, v0,
			    PORT_NAME_ALLOWED, "bad port name '%s'", sect + 5);
	if (p->n_ports >= AIFAB_MAX_PORTS)
		return fail(l, origin(l, sect, k0), sect, k0, v0,
			    "at most " RTE_STR(AIFAB_MAX_PORTS) " ports",
			    "too many ports");
	pp = &p->ports[p->n_ports];
	port_defaults(pp);
	strlcpy(pp->name, sect + 5, sizeof(pp->name));
	strlcpy(l->port_sect[p->n_ports], sect, CFG_NAME_LEN);
	p->n_ports++;
	return load_keys(l, PROFILE_SECT_PORT, sect, pp, e, ne);
}

static int
addr_len(uint8_t family)
{
	return family == AF_INET ? 4 : 16;
}

static void
fmt_addr(uint8_t family, const uint8_t *a, char *buf, size_t len)
{
	if (inet_ntop(family, a, buf, (socklen_t)len) == NULL)
		snprintf(buf, len, "?");
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

static int
neigh_find(const struct aifab_profile *p, uint8_t sw, uint8_t family,
	   const uint8_t *a)
{
	int i;

	for (i = 0; i < p->n_neighs; i++)
		if (p->neighs[i].sw == sw && p->neighs[i].family == family &&
		    memcmp(p->neighs[i].addr, a, 16) == 0)
			return i;
	return -1;
}

static int
load_neighbors(struct loader *l, const char *sect, uint8_t sw,
	       const struct rte_cfgfile_entry *e, int ne)
{
	struct aifab_profile *p = l->p;
	char why[128];
	int j, idx;

	for (j = 0; j < ne; j++) {
		const char *file = origin(l, sect, e[j].name);
		struct aifab_neigh_params nb;

		if (e[j].name[0] == '#')
			continue;
		memset(&nb, 0, sizeof(nb));
		nb.sw = sw;
		if (profile_parse_addr(e[j].name, &nb.family, nb.addr) != 0)
			return fail(l, file, sect, e[j].name, e[j].value,
				    NEIGH_ALLOWED,
				    "key is not an IPv4 or IPv6 address");
		if (profile_parse_mac(e[j].value, &nb.mac, why,
				      sizeof(why)) != 0)
			return fail(l, file, sect, e[j].name, e[j].value,
				    NEIGH_ALLOWED, "%s", why);
		idx = neigh_find(p, sw, nb.family, nb.addr);
		if (idx >= 0 && !from_set(l, sect, e[j].name))
			return fail(l, file, sect, e[j].name, e[j].value,
				    "each address once",
				    "duplicate neighbour, also [%s] %s",
				    sect, l->neigh_key[idx]);
		if (idx < 0) {
			if (p->n_neighs >= AIFAB_MAX_NEIGHS)
				return fail(l, file, sect, e[j].name,
					    e[j].value, "at most "
					    RTE_STR(AIFAB_MAX_NEIGHS)
					    " neighbours", "too many "
					    "neighbours");
			idx = p->n_neighs++;
		}
		p->neighs[idx] = nb;
		strlcpy(l->neigh_key[idx], e[j].name, CFG_NAME_LEN);
	}
	return 0;
}

static int
parse_route(struct loader *l, const char *sect,
	    const struct rte_cfgfile_entry *e, struct aifab_route_params *r)
{
	const char *file = origin(l, sect, e->name);
	char buf[CFG_VALUE_LEN], why[128], a[INET6_ADDRSTRLEN];
	uint8_t net[16];
	char *tok, *save = NULL;
	unsigned int i;

	memset(r, 0, sizeof(*r));
	if (profile_parse_prefix(e->name, &r->family, r->prefix, &r->depth,
				 why, sizeof(why)) != 0)
		return fail(l, file, sect, e->name, e->value, ROUTE_ALLOWED,
			    "key: %s", why);
	memcpy(net, r->prefix, sizeof(net));
	prefix_mask(net, r->depth, addr_len(r->family));
	if (memcmp(net, r->prefix, sizeof(net)) != 0) {
		fmt_addr(r->family, net, a, sizeof(a));
		return fail(l, file, sect, e->name, e->value,
			    "a prefix with host bits zero",
			    "host bits set in the prefix (network is %s/%u)",
			    a, r->depth);
	}
	strlcpy(buf, e->value, sizeof(buf));
	for (tok = strtok_r(buf, " \t,", &save); tok != NULL;
	     tok = strtok_r(NULL, " \t,", &save)) {
		uint8_t fam, nh[16];

		if (r->n_nh >= AIFAB_MAX_ECMP)
			return fail(l, file, sect, e->name, e->value,
				    ROUTE_ALLOWED, "more than "
				    RTE_STR(AIFAB_MAX_ECMP) " next hops");
		if (profile_parse_addr(tok, &fam, nh) != 0)
			return fail(l, file, sect, e->name, e->value,
				    ROUTE_ALLOWED,
				    "next hop '%s' is not an IP address", tok);
		if (fam != r->family)
			return fail(l, file, sect, e->name, e->value,
				    ROUTE_ALLOWED, "next hop '%s' is not in "
				    "the prefix's address family", tok);
		for (i = 0; i < r->n_nh; i++)
			if (memcmp(r->nh_addr[i], nh, 16) == 0)
				return fail(l, file, sect, e->name, e->value,
					    ROUTE_ALLOWED,
					    "next hop '%s' listed twice", tok);
		memcpy(r->nh_addr[r->n_nh++], nh, 16);
	}
	if (r->n_nh == 0)
		return fail(l, file, sect, e->name, e->value, ROUTE_ALLOWED,
			    "no next hop");
	return 0;
}

static int
load_routes(struct loader *l, const char *sect, uint8_t sw,
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
		if (idx >= 0 && !from_set(l, sect, e[j].name))
			return fail(l, l->file, sect, e[j].name, e[j].value,
				    "each prefix once",
				    "duplicate route, also [%s] %s",
				    sect, l->route_key[idx]);
		if (idx < 0) {
			if (p->n_routes >= AIFAB_MAX_ROUTES)
				return fail(l, origin(l, sect, e[j].name),
					    sect, e[j].name, e[j].value,
					    "at most " RTE_STR(AIFAB_MAX_ROUTES)
					    " routes", "too many routes");
			idx = p->n_routes++;
		}
		p->routes[idx] = r;
		strlcpy(l->route_key[idx], e[j].name, CFG_NAME_LEN);
	}
	return 0;
}

static int
load_section(struct loader *l, int idx, const char *name,
	     const struct rte_cfgfile_entry *e, int ne)
{
	const char *k0 = ne > 0 ? e[0].name : "-";
	const char *v0 = ne > 0 ? e[0].value : "";
	unsigned int tc;
	int kind = sect_kind(name, &tc);
	int j;

	if (idx == 0 && strcmp(name, "GLOBAL") == 0) {
		/* Implicit: holds only '#' lines that contain '='. */
		for (j = 0; j < ne; j++)
			if (e[j].name[0] != '#')
				return fail(l, l->file, "-", e[j].name,
					    e[j].value, "key = value lines "
					    "inside a [section]",
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
	if (kind == SECT_BAD_INDEX)
		return fail(l, origin(l, name, k0), name, k0, v0,
			    TC_INDEX_ALLOWED, "bad TC index '%s'", name + 3);
	if (kind >= 0)
		return load_keys(l, kind, name, sect_base(l->p, kind, tc),
				 e, ne);
	if (strcmp(name, "neighbors") == 0)
		return load_neighbors(l, name, 0, e, ne);
	if (strcmp(name, "routes") == 0)
		return load_routes(l, name, 0, e, ne);
	return fail(l, origin(l, name, k0), name, k0, v0, SECTS_ALLOWED,
		    "unknown section '%s'", name);
}

static int
load_sections(struct loader *l)
{
	int n = rte_cfgfile_num_sections(l->cfg, "", 0);
	char name[CFG_NAME_LEN];
	int i, ne, rc = 0;

	for (i = 0; i < n && rc == 0; i++) {
		struct rte_cfgfile_entry *e = NULL;

		ne = rte_cfgfile_section_num_entries_by_index(l->cfg, name, i);
		if (ne > 0) {
			e = calloc((size_t)ne, sizeof(*e));
			if (e == NULL)
				return fail(l, l->file, name, "-", "",
					    "less", "out of memory");
			ne = rte_cfgfile_section_entries_by_index(l->cfg, i,
								  name, e, ne);
		}
		rc = load_section(l, i, name, e, ne < 0 ? 0 : ne);
		free(e);
	}
	return rc;
}

/* ---- switch instances ------------------------------------------------- */

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
	     tok = strtok_r(NULL, " ,", &save))
		if (strcmp(tok, p->ports[i].name) == 0)
			return true;
	return false;
}

/* switches[0] is the default; the others in order of first use by a port. */
static int
build_switches(struct loader *l)
{
	struct aifab_profile *p = l->p;
	int i, s;

	p->n_switches = 1;
	memset(&p->switches[0], 0, sizeof(p->switches[0]));
	p->switches[0].ecmp = p->ecmp;
	for (i = 0; i < p->n_ports; i++) {
		struct aifab_port_params *pp = &p->ports[i];
		const char *si = l->port_sect[i];

		if (pp->sw_name[0] == '\0') {
			pp->sw = 0;
			p->switches[0].n_ports++;
			continue;
		}
		if (!sw_name_ok(pp->sw_name))
			return fail(l, origin(l, si, "switch"), si, "switch",
				    pp->sw_name, SW_NAME_ALLOWED " or empty",
				    "bad switch name");
		if (gen_port(p, i))
			return fail(l, origin(l, si, "switch"), si, "switch",
				    pp->sw_name, "empty on [generator] ports",
				    "port %s is a [generator] port", pp->name);
		s = sw_find(p, pp->sw_name);
		if (s < 0) {
			if (p->n_switches >= AIFAB_MAX_SWITCHES)
				return fail(l, origin(l, si, "switch"), si,
					    "switch", pp->sw_name, "at most "
					    RTE_STR(AIFAB_MAX_SWITCHES)
					    " switches, the default one "
					    "included", "too many switches");
			s = p->n_switches++;
			memset(&p->switches[s], 0, sizeof(p->switches[s]));
			strlcpy(p->switches[s].name, pp->sw_name,
				sizeof(p->switches[s].name));
			p->switches[s].ecmp = p->ecmp;
		}
		pp->sw = (uint8_t)s;
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
load_sw_section(struct loader *l, const char *name,
		const struct rte_cfgfile_entry *e, int ne)
{
	struct aifab_profile *p = l->p;
	const char *k0 = ne > 0 ? e[0].name : "-";
	const char *v0 = ne > 0 ? e[0].value : "";
	const char *sw_name;
	char allowed[ALLOWED_LEN];
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
		return fail(l, origin(l, name, k0), name, k0, v0, allowed,
			    "no port has switch = '%s'", sw_name);
	}
	if (kind == 1)
		return load_keys(l, PROFILE_SECT_SWNAMED, name,
				 &p->switches[s], e, ne);
	if (kind == 2)
		return load_neighbors(l, name, (uint8_t)s, e, ne);
	return load_routes(l, name, (uint8_t)s, e, ne);
}

static int
load_sw_sections(struct loader *l)
{
	int n = rte_cfgfile_num_sections(l->cfg, "", 0);
	char name[CFG_NAME_LEN];
	int i, ne, rc = 0;

	for (i = 0; i < n && rc == 0; i++) {
		struct rte_cfgfile_entry *e = NULL;

		ne = rte_cfgfile_section_num_entries_by_index(l->cfg, name, i);
		if (strncmp(name, "switch.", 7) != 0 &&
		    strncmp(name, "neighbors.", 10) != 0 &&
		    strncmp(name, "routes.", 7) != 0)
			continue;
		if (ne > 0) {
			e = calloc((size_t)ne, sizeof(*e));
			if (e == NULL)
				return fail(l, l->file, name, "-", "",
					    "less", "out of memory");
			ne = rte_cfgfile_section_entries_by_index(l->cfg, i,
								  name, e, ne);
		}
		rc = load_sw_section(l, name, e, ne < 0 ? 0 : ne);
		free(e);
	}
	return rc;
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

/* ---- whole-profile checks --------------------------------------------- */

static const char *
text_of(const struct loader *l, const char *sect, const char *key)
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

static int
check_port_pair(struct loader *l, int i, int j, uint8_t family)
{
	const struct aifab_profile *p = l->p;
	const char *key = family == AF_INET ? "ipv4" : "ipv6";
	const char *si = l->port_sect[i], *sj = l->port_sect[j];
	uint8_t a[16], b[16], da, db;

	if (!port_net(&p->ports[i], family, a, &da) ||
	    !port_net(&p->ports[j], family, b, &db))
		return 0;
	if (memcmp(a, b, 16) == 0)
		return fail(l, origin(l, si, key), si, key, text_of(l, si, key),
			    "an address unique among ports",
			    "duplicate address, also on [%s]", sj);
	/* Two switches' ends of one link share a subnet. */
	if (p->ports[i].sw == p->ports[j].sw &&
	    prefix_match(a, b, RTE_MIN(da, db)))
		return fail(l, origin(l, si, key), si, key, text_of(l, si, key),
			    "port subnets that do not overlap on one switch",
			    "subnet overlaps [%s] %s = %s", sj, key,
			    text_of(l, sj, key));
	return 0;
}

/* A wire names another port, not itself, not one wired elsewhere. */
static int
check_wire(struct loader *l, int i)
{
	const struct aifab_profile *p = l->p;
	const struct aifab_port_params *pi = &p->ports[i];
	const char *si = l->port_sect[i];
	int j, k;

	if (pi->wire[0] == '\0')
		return 0;
	j = aifab_profile_port_index(p, pi->wire);
	if (j < 0 || j == i)
		return fail(l, origin(l, si, "wire"), si, "wire", pi->wire,
			    "the name of another [port.<name>]",
			    j < 0 ? "no such port" : "a port cannot wire itself");
	if (pi->device[0] != '\0')
		return fail(l, origin(l, si, "wire"), si, "wire", pi->wire,
			    "wire or device, not both",
			    "the port also has device = '%s'", pi->device);
	for (k = 0; k < p->n_ports; k++) {
		const char *w = p->ports[k].wire;

		if (k == i || w[0] == '\0')
			continue;
		/* Another port wired to i or j, other than the pair itself. */
		if ((strcmp(w, pi->name) == 0 && k != j) ||
		    (strcmp(w, pi->wire) == 0) ||
		    (k == j && strcmp(w, pi->name) != 0))
			return fail(l, origin(l, si, "wire"), si, "wire",
				    pi->wire, "one cable per port",
				    "[%s] is wired too", l->port_sect[k]);
	}
	return 0;
}

static int
check_ports(struct loader *l)
{
	const struct aifab_profile *p = l->p;
	int i, j;

	if (p->n_ports == 0)
		return fail(l, l->file, "port.<name>", "-", "",
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
				return fail(l, origin(l, si, "device"), si,
					    "device", pi->device,
					    "a device unique among ports, or "
					    "empty = bind by order",
					    "device also used by [%s]",
					    l->port_sect[j]);
			if (pi->has_mac && pj->has_mac &&
			    rte_is_same_ether_addr(&pi->mac, &pj->mac))
				return fail(l, origin(l, si, "mac"), si, "mac",
					    text_of(l, si, "mac"),
					    "a MAC unique among ports",
					    "duplicate MAC, also on [%s]",
					    l->port_sect[j]);
			if (check_port_pair(l, i, j, AF_INET) != 0 ||
			    check_port_pair(l, i, j, AF_INET6) != 0)
				return -1;
		}
	}
	return 0;
}

static int
check_neighbors(struct loader *l)
{
	struct aifab_profile *p = l->p;
	char allowed[ALLOWED_LEN], sect[CFG_NAME_LEN];
	uint8_t net[16], depth;
	int i, j;

	for (i = 0; i < p->n_neighs; i++) {
		struct aifab_neigh_params *nb = &p->neighs[i];
		const char *key = l->neigh_key[i];
		const char *file;
		int found = -1;

		sw_sect(p, "neighbors", nb->sw, sect, sizeof(sect));
		file = origin(l, sect, key);
		for (j = 0; j < p->n_ports && found < 0; j++) {
			if (p->ports[j].sw != nb->sw ||
			    !port_net(&p->ports[j], nb->family, net, &depth) ||
			    !prefix_match(net, nb->addr, depth))
				continue;
			if (memcmp(net, nb->addr, 16) == 0)
				return fail(l, file, sect, key,
					    text_of(l, sect, key),
					    "an address other than the ports'",
					    "neighbour address is [%s]'s own",
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
				return fail(l, file, sect, key,
					    text_of(l, sect, key), allowed,
					    "neighbour is not inside any "
					    "port's subnet");
			return fail(l, file, sect, key, text_of(l, sect, key),
				    allowed, "neighbour is not inside the "
				    "subnet of any port of switch %s",
				    p->switches[nb->sw].name);
		}
		nb->port = (uint16_t)found;
	}
	return 0;
}

static int
check_routes(struct loader *l)
{
	struct aifab_profile *p = l->p;
	char a[INET6_ADDRSTRLEN], sect[CFG_NAME_LEN], nsect[CFG_NAME_LEN];
	char allowed[ALLOWED_LEN];
	int i, j, idx;

	for (i = 0; i < p->n_routes; i++) {
		struct aifab_route_params *r = &p->routes[i];
		const char *key = l->route_key[i];

		sw_sect(p, "routes", r->sw, sect, sizeof(sect));
		sw_sect(p, "neighbors", r->sw, nsect, sizeof(nsect));
		for (j = 0; j < r->n_nh; j++) {
			idx = neigh_find(p, r->sw, r->family, r->nh_addr[j]);
			if (idx < 0) {
				fmt_addr(r->family, r->nh_addr[j], a,
					 sizeof(a));
				snprintf(allowed, sizeof(allowed),
					 "next hops that are [%s] entries",
					 nsect);
				return fail(l, origin(l, sect, key),
					    sect, key, text_of(l, sect, key),
					    allowed, "route to nowhere: "
					    "next hop %s is not a configured "
					    "neighbour%s%s", a, r->sw != 0 ?
					    " of switch " : "",
					    p->switches[r->sw].name);
			}
			r->nh_neigh[j] = (uint16_t)idx;
		}
	}
	return 0;
}

/*
 * The text of @p key in @p sect; for a key left at its default, which has
 * no text, @p v printed into @p buf.
 */
static const char *
text_or_value(const struct loader *l, const char *sect, const char *key,
	      uint64_t v, char *buf, size_t len)
{
	const char *t = rte_cfgfile_get_entry(l->cfg, sect, key);

	if (t != NULL)
		return t;
	snprintf(buf, len, "%" PRIu64, v);
	return buf;
}

/* For a why naming a second key: where that key's value came from. */
static const char *
set_note(const struct loader *l, const char *sect, const char *key)
{
	return from_set(l, sect, key) ? " (from --set)" : "";
}

/* Each TC against itself and the shared buffer. */
static int
check_tcs(struct loader *l)
{
	const struct aifab_profile *p = l->p;
	char sect[CFG_NAME_LEN], allowed[ALLOWED_LEN], val[32];
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
			return fail(l, origin(l, sect, key), sect, key,
				    text_or_value(l, sect, key,
						  tc->queue_limit_bytes, val,
						  sizeof(val)), allowed,
				    "above [qos] buffer_bytes = %" PRIu64,
				    p->qos.buffer_bytes);
		}
		key = "ecn_kmin_bytes";
		if (tc->ecn_kmin_bytes > tc->ecn_kmax_bytes) {
			snprintf(allowed, sizeof(allowed), "0..%" PRIu32
				 " (at most ecn_kmax_bytes)",
				 tc->ecn_kmax_bytes);
			return fail(l, origin(l, sect, key), sect, key,
				    text_or_value(l, sect, key,
						  tc->ecn_kmin_bytes, val,
						  sizeof(val)), allowed,
				    "above ecn_kmax_bytes = %" PRIu32 "%s",
				    tc->ecn_kmax_bytes,
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
			return fail(l, origin(l, sect, key), sect, key,
				    text_or_value(l, sect, key, xon, val,
						  sizeof(val)), allowed,
				    "not below pfc_xoff_bytes = %" PRIu32 "%s",
				    tc->pfc_xoff_bytes,
				    set_note(l, sect, "pfc_xoff_bytes"));
		}
	}
	return 0;
}

/* A port's PFC overrides: XON below a static XOFF once resolved. */
static int
check_ports_pfc(struct loader *l)
{
	const struct aifab_profile *p = l->p;
	char sect[CFG_NAME_LEN], allowed[ALLOWED_LEN], val[32];
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
			return fail(l, origin(l, sect, key), sect, key,
				    text_or_value(l, sect, key, xon, val,
						  sizeof(val)), allowed,
				    "not below pfc_xoff_bytes = %" PRIu32
				    " (lossless [tc.%u]%s)", e.xoff_bytes, n,
				    pp->has_pfc_xoff ? "" : ": the TC's");
		}
	}
	return 0;
}

/* ---- the embedded default --------------------------------------------- */

/* Put the embedded text in a file rte_cfgfile can open. */
static int
embedded_open(char *path, size_t len, int *fdp, bool *unlink_it)
{
	static const char text[] = AIFAB_PROFILE_DEFAULT_TEXT;
	size_t off = 0;
	ssize_t w;
	int fd;

	*unlink_it = false;
	fd = memfd_create("aifab-profile", MFD_CLOEXEC);
	if (fd >= 0) {
		snprintf(path, len, "/proc/self/fd/%d", fd);
		if (access(path, R_OK) != 0) {
			close(fd);
			fd = -1;
		}
	}
	if (fd < 0) {
		const char *dir = getenv("TMPDIR");

		snprintf(path, len, "%s/aifab-profile-XXXXXX",
			 dir != NULL ? dir : "/tmp");
		fd = mkstemp(path);
		if (fd < 0)
			return -1;
		*unlink_it = true;
	}
	while (off < sizeof(text) - 1) {
		w = write(fd, text + off, sizeof(text) - 1 - off);
		if (w <= 0) {
			if (w < 0 && errno == EINTR)
				continue;
			close(fd);
			if (*unlink_it)
				unlink(path);
			return -1;
		}
		off += (size_t)w;
	}
	*fdp = fd;
	return 0;
}

/* ---- public ----------------------------------------------------------- */

void
aifab_profile_defaults(struct aifab_profile *p)
{
	char why[128];
	unsigned int i;

	memset(p, 0, sizeof(*p));
	for (i = 0; i < profile_n_keys; i++) {
		const struct profile_key *k = &profile_keys[i];
		unsigned int n = k->sect == PROFILE_SECT_TC ? AIFAB_N_TC : 1;
		unsigned int idx;

		if (k->sect == PROFILE_SECT_PORT ||
		    k->sect == PROFILE_SECT_SWNAMED)
			continue;
		for (idx = 0; idx < n; idx++)
			if (profile_key_def(k, idx) != NULL)
				profile_key_parse(k, sect_base(p, k->sect, idx),
						  profile_key_def(k, idx), why,
						  sizeof(why));
	}
}

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
aifab_profile_load(struct aifab_profile *p, const char *path,
		   const char *const *sets, unsigned int n_sets,
		   char *err, size_t errlen)
{
	const struct rte_cfgfile_parameters params = {
		.comment_character = COMMENT_CHAR,
	};
	char src[PATH_MAX];
	bool unlink_it = false;
	struct loader *l;
	unsigned int i;
	int fd = -1, rc;

	if (err != NULL && errlen > 0)
		err[0] = '\0';
	aifab_profile_defaults(p);
	strlcpy(p->path, path != NULL ? path : EMBEDDED_FILE, sizeof(p->path));
	l = calloc(1, sizeof(*l));
	if (l == NULL) {
		if (err != NULL && errlen > 0) {
			strlcpy(err, p->path, errlen);
			strlcat(err, ": out of memory", errlen);
		}
		return -1;
	}
	l->p = p;
	l->file = p->path;
	l->sets = sets;
	l->n_sets = sets != NULL ? n_sets : 0;
	l->err = err;
	l->errlen = errlen;

	if (path == NULL && embedded_open(src, sizeof(src), &fd,
					  &unlink_it) != 0)
		rc = fail(l, l->file, "-", "-", "", "a writable memfd or "
			  "$TMPDIR", "cannot stage the embedded profile: %s",
			  strerror(errno));
	else
		rc = check_lines(l, path != NULL ? path : src);
	if (rc == 0) {
		l->cfg = rte_cfgfile_load_with_params(path != NULL ? path : src,
			CFG_FLAG_GLOBAL_SECTION | CFG_FLAG_EMPTY_VALUES,
			&params);
		if (l->cfg == NULL)
			rc = fail(l, l->file, "-", "-", "", "an INI file",
				  "rte_cfgfile_load failed");
	}
	if (fd >= 0)
		close(fd);
	if (unlink_it)
		unlink(src);

	if (rc == 0)
		rc = check_dup_sections(l);
	for (i = 0; rc == 0 && i < l->n_sets; i++)
		rc = apply_set(l, sets[i]);
	if (rc == 0)
		rc = load_sections(l);
	if (rc == 0)
		rc = build_switches(l);
	if (rc == 0)
		rc = load_sw_sections(l);
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

	if (l->cfg != NULL)
		rte_cfgfile_close(l->cfg);
	free(l);
	return rc;
}
