#!/usr/bin/python3
"""Seed 004 experiment (model-driven warp/TB-level L1 bypassing) on the fermi platform configured
as the paper's baseline (Table 1: 2 loose round-robin warp schedulers, 16 KB L1, XOR set index).

Steps: HCC/LCC classification from an 8 MB L1 (and a no-L1 run), then baseline vs SWL-best vs
CBWT-best (SWL + PDP) vs MDB-local vs MDB-global, and MDB-global's sensitivity to the L1 size and
the warp scheduler. Writes one CSV row per run, PNG plots and the markdown tables used by
docs/validation/mdb.md.

usage: scripts/mdb_experiment.py [--locsim build/locsim] [--out docs/validation/mdb]
                                 [--jobs 2] [--workloads ATX,MVT,...]
"""
import argparse
import csv
import json
import math
import os
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor

# Paper abbreviation (Table 2) -> (library workload, size arguments, paper class).
WORKLOADS = [
    ("PTF", "particlefilter", {}, "HCC"),
    ("SC", "streamcluster", {}, "HCC"),
    ("BH", "barneshut", {}, "HCC"),
    ("HST", "histogram", {}, "HCC"),
    ("S2K", "syr2k", {"n": 96}, "HCC"),
    ("KMS", "kmeans", {}, "HCC"),
    ("GMV", "gesummv", {}, "HCC"),
    ("ATX", "atax", {}, "HCC"),
    ("MVT", "mvt", {}, "HCC"),
    ("BIC", "bicg", {}, "HCC"),
    ("SCP", "scalarprod", {}, "LCC"),
    ("CVR", "covariance", {}, "LCC"),
    ("LUD", "lud", {}, "LCC"),
    ("SR2", "srad", {}, "LCC"),
    ("2DF", "fdtd2d", {}, "LCC"),
    ("2DV", "conv2d", {}, "LCC"),
]

BASE = {"sm.scheduler": "lrr", "l1d.indexing": "xor"}
SWL_LIMITS = [2, 4, 8, 16, 24, 32]  # 48 (= no limit) is the baseline

CONFIGS = [("base", {}), ("noL1", {"l1d.enabled": "false"}),
           ("L1_8MB", {"l1d.size": "8MiB"}),
           ("MDB-local", {"l1d.bypass": "mdb-local"}),
           ("MDB-global", {"l1d.bypass": "mdb-global"}),
           ("CBWT-K48", {"l1d.pdp": "true"})]
CONFIGS += [(f"SWL-K{k}", {"sm.warp_limit": str(k)}) for k in SWL_LIMITS]
CONFIGS += [(f"CBWT-K{k}", {"sm.warp_limit": str(k), "l1d.pdp": "true"}) for k in SWL_LIMITS]
for size in ("32KiB", "64KiB"):
    CONFIGS.append((f"base-{size}", {"l1d.size": size}))
    CONFIGS.append((f"MDB-global-{size}", {"l1d.size": size, "l1d.bypass": "mdb-global"}))
CONFIGS.append(("base-gto", {"sm.scheduler": "gto"}))
CONFIGS.append(("MDB-global-gto", {"sm.scheduler": "gto", "l1d.bypass": "mdb-global"}))


def available_workloads(locsim):
    out = subprocess.run([locsim, "list", "workloads"], capture_output=True, text=True,
                         env=dict(os.environ, SYSTEMC_DISABLE_COPYRIGHT_MESSAGE="1")).stdout
    return {line.split()[0] for line in out.splitlines() if line and not line[0].isspace()}


def run_one(locsim, job):
    with tempfile.NamedTemporaryFile(suffix=".json", delete=False) as f:
        out = f.name
    cmd = [locsim, "run", "--platform", "fermi", "--workload", job["workload"], "--quiet",
           "--stats-json", out]
    for k, v in job["args"].items():
        cmd += ["--set", f"workload.{k}={v}"]
    for k, v in dict(BASE, **job["sets"]).items():
        cmd += ["--set", f"{k}={v}"]
    env = dict(os.environ, SYSTEMC_DISABLE_COPYRIGHT_MESSAGE="1")
    p = subprocess.run(cmd, capture_output=True, text=True, env=env)
    if p.returncode != 0:
        sys.exit(f"mdb_experiment: {' '.join(cmd)} failed ({p.returncode}): {p.stderr.strip()}")
    with open(out) as f:
        j = json.load(f)
    os.unlink(out)
    ki = j["warp_insts"] / 1000.0
    l1 = j["l1d"]
    loads = l1["accesses"] - l1["stores"] - l1["atomics"]
    return {
        "abbr": job["abbr"], "workload": job["workload"], "paper_class": job["cls"],
        "config": job["config"], "cycles": j["cycles"], "warp_insts": j["warp_insts"],
        "ipc": j["ipc"],
        "hits_pki": l1["hits"] / ki if ki else 0.0,
        "rf_pki": l1["reservation_fails"] / ki if ki else 0.0,
        # MIPC (§7.1c): global memory instructions served per cycle, L1 path and bypass path.
        "mipc": j["sm"]["global_mem_insts"] / j["cycles"] if j["cycles"] else 0.0,
        "l2_pki": j["l2"]["accesses"] / ki if ki else 0.0,
        "dram_pki": (j["dram"]["reads"] + j["dram"]["writes"]) / ki if ki else 0.0,
        "l1_loads": loads, "l1_hits": l1["hits"], "bypassed": l1["bypassed"],
        "reservation_fails": l1["reservation_fails"],
        "mdb_decisions": sum(v for k, v in j.get("mdb", {}).items() if k.startswith("chose_k")),
        "wall_s": j["host"]["wall_s"],
    }


def read_rows(path):
    def conv(v):
        for t in (int, float):
            try:
                return t(v)
            except ValueError:
                pass
        return v
    with open(path) as f:
        return [{k: conv(v) for k, v in row.items()} for row in csv.DictReader(f)]


def geomean(xs):
    xs = [x for x in xs if x > 0]
    return math.exp(sum(math.log(x) for x in xs) / len(xs)) if xs else 0.0


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--locsim", default="build/locsim")
    ap.add_argument("--out", default="docs/validation/mdb")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--workloads", default="", help="comma-separated paper abbreviations")
    ap.add_argument("--from-csv", default="", help="re-make tables and plots from a CSV of runs")
    args = ap.parse_args()

    have = available_workloads(args.locsim)
    chosen = [w for w in WORKLOADS if not args.workloads or w[0] in args.workloads.split(",")]
    missing = [f"{a} ({n})" for a, n, _, _ in chosen if n not in have]
    chosen = [w for w in chosen if w[1] in have]
    if missing:
        print("mdb_experiment: not in the workload library, skipped: " + ", ".join(missing))
    jobs = [dict(abbr=a, workload=n, args=wa, cls=c, config=label, sets=sets)
            for a, n, wa, c in chosen for label, sets in CONFIGS]
    if args.from_csv:
        rows = read_rows(args.from_csv)
        in_csv = {x["abbr"] for x in rows}
        chosen = [w for w in chosen if w[0] in in_csv]
    else:
        print(f"mdb_experiment: {len(jobs)} runs on {args.jobs} host threads", flush=True)
        with ThreadPoolExecutor(max_workers=args.jobs) as pool:
            rows = list(pool.map(lambda j: run_one(args.locsim, j), jobs))
        os.makedirs(args.out, exist_ok=True)
        with open(os.path.join(args.out, "mdb.csv"), "w", newline="") as f:
            w = csv.DictWriter(f, fieldnames=list(rows[0].keys()))
            w.writeheader()
            w.writerows(rows)

    r = {(x["abbr"], x["config"]): x for x in rows}
    abbrs = [a for a, _, _, _ in chosen]

    def speedup(a, cfg, ref="base"):
        return r[(a, cfg)]["ipc"] / r[(a, ref)]["ipc"]

    def best(a, prefix):
        cands = [f"{prefix}-K{k}" for k in SWL_LIMITS]
        if prefix == "CBWT":
            cands.append("CBWT-K48")
        return max(cands, key=lambda c: r[(a, c)]["ipc"])

    cls = {a: ("HCC" if speedup(a, "L1_8MB") > 1.5 else "LCC") for a in abbrs}
    schemes = ["SWL-best", "CBWT-best", "MDB-local", "MDB-global"]

    def cfg_of(a, s):
        return best(a, "SWL") if s == "SWL-best" else best(a, "CBWT") if s == "CBWT-best" else s

    md = ["### Figure 2 and Table 2: classification (IPC normalised to the 16 KB baseline)\n",
          "| workload | no L1 | 8 MB L1 | our class | paper class |", "|---|---|---|---|---|"]
    for a, _, _, c in chosen:
        md.append(f"| {a} | {speedup(a, 'noL1'):.2f} | {speedup(a, 'L1_8MB'):.2f} | {cls[a]} | {c} |")

    md += ["\n### Figure 6: speedup over the baseline\n",
           "| workload | class | " + " | ".join(schemes) + " | SWL-best K | CBWT-best K |",
           "|---|---|" + "---|" * (len(schemes) + 2)]
    for a in abbrs:
        md.append(f"| {a} | {cls[a]} | " +
                  " | ".join(f"{speedup(a, cfg_of(a, s)):.2f}" for s in schemes) +
                  f" | {best(a, 'SWL').split('K')[-1]} | {best(a, 'CBWT').split('K')[-1]} |")
    for group in ("HCC", "LCC"):
        g = [a for a in abbrs if cls[a] == group]
        if g:
            md.append(f"| GM_{group} | | " + " | ".join(
                f"{geomean([speedup(a, cfg_of(a, s)) for a in g]):.2f}" for s in schemes) + " | | |")

    metrics = [("hits_pki", "hits per kilo-instruction"), ("rf_pki", "reservation failures per "
               "kilo-instruction"), ("mipc", "MIPC"), ("l2_pki", "L2 accesses per kilo-instruction")]
    for key, title in metrics:
        md += [f"\n### Figure 7: {title}\n",
               "| workload | base | " + " | ".join(schemes) + " |",
               "|---|---|" + "---|" * len(schemes)]
        for a in abbrs:
            md.append(f"| {a} | {r[(a, 'base')][key]:.3f} | " +
                      " | ".join(f"{r[(a, cfg_of(a, s))][key]:.3f}" for s in schemes) + " |")

    md += ["\n### Figure 8: MDB-global sensitivity (IPC normalised to the 16 KB LRR baseline)\n",
           "| workload | base 32 KB | MDB-g 16 KB | MDB-g 32 KB | base 64 KB | MDB-g 64 KB | "
           "base GTO | MDB-g GTO |", "|---|---|---|---|---|---|---|---|"]
    for a in abbrs:
        md.append(f"| {a} | " + " | ".join(f"{speedup(a, c):.2f}" for c in (
            "base-32KiB", "MDB-global", "MDB-global-32KiB", "base-64KiB", "MDB-global-64KiB",
            "base-gto", "MDB-global-gto")) + " |")
    with open(os.path.join(args.out, "tables.md"), "w") as f:
        f.write("\n".join(md) + "\n")
    print("\n".join(md))

    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("mdb_experiment: python3-matplotlib missing, no plots")
        return

    def bars(fname, title, ylabel, series, labels, hline=None, log=False):
        fig, ax = plt.subplots(figsize=(11, 3.6))
        width = 0.8 / len(series)
        for i, (name, vals) in enumerate(series):
            ax.bar([x + i * width for x in range(len(labels))], vals, width, label=name)
        ax.set_xticks([x + 0.4 - width / 2 for x in range(len(labels))])
        ax.set_xticklabels(labels)
        ax.set_ylabel(ylabel)
        ax.set_title(title)
        if log:
            ax.set_yscale("log")
        if hline is not None:
            ax.axhline(hline, color="black", linewidth=0.8)
        ax.legend(fontsize=8, ncol=min(len(series), 6))
        fig.tight_layout()
        fig.savefig(os.path.join(args.out, fname), dpi=90)
        plt.close(fig)

    bars("fig2_classification.png", "IPC normalised to the 16 KB L1 baseline", "normalised IPC",
         [("no L1", [speedup(a, "noL1") for a in abbrs]),
          ("8 MB L1", [speedup(a, "L1_8MB") for a in abbrs])], abbrs, 1.0, log=True)
    bars("fig6_speedup.png", "Speedup over the baseline", "speedup",
         [(s, [speedup(a, cfg_of(a, s)) for a in abbrs] +
           [geomean([speedup(a, cfg_of(a, s)) for a in abbrs if cls[a] == "HCC"])])
          for s in schemes], abbrs + ["GM_HCC"], 1.0)
    for key, title in metrics:
        bars(f"fig7_{key}.png", title, title,
             [("base", [r[(a, "base")][key] for a in abbrs])] +
             [(s, [r[(a, cfg_of(a, s))][key] for a in abbrs]) for s in schemes], abbrs)
    bars("fig8_sensitivity.png", "MDB-global sensitivity (normalised to 16 KB LRR baseline)",
         "normalised IPC",
         [(c, [speedup(a, c) for a in abbrs]) for c in (
             "MDB-global", "base-32KiB", "MDB-global-32KiB", "base-64KiB", "MDB-global-64KiB",
             "base-gto", "MDB-global-gto")], abbrs, 1.0)


if __name__ == "__main__":
    main()
