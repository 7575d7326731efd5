/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * aifab packet library: parse and build the headers a RoCEv2 AI fabric
 * carries (Ethernet, 802.1Q/QinQ, IPv4, IPv6, UDP, InfiniBand BTH / RETH /
 * AETH, CNP, IEEE 802.1Qbb PFC), compute the RoCEv2 ICRC (also without
 * re-reading the payload), and update the IPv4 header checksum
 * incrementally (RFC 1624).
 *
 * Parsing is a pure function over a byte range: it never reads past the
 * length it is given. aifab_pkt_parse_mbuf() wraps it for (possibly
 * multi-segment) mbufs. No function here reads a clock or allocates.
 */
#ifndef AIFAB_PKT_H
#define AIFAB_PKT_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include <rte_ether.h>
#include <rte_ip.h>

struct rte_mbuf;

#ifdef __cplusplus
extern "C" {
#endif

/** UDP destination port of RoCEv2. */
#define AIFAB_ROCEV2_UDP_PORT 4791
/** MAC Control EtherType (802.3x / 802.1Qbb); DPDK 22.11 has no macro. */
#define AIFAB_ETHER_TYPE_MAC_CTRL 0x8808
/** LLDP EtherType. */
#define AIFAB_ETHER_TYPE_LLDP 0x88CC
/** PFC opcode (0x0001 is plain 802.3x PAUSE). */
#define AIFAB_PFC_OPCODE 0x0101
#define AIFAB_PAUSE_OPCODE 0x0001
/** PFC frame length without FCS. */
#define AIFAB_PFC_FRAME_LEN 60
/** Bytes of headers the parser looks at (copied if split over segments). */
#define AIFAB_PKT_HDR_WINDOW 256

#define AIFAB_BTH_LEN 12
#define AIFAB_RETH_LEN 16
#define AIFAB_AETH_LEN 4
#define AIFAB_ICRC_LEN 4
/** CNP: BTH + 16 reserved zero bytes + ICRC. */
#define AIFAB_CNP_PAYLOAD_LEN 16

/* BTH opcodes (RC). */
#define AIFAB_BTH_OP_SEND_FIRST 0x00
#define AIFAB_BTH_OP_SEND_MIDDLE 0x01
#define AIFAB_BTH_OP_SEND_LAST 0x02
#define AIFAB_BTH_OP_SEND_ONLY 0x04
#define AIFAB_BTH_OP_WRITE_FIRST 0x06
#define AIFAB_BTH_OP_WRITE_MIDDLE 0x07
#define AIFAB_BTH_OP_WRITE_LAST 0x08
#define AIFAB_BTH_OP_WRITE_LAST_IMM 0x09
#define AIFAB_BTH_OP_WRITE_ONLY 0x0A
#define AIFAB_BTH_OP_WRITE_ONLY_IMM 0x0B
#define AIFAB_BTH_OP_READ_REQ 0x0C
#define AIFAB_BTH_OP_READ_RESP_FIRST 0x0D
#define AIFAB_BTH_OP_READ_RESP_MIDDLE 0x0E
#define AIFAB_BTH_OP_READ_RESP_LAST 0x0F
#define AIFAB_BTH_OP_READ_RESP_ONLY 0x10
#define AIFAB_BTH_OP_ACK 0x11
#define AIFAB_BTH_OP_CNP 0x81
#define AIFAB_BTH_OP_SEND_LAST_IMM 0x03
#define AIFAB_BTH_OP_SEND_ONLY_IMM 0x05
#define AIFAB_IMMDT_LEN 4

/**
 * Bytes of extension headers between the BTH and the payload of an RC
 * SEND / RDMA WRITE packet (IBA 9.2): a RETH on WRITE first/only, 4 bytes of
 * ImmDt on the *_IMM opcodes (after the RETH on WRITE only with immediate).
 */
static inline uint32_t
aifab_bth_data_ext_len(uint8_t opcode)
{
	switch (opcode) {
	case AIFAB_BTH_OP_WRITE_FIRST:
	case AIFAB_BTH_OP_WRITE_ONLY:
		return AIFAB_RETH_LEN;
	case AIFAB_BTH_OP_WRITE_ONLY_IMM:
		return AIFAB_RETH_LEN + AIFAB_IMMDT_LEN;
	case AIFAB_BTH_OP_SEND_LAST_IMM:
	case AIFAB_BTH_OP_SEND_ONLY_IMM:
	case AIFAB_BTH_OP_WRITE_LAST_IMM:
		return AIFAB_IMMDT_LEN;
	default:
		return 0;
	}
}

/* AETH syndromes. */
#define AIFAB_AETH_ACK 0x1F
#define AIFAB_AETH_NAK_PSN_SEQ 0x60
#define AIFAB_AETH_NAK_INV_REQ 0x61
#define AIFAB_AETH_NAK_REM_ACCESS 0x62

/** InfiniBand Base Transport Header (12 bytes, network order). */
struct aifab_bth {
	uint8_t opcode;
	uint8_t flags;      /**< SE 0x80, MigReq 0x40, PadCnt 0x30, TVer 0x0F */
	rte_be16_t pkey;
	uint8_t fb;         /**< FECN 0x80, BECN 0x40, reserved 0x3F */
	uint8_t dqpn[3];
	uint8_t ack_req;    /**< AckReq 0x80, reserved 0x7F */
	uint8_t psn[3];
} __rte_packed;

/** RDMA Extended Transport Header (16 bytes). */
struct aifab_reth {
	rte_be64_t va;
	rte_be32_t rkey;
	rte_be32_t dma_len;
} __rte_packed;

/** ACK Extended Transport Header (4 bytes). */
struct aifab_aeth {
	uint8_t syndrome;
	uint8_t msn[3];
} __rte_packed;

/** L3 kinds the parser tells apart. */
enum aifab_l3 {
	AIFAB_L3_OTHER = 0, /**< some other EtherType */
	AIFAB_L3_IPV4,
	AIFAB_L3_IPV6,
	AIFAB_L3_ARP,
	AIFAB_L3_LLDP,
	AIFAB_L3_MAC_CTRL,  /**< 0x8808: PFC or PAUSE */
};

/* aifab_pkt_info.flags */
#define AIFAB_PKT_F_VLAN 0x0001      /**< at least one 802.1Q tag */
#define AIFAB_PKT_F_QINQ 0x0002      /**< two or more tags */
#define AIFAB_PKT_F_IP_OPTS 0x0004   /**< IPv4 IHL > 5 */
#define AIFAB_PKT_F_FRAG 0x0008      /**< IPv4 MF or offset != 0, IPv6 frag hdr */
#define AIFAB_PKT_F_IP6_EXT 0x0010   /**< IPv6 extension headers walked */
#define AIFAB_PKT_F_UDP 0x0020       /**< UDP header present (first fragment) */
#define AIFAB_PKT_F_ROCE 0x0040      /**< UDP dport 4791 and a BTH fits */
#define AIFAB_PKT_F_PFC 0x0080       /**< valid 802.1Qbb PFC frame */
#define AIFAB_PKT_F_PAUSE 0x0100     /**< 802.3x PAUSE frame */

/**
 * Why a frame is malformed. One list gives the enum and the names
 * (the names are counter names in reports: keep them stable).
 */
#define AIFAB_PKT_ERRORS(X) \
	X(OK, "ok") \
	X(TRUNC_L2, "truncated_l2") \
	X(TRUNC_L3, "truncated_l3") \
	X(TRUNC_L4, "truncated_l4") \
	X(TRUNC_BTH, "truncated_bth") \
	X(VLAN_DEPTH, "vlan_too_deep") \
	X(IP4_VERSION, "ipv4_bad_version") \
	X(IP4_IHL, "ipv4_bad_ihl") \
	X(IP4_LEN, "ipv4_bad_length") \
	X(IP4_CSUM, "ipv4_bad_checksum") \
	X(IP6_VERSION, "ipv6_bad_version") \
	X(IP6_LEN, "ipv6_bad_length") \
	X(IP6_EXT, "ipv6_bad_ext_header") \
	X(UDP_LEN, "udp_bad_length") \
	X(BTH_PAD, "bth_bad_padcnt") \
	X(MAC_CTRL, "mac_ctrl_malformed")

#define AIFAB_PKT_ERR_ENUM(e, s) AIFAB_PKT_ERR_##e,
enum aifab_pkt_err { AIFAB_PKT_ERRORS(AIFAB_PKT_ERR_ENUM) AIFAB_PKT_ERR_MAX };
#undef AIFAB_PKT_ERR_ENUM

/** Result of parsing one frame. Offsets are from the frame start. */
struct aifab_pkt_info {
	uint32_t pkt_len;     /**< whole frame length (mbuf pkt_len) */
	uint16_t flags;       /**< AIFAB_PKT_F_* */
	uint16_t ethertype;   /**< innermost EtherType, host order */
	uint8_t l3;           /**< enum aifab_l3 */
	uint8_t n_vlans;      /**< number of 802.1Q/802.1ad tags */
	uint8_t pcp;          /**< PCP of the outer tag (0 if untagged) */
	uint8_t l4_proto;     /**< IP protocol / IPv6 final next header */
	uint16_t vid;         /**< VID of the outer tag */
	uint16_t l3_off;      /**< start of IP (or MAC control) header */
	uint16_t l3_len;      /**< IPv4 IHL*4, IPv6 40 + extension headers */
	uint16_t l4_off;      /**< start of UDP header (if F_UDP) */
	uint16_t bth_off;     /**< start of BTH (if F_ROCE) */
	uint32_t ip_len;      /**< IPv4 total length / IPv6 40 + payload length */
	uint8_t tos;          /**< IPv4 TOS / IPv6 traffic class (DSCP<<2|ECN) */
	uint8_t ttl;          /**< IPv4 TTL / IPv6 hop limit */
	uint16_t sport;       /**< UDP source port, host order (if F_UDP) */
	uint16_t dport;       /**< UDP destination port, host order */
	uint8_t bth_opcode;   /**< if F_ROCE */
	uint8_t pad_cnt;      /**< BTH PadCnt */
	uint32_t dqpn;        /**< BTH destination QP (24 bits) */
	uint32_t psn;         /**< BTH PSN (24 bits) */
	uint16_t pfc_enable;  /**< PFC class-enable vector (if F_PFC) */
	uint16_t pfc_time[8]; /**< PFC timers in quanta, host order */
};

/**
 * Parse a frame held in one contiguous buffer.
 *
 * @param buf      first byte of the frame (Ethernet destination).
 * @param avail    bytes readable at @p buf; never read beyond.
 * @param pkt_len  length of the whole frame (>= avail; the frame may go on
 *                 in later segments that the parser does not need).
 * @param pi       filled in; valid up to the layer where parsing stopped.
 * @param check_ip4_csum  verify the IPv4 header checksum.
 * @return AIFAB_PKT_ERR_OK, or the first problem found. Non-IP frames
 *   (ARP, LLDP, MAC control, others) return OK with pi->l3 set.
 *   A header that extends beyond @p avail but not beyond @p pkt_len is
 *   reported as truncated too: callers give at least AIFAB_PKT_HDR_WINDOW.
 */
enum aifab_pkt_err aifab_pkt_parse(const uint8_t *buf, uint32_t avail,
				   uint32_t pkt_len, struct aifab_pkt_info *pi,
				   bool check_ip4_csum);

/**
 * Parse an mbuf chain: the first min(pkt_len, AIFAB_PKT_HDR_WINDOW) bytes are
 * read in place when the first segment holds them, otherwise copied into
 * @p scratch with rte_pktmbuf_read().
 *
 * @param scratch  AIFAB_PKT_HDR_WINDOW bytes of caller storage.
 */
enum aifab_pkt_err aifab_pkt_parse_mbuf(const struct rte_mbuf *m,
					struct aifab_pkt_info *pi,
					uint8_t *scratch, bool check_ip4_csum);

/** Name of a parse error (e.g. "truncated_l3"), for counters. */
const char *aifab_pkt_err_name(enum aifab_pkt_err e);

/* ---- checksums --------------------------------------------------------- */

/**
 * RFC 1624 eqn. 3 incremental update: HC' = ~(~HC + ~m + m').
 * All values in network byte order, as they sit in the header.
 * Returns @p cksum unchanged when old == new.
 */
uint16_t aifab_cksum_update16(uint16_t cksum, uint16_t old_word,
			      uint16_t new_word);

/** Decrement an IPv4 TTL and fix the checksum. @return the new TTL. */
uint8_t aifab_ipv4_dec_ttl(struct rte_ipv4_hdr *ip);

/**
 * The word of bytes 8-11 of an IPv4 header (TTL, protocol, checksum),
 * read in little-endian order, after aifab_ipv4_dec_ttl(): @p w's TTL
 * (its low byte) must not be 0. The TTL is then decremented without a
 * borrow from the protocol, and RFC 1624's ~(~C + ~m + m') with m' = m
 * - 1 (in that order; a ones' complement sum does not depend on it) is
 * ~(~C + 0xfffe) folded: C + 1 with the end-around carry, i.e. C + 1,
 * or + 2 from 0xfffe on (Linux's ip_decrease_ttl()). Both at once: w +
 * 0xffff takes 1 from the TTL and adds 1 to C (a C of 0xffff wraps to
 * 0: the end-around carry's first half), and C from 0xfffe on gets
 * the second 1 (the same result bits as the two steps for every word
 * with a TTL, checked exhaustively).
 */
static inline uint32_t
aifab_ipv4_dec_ttl_word(uint32_t w)
{
	return w + 0xffffu + ((uint32_t)(w >= 0xfffe0000u) << 16);
}

/**
 * aifab_ipv4_dec_ttl() inline, for a datapath that rewrites per packet:
 * the same RFC 1624 update of the word holding the TTL, the same result
 * bits. TTL, protocol and checksum (bytes 8-11) in one load and one
 * store, read in little-endian order (a no-op on x86 and arm64).
 */
static inline void
aifab_ipv4_dec_ttl_inline(struct rte_ipv4_hdr *ip)
{
	uint8_t *h = (uint8_t *)ip;
	uint32_t w;

	memcpy(&w, h + 8, sizeof(w));
	w = rte_le_to_cpu_32(w);
	if ((w & 0xff) == 0)
		return;
	w = rte_cpu_to_le_32(aifab_ipv4_dec_ttl_word(w));
	memcpy(h + 8, &w, sizeof(w));
}

/** aifab_ipv4_dec_ttl() on each of @p n headers, in one call. */
void aifab_ipv4_dec_ttl_bulk(struct rte_ipv4_hdr *const *ip, uint16_t n);

/** Set the IPv4 TOS byte and fix the checksum incrementally. */
void aifab_ipv4_set_tos(struct rte_ipv4_hdr *ip, uint8_t tos);

/** Full IPv4 header checksum (the value to store), for any IHL. */
uint16_t aifab_ipv4_cksum(const struct rte_ipv4_hdr *ip);

/* ---- RoCEv2 ICRC -------------------------------------------------------- */

/**
 * ICRC of a RoCEv2 packet held contiguously, starting at the IP header.
 *
 * @param l3     IPv4 or IPv6 header.
 * @param len    bytes from @p l3 up to (not including) the ICRC.
 * @param ipv6   true if @p l3 is IPv6.
 * @return the ICRC as an integer; store it with aifab_icrc_store().
 *   Masked fields (TOS/TC+flow label, TTL/hop limit, IPv4 checksum, UDP
 *   checksum, BTH byte 4) are treated as all ones per the spec.
 *   IPv6: UDP must follow the fixed 40-byte header (no extension headers).
 */
uint32_t aifab_icrc(const uint8_t *l3, uint32_t len, bool ipv6);

/** Write an ICRC value to the wire (little-endian, like the FCS). */
void aifab_icrc_store(uint8_t *dst, uint32_t icrc);
/** Read an ICRC value from the wire. */
uint32_t aifab_icrc_load(const uint8_t *src);

/**
 * Precomputed operator for appending @p len bytes to a CRC: lets an ICRC be
 * computed per packet from the headers plus a payload CRC computed once.
 */
struct aifab_crc_shift {
	uint32_t len;
	uint32_t x8n; /**< x^(8*len) mod P, reflected */
};

/** Prepare the operator for a payload of @p len bytes. */
void aifab_crc_shift_init(struct aifab_crc_shift *s, uint32_t len);

/**
 * @p a times @p b modulo the CRC-32 polynomial, both in the reflected
 * representation (bit 31 is the x^0 coefficient): with b = x^(8n) it
 * advances a CRC register over n zero bytes. One carry-less multiply
 * (PCLMULQDQ) where the CPU has it, else a branch-free bit loop.
 */
uint32_t aifab_crc32_mul(uint32_t a, uint32_t b);

/**
 * Raw (no init, no final xor) CRC-32 register of @p len bytes, starting from
 * @p crc. Chaining: raw(A||B, c) == raw(B, raw(A, c)).
 */
uint32_t aifab_crc32_raw(uint32_t crc, const void *buf, uint32_t len);

/**
 * aifab_crc32_raw() by carry-less multiplies where the CPU has them (x86
 * PCLMULQDQ, four 16-byte folds in flight; VPCLMULQDQ + AVX2, eight), for
 * runs of 64 bytes or more; else aifab_crc32_raw(). The same register for
 * every input (pkt_icrc_fold.c).
 */
uint32_t aifab_crc32_raw_fold(uint32_t crc, const void *buf, uint32_t len);

/**
 * aifab_crc32_raw_fold() with the four-chunk PCLMULQDQ fold whatever else
 * the CPU has (else aifab_crc32_raw()): for tests, so that fold is judged
 * on CPUs where aifab_crc32_raw_fold() takes the eight-chunk one.
 */
uint32_t aifab_crc32_raw_fold128(uint32_t crc, const void *buf,
				 uint32_t len);

/** Whether aifab_crc32_raw_fold() folds on this CPU. */
bool aifab_crc32_fold_fast(void);

/**
 * ICRC of headers + a payload whose raw CRC register from 0 is
 * @p payload_raw (aifab_crc32_raw(0, payload, s->len)), without touching the
 * payload: result == aifab_icrc() over the whole packet.
 *
 * @param l3       IP header; headers run from here for @p hdr_len bytes
 *                 (IP + UDP + BTH + extension headers), payload follows.
 * @param s        operator for the payload length (payload incl. pad).
 */
uint32_t aifab_icrc_combine(const uint8_t *l3, uint32_t hdr_len, bool ipv6,
			    uint32_t payload_raw,
			    const struct aifab_crc_shift *s);

/** What aifab_icrc_verify() found. */
enum aifab_icrc_verdict {
	AIFAB_ICRC_OK = 0,      /**< the ICRC on the wire is right */
	AIFAB_ICRC_BAD,         /**< it is not: a RoCE NIC drops the frame */
	/** No ICRC where the headers say: @p pi is not an IPv4/IPv6
	 * RoCEv2 frame, or the frame's data ends before its datagram. */
	AIFAB_ICRC_MALFORMED,
};

/**
 * Check the ICRC of a received RoCEv2 frame against its bytes: CRC-32 over
 * the LRH stand-in, the masked IP / UDP / BTH headers (masked as
 * aifab_icrc() does, so TTL, DSCP, ECN, flow label, checksums, FECN/BECN
 * may differ), extension headers, payload and pad, up to the datagram's
 * end (the smaller of what IP and UDP say; bytes after it, e.g. Ethernet
 * padding, are not covered), where the 4 ICRC bytes sit. IPv4 options and
 * IPv6 extension headers are covered as they are.
 *
 * Reads each segment's data_len bytes and no more. IPv4 headers (IHL 5)
 * in the first segment are folded in place by carry-less multiplies
 * (masked as they are loaded); other headers are copied (masked) to the
 * stack. The payload is read in place: runs of 64 bytes or more by
 * DPDK's CRC where aifab_icrc_verify_init() chose it (AVX-512, or a CPU
 * without PCLMULQDQ), else by aifab_crc32_raw_fold(), shorter ones by the
 * table loop.
 *
 * @param pi  from aifab_pkt_parse_mbuf() (or aifab_pkt_parse()) of this
 *            frame, which returned OK with AIFAB_PKT_F_ROCE set.
 */
enum aifab_icrc_verdict aifab_icrc_verify(const struct rte_mbuf *m,
					  const struct aifab_pkt_info *pi);

/** aifab_icrc_verify() over a frame held in one buffer of @p len bytes. */
enum aifab_icrc_verdict aifab_icrc_verify_buf(const uint8_t *frame,
					      uint32_t len,
					      const struct aifab_pkt_info *pi);

/**
 * Bytes a receive check expects to find in frames (a generator's own
 * payload, which every frame of it carries after its tag), with the CRC
 * register after each of their prefixes: aifab_icrc_verify_known().
 */
struct aifab_icrc_known;

/**
 * Expect the @p len bytes at @p ref (copied) at byte @p skip of the
 * payload (after BTH and its extension headers). NULL when out of memory
 * or @p len is 0 or above 65535.
 */
struct aifab_icrc_known *aifab_icrc_known_create(const void *ref,
						 uint32_t len, uint32_t skip);

void aifab_icrc_known_free(struct aifab_icrc_known *k);

/**
 * aifab_icrc_verify() with @p k's bytes looked up instead of folded: the
 * frame's bytes where @p k expects them (from byte skip of the payload to
 * its end or @p k's, whichever is first, in one segment) are compared with
 * them, and only when they are the same is the CRC register after them
 * taken from @p k's prefix table (one GF(2) multiply); any other frame is
 * checked as aifab_icrc_verify() checks it. The same verdict for every
 * frame; a comparison costs a fraction of a CRC (one load and compare per
 * 32 bytes against a fold's two carry-less multiplies per 32). @p k NULL:
 * aifab_icrc_verify().
 */
enum aifab_icrc_verdict aifab_icrc_verify_known(
	const struct rte_mbuf *m, const struct aifab_pkt_info *pi,
	const struct aifab_icrc_known *k);

/**
 * Select DPDK's fastest CRC-32 for aifab_icrc_verify(): AVX-512
 * VPCLMULQDQ folding where the CPU has it and EAL allows 512-bit SIMD
 * (--force-max-simd-bitwidth=512; EAL's default is 256), else SSE4.2 +
 * PCLMULQDQ (NEON PMULL on arm64), else a table. Call once after
 * rte_eal_init(); without it DPDK picks on first use.
 */
void aifab_icrc_verify_init(void);

/**
 * aifab_icrc_combine() for IPv4 by carry-less multiplies (PCLMULQDQ): one
 * per 8 header bytes instead of a table CRC over a masked copy. Takes this
 * path when aifab_icrc4_fold_ok(@p hdr_len) and the IPv4 header has no
 * options (first byte 0x45); otherwise it is aifab_icrc_combine(). Same
 * result either way.
 */
uint32_t aifab_icrc4_combine_fold(const uint8_t *l3, uint32_t hdr_len,
				  uint32_t payload_raw,
				  const struct aifab_crc_shift *s);

/**
 * The raw CRC register after the LRH stand-in and @p hdr_len bytes of
 * IPv4 (IHL 5) + UDP + BTH (+ more) headers at @p l3 with the variant
 * fields as ones (what aifab_crc32_raw() gives over a masked copy), by
 * carry-less multiplies: the receive check's header part. False (nothing
 * written to @p reg) when aifab_icrc4_fold_ok(@p hdr_len) is not or the
 * header has IPv4 options: use the table then.
 */
bool aifab_icrc4_hdr_fold(const uint8_t *l3, uint32_t hdr_len, uint32_t *reg);

/** True if @p hdr_len bytes of IPv4 (IHL 5) headers take the folding path:
 * a multiple of 8 from 40 to 128, and the CPU has PCLMULQDQ. */
bool aifab_icrc4_fold_ok(uint32_t hdr_len);

/* ---- builders (write into caller buffers; return bytes written) ---------- */

/** Ethernet header, optional single 802.1Q tag (vid < 0: untagged). */
uint16_t aifab_build_eth(uint8_t *buf, const struct rte_ether_addr *dst,
			 const struct rte_ether_addr *src, int vid, uint8_t pcp,
			 uint16_t ethertype);

/**
 * IPv4 header without options, DF set (RoCE is never fragmented), checksum
 * filled; @p payload_len after it.
 */
uint16_t aifab_build_ipv4(uint8_t *buf, uint32_t src_be, uint32_t dst_be,
			  uint8_t proto, uint8_t tos, uint8_t ttl,
			  uint16_t payload_len, uint16_t id);

/** IPv6 header; @p payload_len after it. */
uint16_t aifab_build_ipv6(uint8_t *buf, const uint8_t src[16],
			  const uint8_t dst[16], uint8_t next_hdr, uint8_t tc,
			  uint32_t flow_label, uint8_t hop_limit,
			  uint16_t payload_len);

/** UDP header, checksum 0 (RoCEv2 rule); @p payload_len after it. */
uint16_t aifab_build_udp(uint8_t *buf, uint16_t sport, uint16_t dport,
			 uint16_t payload_len);

/** BTH. P_Key 0xFFFF, TVer 0. @p pad_cnt 0..3. */
uint16_t aifab_build_bth(uint8_t *buf, uint8_t opcode, bool se,
			 uint8_t pad_cnt, uint32_t dqpn, bool ack_req,
			 uint32_t psn, bool becn);
uint16_t aifab_build_reth(uint8_t *buf, uint64_t va, uint32_t rkey,
			  uint32_t dma_len);
uint16_t aifab_build_aeth(uint8_t *buf, uint8_t syndrome, uint32_t msn);

/**
 * Whole RoCEv2 CNP frame (IPv4): Ethernet, IPv4 (DSCP/ECN from @p tos),
 * UDP(sport, 4791), BTH opcode 0x81 with BECN to @p dqpn, 16 zero bytes,
 * ICRC. @return frame length (74).
 */
uint16_t aifab_build_cnp_ipv4(uint8_t *buf, const struct rte_ether_addr *dst,
			      const struct rte_ether_addr *src, uint32_t sip_be,
			      uint32_t dip_be, uint16_t sport, uint8_t tos,
			      uint32_t dqpn);

/**
 * 802.1Qbb PFC frame (60 bytes, no FCS): 01:80:C2:00:00:01, 0x8808,
 * opcode 0x0101, class-enable vector, 8 timers (quanta), zero pad.
 */
uint16_t aifab_build_pfc(uint8_t *buf, const struct rte_ether_addr *src,
			 uint8_t enable_vec, const uint16_t quanta[8]);

/* ---- field helpers ------------------------------------------------------ */

static inline uint32_t aifab_get_u24(const uint8_t *p)
{
	return ((uint32_t)p[0] << 16) | ((uint32_t)p[1] << 8) | p[2];
}

static inline void aifab_put_u24(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 16);
	p[1] = (uint8_t)(v >> 8);
	p[2] = (uint8_t)v;
}

/**
 * A 20-byte IPv4 header's checksum is right: the one's complement sum of
 * its words is 0xffff. Summed as five 32-bit words in 64 bits and folded
 * (the same value as the sum of its 16-bit words folded, as lib/pkt's
 * parser takes it: 2^16 = 1 modulo 0xffff).
 */
static inline bool
aifab_ipv4_cksum20_ok(const uint8_t *h)
{
	uint64_t a, b, s;
	uint32_t c;

	/* into scalars straight from the header: copied as an array, the
	 * compiler stores it to the stack in 16 bytes and reloads it in 4,
	 * which store forwarding does not serve */
	memcpy(&a, h, sizeof(a));
	memcpy(&b, h + 8, sizeof(b));
	memcpy(&c, h + 16, sizeof(c));
	s = (a & 0xffffffffu) + (a >> 32) + (b & 0xffffffffu) + (b >> 32) + c;
	/* Folded (end-around carry) to 16 bits, a sum s > 0 keeps its value
	 * modulo 0xffff (2^16 = 1) and lands in 1..0xffff, where only 0xffff
	 * is 0 modulo 0xffff: so the folded sum is 0xffff exactly when s is
	 * a non-zero multiple of 0xffff. A multiply, not five folds. */
	return s != 0 && s % 0xffff == 0;
}

/**
 * The common frame, inline: untagged Ethernet, IPv4 without options or
 * fragmentation, UDP (RoCEv2 BTH if dport is 4791), all in @p buf.
 * Fills @p pi exactly as aifab_pkt_parse() does and returns true when the
 * frame is such a frame and aifab_pkt_parse() would return OK; returns
 * false for anything else (then call aifab_pkt_parse(): it decides,
 * errors included; @p pi is then to be overwritten).
 *
 * @param lim  readable bytes at @p buf: min(avail, pkt_len).
 */
static inline bool
aifab_pkt_parse_udp4_fast(const uint8_t *buf, uint32_t lim, uint32_t pkt_len,
			  struct aifab_pkt_info *pi, bool check_ip4_csum)
{
	const uint8_t *h = buf + 14, *u = buf + 34;
	uint32_t tl, ulen;
	uint64_t w0, w1;

	/* Ethernet + IPv4 + UDP headers in the window; IPv4, IHL 5; not
	 * fragmented (MF and offset 0); UDP. Bytes 12-19 (EtherType,
	 * version / IHL, TOS, total length) and 20-27 (flags / fragment
	 * offset, TTL, protocol) in two loads, byte k of each at bits
	 * 8k (little-endian order: a no-op here), tested masked. */
	if (lim < 42)
		return false;
	memcpy(&w0, buf + 12, sizeof(w0));
	memcpy(&w1, buf + 20, sizeof(w1));
	w0 = rte_le_to_cpu_64(w0);
	w1 = rte_le_to_cpu_64(w1);
	if ((w0 & 0xffffff) != 0x450008 ||
	    (w1 & 0xff00ff3f) != 0x11000000)
		return false;
	/* the total length, bytes 16-17, big-endian */
	tl = (uint32_t)((w0 >> 32) & 0xff) << 8 | (uint32_t)((w0 >> 40) & 0xff);
	ulen = (uint32_t)u[4] << 8 | u[5];
	if (tl < 20 || tl > pkt_len - 14 || ulen < 8 || ulen > tl - 20)
		return false;
	if (check_ip4_csum && !aifab_ipv4_cksum20_ok(h))
		return false;
	memset(pi, 0, sizeof(*pi));
	pi->pkt_len = pkt_len;
	pi->ethertype = 0x0800;
	pi->l3_off = 14;
	pi->l3 = AIFAB_L3_IPV4;
	pi->l3_len = 20;
	pi->ip_len = tl;
	pi->tos = h[1];
	pi->ttl = h[8];
	pi->l4_proto = 17;
	pi->l4_off = 34;
	pi->sport = (uint16_t)(u[0] << 8 | u[1]);
	pi->dport = (uint16_t)(u[2] << 8 | u[3]);
	pi->flags = AIFAB_PKT_F_UDP;
	if (pi->dport != AIFAB_ROCEV2_UDP_PORT)
		return true;
	/* BTH + ICRC in the datagram, the BTH in the window, PadCnt fits */
	if (ulen - 8 < AIFAB_BTH_LEN + AIFAB_ICRC_LEN ||
	    lim < 42 + AIFAB_BTH_LEN ||
	    ((buf[43] >> 4) & 0x3) > ulen - 8 - AIFAB_BTH_LEN - AIFAB_ICRC_LEN)
		return false;
	pi->bth_off = 42;
	pi->bth_opcode = buf[42];
	pi->pad_cnt = (buf[43] >> 4) & 0x3;
	pi->dqpn = aifab_get_u24(buf + 47);
	pi->psn = aifab_get_u24(buf + 51);
	pi->flags |= AIFAB_PKT_F_ROCE;
	return true;
}

/**
 * Linux's RoCEv2 UDP source port from the two QP numbers
 * (rdma_get_udp_sport / rdma_calc_flow_label): always in 0xC000-0xFFFF.
 */
uint16_t aifab_roce_sport(uint32_t lqpn, uint32_t rqpn);

#ifdef __cplusplus
}
#endif

#endif /* AIFAB_PKT_H */
