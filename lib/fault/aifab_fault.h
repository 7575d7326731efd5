/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * aifab fault: a small seeded impairment stage for a packet stream (one
 * port's RX or TX): drop a chosen frame, every Nth frame or frames at a
 * probability, mark ECT frames CE the same ways, and corrupt RoCEv2
 * frames (flip one payload bit, so their ICRC no longer holds) the same
 * ways. Frames are first
 * matched by kind (RoCE data, any RoCEv2, or everything); only matching
 * frames are numbered and impaired, so "drop data frame 17" names one
 * frame whatever ACKs, CNPs or PFC frames flow around it.
 *
 * Two layers: aifab_fault_judge() is the pure decision for one frame
 * (counters, index, seeded draws); aifab_fault_burst() applies it to a
 * burst of mbufs (parse, match, free the dropped ones, rewrite the TOS
 * byte of the marked ones with an RFC 1624 checksum update, flip a bit of
 * the corrupted ones, compact the array). No clock, no globals; one object
 * per stream, used by one lcore.
 */
#ifndef AIFAB_FAULT_H
#define AIFAB_FAULT_H

#include <stdbool.h>
#include <stdint.h>

#include "aifab_rng.h"

#ifdef __cplusplus
extern "C" {
#endif

struct rte_mbuf;

/** Which frames the stage numbers and impairs. */
enum aifab_fault_match {
	AIFAB_FAULT_MATCH_DATA = 0, /**< RoCEv2 SEND/WRITE (carry payload) */
	AIFAB_FAULT_MATCH_ROCE,     /**< any RoCEv2 frame (ACK, CNP too) */
	AIFAB_FAULT_MATCH_ALL,      /**< every frame */
	AIFAB_FAULT_MATCH_MAX,
};

/** Largest probability, parts per million. */
#define AIFAB_FAULT_PPM_MAX 1000000u

/** User parameters (all zero: a stage that passes everything). */
struct aifab_fault_params {
	uint8_t match;          /**< enum aifab_fault_match */
	uint64_t drop_index;    /**< drop matching frame number this (1-based); 0 off */
	uint32_t drop_every;    /**< drop every Nth matching frame; 0 off */
	uint32_t drop_ppm;      /**< drop probability per matching frame */
	uint64_t ce_index;      /**< mark matching frame number this CE; 0 off */
	uint32_t ce_every;      /**< mark every Nth matching frame CE; 0 off */
	uint32_t ce_ppm;        /**< CE probability per matching frame */
	uint64_t corrupt_index; /**< corrupt matching frame number this; 0 off */
	uint32_t corrupt_every; /**< corrupt every Nth matching frame; 0 off */
	uint32_t corrupt_ppm;   /**< corruption probability per matching frame */
	uint64_t seed;          /**< seeds the draws (drop, CE, corrupt apart) */
};

/** Counters: one list gives the enum and the names (report keys). */
#define AIFAB_FAULT_COUNTERS(X) \
	X(SEEN, "fault_seen") \
	X(MATCHED, "fault_matched") \
	X(DROPPED, "fault_dropped") \
	X(CE_MARKED, "fault_ce_marked") \
	X(CE_ALREADY, "fault_ce_already") \
	X(CE_NOT_ECT, "fault_ce_not_ect") \
	X(CORRUPTED, "fault_corrupted") \
	X(CORRUPT_SKIPPED, "fault_corrupt_skipped")

#define AIFAB_FAULT_CNT_ENUM(e, s) AIFAB_FAULT_CNT_##e,
enum aifab_fault_cnt { AIFAB_FAULT_COUNTERS(AIFAB_FAULT_CNT_ENUM)
		       AIFAB_FAULT_CNT_MAX };
#undef AIFAB_FAULT_CNT_ENUM

/** What to do with one frame: PASS, DROP, or MARK_CE and / or CORRUPT
 * (bitwise or). */
enum aifab_fault_verdict {
	AIFAB_FAULT_PASS = 0,
	AIFAB_FAULT_DROP = 1,
	AIFAB_FAULT_MARK_CE = 2,    /**< set CE if the frame is ECT */
	AIFAB_FAULT_CORRUPT = 4,    /**< flip one payload bit (RoCEv2) */
	AIFAB_FAULT_MARK_CE_CORRUPT = 6,
};

/** Run-time state of one stage. */
struct aifab_fault {
	struct aifab_fault_params p;
	bool active;            /**< some impairment is configured */
	struct aifab_rng drop_rng, ce_rng, corrupt_rng;
	uint64_t cnt[AIFAB_FAULT_CNT_MAX];
};

/** Name of a counter ("fault_dropped"), "unknown" if out of range. */
const char *aifab_fault_cnt_name(enum aifab_fault_cnt c);

/** Name of a match kind ("data", "roce", "all"), NULL if out of range. */
const char *aifab_fault_match_name(enum aifab_fault_match m);

/** True if @p p configures a drop, CE or corruption rule. */
bool aifab_fault_params_active(const struct aifab_fault_params *p);

/**
 * Validate @p p and start a stage.
 * @param stream  separates the draws of stages sharing a seed (e.g. port).
 * @return 0, or -EINVAL (match unknown, a ppm above 10^6).
 */
int aifab_fault_init(struct aifab_fault *f, const struct aifab_fault_params *p,
		     uint64_t stream);

/** True if the stage can change anything (else callers may skip it). */
static inline bool
aifab_fault_active(const struct aifab_fault *f)
{
	return f->active;
}

/**
 * Decide one frame. A matching frame gets the next number n (from 1); it
 * is dropped if n == drop_index, n is a multiple of drop_every, or the
 * drop draw hits; otherwise marked if n == ce_index, a multiple of
 * ce_every, or the CE draw hits, and corrupted by the corrupt_* rules
 * alike (both may apply). Draws are made only for configured
 * probabilities, each rule from its own generator, so adding one does not
 * shift another's sequence. Counts seen, matched and dropped (marking and
 * corruption are counted by aifab_fault_burst(), which knows if the frame
 * could be marked or corrupted).
 */
enum aifab_fault_verdict aifab_fault_judge(struct aifab_fault *f,
					   bool matched);

/**
 * Apply the stage to @p n mbufs in place: dropped ones are freed and
 * removed, marked ones get CE (IPv4 with the header checksum updated,
 * IPv6 traffic class) when their IP header sits in the first segment and
 * is ECT; corrupted ones get one bit flipped, chosen by a draw among the
 * bytes of their payload (what follows the BTH and its RETH / ImmDt, pad
 * included, ICRC not: an ACK's AETH, a CNP's reserved bytes) that sit in
 * a segment the frame owns alone (direct, not shared; never an attached
 * external buffer such as the generator's shared payload). A frame that
 * is not IPv4/IPv6 RoCEv2 or has no such byte is left alone and counted
 * fault_corrupt_skipped. The survivors keep their order at the front of
 * @p pkts.
 *
 * @param scratch  AIFAB_PKT_HDR_WINDOW bytes for the parser.
 * @return the number of mbufs left.
 */
uint16_t aifab_fault_burst(struct aifab_fault *f, struct rte_mbuf **pkts,
			   uint16_t n, uint8_t *scratch);

#ifdef __cplusplus
}
#endif

#endif /* AIFAB_FAULT_H */
