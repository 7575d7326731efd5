/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * [general] clock: which clock runs, and the one virtual clock of a whole
 * in-memory process (docs/virtual-time.md).
 *
 * The virtual clock is a discrete-event loop on the main lcore. Every
 * pipeline worker of the process is polled there, in a fixed order (the
 * order the app started them), with `now` = the model time in ns. Each
 * in-memory wire direction is a FIFO of (frame, arrival): a frame the
 * sender put in its TX ring during the poll at time d starts on the wire
 * at max(d, the wire free), takes (len + 24) x 8 / speed to serialize
 * (exact, the fraction of a ns carried) and arrives cable_m x 5 ns later;
 * it is put in the receiver's RX ring at that instant. One step: the
 * clock jumps to the earliest of every wire's next arrival and every
 * pipeline's next_event(); arrivals due are delivered (wires in port
 * order, each in time order), every worker is polled in its order, what
 * they sent is taken onto the wires. Nothing reads the TSC, so a profile
 * and seed give the same run on any machine under any load.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_common.h>
#include <rte_cycles.h>
#include <rte_mbuf.h>
#include <rte_ring.h>

#include "aifab_stats.h"
#include "app.h"

#define VC_FIFO 8192u           /* frames in flight per wire direction */
#define VC_WIRE_EXTRA 24u       /* FCS, preamble, inter-frame gap */
#define VC_NS_PER_M 5u          /* light in a cable */
#define VC_MAX_SLOTS (APP_MAX_PIPES * 2 + AIFAB_MAX_WORKERS) /* + generator workers */

struct vc_frame {
	struct rte_mbuf *m;
	uint64_t at;                /* ns: the frame has arrived */
};

/* One direction of a cable: from port `from`'s TX ring to its peer's RX
 * ring. */
struct vc_wire {
	struct rte_ring *tx, *rx;
	struct app_serial ser;      /* the sender's transmitter */
	uint64_t prop_ns;
	uint32_t head, tail;        /* fifo[head & mask] .. tail */
	unsigned int rx_delivered;  /* RX ring count after delivery */
	struct vc_frame fifo[VC_FIFO];
};

struct vc_slot {
	const struct aifab_pipeline_ops *ops;
	void *st;
	unsigned int w;
	struct aifab_stats_block *blk;
};

struct app_vclock {
	uint64_t now;               /* ns of model time */
	uint64_t fallback_ns;       /* step for a pipeline without next_event */
	uint64_t steps, hops;       /* loop steps, frames delivered */
	unsigned int n_wires, n_slots;
	struct vc_wire *wire[AIFAB_MAX_PORTS];
	struct vc_slot slot[VC_MAX_SLOTS];
	struct aifab_stats_block *lblk;
};

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
	struct app_vclock *vc = calloc(1, sizeof(*vc));
	uint32_t fastest = 0;
	unsigned int i, peer;

	if (vc == NULL)
		goto nomem;
	for (i = 0; i < env->n_ports; i++) {
		struct vc_wire *wi;
		struct rte_ring *tx, *rx;

		app_ports_wire(i, &tx, &rx, &peer);
		if (tx == NULL || rx == NULL)
			continue;
		wi = calloc(1, sizeof(*wi));
		if (wi == NULL)
			goto nomem;
		wi->tx = tx;
		wi->rx = rx;
		wi->ser.mbps = RTE_MAX(env->ports[i].speed_mbps, 1u);
		wi->prop_ns = (uint64_t)VC_NS_PER_M *
			RTE_MAX(prof->ports[i].cable_m, prof->ports[peer].cable_m);
		vc->wire[vc->n_wires++] = wi;
		fastest = RTE_MAX(fastest, wi->ser.mbps);
	}
	/* A 1 KB frame at the fastest port. */
	vc->fallback_ns = fastest ? RTE_MAX(8192000ull / fastest, 1ull) : 1000;
	return vc;
nomem:
	app_vclock_free(vc);
	snprintf(err, errlen, "out of memory for the virtual clock");
	return NULL;
}

void
app_vclock_add(struct app_vclock *vc, const struct aifab_pipeline_ops *ops,
	       void *st, unsigned int w, struct aifab_stats_block *blk)
{
	struct vc_slot *s;

	if (vc->n_slots == VC_MAX_SLOTS)
		return;
	s = &vc->slot[vc->n_slots++];
	s->ops = ops;
	s->st = st;
	s->w = w;
	s->blk = blk;
}

void
app_vclock_set_lcore_block(struct app_vclock *vc, struct aifab_stats_block *b)
{
	vc->lblk = b;
}

uint64_t
app_serial_start(struct app_serial *s, uint64_t t, uint32_t len)
{
	uint64_t bits_k = ((uint64_t)len + VC_WIRE_EXTRA) * 8000, start;

	if (t > s->free_ns) {
		s->free_ns = t;
		s->frac = 0;        /* an idle transmitter starts on a whole ns */
	}
	start = s->free_ns;
	s->free_ns += bits_k / s->mbps;
	s->frac += (uint32_t)(bits_k % s->mbps);
	if (s->frac >= s->mbps) {
		s->frac -= s->mbps;
		s->free_ns++;
	}
	return start;
}

/* Serialization of @p len bytes on @p wi, from @p t: the arrival. */
static uint64_t
wire_send(struct vc_wire *wi, uint64_t t, uint32_t len)
{
	app_serial_start(&wi->ser, t, len);
	return wi->ser.free_ns + wi->prop_ns;
}

/* What the sender transmitted during this step's polls goes on the wire. */
static void
wire_take(struct vc_wire *wi, uint64_t now)
{
	struct rte_mbuf *m;

	while (wi->tail - wi->head < VC_FIFO &&
	       rte_ring_sc_dequeue(wi->tx, (void **)&m) == 0) {
		struct vc_frame *f = &wi->fifo[wi->tail++ & (VC_FIFO - 1)];

		f->m = m;
		f->at = wire_send(wi, now, m->pkt_len);
	}
}

/* Frames that have arrived by @p now go to the receiver's RX ring. */
static uint64_t
wire_deliver(struct vc_wire *wi, uint64_t now)
{
	uint64_t n = 0;

	while (wi->head != wi->tail) {
		struct vc_frame *f = &wi->fifo[wi->head & (VC_FIFO - 1)];

		if (f->at > now || rte_ring_sp_enqueue(wi->rx, f->m) != 0)
			break;
		wi->head++;
		n++;
	}
	wi->rx_delivered = rte_ring_count(wi->rx);
	return n;
}

/* The wire's next event: its next arrival, or a receiver that still has
 * frames to read (at once while it reads, else after a fallback step). */
static uint64_t
wire_next(const struct app_vclock *vc, const struct vc_wire *wi)
{
	unsigned int left = rte_ring_count(wi->rx);
	uint64_t t = UINT64_MAX;

	if (left > 0)
		t = left < wi->rx_delivered ? vc->now :
			vc->now + vc->fallback_ns;
	if (wi->head != wi->tail)
		t = RTE_MIN(t, RTE_MAX(wi->fifo[wi->head & (VC_FIFO - 1)].at,
				       vc->now + (left > 0 ? vc->fallback_ns :
						  0)));
	return t;
}

static uint64_t
vc_next(const struct app_vclock *vc)
{
	uint64_t t = UINT64_MAX;
	unsigned int i;

	for (i = 0; i < vc->n_wires; i++)
		t = RTE_MIN(t, wire_next(vc, vc->wire[i]));
	for (i = 0; i < vc->n_slots; i++) {
		const struct vc_slot *s = &vc->slot[i];

		t = RTE_MIN(t, s->ops->next_event != NULL ?
			    s->ops->next_event(s->st, s->w, vc->now) :
			    vc->now + vc->fallback_ns);
	}
	return t;
}

bool
app_vclock_step(struct app_vclock *vc)
{
	uint64_t t = vc_next(vc), start, c, k = 0;
	unsigned int i, n;

	if (t == UINT64_MAX)
		return false;
	vc->now = RTE_MAX(t, vc->now);
	vc->steps++;
	for (i = 0; i < vc->n_wires; i++)
		vc->hops += wire_deliver(vc->wire[i], vc->now);
	start = c = rte_rdtsc();
	for (i = 0; i < vc->n_slots; i++) {
		const struct vc_slot *s = &vc->slot[i];
		uint64_t e;

		n = s->ops->poll(s->st, s->w, vc->now);
		e = rte_rdtsc();
		if (s->blk != NULL)
			aifab_stats_account(s->blk, e - c, n);
		c = e;
		k += n;
	}
	if (vc->lblk != NULL)
		aifab_stats_account(vc->lblk, c - start, k);
	for (i = 0; i < vc->n_wires; i++)
		wire_take(vc->wire[i], vc->now);
	return true;
}

uint64_t
app_vclock_now(const struct app_vclock *vc)
{
	return vc->now;
}

void
app_vclock_counts(const struct app_vclock *vc, uint64_t *steps,
		  uint64_t *hops)
{
	*steps = vc->steps;
	*hops = vc->hops;
}

void
app_vclock_free(struct app_vclock *vc)
{
	unsigned int i;

	if (vc == NULL)
		return;
	for (i = 0; i < vc->n_wires; i++) {
		struct vc_wire *wi = vc->wire[i];

		while (wi->head != wi->tail)
			rte_pktmbuf_free(wi->fifo[wi->head++ &
						  (VC_FIFO - 1)].m);
		free(wi);
	}
	free(vc);
}
