/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Switch set-up, per worker: its RX queues, its slice of the buffer and
 * its queues, shaper, scheduler and PFC state per port, its copy of the
 * ECMP groups, and the ports' fault stages (lib/fault); freed at fini.
 */
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>

#include <rte_eal.h>
#include <rte_malloc.h>

#include "switch_priv.h"

/* ---- queue FIFOs -------------------------------------------------------- */

/*
 * A (port, TC) FIFO holds a slot per cell of the whole buffer, so most
 * of it is never written. Without hugepages (--no-huge: the in-memory
 * fabrics, tests) DPDK's heap is ordinary pages faulted in on first
 * touch, and rte_free() zeroes what it frees, which touched every page
 * of every FIFO at teardown (the 1024-rank Clos peaked at 8 GB there):
 * there the FIFOs are anonymous pages of their own, unmapped at the
 * end, never zeroed (they hold mbuf pointers only, nothing a device
 * reads; the mapping's size is kept in front). With hugepages the heap
 * is resident already and a datapath must not fault: DPDK's heap.
 */
#define FIFO_HDR RTE_CACHE_LINE_SIZE

static void *
fifo_alloc(size_t sz, int socket)
{
	void *m;

	if (rte_eal_has_hugepages())
		return rte_zmalloc_socket("aifab_sw_q", sz, RTE_CACHE_LINE_SIZE,
					  socket);
	m = mmap(NULL, sz + FIFO_HDR, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (m == MAP_FAILED)
		return NULL;
	*(size_t *)m = sz + FIFO_HDR;
	return (char *)m + FIFO_HDR;
}

static void
fifo_free(void *f)
{
	char *m;

	if (f == NULL)
		return;
	if (rte_eal_has_hugepages()) {
		rte_free(f);
		return;
	}
	m = (char *)f - FIFO_HDR;
	munmap(m, *(size_t *)m);
}

/* ---- RX queues ---------------------------------------------------------- */

/* RX queue q of each of this switch's ports to worker q mod n. */
int
sw_rxq_assign(struct sw *sw, char *err, size_t errlen)
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
int
sw_link_check(const struct sw *sw, char *err, size_t errlen)
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
			if (aifab_link_init(l, &lp, (w * AIFAB_SW_MAX_PORTS + p) * 2
					    + d, socket) != 0)
				return -1;
		}
	return 0;
}

static void
link_free(struct sw_worker *wk)
{
	unsigned int p, d;

	for (p = 0; p < AIFAB_SW_MAX_PORTS; p++)
		for (d = 0; d < 2; d++)
			if (wk->link[p][d] != NULL) {
				aifab_link_fini(wk->link[p][d]);
				rte_free(wk->link[p][d]);
				wk->link[p][d] = NULL;
			}
	wk->n_links = 0;
}

/* ---- a worker's egress model -------------------------------------------- */

int
sw_worker_setup(struct sw *sw, struct sw_worker *wk, unsigned int w,
		int socket)
{
	const struct aifab_profile *prof = sw->env.prof;
	/* The shared pool is what the PFC headroom reserve leaves. */
	struct aifab_qos_buf_params bp = {
		.size_bytes = sw_buf_share(sw) - sw->hr_pool,
		.headroom_bytes = sw->hr_pool,
		.n_queues = (uint32_t)sw->env.n_ports * AIFAB_QOS_N_TC,
	};
	uint32_t cap = (uint32_t)RTE_MIN(RTE_MAX(
		rte_align64pow2(sw_buf_share(sw) / SW_CELL), (uint64_t)SW_FIFO_MIN),
		(uint64_t)SW_FIFO_MAX);
	size_t fsz = aifab_qos_fifo_memsize(cap);
	const char *why;
	unsigned int p, tc;

	aifab_rng_seed(&wk->rng, prof->seed, w);
	wk->txq = (uint16_t)w;
	wk->buf = rte_zmalloc_socket("aifab_sw_buf",
				     aifab_qos_buf_memsize(bp.n_queues), 0,
				     socket);
	wk->ectr = rte_zmalloc_socket("aifab_sw_ectr", sizeof(*wk->ectr) * 2 *
				      RTE_MAX(sw->n_ctr, 1u), 0, socket);
	wk->elink = rte_zmalloc_socket("aifab_sw_elink", sizeof(*wk->elink) *
				       RTE_MAX(sw->n_egroups, 1u), 0, socket);
	wk->groups = rte_malloc_socket("aifab_sw_wgrp",
		sizeof(*wk->groups) * RTE_MAX(sw->n_egroups, 1u), 0, socket);
	if (wk->buf == NULL || wk->ectr == NULL || wk->elink == NULL ||
	    wk->groups == NULL || aifab_qos_buf_init(wk->buf, &bp, &why) != 0)
		return -1;
	memcpy(wk->groups, sw->groups, sizeof(*wk->groups) * sw->n_egroups);
	for (p = 0; p < sw->env.n_ports; p++) {
		struct sw_egress *eg = &wk->eg[p];
		/* Another instance's port is never routed to: smallest FIFOs. */
		bool other = sw_other_switch(&sw->env, p);
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
			eg->q[tc] = fifo_alloc(psz, socket);
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

void
sw_worker_free(struct sw *sw, struct sw_worker *wk)
{
	unsigned int p, tc;

	sw_flush_queues(sw, wk);
	for (p = 0; p < sw->env.n_ports; p++) {
		for (tc = 0; tc < AIFAB_QOS_N_TC; tc++)
			fifo_free(wk->eg[p].q[tc]);
		for (tc = 0; tc < wk->tx[p].n; tc++)
			rte_pktmbuf_free(wk->tx[p].pkts[tc]);
		wk->tx[p].n = 0;
	}
	link_free(wk);
	rte_free(wk->buf);
	rte_free(wk->ectr);
	rte_free(wk->elink);
	rte_free(wk->groups);
}
