#!/usr/bin/python3
"""Seed 003 experiment (PAVER, locality-graph CTA scheduling) on fermi, pascal and volta.

Runs the paper's benchmarks (Table 2, from the workload library at the sizes of the `paver`
preset) under LRR, BCS, MST-TS, k-way-TS and RB-TS on the three platforms (HTW, SYR2K and BFS on
fermi only), plus task stealing off (k-way-TS, RB-TS) and a 48 KB L1 (LRR, RB-TS) on fermi, and a
control with the XOR channel hash (LRR, k-way-TS, RB-TS) on every platform and one with a
linear L1 set index on fermi (LRR, k-way-TS, RB-TS); fermi runs with GPGPU-Sim 4's hashed GTX480
L1 index (`l1d.indexing=fermi-hash`), the simulator the paper used; analyses every
workload's locality graph (`locsim analyze`); writes one CSV row per run, PNG plots and the
markdown tables used by docs/validation/paver.md. About 2 h on two host threads.

usage: scripts/paver_experiment.py [--locsim build/locsim] [--out docs/validation/paver]
                                   [--jobs 2] [--workloads HS,MM,...] [--platforms fermi,...]
"""
import csv
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from experiment_common import (arg_parser, bar_plotter, choose, geomean,  # noqa: E402
                               read_rows, run_all, run_json, run_locsim, write_tables)

# Paper abbreviation -> (library workload, arguments, paper's class, paper's Table 2 SpScore, TBs).
# Sizes: the `paver` preset (Table 2's TB counts where the library reaches them, docs/workloads.md).
PAVER = {"preset": "paver"}
WORKLOADS = [
    ("HS", "hotspot", PAVER, "high", 0.995823097, 1849),
    ("MM", "matmul", PAVER, "high", 0.857988166, 169),
    ("SYRK", "syrk", PAVER, "high", 0.4140625, 256),
    ("SYR2K", "syr2k", PAVER, "high", 0.4140625, 256),
    ("HTW", "heartwall", PAVER, "high", 0.923875433, 51),
    ("BTR", "btree", PAVER, "high", 0.000167, 10000),
    ("SRAD", "srad", PAVER, "high", 0.977020264, 16384),
    ("PF", "pathfinder", PAVER, "low", 0.995689675, 463),
    ("STO", "storegpu", PAVER, "low", 0.99480523, 384),
    ("BFS", "bfs", PAVER, "low", 0.006408691, 3907),
    ("TPACF", "tpacf", PAVER, "low", 0.745055815, 201),
    ("DWT", "dwt2d", PAVER, "low", 0.862603306, 4096),
    ("SPMV", "spmv", PAVER, "low", 0.430555556, 765),
    ("MGS", "mergesort", PAVER, "low", 0.939453125, 32768),
    ("SAD", "sad", PAVER, "none", 1.0, 1584),
    ("BLK", "blackscholes", PAVER, "none", 1.0, 480),
    ("BP", "backprop", PAVER, "none", 1.0, 4096),
]
PLATFORMS = ["fermi", "pascal", "volta"]
POLICIES = [("LRR", "rr"), ("BCS", "bcs"), ("MST-TS", "paver-mst"), ("k-way-TS", "paver-kway"),
            ("RB-TS", "paver-rb")]
SCHEDS = [p for p, _ in POLICIES]
CLASSES = ["high", "low", "none"]
CTL = ("LRR", "k-way-TS", "RB-TS")  # the policies of the control experiments
# Paper, Fig. 11 (speedup over LRR in %, MST-TS / k-way-TS / RB-TS) and Fig. 13 (L2 accesses
# normalised to LRR, %), per platform and class; "all" = every benchmark.
PAPER_SPEEDUP = {
    "fermi": {"high": (2.8, 23.8, 29.0), "low": (1.8, 2.5, 3.8), "none": (-0.15, -0.3, -0.5),
              "all": (1.8, 10.1, 12.6)},
    "pascal": {"high": (10.8, 32.5, 49.1), "low": (0.2, 1.8, 3.7), "all": (3.3, 13.32, 20.49)},
    "volta": {"high": (4.5, 28.6, 41.2), "low": (0.4, 3.5, 3.8), "all": (0.18, 12.4, 17.4)},
}
PAPER_L2 = {
    "fermi": {"high": (78.4, 61.4, 56.7), "low": (95.0, 91.88, 90.22), "all": (89.6, 81.7, 79.3)},
    "pascal": {"high": (79.0, 67.0, 51.59), "low": (94.2, 92.6, 89.1), "all": (89.6, 84.3, 76.94)},
    "volta": {"high": (76.4, 65.0, 59.8), "low": (90.9, 85.5, 85.3), "all": (87.0, 80.5, 78.3)},
}


# The paper ran GPGPU-Sim 4 (its TITAN X and TITAN V configurations first shipped with it), whose
# GTX480 file hashes the L1 set index (-gpgpu_cache:dl1 N:32:128:4,L:L:m:N:H); locsim's fermi
# platform indexes linearly like GPGPU-Sim 3.2.x, which seeds 000, 001 and 004 used.
PLATFORM_SETS = {"fermi": {"l1d.indexing": "fermi-hash"}}


def run_one(locsim, job):
    sets = dict(PLATFORM_SETS.get(job["platform"], {}), **job["sets"])
    sets["dispatcher.policy"] = job["policy"]
    j = run_locsim("paver_experiment", locsim, job["platform"], job["workload"], job["args"], sets)
    p = j.get("paver", {})
    clock = j["config"]["clock.core"]
    hz = float(clock[:-3]) * (1e9 if clock.endswith("GHz") else 1e6)
    return {
        "abbr": job["abbr"], "workload": job["workload"], "platform": job["platform"],
        "experiment": job["experiment"], "config": job["config"], "cycles": j["cycles"],
        "core_hz": hz, "warp_insts": j["warp_insts"], "ipc": j["ipc"],
        "l1d_accesses": j["l1d"]["accesses"], "l1d_miss_rate": j["l1d"]["miss_rate"],
        "l2_accesses": j["l2"]["accesses"], "l2_miss_rate": j["l2"]["miss_rate"],
        "dram_reads": j["dram"]["reads"], "dram_activates": j["dram"]["activates"],
        "analysis_s": j["host"]["cta_policy_analysis_s"], "groups": p.get("groups", 0),
        "steals": p.get("steals", 0), "stolen_ctas": p.get("stolen_ctas", 0),
        "graph_edges": p.get("graph_edges", 0), "graph_weight": p.get("graph_weight", 0),
        "captured_weight": p.get("captured_weight", 0),
        "wall_s": j["host"]["wall_s"],
        # The binary's commit, so that a CSV merged from several builds (--append) says which
        # build measured each row (the tables name it per row).
        "commit": j["host"]["locsim_commit"],
    }


def analyze(locsim, abbr, workload, wargs, platform="fermi"):
    cmd = [locsim, "analyze", "--workload", workload, "--platform", platform]
    for k, v in wargs.items():
        cmd += ["--set", f"workload.{k}={v}"]
    j = run_json("paver_experiment", cmd, "--json")
    ks = j["kernels"]
    return {"abbr": abbr, "ctas": "/".join(str(k["ctas"]) for k in ks),
            "kernels": len(ks), "spscore": j["spscore"], "class": j["locality_class"],
            "edges": sum(k["edges"] for k in ks),
            "x": "/".join(str(k.get("max_ctas_per_sm", "")) for k in ks),
            "build_s": sum(k["build_s"] for k in ks),
            "partition_s": {a: sum(k["schedulers"][a]["partition_s"] for k in ks)
                            for a in ("paver-mst", "paver-kway", "paver-rb")},
            "graph_mib": max(k["build_peak_bytes"] for k in ks) / 2**20,
            "inter": sum(k["reference_classes"]["inter-tb"]["accesses"] +
                         k["reference_classes"]["intra-and-inter-tb"]["accesses"] for k in ks),
            "reads": sum(sum(c["accesses"] for c in k["reference_classes"].values()) for k in ks),
            "classes": {c: sum(k["reference_classes"][c]["accesses"] for k in ks)
                        for c in ("unshared", "intra-tb", "inter-tb", "intra-and-inter-tb")}}


EXPERIMENTS = ["main", "nosteal", "l1_48k", "control", "l1_linear"]
# The three longest runs (100-170 s of host time each at the paper's size on fermi) run in the main
# experiment on fermi only, which keeps the whole experiment near one hour on two host threads.
FERMI_MAIN_ONLY = {"HTW", "SYR2K", "BFS"}


def jobs_for(abbr, workload, wargs, platforms, paper_class):
    base = dict(abbr=abbr, workload=workload, args=wargs)
    for plat in platforms:
        if abbr in FERMI_MAIN_ONLY and plat != "fermi":
            continue
        for label, policy in POLICIES:
            yield dict(base, platform=plat, experiment="main", config=label, policy=policy,
                       sets={})
    if "fermi" in platforms and abbr not in FERMI_MAIN_ONLY:
        for label, policy in (("k-way", "paver-kway"), ("RB", "paver-rb")):
            yield dict(base, platform="fermi", experiment="nosteal", config=label, policy=policy,
                       sets={f"dispatcher.{policy}.steal": "false"})
        for label, policy in (("LRR", "rr"), ("RB-TS", "paver-rb")):
            # GPGPU-Sim's 48 KB Fermi L1 is 64 sets x 6 ways (N:64:128:6), which the hash needs.
            yield dict(base, platform="fermi", experiment="l1_48k", config=label, policy=policy,
                       sets={"l1d.size": "48KiB", "l1d.ways": "6"})
        # Control: fermi with locsim's default linear L1 index instead of GTX480's hash.
        for label, policy in (("LRR", "rr"), ("k-way-TS", "paver-kway"), ("RB-TS", "paver-rb")):
            yield dict(base, platform="fermi", experiment="l1_linear", config=label,
                       policy=policy, sets={"l1d.indexing": "linear"})
    # Control: the same schedules with the memory channel chosen by an XOR hash of the address,
    # which removes channel camping by groups of neighbouring CTAs (see the validation page).
    for plat in platforms:
        if abbr in FERMI_MAIN_ONLY:
            continue
        for label, policy in (("LRR", "rr"), ("k-way-TS", "paver-kway"), ("RB-TS", "paver-rb")):
            yield dict(base, platform=plat, experiment="control", config=label, policy=policy,
                       sets={"mem.channel_hash": "xor"})


def pct(x):
    return f"{100.0 * (x - 1.0):+.1f}%"


def main():
    ap = arg_parser(__doc__, "docs/validation/paver")
    ap.add_argument("--platforms", default=",".join(PLATFORMS))
    ap.add_argument("--experiments", default=",".join(EXPERIMENTS),
                    help="subset of " + ",".join(EXPERIMENTS))
    ap.add_argument("--append", action="store_true",
                    help="keep the rows of <out>/paver.csv that this invocation does not re-run")
    ap.add_argument("--reuse-analysis", action="store_true",
                    help="take Table 2 from <out>/analysis.json instead of re-running `locsim "
                    "analyze` (the graphs do not depend on the timing model)")
    ap.add_argument("--old-commit", default="",
                    help="with --append: the commit of kept rows that have no `commit` column")
    args = ap.parse_args()
    platforms = args.platforms.split(",")
    chosen = choose("paver_experiment", WORKLOADS, args.workloads, args.locsim, args.from_csv)
    exps = args.experiments.split(",")
    jobs = [j for w in chosen for j in jobs_for(w[0], w[1], w[2], platforms, w[3])
            if j["experiment"] in exps]
    old = []
    csv_path = os.path.join(args.out, "paver.csv")
    if args.append and not args.from_csv and os.path.exists(csv_path):
        rerun = {(j["abbr"], j["platform"], j["experiment"], j["config"]) for j in jobs}
        old = [r for r in read_rows(csv_path)
               if (r["abbr"], r["platform"], r["experiment"], r["config"]) not in rerun]
        for r in old:
            if not r.get("commit"):
                if not args.old_commit:  # bad invocation: one line, exit 2
                    print("paver_experiment: kept rows of " + csv_path + " have no commit; "
                          "name their build with --old-commit", file=sys.stderr)
                    sys.exit(2)
                r["commit"] = args.old_commit
    # Longest first, so the two host threads finish together.
    heavy = {"HTW": 0, "SYR2K": 0, "BFS": 0, "SRAD": 1, "SYRK": 1, "MGS": 1, "TPACF": 2,
             "SPMV": 2, "PF": 2}
    jobs.sort(key=lambda j: heavy.get(j["abbr"], 9))
    rows = run_all("paver_experiment", args, jobs, lambda j: run_one(args.locsim, j))
    if old:
        rows = old + rows
        with open(csv_path, "w", newline="") as f:
            w = csv.DictWriter(f, fieldnames=list(rows[-1].keys()))
            w.writeheader()
            w.writerows(rows)
    if args.from_csv or args.append:  # tables for every workload the CSV has
        chosen = [w for w in WORKLOADS if w[0] in {x["abbr"] for x in rows}]
    chosen = [w for w in chosen if w[0] in {x["abbr"] for x in rows}]
    abbrs = [w[0] for w in chosen]
    paper_class = {w[0]: w[3] for w in chosen}
    an_path = os.path.join(args.out, "analysis.json")
    if args.reuse_analysis:
        with open(an_path) as f:
            an = json.load(f)
        an = {a: an[a] for a in abbrs}
    else:
        an = {w[0]: analyze(args.locsim, w[0], w[1], w[2]) for w in chosen}
        os.makedirs(args.out, exist_ok=True)  # --from-csv may name a new directory
        with open(an_path, "w") as f:
            json.dump(an, f, indent=1)

    main_r = {(r["platform"], r["abbr"], r["config"]): r for r in rows
              if r["experiment"] == "main"}
    plats = [p for p in PLATFORMS if any(k[0] == p for k in main_r)]

    def built(rs):
        """The commit(s) (7 digits) that measured the rows rs, as a table cell."""
        return "+".join(sorted({str(r.get("commit") or "?")[:7] for r in rs}))

    def main_rows(p, m):
        return [main_r[(p, a, c)] for a in m for c in SCHEDS]

    def on(p):  # the benchmarks run on platform p
        return [a for a in abbrs if (p, a, "LRR") in main_r]

    def speedup(p, a, c, with_analysis=False):
        base = main_r[(p, a, "LRR")]["cycles"]
        r = main_r[(p, a, c)]
        if not with_analysis:
            return base / r["cycles"]
        hz = r["core_hz"]
        return (base / hz) / (r["cycles"] / hz + r["analysis_s"])

    def control_geomeans(p, m, g):
        """Geomean cells of a control table: k-way-TS and RB-TS over LRR in the main experiment
        (members m of platform p), each followed by the control's (g: per-policy ratios)."""
        return (f"{pct(geomean([speedup(p, a, 'k-way-TS') for a in m]))} | "
                f"{pct(geomean(g['k-way-TS']))} | "
                f"{pct(geomean([speedup(p, a, 'RB-TS') for a in m]))} | "
                f"{pct(geomean(g['RB-TS']))}")

    def l2norm(p, a, c):
        return main_r[(p, a, c)]["l2_accesses"] / max(1, main_r[(p, a, "LRR")]["l2_accesses"])

    def members(cls, p="fermi"):
        return [a for a in on(p) if cls == "all" or paper_class[a] == cls]

    md = []
    md.append("### Table 2: locality graphs (4 B elements) and reference classes (128 B blocks)\n")
    md.append("| benchmark | CTAs | x (fermi) | SpScore paper | SpScore locsim | inter-TB reads "
              "| class paper | class locsim | graph s | partition s (MST/k-way/RB) | peak MiB |")
    md.append("|---|---|---|---|---|---|---|---|---|---|---|")
    for w in chosen:
        a = w[0]
        z = an[a]
        md.append(f"| {a} | {z['ctas']} | {z['x']} | {w[4]:.9f} | {z['spscore']:.9f} | "
                  f"{100.0 * z['inter'] / max(1, z['reads']):.1f}% | {w[3]} | {z['class']} | "
                  f"{z['build_s']:.2f} | " +
                  "/".join(f"{z['partition_s'][k]:.3f}" for k in ("paver-mst", "paver-kway",
                                                                   "paver-rb")) +
                  f" | {z['graph_mib']:.0f} |")

    for p in plats:
        md.append(f"\n### Fig. 11 ({p}): speedup over LRR (cycles)\n")
        md.append("| benchmark | class | " + " | ".join(SCHEDS[1:]) +
                  " | RB-TS incl. analysis | L1 miss LRR | L1 miss RB-TS | commit |")
        md.append("|---|---|" + "---|" * (len(SCHEDS) + 3))
        for a in on(p):
            md.append(f"| {a} | {paper_class[a]} | " +
                      " | ".join(pct(speedup(p, a, c)) for c in SCHEDS[1:]) +
                      f" | {pct(speedup(p, a, 'RB-TS', True))} | "
                      f"{main_r[(p, a, 'LRR')]['l1d_miss_rate']:.3f} | "
                      f"{main_r[(p, a, 'RB-TS')]['l1d_miss_rate']:.3f} | "
                      f"{built(main_rows(p, [a]))} |")
        for cls in CLASSES + ["all"]:
            m = members(cls, p)
            if m:
                md.append(f"| **geomean {cls}** | | " + " | ".join(
                    pct(geomean([speedup(p, a, c) for a in m])) for c in SCHEDS[1:]) +
                    f" | {pct(geomean([speedup(p, a, 'RB-TS', True) for a in m]))} | | | "
                    f"{built(main_rows(p, m))} |")

    def paper_table(title, paper_numbers, ours, fmt):
        md.append(f"\n### {title} (MST-TS / k-way-TS / RB-TS)\n")
        md.append("| platform | class | paper | locsim | commit |")
        md.append("|---|---|---|---|---|")
        for p in plats:
            for cls in CLASSES + ["all"]:
                m = members(cls, p)
                if not m:
                    continue
                paper = paper_numbers.get(p, {}).get(cls)
                ptxt = " / ".join(fmt(v) for v in paper) if paper else "n/a"
                otxt = " / ".join(fmt(ours(p, m, c)) for c in ("MST-TS", "k-way-TS", "RB-TS"))
                md.append(f"| {p} | {cls} | {ptxt} | {otxt} | {built(main_rows(p, m))} |")

    paper_table("Paper vs locsim: geomean speedup over LRR", PAPER_SPEEDUP,
                lambda p, m, c: 100 * (geomean([speedup(p, a, c) for a in m]) - 1),
                lambda v: f"{v:+.1f}%")
    paper_table("Fig. 13: L2 accesses normalised to LRR", PAPER_L2,
                lambda p, m, c: 100 * geomean([l2norm(p, a, c) for a in m]),
                lambda v: f"{v:.1f}%")

    if "fermi" in plats:
        md.append("\n### Fig. 12 (fermi): L1 miss rate, RB-TS relative to LRR (measured at "
                  f"{built(main_rows('fermi', on('fermi')))})\n")
        md.append("| class | paper | locsim |")
        md.append("|---|---|---|")
        for cls, paper in (("high", "-43.3%"), ("low", "-10%"), ("all", "-21%")):
            m = members(cls)
            ratios = [main_r[("fermi", a, "RB-TS")]["l1d_miss_rate"] /
                      main_r[("fermi", a, "LRR")]["l1d_miss_rate"]
                      for a in m if main_r[("fermi", a, "LRR")]["l1d_miss_rate"] > 0]
            if ratios:
                md.append(f"| {cls} | {paper} | {pct(geomean(ratios))} |")
        ns = {(r["abbr"], r["config"]): r for r in rows if r["experiment"] == "nosteal"}
        big = {(r["abbr"], r["config"]): r for r in rows if r["experiment"] == "l1_48k"}
        # A table only for the experiments the rows have (a partial re-run may lack some).
        if ns:
            md.append("\n### Task stealing (fermi): cycles without / with stealing, steals per "
                      "run\n")
            md.append("| benchmark | k-way: no-TS / TS | k-way steals | RB: no-TS / TS | "
                      "RB steals | commit no-TS / TS |")
            md.append("|---|---|---|---|---|---|")
        gk, gr = [], []
        for a in abbrs:
            if (a, "k-way") not in ns:
                continue
            k = ns[(a, "k-way")]["cycles"] / main_r[("fermi", a, "k-way-TS")]["cycles"]
            rb = ns[(a, "RB")]["cycles"] / main_r[("fermi", a, "RB-TS")]["cycles"]
            gk.append(k)
            gr.append(rb)
            md.append(f"| {a} | {k:.3f} | {main_r[('fermi', a, 'k-way-TS')]['steals']} | "
                      f"{rb:.3f} | {main_r[('fermi', a, 'RB-TS')]['steals']} | "
                      f"{built([ns[(a, 'k-way')], ns[(a, 'RB')]])} / "
                      f"{built([main_r[('fermi', a, c)] for c in ('k-way-TS', 'RB-TS')])} |")
        if gk:
            md.append(f"| **geomean** (paper: TS gains +3% k-way, +2% RB) | {geomean(gk):.3f} | | "
                      f"{geomean(gr):.3f} | | |")
        if big:
            md.append("\n### 48 KB L1 on fermi: speedup over LRR with the same L1\n")
            md.append("| benchmark | class | RB-TS (16 KB) | RB-TS (48 KB) | "
                      "LRR 48 KB over LRR 16 KB | commit 16 KB / 48 KB |")
            md.append("|---|---|---|---|---|---|")
        gb = {c: [] for c in CLASSES + ["all"]}
        for a in abbrs:
            if (a, "LRR") not in big:
                continue
            s48 = big[(a, "LRR")]["cycles"] / big[(a, "RB-TS")]["cycles"]
            for c in (paper_class[a], "all"):
                gb[c].append(s48)
            md.append(f"| {a} | {paper_class[a]} | {pct(speedup('fermi', a, 'RB-TS'))} | "
                      f"{pct(s48)} | "
                      f"{pct(main_r[('fermi', a, 'LRR')]['cycles'] / big[(a, 'LRR')]['cycles'])} | "
                      f"{built([main_r[('fermi', a, c)] for c in ('LRR', 'RB-TS')])} / "
                      f"{built([big[(a, 'LRR')], big[(a, 'RB-TS')]])} |")
        for c in CLASSES + ["all"]:
            if gb[c]:
                md.append(f"| **geomean {c}** (paper: RB-TS +16% overall) | | | "
                          f"{pct(geomean(gb[c]))} | | |")
    ctl = {(r["platform"], r["abbr"], r["config"]): r for r in rows
           if r["experiment"] == "control"}
    if ctl:
        md.append("\n### Control: channel chosen by an XOR hash of the address (speedup over LRR "
                  "with the same mapping)\n")
        md.append("| platform | benchmark | class | k-way-TS linear | k-way-TS hashed | "
                  "RB-TS linear | RB-TS hashed | DRAM activates RB-TS / LRR, linear | hashed | "
                  "LRR hashed / linear | commit linear / hashed |")
        md.append("|---|---|---|---|---|---|---|---|---|---|---|")
    for p in plats:
        gh = {c: {k: [] for k in ("k-way-TS", "RB-TS")} for c in CLASSES + ["all"]}
        for a in on(p):
            if (p, a, "LRR") not in ctl:
                continue
            lr = ctl[(p, a, "LRR")]

            def act(r, base):
                return r["dram_activates"] / max(1, base["dram_activates"])
            for k in ("k-way-TS", "RB-TS"):
                for c in (paper_class[a], "all"):
                    gh[c][k].append(lr["cycles"] / ctl[(p, a, k)]["cycles"])
            md.append(f"| {p} | {a} | {paper_class[a]} | {pct(speedup(p, a, 'k-way-TS'))} | "
                      f"{pct(lr['cycles'] / ctl[(p, a, 'k-way-TS')]['cycles'])} | "
                      f"{pct(speedup(p, a, 'RB-TS'))} | "
                      f"{pct(lr['cycles'] / ctl[(p, a, 'RB-TS')]['cycles'])} | "
                      f"{act(main_r[(p, a, 'RB-TS')], main_r[(p, a, 'LRR')]):.2f} | "
                      f"{act(ctl[(p, a, 'RB-TS')], lr):.2f} | "
                      f"{pct(main_r[(p, a, 'LRR')]['cycles'] / lr['cycles'])} | "
                      f"{built([main_r[(p, a, c)] for c in ('LRR', 'k-way-TS', 'RB-TS')])} / "
                      f"{built([ctl[(p, a, c)] for c in ('LRR', 'k-way-TS', 'RB-TS')])} |")
        for c in CLASSES + ["all"]:
            if gh[c]["RB-TS"]:
                m = [a for a in members(c, p) if (p, a, "LRR") in ctl]
                md.append(f"| {p} | **geomean {c}** | | {control_geomeans(p, m, gh[c])} | | | | "
                          f"{built(main_rows(p, m))} / "
                          f"{built([ctl[(p, a, k)] for a in m for k in CTL])} |")
    lin = {(r["abbr"], r["config"]): r for r in rows if r["experiment"] == "l1_linear"}
    if "fermi" in plats and lin:
        md.append("\n### Control (fermi): linear L1 set index instead of GTX480's hash (speedup "
                  "over LRR with the same index)\n")
        md.append("| benchmark | class | k-way-TS hashed | k-way-TS linear | RB-TS hashed | "
                  "RB-TS linear | LRR linear time / hashed | L1 miss rate LRR hashed | linear | "
                  "commit hashed / linear |")
        md.append("|---|---|---|---|---|---|---|---|---|---|")
        gl = {c: {k: [] for k in ("k-way-TS", "RB-TS")} for c in CLASSES + ["all"]}
        for a in on("fermi"):
            if (a, "LRR") not in lin:
                continue
            lr = lin[(a, "LRR")]
            for k in ("k-way-TS", "RB-TS"):
                for c in (paper_class[a], "all"):
                    gl[c][k].append(lr["cycles"] / lin[(a, k)]["cycles"])
            md.append(f"| {a} | {paper_class[a]} | {pct(speedup('fermi', a, 'k-way-TS'))} | "
                      f"{pct(lr['cycles'] / lin[(a, 'k-way-TS')]['cycles'])} | "
                      f"{pct(speedup('fermi', a, 'RB-TS'))} | "
                      f"{pct(lr['cycles'] / lin[(a, 'RB-TS')]['cycles'])} | "
                      f"{lr['cycles'] / main_r[('fermi', a, 'LRR')]['cycles']:.3f} | "
                      f"{main_r[('fermi', a, 'LRR')]['l1d_miss_rate']:.3f} | "
                      f"{lr['l1d_miss_rate']:.3f} | "
                      f"{built([main_r[('fermi', a, c)] for c in CTL])} / "
                      f"{built([lin[(a, c)] for c in CTL])} |")
        for c in CLASSES + ["all"]:
            if gl[c]["RB-TS"]:
                m = [a for a in members(c) if (a, "LRR") in lin]
                md.append(f"| **geomean {c}** | | {control_geomeans('fermi', m, gl[c])} | | | | "
                          f"{built(main_rows('fermi', m))} / "
                          f"{built([lin[(a, k)] for a in m for k in CTL])} |")
    if "fermi" in plats:
        md.append("\n### BCS against LRR (fermi): execution time, x = max CTAs per SM\n")
        md.append("| benchmark | x | BCS time / LRR time | commit |")
        md.append("|---|---|---|---|")
        for a in abbrs:
            lr, bcs = main_r[("fermi", a, "LRR")], main_r[("fermi", a, "BCS")]
            md.append(f"| {a} | {an[a]['x']} | {bcs['cycles'] / lr['cycles']:.3f} | "
                      f"{built([lr, bcs])} |")
    write_tables(args.out, md)

    bars = bar_plotter("paver_experiment", args.out)
    if bars is None:
        return
    for p in plats:
        bars(f"fig11_speedup_{p}.png", f"Speedup over LRR ({p})", "speedup",
             [(c, [speedup(p, a, c) for a in on(p)] +
               [geomean([speedup(p, a, c) for a in members(cls, p)]) for cls in CLASSES])
              for c in SCHEDS[1:]], on(p) + ["high", "low", "none"], 1.0)
        bars(f"fig13_l2_{p}.png", f"L2 accesses normalised to LRR ({p})", "normalised L2 accesses",
             [(c, [l2norm(p, a, c) for a in on(p)] +
               [geomean([l2norm(p, a, c) for a in members(cls, p)]) for cls in CLASSES])
              for c in SCHEDS[1:]], on(p) + ["high", "low", "none"], 1.0)
    if "fermi" in plats:
        bars("fig12_l1_miss_fermi.png", "L1 miss rate (fermi)", "miss rate",
             [(c, [main_r[("fermi", a, c)]["l1d_miss_rate"] for a in abbrs]) for c in SCHEDS],
             abbrs)


if __name__ == "__main__":
    main()
