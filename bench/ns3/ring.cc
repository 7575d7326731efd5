/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * bench/ns3/ring.cc: the ns-3 side of bench/ns3.sh. N hosts on one router
 * over point-to-point links of one rate; host i sends a UDP stream of
 * 4096-byte payloads to host (i + 1) % N at line rate (one frame time
 * apart, counting the UDP, IPv4 and PPP headers the link carries) for the
 * given simulated time. It prints the frame-hops (frames a link delivered:
 * host -> router and router -> host, 2 per frame that arrives) and the wall
 * time of Simulator::Run(), so frame-hops per wall second (and the
 * process's CPU time over the same run).
 *
 *   ring --hosts=8 --gbps=100 --ms=10 [--delay-ns=0] [--mtu=9000]
 *
 * --mtu 9000 (the default) carries a 4096-byte datagram in one frame, as
 * RoCE at IB MTU 4096 does; --mtu 1500 (ns-3's own default) fragments it
 * into 3 IPv4 fragments per link, the frames counted then being fragments.
 */
#include <chrono>
#include <cmath>
#include <cstdio>
#include <ctime>

#include "ns3/applications-module.h"
#include "ns3/core-module.h"
#include "ns3/internet-module.h"
#include "ns3/network-module.h"
#include "ns3/point-to-point-module.h"

using namespace ns3;

static uint64_t g_hops;

static void
PhyRxEnd(Ptr<const Packet>)
{
	g_hops++;
}

int
main(int argc, char **argv)
{
	uint32_t hosts = 8, payload = 4096, mtu = 9000;
	double gbps = 100, ms = 10;
	uint64_t delay_ns = 0;
	CommandLine cmd;

	cmd.AddValue("hosts", "hosts on the router", hosts);
	cmd.AddValue("gbps", "link rate, Gbit/s", gbps);
	cmd.AddValue("ms", "simulated time, ms", ms);
	cmd.AddValue("payload", "UDP payload bytes", payload);
	cmd.AddValue("delay-ns", "cable delay, ns", delay_ns);
	cmd.AddValue("mtu", "link MTU, bytes (9000: one frame a datagram)", mtu);
	cmd.Parse(argc, argv);

	NodeContainer router, host;
	router.Create(1);
	host.Create(hosts);

	PointToPointHelper p2p;
	p2p.SetDeviceAttribute("DataRate",
			       DataRateValue(DataRate((uint64_t)(gbps * 1e9))));
	/* Jumbo frames by default: a 4096-byte payload in one frame, as RoCE
	 * at IB MTU 4096. */
	p2p.SetDeviceAttribute("Mtu", UintegerValue(mtu));
	p2p.SetChannelAttribute("Delay", TimeValue(NanoSeconds(delay_ns)));

	InternetStackHelper inet;
	inet.Install(router);
	inet.Install(host);

	Ipv4AddressHelper addr;
	std::vector<Ipv4Address> ip(hosts);
	for (uint32_t i = 0; i < hosts; i++) {
		NetDeviceContainer d = p2p.Install(host.Get(i), router.Get(0));
		char net[32];

		snprintf(net, sizeof(net), "10.%u.%u.0", 1 + i / 256, i % 256);
		addr.SetBase(net, "255.255.255.0");
		ip[i] = addr.Assign(d).GetAddress(0);
		for (uint32_t k = 0; k < 2; k++)
			d.Get(k)->TraceConnectWithoutContext(
				"PhyRxEnd", MakeCallback(&PhyRxEnd));
	}
	Ipv4GlobalRoutingHelper::PopulateRoutingTables();

	/* One frame time on the wire: payload + UDP 8 + IPv4 20 + PPP 2.
	 * Rounded up to a whole ns so the sender never outruns the link. */
	double bits = (payload + 8 + 20 + 2) * 8.0;
	Time gap = NanoSeconds((uint64_t)std::ceil(bits / gbps));
	Time stop = Seconds(ms / 1e3);

	for (uint32_t i = 0; i < hosts; i++) {
		uint16_t port = 9000;
		UdpServerHelper srv(port);
		ApplicationContainer s = srv.Install(host.Get(i));
		s.Start(Seconds(0));
		s.Stop(stop);

		UdpClientHelper cli(ip[(i + 1) % hosts], port);
		cli.SetAttribute("MaxPackets", UintegerValue(UINT32_MAX));
		cli.SetAttribute("Interval", TimeValue(gap));
		cli.SetAttribute("PacketSize", UintegerValue(payload));
		ApplicationContainer c = cli.Install(host.Get(i));
		c.Start(Seconds(0));
		c.Stop(stop);
	}

	Simulator::Stop(stop);
	auto t0 = std::chrono::steady_clock::now();
	std::clock_t c0 = std::clock();
	Simulator::Run();
	std::clock_t c1 = std::clock();
	auto t1 = std::chrono::steady_clock::now();
	Simulator::Destroy();

	double wall = std::chrono::duration<double>(t1 - t0).count();
	printf("ns3: hosts %u rate %.0f Gb/s mtu %u simulated %.3f ms: "
	       "frame_hops %llu wall %.3f s = %.0f frame-hops/s (cpu %.3f s)\n",
	       hosts, gbps, mtu, ms, (unsigned long long)g_hops, wall,
	       g_hops / wall,
	       (double)(c1 - c0) / CLOCKS_PER_SEC);
	return 0;
}
