/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Ports: bind the profile's [port.*] sections to the ethdevs EAL found,
 * create one mbuf pool per NUMA socket in use, configure one RX/TX queue
 * pair per worker (RSS over RX queues), MTU (scatter where the NIC needs it),
 * promiscuous mode, PFC on the NIC ([pfc] hw_offload) or MAC control frames
 * passed up for the software PFC, and start them.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_bus.h>
#include <rte_common.h>
#include <rte_cycles.h>
#include <rte_ethdev.h>
#include <rte_lcore.h>
#include <rte_mbuf.h>
#include <rte_mempool.h>
#include <rte_ring.h>

#include "app.h"

#define APP_MIN_MBUFS 8192u

#define APP_WIRE_RING 4096 /* frames in flight per direction of a wire */
#define APP_WIRE_RING_BIG 1024 /* the same, on a profile of many ports */

#define APP_LINK_WAIT_MS 3000 /* at most, for every port's link to come up */
#define APP_LINK_POLL_MS 50
#define APP_PORTS_SHOWN 64 /* port lines at start */

/* One pool per socket; indexed by socket id. Owned by this file only. */
static struct rte_mempool *pools[RTE_MAX_NUMA_NODES];
/* Every port's run-time state (env->ports), freed in app_pools_free(). */
static struct aifab_port_rt *ports_rt;
static struct aifab_port_tap *ports_tap; /* ring ports' TX taps */
/* In-memory cables: each wired port's rings, the one it transmits into
 * and (virtual clock only) the one it receives from, which app/vclock.c
 * fills from the other end's TX ring. The rings live in ordinary memory
 * (rte_ring_init), not memzones: a fabric of thousands of ports would
 * exhaust RTE_MAX_MEMZONE and -m. */
static struct rte_ring *wire_rings[AIFAB_MAX_PORTS];
static struct rte_ring *wire_rx[AIFAB_MAX_PORTS];
static uint16_t wire_peer[AIFAB_MAX_PORTS];
static bool wired[AIFAB_MAX_PORTS];

/* Frames in flight per direction of a wire: fewer on big fabrics. */
static unsigned int
wire_ring_size(const struct aifab_profile *prof)
{
	return prof->n_ports > AIFAB_SW_MAX_PORTS ? APP_WIRE_RING_BIG :
		APP_WIRE_RING;
}

/* @p mp: several writers (a generator port with several workers). */
static struct rte_ring *
ring_new(const char *name, unsigned int count, bool mp)
{
	ssize_t sz = rte_ring_get_memsize(count);
	void *mem = NULL;

	if (sz < 0 || posix_memalign(&mem, RTE_CACHE_LINE_SIZE,
				     (size_t)sz) != 0)
		return NULL;
	if (rte_ring_init(mem, name, count,
			  (mp ? 0 : RING_F_SP_ENQ) | RING_F_SC_DEQ)) {
		free(mem);
		return NULL;
	}
	return mem;
}

/* Port @p i's own RX ring (the virtual clock's wires), or NULL. */
static struct rte_ring *
wire_rx_create(const struct aifab_profile *prof, unsigned int i)
{
	char name[RTE_RING_NAMESIZE];

	if (!app_clock_whole(prof))
		return NULL;
	snprintf(name, sizeof(name), "wirx_%s", prof->ports[i].name);
	wire_rx[i] = ring_new(name, wire_ring_size(prof), false);
	return wire_rx[i];
}

void
app_ports_wire(unsigned int i, struct rte_ring **tx, struct rte_ring **peer_rx,
	       unsigned int *peer)
{
	*tx = wire_rings[i];
	*peer = wire_peer[i];
	*peer_rx = wire_rings[i] != NULL ? wire_rx[wire_peer[i]] : NULL;
}

/* TX queues of wired port @p i: on a generator port one per generator
 * worker, all into the cable's one ring (then multi-producer; the worker
 * order of the virtual clock keeps it deterministic), else one. */
static unsigned int
wire_txq(const struct aifab_profile *prof, unsigned int i)
{
	struct app_portset mask;
	char err[8];

	if (app_gen_workers(prof) == 1 ||
	    app_gen_port_mask(prof, &mask, err, sizeof(err)) != 0)
		return 1;
	return app_portset_has(&mask, i) ? app_gen_workers(prof) : 1;
}

/*
 * [port.X] wire = Y: two ring ports back to back, no ethdev. X transmits
 * into the ring Y receives from and the other way round; one queue pair
 * each, one writer and one reader per ring (a generator port with several
 * workers: one TX queue each, all into its ring, then multi-producer).
 * With the virtual clock each end receives from a ring of its own, and
 * app/vclock.c carries frames from one end's TX ring to the other's RX
 * ring when they arrive.
 */
static int
wire_create(const struct aifab_profile *prof, unsigned int a, char *err,
	    size_t errlen)
{
	unsigned int b = (unsigned int)aifab_profile_port_index(prof,
					prof->ports[a].wire);
	char name[RTE_RING_NAMESIZE];
	unsigned int na = wire_txq(prof, a), nb = wire_txq(prof, b);

	if (wired[a])
		return 0; /* made from the other end */
	wired[a] = wired[b] = true;
	wire_peer[a] = (uint16_t)b;
	wire_peer[b] = (uint16_t)a;
	snprintf(name, sizeof(name), "wire_%s", prof->ports[a].name);
	wire_rings[a] = ring_new(name, wire_ring_size(prof), na > 1);
	snprintf(name, sizeof(name), "wire_%s", prof->ports[b].name);
	wire_rings[b] = ring_new(name, wire_ring_size(prof), nb > 1);
	if (wire_rings[a] == NULL || wire_rings[b] == NULL)
		goto fail;
	if (app_clock_whole(prof) && (wire_rx_create(prof, a) == NULL ||
				      wire_rx_create(prof, b) == NULL))
		goto fail;
	return 0;
fail:
	snprintf(err, errlen, "%s: [port.%s] wire = '%s': cannot create the "
		 "rings: out of memory", prof->path, prof->ports[a].name,
		 prof->ports[a].wire);
	return -1;
}

static int
wires_create(const struct aifab_profile *prof, char *err, size_t errlen)
{
	unsigned int i;

	for (i = 0; i < prof->n_ports; i++)
		if (prof->ports[i].wire[0] != '\0' &&
		    wire_create(prof, i, err, errlen) != 0)
			return -1;
	return 0;
}

static bool
is_finite(const struct app_args *args, const char *dev)
{
	unsigned int i;

	for (i = 0; i < args->n_finite; i++)
		if (strcmp(args->finite[i], dev) == 0)
			return true;
	return false;
}

/*
 * Map profile ports to ethdev ids: by `device`, else the next unused one;
 * a wired port is a ring (UINT16_MAX). Only ethdev ports are bounded by
 * RTE_MAX_ETHPORTS.
 */
static int
bind_ports(const struct aifab_profile *prof, uint16_t *ids, char *err,
	   size_t errlen)
{
	bool used[RTE_MAX_ETHPORTS] = { false };
	unsigned int n_eth = 0;
	uint16_t pid, i;

	if (wires_create(prof, err, errlen) != 0)
		return -1;
	for (i = 0; i < prof->n_ports; i++) {
		ids[i] = UINT16_MAX;
		n_eth += !wired[i];
	}
	if (n_eth > RTE_MAX_ETHPORTS) {
		snprintf(err, errlen, "%s: %u [port.*] sections are ethdevs (no "
			 "wire); allowed: at most %u (RTE_MAX_ETHPORTS; "
			 "in-memory wire ports have no such limit)", prof->path,
			 n_eth, RTE_MAX_ETHPORTS);
		return -1;
	}
	for (i = 0; i < prof->n_ports; i++) {
		const struct aifab_port_params *pp = &prof->ports[i];
		const char *dev = pp->device;

		if (wired[i] || dev[0] == '\0')
			continue;
		if (rte_eth_dev_get_port_by_name(dev, &pid) != 0) {
			snprintf(err, errlen,
				 "%s: [port.%s] device = '%s': no such ethdev "
				 "(pass it to EAL, e.g. --vdev or -a)",
				 prof->path, pp->name, dev);
			return -1;
		}
		ids[i] = pid;
		used[pid] = true;
	}
	for (i = 0; i < prof->n_ports; i++) {
		if (wired[i] || prof->ports[i].device[0] != '\0')
			continue;
		RTE_ETH_FOREACH_DEV(pid)
			if (!used[pid])
				break;
		if (pid >= RTE_MAX_ETHPORTS || !rte_eth_dev_is_valid_port(pid)) {
			snprintf(err, errlen,
				 "%s: [port.%s]: no ethdev left to bind: the "
				 "profile has %u ports, EAL found %u (add "
				 "--vdev or -a options; one that failed to "
				 "probe is named in EAL's lines above)",
				 prof->path,
				 prof->ports[i].name, prof->n_ports,
				 rte_eth_dev_count_avail());
			return -1;
		}
		ids[i] = pid;
		used[pid] = true;
	}
	return 0;
}

unsigned int
app_ports_max_workers(const struct aifab_profile *prof,
		      const struct app_args *args)
{
	uint16_t ids[AIFAB_MAX_PORTS];
	struct rte_eth_dev_info di;
	unsigned int i, w = AIFAB_MAX_WORKERS;
	char err[APP_ERR_LEN];

	RTE_SET_USED(args);
	if (bind_ports(prof, ids, err, sizeof(err)) != 0)
		return 1;
	for (i = 0; i < prof->n_ports; i++)
		if (wired[i])
			w = 1; /* one ring each way, one reader, one writer */
		else if (rte_eth_dev_info_get(ids[i], &di) == 0)
			w = RTE_MIN(w, (unsigned int)RTE_MAX(di.max_tx_queues, 1));
	return RTE_MAX(w, 1u);
}

static struct rte_mempool *
pool_for(int socket, unsigned int n, unsigned int cache, uint32_t data,
	 char *err, size_t errlen)
{
	char name[RTE_MEMPOOL_NAMESIZE];
	unsigned int s = socket < 0 ? 0 : (unsigned int)socket;

	if (s >= RTE_MAX_NUMA_NODES)
		s = 0;
	if (pools[s] != NULL)
		return pools[s];
	snprintf(name, sizeof(name), "aifab_mbuf_s%u", s);
	pools[s] = rte_pktmbuf_pool_create(name, n, cache, 0,
					   (uint16_t)(data + RTE_PKTMBUF_HEADROOM),
					   (int)s);
	if (pools[s] == NULL)
		snprintf(err, errlen,
			 "cannot create %u mbufs on socket %u: %s (raise -m or "
			 "lower [general] mbufs)", n, s, rte_strerror(rte_errno));
	return pools[s];
}

/* Mbufs a socket's ports can hold at once, plus what workers keep. */
static unsigned int
pool_size(const struct aifab_profile *prof, unsigned int n_workers)
{
	unsigned int i, n = 0, n_eth = 0;

	if (prof->mbufs != 0)
		return prof->mbufs;
	/* generator ports have a queue pair per generator worker */
	n_workers = RTE_MAX(n_workers, app_gen_workers(prof));
	for (i = 0; i < prof->n_ports; i++)
		if (!wired[i]) {
			n += (prof->ports[i].rx_desc + prof->ports[i].tx_desc) *
			     n_workers;
			n_eth++;
		}
	/* Frames an ethdev received may wait in any port's TX buffer; ring
	 * ports receive the senders' own mbufs (a fabric in memory needs
	 * few of these: the generator has its pools). */
	n += n_workers * (prof->burst + prof->mbuf_cache +
			  (n_eth > 0 ? 64u * prof->n_ports : 0));
	/* A full shared buffer holds mbufs too: one per 256-byte cell. */
	n += (unsigned int)RTE_MIN(prof->qos.buffer_bytes / 256, (uint64_t)1 << 20);
	return RTE_MAX(n + 1024u, APP_MIN_MBUFS);
}

static bool
is_vdev(const struct rte_eth_dev_info *di)
{
	const struct rte_bus *bus = di->device != NULL ?
		rte_dev_bus(di->device) : NULL;

	return bus == NULL || strcmp(rte_bus_name(bus), "vdev") == 0;
}

static int
port_configure(const struct aifab_port_params *pp, struct aifab_port_rt *rt,
	       unsigned int n_workers, char *err, size_t errlen)
{
	struct rte_eth_conf conf = { 0 };
	struct rte_eth_dev_info di;
	uint32_t frame, room;
	uint16_t q, rxd = pp->rx_desc, txd = pp->tx_desc, max_mtu;
	int rc, sock = rte_eth_dev_socket_id(rt->port_id);

	rc = rte_eth_dev_info_get(rt->port_id, &di);
	if (rc != 0)
		goto fail;
	rt->nb_rxq = (uint16_t)RTE_MIN(n_workers, (unsigned int)di.max_rx_queues);
	rt->nb_txq = (uint16_t)n_workers;
	if (rt->nb_rxq == 0 || di.max_tx_queues < n_workers) {
		snprintf(err, errlen, "port %s (%s): needs %u RX/TX queues, "
			 "has %u/%u; allowed: at most %u %s lcores (net_pcap: "
			 "one tx_pcap per TX queue)", pp->name, rt->device,
			 n_workers, di.max_rx_queues, di.max_tx_queues,
			 di.max_tx_queues, rt->gen_owned ? "[generator]" :
			 "[switch]");
		return -1;
	}
	if (rt->nb_rxq > 1) {
		conf.rxmode.mq_mode = RTE_ETH_MQ_RX_RSS;
		conf.rx_adv_conf.rss_conf.rss_hf = (RTE_ETH_RSS_IP |
			RTE_ETH_RSS_UDP | RTE_ETH_RSS_TCP) &
			di.flow_type_rss_offloads;
	}
	/* A PMD that leaves max_mtu at ethdev's UINT16_MAX bounds the frame
	 * by max_rx_pktlen alone (net_tap: 1522), and ethdev then refuses an
	 * MTU whose frame (MTU + 18) is longer: clamp as ethdev checks. */
	max_mtu = di.max_mtu;
	if (max_mtu == UINT16_MAX &&
	    di.max_rx_pktlen > RTE_ETHER_HDR_LEN + RTE_ETHER_CRC_LEN)
		max_mtu = (uint16_t)RTE_MIN((uint32_t)max_mtu, di.max_rx_pktlen -
					    RTE_ETHER_HDR_LEN -
					    RTE_ETHER_CRC_LEN);
	conf.rxmode.mtu = RTE_MIN((uint32_t)pp->mtu, max_mtu);
	if (conf.rxmode.mtu < pp->mtu)
		printf("warning: port %s (%s): [port.%s] mtu %u is above the "
		       "NIC's max_mtu %u: using %u\n", pp->name, rt->device,
		       pp->name, pp->mtu, max_mtu, conf.rxmode.mtu);
	rt->mtu = (uint16_t)conf.rxmode.mtu;
	frame = conf.rxmode.mtu + RTE_ETHER_HDR_LEN + RTE_ETHER_CRC_LEN +
		2 * 4 /* two VLAN tags */;
	room = (uint32_t)rte_pktmbuf_data_room_size(rt->pool) -
		RTE_PKTMBUF_HEADROOM;
	if (frame > room) {
		/* Without scatter a NIC would drop or cut such frames (vdevs
		 * such as net_pcap chain mbufs themselves). */
		if (!(di.rx_offload_capa & RTE_ETH_RX_OFFLOAD_SCATTER) &&
		    !is_vdev(&di)) {
			snprintf(err, errlen, "port %s (%s): frames of up to %u "
				 "bytes (mtu %u) do not fit the %u-byte mbuf "
				 "data room and the NIC has no RX scatter; "
				 "allowed: [general] mbuf_data_bytes >= %u or a "
				 "smaller [port.%s] mtu", pp->name, rt->device,
				 frame, conf.rxmode.mtu, room, frame, pp->name);
			return -1;
		}
		if (di.rx_offload_capa & RTE_ETH_RX_OFFLOAD_SCATTER)
			conf.rxmode.offloads |= RTE_ETH_RX_OFFLOAD_SCATTER;
		if (di.tx_offload_capa & RTE_ETH_TX_OFFLOAD_MULTI_SEGS)
			conf.txmode.offloads |= RTE_ETH_TX_OFFLOAD_MULTI_SEGS;
	}
	rc = rte_eth_dev_configure(rt->port_id, rt->nb_rxq, rt->nb_txq, &conf);
	if (rc != 0)
		goto fail;
	rc = rte_eth_dev_adjust_nb_rx_tx_desc(rt->port_id, &rxd, &txd);
	if (rc != 0)
		goto fail;
	for (q = 0; q < rt->nb_rxq; q++) {
		rc = rte_eth_rx_queue_setup(rt->port_id, q, rxd, sock, NULL,
					    rt->pool);
		if (rc != 0)
			goto fail;
	}
	for (q = 0; q < rt->nb_txq; q++) {
		rc = rte_eth_tx_queue_setup(rt->port_id, q, txd, sock, NULL);
		if (rc != 0)
			goto fail;
	}
	return 0;
fail:
	snprintf(err, errlen, "port %s (%s): configuration failed: %s",
		 pp->name, rt->device, rte_strerror(-rc));
	return -1;
}

static void
port_show(const struct aifab_port_rt *rt)
{
	struct rte_eth_link link;
	char lstr[RTE_ETH_LINK_MAX_STR_LEN];
	char mac[RTE_ETHER_ADDR_FMT_SIZE];

	if (aifab_port_is_ring(rt))
		snprintf(lstr, sizeof(lstr), "in memory");
	else if (rte_eth_link_get_nowait(rt->port_id, &link) != 0)
		snprintf(lstr, sizeof(lstr), "link unknown");
	else
		rte_eth_link_to_str(lstr, sizeof(lstr), &link);
	rte_ether_format_addr(mac, sizeof(mac), &rt->mac);
	printf("port %-6s %-22s %s  %u Mb/s model, mtu %u, %u rxq/%u txq%s  [%s]\n",
	       rt->name, rt->device, mac, rt->speed_mbps, rt->mtu, rt->nb_rxq,
	       rt->nb_txq, rt->finite_rx ? ", pcap input" : "", lstr);
}

/* 802.1p priorities of port @p port's PFC ([qos] pcp_to_tc to lossless
 * TCs, [port.X] pfc). */
static uint8_t
lossless_prios(const struct aifab_profile *prof, unsigned int port)
{
	struct aifab_pfc_eff e;
	uint8_t m = 0;
	unsigned int p;

	for (p = 0; p < 8; p++) {
		aifab_profile_pfc_eff(prof, port, prof->qos.pcp_tc[p] & 7, &e);
		if (e.enabled)
			m |= (uint8_t)(1u << p);
	}
	return m;
}

/*
 * [pfc] hw_offload: the NIC generates and honours PFC for the lossless
 * priorities. High/low water from a static pfc_xoff_bytes and its XON
 * ([port.X] over [tc.N]), in KiB as ixgbe and i40e read them (a
 * dynamic XOFF keeps the NIC's own link-level values); pause time
 * pfc_pause_quanta. @return true if the NIC took every priority.
 */
static bool
port_hw_pfc(const struct aifab_profile *prof, unsigned int port,
	    const struct aifab_port_rt *rt, uint8_t prios)
{
	struct rte_eth_fc_conf cur;
	bool have_cur = rte_eth_dev_flow_ctrl_get(rt->port_id, &cur) == 0;
	unsigned int p;
	int rc;

	for (p = 0; p < 8; p++) {
		const struct aifab_tc_params *t =
			&prof->tc[prof->qos.pcp_tc[p] & 7];
		struct rte_eth_pfc_conf pc;
		struct aifab_pfc_eff e;

		if (!(prios & (1u << p)))
			continue;
		aifab_profile_pfc_eff(prof, port, prof->qos.pcp_tc[p] & 7, &e);
		memset(&pc, 0, sizeof(pc));
		pc.priority = (uint8_t)p;
		pc.fc.mode = RTE_ETH_FC_FULL;
		pc.fc.pause_time = (uint16_t)t->pfc_pause_quanta;
		pc.fc.send_xon = 1;
		if (e.xoff_bytes != 0) {
			pc.fc.high_water = RTE_MAX(e.xoff_bytes / 1024, 1u);
			pc.fc.low_water = (e.xon_bytes != 0 ? e.xon_bytes :
				e.xoff_bytes - RTE_MIN(e.xon_offset_bytes,
						       e.xoff_bytes)) / 1024;
		} else if (have_cur) {
			pc.fc.high_water = cur.high_water;
			pc.fc.low_water = cur.low_water;
		}
		rc = rte_eth_dev_priority_flow_ctrl_set(rt->port_id, &pc);
		if (rc != 0) {
			printf("port %s (%s): [pfc] hw_offload: the NIC does not "
			       "take PFC for priority %u (%s); PFC stays in "
			       "software\n", rt->name, rt->device, p,
			       rte_strerror(-rc));
			return false;
		}
	}
	printf("port %s (%s): NIC PFC on for priorities 0x%02x\n", rt->name,
	       rt->device, prios);
	return true;
}

/*
 * Software PFC must see the peer's PFC frames (EtherType 0x8808): ask the
 * NIC to pass MAC control frames up (the link-level pause mode is kept).
 * Vdevs have no flow control (-ENOTSUP) and pass everything anyway.
 */
static void
port_ctrl_frames(const struct aifab_port_rt *rt)
{
	struct rte_eth_fc_conf fc;
	int rc = rte_eth_dev_flow_ctrl_get(rt->port_id, &fc);

	if (rc == 0 && fc.mac_ctrl_frame_fwd)
		return;
	if (rc == 0) {
		fc.mac_ctrl_frame_fwd = 1;
		rc = rte_eth_dev_flow_ctrl_set(rt->port_id, &fc);
	}
	if (rc != 0 && rc != -ENOTSUP)
		printf("port %s (%s): cannot make the NIC pass MAC control "
		       "frames up (%s): PFC from the peer may not reach the "
		       "software\n", rt->name, rt->device, rte_strerror(-rc));
}

static int
port_start(const struct aifab_profile *prof, const struct aifab_port_params *pp,
	   struct aifab_port_rt *rt, char *err, size_t errlen)
{
	uint8_t prios = lossless_prios(prof, (unsigned int)(pp - prof->ports));
	int rc;

	if (pp->has_mac) {
		rt->mac = pp->mac;
		/* Vdevs may refuse; promiscuous mode below covers that. */
		(void)rte_eth_dev_default_mac_addr_set(rt->port_id, &rt->mac);
	} else if (rte_eth_macaddr_get(rt->port_id, &rt->mac) != 0) {
		snprintf(err, errlen, "port %s: cannot read its MAC", pp->name);
		return -1;
	}
	rc = rte_eth_dev_start(rt->port_id);
	if (rc != 0) {
		snprintf(err, errlen, "port %s (%s): start failed: %s",
			 pp->name, rt->device, rte_strerror(-rc));
		return -1;
	}
	(void)rte_eth_promiscuous_enable(rt->port_id);
	/* Unless the NIC does PFC itself, PFC frames must reach us (the
	 * switch, the generator and the lab recipes read them). */
	if (!(prios != 0 && prof->pfc.hw_offload &&
	      port_hw_pfc(prof, (unsigned int)(pp - prof->ports), rt, prios)))
		port_ctrl_frames(rt);
	return 0;
}

/*
 * A real NIC's link comes up some time after rte_eth_dev_start(): poll
 * every started port until all are up or @p max_ms passed (vdevs are up
 * at once, so they cost nothing). @return ports still down.
 */
static unsigned int
links_wait(const struct aifab_env *env, unsigned int max_ms)
{
	struct rte_eth_link link;
	unsigned int i, down, waited = 0;

	for (;;) {
		down = 0;
		for (i = 0; i < env->n_ports; i++)
			if (!aifab_port_is_ring(&env->ports[i]) &&
			    rte_eth_link_get_nowait(env->ports[i].port_id,
						    &link) == 0 &&
			    link.link_status == RTE_ETH_LINK_DOWN)
				down++;
		if (down == 0 || waited >= max_ms)
			return down;
		rte_delay_ms(APP_LINK_POLL_MS);
		waited += APP_LINK_POLL_MS;
	}
}

/* Speed to model: the profile's, else the link's (after links_wait()). */
static void
port_speed(const struct aifab_port_params *pp, struct aifab_port_rt *rt)
{
	struct rte_eth_link link;

	rt->speed_mbps = pp->speed_mbps;
	if (rt->speed_mbps == 0 && aifab_port_is_ring(rt))
		rt->speed_mbps = RTE_ETH_SPEED_NUM_10G; /* as net_ring said */
	if (rt->speed_mbps == 0 && rte_eth_link_get_nowait(rt->port_id, &link) == 0 &&
	    link.link_status == RTE_ETH_LINK_UP &&
	    link.link_speed != RTE_ETH_SPEED_NUM_NONE &&
	    link.link_speed != RTE_ETH_SPEED_NUM_UNKNOWN)
		rt->speed_mbps = link.link_speed;
	if (rt->speed_mbps == 0) {
		rt->speed_mbps = RTE_ETH_SPEED_NUM_10G;
		printf("port %s: link speed unknown; modelling 10 Gb/s (set "
		       "[port.%s] speed_gbps)\n", pp->name, pp->name);
	}
}

/* A wired port: its rings, no ethdev (aifab_port_rx_burst()). */
static void
ring_port(const struct aifab_profile *prof, unsigned int i,
	  struct aifab_port_rt *rt)
{
	const struct aifab_port_params *pp = &prof->ports[i];

	snprintf(rt->device, sizeof(rt->device), "wire_%s", pp->name);
	rt->port_id = UINT16_MAX;
	rt->nb_rxq = rt->nb_txq = 1;
	rt->mtu = pp->mtu;
	if (pp->has_mac)
		rt->mac = pp->mac;
	rt->tx_ring = wire_rings[i];
	/* Real time: each end receives what the other sends. */
	rt->rx_ring = wire_rx[i] != NULL ? wire_rx[i] :
		wire_rings[wire_peer[i]];
}

int
app_ports_setup(const struct aifab_profile *prof, const struct app_args *args,
		unsigned int n_workers, const struct app_portset *gen,
		struct aifab_env *env, char *err, size_t errlen)
{
	uint16_t ids[AIFAB_MAX_PORTS];
	unsigned int i, down, shown = 0, n;

	memset(env, 0, sizeof(*env));
	env->prof = prof;
	env->tsc_hz = rte_get_tsc_hz();
	ports_rt = calloc(RTE_MAX(prof->n_ports, 1), sizeof(*ports_rt));
	/* a tap per TX queue: a generator port has one per generator worker */
	ports_tap = calloc(RTE_MAX(prof->n_ports, 1) * app_gen_workers(prof),
			   sizeof(*ports_tap));
	if (ports_rt == NULL || ports_tap == NULL) {
		snprintf(err, errlen, "out of memory for %u ports",
			 prof->n_ports);
		return -1;
	}
	env->ports = ports_rt;
	if (bind_ports(prof, ids, err, errlen) != 0)
		return -1;
	n = pool_size(prof, n_workers); /* knows the wires now */
	for (i = 0; i < prof->n_ports; i++) {
		struct aifab_port_rt *rt = &env->ports[i];
		int sock = wired[i] ? (int)rte_socket_id() :
			rte_eth_dev_socket_id(ids[i]);

		snprintf(rt->name, sizeof(rt->name), "%s", prof->ports[i].name);
		rt->port_id = ids[i];
		rt->gen_owned = app_portset_has(gen, i);
		rt->sw = prof->ports[i].sw;
		rt->pool = pool_for(sock, n, prof->mbuf_cache,
				    prof->mbuf_data_bytes, err, errlen);
		if (rt->pool == NULL)
			return -1;
		env->n_ports++;
		if (wired[i]) {
			ring_port(prof, i, rt);
			if (rt->gen_owned)
				rt->nb_txq = (uint16_t)wire_txq(prof, i);
			rt->tap = &ports_tap[i * app_gen_workers(prof)];
			continue;
		}
		if (rte_eth_dev_get_name_by_port(ids[i], rt->device) != 0)
			snprintf(rt->device, sizeof(rt->device), "port%u", ids[i]);
		rt->finite_rx = is_finite(args, rt->device);
		if (port_configure(&prof->ports[i], rt, rt->gen_owned ?
				   app_gen_workers(prof) : n_workers, err,
				   errlen))
			return -1;
	}
	for (i = 0; i < env->n_ports; i++)
		if (!aifab_port_is_ring(&env->ports[i]) &&
		    port_start(prof, &prof->ports[i], &env->ports[i], err,
			       errlen))
			return -1;
	down = links_wait(env, APP_LINK_WAIT_MS);
	for (i = 0; i < env->n_ports; i++) {
		port_speed(&prof->ports[i], &env->ports[i]);
		/* A fabric of hundreds of ports: the first ones only. */
		if (shown++ < APP_PORTS_SHOWN)
			port_show(&env->ports[i]);
	}
	if (shown > APP_PORTS_SHOWN)
		printf("... and %u more ports\n", shown - APP_PORTS_SHOWN);
	if (down != 0)
		printf("warning: %u port(s) still link down after %u ms\n",
		       down, APP_LINK_WAIT_MS);
	return 0;
}

void
app_ports_close(struct aifab_env *env)
{
	struct rte_mbuf *m;
	unsigned int i;

	for (i = 0; i < env->n_ports; i++) {
		if (aifab_port_is_ring(&env->ports[i]))
			continue;
		(void)rte_eth_dev_stop(env->ports[i].port_id);
		(void)rte_eth_dev_close(env->ports[i].port_id);
	}
	/* Frames still on a cable are returned to their pool. */
	for (i = 0; i < AIFAB_MAX_PORTS; i++) {
		if (wire_rings[i] == NULL)
			continue;
		while (rte_ring_dequeue(wire_rings[i], (void **)&m) == 0)
			rte_pktmbuf_free(m);
		while (wire_rx[i] != NULL &&
		       rte_ring_dequeue(wire_rx[i], (void **)&m) == 0)
			rte_pktmbuf_free(m);
		free(wire_rings[i]);
		free(wire_rx[i]);
		wire_rings[i] = NULL;
		wire_rx[i] = NULL;
		wired[i] = false;
	}
}

unsigned int
app_pools_in_use(void)
{
	unsigned int s, n = 0;

	for (s = 0; s < RTE_MAX_NUMA_NODES; s++)
		if (pools[s] != NULL)
			n += rte_mempool_in_use_count(pools[s]);
	return n;
}

static void
pool_in_use(struct rte_mempool *mp, void *arg)
{
	*(unsigned int *)arg += rte_mempool_in_use_count(mp);
}

unsigned int
app_mempools_in_use(void)
{
	unsigned int n = 0;

	rte_mempool_walk(pool_in_use, &n);
	return n;
}

void
app_pools_free(void)
{
	unsigned int s;

	for (s = 0; s < RTE_MAX_NUMA_NODES; s++) {
		rte_mempool_free(pools[s]);
		pools[s] = NULL;
	}
	free(ports_rt);
	ports_rt = NULL;
	free(ports_tap);
	ports_tap = NULL;
}
