#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
#
# bench/vclock.sh: simulated frame-hops per wall second of the in-memory
# fabric on the whole-process virtual clock ([general] clock = virtual),
# and the real-time in-memory path's frame rate on the same traffic. One
# core runs everything in virtual time (the main lcore); in real time the
# switch and the generator share lcore 1. Both run on the same CPU (-C):
# the virtual clock's main lcore there, the real-time worker lcore there
# (its main lcore, the console, on another). Prints a Markdown table. A
# figure, not a test.
#
#   bench/vclock.sh [-r ROUNDS] [-c CASES] [-s SCENARIO] [-C CPU] [-w WORKDIR]
#
#   -r  rounds: each round runs every case once, in order (a drift of the
#       machine's pace falls on all cases alike); per case the fastest loop
#       (report elapsed_s) is kept (default 3)
#   -c  cases, comma-separated (default all): demo100 (8 x 100G, 4 MiB
#       ring AllReduce), demo400 (8 x 400G, 64 MiB), demo400-noicrc (the
#       same, [generator] rx_check_icrc = off), scenario (-s), clos
#       (profiles/clos.ini), rt400 and rt400-noicrc (demo400 on the
#       real-time clock)
#   -s  the scenario (profiles/scenarios/NAME.ini; default incast-lossless)
#   -C  the CPU every case's loop runs on (default the highest this
#       shell may use). On a VM two CPUs can differ in pace by half or
#       more, and by the minute (this 2-core host's CPU 0 ran the demo
#       in 0.50-0.84 s while CPU 1 took 0.50 s throughout): a clock
#       compared with the other on another CPU measures the CPUs
#   -w  where reports and logs go (default /tmp/aifab-vclock)
#
# Frame-hops: frames delivered over a link (one cable direction), summed
# over every link: the report's virtual_clock.frame_hops; in real time the
# ports' rx_packets (equal in virtual time). Wall: the report's elapsed_s,
# the run loop only (not EAL start-up or pool set-up). CPU (virtual
# clock only): the loop thread's CPU time over the same span (the console's
# "virtual clock: ... loop CPU S s" line), the fastest of the runs: on a
# loaded machine wall time stretches with the other jobs, CPU time much
# less (in real time the lcores busy-poll: CPU = wall).
#
# With demo400 and rt400 (or their -noicrc pair) among the cases, a line
# after the table gives issue 16's bookkeeping figure: the virtual clock's
# frame-hops per CPU second as a share of the real-time path's per wall
# second, round by round (least, median, greatest) and of the best-of
# figures, against the aim (80%, judged on the median).
#
# Environment: AIFAB (default build-rel/app/dpdk-aifab, built with
# tools/setup.sh build if missing). VCLOCK_ROWS=FILE also appends
# "case clock frame_hops model_ms best_s cpu_s" lines to FILE (bench/ns3.sh
# uses it; cpu_s is "-" in real time).
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
BENCH=$ROOT/bench
PY=/usr/bin/python3
AIFAB=${AIFAB:-$ROOT/build-rel/app/dpdk-aifab}
REPS=3
CASES=demo100,demo400,demo400-noicrc,scenario,clos,rt400,rt400-noicrc
SCEN=incast-lossless
WORK=/tmp/aifab-vclock

# shellcheck source=bench/common.sh
. "$BENCH/common.sh"
CPU=
bench_options "r:REPS c:CASES s:SCEN C:CPU w:WORK" 49 "$@"
# The CPUs this shell may use; the loop's (-C) and another for the
# real-time main lcore (the same one on a 1-CPU machine).
read -ra CPUS <<<"$(taskset -pc $$ | sed 's/.*: //' | tr ',' '\n' |
	awk -F- '{ for (i = $1; i <= ($2 == "" ? $1 : $2); i++) printf "%d ", i }')"
[ -n "$CPU" ] || CPU=${CPUS[${#CPUS[@]} - 1]}
OTHER=$CPU
for c in "${CPUS[@]}"; do [ "$c" = "$CPU" ] || { OTHER=$c; break; }; done
mkdir -p "$WORK"

if [ ! -x "$AIFAB" ]; then
	echo "bench: building $AIFAB" >&2
	AIFAB_BUILD=$(dirname "$(dirname "$AIFAB")") "$ROOT/tools/setup.sh" build
fi

case_args() {	# case: the dpdk-aifab options after --
	case $1 in
	demo100) echo "--set general.clock=virtual $(demo_speed 100) --set generator.size_bytes=4194304" ;;
	demo400) echo "--set general.clock=virtual $(demo_speed 400) --set generator.size_bytes=67108864" ;;
	demo400-noicrc) echo "$(case_args demo400) --set generator.rx_check_icrc=off" ;;
	scenario) echo "--profile $ROOT/profiles/scenarios/$SCEN.ini --set general.clock=virtual" ;;
	clos) echo "--profile $ROOT/profiles/clos.ini --set general.clock=virtual" ;;
	rt400) echo "--set general.clock=realtime $(demo_speed 400) --set generator.size_bytes=67108864" ;;
	rt400-noicrc) echo "$(case_args rt400) --set generator.rx_check_icrc=off" ;;
	*) echo "bench: unknown case $1" >&2; exit 2 ;;
	esac
}

# One run: prints "frame_hops model_ms elapsed_s" (model_ms "-" in real time).
run_one() {	# case round
	local rep=$WORK/$1.$2.json lc="0@$CPU,1@$OTHER"
	case $1 in rt*) lc="0@$OTHER,1@$CPU" ;; esac
	# shellcheck disable=SC2046  # case_args is split on purpose
	if ! "$AIFAB" --file-prefix "aifab-vclock-$$" --lcores "$lc" -- $(case_args "$1") \
		--report-json "$rep" --quiet >"$WORK/$1.$2.log" 2>&1; then
		echo "fail"
		return
	fi
	"$PY" - "$rep" "$WORK/$1.$2.log" <<'PYEOF'
import json, re, sys
r = json.load(open(sys.argv[1]))
vc = r.get("virtual_clock")
hops = vc["frame_hops"] if vc else sum(p["rx_packets"] for p in r["ports"].values())
model = "%.3f" % (vc["model_time_ns"] / 1e6) if vc else "-"
cpu = re.search(r"loop CPU ([0-9.]+) s", open(sys.argv[2]).read())
print(hops, model, r["elapsed_s"], cpu.group(1) if vc and cpu else "-")
PYEOF
}

# shellcheck disable=SC2034  # read by the header
HOST=$(lscpu 2>/dev/null | sed -n 's/^Model name: *//p' | head -1)
printf '# bench/vclock.sh, %s; %s, %s cores, the loops on CPU %s, load %s; %s; best of %s\n\n' \
	"$(date -u +%Y-%m-%dT%H:%MZ)" "${HOST:-cpu}" "$(nproc)" "$CPU" \
	"$(cut -d' ' -f1-3 /proc/loadavg)" "$("$AIFAB" --version 2>/dev/null | head -1)" "$REPS"
printf '| case | clock | model ms | frame-hops | wall s (best) | frame-hops / wall s | loop CPU s (best) | frame-hops / CPU s |\n'
printf '|---|---|---:|---:|---:|---:|---:|---:|\n'
IFS=, read -ra cs <<<"$CASES"
# Rounds outer, cases inner: every case runs once per round, so a drift of
# the machine's pace (other jobs, frequency) falls on all cases alike and a
# round's virtual and real-time runs can be compared (ratio lines below).
declare -A RES
for ((k = 0; k < REPS; k++)); do
	for c in "${cs[@]}"; do
		RES[$c.$k]=$(run_one "$c" "$k")
	done
done
for c in "${cs[@]}"; do
	best='' cpu=-
	for ((k = 0; k < REPS; k++)); do
		r=${RES[$c.$k]}
		[ "$r" = fail ] && continue
		read -r _ _ _ rc <<<"$r"
		if [ "$rc" != - ] && { [ "$cpu" = - ] ||
			awk -v a="$rc" -v b="$cpu" 'BEGIN { exit !(a < b) }'; }; then
			cpu=$rc
		fi
		if [ -z "$best" ] || awk -v a="$r" -v b="$best" \
			'BEGIN { split(a, x); split(b, y); exit !(x[3] < y[3]) }'; then
			best=$r
		fi
	done
	if [ -z "$best" ]; then
		printf '| %s | | | | failed (%s) | |\n' "$c" "$WORK/$c.0.log"
		continue
	fi
	read -r hops model el _ <<<"$best"
	clk=virtual
	case $c in rt*) clk=realtime ;; esac
	[ "$c" = scenario ] && c="scenario $SCEN"
	printf '| %s | %s | %s | %s | %.3f | %s | %s | %s |\n' "$c" "$clk" "$model" \
		"$hops" "$el" "$(awk -v h="$hops" -v e="$el" 'BEGIN { printf "%.0f", h / e }')" \
		"$cpu" "$(awk -v h="$hops" -v e="$cpu" 'BEGIN { if (e + 0 > 0) printf "%.0f", h / e; else printf "-" }')"
	if [ -n "${VCLOCK_ROWS:-}" ]; then
		echo "${c// /:} $clk $hops $model $el $cpu" >>"$VCLOCK_ROWS"
	fi
done

# The virtual clock's bookkeeping against the real-time path (issue 16's
# aim: the virtual clock's frame-hops per CPU second at least 80% of the
# real-time path's per wall second, the same traffic on one core): per
# round, demoN's run against rtN's of the same round; the least, median
# and greatest of the rounds' ratios, and the best-of figures' ratio.
has() { [[ ",$CASES," == *",$1,"* ]]; }
for pair in demo400:rt400 demo400-noicrc:rt400-noicrc; do
	v=${pair%%:*} t=${pair#*:}
	if ! has "$v" || ! has "$t"; then
		continue
	fi
	rows=
	for ((k = 0; k < REPS; k++)); do
		rows="$rows ${RES[$v.$k]// /,}/${RES[$t.$k]// /,}"
	done
	# shellcheck disable=SC2086  # one argument per round
	"$PY" - "$v" "$t" $rows <<'PYEOF'
import statistics, sys
v, t, rows = sys.argv[1], sys.argv[2], sys.argv[3:]
ratios, virt, real = [], [], []
for row in rows:
    a, b = row.split("/")
    a, b = a.split(","), b.split(",")
    if "fail" in (a[0], b[0]) or a[3] == "-" or float(a[3]) <= 0:
        continue
    vr, rr = int(a[0]) / float(a[3]), int(b[0]) / float(b[2])
    virt.append(vr)
    real.append(rr)
    ratios.append(vr / rr)
if not ratios:
    print("\n%s against %s: no round with both" % (v, t))
    sys.exit(0)
med = statistics.median(ratios)
best = max(virt) / max(real)
print("\n%s (per CPU s) against %s (per wall s), %d rounds: %.0f%% / %.0f%% / "
      "%.0f%% (least / median / greatest of the rounds), best of each %.0f%%; "
      "aim >= 80%%: %s" % (v, t, len(ratios), 100 * min(ratios), 100 * med,
                          100 * max(ratios), 100 * best,
                          "met" if med >= 0.8 else "missed"))
PYEOF
done
