#!/usr/bin/env bash
# dpdk-aifab set-up: install Debian packages (idempotent, non-interactive,
# quick when already there), configure and build with meson/ninja, then run.
#
#   tools/setup.sh deps            install what building, running and testing need
#   tools/setup.sh build           install what building and running need, then
#                                  configure + build the release build (build dir:
#                                  $AIFAB_BUILD or ./build; buildtype release,
#                                  -Dtests=false, -Dcpu=$AIFAB_CPU or auto)
#   tools/setup.sh run [ARGS...]   build, then run dpdk-aifab ARGS (none: its embedded default)
#   tools/setup.sh test [ARGS...]  install what the tests need too, build from scratch
#                                  (./build-test, debugoptimized), then meson test ARGS
#                                  (the whole suite), then the same in a second build
#                                  with clang, ASan+UBSan (-Dsanitize=true) and libFuzzer
#                                  (-Dfuzz=true: suite 'fuzz' fuzzes each target)
#   tools/setup.sh bench-deps      install what bench/ needs beyond the build (ns-3 for
#                                  bench/ns3.sh, valgrind for bench/vclock_cg.sh);
#                                  never part of deps/test (CI)
#   tools/setup.sh deb             build the Debian package (debian/) from a copy of
#                                  this tree into $AIFAB_DEB_DIR or ./build-deb:
#                                  dpdk-aifab_<version>_<arch>.deb (+ .dsc, .changes)
#
# Environment: AIFAB_BUILD (build dir), AIFAB_MESON_OPTS (extra meson setup
# options, e.g. -Dsanitize=true), AIFAB_CPU (build/run: -march of the
# release build, e.g. native; default auto: what DPDK was built for),
# AIFAB_TEST_SANITIZE=0 (test: skip the sanitizer + fuzz build),
# AIFAB_FUZZ_SECONDS (test: libFuzzer time per target, default 10),
# AIFAB_DEB_DIR (deb: output directory), AIFAB_DEB_LINTIAN=0 (deb: skip
# lintian).
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${AIFAB_BUILD:-$root/build}
# The test command builds from scratch in its own directory.
[ "${1:-}" = test ] && build=${AIFAB_BUILD:-$root/build-test}

# Build and run: DPDK 22.11 LTS from Debian 12 (dpdk: dpdk-devbind.py;
# dpdk-dev: dpdk-telemetry.py, dpdk-dumpcap, dpdk-testpmd), libpcap,
# libnuma, meson (python3: the man page script).
build_pkgs=(dpdk dpdk-dev libdpdk-dev libpcap-dev libnuma-dev
	meson ninja-build pkg-config gcc python3)
# Tests: cmocka (unit tests); the integration tests judge outputs with
# independent tools (prometheus: promtool; chromium renders the HTML
# report headless; iproute2/ethtool: the lab test's veths).
test_pkgs=(libcmocka-dev tshark python3-scapy prometheus chromium iproute2
	ethtool)
# The sanitizer + fuzz build of the test command: clang 14 and its runtimes
# (ASan, UBSan, LSan, libFuzzer).
test_pkgs+=(clang libclang-rt-14-dev)
# The Debian package (tools/setup.sh deb, tests/integration/test_package.py).
deb_pkgs=(dpkg-dev debhelper fakeroot lintian)
test_pkgs+=("${deb_pkgs[@]}")
# Benchmarks only (bench/ns3.sh: ns-3 3.37 beside the virtual clock; its
# pkg-config files require gsl; bench/vclock_cg.sh: valgrind's cachegrind).
# Not for CI: no test needs them, and ns-3 is large; bench/ns3.sh prints
# this line's command when they are missing.
bench_pkgs=(libns3-dev libgsl-dev g++ valgrind)

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

deps() {	# packages...
	local missing
	mapfile -t missing < <(missing_pkgs "$@")
	if [ "${#missing[@]}" -eq 0 ]; then
		return 0
	fi
	log "installing: ${missing[*]}"
	export DEBIAN_FRONTEND=noninteractive
	as_root apt-get update -qq
	as_root apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
}

build() {	# meson setup options of a new build dir...
	# shellcheck disable=SC2086
	if [ ! -f "$build/build.ninja" ]; then
		meson setup "$build" "$root" "$@" ${AIFAB_MESON_OPTS:-} >/dev/null
	elif [ -n "${AIFAB_MESON_OPTS:-}" ]; then
		meson configure "$build" ${AIFAB_MESON_OPTS} >/dev/null
	fi
	ninja -C "$build" >/dev/null
	log "built $build/app/dpdk-aifab"
}

# The build users run (and bench/ measures): release (-O3, asserts off),
# no tests, -march from -Dcpu. An existing build dir is used as it was
# configured (say so when that is not a release build).
run_build() {
	local bt
	if [ -f "$build/build.ninja" ]; then
		[ -n "${AIFAB_CPU:-}" ] && meson configure "$build" -Dcpu="$AIFAB_CPU" >/dev/null
		bt=$(meson introspect --buildoptions "$build" |
			python3 -c 'import json,sys
print([o["value"] for o in json.load(sys.stdin) if o["name"] == "buildtype"][0])')
		[ "$bt" = release ] ||
			log "$build is a $bt build (configured before); using it as it is (remove it for the release build)"
	fi
	build --buildtype=release -Dtests=false -Dcpu="${AIFAB_CPU:-auto}"
}

# The .deb from a copy of the tree (the tracked files and new ones git does
# not ignore, else all but build*/), so the tree stays clean.
deb() {
	local out=${AIFAB_DEB_DIR:-$root/build-deb} ver src
	ver=$(dpkg-parsechangelog -l "$root/debian/changelog" -S Version)
	mkdir -p "$out"
	out=$(cd "$out" && pwd)
	src=$out/src/dpdk-aifab-$ver
	rm -rf "$out/src"
	mkdir -p "$src"
	if git -C "$root" rev-parse --is-inside-work-tree >/dev/null 2>&1; then
		(cd "$root" && git ls-files -z --cached --others --exclude-standard |
			while IFS= read -r -d '' f; do
				[ -e "$f" ] && printf '%s\0' "$f"
			done | tar --null -T - -cf -) | tar -xf - -C "$src"
	else
		tar -C "$root" --exclude='./build*' --exclude-vcs -cf - . |
			tar -xf - -C "$src"
	fi
	log "building the package in $src"
	(cd "$src" && dpkg-buildpackage -us -uc >"$out/build.log" 2>&1) || {
		tail -30 "$out/build.log" >&2
		log "package build failed: $out/build.log"
		return 1
	}
	rm -f "$out"/dpdk-aifab[_-]*
	mv "$out/src"/dpdk-aifab_* "$out/src"/dpdk-aifab-dbgsym_* "$out/" 2>/dev/null || true
	rm -rf "$out/src"
	if [ "${AIFAB_DEB_LINTIAN:-1}" != 0 ] && command -v lintian >/dev/null; then
		lintian --fail-on error "$out"/dpdk-aifab_"$ver"_*.changes |
			tee "$out/lintian.txt" >&2 || {
			log "lintian found errors: $out/lintian.txt"
			return 1
		}
	fi
	log "built $(ls "$out"/dpdk-aifab_"$ver"_*.deb)"
}

cmd=${1:-build}
[ $# -gt 0 ] && shift
case "$cmd" in
deps)
	deps "${build_pkgs[@]}" "${test_pkgs[@]}"
	;;
build)
	deps "${build_pkgs[@]}"
	run_build
	;;
run)
	deps "${build_pkgs[@]}"
	run_build
	exec "$build/app/dpdk-aifab" "$@"
	;;
deb)
	deps "${build_pkgs[@]}" "${deb_pkgs[@]}"
	deb
	;;
bench-deps)
	deps "${bench_pkgs[@]}"
	;;
test)
	deps "${build_pkgs[@]}" "${test_pkgs[@]}"
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
	echo "usage: $0 deps|build|run [ARGS...]|test [ARGS...]|deb|bench-deps" >&2
	exit 2
	;;
esac
