#!/usr/bin/env bash
# Soak the demo fabric with fault injection on (docs/reliability.md).
#
#   tools/soak.sh [MINUTES] [BUILD_DIR]    default: 10 minutes, ./build
#
# The embedded demo (profiles/demo.ini: 8 ranks in closed loop, cabled in
# memory to a leaf) runs its collective until stopped (on the TSC, with
# a 4 MiB message: test_soak.py asks for them), with the leaf's
# fault stage on (loss, every-Nth loss on receive, delay + jitter, CE
# marking, a bandwidth limit); every minute it prints RSS, mbufs in use
# (telemetry /aifab/mempool where the binary has it) and the fabric's
# counters, checked for sanity (sent <= received + generated, drops <=
# received, in flight <= the pools), then stops the run with SIGINT
# mid-traffic and checks the report: exit 0, every frame accounted for,
# every fault acted, no mbuf in use, RSS flat after the warm-up (< 5 % +
# 2 MB). For a sanitizer soak give a -Dsanitize=true build dir
# (tools/setup.sh test leaves one in build-test-san).
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
minutes=${1:-10}
build=${2:-${AIFAB_BUILD:-$root/build}}

if [ ! -x "$build/app/dpdk-aifab" ]; then
	AIFAB_BUILD=$build "$root/tools/setup.sh" build
fi
export AIFAB_SOURCE_ROOT=$root
export LSAN_OPTIONS=${LSAN_OPTIONS:-suppressions=$root/tests/lsan.supp:print_suppressions=0}
cd "$root/tests/integration"
exec /usr/bin/python3 test_soak.py "$build/app/dpdk-aifab" \
	--seconds "$((minutes * 60))" --interval 60 \
	--warmup "$((minutes > 3 ? 120 : 30))"
