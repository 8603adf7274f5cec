#!/usr/bin/env bash
# Profile-guided build of locsim with GCC (docs/performance.md, "Profile-guided optimisation"):
#   1. BUILD-instr: locsim instrumented (-DLOCSIM_PGO=GENERATE), profiles to BUILD/pgo-profile;
#   2. training: that binary runs a set of small built-in workloads on fermi, pascal, volta and
#      the other platforms, and a SAXPY Accel-Sim trace, at sizes other than the benchmark's;
#   3. BUILD: locsim compiled with the profiles (-DLOCSIM_PGO=USE).
# usage: scripts/pgo_build.sh [BUILD_DIR] [extra cmake arguments, e.g. -DLOCSIM_RTL=OFF]
# BUILD_DIR defaults to build-pgo; JOBS (default: nproc) sets the build parallelism. ccache is
# not used: it does not see the profile files the optimised compile reads.
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD=${1:-build-pgo}
[ $# -gt 0 ] && shift
JOBS=${JOBS:-$(nproc)}
INSTR=$BUILD-instr
mkdir -p "$BUILD"
PROFILE=$(cd "$BUILD" && pwd)/pgo-profile
rm -rf "$PROFILE"
common=(-DCMAKE_BUILD_TYPE=Release -DCMAKE_CXX_COMPILER_LAUNCHER= -DLOCSIM_PGO_DIR="$PROFILE" "$@")

echo "pgo_build: instrumented build in $INSTR" >&2
cmake -S . -B "$INSTR" "${common[@]}" -DLOCSIM_PGO=GENERATE -DBUILD_TESTING=OFF >/dev/null
cmake --build "$INSTR" -j"$JOBS" --target locsim

echo "pgo_build: instrumented build ${SECONDS} s; training runs (profiles in $PROFILE)" >&2
t=$SECONDS
L=$INSTR/locsim
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
train() { "$L" run --quiet --stats-json "$TMP/s.json" "$@" >/dev/null; }
for p in fermi pascal volta; do
  for n in 32768 262144; do train --platform $p --workload vecadd --set workload.n=$n; done
  train --platform $p --workload matmul --set workload.n=96
  train --platform $p --workload histogram --set workload.n=32768
  train --platform $p --workload gemm --set workload.n=64
  train --platform $p --workload conv2d --set workload.n=256
  train --platform $p --workload bfs --set workload.nodes=4096
done
for p in clustered mesh mcm; do train --platform $p --workload vecadd --set workload.n=32768; done
python3 -c "import sys; sys.path.insert(0, 'scripts'); import accelsim_traces as a
for g in (16, 40): a.write_saxpy('$TMP', g)"
for p in fermi pascal volta; do
  for g in 16 40; do train --platform $p --trace "$TMP/saxpy_$g/kernelslist.g"; done
done

echo "pgo_build: training $((SECONDS - t)) s; optimised build in $BUILD" >&2
t=$SECONDS
cmake -S . -B "$BUILD" "${common[@]}" -DLOCSIM_PGO=USE >/dev/null
cmake --build "$BUILD" -j"$JOBS" --target locsim
echo "pgo_build: optimised build $((SECONDS - t)) s, $SECONDS s in all" >&2
