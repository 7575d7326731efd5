/* SPDX-License-Identifier: BSD-3-Clause */
/* PFC headroom sizing and counter names. */
#include <stddef.h>

#include "aifab_pfc.h"

#define CNT_NAME(e, s) s,
static const char *const cnt_names[] = { AIFAB_PFC_COUNTERS(CNT_NAME) };
#undef CNT_NAME

const char *
aifab_pfc_cnt_name(enum aifab_pfc_cnt c)
{
	return (unsigned int)c < AIFAB_PFC_CNT_MAX ? cnt_names[c] : NULL;
}

void
aifab_pfc_stats_add(struct aifab_pfc_stats *sum,
		    const struct aifab_pfc_stats *s)
{
	unsigned int c, i;

	for (c = 0; c < AIFAB_PFC_CNT_MAX; c++)
		for (i = 0; i < AIFAB_PFC_NUM_PRIO; i++)
			sum->v[c][i] += s->v[c][i];
}

/* IEEE 802.3 Table 31B-1 response times, as PROTOCOLS.md lists them. */
static const struct {
	uint32_t mbps;
	uint32_t quanta;
} response[] = {
	{ 10000, 67 }, { 25000, 80 }, { 100000, 394 }, { 400000, 905 },
};

#define N_RESPONSE (sizeof(response) / sizeof(response[0]))

static uint64_t
div_up(uint64_t a, uint64_t b)
{
	return (a + b - 1) / b;
}

uint32_t
aifab_pfc_response_quanta(uint32_t speed_mbps)
{
	unsigned int i;

	if (speed_mbps <= response[0].mbps)
		return response[0].quanta;
	for (i = 1; i < N_RESPONSE; i++) {
		uint32_t s0 = response[i - 1].mbps, s1 = response[i].mbps;
		uint32_t q0 = response[i - 1].quanta, q1 = response[i].quanta;

		if (speed_mbps <= s1)
			return q0 + (uint32_t)div_up(
				(uint64_t)(speed_mbps - s0) * (q1 - q0),
				s1 - s0);
	}
	return (uint32_t)div_up((uint64_t)response[N_RESPONSE - 1].quanta *
				speed_mbps, response[N_RESPONSE - 1].mbps);
}

uint64_t
aifab_pfc_headroom_bytes(uint32_t speed_mbps, uint32_t cable_m, uint32_t mtu)
{
	/*
	 * Cable, both ways: 2 * L * speed_mbps * 10^6 / (2 * 10^8 * 8) bytes
	 * = L * speed_mbps / 800, rounded up.
	 */
	uint64_t cable = div_up((uint64_t)cable_m * speed_mbps, 800);
	uint64_t resp = (uint64_t)aifab_pfc_response_quanta(speed_mbps) *
		(AIFAB_PFC_QUANTUM_BITS / 8);

	return 2 * (uint64_t)mtu + cable + resp;
}

bool
aifab_pfc_headroom_short(uint64_t configured, uint32_t speed_mbps,
			 uint32_t cable_m, uint32_t mtu)
{
	return configured < aifab_pfc_headroom_bytes(speed_mbps, cable_m, mtu);
}
