#!/usr/bin/env bash
# dpdk-aifab set-up: install Debian packages (idempotent, non-interactive,
# quick when already there), configure and build with meson/ninja, then run.
#
#   tools/setup.sh deps            install what building and testing need
#   tools/setup.sh build           deps + configure + build  (build dir: $AIFAB_BUILD or ./build)
#   tools/setup.sh run [ARGS...]   build, then run dpdk-aifab ARGS (none: its embedded default)
#   tools/setup.sh test [ARGS...]  build from scratch, then meson test ARGS (the whole suite),
#                                  then the same in a second build with clang,
#                                  ASan+UBSan (-Dsanitize=true) and libFuzzer
#                                  (-Dfuzz=true: suite 'fuzz' fuzzes each target)
#
# Environment: AIFAB_BUILD (build dir), AIFAB_MESON_OPTS (extra meson setup
# options, e.g. -Dsanitize=true), AIFAB_TEST_SANITIZE=0 (test: skip the
# sanitizer + fuzz build), AIFAB_FUZZ_SECONDS (test: libFuzzer time per
# target, default 10).
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${AIFAB_BUILD:-$root/build}
# The test command builds from scratch in its own directory.
[ "${1:-}" = test ] && build=${AIFAB_BUILD:-$root/build-test}

# Build: DPDK 22.11 LTS from Debian 12, libpcap, libnuma, cmocka, meson.
build_pkgs=(dpdk dpdk-dev libdpdk-dev libpcap-dev libnuma-dev libcmocka-dev
	meson ninja-build pkg-config gcc)
# Tests judge outputs with independent tools (prometheus: promtool;
# chromium renders the HTML report headless).
test_pkgs=(tshark python3 python3-scapy prometheus chromium iproute2 ethtool)
# The sanitizer + fuzz build of the test command: clang 14 and its runtimes
# (ASan, UBSan, LSan, libFuzzer).
test_pkgs+=(clang libclang-rt-14-dev)

log() { printf '[setup] %s\n' "$*" >&2; }

as_root() {
	if [ "$(id -u)" -eq 0 ]; then "$@"; else sudo "$@"; fi
}

missing_pkgs() {
	local p
	for p in "$@"; do
		dpkg-query -W -f='${Status}' "$p" 2>/dev/null |
			grep -q 'install ok installed' || printf '%s\n' "$p"
	done
}

deps() {
	local missing
	mapfile -t missing < <(missing_pkgs "${build_pkgs[@]}" "${test_pkgs[@]}")
	if [ "${#missing[@]}" -eq 0 ]; then
		return 0
	fi
	log "installing: ${missing[*]}"
	export DEBIAN_FRONTEND=noninteractive
	as_root apt-get update -qq
	as_root apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
}

build() {
	# shellcheck disable=SC2086
	if [ ! -f "$build/build.ninja" ]; then
		meson setup "$build" "$root" ${AIFAB_MESON_OPTS:-} >/dev/null
	elif [ -n "${AIFAB_MESON_OPTS:-}" ]; then
		meson configure "$build" ${AIFAB_MESON_OPTS} >/dev/null
	fi
	ninja -C "$build" >/dev/null
	log "built $build/app/dpdk-aifab"
}

cmd=${1:-build}
[ $# -gt 0 ] && shift
case "$cmd" in
deps)
	deps
	;;
build)
	deps
	build
	;;
run)
	deps
	build
	exec "$build/app/dpdk-aifab" "$@"
	;;
test)
	deps
	# From scratch, as on a new machine.
	rm -rf "$build"
	build
	meson test -C "$build" --print-errorlogs --num-processes 2 "$@"
	# Again under AddressSanitizer + UndefinedBehaviorSanitizer (no
	# recovery; LeakSanitizer at every exit, tests/lsan.supp), with the
	# fuzz targets fuzzed for a few seconds each (docs/reliability.md).
	if [ "${AIFAB_TEST_SANITIZE:-1}" != 0 ]; then
		san=${build}-san
		rm -rf "$san"
		CC=clang meson setup "$san" "$root" -Dsanitize=true -Dfuzz=true \
			-Dfuzz_seconds="${AIFAB_FUZZ_SECONDS:-10}" >/dev/null
		ninja -C "$san" >/dev/null
		log "built $san (clang, ASan+UBSan, libFuzzer)"
		meson test -C "$san" --print-errorlogs --num-processes 2 "$@"
	fi
	;;
*)
	echo "usage: $0 deps|build|run [ARGS...]|test [ARGS...]" >&2
	exit 2
	;;
esac
