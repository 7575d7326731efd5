/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The echo recipe, the smallest one (docs/lab.md "echo"): send flows x
 * frames_per_flow tagged frames from tx_port at rate_gbps (frame i is flow
 * i mod flows, every field varied by the flow as in the ecmp recipe's
 * `all` phase) and count those that come back on rx_ports. PASS when
 * all were sent and as many came back. Only generic [lab] keys; it exists to
 * show (and test) what a recipe needs: this file, one line in recipes.c
 * and in meson.build, a test.
 */
#include <inttypes.h>

#include <rte_common.h>

#include "lab_priv.h"

struct echo {
	uint64_t n;                       /* frames to send */
	uint64_t sent, back;
	struct lab_pacer pace;
};

struct echo_result {
	uint64_t n, sent, back;
	bool pass;
};

static int
echo_init(struct lab *l, char *err, size_t errlen)
{
	struct echo *x = l->rs;

	RTE_SET_USED(err);
	RTE_SET_USED(errlen);
	x->n = (uint64_t)l->p.flows * l->p.frames_per_flow;
	return 0;
}

static unsigned int
echo_tx(struct lab *l, uint64_t now)
{
	struct echo *x = l->rs;
	struct rte_mbuf *pkts[LAB_BURST];
	uint32_t due = lab_pacer_due(l, &x->pace, now);
	struct lab_frame f;
	uint16_t n;

	if (due > x->n - x->sent)
		due = (uint32_t)(x->n - x->sent);
	for (n = 0; n < due; n++) {
		lab_frame_flow(l, (uint32_t)((x->sent + n) % l->p.flows), &f);
		f.seq = (uint32_t)(x->sent + n);
		pkts[n] = lab_frame_build(l, &f, now);
		if (pkts[n] == NULL)
			break;
	}
	x->sent += n;
	x->pace.next_tsc += n * l->gap_cyc;
	if (n > 0)
		lab_tx_burst(l, l->p.tx_port, pkts, n);
	if (x->sent == x->n)
		lab_tx_done(l, now);
	return n;
}

static bool
echo_rx(struct lab *l, const struct lab_rx *f, uint64_t now)
{
	struct echo *x = l->rs;

	RTE_SET_USED(now);
	if (f->ph != 0 || f->seq >= x->n || f->slot == LAB_NONE)
		return false;
	x->back++;
	return true;
}

static void
echo_result(const struct lab *l, void *res)
{
	const struct echo *x = l->rs;
	struct echo_result *r = res;

	r->n = x->n;
	r->sent = x->sent;
	r->back = x->back;
	r->pass = r->sent == r->n && r->back == r->sent;
}

static void
echo_print(const struct lab *l, const void *res, FILE *f)
{
	const struct echo_result *r = res;
	uint16_t s;

	fprintf(f, "\n# lab echo: %" PRIu64 " frames (%u flows x %u) from %s, "
		"back on", r->n, l->p.flows, l->p.frames_per_flow,
		lab_port_name(l, l->p.tx_port));
	for (s = 0; s < l->p.n_rx; s++)
		fprintf(f, " %s", lab_port_name(l, l->p.rx_ports[s]));
	fprintf(f, "\n# sent %" PRIu64 ", back %" PRIu64 "\n# verdict\n",
		r->sent, r->back);
	fprintf(f, "  back %-10" PRIu64 " == sent %-10" PRIu64 " == %-10"
		PRIu64 " %14s %s\n", r->back, r->sent, r->n, "",
		lab_pf(r->pass));
	lab_print_tail(l, r->pass, f);
}

static void
echo_json(const struct lab *l, const void *res, struct aifab_json *j)
{
	const struct echo_result *r = res;

	aifab_json_u64(j, "frames", r->n);
	aifab_json_u64(j, "sent", r->sent);
	aifab_json_u64(j, "received", r->back);
	lab_json_tail(l, r->pass, j);
}

const struct lab_recipe lab_recipe_echo = {
	.name = "echo",
	.state_size = sizeof(struct echo),
	.result_size = sizeof(struct echo_result),
	.init = echo_init,
	.tx = echo_tx,
	.rx = echo_rx,
	.result = echo_result,
	.print = echo_print,
	.json = echo_json,
};
