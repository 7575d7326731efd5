/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Helpers shared by the exporters: instance labels, name patterns, a
 * chart's axis top, files replaced whole.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "stats_priv.h"

/* Prometheus label value: escape backslash, double quote and newline. */
static void
prom_escape(const char *s, char *out, size_t len)
{
	size_t o = 0;

	for (; *s != '\0' && o + 3 < len; s++) {
		if (*s == '\\' || *s == '"') {
			out[o++] = '\\';
			out[o++] = *s;
		} else if (*s == '\n') {
			out[o++] = '\\';
			out[o++] = 'n';
		} else {
			out[o++] = *s;
		}
	}
	out[o] = '\0';
}

const char *
stats_instance_label(const struct aifab_stats_set *s, unsigned int id,
		     unsigned int inst, enum stats_label_style style,
		     char *buf, size_t len)
{
	enum aifab_stats_scope scope = s->descs[id].scope;
	bool prom = style == STATS_LABEL_PROM;
	const char *tck = scope == AIFAB_STATS_PORT_PRIO ? "priority" : "tc";
	const char *tcs = scope == AIFAB_STATS_PORT_PRIO ? "prio" : "tc";
	char port[2 * STATS_NAME_MAX];
	int p = aifab_stats_instance_port(s, id, inst);

	if (p >= 0 && prom)
		prom_escape(s->port_names[p], port, sizeof(port));
	else if (p >= 0)
		snprintf(port, sizeof(port), "%s", s->port_names[p]);
	switch (scope) {
	case AIFAB_STATS_PORT:
		snprintf(buf, len, prom ? "port=\"%s\"" : "%s", port);
		break;
	case AIFAB_STATS_PORT_TC:
	case AIFAB_STATS_PORT_PRIO:
		if (prom)
			snprintf(buf, len, "port=\"%s\",%s=\"%u\"", port, tck,
				 inst % s->n_tcs);
		else
			snprintf(buf, len, "%s %s%u", port, tcs,
				 inst % s->n_tcs);
		break;
	case AIFAB_STATS_LCORE:
		snprintf(buf, len, prom ? "lcore=\"%u\"" : "lcore %u",
			 s->block_lcore[inst]);
		break;
	default:
		snprintf(buf, len, "%s", prom ? "" : "total");
	}
	return buf;
}

bool
stats_name_matches(const struct aifab_stats_set *s, unsigned int id,
		   const char *pat)
{
	size_t n = strlen(pat);

	if (n > 0 && pat[n - 1] == '*')
		return strncmp(s->descs[id].name, pat, n - 1) == 0;
	return strcmp(s->descs[id].name, pat) == 0;
}

double
aifab_stats_nice_ceil(double m)
{
	static const double steps[] = { 1, 2, 2.5, 5, 10 };
	double p = 1;
	unsigned int i;

	if (!(m > 0))
		return 1;
	while (p * 10 <= m)
		p *= 10;
	while (p > m)
		p /= 10;
	for (i = 0; i < sizeof(steps) / sizeof(steps[0]); i++)
		if (steps[i] * p >= m)
			return steps[i] * p;
	return 10 * p;
}

/* The directory part of @p path: "." when it has none, "/" for a file
 * in the root. 0, or -1 with errno ENAMETOOLONG. */
static int
path_dir(const char *path, char *dir, size_t dirlen)
{
	char *slash;

	if (dirlen == 0 ||
	    (size_t)snprintf(dir, dirlen, "%s", path) >= dirlen) {
		errno = ENAMETOOLONG;
		return -1;
	}
	slash = strrchr(dir, '/');
	if (slash == NULL)
		snprintf(dir, dirlen, ".");
	else if (slash == dir)
		dir[1] = '\0';
	else
		*slash = '\0';
	return 0;
}

/* The descriptor @p path names when it is one of the process's open
 * files (/dev/stdout, /dev/fd/1, /proc/self/fd/1), else -1. */
static int
fd_named(const char *path)
{
	char buf[PATH_MAX], dir[PATH_MAX], own[64], *end;
	const char *name;
	ssize_t n = readlink(path, buf, sizeof(buf) - 1);
	long fd;

	if (n > 0) { /* /dev/stdout -> /proc/self/fd/1 */
		buf[n] = '\0';
		if (strncmp(buf, "/proc/self/fd/", 14) == 0)
			path = buf;
	}
	name = strrchr(path, '/');
	if (name == NULL || name == path ||
	    path_dir(path, dir, sizeof(dir)) != 0)
		return -1;
	fd = strtol(name + 1, &end, 10);
	snprintf(own, sizeof(own), "/proc/%ld/fd", (long)getpid());
	if (*end != '\0' || end == name + 1 || fd < 0 || fd > INT_MAX ||
	    realpath(dir, buf) == NULL || strcmp(buf, own) != 0)
		return -1;
	return (int)fd;
}

/* How aifab_stats_file_open() writes @p path: through descriptor *@p fd
 * (one of the process's open files), in place (not a regular file), or
 * replaced whole by a temporary beside *@p target (@p path itself, or a
 * link's file, put in @p real: PATH_MAX bytes). */
enum file_way { FILE_FD, FILE_IN_PLACE, FILE_REPLACED };

static enum file_way
file_way(const char *path, int *fd, char *real, const char **target)
{
	struct stat st;

	*target = path;
	*fd = fd_named(path);
	if (*fd >= 0)
		return FILE_FD;
	if (stat(path, &st) == 0 && !S_ISREG(st.st_mode))
		return FILE_IN_PLACE;
	/* A symbolic link to a file: the file is replaced, the link kept. */
	if (lstat(path, &st) == 0 && S_ISLNK(st.st_mode) &&
	    realpath(path, real) != NULL)
		*target = real;
	return FILE_REPLACED;
}

int
aifab_stats_file_check(const char *path, char *dir, size_t dirlen)
{
	char real[PATH_MAX];
	const char *target;
	struct stat st;
	int fd, fl;

	if (dirlen == 0) {
		errno = ENAMETOOLONG;
		return -1;
	}
	dir[0] = '\0';
	switch (file_way(path, &fd, real, &target)) {
	case FILE_FD: /* open for writing? */
		fl = fcntl(fd, F_GETFL);
		if (fl < 0)
			return -1;
		if ((fl & O_ACCMODE) == O_RDONLY) {
			errno = EBADF;
			return -1;
		}
		return 0;
	case FILE_IN_PLACE:
		if (stat(path, &st) == 0 && S_ISDIR(st.st_mode)) {
			errno = EISDIR;
			return -1;
		}
		return access(path, W_OK);
	case FILE_REPLACED:
		break;
	}
	/* "<target>.tmp" made, then renamed, in target's directory */
	if (strlen(target) + 4 >= PATH_MAX) {
		errno = ENAMETOOLONG;
		return -1;
	}
	return aifab_stats_dir_ok(target, dir, dirlen);
}

int
aifab_stats_dir_ok(const char *path, char *dir, size_t dirlen)
{
	struct stat st;

	if (path_dir(path, dir, dirlen) != 0) {
		if (dirlen > 0)
			dir[0] = '\0';
		return -1;
	}
	if (stat(dir, &st) != 0)
		return -1;
	if (!S_ISDIR(st.st_mode)) {
		errno = ENOTDIR;
		return -1;
	}
	return access(dir, W_OK | X_OK);
}

FILE *
aifab_stats_file_open(const char *path, char *tmp, size_t tmplen)
{
	char real[PATH_MAX];
	const char *target;
	int fd;
	FILE *f;

	if (tmplen == 0) {
		errno = ENAMETOOLONG;
		return NULL;
	}
	tmp[0] = '\0';
	switch (file_way(path, &fd, real, &target)) {
	case FILE_FD:
		/* One of the process's open files (/dev/stdout): written
		 * through a copy of that descriptor, so at its offset, after
		 * what stdio holds for it (a shell's `> out.txt` gets the
		 * console lines, then this, then the rest). A rename would
		 * replace the node itself. */
		fflush(stdout);
		fflush(stderr);
		fd = dup(fd);
		f = fd < 0 ? NULL : fdopen(fd, "w");
		if (f == NULL && fd >= 0)
			close(fd);
		break;
	case FILE_IN_PLACE: /* a FIFO, /dev/null: as FILE_FD */
		f = fopen(path, "w");
		break;
	case FILE_REPLACED:
	default:
		if ((size_t)snprintf(tmp, tmplen, "%s.tmp", target) >=
		    tmplen) {
			errno = ENAMETOOLONG;
			return NULL;
		}
		f = fopen(tmp, "w");
		break;
	}
	if (f != NULL)
		errno = 0; /* a failed write's, at the commit */
	return f;
}

int
aifab_stats_file_commit(FILE *f, const char *tmp, int rc)
{
	char target[PATH_MAX];
	size_t n = strlen(tmp);

	/* A write that failed set the stream's error and errno (a full disk:
	 * ENOSPC; the writers say -EIO for a stream error), which nothing
	 * since the open cleared. */
	if ((rc == 0 || rc == -EIO) && ferror(f))
		rc = errno != 0 ? -errno : -EIO;
	if (rc == 0 && fflush(f) != 0)
		rc = -errno;
	/* written in place (no temporary): a pipe or a device, no fsync */
	if (rc == 0 && n > 0 && fsync(fileno(f)) != 0)
		rc = -errno;
	if (fclose(f) != 0 && rc == 0)
		rc = -errno;
	if (n == 0)
		return rc;
	/* the temporary is "<target>.tmp" (the link's file for a link) */
	snprintf(target, sizeof(target), "%.*s", (int)(n - 4), tmp);
	if (rc == 0 && rename(tmp, target) != 0)
		rc = -errno;
	if (rc != 0)
		unlink(tmp);
	return rc;
}
