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
 *   [switch.<name>]      a named switch instance's own ECMP hash/seed/fields
 *   [port.<name>]        one per port, in file order
 *   [qos]                shared buffer, classification maps, ECN point
 *   [tc.<0..7>]          per traffic class: scheduling, limits, ECN, PFC
 *   [ecmp]               hash function, fields, seed, resilient groups
 *   [pfc]                PFC watchdog and hardware hand-off
 *   [generator]          RoCEv2 collective traffic of N emulated GPU ranks
 *   [neighbors]          <ip> = <mac>            (static neighbours)
 *   [routes]             <prefix/len> = <next-hop ip> [<next-hop ip> ...],
 *                        or file = PATH: one "<prefix/len> <next hop> ..."
 *                        line each (large tables)
 *   [neighbors.<name>], [routes.<name>]  the same for switch <name>
 *
 * Several switches: `[port.X] switch = <name>` gives port X to switch
 * instance <name> (empty: the default switch). [neighbors] and [routes]
 * belong to the default switch, [neighbors.<name>] / [routes.<name>] to
 * <name>; QoS, TCs and PFC are fabric-wide.
 *
 * `--set` splits at the dot that ends a known section name, so
 * `--set port.p0.speed_gbps=25`, `--set tc.3.ecn_kmin_bytes=100000` and
 * `--set routes.0.0.0.0/0=10.0.3.2` work; `switch.<name>.`, `routes.<name>.`
 * and `neighbors.<name>.` take the name up to the next dot when it is a
 * switch name (a lower-case letter, then a-z 0-9 _), so
 * `--set switch.spine0.ecmp_seed=7` and `--set routes.leaf0.0.0.0.0/0=...`
 * work too.
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

/** Ports of one process (profile [port.*] sections). In-memory (`wire`)
 * ports are rings, not ethdevs, so only ports bound to ethdevs (NICs,
 * pcap, af_packet, ...) are bounded by DPDK's RTE_MAX_ETHPORTS. */
#define AIFAB_MAX_PORTS 4096
/** Ports one switch instance owns (its per-port state is sized by it). */
#define AIFAB_SW_MAX_PORTS 64
#define AIFAB_MAX_SWITCHES 128 /**< switch instances, the default one included */
#define AIFAB_MAX_NEIGHS 4096 /**< neighbours of every switch together */
#define AIFAB_SW_MAX_NEIGHS 256 /**< neighbours of one switch instance */
/** Routes of every switch together. The route table is allocated to the
 * profile's count (a `[routes] file` of a million lines loads); the
 * limit keeps a switch's group ids (one per neighbour and per route)
 * below the FIB's AIFAB_FIB_MAX_GROUPS (0xFFFF0) with AIFAB_MAX_NEIGHS
 * neighbours. */
#define AIFAB_MAX_ROUTES 1040000
#define AIFAB_MAX_ECMP 16
#define AIFAB_MAX_WORKERS 64
#define AIFAB_NAME_LEN 32
#define AIFAB_ERR_LEN 512
#define AIFAB_N_TC 8
#define AIFAB_RSS_KEY_MAX 52

enum aifab_trust {
	AIFAB_TRUST_DSCP = 0,       /**< TC from the DSCP map */
	AIFAB_TRUST_PCP,            /**< TC from the 802.1p PCP map */
};

enum aifab_limit_mode {
	AIFAB_LIMIT_STATIC = 0,     /**< queue_limit_bytes per queue */
	AIFAB_LIMIT_DYNAMIC,        /**< alpha x free shared buffer */
};

enum aifab_ecn_point {
	AIFAB_ECN_AT_ENQUEUE = 0,
	AIFAB_ECN_AT_DEQUEUE,
};

/** [general] clock: what `now` is for every pipeline of the process. */
enum aifab_clock {
	AIFAB_CLOCK_REALTIME = 0,   /**< the TSC */
	AIFAB_CLOCK_VIRTUAL,        /**< one virtual clock (docs/virtual-time.md) */
};

enum aifab_hash_fn {
	AIFAB_HASH_CRC32C = 0,
	AIFAB_HASH_TOEPLITZ,
	AIFAB_HASH_JHASH,
};

/* [ecmp] fields bit flags */
#define AIFAB_HF_SIP 0x01
#define AIFAB_HF_DIP 0x02
#define AIFAB_HF_PROTO 0x04
#define AIFAB_HF_SPORT 0x08
#define AIFAB_HF_DPORT 0x10
#define AIFAB_HF_DQPN 0x20

enum aifab_pfcwd_action {
	AIFAB_PFCWD_DROP = 0,       /**< flush and drop the TC, ignore its PFC */
	AIFAB_PFCWD_FORWARD,        /**< ignore PFC on the TC */
	AIFAB_PFCWD_ALERT,          /**< only count */
};

enum aifab_port_role {
	AIFAB_ROLE_DOWNLINK = 0,
	AIFAB_ROLE_UPLINK,
};

/** [port.<name>] */
/** `[port.<name>] fault_rx_*` / `fault_tx_*`: one direction's link
 * impairments (lib/fault aifab_link), in profile units. */
struct aifab_port_fault {
	uint8_t match;              /**< enum aifab_fault_match */
	uint32_t drop_ppm;
	uint32_t drop_every;
	uint32_t ce_ppm;
	uint32_t delay_us;
	uint32_t jitter_us;
	uint32_t rate_mbps;         /**< 0: no limit */
	uint32_t queue;             /**< delay line, frames */
	uint32_t from_us;           /**< loss/delay/rate window */
	uint32_t until_us;          /**< 0: to the end */
	uint32_t down_at_us;
	uint32_t down_for_us;       /**< 0: never down */
	uint32_t storm_prio;        /**< bit i: PFC priority i */
	uint32_t storm_at_us;
	uint32_t storm_for_us;      /**< 0: to the end */
};

/** Index of aifab_port_params.fault[]. */
enum { AIFAB_FAULT_DIR_RX = 0, AIFAB_FAULT_DIR_TX = 1 };

struct aifab_port_params {
	char name[AIFAB_NAME_LEN];  /**< section suffix, e.g. "p0" */
	char device[64];            /**< ethdev name to bind; "" = by order */
	char wire[AIFAB_NAME_LEN];  /**< in-memory cable to this port; "" = none */
	char sw_name[AIFAB_NAME_LEN]; /**< switch instance; "" = the default */
	uint8_t sw;                 /**< derived: index into switches[] */
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
	uint8_t trust;              /**< enum aifab_trust */
	uint32_t cable_m;           /**< cable length, for PFC headroom */
	/* PFC on this port (aifab_profile_pfc_eff() resolves them) */
	bool pfc;                   /**< false: no PFC sent or honoured here */
	bool has_pfc_xoff;          /**< pfc_* set: override [tc.N]'s */
	bool has_pfc_xon_offset;
	bool has_pfc_xon;
	bool has_pfc_headroom;
	uint32_t pfc_xoff_bytes;
	uint32_t pfc_xon_offset_bytes;
	uint32_t pfc_xon_bytes;
	uint32_t pfc_headroom_bytes;
	struct aifab_port_fault fault[2]; /**< [AIFAB_FAULT_DIR_RX/TX] */
};

/** [tc.<n>]: one traffic class, the same on every port. */
struct aifab_tc_params {
	bool strict;                /**< strict priority (higher TC first) */
	uint32_t weight;            /**< DWRR weight among non-strict TCs */
	bool lossless;              /**< PFC instead of tail drop */
	uint32_t queue_limit_bytes; /**< static limit (limit_mode static) */
	uint32_t alpha_milli;       /**< dynamic limit: alpha x 1000 */
	bool ecn;                   /**< RFC 3168 marking on this TC */
	uint32_t ecn_kmin_bytes;
	uint32_t ecn_kmax_bytes;
	uint32_t ecn_pmax_ppm;      /**< marking probability at Kmax, ppm */
	uint32_t pfc_xoff_bytes;    /**< 0: dynamic (alpha x free buffer) */
	uint32_t pfc_xon_offset_bytes; /**< XON = XOFF - this */
	uint32_t pfc_xon_bytes;     /**< absolute XON; 0: the offset */
	uint32_t pfc_headroom_bytes;/**< 0: computed from speed, cable, MTU */
	uint32_t pfc_pause_quanta;  /**< pause time sent in XOFF */
};

/** [qos] */
struct aifab_qos_params {
	uint64_t buffer_bytes;      /**< shared packet buffer per switch */
	uint8_t limit_mode;         /**< enum aifab_limit_mode */
	uint8_t ecn_at;             /**< enum aifab_ecn_point */
	uint32_t shaper_burst_bytes;/**< token bucket depth per port */
	uint8_t dscp_tc[64];        /**< DSCP -> TC */
	uint8_t pcp_tc[8];          /**< PCP -> TC */
};

/** [ecmp] */
struct aifab_ecmp_profile {
	uint8_t hash;               /**< enum aifab_hash_fn */
	uint32_t seed;              /**< per-switch seed */
	uint32_t fields;            /**< AIFAB_HF_* */
	bool resilient;             /**< bucket table: removal remaps only its buckets */
	uint32_t buckets;           /**< buckets per group (power of two) */
	uint8_t rss_key_len;        /**< 0: the Microsoft RSS key */
	uint8_t rss_key[AIFAB_RSS_KEY_MAX];
};

/** [pfc] */
struct aifab_pfc_profile {
	bool watchdog;              /**< SONiC-style storm detection */
	uint32_t detection_ms;      /**< 100..5000 */
	uint32_t restoration_ms;
	uint8_t action;             /**< enum aifab_pfcwd_action */
	bool hw_offload;            /**< hand PFC to the NIC where it can */
	bool replay_peer_pause;     /**< virtual time: pcap peers honour PFC */
};

/** One [neighbors] entry. */
struct aifab_neigh_params {
	uint8_t family;             /**< AF_INET or AF_INET6 */
	uint8_t addr[16];           /**< IPv4: first 4 bytes, network order */
	struct rte_ether_addr mac;
	uint16_t port;              /**< derived: index of the port whose subnet holds addr */
	uint8_t sw;                 /**< switch instance ([neighbors.<name>]) */
};

/** One [routes] entry. */
struct aifab_route_params {
	uint8_t family;             /**< AF_INET or AF_INET6 */
	uint8_t prefix[16];         /**< network order; host bits zero */
	uint8_t depth;
	uint8_t n_nh;               /**< 1..AIFAB_MAX_ECMP next hops */
	uint8_t nh_addr[AIFAB_MAX_ECMP][16];
	uint16_t nh_neigh[AIFAB_MAX_ECMP]; /**< derived: index into neighs[] */
	uint8_t sw;                 /**< switch instance ([routes.<name>]) */
};

/**
 * One switch instance. switches[0] is the default switch (name ""), which
 * owns the ports with no `switch` key; the others are named by ports'
 * `switch` keys, in order of first use. Each has its own ECMP hash, seed
 * and fields ([switch.<name>], else those of [ecmp]).
 */
struct aifab_switch_params {
	char name[AIFAB_NAME_LEN];  /**< "" for the default switch */
	uint16_t n_ports;           /**< ports it owns */
	struct aifab_ecmp_profile ecmp;
};

/** Collective names, in lib/collective's order (profile values). */
enum aifab_coll_kind {
	AIFAB_COLL_KIND_ALLREDUCE_RING = 0,
	AIFAB_COLL_KIND_ALLREDUCE_HD,
	AIFAB_COLL_KIND_REDUCESCATTER_RING,
	AIFAB_COLL_KIND_ALLGATHER_RING,
	AIFAB_COLL_KIND_ALLTOALL,
};

/** [lab]: a recipe measuring a switch under test (pipelines/lab/lab.h). */
struct aifab_lab_profile {
	char recipe[16];            /**< a recipe's name (the lab's table
				     * checks it); "none" = no recipe */
	char tx_port[AIFAB_NAME_LEN];
	char rx_ports[256];         /**< port names, blank separated */
	bool has_gw_mac;
	struct rte_ether_addr gw_mac;
	bool has_src_ip;
	uint32_t src_ip;            /**< host order */
	uint8_t src_depth;
	bool has_dst_ip;
	uint32_t dst_ip;
	uint8_t dst_depth;
	uint32_t flows;
	uint32_t frames_per_flow;
	uint32_t frame_bytes;
	uint32_t fields;            /**< bit i: sport, dqpn, sip, dip */
	uint32_t rate_mbps;
	uint32_t dscp;
	uint32_t ecn;
	uint32_t sport_base;
	uint32_t qpn_base;
	uint32_t settle_ms;
	uint32_t max_imbalance_milli;
	uint32_t min_p_ppm;
	/* ecn */
	uint32_t dut_rate_mbps;
	char loads[128];            /**< percents of dut_rate, blank separated */
	uint32_t step_ms;
	uint32_t gap_ms;
	uint32_t bin_bytes;
	uint32_t min_bin_frames;
	uint32_t expect_kmin;
	uint32_t expect_kmax;
	uint32_t expect_pmax_ppm;   /**< 0: not judged */
	uint32_t tolerance_pct;
	/* pfc */
	uint32_t pfc_prio;
	uint32_t pfc_quanta;
	uint32_t pfc_load_pct;
	uint32_t hold_ms;
	uint32_t resume_ms;
	/* incast */
	char tx_ports[256];         /**< more senders, blank separated */
	char gateway_macs[512];     /**< the DUT's MAC on each of them */
	uint32_t max_p99_us;
};

/** [generator] */
struct aifab_gen_profile {
	bool enabled;
	uint16_t n_lcores;          /**< 0: the last worker lcore (or main) */
	uint16_t lcores[AIFAB_MAX_WORKERS];
	char ports[256];            /**< port names it owns; "" = every port */
	char gateway_macs[512];     /**< the DUT's MAC per port, in order */
	uint8_t collective;         /**< enum aifab_coll_kind */
	uint32_t ranks;
	uint64_t size_bytes;        /**< S per collective */
	uint32_t channels;
	uint32_t qps_per_conn;
	uint32_t ib_mtu;
	uint32_t iterations;
	uint32_t warmup;
	uint32_t gap_us;            /**< compute gap between iterations */
	uint32_t step_time_us;      /**< open loop: min time between steps */
	uint32_t rate_mbps;         /**< per rank; 0: port speed / ranks */
	bool bursty;
	uint32_t burst_pkts;
	uint32_t dscp;
	uint32_t ecn;
	char channel_dscp[512];     /**< per channel "dscp[/ecn]"; "" none */
	bool has_base_mac;
	struct rte_ether_addr base_mac;
	bool has_base_ip;
	uint32_t base_ip;           /**< host order */
	uint8_t base_ip_depth;
	uint32_t ip_stride;         /**< rank r: base_ip + r x ip_stride */
	char rank_table[256];       /**< per-rank MAC/IPv4/port file; "" none */
	uint32_t qpn_base;
	uint32_t sport_base;        /**< 0: Linux formula from the QPNs */
	uint32_t sport_count;
	uint32_t mbufs;             /**< 0: 8192 */
	bool rx;                    /**< count what comes back */
	uint32_t rx_check_icrc;     /**< ICRC check: 0 off, 1 all, N 1 in N */
	/* Trace replay (pipelines/replay.h) instead of the collective. */
	char trace[256];            /**< pcap to replay; "" = the collective */
	uint32_t trace_speed_milli; /**< 1000 = own timing; 0 = port speed */
	uint32_t trace_loops;       /**< passes; 0 = until stopped */
	bool trace_rewrite;         /**< map hosts and QPs onto the ranks */
	bool trace_send_other;      /**< send non-RoCEv2 frames (else skip) */
	/* Closed loop: RC, DCQCN, CNPs (pipelines/generator.h). */
	bool closed_loop;
	uint32_t window;            /**< PSNs in flight per QP */
	uint32_t ack_every;         /**< responder ACK coalescing */
	uint32_t retx_timeout_us;   /**< local ACK timeout */
	bool dcqcn;                 /**< reaction point on */
	uint32_t dcqcn_g;           /**< x 1e-8 */
	uint32_t dcqcn_alpha_init;  /**< x 1e-6 */
	uint32_t dcqcn_rai_mbps;
	uint32_t dcqcn_rhai_mbps;
	uint32_t dcqcn_min_rate_mbps;
	uint32_t dcqcn_alpha_period_us;
	uint32_t dcqcn_rate_period_us;
	uint32_t dcqcn_byte_counter; /**< bytes; 0: never */
	uint32_t dcqcn_f;
	uint32_t cnp_interval_us;
	uint32_t cnp_dscp;
	uint32_t cnp_ecn;
	/* Fault stage on the generator's ports (lib/fault). */
	uint8_t fault_at;           /**< 0 rx, 1 tx */
	uint8_t fault_match;        /**< enum aifab_fault_match */
	uint32_t fault_drop_index;
	uint32_t fault_drop_every;
	uint32_t fault_drop_ppm;
	uint32_t fault_ce_index;
	uint32_t fault_ce_every;
	uint32_t fault_ce_ppm;
	uint32_t fault_corrupt_index;
	uint32_t fault_corrupt_every;
	uint32_t fault_corrupt_ppm;
	uint32_t virtual_tick_ns;   /**< 0: TSC; else the generator's clock */
	uint32_t gpu_hour_cents;    /**< price of a GPU-hour, cents */
};

/** A whole profile. */
struct aifab_profile {
	char path[PATH_MAX];        /**< file it came from ("<embedded>" ...) */

	/* [general] */
	char name[64];
	char host[64];              /**< this host of a multi-host run; "" */
	/** SHA-256 of the effective profile (lowercase hex): see
	 * aifab_profile_load(). Equal on every host of one collective. */
	char digest[65];
	uint64_t seed;              /**< RNG seed for everything random */
	uint32_t burst;             /**< rx/tx burst size, 1..512 */
	uint32_t mbufs;             /**< mbufs per pool; 0 = sized from ports */
	uint32_t mbuf_cache;        /**< per-lcore mempool cache */
	uint32_t mbuf_data_bytes;   /**< data room of each mbuf */

	/* [switch] */
	bool switch_enabled;
	uint16_t n_switch_lcores;   /**< 0: every worker lcore (or main if none) */
	uint16_t switch_lcores[AIFAB_MAX_WORKERS];
	bool check_ip4_csum;        /**< drop bad IPv4 header checksums */
	bool virtual_time;          /**< [general] clock = pcap rx timestamps */
	uint8_t clock;              /**< enum aifab_clock; virtual_time = true
				         makes it AIFAB_CLOCK_VIRTUAL */

	struct aifab_qos_params qos;
	struct aifab_tc_params tc[AIFAB_N_TC];
	struct aifab_ecmp_profile ecmp;
	struct aifab_pfc_profile pfc;
	struct aifab_gen_profile gen;
	struct aifab_lab_profile lab;

	uint16_t n_ports;
	struct aifab_port_params ports[AIFAB_MAX_PORTS];
	uint16_t n_neighs;
	struct aifab_neigh_params neighs[AIFAB_MAX_NEIGHS];
	/** Routes, allocated to their count (malloc; aifab_profile_free()). */
	uint32_t n_routes;
	uint32_t cap_routes;
	struct aifab_route_params *routes;

	/** Switch instances; switches[0] is the default one (may own no
	 * port when every port is named or the generator's). */
	uint8_t n_switches;
	struct aifab_switch_params switches[AIFAB_MAX_SWITCHES];
};

/** PFC of one lossless TC on one port, as the switch applies it. */
struct aifab_pfc_eff {
	bool enabled;               /**< TC lossless and [port] pfc on */
	uint32_t xoff_bytes;        /**< 0: dynamic (alpha x free buffer) */
	uint32_t xon_bytes;         /**< absolute XON, 0: XOFF - offset */
	uint32_t xon_offset_bytes;
	uint32_t headroom_bytes;    /**< 0: computed from speed, cable, MTU */
};

/**
 * Resolve TC @p tc's PFC on port @p port: each [port.X] pfc_* key that is
 * set overrides the [tc.N] one (a port's XON key, absolute or offset,
 * overrides both of the TC's), [port.X] pfc = false disables it.
 */
void aifab_profile_pfc_eff(const struct aifab_profile *p, unsigned int port,
			   unsigned int tc, struct aifab_pfc_eff *out);

/** Fill @p p with every key's default and no ports/neighbours/routes
 * (@p p's fields are overwritten: free a loaded profile first). */
void aifab_profile_defaults(struct aifab_profile *p);

/**
 * Free what a loaded profile or a switch view allocated (its route
 * table) and leave it with no routes. @p p NULL is fine.
 */
void aifab_profile_free(struct aifab_profile *p);

/**
 * Load a profile, apply overrides, validate.
 *
 * @param p      filled in (defaults first); zeroed, or a profile loaded
 *               before (its route table is freed first). Free it with
 *               aifab_profile_free(), also after a failed load.
 * @param path   INI file; NULL loads the embedded default profile.
 * @param sets   "section.key=value" strings applied in order after the file.
 * @param n_sets number of @p sets.
 * @param err    on failure one line: "<file>: [section] key = 'value': why;
 *               allowed: ..." (no trailing newline).
 * @return 0, or -1 with @p err filled.
 *
 * On success p->digest is the SHA-256 (FIPS 180-4, lowercase hex) of the
 * effective profile text: every entry of every section after the --set
 * overrides, one line `[section] key = value` each (value as written,
 * trimmed), lines sorted bytewise and each ended by '\n'. Host-local keys
 * are left out: `[general] host`, every `device` and every `lcores`, the
 * `[generator] fault_*` keys (the fault stage on this host's ports); the
 * `[generator] rank_table` path and each `[routes(.<name>)] file` path are
 * replaced by `sha256:<hex>` of the
 * file's bytes (kept as is when it cannot be read). Two hosts running one
 * collective must have the same digest.
 */
int aifab_profile_load(struct aifab_profile *p, const char *path,
		       const char *const *sets, unsigned int n_sets,
		       char *err, size_t errlen);

/** Index of the port named @p name, or -1. */
int aifab_profile_port_index(const struct aifab_profile *p, const char *name);

/**
 * The profile as switch instance @p sw sees it: only that switch's
 * neighbours and routes (route next hops re-indexed), its ECMP settings
 * as [ecmp]. Ports are unchanged (indices stay the app's). @p out is
 * zeroed or an earlier view or profile (its route table is freed); it
 * gets its own route table: aifab_profile_free() it.
 * @return 0, or -1 if @p sw is not a switch index or out of memory.
 */
int aifab_profile_switch_view(const struct aifab_profile *p, unsigned int sw,
			      struct aifab_profile *out);

/**
 * As aifab_profile_switch_view(), but with only the ports switch @p sw
 * owns (not in @p gen, a bool per port: the generator's), in profile
 * order, re-indexed from 0; neighbours' ports re-indexed alike. @p map
 * (AIFAB_SW_MAX_PORTS entries) gets each view port's index in @p p.
 * @return the number of ports, or -1 if @p sw is not a switch index or
 * owns more than AIFAB_SW_MAX_PORTS ports.
 */
int aifab_profile_switch_view_own(const struct aifab_profile *p,
				  unsigned int sw, const bool *gen,
				  struct aifab_profile *out, uint16_t *map);

/**
 * Write the key reference in Markdown (docs/profiles.md is exactly this
 * output; a test keeps them equal).
 */
void aifab_profile_write_doc(FILE *f);

#ifdef __cplusplus
}
#endif

#endif /* AIFAB_PROFILE_H */
