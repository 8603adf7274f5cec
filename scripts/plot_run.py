#!/usr/bin/env python3
"""Plots one locsim run: time series from its --samples CSV and per-SM / per-channel bars from
its --stats-json (with --per-instance). Writes PNG files into --out.

  locsim run ... --per-instance --stats-json run.json --sample-interval 10000 --samples run.csv
  scripts/plot_run.py run.json --samples run.csv --out plots/
"""
import argparse
import csv
import json
import os
import re
import sys

try:
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
except ImportError:
    sys.exit("plot_run: matplotlib is missing (Debian python3-matplotlib; run /usr/bin/python3)")


def numbered(instances, prefix):
    """{index: stats} of instances named <prefix><index> (gpu.sm3 -> 3)."""
    out = {}
    for name, stats in instances.items():
        m = re.fullmatch(re.escape(prefix) + r"(\d+)", name)
        if m:
            out[int(m.group(1))] = stats
    return dict(sorted(out.items()))


def bars(path, title, ylabel, labels, series):
    fig, ax = plt.subplots(figsize=(max(6, 0.25 * len(labels) + 2), 3.2))
    width = 0.8 / max(1, len(series))
    for k, (name, values) in enumerate(series):
        ax.bar([i + k * width for i in range(len(labels))], values, width, label=name)
    ax.set_xticks([i + 0.4 - width / 2 for i in range(len(labels))])
    ax.set_xticklabels(labels, fontsize=7)
    ax.set_title(title)
    ax.set_ylabel(ylabel)
    if len(series) > 1:
        ax.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path


def time_series(path, rows):
    edges = [int(rows[0]["cycle_start"])] + [int(r["cycle_end"]) for r in rows]
    panels = [("IPC", [("ipc", "warp instructions / cycle")]),
              ("hit rate", [("l1d_hit_rate", "L1D"), ("l2_hit_rate", "L2")]),
              ("GB/s", [("noc_gbps", "NoC"), ("dram_gbps", "DRAM")]),
              ("CTAs", [("ctas_active", "active")])]
    fig, axes = plt.subplots(len(panels), 1, figsize=(8, 2.0 * len(panels)), sharex=True)
    for ax, (ylabel, cols) in zip(axes, panels):
        for col, label in cols:
            ax.stairs([float(r[col]) for r in rows], edges, label=label)
        ax.set_ylabel(ylabel)
        ax.legend(fontsize=7, loc="upper right")
    axes[-1].set_xlabel("core cycle")
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("json", help="the run's --stats-json file")
    ap.add_argument("--samples", default="", help="the run's --samples CSV file")
    ap.add_argument("--out", default="plots", help="directory for the PNG files")
    a = ap.parse_args()
    try:
        run = json.load(open(a.json))
    except (OSError, ValueError) as e:
        sys.exit(f"plot_run: cannot read {a.json}: {e}")
    os.makedirs(a.out, exist_ok=True)
    written = []
    if a.samples:
        try:
            rows = list(csv.DictReader(open(a.samples)))
        except OSError as e:
            sys.exit(f"plot_run: cannot read {a.samples}: {e}")
        if not rows or "cycle_end" not in rows[0]:
            sys.exit(f"plot_run: {a.samples}: not a locsim --samples file")
        written.append(time_series(os.path.join(a.out, "time_series.png"), rows))
    inst = run.get("instances", {})
    sms = numbered(inst, "gpu.sm")
    if sms:
        written.append(bars(os.path.join(a.out, "per_sm.png"), "Per SM", "warp instructions",
                            [str(i) for i in sms],
                            [("warp instructions", [s.get("warp_insts", 0) for s in sms.values()])]))
    mcs = numbered(inst, "gpu.mc")
    if mcs:
        written.append(bars(os.path.join(a.out, "per_channel.png"), "Per DRAM channel", "bytes",
                            [str(i) for i in mcs],
                            [("read", [m.get("read_bytes", 0) for m in mcs.values()]),
                             ("written", [m.get("write_bytes", 0) for m in mcs.values()])]))
    if not written:
        sys.exit("plot_run: nothing to plot (give --samples, or a JSON written with --per-instance)")
    for w in written:
        print(w)


if __name__ == "__main__":
    main()
