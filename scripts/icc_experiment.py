#!/usr/bin/python3
"""Seed 001 experiment (intra-cluster coalescing) on the clustered platform.

Runs the paper's workload set (Table 3, from the workload library) under the CTA scheduling
policies, distributed(-block) with and without ICC and the coalesced cache, the intra-cluster
locality window sweep, the cluster-count sensitivity, the merge-table size sweep (48 entries,
§6.2's choice, vs 160, its maximum of 5 SMs x 32 L1 MSHRs) and the control runs the page's
explanations rest on (L1 MSHRs cut to 8 per SM; MM with a doubled L1), then writes one CSV row
per run (with the commit and date measured), PNG plots and the markdown tables used by
docs/validation/icc.md.

usage: scripts/icc_experiment.py [--locsim build/locsim] [--out docs/validation/icc]
                                 [--jobs 2] [--workloads HS,MM,...]
"""
import datetime
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from experiment_common import (arg_parser, bar_plotter, binary_commit, choose,  # noqa: E402
                               geomean, run_all, run_locsim, write_tables)

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
# §6.2: 48 entries (the paper's choice) vs 160, the bound of 5 SMs x 32 L1 MSHRs.
SWEEP_ENTRIES = [160]  # plus the 48 of the main runs
SWEEP_CONFIGS = [("DB+ICC", "distributed-block", ICC), ("DB+ICC+CC", "distributed-block", ICC_CC)]
# Control: 8 L1 MSHRs per SM bound a cluster's outstanding line misses to 5 x 8 = 40 < 48 entries.
MSHR_CONTROL = {"l1d.mshr_entries": "8"}
# Control: MM's distributed-block loss with the L1 doubled (96 KB, 192 sets, same 4 ways).
L1X2_CONTROL = {"l1d.size": "96KiB"}
L1X2_WORKLOADS = ["MM"]

# Per-benchmark figures the paper's text states (§8.1, §8.3), percent change over D; the figures'
# bars are not in the text. (figure, metric, config, {abbr: percent})
PAPER = [
    ("Fig. 10", "IPC", "DB", {"FDTD": 15, "MM": 10, "2DCONV": 7, "HS": 0, "DCT": 0}),
    ("Fig. 10", "IPC", "DB+ICC", {"LUD": 28, "HS": 19, "DCT": 17, "2DCONV": 19}),
    ("Fig. 10", "IPC", "DB+ICC+CC", {"LUD": 67, "2DCONV": 46}),
    ("Fig. 13", "NoC reads", "DB", {"FDTD": -24, "DCT": -15, "MM": -10, "2DCONV": -7}),
    ("Fig. 13", "NoC reads", "DB+ICC",
     {"DCT": -46, "FDTD": -27, "HS": -18, "LUD": -17, "2DCONV": -16}),
    ("Fig. 13", "NoC reads", "DB+ICC+CC",
     {"DCT": -47, "2DCONV": -33, "LUD": -32, "HS": -29, "FDTD": -27}),
]
PAPER_MEAN = {("IPC", "DB"): 4, ("IPC", "DB+ICC"): 10, ("IPC", "DB+ICC+CC"): 15,
              ("NoC reads", "DB"): -7, ("NoC reads", "DB+ICC"): -15,
              ("NoC reads", "DB+ICC+CC"): -20}


def measured(locsim):
    """The simulator's commit (from the binary) and today's date."""
    return binary_commit(locsim), datetime.date.today().isoformat()


MEASURED = ["unknown", ""]  # set in main() from --locsim


def run_one(locsim, job):
    j = run_locsim("icc_experiment", locsim, "clustered", job["workload"], job["args"],
                   dict(job["sets"], **{"dispatcher.policy": job["policy"]}))
    cl = j.get("cluster", {})
    icc = j.get("icc", {})
    ports = j.get("noc_ports", [])
    l1 = j["l1d"]
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
        "merge_full": icc.get("merge_full", 0), "icc_reads": icc.get("reads", 0),
        "merge_allocations": icc.get("merge_allocations", 0),
        "merge_uncovered": icc.get("merge_uncovered", 0),
        "broadcast_stalls": icc.get("broadcast_stalls", 0),
        "broadcast_depth_max": icc.get("broadcast_queue_depth_max", 0),
        "merge_entries": job["sets"].get("icc.merge_entries", "48") if "icc.enabled" in job["sets"]
        else 0,
        "l1d_mshr_entries": int(job["sets"].get("l1d.mshr_entries", 32)),
        "l1d_size": job["sets"].get("l1d.size", "48KiB"),
        "l1d_accesses": l1.get("accesses", 0), "l1d_bypassed": l1.get("bypassed", 0),
        "l1d_rf_mshr_entry": l1.get("rf_mshr_entry", 0),
        "port_req_util_mean": sum(util) / len(util), "port_req_util_max": max(util),
        "port_rep_util_mean": sum(rutil) / len(rutil), "port_rep_util_max": max(rutil),
        "wall_s": j["host"]["wall_s"], "commit": MEASURED[0], "date": MEASURED[1],
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
    for entries in SWEEP_ENTRIES:
        for label, policy, sets in SWEEP_CONFIGS:
            yield dict(base, experiment="entries", config=label, policy=policy,
                       sets=dict(sets, **{"icc.merge_entries": str(entries)}))
    for label, policy, sets in [("D", "distributed", {}), ("DB+ICC", "distributed-block", ICC)]:
        yield dict(base, experiment="mshr8", config=label, policy=policy,
                   sets=dict(sets, **MSHR_CONTROL))
    if abbr in L1X2_WORKLOADS:
        for label, policy, sets in [("D", "distributed", {}), ("DB", "distributed-block", {})]:
            yield dict(base, experiment="l1x2", config=label, policy=policy,
                       sets=dict(sets, **L1X2_CONTROL))


def pct(x):
    return f"{100 * (x - 1):+.1f} %"


def extra_tables(rows, abbrs, main_r, norm_ipc, norm_reads):
    """The paper's stated per-benchmark figures beside ours, the merge-table size sweep, the
    merge_full counts per configuration and the control runs."""
    md = []
    md.append("\n### Paper's per-benchmark figures (§8.1, §8.3) beside ours "
              "(change over D)\n")
    md.append("| figure | metric | config | workload | paper | locsim |")
    md.append("|---|---|---|---|---|---|")
    for fig, metric, cfg, vals in PAPER:
        f = norm_ipc if metric == "IPC" else norm_reads
        for a, v in vals.items():
            if a in abbrs:
                md.append(f"| {fig} | {metric} | {cfg} | {a} | {v:+d} % | {pct(f(a, cfg))} |")
        mean = PAPER_MEAN[(metric, cfg)]
        md.append(f"| {fig} | {metric} | {cfg} | geomean | {mean:+d} % (average) | "
                  f"{pct(geomean([f(a, cfg) for a in abbrs]))} |")

    ent_r = {(r["abbr"], r["config"], 160): r for r in rows if r["experiment"] == "entries"}
    for a in abbrs:
        for cfg, _, _ in SWEEP_CONFIGS:
            ent_r[(a, cfg, 48)] = main_r[(a, cfg)]
    have = all((a, c, n) in ent_r for a in abbrs for c, _, _ in SWEEP_CONFIGS
               for n in [48] + SWEEP_ENTRIES)
    if have:
        def frac(r, k):
            return r[k] / r["icc_reads"] if r["icc_reads"] else 0.0
        md.append("\n### Merge-table size sweep (§6.2): 48 vs 160 entries\n")
        md.append("IPC over D; `full` = reads sent unmerged because the table was full, and "
                  "`merged` = reads merged, both as a share of the reads reaching the ICC "
                  "(the paper: a 160-entry table coalesces 14.5 % of L1 misses, 48 entries "
                  "12 %).\n")
        md.append("| workload | IPC DB+ICC 48 | IPC DB+ICC 160 | IPC DB+ICC+CC 48 | "
                  "IPC DB+ICC+CC 160 | full 48 | full 160 | merged 48 | merged 160 |")
        md.append("|---|---|---|---|---|---|---|---|---|")
        d_ipc = {a: main_r[(a, "D")]["ipc"] for a in abbrs}
        for a in abbrs:
            e = {(c, n): ent_r[(a, c, n)] for c, _, _ in SWEEP_CONFIGS for n in (48, 160)}
            md.append(f"| {a} | {e[('DB+ICC', 48)]['ipc'] / d_ipc[a]:.3f} | "
                      f"{e[('DB+ICC', 160)]['ipc'] / d_ipc[a]:.3f} | "
                      f"{e[('DB+ICC+CC', 48)]['ipc'] / d_ipc[a]:.3f} | "
                      f"{e[('DB+ICC+CC', 160)]['ipc'] / d_ipc[a]:.3f} | "
                      f"{frac(e[('DB+ICC', 48)], 'merge_full'):.3f} | "
                      f"{frac(e[('DB+ICC', 160)], 'merge_full'):.3f} | "
                      f"{frac(e[('DB+ICC', 48)], 'merge_hits'):.3f} | "
                      f"{frac(e[('DB+ICC', 160)], 'merge_hits'):.3f} |")
        gm = [geomean([ent_r[(a, c, n)]["ipc"] / d_ipc[a] for a in abbrs])
              for c in ("DB+ICC", "DB+ICC+CC") for n in (48, 160)]
        mean = [sum(frac(ent_r[(a, "DB+ICC", n)], k) for a in abbrs) / len(abbrs)
                for k in ("merge_full", "merge_hits") for n in (48, 160)]
        md.append("| geomean / mean | " + " | ".join(f"{x:.3f}" for x in gm + mean) + " |")

    md.append("\n### merge_full per configuration (reads sent unmerged, table full)\n")
    md.append("Each pair is from one run: `merge_full` / ICC reads.\n")
    icc_cfgs = ["D+ICC", "D+ICC+CC", "DB+ICC", "DB+ICC+CC"]
    md.append("| workload | " + " | ".join(icc_cfgs) + " |")
    md.append("|---|" + "---|" * len(icc_cfgs))
    for a in abbrs:
        md.append(f"| {a} | " + " | ".join(
            f"{main_r[(a, c)]['merge_full']} / {main_r[(a, c)]['icc_reads']}" for c in icc_cfgs)
            + " |")

    ctl = {(r["abbr"], r["experiment"], r["config"]): r for r in rows
           if r["experiment"] in ("mshr8", "l1x2")}
    if all((a, "mshr8", c) in ctl for a in abbrs for c in ("D", "DB+ICC")):
        md.append("\n### Control: what bounds the reads in flight (L1 MSHRs 32 vs 8 per SM)\n")
        md.append("With 8 MSHRs per L1 a cluster's line misses in flight are at most 5 x 8 = 40, "
                  "fewer than 48 entries; `full` is `merge_full` / ICC reads of DB+ICC; L1 "
                  "bypassed = loads that skip the L1 (and its MSHRs) in that run.\n")
        md.append("| workload | full (32 MSHRs) | full (8 MSHRs) | L1 bypassed (8 MSHRs) | "
                  "IPC D (8/32) | IPC DB+ICC over D (8 MSHRs) |")
        md.append("|---|---|---|---|---|---|")
        for a in abbrs:
            m32, m8, d8 = main_r[(a, "DB+ICC")], ctl[(a, "mshr8", "DB+ICC")], \
                ctl[(a, "mshr8", "D")]
            f32 = m32["merge_full"] / m32["icc_reads"] if m32["icc_reads"] else 0.0
            f8 = m8["merge_full"] / m8["icc_reads"] if m8["icc_reads"] else 0.0
            md.append(f"| {a} | {f32:.3f} | {f8:.3f} | {m8['l1d_bypassed']} | "
                      f"{d8['ipc'] / main_r[(a, 'D')]['ipc']:.3f} | {m8['ipc'] / d8['ipc']:.3f} |")
    l1x = [a for a in abbrs if a in L1X2_WORKLOADS
           and all((a, "l1x2", c) in ctl for c in ("D", "DB"))]
    if l1x:
        md.append("\n### Control: distributed-block with the L1 doubled (48 KB vs 96 KB)\n")
        md.append("| workload | L1 | L1 hit rate D | L1 hit rate DB | L1 misses DB / D | "
                  "IPC DB / D |")
        md.append("|---|---|---|---|---|---|")
        for a in l1x:
            for size, d, db in (("48 KB", main_r[(a, "D")], main_r[(a, "DB")]),
                                ("96 KB", ctl[(a, "l1x2", "D")], ctl[(a, "l1x2", "DB")])):
                def hr(r):
                    acc = r["l1d_hits"] + r["l1d_misses"] + r["l1d_mshr_hits"]
                    return (r["l1d_hits"] + r["l1d_mshr_hits"]) / acc if acc else 0.0
                md.append(f"| {a} | {size} | {hr(d):.3f} | {hr(db):.3f} | "
                          f"{db['l1d_misses'] / d['l1d_misses']:.3f} | "
                          f"{db['ipc'] / d['ipc']:.3f} |")
    return md


def main():
    args = arg_parser(__doc__, "docs/validation/icc").parse_args()
    MEASURED[:] = measured(args.locsim)
    chosen = choose("icc_experiment", WORKLOADS, args.workloads, args.locsim, args.from_csv)
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

    commits = sorted({f"{r.get('commit', '?')} ({r.get('date', '?')})" for r in rows})
    md = [f"Measured at commit {', '.join(commits)} (`scripts/icc_experiment.py`; every run in "
          "`icc.csv`).\n"]
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
    md += extra_tables(rows, abbrs, main_r, norm_ipc, norm_reads)
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
