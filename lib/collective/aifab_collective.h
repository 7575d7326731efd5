/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * aifab collective schedules as data: for every rank, the ordered list of
 * sends (peer, bytes, channel, step, dependency) a collective makes, and the
 * nccl-tests bandwidth formulas (algbw = S / t, busbw = algbw x factor).
 *
 * Algorithms:
 *  - ring AllReduce: 2(N-1) steps (N-1 reduce-scatter, N-1 all-gather); on
 *    each of C channels rank r sends one chunk to (r+1) mod N per step, and
 *    step k+1 may start once step k's chunk from (r-1) mod N has arrived.
 *  - ring ReduceScatter / AllGather: the first / second half of the above.
 *  - halving-doubling AllReduce (N a power of two, L = log2 N): steps
 *    0..L-1 send half the current segment to r XOR 2^k (S/2, S/4, ...),
 *    steps L..2L-1 send the gathered segment back to r XOR 2^(2L-1-k).
 *  - all-to-all (pairwise): step k = 0..N-2 sends block (r+k+1) mod N,
 *    S/N bytes, to that rank; no dependencies.
 *
 * Remainders (S not divisible): S is split over channels first, channel c
 * gets S/C + (c < S mod C) bytes; within a channel, ring chunk j (and
 * all-to-all block j) gets Sc/N + (j < Sc mod N) bytes; halving splits a
 * segment [lo, hi) at lo + (hi-lo)/2, the rank whose bit k is 0 keeping
 * the lower part. So the bytes of every chunk add up to exactly S, and the
 * whole collective moves exactly factor x N x S bytes (e.g. 2(N-1)S for
 * AllReduce). Sends of zero bytes (S < N x C) stay in the schedule with
 * bytes = 0: a generator skips them.
 *
 * Plans are built on the control path (calloc); reading them is free. A
 * plan holds the rows of every rank (N x n_steps x C entries, growing as
 * N^2 for ring and all-to-all) or of the ranks asked for only
 * (aifab_coll_plan_create_for); aifab_coll_rank_sched computes one rank's
 * row from the collective's formula, without a plan.
 */
#ifndef AIFAB_COLLECTIVE_H
#define AIFAB_COLLECTIVE_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define AIFAB_COLL_MAX_RANKS 16384
#define AIFAB_COLL_MAX_CHANNELS 64
/** depends_on value of a send that needs nothing received first. */
#define AIFAB_COLL_NO_DEP (-1)

/** Collective + algorithm. Names (aifab_coll_type_name) are profile values. */
#define AIFAB_COLL_TYPES(X) \
	X(ALLREDUCE_RING, "allreduce_ring") \
	X(ALLREDUCE_HD, "allreduce_hd") \
	X(REDUCESCATTER_RING, "reducescatter_ring") \
	X(ALLGATHER_RING, "allgather_ring") \
	X(ALLTOALL, "alltoall")

#define AIFAB_COLL_ENUM(e, s) AIFAB_COLL_##e,
enum aifab_coll_type { AIFAB_COLL_TYPES(AIFAB_COLL_ENUM) AIFAB_COLL_TYPE_MAX };
#undef AIFAB_COLL_ENUM

/** Operations nccl-tests reports; busbw factor depends only on these. */
enum aifab_coll_op {
	AIFAB_COLL_OP_ALLREDUCE,
	AIFAB_COLL_OP_REDUCESCATTER,
	AIFAB_COLL_OP_ALLGATHER,
	AIFAB_COLL_OP_ALLTOALL,
	AIFAB_COLL_OP_BROADCAST,
	AIFAB_COLL_OP_REDUCE,
};

/** What to plan. */
struct aifab_coll_params {
	enum aifab_coll_type type;
	uint32_t n_ranks;       /**< 2..AIFAB_COLL_MAX_RANKS (power of 2 for HD) */
	uint64_t size;          /**< S, bytes (nccl-tests "size") */
	uint32_t n_channels;    /**< C, 1..AIFAB_COLL_MAX_CHANNELS */
};

/** One send of one rank. */
struct aifab_coll_step {
	uint32_t peer;          /**< destination rank */
	uint32_t recv_from;     /**< rank this step's incoming data comes from */
	uint64_t bytes;         /**< bytes sent (0 possible, see @file) */
	uint64_t offset;        /**< byte offset of the data in the S buffer */
	uint32_t channel;       /**< 0..C-1 */
	uint32_t step;          /**< 0..n_steps-1 */
	/**
	 * Step whose incoming data (from that step's recv_from, same channel)
	 * must have arrived before this send starts; AIFAB_COLL_NO_DEP if none.
	 */
	int32_t depends_on;
};

struct aifab_coll_plan;

/**
 * Build the schedule of every rank.
 *
 * @return the plan, or NULL with rte_errno EINVAL (n_ranks, n_channels out
 *   of range, HD with N not a power of two, unknown type) or ENOMEM.
 */
struct aifab_coll_plan *aifab_coll_plan_create(const struct aifab_coll_params *p);

/**
 * Build the schedule of the ranks with @p want[rank] != 0 only (NULL: every
 * rank): memory is theirs alone; aifab_coll_plan_rank() returns NULL for
 * the others. Their rows equal those of aifab_coll_plan_create().
 *
 * @return the plan, or NULL with rte_errno as aifab_coll_plan_create().
 */
struct aifab_coll_plan *
aifab_coll_plan_create_for(const struct aifab_coll_params *p,
			   const uint8_t *want);

/** Steps per iteration of @p p (0: invalid params). */
uint32_t aifab_coll_n_steps(const struct aifab_coll_params *p);

/**
 * Rank @p rank's sends, as a plan's row: @p out gets n_steps x C entries
 * (aifab_coll_n_steps() x n_channels), ordered by step then channel.
 * @return 0, or -EINVAL (params as aifab_coll_plan_create, rank >= N).
 */
int aifab_coll_rank_sched(const struct aifab_coll_params *p, uint32_t rank,
			  struct aifab_coll_step *out);

/** Free a plan (NULL is fine). */
void aifab_coll_plan_free(struct aifab_coll_plan *plan);

/** Steps per iteration (e.g. 2(N-1) for ring AllReduce). */
uint32_t aifab_coll_plan_n_steps(const struct aifab_coll_plan *plan);

/**
 * Sends of @p rank, ordered by step then channel.
 * @param n  out: number of entries (n_steps x C).
 * @return the array (owned by the plan), NULL if @p rank is out of range
 *   or has no row (aifab_coll_plan_create_for).
 */
const struct aifab_coll_step *
aifab_coll_plan_rank(const struct aifab_coll_plan *plan, uint32_t rank,
		     uint32_t *n);

/** The params the plan was built from. */
const struct aifab_coll_params *
aifab_coll_plan_params(const struct aifab_coll_plan *plan);

/** Bytes @p rank sends in one iteration. */
uint64_t aifab_coll_plan_rank_bytes(const struct aifab_coll_plan *plan,
				    uint32_t rank);

/** The operation a type performs (ALLREDUCE_HD -> ALLREDUCE, ...). */
enum aifab_coll_op aifab_coll_type_op(enum aifab_coll_type t);

/** Profile name of a type ("allreduce_ring"), NULL if out of range. */
const char *aifab_coll_type_name(enum aifab_coll_type t);

/** Type from a name. @return 0, or -EINVAL. */
int aifab_coll_type_parse(const char *name, enum aifab_coll_type *t);

/** nccl-tests short name of an op ("allreduce", "alltoall", ...). */
const char *aifab_coll_op_name(enum aifab_coll_op op);

/**
 * nccl-tests bus bandwidth factor: AllReduce 2(N-1)/N; ReduceScatter,
 * AllGather, AlltoAll (N-1)/N; Broadcast, Reduce 1.
 */
double aifab_coll_busbw_factor(enum aifab_coll_op op, uint32_t n_ranks);

/** algbw = S / t, bytes per second (0 if t_s <= 0). */
static inline double
aifab_coll_algbw(uint64_t size, double t_s)
{
	return t_s > 0 ? (double)size / t_s : 0.0;
}

#ifdef __cplusplus
}
#endif

#endif /* AIFAB_COLLECTIVE_H */
