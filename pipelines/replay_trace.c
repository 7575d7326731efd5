/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Trace replay, loading: a pcap read with libpcap into one flat buffer,
 * IPv4 RoCEv2 frames rewritten once onto the profile's ranks and QPs (see
 * replay.h), and the per-pass PSN shift. No EAL, no clock: plain malloc,
 * so the unit test runs it as is.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <pcap/pcap.h>

#include <rte_byteorder.h>
#include <rte_common.h>
#include <rte_ip.h>
#include <rte_udp.h>

#include "replay.h"

#define BAD(...) do { snprintf(err, errlen, "trace = '%s': ", p->path); \
		      snprintf(err + strlen(err), errlen - strlen(err), \
			       __VA_ARGS__); goto fail; } while (0)

void
aifab_replay_params_defaults(struct aifab_replay_params *p)
{
	memset(p, 0, sizeof(*p));
	p->speed_milli = 1000;
	p->loops = 1;
	p->rewrite = true;
	p->send_other = true;
	p->n_ranks = 8;
	p->base_mac = (struct rte_ether_addr){
		{ 0x02, 0xa1, 0xfa, 0x00, 0x00, 0x00 } };
	p->base_ip = 0x0A640001; /* 10.100.0.1 */
	p->qpn_base = 0x100;
	p->burst_pkts = 32;
}

/* ---- a small open-addressing map: (a, b) -> index in first-seen order ---- */

struct idmap {
	struct idmap_slot {
		uint64_t a, b;
		uint32_t id;            /* UINT32_MAX: empty */
	} *s;
	uint32_t cap, n;            /* cap: a power of two */
};

static uint32_t
idmap_hash(uint64_t a, uint64_t b)
{
	uint64_t h = a * 0x9E3779B97F4A7C15ull ^ (b + 0x632BE59BD9B4E019ull);

	h ^= h >> 29;
	h *= 0xBF58476D1CE4E5B9ull;
	return (uint32_t)(h ^ (h >> 32));
}

static int
idmap_grow(struct idmap *m)
{
	struct idmap old = *m;
	uint32_t i, cap = old.cap ? old.cap * 2 : 64;

	m->s = malloc(sizeof(*m->s) * cap);
	if (m->s == NULL) {
		*m = old;
		return -1;
	}
	for (i = 0; i < cap; i++)
		m->s[i].id = UINT32_MAX;
	m->cap = cap;
	for (i = 0; i < old.cap; i++) {
		uint32_t j;

		if (old.s[i].id == UINT32_MAX)
			continue;
		j = idmap_hash(old.s[i].a, old.s[i].b) & (cap - 1);
		while (m->s[j].id != UINT32_MAX)
			j = (j + 1) & (cap - 1);
		m->s[j] = old.s[i];
	}
	free(old.s);
	return 0;
}

/* Index of (a, b), added as the next one when new. UINT32_MAX: no memory. */
static uint32_t
idmap_get(struct idmap *m, uint64_t a, uint64_t b)
{
	uint32_t j;

	if ((m->n + 1) * 2 > m->cap && idmap_grow(m) != 0)
		return UINT32_MAX;
	j = idmap_hash(a, b) & (m->cap - 1);
	while (m->s[j].id != UINT32_MAX) {
		if (m->s[j].a == a && m->s[j].b == b)
			return m->s[j].id;
		j = (j + 1) & (m->cap - 1);
	}
	m->s[j].a = a;
	m->s[j].b = b;
	m->s[j].id = m->n++;
	return m->s[j].id;
}

/* a - b as a signed 24-bit PSN distance. */
static int32_t
psn_ahead(uint32_t a, uint32_t b)
{
	uint32_t d = (a - b) & 0xFFFFFFu;

	return d & 0x800000u ? (int32_t)d - 0x1000000 : (int32_t)d;
}

/* ---- rewriting ----------------------------------------------------------- */

struct load_ctx {
	const struct aifab_replay_params *p;
	struct idmap hosts, conns;
	uint32_t *first_psn;        /* per connection */
	uint32_t *max_ahead;        /* furthest PSN ahead of the first */
	uint32_t conn_cap;
};

static void
rank_mac(const struct aifab_replay_params *p, uint32_t r,
	 struct rte_ether_addr *mac)
{
	uint32_t low = ((uint32_t)p->base_mac.addr_bytes[3] << 16 |
			(uint32_t)p->base_mac.addr_bytes[4] << 8 |
			p->base_mac.addr_bytes[5]) + r;

	*mac = p->base_mac;
	mac->addr_bytes[3] = (uint8_t)(low >> 16);
	mac->addr_bytes[4] = (uint8_t)(low >> 8);
	mac->addr_bytes[5] = (uint8_t)low;
}

/* Track connection @p conn's PSN span; @p is_new: its first frame. */
static int
conn_track(struct load_ctx *c, uint32_t conn, uint32_t psn, bool is_new)
{
	int32_t d;

	if (conn >= c->conn_cap) {
		uint32_t cap = c->conn_cap ? c->conn_cap * 2 : 64, *a, *b;

		a = realloc(c->first_psn, sizeof(*a) * cap);
		if (a != NULL)
			c->first_psn = a;
		b = realloc(c->max_ahead, sizeof(*b) * cap);
		if (b != NULL)
			c->max_ahead = b;
		if (a == NULL || b == NULL)
			return -1;
		c->conn_cap = cap;
	}
	if (is_new) {
		c->first_psn[conn] = psn;
		c->max_ahead[conn] = 0;
		return 0;
	}
	d = psn_ahead(psn, c->first_psn[conn]);
	if (d > 0 && (uint32_t)d > c->max_ahead[conn])
		c->max_ahead[conn] = (uint32_t)d;
	return 0;
}

/*
 * Rewrite an IPv4 RoCEv2 frame in place. @return 0, or -1 on no memory or
 * a QPN overflow (with @p why set).
 */
static int
rewrite_roce(struct load_ctx *c, uint8_t *fr, const struct aifab_pkt_info *pi,
	     uint32_t src_host, uint32_t dst_host,
	     struct aifab_replay_frame *f, const char **why)
{
	const struct aifab_replay_params *p = c->p;
	struct rte_ipv4_hdr *ip = (struct rte_ipv4_hdr *)(fr + pi->l3_off);
	struct rte_udp_hdr *udp = (struct rte_udp_hdr *)(fr + pi->l4_off);
	uint8_t *bth = fr + pi->bth_off;
	uint32_t sr = src_host % p->n_ranks, dr = dst_host % p->n_ranks;
	uint32_t conn, qpn, icrc_off, before = c->conns.n;
	struct rte_ether_addr mac;
	uint16_t sport;

	conn = idmap_get(&c->conns, (uint64_t)rte_be_to_cpu_32(ip->src_addr)
			 << 32 | rte_be_to_cpu_32(ip->dst_addr), pi->dqpn);
	if (conn == UINT32_MAX ||
	    conn_track(c, conn, pi->psn, conn == before) != 0) {
		*why = "out of memory";
		return -1;
	}
	if ((uint64_t)p->qpn_base + 2ull * conn + 1 > 0xFFFFFFu) {
		*why = "more connections than QP numbers above qpn_base "
		       "(24 bits); allowed: a lower qpn_base";
		return -1;
	}
	qpn = p->qpn_base + 2 * conn;
	rank_mac(p, dr, &mac);
	memcpy(fr, mac.addr_bytes, RTE_ETHER_ADDR_LEN);
	rank_mac(p, sr, &mac);
	memcpy(fr + RTE_ETHER_ADDR_LEN, mac.addr_bytes, RTE_ETHER_ADDR_LEN);
	ip->src_addr = rte_cpu_to_be_32(p->base_ip + sr);
	ip->dst_addr = rte_cpu_to_be_32(p->base_ip + dr);
	ip->hdr_checksum = 0;
	ip->hdr_checksum = aifab_ipv4_cksum(ip);
	sport = p->sport_count > 0 ?
		(uint16_t)(p->sport_base + conn % p->sport_count) :
		aifab_roce_sport(qpn, qpn + 1);
	udp->src_port = rte_cpu_to_be_16(sport);
	udp->dgram_cksum = 0;
	aifab_put_u24(bth + 5, qpn + 1);
	icrc_off = pi->l3_off + pi->ip_len - AIFAB_ICRC_LEN;
	aifab_icrc_store(fr + icrc_off, aifab_icrc(fr + pi->l3_off,
		pi->ip_len - AIFAB_ICRC_LEN, false));
	f->conn = conn;
	f->l3_off = pi->l3_off;
	f->ip_len = (uint16_t)pi->ip_len;
	f->hdr_len = (uint16_t)(pi->bth_off + AIFAB_BTH_LEN - pi->l3_off);
	f->psn = pi->psn;
	aifab_crc_shift_init(&f->shift, pi->ip_len - AIFAB_ICRC_LEN -
			     f->hdr_len);
	f->payload_raw = aifab_crc32_raw_fold(0, fr + pi->l3_off +
					      f->hdr_len, f->shift.len);
	return 0;
}

/* An IPv4 RoCEv2 frame whose ICRC sits inside the captured bytes. */
static bool
is_roce4(const struct aifab_pkt_info *pi, enum aifab_pkt_err e,
	 uint32_t len)
{
	return e == AIFAB_PKT_ERR_OK && pi->l3 == AIFAB_L3_IPV4 &&
	       (pi->flags & AIFAB_PKT_F_ROCE) && !(pi->flags & AIFAB_PKT_F_FRAG) &&
	       (uint32_t)pi->l3_off + pi->ip_len <= len &&
	       (uint32_t)pi->bth_off + AIFAB_BTH_LEN + AIFAB_ICRC_LEN <=
	       (uint32_t)pi->l3_off + pi->ip_len;
}

/* Classify, map and (maybe) rewrite frame f (already in t->buf).
 * @return 1 keep, 0 skip, -1 error. */
static int
load_frame(struct load_ctx *c, struct aifab_replay_trace *t,
	   struct aifab_replay_frame *f, uint16_t n_slots, const char **why)
{
	const struct aifab_replay_params *p = c->p;
	uint8_t *fr = t->buf + f->off;
	struct aifab_pkt_info pi;
	enum aifab_pkt_err e;
	uint32_t sh = 0, dh = 0;
	bool roce;

	f->conn = UINT32_MAX;
	f->slot = 0;
	e = aifab_pkt_parse(fr, f->len, f->len, &pi, false);
	if (e == AIFAB_PKT_ERR_OK && pi.l3 == AIFAB_L3_IPV4) {
		const struct rte_ipv4_hdr *ip =
			(const struct rte_ipv4_hdr *)(fr + pi.l3_off);

		sh = idmap_get(&c->hosts, rte_be_to_cpu_32(ip->src_addr), 0);
		dh = idmap_get(&c->hosts, rte_be_to_cpu_32(ip->dst_addr), 0);
		if (sh == UINT32_MAX || dh == UINT32_MAX) {
			*why = "out of memory";
			return -1;
		}
		f->slot = (uint16_t)((sh % p->n_ranks) % n_slots);
	}
	roce = is_roce4(&pi, e, f->len);
	if (!roce) {
		if (!p->send_other) {
			t->st.skipped_other++;
			return 0;
		}
		t->st.other++;
		return 1;
	}
	t->st.roce++;
	if (!p->rewrite)
		return 1;
	if (rewrite_roce(c, fr, &pi, sh, dh, f, why) != 0)
		return -1;
	t->st.rewritten++;
	return 1;
}

static int
grow(void **ptr, uint64_t *cap, uint64_t need, size_t elem)
{
	uint64_t n = *cap ? *cap : 1024;
	void *q;

	if (need <= *cap)
		return 0;
	while (n < need)
		n *= 2;
	q = realloc(*ptr, n * elem);
	if (q == NULL)
		return -1;
	*ptr = q;
	*cap = n;
	return 0;
}

int
aifab_replay_trace_load(struct aifab_replay_trace *t,
			const struct aifab_replay_params *p, uint16_t n_slots,
			char *err, size_t errlen)
{
	char ebuf[PCAP_ERRBUF_SIZE];
	struct load_ctx c = { .p = p };
	struct pcap_pkthdr *h;
	const u_char *data;
	uint64_t cap_buf = 0, cap_f = 0, t0 = 0, last = 0, ts;
	const char *why = NULL;
	pcap_t *pc;
	int rc, keep;
	uint32_t i;

	memset(t, 0, sizeof(*t));
	if (p->path == NULL || p->path[0] == '\0') {
		snprintf(err, errlen, "trace = '': no file; allowed: a pcap "
			 "file");
		return -1;
	}
	pc = pcap_open_offline_with_tstamp_precision(p->path,
			PCAP_TSTAMP_PRECISION_NANO, ebuf);
	if (pc == NULL) {
		snprintf(err, errlen, "trace = '%s': %s; allowed: a readable "
			 "pcap or pcapng file", p->path, ebuf);
		return -1;
	}
	if (p->n_ranks < 1 || n_slots < 1)
		BAD("no ranks or ports to map onto; allowed: ranks >= 1");
	if (pcap_datalink(pc) != DLT_EN10MB)
		BAD("link type %s; allowed: Ethernet (DLT_EN10MB)",
		    pcap_datalink_val_to_name(pcap_datalink(pc)) ?
		    pcap_datalink_val_to_name(pcap_datalink(pc)) : "?");
	while ((rc = pcap_next_ex(pc, &h, &data)) == 1) {
		struct aifab_replay_frame *f;

		t->st.frames++;
		if (h->caplen < h->len || h->caplen > AIFAB_REPLAY_MAX_FRAME ||
		    h->caplen < RTE_ETHER_HDR_LEN) {
			t->st.skipped_bad++;
			continue;
		}
		if (grow((void **)&t->buf, &cap_buf, t->buf_len + h->caplen, 1) ||
		    grow((void **)&t->f, &cap_f, (uint64_t)t->n + 1,
			 sizeof(*t->f)))
			BAD("out of memory after %u frames", t->n);
		f = &t->f[t->n];
		memset(f, 0, sizeof(*f));
		f->off = t->buf_len;
		f->len = h->caplen;
		memcpy(t->buf + f->off, data, h->caplen);
		keep = load_frame(&c, t, f, n_slots, &why);
		if (keep < 0)
			BAD("frame %" PRIu64 ": %s", t->st.frames, why);
		if (keep == 0)
			continue;
		/* ns (NANO precision); time starts at the first frame kept
		 * and never runs backwards. */
		ts = (uint64_t)h->ts.tv_sec * 1000000000ull +
			(uint64_t)h->ts.tv_usec;
		if (t->n == 0)
			t0 = ts;
		last = RTE_MAX(last, ts < t0 ? 0 : ts - t0);
		f->t_ns = last;
		t->buf_len += f->len;
		t->bytes += f->len;
		t->max_len = RTE_MAX(t->max_len, f->len);
		t->n++;
	}
	if (rc == PCAP_ERROR)
		BAD("%s", pcap_geterr(pc));
	if (t->n == 0)
		BAD("no frames to send (%" PRIu64 " read, %" PRIu64 " skipped); "
		    "allowed: a trace with Ethernet frames", t->st.frames,
		    t->st.skipped_other + t->st.skipped_bad);
	t->span_ns = t->f[t->n - 1].t_ns;
	t->st.hosts = c.hosts.n;
	t->st.conns = c.conns.n;
	if (c.conns.n > 0) {
		t->psn_span = malloc(sizeof(*t->psn_span) * c.conns.n);
		if (t->psn_span == NULL)
			BAD("out of memory");
		for (i = 0; i < c.conns.n; i++)
			t->psn_span[i] = c.max_ahead[i] + 1;
	}
	pcap_close(pc);
	free(c.hosts.s);
	free(c.conns.s);
	free(c.first_psn);
	free(c.max_ahead);
	return 0;
fail:
	pcap_close(pc);
	free(c.hosts.s);
	free(c.conns.s);
	free(c.first_psn);
	free(c.max_ahead);
	aifab_replay_trace_free(t);
	return -1;
}

void
aifab_replay_trace_free(struct aifab_replay_trace *t)
{
	free(t->buf);
	free(t->f);
	free(t->psn_span);
	t->buf = NULL;
	t->f = NULL;
	t->psn_span = NULL;
	t->n = 0;
}

void
aifab_replay_frame_write(const struct aifab_replay_trace *t, uint32_t i,
			 uint32_t loop, uint8_t *dst)
{
	const struct aifab_replay_frame *f = &t->f[i];
	uint32_t psn, icrc;
	uint8_t *l3;

	memcpy(dst, t->buf + f->off, f->len);
	if (loop == 0 || f->conn == UINT32_MAX)
		return;
	l3 = dst + f->l3_off;
	psn = (f->psn + (uint32_t)((uint64_t)loop * t->psn_span[f->conn])) &
		0xFFFFFFu;
	aifab_put_u24(l3 + f->hdr_len - 3, psn);
	icrc = aifab_icrc4_combine_fold(l3, f->hdr_len, f->payload_raw,
					&f->shift);
	aifab_icrc_store(l3 + f->ip_len - AIFAB_ICRC_LEN, icrc);
}
