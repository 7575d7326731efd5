/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * QP send side and the packetizer: a message becomes RDMA WRITE
 * first / middle... / last packets of the IB MTU, or one WRITE only.
 */
#include <errno.h>
#include <string.h>

#include <rte_common.h>

#include "roce_priv.h"

#define ROCE_DEFAULT_TTL 64

static bool
qp_params_ok(const struct aifab_roce_qp_params *p,
	     const struct aifab_roce_payload *pl)
{
	if (p->mtu < AIFAB_ROCE_MTU_MIN || p->mtu > AIFAB_ROCE_MTU_MAX ||
	    !rte_is_power_of_2(p->mtu))
		return false;
	if ((p->qpn | p->dqpn | p->start_psn) & ~AIFAB_ROCE_QPN_MASK)
		return false;
	if (p->dscp > 63 || p->ecn > 3)
		return false;
	return pl == NULL || pl->len >= p->mtu;
}

int
aifab_roce_qp_init(struct aifab_roce_qp *qp,
		   const struct aifab_roce_qp_params *p,
		   struct aifab_roce_payload *pl)
{
	if (!qp_params_ok(p, pl))
		return -EINVAL;
	memset(qp, 0, sizeof(*qp));
	qp->cfg = *p;
	if (qp->cfg.sport == 0)
		qp->cfg.sport = aifab_roce_sport(p->qpn, p->dqpn);
	if (qp->cfg.ttl == 0)
		qp->cfg.ttl = ROCE_DEFAULT_TTL;
	qp->psn = p->start_psn;
	qp->pl = pl;
	qp->full.len = UINT32_MAX;
	qp->last.len = UINT32_MAX;
	qp->mid_key = UINT64_MAX;
	qp->mid_ts_crc = 0; /* a stamp of 0 adds nothing */
	qp->mid_hi = UINT64_MAX;
	if (pl != NULL)
		roce_tail_init(&qp->full, pl, p->mtu);
	roce_tmpl_init(qp);
	return 0;
}

bool
aifab_roce_seg_next(struct aifab_roce_qp *qp, struct aifab_roce_seg *seg)
{
	return aifab_roce_seg_next_inline(qp, seg);
}

int
aifab_roce_msg_post(struct aifab_roce_qp *qp, uint64_t len, uint64_t va_off,
		    uint32_t id)
{
	uint32_t last;

	if (qp->msg.active)
		return -EBUSY;
	if (len > AIFAB_ROCE_MSG_MAX)
		return -EINVAL;
	qp->msg = (struct aifab_roce_msg){
		.len = len, .sent = 0, .va = qp->cfg.remote_va + va_off,
		.id = id, .active = true,
	};
	last = len == 0 ? 0 : (uint32_t)((len - 1) % qp->cfg.mtu + 1);
	if (qp->pl != NULL && last != qp->full.len && last != qp->last.len)
		roce_tail_init(&qp->last, qp->pl, last);
	return 0;
}
