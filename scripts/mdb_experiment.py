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
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from experiment_common import (arg_parser, bar_plotter, choose, geomean, run_all,  # noqa: E402
                               run_locsim, write_tables)

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


def run_one(locsim, job):
    j = run_locsim("mdb_experiment", locsim, "fermi", job["workload"], job["args"],
                   dict(BASE, **job["sets"]))
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


def main():
    args = arg_parser(__doc__, "docs/validation/mdb").parse_args()
    chosen = choose("mdb_experiment", WORKLOADS, args.workloads, args.locsim)
    jobs = [dict(abbr=a, workload=n, args=wa, cls=c, config=label, sets=sets)
            for a, n, wa, c in chosen for label, sets in CONFIGS]
    rows = run_all("mdb_experiment", args, jobs, lambda j: run_one(args.locsim, j))
    chosen = [w for w in chosen if w[0] in {x["abbr"] for x in rows}]

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
    write_tables(args.out, md)

    bars = bar_plotter("mdb_experiment", args.out)
    if bars is None:
        return

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
