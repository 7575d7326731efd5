/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * [general] clock: which clock runs, and the one virtual clock of a whole
 * in-memory process (docs/virtual-time.md).
 *
 * The virtual clock is a discrete-event loop on the main lcore. Every
 * pipeline worker of the process is polled there, in a fixed order (the
 * order the app started them), with `now` = the model time in ns. Each
 * in-memory wire direction is a FIFO of (frame, arrival): a frame the
 * sender transmitted during the poll at time d starts on the wire at
 * max(d, the wire free), takes (len + 24) x 8 / speed to serialize
 * (exact, the fraction of a ns carried) and arrives cable_m x 5 ns later;
 * it is delivered at that instant: from then on the receiver's reads of
 * its port (aifab_port_rx_burst(), through the port's tap:
 * aifab_wire_read()) take it from the FIFO, where it stays until read.
 * No frame is copied into the port's RX ring (empty on this clock), but
 * the wire delivers as the ring did: at most its capacity of unread
 * frames, the rest waiting on the wire (and the sender's room, VC_FIFO,
 * counts the frames not yet delivered). One step: the clock jumps to
 * the earliest of every wire's next arrival and every pipeline's
 * next_event(); arrivals due are delivered (wires in port order, each in
 * time order; the reader's port marked), the workers with something to
 * do are polled in their order; what they send goes onto the wires
 * during the polls (wire_put(), with the arrival the end of the step
 * would give it), or, behind frames a full FIFO left in a TX ring, is
 * taken from the ring after them. A worker has something to do when a
 * frame delivered to one of its ports is unread, when it has no
 * next_event op, or when its next_event() has come: for a worker whose
 * answer is exact (next_event_exact(): a switch instance with one
 * worker), at that instant; for the others, at every step while it is
 * not "never" (the generator may act at any poll: a token bucket, a
 * pace). An exact worker whose event lies ahead is still polled where a
 * poll at every step would have mirrored its counters (vc_slot.mirrored),
 * so its --stats-jsonl gauges are those of the same instants. A worker
 * whose next_event() said never, with no frame for it, is not polled
 * (nothing would happen but its counter mirror, VC_SYNC_NS) and not
 * asked again until it is. Nothing reads the TSC, so a profile and seed
 * give the same run on any machine under any load.
 *
 * Which ports a worker polls comes from app_vclock_add() (the ports'
 * owner: a switch instance or the generator side); the wires from
 * app_ports_wire(): per port, the ring it transmits into and the ring its
 * peer would receive from (its capacity bounds the unread frames), each
 * with one writer and one reader (the loop is the reader of every TX
 * ring; a receiver reads its wire's FIFO, the loop being its only
 * writer).
 */
#include <stdio.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <rte_common.h>
#include <rte_cycles.h>
#include <rte_mbuf.h>
#include <rte_ring.h>

#include "aifab_stats.h"
#include "app.h"

#define VC_FIFO 8192u           /* frames in flight per wire direction
				   (not yet arrived) */
#define VC_FIFO_MIN 64u         /* the FIFO's first window (it grows) */
#define VC_BURST 64u            /* frames taken off a TX ring at a time */
#define VC_WIRE_EXTRA 24u       /* FCS, preamble, inter-frame gap */
#define VC_NS_PER_M 5u          /* light in a cable */
#define VC_MAX_SLOTS (APP_MAX_PIPES * 2 + AIFAB_MAX_WORKERS) /* + generator workers */
/* The switch and the generator mirror their counters into their stats
 * blocks at the first poll stats_sync of model time after the last
 * mirror (1 us on this clock, app/main.c; sync_cycles in switch_report.c,
 * generator_report.c). A worker whose next_event() said never is idle
 * and is still polled VC_SYNC_NS after its last such poll, an exact
 * worker whose event lies ahead where its own rule would mirror
 * (mirror_ns), so the mirror, and the --stats-jsonl lines and charts made
 * from it, are those of a worker polled at every step. */
#define VC_SYNC_NS (APP_VCLOCK_HZ / 1000)
/* The lcores' load counters (aifab_stats_account(): busy and idle
 * cycles, the machine's, not the model's): one step in VC_TIME_EVERY
 * (a power of two) reads the TSC around its polls and counts the cycles
 * VC_TIME_EVERY times; the polls and their packets are counted at every
 * step, in the slot (struct vc_acct), and added to the stats block at
 * the timed steps and at the stop: a TSC read, or a stats block's line
 * the step's frames evicted, costs about as much as a frame-hop's
 * bookkeeping, and the demo at 400G makes ~8 hops a step. */
#define VC_TIME_EVERY 16u

/* Sets of wires (at most AIFAB_MAX_PORTS) and of slots (VC_MAX_SLOTS)
 * are bitmaps: a big fabric has thousands of wires, a step visits the
 * busy ones. */
#define VC_WIRE_WORDS ((AIFAB_MAX_PORTS + 63) / 64)
#define VC_SLOT_WORDS ((VC_MAX_SLOTS + 63) / 64)

struct vc_slots {
	uint64_t b[VC_SLOT_WORDS];
};

static inline void
set_add(uint64_t *b, unsigned int i)
{
	b[i >> 6] |= UINT64_C(1) << (i & 63);
}

static inline bool
set_has(const uint64_t *b, unsigned int i)
{
	return (b[i >> 6] >> (i & 63)) & 1;
}

/* Slot sets over their first @p nw words (the slots that exist). */
static inline void
slots_or(struct vc_slots *d, const struct vc_slots *s, unsigned int nw)
{
	unsigned int k;

	for (k = 0; k < nw; k++)
		d->b[k] |= s->b[k];
}

/* One direction of a cable: from port `from`'s TX ring to its peer. The
 * FIFO holds the frames from the one its reader takes next (head) to the
 * last put (tail): head .. dlv have arrived (delivered: what the peer's
 * RX ring held before the reader took frames from the wire), dlv ..
 * tail are on the wire. The loop's state of all wires is one small array
 * (the FIFOs are apart: a step reads every busy wire's state). */
struct vc_wire {
	/* The first cache line (64 bytes, to vc): what the step's scans
	 * (wire_deliver(), the readers it wakes and marks, wire_next())
	 * read per visit; the transmitter (wire_put(), per frame put) in
	 * the second, the mapping after. A step's frames (4 KB each in the demo) leave
	 * little of the last step in the L1 cache: a line less per visit
	 * counts. */
	uint64_t dlv_at;            /* fifo[dlv].at: the next arrival,
				       UINT64_MAX when none is on the wire */
	/* The FIFO (its reader's view, aifab_wire_read()): q.fifo holds
	 * VC_FIFO + rx_cap frames rounded up to a power of two, of which
	 * mask + 1 in use (the window, doubled by fifo_push() when full);
	 * fifo[head & mask] .. dlv .. tail. */
	struct aifab_wire q;
	unsigned int rx_delivered;  /* dlv - head right after delivery */
	unsigned int rx_cap;        /* delivered frames the reader may leave
				       unread: the RX ring's capacity */
	uint64_t readers0;          /* readers' first word (all of it when
				       the slots fit one word: n_swords 1) */
	/* The reader's RX mark (rx_tap's rx_mark and rx_mark_bit), kept
	 * here once the reader asked for it (a reader asks once, at its
	 * set-up or first poll; NULL: not yet, look at rx_tap). */
	uint64_t *rx_mark;
	uint64_t rx_mark_bit;
	struct app_vclock *vc;
	struct app_serial ser;      /* the sender's transmitter */
	uint64_t prop_ns;
	unsigned int idx;           /* in vc->wire */
	bool tx_left;               /* the FIFO was full: the TX ring holds
				       more (and vc->left says so) */
	struct rte_ring *tx;
	uint16_t from, to;          /* port indices */
	int from_owner, to_owner;   /* their owners (app_vclock_add()) */
	struct vc_slots readers;    /* slots polling port `to` */
	struct aifab_port_tap *rx_tap; /* port `to`'s tap[0]: its RX mark
					  and its wire */
	struct aifab_port_tap *tap; /* port `from`'s, one per TX queue */
	uint16_t n_tap;
} __rte_cache_aligned;

/* Polls (busy: that handled packets; idle) and packets not yet added
 * to a stats block's load counters (VC_TIME_EVERY). */
struct vc_acct {
	uint64_t busy, idle, pkts;
};

struct vc_slot {
	struct vc_acct acct;
	const struct aifab_pipeline_ops *ops;
	void *st;
	unsigned int w;
	struct aifab_stats_block *blk;
	int owner;                  /* whose ports it reads and writes: a switch
				       instance, APP_VC_OWNER_GEN, or
				       APP_VC_OWNER_ANY (unknown) */
	uint64_t next;              /* next_event() at the last step */
	uint64_t mirrored;          /* when the worker last mirrored its
				       counters, by its own rule (a poll at
				       least mirror_ns after the last) */
	bool exact;                 /* next_event_exact(): polled only at
				       next, for a frame or a mirror */
	uint64_t synced;            /* its last counter mirror (VC_SYNC_NS) */
	bool polled;                /* in the last step */
};

/* Word j of the wire sets: wires 64 j .. 64 j + 63. */
struct vc_words {
	uint64_t busy;              /* a frame in the FIFO (on the wire, or
				       delivered and unread) */
	uint64_t sent;              /* the TX ring was written to since the
				       last take (the ports' TX taps mark
				       it) */
	uint64_t left;              /* tx_left (the step's scan reads the
				       word, not the wire) */
};

struct app_vclock {
	/* The first cache line: what the step and wire_put() read, the
	 * first word of the wire sets included (the demo's 16 wires). */
	uint64_t now;               /* ns of model time */
	uint64_t steps, hops;       /* loop steps, frames delivered */
	uint64_t wire_t;            /* the earliest wire_next() of the busy
				       wires, as the last step left them */
	unsigned int n_words;       /* words of the wire sets in use */
	unsigned int n_swords;      /* words of the slot sets in use */
	struct vc_words ws[VC_WIRE_WORDS];
	uint64_t fallback_ns;       /* step for a pipeline without next_event */
	uint64_t mirror_ns;         /* the workers' counter mirror period
				       (env stats_sync) */
	bool poll_all;              /* AIFAB_VCLOCK_POLL_ALL: no slot exact */
	uint64_t cpu0, cpu1;        /* the thread's CPU ns: first step, stop */
	uint64_t polls;             /* workers polled, over the steps */
	unsigned int n_wires, n_slots;
	bool mapped;                /* readers/writers known (first step) */
	struct vc_slots every;      /* slots without next_event: every step */
	/* Per wire, as the last step's end left it: 0 if a delivered frame
	 * is unread, else its next arrival (dlv_at): a step whose instant
	 * is before it neither delivers on the wire nor wakes its reader,
	 * and reads this, not the wire's line. */
	uint64_t due[AIFAB_MAX_PORTS];
	/* per word of wires: busy, not visited by this step's delivery
	 * (nothing due or unread) and not put on since (wire_put() clears
	 * the wire's bit) */
	uint64_t skip[VC_WIRE_WORDS];
	/* per word of wires: the least due of its busy wires (so a step
	 * whose instant is before it skips the word without reading its
	 * wires' dues: a big fabric has thousands of busy wires, a step a
	 * few arrivals) */
	uint64_t wmin[VC_WIRE_WORDS];
	struct vc_wire wire[AIFAB_MAX_PORTS];
	struct vc_slot slot[VC_MAX_SLOTS];
	struct aifab_stats_block *lblk;
	struct vc_acct lacct;       /* lblk's, as a slot's acct */
};

/* A poll that handled @p n packets, counted in @p a. */
static inline void
acct_poll(struct vc_acct *a, unsigned int n)
{
	if (n != 0) {
		a->busy++;
		a->pkts += n;
	} else {
		a->idle++;
	}
}

/* What @p a counted goes into @p b (aifab_stats_account()'s poll and
 * packet counters; NULL: nowhere). */
static void
acct_flush(struct vc_acct *a, struct aifab_stats_block *b)
{
	if (b != NULL) {
		b->v[aifab_stats_bi_lcore_busy_polls] += a->busy;
		b->v[aifab_stats_bi_lcore_idle_polls] += a->idle;
		b->v[aifab_stats_bi_lcore_poll_pkts] += a->pkts;
	}
	memset(a, 0, sizeof(*a));
}

/* Port @p i is one end of an in-memory cable (named on either side). */
static bool
port_wired(const struct aifab_profile *p, unsigned int i)
{
	unsigned int j;

	if (p->ports[i].wire[0] != '\0')
		return true;
	for (j = 0; j < p->n_ports; j++)
		if (strcmp(p->ports[j].wire, p->ports[i].name) == 0)
			return true;
	return false;
}

enum app_clock
app_clock_choose(struct aifab_profile *p)
{
	unsigned int i;

	if (p->clock != AIFAB_CLOCK_VIRTUAL)
		return APP_CLOCK_REALTIME;
	if (p->virtual_time)
		return APP_CLOCK_PCAP;
	for (i = 0; i < p->n_ports; i++)
		if (!port_wired(p, i)) {
			/* Inputs from files: the switch's pcap time. */
			p->virtual_time = true;
			return APP_CLOCK_PCAP;
		}
	return APP_CLOCK_WHOLE;
}

const char *
app_clock_describe(enum app_clock c)
{
	switch (c) {
	case APP_CLOCK_PCAP:
		return "virtual (the switch's pcap timestamps)";
	case APP_CLOCK_WHOLE:
		return "virtual (one discrete-event clock, every pipeline on "
		       "the main lcore)";
	default:
		return "realtime (TSC)";
	}
}

struct app_vclock *
app_vclock_new(const struct aifab_env *env, const struct aifab_profile *prof,
	       char *err, size_t errlen)
{
	/* Cache-line aligned: the wire headers are (struct vc_wire). */
	struct app_vclock *vc = aligned_alloc(RTE_CACHE_LINE_SIZE,
					      sizeof(*vc));
	uint32_t fastest = 0;
	unsigned int i, q, peer;

	if (vc == NULL)
		goto nomem;
	/* the scans' fields in the wire's first line */
	RTE_BUILD_BUG_ON(offsetof(struct vc_wire, vc) > RTE_CACHE_LINE_SIZE);
	RTE_BUILD_BUG_ON(offsetof(struct app_vclock, ws[1]) >
			 RTE_CACHE_LINE_SIZE);
	memset(vc, 0, sizeof(*vc));
	vc->wire_t = UINT64_MAX;
	for (i = 0; i < VC_WIRE_WORDS; i++)
		vc->wmin[i] = UINT64_MAX;
	for (i = 0; i < env->n_ports; i++) {
		struct vc_wire *wi;
		struct rte_ring *tx, *rx;

		app_ports_wire(i, &tx, &rx, &peer);
		if (tx == NULL || rx == NULL)
			continue;
		wi = &vc->wire[vc->n_wires++];
		/* Room for VC_FIFO frames on the wire and a full RX ring's
		 * worth delivered but not read yet (a power of two: the
		 * window doubles up to it). */
		wi->rx_cap = rte_ring_get_capacity(rx);
		wi->q.fifo = calloc(rte_align32pow2(VC_FIFO + wi->rx_cap),
				  sizeof(*wi->q.fifo));
		if (wi->q.fifo == NULL)
			goto nomem;
		wi->dlv_at = UINT64_MAX;
		wi->q.mask = VC_FIFO_MIN - 1;
		wi->tx = tx;
		wi->from = (uint16_t)i;
		wi->to = (uint16_t)peer;
		wi->from_owner = env->ports[i].gen_owned ? APP_VC_OWNER_GEN :
			(int)prof->ports[i].sw;
		wi->to_owner = env->ports[peer].gen_owned ? APP_VC_OWNER_GEN :
			(int)prof->ports[peer].sw;
		wi->ser.mbps = RTE_MAX(env->ports[i].speed_mbps, 1u);
		wi->idx = vc->n_wires - 1;
		wi->vc = vc;
		wi->rx_tap = env->ports[peer].tap;
		wi->tap = env->ports[i].tap;
		wi->n_tap = wi->tap != NULL ? env->ports[i].nb_txq : 0;
		for (q = 0; q < wi->n_tap; q++) {
			wi->tap[q].mark = &vc->ws[(vc->n_wires - 1) >> 6].sent;
			wi->tap[q].mark_bit =
				UINT64_C(1) << ((vc->n_wires - 1) & 63);
		}
		/* Whatever is in the TX ring before the first step. */
		vc->ws[(vc->n_wires - 1) >> 6].sent |=
			UINT64_C(1) << ((vc->n_wires - 1) & 63);
		wi->prop_ns = (uint64_t)VC_NS_PER_M *
			RTE_MAX(prof->ports[i].cable_m, prof->ports[peer].cable_m);
		fastest = RTE_MAX(fastest, wi->ser.mbps);
	}
	/* The wire sets' words a step looks at: those of real wires (the
	 * demo has 16 of AIFAB_MAX_PORTS), not the whole bitmaps. */
	vc->n_words = (vc->n_wires + 63) / 64;
	/* A 1 KB frame at the fastest port. */
	vc->fallback_ns = fastest ? RTE_MAX(8192000ull / fastest, 1ull) : 1000;
	/* as the pipelines take it (switch_report.c, generator_report.c) */
	vc->mirror_ns = env->stats_sync != 0 ? env->stats_sync :
		APP_VCLOCK_HZ / 1000;
	/* For tests (test_vclock.py): every worker with an event polled at
	 * every step, as if none were exact; the results must not change. */
	vc->poll_all = getenv("AIFAB_VCLOCK_POLL_ALL") != NULL;
	return vc;
nomem:
	app_vclock_free(vc);
	snprintf(err, errlen, "out of memory for the virtual clock");
	return NULL;
}

void
app_vclock_add(struct app_vclock *vc, const struct aifab_pipeline_ops *ops,
	       void *st, unsigned int w, struct aifab_stats_block *blk,
	       int owner)
{
	struct vc_slot *s;

	if (vc->n_slots == VC_MAX_SLOTS)
		return;
	if (ops->next_event == NULL)
		set_add(vc->every.b, vc->n_slots);
	s = &vc->slot[vc->n_slots++];
	s->ops = ops;
	s->st = st;
	s->w = w;
	s->blk = blk;
	s->owner = owner;
	s->exact = ops->next_event != NULL && ops->next_event_exact != NULL &&
		ops->next_event_exact(st, w) && !vc->poll_all;
	s->polled = true; /* next_event() not asked yet */
}

void
app_vclock_set_lcore_block(struct app_vclock *vc, struct aifab_stats_block *b)
{
	vc->lblk = b;
}

uint64_t
app_serial_start(struct app_serial *s, uint64_t t, uint32_t len)
{
	uint64_t start;

	if (t > s->free_ns) {
		s->free_ns = t;
		s->frac = 0;        /* an idle transmitter starts on a whole ns */
	}
	if (unlikely(s->len1 != len + 1)) {
		uint64_t bits_k = ((uint64_t)len + VC_WIRE_EXTRA) * 8000;

		s->len1 = len + 1;
		s->q = bits_k / s->mbps;
		s->r = (uint32_t)(bits_k % s->mbps);
	}
	start = s->free_ns;
	s->free_ns += s->q;
	s->frac += s->r;
	if (s->frac >= s->mbps) {
		s->frac -= s->mbps;
		s->free_ns++;
	}
	return start;
}

/* CPU time of the calling thread, ns (bench figures only). */
static uint64_t
thread_cpu_ns(void)
{
	struct timespec ts;

	if (clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts) != 0)
		return 0;
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* Serialization of @p len bytes on @p wi, from @p t: the arrival. */
static uint64_t
wire_send(struct vc_wire *wi, uint64_t t, uint32_t len)
{
	app_serial_start(&wi->ser, t, len);
	return wi->ser.free_ns + wi->prop_ns;
}

/* The slots that poll a port of @p owner: those of that owner, those
 * that did not say, or (nobody) all of them. */
static void
slots_of_owner(const struct app_vclock *vc, int owner, struct vc_slots *m)
{
	bool any = false;
	unsigned int i;

	memset(m, 0, sizeof(*m));
	for (i = 0; i < vc->n_slots; i++)
		if (vc->slot[i].owner == APP_VC_OWNER_ANY ||
		    vc->slot[i].owner == owner) {
			set_add(m->b, i);
			any = true;
		}
	for (i = 0; !any && i < vc->n_slots; i++)
		set_add(m->b, i);
}

static uint16_t wire_put(void *arg, struct rte_mbuf **pkts, uint16_t n);

/* At the first step: who reads each wire; from now on a port's transmit
 * puts its frames on its wire at once (wire_put()) and its peer's
 * receive takes the delivered ones from it (aifab_wire_read()). */
static void
vc_map(struct app_vclock *vc)
{
	unsigned int i, q;

	for (i = 0; i < vc->n_wires; i++) {
		struct vc_wire *wi = &vc->wire[i];

		slots_of_owner(vc, wi->to_owner, &wi->readers);
		wi->readers0 = wi->readers.b[0];
		if (wi->rx_tap != NULL) {
			wi->rx_tap->rx_marked = true;
			wi->rx_tap->rx_wire = &wi->q;
		}
		for (q = 0; q < wi->n_tap; q++) {
			wi->tap[q].wire = wi;
			wi->tap[q].put = wire_put;
		}
	}
	vc->n_swords = (vc->n_slots + 63) / 64;
	vc->mapped = true;
}

/*
 * The FIFO holds up to VC_FIFO frames on the wire and rx_cap delivered
 * ones (16384 slots, 256 KB), but a wire has a few in flight: frames
 * live in a window of the first mask + 1 slots (slot i & mask), so the
 * loop touches a kilobyte per wire, not 256 KB. A full window doubles
 * in place: slot i & mask either stays or (bit mask + 1 of i set) moves
 * to the new upper half, empty until now.
 */
static inline struct aifab_wire_frame *
fifo_push(struct vc_wire *wi)
{
	if (unlikely(wi->q.tail - wi->q.head > wi->q.mask)) {
		uint32_t i, half = wi->q.mask + 1;

		for (i = wi->q.head; i != wi->q.tail; i++)
			if (i & half)
				wi->q.fifo[(i & wi->q.mask) + half] =
					wi->q.fifo[i & wi->q.mask];
		wi->q.mask = 2 * half - 1;
	}
	return &wi->q.fifo[wi->q.tail++ & wi->q.mask];
}

/* What the sender transmitted during this step's polls goes on the wire. */
static void
wire_take(struct vc_wire *wi, uint64_t now)
{
	struct app_vclock *vc = wi->vc;
	struct rte_mbuf *m[VC_BURST];
	unsigned int n, k, room;

	do {
		room = RTE_MIN(VC_FIFO - (wi->q.tail - wi->q.dlv), VC_BURST);
		n = room == 0 ? 0 : rte_ring_sc_dequeue_burst(wi->tx,
						(void **)m, room, NULL);
		for (k = 0; k < n; k++) {
			struct aifab_wire_frame *f = fifo_push(wi);

			f->m = m[k];
			f->at = wire_send(wi, now, m[k]->pkt_len);
		}
	} while (n == VC_BURST);
	if (wi->q.dlv != wi->q.tail)
		wi->dlv_at = wi->q.fifo[wi->q.dlv & wi->q.mask].at;
	/* A full FIFO leaves frames in the TX ring: take them next step. */
	wi->tx_left = wi->q.tail - wi->q.dlv == VC_FIFO;
	if (wi->tx_left)
		vc->ws[wi->idx >> 6].left |= UINT64_C(1) << (wi->idx & 63);
	else
		vc->ws[wi->idx >> 6].left &= ~(UINT64_C(1) << (wi->idx & 63));
}

/*
 * A port's transmit during a poll (aifab_port_ring_tx()): the frames go on
 * the wire now, with the arrival wire_take() would give them after the
 * polls (the same `now`, the same order: the wire's serialization sees
 * the same frames in the same sequence), without the TX ring's round
 * trip. Behind frames still in the TX ring (a full FIFO before) and
 * beyond the FIFO's room they go into the ring, taken as before.
 */
static uint16_t
wire_put(void *arg, struct rte_mbuf **pkts, uint16_t n)
{
	struct vc_wire *wi = arg;
	struct app_vclock *vc = wi->vc;
	struct vc_words *ws = &vc->ws[wi->idx >> 6];
	uint64_t bit = UINT64_C(1) << (wi->idx & 63), now;
	uint32_t tail = wi->q.tail;
	unsigned int k, room;

	/* Frames wait in the TX ring only after a full FIFO (tx_left) or a
	 * transmit put could not take (the ring port's mark, in `sent`),
	 * both cleared by the wire_take() that empties it. */
	if (unlikely(wi->tx_left || (ws->sent & bit)))
		return 0;
	room = RTE_MIN(VC_FIFO - (tail - wi->q.dlv), (unsigned int)n);
	if (room == 0)
		return 0;
	now = vc->now;
	/* one frame (most puts on this clock: a departure at its own
	 * instant) without the loop gcc sets up for many */
	k = 0;
	do {
		struct aifab_wire_frame *f = fifo_push(wi);

		f->m = pkts[k];
		f->at = wire_send(wi, now, pkts[k]->pkt_len);
	} while (unlikely(++k < room));
	/* dlv_at is fifo[dlv].at already unless no frame was on the wire:
	 * then it is the first frame's */
	if (wi->q.dlv == tail)
		wi->dlv_at = wi->q.fifo[tail & wi->q.mask].at;
	ws->busy |= bit;
	vc->skip[wi->idx >> 6] &= ~bit;
	return (uint16_t)room;
}

/* Frames that have arrived by @p now are delivered, in order, as many as
 * the receiver's RX ring would have had room for (rx_cap less the frames
 * still unread): dlv moves past them, the reader takes them from the
 * FIFO (aifab_wire_read()). Inlined in the step's one caller: most visits
 * deliver a frame or two. */
static __rte_always_inline uint64_t
wire_deliver(struct vc_wire *wi, uint64_t now)
{
	uint32_t d = wi->q.dlv, end, tail;
	uint64_t at = wi->dlv_at;   /* fifo[d].at, or none on the wire */
	unsigned int n;

	if (at > now)
		n = 0;
	else {
		tail = wi->q.tail;
		end = d + RTE_MIN(wi->rx_cap - (d - wi->q.head), tail - d);
		/* each slot's arrival read once: the one the walk stops at
		 * is the next dlv_at */
		while (d != end && at <= now) {
			d++;
			at = d != tail ? wi->q.fifo[d & wi->q.mask].at :
				UINT64_MAX;
		}
		n = d - wi->q.dlv;
		wi->q.dlv = d;
		wi->dlv_at = at;
	}
	wi->rx_delivered = wi->q.dlv - wi->q.head;
	if (n == 0)
		return 0;
	if (unlikely(wi->rx_mark == NULL)) {
		if (wi->rx_tap == NULL || wi->rx_tap->rx_mark == NULL)
			return n;
		wi->rx_mark = wi->rx_tap->rx_mark;
		wi->rx_mark_bit = wi->rx_tap->rx_mark_bit;
	}
	*wi->rx_mark |= wi->rx_mark_bit;
	return n;
}

/* The wire's next event: its next arrival, or a receiver that still has
 * frames to read (at once while it reads, else after a fallback step). */
static uint64_t
wire_next(const struct app_vclock *vc, const struct vc_wire *wi)
{
	unsigned int left = wi->q.dlv - wi->q.head;
	uint64_t t = UINT64_MAX;

	if (left > 0)
		t = left < wi->rx_delivered ? vc->now :
			vc->now + vc->fallback_ns;
	if (wi->dlv_at != UINT64_MAX)
		t = RTE_MIN(t, RTE_MAX(wi->dlv_at, vc->now +
				       (left > 0 ? vc->fallback_ns : 0)));
	return t;
}

/*
 * The next instant: the earliest wire event and next_event() of every
 * slot. A slot whose next_event() said never (only a frame wakes it) and
 * that was not polled since says never again; the others are asked. The
 * wires' part the end of the last step computed (wire_t): nothing
 * touches a wire between steps, and a wire that is not busy has none.
 */
static uint64_t
vc_next(struct app_vclock *vc)
{
	uint64_t t = vc->wire_t;
	unsigned int i;

	for (i = 0; i < vc->n_slots; i++) {
		struct vc_slot *s = &vc->slot[i];

		if (s->ops->next_event == NULL)
			s->next = vc->now + vc->fallback_ns;
		else if (s->polled || (!s->exact && s->next != UINT64_MAX))
			s->next = s->ops->next_event(s->st, s->w, vc->now);
		t = RTE_MIN(t, s->next);
	}
	return t;
}

/*
 * One step. The slots polled are those with something to do (the header
 * comment): a frame delivered to one of their ports and unread, a
 * next_event() that has come (exact slots) or is not never (the others),
 * no next_event op, or a counter mirror due (VC_SYNC_NS; mirror_ns for an
 * exact slot with an event ahead). Wires are visited only when they hold
 * frames (on the wire or delivered and unread), or when their TX ring
 * was written to (the port's TX tap marks it, aifab_port_ring_tx()): a
 * step costs what happens in it, not the number of wires. Of the wires
 * holding frames, the delivery visits those with an arrival due or a
 * frame unread (vc->due, from the last step's end: a busy wire's line is
 * not read to learn that nothing happens on it; nor the dues of a word
 * of 64 wires whose least, wmin, lies ahead), and the step's end those
 * the delivery visited or that were written to; the others keep their
 * state, and their due is their next event (wmin the least of them).
 */
bool
app_vclock_step(struct app_vclock *vc)
{
	uint64_t t, start, c, k = 0, m, wm, now, hops = 0;
	struct vc_slots poll;
	unsigned int i, n, j;
	bool timed;

	if (unlikely(!vc->mapped)) {
		vc_map(vc);
		vc->cpu0 = thread_cpu_ns();
	}
	t = vc_next(vc);
	if (t == UINT64_MAX)
		return false;
	/* (a local: the walks' stores through wire and mark pointers would
	 * make the compiler read vc->now again each time) */
	now = RTE_MAX(t, vc->now);
	vc->now = now;
	vc->steps++;
	poll = vc->every;
	for (j = 0; j < vc->n_words; j++) {
		uint64_t skip = 0, lo = UINT64_MAX;

		if (vc->wmin[j] > now) {
			/* nothing due on any of the word's wires */
			vc->skip[j] = vc->ws[j].busy;
			continue;
		}
		for (m = vc->ws[j].busy; m != 0; m &= m - 1) {
			unsigned int w = j * 64 + __builtin_ctzll(m);
			struct vc_wire *wi;

			if (vc->due[w] > now) {
				skip |= UINT64_C(1) << (w & 63);
				lo = RTE_MIN(lo, vc->due[w]);
				continue;
			}
			wi = &vc->wire[w];
			hops += wire_deliver(wi, now);
			if (wi->q.dlv == wi->q.head)
				continue;
			if (likely(vc->n_swords == 1))
				poll.b[0] |= wi->readers0;
			else
				slots_or(&poll, &wi->readers, vc->n_swords);
		}
		vc->skip[j] = skip;
		vc->wmin[j] = lo; /* the skipped; the end adds the others */
	}
	vc->hops += hops;
	timed = (vc->steps & (VC_TIME_EVERY - 1)) == 0;
	start = c = timed ? rte_rdtsc() : 0;
	for (i = 0; i < vc->n_slots; i++) {
		struct vc_slot *s = &vc->slot[i];
		bool sync = now - s->synced >= VC_SYNC_NS;
		bool mirror = now - s->mirrored >= vc->mirror_ns;
		uint64_t e;

		/* An exact slot whose next event lies ahead is polled for
		 * its counter mirror only: where a poll at every step would
		 * have made one (the same instants, so the same --stats-jsonl
		 * lines). */
		s->polled = set_has(poll.b, i) || sync ||
			(s->exact ? s->next <= now ||
			 (mirror && s->next != UINT64_MAX) :
			 s->next != UINT64_MAX);
		if (!s->polled)
			continue;
		if (sync)
			s->synced = now;
		if (mirror)
			s->mirrored = now;
		vc->polls++;
		n = s->ops->poll(s->st, s->w, now);
		k += n;
		if (likely(!timed)) {
			acct_poll(&s->acct, n);
			continue;
		}
		e = rte_rdtsc();
		if (s->blk != NULL) {
			acct_flush(&s->acct, s->blk);
			aifab_stats_account(s->blk, (e - c) * VC_TIME_EVERY,
					    n);
		}
		c = e;
	}
	if (likely(!timed)) {
		acct_poll(&vc->lacct, k);
	} else if (vc->lblk != NULL) {
		acct_flush(&vc->lacct, vc->lblk);
		aifab_stats_account(vc->lblk, (c - start) * VC_TIME_EVERY, k);
	}
	/* The wires to look at: those the delivery visited (frames due or
	 * unread), those put on during the polls (their skip bit cleared)
	 * and those whose TX ring was written to or is left (take); their
	 * next event for the next step's vc_next(). The others (skipped,
	 * untouched) are as they were: their next event is their due, whose
	 * least per word is wmin (a put or a take onto a wire with frames
	 * on it only adds later ones, so a touched wire's due is the same
	 * too). */
	t = UINT64_MAX;
	for (j = 0; j < vc->n_words; j++) {
		uint64_t sent = vc->ws[j].sent, take = sent | vc->ws[j].left;
		uint64_t busy = vc->ws[j].busy;

		t = RTE_MIN(t, vc->wmin[j]);
		m = (busy & ~vc->skip[j]) | take;
		vc->skip[j] = 0;
		if (m == 0)
			continue;
		vc->ws[j].sent = 0;
		wm = vc->wmin[j];
		for (; m != 0; m &= m - 1) {
			uint64_t bit = m & -m, due;
			struct vc_wire *wi;

			i = j * 64 + __builtin_ctzll(m);
			wi = &vc->wire[i];
			if (take & bit) /* tx_left or sent */
				wire_take(wi, now);
			if (wi->q.head == wi->q.tail) {
				busy &= ~bit;
				continue;
			}
			busy |= bit;
			if (likely(wi->q.dlv == wi->q.head)) {
				/* all read: wire_next() is its next arrival,
				 * or now (frames due the RX ring had no room
				 * for) */
				due = wi->dlv_at;
				t = RTE_MIN(t, RTE_MAX(due, now));
			} else {
				due = 0;
				t = RTE_MIN(t, wire_next(vc, wi));
			}
			vc->due[i] = due;
			wm = RTE_MIN(wm, due);
		}
		vc->wmin[j] = wm;
		vc->ws[j].busy = busy;
	}
	vc->wire_t = t;
	return true;
}

uint64_t
app_vclock_now(const struct app_vclock *vc)
{
	return vc->now;
}

void
app_vclock_stop(struct app_vclock *vc)
{
	unsigned int i;

	if (vc->mapped)
		vc->cpu1 = thread_cpu_ns();
	/* the polls counted since the last timed step */
	for (i = 0; i < vc->n_slots; i++)
		acct_flush(&vc->slot[i].acct, vc->slot[i].blk);
	acct_flush(&vc->lacct, vc->lblk);
}

void
app_vclock_counts(const struct app_vclock *vc, uint64_t *steps,
		  uint64_t *hops, uint64_t *polls, uint64_t *cpu_ns)
{
	*steps = vc->steps;
	*hops = vc->hops;
	*polls = vc->polls;
	*cpu_ns = vc->cpu1 > vc->cpu0 ? vc->cpu1 - vc->cpu0 : 0;
}

void
app_vclock_free(struct app_vclock *vc)
{
	unsigned int i;

	if (vc == NULL)
		return;
	for (i = 0; i < vc->n_wires; i++) {
		struct vc_wire *wi = &vc->wire[i];
		unsigned int q;

		for (q = 0; q < wi->n_tap; q++) {
			wi->tap[q].mark = NULL;
			wi->tap[q].put = NULL;
			wi->tap[q].wire = NULL;
		}
		if (wi->rx_tap != NULL) {
			wi->rx_tap->rx_marked = false;
			wi->rx_tap->rx_wire = NULL;
		}
		/* delivered but unread, and still on the wire */
		while (wi->q.head != wi->q.tail)
			rte_pktmbuf_free(
				wi->q.fifo[wi->q.head++ & wi->q.mask].m);
		free(wi->q.fifo);
	}
	free(vc);
}
