/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The loader's text: trimming, splitting one --set, which source (the file
 * or a --set) the last word on a key came from, and the one-line error that
 * names file, [section], key, value, why and what is allowed. Calls only
 * the value checks (profile_parse.c).
 */
#include <ctype.h>
#include <stdarg.h>
#include <string.h>

#include <rte_common.h>
#include <rte_string_fns.h>

#include "profile_priv.h"

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

int
profile_vfail(const struct profile_loader *l, const char *file,
	      const char *sect, const char *key, const char *val,
	      const char *allowed, const char *fmt, va_list ap)
{
	char why[256], v[ERR_VAL_MAX + 4];

	if (l->err == NULL || l->errlen == 0)
		return -1;
	vsnprintf(why, sizeof(why), fmt, ap);
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

int
profile_fail(const struct profile_loader *l, const char *file,
	     const char *sect, const char *key, const char *val,
	     const char *allowed, const char *fmt, ...)
{
	va_list ap;
	int rc;

	va_start(ap, fmt);
	rc = profile_vfail(l, file, sect, key, val, allowed, fmt, ap);
	va_end(ap);
	return rc;
}

char *
profile_trim(char *s)
{
	char *e;

	while (isspace((unsigned char)*s))
		s++;
	e = s + strlen(s);
	while (e > s && isspace((unsigned char)e[-1]))
		*--e = '\0';
	return s;
}

/*
 * Split at the dot that ends a known section name. On error @p sp holds as
 * much as could be split and the reason is returned; NULL on success.
 */
const char *
profile_set_split(const char *s, struct profile_set_parts *sp)
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
	t = profile_trim(lhs);
	if (eq != NULL && strlcpy(sp->val, eq + 1, sizeof(sp->val)) >=
	    sizeof(sp->val))
		return "value too long";
	if (eq != NULL) {
		char *v = profile_trim(sp->val);

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
		if (profile_sw_name_ok(nm)) {
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
const char *
profile_origin(const struct profile_loader *l, const char *sect,
	       const char *key)
{
	struct profile_set_parts sp;
	unsigned int i;

	for (i = 0; i < l->n_sets; i++)
		if (profile_set_split(l->sets[i], &sp) == NULL &&
		    strcmp(sp.sect, sect) == 0 && strcmp(sp.key, key) == 0)
			return PROFILE_SET_FILE;
	return l->file;
}

bool
profile_from_set(const struct profile_loader *l, const char *sect,
		 const char *key)
{
	return strcmp(profile_origin(l, sect, key), PROFILE_SET_FILE) == 0;
}
