/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * ECN ramp compilation and applying CE to a header (RFC 3168).
 */
#include <errno.h>

#include <rte_ip.h>

#include "aifab_pkt.h"
#include "aifab_qos.h"

#define TWO_POW_32 4294967296.0

int
aifab_qos_ecn_config(struct aifab_qos_ecn_cfg *cfg,
		     const struct aifab_qos_ecn_params *p, const char **why)
{
	double thr;

	*cfg = (struct aifab_qos_ecn_cfg){ .enabled = p->enabled,
					   .lossless = p->lossless };
	if (!p->enabled)
		return 0;
	if (p->kmin_bytes > p->kmax_bytes) {
		*why = "ECN kmin must be <= kmax";
		return -EINVAL;
	}
	/* Written so that NaN fails too. */
	if (!(p->pmax_percent >= 0.0 && p->pmax_percent <= 100.0)) {
		*why = "ECN pmax must be 0..100 percent";
		return -EINVAL;
	}
	thr = p->pmax_percent / 100.0 * TWO_POW_32 + 0.5;
	cfg->pmax_thr = thr >= (double)UINT32_MAX ? UINT32_MAX :
		(uint32_t)thr;
	cfg->kmin = p->kmin_bytes;
	cfg->kmax = p->kmax_bytes;
	return 0;
}

/* ECN bits of an IPv6 header sit in bits 4-5 of its second byte. */
#define IP6_ECN_SHIFT 4

bool
aifab_qos_ecn_set_ce(void *l3)
{
	uint8_t *h = l3;
	uint8_t ecn;

	switch (h[0] >> 4) {
	case 4:
		ecn = h[1] & 3;
		if (ecn == AIFAB_QOS_NOT_ECT || ecn == AIFAB_QOS_CE)
			return false;
		aifab_ipv4_set_tos(l3, (uint8_t)(h[1] | AIFAB_QOS_CE));
		return true;
	case 6:
		ecn = (h[1] >> IP6_ECN_SHIFT) & 3;
		if (ecn == AIFAB_QOS_NOT_ECT || ecn == AIFAB_QOS_CE)
			return false;
		h[1] |= AIFAB_QOS_CE << IP6_ECN_SHIFT;
		return true;
	default:
		return false;
	}
}
