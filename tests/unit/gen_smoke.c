/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Generator smoke driver on a fake clock (the TSC values poll() gets are
 * ours: tick by tick, so the run is deterministic).
 *
 *   gen_smoke pcap FILE.pcap   ring AllReduce of 266243 bytes (not a
 *                              multiple of anything), 4 ranks, 2 channels,
 *                              2 QPs,
 *                              through a net_pcap port into FILE.pcap, for
 *                              tests/integration/check_generator.py.
 *   gen_smoke loop             the same over a net_ring vdev (one ring
 *                              for RX and TX: a loop-back): checks against hand-derived
 *                              numbers that nothing is lost, reordered or
 *                              duplicated, every tagged packet gives a
 *                              latency of exactly one tick, and the time
 *                              to send matches bytes-on-the-wire / rate.
 * Exit 0 when every check holds.
 */
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <rte_eal.h>
#include <rte_ethdev.h>
#include <rte_mbuf.h>

#include "aifab_eal.h"
#include "generator.h"

#define TSC_HZ 1000000000ull   /* fake: 1 cycle = 1 ns */
#define TICK 1000ull           /* 1 us per poll */
#define RATE_MBPS 10000
#define N_RANKS 4
#define SIZE (1u << 18)
#define MTU 1024
#define CHANNELS 2
#define QPS 2
#define ITERS 3
#define WARMUP 1

static int fails;

#define CHECK(cond, ...) do { if (!(cond)) { fails++; \
	fprintf(stderr, "gen_smoke: FAIL %s: ", #cond); \
	fprintf(stderr, __VA_ARGS__); fputc('\n', stderr); } } while (0)

static int
port_start(uint16_t pid, struct rte_mempool *mp)
{
	struct rte_eth_conf conf = { 0 };

	if (rte_eth_dev_configure(pid, 1, 1, &conf) != 0 ||
	    rte_eth_rx_queue_setup(pid, 0, 256, 0, NULL, mp) != 0 ||
	    rte_eth_tx_queue_setup(pid, 0, 256, 0, NULL) != 0)
		return -1;
	return rte_eth_dev_start(pid);
}

static void
params(struct aifab_gen_params *p, bool rx)
{
	aifab_gen_params_defaults(p);
	p->n_ranks = N_RANKS;
	/* pcap: a size that leaves remainders and pads everywhere */
	p->size = rx ? SIZE : SIZE + 4099;
	p->n_channels = CHANNELS;
	p->qps_per_conn = QPS;
	p->ib_mtu = MTU;
	p->iterations = ITERS;
	p->warmup = WARMUP;
	p->rate_mbps = RATE_MBPS;
	p->seed = 7;
	p->rx = rx;
	p->mbufs = 4096;
}

/* Bytes on the wire for one rank and one iteration, by hand: every
 * message of b bytes is ceil(b/MTU) packets of 14+20+8+12+4 header bytes
 * plus 16 for the RETH on the first, plus pad, plus 24 of FCS/preamble/IFG.
 * Ring: 2(N-1) steps x C channels x QPS QPs, S/(N C QPS) bytes each. */
static double
wire_bytes_per_rank(void)
{
	uint64_t msg = SIZE / (N_RANKS * CHANNELS * QPS);
	uint64_t pkts = (msg + MTU - 1) / MTU;
	uint64_t per_msg = msg + pkts * (14 + 20 + 8 + 12 + 4 + 24) + 16;

	return (double)(2 * (N_RANKS - 1) * CHANNELS * QPS) * (double)per_msg;
}

static void
run(void *g, uint64_t *now)
{
	unsigned int guard = 0;

	while (!aifab_generator_ops.done(g) && guard++ < 10000000) {
		aifab_generator_ops.poll(g, 0, *now);
		*now += TICK;
	}
	/* Let the last looped-back packets arrive. */
	aifab_generator_ops.poll(g, 0, *now);
	*now += TICK;
	aifab_generator_ops.poll(g, 0, *now);
	aifab_generator_ops.drain(g, 0, *now);
	CHECK(aifab_generator_ops.done(g), "generator not done");
}

static void
check_loop(void *g)
{
	struct aifab_gen_summary s;
	double t_us = wire_bytes_per_rank() * 8 / (RATE_MBPS * 1e6) * 1e6;
	uint64_t pkts_per_msg = (SIZE / (N_RANKS * CHANNELS * QPS) + MTU - 1) /
		MTU;
	uint64_t want_pkts = (uint64_t)N_RANKS * 2 * (N_RANKS - 1) * CHANNELS *
		QPS * pkts_per_msg * (ITERS + WARMUP);

	aifab_gen_summary(g, &s);
	aifab_gen_print_table(g, stdout);
	CHECK(s.iterations == ITERS, "%u iterations", s.iterations);
	CHECK(s.tx_packets == want_pkts, "tx %" PRIu64 " want %" PRIu64,
	      s.tx_packets, want_pkts);
	CHECK(s.rx_roce == want_pkts, "rx %" PRIu64, s.rx_roce);
	CHECK(s.rx_lost == 0 && s.rx_reordered == 0 && s.rx_duplicates == 0 &&
	      s.rx_stale == 0, "lost/reordered/dup/stale %" PRIu64 "/%" PRIu64
	      "/%" PRIu64 "/%" PRIu64, s.rx_lost, s.rx_reordered,
	      s.rx_duplicates, s.rx_stale);
	/* Sent in one poll, received at the start of the next: 1 tick. */
	CHECK(s.lat_count == want_pkts, "%" PRIu64 " latency samples",
	      s.lat_count);
	CHECK(s.lat_min == TICK && s.lat_max == TICK, "latency %" PRIu64
	      "..%" PRIu64 " ns, want %llu", s.lat_min, s.lat_max, TICK);
	/* Paced at RATE_MBPS per rank: within 2% + 2 ticks of the wire time. */
	CHECK(fabs(s.time_us_avg - t_us) <= 0.02 * t_us + 2 * TICK / 1e3,
	      "time %.1f us, want %.1f", s.time_us_avg, t_us);
	CHECK(fabs(s.busbw_gbps - s.algbw_gbps * 2 * (N_RANKS - 1) / N_RANKS)
	      < 1e-9, "busbw %f algbw %f", s.busbw_gbps, s.algbw_gbps);
	CHECK(fabs(s.algbw_gbps - SIZE / (s.time_us_avg * 1e3)) < 1e-9,
	      "algbw %f", s.algbw_gbps);
}

int
main(int argc, char **argv)
{
	char prefix[64], vdev[PATH_MAX + 64], run_dir[PATH_MAX];
	char *eal[] = { argv[0], "--no-huge", "-m", "512", "--no-pci",
			"--file-prefix", prefix, "--log-level=error", "--vdev",
			vdev, NULL };
	int eal_argc = (int)RTE_DIM(eal) - 1;
	bool loop = argc == 2 && strcmp(argv[1], "loop") == 0;
	struct aifab_env env = { .n_ports = 1, .tsc_hz = TSC_HZ };
	static struct aifab_port_rt port0;
	struct aifab_gen_params p;
	struct rte_mempool *mp;
	char err[512];
	uint64_t now = 5 * TSC_HZ;
	void *g;
	int pid;

	if (!loop && !(argc == 3 && strcmp(argv[1], "pcap") == 0)) {
		fprintf(stderr, "usage: %s pcap FILE.pcap | loop\n", argv[0]);
		return 2;
	}
	snprintf(prefix, sizeof(prefix), "aifab-gensmoke-%ld", (long)getpid());
	/* net_ring0 without arguments: RX and TX on one ring, a loop-back. */
	if (loop)
		snprintf(vdev, sizeof(vdev), "net_ring0");
	else
		snprintf(vdev, sizeof(vdev), "net_pcap0,tx_pcap=%s", argv[2]);
	if (rte_eal_init(eal_argc, eal) < 0) {
		fprintf(stderr, "gen_smoke: EAL init failed\n");
		return 1;
	}
	snprintf(run_dir, sizeof(run_dir), "%s", rte_eal_get_runtime_dir());
	mp = rte_pktmbuf_pool_create("smoke_rx", 4095, 256, 0,
				     RTE_MBUF_DEFAULT_BUF_SIZE, 0);
	pid = 0;
	if (mp == NULL || rte_eth_dev_count_avail() != 1 || port_start((uint16_t)pid, mp) != 0) {
		fprintf(stderr, "gen_smoke: port set-up failed\n");
		return 1;
	}
	env.ports = &port0;
	env.ports[0] = (struct aifab_port_rt){
		.name = "p0", .port_id = (uint16_t)pid, .nb_rxq = 1,
		.nb_txq = 1, .mtu = 9000, .speed_mbps = 100000, .pool = mp,
	};
	params(&p, loop);
	g = aifab_gen_create(&env, &p, 1, err, sizeof(err));
	if (g == NULL) {
		fprintf(stderr, "gen_smoke: %s\n", err);
		return 1;
	}
	run(g, &now);
	if (loop)
		check_loop(g);
	else
		aifab_gen_print_table(g, stdout);
	aifab_generator_ops.fini(g);
	rte_eth_dev_stop((uint16_t)pid);
	rte_eth_dev_close((uint16_t)pid);
	rte_mempool_free(mp);
	rte_eal_cleanup();
	aifab_eal_remove_runtime_dir(run_dir);
	printf("gen_smoke %s: %s\n", argv[1], fails ? "FAILED" : "OK");
	return fails ? 1 : 0;
}
