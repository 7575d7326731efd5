/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Collective schedules: ring, halving-doubling and pairwise all-to-all,
 * written out per rank as plain arrays. See aifab_collective.h for the
 * chunking rules; everything here is integer arithmetic on the control path.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include <rte_common.h>
#include <rte_errno.h>

#include "aifab_collective.h"

struct aifab_coll_plan {
	struct aifab_coll_params p;
	uint32_t n_steps;
	uint32_t per_rank;              /* n_steps x C entries */
	uint32_t n_rows;                /* ranks with a row */
	uint32_t *row;                  /* per rank: its row, UINT32_MAX none */
	struct aifab_coll_step *steps;  /* [row][per_rank] */
};

#define COLL_NAME(e, s) s,
static const char *const coll_type_names[] = { AIFAB_COLL_TYPES(COLL_NAME) };
#undef COLL_NAME

static const char *const coll_op_names[] = {
	[AIFAB_COLL_OP_ALLREDUCE] = "allreduce",
	[AIFAB_COLL_OP_REDUCESCATTER] = "reducescatter",
	[AIFAB_COLL_OP_ALLGATHER] = "allgather",
	[AIFAB_COLL_OP_ALLTOALL] = "alltoall",
	[AIFAB_COLL_OP_BROADCAST] = "broadcast",
	[AIFAB_COLL_OP_REDUCE] = "reduce",
};

/* A byte range: part @p j of @p parts equal-ish parts of [base, base+len). */
struct span {
	uint64_t off;
	uint64_t len;
};

static struct span
split(uint64_t base, uint64_t len, uint32_t parts, uint32_t j)
{
	uint64_t q = len / parts, r = len % parts;
	struct span s = {
		.off = base + q * j + RTE_MIN((uint64_t)j, r),
		.len = q + (j < r ? 1 : 0),
	};

	return s;
}

static uint32_t
log2_exact(uint32_t n)
{
	uint32_t l = 0;

	while ((1u << l) < n)
		l++;
	return (1u << l) == n ? l : UINT32_MAX;
}

static uint32_t
ring_n_steps(enum aifab_coll_type t, uint32_t n)
{
	switch (t) {
	case AIFAB_COLL_ALLREDUCE_RING:
		return 2 * (n - 1);
	case AIFAB_COLL_ALLREDUCE_HD:
		return 2 * log2_exact(n);
	default:
		return n - 1;
	}
}

/* Entry (step k, channel ch) of a row of n_steps x C entries. */
static struct aifab_coll_step *
at(struct aifab_coll_step *row, uint32_t n_chan, uint32_t k, uint32_t ch)
{
	return &row[(size_t)k * n_chan + ch];
}

/* Ring: chunk sent at step k by rank r, per algorithm. */
static uint32_t
ring_chunk(enum aifab_coll_type t, uint32_t n, uint32_t r, uint32_t k)
{
	uint32_t rs = n - 1;

	if (t == AIFAB_COLL_ALLGATHER_RING)
		return (r + n - k) % n;
	if (t == AIFAB_COLL_ALLREDUCE_RING && k >= rs)
		return (r + 1 + n - (k - rs)) % n;
	return (r + n - k) % n;
}

static void
rank_ring(const struct aifab_coll_params *p, uint32_t n_steps, uint32_t r,
	  uint32_t ch, struct span cs, struct aifab_coll_step *row)
{
	uint32_t n = p->n_ranks, k;

	for (k = 0; k < n_steps; k++) {
		struct span c = split(cs.off, cs.len, n,
				      ring_chunk(p->type, n, r, k));

		*at(row, p->n_channels, k, ch) = (struct aifab_coll_step){
			.peer = (r + 1) % n,
			.recv_from = (r + n - 1) % n,
			.bytes = c.len,
			.offset = c.off,
			.channel = ch,
			.step = k,
			.depends_on = k == 0 ? AIFAB_COLL_NO_DEP : (int32_t)k - 1,
		};
	}
}

static void
rank_hd(const struct aifab_coll_params *p, uint32_t n_steps, uint32_t r,
	uint32_t ch, struct span cs, struct aifab_coll_step *row)
{
	uint32_t levels = n_steps / 2, k, c = p->n_channels;
	struct span kept[32], cur = cs;

	for (k = 0; k < levels; k++) {
		uint64_t half = cur.len / 2;
		struct span lo = { cur.off, half };
		struct span hi = { cur.off + half, cur.len - half };
		bool upper = (r >> k) & 1;
		struct span send = upper ? lo : hi;

		kept[k] = upper ? hi : lo;
		cur = kept[k];
		*at(row, c, k, ch) = (struct aifab_coll_step){
			.peer = r ^ (1u << k), .recv_from = r ^ (1u << k),
			.bytes = send.len, .offset = send.off,
			.channel = ch, .step = k,
			.depends_on = k == 0 ? AIFAB_COLL_NO_DEP : (int32_t)k - 1,
		};
	}
	for (k = 0; k < levels; k++) {
		uint32_t lvl = levels - 1 - k, s = levels + k;

		*at(row, c, s, ch) = (struct aifab_coll_step){
			.peer = r ^ (1u << lvl), .recv_from = r ^ (1u << lvl),
			.bytes = kept[lvl].len, .offset = kept[lvl].off,
			.channel = ch, .step = s,
			.depends_on = (int32_t)s - 1,
		};
	}
}

static void
rank_alltoall(const struct aifab_coll_params *p, uint32_t n_steps, uint32_t r,
	      uint32_t ch, struct span cs, struct aifab_coll_step *row)
{
	uint32_t n = p->n_ranks, k;

	for (k = 0; k < n_steps; k++) {
		uint32_t peer = (r + k + 1) % n;
		struct span b = split(cs.off, cs.len, n, peer);

		*at(row, p->n_channels, k, ch) = (struct aifab_coll_step){
			.peer = peer,
			.recv_from = (r + 2 * n - k - 1) % n,
			.bytes = b.len, .offset = b.off,
			.channel = ch, .step = k,
			.depends_on = AIFAB_COLL_NO_DEP,
		};
	}
}

/* Rank @p r's row, computed from the collective's formula alone. */
static void
rank_row(const struct aifab_coll_params *p, uint32_t n_steps, uint32_t r,
	 struct aifab_coll_step *row)
{
	uint32_t ch;

	for (ch = 0; ch < p->n_channels; ch++) {
		struct span cs = split(0, p->size, p->n_channels, ch);

		if (p->type == AIFAB_COLL_ALLREDUCE_HD)
			rank_hd(p, n_steps, r, ch, cs, row);
		else if (p->type == AIFAB_COLL_ALLTOALL)
			rank_alltoall(p, n_steps, r, ch, cs, row);
		else
			rank_ring(p, n_steps, r, ch, cs, row);
	}
}

static int
params_ok(const struct aifab_coll_params *p)
{
	if (p == NULL || p->type >= AIFAB_COLL_TYPE_MAX ||
	    p->n_ranks < 2 || p->n_ranks > AIFAB_COLL_MAX_RANKS ||
	    p->n_channels < 1 || p->n_channels > AIFAB_COLL_MAX_CHANNELS)
		return 0;
	if (p->type == AIFAB_COLL_ALLREDUCE_HD &&
	    log2_exact(p->n_ranks) == UINT32_MAX)
		return 0;
	return 1;
}

uint32_t
aifab_coll_n_steps(const struct aifab_coll_params *p)
{
	return params_ok(p) ? ring_n_steps(p->type, p->n_ranks) : 0;
}

int
aifab_coll_rank_sched(const struct aifab_coll_params *p, uint32_t rank,
		      struct aifab_coll_step *out)
{
	if (!params_ok(p) || rank >= p->n_ranks)
		return -EINVAL;
	rank_row(p, ring_n_steps(p->type, p->n_ranks), rank, out);
	return 0;
}

struct aifab_coll_plan *
aifab_coll_plan_create_for(const struct aifab_coll_params *p,
			   const uint8_t *want)
{
	struct aifab_coll_plan *pl;
	uint32_t r;

	if (!params_ok(p)) {
		rte_errno = EINVAL;
		return NULL;
	}
	pl = calloc(1, sizeof(*pl));
	if (pl == NULL)
		goto nomem;
	pl->p = *p;
	pl->n_steps = ring_n_steps(p->type, p->n_ranks);
	pl->per_rank = pl->n_steps * p->n_channels;
	pl->row = malloc(sizeof(*pl->row) * p->n_ranks);
	if (pl->row == NULL)
		goto nomem;
	for (r = 0; r < p->n_ranks; r++)
		pl->row[r] = want == NULL || want[r] ? pl->n_rows++ : UINT32_MAX;
	pl->steps = calloc((size_t)RTE_MAX(pl->n_rows, 1u) * pl->per_rank,
			   sizeof(*pl->steps));
	if (pl->steps == NULL)
		goto nomem;
	for (r = 0; r < p->n_ranks; r++)
		if (pl->row[r] != UINT32_MAX)
			rank_row(p, pl->n_steps, r,
				 &pl->steps[(size_t)pl->row[r] * pl->per_rank]);
	return pl;
nomem:
	aifab_coll_plan_free(pl);
	rte_errno = ENOMEM;
	return NULL;
}

struct aifab_coll_plan *
aifab_coll_plan_create(const struct aifab_coll_params *p)
{
	return aifab_coll_plan_create_for(p, NULL);
}

void
aifab_coll_plan_free(struct aifab_coll_plan *plan)
{
	if (plan == NULL)
		return;
	free(plan->steps);
	free(plan->row);
	free(plan);
}

uint32_t
aifab_coll_plan_n_steps(const struct aifab_coll_plan *plan)
{
	return plan->n_steps;
}

const struct aifab_coll_step *
aifab_coll_plan_rank(const struct aifab_coll_plan *plan, uint32_t rank,
		     uint32_t *n)
{
	if (rank >= plan->p.n_ranks || plan->row[rank] == UINT32_MAX)
		return NULL;
	*n = plan->per_rank;
	return &plan->steps[(size_t)plan->row[rank] * plan->per_rank];
}

const struct aifab_coll_params *
aifab_coll_plan_params(const struct aifab_coll_plan *plan)
{
	return &plan->p;
}

uint64_t
aifab_coll_plan_rank_bytes(const struct aifab_coll_plan *plan, uint32_t rank)
{
	const struct aifab_coll_step *s;
	uint64_t sum = 0;
	uint32_t i, n;

	s = aifab_coll_plan_rank(plan, rank, &n);
	if (s == NULL)
		return 0;
	for (i = 0; i < n; i++)
		sum += s[i].bytes;
	return sum;
}

enum aifab_coll_op
aifab_coll_type_op(enum aifab_coll_type t)
{
	switch (t) {
	case AIFAB_COLL_REDUCESCATTER_RING:
		return AIFAB_COLL_OP_REDUCESCATTER;
	case AIFAB_COLL_ALLGATHER_RING:
		return AIFAB_COLL_OP_ALLGATHER;
	case AIFAB_COLL_ALLTOALL:
		return AIFAB_COLL_OP_ALLTOALL;
	default:
		return AIFAB_COLL_OP_ALLREDUCE;
	}
}

const char *
aifab_coll_type_name(enum aifab_coll_type t)
{
	return t < AIFAB_COLL_TYPE_MAX ? coll_type_names[t] : NULL;
}

int
aifab_coll_type_parse(const char *name, enum aifab_coll_type *t)
{
	unsigned int i;

	for (i = 0; i < AIFAB_COLL_TYPE_MAX; i++)
		if (strcmp(name, coll_type_names[i]) == 0) {
			*t = (enum aifab_coll_type)i;
			return 0;
		}
	return -EINVAL;
}

const char *
aifab_coll_op_name(enum aifab_coll_op op)
{
	return (unsigned int)op < RTE_DIM(coll_op_names) ?
		coll_op_names[op] : "unknown";
}

double
aifab_coll_busbw_factor(enum aifab_coll_op op, uint32_t n_ranks)
{
	double n = n_ranks;

	if (n_ranks == 0)
		return 0;
	switch (op) {
	case AIFAB_COLL_OP_ALLREDUCE:
		return 2.0 * (n - 1) / n;
	case AIFAB_COLL_OP_REDUCESCATTER:
	case AIFAB_COLL_OP_ALLGATHER:
	case AIFAB_COLL_OP_ALLTOALL:
		return (n - 1) / n;
	default:
		return 1.0;
	}
}
