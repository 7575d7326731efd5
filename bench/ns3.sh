#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
#
# bench/ns3.sh: the in-memory fabric on the virtual clock beside ns-3 on
# the same topology and traffic: N hosts on one router over point-to-point
# links of one rate, each host sending a UDP stream of 4096-byte payloads
# to its ring successor at line rate (bench/ns3/ring.cc), against the demo
# (8 ranks on one leaf, ring AllReduce of 4096-byte RDMA payloads, closed
# loop) at 100G and 400G, a scenario and the Clos profile
# (bench/vclock.sh). Prints frame-hops per wall second side by side with
# the ratio. A figure, not a test.
#
#   bench/ns3.sh [-r ROUNDS] [-m NS3_MS] [-M MTU] [-s SCENARIO] [-w WORKDIR]
#
#   -r  runs per case, the fastest kept (default 3)
#   -m  ns-3 simulated time in ms at 100G (default 10, the issue's run;
#       at 400G a quarter of it: the same frames)
#   -M  ns-3's link MTU (default 9000: a 4096-byte datagram is one frame,
#       as a RoCE frame at IB MTU 4096; 1500, ns-3's own default, splits it
#       into 3 IPv4 fragments, and ns-3's frame-hops are then fragments)
#   -s  the scenario row (default incast-lossless)
#   -w  work directory (default /tmp/aifab-ns3)
#
# Needs Debian's libns3-dev (3.37) and libgsl-dev (its pkg-config files
# name gsl) and g++; installs nothing: when they are missing it prints the
# command that installs them (tools/setup.sh bench-deps) and measures
# our side only. ring.cc is built into
# build-ns3/ (NS3_BUILD) beside the repo's build dirs, not by meson.
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
BENCH=$ROOT/bench
REPS=3
MS=10
MTU=9000
SCEN=incast-lossless
WORK=/tmp/aifab-ns3
NS3_BUILD=${NS3_BUILD:-$ROOT/build-ns3}
NS3_MODS="ns3-core ns3-network ns3-internet ns3-point-to-point ns3-applications"

# shellcheck source=bench/common.sh
. "$BENCH/common.sh"
bench_options "r:REPS m:MS M:MTU s:SCEN w:WORK" 28 "$@"
mkdir -p "$WORK" "$NS3_BUILD"

have_ns3=1
# shellcheck disable=SC2086
if ! command -v g++ >/dev/null || ! pkg-config --exists $NS3_MODS 2>/dev/null; then
	have_ns3=0
	echo "bench: ns-3 not found (pkg-config $NS3_MODS); to install it:" >&2
	echo "  tools/setup.sh bench-deps   (apt-get install --no-install-recommends libns3-dev libgsl-dev g++)" >&2
	echo "bench: measuring dpdk-aifab only" >&2
fi

RING=$NS3_BUILD/ring
if [ "$have_ns3" = 1 ] && { [ ! -x "$RING" ] || [ "$BENCH/ns3/ring.cc" -nt "$RING" ]; }; then
	echo "bench: building $RING" >&2
	# shellcheck disable=SC2046,SC2086
	g++ -O2 -std=c++17 -o "$RING" "$BENCH/ns3/ring.cc" \
		$(pkg-config --cflags --libs $NS3_MODS)
fi

# ns-3: the fastest of REPS runs; prints "frame_hops model_ms wall_s cpu_s"
# (cpu_s: the least of the runs).
ns3_best() {	# gbps ms
	local best='' k line cpu='' c
	for ((k = 0; k < REPS; k++)); do
		line=$("$RING" --hosts=8 --gbps="$1" --ms="$2" --mtu="$MTU" | tail -1)
		# ns3: ... frame_hops H wall W s = R frame-hops/s (cpu C s)
		c=$(sed -n 's/.*(cpu \([0-9.]*\) s).*/\1/p' <<<"$line")
		line=$(awk -v ms="$2" '{ for (i = 1; i <= NF; i++) {
			if ($i == "frame_hops") h = $(i + 1);
			if ($i == "wall") w = $(i + 1) } }
			END { print h, ms, w }' <<<"$line")
		if [ -z "$best" ] || awk -v a="$line" -v b="$best" \
			'BEGIN { split(a, x); split(b, y); exit !(x[3] < y[3]) }'; then
			best=$line
		fi
		if [ -z "$cpu" ] || awk -v a="$c" -v b="$cpu" 'BEGIN { exit !(a < b) }'; then
			cpu=$c
		fi
	done
	echo "$best ${cpu:--}"
}

rows=$WORK/rows
: >"$rows"
VCLOCK_ROWS=$rows "$BENCH/vclock.sh" -r "$REPS" -s "$SCEN" -w "$WORK/vclock" \
	-c demo100,demo400,demo400-noicrc,scenario,clos,rt400,rt400-noicrc >"$WORK/vclock.md"
cat "$WORK/vclock.md"
echo

n100='' n400=''
if [ "$have_ns3" = 1 ]; then
	n100=$(ns3_best 100 "$MS")
	n400=$(ns3_best 400 "$(awk -v m="$MS" 'BEGIN { print m / 4 }')")
fi

rate() { awk -v h="$1" -v w="$2" 'BEGIN { printf "%.0f", h / w }'; }

# Per wall second (one invocation: the same load for both) and per CPU
# second (the loop's thread, ns-3's process: what a loaded machine
# stretches least).
printf '| dpdk-aifab case | frame-hops / wall s | ns-3 (8 hosts, 1 router) | ns-3 frame-hops / wall s | ratio (wall) | frame-hops / CPU s | ns-3 / CPU s | ratio (CPU) |\n'
printf '|---|---:|---|---:|---:|---:|---:|---:|\n'
while read -r c clk hops _ el cpu; do
	ours=$(rate "$hops" "$el")
	oc=-
	[ "${cpu:--}" != - ] && oc=$(rate "$hops" "$cpu")
	ref=$n100 refname="100G, $MS ms, MTU $MTU"
	case $c in *400*) ref=$n400 refname="400G, $(awk -v m="$MS" 'BEGIN { print m / 4 }') ms, MTU $MTU" ;; esac
	if [ -n "$ref" ]; then
		read -r nh _ nw nc <<<"$ref"
		theirs=$(rate "$nh" "$nw")
		tc=-
		[ "${nc:--}" != - ] && tc=$(rate "$nh" "$nc")
		printf '| %s (%s) | %s | %s: %s hops in %.2f s | %s | %sx | %s | %s | %s |\n' \
			"${c//:/ }" "$clk" "$ours" "$refname" "$nh" "$nw" "$theirs" \
			"$(awk -v a="$ours" -v b="$theirs" 'BEGIN { printf "%.1f", a / b }')" \
			"$oc" "$tc" "$(awk -v a="$oc" -v b="$tc" 'BEGIN {
				if (a + 0 > 0 && b + 0 > 0) printf "%.1fx", a / b; else printf "-" }')"
	else
		printf '| %s (%s) | %s | (no ns-3) | | | %s | | |\n' "${c//:/ }" "$clk" "$ours" "$oc"
	fi
done <"$rows"
