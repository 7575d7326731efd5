/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Switch set-up from the profile, what all workers read: the FIB and its
 * ECMP groups, the ECMP hash, QoS (classification, ECN, scheduler,
 * shaper), the PFC headroom reserve, PFC thresholds and the watchdog, and
 * the virtual-time parameters. Per-worker state: switch_worker.c.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include <rte_errno.h>
#include <rte_jhash.h>
#include <rte_malloc.h>

#include "switch_priv.h"

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

static int
cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

/*
 * The FIB's sizes from what this switch holds: its entries per family
 * (port subnets and addresses, neighbours, routes) and rte_fib's tbl8
 * groups. An IPv4 entry longer than /24 takes the group of its /24, so
 * the distinct /24s under such entries are exactly what DIR24_8 needs (a
 * group per route would take 1 KiB per route at 4-byte next hops: 100 MB
 * for 100k routes). An IPv6 entry of depth d > 24 takes at most
 * ceil(d / 8) - 3 groups of the TRIE (one per byte past the 24 bits of
 * its tbl24), plus one spare the TRIE wants.
 */
static uint32_t
tbl8s6_of(uint8_t depth)
{
	return depth > 24 ? (depth + 7u) / 8u - 3u : 0;
}

static int
fib_sizes(const struct sw *sw, struct aifab_fib_params *fp)
{
	const struct aifab_profile *prof = sw->env.prof;
	uint32_t n4 = 0, n6 = 0, n24 = 0, t6 = 1, cap, i, u;
	uint32_t *s24;

	cap = prof->n_routes + prof->n_neighs + 2u * prof->n_ports;
	s24 = malloc(sizeof(*s24) * RTE_MAX(cap, 1u));
	if (s24 == NULL)
		return -1;
	for (i = 0; i < prof->n_ports; i++) {
		const struct aifab_port_params *pp = &prof->ports[i];

		if (sw_other_switch(&sw->env, i))
			continue;
		if (pp->has_ip4) {
			n4 += 2;
			s24[n24++] = pp->ip4 >> 8; /* its /32 */
		}
		if (pp->has_ip6) {
			n6 += 2;
			t6 += tbl8s6_of(pp->ip6_depth) + tbl8s6_of(128);
		}
	}
	for (i = 0; i < prof->n_neighs; i++) {
		const struct aifab_neigh_params *n = &prof->neighs[i];

		if (n->family == AF_INET) {
			n4++;
			s24[n24++] = v4_host(n->addr) >> 8;
		} else {
			n6++;
			t6 += tbl8s6_of(128);
		}
	}
	for (i = 0; i < prof->n_routes; i++) {
		const struct aifab_route_params *r = &prof->routes[i];

		if (r->family != AF_INET) {
			n6++;
			t6 += tbl8s6_of(r->depth);
			continue;
		}
		n4++;
		if (r->depth > 24)
			s24[n24++] = v4_host(r->prefix) >> 8;
	}
	qsort(s24, n24, sizeof(*s24), cmp_u32);
	for (i = 0, u = 0; i < n24; i++)
		u += i == 0 || s24[i] != s24[i - 1];
	free(s24);
	/* no table for a family without entries (a Clos is IPv4 only) */
	fp->max_routes4 = n4;
	fp->max_routes6 = n6;
	fp->tbl8s4 = RTE_MAX(u, 1u); /* rte_fib wants one at least */
	fp->tbl8s6 = t6;
	return 0;
}

/*
 * The ECMP groups: one per distinct member list of the FIB's groups
 * (routes over the same next hops in the same order choose alike and
 * see the same link events, so they share one; a 100k-route table over
 * four uplinks has a handful), each target pointing at its group and at
 * its own member counters.
 */
static int
ecmp_groups_build(struct sw *sw, int socket)
{
	const struct aifab_ecmp_profile *ep = &sw->env.prof->ecmp;
	const struct aifab_fib *fib = sw->fib;
	uint32_t n = fib->n_groups, cap = 64, mask, t, eg;
	uint32_t *idx = NULL, *first = NULL;
	int rc = -1;

	while (cap < 2 * n)
		cap *= 2;
	mask = cap - 1;
	sw->n_groups = n;
	sw->tgt = rte_zmalloc_socket("aifab_sw_tgt", sizeof(*sw->tgt) *
				     RTE_MAX(n, 1u), 0, socket);
	idx = calloc(cap, sizeof(*idx));
	first = malloc(sizeof(*first) * RTE_MAX(n, 1u));
	if (sw->tgt == NULL || idx == NULL || first == NULL)
		goto out;
	for (t = 0; t < n; t++) {
		const struct aifab_fib_group *fg = aifab_fib_group(fib, t);
		uint32_t key[(sizeof(*fg) + 3) / 4] = { 0 }, h;

		memcpy(key, fg, sizeof(*fg)); /* 4-byte words for jhash */
		h = rte_jhash_32b(key, RTE_DIM(key), 0) & mask;

		while (idx[h] != 0 &&
		       memcmp(aifab_fib_group(fib, first[idx[h] - 1]), fg,
			      sizeof(*fg)) != 0)
			h = (h + 1) & mask;
		if (idx[h] == 0) {
			first[sw->n_egroups] = t;
			idx[h] = ++sw->n_egroups;
		}
		sw->tgt[t].group = idx[h] - 1;
		sw->tgt[t].ctr = sw->n_ctr;
		sw->n_ctr += fg->n;
	}
	sw->groups = rte_zmalloc_socket("aifab_sw_grp", sizeof(*sw->groups) *
					RTE_MAX(sw->n_egroups, 1u), 0, socket);
	if (sw->groups == NULL)
		goto out;
	for (eg = 0; eg < sw->n_egroups; eg++) {
		const struct aifab_fib_group *fg =
			aifab_fib_group(fib, first[eg]);

		if (aifab_ecmp_group_init(&sw->groups[eg], fg->nh, fg->n,
					  ep->buckets, ep->resilient) != 0)
			goto out;
	}
	rc = 0;
out:
	free(idx);
	free(first);
	return rc;
}

int
sw_fib_build(struct sw *sw, int socket, char *err, size_t errlen)
{
	const struct aifab_profile *prof = sw->env.prof;
	char fib_name[24];
	struct aifab_fib_params fp = {
		.name = fib_name, /* LPM names are process-wide: one per instance */
		.socket_id = socket,
		.max_nh = RTE_MAX(prof->n_neighs, 1u),
		/* a group per neighbour and per route (their counters) */
		.max_groups = prof->n_neighs + prof->n_routes + 1,
	};
	uint16_t nh_of[AIFAB_MAX_NEIGHS];
	uint16_t members[AIFAB_MAX_ECMP];
	unsigned int i, k;
	int rc, g;

	snprintf(fib_name, sizeof(fib_name), "aifab_sw%u", sw->env.sw_index);
	if (fib_sizes(sw, &fp) != 0) {
		snprintf(err, errlen, "switch: out of memory sizing the FIB");
		return -1;
	}
	sw->fib = aifab_fib_create(&fp);
	if (sw->fib == NULL) {
		snprintf(err, errlen, "switch: cannot create the FIB for %u "
			 "IPv4 and %u IPv6 entries (%u IPv4 tbl8 groups): %s "
			 "(raise -m)", fp.max_routes4, fp.max_routes6,
			 fp.tbl8s4, rte_strerror(rte_errno));
		return -1;
	}
	for (i = 0; i < prof->n_ports; i++)
		if (!sw_other_switch(&sw->env, i) &&
		    fib_add_port(sw->fib, &prof->ports[i]) != 0)
			goto fail;
	for (i = 0; i < prof->n_neighs; i++) {
		const struct aifab_neigh_params *n = &prof->neighs[i];

		rc = aifab_fib_nh_add(sw->fib, n->port, &n->mac);
		if (rc < 0 || rc >= AIFAB_MAX_NEIGHS)
			goto fail;
		nh_of[i] = (uint16_t)rc;
		sw->nh_port[rc] = n->port;
		memcpy(sw->nh_l2[rc], &n->mac, RTE_ETHER_ADDR_LEN);
		memcpy(sw->nh_l2[rc] + RTE_ETHER_ADDR_LEN,
		       &sw->env.ports[n->port].mac, RTE_ETHER_ADDR_LEN);
		sw->n_nh = RTE_MAX(sw->n_nh, (uint32_t)rc + 1);
		g = aifab_fib_group_add(sw->fib, &nh_of[i], 1);
		if (g < 0 || fib_add_route(sw->fib, n->family, n->addr,
			     n->family == AF_INET ? 32 : 128, (uint32_t)g) != 0)
			goto fail;
	}
	for (i = 0; i < prof->n_routes; i++) {
		const struct aifab_route_params *r = &prof->routes[i];

		for (k = 0; k < r->n_nh; k++)
			members[k] = nh_of[r->nh_neigh[k]];
		g = aifab_fib_group_add(sw->fib, members, r->n_nh);
		if (g < 0 || fib_add_route(sw->fib, r->family, r->prefix,
					   r->depth, (uint32_t)g) != 0)
			goto fail;
	}
	if (ecmp_groups_build(sw, socket) != 0) {
		snprintf(err, errlen, "switch: out of memory for %u ECMP "
			 "targets (raise -m)", sw->fib->n_groups);
		return -1;
	}
	return 0;
fail:
	snprintf(err, errlen, "switch: FIB too small for the profile's routes");
	return -1;
}

int
sw_ecmp_setup(struct sw *sw, char *err, size_t errlen)
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

/* ---- queues, shaper, scheduler, ECN, PFC -------------------------------- */

int
sw_qos_setup(struct sw *sw, char *err, size_t errlen)
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
uint64_t
sw_buf_share(const struct sw *sw)
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
	uint64_t pool = 0, share = sw_buf_share(sw);
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

int
sw_pfc_setup(struct sw *sw, char *err, size_t errlen)
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

/* ---- virtual time ------------------------------------------------------- */

/* Virtual time needs pcap inputs; set the peer delays. */
int
sw_vt_setup(struct sw *sw, char *err, size_t errlen)
{
	const struct aifab_profile *prof = sw->env.prof;
	unsigned int p;

	for (p = 0; p < sw->env.n_ports; p++) {
		const struct aifab_port_rt *rt = &sw->env.ports[p];

		if (!rt->finite_rx || sw->ts_off < 0) {
			snprintf(err, errlen, "%s: [general] virtual_time = "
				 "'true': port %s does not replay a pcap; "
				 "allowed: net_pcap ports with rx_pcap= only",
				 prof->path, rt->name);
			return -1;
		}
		/* Cable both ways at 5 ns/m, then the peer's response time. */
		sw->peer_delay[p] = 10ull * prof->ports[p].cable_m +
			(uint64_t)aifab_pfc_response_quanta(rt->speed_mbps) *
			AIFAB_PFC_QUANTUM_BITS * 1000 / rt->speed_mbps;
	}
	return 0;
}
