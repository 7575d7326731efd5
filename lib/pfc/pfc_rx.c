/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * PFC honouring: pause timers per priority and paused-time accounting.
 *
 * Per priority, `since <= until` and `since <= now` always hold. An open
 * pause runs from `since` to `until` (> since); a closed one has
 * since == until. Closed intervals are summed in paused_cycles (cycles, so
 * the sum is exact; converted to ns only when read).
 */
#include <errno.h>
#include <string.h>

#include "aifab_pfc.h"

#define NS_PER_S 1000000000ull

uint64_t
aifab_pfc_quanta_to_cycles(uint32_t quanta, uint32_t speed_mbps,
			   uint64_t tsc_hz)
{
	/*
	 * quanta <= 2^16, 512 = 2^9, tsc_hz < 2^64 / 10^9 < 2^35:
	 * the product stays below 2^60.
	 */
	return (uint64_t)quanta * AIFAB_PFC_QUANTUM_BITS * tsc_hz /
		((uint64_t)speed_mbps * 1000000u);
}

int
aifab_pfc_rx_init(struct aifab_pfc_rx *rx, uint32_t speed_mbps,
		  uint64_t tsc_hz)
{
	if (rx == NULL || speed_mbps == 0 ||
	    speed_mbps > AIFAB_PFC_SPEED_MAX_MBPS || tsc_hz == 0 ||
	    tsc_hz > AIFAB_PFC_TSC_HZ_MAX)
		return -EINVAL;
	memset(rx, 0, sizeof(*rx));
	rx->speed_mbps = speed_mbps;
	rx->tsc_hz = tsc_hz;
	return 0;
}

/* Close a pause that ran out before @p now; leave it closed at now. */
static void
settle(struct aifab_pfc_rx *rx, unsigned int i, uint64_t now)
{
	if (rx->until[i] > now)
		return;
	rx->paused_cycles[i] += rx->until[i] - rx->since[i];
	rx->since[i] = now;
	rx->until[i] = now;
}

static void
pause_prio(struct aifab_pfc_rx *rx, unsigned int i, uint16_t quanta,
	   uint64_t now)
{
	settle(rx, i, now);
	if (quanta == 0) {
		/* XON: close an open pause at now. */
		rx->paused_cycles[i] += now - rx->since[i];
		rx->since[i] = now;
		rx->until[i] = now;
		return;
	}
	/* XOFF: an open pause goes on from `since` with a new end. */
	rx->until[i] = now + aifab_pfc_quanta_to_cycles(quanta,
					rx->speed_mbps, rx->tsc_hz);
}

void
aifab_pfc_rx_frame(struct aifab_pfc_rx *rx, uint16_t enable,
		   const uint16_t time[AIFAB_PFC_NUM_PRIO], uint64_t now)
{
	unsigned int i;

	for (i = 0; i < AIFAB_PFC_NUM_PRIO; i++) {
		if (!(enable & (1u << i)))
			continue;
		rx->stats.v[AIFAB_PFC_CNT_RX][i]++;
		pause_prio(rx, i, time[i], now);
	}
}

uint64_t
aifab_pfc_rx_paused_ns(const struct aifab_pfc_rx *rx, unsigned int prio,
		       uint64_t now)
{
	uint64_t end = rx->until[prio] < now ? rx->until[prio] : now;
	uint64_t c = rx->paused_cycles[prio] + (end - rx->since[prio]);

	/* Never paused, or the clock counts ns already (the whole-process
	 * virtual clock): what the division below would give, without it
	 * (mirrored per port and priority, paused or not, at every
	 * counter mirror). */
	if (c == 0 || rx->tsc_hz == NS_PER_S)
		return c;
	/* Split so that nothing overflows: (c % hz) * 10^9 < hz * 10^9. */
	return c / rx->tsc_hz * NS_PER_S +
		c % rx->tsc_hz * NS_PER_S / rx->tsc_hz;
}

void
aifab_pfc_share_rx(struct aifab_pfc_share *s, const struct aifab_pfc_rx *rx,
		   uint16_t enable, uint64_t now)
{
	unsigned int i;

	for (i = 0; i < AIFAB_PFC_NUM_PRIO; i++) {
		if (!(enable & (1u << i)))
			continue;
		/* rx->until is now after an XON: store 0, never paused */
		__atomic_store_n(&s->until[i], rx->until[i] > now ?
				 rx->until[i] : 0, __ATOMIC_RELAXED);
		__atomic_store_n(&s->last_rx[i], now, __ATOMIC_RELAXED);
	}
}
