# SPDX-License-Identifier: BSD-3-Clause
# shellcheck shell=bash
#
# bench/common.sh: what the bench/ scripts share. Sourced, not run. The
# functions read the sourcing script's DUR (seconds of a run), WORK
# (logs), LCORES, TESTPMD and PY (a python3).

# bench_options "d:DUR r:REPS ..." LAST "$@": the options, one letter each
# with an argument, each into its variable; -h or a bad option prints the
# script's header comment (lines 3..LAST) and exits 2.
bench_options() {
	local map=$1 last=$2 spec=h o v m
	shift 2
	for m in $map; do spec+="${m%%:*}:"; done
	while getopts "$spec" o "$@"; do
		v=
		for m in $map; do
			if [ "${m%%:*}" = "$o" ]; then v=${m#*:}; fi
		done
		if [ -z "$v" ]; then
			sed -n "3,${last}p" "$0" | sed 's/^# \{0,1\}//'
			exit 2
		fi
		printf -v "$v" '%s' "$OPTARG"
	done
}

# demo_speed GBPS: the --set words giving the demo's 16 ports (s0..s7,
# g0..g7) GBPS Gbit/s, space-separated (for $(...) splitting or read -a).
demo_speed() {
	local i
	for i in 0 1 2 3 4 5 6 7; do
		printf -- '--set port.s%d.speed_gbps=%s --set port.g%d.speed_gbps=%s ' \
			"$i" "$1" "$i" "$1"
	done
}

# Of two results "cpp ...", the one with fewer cycles/packet ("fail",
# "nomem" or "" lose).
better() {
	case $1 in fail|nomem|"") echo "$2"; return ;; esac
	case $2 in fail|nomem|"") echo "$1"; return ;; esac
	awk -v a="$1" -v b="$2" 'BEGIN { split(a, x); split(b, y);
		print (x[1] + 0 <= y[1] + 0) ? a : b }'
}

# testpmd_run TAG MEM_MB MAX_WAIT VDEV_ARGS... -- TESTPMD_ARGS...: one
# dpdk-testpmd run (its log in $WORK/TAG.testpmd.log); prints "cpp
# mpps_busy mpps_wall", or "fail" when it is not forwarding within
# MAX_WAIT x 20 ms. It forwards for DUR seconds from "Press enter to exit"
# on, then a newline on stdin stops it and it prints its forward
# statistics; stdout is line-buffered (stdbuf) so that line shows up when
# it is printed. TP_PID is its pid while it runs.
testpmd_run() {
	local tag=$1 mem=$2 max=$3 t=0
	local out=$WORK/$tag.testpmd fifo=$WORK/$tag.stdin
	shift 3
	rm -f "$fifo"; mkfifo "$fifo"
	# shellcheck disable=SC2086  # LCORES is one word
	stdbuf -oL -eL "$TESTPMD" -l $LCORES --no-huge -m "$mem" --no-pci \
		--file-prefix "aifab-bench-$$-t" "$@" \
		<"$fifo" >"$out.log" 2>&1 &
	TP_PID=$!
	exec 3>"$fifo"
	until grep -q "Press enter to exit" "$out.log"; do
		if ! kill -0 "$TP_PID" 2>/dev/null || [ $t -ge "$max" ]; then
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

# The generator-only profile of generator.sh and gen_oncpu.sh: 2 ranks
# (or N) on two net_null ports at 1600G, open loop, a 4 GiB message.
gen_profile() {	# ib_mtu [ranks collective] -> profile path (in $WORK)
	local ranks=${2:-2} coll=${3:-allreduce_ring}
	local p=$WORK/gen-$1-$ranks-$coll.ini
	cat >"$p" <<-EOF
	; written by bench/common.sh gen_profile
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

# Memory for N mbufs of DATA bytes with --no-huge: EAL's pages are 4 KB and
# a mempool object does not straddle pages, so a 2.4 KB mbuf costs a page.
mem_mb() {	# n data
	local per=$(( ($2 + 256 + 4095) / 4096 * 4096 ))
	echo $(( ($1 * per) / 1048576 + 512 ))
}

# cg_ready A B WORK: the cachegrind A/B scripts' start: valgrind there,
# binary A (and B unless empty) executable, WORK made; else exit 2.
cg_ready() {
	local cg_bin
	if ! command -v valgrind >/dev/null; then
		echo "bench: valgrind is not installed (tools/setup.sh bench-deps)" >&2
		exit 2
	fi
	for cg_bin in "$1" ${2:+"$2"}; do
		[ -x "$cg_bin" ] ||
			{ echo "bench: $cg_bin: not an executable" >&2; exit 2; }
	done
	mkdir -p "$3"
}

# cg_pairs A B N: the sourcing script's one() for the cachegrind A/B
# scripts: "one A.s A N" and "one A.l A 2N" side by side (2 cores), then
# the same for B unless it is empty. CG_COLS gets "A" or "A B". Fails if
# a run did. Its locals are cg_*: one() sees them (bash scopes
# dynamically) and must not find its own names shadowed.
cg_pairs() {
	local cg_n=$3 cg_x cg_bin cg_p1 cg_p2 cg_rc=0
	CG_COLS=
	for cg_x in A B; do
		cg_bin=$1
		[ "$cg_x" = A ] || cg_bin=$2
		[ -n "$cg_bin" ] || continue
		CG_COLS="$CG_COLS $cg_x"
		one "$cg_x.s" "$cg_bin" "$cg_n" &
		cg_p1=$!
		one "$cg_x.l" "$cg_bin" $((2 * cg_n)) &
		cg_p2=$!
		wait "$cg_p1" || cg_rc=1
		wait "$cg_p2" || cg_rc=1
	done
	CG_COLS=${CG_COLS# }
	return $cg_rc
}
