/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * Lab recipes: measure a switch under test (DUT) cabled to our ports
 * (docs/lab.md). `[lab] recipe` names one of the recipe table
 * (pipelines/lab/recipes.c): **ecmp** (which port each flow comes back on,
 * per varied header field), **ecn** (the marking curve, Kmin/Kmax/Pmax
 * inferred), **pfc** (how the DUT pauses us and answers our pauses),
 * **incast** (a lossless N:1 gather: its completion time), and the others
 * docs/lab.md lists.
 *
 * The engine (lab.c) owns the ports, the mbuf pool, the tagged RoCEv2
 * frames (valid IPv4 checksum and ICRC, a tag with phase, flow, sequence
 * and TX timestamp), the poll loop and the counters; a recipe (one file
 * each) decides what to send when, what a returned frame means, and the
 * result, console table and JSON. The statistics behind the verdicts are
 * lib/verdict.
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

/** Header fields the ecmp recipe's phases vary (bit i, [lab] fields). */
enum aifab_lab_field {
	AIFAB_LAB_F_SPORT = 0,
	AIFAB_LAB_F_DQPN,
	AIFAB_LAB_F_SIP,
	AIFAB_LAB_F_DIP,
	AIFAB_LAB_F_MAX,
};

#define AIFAB_LAB_NAME_LEN 16u
#define AIFAB_LAB_MAX_FLOWS 65536u
#define AIFAB_LAB_MAX_STEPS 16u

/** Parameters (from [lab]). */
struct aifab_lab_params {
	char recipe[AIFAB_LAB_NAME_LEN]; /**< a name of the recipe table */
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

extern const struct aifab_pipeline_ops aifab_lab_ops;

/** Whether @p name is a recipe of the table ("none" is not). */
bool aifab_lab_recipe_exists(const char *name);

/** What `[lab] recipe` allows: "none, " then the table's names, ", "
 * between them. */
void aifab_lab_recipe_names(char *buf, size_t len);

/** Fill defaults. */
void aifab_lab_params_defaults(struct aifab_lab_params *p);

/** Create the pipeline (one worker); NULL with @p err filled. */
void *aifab_lab_create(const struct aifab_env *env,
		       const struct aifab_lab_params *p, char *err,
		       size_t errlen);

/** The recipe's figures and verdict table, for the console. */
void aifab_lab_print(const void *st, FILE *f);

/** The "lab" JSON object (without its key), for the report. */
void aifab_lab_json(const void *st, FILE *f);

#ifdef __cplusplus
}
#endif

#endif /* AIFAB_LAB_H */
