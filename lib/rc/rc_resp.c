/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * RC responder: ePSN check, ACK coalescing, one NAK per gap, re-ACK of
 * duplicates, message completion.
 */
#include <errno.h>
#include <string.h>

#include "aifab_rc.h"

#define RESP_CNT_NAME(e, s) [AIFAB_RC_RESP_CNT_##e] = s,
static const char *const resp_cnt_names[] = {
	AIFAB_RC_RESP_COUNTERS(RESP_CNT_NAME)
};
#undef RESP_CNT_NAME

const char *
aifab_rc_resp_cnt_name(enum aifab_rc_resp_cnt c)
{
	return (unsigned int)c < AIFAB_RC_RESP_CNT_MAX ?
		resp_cnt_names[c] : "unknown";
}

int
aifab_rc_resp_init(struct aifab_rc_resp *r,
		   const struct aifab_rc_resp_params *p)
{
	if (p->init_psn > AIFAB_RC_PSN_MASK || p->ack_every == 0 ||
	    p->ack_every > AIFAB_RC_MAX_ACK_EVERY)
		return -EINVAL;
	memset(r, 0, sizeof(*r));
	r->epsn = p->init_psn;
	r->ack_every = p->ack_every;
	return 0;
}

/* Ask for an ACK of everything before ePSN. */
static void
reply_ack(struct aifab_rc_resp *r, struct aifab_rc_resp_action *act)
{
	act->reply = AIFAB_RC_REPLY_ACK;
	act->syndrome = AIFAB_RC_SYN_ACK;
	act->psn = aifab_rc_psn_add(r->epsn, -1);
	act->msn = r->msn;
	r->unacked = 0;
	r->cnt[AIFAB_RC_RESP_CNT_ACKS_TX]++;
}

static void
accept(struct aifab_rc_resp *r, uint32_t len, unsigned int flags,
       struct aifab_rc_resp_action *act)
{
	if (flags & AIFAB_RC_F_FIRST)
		r->msg_bytes = 0;
	r->msg_bytes += len;
	r->epsn = aifab_rc_psn_add(r->epsn, 1);
	r->nak_sent = false;
	r->unacked++;
	r->cnt[AIFAB_RC_RESP_CNT_RX_ACCEPTED]++;
	r->cnt[AIFAB_RC_RESP_CNT_RX_BYTES] += len;
	act->delivered_bytes = len;
	if (flags & AIFAB_RC_F_LAST) {
		r->msn = (r->msn + 1) & AIFAB_RC_PSN_MASK;
		r->cnt[AIFAB_RC_RESP_CNT_MSGS_COMPLETED]++;
		act->message_completed = true;
		act->message_bytes = r->msg_bytes;
		r->msg_bytes = 0;
	}
	if ((flags & AIFAB_RC_F_ACK_REQ) || r->unacked >= r->ack_every)
		reply_ack(r, act);
}

enum aifab_rc_reply
aifab_rc_resp_on_data(struct aifab_rc_resp *r, uint32_t psn, uint32_t len,
		      unsigned int flags, struct aifab_rc_resp_action *act)
{
	int32_t d = aifab_rc_psn_diff(psn, r->epsn);

	memset(act, 0, sizeof(*act));
	if (d == 0) {
		accept(r, len, flags, act);
	} else if (d < 0) {
		/* Duplicate: already delivered; tell the requester again. */
		r->cnt[AIFAB_RC_RESP_CNT_RX_DUP]++;
		reply_ack(r, act);
	} else {
		/* Gap: NAK once, then silence until ePSN comes. */
		r->cnt[AIFAB_RC_RESP_CNT_RX_OOS]++;
		if (!r->nak_sent) {
			r->nak_sent = true;
			act->reply = AIFAB_RC_REPLY_NAK;
			act->syndrome = AIFAB_RC_SYN_NAK_PSN_SEQ;
			act->psn = r->epsn;
			act->msn = r->msn;
			r->cnt[AIFAB_RC_RESP_CNT_NAKS_TX]++;
		}
	}
	return (enum aifab_rc_reply)act->reply;
}
