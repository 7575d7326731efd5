/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The leaf switch pipeline: set-up from the profile (FIB, ECMP groups,
 * queues, shaper, scheduler, ECN, PFC), the poll loop (real or virtual
 * time), end-of-run and the report. The per-packet work is in
 * switch_fwd.c (ingress) and switch_egress.c (egress).
 */
#include <assert.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <arpa/inet.h>

#include <rte_ethdev.h>
#include <rte_lcore.h>
#include <rte_malloc.h>
#include <rte_mempool.h>
#include <rte_mbuf_dyn.h>

#include "switch_priv.h"

static_assert(AIFAB_HF_SIP == AIFAB_ECMP_F_SIP &&
	      AIFAB_HF_DIP == AIFAB_ECMP_F_DIP &&
	      AIFAB_HF_PROTO == AIFAB_ECMP_F_PROTO &&
	      AIFAB_HF_SPORT == AIFAB_ECMP_F_SPORT &&
	      AIFAB_HF_DPORT == AIFAB_ECMP_F_DPORT &&
	      AIFAB_HF_DQPN == AIFAB_ECMP_F_DQPN,
	      "profile ECMP field bits must match lib/ecmp's");
static_assert(AIFAB_MAX_WORKERS <= AIFAB_PFC_SHARE_MAX_WORKERS,
	      "a port's PFC share has one XOFF bit per worker");
static_assert(AIFAB_N_TC == AIFAB_QOS_N_TC &&
	      AIFAB_N_TC == AIFAB_PFC_NUM_PRIO, "8 TCs everywhere");

static_assert(RTE_DIM(sw_st_descs_all) == sw_st_N + 1,
	      "one descriptor per counter id, plus the parser's ok");
static_assert(AIFAB_QOS_CTR_MAX - 1 ==
	      sw_st_pfcwd_drops - sw_st_tc_tx_pkts,
	      "per-TC counters follow lib/qos' list (minus the HWM gauge)");

/* ---- FIB and ECMP groups from the profile ------------------------------- */

static uint32_t
v4_host(const uint8_t *a)
{
	return ((uint32_t)a[0] << 24) | ((uint32_t)a[1] << 16) |
	       ((uint32_t)a[2] << 8) | a[3];
}

static int
fib_add_port(struct aifab_fib *fib, const struct aifab_port_params *pp)
{
	uint8_t net6[16];
	unsigned int b;
	int rc = 0;

	if (pp->has_ip4) {
		uint32_t mask = pp->ip4_depth ?
			~0u << (32 - pp->ip4_depth) : 0;

		rc |= aifab_fib_route4_add(fib, pp->ip4 & mask, pp->ip4_depth,
					   AIFAB_FIB_UNRESOLVED);
		rc |= aifab_fib_route4_add(fib, pp->ip4, 32, AIFAB_FIB_LOCAL);
	}
	if (pp->has_ip6) {
		memcpy(net6, pp->ip6, 16);
		for (b = pp->ip6_depth; b < 128; b++)
			net6[b / 8] &= (uint8_t)~(0x80u >> (b % 8));
		rc |= aifab_fib_route6_add(fib, net6, pp->ip6_depth,
					   AIFAB_FIB_UNRESOLVED);
		rc |= aifab_fib_route6_add(fib, pp->ip6, 128, AIFAB_FIB_LOCAL);
	}
	return rc;
}

static int
fib_add_route(struct aifab_fib *fib, uint8_t family, const uint8_t *addr,
	      uint8_t depth, uint32_t target)
{
	if (family == AF_INET)
		return aifab_fib_route4_add(fib, v4_host(addr), depth, target);
	return aifab_fib_route6_add(fib, addr, depth, target);
}

/* A FIB group and its ECMP group, built together so their ids agree. */
static int
group_add(struct sw *sw, const uint16_t *nh, unsigned int n)
{
	const struct aifab_ecmp_profile *ep = &sw->env.prof->ecmp;
	int g = aifab_fib_group_add(sw->fib, nh, n);

	if (g < 0 || (uint32_t)g >= SW_MAX_GROUPS ||
	    aifab_ecmp_group_init(&sw->groups[g], nh, n, ep->buckets,
				  ep->resilient) != 0)
		return -1;
	sw->n_groups = (uint32_t)g + 1;
	return g;
}

/* Port @p p belongs to another switch instance (not the generator). */
static bool
other_switch(const struct aifab_env *env, unsigned int p)
{
	return !env->ports[p].gen_owned && env->ports[p].sw != env->sw_index;
}

static int
fib_build(struct sw *sw, int socket, char *err, size_t errlen)
{
	const struct aifab_profile *prof = sw->env.prof;
	char fib_name[24];
	struct aifab_fib_params fp = {
		.name = fib_name, /* LPM names are process-wide: one per instance */
		.socket_id = socket,
		.max_routes4 = prof->n_routes + prof->n_neighs +
			2u * prof->n_ports + 16,
		.max_routes6 = prof->n_routes + prof->n_neighs +
			2u * prof->n_ports + 16,
		.max_nh = RTE_MAX(prof->n_neighs, 1u),
		.max_groups = SW_MAX_GROUPS,
	};
	uint16_t nh_of[AIFAB_MAX_NEIGHS];
	uint16_t members[AIFAB_MAX_ECMP];
	unsigned int i, k;
	int rc, g;

	snprintf(fib_name, sizeof(fib_name), "aifab_sw%u", sw->env.sw_index);
	sw->fib = aifab_fib_create(&fp);
	if (sw->fib == NULL) {
		snprintf(err, errlen, "switch: cannot create FIB: %s",
			 rte_strerror(rte_errno));
		return -1;
	}
	for (i = 0; i < prof->n_ports; i++)
		if (!other_switch(&sw->env, i) &&
		    fib_add_port(sw->fib, &prof->ports[i]) != 0)
			goto fail;
	for (i = 0; i < prof->n_neighs; i++) {
		const struct aifab_neigh_params *n = &prof->neighs[i];

		rc = aifab_fib_nh_add(sw->fib, n->port, &n->mac);
		if (rc < 0 || rc >= AIFAB_MAX_NEIGHS)
			goto fail;
		nh_of[i] = (uint16_t)rc;
		sw->nh_port[rc] = n->port;
		sw->n_nh = RTE_MAX(sw->n_nh, (uint32_t)rc + 1);
		g = group_add(sw, &nh_of[i], 1);
		if (g < 0 || fib_add_route(sw->fib, n->family, n->addr,
			     n->family == AF_INET ? 32 : 128, (uint32_t)g) != 0)
			goto fail;
	}
	for (i = 0; i < prof->n_routes; i++) {
		const struct aifab_route_params *r = &prof->routes[i];

		for (k = 0; k < r->n_nh; k++)
			members[k] = nh_of[r->nh_neigh[k]];
		g = group_add(sw, members, r->n_nh);
		if (g < 0 || fib_add_route(sw->fib, r->family, r->prefix,
					   r->depth, (uint32_t)g) != 0)
			goto fail;
	}
	return 0;
fail:
	snprintf(err, errlen, "switch: FIB too small for the profile's routes");
	return -1;
}

static int
ecmp_setup(struct sw *sw, char *err, size_t errlen)
{
	const struct aifab_ecmp_profile *ep = &sw->env.prof->ecmp;
	struct aifab_ecmp_params p = {
		.fn = ep->hash == AIFAB_HASH_TOEPLITZ ? AIFAB_ECMP_HASH_TOEPLITZ :
		      ep->hash == AIFAB_HASH_JHASH ? AIFAB_ECMP_HASH_JHASH :
		      AIFAB_ECMP_HASH_CRC32C,
		.seed = ep->seed,
		.fields = ep->fields,
		.rss_key_len = ep->rss_key_len,
	};

	memcpy(p.rss_key, ep->rss_key, sizeof(p.rss_key));
	if (aifab_ecmp_config(&sw->ecmp_cfg, &p) != 0) {
		snprintf(err, errlen, "%s: [ecmp]: hash, fields and rss_key "
			 "do not fit together (a Toeplitz key must be at "
			 "least 44 bytes when proto or dqpn is hashed)",
			 sw->env.prof->path);
		return -1;
	}
	return 0;
}

/* ---- link state into ECMP ------------------------------------------------ */

/* A fault stage whose down window may take port @p p down. */
static bool
link_may_go_down(const struct sw *sw, unsigned int p)
{
	const struct aifab_port_fault *f = sw->env.prof->ports[p].fault;

	return f[AIFAB_FAULT_DIR_RX].down_for_us != 0 ||
	       f[AIFAB_FAULT_DIR_TX].down_for_us != 0;
}

/*
 * The groups of several members (a single next hop is left alone: frames
 * to its down port are lost at the fault stage or the NIC) and the ports
 * whose link state the workers follow: this switch's ports with a
 * fault-stage down window, or all of them when the app publishes the
 * NICs' link state.
 */
static int
link_watch_setup(struct sw *sw, int socket, char *err, size_t errlen)
{
	unsigned int g, p;

	sw->multi = rte_zmalloc_socket("aifab_sw_multi",
		sizeof(*sw->multi) * RTE_MAX(sw->n_groups, 1u), 0, socket);
	if (sw->multi == NULL) {
		snprintf(err, errlen, "switch: out of memory (raise -m)");
		return -1;
	}
	for (g = 0; g < sw->n_groups; g++)
		if (sw->groups[g].n_members > 1)
			sw->multi[sw->n_multi++] = g;
	for (p = 0; p < sw->env.n_ports; p++)
		if (!aifab_env_port_foreign(&sw->env, p) &&
		    (sw->env.link_down != NULL || link_may_go_down(sw, p)))
			sw->watch[sw->n_watch++] = (uint16_t)p;
	return 0;
}

/*
 * Port @p p as worker @p wk sees it now: down while the NIC says so, or
 * inside the down window of the port's RX or TX fault stage. A stage no
 * frame has passed yet has no origin: up (asking would set the origin).
 */
static bool
sw_port_down(const struct sw *sw, const struct sw_worker *wk, uint16_t p,
	     uint64_t ns)
{
	unsigned int d;

	if (sw->env.link_down != NULL &&
	    __atomic_load_n(&sw->env.link_down[p], __ATOMIC_RELAXED) != 0)
		return true;
	for (d = 0; d < 2; d++) {
		struct aifab_link *l = wk->link[p][d];

		if (l != NULL && l->p.down_for_ns != 0 && l->started &&
		    aifab_link_down(l, ns))
			return true;
	}
	return false;
}

/*
 * Follow the watched ports' link state in this worker's copy of the
 * groups: a member whose port went down leaves its groups (resilient:
 * only its buckets move; plain: hash mod the live members), and comes
 * back when the port does. Once per poll (real time) or per arrival
 * (virtual time), on the worker's own clock.
 */
void
sw_link_state(struct sw *sw, struct sw_worker *wk)
{
	uint64_t ns = sw_ns(sw, wk->now);
	unsigned int i, k, s;

	for (i = 0; i < sw->n_watch; i++) {
		uint16_t p = sw->watch[i];
		bool down = sw_port_down(sw, wk, p, ns);

		if (down == (wk->port_down[p] != 0))
			continue;
		wk->port_down[p] = down;
		wk->port_down_events[p] += down;
		for (k = 0; k < sw->n_multi; k++) {
			uint32_t g = sw->multi[k], slots = 0;
			int moved = aifab_ecmp_group_port_set(&wk->groups[g],
				sw->nh_port, sw->n_nh, p, !down, &slots);

			if (slots == 0)
				continue;
			wk->ecmp[g].remaps++;
			wk->ecmp[g].remap_buckets += (uint64_t)RTE_MAX(moved, 0);
			for (s = 0; down && s < AIFAB_FIB_MAX_MEMBERS; s++)
				wk->ecmp[g].down_events[s] += (slots >> s) & 1;
		}
	}
}

/* ---- queues, shaper, scheduler, ECN, PFC --------------------------------- */

static int
qos_setup(struct sw *sw, char *err, size_t errlen)
{
	const struct aifab_profile *prof = sw->env.prof;
	struct aifab_qos_sched_params sp = { .quantum_bytes = 9216 + 24 };
	const char *why = NULL;
	unsigned int p, tc;

	memcpy(sw->map.dscp_tc, prof->qos.dscp_tc, sizeof(sw->map.dscp_tc));
	memcpy(sw->map.pcp_tc, prof->qos.pcp_tc, sizeof(sw->map.pcp_tc));
	for (p = 0; p < AIFAB_PFC_NUM_PRIO; p++)
		sw->prios_of_tc[sw->map.pcp_tc[p] & 7] |= (uint8_t)(1u << p);
	for (p = 0; p < RTE_DIM(sw->tcs_of_prios); p++) {
		unsigned int b;

		for (b = 0; b < AIFAB_PFC_NUM_PRIO; b++)
			if (p & (1u << b))
				sw->tcs_of_prios[p] |=
					(uint8_t)(1u << (sw->map.pcp_tc[b] & 7));
	}
	for (p = 0; p < sw->env.n_ports; p++)
		sw->trust[p] = prof->ports[p].trust == AIFAB_TRUST_PCP ?
			AIFAB_QOS_TRUST_PCP : AIFAB_QOS_TRUST_DSCP;
	for (tc = 0; tc < AIFAB_N_TC; tc++) {
		const struct aifab_tc_params *t = &prof->tc[tc];
		struct aifab_qos_ecn_params ep = {
			.enabled = t->ecn, .lossless = t->lossless,
			.kmin_bytes = t->ecn_kmin_bytes / sw->n_workers,
			.kmax_bytes = t->ecn_kmax_bytes / sw->n_workers,
			.pmax_percent = t->ecn_pmax_ppm / 10000.0,
		};

		if (aifab_qos_ecn_config(&sw->ecn[tc], &ep, &why) != 0)
			goto bad;
		if (t->strict)
			sp.strict_mask |= (uint8_t)(1u << tc);
		sp.weight[tc] = (uint16_t)RTE_MAX(t->weight, 1u);
		if (t->lossless)
			sw->lossless |= (uint8_t)(1u << tc);
		if (t->lossless && sw->prios_of_tc[tc] == 0)
			printf("warning: %s: [tc.%u] lossless, but no 802.1p "
			       "priority maps to it ([qos] pcp_to_tc): its PFC "
			       "cannot be sent or received\n", prof->path, tc);
	}
	if (aifab_qos_sched_config(&sw->sched, &sp, &why) != 0)
		goto bad;
	for (p = 0; p < sw->env.n_ports; p++) {
		struct aifab_qos_shaper_params shp = {
			.rate_mbps = RTE_MAX(sw->env.ports[p].speed_mbps /
					     sw->n_workers, 1u),
			.tsc_hz = sw->hz,
			.max_frame = (uint32_t)sw->env.ports[p].mtu +
				RTE_ETHER_HDR_LEN + 8,
			.burst_bytes = RTE_MAX(prof->qos.shaper_burst_bytes,
				(uint32_t)sw->env.ports[p].mtu + 64),
		};

		if (aifab_qos_shaper_config(&sw->shaper[p], &shp, &why) != 0)
			goto bad;
	}
	return 0;
bad:
	snprintf(err, errlen, "%s: [qos]/[tc.*]: %s", prof->path,
		 why != NULL ? why : "invalid");
	return -1;
}

/* Per worker: its slice of [qos] buffer_bytes (at least 64 KiB). */
static uint64_t
buf_share(const struct sw *sw)
{
	return RTE_MAX(sw->env.prof->qos.buffer_bytes / sw->n_workers,
		       (uint64_t)65536);
}

/*
 * Headroom of every PFC-enabled (ingress port, priority) pair is kept out
 * of the shared buffer: lossy queues can never fill it, lossless queues
 * spill into it when the shared pool is full. Sized in cells for frames
 * of the port's MTU (SW_HR_CELLS), as the headroom formula counts them.
 */
static int
hr_reserve(struct sw *sw, char *err, size_t errlen)
{
	const struct aifab_profile *prof = sw->env.prof;
	uint64_t pool = 0, share = buf_share(sw);
	unsigned int p, prio, pairs = 0;

	for (p = 0; p < sw->env.n_ports; p++) {
		uint32_t frame = (uint32_t)sw->env.ports[p].mtu +
			RTE_ETHER_HDR_LEN + RTE_VLAN_HLEN;

		/* only ports this switch receives on */
		if (aifab_env_port_foreign(&sw->env, p))
			continue;
		for (prio = 0; prio < AIFAB_PFC_NUM_PRIO; prio++)
			if (sw->pfc_gen[p].enabled & (1u << prio)) {
				pool += SW_HR_CELLS(sw->pfc_gen[p].prio[prio]
						    .headroom_bytes, frame);
				pairs++;
			}
	}
	/* The shared pool keeps at least two jumbo frames' worth. */
	if (pool + 2 * SW_CELLS(9216 + 24) > share) {
		snprintf(err, errlen, "%s: [qos] buffer_bytes %" PRIu64 ": the "
			 "PFC headroom of %u lossless (port, priority) pairs "
			 "needs %" PRIu64 " bytes of it (in %u-byte cells for "
			 "MTU-sized frames%s) and the shared pool at least "
			 "%u; allowed: a larger buffer_bytes, smaller [tc.*] "
			 "pfc_headroom_bytes or fewer lossless TCs", prof->path,
			 prof->qos.buffer_bytes, pairs, pool * sw->n_workers,
			 SW_CELL,
			 sw->n_workers > 1 ? ", summed over the workers" : "",
			 2 * SW_CELLS(9216 + 24) * sw->n_workers);
		return -1;
	}
	sw->hr_pool = pool;
	return 0;
}

static int
pfc_setup(struct sw *sw, char *err, size_t errlen)
{
	const struct aifab_profile *prof = sw->env.prof;
	struct aifab_pfc_wd_params wp = { .tsc_hz = sw->hz };
	unsigned int p, tc;

	for (p = 0; p < sw->env.n_ports; p++) {
		const struct aifab_port_rt *rt = &sw->env.ports[p];
		struct aifab_pfc_gen_params gp = {
			.speed_mbps = rt->speed_mbps, .tsc_hz = sw->hz,
		};

		sw->pfc_on[p] = prof->ports[p].pfc;
		for (tc = 0; tc < AIFAB_N_TC; tc++) {
			const struct aifab_tc_params *t = &prof->tc[tc];
			struct aifab_pfc_gen_prio_params *pp = &gp.prio[tc];
			struct aifab_pfc_eff e;
			uint64_t hr;

			/* [port.X] pfc_* over [tc.N] pfc_* */
			aifab_profile_pfc_eff(prof, p, tc, &e);
			if (!e.enabled)
				continue;
			hr = e.headroom_bytes ? e.headroom_bytes :
				aifab_pfc_headroom_bytes(rt->speed_mbps,
					prof->ports[p].cable_m, rt->mtu);
			pp->enabled = true;
			pp->xoff_mode = e.xoff_bytes ?
				AIFAB_PFC_XOFF_STATIC : AIFAB_PFC_XOFF_DYNAMIC;
			pp->xoff_bytes = RTE_MAX(e.xoff_bytes / sw->n_workers,
						 1u);
			/* the exact alpha, as the queue limits use it */
			pp->alpha_num = t->alpha_milli;
			pp->alpha_den = 1000;
			if (e.xon_bytes != 0) {
				/* absolute XON, below a static XOFF */
				pp->xon_mode = AIFAB_PFC_XON_ABS;
				pp->xon_bytes = e.xon_bytes / sw->n_workers;
				if (e.xoff_bytes != 0)
					pp->xon_bytes = RTE_MIN(pp->xon_bytes,
						pp->xoff_bytes - 1);
			} else {
				/* XON offset below a static XOFF; a dynamic
				 * XOFF moves with the free buffer, so the
				 * offset stands. */
				pp->xon_mode = AIFAB_PFC_XON_OFFSET;
				pp->xon_bytes = e.xoff_bytes ?
					RTE_MAX(RTE_MIN(e.xon_offset_bytes /
						sw->n_workers, pp->xoff_bytes),
						1u) :
					RTE_MAX(e.xon_offset_bytes /
						sw->n_workers, 1u);
			}
			pp->headroom_bytes = (uint32_t)(hr / sw->n_workers);
			pp->pause_quanta = (uint16_t)t->pfc_pause_quanta;
			if (e.headroom_bytes != 0 &&
			    aifab_pfc_headroom_short(e.headroom_bytes,
				rt->speed_mbps, prof->ports[p].cable_m,
				rt->mtu)) {
				char sect[AIFAB_NAME_LEN + 8];

				if (prof->ports[p].has_pfc_headroom)
					snprintf(sect, sizeof(sect), "port.%s",
						 prof->ports[p].name);
				else
					snprintf(sect, sizeof(sect), "tc.%u",
						 tc);
				printf("warning: [%s] pfc_headroom_bytes %u is "
				       "below the %" PRIu64 " bytes port %s "
				       "needs for TC %u (speed, cable, MTU)\n",
				       sect, e.headroom_bytes,
				       aifab_pfc_headroom_bytes(rt->speed_mbps,
					prof->ports[p].cable_m, rt->mtu),
				       rt->name, tc);
			}
		}
		if (aifab_pfc_gen_config_init(&sw->pfc_gen[p], &gp) != 0) {
			snprintf(err, errlen, "%s: [tc.*]/[port.%s] pfc_*: "
				 "thresholds rejected for port %s (XON below "
				 "XOFF, pause of at least 2 quanta)", prof->path,
				 rt->name, rt->name);
			return -1;
		}
	}
	if (hr_reserve(sw, err, errlen) != 0)
		return -1;
	/* The watchdog watches the priorities of lossless TCs. */
	for (tc = 0; tc < AIFAB_N_TC; tc++) {
		wp.prio[tc].enabled = prof->pfc.watchdog &&
			prof->tc[sw->map.pcp_tc[tc] & 7].lossless;
		wp.prio[tc].action = prof->pfc.action == AIFAB_PFCWD_FORWARD ?
			AIFAB_PFC_WD_FORWARD : prof->pfc.action ==
			AIFAB_PFCWD_ALERT ? AIFAB_PFC_WD_ALERT :
			AIFAB_PFC_WD_DROP;
		wp.prio[tc].detection_ms = prof->pfc.detection_ms;
		wp.prio[tc].restoration_ms = prof->pfc.restoration_ms;
	}
	if (aifab_pfc_wd_config_init(&sw->wd, &wp) != 0) {
		snprintf(err, errlen, "%s: [pfc]: watchdog times out of range",
			 prof->path);
		return -1;
	}
	return 0;
}

/* ---- fault stages ------------------------------------------------------- */

/* [port] fault_<dir>_* as lib/fault link params for one of n workers. */
static void
link_params(const struct sw *sw, unsigned int p, unsigned int d,
	    struct aifab_link_params *lp)
{
	const struct aifab_port_fault *f = &sw->env.prof->ports[p].fault[d];

	*lp = (struct aifab_link_params){
		.loss = { .match = f->match, .drop_ppm = f->drop_ppm,
			  .drop_every = f->drop_every, .ce_ppm = f->ce_ppm,
			  .seed = sw->env.prof->seed },
		.from_ns = (uint64_t)f->from_us * 1000,
		.until_ns = (uint64_t)f->until_us * 1000,
		.delay_ns = (uint64_t)f->delay_us * 1000,
		.jitter_ns = (uint64_t)f->jitter_us * 1000,
		/* each worker carries 1/n of the traffic, as with the shaper */
		.rate_mbps = f->rate_mbps == 0 ? 0 :
			RTE_MAX(f->rate_mbps / sw->n_workers, 1u),
		.queue = f->queue,
		.down_at_ns = (uint64_t)f->down_at_us * 1000,
		.down_for_ns = (uint64_t)f->down_for_us * 1000,
		.storm_prio = (uint8_t)f->storm_prio,
		.storm_at_ns = (uint64_t)f->storm_at_us * 1000,
		.storm_for_ns = (uint64_t)f->storm_for_us * 1000,
	};
}

/* Fault keys only where the switch can honour them. */
static int
link_check(const struct sw *sw, char *err, size_t errlen)
{
	static const char *const dir[2] = { "rx", "tx" };
	const struct aifab_profile *prof = sw->env.prof;
	struct aifab_link_params lp;
	unsigned int p, d;

	for (p = 0; p < sw->env.n_ports; p++)
		for (d = 0; d < 2; d++) {
			link_params(sw, p, d, &lp);
			if (!aifab_link_params_active(&lp) ||
			    (!sw->env.ports[p].gen_owned &&
			     aifab_env_port_foreign(&sw->env, p)))
				continue; /* another switch checks its own */
			if (sw->env.ports[p].gen_owned) {
				snprintf(err, errlen, "%s: [port.%s] fault_%s_*: "
					 "the port is the generator's; allowed: "
					 "fault keys on switch ports ([generator] "
					 "fault_* impairs the generator's)",
					 prof->path, prof->ports[p].name, dir[d]);
				return -1;
			}
			if (sw->virtual_time && d == AIFAB_FAULT_DIR_RX &&
			    (lp.delay_ns || lp.jitter_ns || lp.rate_mbps)) {
				snprintf(err, errlen, "%s: [port.%s] fault_rx_"
					 "delay_us/jitter_us/rate_gbps with "
					 "[general] virtual_time = true: arrivals "
					 "are pcap timestamps; allowed: delay and "
					 "rate on fault_tx_* (or real time)",
					 prof->path, prof->ports[p].name);
				return -1;
			}
		}
	return 0;
}

static int
link_setup(struct sw *sw, struct sw_worker *wk, unsigned int w, int socket)
{
	struct aifab_link_params lp;
	unsigned int p, d;

	for (p = 0; p < sw->env.n_ports; p++)
		for (d = 0; d < 2; d++) {
			struct aifab_link *l;

			link_params(sw, p, d, &lp);
			if (aifab_env_port_foreign(&sw->env, p) ||
			    !aifab_link_params_active(&lp))
				continue;
			l = rte_zmalloc_socket("aifab_sw_link", sizeof(*l),
					       RTE_CACHE_LINE_SIZE, socket);
			if (l == NULL)
				return -1;
			wk->link[p][d] = l;
			wk->n_links++;
			/* streams apart per (worker, port, direction) */
			if (aifab_link_init(l, &lp, (w * AIFAB_MAX_PORTS + p) * 2
					    + d, socket) != 0)
				return -1;
		}
	return 0;
}

static void
link_free(struct sw_worker *wk)
{
	unsigned int p, d;

	for (p = 0; p < AIFAB_MAX_PORTS; p++)
		for (d = 0; d < 2; d++)
			if (wk->link[p][d] != NULL) {
				aifab_link_fini(wk->link[p][d]);
				rte_free(wk->link[p][d]);
				wk->link[p][d] = NULL;
			}
	wk->n_links = 0;
}

static int
worker_setup(struct sw *sw, struct sw_worker *wk, unsigned int w, int socket)
{
	const struct aifab_profile *prof = sw->env.prof;
	/* The shared pool is what the PFC headroom reserve leaves. */
	struct aifab_qos_buf_params bp = {
		.size_bytes = buf_share(sw) - sw->hr_pool,
		.headroom_bytes = sw->hr_pool,
		.n_queues = (uint32_t)sw->env.n_ports * AIFAB_QOS_N_TC,
	};
	uint32_t cap = (uint32_t)RTE_MIN(RTE_MAX(
		rte_align64pow2(buf_share(sw) / SW_CELL), (uint64_t)SW_FIFO_MIN),
		(uint64_t)SW_FIFO_MAX);
	size_t fsz = aifab_qos_fifo_memsize(cap);
	const char *why;
	unsigned int p, tc;

	aifab_rng_seed(&wk->rng, prof->seed, w);
	wk->txq = (uint16_t)w;
	wk->buf = rte_zmalloc_socket("aifab_sw_buf",
				     aifab_qos_buf_memsize(bp.n_queues), 0,
				     socket);
	wk->ecmp = rte_zmalloc_socket("aifab_sw_ecmp",
				      sizeof(*wk->ecmp) * SW_MAX_GROUPS, 0,
				      socket);
	wk->groups = rte_malloc_socket("aifab_sw_wgrp",
		sizeof(*wk->groups) * RTE_MAX(sw->n_groups, 1u), 0, socket);
	if (wk->buf == NULL || wk->ecmp == NULL || wk->groups == NULL ||
	    aifab_qos_buf_init(wk->buf, &bp, &why) != 0)
		return -1;
	memcpy(wk->groups, sw->groups, sizeof(*wk->groups) * sw->n_groups);
	for (p = 0; p < sw->env.n_ports; p++) {
		struct sw_egress *eg = &wk->eg[p];
		/* Another instance's port is never routed to: smallest FIFOs. */
		bool other = other_switch(&sw->env, p);
		uint32_t pcap = other ? SW_FIFO_MIN : cap;
		size_t psz = other ? aifab_qos_fifo_memsize(pcap) : fsz;

		for (tc = 0; tc < AIFAB_QOS_N_TC; tc++) {
			const struct aifab_tc_params *t = &prof->tc[tc];
			struct aifab_qos_queue_params qp = {
				.mode = AIFAB_QOS_LIMIT_DYNAMIC,
				.alpha_num = RTE_MAX(t->alpha_milli, 8u),
				.alpha_den = 1000,
			};

			/* Lossless queues never tail-drop: PFC holds them,
			 * and with the shared pool full (lossy queues may
			 * fill it) they go on into the headroom reserve. */
			if (t->lossless) {
				qp.mode = AIFAB_QOS_LIMIT_STATIC;
				qp.static_bytes = (uint32_t)RTE_MIN(
					bp.size_bytes, UINT32_MAX);
				qp.headroom_bytes = (uint32_t)bp.headroom_bytes;
			} else if (prof->qos.limit_mode == AIFAB_LIMIT_STATIC) {
				/* queue_limit_bytes 0: no limit but the shared
				 * buffer (as documented), not a 1-byte queue. */
				qp.mode = AIFAB_QOS_LIMIT_STATIC;
				qp.static_bytes = t->queue_limit_bytes == 0 ?
					(uint32_t)RTE_MIN(bp.size_bytes,
							  UINT32_MAX) :
					RTE_MAX(t->queue_limit_bytes /
						sw->n_workers, 1u);
			}
			if (aifab_qos_buf_queue_config(wk->buf,
					p * AIFAB_QOS_N_TC + tc, &qp, &why))
				return -1;
			eg->q[tc] = rte_zmalloc_socket("aifab_sw_q", psz,
						       RTE_CACHE_LINE_SIZE,
						       socket);
			if (eg->q[tc] == NULL ||
			    aifab_qos_fifo_init(eg->q[tc], pcap) != 0)
				return -1;
		}
		aifab_qos_shaper_init(&sw->shaper[p], &eg->shaper, 0);
		aifab_qos_sched_init(&sw->sched, &eg->sched);
		if (aifab_pfc_rx_init(&eg->pfc_rx, sw->env.ports[p].speed_mbps,
				      sw->hz) != 0)
			return -1;
		aifab_pfc_wd_init(&eg->wd, &sw->wd);
		aifab_pfc_gen_init(&eg->pfc_gen, &sw->pfc_gen[p]);
		/* one XOFF/XON decision per port over the workers' shards */
		aifab_pfc_gen_share(&eg->pfc_gen, &sw->pfc_share[p], w);
	}
	return link_setup(sw, wk, w, socket);
}

static void
worker_free(struct sw *sw, struct sw_worker *wk)
{
	unsigned int p, tc;

	sw_flush_queues(sw, wk);
	for (p = 0; p < sw->env.n_ports; p++) {
		for (tc = 0; tc < AIFAB_QOS_N_TC; tc++)
			rte_free(wk->eg[p].q[tc]);
		for (tc = 0; tc < wk->tx[p].n; tc++)
			rte_pktmbuf_free(wk->tx[p].pkts[tc]);
		wk->tx[p].n = 0;
	}
	link_free(wk);
	rte_free(wk->buf);
	rte_free(wk->ecmp);
	rte_free(wk->groups);
}

/* ---- poll loop ------------------------------------------------------------ */

/*
 * A pcap file returns 0 at its end, but so does any port when the pool is
 * dry: only count an empty poll as EOF when rx_nombuf did not move.
 */
static void
sw_note_empty(const struct sw *sw, struct sw_rxq *q)
{
	struct rte_eth_stats st;

	if (!q->finite)
		return;
	if (rte_eth_stats_get(sw->env.ports[q->port].port_id, &st) != 0)
		return;
	if (st.rx_nombuf != q->nombuf_seen) {
		q->nombuf_seen = st.rx_nombuf;
		q->empty_polls = 0;
		return;
	}
	if (++q->empty_polls >= SW_EMPTY_POLLS_EOF)
		__atomic_store_n(&q->exhausted, true, __ATOMIC_RELEASE);
}

/* One RX burst, through the port's RX fault stage if it has one (frames
 * it delays come back through sw_link_rx_release()). */
static uint16_t
sw_rx(struct sw *sw, struct sw_worker *wk, struct sw_rxq *rq,
      struct rte_mbuf **pkts, uint16_t n)
{
	struct aifab_link *l = wk->link[rq->port][AIFAB_FAULT_DIR_RX];
	uint16_t got = rte_eth_rx_burst(sw->env.ports[rq->port].port_id,
					rq->queue, pkts, n);

	if (got == 0) {
		sw_note_empty(sw, rq);
		return 0;
	}
	rq->empty_polls = 0;
	if (unlikely(l != NULL))
		got = aifab_link_in(l, pkts, got, sw_ns(sw, wk->now),
				    wk->scratch[0]);
	return got;
}

/* Real time: each RX queue's burst through ingress, then egress. */
static unsigned int
sw_poll_real(struct sw *sw, struct sw_worker *wk, uint64_t now)
{
	struct rte_mbuf *pkts[SW_CHUNK];
	unsigned int handled = 0, q;
	uint16_t n;

	wk->now = now;
	if (unlikely(sw->n_watch != 0))
		sw_link_state(sw, wk);
	for (q = 0; q < wk->n_rxq; q++) {
		struct sw_rxq *rq = &wk->rxq[q];
		uint32_t budget = sw->burst;

		if (rq->exhausted)
			continue;
		do {
			n = sw_rx(sw, wk, rq, pkts, (uint16_t)RTE_MIN(budget,
						(uint32_t)SW_CHUNK));
			sw_ingress(sw, wk, rq->port, pkts, n);
			handled += n;
			budget -= n;
		} while (n == SW_CHUNK && budget > 0);
	}
	if (unlikely(wk->n_links != 0))
		sw_link_rx_release(sw, wk);
	sw_egress_run(sw, wk, now);
	return handled;
}

static inline uint64_t
sw_pkt_time(const struct sw *sw, const struct rte_mbuf *m)
{
	/* net_pcap stamps microseconds. */
	if (!(m->ol_flags & sw->ts_flag))
		return 0;
	return *RTE_MBUF_DYNFIELD(m, sw->ts_off, const uint64_t *) * 1000;
}

/* The link into port @p p is busy from @p t for one frame: exact, the
 * fraction of a ns carried from frame to frame. */
static void
sw_link_busy(const struct sw *sw, struct sw_peer *pe, uint16_t p, uint64_t t,
	     uint32_t len)
{
	uint32_t mbps = sw->env.ports[p].speed_mbps;
	uint64_t bits_k = ((uint64_t)len + AIFAB_QOS_WIRE_OVERHEAD) * 8000;

	if (t > pe->link_free)
		pe->link_frac = 0; /* an idle link starts on a whole ns */
	pe->link_free = RTE_MAX(t, pe->link_free) + bits_k / mbps;
	pe->link_frac += (uint32_t)(bits_k % mbps);
	if (pe->link_frac >= mbps) {
		pe->link_frac -= mbps;
		pe->link_free++;
	}
}

/* The peer's view of a PFC frame we sent out of @p port (virtual time). */
void
sw_peer_pfc(struct sw *sw, struct sw_worker *wk, uint16_t port,
	    const struct aifab_pfc_frame *f)
{
	struct sw_peer *pe = &wk->peer[port];
	uint64_t at = wk->now + sw->peer_delay[port];
	unsigned int tc;

	for (tc = 0; tc < AIFAB_QOS_N_TC; tc++) {
		if (!(f->enable & (1u << tc)))
			continue;
		if (f->quanta[tc] == 0) {
			if (pe->until[tc] > at)
				pe->until[tc] = at;
			continue;
		}
		if (pe->until[tc] <= at)
			pe->from[tc] = at;
		pe->until[tc] = at + (uint64_t)f->quanta[tc] *
			AIFAB_PFC_QUANTUM_BITS * 1000 /
			sw->env.ports[port].speed_mbps;
	}
}

/* TC the switch will give the staged head of @p rq (cached). */
static uint8_t
sw_head_tc(const struct sw *sw, struct sw_worker *wk, struct sw_rxq *rq)
{
	struct aifab_pkt_info pi;

	if (rq->head_tc < 0) {
		if (aifab_pkt_parse_mbuf(rq->st[rq->st_next], &pi,
					 wk->scratch[0], false) != 0 ||
		    (pi.l3 != AIFAB_L3_IPV4 && pi.l3 != AIFAB_L3_IPV6))
			rq->head_tc = 0;
		else
			rq->head_tc = aifab_qos_classify(&sw->map,
				sw->trust[rq->port], pi.tos, pi.n_vlans > 0,
				pi.pcp);
	}
	return (uint8_t)rq->head_tc;
}

/*
 * When the staged head of @p rq reaches the switch: its pcap time, but not
 * before the link into the port is free, nor, if the peer honours our PFC,
 * while its priority is paused at the peer.
 */
static uint64_t
sw_arrival(const struct sw *sw, struct sw_worker *wk, struct sw_rxq *rq)
{
	const struct sw_peer *pe = &wk->peer[rq->port];
	uint64_t t = RTE_MAX(sw_pkt_time(sw, rq->st[rq->st_next]),
			     pe->link_free);

	if (sw->peer_pause) {
		uint8_t tc = sw_head_tc(sw, wk, rq);

		if (pe->from[tc] <= t && t < pe->until[tc])
			t = pe->until[tc];
	}
	return t;
}

/* Run egress up to @p t, in steps a shaper bucket can cover while busy. */
static void
sw_advance(struct sw *sw, struct sw_worker *wk, uint64_t t)
{
	while (wk->now < t) {
		uint64_t next = sw_queues_empty(sw, wk) ? t :
			RTE_MIN(t, wk->now + sw->vt_step);

		sw_egress_run(sw, wk, next);
	}
}

/*
 * Virtual time: the clock is the arrival time of the packet being handled.
 * Staged bursts are merged by arrival; egress runs up to each arrival,
 * then, once every input is consumed, the clock steps on until the queues
 * have drained. Results depend only on the inputs and the profile.
 */
static unsigned int
sw_poll_virtual(struct sw *sw, struct sw_worker *wk)
{
	unsigned int handled = 0, q;

	for (;;) {
		struct sw_rxq *best = NULL;
		uint64_t best_t = UINT64_MAX;
		struct rte_mbuf *m;

		for (q = 0; q < wk->n_rxq; q++) {
			struct sw_rxq *rq = &wk->rxq[q];
			uint64_t t;

			if (rq->st_next == rq->st_n && !rq->exhausted) {
				/* net_pcap loses a record it has no mbuf for:
				 * let the queues drain before reading on. */
				if (rte_mempool_avail_count(
					sw->env.ports[rq->port].pool) <
				    2 * SW_CHUNK && !sw_queues_empty(sw, wk)) {
					sw_advance(sw, wk, wk->now + sw->vt_step);
					return handled;
				}
				rq->st_n = sw_rx(sw, wk, rq, rq->st, SW_CHUNK);
				rq->st_next = 0;
				rq->head_tc = -1;
				/* Empty but not known to be over: wait. */
				if (rq->st_n == 0 && !rq->exhausted)
					return handled;
			}
			if (rq->st_next == rq->st_n)
				continue;
			t = sw_arrival(sw, wk, rq);
			if (t < best_t) {
				best_t = t;
				best = rq;
			}
		}
		if (best == NULL)
			break;
		sw_advance(sw, wk, best_t);
		m = best->st[best->st_next++];
		best->head_tc = -1;
		sw_link_busy(sw, &wk->peer[best->port], best->port,
			     RTE_MAX(best_t, wk->now), m->pkt_len);
		/* link state as of this arrival */
		if (unlikely(sw->n_watch != 0))
			sw_link_state(sw, wk);
		sw_ingress(sw, wk, best->port, &m, 1);
		if (++handled >= sw->burst)
			return handled;
	}
	/* Inputs consumed: step the clock on until the queues drain. */
	if (!sw_queues_empty(sw, wk))
		sw_advance(sw, wk, wk->now + sw->vt_step);
	return handled;
}

/* ---- stats ---------------------------------------------------------------- */

/* ns to TSC cycles without overflow (paused time is in ns in any clock). */
static uint64_t
sw_ns_to_tsc(uint64_t ns, uint64_t hz)
{
	return ns / NS_PER_S * hz + ns % NS_PER_S * hz / NS_PER_S;
}

/* The ports' fault stages, RX + TX summed per port. */
static void
sw_stats_sync_links(struct sw *sw, struct sw_worker *wk)
{
	uint64_t *const *cb = wk->cb;
	unsigned int p, d;

	for (p = 0; p < sw->env.n_ports; p++) {
		uint64_t v[6] = { 0 };

		for (d = 0; d < 2; d++) {
			const struct aifab_link *l = wk->link[p][d];

			if (l == NULL)
				continue;
			v[0] += l->loss.cnt[AIFAB_FAULT_CNT_DROPPED];
			v[1] += l->cnt[AIFAB_LINK_CNT_DOWN_DROPPED];
			v[2] += l->cnt[AIFAB_LINK_CNT_QUEUE_DROPPED];
			v[3] += l->loss.cnt[AIFAB_FAULT_CNT_CE_MARKED];
			v[4] += l->cnt[AIFAB_LINK_CNT_DELAYED];
			v[5] += l->cnt[AIFAB_LINK_CNT_STORM_FRAMES];
		}
		cb[sw_st_drop_fault_loss][p] = v[0];
		cb[sw_st_drop_link_down][p] = v[1];
		cb[sw_st_drop_link_queue][p] = v[2];
		cb[sw_st_fault_ce_marked][p] = v[3];
		cb[sw_st_fault_delayed][p] = v[4];
		cb[sw_st_fault_pfc_storm_frames][p] = v[5];
	}
}

/*
 * Copy what lib/pfc and lib/qos objects of this worker count (PFC per
 * priority, paused time) and the levels (queues, buffer) into the
 * worker's block. Owner only; about once a millisecond and at stop.
 */
static void
sw_stats_sync(struct sw *sw, struct sw_worker *wk)
{
	uint64_t *const *cb = wk->cb;
	unsigned int p, tc, i;

	for (p = 0; p < sw->env.n_ports; p++) {
		const struct sw_egress *eg = &wk->eg[p];
		const struct aifab_pfc_stats *g = &eg->pfc_gen.stats;
		const struct aifab_pfc_stats *r = &eg->pfc_rx.stats;
		const struct aifab_pfc_stats *wd = &eg->wd.stats;

		for (tc = 0; tc < AIFAB_QOS_N_TC; tc++) {
			i = p * AIFAB_QOS_N_TC + tc;
			cb[sw_st_pfc_xoff_sent][i] =
				g->v[AIFAB_PFC_CNT_XOFF_SENT][tc];
			cb[sw_st_pfc_xon_sent][i] =
				g->v[AIFAB_PFC_CNT_XON_SENT][tc];
			cb[sw_st_pfc_tx][i] = g->v[AIFAB_PFC_CNT_XOFF_SENT][tc] +
				g->v[AIFAB_PFC_CNT_XON_SENT][tc];
			cb[sw_st_pfc_headroom_overflow][i] =
				g->v[AIFAB_PFC_CNT_HEADROOM_OVERFLOW][tc];
			cb[sw_st_pfc_rx][i] = r->v[AIFAB_PFC_CNT_RX][tc];
			cb[sw_st_pfcwd_storms][i] =
				wd->v[AIFAB_PFC_CNT_WD_STORMS][tc];
			cb[sw_st_pfcwd_restored][i] =
				wd->v[AIFAB_PFC_CNT_WD_RESTORED][tc];
			cb[sw_st_pfc_paused_cycles][i] = sw_ns_to_tsc(
				aifab_pfc_rx_paused_ns(&eg->pfc_rx, tc, wk->now),
				sw->env.tsc_hz);
			cb[sw_st_queue_bytes][i] = eg->q[tc]->bytes;
			cb[sw_st_queue_hwm_bytes][i] = eg->q[tc]->hwm_bytes;
		}
	}
	cb[sw_st_buffer_used_bytes][0] = wk->buf->used;
	if (wk->n_links != 0)
		sw_stats_sync_links(sw, wk);
}

static unsigned int
sw_poll(void *st, unsigned int w, uint64_t now)
{
	struct sw *sw = st;
	struct sw_worker *wk = &sw->w[w];
	unsigned int n;

	if (sw->virtual_time)
		n = sw_poll_virtual(sw, wk);
	else
		n = sw_poll_real(sw, wk, now);
	if (now - wk->synced >= sw->sync_cycles) {
		wk->synced = now;
		sw_stats_sync(sw, wk);
	}
	return n;
}

static void
sw_drain(void *st, unsigned int w, uint64_t now)
{
	struct sw *sw = st;
	struct sw_worker *wk = &sw->w[w];
	unsigned int q, i;
	uint16_t p;

	/* Stopping: what is still queued or staged is freed and counted. */
	RTE_SET_USED(now);
	for (q = 0; q < wk->n_rxq; q++) {
		struct sw_rxq *rq = &wk->rxq[q];

		for (i = rq->st_next; i < rq->st_n; i++)
			sw_drop(wk, rq->port, SW_DROP(flushed_at_stop),
				rq->st[i]);
		rq->st_n = rq->st_next = 0;
	}
	sw_flush_queues(sw, wk);
	for (p = 0; p < sw->env.n_ports; p++)
		sw_tx_flush(sw, wk, p);
	sw_link_drain(sw, wk);
	sw_stats_sync(sw, wk);
}

static bool
sw_done(const void *st)
{
	const struct sw *sw = st;
	unsigned int w, q, n = 0;

	for (w = 0; w < sw->n_workers; w++) {
		const struct sw_worker *wk = &sw->w[w];

		for (q = 0; q < wk->n_rxq; q++) {
			const struct sw_rxq *rq = &wk->rxq[q];

			if (!rq->finite ||
			    !__atomic_load_n(&rq->exhausted, __ATOMIC_ACQUIRE) ||
			    rq->st_next != rq->st_n)
				return false;
			n++;
		}
		/* Read from another lcore: a stale answer only delays the end. */
		if (!sw_queues_empty(sw, wk))
			return false;
	}
	return n > 0;
}

static bool
sw_idle(const void *st)
{
	const struct sw *sw = st;
	unsigned int w;

	/* Read from another lcore: a stale answer only delays the end. */
	for (w = 0; w < sw->n_workers; w++)
		if (!sw_queues_empty(sw, &sw->w[w]))
			return false;
	return true;
}

/* ---- control ------------------------------------------------------------- */

static int
rxq_assign(struct sw *sw, char *err, size_t errlen)
{
	const struct aifab_env *env = &sw->env;
	unsigned int p, q;

	for (p = 0; p < env->n_ports; p++) {
		if (aifab_env_port_foreign(env, p))
			continue;
		if (env->ports[p].nb_txq < sw->n_workers) {
			snprintf(err, errlen,
				 "switch: port %s has %u TX queues for %u workers",
				 env->ports[p].name, env->ports[p].nb_txq,
				 sw->n_workers);
			return -1;
		}
		for (q = 0; q < env->ports[p].nb_rxq; q++) {
			struct sw_worker *wk = &sw->w[q % sw->n_workers];
			struct sw_rxq *rq;

			if (wk->n_rxq == SW_MAX_RXQ) {
				snprintf(err, errlen,
					 "switch: over %u RX queues per worker",
					 SW_MAX_RXQ);
				return -1;
			}
			rq = &wk->rxq[wk->n_rxq++];
			rq->port = (uint16_t)p;
			rq->queue = (uint16_t)q;
			rq->finite = env->ports[p].finite_rx;
			rq->head_tc = -1;
		}
	}
	return 0;
}

static void sw_fini(void *st);

/* Virtual time needs pcap inputs; set the egress step and peer delays. */
static int
vt_setup(struct sw *sw, char *err, size_t errlen)
{
	const struct aifab_profile *prof = sw->env.prof;
	unsigned int p;

	sw->vt_step = UINT64_MAX;
	for (p = 0; p < sw->env.n_ports; p++) {
		const struct aifab_port_rt *rt = &sw->env.ports[p];
		uint64_t bucket_ns = (uint64_t)RTE_MAX(prof->qos.shaper_burst_bytes,
			(uint32_t)rt->mtu + 64) * 8000 * sw->n_workers /
			rt->speed_mbps;

		if (!rt->finite_rx || sw->ts_off < 0) {
			snprintf(err, errlen, "%s: [general] virtual_time = "
				 "'true': port %s does not replay a pcap; "
				 "allowed: net_pcap ports with rx_pcap= only",
				 prof->path, rt->name);
			return -1;
		}
		sw->vt_step = RTE_MIN(sw->vt_step, RTE_MAX(bucket_ns / 2, 1u));
		/* Cable both ways at 5 ns/m, then the peer's response time. */
		sw->peer_delay[p] = 10ull * prof->ports[p].cable_m +
			(uint64_t)aifab_pfc_response_quanta(rt->speed_mbps) *
			AIFAB_PFC_QUANTUM_BITS * 1000 / rt->speed_mbps;
	}
	return 0;
}

/* The counter list must name what lib/pkt and lib/qos name. */
static bool
sw_stats_names_ok(void)
{
	char name[64];
	unsigned int k;

	for (k = 1; k < AIFAB_PKT_ERR_MAX; k++) {
		snprintf(name, sizeof(name), "drop_%s", aifab_pkt_err_name(k));
		if (strcmp(name, sw_st_descs[SW_ST_PKT(k)].name) != 0)
			return false;
	}
	for (k = AIFAB_QOS_CTR_ECN_MARKED; k < AIFAB_QOS_CTR_MAX; k++)
		if (k != AIFAB_QOS_CTR_QUEUE_HWM_BYTES &&
		    strcmp(aifab_qos_ctr_name(k),
			   sw_st_descs[sw_st_qos(k)].name) != 0)
			return false;
	return true;
}

/* The "sw" set ("sw_<name>" for a named switch instance): one block per
 * worker, labelled with its lcore. */
static int
sw_stats_setup(struct sw *sw, char *err, size_t errlen)
{
	const char *names[AIFAB_MAX_PORTS];
	char set_name[AIFAB_NAME_LEN + 4];
	struct aifab_stats_params sp = {
		.name = set_name, .descs = sw_st_descs, .n_descs = sw_st_N,
		.n_ports = sw->env.n_ports, .port_names = names,
		.n_tcs = AIFAB_QOS_N_TC, .n_blocks = sw->n_workers,
		.block_lcore = sw->env.worker_lcores,
		.tsc_hz = sw->env.tsc_hz,
	};
	unsigned int p, w, id;

	if (!sw_stats_names_ok()) {
		snprintf(err, errlen, "switch: counter list out of step with "
			 "lib/pkt or lib/qos names");
		return -1;
	}
	snprintf(set_name, sizeof(set_name), "sw%s%s",
		 sw->env.sw_name[0] != '\0' ? "_" : "", sw->env.sw_name);
	for (p = 0; p < sw->env.n_ports; p++)
		names[p] = sw->env.ports[p].name;
	sw->stats = aifab_stats_create(&sp);
	if (sw->stats == NULL) {
		snprintf(err, errlen, "switch: cannot create its counters: %s",
			 rte_strerror(rte_errno));
		return -1;
	}
	for (w = 0; w < sw->n_workers; w++) {
		struct sw_worker *wk = &sw->w[w];

		wk->blk = aifab_stats_block(sw->stats, w);
		for (id = 0; id < sw_st_N; id++)
			wk->cb[id] = &wk->blk->v[wk->blk->off[id]];
	}
	/* Mirror lib counters and levels about every millisecond. */
	sw->sync_cycles = RTE_MAX(sw->env.tsc_hz / 1000, (uint64_t)1);
	return 0;
}

static void *
sw_init(const struct aifab_env *env, unsigned int n_workers, char *err,
	size_t errlen)
{
	const struct aifab_profile *prof = env->prof;
	int socket = (int)rte_socket_id(), flag;
	struct sw *sw;
	unsigned int w;

	if (n_workers == 0 || n_workers > AIFAB_MAX_WORKERS) {
		snprintf(err, errlen, "switch: %u workers (allowed 1..%u)",
			 n_workers, AIFAB_MAX_WORKERS);
		return NULL;
	}
	sw = rte_zmalloc_socket("aifab_switch", sizeof(*sw), RTE_CACHE_LINE_SIZE,
				socket);
	if (sw == NULL)
		goto nomem;
	sw->env = *env;
	sw->n_workers = n_workers;
	sw->burst = prof->burst;
	sw->check_csum = prof->check_ip4_csum;
	sw->virtual_time = prof->virtual_time;
	sw->ecn_at_dequeue = prof->qos.ecn_at == AIFAB_ECN_AT_DEQUEUE;
	sw->hz = sw->virtual_time ? SW_VT_HZ : env->tsc_hz;
	sw->peer_pause = sw->virtual_time && prof->pfc.replay_peer_pause;
	sw->ts_off = rte_mbuf_dynfield_lookup(RTE_MBUF_DYNFIELD_TIMESTAMP_NAME,
					      NULL);
	flag = rte_mbuf_dynflag_lookup(RTE_MBUF_DYNFLAG_RX_TIMESTAMP_NAME, NULL);
	sw->ts_flag = flag >= 0 ? RTE_BIT64(flag) : 0;
	if (sw->virtual_time && vt_setup(sw, err, errlen) != 0)
		goto fail;
	sw->groups = rte_zmalloc_socket("aifab_sw_grp",
		sizeof(*sw->groups) * SW_MAX_GROUPS, 0, socket);
	sw->w = rte_zmalloc_socket("aifab_switch_w", sizeof(*sw->w) * n_workers,
				   RTE_CACHE_LINE_SIZE, socket);
	sw->pfc_share = rte_zmalloc_socket("aifab_sw_pfc_share",
		sizeof(*sw->pfc_share) * AIFAB_MAX_PORTS, RTE_CACHE_LINE_SIZE,
		socket);
	if (sw->w == NULL || sw->groups == NULL || sw->pfc_share == NULL)
		goto nomem;
	for (w = 0; w < AIFAB_MAX_PORTS; w++)
		aifab_pfc_share_init(&sw->pfc_share[w]);
	if (sw_stats_setup(sw, err, errlen) != 0 ||
	    rxq_assign(sw, err, errlen) != 0 ||
	    link_check(sw, err, errlen) != 0 ||
	    fib_build(sw, socket, err, errlen) != 0 ||
	    ecmp_setup(sw, err, errlen) != 0 ||
	    link_watch_setup(sw, socket, err, errlen) != 0 ||
	    qos_setup(sw, err, errlen) != 0 ||
	    pfc_setup(sw, err, errlen) != 0)
		goto fail;
	for (w = 0; w < n_workers; w++)
		if (worker_setup(sw, &sw->w[w], w, socket) != 0)
			goto nomem;
	sw->env.worker_lcores = NULL; /* the app's, valid during init only */
	for (w = 0; w < n_workers; w++)
		sw_stats_sync(sw, &sw->w[w]);
	return sw;
nomem:
	snprintf(err, errlen, "switch: out of memory (raise -m)");
fail:
	sw_fini(sw);
	return NULL;
}

/* Instance @p i of counter @p id summed over the workers' blocks. */
static uint64_t
sw_sum(const struct sw *sw, unsigned int id, unsigned int i)
{
	uint64_t v = 0;
	unsigned int w;

	for (w = 0; w < sw->n_workers; w++)
		v += __atomic_load_n(&sw->w[w].cb[id][i], __ATOMIC_RELAXED);
	return v;
}

static void
sw_port_counters(const void *st, struct aifab_port_counters *out)
{
	const struct sw *sw = st;
	unsigned int p;

	memset(out, 0, sizeof(*out) * sw->env.n_ports);
	for (p = 0; p < sw->env.n_ports; p++) {
		out[p].rx_packets = sw_sum(sw, sw_st_rx_pkts, p);
		out[p].rx_bytes = sw_sum(sw, sw_st_rx_bytes, p);
		out[p].tx_packets = sw_sum(sw, sw_st_tx_pkts, p);
		out[p].tx_bytes = sw_sum(sw, sw_st_tx_bytes, p);
	}
}

static void
report_tc(const struct sw *sw, unsigned int p,
	  const struct aifab_report_sink *sink)
{
	const struct sw_egress *eg;
	unsigned int tc, k, w, i;

	for (tc = 0; tc < AIFAB_QOS_N_TC; tc++) {
		uint64_t drops = 0, hwm = 0, paused;

		i = p * AIFAB_QOS_N_TC + tc;
		for (k = 0; k < AIFAB_QOS_CTR_MAX; k++) {
			uint64_t v;

			if (k == AIFAB_QOS_CTR_QUEUE_HWM_BYTES)
				continue;
			v = sw_sum(sw, sw_st_qos(k), i);
			/* tail drops only: the ECN drop of a Not-ECT packet
			 * has its own counter (ecn_drop_not_ect) */
			if (k >= AIFAB_QOS_CTR_DROPS &&
			    k != aifab_qos_drop_ctr(AIFAB_QOS_DROP_ECN_NOT_ECT))
				drops += v;
			sink->port_tc_u64(sink->ctx, (uint16_t)p, tc,
					  aifab_qos_ctr_name(k), v);
		}
		for (w = 0; w < sw->n_workers; w++)
			hwm = RTE_MAX(hwm, (uint64_t)sw->w[w].eg[p].q[tc]->hwm_bytes);
		sink->port_tc_u64(sink->ctx, (uint16_t)p, tc, "queue_hwm_bytes",
				  hwm);
		sink->port_tc_u64(sink->ctx, (uint16_t)p, tc, "tail_drops", drops);
		/* PFC, per priority = TC. */
		for (w = 0, k = 0; k < AIFAB_PFC_CNT_MAX; k++) {
			uint64_t v = 0;

			for (w = 0; w < sw->n_workers; w++) {
				eg = &sw->w[w].eg[p];
				v += eg->pfc_gen.stats.v[k][tc] +
				     eg->pfc_rx.stats.v[k][tc] +
				     eg->wd.stats.v[k][tc];
			}
			sink->port_tc_u64(sink->ctx, (uint16_t)p, tc,
					  aifab_pfc_cnt_name(k), v);
		}
		sink->port_tc_u64(sink->ctx, (uint16_t)p, tc, "pfcwd_drops",
				  sw_sum(sw, sw_st_pfcwd_drops, i));
		/* 64 bits: in ns a 32-bit sum wraps after 4.3 s of pause */
		for (w = 0, paused = 0; w < sw->n_workers; w++)
			paused = RTE_MAX(paused,
				aifab_pfc_rx_paused_ns(&sw->w[w].eg[p].pfc_rx,
						       tc, sw->w[w].now));
		sink->port_tc_u64(sink->ctx, (uint16_t)p, tc, "paused_ns",
				  paused);
	}
}

static void
report_ecmp(const struct sw *sw, const struct aifab_report_sink *sink)
{
	const struct aifab_profile *prof = sw->env.prof;
	char name[64], member[96], a[INET6_ADDRSTRLEN];
	unsigned int r, k, w;

	/* Route groups follow the neighbour groups, in profile order. */
	for (r = 0; r < prof->n_routes; r++) {
		const struct aifab_route_params *rt = &prof->routes[r];
		uint32_t g = prof->n_neighs + r;

		inet_ntop(rt->family, rt->prefix, a, sizeof(a));
		snprintf(name, sizeof(name), "%s/%u", a, rt->depth);
		for (k = 0; k < rt->n_nh; k++) {
			const struct aifab_neigh_params *n =
				&prof->neighs[rt->nh_neigh[k]];
			uint64_t pk = 0, by = 0, down = 0, rm = 0, rb = 0;

			/* Each worker follows every link event itself: the
			 * events are the most any worker saw, not a sum. */
			for (w = 0; w < sw->n_workers; w++) {
				const struct sw_ecmp_ctr *c = &sw->w[w].ecmp[g];

				pk += c->packets[k];
				by += c->bytes[k];
				down = RTE_MAX(down, c->down_events[k]);
				rm = RTE_MAX(rm, c->remaps);
				rb = RTE_MAX(rb, c->remap_buckets);
			}
			inet_ntop(n->family, n->addr, a, sizeof(a));
			snprintf(member, sizeof(member), "%s via %s",
				 prof->ports[n->port].name, a);
			sink->ecmp_member(sink->ctx, name, member, pk, by);
			if (sink->ecmp_member_link != NULL)
				sink->ecmp_member_link(sink->ctx, down, rm, rb);
		}
	}
}

static void
sw_report(const void *st, const struct aifab_report_sink *sink)
{
	const struct sw *sw = st;
	unsigned int p, id, w;
	uint64_t v;

	if (sink->switch_begin != NULL)
		sink->switch_begin(sink->ctx, sw->env.sw_name);
	for (p = 0; p < sw->env.n_ports; p++) {
		if (other_switch(&sw->env, p))
			continue; /* that switch reports it */
		/* Every drop_* in list order: the parser's, then the switch's. */
		for (id = 0; id < sw_st_N; id++)
			if (strncmp(sw_st_descs[id].name, "drop_", 5) == 0)
				sink->port_u64(sink->ctx, (uint16_t)p, "drops",
					       sw_st_descs[id].name + 5,
					       sw_sum(sw, id, p));
		for (id = sw_st_rx_vlan_tagged; id <= sw_st_rx_pause_frames;
		     id++)
			sink->port_u64(sink->ctx, (uint16_t)p, "seen",
				       sw_st_descs[id].name, sw_sum(sw, id, p));
		for (id = sw_st_fault_ce_marked;
		     id <= sw_st_fault_pfc_storm_frames; id++)
			if (sw_sum(sw, id, p) != 0)
				sink->port_u64(sink->ctx, (uint16_t)p, "fault",
					       sw_st_descs[id].name + 6,
					       sw_sum(sw, id, p));
		for (w = 0, v = 0; w < sw->n_workers; w++)
			v = RTE_MAX(v, sw->w[w].port_down_events[p]);
		if (v != 0) /* the most any worker saw (each sees every one) */
			sink->port_u64(sink->ctx, (uint16_t)p, "link",
				       "down_events", v);
		report_tc(sw, p, sink);
	}
	report_ecmp(sw, sink);
}

static struct aifab_stats_set *
sw_stats(const void *st)
{
	return ((const struct sw *)st)->stats;
}

/*
 * Lossless packets dropped because the PFC headroom was full mean the
 * headroom is too small for what arrives after XOFF: say so loudly, once,
 * at the end of the run (per ingress port and TC, the priority group).
 */
static void
sw_warn_headroom(const struct sw *sw)
{
	const struct aifab_profile *prof = sw->env.prof;
	unsigned int p, prio, w;

	for (p = 0; p < sw->env.n_ports; p++) {
		const struct aifab_port_rt *rt = &sw->env.ports[p];

		if (other_switch(&sw->env, p))
			continue;
		for (prio = 0; prio < AIFAB_PFC_NUM_PRIO; prio++) {
			uint64_t n = 0;

			for (w = 0; w < sw->n_workers; w++)
				n += sw->w[w].eg[p].pfc_gen.stats.v[
					AIFAB_PFC_CNT_HEADROOM_OVERFLOW][prio];
			if (n == 0)
				continue;
			fprintf(stderr, "WARNING: switch%s%s: port %s TC %u "
				"(802.1p priorities 0x%02x): headroom_overflow = "
				"%" PRIu64 ": lossless packets dropped with the "
				"PFC headroom full: "
				"headroom is misconfigured (%" PRIu64 " bytes "
				"configured, %" PRIu64 " needed for %u Mb/s, "
				"cable_m %u, MTU %u: aifab_pfc_headroom_bytes(); "
				"set [port.%s] or [tc.%u] pfc_headroom_bytes to "
				"0 or larger)\n",
				sw->env.sw_name[0] != '\0' ? " " : "",
				sw->env.sw_name, rt->name, prio,
				sw->prios_of_tc[prio], n,
				(uint64_t)sw->pfc_gen[p].prio[prio]
					.headroom_bytes * sw->n_workers,
				aifab_pfc_headroom_bytes(rt->speed_mbps,
					prof->ports[p].cable_m, rt->mtu),
				rt->speed_mbps, prof->ports[p].cable_m,
				rt->mtu, rt->name, prio);
		}
	}
}

static void
sw_fini(void *st)
{
	struct sw *sw = st;
	unsigned int w;

	if (sw == NULL)
		return;
	if (sw->w != NULL)
		sw_warn_headroom(sw);
	if (sw->w != NULL)
		for (w = 0; w < sw->n_workers; w++)
			worker_free(sw, &sw->w[w]);
	aifab_fib_free(sw->fib);
	aifab_stats_free(sw->stats);
	rte_free(sw->groups);
	rte_free(sw->multi);
	rte_free(sw->pfc_share);
	rte_free(sw->w);
	rte_free(sw);
}

const struct aifab_pipeline_ops aifab_switch_ops = {
	.name = "switch",
	.init = sw_init,
	.poll = sw_poll,
	.drain = sw_drain,
	.done = sw_done,
	.idle = sw_idle,
	.port_counters = sw_port_counters,
	.report = sw_report,
	.fini = sw_fini,
	.stats = sw_stats,
};
