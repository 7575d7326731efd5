#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
#
# bench/switch_cg.sh: what one frame costs the switch's real-time path,
# counted by cachegrind rather than timed: instructions (Ir), L1 data
# misses (D1mr reads, D1mw writes) and misses past a 512 KB last level
# (DLmr, DLmw: this host's L2) per frame forwarded, in total and per
# function, on run.sh's vdevs, pcap, profile and 4352 B mbufs; with -b,
# of two binaries side by side. The A/B of a change to the switch, as
# vclock_cg.sh is for the virtual clock. A figure, not a test.
#
#   bench/switch_cg.sh [-a AIFAB] [-b AIFAB] [-c SIZE:FLOWS] [-t SECONDS]
#                      [-n TOP] [-L LL] [-w WORKDIR]
#
#   -a  the binary (default build-rel/app/dpdk-aifab)
#   -b  a second binary: B against A, per frame
#   -c  the case (default 64:1000: 64 B frames, 1000 flows)
#   -t  the shorter run's --duration under valgrind; the longer runs
#       twice as long (default 10)
#   -n  functions listed (default 20, by |Ir|)
#   -L  the last level cachegrind models, SIZE,WAYS,LINE (default
#       524288,8,64: the Zen 3 host's 512 KB L2; 1048576,16,64 for a
#       Zen 5's 1 MB)
#   -w  where the pcap, cachegrind files, reports and logs go
#       (default /tmp/aifab-switch-cg)
#
# Why: on this shared VM one start differs from the next by 10-25% in
# cycles per frame (bench/README, "Starts, not windows"), so a change of a
# few cycles takes dozens of alternated starts to see. What a frame costs
# in instructions does not depend on the machine's pace: net_pcap's
# infinite_rx gives every poll a full burst whatever the speed, and at
# 800 Gb/s the shaper holds nothing back, under valgrind too.
#
# How: each binary forwards the case twice under `valgrind
# --tool=cachegrind --cache-sim=yes --LL=524288,8,64`, for --duration T
# and 2T seconds, the two runs side by side. The longer run less the
# shorter, over the difference of the frames they sent (the report's
# tx_packets of p1..p3, exact at exit), is the cost of one more frame,
# without EAL start-up, set-up and exit. What runs per second rather
# than per frame (the console's and the stats' ticks) is in it, ~50x
# inflated at valgrind's pace (~0.3 M frames/s): `sw_stats_sync_port`
# shows a few instructions and, at 4 KB, 0.5 L2 misses a frame.
#
# Only dpdk-aifab: l3fwd reports nothing at exit and testpmd does not
# stop under valgrind as it does at speed, so their frames cannot be
# counted at the instant their instructions are (run.sh's cycles stay the
# comparison with them).
#
# Read with care: instructions and simulated misses, not cycles: no
# out-of-order overlap, no prefetchers (a prefetch shows as its own
# instruction, not as a miss saved), no store-forwarding stalls, and no
# AVX-512 (valgrind offers none). A change that saves instructions may not
# save time, nor the reverse; run.sh's figures stay the verdict.
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
BENCH=$ROOT/bench
PY=/usr/bin/python3
A=$ROOT/build-rel/app/dpdk-aifab
B=
CASE=64:1000
T=10
TOP=20
WORK=/tmp/aifab-switch-cg
DATA=4352
LL=524288,8,64

# shellcheck source=bench/common.sh
. "$BENCH/common.sh"
bench_options "a:A b:B c:CASE t:T n:TOP L:LL w:WORK" 53 "$@"
case $LL in
*[!0-9,]*|*,*,*,*|,*|*,) echo "bench: -L $LL: SIZE,WAYS,LINE, e.g. 1048576,16,64" >&2; exit 2 ;;
esac
case $T in ""|*[!0-9]*|0*) echo "bench: -t $T: whole seconds, 1 or more" >&2; exit 2 ;; esac
size=${CASE%%:*} flows=${CASE#*:}
case $size:$flows in
*[!0-9:]*|:*|*:) echo "bench: -c $CASE: SIZE:FLOWS, e.g. 64:1000" >&2; exit 2 ;;
esac
cg_ready "$A" "$B" "$WORK"
pcap=$WORK/flows_${size}_${flows}.pcap
if [ ! -s "$pcap" ] || [ "$BENCH/gen_flows.py" -nt "$pcap" ]; then
	"$PY" "$BENCH/gen_flows.py" --flows "$flows" --size "$size" -o "$pcap"
fi
# run.sh's pool: the pcap's mbufs (infinite_rx holds them) and 64k more
n=$((flows + 65536))
mem=$(mem_mb "$n" "$DATA")

# one TAG BIN SECONDS: one cachegrind run; its files are WORK/TAG.*
one() {
	valgrind --tool=cachegrind --cache-sim=yes --LL="$LL" \
		--cachegrind-out-file="$WORK/$1.cg" "$2" -l 0,1 --no-huge \
		-m "$mem" --no-pci --file-prefix "aifab-scg-$$-$1" \
		--vdev "net_pcap0,rx_pcap=$pcap,infinite_rx=1" \
		--vdev net_null1,no-rx=1 --vdev net_null2,no-rx=1 \
		--vdev net_null3,no-rx=1 -- --profile "$BENCH/leaf-800g.ini" \
		--set general.mbufs="$n" --set general.mbuf_data_bytes="$DATA" \
		--duration "$3" --quiet --report-json "$WORK/$1.json" \
		>"$WORK/$1.log" 2>&1 ||
		{ echo "bench: $1 failed (see $WORK/$1.log)" >&2; return 1; }
}

# the two runs of A (and of B), each binary's side by side
cg_pairs "$A" "$B" "$T"

printf '# bench/switch_cg.sh, %s; %s B x %s flows, %s s and %s s; %s; last level modelled as %s (size, ways, line)\n\n' \
	"$(date -u +%Y-%m-%dT%H:%MZ)" "$size" "$flows" "$T" $((2 * T)) \
	"$(valgrind --version)" "$LL"
# shellcheck disable=SC2086  # CG_COLS: one word per binary
BENCH="$ROOT/bench" "$PY" - "$WORK" "$TOP" $CG_COLS <<'PYEOF'
import json, os, sys

sys.path.insert(0, os.environ["BENCH"])
import cgfile  # noqa: E402

work, top = sys.argv[1], int(sys.argv[2])
cols = sys.argv[3:]          # "A", or "A B"
EV = ("Ir", "D1mr", "D1mw", "DLmr", "DLmw")


def frames(tag):
    """Frames the switch sent: tx_packets of p1..p3, at exit."""
    ports = json.load(open("%s/%s.json" % (work, tag)))["ports"]
    return sum(ports[p]["tx_packets"] for p in ("p1", "p2", "p3"))


cgfile.report({c: cgfile.marginal(work, c, EV, frames) for c in cols}, EV,
              "frame", "long - short run", ("Ir", "D1mr", "DLmr"), top)
PYEOF
