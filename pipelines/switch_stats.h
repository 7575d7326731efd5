/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The switch's counters: one list gives the ids (enum sw_st), the names,
 * kinds, scopes, units and help text (sw_st_descs) of its lib/stats set
 * "sw". Each worker owns one block of the set and writes it with plain
 * increments; readers (console, telemetry, files, the report) sum blocks.
 *
 * Ids: the parser's drop reasons come first (drop_<parser reason>, id =
 * reason - 1: the parser's "ok" has no counter), then SW_STATS in order.
 * The report's names are derived from these: a drop's report key is its
 * name without "drop_"; "seen" keys are the rx_* info names; per-TC keys
 * come from lib/qos (sw_st_qos() maps a lib/qos counter to its id).
 *
 * Counters marked (mirrored) live in lib/pfc and lib/qos objects the
 * worker owns; the worker copies them into its block about every
 * millisecond of its clock and when it stops, so they lag by <= 1 ms.
 * Gauges are summed over workers: queue_bytes and buffer_used_bytes are
 * totals of the workers' slices; queue_hwm_bytes is a sum of per-worker
 * high-water marks (exact with one worker, an upper bound otherwise).
 *
 * Build with -DAIFAB_SW_STATS=0 (meson -Dswitch_stats=false) to compile
 * the per-packet counting out (to measure what it costs).
 */
#ifndef SWITCH_STATS_H
#define SWITCH_STATS_H

#include "aifab_pkt.h"
#include "aifab_qos.h"
#include "aifab_stats.h"

#ifndef AIFAB_SW_STATS
#define AIFAB_SW_STATS 1
#endif

/* X(p, name, kind, scope, unit, help): lib/stats' descriptor form. */
#define SW_STATS(X, p) \
	X(p, rx_pkts, COUNTER, PORT, "packets", "Frames received") \
	X(p, rx_bytes, COUNTER, PORT, "bytes", \
	  "Bytes received (frame lengths without FCS)") \
	X(p, tx_pkts, COUNTER, PORT, "packets", "Frames sent") \
	X(p, tx_bytes, COUNTER, PORT, "bytes", \
	  "Bytes sent (frame lengths without FCS)") \
	/* drops the switch adds to the parser's, counted on the port named */ \
	X(p, drop_no_route, COUNTER, PORT, "packets", \
	  "Dropped at ingress: no route to the destination") \
	X(p, drop_no_neighbor, COUNTER, PORT, "packets", \
	  "Dropped at ingress: connected subnet, no neighbour") \
	X(p, drop_ttl_expired, COUNTER, PORT, "packets", \
	  "Dropped at ingress: TTL or hop limit <= 1") \
	X(p, drop_own_address, COUNTER, PORT, "packets", \
	  "Dropped at ingress: addressed to the switch itself") \
	X(p, drop_non_ip, COUNTER, PORT, "packets", \
	  "Dropped at ingress: neither IPv4 nor IPv6") \
	X(p, drop_arp, COUNTER, PORT, "packets", "Dropped at ingress: ARP") \
	X(p, drop_lldp, COUNTER, PORT, "packets", "Dropped at ingress: LLDP") \
	X(p, drop_mac_control, COUNTER, PORT, "packets", \
	  "Consumed at ingress: MAC control (PFC, PAUSE)") \
	X(p, drop_dst_mac_mismatch, COUNTER, PORT, "packets", \
	  "Dropped at ingress: destination MAC is not the port's") \
	X(p, drop_headers_segmented, COUNTER, PORT, "packets", \
	  "Dropped at ingress: headers beyond the first segment") \
	X(p, drop_mtu_exceeded, COUNTER, PORT, "packets", \
	  "Dropped at ingress: larger than the egress MTU") \
	X(p, drop_ecmp_no_member, COUNTER, PORT, "packets", \
	  "Dropped at ingress: ECMP group without a live member") \
	X(p, drop_egress_queue, COUNTER, PORT, "packets", \
	  "Dropped at egress: queue or buffer admission (see tail_drop_*)") \
	X(p, drop_headroom_overflow, COUNTER, PORT, "packets", \
	  "Dropped at ingress: lossless headroom exhausted") \
	X(p, drop_pfcwd, COUNTER, PORT, "packets", \
	  "Dropped at egress: PFC watchdog storm action") \
	X(p, drop_flushed_at_stop, COUNTER, PORT, "packets", \
	  "Freed when the run stopped: still queued") \
	X(p, drop_no_mbuf, COUNTER, PORT, "packets", \
	  "PFC frame not sent: no mbuf") \
	X(p, drop_tx_full, COUNTER, PORT, "packets", \
	  "Dropped at egress: the PMD refused the frame") \
	/* the ports' fault stages (lib/fault aifab_link, mirrored) */ \
	X(p, drop_fault_loss, COUNTER, PORT, "packets", \
	  "Dropped by the port's fault stage (loss rules, RX + TX)") \
	X(p, drop_link_down, COUNTER, PORT, "packets", \
	  "Lost while the port's link was down (fault stage, RX + TX)") \
	X(p, drop_link_queue, COUNTER, PORT, "packets", \
	  "Lost: the port's fault delay line was full (RX + TX)") \
	/* seen on receive, not dropped for it */ \
	X(p, rx_vlan_tagged, COUNTER, PORT, "packets", "802.1Q tagged frames") \
	X(p, rx_qinq, COUNTER, PORT, "packets", "QinQ frames") \
	X(p, rx_ipv4_options, COUNTER, PORT, "packets", \
	  "IPv4 packets with options") \
	X(p, rx_fragments, COUNTER, PORT, "packets", "IP fragments") \
	X(p, rx_roce, COUNTER, PORT, "packets", "RoCEv2 packets") \
	X(p, rx_ipv6, COUNTER, PORT, "packets", "IPv6 packets") \
	X(p, rx_pfc_frames, COUNTER, PORT, "packets", "PFC frames received") \
	X(p, rx_pause_frames, COUNTER, PORT, "packets", \
	  "802.3x PAUSE frames received") \
	/* the ports' fault stages (mirrored) */ \
	X(p, fault_ce_marked, COUNTER, PORT, "packets", \
	  "Marked CE by the port's fault stage (RX + TX)") \
	X(p, fault_delayed, COUNTER, PORT, "packets", \
	  "Frames through the port's fault delay line (RX + TX)") \
	X(p, fault_pfc_storm_frames, COUNTER, PORT, "frames", \
	  "XOFF of a configured PFC storm: sent (TX) or acted on (RX)") \
	/* per egress (port, TC); the order of lib/qos' counters */ \
	X(p, tc_tx_pkts, COUNTER, PORT_TC, "packets", \
	  "Frames dequeued from the TC's queue") \
	X(p, tc_tx_bytes, COUNTER, PORT_TC, "bytes", \
	  "Bytes dequeued from the TC's queue") \
	X(p, ecn_marked, COUNTER, PORT_TC, "packets", \
	  "Packets marked CE by the ECN ramp") \
	X(p, ecn_selected, COUNTER, PORT_TC, "packets", \
	  "Packets the ECN ramp selected (marked, already CE, passed, dropped)") \
	X(p, headroom_admits, COUNTER, PORT_TC, "packets", \
	  "Lossless packets admitted into headroom") \
	X(p, tail_drop_queue_limit, COUNTER, PORT_TC, "packets", \
	  "Tail drops: queue limit") \
	X(p, tail_drop_buffer_full, COUNTER, PORT_TC, "packets", \
	  "Tail drops: shared buffer full") \
	X(p, tail_drop_headroom_full, COUNTER, PORT_TC, "packets", \
	  "Tail drops: headroom full") \
	X(p, tail_drop_fifo_full, COUNTER, PORT_TC, "packets", \
	  "Tail drops: queue descriptor ring full") \
	X(p, ecn_drop_not_ect, COUNTER, PORT_TC, "packets", \
	  "ECN drops: selected and not ECN-capable") \
	X(p, pfcwd_drops, COUNTER, PORT_TC, "packets", \
	  "Dropped by the PFC watchdog") \
	/* PFC per (port, priority) (mirrored) */ \
	X(p, pfc_tx, COUNTER, PORT_PRIO, "frames", \
	  "PFC frames sent with the priority enabled (XOFF + XON)") \
	X(p, pfc_xoff_sent, COUNTER, PORT_PRIO, "frames", \
	  "PFC XOFF (pause) sent for the priority") \
	X(p, pfc_xon_sent, COUNTER, PORT_PRIO, "frames", \
	  "PFC XON (resume) sent for the priority") \
	X(p, pfc_rx, COUNTER, PORT_PRIO, "frames", \
	  "PFC frames received with the priority enabled") \
	X(p, pfc_headroom_overflow, COUNTER, PORT_PRIO, "packets", \
	  "Lossless packets that found the headroom full") \
	X(p, pfcwd_storms, COUNTER, PORT_PRIO, "events", \
	  "PFC watchdog storms detected") \
	X(p, pfcwd_restored, COUNTER, PORT_PRIO, "events", \
	  "PFC watchdog restorations") \
	X(p, pfc_paused_cycles, COUNTER, PORT_PRIO, "cycles", \
	  "Time the egress priority was paused by received PFC (TSC cycles)") \
	/* levels (mirrored) */ \
	X(p, queue_bytes, GAUGE, PORT_TC, "bytes", "Egress queue depth") \
	X(p, queue_hwm_bytes, GAUGE, PORT_TC, "bytes", \
	  "Egress queue high-water mark (sum over workers)") \
	X(p, buffer_used_bytes, GAUGE, GLOBAL, "bytes", \
	  "Shared buffer in use")

#define SW_ST_PKT_ENUM_(e, s) sw_st_pkt_##e,
#define SW_ST_PKT_DESC_(e, s) { "drop_" s, AIFAB_STATS_COUNTER, \
	AIFAB_STATS_PORT, "packets", "Dropped at ingress by the parser: " s },

/* Counter ids: parser drops (from -1: "ok" has none), then SW_STATS. */
enum sw_st {
	sw_st_pkt_first_ = -2,
	AIFAB_PKT_ERRORS(SW_ST_PKT_ENUM_)
	SW_STATS(AIFAB_STATS_X_ENUM_, sw_st)
	sw_st_N
};

/* Descriptors, indexed by id + 1 (entry 0 is the parser's "ok"). */
static const struct aifab_stats_desc sw_st_descs_all[] __rte_unused = {
	AIFAB_PKT_ERRORS(SW_ST_PKT_DESC_)
	SW_STATS(AIFAB_STATS_X_DESC_, sw_st)
};
#define sw_st_descs (&sw_st_descs_all[1])

#undef SW_ST_PKT_ENUM_
#undef SW_ST_PKT_DESC_

/** Counter id of parser drop reason @p e (e >= 1). */
#define SW_ST_PKT(e) ((unsigned int)(sw_st_pkt_OK + (int)(e)))

/** Counter id of lib/qos counter @p k (not QUEUE_HWM_BYTES). */
static inline unsigned int
sw_st_qos(enum aifab_qos_ctr k)
{
	/* tc_tx_pkts .. headroom_admits, then the drop reasons. */
	return k < AIFAB_QOS_CTR_QUEUE_HWM_BYTES ?
		(unsigned int)sw_st_tc_tx_pkts + k :
		(unsigned int)sw_st_tail_drop_queue_limit +
			(k - AIFAB_QOS_CTR_DROPS);
}

#endif /* SWITCH_STATS_H */
