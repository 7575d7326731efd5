/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * The generator pipeline: one lcore emulates the RDMA NICs of N ranks
 * running a collective (lib/collective) as RoCEv2 RC RDMA WRITEs
 * (lib/roce), paced per rank by a token bucket on the TSC `now` the app
 * passes to poll(). Open loop: each rank walks its schedule, starting step
 * k+1 when step k is sent and `step_time_ns` after step k started; it
 * counts what comes back (PSN loss / reordering / duplicates per QP,
 * latency from the payload tag) on the same ports.
 *
 * Closed loop (closed_loop): each QP is an RC requester (lib/rc: window,
 * go-back-N on NAK or timeout) whose packets are rebuilt from its PSN
 * ring, and the receiving rank's end of it a responder (coalesced ACKs,
 * one NAK per gap, duplicates re-ACKed) and a DCQCN notification point
 * (a CNP per CE-marked packet, at most one per cnp_interval); CNPs drive
 * the sender's DCQCN reaction point (lib/dcqcn), which paces the QP. A
 * rank posts step k+1 of a channel only when step k's chunk from its
 * predecessor has been delivered, and ends an iteration when its own
 * messages are acknowledged and its chunks received.
 *
 * PFC (both modes): a PFC frame received on a generator port pauses that
 * port's data/ACK priority or CNP priority for quanta x 512 bit times at
 * the port speed (lib/pfc); XON resumes.
 *
 * Addressing: rank r has MAC base_mac + r (last 3 bytes as a counter) and
 * IPv4 base_ip + r, unless an explicit table is given (rank_mac/rank_ip or
 * the rank_table file), and sends from env port ports[r % n_ports] unless
 * the rank table names its port. Frames go straight to the peer rank's MAC
 * (a DUT routing on IP rewrites it anyway).
 *
 * Connections: for each (rank, peer, channel) of the schedule, qps_per_conn
 * QPs; a step's bytes per channel are split over them (remainder to the
 * first). Connection i has sender QPN qpn_base + 2i and receiver QPN
 * qpn_base + 2i + 1 (the BTH destination QP).
 *
 * The app wires it with aifab_gen_create() and the ops table (whose init
 * refuses: the generator's params are not in aifab_profile). Exactly one
 * worker.
 */
#ifndef AIFAB_GENERATOR_H
#define AIFAB_GENERATOR_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include <rte_ether.h>

#include "aifab_collective.h"
#include "aifab_fault.h"
#include "aifab_pipeline.h"

#define AIFAB_GEN_MAX_RANKS 16384
/** The generator's ports must be among the first this many env ports
 * (its per-port state is indexed by env port). */
#define AIFAB_GEN_MAX_PORTS 1024

/** Generator settings (the lead maps profile keys onto these). */
struct aifab_gen_params {
	uint32_t n_ranks;               /**< N, 2..AIFAB_GEN_MAX_RANKS */
	struct rte_ether_addr base_mac; /**< rank r: + r in the low 24 bits */
	uint32_t base_ip;               /**< IPv4 host order; rank r: + r */
	/** Rank r's IPv4 is base_ip + r x ip_stride (0 or 1: consecutive). */
	uint32_t ip_stride;
	/** Per env port: frames sent from it go to this MAC (a switch port
	 * it is cabled to) instead of the peer rank's. */
	bool has_gw[AIFAB_GEN_MAX_PORTS];
	struct rte_ether_addr gw_mac[AIFAB_GEN_MAX_PORTS];
	/** Optional explicit addresses (NULL: from base_*), n_ranks each. */
	const struct rte_ether_addr *rank_mac;
	const uint32_t *rank_ip;
	/** Optional: a file of `<rank> <mac> <ipv4> [<port name>]` lines
	 * (every rank once) overriding the addresses above and, where a port
	 * is named, the round robin over @p ports. Read at create. */
	const char *rank_table;
	/** env port indexes ranks send from, round-robin; 0 = all env ports. */
	uint16_t n_ports;
	uint16_t ports[AIFAB_GEN_MAX_PORTS];
	uint16_t txq, rxq;              /**< queue used on each port */
	bool rx;                        /**< poll rxq and account what returns */
	/** ICRC check of received RoCEv2 frames, as an RDMA NIC does (a bad
	 * one is dropped, counted rx_bad_icrc): 0 off, 1 every frame, N one
	 * frame in N per port (the 1st, N+1st, ...). */
	uint32_t rx_check_icrc;

	enum aifab_coll_type type;
	uint64_t size;                  /**< S, bytes per collective */
	uint32_t n_channels;            /**< C */
	uint32_t qps_per_conn;          /**< 1..8 */
	uint16_t ib_mtu;                /**< 256..4096, power of two */
	uint32_t iterations;            /**< timed iterations (>= 1) */
	uint32_t warmup;                /**< untimed iterations first */
	uint64_t gap_ns;                /**< compute gap between iterations */
	uint64_t step_time_ns;          /**< open loop: min time between steps */
	uint32_t rate_mbps;             /**< per rank; 0: port speed / ranks on it */
	bool bursty;                    /**< bucket depth: burst_pkts frames, else 1 */
	uint32_t burst_pkts;            /**< TX burst (and bucket depth if bursty) */
	uint64_t seed;
	uint8_t dscp;                   /**< 0..63 (26) */
	uint8_t ecn;                    /**< 0..3 (2 = ECT(0)) */
	/** Optional per channel "dscp[/ecn]" list, space or comma separated,
	 * in channel order: that channel's data and ACKs; NULL or "": dscp /
	 * ecn for all. */
	const char *channel_dscp;
	uint32_t qpn_base;              /**< first QPN (24 bits) */
	uint16_t sport_base;            /**< 0: Linux formula; else base + i % count */
	uint16_t sport_count;
	uint32_t mbufs;                 /**< per generator pool; 0: 8192 */

	/* Closed loop: RC reliability and DCQCN per QP (lib/rc, lib/dcqcn). */
	bool closed_loop;               /**< step k+1 waits for step k's data */
	uint32_t window;                /**< PSNs in flight per QP, 1..65536 */
	uint32_t ack_every;             /**< responder ACKs every N packets */
	uint64_t retx_timeout_ns;       /**< requester's local ACK timeout */
	uint32_t max_msgs;              /**< posted messages per QP; 0: auto */
	bool dcqcn;                     /**< reaction point on (else fixed rate) */
	double dcqcn_g, dcqcn_alpha_init;
	double dcqcn_rai_mbps, dcqcn_rhai_mbps, dcqcn_min_rate_mbps;
	uint64_t dcqcn_alpha_period_ns, dcqcn_rate_period_ns;
	uint64_t dcqcn_byte_counter;
	uint32_t dcqcn_f;
	uint64_t cnp_interval_ns;       /**< notification point: per QP */
	uint8_t cnp_dscp, cnp_ecn;      /**< CNP IP TOS (48 / 0) */
	uint8_t data_prio;              /**< PFC priority of data and ACKs */
	uint8_t cnp_prio;               /**< PFC priority of CNPs */

	/** Fault stage on every generator port (lib/fault; zero: off). */
	struct aifab_fault_params fault;
	bool fault_on_tx;               /**< at TX (else at RX) */

	/** 0: `now` is the TSC the app passes; > 0: the generator's own
	 * virtual clock in ns, advanced this much per poll (deterministic). */
	uint64_t virtual_tick_ns;
	double gpu_hour_usd;            /**< price of waiting, per rank-hour */

	/* Several servers (docs/lab.md): a rank_table line may end in
	 * host=NAME; this process emulates the ranks of @p host and those
	 * without a host, and frames to the others leave on the ports and
	 * come back from the fabric. */
	const char *host;               /**< this host; NULL or "": none */
	/** When iteration 0 may begin, on the app's clock (the `now` of
	 * poll): 0 at the first poll; AIFAB_GEN_START_FRAME when a leader's
	 * start frame arrives; else that instant (aifab_gen_arm() moves it). */
	uint64_t start_tsc;
	bool leader;                    /**< send start frames when starting */
	uint8_t digest[32];             /**< the profile's SHA-256, in frames */
	/** The wall clock (CLOCK_REALTIME ns) at app clock @p wall0_tsc:
	 * start frames carry the leader's wall time. */
	int64_t wall0_ns;
	uint64_t wall0_tsc;
};

/** start_tsc: wait for a leader's start frame. */
#define AIFAB_GEN_START_FRAME UINT64_MAX
/** EtherType of start frames (IEEE 802 Local Experimental Ethertype 1). */
#define AIFAB_GEN_START_ETHERTYPE 0x88B5
#define AIFAB_GEN_HOST_LEN 32           /**< host names, NUL included */

/** Fill @p p with defaults: ring AllReduce, 8 ranks, 1 MiB, 1 channel,
 * 1 QP, MTU 4096, 10 iterations + 2 warm-up, line rate, DSCP 26, ECT(0). */
void aifab_gen_params_defaults(struct aifab_gen_params *p);

/**
 * Validate @p p against @p env and build the generator (plan, QPs, pools).
 * @param n_workers  must be 1.
 * @return state for aifab_generator_ops, or NULL with @p err filled
 *   ("generator: <key> = <value>: why; allowed: ...").
 */
void *aifab_gen_create(const struct aifab_env *env,
		       const struct aifab_gen_params *p, unsigned int n_workers,
		       char *err, size_t errlen);

#define AIFAB_GEN_SUMMARY_ITERS 64
#define AIFAB_GEN_SUMMARY_QPS 16

/** One timed iteration beyond its time (closed loop; zero in open loop). */
struct aifab_gen_iter_sum {
	bool has_slowest;               /**< step figures known */
	/** The step that took longest in this iteration (a step ends when
	 * its last chunk is delivered), how long, and the rank whose chunk
	 * came last in it (who everyone waited for). */
	uint32_t slowest_step, slowest_rank;
	double slowest_step_us;
	/** RC events of this iteration's messages: packets and payload bytes
	 * resent, NAKs and timeouts (of its oldest unacknowledged message). */
	uint64_t retx_packets, retx_bytes, naks_rx, timeouts;
};

/** One QP (a sender QPN; its receiver is qpn + 1). */
struct aifab_gen_qp_sum {
	uint32_t qpn, src, dst, channel;
	/** Closed loop: mean DCQCN rate over its packets and the lowest it
	 * reached (DCQCN off: the rank's rate); 0 if it sent nothing. */
	double rate_avg_mbps, rate_min_mbps;
	/** What its receiver saw (PSN tracking) and RC resends. */
	uint64_t lost, reordered, duplicates;
	uint64_t retx_packets, timeouts;
};

/** Results in numbers (open loop: time = time to send). */
struct aifab_gen_summary {
	const char *op;                 /**< nccl-tests name, "allreduce" ... */
	uint64_t size;
	uint32_t n_ranks;
	uint32_t iterations;            /**< timed iterations completed */
	double time_us_min, time_us_avg, time_us_max;
	double algbw_gbps;              /**< GB/s (1e9 bytes/s), from avg time */
	double busbw_gbps;
	uint64_t tx_packets, tx_bytes;  /**< frames built and sent, no FCS */
	uint64_t tx_dropped;            /**< TX queue full or no mbufs */
	uint64_t rx_packets, rx_roce;
	uint64_t rx_lost, rx_reordered, rx_duplicates, rx_stale;
	uint64_t lat_count;             /**< latency samples (ns below) */
	uint64_t lat_min, lat_avg, lat_p50, lat_p99, lat_p999, lat_max;

	bool closed_loop;
	/** Per timed iteration (the first AIFAB_GEN_SUMMARY_ITERS). */
	uint32_t n_iter;
	double iter_us[AIFAB_GEN_SUMMARY_ITERS];
	/** The same iterations' start and end on the generator's clock
	 * (the app's TSC unless virtual), and the whole run's: the first
	 * iteration's (warm-up included) start, the last end seen. */
	uint64_t iter_t0[AIFAB_GEN_SUMMARY_ITERS];
	uint64_t iter_t1[AIFAB_GEN_SUMMARY_ITERS];
	uint64_t run_t0, run_t1;
	uint32_t n_own;                 /**< ranks this process emulates */
	struct aifab_gen_iter_sum iter[AIFAB_GEN_SUMMARY_ITERS];
	/** Ideal time of one collective: busbw factor x S at the slowest
	 * rank's line rate (S x 2(N-1)/N / rate for AllReduce), payload
	 * only... */
	double ideal_payload_us;
	/** ... and x the data frames' wire bytes / payload bytes (headers,
	 * ICRC, FCS, preamble, gap; docs/generator.md). */
	double ideal_us;
	/** Sum over timed iterations of max(0, time - ideal): what every rank
	 * waited on the network beyond the ideal. */
	double wait_beyond_ideal_us;
	/** That wait x ranks x gpu_hour_usd / 3600 s. */
	double wait_cost_usd;
	/** Closed loop: the step with the largest summed duration over timed
	 * iterations (a step ends when its last chunk is delivered), its mean
	 * duration, and the rank whose chunk came last in each iteration's
	 * slowest step most often (who everyone waited for). */
	uint32_t slowest_step, slowest_rank;
	double slowest_step_us;
	/** RC (closed loop, all QPs, warm-up included). */
	uint64_t retx_packets, retx_bytes, timeouts;
	uint64_t naks_tx, naks_rx, acks_tx, acks_rx, dup_rx, oos_rx;
	/** Payload bytes the responders accepted (each PSN once; from the
	 * IP/UDP length, so frame padding is not counted). */
	uint64_t delivered_bytes;
	/** DCQCN: CE-marked data received, CNPs sent and received, rate cuts;
	 * per QP the mean DCQCN rate over its packets, averaged over QPs,
	 * and the lowest rate any QP reached. */
	uint64_t ce_rx, cnp_tx, cnp_rx, rate_cuts;
	double qp_rate_avg_mbps, qp_rate_min_mbps;
	/** Per QP: how many; the distribution of their mean rates (closed
	 * loop: min, p10, p50, p90, max over QPs that sent); how many QPs
	 * lost, reordered or duplicated anything and the most one lost; the
	 * n_qp_listed slowest QPs (lowest mean rate first, then most lost +
	 * reordered + duplicates + resent; all QPs when there are at most
	 * AIFAB_GEN_SUMMARY_QPS). */
	uint32_t n_qps, n_qp_listed;
	double qp_rate_dist_mbps[5];
	uint32_t qps_with_loss, qps_with_reorder, qps_with_duplicates;
	uint64_t qp_lost_max;
	struct aifab_gen_qp_sum qp[AIFAB_GEN_SUMMARY_QPS];
	/** PFC frames received and time the data priority was paused,
	 * summed over ports. */
	uint64_t pfc_rx;
	double paused_us;
	/** Fault stage: frames dropped, marked CE. */
	uint64_t fault_dropped, fault_ce_marked;
};

/** How the run started (several servers). */
enum aifab_gen_start_state {
	AIFAB_GEN_WAITING,              /**< not started yet */
	AIFAB_GEN_STARTED,
	AIFAB_GEN_REFUSED,              /**< a start frame of another profile */
};

struct aifab_gen_start {
	enum aifab_gen_start_state state;
	uint64_t start_tsc;             /**< app clock of the start */
	bool by_frame;                  /**< started by a leader's frame */
	/** The last start frame taken (by_frame) or refused: the leader's
	 * wall clock when it sent it, its host, MAC and profile digest. */
	int64_t leader_wall_ns;
	char leader_host[AIFAB_GEN_HOST_LEN];
	struct rte_ether_addr leader_mac;
	char leader_digest[65];
	uint64_t frames_tx, frames_rx;  /**< start frames sent / received */
};

/** The start of the run (main lcore while it runs: racy but benign). */
void aifab_gen_start_info(const void *st, struct aifab_gen_start *out);

/** Move the instant iteration 0 begins (app clock), until it started. */
void aifab_gen_arm(void *st, uint64_t start_tsc);

/** Ranks of the collective and whether this process emulates @p r. */
bool aifab_gen_rank_owned(const void *st, uint32_t r);

/** The host a rank_table line names for rank @p r ("" none). */
const char *aifab_gen_rank_host(const void *st, uint32_t r);

enum {
	AIFAB_GEN_RB_SENT,              /**< payload sent, first time */
	AIFAB_GEN_RB_DELIVERED,         /**< delivered to it (closed loop) */
	AIFAB_GEN_RB_RETX,              /**< payload resent */
	AIFAB_GEN_RB_RX_FROM,           /**< data packets received from it */
	AIFAB_GEN_RB_QPS_TO_US,         /**< its QPs to ranks emulated here */
	AIFAB_GEN_RB_MAX
};

/** Per rank (this process's view; racy while it runs), @p out holding
 * n_ranks entries: payload it sent (closed loop: first transmissions;
 * open loop: its schedule's bytes per iteration completed), delivered to
 * it (closed loop), resent - for ranks emulated here, else 0; data
 * packets this process's ranks received from it and its QPs to them -
 * for any rank. */
void aifab_gen_rank_bytes(const void *st, uint64_t (*out)[AIFAB_GEN_RB_MAX]);

/** Fill @p s (any lcore, after the run or while it runs, racy). */
void aifab_gen_summary(const void *st, struct aifab_gen_summary *s);

/** aifab_gen_summary(), the latency fields (lat_*) left 0 unless
 * @p latency: merging every port's histogram is most of its cost on a
 * large fabric, and the live statistics do not show latency. */
void aifab_gen_summary_lat(const void *st, struct aifab_gen_summary *s,
			   bool latency);

/** Print an nccl-tests-style table (size count type redop time algbw busbw). */
void aifab_gen_print_table(const void *st, FILE *f);

/** init() refuses (params come through aifab_gen_create()). */
extern const struct aifab_pipeline_ops aifab_generator_ops;

#endif /* AIFAB_GENERATOR_H */
