/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * aifab profiles: INI files (rte_cfgfile) parsed into params structs through
 * one table of keys, overridden by `--set section.key=value`, validated as a
 * whole. Every error names the file (or "--set"), section, key, the bad value
 * and what is allowed, in one line. Libraries never see text: the app compiles
 * these params into each library's run-time config.
 *
 * Sections:
 *   [general]            run-wide settings
 *   [switch]             the leaf switch pipeline
 *   [port.<name>]        one per port, in file order
 *   [neighbors]          <ip> = <mac>            (static neighbours)
 *   [routes]             <prefix/len> = <next-hop ip> [<next-hop ip> ...]
 *
 * `--set` splits at the dot that ends a known section name, so
 * `--set port.p0.speed_gbps=25` and `--set routes.0.0.0.0/0=10.0.3.2` work.
 */
#ifndef AIFAB_PROFILE_H
#define AIFAB_PROFILE_H

#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include <rte_ether.h>

#ifdef __cplusplus
extern "C" {
#endif

#define AIFAB_MAX_PORTS 16
#define AIFAB_MAX_NEIGHS 256
#define AIFAB_MAX_ROUTES 1024
#define AIFAB_MAX_ECMP 16
#define AIFAB_MAX_WORKERS 64
#define AIFAB_NAME_LEN 32
#define AIFAB_ERR_LEN 512

enum aifab_port_role {
	AIFAB_ROLE_DOWNLINK = 0,
	AIFAB_ROLE_UPLINK,
};

/** [port.<name>] */
struct aifab_port_params {
	char name[AIFAB_NAME_LEN];  /**< section suffix, e.g. "p0" */
	char device[64];            /**< ethdev name to bind; "" = by order */
	bool has_mac;               /**< false: use the NIC's MAC */
	struct rte_ether_addr mac;
	bool has_ip4;
	uint32_t ip4;               /**< host byte order */
	uint8_t ip4_depth;
	bool has_ip6;
	uint8_t ip6[16];
	uint8_t ip6_depth;
	uint8_t role;               /**< enum aifab_port_role */
	uint32_t speed_mbps;        /**< 0: read from the NIC at start */
	uint16_t mtu;               /**< L3 MTU, 68..9000 */
	uint16_t rx_desc;
	uint16_t tx_desc;
};

/** One [neighbors] entry. */
struct aifab_neigh_params {
	uint8_t family;             /**< AF_INET or AF_INET6 */
	uint8_t addr[16];           /**< IPv4: first 4 bytes, network order */
	struct rte_ether_addr mac;
	uint16_t port;              /**< derived: index of the port whose subnet holds addr */
};

/** One [routes] entry. */
struct aifab_route_params {
	uint8_t family;             /**< AF_INET or AF_INET6 */
	uint8_t prefix[16];         /**< network order; host bits zero */
	uint8_t depth;
	uint8_t n_nh;               /**< 1..AIFAB_MAX_ECMP next hops */
	uint8_t nh_addr[AIFAB_MAX_ECMP][16];
	uint16_t nh_neigh[AIFAB_MAX_ECMP]; /**< derived: index into neighs[] */
};

/** A whole profile. */
struct aifab_profile {
	char path[PATH_MAX];        /**< file it came from ("<embedded>" ...) */

	/* [general] */
	char name[64];
	uint64_t seed;              /**< RNG seed for everything random */
	uint32_t burst;             /**< rx/tx burst size, 1..512 */
	uint32_t mbufs;             /**< mbufs per pool; 0 = sized from ports */
	uint32_t mbuf_cache;        /**< per-lcore mempool cache */

	/* [switch] */
	bool switch_enabled;
	uint16_t n_switch_lcores;   /**< 0: every worker lcore (or main if none) */
	uint16_t switch_lcores[AIFAB_MAX_WORKERS];
	bool check_ip4_csum;        /**< drop bad IPv4 header checksums */

	uint16_t n_ports;
	struct aifab_port_params ports[AIFAB_MAX_PORTS];
	uint16_t n_neighs;
	struct aifab_neigh_params neighs[AIFAB_MAX_NEIGHS];
	uint16_t n_routes;
	struct aifab_route_params routes[AIFAB_MAX_ROUTES];
};

/** Fill @p p with every key's default and no ports/neighbours/routes. */
void aifab_profile_defaults(struct aifab_profile *p);

/**
 * Load a profile, apply overrides, validate.
 *
 * @param p      filled in (defaults first).
 * @param path   INI file; NULL loads the embedded default profile.
 * @param sets   "section.key=value" strings applied in order after the file.
 * @param n_sets number of @p sets.
 * @param err    on failure one line: "<file>: [section] key = 'value': why;
 *               allowed: ..." (no trailing newline).
 * @return 0, or -1 with @p err filled.
 */
int aifab_profile_load(struct aifab_profile *p, const char *path,
		       const char *const *sets, unsigned int n_sets,
		       char *err, size_t errlen);

/** Index of the port named @p name, or -1. */
int aifab_profile_port_index(const struct aifab_profile *p, const char *name);

/**
 * Write the key reference in Markdown (docs/profiles.md is exactly this
 * output; a test keeps them equal).
 */
void aifab_profile_write_doc(FILE *f);

#ifdef __cplusplus
}
#endif

#endif /* AIFAB_PROFILE_H */
