#!/usr/bin/env python3
"""Speed benchmark: runs every shipped workload at two sizes (2x apart) on fermi and volta and
reports simulated warp-instructions, memory transactions and cycles per host second, wall time
and peak RSS, plus the wall-time ratio between the two sizes (linearity).

usage: scripts/bench.py [--locsim build/locsim] [--markdown] [--platforms fermi,volta]
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile

# (workload, parameter, small size); the large size is twice the small one.
CASES = [("vecadd", "n", 1 << 20), ("matmul", "n", 256), ("histogram", "n", 1 << 20)]


def run(locsim, platform, workload, param, value):
    with tempfile.NamedTemporaryFile(suffix=".json", delete=False) as f:
        out = f.name
    cmd = [locsim, "run", "--platform", platform, "--workload", workload,
           "--set", f"workload.{param}={value}", "--quiet", "--stats-json", out]
    env = dict(os.environ, SYSTEMC_DISABLE_COPYRIGHT_MESSAGE="1")
    subprocess.run(cmd, check=True, env=env)
    with open(out) as f:
        data = json.load(f)
    os.unlink(out)
    return data


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--locsim", default="build/locsim")
    ap.add_argument("--markdown", action="store_true")
    ap.add_argument("--platforms", default="fermi,volta")
    args = ap.parse_args()
    rows = []
    for platform in args.platforms.split(","):
        for workload, param, small in CASES:
            # matmul's work grows with n^3: scale n by 2^(1/3) so the work doubles.
            large = small * 2 if workload != "matmul" else int(round(small * 2 ** (1 / 3) / 16)) * 16
            res = [run(args.locsim, platform, workload, param, v) for v in (small, large)]
            for v, d in zip((small, large), res):
                h = d["host"]
                rows.append({
                    "platform": platform, "workload": workload, "size": f"{param}={v}",
                    "warp_insts": d["warp_insts"], "cycles": d["cycles"],
                    "wall_s": h["wall_s"], "winst_per_s": h["warp_insts_per_s"],
                    "mem_tx_per_s": h["mem_transactions_per_s"],
                    "cycles_per_s": h["sim_cycles_per_s"], "rss_mb": h["peak_rss_mb"],
                })
            w0, w1 = res[0]["warp_insts"], res[1]["warp_insts"]
            t0, t1 = res[0]["host"]["wall_s"], res[1]["host"]["wall_s"]
            rows[-1]["work_ratio"] = w1 / w0 if w0 else 0
            rows[-1]["time_ratio"] = t1 / t0 if t0 else 0
    hdr = ["platform", "workload", "size", "warp insts", "cycles", "wall s", "M winst/s",
           "M mem-tx/s", "M cycles/s", "peak RSS MB", "work x", "time x"]
    if args.markdown:
        print("| " + " | ".join(hdr) + " |")
        print("|" + "---|" * len(hdr))
    for r in rows:
        cells = [r["platform"], r["workload"], r["size"], str(r["warp_insts"]), str(r["cycles"]),
                 f"{r['wall_s']:.2f}", f"{r['winst_per_s'] / 1e6:.2f}",
                 f"{r['mem_tx_per_s'] / 1e6:.2f}", f"{r['cycles_per_s'] / 1e6:.3f}",
                 f"{r['rss_mb']:.1f}",
                 f"{r['work_ratio']:.2f}" if "work_ratio" in r else "",
                 f"{r['time_ratio']:.2f}" if "time_ratio" in r else ""]
        print(("| " + " | ".join(cells) + " |") if args.markdown else "  ".join(cells))
    return 0


if __name__ == "__main__":
    sys.exit(main())
