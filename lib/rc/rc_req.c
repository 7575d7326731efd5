/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * RC requester: segmentation into PSNs, send window, cumulative ACK,
 * go-back-N on NAK and on the retransmit timeout, completion in post order.
 *
 * Memory: the header, then a ring of per-PSN slots (window rounded up to a
 * power of two) so a retransmission repeats exactly what was sent, then a
 * ring of posted messages (max_msgs rounded up to a power of two).
 * Message indexes are free-running uint32_t: reaped <= acked <= seg <= post.
 */
#include <errno.h>
#include <string.h>

#include <rte_common.h>

#include "aifab_rc.h"

struct aifab_rc_req_slot {
	uint32_t msg;    /* free-running message index */
	uint32_t offset;
	uint32_t len;
	uint8_t flags;   /* FIRST / LAST / ACK_REQ */
};

struct aifab_rc_req_msg {
	uint64_t cookie;
	uint32_t len;
	uint32_t last_psn; /* valid once the message is fully cut */
};

#define REQ_CNT_NAME(e, s) [AIFAB_RC_REQ_CNT_##e] = s,
static const char *const req_cnt_names[] = {
	AIFAB_RC_REQ_COUNTERS(REQ_CNT_NAME)
};
#undef REQ_CNT_NAME

const char *
aifab_rc_req_cnt_name(enum aifab_rc_req_cnt c)
{
	return (unsigned int)c < AIFAB_RC_REQ_CNT_MAX ?
		req_cnt_names[c] : "unknown";
}

static bool
params_ok(const struct aifab_rc_req_params *p)
{
	return p->init_psn <= AIFAB_RC_PSN_MASK && p->window >= 1 &&
	       p->window <= AIFAB_RC_MAX_WINDOW && p->max_msgs >= 1 &&
	       p->max_msgs <= AIFAB_RC_MAX_MSGS && p->mtu >= 256 &&
	       p->mtu <= 4096 && rte_is_power_of_2(p->mtu) &&
	       p->timeout_ns > 0 && p->timeout_ns <= AIFAB_RC_MAX_TIMEOUT_NS &&
	       p->tsc_hz > 0 && p->tsc_hz <= AIFAB_RC_MAX_TSC_HZ;
}

static size_t
slots_off(void)
{
	return RTE_ALIGN_CEIL(sizeof(struct aifab_rc_req), 8);
}

static size_t
msgs_off(const struct aifab_rc_req_params *p)
{
	return slots_off() + sizeof(struct aifab_rc_req_slot) *
		rte_align32pow2(p->window);
}

size_t
aifab_rc_req_memsize(const struct aifab_rc_req_params *p)
{
	if (!params_ok(p))
		return 0;
	return msgs_off(p) + sizeof(struct aifab_rc_req_msg) *
		rte_align32pow2(p->max_msgs);
}

/* ns to TSC without overflowing for any TSC below 18 GHz. */
static uint64_t
ns_to_tsc(uint64_t ns, uint64_t hz)
{
	const uint64_t ns_per_s = 1000000000u;

	return ns / ns_per_s * hz + ns % ns_per_s * hz / ns_per_s;
}

int
aifab_rc_req_init(struct aifab_rc_req *q, const struct aifab_rc_req_params *p)
{
	if (!params_ok(p))
		return -EINVAL;
	memset(q, 0, sizeof(*q));
	q->window = p->window;
	q->mtu = p->mtu;
	q->slot_mask = rte_align32pow2(p->window) - 1;
	q->msg_mask = rte_align32pow2(p->max_msgs) - 1;
	q->timeout_tsc = RTE_MAX(ns_to_tsc(p->timeout_ns, p->tsc_hz), 1u);
	q->una = p->init_psn;
	q->nxt = p->init_psn;
	q->max = p->init_psn;
	q->slots = (struct aifab_rc_req_slot *)
		((uint8_t *)q + slots_off());
	q->msgs = (struct aifab_rc_req_msg *)((uint8_t *)q + msgs_off(p));
	return 0;
}

int
aifab_rc_req_post(struct aifab_rc_req *q, uint64_t cookie, uint32_t len)
{
	struct aifab_rc_req_msg *m;

	if (q->msg_post - q->msg_reaped > q->msg_mask)
		return -ENOBUFS;
	m = &q->msgs[q->msg_post & q->msg_mask];
	m->cookie = cookie;
	m->len = len;
	m->last_psn = 0;
	q->msg_post++;
	q->cnt[AIFAB_RC_REQ_CNT_MSGS_POSTED]++;
	return 0;
}

/* Cut the next packet of message msg_seg into the slot of PSN max. */
static struct aifab_rc_req_slot *
cut_new(struct aifab_rc_req *q)
{
	struct aifab_rc_req_slot *s = &q->slots[q->max & q->slot_mask];
	struct aifab_rc_req_msg *m = &q->msgs[q->msg_seg & q->msg_mask];
	uint32_t left = m->len - q->seg_off;

	s->msg = q->msg_seg;
	s->offset = q->seg_off;
	s->len = RTE_MIN(left, q->mtu);
	s->flags = q->seg_off == 0 ? AIFAB_RC_F_FIRST : 0;
	q->seg_off += s->len;
	if (q->seg_off == m->len) {
		s->flags |= AIFAB_RC_F_LAST | AIFAB_RC_F_ACK_REQ;
		m->last_psn = q->max;
		q->msg_seg++;
		q->seg_off = 0;
	}
	q->max = aifab_rc_psn_add(q->max, 1);
	q->cnt[AIFAB_RC_REQ_CNT_TX_PACKETS]++;
	q->cnt[AIFAB_RC_REQ_CNT_TX_BYTES] += s->len;
	return s;
}

int
aifab_rc_req_next(struct aifab_rc_req *q, uint64_t now,
		  struct aifab_rc_pkt *pkt)
{
	const struct aifab_rc_req_slot *s;
	const struct aifab_rc_req_msg *m;
	uint8_t retx = 0;

	if (!aifab_rc_req_can_send(q))
		return -EAGAIN;
	if (q->nxt != q->max) {
		s = &q->slots[q->nxt & q->slot_mask];
		retx = AIFAB_RC_F_RETX;
		q->cnt[AIFAB_RC_REQ_CNT_RETX_PACKETS]++;
		q->cnt[AIFAB_RC_REQ_CNT_RETX_BYTES] += s->len;
	} else {
		s = cut_new(q);
	}
	m = &q->msgs[s->msg & q->msg_mask];
	pkt->cookie = m->cookie;
	pkt->psn = q->nxt;
	pkt->offset = s->offset;
	pkt->len = s->len;
	pkt->msg_len = m->len;
	pkt->flags = s->flags | retx;
	q->nxt = aifab_rc_psn_add(q->nxt, 1);
	if (!q->timer_on) {
		q->timer_on = true;
		q->timer_start = now;
	}
	return 0;
}

/* Everything before @p una is acknowledged (una within [q->una, max]). */
static unsigned int
advance(struct aifab_rc_req *q, uint32_t una, uint64_t now)
{
	unsigned int done = 0;

	q->una = una;
	if (aifab_rc_psn_diff(q->nxt, una) < 0)
		q->nxt = una;
	while (q->msg_acked != q->msg_seg &&
	       aifab_rc_psn_diff(q->msgs[q->msg_acked & q->msg_mask].last_psn,
				 una) < 0) {
		q->msg_acked++;
		done++;
	}
	q->cnt[AIFAB_RC_REQ_CNT_MSGS_COMPLETED] += done;
	q->timer_on = q->una != q->max;
	q->timer_start = now;
	return done;
}

unsigned int
aifab_rc_req_on_ack(struct aifab_rc_req *q, uint32_t psn, uint64_t now)
{
	uint32_t una = aifab_rc_psn_add(psn, 1);
	int32_t ahead = aifab_rc_psn_diff(una, q->una);

	if (ahead < 0 || aifab_rc_psn_diff(una, q->max) > 0) {
		q->cnt[AIFAB_RC_REQ_CNT_BAD_AETH]++;
		return 0;
	}
	q->cnt[AIFAB_RC_REQ_CNT_ACKS_RX]++;
	if (ahead == 0) {
		q->cnt[AIFAB_RC_REQ_CNT_DUP_ACKS]++;
		return 0;
	}
	return advance(q, una, now);
}

unsigned int
aifab_rc_req_on_nak(struct aifab_rc_req *q, uint32_t psn, uint64_t now)
{
	unsigned int done;

	if (aifab_rc_psn_diff(psn, q->una) < 0 ||
	    aifab_rc_psn_diff(psn, q->max) >= 0) {
		q->cnt[AIFAB_RC_REQ_CNT_BAD_AETH]++;
		return 0;
	}
	q->cnt[AIFAB_RC_REQ_CNT_NAKS_RX]++;
	done = advance(q, psn, now);
	q->nxt = psn;
	return done;
}

bool
aifab_rc_req_poll_timeout(struct aifab_rc_req *q, uint64_t now)
{
	if (!aifab_rc_req_timeout_due(q, now))
		return false;
	q->nxt = q->una;
	q->timer_start = now;
	q->cnt[AIFAB_RC_REQ_CNT_TIMEOUTS]++;
	return true;
}

unsigned int
aifab_rc_req_reap(struct aifab_rc_req *q, uint64_t *cookies, unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n && q->msg_reaped != q->msg_acked; i++)
		cookies[i] = q->msgs[q->msg_reaped++ & q->msg_mask].cookie;
	return i;
}
