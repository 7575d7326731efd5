/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Traffic-class maps and the names of the per-TC counters.
 */
#include <errno.h>

#include "aifab_qos.h"

#define CTR_NAME(e, s) s,
static const char *const base_names[] = {
	AIFAB_QOS_BASE_CTRS(CTR_NAME)
};
static const char *const drop_names[] = {
	AIFAB_QOS_DROPS(CTR_NAME)
};
#undef CTR_NAME

const char *
aifab_qos_ctr_name(enum aifab_qos_ctr c)
{
	unsigned int i = (unsigned int)c;

	if (i < RTE_DIM(base_names))
		return base_names[i];
	i -= AIFAB_QOS_CTR_DROPS;
	if (i < RTE_DIM(drop_names))
		return drop_names[i];
	return "?";
}

void
aifab_qos_map_default(struct aifab_qos_map *m)
{
	unsigned int i;

	for (i = 0; i < RTE_DIM(m->dscp_tc); i++)
		m->dscp_tc[i] = 0;
	m->dscp_tc[26] = 3;
	m->dscp_tc[48] = 6;
	for (i = 0; i < RTE_DIM(m->pcp_tc); i++)
		m->pcp_tc[i] = (uint8_t)i;
}

int
aifab_qos_map_check(const struct aifab_qos_map *m, const char **why)
{
	unsigned int i;

	for (i = 0; i < RTE_DIM(m->dscp_tc); i++)
		if (m->dscp_tc[i] >= AIFAB_QOS_N_TC) {
			*why = "DSCP map: traffic class must be 0..7";
			return -EINVAL;
		}
	for (i = 0; i < RTE_DIM(m->pcp_tc); i++)
		if (m->pcp_tc[i] >= AIFAB_QOS_N_TC) {
			*why = "PCP map: traffic class must be 0..7";
			return -EINVAL;
		}
	return 0;
}
