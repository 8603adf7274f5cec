#!/usr/bin/env bash
# Builds the project with AddressSanitizer + UndefinedBehaviorSanitizer in build-asan/ and runs
# the tests there. Any sanitizer report fails the run (halt_on_error). Not part of .ci/run: on two
# cores the build alone takes longer than CI's budget (docs/validation.md, "Sanitizers"); run it
# before a release and after touching memory management, parsers or index arithmetic.
#
#   scripts/sanitize.sh [-j N] [-R REGEX] [--targets "T1 T2 ..."] [--rtl ON|OFF|AUTO]
#
#   -j N        build and test jobs (default: the host's cores)
#   -R REGEX    run only the ctest tests matching REGEX (default: all)
#   --targets   build only these targets (default: all); e.g. "locsim unit_tests cli_tests"
#   --rtl       LOCSIM_RTL for the sanitized build (default: AUTO, as a plain build)
#
# A compiler launcher is taken from CMAKE_CXX_COMPILER_LAUNCHER / CMAKE_C_COMPILER_LAUNCHER in
# the environment (e.g. ccache).
set -euo pipefail
cd "$(dirname "$0")/.."
jobs="$(nproc)"
regex=""
targets=""
rtl="AUTO"
while [ $# -gt 0 ]; do
  case "$1" in
    -j) jobs="$2"; shift 2 ;;
    -j*) jobs="${1#-j}"; shift ;;
    -R) regex="$2"; shift 2 ;;
    --targets) targets="$2"; shift 2 ;;
    --rtl) rtl="$2"; shift 2 ;;
    -h|--help) sed -n '2,16p' "$0"; exit 0 ;;
    *) echo "sanitize.sh: unknown argument '$1' (see --help)" >&2; exit 2 ;;
  esac
done
scripts/setup.sh --deps-only
cmake -S . -B build-asan -DCMAKE_BUILD_TYPE=RelWithDebInfo -DLOCSIM_RTL="$rtl" \
  -DCMAKE_CXX_FLAGS="-fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all" \
  -DCMAKE_EXE_LINKER_FLAGS="-fsanitize=address,undefined" >/dev/null
start=$(date +%s)
if [ -n "$targets" ]; then
  # shellcheck disable=SC2086
  cmake --build build-asan -j"$jobs" --target $targets
else
  cmake --build build-asan -j"$jobs"
fi
built=$(date +%s)
export SYSTEMC_DISABLE_COPYRIGHT_MESSAGE=1
# SystemC's coroutine stacks confuse LeakSanitizer's and ASan's stack bookkeeping; leaks of the
# one-per-process elaboration are not errors.
export ASAN_OPTIONS="detect_leaks=0:detect_stack_use_after_return=0:halt_on_error=1"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1"
cd build-asan
status=0
if [ -n "$regex" ]; then
  ctest --output-on-failure -j"$jobs" --timeout 1500 -R "$regex" || status=$?
else
  ctest --output-on-failure -j"$jobs" --timeout 1500 || status=$?
fi
echo "sanitize.sh: build $((built - start)) s, tests $(($(date +%s) - built)) s" >&2
exit "$status"
