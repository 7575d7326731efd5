/* SPDX-License-Identifier: BSD-3-Clause */
/* Generator pipeline internals shared by generator.c and generator_ctl.c. */
#ifndef GENERATOR_PRIV_H
#define GENERATOR_PRIV_H

#include <stdbool.h>
#include <stdint.h>

#include <rte_mbuf.h>

#include "aifab_collective.h"
#include "aifab_pkt.h"
#include "aifab_roce.h"
#include "generator.h"

#define GEN_TXBUF 64            /* frames per port before a TX burst */
#define GEN_RX_BURST 32
#define GEN_FP 20               /* token bucket fixed point: bytes << 20 */
#define GEN_WIRE_EXTRA 24       /* FCS 4 + preamble 8 + IFG 12 */
#define GEN_MAX_CONNS (1u << 16)
#define GEN_MAX_QPS_PER_CONN 8

/* Per-port counters the generator adds (names are report keys). */
#define GEN_PORT_CTRS(X) \
	X(TX_DROPPED, "tx_dropped") \
	X(TX_NOMBUF, "tx_nombuf") \
	X(RX_ROCE, "rx_roce") \
	X(RX_OTHER, "rx_not_roce") \
	X(RX_UNKNOWN_QP, "rx_unknown_qp") \
	X(RX_NO_TAG, "rx_no_tag")

#define GEN_ENUM(e, s) GEN_##e,
enum gen_ctr { GEN_PORT_CTRS(GEN_ENUM) GEN_CTR_MAX };
#undef GEN_ENUM

enum rank_state { RANK_WAIT, RANK_SEND, RANK_DONE };

struct gen_conn {               /* one QP: src rank -> dst rank */
	struct aifab_roce_qp qp;
	struct aifab_roce_rx rx;    /* what dst received */
	struct aifab_roce_seg pend; /* cut but not built (no mbufs) */
	bool has_pend;
	uint32_t src, dst, channel;
};

struct gen_rank {
	uint16_t port;              /* env port index */
	enum rank_state state;
	int64_t tokens, depth;      /* bytes << GEN_FP */
	uint64_t rate_fp;           /* bytes per TSC << GEN_FP; 0: unpaced */
	uint64_t max_idle;          /* TSC cycles added at most (overflow) */
	bool backlogged;            /* had packets left at the last poll */
	uint64_t last_tsc;
	uint32_t step, iter;
	uint64_t step_start, next_start;
	const struct aifab_coll_step *sched;
	uint32_t *entry_conn;       /* first conn of each schedule entry */
	uint32_t *act;              /* conns with packets left this step */
	uint32_t n_act, rr;
};

struct gen_port {
	uint64_t rx_packets, rx_bytes, tx_packets, tx_bytes;
	uint64_t ctr[GEN_CTR_MAX];
	struct aifab_roce_hist lat;
	uint16_t n_tx;
	struct rte_mbuf *tx[GEN_TXBUF];
	uint8_t scratch[AIFAB_PKT_HDR_WINDOW];
};

struct gen {
	struct aifab_env env;
	struct aifab_gen_params p;
	struct aifab_coll_plan *plan;
	uint32_t n_steps, n_chan, total_iters;
	struct rte_mempool *hdr_pool, *ext_pool;
	struct aifab_roce_payload *pl;
	double ns_per_tsc;
	bool started;
	uint32_t rr_rank;
	uint32_t n_conns;
	struct gen_conn *conns;
	struct gen_rank *ranks;
	uint64_t *iter_start, *iter_end;
	uint32_t *iter_ranks_done;
	uint16_t n_used_ports;
	uint16_t used_ports[AIFAB_MAX_PORTS];
	struct gen_port port[AIFAB_MAX_PORTS];
};

/* generator_ctl.c */
void gen_report(const void *st, const struct aifab_report_sink *sink);
void gen_fini(void *st);

#endif /* GENERATOR_PRIV_H */
