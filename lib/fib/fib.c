/* SPDX-License-Identifier: BSD-3-Clause */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <rte_errno.h>
#include <rte_fib.h>
#include <rte_fib6.h>
#include <rte_malloc.h>
#include <rte_vect.h>

#include "aifab_fib.h"

/*
 * Next hops in rte_fib / rte_fib6: a group id is itself; the special
 * targets and "no route" follow the groups (fib->special[] maps them
 * back), so the next-hop width only has to hold max_groups + 3 values
 * and the tbl8 indexes DPDK keeps in the same entries.
 */
#define NH_LOCAL 0u
#define NH_UNRESOLVED 1u
#define NH_NONE 2u /* rte_fib's default_nh: no route, the /0 if any */

static bool
target_valid(const struct aifab_fib *fib, uint32_t target)
{
	return target == AIFAB_FIB_LOCAL || target == AIFAB_FIB_UNRESOLVED ||
	       target < fib->n_groups;
}

static uint64_t
target_nh(const struct aifab_fib *fib, uint32_t target)
{
	if (target == AIFAB_FIB_LOCAL)
		return fib->max_groups + NH_LOCAL;
	if (target == AIFAB_FIB_UNRESOLVED)
		return fib->max_groups + NH_UNRESOLVED;
	return target;
}

/*
 * The narrowest next-hop width that holds @p need values (DPDK keeps one
 * bit of an entry for "tbl8 index follows"): 1 (DIR24_8 only), 2, 4
 * bytes as log2, the tbl24 of 2^24 entries costing 16, 32 or 64 MiB.
 */
static unsigned int
nh_log2(uint64_t need, unsigned int min_log2)
{
	unsigned int l;

	for (l = min_log2; l < 3; l++)
		if (need <= (UINT64_C(1) << ((8u << l) - 1)) - 1)
			break;
	return l;
}

/*
 * rte_fib's default lookup is the scalar one unless EAL's SIMD width is
 * 512 (its default is 256). The AVX-512 lookup is what DPDK would pick
 * there: raise the width just for this choice and put it back, as
 * aifab_icrc_verify_init() does, so nothing else changes; a user's
 * --force-max-simd-bitwidth makes the raise fail and is obeyed; without
 * AVX-512F the select fails and the scalar lookup stays.
 */
static void
fib_pick_lookup(struct aifab_fib *fib)
{
	uint16_t simd = rte_vect_get_max_simd_bitwidth();

	if (simd >= RTE_VECT_SIMD_512 ||
	    rte_vect_set_max_simd_bitwidth(RTE_VECT_SIMD_512) != 0)
		return;
	if (fib->fib4 != NULL)
		(void)rte_fib_select_lookup(fib->fib4,
					    RTE_FIB_LOOKUP_DIR24_8_VECTOR_AVX512);
	if (fib->fib6 != NULL)
		(void)rte_fib6_select_lookup(fib->fib6,
					RTE_FIB6_LOOKUP_TRIE_VECTOR_AVX512);
	rte_vect_set_max_simd_bitwidth(simd);
}

struct aifab_fib *
aifab_fib_create(const struct aifab_fib_params *prm)
{
	struct aifab_fib *fib;
	char name[64]; /* RTE_FIB_NAMESIZE, private in 22.11 */
	uint32_t n8;

	if (prm == NULL || prm->name == NULL || prm->max_nh == 0 ||
	    prm->max_nh > UINT16_MAX || prm->max_groups == 0 ||
	    prm->max_groups > AIFAB_FIB_MAX_GROUPS ||
	    prm->max_routes4 > INT32_MAX / 2 ||
	    prm->max_routes6 > INT32_MAX / 2) {
		rte_errno = EINVAL;
		return NULL;
	}
	fib = rte_zmalloc_socket("aifab_fib", sizeof(*fib), 0, prm->socket_id);
	if (fib == NULL)
		goto nomem;
	fib->max_nh = prm->max_nh;
	fib->max_groups = prm->max_groups;
	fib->special4[NH_LOCAL] = fib->special6[NH_LOCAL] = AIFAB_FIB_LOCAL;
	fib->special4[NH_UNRESOLVED] = fib->special6[NH_UNRESOLVED] =
		AIFAB_FIB_UNRESOLVED;
	fib->special4[NH_NONE] = fib->special6[NH_NONE] = AIFAB_FIB_MISS;
	fib->nh = rte_zmalloc_socket("aifab_fib_nh",
		sizeof(*fib->nh) * prm->max_nh, 0, prm->socket_id);
	fib->groups = rte_zmalloc_socket("aifab_fib_grp",
		sizeof(*fib->groups) * prm->max_groups, 0, prm->socket_id);
	if (fib->nh == NULL || fib->groups == NULL)
		goto nomem;

	/*
	 * A family without entries gets no table (a tbl24 is 16-64 MiB, and
	 * a Clos of IPv4-only switches has dozens of instances): its
	 * lookups give the /0's target or a miss.
	 */
	if (prm->max_routes4 == 0)
		goto v6;
	n8 = prm->tbl8s4 != 0 ? prm->tbl8s4 : prm->max_routes4;
	struct rte_fib_conf c4 = {
		.type = RTE_FIB_DIR24_8,
		.default_nh = prm->max_groups + NH_NONE,
		.max_routes = (int)prm->max_routes4,
		.dir24_8 = {
			.nh_sz = (enum rte_fib_dir24_8_nh_sz)nh_log2(
				RTE_MAX(prm->max_groups + 2ull, n8),
				RTE_FIB_DIR24_8_1B),
			.num_tbl8 = n8,
		},
	};
	snprintf(name, sizeof(name), "%s4", prm->name);
	fib->fib4 = rte_fib_create(name, prm->socket_id, &c4);
	if (fib->fib4 == NULL)
		goto fail;

v6:
	if (prm->max_routes6 == 0)
		goto done;
	/* trie_modify() wants one tbl8 more than the routes take */
	n8 = prm->tbl8s6 != 0 ? prm->tbl8s6 :
		(uint32_t)RTE_MIN(prm->max_routes6 * 13ull + 1, UINT32_MAX);
	struct rte_fib6_conf c6 = {
		.type = RTE_FIB6_TRIE,
		.default_nh = prm->max_groups + NH_NONE,
		.max_routes = (int)prm->max_routes6,
		.trie = {
			.nh_sz = (enum rte_fib_trie_nh_sz)nh_log2(
				RTE_MAX(prm->max_groups + 2ull, n8),
				RTE_FIB6_TRIE_2B),
			.num_tbl8 = n8,
		},
	};
	snprintf(name, sizeof(name), "%s6", prm->name);
	fib->fib6 = rte_fib6_create(name, prm->socket_id, &c6);
	if (fib->fib6 == NULL)
		goto fail;
done:
	fib_pick_lookup(fib);
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
	rte_fib_free(fib->fib4);
	rte_fib6_free(fib->fib6);
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
		/* the /0 is what "no route" (default_nh) stands for */
		fib->special4[NH_NONE] = target;
		return 0;
	}
	if (fib->fib4 == NULL)
		return -ENOSPC;
	rc = rte_fib_add(fib->fib4, ip, depth, target_nh(fib, target));
	return rc == 0 ? 0 : (rc == -EINVAL ? -EINVAL : -ENOSPC);
}

int
aifab_fib_route6_add(struct aifab_fib *fib, const uint8_t ip[16],
		     uint8_t depth, uint32_t target)
{
	int rc;

	if (depth > 128 || !target_valid(fib, target))
		return -EINVAL;
	if (depth == 0) {
		fib->special6[NH_NONE] = target;
		return 0;
	}
	if (fib->fib6 == NULL)
		return -ENOSPC;
	rc = rte_fib6_add(fib->fib6, ip, depth, target_nh(fib, target));
	return rc == 0 ? 0 : (rc == -EINVAL ? -EINVAL : -ENOSPC);
}

/* rte_fib's next hops of a chunk to targets: a group id is itself, the
 * three after the groups are @p special (local, unresolved, no route). */
static inline void
hops_to_targets(const uint64_t *hop, unsigned int n, uint32_t g,
		const uint32_t *special, uint32_t *targets)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		targets[i] = hop[i] < g ? (uint32_t)hop[i] :
			special[hop[i] - g];
}

void
aifab_fib_lookup4_bulk(const struct aifab_fib *fib, const uint32_t *ips,
		       uint32_t *targets, unsigned int n)
{
	uint64_t hop[64];
	unsigned int i, done, chunk;

	if (unlikely(fib->fib4 == NULL)) {
		for (i = 0; i < n; i++)
			targets[i] = fib->special4[NH_NONE];
		return;
	}
	for (done = 0; done < n; done += chunk) {
		chunk = RTE_MIN(n - done, (unsigned int)RTE_DIM(hop));
		/* rte_fib only reads the addresses */
		rte_fib_lookup_bulk(fib->fib4,
				    (uint32_t *)(uintptr_t)&ips[done], hop,
				    (int)chunk);
		hops_to_targets(hop, chunk, fib->max_groups, fib->special4,
				&targets[done]);
	}
}

void
aifab_fib_lookup6_bulk(const struct aifab_fib *fib, uint8_t (*ips)[16],
		       uint32_t *targets, unsigned int n)
{
	uint64_t hop[64];
	unsigned int i, done, chunk;

	if (unlikely(fib->fib6 == NULL)) {
		for (i = 0; i < n; i++)
			targets[i] = fib->special6[NH_NONE];
		return;
	}
	for (done = 0; done < n; done += chunk) {
		chunk = RTE_MIN(n - done, (unsigned int)RTE_DIM(hop));
		rte_fib6_lookup_bulk(fib->fib6, &ips[done], hop, (int)chunk);
		hops_to_targets(hop, chunk, fib->max_groups, fib->special6,
				&targets[done]);
	}
}
