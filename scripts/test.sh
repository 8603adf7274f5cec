#!/usr/bin/env bash
# Builds everything and runs every test (unit, module, platform, CLI) under ctest.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
export SYSTEMC_DISABLE_COPYRIGHT_MESSAGE=1
cd build && ctest --output-on-failure -j"$(nproc)"
