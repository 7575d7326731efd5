/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The incast recipe (docs/lab.md "incast"), an N:1 collective (a gather):
 * every sender (tx_port, then tx_ports, each to its own DUT port) delivers
 * a message of `each` frames (rate_gbps for step_ms) to the receiver
 * behind rx_ports[0] on the lossless class, honouring the PFC the DUT
 * sends it for pfc_priority as a lossless NIC would. The collective
 * completes when the last sender's message has arrived whole. Figures:
 * completion time, ideal time, goodput, loss, sequence breaks, pauses,
 * one-way latency percentiles (lib/verdict).
 */
#include <inttypes.h>
#include <string.h>

#include <rte_common.h>

#include "aifab_pfc.h"
#include "aifab_verdict.h"
#include "lab_priv.h"

struct incast {
	uint64_t each;                    /* frames of each sender's message */
	bool started;
	uint64_t first_tx;                /* the first frame out */
	struct aifab_pfc_rx pfc_in[AIFAB_MAX_PORTS]; /* per sender */
	uint64_t pfc_frames[AIFAB_MAX_PORTS];
	uint64_t s_sent[AIFAB_MAX_PORTS], s_next[AIFAB_MAX_PORTS];
	uint64_t s_recv[AIFAB_MAX_PORTS], s_expect[AIFAB_MAX_PORTS];
	uint64_t s_done[AIFAB_MAX_PORTS]; /* its whole message delivered */
	uint64_t reorder, rx_bytes;
};

struct incast_result {
	uint32_t n_senders;
	uint64_t frames_each;             /* each sender's message, frames */
	uint64_t sent[AIFAB_MAX_PORTS], received[AIFAB_MAX_PORTS];
	uint64_t pfc_rx[AIFAB_MAX_PORTS]; /* XOFF+XON the DUT sent it */
	double paused_ms[AIFAB_MAX_PORTS]; /* time it was held back */
	double done_ms[AIFAB_MAX_PORTS];  /* its message delivered, from the
					   * first frame out; -1: never */
	uint64_t pfc_rx_total;
	double paused_ms_total;
	uint64_t lost;
	uint64_t reordered;               /* sequence breaks (gap, reorder) */
	bool completed;                   /* every message delivered whole */
	double completion_ms;             /* first frame out to the last
					   * message delivered (if completed) */
	double ideal_ms;                  /* all wire bytes / dut_rate; 0:
					   * dut_rate_gbps not given */
	double goodput_mbps;              /* received bytes / completion */
	struct aifab_verdict_lat lat;     /* one-way, us */
	bool p99_ok, pass;
};

static int
incast_init(struct lab *l, char *err, size_t errlen)
{
	const struct aifab_lab_params *p = &l->p;
	struct incast *x = l->rs;
	uint32_t i;

	if (l->n_tx < 2)
		LAB_BAD("tx_ports: %u sender(s); allowed: 2 or more for an "
			"incast (with gateway_macs, one per port)", l->n_tx);
	for (i = 0; i < l->n_tx; i++)
		if (aifab_pfc_rx_init(&x->pfc_in[i], RTE_MAX(
			l->env.ports[l->tx_of[i]].speed_mbps, 1u),
			l->env.tsc_hz) != 0)
			LAB_BAD("tx port %s: speed %u Mb/s; allowed: a speed "
				"for PFC quanta", lab_port_name(l, l->tx_of[i]),
				l->env.ports[l->tx_of[i]].speed_mbps);
	x->each = (uint64_t)p->rate_mbps * 1000 / 8 * p->step_ms /
		(p->frame_bytes + LAB_WIRE_EXTRA) + 1;
	return lab_lat_alloc(l, x->each * l->n_tx, err, errlen);
}

/* Sender s's frame: flow s; s > 0 from its own port, to its own DUT MAC,
 * from its own /24. */
static void
incast_frame(const struct lab *l, uint32_t s, uint32_t seq,
	     struct lab_frame *f)
{
	lab_frame_flow(l, s, f);
	if (s > 0) {
		f->port = l->tx_of[s];
		f->dst = &l->p.more_gw[s - 1];
		f->sip = l->p.src_ip + (s << 8);
	}
	f->seq = seq;
}

/* Sender s's frames due at now; what the PMD refuses is resent later,
 * same sequence. @return frames sent. */
static uint16_t
incast_send(struct lab *l, struct incast *x, uint32_t s, uint64_t now)
{
	struct rte_mbuf *pkts[LAB_BURST];
	struct lab_frame f;
	uint32_t due = lab_pace_due(x->s_next[s], l->gap_cyc, now, UINT64_MAX);
	uint16_t n, sent;

	due = (uint32_t)RTE_MIN((uint64_t)due, x->each - x->s_sent[s]);
	for (n = 0; n < due; n++) {
		incast_frame(l, s, (uint32_t)(x->s_sent[s] + n), &f);
		pkts[n] = lab_frame_build(l, &f, now);
		if (pkts[n] == NULL)
			break;
	}
	if (n == 0)
		return 0;
	sent = lab_tx_burst(l, l->tx_of[s], pkts, n);
	x->s_next[s] += (uint64_t)sent * l->gap_cyc;
	x->s_sent[s] += sent;
	return sent;
}

/*
 * Every sender sends `rate_gbps` for step_ms to the one destination,
 * paced per sender, holding back while the DUT pauses it (a lossless
 * NIC), to finish its share even if paused.
 */
static unsigned int
incast_tx(struct lab *l, uint64_t now)
{
	struct incast *x = l->rs;
	unsigned int total = 0;
	bool all = true;
	uint32_t s;

	if (!x->started) {
		x->started = true;
		x->first_tx = now;
		for (s = 0; s < l->n_tx; s++)
			x->s_next[s] = now;
	}
	for (s = 0; s < l->n_tx; s++) {
		if (x->s_sent[s] >= x->each)
			continue;
		all = false;
		if ((aifab_pfc_rx_paused_mask(&x->pfc_in[s], now) >>
		     l->p.pfc_prio) & 1)
			continue;
		total += incast_send(l, x, s, now);
	}
	if (all)
		lab_tx_done(l, now);
	return total;
}

/* The DUT pauses a sender: honour it, as a lossless NIC. */
static bool
incast_rx_pfc(struct lab *l, uint16_t port, const struct aifab_pkt_info *pi,
	      uint64_t now)
{
	struct incast *x = l->rs;
	uint8_t s = l->sender_of_port[port];

	if (s == LAB_NONE)
		return false;
	aifab_pfc_rx_frame(&x->pfc_in[s], pi->pfc_enable, pi->pfc_time, now);
	x->pfc_frames[s]++;
	return true;
}

static bool
incast_rx(struct lab *l, const struct lab_rx *f, uint64_t now)
{
	struct incast *x = l->rs;

	/* our tag with no sender's number: ignored, and counted "without
	 * our tag" only when it is out of the [lab] flows or came back on a
	 * port that is not an rx port (as the ecmp recipe counts) */
	if (f->flow >= l->n_tx)
		return f->ph == 0 && f->flow < l->p.flows &&
			f->slot != LAB_NONE;
	if (f->seq != x->s_expect[f->flow])
		x->reorder++;
	x->s_expect[f->flow] = (uint64_t)f->seq + 1;
	if (++x->s_recv[f->flow] == x->each && x->s_done[f->flow] == 0)
		x->s_done[f->flow] = now;
	x->rx_bytes += f->len;
	lab_lat_keep(l, lab_lat_ns(l, f, now), (f->tos & 3) == 3);
	return true;
}

/* Per sender: sent, back, lost, pauses, when its message was delivered;
 * @return the last delivery (if every message was delivered). */
static uint64_t
result_senders(const struct lab *l, const struct incast *x,
	       struct incast_result *r)
{
	uint64_t last_done = 0;
	uint32_t s;

	r->completed = l->n_tx > 0;
	for (s = 0; s < l->n_tx; s++) {
		r->sent[s] = x->s_sent[s];
		r->received[s] = x->s_recv[s];
		r->lost += x->s_sent[s] > x->s_recv[s] ?
			x->s_sent[s] - x->s_recv[s] : 0;
		r->pfc_rx[s] = x->pfc_frames[s];
		r->paused_ms[s] = aifab_pfc_rx_paused_ns(&x->pfc_in[s],
			l->p.pfc_prio, l->last_now) / 1e6;
		r->pfc_rx_total += r->pfc_rx[s];
		r->paused_ms_total += r->paused_ms[s];
		if (x->s_done[s] == 0 || x->s_done[s] < x->first_tx) {
			r->completed = false;
			r->done_ms[s] = -1;
			continue;
		}
		r->done_ms[s] = lab_cyc_ms(l, x->s_done[s] - x->first_tx);
		last_done = RTE_MAX(last_done, x->s_done[s]);
	}
	return last_done;
}

/*
 * Sender s's message is its `each` frames; the collective completes when
 * every sender's message has been delivered whole (the last of its frames
 * arrived). Completion time: first frame out to that moment. Plus loss,
 * order, pauses, latency.
 */
static void
incast_result(const struct lab *l, void *res)
{
	const struct incast *x = l->rs;
	struct incast_result *r = res;
	uint64_t last_done;

	r->n_senders = l->n_tx;
	r->frames_each = x->each;
	last_done = result_senders(l, x, r);
	r->reordered = x->reorder;
	if (r->completed) {
		r->completion_ms = lab_cyc_ms(l, last_done - x->first_tx);
		r->goodput_mbps = (double)x->rx_bytes * 8.0 /
			(r->completion_ms * 1e3);
	}
	if (l->p.dut_rate_mbps) {
		/* every frame's wire bytes through the one egress port */
		r->ideal_ms = (double)x->each * l->n_tx *
			(l->p.frame_bytes + LAB_WIRE_EXTRA) * 8.0 /
			((double)l->p.dut_rate_mbps * 1e3);
	}
	aifab_verdict_latency_us(l->lat, l->n_lat, &r->lat);
	r->p99_ok = r->lat.p99 <= l->p.max_p99_us;
	r->pass = r->completed && r->lost == 0 && r->reordered == 0 &&
		(l->p.max_p99_us == 0 || r->p99_ok);
}

static void
print_senders(const struct lab *l, const struct incast_result *x, FILE *f)
{
	uint32_t s;

	for (s = 0; s < x->n_senders; s++) {
		fprintf(f, "  %-8s %9" PRIu64 " %9" PRIu64 " ",
			lab_port_name(l, l->tx_of[s]), x->sent[s],
			x->received[s]);
		if (x->done_ms[s] >= 0)
			fprintf(f, "%12.3f", x->done_ms[s]);
		else
			fprintf(f, "%12s", "never");
		fprintf(f, " %9" PRIu64 " %11.3f\n", x->pfc_rx[s],
			x->paused_ms[s]);
	}
}

static void
incast_print(const struct lab *l, const void *res, FILE *f)
{
	const struct incast_result *x = res;

	fprintf(f, "\n# lab incast: %u:1 gather, each sender's message %"
		PRIu64 " frames of %u bytes at %.3f Gb/s into %s (priority %u "
		"honoured as lossless)\n# %-8s %9s %9s %12s %9s %11s\n",
		x->n_senders, x->frames_each, l->p.frame_bytes,
		l->p.rate_mbps / 1000.0, lab_port_name(l, l->p.rx_ports[0]),
		l->p.pfc_prio, "sender", "sent", "back", "delivered ms",
		"PFC rx", "paused ms");
	print_senders(l, x, f);
	if (x->completed)
		fprintf(f, "# completion %.3f ms (first frame out to every "
			"message delivered)", x->completion_ms);
	else
		fprintf(f, "# completion: never (a message was not delivered "
			"whole)");
	if (x->ideal_ms > 0)
		fprintf(f, "; ideal %.3f ms (all wire bytes at %.3f Gb/s)",
			x->ideal_ms, l->p.dut_rate_mbps / 1000.0);
	fprintf(f, "; goodput %.1f Mb/s\n# latency us p50 %.1f p99 %.1f "
		"p999 %.1f max %.1f; pauses: %" PRIu64 " PFC frames, %.3f ms "
		"held back (all senders)\n# verdict\n", x->goodput_mbps,
		x->lat.p50, x->lat.p99, x->lat.p999, x->lat.max,
		x->pfc_rx_total, x->paused_ms_total);
	fprintf(f, "  every message delivered whole %30s %s\n", "",
		lab_pf(x->completed));
	fprintf(f, "  lost %-10" PRIu64 " == 0 %35s %s\n", x->lost, "",
		lab_pf(x->lost == 0));
	fprintf(f, "  sequence breaks %-10" PRIu64 " == 0 %24s %s\n",
		x->reordered, "", lab_pf(x->reordered == 0));
	if (l->p.max_p99_us)
		fprintf(f, "  latency p99 %-10.1f <= %-10u us %18s %s\n",
			x->lat.p99, l->p.max_p99_us, "", lab_pf(x->p99_ok));
	lab_print_tail(l, x->pass, f);
}

/* A time in ms, or null when it never happened. */
static void
json_ms_or_null(struct aifab_json *j, const char *key, bool happened,
		double ms)
{
	if (happened)
		aifab_json_dbl(j, key, ms, 6);
	else
		aifab_json_null(j, key);
}

static void
incast_json(const struct lab *l, const void *res, struct aifab_json *j)
{
	const struct incast_result *x = res;
	uint32_t s;

	aifab_json_str(j, "rx_port", lab_port_name(l, l->p.rx_ports[0]));
	aifab_json_u64(j, "priority", l->p.pfc_prio);
	aifab_json_u64(j, "frames_each", x->frames_each);
	aifab_json_u64(j, "frame_bytes", l->p.frame_bytes);
	aifab_json_obj(j, "senders");
	for (s = 0; s < x->n_senders; s++) {
		aifab_json_obj(j, lab_port_name(l, l->tx_of[s]));
		aifab_json_u64(j, "sent", x->sent[s]);
		aifab_json_u64(j, "received", x->received[s]);
		aifab_json_u64(j, "pfc_rx", x->pfc_rx[s]);
		aifab_json_dbl(j, "paused_ms", x->paused_ms[s], 6);
		json_ms_or_null(j, "delivered_ms", x->done_ms[s] >= 0,
				x->done_ms[s]);
		aifab_json_end(j);
	}
	aifab_json_end(j);
	aifab_json_u64(j, "lost", x->lost);
	aifab_json_u64(j, "reordered", x->reordered);
	aifab_json_bool(j, "completed", x->completed);
	json_ms_or_null(j, "completion_ms", x->completed, x->completion_ms);
	json_ms_or_null(j, "ideal_ms", x->ideal_ms > 0, x->ideal_ms);
	aifab_json_dbl(j, "goodput_mbps", x->goodput_mbps, 3);
	aifab_json_obj(j, "latency_us");
	aifab_json_dbl(j, "p50", x->lat.p50, 3);
	aifab_json_dbl(j, "p99", x->lat.p99, 3);
	aifab_json_dbl(j, "p999", x->lat.p999, 3);
	aifab_json_dbl(j, "max", x->lat.max, 3);
	aifab_json_end(j);
	aifab_json_obj(j, "pauses");
	aifab_json_u64(j, "pfc_rx", x->pfc_rx_total);
	aifab_json_dbl(j, "paused_ms", x->paused_ms_total, 6);
	aifab_json_end(j);
	lab_json_tail(l, x->pass, j);
}

const struct lab_recipe lab_recipe_incast = {
	.name = "incast",
	.state_size = sizeof(struct incast),
	.result_size = sizeof(struct incast_result),
	.init = incast_init,
	.tx = incast_tx,
	.rx = incast_rx,
	.rx_pfc = incast_rx_pfc,
	.result = incast_result,
	.print = incast_print,
	.json = incast_json,
};
