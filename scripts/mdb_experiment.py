#!/usr/bin/python3
"""Seed 004 experiment (model-driven warp/TB-level L1 bypassing) on the fermi platform configured
as the paper's baseline: 15 SMs, 16 KB 4-way L1, GTO warp schedulers (§7.2b: "All the
experiments discussed so far use the Greedy-Then-Oldest (GTO) warp scheduling policy"), XOR set
indexing for the L1 and the L2 (§3, §7.1).

Steps: HCC/LCC classification from an 8 MB L1 (and a no-L1 run), then baseline vs SWL-best vs
CBWT-best (SWL + PDP) vs MDB-local vs MDB-global, each MDB with mdb.scale_hits=true (the
default: sampled hits extrapolated to the whole cache, as the model of §5.3 was fitted) and
false ("-raw": the sampled counts compared as they are), and
MDB-global's sensitivity to the L1 size and the warp scheduler (LRR). Writes one CSV row per run
(mdb.csv), PNG plots, the markdown tables (tables.md) and splices the tables into the generated
section of docs/validation/mdb.md (between the BEGIN/END GENERATED markers), stamped with the
commit and date measured, so the page is re-made by re-running this script.

usage: scripts/mdb_experiment.py [--locsim build/locsim] [--out docs/validation/mdb]
                                 [--jobs 2] [--workloads ATX,MVT,...] [--from-csv F]
                                 [--page docs/validation/mdb.md | --page ''] [--reduced]
"""
import datetime
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from experiment_common import (arg_parser, bar_plotter, binary_commit, choose,  # noqa: E402
                               geomean, run_all, run_locsim, write_tables)

# The Polybench HCC kernels get 3840 rows: 15 CTAs of 256 threads, one per SM, so every SM's L1
# thrashes and all 15 SMs compete for the L2/DRAM as in the paper (the library defaults launch 2
# CTAs). Their row-walk kernels loop over m = 384 columns instead of PolyBench's 4096 to keep the
# whole experiment near 25 minutes on 2 cores: a warp's 32 rows share 32 lines, reused for 32
# iterations, so every 32 columns repeat the same L1 pattern (12 repetitions instead of 128).
# Their column-walk kernels (ATX/MVT kernel 2, BIC kernel 1) then have ceil(384/256) = 2 CTAs.
FILL = {"n": 3840, "m": 384}
# Paper abbreviation (Table 2) -> (library workload, size arguments, paper class, warps resident
# per SM or None). A warp limit at or above the resident warps is no limit: those SWL/CBWT runs
# equal the baseline / CBWT-K48 and are not run twice.
WORKLOADS = [
    ("PTF", "particlefilter", {}, "HCC", None),
    ("SC", "streamcluster", {}, "HCC", None),
    ("BH", "barneshut", {}, "HCC", None),
    ("HST", "histogram", {}, "HCC", None),
    ("S2K", "syr2k", {"n": 96}, "HCC", None),
    ("KMS", "kmeans", {}, "HCC", None),
    ("GMV", "gesummv", FILL, "HCC", 8),
    ("ATX", "atax", FILL, "HCC", 8),
    ("MVT", "mvt", FILL, "HCC", 8),
    ("BIC", "bicg", FILL, "HCC", 8),
    ("SCP", "scalarprod", {}, "LCC", None),
    ("CVR", "covariance", {}, "LCC", None),
    ("LUD", "lud", {}, "LCC", None),
    ("SR2", "srad", {}, "LCC", None),
    ("2DF", "fdtd2d", {}, "LCC", None),
    # The paper ran PTX in GPGPU-Sim 3.2.1 (its GTX480 configuration keeps
    # -gpgpu_ptx_convert_to_ptxplus 0), and nvcc's PTX for this kernel consumes the loads as it
    # issues them (ld, ld, mul, fma, ld, fma, ...; docs/validation/mdb.md), close to
    # workload.loads=interleaved; the default `hoisted` is the SASS schedule (a control run).
    ("2DV", "conv2d", {"loads": "interleaved"}, "LCC", None),
]

BASE = {"sm.scheduler": "gto", "l1d.indexing": "xor", "l2.indexing": "xor"}
SWL_LIMITS = [2, 4, 8, 16, 24, 32]  # 48 (= no limit) is the baseline
RAW = {"mdb.scale_hits": "false"}

CONFIGS = [("base", {}), ("noL1", {"l1d.enabled": "false"}),
           ("L1_8MB", {"l1d.size": "8MiB"}),
           ("MDB-local", {"l1d.bypass": "mdb-local"}),
           ("MDB-global", {"l1d.bypass": "mdb-global"}),
           ("MDB-local-raw", dict(RAW, **{"l1d.bypass": "mdb-local"})),
           ("MDB-global-raw", dict(RAW, **{"l1d.bypass": "mdb-global"})),
           ("CBWT-K48", {"l1d.pdp": "true"})]
CONFIGS += [(f"SWL-K{k}", {"sm.warp_limit": str(k)}) for k in SWL_LIMITS]
CONFIGS += [(f"CBWT-K{k}", {"sm.warp_limit": str(k), "l1d.pdp": "true"}) for k in SWL_LIMITS]
for size in ("32KiB", "64KiB"):
    CONFIGS.append((f"base-{size}", {"l1d.size": size}))
    CONFIGS.append((f"MDB-global-{size}", {"l1d.size": size, "l1d.bypass": "mdb-global"}))
CONFIGS.append(("base-lrr", {"sm.scheduler": "lrr"}))
CONFIGS.append(("MDB-global-lrr", {"sm.scheduler": "lrr", "l1d.bypass": "mdb-global"}))

SCHEMES = ["SWL-best", "CBWT-best", "MDB-local", "MDB-global", "MDB-local-raw",
           "MDB-global-raw"]
# --reduced drops these (Figure 8's L1-size and scheduler sweep, two of the six warp limits).
REDUCED_SENS = {"base-32KiB", "MDB-global-32KiB", "base-64KiB", "MDB-global-64KiB", "base-lrr",
                "MDB-global-lrr"}
REDUCED_LIMITS = {24, 32}
NO_LOSS = ["2DV", "SR2"]  # the paper's LCC cases the platform tests guard (3 % at most)


def limit_of(config):
    m = re.match(r"(SWL|CBWT)-K(\d+)$", config)
    return (m.group(1), int(m.group(2))) if m else (None, None)


def alias(config, warps):
    """The configuration whose run stands for `config` on a workload with `warps` resident."""
    kind, k = limit_of(config)
    if kind and warps and k >= warps and k != 48:
        return "base" if kind == "SWL" else "CBWT-K48"
    return config


def mdb_summary(j):
    """Decision statistics of an MDB run: mean k over all decisions (chose_kN counters), the
    share of 'no bypassing' (k = K) decisions, and from the sampling SM's history the share of
    decisions taken with a saturated RF counter and the mean sampled hits of calculator K."""
    m = j.get("mdb", {})
    counts = {int(k[len("chose_k"):]): v for k, v in m.items() if k.startswith("chose_k")}
    n = sum(counts.values())
    kmax = max(counts) if counts else 0
    hist = j.get("mdb_history", [])
    return {
        "mdb_decisions": n,
        "mdb_mean_k": sum(k * v for k, v in counts.items()) / n if n else 0.0,
        "mdb_nobypass_frac": counts.get(kmax, 0) / n if n else 0.0,
        "mdb_rf_sat_frac": (sum(1 for d in hist if d["rf_base"] >= 4095) / len(hist)
                            if hist else 0.0),
        "mdb_mean_rf_base": sum(d["rf_base"] for d in hist) / len(hist) if hist else 0.0,
        "mdb_mean_hits_K": sum(d["hits"][-1] for d in hist) / len(hist) if hist else 0.0,
    }


def run_one(locsim, job):
    j = run_locsim("mdb_experiment", locsim, "fermi", job["workload"], job["args"],
                   dict(BASE, **job["sets"]))
    ki = j["warp_insts"] / 1000.0
    l1 = j["l1d"]
    loads = l1["accesses"] - l1["stores"] - l1["atomics"]
    row = {
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
        "kernel_cycles": ";".join(str(k["cycles"]) for k in j.get("kernels", [])),
        "sampling_sms": ";".join("/".join(str(s) for s in k["sampling_sms"])
                                 for k in j.get("mdb_kernels", [])),
        "wall_s": j["host"]["wall_s"],
    }
    row.update(mdb_summary(j))
    return row


def stamp(locsim):
    """'commit <hash>[+dirty], <date>' of the code the simulator binary was built from."""
    return f"commit `{binary_commit(locsim)}`, {datetime.date.today().isoformat()}"


def splice(page, md, header):
    begin, end = "<!-- BEGIN GENERATED by scripts/mdb_experiment.py -->", \
        "<!-- END GENERATED -->"
    text = open(page).read()
    if begin not in text or end not in text:
        print(f"mdb_experiment: {page} has no generated section, not updated")
        return
    head, rest = text.split(begin, 1)
    _, tail = rest.split(end, 1)
    with open(page, "w") as f:
        f.write(head + begin + "\n\n" + header + "\n\n" + "\n".join(md) + "\n\n" + end + tail)
    print(f"mdb_experiment: generated section of {page} updated")


def main():
    ap = arg_parser(__doc__, "docs/validation/mdb")
    ap.add_argument("--page", default="docs/validation/mdb.md",
                    help="validation page whose generated section is replaced ('' = none)")
    ap.add_argument("--reduced", action="store_true",
                    help="skip Figure 8's L1-size and LRR runs and the K = 24/32 warp limits "
                    "(about 35 %% fewer runs, for a shared machine)")
    args = ap.parse_args()
    configs = CONFIGS
    if args.reduced:
        SWL_LIMITS[:] = [k for k in SWL_LIMITS if k not in REDUCED_LIMITS]
        configs = [(label, sets) for label, sets in CONFIGS
                   if label not in REDUCED_SENS and limit_of(label)[1] not in REDUCED_LIMITS]
    measured = stamp(args.locsim)  # before the run writes its CSV/PNGs into the tree
    chosen = choose("mdb_experiment", WORKLOADS, args.workloads, args.locsim, args.from_csv)
    warps = {w[0]: w[4] for w in chosen}
    jobs = [dict(abbr=a, workload=n, args=wa, cls=c, config=label, sets=sets)
            for a, n, wa, c, _ in chosen for label, sets in configs
            if alias(label, warps[a]) == label]
    rows = run_all("mdb_experiment", args, jobs, lambda j: run_one(args.locsim, j))
    chosen = [w for w in chosen if w[0] in {x["abbr"] for x in rows}]

    raw = {(x["abbr"], x["config"]): x for x in rows}
    abbrs = [w[0] for w in chosen]

    def r(a, cfg):
        return raw[(a, alias(cfg, warps[a]))]

    def speedup(a, cfg, ref="base"):
        return r(a, cfg)["ipc"] / r(a, ref)["ipc"]

    def best(a, prefix):
        cands = [f"{prefix}-K{k}" for k in SWL_LIMITS]
        cands.append("base" if prefix == "SWL" else "CBWT-K48")
        return max(cands, key=lambda c: r(a, c)["ipc"])  # ties: the smallest limit

    def best_k(a, prefix):
        c = best(a, prefix)
        return "48" if c in ("base", "CBWT-K48") else c.split("K")[-1]

    cls = {a: ("HCC" if speedup(a, "L1_8MB") > 1.5 else "LCC") for a in abbrs}
    paper_cls = {w[0]: w[3] for w in chosen}

    def cfg_of(a, s):
        return best(a, "SWL") if s == "SWL-best" else best(a, "CBWT") if s == "CBWT-best" else s

    md = []
    # Summary first: the numbers the prose compares with the paper.
    md += ["### Summary: geometric-mean speedup over the GTO baseline\n",
           "| group | " + " | ".join(SCHEMES) + " |", "|---|" + "---|" * len(SCHEMES),
           "| paper, HCC (§7.1) | 1.39 | 1.51 | 1.75 | 1.69 | | |"]
    groups = [("paper's HCC set", [a for a in abbrs if paper_cls[a] == "HCC"]),
              ("paper's LCC set", [a for a in abbrs if paper_cls[a] == "LCC"]),
              ("our HCC class", [a for a in abbrs if cls[a] == "HCC"]),
              ("our LCC class", [a for a in abbrs if cls[a] == "LCC"]),
              ("ATX MVT BIC GMV", [a for a in abbrs if a in ("ATX", "MVT", "BIC", "GMV")])]
    for name, g in groups:
        if g:
            md.append(f"| locsim, {name} ({' '.join(g)}) | " + " | ".join(
                f"{geomean([speedup(a, cfg_of(a, s)) for a in g]):.2f}" for s in SCHEMES) + " |")

    md += ["\n### No loss on the paper's LCC benchmarks (MDB IPC / baseline IPC; "
           "platform-test bound 0.97 for 2DV and SR2)\n",
           "| workload | MDB-local | MDB-global | MDB-local-raw | MDB-global-raw |",
           "|---|---|---|---|---|"]
    for a in abbrs:
        if paper_cls[a] != "LCC":
            continue
        cells = []
        for s in SCHEMES[2:]:
            v = speedup(a, s)
            cells.append(f"{v:.3f}" + (" **<0.97**" if v < 0.97 else ""))
        md.append(f"| {a}{' (tested)' if a in NO_LOSS else ''} | " + " | ".join(cells) + " |")

    md += ["\n### Figure 2 and Table 2: classification (IPC normalised to the 16 KB baseline)\n",
           "| workload | size | no L1 | 8 MB L1 | our class | paper class |",
           "|---|---|---|---|---|---|"]
    for a, n, wa, c, _ in chosen:
        size = " ".join(f"{k}={v}" for k, v in wa.items()) or "default"
        md.append(f"| {a} | {n} {size} | {speedup(a, 'noL1'):.2f} | {speedup(a, 'L1_8MB'):.2f} "
                  f"| {cls[a]} | {c} |")

    md += ["\n### Figure 6: speedup over the baseline\n",
           "| workload | our class | " + " | ".join(SCHEMES) + " | SWL-best K | CBWT-best K |",
           "|---|---|" + "---|" * (len(SCHEMES) + 2)]
    for a in abbrs:
        md.append(f"| {a} | {cls[a]} | " +
                  " | ".join(f"{speedup(a, cfg_of(a, s)):.2f}" for s in SCHEMES) +
                  f" | {best_k(a, 'SWL')} | {best_k(a, 'CBWT')} |")

    md += ["\n### MDB decisions (all generators' decisions; RF and hits from the sampling SM's "
           "last 4096 decisions)\n",
           "| workload | scheme | decisions | mean k | k = 8 share | RF saturated share | "
           "mean RF_base | mean sampled hits(8) |", "|---|---|---|---|---|---|---|---|"]
    for a in abbrs:
        for s in SCHEMES[2:]:
            x = r(a, s)
            md.append(f"| {a} | {s} | {x['mdb_decisions']} | {x['mdb_mean_k']:.2f} | "
                      f"{x['mdb_nobypass_frac']:.2f} | {x['mdb_rf_sat_frac']:.2f} | "
                      f"{x['mdb_mean_rf_base']:.0f} | {x['mdb_mean_hits_K']:.0f} |")

    metrics = [("hits_pki", "hits per kilo-instruction"), ("rf_pki", "reservation failures per "
               "kilo-instruction"), ("mipc", "MIPC"), ("l2_pki", "L2 accesses per kilo-instruction")]
    for key, title in metrics:
        md += [f"\n### Figure 7: {title}\n",
               "| workload | base | " + " | ".join(SCHEMES) + " |",
               "|---|---|" + "---|" * len(SCHEMES)]
        for a in abbrs:
            md.append(f"| {a} | {r(a, 'base')[key]:.3f} | " +
                      " | ".join(f"{r(a, cfg_of(a, s))[key]:.3f}" for s in SCHEMES) + " |")

    sens = ("base-32KiB", "MDB-global", "MDB-global-32KiB", "base-64KiB", "MDB-global-64KiB",
            "base-lrr", "MDB-global-lrr")
    if all((a, c) in raw for a in abbrs for c in sens):
        md += ["\n### Figure 8: MDB-global sensitivity (IPC normalised to the 16 KB GTO "
               "baseline)\n",
               "| workload | base 32 KB | MDB-g 16 KB | MDB-g 32 KB | base 64 KB | MDB-g 64 KB | "
               "base LRR | MDB-g LRR |", "|---|---|---|---|---|---|---|---|"]
        for a in abbrs:
            md.append(f"| {a} | " + " | ".join(f"{speedup(a, c):.2f}" for c in sens) + " |")
    else:
        sens = ()
        md += ["\n### Figure 8: not measured in this run (`--reduced`)"]
    write_tables(args.out, md)
    if args.page and not args.from_csv:
        splice(args.page, md, f"Measured at {measured} with `scripts/mdb_experiment.py`"
               f"{' --reduced' if args.reduced else ''} ({len(rows)} runs; every run in "
               "[mdb/mdb.csv](mdb/mdb.csv)).")
    elif args.page:
        splice(args.page, md, f"Re-made from `{args.from_csv}` on "
               f"{datetime.date.today().isoformat()} (see the CSV for the runs).")

    bars = bar_plotter("mdb_experiment", args.out)
    if bars is None:
        return

    bars("fig2_classification.png", "IPC normalised to the 16 KB L1 baseline", "normalised IPC",
         [("no L1", [speedup(a, "noL1") for a in abbrs]),
          ("8 MB L1", [speedup(a, "L1_8MB") for a in abbrs])], abbrs, 1.0, log=True)
    bars("fig6_speedup.png", "Speedup over the baseline (GTO)", "speedup",
         [(s, [speedup(a, cfg_of(a, s)) for a in abbrs] +
           [geomean([speedup(a, cfg_of(a, s)) for a in abbrs if paper_cls[a] == "HCC"])])
          for s in SCHEMES], abbrs + ["GM_HCC(paper)"], 1.0)
    for key, title in metrics:
        bars(f"fig7_{key}.png", title, title,
             [("base", [r(a, "base")[key] for a in abbrs])] +
             [(s, [r(a, cfg_of(a, s))[key] for a in abbrs]) for s in SCHEMES], abbrs)
    if sens:
        bars("fig8_sensitivity.png", "MDB-global sensitivity (normalised to 16 KB GTO baseline)",
             "normalised IPC", [(c, [speedup(a, c) for a in abbrs]) for c in sens], abbrs, 1.0)


if __name__ == "__main__":
    main()
