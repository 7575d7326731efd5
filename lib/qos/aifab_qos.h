/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * aifab QoS: the per-egress-port pieces of the leaf switch. Eight traffic
 * classes (TCs) classified from DSCP or 802.1p PCP; a FIFO of mbufs per
 * (port, TC); a shared buffer with static or dynamic (alpha x free) queue
 * limits and a headroom pool for lossless queues; RFC 3168 ECN marking on
 * a DCQCN-style ramp over instantaneous queue bytes; a token-bucket shaper
 * at port speed; strict priority over DWRR.
 *
 * Pattern (as DPDK lib/red, lib/meter): user *params* -> validated *cfg*
 * (the *_config() calls, which return -EINVAL and a reason string) ->
 * run-time *state*. Time (TSC cycles) and the RNG are arguments; nothing
 * here reads a clock, allocates, locks or uses atomics. Every object is
 * single-writer: one lcore owns a port's queues, shaper and scheduler, and
 * one lcore owns a shared buffer (or each lcore owns a share of it).
 *
 * Per packet, enqueue side (suggested order):
 *   tc = aifab_qos_classify(map, trust, pi.tos, pi.n_vlans > 0, pi.pcp);
 *   r = aifab_qos_buf_admit(buf, port * 8 + tc, len);   drop if r < 0
 *   v = aifab_qos_ecn_decide(&ecn[tc], fifo->bytes, pi.tos, rng);
 *   DROP: release, drop (ECN_NOT_ECT); MARK: aifab_qos_ecn_set_ce(l3)
 *   aifab_qos_fifo_enqueue(fifo, m)  (on -ENOBUFS: release, FIFO_FULL)
 * (deciding ECN at dequeue instead is equally valid: the lib is agnostic.)
 *
 * Per poll, egress side:
 *   aifab_qos_shaper_update(&shp_cfg, &shp, now);
 *   while (aifab_qos_shaper_ready(&shp_cfg, &shp) &&
 *          (tc = aifab_qos_sched_next(&sch_cfg, &sch, nonempty,
 *                                     ~pfc_paused, head_len)) >= 0) {
 *       m = aifab_qos_fifo_dequeue(fifo[tc]);
 *       aifab_qos_buf_release(buf, port * 8 + tc, m->pkt_len);
 *       aifab_qos_shaper_consume(&shp_cfg, &shp, m->pkt_len);
 *       refresh nonempty bit tc and head_len[tc] from fifo[tc];
 *       ... collect m for rte_eth_tx_burst()
 *   }
 * Dequeued mbufs are already charged: keep the ones the NIC did not take
 * for the next poll rather than dropping them.
 *
 * Memory per port (8 TCs, FIFO capacity C): 8 x (24 + 8 C) bytes of FIFOs
 * (64.2 KiB at C = 1024), 8 x 16 B of ECN cfg, 8 x 24 B of buffer queue
 * state, ~72 B of scheduler and ~56 B of shaper cfg + state.
 */
#ifndef AIFAB_QOS_H
#define AIFAB_QOS_H

#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <rte_common.h>
#include <rte_mbuf_core.h>

#include "aifab_rng.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Traffic classes per port. */
#define AIFAB_QOS_N_TC 8
/** Bytes a frame occupies on the wire beyond pkt_len: FCS 4, preamble+SFD
 * 8, inter-frame gap 12. */
#define AIFAB_QOS_WIRE_OVERHEAD 24

/* ---- counters ----------------------------------------------------------- */

/**
 * Why a packet was not queued. X(name, counter name). The enum
 * (AIFAB_QOS_DROP_<name>) starts at 1; 0 is AIFAB_QOS_DROP_NONE.
 */
#define AIFAB_QOS_DROPS(X) \
	X(QUEUE_LIMIT, "tail_drop_queue_limit") \
	X(BUFFER_FULL, "tail_drop_buffer_full") \
	X(HEADROOM_FULL, "tail_drop_headroom_full") \
	X(FIFO_FULL, "tail_drop_fifo_full") \
	X(ECN_NOT_ECT, "ecn_drop_not_ect")

#define AIFAB_QOS_DROP_ENUM(e, s) AIFAB_QOS_DROP_##e,
enum aifab_qos_drop {
	AIFAB_QOS_DROP_NONE,
	AIFAB_QOS_DROPS(AIFAB_QOS_DROP_ENUM)
	AIFAB_QOS_DROP_MAX
};
#undef AIFAB_QOS_DROP_ENUM

/**
 * Per-port-per-TC counters other than drops. QUEUE_HWM_BYTES is a gauge:
 * aggregate it with max, not sum. ECN_SELECTED counts every packet the
 * ramp selected (marked, already CE, Not-ECT passed or dropped);
 * ECN_MARKED only those changed to CE.
 */
#define AIFAB_QOS_BASE_CTRS(X) \
	X(TX_PACKETS, "tx_packets") \
	X(TX_BYTES, "tx_bytes") \
	X(ECN_MARKED, "ecn_marked") \
	X(ECN_SELECTED, "ecn_selected") \
	X(HEADROOM_ADMITS, "headroom_admits") \
	X(QUEUE_HWM_BYTES, "queue_hwm_bytes")

#define AIFAB_QOS_CTR_ENUM(e, s) AIFAB_QOS_CTR_##e,
/** Counter index: the base counters, then one per drop reason. */
enum aifab_qos_ctr {
	AIFAB_QOS_BASE_CTRS(AIFAB_QOS_CTR_ENUM)
	AIFAB_QOS_CTR_DROPS, /**< first drop counter (AIFAB_QOS_DROP_NONE+1) */
	AIFAB_QOS_CTR_MAX = AIFAB_QOS_CTR_DROPS + AIFAB_QOS_DROP_MAX - 1
};
#undef AIFAB_QOS_CTR_ENUM

/** Counter index of drop reason @p d (d >= 1). */
static inline enum aifab_qos_ctr
aifab_qos_drop_ctr(enum aifab_qos_drop d)
{
	return (enum aifab_qos_ctr)(AIFAB_QOS_CTR_DROPS + d - 1);
}

/** Name of counter @p c (e.g. "ecn_marked"), "?" if out of range. */
const char *aifab_qos_ctr_name(enum aifab_qos_ctr c);

/* ---- classification ----------------------------------------------------- */

/** Which header field a port trusts for the TC. */
enum aifab_qos_trust {
	AIFAB_QOS_TRUST_DSCP,
	AIFAB_QOS_TRUST_PCP,
};

/** DSCP -> TC and PCP -> TC tables. */
struct aifab_qos_map {
	uint8_t dscp_tc[64];
	uint8_t pcp_tc[8];
};

/** Defaults: DSCP 26 -> TC 3 (RoCE), 48 -> TC 6 (CNP), others 0; PCP n -> n. */
void aifab_qos_map_default(struct aifab_qos_map *m);

/**
 * Check a map. @return 0, or -EINVAL with @p why naming the first bad entry.
 */
int aifab_qos_map_check(const struct aifab_qos_map *m, const char **why);

/**
 * TC of a packet. With PCP trust, an untagged packet falls back to its
 * DSCP (routed RoCE is often untagged); non-IP frames pass tos 0.
 *
 * @param tos  IPv4 TOS / IPv6 traffic class (DSCP << 2 | ECN).
 * @param pcp  PCP of the outer VLAN tag, read only if @p has_vlan.
 */
static inline uint8_t
aifab_qos_classify(const struct aifab_qos_map *m, enum aifab_qos_trust trust,
		   uint8_t tos, bool has_vlan, uint8_t pcp)
{
	if (trust == AIFAB_QOS_TRUST_PCP && has_vlan)
		return m->pcp_tc[pcp & 7];
	return m->dscp_tc[tos >> 2];
}

/* ---- egress FIFO per (port, TC) ----------------------------------------- */

/**
 * A bounded FIFO of mbufs (power-of-two ring with free-running indices,
 * single producer = single consumer = the owning lcore). Keeps the bytes
 * queued (sum of pkt_len) and their high-water mark.
 */
struct aifab_qos_fifo {
	uint32_t mask;      /**< capacity - 1 */
	uint32_t head;      /**< next to dequeue (free-running) */
	uint32_t tail;      /**< next free slot (free-running) */
	uint32_t bytes;     /**< pkt_len bytes queued */
	uint32_t hwm_bytes; /**< highest @p bytes since init / last reset */
	uint32_t reserved;
	struct rte_mbuf *slot[];
};

/**
 * Bytes to allocate for a FIFO of @p capacity mbufs.
 * @return the size, or 0 if @p capacity is not a power of two in 1..2^24.
 */
size_t aifab_qos_fifo_memsize(uint32_t capacity);

/**
 * Initialise a FIFO in memory of aifab_qos_fifo_memsize() bytes (any
 * allocator: rte_zmalloc_socket(), a port's block, the stack in tests).
 * @return 0, or -EINVAL (bad capacity).
 */
int aifab_qos_fifo_init(struct aifab_qos_fifo *f, uint32_t capacity);

/** Packets queued. */
static inline uint32_t
aifab_qos_fifo_count(const struct aifab_qos_fifo *f)
{
	return f->tail - f->head;
}

/**
 * Append @p m (its pkt_len counts towards the bytes).
 * @return 0, or -ENOBUFS when full (the mbuf is not taken).
 */
static inline int
aifab_qos_fifo_enqueue(struct aifab_qos_fifo *f, struct rte_mbuf *m)
{
	if (f->tail - f->head > f->mask)
		return -ENOBUFS;
	f->slot[f->tail++ & f->mask] = m;
	f->bytes += m->pkt_len;
	if (f->bytes > f->hwm_bytes)
		f->hwm_bytes = f->bytes;
	return 0;
}

/** Remove and return the oldest mbuf, or NULL if empty. */
static inline struct rte_mbuf *
aifab_qos_fifo_dequeue(struct aifab_qos_fifo *f)
{
	struct rte_mbuf *m;

	if (f->head == f->tail)
		return NULL;
	m = f->slot[f->head++ & f->mask];
	f->bytes -= m->pkt_len;
	return m;
}

/** pkt_len of the oldest mbuf (the scheduler's head_len), 0 if empty. */
static inline uint32_t
aifab_qos_fifo_head_len(const struct aifab_qos_fifo *f)
{
	if (f->head == f->tail)
		return 0;
	return f->slot[f->head & f->mask]->pkt_len;
}

/** Return the high-water mark and restart it from the current bytes. */
static inline uint32_t
aifab_qos_fifo_hwm_reset(struct aifab_qos_fifo *f)
{
	uint32_t hwm = f->hwm_bytes;

	f->hwm_bytes = f->bytes;
	return hwm;
}

/* ---- shared buffer ------------------------------------------------------ */

/** Sizes of a shared buffer. */
struct aifab_qos_buf_params {
	uint64_t size_bytes;     /**< shared pool, 1 .. 2^32-1 */
	uint64_t headroom_bytes; /**< pool for lossless queues, < 2^32 */
	uint32_t n_queues;       /**< accounting units, 1 .. 2^20 */
};

enum aifab_qos_limit_mode {
	/** Queue may hold up to static_bytes of the shared pool. */
	AIFAB_QOS_LIMIT_STATIC,
	/** Queue may hold up to alpha x (shared bytes free): Choudhury-Hahne
	 * dynamic threshold as merchant chips do it. */
	AIFAB_QOS_LIMIT_DYNAMIC,
};

/** One queue's limit. */
struct aifab_qos_queue_params {
	enum aifab_qos_limit_mode mode;
	uint32_t static_bytes;  /**< STATIC: >= 1 */
	/** DYNAMIC: alpha = alpha_num / alpha_den, 1/128 .. 8, den <= 65536
	 * (1/8: {1, 8}; 2: {2, 1}); powers of two are exact. */
	uint32_t alpha_num;
	uint32_t alpha_den;
	/** > 0: lossless queue; packets beyond its limit (or with the shared
	 * pool full) go to the headroom pool, up to this many bytes of it. */
	uint32_t headroom_bytes;
};

/** Accounting and limit of one queue. */
struct aifab_qos_bufq {
	uint32_t shared;      /**< bytes held in the shared pool */
	uint32_t headroom;    /**< bytes held in the headroom pool */
	uint32_t static_lim;  /**< STATIC limit, 0 if DYNAMIC */
	uint32_t alpha_q16;   /**< DYNAMIC: alpha x 65536 (rounded down) */
	uint32_t hr_lim;      /**< headroom bytes allowed, 0: lossy */
	uint32_t reserved;
};

/** A shared buffer: pools and per-queue accounting. */
struct aifab_qos_buf {
	uint64_t size;     /**< shared pool bytes */
	uint64_t used;     /**< shared pool bytes in use */
	uint64_t hr_size;  /**< headroom pool bytes */
	uint64_t hr_used;  /**< headroom pool bytes in use */
	uint32_t n_queues;
	uint32_t reserved;
	struct aifab_qos_bufq q[];
};

/** aifab_qos_buf_admit(): admitted into the shared pool. */
#define AIFAB_QOS_ADMIT_SHARED 0
/** aifab_qos_buf_admit(): admitted into the headroom pool (count it). */
#define AIFAB_QOS_ADMIT_HEADROOM 1

/** Bytes to allocate for a buffer of @p n_queues (0 if out of range). */
size_t aifab_qos_buf_memsize(uint32_t n_queues);

/**
 * Initialise a buffer in aifab_qos_buf_memsize() bytes: pools empty, every
 * queue DYNAMIC with alpha 1 and no headroom.
 * @return 0, or -EINVAL with @p why.
 */
int aifab_qos_buf_init(struct aifab_qos_buf *b,
		       const struct aifab_qos_buf_params *p, const char **why);

/**
 * Set queue @p q's limit (while it is empty, or accept that the new limit
 * applies to the next admission).
 * @return 0, or -EINVAL with @p why.
 */
int aifab_qos_buf_queue_config(struct aifab_qos_buf *b, uint32_t q,
			       const struct aifab_qos_queue_params *p,
			       const char **why);

/** Queue @p q's current shared-pool limit in bytes. */
static inline uint64_t
aifab_qos_buf_limit(const struct aifab_qos_buf *b, uint32_t q)
{
	const struct aifab_qos_bufq *bq = &b->q[q];

	if (bq->alpha_q16 == 0)
		return bq->static_lim;
	return ((b->size - b->used) * bq->alpha_q16) >> 16;
}

/**
 * Admit @p len bytes to queue @p q. Shared pool if the pool has room and
 * the queue's shared bytes after it stay within its limit (taken before
 * the packet: with alpha 1 a lone queue settles at half the pool); else, on
 * a lossless queue, the headroom pool if both the pool and the queue's
 * headroom allowance have room.
 *
 * @return AIFAB_QOS_ADMIT_SHARED, AIFAB_QOS_ADMIT_HEADROOM, or minus the
 *   drop reason: -AIFAB_QOS_DROP_BUFFER_FULL (checked first),
 *   -AIFAB_QOS_DROP_QUEUE_LIMIT (lossy), -AIFAB_QOS_DROP_HEADROOM_FULL
 *   (lossless).
 */
static inline int
aifab_qos_buf_admit(struct aifab_qos_buf *b, uint32_t q, uint32_t len)
{
	struct aifab_qos_bufq *bq = &b->q[q];
	int why;

	if (b->used + len > b->size)
		why = AIFAB_QOS_DROP_BUFFER_FULL;
	else if ((uint64_t)bq->shared + len > aifab_qos_buf_limit(b, q))
		why = AIFAB_QOS_DROP_QUEUE_LIMIT;
	else {
		bq->shared += len;
		b->used += len;
		return AIFAB_QOS_ADMIT_SHARED;
	}
	if (bq->hr_lim == 0)
		return -why;
	if ((uint64_t)bq->headroom + len > bq->hr_lim ||
	    b->hr_used + len > b->hr_size)
		return -AIFAB_QOS_DROP_HEADROOM_FULL;
	bq->headroom += len;
	b->hr_used += len;
	return AIFAB_QOS_ADMIT_HEADROOM;
}

/**
 * Give back @p len bytes of queue @p q (at dequeue, or when a packet that
 * was admitted is dropped later). Headroom is returned first, so a
 * lossless queue leaves headroom before it shrinks below its limit.
 */
static inline void
aifab_qos_buf_release(struct aifab_qos_buf *b, uint32_t q, uint32_t len)
{
	struct aifab_qos_bufq *bq = &b->q[q];
	uint32_t hr = RTE_MIN(len, bq->headroom);

	bq->headroom -= hr;
	b->hr_used -= hr;
	bq->shared -= len - hr;
	b->used -= len - hr;
}

/* ---- ECN marking -------------------------------------------------------- */

/** ECN codepoints (low 2 bits of TOS / traffic class), RFC 3168. */
#define AIFAB_QOS_NOT_ECT 0
#define AIFAB_QOS_ECT1 1
#define AIFAB_QOS_ECT0 2
#define AIFAB_QOS_CE 3

/** One TC's marking ramp. */
struct aifab_qos_ecn_params {
	bool enabled;
	/** TC is lossless (PFC): a selected Not-ECT packet is passed, not
	 * dropped. */
	bool lossless;
	uint32_t kmin_bytes;  /**< p = 0 at or below */
	uint32_t kmax_bytes;  /**< p = pmax at, 1 above; >= kmin_bytes */
	double pmax_percent;  /**< 0 .. 100, fractions allowed */
};

/** Compiled ramp. p(q) = pmax_thr / 2^32 x (q - kmin) / (kmax - kmin). */
struct aifab_qos_ecn_cfg {
	uint32_t kmin;
	uint32_t kmax;
	uint32_t pmax_thr;  /**< pmax x 2^32, 100 % clamped to 2^32 - 1 */
	uint8_t enabled;
	uint8_t lossless;
};

/** What to do with a packet. */
enum aifab_qos_ecn_verdict {
	AIFAB_QOS_ECN_PASS,     /**< not selected: send unchanged */
	AIFAB_QOS_ECN_MARK,     /**< selected ECT(0)/ECT(1): set CE, send */
	/** selected but sent unchanged: already CE (not re-marked, not
	 * ecn_marked), or Not-ECT on a lossless TC */
	AIFAB_QOS_ECN_SELECTED,
	AIFAB_QOS_ECN_DROP,     /**< selected Not-ECT on a lossy TC: drop */
};

/**
 * Compile a ramp. A disabled ramp is not checked.
 * @return 0, or -EINVAL with @p why (kmin > kmax, pmax outside 0..100).
 */
int aifab_qos_ecn_config(struct aifab_qos_ecn_cfg *cfg,
			 const struct aifab_qos_ecn_params *p,
			 const char **why);

/**
 * Decide one packet from the instantaneous queue depth. Draws one 32-bit
 * number from @p rng only when kmin < qbytes <= kmax (the random part of
 * the ramp); p = 0 at or below kmin, 1 above kmax.
 *
 * @param qbytes  queue bytes (at enqueue or dequeue: caller's choice).
 * @param tos     TOS / traffic class; only its low 2 bits are read.
 */
static inline enum aifab_qos_ecn_verdict
aifab_qos_ecn_decide(const struct aifab_qos_ecn_cfg *cfg, uint32_t qbytes,
		     uint8_t tos, struct aifab_rng *rng)
{
	if (!cfg->enabled || qbytes <= cfg->kmin)
		return AIFAB_QOS_ECN_PASS;
	if (qbytes <= cfg->kmax) {
		uint32_t thr = (uint32_t)((uint64_t)cfg->pmax_thr *
			(qbytes - cfg->kmin) / (cfg->kmax - cfg->kmin));

		if (aifab_rng_u32(rng) >= thr)
			return AIFAB_QOS_ECN_PASS;
	}
	switch (tos & 3) {
	case AIFAB_QOS_CE:
		return AIFAB_QOS_ECN_SELECTED;
	case AIFAB_QOS_NOT_ECT:
		return cfg->lossless ? AIFAB_QOS_ECN_SELECTED :
			AIFAB_QOS_ECN_DROP;
	default:
		return AIFAB_QOS_ECN_MARK;
	}
}

/**
 * Set CE in an IPv4 (checksum fixed incrementally, RFC 1624) or IPv6
 * header, chosen by the version nibble. Only ECT(0)/ECT(1) are changed.
 *
 * @param l3  the IP header (pkt_info l3_off into the frame).
 * @return true if the header changed; false for Not-ECT, CE, non-IP.
 */
bool aifab_qos_ecn_set_ce(void *l3);

/* ---- shaper ------------------------------------------------------------- */

/** Port shaper. */
struct aifab_qos_shaper_params {
	uint64_t rate_mbps;   /**< 1 .. 10^7 Mbit/s of wire bytes */
	uint64_t tsc_hz;      /**< 10^3 .. 2^34 */
	uint32_t max_frame;   /**< largest pkt_len sent, 60 .. 65535 */
	/** Bucket depth in wire bytes, max_frame + 24 .. 2^26. Cover the poll
	 * interval at line rate plus one frame, or idle polls lose rate. */
	uint32_t burst_bytes;
};

/**
 * Compiled shaper. Tokens are counted in units of 1 / (tsc_hz x rate),
 * reduced by their gcd, so both filling and spending are exact integers.
 */
struct aifab_qos_shaper_cfg {
	uint64_t fill;     /**< tokens per TSC cycle */
	uint64_t cost;     /**< tokens per wire byte */
	int64_t depth;     /**< burst_bytes x cost */
	int64_t ready;     /**< (max_frame + 24) x cost */
	uint64_t dt_full;  /**< cycles after which any bucket is full */
};

/** Shaper state. */
struct aifab_qos_shaper {
	int64_t tokens;
	uint64_t last;  /**< TSC of the last update */
};

/**
 * Compile a shaper. @return 0, or -EINVAL with @p why.
 */
int aifab_qos_shaper_config(struct aifab_qos_shaper_cfg *cfg,
			    const struct aifab_qos_shaper_params *p,
			    const char **why);

/** Start with a full bucket at @p now. */
void aifab_qos_shaper_init(const struct aifab_qos_shaper_cfg *cfg,
			   struct aifab_qos_shaper *s, uint64_t now);

/** Add the tokens earned up to @p now (once per poll). Earlier @p now is
 * ignored. */
static inline void
aifab_qos_shaper_update(const struct aifab_qos_shaper_cfg *cfg,
			struct aifab_qos_shaper *s, uint64_t now)
{
	uint64_t dt;

	if (now <= s->last)
		return;
	dt = now - s->last;
	s->last = now;
	if (dt >= cfg->dt_full) {
		s->tokens = cfg->depth;
		return;
	}
	s->tokens += (int64_t)(dt * cfg->fill);
	if (s->tokens > cfg->depth)
		s->tokens = cfg->depth;
}

/** True if any frame up to max_frame may be sent now. */
static inline bool
aifab_qos_shaper_ready(const struct aifab_qos_shaper_cfg *cfg,
		       const struct aifab_qos_shaper *s)
{
	return s->tokens >= cfg->ready;
}

/**
 * Spend the tokens of a frame of @p pkt_len (no FCS) just sent; call after
 * aifab_qos_shaper_ready() said yes (tokens then never go negative).
 */
static inline void
aifab_qos_shaper_consume(const struct aifab_qos_shaper_cfg *cfg,
			 struct aifab_qos_shaper *s, uint32_t pkt_len)
{
	s->tokens -= (int64_t)(((uint64_t)pkt_len + AIFAB_QOS_WIRE_OVERHEAD) *
			       cfg->cost);
	/* Only a frame longer than max_frame gets here; keep update's range. */
	if (s->tokens < -cfg->depth)
		s->tokens = -cfg->depth;
}

/**
 * Send-if-conforming for callers without a scheduler: if the bucket holds
 * this frame's tokens, spend them.
 * @return true if the frame may be sent.
 */
static inline bool
aifab_qos_shaper_conform(const struct aifab_qos_shaper_cfg *cfg,
			 struct aifab_qos_shaper *s, uint32_t pkt_len)
{
	int64_t need = (int64_t)(((uint64_t)pkt_len +
				  AIFAB_QOS_WIRE_OVERHEAD) * cfg->cost);

	if (s->tokens < need)
		return false;
	s->tokens -= need;
	return true;
}

/* ---- scheduler ---------------------------------------------------------- */

/** Port scheduler. */
struct aifab_qos_sched_params {
	uint8_t strict_mask;   /**< bit n: TC n is strict priority */
	/** DWRR weight of each non-strict TC, 1 .. 1024 (strict: ignored). */
	uint16_t weight[AIFAB_QOS_N_TC];
	/** Bytes per unit of weight, 64 .. 65536; at least the largest
	 * head_len (an MTU-sized frame) keeps next() to one round. */
	uint32_t quantum_bytes;
};

/** Compiled scheduler. */
struct aifab_qos_sched_cfg {
	uint8_t strict_mask;
	uint8_t dwrr_mask;
	uint32_t quantum[AIFAB_QOS_N_TC];
};

/** Scheduler state: DWRR deficits and round position. */
struct aifab_qos_sched {
	int32_t deficit[AIFAB_QOS_N_TC];
	uint8_t cur;      /**< DWRR TC being served */
	uint8_t granted;  /**< cur has had its quantum this visit */
	uint8_t nz;       /**< DWRR TCs whose deficit may not be 0 (the
			       others' is): an idle TC's is cleared only
			       if set */
};

/** Compile a scheduler. @return 0, or -EINVAL with @p why. */
int aifab_qos_sched_config(struct aifab_qos_sched_cfg *cfg,
			   const struct aifab_qos_sched_params *p,
			   const char **why);

/** Zero deficits, start the round at the lowest DWRR TC. */
void aifab_qos_sched_init(const struct aifab_qos_sched_cfg *cfg,
			  struct aifab_qos_sched *s);

/**
 * Choose the TC to dequeue from: the highest-numbered strict TC that is
 * nonempty and eligible, else DWRR (deficit round robin, Shreedhar and
 * Varghese) among the others, charging @p head_len of the chosen TC to its
 * deficit. A DWRR TC that is empty or ineligible loses its deficit.
 *
 * @param nonempty  bit n: TC n has packets.
 * @param eligible  bit n: TC n may send (clear for TCs paused by PFC).
 * @param head_len  length of each nonempty TC's head packet, in the unit
 *                  weights share (wire bytes: pkt_len + 24, or pkt_len).
 * @return the TC (the caller must then dequeue its head), or -1.
 */
int aifab_qos_sched_next(const struct aifab_qos_sched_cfg *cfg,
			 struct aifab_qos_sched *s, uint8_t nonempty,
			 uint8_t eligible,
			 const uint32_t head_len[AIFAB_QOS_N_TC]);

/**
 * aifab_qos_sched_next() inline for the common case, when it applies:
 * the one TC of @p nonempty & @p eligible is the DWRR TC being served
 * (a port with one class of traffic). Then only that TC's head is read
 * (@p q[tc]'s head pkt_len + @p overhead, the head_len unit), the
 * decision is charged as aifab_qos_sched_next() would (idle DWRR TCs
 * lose their credit, the TC gets its quantum once per visit and as many
 * more as its head needs) and the TC is returned; else -1 and nothing
 * is read or changed (ask aifab_qos_sched_next()). tests/unit/test_qos.c
 * compares the two.
 */
static inline int
aifab_qos_sched_alone(const struct aifab_qos_sched_cfg *cfg,
		      struct aifab_qos_sched *s, uint8_t nonempty,
		      uint8_t eligible,
		      struct aifab_qos_fifo *const q[AIFAB_QOS_N_TC],
		      uint32_t overhead)
{
	unsigned int ready = (unsigned int)(nonempty & eligible);
	unsigned int tc = s->cur, idle;
	uint32_t head_len;
	int32_t d;

	if (ready != (1u << tc) ||
	    (ready & cfg->dwrr_mask & ~cfg->strict_mask) == 0)
		return -1;
	head_len = aifab_qos_fifo_head_len(q[tc]) + overhead;
	/* the idle DWRR TCs lose their credit: those that have any (most
	 * calls: none, the TC was alone before too) */
	for (idle = cfg->dwrr_mask & ~ready & s->nz; idle != 0;
	     idle &= idle - 1)
		s->deficit[__builtin_ctz(idle)] = 0;
	s->nz = (uint8_t)ready;
	d = s->deficit[tc];
	if (!s->granted) {
		d += (int32_t)cfg->quantum[tc];
		s->granted = 1;
	}
	while ((int64_t)d < head_len)
		d += (int32_t)cfg->quantum[tc];
	s->deficit[tc] = d - (int32_t)head_len;
	return (int)tc;
}

#ifdef __cplusplus
}
#endif

#endif /* AIFAB_QOS_H */
