/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * What a pipeline is: the poll loop body that composes lib/ stages, with an
 * ops table (as testpmd's forwarding engines). The app owns lcores, ports and
 * time; a pipeline owns its state and counters. Several pipelines may share
 * one lcore: the app calls each one's poll() in turn.
 */
#ifndef AIFAB_PIPELINE_H
#define AIFAB_PIPELINE_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include <rte_branch_prediction.h>
#include <rte_ethdev.h>
#include <rte_ether.h>
#include <rte_ring.h>

#include "aifab_profile.h"

struct rte_mempool;
struct aifab_stats_set;

/**
 * Free @p mp, a pipeline's own pool, at fini if none of its mbufs is still
 * out (call it after freeing what the pipeline holds; the app closes ports,
 * in-memory cables included, before fini). Otherwise log it and keep the
 * pool, so the app's mempool_in_use_at_exit counts what was not returned.
 * @return true when freed (or NULL).
 */
bool aifab_pipeline_pool_free(struct rte_mempool *mp, const char *who);

/** Called with every burst a ring port transmits, before it is queued
 * (as an ethdev TX callback would be; --capture). Returns @p n. */
typedef uint16_t (*aifab_port_tx_hook)(uint16_t port, uint16_t queue,
				       struct rte_mbuf **pkts, uint16_t n,
				       void *arg);

/**
 * A port as the app bound it: an ethdev (NIC, pcap, af_packet, ...), or,
 * for an in-memory cable (`[port.X] wire`), a pair of rte_rings with no
 * ethdev behind them (@c rx_ring set; port_id is then UINT16_MAX). Use
 * aifab_port_rx_burst() / aifab_port_tx_burst() for either.
 */
struct aifab_port_rt {
	char name[AIFAB_NAME_LEN];    /**< profile name, e.g. "p0" */
	char device[64];              /**< ethdev name ("wire_<name>": ring) */
	uint16_t port_id;             /**< ethdev port id; UINT16_MAX: ring */
	uint16_t nb_rxq;
	uint16_t nb_txq;
	uint16_t mtu;
	uint32_t speed_mbps;          /**< profile value, else the NIC's */
	bool finite_rx;               /**< rx ends by itself (pcap file) */
	bool gen_owned;               /**< the generator's port, not a switch's */
	uint8_t sw;                   /**< else: the switch instance owning it
					   (profile switches[] index) */
	struct rte_ether_addr mac;    /**< the port's MAC (profile or NIC) */
	struct rte_mempool *pool;     /**< pool for this port's socket */
	/** A ring port (no ethdev): it receives from rx_ring and transmits
	 * into tx_ring (one reader; one writer, or one per TX queue of a
	 * generator port with several workers: then multi-producer). */
	struct rte_ring *rx_ring, *tx_ring;
	/** Ring port: what sees its TX bursts (--capture), one per TX queue
	 * (nb_txq entries), shared by every copy of this struct (a switch's
	 * own env holds copies). */
	struct aifab_port_tap *tap;
};

/** A frame on a wire of the whole-process virtual clock (app/vclock.c):
 * the frame and its arrival, ns of model time. */
struct aifab_wire_frame {
	struct rte_mbuf *m;
	uint64_t at;
};

/**
 * A wire's FIFO of the whole-process virtual clock (one direction of an
 * in-memory cable; the clock owns it, app/vclock.c): fifo[i & mask] for
 * i from head to tail. head .. dlv have arrived (delivered by the clock,
 * unread), dlv .. tail are still on the wire. Its one reader, the
 * receiving port's pipeline, takes delivered frames from head
 * (aifab_port_rx_burst(), aifab_wire_read()); the clock writes the rest.
 */
struct aifab_wire {
	struct aifab_wire_frame *fifo;
	uint32_t head, dlv, tail;
	uint32_t mask;
};

/** Take up to @p n of the frames @p w delivered, in order. */
static inline uint16_t
aifab_wire_read(struct aifab_wire *w, struct rte_mbuf **pkts, uint16_t n)
{
	uint32_t h = w->head, k = w->dlv - h, i;

	if (k > n)
		k = n;
	for (i = 0; i < k; i++)
		pkts[i] = w->fifo[(h + i) & w->mask].m;
	w->head = h + k;
	return (uint16_t)k;
}

/** A ring port's TX tap (the app's; NULL fn: none). */
struct aifab_port_tap {
	aifab_port_tx_hook fn;
	void *arg;
	/** The whole-process virtual clock's mark (NULL: none): a burst that
	 * put frames in the TX ring sets @c mark_bit in @c *mark, so the
	 * clock visits the wires that were written to, not every wire. */
	uint64_t *mark;
	uint64_t mark_bit;
	/** The whole-process virtual clock's wire (NULL put: none): a burst
	 * goes straight onto the wire, as if the clock took it from the TX
	 * ring at once (what it would do after this step's polls); what
	 * put() does not take (the wire's FIFO full, or frames already
	 * waiting in the ring) goes into the ring as before. */
	uint16_t (*put)(void *wire, struct rte_mbuf **pkts, uint16_t n);
	void *wire;
	/** Receive side (tap[0] of a ring port): its reader may ask to be
	 * told when frames are delivered to it (@c rx_mark_bit set in
	 * @c *rx_mark); the whole-process virtual clock, the only one
	 * delivering to the port then (@c rx_wire below), does so and
	 * says it with @c rx_marked (set before any poll), so the reader
	 * polls only the ports it was told of. */
	uint64_t *rx_mark;
	uint64_t rx_mark_bit;
	bool rx_marked;
	/** Receive side (tap[0] of a ring port; NULL: none): the
	 * whole-process virtual clock's wire into this port. A receive
	 * takes the frames the clock delivered straight from the wire's
	 * FIFO (aifab_wire_read()), not from the RX ring, which then stays
	 * empty. */
	struct aifab_wire *rx_wire;
};

/** Port @p rt is an in-memory ring, not an ethdev. */
static inline bool
aifab_port_is_ring(const struct aifab_port_rt *rt)
{
	return rt->rx_ring != NULL;
}

/** Port @p rt is a ring port whose RX ring the whole-process virtual
 * clock fills and marks (struct aifab_port_tap, rx_marked). */
static inline bool
aifab_port_rx_clock_marked(const struct aifab_port_rt *rt)
{
	return aifab_port_is_ring(rt) && rt->tap != NULL &&
	       rt->tap[0].rx_marked;
}

/** The whole-process virtual clock's wire that ring port @p rt's
 * receives read (struct aifab_port_tap, rx_wire); NULL: none. */
static inline struct aifab_wire *
aifab_port_rx_wire(const struct aifab_port_rt *rt)
{
	return aifab_port_is_ring(rt) && rt->tap != NULL ?
	       rt->tap[0].rx_wire : NULL;
}

/** The tap of TX queue @p q of @p rt whose put takes bursts straight onto
 * the whole-process virtual clock's wire, as aifab_port_ring_tx() would
 * put them: a ring port with the clock's put and no hook (no --capture);
 * NULL: none. */
static inline const struct aifab_port_tap *
aifab_port_tx_wire_tap(const struct aifab_port_rt *rt, uint16_t q)
{
	if (!aifab_port_is_ring(rt) || rt->tap == NULL ||
	    rt->tap[q].fn != NULL || rt->tap[q].put == NULL)
		return NULL;
	return &rt->tap[q];
}

/** Ask to be told of frames put in ring port @p rt's RX ring: bit
 * @p bit set in @p *word (struct aifab_port_tap, rx_mark). */
static inline void
aifab_port_rx_mark_to(const struct aifab_port_rt *rt, uint64_t *word,
		      uint64_t bit)
{
	rt->tap[0].rx_mark = word;
	rt->tap[0].rx_mark_bit = bit;
}

/**
 * Receive up to @p n frames on queue @p q of @p rt: rte_eth_rx_burst()
 * on an ethdev; on a ring port the whole-process virtual clock's wire
 * when it has one (struct aifab_port_tap, rx_wire), else a dequeue from its
 * RX ring (a branch or two, predicted by the port kind, per burst).
 */
static inline uint16_t
aifab_port_rx_burst(const struct aifab_port_rt *rt, uint16_t q,
		    struct rte_mbuf **pkts, uint16_t n)
{
	if (likely(rt->rx_ring == NULL))
		return rte_eth_rx_burst(rt->port_id, q, pkts, n);
	if (rt->tap != NULL && rt->tap[0].rx_wire != NULL)
		return aifab_wire_read(rt->tap[0].rx_wire, pkts, n);
	return (uint16_t)rte_ring_sc_dequeue_burst(rt->rx_ring, (void **)pkts,
						   n, NULL);
}

/** Out of line: the ring port's transmit (hook, enqueue). */
uint16_t aifab_port_ring_tx(const struct aifab_port_rt *rt, uint16_t q,
			    struct rte_mbuf **pkts, uint16_t n);

/**
 * Transmit up to @p n frames on queue @p q of @p rt; returns how many
 * were taken (the rest stay the caller's), as rte_eth_tx_burst().
 */
static inline uint16_t
aifab_port_tx_burst(const struct aifab_port_rt *rt, uint16_t q,
		    struct rte_mbuf **pkts, uint16_t n)
{
	if (likely(rt->tx_ring == NULL))
		return rte_eth_tx_burst(rt->port_id, q, pkts, n);
	return aifab_port_ring_tx(rt, q, pkts, n);
}

/** What the app gives a pipeline at init. */
struct aifab_env {
	const struct aifab_profile *prof;
	uint16_t n_ports;
	/** n_ports entries, owned by the app; alive until pipelines are
	 * freed. A switch instance of a profile with more than
	 * AIFAB_SW_MAX_PORTS ports sees only its own ports here (and
	 * prof->ports alike), indexed from 0: its report and counters name
	 * ports by these indices, which the app maps back. */
	struct aifab_port_rt *ports;
	uint64_t tsc_hz;
	/** Cycles of `now` between a worker's counter mirrors into lib/stats
	 * (0: tsc_hz / 1000, a millisecond). The whole-process virtual clock
	 * asks for a microsecond of model time: its runs last milliseconds,
	 * and a worker mirrors only at its polls, which happen when
	 * something changes. */
	uint64_t stats_sync;
	/** lcore of each worker, for stats labels; valid during init() only
	 * (NULL: workers are labelled 0, 1, ...). */
	const unsigned int *worker_lcores;
	/** For a switch pipeline: which instance it is (profile switches[]
	 * index; it owns the ports with !gen_owned and sw == sw_index) and
	 * its name ("" = the default switch). */
	uint8_t sw_index;
	char sw_name[AIFAB_NAME_LEN];
	/** [port]: 1 while the port's NIC reports its link down, written by
	 * the app's control loop (about every 100 ms, atomic byte stores);
	 * workers read it once per poll. NULL: no NIC link state. */
	const uint8_t *link_down;
	/** Nothing reads the departure stamps a switch writes into the
	 * mbuf's RX timestamp field (the app without --capture, whose TX
	 * callbacks and ring taps are their only reader): the switch then
	 * leaves the field alone. false (zeroed envs, tests): stamp. */
	bool stamps_unread;
};

/** Port @p p is another pipeline's: the generator's or another switch's. */
static inline bool
aifab_env_port_foreign(const struct aifab_env *env, unsigned int p)
{
	return env->ports[p].gen_owned || env->ports[p].sw != env->sw_index;
}

/** One port's counters, summed over a pipeline's workers. */
struct aifab_port_counters {
	uint64_t rx_packets, rx_bytes;
	uint64_t tx_packets, tx_bytes;
};

/** Writes named values into the report (see app/report.h). */
struct aifab_report_sink {
	void *ctx;
	/** Add "name": value to the object being written for port @p port. */
	void (*port_u64)(void *ctx, uint16_t port, const char *group,
			 const char *name, uint64_t value);
	/** Add "name": value under the port's "tc" object for class @p tc. */
	void (*port_tc_u64)(void *ctx, uint16_t port, unsigned int tc,
			    const char *name, uint64_t value);
	/** One member of an ECMP group (a route), with what it carried. */
	void (*ecmp_member)(void *ctx, const char *group, const char *member,
			    uint64_t packets, uint64_t bytes);
	/** Optional (NULL: ignored): link events of the member just given
	 * by ecmp_member(): times its port went down, and its group's remaps
	 * (link events that changed the group) and the buckets they moved. */
	void (*ecmp_member_link)(void *ctx, uint64_t down_events,
				 uint64_t remaps, uint64_t remap_buckets);
	/** Optional (NULL: ignored): the ecmp_member() calls that follow are
	 * switch instance @p sw's ("" = the default switch). */
	void (*switch_begin)(void *ctx, const char *sw);
};

struct aifab_pipeline_ops {
	const char *name;
	/**
	 * Build state for @p n_workers workers (each polls its own rx queues
	 * and owns one tx queue per port). NULL on error with @p err filled.
	 */
	void *(*init)(const struct aifab_env *env, unsigned int n_workers,
		      char *err, size_t errlen);
	/** One poll of worker @p w at TSC @p now. Returns packets handled. */
	unsigned int (*poll)(void *st, unsigned int w, uint64_t now);
	/** Stop receiving; push out or free what worker @p w holds. */
	void (*drain)(void *st, unsigned int w, uint64_t now);
	/** True when every finite source is consumed and nothing is held. */
	bool (*done)(const void *st);
	/**
	 * Optional: true when nothing is queued or held right now. A run with
	 * a traffic source (the generator) ends when the source is done and
	 * the other pipelines are done or idle. NULL: idle is done().
	 */
	bool (*idle)(const void *st);
	/** Sum counters per port (any lcore, while running or after). */
	void (*port_counters)(const void *st, struct aifab_port_counters *out);
	/** Named per-port details for the report (drops by reason, ...). */
	void (*report)(const void *st, const struct aifab_report_sink *sink);
	void (*fini)(void *st);
	/**
	 * Optional (NULL: none). The pipeline's lib/stats set: block w is
	 * worker w's, written only by the lcore running it. The app feeds
	 * each block's built-in load counters (aifab_stats_account()) from
	 * its poll loop and exports the set while the pipeline runs; the set
	 * lives until fini().
	 */
	struct aifab_stats_set *(*stats)(const void *st);
	/**
	 * Optional, for `[general] clock = virtual` (app/vclock.c; `now` is
	 * then nanoseconds of the one virtual clock and env tsc_hz 10^9):
	 * the earliest time after @p now at which worker @p w has something
	 * to do without a new frame arriving (a departure the shaper or
	 * pacing holds, a timer), or UINT64_MAX when only a frame can wake
	 * it. The app polls it at that time (poll() runs it until then) and
	 * whenever a frame reaches one of its ports. NULL: polled every
	 * model step the app chooses. Called from the clock's one thread,
	 * between polls: it may update what the worker keeps to answer it
	 * (the generator's per-rank summaries and rank sets).
	 */
	uint64_t (*next_event)(void *st, unsigned int w, uint64_t now);
	/**
	 * Optional, with next_event (NULL: false): whether worker @p w's
	 * next_event() is exact in the sense that lets the app skip polls:
	 * a poll before that time, with no frame delivered to its ports and
	 * no counter mirror due, changes nothing, and nothing but its own
	 * polls changes the answer (no state shared with another worker or
	 * pipeline). Then the app polls it only at that time, when a frame
	 * reaches it, or for the mirror, and asks next_event() again only
	 * after a poll. Asked once, when the app adds the worker to the
	 * clock. False: polled at every step while next_event() is not
	 * "never".
	 */
	bool (*next_event_exact)(const void *st, unsigned int w);
};

extern const struct aifab_pipeline_ops aifab_switch_ops;

#endif /* AIFAB_PIPELINE_H */
