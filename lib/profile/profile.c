/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Profile loading: rte_cfgfile reads the text (after a line check that turns
 * what it would reject or silently skip into one-line errors), --set edits
 * the text, then the sections are parsed into struct aifab_profile through
 * the key table (profile_sections.c) and the whole profile is validated
 * (profile_validate.c). Nothing here prints. profile_priv.h lists the
 * files below this one.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>

#include <rte_cfgfile.h>
#include <rte_common.h>
#include <rte_string_fns.h>

#include "profile_priv.h"
#include "profile_default.h" /* generated: AIFAB_PROFILE_DEFAULT_TEXT */

#define EMBEDDED_FILE "<embedded demo.ini>"
#define COMMENT_CHAR ';'
/* rte_cfgfile reads lines into a CFG_NAME_LEN + CFG_VALUE_LEN + 4 buffer. */
#define LINE_MAX_CHARS (CFG_NAME_LEN + CFG_VALUE_LEN + 2)
#define SET_ALLOWED "section.key=value with section one of " \
	PROFILE_SECTS_ALLOWED

/* ---- --set ------------------------------------------------------------ */

/* One --set into the text, as if the file had said it (last word wins). */
static int
apply_set(struct profile_loader *l, const char *s)
{
	char allowed[PROFILE_ALLOWED_LEN];
	struct profile_set_parts sp;
	const char *why = profile_set_split(s, &sp);
	unsigned int idx;
	int kind, rc;

	if (why != NULL)
		return profile_fail(l, PROFILE_SET_FILE, sp.sect, sp.key,
				    sp.val, SET_ALLOWED, "%s in '%s'", why, s);
	kind = profile_sect_kind(sp.sect, &idx);
	if (kind == PROFILE_SECT_BAD_INDEX)
		return profile_fail(l, PROFILE_SET_FILE, sp.sect, sp.key,
				    sp.val, PROFILE_TC_INDEX_ALLOWED,
				    "bad TC index '%s'", sp.sect + 3);
	if (kind >= 0 && profile_key_find(kind, sp.key) == NULL) {
		profile_keys_of(kind, allowed, sizeof(allowed));
		return profile_fail(l, PROFILE_SET_FILE, sp.sect, sp.key,
				    sp.val, allowed, "unknown key");
	}
	if (!rte_cfgfile_has_section(l->cfg, sp.sect) &&
	    rte_cfgfile_add_section(l->cfg, sp.sect) != 0)
		return profile_fail(l, PROFILE_SET_FILE, sp.sect, sp.key,
				    sp.val, SET_ALLOWED, "out of memory");
	if (rte_cfgfile_has_entry(l->cfg, sp.sect, sp.key))
		rc = rte_cfgfile_set_entry(l->cfg, sp.sect, sp.key, sp.val);
	else
		rc = rte_cfgfile_add_entry(l->cfg, sp.sect, sp.key, sp.val);
	if (rc != 0)
		return profile_fail(l, PROFILE_SET_FILE, sp.sect, sp.key,
				    sp.val, SET_ALLOWED,
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
check_lines(struct profile_loader *l, const char *src)
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
		strlcpy(text, profile_trim(line), sizeof(text));
		if (len > LINE_MAX_CHARS) {
			rc = profile_fail(l, l->file, sect, where, text,
					  "lines of at most "
					  RTE_STR(LINE_MAX_CHARS)
					  " characters", "line too long");
			break;
		}
		c = strchr(line, COMMENT_CHAR);
		if (c != NULL && (c == line || c[-1] != '\\'))
			*c = '\0';
		s = profile_trim(line);
		if (*s == '\0' || *s == '#')
			continue;
		if (*s == '[') {
			char *end = strchr(s, ']');
			char *name;

			if (end == NULL) {
				rc = profile_fail(l, l->file, sect, where, text,
						  "[section]",
						  "no closing ']'");
				continue;
			}
			if (*profile_trim(end + 1) != '\0') {
				rc = profile_fail(l, l->file, sect, where, text,
						  "[section]",
						  "text after ']'");
				continue;
			}
			*end = '\0';
			name = profile_trim(s + 1);
			if (*name == '\0')
				rc = profile_fail(l, l->file, sect, where, text,
						  PROFILE_SECTS_ALLOWED,
						  "empty section name");
			else if (strlen(name) >= sizeof(sect))
				rc = profile_fail(l, l->file, sect, where, text,
						  "section names of at most 63 "
						  "characters",
						  "section name too long");
			else
				strlcpy(sect, name, sizeof(sect));
			continue;
		}
		eq = strchr(s, '=');
		if (eq == NULL) {
			rc = profile_fail(l, l->file, sect, where, text,
					  "key = value, [section], ; comment, "
					  "# comment",
					  "not a 'key = value' line");
			continue;
		}
		*eq = '\0';
		key = profile_trim(s);
		val = profile_trim(eq + 1);
		if (*key == '\0')
			rc = profile_fail(l, l->file, sect, where, text,
					  "key = value", "empty key");
		else if (strcmp(sect, "-") == 0)
			rc = profile_fail(l, l->file, sect, key, val,
					  "key = value lines inside a "
					  "[section]",
					  "key outside any section");
		else if (strlen(key) >= CFG_NAME_LEN)
			rc = profile_fail(l, l->file, sect, where, text,
					  "keys of at most 63 characters",
					  "key too long");
		else if (strlen(val) >= CFG_VALUE_LEN)
			rc = profile_fail(l, l->file, sect, key, val,
					  "values of at most 255 characters",
					  "value too long");
	}
	/* A read that failed (a directory given as the profile: EISDIR)
	 * is not an empty profile. */
	if (rc == 0 && ferror(f)) {
		if (l->err != NULL && l->errlen != 0)
			snprintf(l->err, l->errlen, "%s: cannot read: %s",
				 l->file, strerror(errno));
		rc = -1;
	}
	fclose(f);
	return rc;
}

/* Name of section @p i (0 is rte_cfgfile's implicit GLOBAL). */
static void
sect_name(const struct profile_loader *l, int i, char name[CFG_NAME_LEN])
{
	name[0] = '\0';
	rte_cfgfile_section_num_entries_by_index(l->cfg, name, i);
}

/* Index 0 is the GLOBAL section CFG_FLAG_GLOBAL_SECTION always creates. */
static int
check_dup_sections(struct profile_loader *l)
{
	int n = rte_cfgfile_num_sections(l->cfg, "", 0);
	char a[CFG_NAME_LEN], b[CFG_NAME_LEN];
	int i, j;

	for (i = 2; i < n; i++) {
		sect_name(l, i, a);
		for (j = 1; j < i; j++) {
			sect_name(l, j, b);
			if (strcmp(a, b) == 0)
				return profile_fail(l, l->file, a, "-", a,
						    "each section once",
						    "duplicate section");
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
aifab_profile_free(struct aifab_profile *p)
{
	if (p == NULL)
		return;
	free(p->routes);
	p->routes = NULL;
	p->n_routes = 0;
	p->cap_routes = 0;
}

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
				profile_key_parse(k,
						  profile_sect_base(p, k->sect,
								    idx),
						  profile_key_def(k, idx), why,
						  sizeof(why));
	}
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
	struct profile_loader *l;
	unsigned int i;
	int fd = -1, rc;

	if (err != NULL && errlen > 0)
		err[0] = '\0';
	aifab_profile_free(p);
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
		rc = profile_fail(l, l->file, "-", "-", "",
				  "a writable memfd or "
				  "$TMPDIR",
				  "cannot stage the embedded profile: %s",
				  strerror(errno));
	else
		rc = check_lines(l, path != NULL ? path : src);
	if (rc == 0) {
		l->cfg = rte_cfgfile_load_with_params(path != NULL ? path : src,
			CFG_FLAG_GLOBAL_SECTION | CFG_FLAG_EMPTY_VALUES,
			&params);
		if (l->cfg == NULL)
			rc = profile_fail(l, l->file, "-", "-", "",
					  "an INI file",
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
		rc = profile_load_sections(l);
	if (rc == 0)
		rc = profile_build_switches(l);
	if (rc == 0)
		rc = profile_load_sw_sections(l);
	if (rc == 0)
		rc = profile_validate(l);
	if (rc == 0 && profile_digest(l->cfg, p->digest) != 0)
		rc = profile_fail(l, l->file, "-", "-", "", "more memory",
				  "out of memory for the profile digest");

	if (l->cfg != NULL)
		rte_cfgfile_close(l->cfg);
	profile_routes_done(l);
	free(l);
	return rc;
}
