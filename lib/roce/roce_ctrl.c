/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Closed-loop pieces of the transport: segments cut by someone else (the
 * RC requester's PSN ring) made buildable, and the frames a responder
 * sends back to its requester: ACK / NAK (BTH 0x11 + AETH) and CNP (0x81).
 */
#include <errno.h>
#include <string.h>

#include <rte_byteorder.h>
#include <rte_errno.h>
#include <rte_ip.h>
#include <rte_mbuf.h>

#include "roce_priv.h"

#define ETH_LEN 14
#define IP4_LEN 20
#define UDP_LEN 8

void
aifab_roce_seg_make(struct aifab_roce_seg *seg, uint64_t va, uint32_t msg_len,
		    uint32_t off, uint32_t len, uint32_t psn, bool first,
		    bool last)
{
	seg->off = off;
	seg->va = va;
	seg->msg_len = msg_len;
	seg->len = len;
	seg->psn = psn & AIFAB_ROCE_PSN_MASK;
	seg->opcode = aifab_roce_write_opcode(first, last);
	seg->pad = (uint8_t)((4 - (len & 3)) & 3);
	seg->reth = first;
	seg->ack_req = last;
}

/* MACs of frames from the responder end back to the requester. */
static inline const struct rte_ether_addr *
rev_dst(const struct aifab_roce_qp_params *c)
{
	return c->has_rev ? &c->rdmac : &c->smac;
}

static inline const struct rte_ether_addr *
rev_src(const struct aifab_roce_qp_params *c)
{
	return c->has_rev ? &c->rsmac : &c->dmac;
}

uint16_t
aifab_roce_ack_write(const struct aifab_roce_qp *qp, uint8_t *buf,
		     uint32_t psn, uint8_t syndrome, uint32_t msn, uint8_t tos)
{
	const struct aifab_roce_qp_params *c = &qp->cfg;
	const uint16_t l4 = AIFAB_BTH_LEN + AIFAB_AETH_LEN + AIFAB_ICRC_LEN;
	uint16_t off;

	/* The responder's end: the requester's destination is our source. */
	off = aifab_build_eth(buf, rev_dst(c), rev_src(c), -1, 0,
			      RTE_ETHER_TYPE_IPV4);
	off += aifab_build_ipv4(buf + off, rte_cpu_to_be_32(c->dip),
				rte_cpu_to_be_32(c->sip), IPPROTO_UDP, tos,
				c->ttl, UDP_LEN + l4, 0);
	off += aifab_build_udp(buf + off, c->sport, AIFAB_ROCEV2_UDP_PORT, l4);
	off += aifab_build_bth(buf + off, AIFAB_BTH_OP_ACK, false, 0, c->qpn,
			       false, psn & AIFAB_ROCE_PSN_MASK, false);
	off += aifab_build_aeth(buf + off, syndrome, msn & AIFAB_ROCE_PSN_MASK);
	aifab_icrc_store(buf + off, aifab_icrc(buf + ETH_LEN, off - ETH_LEN,
					       false));
	return (uint16_t)(off + AIFAB_ICRC_LEN);
}

uint16_t
aifab_roce_cnp_write(const struct aifab_roce_qp *qp, uint8_t *buf, uint8_t tos)
{
	const struct aifab_roce_qp_params *c = &qp->cfg;

	return aifab_build_cnp_ipv4(buf, rev_dst(c), rev_src(c),
				    rte_cpu_to_be_32(c->dip),
				    rte_cpu_to_be_32(c->sip), c->sport, tos,
				    c->qpn);
}

static struct rte_mbuf *
ctrl_alloc(struct rte_mempool *pool, uint16_t len, uint8_t **p)
{
	struct rte_mbuf *m = rte_pktmbuf_alloc(pool);

	if (m == NULL) {
		rte_errno = ENOBUFS;
		return NULL;
	}
	*p = (uint8_t *)rte_pktmbuf_append(m, len);
	if (*p == NULL) {
		rte_pktmbuf_free(m);
		rte_errno = EINVAL;
		return NULL;
	}
	return m;
}

struct rte_mbuf *
aifab_roce_build_ack(const struct aifab_roce_qp *qp, uint32_t psn,
		     uint8_t syndrome, uint32_t msn, uint8_t tos,
		     struct rte_mempool *pool)
{
	uint8_t *p;
	struct rte_mbuf *m = ctrl_alloc(pool, AIFAB_ROCE_ACK_FRAME_LEN, &p);

	if (m != NULL)
		aifab_roce_ack_write(qp, p, psn, syndrome, msn, tos);
	return m;
}

struct rte_mbuf *
aifab_roce_build_cnp(const struct aifab_roce_qp *qp, uint8_t tos,
		     struct rte_mempool *pool)
{
	uint8_t *p;
	struct rte_mbuf *m = ctrl_alloc(pool, AIFAB_ROCE_CNP_FRAME_LEN, &p);

	if (m != NULL)
		aifab_roce_cnp_write(qp, p, tos);
	return m;
}
