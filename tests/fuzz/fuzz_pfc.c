/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Fuzz target: PFC frames from the parser into lib/pfc (pause timers,
 * paused-time accounting, the watchdog), and PFC generation driven by
 * buffer adds and subtracts.
 *
 * Input: a header, then records.
 *   header  speed (2): port speed = 1 + v * 24 Mb/s; hz (1): TSC of
 *           1, 2.5 or 3 GHz (or 17 GHz); wd (1): action (bits 0-1), watched
 *           priorities (bits 2-7 and more via the speed); gen (1): lossless
 *           priorities; mode (1): static / dynamic XOFF, XON mode, alpha
 *   record  op (1): bits 0-1 what, bits 2-7 clock step 2^k cycles
 *     0 frame: len (1) + bytes, parsed by aifab_pkt_parse(); a PFC frame
 *       goes to aifab_pfc_rx_frame() and feeds the watchdog
 *     1 add:   prio (1) + bytes (2) to the generator (a packet arrives)
 *     2 sub:   prio (1) + bytes (2), at most what was admitted
 *     3 free (4): the shared buffer's free bytes for dynamic thresholds
 *   every record ends with the watchdog and generator polls at the new now.
 *
 * Checks: paused time per priority never decreases, never exceeds the time
 * elapsed, is 0 for priorities never paused; stormed priorities are
 * watched ones; the generator's bytes equal an independent model; a
 * generated frame only names lossless priorities, XOFF with the
 * configured quanta and XON with 0.
 */
#include <stdbool.h>

#include "aifab_pfc.h"
#include "aifab_pkt.h"
#include "fuzz_common.h"

int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
	RTE_SET_USED(argc);
	RTE_SET_USED(argv);
	return 0;
}

static const uint64_t hz_choice[4] = {
	1000000000ull, 2500000000ull, 3000000000ull, 17000000000ull,
};

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fuzz_in in = { data, size };
	struct aifab_pfc_gen_params gp = { 0 };
	struct aifab_pfc_wd_params wp = { 0 };
	struct aifab_pfc_gen_config gcfg;
	struct aifab_pfc_wd_config wcfg;
	struct aifab_pfc_gen gen;
	struct aifab_pfc_wd wd;
	struct aifab_pfc_rx rx;
	struct aifab_pfc_frame fr;
	struct aifab_pfc_wd_events ev;
	struct aifab_pkt_info pi;
	uint64_t model[AIFAB_PFC_NUM_PRIO] = { 0 };
	uint64_t last_ns[AIFAB_PFC_NUM_PRIO] = { 0 };
	uint64_t start, now, free_b = 1 << 20, hz;
	uint32_t speed;
	uint8_t act, watched, lossless, mode, ever_paused = 0;
	unsigned int i;

	if (size > 1 << 16)
		return 0;
	speed = 1 + (uint32_t)fuzz_u16(&in) * 24; /* up to 1.57 Tb/s */
	hz = hz_choice[fuzz_u8(&in) & 3];
	act = fuzz_u8(&in);
	lossless = fuzz_u8(&in);
	mode = fuzz_u8(&in);
	watched = (uint8_t)((act >> 2) | (speed & 0xc0));

	if (aifab_pfc_rx_init(&rx, speed, hz) != 0)
		abort();
	wp.tsc_hz = hz;
	for (i = 0; i < AIFAB_PFC_NUM_PRIO; i++) {
		wp.prio[i].enabled = watched & (1u << i);
		wp.prio[i].action = (uint8_t)((act & 3) % 3);
		wp.prio[i].detection_ms = 100 + 100 * (i & 1);
		wp.prio[i].restoration_ms = 100 + 50 * (i & 2);
	}
	FUZZ_ASSERT(aifab_pfc_wd_config_init(&wcfg, &wp) == 0);
	aifab_pfc_wd_init(&wd, &wcfg);
	gp.speed_mbps = speed;
	gp.tsc_hz = hz;
	for (i = 0; i < AIFAB_PFC_NUM_PRIO; i++) {
		struct aifab_pfc_gen_prio_params *pp = &gp.prio[i];

		pp->enabled = lossless & (1u << i);
		pp->xoff_mode = mode & 1 ? AIFAB_PFC_XOFF_DYNAMIC :
			AIFAB_PFC_XOFF_STATIC;
		pp->xon_mode = mode & 2 ? AIFAB_PFC_XON_OFFSET :
			AIFAB_PFC_XON_ABS;
		pp->alpha_log2 = (int8_t)((mode >> 2) % 11) - 7;
		pp->xoff_bytes = 3000 + 1000 * i;
		pp->xon_bytes = 1000;
		pp->headroom_bytes = (mode & 0x80) ? 0 : 4000;
		pp->pause_quanta = (uint16_t)(mode & 0x40 ? 2 : 0xffff);
	}
	/* A 2-quanta pause at a high speed leaves no refresh interval in
	 * whole TSC cycles: rejected, as documented. */
	if (aifab_pfc_gen_config_init(&gcfg, &gp) != 0) {
		FUZZ_ASSERT(mode & 0x40);
		return 0;
	}
	aifab_pfc_gen_init(&gen, &gcfg);

	start = now = 1ull << 40;
	while (in.n > 0) {
		uint8_t op = fuzz_u8(&in), prio;
		uint32_t bytes;
		size_t got;
		const uint8_t *b;

		now += 1ull << ((op >> 2) % 41);
		switch (op & 3) {
		case 0:
			b = fuzz_bytes(&in, fuzz_u8(&in), &got);
			if (aifab_pkt_parse(b, (uint32_t)got, (uint32_t)got,
					    &pi, false) != AIFAB_PKT_ERR_OK ||
			    !(pi.flags & AIFAB_PKT_F_PFC))
				break;
			FUZZ_ASSERT(pi.l3 == AIFAB_L3_MAC_CTRL);
			aifab_pfc_rx_frame(&rx, pi.pfc_enable, pi.pfc_time,
					   now);
			for (i = 0; i < AIFAB_PFC_NUM_PRIO; i++) {
				if (!(pi.pfc_enable & (1u << i)))
					continue;
				if (pi.pfc_time[i] != 0)
					ever_paused |= (uint8_t)(1u << i);
				aifab_pfc_wd_feed(&wd, i, now);
			}
			break;
		case 1:
			prio = fuzz_u8(&in) & 7;
			bytes = fuzz_u16(&in);
			if (aifab_pfc_gen_add(&gen, prio, bytes, free_b) !=
			    AIFAB_PFC_DROP)
				model[prio] += bytes;
			else
				FUZZ_ASSERT(lossless & (1u << prio));
			break;
		case 2:
			prio = fuzz_u8(&in) & 7;
			bytes = (uint32_t)RTE_MIN((uint64_t)fuzz_u16(&in),
						  model[prio]);
			aifab_pfc_gen_sub(&gen, prio, bytes, free_b);
			model[prio] -= bytes;
			break;
		default:
			free_b = fuzz_u32(&in);
			break;
		}
		/* the poll loop */
		memset(&ev, 0, sizeof(ev));
		aifab_pfc_wd_poll(&wd, now, aifab_pfc_rx_paused_mask(&rx, now),
				  &ev);
		FUZZ_ASSERT((wd.stormed & ~wcfg.enabled) == 0);
		FUZZ_ASSERT((ev.stormed & ev.restored) == 0);
		FUZZ_ASSERT((aifab_pfc_wd_ignore_mask(&wd) & ~wd.stormed) == 0);
		FUZZ_ASSERT((aifab_pfc_rx_paused_mask(&rx, now) &
			     ~ever_paused) == 0);
		if (aifab_pfc_gen_poll(&gen, free_b, now, &fr)) {
			FUZZ_ASSERT(fr.enable != 0);
			FUZZ_ASSERT((fr.enable & ~lossless) == 0);
			for (i = 0; i < AIFAB_PFC_NUM_PRIO; i++)
				FUZZ_ASSERT(!(fr.enable & (1u << i)) ||
					    fr.quanta[i] == 0 ||
					    fr.quanta[i] ==
					    gcfg.prio[i].pause_quanta);
		} else {
			FUZZ_ASSERT(fr.enable == 0);
		}
		for (i = 0; i < AIFAB_PFC_NUM_PRIO; i++) {
			uint64_t ns = aifab_pfc_rx_paused_ns(&rx, i, now);
			uint64_t el = (now - start) / hz * 1000000000ull +
				(now - start) % hz * 1000000000ull / hz;

			FUZZ_ASSERT(gen.bytes[i] == model[i]);
			FUZZ_ASSERT(gen.headroom[i] <= gen.bytes[i]);
			FUZZ_ASSERT(ns >= last_ns[i]);
			FUZZ_ASSERT(ns <= el + 1);
			FUZZ_ASSERT(ns == 0 || (ever_paused & (1u << i)));
			last_ns[i] = ns;
		}
	}
	return 0;
}
