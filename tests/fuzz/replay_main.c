/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * main() for the fuzz targets when they are not linked with libFuzzer (gcc
 * builds, -Dfuzz=false): runs LLVMFuzzerInitialize once, then
 * LLVMFuzzerTestOneInput once per file named on the command line (a
 * directory means every regular file in it, sorted). Arguments starting
 * with '-' (libFuzzer options) are ignored. Exit 0 when every input ran;
 * a failed invariant aborts, as under libFuzzer.
 */
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static unsigned long n_run;

static int
run_file(const char *path)
{
	FILE *f = fopen(path, "rb");
	uint8_t *buf = NULL;
	long len;

	if (f == NULL || fseek(f, 0, SEEK_END) != 0 || (len = ftell(f)) < 0 ||
	    fseek(f, 0, SEEK_SET) != 0) {
		fprintf(stderr, "replay: %s: %s\n", path, strerror(errno));
		if (f != NULL)
			fclose(f);
		return -1;
	}
	/* An exact-size heap copy: ASan sees any read past the input. */
	buf = malloc(len > 0 ? (size_t)len : 1);
	if (buf == NULL || fread(buf, 1, (size_t)len, f) != (size_t)len) {
		fprintf(stderr, "replay: %s: short read\n", path);
		free(buf);
		fclose(f);
		return -1;
	}
	fclose(f);
	LLVMFuzzerTestOneInput(buf, (size_t)len);
	free(buf);
	n_run++;
	return 0;
}

static int
cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static int
run_dir(const char *dir)
{
	char **names = NULL, path[PATH_MAX];
	size_t n = 0, cap = 0, i;
	struct dirent *de;
	DIR *d = opendir(dir);
	int rc = 0;

	if (d == NULL)
		return -1;
	while ((de = readdir(d)) != NULL) {
		if (de->d_name[0] == '.')
			continue;
		if (n == cap) {
			char **nn = realloc(names, (cap = cap ? cap * 2 : 64) *
					    sizeof(*names));

			if (nn == NULL)
				abort();
			names = nn;
		}
		names[n++] = strdup(de->d_name);
	}
	closedir(d);
	qsort(names, n, sizeof(*names), cmp_str);
	for (i = 0; i < n; i++) {
		struct stat st;

		snprintf(path, sizeof(path), "%s/%s", dir, names[i]);
		if (stat(path, &st) == 0 && S_ISREG(st.st_mode) &&
		    run_file(path) != 0)
			rc = -1;
		free(names[i]);
	}
	free(names);
	return rc;
}

int
main(int argc, char **argv)
{
	struct stat st;
	int i, rc = 0;

	LLVMFuzzerInitialize(&argc, &argv);
	for (i = 1; i < argc; i++) {
		if (argv[i][0] == '-')
			continue;
		if (stat(argv[i], &st) != 0) {
			fprintf(stderr, "replay: %s: %s\n", argv[i],
				strerror(errno));
			rc = 1;
		} else if (S_ISDIR(st.st_mode) ? run_dir(argv[i]) :
			   run_file(argv[i])) {
			rc = 1;
		}
	}
	printf("replay: %lu inputs run\n", n_run);
	return rc;
}
