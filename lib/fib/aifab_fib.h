/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * aifab FIB: IPv4 and IPv6 longest-prefix match (rte_fib DIR24_8 and
 * rte_fib6 TRIE, each over an rte_rib: adding a route costs O(log n)) onto
 * targets. A target is a next-hop group (one or more next hops: egress port
 * and neighbour MAC, for ECMP), or one of the special targets: the switch's
 * own address, or a connected subnet whose host has no neighbour entry.
 *
 * Control-plane calls (create, add) are not thread-safe; lookups are
 * read-only and may run on any number of lcores at once.
 */
#ifndef AIFAB_FIB_H
#define AIFAB_FIB_H

#include <stdint.h>

#include <rte_ether.h>

#ifdef __cplusplus
extern "C" {
#endif

/** Largest ECMP group. */
#define AIFAB_FIB_MAX_MEMBERS 16
/** Target: the destination is one of the switch's own addresses. */
#define AIFAB_FIB_LOCAL 0xFFFFFu
/** Target: inside a connected subnet, but no neighbour is known. */
#define AIFAB_FIB_UNRESOLVED 0xFFFFEu
/** Lookup result when no route matches. */
#define AIFAB_FIB_MISS UINT32_MAX
/** Group ids are below this. */
#define AIFAB_FIB_MAX_GROUPS 0xFFFF0u

/** One next hop. */
struct aifab_fib_nh {
	uint16_t port;              /**< egress port index (app's numbering) */
	struct rte_ether_addr dmac; /**< neighbour MAC */
};

/** A next-hop group: the members an ECMP hash chooses among. */
struct aifab_fib_group {
	uint16_t n;
	uint16_t nh[AIFAB_FIB_MAX_MEMBERS]; /**< indexes into the next-hop table */
};

/** Sizes for aifab_fib_create(). */
struct aifab_fib_params {
	const char *name;       /**< unique per process (rte_fib names) */
	int socket_id;
	/** Routes per family; 0: no table for that family (it takes only a
	 * /0: lookups give its target or a miss, longer routes -ENOSPC). */
	uint32_t max_routes4;
	uint32_t max_routes6;
	uint32_t max_nh;
	uint32_t max_groups;
	/** rte_fib / rte_fib6 tbl8 groups (256 next hops each); 0: a bound
	 * from max_routes4 / max_routes6. An IPv4 route longer than /24
	 * takes one group per /24 (the distinct /24s under such routes are
	 * exact); an IPv6 route of depth d > 24 takes at most
	 * ceil(d / 8) - 3, and the TRIE wants one spare. The next-hop width
	 * (the tbl24's 2^24 entries: 1, 2 or 4 bytes for IPv4, 2 or 4 for
	 * IPv6) is the narrowest that holds max_groups + 3 values and the
	 * tbl8 count. */
	uint32_t tbl8s4;
	uint32_t tbl8s6;
};

struct rte_fib;
struct rte_fib6;

/** The FIB. Fields are read by the inline accessors below. */
struct aifab_fib {
	struct rte_fib *fib4;   /**< NULL: no IPv4 table (max_routes4 0) */
	struct rte_fib6 *fib6;  /**< NULL: no IPv6 table */
	uint32_t n_nh, max_nh;
	uint32_t n_groups, max_groups;
	/** Targets of next hops max_groups + 0, 1, 2 in rte_fib / rte_fib6:
	 * local, unresolved, no route (the /0's target or a miss). */
	uint32_t special4[3], special6[3];
	struct aifab_fib_nh *nh;
	struct aifab_fib_group *groups;
};

/**
 * Create an empty FIB.
 * @return the FIB, or NULL with rte_errno set: EINVAL (bad params),
 *   ENOMEM, EEXIST (name in use).
 */
struct aifab_fib *aifab_fib_create(const struct aifab_fib_params *params);

/** Free a FIB (NULL is fine). */
void aifab_fib_free(struct aifab_fib *fib);

/**
 * Add a next hop.
 * @return its index (>= 0), or -ENOSPC.
 */
int aifab_fib_nh_add(struct aifab_fib *fib, uint16_t port,
		     const struct rte_ether_addr *dmac);

/**
 * Add a next-hop group over existing next hops.
 * @return its id (>= 0), or -EINVAL (n out of range, unknown next hop),
 *   -ENOSPC.
 */
int aifab_fib_group_add(struct aifab_fib *fib, const uint16_t *nh,
			unsigned int n);

/**
 * Add or replace an IPv4 route.
 * @param ip      prefix, host byte order.
 * @param depth   0..32 (0: the default route, served on a miss).
 * @param target  a group id, AIFAB_FIB_LOCAL or AIFAB_FIB_UNRESOLVED.
 * @return 0, or -EINVAL, -ENOSPC.
 */
int aifab_fib_route4_add(struct aifab_fib *fib, uint32_t ip, uint8_t depth,
			 uint32_t target);

/** Add or replace an IPv6 route (prefix in network order, depth 0..128). */
int aifab_fib_route6_add(struct aifab_fib *fib, const uint8_t ip[16],
			 uint8_t depth, uint32_t target);

/**
 * Look up @p n IPv4 destinations (host byte order).
 * @param targets  out: target per address, AIFAB_FIB_MISS where none.
 */
void aifab_fib_lookup4_bulk(const struct aifab_fib *fib, const uint32_t *ips,
			    uint32_t *targets, unsigned int n);

/** Look up @p n IPv6 destinations. */
void aifab_fib_lookup6_bulk(const struct aifab_fib *fib,
			    uint8_t (*ips)[16], uint32_t *targets,
			    unsigned int n);

/** Group of a target below AIFAB_FIB_MAX_GROUPS. */
static inline const struct aifab_fib_group *
aifab_fib_group(const struct aifab_fib *fib, uint32_t target)
{
	return &fib->groups[target];
}

/** Next hop @p idx. */
static inline const struct aifab_fib_nh *
aifab_fib_nh(const struct aifab_fib *fib, uint16_t idx)
{
	return &fib->nh[idx];
}

#ifdef __cplusplus
}
#endif

#endif /* AIFAB_FIB_H */
