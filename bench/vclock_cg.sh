#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
#
# bench/vclock_cg.sh: what a frame-hop of the virtual clock costs, counted
# by cachegrind rather than timed: instructions (Ir) and L1 data misses
# (D1mr reads, D1mw writes) per frame-hop of the 400G demo, in total and
# per function; with -b, of two binaries side by side. A figure, not a
# test.
#
#   bench/vclock_cg.sh [-a AIFAB] [-b AIFAB] [-s MiB] [-n TOP] [-w WORKDIR]
#
#   -a  the binary (default build-rel/app/dpdk-aifab)
#   -b  a second binary: the table is B against A, per frame-hop (the
#       A/B of a change)
#   -s  the smaller message, MiB (default 8); the larger is twice that
#   -n  functions listed (default 25, by |Ir|)
#   -w  where the cachegrind files, reports and logs go
#       (default /tmp/aifab-vclock-cg)
#
# Why: on this shared VM one start of the demo differs from the next by
# up to +-20% in cycles per frame-hop (bench/README, "Starts, not
# windows"), so a change of a few percent takes dozens of alternated
# starts to see (bench/vclock.sh, abv-style pairs). On the virtual clock
# the run is the same instructions every time, whatever the machine's
# pace: two runs of one binary agree to ~0.01% in Ir and ~0.1% in D1
# misses (set-up, addresses), so a change shows to the instruction.
#
# What: each binary runs the demo at 8 x 400G on the virtual clock twice,
# with the message at S and 2S MiB, under `valgrind --tool=cachegrind
# --cache-sim=yes` (the host's L1 and last-level geometry); the
# difference of the two runs over the difference of their frame-hops
# (the report's virtual_clock.frame_hops) is the cost of one more
# frame-hop, without EAL start-up, pool set-up and the report.
#
# Read with care: cachegrind counts instructions and simulated misses,
# not cycles (no L2, no prefetchers, no out-of-order overlap), and
# valgrind does not offer VPCLMULQDQ, so the receive ICRC check runs the
# 128-bit folding (crc_fold4) here. The real-time clock is not measured:
# under valgrind it runs ~50x slower than the TSC it paces by, so its
# bursts, idle polls and retransmit timers are not what they are at speed
# (two runs differed by 45% in Ir per frame-hop). The time figures stay
# bench/vclock.sh's; this says where the clock's work is and whether a
# change moved it.
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
PY=/usr/bin/python3
A=$ROOT/build-rel/app/dpdk-aifab
B=
SMALL=8
TOP=25
WORK=/tmp/aifab-vclock-cg

# shellcheck source=bench/common.sh
. "$ROOT/bench/common.sh"
bench_options "a:A b:B s:SMALL n:TOP w:WORK" 43 "$@"
cg_ready "$A" "$B" "$WORK"

# one TAG BIN MiB: one cachegrind run on the virtual clock; its files are
# WORK/TAG.*
one() {
	# shellcheck disable=SC2046  # demo_speed's words are split on purpose
	valgrind --tool=cachegrind --cache-sim=yes \
		--cachegrind-out-file="$WORK/$1.cg" "$2" --no-huge -m 1024 \
		--no-pci --file-prefix "aifab-vcg-$$-$1" -- \
		--set general.clock=virtual $(demo_speed 400) \
		--set generator.size_bytes=$(($3 * 1048576)) --quiet \
		--report-json "$WORK/$1.json" >"$WORK/$1.log" 2>&1 ||
		{ echo "bench: $1 failed (see $WORK/$1.log)" >&2; return 1; }
}

# the two runs of A (and of B), each binary's side by side
cg_pairs "$A" "$B" "$SMALL"

printf '# bench/vclock_cg.sh, %s; demo 8 x 400G, %s and %s MiB; %s\n\n' \
	"$(date -u +%Y-%m-%dT%H:%MZ)" "$SMALL" $((2 * SMALL)) \
	"$(valgrind --version)"
# shellcheck disable=SC2086  # CG_COLS: one word per binary
BENCH="$ROOT/bench" "$PY" - "$WORK" "$TOP" $CG_COLS <<'PYEOF'
import json, os, sys

sys.path.insert(0, os.environ["BENCH"])
import cgfile  # noqa: E402

work, top = sys.argv[1], int(sys.argv[2])
cols = sys.argv[3:]          # "A", or "A B"
EV = ("Ir", "D1mr", "D1mw")


def hops(tag):
    return json.load(open("%s/%s.json" % (work, tag)))["virtual_clock"][
        "frame_hops"]


cgfile.report({c: cgfile.marginal(work, c, EV, hops) for c in cols}, EV,
              "frame-hop", "large - small run", EV, top)
PYEOF
