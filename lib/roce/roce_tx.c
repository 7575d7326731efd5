/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Frame building without touching the payload.
 *
 * A frame is one mbuf of a frame pool (aifab_roce_frame_pool_create): each
 * of its mbufs got a copy of the shared payload once, at a fixed place
 * (FRAME_PL_OFF, after the tag's 24 bytes), which no frame ever writes.
 * Per frame the headers go into the headroom right before the payload
 * (data_off moves by the RETH's 16 bytes), the tag into its place, and the
 * pad and ICRC after the payload: past the stored bytes for a full-MTU
 * packet. A shorter packet (a message's last) would put them inside the
 * stored bytes, so its pad + ICRC go in a second, small mbuf instead.
 *
 * The headers come from a per-QP template (roce_tmpl_init): 64 bytes
 * copied, then the per-frame fields (lengths, IPv4 id and checksum from
 * the template's sum, opcode, PadCnt, AckReq, PSN, RETH). The common
 * frame, a full WRITE middle, copies the QP's cached middle frame
 * (Ethernet..tag) instead and stores five fields (aifab_roce_mid_build(),
 * inline in aifab_roce.h).
 *
 * ICRC: with raw(X, c) the CRC register after feeding X from register c,
 * and raw(X, c) = raw(X, 0) ^ c * x^(8|X|) mod P (CRC is affine), the
 * payload of a tagged packet, tag G (24 bytes) then tail T (shared bytes +
 * pad zeros), has
 *   raw(G || T, 0) = raw(T, raw(G, 0)) = raw(T, 0) ^ raw(G, 0) * x^(8|T|)
 * raw(T, 0) and x^(8|T|) depend only on the payload length: they are
 * computed once per QP (MTU-sized packets) and once per message (its last
 * packet). The tag is written right after the headers, so
 * aifab_icrc4_combine_fold() folds the masked headers and the tag (one
 * carry-less multiply per 8 bytes), then appends raw(T, 0).
 */
#include <assert.h>
#include <errno.h>
#include <stddef.h>
#include <string.h>

#include <rte_byteorder.h>
#include <rte_errno.h>
#include <rte_ip.h>
#include <rte_malloc.h>
#include <rte_mbuf.h>

#include "aifab_rng.h"
#include "roce_priv.h"

#define ETH_LEN 14
#define IP4_LEN 20
#define UDP_LEN 8
#define IP_OFF ETH_LEN
#define UDP_OFF (IP_OFF + IP4_LEN)
#define BTH_OFF (UDP_OFF + UDP_LEN)
#define RETH_OFF (BTH_OFF + AIFAB_BTH_LEN)
/* A frame's payload (tag first) starts here in its mbuf's buffer. */
#define FRAME_PL_OFF RTE_PKTMBUF_HEADROOM
/* Room after a full payload: the ICRC, then tailroom (e.g. for a trailer a
 * test or a fault stage appends). */
#define FRAME_TAIL RTE_CACHE_LINE_SIZE

static_assert(FRAME_PL_OFF == AIFAB_ROCE_FRAME_PL_OFF &&
	      RETH_OFF == AIFAB_ROCE_MID_ETH_LEN &&
	      IP_OFF == AIFAB_ROCE_IP_OFF && BTH_OFF == AIFAB_ROCE_BTH_OFF,
	      "aifab_roce_mid_build()'s offsets");
static_assert(FRAME_PL_OFF >= RETH_OFF + AIFAB_RETH_LEN,
	      "the headers fit in the headroom");
static_assert(AIFAB_ROCE_TMPL_LEN >= RETH_OFF &&
	      AIFAB_ROCE_TMPL_LEN <= RETH_OFF + AIFAB_ROCE_TAG_LEN,
	      "the template covers Ethernet..BTH, its tail is overwritten");

static const uint8_t zeros4[4];

void
roce_tail_init(struct aifab_roce_tail *t, const struct aifab_roce_payload *pl,
	       uint32_t len)
{
	uint32_t raw;

	t->len = len;
	t->tag = len >= AIFAB_ROCE_TAG_LEN;
	t->pad = (uint8_t)((4 - (len & 3)) & 3);
	t->ext_len = t->tag ? len - AIFAB_ROCE_TAG_LEN : len;
	raw = aifab_crc32_raw_fold(0, pl->buf, t->ext_len);
	t->raw = aifab_crc32_raw(raw, zeros4, t->pad);
	aifab_crc_shift_init(&t->shift, t->ext_len + t->pad);
}

/*
 * A full-payload WRITE middle frame (no RETH, AckReq 0, PadCnt 0) differs
 * from the QP's previous one in a few header bytes only: the IPv4 id, the
 * PSN, the tag's seq and TX stamp (rank, step and iteration stay for a
 * message; lengths and opcode are those of every middle frame). CRC being
 * linear, its ICRC register is the one of the same frame with those bytes
 * zero (cached per QP and message: mid_base) XOR what each byte adds:
 * mid_tab[i][value], that byte's CRC over the rest of the headers and the
 * payload. The IPv4 id is the seq's low 16 bits: one table holds both
 * places. The TX stamp's part is cached per QP (one stamp per poll).
 * Offsets from the IPv4 header, whose ICRC headers are MID_HDR_LEN bytes
 * (IPv4, UDP, BTH, tag); 0: none.
 */
#define MID_HDR_LEN (IP4_LEN + UDP_LEN + AIFAB_BTH_LEN + AIFAB_ROCE_TAG_LEN)
static const uint8_t mid_off[AIFAB_ROCE_MID_BYTES][2] = {
	{ 37, 0 }, { 38, 0 }, { 39, 0 },        /* BTH PSN */
	{ 52, 0 }, { 53, 0 }, { 54, 4 }, { 55, 5 }, /* tag seq, IPv4 id */
	{ 56, 0 }, { 57, 0 }, { 58, 0 }, { 59, 0 }, /* tag TX stamp: */
	/* AIFAB_ROCE_MID_TS..: the stamp's tables */
	{ 60, 0 }, { 61, 0 }, { 62, 0 }, { 63, 0 },
};

/* What byte @p v at @p off adds to a middle frame's ICRC register. */
static uint32_t
mid_byte(const struct aifab_roce_payload *pl, uint32_t off, uint8_t v)
{
	struct aifab_crc_shift sh;

	/* The byte, then the rest of the headers and the payload's tail. */
	aifab_crc_shift_init(&sh, MID_HDR_LEN - 1 - off + pl->len -
			     AIFAB_ROCE_TAG_LEN);
	return aifab_crc32_mul(aifab_crc32_raw(0, &v, 1), sh.x8n);
}

static void
mid_tab_init(struct aifab_roce_payload *pl)
{
	uint32_t i, k, b;

	for (i = 0; i < AIFAB_ROCE_MID_BYTES; i++)
		for (b = 0; b < 256; b++) {
			pl->mid_tab[i][b] = 0;
			for (k = 0; k < 2 && mid_off[i][k] != 0; k++)
				pl->mid_tab[i][b] ^= mid_byte(pl,
						mid_off[i][k], (uint8_t)b);
		}
}

struct aifab_roce_payload *
aifab_roce_payload_create(uint16_t len, uint64_t seed, int socket)
{
	struct aifab_roce_payload *pl;
	struct aifab_rng rng;
	uint16_t i;

	if (len < AIFAB_ROCE_MTU_MIN) {
		rte_errno = EINVAL;
		return NULL;
	}
	pl = rte_zmalloc_socket("aifab_roce_pl", sizeof(*pl),
				RTE_CACHE_LINE_SIZE, socket);
	if (pl == NULL)
		goto nomem;
	pl->buf = rte_malloc_socket("aifab_roce_pl_buf", len,
				    RTE_CACHE_LINE_SIZE, socket);
	if (pl->buf == NULL)
		goto nomem;
	pl->len = len;
	aifab_rng_seed(&rng, seed, 0x70a1);
	for (i = 0; i < len; i++)
		pl->buf[i] = (uint8_t)aifab_rng_u32(&rng);
	pl->mid_tab = rte_malloc_socket("aifab_roce_mid", sizeof(pl->mid_tab[0]) *
					AIFAB_ROCE_MID_BYTES,
					RTE_CACHE_LINE_SIZE, socket);
	if (pl->mid_tab == NULL)
		goto nomem;
	mid_tab_init(pl);
	return pl;
nomem:
	if (pl != NULL) {
		rte_free(pl->buf);
		rte_free(pl);
	}
	rte_errno = ENOMEM;
	return NULL;
}

void
aifab_roce_payload_free(struct aifab_roce_payload *pl)
{
	if (pl == NULL)
		return;
	rte_free(pl->mid_tab);
	rte_free(pl->buf);
	rte_free(pl);
}

/* Every frame mbuf holds the payload after the tag's place, once. */
static void
frame_fill(struct rte_mempool *mp, void *opaque, void *obj,
	   unsigned int idx)
{
	const struct aifab_roce_payload *pl = opaque;
	struct rte_mbuf *m = obj;

	RTE_SET_USED(mp);
	RTE_SET_USED(idx);
	memcpy((uint8_t *)m->buf_addr + FRAME_PL_OFF + AIFAB_ROCE_TAG_LEN,
	       pl->buf, pl->len - AIFAB_ROCE_TAG_LEN);
}

struct rte_mempool *
aifab_roce_frame_pool_create(const char *name, uint32_t n, uint32_t cache,
			     const struct aifab_roce_payload *pl, int socket)
{
	struct rte_mempool *mp;

	mp = rte_pktmbuf_pool_create(name, n, cache, 0, (uint16_t)
				     (FRAME_PL_OFF + pl->len + FRAME_TAIL),
				     socket);
	if (mp != NULL)
		rte_mempool_obj_iter(mp, frame_fill, (void *)(uintptr_t)pl);
	return mp;
}

static void
tag_write(uint8_t *p, const struct aifab_roce_tag_info *ti, uint32_t seq)
{
	struct aifab_roce_tag t = {
		.magic = rte_cpu_to_be_32(AIFAB_ROCE_TAG_MAGIC),
		.rank = rte_cpu_to_be_16(ti->rank),
		.step = rte_cpu_to_be_16(ti->step),
		.iter = rte_cpu_to_be_32(ti->iter),
		.seq = rte_cpu_to_be_32(seq),
		.tx_tsc = rte_cpu_to_be_64(ti->tx_tsc),
	};

	memcpy(p, &t, sizeof(t));
}

bool
aifab_roce_tag_read(const uint8_t *payload, uint32_t len,
		    struct aifab_roce_tag_info *out)
{
	struct aifab_roce_tag t;

	if (len < AIFAB_ROCE_TAG_LEN)
		return false;
	memcpy(&t, payload, sizeof(t));
	if (rte_be_to_cpu_32(t.magic) != AIFAB_ROCE_TAG_MAGIC)
		return false;
	out->rank = rte_be_to_cpu_16(t.rank);
	out->step = rte_be_to_cpu_16(t.step);
	out->iter = rte_be_to_cpu_32(t.iter);
	out->seq = rte_be_to_cpu_32(t.seq);
	out->tx_tsc = rte_be_to_cpu_64(t.tx_tsc);
	return true;
}

void
roce_tmpl_init(struct aifab_roce_qp *qp)
{
	const struct aifab_roce_qp_params *c = &qp->cfg;
	uint8_t *h = qp->hdr;
	uint32_t sum = 0, i;

	memset(qp->hdr, 0, sizeof(qp->hdr));
	aifab_build_eth(h, &c->dmac, &c->smac, -1, 0, RTE_ETHER_TYPE_IPV4);
	aifab_build_ipv4(h + IP_OFF, rte_cpu_to_be_32(c->sip),
			 rte_cpu_to_be_32(c->dip), IPPROTO_UDP,
			 (uint8_t)(c->dscp << 2 | c->ecn), c->ttl, 0, 0);
	/* Length, id and checksum are per frame: zero here, the rest summed. */
	memset(h + IP_OFF + 2, 0, 4);
	memset(h + IP_OFF + 10, 0, 2);
	for (i = 0; i < IP4_LEN; i += 2)
		sum += (uint32_t)h[IP_OFF + i] << 8 | h[IP_OFF + i + 1];
	qp->ip_sum = sum;
	aifab_build_udp(h + UDP_OFF, c->sport, AIFAB_ROCEV2_UDP_PORT, 0);
	memset(h + UDP_OFF + 4, 0, 2);
	aifab_build_bth(h + BTH_OFF, 0, false, 0, c->dqpn, false, 0, false);
}

static inline void
put_be16(uint8_t *p, uint16_t v)
{
	rte_be16_t b = rte_cpu_to_be_16(v);

	memcpy(p, &b, sizeof(b));
}

static inline void
put_be32(uint8_t *p, uint32_t v)
{
	rte_be32_t b = rte_cpu_to_be_32(v);

	memcpy(p, &b, sizeof(b));
}

static inline void
put_be64(uint8_t *p, uint64_t v)
{
	rte_be64_t b = rte_cpu_to_be_64(v);

	memcpy(p, &b, sizeof(b));
}

/*
 * Ethernet..RETH at @p p from the QP's template: the template's 64 bytes
 * (Ethernet..BTH and 10 bytes the RETH / tag / payload then overwrite),
 * then the per-frame fields: IPv4 length, id and checksum (from the
 * template's sum), UDP length, opcode, PadCnt, AckReq and PSN, the RETH.
 */
static inline void
hdr_write(const struct aifab_roce_qp *qp, const struct aifab_roce_seg *seg,
	  uint8_t *p)
{
	uint32_t l4 = UDP_LEN + AIFAB_BTH_LEN +
		(seg->reth ? AIFAB_RETH_LEN : 0) + seg->len + seg->pad +
		AIFAB_ICRC_LEN;
	uint16_t id = (uint16_t)qp->seq;
	uint32_t sum = qp->ip_sum + IP4_LEN + l4 + id;

	sum = (sum & 0xffff) + (sum >> 16);
	sum = (sum & 0xffff) + (sum >> 16);
	memcpy(p, qp->hdr, sizeof(qp->hdr));
	put_be16(p + IP_OFF + 2, (uint16_t)(IP4_LEN + l4));
	put_be16(p + IP_OFF + 4, id);
	put_be16(p + IP_OFF + 10, (uint16_t)~sum);
	put_be16(p + UDP_OFF + 4, (uint16_t)l4);
	p[BTH_OFF] = seg->opcode;
	p[BTH_OFF + 1] = (uint8_t)((seg->pad & 3) << 4);
	put_be32(p + BTH_OFF + 8, (seg->ack_req ? 0x80000000u : 0) |
		 (seg->psn & AIFAB_ROCE_PSN_MASK));
	if (seg->reth) {
		put_be64(p + RETH_OFF, seg->va);
		put_be32(p + RETH_OFF + 8, qp->cfg.rkey);
		put_be32(p + RETH_OFF + 12, seg->msg_len);
	}
}

static const struct aifab_roce_tail *
pick_tail(struct aifab_roce_qp *qp, uint32_t len)
{
	if (len == qp->full.len)
		return &qp->full;
	/* A last packet of another length (a message cut by the caller, or
	 * a retransmission): O(len) once, then cached until the next. */
	if (len != qp->last.len)
		roce_tail_init(&qp->last, qp->pl, len);
	return &qp->last;
}

/* Whether the frame's pad and ICRC may go right after its payload in the
 * frame mbuf: past the stored payload, or inside the tag's place. */
static inline bool
icrc_inline(const struct aifab_roce_payload *pl,
	    const struct aifab_roce_seg *seg)
{
	return seg->len == pl->len ||
	       seg->len + seg->pad + AIFAB_ICRC_LEN <= AIFAB_ROCE_TAG_LEN;
}

/* Pad zeros then the ICRC (little-endian, as aifab_icrc_store) at @p q. */
static inline void
icrc_write(uint8_t *q, uint8_t pad, uint32_t icrc)
{
	uint32_t le = rte_cpu_to_le_32(icrc);
	uint8_t i;

	for (i = 0; i < pad; i++)
		q[i] = 0;
	memcpy(q + pad, &le, sizeof(le));
}

/* Ethernet..tag of a middle frame: what mid_hdr holds. */
#define MID_FRAME_LEN (RETH_OFF + AIFAB_ROCE_TAG_LEN)
static_assert(MID_FRAME_LEN <= AIFAB_ROCE_MID_HDR_LEN && MID_FRAME_LEN >= 64 &&
	      MID_FRAME_LEN <= 64 + 16, "mid_hdr: 64 bytes and 16 more");

/* A full middle frame of a new tag key (rank, step, iteration), just
 * written at @p p as any frame: its ICRC from the masked headers (cached
 * per QP and key: mid_base), and the frame (mid_hdr, mid_sum) the next
 * middle frames of the key copy. */
static uint32_t
mid_first(struct aifab_roce_qp *qp, const struct aifab_roce_seg *seg,
	  const struct aifab_roce_tag_info *tag, const uint8_t *p,
	  const struct aifab_roce_tail *t)
{
	uint8_t h[MID_HDR_LEN];
	unsigned int i, k;

	memcpy(h, p + IP_OFF, sizeof(h));
	for (i = 0; i < AIFAB_ROCE_MID_BYTES; i++)
		for (k = 0; k < 2 && mid_off[i][k] != 0; k++)
			h[mid_off[i][k]] = 0;
	qp->mid_base = ~aifab_icrc4_combine_fold(h, sizeof(h), t->raw,
						 &t->shift);
	qp->mid_key = aifab_roce_mid_key(tag);
	memcpy(qp->mid_hdr, p, MID_FRAME_LEN);
	qp->mid_sum = qp->ip_sum + IP4_LEN + UDP_LEN + AIFAB_BTH_LEN +
		seg->len + seg->pad + AIFAB_ICRC_LEN;
	return ~(qp->mid_base ^ aifab_roce_mid_var_crc(qp, seg->psn, qp->seq,
					    tag->tx_tsc));
}

int
aifab_roce_frame_build(struct aifab_roce_qp *qp,
		       const struct aifab_roce_seg *seg,
		       const struct aifab_roce_tag_info *tag,
		       struct rte_mbuf *m, struct rte_mempool *hdr_pool)
{
	const struct aifab_roce_tail *t;
	struct rte_mbuf *tr = NULL;
	uint32_t hlen, icrc;
	uint8_t *pay, *p, *q;
	bool mid;

	if (qp->pl == NULL)
		return -EINVAL;
	mid = seg->opcode == AIFAB_BTH_OP_WRITE_MIDDLE &&
		seg->len == qp->pl->len;
	if (likely(mid && aifab_roce_mid_key(tag) == qp->mid_key)) {
		aifab_roce_mid_build(qp, seg, tag, m);
		return 0;
	}
	if (!icrc_inline(qp->pl, seg)) {
		tr = rte_pktmbuf_alloc(hdr_pool);
		if (tr == NULL)
			return -ENOBUFS;
		q = (uint8_t *)rte_pktmbuf_append(tr, (uint16_t)(seg->pad +
						  AIFAB_ICRC_LEN));
		if (q == NULL) {
			rte_pktmbuf_free(tr);
			return -EINVAL; /* hdr_pool's data room too small */
		}
	}
	t = pick_tail(qp, seg->len);
	hlen = seg->reth ? RETH_OFF + AIFAB_RETH_LEN : RETH_OFF;
	pay = (uint8_t *)m->buf_addr + FRAME_PL_OFF;
	p = pay - hlen;
	hdr_write(qp, seg, p);
	if (t->tag)
		tag_write(pay, tag, qp->seq);
	else
		memcpy(pay, qp->pl->buf, seg->len);
	if (mid)
		icrc = mid_first(qp, seg, tag, p, t);
	else
		icrc = aifab_icrc4_combine_fold(p + IP_OFF, hlen - IP_OFF +
						(t->tag ? AIFAB_ROCE_TAG_LEN : 0),
						t->raw, &t->shift);
	qp->seq++;
	m->data_off = (uint16_t)(FRAME_PL_OFF - hlen);
	if (tr == NULL) {
		icrc_write(pay + seg->len, seg->pad, icrc);
		m->data_len = (uint16_t)(hlen + seg->len + seg->pad +
					 AIFAB_ICRC_LEN);
		m->pkt_len = m->data_len;
		return 0;
	}
	icrc_write(q, seg->pad, icrc);
	m->data_len = (uint16_t)(hlen + seg->len);
	m->pkt_len = m->data_len;
	return rte_pktmbuf_chain(m, tr);
}
