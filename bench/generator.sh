#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
#
# bench/generator.sh: the RoCEv2 generator's cycles/packet and Mpps on one
# core, beside dpdk-testpmd --forward-mode=txonly --record-core-cycles, on
# the same vdevs (two net_null sinks), in the same run. A figure, not a test.
#
#   bench/generator.sh [-d SECONDS] [-r REPEATS] [-m IB_MTUS] [-n RANKS]
#                      [-o OWN_RANKS] [-l LCORE_COUNTS] [-w WORKDIR]
#
#   -d  sending time of each run (default 3)
#   -r  runs per tool per case, interleaved; fewest cycles/packet kept (2)
#   -m  IB MTUs to try, comma-separated (default 256,4096: frames of
#       314 B and 4154 B, RDMA WRITE middle)
#   -n  rank counts for the scaling table, comma-separated (default
#       8,64,512,4096; "" skips it): halving-doubling AllReduce, whose
#       N log2(N) QPs are all active, at IB MTU 4096
#   -o  rank counts for the memory table, comma-separated (default
#       4096,16384; "" skips it): ring AllReduce with every rank owned,
#       and with 1/64 of them (a rank table of 64 hosts written here,
#       this process host h0); runs the host's memory cannot hold are
#       skipped, with the estimate
#   -l  generator lcore counts for the lcore scaling table, comma-
#       separated (default 1,2; "" skips it): 8 ranks of ring AllReduce at
#       IB MTU 4096 on [generator] lcores = 1..n (n = 1: lcore 1 as
#       above; more: the main lcore 0 runs worker 0, lcores 1.. the
#       others), each worker its own TX queue on both net_null ports
#   -w  logs and reports (default /tmp/aifab-bench-gen)
#
# The generator runs open loop ([generator] rx = false: nothing comes back
# from net_null), 2 ranks, one per port, ring AllReduce of a message large
# enough that it is still sending when --duration ends, paced at the ports'
# speed_gbps = 1600 (the pacer is not the limit on one core). testpmd's
# txonly sends --txpkts frames of the same length; like our generator it
# writes headers only (our frame mbufs hold the payload, written once when
# the pool is made), so neither pays per payload byte.
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
PY=/usr/bin/python3
AIFAB=${AIFAB:-$ROOT/build/app/dpdk-aifab}
TESTPMD=${TESTPMD:-dpdk-testpmd}
DUR=3
REPS=2
MTUS=256,4096
RANKS=8,64,512,4096
OWN=4096,16384
WORK=/tmp/aifab-bench-gen
LCORES=0,1
GEN_LCORES=1,2

# shellcheck source=bench/common.sh
. "$ROOT/bench/common.sh"
bench_options "d:DUR r:REPS m:MTUS n:RANKS o:OWN l:GEN_LCORES w:WORK" 36 "$@"
mkdir -p "$WORK"
[ -x "$AIFAB" ] || { echo "bench: build $AIFAB first (bench/run.sh builds it)" >&2; exit 1; }

# shellcheck disable=SC2054  # commas belong to the devargs
VDEVS=(--vdev net_null0,no-rx=1 --vdev net_null1,no-rx=1)


run_gen() {	# tag ib_mtu [ranks collective lcores] -> "cpp mpps_busy mpps_wall frame_bytes qps maxrss_kb cpu_ns_per_pkt"
	local out=$WORK/$1.gen n=${5:-1} eal=$LCORES sets=()
	if [ "$n" -gt 1 ]; then	# worker 0 on the main lcore, then 1..n-1
		eal=0-$(( n - 1 ))
		sets=(--set "generator.lcores=0-$(( n - 1 ))")
	fi
	if ! /usr/bin/time -f "%M %U %S" -o "$out.rss" \
		"$AIFAB" -l "$eal" --no-huge -m 1024 --no-pci \
		--file-prefix "aifab-bench-$$-g" "${VDEVS[@]}" -- \
		--profile "$(gen_profile "$2" "${3:-2}" "${4:-allreduce_ring}")" \
		"${sets[@]}" --duration "$DUR" --quiet \
		--report-json "$out.json" >"$out.log" 2>&1; then
		echo fail; return
	fi
	"$PY" - "$out.json" "$out.rss" <<-'EOF'
	import json, sys
	r = json.load(open(sys.argv[1]))
	rss, usr, sys_s = open(sys.argv[2]).read().split()[-3:]
	rss, cpu = int(rss), float(usr) + float(sys_s)
	qps = r["generator"].get("per_qp", {}).get("qps", 0)
	hz = r["tsc_hz"]
	busy = sum(l["busy_cycles"] for l in r["lcores"].values())
	pk = sum(l["packets"] for l in r["lcores"].values())
	tx = sum(p["tx_packets"] for p in r["ports"].values())
	txb = sum(p["tx_bytes"] for p in r["ports"].values())
	if pk == 0 or busy == 0 or tx == 0:
	    print("fail"); sys.exit()
	print("%.1f %.2f %.2f %d %d %d %.1f" % (busy / pk, pk / (busy / hz) / 1e6,
	      tx / r["elapsed_s"] / 1e6, round(txb / tx), qps, rss,
	      cpu / tx * 1e9))
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
	echo "| ranks | QPs | generator cycles/pkt | on-CPU ns/pkt | generator Mpps/core (busy; wall) | peak RSS MB | RSS per added QP |"
	echo "|---:|---:|---:|---:|---:|---:|---:|"
	base_rss='' base_qps=''
	IFS=, read -ra rank_list <<<"$RANKS"
	for n in "${rank_list[@]}"; do
		g=''
		for r in $(seq 1 "$REPS"); do
			g=$(better "$g" "$(run_gen "scale${n}_$r" 4096 "$n" allreduce_hd)")
		done
		case $g in fail|"")
			echo "| $n | - | failed (see $WORK/scale${n}_*.gen.log) | - | - | - | - |"
			status=1; continue ;;
		esac
		read -r gcpp gbusy gwall _ qps rss gcpu <<<"$g"
		per="-"
		if [ -z "$base_rss" ]; then
			base_rss=$rss base_qps=$qps
		elif [ "$qps" -gt "$base_qps" ]; then
			per=$(awk -v a="$rss" -v b="$base_rss" -v q="$qps" -v p="$base_qps" \
				'BEGIN { printf "%.0f B", (a - b) * 1024 / (q - p) }')
		fi
		echo "| $n | $qps | $gcpp | $gcpu | $gbusy; $gwall | $(( rss / 1024 )) | $per |"
	done
fi
# Lcores: the same 8 ranks sharded over 1..n generator workers (ranks
# round robin), each with its own TX queue, pools and counters. Mpps is
# the sum over the workers (wall: frames sent / run time); cycles/pkt is
# busy cycles over packets, summed over the workers' lcores; on-CPU ns/pkt
# is the process's user + system time (start-up included) over the frames
# sent, which a loaded machine inflates far less than busy TSC cycles (a
# preempted busy poll still counts TSC); scaling is wall Mpps over the
# 1-lcore run's.
if [ -n "$GEN_LCORES" ]; then
	echo
	echo "| generator lcores | ranks | cycles/pkt (all lcores) | on-CPU ns/pkt | Mpps busy | Mpps wall | scaling (wall) |"
	echo "|---:|---:|---:|---:|---:|---:|---:|"
	base=''
	IFS=, read -ra lc_list <<<"$GEN_LCORES"
	for n in "${lc_list[@]}"; do
		if [ "$n" -gt "$(nproc)" ]; then
			echo "| $n | 8 | skipped: $(nproc) CPUs | - | - | - | - |"
			continue
		fi
		g=''
		for r in $(seq 1 "$REPS"); do
			g=$(better "$g" "$(run_gen "lc${n}_$r" 4096 8 allreduce_ring "$n")")
		done
		case $g in fail|"")
			echo "| $n | 8 | failed (see $WORK/lc${n}_*.gen.log) | - | - | - | - |"
			status=1; continue ;;
		esac
		read -r gcpp gbusy gwall _ _ _ gcpu <<<"$g"
		[ -n "$base" ] || base=$gwall
		echo "| $n | 8 | $gcpp | $gcpu | $gbusy | $gwall | $(awk -v a="$gwall" -v b="$base" 'BEGIN { printf "%.2fx", a / b }') |"
	done
fi

# Memory: a host keeps the schedule and QPs of its own ranks (and of the
# ranks they exchange with) only. Ring AllReduce, E = 2(N-1) entries per
# rank; peak RSS of a 1-second run with every rank owned, and with 1/64.
run_mem() {	# ranks share -> "est_mb rss_kb wall_s", "skip est_mb" or "fail"
	local n=$1 share=$2 tag=mem$1_$2 own=$(( $1 / $2 )) args=() rows
	local e=$(( 2 * ($1 - 1) ))
	rows=$(( share == 1 ? n : own + 2 ))
	# 40 B of plan + 4 B entry -> QP per schedule entry kept.
	local est=$(( rows * e * 44 / 1048576 )) avail
	avail=$(awk '/MemAvailable/ { print int($2 / 1024) }' /proc/meminfo)
	if [ $(( est * 10 )) -gt $(( avail * 6 )) ]; then echo "skip $est"; return; fi
	if [ "$share" -gt 1 ]; then
		awk -v n="$n" -v own="$own" 'BEGIN { for (r = 0; r < n; r++)
			printf "%d 02:a1:fb:%02x:%02x:%02x 10.100.%d.%d host=h%d\n",
				r, int(r / 65536) % 256, int(r / 256) % 256, r % 256,
				int(r / 256), r % 256, int(r / own) }' >"$WORK/$tag.ranks"
		args=(--set "generator.rank_table=$WORK/$tag.ranks" --host h0
		      --start-at +0)
	fi
	if ! /usr/bin/time -f "%M %e" -o "$WORK/$tag.rss" \
		"$AIFAB" -l $LCORES --no-huge -m $(( 1024 + rows * e * 4 / 1048576 )) \
		--no-pci --file-prefix "aifab-bench-$$-m" "${VDEVS[@]}" -- \
		--profile "$(gen_profile 4096 "$n" allreduce_ring)" "${args[@]}" \
		--duration 1 --quiet --report-json "$WORK/$tag.json" \
		>"$WORK/$tag.log" 2>&1; then
		echo fail; return
	fi
	echo "$est $(tail -1 "$WORK/$tag.rss")"
}

if [ -n "$OWN" ]; then
	echo
	echo "| ranks | owned here | schedule rows kept | plan + entry tables (est.) MB | peak RSS MB | run s |"
	echo "|---:|---:|---:|---:|---:|---:|"
	IFS=, read -ra own_list <<<"$OWN"
	for n in "${own_list[@]}"; do
		for share in 1 64; do
			own=$(( n / share ))
			rows=$(( share == 1 ? n : own + 2 ))
			m=$(run_mem "$n" "$share")
			case $m in
			skip*) echo "| $n | $own | $rows | ${m#skip } | skipped: over 60% of MemAvailable | - |" ;;
			fail) echo "| $n | $own | $rows | - | failed (see $WORK/mem${n}_$share.log) | - |"; status=1 ;;
			*) read -r est rss wall <<<"$m"
			   echo "| $n | $own | $rows | $est | $(( rss / 1024 )) | $wall |" ;;
			esac
		done
	done
fi
exit $status
