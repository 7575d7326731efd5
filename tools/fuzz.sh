#!/usr/bin/env bash
# Fuzz every target in tests/fuzz with libFuzzer (docs/reliability.md).
#
#   tools/fuzz.sh [SECONDS] [TARGET...]   default: 60 s each, every target
#
# Builds a clang ASan+UBSan+libFuzzer tree in $AIFAB_FUZZ_BUILD (default
# ./build-fuzz), makes the seed corpus (tests/fuzz/gen_corpus.py), replays
# tests/fuzz/regressions/<target>/, then fuzzes each target for SECONDS.
# The corpus grows in build-fuzz/tests/fuzz/corpus-<target> from run to run;
# a crash is written to build-fuzz/tests/fuzz/crash-<target>-* and the
# script exits 1 naming it. For other libFuzzer flags run the binary
# itself: build-fuzz/tests/fuzz/fuzz_<target> -help=1.
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${AIFAB_FUZZ_BUILD:-$root/build-fuzz}
secs=${1:-60}
[ $# -gt 0 ] && shift
targets=("$@")
[ ${#targets[@]} -eq 0 ] && targets=(pkt switch pfc rc profile gen)

"$root/tools/setup.sh" deps
if [ ! -f "$build/build.ninja" ]; then
	CC=clang meson setup "$build" "$root" -Dsanitize=true -Dfuzz=true >/dev/null
fi
ninja -C "$build" >/dev/null

export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1}
export LSAN_OPTIONS=${LSAN_OPTIONS:-suppressions=$root/tests/lsan.supp:print_suppressions=0}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
export AIFAB_SOURCE_ROOT=$root

declare -A max_len=([pkt]=9400 [switch]=20000 [pfc]=4096 [rc]=4096 [profile]=8192
	[gen]=20000)
rc=0
for t in "${targets[@]}"; do
	echo "== fuzz_$t: $secs s"
	/usr/bin/python3 "$root/tests/fuzz/run_fuzz.py" --target "$t" \
		--exe "$build/tests/fuzz/fuzz_$t" --mode fuzz --seconds "$secs" \
		--max-len "${max_len[$t]:-4096}" --work "$build/tests/fuzz" || rc=1
done
exit $rc
