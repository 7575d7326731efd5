/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Shared by the libFuzzer targets in tests/fuzz: a private --no-huge EAL,
 * an mbuf pool, mbuf chains built from fuzz bytes, a byte reader, and
 * FUZZ_ASSERT (abort: libFuzzer records the input as a crash).
 *
 * Everything here is static: each target is one translation unit.
 */
#ifndef AIFAB_FUZZ_COMMON_H
#define AIFAB_FUZZ_COMMON_H

#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <rte_common.h>
#include <rte_eal.h>
#include <rte_mbuf.h>
#include <rte_mempool.h>

#include "aifab_eal.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define FUZZ_ASSERT(cond) do { \
	if (!(cond)) { \
		fprintf(stderr, "%s:%d: invariant failed: %s\n", __FILE__, \
			__LINE__, #cond); \
		abort(); \
	} } while (0)

/* Reads bytes off the front of the input; past the end reads zeros. */
struct fuzz_in {
	const uint8_t *p;
	size_t n;
};

static inline uint8_t
fuzz_u8(struct fuzz_in *in)
{
	uint8_t v = 0;

	if (in->n > 0) {
		v = *in->p++;
		in->n--;
	}
	return v;
}

static inline uint16_t
fuzz_u16(struct fuzz_in *in)
{
	uint16_t v = (uint16_t)(fuzz_u8(in) << 8);

	return (uint16_t)(v | fuzz_u8(in));
}

static inline uint32_t
fuzz_u32(struct fuzz_in *in)
{
	uint32_t v = (uint32_t)fuzz_u16(in) << 16;

	return v | fuzz_u16(in);
}

/* Up to @p want bytes; *got says how many there were. */
static inline const uint8_t *
fuzz_bytes(struct fuzz_in *in, size_t want, size_t *got)
{
	const uint8_t *p = in->p;

	*got = RTE_MIN(want, in->n);
	in->p += *got;
	in->n -= *got;
	return p;
}

/* EAL's runtime directory (fuzz_eal() only). */
static char fuzz_run_dir[PATH_MAX] __rte_unused;

static inline void
fuzz_eal_cleanup_cb(void)
{
	rte_eal_cleanup();
	aifab_eal_remove_runtime_dir(fuzz_run_dir);
}

/* Start a private EAL once (no hugepages, no PCI, own file prefix). */
static inline void
fuzz_eal(const char *name)
{
	if (aifab_eal_init_private(name, fuzz_run_dir,
				   sizeof(fuzz_run_dir)) != 0) {
		fprintf(stderr, "%s: EAL init failed\n", name);
		abort();
	}
	/* EAL leaves megabytes per file prefix: remove them at exit. */
	atexit(fuzz_eal_cleanup_cb);
}

/*
 * fuzz_eal() with @p mb MB of (no-huge) memory instead of lib/eal's 256:
 * for targets that keep several switches (a 16 MB-entry LPM table each).
 */
static inline void
fuzz_eal_mem(const char *name, unsigned int mb)
{
	char prefix[64], mem[16];
	char *argv[] = { (char *)(uintptr_t)name, "--no-huge", "-m", mem,
			 "--no-pci", "--file-prefix", prefix,
			 "--log-level=error", NULL };

	snprintf(mem, sizeof(mem), "%u", mb);
	snprintf(prefix, sizeof(prefix), "aifab-%s-%ld", name, (long)getpid());
	if (rte_eal_init((int)RTE_DIM(argv) - 1, argv) < 0) {
		fprintf(stderr, "%s: EAL init failed\n", name);
		abort();
	}
	snprintf(fuzz_run_dir, sizeof(fuzz_run_dir), "%s",
		 rte_eal_get_runtime_dir());
	atexit(fuzz_eal_cleanup_cb);
}

/*
 * Segment sizes of a chain: @p seg_seed picks how @p len bytes are cut
 * (0: one segment when it fits; else pseudo-random cuts of 1..N bytes).
 */
static inline struct rte_mbuf *
fuzz_mbuf_chain(struct rte_mempool *mp, const uint8_t *buf, uint32_t len,
		uint8_t seg_seed)
{
	struct rte_mbuf *head = NULL, *m;
	uint32_t off = 0, room, cut, x = seg_seed * 2654435761u + 1;

	do {
		m = rte_pktmbuf_alloc(mp);
		if (m == NULL)
			goto fail;
		room = rte_pktmbuf_tailroom(m);
		if (seg_seed == 0) {
			cut = RTE_MIN(len - off, room);
		} else {
			x = x * 1103515245u + 12345u;
			/* small cuts first: headers split across segments */
			cut = 1 + (x >> 8) % (seg_seed & 1 ? 64 : room);
			cut = RTE_MIN(RTE_MIN(cut, len - off), room);
		}
		memcpy(rte_pktmbuf_mtod(m, uint8_t *), buf + off, cut);
		m->data_len = (uint16_t)cut;
		m->pkt_len = cut;
		off += cut;
		if (head == NULL)
			head = m;
		else if (rte_pktmbuf_chain(head, m) != 0) {
			rte_pktmbuf_free(m);
			goto fail;
		}
	} while (off < len);
	return head;
fail:
	rte_pktmbuf_free(head);
	return NULL;
}

#ifdef FUZZ_RING_PORTS
#include <stdbool.h>

#include <rte_eth_ring.h>
#include <rte_ethdev.h>
#include <rte_lcore.h>
#include <rte_mbuf_dyn.h>
#include <rte_ring.h>

#include "aifab_pipeline.h"
#include "aifab_profile.h"

/*
 * @p n started ethdevs made with rte_eth_from_rings(), one RX and one TX
 * ring each (@p ring_sz slots, names from @p tag): the target enqueues
 * frames into rxr[p] and takes what the pipeline sent out of txr[p].
 * Aborts on any failure (a set-up error, not a finding).
 */
static inline void
fuzz_ring_ports(unsigned int n, const char *tag, struct rte_mempool *pool,
		unsigned int ring_sz, struct rte_ring **rxr,
		struct rte_ring **txr, uint16_t *port_id)
{
	struct rte_eth_conf conf = { 0 };
	char name[32];
	unsigned int p;

	for (p = 0; p < n; p++) {
		int id;

		snprintf(name, sizeof(name), "%srx%u", tag, p);
		rxr[p] = rte_ring_create(name, ring_sz, (int)rte_socket_id(),
					 RING_F_SP_ENQ | RING_F_SC_DEQ);
		snprintf(name, sizeof(name), "%stx%u", tag, p);
		txr[p] = rte_ring_create(name, ring_sz, (int)rte_socket_id(),
					 RING_F_SP_ENQ | RING_F_SC_DEQ);
		snprintf(name, sizeof(name), "%s%u", tag, p);
		id = rxr[p] == NULL || txr[p] == NULL ? -1 :
			rte_eth_from_rings(name, &rxr[p], 1, &txr[p], 1,
					   rte_socket_id());
		if (id < 0 ||
		    rte_eth_dev_configure((uint16_t)id, 1, 1, &conf) != 0 ||
		    rte_eth_rx_queue_setup((uint16_t)id, 0, (uint16_t)ring_sz,
					   0, NULL, pool) != 0 ||
		    rte_eth_tx_queue_setup((uint16_t)id, 0, (uint16_t)ring_sz,
					   0, NULL) != 0 ||
		    rte_eth_dev_start((uint16_t)id) != 0) {
			fprintf(stderr, "fuzz: port %s: %s\n", name,
				rte_strerror(rte_errno));
			abort();
		}
		port_id[p] = (uint16_t)id;
	}
}

/*
 * The ring-port targets' set-up, once: a private EAL (@p mem_mb MB of
 * no-huge memory; 0: lib/eal's default), a pool of @p n_mbufs mbufs, the
 * RX timestamp field registered as the app does (departure stamps use
 * it), and @p n ring ports (fuzz_ring_ports()). Aborts on any failure.
 */
static inline struct rte_mempool *
fuzz_setup(const char *name, unsigned int mem_mb, unsigned int n_mbufs,
	   unsigned int n, const char *tag, unsigned int ring_sz,
	   struct rte_ring **rxr, struct rte_ring **txr, uint16_t *port_id)
{
	struct rte_mempool *mp;
	char pool_name[RTE_MEMPOOL_NAMESIZE];
	uint64_t ts_flag;
	int ts_off;

	if (mem_mb != 0)
		fuzz_eal_mem(name, mem_mb);
	else
		fuzz_eal(name);
	snprintf(pool_name, sizeof(pool_name), "%s_pool", tag);
	mp = rte_pktmbuf_pool_create(pool_name, n_mbufs, 32, 0,
				     RTE_MBUF_DEFAULT_BUF_SIZE,
				     (int)rte_socket_id());
	if (mp == NULL) {
		fprintf(stderr, "%s: pool: %s\n", name,
			rte_strerror(rte_errno));
		abort();
	}
	if (rte_mbuf_dyn_rx_timestamp_register(&ts_off, &ts_flag) != 0) {
		fprintf(stderr, "%s: timestamp field: %s\n", name,
			rte_strerror(rte_errno));
		abort();
	}
	fuzz_ring_ports(n, tag, mp, ring_sz, rxr, txr, port_id);
	return mp;
}

/* True when none of the @p n rings holds a frame. */
static inline bool
fuzz_rings_empty(unsigned int n, struct rte_ring *const *r)
{
	unsigned int p;

	for (p = 0; p < n; p++)
		if (rte_ring_count(r[p]) != 0)
			return false;
	return true;
}

/*
 * The environment the app gives a pipeline (app/ports.c), for @p n ring
 * ports named "<tag><p>": one queue pair each, the profile's ports in
 * order, bits of @p gen_mask owned by the generator.
 */
static inline void
fuzz_env_fill(struct aifab_env *env, const struct aifab_profile *pr,
	      unsigned int n, const char *tag, const uint16_t *port_id,
	      struct rte_mempool *pool, uint64_t tsc_hz, uint32_t gen_mask)
{
	static struct aifab_port_rt rts[AIFAB_SW_MAX_PORTS];
	unsigned int p;

	memset(env, 0, sizeof(*env));
	memset(rts, 0, sizeof(rts));
	env->ports = rts;
	env->prof = pr;
	env->n_ports = (uint16_t)n;
	env->tsc_hz = tsc_hz;
	for (p = 0; p < n; p++) {
		struct aifab_port_rt *rt = &env->ports[p];

		snprintf(rt->name, sizeof(rt->name), "%s", pr->ports[p].name);
		snprintf(rt->device, sizeof(rt->device), "%s%u", tag, p);
		rt->port_id = port_id[p];
		rt->nb_rxq = 1;
		rt->nb_txq = 1;
		rt->mtu = pr->ports[p].mtu;
		rt->speed_mbps = pr->ports[p].speed_mbps;
		rt->mac = pr->ports[p].mac;
		rt->gen_owned = (gen_mask >> p) & 1;
		rt->sw = pr->ports[p].sw;
		rt->pool = pool;
	}
}
#endif

#endif /* AIFAB_FUZZ_COMMON_H */
