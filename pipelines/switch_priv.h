/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Private to the switch pipeline: its state, the counting macros, the
 * helpers the hot path inlines and the functions its files share. Calls
 * go one way, down this list (a file calls only files below it):
 *
 *   switch_ops.c     the ops table; init and fini glue
 *   switch_worker.c  per-worker state: buffer, queues, fault stages, RX queues
 *   switch_setup.c   switch-wide set-up from the profile: FIB and ECMP
 *                    groups, QoS, PFC, virtual-time parameters
 *   switch_poll.c    one poll of a worker (real time), the run's end
 *   switch_vt.c      one poll in virtual time (pcap replays)
 *   switch_vclock.c  virtual time: when egress next acts (next_event)
 *   switch_rx.c      one RX burst: pcap EOF, the port's RX fault stage
 *   switch_link.c    link state into ECMP: watched ports, followed per poll
 *   switch_parse.c   ingress: parse, admit, seen counters (per chunk)
 *   switch_route.c   LPM, ECMP member, classify, L2 rewrite, TTL
 *   switch_tx.c      the egress pass: PFC received and sent, watchdog,
 *                    scheduler + shaper, TX through the TX fault stage
 *   switch_queue.c   ECN verdicts (enqueue itself: switch_enqueue.h, inline
 *                    into switch_route.c): PFC ingress accounting, buffer
 *                    admission, ECN
 *   switch_ref.c     the reference ingress (tests: fuzz_switch_diff)
 *   switch_peer.c    virtual time: the link into a port and its peer's pause
 *   switch_report.c  counters: set-up, mirror (sync), port counters, report
 *
 * Each worker owns a complete egress model over its share of the traffic
 * (RSS spreads flows over workers): queues, a shaper at port speed / n,
 * a slice of the shared buffer, PFC byte counts on 1/n of the thresholds.
 * What makes a port one PFC device is shared, without locks, through one
 * struct aifab_pfc_share per port (atomics): the received pause every
 * worker's scheduler honours, the workers above XOFF (XON only when none
 * is), the watchdog's stormed mask (worker 0 decides). With one worker the
 * model is exact.
 */
#ifndef SWITCH_PRIV_H
#define SWITCH_PRIV_H

#include <stdbool.h>
#include <stdint.h>

#include <rte_common.h>
#include <rte_mbuf.h>
#include <rte_reciprocal.h>

#include "aifab_ecmp.h"
#include "aifab_fib.h"
#include "aifab_link.h"
#include "aifab_pfc.h"
#include "aifab_pipeline.h"
#include "aifab_pkt.h"
#include "aifab_qos.h"
#include "aifab_rng.h"
#include "aifab_stats.h"
#include "switch_stats.h"

/* Drop ids: a parser reason or one of the switch's (see switch_stats.h). */
#define SW_DROP(name) ((unsigned int)sw_st_drop_##name)

#define SW_CHUNK 64          /* packets processed per pass */
#define SW_TXBUF 64          /* per (worker, port) before a TX burst */
#define SW_MAX_RXQ (AIFAB_SW_MAX_PORTS * 8)
#define SW_EMPTY_POLLS_EOF 2 /* empty polls of a pcap before calling it EOF */
#define SW_FIFO_MIN 1024     /* packets per (port, TC) queue, at least */
#define SW_FIFO_MAX (1u << 18) /* and at most: buffer / SW_CELL, power of 2 */
/*
 * The buffer is accounted in cells, as merchant chips do: a frame takes
 * ceil(len / SW_CELL) cells. So a queue's FIFO (buffer / SW_CELL entries)
 * can never fill before the buffer and PFC thresholds are reached.
 */
#define SW_CELL 256u
#define SW_CELLS(len) RTE_ALIGN_CEIL((uint32_t)(len), SW_CELL)
/*
 * Buffer (in cells) the PFC headroom reserve keeps for @p bytes of
 * headroom arriving as frames of @p frame bytes (the port's MTU plus
 * Ethernet and VLAN headers, as the headroom formula assumes): ceil(bytes /
 * frame) frames of SW_CELLS(frame) each. Smaller frames take more cells
 * per byte than that.
 */
#define SW_HR_CELLS(bytes, frame) \
	(((uint64_t)(bytes) + (frame) - 1) / (frame) * SW_CELLS(frame))
#define SW_VT_HZ 1000000000ull /* virtual clock: nanoseconds */

/* Metadata carried in mbuf->hash.usr between enqueue and dequeue. */
#define SW_META(in_port, tc) ((uint32_t)(in_port) << 8 | (tc))
#define SW_META_PORT(u) ((uint16_t)((u) >> 8))
#define SW_META_TC(u) ((uint8_t)((u) & 0x7))

/*
 * Counting: a worker's block of the "sw" set, through per-counter base
 * pointers cached in the worker (one load and one add per count).
 */
#if AIFAB_SW_STATS
#define SW_ADD(wk, id, port, n) ((wk)->cb[id][port] += (n))
#define SW_ADD_TC(wk, id, port, tc, n) \
	((wk)->cb[id][(uint32_t)(port) * AIFAB_QOS_N_TC + (tc)] += (n))
#else
#define SW_ADD(wk, id, port, n) \
	((void)(wk), (void)(id), (void)(port), (void)(n))
#define SW_ADD_TC(wk, id, port, tc, n) \
	((void)(wk), (void)(id), (void)(port), (void)(tc), (void)(n))
#endif
#define SW_INC(wk, id, port) SW_ADD(wk, id, port, 1)

/*
 * A FIB target (group id: one per neighbour, then one per route, in
 * profile order): its ECMP group (routes with the same next hops, in the
 * same order, share one: the same choice, the same link events) and its
 * per-member counters, packets and bytes, at ectr[2 * (ctr + slot)].
 */
struct sw_target {
	uint32_t group;          /* index into groups[] */
	uint32_t ctr;            /* first member's counter slot */
};

/* Link events of one ECMP group (shared by its targets). */
struct sw_ecmp_link {
	uint64_t down_events[AIFAB_FIB_MAX_MEMBERS]; /* member's port went down */
	uint64_t remaps;         /* link events that changed the group */
	uint64_t remap_buckets;  /* buckets those moved */
};

struct sw_rxq {
	uint16_t port;           /* index into env ports */
	uint16_t queue;
	bool finite;
	uint8_t empty_polls;
	bool exhausted;          /* read by done() on another lcore */
	uint64_t nombuf_seen;
	/* The whole-process virtual clock's wire into the port, when the
	 * worker reads by its marks (sw_rx_by_mark()): read straight from
	 * here (aifab_wire_read()), without the port's and its tap's lines. */
	struct aifab_wire *wire;
	/* virtual time: a staged burst, consumed in timestamp order */
	uint16_t st_n, st_next;
	int16_t head_tc;         /* TC of st[st_next], -1: not known yet */
	struct rte_mbuf *st[SW_CHUNK];
};

/* Virtual time: the link into a port and the peer at its other end. */
struct sw_peer {
	uint64_t link_free;              /* ns: the link is busy until */
	uint32_t link_frac;              /* and this many 1/speed_mbps of a ns */
	uint64_t from[AIFAB_QOS_N_TC];   /* ns: our XOFF takes effect */
	uint64_t until[AIFAB_QOS_N_TC];  /* ns: the pause ends */
};

/*
 * Virtual time: a port's transmitter (one worker's share of the port's
 * speed), busy one frame after another. The same arithmetic as the
 * in-memory wire's (app/vclock.c app_serial_start()), so a frame the
 * switch releases at its serialization start finds the wire free.
 */
struct sw_serial {
	uint64_t free_ns;             /* busy until (whole ns) */
	uint32_t frac;                /* and this many 1/mbps of a ns */
	uint32_t mbps;                /* 0: not set yet */
	/* The last frame length + 1 (0: none) and its wire time in whole
	 * ns and 1/mbps of a ns, as app_serial_start() keeps them: a
	 * port's frames are mostly one size, and a 64-bit division per
	 * departure is not free. */
	uint32_t len1, r;
	uint64_t q;
};

struct sw_txbuf {
	uint16_t n;
	uint32_t bytes;               /* of pkts[0..n-1], for tx_bytes */
	/* The whole-process virtual clock: the put and wire of the port's
	 * TX tap of this worker's queue, once seen putting onto the wire
	 * with no hook (sw_tx_flush_vc()); NULL put: not seen (yet). Kept
	 * here, in the line the departures just wrote, not read from the
	 * tap's (a line of its own per port, evicted between flushes). */
	uint16_t (*vc_put)(void *wire, struct rte_mbuf **pkts, uint16_t n);
	void *vc_wire;
	struct rte_mbuf *pkts[SW_TXBUF];
};

/* One egress port as one worker sees it. */
struct sw_egress {
	struct aifab_qos_fifo *q[AIFAB_QOS_N_TC];
	struct aifab_qos_shaper shaper;
	struct aifab_qos_sched sched;
	struct aifab_pfc_rx pfc_rx;   /* pauses we were asked for */
	struct aifab_pfc_wd wd;
	struct aifab_pfc_gen pfc_gen; /* as an ingress port: XOFF we send */
	struct sw_serial ser;         /* virtual time: the transmitter */
	uint8_t nonempty;
	uint8_t stormed_seen;         /* share's stormed mask at last poll */
	/* The whole-process clock's summary: the TCs whose queue may have
	 * changed (an enqueue, a dequeue) since the port's last mirror
	 * (sw_stats_sync_ports() mirrors only their queue levels) */
	uint8_t tc_dirty;
};

struct sw_worker {
	uint64_t *cb[sw_st_N];        /* counter bases in this worker's block */
	struct aifab_stats_block *blk;
	uint64_t synced;              /* TSC of the last mirror (stats sync) */
	struct sw_txbuf tx[AIFAB_SW_MAX_PORTS];
	struct sw_egress eg[AIFAB_SW_MAX_PORTS];
	struct aifab_qos_buf *buf;    /* this worker's share */
	struct sw_peer peer[AIFAB_SW_MAX_PORTS];
	uint64_t *ectr;               /* [2 * n_ctr]: sw_target */
	struct sw_ecmp_link *elink;   /* [n_egroups] */
	/* This worker's copy of the groups: its link events change it. */
	struct aifab_ecmp_group *groups; /* [n_egroups] */
	uint8_t port_down[AIFAB_SW_MAX_PORTS]; /* as this worker last saw it */
	uint64_t port_down_events[AIFAB_SW_MAX_PORTS];
	struct aifab_rng rng;
	/* [port] fault_rx_* / fault_tx_*: NULL where none is configured */
	struct aifab_link *link[AIFAB_SW_MAX_PORTS][2];
	uint32_t n_links;             /* non-NULL entries of link[][] */
	uint64_t now;                 /* last clock value used */
	uint64_t now_ns;              /* sw_ns(now) of the egress pass */
	bool vt_due;                  /* virtual time: an arrival since the
				       * last egress run (PFC thresholds) */
	/* The whole-process clock: ports with something of their own to
	 * do (a queued frame, a TX buffer, an XOFF kept or due, a watchdog
	 * with state) as the last exact egress run left them
	 * (sw_egress_exact(), which ends every poll), so that
	 * sw_egress_next() visits only those. vc_act_ok: the set is usable
	 * (see sw_vclock_note()). */
	uint64_t vc_act;
	/* and the ports whose PFC generation has anything to look at
	 * (bytes buffered from them, an XOFF wanted or told), with the
	 * ports frames came in by since (sw_poll_real()): the exact egress
	 * run polls only those ports' PFC generation */
	uint64_t vc_pfc;
	uint64_t vc_in;
	bool vc_act_ok;
	/* The summary the exact run reads instead of every port's state
	 * (vc_act_ok; sw_egress_exact()), kept where the values change:
	 * vc_ne, the ports with a queued frame (set at enqueue, cleared by
	 * the exact run when the port's queues are empty); vc_tx, the ports
	 * given a frame to send since their last flush (departures and
	 * PFC frames); vc_pfc_en, the ports with PFC generation on, and
	 * vc_pfc_w those with XOFF wanted or told;
	 * vc_dirty, the ports whose mirrored counters may have changed since
	 * the last mirror, and vc_pausing, the ports whose paused time may
	 * still grow (sw_stats_sync_ports()); vc_wd, the ports whose PFC
	 * watchdog has state (fed since it was last quiet, in an episode,
	 * stormed: its poll may act); vc_next, sw_egress_next() as
	 * the exact run at vc_next_at left it (valid: vc_next_ok). */
	uint64_t vc_ne;
	uint64_t vc_tx;
	uint64_t vc_pfc_en;
	uint64_t vc_pfc_w;
	uint64_t vc_dirty;
	uint64_t vc_pausing;
	uint64_t vc_wd;
	/* The RX queues (bit: index in rxq[]) the whole-process clock put
	 * frames in since their last read (it marks them through the
	 * ports' taps, sw_rx_by_mark()); vc_rx_mode: 0 not decided yet, 1
	 * read the marked ones only, 2 read every queue */
	uint64_t vc_rx;
	uint8_t vc_rx_mode;
	uint64_t vc_next;
	uint64_t vc_next_at;
	bool vc_next_ok;
	/* [port]: with one worker (the only writer of the port's received
	 * pause, struct aifab_pfc_share), no priority of the port is paused
	 * from this instant on: the latest `until` it stored */
	uint64_t pause_end[AIFAB_SW_MAX_PORTS];
	/* Real time with one worker, no fault stage and the fast paths
	 * (sw_egress_run(); rt_sets_ok: the sets are kept): rt_pfc, the
	 * ports whose PFC generation had something to look at after its
	 * last poll (bytes buffered from the port, an XOFF wanted or
	 * told); with vc_in (the ports frames came in by since) the ports
	 * whose PFC generation is polled. vc_wd (the watchdog with state)
	 * and pause_end serve the real-time pass as the exact run. */
	uint64_t rt_pfc;
	bool rt_sets_ok;
	uint16_t n_rxq;
	uint16_t txq;
	struct sw_rxq rxq[SW_MAX_RXQ];
	uint8_t scratch[SW_CHUNK][AIFAB_PKT_HDR_WINDOW];
} __rte_cache_aligned;

/* Read-only after init: shared by all workers. */
struct sw {
	struct aifab_env env;
	struct aifab_fib *fib;
	struct aifab_ecmp_cfg ecmp_cfg;
	struct sw_target *tgt;         /* [n_groups]: per FIB group */
	uint32_t n_groups;             /* FIB groups (targets) */
	struct aifab_ecmp_group *groups; /* [n_egroups]: distinct member
					  * lists; workers select from their
					  * copy */
	uint32_t n_egroups;
	uint32_t n_ctr;                /* member counters of all targets */
	/* the smallest egress MTU: a frame within it skips the port's */
	uint32_t mtu_min;
	/* Link state into ECMP (sw_link_state): next hop -> port, the groups
	 * of several members, and the ports whose state is watched. */
	uint16_t nh_port[AIFAB_SW_MAX_NEIGHS];
	uint32_t n_nh;
	/* next hop -> the frame's new Ethernet destination and source (the
	 * neighbour's MAC, its port's): the rewrite is one 12-byte copy */
	uint8_t nh_l2[AIFAB_SW_MAX_NEIGHS][2 * RTE_ETHER_ADDR_LEN];
	uint32_t *multi;               /* groups[] ids with n_members > 1 */
	uint32_t n_multi;
	uint16_t watch[AIFAB_SW_MAX_PORTS];
	uint16_t n_watch;
	unsigned int n_workers;
	uint32_t burst;
	bool check_csum;
	bool virtual_time;
	bool vclock;                   /* the whole-process virtual clock */
	bool ecn_at_dequeue;
	bool peer_pause;               /* virtual time: pcap peers honour PFC */
	uint64_t peer_delay[AIFAB_SW_MAX_PORTS]; /* ns: XOFF until the peer stops */
	uint64_t hz;                   /* clock rate of `now` */
	struct rte_reciprocal_u64 hz_rcp; /* division by hz, by a multiply */
	int ts_off;                    /* mbuf timestamp dynfield, or -1 */
	uint64_t ts_flag;
	/* departure stamps into that field: it exists and something reads
	 * them (env stamps_unread: the app without --capture) */
	bool stamp;
	struct aifab_qos_map map;
	uint8_t trust[AIFAB_SW_MAX_PORTS];
	/* The ports whose watchdog stormed mask (pfc_share[port].stormed)
	 * is not 0, set and cleared with it (sw_pfc_pause(), atomics): the
	 * one mutable word here. Admission and the next-event search read
	 * this bit, in the line of `lossless` that admission reads anyway,
	 * instead of the share's fifth line per frame (sw_stormed()). */
	uint64_t stormed_ports;
	uint8_t lossless;              /* TC mask */
	/* 802.1p priorities <-> TCs ([qos] pcp_to_tc): a PFC frame's bits
	 * are priorities, queues and PFC accounting are per TC */
	uint8_t tcs_of_prios[256];     /* priority mask -> TC mask */
	uint8_t prios_of_tc[AIFAB_QOS_N_TC]; /* TC -> priority mask */
	struct aifab_qos_ecn_cfg ecn[AIFAB_QOS_N_TC];
	struct aifab_qos_shaper_cfg shaper[AIFAB_SW_MAX_PORTS];
	struct aifab_qos_sched_cfg sched;
	struct aifab_pfc_gen_config pfc_gen[AIFAB_SW_MAX_PORTS];
	bool pfc_on[AIFAB_SW_MAX_PORTS];  /* [port.X] pfc */
	uint64_t hr_pool;              /* per worker: cells kept for PFC
					* headroom out of the shared buffer */
	struct aifab_pfc_wd_config wd;
	/* [port]: the one mutable part, shared by the workers through
	 * atomics only (received pause, XOFF mask, stormed mask) */
	struct aifab_pfc_share *pfc_share;
	struct sw_worker *w;           /* n_workers of them */
	struct aifab_stats_set *stats; /* "sw": one block per worker */
	uint64_t sync_cycles;          /* TSC between stats mirrors */
	/* tests may ask for the reference paths: ingress (switch_ref.c,
	 * per burst) and the real-time egress (switch_tx.c, per packet) */
	bool reference;
	/* tests may ask for every RX queue's chunks in one ingress burst
	 * (switch_poll.c sw_rx_gather(), as on the whole-process clock) */
	bool gather_rx;
};

/*
 * A chunk's frames admitted for routing (switch_parse.c to
 * switch_route.c): parse results by position in the chunk, and the
 * destinations of the IPv4 and IPv6 ones, each list in arrival order.
 */
struct sw_admitted {
	struct aifab_pkt_info pi[SW_CHUNK];
	const uint8_t *hdr[SW_CHUNK];  /* where the parser read the headers */
	uint32_t ip4[SW_CHUNK];        /* host order */
	uint8_t ip6[SW_CHUNK][16];
	uint16_t idx4[SW_CHUNK], idx6[SW_CHUNK]; /* positions in the chunk */
	uint16_t n4, n6;
};

/* A run of a burst's frames from one RX port (sw_ingress_segs()). */
struct sw_seg {
	uint16_t port;
	uint16_t n;
};

/* ---- functions, by file, in call order (each calls only those below) ---- */

/* switch_worker.c */
int sw_link_check(const struct sw *sw, char *err, size_t errlen);
int sw_rxq_assign(struct sw *sw, char *err, size_t errlen);
int sw_worker_setup(struct sw *sw, struct sw_worker *wk, unsigned int w,
		    int socket);
void sw_worker_free(struct sw *sw, struct sw_worker *wk);

/* switch_setup.c */
int sw_vt_setup(struct sw *sw, char *err, size_t errlen);
int sw_fib_build(struct sw *sw, int socket, char *err, size_t errlen);
int sw_ecmp_setup(struct sw *sw, char *err, size_t errlen);
int sw_qos_setup(struct sw *sw, char *err, size_t errlen);
int sw_pfc_setup(struct sw *sw, char *err, size_t errlen);
uint64_t sw_buf_share(const struct sw *sw);

/* switch_poll.c: the ops table's run-time entries */
unsigned int sw_poll(void *st, unsigned int w, uint64_t now);
void sw_drain(void *st, unsigned int w, uint64_t now);
bool sw_done(const void *st);
bool sw_idle(const void *st);

/* switch_vt.c */
unsigned int sw_poll_virtual(struct sw *sw, struct sw_worker *wk);

/* switch_vclock.c: when egress next acts in virtual time; the ops
 * table's next_event ([general] clock = virtual) */
void sw_vclock_note(const struct sw *sw, struct sw_worker *wk);
uint64_t sw_egress_next(const struct sw *sw, const struct sw_worker *wk,
			uint64_t now);
uint64_t sw_next_event(void *st, unsigned int w, uint64_t now);
bool sw_next_event_exact(const void *st, unsigned int w);

/* switch_rx.c: an empty read of @p q (sw_rx(), below) */
void sw_rx_empty(const struct sw *sw, struct sw_rxq *q);

/* switch_link.c; sw_link_state() below */
int sw_link_watch_setup(struct sw *sw, int socket, char *err, size_t errlen);
void sw_link_state_set(struct sw *sw, struct sw_worker *wk);

/* switch_parse.c */
void sw_ingress(struct sw *sw, struct sw_worker *wk, uint16_t in_port,
		struct rte_mbuf **pkts, uint16_t n);
void sw_ingress_segs(struct sw *sw, struct sw_worker *wk,
		     struct rte_mbuf **pkts, uint16_t n,
		     const struct sw_seg *seg, unsigned int nseg);

/* switch_ref.c: the reference ingress (tests, switch_ref.h) */
void sw_ingress_ref(struct sw *sw, struct sw_worker *wk, uint16_t in_port,
		    struct rte_mbuf **pkts, uint16_t n);

/* switch_route.c */
void sw_route(struct sw *sw, struct sw_worker *wk, uint16_t in_port,
	      struct rte_mbuf **pkts, struct sw_admitted *a);
bool sw_fused(struct sw *sw, struct sw_worker *wk, uint16_t in_port,
	      struct rte_mbuf **pkts, uint16_t n);
bool sw_fused_segs(struct sw *sw, struct sw_worker *wk, struct rte_mbuf **pkts,
		   uint16_t n, const struct sw_seg *seg, unsigned int nseg);

/* switch_tx.c */
void sw_egress_run(struct sw *sw, struct sw_worker *wk, uint64_t now);
void sw_egress_exact(struct sw *sw, struct sw_worker *wk, uint64_t now);
void sw_pfc_received(struct sw *sw, struct sw_worker *wk, uint16_t port,
		     const struct aifab_pkt_info *pi);
void sw_tx_flush(struct sw *sw, struct sw_worker *wk, uint16_t port);
void sw_flush_queues(struct sw *sw, struct sw_worker *wk);
bool sw_queues_empty(const struct sw *sw, const struct sw_worker *wk);

/* switch_queue.c (sw_enqueue itself: inline, switch_enqueue.h) */
bool sw_ecn(struct sw *sw, struct sw_worker *wk, uint16_t port, uint8_t tc,
	    struct rte_mbuf *m, uint32_t qbytes);

/* switch_peer.c */
void sw_link_busy(const struct sw *sw, struct sw_peer *pe, uint16_t p,
		  uint64_t t, uint32_t len);
void sw_peer_pfc(struct sw *sw, struct sw_worker *wk, uint16_t port,
		 const struct aifab_pfc_frame *f, uint64_t sent);

/* switch_report.c */
int sw_stats_setup(struct sw *sw, char *err, size_t errlen);
void sw_stats_sync(struct sw *sw, struct sw_worker *wk);
void sw_stats_sync_ports(struct sw *sw, struct sw_worker *wk);
void sw_port_counters(const void *st, struct aifab_port_counters *out);
void sw_report(const void *st, const struct aifab_report_sink *sink);
void sw_warn_headroom(const struct sw *sw);

/* ---- helpers several files inline --------------------------------------- */

/* The worker that runs a port's PFC watchdog for all of them. */
static inline bool
sw_wd_owner(const struct sw *sw, const struct sw_worker *wk)
{
	return wk == &sw->w[0];
}

/* The clock in ns (the virtual clock already is). */
static inline uint64_t
sw_ns(const struct sw *sw, uint64_t now)
{
	uint64_t q;

	if (sw->virtual_time)
		return now;
	/* now / hz * 10^9 + now % hz * 10^9 / hz, the divisions by DPDK's
	 * exact reciprocal (a real-time poll takes this twice or more: two
	 * divide instructions each cost more than the rest of a frame) */
	q = rte_reciprocal_divide_u64(now, &sw->hz_rcp);
	return q * 1000000000ull + rte_reciprocal_divide_u64(
		(now - q * sw->hz) * 1000000000ull, &sw->hz_rcp);
}

static inline void
sw_drop(struct sw_worker *wk, uint16_t port, unsigned int reason,
	struct rte_mbuf *m)
{
	SW_INC(wk, reason, port);
	rte_pktmbuf_free(m);
}

/*
 * Follow the watched ports' link state (sw_link_state_set(),
 * switch_link.c). Without a fault stage on this worker a port is down
 * only while the NIC says so: a byte per watched port to compare, per
 * poll, before anything is called; a change, or a fault stage (whose
 * down window reads the time), takes the whole way.
 */
static __rte_always_inline void
sw_link_state(struct sw *sw, struct sw_worker *wk)
{
	const uint8_t *down = sw->env.link_down;
	unsigned int i;

	if (wk->n_links == 0 && down != NULL) {
		for (i = 0; i < sw->n_watch; i++) {
			uint16_t p = sw->watch[i];

			if ((__atomic_load_n(&down[p], __ATOMIC_RELAXED) !=
			     0) != (wk->port_down[p] != 0))
				break;
		}
		if (i == sw->n_watch)
			return;
	}
	sw_link_state_set(sw, wk);
}

/*
 * One RX burst, through the port's RX fault stage if it has one (frames
 * it delays come back through sw_link_rx_release()). Inline: every poll
 * reads every RX queue, most of them empty (a call's saved registers
 * cost more than such a read).
 */
static __rte_always_inline uint16_t
sw_rx(struct sw *sw, struct sw_worker *wk, struct sw_rxq *rq,
      struct rte_mbuf **pkts, uint16_t n)
{
	struct aifab_link *l;
	uint16_t got;

	/* the whole-process clock's wire: no fault stage, not a pcap */
	if (rq->wire != NULL)
		return aifab_wire_read(rq->wire, pkts, n);
	got = aifab_port_rx_burst(&sw->env.ports[rq->port], rq->queue, pkts,
				  n);
	if (got == 0) {
		if (unlikely(rq->finite))
			sw_rx_empty(sw, rq);
		return 0;
	}
	rq->empty_polls = 0;
	l = wk->link[rq->port][AIFAB_FAULT_DIR_RX];
	if (unlikely(l != NULL))
		got = aifab_link_in(l, pkts, got, sw_ns(sw, wk->now),
				    wk->scratch[0]);
	return got;
}

/* Port @p p belongs to another switch instance (not the generator). */
static inline bool
sw_other_switch(const struct aifab_env *env, unsigned int p)
{
	return !env->ports[p].gen_owned && env->ports[p].sw != env->sw_index;
}

/* The buffer, at enqueue (switch_queue.c) and dequeue (switch_tx.c). */

static inline uint32_t
sw_queue(uint16_t port, uint8_t tc)
{
	return (uint32_t)port * AIFAB_QOS_N_TC + tc;
}

static inline uint64_t
sw_free(const struct sw_worker *wk)
{
	return wk->buf->size - wk->buf->used;
}

/* Undo a packet's buffer and PFC accounting (dequeued or dropped). */
static inline void
sw_release(struct sw *sw, struct sw_worker *wk, uint16_t out_port,
	   const struct rte_mbuf *m)
{
	uint8_t tc = SW_META_TC(m->hash.usr);

	aifab_qos_buf_release(wk->buf, sw_queue(out_port, tc),
			      SW_CELLS(m->pkt_len));
	if (sw->lossless & (1u << tc))
		aifab_pfc_gen_sub_inline(
			&wk->eg[SW_META_PORT(m->hash.usr)].pfc_gen, tc,
			m->pkt_len, sw_free(wk));
}

/*
 * sw_release() of @p n packets just dequeued, in order, from one queue
 * of @p out_port (@p bytes, @p cells: their sums). When they all came
 * from one ingress port (@p one_meta, the usual run), the first is
 * released as sw_release() does and the rest at once, ending in the
 * state the per-packet releases would leave: the buffer gives headroom
 * back first and PFC's bytes and headroom stop at 0, one subtraction or
 * several; and PFC's XOFF wish (aifab_pfc_gen_update_want()) only sees
 * its thresholds rise (the buffer frees) and bytes and headroom fall
 * over the run, so XOFF cannot newly start after the first update and
 * the XON condition, once met, stays met: the first update and the last
 * decide the outcome. Mixed ingress ports: per packet.
 */
static inline void
sw_release_run(struct sw *sw, struct sw_worker *wk, uint16_t out_port,
	       struct rte_mbuf *const *pkts, uint32_t n, bool one_meta,
	       uint32_t bytes, uint32_t cells)
{
	uint32_t meta = pkts[0]->hash.usr, len0 = pkts[0]->pkt_len, i;
	uint8_t tc = SW_META_TC(meta);

	if (!one_meta || n == 1) {
		for (i = 0; i < n; i++)
			sw_release(sw, wk, out_port, pkts[i]);
		return;
	}
	sw_release(sw, wk, out_port, pkts[0]);
	aifab_qos_buf_release(wk->buf, sw_queue(out_port, tc),
			      cells - SW_CELLS(len0));
	if (sw->lossless & (1u << tc))
		aifab_pfc_gen_sub_inline(&wk->eg[SW_META_PORT(meta)].pfc_gen,
					 tc, bytes - len0, sw_free(wk));
}

/* The watchdog's stormed mask of @p port (the share's, 0 while the
 * port's bit in stormed_ports is clear: nothing stormed there). */
static __rte_always_inline uint8_t
sw_stormed(const struct sw *sw, uint16_t port)
{
	if (likely(((__atomic_load_n(&sw->stormed_ports, __ATOMIC_RELAXED) >>
		     port) & 1) == 0))
		return 0;
	return aifab_pfc_share_stormed(&sw->pfc_share[port]);
}

/* The watchdog set both summaries start from (the exact run's and the
 * real-time pass's vc_wd): every port when the watchdog is on, so each
 * port's watchdog is polled at the first pass. */
static inline uint64_t
sw_wd_all(const struct sw *sw)
{
	if (sw->wd.enabled == 0)
		return 0;
	return sw->env.n_ports >= 64 ? UINT64_MAX :
		(UINT64_C(1) << sw->env.n_ports) - 1;
}

/* PFC generation of @p port can act at a later poll without a frame
 * coming in by the port first (aifab_pfc_gen_poll_inline()'s test: an
 * XOFF wanted or told, or bytes buffered from it); the exact run's and
 * the real-time pass's set of ports to poll. */
static inline bool
sw_pfc_gen_live(const struct sw *sw, const struct sw_worker *wk,
		uint16_t port)
{
	const struct aifab_pfc_gen *g = &wk->eg[port].pfc_gen;
	uint8_t en = sw->pfc_gen[port].enabled;
	unsigned int m;

	if (en == 0)
		return false;
	if ((g->want | g->told) != 0)
		return true;
	for (m = en; m != 0; m &= m - 1)
		if (g->bytes[__builtin_ctz(m)] != 0)
			return true;
	return false;
}

#endif /* SWITCH_PRIV_H */
