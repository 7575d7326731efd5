/* SPDX-License-Identifier: BSD-3-Clause */
/* lib/roce internals shared between its files. */
#ifndef ROCE_PRIV_H
#define ROCE_PRIV_H

#include "aifab_roce.h"

/** Fill the CRC operators for a packet of @p len payload bytes. O(len). */
void roce_tail_init(struct aifab_roce_tail *t,
		    const struct aifab_roce_payload *pl, uint32_t len);

/** Write the QP's header template and IPv4 sum from its cfg. */
void roce_tmpl_init(struct aifab_roce_qp *qp);

#endif /* ROCE_PRIV_H */
