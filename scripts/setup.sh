#!/usr/bin/env bash
# Installs the Debian packages locsim needs (only the missing ones), then configures and builds
# (--deps-only: packages only).
set -euo pipefail
cd "$(dirname "$0")/.."
PKGS="build-essential cmake pkg-config libsystemc-dev libboost-program-options-dev catch2 nlohmann-json3-dev liblzma-dev libmetis-dev libsqlite3-dev sqlite3 slurm-wlm munge python3-matplotlib verilator"
missing=""
for p in $PKGS; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"
done
if [ -n "$missing" ]; then
  SUDO=""
  [ "$(id -u)" -eq 0 ] || SUDO="sudo"
  echo "installing:$missing" >&2
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq $missing
fi
[ "${1:-}" = "--deps-only" ] && exit 0
# LOCSIM_RTL=ON: the Verilated RTL blocks are part of every build this script makes (and of CI).
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release -DLOCSIM_RTL=ON >/dev/null
cmake --build build -j"$(nproc)"
