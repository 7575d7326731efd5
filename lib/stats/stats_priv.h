/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Private to lib/stats: the set's layout and helpers shared by exporters.
 */
#ifndef AIFAB_STATS_PRIV_H
#define AIFAB_STATS_PRIV_H

#include <stdbool.h>
#include <stddef.h>

#include "aifab_stats.h"

#define STATS_NAME_MAX 64

/** The set: descriptors, labels, layout, and the blocks. */
struct aifab_stats_set {
	char name[STATS_NAME_MAX];
	unsigned int n_counters;     /**< pipeline's + built-ins */
	unsigned int n_user;
	struct aifab_stats_desc *descs; /**< n_counters, strings owned */
	unsigned int n_ports, n_tcs, n_blocks;
	char (*port_names)[STATS_NAME_MAX];
	unsigned int *block_lcore;
	uint64_t tsc_hz;
	uint32_t *boff;   /**< per counter: index in a block's v[] */
	uint32_t *soff;   /**< per counter: index in a snapshot's v[] */
	uint32_t *ninst;  /**< per counter: instances in a snapshot */
	uint32_t block_values;
	uint32_t snap_values;
	size_t block_stride;  /**< bytes from one block to the next */
	void *mem;            /**< the blocks' allocation */
	unsigned char *first; /**< block 0 */
};

/** Write instance @p inst's labels of counter @p id as "port=..,tc=.." in
 * a caller's format: @p style selects Prometheus (port="p0",tc="3") or
 * short ("p0 tc3"). Returns @p buf. */
enum stats_label_style { STATS_LABEL_PROM, STATS_LABEL_SHORT };
const char *stats_instance_label(const struct aifab_stats_set *set,
				 unsigned int id, unsigned int inst,
				 enum stats_label_style style,
				 char *buf, size_t len);

/** True if counter @p id's name matches @p pat ("name" or "prefix*"). */
bool stats_name_matches(const struct aifab_stats_set *set, unsigned int id,
			const char *pat);

#endif /* AIFAB_STATS_PRIV_H */
