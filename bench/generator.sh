#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
#
# bench/generator.sh: the RoCEv2 generator's cycles/packet and Mpps on one
# core, beside dpdk-testpmd --forward-mode=txonly --record-core-cycles, on
# the same vdevs (two net_null sinks), in the same run. A figure, not a test.
#
#   bench/generator.sh [-d SECONDS] [-r REPEATS] [-m IB_MTUS] [-n RANKS]
#                      [-w WORKDIR]
#
#   -d  sending time of each run (default 3)
#   -r  runs per tool per case, interleaved; fewest cycles/packet kept (2)
#   -m  IB MTUs to try, comma-separated (default 256,4096: frames of
#       314 B and 4154 B, RDMA WRITE middle)
#   -n  rank counts for the scaling table, comma-separated (default
#       8,64,512,4096; "" skips it): halving-doubling AllReduce, whose
#       N log2(N) QPs are all active, at IB MTU 4096
#   -w  logs and reports (default /tmp/aifab-bench-gen)
#
# The generator runs open loop ([generator] rx = false: nothing comes back
# from net_null), 2 ranks, one per port, ring AllReduce of a message large
# enough that it is still sending when --duration ends, paced at the ports'
# speed_gbps = 1600 (the pacer is not the limit on one core). testpmd's
# txonly sends --txpkts frames of the same length; like our generator it
# writes headers only (our payload is one shared external buffer), so
# neither pays per payload byte.
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
PY=/usr/bin/python3
AIFAB=${AIFAB:-$ROOT/build/app/dpdk-aifab}
TESTPMD=${TESTPMD:-dpdk-testpmd}
DUR=3
REPS=2
MTUS=256,4096
RANKS=8,64,512,4096
WORK=/tmp/aifab-bench-gen
LCORES=0,1

# shellcheck source=bench/common.sh
. "$ROOT/bench/common.sh"
bench_options "d:DUR r:REPS m:MTUS n:RANKS w:WORK" 26 "$@"
mkdir -p "$WORK"
[ -x "$AIFAB" ] || { echo "bench: build $AIFAB first (bench/run.sh builds it)" >&2; exit 1; }

# shellcheck disable=SC2054  # commas belong to the devargs
VDEVS=(--vdev net_null0,no-rx=1 --vdev net_null1,no-rx=1)

profile() {	# ib_mtu [ranks collective] -> profile path
	local ranks=${2:-2} coll=${3:-allreduce_ring}
	local p=$WORK/gen-$1-$ranks-$coll.ini
	cat >"$p" <<-EOF
	; written by bench/generator.sh
	[general]
	name = bench-gen-$1
	[switch]
	enabled = false
	[port.p0]
	mac = 02:aa:00:00:01:00
	speed_gbps = 1600
	mtu = 9000
	[port.p1]
	mac = 02:aa:00:00:01:01
	speed_gbps = 1600
	mtu = 9000
	[generator]
	enabled = true
	ports = p0 p1
	collective = $coll
	ranks = $ranks
	size_bytes = 4294967296
	iterations = 1000000
	warmup = 0
	ib_mtu = $1
	rx = false
	EOF
	echo "$p"
}

run_gen() {	# tag ib_mtu [ranks collective] -> "cpp mpps_busy mpps_wall frame_bytes qps maxrss_kb"
	local out=$WORK/$1.gen
	if ! /usr/bin/time -f "%M" -o "$out.rss" \
		"$AIFAB" -l $LCORES --no-huge -m 1024 --no-pci \
		--file-prefix "aifab-bench-$$-g" "${VDEVS[@]}" -- \
		--profile "$(profile "$2" "${3:-2}" "${4:-allreduce_ring}")" \
		--duration "$DUR" --quiet \
		--report-json "$out.json" >"$out.log" 2>&1; then
		echo fail; return
	fi
	"$PY" - "$out.json" "$out.rss" <<-'EOF'
	import json, sys
	r = json.load(open(sys.argv[1]))
	rss = int(open(sys.argv[2]).read().split()[-1])
	qps = r["generator"].get("per_qp", {}).get("qps", 0)
	hz = r["tsc_hz"]
	busy = sum(l["busy_cycles"] for l in r["lcores"].values())
	pk = sum(l["packets"] for l in r["lcores"].values())
	tx = sum(p["tx_packets"] for p in r["ports"].values())
	txb = sum(p["tx_bytes"] for p in r["ports"].values())
	if pk == 0 or busy == 0 or tx == 0:
	    print("fail"); sys.exit()
	print("%.1f %.2f %.2f %d %d %d" % (busy / pk, pk / (busy / hz) / 1e6,
	      tx / r["elapsed_s"] / 1e6, round(txb / tx), qps, rss))
	EOF
}

run_txonly() {	# tag frame_len -> "cpp mpps_busy mpps_wall"
	local data=$(( ($2 + 128 + 127) / 128 * 128 ))
	[ "$data" -ge 2176 ] || data=2176
	testpmd_run "$1" 1024 3000 "${VDEVS[@]}" -- \
		--forward-mode=txonly --txpkts="$2" --mbuf-size="$data" \
		--max-pkt-len=9000 --record-core-cycles
}

echo "# dpdk-aifab generator bench, $(date -u +%Y-%m-%dT%H:%MZ); ${DUR}s per run, best of $REPS"
echo
echo "| IB MTU | frame B | generator cycles/pkt | generator Mpps/core (busy; wall) | testpmd txonly cycles/pkt | testpmd Mpps (busy; wall) | ratio |"
echo "|---:|---:|---:|---:|---:|---:|---:|"
status=0
IFS=, read -ra mtus <<<"$MTUS"
for mtu in "${mtus[@]}"; do
	g=''; t=''
	for r in $(seq 1 "$REPS"); do
		g=$(better "$g" "$(run_gen "mtu${mtu}_$r" "$mtu")")
		# testpmd sends frames as long as the generator's (from its report).
		len=$(( mtu + 58 ))
		case $g in fail|"") ;; *) len=$(awk '{ print $4 }' <<<"$g") ;; esac
		t=$(better "$t" "$(run_txonly "mtu${mtu}_$r" "$len")")
	done
	read -r gcpp gbusy gwall glen _ _ <<<"$g"
	read -r tcpp tbusy twall <<<"$t"
	case $g in fail|"") gcpp=failed; gbusy="see $WORK/mtu${mtu}_*.gen.log"; gwall=; glen=$len; status=1 ;; esac
	case $t in fail|"") tcpp=failed; tbusy="see $WORK/mtu${mtu}_*.testpmd.log"; twall=; status=1 ;; esac
	ratio=$(awk -v a="$gcpp" -v b="$tcpp" 'BEGIN {
		if (a + 0 > 0 && b + 0 > 0) printf "%.2fx", a / b; else print "-" }')
	echo "| $mtu | $glen | $gcpp | $gbusy${gwall:+; $gwall} | $tcpp | $tbusy${twall:+; $twall} | $ratio |"
done
echo
echo "Generator packets are what its poll returns (frames sent; rx is off)."

# Scaling: the same frames from more ranks and QPs. Cost per packet should
# stay flat; memory grows with the QPs (docs/generator.md, "Scale and
# memory"): the last column is the peak RSS growth over the smallest run
# per QP added (EAL's -m 1024 is reserved up front, so RSS counts what is
# touched: plan, rank tables, QPs, mbufs in flight).
if [ -n "$RANKS" ]; then
	echo
	echo "| ranks | QPs | generator cycles/pkt | generator Mpps/core (busy; wall) | peak RSS MB | RSS per added QP |"
	echo "|---:|---:|---:|---:|---:|---:|"
	base_rss='' base_qps=''
	IFS=, read -ra rank_list <<<"$RANKS"
	for n in "${rank_list[@]}"; do
		g=''
		for r in $(seq 1 "$REPS"); do
			g=$(better "$g" "$(run_gen "scale${n}_$r" 4096 "$n" allreduce_hd)")
		done
		case $g in fail|"")
			echo "| $n | - | failed (see $WORK/scale${n}_*.gen.log) | - | - | - |"
			status=1; continue ;;
		esac
		read -r gcpp gbusy gwall _ qps rss <<<"$g"
		per="-"
		if [ -z "$base_rss" ]; then
			base_rss=$rss base_qps=$qps
		elif [ "$qps" -gt "$base_qps" ]; then
			per=$(awk -v a="$rss" -v b="$base_rss" -v q="$qps" -v p="$base_qps" \
				'BEGIN { printf "%.0f B", (a - b) * 1024 / (q - p) }')
		fi
		echo "| $n | $qps | $gcpp | $gbusy; $gwall | $(( rss / 1024 )) | $per |"
	done
fi
exit $status
