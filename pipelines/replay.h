/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * Trace replay: a pcap (e.g. a capture of a real training job) replayed
 * from the generator's lcore at its own timing or scaled, optionally
 * rewritten onto the profile's ranks, looping if asked.
 *
 * Loading (aifab_replay_trace_load(), no EAL needed) reads the whole file
 * with libpcap into one flat buffer and, with rewriting on, rewrites every
 * IPv4 RoCEv2 frame once:
 *  - hosts: every distinct IPv4 address, in order of first appearance
 *    (source before destination within a frame), becomes host h and is
 *    mapped onto rank h % n_ranks: MAC base_mac + r, IPv4 base_ip + r;
 *  - connections: every distinct (source IP, destination IP, BTH dest QP)
 *    of the trace becomes connection c: dest QP qpn_base + 2c + 1, UDP
 *    source port aifab_roce_sport(qpn_base + 2c, qpn_base + 2c + 1) (or
 *    sport_base + c % sport_count), the generator's own scheme;
 *  - UDP checksum 0, IPv4 header checksum and ICRC recomputed.
 * Other frames (non-IP, IPv6, not RoCEv2, fragments, malformed) are sent
 * as they are or skipped (send_other); frames captured shorter than they
 * were (snaplen) or too large for an mbuf are always skipped.
 *
 * On loop k > 0 the PSNs of each rewritten connection are moved on by k
 * times the PSN span the connection has in the trace (ICRC recombined from
 * the headers and a precomputed payload CRC), so a receiver sees one
 * continuous stream instead of duplicates.
 *
 * Frame i of the source rank r (first IPv4 host of the frame) leaves from
 * ports[r % n_ports]; frames without IPv4 from ports[0].
 */
#ifndef AIFAB_REPLAY_H
#define AIFAB_REPLAY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <rte_ether.h>

#include "aifab_pipeline.h"
#include "aifab_pkt.h"

/** Largest frame replayed (bytes, no FCS); larger ones are skipped. */
#define AIFAB_REPLAY_MAX_FRAME 9600

/** Replay settings (app/pipes.c maps [generator] keys onto these). */
struct aifab_replay_params {
	const char *path;               /**< pcap file (linktype Ethernet) */
	uint32_t speed_milli;           /**< 1000: own timing; 2000: twice
					     as fast; 0: as fast as the port
					     allows */
	uint32_t loops;                 /**< passes; 0: until stopped */
	bool rewrite;                   /**< map hosts and QPs onto ranks */
	bool send_other;                /**< send frames not rewritten as is
					     (else skip them) */
	uint32_t n_ranks;               /**< >= 1 */
	struct rte_ether_addr base_mac; /**< rank r: + r in the low 24 bits */
	uint32_t base_ip;               /**< host order; rank r: + r */
	uint32_t qpn_base;              /**< connection c: + 2c (+1: dest) */
	uint16_t sport_base;            /**< 0: Linux formula from the QPNs */
	uint16_t sport_count;
	/** env port indexes frames leave from; 0 = every env port. */
	uint16_t n_ports;
	uint16_t ports[AIFAB_MAX_PORTS];
	uint16_t txq, rxq;
	bool rx;                        /**< poll rxq, count and free */
	uint32_t burst_pkts;            /**< frames per poll, 1..512 */
	uint32_t mbufs;                 /**< pool size; 0: 8192 */
};

/** Defaults: own timing, one pass, rewrite, send other frames, 8 ranks
 * from 02:a1:fa:00:00:00 / 10.100.0.1, qpn_base 256. */
void aifab_replay_params_defaults(struct aifab_replay_params *p);

/** One frame of the loaded trace. */
struct aifab_replay_frame {
	uint64_t off;                   /**< first byte in trace buf */
	uint64_t t_ns;                  /**< capture time since the first */
	uint32_t len;
	uint32_t conn;                  /**< rewritten connection, or
					     UINT32_MAX (never changed) */
	uint16_t slot;                  /**< index into the ports it uses */
	uint16_t l3_off;                /**< IPv4 header (rewritten only) */
	uint16_t hdr_len;               /**< IPv4..BTH end */
	uint16_t ip_len;                /**< IPv4 total length */
	uint32_t psn;                   /**< PSN in the loaded frame */
	uint32_t payload_raw;           /**< raw CRC after the BTH, pad incl. */
	struct aifab_crc_shift shift;   /**< for that payload's length */
};

/** What loading found (counts per pass of the trace). */
struct aifab_replay_load_stats {
	uint64_t frames;                /**< records in the file */
	uint64_t roce;                  /**< IPv4 RoCEv2 frames (kept) */
	uint64_t rewritten;             /**< of those, rewritten */
	uint64_t other;                 /**< not RoCEv2, kept as they are */
	uint64_t skipped_other;         /**< not RoCEv2, skipped */
	uint64_t skipped_bad;           /**< cut by snaplen / too large */
	uint64_t hosts, conns;          /**< distinct IPv4 hosts, connections */
};

/** A trace in memory. */
struct aifab_replay_trace {
	uint8_t *buf;                   /**< frames back to back */
	uint64_t buf_len;
	struct aifab_replay_frame *f;   /**< frames to send, in order */
	uint32_t n;
	uint32_t max_len;               /**< longest frame kept */
	uint64_t bytes;                 /**< sum of kept frame lengths */
	uint64_t span_ns;               /**< last kept frame's t_ns */
	uint32_t *psn_span;             /**< per connection: PSNs per pass */
	struct aifab_replay_load_stats st;
};

/**
 * Read @p p->path and prepare its frames (rewritten if @p p->rewrite).
 * Uses malloc, not EAL memory: callable before or without rte_eal_init().
 * @param n_slots  ports frames are spread over (>= 1).
 * @return 0, or -1 with @p err filled ("trace = '<path>': why; allowed:
 *   ...") and nothing held.
 */
int aifab_replay_trace_load(struct aifab_replay_trace *t,
			    const struct aifab_replay_params *p,
			    uint16_t n_slots, char *err, size_t errlen);

/** Free what a loaded trace holds (a zeroed trace is fine). */
void aifab_replay_trace_free(struct aifab_replay_trace *t);

/**
 * Write frame @p i as sent on pass @p loop (0-based) into @p dst
 * (t->f[i].len bytes): PSN moved on by loop x the connection's span and the
 * ICRC recombined, for rewritten frames on loop > 0; a plain copy
 * otherwise.
 */
void aifab_replay_frame_write(const struct aifab_replay_trace *t, uint32_t i,
			      uint32_t loop, uint8_t *dst);

/** Results of a replay (any lcore, racy while it runs). */
struct aifab_replay_summary {
	struct aifab_replay_load_stats load;
	uint64_t tx_packets, tx_bytes;  /**< frames sent (no FCS) */
	uint64_t tx_dropped;            /**< held at the end, never sent */
	uint64_t tx_nombuf;             /**< polls cut short: pool empty */
	uint64_t rx_packets, rx_bytes;
	uint32_t loops_done;            /**< complete passes sent */
	uint64_t elapsed_ns;            /**< first to last frame handed to TX */
	double achieved_mbps;           /**< tx_bytes over elapsed_ns */
	double trace_mbps;              /**< the trace's own rate */
	double target_mbps;             /**< trace_mbps x speed; 0: unpaced */
	uint64_t lag_max_ns;            /**< furthest behind the trace clock
					     a frame left (port rate, polls) */
};

/**
 * Load the trace and build the pipeline (pool, per-port state).
 * @param n_workers  must be 1.
 * @return state for aifab_replay_ops, or NULL with @p err filled.
 */
void *aifab_replay_create(const struct aifab_env *env,
			  const struct aifab_replay_params *p,
			  unsigned int n_workers, char *err, size_t errlen);

/** Fill @p s. */
void aifab_replay_summary(const void *st, struct aifab_replay_summary *s);

/** init() refuses (params come through aifab_replay_create()). */
extern const struct aifab_pipeline_ops aifab_replay_ops;

#endif /* AIFAB_REPLAY_H */
