/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Lab recipes against a switch under test (see lab.h): the ECMP spread
 * recipe. Sends tagged RoCEv2 frames (valid IPv4 checksum and ICRC) from
 * one port, paced on the TSC, and records per (phase, flow) the port each
 * frame came back on.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <rte_byteorder.h>
#include <rte_cycles.h>
#include <rte_errno.h>
#include <rte_ethdev.h>
#include <rte_ip.h>
#include <rte_malloc.h>
#include <rte_mbuf.h>

#include "aifab_pfc.h"
#include "aifab_pkt.h"
#include "lab.h"

#define LAB_TAG_MAGIC 0x4149464cu /* "AIFL" */
#define LAB_TAG_LEN 24u
#define LAB_HDR_LEN (14u + 20u + 8u + 12u)
#define LAB_MIN_FRAME (LAB_HDR_LEN + LAB_TAG_LEN + 4u)
#define LAB_BURST 32u
#define LAB_NONE 0xffu
#define LAB_WIRE_EXTRA 24u /* FCS, preamble + SFD, IFG */
#define LAB_POOL_CACHE 64u

#define BAD(...) do { snprintf(err, errlen, __VA_ARGS__); goto fail; } while (0)

static const char *const recipe_names[] = { "none", "ecmp", "ecn", "pfc",
	"incast" };
static const char *const field_names[] = { "sport", "dqpn", "sip", "dip" };

struct lab {
	struct aifab_env env;
	struct aifab_lab_params p;
	struct rte_mempool *pool;
	uint32_t n_phases;
	int phase_field[AIFAB_LAB_MAX_PHASES]; /* -1: all fields */
	/* sending: phase, then frame j of every flow in turn */
	uint32_t ph, j, flow;
	bool sent_all;
	uint64_t next_tsc, gap_cyc, end_tsc, settle_cyc;
	bool started;
	/* [phase][flow]: index into rx_ports of the first arrival; split */
	uint8_t *first;
	uint8_t *split;
	uint64_t sent[AIFAB_LAB_MAX_PHASES], received[AIFAB_LAB_MAX_PHASES];
	uint64_t rx_other;
	uint64_t tx_pkts, tx_bytes, rx_pkts, rx_bytes;
	uint64_t port_rx[AIFAB_MAX_PORTS], port_rx_bytes[AIFAB_MAX_PORTS];
	uint8_t slot_of_port[AIFAB_MAX_PORTS]; /* env port -> rx slot */
	uint8_t scratch[AIFAB_PKT_HDR_WINDOW];
	bool done;
	/* ecn: the step being sent, and every returned frame's latency */
	uint64_t step_start, step_cyc, gap_steps_cyc, seq;
	bool step_on;
	uint32_t *lat;            /* ns, bit 31: CE */
	uint32_t n_lat, cap_lat;
	uint64_t st_ce[AIFAB_LAB_MAX_STEPS], st_ect[AIFAB_LAB_MAX_STEPS];
	uint64_t st_lat_sum[AIFAB_LAB_MAX_STEPS], st_lat_max[AIFAB_LAB_MAX_STEPS];
	/* pfc: phase 0 (A) congests, phase 1 (B) we pause the DUT */
	uint64_t a_start, a_bytes, a_bytes_at_xoff, first_xoff, last_xoff;
	uint64_t xoff_rx, xon_rx, xoff_gaps, gap_sum;
	uint32_t q_min, q_max;
	uint64_t b_start, xoff_at, xon_at, next_refresh, last_leak;
	uint64_t b_before, leak_frames, leak_bytes, first_after_xon;
	bool xoff_sent, xon_sent;
	/* incast: senders (0: tx_port), what each honours and got back */
	uint16_t n_tx, tx_of[AIFAB_MAX_PORTS];
	uint8_t sender_of_port[AIFAB_MAX_PORTS];
	struct aifab_pfc_rx pfc_in[AIFAB_MAX_PORTS];
	uint64_t pfc_frames[AIFAB_MAX_PORTS];
	uint64_t s_sent[AIFAB_MAX_PORTS], s_next[AIFAB_MAX_PORTS];
	uint64_t s_recv[AIFAB_MAX_PORTS], s_expect[AIFAB_MAX_PORTS];
	uint64_t s_reorder, first_tx, last_rx, rx_bytes_data;
	uint64_t s_done[AIFAB_MAX_PORTS];  /* its whole message delivered */
	uint64_t last_now;                 /* clock of the last poll */
};

const char *
aifab_lab_recipe_name(unsigned int r)
{
	return r < RTE_DIM(recipe_names) ? recipe_names[r] : NULL;
}

const char *
aifab_lab_field_name(unsigned int f)
{
	return f < RTE_DIM(field_names) ? field_names[f] : NULL;
}

void
aifab_lab_params_defaults(struct aifab_lab_params *p)
{
	memset(p, 0, sizeof(*p));
	p->flows = 64;
	p->frames_per_flow = 4;
	p->frame_bytes = 256;
	p->fields = (1u << AIFAB_LAB_F_MAX) - 1;
	p->rate_mbps = 1000;
	p->tos = 26 << 2 | 2;
	p->sport_base = 49152;
	p->qpn_base = 0x100;
	p->settle_ms = 200;
	p->max_imbalance = 1.5;
	p->min_p = 0.001;
}

/* ---- frames -------------------------------------------------------------- */

/* The header fields of (phase, flow). */
static void
flow_fields(const struct lab *l, uint32_t ph, uint32_t flow, uint16_t *sport,
	    uint32_t *dqpn, uint32_t *sip, uint32_t *dip)
{
	int f = l->phase_field[ph];

	*sport = l->p.sport_base;
	*dqpn = l->p.qpn_base;
	*sip = l->p.src_ip;
	*dip = l->p.dst_ip;
	if (f < 0 || f == AIFAB_LAB_F_SPORT)
		*sport = (uint16_t)(l->p.sport_base + flow);
	if (f < 0 || f == AIFAB_LAB_F_DQPN)
		*dqpn = (l->p.qpn_base + flow) & 0xffffff;
	if (f < 0 || f == AIFAB_LAB_F_SIP)
		*sip = l->p.src_ip + flow;
	if (f < 0 || f == AIFAB_LAB_F_DIP)
		*dip = l->p.dst_ip + flow;
}

static void
put32(uint8_t *b, uint32_t v)
{
	b[0] = (uint8_t)(v >> 24);
	b[1] = (uint8_t)(v >> 16);
	b[2] = (uint8_t)(v >> 8);
	b[3] = (uint8_t)v;
}

static uint32_t
get32(const uint8_t *b)
{
	return (uint32_t)b[0] << 24 | (uint32_t)b[1] << 16 |
	       (uint32_t)b[2] << 8 | b[3];
}

/* Ethernet / IPv4 / UDP 4791 / BTH (SEND only) / tag + zeros / ICRC. */
static struct rte_mbuf *
build(struct lab *l, uint32_t ph, uint32_t flow, uint32_t seq, uint64_t now)
{
	struct rte_mbuf *m = rte_pktmbuf_alloc(l->pool);
	uint16_t len = l->p.frame_bytes, sport;
	uint32_t dqpn, sip, dip;
	struct rte_ipv4_hdr *ip;
	uint8_t *b, *t;

	if (m == NULL)
		return NULL;
	b = (uint8_t *)rte_pktmbuf_append(m, len);
	if (b == NULL) {
		rte_pktmbuf_free(m);
		return NULL;
	}
	memset(b, 0, len);
	flow_fields(l, ph, flow, &sport, &dqpn, &sip, &dip);
	if (l->p.recipe == AIFAB_LAB_INCAST && flow > 0) {
		/* sender `flow`: its own port, DUT MAC and /24 */
		rte_ether_addr_copy(&l->p.more_gw[flow - 1],
				    (struct rte_ether_addr *)b);
		rte_ether_addr_copy(&l->env.ports[l->tx_of[flow]].mac,
				    (struct rte_ether_addr *)(b + 6));
		sip = l->p.src_ip + (flow << 8);
	} else {
		rte_ether_addr_copy(&l->p.gw_mac, (struct rte_ether_addr *)b);
		rte_ether_addr_copy(&l->env.ports[l->p.tx_port].mac,
				    (struct rte_ether_addr *)(b + 6));
	}
	b[12] = 0x08;
	ip = (struct rte_ipv4_hdr *)(b + 14);
	ip->version_ihl = 0x45;
	ip->type_of_service = l->p.tos;
	ip->total_length = rte_cpu_to_be_16((uint16_t)(len - 14));
	ip->packet_id = rte_cpu_to_be_16((uint16_t)seq);
	ip->time_to_live = 64;
	ip->next_proto_id = IPPROTO_UDP;
	ip->src_addr = rte_cpu_to_be_32(sip);
	ip->dst_addr = rte_cpu_to_be_32(dip);
	ip->hdr_checksum = aifab_ipv4_cksum(ip);
	t = b + 34;                       /* UDP */
	t[0] = (uint8_t)(sport >> 8);
	t[1] = (uint8_t)sport;
	t[2] = 4791 >> 8;
	t[3] = 4791 & 0xff;
	t[4] = (uint8_t)((len - 34) >> 8);
	t[5] = (uint8_t)(len - 34);
	t = b + 42;                       /* BTH */
	t[0] = 0x04;                      /* RC SEND only */
	t[2] = t[3] = 0xff;               /* P_Key */
	put32(t + 4, dqpn);               /* reserved byte + dest QP */
	put32(t + 8, seq & 0xffffff);     /* AckReq 0, PSN */
	t = b + LAB_HDR_LEN;              /* tag */
	put32(t, LAB_TAG_MAGIC);
	t[4] = (uint8_t)ph;
	put32(t + 8, flow);
	put32(t + 12, seq);
	put32(t + 16, (uint32_t)(now >> 32));
	put32(t + 20, (uint32_t)now);
	aifab_icrc_store(b + len - 4, aifab_icrc(b + 14, len - 14 - 4u, false));
	return m;
}

/* ---- poll ---------------------------------------------------------------- */

/* ecn: a returned frame of step @p ph: its latency and CE. */
static void
rx_ecn(struct lab *l, uint32_t ph, const uint8_t *t, uint8_t tos,
       uint64_t now)
{
	uint64_t tx = (uint64_t)get32(t + 16) << 32 | get32(t + 20);
	uint64_t ns = now > tx ? (now - tx) * 1000000000ull / l->env.tsc_hz : 0;
	bool ce = (tos & 3) == 3;

	l->received[ph]++;
	l->st_ce[ph] += ce;
	l->st_ect[ph] += (tos & 3) != 0;
	l->st_lat_sum[ph] += ns;
	l->st_lat_max[ph] = RTE_MAX(l->st_lat_max[ph], ns);
	if (l->n_lat < l->cap_lat)
		l->lat[l->n_lat++] = (uint32_t)RTE_MIN(ns, (uint64_t)0x7fffffff) |
			(ce ? 0x80000000u : 0);
}

/* pfc: a PFC frame from the DUT (it pauses us): the priority's timer. */
static void
rx_pfc(struct lab *l, const struct aifab_pkt_info *pi, uint64_t now)
{
	uint16_t q = pi->pfc_time[l->p.pfc_prio];

	if (!(pi->pfc_enable & (1u << l->p.pfc_prio)))
		return;
	if (q == 0) {
		l->xon_rx++;
		l->last_xoff = 0;  /* an XON ends the episode: no refresh gap */
		return;
	}
	if (l->xoff_rx++ == 0) {
		l->first_xoff = now;
		l->a_bytes_at_xoff = l->a_bytes;
		l->q_min = q;
	} else if (l->last_xoff != 0) {
		/* a refresh: the gap since the XOFF before it */
		l->gap_sum += now - l->last_xoff;
		l->xoff_gaps++;
	}
	l->last_xoff = now;
	l->q_min = RTE_MIN(l->q_min, (uint32_t)q);
	l->q_max = RTE_MAX(l->q_max, (uint32_t)q);
}

/* pfc: a data frame back on the rx port during phase B. */
static void
rx_pfc_data(struct lab *l, uint32_t ph, uint32_t len, uint64_t now)
{
	l->received[ph]++;
	if (ph != 1)
		return;
	if (!l->xoff_sent) {
		l->b_before++;
	} else if (!l->xon_sent) {
		l->leak_frames++;
		l->leak_bytes += len;
		l->last_leak = now;
	} else if (l->first_after_xon == 0) {
		l->first_after_xon = now;
	}
}

static void
rx_one(struct lab *l, uint16_t port, struct rte_mbuf *m, uint64_t now)
{
	struct aifab_pkt_info pi;
	uint8_t tagbuf[LAB_TAG_LEN];
	const uint8_t *t;
	uint32_t ph, flow;
	uint8_t slot = l->slot_of_port[port], *first;

	l->rx_pkts++;
	l->rx_bytes += m->pkt_len;
	l->port_rx[port]++;
	l->port_rx_bytes[port] += m->pkt_len;
	if (l->p.recipe == AIFAB_LAB_PFC &&
	    aifab_pkt_parse_mbuf(m, &pi, l->scratch, false) ==
	    AIFAB_PKT_ERR_OK && (pi.flags & AIFAB_PKT_F_PFC)) {
		rx_pfc(l, &pi, now);
		return;
	}
	if (l->p.recipe == AIFAB_LAB_INCAST &&
	    l->sender_of_port[port] != LAB_NONE &&
	    aifab_pkt_parse_mbuf(m, &pi, l->scratch, false) ==
	    AIFAB_PKT_ERR_OK && (pi.flags & AIFAB_PKT_F_PFC)) {
		/* the DUT pauses this sender: honour it, as a lossless NIC */
		uint8_t s = l->sender_of_port[port];

		aifab_pfc_rx_frame(&l->pfc_in[s], pi.pfc_enable, pi.pfc_time,
				   now);
		l->pfc_frames[s]++;
		return;
	}
	if (aifab_pkt_parse_mbuf(m, &pi, l->scratch, false) != AIFAB_PKT_ERR_OK ||
	    !(pi.flags & AIFAB_PKT_F_ROCE) ||
	    pi.bth_off + 12u + LAB_TAG_LEN > m->pkt_len) {
		l->rx_other++;
		return;
	}
	t = rte_pktmbuf_read(m, pi.bth_off + 12u, LAB_TAG_LEN, tagbuf);
	if (t == NULL || get32(t) != LAB_TAG_MAGIC) {
		l->rx_other++;
		return;
	}
	ph = t[4];
	flow = get32(t + 8);
	if (l->p.recipe == AIFAB_LAB_ECN && ph < l->n_phases) {
		rx_ecn(l, ph, t, pi.tos, now);
		return;
	}
	if (l->p.recipe == AIFAB_LAB_PFC && ph < 2) {
		rx_pfc_data(l, ph, m->pkt_len, now);
		return;
	}
	if (l->p.recipe == AIFAB_LAB_INCAST && flow < l->n_tx) {
		uint32_t seq = get32(t + 12);

		if (seq != l->s_expect[flow])
			l->s_reorder++;
		l->s_expect[flow] = (uint64_t)seq + 1;
		if (++l->s_recv[flow] == l->sent[1] && l->s_done[flow] == 0)
			l->s_done[flow] = now;
		l->received[0]++;
		l->rx_bytes_data += m->pkt_len;
		l->last_rx = now;
		rx_ecn(l, 0, t, pi.tos, now);   /* latency, kept per frame */
		l->received[0]--;               /* (rx_ecn counted it too) */
		return;
	}
	if (ph >= l->n_phases || flow >= l->p.flows || slot == LAB_NONE) {
		l->rx_other++;
		return;
	}
	l->received[ph]++;
	first = &l->first[ph * l->p.flows + flow];
	if (*first == LAB_NONE)
		*first = slot;
	else if (*first != slot)
		l->split[ph * l->p.flows + flow] = 1;
}

static unsigned int
rx_poll(struct lab *l, uint64_t now)
{
	struct rte_mbuf *pkts[LAB_BURST];
	unsigned int handled = 0;
	uint16_t s, n, i, port;

	for (s = 0; s < l->p.n_rx + l->n_tx; s++) {
		/* the rx ports, then the senders (PFC the DUT sends them) */
		port = s < l->p.n_rx ? l->p.rx_ports[s] :
			l->tx_of[s - l->p.n_rx];
		if (s >= l->p.n_rx && l->slot_of_port[port] != LAB_NONE)
			continue;
		n = rte_eth_rx_burst(l->env.ports[port].port_id, 0, pkts,
				     LAB_BURST);
		for (i = 0; i < n; i++)
			rx_one(l, port, pkts[i], now);
		rte_pktmbuf_free_bulk(pkts, n);
		handled += n;
	}
	return handled;
}

/* Advance (phase, frame, flow). */
static void
next_frame(struct lab *l, uint64_t now)
{
	if (++l->flow < l->p.flows)
		return;
	l->flow = 0;
	if (++l->j < l->p.frames_per_flow)
		return;
	l->j = 0;
	if (++l->ph < l->n_phases)
		return;
	l->sent_all = true;
	l->end_tsc = now;
}

static unsigned int
tx_poll(struct lab *l, uint64_t now)
{
	struct rte_mbuf *pkts[LAB_BURST];
	uint16_t n = 0, sent, i;

	if (!l->started) {
		l->started = true;
		l->next_tsc = now;
	}
	while (!l->sent_all && n < LAB_BURST && now >= l->next_tsc) {
		pkts[n] = build(l, l->ph, l->flow,
				l->j * l->p.flows + l->flow, now);
		if (pkts[n] == NULL)
			break;
		l->sent[l->ph]++;
		n++;
		l->next_tsc += l->gap_cyc;
		next_frame(l, now);
	}
	if (n == 0)
		return 0;
	sent = rte_eth_tx_burst(l->env.ports[l->p.tx_port].port_id, 0, pkts,
				n);
	for (i = sent; i < n; i++)
		rte_pktmbuf_free(pkts[i]);  /* counted as sent, lost here */
	for (i = 0; i < sent; i++) {
		l->tx_pkts++;
		l->tx_bytes += l->p.frame_bytes;
	}
	return n;
}

/* Hand @p n built frames to the PMD; what it refuses is freed. */
static void
tx_send(struct lab *l, struct rte_mbuf **pkts, uint16_t n)
{
	uint16_t sent, i;

	sent = rte_eth_tx_burst(l->env.ports[l->p.tx_port].port_id, 0, pkts,
				n);
	for (i = sent; i < n; i++)
		rte_pktmbuf_free(pkts[i]);
	l->tx_pkts += sent;
	l->tx_bytes += (uint64_t)sent * l->p.frame_bytes;
}

/*
 * ecn: step s offers load_pct[s] % of the DUT's rate for step_ms, then
 * nothing for gap_ms (the queue drains), then the next step.
 */
static unsigned int
tx_poll_ecn(struct lab *l, uint64_t now)
{
	struct rte_mbuf *pkts[LAB_BURST];
	uint16_t n = 0;

	if (!l->step_on) {
		if (now < l->step_start)
			return 0;
		l->step_on = true;
		l->next_tsc = now;
		l->step_start = now;
		l->gap_cyc = (uint64_t)((double)(l->p.frame_bytes +
			LAB_WIRE_EXTRA) * 8.0 * (double)l->env.tsc_hz * 100.0 /
			((double)l->p.dut_rate_mbps * 1e6 *
			 l->p.load_pct[l->ph]));
	}
	while (n < LAB_BURST && now >= l->next_tsc &&
	       l->next_tsc < l->step_start + l->step_cyc) {
		pkts[n] = build(l, l->ph, 0, (uint32_t)l->seq, now);
		if (pkts[n] == NULL)
			break;
		l->seq++;
		l->sent[l->ph]++;
		n++;
		l->next_tsc += l->gap_cyc;
	}
	if (n > 0)
		tx_send(l, pkts, n);
	if (l->next_tsc >= l->step_start + l->step_cyc) {
		l->step_on = false;
		l->step_start += l->step_cyc + l->gap_steps_cyc;
		if (++l->ph == l->n_phases) {
			l->sent_all = true;
			l->end_tsc = now;
		}
	}
	return n;
}

/* pfc: our PFC frame for the priority (quanta 0: XON) on the rx port. */
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
	if (rte_eth_tx_burst(l->env.ports[port].port_id, 0, &m, 1) != 1)
		rte_pktmbuf_free(m);
}

/*
 * pfc: phase A sends pfc_load_pct % of the DUT's rate for step_ms (the DUT
 * should pause us); gap_ms of silence; phase B sends 50 % for step_ms: at
 * its middle we send XOFF (refreshed at half its pause time) for hold_ms,
 * then XON.
 */
static unsigned int
tx_poll_pfc(struct lab *l, uint64_t now)
{
	struct rte_mbuf *pkts[LAB_BURST];
	uint64_t hz = l->env.tsc_hz, end;
	uint32_t pct = l->ph == 0 ? l->p.pfc_load_pct : 50;
	uint16_t n = 0;

	if (!l->step_on) {
		if (now < l->step_start)
			return 0;
		l->step_on = true;
		l->step_start = l->next_tsc = now;
		l->gap_cyc = (uint64_t)((double)(l->p.frame_bytes +
			LAB_WIRE_EXTRA) * 8.0 * (double)hz * 100.0 /
			((double)l->p.dut_rate_mbps * 1e6 * pct));
		if (l->ph == 0)
			l->a_start = now;
		else
			l->b_start = now;
	}
	end = l->step_start + l->step_cyc +
		(l->ph == 1 ? (uint64_t)l->p.hold_ms * hz / 1000 : 0);
	if (l->ph == 1) {
		uint64_t pause_cyc = (uint64_t)((double)l->p.pfc_quanta * 512.0 *
			(double)hz / ((double)l->env.ports[l->p.rx_ports[0]]
				      .speed_mbps * 1e6));

		if (!l->xoff_sent && now >= l->step_start + l->step_cyc / 2) {
			send_pfc(l, l->p.pfc_quanta);
			l->xoff_sent = true;
			l->xoff_at = now;
			l->next_refresh = now + RTE_MAX(pause_cyc / 2, 1ul);
		} else if (l->xoff_sent && !l->xon_sent) {
			if (now >= l->xoff_at +
			    (uint64_t)l->p.hold_ms * hz / 1000) {
				send_pfc(l, 0);
				l->xon_sent = true;
				l->xon_at = now;
			} else if (now >= l->next_refresh) {
				send_pfc(l, l->p.pfc_quanta);
				l->next_refresh = now +
					RTE_MAX(pause_cyc / 2, 1ul);
			}
		}
	}
	while (n < LAB_BURST && now >= l->next_tsc && l->next_tsc < end) {
		pkts[n] = build(l, l->ph, 0, (uint32_t)l->seq, now);
		if (pkts[n] == NULL)
			break;
		l->seq++;
		l->sent[l->ph]++;
		if (l->ph == 0)
			l->a_bytes += l->p.frame_bytes;
		n++;
		l->next_tsc += l->gap_cyc;
	}
	if (n > 0)
		tx_send(l, pkts, n);
	if (l->next_tsc >= end) {
		l->step_on = false;
		l->step_start = now + l->gap_steps_cyc;
		if (++l->ph == l->n_phases) {
			l->sent_all = true;
			l->end_tsc = now;
		}
	}
	return n;
}

/*
 * incast: every sender sends `rate_gbps` for step_ms to the one
 * destination, paced per sender, holding back while the DUT pauses it
 * (a lossless NIC), to finish its share even if paused.
 */
static unsigned int
tx_poll_incast(struct lab *l, uint64_t now)
{
	struct rte_mbuf *pkts[LAB_BURST];
	unsigned int total = 0;
	uint16_t s, n, sent, i;
	bool all = true;

	if (!l->started) {
		l->started = true;
		l->first_tx = now;
		for (s = 0; s < l->n_tx; s++)
			l->s_next[s] = now;
	}
	for (s = 0; s < l->n_tx; s++) {
		uint16_t port = l->tx_of[s];

		if (l->s_sent[s] >= l->sent[1])   /* sent[1]: frames each */
			continue;
		all = false;
		if ((aifab_pfc_rx_paused_mask(&l->pfc_in[s], now) >>
		     l->p.pfc_prio) & 1)
			continue;
		n = 0;
		while (n < LAB_BURST && now >= l->s_next[s] &&
		       l->s_sent[s] + n < l->sent[1]) {
			pkts[n] = build(l, 0, s, (uint32_t)(l->s_sent[s] + n),
					now);
			if (pkts[n] == NULL)
				break;
			n++;
			l->s_next[s] += l->gap_cyc;
		}
		if (n == 0)
			continue;
		sent = rte_eth_tx_burst(l->env.ports[port].port_id, 0, pkts,
					n);
		for (i = sent; i < n; i++)
			rte_pktmbuf_free(pkts[i]);
		/* what the PMD refused is resent later, same sequence */
		l->s_next[s] -= (uint64_t)(n - sent) * l->gap_cyc;
		l->s_sent[s] += sent;
		l->sent[0] += sent;
		l->tx_pkts += sent;
		l->tx_bytes += (uint64_t)sent * l->p.frame_bytes;
		total += sent;
	}
	if (all) {
		l->sent_all = true;
		l->end_tsc = now;
	}
	return total;
}

static unsigned int
lab_poll(void *st, unsigned int w, uint64_t now)
{
	struct lab *l = st;
	unsigned int n;

	RTE_SET_USED(w);
	l->last_now = now;
	n = rx_poll(l, now);
	if (!l->sent_all)
		n += l->p.recipe == AIFAB_LAB_ECN ? tx_poll_ecn(l, now) :
			l->p.recipe == AIFAB_LAB_PFC ? tx_poll_pfc(l, now) :
			l->p.recipe == AIFAB_LAB_INCAST ?
			tx_poll_incast(l, now) : tx_poll(l, now);
	else if (!l->done && now - l->end_tsc >= l->settle_cyc)
		__atomic_store_n(&l->done, true, __ATOMIC_RELEASE);
	return n;
}

static void
lab_drain(void *st, unsigned int w, uint64_t now)
{
	RTE_SET_USED(w);
	rx_poll(st, now);
}

static bool
lab_done(const void *st)
{
	return __atomic_load_n(&((const struct lab *)st)->done,
			       __ATOMIC_ACQUIRE);
}

static void
lab_port_counters(const void *st, struct aifab_port_counters *out)
{
	const struct lab *l = st;
	uint16_t p;

	memset(out, 0, sizeof(*out) * l->env.n_ports);
	for (p = 0; p < l->env.n_ports; p++) {
		out[p].rx_packets = l->port_rx[p];
		out[p].rx_bytes = l->port_rx_bytes[p];
	}
	if (l->p.recipe == AIFAB_LAB_INCAST) {
		uint16_t s;

		for (s = 0; s < l->n_tx; s++) {
			out[l->tx_of[s]].tx_packets = l->s_sent[s];
			out[l->tx_of[s]].tx_bytes = l->s_sent[s] *
				l->p.frame_bytes;
		}
		return;
	}
	out[l->p.tx_port].tx_packets = l->tx_pkts;
	out[l->p.tx_port].tx_bytes = l->tx_bytes;
}

static void
lab_report(const void *st, const struct aifab_report_sink *sink)
{
	RTE_SET_USED(st);
	RTE_SET_USED(sink);
}

static void
lab_fini(void *st)
{
	struct lab *l = st;

	if (l == NULL)
		return;
	rte_free(l->first);
	rte_free(l->split);
	rte_free(l->lat);
	aifab_pipeline_pool_free(l->pool, "lab");
	rte_free(l);
}

static void *
lab_init_refuse(const struct aifab_env *env, unsigned int n_workers,
		char *err, size_t errlen)
{
	RTE_SET_USED(env);
	RTE_SET_USED(n_workers);
	snprintf(err, errlen, "lab: create with aifab_lab_create()");
	return NULL;
}

const struct aifab_pipeline_ops aifab_lab_ops = {
	.name = "lab",
	.init = lab_init_refuse,
	.poll = lab_poll,
	.drain = lab_drain,
	.done = lab_done,
	.port_counters = lab_port_counters,
	.report = lab_report,
	.fini = lab_fini,
};

void *
aifab_lab_create(const struct aifab_env *env, const struct aifab_lab_params *p,
		 char *err, size_t errlen)
{
	char name[RTE_MEMPOOL_NAMESIZE];
	struct lab *l;
	uint32_t n_mbufs, f, i;
	size_t cells;

	l = rte_zmalloc("aifab_lab", sizeof(*l), RTE_CACHE_LINE_SIZE);
	if (l == NULL) {
		snprintf(err, errlen, "lab: out of memory (raise -m)");
		return NULL;
	}
	l->env = *env;
	l->p = *p;
	memset(l->slot_of_port, LAB_NONE, sizeof(l->slot_of_port));
	if (p->recipe == AIFAB_LAB_NONE || p->recipe >= AIFAB_LAB_MAX)
		BAD("recipe = '%s'; allowed: ecmp, ecn, pfc",
		    aifab_lab_recipe_name(p->recipe) ? : "?");
	if (p->tx_port >= env->n_ports)
		BAD("tx_port: no such port");
	if (p->n_rx == 0)
		BAD("rx_ports = '': no port; allowed: the ports the DUT's ECMP "
		    "group leads back to");
	for (i = 0; i < p->n_rx; i++) {
		if (p->rx_ports[i] >= env->n_ports)
			BAD("rx_ports: no such port");
		l->slot_of_port[p->rx_ports[i]] = (uint8_t)i;
	}
	if (p->flows == 0 || p->flows > AIFAB_LAB_MAX_FLOWS)
		BAD("flows = '%u'; allowed: 1..%u", p->flows,
		    AIFAB_LAB_MAX_FLOWS);
	if (p->frame_bytes < LAB_MIN_FRAME || p->frame_bytes > 9000)
		BAD("frame_bytes = '%u'; allowed: %u..9000", p->frame_bytes,
		    LAB_MIN_FRAME);
	if (p->rate_mbps == 0)
		BAD("rate_gbps = '0'; allowed: a rate above 0");
	l->n_tx = 1;
	l->tx_of[0] = p->tx_port;
	memset(l->sender_of_port, LAB_NONE, sizeof(l->sender_of_port));
	l->sender_of_port[p->tx_port] = 0;
	for (i = 0; i < p->n_more_tx; i++) {
		if (p->more_tx[i] >= env->n_ports)
			BAD("tx_ports: no such port");
		l->tx_of[l->n_tx] = p->more_tx[i];
		l->sender_of_port[p->more_tx[i]] = (uint8_t)l->n_tx;
		l->n_tx++;
	}
	l->n_phases = 0;
	if (p->recipe == AIFAB_LAB_INCAST) {
		uint64_t each;

		if (l->n_tx < 2)
			BAD("tx_ports: %u sender(s); allowed: 2 or more for an "
			    "incast (with gateway_macs, one per port)", l->n_tx);
		for (i = 0; i < l->n_tx; i++)
			if (aifab_pfc_rx_init(&l->pfc_in[i], RTE_MAX(
				env->ports[l->tx_of[i]].speed_mbps, 1u),
				env->tsc_hz) != 0)
				BAD("tx port %s: speed %u Mb/s; allowed: a speed "
				    "for PFC quanta", env->ports[l->tx_of[i]].name,
				    env->ports[l->tx_of[i]].speed_mbps);
		l->gap_cyc = (uint64_t)((double)(p->frame_bytes +
			LAB_WIRE_EXTRA) * 8.0 * (double)env->tsc_hz /
			((double)p->rate_mbps * 1e6));
		each = (uint64_t)p->rate_mbps * 1000 / 8 * p->step_ms /
			(p->frame_bytes + LAB_WIRE_EXTRA) + 1;
		l->sent[1] = each;      /* frames per sender */
		l->phase_field[0] = -1;
		l->n_phases = 1;
		l->cap_lat = (uint32_t)RTE_MIN(each * l->n_tx + 1024,
					       (uint64_t)1 << 24);
		l->lat = rte_malloc("aifab_lab_lat",
				    sizeof(*l->lat) * l->cap_lat, 0);
		if (l->lat == NULL)
			BAD("lab: out of memory for %u latencies (raise -m)",
			    l->cap_lat);
	} else if (p->recipe == AIFAB_LAB_PFC) {
		if (p->dut_rate_mbps == 0)
			BAD("dut_rate_gbps = '0'; allowed: the rate of the DUT "
			    "port behind rx_ports, above 0");
		if (p->pfc_prio > 7 || p->pfc_quanta == 0)
			BAD("pfc_priority %u, pfc_quanta %u; allowed: 0..7 and "
			    "1..65535", p->pfc_prio, p->pfc_quanta);
		if (env->ports[p->rx_ports[0]].speed_mbps == 0)
			BAD("rx port %s: speed unknown; allowed: a speed_gbps "
			    "for PFC quanta", env->ports[p->rx_ports[0]].name);
		l->phase_field[0] = l->phase_field[1] = -1;
		l->n_phases = 2;
		l->step_cyc = (uint64_t)p->step_ms * env->tsc_hz / 1000;
		l->gap_steps_cyc = (uint64_t)p->gap_ms * env->tsc_hz / 1000;
	} else if (p->recipe == AIFAB_LAB_ECN) {
		uint64_t frames = 0;

		if (p->dut_rate_mbps == 0)
			BAD("dut_rate_gbps = '0'; allowed: the DUT egress port's "
			    "rate, above 0");
		if (p->n_loads == 0 || p->n_loads > AIFAB_LAB_MAX_STEPS)
			BAD("loads: %u steps; allowed: 1..%u", p->n_loads,
			    AIFAB_LAB_MAX_STEPS);
		if (p->bin_bytes == 0)
			BAD("bin_bytes = '0'; allowed: above 0");
		for (i = 0; i < p->n_loads; i++) {
			l->phase_field[l->n_phases++] = -1;
			frames += (uint64_t)p->dut_rate_mbps * 1000 / 8 *
				p->load_pct[i] / 100 * p->step_ms /
				(p->frame_bytes + LAB_WIRE_EXTRA) + 1;
		}
		l->cap_lat = (uint32_t)RTE_MIN(frames + 1024, (uint64_t)1 << 24);
		l->lat = rte_malloc("aifab_lab_lat",
				    sizeof(*l->lat) * l->cap_lat, 0);
		if (l->lat == NULL)
			BAD("lab: out of memory for %u latencies (raise -m)",
			    l->cap_lat);
		l->step_cyc = (uint64_t)p->step_ms * env->tsc_hz / 1000;
		l->gap_steps_cyc = (uint64_t)p->gap_ms * env->tsc_hz / 1000;
		l->step_start = 0;
	} else {
		for (f = 0; f < AIFAB_LAB_F_MAX; f++)
			if (p->fields & (1u << f))
				l->phase_field[l->n_phases++] = (int)f;
		l->phase_field[l->n_phases++] = -1;
	}
	cells = (size_t)l->n_phases * p->flows;
	l->first = rte_malloc("aifab_lab_first", cells, 0);
	l->split = rte_zmalloc("aifab_lab_split", cells, 0);
	if (l->first == NULL || l->split == NULL)
		BAD("lab: out of memory for %u flows (raise -m)", p->flows);
	memset(l->first, LAB_NONE, cells);
	n_mbufs = p->mbufs ? p->mbufs : 4096;
	snprintf(name, sizeof(name), "lab_%" PRIxPTR, (uintptr_t)l & 0xffffff);
	l->pool = rte_pktmbuf_pool_create(name, n_mbufs, LAB_POOL_CACHE, 0,
		(uint16_t)RTE_MAX((uint32_t)RTE_MBUF_DEFAULT_BUF_SIZE,
				  RTE_PKTMBUF_HEADROOM + p->frame_bytes),
		rte_socket_id());
	if (l->pool == NULL)
		BAD("lab: cannot create a pool of %u mbufs: %s (raise -m)",
		    n_mbufs, rte_strerror(rte_errno));
	l->gap_cyc = (uint64_t)((double)(p->frame_bytes + LAB_WIRE_EXTRA) *
		8.0 * (double)env->tsc_hz / ((double)p->rate_mbps * 1e6));
	l->settle_cyc = (uint64_t)p->settle_ms * env->tsc_hz / 1000;
	return l;
fail:
	lab_fini(l);
	return NULL;
}

/* ---- results ------------------------------------------------------------- */

/*
 * Upper tail of chi-square with k (integer) degrees of freedom, exactly:
 * Q(k/2, x/2). Even k: e^(-x/2) sum_{j<k/2} (x/2)^j / j!; odd k:
 * erfc(sqrt(x/2)) + sqrt(2x/pi) e^(-x/2) sum_{j=1}^{(k-1)/2}
 * x^(j-1) / (1 x 3 x ... x (2j-1)).
 */
static double
chi2_upper(double x, unsigned int k)
{
	double term, sum = 0;
	unsigned int j;

	if (k == 0 || x <= 0)
		return 1.0;
	if (k % 2 == 0) {
		for (j = 0, term = 1; j < k / 2; j++) {
			sum += term;
			term *= x / 2 / (j + 1);
		}
		return RTE_MIN(exp(-x / 2) * sum, 1.0);
	}
	for (j = 1, term = 1; j <= (k - 1) / 2; j++) {
		sum += term;
		term *= x / (2 * j + 1);
	}
	return RTE_MIN(erfc(sqrt(x / 2)) +
		       sqrt(2 * x / M_PI) * exp(-x / 2) * sum, 1.0);
}

void
aifab_lab_spread(const uint32_t *per_port, unsigned int n, double *imbalance,
		 double *chi2, double *p)
{
	uint64_t seen = 0;
	uint32_t max = 0;
	double e, c = 0;
	unsigned int i;

	for (i = 0; i < n; i++) {
		seen += per_port[i];
		max = RTE_MAX(max, per_port[i]);
	}
	if (n == 0 || seen == 0) {
		*imbalance = 0;
		*chi2 = 0;
		*p = 1;
		return;
	}
	e = (double)seen / n;
	for (i = 0; i < n; i++)
		c += ((double)per_port[i] - e) * ((double)per_port[i] - e) / e;
	*imbalance = max / e;
	*chi2 = c;
	*p = chi2_upper(c, n - 1);
}

void
aifab_lab_infer_red(const struct aifab_lab_bin *bins, unsigned int n,
		    uint32_t bin_bytes, uint32_t min_frames,
		    struct aifab_lab_result *r)
{
	double sw = 0, sx = 0, sy = 0, sxx = 0, sxy = 0, x, y, w, den, p;
	unsigned int i, kmax_bin = n, used = 0;

	min_frames = RTE_MAX(min_frames, 1u);
	r->has_kmin = r->has_kmax = false;
	r->kmin = r->kmax = 0;
	r->pmax = 0;
	/* Kmax: where marking becomes (nearly) certain */
	for (i = 0; i < n; i++) {
		if (bins[i].frames < min_frames)
			continue;
		if ((double)bins[i].ce / (double)bins[i].frames >= 0.9) {
			r->has_kmax = true;
			r->kmax = i * bin_bytes;
			kmax_bin = i;
			break;
		}
	}
	/*
	 * The ramp: RED marks with a probability rising linearly from 0 at
	 * Kmin to Pmax at Kmax. A least-squares line (weighted by frames)
	 * through the bins strictly on the ramp (some marks, fewer than half,
	 * below Kmax) gives Kmin where it crosses 0 and Pmax where it meets
	 * Kmax; bins where delay noise mixes in frames from beyond Kmax (half
	 * marked or more) stay out.
	 */
	for (i = 0; i < kmax_bin && i < n; i++) {
		if (bins[i].frames < min_frames || bins[i].ce == 0)
			continue;
		w = (double)bins[i].frames;
		y = (double)bins[i].ce / w;
		if (y >= 0.5)
			continue;
		x = (i + 0.5) * bin_bytes;
		sw += w;
		sx += w * x;
		sy += w * y;
		sxx += w * x * x;
		sxy += w * x * y;
		used++;
	}
	den = sw * sxx - sx * sx;
	if (used >= 2 && den > 0) {
		double b = (sw * sxy - sx * sy) / den;
		double a = (sy - b * sx) / sw;
		double at = r->has_kmax ? (double)r->kmax : (double)n * bin_bytes;

		if (b > 0) {
			r->has_kmin = true;
			r->kmin = (uint32_t)RTE_MAX(-a / b, 0.0);
			r->pmax = RTE_MIN(RTE_MAX(a + b * at, 0.0), 1.0);
			return;
		}
	}
	/* too few ramp bins for a line: the first marked bin, the largest
	 * fraction below Kmax */
	for (i = 0; i < kmax_bin && i < n; i++) {
		if (bins[i].frames < min_frames)
			continue;
		p = (double)bins[i].ce / (double)bins[i].frames;
		if (!r->has_kmin && p >= 0.02) {
			r->has_kmin = true;
			r->kmin = i * bin_bytes;
		}
		r->pmax = RTE_MAX(r->pmax, p);
	}
}

/* ecn: steps, depth bins (from each frame's queueing delay), inference. */
static void
result_ecn(const struct lab *l, struct aifab_lab_result *r)
{
	/* bytes of queue per ns of delay at the DUT's rate; the queue holds
	 * frames, the rate counts wire bytes */
	double bpns = (double)l->p.dut_rate_mbps / 8000.0 *
		(double)l->p.frame_bytes / (l->p.frame_bytes + LAB_WIRE_EXTRA);
	uint32_t base = UINT32_MAX, i, s;
	bool ok = true;

	r->n_steps = l->n_phases;
	for (s = 0; s < l->n_phases; s++) {
		struct aifab_lab_step *x = &r->step[s];

		x->load_pct = l->p.load_pct[s];
		x->sent = l->sent[s];
		x->received = l->received[s];
		x->ce = l->st_ce[s];
		x->ect = l->st_ect[s];
		x->lat_avg_us = x->received ?
			(double)l->st_lat_sum[s] / x->received / 1000.0 : 0;
		x->lat_max_us = (double)l->st_lat_max[s] / 1000.0;
	}
	for (i = 0; i < l->n_lat; i++)
		base = RTE_MIN(base, l->lat[i] & 0x7fffffffu);
	r->base_lat_us = base == UINT32_MAX ? 0 : base / 1000.0;
	for (i = 0; i < l->n_lat; i++) {
		double d = ((l->lat[i] & 0x7fffffffu) - base) * bpns;
		uint32_t b = (uint32_t)(d / l->p.bin_bytes);

		if (b >= AIFAB_LAB_BINS)
			b = AIFAB_LAB_BINS - 1;
		r->bin[b].frames++;
		r->bin[b].ce += l->lat[i] >> 31;
	}
	aifab_lab_infer_red(r->bin, AIFAB_LAB_BINS, l->p.bin_bytes,
			    l->p.min_bin_frames, r);
	/* verdict: what the profile expects, where it says */
	if (l->p.expect_kmin != 0)
		ok &= r->has_kmin && fabs((double)r->kmin - l->p.expect_kmin) <=
			l->p.tolerance * l->p.expect_kmin + l->p.bin_bytes;
	if (l->p.expect_kmax != 0)
		ok &= r->has_kmax && fabs((double)r->kmax - l->p.expect_kmax) <=
			l->p.tolerance * l->p.expect_kmax + l->p.bin_bytes;
	if (l->p.expect_pmax >= 0)
		ok &= fabs(r->pmax - l->p.expect_pmax) <= 0.1;
	for (s = 0; s < r->n_steps; s++)
		ok &= r->step[s].received > 0;
	r->pass = ok;
}

uint32_t
aifab_lab_pfc_bound_quanta(uint32_t mbps)
{
	if (mbps <= 10000)
		return 67;
	if (mbps <= 25000)
		return 80;
	if (mbps <= 100000)
		return 394;
	return 905;
}

/* pfc: the figures and the verdict. */
static void
result_pfc(const struct lab *l, struct aifab_lab_result *r)
{
	struct aifab_lab_pfc *x = &r->pfc;
	double hz = (double)l->env.tsc_hz;
	uint32_t tx_mbps = l->env.ports[l->p.tx_port].speed_mbps;
	uint32_t rx_mbps = l->env.ports[l->p.rx_ports[0]].speed_mbps;
	uint64_t cable;

	r->n_steps = 2;
	x->xoff_rx = l->xoff_rx;
	x->xon_rx = l->xon_rx;
	x->quanta_min = l->q_min;
	x->quanta_max = l->q_max;
	if (l->xoff_rx > 0) {
		x->a_first_xoff_ms = (double)(l->first_xoff - l->a_start) /
			hz * 1e3;
		x->a_sent_bytes_to_xoff = l->a_bytes_at_xoff;
	}
	x->refresh_us = l->xoff_gaps ?
		(double)l->gap_sum / (double)l->xoff_gaps / hz * 1e6 : 0;
	x->pause_us = tx_mbps ? l->q_max * 512.0 / tx_mbps : 0;
	x->b_before = l->b_before;
	x->leak_frames = l->leak_frames;
	x->leak_bytes = l->leak_bytes;
	x->response_us = l->leak_frames ?
		(double)(l->last_leak - l->xoff_at) / hz * 1e6 : 0;
	/* one quantum is 512 bit times: 64 bytes at any speed */
	x->response_quanta = (double)l->leak_bytes / 64.0;
	x->bound_quanta = aifab_lab_pfc_bound_quanta(rx_mbps);
	/* cable both ways: 2 x length x rate / (2e8 m/s x 8) bytes */
	cable = (uint64_t)(2.0 * l->p.cable_m * rx_mbps * 1e6 / (2e8 * 8));
	x->bound_bytes = (uint64_t)x->bound_quanta * 64 +
		2ull * l->p.frame_bytes + cable;
	x->resumed = l->first_after_xon != 0;
	x->resume_ms = x->resumed ?
		(double)(l->first_after_xon - l->xon_at) / hz * 1e3 : 0;
	x->headroom_bytes = x->leak_bytes + 2ull * l->p.frame_bytes + cable;
	r->pass = x->xoff_rx > 0 && (x->xoff_rx < 2 || x->refresh_us <
				     x->pause_us) &&
		x->b_before > 0 && x->leak_bytes <= x->bound_bytes &&
		x->resumed && x->resume_ms <= l->p.resume_ms;
}

static int
cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a & 0x7fffffffu;
	uint32_t y = *(const uint32_t *)b & 0x7fffffffu;

	return x < y ? -1 : x > y;
}

double
aifab_lab_pct_us(const uint32_t *sorted, uint32_t n, uint32_t permille)
{
	uint64_t k = ((uint64_t)n * permille + 999) / 1000; /* ceil(n q) */

	if (n == 0)
		return 0;
	k = RTE_MIN(RTE_MAX(k, 1u), (uint64_t)n);
	return (sorted[k - 1] & 0x7fffffffu) / 1e3;
}

/*
 * incast as an N:1 collective (a gather): sender s's message is its
 * `each` frames; the collective completes when every sender's message has
 * been delivered whole (the last of its frames arrived). Completion time:
 * first frame out to that moment. Plus loss, order, pauses, latency.
 */
static void
result_incast(const struct lab *l, struct aifab_lab_result *r)
{
	struct aifab_lab_incast *x = &r->incast;
	double hz = (double)l->env.tsc_hz;
	uint32_t *sorted, s, n = l->n_lat;
	uint64_t last_done = 0;

	x->n_senders = l->n_tx;
	x->frames_each = l->sent[1];
	x->completed = l->n_tx > 0;
	for (s = 0; s < l->n_tx; s++) {
		x->sent[s] = l->s_sent[s];
		x->received[s] = l->s_recv[s];
		x->lost += l->s_sent[s] > l->s_recv[s] ?
			l->s_sent[s] - l->s_recv[s] : 0;
		x->pfc_rx[s] = l->pfc_frames[s];
		x->paused_ms[s] = aifab_pfc_rx_paused_ns(&l->pfc_in[s],
			l->p.pfc_prio, l->last_now) / 1e6;
		x->pfc_rx_total += x->pfc_rx[s];
		x->paused_ms_total += x->paused_ms[s];
		if (l->s_done[s] == 0 || l->s_done[s] < l->first_tx) {
			x->completed = false;
			x->done_ms[s] = -1;
			continue;
		}
		x->done_ms[s] = (double)(l->s_done[s] - l->first_tx) / hz * 1e3;
		last_done = RTE_MAX(last_done, l->s_done[s]);
	}
	x->reordered = l->s_reorder;
	if (x->completed) {
		x->completion_ms = (double)(last_done - l->first_tx) / hz * 1e3;
		x->goodput_mbps = (double)l->rx_bytes_data * 8.0 /
			(x->completion_ms * 1e3);
	}
	if (l->p.dut_rate_mbps) {
		/* every frame's wire bytes through the one egress port */
		x->ideal_ms = (double)l->sent[1] * l->n_tx *
			(l->p.frame_bytes + LAB_WIRE_EXTRA) * 8.0 /
			((double)l->p.dut_rate_mbps * 1e3);
	}
	sorted = n ? malloc(sizeof(*sorted) * n) : NULL;
	if (sorted != NULL) {
		memcpy(sorted, l->lat, sizeof(*sorted) * n);
		qsort(sorted, n, sizeof(*sorted), cmp_u32);
		x->lat_p50_us = aifab_lab_pct_us(sorted, n, 500);
		x->lat_p99_us = aifab_lab_pct_us(sorted, n, 990);
		x->lat_p999_us = aifab_lab_pct_us(sorted, n, 999);
		x->lat_max_us = (sorted[n - 1] & 0x7fffffffu) / 1e3;
		free(sorted);
	}
	r->pass = x->completed && x->lost == 0 && x->reordered == 0 &&
		(l->p.max_p99_us == 0 || x->lat_p99_us <= l->p.max_p99_us);
}

void
aifab_lab_result(const void *st, struct aifab_lab_result *r)
{
	const struct lab *l = st;
	uint32_t ph, f, s;

	memset(r, 0, sizeof(*r));
	r->recipe = l->p.recipe;
	r->n_phases = l->n_phases;
	r->rx_other = l->rx_other;
	if (l->p.recipe == AIFAB_LAB_ECN) {
		result_ecn(l, r);
		return;
	}
	if (l->p.recipe == AIFAB_LAB_PFC) {
		result_pfc(l, r);
		return;
	}
	if (l->p.recipe == AIFAB_LAB_INCAST) {
		result_incast(l, r);
		return;
	}
	for (ph = 0; ph < l->n_phases; ph++) {
		struct aifab_lab_phase *x = &r->ph[ph];
		uint32_t used = 0;

		x->field = l->phase_field[ph];
		x->sent = l->sent[ph];
		x->received = l->received[ph];
		for (f = 0; f < l->p.flows; f++) {
			uint8_t first = l->first[ph * l->p.flows + f];

			if (first == LAB_NONE)
				continue;
			x->flows_seen++;
			x->per_port[first]++;
			x->flows_split += l->split[ph * l->p.flows + f];
		}
		for (s = 0; s < l->p.n_rx; s++)
			used += x->per_port[s] != 0;
		x->ports_used = used;
		aifab_lab_spread(x->per_port, l->p.n_rx, &x->imbalance,
				 &x->chi2, &x->p);
		if (x->field >= 0 && used > 1)
			r->hashed |= 1u << x->field;
	}
	if (l->n_phases > 0) {
		const struct aifab_lab_phase *all = &r->ph[l->n_phases - 1];

		r->pass = all->flows_seen == l->p.flows &&
			all->imbalance <= l->p.max_imbalance &&
			all->p >= l->p.min_p && all->flows_split == 0;
	}
}

static const char *
phase_name(int field)
{
	return field < 0 ? "all" : field_names[field];
}

static const char *
pf(bool ok)
{
	return ok ? "PASS" : "FAIL";
}

static void
print_ecn(const struct lab *l, const struct aifab_lab_result *r, FILE *f)
{
	uint32_t s, b;

	fprintf(f, "\n# lab ecn: %s -> DUT egress at %.3f Gb/s, %u-byte ECT "
		"frames, %u ms per step\n", l->env.ports[l->p.tx_port].name,
		l->p.dut_rate_mbps / 1000.0, l->p.frame_bytes, l->p.step_ms);
	fprintf(f, "# %6s %9s %9s %9s %10s %12s %12s\n", "load", "sent",
		"back", "CE", "CE frac", "lat avg us", "lat max us");
	for (s = 0; s < r->n_steps; s++) {
		const struct aifab_lab_step *x = &r->step[s];

		fprintf(f, "  %5u%% %9" PRIu64 " %9" PRIu64 " %9" PRIu64
			" %10.4f %12.1f %12.1f\n", x->load_pct, x->sent,
			x->received, x->ce, x->received ?
			(double)x->ce / x->received : 0, x->lat_avg_us,
			x->lat_max_us);
	}
	fprintf(f, "# marking by queue depth (delay beyond %.1f us x rate), "
		"%u-byte bins with >= %u frames\n# %10s %9s %9s\n",
		r->base_lat_us, l->p.bin_bytes, l->p.min_bin_frames, "depth",
		"frames", "CE frac");
	for (b = 0; b < AIFAB_LAB_BINS; b++)
		if (r->bin[b].frames >= RTE_MAX(l->p.min_bin_frames, 1u))
			fprintf(f, "  %10u %9" PRIu64 " %9.4f\n",
				b * l->p.bin_bytes, r->bin[b].frames,
				(double)r->bin[b].ce / r->bin[b].frames);
	fprintf(f, "# inferred: Kmin %s%u B, Kmax %s%u B, Pmax %.3f\n# verdict\n",
		r->has_kmin ? "" : "none ", r->kmin,
		r->has_kmax ? "" : "none ", r->kmax, r->pmax);
	for (s = 0; s < r->n_steps; s++)
		if (r->step[s].received == 0)
			fprintf(f, "  step %u%%: nothing came back %26s FAIL\n",
				r->step[s].load_pct, "");
	if (l->p.expect_kmin)
		fprintf(f, "  Kmin %-10u vs %-10u (+-%.0f%% + 1 bin) %12s %s\n",
			r->kmin, l->p.expect_kmin, l->p.tolerance * 100, "",
			pf(r->has_kmin && fabs((double)r->kmin -
			   l->p.expect_kmin) <= l->p.tolerance *
			   l->p.expect_kmin + l->p.bin_bytes));
	if (l->p.expect_kmax)
		fprintf(f, "  Kmax %-10u vs %-10u (+-%.0f%% + 1 bin) %12s %s\n",
			r->kmax, l->p.expect_kmax, l->p.tolerance * 100, "",
			pf(r->has_kmax && fabs((double)r->kmax -
			   l->p.expect_kmax) <= l->p.tolerance *
			   l->p.expect_kmax + l->p.bin_bytes));
	if (l->p.expect_pmax >= 0)
		fprintf(f, "  Pmax %-10.3f vs %-10.3f (+-0.1) %23s %s\n",
			r->pmax, l->p.expect_pmax, "",
			pf(fabs(r->pmax - l->p.expect_pmax) <= 0.1));
	fprintf(f, "# lab ecn: %s; %" PRIu64 " frames without our tag\n",
		pf(r->pass), r->rx_other);
}

static void
print_pfc(const struct lab *l, const struct aifab_lab_result *r, FILE *f)
{
	const struct aifab_lab_pfc *x = &r->pfc;

	fprintf(f, "\n# lab pfc: priority %u; A: %s sends %u%% of %.3f Gb/s "
		"for %u ms; B: 50%%, and %s pauses the DUT for %u ms\n",
		l->p.pfc_prio, l->env.ports[l->p.tx_port].name,
		l->p.pfc_load_pct, l->p.dut_rate_mbps / 1000.0, l->p.step_ms,
		l->env.ports[l->p.rx_ports[0]].name, l->p.hold_ms);
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
		"", pf(x->xoff_rx > 0));
	fprintf(f, "  refresh %-10.1f us < its pause time %-10.1f us %13s %s\n",
		x->refresh_us, x->pause_us, "", pf(x->xoff_rx > 0 &&
		(x->xoff_rx < 2 || x->refresh_us < x->pause_us)));
	fprintf(f, "  after our XOFF: %-9" PRIu64 " bytes <= %-9" PRIu64
		" (802.3: %u quanta + 2 frames + cable)   %s\n", x->leak_bytes,
		x->bound_bytes, x->bound_quanta,
		pf(x->b_before > 0 && x->leak_bytes <= x->bound_bytes));
	fprintf(f, "  resumes on XON within %u ms %27s %s\n", l->p.resume_ms,
		"", pf(x->resumed && x->resume_ms <= l->p.resume_ms));
	fprintf(f, "# lab pfc: %s; %" PRIu64 " frames without our tag\n",
		pf(r->pass), r->rx_other);
}

static void
print_incast(const struct lab *l, const struct aifab_lab_result *r, FILE *f)
{
	const struct aifab_lab_incast *x = &r->incast;
	uint32_t s;

	fprintf(f, "\n# lab incast: %u:1 gather, each sender's message %"
		PRIu64 " frames of %u bytes at %.3f Gb/s into %s (priority %u "
		"honoured as lossless)\n# %-8s %9s %9s %12s %9s %11s\n",
		x->n_senders, x->frames_each, l->p.frame_bytes,
		l->p.rate_mbps / 1000.0, l->env.ports[l->p.rx_ports[0]].name,
		l->p.pfc_prio, "sender", "sent", "back", "delivered ms",
		"PFC rx", "paused ms");
	for (s = 0; s < x->n_senders; s++) {
		fprintf(f, "  %-8s %9" PRIu64 " %9" PRIu64 " ",
			l->env.ports[l->tx_of[s]].name, x->sent[s],
			x->received[s]);
		if (x->done_ms[s] >= 0)
			fprintf(f, "%12.3f", x->done_ms[s]);
		else
			fprintf(f, "%12s", "never");
		fprintf(f, " %9" PRIu64 " %11.3f\n", x->pfc_rx[s],
			x->paused_ms[s]);
	}
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
		x->lat_p50_us, x->lat_p99_us, x->lat_p999_us, x->lat_max_us,
		x->pfc_rx_total, x->paused_ms_total);
	fprintf(f, "  every message delivered whole %30s %s\n", "",
		pf(x->completed));
	fprintf(f, "  lost %-10" PRIu64 " == 0 %35s %s\n", x->lost, "",
		pf(x->lost == 0));
	fprintf(f, "  sequence breaks %-10" PRIu64 " == 0 %24s %s\n",
		x->reordered, "", pf(x->reordered == 0));
	if (l->p.max_p99_us)
		fprintf(f, "  latency p99 %-10.1f <= %-10u us %18s %s\n",
			x->lat_p99_us, l->p.max_p99_us, "",
			pf(x->lat_p99_us <= l->p.max_p99_us));
	fprintf(f, "# lab incast: %s; %" PRIu64 " frames without our tag\n",
		pf(r->pass), r->rx_other);
}

void
aifab_lab_print(const void *st, FILE *f)
{
	const struct lab *l = st;
	struct aifab_lab_result r;
	const struct aifab_lab_phase *all;
	uint32_t ph, s, k;

	aifab_lab_result(l, &r);
	if (l->p.recipe == AIFAB_LAB_ECN) {
		print_ecn(l, &r, f);
		return;
	}
	if (l->p.recipe == AIFAB_LAB_PFC) {
		print_pfc(l, &r, f);
		return;
	}
	if (l->p.recipe == AIFAB_LAB_INCAST) {
		print_incast(l, &r, f);
		return;
	}
	fprintf(f, "\n# lab ecmp: %u flows x %u frames per phase from %s, back "
		"on", l->p.flows, l->p.frames_per_flow,
		l->env.ports[l->p.tx_port].name);
	for (s = 0; s < l->p.n_rx; s++)
		fprintf(f, " %s", l->env.ports[l->p.rx_ports[s]].name);
	fprintf(f, "\n# %-6s %8s %8s %6s %6s %5s %9s %9s %8s  flows per port\n",
		"vary", "sent", "back", "flows", "split", "ports", "imbalance",
		"chi2", "p");
	for (ph = 0; ph < r.n_phases; ph++) {
		const struct aifab_lab_phase *x = &r.ph[ph];

		fprintf(f, "  %-6s %8" PRIu64 " %8" PRIu64 " %6u %6u %5u %9.3f "
			"%9.2f %8.4f ", phase_name(x->field), x->sent,
			x->received, x->flows_seen, x->flows_split,
			x->ports_used, x->imbalance, x->chi2, x->p);
		for (s = 0; s < l->p.n_rx; s++)
			fprintf(f, " %u", x->per_port[s]);
		fprintf(f, "\n");
	}
	all = &r.ph[r.n_phases - 1];
	fprintf(f, "# fields the DUT hashes on:");
	for (k = 0; k < AIFAB_LAB_F_MAX; k++)
		if (r.hashed & (1u << k))
			fprintf(f, " %s", field_names[k]);
	for (k = 0, s = 0; k < AIFAB_LAB_F_MAX; k++)
		s += !!(l->p.fields & (1u << k));
	fprintf(f, "%s (of those varied:", r.hashed ? "" : " none");
	for (k = 0; k < AIFAB_LAB_F_MAX; k++)
		if (l->p.fields & (1u << k))
			fprintf(f, " %s", field_names[k]);
	fprintf(f, ")\n# verdict\n");
	fprintf(f, "  %-44s %-22s %s\n", "every flow came back",
		"", all->flows_seen == l->p.flows ? "PASS" : "FAIL");
	fprintf(f, "  %-44s %-22s %s\n", "flow affinity (no flow split)", "",
		all->flows_split == 0 ? "PASS" : "FAIL");
	fprintf(f, "  imbalance %-34.3f <= %-19.3f %s\n", all->imbalance,
		l->p.max_imbalance,
		all->imbalance <= l->p.max_imbalance ? "PASS" : "FAIL");
	fprintf(f, "  chi-square p-value %-25.4g >= %-19.4g %s\n", all->p,
		l->p.min_p, all->p >= l->p.min_p ? "PASS" : "FAIL");
	fprintf(f, "# lab ecmp: %s; %" PRIu64 " frames without our tag\n",
		r.pass ? "PASS" : "FAIL", r.rx_other);
}

static void
json_ecn(const struct lab *l, const struct aifab_lab_result *r, FILE *f)
{
	uint32_t s, b, n = 0;

	fprintf(f, "{\"recipe\": \"ecn\", \"tx_port\": \"%s\", "
		"\"dut_rate_mbps\": %u, \"frame_bytes\": %u, \"step_ms\": %u, "
		"\"base_latency_us\": %.3f, \"steps\": [",
		l->env.ports[l->p.tx_port].name, l->p.dut_rate_mbps,
		l->p.frame_bytes, l->p.step_ms, r->base_lat_us);
	for (s = 0; s < r->n_steps; s++) {
		const struct aifab_lab_step *x = &r->step[s];

		fprintf(f, "%s\n    {\"load_pct\": %u, \"sent\": %" PRIu64
			", \"received\": %" PRIu64 ", \"ce\": %" PRIu64
			", \"ect\": %" PRIu64 ", \"lat_avg_us\": %.3f, "
			"\"lat_max_us\": %.3f}", s ? "," : "", x->load_pct,
			x->sent, x->received, x->ce, x->ect, x->lat_avg_us,
			x->lat_max_us);
	}
	fprintf(f, "],\n   \"bin_bytes\": %u, \"bins\": [", l->p.bin_bytes);
	for (b = 0; b < AIFAB_LAB_BINS; b++)
		if (r->bin[b].frames > 0)
			fprintf(f, "%s{\"depth\": %u, \"frames\": %" PRIu64
				", \"ce\": %" PRIu64 "}", n++ ? ", " : "",
				b * l->p.bin_bytes, r->bin[b].frames,
				r->bin[b].ce);
	fprintf(f, "],\n   \"inferred\": {\"kmin_bytes\": ");
	if (r->has_kmin)
		fprintf(f, "%u", r->kmin);
	else
		fprintf(f, "null");
	fprintf(f, ", \"kmax_bytes\": ");
	if (r->has_kmax)
		fprintf(f, "%u", r->kmax);
	else
		fprintf(f, "null");
	fprintf(f, ", \"pmax\": %.6f}, \"rx_other\": %" PRIu64
		", \"verdict\": \"%s\"}", r->pmax, r->rx_other, pf(r->pass));
}

static void
json_pfc(const struct lab *l, const struct aifab_lab_result *r, FILE *f)
{
	const struct aifab_lab_pfc *x = &r->pfc;

	fprintf(f, "{\"recipe\": \"pfc\", \"priority\": %u, \"dut_rate_mbps\": "
		"%u,\n   \"dut_pauses\": {\"xoff\": %" PRIu64 ", \"xon\": %"
		PRIu64 ", \"first_xoff_ms\": %.6f, \"bytes_to_first_xoff\": %"
		PRIu64 ", \"quanta_min\": %u, \"quanta_max\": %u, "
		"\"pause_us\": %.3f, \"refresh_us\": %.3f},\n"
		"   \"we_pause_dut\": {\"quanta\": %u, \"hold_ms\": %u, "
		"\"frames_before\": %" PRIu64 ", \"frames_after_xoff\": %"
		PRIu64 ", \"bytes_after_xoff\": %" PRIu64 ", \"response_us\": "
		"%.3f, \"response_quanta\": %.3f, \"bound_quanta\": %u, "
		"\"bound_bytes\": %" PRIu64 ", \"resumed\": %s, "
		"\"resume_ms\": %.6f},\n   \"headroom_bytes\": %" PRIu64
		", \"sent\": [%" PRIu64 ", %" PRIu64 "], \"received\": [%" PRIu64
		", %" PRIu64 "], \"rx_other\": %" PRIu64 ", \"verdict\": "
		"\"%s\"}", l->p.pfc_prio, l->p.dut_rate_mbps, x->xoff_rx,
		x->xon_rx, x->a_first_xoff_ms, x->a_sent_bytes_to_xoff,
		x->quanta_min, x->quanta_max, x->pause_us, x->refresh_us,
		l->p.pfc_quanta, l->p.hold_ms, x->b_before, x->leak_frames,
		x->leak_bytes, x->response_us, x->response_quanta,
		x->bound_quanta, x->bound_bytes, x->resumed ? "true" : "false",
		x->resume_ms, x->headroom_bytes, l->sent[0], l->sent[1],
		l->received[0], l->received[1], r->rx_other, pf(r->pass));
}

static void
json_incast(const struct lab *l, const struct aifab_lab_result *r, FILE *f)
{
	const struct aifab_lab_incast *x = &r->incast;
	uint32_t s;

	fprintf(f, "{\"recipe\": \"incast\", \"rx_port\": \"%s\", "
		"\"priority\": %u, \"frames_each\": %" PRIu64 ", "
		"\"frame_bytes\": %u, \"senders\": {",
		l->env.ports[l->p.rx_ports[0]].name, l->p.pfc_prio,
		x->frames_each, l->p.frame_bytes);
	for (s = 0; s < x->n_senders; s++) {
		fprintf(f, "%s\n    \"%s\": {\"sent\": %" PRIu64 ", "
			"\"received\": %" PRIu64 ", \"pfc_rx\": %" PRIu64
			", \"paused_ms\": %.6f, \"delivered_ms\": ", s ? "," : "",
			l->env.ports[l->tx_of[s]].name, x->sent[s],
			x->received[s], x->pfc_rx[s], x->paused_ms[s]);
		if (x->done_ms[s] >= 0)
			fprintf(f, "%.6f}", x->done_ms[s]);
		else
			fprintf(f, "null}");
	}
	fprintf(f, "},\n   \"lost\": %" PRIu64 ", \"reordered\": %" PRIu64
		", \"completed\": %s, \"completion_ms\": ", x->lost,
		x->reordered, x->completed ? "true" : "false");
	if (x->completed)
		fprintf(f, "%.6f", x->completion_ms);
	else
		fprintf(f, "null");
	fprintf(f, ", \"ideal_ms\": ");
	if (x->ideal_ms > 0)
		fprintf(f, "%.6f", x->ideal_ms);
	else
		fprintf(f, "null");
	fprintf(f, ", \"goodput_mbps\": %.3f, \"latency_us\": {\"p50\": "
		"%.3f, \"p99\": %.3f, \"p999\": %.3f, \"max\": %.3f}, "
		"\"pauses\": {\"pfc_rx\": %" PRIu64 ", \"paused_ms\": %.6f}, "
		"\"rx_other\": %" PRIu64 ", \"verdict\": \"%s\"}",
		x->goodput_mbps, x->lat_p50_us, x->lat_p99_us, x->lat_p999_us,
		x->lat_max_us, x->pfc_rx_total, x->paused_ms_total,
		r->rx_other, pf(r->pass));
}

void
aifab_lab_json(const void *st, FILE *f)
{
	const struct lab *l = st;
	struct aifab_lab_result r;
	uint32_t ph, s, k, n = 0;

	aifab_lab_result(l, &r);
	if (l->p.recipe == AIFAB_LAB_ECN) {
		json_ecn(l, &r, f);
		return;
	}
	if (l->p.recipe == AIFAB_LAB_PFC) {
		json_pfc(l, &r, f);
		return;
	}
	if (l->p.recipe == AIFAB_LAB_INCAST) {
		json_incast(l, &r, f);
		return;
	}
	fprintf(f, "{\"recipe\": \"%s\", \"flows\": %u, \"frames_per_flow\": %u, "
		"\"tx_port\": \"%s\", \"rx_ports\": [",
		recipe_names[l->p.recipe], l->p.flows, l->p.frames_per_flow,
		l->env.ports[l->p.tx_port].name);
	for (s = 0; s < l->p.n_rx; s++)
		fprintf(f, "%s\"%s\"", s ? ", " : "",
			l->env.ports[l->p.rx_ports[s]].name);
	fprintf(f, "], \"phases\": [");
	for (ph = 0; ph < r.n_phases; ph++) {
		const struct aifab_lab_phase *x = &r.ph[ph];

		fprintf(f, "%s\n    {\"vary\": \"%s\", \"sent\": %" PRIu64
			", \"received\": %" PRIu64 ", \"flows_seen\": %u, "
			"\"flows_split\": %u, \"ports_used\": %u, "
			"\"imbalance\": %.6f, \"chi2\": %.6f, \"p\": %.6f, "
			"\"flows_per_port\": {", ph ? "," : "",
			phase_name(x->field), x->sent, x->received,
			x->flows_seen, x->flows_split, x->ports_used,
			x->imbalance, x->chi2, x->p);
		for (s = 0; s < l->p.n_rx; s++)
			fprintf(f, "%s\"%s\": %u", s ? ", " : "",
				l->env.ports[l->p.rx_ports[s]].name,
				x->per_port[s]);
		fprintf(f, "}}");
	}
	fprintf(f, "],\n   \"hashed_fields\": [");
	for (k = 0; k < AIFAB_LAB_F_MAX; k++)
		if (r.hashed & (1u << k))
			fprintf(f, "%s\"%s\"", n++ ? ", " : "", field_names[k]);
	fprintf(f, "], \"rx_other\": %" PRIu64 ", \"limits\": {\"max_imbalance\": "
		"%.6f, \"min_p\": %.6f}, \"verdict\": \"%s\"}", r.rx_other,
		l->p.max_imbalance, l->p.min_p, r.pass ? "PASS" : "FAIL");
}
