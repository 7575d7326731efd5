/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The ecmp recipe (docs/lab.md "ecmp"): from tx_port, K flows of RoCEv2
 * frames to a destination the DUT routes over an ECMP group whose members
 * lead back to rx_ports. One phase per header field varies only that
 * field across the K flows (UDP source port, destination QP, source IP,
 * destination IP), a last phase varies them all; per phase, the port
 * each flow came back on. Per phase: flows per port, imbalance (busiest
 * port / mean), chi-square against an even spread and its p-value, flows
 * split over several ports; a field is hashed on when varying it alone
 * moves flows to more than one port. The verdict judges the all-fields
 * phase against max_imbalance and min_p.
 */
#include <inttypes.h>
#include <string.h>

#include <rte_common.h>
#include <rte_malloc.h>

#include "aifab_verdict.h"
#include "lab_priv.h"

#define ECMP_MAX_PHASES (AIFAB_LAB_F_MAX + 1)

static const char *const field_names[] = { "sport", "dqpn", "sip", "dip" };

struct ecmp {
	uint32_t n_phases;
	int field[ECMP_MAX_PHASES];       /* enum aifab_lab_field; -1: all */
	/* sending: phase, then frame j of every flow in turn */
	uint32_t ph, j, flow;
	struct lab_pacer pace;
	uint64_t sent[ECMP_MAX_PHASES], received[ECMP_MAX_PHASES];
	/* [phase][flow]: index into rx_ports of the first arrival; split */
	uint8_t *first;
	uint8_t *split;
};

/** One phase's figures. */
struct ecmp_phase {
	int field;                        /* enum aifab_lab_field, -1: all */
	uint64_t sent, received;
	uint32_t flows_seen;              /* flows with >= 1 frame back */
	uint32_t flows_split;             /* flows seen on > 1 port */
	uint32_t ports_used;
	uint32_t per_port[AIFAB_MAX_PORTS]; /* flows (first port seen) */
	double imbalance;                 /* max / mean over the rx ports */
	double chi2;                      /* against an even spread */
	double p;                         /* chi-square upper tail */
};

struct ecmp_result {
	uint32_t n_phases;
	struct ecmp_phase ph[ECMP_MAX_PHASES];
	uint32_t hashed;                  /* fields that moved flows (bits) */
	bool pass;
};

static const char *
phase_name(int field)
{
	return field < 0 ? "all" : field_names[field];
}

static int
ecmp_init(struct lab *l, char *err, size_t errlen)
{
	struct ecmp *e = l->rs;
	size_t cells;
	uint32_t f;

	for (f = 0; f < AIFAB_LAB_F_MAX; f++)
		if (l->p.fields & (1u << f))
			e->field[e->n_phases++] = (int)f;
	e->field[e->n_phases++] = -1;
	cells = (size_t)e->n_phases * l->p.flows;
	e->first = rte_malloc("aifab_lab_first", cells, 0);
	e->split = rte_zmalloc("aifab_lab_split", cells, 0);
	if (e->first == NULL || e->split == NULL)
		LAB_BAD("lab: out of memory for %u flows (raise -m)",
			l->p.flows);
	memset(e->first, LAB_NONE, cells);
	return 0;
}

static void
ecmp_fini(struct lab *l)
{
	struct ecmp *e = l->rs;

	rte_free(e->first);
	rte_free(e->split);
}

/* The frame of (phase, flow): only the phase's field varies. */
static void
ecmp_frame(const struct lab *l, const struct ecmp *e, struct lab_frame *f)
{
	int fld = e->field[e->ph];
	struct lab_frame all;

	lab_frame_flow(l, 0, f);
	lab_frame_flow(l, e->flow, &all);
	if (fld < 0 || fld == AIFAB_LAB_F_SPORT)
		f->sport = all.sport;
	if (fld < 0 || fld == AIFAB_LAB_F_DQPN)
		f->dqpn = all.dqpn;
	if (fld < 0 || fld == AIFAB_LAB_F_SIP)
		f->sip = all.sip;
	if (fld < 0 || fld == AIFAB_LAB_F_DIP)
		f->dip = all.dip;
	f->ph = (uint8_t)e->ph;
	f->flow = e->flow;
	f->seq = e->j * l->p.flows + e->flow;
}

/* Advance (phase, frame, flow). */
static void
ecmp_next(struct lab *l, struct ecmp *e, uint64_t now)
{
	if (++e->flow < l->p.flows)
		return;
	e->flow = 0;
	if (++e->j < l->p.frames_per_flow)
		return;
	e->j = 0;
	if (++e->ph < e->n_phases)
		return;
	lab_tx_done(l, now);
}

static unsigned int
ecmp_tx(struct lab *l, uint64_t now)
{
	struct ecmp *e = l->rs;
	struct rte_mbuf *pkts[LAB_BURST];
	uint32_t due = lab_pacer_due(l, &e->pace, now);
	struct lab_frame f;
	uint16_t n;

	for (n = 0; n < due && !l->sent_all; n++) {
		ecmp_frame(l, e, &f);
		pkts[n] = lab_frame_build(l, &f, now);
		if (pkts[n] == NULL)
			break;
		e->sent[e->ph]++;
		e->pace.next_tsc += l->gap_cyc;
		ecmp_next(l, e, now);
	}
	if (n > 0)
		lab_tx_burst(l, l->p.tx_port, pkts, n);
	return n;
}

static bool
ecmp_rx(struct lab *l, const struct lab_rx *f, uint64_t now)
{
	struct ecmp *e = l->rs;
	uint8_t *first;

	RTE_SET_USED(now);
	if (f->ph >= e->n_phases || f->flow >= l->p.flows ||
	    f->slot == LAB_NONE)
		return false;
	e->received[f->ph]++;
	first = &e->first[f->ph * l->p.flows + f->flow];
	if (*first == LAB_NONE)
		*first = f->slot;
	else if (*first != f->slot)
		e->split[f->ph * l->p.flows + f->flow] = 1;
	return true;
}

static void
ecmp_result(const struct lab *l, void *res)
{
	const struct ecmp *e = l->rs;
	struct ecmp_result *r = res;
	uint32_t ph, f, s;

	r->n_phases = e->n_phases;
	for (ph = 0; ph < e->n_phases; ph++) {
		struct ecmp_phase *x = &r->ph[ph];
		uint32_t used = 0;

		x->field = e->field[ph];
		x->sent = e->sent[ph];
		x->received = e->received[ph];
		for (f = 0; f < l->p.flows; f++) {
			uint8_t first = e->first[ph * l->p.flows + f];

			if (first == LAB_NONE)
				continue;
			x->flows_seen++;
			x->per_port[first]++;
			x->flows_split += e->split[ph * l->p.flows + f];
		}
		for (s = 0; s < l->p.n_rx; s++)
			used += x->per_port[s] != 0;
		x->ports_used = used;
		aifab_verdict_spread(x->per_port, l->p.n_rx, &x->imbalance,
				     &x->chi2, &x->p);
		if (x->field >= 0 && used > 1)
			r->hashed |= 1u << x->field;
	}
	if (e->n_phases > 0) {
		const struct ecmp_phase *all = &r->ph[e->n_phases - 1];

		r->pass = all->flows_seen == l->p.flows &&
			all->imbalance <= l->p.max_imbalance &&
			all->p >= l->p.min_p && all->flows_split == 0;
	}
}

/* "# fields the DUT hashes on: ... (of those varied: ...)" */
static void
print_hashed(const struct lab *l, const struct ecmp_result *r, FILE *f)
{
	uint32_t k;

	fprintf(f, "# fields the DUT hashes on:");
	for (k = 0; k < AIFAB_LAB_F_MAX; k++)
		if (r->hashed & (1u << k))
			fprintf(f, " %s", field_names[k]);
	fprintf(f, "%s (of those varied:", r->hashed ? "" : " none");
	for (k = 0; k < AIFAB_LAB_F_MAX; k++)
		if (l->p.fields & (1u << k))
			fprintf(f, " %s", field_names[k]);
	fprintf(f, ")\n");
}

static void
ecmp_print(const struct lab *l, const void *res, FILE *f)
{
	const struct ecmp_result *r = res;
	const struct ecmp_phase *all;
	uint32_t ph, s;

	fprintf(f, "\n# lab ecmp: %u flows x %u frames per phase from %s, back "
		"on", l->p.flows, l->p.frames_per_flow,
		lab_port_name(l, l->p.tx_port));
	for (s = 0; s < l->p.n_rx; s++)
		fprintf(f, " %s", lab_port_name(l, l->p.rx_ports[s]));
	fprintf(f, "\n# %-6s %8s %8s %6s %6s %5s %9s %9s %8s  flows per port\n",
		"vary", "sent", "back", "flows", "split", "ports", "imbalance",
		"chi2", "p");
	for (ph = 0; ph < r->n_phases; ph++) {
		const struct ecmp_phase *x = &r->ph[ph];

		fprintf(f, "  %-6s %8" PRIu64 " %8" PRIu64 " %6u %6u %5u %9.3f "
			"%9.2f %8.4f ", phase_name(x->field), x->sent,
			x->received, x->flows_seen, x->flows_split,
			x->ports_used, x->imbalance, x->chi2, x->p);
		for (s = 0; s < l->p.n_rx; s++)
			fprintf(f, " %u", x->per_port[s]);
		fprintf(f, "\n");
	}
	all = &r->ph[r->n_phases - 1];
	print_hashed(l, r, f);
	fprintf(f, "# verdict\n");
	fprintf(f, "  %-44s %-22s %s\n", "every flow came back",
		"", lab_pf(all->flows_seen == l->p.flows));
	fprintf(f, "  %-44s %-22s %s\n", "flow affinity (no flow split)", "",
		lab_pf(all->flows_split == 0));
	fprintf(f, "  imbalance %-34.3f <= %-19.3f %s\n", all->imbalance,
		l->p.max_imbalance,
		lab_pf(all->imbalance <= l->p.max_imbalance));
	fprintf(f, "  chi-square p-value %-25.4g >= %-19.4g %s\n", all->p,
		l->p.min_p, lab_pf(all->p >= l->p.min_p));
	lab_print_tail(l, r->pass, f);
}

static void
ecmp_json(const struct lab *l, const void *res, struct aifab_json *j)
{
	const struct ecmp_result *r = res;
	uint32_t ph, s, k;

	aifab_json_u64(j, "flows", l->p.flows);
	aifab_json_u64(j, "frames_per_flow", l->p.frames_per_flow);
	aifab_json_str(j, "tx_port", lab_port_name(l, l->p.tx_port));
	aifab_json_arr(j, "rx_ports");
	for (s = 0; s < l->p.n_rx; s++)
		aifab_json_str(j, NULL, lab_port_name(l, l->p.rx_ports[s]));
	aifab_json_end(j);
	aifab_json_arr(j, "phases");
	for (ph = 0; ph < r->n_phases; ph++) {
		const struct ecmp_phase *x = &r->ph[ph];

		aifab_json_obj(j, NULL);
		aifab_json_str(j, "vary", phase_name(x->field));
		aifab_json_u64(j, "sent", x->sent);
		aifab_json_u64(j, "received", x->received);
		aifab_json_u64(j, "flows_seen", x->flows_seen);
		aifab_json_u64(j, "flows_split", x->flows_split);
		aifab_json_u64(j, "ports_used", x->ports_used);
		aifab_json_dbl(j, "imbalance", x->imbalance, 6);
		aifab_json_dbl(j, "chi2", x->chi2, 6);
		aifab_json_dbl(j, "p", x->p, 6);
		aifab_json_obj(j, "flows_per_port");
		for (s = 0; s < l->p.n_rx; s++)
			aifab_json_u64(j, lab_port_name(l, l->p.rx_ports[s]),
				       x->per_port[s]);
		aifab_json_end(j);
		aifab_json_end(j);
	}
	aifab_json_end(j);
	aifab_json_arr(j, "hashed_fields");
	for (k = 0; k < AIFAB_LAB_F_MAX; k++)
		if (r->hashed & (1u << k))
			aifab_json_str(j, NULL, field_names[k]);
	aifab_json_end(j);
	aifab_json_u64(j, "rx_other", l->rx_other);
	aifab_json_obj(j, "limits");
	aifab_json_dbl(j, "max_imbalance", l->p.max_imbalance, 6);
	aifab_json_dbl(j, "min_p", l->p.min_p, 6);
	aifab_json_end(j);
	aifab_json_str(j, "verdict", lab_pf(r->pass));
}

const struct lab_recipe lab_recipe_ecmp = {
	.name = "ecmp",
	.state_size = sizeof(struct ecmp),
	.result_size = sizeof(struct ecmp_result),
	.init = ecmp_init,
	.tx = ecmp_tx,
	.rx = ecmp_rx,
	.result = ecmp_result,
	.print = ecmp_print,
	.json = ecmp_json,
	.fini = ecmp_fini,
};
