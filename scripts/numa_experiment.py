#!/usr/bin/env python3
"""Seed 000 (Locality Descriptor) NUMA study on locsim: the four configurations of §6.2 (NUMA
Baseline, FirstTouch-Distrib, LDesc-Placement, LDesc) on the mcm platform (4 modules x 16 SMs,
Table 1), plus the bandwidth-sensitivity check of §5 (2x DRAM bandwidth -> >40%). Writes
<out>/numa.csv, <out>/tables.md and PNG plots (Figs. 17-19 analogues).

  scripts/numa_experiment.py [--out docs/validation/numa] [--jobs 2] [--workloads ATX,SK]
  scripts/numa_experiment.py --from-csv docs/validation/numa/numa.csv
  scripts/numa_experiment.py --reuse docs/validation/numa/numa.csv   # run new rows only
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import experiment_common as ec  # noqa: E402

TAG = "numa_experiment"
ZONES = 4

# (abbr, library workload, workload args, Table 2 descriptor types). Sizes: the largest that keep
# one run under about a minute on the development machine; CTA counts are in the table.
WORKLOADS = [
    ("ATX", "atax", {"n": 2048}, "NO-REUSE, INTER (COACC, REG)"),
    ("MVT", "mvt", {"n": 2048}, "NO-REUSE, INTER (COACC, REG)"),
    ("LIB", "libor", {"npath": 4096}, "INTRA"),
    ("SP", "scalarprod", {}, "NO-REUSE"),
    ("PT", "pathfinder", {}, "NO-REUSE"),
    ("DT", "doitgen", {"n": 96}, "INTER (COACC, REG), NO-REUSE"),
    ("HS", "histo", {}, "INTER (COACC, REG), NO-REUSE"),
    ("SK", "syrk", {"n": 256}, "INTER (COACC, REG), NO-REUSE"),
    ("SPMV", "spmv", {"rows": 32768}, "INTRA, INTER (COACC, IRREG)"),
    ("LPS", "laplace", {}, "NO-REUSE, INTRA"),
    ("LMD", "lavamd", {"boxes1d": 5}, "INTRA, INTER (COACC, REG)"),
]

CONFIGS = [
    ("Baseline", {"numa.policy": "xor"}),
    ("FirstTouch", {"numa.policy": "first-touch"}),
    ("LDesc-Placement", {"numa.policy": "ldesc-placement"}),
    ("LDesc", {"numa.policy": "ldesc"}),
    ("Baseline-2xBW", {"numa.policy": "xor", "clock.dram": "1500MHz"}),
]
POLICIES = [c for c, _ in CONFIGS[:4]]
# Control runs that test the explanations on docs/validation/numa.md: (workloads, name, sets).
CONTROLS = [
    # LDesc's partition with each zone round-robin: separates Algorithm 2 from Algorithm 1.
    (["SK", "DT"], "LDesc/inside-rr",
     {"numa.policy": "ldesc", "dispatcher.numa-zone.inside": "rr"}),
    # The contiguous CTA split with the Baseline's XOR placement: separates split from placement.
    (["DT"], "Baseline/zone-split", {"numa.policy": "xor", "dispatcher.policy": "numa-zone"}),
    # ... and with ties half-way round the ring all clockwise (the old default: they load the
    # counter-clockwise wires with the replies of two request flows).
    (["DT"], "Baseline/zone-split/cw-ties",
     {"numa.policy": "xor", "dispatcher.policy": "numa-zone", "mcm.ring_ties": "clockwise"}),
    (["DT"], "Baseline/cw-ties", {"numa.policy": "xor", "mcm.ring_ties": "clockwise"}),
    # Is the split's loss wire bandwidth or hop latency? Unlimited wires, then 1-cycle hops.
    (["DT"], "Baseline/wide-wires", {"numa.policy": "xor", "mcm.link_bandwidth": 100000}),
    (["DT"], "Baseline/zone-split/wide-wires",
     {"numa.policy": "xor", "dispatcher.policy": "numa-zone", "mcm.link_bandwidth": 100000}),
    # ... and on ATX and LIB: how much of the Baseline's loss to local placement is hop latency.
    (["DT", "ATX", "LIB"], "Baseline/link-latency-1",
     {"numa.policy": "xor", "mcm.link_latency": 1}),
    (["DT"], "Baseline/zone-split/link-latency-1",
     {"numa.policy": "xor", "dispatcher.policy": "numa-zone", "mcm.link_latency": 1}),
    # lavaMD's fv described as one box of 100 particles per CTA instead of Table 2's
    # INTRA-THREAD reading (thread t of the grid on element t).
    (["LMD"], "LDesc/fv-box", {"numa.policy": "ldesc", "workload.fv_tile": "box"}),
    # Timing spread of the short kernels: the Baseline with the link latency 2 cycles off.
    (["PT", "LPS"], "Baseline/link-latency-30", {"numa.policy": "xor", "mcm.link_latency": 30}),
    (["PT", "LPS"], "Baseline/link-latency-34", {"numa.policy": "xor", "mcm.link_latency": 34}),
]

# §6.2 and §1: the paper's averages.
PAPER = {"over_baseline": 53.7, "over_firsttouch": 31.2,
         "efficiency": {"Baseline": 22.0, "FirstTouch": 49.7, "LDesc-Placement": 32.0,
                        "LDesc": 76.0}}


def one(job):
    abbr, workload, wargs, config, sets = job
    j = ec.run_locsim(TAG, ARGS.locsim, "mcm", workload, wargs, sets)
    n = j["numa"]
    print(f"{TAG}: {abbr} {config}: {j['cycles']} cycles, efficiency "
          f"{n['access_efficiency']:.3f}", flush=True)
    links = j.get("mcm_links", [])
    row = {
        "abbr": abbr, "workload": workload, "config": config,
        "cycles": j["cycles"], "ipc": j["ipc"],
        "accesses": n["accesses"], "local_accesses": n["local_accesses"],
        "access_efficiency": n["access_efficiency"],
        "link_bytes": sum(w["bytes"] for w in links),
        "max_link_utilisation": max((w["utilisation"] for w in links), default=0.0),
        "l1_hits": j["l1d"]["hits"], "l2_hits": j["l2"]["hits"], "dram_reads": j["dram"]["reads"],
    }
    for z in range(ZONES):
        row[f"zone{z}_share"] = n.get(f"zone{z}_share", 0.0)
    return row


def pct(x):
    return f"{100 * x:+.1f}%"


def main():
    global ARGS
    ap = ec.arg_parser(__doc__.splitlines()[0], "docs/validation/numa")
    ap.add_argument("--reuse", default="",
                    help="take the rows of this CSV whose (workload, configuration) match a job "
                         "instead of running them (only while the simulator is unchanged)")
    ARGS = ap.parse_args()
    chosen = ec.choose(TAG, WORKLOADS, ARGS.workloads, ARGS.locsim, ARGS.from_csv)
    jobs = [(w[0], w[1], w[2], c, s) for w in chosen for c, s in CONFIGS]
    jobs += [(w[0], w[1], w[2], c, s) for ws, c, s in CONTROLS for w in chosen if w[0] in ws]
    rows = ec.run_all(TAG, ARGS, jobs, one, reuse_key=lambda j: (j[0], j[3]))
    by = {(r["abbr"], r["config"]): r for r in rows}
    abbrs = [w[0] for w in chosen if (w[0], "Baseline") in by]

    def speedup(a, c, base="Baseline"):
        return by[(a, base)]["cycles"] / by[(a, c)]["cycles"]

    md = ["# Seed 000 NUMA study on locsim (mcm: 4 modules x 16 SMs, Table 1)", ""]
    md += ["## Bandwidth sensitivity (§5: 2x DRAM bandwidth -> >40% speedup)", "",
           "| workload | Table 2 types | speedup with 2x DRAM bandwidth | bandwidth-sensitive |",
           "|---|---|---|---|"]
    md += ec.sensitivity_rows(chosen, abbrs, lambda a: speedup(a, "Baseline-2xBW") - 1, 0.40)
    md += ["", "## Speedup over the NUMA Baseline (Fig. 17)", "",
           "| workload | " + " | ".join(POLICIES[1:]) + " | LDesc over FirstTouch |",
           "|---" * (len(POLICIES) + 1) + "|"]
    for a in abbrs:
        md.append(f"| {a} | " + " | ".join(pct(speedup(a, c) - 1) for c in POLICIES[1:]) +
                  f" | {pct(speedup(a, 'LDesc', 'FirstTouch') - 1)} |")
    gm = {c: ec.geomean([speedup(a, c) for a in abbrs]) for c in POLICIES}
    gm_ft = ec.geomean([speedup(a, "LDesc", "FirstTouch") for a in abbrs])
    md.append("| geomean | " + " | ".join(pct(gm[c] - 1) for c in POLICIES[1:]) +
              f" | {pct(gm_ft - 1)} |")
    md += ["", f"Paper: LDesc +{PAPER['over_baseline']}% over the Baseline and "
           f"+{PAPER['over_firsttouch']}% over FirstTouch-Distrib on average.", ""]
    md += ["## Access efficiency (Fig. 18) and distribution (Fig. 19)", "",
           "| workload | config | access efficiency | zone 0 / 1 / 2 / 3 share | link bytes | "
           "busiest wire utilisation |", "|---|---|---|---|---|---|"]
    for a in abbrs:
        for c in POLICIES:
            r = by[(a, c)]
            shares = " / ".join(f"{r[f'zone{z}_share']:.2f}" for z in range(ZONES))
            md.append(f"| {a} | {c} | {r['access_efficiency']:.3f} | {shares} | "
                      f"{r['link_bytes']} | {r['max_link_utilisation']:.3f} |")
    md += ["", "| config | mean access efficiency | paper |", "|---|---|---|"]
    for c in POLICIES:
        mean = sum(by[(a, c)]["access_efficiency"] for a in abbrs) / len(abbrs)
        md.append(f"| {c} | {100 * mean:.1f}% | {PAPER['efficiency'][c]}% |")
    md += ["", "## Control runs", "",
           "| workload | control | speedup over Baseline | access efficiency | L1 hits |",
           "|---|---|---|---|---|"]
    for ws, c, _ in CONTROLS:
        for a in ws:
            if (a, c) in by and a in abbrs:
                r = by[(a, c)]
                md.append(f"| {a} | {c} | {pct(speedup(a, c) - 1)} | "
                          f"{r['access_efficiency']:.3f} | {r['l1_hits']} |")
    ec.write_tables(ARGS.out, md)

    bars = ec.bar_plotter(TAG, ARGS.out)
    if bars:
        bars("fig17_speedup.png", "Speedup over the NUMA Baseline (mcm, 4 modules)", "speedup",
             [(c, [speedup(a, c) for a in abbrs]) for c in POLICIES[1:]], abbrs, hline=1.0)
        bars("fig18_access_efficiency.png", "Access efficiency (local / all L2-level accesses)",
             "efficiency", [(c, [by[(a, c)]["access_efficiency"] for a in abbrs])
                            for c in POLICIES], abbrs, hline=0.25)
        bars("fig19_distribution_ldesc.png", "Access distribution over zones under LDesc",
             "share", [(f"zone {z}", [by[(a, 'LDesc')][f'zone{z}_share'] for a in abbrs])
                       for z in range(ZONES)], abbrs, hline=0.25)


if __name__ == "__main__":
    main()
