/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Fuzz target: RC reliability (lib/rc) driven by received frames.
 *
 * Frames are parsed by aifab_pkt_parse(); a RoCEv2 request carrying data
 * (SEND / RDMA WRITE) goes to the responder with its BTH PSN, AckReq and
 * payload length (frame minus headers, RETH, pad and ICRC); an ACK (BTH
 * opcode 0x11 with an AETH) goes to the requester as ACK or NAK by its
 * syndrome. Between frames the input also posts messages, sends, polls the
 * retransmit timer and reaps, like the generator does.
 *
 * Input: header init_psn (3), window (2), mtu (1), ack_every (1), then
 * records op (1): bits 0-2 what, bits 3-7 clock step 2^k ns
 *   0,1 frame: len (2) + bytes      4 send: up to n (1) packets
 *   2 post: len (3)                 5 poll the retransmit timer
 *   3 ACK/NAK of a PSN near una: delta (1), nak (bit 7 of delta)
 *   6 reap                          7 frame aimed at the responder's ePSN
 *
 * Checks: outstanding PSNs never exceed the window; what the requester
 * sends is inside the window and at most one MTU; completions come back
 * in post order; counters add up (every data packet is accepted,
 * duplicate or out of sequence; one NAK per gap at most).
 */
#include <stdbool.h>
#include <stdlib.h>

#include "aifab_pkt.h"
#include "aifab_rc.h"
#include "fuzz_common.h"

#define TSC_HZ 1000000000ull

int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
	RTE_SET_USED(argc);
	RTE_SET_USED(argv);
	return 0;
}

struct ctx {
	struct aifab_rc_resp resp;
	struct aifab_rc_req *req;
	uint64_t now;
	uint64_t data_pkts;
	uint64_t next_cookie, next_reap;
};

/* A parsed frame into the responder or the requester. */
static void
on_frame(struct ctx *c, const uint8_t *b, uint32_t len)
{
	struct aifab_rc_resp_action act;
	struct aifab_pkt_info pi;
	uint32_t hdr, pay, syn_psn;
	uint32_t old_epsn = c->resp.epsn;
	int fl;

	if (aifab_pkt_parse(b, len, len, &pi, false) != AIFAB_PKT_ERR_OK ||
	    !(pi.flags & AIFAB_PKT_F_ROCE))
		return;
	if (pi.bth_opcode == AIFAB_BTH_OP_ACK) {
		const uint8_t *aeth = b + pi.bth_off + AIFAB_BTH_LEN;

		if ((uint32_t)pi.bth_off + AIFAB_BTH_LEN + AIFAB_AETH_LEN > len)
			return;
		syn_psn = pi.psn;
		if ((aeth[0] & 0x60) == 0x60)
			aifab_rc_req_on_nak(c->req, syn_psn, c->now);
		else if ((aeth[0] & 0x60) == 0)
			aifab_rc_req_on_ack(c->req, syn_psn, c->now);
		return;
	}
	fl = aifab_rc_opcode_flags(pi.bth_opcode);
	if (fl < 0)
		return;
	hdr = pi.bth_off + AIFAB_BTH_LEN;
	if ((fl & AIFAB_RC_F_FIRST) && pi.bth_opcode >= 0x06)
		hdr += AIFAB_RETH_LEN; /* WRITE first / only */
	/* The datagram ends at the IP length; the frame may have padding. */
	if (hdr + pi.pad_cnt + AIFAB_ICRC_LEN > pi.l3_off + pi.ip_len)
		return;
	pay = pi.l3_off + pi.ip_len - hdr - pi.pad_cnt - AIFAB_ICRC_LEN;
	if (b[pi.bth_off + 8] & 0x80)
		fl |= AIFAB_RC_F_ACK_REQ;
	c->data_pkts++;
	aifab_rc_resp_on_data(&c->resp, pi.psn, pay, (unsigned int)fl, &act);
	FUZZ_ASSERT(act.delivered_bytes <= pay);
	FUZZ_ASSERT(act.psn <= AIFAB_RC_PSN_MASK &&
		    act.msn <= AIFAB_RC_PSN_MASK);
	if (act.reply == AIFAB_RC_REPLY_NAK)
		FUZZ_ASSERT(act.psn == old_epsn);
	if (act.delivered_bytes != 0 || act.message_completed)
		FUZZ_ASSERT(pi.psn == old_epsn);
	FUZZ_ASSERT(c->resp.epsn == old_epsn ||
		    c->resp.epsn == aifab_rc_psn_add(old_epsn, 1));
}

/* A minimal RoCEv2 data frame (IPv4, WRITE) for the responder's ePSN. */
static uint32_t
build_data(uint8_t *buf, uint32_t psn, uint8_t opcode, uint32_t paylen)
{
	static const struct rte_ether_addr a = {{ 2, 0, 0, 0, 0, 1 }};
	uint32_t extra = (opcode == AIFAB_BTH_OP_WRITE_FIRST ||
			  opcode == AIFAB_BTH_OP_WRITE_ONLY) ?
		AIFAB_RETH_LEN : 0;
	uint16_t udp_len = (uint16_t)(8 + AIFAB_BTH_LEN + extra + paylen +
				      AIFAB_ICRC_LEN);
	uint32_t off = 0;

	off += aifab_build_eth(buf, &a, &a, -1, 0, RTE_ETHER_TYPE_IPV4);
	off += aifab_build_ipv4(buf + off, 0x0a000001, 0x0a000002, 17, 0, 64,
				udp_len, 0);
	off += aifab_build_udp(buf + off, 0xc000, AIFAB_ROCEV2_UDP_PORT,
			       (uint16_t)(udp_len - 8));
	off += aifab_build_bth(buf + off, opcode, false, 0, 1, opcode & 1,
			       psn, false);
	memset(buf + off, 0, extra + paylen + AIFAB_ICRC_LEN);
	return off + extra + paylen + AIFAB_ICRC_LEN;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const uint8_t ops[] = { 0x06, 0x07, 0x08, 0x0a, 0x04, 0x09 };
	struct fuzz_in in = { data, size };
	struct aifab_rc_resp_params rp;
	struct aifab_rc_req_params qp;
	struct aifab_rc_pkt pkt;
	struct ctx c = { .now = TSC_HZ };
	uint8_t buf[2048];
	uint64_t cookies[16];
	unsigned int i, n;
	size_t got;
	const uint8_t *b;
	uint32_t u;

	if (size > 1 << 16)
		return 0;
	qp.init_psn = (uint32_t)fuzz_u16(&in) << 8 | fuzz_u8(&in);
	qp.window = 1 + fuzz_u16(&in) % 1024;
	qp.mtu = 256u << (fuzz_u8(&in) % 5);
	qp.max_msgs = 16;
	qp.timeout_ns = 100000;
	qp.tsc_hz = TSC_HZ;
	rp.init_psn = qp.init_psn;
	rp.ack_every = 1 + fuzz_u8(&in) % 16;
	FUZZ_ASSERT(aifab_rc_resp_init(&c.resp, &rp) == 0);
	c.req = aligned_alloc(8, RTE_ALIGN_CEIL(aifab_rc_req_memsize(&qp), 8));
	FUZZ_ASSERT(c.req != NULL && aifab_rc_req_init(c.req, &qp) == 0);

	while (in.n > 0) {
		uint8_t op = fuzz_u8(&in);

		c.now += 1ull << (op >> 3);
		switch (op & 7) {
		case 0:
		case 1:
			b = fuzz_bytes(&in, fuzz_u16(&in), &got);
			on_frame(&c, b, (uint32_t)got);
			break;
		case 2:
			if (aifab_rc_req_post(c.req, c.next_cookie,
					      fuzz_u16(&in) << 4 |
					      fuzz_u8(&in) >> 4) == 0)
				c.next_cookie++;
			break;
		case 3:
			u = fuzz_u8(&in);
			if (u & 0x80)
				aifab_rc_req_on_nak(c.req, aifab_rc_psn_add(
					c.req->una, (int32_t)(u & 0x3f) - 8),
					c.now);
			else
				aifab_rc_req_on_ack(c.req, aifab_rc_psn_add(
					c.req->una, (int32_t)(u & 0x7f) - 9),
					c.now);
			break;
		case 4:
			n = fuzz_u8(&in);
			for (i = 0; i < n; i++) {
				uint32_t before = c.req->max;

				if (aifab_rc_req_next(c.req, c.now, &pkt) != 0) {
					FUZZ_ASSERT(!aifab_rc_req_can_send(c.req));
					break;
				}
				FUZZ_ASSERT(pkt.len <= qp.mtu);
				FUZZ_ASSERT(pkt.offset + pkt.len <= pkt.msg_len);
				FUZZ_ASSERT(pkt.psn <= AIFAB_RC_PSN_MASK);
				FUZZ_ASSERT(aifab_rc_psn_diff(pkt.psn,
					c.req->una) >= 0);
				FUZZ_ASSERT(aifab_rc_psn_diff(pkt.psn,
					before) <= 0 || pkt.psn == before);
				FUZZ_ASSERT(pkt.cookie < c.next_cookie);
			}
			break;
		case 5:
			aifab_rc_req_poll_timeout(c.req, c.now);
			break;
		case 6:
			n = aifab_rc_req_reap(c.req, cookies, RTE_DIM(cookies));
			for (i = 0; i < n; i++)
				FUZZ_ASSERT(cookies[i] == c.next_reap++);
			break;
		default:
			u = fuzz_u8(&in);
			on_frame(&c, buf, build_data(buf, aifab_rc_psn_add(
				c.resp.epsn, (int32_t)(u >> 4) - 4),
				ops[(u & 0xf) % RTE_DIM(ops)],
				(u & 3) * 100));
			break;
		}
		FUZZ_ASSERT(aifab_rc_req_outstanding(c.req) <= qp.window);
		FUZZ_ASSERT(c.req->una <= AIFAB_RC_PSN_MASK &&
			    c.req->nxt <= AIFAB_RC_PSN_MASK &&
			    c.req->max <= AIFAB_RC_PSN_MASK);
		FUZZ_ASSERT(aifab_rc_psn_diff(c.req->nxt, c.req->una) >= 0 &&
			    aifab_rc_psn_diff(c.req->max, c.req->nxt) >= 0);
		FUZZ_ASSERT(c.resp.cnt[AIFAB_RC_RESP_CNT_RX_ACCEPTED] +
			    c.resp.cnt[AIFAB_RC_RESP_CNT_RX_DUP] +
			    c.resp.cnt[AIFAB_RC_RESP_CNT_RX_OOS] == c.data_pkts);
		FUZZ_ASSERT(c.resp.cnt[AIFAB_RC_RESP_CNT_NAKS_TX] <=
			    c.resp.cnt[AIFAB_RC_RESP_CNT_RX_OOS]);
		FUZZ_ASSERT(c.req->cnt[AIFAB_RC_REQ_CNT_MSGS_COMPLETED] <=
			    c.req->cnt[AIFAB_RC_REQ_CNT_MSGS_POSTED]);
	}
	free(c.req);
	return 0;
}
