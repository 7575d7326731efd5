/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Receive side, open loop: per-QP PSN accounting with a window bitmap that
 * tells a late PSN from a duplicate, and the latency histogram.
 */
#include <string.h>

#include <rte_common.h>

#include "aifab_roce.h"

#define RX_WORDS (AIFAB_ROCE_RX_WIN / 64)

#define RX_NAME(e, s) s,
static const char *const rx_ctr_names[] = { AIFAB_ROCE_RX_COUNTERS(RX_NAME) };
#undef RX_NAME

const char *
aifab_roce_rx_ctr_name(enum aifab_roce_rx_ctr c)
{
	return (unsigned int)c < AIFAB_ROCE_RX_MAX ? rx_ctr_names[c] : "unknown";
}

static inline void
bit_set(uint64_t *w, uint32_t psn)
{
	uint32_t i = psn % AIFAB_ROCE_RX_WIN;

	w[i / 64] |= 1ull << (i % 64);
}

static inline void
bit_clear(uint64_t *w, uint32_t psn)
{
	uint32_t i = psn % AIFAB_ROCE_RX_WIN;

	w[i / 64] &= ~(1ull << (i % 64));
}

static inline bool
bit_test(const uint64_t *w, uint32_t psn)
{
	uint32_t i = psn % AIFAB_ROCE_RX_WIN;

	return (w[i / 64] >> (i % 64)) & 1;
}

void
aifab_roce_rx_init(struct aifab_roce_rx *rx, uint32_t start_psn)
{
	memset(rx, 0, sizeof(*rx));
	rx->expected = start_psn & AIFAB_ROCE_PSN_MASK;
}

/* PSN @p psn is d >= 0 ahead of expected: skip d, accept psn. */
static void
rx_advance(struct aifab_roce_rx *rx, uint32_t psn, uint32_t d)
{
	uint32_t i;

	if (d >= AIFAB_ROCE_RX_WIN) {
		memset(rx->seen, 0, sizeof(rx->seen));
	} else {
		for (i = 0; i < d; i++)
			bit_clear(rx->seen, rx->expected + i);
	}
	bit_set(rx->seen, psn);
	rx->ctr[AIFAB_ROCE_RX_GAP] += d;
	rx->expected = aifab_roce_psn_add(psn, 1);
}

enum aifab_roce_rx_ctr
aifab_roce_rx_psn(struct aifab_roce_rx *rx, uint32_t psn)
{
	int32_t d = aifab_roce_psn_diff(psn, rx->expected);
	enum aifab_roce_rx_ctr c;

	psn &= AIFAB_ROCE_PSN_MASK;
	rx->packets++;
	if (d >= 0) {
		/* Ahead counts as in order too; the skipped ones are GAP. */
		rx_advance(rx, psn, (uint32_t)d);
		c = AIFAB_ROCE_RX_IN_ORDER;
	} else if (-d > AIFAB_ROCE_RX_WIN) {
		c = AIFAB_ROCE_RX_STALE;
	} else if (bit_test(rx->seen, psn)) {
		c = AIFAB_ROCE_RX_DUPLICATE;
	} else {
		bit_set(rx->seen, psn);
		c = AIFAB_ROCE_RX_REORDERED;
	}
	rx->ctr[c]++;
	return c;
}

uint64_t
aifab_roce_rx_lost(const struct aifab_roce_rx *rx, uint32_t tx_next_psn)
{
	int32_t tail = aifab_roce_psn_diff(tx_next_psn, rx->expected);
	uint64_t gap = rx->ctr[AIFAB_ROCE_RX_GAP];
	uint64_t late = rx->ctr[AIFAB_ROCE_RX_REORDERED];
	uint64_t lost = gap > late ? gap - late : 0;

	return lost + (tail > 0 ? (uint64_t)tail : 0);
}

/* ---- histogram ------------------------------------------------------------ */

void
aifab_roce_hist_reset(struct aifab_roce_hist *h)
{
	memset(h, 0, sizeof(*h));
	h->min = UINT64_MAX;
}

void
aifab_roce_hist_merge(struct aifab_roce_hist *dst,
		      const struct aifab_roce_hist *src)
{
	uint32_t i;

	for (i = 0; i < AIFAB_ROCE_HIST_BUCKETS; i++)
		dst->b[i] += src->b[i];
	dst->count += src->count;
	dst->sum += src->sum;
	dst->min = RTE_MIN(dst->min, src->min);
	dst->max = RTE_MAX(dst->max, src->max);
}

/* Lowest value of bucket @p i and its width. */
static void
bucket_range(uint32_t i, uint64_t *lo, uint64_t *width)
{
	const uint32_t sb = AIFAB_ROCE_HIST_SUB_BITS;
	uint32_t e;

	if (i < (1u << sb)) {
		*lo = i;
		*width = 1;
		return;
	}
	e = (i >> sb) + sb - 1;
	*lo = (uint64_t)((i & ((1u << sb) - 1)) + (1u << sb)) << (e - sb);
	*width = 1ull << (e - sb);
}

uint64_t
aifab_roce_hist_quantile(const struct aifab_roce_hist *h, double q)
{
	uint64_t rank, acc = 0, lo, width, v;
	uint32_t i;

	if (h->count == 0)
		return 0;
	q = RTE_MAX(0.0, RTE_MIN(q, 1.0));
	rank = (uint64_t)(q * (double)h->count);
	if ((double)rank < q * (double)h->count)
		rank++;
	if (rank <= 1)
		return h->min;
	if (rank >= h->count)
		return h->max;
	for (i = 0; i < AIFAB_ROCE_HIST_BUCKETS; i++) {
		acc += h->b[i];
		if (acc >= rank)
			break;
	}
	if (i == AIFAB_ROCE_HIST_BUCKETS)
		return h->max;
	bucket_range(i, &lo, &width);
	v = lo + width / 2;
	return RTE_MAX(h->min, RTE_MIN(v, h->max));
}
