/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lib/profile: the shipped profile yields the planned leaf, the embedded
 * default equals it, --set overrides, every bad input gives one error line
 * naming file, section, key, value and what is allowed, and
 * docs/profiles.md is the generated reference.
 *
 *   test_profile --write-doc > docs/profiles.md    regenerates the docs
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <sys/socket.h>
#include <cmocka.h>

#include <rte_common.h>
#include <rte_ether.h>

#include "aifab_profile.h"

#define REGEN_HINT "regenerate: build/tests/unit/test_profile --write-doc " \
	"> docs/profiles.md"

struct bad_case;

struct fixture {
	const struct bad_case *bad; /* test_bad's case */
	struct aifab_profile p;
	struct aifab_profile q;
	char err[AIFAB_ERR_LEN];
	char path[PATH_MAX];       /* temp INI file, "" if none */
};

static const char *
src_root(void)
{
	const char *r = getenv("AIFAB_SOURCE_ROOT");

	return r != NULL ? r : ".";
}

static void
leaf_path(char *buf, size_t len)
{
	snprintf(buf, len, "%s/profiles/pcap-leaf.ini", src_root());
}

/* [general] clock: its values, and the errors naming what is allowed. */
static void
test_clock(void **state)
{
	static const char *const virt[] = { "general.clock=virtual" };
	static const char *const bad[] = { "general.clock=fast" };
	static const char *const two[] = { "general.clock=virtual",
		"generator.virtual_tick_ns=100" };
	struct fixture *fx = *state;
	struct aifab_profile *p = &fx->p;
	char path[PATH_MAX];

	leaf_path(path, sizeof(path));
	assert_int_equal(aifab_profile_load(p, path, virt, 1, fx->err,
					    sizeof(fx->err)), 0);
	assert_int_equal(p->clock, AIFAB_CLOCK_VIRTUAL);
	assert_false(p->virtual_time); /* the app picks pcap or whole */
	assert_int_equal(aifab_profile_load(p, path, bad, 1, fx->err,
					    sizeof(fx->err)), -1);
	assert_non_null(strstr(fx->err, "[general] clock = 'fast'"));
	assert_non_null(strstr(fx->err, "allowed: realtime, virtual"));
	assert_int_equal(aifab_profile_load(p, path, two, 2, fx->err,
					    sizeof(fx->err)), -1);
	assert_non_null(strstr(fx->err, "[generator] virtual_tick_ns = '100'"));
	assert_non_null(strstr(fx->err, "0 with [general] clock = virtual"));
}

static int
setup(void **state)
{
	struct fixture *fx = calloc(1, sizeof(*fx));

	if (fx == NULL)
		return -1;
	*state = fx;
	return 0;
}

static int
teardown(void **state)
{
	struct fixture *fx = *state;

	if (fx->path[0] != '\0')
		unlink(fx->path);
	aifab_profile_free(&fx->p);
	aifab_profile_free(&fx->q);
	free(fx);
	return 0;
}

/* Write @p text to a fresh temp file, name in fx->path. */
static void
write_ini(struct fixture *fx, const char *text)
{
	const char *dir = getenv("TMPDIR");
	FILE *f;
	int fd;

	snprintf(fx->path, sizeof(fx->path), "%s/test_profile-XXXXXX.ini",
		 dir != NULL ? dir : "/tmp");
	fd = mkstemps(fx->path, 4);
	assert_true(fd >= 0);
	f = fdopen(fd, "w");
	assert_non_null(f);
	assert_int_equal(fputs(text, f) >= 0, 1);
	assert_int_equal(fclose(f), 0);
}

static uint32_t
ip4(const char *s)
{
	struct in_addr a;

	assert_int_equal(inet_pton(AF_INET, s, &a), 1);
	return ntohl(a.s_addr);
}

static void
ip6(const char *s, uint8_t out[16])
{
	assert_int_equal(inet_pton(AF_INET6, s, out), 1);
}

static void
addr(uint8_t family, const char *s, uint8_t out[16])
{
	memset(out, 0, 16);
	assert_int_equal(inet_pton(family, s, out), 1);
}

/* Every default of the [general] virtual_time, [qos], [tc.<n>], [ecmp] and
 * [pfc] keys, per TC where they differ. */
static void
check_new_defaults(const struct aifab_profile *p)
{
	unsigned int i;

	assert_false(p->virtual_time);
	assert_int_equal(p->clock, AIFAB_CLOCK_REALTIME);
	assert_int_equal(p->qos.buffer_bytes, 4194304);
	assert_int_equal(p->qos.limit_mode, AIFAB_LIMIT_DYNAMIC);
	assert_int_equal(p->qos.ecn_at, AIFAB_ECN_AT_ENQUEUE);
	assert_int_equal(p->qos.shaper_burst_bytes, 32768);
	for (i = 0; i < 64; i++)
		assert_int_equal(p->qos.dscp_tc[i],
				 i == 26 ? 3 : i == 48 ? 6 : 0);
	for (i = 0; i < 8; i++)
		assert_int_equal(p->qos.pcp_tc[i], i);

	for (i = 0; i < AIFAB_N_TC; i++) {
		const struct aifab_tc_params *tc = &p->tc[i];

		assert_int_equal(tc->strict, i == 6 || i == 7);
		assert_int_equal(tc->weight, 1);
		assert_int_equal(tc->lossless, i == 3);
		assert_int_equal(tc->queue_limit_bytes, 0);
		assert_int_equal(tc->alpha_milli, 1000);
		assert_int_equal(tc->ecn, i == 3);
		assert_int_equal(tc->ecn_kmin_bytes, 400000);
		assert_int_equal(tc->ecn_kmax_bytes, 1600000);
		assert_int_equal(tc->ecn_pmax_ppm, 200000);
		assert_int_equal(tc->pfc_xoff_bytes, 0);
		assert_int_equal(tc->pfc_xon_offset_bytes, 20000);
		assert_int_equal(tc->pfc_headroom_bytes, 0);
		assert_int_equal(tc->pfc_pause_quanta, 65535);
	}

	assert_int_equal(p->ecmp.hash, AIFAB_HASH_CRC32C);
	assert_int_equal(p->ecmp.seed, 0);
	assert_int_equal(p->ecmp.fields, AIFAB_HF_SIP | AIFAB_HF_DIP |
			 AIFAB_HF_PROTO | AIFAB_HF_SPORT | AIFAB_HF_DPORT);
	assert_true(p->ecmp.resilient);
	assert_int_equal(p->ecmp.buckets, 256);
	assert_int_equal(p->ecmp.rss_key_len, 0);

	assert_true(p->pfc.watchdog);
	assert_int_equal(p->pfc.detection_ms, 200);
	assert_int_equal(p->pfc.restoration_ms, 200);
	assert_int_equal(p->pfc.action, AIFAB_PFCWD_DROP);
	assert_false(p->pfc.hw_offload);
}

/* ---- the shipped plan ------------------------------------------------- */

static void
check_leaf_plan(const struct aifab_profile *p)
{
	uint8_t a[16];
	char s[64];
	int i, k;

	assert_string_equal(p->name, "pcap-leaf");
	assert_int_equal(p->seed, 1);
	assert_int_equal(p->burst, 32);
	assert_int_equal(p->mbufs, 0);
	assert_int_equal(p->mbuf_cache, 256);
	assert_true(p->switch_enabled);
	assert_int_equal(p->n_switch_lcores, 0);
	assert_true(p->check_ip4_csum);

	assert_int_equal(p->n_ports, 4);
	for (i = 0; i < 4; i++) {
		const struct aifab_port_params *pp = &p->ports[i];
		const struct rte_ether_addr mac = {
			{ 0x02, 0xaa, 0, 0, 0, (uint8_t)i } };

		snprintf(s, sizeof(s), "p%d", i);
		assert_string_equal(pp->name, s);
		assert_int_equal(aifab_profile_port_index(p, s), i);
		assert_string_equal(pp->device, "");
		assert_true(pp->has_mac);
		assert_memory_equal(&pp->mac, &mac, sizeof(mac));
		snprintf(s, sizeof(s), "10.0.%d.1", i);
		assert_true(pp->has_ip4);
		assert_int_equal(pp->ip4, ip4(s));
		assert_int_equal(pp->ip4_depth, 24);
		snprintf(s, sizeof(s), "fd00:0:0:%d::1", i);
		ip6(s, a);
		assert_true(pp->has_ip6);
		assert_memory_equal(pp->ip6, a, 16);
		assert_int_equal(pp->ip6_depth, 64);
		assert_int_equal(pp->role, i < 2 ? AIFAB_ROLE_DOWNLINK :
				 AIFAB_ROLE_UPLINK);
		assert_int_equal(pp->speed_mbps, 100000);
		assert_int_equal(pp->mtu, 1500);
		assert_int_equal(pp->rx_desc, 1024);
		assert_int_equal(pp->tx_desc, 1024);
	}
	assert_int_equal(aifab_profile_port_index(p, "p4"), -1);
	for (i = 0; i < 4; i++) {
		assert_int_equal(p->ports[i].trust, AIFAB_TRUST_DSCP);
		assert_int_equal(p->ports[i].cable_m, 3);
	}
	check_new_defaults(p);

	assert_int_equal(p->n_neighs, 8);
	for (i = 0; i < 8; i++) {
		const struct aifab_neigh_params *nb = &p->neighs[i];
		const struct rte_ether_addr mac = {
			{ 0x02, 0xbb, 0, 0, 0, (uint8_t)(i % 4) } };
		uint8_t fam = i < 4 ? AF_INET : AF_INET6;

		if (fam == AF_INET)
			snprintf(s, sizeof(s), "10.0.%d.2", i % 4);
		else
			snprintf(s, sizeof(s), "fd00:0:0:%d::2", i % 4);
		addr(fam, s, a);
		assert_int_equal(nb->family, fam);
		assert_memory_equal(nb->addr, a, 16);
		assert_memory_equal(&nb->mac, &mac, sizeof(mac));
		assert_int_equal(nb->port, i % 4);
	}

	assert_int_equal(p->n_routes, 2);
	for (i = 0; i < 2; i++) {
		const struct aifab_route_params *r = &p->routes[i];
		uint8_t fam = i == 0 ? AF_INET : AF_INET6;

		assert_int_equal(r->family, fam);
		memset(a, 0, sizeof(a));
		assert_memory_equal(r->prefix, a, 16);
		assert_int_equal(r->depth, 0);
		assert_int_equal(r->n_nh, 2);
		for (k = 0; k < 2; k++) {
			const struct aifab_neigh_params *nb =
				&p->neighs[r->nh_neigh[k]];

			if (fam == AF_INET)
				snprintf(s, sizeof(s), "10.0.%d.2", k + 2);
			else
				snprintf(s, sizeof(s), "fd00:0:0:%d::2", k + 2);
			addr(fam, s, a);
			assert_memory_equal(r->nh_addr[k], a, 16);
			assert_int_equal(nb->family, fam);
			assert_memory_equal(nb->addr, a, 16);
			assert_int_equal(nb->port, k + 2);
		}
	}
}

static void
test_pcap_leaf(void **state)
{
	struct fixture *fx = *state;
	char path[PATH_MAX];

	leaf_path(path, sizeof(path));
	assert_int_equal(aifab_profile_load(&fx->p, path, NULL, 0, fx->err,
					    sizeof(fx->err)), 0);
	assert_string_equal(fx->err, "");
	assert_string_equal(fx->p.path, path);
	check_leaf_plan(&fx->p);
}

static void
test_embedded_equals_file(void **state)
{
	struct fixture *fx = *state;
	char path[PATH_MAX];

	/* The embedded default is the in-memory fabric demo. */
	snprintf(path, sizeof(path), "%s/profiles/demo.ini", src_root());
	assert_int_equal(aifab_profile_load(&fx->p, NULL, NULL, 0, fx->err,
					    sizeof(fx->err)), 0);
	assert_string_equal(fx->p.name, "demo");
	assert_int_equal(fx->p.n_ports, 16);
	assert_true(fx->p.gen.enabled);
	assert_int_equal(fx->p.gen.ranks, 8);
	assert_string_equal(fx->p.ports[1].wire, "s0");
	assert_int_equal(fx->p.n_neighs, 8);
	assert_int_equal(aifab_profile_load(&fx->q, path, NULL, 0, fx->err,
					    sizeof(fx->err)), 0);
	assert_string_not_equal(fx->p.path, fx->q.path);
	memcpy(fx->p.path, fx->q.path, sizeof(fx->p.path));
	assert_memory_equal(&fx->p, &fx->q, sizeof(fx->p));
}

static void
test_defaults(void **state)
{
	struct fixture *fx = *state;

	aifab_profile_defaults(&fx->p);
	assert_string_equal(fx->p.name, "unnamed");
	assert_int_equal(fx->p.seed, 1);
	assert_int_equal(fx->p.burst, 32);
	assert_int_equal(fx->p.mbufs, 0);
	assert_int_equal(fx->p.mbuf_cache, 256);
	assert_true(fx->p.switch_enabled);
	assert_true(fx->p.check_ip4_csum);
	assert_int_equal(fx->p.n_ports, 0);
	assert_int_equal(fx->p.n_neighs, 0);
	assert_int_equal(fx->p.n_routes, 0);
	check_new_defaults(&fx->p);
}

/* A port section with no keys gets every port default, new ones too. */
static void
test_port_defaults(void **state)
{
	struct fixture *fx = *state;
	const struct aifab_port_params *pp = &fx->p.ports[0];

	write_ini(fx, "[port.a]\n");
	assert_int_equal(aifab_profile_load(&fx->p, fx->path, NULL, 0, fx->err,
					    sizeof(fx->err)), 0);
	assert_int_equal(pp->trust, AIFAB_TRUST_DSCP);
	assert_int_equal(pp->cable_m, 3);
	assert_int_equal(pp->mtu, 1500);
	check_new_defaults(&fx->p);
}

/* Every new key and type, written in a file. */
static void
test_new_types(void **state)
{
	static const uint8_t key52[52] = {
		0x6d, 0x5a, 0x56, 0xda, 0x25, 0x5b, 0x0e, 0xc2, 0x41, 0x67,
		0x25, 0x3d, 0x43, 0xa3, 0x8f, 0xb0, 0xd0, 0xca, 0x2b, 0xcb,
		0xae, 0x7b, 0x30, 0xb4, 0x77, 0xcb, 0x2d, 0xa3, 0x80, 0x30,
		0xf2, 0x0c, 0x6a, 0x42, 0xb7, 0x3b, 0xbe, 0xac, 0x01, 0xfa,
		0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08, 0x09, 0x0a,
		0x0b, 0xFF,
	};
	struct fixture *fx = *state;
	struct aifab_profile *p = &fx->p;
	unsigned int i;

	write_ini(fx,
		  "[general]\nvirtual_time = yes\n"
		  "[port.a]\ntrust = pcp\ncable_m = 10000\n"
		  "[qos]\nbuffer_bytes = 0x100000000\nlimit_mode = static\n"
		  "ecn_at = dequeue\nshaper_burst_bytes = 1600\n"
		  "dscp_to_tc = 26:3, 48:6,46:5   0:0 63:7\n"
		  "pcp_to_tc = 3:3\n"
		  "[tc.0]\nstrict = true\nalpha = 0.015\n"
		  "ecn_pmax_percent = 0.0001\n"
		  "[tc.3]\nweight = 100\nqueue_limit_bytes = 4294967295\n"
		  "alpha = 8\necn_kmin_bytes = 5000\n"
		  "ecn_kmax_bytes = 5000\necn_pmax_percent = 100\n"
		  "pfc_xoff_bytes = 1024\npfc_xon_offset_bytes = 1023\n"
		  "pfc_headroom_bytes = 1024\npfc_pause_quanta = 1\n"
		  "[tc.7]\nstrict = off\nlossless = on\necn = 1\n"
		  "alpha = 1.5\necn_pmax_percent = 12.3456\n"
		  "[ecmp]\nhash = toeplitz\nseed = 0xffffffff\n"
		  "fields = dqpn sport,dip\nresilient = false\n"
		  "buckets = 65536\n"
		  "rss_key = 6d:5a:56:da:25:5b:0e:c2:41:67:25:3d:43:a3:8f:b0:"
		  "d0:ca:2b:cb:ae:7b:30:b4:77:cb:2d:a3:80:30:f2:0c:6a:42:"
		  "b7:3b:be:ac:01:fa0102030405060708090a0b:Ff\n"
		  "[pfc]\nwatchdog = false\ndetection_ms = 5000\n"
		  "restoration_ms = 60000\naction = alert\n"
		  "hw_offload = true\n");
	assert_int_equal(aifab_profile_load(p, fx->path, NULL, 0, fx->err,
					    sizeof(fx->err)), 0);
	assert_true(p->virtual_time);
	assert_int_equal(p->ports[0].trust, AIFAB_TRUST_PCP);
	assert_int_equal(p->ports[0].cable_m, 10000);

	assert_int_equal(p->qos.buffer_bytes, 4294967296ULL);
	assert_int_equal(p->qos.limit_mode, AIFAB_LIMIT_STATIC);
	assert_int_equal(p->qos.ecn_at, AIFAB_ECN_AT_DEQUEUE);
	assert_int_equal(p->qos.shaper_burst_bytes, 1600);
	for (i = 0; i < 64; i++)
		assert_int_equal(p->qos.dscp_tc[i], i == 26 ? 3 : i == 48 ? 6 :
				 i == 46 ? 5 : i == 63 ? 7 : 0);
	for (i = 0; i < 8; i++)
		assert_int_equal(p->qos.pcp_tc[i], i == 3 ? 3 : 0);

	assert_true(p->tc[0].strict);
	assert_int_equal(p->tc[0].alpha_milli, 15);
	assert_int_equal(p->tc[0].ecn_pmax_ppm, 1);
	assert_int_equal(p->tc[0].weight, 1);       /* rest at defaults */
	assert_false(p->tc[0].ecn);

	assert_false(p->tc[3].strict);
	assert_int_equal(p->tc[3].weight, 100);
	assert_true(p->tc[3].lossless);
	assert_int_equal(p->tc[3].queue_limit_bytes, UINT32_MAX);
	assert_int_equal(p->tc[3].alpha_milli, 8000);
	assert_int_equal(p->tc[3].ecn_kmin_bytes, 5000);
	assert_int_equal(p->tc[3].ecn_kmax_bytes, 5000);
	assert_int_equal(p->tc[3].ecn_pmax_ppm, 1000000);
	assert_int_equal(p->tc[3].pfc_xoff_bytes, 1024);
	assert_int_equal(p->tc[3].pfc_xon_offset_bytes, 1023);
	assert_int_equal(p->tc[3].pfc_headroom_bytes, 1024);
	assert_int_equal(p->tc[3].pfc_pause_quanta, 1);

	assert_false(p->tc[7].strict);
	assert_true(p->tc[7].lossless);
	assert_true(p->tc[7].ecn);
	assert_int_equal(p->tc[7].alpha_milli, 1500);
	assert_int_equal(p->tc[7].ecn_pmax_ppm, 123456);
	assert_true(p->tc[6].strict);               /* untouched TC */

	assert_int_equal(p->ecmp.hash, AIFAB_HASH_TOEPLITZ);
	assert_int_equal(p->ecmp.seed, UINT32_MAX);
	assert_int_equal(p->ecmp.fields,
			 AIFAB_HF_DQPN | AIFAB_HF_SPORT | AIFAB_HF_DIP);
	assert_false(p->ecmp.resilient);
	assert_int_equal(p->ecmp.buckets, 65536);
	assert_int_equal(p->ecmp.rss_key_len, 52);
	assert_memory_equal(p->ecmp.rss_key, key52, 52);

	assert_false(p->pfc.watchdog);
	assert_int_equal(p->pfc.detection_ms, 5000);
	assert_int_equal(p->pfc.restoration_ms, 60000);
	assert_int_equal(p->pfc.action, AIFAB_PFCWD_ALERT);
	assert_true(p->pfc.hw_offload);
}

/* A 40-byte key without separators; an empty map; empty key = default. */
static void
test_new_types_edges(void **state)
{
	static const char *const sets[] = {
		"ecmp.rss_key=",
		"qos.pcp_to_tc=7:7",
	};
	struct fixture *fx = *state;
	struct aifab_profile *p = &fx->p;
	unsigned int i;

	write_ini(fx,
		  "[port.a]\n[qos]\ndscp_to_tc =\npcp_to_tc = 1:1\n"
		  "[ecmp]\nfields = sip\n"
		  "rss_key = 000102030405060708090A0B0C0D0E0F"
		  "101112131415161718191a1b1c1d1e1f2021222324252627\n");
	assert_int_equal(aifab_profile_load(p, fx->path, NULL, 0, fx->err,
					    sizeof(fx->err)), 0);
	for (i = 0; i < 64; i++)
		assert_int_equal(p->qos.dscp_tc[i], 0);
	assert_int_equal(p->qos.pcp_tc[1], 1);
	assert_int_equal(p->qos.pcp_tc[7], 0);
	assert_int_equal(p->ecmp.fields, AIFAB_HF_SIP);
	assert_int_equal(p->ecmp.rss_key_len, 40);
	for (i = 0; i < 40; i++)
		assert_int_equal(p->ecmp.rss_key[i], i);
	for (; i < AIFAB_RSS_KEY_MAX; i++)
		assert_int_equal(p->ecmp.rss_key[i], 0);

	/* --set replaces the whole map and clears the key. */
	assert_int_equal(aifab_profile_load(p, fx->path, sets, RTE_DIM(sets),
					    fx->err, sizeof(fx->err)), 0);
	assert_int_equal(p->ecmp.rss_key_len, 0);
	for (i = 0; i < AIFAB_RSS_KEY_MAX; i++)
		assert_int_equal(p->ecmp.rss_key[i], 0);
	for (i = 0; i < 8; i++)
		assert_int_equal(p->qos.pcp_tc[i], i == 7 ? 7 : 0);
}

/* The sampling type ([generator] rx_check_icrc): full, off, every=N, and
 * what the fault stage's corruption keys store. */
static void
test_sampling(void **state)
{
	static const char *const sets[][1] = {
		{ "generator.rx_check_icrc=off" },
		{ "generator.rx_check_icrc=every=1" },
		{ "generator.rx_check_icrc=full" },
	};
	static const uint32_t want[] = { 0, 1, 1 };
	struct fixture *fx = *state;
	struct aifab_profile *p = &fx->p;
	unsigned int i;

	assert_int_equal(aifab_profile_load(p, NULL, NULL, 0, fx->err,
					    sizeof(fx->err)), 0);
	assert_int_equal(p->gen.rx_check_icrc, 1);  /* default: full */
	assert_int_equal(p->gen.fault_corrupt_every, 0);
	write_ini(fx, "[port.a]\n[generator]\nrx_check_icrc = every=7\n"
		  "fault_corrupt_index = 3\nfault_corrupt_every = 5\n"
		  "fault_corrupt_ppm = 1000000\n");
	assert_int_equal(aifab_profile_load(p, fx->path, NULL, 0, fx->err,
					    sizeof(fx->err)), 0);
	assert_int_equal(p->gen.rx_check_icrc, 7);
	assert_int_equal(p->gen.fault_corrupt_index, 3);
	assert_int_equal(p->gen.fault_corrupt_every, 5);
	assert_int_equal(p->gen.fault_corrupt_ppm, 1000000);
	for (i = 0; i < RTE_DIM(sets); i++) {
		assert_int_equal(aifab_profile_load(p, fx->path, sets[i], 1,
						    fx->err, sizeof(fx->err)),
				 0);
		assert_int_equal(p->gen.rx_check_icrc, want[i]);
	}
}

/* --set reaches [tc.<n>] (with or without the section in the file),
 * [qos], [ecmp], [pfc] and the new [general] and port keys. */
static void
test_set_new_sections(void **state)
{
	static const char *const sets[] = {
		"tc.3.ecn_kmin_bytes=100000",
		"tc.3.ecn_pmax_percent=1.5",
		"tc.0.weight = 7",
		"tc.6.strict=false",
		"tc.5.alpha=0.5",
		"qos.dscp_to_tc=26:3,48:6,46:5",
		"qos.buffer_bytes=65536",
		"ecmp.hash=jhash",
		"ecmp.fields=sip,dip,dqpn",
		"ecmp.buckets=8",
		"pfc.action=forward",
		"pfc.detection_ms=100",
		"general.virtual_time=true",
		"port.p1.trust=pcp",
		"port.p2.cable_m=100",
	};
	struct fixture *fx = *state;
	struct aifab_profile *p = &fx->p;
	char path[PATH_MAX];

	leaf_path(path, sizeof(path));
	assert_int_equal(aifab_profile_load(p, path, sets, RTE_DIM(sets),
					    fx->err, sizeof(fx->err)), 0);
	assert_int_equal(p->tc[3].ecn_kmin_bytes, 100000);
	assert_int_equal(p->tc[3].ecn_kmax_bytes, 1600000);
	assert_int_equal(p->tc[3].ecn_pmax_ppm, 15000);
	assert_true(p->tc[3].lossless);
	assert_int_equal(p->tc[0].weight, 7);
	assert_false(p->tc[6].strict);
	assert_true(p->tc[7].strict);
	assert_int_equal(p->tc[5].alpha_milli, 500);
	assert_int_equal(p->qos.dscp_tc[46], 5);
	assert_int_equal(p->qos.dscp_tc[26], 3);
	assert_int_equal(p->qos.dscp_tc[48], 6);
	assert_int_equal(p->qos.dscp_tc[0], 0);
	assert_int_equal(p->qos.buffer_bytes, 65536);
	assert_int_equal(p->ecmp.hash, AIFAB_HASH_JHASH);
	assert_int_equal(p->ecmp.fields,
			 AIFAB_HF_SIP | AIFAB_HF_DIP | AIFAB_HF_DQPN);
	assert_int_equal(p->ecmp.buckets, 8);
	assert_int_equal(p->pfc.action, AIFAB_PFCWD_FORWARD);
	assert_int_equal(p->pfc.detection_ms, 100);
	assert_true(p->virtual_time);
	assert_int_equal(p->clock, AIFAB_CLOCK_VIRTUAL); /* the alias */
	assert_int_equal(p->ports[0].trust, AIFAB_TRUST_DSCP);
	assert_int_equal(p->ports[1].trust, AIFAB_TRUST_PCP);
	assert_int_equal(p->ports[2].cable_m, 100);
	assert_int_equal(p->ports[3].cable_m, 3);
}

/* Several switch instances: clos.ini's four named switches, their own
 * neighbours/routes/seeds, --set into named sections, the per-switch view. */
static void
test_switches(void **state)
{
	static const char *const sets[] = {
		"switch.spine0.ecmp_seed=7",
		"switch.leaf1.ecmp_hash=jhash",
		"routes.leaf0.10.100.0.0/16=10.200.0.2",
		"neighbors.spine1.10.200.1.3=02:00:00:00:00:09",
		"switch.enabled=true",
	};
	struct fixture *fx = *state;
	struct aifab_profile *p = &fx->p, *v = &fx->q;
	char path[PATH_MAX];
	uint8_t a[16];
	int i, s0, l0;
	unsigned int k, n;

	snprintf(path, sizeof(path), "%s/profiles/clos.ini", src_root());
	assert_int_equal(aifab_profile_load(p, path, sets, RTE_DIM(sets),
					    fx->err, sizeof(fx->err)), 0);
	assert_int_equal(p->n_switches, 5); /* the default + 4 named */
	assert_string_equal(p->switches[0].name, "");
	assert_int_equal(p->switches[0].n_ports, 8); /* g0..g7 */
	assert_string_equal(p->switches[1].name, "leaf0");
	assert_int_equal(p->switches[1].n_ports, 6);
	l0 = 1;
	for (s0 = 0; s0 < p->n_switches; s0++)
		if (strcmp(p->switches[s0].name, "spine0") == 0)
			break;
	assert_true(s0 < p->n_switches);
	assert_int_equal(p->switches[s0].ecmp.seed, 7);
	assert_int_equal(p->switches[l0].ecmp.seed, 101);
	assert_int_equal(p->switches[2].ecmp.hash, AIFAB_HASH_JHASH);
	assert_int_equal(p->switches[l0].ecmp.hash, AIFAB_HASH_CRC32C);
	i = aifab_profile_port_index(p, "s0l1");
	assert_true(i >= 0);
	assert_int_equal(p->ports[i].sw, s0);
	assert_int_equal(p->ports[aifab_profile_port_index(p, "g3")].sw, 0);

	/* leaf0's view: its 4 ranks + 2 spine neighbours, its 2 routes. */
	assert_int_equal(aifab_profile_switch_view(p, (unsigned int)l0, v), 0);
	assert_int_equal(v->n_neighs, 6);
	assert_int_equal(v->n_routes, 2);
	assert_int_equal(v->ecmp.seed, 101);
	for (k = 0; k < v->n_neighs; k++) {
		assert_int_equal(v->neighs[k].sw, l0);
		assert_int_equal(p->ports[v->neighs[k].port].sw, l0);
	}
	for (k = 0, n = 0; k < v->n_routes; k++) {
		const struct aifab_route_params *r = &v->routes[k];
		unsigned int j;

		for (j = 0; j < r->n_nh; j++) {
			assert_true(r->nh_neigh[j] < v->n_neighs);
			assert_memory_equal(v->neighs[r->nh_neigh[j]].addr,
					    r->nh_addr[j], 16);
			n++;
		}
	}
	assert_int_equal(n, 3); /* the /22 over 2 spines, the --set /16 */
	/* spine1 got the --set neighbour; nobody else did. */
	addr(AF_INET, "10.200.1.3", a);
	for (k = 0, n = 0; k < p->n_neighs; k++)
		if (memcmp(p->neighs[k].addr, a, 16) == 0) {
			assert_string_equal(p->switches[p->neighs[k].sw].name,
					    "spine1");
			n++;
		}
	assert_int_equal(n, 1);
	assert_int_equal(aifab_profile_switch_view(p, p->n_switches, v), -1);

	/* A profile without `switch` keys: one default switch, as before. */
	leaf_path(path, sizeof(path));
	assert_int_equal(aifab_profile_load(p, path, NULL, 0, fx->err,
					    sizeof(fx->err)), 0);
	assert_int_equal(p->n_switches, 1);
	assert_int_equal(p->switches[0].n_ports, p->n_ports);
	assert_int_equal(aifab_profile_switch_view(p, 0, v), 0);
	assert_int_equal(v->n_routes, p->n_routes);
	assert_int_equal(v->n_neighs, p->n_neighs);
}

/* A --set of [tc.<n>] overrides the file's value in that section only. */
static void
test_set_tc_over_file(void **state)
{
	static const char *const sets[] = { "tc.2.pfc_xoff_bytes=0" };
	struct fixture *fx = *state;

	write_ini(fx, "[port.a]\n[tc.2]\npfc_xoff_bytes = 10000\n"
		  "pfc_xon_offset_bytes = 20000\n[tc.4]\n"
		  "pfc_xoff_bytes = 50000\n");
	/* Static XOFF 10000 with XON offset 20000 is an error... */
	assert_int_equal(aifab_profile_load(&fx->p, fx->path, NULL, 0, fx->err,
					    sizeof(fx->err)), -1);
	/* ...that a --set back to dynamic XOFF fixes. */
	assert_int_equal(aifab_profile_load(&fx->p, fx->path, sets, 1,
					    fx->err, sizeof(fx->err)), 0);
	assert_int_equal(fx->p.tc[2].pfc_xoff_bytes, 0);
	assert_int_equal(fx->p.tc[2].pfc_xon_offset_bytes, 20000);
	assert_int_equal(fx->p.tc[4].pfc_xoff_bytes, 50000);
}

/* [port.X] pfc_* over [tc.N] pfc_*, absolute XON, pfc = false. */
static void
test_port_pfc(void **state)
{
	static const char *const sets[] = { "port.b.pfc_xoff_bytes=",
					    "port.c.pfc=false" };
	struct fixture *fx = *state;
	struct aifab_pfc_eff e;
	int a, b, c;

	write_ini(fx, "[port.a]\npfc_xoff_bytes = 0\npfc_headroom_bytes = "
		  "50000\n[port.b]\npfc_xoff_bytes = 300000\n"
		  "pfc_xon_bytes = 100000\n[port.c]\n"
		  "pfc_xon_offset_bytes = 5000\n"
		  "[tc.3]\npfc_xoff_bytes = 200000\npfc_xon_bytes = 150000\n");
	assert_int_equal(aifab_profile_load(&fx->p, fx->path, NULL, 0, fx->err,
					    sizeof(fx->err)), 0);
	a = aifab_profile_port_index(&fx->p, "a");
	b = aifab_profile_port_index(&fx->p, "b");
	c = aifab_profile_port_index(&fx->p, "c");
	assert_true(a >= 0 && b >= 0 && c >= 0);
	assert_true(fx->p.ports[a].pfc);
	assert_true(fx->p.ports[a].has_pfc_xoff);
	assert_false(fx->p.ports[a].has_pfc_xon);
	/* a: dynamic XOFF and its headroom, the TC's absolute XON */
	aifab_profile_pfc_eff(&fx->p, (unsigned int)a, 3, &e);
	assert_true(e.enabled);
	assert_int_equal(e.xoff_bytes, 0);
	assert_int_equal(e.xon_bytes, 150000);
	assert_int_equal(e.headroom_bytes, 50000);
	/* b: its own static XOFF and absolute XON */
	aifab_profile_pfc_eff(&fx->p, (unsigned int)b, 3, &e);
	assert_int_equal(e.xoff_bytes, 300000);
	assert_int_equal(e.xon_bytes, 100000);
	assert_int_equal(e.headroom_bytes, 0);
	/* c: a port XON offset overrides the TC's absolute XON */
	aifab_profile_pfc_eff(&fx->p, (unsigned int)c, 3, &e);
	assert_int_equal(e.xoff_bytes, 200000);
	assert_int_equal(e.xon_bytes, 0);
	assert_int_equal(e.xon_offset_bytes, 5000);
	/* lossy TC 0: never enabled */
	aifab_profile_pfc_eff(&fx->p, (unsigned int)c, 0, &e);
	assert_false(e.enabled);

	/* --set: empty unsets a port key, pfc = false disables */
	assert_int_equal(aifab_profile_load(&fx->p, fx->path, sets, 2,
					    fx->err, sizeof(fx->err)), 0);
	assert_false(fx->p.ports[b].has_pfc_xoff);
	aifab_profile_pfc_eff(&fx->p, (unsigned int)b, 3, &e);
	assert_int_equal(e.xoff_bytes, 200000);
	assert_int_equal(e.xon_bytes, 100000);
	aifab_profile_pfc_eff(&fx->p, (unsigned int)c, 3, &e);
	assert_false(e.enabled);
}

static void
test_set_overrides(void **state)
{
	static const char *const sets[] = {
		"port.p0.speed_gbps=25",
		"routes.0.0.0.0/0=10.0.3.2",
		"port.p9.mtu = 9000",          /* new key in a new port */
		"port.p9.speed_gbps=2.5",
		"neighbors.10.0.0.2=02:bb:00:00:00:09",
		"general.seed=0x10",
		"switch.lcores=1,3-4",
		"port.p1.mac=",                /* unset */
		"port.p0.speed_gbps=40",       /* later --set wins */
	};
	struct fixture *fx = *state;
	struct aifab_profile *p = &fx->p;
	const struct aifab_route_params *r;
	uint8_t a[16];
	char path[PATH_MAX];
	int p9;

	leaf_path(path, sizeof(path));
	assert_int_equal(aifab_profile_load(p, path, sets, RTE_DIM(sets),
					    fx->err, sizeof(fx->err)), 0);
	assert_int_equal(p->ports[0].speed_mbps, 40000);
	assert_int_equal(p->ports[1].speed_mbps, 100000);
	assert_false(p->ports[1].has_mac);
	assert_int_equal(p->n_ports, 5);
	p9 = aifab_profile_port_index(p, "p9");
	assert_int_equal(p9, 4);
	assert_int_equal(p->ports[p9].mtu, 9000);
	assert_int_equal(p->ports[p9].speed_mbps, 2500);
	assert_int_equal(p->ports[p9].rx_desc, 1024);
	assert_false(p->ports[p9].has_ip4);
	assert_int_equal(p->seed, 16);
	assert_int_equal(p->n_switch_lcores, 3);
	assert_int_equal(p->switch_lcores[0], 1);
	assert_int_equal(p->switch_lcores[1], 3);
	assert_int_equal(p->switch_lcores[2], 4);
	assert_int_equal(p->n_neighs, 8);
	assert_int_equal(p->neighs[0].mac.addr_bytes[5], 9);

	assert_int_equal(p->n_routes, 2);
	r = &p->routes[0];
	assert_int_equal(r->family, AF_INET);
	assert_int_equal(r->n_nh, 1);
	addr(AF_INET, "10.0.3.2", a);
	assert_memory_equal(r->nh_addr[0], a, 16);
	assert_int_equal(p->neighs[r->nh_neigh[0]].port, 3);
	assert_int_equal(p->routes[1].n_nh, 2);
}

/* Write @p text to @p path (a routes file). */
static void
write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	assert_int_equal(fputs(text, f) >= 0, 1);
	assert_int_equal(fclose(f), 0);
}

/*
 * [routes] file: routes from a file beside the INI keys (comments, blank
 * lines, "=" allowed), the table grown past the old 1024, the digest
 * following the file's bytes, a duplicate across file and INI named by
 * file:line, a --set replacing a file route.
 */
static void
test_routes_file(void **state)
{
	struct fixture *fx = *state;
	struct aifab_profile *p = &fx->p;
	char rpath[PATH_MAX + 8], set[PATH_MAX + 32], want[PATH_MAX + 64];
	char digest[65], *text;
	const char *sets[2] = { set, "routes.11.0.7.0/24=10.0.3.2" };
	unsigned int i, n = 3000, found = 0;
	size_t len = 0;
	uint8_t a[16];

	leaf_path(fx->path, sizeof(fx->path));
	snprintf(rpath, sizeof(rpath), "%s/test_profile-routes-%d.txt",
		 getenv("TMPDIR") != NULL ? getenv("TMPDIR") : "/tmp",
		 (int)getpid());
	text = malloc(64 * (n + 4));
	assert_non_null(text);
	len += (size_t)sprintf(text + len, "# routes\n\n");
	for (i = 0; i < n; i++)
		len += (size_t)sprintf(text + len, "11.%u.%u.0/24 %s\n",
				       i / 256, i % 256, i % 2 ? "10.0.2.2" :
				       "10.0.2.2, 10.0.3.2");
	sprintf(text + len, "12.0.0.0/8 = 10.0.1.2 # trailing comment\n");
	write_file(rpath, text);
	snprintf(set, sizeof(set), "routes.file=%s", rpath);
	assert_int_equal(aifab_profile_load(p, fx->path, sets, 1, fx->err,
					    sizeof(fx->err)), 0);
	assert_int_equal(p->n_routes, 2 + n + 1); /* pcap-leaf's 2 */
	for (i = 0; i < p->n_routes; i++) {
		const struct aifab_route_params *r = &p->routes[i];

		addr(AF_INET, "12.0.0.0", a);
		if (r->depth == 8 && memcmp(r->prefix, a, 4) == 0) {
			assert_int_equal(r->n_nh, 1);
			assert_int_equal(p->neighs[r->nh_neigh[0]].port, 1);
			found++;
		}
		addr(AF_INET, "11.0.7.0", a);
		if (r->depth == 24 && memcmp(r->prefix, a, 4) == 0) {
			assert_int_equal(r->n_nh, 1); /* 7 is odd: one hop */
			found++;
		}
	}
	assert_int_equal(found, 2);
	strcpy(digest, p->digest);

	/* A --set replaces a file route; the same bytes, the same digest. */
	assert_int_equal(aifab_profile_load(p, fx->path, sets, 2, fx->err,
					    sizeof(fx->err)), 0);
	assert_int_equal(p->n_routes, 2 + n + 1);
	assert_string_not_equal(p->digest, digest); /* the --set line */
	assert_int_equal(aifab_profile_load(p, fx->path, sets, 1, fx->err,
					    sizeof(fx->err)), 0);
	assert_string_equal(p->digest, digest);
	/* One byte of the file changed: another digest. */
	text[strlen(text) - 2] = ' ';
	write_file(rpath, text);
	assert_int_equal(aifab_profile_load(p, fx->path, sets, 1, fx->err,
					    sizeof(fx->err)), 0);
	assert_string_not_equal(p->digest, digest);

	/* The file's 0.0.0.0/0 duplicates pcap-leaf's INI key. */
	write_file(rpath, "11.0.0.0/8 10.0.2.2\n0.0.0.0/0 10.0.2.2\n");
	assert_int_equal(aifab_profile_load(p, fx->path, sets, 1, fx->err,
					    sizeof(fx->err)), -1);
	snprintf(want, sizeof(want), "%s:2: [routes] 0.0.0.0/0 = "
		 "'10.0.2.2': duplicate route, also [routes] 0.0.0.0/0",
		 rpath);
	assert_non_null(strstr(fx->err, want));
	printf("  %s\n", fx->err);
	unlink(rpath);
	free(text);
	fx->path[0] = '\0'; /* pcap-leaf.ini is not ours to unlink */
}

/* A bad value in the file is fine if a --set replaces it. */
static void
test_set_fixes_file(void **state)
{
	static const char *const sets[] = { "port.a.mtu=9000" };
	struct fixture *fx = *state;

	write_ini(fx, "[port.a]\nmtu = 99999\n");
	assert_int_equal(aifab_profile_load(&fx->p, fx->path, NULL, 0, fx->err,
					    sizeof(fx->err)), -1);
	assert_int_equal(aifab_profile_load(&fx->p, fx->path, sets, 1,
					    fx->err, sizeof(fx->err)), 0);
	assert_int_equal(fx->p.ports[0].mtu, 9000);
}

/* Comment forms: ';' anywhere, '#' at line start even with '=' in it. */
static void
test_comments(void **state)
{
	struct fixture *fx = *state;

	write_ini(fx,
		  "# leading comment = with an equals sign\n"
		  "; classic comment\n"
		  "[general] ; trailing\n"
		  "  # name = commented-out\n"
		  "burst = 64 ; trailing comment\n"
		  "\n"
		  "[port.a]\r\n"
		  "#mtu = 100\n"
		  "mtu = 9000\n");
	assert_int_equal(aifab_profile_load(&fx->p, fx->path, NULL, 0, fx->err,
					    sizeof(fx->err)), 0);
	assert_string_equal(fx->p.name, "unnamed");
	assert_int_equal(fx->p.burst, 64);
	assert_int_equal(fx->p.ports[0].mtu, 9000);
}

/* ---- bad inputs ------------------------------------------------------- */

/* Two ports, two neighbours; [neighbors] last so cases can add lines. */
#define BASE \
	"[port.a]\nmac = 02:aa:00:00:00:01\nipv4 = 10.0.0.1/24\n" \
	"ipv6 = fd00::1/64\n" \
	"[port.b]\nmac = 02:aa:00:00:00:02\nipv4 = 10.0.1.1/24\n" \
	"[neighbors]\n10.0.0.2 = 02:bb:00:00:00:01\n" \
	"10.0.1.2 = 02:bb:00:00:00:02\n"

#define NH17 "10.0.1.2 10.0.1.3 10.0.1.4 10.0.1.5 10.0.1.6 10.0.1.7 " \
	"10.0.1.8 10.0.1.9 10.0.1.10 10.0.1.11 10.0.1.12 10.0.1.13 " \
	"10.0.1.14 10.0.1.15 10.0.1.16 10.0.1.17 10.0.1.18"

struct bad_case {
	const char *name;
	const char *ini;             /* file text */
	const char *sets[2];         /* NULL-terminated */
	bool from_set;               /* error names "--set", not the file */
	const char *want[5];         /* substrings of the error line */
};

static const struct bad_case bad_cases[] = {
	{ "wire to nowhere", BASE "[port.c]\nwire = p9\n", {NULL}, false,
	  { "[port.c] wire = 'p9'", "no such port", "another [port" } },
	{ "wire to itself", BASE "[port.c]\nwire = c\n", {NULL}, false,
	  { "[port.c] wire = 'c'", "cannot wire itself" } },
	{ "wire and device", BASE "[port.c]\nwire = a\ndevice = net_null0\n",
	  {NULL}, false, { "[port.c] wire = 'a'", "wire or device" } },
	{ "two wires to one port", BASE "[port.c]\nwire = a\n"
	  "[port.d]\nwire = a\n", {NULL}, false,
	  { "wire = 'a'", "is wired too", "one cable per port" } },
	{ "unknown section", BASE "[bogus]\nx = 1\n", {NULL}, false,
	  { "[bogus] x = '1'", "unknown section" } },
	{ "unknown key", BASE "[general]\nburts = 32\n", {NULL}, false,
	  { "[general] burts = '32'", "unknown key", "burst" } },
	{ "bad number", BASE "[general]\nburst = 3x\n", {NULL}, false,
	  { "[general] burst = '3x'", "not a number", "1..512" } },
	{ "negative number", BASE "[general]\nmbufs = -1\n", {NULL}, false,
	  { "[general] mbufs = '-1'", "0 or 1024..1048576" } },
	{ "out of range", BASE "[general]\nburst = 513\n", {NULL}, false,
	  { "[general] burst = '513'", "out of range", "1..512" } },
	{ "speed out of range", BASE "[port.c]\nspeed_gbps = 0.001\n", {NULL},
	  false, { "[port.c] speed_gbps = '0.001'", "0.01..1600" } },
	{ "bad bool", BASE "[switch]\nenabled = maybe\n", {NULL}, false,
	  { "[switch] enabled = 'maybe'", "true, false" } },
	{ "bad enum", BASE "[port.c]\nrole = spine\n", {NULL}, false,
	  { "[port.c] role = 'spine'", "downlink, uplink" } },
	{ "bad MAC", BASE "[port.c]\nmac = 02:aa:00:00:00\n", {NULL}, false,
	  { "[port.c] mac = '02:aa:00:00:00'", "not a MAC" } },
	{ "multicast MAC", BASE "[port.c]\nmac = 01:00:5e:00:00:01\n", {NULL},
	  false, { "[port.c] mac = '01:00:5e:00:00:01'", "unicast" } },
	{ "bad prefix", BASE "[port.c]\nipv4 = 10.0.9.1/33\n", {NULL}, false,
	  { "[port.c] ipv4 = '10.0.9.1/33'", "prefix length", "1..32" } },
	{ "prefix wrong family", BASE "[port.c]\nipv4 = fd01::1/64\n", {NULL},
	  false, { "[port.c] ipv4 = 'fd01::1/64'", "family" } },
	{ "bad route prefix", BASE "[routes]\n10.0.0/8 = 10.0.0.2\n", {NULL},
	  false, { "[routes] 10.0.0/8 = '10.0.0.2'", "not an IP" } },
	{ "host bits set", BASE "[routes]\n10.1.0.0/8 = 10.0.0.2\n", {NULL},
	  false, { "[routes] 10.1.0.0/8 = '10.0.0.2'", "host bits",
		   "10.0.0.0/8" } },
	{ "duplicate port MAC", BASE "[port.c]\nmac = 02:aa:00:00:00:01\n",
	  {NULL}, false,
	  { "[port.c] mac = '02:aa:00:00:00:01'", "[port.a]", "unique" } },
	{ "duplicate port device",
	  BASE "[port.c]\ndevice = net_null0\n[port.d]\ndevice = net_null0\n",
	  {NULL}, false, { "[port.d] device = 'net_null0'", "[port.c]" } },
	{ "overlapping subnets", BASE "[port.c]\nipv4 = 10.0.0.129/25\n",
	  {NULL}, false, { "[port.c] ipv4 = '10.0.0.129/25'", "overlaps",
			   "[port.a]" } },
	{ "overlapping IPv6 subnets", BASE "[port.c]\nipv6 = fd00::/16\n",
	  {NULL}, false, { "[port.c] ipv6 = 'fd00::/16'", "overlaps" } },
	{ "neighbour outside subnets", BASE "10.9.9.2 = 02:bb:00:00:00:03\n",
	  {NULL}, false, { "[neighbors] 10.9.9.2 = '02:bb:00:00:00:03'",
			   "not inside", "10.0.0.1/24" } },
	{ "neighbour is a port address", BASE "10.0.1.1 = 02:bb:00:00:00:03\n",
	  {NULL}, false, { "[neighbors] 10.0.1.1 = '02:bb:00:00:00:03'",
			   "[port.b]" } },
	{ "duplicate neighbour", BASE "10.0.0.2 = 02:bb:00:00:00:03\n",
	  {NULL}, false, { "[neighbors] 10.0.0.2 = '02:bb:00:00:00:03'",
			   "duplicate" } },
	{ "neighbour address with leading zero",
	  BASE "10.0.0.03 = 02:bb:00:00:00:03\n", {NULL}, false,
	  { "[neighbors] 10.0.0.03 = '02:bb:00:00:00:03'", "not an IPv4" } },
	{ "duplicate neighbour spelled differently",
	  BASE "fd00::2 = 02:bb:00:00:00:03\nfd00:0::2 = 02:bb:00:00:00:04\n",
	  {NULL}, false, { "[neighbors] fd00:0::2 = '02:bb:00:00:00:04'",
			   "duplicate", "fd00::2" } },
	{ "route via missing neighbour",
	  BASE "[routes]\n0.0.0.0/0 = 10.0.1.2 10.0.1.3\n", {NULL}, false,
	  { "[routes] 0.0.0.0/0 = '10.0.1.2 10.0.1.3'", "route to nowhere",
	    "10.0.1.3" } },
	{ "route next hop wrong family", BASE "[routes]\n::/0 = 10.0.1.2\n",
	  {NULL}, false, { "[routes] ::/0 = '10.0.1.2'", "family" } },
	{ "too many next hops", BASE "[routes]\n0.0.0.0/0 = " NH17 "\n",
	  {NULL}, false, { "[routes] 0.0.0.0/0 = '10.0.1.2 ", "more than 16",
			   "1..16" } },
	{ "lcore out of range", BASE "[switch]\nlcores = 1,200\n", {NULL},
	  false, { "[switch] lcores = '1,200'", "RTE_MAX_LCORE", "0..127" } },
	{ "lcore bad range", BASE "[switch]\nlcores = 3-1\n", {NULL}, false,
	  { "[switch] lcores = '3-1'" } },
	{ "no ports", "[general]\nname = x\n", {NULL}, false,
	  { "[port.<name>]", "no ports" } },
	{ "bad port name", BASE "[port.c d]\nmtu = 1500\n", {NULL}, false,
	  { "[port.c d] mtu = '1500'", "port name" } },
	{ "duplicate section", BASE "[port.a]\nmtu = 1500\n", {NULL}, false,
	  { "[port.a]", "duplicate section" } },
	{ "duplicate key", BASE "[general]\nburst = 1\nburst = 2\n", {NULL},
	  false, { "[general] burst = '2'", "duplicate key" } },
	{ "line without =", BASE "[general]\nburst 64\n", {NULL}, false,
	  { "[general] line 12 = 'burst 64'", "not a 'key = value' line" } },
	{ "no closing bracket", BASE "[general\n", {NULL}, false,
	  { "line 11 = '[general'", "']'" } },
	{ "key outside sections", "mtu = 1500\n" BASE, {NULL}, false,
	  { "[-] mtu = '1500'", "outside any section" } },
	{ "'#' is not an inline comment", BASE "[general]\nburst = 8 # x\n",
	  {NULL}, false, { "[general] burst = '8 # x'" } },
	{ "malformed --set: no '='", BASE, { "port.a.mtu", NULL }, true,
	  { "[port.a] mtu = ''", "no '='", "port.a.mtu", "section.key=value" } },
	{ "malformed --set: no dot", BASE, { "mtu=9000", NULL }, true,
	  { "mtu = '9000'", "no '.'", "section.key=value" } },
	{ "malformed --set: unknown section", BASE, { "bogus.x=1", NULL }, true,
	  { "[bogus] x = '1'", "unknown section", "general, switch" } },
	{ "malformed --set: port without key", BASE, { "port.a=1", NULL },
	  true, { "[port] a = '1'", "no key after the port name" } },
	{ "--set unknown key", BASE, { "port.a.speed=25", NULL }, true,
	  { "[port.a] speed = '25'", "unknown key", "speed_gbps" } },
	{ "--set bad value", BASE, { "port.a.mtu=10", NULL }, true,
	  { "[port.a] mtu = '10'", "68..9000" } },
	{ "--set route to nowhere", BASE, { "routes.::/0=fd00::9", NULL }, true,
	  { "[routes] ::/0 = 'fd00::9'", "route to nowhere" } },
	{ "--set overlapping port", BASE, { "port.z.ipv4=10.0.1.5/16", NULL },
	  true, { "[port.z] ipv4 = '10.0.1.5/16'", "overlaps" } },

	/* [tc.<n>], [qos], [ecmp], [pfc] */
	{ "tc index 8", BASE "[tc.8]\nweight = 1\n", {NULL}, false,
	  { "[tc.8] weight = '1'", "bad TC index '8'", "0..7" } },
	{ "tc index not a number", BASE "[tc.x]\nweight = 1\n", {NULL}, false,
	  { "[tc.x] weight = '1'", "bad TC index 'x'", "0..7" } },
	{ "tc index with leading zero", BASE "[tc.03]\nweight = 1\n", {NULL},
	  false, { "[tc.03] weight = '1'", "bad TC index" } },
	{ "tc without index", BASE "[tc]\nweight = 1\n", {NULL}, false,
	  { "[tc] weight = '1'", "unknown section", "tc.<0..7>" } },
	{ "--set tc index 8", BASE, { "tc.8.weight=2", NULL }, true,
	  { "[tc.8] weight = '2'", "bad TC index '8'", "0..7" } },
	{ "--set tc.x", BASE, { "tc.x.weight=2", NULL }, true,
	  { "[tc.x] weight = '2'", "bad TC index 'x'" } },
	{ "--set tc without key", BASE, { "tc.3=2", NULL }, true,
	  { "[tc] 3 = '2'", "no key after the TC index" } },
	{ "tc unknown key", BASE "[tc.2]\nkmin = 5\n", {NULL}, false,
	  { "[tc.2] kmin = '5'", "unknown key", "ecn_kmin_bytes" } },
	{ "weight 0", BASE "[tc.1]\nweight = 0\n", {NULL}, false,
	  { "[tc.1] weight = '0'", "out of range", "1..100" } },
	{ "kmin above kmax", BASE "[tc.3]\necn_kmin_bytes = 2000000\n",
	  {NULL}, false, { "[tc.3] ecn_kmin_bytes = '2000000'",
			   "above ecn_kmax_bytes = 1600000", "0..1600000" } },
	{ "kmax below default kmin", BASE "[tc.5]\necn_kmax_bytes = 1000\n",
	  {NULL}, false, { "[tc.5] ecn_kmin_bytes = '400000'",
			   "above ecn_kmax_bytes = 1000", "0..1000" } },
	{ "--set kmin above kmax", BASE,
	  { "tc.0.ecn_kmin_bytes=1600001", NULL }, true,
	  { "[tc.0] ecn_kmin_bytes = '1600001'", "ecn_kmax_bytes" } },
	{ "kmin above kmax set by --set",
	  BASE "[tc.3]\necn_kmin_bytes = 300000\n",
	  { "tc.3.ecn_kmax_bytes=200000", NULL }, false,
	  { "[tc.3] ecn_kmin_bytes = '300000'",
	    "ecn_kmax_bytes = 200000 (from --set)" } },
	{ "xon offset equals xoff",
	  BASE "[tc.3]\npfc_xoff_bytes = 20000\n", {NULL}, false,
	  { "[tc.3] pfc_xon_offset_bytes = '20000'",
	    "not below pfc_xoff_bytes = 20000", "0..19999" } },
	{ "--set xon offset above xoff", BASE,
	  { "tc.1.pfc_xon_offset_bytes=90000", "tc.1.pfc_xoff_bytes=9000" },
	  true, { "[tc.1] pfc_xon_offset_bytes = '90000'",
		  "pfc_xoff_bytes = 9000 (from --set)" } },
	{ "absolute xon equals xoff",
	  BASE "[tc.3]\npfc_xoff_bytes = 20000\npfc_xon_bytes = 20000\n",
	  {NULL}, false, { "[tc.3] pfc_xon_bytes = '20000'",
			   "not below pfc_xoff_bytes = 20000", "1..19999" } },
	{ "port xon above the port's xoff", BASE,
	  { "port.b.pfc_xoff_bytes=50000", "port.b.pfc_xon_bytes=60000" },
	  true, { "[port.b] pfc_xon_bytes = '60000'",
		  "not below pfc_xoff_bytes = 50000", "[tc.3]",
		  "1..49999" } },
	{ "port xon offset above the TC's xoff",
	  BASE "[tc.3]\npfc_xoff_bytes = 80000\n",
	  { "port.a.pfc_xon_offset_bytes=90000", NULL }, true,
	  { "[port.a] pfc_xon_offset_bytes = '90000'",
	    "not below pfc_xoff_bytes = 80000", "the TC's", "0..79999" } },
	{ "--set port xoff below 1024", BASE,
	  { "port.a.pfc_xoff_bytes=100", NULL }, true,
	  { "[port.a] pfc_xoff_bytes = '100'", "0 or 1024..",
	    "or empty = unset" } },
	{ "xoff below 1024", BASE "[tc.3]\npfc_xoff_bytes = 100\n", {NULL},
	  false, { "[tc.3] pfc_xoff_bytes = '100'", "0 or 1024.." } },
	{ "queue limit above buffer",
	  BASE "[qos]\nbuffer_bytes = 65536\n[tc.1]\n"
	  "queue_limit_bytes = 65537\n", {NULL}, false,
	  { "[tc.1] queue_limit_bytes = '65537'",
	    "above [qos] buffer_bytes = 65536", "1024..65536" } },
	{ "buffer too small", BASE "[qos]\nbuffer_bytes = 65535\n", {NULL},
	  false, { "[qos] buffer_bytes = '65535'", "65536..4294967296" } },
	{ "buffer too large", BASE "[qos]\nbuffer_bytes = 4294967297\n",
	  {NULL}, false, { "[qos] buffer_bytes = '4294967297'",
			   "out of range" } },
	{ "pmax 101", BASE "[tc.3]\necn_pmax_percent = 101\n", {NULL}, false,
	  { "[tc.3] ecn_pmax_percent = '101'", "out of range",
	    "0..100 (at most 4 decimals)" } },
	{ "pmax 5 decimals", BASE "[tc.3]\necn_pmax_percent = 0.00001\n",
	  {NULL}, false, { "[tc.3] ecn_pmax_percent = '0.00001'",
			   "at most 4 decimals" } },
	{ "alpha 9", BASE "[tc.3]\nalpha = 9\n", {NULL}, false,
	  { "[tc.3] alpha = '9'", "out of range", "0.015..8" } },
	{ "alpha 0.01", BASE "[tc.3]\nalpha = 0.01\n", {NULL}, false,
	  { "[tc.3] alpha = '0.01'", "0.015..8" } },
	{ "alpha not decimal", BASE "[tc.3]\nalpha = 1/2\n", {NULL}, false,
	  { "[tc.3] alpha = '1/2'", "not a decimal" } },
	{ "dscp 64 in map", BASE "[qos]\ndscp_to_tc = 26:3 64:1\n", {NULL},
	  false, { "[qos] dscp_to_tc = '26:3 64:1'", "key 64 is not in 0..63",
		   "keys 0..63" } },
	{ "tc 8 in map", BASE "[qos]\ndscp_to_tc = 26:8\n", {NULL}, false,
	  { "[qos] dscp_to_tc = '26:8'", "value 8", "values 0..7" } },
	{ "duplicate dscp key", BASE "[qos]\ndscp_to_tc = 26:3,48:6,26:4\n",
	  {NULL}, false, { "[qos] dscp_to_tc = '26:3,48:6,26:4'",
			   "key 26 listed twice" } },
	{ "map entry without colon", BASE "[qos]\npcp_to_tc = 3\n", {NULL},
	  false, { "[qos] pcp_to_tc = '3'", "not key:value" } },
	{ "pcp 8 in map", BASE, { "qos.pcp_to_tc=8:1", NULL }, true,
	  { "[qos] pcp_to_tc = '8:1'", "key 8 is not in 0..7" } },
	{ "unknown flag name", BASE "[ecmp]\nfields = sip,dip,vlan\n", {NULL},
	  false, { "[ecmp] fields = 'sip,dip,vlan'", "unknown name 'vlan'",
		   "sip, dip, proto, sport, dport, dqpn" } },
	{ "flag twice", BASE "[ecmp]\nfields = sip sip\n", {NULL}, false,
	  { "[ecmp] fields = 'sip sip'", "listed twice" } },
	{ "empty fields", BASE "[ecmp]\nfields =\n", {NULL}, false,
	  { "[ecmp] fields = ''", "empty", "not empty" } },
	{ "buckets 100", BASE "[ecmp]\nbuckets = 100\n", {NULL}, false,
	  { "[ecmp] buckets = '100'", "not a power of two",
	    "8..65536, a power of two" } },
	{ "buckets 4", BASE "[ecmp]\nbuckets = 4\n", {NULL}, false,
	  { "[ecmp] buckets = '4'", "out of range" } },
	{ "rss_key wrong length", BASE "[ecmp]\nrss_key = 6d:5a:56:da\n",
	  {NULL}, false, { "[ecmp] rss_key = '6d:5a:56:da'", "4 bytes",
			   "40 or 52 bytes" } },
	{ "rss_key bad hex", BASE "[ecmp]\nrss_key = 6d:5g\n", {NULL}, false,
	  { "[ecmp] rss_key = '6d:5g'", "'g' is not a hex digit" } },
	{ "rss_key odd digits", BASE "[ecmp]\nrss_key = 6d5\n", {NULL}, false,
	  { "[ecmp] rss_key = '6d5'", "odd number of hex digits" } },
	{ "rss_key stray colon", BASE "[ecmp]\nrss_key = :6d\n", {NULL}, false,
	  { "[ecmp] rss_key = ':6d'", "':' not between two bytes" } },
	{ "rss_key too long", BASE, { "ecmp.rss_key=" 
	  "000102030405060708090a0b0c0d0e0f000102030405060708090a0b0c0d0e0f"
	  "000102030405060708090a0b0c0d0e0f000102030405060708090a0b", NULL },
	  true, { "[ecmp] rss_key = '0001", "more than 52 bytes" } },
	{ "bad hash", BASE "[ecmp]\nhash = crc16\n", {NULL}, false,
	  { "[ecmp] hash = 'crc16'", "crc32c, toeplitz, jhash" } },
	{ "detection too short", BASE "[pfc]\ndetection_ms = 99\n", {NULL},
	  false, { "[pfc] detection_ms = '99'", "100..5000" } },
	{ "bad pfcwd action", BASE, { "pfc.action=shutdown", NULL }, true,
	  { "[pfc] action = 'shutdown'", "drop, forward, alert" } },
	{ "bad trust", BASE "[port.c]\ntrust = exp\n", {NULL}, false,
	  { "[port.c] trust = 'exp'", "dscp, pcp" } },
	{ "cable too long", BASE, { "port.a.cable_m=10001", NULL }, true,
	  { "[port.a] cable_m = '10001'", "0..10000" } },
	{ "duplicate tc section", BASE "[tc.1]\nweight = 2\n[tc.1]\n"
	  "weight = 3\n", {NULL}, false, { "[tc.1]", "duplicate section" } },
	{ "icrc check word", BASE "[generator]\nrx_check_icrc = sometimes\n",
	  {NULL}, false, { "[generator] rx_check_icrc = 'sometimes'",
	  "not full, off or every=<number>", "full, off, or every=N",
	  "1..4294967295" } },
	{ "icrc check every 0", BASE, { "generator.rx_check_icrc=every=0",
	  NULL }, true, { "[generator] rx_check_icrc = 'every=0'",
	  "out of range", "every=N with N 1..4294967295" } },
	{ "icrc check every junk", BASE "[generator]\n"
	  "rx_check_icrc = every=5x\n", {NULL}, false,
	  { "rx_check_icrc = 'every=5x'", "allowed: full, off, or every=N" } },
	{ "corrupt ppm", BASE, { "generator.fault_corrupt_ppm=1000001", NULL },
	  true, { "[generator] fault_corrupt_ppm = '1000001'", "0..1000000" } },
};

static void
test_bad(void **state)
{
	struct fixture *fx = *state;
	const struct bad_case *c = fx->bad;
	unsigned int n_sets = 0, i;
	char prefix[PATH_MAX + 4];

	while (n_sets < RTE_DIM(c->sets) && c->sets[n_sets] != NULL)
		n_sets++;
	write_ini(fx, c->ini);
	assert_int_equal(aifab_profile_load(&fx->p, fx->path, c->sets, n_sets,
					    fx->err, sizeof(fx->err)), -1);
	print_message("  %s\n", fx->err);
	snprintf(prefix, sizeof(prefix), "%s: [",
		 c->from_set ? "--set" : fx->path);
	if (strncmp(fx->err, prefix, strlen(prefix)) != 0)
		fail_msg("error does not start with '%s': %s", prefix, fx->err);
	if (strstr(fx->err, "; allowed: ") == NULL)
		fail_msg("no '; allowed: ' in: %s", fx->err);
	assert_null(strchr(fx->err, '\n'));
	for (i = 0; i < RTE_DIM(c->want) && c->want[i] != NULL; i++)
		if (strstr(fx->err, c->want[i]) == NULL)
			fail_msg("'%s' not in: %s", c->want[i], fx->err);
}

/* Each bad case is its own test; its case arrives as the initial state. */
static int
setup_bad(void **state)
{
	const struct bad_case *c = *state;

	if (setup(state) != 0)
		return -1;
	((struct fixture *)*state)->bad = c;
	return 0;
}

/* ---- docs ------------------------------------------------------------- */

static void
test_docs(void **state)
{
	struct fixture *fx = *state;
	char path[PATH_MAX], *gen = NULL, *file;
	size_t gen_len = 0;
	long file_len;
	FILE *f;

	(void)fx;
	f = open_memstream(&gen, &gen_len);
	assert_non_null(f);
	aifab_profile_write_doc(f);
	assert_int_equal(fclose(f), 0);

	snprintf(path, sizeof(path), "%s/docs/profiles.md", src_root());
	f = fopen(path, "r");
	if (f == NULL)
		fail_msg("cannot open %s; " REGEN_HINT, path);
	fseek(f, 0, SEEK_END);
	file_len = ftell(f);
	fseek(f, 0, SEEK_SET);
	file = calloc(1, (size_t)file_len + 1);
	assert_non_null(file);
	assert_int_equal(fread(file, 1, (size_t)file_len, f), file_len);
	fclose(f);
	if ((size_t)file_len != gen_len || memcmp(file, gen, gen_len) != 0) {
		free(file);
		free(gen);
		fail_msg("%s differs from aifab_profile_write_doc(); "
			 REGEN_HINT, path);
	}
	free(file);
	free(gen);
}

int
main(int argc, char **argv)
{
	static const struct CMUnitTest fixed[] = {
		cmocka_unit_test_setup_teardown(test_defaults, setup, teardown),
		cmocka_unit_test_setup_teardown(test_pcap_leaf, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_embedded_equals_file,
						setup, teardown),
		cmocka_unit_test_setup_teardown(test_set_overrides, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_set_fixes_file, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_routes_file, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_comments, setup, teardown),
		cmocka_unit_test_setup_teardown(test_port_defaults, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_new_types, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_sampling, setup, teardown),
		cmocka_unit_test_setup_teardown(test_new_types_edges, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_set_new_sections, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_set_tc_over_file, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_port_pfc, setup, teardown),
		cmocka_unit_test_setup_teardown(test_switches, setup, teardown),
		cmocka_unit_test_setup_teardown(test_docs, setup, teardown),
		cmocka_unit_test_setup_teardown(test_clock, setup, teardown),
	};
	struct CMUnitTest *tests;
	size_t n = RTE_DIM(fixed), i;
	int rc;

	if (argc > 1 && strcmp(argv[1], "--write-doc") == 0) {
		aifab_profile_write_doc(stdout);
		return 0;
	}
	tests = calloc(n + RTE_DIM(bad_cases), sizeof(*tests));
	if (tests == NULL)
		return 1;
	memcpy(tests, fixed, sizeof(fixed));
	for (i = 0; i < RTE_DIM(bad_cases); i++) {
		tests[n + i].name = bad_cases[i].name;
		tests[n + i].test_func = test_bad;
		tests[n + i].setup_func = setup_bad;
		tests[n + i].teardown_func = teardown;
		tests[n + i].initial_state = (void *)(uintptr_t)&bad_cases[i];
	}
	rc = _cmocka_run_group_tests("profile", tests, n + RTE_DIM(bad_cases),
				     NULL, NULL);
	free(tests);
	return rc;
}
