/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The switch's counters (switch_stats.h): the "sw" set and the workers'
 * blocks (set-up), the mirror of lib/pfc, lib/qos and lib/fault counters
 * into them (sync), and what the app reads: port counters, the report,
 * the end-of-run headroom warning.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <arpa/inet.h>

#include <rte_errno.h>

#include "switch_priv.h"

/* ---- set-up ------------------------------------------------------------- */

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
int
sw_stats_setup(struct sw *sw, char *err, size_t errlen)
{
	const char *names[AIFAB_SW_MAX_PORTS];
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
	sw->sync_cycles = sw->env.stats_sync != 0 ? sw->env.stats_sync :
		RTE_MAX(sw->env.tsc_hz / 1000, (uint64_t)1);
	return 0;
}

/* ---- sync --------------------------------------------------------------- */

/* ns to TSC cycles without overflow (paused time is in ns in any clock). */
static uint64_t
sw_ns_to_tsc(uint64_t ns, uint64_t hz)
{
	if (hz == NS_PER_S) /* the whole-process virtual clock: ns */
		return ns;
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

/* sw_stats_sync() of port @p p. */
static void
sw_stats_sync_port(struct sw *sw, struct sw_worker *wk, unsigned int p,
		   uint8_t tcs)
{
	uint64_t *const *cb = wk->cb;
	const struct sw_egress *eg = &wk->eg[p];
	const struct aifab_pfc_stats *g = &eg->pfc_gen.stats;
	const struct aifab_pfc_stats *r = &eg->pfc_rx.stats;
	const struct aifab_pfc_stats *wd = &eg->wd.stats;
	unsigned int tc, i;
	uint64_t any = 0;

	/* Every PFC counter only grows from the block's 0, and a priority
	 * never received PFC for (its pfc_rx count 0) was never paused:
	 * with all of these 0 the mirrors hold 0 already (the usual port
	 * of a run without PFC; 8 lines not written) */
	for (tc = 0; tc < AIFAB_QOS_N_TC; tc++)
		any |= g->v[AIFAB_PFC_CNT_XOFF_SENT][tc] |
			g->v[AIFAB_PFC_CNT_XON_SENT][tc] |
			g->v[AIFAB_PFC_CNT_HEADROOM_OVERFLOW][tc] |
			r->v[AIFAB_PFC_CNT_RX][tc] |
			wd->v[AIFAB_PFC_CNT_WD_STORMS][tc] |
			wd->v[AIFAB_PFC_CNT_WD_RESTORED][tc];
	for (tc = 0; any != 0 && tc < AIFAB_QOS_N_TC; tc++) {
		i = p * AIFAB_QOS_N_TC + tc;
		cb[sw_st_pfc_xoff_sent][i] = g->v[AIFAB_PFC_CNT_XOFF_SENT][tc];
		cb[sw_st_pfc_xon_sent][i] = g->v[AIFAB_PFC_CNT_XON_SENT][tc];
		cb[sw_st_pfc_tx][i] = g->v[AIFAB_PFC_CNT_XOFF_SENT][tc] +
			g->v[AIFAB_PFC_CNT_XON_SENT][tc];
		cb[sw_st_pfc_headroom_overflow][i] =
			g->v[AIFAB_PFC_CNT_HEADROOM_OVERFLOW][tc];
		cb[sw_st_pfc_rx][i] = r->v[AIFAB_PFC_CNT_RX][tc];
		cb[sw_st_pfcwd_storms][i] = wd->v[AIFAB_PFC_CNT_WD_STORMS][tc];
		cb[sw_st_pfcwd_restored][i] =
			wd->v[AIFAB_PFC_CNT_WD_RESTORED][tc];
		cb[sw_st_pfc_paused_cycles][i] = sw_ns_to_tsc(
			aifab_pfc_rx_paused_ns(&eg->pfc_rx, tc, wk->now),
			sw->env.tsc_hz);
	}
	/* the queue levels of @p tcs (the others' mirrors hold them: each
	 * FIFO's header is a line of its own) */
	for (; tcs != 0; tcs &= tcs - 1) {
		tc = (unsigned int)__builtin_ctz(tcs);
		i = p * AIFAB_QOS_N_TC + tc;
		cb[sw_st_queue_bytes][i] = eg->q[tc]->bytes;
		cb[sw_st_queue_hwm_bytes][i] = eg->q[tc]->hwm_bytes;
	}
}

/*
 * Copy what lib/pfc and lib/qos objects of this worker count (PFC per
 * priority, paused time) and the levels (queues, buffer) into the
 * worker's block. Owner only; about once a millisecond and at stop.
 */
void
sw_stats_sync(struct sw *sw, struct sw_worker *wk)
{
	unsigned int p;

	for (p = 0; p < sw->env.n_ports; p++)
		sw_stats_sync_port(sw, wk, p, 0xff);
	wk->cb[sw_st_buffer_used_bytes][0] = wk->buf->used;
	if (wk->n_links != 0)
		sw_stats_sync_links(sw, wk);
}

/*
 * sw_stats_sync() on the whole-process clock with the summary
 * (vc_act_ok: one worker, no fault stage; the watchdog included), which mirrors
 * once per microsecond of model time: only the ports whose counters may
 * have changed since the last mirror (vc_dirty, which the exact runs
 * collect: queued or dequeued, PFC polled, a frame in) and those whose
 * paused time may still grow (vc_pausing: a pause received and, at the
 * last mirror, not over), and of those the queue levels of the TCs
 * queued on or dequeued from since (tc_dirty). The others' mirrored
 * values are still theirs: the block ends up as sw_stats_sync() would
 * leave it.
 */
void
sw_stats_sync_ports(struct sw *sw, struct sw_worker *wk)
{
	uint64_t ports = (wk->vc_dirty | wk->vc_pausing), m;
	unsigned int p;

	for (m = wk->vc_pausing; m != 0; m &= m - 1) {
		p = (unsigned int)__builtin_ctzll(m);
		if (wk->pause_end[p] <= wk->now)
			wk->vc_pausing &= ~(UINT64_C(1) << p);
	}
	wk->vc_dirty = 0;
	for (m = ports; m != 0; m &= m - 1) {
		p = (unsigned int)__builtin_ctzll(m);
		if (p >= sw->env.n_ports)
			break;
		sw_stats_sync_port(sw, wk, p, wk->eg[p].tc_dirty);
		wk->eg[p].tc_dirty = 0;
	}
	wk->cb[sw_st_buffer_used_bytes][0] = wk->buf->used;
}

/* ---- report ------------------------------------------------------------- */

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

void
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

/*
 * Routes the report lists one by one: all of them up to this many (every
 * table the INI keys could hold before route files); past it, only those
 * that carried a frame or saw a link event (a 100k-route table would
 * otherwise print 100k idle rows).
 */
#define SW_REPORT_ALL_ROUTES 1024

static bool
route_used(const struct sw *sw, const struct sw_target *t, unsigned int n)
{
	unsigned int w, k;

	for (w = 0; w < sw->n_workers; w++) {
		if (sw->w[w].elink[t->group].remaps != 0)
			return true;
		for (k = 0; k < n; k++)
			if (sw->w[w].ectr[2 * (t->ctr + k)] != 0)
				return true;
	}
	return false;
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
		const struct sw_target *t = &sw->tgt[prof->n_neighs + r];

		if (prof->n_routes > SW_REPORT_ALL_ROUTES &&
		    !route_used(sw, t, rt->n_nh))
			continue;
		inet_ntop(rt->family, rt->prefix, a, sizeof(a));
		snprintf(name, sizeof(name), "%s/%u", a, rt->depth);
		for (k = 0; k < rt->n_nh; k++) {
			const struct aifab_neigh_params *n =
				&prof->neighs[rt->nh_neigh[k]];
			uint64_t pk = 0, by = 0, down = 0, rm = 0, rb = 0;

			/* Each worker follows every link event itself: the
			 * events are the most any worker saw, not a sum. */
			for (w = 0; w < sw->n_workers; w++) {
				const uint64_t *ct =
					&sw->w[w].ectr[2 * (t->ctr + k)];
				const struct sw_ecmp_link *lk =
					&sw->w[w].elink[t->group];

				pk += ct[0];
				by += ct[1];
				down = RTE_MAX(down, lk->down_events[k]);
				rm = RTE_MAX(rm, lk->remaps);
				rb = RTE_MAX(rb, lk->remap_buckets);
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

void
sw_report(const void *st, const struct aifab_report_sink *sink)
{
	const struct sw *sw = st;
	unsigned int p, id, w;
	uint64_t v;

	if (sink->switch_begin != NULL)
		sink->switch_begin(sink->ctx, sw->env.sw_name);
	for (p = 0; p < sw->env.n_ports; p++) {
		if (sw_other_switch(&sw->env, p))
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

/*
 * Lossless packets dropped because the PFC headroom was full mean the
 * headroom is too small for what arrives after XOFF: say so loudly, once,
 * at the end of the run (per ingress port and TC, the priority group).
 */
void
sw_warn_headroom(const struct sw *sw)
{
	const struct aifab_profile *prof = sw->env.prof;
	unsigned int p, prio, w;

	for (p = 0; p < sw->env.n_ports; p++) {
		const struct aifab_port_rt *rt = &sw->env.ports[p];

		if (sw_other_switch(&sw->env, p))
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
