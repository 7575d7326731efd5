/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * One direction of an impaired link: down window, loss/CE (lib/fault),
 * a FIFO delay line with jitter and a rate limit, and a PFC storm clock.
 */
#include <errno.h>
#include <string.h>

#include <rte_common.h>
#include <rte_malloc.h>
#include <rte_mbuf.h>

#include "aifab_link.h"

#define LINK_QUEUE_DEFAULT 8192u
#define LINK_QUEUE_MAX (1u << 20)
#define LINK_STORM_REFRESH_NS 100000u
/* Wire bytes beyond the frame: FCS, preamble + SFD, inter-frame gap. */
#define LINK_WIRE_OVERHEAD 24u

#define LINK_CNT_NAME(e, s) [AIFAB_LINK_CNT_##e] = s,
static const char *const cnt_names[] = { AIFAB_LINK_COUNTERS(LINK_CNT_NAME) };
#undef LINK_CNT_NAME

const char *
aifab_link_cnt_name(enum aifab_link_cnt c)
{
	return (unsigned int)c < RTE_DIM(cnt_names) ? cnt_names[c] : "unknown";
}

bool
aifab_link_params_active(const struct aifab_link_params *p)
{
	return aifab_fault_params_active(&p->loss) || p->delay_ns || p->jitter_ns ||
	       p->rate_mbps || p->down_for_ns || p->storm_prio;
}

int
aifab_link_init(struct aifab_link *l, const struct aifab_link_params *p,
		uint64_t stream, int socket)
{
	uint32_t q = p->queue ? p->queue : LINK_QUEUE_DEFAULT;

	memset(l, 0, sizeof(*l));
	if (q > LINK_QUEUE_MAX || aifab_fault_init(&l->loss, &p->loss, stream))
		return -EINVAL;
	l->p = *p;
	if (l->p.storm_refresh_ns == 0)
		l->p.storm_refresh_ns = LINK_STORM_REFRESH_NS;
	aifab_rng_seed(&l->jitter_rng, p->loss.seed, 0x11a4000u + stream);
	l->delaying = p->delay_ns || p->jitter_ns || p->rate_mbps;
	if (!l->delaying)
		return 0;
	q = rte_align32pow2(q);
	l->ring = rte_zmalloc_socket("aifab_link", sizeof(*l->ring) * q,
				     RTE_CACHE_LINE_SIZE, socket);
	if (l->ring == NULL)
		return -ENOMEM;
	l->mask = q - 1;
	return 0;
}

void
aifab_link_fini(struct aifab_link *l)
{
	while (l->head != l->tail)
		rte_pktmbuf_free(l->ring[l->head++ & l->mask].m);
	rte_free(l->ring);
	l->ring = NULL;
}

/* ns since the origin; the first call sets the origin. */
static uint64_t
rel(struct aifab_link *l, uint64_t now)
{
	if (!l->started) {
		l->started = true;
		l->origin = now;
		l->storm_next = l->p.storm_at_ns;
	}
	return now - l->origin;
}

static bool
in_window(uint64_t t, uint64_t from, uint64_t len_or_until, bool is_len)
{
	uint64_t end = is_len ? from + len_or_until : len_or_until;

	return t >= from && (len_or_until == 0 || t < end);
}

bool
aifab_link_down(struct aifab_link *l, uint64_t now)
{
	uint64_t t = rel(l, now);

	return l->p.down_for_ns != 0 &&
	       in_window(t, l->p.down_at_ns, l->p.down_for_ns, true);
}

/* Departure time of a frame of @p len entering at @p t (relative ns). */
static uint64_t
depart(struct aifab_link *l, uint64_t t, uint32_t len)
{
	uint64_t d = t + l->p.delay_ns;

	if (l->p.jitter_ns != 0)
		d += aifab_rng_u64(&l->jitter_rng) % (l->p.jitter_ns + 1);
	if (l->p.rate_mbps != 0) {
		/* bits / (Mb/s) = us: x1000 for ns */
		uint64_t wire = (uint64_t)(len + LINK_WIRE_OVERHEAD) * 8000 /
			l->p.rate_mbps;

		d = RTE_MAX(d, l->last_out + wire);
	}
	d = RTE_MAX(d, l->last_out); /* FIFO: jitter never reorders */
	l->last_out = d;
	return d;
}

uint16_t
aifab_link_in(struct aifab_link *l, struct rte_mbuf **pkts, uint16_t n,
	      uint64_t now, uint8_t *scratch)
{
	uint64_t t = rel(l, now);
	bool on = in_window(t, l->p.from_ns, l->p.until_ns, false);
	uint16_t i;

	if (n == 0)
		return 0;
	if (aifab_link_down(l, now)) {
		for (i = 0; i < n; i++)
			rte_pktmbuf_free(pkts[i]);
		l->cnt[AIFAB_LINK_CNT_DOWN_DROPPED] += n;
		return 0;
	}
	if (on && aifab_fault_active(&l->loss))
		n = aifab_fault_burst(&l->loss, pkts, n, scratch);
	if (!l->delaying)
		return n;
	for (i = 0; i < n; i++) {
		struct aifab_link_slot *s;

		if (aifab_link_held(l) > l->mask) {
			rte_pktmbuf_free(pkts[i]);
			l->cnt[AIFAB_LINK_CNT_QUEUE_DROPPED]++;
			continue;
		}
		s = &l->ring[l->tail++ & l->mask];
		s->m = pkts[i];
		/* Outside the window frames pass as soon as those ahead of
		 * them have left (FIFO), at no extra delay. */
		s->t = on ? depart(l, t, pkts[i]->pkt_len) :
			(l->last_out = RTE_MAX(l->last_out, t));
		if (on)
			l->cnt[AIFAB_LINK_CNT_DELAYED]++;
	}
	return 0;
}

uint16_t
aifab_link_out(struct aifab_link *l, struct rte_mbuf **pkts, uint16_t max,
	       uint64_t now)
{
	uint64_t t;
	uint16_t n = 0;

	if (l->head == l->tail)
		return 0;
	t = rel(l, now);
	while (n < max && l->head != l->tail &&
	       l->ring[l->head & l->mask].t <= t)
		pkts[n++] = l->ring[l->head++ & l->mask].m;
	return n;
}

bool
aifab_link_storm(struct aifab_link *l, uint64_t now, bool now_due,
		 uint8_t *prio)
{
	uint64_t t;

	if (l->p.storm_prio == 0)
		return false;
	t = rel(l, now);
	if ((t < l->storm_next && !now_due) ||
	    !in_window(t, l->p.storm_at_ns, l->p.storm_for_ns, true))
		return false;
	l->storm_next = t + l->p.storm_refresh_ns;
	l->cnt[AIFAB_LINK_CNT_STORM_FRAMES]++;
	*prio = l->p.storm_prio;
	return true;
}
