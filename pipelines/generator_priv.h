/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Generator pipeline internals shared by its files: the state, constants,
 * counter lists and the small lookups every layer uses. The files call
 * one way only (a DAG, leaves at the bottom):
 *
 *   generator_ops.c     ops table: poll = RX, then each rank's send, flush
 *     generator_setup.c   params, build from them, fini
 *     generator_rx.c      receive: one frame dispatch, closed-loop replies
 *       generator_tx.c      send: schedule -> QP -> build -> pace -> queue
 *         generator_cl.c      closed-loop QP state (lib/rc, lib/dcqcn)
 *     generator_report.c  counters to lib/stats, summary, report, table
 *
 * generator_start.c (several servers: start frames, the start gate) sits
 * between rx and tx: rx hands it what is not RoCEv2, it queues through tx.
 *
 * (setup also calls cl and report to build their parts.)
 */
#ifndef GENERATOR_PRIV_H
#define GENERATOR_PRIV_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include <rte_mbuf.h>
#include <rte_reciprocal.h>
#include <rte_ring.h>
#include <rte_spinlock.h>

#include "aifab_collective.h"
#include "aifab_dcqcn.h"
#include "aifab_fault.h"
#include "aifab_pfc.h"
#include "aifab_pkt.h"
#include "aifab_rc.h"
#include "aifab_roce.h"
#include "aifab_stats.h"
#include "generator.h"

#define GEN_TXBUF 64            /* frames per port before a TX burst */
#define GEN_CNPBUF 32           /* CNPs per port waiting for TX */
#define GEN_STASH 32            /* frame mbufs allocated at once */
#define GEN_STAT_SLOTS 4        /* iterations whose step stats are open */
#define GEN_VT_HZ 1000000000ull /* virtual clock: 1 cycle = 1 ns */
#define GEN_RX_BURST 32
#define GEN_FP 20               /* token bucket fixed point: bytes << 20 */
#define GEN_WIRE_EXTRA 24       /* FCS 4 + preamble 8 + IFG 12 */
#define GEN_MAX_CONNS (1u << 16)
#define GEN_MAX_QPS_PER_CONN 8
#define GEN_MAX_WORKERS 16      /* [generator] lcores */
#define GEN_INBOX 4096          /* frames handed to one worker, in flight */
#define GEN_PORT_WORDS ((AIFAB_GEN_MAX_PORTS + 63) / 64) /* port sets */

/* Per-port counters the generator adds: enum, report key (also the
 * lib/stats counter name), unit and help. */
#define GEN_PORT_CTRS(X) \
	X(TX_DROPPED, tx_dropped, "packets", \
	  "Frames dropped at TX: queue full, or held by a pause at the end") \
	X(TX_NOMBUF, tx_nombuf, "packets", \
	  "Frames not built for want of mbufs (retried later)") \
	X(RX_ROCE, rx_roce, "packets", \
	  "RoCEv2 frames received and accepted (ICRC right or not checked)") \
	X(RX_OTHER, rx_not_roce, "packets", \
	  "Frames received that are not RoCEv2 (malformed ones included)") \
	X(RX_UNKNOWN_QP, rx_unknown_qp, "packets", \
	  "RoCEv2 frames to a QP the generator does not have") \
	X(RX_NO_TAG, rx_no_tag, "packets", \
	  "Data packets without a readable payload tag (no latency sample)") \
	X(RX_ACK, rx_ack, "packets", "ACKs received (closed loop)") \
	X(RX_NAK, rx_nak, "packets", "PSN sequence NAKs received") \
	X(RX_NAK_OTHER, rx_nak_other_syndrome, "packets", \
	  "AETH NAKs with another syndrome (ignored)") \
	X(RX_CNP, rx_cnp, "packets", "CNPs received (to a sender QP)") \
	X(RX_CE, rx_ce, "packets", "Data packets received marked CE") \
	X(RX_ROCE_OTHER, rx_roce_other_opcode, "packets", \
	  "RoCEv2 frames of an opcode the generator does not use") \
	X(RX_PFC, rx_pfc, "frames", "PFC frames received") \
	X(RX_PAUSE, rx_pause_802_3x, "frames", "802.3x PAUSE frames received") \
	X(RX_ICRC_CHECKED, rx_icrc_checked, "packets", \
	  "RoCEv2 frames whose ICRC was checked (rx_check_icrc)") \
	X(RX_BAD_ICRC, rx_bad_icrc, "packets", \
	  "RoCEv2 frames dropped for a wrong ICRC, as a NIC drops them") \
	X(RX_HANDOFF, rx_handoff, "packets", \
	  "Frames received for another generator lcore's rank and handed to " \
	  "it (not steered to its RX queue)") \
	X(RX_HANDOFF_DROPPED, rx_handoff_dropped, "packets", \
	  "Frames for another generator lcore dropped: its hand-off ring " \
	  "was full") \
	X(TX_ACK, tx_ack, "packets", "ACKs sent (closed loop responders)") \
	X(TX_NAK, tx_nak, "packets", "NAKs sent (closed loop responders)") \
	X(TX_CNP, tx_cnp, "packets", "CNPs sent (notification points)") \
	X(TX_CTL_DROPPED, tx_ctl_dropped, "packets", \
	  "ACKs, NAKs or CNPs dropped: their queue was full") \
	X(STAT_OVERRUN, step_stats_overrun, "events", \
	  "Step statistics lost: an iteration ran too far ahead")

#define GEN_ENUM(e, s, u, h) GEN_##e,
enum gen_ctr { GEN_PORT_CTRS(GEN_ENUM) GEN_CTR_MAX };
#undef GEN_ENUM

/* Run-wide counters (closed loop), kept by the worker as events happen:
 * enum, lib/stats name, kind, unit, help. */
#define GEN_GLOBAL_CTRS(X) \
	X(RETX_PKTS, rc_retx_pkts, COUNTER, "packets", \
	  "Packets resent by go-back-N (NAK or timeout)") \
	X(RETX_BYTES, rc_retx_bytes, COUNTER, "bytes", \
	  "Payload bytes resent by go-back-N") \
	X(NAKS_RX, rc_naks_rx, COUNTER, "packets", \
	  "PSN sequence NAKs the requesters processed") \
	X(NAKS_TX, rc_naks_tx, COUNTER, "packets", \
	  "NAKs the responders decided to send") \
	X(ACKS_RX, rc_acks_rx, COUNTER, "packets", \
	  "ACKs the requesters processed") \
	X(ACKS_TX, rc_acks_tx, COUNTER, "packets", \
	  "ACKs the responders decided to send") \
	X(TIMEOUTS, rc_timeouts, COUNTER, "events", \
	  "Retransmit timeouts of the requesters") \
	X(DUP_RX, rc_duplicates_rx, COUNTER, "packets", \
	  "Data packets the responders had already accepted") \
	X(OOS_RX, rc_out_of_sequence_rx, COUNTER, "packets", \
	  "Data packets beyond the expected PSN (a gap)") \
	X(DELIVERED, rc_delivered_bytes, COUNTER, "bytes", \
	  "Payload bytes the responders accepted, each PSN once") \
	X(CE_RX, dcqcn_ce_rx, COUNTER, "packets", \
	  "CE-marked data packets at the notification points") \
	X(CNP_TX, dcqcn_cnp_tx, COUNTER, "packets", \
	  "CNPs the notification points decided to send") \
	X(CNP_RX, dcqcn_cnp_rx, COUNTER, "packets", \
	  "CNPs the reaction points received") \
	X(RATE_CUTS, dcqcn_rate_cuts, COUNTER, "events", \
	  "DCQCN rate decreases") \
	X(RATE_AVG, dcqcn_rate_avg_bytes_per_second, GAUGE, "bytes per second", \
	  "Mean over QPs that sent of each QP's rate at its last packet") \
	X(RATE_MIN, dcqcn_rate_min_bytes_per_second, GAUGE, "bytes per second", \
	  "Lowest rate any QP that sent reached (DCQCN off: the rank rate)")

#define GEN_ENUM(e, n, k, u, h) GEN_G_##e,
enum gen_glob { GEN_GLOBAL_CTRS(GEN_ENUM) GEN_GLOB_MAX };
#undef GEN_ENUM

/* lib/stats counter ids of the set "generator" (one block: the worker's). */
enum gen_stat {
	GS_TX_PKTS, GS_TX_BYTES, GS_RX_PKTS, GS_RX_BYTES,
	GS_CTR0,                                    /* + enum gen_ctr */
	GS_MAL0 = GS_CTR0 + GEN_CTR_MAX,            /* + parse error - 1 */
	GS_FAULT0 = GS_MAL0 + AIFAB_PKT_ERR_MAX - 1, /* + fault counter */
	GS_PFC_RX = GS_FAULT0 + AIFAB_FAULT_CNT_MAX, /* PORT_PRIO */
	GS_PFC_PAUSED,                              /* PORT_PRIO, cycles */
	GS_GLOB0,                                   /* + enum gen_glob */
	GS_N = GS_GLOB0 + GEN_GLOB_MAX
};

enum rank_state { RANK_WAIT, RANK_SEND, RANK_DONE };

/* A message posted on a closed-loop QP (cookie = post number). */
struct gen_msg {
	uint64_t va_off;
	uint32_t iter;
	uint16_t step;
};

struct gen_conn {               /* one QP: src rank -> dst rank */
	/* What every poll and next_event() of its rank reads, whether it
	 * sends or not: one cache line (the struct is aligned to one). */
	struct aifab_rc_req *req;   /* closed loop, requester (src) */
	double pace_t;              /* TSC this QP may send again (DCQCN) */
	bool has_pend;
	bool in_act;
	uint32_t pend_msg;          /* closed loop: msgs slot of pend */
	struct gen_msg *msgs;       /* msg_mask + 1 */
	uint32_t msg_mask, n_posted;
	uint32_t src, dst, channel, q;
	/* per frame */
	struct aifab_roce_qp qp;
	/* qp_paced() at every packet sent: these and the reaction point's
	 * first 32 bytes (its per-packet fields) on one cache line, the one
	 * after qp's (384 bytes) */
	double rate_sum;            /* DCQCN rate at each packet sent */
	uint64_t rate_n;
	double rate_last;           /* at its last packet */
	struct aifab_dcqcn_rp rp;
	struct aifab_dcqcn_np np;   /* (dst) read at a CE mark only */
	/* closed loop, responder (dst): what every data packet received
	 * reads, from a cache line's start (resp's 88 bytes, then rx's
	 * expected, packets and first counters on its second line) */
	struct aifab_rc_resp resp;
	struct aifab_roce_rx rx;    /* what dst received */
	struct aifab_roce_seg pend; /* cut but not built (no mbufs) */
	uint32_t rx_e, rx_iter;     /* sender entry / iteration of the next
				     * message to complete */
} __rte_cache_aligned;

struct gen_rank {
	/* What every poll reads, whether the rank sends or not: the first
	 * cache line (the struct is aligned to one). */
	enum rank_state state;
	uint16_t port;              /* env port index */
	bool backlogged;            /* had packets left at the last poll */
	bool post_more;             /* post_ready() may post: an arrival, a
				     * reap or a new iteration since it last
				     * found every channel blocked */
	int64_t tokens, depth;      /* bytes << GEN_FP */
	uint64_t rate_fp;           /* bytes per TSC << GEN_FP; 0: unpaced */
	uint64_t max_idle;          /* TSC cycles added at most (overflow) */
	uint64_t last_tsc;
	/* Closed loop: gen_cl_timers() has nothing to do before this
	 * instant (at most the earliest retransmit deadline of its active
	 * QPs; 0: one of them may leave the active list) */
	uint64_t timer_next;
	/* Closed loop, the virtual clock's next_event() (the end of the
	 * first cache line and the second): over the active QPs, the earliest retransmit deadline
	 * (vc_dl), and over those with a packet to send whether any
	 * (vc_send) and the least ceil(pace_t) (DCQCN pacing). Kept while vc_ok: cleared by whatever changes a QP's
	 * requester, pace or the active list (generator_tx.c,
	 * generator_cl.c); read and rebuilt by generator_vclock.c. */
	bool vc_ok, vc_send;
	uint64_t vc_dl, vc_ceil;
	/* x / rate_fp (paced; the virtual clock's rank sets: read at every
	 * visit with the summary above, so on its cache line) */
	struct rte_reciprocal_u64 rate_rcp;
	/* What a sending rank's every poll reads next (pick()): on the
	 * second line too */
	uint32_t *act;              /* conns with packets left this step
				     * (closed loop: with messages posted) */
	uint32_t n_act, rr;
	uint64_t next_start;
	uint32_t step, iter;
	uint64_t step_start;
	const struct aifab_coll_step *sched;
	uint32_t *entry_conn;       /* first conn of each schedule entry */
	/* closed loop */
	uint32_t n_conns;           /* QPs this rank sends on */
	uint32_t *cstep;            /* per channel: next step to post */
	uint32_t ch_done;           /* channels with every step posted */
	uint32_t msgs_out;          /* posted and not yet acknowledged */
	uint8_t *need;              /* per entry: chunk messages coming in */
	uint8_t *got[2];            /* per entry and iteration parity: arrived */
	uint32_t need_total, got_total[2];
	double line_mbps;           /* DCQCN line rate (the rank's rate) */
	struct aifab_dcqcn_conf dq;
} __rte_cache_aligned;

/* One port as one worker sees it: its counters (the worker's share), its
 * TX queues (the worker's own ethdev TX queue), its fault stage. */
struct gen_port {
	uint64_t rx_packets, rx_bytes, tx_packets, tx_bytes;
	/* The whole-process virtual clock: the wire this port's RX reads
	 * (its tap's rx_wire, NULL: none, read the port) and the TX tap
	 * whose put takes its bursts (its put and wire; NULL put: none,
	 * transmit through the port), known from the first RX poll
	 * (vc_rx_known) and the first flush (vc_tx_known), after the
	 * clock's first step set them up: a burst reads neither the port
	 * nor its tap. */
	struct aifab_wire *vc_rx_wire;
	uint16_t (*vc_tx_put)(void *wire, struct rte_mbuf **pkts, uint16_t n);
	void *vc_tx_wire;
	bool vc_rx_known, vc_tx_known;
	/* the worker has an RX queue on the port (its nb_rxq): 0 not
	 * known yet (the first RX poll learns it), 1 yes, -1 no */
	int8_t rxq_here;
	/* Frames in tx and cnp (every flush, frame queued and
	 * next_event() reads them): n_tx on the first cache line, n_cnp
	 * first on the second, with the counters a frame received moves.
	 * Not in one 8-byte word: a test of both right after a flush
	 * stored one would be a wide load the store cannot forward to. */
	uint16_t n_tx;
	uint16_t n_cnp __rte_aligned(8);
	uint64_t ctr[GEN_CTR_MAX];
	uint64_t rx_err[AIFAB_PKT_ERR_MAX]; /* malformed, per parse error */
	struct aifab_roce_hist lat;
	struct rte_mbuf *tx[GEN_TXBUF];   /* data and ACKs: data_prio */
	struct rte_mbuf *cnp[GEN_CNPBUF]; /* CNPs: cnp_prio */
	struct aifab_fault fault;
	uint32_t icrc_skip;               /* rx_check_icrc every=N: frames to
					   * pass unchecked before the next */
	uint8_t scratch[AIFAB_PKT_HDR_WINDOW];
};

/* Step statistics of one iteration while its ranks run it. */
struct gen_iter_stat {
	uint32_t iter;              /* UINT32_MAX: free */
	uint64_t *end;              /* per step: last chunk delivered (TSC) */
	uint32_t *last;             /* per step: its sender */
};

/* What one iteration cost (closed loop), kept for every iteration. RC
 * events go to the iteration of the message concerned: a retransmitted
 * packet's, or for NAKs and timeouts the oldest unacknowledged message's. */
struct gen_iter_rec {               /* updated atomically (any worker) */
	uint64_t slow_step_tsc;     /* duration of its slowest step */
	uint32_t slow_step;         /* UINT32_MAX: not known (open loop) */
	uint32_t slow_rank;         /* whose chunk ended that step */
	uint64_t retx_packets, retx_bytes, naks_rx, timeouts;
};

#define GEN_MAX_HOSTS 256        /* distinct host= names of a rank table */
#define GEN_LINGER_S 2           /* several hosts, closed loop: see done */

/*
 * The whole-process virtual clock's view of one worker's closed-loop
 * ranks (generator_vclock.c), by index in its own_list: the ranks its
 * next poll visits, when each must be visited again without a frame,
 * and next_event()'s two keys per rank with their minimum per 64
 * ranks. On once the clock asks next_event() (never in real time).
 */
enum { GEN_K_R, GEN_K_A, GEN_K_N };
struct gen_rs {
	bool on;
	bool dcqcn;                 /* [generator] dcqcn */
	uint32_t nw;                /* words of 64 ranks */
	uint64_t *due;              /* nw: ranks the next poll visits */
	uint64_t *wake;             /* per rank: due at the first poll from
				     * this instant (UINT64_MAX: only when
				     * marked, gen_rank_mark()) */
	uint64_t *wake_w;           /* nw: at most the least wake of the word */
	uint64_t *key[GEN_K_N];     /* per rank (generator_vclock.c) */
	uint64_t *key_w[GEN_K_N];   /* nw: the least key of the word, but for
				     * the dirty words (above it, maybe) */
	uint64_t *dirty;            /* (nw + 63) / 64 words */
	uint64_t *word_mem;         /* the per-word arrays' memory (wake_w,
				     * key_w, due, dirty: one line up to 64
				     * ranks) */
	uint64_t *rank_mem;         /* the per-rank ones' (wake, key) */
	/* its ranks by used port (u): pr_list[pr_start[u] ..
	 * pr_start[u + 1]) (made at the start; pr_all: mark them all) */
	uint32_t *pr_start, *pr_list;
	bool pr_all;
};

/*
 * One worker (a generator lcore): everything only it writes. It sends for
 * its ranks (a rank's QPs' requester ends, its token bucket, its schedule)
 * and receives for them (its ranks' QPs' responder ends and arrivals),
 * from its own pools, into its own TX queue of every port. The frames of
 * another worker's ranks that reach one of its RX queues go to that
 * worker's inbox (generator_rx.c).
 */
struct gen_wk {
	/* What each poll and next_event() read (on the virtual clock, at
	 * every step): together on the first cache lines. */
	struct gen *g;
	unsigned int w;
	uint16_t txq;                 /* its TX queue on every port */
	uint16_t rxq;                 /* its RX queue, where a port has it */
	uint32_t *own_list, n_own;    /* its ranks, ascending */
	uint32_t rr_rank;
	uint32_t n_done;              /* of them RANK_DONE (gen_done() reads
				       * it at every step of the clock) */
	struct rte_ring *inbox;       /* frames other workers received for it
				       * (m->port: the env port); NULL: one
				       * worker */
	uint64_t last_now;            /* clock of its last poll */
	uint64_t last_sync;
	struct gen_rs rs;             /* the virtual clock's rank sets */
	uint64_t last_rx;             /* clock of its last poll with frames */
	uint64_t stamp_now, stamp_ns; /* departure stamp of the last `now` */
	/* used ports (by index u) whose queues may hold frames: set when a
	 * frame is queued, cleared by the flush that empties both (only
	 * with g->port_sets) */
	uint64_t txq_set[GEN_PORT_WORDS];
	struct rte_mempool *hdr_pool;   /* ACK / NAK / CNP, short frames' ICRC */
	struct rte_mempool *frame_pool; /* data frames, payload stored */
	struct rte_mbuf *stash[GEN_STASH]; /* frame mbufs, allocated in bulk */
	uint16_t n_stash;
	struct aifab_stats_block *blk;
	uint64_t glob[GEN_GLOB_MAX];  /* closed loop, its share */
	double rate_last_sum;         /* of rate_last over its QPs that sent */
	uint32_t n_rated;             /* its QPs that sent */
	double rate_min;              /* lowest any of them reached */
	struct gen_iter_stat ist[GEN_STAT_SLOTS]; /* arrivals at its ranks */
	struct gen_port port[AIFAB_GEN_MAX_PORTS];
} __rte_cache_aligned;

struct gen {
	/* What the virtual clock's every step reads (gen_poll(),
	 * gen_next_event(), gen_done()) and every visit of a rank: the
	 * first cache line (it is allocated on one; the frames of a step
	 * leave little of the last step in the L1 cache, so a line less
	 * per step counts). */
	struct gen_wk *wk;            /* n_wk */
	unsigned int n_wk;
	uint32_t n_own;               /* the ranks emulated here (own_list) */
	bool started;               /* set once by worker 0 (release) */
	bool refused;               /* start.state is AIFAB_GEN_REFUSED */
	/* Port sets (a poll visits ports with something to do, not every
	 * port: a 1024-rank fabric has 1024 of them): used ports distinct,
	 * env port -> its index u (port_u, UINT16_MAX: not used); the ring
	 * ports whose RX ring the virtual clock filled since their last
	 * poll (rx_set; rx_mode 1: its RX marks, generator_rx.c; 2: poll
	 * every port; 0: not decided yet, at the first poll) */
	bool port_sets;
	uint8_t rx_mode;
	uint16_t n_used_ports;
	uint64_t vc_step;           /* gen_vclock_step(), once known */
	uint64_t sync_cycles;       /* lib/stats mirror period */
	struct gen_rank *ranks;
	struct gen_conn *conns;     /* those with an own end, by QP number */
	uint32_t *rank_pos;         /* per rank: its index in its worker's
				     * own_list */
	/* env ports on which a PFC frame was ever received (set before
	 * pfc[p] moves; atomic): a port not in it has no pause, without a
	 * read of its pfc (every frame queued and every flush asks) */
	uint64_t pfc_seen[GEN_PORT_WORDS];
	struct aifab_env env;
	struct aifab_gen_params p;
	struct aifab_coll_plan *plan;
	uint32_t n_steps, n_chan, total_iters;
	struct aifab_roce_payload *pl;
	/* pl's bytes after the tag, as the receive check looks them up
	 * (aifab_icrc_verify_known()); NULL: folded as any others */
	struct aifab_icrc_known *icrc_known;
	double ns_per_tsc;
	uint32_t n_conns;
	uint32_t *conn_gidx;        /* per conn: its QP number i (QPN
				     * qpn_base + 2i); NULL: conn i is QP i */
	uint32_t qps_per_rank;      /* of every rank: rank r's are r x it.. */
	uint64_t *iter_start, *iter_end;
	uint32_t *iter_ranks_done;
	struct gen_iter_rec *irec;  /* total_iters */
	uint16_t used_ports[AIFAB_GEN_MAX_PORTS];
	uint16_t port_u[AIFAB_GEN_MAX_PORTS]; /* (port sets, above) */
	uint64_t rx_set[GEN_PORT_WORDS];
	uint16_t *rank_port;        /* rank table: env port per rank (build) */
	uint64_t hz;                /* of `now`: env tsc_hz or GEN_VT_HZ */
	uint64_t vnow;              /* virtual clock (virtual_tick_ns; one
				     * worker only) */
	int ts_off;                 /* mbuf timestamp field, -1: none */
	uint64_t ts_flag;
	uint8_t data_tos, cnp_tos;
	uint8_t chan_dscp[AIFAB_COLL_MAX_CHANNELS]; /* per channel (data, ACK) */
	uint8_t chan_ecn[AIFAB_COLL_MAX_CHANNELS];
	/* closed loop step statistics (the slots are per worker) */
	rte_spinlock_t close_lock;  /* one iteration's close at a time */
	double *step_sum_us;        /* per step, over timed iterations */
	uint32_t *slow_count;       /* per rank: last in an iteration's
				     * slowest step */
	/* lib/stats: the set (block w: worker w's), how often it mirrors */
	struct aifab_stats_set *stats;
	/* several servers: the ranks emulated here, the hosts of the
	 * others, the start (generator_start.c) */
	uint8_t *own;                 /* per rank: 1 emulated here */
	uint32_t *own_list;           /* those ranks (n_own), ascending */
	uint16_t *rank_host;          /* per rank: index into hosts (0: none) */
	uint16_t n_hosts;
	char host[AIFAB_GEN_HOST_LEN]; /* this host ("" none) */
	char hosts[GEN_MAX_HOSTS][AIFAB_GEN_HOST_LEN];
	struct rte_ether_addr *start_dst; /* leader: ranks emulated elsewhere */
	uint32_t n_start_dst;
	uint64_t go;                  /* start at this app clock (atomic) */
	uint64_t linger;              /* closed loop: quiet this long to end */
	struct aifab_gen_start start;
	/* Received PFC, per port: shared by the workers (a paused priority
	 * stops every worker's frames of it). Written under the port's lock
	 * by whichever worker receives the frame; `until` read atomically. */
	struct aifab_pfc_rx pfc[AIFAB_GEN_MAX_PORTS];
	rte_spinlock_t pfc_lock[AIFAB_GEN_MAX_PORTS];
	/* The workers ([generator] lcores, n_wk, wk): ranks sharded over
	 * them */
	uint8_t *rank_wk;             /* per rank: its worker */
	/* rte_flow rules steering frames to a rank's IPv4 to its worker's
	 * RX queue, per port (0: none, frames are handed over) */
	uint32_t flow_rules[AIFAB_GEN_MAX_PORTS];
};

/* Words of the port sets in use. */
static inline unsigned int
gen_port_words(const struct gen *g)
{
	return ((unsigned int)g->n_used_ports + 63) / 64;
}

/* Port @p p's queues got a frame: in the worker's set of ports to flush. */
static inline void
gen_txq_mark(struct gen_wk *wk, uint16_t p)
{
	uint16_t u = wk->g->port_u[p];

	if (u != UINT16_MAX)
		wk->txq_set[u >> 6] |= UINT64_C(1) << (u & 63);
}

/* Something happened to rank @p r (a frame for it or one of its QPs):
 * on the virtual clock, its worker's next poll visits it (@p wk is its
 * worker: a rank's frames are read there). */
static inline void
gen_rank_mark(struct gen_wk *wk, uint32_t r)
{
	uint32_t i;

	if (!wk->rs.on)
		return;
	i = wk->g->rank_pos[r];
	wk->rs.due[i >> 6] |= UINT64_C(1) << (i & 63);
}

/* The conn of QP number @p gi (NULL: not kept here): conns is sorted by
 * QP number. */
static inline struct gen_conn *
gen_conn_at(struct gen *g, uint32_t gi)
{
	uint32_t lo = 0, hi = g->n_conns, mid;

	if (g->conn_gidx == NULL)
		return gi < g->n_conns ? &g->conns[gi] : NULL;
	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (g->conn_gidx[mid] < gi)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < g->n_conns && g->conn_gidx[lo] == gi ? &g->conns[lo] :
		NULL;
}

/* The conn whose receiver (odd QPN qpn_base + 2i + 1) is @p dqpn. */
static inline struct gen_conn *
gen_conn_of_rqpn(struct gen *g, uint32_t dqpn)
{
	struct gen_conn *cn;

	if (dqpn <= g->p.qpn_base || ((dqpn - g->p.qpn_base) & 1) == 0)
		return NULL;
	cn = gen_conn_at(g, (dqpn - g->p.qpn_base - 1) / 2);
	return cn != NULL && g->own[cn->dst] ? cn : NULL;
}

/* The conn whose sender (even QPN qpn_base + 2i) is @p dqpn. */
static inline struct gen_conn *
gen_conn_of_sqpn(struct gen *g, uint32_t dqpn)
{
	struct gen_conn *cn;

	if (dqpn < g->p.qpn_base || ((dqpn - g->p.qpn_base) & 1) != 0)
		return NULL;
	cn = gen_conn_at(g, (dqpn - g->p.qpn_base) / 2);
	return cn != NULL && g->own[cn->src] ? cn : NULL;
}

/* Bytes QP @p q of a schedule entry of @p bytes carries (of @p nq: the
 * remainder goes to the first ones). */
static inline uint64_t
gen_qp_bytes(uint64_t bytes, uint32_t nq, uint32_t q)
{
	return bytes / nq + (q < bytes % nq);
}

/* Build steps: @p err gets "generator: <what>", the caller returns -1. */
#define BAD(...) do { snprintf(err, errlen, "generator: " __VA_ARGS__); \
		      return -1; } while (0)

/* What the receive side read from a closed-loop data packet. */
struct gen_rx_data {
	uint32_t psn;
	uint32_t len;               /* payload bytes: no pad, no ICRC */
	unsigned int flags;         /* lib/rc AIFAB_RC_F_* (opcode, AckReq) */
	bool ce;                    /* IP ECN field is CE */
};

/* generator_setup.c: build (aifab_gen_create) and free */
void gen_fini(void *st);

/* generator_ranks.c: addresses, the rank table, ownership (while building) */
struct gen_rank_tab {
	struct rte_ether_addr *mac;
	uint32_t *ip;
	uint16_t *port;
	uint16_t *host;             /* index into g->hosts, 0: no host= */
	uint8_t *seen;
};
/* Rank @p r's MAC and IPv4: the rank table's, else base + r. */
void gen_rank_addr(const struct aifab_gen_params *p, uint32_t r,
		   struct rte_ether_addr *mac, uint32_t *ip);
/* Read g->p.rank_table into @p t, then g->p.rank_mac/rank_ip, g->rank_port
 * and g->rank_host point at its arrays; 0, or -1 with @p err filled. */
int gen_rank_tab_load(struct gen *g, struct gen_rank_tab *t, char *err,
		      size_t errlen);
void gen_rank_tab_free(struct gen_rank_tab *t);
/* The ranks this process emulates (g->own, own_list, n_own, host) and the
 * leader's start-frame destinations; 0, or -1 with @p err filled. */
int gen_ranks_own(struct gen *g, char *err, size_t errlen);

/* generator_rx.c: RX burst of every port, each frame dispatched; frames
 * received */
unsigned int gen_rx_poll(struct gen_wk *wk, uint64_t now);

/* generator_start.c: a frame that is not RoCEv2 (port @p p): true if it
 * was a start frame (taken or refused). */
bool gen_start_rx(struct gen_wk *wk, uint16_t p, struct rte_mbuf *m,
		  uint64_t now);
/* Whether the ranks may begin at app clock @p tsc; sends the leader's
 * start frames the first time it is true. */
bool gen_start_due(struct gen_wk *wk, uint64_t tsc, uint64_t now);

/* generator_tx.c: one rank's poll, open or closed loop (packets sent) */
unsigned int gen_tx_rank_poll(struct gen_wk *wk, uint32_t r, uint64_t now);
unsigned int gen_tx_cl_rank_poll(struct gen_wk *wk, uint32_t r, uint64_t now);
/* Flush port @p p's queues unless PFC pauses their priority. */
void gen_tx_flush(struct gen_wk *wk, uint16_t p, uint64_t now);
/* Queue an ACK / NAK (data queue) or a CNP; false: dropped, queue full. */
bool gen_tx_ctl(struct gen_wk *wk, uint16_t p, struct rte_mbuf *m, bool cnp,
		uint64_t now);
/* End of run: flush every queue, drop what a pause still holds. */
void gen_tx_drain(struct gen_wk *wk);

/* generator_vclock.c: the ops table's next_event ([general] clock =
 * virtual) */
uint64_t gen_next_event(void *st, unsigned int w, uint64_t now);
/* On the virtual clock, closed loop: the poll of the worker's ranks that
 * may act (in the order of the loop over all of them); packets sent. */
unsigned int gen_vclock_ranks_poll(struct gen_wk *wk, uint64_t now);
/* A PFC frame changed port @p p's pause: the ranks of the port (every
 * worker's) are visited at the next poll. */
void gen_vclock_pause_changed(struct gen *g, uint16_t p);
/* An ACK or NAK (processed) moved rank @p r's requester at @p now: its
 * worker @p wk visits it at the next poll, or, when that poll would
 * change nothing, only remakes its keys and wake now. */
void gen_vclock_acked(struct gen_wk *wk, uint32_t r, uint64_t now);
/* The rank sets' memory (build, fini). */
int gen_vclock_build(struct gen *g, char *err, size_t errlen);
void gen_vclock_free(struct gen *g);

/* generator_cl.c: closed loop. A data packet @p d to @p cn's receiver
 * (port @p gp): PSN tracking, the responder's decision in @p act and the
 * delivery of a completed message; true: the notification point wants a
 * CNP sent. */
bool gen_cl_on_data(struct gen_wk *wk, struct gen_conn *cn,
		    const struct gen_rx_data *d, uint64_t now,
		    struct gen_port *gp, struct aifab_rc_resp_action *act);
/* An ACK, a PSN sequence NAK (go-back-N) or a CNP to @p cn's sender. */
void gen_cl_on_ack(struct gen_wk *wk, struct gen_conn *cn, uint32_t psn,
		   uint64_t now);
void gen_cl_on_nak(struct gen_wk *wk, struct gen_conn *cn, uint32_t psn,
		   uint64_t now);
void gen_cl_on_cnp(struct gen_wk *wk, struct gen_conn *cn, uint64_t now);
/* Retransmit timers of the rank's active QPs; QPs with nothing left
 * leave its active list. */
void gen_cl_timers(struct gen_wk *wk, struct gen_rank *rk, uint64_t now);
/* Rank @p rk ended iteration @p it, the @p done th rank to (the count in
 * iter_ranks_done after its own): step statistics when it was the last,
 * its arrivals' parity cleared. */
void gen_cl_iter_done(struct gen_wk *wk, struct gen_rank *rk, uint32_t it,
		      uint32_t done);
void gen_cl_start(struct gen *g, uint64_t now);
int gen_cl_build(struct gen *g, char *err, size_t errlen);
void gen_cl_free(struct gen *g);

/* generator_report.c */
int gen_stats_create(struct gen *g, char *err, size_t errlen);
/* Mirror worker @p wk's counters into its lib/stats block (it only). */
void gen_stats_sync(struct gen_wk *wk);
void gen_report(const void *st, const struct aifab_report_sink *sink);

/* Atomic updates of what several workers share: the iteration records
 * and bounds (relaxed: each value is only summed / compared). */
static inline void
gen_add(uint64_t *v, uint64_t d)
{
	__atomic_fetch_add(v, d, __ATOMIC_RELAXED);
}

static inline void
gen_min(uint64_t *v, uint64_t x)
{
	uint64_t o = __atomic_load_n(v, __ATOMIC_RELAXED);

	while (x < o && !__atomic_compare_exchange_n(v, &o, x, true,
			__ATOMIC_RELAXED, __ATOMIC_RELAXED))
		;
}

static inline void
gen_max(uint64_t *v, uint64_t x)
{
	uint64_t o = __atomic_load_n(v, __ATOMIC_RELAXED);

	while (x > o && !__atomic_compare_exchange_n(v, &o, x, true,
			__ATOMIC_RELAXED, __ATOMIC_RELAXED))
		;
}

/* Whether received PFC pauses priority @p prio of port @p p at @p now
 * (any worker: the pause is the port's). */
static inline bool
gen_prio_paused(const struct gen *g, uint16_t p, uint8_t prio, uint64_t now)
{
	if (!((__atomic_load_n(&g->pfc_seen[p >> 6], __ATOMIC_RELAXED) >>
	       (p & 63)) & 1))
		return false;   /* its until[] are all 0 */
	return now < __atomic_load_n(&g->pfc[p].until[prio], __ATOMIC_RELAXED);
}

#endif /* GENERATOR_PRIV_H */
