#!/usr/bin/env bash
# Builds the whole project with AddressSanitizer + UndefinedBehaviorSanitizer in build-asan/ and
# runs every test there. Any sanitizer report fails the run (halt_on_error). Too slow for every CI
# run on two cores (about 3x the normal build and test time); run it before a release and after
# touching memory management, parsers or index arithmetic.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh >/dev/null
cmake -S . -B build-asan -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DCMAKE_CXX_FLAGS="-fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all" \
  -DCMAKE_EXE_LINKER_FLAGS="-fsanitize=address,undefined" >/dev/null
cmake --build build-asan -j"$(nproc)"
export SYSTEMC_DISABLE_COPYRIGHT_MESSAGE=1
# SystemC's coroutine stacks confuse LeakSanitizer's and ASan's stack bookkeeping; leaks of the
# one-per-process elaboration are not errors.
export ASAN_OPTIONS="detect_leaks=0:detect_stack_use_after_return=0:halt_on_error=1"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1"
cd build-asan && ctest --output-on-failure -j"$(nproc)" --timeout 1500
