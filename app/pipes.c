/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Which pipelines run, on which lcores, owning which ports: the switch on
 * its lcores over the ports the generator does not own; the generator on
 * its lcores (one worker each, ranks sharded) over its ports. Profile text
 * becomes each pipeline's params.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_ether.h>
#include <rte_lcore.h>

#include "aifab_pkt.h"
#include "app.h"
#include "generator.h"
#include "lab.h"
#include "replay.h"

/* [lab] tx_port + rx_ports: the recipe's ports, as the generator's. */
static int
lab_port_mask(const struct aifab_profile *p, struct app_portset *mask,
	      char *err, size_t errlen)
{
	char buf[sizeof(p->lab.rx_ports)], *tok, *save = NULL;
	int i, k;

	if (p->gen.enabled) {
		snprintf(err, errlen, "%s: [lab] recipe with [generator] "
			 "enabled = 'true'; allowed: one traffic source (set "
			 "generator.enabled=false)", p->path);
		return -1;
	}
	i = aifab_profile_port_index(p, p->lab.tx_port);
	if (i < 0) {
		snprintf(err, errlen, "%s: [lab] tx_port = '%s': no such port; "
			 "allowed: names of [port.*] sections", p->path,
			 p->lab.tx_port);
		return -1;
	}
	app_portset_add(mask, (unsigned int)i);
	for (k = 0; k < 2; k++) {
		const char *key = k ? "tx_ports" : "rx_ports";
		const char *val = k ? p->lab.tx_ports : p->lab.rx_ports;

		save = NULL;
		snprintf(buf, sizeof(buf), "%s", val);
		for (tok = strtok_r(buf, " ,", &save); tok != NULL;
		     tok = strtok_r(NULL, " ,", &save)) {
			i = aifab_profile_port_index(p, tok);
			if (i < 0) {
				snprintf(err, errlen, "%s: [lab] %s = '%s': no "
					 "port '%s'; allowed: names of [port.*] "
					 "sections", p->path, key, val, tok);
				return -1;
			}
			app_portset_add(mask, (unsigned int)i);
		}
	}
	return 0;
}

/* Port mask of [generator] ports ("" = every port). -1 on a bad name. */
int
app_gen_port_mask(const struct aifab_profile *p, struct app_portset *mask,
		  char *err, size_t errlen)
{
	char buf[sizeof(p->gen.ports)], *tok, *save = NULL;
	bool any = false;
	int i;

	memset(mask, 0, sizeof(*mask));
	if (app_lab_on(p))
		return lab_port_mask(p, mask, err, errlen);
	if (!p->gen.enabled)
		return 0;
	snprintf(buf, sizeof(buf), "%s", p->gen.ports);
	for (tok = strtok_r(buf, " ,", &save); tok != NULL;
	     tok = strtok_r(NULL, " ,", &save)) {
		size_t n = strlen(tok);

		if (n > 0 && tok[n - 1] == '*') { /* a prefix: "g*" */
			bool hit = false;

			for (i = 0; i < p->n_ports; i++)
				if (strncmp(p->ports[i].name, tok, n - 1) == 0) {
					app_portset_add(mask, (unsigned int)i);
					hit = any = true;
				}
			if (hit)
				continue;
		}
		i = aifab_profile_port_index(p, tok);
		if (i < 0) {
			snprintf(err, errlen, "%s: [generator] ports = '%s': "
				 "no port '%s'; allowed: names of [port.*] "
				 "sections", p->path, p->gen.ports, tok);
			return -1;
		}
		app_portset_add(mask, (unsigned int)i);
		any = true;
	}
	for (i = 0; !any && i < p->n_ports; i++)
		app_portset_add(mask, (unsigned int)i);
	return 0;
}

static int
lcore_check(const struct aifab_profile *p, const char *sect,
	    unsigned int lc, char *err, size_t errlen)
{
	if (rte_lcore_is_enabled(lc))
		return 0;
	snprintf(err, errlen, "%s: [%s] lcores = '%u': lcore %u is not "
		 "enabled in EAL; allowed: the -l/-c lcores (%u enabled)",
		 p->path, sect, lc, lc, rte_lcore_count());
	return -1;
}

int
app_switch_lcores(const struct aifab_profile *p, unsigned int cap,
		  unsigned int *ids, char *err, size_t errlen)
{
	unsigned int n = 0, lc, i;

	if (p->n_switch_lcores > 0) {
		for (i = 0; i < p->n_switch_lcores; i++) {
			lc = p->switch_lcores[i];
			if (lcore_check(p, "switch", lc, err, errlen) != 0)
				return -1;
			ids[n++] = lc;
		}
		if (n > cap) {
			snprintf(err, errlen, "%s: [switch] lcores: %u lcores "
				 "but the ports offer %u TX queues each; "
				 "allowed: up to %u lcores", p->path, n, cap, cap);
			return -1;
		}
		return (int)n;
	}
	RTE_LCORE_FOREACH_WORKER(lc)
		ids[n++] = lc;
	if (n == 0)
		ids[n++] = rte_get_main_lcore();
	return (int)RTE_MIN(n, cap);
}

unsigned int
app_gen_workers(const struct aifab_profile *p)
{
	return p->gen.n_lcores > 1 ? p->gen.n_lcores : 1;
}

int
app_gen_lcores(const struct aifab_profile *p, unsigned int *ids, char *err,
	       size_t errlen)
{
	unsigned int lc, last = rte_get_main_lcore(), i;

	if (p->gen.n_lcores > 1 && (app_lab_on(p) || p->gen.trace[0] != '\0')) {
		snprintf(err, errlen, "%s: [generator] lcores: %u lcores with "
			 "%s; allowed: one lcore (only the collective "
			 "generator shards over lcores)", p->path,
			 p->gen.n_lcores, app_lab_on(p) ? "a [lab] recipe" :
			 "trace replay");
		return -1;
	}
	if (p->gen.n_lcores >= 1) {
		for (i = 0; i < p->gen.n_lcores; i++) {
			ids[i] = p->gen.lcores[i];
			if (lcore_check(p, "generator", ids[i], err,
					errlen) != 0)
				return -1;
		}
		return (int)p->gen.n_lcores;
	}
	RTE_LCORE_FOREACH_WORKER(lc)
		last = lc;
	ids[0] = last;
	return 1;
}

/* [generator] closed loop, DCQCN, fault stage, clock and price. PFC
 * priorities follow the fabric's [qos] dscp_to_tc, as a NIC's would. */
static void
gen_params_closed(const struct aifab_profile *prof, struct aifab_gen_params *gp)
{
	const struct aifab_gen_profile *g = &prof->gen;

	gp->closed_loop = g->closed_loop;
	gp->window = g->window;
	gp->ack_every = g->ack_every;
	gp->retx_timeout_ns = (uint64_t)g->retx_timeout_us * 1000;
	gp->dcqcn = g->dcqcn;
	gp->dcqcn_g = g->dcqcn_g * 1e-8;
	gp->dcqcn_alpha_init = g->dcqcn_alpha_init * 1e-6;
	gp->dcqcn_rai_mbps = g->dcqcn_rai_mbps;
	gp->dcqcn_rhai_mbps = g->dcqcn_rhai_mbps;
	gp->dcqcn_min_rate_mbps = g->dcqcn_min_rate_mbps;
	gp->dcqcn_alpha_period_ns = (uint64_t)g->dcqcn_alpha_period_us * 1000;
	gp->dcqcn_rate_period_ns = (uint64_t)g->dcqcn_rate_period_us * 1000;
	gp->dcqcn_byte_counter = g->dcqcn_byte_counter;
	gp->dcqcn_f = g->dcqcn_f;
	gp->cnp_interval_ns = (uint64_t)g->cnp_interval_us * 1000;
	gp->cnp_dscp = (uint8_t)g->cnp_dscp;
	gp->cnp_ecn = (uint8_t)g->cnp_ecn;
	gp->data_prio = prof->qos.dscp_tc[g->dscp & 63];
	gp->cnp_prio = prof->qos.dscp_tc[g->cnp_dscp & 63];
	gp->fault_on_tx = g->fault_at == 1;
	gp->fault = (struct aifab_fault_params){
		.match = g->fault_match,
		.drop_index = g->fault_drop_index,
		.drop_every = g->fault_drop_every,
		.drop_ppm = g->fault_drop_ppm,
		.ce_index = g->fault_ce_index,
		.ce_every = g->fault_ce_every,
		.ce_ppm = g->fault_ce_ppm,
		.corrupt_index = g->fault_corrupt_index,
		.corrupt_every = g->fault_corrupt_every,
		.corrupt_ppm = g->fault_corrupt_ppm,
		.seed = prof->seed,
	};
	gp->virtual_tick_ns = g->virtual_tick_ns;
	gp->gpu_hour_usd = g->gpu_hour_cents / 100.0;
}

/* [generator] gateway_macs: the DUT's MAC per generator port, in order. */
static int
gen_gateway_macs(const struct aifab_profile *prof,
		 const struct aifab_env *env, struct aifab_gen_params *gp,
		 char *err, size_t errlen)
{
	char buf[sizeof(prof->gen.gateway_macs)], *tok, *save = NULL;
	unsigned int i = 0, n = 0;

	for (i = 0; i < env->n_ports; i++)
		n += env->ports[i].gen_owned;
	snprintf(buf, sizeof(buf), "%s", prof->gen.gateway_macs);
	i = 0;
	for (tok = strtok_r(buf, " ,", &save); tok != NULL;
	     tok = strtok_r(NULL, " ,", &save)) {
		struct rte_ether_addr mac;

		while (i < env->n_ports && !env->ports[i].gen_owned)
			i++;
		if (i >= env->n_ports || i >= AIFAB_GEN_MAX_PORTS ||
		    rte_ether_unformat_addr(tok, &mac) != 0 ||
		    !rte_is_unicast_ether_addr(&mac)) {
			snprintf(err, errlen, "%s: [generator] gateway_macs = "
				 "'%s': '%s' %s; allowed: one unicast MAC per "
				 "generator port (%u), in order", prof->path,
				 prof->gen.gateway_macs, tok, i >= env->n_ports ?
				 "is one too many" : "is not a unicast MAC", n);
			return -1;
		}
		gp->has_gw[i] = true;
		gp->gw_mac[i] = mac;
		i++;
	}
	return 0;
}

/*
 * A generator port cabled ([port] wire) to a switch port sends to that
 * port's MAC: the switch routes on IP, so it is the ranks' gateway.
 */
static void
gen_gateways(const struct aifab_profile *prof, const struct aifab_env *env,
	     struct aifab_gen_params *gp)
{
	unsigned int i;
	int j;

	for (i = 0; i < env->n_ports && i < AIFAB_GEN_MAX_PORTS; i++) {
		if (!env->ports[i].gen_owned)
			continue;
		j = aifab_profile_port_index(prof, prof->ports[i].wire);
		if (j < 0)
			for (j = 0; j < (int)prof->n_ports; j++)
				if (strcmp(prof->ports[j].wire,
					   prof->ports[i].name) == 0)
					break;
		if (j < 0 || j >= (int)env->n_ports || env->ports[j].gen_owned)
			continue;
		gp->has_gw[i] = true;
		gp->gw_mac[i] = env->ports[j].mac;
	}
}

/* The profile's [generator] as the pipeline's params. */
static void
gen_params(const struct aifab_profile *prof, const struct aifab_env *env,
	   struct aifab_gen_params *gp)
{
	const struct aifab_gen_profile *g = &prof->gen;
	unsigned int i;

	aifab_gen_params_defaults(gp);
	gp->n_ranks = g->ranks;
	gp->ip_stride = g->ip_stride;
	gp->rank_table = g->rank_table;
	gp->channel_dscp = g->channel_dscp;
	gen_gateways(prof, env, gp);
	if (g->has_base_mac)
		gp->base_mac = g->base_mac;
	if (g->has_base_ip)
		gp->base_ip = g->base_ip;
	for (i = 0; i < env->n_ports && i < AIFAB_GEN_MAX_PORTS; i++)
		if (env->ports[i].gen_owned)
			gp->ports[gp->n_ports++] = (uint16_t)i;
	gp->rx = g->rx;
	gp->rx_check_icrc = g->rx_check_icrc;
	if (gp->rx_check_icrc != 0)
		aifab_icrc_verify_init();
	gp->type = (enum aifab_coll_type)g->collective;
	gp->size = g->size_bytes;
	gp->n_channels = g->channels;
	gp->qps_per_conn = g->qps_per_conn;
	gp->ib_mtu = (uint16_t)g->ib_mtu;
	gp->iterations = g->iterations;
	gp->warmup = g->warmup;
	gp->gap_ns = (uint64_t)g->gap_us * 1000;
	gp->step_time_ns = (uint64_t)g->step_time_us * 1000;
	gp->rate_mbps = g->rate_mbps;
	gp->bursty = g->bursty;
	gp->burst_pkts = g->burst_pkts;
	gp->seed = prof->seed;
	gp->dscp = (uint8_t)g->dscp;
	gp->ecn = (uint8_t)g->ecn;
	gp->qpn_base = g->qpn_base;
	gp->sport_base = (uint16_t)g->sport_base;
	gp->sport_count = (uint16_t)g->sport_count;
	gp->mbufs = g->mbufs;
	gen_params_closed(prof, gp);
}

void *
app_gen_create(const struct aifab_profile *prof, const struct aifab_env *env,
	       const struct app_mh *mh, char *err, size_t errlen)
{
	struct aifab_gen_params gp;
	char why[APP_ERR_LEN];
	unsigned int i;
	void *st;

	for (i = AIFAB_GEN_MAX_PORTS; i < env->n_ports; i++)
		if (env->ports[i].gen_owned) {
			snprintf(err, errlen, "%s: [generator] ports: port '%s' "
				 "is [port.*] section %u; allowed: the "
				 "generator's ports among the first %u [port.*] "
				 "sections", prof->path, env->ports[i].name,
				 i + 1, AIFAB_GEN_MAX_PORTS);
			return NULL;
		}
	gen_params(prof, env, &gp);
	if (mh != NULL)
		app_mh_gen_params(mh, &gp);   /* several servers */
	if (gen_gateway_macs(prof, env, &gp, err, errlen) != 0)
		return NULL;
	st = aifab_gen_create(env, &gp, app_gen_workers(prof), why,
			      sizeof(why));
	/* "generator: key = value: why; allowed: ..." in the profile's form. */
	if (st == NULL)
		snprintf(err, errlen, "%s: [generator] %s", prof->path,
			 strncmp(why, "generator: ", 11) == 0 ? why + 11 : why);
	return st;
}

/* The profile's [generator] trace keys as replay params. */
static void
replay_params(const struct aifab_profile *prof, const struct aifab_env *env,
	      struct aifab_replay_params *rp)
{
	const struct aifab_gen_profile *g = &prof->gen;
	unsigned int i;

	aifab_replay_params_defaults(rp);
	rp->path = g->trace;
	rp->speed_milli = g->trace_speed_milli;
	rp->loops = g->trace_loops;
	rp->rewrite = g->trace_rewrite;
	rp->send_other = g->trace_send_other;
	rp->n_ranks = g->ranks;
	if (g->has_base_mac)
		rp->base_mac = g->base_mac;
	if (g->has_base_ip)
		rp->base_ip = g->base_ip;
	rp->qpn_base = g->qpn_base;
	rp->sport_base = (uint16_t)g->sport_base;
	rp->sport_count = (uint16_t)g->sport_count;
	for (i = 0; i < env->n_ports; i++)
		if (env->ports[i].gen_owned)
			rp->ports[rp->n_ports++] = (uint16_t)i;
	rp->rx = g->rx;
	rp->burst_pkts = g->burst_pkts;
	rp->mbufs = g->mbufs;
}

void *
app_traffic_create(const struct aifab_profile *prof,
		   const struct aifab_env *env,
		   const struct aifab_pipeline_ops **ops, void **gen,
		   const struct app_mh *mh, char *err, size_t errlen)
{
	struct aifab_replay_params rp;
	char why[APP_ERR_LEN];
	void *st;

	*gen = NULL;
	if (prof->gen.trace[0] == '\0') {
		*ops = &aifab_generator_ops;
		*gen = app_gen_create(prof, env, mh, err, errlen);
		return *gen;
	}
	*ops = &aifab_replay_ops;
	replay_params(prof, env, &rp);
	st = aifab_replay_create(env, &rp, 1, why, sizeof(why));
	if (st == NULL)
		snprintf(err, errlen, "%s: [generator] %s", prof->path, why);
	return st;
}

/* [lab] loads = "50 90 110": percents of dut_rate, 1..16 of them. */
static int
lab_loads(const struct aifab_profile *prof, struct aifab_lab_params *p,
	  char *err, size_t errlen)
{
	char buf[sizeof(prof->lab.loads)], *tok, *save = NULL, *end;
	unsigned long v;

	p->n_loads = 0;
	snprintf(buf, sizeof(buf), "%s", prof->lab.loads);
	for (tok = strtok_r(buf, " ,", &save); tok != NULL;
	     tok = strtok_r(NULL, " ,", &save)) {
		v = strtoul(tok, &end, 10);
		if (*end != '\0' || v < 1 || v > 1000 ||
		    p->n_loads == AIFAB_LAB_MAX_STEPS) {
			snprintf(err, errlen, "%s: [lab] loads = '%s': bad step "
				 "'%s'; allowed: 1..%u percents of dut_rate_gbps "
				 "from 1 to 1000", prof->path, prof->lab.loads,
				 tok, AIFAB_LAB_MAX_STEPS);
			return -1;
		}
		p->load_pct[p->n_loads++] = (uint32_t)v;
	}
	return 0;
}

/* [lab] tx_ports + gateway_macs: the incast's other senders. */
static int
lab_senders(const struct aifab_profile *prof, struct aifab_lab_params *p,
	    char *err, size_t errlen)
{
	const struct aifab_lab_profile *lp = &prof->lab;
	char buf[sizeof(lp->gateway_macs)], *tok, *save = NULL;
	unsigned int n_mac = 0;
	int i;

	snprintf(buf, sizeof(buf), "%s", lp->tx_ports);
	for (tok = strtok_r(buf, " ,", &save); tok != NULL &&
	     p->n_more_tx < AIFAB_MAX_PORTS; tok = strtok_r(NULL, " ,", &save)) {
		i = aifab_profile_port_index(prof, tok);
		if (i < 0) {
			snprintf(err, errlen, "%s: [lab] tx_ports = '%s': no port "
				 "'%s'; allowed: names of [port.*] sections",
				 prof->path, lp->tx_ports, tok);
			return -1;
		}
		p->more_tx[p->n_more_tx++] = (uint16_t)i;
	}
	save = NULL;
	snprintf(buf, sizeof(buf), "%s", lp->gateway_macs);
	for (tok = strtok_r(buf, " ,", &save); tok != NULL;
	     tok = strtok_r(NULL, " ,", &save)) {
		if (n_mac >= p->n_more_tx ||
		    rte_ether_unformat_addr(tok, &p->more_gw[n_mac]) != 0) {
			n_mac = UINT32_MAX;
			break;
		}
		n_mac++;
	}
	if (n_mac != p->n_more_tx) {
		snprintf(err, errlen, "%s: [lab] gateway_macs = '%s': %s; "
			 "allowed: one MAC per port of tx_ports (%u)", prof->path,
			 lp->gateway_macs, n_mac == UINT32_MAX ? "a bad MAC or "
			 "too many" : "too few", p->n_more_tx);
		return -1;
	}
	return 0;
}

bool
app_lab_on(const struct aifab_profile *prof)
{
	return strcmp(prof->lab.recipe, "none") != 0;
}

int
app_lab_check(const struct aifab_profile *prof, const char *const *sets,
	      unsigned int n_sets, char *err, size_t errlen)
{
	const char *origin = prof->path;
	char names[128];
	unsigned int i;

	if (!app_lab_on(prof) || aifab_lab_recipe_exists(prof->lab.recipe))
		return 0;
	/* as the profile loader says where a value came from */
	for (i = 0; i < n_sets; i++)
		if (strncmp(sets[i], "lab.recipe", 10) == 0 &&
		    strchr(" \t=", sets[i][10]) != NULL)
			origin = "--set";
	aifab_lab_recipe_names(names, sizeof(names));
	snprintf(err, errlen, "%s: [lab] recipe = '%s': unknown value; "
		 "allowed: %s", origin, prof->lab.recipe, names);
	return -1;
}

/* The profile's [lab] as the recipe's params. */
void *
app_lab_create(const struct aifab_profile *prof, const struct aifab_env *env,
	       char *err, size_t errlen)
{
	const struct aifab_lab_profile *lp = &prof->lab;
	struct aifab_lab_params p;
	char buf[sizeof(lp->rx_ports)], *tok, *save = NULL, why[APP_ERR_LEN];
	void *st;

	aifab_lab_params_defaults(&p);
	snprintf(p.recipe, sizeof(p.recipe), "%s", lp->recipe);
	p.tx_port = (uint16_t)aifab_profile_port_index(prof, lp->tx_port);
	snprintf(buf, sizeof(buf), "%s", lp->rx_ports);
	for (tok = strtok_r(buf, " ,", &save); tok != NULL &&
	     p.n_rx < AIFAB_MAX_PORTS; tok = strtok_r(NULL, " ,", &save))
		p.rx_ports[p.n_rx++] =
			(uint16_t)aifab_profile_port_index(prof, tok);
	if (!lp->has_gw_mac || !lp->has_src_ip || !lp->has_dst_ip) {
		snprintf(err, errlen, "%s: [lab] %s: not set; allowed: the DUT's "
			 "MAC on tx_port (gateway_mac) and the addresses "
			 "(src_ip, dst_ip)", prof->path,
			 !lp->has_gw_mac ? "gateway_mac" :
			 !lp->has_src_ip ? "src_ip" : "dst_ip");
		return NULL;
	}
	p.gw_mac = lp->gw_mac;
	p.src_ip = lp->src_ip;
	p.dst_ip = lp->dst_ip;
	p.flows = lp->flows;
	p.frames_per_flow = lp->frames_per_flow;
	p.frame_bytes = (uint16_t)lp->frame_bytes;
	p.fields = lp->fields;
	p.rate_mbps = lp->rate_mbps;
	p.tos = (uint8_t)(lp->dscp << 2 | lp->ecn);
	p.sport_base = (uint16_t)lp->sport_base;
	p.qpn_base = lp->qpn_base;
	p.settle_ms = lp->settle_ms;
	p.max_imbalance = lp->max_imbalance_milli / 1000.0;
	p.min_p = lp->min_p_ppm / 1e6;
	p.dut_rate_mbps = lp->dut_rate_mbps;
	p.step_ms = lp->step_ms;
	p.gap_ms = lp->gap_ms;
	p.bin_bytes = lp->bin_bytes;
	p.min_bin_frames = lp->min_bin_frames;
	p.expect_kmin = lp->expect_kmin;
	p.expect_kmax = lp->expect_kmax;
	p.expect_pmax = lp->expect_pmax_ppm ? lp->expect_pmax_ppm / 1e6 : -1;
	p.tolerance = lp->tolerance_pct / 100.0;
	p.pfc_prio = (uint8_t)lp->pfc_prio;
	p.pfc_quanta = (uint16_t)lp->pfc_quanta;
	p.pfc_load_pct = lp->pfc_load_pct;
	p.hold_ms = lp->hold_ms;
	p.resume_ms = lp->resume_ms;
	if (p.n_rx > 0 && p.rx_ports[0] < prof->n_ports)
		p.cable_m = prof->ports[p.rx_ports[0]].cable_m;
	p.max_p99_us = lp->max_p99_us;
	if (lab_senders(prof, &p, err, errlen) != 0)
		return NULL;
	if (lab_loads(prof, &p, err, errlen) != 0)
		return NULL;
	st = aifab_lab_create(env, &p, why, sizeof(why));
	if (st == NULL)
		snprintf(err, errlen, "%s: [lab] %s", prof->path,
			 strncmp(why, "lab: ", 5) == 0 ? why + 5 : why);
	return st;
}
