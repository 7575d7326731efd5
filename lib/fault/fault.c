/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Seeded impairment stage: drop / CE-mark / corrupt matching frames by
 * index, by period or at a probability. See aifab_fault.h.
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

bool
aifab_fault_params_active(const struct aifab_fault_params *p)
{
	return p->drop_index || p->drop_every || p->drop_ppm || p->ce_index ||
	       p->ce_every || p->ce_ppm || p->corrupt_index ||
	       p->corrupt_every || p->corrupt_ppm;
}

int
aifab_fault_init(struct aifab_fault *f, const struct aifab_fault_params *p,
		 uint64_t stream)
{
	if (p->match >= AIFAB_FAULT_MATCH_MAX ||
	    p->drop_ppm > AIFAB_FAULT_PPM_MAX ||
	    p->ce_ppm > AIFAB_FAULT_PPM_MAX ||
	    p->corrupt_ppm > AIFAB_FAULT_PPM_MAX)
		return -EINVAL;
	memset(f, 0, sizeof(*f));
	f->p = *p;
	f->active = aifab_fault_params_active(p);
	aifab_rng_seed(&f->drop_rng, p->seed, 0xfa017000u + 2 * stream);
	aifab_rng_seed(&f->ce_rng, p->seed, 0xfa017000u + 2 * stream + 1);
	aifab_rng_seed(&f->corrupt_rng, p->seed, 0xc0bb0000u + stream);
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
	bool drop, ce, bad;

	f->cnt[AIFAB_FAULT_CNT_SEEN]++;
	if (!matched)
		return AIFAB_FAULT_PASS;
	n = ++f->cnt[AIFAB_FAULT_CNT_MATCHED];
	drop = hits(&f->drop_rng, n, p->drop_index, p->drop_every, p->drop_ppm);
	ce = hits(&f->ce_rng, n, p->ce_index, p->ce_every, p->ce_ppm);
	bad = hits(&f->corrupt_rng, n, p->corrupt_index, p->corrupt_every,
		   p->corrupt_ppm);
	if (drop) {
		f->cnt[AIFAB_FAULT_CNT_DROPPED]++;
		return AIFAB_FAULT_DROP;
	}
	return (enum aifab_fault_verdict)((ce ? AIFAB_FAULT_MARK_CE : 0) |
					  (bad ? AIFAB_FAULT_CORRUPT : 0));
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

/*
 * Bytes of [lo, hi) that segment @p s, at frame offset @p base, holds and
 * the frame may rewrite (a direct segment it owns alone); from *a on.
 */
static uint32_t
seg_span(const struct rte_mbuf *s, uint32_t base, uint32_t lo, uint32_t hi,
	 uint32_t *a)
{
	uint32_t b = RTE_MIN(hi, base + s->data_len);

	*a = RTE_MAX(lo, base);
	if (!RTE_MBUF_DIRECT(s) || rte_mbuf_refcnt_read(s) != 1 || b <= *a)
		return 0;
	return b - *a;
}

/*
 * Flip one bit of the payload of a RoCEv2 frame, drawn among the payload
 * bytes in writable segments (two walks: count, then find). False if
 * there is none.
 */
static bool
corrupt_one(struct aifab_fault *f, struct rte_mbuf *m,
	    const struct aifab_pkt_info *pi)
{
	struct rte_mbuf *s;
	uint32_t lo, hi, base, w = 0, pick, a, k;

	if (!(pi->flags & AIFAB_PKT_F_ROCE) ||
	    (pi->l3 != AIFAB_L3_IPV4 && pi->l3 != AIFAB_L3_IPV6))
		return false;
	lo = (uint32_t)pi->bth_off + AIFAB_BTH_LEN +
		aifab_bth_data_ext_len(pi->bth_opcode);
	hi = RTE_MIN((uint32_t)pi->l3_off + pi->ip_len, m->pkt_len);
	if (hi < lo + AIFAB_ICRC_LEN)
		return false;
	hi -= AIFAB_ICRC_LEN;
	for (s = m, base = 0; s != NULL; base += s->data_len, s = s->next)
		w += seg_span(s, base, lo, hi, &a);
	if (w == 0)
		return false;
	pick = (uint32_t)aifab_rng_below(&f->corrupt_rng, w * 8);
	for (s = m, base = 0; s != NULL; base += s->data_len, s = s->next) {
		k = seg_span(s, base, lo, hi, &a);
		if (pick / 8 < k) {
			rte_pktmbuf_mtod_offset(s, uint8_t *,
						a - base + pick / 8)[0] ^=
				(uint8_t)(1u << (pick % 8));
			return true;
		}
		pick -= k * 8;
	}
	return false;
}

/* Mark and / or corrupt a frame the stage let through. */
static void
apply(struct aifab_fault *f, struct rte_mbuf *m,
      const struct aifab_pkt_info *pi, bool parsed, unsigned int v)
{
	if (v & AIFAB_FAULT_MARK_CE) {
		if (parsed)
			mark_ce(f, m, pi);
		else
			f->cnt[AIFAB_FAULT_CNT_CE_NOT_ECT]++;
	}
	if (v & AIFAB_FAULT_CORRUPT)
		f->cnt[parsed && corrupt_one(f, m, pi) ?
		       AIFAB_FAULT_CNT_CORRUPTED :
		       AIFAB_FAULT_CNT_CORRUPT_SKIPPED]++;
}

uint16_t
aifab_fault_burst(struct aifab_fault *f, struct rte_mbuf **pkts, uint16_t n,
		  uint8_t *scratch)
{
	const struct aifab_fault_params *p = &f->p;
	struct aifab_pkt_info pi;
	uint16_t i, k = 0;

	for (i = 0; i < n; i++) {
		struct rte_mbuf *m = pkts[i];
		bool parsed = p->match != AIFAB_FAULT_MATCH_ALL ||
			p->ce_index || p->ce_every || p->ce_ppm ||
			p->corrupt_index || p->corrupt_every || p->corrupt_ppm;
		enum aifab_fault_verdict v;

		if (parsed)
			parsed = aifab_pkt_parse_mbuf(m, &pi, scratch, false) ==
				AIFAB_PKT_ERR_OK;
		v = aifab_fault_judge(f, frame_matches(f, &pi, parsed));
		if (v == AIFAB_FAULT_DROP) {
			rte_pktmbuf_free(m);
			continue;
		}
		apply(f, m, &pi, parsed, v);
		pkts[k++] = m;
	}
	return k;
}
