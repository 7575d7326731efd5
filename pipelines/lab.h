/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * Lab recipes: measure a switch under test (DUT) cabled to our ports.
 *
 * **ecmp** (the ECMP spread recipe): from one port, send K flows of RoCEv2
 * frames to a destination the DUT routes over an ECMP group whose members
 * lead back to our other ports. One phase per header field varies only
 * that field across the K flows (UDP source port, destination QP, source
 * IP, destination IP), and a last phase varies them all. Each frame
 * carries a tag (phase, flow, sequence); what comes back tells, per phase,
 * which port each flow took. Per phase: flows per port, imbalance (busiest
 * port / mean), a chi-square figure against an even spread and its
 * p-value, flows split over several ports, frames lost; a field is hashed
 * on when varying it alone moves flows to more than one port. The verdict
 * (PASS/FAIL) compares the all-fields phase with the profile's limits.
 *
 * One lcore, the ports given in [lab] (the generator's role: the switch
 * does not receive on them). Pacing on the TSC; no randomness: flows are
 * numbered, so a run is repeatable against a deterministic DUT.
 */
#ifndef AIFAB_LAB_H
#define AIFAB_LAB_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include <rte_ether.h>

#include "aifab_pipeline.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Recipes ([lab] recipe). */
enum aifab_lab_recipe {
	AIFAB_LAB_NONE = 0,
	AIFAB_LAB_ECMP,
	AIFAB_LAB_ECN,
	AIFAB_LAB_PFC,
	AIFAB_LAB_INCAST,
	AIFAB_LAB_MAX,
};

/** Header fields a phase may vary (bit i, [lab] fields). */
enum aifab_lab_field {
	AIFAB_LAB_F_SPORT = 0,
	AIFAB_LAB_F_DQPN,
	AIFAB_LAB_F_SIP,
	AIFAB_LAB_F_DIP,
	AIFAB_LAB_F_MAX,
};

#define AIFAB_LAB_MAX_FLOWS 65536u
#define AIFAB_LAB_MAX_STEPS 16u
#define AIFAB_LAB_BINS 64u
#define AIFAB_LAB_MAX_PHASES (AIFAB_LAB_F_MAX + 1)

/** Parameters (from [lab]). */
struct aifab_lab_params {
	uint8_t recipe;               /**< enum aifab_lab_recipe */
	uint16_t tx_port;             /**< env port index */
	uint16_t n_rx;
	uint16_t rx_ports[AIFAB_MAX_PORTS]; /**< where frames come back */
	struct rte_ether_addr gw_mac; /**< the DUT's MAC on tx_port */
	uint32_t src_ip, dst_ip;      /**< host order */
	uint32_t flows;
	uint32_t frames_per_flow;
	uint16_t frame_bytes;         /**< without FCS */
	uint32_t fields;              /**< bit enum aifab_lab_field */
	uint32_t rate_mbps;
	uint8_t tos;                  /**< DSCP << 2 | ECN */
	uint16_t sport_base;
	uint32_t qpn_base;
	uint32_t settle_ms;
	double max_imbalance;         /**< verdict: all-fields phase */
	double min_p;                 /**< verdict: chi-square p-value */
	uint32_t mbufs;               /**< pool size (0: auto) */
	/* ecn */
	uint32_t dut_rate_mbps;       /**< the DUT egress port's rate */
	uint32_t n_loads;
	uint32_t load_pct[AIFAB_LAB_MAX_STEPS]; /**< offered / dut_rate */
	uint32_t step_ms, gap_ms;
	uint32_t bin_bytes;           /**< queue-depth bin width */
	uint32_t min_bin_frames;      /**< bins with fewer are not judged */
	uint32_t expect_kmin, expect_kmax; /**< bytes; 0: not judged */
	double expect_pmax;           /**< 0..1; < 0: not judged */
	double tolerance;             /**< relative, for Kmin/Kmax */
	/* pfc */
	uint8_t pfc_prio;             /**< the lossless priority under test */
	uint16_t pfc_quanta;          /**< of the XOFF we send */
	uint32_t pfc_load_pct;        /**< phase A overload, of dut_rate */
	uint32_t hold_ms;             /**< phase B: we hold the DUT paused */
	uint32_t resume_ms;           /**< verdict: first frame after XON */
	uint32_t cable_m;             /**< our rx port's cable, for headroom */
	/* incast: senders tx_port + more_tx[], each to its own DUT port */
	uint16_t n_more_tx;
	uint16_t more_tx[AIFAB_MAX_PORTS];
	struct rte_ether_addr more_gw[AIFAB_MAX_PORTS];
	uint32_t max_p99_us;          /**< verdict; 0: not judged */
};

/**
 * incast, as an N:1 collective (a gather): every sender delivers a message
 * of frames_each frames to the one receiver; the collective completes when
 * the last sender's message has arrived whole.
 */
struct aifab_lab_incast {
	uint32_t n_senders;
	uint64_t frames_each;         /**< each sender's message, frames */
	uint64_t sent[AIFAB_MAX_PORTS], received[AIFAB_MAX_PORTS];
	uint64_t pfc_rx[AIFAB_MAX_PORTS];   /**< XOFF+XON the DUT sent it */
	double paused_ms[AIFAB_MAX_PORTS];  /**< time it was held back */
	double done_ms[AIFAB_MAX_PORTS];    /**< its message delivered, from
					     * the first frame out; -1: never */
	uint64_t pfc_rx_total;
	double paused_ms_total;
	uint64_t lost;
	uint64_t reordered;           /**< sequence breaks (gap or reorder) */
	bool completed;               /**< every message delivered whole */
	double completion_ms;         /**< first frame out to the last
				       * message delivered (if completed) */
	double ideal_ms;              /**< all wire bytes / dut_rate; 0:
				       * dut_rate_gbps not given */
	double goodput_mbps;          /**< received bytes / completion */
	double lat_p50_us, lat_p99_us, lat_p999_us, lat_max_us;
};

/** pfc: what was measured (see lab.c). */
struct aifab_lab_pfc {
	/* phase A: the DUT pausing us */
	uint64_t a_sent_bytes_to_xoff; /**< we sent before its first XOFF */
	double a_first_xoff_ms;       /**< from the start of phase A */
	uint64_t xoff_rx, xon_rx;     /**< PFC frames for the priority */
	uint32_t quanta_min, quanta_max;
	double refresh_us;            /**< mean gap between its XOFFs
				       * within a pause (no XON between) */
	double pause_us;              /**< quanta_max at our link's speed */
	/* phase B: we pause the DUT */
	uint64_t b_before;            /**< frames before our XOFF */
	uint64_t leak_frames, leak_bytes; /**< arrived after our XOFF */
	double response_us;           /**< our XOFF to the last leaked frame */
	double response_quanta;       /**< leak bytes in quanta (64 B each) */
	uint32_t bound_quanta;        /**< IEEE 802.3 31B at the speed */
	uint64_t bound_bytes;         /**< bound + 2 frames + cable */
	bool resumed;                 /**< a frame after our XON */
	double resume_ms;             /**< XON to the first frame */
	uint64_t headroom_bytes;      /**< a peer of this DUT needs */
};

/** ecn: one load step. */
struct aifab_lab_step {
	uint32_t load_pct;
	uint64_t sent, received, ce, ect;
	double lat_avg_us, lat_max_us;
};

/** ecn: one queue-depth bin (depth from queueing delay x DUT rate). */
struct aifab_lab_bin {
	uint64_t frames, ce;
};

/** One phase's result. */
struct aifab_lab_phase {
	int field;                    /**< enum aifab_lab_field, -1: all */
	uint64_t sent, received;
	uint32_t flows_seen;          /**< flows with >= 1 frame back */
	uint32_t flows_split;         /**< flows seen on > 1 port */
	uint32_t ports_used;
	uint32_t per_port[AIFAB_MAX_PORTS]; /**< flows (first port seen) */
	double imbalance;             /**< max / mean over the rx ports */
	double chi2;                  /**< against an even spread */
	double p;                     /**< chi-square upper tail */
};

/** What the report and the console show. */
struct aifab_lab_result {
	uint8_t recipe;
	uint32_t n_phases;
	struct aifab_lab_phase ph[AIFAB_LAB_MAX_PHASES];
	uint64_t rx_other;            /**< frames without our tag */
	uint32_t hashed;              /**< fields that moved flows (bits) */
	bool pass;
	/* ecn */
	uint32_t n_steps;
	struct aifab_lab_step step[AIFAB_LAB_MAX_STEPS];
	struct aifab_lab_bin bin[AIFAB_LAB_BINS];
	double base_lat_us;           /**< smallest latency seen: no queue */
	bool has_kmin, has_kmax;
	uint32_t kmin, kmax;          /**< inferred, bytes */
	double pmax;                  /**< inferred */
	struct aifab_lab_pfc pfc;
	struct aifab_lab_incast incast;
};

/**
 * Pure: Kmin, Kmax, Pmax from marking per depth bin (RED/WRED shape).
 * Kmax: start of the first judged bin marked >= 90%. The ramp: a
 * least-squares line (weighted by frames) through the judged bins below
 * Kmax with some marks and fewer than half; Kmin where it crosses 0, Pmax
 * its value at Kmax. With fewer than two such bins: Kmin = the first bin
 * marked >= 2%, Pmax = the largest fraction below Kmax. Bins with fewer
 * than @p min_frames frames are not judged.
 */
void aifab_lab_infer_red(const struct aifab_lab_bin *bins, unsigned int n,
			 uint32_t bin_bytes, uint32_t min_frames,
			 struct aifab_lab_result *r);

/**
 * Pure: the nearest-rank percentile of @p n latencies sorted ascending
 * (ns; bit 31, a CE flag, ignored), in us: the value of rank
 * ceil(n x permille / 1000), at least 1 (p50: 500, p99: 990, p999: 999).
 * 0 when n is 0.
 */
double aifab_lab_pct_us(const uint32_t *sorted, uint32_t n,
			uint32_t permille);

extern const struct aifab_pipeline_ops aifab_lab_ops;

/** Name of a recipe ("ecmp"), of a field ("sport"); NULL if out of range. */
const char *aifab_lab_recipe_name(unsigned int r);
const char *aifab_lab_field_name(unsigned int f);

/** Fill defaults. */
void aifab_lab_params_defaults(struct aifab_lab_params *p);

/** IEEE 802.3 31B response bound in quanta at @p mbps (PROTOCOLS.md:
 * 67 at 10G and below, 80 at 25G, 394 at 40-100G, 905 at 200-400G). */
uint32_t aifab_lab_pfc_bound_quanta(uint32_t mbps);

/** Create the pipeline (one worker); NULL with @p err filled. */
void *aifab_lab_create(const struct aifab_env *env,
		       const struct aifab_lab_params *p, char *err,
		       size_t errlen);

/** Results so far (final once the run stopped). */
void aifab_lab_result(const void *st, struct aifab_lab_result *r);

/** The verdict table and per-phase figures, for the console. */
void aifab_lab_print(const void *st, FILE *f);

/** The "lab" JSON object (without its key), for the report. */
void aifab_lab_json(const void *st, FILE *f);

/**
 * Pure: a phase's figures from per-port flow counts. Imbalance = max /
 * (seen / n); chi-square = sum (o - e)^2 / e with e = seen / n; p = its
 * upper tail with n - 1 degrees of freedom (exact, integer degrees).
 */
void aifab_lab_spread(const uint32_t *per_port, unsigned int n,
		      double *imbalance, double *chi2, double *p);

#ifdef __cplusplus
}
#endif

#endif /* AIFAB_LAB_H */
