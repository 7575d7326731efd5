/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rte_telemetry: dict filling (pure) and the command registry.
 *
 * DPDK 22.11's telemetry_cb has no user pointer, so the callback finds its
 * set by command name in the one static table below, behind a mutex so that
 * unregister can wait for a request in flight. It is the lib's only global.
 */
#include <errno.h>
#include <pthread.h>
#include <string.h>

#include <rte_telemetry.h>

#include "stats_priv.h"

#define TEL_MAX_SETS 16
#define TEL_CMD_MAX 56

static struct {
	pthread_mutex_t lock;
	struct {
		char cmd[TEL_CMD_MAX];
		const struct aifab_stats_set *set;
		uint64_t (*now_fn)(void);
	} e[TEL_MAX_SETS];
} tel_reg = { .lock = PTHREAD_MUTEX_INITIALIZER };

/* Telemetry dict keys: alphanumerics, '_' and '/' only. */
static void
tel_key(char *k)
{
	for (; *k != '\0'; k++)
		if (!((*k >= 'a' && *k <= 'z') || (*k >= 'A' && *k <= 'Z') ||
		      (*k >= '0' && *k <= '9') || *k == '_' || *k == '/'))
			*k = '_';
}

int
aifab_stats_tel_u64s(struct rte_tel_data *d, const char *name,
		     const uint64_t *v, unsigned int n)
{
	struct rte_tel_data *a;
	unsigned int i;
	int rc;

	if (n > RTE_TEL_MAX_ARRAY_ENTRIES)
		return -E2BIG;
	a = rte_tel_data_alloc();
	if (a == NULL)
		return -ENOMEM;
	rc = rte_tel_data_start_array(a, RTE_TEL_U64_VAL);
	for (i = 0; rc == 0 && i < n; i++)
		rc = rte_tel_data_add_array_u64(a, v[i]);
	if (rc == 0)
		rc = rte_tel_data_add_dict_container(d, name, a, 0);
	if (rc != 0)
		rte_tel_data_free(a);
	return rc;
}

static int
add_labels(const struct aifab_stats_set *s, struct rte_tel_data *d)
{
	struct rte_tel_data *ports = rte_tel_data_alloc();
	struct rte_tel_data *lcores = rte_tel_data_alloc();
	unsigned int i;
	int rc = ports != NULL && lcores != NULL ? 0 : -ENOMEM;

	if (rc == 0)
		rc = rte_tel_data_start_array(ports, RTE_TEL_STRING_VAL);
	for (i = 0; rc == 0 && i < s->n_ports; i++)
		rc = rte_tel_data_add_array_string(ports, s->port_names[i]);
	if (rc == 0)
		rc = rte_tel_data_start_array(lcores, RTE_TEL_INT_VAL);
	for (i = 0; rc == 0 && i < s->n_blocks; i++)
		rc = rte_tel_data_add_array_int(lcores, (int)s->block_lcore[i]);
	if (rc == 0) {
		rc = rte_tel_data_add_dict_container(d, "ports", ports, 0);
		ports = NULL;
	}
	if (rc == 0) {
		rc = rte_tel_data_add_dict_container(d, "lcores", lcores, 0);
		lcores = NULL;
	}
	rte_tel_data_free(ports);
	rte_tel_data_free(lcores);
	return rc;
}

static int
fill_all(const struct aifab_stats_set *s, const struct aifab_stats_snap *snap,
	 struct rte_tel_data *d)
{
	unsigned int id;
	int rc;

	if (s->n_counters + 3 > RTE_TEL_MAX_DICT_ENTRIES)
		return -E2BIG;
	rc = rte_tel_data_add_dict_u64(d, "tsc", snap->tsc);
	if (rc == 0)
		rc = add_labels(s, d);
	for (id = 0; rc == 0 && id < s->n_counters; id++) {
		const uint64_t *v = &snap->v[s->soff[id]];

		if (s->descs[id].scope == AIFAB_STATS_GLOBAL)
			rc = rte_tel_data_add_dict_u64(d, s->descs[id].name,
						       v[0]);
		else
			rc = aifab_stats_tel_u64s(d, s->descs[id].name, v,
					   s->ninst[id]);
	}
	return rc;
}

/*
 * One counter: "value" (GLOBAL), "<port>" -> u64 (PORT) or u64 array of
 * its TCs (PORT_TC/PRIO), "lcore_<id>" -> u64 (LCORE).
 */
static int
fill_one(const struct aifab_stats_set *s, const struct aifab_stats_snap *snap,
	 unsigned int id, struct rte_tel_data *d)
{
	const uint64_t *v = &snap->v[s->soff[id]];
	enum aifab_stats_scope scope = s->descs[id].scope;
	char k[STATS_NAME_MAX + 16];
	unsigned int i;
	int rc = 0;

	if (scope == AIFAB_STATS_GLOBAL)
		return rte_tel_data_add_dict_u64(d, "value", v[0]);
	if (scope == AIFAB_STATS_LCORE) {
		for (i = 0; rc == 0 && i < s->n_blocks; i++) {
			snprintf(k, sizeof(k), "lcore_%u", s->block_lcore[i]);
			rc = rte_tel_data_add_dict_u64(d, k, v[i]);
		}
		return rc;
	}
	for (i = 0; rc == 0 && i < s->n_ports; i++) {
		snprintf(k, sizeof(k), "%s", s->port_names[i]);
		tel_key(k);
		if (scope == AIFAB_STATS_PORT)
			rc = rte_tel_data_add_dict_u64(d, k, v[i]);
		else
			rc = aifab_stats_tel_u64s(d, k, &v[i * s->n_tcs], s->n_tcs);
	}
	return rc;
}

int
aifab_stats_telemetry_fill(const struct aifab_stats_set *s,
			   const struct aifab_stats_snap *snap,
			   const char *params, struct rte_tel_data *d)
{
	int id, rc;

	if (params != NULL && params[0] != '\0') {
		id = aifab_stats_find(s, params);
		if (id < 0)
			return -ENOENT;
	} else {
		id = -1;
	}
	rc = rte_tel_data_start_dict(d);
	if (rc != 0)
		return rc;
	return id < 0 ? fill_all(s, snap, d) : fill_one(s, snap, id, d);
}

static int
tel_cb(const char *cmd, const char *params, struct rte_tel_data *d)
{
	struct aifab_stats_snap *snap;
	unsigned int i;
	int rc = -ENOENT;

	pthread_mutex_lock(&tel_reg.lock);
	for (i = 0; i < TEL_MAX_SETS; i++) {
		const struct aifab_stats_set *s = tel_reg.e[i].set;

		if (s == NULL || strcmp(tel_reg.e[i].cmd, cmd) != 0)
			continue;
		snap = aifab_stats_snap_alloc(s);
		if (snap == NULL) {
			rc = -ENOMEM;
			break;
		}
		aifab_stats_read(s, snap, tel_reg.e[i].now_fn != NULL ?
				 tel_reg.e[i].now_fn() : 0);
		rc = aifab_stats_telemetry_fill(s, snap, params, d);
		aifab_stats_snap_free(snap);
		break;
	}
	pthread_mutex_unlock(&tel_reg.lock);
	return rc;
}

static int
reg_add(const char *cmd, const struct aifab_stats_set *s,
	uint64_t (*now_fn)(void), bool *known)
{
	int i, slot = -1;

	*known = false;
	for (i = 0; i < TEL_MAX_SETS; i++) {
		if (strcmp(tel_reg.e[i].cmd, cmd) == 0) {
			if (tel_reg.e[i].set != NULL)
				return -EEXIST;
			*known = true; /* registered with DPDK before */
			slot = i;
			break;
		}
		if (slot < 0 && tel_reg.e[i].cmd[0] == '\0')
			slot = i;
	}
	if (slot < 0)
		return -ENOSPC;
	snprintf(tel_reg.e[slot].cmd, TEL_CMD_MAX, "%s", cmd);
	tel_reg.e[slot].set = s;
	tel_reg.e[slot].now_fn = now_fn;
	return slot;
}

int
aifab_stats_telemetry_register(const struct aifab_stats_set *s,
			       uint64_t (*now_fn)(void))
{
	char cmd[TEL_CMD_MAX];
	bool known;
	int slot, rc;

	if (s == NULL || s->name[0] == '\0' ||
	    (size_t)snprintf(cmd, sizeof(cmd), "/aifab/%s", s->name) >=
	    sizeof(cmd))
		return -EINVAL;
	pthread_mutex_lock(&tel_reg.lock);
	slot = reg_add(cmd, s, now_fn, &known);
	rc = slot < 0 ? slot : 0;
	if (rc == 0 && !known) {
		rc = rte_telemetry_register_cmd(cmd, tel_cb,
			"aifab counters of one pipeline. Params: none, or a "
			"counter name for its instances.");
		if (rc != 0)
			memset(&tel_reg.e[slot], 0, sizeof(tel_reg.e[slot]));
	}
	pthread_mutex_unlock(&tel_reg.lock);
	return rc;
}

void
aifab_stats_telemetry_unregister(const struct aifab_stats_set *s)
{
	unsigned int i;

	pthread_mutex_lock(&tel_reg.lock);
	for (i = 0; i < TEL_MAX_SETS; i++)
		if (tel_reg.e[i].set == s)
			tel_reg.e[i].set = NULL; /* cmd stays: DPDK keeps it */
	pthread_mutex_unlock(&tel_reg.lock);
}
