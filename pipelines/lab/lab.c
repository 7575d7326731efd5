/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The lab engine (lab.h, lab_priv.h): the pipeline ops, the ports a
 * recipe owns, tagged RoCEv2 frames (valid IPv4 checksum and ICRC),
 * sending and pacing, receiving (tag, PFC, counters), the latency store
 * and the recipe lookup. What a recipe does is in its own file; this file
 * reaches it only through its struct lab_recipe.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include <rte_byteorder.h>
#include <rte_cycles.h>
#include <rte_errno.h>
#include <rte_ethdev.h>
#include <rte_ip.h>
#include <rte_malloc.h>
#include <rte_mbuf.h>

#include "lab_priv.h"

#define LAB_POOL_CACHE 64u
#define LAB_JSON_INDENT 2u

#define BAD(...) do { snprintf(err, errlen, __VA_ARGS__); goto fail; } while (0)

/* ---- recipes ------------------------------------------------------------- */

static const struct lab_recipe *
recipe_find(const char *name)
{
	unsigned int i;

	for (i = 0; lab_recipes[i] != NULL; i++)
		if (strcmp(lab_recipes[i]->name, name) == 0)
			return lab_recipes[i];
	return NULL;
}

/* "a, b, c": the table's names, after "none" if @p none. */
static void
recipe_list(char *buf, size_t len, bool none)
{
	unsigned int i;
	size_t at;

	if (len == 0)
		return;
	snprintf(buf, len, "%s", none ? "none" : "");
	for (i = 0; lab_recipes[i] != NULL; i++) {
		at = strlen(buf);
		snprintf(buf + at, len - at, "%s%s", at ? ", " : "",
			 lab_recipes[i]->name);
	}
}

bool
aifab_lab_recipe_exists(const char *name)
{
	return recipe_find(name) != NULL;
}

void
aifab_lab_recipe_names(char *buf, size_t len)
{
	recipe_list(buf, len, true);
}

void
aifab_lab_params_defaults(struct aifab_lab_params *p)
{
	memset(p, 0, sizeof(*p));
	p->flows = 64;
	p->frames_per_flow = 4;
	p->frame_bytes = 256;
	p->fields = (1u << AIFAB_LAB_F_MAX) - 1;
	p->rate_mbps = 1000;
	p->tos = 26 << 2 | 2;
	p->sport_base = 49152;
	p->qpn_base = 0x100;
	p->settle_ms = 200;
	p->max_imbalance = 1.5;
	p->min_p = 0.001;
}

/* ---- frames -------------------------------------------------------------- */

static void
put32(uint8_t *b, uint32_t v)
{
	b[0] = (uint8_t)(v >> 24);
	b[1] = (uint8_t)(v >> 16);
	b[2] = (uint8_t)(v >> 8);
	b[3] = (uint8_t)v;
}

static uint32_t
get32(const uint8_t *b)
{
	return (uint32_t)b[0] << 24 | (uint32_t)b[1] << 16 |
	       (uint32_t)b[2] << 8 | b[3];
}

void
lab_frame_flow(const struct lab *l, uint32_t flow, struct lab_frame *f)
{
	memset(f, 0, sizeof(*f));
	f->port = l->p.tx_port;
	f->dst = &l->p.gw_mac;
	f->sport = (uint16_t)(l->p.sport_base + flow);
	f->dqpn = (l->p.qpn_base + flow) & 0xffffff;
	f->sip = l->p.src_ip + flow;
	f->dip = l->p.dst_ip + flow;
	f->flow = flow;
}

struct rte_mbuf *
lab_frame_build(struct lab *l, const struct lab_frame *f, uint64_t now)
{
	struct rte_mbuf *m = rte_pktmbuf_alloc(l->pool);
	uint16_t len = l->p.frame_bytes;
	struct rte_ipv4_hdr *ip;
	uint8_t *b, *t;

	if (m == NULL)
		return NULL;
	b = (uint8_t *)rte_pktmbuf_append(m, len);
	if (b == NULL) {
		rte_pktmbuf_free(m);
		return NULL;
	}
	memset(b, 0, len);
	rte_ether_addr_copy(f->dst, (struct rte_ether_addr *)b);
	rte_ether_addr_copy(&l->env.ports[f->port].mac,
			    (struct rte_ether_addr *)(b + 6));
	b[12] = 0x08;
	ip = (struct rte_ipv4_hdr *)(b + 14);
	ip->version_ihl = 0x45;
	ip->type_of_service = l->p.tos;
	ip->total_length = rte_cpu_to_be_16((uint16_t)(len - 14));
	ip->packet_id = rte_cpu_to_be_16((uint16_t)f->seq);
	ip->time_to_live = 64;
	ip->next_proto_id = IPPROTO_UDP;
	ip->src_addr = rte_cpu_to_be_32(f->sip);
	ip->dst_addr = rte_cpu_to_be_32(f->dip);
	ip->hdr_checksum = aifab_ipv4_cksum(ip);
	t = b + 34;                       /* UDP */
	t[0] = (uint8_t)(f->sport >> 8);
	t[1] = (uint8_t)f->sport;
	t[2] = 4791 >> 8;
	t[3] = 4791 & 0xff;
	t[4] = (uint8_t)((len - 34) >> 8);
	t[5] = (uint8_t)(len - 34);
	t = b + 42;                       /* BTH */
	t[0] = 0x04;                      /* RC SEND only */
	t[2] = t[3] = 0xff;               /* P_Key */
	put32(t + 4, f->dqpn);            /* reserved byte + dest QP */
	put32(t + 8, f->seq & 0xffffff);  /* AckReq 0, PSN */
	t = b + LAB_HDR_LEN;              /* tag */
	put32(t, LAB_TAG_MAGIC);
	t[4] = f->ph;
	put32(t + 8, f->flow);
	put32(t + 12, f->seq);
	put32(t + 16, (uint32_t)(now >> 32));
	put32(t + 20, (uint32_t)now);
	aifab_icrc_store(b + len - 4, aifab_icrc(b + 14, len - 14 - 4u, false));
	return m;
}

/* ---- sending ------------------------------------------------------------- */

uint32_t
lab_pace_due(uint64_t next, uint64_t gap, uint64_t now, uint64_t end)
{
	uint32_t n = 0;

	while (n < LAB_BURST && now >= next && next < end) {
		n++;
		next += gap;
	}
	return n;
}

uint32_t
lab_pacer_due(const struct lab *l, struct lab_pacer *pc, uint64_t now)
{
	if (!pc->started) {
		pc->started = true;
		pc->next_tsc = now;
	}
	return lab_pace_due(pc->next_tsc, l->gap_cyc, now, UINT64_MAX);
}

uint16_t
lab_tx_burst(struct lab *l, uint16_t port, struct rte_mbuf **pkts, uint16_t n)
{
	uint16_t sent, i;

	sent = aifab_port_tx_burst(&l->env.ports[port], 0, pkts, n);
	for (i = sent; i < n; i++)
		rte_pktmbuf_free(pkts[i]);
	l->port_tx[port] += sent;
	l->port_tx_bytes[port] += (uint64_t)sent * l->p.frame_bytes;
	return sent;
}

void
lab_tx_done(struct lab *l, uint64_t now)
{
	l->sent_all = true;
	l->end_tsc = now;
}

uint64_t
lab_ms_cyc(const struct lab *l, uint32_t ms)
{
	return (uint64_t)ms * l->env.tsc_hz / 1000;
}

double
lab_cyc_ms(const struct lab *l, uint64_t cyc)
{
	return (double)cyc / (double)l->env.tsc_hz * 1e3;
}

/* ---- load steps ---------------------------------------------------------- */

void
lab_steps_init(const struct lab *l, struct lab_steps *s, uint32_t n)
{
	s->n = n;
	s->len_cyc = lab_ms_cyc(l, l->p.step_ms);
	s->gap_cyc = lab_ms_cyc(l, l->p.gap_ms);
}

int
lab_steps_begin(const struct lab *l, struct lab_steps *s, uint32_t pct,
		uint64_t now)
{
	if (s->on)
		return 0;
	if (now < s->start)
		return -1;
	s->on = true;
	s->start = s->next_tsc = now;
	s->frame_cyc = (uint64_t)((double)(l->p.frame_bytes + LAB_WIRE_EXTRA) *
		8.0 * (double)l->env.tsc_hz * 100.0 /
		((double)l->p.dut_rate_mbps * 1e6 * pct));
	return 1;
}

uint16_t
lab_steps_send(struct lab *l, struct lab_steps *s, uint64_t end, uint64_t now)
{
	struct rte_mbuf *pkts[LAB_BURST];
	uint32_t due = lab_pace_due(s->next_tsc, s->frame_cyc, now, end);
	struct lab_frame f;
	uint16_t n;

	for (n = 0; n < due; n++) {
		lab_frame_flow(l, 0, &f);
		f.ph = (uint8_t)s->ph;
		f.seq = (uint32_t)(s->seq + n);
		pkts[n] = lab_frame_build(l, &f, now);
		if (pkts[n] == NULL)
			break;
	}
	s->seq += n;
	s->sent[s->ph] += n;
	s->next_tsc += n * s->frame_cyc;
	if (n > 0)
		lab_tx_burst(l, l->p.tx_port, pkts, n);
	return n;
}

void
lab_steps_next(struct lab *l, struct lab_steps *s, uint64_t start,
	       uint64_t now)
{
	s->on = false;
	s->start = start;
	if (++s->ph == s->n)
		lab_tx_done(l, now);
}

/* ---- latencies ----------------------------------------------------------- */

int
lab_lat_alloc(struct lab *l, uint64_t frames, char *err, size_t errlen)
{
	l->cap_lat = (uint32_t)RTE_MIN(frames + 1024, (uint64_t)1 << 24);
	l->lat = rte_malloc("aifab_lab_lat", sizeof(*l->lat) * l->cap_lat, 0);
	if (l->lat == NULL)
		LAB_BAD("lab: out of memory for %u latencies (raise -m)",
			l->cap_lat);
	return 0;
}

uint64_t
lab_lat_ns(const struct lab *l, const struct lab_rx *f, uint64_t now)
{
	return now > f->tx_tsc ?
		(now - f->tx_tsc) * 1000000000ull / l->env.tsc_hz : 0;
}

void
lab_lat_keep(struct lab *l, uint64_t ns, bool ce)
{
	if (l->n_lat < l->cap_lat)
		l->lat[l->n_lat++] = (uint32_t)RTE_MIN(ns, (uint64_t)0x7fffffff) |
			(ce ? 0x80000000u : 0);
}

/* ---- the console --------------------------------------------------------- */

const char *
lab_pf(bool ok)
{
	return ok ? "PASS" : "FAIL";
}

const char *
lab_port_name(const struct lab *l, uint16_t port)
{
	return l->env.ports[port].name;
}

void
lab_print_tail(const struct lab *l, bool pass, FILE *f)
{
	fprintf(f, "# lab %s: %s; %" PRIu64 " frames without our tag\n",
		l->rc->name, lab_pf(pass), l->rx_other);
}

void
lab_json_tail(const struct lab *l, bool pass, struct aifab_json *j)
{
	aifab_json_u64(j, "rx_other", l->rx_other);
	aifab_json_str(j, "verdict", lab_pf(pass));
}

/* ---- receiving ----------------------------------------------------------- */

static void
rx_one(struct lab *l, uint16_t port, struct rte_mbuf *m, uint64_t now)
{
	struct aifab_pkt_info pi;
	uint8_t tagbuf[LAB_TAG_LEN];
	const uint8_t *t;
	struct lab_rx f;

	l->port_rx[port]++;
	l->port_rx_bytes[port] += m->pkt_len;
	if (aifab_pkt_parse_mbuf(m, &pi, l->scratch, false) != AIFAB_PKT_ERR_OK) {
		l->rx_other++;
		return;
	}
	if ((pi.flags & AIFAB_PKT_F_PFC) && l->rc->rx_pfc != NULL &&
	    l->rc->rx_pfc(l, port, &pi, now))
		return;
	if (!(pi.flags & AIFAB_PKT_F_ROCE) ||
	    pi.bth_off + 12u + LAB_TAG_LEN > m->pkt_len) {
		l->rx_other++;
		return;
	}
	t = rte_pktmbuf_read(m, pi.bth_off + 12u, LAB_TAG_LEN, tagbuf);
	if (t == NULL || get32(t) != LAB_TAG_MAGIC) {
		l->rx_other++;
		return;
	}
	f.port = port;
	f.slot = l->slot_of_port[port];
	f.ph = t[4];
	f.flow = get32(t + 8);
	f.seq = get32(t + 12);
	f.tx_tsc = (uint64_t)get32(t + 16) << 32 | get32(t + 20);
	f.tos = pi.tos;
	f.len = m->pkt_len;
	if (!l->rc->rx(l, &f, now))
		l->rx_other++;
}

static unsigned int
rx_poll(struct lab *l, uint64_t now)
{
	struct rte_mbuf *pkts[LAB_BURST];
	unsigned int handled = 0;
	uint16_t s, n, i, port;

	for (s = 0; s < l->p.n_rx + l->n_tx; s++) {
		/* the rx ports, then the senders (PFC the DUT sends them) */
		port = s < l->p.n_rx ? l->p.rx_ports[s] :
			l->tx_of[s - l->p.n_rx];
		if (s >= l->p.n_rx && l->slot_of_port[port] != LAB_NONE)
			continue;
		n = aifab_port_rx_burst(&l->env.ports[port], 0, pkts,
					LAB_BURST);
		for (i = 0; i < n; i++)
			rx_one(l, port, pkts[i], now);
		rte_pktmbuf_free_bulk(pkts, n);
		handled += n;
	}
	return handled;
}

/* ---- the pipeline -------------------------------------------------------- */

static unsigned int
lab_poll(void *st, unsigned int w, uint64_t now)
{
	struct lab *l = st;
	unsigned int n;

	RTE_SET_USED(w);
	l->last_now = now;
	n = rx_poll(l, now);
	if (!l->sent_all)
		n += l->rc->tx(l, now);
	else if (!l->done && now - l->end_tsc >= l->settle_cyc)
		__atomic_store_n(&l->done, true, __ATOMIC_RELEASE);
	return n;
}

static void
lab_drain(void *st, unsigned int w, uint64_t now)
{
	RTE_SET_USED(w);
	rx_poll(st, now);
}

static bool
lab_done(const void *st)
{
	return __atomic_load_n(&((const struct lab *)st)->done,
			       __ATOMIC_ACQUIRE);
}

static void
lab_port_counters(const void *st, struct aifab_port_counters *out)
{
	const struct lab *l = st;
	uint16_t p;

	memset(out, 0, sizeof(*out) * l->env.n_ports);
	for (p = 0; p < l->env.n_ports; p++) {
		out[p].rx_packets = l->port_rx[p];
		out[p].rx_bytes = l->port_rx_bytes[p];
		out[p].tx_packets = l->port_tx[p];
		out[p].tx_bytes = l->port_tx_bytes[p];
	}
}

static void
lab_report(const void *st, const struct aifab_report_sink *sink)
{
	RTE_SET_USED(st);
	RTE_SET_USED(sink);
}

static void
lab_fini(void *st)
{
	struct lab *l = st;

	if (l == NULL)
		return;
	if (l->rs != NULL && l->rc->fini != NULL)
		l->rc->fini(l);
	rte_free(l->rs);
	rte_free(l->lat);
	aifab_pipeline_pool_free(l->pool, "lab");
	rte_free(l);
}

static void *
lab_init_refuse(const struct aifab_env *env, unsigned int n_workers,
		char *err, size_t errlen)
{
	RTE_SET_USED(env);
	RTE_SET_USED(n_workers);
	snprintf(err, errlen, "lab: create with aifab_lab_create()");
	return NULL;
}

const struct aifab_pipeline_ops aifab_lab_ops = {
	.name = "lab",
	.init = lab_init_refuse,
	.poll = lab_poll,
	.drain = lab_drain,
	.done = lab_done,
	.port_counters = lab_port_counters,
	.report = lab_report,
	.fini = lab_fini,
};

/* The [lab] keys every recipe shares: ports, flows, frames, rate. */
static int
lab_check(struct lab *l, char *err, size_t errlen)
{
	const struct aifab_lab_params *p = &l->p;
	const struct aifab_env *env = &l->env;
	uint32_t i;

	memset(l->slot_of_port, LAB_NONE, sizeof(l->slot_of_port));
	memset(l->sender_of_port, LAB_NONE, sizeof(l->sender_of_port));
	if (p->tx_port >= env->n_ports)
		LAB_BAD("tx_port: no such port");
	if (p->n_rx == 0)
		LAB_BAD("rx_ports = '': no port; allowed: the ports the DUT's "
			"ECMP group leads back to");
	for (i = 0; i < p->n_rx; i++) {
		if (p->rx_ports[i] >= env->n_ports)
			LAB_BAD("rx_ports: no such port");
		l->slot_of_port[p->rx_ports[i]] = (uint8_t)i;
	}
	if (p->flows == 0 || p->flows > AIFAB_LAB_MAX_FLOWS)
		LAB_BAD("flows = '%u'; allowed: 1..%u", p->flows,
			AIFAB_LAB_MAX_FLOWS);
	if (p->frame_bytes < LAB_MIN_FRAME || p->frame_bytes > 9000)
		LAB_BAD("frame_bytes = '%u'; allowed: %u..9000", p->frame_bytes,
			LAB_MIN_FRAME);
	if (p->rate_mbps == 0)
		LAB_BAD("rate_gbps = '0'; allowed: a rate above 0");
	l->n_tx = 1;
	l->tx_of[0] = p->tx_port;
	l->sender_of_port[p->tx_port] = 0;
	for (i = 0; i < p->n_more_tx; i++) {
		if (p->more_tx[i] >= env->n_ports)
			LAB_BAD("tx_ports: no such port");
		l->tx_of[l->n_tx] = p->more_tx[i];
		l->sender_of_port[p->more_tx[i]] = (uint8_t)l->n_tx;
		l->n_tx++;
	}
	return 0;
}

void *
aifab_lab_create(const struct aifab_env *env, const struct aifab_lab_params *p,
		 char *err, size_t errlen)
{
	const struct lab_recipe *rc = recipe_find(p->recipe);
	char name[RTE_MEMPOOL_NAMESIZE], names[128];
	struct lab *l;
	uint32_t n_mbufs;

	if (rc == NULL) {
		recipe_list(names, sizeof(names), false);
		snprintf(err, errlen, "recipe = '%s'; allowed: %s", p->recipe,
			 names);
		return NULL;
	}
	l = rte_zmalloc("aifab_lab", sizeof(*l), RTE_CACHE_LINE_SIZE);
	if (l == NULL) {
		snprintf(err, errlen, "lab: out of memory (raise -m)");
		return NULL;
	}
	l->env = *env;
	l->p = *p;
	l->rc = rc;
	if (lab_check(l, err, errlen) != 0)
		goto fail;
	l->gap_cyc = (uint64_t)((double)(p->frame_bytes + LAB_WIRE_EXTRA) *
		8.0 * (double)env->tsc_hz / ((double)p->rate_mbps * 1e6));
	l->settle_cyc = lab_ms_cyc(l, p->settle_ms);
	l->rs = rte_zmalloc("aifab_lab_recipe", RTE_MAX(rc->state_size, 1ul),
			    RTE_CACHE_LINE_SIZE);
	if (l->rs == NULL)
		BAD("lab: out of memory for the %s recipe (raise -m)", rc->name);
	if (rc->init(l, err, errlen) != 0)
		goto fail;
	n_mbufs = p->mbufs ? p->mbufs : 4096;
	snprintf(name, sizeof(name), "lab_%" PRIxPTR, (uintptr_t)l & 0xffffff);
	l->pool = rte_pktmbuf_pool_create(name, n_mbufs, LAB_POOL_CACHE, 0,
		(uint16_t)RTE_MAX((uint32_t)RTE_MBUF_DEFAULT_BUF_SIZE,
				  RTE_PKTMBUF_HEADROOM + p->frame_bytes),
		rte_socket_id());
	if (l->pool == NULL)
		BAD("lab: cannot create a pool of %u mbufs: %s (raise -m)",
		    n_mbufs, rte_strerror(rte_errno));
	return l;
fail:
	lab_fini(l);
	return NULL;
}

/* ---- results ------------------------------------------------------------- */

/* The recipe's result, in memory of its own; NULL without memory. */
static void *
lab_result(const struct lab *l)
{
	void *res = calloc(1, RTE_MAX(l->rc->result_size, 1ul));

	if (res != NULL)
		l->rc->result(l, res);
	return res;
}

void
aifab_lab_print(const void *st, FILE *f)
{
	const struct lab *l = st;
	void *res = lab_result(l);

	if (res == NULL) {
		fprintf(f, "\n# lab %s: no memory for the result\n", l->rc->name);
		return;
	}
	l->rc->print(l, res, f);
	free(res);
}

void
aifab_lab_json(const void *st, FILE *f)
{
	const struct lab *l = st;
	void *res = lab_result(l);
	struct aifab_json j;

	aifab_json_begin(&j, f, LAB_JSON_INDENT);
	aifab_json_obj(&j, NULL);
	aifab_json_str(&j, "recipe", l->rc->name);
	if (res != NULL)
		l->rc->json(l, res, &j);
	else
		aifab_json_null(&j, "verdict");   /* no memory for the result */
	aifab_json_end(&j);
	(void)aifab_json_finish(&j);   /* a write error shows in the stream */
	free(res);
}
