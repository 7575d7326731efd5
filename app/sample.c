/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The built-in sample: when dpdk-aifab runs bare (no EAL options, no ports),
 * it writes one pcap per profile port with traffic built from the profile's
 * own addresses (RoCEv2 RDMA WRITE flows between the neighbours of every
 * port and to off-leaf destinations, IPv6, and a few frames the switch must
 * drop), hot-plugs net_pcap vdevs reading them, and replays them. The
 * in-memory fabric demo replaces this as the default.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <pcap/pcap.h>
#include <rte_bus.h>
#include <rte_dev.h>
#include <rte_ethdev.h>
#include <rte_ip.h>
#include <rte_udp.h>

#include "aifab_pkt.h"
#include "app.h"

#define SAMPLE_PAYLOAD 1024  /* RDMA WRITE payload per packet */
#define SAMPLE_MSG_PKTS 8    /* packets per message: first, middles, last */
#define SAMPLE_QPS 4         /* QPs per (source, destination) pair */
#define SAMPLE_FRAME_MAX (SAMPLE_PAYLOAD + 128)

struct sample_out {
	pcap_dumper_t *d;
	uint64_t ts_ns;
	unsigned int n;
};

static void
put(struct sample_out *o, const uint8_t *frame, uint32_t len)
{
	struct pcap_pkthdr h = { 0 };

	o->ts_ns += 1000;
	h.ts.tv_sec = (time_t)(o->ts_ns / 1000000000u);
	h.ts.tv_usec = (suseconds_t)(o->ts_ns % 1000000000u / 1000u);
	h.caplen = h.len = len;
	pcap_dump((u_char *)o->d, &h, frame);
	o->n++;
}

/* One RoCEv2 RDMA WRITE packet, IPv4 or IPv6; returns the frame length. */
static uint32_t
roce_frame(uint8_t *f, const struct rte_ether_addr *dmac,
	   const struct rte_ether_addr *smac, uint8_t family,
	   const uint8_t *sip, const uint8_t *dip, uint32_t qpn, uint32_t psn,
	   uint8_t opcode, uint8_t ttl)
{
	bool v6 = family == AF_INET6;
	bool reth = opcode == AIFAB_BTH_OP_WRITE_FIRST;
	uint16_t l4 = (uint16_t)(sizeof(struct rte_udp_hdr) + AIFAB_BTH_LEN +
		(reth ? AIFAB_RETH_LEN : 0) + SAMPLE_PAYLOAD + AIFAB_ICRC_LEN);
	uint32_t off, l3;
	uint32_t s4, d4;

	off = aifab_build_eth(f, dmac, smac, -1, 0,
			      v6 ? RTE_ETHER_TYPE_IPV6 : RTE_ETHER_TYPE_IPV4);
	l3 = off;
	if (v6) {
		off += aifab_build_ipv6(f + off, sip, dip, IPPROTO_UDP,
					26 << 2 | 2, 0, ttl, l4);
	} else {
		memcpy(&s4, sip, 4);
		memcpy(&d4, dip, 4);
		off += aifab_build_ipv4(f + off, s4, d4, IPPROTO_UDP,
					26 << 2 | 2, ttl, l4, (uint16_t)psn);
	}
	off += aifab_build_udp(f + off, aifab_roce_sport(qpn, qpn + 1),
			       AIFAB_ROCEV2_UDP_PORT, (uint16_t)(l4 - 8));
	off += aifab_build_bth(f + off, opcode, false, 0, qpn + 1,
			       opcode == AIFAB_BTH_OP_WRITE_LAST, psn, false);
	if (reth)
		off += aifab_build_reth(f + off, 0x10000000ull, 0x1234,
					SAMPLE_PAYLOAD * SAMPLE_MSG_PKTS);
	memset(f + off, (int)(qpn & 0xFF), SAMPLE_PAYLOAD);
	off += SAMPLE_PAYLOAD;
	aifab_icrc_store(f + off, aifab_icrc(f + l3, off - l3, v6));
	return off + AIFAB_ICRC_LEN;
}

/* One message on each QP from neighbour @p src to address @p dip. */
static void
flows(struct sample_out *o, const struct aifab_port_params *in,
      const struct aifab_neigh_params *src, const uint8_t *dip,
      uint32_t qpn_base)
{
	uint8_t f[SAMPLE_FRAME_MAX];
	unsigned int q, k;

	for (q = 0; q < SAMPLE_QPS; q++)
		for (k = 0; k < SAMPLE_MSG_PKTS; k++) {
			uint8_t op = k == 0 ? AIFAB_BTH_OP_WRITE_FIRST :
				k + 1 == SAMPLE_MSG_PKTS ?
				AIFAB_BTH_OP_WRITE_LAST :
				AIFAB_BTH_OP_WRITE_MIDDLE;

			put(o, f, roce_frame(f, &in->mac, &src->mac,
					     src->family, src->addr, dip,
					     qpn_base + q, k, op, 64));
		}
}

/* Frames the switch must drop, so the counters have something to say. */
static void
bad_frames(struct sample_out *o, const struct aifab_port_params *in,
	   const struct aifab_neigh_params *src, const uint8_t *dip)
{
	static const uint8_t lldp_dst[6] = { 0x01, 0x80, 0xc2, 0, 0, 0x0e };
	uint8_t f[SAMPLE_FRAME_MAX];
	uint32_t len;

	/* TTL 1: expires here. */
	put(o, f, roce_frame(f, &in->mac, &src->mac, src->family, src->addr,
			     dip, 0x900, 0, AIFAB_BTH_OP_WRITE_FIRST, 1));
	/* ARP and LLDP: counted, not forwarded. */
	len = aifab_build_eth(f, &(struct rte_ether_addr){
		.addr_bytes = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff } },
		&src->mac, -1, 0, RTE_ETHER_TYPE_ARP);
	memset(f + len, 0, 46);
	put(o, f, len + 46);
	len = aifab_build_eth(f, (const struct rte_ether_addr *)lldp_dst,
			      &src->mac, -1, 0, AIFAB_ETHER_TYPE_LLDP);
	memset(f + len, 0, 46);
	put(o, f, len + 46);
}

static int
write_port_pcap(const struct aifab_profile *prof, unsigned int p,
		const char *path)
{
	static const uint8_t off_leaf4[4] = { 198, 18, 0, 10 };
	static const uint8_t off_leaf6[16] = { 0x20, 0x01, 0x0d, 0xb8, [15] = 1 };
	const struct aifab_port_params *in = &prof->ports[p];
	struct sample_out o = { 0 };
	unsigned int s, d;
	pcap_t *pc;

	pc = pcap_open_dead(DLT_EN10MB, 65535);
	if (pc == NULL)
		return -1;
	o.d = pcap_dump_open(pc, path);
	if (o.d == NULL) {
		pcap_close(pc);
		return -1;
	}
	for (s = 0; s < prof->n_neighs; s++) {
		const struct aifab_neigh_params *src = &prof->neighs[s];

		if (src->port != p)
			continue;
		for (d = 0; d < prof->n_neighs; d++)
			if (d != s && prof->neighs[d].family == src->family)
				flows(&o, in, src, prof->neighs[d].addr,
				      0x100 * (s + 1) + 0x10 * d);
		flows(&o, in, src, src->family == AF_INET ? off_leaf4 :
		      off_leaf6, 0x100 * (s + 1) + 0xF0);
		if (src->family == AF_INET)
			bad_frames(&o, in, src, off_leaf4);
	}
	pcap_dump_close(o.d);
	pcap_close(pc);
	return 0;
}

int
app_sample_prepare(const struct aifab_profile *prof, struct app_args *args,
		   char *dir, size_t dirlen, char *err, size_t errlen)
{
	char in[PATH_MAX], out[PATH_MAX], spec[3 * PATH_MAX];
	unsigned int p;

	snprintf(dir, dirlen, "%s/aifab-sample-%ld",
		 getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp", (long)getpid());
	if (mkdir(dir, 0755) != 0 && errno != EEXIST) {
		snprintf(err, errlen, "sample: cannot create %s: %s", dir,
			 strerror(errno));
		return -1;
	}
	for (p = 0; p < prof->n_ports; p++) {
		snprintf(in, sizeof(in), "%s/in_%s.pcap", dir, prof->ports[p].name);
		snprintf(out, sizeof(out), "%s/out_%s.pcap", dir,
			 prof->ports[p].name);
		if (write_port_pcap(prof, p, in) != 0) {
			snprintf(err, errlen, "sample: cannot write %s", in);
			return -1;
		}
		snprintf(spec, sizeof(spec), "net_pcap%u,rx_pcap=%s,tx_pcap=%s",
			 p, in, out);
		if (rte_dev_probe(spec) != 0) {
			snprintf(err, errlen, "sample: cannot create vdev %s", spec);
			return -1;
		}
		if (args->n_finite < RTE_DIM(args->finite))
			snprintf(args->finite[args->n_finite++],
				 sizeof(args->finite[0]), "net_pcap%u", p);
	}
	return 0;
}
