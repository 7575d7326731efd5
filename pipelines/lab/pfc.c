/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The pfc recipe (docs/lab.md "pfc"). Phase A sends pfc_load_percent of
 * dut_rate_gbps for step_ms and does not honour the DUT's pauses: when
 * the DUT pauses us (first XOFF, after how many bytes), for how long
 * (quanta), how often it refreshes. gap_ms of silence. Phase B sends 50 %
 * for step_ms: at its middle we send the DUT an XOFF from rx_ports[0]
 * (refreshed at half its pause time) for hold_ms, then XON: what still
 * came after our XOFF against IEEE 802.3 31B's bound, the headroom a peer
 * of this DUT needs (lib/verdict), and how fast it resumes.
 */
#include <inttypes.h>
#include <string.h>

#include <rte_common.h>
#include <rte_ethdev.h>
#include <rte_mbuf.h>

#include "aifab_pfc.h"
#include "aifab_verdict.h"
#include "lab_priv.h"

struct pfc {
	struct lab_steps st;              /* 0: phase A, 1: phase B */
	uint64_t received[2];
	/* phase A: the DUT pausing us */
	uint64_t a_start, a_bytes, a_bytes_at_xoff, first_xoff, last_xoff;
	uint64_t xoff_rx, xon_rx, xoff_gaps, gap_sum;
	uint32_t q_min, q_max;
	/* phase B: we pause the DUT */
	uint64_t xoff_at, xon_at, next_refresh, last_leak;
	uint64_t b_before, leak_frames, leak_bytes, first_after_xon;
	bool xoff_sent, xon_sent;
};

/** What was measured. */
struct pfc_result {
	/* phase A: the DUT pausing us */
	uint64_t a_sent_bytes_to_xoff;    /* we sent before its first XOFF */
	double a_first_xoff_ms;           /* from the start of phase A */
	uint64_t xoff_rx, xon_rx;         /* PFC frames for the priority */
	uint32_t quanta_min, quanta_max;
	double refresh_us;                /* mean gap between its XOFFs
					   * within a pause (no XON between) */
	double pause_us;                  /* quanta_max at our link's speed */
	/* phase B: we pause the DUT */
	uint64_t b_before;                /* frames before our XOFF */
	uint64_t leak_frames, leak_bytes; /* arrived after our XOFF */
	double response_us;               /* our XOFF to the last leaked one */
	double response_quanta;           /* leak bytes in quanta (64 B) */
	uint32_t bound_quanta;            /* IEEE 802.3 31B at the speed */
	uint64_t bound_bytes;             /* bound + 2 frames + cable */
	bool resumed;                     /* a frame after our XON */
	double resume_ms;                 /* XON to the first frame */
	uint64_t headroom_bytes;          /* a peer of this DUT needs */
	/* the verdict, check by check */
	bool paused_ok, refresh_ok, stop_ok, resume_ok, pass;
};

static int
pfc_init(struct lab *l, char *err, size_t errlen)
{
	const struct aifab_lab_params *p = &l->p;
	struct pfc *x = l->rs;

	if (p->dut_rate_mbps == 0)
		LAB_BAD("dut_rate_gbps = '0'; allowed: the rate of the DUT "
			"port behind rx_ports, above 0");
	if (p->pfc_prio > 7 || p->pfc_quanta == 0)
		LAB_BAD("pfc_priority %u, pfc_quanta %u; allowed: 0..7 and "
			"1..65535", p->pfc_prio, p->pfc_quanta);
	if (l->env.ports[p->rx_ports[0]].speed_mbps == 0)
		LAB_BAD("rx port %s: speed unknown; allowed: a speed_gbps "
			"for PFC quanta", lab_port_name(l, p->rx_ports[0]));
	lab_steps_init(l, &x->st, 2);
	return 0;
}

/* Our PFC frame for the priority (quanta 0: XON) on the rx port. */
static void
send_pfc(struct lab *l, uint16_t quanta)
{
	uint16_t q[8] = { 0 };
	struct rte_mbuf *m = rte_pktmbuf_alloc(l->pool);
	uint16_t port = l->p.rx_ports[0];

	if (m == NULL)
		return;
	q[l->p.pfc_prio] = quanta;
	m->data_len = m->pkt_len = aifab_build_pfc(rte_pktmbuf_mtod(m,
		uint8_t *), &l->env.ports[port].mac,
		(uint8_t)(1u << l->p.pfc_prio), q);
	if (aifab_port_tx_burst(&l->env.ports[port], 0, &m, 1) != 1)
		rte_pktmbuf_free(m);
}

/* Phase B: XOFF at the step's middle, refreshed at half its pause time,
 * for hold_ms; then XON. */
static void
pause_dut(struct lab *l, struct pfc *x, uint64_t now)
{
	uint64_t hz = l->env.tsc_hz;
	uint64_t pause_cyc = (uint64_t)((double)l->p.pfc_quanta * 512.0 *
		(double)hz / ((double)l->env.ports[l->p.rx_ports[0]]
			      .speed_mbps * 1e6));

	if (!x->xoff_sent && now >= x->st.start + x->st.len_cyc / 2) {
		send_pfc(l, l->p.pfc_quanta);
		x->xoff_sent = true;
		x->xoff_at = now;
		x->next_refresh = now + RTE_MAX(pause_cyc / 2, 1ul);
	} else if (x->xoff_sent && !x->xon_sent) {
		if (now >= x->xoff_at + lab_ms_cyc(l, l->p.hold_ms)) {
			send_pfc(l, 0);
			x->xon_sent = true;
			x->xon_at = now;
		} else if (now >= x->next_refresh) {
			send_pfc(l, l->p.pfc_quanta);
			x->next_refresh = now + RTE_MAX(pause_cyc / 2, 1ul);
		}
	}
}

static unsigned int
pfc_tx(struct lab *l, uint64_t now)
{
	struct pfc *x = l->rs;
	struct lab_steps *s = &x->st;
	uint64_t end;
	uint16_t n;
	int began = lab_steps_begin(l, s, s->ph == 0 ? l->p.pfc_load_pct : 50,
				    now);

	if (began < 0)
		return 0;
	if (began > 0 && s->ph == 0)
		x->a_start = now;
	end = s->start + s->len_cyc +
		(s->ph == 1 ? lab_ms_cyc(l, l->p.hold_ms) : 0);
	if (s->ph == 1)
		pause_dut(l, x, now);
	n = lab_steps_send(l, s, end, now);
	if (s->ph == 0)
		x->a_bytes += (uint64_t)n * l->p.frame_bytes;
	if (s->next_tsc >= end)
		lab_steps_next(l, s, now + s->gap_cyc, now);
	return n;
}

/* A PFC frame from the DUT (it pauses us): the priority's timer. */
static bool
pfc_rx_pfc(struct lab *l, uint16_t port, const struct aifab_pkt_info *pi,
	   uint64_t now)
{
	struct pfc *x = l->rs;
	uint16_t q = pi->pfc_time[l->p.pfc_prio];

	RTE_SET_USED(port);
	if (!(pi->pfc_enable & (1u << l->p.pfc_prio)))
		return true;
	if (q == 0) {
		x->xon_rx++;
		x->last_xoff = 0;  /* an XON ends the episode: no refresh gap */
		return true;
	}
	if (x->xoff_rx++ == 0) {
		x->first_xoff = now;
		x->a_bytes_at_xoff = x->a_bytes;
		x->q_min = q;
	} else if (x->last_xoff != 0) {
		/* a refresh: the gap since the XOFF before it */
		x->gap_sum += now - x->last_xoff;
		x->xoff_gaps++;
	}
	x->last_xoff = now;
	x->q_min = RTE_MIN(x->q_min, (uint32_t)q);
	x->q_max = RTE_MAX(x->q_max, (uint32_t)q);
	return true;
}

/* A data frame back on the rx port: in phase B, before our XOFF, after
 * it (leaked), or after our XON. */
static bool
pfc_rx(struct lab *l, const struct lab_rx *f, uint64_t now)
{
	struct pfc *x = l->rs;

	if (f->ph >= 2)
		return false;
	x->received[f->ph]++;
	if (f->ph != 1)
		return true;
	if (!x->xoff_sent) {
		x->b_before++;
	} else if (!x->xon_sent) {
		x->leak_frames++;
		x->leak_bytes += f->len;
		x->last_leak = now;
	} else if (x->first_after_xon == 0) {
		x->first_after_xon = now;
	}
	return true;
}

/* Phase A's figures: the DUT pausing us. */
static void
result_a(const struct lab *l, const struct pfc *x, struct pfc_result *r)
{
	double hz = (double)l->env.tsc_hz;

	r->xoff_rx = x->xoff_rx;
	r->xon_rx = x->xon_rx;
	r->quanta_min = x->q_min;
	r->quanta_max = x->q_max;
	if (x->xoff_rx > 0) {
		r->a_first_xoff_ms = lab_cyc_ms(l, x->first_xoff - x->a_start);
		r->a_sent_bytes_to_xoff = x->a_bytes_at_xoff;
	}
	r->refresh_us = x->xoff_gaps ?
		(double)x->gap_sum / (double)x->xoff_gaps / hz * 1e6 : 0;
	r->pause_us = aifab_verdict_pause_us(x->q_max,
		l->env.ports[l->p.tx_port].speed_mbps);
	r->paused_ok = r->xoff_rx > 0;
	r->refresh_ok = r->xoff_rx > 0 &&
		(r->xoff_rx < 2 || r->refresh_us < r->pause_us);
}

/* Phase B's figures: the DUT answering our pause, and the headroom. */
static void
result_b(const struct lab *l, const struct pfc *x, struct pfc_result *r)
{
	double hz = (double)l->env.tsc_hz;
	uint32_t rx_mbps = l->env.ports[l->p.rx_ports[0]].speed_mbps;
	uint64_t cable = aifab_verdict_cable_bytes(l->p.cable_m, rx_mbps);

	r->b_before = x->b_before;
	r->leak_frames = x->leak_frames;
	r->leak_bytes = x->leak_bytes;
	r->response_us = x->leak_frames ?
		(double)(x->last_leak - x->xoff_at) / hz * 1e6 : 0;
	/* one quantum is 512 bit times: 64 bytes at any speed */
	r->response_quanta = (double)x->leak_bytes / 64.0;
	r->bound_quanta = aifab_verdict_pfc_bound_quanta(rx_mbps);
	r->bound_bytes = aifab_verdict_headroom_bytes(
		(uint64_t)r->bound_quanta * 64, l->p.frame_bytes, cable);
	r->resumed = x->first_after_xon != 0;
	r->resume_ms = r->resumed ?
		lab_cyc_ms(l, x->first_after_xon - x->xon_at) : 0;
	r->headroom_bytes = aifab_verdict_headroom_bytes(r->leak_bytes,
		l->p.frame_bytes, cable);
	r->stop_ok = r->b_before > 0 && r->leak_bytes <= r->bound_bytes;
	r->resume_ok = r->resumed && r->resume_ms <= l->p.resume_ms;
}

static void
pfc_result(const struct lab *l, void *res)
{
	struct pfc_result *r = res;

	result_a(l, l->rs, r);
	result_b(l, l->rs, r);
	r->pass = r->paused_ok && r->refresh_ok && r->stop_ok && r->resume_ok;
}

static void
pfc_print(const struct lab *l, const void *res, FILE *f)
{
	const struct pfc_result *x = res;

	fprintf(f, "\n# lab pfc: priority %u; A: %s sends %u%% of %.3f Gb/s "
		"for %u ms; B: 50%%, and %s pauses the DUT for %u ms\n",
		l->p.pfc_prio, lab_port_name(l, l->p.tx_port),
		l->p.pfc_load_pct, l->p.dut_rate_mbps / 1000.0, l->p.step_ms,
		lab_port_name(l, l->p.rx_ports[0]), l->p.hold_ms);
	fprintf(f, "# A: the DUT's PFC to us: %" PRIu64 " XOFF, %" PRIu64
		" XON; first XOFF after %.3f ms and %" PRIu64 " bytes; quanta "
		"%u..%u (%.1f us at %u Mb/s); refreshed every %.1f us\n",
		x->xoff_rx, x->xon_rx, x->a_first_xoff_ms,
		x->a_sent_bytes_to_xoff, x->quanta_min, x->quanta_max,
		x->pause_us, l->env.ports[l->p.tx_port].speed_mbps,
		x->refresh_us);
	fprintf(f, "# B: our XOFF (quanta %u) after %" PRIu64 " frames; then "
		"%" PRIu64 " frames, %" PRIu64 " bytes (%.1f quanta) in %.1f us; "
		"XON -> first frame %s%.3f ms\n", l->p.pfc_quanta, x->b_before,
		x->leak_frames, x->leak_bytes, x->response_quanta,
		x->response_us, x->resumed ? "" : "never ", x->resume_ms);
	if (x->leak_bytes <= x->bound_bytes)
		fprintf(f, "# headroom a peer of this DUT needs: %" PRIu64
			" bytes (what it still sent + 2 frames + cable)\n",
			x->headroom_bytes);
	else
		fprintf(f, "# headroom a peer of this DUT needs: no finite "
			"amount: it did not stop for our XOFF\n");
	fprintf(f, "# verdict\n");
	fprintf(f, "  %-52s %-16s %s\n", "the DUT pauses us when congested",
		"", lab_pf(x->paused_ok));
	fprintf(f, "  refresh %-10.1f us < its pause time %-10.1f us %13s %s\n",
		x->refresh_us, x->pause_us, "", lab_pf(x->refresh_ok));
	fprintf(f, "  after our XOFF: %-9" PRIu64 " bytes <= %-9" PRIu64
		" (802.3: %u quanta + 2 frames + cable)   %s\n", x->leak_bytes,
		x->bound_bytes, x->bound_quanta, lab_pf(x->stop_ok));
	fprintf(f, "  resumes on XON within %u ms %27s %s\n", l->p.resume_ms,
		"", lab_pf(x->resume_ok));
	lab_print_tail(l, x->pass, f);
}

static void
pfc_json(const struct lab *l, const void *res, struct aifab_json *j)
{
	const struct pfc_result *x = res;
	const struct pfc *s = l->rs;
	unsigned int ph;

	aifab_json_u64(j, "priority", l->p.pfc_prio);
	aifab_json_u64(j, "dut_rate_mbps", l->p.dut_rate_mbps);
	aifab_json_obj(j, "dut_pauses");
	aifab_json_u64(j, "xoff", x->xoff_rx);
	aifab_json_u64(j, "xon", x->xon_rx);
	aifab_json_dbl(j, "first_xoff_ms", x->a_first_xoff_ms, 6);
	aifab_json_u64(j, "bytes_to_first_xoff", x->a_sent_bytes_to_xoff);
	aifab_json_u64(j, "quanta_min", x->quanta_min);
	aifab_json_u64(j, "quanta_max", x->quanta_max);
	aifab_json_dbl(j, "pause_us", x->pause_us, 3);
	aifab_json_dbl(j, "refresh_us", x->refresh_us, 3);
	aifab_json_end(j);
	aifab_json_obj(j, "we_pause_dut");
	aifab_json_u64(j, "quanta", l->p.pfc_quanta);
	aifab_json_u64(j, "hold_ms", l->p.hold_ms);
	aifab_json_u64(j, "frames_before", x->b_before);
	aifab_json_u64(j, "frames_after_xoff", x->leak_frames);
	aifab_json_u64(j, "bytes_after_xoff", x->leak_bytes);
	aifab_json_dbl(j, "response_us", x->response_us, 3);
	aifab_json_dbl(j, "response_quanta", x->response_quanta, 3);
	aifab_json_u64(j, "bound_quanta", x->bound_quanta);
	aifab_json_u64(j, "bound_bytes", x->bound_bytes);
	aifab_json_bool(j, "resumed", x->resumed);
	aifab_json_dbl(j, "resume_ms", x->resume_ms, 6);
	aifab_json_end(j);
	aifab_json_u64(j, "headroom_bytes", x->headroom_bytes);
	aifab_json_arr(j, "sent");
	for (ph = 0; ph < 2; ph++)
		aifab_json_u64(j, NULL, s->st.sent[ph]);
	aifab_json_end(j);
	aifab_json_arr(j, "received");
	for (ph = 0; ph < 2; ph++)
		aifab_json_u64(j, NULL, s->received[ph]);
	aifab_json_end(j);
	lab_json_tail(l, x->pass, j);
}

const struct lab_recipe lab_recipe_pfc = {
	.name = "pfc",
	.state_size = sizeof(struct pfc),
	.result_size = sizeof(struct pfc_result),
	.init = pfc_init,
	.tx = pfc_tx,
	.rx = pfc_rx,
	.rx_pfc = pfc_rx_pfc,
	.result = pfc_result,
	.print = pfc_print,
	.json = pfc_json,
};
