/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The generator's ranks: their addresses (base + index, or the rank
 * table's), the rank table ("<rank> <mac> <ipv4> [<port>] [host=<name>]",
 * docs/generator.md) and which ranks this process emulates (its host's and
 * those without a host), with the leader's start-frame destinations. Used
 * by generator_setup.c while building; calls nothing of the generator.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <arpa/inet.h>

#include <rte_byteorder.h>
#include <rte_common.h>
#include <rte_ether.h>

#include "generator_priv.h"

void
gen_rank_addr(const struct aifab_gen_params *p, uint32_t r,
	  struct rte_ether_addr *mac, uint32_t *ip)
{
	uint32_t low;

	if (p->rank_mac != NULL) {
		*mac = p->rank_mac[r];
	} else {
		*mac = p->base_mac;
		low = ((uint32_t)mac->addr_bytes[3] << 16 |
		       (uint32_t)mac->addr_bytes[4] << 8 |
		       mac->addr_bytes[5]) + r;
		mac->addr_bytes[3] = (uint8_t)(low >> 16);
		mac->addr_bytes[4] = (uint8_t)(low >> 8);
		mac->addr_bytes[5] = (uint8_t)low;
	}
	*ip = p->rank_ip != NULL ? p->rank_ip[r] :
		p->base_ip + r * RTE_MAX(p->ip_stride, 1u);
}

/* ---- rank table ---------------------------------------------------------- */

void
gen_rank_tab_free(struct gen_rank_tab *t)
{
	free(t->mac);
	free(t->ip);
	free(t->port);
	free(t->host);
	free(t->seen);
}

/* This process's host name ("" none). */
static const char *
my_host(const struct gen *g)
{
	return g->p.host != NULL ? g->p.host : "";
}

/* Index of host @p name in g->hosts (added if new); -1: too many. */
static int
host_index(struct gen *g, const char *name)
{
	uint16_t h;

	if (g->n_hosts == 0)
		g->n_hosts = 1; /* hosts[0] = "": lines without host= */
	for (h = 1; h < g->n_hosts; h++)
		if (strcmp(g->hosts[h], name) == 0)
			return h;
	if (g->n_hosts == GEN_MAX_HOSTS)
		return -1;
	snprintf(g->hosts[g->n_hosts], sizeof(g->hosts[0]), "%s", name);
	return g->n_hosts++;
}

/* The rank table's host names, ", "-separated, for errors. */
static void
host_names(const struct gen *g, char *buf, size_t len)
{
	size_t o = 0;
	uint16_t h;

	buf[0] = '\0';
	for (h = 1; h < g->n_hosts && o < len; h++)
		o += (size_t)snprintf(buf + o, len - o, "%s%s", h > 1 ? ", " : "",
				      g->hosts[h]);
}

#define TAB_BAD(...) do { \
		int o_ = snprintf(err, errlen, "generator: rank_table = '%s': ", \
				  path); \
		if (o_ > 0 && (size_t)o_ < errlen) \
			snprintf(err + o_, errlen - (size_t)o_, __VA_ARGS__); \
		goto fail; \
	} while (0)

#define TAB_FIELDS "<rank> <mac> <ipv4> [<port>] [host=<name>]"

/* The optional host=NAME field among @p n tokens (removed from them): its
 * g->hosts index in @p *h (0: none); 0, or -1 with err filled. */
static int
rank_tab_host(struct gen *g, const char *path, unsigned int ln, char **tok,
	      unsigned int *n, uint16_t *h, char *err, size_t errlen)
{
	unsigned int i;
	int idx;

	*h = 0;
	for (i = 3; i < *n; i++) {
		if (strncmp(tok[i], "host=", 5) != 0)
			continue;
		if (tok[i][5] == '\0' ||
		    strlen(tok[i] + 5) >= AIFAB_GEN_HOST_LEN || *h != 0)
			TAB_BAD("line %u: '%s'; allowed: one host=<name> of 1..%u "
				"characters", ln, tok[i], AIFAB_GEN_HOST_LEN - 1);
		idx = host_index(g, tok[i] + 5);
		if (idx < 0)
			TAB_BAD("line %u: host '%s' is one too many; allowed: up "
				"to %u hosts", ln, tok[i] + 5, GEN_MAX_HOSTS - 1);
		*h = (uint16_t)idx;
		memmove(&tok[i], &tok[i + 1], sizeof(tok[0]) * (*n - i - 1));
		(*n)--;
		i--;
	}
	return 0;
fail:
	return -1;
}

/* One line: TAB_FIELDS; 0, or -1 with err filled. */
static int
rank_tab_line(struct gen *g, struct gen_rank_tab *t, const char *path,
	      unsigned int ln, char *line, char *err, size_t errlen)
{
	char *tok[6], *save = NULL, *end;
	unsigned int n = 0, i;
	unsigned long r;
	struct in_addr a;
	uint16_t u, h;

	for (tok[0] = strtok_r(line, " \t,", &save); tok[n] != NULL && n < 5;
	     tok[++n] = strtok_r(NULL, " \t,", &save))
		;
	if (n == 0)
		return 0;
	if (n > 5 || rank_tab_host(g, path, ln, tok, &n, &h, err,
				   errlen) != 0) {
		if (n > 5)
			TAB_BAD("line %u: more than 5 fields; allowed: "
				TAB_FIELDS, ln);
		return -1;
	}
	if (n < 3 || n > 4)
		TAB_BAD("line %u: %u fields; allowed: " TAB_FIELDS, ln, n);
	errno = 0;
	r = strtoul(tok[0], &end, 10);
	if (errno != 0 || *end != '\0' || r >= g->p.n_ranks)
		TAB_BAD("line %u: rank '%s'; allowed: 0..%u", ln, tok[0],
			g->p.n_ranks - 1);
	if (t->seen[r])
		TAB_BAD("line %u: rank %lu listed twice; allowed: each rank "
			"once", ln, r);
	t->seen[r] = 1;
	if (rte_ether_unformat_addr(tok[1], &t->mac[r]) != 0 ||
	    !rte_is_unicast_ether_addr(&t->mac[r]) ||
	    rte_is_zero_ether_addr(&t->mac[r]))
		TAB_BAD("line %u: MAC '%s'; allowed: a unicast MAC "
			"(xx:xx:xx:xx:xx:xx)", ln, tok[1]);
	if (inet_pton(AF_INET, tok[2], &a) != 1)
		TAB_BAD("line %u: IPv4 '%s'; allowed: a dotted quad", ln,
			tok[2]);
	t->ip[r] = rte_be_to_cpu_32(a.s_addr);
	t->port[r] = UINT16_MAX;
	t->host[r] = h;
	/* Another host's port is that host's business. */
	if (n == 4 && (h == 0 || strcmp(g->hosts[h], my_host(g)) == 0)) {
		for (u = 0; u < g->n_used_ports; u++)
			if (strcmp(g->env.ports[g->used_ports[u]].name,
				   tok[3]) == 0)
				break;
		if (u == g->n_used_ports) {
			char names[256] = "";
			size_t o = 0;

			for (i = 0; i < g->n_used_ports && o < sizeof(names);
			     i++)
				o += (size_t)snprintf(names + o,
					sizeof(names) - o, "%s%s", i ? ", " : "",
					g->env.ports[g->used_ports[i]].name);
			TAB_BAD("line %u: port '%s' is not a generator port; "
				"allowed: %s", ln, tok[3], names);
		}
		t->port[r] = g->used_ports[u];
	}
	return 0;
fail:
	return -1;
}

/* Read the rank table into g->p.rank_mac/rank_ip and g->rank_port. */
int
gen_rank_tab_load(struct gen *g, struct gen_rank_tab *t, char *err, size_t errlen)
{
	const char *path = g->p.rank_table;
	char line[512], *hash;
	unsigned int ln = 0;
	uint32_t r, n = g->p.n_ranks;
	FILE *f;

	t->mac = calloc(n, sizeof(*t->mac));
	t->ip = calloc(n, sizeof(*t->ip));
	t->port = calloc(n, sizeof(*t->port));
	t->host = calloc(n, sizeof(*t->host));
	t->seen = calloc(n, 1);
	if (t->mac == NULL || t->ip == NULL || t->port == NULL ||
	    t->host == NULL || t->seen == NULL)
		BAD("out of memory for the rank table");
	f = fopen(path, "r");
	if (f == NULL)
		BAD("rank_table = '%s': %s; allowed: a readable file", path,
		    strerror(errno));
	while (fgets(line, sizeof(line), f) != NULL) {
		ln++;
		if (strchr(line, '\n') == NULL && !feof(f)) {
			fclose(f);
			BAD("rank_table = '%s': line %u longer than %zu "
			    "characters", path, ln, sizeof(line) - 2);
		}
		hash = strchr(line, '#');
		if (hash != NULL)
			*hash = '\0';
		line[strcspn(line, "\r\n")] = '\0';
		if (rank_tab_line(g, t, path, ln, line, err, errlen) != 0) {
			fclose(f);
			return -1;
		}
	}
	fclose(f);
	for (r = 0; r < n; r++)
		if (!t->seen[r])
			BAD("rank_table = '%s': rank %u missing; allowed: every "
			    "rank 0..%u once", path, r, n - 1);
	g->p.rank_mac = t->mac;
	g->p.rank_ip = t->ip;
	g->rank_port = t->port;
	g->rank_host = t->host;     /* kept: aifab_gen_rank_host() */
	t->host = NULL;
	return 0;
}

/* ---- ownership ----------------------------------------------------------- */

/* A leader's start frames go to every rank emulated elsewhere. */
static int
build_start_dst(struct gen *g, char *err, size_t errlen)
{
	uint32_t r, ip;

	if (!g->p.leader || g->n_own == g->p.n_ranks)
		return 0;
	g->start_dst = calloc(g->p.n_ranks - g->n_own, sizeof(*g->start_dst));
	if (g->start_dst == NULL)
		BAD("out of memory for start frames");
	for (r = 0; r < g->p.n_ranks; r++)
		if (!g->own[r])
			gen_rank_addr(&g->p, r, &g->start_dst[g->n_start_dst++], &ip);
	return 0;
}

/* The ranks this process emulates: those of its host and those without a
 * host (every rank without a rank table). */
int
gen_ranks_own(struct gen *g, char *err, size_t errlen)
{
	const char *me = my_host(g);
	uint32_t r, n = g->p.n_ranks;
	char names[512];

	g->own = calloc(n, 1);
	g->own_list = calloc(n, sizeof(*g->own_list));
	if (g->rank_host == NULL)
		g->rank_host = calloc(n, sizeof(*g->rank_host));
	if (g->own == NULL || g->own_list == NULL || g->rank_host == NULL)
		BAD("out of memory for %u ranks", n);
	for (r = 0; r < n; r++) {
		uint16_t h = g->rank_host[r];

		if (h == 0 || strcmp(g->hosts[h], me) == 0) {
			g->own[r] = 1;
			g->own_list[g->n_own++] = r;
		}
	}
	host_names(g, names, sizeof(names));
	if (g->n_hosts > 1 && me[0] == '\0')
		BAD("rank_table = '%s' places ranks on hosts (%s) but this "
		    "process has none; allowed: --host (or [general] host) one "
		    "of %s", g->p.rank_table, names, names);
	if (g->n_own == 0)
		BAD("host = '%s' emulates no rank of the rank_table; allowed: "
		    "one of %s", me, names);
	if (strlen(me) >= sizeof(g->host))
		BAD("host = '%s': too long; allowed: up to %zu characters", me,
		    sizeof(g->host) - 1);
	snprintf(g->host, sizeof(g->host), "%s", me);
	return build_start_dst(g, err, errlen);
}
