/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Seeded impairment stage: drop / CE-mark matching frames by index, by
 * period or at a probability. See aifab_fault.h.
 */
#include <errno.h>
#include <string.h>

#include <rte_byteorder.h>
#include <rte_ip.h>
#include <rte_mbuf.h>

#include "aifab_fault.h"
#include "aifab_pkt.h"

#define FAULT_NAME(e, s) [AIFAB_FAULT_CNT_##e] = s,
static const char *const cnt_names[] = { AIFAB_FAULT_COUNTERS(FAULT_NAME) };
#undef FAULT_NAME

static const char *const match_names[] = { "data", "roce", "all" };

const char *
aifab_fault_cnt_name(enum aifab_fault_cnt c)
{
	return (unsigned int)c < AIFAB_FAULT_CNT_MAX ? cnt_names[c] : "unknown";
}

const char *
aifab_fault_match_name(enum aifab_fault_match m)
{
	return (unsigned int)m < AIFAB_FAULT_MATCH_MAX ? match_names[m] : NULL;
}

int
aifab_fault_init(struct aifab_fault *f, const struct aifab_fault_params *p,
		 uint64_t stream)
{
	if (p->match >= AIFAB_FAULT_MATCH_MAX ||
	    p->drop_ppm > AIFAB_FAULT_PPM_MAX || p->ce_ppm > AIFAB_FAULT_PPM_MAX)
		return -EINVAL;
	memset(f, 0, sizeof(*f));
	f->p = *p;
	f->active = p->drop_index || p->drop_every || p->drop_ppm ||
		p->ce_index || p->ce_every || p->ce_ppm;
	aifab_rng_seed(&f->drop_rng, p->seed, 0xfa017000u + 2 * stream);
	aifab_rng_seed(&f->ce_rng, p->seed, 0xfa017000u + 2 * stream + 1);
	return 0;
}

static bool
hits(struct aifab_rng *rng, uint64_t n, uint64_t index, uint32_t every,
     uint32_t ppm)
{
	bool hit = n == index || (every != 0 && n % every == 0);

	/* Draw whenever a probability is set, so the sequence of draws does
	 * not depend on the other rules. */
	if (ppm != 0 && aifab_rng_below(rng, AIFAB_FAULT_PPM_MAX) < ppm)
		hit = true;
	return hit;
}

enum aifab_fault_verdict
aifab_fault_judge(struct aifab_fault *f, bool matched)
{
	const struct aifab_fault_params *p = &f->p;
	uint64_t n;
	bool drop, ce;

	f->cnt[AIFAB_FAULT_CNT_SEEN]++;
	if (!matched)
		return AIFAB_FAULT_PASS;
	n = ++f->cnt[AIFAB_FAULT_CNT_MATCHED];
	drop = hits(&f->drop_rng, n, p->drop_index, p->drop_every, p->drop_ppm);
	ce = hits(&f->ce_rng, n, p->ce_index, p->ce_every, p->ce_ppm);
	if (drop) {
		f->cnt[AIFAB_FAULT_CNT_DROPPED]++;
		return AIFAB_FAULT_DROP;
	}
	return ce ? AIFAB_FAULT_MARK_CE : AIFAB_FAULT_PASS;
}

static bool
frame_matches(const struct aifab_fault *f, const struct aifab_pkt_info *pi,
	      bool parsed)
{
	switch (f->p.match) {
	case AIFAB_FAULT_MATCH_ALL:
		return true;
	case AIFAB_FAULT_MATCH_ROCE:
		return parsed && (pi->flags & AIFAB_PKT_F_ROCE);
	default:
		/* SEND / RDMA WRITE first..only (with or without immediate) */
		return parsed && (pi->flags & AIFAB_PKT_F_ROCE) &&
		       pi->bth_opcode <= AIFAB_BTH_OP_WRITE_ONLY_IMM;
	}
}

/* Set CE on an ECT frame whose IP header is in the first segment. */
static void
mark_ce(struct aifab_fault *f, struct rte_mbuf *m,
	const struct aifab_pkt_info *pi)
{
	uint8_t *l3;

	if ((pi->tos & 3) == 0 ||
	    (uint32_t)pi->l3_off + (pi->l3 == AIFAB_L3_IPV4 ? 20 : 40) >
	    m->data_len || (pi->l3 != AIFAB_L3_IPV4 && pi->l3 != AIFAB_L3_IPV6)) {
		f->cnt[AIFAB_FAULT_CNT_CE_NOT_ECT]++;
		return;
	}
	if ((pi->tos & 3) == 3) {
		f->cnt[AIFAB_FAULT_CNT_CE_ALREADY]++;
		return;
	}
	l3 = rte_pktmbuf_mtod_offset(m, uint8_t *, pi->l3_off);
	if (pi->l3 == AIFAB_L3_IPV4) {
		aifab_ipv4_set_tos((struct rte_ipv4_hdr *)l3, pi->tos | 3);
	} else {
		/* version(4) | traffic class(8) | flow label(20): ECN is the
		 * low two bits of the TC, bits 4-5 of the second byte. */
		l3[1] |= 0x30;
	}
	f->cnt[AIFAB_FAULT_CNT_CE_MARKED]++;
}

uint16_t
aifab_fault_burst(struct aifab_fault *f, struct rte_mbuf **pkts, uint16_t n,
		  uint8_t *scratch)
{
	struct aifab_pkt_info pi;
	uint16_t i, k = 0;

	for (i = 0; i < n; i++) {
		struct rte_mbuf *m = pkts[i];
		bool parsed = f->p.match != AIFAB_FAULT_MATCH_ALL ||
			f->p.ce_index || f->p.ce_every || f->p.ce_ppm;
		enum aifab_fault_verdict v;

		if (parsed)
			parsed = aifab_pkt_parse_mbuf(m, &pi, scratch, false) ==
				AIFAB_PKT_ERR_OK;
		v = aifab_fault_judge(f, frame_matches(f, &pi, parsed));
		if (v == AIFAB_FAULT_DROP) {
			rte_pktmbuf_free(m);
			continue;
		}
		if (v == AIFAB_FAULT_MARK_CE) {
			if (parsed)
				mark_ce(f, m, &pi);
			else
				f->cnt[AIFAB_FAULT_CNT_CE_NOT_ECT]++;
		}
		pkts[k++] = m;
	}
	return k;
}
