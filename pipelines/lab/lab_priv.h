/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * Private to pipelines/lab: the engine's state, shared with the recipes,
 * the recipe ops every recipe file fills, and the engine's helpers a
 * recipe may call (frames, sending, pacing, latencies, console pieces).
 *
 * Calls go one way: the engine (lab.c) calls a recipe only through its
 * struct lab_recipe (the table: recipes.c); a recipe calls the helpers
 * below, none of which calls a recipe, and lib/ (lib/verdict for its
 * statistics).
 */
#ifndef LAB_PRIV_H
#define LAB_PRIV_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include <rte_mbuf.h>

#include "aifab_json.h"
#include "aifab_pkt.h"
#include "lab.h"

#define LAB_TAG_MAGIC 0x4149464cu /* "AIFL" */
#define LAB_TAG_LEN 24u
#define LAB_HDR_LEN (14u + 20u + 8u + 12u)
#define LAB_MIN_FRAME (LAB_HDR_LEN + LAB_TAG_LEN + 4u)
#define LAB_BURST 32u
#define LAB_NONE 0xffu
#define LAB_WIRE_EXTRA 24u /* FCS, preamble + SFD, IFG */

/* In a recipe's init: fill err ("key = 'value'; allowed: ...") and fail. */
#define LAB_BAD(...) do { snprintf(err, errlen, __VA_ARGS__); return -1; } \
	while (0)

struct lab;

/** The headers and tag of one frame to build (lab_frame_build()). */
struct lab_frame {
	uint16_t port;                    /**< sent from (its MAC: source) */
	const struct rte_ether_addr *dst; /**< the DUT's MAC on that port */
	uint32_t sip, dip;                /**< host order */
	uint16_t sport;
	uint32_t dqpn;
	uint8_t ph;                       /**< tag: phase or step */
	uint32_t flow;                    /**< tag: flow or sender */
	uint32_t seq;                     /**< tag: sequence (IP id, PSN) */
};

/** A frame that came back with our tag. */
struct lab_rx {
	uint16_t port;                    /**< env port it came back on */
	uint8_t slot;                     /**< index in rx_ports; LAB_NONE */
	uint32_t ph, flow, seq;           /**< its tag */
	uint64_t tx_tsc;                  /**< TSC when it was built */
	uint8_t tos;                      /**< as it came back (ECN bits) */
	uint32_t len;                     /**< frame bytes */
};

/**
 * A recipe: what the engine asks of it. Every op gets the engine's state;
 * the recipe's own is at l->rs (state_size bytes, zeroed, from init to
 * fini). Optional ops may be NULL.
 */
struct lab_recipe {
	const char *name;                 /**< [lab] recipe, --lab NAME */
	size_t state_size;                /**< of what l->rs points to */
	size_t result_size;               /**< of what result() fills */
	/** Check the params (and their combination), set up l->rs; -1 with
	 * @p err filled: "key = 'value'; allowed: ...". */
	int (*init)(struct lab *l, char *err, size_t errlen);
	/** Send what is due at @p now; lab_tx_done() once all is sent.
	 * @return frames built. */
	unsigned int (*tx)(struct lab *l, uint64_t now);
	/** A frame with our tag. @return false: not this recipe's (the
	 * engine counts it without our tag). */
	bool (*rx)(struct lab *l, const struct lab_rx *f, uint64_t now);
	/** Optional: a PFC frame on @p port. @return false: not taken (the
	 * engine counts it without our tag). */
	bool (*rx_pfc)(struct lab *l, uint16_t port,
		       const struct aifab_pkt_info *pi, uint64_t now);
	/** The figures and the verdict into @p res (zeroed, result_size). */
	void (*result)(const struct lab *l, void *res);
	/** The console table of @p res; ends with lab_print_tail(). */
	void (*print)(const struct lab *l, const void *res, FILE *f);
	/** The members of the "lab" JSON object after "recipe" (the engine
	 * writes that, and opens and closes the object). */
	void (*json)(const struct lab *l, const void *res,
		     struct aifab_json *j);
	/** Optional: free what init allocated besides l->rs (also after a
	 * failed init: check for NULL). */
	void (*fini)(struct lab *l);
};

/** The recipe table (recipes.c), NULL-terminated. */
extern const struct lab_recipe *const lab_recipes[];

/** The engine's state. Recipes read it and use the helpers below. */
struct lab {
	struct aifab_env env;
	struct aifab_lab_params p;
	const struct lab_recipe *rc;
	void *rs;                         /* the recipe's state */
	struct rte_mempool *pool;
	uint64_t gap_cyc;                 /* one frame at rate_gbps */
	uint64_t settle_cyc, end_tsc;
	bool sent_all;                    /* lab_tx_done() */
	bool done;                        /* settled: the run may end */
	uint64_t last_now;                /* clock of the last poll */
	/* senders: 0 is tx_port, then tx_ports (incast) */
	uint16_t n_tx, tx_of[AIFAB_MAX_PORTS];
	uint8_t sender_of_port[AIFAB_MAX_PORTS]; /* env port -> sender */
	uint8_t slot_of_port[AIFAB_MAX_PORTS];   /* env port -> rx slot */
	uint64_t rx_other;                /* frames without our tag */
	uint64_t port_rx[AIFAB_MAX_PORTS], port_rx_bytes[AIFAB_MAX_PORTS];
	uint64_t port_tx[AIFAB_MAX_PORTS], port_tx_bytes[AIFAB_MAX_PORTS];
	uint8_t scratch[AIFAB_PKT_HDR_WINDOW];
	/* every returned frame's latency (lab_lat_alloc()): ns, bit 31 CE */
	uint32_t *lat;
	uint32_t n_lat, cap_lat;
};

/* ---- frames and sending -------------------------------------------------- */

/** Frame @p flow's fields from tx_port when every field varies with the
 * flow: UDP source port, destination QP, source and destination address
 * + flow (flow 0: the [lab] values). Tag phase 0, sequence 0. */
void lab_frame_flow(const struct lab *l, uint32_t flow, struct lab_frame *f);

/** Ethernet / IPv4 / UDP 4791 / BTH (SEND only) / tag + zeros / ICRC,
 * frame_bytes long, stamped with @p now; NULL when the pool is empty. */
struct rte_mbuf *lab_frame_build(struct lab *l, const struct lab_frame *f,
				 uint64_t now);

/** Frames due at @p now (at most LAB_BURST): one every @p gap cycles from
 * @p next, before @p end. */
uint32_t lab_pace_due(uint64_t next, uint64_t gap, uint64_t now,
		      uint64_t end);

/** A frame every gap_cyc (rate_gbps) from the first call on. */
struct lab_pacer {
	bool started;
	uint64_t next_tsc;                /* the next frame's time */
};

/** Frames due at @p now (at most LAB_BURST); the first call starts the
 * clock. Add gap_cyc to next_tsc for each frame sent. */
uint32_t lab_pacer_due(const struct lab *l, struct lab_pacer *pc,
		       uint64_t now);

/** Hand @p n built frames to @p port's PMD (counted per port); what it
 * refuses is freed. @return frames it took. */
uint16_t lab_tx_burst(struct lab *l, uint16_t port, struct rte_mbuf **pkts,
		      uint16_t n);

/** Everything is sent: the run ends settle_ms after @p now. */
void lab_tx_done(struct lab *l, uint64_t now);

/** Cycles of @p ms; ms of @p cyc cycles. */
uint64_t lab_ms_cyc(const struct lab *l, uint32_t ms);
double lab_cyc_ms(const struct lab *l, uint64_t cyc);

/* ---- load steps (ecn, pfc) ----------------------------------------------- */

/** Steps: step ph offers a percentage of dut_rate_gbps from `start`, for
 * `len_cyc` (step_ms; the recipe may add), then `gap_cyc` (gap_ms) of
 * silence. Frames: lab_frame_flow(0), tag phase = the step. */
struct lab_steps {
	uint32_t ph, n;                   /* the step being sent, of n */
	bool on;                          /* sending (else waiting) */
	uint64_t start, len_cyc, gap_cyc;
	uint64_t next_tsc, frame_cyc, seq;
	uint64_t sent[AIFAB_LAB_MAX_STEPS];
};

/** @p n steps of step_ms, gap_ms apart. */
void lab_steps_init(const struct lab *l, struct lab_steps *s, uint32_t n);

/** Start the step at @p pct % of dut_rate_gbps when its start has come.
 * @return -1 not yet (send nothing), 1 it starts now, 0 it runs. */
int lab_steps_begin(const struct lab *l, struct lab_steps *s, uint32_t pct,
		    uint64_t now);

/** Send the step's frames due at @p now (before @p end) from tx_port.
 * @return frames built. */
uint16_t lab_steps_send(struct lab *l, struct lab_steps *s, uint64_t end,
			uint64_t now);

/** The step is over: the next starts at @p start; after the last,
 * lab_tx_done(). */
void lab_steps_next(struct lab *l, struct lab_steps *s, uint64_t start,
		    uint64_t now);

/* ---- latencies ----------------------------------------------------------- */

/** Room for @p frames latencies (+1024, at most 2^24); -1 with err. */
int lab_lat_alloc(struct lab *l, uint64_t frames, char *err, size_t errlen);

/** A returned frame's one-way latency in ns (0 if the clock went back). */
uint64_t lab_lat_ns(const struct lab *l, const struct lab_rx *f,
		    uint64_t now);

/** Keep @p ns (and whether the frame came back CE) while there is room. */
void lab_lat_keep(struct lab *l, uint64_t ns, bool ce);

/* ---- the console --------------------------------------------------------- */

/** "PASS" or "FAIL". */
const char *lab_pf(bool ok);

/** Name of env port @p port ("t0"). */
const char *lab_port_name(const struct lab *l, uint16_t port);

/** The last line: "# lab NAME: PASS; N frames without our tag". */
void lab_print_tail(const struct lab *l, bool pass, FILE *f);

/** The last JSON members: "rx_other" (frames without our tag) and
 * "verdict" ("PASS" or "FAIL"). */
void lab_json_tail(const struct lab *l, bool pass, struct aifab_json *j);

#endif /* LAB_PRIV_H */
