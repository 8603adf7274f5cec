#!/usr/bin/env bash
# Builds everything and runs every test (unit, module, platform, CLI) under ctest.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
export SYSTEMC_DISABLE_COPYRIGHT_MESSAGE=1
# A single-node Slurm for the sweep's job-array test. Under CI=true it must come up; elsewhere
# its test is skipped with a warning when it cannot.
if slurm=$(scripts/slurm_local.sh start); then
  export "${slurm?}"
elif [ "${CI:-}" = true ]; then
  echo "test.sh: Slurm could not be started (scripts/slurm_local.sh)" >&2
  exit 1
else
  echo "test.sh: warning: no Slurm here; the Slurm test will be skipped" >&2
fi
cd build && ctest --output-on-failure -j"$(nproc)"
