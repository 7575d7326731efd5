/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What the cmocka unit tests share: the group fixtures that start a
 * private EAL (aifab_eal_init_private(): --no-huge, no PCI, a file prefix
 * of its own named after the test binary) and stop it again, removing the
 * runtime directory EAL leaves behind. Include after <cmocka.h>; the test
 * needs aifab_eal_dep. Judges the tests share are in unit_judges.h.
 */
#ifndef UNIT_COMMON_H
#define UNIT_COMMON_H

#include <errno.h>
#include <limits.h>

#include <rte_eal.h>

#include "aifab_eal.h"

/* EAL's runtime directory (one EAL per test process). */
static inline char *
unit_run_dir(void)
{
	static char dir[PATH_MAX];

	return dir;
}

/* cmocka group setup: start the private EAL; 0, or -1 if it failed. */
static inline int
unit_eal_up(void **state)
{
	(void)state;
	return aifab_eal_init_private(program_invocation_short_name,
				      unit_run_dir(), PATH_MAX);
}

/* cmocka group teardown: stop EAL and remove its runtime directory. */
static inline int
unit_eal_down(void **state)
{
	(void)state;
	rte_eal_cleanup();
	aifab_eal_remove_runtime_dir(unit_run_dir());
	return 0;
}

#endif /* UNIT_COMMON_H */
