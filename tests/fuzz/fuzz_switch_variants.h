/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The switch fuzz targets' ports and profiles (fuzz_switch.c, and
 * fuzz_switch_diff.c, which runs the same inputs through two datapaths):
 * four ring ports, a virtual TSC at 1 GHz, and profiles/pcap-leaf.ini in
 * variants (--set strings) that make queues, ECN, PFC and the watchdog
 * busy with small inputs. fuzz_switch.c uses the first FUZZ_SW_N_BASIC
 * variants (an input's first byte picks one modulo that), the
 * differential target all of them.
 *
 * Static, as fuzz_common.h: each target is one translation unit.
 */
#ifndef AIFAB_FUZZ_SWITCH_VARIANTS_H
#define AIFAB_FUZZ_SWITCH_VARIANTS_H

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>

#include <rte_common.h>

#include "aifab_profile.h"
#include "aifab_version.h"

#define N_PORTS 4
#define RING_SZ 1024
#define MAX_FRAME 9300
#define FAKE_HZ 1000000000ull

static const char *const fuzz_sw_variants[][16] = {
	/* 0: the profile as shipped */
	{ NULL },
	/* 1: tiny static queues, ECN at dequeue on a ramp that starts at 0,
	 * static PFC thresholds a few frames deep, slow uplinks */
	{ "qos.buffer_bytes=262144", "qos.limit_mode=static",
	  "qos.ecn_at=dequeue", "tc.0.queue_limit_bytes=4096",
	  "tc.0.ecn=true", "tc.0.ecn_kmin_bytes=0", "tc.0.ecn_kmax_bytes=3000",
	  "tc.3.ecn_kmin_bytes=0", "tc.3.ecn_kmax_bytes=3000",
	  "tc.3.pfc_xoff_bytes=4096", "tc.3.pfc_xon_offset_bytes=1024",
	  "tc.3.pfc_headroom_bytes=4096", "port.p2.speed_gbps=0.01",
	  "port.p3.speed_gbps=0.01", "pfc.detection_ms=100", NULL },
	/* 2: PCP trust, Toeplitz over every field, plain ECMP groups,
	 * watchdog forwards, jumbo uplinks, no checksum check, tiny bursts */
	{ "port.p0.trust=pcp", "port.p1.trust=pcp", "ecmp.hash=toeplitz",
	  "ecmp.fields=sip,dip,proto,sport,dport,dqpn", "ecmp.resilient=false",
	  "pfc.action=forward", "port.p2.mtu=9000", "port.p3.mtu=9000",
	  "switch.check_ipv4_checksum=false", "general.burst=4",
	  "tc.3.pfc_pause_quanta=2", "port.p1.speed_gbps=0.01", NULL },
	/* 3: several lossless TCs with dynamic thresholds, watchdog alert,
	 * jhash, static limits */
	{ "tc.0.lossless=true", "tc.5.lossless=true", "tc.5.alpha=0.015",
	  "pfc.action=alert", "ecmp.hash=jhash", "qos.buffer_bytes=262144",
	  "port.p0.speed_gbps=0.01", "port.p3.speed_gbps=0.01", NULL },
	/* 4: ECN at enqueue from an empty queue, small dynamic limits */
	{ "qos.buffer_bytes=131072", "qos.ecn_at=enqueue",
	  "tc.0.ecn=true", "tc.0.ecn_kmin_bytes=0", "tc.0.ecn_kmax_bytes=2000",
	  "tc.3.ecn_kmin_bytes=0", "tc.3.ecn_kmax_bytes=2000",
	  "port.p2.speed_gbps=0.01", "port.p3.speed_gbps=0.01", NULL },
	/* 5: static PFC thresholds a frame or two deep on the common path
	 * (no ECN decision, CRC32C ECMP: whole bursts queued at once while
	 * PFC adds stay plain), a slow port to incast into */
	{ "tc.3.pfc_xoff_bytes=2048", "tc.3.pfc_xon_offset_bytes=1024",
	  "tc.3.pfc_headroom_bytes=16384", "port.p3.speed_gbps=0.01", NULL },
	/* 6: ECN at enqueue with kmin a few frames deep and a small dynamic
	 * buffer, one uplink slow: a burst over the ECMP pair passes the
	 * whole-burst queue bounds of sw_enqueue_sure() or fails them, and
	 * then its queues' own shares pass or fail them too */
	{ "qos.ecn_at=enqueue", "qos.buffer_bytes=196608",
	  "tc.0.ecn=true", "tc.0.ecn_kmin_bytes=3000",
	  "tc.0.ecn_kmax_bytes=20000", "tc.3.ecn_kmin_bytes=3000",
	  "tc.3.ecn_kmax_bytes=20000", "port.p2.speed_gbps=0.01", NULL },
};
/* fuzz_switch.c's: the first four (not ECN at enqueue, not 5) */
#define FUZZ_SW_N_BASIC 4

/* Variants 0 .. @p n - 1 of pcap-leaf.ini into @p prof; aborts naming
 * target @p who if one does not load or has not four ports. */
static inline void
fuzz_sw_profiles(struct aifab_profile *prof, unsigned int n, const char *who)
{
	char path[PATH_MAX], err[AIFAB_ERR_LEN];
	const char *root = getenv("AIFAB_SOURCE_ROOT");
	unsigned int v, k;

	snprintf(path, sizeof(path), "%s/profiles/pcap-leaf.ini",
		 root != NULL ? root : AIFAB_SOURCE_ROOT);
	for (v = 0; v < n; v++) {
		for (k = 0; fuzz_sw_variants[v][k] != NULL; k++)
			;
		if (aifab_profile_load(&prof[v], path, fuzz_sw_variants[v], k,
				       err, sizeof(err)) != 0) {
			fprintf(stderr, "%s: profile: %s\n", who, err);
			abort();
		}
		if (prof[v].n_ports != N_PORTS) {
			fprintf(stderr, "%s: profile: pcap-leaf.ini must have "
				"four ports\n", who);
			abort();
		}
	}
}

#endif /* AIFAB_FUZZ_SWITCH_VARIANTS_H */
