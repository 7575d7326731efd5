/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lib/pfc: generation (thresholds, headroom, refresh), headroom sizing,
 * honouring (pause timers, paused time) and the watchdog, on a fake clock.
 * Expected values are worked out by hand in the comments (quanta x 512 bits
 * at the port speed, PROTOCOLS.md), or come from a naive per-cycle reference
 * written here. No EAL needed.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include <rte_common.h>

#include "aifab_pfc.h"
#include "aifab_pkt.h"
#include "aifab_rng.h"

#define NS_HZ 1000000000ull /* fake TSC at 1 GHz: one cycle = one ns */
#define MS (NS_HZ / 1000)

/* ---- generation --------------------------------------------------------- */

static void
gen_setup(struct aifab_pfc_gen_config *cfg, struct aifab_pfc_gen *g,
	  const struct aifab_pfc_gen_params *p)
{
	assert_int_equal(aifab_pfc_gen_config_init(cfg, p), 0);
	aifab_pfc_gen_init(g, cfg);
}

static struct aifab_pfc_gen_params
static_params(unsigned int prio, uint32_t xoff, uint8_t xon_mode,
	      uint32_t xon, uint32_t headroom)
{
	struct aifab_pfc_gen_params p = { .speed_mbps = 100000, .tsc_hz = NS_HZ };

	p.prio[prio] = (struct aifab_pfc_gen_prio_params){
		.enabled = true, .xoff_mode = AIFAB_PFC_XOFF_STATIC,
		.xon_mode = xon_mode, .xoff_bytes = xoff, .xon_bytes = xon,
		.headroom_bytes = headroom,
	};
	return p;
}

/* Poll and return the frame's enable vector (0: nothing sent). */
static uint8_t
poll_vec(struct aifab_pfc_gen *g, uint64_t free, uint64_t now,
	 struct aifab_pfc_frame *f)
{
	bool sent = aifab_pfc_gen_poll(g, free, now, f);

	assert_int_equal(sent, f->enable != 0);
	return f->enable;
}

static void
test_gen_hysteresis_exact_thresholds(void **state)
{
	/* XON 6000 given as an absolute value or as 4000 below XOFF 10000. */
	const struct { uint8_t mode; uint32_t xon; } xon[] = {
		{ AIFAB_PFC_XON_ABS, 6000 }, { AIFAB_PFC_XON_OFFSET, 4000 },
	};
	struct aifab_pfc_gen_config cfg;
	struct aifab_pfc_gen g;
	struct aifab_pfc_frame f;
	unsigned int k, i;

	(void)state;
	for (k = 0; k < RTE_DIM(xon); k++) {
		struct aifab_pfc_gen_params p =
			static_params(3, 10000, xon[k].mode, xon[k].xon, 9000);

		gen_setup(&cfg, &g, &p);
		assert_int_equal(aifab_pfc_gen_add(&g, 3, 9999, 0),
				 AIFAB_PFC_ADMIT);
		assert_int_equal(poll_vec(&g, 0, 10, &f), 0);
		/* 10000 bytes: XOFF reached exactly, still in shared. */
		assert_int_equal(aifab_pfc_gen_add(&g, 3, 1, 0),
				 AIFAB_PFC_ADMIT);
		assert_int_equal(poll_vec(&g, 0, 20, &f), 0x08);
		for (i = 0; i < 8; i++)
			assert_int_equal(f.quanta[i], i == 3 ? 0xFFFF : 0);
		/* 6001: in the band, stays paused, nothing to send. */
		aifab_pfc_gen_sub(&g, 3, 3999, 0);
		assert_int_equal(poll_vec(&g, 0, 30, &f), 0);
		/* 6000 = XON exactly: XON, timer 0. */
		aifab_pfc_gen_sub(&g, 3, 1, 0);
		assert_int_equal(poll_vec(&g, 0, 40, &f), 0x08);
		assert_int_equal(f.quanta[3], 0);
		/* Back up to 9999: below XOFF, no frame. */
		aifab_pfc_gen_add(&g, 3, 3999, 0);
		assert_int_equal(poll_vec(&g, 0, 50, &f), 0);
		assert_int_equal(g.stats.v[AIFAB_PFC_CNT_XOFF_SENT][3], 1);
		assert_int_equal(g.stats.v[AIFAB_PFC_CNT_XON_SENT][3], 1);
	}
}

/* Priority 4 with an exact alpha num/den and `free` bytes free: nothing
 * sent at xoff - 1 bytes (poll at t 1), XOFF at xoff (t 2). */
static void
alpha_xoff_at(struct aifab_pfc_gen_params *p,
	      struct aifab_pfc_gen_config *cfg, struct aifab_pfc_gen *g,
	      struct aifab_pfc_frame *f, uint32_t num, uint32_t den,
	      uint64_t free, uint32_t xoff)
{
	p->prio[4].alpha_num = num;
	p->prio[4].alpha_den = den;
	gen_setup(cfg, g, p);
	aifab_pfc_gen_add(g, 4, xoff - 1, free);
	assert_int_equal(poll_vec(g, free, 1, f), 0);
	aifab_pfc_gen_add(g, 4, 1, free);
	assert_int_equal(poll_vec(g, free, 2, f), 0x10);
}

static void
test_gen_dynamic_threshold(void **state)
{
	struct aifab_pfc_gen_params p = { .speed_mbps = 25000, .tsc_hz = NS_HZ };
	struct aifab_pfc_gen_config cfg;
	struct aifab_pfc_gen g;
	struct aifab_pfc_frame f;

	(void)state;
	/* alpha = 2^-1, XON 1000 below XOFF. */
	p.prio[4] = (struct aifab_pfc_gen_prio_params){
		.enabled = true, .xoff_mode = AIFAB_PFC_XOFF_DYNAMIC,
		.alpha_log2 = -1, .xon_mode = AIFAB_PFC_XON_OFFSET,
		.xon_bytes = 1000, .headroom_bytes = 50000,
	};
	gen_setup(&cfg, &g, &p);
	/* free 20000 -> XOFF 10000. */
	assert_int_equal(aifab_pfc_gen_add(&g, 4, 9999, 20000),
			 AIFAB_PFC_ADMIT);
	assert_int_equal(poll_vec(&g, 20000, 1, &f), 0);
	/* The buffer fills elsewhere: free 19998 -> XOFF 9999 = bytes. */
	assert_int_equal(poll_vec(&g, 19998, 2, &f), 0x10);
	/* free 19998 -> XON 8999; free 40000 -> XOFF 20000, XON 19000. */
	assert_int_equal(poll_vec(&g, 19998, 3, &f), 0);
	assert_int_equal(poll_vec(&g, 40000, 4, &f), 0x10);
	assert_int_equal(f.quanta[4], 0);
	/* 9999 + 10002 = 20001 > XOFF 20000: into headroom, XOFF. */
	assert_int_equal(aifab_pfc_gen_add(&g, 4, 10002, 40000),
			 AIFAB_PFC_ADMIT_HEADROOM);
	assert_int_equal(poll_vec(&g, 40000, 5, &f), 0x10);
	assert_int_equal(f.quanta[4], 0xFFFF);

	/* alpha = 2^3 and an empty buffer: XOFF at least 1 byte. */
	p.prio[4].alpha_log2 = 3;
	gen_setup(&cfg, &g, &p);
	assert_int_equal(poll_vec(&g, 0, 1, &f), 0);
	assert_int_equal(aifab_pfc_gen_add(&g, 4, 1, 0),
			 AIFAB_PFC_ADMIT);
	assert_int_equal(poll_vec(&g, 0, 2, &f), 0x10);
	/* free 1250 x 8 = 10000: XOFF 10000, XON 9000; 9999 is in the band. */
	aifab_pfc_gen_add(&g, 4, 9998, 1250);
	assert_int_equal(poll_vec(&g, 1250, 3, &f), 0);
	aifab_pfc_gen_sub(&g, 4, 999, 1250);   /* 9000 */
	assert_int_equal(poll_vec(&g, 1250, 4, &f), 0x10);
	assert_int_equal(f.quanta[4], 0);

	/* Exact alpha num/den, not a power of two: 0.3 (the profile's
	 * alpha_milli / 1000). free 33333 -> XOFF floor(9999.9) = 9999. */
	alpha_xoff_at(&p, &cfg, &g, &f, 300, 1000, 33333, 9999);
	assert_int_equal(f.quanta[4], 0xFFFF);
	/* 1.5: free 10000 -> XOFF 15000, XON 14000 */
	alpha_xoff_at(&p, &cfg, &g, &f, 3, 2, 10000, 15000);
	aifab_pfc_gen_sub(&g, 4, 999, 10000);  /* 14001 > XON */
	assert_int_equal(poll_vec(&g, 10000, 3, &f), 0);
	aifab_pfc_gen_sub(&g, 4, 1, 10000);    /* 14000 = XON */
	assert_int_equal(poll_vec(&g, 10000, 4, &f), 0x10);
	assert_int_equal(f.quanta[4], 0);
	/* A huge free buffer does not overflow: 2^62 x 3/2. */
	gen_setup(&cfg, &g, &p);
	aifab_pfc_gen_add(&g, 4, 1, 1ull << 62);
	assert_int_equal(poll_vec(&g, 1ull << 62, 1, &f), 0);
}

static void
test_gen_headroom(void **state)
{
	struct aifab_pfc_gen_params p =
		static_params(3, 10000, AIFAB_PFC_XON_ABS, 5000, 3000);
	struct aifab_pfc_gen_config cfg;
	struct aifab_pfc_gen g;
	struct aifab_pfc_frame f;

	(void)state;
	gen_setup(&cfg, &g, &p);
	assert_int_equal(aifab_pfc_gen_add(&g, 3, 9000, 0), AIFAB_PFC_ADMIT);
	/* 9000 + 1500 > 10000: headroom 1500, then 3000 (full). */
	assert_int_equal(aifab_pfc_gen_add(&g, 3, 1500, 0),
			 AIFAB_PFC_ADMIT_HEADROOM);
	assert_int_equal(aifab_pfc_gen_add(&g, 3, 1500, 0),
			 AIFAB_PFC_ADMIT_HEADROOM);
	assert_int_equal(aifab_pfc_gen_add(&g, 3, 1, 0), AIFAB_PFC_DROP);
	assert_int_equal(g.stats.v[AIFAB_PFC_CNT_HEADROOM_OVERFLOW][3], 1);
	assert_int_equal(g.bytes[3], 12000);   /* the drop is not accounted */
	/* Dequeues give headroom back first. */
	aifab_pfc_gen_sub(&g, 3, 1500, 0);
	assert_int_equal(aifab_pfc_gen_add(&g, 3, 1500, 0),
			 AIFAB_PFC_ADMIT_HEADROOM);
	aifab_pfc_gen_sub(&g, 3, 4000, 0);     /* headroom 0, 8000 bytes */
	assert_int_equal(aifab_pfc_gen_add(&g, 3, 2000, 0), AIFAB_PFC_ADMIT);
	assert_int_equal(g.headroom[3], 0);
	/* Lossy priority 0: anything goes, never in a frame. */
	assert_int_equal(aifab_pfc_gen_add(&g, 0, 1u << 30, 0),
			 AIFAB_PFC_ADMIT);
	assert_int_equal(poll_vec(&g, 0, 1, &f), 0x08);
	assert_int_equal(g.stats.v[AIFAB_PFC_CNT_HEADROOM_OVERFLOW][0], 0);

	/* No headroom: the packet that would cross XOFF is dropped, and the
	 * sender is paused although the buffer stays below XOFF. */
	p.prio[3].headroom_bytes = 0;
	gen_setup(&cfg, &g, &p);
	aifab_pfc_gen_add(&g, 3, 9000, 0);
	assert_int_equal(aifab_pfc_gen_add(&g, 3, 1500, 0), AIFAB_PFC_DROP);
	assert_int_equal(poll_vec(&g, 0, 1, &f), 0x08);
	assert_int_equal(f.quanta[3], 0xFFFF);
}

/* A packet admitted below XOFF that only fits the buffer's headroom
 * reserve is moved into headroom: XOFF at once, held until it drains. */
static void
test_gen_spill(void **state)
{
	struct aifab_pfc_gen_params p =
		static_params(3, 100000, AIFAB_PFC_XON_ABS, 50000, 3000);
	struct aifab_pfc_gen_config cfg;
	struct aifab_pfc_gen g;
	struct aifab_pfc_frame f;

	(void)state;
	gen_setup(&cfg, &g, &p);
	assert_int_equal(aifab_pfc_gen_add(&g, 3, 1000, 0), AIFAB_PFC_ADMIT);
	assert_int_equal(poll_vec(&g, 0, 1, &f), 0);
	/* Far below XOFF 100000, but spilled: headroom 1500, XOFF. */
	assert_int_equal(aifab_pfc_gen_add(&g, 3, 1500, 0), AIFAB_PFC_ADMIT);
	assert_int_equal(aifab_pfc_gen_spill(&g, 3, 1500),
			 AIFAB_PFC_ADMIT_HEADROOM);
	assert_int_equal(g.headroom[3], 1500);
	assert_int_equal(g.bytes[3], 2500);
	assert_int_equal(poll_vec(&g, 0, 2, &f), 0x08);
	assert_int_equal(f.quanta[3], 0xFFFF);
	/* 1500 more fit (3000), the next one does not: not accounted. */
	aifab_pfc_gen_add(&g, 3, 1500, 0);
	assert_int_equal(aifab_pfc_gen_spill(&g, 3, 1500),
			 AIFAB_PFC_ADMIT_HEADROOM);
	aifab_pfc_gen_add(&g, 3, 100, 0);
	assert_int_equal(aifab_pfc_gen_spill(&g, 3, 100), AIFAB_PFC_DROP);
	assert_int_equal(g.stats.v[AIFAB_PFC_CNT_HEADROOM_OVERFLOW][3], 1);
	assert_int_equal(g.bytes[3], 4000);
	assert_int_equal(g.headroom[3], 3000);
	/* Below XON 50000 all along: XOFF holds while headroom is in use
	 * (headroom is given back first), XON once it is empty. */
	aifab_pfc_gen_sub(&g, 3, 2999, 0);
	assert_int_equal(poll_vec(&g, 0, 3, &f), 0);
	aifab_pfc_gen_sub(&g, 3, 1, 0);
	assert_int_equal(g.headroom[3], 0);
	assert_int_equal(poll_vec(&g, 0, 4, &f), 0x08);
	assert_int_equal(f.quanta[3], 0);
	assert_int_equal(g.stats.v[AIFAB_PFC_CNT_XON_SENT][3], 1);
	/* Lossy priority: nothing to do. */
	assert_int_equal(aifab_pfc_gen_spill(&g, 0, 1500), AIFAB_PFC_ADMIT);
	assert_int_equal(g.headroom[0], 0);
}

static void
test_gen_refresh_cadence(void **state)
{
	/*
	 * 100G, default pause 0xFFFF, refresh 0xFFFF / 2 = 32767 quanta:
	 * 32767 x 512 = 16776704 bits / 100 bits per ns = 167767.04 ns, floor
	 * 167767 (peer pause: 33553920 / 100 = 335539 ns, so refresh is in
	 * time). 25G, pause 2000, refresh 1000 quanta: 512000 / 25 = 20480 ns.
	 */
	const struct {
		uint32_t mbps;
		uint16_t pause, refresh, sent_quanta;
		uint64_t interval;
	} c[] = {
		{ 100000, 0, 0, 0xFFFF, 167767 },
		{ 25000, 2000, 1000, 2000, 20480 },
	};
	const uint64_t t0 = 1000;
	struct aifab_pfc_gen_config cfg;
	struct aifab_pfc_gen g;
	struct aifab_pfc_frame f;
	unsigned int k;

	(void)state;
	for (k = 0; k < RTE_DIM(c); k++) {
		struct aifab_pfc_gen_params p =
			static_params(6, 10000, AIFAB_PFC_XON_ABS, 5000, 9000);
		uint64_t T = c[k].interval;

		p.speed_mbps = c[k].mbps;
		p.prio[6].pause_quanta = c[k].pause;
		p.prio[6].refresh_quanta = c[k].refresh;
		gen_setup(&cfg, &g, &p);
		aifab_pfc_gen_add(&g, 6, 10000, 0);
		assert_int_equal(poll_vec(&g, 0, t0, &f), 0x40);
		assert_int_equal(poll_vec(&g, 0, t0 + T - 1, &f), 0);
		assert_int_equal(poll_vec(&g, 0, t0 + T, &f), 0x40);
		assert_int_equal(f.quanta[6], c[k].sent_quanta);
		/* In the band (5001): still refreshed, from the last send. */
		aifab_pfc_gen_sub(&g, 6, 4999, 0);
		assert_int_equal(poll_vec(&g, 0, t0 + 2 * T - 1, &f), 0);
		assert_int_equal(poll_vec(&g, 0, t0 + 2 * T + 5, &f), 0x40);
		assert_int_equal(poll_vec(&g, 0, t0 + 3 * T + 4, &f), 0);
		/* Below XON: one XON, then no refresh ever. */
		aifab_pfc_gen_sub(&g, 6, 1, 0);
		assert_int_equal(poll_vec(&g, 0, t0 + 3 * T + 5, &f), 0x40);
		assert_int_equal(f.quanta[6], 0);
		assert_int_equal(poll_vec(&g, 0, t0 + 4 * T + 5, &f), 0);
		assert_int_equal(poll_vec(&g, 0, t0 + 100 * T, &f), 0);
		assert_int_equal(g.stats.v[AIFAB_PFC_CNT_XOFF_SENT][6], 3);
		assert_int_equal(g.stats.v[AIFAB_PFC_CNT_XON_SENT][6], 1);
	}
}

static void
test_gen_one_frame_many_prios(void **state)
{
	struct aifab_pfc_gen_params p =
		static_params(3, 10000, AIFAB_PFC_XON_ABS, 5000, 9000);
	struct aifab_pfc_gen_config cfg;
	struct aifab_pfc_gen g;
	struct aifab_pfc_frame f;

	(void)state;
	p.prio[4] = p.prio[3];
	p.prio[4].pause_quanta = 0x1000;
	gen_setup(&cfg, &g, &p);
	aifab_pfc_gen_add(&g, 3, 10000, 0);
	aifab_pfc_gen_add(&g, 4, 10000, 0);
	assert_int_equal(poll_vec(&g, 0, 1, &f), 0x18);
	assert_int_equal(f.quanta[3], 0xFFFF);
	assert_int_equal(f.quanta[4], 0x1000);
	/* XON for 3 and XOFF for 4's refresh, in one frame. */
	aifab_pfc_gen_sub(&g, 3, 5000, 0);
	assert_int_equal(poll_vec(&g, 0, 1000000, &f), 0x18);
	assert_int_equal(f.quanta[3], 0);
	assert_int_equal(f.quanta[4], 0x1000);
	/* Reached XOFF and fell to XON between two polls: nothing. */
	aifab_pfc_gen_add(&g, 3, 5000, 0);
	aifab_pfc_gen_sub(&g, 3, 5000, 0);
	assert_int_equal(poll_vec(&g, 0, 1000001, &f), 0);
}

/* Generated frame through lib/pkt: bytes as PROTOCOLS.md lays them out. */
static void
test_gen_frame_on_the_wire(void **state)
{
	static const struct rte_ether_addr src = { { 2, 0, 0, 0, 0, 9 } };
	struct aifab_pfc_gen_params p =
		static_params(3, 100, AIFAB_PFC_XON_ABS, 50, 9000);
	struct aifab_pfc_gen_config cfg;
	struct aifab_pfc_gen g;
	struct aifab_pfc_frame f;
	struct aifab_pfc_rx rx;
	struct aifab_pkt_info pi;
	uint8_t buf[AIFAB_PFC_FRAME_LEN];

	(void)state;
	gen_setup(&cfg, &g, &p);
	aifab_pfc_gen_add(&g, 3, 100, 0);
	assert_true(aifab_pfc_gen_poll(&g, 0, 0, &f));
	assert_int_equal(aifab_build_pfc(buf, &src, f.enable, f.quanta), 60);
	assert_int_equal(buf[12], 0x88);
	assert_int_equal(buf[13], 0x08);
	assert_int_equal(buf[14], 0x01);
	assert_int_equal(buf[15], 0x01);
	assert_int_equal(buf[16], 0x00);
	assert_int_equal(buf[17], 0x08);
	assert_int_equal(buf[18 + 2 * 3], 0xFF);
	assert_int_equal(buf[19 + 2 * 3], 0xFF);
	assert_int_equal(buf[18], 0);
	assert_int_equal(aifab_pkt_parse(buf, sizeof(buf), sizeof(buf), &pi,
					 false), AIFAB_PKT_ERR_OK);
	assert_true(pi.flags & AIFAB_PKT_F_PFC);
	assert_int_equal(aifab_pfc_rx_init(&rx, 100000, NS_HZ), 0);
	aifab_pfc_rx_frame(&rx, pi.pfc_enable, pi.pfc_time, 0);
	assert_int_equal(aifab_pfc_rx_paused_mask(&rx, 335538), 0x08);
	assert_int_equal(aifab_pfc_rx_paused_mask(&rx, 335539), 0);
}

/* ---- headroom ----------------------------------------------------------- */

static void
test_headroom_sizing(void **state)
{
	/*
	 * 100G, 100 m, MTU 9000:
	 *   MTU in flight                               9000
	 *   cable both ways: 200 m / 2e8 m/s = 1 us,
	 *     x 100e9 b/s = 100000 bits                12500
	 *   response 394 quanta x 512 bits / 8         25216
	 *   one more MTU                                9000
	 *                                        total 55716
	 * 25G, 100 m, MTU 9000: 9000 + 25e9 x 1e-6 / 8 = 3125
	 *   + 80 x 64 = 5120 + 9000 = 26245.
	 * 10G, 10 m, MTU 1500: 1500 + 10e9 x 1e-7 / 8 = 125 + 67 x 64 = 4288
	 *   + 1500 = 7413.
	 * 400G, 5 m, MTU 9000: 9000 + 400e9 x 5e-8 / 8 = 2500
	 *   + 905 x 64 = 57920 + 9000 = 78420.
	 * 25G, 1 m, MTU 0: 25e9 x 1e-8 / 8 = 31.25 -> 32, + 5120 = 5152.
	 */
	const struct {
		uint32_t mbps, m, mtu;
		uint64_t bytes;
	} c[] = {
		{ 100000, 100, 9000, 55716 }, { 25000, 100, 9000, 26245 },
		{ 10000, 10, 1500, 7413 }, { 400000, 5, 9000, 78420 },
		{ 25000, 1, 0, 5152 },
	};
	/*
	 * Response between table speeds, rounded up:
	 * 40G: 80 + 314 x 15/75 = 142.8 -> 143; 50G: 80 + 314 x 25/75 =
	 * 184.67 -> 185; 200G: 394 + 511 x 100/300 = 564.33 -> 565;
	 * 800G: 905 x 2 = 1810; 1G: 67 (10G's, the smallest listed).
	 */
	const uint32_t q[][2] = {
		{ 10000, 67 }, { 25000, 80 }, { 100000, 394 }, { 400000, 905 },
		{ 40000, 143 }, { 50000, 185 }, { 200000, 565 },
		{ 800000, 1810 }, { 1000, 67 },
	};
	unsigned int i;

	(void)state;
	for (i = 0; i < RTE_DIM(c); i++)
		assert_int_equal(aifab_pfc_headroom_bytes(c[i].mbps, c[i].m,
							  c[i].mtu),
				 c[i].bytes);
	for (i = 0; i < RTE_DIM(q); i++)
		assert_int_equal(aifab_pfc_response_quanta(q[i][0]), q[i][1]);
	assert_true(aifab_pfc_headroom_short(55715, 100000, 100, 9000));
	assert_false(aifab_pfc_headroom_short(55716, 100000, 100, 9000));
}

/* ---- honouring ---------------------------------------------------------- */

static void
send_one(struct aifab_pfc_rx *rx, uint16_t enable, unsigned int prio,
	 uint16_t quanta, uint64_t now)
{
	uint16_t t[8] = { 0 };

	t[prio] = quanta;
	aifab_pfc_rx_frame(rx, enable, t, now);
}

static void
test_rx_expiry_exact(void **state)
{
	/*
	 * 0xFFFF quanta = 65535 x 512 = 33553920 bit times.
	 * 1 GHz TSC (ns): 10G 3355392 (3.355 ms); 25G 1342156.8 -> 1342156;
	 * 100G 335539.2 -> 335539 (335.5 us); 400G 83884.8 -> 83884.
	 * 2.5 GHz TSC: 100G 33553920 x 2.5e9 / 1e11 = 838848; 10G 8388480.
	 * 1 quantum at 400G, 1 GHz: 512 / 400 = 1.28 -> 1 cycle.
	 * Largest TSC (18446744073 Hz) at 10G: 33553920 x 18446744073 / 1e10
	 * = 61896057.2 -> 61896057 (no overflow); at 1.6T -> 386850.
	 */
	const struct {
		uint32_t mbps;
		uint64_t hz;
		uint16_t quanta;
		uint64_t cycles;
	} c[] = {
		{ 10000, NS_HZ, 0xFFFF, 3355392 },
		{ 25000, NS_HZ, 0xFFFF, 1342156 },
		{ 100000, NS_HZ, 0xFFFF, 335539 },
		{ 400000, NS_HZ, 0xFFFF, 83884 },
		{ 100000, 2500000000ull, 0xFFFF, 838848 },
		{ 10000, 2500000000ull, 0xFFFF, 8388480 },
		{ 400000, NS_HZ, 1, 1 },
		{ 10000, AIFAB_PFC_TSC_HZ_MAX, 0xFFFF, 61896057 },
		{ 1600000, AIFAB_PFC_TSC_HZ_MAX, 0xFFFF, 386850 },
	};
	const uint64_t t0 = 5000;
	struct aifab_pfc_rx rx;
	unsigned int i;

	(void)state;
	for (i = 0; i < RTE_DIM(c); i++) {
		assert_int_equal(aifab_pfc_quanta_to_cycles(c[i].quanta,
					c[i].mbps, c[i].hz), c[i].cycles);
		assert_int_equal(aifab_pfc_rx_init(&rx, c[i].mbps, c[i].hz), 0);
		assert_int_equal(aifab_pfc_rx_paused_mask(&rx, t0), 0);
		send_one(&rx, 0x08, 3, c[i].quanta, t0);
		assert_int_equal(aifab_pfc_rx_paused_mask(&rx, t0), 0x08);
		assert_int_equal(aifab_pfc_rx_paused_mask(&rx,
					t0 + c[i].cycles - 1), 0x08);
		assert_int_equal(aifab_pfc_rx_paused_mask(&rx,
					t0 + c[i].cycles), 0);
		assert_int_equal(rx.stats.v[AIFAB_PFC_CNT_RX][3], 1);
	}
	/* 1 GHz: paused ns = cycles. */
	assert_int_equal(aifab_pfc_rx_init(&rx, 10000, NS_HZ), 0);
	send_one(&rx, 0x08, 3, 0xFFFF, t0);
	assert_int_equal(aifab_pfc_rx_paused_ns(&rx, 3, t0 + 10 * MS), 3355392);
}

static void
test_rx_xon_replace_disabled(void **state)
{
	struct aifab_pfc_rx rx;
	uint16_t t[8];

	(void)state;
	assert_int_equal(aifab_pfc_rx_init(&rx, 10000, NS_HZ), 0);
	/* XON cancels: paused 100 .. 1000. */
	send_one(&rx, 0x04, 2, 0xFFFF, 100);
	send_one(&rx, 0x04, 2, 0, 1000);
	assert_int_equal(aifab_pfc_rx_paused_mask(&rx, 1000), 0);
	assert_int_equal(aifab_pfc_rx_paused_ns(&rx, 2, 1000000), 900);
	/* A shorter frame replaces a long one: 100 quanta at 10G = 5120 ns. */
	send_one(&rx, 0x02, 1, 0xFFFF, 2000);
	send_one(&rx, 0x02, 1, 100, 3000);
	assert_int_equal(aifab_pfc_rx_paused_mask(&rx, 8119), 0x02);
	assert_int_equal(aifab_pfc_rx_paused_mask(&rx, 8120), 0);
	/* And a longer one extends. */
	send_one(&rx, 0x02, 1, 100, 10000);
	send_one(&rx, 0x02, 1, 0xFFFF, 12000);
	assert_int_equal(aifab_pfc_rx_paused_mask(&rx, 12000 + 3355391), 0x02);
	assert_int_equal(aifab_pfc_rx_paused_mask(&rx, 12000 + 3355392), 0);
	/* Disabled classes are ignored, whatever their timer says. */
	assert_int_equal(aifab_pfc_rx_init(&rx, 10000, NS_HZ), 0);
	memset(t, 0xFF, sizeof(t));
	aifab_pfc_rx_frame(&rx, 0x01, t, 0);
	assert_int_equal(aifab_pfc_rx_paused_mask(&rx, 1), 0x01);
	t[0] = 0xFFFF;
	t[5] = 0;
	send_one(&rx, 0x20, 5, 0xFFFF, 10);
	aifab_pfc_rx_frame(&rx, 0x01, t, 20);  /* timer 5 = 0 but disabled */
	assert_int_equal(aifab_pfc_rx_paused_mask(&rx, 30), 0x21);
	aifab_pfc_rx_frame(&rx, 0x0100, t, 40); /* high byte: no class */
	assert_int_equal(rx.stats.v[AIFAB_PFC_CNT_RX][0], 2);
	assert_int_equal(rx.stats.v[AIFAB_PFC_CNT_RX][5], 1);
	assert_int_equal(rx.stats.v[AIFAB_PFC_CNT_RX][1], 0);
}

static void
test_rx_paused_ns_overlaps(void **state)
{
	/*
	 * 10G, 1 GHz. Priority 5: XOFF 100 q (5120 ns) at 0 -> [0, 5120);
	 * XOFF 100 q at 3000 -> one pause [0, 8120); XOFF 200 q (10240) at
	 * 10000 -> [10000, 20240); XON at 12000 -> [10000, 12000); XOFF 50 q
	 * (2560) at 12000 -> [12000, 14560). Union: 8120 + 2000 + 2560.
	 */
	struct aifab_pfc_rx rx;

	(void)state;
	assert_int_equal(aifab_pfc_rx_init(&rx, 10000, NS_HZ), 0);
	send_one(&rx, 0x20, 5, 100, 0);
	send_one(&rx, 0x20, 5, 100, 3000);
	assert_int_equal(aifab_pfc_rx_paused_ns(&rx, 5, 4000), 4000);
	assert_int_equal(aifab_pfc_rx_paused_ns(&rx, 5, 9000), 8120);
	send_one(&rx, 0x20, 5, 200, 10000);
	assert_int_equal(aifab_pfc_rx_paused_ns(&rx, 5, 11000), 9120);
	send_one(&rx, 0x20, 5, 0, 12000);
	send_one(&rx, 0x20, 5, 50, 12000);
	assert_int_equal(aifab_pfc_rx_paused_ns(&rx, 5, 20000), 12680);
	assert_int_equal(aifab_pfc_rx_paused_ns(&rx, 4, 20000), 0);

	/* 3 GHz: 4 cycles = 1.33 ns -> 1; 10^13 cycles = 3333.33 s. */
	assert_int_equal(aifab_pfc_rx_init(&rx, 10000, 3000000000ull), 0);
	send_one(&rx, 0x01, 0, 0xFFFF, 0);
	assert_int_equal(aifab_pfc_rx_paused_ns(&rx, 0, 4), 1);
	rx.paused_cycles[1] = 10000000000000ull;
	assert_int_equal(aifab_pfc_rx_paused_ns(&rx, 1, 5), 3333333333333ull);
}

/*
 * Naive reference: replay the frame log for every cycle; the last frame at
 * or before t for a class decides whether t is paused.
 */
struct ev {
	uint64_t t;
	uint8_t en;
	uint16_t time[8];
};

static bool
ref_paused(const struct ev *e, unsigned int n, unsigned int prio, uint64_t t,
	   uint32_t mbps)
{
	int i;

	for (i = (int)n - 1; i >= 0; i--) {
		if (e[i].t > t || !(e[i].en & (1u << prio)))
			continue;
		/* quanta x 512 bits / (mbps bits per us) in ns */
		return t < e[i].t + (uint64_t)e[i].time[prio] * 512 * 1000 /
			mbps;
	}
	return false;
}

static void
test_rx_random_vs_reference(void **state)
{
	const uint32_t mbps = 100000;
	struct ev e[60];
	uint64_t now = 0, ref_ns[8] = { 0 }, t;
	struct aifab_pfc_rx rx;
	struct aifab_rng r;
	unsigned int i, k, p, n = 0;

	(void)state;
	aifab_rng_seed(&r, 42, 0);
	assert_int_equal(aifab_pfc_rx_init(&rx, mbps, NS_HZ), 0);
	for (i = 0; i < RTE_DIM(e); i++) {
		e[i].t = now + aifab_rng_below(&r, 3000);
		e[i].en = (uint8_t)aifab_rng_u32(&r);
		for (k = 0; k < 8; k++)  /* up to 500 quanta = 2560 ns; 1/4 XON */
			e[i].time[k] = aifab_rng_below(&r, 4) ?
				(uint16_t)aifab_rng_below(&r, 500) : 0;
		/* Check every cycle between the previous frame and this one. */
		for (t = now; t < e[i].t; t++) {
			uint8_t m = 0;

			for (p = 0; p < 8; p++)
				if (ref_paused(e, n, p, t, mbps)) {
					m |= (uint8_t)(1u << p);
					ref_ns[p]++;
				}
			assert_int_equal(aifab_pfc_rx_paused_mask(&rx, t), m);
		}
		now = e[i].t;
		aifab_pfc_rx_frame(&rx, e[i].en, e[i].time, now);
		n++;
		for (p = 0; p < 8; p++)
			assert_int_equal(aifab_pfc_rx_paused_ns(&rx, p, now),
					 ref_ns[p]);
	}
}

/* ---- watchdog ----------------------------------------------------------- */

/* The storms below: XOFF every 1 ms from STORM_T0 to STORM_LAST. */
#define STORM_T0 (7 * MS)
#define STORM_LAST (STORM_T0 + 500 * MS)

/* A storm's receiving end: the watchdog and the PFC receiver of a 10G
 * port. */
struct wd_rig {
	struct aifab_pfc_wd_config wc;
	struct aifab_pfc_wd wd;
	struct aifab_pfc_wd_events ev;
	struct aifab_pfc_rx rx;
};

/* The rig with a watchdog for wp's priorities. */
static void
wd_setup(struct wd_rig *r, const struct aifab_pfc_wd_params *wp)
{
	assert_int_equal(aifab_pfc_wd_config_init(&r->wc, wp), 0);
	aifab_pfc_wd_init(&r->wd, &r->wc);
	assert_int_equal(aifab_pfc_rx_init(&r->rx, 10000, NS_HZ), 0);
}

/*
 * A storm on priorities 3 (drop), 4 (forward), 5 (alert): the peer sends
 * XOFF 0xFFFF at 10G (3.355 ms) every 1 ms from t0 to `last`; the pipeline
 * polls every 1 ms right after. Detection 200 ms, restoration 200 ms.
 */
static void
test_wd_storm_detect_restore_actions(void **state)
{
	const uint8_t prios = 0x38;
	const uint64_t t0 = STORM_T0, last = STORM_LAST;
	struct aifab_pfc_wd_params wp = { .tsc_hz = NS_HZ };
	struct wd_rig r;
	uint16_t tm[8];
	uint64_t t;
	unsigned int p;

	(void)state;
	for (p = 3; p <= 5; p++)
		wp.prio[p] = (struct aifab_pfc_wd_prio_params){
			.enabled = true, .action = (uint8_t)(p - 3) };
	wd_setup(&r, &wp);
	for (p = 0; p < 8; p++)
		tm[p] = 0xFFFF;
	for (t = t0; t <= last + 400 * MS; t += MS) {
		uint8_t m;

		if (t <= last) {
			aifab_pfc_rx_frame(&r.rx, prios, tm, t);
			for (p = 3; p <= 5; p++)
				aifab_pfc_wd_feed(&r.wd, p, t);
		}
		m = aifab_pfc_rx_paused_mask(&r.rx, t);
		aifab_pfc_wd_poll(&r.wd, t, m, &r.ev);
		if (t < t0 + 200 * MS) {
			assert_int_equal(r.ev.stormed, 0);
			assert_int_equal(r.wd.stormed, 0);
			assert_int_equal(aifab_pfc_wd_ignore_mask(&r.wd), 0);
		} else if (t == t0 + 200 * MS) {
			assert_int_equal(r.ev.stormed, prios);
		} else if (t < last + 200 * MS) {
			/* Still stormed until 200 ms of silence. */
			assert_int_equal(r.ev.stormed | r.ev.restored, 0);
			assert_int_equal(r.wd.stormed, prios);
			assert_int_equal(aifab_pfc_wd_ignore_mask(&r.wd), 0x18);
			assert_int_equal(aifab_pfc_wd_drop_mask(&r.wd), 0x08);
			assert_int_equal(aifab_pfc_wd_state(&r.wd, 5),
					 AIFAB_PFC_WD_STORMED);
		} else if (t == last + 200 * MS) {
			assert_int_equal(r.ev.restored, prios);
		} else {
			assert_int_equal(r.ev.stormed | r.ev.restored, 0);
		}
	}
	assert_int_equal(aifab_pfc_wd_state(&r.wd, 5), AIFAB_PFC_WD_NORMAL);
	for (p = 3; p <= 5; p++) {
		assert_int_equal(r.wd.stats.v[AIFAB_PFC_CNT_WD_STORMS][p], 1);
		assert_int_equal(r.wd.stats.v[AIFAB_PFC_CNT_WD_RESTORED][p], 1);
	}
	assert_int_equal(r.wd.stats.v[AIFAB_PFC_CNT_WD_STORMS][2], 0);
}

static void
test_wd_exact_times_and_gaps(void **state)
{
	struct aifab_pfc_wd_params wp = { .tsc_hz = NS_HZ };
	struct aifab_pfc_wd_config wc;
	struct aifab_pfc_wd wd;
	struct aifab_pfc_wd_events ev;
	uint64_t t;

	(void)state;
	wp.prio[0] = (struct aifab_pfc_wd_prio_params){ .enabled = true,
		.detection_ms = 100, .restoration_ms = 500,
		.action = AIFAB_PFC_WD_ALERT };
	assert_int_equal(aifab_pfc_wd_config_init(&wc, &wp), 0);
	aifab_pfc_wd_init(&wd, &wc);
	/* Detection counts from the first PFC frame, to the cycle. */
	aifab_pfc_wd_feed(&wd, 0, 1000);
	assert_int_equal(aifab_pfc_wd_poll(&wd, 1000 + 100 * MS - 1, 0x01, &ev),
			 0);
	aifab_pfc_wd_feed(&wd, 0, 1000 + 100 * MS - 1);
	assert_int_equal(aifab_pfc_wd_poll(&wd, 1000 + 100 * MS, 0x01, &ev), 1);
	assert_int_equal(ev.stormed, 0x01);
	assert_int_equal(aifab_pfc_wd_ignore_mask(&wd), 0); /* alert only */
	t = 1000 + 100 * MS - 1;  /* last frame */
	assert_int_equal(aifab_pfc_wd_poll(&wd, t + 500 * MS - 1, 0, &ev), 0);
	assert_int_equal(aifab_pfc_wd_poll(&wd, t + 500 * MS, 0, &ev), 1);
	assert_int_equal(ev.restored, 0x01);

	/* Pauses with gaps (seen unpaused at a poll) never storm. */
	aifab_pfc_wd_init(&wd, &wc);
	for (t = 0; t < 1000 * MS; t += 5 * MS) {
		aifab_pfc_wd_feed(&wd, 0, t);
		assert_int_equal(aifab_pfc_wd_poll(&wd, t + MS, 0x01, NULL), 0);
		assert_int_equal(aifab_pfc_wd_poll(&wd, t + 4 * MS, 0, NULL), 0);
	}
	/* Paused, but the watchdog is off for this priority. */
	assert_int_equal(aifab_pfc_wd_poll(&wd, 2000 * MS, 0xFE, NULL), 0);
	assert_int_equal(wd.stats.v[AIFAB_PFC_CNT_WD_STORMS][0], 0);
}

/* ---- configuration and counters ----------------------------------------- */

static void
test_config_validation(void **state)
{
	struct aifab_pfc_gen_params ok =
		static_params(3, 10000, AIFAB_PFC_XON_ABS, 5000, 0);
	struct aifab_pfc_gen_params p;
	struct aifab_pfc_gen_config cfg;
	struct aifab_pfc_wd_params wp = { .tsc_hz = NS_HZ };
	struct aifab_pfc_wd_config wc;
	struct aifab_pfc_rx rx;

	(void)state;
	assert_int_equal(aifab_pfc_gen_config_init(&cfg, &ok), 0);
	assert_int_equal(cfg.enabled, 0x08);
	assert_int_equal(cfg.prio[3].pause_quanta, 0xFFFF);
	assert_int_equal(cfg.prio[3].refresh_cycles, 167767);
#define BAD(expr) do { p = ok; expr; \
	assert_int_equal(aifab_pfc_gen_config_init(&cfg, &p), -EINVAL); \
	} while (0)
	BAD(p.speed_mbps = 0);
	BAD(p.speed_mbps = AIFAB_PFC_SPEED_MAX_MBPS + 1);
	BAD(p.tsc_hz = 0);
	BAD(p.tsc_hz = AIFAB_PFC_TSC_HZ_MAX + 1);
	BAD(p.prio[3].xoff_bytes = 0);
	BAD(p.prio[3].xon_bytes = 10000);          /* XON not below XOFF */
	BAD(p.prio[3].xoff_mode = 2);
	BAD(p.prio[3].xon_mode = 2);
	BAD((p.prio[3].xon_mode = AIFAB_PFC_XON_OFFSET,
	     p.prio[3].xon_bytes = 0));
	BAD((p.prio[3].xon_mode = AIFAB_PFC_XON_OFFSET,
	     p.prio[3].xon_bytes = 10001));
	BAD((p.prio[3].xoff_mode = AIFAB_PFC_XOFF_DYNAMIC,
	     p.prio[3].alpha_log2 = 4));
	BAD((p.prio[3].xoff_mode = AIFAB_PFC_XOFF_DYNAMIC,
	     p.prio[3].alpha_log2 = -8));
	/* exact alpha: 1/128..8, den <= 65536 */
	BAD((p.prio[3].xoff_mode = AIFAB_PFC_XOFF_DYNAMIC,
	     p.prio[3].alpha_num = 9, p.prio[3].alpha_den = 1));
	BAD((p.prio[3].xoff_mode = AIFAB_PFC_XOFF_DYNAMIC,
	     p.prio[3].alpha_num = 1, p.prio[3].alpha_den = 129));
	BAD((p.prio[3].xoff_mode = AIFAB_PFC_XOFF_DYNAMIC,
	     p.prio[3].alpha_num = 0, p.prio[3].alpha_den = 1000));
	BAD((p.prio[3].xoff_mode = AIFAB_PFC_XOFF_DYNAMIC,
	     p.prio[3].alpha_num = 65537, p.prio[3].alpha_den = 65537));
	BAD(p.prio[3].pause_quanta = 1);
	BAD((p.prio[3].pause_quanta = 100, p.prio[3].refresh_quanta = 100));
	/* 1 quantum at 400G on a 1 MHz TSC is 0 cycles: no refresh period. */
	BAD((p.speed_mbps = 400000, p.tsc_hz = 1000000,
	     p.prio[3].pause_quanta = 2));
#undef BAD
	/* Disabled priorities are not checked. */
	p = ok;
	p.prio[1].xoff_mode = 9;
	assert_int_equal(aifab_pfc_gen_config_init(&cfg, &p), 0);

	wp.prio[2].enabled = true;
	assert_int_equal(aifab_pfc_wd_config_init(&wc, &wp), 0);
	assert_int_equal(wc.detect_cycles[2], 200 * MS);
	assert_int_equal(wc.restore_cycles[2], 200 * MS);
	assert_int_equal(wc.drop, 0x04);
	wp.prio[2].detection_ms = 99;
	assert_int_equal(aifab_pfc_wd_config_init(&wc, &wp), -EINVAL);
	wp.prio[2].detection_ms = 5001;
	assert_int_equal(aifab_pfc_wd_config_init(&wc, &wp), -EINVAL);
	wp.prio[2].detection_ms = 5000;
	wp.prio[2].restoration_ms = 99;
	assert_int_equal(aifab_pfc_wd_config_init(&wc, &wp), -EINVAL);
	wp.prio[2].restoration_ms = 100;
	wp.prio[2].action = 3;
	assert_int_equal(aifab_pfc_wd_config_init(&wc, &wp), -EINVAL);
	wp.prio[2].action = AIFAB_PFC_WD_FORWARD;
	assert_int_equal(aifab_pfc_wd_config_init(&wc, &wp), 0);
	assert_int_equal(wc.forward, 0x04);
	assert_int_equal(aifab_pfc_rx_init(&rx, 0, NS_HZ), -EINVAL);
	assert_int_equal(aifab_pfc_rx_init(&rx, 10000, 0), -EINVAL);
}

static void
test_counter_names(void **state)
{
	struct aifab_pfc_stats a, b;

	(void)state;
	assert_string_equal(aifab_pfc_cnt_name(AIFAB_PFC_CNT_XOFF_SENT),
			    "pfc_xoff_sent");
	assert_string_equal(aifab_pfc_cnt_name(AIFAB_PFC_CNT_XON_SENT),
			    "pfc_xon_sent");
	assert_string_equal(aifab_pfc_cnt_name(AIFAB_PFC_CNT_HEADROOM_OVERFLOW),
			    "headroom_overflow");
	assert_string_equal(aifab_pfc_cnt_name(AIFAB_PFC_CNT_RX), "pfc_rx");
	assert_string_equal(aifab_pfc_cnt_name(AIFAB_PFC_CNT_WD_STORMS),
			    "pfcwd_storms");
	assert_string_equal(aifab_pfc_cnt_name(AIFAB_PFC_CNT_WD_RESTORED),
			    "pfcwd_restored");
	assert_null(aifab_pfc_cnt_name(AIFAB_PFC_CNT_MAX));
	memset(&a, 0, sizeof(a));
	memset(&b, 0, sizeof(b));
	a.v[AIFAB_PFC_CNT_RX][7] = 5;
	b.v[AIFAB_PFC_CNT_RX][7] = 7;
	b.v[AIFAB_PFC_CNT_XON_SENT][0] = 1;
	aifab_pfc_stats_add(&a, &b);
	assert_int_equal(a.v[AIFAB_PFC_CNT_RX][7], 12);
	assert_int_equal(a.v[AIFAB_PFC_CNT_XON_SENT][0], 1);
}

/* ---- one port shared by several workers ---------------------------------- */

/* Worker @p w of a port sharing @p sh, with its own shard of thresholds. */
static void
share_gen_setup(struct aifab_pfc_gen_config *cfg, struct aifab_pfc_gen *g,
		const struct aifab_pfc_gen_params *p, struct aifab_pfc_share *sh,
		unsigned int w)
{
	gen_setup(cfg, g, p);
	aifab_pfc_gen_share(g, sh, w);
}

/*
 * Two workers' shards of one ingress port, XOFF 10000 and XON 5000 each:
 * the shards cross XOFF at different times; the first one back at XON
 * clears its bit but the peer is not told XON while the other is above
 * XOFF; XON goes out when the last shard is at XON. Alone (no share), the
 * same sequence sends XON at once: the bug this fixes.
 */
static void
test_share_xon_when_last_shard_falls(void **state)
{
	struct aifab_pfc_gen_params p =
		static_params(3, 10000, AIFAB_PFC_XON_ABS, 5000, 50000);
	struct aifab_pfc_gen_config cfg;
	struct aifab_pfc_gen g0, g1, alone;
	struct aifab_pfc_share sh;
	struct aifab_pfc_frame f;

	(void)state;
	aifab_pfc_share_init(&sh);
	share_gen_setup(&cfg, &g0, &p, &sh, 0);
	share_gen_setup(&cfg, &g1, &p, &sh, 5);
	gen_setup(&cfg, &alone, &p);
	/* t=10: shard 0 at XOFF: XOFF, bit 0 set. */
	aifab_pfc_gen_add(&g0, 3, 10000, 0);
	aifab_pfc_gen_add(&alone, 3, 10000, 0);
	assert_int_equal(poll_vec(&g0, 0, 10, &f), 0x08);
	assert_int_equal(f.quanta[3], 0xFFFF);
	assert_int_equal(poll_vec(&alone, 0, 10, &f), 0x08);
	assert_int_equal(sh.above[3], 0x01);
	/* t=20: shard 1 crosses later (9000, then 3000 into headroom):
	 * XOFF too. */
	assert_int_equal(aifab_pfc_gen_add(&g1, 3, 9000, 0), AIFAB_PFC_ADMIT);
	assert_int_equal(aifab_pfc_gen_add(&g1, 3, 3000, 0),
			 AIFAB_PFC_ADMIT_HEADROOM);
	assert_int_equal(poll_vec(&g1, 0, 20, &f), 0x08);
	assert_int_equal(sh.above[3], 0x21);
	/* t=30: shard 0 falls to XON: bit cleared, no XON (shard 1 above). */
	aifab_pfc_gen_sub(&g0, 3, 5000, 0);
	aifab_pfc_gen_sub(&alone, 3, 5000, 0);
	assert_int_equal(poll_vec(&g0, 0, 30, &f), 0);
	assert_int_equal(sh.above[3], 0x20);
	assert_int_equal(poll_vec(&alone, 0, 30, &f), 0x08); /* unshared */
	assert_int_equal(f.quanta[3], 0);
	/* Later polls of shard 0 stay silent (no XON, no refresh). */
	assert_int_equal(poll_vec(&g0, 0, 40, &f), 0);
	assert_int_equal(poll_vec(&g0, 0, 10 * MS, &f), 0);
	/* Shard 1 in the band (5001, headroom given back first) holds; at
	 * 5000 it sends the XON. */
	aifab_pfc_gen_sub(&g1, 3, 6999, 0);
	assert_int_equal(poll_vec(&g1, 0, 50, &f), 0);
	assert_int_equal(sh.above[3], 0x20);
	aifab_pfc_gen_sub(&g1, 3, 1, 0);
	assert_int_equal(poll_vec(&g1, 0, 60, &f), 0x08);
	assert_int_equal(f.quanta[3], 0);
	assert_int_equal(sh.above[3], 0);
	assert_int_equal(g0.stats.v[AIFAB_PFC_CNT_XOFF_SENT][3], 1);
	assert_int_equal(g0.stats.v[AIFAB_PFC_CNT_XON_SENT][3], 0);
	assert_int_equal(g1.stats.v[AIFAB_PFC_CNT_XOFF_SENT][3], 1);
	assert_int_equal(g1.stats.v[AIFAB_PFC_CNT_XON_SENT][3], 1);
	/* Shard 0 crosses again: XOFF again, its own bit only. */
	aifab_pfc_gen_add(&g0, 3, 5000, 0);
	assert_int_equal(poll_vec(&g0, 0, 70, &f), 0x08);
	assert_int_equal(f.quanta[3], 0xFFFF);
	assert_int_equal(sh.above[3], 0x01);
	/* Other priorities never touched the share. */
	assert_int_equal(sh.above[0] | sh.above[1] | sh.above[2] |
			 sh.above[4] | sh.above[5] | sh.above[6] |
			 sh.above[7], 0);
}

/*
 * Refresh is the port's: 100G, refresh 32767 quanta = 167767 ns (see
 * test_gen_refresh_cadence). Both shards above XOFF from t0: each sends
 * its first XOFF, then exactly one XOFF per interval between them, the
 * interval counted from the last crossing; a shard alone keeps it up.
 */
static void
test_share_refresh_once_per_interval(void **state)
{
	struct aifab_pfc_gen_params p =
		static_params(6, 10000, AIFAB_PFC_XON_ABS, 5000, 9000);
	const uint64_t T = 167767, t0 = 1000;
	struct aifab_pfc_gen_config cfg;
	struct aifab_pfc_gen g[2];
	struct aifab_pfc_share sh;
	struct aifab_pfc_frame f;
	uint64_t t, t1, last = t0, sent[2] = { 0, 0 };
	unsigned int w, k;

	(void)state;
	aifab_pfc_share_init(&sh);
	for (w = 0; w < 2; w++) {
		share_gen_setup(&cfg, &g[w], &p, &sh, w);
		aifab_pfc_gen_add(&g[w], 6, 10000, 0);
		assert_int_equal(poll_vec(&g[w], 0, t0, &f), 0x40);
	}
	/* Poll both every 1000 ns (worker 1 first on odd steps). */
	for (t = t0 + 1000, k = 0; t <= t0 + 3 * T + 3000; t += 1000, k++)
		for (w = 0; w < 2; w++) {
			unsigned int i = (w + k) % 2;

			if (poll_vec(&g[i], 0, t, &f) != 0) {
				assert_int_equal(f.quanta[6], 0xFFFF);
				/* due T after the last one (by either worker),
				 * seen at the first step from then */
				assert_true(t >= last + T && t < last + T + 1000);
				last = t;
				sent[i]++;
			}
		}
	assert_int_equal(sent[0] + sent[1], 3);
	/* Worker 0 back at XON: no XON (worker 1 above); worker 1 alone
	 * refreshes on the same cadence. */
	aifab_pfc_gen_sub(&g[0], 6, 5000, 0);
	assert_int_equal(poll_vec(&g[0], 0, t, &f), 0);
	assert_int_equal(sh.above[6], 0x02);
	for (k = 0, t1 = last + 3 * T + 3000; t <= t1; t += 1000)
		for (w = 0; w < 2; w++)
			if (poll_vec(&g[w], 0, t, &f) != 0) {
				assert_int_equal(w, 1);
				assert_int_equal(f.quanta[6], 0xFFFF);
				assert_true(t >= last + T &&
					    t < last + T + 1000);
				last = t;
				k++;
			}
	assert_int_equal(k, 3);
	assert_int_equal(g[0].stats.v[AIFAB_PFC_CNT_XON_SENT][6], 0);
}

/*
 * Received pause, 10G (1 quantum = 51.2 ns): whichever worker parses a
 * frame, every reader of the share sees the same pause; XON stores 0; a
 * new frame replaces the timer, shorter or longer. Paused time is the
 * parsing worker's rx object's (one account per frame, not per reader).
 */
static void
test_share_rx_pause_seen_by_all(void **state)
{
	struct aifab_pfc_rx rx0, rx1;
	struct aifab_pfc_share sh;
	uint16_t tm[8] = { 0 };

	(void)state;
	aifab_pfc_share_init(&sh);
	assert_int_equal(aifab_pfc_rx_init(&rx0, 10000, NS_HZ), 0);
	assert_int_equal(aifab_pfc_rx_init(&rx1, 10000, NS_HZ), 0);
	assert_int_equal(aifab_pfc_share_paused_mask(&sh, 1), 0);
	/* Worker 0 parses XOFF c3 = 1000 (51200 ns) at t=100, c5's timer
	 * set but class 5 not enabled. */
	tm[3] = 1000;
	tm[5] = 0xFFFF;
	aifab_pfc_rx_frame(&rx0, 0x08, tm, 100);
	aifab_pfc_share_rx(&sh, &rx0, 0x08, 100);
	assert_int_equal(sh.until[3], 100 + 51200);
	assert_int_equal(sh.last_rx[3], 100);
	assert_int_equal(aifab_pfc_share_paused_mask(&sh, 100), 0x08);
	assert_int_equal(aifab_pfc_share_paused_mask(&sh, 51299), 0x08);
	assert_int_equal(aifab_pfc_share_paused_mask(&sh, 51300), 0);
	/* Worker 1 parses XOFF c3 = 0xFFFF at 60000, then XON at 70000. */
	tm[3] = 0xFFFF;
	aifab_pfc_rx_frame(&rx1, 0x08, tm, 60000);
	aifab_pfc_share_rx(&sh, &rx1, 0x08, 60000);
	assert_int_equal(aifab_pfc_share_paused_mask(&sh, 69999), 0x08);
	tm[3] = 0;
	aifab_pfc_rx_frame(&rx1, 0x08, tm, 70000);
	aifab_pfc_share_rx(&sh, &rx1, 0x08, 70000);
	assert_int_equal(sh.until[3], 0);
	assert_int_equal(aifab_pfc_share_paused_mask(&sh, 70000), 0);
	/* Worker 0: 0xFFFF at 80000, replaced by 10 quanta (512 ns) from
	 * worker 1 at 80100: the shorter one wins. */
	tm[3] = 0xFFFF;
	aifab_pfc_rx_frame(&rx0, 0x08, tm, 80000);
	aifab_pfc_share_rx(&sh, &rx0, 0x08, 80000);
	tm[3] = 10;
	aifab_pfc_rx_frame(&rx1, 0x08, tm, 80100);
	aifab_pfc_share_rx(&sh, &rx1, 0x08, 80100);
	assert_int_equal(aifab_pfc_share_paused_mask(&sh, 80611), 0x08);
	assert_int_equal(aifab_pfc_share_paused_mask(&sh, 80612), 0);
	assert_int_equal(sh.last_rx[3], 80100);
	assert_int_equal(sh.until[5] | sh.last_rx[5], 0);
	/* Each rx object accounts only what its worker parsed:
	 * rx0 51200 + 100 (80000..80100, closed by rx1's frame? no: rx0 did
	 * not see it, so its own 0xFFFF pause is still open), rx1 10000 +
	 * 512. */
	assert_int_equal(aifab_pfc_rx_paused_ns(&rx1, 3, 90000), 10000 + 512);
	assert_int_equal(aifab_pfc_rx_paused_ns(&rx0, 3, 90000),
			 51200 + 10000);
}

/*
 * The watchdog owner sees frames other workers parsed through last_rx:
 * XOFF 0xFFFF at 10G (3.355 ms) every 1 ms from t0 to `last`, parsed by
 * a non-owner; the owner polls every 1 ms. Detection and restoration
 * 200 ms: stormed at t0 + 200 ms, restored at last + 200 ms, exactly as
 * when fed directly (test_wd_storm_detect_restore_actions).
 */
static void
test_share_wd_owner_fed(void **state)
{
	const uint64_t t0 = STORM_T0, last = STORM_LAST;
	struct aifab_pfc_wd_params wp = { .tsc_hz = NS_HZ };
	struct wd_rig r;
	struct aifab_pfc_share sh;
	uint16_t tm[8] = { 0, 0, 0, 0xFFFF, 0, 0, 0, 0 };
	uint64_t t;

	(void)state;
	wp.prio[3] = (struct aifab_pfc_wd_prio_params){ .enabled = true };
	wd_setup(&r, &wp);
	aifab_pfc_share_init(&sh);
	for (t = t0; t <= last + 400 * MS; t += MS) {
		if (t <= last) {
			aifab_pfc_rx_frame(&r.rx, 0x08, tm, t);
			aifab_pfc_share_rx(&sh, &r.rx, 0x08, t);
		}
		aifab_pfc_share_wd_feed(&sh, &r.wd, t);
		aifab_pfc_wd_poll(&r.wd, t, aifab_pfc_share_paused_mask(&sh, t),
				  &r.ev);
		aifab_pfc_share_set_stormed(&sh, r.wd.stormed);
		if (t == t0 + 200 * MS)
			assert_int_equal(r.ev.stormed, 0x08);
		else if (t == last + 200 * MS)
			assert_int_equal(r.ev.restored, 0x08);
		else
			assert_int_equal(r.ev.stormed | r.ev.restored, 0);
		assert_int_equal(aifab_pfc_share_stormed(&sh),
				 t >= t0 + 200 * MS && t < last + 200 * MS ?
				 0x08 : 0);
	}
	assert_int_equal(r.wd.stats.v[AIFAB_PFC_CNT_WD_STORMS][3], 1);
	assert_int_equal(r.wd.stats.v[AIFAB_PFC_CNT_WD_RESTORED][3], 1);
	/* A frame stamped by a clock ahead of the owner's is taken at the
	 * owner's now (start never after now). */
	aifab_pfc_wd_init(&r.wd, &r.wc);
	aifab_pfc_share_init(&sh);
	aifab_pfc_rx_frame(&r.rx, 0x08, tm, 5 * MS + 40);
	aifab_pfc_share_rx(&sh, &r.rx, 0x08, 5 * MS + 40);
	aifab_pfc_share_wd_feed(&sh, &r.wd, 5 * MS);
	assert_int_equal(r.wd.start[3], 5 * MS);
	assert_int_equal(r.wd.last_feed[3], 5 * MS);
	/* then the real stamp once the owner's clock passes it */
	aifab_pfc_share_wd_feed(&sh, &r.wd, 6 * MS);
	assert_int_equal(r.wd.start[3], 5 * MS);
	assert_int_equal(r.wd.last_feed[3], 5 * MS + 40);
}

/* Two generators' whole state (the frame too when @p fa / @p fb). */
static void
gen_same(const struct aifab_pfc_gen *a, const struct aifab_pfc_gen *b)
{
	assert_memory_equal(a->bytes, b->bytes, sizeof(a->bytes));
	assert_memory_equal(a->headroom, b->headroom, sizeof(a->headroom));
	assert_memory_equal(a->next_refresh, b->next_refresh,
			    sizeof(a->next_refresh));
	assert_int_equal(a->want, b->want);
	assert_int_equal(a->told, b->told);
	assert_memory_equal(&a->stats, &b->stats, sizeof(a->stats));
}

/*
 * What the switch's egress does with a run of packets leaving one queue
 * from one ingress port (pipelines/switch_priv.h sw_release_run()): the
 * first released alone, the rest as one aifab_pfc_gen_sub() with the
 * buffer's free bytes after all of them. It must end where releasing
 * them one by one (free growing by each packet's cells) ends: bytes,
 * headroom and the XOFF wish, whatever the thresholds (dynamic alpha 1,
 * XON an offset; static, XON absolute), including runs that start above
 * XOFF without the wish (the buffer filled since the last add). And
 * aifab_pfc_gen_poll_inline() must act as aifab_pfc_gen_poll() (it skips
 * the call when nothing is buffered, wished for or told).
 */
static void
test_gen_release_run_and_inline_poll(void **state)
{
	const uint64_t size = 200000;
	struct aifab_pfc_gen_params p = { .speed_mbps = 100000,
					  .tsc_hz = NS_HZ };
	struct aifab_pfc_gen_config cfg;
	struct aifab_pfc_gen a, b;
	struct aifab_pfc_frame fa, fb;
	struct aifab_rng r;
	uint64_t used = 0, now = 0, ran = 0, cross = 0;
	unsigned int ep, i;

	(void)state;
	p.prio[3] = (struct aifab_pfc_gen_prio_params){ .enabled = true,
		.xoff_mode = AIFAB_PFC_XOFF_DYNAMIC, .alpha_log2 = -2,
		.xon_mode = AIFAB_PFC_XON_OFFSET, .xon_bytes = 3000,
		.headroom_bytes = 20000 };
	p.prio[5] = (struct aifab_pfc_gen_prio_params){ .enabled = true,
		.xoff_mode = AIFAB_PFC_XOFF_STATIC, .xoff_bytes = 30000,
		.xon_mode = AIFAB_PFC_XON_ABS, .xon_bytes = 20000,
		.headroom_bytes = 20000 };
	gen_setup(&cfg, &a, &p);
	gen_setup(&cfg, &b, &p);
	aifab_rng_seed(&r, 7, 0);
	for (ep = 0; ep < 20000; ep++) {
		unsigned int prio = aifab_rng_below(&r, 2) ? 3 : 5;
		unsigned int n = 1 + aifab_rng_below(&r, 12);
		uint32_t len[12], sum = 0;

		now += 1 + aifab_rng_below(&r, 20000);
		if (aifab_rng_below(&r, 2)) {
			/* arrivals (both alike), the buffer filling */
			for (i = 0; i < n; i++) {
				uint32_t l = 60 + aifab_rng_below(&r, 9000);

				if (used + l > size)
					break;
				if (aifab_pfc_gen_add(&a, prio, l, size - used) !=
				    AIFAB_PFC_DROP) {
					used += l;
					aifab_pfc_gen_add(&b, prio, l,
						size - (used - l));
				} else {
					aifab_pfc_gen_add(&b, prio, l,
							  size - used);
				}
			}
		} else {
			/* a run leaving: the buffer also holds others' */
			for (i = 0; i < n; i++) {
				len[i] = 60 + aifab_rng_below(&r, 9000);
				sum += len[i];
			}
			if (sum > a.bytes[prio])
				continue;
			used = RTE_MAX(used, (uint64_t)sum);
			if (aifab_rng_below(&r, 4) == 0)
				used = sum + aifab_rng_below(&r,
					(uint32_t)(size - sum));
			if (!(a.want & (1u << prio)) && a.bytes[prio] >=
			    (size - used + len[0]) / 4)
				cross++;
			used -= len[0];
			aifab_pfc_gen_sub(&a, prio, len[0], size - used);
			aifab_pfc_gen_sub(&b, prio, len[0], size - used);
			for (i = 1; i < n; i++) {
				used -= len[i];
				aifab_pfc_gen_sub(&a, prio, len[i],
						  size - used);
			}
			if (n > 1) {
				aifab_pfc_gen_sub(&b, prio, sum - len[0],
						  size - used);
				ran++;
			}
			gen_same(&a, &b);
		}
		if (aifab_rng_below(&r, 3) == 0) {
			bool sa = aifab_pfc_gen_poll(&a, size - used, now, &fa);
			bool sb = aifab_pfc_gen_poll_inline(&b, size - used,
							    now, &fb);

			assert_int_equal(sa, sb);
			if (sa)
				assert_memory_equal(&fa, &fb, sizeof(fa));
		}
		gen_same(&a, &b);
	}
	/* the cases meant: runs, and runs starting above XOFF unwished */
	assert_true(ran > 1000);
	assert_true(cross > 0);
}

/*
 * aifab_pfc_gen_add_plain(): for a run of adds (the switch's burst: any
 * mix of priorities, the free buffer falling by each one's cells, from
 * free_max down to no less than free_min), a priority it calls plain
 * must take each add as a plain bytes += len: the run through
 * aifab_pfc_gen_add() (which must admit every one of them) and the run
 * as plain adds end in the same state. Thresholds: dynamic num/den
 * (0.3), dynamic 2^-2, static; a disabled priority. Each run mostly of
 * one priority whose bytes are set to end the run a few KB either side
 * of its XOFF threshold at free_min, with XOFF wished for or not.
 */
static void
test_gen_add_plain(void **state)
{
	const uint64_t size = 400000;
	struct aifab_pfc_gen_params p = { .speed_mbps = 100000,
					  .tsc_hz = NS_HZ };
	struct aifab_pfc_gen_config cfg;
	struct aifab_pfc_gen a, b;
	struct aifab_rng r;
	static const unsigned int prios[] = { 0, 3, 5, 6 };
	uint64_t plain_runs = 0, not_plain = 0, crossed = 0;
	unsigned int ep, i;

	(void)state;
	p.prio[3] = (struct aifab_pfc_gen_prio_params){ .enabled = true,
		.xoff_mode = AIFAB_PFC_XOFF_DYNAMIC, .alpha_num = 300,
		.alpha_den = 1000, .xon_mode = AIFAB_PFC_XON_OFFSET,
		.xon_bytes = 3000, .headroom_bytes = 30000 };
	p.prio[5] = (struct aifab_pfc_gen_prio_params){ .enabled = true,
		.xoff_mode = AIFAB_PFC_XOFF_STATIC, .xoff_bytes = 30000,
		.xon_mode = AIFAB_PFC_XON_ABS, .xon_bytes = 20000,
		.headroom_bytes = 30000 };
	p.prio[6] = (struct aifab_pfc_gen_prio_params){ .enabled = true,
		.xoff_mode = AIFAB_PFC_XOFF_DYNAMIC, .alpha_log2 = -2,
		.xon_mode = AIFAB_PFC_XON_OFFSET, .xon_bytes = 3000,
		.headroom_bytes = 30000 };
	gen_setup(&cfg, &a, &p);
	aifab_rng_seed(&r, 11, 0);
	for (ep = 0; ep < 40000; ep++) {
		unsigned int n = 1 + aifab_rng_below(&r, 16);
		unsigned int main_p = prios[1 + aifab_rng_below(&r, 3)];
		unsigned int pr[16];
		uint32_t len[16], cells[16];
		uint64_t bytes = 0, cell_sum = 0, free_max, free_min, fr, x;
		uint8_t mask = 0, plain;
		int64_t start;

		for (i = 0; i < n; i++) {
			pr[i] = aifab_rng_below(&r, 4) ? main_p :
				prios[aifab_rng_below(&r, RTE_DIM(prios))];
			len[i] = 60 + aifab_rng_below(&r, 4100);
			cells[i] = RTE_ALIGN_CEIL(len[i], 256u);
			bytes += len[i];
			cell_sum += cells[i];
			mask |= (uint8_t)(1u << pr[i]);
		}
		free_max = cell_sum + aifab_rng_below(&r,
			(uint32_t)(size - cell_sum) + 1);
		free_min = free_max - cell_sum;
		/* the main priority ends the run near XOFF at free_min (or
		 * exactly on it), the others anywhere below */
		x = aifab_pfc_xoff_at(&cfg.prio[main_p], free_min);
		start = (int64_t)x - (int64_t)bytes +
			(aifab_rng_below(&r, 8) ? (int64_t)aifab_rng_below(&r,
				8001) - 4000 : 0);
		for (i = 0; i < RTE_DIM(prios); i++) {
			a.bytes[prios[i]] = aifab_rng_below(&r, 20000);
			a.headroom[prios[i]] = 0;
		}
		a.bytes[main_p] = start > 0 ? (uint64_t)start : 0;
		a.want = aifab_rng_below(&r, 4) ? 0 : (uint8_t)(1u << main_p);
		memcpy(&b, &a, sizeof(b));
		plain = aifab_pfc_gen_add_plain(&a, mask, bytes, free_min,
						free_max);
		assert_int_equal(plain & ~mask, 0);
		assert_int_equal(plain & 1, mask & 1); /* not enabled */
		plain_runs += (plain >> main_p) & 1;
		not_plain += !((plain >> main_p) & 1);
		fr = free_max;
		for (i = 0; i < n; i++) {
			enum aifab_pfc_verdict v = aifab_pfc_gen_add(&a, pr[i],
				len[i], fr);

			if (plain & (1u << pr[i])) {
				assert_int_equal(v, AIFAB_PFC_ADMIT);
				b.bytes[pr[i]] += len[i];
			} else {
				assert_int_equal(aifab_pfc_gen_add(&b, pr[i],
					len[i], fr), v);
			}
			if (v != AIFAB_PFC_DROP)
				fr -= cells[i];
		}
		crossed += (a.want >> main_p) & 1;
		gen_same(&a, &b);
	}
	/* both answers, and runs that did reach XOFF, many times */
	assert_true(plain_runs > 5000);
	assert_true(not_plain > 5000);
	assert_true(crossed > 5000);
	/* on the threshold: a run that ends exactly at XOFF wishes XOFF */
	memset(a.bytes, 0, sizeof(a.bytes));
	a.want = 0;
	a.bytes[5] = 30000 - 1000;
	assert_int_equal(aifab_pfc_gen_add_plain(&a, 1u << 5, 1000, 0, 0), 0);
	assert_int_equal(aifab_pfc_gen_add_plain(&a, 1u << 5, 999, 0, 0),
			 1u << 5);
}

/* aifab_pfc_wd_poll_inline() acts as aifab_pfc_wd_poll(), pauses on and
 * off, storms detected and restored. */
static void
test_wd_poll_inline(void **state)
{
	struct aifab_pfc_wd_params wp = { .tsc_hz = NS_HZ };
	struct aifab_pfc_wd_config wc;
	struct aifab_pfc_wd a, b;
	struct aifab_pfc_wd_events ea, eb;
	struct aifab_rng r;
	uint64_t t = 0;
	unsigned int i, storms = 0, restores = 0;

	(void)state;
	wp.prio[3] = (struct aifab_pfc_wd_prio_params){ .enabled = true,
		.detection_ms = 100, .restoration_ms = 100 };
	wp.prio[6] = (struct aifab_pfc_wd_prio_params){ .enabled = true,
		.detection_ms = 100, .restoration_ms = 200 };
	assert_int_equal(aifab_pfc_wd_config_init(&wc, &wp), 0);
	aifab_pfc_wd_init(&a, &wc);
	aifab_pfc_wd_init(&b, &wc);
	aifab_rng_seed(&r, 9, 0);
	for (i = 0; i < 20000; i++) {
		/* long paused stretches (storms) and quiet ones */
		static const uint8_t stretch[4] = { 0, 0x08, 0, 0x48 };
		uint8_t paused = stretch[(i / 500) % 4];

		t += aifab_rng_below(&r, 2 * MS);
		if (paused != 0 && aifab_rng_below(&r, 2)) {
			unsigned int prio = paused & 0x08 ? 3 : 6;

			aifab_pfc_wd_feed(&a, prio, t);
			aifab_pfc_wd_feed(&b, prio, t);
		}
		assert_int_equal(aifab_pfc_wd_poll(&a, t, paused, &ea),
				 aifab_pfc_wd_poll_inline(&b, t, paused, &eb));
		assert_memory_equal(&ea, &eb, sizeof(ea));
		assert_memory_equal(&a, &b, sizeof(a));
		storms += ea.stormed != 0;
		restores += ea.restored != 0;
	}
	assert_true(storms > 0 && restores > 0);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_gen_hysteresis_exact_thresholds),
		cmocka_unit_test(test_gen_dynamic_threshold),
		cmocka_unit_test(test_gen_headroom),
		cmocka_unit_test(test_gen_spill),
		cmocka_unit_test(test_gen_refresh_cadence),
		cmocka_unit_test(test_gen_one_frame_many_prios),
		cmocka_unit_test(test_gen_frame_on_the_wire),
		cmocka_unit_test(test_headroom_sizing),
		cmocka_unit_test(test_rx_expiry_exact),
		cmocka_unit_test(test_rx_xon_replace_disabled),
		cmocka_unit_test(test_rx_paused_ns_overlaps),
		cmocka_unit_test(test_rx_random_vs_reference),
		cmocka_unit_test(test_wd_storm_detect_restore_actions),
		cmocka_unit_test(test_wd_exact_times_and_gaps),
		cmocka_unit_test(test_config_validation),
		cmocka_unit_test(test_counter_names),
		cmocka_unit_test(test_share_xon_when_last_shard_falls),
		cmocka_unit_test(test_share_refresh_once_per_interval),
		cmocka_unit_test(test_share_rx_pause_seen_by_all),
		cmocka_unit_test(test_share_wd_owner_fed),
		cmocka_unit_test(test_gen_release_run_and_inline_poll),
		cmocka_unit_test(test_gen_add_plain),
		cmocka_unit_test(test_wd_poll_inline),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
