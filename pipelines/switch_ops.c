/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The leaf switch pipeline: its ops table, and init / fini gluing the
 * set-up steps together. The files and how they call each other: see
 * switch_priv.h.
 */
#include <assert.h>
#include <stdio.h>

#include <rte_lcore.h>
#include <rte_malloc.h>
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

static struct aifab_stats_set *
sw_stats(const void *st)
{
	return ((const struct sw *)st)->stats;
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
			sw_worker_free(sw, &sw->w[w]);
	aifab_fib_free(sw->fib);
	aifab_stats_free(sw->stats);
	rte_free(sw->groups);
	rte_free(sw->tgt);
	rte_free(sw->multi);
	rte_free(sw->pfc_share);
	rte_free(sw->w);
	rte_free(sw);
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
	/* Per-port state is sized for one switch (a big fabric gives each
	 * instance only its own ports: app/main.c). */
	if (env->n_ports > AIFAB_SW_MAX_PORTS) {
		snprintf(err, errlen, "switch: %u ports (allowed 1..%u)",
			 env->n_ports, AIFAB_SW_MAX_PORTS);
		return NULL;
	}
	sw = rte_zmalloc_socket("aifab_switch", sizeof(*sw), RTE_CACHE_LINE_SIZE,
				socket);
	if (sw == NULL)
		goto nomem;
	sw->env = *env;
	sw->n_workers = n_workers;
	sw->burst = prof->burst;
	sw->mtu_min = UINT32_MAX;
	for (w = 0; w < env->n_ports; w++)
		sw->mtu_min = RTE_MIN(sw->mtu_min, (uint32_t)env->ports[w].mtu);
	sw->check_csum = prof->check_ip4_csum;
	sw->virtual_time = prof->virtual_time;
	sw->vclock = prof->clock == AIFAB_CLOCK_VIRTUAL && !prof->virtual_time;
	sw->ecn_at_dequeue = prof->qos.ecn_at == AIFAB_ECN_AT_DEQUEUE;
	sw->hz = sw->virtual_time ? SW_VT_HZ : env->tsc_hz;
	if (sw->hz != 0)
		sw->hz_rcp = rte_reciprocal_value_u64(sw->hz);
	sw->peer_pause = sw->virtual_time && prof->pfc.replay_peer_pause;
	sw->ts_off = rte_mbuf_dynfield_lookup(RTE_MBUF_DYNFIELD_TIMESTAMP_NAME,
					      NULL);
	flag = rte_mbuf_dynflag_lookup(RTE_MBUF_DYNFLAG_RX_TIMESTAMP_NAME, NULL);
	sw->ts_flag = flag >= 0 ? RTE_BIT64(flag) : 0;
	sw->stamp = sw->ts_off >= 0 && !env->stamps_unread;
	if (sw->virtual_time && sw_vt_setup(sw, err, errlen) != 0)
		goto fail;
	sw->w = rte_zmalloc_socket("aifab_switch_w", sizeof(*sw->w) * n_workers,
				   RTE_CACHE_LINE_SIZE, socket);
	sw->pfc_share = rte_zmalloc_socket("aifab_sw_pfc_share",
		sizeof(*sw->pfc_share) * AIFAB_SW_MAX_PORTS, RTE_CACHE_LINE_SIZE,
		socket);
	if (sw->w == NULL || sw->pfc_share == NULL)
		goto nomem;
	for (w = 0; w < AIFAB_SW_MAX_PORTS; w++)
		aifab_pfc_share_init(&sw->pfc_share[w]);
	if (sw_stats_setup(sw, err, errlen) != 0 ||
	    sw_rxq_assign(sw, err, errlen) != 0 ||
	    sw_link_check(sw, err, errlen) != 0 ||
	    sw_fib_build(sw, socket, err, errlen) != 0 ||
	    sw_ecmp_setup(sw, err, errlen) != 0 ||
	    sw_link_watch_setup(sw, socket, err, errlen) != 0 ||
	    sw_qos_setup(sw, err, errlen) != 0 ||
	    sw_pfc_setup(sw, err, errlen) != 0)
		goto fail;
	for (w = 0; w < n_workers; w++)
		if (sw_worker_setup(sw, &sw->w[w], w, socket) != 0)
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
	.next_event = sw_next_event,
	.next_event_exact = sw_next_event_exact,
};
