/* SPDX-License-Identifier: BSD-3-Clause */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <rte_errno.h>
#include <rte_lpm.h>
#include <rte_lpm6.h>
#include <rte_malloc.h>

#include "aifab_fib.h"

static bool
target_valid(const struct aifab_fib *fib, uint32_t target)
{
	return target == AIFAB_FIB_LOCAL || target == AIFAB_FIB_UNRESOLVED ||
	       target < fib->n_groups;
}

struct aifab_fib *
aifab_fib_create(const struct aifab_fib_params *prm)
{
	struct aifab_fib *fib;
	char name[RTE_LPM_NAMESIZE];

	if (prm == NULL || prm->name == NULL || prm->max_nh == 0 ||
	    prm->max_nh > UINT16_MAX || prm->max_groups == 0 ||
	    prm->max_groups > AIFAB_FIB_MAX_GROUPS) {
		rte_errno = EINVAL;
		return NULL;
	}
	fib = rte_zmalloc_socket("aifab_fib", sizeof(*fib), 0, prm->socket_id);
	if (fib == NULL)
		goto nomem;
	fib->max_nh = prm->max_nh;
	fib->default4 = AIFAB_FIB_MISS;
	fib->default6 = AIFAB_FIB_MISS;
	fib->max_groups = prm->max_groups;
	fib->nh = rte_zmalloc_socket("aifab_fib_nh",
		sizeof(*fib->nh) * prm->max_nh, 0, prm->socket_id);
	fib->groups = rte_zmalloc_socket("aifab_fib_grp",
		sizeof(*fib->groups) * prm->max_groups, 0, prm->socket_id);
	if (fib->nh == NULL || fib->groups == NULL)
		goto nomem;

	struct rte_lpm_config c4 = {
		.max_rules = RTE_MAX(prm->max_routes4, 1u),
		.number_tbl8s = prm->tbl8s4 != 0 ? prm->tbl8s4 :
			RTE_MAX(prm->max_routes4, 256u),
	};
	snprintf(name, sizeof(name), "%s4", prm->name);
	fib->lpm4 = rte_lpm_create(name, prm->socket_id, &c4);
	if (fib->lpm4 == NULL)
		goto fail;

	struct rte_lpm6_config c6 = {
		.max_rules = RTE_MAX(prm->max_routes6, 1u),
		.number_tbl8s = prm->tbl8s6 != 0 ? prm->tbl8s6 :
			RTE_MAX(prm->max_routes6 * 16, 256u),
	};
	snprintf(name, sizeof(name), "%s6", prm->name);
	fib->lpm6 = rte_lpm6_create(name, prm->socket_id, &c6);
	if (fib->lpm6 == NULL)
		goto fail;
	return fib;

nomem:
	rte_errno = ENOMEM;
fail:
	{
		int e = rte_errno;

		aifab_fib_free(fib);
		rte_errno = e;
	}
	return NULL;
}

void
aifab_fib_free(struct aifab_fib *fib)
{
	if (fib == NULL)
		return;
	rte_lpm_free(fib->lpm4);
	rte_lpm6_free(fib->lpm6);
	rte_free(fib->nh);
	rte_free(fib->groups);
	rte_free(fib);
}

int
aifab_fib_nh_add(struct aifab_fib *fib, uint16_t port,
		 const struct rte_ether_addr *dmac)
{
	if (fib->n_nh >= fib->max_nh)
		return -ENOSPC;
	fib->nh[fib->n_nh].port = port;
	rte_ether_addr_copy(dmac, &fib->nh[fib->n_nh].dmac);
	return (int)fib->n_nh++;
}

int
aifab_fib_group_add(struct aifab_fib *fib, const uint16_t *nh, unsigned int n)
{
	struct aifab_fib_group *g;
	unsigned int i;

	if (n == 0 || n > AIFAB_FIB_MAX_MEMBERS)
		return -EINVAL;
	for (i = 0; i < n; i++)
		if (nh[i] >= fib->n_nh)
			return -EINVAL;
	if (fib->n_groups >= fib->max_groups)
		return -ENOSPC;
	g = &fib->groups[fib->n_groups];
	g->n = (uint16_t)n;
	memcpy(g->nh, nh, n * sizeof(nh[0]));
	return (int)fib->n_groups++;
}

int
aifab_fib_route4_add(struct aifab_fib *fib, uint32_t ip, uint8_t depth,
		     uint32_t target)
{
	int rc;

	if (depth > 32 || !target_valid(fib, target))
		return -EINVAL;
	if (depth == 0) {
		/* rte_lpm takes depth 1..32: the default is the miss result. */
		fib->default4 = target;
		return 0;
	}
	rc = rte_lpm_add(fib->lpm4, ip, depth, target);
	return rc == 0 ? 0 : (rc == -EINVAL ? -EINVAL : -ENOSPC);
}

int
aifab_fib_route6_add(struct aifab_fib *fib, const uint8_t ip[16],
		     uint8_t depth, uint32_t target)
{
	uint8_t addr[16];
	int rc;

	if (depth > 128 || !target_valid(fib, target))
		return -EINVAL;
	if (depth == 0) {
		fib->default6 = target;
		return 0;
	}
	memcpy(addr, ip, sizeof(addr));
	rc = rte_lpm6_add(fib->lpm6, addr, depth, target);
	return rc == 0 ? 0 : (rc == -EINVAL ? -EINVAL : -ENOSPC);
}

void
aifab_fib_lookup4_bulk(const struct aifab_fib *fib, const uint32_t *ips,
		       uint32_t *targets, unsigned int n)
{
	unsigned int i;

	rte_lpm_lookup_bulk(fib->lpm4, ips, targets, n);
	for (i = 0; i < n; i++)
		targets[i] = (targets[i] & RTE_LPM_LOOKUP_SUCCESS) ?
			(targets[i] & 0x00FFFFFFu) : fib->default4;
}

void
aifab_fib_lookup6_bulk(const struct aifab_fib *fib, uint8_t (*ips)[16],
		       uint32_t *targets, unsigned int n)
{
	int32_t hop[64];
	unsigned int i, done, chunk;

	for (done = 0; done < n; done += chunk) {
		chunk = RTE_MIN(n - done, (unsigned int)RTE_DIM(hop));
		rte_lpm6_lookup_bulk_func(fib->lpm6, &ips[done], hop, chunk);
		for (i = 0; i < chunk; i++)
			targets[done + i] = hop[i] < 0 ? fib->default6 :
				(uint32_t)hop[i];
	}
}
