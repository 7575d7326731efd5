/* SPDX-License-Identifier: BSD-3-Clause */
#include <dirent.h>
#include <limits.h>
#include <stdio.h>
#include <unistd.h>

#include <rte_common.h>
#include <rte_eal.h>

#include "aifab_eal.h"

int
aifab_eal_init_private(const char *name, char *run_dir, size_t len)
{
	char prefix[64];
	char *argv[] = { (char *)(uintptr_t)name, "--no-huge", "-m", "256",
			 "--no-pci", "--file-prefix", prefix,
			 "--log-level=error", NULL };

	snprintf(prefix, sizeof(prefix), "aifab-%s-%ld", name, (long)getpid());
	if (rte_eal_init((int)RTE_DIM(argv) - 1, argv) < 0)
		return -1;
	snprintf(run_dir, len, "%s", rte_eal_get_runtime_dir());
	return 0;
}

int
aifab_eal_remove_runtime_dir(const char *dir)
{
	char path[PATH_MAX + 256];
	struct dirent *de;
	DIR *d = opendir(dir);

	if (d == NULL)
		return -1;
	while ((de = readdir(d)) != NULL) {
		if (de->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
		unlink(path);
	}
	closedir(d);
	return rmdir(dir);
}
