/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The one table of profile keys, and lookups in it: section kinds and
 * names, defaults, type names. Parsing (profile_parse.c), defaults, --set,
 * error messages and docs/profiles.md all come from this table.
 */
#include <stdint.h>
#include <string.h>

#include <rte_common.h>
#include <rte_string_fns.h>

#include "profile_priv.h"

#define P_OFF(f) offsetof(struct aifab_profile, f)
#define P_SZ(f) sizeof(((struct aifab_profile *)0)->f)
#define PP_OFF(f) offsetof(struct aifab_port_params, f)
#define PP_SZ(f) sizeof(((struct aifab_port_params *)0)->f)
#define T_OFF(f) offsetof(struct aifab_tc_params, f)
#define T_SZ(f) sizeof(((struct aifab_tc_params *)0)->f)
#define S_OFF(f) offsetof(struct aifab_switch_params, f)
#define S_SZ(f) sizeof(((struct aifab_switch_params *)0)->f)

static const char *const role_names[] = { "downlink", "uplink", NULL };
static const char *const coll_names[] = { "allreduce_ring", "allreduce_hd",
	"reducescatter_ring", "allgather_ring", "alltoall", NULL };
static const char *const trust_names[] = { "dscp", "pcp", NULL };
static const char *const limit_names[] = { "static", "dynamic", NULL };
static const char *const ecn_at_names[] = { "enqueue", "dequeue", NULL };
static const char *const hash_names[] = {
	"crc32c", "toeplitz", "jhash", NULL };
/* Index = bit: AIFAB_HF_SIP is bit 0 ... AIFAB_HF_DQPN bit 5. */
static const char *const field_names[] = {
	"sip", "dip", "proto", "sport", "dport", "dqpn", NULL };
static const char *const pfcwd_names[] = { "drop", "forward", "alert", NULL };
static const char *const fault_at_names[] = { "rx", "tx", NULL };
static const char *const fault_match_names[] = { "data", "roce", "all", NULL };
static const char *const lab_field_names[] = {
	"sport", "dqpn", "sip", "dip", NULL };
static const char *const clock_names[] = { "realtime", "virtual", NULL };
static const char *const prio_names[] = {
	"0", "1", "2", "3", "4", "5", "6", "7", NULL };

_Static_assert(AIFAB_HF_SIP == 1 << 0 && AIFAB_HF_DIP == 1 << 1 &&
	       AIFAB_HF_PROTO == 1 << 2 && AIFAB_HF_SPORT == 1 << 3 &&
	       AIFAB_HF_DPORT == 1 << 4 && AIFAB_HF_DQPN == 1 << 5,
	       "field_names[] order follows the AIFAB_HF_* bits");

const struct profile_key profile_keys[] = {
	/* [general] */
	{ .sect = PROFILE_SECT_GENERAL, .name = "name", .type = PROFILE_T_STRING,
	  .off = P_OFF(name), .size = P_SZ(name), .off_has = SIZE_MAX,
	  .def = "unnamed", .unit = "",
	  .help = "Profile name, shown in reports and telemetry." },
	{ .sect = PROFILE_SECT_GENERAL, .name = "seed", .type = PROFILE_T_U64,
	  .off = P_OFF(seed), .size = P_SZ(seed), .off_has = SIZE_MAX,
	  .min = 0, .max = UINT64_MAX, .def = "1", .unit = "",
	  .help = "Seed of every random draw (ECN marking, ECMP hash, "
		  "generator jitter); the same seed reproduces a run." },
	{ .sect = PROFILE_SECT_GENERAL, .name = "host", .type = PROFILE_T_STRING,
	  .off = P_OFF(host), .size = P_SZ(host), .off_has = SIZE_MAX,
	  .def = "", .unit = "",
	  .help = "Which host this process is when one collective spans "
		  "several servers (`--host NAME` sets it): it emulates the "
		  "ranks whose `rank_table` line says `host=NAME`, and those "
		  "without a host. Host-local: not part of the profile "
		  "digest. Empty = lines without a host only." },
	{ .sect = PROFILE_SECT_GENERAL, .name = "burst", .type = PROFILE_T_U32,
	  .off = P_OFF(burst), .size = P_SZ(burst), .off_has = SIZE_MAX,
	  .min = 1, .max = 512, .def = "32", .unit = "packets",
	  .help = "RX/TX burst size of every poll loop." },
	{ .sect = PROFILE_SECT_GENERAL, .name = "mbufs", .type = PROFILE_T_U32,
	  .off = P_OFF(mbufs), .size = P_SZ(mbufs), .off_has = SIZE_MAX,
	  .min = 1024, .max = 1048576, .zero_ok = true, .def = "0",
	  .unit = "mbufs",
	  .help = "Mbufs per pool; 0 sizes the pool from the ports' "
		  "descriptor rings, burst and lcores." },
	{ .sect = PROFILE_SECT_GENERAL, .name = "mbuf_cache", .type = PROFILE_T_U32,
	  .off = P_OFF(mbuf_cache), .size = P_SZ(mbuf_cache), .off_has = SIZE_MAX,
	  .min = 0, .max = 512, .def = "256", .unit = "mbufs",
	  .help = "Per-lcore mempool cache size." },
	{ .sect = PROFILE_SECT_GENERAL, .name = "mbuf_data_bytes",
	  .type = PROFILE_T_U32,
	  .off = P_OFF(mbuf_data_bytes), .size = P_SZ(mbuf_data_bytes),
	  .off_has = SIZE_MAX, .min = 1024, .max = 65000, .def = "2048",
	  .unit = "bytes",
	  .help = "Data room of each mbuf. Frames longer than this span "
		  "several mbufs, which NICs need RX scatter for and "
		  "net_pcap's infinite_rx refuses: raise it (e.g. 4352 for "
		  "4 KB RoCE frames) where that matters." },
	{ .sect = PROFILE_SECT_GENERAL, .name = "virtual_time",
	  .type = PROFILE_T_BOOL,
	  .off = P_OFF(virtual_time), .size = P_SZ(virtual_time),
	  .off_has = SIZE_MAX, .def = "false", .unit = "",
	  .help = "true: the clock is the pcap RX timestamp of the packet "
		  "being processed, so replays are bit-for-bit repeatable; "
		  "false: the TSC. `true` is an alias of `clock = virtual` "
		  "for pcap replays." },
	{ .sect = PROFILE_SECT_GENERAL, .name = "clock", .type = PROFILE_T_ENUM,
	  .off = P_OFF(clock), .size = P_SZ(clock), .off_has = SIZE_MAX,
	  .names = clock_names, .def = "realtime", .unit = "",
	  .help = "`realtime`: every pipeline runs on the TSC (NICs, and "
		  "in-memory profiles as fast as the CPU goes). `virtual`: "
		  "one discrete-event clock for the whole process; with pcap "
		  "inputs it is `virtual_time`, with in-memory wires every "
		  "pipeline runs on the main lcore in a fixed order, wires "
		  "deliver after serialization and `cable_m`, and the clock "
		  "jumps to the next event (docs/virtual-time.md). The "
		  "report's `clock` field says which ran." },

	/* [switch] */
	{ .sect = PROFILE_SECT_SWITCH, .name = "enabled", .type = PROFILE_T_BOOL,
	  .off = P_OFF(switch_enabled), .size = P_SZ(switch_enabled),
	  .off_has = SIZE_MAX, .def = "true", .unit = "",
	  .help = "Run the leaf switch pipeline." },
	{ .sect = PROFILE_SECT_SWITCH, .name = "lcores", .type = PROFILE_T_LCORES,
	  .off = P_OFF(switch_lcores), .size = P_SZ(switch_lcores),
	  .off2 = P_OFF(n_switch_lcores), .off_has = SIZE_MAX,
	  .def = "", .unit = "lcore ids",
	  .help = "Lcores that run the switch pipeline, e.g. `1`, `1,2` or "
		  "`1-3`; empty = every worker lcore (the main lcore if "
		  "there is none)." },
	{ .sect = PROFILE_SECT_SWITCH, .name = "check_ipv4_checksum",
	  .type = PROFILE_T_BOOL,
	  .off = P_OFF(check_ip4_csum), .size = P_SZ(check_ip4_csum),
	  .off_has = SIZE_MAX, .def = "true", .unit = "",
	  .help = "Verify IPv4 header checksums and drop bad ones." },

	/* [port.<name>] */
	{ .sect = PROFILE_SECT_PORT, .name = "device", .type = PROFILE_T_STRING,
	  .off = PP_OFF(device), .size = PP_SZ(device), .off_has = SIZE_MAX,
	  .def = "", .unit = "",
	  .help = "Ethdev name to bind (e.g. `0000:3b:00.0`, `net_pcap0`); "
		  "empty = the next unbound ethdev, in section order." },
	{ .sect = PROFILE_SECT_PORT, .name = "wire", .type = PROFILE_T_STRING,
	  .off = PP_OFF(wire), .size = PP_SZ(wire), .off_has = SIZE_MAX,
	  .def = "", .unit = "port name",
	  .help = "An in-memory cable to another port of this profile (a "
		  "pair of rings: what one sends the other receives), for "
		  "the fabric demo and tests without NICs; naming it on one "
		  "side is enough. Not with `device`." },
	{ .sect = PROFILE_SECT_PORT, .name = "switch", .type = PROFILE_T_STRING,
	  .off = PP_OFF(sw_name), .size = PP_SZ(sw_name), .off_has = SIZE_MAX,
	  .def = "", .unit = "switch name",
	  .help = "The switch instance that owns this port: a lower-case "
		  "letter, then `a-z 0-9 _`; empty = the default switch. "
		  "Each name is one switch pipeline with its own "
		  "`[routes.<name>]`, `[neighbors.<name>]` and "
		  "`[switch.<name>]`; wires between ports of different "
		  "switches make a fabric. Not on a `[generator] ports` "
		  "port." },
	{ .sect = PROFILE_SECT_PORT, .name = "mac", .type = PROFILE_T_MAC,
	  .off = PP_OFF(mac), .size = PP_SZ(mac), .off_has = PP_OFF(has_mac),
	  .def = NULL, .unit = "",
	  .help = "Port MAC address; unset = the NIC's own. Unique among "
		  "ports." },
	{ .sect = PROFILE_SECT_PORT, .name = "ipv4", .type = PROFILE_T_IP4,
	  .off = PP_OFF(ip4), .size = PP_SZ(ip4), .off2 = PP_OFF(ip4_depth),
	  .off_has = PP_OFF(has_ip4), .def = NULL, .unit = "",
	  .help = "Port IPv4 address and subnet. Port subnets must not "
		  "overlap; each neighbour must be inside one." },
	{ .sect = PROFILE_SECT_PORT, .name = "ipv6", .type = PROFILE_T_IP6,
	  .off = PP_OFF(ip6), .size = PP_SZ(ip6), .off2 = PP_OFF(ip6_depth),
	  .off_has = PP_OFF(has_ip6), .def = NULL, .unit = "",
	  .help = "Port IPv6 address and subnet, same rules as `ipv4`." },
	{ .sect = PROFILE_SECT_PORT, .name = "role", .type = PROFILE_T_ENUM,
	  .off = PP_OFF(role), .size = PP_SZ(role), .off_has = SIZE_MAX,
	  .names = role_names, .def = "downlink", .unit = "",
	  .help = "`downlink` faces hosts/GPUs, `uplink` faces the spine "
		  "(ECMP group members)." },
	{ .sect = PROFILE_SECT_PORT, .name = "speed_gbps",
	  .type = PROFILE_T_DECIMAL, .decimals = 3,
	  .off = PP_OFF(speed_mbps), .size = PP_SZ(speed_mbps),
	  .off_has = SIZE_MAX, .min = 10, .max = 1600000, .zero_ok = true,
	  .def = "0", .unit = "Gbit/s",
	  .help = "Shaper rate and PFC quanta time base; 0 = the link speed "
		  "the NIC reports." },
	{ .sect = PROFILE_SECT_PORT, .name = "mtu", .type = PROFILE_T_U32,
	  .off = PP_OFF(mtu), .size = PP_SZ(mtu), .off_has = SIZE_MAX,
	  .min = 68, .max = 9000, .def = "1500", .unit = "bytes",
	  .help = "L3 MTU." },
	{ .sect = PROFILE_SECT_PORT, .name = "rx_desc", .type = PROFILE_T_U32,
	  .off = PP_OFF(rx_desc), .size = PP_SZ(rx_desc), .off_has = SIZE_MAX,
	  .min = 64, .max = 16384, .def = "1024", .unit = "descriptors",
	  .help = "RX ring size per queue." },
	{ .sect = PROFILE_SECT_PORT, .name = "tx_desc", .type = PROFILE_T_U32,
	  .off = PP_OFF(tx_desc), .size = PP_SZ(tx_desc), .off_has = SIZE_MAX,
	  .min = 64, .max = 16384, .def = "1024", .unit = "descriptors",
	  .help = "TX ring size per queue." },
	{ .sect = PROFILE_SECT_PORT, .name = "trust", .type = PROFILE_T_ENUM,
	  .off = PP_OFF(trust), .size = PP_SZ(trust), .off_has = SIZE_MAX,
	  .names = trust_names, .def = "dscp", .unit = "",
	  .help = "Header that picks a received packet's traffic class: "
		  "`dscp` through `[qos] dscp_to_tc`, `pcp` (802.1p) through "
		  "`[qos] pcp_to_tc`." },
	{ .sect = PROFILE_SECT_PORT, .name = "cable_m", .type = PROFILE_T_U32,
	  .off = PP_OFF(cable_m), .size = PP_SZ(cable_m), .off_has = SIZE_MAX,
	  .min = 0, .max = 10000, .def = "3", .unit = "metres",
	  .help = "Cable length to the peer, for the computed PFC headroom "
		  "(`[tc.<n>] pfc_headroom_bytes = 0`)." },
	{ .sect = PROFILE_SECT_PORT, .name = "pfc", .type = PROFILE_T_BOOL,
	  .off = PP_OFF(pfc), .size = PP_SZ(pfc), .off_has = SIZE_MAX,
	  .def = "true", .unit = "",
	  .help = "PFC on this port for the lossless TCs. `false`: no PFC "
		  "is sent for what arrives here (its lossless traffic may "
		  "drop), received PFC is counted but not honoured, and no "
		  "headroom is kept for it." },
	{ .sect = PROFILE_SECT_PORT, .name = "pfc_xoff_bytes",
	  .type = PROFILE_T_U32, .off = PP_OFF(pfc_xoff_bytes),
	  .size = PP_SZ(pfc_xoff_bytes), .off_has = PP_OFF(has_pfc_xoff),
	  .min = 1024, .max = UINT32_MAX, .zero_ok = true, .def = NULL,
	  .unit = "bytes",
	  .help = "This port's `[tc.<n>] pfc_xoff_bytes` for every lossless "
		  "TC (0 = dynamic); unset: the TC's." },
	{ .sect = PROFILE_SECT_PORT, .name = "pfc_xon_offset_bytes",
	  .type = PROFILE_T_U32, .off = PP_OFF(pfc_xon_offset_bytes),
	  .size = PP_SZ(pfc_xon_offset_bytes),
	  .off_has = PP_OFF(has_pfc_xon_offset), .min = 0,
	  .max = UINT32_MAX, .def = NULL, .unit = "bytes",
	  .help = "This port's `[tc.<n>] pfc_xon_offset_bytes`; setting it "
		  "or `pfc_xon_bytes` here overrides both XON keys of the "
		  "TC; unset: the TC's." },
	{ .sect = PROFILE_SECT_PORT, .name = "pfc_xon_bytes",
	  .type = PROFILE_T_U32, .off = PP_OFF(pfc_xon_bytes),
	  .size = PP_SZ(pfc_xon_bytes), .off_has = PP_OFF(has_pfc_xon),
	  .min = 1, .max = UINT32_MAX, .zero_ok = true, .def = NULL,
	  .unit = "bytes",
	  .help = "This port's `[tc.<n>] pfc_xon_bytes` (absolute XON; 0 = "
		  "the offset); unset: the TC's." },
	{ .sect = PROFILE_SECT_PORT, .name = "pfc_headroom_bytes",
	  .type = PROFILE_T_U32, .off = PP_OFF(pfc_headroom_bytes),
	  .size = PP_SZ(pfc_headroom_bytes),
	  .off_has = PP_OFF(has_pfc_headroom), .min = 1024,
	  .max = UINT32_MAX, .zero_ok = true, .def = NULL, .unit = "bytes",
	  .help = "This port's `[tc.<n>] pfc_headroom_bytes` (0 = computed "
		  "from its speed, `cable_m` and MTU); unset: the TC's." },

	/* [port.<name>] fault_rx_* / fault_tx_*: one direction's impairments */
#define LF_U32(d, i, key, field, lo, hi, z, dflt, u, h) \
	{ .sect = PROFILE_SECT_PORT, .name = "fault_" d "_" key, \
	  .type = PROFILE_T_U32, .off = PP_OFF(fault[i].field), \
	  .size = PP_SZ(fault[i].field), .off_has = SIZE_MAX, .min = lo, \
	  .max = hi, .zero_ok = z, .def = dflt, .unit = u, .help = h }
#define LF_KEYS(d, i, dirtext) \
	{ .sect = PROFILE_SECT_PORT, .name = "fault_" d "_match", \
	  .type = PROFILE_T_ENUM, .off = PP_OFF(fault[i].match), \
	  .size = PP_SZ(fault[i].match), .off_has = SIZE_MAX, \
	  .names = fault_match_names, .def = "data", .unit = "", \
	  .help = "Frames " dirtext " that the loss and CE rules number and " \
		  "may hit: `data` (RoCEv2 SEND/WRITE), `roce` (also ACK, " \
		  "NAK, CNP) or `all`. Delay, rate and link down take every " \
		  "frame." }, \
	LF_U32(d, i, "drop_ppm", drop_ppm, 0, 1000000, false, "0", \
	       "per million", "Loss: probability of dropping a matching " \
	       "frame " dirtext " (seeded by `[general] seed`)."), \
	LF_U32(d, i, "drop_every", drop_every, 1, UINT32_MAX, true, "0", \
	       "frames", "Loss: drop every Nth matching frame " dirtext \
	       "; 0 = off."), \
	LF_U32(d, i, "ce_ppm", ce_ppm, 0, 1000000, false, "0", \
	       "per million", "Probability of marking an ECT matching frame " \
	       dirtext " CE."), \
	LF_U32(d, i, "delay_us", delay_us, 0, 10000000, false, "0", "us", \
	       "Latency added to every frame " dirtext "; frames wait in a " \
	       "FIFO delay line (see `queue`), so nothing is reordered."), \
	LF_U32(d, i, "jitter_us", jitter_us, 0, 10000000, false, "0", "us", \
	       "Plus a uniform 0..jitter_us per frame (seeded); FIFO order " \
	       "is kept."), \
	{ .sect = PROFILE_SECT_PORT, .name = "fault_" d "_rate_gbps", \
	  .type = PROFILE_T_DECIMAL, .decimals = 3, \
	  .off = PP_OFF(fault[i].rate_mbps), .size = PP_SZ(fault[i].rate_mbps), \
	  .off_has = SIZE_MAX, .min = 1, .max = 1600000, .zero_ok = true, \
	  .def = "0", .unit = "Gbit/s", \
	  .help = "Bandwidth limit " dirtext " (frames queue in the delay " \
		  "line at this rate, wire bytes); 0 = none." }, \
	LF_U32(d, i, "queue", queue, 16, 1048576, false, "8192", "frames", \
	       "Delay line size " dirtext "; frames beyond it are lost " \
	       "(counted `link_queue_dropped`)."), \
	LF_U32(d, i, "from_us", from_us, 0, UINT32_MAX, false, "0", "us", \
	       "Loss, CE, delay and rate " dirtext " start this long after " \
	       "the first frame or poll on the port."), \
	LF_U32(d, i, "until_us", until_us, 1, UINT32_MAX, true, "0", "us", \
	       "... and stop at this time; 0 = never."), \
	LF_U32(d, i, "down_at_us", down_at_us, 0, UINT32_MAX, false, "0", \
	       "us", "Link down " dirtext " from this time ..."), \
	LF_U32(d, i, "down_for_us", down_for_us, 1, UINT32_MAX, true, "0", \
	       "us", "... for this long (every frame lost, counted " \
	       "`link_down_dropped`); 0 = never down."), \
	{ .sect = PROFILE_SECT_PORT, .name = "fault_" d "_pfc_storm", \
	  .type = PROFILE_T_FLAGS, .off = PP_OFF(fault[i].storm_prio), \
	  .size = PP_SZ(fault[i].storm_prio), .off_has = SIZE_MAX, \
	  .names = prio_names, .zero_ok = true, .def = "", .unit = "", \
	  .help = "PFC storm (a stuck XOFF) on these priorities, e.g. `3`: " \
		  dirtext ", one XOFF (quanta 65535) every 100 us during " \
		  "the storm; empty = none." }, \
	LF_U32(d, i, "pfc_storm_at_us", storm_at_us, 0, UINT32_MAX, false, \
	       "0", "us", "The storm starts at this time ..."), \
	LF_U32(d, i, "pfc_storm_for_us", storm_for_us, 1, UINT32_MAX, true, \
	       "0", "us", "... and lasts this long; 0 = to the end.")
	LF_KEYS("rx", AIFAB_FAULT_DIR_RX,
		"arriving on the port (from its peer)"),
	LF_KEYS("tx", AIFAB_FAULT_DIR_TX,
		"leaving the port (to its peer)"),
#undef LF_KEYS
#undef LF_U32

	/* [qos] */
	{ .sect = PROFILE_SECT_QOS, .name = "buffer_bytes", .type = PROFILE_T_U64,
	  .off = P_OFF(qos.buffer_bytes), .size = P_SZ(qos.buffer_bytes),
	  .off_has = SIZE_MAX, .min = 65536, .max = 4294967296ULL,
	  .def = "4194304", .unit = "bytes",
	  .help = "Shared packet buffer of the switch, used by every egress "
		  "queue (a 32-port 100G leaf chip has 16-64 MB: about 1 MB "
		  "per port). The mbuf pool is sized to hold it full of "
		  "512-byte packets. The PFC headroom of every lossless "
		  "(port, priority) is kept out of it (in 256-byte cells, "
		  "for frames of the port's MTU): lossy queues share the "
		  "rest, lossless ones spill into the reserve when it is "
		  "full." },
	{ .sect = PROFILE_SECT_QOS, .name = "limit_mode", .type = PROFILE_T_ENUM,
	  .off = P_OFF(qos.limit_mode), .size = P_SZ(qos.limit_mode),
	  .off_has = SIZE_MAX, .names = limit_names, .def = "dynamic",
	  .unit = "",
	  .help = "Queue limits: `static` caps each queue at its TC's "
		  "`queue_limit_bytes`; `dynamic` lets it grow to the TC's "
		  "`alpha` x the free shared buffer." },
	{ .sect = PROFILE_SECT_QOS, .name = "ecn_at", .type = PROFILE_T_ENUM,
	  .off = P_OFF(qos.ecn_at), .size = P_SZ(qos.ecn_at),
	  .off_has = SIZE_MAX, .names = ecn_at_names, .def = "enqueue",
	  .unit = "",
	  .help = "When ECN marking reads the queue depth: as the packet is "
		  "enqueued, or as it is dequeued." },
	{ .sect = PROFILE_SECT_QOS, .name = "shaper_burst_bytes",
	  .type = PROFILE_T_U32,
	  .off = P_OFF(qos.shaper_burst_bytes),
	  .size = P_SZ(qos.shaper_burst_bytes), .off_has = SIZE_MAX,
	  .min = 1600, .max = 16777216, .def = "32768", .unit = "bytes",
	  .help = "Token bucket depth of each port's shaper." },
	{ .sect = PROFILE_SECT_QOS, .name = "dscp_to_tc", .type = PROFILE_T_MAP,
	  .off = P_OFF(qos.dscp_tc), .size = P_SZ(qos.dscp_tc),
	  .off_has = SIZE_MAX, .max = AIFAB_N_TC - 1, .def = "26:3 48:6",
	  .unit = "DSCP:TC",
	  .help = "Traffic class of each DSCP on `trust = dscp` ports; "
		  "unlisted DSCPs go to TC 0. The default puts RoCE data "
		  "(DSCP 26) in TC 3 and CNPs (DSCP 48) in TC 6." },
	{ .sect = PROFILE_SECT_QOS, .name = "pcp_to_tc", .type = PROFILE_T_MAP,
	  .off = P_OFF(qos.pcp_tc), .size = P_SZ(qos.pcp_tc),
	  .off_has = SIZE_MAX, .max = AIFAB_N_TC - 1,
	  .def = "0:0 1:1 2:2 3:3 4:4 5:5 6:6 7:7", .unit = "PCP:TC",
	  .help = "Traffic class of each 802.1p PCP on `trust = pcp` ports; "
		  "unlisted PCPs go to TC 0. Also the priority -> TC map of "
		  "PFC on every port: a received pause for priority p stops "
		  "TC `pcp_to_tc[p]`, and XOFF for a lossless TC names "
		  "every priority mapped to it." },

	/* [tc.<n>]: the same keys for every n, defaults per n where marked */
	{ .sect = PROFILE_SECT_TC, .name = "strict", .type = PROFILE_T_BOOL,
	  .off = T_OFF(strict), .size = T_SZ(strict), .off_has = SIZE_MAX,
	  .def = "false", .def_idx = { [6] = "true", [7] = "true" },
	  .unit = "",
	  .help = "Strict priority: served before every non-strict TC, "
		  "higher TC first." },
	{ .sect = PROFILE_SECT_TC, .name = "weight", .type = PROFILE_T_U32,
	  .off = T_OFF(weight), .size = T_SZ(weight), .off_has = SIZE_MAX,
	  .min = 1, .max = 100, .def = "1", .unit = "",
	  .help = "DWRR weight among the port's non-strict TCs." },
	{ .sect = PROFILE_SECT_TC, .name = "lossless", .type = PROFILE_T_BOOL,
	  .off = T_OFF(lossless), .size = T_SZ(lossless), .off_has = SIZE_MAX,
	  .def = "false", .def_idx = { [3] = "true" }, .unit = "",
	  .help = "Lossless: PFC XOFF towards the sender instead of "
		  "dropping; lossy TCs tail-drop." },
	{ .sect = PROFILE_SECT_TC, .name = "queue_limit_bytes",
	  .type = PROFILE_T_U32,
	  .off = T_OFF(queue_limit_bytes), .size = T_SZ(queue_limit_bytes),
	  .off_has = SIZE_MAX, .min = 1024, .max = UINT32_MAX, .zero_ok = true,
	  .def = "0", .unit = "bytes",
	  .help = "Static queue limit (`[qos] limit_mode = static`), at most "
		  "`[qos] buffer_bytes`; 0 = no limit but the shared "
		  "buffer." },
	{ .sect = PROFILE_SECT_TC, .name = "alpha", .type = PROFILE_T_DECIMAL,
	  .decimals = 3,
	  .off = T_OFF(alpha_milli), .size = T_SZ(alpha_milli),
	  .off_has = SIZE_MAX, .min = 15, .max = 8000, .def = "1",
	  .unit = "x free buffer",
	  .help = "Dynamic limit (`[qos] limit_mode = dynamic`): a queue may "
		  "hold alpha x the free shared buffer; also the dynamic "
		  "XOFF threshold (`pfc_xoff_bytes = 0`)." },
	{ .sect = PROFILE_SECT_TC, .name = "ecn", .type = PROFILE_T_BOOL,
	  .off = T_OFF(ecn), .size = T_SZ(ecn), .off_has = SIZE_MAX,
	  .def = "false", .def_idx = { [3] = "true" }, .unit = "",
	  .help = "RFC 3168 ECN: mark ECT packets CE from queue depth." },
	{ .sect = PROFILE_SECT_TC, .name = "ecn_kmin_bytes",
	  .type = PROFILE_T_U32,
	  .off = T_OFF(ecn_kmin_bytes), .size = T_SZ(ecn_kmin_bytes),
	  .off_has = SIZE_MAX, .min = 0, .max = UINT32_MAX, .def = "400000",
	  .unit = "bytes",
	  .help = "Queue depth below which nothing is marked; at most "
		  "`ecn_kmax_bytes`." },
	{ .sect = PROFILE_SECT_TC, .name = "ecn_kmax_bytes",
	  .type = PROFILE_T_U32,
	  .off = T_OFF(ecn_kmax_bytes), .size = T_SZ(ecn_kmax_bytes),
	  .off_has = SIZE_MAX, .min = 0, .max = UINT32_MAX, .def = "1600000",
	  .unit = "bytes",
	  .help = "Queue depth where the marking probability reaches "
		  "`ecn_pmax_percent`; above it every ECT packet is marked." },
	{ .sect = PROFILE_SECT_TC, .name = "ecn_pmax_percent",
	  .type = PROFILE_T_DECIMAL, .decimals = 4,
	  .off = T_OFF(ecn_pmax_ppm), .size = T_SZ(ecn_pmax_ppm),
	  .off_has = SIZE_MAX, .min = 0, .max = 1000000, .def = "20",
	  .unit = "%",
	  .help = "Marking probability at Kmax, rising linearly from 0 at "
		  "Kmin (stored in ppm)." },
	{ .sect = PROFILE_SECT_TC, .name = "pfc_xoff_bytes",
	  .type = PROFILE_T_U32,
	  .off = T_OFF(pfc_xoff_bytes), .size = T_SZ(pfc_xoff_bytes),
	  .off_has = SIZE_MAX, .min = 1024, .max = UINT32_MAX, .zero_ok = true,
	  .def = "0", .unit = "bytes",
	  .help = "Ingress buffer use of a lossless TC at which XOFF is "
		  "sent; 0 = dynamic (`alpha` x the free buffer)." },
	{ .sect = PROFILE_SECT_TC, .name = "pfc_xon_offset_bytes",
	  .type = PROFILE_T_U32,
	  .off = T_OFF(pfc_xon_offset_bytes), .size = T_SZ(pfc_xon_offset_bytes),
	  .off_has = SIZE_MAX, .min = 0, .max = UINT32_MAX, .def = "20000",
	  .unit = "bytes",
	  .help = "XON is sent when use falls to XOFF minus this; below a "
		  "static `pfc_xoff_bytes`." },
	{ .sect = PROFILE_SECT_TC, .name = "pfc_xon_bytes",
	  .type = PROFILE_T_U32,
	  .off = T_OFF(pfc_xon_bytes), .size = T_SZ(pfc_xon_bytes),
	  .off_has = SIZE_MAX, .min = 1, .max = UINT32_MAX, .zero_ok = true,
	  .def = "0", .unit = "bytes",
	  .help = "Absolute XON threshold: XON is sent when use falls to "
		  "this; 0 = XOFF minus `pfc_xon_offset_bytes`. Below a "
		  "static `pfc_xoff_bytes`; under a dynamic XOFF, XON is at "
		  "most XOFF - 1." },
	{ .sect = PROFILE_SECT_TC, .name = "pfc_headroom_bytes",
	  .type = PROFILE_T_U32,
	  .off = T_OFF(pfc_headroom_bytes), .size = T_SZ(pfc_headroom_bytes),
	  .off_has = SIZE_MAX, .min = 1024, .max = UINT32_MAX, .zero_ok = true,
	  .def = "0", .unit = "bytes",
	  .help = "Buffer kept for what still arrives after XOFF; 0 = "
		  "computed from the port's speed, `cable_m` and MTU. Kept "
		  "out of `[qos] buffer_bytes` per port for a lossless TC; "
		  "lossless drops past it (headroom_overflow) are reported "
		  "on stderr at the end of the run." },
	{ .sect = PROFILE_SECT_TC, .name = "pfc_pause_quanta",
	  .type = PROFILE_T_U32,
	  .off = T_OFF(pfc_pause_quanta), .size = T_SZ(pfc_pause_quanta),
	  .off_has = SIZE_MAX, .min = 1, .max = 65535, .def = "65535",
	  .unit = "quanta",
	  .help = "Pause time sent in XOFF (1 quantum = 512 bit times at "
		  "the port speed); XOFF is refreshed before it runs out." },

	/* [ecmp] */
	{ .sect = PROFILE_SECT_ECMP, .name = "hash", .type = PROFILE_T_ENUM,
	  .off = P_OFF(ecmp.hash), .size = P_SZ(ecmp.hash),
	  .off_has = SIZE_MAX, .names = hash_names, .def = "crc32c",
	  .unit = "",
	  .help = "Hash function: `crc32c` (`rte_hash_crc`), `toeplitz` "
		  "(`rte_softrss` with `rss_key`), `jhash` (`rte_jhash`)." },
	{ .sect = PROFILE_SECT_ECMP, .name = "seed", .type = PROFILE_T_U32,
	  .off = P_OFF(ecmp.seed), .size = P_SZ(ecmp.seed),
	  .off_has = SIZE_MAX, .min = 0, .max = UINT32_MAX, .def = "0",
	  .unit = "",
	  .help = "Hash seed; tiers with the same function and seed "
		  "polarise, so give each its own." },
	{ .sect = PROFILE_SECT_ECMP, .name = "fields", .type = PROFILE_T_FLAGS,
	  .off = P_OFF(ecmp.fields), .size = P_SZ(ecmp.fields),
	  .off_has = SIZE_MAX, .names = field_names,
	  .def = "sip,dip,proto,sport,dport", .unit = "",
	  .help = "Header fields hashed: addresses, IP protocol, L4 ports "
		  "and `dqpn`, the RoCEv2 BTH destination QP." },
	{ .sect = PROFILE_SECT_ECMP, .name = "resilient", .type = PROFILE_T_BOOL,
	  .off = P_OFF(ecmp.resilient), .size = P_SZ(ecmp.resilient),
	  .off_has = SIZE_MAX, .def = "true", .unit = "",
	  .help = "Resilient groups: a bucket table per group, so removing "
		  "a member remaps only that member's buckets." },
	{ .sect = PROFILE_SECT_ECMP, .name = "buckets", .type = PROFILE_T_U32,
	  .off = P_OFF(ecmp.buckets), .size = P_SZ(ecmp.buckets),
	  .off_has = SIZE_MAX, .min = 8, .max = 65536, .pow2 = true,
	  .def = "256", .unit = "buckets",
	  .help = "Buckets per resilient group." },
	{ .sect = PROFILE_SECT_ECMP, .name = "rss_key", .type = PROFILE_T_HEX,
	  .off = P_OFF(ecmp.rss_key), .size = P_SZ(ecmp.rss_key),
	  .off2 = P_OFF(ecmp.rss_key_len), .off_has = SIZE_MAX,
	  .min = 40, .max = AIFAB_RSS_KEY_MAX, .zero_ok = true, .def = "",
	  .unit = "bytes",
	  .help = "Toeplitz key; empty = the Microsoft RSS key." },

	/* [switch.<name>] */
	{ .sect = PROFILE_SECT_SWNAMED, .name = "ecmp_hash",
	  .type = PROFILE_T_ENUM, .off = S_OFF(ecmp.hash),
	  .size = S_SZ(ecmp.hash), .off_has = SIZE_MAX, .names = hash_names,
	  .def = NULL, .unit = "",
	  .help = "This switch's ECMP hash function; unset = `[ecmp] hash`." },
	{ .sect = PROFILE_SECT_SWNAMED, .name = "ecmp_seed",
	  .type = PROFILE_T_U32, .off = S_OFF(ecmp.seed),
	  .size = S_SZ(ecmp.seed), .off_has = SIZE_MAX, .min = 0,
	  .max = UINT32_MAX, .def = NULL, .unit = "",
	  .help = "This switch's ECMP hash seed; unset = `[ecmp] seed`. "
		  "Two tiers with the same hash, fields and seed polarise." },
	{ .sect = PROFILE_SECT_SWNAMED, .name = "ecmp_fields",
	  .type = PROFILE_T_FLAGS, .off = S_OFF(ecmp.fields),
	  .size = S_SZ(ecmp.fields), .off_has = SIZE_MAX,
	  .names = field_names, .def = NULL, .unit = "",
	  .help = "This switch's hashed fields; unset = `[ecmp] fields`." },

	/* [pfc] */
	{ .sect = PROFILE_SECT_PFC, .name = "watchdog", .type = PROFILE_T_BOOL,
	  .off = P_OFF(pfc.watchdog), .size = P_SZ(pfc.watchdog),
	  .off_has = SIZE_MAX, .def = "true", .unit = "",
	  .help = "PFC watchdog: a TC paused without a break for "
		  "`detection_ms` while PFC keeps arriving is stormed and gets `action`." },
	{ .sect = PROFILE_SECT_PFC, .name = "detection_ms", .type = PROFILE_T_U32,
	  .off = P_OFF(pfc.detection_ms), .size = P_SZ(pfc.detection_ms),
	  .off_has = SIZE_MAX, .min = 100, .max = 5000, .def = "200",
	  .unit = "ms",
	  .help = "Continuous pause that counts as a storm." },
	{ .sect = PROFILE_SECT_PFC, .name = "restoration_ms",
	  .type = PROFILE_T_U32,
	  .off = P_OFF(pfc.restoration_ms), .size = P_SZ(pfc.restoration_ms),
	  .off_has = SIZE_MAX, .min = 100, .max = 60000, .def = "200",
	  .unit = "ms",
	  .help = "A stormed TC is restored after this long without PFC." },
	{ .sect = PROFILE_SECT_PFC, .name = "action", .type = PROFILE_T_ENUM,
	  .off = P_OFF(pfc.action), .size = P_SZ(pfc.action),
	  .off_has = SIZE_MAX, .names = pfcwd_names, .def = "drop", .unit = "",
	  .help = "On a storm: `drop` flushes the TC's queue, drops its "
		  "traffic and ignores its PFC; `forward` ignores its PFC; "
		  "`alert` only counts." },
	{ .sect = PROFILE_SECT_PFC, .name = "hw_offload", .type = PROFILE_T_BOOL,
	  .off = P_OFF(pfc.hw_offload), .size = P_SZ(pfc.hw_offload),
	  .off_has = SIZE_MAX, .def = "false", .unit = "",
	  .help = "Also hand PFC to the NIC "
		  "(`rte_eth_dev_priority_flow_ctrl_set`, per priority of a "
		  "lossless TC: pause time `pfc_pause_quanta`, high/low water "
		  "from a static `pfc_xoff_bytes` and XON in KiB) where its "
		  "PMD supports it, else one line per port says PFC stays in "
		  "software; the software path runs either way. Without it "
		  "the NIC is asked to pass MAC control frames up "
		  "(`mac_ctrl_frame_fwd`; docs/lab.md)." },
	{ .sect = PROFILE_SECT_PFC, .name = "replay_peer_pause",
	  .type = PROFILE_T_BOOL,
	  .off = P_OFF(pfc.replay_peer_pause),
	  .size = P_SZ(pfc.replay_peer_pause),
	  .off_has = SIZE_MAX, .def = "true", .unit = "",
	  .help = "With `[general] virtual_time`, each pcap input stands for "
		  "a link partner that honours the PFC this switch sends it: "
		  "once an XOFF reaches the peer (cable both ways plus the "
		  "802.3 response time) its next frame of that priority, and "
		  "the frames behind it, wait until the pause ends. `false`: "
		  "inputs are open loop." },
	/* [generator] */
#define G_U32(key, field, lo, hi, d, u, h) \
	{ .sect = PROFILE_SECT_GENERATOR, .name = key, .type = PROFILE_T_U32, \
	  .off = P_OFF(gen.field), .size = P_SZ(gen.field), \
	  .off_has = SIZE_MAX, .min = lo, .max = hi, .def = d, .unit = u, \
	  .help = h }
	{ .sect = PROFILE_SECT_GENERATOR, .name = "enabled",
	  .type = PROFILE_T_BOOL, .off = P_OFF(gen.enabled),
	  .size = P_SZ(gen.enabled), .off_has = SIZE_MAX, .def = "false",
	  .unit = "", .help = "Run the generator pipeline." },
	{ .sect = PROFILE_SECT_GENERATOR, .name = "lcores",
	  .type = PROFILE_T_LCORES, .off = P_OFF(gen.lcores),
	  .size = P_SZ(gen.lcores), .off2 = P_OFF(gen.n_lcores),
	  .off_has = SIZE_MAX, .def = "", .unit = "lcore id",
	  .help = "Lcores that run the generator, one worker each, e.g. "
		  "`2` or `1-4`: the ranks are dealt round robin over them, "
		  "each worker with its own TX queue on every generator "
		  "port (and RX queue where the port has several; frames of "
		  "another worker's ranks are handed to it through a ring), "
		  "its own pools and counters (docs/generator.md, "
		  "\"Several lcores\"), at most 16. With `[general] clock = "
		  "virtual` all workers run on the main lcore in this order. "
		  "Several lcores need `virtual_tick_ns = 0` and not trace "
		  "replay or a `[lab]` recipe. Empty = one worker on the last "
		  "worker lcore (shared with the switch), or main." },
	{ .sect = PROFILE_SECT_GENERATOR, .name = "ports",
	  .type = PROFILE_T_STRING, .off = P_OFF(gen.ports),
	  .size = P_SZ(gen.ports), .off_has = SIZE_MAX, .def = "",
	  .unit = "port names",
	  .help = "Ports the generator sends from and receives on, e.g. "
		  "`p0 p1`; a name ending in `*` is every port whose name "
		  "starts so, in profile order (`g*`: a fabric's 1024 "
		  "hosts); empty = every port. The switch does not receive "
		  "on them." },
	{ .sect = PROFILE_SECT_GENERATOR, .name = "gateway_macs",
	  .type = PROFILE_T_STRING, .off = P_OFF(gen.gateway_macs),
	  .size = P_SZ(gen.gateway_macs), .off_has = SIZE_MAX, .def = "",
	  .unit = "MACs",
	  .help = "Against a routing switch under test: the DUT's MAC on "
		  "each generator port, in `ports` order; frames leave "
		  "addressed to it (ranks in their own subnets, `ip_stride`). "
		  "Empty: in-memory cables to our switch give it, else frames "
		  "go to the destination rank's MAC (an L2 DUT)." },
	{ .sect = PROFILE_SECT_GENERATOR, .name = "collective",
	  .type = PROFILE_T_ENUM, .off = P_OFF(gen.collective),
	  .size = P_SZ(gen.collective), .off_has = SIZE_MAX,
	  .names = coll_names, .def = "allreduce_ring", .unit = "",
	  .help = "Collective and algorithm (NCCL's ring, halving-doubling, "
		  "MoE all-to-all)." },
	G_U32("ranks", ranks, 2, 16384, "8", "ranks", "GPU ranks N."),
	{ .sect = PROFILE_SECT_GENERATOR, .name = "size_bytes",
	  .type = PROFILE_T_U64, .off = P_OFF(gen.size_bytes),
	  .size = P_SZ(gen.size_bytes), .off_has = SIZE_MAX, .min = 1,
	  .max = 1ULL << 40, .def = "1048576", .unit = "bytes",
	  .help = "Message size S of one collective (nccl-tests' size)." },
	G_U32("channels", channels, 1, 64, "1", "rings",
	      "Channels C: NCCL's parallel rings, each its own connections."),
	G_U32("qps_per_conn", qps_per_conn, 1, 8, "1", "QPs",
	      "RC QPs per connection; each has its own UDP source port, so "
	      "its own ECMP path."),
	G_U32("ib_mtu", ib_mtu, 256, 4096, "1024", "bytes",
	      "IB MTU (256, 512, 1024, 2048 or 4096); 4096 needs port mtu "
	      ">= 4156."),
	G_U32("iterations", iterations, 1, 1000000, "10", "",
	      "Timed iterations of the collective."),
	G_U32("warmup", warmup, 0, 1000000, "2", "",
	      "Untimed iterations first."),
	G_U32("gap_us", gap_us, 0, 100000000, "0", "us",
	      "Compute gap between iterations: calm, then chaos."),
	G_U32("step_time_us", step_time_us, 0, 100000000, "0", "us",
	      "Open loop: least time between the starts of two steps."),
	{ .sect = PROFILE_SECT_GENERATOR, .name = "rate_gbps",
	  .type = PROFILE_T_DECIMAL, .off = P_OFF(gen.rate_mbps),
	  .size = P_SZ(gen.rate_mbps), .off_has = SIZE_MAX, .decimals = 3,
	  .min = 10, .max = 1600000, .zero_ok = true, .def = "0",
	  .unit = "Gbit/s",
	  .help = "Pacing per rank; 0 = the port speed shared by the ranks "
		  "on the port." },
	{ .sect = PROFILE_SECT_GENERATOR, .name = "bursty",
	  .type = PROFILE_T_BOOL, .off = P_OFF(gen.bursty),
	  .size = P_SZ(gen.bursty), .off_has = SIZE_MAX, .def = "false",
	  .unit = "", .help = "Bucket depth of burst_pkts frames (else one): "
		  "line-rate bursts instead of smooth pacing." },
	G_U32("burst_pkts", burst_pkts, 1, 512, "32", "frames",
	      "Frames per rank per poll (and the bucket depth when bursty)."),
	G_U32("dscp", dscp, 0, 63, "26", "", "DSCP of data frames."),
	G_U32("ecn", ecn, 0, 3, "2", "",
	      "ECN codepoint of data frames: 0 Not-ECT, 1 ECT(1), 2 ECT(0)."),
	{ .sect = PROFILE_SECT_GENERATOR, .name = "channel_dscp",
	  .type = PROFILE_T_STRING, .off = P_OFF(gen.channel_dscp),
	  .size = P_SZ(gen.channel_dscp), .off_has = SIZE_MAX, .def = "",
	  .unit = "",
	  .help = "Per channel `dscp[/ecn]`, in channel order (e.g. `26 "
		  "24/1`): that channel's data and ACKs carry it; channels "
		  "beyond the list use dscp/ecn. PFC is honoured on "
		  "data_prio for every channel." },
	{ .sect = PROFILE_SECT_GENERATOR, .name = "base_mac",
	  .type = PROFILE_T_MAC, .off = P_OFF(gen.base_mac),
	  .size = P_SZ(gen.base_mac), .off_has = P_OFF(gen.has_base_mac),
	  .def = NULL, .unit = "",
	  .help = "MAC of rank 0; rank r adds r to the low 24 bits "
		  "(default 02:a1:fa:00:00:00)." },
	{ .sect = PROFILE_SECT_GENERATOR, .name = "base_ip",
	  .type = PROFILE_T_IP4, .off = P_OFF(gen.base_ip),
	  .size = P_SZ(gen.base_ip), .off2 = P_OFF(gen.base_ip_depth),
	  .off_has = P_OFF(gen.has_base_ip), .def = NULL, .unit = "",
	  .help = "IPv4 of rank 0 with its prefix length; rank r adds r "
		  "(default 10.100.0.1/16)." },
	G_U32("ip_stride", ip_stride, 1, 16777216, "1", "addresses",
	      "Rank r's IPv4 is base_ip + r x ip_stride (256: one /24 per "
	      "rank, so each rank can sit behind its own switch port)."),
	{ .sect = PROFILE_SECT_GENERATOR, .name = "rank_table",
	  .type = PROFILE_T_STRING, .off = P_OFF(gen.rank_table),
	  .size = P_SZ(gen.rank_table), .off_has = SIZE_MAX, .def = "",
	  .unit = "path",
	  .help = "A file giving each rank its MAC, IPv4 and port, over "
		  "base_mac/base_ip and the round robin: one line per rank "
		  "`<rank> <mac> <ipv4> [<port>] [host=<name>]` (# "
		  "comments; every rank 0..ranks-1 once; port one of `ports` "
		  "for this host's ranks; a host names the server that "
		  "emulates the rank, none = this one: docs/lab.md, several "
		  "servers). Empty = none." },
	G_U32("qpn_base", qpn_base, 1, 0xFFF000, "256", "",
	      "First QP number; connection i uses qpn_base + 2i (sender) "
	      "and + 2i + 1 (receiver)."),
	G_U32("sport_base", sport_base, 0, 65535, "0", "",
	      "UDP source ports from sport_base, sport_count of them; 0 = "
	      "the Linux formula from the QP numbers."),
	G_U32("sport_count", sport_count, 0, 65535, "0", "", "See sport_base."),
	G_U32("mbufs", mbufs, 0, 65000, "0", "mbufs",
	      "Generator pool size; 0 = 8192."),
	{ .sect = PROFILE_SECT_GENERATOR, .name = "rx",
	  .type = PROFILE_T_BOOL, .off = P_OFF(gen.rx), .size = P_SZ(gen.rx),
	  .off_has = SIZE_MAX, .def = "true", .unit = "",
	  .help = "Receive on the generator's ports: loss, reordering, "
		  "duplicates per QP and latency." },
	{ .sect = PROFILE_SECT_GENERATOR, .name = "rx_check_icrc",
	  .type = PROFILE_T_SAMPLE, .off = P_OFF(gen.rx_check_icrc),
	  .size = P_SZ(gen.rx_check_icrc), .off_has = SIZE_MAX, .min = 1,
	  .max = UINT32_MAX, .def = "full", .unit = "",
	  .help = "Check the ICRC of received RoCEv2 frames as an RDMA NIC "
		  "does: a bad one is dropped and counted `rx_bad_icrc` (the "
		  "closed loop's sender recovers by NAK or timeout). `full`: "
		  "every frame; `every=N`: one RoCEv2 frame in N per port "
		  "(the 1st, N+1st, ...: counted, not drawn); `off`: accept "
		  "any." },
	{ .sect = PROFILE_SECT_GENERATOR, .name = "trace",
	  .type = PROFILE_T_STRING, .off = P_OFF(gen.trace),
	  .size = P_SZ(gen.trace), .off_has = SIZE_MAX, .def = "",
	  .unit = "path",
	  .help = "A pcap (Ethernet) to replay from the generator's lcore "
		  "and ports instead of the collective: loaded into memory "
		  "at start, frames sent in order at the trace's timing "
		  "(see docs/generator.md); empty = the collective." },
	{ .sect = PROFILE_SECT_GENERATOR, .name = "trace_speed",
	  .type = PROFILE_T_DECIMAL, .off = P_OFF(gen.trace_speed_milli),
	  .size = P_SZ(gen.trace_speed_milli), .off_has = SIZE_MAX,
	  .decimals = 3, .min = 1, .max = 1000000, .zero_ok = true,
	  .def = "1", .unit = "x",
	  .help = "Trace clock scale: 1 = its own timing, 2 = twice as "
		  "fast, 0.5 = half; 0 = as fast as the ports allow. Never "
		  "faster than a port's speed." },
	G_U32("trace_loops", trace_loops, 0, 1000000000, "1", "passes",
	      "Passes over the trace; 0 = until --duration or a signal. "
	      "Rewritten PSNs carry on from pass to pass."),
	{ .sect = PROFILE_SECT_GENERATOR, .name = "trace_rewrite",
	  .type = PROFILE_T_BOOL, .off = P_OFF(gen.trace_rewrite),
	  .size = P_SZ(gen.trace_rewrite), .off_has = SIZE_MAX,
	  .def = "true", .unit = "",
	  .help = "Rewrite IPv4 RoCEv2 frames onto the ranks: each trace "
		  "host (in order of first appearance) to rank h % ranks "
		  "(base_mac/base_ip + r), each (source, destination, dest "
		  "QP) to connection c (dest QP qpn_base + 2c + 1, its UDP "
		  "source port); checksums and ICRC recomputed." },
	{ .sect = PROFILE_SECT_GENERATOR, .name = "trace_send_other",
	  .type = PROFILE_T_BOOL, .off = P_OFF(gen.trace_send_other),
	  .size = P_SZ(gen.trace_send_other), .off_has = SIZE_MAX,
	  .def = "true", .unit = "",
	  .help = "Send trace frames that are not IPv4 RoCEv2 as they are; "
		  "false = skip them (counted)." },
#define G_BOOL(key, field, d, h) \
	{ .sect = PROFILE_SECT_GENERATOR, .name = key, .type = PROFILE_T_BOOL, \
	  .off = P_OFF(gen.field), .size = P_SZ(gen.field), \
	  .off_has = SIZE_MAX, .def = d, .unit = "", .help = h }
#define G_DEC(key, field, dec, lo, hi, d, u, h) \
	{ .sect = PROFILE_SECT_GENERATOR, .name = key, \
	  .type = PROFILE_T_DECIMAL, .off = P_OFF(gen.field), \
	  .size = P_SZ(gen.field), .off_has = SIZE_MAX, .decimals = dec, \
	  .min = lo, .max = hi, .def = d, .unit = u, .help = h }
#define G_ENUM(key, field, nm, d, h) \
	{ .sect = PROFILE_SECT_GENERATOR, .name = key, .type = PROFILE_T_ENUM, \
	  .off = P_OFF(gen.field), .size = P_SZ(gen.field), \
	  .off_has = SIZE_MAX, .names = nm, .def = d, .unit = "", .help = h }
	G_BOOL("closed_loop", closed_loop, "false",
	       "true: RC endpoints (ACK/NAK, go-back-N, CNP on CE, DCQCN, "
	       "PFC honoured) and a rank sends step k+1 of a channel only "
	       "once step k's chunk from its predecessor was delivered; "
	       "false: open loop, steps paced by step_time_us."),
	G_U32("window", window, 1, 65536, "128", "PSNs",
	      "Closed loop: packets in flight per QP before an ACK."),
	G_U32("ack_every", ack_every, 1, 65536, "8", "packets",
	      "Closed loop: the responder ACKs every N in-order packets "
	      "(and every AckReq, i.e. each message's last packet); at "
	      "most `window` (a larger value is refused: a full window "
	      "inside a message would get no ACK before the timeout)."),
	G_U32("retx_timeout_us", retx_timeout_us, 1, 100000000, "67109", "us",
	      "Closed loop: retransmit (local ACK) timeout; the default is "
	      "RDMA NICs' exponent 14, 4.096 us x 2^14."),
	G_BOOL("dcqcn", dcqcn, "true",
	       "Closed loop: DCQCN reaction point per QP (CNPs cut its "
	       "rate); false = fixed-rate senders (CNPs are still sent "
	       "and counted)."),
	G_DEC("dcqcn_g", dcqcn_g, 8, 1, 100000000, "0.00390625", "",
	      "DCQCN alpha gain g, (0, 1]."),
	G_DEC("dcqcn_alpha_init", dcqcn_alpha_init, 6, 0, 1000000, "1", "",
	      "DCQCN alpha of a new QP, [0, 1]."),
	G_DEC("dcqcn_rai_gbps", dcqcn_rai_mbps, 3, 0, 1600000, "0.04",
	      "Gbit/s", "DCQCN additive increase R_AI."),
	G_DEC("dcqcn_rhai_gbps", dcqcn_rhai_mbps, 3, 0, 1600000, "0.4",
	      "Gbit/s", "DCQCN hyper increase R_HAI."),
	G_DEC("dcqcn_min_rate_gbps", dcqcn_min_rate_mbps, 3, 1, 1600000,
	      "0.1", "Gbit/s", "DCQCN floor of the rate (capped at the "
	      "rank's rate)."),
	G_U32("dcqcn_alpha_period_us", dcqcn_alpha_period_us, 1, 3600000000u,
	      "55", "us", "DCQCN alpha decay timer."),
	G_U32("dcqcn_rate_period_us", dcqcn_rate_period_us, 1, 3600000000u,
	      "55", "us", "DCQCN rate increase timer T."),
	G_U32("dcqcn_byte_counter", dcqcn_byte_counter, 0, 4294967295u,
	      "10485760", "bytes",
	      "DCQCN rate increase every B bytes sent; 0 = never."),
	G_U32("dcqcn_f", dcqcn_f, 1, 1000, "5", "steps",
	      "DCQCN fast recovery steps F."),
	G_U32("cnp_interval_us", cnp_interval_us, 0, 3600000000u, "50", "us",
	      "Closed loop: at most one CNP per QP this often (notification "
	      "point); 0 = one per CE-marked packet."),
	G_U32("cnp_dscp", cnp_dscp, 0, 63, "48", "", "DSCP of CNPs."),
	G_U32("cnp_ecn", cnp_ecn, 0, 3, "0", "", "ECN codepoint of CNPs."),
	G_ENUM("fault_at", fault_at, fault_at_names, "rx",
	       "Where the fault stage sits on each generator port: `rx` "
	       "(what arrives) or `tx` (what leaves)."),
	G_ENUM("fault_match", fault_match, fault_match_names, "data",
	       "Frames the fault stage numbers and impairs: `data` RoCEv2 "
	       "SEND/WRITE, `roce` any RoCEv2 (ACKs, CNPs too), `all`."),
	G_U32("fault_drop_index", fault_drop_index, 0, 4294967295u, "0", "",
	      "Drop the matching frame with this number (from 1, counted "
	      "per port); 0 = off."),
	G_U32("fault_drop_every", fault_drop_every, 0, 4294967295u, "0", "",
	      "Drop every Nth matching frame; 0 = off."),
	G_U32("fault_drop_ppm", fault_drop_ppm, 0, 1000000, "0", "ppm",
	      "Drop each matching frame with this probability (seeded)."),
	G_U32("fault_ce_index", fault_ce_index, 0, 4294967295u, "0", "",
	      "Mark the matching frame with this number CE (if ECT); 0 = off."),
	G_U32("fault_ce_every", fault_ce_every, 0, 4294967295u, "0", "",
	      "Mark every Nth matching frame CE (if ECT); 0 = off."),
	G_U32("fault_ce_ppm", fault_ce_ppm, 0, 1000000, "0", "ppm",
	      "Mark each matching frame CE with this probability (seeded)."),
	G_U32("fault_corrupt_index", fault_corrupt_index, 0, 4294967295u, "0",
	      "", "Corrupt the matching frame with this number: flip one "
	      "bit of its payload's 24-byte tag (seeded choice; RoCEv2 "
	      "frames with a tag only, so the ICRC fails; the rest of the "
	      "payload is the frame pool's, shared by later frames); "
	      "0 = off."),
	G_U32("fault_corrupt_every", fault_corrupt_every, 0, 4294967295u, "0",
	      "", "Corrupt every Nth matching frame; 0 = off."),
	G_U32("fault_corrupt_ppm", fault_corrupt_ppm, 0, 1000000, "0", "ppm",
	      "Corrupt each matching frame with this probability (seeded)."),
	G_U32("virtual_tick_ns", virtual_tick_ns, 0, 1000000000, "0", "ns",
	      "0: the generator runs on the TSC; > 0: on its own clock that "
	      "advances this much per poll, so a run over in-memory ports "
	      "is repeatable bit for bit (captures carry that clock)."),
	G_DEC("gpu_hour_usd", gpu_hour_cents, 2, 0, 4294967295u, "30", "USD",
	      "Price of one GPU-hour: waiting on the network beyond the ideal "
	      "time costs this x ranks."),
#undef G_ENUM
#undef G_DEC
#undef G_BOOL
#undef G_U32
	/* [lab] */
#define L_U32(key, field, lo, hi, d, u, h) \
	{ .sect = PROFILE_SECT_LAB, .name = key, .type = PROFILE_T_U32, \
	  .off = P_OFF(lab.field), .size = P_SZ(lab.field), \
	  .off_has = SIZE_MAX, .min = lo, .max = hi, .def = d, .unit = u, \
	  .help = h }
	{ .sect = PROFILE_SECT_LAB, .name = "recipe", .type = PROFILE_T_STRING,
	  .off = P_OFF(lab.recipe), .size = P_SZ(lab.recipe),
	  .off_has = SIZE_MAX, .def = "none", .unit = "name",
	  .help = "A recipe of pipelines/lab's recipe table, by name "
		  "(docs/lab.md lists them all; an unknown name is refused "
		  "at start, with the list). `ecmp`: the ECMP spread recipe "
		  "(which port each flow "
		  "comes back on, per varied header field); `ecn`: the ECN "
		  "marking curve (CE fraction per load step and per queue "
		  "depth, Kmin/Kmax/Pmax inferred); `pfc`: the PFC response "
		  "(when and how the DUT pauses us, and how fast it stops "
		  "and resumes when we pause it); `incast`: N senders into "
		  "one port on a lossless priority, honouring the DUT's "
		  "PFC (loss, order, pauses, latency, time); `none`: no "
		  "recipe runs." },
	{ .sect = PROFILE_SECT_LAB, .name = "tx_port", .type = PROFILE_T_STRING,
	  .off = P_OFF(lab.tx_port), .size = P_SZ(lab.tx_port),
	  .off_has = SIZE_MAX, .def = "", .unit = "port name",
	  .help = "The port the recipe sends from (cabled to the DUT)." },
	{ .sect = PROFILE_SECT_LAB, .name = "rx_ports", .type = PROFILE_T_STRING,
	  .off = P_OFF(lab.rx_ports), .size = P_SZ(lab.rx_ports),
	  .off_has = SIZE_MAX, .def = "", .unit = "port names",
	  .help = "The ports frames come back on (the DUT's ECMP members "
		  "lead to them), e.g. `r0 r1`." },
	{ .sect = PROFILE_SECT_LAB, .name = "gateway_mac", .type = PROFILE_T_MAC,
	  .off = P_OFF(lab.gw_mac), .size = P_SZ(lab.gw_mac),
	  .off_has = P_OFF(lab.has_gw_mac), .def = NULL, .unit = "",
	  .help = "The DUT's MAC on `tx_port`: destination of what we "
		  "send." },
	{ .sect = PROFILE_SECT_LAB, .name = "src_ip", .type = PROFILE_T_IP4,
	  .off = P_OFF(lab.src_ip), .size = P_SZ(lab.src_ip),
	  .off2 = P_OFF(lab.src_depth), .off_has = P_OFF(lab.has_src_ip),
	  .def = NULL, .unit = "",
	  .help = "First source address (the `sip` phase adds the flow "
		  "number), e.g. `10.1.0.2/24`." },
	{ .sect = PROFILE_SECT_LAB, .name = "dst_ip", .type = PROFILE_T_IP4,
	  .off = P_OFF(lab.dst_ip), .size = P_SZ(lab.dst_ip),
	  .off2 = P_OFF(lab.dst_depth), .off_has = P_OFF(lab.has_dst_ip),
	  .def = NULL, .unit = "",
	  .help = "First destination address, inside the prefix the DUT "
		  "routes over ECMP (the `dip` phase adds the flow number)." },
	L_U32("flows", flows, 1, 65536, "64", "flows",
	      "Flows per phase (K)."),
	L_U32("frames_per_flow", frames_per_flow, 1, 1000000, "4", "frames",
	      "Frames of each flow per phase (all must come back on one "
	      "port: flow affinity)."),
	L_U32("frame_bytes", frame_bytes, 82, 9000, "256", "bytes",
	      "Frame length without FCS."),
	{ .sect = PROFILE_SECT_LAB, .name = "fields", .type = PROFILE_T_FLAGS,
	  .off = P_OFF(lab.fields), .size = P_SZ(lab.fields),
	  .off_has = SIZE_MAX, .names = lab_field_names, .zero_ok = true,
	  .def = "sport,dqpn,sip,dip", .unit = "",
	  .help = "One phase per field varying only it, then one varying "
		  "all: UDP source port, destination QP, source IP, "
		  "destination IP." },
	{ .sect = PROFILE_SECT_LAB, .name = "rate_gbps",
	  .type = PROFILE_T_DECIMAL, .decimals = 3,
	  .off = P_OFF(lab.rate_mbps), .size = P_SZ(lab.rate_mbps),
	  .off_has = SIZE_MAX, .min = 1, .max = 1600000, .def = "1",
	  .unit = "Gbit/s", .help = "Sending rate (wire bytes)." },
	L_U32("dscp", dscp, 0, 63, "26", "", "DSCP of the frames."),
	L_U32("ecn", ecn, 0, 3, "2", "", "ECN codepoint of the frames."),
	L_U32("sport_base", sport_base, 1, 65535, "49152", "",
	      "UDP source port of flow 0."),
	L_U32("qpn_base", qpn_base, 1, 0xffffff, "256", "",
	      "Destination QP of flow 0."),
	L_U32("settle_ms", settle_ms, 0, 60000, "200", "ms",
	      "Wait after the last frame for stragglers before the verdict."),
	{ .sect = PROFILE_SECT_LAB, .name = "max_imbalance",
	  .type = PROFILE_T_DECIMAL, .decimals = 3,
	  .off = P_OFF(lab.max_imbalance_milli),
	  .size = P_SZ(lab.max_imbalance_milli), .off_has = SIZE_MAX,
	  .min = 1000, .max = 1000000, .def = "1.5", .unit = "max/mean",
	  .help = "Verdict: the all-fields phase's busiest port may carry "
		  "at most this times the mean number of flows." },
	{ .sect = PROFILE_SECT_LAB, .name = "min_p", .type = PROFILE_T_DECIMAL,
	  .decimals = 6, .off = P_OFF(lab.min_p_ppm),
	  .size = P_SZ(lab.min_p_ppm), .off_has = SIZE_MAX, .min = 0,
	  .max = 1000000, .def = "0.001", .unit = "",
	  .help = "Verdict: the chi-square test of an even spread must not "
		  "reject it at this p-value." },
	{ .sect = PROFILE_SECT_LAB, .name = "dut_rate_gbps",
	  .type = PROFILE_T_DECIMAL, .decimals = 3,
	  .off = P_OFF(lab.dut_rate_mbps), .size = P_SZ(lab.dut_rate_mbps),
	  .off_has = SIZE_MAX, .min = 1, .max = 1600000, .zero_ok = true,
	  .def = "0", .unit = "Gbit/s",
	  .help = "ecn, pfc, incast: rate of the DUT egress port the frames "
		  "leave by (ecn and pfc loads are percents of it; ecn: "
		  "queueing delay x rate = depth; incast: the ideal "
		  "completion time)." },
	{ .sect = PROFILE_SECT_LAB, .name = "loads", .type = PROFILE_T_STRING,
	  .off = P_OFF(lab.loads), .size = P_SZ(lab.loads),
	  .off_has = SIZE_MAX, .def = "50 90 110 130 160", .unit = "%",
	  .help = "ecn: offered load per step, in percent of `dut_rate_gbps` "
		  "(1..16 steps of 1..1000)." },
	L_U32("step_ms", step_ms, 1, 60000, "50", "ms",
	      "ecn: length of each load step."),
	L_U32("gap_ms", gap_ms, 0, 60000, "100", "ms",
	      "ecn: silence between steps (the DUT's queue drains)."),
	L_U32("bin_bytes", bin_bytes, 64, 16777216, "8192", "bytes",
	      "ecn: width of the queue-depth bins of the marking curve."),
	L_U32("min_bin_frames", min_bin_frames, 1, 1000000, "30", "frames",
	      "ecn: bins with fewer frames are shown but not judged."),
	L_U32("expect_kmin_bytes", expect_kmin, 0, UINT32_MAX, "0", "bytes",
	      "ecn verdict: the DUT's configured Kmin (the inferred one must "
	      "be within `tolerance_percent` + one bin); 0 = not judged."),
	L_U32("expect_kmax_bytes", expect_kmax, 0, UINT32_MAX, "0", "bytes",
	      "ecn verdict: the DUT's configured Kmax, likewise."),
	{ .sect = PROFILE_SECT_LAB, .name = "expect_pmax_percent",
	  .type = PROFILE_T_DECIMAL, .decimals = 4,
	  .off = P_OFF(lab.expect_pmax_ppm), .size = P_SZ(lab.expect_pmax_ppm),
	  .off_has = SIZE_MAX, .min = 0, .max = 1000000, .def = "0",
	  .unit = "%",
	  .help = "ecn verdict: the DUT's configured Pmax (inferred within "
		  "10 points); 0 = not judged." },
	L_U32("tolerance_percent", tolerance_pct, 0, 1000, "25", "%",
	      "ecn verdict: relative tolerance of Kmin and Kmax."),
	L_U32("pfc_priority", pfc_prio, 0, 7, "3", "",
	      "pfc: the lossless priority under test (the DUT's for `dscp`)."),
	L_U32("pfc_quanta", pfc_quanta, 1, 65535, "65535", "quanta",
	      "pfc: pause time of the XOFF we send (refreshed at half of it "
	      "while we hold the DUT paused)."),
	L_U32("pfc_load_percent", pfc_load_pct, 101, 10000, "200", "%",
	      "pfc phase A: our load, in percent of `dut_rate_gbps`, to "
	      "congest the lossless queue until the DUT pauses us."),
	L_U32("hold_ms", hold_ms, 1, 60000, "50", "ms",
	      "pfc phase B: how long we keep the DUT paused before XON."),
	{ .sect = PROFILE_SECT_LAB, .name = "tx_ports", .type = PROFILE_T_STRING,
	  .off = P_OFF(lab.tx_ports), .size = P_SZ(lab.tx_ports),
	  .off_has = SIZE_MAX, .def = "", .unit = "port names",
	  .help = "incast: senders besides `tx_port`, each cabled to its own "
		  "DUT port; sender i sends from `src_ip` + i x 256." },
	{ .sect = PROFILE_SECT_LAB, .name = "gateway_macs",
	  .type = PROFILE_T_STRING,
	  .off = P_OFF(lab.gateway_macs), .size = P_SZ(lab.gateway_macs),
	  .off_has = SIZE_MAX, .def = "", .unit = "MACs",
	  .help = "incast: the DUT's MAC on each of `tx_ports`, in order." },
	L_U32("max_p99_us", max_p99_us, 0, UINT32_MAX, "0", "us",
	      "incast verdict: p99 one-way latency at most this; 0 = not "
	      "judged."),
	L_U32("resume_ms", resume_ms, 1, 60000, "10", "ms",
	      "pfc verdict: the first frame must come within this after our "
	      "XON."),
#undef L_U32
};

const unsigned int profile_n_keys = RTE_DIM(profile_keys);

const char *
profile_sect_name(enum profile_sect s)
{
	switch (s) {
	case PROFILE_SECT_GENERAL: return "general";
	case PROFILE_SECT_SWITCH: return "switch";
	case PROFILE_SECT_PORT: return "port.<name>";
	case PROFILE_SECT_QOS: return "qos";
	case PROFILE_SECT_TC: return "tc.<0..7>";
	case PROFILE_SECT_ECMP: return "ecmp";
	case PROFILE_SECT_SWNAMED: return "switch.<name>";
	case PROFILE_SECT_PFC: return "pfc";
	case PROFILE_SECT_GENERATOR: return "generator";
	case PROFILE_SECT_LAB: return "lab";
	default: return "?";
	}
}

const char *
profile_key_def(const struct profile_key *k, unsigned int idx)
{
	if (k->sect == PROFILE_SECT_TC && idx < AIFAB_N_TC &&
	    k->def_idx[idx] != NULL)
		return k->def_idx[idx];
	return k->def;
}

const char *
profile_type_name(enum profile_type t)
{
	switch (t) {
	case PROFILE_T_U32: return "integer";
	case PROFILE_T_U64: return "integer (64-bit)";
	case PROFILE_T_BOOL: return "bool";
	case PROFILE_T_MAC: return "MAC";
	case PROFILE_T_IP4: return "IPv4 prefix";
	case PROFILE_T_IP6: return "IPv6 prefix";
	case PROFILE_T_STRING: return "string";
	case PROFILE_T_ENUM: return "enum";
	case PROFILE_T_DECIMAL: return "decimal";
	case PROFILE_T_LCORES: return "lcore list";
	case PROFILE_T_MAP: return "map";
	case PROFILE_T_FLAGS: return "flag list";
	case PROFILE_T_HEX: return "hex bytes";
	case PROFILE_T_SAMPLE: return "sampling";
	default: return "?";
	}
}

const char *
profile_type_syntax(enum profile_type t)
{
	switch (t) {
	case PROFILE_T_U32: return "`1500` or `0x5dc`; no sign.";
	case PROFILE_T_U64: return "like integer, up to 64 bits.";
	case PROFILE_T_BOOL: return "`true`, `false`, `yes`, `no`, `on`, "
		"`off`, `1`, `0` (any case).";
	case PROFILE_T_MAC: return "`02:aa:00:00:00:01` or "
		"`02-aa-00-00-00-01`, unicast.";
	case PROFILE_T_IP4: return "`10.0.0.1/24`.";
	case PROFILE_T_IP6: return "`fd00::1/64`.";
	case PROFILE_T_STRING: return "the rest of the line, blanks around "
		"it removed.";
	case PROFILE_T_ENUM: return "one of the names listed under allowed.";
	case PROFILE_T_DECIMAL: return "`2.5`, `0.015`; digits, optionally "
		"a point and at most as many decimals as allowed says.";
	case PROFILE_T_LCORES: return "`1`, `1,2`, `1-3`, `1,4-5`.";
	case PROFILE_T_MAP: return "`26:3 48:6`: key:value pairs separated "
		"by blanks or commas, each key once; keys not listed map to 0.";
	case PROFILE_T_FLAGS: return "`sip,dip,sport`: names from allowed, "
		"separated by blanks or commas, each once.";
	case PROFILE_T_HEX: return "`6d5a56da...` or `6d:5a:56:da:...`: two "
		"hex digits per byte, `:` allowed between bytes.";
	case PROFILE_T_SAMPLE: return "`full` (every one), `off` (none) or "
		"`every=N` (one in N, counted: the 1st, N+1st, ...).";
	default: return "?";
	}
}

const struct profile_key *
profile_key_find(enum profile_sect kind, const char *name)
{
	unsigned int i;

	for (i = 0; i < profile_n_keys; i++)
		if (profile_keys[i].sect == kind &&
		    strcmp(profile_keys[i].name, name) == 0)
			return &profile_keys[i];
	return NULL;
}

void
profile_keys_of(enum profile_sect kind, char *buf, size_t len)
{
	unsigned int i;

	buf[0] = '\0';
	for (i = 0; i < profile_n_keys; i++) {
		const char *name = profile_keys[i].name;

		if (profile_keys[i].sect != kind)
			continue;
		/* The fault keys are one family per direction: name it once. */
		if (strncmp(name, "fault_rx_", 9) == 0 ||
		    strncmp(name, "fault_tx_", 9) == 0) {
			if (strstr(buf, "fault_rx_*") != NULL)
				continue;
			name = "fault_rx_* and fault_tx_* (docs/profiles.md)";
		}
		if (buf[0] != '\0')
			strlcat(buf, ", ", len);
		strlcat(buf, name, len);
	}
}

/*
 * Section kind of a section name, and for [tc.<n>] its index in @p idx;
 * -1 for neighbors/routes/unknown, SECT_BAD_INDEX for "tc.<not 0..7>".
 */
int
profile_sect_kind(const char *name, unsigned int *idx)
{
	static const struct {
		const char *name;
		enum profile_sect kind;
	} single[] = {
		{ "general", PROFILE_SECT_GENERAL },
		{ "switch", PROFILE_SECT_SWITCH },
		{ "qos", PROFILE_SECT_QOS },
		{ "ecmp", PROFILE_SECT_ECMP },
		{ "pfc", PROFILE_SECT_PFC },
		{ "generator", PROFILE_SECT_GENERATOR },
		{ "lab", PROFILE_SECT_LAB },
	};
	unsigned int i;

	*idx = 0;
	for (i = 0; i < RTE_DIM(single); i++)
		if (strcmp(name, single[i].name) == 0)
			return single[i].kind;
	if (strncmp(name, "port.", 5) == 0)
		return PROFILE_SECT_PORT;
	if (strncmp(name, "switch.", 7) == 0)
		return PROFILE_SECT_SWNAMED;
	if (strncmp(name, "tc.", 3) == 0) {
		/* One digit: "tc.03" or "tc.+3" would be a second [tc.3]. */
		if (name[3] < '0' || name[3] >= '0' + AIFAB_N_TC ||
		    name[4] != '\0')
			return PROFILE_SECT_BAD_INDEX;
		*idx = (unsigned int)(name[3] - '0');
		return PROFILE_SECT_TC;
	}
	return -1;
}

/* Where the keys of a singleton or indexed section live (ports: load_port). */
void *
profile_sect_base(struct aifab_profile *p, int kind, unsigned int idx)
{
	return kind == PROFILE_SECT_TC ? (void *)&p->tc[idx] : (void *)p;
}
