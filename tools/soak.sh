#!/usr/bin/env bash
# Soak the switch (docs/reliability.md).
#
#   tools/soak.sh [MINUTES] [BUILD_DIR]    default: 10 minutes, ./build
#
# Endless RoCEv2 + UDP load (net_pcap infinite_rx) into p0/p1 towards the
# 1 Gb/s uplinks, so ECN marks and PFC is sent all along; every minute it
# prints RSS, mbufs in use (where DPDK telemetry reports it) and the ports'
# counters, then stops the run with SIGINT mid-traffic and checks the
# report: exit 0, every frame accounted for, no mbuf in use, RSS flat after
# the warm-up (< 5 % + 2 MB). For a sanitizer soak give a -Dsanitize=true
# build dir (tools/setup.sh test leaves one in build-test-san).
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
