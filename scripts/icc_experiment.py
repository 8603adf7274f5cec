#!/usr/bin/python3
"""Seed 001 experiment (intra-cluster coalescing) on the clustered platform.

Runs the paper's workload set (Table 3, from the workload library) under the CTA scheduling
policies, distributed(-block) with and without ICC and the coalesced cache, the intra-cluster
locality window sweep and the cluster-count sensitivity, then writes one CSV row per run, PNG
plots and the markdown tables used by docs/validation/icc.md.

usage: scripts/icc_experiment.py [--locsim build/locsim] [--out docs/validation/icc]
                                 [--jobs 2] [--workloads HS,MM,...]
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

# Paper abbreviation -> (library workload, size arguments). Sizes are the library defaults except
# fdtd3d, whose default volume has 16 CTAs (too few for 60 SMs).
WORKLOADS = [
    ("HS", "hotspot", {}),
    ("BT", "btree", {}),
    ("BP", "backprop", {}),
    ("BFS", "bfs", {}),
    ("SRAD", "srad", {}),
    ("LUD", "lud", {}),
    ("2DCONV", "conv2d", {}),
    ("MM", "matmul", {}),
    ("NN", "nn", {}),
    ("FDTD", "fdtd3d", {"dimx": 256, "dimy": 128, "dimz": 16}),
    ("DCT", "dct8x8", {}),
]

ICC = {"icc.enabled": "true"}
ICC_CC = {"icc.enabled": "true", "icc.coalesced_cache": "true"}

# (experiment label, policy, extra settings)
MAIN_CONFIGS = [
    ("2LRR", "two-level-rr", {}),
    ("GRR", "global-rr", {}),
    ("GREEDY", "greedy-clustering", {}),
    ("D", "distributed", {}),
    ("D+ICC", "distributed", ICC),
    ("D+ICC+CC", "distributed", ICC_CC),
    ("DB", "distributed-block", {}),
    ("DB+ICC", "distributed-block", ICC),
    ("DB+ICC+CC", "distributed-block", ICC_CC),
]
WINDOWS = [500, 1000]  # plus the default 2000 of the main runs (Figure 3)
# Figures 14/15: 60 SMs as clusters x SMs, merge-table entries scaled with the cluster (§8.4);
# the 6-cluster organisation runs its NoC at 1.9 GHz to keep NoC bandwidth constant.
ORGS = [(15, 4, 40, None), (12, 5, 48, None), (10, 6, 60, None), (6, 10, 96, "1.9GHz")]
ORG_CONFIGS = [("D", "distributed", {}), ("DB+ICC", "distributed-block", ICC),
               ("DB+ICC+CC", "distributed-block", ICC_CC)]


def available_workloads(locsim):
    out = subprocess.run([locsim, "list", "workloads"], capture_output=True, text=True,
                         env=dict(os.environ, SYSTEMC_DISABLE_COPYRIGHT_MESSAGE="1")).stdout
    return {line.split()[0] for line in out.splitlines() if line and not line[0].isspace()}


def run_one(locsim, job):
    with tempfile.NamedTemporaryFile(suffix=".json", delete=False) as f:
        out = f.name
    cmd = [locsim, "run", "--platform", "clustered", "--workload", job["workload"], "--quiet",
           "--stats-json", out, "--set", "dispatcher.policy=" + job["policy"]]
    for k, v in job["args"].items():
        cmd += ["--set", f"workload.{k}={v}"]
    for k, v in job["sets"].items():
        cmd += ["--set", f"{k}={v}"]
    env = dict(os.environ, SYSTEMC_DISABLE_COPYRIGHT_MESSAGE="1")
    p = subprocess.run(cmd, capture_output=True, text=True, env=env)
    if p.returncode != 0:
        sys.exit(f"icc_experiment: {' '.join(cmd)} failed ({p.returncode}): {p.stderr.strip()}")
    with open(out) as f:
        j = json.load(f)
    os.unlink(out)
    cl = j.get("cluster", {})
    icc = j.get("icc", {})
    ports = j.get("noc_ports", [])
    util = [p["request_utilisation"] for p in ports] or [0.0]
    rutil = [p["reply_utilisation"] for p in ports] or [0.0]
    return {
        "abbr": job["abbr"], "workload": job["workload"], "experiment": job["experiment"],
        "config": job["config"], "clusters": job["clusters"], "sms_per_cluster": job["spc"],
        "window": job["window"], "cycles": j["cycles"], "warp_insts": j["warp_insts"],
        "ipc": j["ipc"], "noc_read_requests": j["noc"]["read_requests"],
        "noc_requests": j["noc"]["requests"], "l1d_hits": j["l1d"]["hits"],
        "l1d_misses": j["l1d"]["misses"], "l1d_mshr_hits": j["l1d"]["mshr_hits"],
        "icl": cl.get("icl", 0.0), "icl_line_sharing": cl.get("icl_line_sharing", 0.0),
        "icl_data_sharing": cl.get("icl_data_sharing", 0.0),
        "merge_hits": icc.get("merge_hits", 0), "cc_hits": icc.get("cc_hits", 0),
        "merge_full": icc.get("merge_full", 0),
        "port_req_util_mean": sum(util) / len(util), "port_req_util_max": max(util),
        "port_rep_util_mean": sum(rutil) / len(rutil), "port_rep_util_max": max(rutil),
        "wall_s": j["host"]["wall_s"],
    }


def jobs_for(abbr, workload, args):
    base = dict(abbr=abbr, workload=workload, args=args, clusters=12, spc=5, window=2000)
    for label, policy, sets in MAIN_CONFIGS:
        yield dict(base, experiment="main", config=label, policy=policy, sets=dict(sets))
    for w in WINDOWS:
        yield dict(base, experiment="window", config="D", policy="distributed", window=w,
                   sets={"cluster.locality_window": str(w)})
    for clusters, spc, entries, noc in ORGS:
        if (clusters, spc) == (12, 5):
            continue  # the main runs
        for label, policy, sets in ORG_CONFIGS:
            s = dict(sets, **{"gpu.sms_per_cluster": str(spc), "icc.merge_entries": str(entries)})
            if noc:
                s["clock.noc"] = noc
            yield dict(base, experiment="clusters", config=label, policy=policy, sets=s,
                       clusters=clusters, spc=spc)


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
    ap.add_argument("--out", default="docs/validation/icc")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--workloads", default="", help="comma-separated paper abbreviations")
    ap.add_argument("--from-csv", default="", help="re-make tables and plots from a CSV of runs")
    args = ap.parse_args()

    have = available_workloads(args.locsim)
    chosen = [w for w in WORKLOADS if not args.workloads or w[0] in args.workloads.split(",")]
    missing = [f"{a} ({n})" for a, n, _ in chosen if n not in have]
    chosen = [w for w in chosen if w[1] in have]
    if missing:
        print("icc_experiment: not in the workload library, skipped: " + ", ".join(missing))
    jobs = [j for a, n, wa in chosen for j in jobs_for(a, n, wa)]
    if args.from_csv:
        rows = read_rows(args.from_csv)
        in_csv = {x["abbr"] for x in rows}
        chosen = [w for w in chosen if w[0] in in_csv]
    else:
        print(f"icc_experiment: {len(jobs)} runs on {args.jobs} host threads", flush=True)
        with ThreadPoolExecutor(max_workers=args.jobs) as pool:
            rows = list(pool.map(lambda j: run_one(args.locsim, j), jobs))

        os.makedirs(args.out, exist_ok=True)
        with open(os.path.join(args.out, "icc.csv"), "w", newline="") as f:
            w = csv.DictWriter(f, fieldnames=list(rows[0].keys()))
            w.writeheader()
            w.writerows(rows)

    abbrs = [a for a, _, _ in chosen]
    main_r = {(r["abbr"], r["config"]): r for r in rows if r["experiment"] == "main"}
    win_r = {(r["abbr"], r["window"]): r for r in rows if r["experiment"] == "window"}
    for a in abbrs:
        win_r[(a, 2000)] = main_r[(a, "D")]
    org_r = {(r["abbr"], r["clusters"], r["config"]): r for r in rows
             if r["experiment"] == "clusters"}
    for a in abbrs:
        for label, _, _ in ORG_CONFIGS:
            org_r[(a, 12, label)] = main_r[(a, label)]

    def norm_ipc(a, cfg):
        return main_r[(a, cfg)]["ipc"] / main_r[(a, "D")]["ipc"]

    def norm_reads(a, cfg):
        d = main_r[(a, "D")]["noc_read_requests"]
        return main_r[(a, cfg)]["noc_read_requests"] / d if d else 0.0

    md = []
    md.append("### Figure 3: intra-cluster locality under distributed scheduling\n")
    md.append("| workload | W=500 | W=1000 | W=2000 | line sharing (2000) | data sharing (2000) |")
    md.append("|---|---|---|---|---|---|")
    for a in abbrs:
        r = win_r[(a, 2000)]
        md.append(f"| {a} | {win_r[(a, 500)]['icl']:.3f} | {win_r[(a, 1000)]['icl']:.3f} | "
                  f"{r['icl']:.3f} | {r['icl_line_sharing']:.3f} | {r['icl_data_sharing']:.3f} |")
    md.append(f"| mean | {sum(win_r[(a, 500)]['icl'] for a in abbrs) / len(abbrs):.3f} | "
              f"{sum(win_r[(a, 1000)]['icl'] for a in abbrs) / len(abbrs):.3f} | "
              f"{sum(win_r[(a, 2000)]['icl'] for a in abbrs) / len(abbrs):.3f} | "
              f"{sum(win_r[(a, 2000)]['icl_line_sharing'] for a in abbrs) / len(abbrs):.3f} | "
              f"{sum(win_r[(a, 2000)]['icl_data_sharing'] for a in abbrs) / len(abbrs):.3f} |")

    pol = ["2LRR", "GREEDY", "GRR", "D"]
    md.append("\n### Figures 7 and 8: CTA policies (IPC normalised to D; ICL at W=2000)\n")
    md.append("| workload | " + " | ".join(f"IPC {p}" for p in pol) + " | " +
              " | ".join(f"ICL {p}" for p in pol) + " |")
    md.append("|---|" + "---|" * (2 * len(pol)))
    for a in abbrs:
        md.append(f"| {a} | " + " | ".join(f"{norm_ipc(a, p):.3f}" for p in pol) + " | " +
                  " | ".join(f"{main_r[(a, p)]['icl']:.3f}" for p in pol) + " |")
    md.append("| geomean / mean | " + " | ".join(
        f"{geomean([norm_ipc(a, p) for a in abbrs]):.3f}" for p in pol) + " | " + " | ".join(
        f"{sum(main_r[(a, p)]['icl'] for a in abbrs) / len(abbrs):.3f}" for p in pol) + " |")

    mech = ["D+ICC", "D+ICC+CC", "DB", "DB+ICC", "DB+ICC+CC"]
    md.append("\n### Figures 10 and 13: IPC and NoC read requests normalised to D\n")
    md.append("| workload | " + " | ".join(f"IPC {c}" for c in mech) + " | " +
              " | ".join(f"reads {c}" for c in mech) + " |")
    md.append("|---|" + "---|" * (2 * len(mech)))
    for a in abbrs:
        md.append(f"| {a} | " + " | ".join(f"{norm_ipc(a, c):.3f}" for c in mech) + " | " +
                  " | ".join(f"{norm_reads(a, c):.3f}" for c in mech) + " |")
    md.append("| geomean | " + " | ".join(
        f"{geomean([norm_ipc(a, c) for a in abbrs]):.3f}" for c in mech) + " | " + " | ".join(
        f"{geomean([norm_reads(a, c) for a in abbrs]):.3f}" for c in mech) + " |")

    orgs = [(c, s) for c, s, _, _ in ORGS]
    md.append("\n### Figures 14 and 15: IPC of DB+ICC and DB+ICC+CC over D per organisation "
              "(geomean over workloads)\n")
    md.append("| organisation | DB+ICC | DB+ICC+CC |")
    md.append("|---|---|---|")
    for c, s in orgs:
        vals = []
        for cfg in ("DB+ICC", "DB+ICC+CC"):
            vals.append(geomean([org_r[(a, c, cfg)]["ipc"] / org_r[(a, c, "D")]["ipc"]
                                 for a in abbrs]))
        md.append(f"| {c} x {s} | {vals[0]:.3f} | {vals[1]:.3f} |")
    with open(os.path.join(args.out, "tables.md"), "w") as f:
        f.write("\n".join(md) + "\n")
    print("\n".join(md))

    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("icc_experiment: python3-matplotlib missing, no plots")
        return

    def bars(fname, title, ylabel, series, labels, hline=None):
        fig, ax = plt.subplots(figsize=(10, 3.6))
        n = len(series)
        width = 0.8 / n
        for i, (name, vals) in enumerate(series):
            ax.bar([x + i * width for x in range(len(labels))], vals, width, label=name)
        ax.set_xticks([x + 0.4 - width / 2 for x in range(len(labels))])
        ax.set_xticklabels(labels)
        ax.set_ylabel(ylabel)
        ax.set_title(title)
        if hline is not None:
            ax.axhline(hline, color="black", linewidth=0.8)
        ax.legend(fontsize=8, ncol=min(n, 6))
        fig.tight_layout()
        fig.savefig(os.path.join(args.out, fname), dpi=90)
        plt.close(fig)

    labels = abbrs + ["avg"]
    bars("fig3_icl_window.png", "Intra-cluster locality vs window (distributed)", "ICL",
         [(f"W={w}", [win_r[(a, w)]["icl"] for a in abbrs] +
           [sum(win_r[(a, w)]["icl"] for a in abbrs) / len(abbrs)]) for w in (500, 1000, 2000)],
         labels)
    bars("fig7_policy_ipc.png", "IPC normalised to distributed", "normalised IPC",
         [(p, [norm_ipc(a, p) for a in abbrs] + [geomean([norm_ipc(a, p) for a in abbrs])])
          for p in pol], labels, 1.0)
    bars("fig8_policy_icl.png", "Intra-cluster locality per CTA policy (W=2000)", "ICL",
         [(p, [main_r[(a, p)]["icl"] for a in abbrs] +
           [sum(main_r[(a, p)]["icl"] for a in abbrs) / len(abbrs)]) for p in pol], labels)
    bars("fig10_ipc.png", "IPC normalised to distributed", "normalised IPC",
         [(c, [norm_ipc(a, c) for a in abbrs] + [geomean([norm_ipc(a, c) for a in abbrs])])
          for c in mech], labels, 1.0)
    bars("fig13_noc_reads.png", "NoC read requests normalised to distributed", "normalised reads",
         [(c, [norm_reads(a, c) for a in abbrs] + [geomean([norm_reads(a, c) for a in abbrs])])
          for c in mech], labels, 1.0)
    bars("fig14_15_clusters.png", "IPC over distributed, 60 SMs as clusters x SMs",
         "normalised IPC (geomean)",
         [(cfg, [geomean([org_r[(a, c, cfg)]["ipc"] / org_r[(a, c, "D")]["ipc"] for a in abbrs])
                 for c, _ in orgs]) for cfg in ("DB+ICC", "DB+ICC+CC")],
         [f"{c}x{s}" for c, s in orgs], 1.0)


if __name__ == "__main__":
    main()
