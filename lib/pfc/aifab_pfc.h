/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * aifab PFC: IEEE 802.1Qbb priority flow control for the software switch,
 * as pure functions over caller-owned state (like DPDK lib/red):
 *
 * - **generation** (per ingress port, struct aifab_pfc_gen): bytes buffered
 *   per priority that arrived on the port; XOFF / XON with hysteresis from
 *   static or dynamic (alpha x free shared buffer) thresholds, headroom
 *   above XOFF for lossless priorities, and XOFF refresh while still above
 *   XON. aifab_pfc_gen_poll() says which frame to send; the caller builds it
 *   with aifab_build_pfc().
 * - **headroom** sizing per PROTOCOLS.md (MTU + cable both ways + peer
 *   response time + MTU).
 * - **honouring** (per egress port, struct aifab_pfc_rx): pause timers of
 *   quanta x 512 bit times at the port speed, exact in TSC cycles, and paused
 *   time accounting.
 * - **watchdog** (per egress port, struct aifab_pfc_wd), SONiC-style storm
 *   detection and restoration.
 *
 * Time is always the caller's TSC value @p now, non-decreasing from call to
 * call on one object. Priority arguments must be below AIFAB_PFC_NUM_PRIO
 * (not checked on the fast path). Nothing here reads a clock, allocates, locks or keeps
 * globals. Each object belongs to one lcore; counters are plain increments.
 * Only struct aifab_pfc_share is meant for several lcores (atomics).
 */
#ifndef AIFAB_PFC_H
#define AIFAB_PFC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/** Priorities (traffic classes of the PFC frame). */
#define AIFAB_PFC_NUM_PRIO 8
/** Largest (and default) pause time, in quanta of 512 bit times. */
#define AIFAB_PFC_QUANTA_MAX 0xFFFFu
/** Bit times per quantum. */
#define AIFAB_PFC_QUANTUM_BITS 512u
/** Largest port speed accepted, Mb/s (1.6 Tb/s). */
#define AIFAB_PFC_SPEED_MAX_MBPS 1600000u
/**
 * Largest TSC frequency accepted (about 18.4 GHz): keeps every conversion
 * (quanta and ms to cycles, cycles to ns) exact in 64-bit integers.
 */
#define AIFAB_PFC_TSC_HZ_MAX (UINT64_MAX / 1000000000u)

/**
 * Counters, per priority. One list gives the enum and the names (counter
 * names in reports: keep them stable).
 */
#define AIFAB_PFC_COUNTERS(X) \
	X(XOFF_SENT, "pfc_xoff_sent") \
	X(XON_SENT, "pfc_xon_sent") \
	X(HEADROOM_OVERFLOW, "headroom_overflow") \
	X(RX, "pfc_rx") \
	X(WD_STORMS, "pfcwd_storms") \
	X(WD_RESTORED, "pfcwd_restored")

#define AIFAB_PFC_CNT_ENUM(e, s) AIFAB_PFC_CNT_##e,
enum aifab_pfc_cnt { AIFAB_PFC_COUNTERS(AIFAB_PFC_CNT_ENUM) AIFAB_PFC_CNT_MAX };
#undef AIFAB_PFC_CNT_ENUM

/** Counter block; each object below embeds one and bumps its own rows. */
struct aifab_pfc_stats {
	uint64_t v[AIFAB_PFC_CNT_MAX][AIFAB_PFC_NUM_PRIO];
};

/** Name of a counter (e.g. "pfc_xoff_sent"); NULL if out of range. */
const char *aifab_pfc_cnt_name(enum aifab_pfc_cnt c);

/** Add every counter of @p s into @p sum (readers aggregate blocks). */
void aifab_pfc_stats_add(struct aifab_pfc_stats *sum,
			 const struct aifab_pfc_stats *s);

/**
 * Length of @p quanta pause quanta in TSC cycles at @p speed_mbps:
 * floor(quanta * 512 * tsc_hz / (speed_mbps * 10^6)), exact.
 * Requires 0 < speed_mbps <= AIFAB_PFC_SPEED_MAX_MBPS and
 * tsc_hz <= AIFAB_PFC_TSC_HZ_MAX (the init functions check this).
 */
uint64_t aifab_pfc_quanta_to_cycles(uint32_t quanta, uint32_t speed_mbps,
				    uint64_t tsc_hz);

/* ---- generation (ingress port) ------------------------------------------ */

/** How the XOFF threshold of a priority is set. */
enum aifab_pfc_xoff_mode {
	AIFAB_PFC_XOFF_STATIC = 0, /**< xoff_bytes */
	AIFAB_PFC_XOFF_DYNAMIC,    /**< alpha x free shared buffer */
};

/** How the XON threshold of a priority is set. */
enum aifab_pfc_xon_mode {
	AIFAB_PFC_XON_ABS = 0,     /**< xon_bytes is the threshold */
	AIFAB_PFC_XON_OFFSET,      /**< XOFF threshold minus xon_bytes */
};

/** Per-priority generation parameters (all zero: PFC off). */
struct aifab_pfc_gen_prio_params {
	bool enabled;            /**< lossless: generate PFC for it */
	uint8_t xoff_mode;       /**< enum aifab_pfc_xoff_mode */
	uint8_t xon_mode;        /**< enum aifab_pfc_xon_mode */
	int8_t alpha_log2;       /**< dynamic: alpha = 2^-7..2^3 (SONiC
				  *  dynamic_th), used when alpha_den is 0 */
	uint32_t alpha_num;      /**< dynamic: alpha = num / den exactly, */
	uint32_t alpha_den;      /**< 1/128..8, den 1..65536; 0: alpha_log2 */
	uint32_t xoff_bytes;     /**< static XOFF threshold, >= 1 */
	uint32_t xon_bytes;      /**< XON threshold, or offset below XOFF */
	uint32_t headroom_bytes; /**< absorbed above XOFF before dropping */
	uint16_t pause_quanta;   /**< XOFF timer; 0: 0xFFFF; >= 2 */
	uint16_t refresh_quanta; /**< XOFF re-sent this often; 0: pause/2 */
};

/** Generation parameters of one ingress port. */
struct aifab_pfc_gen_params {
	uint32_t speed_mbps;     /**< port speed: the quanta time base */
	uint64_t tsc_hz;         /**< rte_get_tsc_hz() (or a fake clock's) */
	struct aifab_pfc_gen_prio_params prio[AIFAB_PFC_NUM_PRIO];
};

/** Compiled per-priority configuration (read-only at run time). */
struct aifab_pfc_gen_prio_cfg {
	uint8_t xoff_mode;
	uint8_t xon_mode;
	int8_t alpha_log2;
	uint16_t pause_quanta;
	uint32_t alpha_num;      /**< 0: 2^alpha_log2 */
	uint32_t alpha_den;
	uint32_t xoff_bytes;
	uint32_t xon_bytes;
	uint32_t headroom_bytes;
	uint64_t refresh_cycles;
};

/** Validated generation configuration; may be shared by many ports. */
struct aifab_pfc_gen_config {
	uint8_t enabled;         /**< mask of lossless priorities */
	struct aifab_pfc_gen_prio_cfg prio[AIFAB_PFC_NUM_PRIO];
};

struct aifab_pfc_share;

/** Run-time generation state of one ingress port. */
struct aifab_pfc_gen {
	const struct aifab_pfc_gen_config *cfg;
	struct aifab_pfc_share *share; /**< NULL: this object decides alone */
	uint64_t wbit;           /**< this worker's bit in share->above[] */
	uint64_t bytes[AIFAB_PFC_NUM_PRIO];    /**< buffered, all of it */
	uint64_t headroom[AIFAB_PFC_NUM_PRIO]; /**< of which in headroom */
	uint64_t next_refresh[AIFAB_PFC_NUM_PRIO]; /**< TSC of next XOFF */
	uint8_t want;            /**< priorities above XOFF, not yet <= XON */
	uint8_t told;            /**< priorities the peer was last told XOFF */
	struct aifab_pfc_stats stats;
};

/** What aifab_pfc_gen_add() decided for one packet. */
enum aifab_pfc_verdict {
	AIFAB_PFC_ADMIT = 0,     /**< accounted in the shared buffer */
	AIFAB_PFC_ADMIT_HEADROOM,/**< above XOFF: accounted in headroom */
	AIFAB_PFC_DROP,          /**< headroom full: not accounted, drop it */
};

/** A PFC frame to send: arguments of aifab_build_pfc(). */
struct aifab_pfc_frame {
	uint8_t enable;          /**< class-enable vector; 0: no frame */
	uint16_t quanta[AIFAB_PFC_NUM_PRIO]; /**< XOFF: pause; XON: 0 */
};

/**
 * Validate @p p and compile it into @p cfg.
 *
 * Static XOFF needs xoff_bytes >= 1; with XON_ABS xon_bytes < xoff_bytes,
 * with XON_OFFSET 1 <= xon_bytes <= xoff_bytes. Dynamic XOFF needs
 * alpha_num / alpha_den in 1/128..8 with 1 <= den <= 65536 (or, den 0,
 * alpha_log2 in -7..3) and, with XON_OFFSET, xon_bytes >= 1. Refresh must be
 * shorter than the pause and at least one TSC cycle.
 *
 * @return 0, or -EINVAL (bad speed, tsc_hz, mode or threshold).
 */
int aifab_pfc_gen_config_init(struct aifab_pfc_gen_config *cfg,
			      const struct aifab_pfc_gen_params *p);

/** Reset @p g (nothing buffered, nobody paused, counters zero). */
void aifab_pfc_gen_init(struct aifab_pfc_gen *g,
			const struct aifab_pfc_gen_config *cfg);

/**
 * Account a packet of @p bytes arriving in priority @p prio (call before
 * enqueueing it). For a lossless priority, a packet that would take the
 * bytes buffered above the XOFF threshold goes into headroom; if headroom
 * cannot hold it, it is not accounted, headroom_overflow is counted, XOFF
 * is asked for and the caller must drop it.
 * Reaching the XOFF threshold (bytes >= XOFF) asks for XOFF: call
 * aifab_pfc_gen_poll() after the burst to send it.
 *
 * @param free  free shared buffer in bytes (dynamic thresholds only).
 * @return an enum aifab_pfc_verdict. Lossy priorities are always ADMIT.
 */
enum aifab_pfc_verdict aifab_pfc_gen_add(struct aifab_pfc_gen *g,
					 unsigned int prio, uint32_t bytes,
					 uint64_t free);

/* ---- aifab_pfc_gen_add() inline, for datapaths that add per packet ---- */

/** XOFF threshold now, at least 1 byte (nothing buffered never pauses). */
static inline uint64_t
aifab_pfc_xoff_at(const struct aifab_pfc_gen_prio_cfg *pc, uint64_t free)
{
	uint64_t t;

	if (pc->xoff_mode == AIFAB_PFC_XOFF_STATIC)
		return pc->xoff_bytes;
	if (pc->alpha_den != 0) {
		/* floor(free x num / den), without overflow (num <= 2^19) */
		if (free <= UINT64_MAX / pc->alpha_num)
			t = free * pc->alpha_num / pc->alpha_den;
		else
			t = free / pc->alpha_den * pc->alpha_num;
	} else if (pc->alpha_log2 < 0)
		t = free >> -pc->alpha_log2;
	else if (free > (UINT64_MAX >> pc->alpha_log2))
		t = UINT64_MAX;
	else
		t = free << pc->alpha_log2;
	return t ? t : 1;
}

/** XON threshold for XOFF threshold @p xoff: always below it. */
static inline uint64_t
aifab_pfc_xon_at(const struct aifab_pfc_gen_prio_cfg *pc, uint64_t xoff)
{
	if (pc->xon_mode == AIFAB_PFC_XON_OFFSET)
		return xoff > pc->xon_bytes ? xoff - pc->xon_bytes : 0;
	return pc->xon_bytes < xoff ? pc->xon_bytes : xoff - 1;
}

/**
 * Hysteresis: want XOFF from reaching XOFF (@p xoff, the threshold now)
 * until falling to XON with the headroom empty again (it must be free
 * for the next pause's in-flight).
 */
static inline void
aifab_pfc_gen_update_want(struct aifab_pfc_gen *g, unsigned int prio,
			  uint64_t xoff)
{
	const struct aifab_pfc_gen_prio_cfg *pc = &g->cfg->prio[prio];
	uint8_t bit = (uint8_t)(1u << prio);

	if (!(g->want & bit) && g->bytes[prio] >= xoff)
		g->want |= bit;
	else if ((g->want & bit) && g->bytes[prio] <= aifab_pfc_xon_at(pc, xoff) &&
		 g->headroom[prio] == 0)
		g->want &= (uint8_t)~bit;
}

/** aifab_pfc_gen_add(), inline (the threshold computed once). */
static inline enum aifab_pfc_verdict
aifab_pfc_gen_add_inline(struct aifab_pfc_gen *g, unsigned int prio,
			 uint32_t bytes, uint64_t free)
{
	const struct aifab_pfc_gen_prio_cfg *pc = &g->cfg->prio[prio];
	enum aifab_pfc_verdict v = AIFAB_PFC_ADMIT;
	uint64_t xoff;

	if (!(g->cfg->enabled & (1u << prio))) {
		g->bytes[prio] += bytes;
		return AIFAB_PFC_ADMIT;
	}
	/* Whatever would take the priority past XOFF goes into headroom. */
	xoff = aifab_pfc_xoff_at(pc, free);
	if (g->bytes[prio] + bytes > xoff) {
		if (g->headroom[prio] + bytes > pc->headroom_bytes) {
			g->stats.v[AIFAB_PFC_CNT_HEADROOM_OVERFLOW][prio]++;
			g->want |= (uint8_t)(1u << prio);
			return AIFAB_PFC_DROP;
		}
		g->headroom[prio] += bytes;
		v = AIFAB_PFC_ADMIT_HEADROOM;
	}
	g->bytes[prio] += bytes;
	aifab_pfc_gen_update_want(g, prio, xoff);
	return v;
}

/**
 * Of the priorities in @p prios, those for which every
 * aifab_pfc_gen_add() of a run of frames (@p bytes in all, whatever the
 * priorities they are split over) can only add the frame's bytes: no
 * headroom, no drop, no change to XOFF wished for. That holds when the
 * priority is not enabled, or when XOFF is not wished for and its bytes
 * plus the run's stay below the XOFF threshold at @p free_min, the least
 * free buffer any add of the run can be given (the threshold does not
 * fall as the free buffer grows, so it is lowest there; @p free_max,
 * the most, keeps the dynamic threshold on its exact formula). Such a
 * priority's adds of the run may be just g->bytes[prio] += bytes (a
 * aifab_pfc_gen_sub() between them keeps it so: bytes only fall).
 */
static inline uint8_t
aifab_pfc_gen_add_plain(const struct aifab_pfc_gen *g, uint8_t prios,
			uint64_t bytes, uint64_t free_min, uint64_t free_max)
{
	uint8_t plain = (uint8_t)(prios & ~g->cfg->enabled);
	uint8_t check = (uint8_t)(prios & g->cfg->enabled & ~g->want);

	while (check) {
		unsigned int p = (unsigned int)__builtin_ctz(check);
		const struct aifab_pfc_gen_prio_cfg *pc = &g->cfg->prio[p];

		check &= (uint8_t)(check - 1);
		if (pc->xoff_mode != AIFAB_PFC_XOFF_STATIC &&
		    pc->alpha_den != 0 && free_max > UINT64_MAX / pc->alpha_num)
			continue;
		if (g->bytes[p] + bytes < aifab_pfc_xoff_at(pc, free_min))
			plain |= (uint8_t)(1u << p);
	}
	return plain;
}

/**
 * The packet of @p bytes that aifab_pfc_gen_add() just admitted below XOFF
 * can only be buffered in headroom (the shared buffer is full, e.g. of
 * lossy traffic): count it as headroom and ask for XOFF (kept until the
 * headroom is empty again). If the headroom cannot hold it, it is taken
 * out of the accounting again (no aifab_pfc_gen_sub()), headroom_overflow
 * is counted and the caller must drop it.
 *
 * @return AIFAB_PFC_ADMIT_HEADROOM, AIFAB_PFC_DROP, or AIFAB_PFC_ADMIT for
 *   a lossy priority (nothing done).
 */
enum aifab_pfc_verdict aifab_pfc_gen_spill(struct aifab_pfc_gen *g,
					   unsigned int prio, uint32_t bytes);

/**
 * Account @p bytes of priority @p prio leaving the buffer (dequeued or
 * dropped after admission). Headroom is released first. Falling to the XON
 * threshold (bytes <= XON) with no headroom in use asks for XON.
 */
void aifab_pfc_gen_sub(struct aifab_pfc_gen *g, unsigned int prio,
		       uint32_t bytes, uint64_t free);

/**
 * aifab_pfc_gen_sub(), inline (the switch releases per departure). With
 * nothing left buffered and XOFF not wished for, the wish cannot change
 * (the XOFF threshold is at least 1 byte): the configuration is not read.
 */
static inline void
aifab_pfc_gen_sub_inline(struct aifab_pfc_gen *g, unsigned int prio,
			 uint32_t bytes, uint64_t free)
{
	uint64_t b = bytes;

	g->headroom[prio] -= b < g->headroom[prio] ? b : g->headroom[prio];
	g->bytes[prio] -= b < g->bytes[prio] ? b : g->bytes[prio];
	if (g->bytes[prio] == 0 && !(g->want & (1u << prio)))
		return;
	if (g->cfg->enabled & (1u << prio))
		aifab_pfc_gen_update_want(g, prio, aifab_pfc_xoff_at(
				&g->cfg->prio[prio], free));
}

/**
 * Decide the frame to send now. Re-checks thresholds against @p free, then
 * for each lossless priority: XOFF (pause_quanta) if it newly needs pausing
 * or its refresh is due (every refresh interval while above XON); XON
 * (timer 0) if it was paused and fell to XON (headroom empty). Counts
 * pfc_xoff_sent / pfc_xon_sent per priority in the frame. Call once per poll loop iteration
 * (after the burst's adds) so refreshes go out on time.
 *
 * @param f  out: the frame; f->enable == 0 when nothing is due.
 * @return true if a frame must be sent.
 */
bool aifab_pfc_gen_poll(struct aifab_pfc_gen *g, uint64_t free, uint64_t now,
			struct aifab_pfc_frame *f);

/**
 * aifab_pfc_gen_poll() for datapaths that poll every port on every pass:
 * without the call when it could not do anything. With no XOFF wished
 * for or told, no refresh or XON can be due, and only an XOFF can: when
 * the bytes of a lossless priority reach its threshold at @p free
 * (aifab_pfc_gen_update_want()); below every threshold (nothing
 * buffered included) the call would leave the state as it is and send
 * nothing. Same result and state otherwise (@p f is only written when it
 * returns true).
 */
static inline bool
aifab_pfc_gen_poll_inline(struct aifab_pfc_gen *g, uint64_t free,
			  uint64_t now, struct aifab_pfc_frame *f)
{
	unsigned int m, i;

	if ((g->want | g->told) == 0) {
		for (m = g->cfg->enabled; m != 0; m &= m - 1) {
			i = (unsigned int)__builtin_ctz(m);
			if (g->bytes[i] != 0 &&
			    g->bytes[i] >= aifab_pfc_xoff_at(&g->cfg->prio[i],
							     free))
				return aifab_pfc_gen_poll(g, free, now, f);
		}
		return false;
	}
	return aifab_pfc_gen_poll(g, free, now, f);
}

/* ---- headroom ----------------------------------------------------------- */

/**
 * Peer response time in quanta (IEEE 802.3 Table 31B-1 as PROTOCOLS.md
 * gives it): 67 at 10G, 80 at 25G, 394 at 100G, 905 at 400G. Between two
 * of these speeds, linear interpolation rounded up; below 10G, 67; above
 * 400G, 905 x speed / 400G rounded up (the response grows with the rate).
 */
uint32_t aifab_pfc_response_quanta(uint32_t speed_mbps);

/**
 * Headroom a port needs after sending XOFF, in bytes:
 * mtu (in flight) + ceil(2 x cable_m x rate / (2e8 m/s x 8))
 * + response quanta x 64 + mtu.
 */
uint64_t aifab_pfc_headroom_bytes(uint32_t speed_mbps, uint32_t cable_m,
				  uint32_t mtu);

/**
 * True if @p configured headroom is smaller than
 * aifab_pfc_headroom_bytes() (the caller warns).
 */
bool aifab_pfc_headroom_short(uint64_t configured, uint32_t speed_mbps,
			      uint32_t cable_m, uint32_t mtu);

/* ---- honouring (egress port) -------------------------------------------- */

/** Pause state of one egress port. */
struct aifab_pfc_rx {
	uint64_t tsc_hz;
	uint32_t speed_mbps;
	uint64_t until[AIFAB_PFC_NUM_PRIO];  /**< paused while now < until */
	uint64_t since[AIFAB_PFC_NUM_PRIO];  /**< start of the open pause */
	uint64_t paused_cycles[AIFAB_PFC_NUM_PRIO]; /**< closed pauses */
	struct aifab_pfc_stats stats;
};

/**
 * Reset @p rx: nothing paused, counters zero.
 * @return 0, or -EINVAL (speed 0 or above AIFAB_PFC_SPEED_MAX_MBPS,
 *   tsc_hz 0 or above AIFAB_PFC_TSC_HZ_MAX).
 */
int aifab_pfc_rx_init(struct aifab_pfc_rx *rx, uint32_t speed_mbps,
		      uint64_t tsc_hz);

/**
 * Apply a received PFC frame (aifab_pkt_info pfc_enable / pfc_time). For
 * each enabled class: time > 0 pauses it until now + time quanta (a new
 * frame replaces the timer, shorter or longer); time 0 resumes it now.
 * Classes not enabled are ignored; bits 8-15 of @p enable are ignored.
 * Counts pfc_rx per enabled class.
 */
void aifab_pfc_rx_frame(struct aifab_pfc_rx *rx, uint16_t enable,
			const uint16_t time[AIFAB_PFC_NUM_PRIO], uint64_t now);

/** Priorities paused at @p now (bit n: priority n). */
static inline uint8_t
aifab_pfc_rx_paused_mask(const struct aifab_pfc_rx *rx, uint64_t now)
{
	uint8_t m = 0;
	unsigned int i;

	for (i = 0; i < AIFAB_PFC_NUM_PRIO; i++)
		m |= (uint8_t)((now < rx->until[i]) << i);
	return m;
}

/**
 * Time priority @p prio has been paused up to @p now, in ns (floor of the
 * exact value): the union of all pause intervals, whether they ran out,
 * were replaced, extended or cancelled by XON.
 */
uint64_t aifab_pfc_rx_paused_ns(const struct aifab_pfc_rx *rx,
				unsigned int prio, uint64_t now);

/* ---- watchdog (egress port) --------------------------------------------- */

/** What a stormed priority does. */
enum aifab_pfc_wd_action {
	AIFAB_PFC_WD_DROP = 0,   /**< flush and drop its traffic, ignore PFC */
	AIFAB_PFC_WD_FORWARD,    /**< ignore its PFC: send as if not paused */
	AIFAB_PFC_WD_ALERT,      /**< only count */
};

/** Watchdog state of a priority. */
enum aifab_pfc_wd_state {
	AIFAB_PFC_WD_NORMAL = 0,
	AIFAB_PFC_WD_STORMED,
};

#define AIFAB_PFC_WD_DETECT_MIN_MS 100
#define AIFAB_PFC_WD_DETECT_MAX_MS 5000
#define AIFAB_PFC_WD_RESTORE_MIN_MS 100
#define AIFAB_PFC_WD_RESTORE_MAX_MS 60000
#define AIFAB_PFC_WD_DEFAULT_MS 200

/** Per-priority watchdog parameters (0 ms: the 200 ms default). */
struct aifab_pfc_wd_prio_params {
	bool enabled;
	uint8_t action;          /**< enum aifab_pfc_wd_action */
	uint32_t detection_ms;   /**< 100..5000 */
	uint32_t restoration_ms; /**< 100..60000 */
};

struct aifab_pfc_wd_params {
	uint64_t tsc_hz;
	struct aifab_pfc_wd_prio_params prio[AIFAB_PFC_NUM_PRIO];
};

/** Validated watchdog configuration; may be shared by many ports. */
struct aifab_pfc_wd_config {
	uint8_t enabled;         /**< mask of watched priorities */
	uint8_t drop;            /**< mask: action drop */
	uint8_t forward;         /**< mask: action forward */
	uint64_t detect_cycles[AIFAB_PFC_NUM_PRIO];
	uint64_t restore_cycles[AIFAB_PFC_NUM_PRIO];
};

/** Run-time watchdog state of one egress port. */
struct aifab_pfc_wd {
	const struct aifab_pfc_wd_config *cfg;
	uint64_t start[AIFAB_PFC_NUM_PRIO];     /**< first PFC of the episode */
	uint64_t last_feed[AIFAB_PFC_NUM_PRIO]; /**< last PFC frame */
	uint8_t active;          /**< priorities in a pause episode */
	uint8_t stormed;         /**< priorities in STORMED state */
	struct aifab_pfc_stats stats;
};

/** Transitions found by one aifab_pfc_wd_poll(). */
struct aifab_pfc_wd_events {
	uint8_t stormed;         /**< priorities that became STORMED */
	uint8_t restored;        /**< priorities that became NORMAL */
};

/**
 * Validate @p p and compile it into @p cfg.
 * @return 0, or -EINVAL (tsc_hz, detection or restoration out of range,
 *   unknown action).
 */
int aifab_pfc_wd_config_init(struct aifab_pfc_wd_config *cfg,
			     const struct aifab_pfc_wd_params *p);

/** Reset @p wd: every priority NORMAL, counters zero. */
void aifab_pfc_wd_init(struct aifab_pfc_wd *wd,
		       const struct aifab_pfc_wd_config *cfg);

/**
 * A PFC frame for @p prio arrived at @p now (XOFF or XON; call it also
 * while the priority is stormed and its PFC is being ignored). The first
 * frame after the priority was seen unpaused starts a pause episode.
 */
void aifab_pfc_wd_feed(struct aifab_pfc_wd *wd, unsigned int prio,
		       uint64_t now);

/**
 * Check every watched priority at @p now. NORMAL -> STORMED when it has
 * been paused at every poll since its episode started, for at least the
 * detection time (counts pfcwd_storms). STORMED -> NORMAL once no PFC frame
 * has arrived for the restoration time (counts pfcwd_restored). A poll that
 * sees a priority unpaused ends its episode, so poll more often than the
 * shortest pause (e.g. every loop iteration).
 *
 * @param paused_mask  aifab_pfc_rx_paused_mask() at @p now (before any
 *                     watchdog masking).
 * @param ev           out (may be NULL): this poll's transitions.
 * @return number of transitions.
 */
unsigned int aifab_pfc_wd_poll(struct aifab_pfc_wd *wd, uint64_t now,
			       uint8_t paused_mask,
			       struct aifab_pfc_wd_events *ev);

/**
 * aifab_pfc_wd_poll() without the call in the usual case (no enabled
 * priority paused or stormed: each only leaves its pause episode, no
 * transition); the same result and state.
 */
static inline unsigned int
aifab_pfc_wd_poll_inline(struct aifab_pfc_wd *wd, uint64_t now,
			 uint8_t paused_mask, struct aifab_pfc_wd_events *ev)
{
	uint8_t en = wd->cfg->enabled;

	if (((paused_mask | wd->stormed) & en) == 0) {
		wd->active &= (uint8_t)~en;
		if (ev != NULL)
			*ev = (struct aifab_pfc_wd_events){ 0, 0 };
		return 0;
	}
	return aifab_pfc_wd_poll(wd, now, paused_mask, ev);
}

/** State of @p prio. */
static inline enum aifab_pfc_wd_state
aifab_pfc_wd_state(const struct aifab_pfc_wd *wd, unsigned int prio)
{
	return (wd->stormed >> prio) & 1 ? AIFAB_PFC_WD_STORMED :
		AIFAB_PFC_WD_NORMAL;
}

/**
 * Priorities whose received PFC must be ignored now (stormed, action drop
 * or forward): the scheduler uses paused_mask & ~ignore_mask.
 */
static inline uint8_t
aifab_pfc_wd_ignore_mask(const struct aifab_pfc_wd *wd)
{
	return wd->stormed & (wd->cfg->drop | wd->cfg->forward);
}

/** Priorities whose traffic must be flushed and dropped now (pfcwd_drops). */
static inline uint8_t
aifab_pfc_wd_drop_mask(const struct aifab_pfc_wd *wd)
{
	return wd->stormed & wd->cfg->drop;
}

/* ---- one port's PFC shared by several workers --------------------------- */

/** Largest number of workers sharing one port (bits of a uint64_t). */
#define AIFAB_PFC_SHARE_MAX_WORKERS 64

/**
 * What the workers of one switch instance share about one port, so that
 * the port acts as one PFC device while each worker keeps its own queues
 * and byte counts (1/n of the thresholds). Written and read only with
 * __atomic builtins, never locked:
 *
 * - until / last_rx: received PFC (honouring). Whichever worker parses a
 *   PFC frame stores the pause end (XON: 0; a new frame replaces); every
 *   worker's scheduler loads it (aifab_pfc_share_paused_mask()).
 * - above / next_refresh: generation. A worker whose shard crosses XOFF
 *   sets its bit in above[prio] and sends XOFF; refreshes are due for the
 *   port, not per worker (one sender per interval: compare-and-swap on
 *   next_refresh); a worker falling to XON clears its bit and sends XON
 *   only if it was the last bit (the peer resumes only when every shard is
 *   at or below XON).
 * - stormed: the watchdog's state, decided by one worker (the caller's
 *   choice), read by all.
 *
 * Residual race: worker A clears the last bit and builds XON while worker
 * B sets its bit and builds XOFF; the two frames leave on different TX
 * queues and may reach the peer in either order. If XON lands last, the
 * peer resumes while B is above XOFF. A, after building its XON, sees
 * above[] non-zero again and makes the refresh due at once (next_refresh
 * = 0), so B re-sends XOFF on its next poll: the peer sends at most about
 * one poll loop (plus one frame) into B's headroom, which is sized for
 * far longer (the peer's response time). Without that, the periodic
 * refresh (every refresh_quanta, at most half the pause) would bound it.
 */
struct aifab_pfc_share {
	uint64_t until[AIFAB_PFC_NUM_PRIO];   /**< paused while now < until */
	uint64_t last_rx[AIFAB_PFC_NUM_PRIO]; /**< last PFC frame, 0: none */
	uint64_t above[AIFAB_PFC_NUM_PRIO];   /**< workers above XOFF */
	uint64_t next_refresh[AIFAB_PFC_NUM_PRIO]; /**< next XOFF refresh */
	uint8_t stormed;                      /**< watchdog: stormed prios */
} __attribute__((aligned(64))); /* one cache line set per port */

/** Reset @p s: nothing paused, nobody above XOFF, nothing stormed. */
void aifab_pfc_share_init(struct aifab_pfc_share *s);

/**
 * Make @p g one of the workers of @p s: its XOFF/XON decisions become the
 * port's (see struct aifab_pfc_share). @p worker < 64. With @p s NULL,
 * @p g decides alone (exactly as without sharing).
 */
void aifab_pfc_gen_share(struct aifab_pfc_gen *g, struct aifab_pfc_share *s,
			 unsigned int worker);

/**
 * Publish the received PFC frame that @p rx just applied
 * (aifab_pfc_rx_frame() at @p now): for each enabled class, the pause end
 * (0 for XON) and @p now as the last frame time.
 */
void aifab_pfc_share_rx(struct aifab_pfc_share *s,
			const struct aifab_pfc_rx *rx, uint16_t enable,
			uint64_t now);

/** Priorities paused at @p now by the port's last received PFC frames. */
static inline uint8_t
aifab_pfc_share_paused_mask(const struct aifab_pfc_share *s, uint64_t now)
{
	uint8_t m = 0;
	unsigned int i;

	for (i = 0; i < AIFAB_PFC_NUM_PRIO; i++)
		m |= (uint8_t)((now < __atomic_load_n(&s->until[i],
						      __ATOMIC_RELAXED)) << i);
	return m;
}

/**
 * Watchdog owner: feed @p wd with the PFC frames other workers received
 * since it last looked (share->last_rx newer than wd's last feed, taken
 * as no later than @p now), so one watchdog sees every frame of the port.
 */
void aifab_pfc_share_wd_feed(const struct aifab_pfc_share *s,
			     struct aifab_pfc_wd *wd, uint64_t now);

/** Stormed priorities as the watchdog owner last published them. */
static inline uint8_t
aifab_pfc_share_stormed(const struct aifab_pfc_share *s)
{
	return __atomic_load_n(&s->stormed, __ATOMIC_RELAXED);
}

/** Watchdog owner: publish @p stormed (aifab_pfc_wd stormed mask). */
static inline void
aifab_pfc_share_set_stormed(struct aifab_pfc_share *s, uint8_t stormed)
{
	__atomic_store_n(&s->stormed, stormed, __ATOMIC_RELAXED);
}

#ifdef __cplusplus
}
#endif

#endif /* AIFAB_PFC_H */
