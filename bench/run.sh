#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
#
# bench/run.sh: the switch pipeline's cycles/packet and Mpps per worker core,
# beside dpdk-testpmd --forward-mode=macswap --record-core-cycles, on the same
# vdevs, in the same run, for 64 B and 4 KB RoCEv2 frames and 1 / 1k / 1M
# flows. Prints a Markdown table. A figure, not a test: nothing here fails on
# an absolute time (exit status is non-zero only if a run could not be made).
#
#   bench/run.sh [-d SECONDS] [-r REPEATS] [-c CASES] [-w WORKDIR]
#
#   -d  forwarding time of each run (default 3)
#   -r  runs per tool per case, interleaved aifab/testpmd; the run with the
#       fewest cycles/packet is kept (default 2)
#   -c  cases as SIZE:FLOWS, comma-separated
#       (default 64:1,64:1000,64:1000000,4154:1,4154:1000,4154:1000000)
#   -w  where pcaps, logs and reports go (default /tmp/aifab-bench; pcaps
#       are kept and reused while gen_flows.py is unchanged)
#
# Environment: AIFAB (default build/app/dpdk-aifab, the release build of
# tools/setup.sh build, made if missing), TESTPMD (default dpdk-testpmd), FLOW_CAP_4K (default 32768: 4 KB
# cases replay at most this many flows, see README.md).
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
BENCH=$ROOT/bench
PY=/usr/bin/python3
AIFAB=${AIFAB:-$ROOT/build/app/dpdk-aifab}
TESTPMD=${TESTPMD:-dpdk-testpmd}
PROFILE=$BENCH/leaf-800g.ini
FLOW_CAP_4K=${FLOW_CAP_4K:-32768}
DUR=3
REPS=2
CASES=64:1,64:1000,64:1000000,4154:1,4154:1000,4154:1000000
WORK=/tmp/aifab-bench
LCORES=0,1          # main + one forwarding/worker core, for both tools
AIFAB_MAX_MBUFS=1048576

while getopts "d:r:c:w:h" o; do
	case $o in
	d) DUR=$OPTARG ;;
	r) REPS=$OPTARG ;;
	c) CASES=$OPTARG ;;
	w) WORK=$OPTARG ;;
	*) sed -n '3,22p' "$0" | sed 's/^# \{0,1\}//'; exit 2 ;;
	esac
done

mkdir -p "$WORK"
TP_PID=
# shellcheck disable=SC2317  # called by the trap
cleanup() {
	if [ -n "$TP_PID" ] && kill -0 "$TP_PID" 2>/dev/null; then
		kill -INT "$TP_PID" 2>/dev/null || true
	fi
}
trap cleanup EXIT

if [ ! -x "$AIFAB" ]; then
	echo "bench: building $AIFAB" >&2
	"$ROOT/tools/setup.sh" build
fi
command -v "$TESTPMD" >/dev/null || { echo "bench: no $TESTPMD" >&2; exit 1; }

# The app sizes mbufs at 2176 B (2048 B of data); net_pcap's infinite_rx
# refuses chained mbufs, so 4 KB frames need a bigger data room. Use a
# profile key for it when the app has one.
# shellcheck disable=SC2016  # backquotes are Markdown here
MBUF_KEY=$("$AIFAB" --profile-doc 2>/dev/null |
	   grep -oE '^\| `mbuf_(data|size)[a-z_]*`' | head -1 | tr -d '|` ' || true)

# Memory for N mbufs of DATA bytes with --no-huge: EAL's pages are 4 KB and
# a mempool object does not straddle pages, so a 2.4 KB mbuf costs a page.
mem_mb() {	# n data
	local per=$(( ($2 + 256 + 4095) / 4096 * 4096 ))
	echo $(( ($1 * per) / 1048576 + 512 ))
}

vdevs() {	# pcap
	echo "--vdev net_pcap0,rx_pcap=$1,infinite_rx=1" \
	     "--vdev net_null1,no-rx=1 --vdev net_null2,no-rx=1" \
	     "--vdev net_null3,no-rx=1"
}

# One aifab run; prints "cpp mpps_busy mpps_wall fwd_ratio end", or "fail".
run_aifab() {	# tag pcap n_mbufs data mem
	local tag=$1 pcap=$2 n=$3 data=$4 mem=$5 set=()
	local out=$WORK/$tag.aifab
	if [ "$data" -gt 2176 ]; then
		[ -n "$MBUF_KEY" ] || { echo "nomem"; return; }
		set=(--set "general.$MBUF_KEY=$data")
	fi
	# shellcheck disable=SC2046
	if ! "$AIFAB" -l $LCORES --no-huge -m "$mem" --no-pci \
		--file-prefix "aifab-bench-$$-a" $(vdevs "$pcap") -- \
		--profile "$PROFILE" --set general.mbufs="$n" "${set[@]}" \
		--duration "$DUR" --quiet --report-json "$out.json" \
		>"$out.log" 2>&1; then
		echo fail; return
	fi
	"$PY" - "$out.json" <<-'EOF'
	import json, sys
	r = json.load(open(sys.argv[1]))
	hz = r["tsc_hz"]
	busy = sum(l["busy_cycles"] for l in r["lcores"].values())
	pk = sum(l["packets"] for l in r["lcores"].values())
	rx = sum(p["rx_packets"] for p in r["ports"].values())
	tx = sum(p["tx_packets"] for p in r["ports"].values())
	if pk == 0 or busy == 0:
	    print("fail"); sys.exit()
	print("%.1f %.2f %.2f %.4f %s" % (busy / pk, pk / (busy / hz) / 1e6,
	      pk / r["elapsed_s"] / 1e6, tx / rx if rx else 0, r["end"]))
	EOF
}

# One testpmd run: forward for DUR seconds from "Press enter to exit" on,
# then a newline on stdin stops it and it prints its forward statistics.
# stdout is line-buffered (stdbuf) so that line shows up when it is printed.
run_testpmd() {	# tag pcap n_mbufs data mem
	local tag=$1 pcap=$2 n=$3 data=$4 mem=$5
	local out=$WORK/$tag.testpmd fifo=$WORK/$tag.stdin t=0
	rm -f "$fifo"; mkfifo "$fifo"
	# shellcheck disable=SC2046
	stdbuf -oL -eL "$TESTPMD" -l $LCORES --no-huge -m "$mem" --no-pci \
		--file-prefix "aifab-bench-$$-t" $(vdevs "$pcap") -- \
		--forward-mode=macswap --record-core-cycles --no-flush-rx \
		--total-num-mbufs="$n" --mbuf-size="$data" --max-pkt-len=9000 \
		<"$fifo" >"$out.log" 2>&1 &
	TP_PID=$!
	exec 3>"$fifo"
	until grep -q "Press enter to exit" "$out.log"; do
		if ! kill -0 "$TP_PID" 2>/dev/null || [ $t -ge 4500 ]; then
			exec 3>&-; wait "$TP_PID" 2>/dev/null || true
			TP_PID=; rm -f "$fifo"
			rm -rf "/var/run/dpdk/aifab-bench-$$-t" 2>/dev/null || true
			echo fail; return
		fi
		sleep 0.02; t=$((t + 1))
	done
	sleep "$DUR"
	echo >&3; exec 3>&-
	wait "$TP_PID" || true
	TP_PID=; rm -f "$fifo"
	rm -rf "/var/run/dpdk/aifab-bench-$$-t" 2>/dev/null || true
	"$PY" - "$out.log" "$DUR" <<-'EOF'
	import re, sys
	s = open(sys.argv[1], errors="replace").read()
	m = re.search(r"CPU cycles/packet=([\d.]+) \(total cycles=(\d+) / "
	              r"total \w+ packets=(\d+)\) at (\d+) MHz", s)
	if not m:
	    print("fail"); sys.exit()
	cpp, cyc, pk, mhz = float(m[1]), int(m[2]), int(m[3]), int(m[4])
	print("%.1f %.2f %.2f" % (cpp, pk / (cyc / (mhz * 1e6)) / 1e6,
	      pk / float(sys.argv[2]) / 1e6))
	EOF
}

better() {	# "cpp ..." "cpp ..." -> the one with fewer cycles/packet
	case $1 in fail|nomem|"") echo "$2"; return ;; esac
	case $2 in fail|nomem|"") echo "$1"; return ;; esac
	awk -v a="$1" -v b="$2" 'BEGIN { split(a, x); split(b, y);
		print (x[1] + 0 <= y[1] + 0) ? a : b }'
}

human() {	# flows -> 1, 1k, 1M
	case $1 in
	*000000) echo "$(( $1 / 1000000 ))M" ;;
	*000) echo "$(( $1 / 1000 ))k" ;;
	*) echo "$1" ;;
	esac
}

cpu=$(grep -m1 "model name" /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//')
bt=$(meson introspect --buildoptions "$(dirname "$(dirname "$AIFAB")")" \
     2>/dev/null | "$PY" -c 'import json,sys
print([o["value"] for o in json.load(sys.stdin) if o["name"] == "buildtype"][0])' \
     2>/dev/null || echo "?")
echo "# dpdk-aifab bench, $(date -u +%Y-%m-%dT%H:%MZ)"
echo "# $cpu, $(nproc) cores; DPDK $(pkg-config --modversion libdpdk 2>/dev/null || echo ?);" \
     "aifab $("$AIFAB" --version 2>/dev/null | head -1) ($bt build)"
echo "# 1 forwarding core each (-l $LCORES), --no-huge, net_pcap infinite_rx in," \
     "net_null out; ${DUR}s per run, best of $REPS; profile bench/leaf-800g.ini"
echo
echo "| case | aifab cycles/pkt | aifab Mpps/core (busy; wall) | testpmd cycles/pkt | testpmd Mpps (busy; wall) | ratio | aim |"
echo "|---|---:|---:|---:|---:|---:|---|"

notes=()
status=0
IFS=, read -ra case_list <<<"$CASES"
for c in "${case_list[@]}"; do
	size=${c%%:*} flows=${c##*:} eff=$flows data=2176
	if [ "$size" -gt 1900 ]; then
		data=$(( (size + 128 + 127) / 128 * 128 ))
		if [ "$flows" -gt "$FLOW_CAP_4K" ]; then
			eff=$FLOW_CAP_4K
			notes+=("$size B x $(human "$flows") flows replays $eff flows (pcap held in mbufs: $flows x $size B would not fit)")
		fi
	fi
	label="$size B x $(human "$flows")"
	[ "$eff" = "$flows" ] || label="$label ($(human "$eff")*)"
	pcap=$WORK/flows_${size}_${eff}.pcap
	if [ ! -s "$pcap" ] || [ "$BENCH/gen_flows.py" -nt "$pcap" ]; then
		"$PY" "$BENCH/gen_flows.py" --flows "$eff" --size "$size" -o "$pcap"
	fi
	n=$(( eff + 65536 ))
	[ $n -le $AIFAB_MAX_MBUFS ] || n=$AIFAB_MAX_MBUFS
	mem=$(mem_mb "$n" "$data")
	a='' t=''
	for r in $(seq 1 "$REPS"); do
		tag=${size}_${eff}_$r
		a=$(better "$a" "$(run_aifab "$tag" "$pcap" "$n" "$data" "$mem")")
		t=$(better "$t" "$(run_testpmd "$tag" "$pcap" "$n" "$data" "$mem")")
	done
	read -r acpp abusy awall afwd aend <<<"$a"
	read -r tcpp tbusy twall <<<"$t"
	case $t in fail|"") tcol="failed (see $WORK/${size}_${eff}_*.testpmd.log)"; tcpp= ; status=1 ;;
	*) tcol="$tbusy; $twall" ;; esac
	case $a in
	nomem) acpp="n/a"; acol="n/a: needs a >4 KB mbuf data room"; ratio="-"; aim="not measured"
	       notes+=("$size B: the app's mbufs hold 2048 B and net_pcap infinite_rx refuses chained mbufs; no [general] mbuf data-room key yet") ;;
	fail|"") acpp="failed"; acol="see $WORK/${size}_${eff}_*.aifab.log"; ratio="-"; aim="-"; status=1 ;;
	*)	acol="$abusy; $awall"
		[ "$aend" = duration ] || notes+=("$label: aifab run ended by '$aend', not by --duration")
		awk -v f="$afwd" 'BEGIN { exit !(f < 0.999) }' &&
			notes+=("$label: aifab sent only $afwd of what it received")
		if [ -n "$tcpp" ]; then
			ratio=$(awk -v a="$acpp" -v t="$tcpp" 'BEGIN { printf "%.2fx", a / t }')
		else ratio="-"; fi
		if [ "$size" -le 128 ]; then
			aim=$(awk -v a="$acpp" -v t="$tcpp" 'BEGIN {
				if (t == "") print "-"; else if (a <= 2 * t) print "met (<= 2x)";
				else print "missed (> 2x)" }')
		else
			aim=$(awk -v m="$abusy" 'BEGIN {
				print (m >= 12.1) ? "met (>= 12.1 Mpps)" : "missed (< 12.1 Mpps)" }')
		fi ;;
	esac
	echo "| $label | $acpp | $acol | ${tcpp:-failed} | $tcol | $ratio | $aim |"
done
if [ ${#notes[@]} -gt 0 ]; then
	echo
	printf '%s\n' "${notes[@]}" | awk '!seen[$0]++' | sed 's/^/* /'
fi
echo
echo "Mpps busy = packets / (busy cycles / TSC Hz): the rate one core would carry"
echo "if it did nothing else; wall = packets / forwarding time. Logs: $WORK"
exit $status
