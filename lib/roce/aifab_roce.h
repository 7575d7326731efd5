/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * aifab RoCEv2 transport, open loop: a reliable-connection QP's send side
 * (PSN, current message, header fields), the packetizer that cuts a message
 * into RDMA WRITE first/middle/last/only packets of the IB MTU, a frame
 * builder that never touches the payload per packet, the receive-side PSN
 * tracker (lost / reordered / duplicate) and a log-bucketed latency
 * histogram.
 *
 * Frames (IPv4, untagged): Ethernet | IPv4 (DF, DSCP/ECN) | UDP (sport,
 * 4791, checksum 0) | BTH | RETH (first/only) | payload | pad | ICRC.
 * The payload starts with a 24-byte tag of ours (struct aifab_roce_tag:
 * rank, step, iteration, per-QP packet sequence, TX TSC) when the packet
 * carries at least 24 payload bytes; the rest comes from one shared,
 * constant buffer (struct aifab_roce_payload).
 *
 * A built frame is one mbuf of a frame pool, whose mbufs hold a copy of
 * the shared payload written once when the pool is made: per packet the
 * headers (from a per-QP template), the tag, the pad and the ICRC are
 * written, never the payload. A packet shorter than the payload (a
 * message's last) gets its pad + ICRC in a second mbuf. The ICRC is
 * combined from the masked headers, the tag and a precomputed raw CRC of
 * the payload tail (CRC is affine): per packet the work is proportional to
 * the header length only.
 *
 * QP state is a plain struct the caller owns. Closed loop: lib/rc decides
 * what to (re)send and aifab_roce_seg_make() turns its answer into a
 * segment; the ACK / NAK / CNP frames a responder sends back are built
 * here too. Nothing here reads a clock: TX timestamps are passed in.
 */
#ifndef AIFAB_ROCE_H
#define AIFAB_ROCE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <rte_common.h>
#include <rte_ether.h>
#include <rte_mbuf.h>

#include "aifab_pkt.h"

#ifdef __cplusplus
extern "C" {
#endif

#define AIFAB_ROCE_PSN_MASK 0xFFFFFFu
#define AIFAB_ROCE_QPN_MASK 0xFFFFFFu
#define AIFAB_ROCE_MTU_MIN 256
#define AIFAB_ROCE_MTU_MAX 4096
/** Largest RDMA WRITE message (RETH DMA length is 32 bits). */
#define AIFAB_ROCE_MSG_MAX UINT32_MAX
/** Our payload tag: "AIFB". */
#define AIFAB_ROCE_TAG_MAGIC 0x41494642u
#define AIFAB_ROCE_TAG_LEN 24
/** Ethernet + IPv4 + UDP + BTH + RETH + tag. */
#define AIFAB_ROCE_HDR_MAX (14 + 20 + 8 + AIFAB_BTH_LEN + AIFAB_RETH_LEN + \
			    AIFAB_ROCE_TAG_LEN)
/** Frame bytes a packet adds on top of its payload (Ethernet..ICRC, no FCS). */
#define AIFAB_ROCE_OVERHEAD(reth) (14 + 20 + 8 + AIFAB_BTH_LEN + \
				   ((reth) ? AIFAB_RETH_LEN : 0) + AIFAB_ICRC_LEN)

/** Payload tag as it sits on the wire (network order). */
struct aifab_roce_tag {
	rte_be32_t magic;   /**< AIFAB_ROCE_TAG_MAGIC */
	rte_be16_t rank;    /**< sending rank */
	rte_be16_t step;    /**< step in the iteration */
	rte_be32_t iter;    /**< iteration */
	rte_be32_t seq;     /**< packet number on the QP (32 bits, no wrap) */
	rte_be64_t tx_tsc;  /**< TSC when the packet was built */
} __rte_packed;

/** The tag's fields in host order. */
struct aifab_roce_tag_info {
	uint16_t rank;
	uint16_t step;
	uint32_t iter;
	uint32_t seq;
	uint64_t tx_tsc;
};

/** Byte positions of a middle frame's ICRC table (see aifab_roce_payload). */
#define AIFAB_ROCE_MID_BYTES 15

/** Shared constant payload bytes. */
struct aifab_roce_payload {
	uint8_t *buf;                 /**< len bytes, seeded pattern */
	uint16_t len;
	/** ICRC of a full-payload WRITE middle frame, per changing header
	 * byte (IPv4 id, PSN, tag seq and TX stamp) and value: what the byte
	 * adds to the CRC register, carried over the payload. */
	uint32_t (*mid_tab)[256];
};

/** Bytes of a QP's header template: Ethernet..BTH (54) and 10 spare. */
#define AIFAB_ROCE_TMPL_LEN 64
/** Bytes of a QP's middle frame template: Ethernet..BTH, the tag (78),
 * 2 spare. */
#define AIFAB_ROCE_MID_HDR_LEN 80

/** How to set up a QP's send side. */
struct aifab_roce_qp_params {
	uint32_t qpn;                 /**< local QP (24 bits) */
	uint32_t dqpn;                /**< remote QP: BTH destination QP */
	uint32_t start_psn;           /**< first PSN (24 bits) */
	uint16_t sport;               /**< 0: aifab_roce_sport(qpn, dqpn) */
	uint8_t dscp;                 /**< 0..63 (RoCE: 26) */
	uint8_t ecn;                  /**< 0..3 (ECT(0) = 2) */
	uint8_t ttl;                  /**< 0: 64 */
	uint16_t mtu;                 /**< IB MTU: 256, 512, 1024, 2048, 4096 */
	struct rte_ether_addr smac, dmac;
	/** Reverse direction (ACK/NAK/CNP from the responder end): with
	 * has_rev, source rsmac and destination rdmac (e.g. its gateway);
	 * without, the data frame's MACs swapped. */
	bool has_rev;
	struct rte_ether_addr rsmac, rdmac;
	uint32_t sip, dip;            /**< IPv4, host order */
	uint64_t remote_va;           /**< RETH VA of message offset 0 */
	uint32_t rkey;
};

/** Raw-CRC operators for one payload length (see aifab_roce_frame_build()). */
struct aifab_roce_tail {
	uint32_t len;                 /**< payload bytes (no pad); UINT32_MAX: unset */
	uint32_t ext_len;             /**< bytes taken from the shared payload */
	uint8_t pad;
	bool tag;                     /**< the packet carries our tag */
	uint32_t raw;                 /**< raw CRC of shared[0, ext_len) + pad, from 0 */
	struct aifab_crc_shift shift;  /**< over ext_len + pad: appends raw to
					* the CRC of the headers and tag */
};

/** The message a QP is sending (one RDMA WRITE). */
struct aifab_roce_msg {
	uint64_t len;
	uint64_t sent;                /**< bytes already cut into packets */
	uint64_t va;                  /**< remote address (RETH) */
	uint32_t id;                  /**< caller's id */
	bool active;
};

/** One QP's send side. */
struct aifab_roce_qp {
	/** Ethernet..BTH of its data frames with the per-frame fields zero. */
	uint8_t hdr[AIFAB_ROCE_TMPL_LEN] __rte_aligned(16);
	uint32_t ip_sum;              /**< one's complement sum of hdr's IPv4 */
	struct aifab_roce_qp_params cfg; /**< sport resolved, ttl set */
	uint32_t psn;                 /**< next PSN to send */
	uint32_t seq;                 /**< packets sent (tag sequence) */
	struct aifab_roce_msg msg;
	struct aifab_roce_payload *pl; /**< NULL: packetizer only */
	/* What a cached middle frame reads (aifab_roce_mid_build()) from
	 * here to mid_hdr's end: with cfg's end, psn, seq and pl before
	 * them, three cache lines per frame (full, last and tx_msgs, read
	 * by the other frames, after them). */
	/** ICRC register of a full middle frame with those bytes zero, for
	 * the tag's rank, step and iteration in mid_key (UINT64_MAX: none). */
	uint64_t mid_key;
	uint32_t mid_base;
	uint32_t mid_ts_crc;          /**< what the tag's TX stamp mid_ts adds */
	uint64_t mid_ts;
	/** What the PSN's and seq's bytes but their lowest add, for
	 * mid_hi = psn >> 8 | (seq >> 8) << 16 (UINT64_MAX: none). */
	uint64_t mid_hi;
	uint32_t mid_hi_crc;
	/** One's complement sum of a middle frame's IPv4 header but its id,
	 * for mid_key. */
	uint32_t mid_sum;
	/** A middle frame's Ethernet..tag for mid_key (the IPv4 id and
	 * checksum, PSN, tag seq and TX stamp are per frame). */
	uint8_t mid_hdr[AIFAB_ROCE_MID_HDR_LEN] __rte_aligned(16);
	struct aifab_roce_tail full;  /**< an MTU-sized packet */
	struct aifab_roce_tail last;  /**< the current message's last packet */
	uint64_t tx_msgs;             /**< messages fully packetized */
};

/** One packet of a message, as the packetizer cut it. */
struct aifab_roce_seg {
	uint64_t off;                 /**< payload offset in the message */
	uint64_t va;                  /**< message VA (RETH) */
	uint32_t msg_len;             /**< message length (RETH DMA length) */
	uint32_t len;                 /**< payload bytes, without pad */
	uint32_t psn;
	uint8_t opcode;               /**< AIFAB_BTH_OP_WRITE_* */
	uint8_t pad;                  /**< PadCnt, (4 - len % 4) % 4 */
	bool reth;                    /**< first or only */
	bool ack_req;                 /**< last or only */
};

/* ---- PSN arithmetic ------------------------------------------------------ */

static inline uint32_t
aifab_roce_psn_add(uint32_t psn, uint32_t n)
{
	return (psn + n) & AIFAB_ROCE_PSN_MASK;
}

/** a - b as a signed 24-bit distance in [-2^23, 2^23). */
static inline int32_t
aifab_roce_psn_diff(uint32_t a, uint32_t b)
{
	uint32_t d = (a - b) & AIFAB_ROCE_PSN_MASK;

	return d & 0x800000u ? (int32_t)d - 0x1000000 : (int32_t)d;
}

/** Opcode of an RDMA WRITE packet. */
static inline uint8_t
aifab_roce_write_opcode(bool first, bool last)
{
	if (first)
		return last ? AIFAB_BTH_OP_WRITE_ONLY : AIFAB_BTH_OP_WRITE_FIRST;
	return last ? AIFAB_BTH_OP_WRITE_LAST : AIFAB_BTH_OP_WRITE_MIDDLE;
}

/* ---- send side ----------------------------------------------------------- */

/**
 * Set up a QP's send side.
 *
 * @param pl  shared payload for aifab_roce_frame_build() (len >= mtu), or
 *            NULL to use only the packetizer.
 * @return 0, or -EINVAL (mtu not a power of two in 256..4096, QPN/PSN over
 *   24 bits, dscp > 63, ecn > 3, payload shorter than the MTU).
 */
int aifab_roce_qp_init(struct aifab_roce_qp *qp,
		       const struct aifab_roce_qp_params *p,
		       struct aifab_roce_payload *pl);

/**
 * Start an RDMA WRITE of @p len bytes (0 allowed: one WRITE only packet)
 * to remote_va + @p va_off. O(MTU) once per message when the QP has a
 * payload (the last packet's tail CRC).
 *
 * @return 0, -EBUSY (a message is still being sent), -EINVAL (len over
 *   AIFAB_ROCE_MSG_MAX).
 */
int aifab_roce_msg_post(struct aifab_roce_qp *qp, uint64_t len,
			uint64_t va_off, uint32_t id);

/** True while the current message has packets left. */
static inline bool
aifab_roce_qp_busy(const struct aifab_roce_qp *qp)
{
	return qp->msg.active;
}

/**
 * Cut the next packet of the current message: opcode, PSN (then advanced,
 * wrapping at 2^24), length, PadCnt, RETH on first/only, AckReq on
 * last/only.
 * @return true with @p seg filled, false when no message is active.
 */
bool aifab_roce_seg_next(struct aifab_roce_qp *qp, struct aifab_roce_seg *seg);

/** aifab_roce_seg_next() inline, for a caller that cuts a packet per
 * frame (the generator). */
static inline bool
aifab_roce_seg_next_inline(struct aifab_roce_qp *qp,
			   struct aifab_roce_seg *seg)
{
	struct aifab_roce_msg *m = &qp->msg;
	uint64_t left = m->len - m->sent;
	bool first = m->sent == 0, last;

	if (!m->active)
		return false;
	seg->len = (uint32_t)RTE_MIN(left, (uint64_t)qp->cfg.mtu);
	last = seg->len == left;
	seg->off = m->sent;
	seg->va = m->va;
	seg->msg_len = (uint32_t)m->len;
	seg->psn = qp->psn;
	seg->opcode = aifab_roce_write_opcode(first, last);
	seg->pad = (uint8_t)((4 - (seg->len & 3)) & 3);
	seg->reth = first;
	seg->ack_req = last;
	qp->psn = aifab_roce_psn_add(qp->psn, 1);
	m->sent += seg->len;
	if (last) {
		m->active = false;
		qp->tx_msgs++;
	}
	return true;
}

/** Frame length (no FCS) of a packet, from its segment. */
static inline uint32_t
aifab_roce_frame_len(const struct aifab_roce_seg *seg)
{
	return AIFAB_ROCE_OVERHEAD(seg->reth) + seg->len + seg->pad;
}

/**
 * Shared payload: @p len bytes of a pattern seeded by @p seed, and the
 * ICRC tables of full-length WRITE middle frames (15 KB).
 * @return NULL with rte_errno EINVAL (len < 256) or ENOMEM.
 */
struct aifab_roce_payload *aifab_roce_payload_create(uint16_t len,
						     uint64_t seed, int socket);

/** Free the payload (frame pools hold their own copies). NULL: no-op. */
void aifab_roce_payload_free(struct aifab_roce_payload *pl);

/**
 * A pktmbuf pool for aifab_roce_frame_build(): @p n mbufs whose data room
 * is the headroom + @p pl's length + 64 (the ICRC and 60 bytes of
 * tailroom after a full-payload frame), each holding a copy of the
 * payload (written here, once). Free it with rte_mempool_free(); @p pl may
 * be freed before.
 * @return the pool, or NULL with rte_errno set (rte_pktmbuf_pool_create).
 */
struct rte_mempool *aifab_roce_frame_pool_create(const char *name,
		uint32_t n, uint32_t cache, const struct aifab_roce_payload *pl,
		int socket);

/**
 * Build the frame of @p seg into @p m, an mbuf fresh from a frame pool of
 * the QP's payload (rte_pktmbuf_alloc / _alloc_bulk). Per packet cost:
 * headers + tag + ICRC, no payload bytes touched. One segment when the
 * packet carries the whole payload (an MTU-sized packet when the payload is
 * as long as the MTU) or at most 20 bytes; else a second segment from
 * @p hdr_pool holds the pad and ICRC.
 *
 * The payload bytes in a frame belong to its pool: who changes them in a
 * built frame (e.g. to corrupt it on purpose) must work on a copy, or every
 * later frame from that mbuf carries the change.
 *
 * @param tag       tag values; its seq field is ignored: the QP's seq is
 *                  written and advanced (for every packet, tagged or not).
 *                  Not written when seg->len < 24.
 * @param hdr_pool  pool for the pad + ICRC segment (tailroom >= 8).
 * @return 0; -ENOBUFS (@p hdr_pool empty) or -EINVAL (the QP has no
 *   payload, or hdr_pool's data room is too small): @p m is untouched and
 *   still the caller's.
 */
int aifab_roce_frame_build(struct aifab_roce_qp *qp,
			   const struct aifab_roce_seg *seg,
			   const struct aifab_roce_tag_info *tag,
			   struct rte_mbuf *m, struct rte_mempool *hdr_pool);

/*
 * The common frame inline: a full-payload WRITE middle frame of a QP
 * whose middle frame for the tag's key (rank, step, iteration) is cached
 * (the QP's previous middle frame had the key). aifab_roce_frame_build()
 * builds the same bytes; aifab_roce_frame_build_inline() is for a caller
 * that builds a frame per packet (the generator), without the call.
 */
#define AIFAB_ROCE_FRAME_PL_OFF RTE_PKTMBUF_HEADROOM /**< tag, payload */
#define AIFAB_ROCE_MID_ETH_LEN 54     /**< Ethernet..BTH of a middle frame */
#define AIFAB_ROCE_IP_OFF 14
#define AIFAB_ROCE_BTH_OFF 42
#define AIFAB_ROCE_MID_TS 7           /**< mid_tab's first TX stamp table */

/** The key of @p tag's cached middle frame and ICRC part (mid_key). */
static inline uint64_t
aifab_roce_mid_key(const struct aifab_roce_tag_info *tag)
{
	return (uint64_t)tag->rank | (uint64_t)tag->step << 16 |
		(uint64_t)tag->iter << 32;
}

/*
 * What the per-frame bytes of a full middle frame add to its ICRC
 * register: the TX stamp's part is cached per stamp (one per poll), that
 * of the PSN's and seq's (IPv4 id's) bytes but their lowest until those
 * change (once per 256 frames of the QP): 2 lookups per frame.
 */
static inline uint32_t
aifab_roce_mid_var_crc(struct aifab_roce_qp *qp, uint32_t psn, uint32_t seq,
		       uint64_t ts)
{
	const uint32_t (*tb)[256] = (const uint32_t (*)[256])qp->pl->mid_tab;
	uint64_t hi = psn >> 8 | (uint64_t)(seq >> 8) << 16;
	unsigned int i;

	if (unlikely(ts != qp->mid_ts)) {
		qp->mid_ts = ts;
		qp->mid_ts_crc = 0;
		for (i = 0; i < 8; i++)
			qp->mid_ts_crc ^= tb[AIFAB_ROCE_MID_TS + i]
				[(ts >> (56 - 8 * i)) & 0xff];
	}
	if (unlikely(hi != qp->mid_hi)) {
		qp->mid_hi = hi;
		qp->mid_hi_crc = tb[0][(psn >> 16) & 0xff] ^
			tb[1][(psn >> 8) & 0xff] ^ tb[3][seq >> 24] ^
			tb[4][(seq >> 16) & 0xff] ^ tb[5][(seq >> 8) & 0xff];
	}
	return qp->mid_ts_crc ^ qp->mid_hi_crc ^ tb[2][psn & 0xff] ^
		tb[6][seq & 0xff];
}

/*
 * A full middle frame of the QP's cached key into frame mbuf @p m: the
 * QP's middle frame copied (64 + 16 bytes), then the IPv4 id and
 * checksum, the PSN, the tag's seq and TX stamp, pad and the ICRC from
 * mid_base and two table lookups.
 */
static inline void
aifab_roce_mid_build(struct aifab_roce_qp *qp,
		     const struct aifab_roce_seg *seg,
		     const struct aifab_roce_tag_info *tag, struct rte_mbuf *m)
{
	const uint32_t flen = AIFAB_ROCE_MID_ETH_LEN + AIFAB_ROCE_TAG_LEN;
	uint8_t *pay = (uint8_t *)m->buf_addr + AIFAB_ROCE_FRAME_PL_OFF;
	uint8_t *p = pay - AIFAB_ROCE_MID_ETH_LEN;
	uint32_t seq = qp->seq, psn = seg->psn;
	uint32_t sum = qp->mid_sum + (uint16_t)seq, icrc;
	rte_be16_t id = rte_cpu_to_be_16((uint16_t)seq), ck;
	rte_be32_t bpsn = rte_cpu_to_be_32((seg->ack_req ? 0x80000000u : 0) |
					   psn);
	rte_be32_t bseq = rte_cpu_to_be_32(seq);
	rte_be64_t bts = rte_cpu_to_be_64(tag->tx_tsc);
	uint8_t i;

	sum = (sum & 0xffff) + (sum >> 16);
	sum = (sum & 0xffff) + (sum >> 16);
	ck = rte_cpu_to_be_16((uint16_t)~sum);
	memcpy(p, qp->mid_hdr, 64);
	memcpy(p + flen - 16, qp->mid_hdr + flen - 16, 16);
	memcpy(p + AIFAB_ROCE_IP_OFF + 4, &id, sizeof(id));
	memcpy(p + AIFAB_ROCE_IP_OFF + 10, &ck, sizeof(ck));
	memcpy(p + AIFAB_ROCE_BTH_OFF + 8, &bpsn, sizeof(bpsn));
	memcpy(pay + offsetof(struct aifab_roce_tag, seq), &bseq, sizeof(bseq));
	memcpy(pay + offsetof(struct aifab_roce_tag, tx_tsc), &bts,
	       sizeof(bts));
	icrc = rte_cpu_to_le_32(~(qp->mid_base ^
				  aifab_roce_mid_var_crc(qp, psn, seq,
							 tag->tx_tsc)));
	qp->seq = seq + 1;
	m->data_off = (uint16_t)(AIFAB_ROCE_FRAME_PL_OFF -
				 AIFAB_ROCE_MID_ETH_LEN);
	for (i = 0; i < seg->pad; i++)
		pay[seg->len + i] = 0;
	memcpy(pay + seg->len + seg->pad, &icrc, sizeof(icrc));
	m->data_len = (uint16_t)(AIFAB_ROCE_MID_ETH_LEN + seg->len +
				 seg->pad + AIFAB_ICRC_LEN);
	m->pkt_len = m->data_len;
}

/** aifab_roce_frame_build(), the common frame inline. */
static inline int
aifab_roce_frame_build_inline(struct aifab_roce_qp *qp,
			      const struct aifab_roce_seg *seg,
			      const struct aifab_roce_tag_info *tag,
			      struct rte_mbuf *m, struct rte_mempool *hdr_pool)
{
	if (likely(qp->pl != NULL &&
		   seg->opcode == AIFAB_BTH_OP_WRITE_MIDDLE &&
		   seg->len == qp->pl->len &&
		   aifab_roce_mid_key(tag) == qp->mid_key)) {
		aifab_roce_mid_build(qp, seg, tag, m);
		return 0;
	}
	return aifab_roce_frame_build(qp, seg, tag, m, hdr_pool);
}

/**
 * Read our tag from a packet's payload.
 * @return true if @p len >= 24 and the magic matches (then @p out is set).
 */
bool aifab_roce_tag_read(const uint8_t *payload, uint32_t len,
			 struct aifab_roce_tag_info *out);

/* ---- closed loop: segments from a PSN ring, ACK / NAK / CNP --------------- */

/** ACK / NAK frame: Ethernet + IPv4 + UDP + BTH + AETH + ICRC, no FCS. */
#define AIFAB_ROCE_ACK_FRAME_LEN (14 + 20 + 8 + AIFAB_BTH_LEN + \
				  AIFAB_AETH_LEN + AIFAB_ICRC_LEN)
/** CNP frame: Ethernet + IPv4 + UDP + BTH + 16 zero bytes + ICRC. */
#define AIFAB_ROCE_CNP_FRAME_LEN (14 + 20 + 8 + AIFAB_BTH_LEN + \
				  AIFAB_CNP_PAYLOAD_LEN + AIFAB_ICRC_LEN)

/**
 * Describe a packet that someone else cut (e.g. lib/rc's requester, which
 * remembers message, offset and length per PSN and so can ask for the
 * same packet again): RDMA WRITE first / middle / last / only from
 * @p first and @p last, RETH on first, AckReq on last, PadCnt from @p len.
 * The result goes to aifab_roce_frame_build() like a packetizer segment; the
 * QP's own packetizer state (psn, msg) is not used or changed.
 *
 * @param va       the message's remote address (RETH VA).
 * @param msg_len  the whole message (RETH DMA length).
 * @param off      payload offset of this packet in the message.
 */
void aifab_roce_seg_make(struct aifab_roce_seg *seg, uint64_t va,
			 uint32_t msg_len, uint32_t off, uint32_t len,
			 uint32_t psn, bool first, bool last);

/**
 * Write the ACK or NAK that the responder end of @p qp sends to the
 * requester: Ethernet dmac -> smac, IPv4 dip -> sip (TOS @p tos, DF, the
 * QP's TTL), UDP source port = the QP's, BTH opcode 0x11 to the
 * requester's QP (cfg.qpn) with @p psn, AETH (@p syndrome: 0x1F ACK,
 * 0x60 NAK PSN sequence error; @p msn), ICRC.
 * @return bytes written: AIFAB_ROCE_ACK_FRAME_LEN.
 */
uint16_t aifab_roce_ack_write(const struct aifab_roce_qp *qp, uint8_t *buf,
			      uint32_t psn, uint8_t syndrome, uint32_t msn,
			      uint8_t tos);

/**
 * Write the CNP that the responder end (notification point) of @p qp sends
 * to the requester's QP: addresses as for an ACK, BTH opcode 0x81 with
 * BECN, PSN 0, 16 zero bytes, ICRC (lib/pkt's aifab_build_cnp_ipv4()).
 * @return bytes written: AIFAB_ROCE_CNP_FRAME_LEN.
 */
uint16_t aifab_roce_cnp_write(const struct aifab_roce_qp *qp, uint8_t *buf,
			      uint8_t tos);

/**
 * The ACK / NAK or CNP above in one mbuf from @p pool.
 * @return the mbuf, or NULL with rte_errno ENOBUFS (pool empty) or EINVAL
 *   (data room too small).
 */
struct rte_mbuf *aifab_roce_build_ack(const struct aifab_roce_qp *qp,
				      uint32_t psn, uint8_t syndrome,
				      uint32_t msn, uint8_t tos,
				      struct rte_mempool *pool);
struct rte_mbuf *aifab_roce_build_cnp(const struct aifab_roce_qp *qp,
				      uint8_t tos, struct rte_mempool *pool);

/* ---- receive side: PSN tracking ------------------------------------------ */

/** PSNs behind the expected one that are still told apart (late vs dup). */
#define AIFAB_ROCE_RX_WIN 1024

/**
 * How a received PSN was classified. One list gives the enum and the
 * counter names (report keys: keep them stable).
 *  - in_order: the expected PSN;
 *  - gap: PSNs jumped over when a later one arrived (lost unless they come
 *    later);
 *  - reordered: a PSN that was jumped over arrived late;
 *  - duplicates: a PSN already received (within the window) again;
 *  - stale: older than the window, cannot tell late from duplicate.
 */
#define AIFAB_ROCE_RX_COUNTERS(X) \
	X(IN_ORDER, "in_order") \
	X(GAP, "gap") \
	X(REORDERED, "reordered") \
	X(DUPLICATE, "duplicates") \
	X(STALE, "stale")

#define AIFAB_ROCE_RX_ENUM(e, s) AIFAB_ROCE_RX_##e,
enum aifab_roce_rx_ctr {
	AIFAB_ROCE_RX_COUNTERS(AIFAB_ROCE_RX_ENUM) AIFAB_ROCE_RX_MAX
};
#undef AIFAB_ROCE_RX_ENUM

/** Receive-side state of one QP. */
struct aifab_roce_rx {
	uint32_t expected;            /**< next in-order PSN */
	uint64_t packets;
	uint64_t ctr[AIFAB_ROCE_RX_MAX];
	uint64_t seen[AIFAB_ROCE_RX_WIN / 64]; /**< received, behind expected */
};

/** Start tracking at the sender's first PSN. */
void aifab_roce_rx_init(struct aifab_roce_rx *rx, uint32_t start_psn);

/**
 * Account one received PSN. A PSN ahead of the expected one (by less than
 * 2^23) counts the PSNs in between as gap and moves on; one behind is
 * reordered (first time), duplicate, or stale (older than the window).
 * @return the class (never GAP).
 */
enum aifab_roce_rx_ctr aifab_roce_rx_psn(struct aifab_roce_rx *rx,
					 uint32_t psn);

/**
 * Packets lost for good: gaps not filled later, plus the sender's packets
 * after the last one received (@p tx_next_psn: the sender's next PSN).
 */
uint64_t aifab_roce_rx_lost(const struct aifab_roce_rx *rx,
			    uint32_t tx_next_psn);

/** Counter name ("reordered", ...). */
const char *aifab_roce_rx_ctr_name(enum aifab_roce_rx_ctr c);

/* ---- latency histogram --------------------------------------------------- */

/**
 * Log-bucketed histogram of u64 values (e.g. ns): exact below 32, then 32
 * buckets per power of two (relative bucket width <= 1/32) up to 2^40;
 * larger values land in the top bucket. Exact count, sum, min and max.
 */
#define AIFAB_ROCE_HIST_SUB_BITS 5
#define AIFAB_ROCE_HIST_MAX_EXP 40
#define AIFAB_ROCE_HIST_BUCKETS \
	((AIFAB_ROCE_HIST_MAX_EXP - AIFAB_ROCE_HIST_SUB_BITS + 1) << \
	 AIFAB_ROCE_HIST_SUB_BITS)

struct aifab_roce_hist {
	uint64_t count, sum, min, max;
	uint64_t b[AIFAB_ROCE_HIST_BUCKETS];
};

/** Bucket of a value. */
static inline uint32_t
aifab_roce_hist_bucket(uint64_t v)
{
	const uint32_t sb = AIFAB_ROCE_HIST_SUB_BITS;
	uint32_t e;

	if (v < (1u << sb))
		return (uint32_t)v;
	if (v >> AIFAB_ROCE_HIST_MAX_EXP)
		return AIFAB_ROCE_HIST_BUCKETS - 1;
	e = 63 - (uint32_t)__builtin_clzll(v);
	return ((e - sb + 1) << sb) + (uint32_t)(v >> (e - sb)) - (1u << sb);
}

void aifab_roce_hist_reset(struct aifab_roce_hist *h);

static inline void
aifab_roce_hist_add(struct aifab_roce_hist *h, uint64_t v)
{
	h->b[aifab_roce_hist_bucket(v)]++;
	h->count++;
	h->sum += v;
	if (v < h->min)
		h->min = v;
	if (v > h->max)
		h->max = v;
}

/** Add every bucket and total of @p src into @p dst. */
void aifab_roce_hist_merge(struct aifab_roce_hist *dst,
			   const struct aifab_roce_hist *src);

/**
 * Value at quantile @p q (0..1): the middle of the bucket holding the
 * ceil(q x count)-th smallest value, clamped to [min, max]; exactly min
 * for the first value and max for the last. 0 if empty.
 */
uint64_t aifab_roce_hist_quantile(const struct aifab_roce_hist *h, double q);

#ifdef __cplusplus
}
#endif

#endif /* AIFAB_ROCE_H */
