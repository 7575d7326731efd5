/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * bench/fib_lookup: what lib/fib's IPv4 table costs, in TSC cycles, with
 * N /24 routes (bench/gen_routes.py's table: route i is 64.0.0.0/24 +
 * 256 i, each its own target as in the switch): adding the N routes, and
 * a bulk lookup of bursts of 32 over 1000 destinations spread over the
 * table (route i * N / 1000, as bench/run.sh's route cases), per
 * destination, for
 *   - rte_lpm (what lib/fib used before: rte_lpm_lookup_bulk and the
 *     target conversion it did),
 *   - aifab_fib_lookup4_bulk with rte_fib's scalar (macro) lookup,
 *   - aifab_fib_lookup4_bulk with rte_fib's AVX-512 lookup (what lib/fib
 *     picks where the CPU has AVX-512F).
 * Each lookup figure is the fewest cycles of 7 rounds of 200 passes (the
 * table's touched lines in cache, as in a switch's steady state). The
 * three must give the same target for every destination (exit 1 if not).
 * rte_lpm is skipped above 100k routes: its add is linear per rule of a
 * depth (1M routes: ~150 s). A figure, not a test.
 *
 *   ninja -C build bench/fib_lookup && build/bench/fib_lookup [N,...]
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <rte_cpuflags.h>
#include <rte_cycles.h>
#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_fib.h>
#include <rte_lpm.h>
#include <rte_vect.h>

#include "aifab_eal.h"
#include "aifab_fib.h"

#define N_DST 1000u
#define BURST 32u
#define ROUNDS 7
#define PASSES 200
#define LPM_MAX 100000u
#define BASE (64u << 24)

static uint32_t dst[N_DST + BURST];
static uint32_t want[N_DST + BURST], got[N_DST + BURST];

static void
die(const char *msg)
{
	fprintf(stderr, "fib_lookup: %s\n", msg);
	exit(1);
}

static double
ms(uint64_t cycles)
{
	return 1e3 * (double)cycles / (double)rte_get_tsc_hz();
}

/* rte_lpm as lib/fib used it: bulk lookup, then the target or the miss. */
static void
lpm_lookup(const struct rte_lpm *lpm, const uint32_t *ips, uint32_t *t,
	   unsigned int n)
{
	unsigned int i;

	rte_lpm_lookup_bulk(lpm, ips, t, n);
	for (i = 0; i < n; i++)
		t[i] = (t[i] & RTE_LPM_LOOKUP_SUCCESS) ?
			(t[i] & 0x00FFFFFFu) : AIFAB_FIB_MISS;
}

static double
time_lookups(const struct rte_lpm *lpm, const struct aifab_fib *fib)
{
	uint64_t best = UINT64_MAX, t0, t;
	unsigned int r, p, i;

	for (r = 0; r < ROUNDS; r++) {
		t0 = rte_rdtsc_precise();
		for (p = 0; p < PASSES; p++)
			for (i = 0; i < N_DST; i += BURST) {
				if (lpm != NULL)
					lpm_lookup(lpm, &dst[i], &got[i], BURST);
				else
					aifab_fib_lookup4_bulk(fib, &dst[i],
							       &got[i], BURST);
			}
		t = rte_rdtsc_precise() - t0;
		best = RTE_MIN(best, t);
	}
	if (memcmp(got, want, sizeof(want[0]) * N_DST) != 0)
		die("a lookup gave another target than the reference");
	return (double)best / PASSES / (N_DST + BURST - N_DST % BURST);
}

static void
one(uint32_t n)
{
	struct aifab_fib_params fp = {
		.name = "fibbench", .socket_id = 0, .max_routes4 = n,
		.max_nh = 1, .max_groups = n, .tbl8s4 = 1,
	};
	static const struct rte_ether_addr mac = { { 2, 0, 0, 0, 0, 1 } };
	struct rte_lpm_config lc = { .max_rules = n, .number_tbl8s = 256 };
	struct rte_lpm *lpm = NULL;
	struct aifab_fib *fib;
	uint64_t t0, t_lpm = 0, t_fib;
	double c_lpm = 0, c_scalar, c_vec = 0;
	uint16_t nh;
	uint32_t i;
	int vec;

	for (i = 0; i < N_DST + BURST; i++) {
		uint32_t r = (uint32_t)((uint64_t)(i % N_DST) * n / N_DST) % n;

		dst[i] = BASE + (r << 8) + 1 + i % 200;
		want[i] = r;
	}
	fib = aifab_fib_create(&fp);
	if (fib == NULL)
		die(rte_strerror(rte_errno));
	nh = (uint16_t)aifab_fib_nh_add(fib, 0, &mac);
	for (i = 0; i < n; i++)
		if (aifab_fib_group_add(fib, &nh, 1) < 0)
			die("group");
	t0 = rte_rdtsc_precise();
	for (i = 0; i < n; i++)
		if (aifab_fib_route4_add(fib, BASE + (i << 8), 24, i) != 0)
			die("aifab_fib_route4_add");
	t_fib = rte_rdtsc_precise() - t0;
	if (n <= LPM_MAX) {
		lpm = rte_lpm_create("fibbench_lpm", 0, &lc);
		if (lpm == NULL)
			die(rte_strerror(rte_errno));
		t0 = rte_rdtsc_precise();
		for (i = 0; i < n; i++)
			if (rte_lpm_add(lpm, BASE + (i << 8), 24, i) != 0)
				die("rte_lpm_add");
		t_lpm = rte_rdtsc_precise() - t0;
		c_lpm = time_lookups(lpm, NULL);
		rte_lpm_free(lpm);
	}
	if (rte_fib_select_lookup(fib->fib4,
				  RTE_FIB_LOOKUP_DIR24_8_SCALAR_MACRO) != 0)
		die("no scalar lookup");
	c_scalar = time_lookups(NULL, fib);
	vec = rte_fib_select_lookup(fib->fib4,
				    RTE_FIB_LOOKUP_DIR24_8_VECTOR_AVX512) == 0;
	if (vec)
		c_vec = time_lookups(NULL, fib);
	if (n <= LPM_MAX)
		printf("| %7u | %9.1f | %9.1f | %5.1f | %5.1f | ", n,
		       ms(t_lpm), ms(t_fib), c_lpm, c_scalar);
	else
		printf("| %7u | %9s | %9.1f | %5s | %5.1f | ", n, "-",
		       ms(t_fib), "-", c_scalar);
	if (vec)
		printf("%5.1f |\n", c_vec);
	else
		printf("%5s |\n", "-");
	aifab_fib_free(fib);
}

int
main(int argc, char **argv)
{
	static const uint32_t def[] = { 10, 1000, 100000, 1000000 };
	char prefix[64], *list = argc > 1 ? argv[1] : NULL, *tok, *save;
	char *eal[] = { argv[0], "--no-huge", "-m", "1024", "--no-pci",
			"--file-prefix", prefix, "--log-level=error", NULL };
	char run_dir[512];
	unsigned int i;

	snprintf(prefix, sizeof(prefix), "aifab-fibbench-%ld", (long)getpid());
	if (rte_eal_init((int)RTE_DIM(eal) - 1, eal) < 0)
		die("EAL");
	snprintf(run_dir, sizeof(run_dir), "%s", rte_eal_get_runtime_dir());
	/* the AVX-512 lookup needs EAL's SIMD width at 512 (default 256) */
	rte_vect_set_max_simd_bitwidth(RTE_VECT_SIMD_512);
	printf("# fib_lookup: /24 routes, %u destinations in bursts of %u, "
	       "fewest of %u rounds of %u passes; TSC %.2f GHz; avx512f %d\n\n",
	       N_DST, BURST, ROUNDS, PASSES, rte_get_tsc_hz() / 1e9,
	       rte_cpu_get_flag_enabled(RTE_CPUFLAG_AVX512F));
	printf("| routes | add ms rte_lpm | add ms rte_fib | cycles/lookup "
	       "rte_lpm | rte_fib scalar | rte_fib AVX-512 |\n"
	       "|---:|---:|---:|---:|---:|---:|\n");
	if (list == NULL) {
		for (i = 0; i < RTE_DIM(def); i++)
			one(def[i]);
	} else {
		for (tok = strtok_r(list, ",", &save); tok != NULL;
		     tok = strtok_r(NULL, ",", &save))
			one((uint32_t)strtoul(tok, NULL, 0));
	}
	rte_eal_cleanup();
	aifab_eal_remove_runtime_dir(run_dir);
	return 0;
}
