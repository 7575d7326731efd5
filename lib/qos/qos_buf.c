/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Set-up of the egress FIFOs and the shared buffer; their per-packet calls
 * are inline in aifab_qos.h.
 */
#include <errno.h>
#include <string.h>

#include "aifab_qos.h"

#define FIFO_MAX_CAP (1u << 24)
#define BUF_MAX_QUEUES (1u << 20)
#define ALPHA_MAX_DEN 65536u

size_t
aifab_qos_fifo_memsize(uint32_t capacity)
{
	if (capacity == 0 || capacity > FIFO_MAX_CAP ||
	    (capacity & (capacity - 1)) != 0)
		return 0;
	return sizeof(struct aifab_qos_fifo) +
		(size_t)capacity * sizeof(struct rte_mbuf *);
}

int
aifab_qos_fifo_init(struct aifab_qos_fifo *f, uint32_t capacity)
{
	if (aifab_qos_fifo_memsize(capacity) == 0)
		return -EINVAL;
	memset(f, 0, sizeof(*f));
	f->mask = capacity - 1;
	return 0;
}

size_t
aifab_qos_buf_memsize(uint32_t n_queues)
{
	if (n_queues == 0 || n_queues > BUF_MAX_QUEUES)
		return 0;
	return sizeof(struct aifab_qos_buf) +
		(size_t)n_queues * sizeof(struct aifab_qos_bufq);
}

int
aifab_qos_buf_init(struct aifab_qos_buf *b,
		   const struct aifab_qos_buf_params *p, const char **why)
{
	uint32_t i;

	if (p->size_bytes == 0 || p->size_bytes > UINT32_MAX) {
		*why = "shared buffer size must be 1..4294967295 bytes";
		return -EINVAL;
	}
	if (p->headroom_bytes > UINT32_MAX) {
		*why = "headroom pool must be below 4 GiB";
		return -EINVAL;
	}
	if (aifab_qos_buf_memsize(p->n_queues) == 0) {
		*why = "number of queues must be 1..1048576";
		return -EINVAL;
	}
	memset(b, 0, aifab_qos_buf_memsize(p->n_queues));
	b->size = p->size_bytes;
	b->hr_size = p->headroom_bytes;
	b->n_queues = p->n_queues;
	for (i = 0; i < p->n_queues; i++)
		b->q[i].alpha_q16 = 1u << 16;
	return 0;
}

static int
check_queue(const struct aifab_qos_buf *b, uint32_t q,
	    const struct aifab_qos_queue_params *p, const char **why)
{
	if (q >= b->n_queues) {
		*why = "queue index out of range";
		return -EINVAL;
	}
	if (p->mode == AIFAB_QOS_LIMIT_STATIC) {
		if (p->static_bytes == 0) {
			*why = "static queue limit must be > 0 bytes";
			return -EINVAL;
		}
	} else if (p->mode == AIFAB_QOS_LIMIT_DYNAMIC) {
		if (p->alpha_num == 0 || p->alpha_den == 0 ||
		    p->alpha_den > ALPHA_MAX_DEN ||
		    (uint64_t)p->alpha_num * 128 < p->alpha_den ||
		    p->alpha_num > (uint64_t)p->alpha_den * 8) {
			*why = "alpha must be a fraction num/den in 1/128..8 "
			       "with den <= 65536";
			return -EINVAL;
		}
	} else {
		*why = "queue limit mode must be static or dynamic";
		return -EINVAL;
	}
	if (p->headroom_bytes > b->hr_size) {
		*why = "queue headroom exceeds the headroom pool";
		return -EINVAL;
	}
	return 0;
}

int
aifab_qos_buf_queue_config(struct aifab_qos_buf *b, uint32_t q,
			   const struct aifab_qos_queue_params *p,
			   const char **why)
{
	struct aifab_qos_bufq *bq;
	int rc = check_queue(b, q, p, why);

	if (rc != 0)
		return rc;
	bq = &b->q[q];
	if (p->mode == AIFAB_QOS_LIMIT_STATIC) {
		bq->static_lim = p->static_bytes;
		bq->alpha_q16 = 0;
	} else {
		bq->static_lim = 0;
		bq->alpha_q16 = (uint32_t)(((uint64_t)p->alpha_num << 16) /
					   p->alpha_den);
	}
	bq->hr_lim = p->headroom_bytes;
	return 0;
}
