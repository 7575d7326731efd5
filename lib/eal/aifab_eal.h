/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * Process-level helpers around DPDK's EAL shared by the app, unit tests and
 * fuzzers: starting a small private EAL (no hugepages, no PCI, own file
 * prefix) and removing the runtime files EAL leaves per file prefix.
 */
#ifndef AIFAB_EAL_H
#define AIFAB_EAL_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/**
 * Start EAL for a test or fuzzer: --no-huge -m 256 --no-pci, file prefix
 * "aifab-<name>-<pid>", errors-only logging.
 *
 * @param name     short name for the file prefix.
 * @param run_dir  out: EAL's runtime directory, for
 *                 aifab_eal_remove_runtime_dir() after rte_eal_cleanup().
 * @return 0, or -1 if rte_eal_init() failed (rte_errno set).
 */
int aifab_eal_init_private(const char *name, char *run_dir, size_t len);

/**
 * Remove EAL's runtime directory (files directly inside it, then the
 * directory). Call after rte_eal_cleanup(): with --no-huge EAL leaves
 * megabytes there per file prefix.
 * @return 0, or -1 with errno set by rmdir().
 */
int aifab_eal_remove_runtime_dir(const char *dir);

#ifdef __cplusplus
}
#endif

#endif /* AIFAB_EAL_H */
