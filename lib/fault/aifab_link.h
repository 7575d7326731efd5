/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * aifab link: the impairments of one direction of one link, as a stage a
 * pipeline puts between a port and its own code (the switch at each
 * port's RX and TX). It composes, in this order:
 *
 *  1. **link down**: from `down_at` for `down_for` every frame is lost;
 *  2. **loss and CE marking** (lib/fault's rules: a chosen frame, every
 *     Nth, a probability; by frame kind);
 *  3. a **delay line**: each frame leaves at
 *     max(arrival + delay + jitter, previous departure + its wire time at
 *     `rate`), FIFO like a real link (jitter never reorders), at most
 *     `queue` frames held (more are lost, counted);
 *  4. a **PFC storm**: from `storm_at` for `storm_for`, the caller is told
 *     to send (TX) or to act as if it received (RX) an XOFF for the
 *     priorities in `storm_prio` every `storm_refresh`.
 *
 * Loss, marking, delay and rate apply in the window [from, until). Times
 * are nanoseconds since the stage's origin: the first time it is called
 * (so "at 20 ms" means 20 ms into the traffic on that port), on whatever
 * clock the caller runs (TSC converted, or virtual). Draws are seeded per
 * stage; one stage per lcore, no locks, no globals.
 */
#ifndef AIFAB_LINK_H
#define AIFAB_LINK_H

#include <stdbool.h>
#include <stdint.h>

#include "aifab_fault.h"
#include "aifab_rng.h"

#ifdef __cplusplus
extern "C" {
#endif

struct rte_mbuf;

/** Parameters (all zero: a stage that passes everything at once). */
struct aifab_link_params {
	struct aifab_fault_params loss; /**< drop / CE rules (lib/fault) */
	uint64_t from_ns;       /**< loss, delay and rate start */
	uint64_t until_ns;      /**< and end (0: never) */
	uint64_t delay_ns;      /**< added one-way latency */
	uint64_t jitter_ns;     /**< plus uniform 0..jitter */
	uint64_t rate_mbps;     /**< bandwidth limit (0: none) */
	uint32_t queue;         /**< delay line size, frames (0: 8192) */
	uint64_t down_at_ns;    /**< link down from */
	uint64_t down_for_ns;   /**< for this long (0: never down) */
	uint8_t storm_prio;     /**< PFC storm priorities, bit i = prio i */
	uint64_t storm_at_ns;   /**< storm from */
	uint64_t storm_for_ns;  /**< for this long (0: to the end) */
	uint64_t storm_refresh_ns; /**< one XOFF per (0: 100 us) */
};

/** Counters: one list gives the enum and the names. */
#define AIFAB_LINK_COUNTERS(X) \
	X(DOWN_DROPPED, "link_down_dropped") \
	X(DELAYED, "link_delayed") \
	X(QUEUE_DROPPED, "link_queue_dropped") \
	X(STORM_FRAMES, "link_pfc_storm_frames")

#define AIFAB_LINK_CNT_ENUM(e, s) AIFAB_LINK_CNT_##e,
enum aifab_link_cnt { AIFAB_LINK_COUNTERS(AIFAB_LINK_CNT_ENUM)
		      AIFAB_LINK_CNT_MAX };
#undef AIFAB_LINK_CNT_ENUM

/** One frame held in the delay line. */
struct aifab_link_slot {
	struct rte_mbuf *m;
	uint64_t t;             /**< ns: leaves at */
};

/** Run-time state. */
struct aifab_link {
	struct aifab_link_params p;
	struct aifab_fault loss;
	struct aifab_rng jitter_rng;
	bool delaying;          /**< delay, jitter or rate configured */
	bool started;
	uint64_t origin;        /**< caller's clock (ns) at the first call */
	uint64_t last_out;      /**< ns: departure of the last frame queued */
	uint64_t storm_next;    /**< ns: next storm XOFF */
	uint32_t mask, head, tail; /**< ring of mask + 1 slots */
	struct aifab_link_slot *ring;
	uint64_t cnt[AIFAB_LINK_CNT_MAX];
};

/** Name of a counter ("link_delayed"), "unknown" if out of range. */
const char *aifab_link_cnt_name(enum aifab_link_cnt c);

/** True if @p p configures any impairment. */
bool aifab_link_params_active(const struct aifab_link_params *p);

/**
 * Validate @p p and start a stage (the delay line allocated on @p socket
 * when delay, jitter or rate are set).
 * @param stream  separates the draws of stages sharing a seed.
 * @return 0, -EINVAL (bad loss rules, queue > 2^20), -ENOMEM.
 */
int aifab_link_init(struct aifab_link *l, const struct aifab_link_params *p,
		    uint64_t stream, int socket);

/** Free what the stage holds (mbufs in the line: freed, not counted). */
void aifab_link_fini(struct aifab_link *l);

/**
 * Put @p n frames into the link at time @p now (ns, caller's clock).
 * Lost frames are freed and counted. Without a delay line the survivors
 * stay at the front of @p pkts, in order, and their number is returned;
 * with one they are queued (the line keeps the mbufs) and 0 is returned.
 *
 * @param scratch  AIFAB_PKT_HDR_WINDOW bytes for the parser.
 */
uint16_t aifab_link_in(struct aifab_link *l, struct rte_mbuf **pkts,
		       uint16_t n, uint64_t now, uint8_t *scratch);

/** Take up to @p max frames whose time to leave has come. */
uint16_t aifab_link_out(struct aifab_link *l, struct rte_mbuf **pkts,
			uint16_t max, uint64_t now);

/** Frames in the delay line. */
static inline uint32_t
aifab_link_held(const struct aifab_link *l)
{
	return l->tail - l->head;
}

/**
 * The PFC storm: true when an XOFF for @p *prio is due at @p now (then
 * counted); the caller sends it (TX) or acts on it as received (RX).
 * @param now_due  inside the storm, due now whatever the refresh timer
 *   says (a caller whose pause lapsed because it was not scheduled: a
 *   stuck peer would have sent XOFFs meanwhile).
 */
bool aifab_link_storm(struct aifab_link *l, uint64_t now, bool now_due,
		      uint8_t *prio);

/** True while the link is down at @p now. */
bool aifab_link_down(struct aifab_link *l, uint64_t now);

#ifdef __cplusplus
}
#endif

#endif /* AIFAB_LINK_H */
