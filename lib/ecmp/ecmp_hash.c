/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * ECMP flow hashing: config compilation, the hash tuple, the three hash
 * functions, flow keys from parsed frames, and the profile names.
 */
#include <errno.h>
#include <netinet/in.h>
#include <string.h>

#include <rte_byteorder.h>
#include <rte_common.h>
#include <rte_hash_crc.h>
#include <rte_jhash.h>
#include <rte_thash.h>

#include "aifab_ecmp.h"
#include "aifab_pkt.h"
#include "aifab_rng.h"

const uint8_t aifab_ecmp_ms_rss_key[AIFAB_ECMP_RSS_KEY_MIN] = {
	0x6d, 0x5a, 0x56, 0xda, 0x25, 0x5b, 0x0e, 0xc2,
	0x41, 0x67, 0x25, 0x3d, 0x43, 0xa3, 0x8f, 0xb0,
	0xd0, 0xca, 0x2b, 0xcb, 0xae, 0x7b, 0x30, 0xb4,
	0x77, 0xcb, 0x2d, 0xa3, 0x80, 0x30, 0xf2, 0x0c,
	0x6a, 0x42, 0xb7, 0x3b, 0xbe, 0xac, 0x01, 0xfa,
};

#define ECMP_FN_NAME(e, s) s,
static const char *const fn_names[] = { AIFAB_ECMP_HASH_FNS(ECMP_FN_NAME) };
#undef ECMP_FN_NAME

#define ECMP_FIELD_NAME(e, s) s,
static const char *const field_names[] = { AIFAB_ECMP_FIELDS(ECMP_FIELD_NAME) };
#undef ECMP_FIELD_NAME

static uint32_t
load_be32(const uint8_t *p)
{
	return ((uint32_t)p[0] << 24) | ((uint32_t)p[1] << 16) |
	       ((uint32_t)p[2] << 8) | p[3];
}

static uint32_t
mask_if(uint32_t fields, uint32_t bit, uint32_t mask)
{
	return (fields & bit) ? mask : 0;
}

/* The default key: the Microsoft key, then its own first 12 bytes. */
static void
default_key(uint8_t *key)
{
	memcpy(key, aifab_ecmp_ms_rss_key, AIFAB_ECMP_RSS_KEY_MIN);
	memcpy(key + AIFAB_ECMP_RSS_KEY_MIN, aifab_ecmp_ms_rss_key,
	       AIFAB_ECMP_RSS_KEY_MAX - AIFAB_ECMP_RSS_KEY_MIN);
}

/* Key words in CPU order (rte_convert_rss_key()), seed XORed in. */
static void
key_compile(uint32_t *words, const uint8_t *key, unsigned int len,
	    uint32_t seed)
{
	uint64_t x = seed, r = 0;
	unsigned int i;

	memset(words, 0, AIFAB_ECMP_RSS_KEY_MAX);
	for (i = 0; i < len / 4; i++)
		words[i] = load_be32(key + 4 * i);
	if (seed == 0)
		return;
	for (i = 0; i < AIFAB_ECMP_RSS_KEY_MAX / 4; i++) {
		if (i % 2 == 0)
			r = aifab_splitmix64(&x);
		words[i] ^= (uint32_t)(i % 2 == 0 ? r >> 32 : r);
	}
}

int
aifab_ecmp_config(struct aifab_ecmp_cfg *cfg,
		  const struct aifab_ecmp_params *p)
{
	uint32_t extra = AIFAB_ECMP_F_PROTO | AIFAB_ECMP_F_DQPN;
	uint8_t dflt[AIFAB_ECMP_RSS_KEY_MAX];
	const uint8_t *key = p->rss_key;
	unsigned int len = p->rss_key_len;
	struct aifab_ecmp_cfg c;

	if ((unsigned int)p->fn >= AIFAB_ECMP_HASH_MAX || p->fields == 0 ||
	    (p->fields & ~AIFAB_ECMP_F_ALL) != 0)
		return -EINVAL;
	if (len == 0) {
		default_key(dflt);
		key = dflt;
		len = AIFAB_ECMP_RSS_KEY_MAX;
	}
	/* Toeplitz reads key word j + 1 for input word j. */
	if (len % 4 != 0 || len < AIFAB_ECMP_RSS_KEY_MIN ||
	    len > AIFAB_ECMP_RSS_KEY_MAX ||
	    ((p->fields & extra) && len < 4 * (AIFAB_ECMP_TUPLE_WORDS + 1)))
		return -EINVAL;

	memset(&c, 0, sizeof(c));
	c.fn = p->fn;
	c.seed = p->seed;
	c.fields = p->fields;
	c.src_mask = mask_if(p->fields, AIFAB_ECMP_F_SIP, UINT32_MAX);
	c.dst_mask = mask_if(p->fields, AIFAB_ECMP_F_DIP, UINT32_MAX);
	c.ports_mask = mask_if(p->fields, AIFAB_ECMP_F_SPORT, 0xFFFF0000u) |
		       mask_if(p->fields, AIFAB_ECMP_F_DPORT, 0x0000FFFFu);
	c.extra_mask = mask_if(p->fields, AIFAB_ECMP_F_PROTO, 0xFF000000u) |
		       mask_if(p->fields, AIFAB_ECMP_F_DQPN, 0x00FFFFFFu);
	c.extra_word = (p->fields & extra) != 0;
	key_compile(c.key, key, len, p->seed);
	*cfg = c;
	return 0;
}

/* The documented tuple; returns its length in words. */
static unsigned int
tuple_build(const struct aifab_ecmp_cfg *cfg,
	    const struct aifab_ecmp_flow *f, uint32_t *t)
{
	unsigned int i, n = 0, n_addr = f->family == 6 ? 4 : 1;

	for (i = 0; i < n_addr; i++)
		t[n++] = load_be32(f->src + 4 * i) & cfg->src_mask;
	for (i = 0; i < n_addr; i++)
		t[n++] = load_be32(f->dst + 4 * i) & cfg->dst_mask;
	t[n++] = (((uint32_t)f->sport << 16) | f->dport) & cfg->ports_mask;
	if (cfg->extra_word)
		t[n++] = (((uint32_t)f->proto << 24) | (f->dqpn & 0xFFFFFFu)) &
			 cfg->extra_mask;
	return n;
}

uint32_t
aifab_ecmp_hash(const struct aifab_ecmp_cfg *cfg,
		const struct aifab_ecmp_flow *flow)
{
	/* 8-aligned: rte_hash_crc() reads 64-bit words. */
	uint32_t t[AIFAB_ECMP_TUPLE_WORDS] __rte_aligned(8);
	unsigned int n = tuple_build(cfg, flow, t);

	switch (cfg->fn) {
	case AIFAB_ECMP_HASH_TOEPLITZ:
		return rte_softrss_be(t, n, (const uint8_t *)cfg->key);
	case AIFAB_ECMP_HASH_JHASH:
		return rte_jhash(t, 4 * n, cfg->seed);
	case AIFAB_ECMP_HASH_CRC32C:
	default:
		return aifab_ecmp_fmix32(rte_hash_crc(t, 4 * n, cfg->seed));
	}
}

static uint16_t
load_be16(const uint8_t *p)
{
	return (uint16_t)((p[0] << 8) | p[1]);
}

/* TCP / SCTP ports right after the IP header, if they are in the buffer. */
static void
l4_ports_raw(struct aifab_ecmp_flow *flow, const uint8_t *buf, uint32_t avail,
	     const struct aifab_pkt_info *pi)
{
	uint32_t off = (uint32_t)pi->l3_off + pi->l3_len;

	if (flow->proto != IPPROTO_TCP && flow->proto != IPPROTO_SCTP)
		return;
	if (off + 4 > avail)
		return;
	flow->sport = load_be16(buf + off);
	flow->dport = load_be16(buf + off + 2);
}

int
aifab_ecmp_flow_from_pkt(struct aifab_ecmp_flow *flow, const uint8_t *buf,
			 uint32_t avail, const struct aifab_pkt_info *pi)
{
	const uint8_t *l3 = buf + pi->l3_off;

	memset(flow, 0, sizeof(*flow));
	if (pi->l3 == AIFAB_L3_IPV4 && pi->l3_off + 20u <= avail) {
		flow->family = 4;
		memcpy(flow->src, l3 + 12, 4);
		memcpy(flow->dst, l3 + 16, 4);
	} else if (pi->l3 == AIFAB_L3_IPV6 && pi->l3_off + 40u <= avail) {
		flow->family = 6;
		memcpy(flow->src, l3 + 8, 16);
		memcpy(flow->dst, l3 + 24, 16);
	} else {
		return -EINVAL;
	}
	flow->proto = pi->l4_proto;
	if (pi->flags & AIFAB_PKT_F_FRAG)
		return 0;
	if (pi->flags & AIFAB_PKT_F_UDP) {
		flow->sport = pi->sport;
		flow->dport = pi->dport;
	} else {
		l4_ports_raw(flow, buf, avail, pi);
	}
	if (pi->flags & AIFAB_PKT_F_ROCE)
		flow->dqpn = pi->dqpn & 0xFFFFFFu;
	return 0;
}

void
aifab_ecmp_hash_pkts(const struct aifab_ecmp_cfg *cfg,
		     const uint8_t *const *buf, const uint32_t *avail,
		     const struct aifab_pkt_info *const *pi, uint16_t n,
		     uint32_t *hash, uint8_t *ok)
{
	struct aifab_ecmp_flow flow;
	uint16_t i;

	for (i = 0; i < n; i++) {
		ok[i] = aifab_ecmp_flow_from_pkt(&flow, buf[i], avail[i],
						 pi[i]) == 0;
		if (ok[i])
			hash[i] = aifab_ecmp_hash(cfg, &flow);
	}
}

const char *
aifab_ecmp_hash_fn_name(enum aifab_ecmp_hash_fn fn)
{
	if ((unsigned int)fn >= RTE_DIM(fn_names))
		return NULL;
	return fn_names[fn];
}

int
aifab_ecmp_hash_fn_parse(const char *name)
{
	unsigned int i;

	for (i = 0; name != NULL && i < RTE_DIM(fn_names); i++)
		if (strcmp(name, fn_names[i]) == 0)
			return (int)i;
	return -EINVAL;
}

const char *
aifab_ecmp_field_name(uint32_t field)
{
	unsigned int i;

	for (i = 0; i < RTE_DIM(field_names); i++)
		if (field == (1u << i))
			return field_names[i];
	return NULL;
}

/* Bit of the field named by the @p len characters at @p s, or 0. */
static uint32_t
field_bit(const char *s, size_t len)
{
	unsigned int i;

	for (i = 0; i < RTE_DIM(field_names); i++)
		if (strlen(field_names[i]) == len &&
		    strncmp(s, field_names[i], len) == 0)
			return 1u << i;
	return 0;
}

static int
is_sep(char c)
{
	return c == ',' || c == '+' || c == ' ' || c == '\t';
}

int
aifab_ecmp_fields_parse(const char *text, uint32_t *fields)
{
	uint32_t acc = 0, bit;
	size_t len;

	if (text == NULL)
		return -EINVAL;
	while (*text != '\0') {
		if (is_sep(*text)) {
			text++;
			continue;
		}
		for (len = 0; text[len] != '\0' && !is_sep(text[len]); len++)
			;
		bit = field_bit(text, len);
		if (bit == 0)
			return -EINVAL;
		acc |= bit;
		text += len;
	}
	if (acc == 0)
		return -EINVAL;
	*fields = acc;
	return 0;
}
