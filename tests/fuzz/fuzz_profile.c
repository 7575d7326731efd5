/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Fuzz target: profile loading (lib/profile over rte_cfgfile), from a file
 * and from --set strings.
 *
 * Input: the INI text up to the first NUL byte; after it, NUL-separated
 * "section.key=value" strings (at most 8) applied as --set. The text is
 * written to a memfd and loaded by its /proc/self/fd path; each input is
 * loaded twice, with and without the --set strings.
 *
 * Checks: the answer is 0 or -1; a failure fills err with exactly one
 * line (no newline or other control character), naming the file or
 * "--set" first and saying what is allowed; a success gives a profile that
 * passes the whole-profile rules (ports, neighbours, routes, TC
 * thresholds). LeakSanitizer checks every path frees what it allocated.
 */
#include <stdbool.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <unistd.h>

#include "aifab_profile.h"
#include "fuzz_common.h"

#define MAX_SETS 8

static int fd = -1;
static char path[64];
static struct aifab_profile prof;

int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
	RTE_SET_USED(argc);
	RTE_SET_USED(argv);
	fd = memfd_create("fuzz_profile.ini", 0);
	if (fd < 0)
		abort();
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	return 0;
}

static void
check_err(const char *err, size_t errlen, bool with_sets)
{
	size_t n = strnlen(err, errlen), i;

	FUZZ_ASSERT(n > 0 && n < errlen);
	for (i = 0; i < n; i++)
		if ((unsigned char)err[i] < 0x20 || err[i] == 0x7f) {
			fprintf(stderr, "error line with control character "
				"0x%02x at %zu: %s\n", (unsigned char)err[i],
				i, err);
			abort();
		}
	if (strncmp(err, path, strlen(path)) != 0 &&
	    !(with_sets && strncmp(err, "--set", 5) == 0)) {
		fprintf(stderr, "error line names neither the file nor "
			"--set: %s\n", err);
		abort();
	}
	if (strstr(err, "allowed") == NULL && strstr(err, "cannot") == NULL) {
		fprintf(stderr, "error line says nothing allowed: %s\n", err);
		abort();
	}
}

static void
check_profile(const struct aifab_profile *p)
{
	unsigned int i, k, tc;

	FUZZ_ASSERT(p->n_ports >= 1 && p->n_ports <= AIFAB_MAX_PORTS);
	FUZZ_ASSERT(p->n_neighs <= AIFAB_MAX_NEIGHS);
	FUZZ_ASSERT(p->n_routes <= AIFAB_MAX_ROUTES);
	FUZZ_ASSERT(p->burst >= 1 && p->burst <= 512);
	for (i = 0; i < p->n_ports; i++) {
		FUZZ_ASSERT(p->ports[i].name[0] != '\0');
		FUZZ_ASSERT(p->ports[i].mtu >= 68 && p->ports[i].mtu <= 9000);
		FUZZ_ASSERT(aifab_profile_port_index(p, p->ports[i].name) ==
			    (int)i);
		FUZZ_ASSERT(!p->ports[i].has_ip4 ||
			    (p->ports[i].ip4_depth >= 1 &&
			     p->ports[i].ip4_depth <= 32));
		FUZZ_ASSERT(!p->ports[i].has_ip6 ||
			    (p->ports[i].ip6_depth >= 1 &&
			     p->ports[i].ip6_depth <= 128));
	}
	for (i = 0; i < p->n_neighs; i++)
		FUZZ_ASSERT(p->neighs[i].port < p->n_ports);
	for (i = 0; i < p->n_routes; i++) {
		const struct aifab_route_params *r = &p->routes[i];

		FUZZ_ASSERT(r->n_nh >= 1 && r->n_nh <= AIFAB_MAX_ECMP);
		FUZZ_ASSERT(r->depth <= (r->family == AF_INET ? 32 : 128));
		for (k = 0; k < r->n_nh; k++) {
			FUZZ_ASSERT(r->nh_neigh[k] < p->n_neighs);
			FUZZ_ASSERT(p->neighs[r->nh_neigh[k]].family ==
				    r->family);
		}
	}
	for (tc = 0; tc < AIFAB_N_TC; tc++) {
		const struct aifab_tc_params *t = &p->tc[tc];

		FUZZ_ASSERT(t->ecn_kmin_bytes <= t->ecn_kmax_bytes);
		FUZZ_ASSERT(t->pfc_xoff_bytes == 0 ||
			    t->pfc_xon_offset_bytes < t->pfc_xoff_bytes);
		FUZZ_ASSERT(t->queue_limit_bytes <= p->qos.buffer_bytes);
		FUZZ_ASSERT(t->pfc_pause_quanta >= 1 &&
			    t->pfc_pause_quanta <= 65535);
	}
	for (i = 0; i < 64; i++)
		FUZZ_ASSERT(p->qos.dscp_tc[i] < AIFAB_N_TC);
	for (i = 0; i < 8; i++)
		FUZZ_ASSERT(p->qos.pcp_tc[i] < AIFAB_N_TC);
}

static void
load(const char *const *sets, unsigned int n)
{
	char err[AIFAB_ERR_LEN];
	int rc;

	memset(err, 0x55, sizeof(err));
	rc = aifab_profile_load(&prof, path, sets, n, err, sizeof(err));
	FUZZ_ASSERT(rc == 0 || rc == -1);
	if (rc != 0)
		check_err(err, sizeof(err), n > 0);
	else
		check_profile(&prof);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *sets[MAX_SETS];
	char *copy;
	size_t text_len, off;
	unsigned int n = 0;

	if (size > 1 << 16)
		return 0;
	text_len = strnlen((const char *)data, size);
	if (ftruncate(fd, 0) != 0 ||
	    pwrite(fd, data, text_len, 0) != (ssize_t)text_len)
		abort();
	/* The --set strings, NUL-terminated copies. */
	copy = malloc(size - text_len + 1);
	FUZZ_ASSERT(copy != NULL);
	memcpy(copy, data + text_len, size - text_len);
	copy[size - text_len] = '\0';
	for (off = 1; off < size - text_len + 1 && n < MAX_SETS;) {
		sets[n++] = copy + off;
		off += strlen(copy + off) + 1;
	}
	if (size == text_len)
		n = 0;
	load(NULL, 0);
	if (n > 0)
		load(sets, n);
	free(copy);
	return 0;
}
