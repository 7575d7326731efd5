/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Shipped profiles by name: `--profile NAME` and `--list-profiles`.
 *
 * An existing file always wins, and so does anything that starts as a path
 * ("/", "./", "../"): profile loading reports it if it cannot be read. Any
 * other NAME (`demo`, `scenarios/loss`, `.ini` optional) is looked up in
 * the shipped profile directories, in this order:
 *
 *   1. the source tree's profiles/, when this binary is the build tree's
 *      app/dpdk-aifab (AIFAB_BUILD_EXE: a build runs what it was built
 *      from, not an older installed copy);
 *   2. <directory of the binary>/../share/dpdk-aifab/profiles (an install
 *      under any prefix, or a package unpacked anywhere with dpkg -x);
 *   3. the configured <prefix>/<datadir>/dpdk-aifab/profiles.
 */
#include <dirent.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "aifab_version.h"
#include "app.h"

#define N_DIRS 3
#define MAX_DEPTH 4 /* profiles/scenarios/... */

struct dirs {
	unsigned int n;
	char d[N_DIRS][PATH_MAX];
};

static bool
is_file(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 && !S_ISDIR(st.st_mode);
}

static bool
is_dir(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

/* a + b, resolved when it exists (for messages and the report). */
static void
add_dir(struct dirs *ds, const char *a, const char *b)
{
	char *dir = ds->d[ds->n], joined[PATH_MAX];
	unsigned int i;

	if (snprintf(joined, sizeof(joined), "%s%s", a, b) >=
	    (int)sizeof(joined))
		return;
	if (realpath(joined, dir) == NULL)
		memcpy(dir, joined, sizeof(joined));
	for (i = 0; i < ds->n; i++)
		if (strcmp(ds->d[i], dir) == 0)
			return;
	ds->n++;
}

/* Where shipped profiles may be, in lookup order. */
static void
profile_dirs(struct dirs *ds)
{
	char exe[PATH_MAX], build_exe[PATH_MAX];
	char *slash;

	ds->n = 0;
	if (realpath("/proc/self/exe", exe) == NULL)
		exe[0] = '\0';
	if (exe[0] != '\0' && realpath(AIFAB_BUILD_EXE, build_exe) != NULL &&
	    strcmp(exe, build_exe) == 0)
		add_dir(ds, AIFAB_SOURCE_ROOT, "/profiles");
	slash = strrchr(exe, '/');
	if (slash != NULL) {
		*slash = '\0';
		add_dir(ds, exe, "/../share/dpdk-aifab/profiles");
	}
	add_dir(ds, AIFAB_PROFILES_DIR, "");
}

static bool
ends_with(const char *s, const char *suffix)
{
	size_t n = strlen(s), m = strlen(suffix);

	return n >= m && strcmp(s + n - m, suffix) == 0;
}

static bool
is_path(const char *arg)
{
	return arg[0] == '/' || strncmp(arg, "./", 2) == 0 ||
	       strncmp(arg, "../", 3) == 0 || is_file(arg);
}

int
app_profile_find(const char *arg, char *path, size_t len, char *err,
		 size_t errlen)
{
	const char *ext = ends_with(arg, ".ini") ? "" : ".ini";
	struct dirs ds;
	size_t off;
	unsigned int i;

	if (is_path(arg) || arg[0] == '\0') {
		snprintf(path, len, "%s", arg);
		return 0;
	}
	profile_dirs(&ds);
	for (i = 0; i < ds.n; i++)
		if ((size_t)snprintf(path, len, "%s/%s%s", ds.d[i], arg, ext) <
		    len && is_file(path))
			return 0;
	off = (size_t)snprintf(err, errlen, "--profile '%s': no such file, "
			       "and no shipped profile %s%s in", arg, arg, ext);
	for (i = 0; i < ds.n && off < errlen; i++)
		off += (size_t)snprintf(err + off, errlen - off, "%s %s",
					i ? "," : "", ds.d[i]);
	if (off < errlen)
		snprintf(err + off, errlen - off, "; allowed: a profile file, "
			 "or a name --list-profiles lists");
	return -1;
}

/* The first comment line of a profile, without ';' / '#' and blanks. */
static void
first_comment(const char *path, char *out, size_t len)
{
	char line[512];
	char *s, *e;
	FILE *f = fopen(path, "r");

	out[0] = '\0';
	if (f == NULL)
		return;
	while (fgets(line, sizeof(line), f) != NULL) {
		s = line + strspn(line, " \t");
		if (*s != ';' && *s != '#')
			continue;
		s += strspn(s, ";# \t");
		e = s + strcspn(s, "\r\n");
		*e = '\0';
		if (*s != '\0') {
			snprintf(out, len, "%s", s);
			break;
		}
	}
	fclose(f);
}

static int
skip_hidden(const struct dirent *e)
{
	return e->d_name[0] != '.';
}

/* Files first, then subdirectories, each in name order. */
static void
list_dir(FILE *f, const char *dir, const char *prefix, int depth)
{
	char path[PATH_MAX], name[PATH_MAX], what[256];
	struct dirent **ents;
	int n, i, pass;

	n = scandir(dir, &ents, skip_hidden, alphasort);
	if (n < 0)
		return;
	for (pass = 0; pass < 2; pass++)
		for (i = 0; i < n; i++) {
			const char *d = ents[i]->d_name;

			if (snprintf(path, sizeof(path), "%s/%s", dir, d) >=
			    (int)sizeof(path) ||
			    snprintf(name, sizeof(name), "%s%s/", prefix, d) >=
			    (int)sizeof(name))
				continue;
			if (pass == 0 && ends_with(d, ".ini") && is_file(path)) {
				name[strlen(name) - 5] = '\0'; /* ".ini/" */
				first_comment(path, what, sizeof(what));
				fprintf(f, "  %-34s %s\n", name, what);
			} else if (pass == 1 && depth < MAX_DEPTH &&
				   is_dir(path)) {
				list_dir(f, path, name, depth + 1);
			}
		}
	for (i = 0; i < n; i++)
		free(ents[i]);
	free(ents);
}

int
app_profiles_list(FILE *f)
{
	struct dirs ds;
	unsigned int i;

	profile_dirs(&ds);
	for (i = 0; i < ds.n; i++)
		if (is_dir(ds.d[i]))
			break;
	if (i == ds.n) {
		fprintf(stderr, "dpdk-aifab: no shipped profiles: none of");
		for (i = 0; i < ds.n; i++)
			fprintf(stderr, "%s %s", i ? "," : "", ds.d[i]);
		fprintf(stderr, " exists\n");
		return -1;
	}
	fprintf(f, "Shipped profiles in %s (--profile NAME):\n", ds.d[i]);
	list_dir(f, ds.d[i], "", 1);
	return 0;
}
