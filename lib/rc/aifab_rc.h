/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * aifab RC: InfiniBand Reliable Connection reliability for one QP, as pure
 * state machines that return actions; no packets, no mbufs, no clock reads.
 *
 * - Responder (receiver side): expected PSN (ePSN) and MSN. In-order data
 *   is accepted and coalesced ACKs are asked for; a gap asks for ONE NAK
 *   (PSN sequence error) per gap; duplicates are dropped and re-ACKed.
 * - Requester (sender side): posted messages are cut into MTU packets with
 *   PSNs, at most `window` PSNs outstanding. ACKs are cumulative; a NAK or
 *   the retransmit timeout goes back N to the first unacknowledged PSN and
 *   the same packets (same message, offset, length) are produced again.
 *   Completed messages are reaped in post order (like polling a CQ).
 *
 * PSNs are 24 bits and wrap; two PSNs are compared by their difference
 * modulo 2^24 read as a signed 24-bit number (half-window rule), so the
 * window must stay below 2^23.
 *
 * Time is a TSC value the caller passes in. One object per QP, used by one
 * lcore; nothing allocates after init.
 */
#ifndef AIFAB_RC_H
#define AIFAB_RC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/** PSNs are 24 bits. */
#define AIFAB_RC_PSN_MASK 0xFFFFFFu

/** AETH syndrome of an ACK: top bits 00, credit field 0x1F (no credits). */
#define AIFAB_RC_SYN_ACK 0x1F
/** AETH syndrome of a NAK, PSN sequence error. */
#define AIFAB_RC_SYN_NAK_PSN_SEQ 0x60

/** Largest requester window (outstanding PSNs); far below 2^23. */
#define AIFAB_RC_MAX_WINDOW (1u << 16)
/** Largest requester message queue. */
#define AIFAB_RC_MAX_MSGS (1u << 16)
/** Largest responder ACK coalescing count. */
#define AIFAB_RC_MAX_ACK_EVERY (1u << 16)

/**
 * Retransmit timeout of RDMA NICs' "local ACK timeout" exponent:
 * 4.096 us x 2^exp, in ns (exp 14: 67108864 ns, about 67 ms). IB reads
 * exponent 0 as "no timeout"; here every exponent is finite.
 * @return the timeout in ns, or 0 if @p exp > 31.
 */
static inline uint64_t
aifab_rc_timeout_ns_from_exp(unsigned int exp)
{
	return exp > 31 ? 0 : 4096ull << exp;
}

/** Default retransmit timeout: exponent 14, about 67 ms. */
#define AIFAB_RC_DEFAULT_TIMEOUT_NS (4096ull << 14)
/** Largest retransmit timeout: exponent 31, about 2.4 hours. */
#define AIFAB_RC_MAX_TIMEOUT_NS (4096ull << 31)
/** Largest TSC frequency accepted (keeps ns-to-TSC exact in 64 bits). */
#define AIFAB_RC_MAX_TSC_HZ 10000000000ull

/** (a + n) modulo 2^24. */
static inline uint32_t
aifab_rc_psn_add(uint32_t a, int32_t n)
{
	return (a + (uint32_t)n) & AIFAB_RC_PSN_MASK;
}

/**
 * a - b modulo 2^24 as a signed number in [-2^23, 2^23): positive when a is
 * after b.
 */
static inline int32_t
aifab_rc_psn_diff(uint32_t a, uint32_t b)
{
	uint32_t d = (a - b) & AIFAB_RC_PSN_MASK;

	return d & 0x800000u ? (int32_t)d - 0x1000000 : (int32_t)d;
}

/* Packet flags, in and out. FIRST|LAST is an "only" packet. */
#define AIFAB_RC_F_FIRST 0x01   /**< first packet of a message */
#define AIFAB_RC_F_LAST 0x02    /**< last packet of a message */
#define AIFAB_RC_F_ACK_REQ 0x04 /**< BTH AckReq */
#define AIFAB_RC_F_RETX 0x08    /**< requester output: a retransmission */

/**
 * FIRST/LAST flags of an RC request opcode carrying data (SEND, RDMA
 * WRITE, with or without immediate).
 * @return the flags (0 for a middle packet), or -1 for any other opcode.
 */
static inline int
aifab_rc_opcode_flags(uint8_t opcode)
{
	switch (opcode) {
	case 0x00: case 0x06: /* SEND / WRITE first */
		return AIFAB_RC_F_FIRST;
	case 0x01: case 0x07: /* middle */
		return 0;
	case 0x02: case 0x03: case 0x08: case 0x09: /* last (+imm) */
		return AIFAB_RC_F_LAST;
	case 0x04: case 0x05: case 0x0A: case 0x0B: /* only (+imm) */
		return AIFAB_RC_F_FIRST | AIFAB_RC_F_LAST;
	default:
		return -1;
	}
}

/** RDMA WRITE opcode (first 0x06, middle 0x07, last 0x08, only 0x0A). */
static inline uint8_t
aifab_rc_write_opcode(unsigned int flags)
{
	static const uint8_t op[4] = { 0x07, 0x06, 0x08, 0x0A };

	return op[flags & (AIFAB_RC_F_FIRST | AIFAB_RC_F_LAST)];
}

/* ---------------------------------------------------------------- */
/* Responder                                                         */

/** Responder counters: one list gives the enum and the names. */
#define AIFAB_RC_RESP_COUNTERS(X) \
	X(RX_ACCEPTED, "rx_accepted") \
	X(RX_BYTES, "rx_bytes") \
	X(RX_DUP, "rx_duplicate") \
	X(RX_OOS, "rx_out_of_sequence") \
	X(MSGS_COMPLETED, "msgs_completed") \
	X(ACKS_TX, "acks_tx") \
	X(NAKS_TX, "naks_tx")

#define AIFAB_RC_RESP_CNT_ENUM(e, s) AIFAB_RC_RESP_CNT_##e,
enum aifab_rc_resp_cnt {
	AIFAB_RC_RESP_COUNTERS(AIFAB_RC_RESP_CNT_ENUM) AIFAB_RC_RESP_CNT_MAX
};
#undef AIFAB_RC_RESP_CNT_ENUM

/** Name of a responder counter (stable: used in reports). */
const char *aifab_rc_resp_cnt_name(enum aifab_rc_resp_cnt c);

/** Responder parameters. */
struct aifab_rc_resp_params {
	uint32_t init_psn;  /**< first expected PSN, < 2^24 */
	uint32_t ack_every; /**< ACK every this many accepted packets, >= 1 */
};

/** Responder state of one QP. */
struct aifab_rc_resp {
	uint32_t epsn;      /**< expected PSN */
	uint32_t msn;       /**< messages completed, 24 bits */
	uint32_t ack_every;
	uint32_t unacked;   /**< accepted since the last ACK */
	bool nak_sent;      /**< NAKed the current gap: silent until ePSN */
	uint64_t msg_bytes; /**< bytes of the message in progress */
	uint64_t cnt[AIFAB_RC_RESP_CNT_MAX];
};

/** What the responder asks the caller to send. */
enum aifab_rc_reply {
	AIFAB_RC_REPLY_NONE = 0,
	AIFAB_RC_REPLY_ACK,  /**< ACK: BTH psn, AETH syndrome and MSN */
	AIFAB_RC_REPLY_NAK,  /**< NAK PSN sequence error for psn (= ePSN) */
};

/** Outcome of one received data packet. */
struct aifab_rc_resp_action {
	uint8_t reply;            /**< enum aifab_rc_reply */
	uint8_t syndrome;         /**< AETH syndrome of the reply */
	uint32_t psn;             /**< BTH PSN of the reply */
	uint32_t msn;             /**< AETH MSN of the reply */
	uint32_t delivered_bytes; /**< payload accepted (0 unless in order) */
	bool message_completed;   /**< this packet ended a message */
	uint64_t message_bytes;   /**< if completed: the whole message */
};

/**
 * Initialise a responder.
 * @return 0, or -EINVAL (PSN beyond 24 bits, ack_every 0 or too large).
 */
int aifab_rc_resp_init(struct aifab_rc_resp *r,
		       const struct aifab_rc_resp_params *p);

/**
 * Process one data packet (SEND/WRITE request).
 *
 * @param psn    its BTH PSN.
 * @param len    its payload bytes (without pad and ICRC).
 * @param flags  AIFAB_RC_F_FIRST / LAST (aifab_rc_opcode_flags()) and
 *               AIFAB_RC_F_ACK_REQ from the BTH.
 * @param act    out: the reply to send and what was delivered.
 * @return act->reply.
 */
enum aifab_rc_reply aifab_rc_resp_on_data(struct aifab_rc_resp *r,
					  uint32_t psn, uint32_t len,
					  unsigned int flags,
					  struct aifab_rc_resp_action *act);

/* ---------------------------------------------------------------- */
/* Requester                                                         */

/** Requester counters: one list gives the enum and the names. */
#define AIFAB_RC_REQ_COUNTERS(X) \
	X(TX_PACKETS, "tx_packets") \
	X(TX_BYTES, "tx_bytes") \
	X(RETX_PACKETS, "retx_packets") \
	X(RETX_BYTES, "retx_bytes") \
	X(ACKS_RX, "acks_rx") \
	X(DUP_ACKS, "dup_acks") \
	X(NAKS_RX, "naks_rx") \
	X(BAD_AETH, "ack_nak_out_of_range") \
	X(TIMEOUTS, "timeouts") \
	X(MSGS_POSTED, "msgs_posted") \
	X(MSGS_COMPLETED, "msgs_completed")

#define AIFAB_RC_REQ_CNT_ENUM(e, s) AIFAB_RC_REQ_CNT_##e,
enum aifab_rc_req_cnt {
	AIFAB_RC_REQ_COUNTERS(AIFAB_RC_REQ_CNT_ENUM) AIFAB_RC_REQ_CNT_MAX
};
#undef AIFAB_RC_REQ_CNT_ENUM

/** Name of a requester counter (stable: used in reports). */
const char *aifab_rc_req_cnt_name(enum aifab_rc_req_cnt c);

/** Requester parameters. */
struct aifab_rc_req_params {
	uint32_t init_psn;   /**< first PSN, < 2^24 */
	/** max outstanding PSNs, 1..AIFAB_RC_MAX_WINDOW */
	uint32_t window;
	/** posted and not yet reaped messages, 1..AIFAB_RC_MAX_MSGS */
	uint32_t max_msgs;
	uint32_t mtu;        /**< payload per packet: 256/512/1024/2048/4096 */
	/** retransmit timeout, 1..AIFAB_RC_MAX_TIMEOUT_NS (usually
	 *  AIFAB_RC_DEFAULT_TIMEOUT_NS) */
	uint64_t timeout_ns;
	/** TSC frequency of the `now` values, 1..AIFAB_RC_MAX_TSC_HZ */
	uint64_t tsc_hz;
};

/** One packet the requester wants sent. */
struct aifab_rc_pkt {
	uint64_t cookie;  /**< the message's cookie from aifab_rc_req_post() */
	uint32_t psn;
	uint32_t offset;  /**< of the payload in the message */
	uint32_t len;     /**< payload bytes */
	uint32_t msg_len; /**< the whole message (RETH DMA length) */
	uint8_t flags;    /**< AIFAB_RC_F_FIRST/LAST/ACK_REQ/RETX */
};

struct aifab_rc_req_slot; /* per PSN in flight: message, offset, length */
struct aifab_rc_req_msg;  /* per posted message */

/** Requester state of one QP: header of a block of aifab_rc_req_memsize(). */
struct aifab_rc_req {
	uint32_t window;
	uint32_t mtu;
	uint32_t slot_mask;   /**< PSN ring size - 1 (power of two) */
	uint32_t msg_mask;    /**< message ring size - 1 (power of two) */
	uint64_t timeout_tsc;
	uint32_t una;         /**< oldest unacknowledged PSN */
	uint32_t nxt;         /**< next PSN to send (< max: a retransmission) */
	uint32_t max;         /**< one past the highest PSN ever sent */
	uint32_t seg_off;     /**< bytes of message msg_seg already cut */
	uint32_t msg_post;    /**< free-running message indexes: posted, */
	uint32_t msg_seg;     /**<   being cut into packets, */
	uint32_t msg_acked;   /**<   first not fully acknowledged, */
	uint32_t msg_reaped;  /**<   first not reaped */
	bool timer_on;
	uint64_t timer_start; /**< TSC of the last progress or (re)send start */
	struct aifab_rc_req_slot *slots;
	struct aifab_rc_req_msg *msgs;
	uint64_t cnt[AIFAB_RC_REQ_CNT_MAX];
};

/**
 * Bytes a requester with these parameters needs (header + rings).
 * @return the size, or 0 if the parameters are invalid.
 */
size_t aifab_rc_req_memsize(const struct aifab_rc_req_params *p);

/**
 * Initialise a requester in caller memory of aifab_rc_req_memsize() bytes
 * (8-byte aligned, e.g. from rte_zmalloc_socket()).
 * @return 0, or -EINVAL (bad parameters).
 */
int aifab_rc_req_init(struct aifab_rc_req *q,
		      const struct aifab_rc_req_params *p);

/**
 * Queue a message to send (an RDMA WRITE of @p len bytes; 0 is one empty
 * packet).
 * @return 0, or -ENOBUFS when max_msgs messages are not yet reaped.
 */
int aifab_rc_req_post(struct aifab_rc_req *q, uint64_t cookie, uint32_t len);

/**
 * Whether aifab_rc_req_next() would produce a packet: a retransmission is
 * pending, or new data is posted and the window has room. Pacing, PFC
 * pause and DCQCN rate are the caller's business.
 */
static inline bool
aifab_rc_req_can_send(const struct aifab_rc_req *q)
{
	return q->nxt != q->max ||
	       (q->msg_seg != q->msg_post &&
		(uint32_t)aifab_rc_psn_diff(q->max, q->una) < q->window);
}

/**
 * Produce the next packet to send: retransmissions first (from the PSN
 * ring, identical to the first transmission), then new data. The last
 * packet of each message carries AckReq.
 *
 * @param now  TSC; starts the retransmit timer if none is running.
 * @return 0 with @p pkt filled, or -EAGAIN (aifab_rc_req_can_send() false).
 */
int aifab_rc_req_next(struct aifab_rc_req *q, uint64_t now,
		      struct aifab_rc_pkt *pkt);

/**
 * Process an ACK: every PSN up to and including @p psn is acknowledged.
 * Restarts the retransmit timer on progress (stops it when nothing is
 * outstanding). ACKs outside [oldest unacked - 1, highest sent] are
 * counted and ignored.
 * @return the number of messages completed (now reapable).
 */
unsigned int aifab_rc_req_on_ack(struct aifab_rc_req *q, uint32_t psn,
				 uint64_t now);

/**
 * Process a NAK PSN sequence error: PSNs before @p psn are acknowledged and
 * sending goes back to @p psn (go-back-N). NAKs outside [oldest unacked,
 * highest sent] are counted and ignored.
 * @return the number of messages completed, as for aifab_rc_req_on_ack().
 */
unsigned int aifab_rc_req_on_nak(struct aifab_rc_req *q, uint32_t psn,
				 uint64_t now);

/**
 * Whether the retransmit timer is due at @p now: what
 * aifab_rc_req_poll_timeout() tests first (a caller polling many QPs may
 * test it inline and call only when it holds).
 */
static inline bool
aifab_rc_req_timeout_due(const struct aifab_rc_req *q, uint64_t now)
{
	return q->timer_on &&
	       (int64_t)(now - q->timer_start) >= (int64_t)q->timeout_tsc;
}

/** The instant the retransmit timer is due (UINT64_MAX while it is off). */
static inline uint64_t
aifab_rc_req_deadline(const struct aifab_rc_req *q)
{
	return q->timer_on ? q->timer_start + q->timeout_tsc : UINT64_MAX;
}

/**
 * Check the retransmit timer: when PSNs are outstanding and nothing
 * progressed for timeout_ns, go back to the oldest unacknowledged PSN and
 * restart the timer.
 * @return true if the timeout fired.
 */
bool aifab_rc_req_poll_timeout(struct aifab_rc_req *q, uint64_t now);

/**
 * Pop completed messages in post order.
 * @param cookies  out: up to @p n cookies.
 * @return how many were popped.
 */
unsigned int aifab_rc_req_reap(struct aifab_rc_req *q, uint64_t *cookies,
			       unsigned int n);

/** PSNs sent and not yet acknowledged. */
static inline uint32_t
aifab_rc_req_outstanding(const struct aifab_rc_req *q)
{
	return (uint32_t)aifab_rc_psn_diff(q->max, q->una);
}

#ifdef __cplusplus
}
#endif

#endif /* AIFAB_RC_H */
