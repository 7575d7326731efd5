/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Frame building without touching the payload.
 *
 * With raw(X, c) the CRC register after feeding X from register c, and
 * raw(X, c) = raw(X, 0) ^ c * x^(8|X|) mod P (CRC is affine), the payload
 * of a tagged packet, tag G (24 bytes) then tail T (shared bytes + pad
 * zeros), has
 *   raw(G || T, 0) = raw(T, raw(G, 0)) = raw(T, 0) ^ raw(G, 0) * x^(8|T|)
 * raw(T, 0) and x^(8|T|) depend only on the payload length: they are
 * computed once per QP (MTU-sized packets) and once per message (its last
 * packet). The tag is written right after the headers, so
 * aifab_icrc_combine() runs the CRC over the masked headers and the tag,
 * then appends raw(T, 0). Per packet: headers + 24 tag bytes of CRC and one
 * GF(2) multiply.
 */
#include <errno.h>
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
	raw = aifab_crc32_raw(0, pl->buf, t->ext_len);
	t->raw = aifab_crc32_raw(raw, zeros4, t->pad);
	aifab_crc_shift_init(&t->shift, t->ext_len + t->pad);
}

/* No-op: the payload owns its buffer and one reference on it. */
static void
payload_ext_free(void *addr, void *opaque)
{
	RTE_SET_USED(addr);
	RTE_SET_USED(opaque);
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
	pl->iova = rte_malloc_virt2iova(pl->buf);
	aifab_rng_seed(&rng, seed, 0x70a1);
	for (i = 0; i < len; i++)
		pl->buf[i] = (uint8_t)aifab_rng_u32(&rng);
	pl->shinfo.free_cb = payload_ext_free;
	pl->shinfo.fcb_opaque = pl;
	rte_mbuf_ext_refcnt_set(&pl->shinfo, 1);
	return pl;
nomem:
	if (pl != NULL)
		rte_free(pl);
	rte_errno = ENOMEM;
	return NULL;
}

int
aifab_roce_payload_free(struct aifab_roce_payload *pl)
{
	if (pl == NULL)
		return 0;
	if (rte_mbuf_ext_refcnt_read(&pl->shinfo) != 1)
		return -EBUSY;
	rte_free(pl->buf);
	rte_free(pl);
	return 0;
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

/* Ethernet..RETH, then the tag when the packet carries one. */
static void
write_headers(struct aifab_roce_qp *qp, const struct aifab_roce_seg *seg,
	      const struct aifab_roce_tag_info *tag,
	      const struct aifab_roce_tail *t, uint8_t *p)
{
	const struct aifab_roce_qp_params *c = &qp->cfg;
	uint32_t bth_plus = AIFAB_BTH_LEN + (seg->reth ? AIFAB_RETH_LEN : 0) +
		seg->len + seg->pad + AIFAB_ICRC_LEN;
	uint32_t off;

	off = aifab_build_eth(p, &c->dmac, &c->smac, -1, 0,
			      RTE_ETHER_TYPE_IPV4);
	off += aifab_build_ipv4(p + off, rte_cpu_to_be_32(c->sip),
				rte_cpu_to_be_32(c->dip), IPPROTO_UDP,
				(uint8_t)(c->dscp << 2 | c->ecn), c->ttl,
				(uint16_t)(UDP_LEN + bth_plus),
				(uint16_t)qp->seq);
	off += aifab_build_udp(p + off, c->sport, AIFAB_ROCEV2_UDP_PORT,
			       (uint16_t)bth_plus);
	off += aifab_build_bth(p + off, seg->opcode, false, seg->pad, c->dqpn,
			       seg->ack_req, seg->psn, false);
	if (seg->reth)
		off += aifab_build_reth(p + off, seg->va, c->rkey,
					seg->msg_len);
	if (t->tag)
		tag_write(p + off, tag, qp->seq);
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

static void
attach_payload(struct aifab_roce_payload *pl, struct rte_mbuf *e,
	       uint32_t len)
{
	rte_mbuf_ext_refcnt_update(&pl->shinfo, 1);
	rte_pktmbuf_attach_extbuf(e, pl->buf, pl->iova, pl->len, &pl->shinfo);
	e->data_off = 0;
	e->data_len = (uint16_t)len;
	e->pkt_len = len;
}

struct rte_mbuf *
aifab_roce_build(struct aifab_roce_qp *qp, const struct aifab_roce_seg *seg,
		 const struct aifab_roce_tag_info *tag,
		 struct rte_mempool *hdr_pool, struct rte_mempool *ext_pool)
{
	const struct aifab_roce_tail *t;
	struct rte_mbuf *m[2], *e = NULL;
	uint32_t hlen, icrc;
	uint8_t *p, *q;

	if (qp->pl == NULL) {
		rte_errno = EINVAL;
		return NULL;
	}
	t = pick_tail(qp, seg->len);
	if (rte_pktmbuf_alloc_bulk(hdr_pool, m, 2) != 0)
		goto nobufs;
	if (t->ext_len > 0) {
		e = rte_pktmbuf_alloc(ext_pool);
		if (e == NULL) {
			rte_pktmbuf_free_bulk(m, 2);
			goto nobufs;
		}
	}
	hlen = ETH_LEN + IP4_LEN + UDP_LEN + AIFAB_BTH_LEN +
		(seg->reth ? AIFAB_RETH_LEN : 0);
	p = (uint8_t *)rte_pktmbuf_append(m[0], (uint16_t)(hlen +
			(t->tag ? AIFAB_ROCE_TAG_LEN : 0)));
	q = (uint8_t *)rte_pktmbuf_append(m[1], (uint16_t)(seg->pad +
			AIFAB_ICRC_LEN));
	if (p == NULL || q == NULL) {
		rte_pktmbuf_free_bulk(m, 2);
		rte_pktmbuf_free(e);
		rte_errno = EINVAL; /* hdr_pool's data room too small */
		return NULL;
	}
	write_headers(qp, seg, tag, t, p);
	icrc = aifab_icrc4_combine_fold(p + ETH_LEN, hlen - ETH_LEN +
					(t->tag ? AIFAB_ROCE_TAG_LEN : 0),
					t->raw, &t->shift);
	memset(q, 0, seg->pad);
	aifab_icrc_store(q + seg->pad, icrc);
	qp->seq++;
	if (e != NULL) {
		attach_payload(qp->pl, e, t->ext_len);
		rte_pktmbuf_chain(m[0], e);
	}
	rte_pktmbuf_chain(m[0], m[1]);
	return m[0];
nobufs:
	rte_errno = ENOBUFS;
	return NULL;
}
