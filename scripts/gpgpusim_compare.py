#!/usr/bin/env python3
"""Compares GPGPU-Sim configurations imported with --gpgpusim-config against locsim's own
platforms, parameter by parameter (docs/gpgpusim_import.md).

  scripts/gpgpusim_compare.py [--locsim build/locsim] CONFIG:PLATFORM ...
  e.g. tests/data/gpgpusim/GTX480.config:fermi
"""
import argparse
import re
import subprocess

UNITS = {"": 1, "B": 1, "KiB": 1024, "MiB": 1 << 20, "GiB": 1 << 30,
         "Hz": 1, "kHz": 1e3, "MHz": 1e6, "GHz": 1e9}


def norm(v):
    m = re.fullmatch(r"([0-9.]+)\s*([A-Za-z]*)", v)
    if m and m.group(2) in UNITS:
        x = float(m.group(1)) * UNITS[m.group(2)]
        return int(x) if x == int(x) else x
    return v


def params(locsim, platform, config=None):
    cmd = [locsim, "params", "--platform", platform]
    if config:
        cmd += ["--gpgpusim-config", config]
    out = subprocess.run(cmd, check=True, capture_output=True, text=True).stdout
    vals = {}
    # Fixed columns: the key padded to 55 characters, then the value (empty for an empty
    # string such as mem.bank_bits' default), the unit and the description.
    for line in out.splitlines():
        key = line[:55].strip()
        if "." not in key or " " in key:
            continue
        rest = line[55:]
        vals[key] = rest.split()[0] if rest[:1].strip() else ""
    return vals


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--locsim", default="build/locsim")
    ap.add_argument("pairs", nargs="+")
    a = ap.parse_args()
    for pair in a.pairs:
        config, platform = pair.rsplit(":", 1)
        base, imp = params(a.locsim, platform), params(a.locsim, platform, config)
        print(f"\n### {config} against `{platform}`\n")
        print(f"| parameter | locsim `{platform}` | imported |")
        print("|---|---|---|")
        for k in sorted(base):
            if k.startswith("platform."):
                continue
            if norm(base[k]) != norm(imp.get(k, base[k])):
                print(f"| `{k}` | {base[k] or '(empty)'} | {imp[k] or '(empty)'} |")


if __name__ == "__main__":
    main()
