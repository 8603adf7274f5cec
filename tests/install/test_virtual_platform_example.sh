#!/usr/bin/env bash
# Installs this build into a fresh prefix, builds examples/virtual_platform against the installed
# package (find_package(locsim), nothing from the source or build tree) and runs it: the public
# interface is what is tested. Arguments: BUILD_DIR SOURCE_DIR WORK_DIR.
set -euo pipefail
build=$1 src=$2 work=$3
rm -rf "$work"
mkdir -p "$work"
cmake --install "$build" --prefix "$work/prefix" >/dev/null
# The installed tree must not point back into the source or build tree.
if grep -rqs -e "$src" -e "$build" "$work/prefix/lib/cmake/locsim"; then
  echo "installed package config refers to the source or build tree" >&2
  exit 1
fi
cp -r "$work/prefix/share/locsim/examples/virtual_platform" "$work/example"
cmake -S "$work/example" -B "$work/example-build" -DCMAKE_BUILD_TYPE=Release \
  -DCMAKE_PREFIX_PATH="$work/prefix" >/dev/null
cmake --build "$work/example-build" -j2 >/dev/null
SYSTEMC_DISABLE_COPYRIGHT_MESSAGE=1 "$work/example-build/gpu_vp" | tee "$work/output.txt"
grep -q "virtual platform: all checks passed" "$work/output.txt"
