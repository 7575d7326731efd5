/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * aifab DCQCN: the endpoint side of DCQCN congestion control (Zhu et al.,
 * SIGCOMM 2015), per QP, as pure state machines driven by the caller's TSC.
 *
 * - Notification point (receiver): on a CE-marked data packet of a QP,
 *   send a CNP unless one was sent for that QP less than cnp_interval ago.
 * - Reaction point (sender): current rate Rc, target rate Rt, alpha.
 *   On CNP: Rt = Rc; Rc = max(Rc (1 - alpha/2), min); alpha = (1-g) alpha + g;
 *   the alpha timer, rate timer, byte counter and both event counts restart.
 *   Every alpha period without CNP: alpha = (1-g) alpha.
 *   Every rate period (count T) and every byte_counter bytes sent (count B)
 *   one increase step:
 *     max(T,B) <= F  fast recovery:  Rc = (Rt + Rc) / 2
 *     min(T,B) >  F  hyper increase: Rt += (min(T,B) - F) R_HAI, then as fast
 *     otherwise      additive:       Rt += R_AI, then as fast
 *   Rt and Rc never exceed the line rate.
 *
 * Events due at the same `now` run alpha first, then rate; both before the
 * CNP or bytes that the call reports. Rates are doubles in Mb/s: this is
 * per-event control-plane arithmetic (a few per 55 us per QP), and IEEE
 * double arithmetic is deterministic for a given input sequence. Per packet
 * the sender only adds to the byte counter.
 *
 * Converting a rate to a pacing gap: tsc = bytes * 8 * tsc_hz / (Mb/s * 1e6).
 */
#ifndef AIFAB_DCQCN_H
#define AIFAB_DCQCN_H

#include <stdbool.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Defaults (aifab_dcqcn_params_default()). */
#define AIFAB_DCQCN_DEF_G (1.0 / 256)           /**< alpha gain */
#define AIFAB_DCQCN_DEF_ALPHA_INIT 1.0          /**< alpha of a new QP */
#define AIFAB_DCQCN_DEF_RAI_MBPS 40.0           /**< DCQCN paper's R_AI */
#define AIFAB_DCQCN_DEF_RHAI_MBPS 400.0         /**< 10 x R_AI */
#define AIFAB_DCQCN_DEF_ALPHA_PERIOD_NS 55000u  /**< 55 us */
#define AIFAB_DCQCN_DEF_RATE_PERIOD_NS 55000u   /**< T: 55 us */
#define AIFAB_DCQCN_DEF_BYTE_COUNTER (10u << 20) /**< B: 10 MiB */
#define AIFAB_DCQCN_DEF_F 5u                    /**< fast recovery steps */
#define AIFAB_DCQCN_DEF_CNP_INTERVAL_NS 50000u  /**< NP: 50 us */
#define AIFAB_DCQCN_DEF_MIN_RATE_MBPS 100.0     /**< floor of Rc */

/** User parameters (all profile keys). */
struct aifab_dcqcn_params {
	uint64_t tsc_hz;          /**< TSC frequency of `now`, 1..10 GHz */
	double line_rate_mbps;    /**< cap of Rt and Rc; initial Rc, Rt */
	double min_rate_mbps;     /**< floor of Rc, (0, line] */
	double g;                 /**< alpha gain, (0, 1] */
	double alpha_init;        /**< [0, 1] */
	double rai_mbps;          /**< additive increase, >= 0 */
	double rhai_mbps;         /**< hyper increase unit, >= 0 */
	uint64_t alpha_period_ns; /**< alpha decay timer, (0, 1 hour] */
	uint64_t rate_period_ns;  /**< rate increase timer T, (0, 1 hour] */
	uint64_t byte_counter;    /**< rate increase every B bytes; 0: never
				   *   (then hyper increase never happens) */
	uint32_t f;               /**< fast recovery steps F, >= 1 */
	uint64_t cnp_interval_ns; /**< NP: min gap between CNPs per QP,
				   *   <= 1 hour; 0: a CNP per CE packet */
};

/** Validated configuration, times in TSC. Shared by all QPs. */
struct aifab_dcqcn_conf {
	double line, min, g, alpha_init, rai, rhai;
	uint64_t alpha_period, rate_period, cnp_interval;
	uint64_t byte_counter;
	uint32_t f;
};

/** Reaction point counters: one list gives the enum and the names. */
#define AIFAB_DCQCN_RP_COUNTERS(X) \
	X(CNP_RX, "cnp_rx") \
	X(RATE_CUTS, "rate_cuts") \
	X(ALPHA_DECAYS, "alpha_decays") \
	X(TIMER_EVENTS, "rate_timer_events") \
	X(BYTE_EVENTS, "byte_counter_events") \
	X(FAST_RECOVERY, "fast_recovery_steps") \
	X(ADDITIVE, "additive_increase_steps") \
	X(HYPER, "hyper_increase_steps")

#define AIFAB_DCQCN_RP_CNT_ENUM(e, s) AIFAB_DCQCN_RP_CNT_##e,
enum aifab_dcqcn_rp_cnt {
	AIFAB_DCQCN_RP_COUNTERS(AIFAB_DCQCN_RP_CNT_ENUM) AIFAB_DCQCN_RP_CNT_MAX
};
#undef AIFAB_DCQCN_RP_CNT_ENUM

/** Notification point counters. */
#define AIFAB_DCQCN_NP_COUNTERS(X) \
	X(CE_RX, "ce_rx") \
	X(CNP_TX, "cnp_tx") \
	X(CNP_SUPPRESSED, "cnp_suppressed")

#define AIFAB_DCQCN_NP_CNT_ENUM(e, s) AIFAB_DCQCN_NP_CNT_##e,
enum aifab_dcqcn_np_cnt {
	AIFAB_DCQCN_NP_COUNTERS(AIFAB_DCQCN_NP_CNT_ENUM) AIFAB_DCQCN_NP_CNT_MAX
};
#undef AIFAB_DCQCN_NP_CNT_ENUM

/** Reaction point state of one QP (sender). */
struct aifab_dcqcn_rp {
	/* What every packet sent reads (aifab_dcqcn_rp_on_bytes_sent(),
	 * aifab_dcqcn_rp_rate()) first: 32 bytes, so a caller can keep them
	 * on one cache line; the rest moves at timer, byte and CNP events. */
	double rc;              /**< current rate, Mb/s */
	uint64_t bytes;         /**< sent since the last byte event */
	uint64_t alpha_start;   /**< TSC the alpha period runs from */
	uint64_t rate_start;    /**< TSC the rate period runs from */
	double rt;              /**< target rate, Mb/s */
	double alpha;
	double min_rc;          /**< lowest Rc so far */
	uint32_t t;             /**< rate timer events since the last CNP */
	uint32_t b;             /**< byte counter events since the last CNP */
	uint64_t cnt[AIFAB_DCQCN_RP_CNT_MAX];
};

/** Notification point state of one QP (receiver). */
struct aifab_dcqcn_np {
	uint64_t last_cnp;      /**< TSC of the last CNP */
	bool sent;              /**< a CNP was ever sent */
	uint64_t cnt[AIFAB_DCQCN_NP_CNT_MAX];
};

/** Names of the counters (stable: used in reports). */
const char *aifab_dcqcn_rp_cnt_name(enum aifab_dcqcn_rp_cnt c);
const char *aifab_dcqcn_np_cnt_name(enum aifab_dcqcn_np_cnt c);

/** Fill @p p with the defaults above for a port of @p line_mbps. */
void aifab_dcqcn_params_default(struct aifab_dcqcn_params *p,
				double line_mbps, uint64_t tsc_hz);

/**
 * Validate @p p and compile it.
 * @return 0, or -EINVAL (a field out of the range documented above).
 */
int aifab_dcqcn_conf_init(struct aifab_dcqcn_conf *c,
			  const struct aifab_dcqcn_params *p);

/** Start a reaction point at line rate, alpha_init, timers from @p now. */
void aifab_dcqcn_rp_init(const struct aifab_dcqcn_conf *c,
			 struct aifab_dcqcn_rp *rp, uint64_t now);

/**
 * Run the alpha and rate timers due by @p now.
 * @return the current rate Rc in Mb/s.
 */
double aifab_dcqcn_rp_poll(const struct aifab_dcqcn_conf *c,
			   struct aifab_dcqcn_rp *rp, uint64_t now);

/** A CNP arrived for this QP at @p now (timers due first run first). */
void aifab_dcqcn_rp_on_cnp(const struct aifab_dcqcn_conf *c,
			   struct aifab_dcqcn_rp *rp, uint64_t now);

/**
 * @p n bytes were sent at @p now: runs the timers due, then the byte
 * counter (an increase step per byte_counter bytes).
 */
void aifab_dcqcn_rp_on_bytes_sent(const struct aifab_dcqcn_conf *c,
				  struct aifab_dcqcn_rp *rp, uint32_t n,
				  uint64_t now);

/** Current rate Rc in Mb/s as of the last call (no timers run). */
static inline double
aifab_dcqcn_rp_rate(const struct aifab_dcqcn_rp *rp)
{
	return rp->rc;
}

/** Start a notification point: the first CE packet gets a CNP. */
void aifab_dcqcn_np_init(struct aifab_dcqcn_np *np);

/**
 * A CE-marked data packet of this QP arrived at @p now.
 * @return true if the caller must send a CNP to the sender's QP now.
 */
bool aifab_dcqcn_np_on_ce(const struct aifab_dcqcn_conf *c,
			  struct aifab_dcqcn_np *np, uint64_t now);

#ifdef __cplusplus
}
#endif

#endif /* AIFAB_DCQCN_H */
