#!/usr/bin/python3
"""Seed 001 experiment (intra-cluster coalescing) on the clustered platform.

Runs the paper's workload set (Table 3, from the workload library) under the CTA scheduling
policies, distributed(-block) with and without ICC and the coalesced cache, the intra-cluster
locality window sweep and the cluster-count sensitivity, then writes one CSV row per run, PNG
plots and the markdown tables used by docs/validation/icc.md.

usage: scripts/icc_experiment.py [--locsim build/locsim] [--out docs/validation/icc]
                                 [--jobs 2] [--workloads HS,MM,...]
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from experiment_common import (arg_parser, bar_plotter, choose, geomean, run_all,  # noqa: E402
                               run_locsim, write_tables)

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


def run_one(locsim, job):
    j = run_locsim("icc_experiment", locsim, "clustered", job["workload"], job["args"],
                   dict(job["sets"], **{"dispatcher.policy": job["policy"]}))
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


def main():
    args = arg_parser(__doc__, "docs/validation/icc").parse_args()
    chosen = choose("icc_experiment", WORKLOADS, args.workloads, args.locsim)
    jobs = [j for a, n, wa in chosen for j in jobs_for(a, n, wa)]
    rows = run_all("icc_experiment", args, jobs, lambda j: run_one(args.locsim, j))
    chosen = [w for w in chosen if w[0] in {x["abbr"] for x in rows}]

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
    write_tables(args.out, md)

    bars = bar_plotter("icc_experiment", args.out)
    if bars is None:
        return

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
