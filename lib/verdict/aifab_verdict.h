/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * The statistics behind the lab recipes' verdicts, as pure functions: no
 * DPDK, no lcore, no clock (times come in as numbers). Each is checked
 * against its definition in tests/unit/test_verdict.c.
 *
 * * chi-square: the upper tail Q(k/2, x/2) and the spread of flows over
 *   ports (imbalance, chi-square against an even spread, its p-value);
 * * RED/ECN: queue-depth bins from one-way latencies, and Kmin / Kmax /
 *   Pmax inferred from the marking per bin; a "within tolerance" check;
 * * percentiles: nearest rank over latencies;
 * * PFC: the IEEE 802.3 31B response bound, pause time of quanta, cable
 *   bytes and the headroom a peer needs.
 *
 * Latencies are uint32_t nanoseconds whose bit 31 the caller may use as a
 * flag (the lab: the frame came back CE); every function here ignores it
 * where it reads a latency (AIFAB_VERDICT_NS_MASK).
 */
#ifndef AIFAB_VERDICT_H
#define AIFAB_VERDICT_H

#include <stdbool.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/** The latency bits of a latency word (bit 31 is the caller's flag). */
#define AIFAB_VERDICT_NS_MASK 0x7fffffffu
/** The caller's flag in a latency word: the lab's CE mark. */
#define AIFAB_VERDICT_NS_FLAG 0x80000000u

/* ---- chi-square ---------------------------------------------------------- */

/**
 * Upper tail of chi-square with @p k (integer) degrees of freedom at @p x,
 * exactly: Q(k/2, x/2). 1 when k is 0 or x <= 0.
 */
double aifab_verdict_chi2_upper(double x, unsigned int k);

/**
 * A spread of flows over @p n ports from per-port flow counts.
 * Imbalance = max / (seen / n); chi-square = sum (o - e)^2 / e with
 * e = seen / n; p = its upper tail with n - 1 degrees of freedom. With no
 * port or no flow: imbalance 0, chi-square 0, p 1.
 */
void aifab_verdict_spread(const uint32_t *per_port, unsigned int n,
			  double *imbalance, double *chi2, double *p);

/* ---- RED / ECN marking curve --------------------------------------------- */

/** One queue-depth bin: frames that met that depth, and how many got CE. */
struct aifab_verdict_bin {
	uint64_t frames, ce;
};

/** What a marking curve says about the RED/WRED ramp behind it. */
struct aifab_verdict_red {
	bool has_kmin, has_kmax;
	uint32_t kmin, kmax;          /**< bytes */
	double pmax;                  /**< 0..1 */
};

/**
 * Bin @p n latency words by the queue depth each frame met: (its latency -
 * the smallest latency) x @p bytes_per_ns, in bins of @p bin_bytes, the
 * last of @p n_bins taking everything deeper; a word's flag counts as CE.
 * @p bins are added to (zero them first).
 * @return the smallest latency in ns; UINT32_MAX when @p n is 0.
 */
uint32_t aifab_verdict_depth_bins(const uint32_t *lat, uint32_t n,
				  double bytes_per_ns, uint32_t bin_bytes,
				  struct aifab_verdict_bin *bins,
				  unsigned int n_bins);

/**
 * Kmin, Kmax, Pmax from marking per depth bin (RED/WRED shape).
 * Kmax: start of the first judged bin marked >= 90%. The ramp: a
 * least-squares line (weighted by frames) through the judged bins below
 * Kmax with some marks and fewer than half; Kmin where it crosses 0, Pmax
 * its value at Kmax. With fewer than two such bins: Kmin = the first bin
 * marked >= 2%, Pmax = the largest fraction below Kmax. Bins with fewer
 * than @p min_frames frames (at least 1) are not judged.
 */
void aifab_verdict_infer_red(const struct aifab_verdict_bin *bins,
			     unsigned int n, uint32_t bin_bytes,
			     uint32_t min_frames, struct aifab_verdict_red *r);

/** |@p got - @p want| <= @p rel x @p want + @p abs. */
bool aifab_verdict_near(double got, double want, double rel, double abs);

/* ---- percentiles --------------------------------------------------------- */

/** Sort @p n latency words ascending by their latency (flag ignored). */
void aifab_verdict_sort_ns(uint32_t *lat, uint32_t n);

/**
 * The nearest-rank percentile of @p n latency words sorted ascending, in
 * us: the value of rank ceil(n x permille / 1000), at least 1 (p50: 500,
 * p99: 990, p999: 999). 0 when n is 0.
 */
double aifab_verdict_pct_us(const uint32_t *sorted, uint32_t n,
			    uint32_t permille);

/** A latency distribution's summary, us. */
struct aifab_verdict_lat {
	double p50, p99, p999, max;
};

/**
 * p50, p99, p999 (nearest rank) and max of @p n latency words (in any
 * order; they are copied, not changed). All 0 when @p n is 0 or there is
 * no memory for the copy.
 */
void aifab_verdict_latency_us(const uint32_t *lat, uint32_t n,
			      struct aifab_verdict_lat *out);

/* ---- PFC ----------------------------------------------------------------- */

/** IEEE 802.3 31B response bound in quanta at @p mbps (PROTOCOLS.md:
 * 67 at 10G and below, 80 at 25G, 394 at 40-100G, 905 at 200-400G). */
uint32_t aifab_verdict_pfc_bound_quanta(uint32_t mbps);

/** A pause of @p quanta (512 bit times each) at @p mbps, in us; 0 when
 * the speed is 0. */
double aifab_verdict_pause_us(uint32_t quanta, uint32_t mbps);

/** Bytes on a cable of @p cable_m metres both ways at @p mbps:
 * 2 x length x rate / (2e8 m/s x 8). */
uint64_t aifab_verdict_cable_bytes(uint32_t cable_m, uint32_t mbps);

/** Headroom a receiver needs per lossless priority: what the peer still
 * sends after the XOFF (@p response_bytes) + 2 frames of @p frame_bytes
 * (one on the wire each way) + @p cable_bytes. */
uint64_t aifab_verdict_headroom_bytes(uint64_t response_bytes,
				      uint32_t frame_bytes,
				      uint64_t cable_bytes);

#ifdef __cplusplus
}
#endif

#endif /* AIFAB_VERDICT_H */
