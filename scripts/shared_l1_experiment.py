#!/usr/bin/python3
"""Seed 002 experiment (shared L1 caches, Ibrahim et al., PACT 2020) on the mesh platform.

Runs, in three sweeps (the later ones depend on the classification of the first):
  A. V1 characterisation (Fig. 1): every workload under the private L1 and with a 16x L1
     (256 KiB, same ways, spec I-15); V5 light-load latency probes and NoC-latency variants.
  B. V2 ladder (Fig. 2/5) on the shared-friendly set (R8.5): shared, shared-chunk, shared++,
     ideal; Shared++ and DynEB on every workload (Fig. 7/10/11/12/13).
  C. V3 DynAMAT and DynEB without L1MRpr on the shared- and private-friendly sets (Fig. 9), and
     DynEB controls on the shared-friendly set (the paper's R_S/R_EX, R_S=64/R_EX=2048, and
     dyneb.kernel_reset=true); V4 sensitivity (8-cycle L1, 2x L1) on a few shared-friendly
     workloads (Fig. 15a, §5.3), the §5.5 crossbar variants (core-to-core traffic on a
     butterfly or via the L2 slices; Fig. 17a) on the shared-friendly set plus a few others, and
     one core-count point (84 SMs, 16 channels on a 10x10 mesh; Fig. 15b).
Writes one CSV row per run (shared_l1.csv), PNG plots and the markdown tables used by
docs/validation/shared_l1.md.

DynEB/DynAMAT run with the scaled phase lengths R_S = 8, R_EX = 256 (the paper's 512 / 16384
at the same 1:32 ratio): with 28 cores R_S local accesses of the shared set group take about
28 x R_S shared-treated loads per core, and with the paper's values (control `dyneb-paper`) or
64 / 2048 (control `dyneb-rs64`) almost no core of our short workloads ever decides.

usage: scripts/shared_l1_experiment.py [--locsim build/locsim] [--out docs/validation/shared_l1]
                                       [--jobs 2] [--workloads bfs,matmul,...]
"""
import csv
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from experiment_common import (arg_parser, bar_plotter, choose, geomean, read_rows,  # noqa: E402
                               run_all, run_locsim, write_tables)

PLATFORM = "mesh"

# (name, library workload, size arguments, note). Sizes: library defaults unless a kernel had
# fewer than 28 CTAs and a larger input stays affordable; the remaining few-CTA workloads are
# flagged in the CSV (min_ctas) and on the page.
WORKLOADS = [
    ("atax", "atax", {}, "2 CTAs/kernel (one thread per row; 28 CTAs needs n=7168)"),
    ("backprop", "backprop", {}, ""),
    ("bfs", "bfs", {}, ""),
    ("bicg", "bicg", {}, "2 CTAs/kernel"),
    ("blackscholes", "blackscholes", {}, ""),
    ("btree", "btree", {}, ""),
    ("conv2d", "conv2d", {"n": 512}, "n=512 (1024 CTAs) to halve the run time"),
    ("covariance", "covariance", {}, "1-9 CTAs/kernel (as the paper's P-COVAR)"),
    ("dct8x8", "dct8x8", {}, ""),
    ("doitgen", "doitgen", {}, "12 CTAs/kernel (28 needs n>=88, 11x the work)"),
    ("dwt2d", "dwt2d", {"width": 512, "height": 512}, "512x512 (deepest level 16 CTAs)"),
    ("fdtd2d", "fdtd2d", {}, ""),
    ("fdtd3d", "fdtd3d", {"dimx": 128, "dimy": 128, "dimz": 16}, "128x128x16 (32 CTAs)"),
    ("gemm", "gemm", {}, ""),
    ("gesummv", "gesummv", {}, "2 CTAs"),
    ("heartwall", "heartwall", {}, ""),
    ("histo", "histo", {"height": 520}, "height=520 (same 112 CTAs, half the rows)"),
    ("histogram", "histogram", {}, ""),
    ("hotspot", "hotspot", {}, ""),
    ("kmeans", "kmeans", {"points": 8192}, "points=8192 (32-36 CTAs)"),
    ("laplace", "laplace", {}, ""),
    ("lavamd", "lavamd", {}, "8 CTAs (boxes1d=3 gives 27 at 3.4x the work)"),
    ("libor", "libor", {}, ""),
    ("lud", "lud", {}, "diagonal kernels have 1 CTA by construction"),
    ("matmul", "matmul", {}, ""),
    ("mergesort", "mergesort", {}, "some merge stages have 1 CTA by construction"),
    ("mvt", "mvt", {}, "2 CTAs/kernel"),
    ("nn", "nn", {}, ""),
    ("particlefilter", "particlefilter", {}, "2 CTAs/kernel"),
    ("pathfinder", "pathfinder", {}, ""),
    ("sad", "sad", {"width": 96, "height": 96}, "96x96 (36 CTAs in the 4x4 kernel)"),
    ("scalarprod", "scalarprod", {}, ""),
    ("spmv", "spmv", {}, ""),
    ("srad", "srad", {}, ""),
    ("storegpu", "storegpu", {}, ""),
    ("streamcluster", "streamcluster", {}, ""),
    ("syr2k", "syr2k", {}, ""),
    ("syrk", "syrk", {}, ""),
    ("tpacf", "tpacf", {"sets": 50}, "sets=50 (101 CTAs) to halve the run time"),
    ("transpose", "transpose", {}, ""),
    ("vecadd", "vecadd", {}, ""),
]

DYN = {"dyneb.sampling_accesses": "8", "dyneb.execution_accesses": "256"}
DYN_PAPER = {"dyneb.sampling_accesses": "512", "dyneb.execution_accesses": "16384"}
DYN_64 = {"dyneb.sampling_accesses": "64", "dyneb.execution_accesses": "2048"}
ORG = "l1d.organization"
CONFIGS = {
    "private": {ORG: "private"},
    "private-16x": {ORG: "private", "l1d.size": "256KiB"},
    "shared": {ORG: "shared"},
    "shared-chunk": {ORG: "shared-chunk"},
    "shared++": {ORG: "shared++"},
    "ideal": {ORG: "ideal"},
    "dyneb": dict(DYN, **{ORG: "dyneb"}),
    "dynamat": dict(DYN, **{ORG: "dynamat"}),
    "dyneb-nol1mrpr": dict(DYN, **{ORG: "dyneb", "dyneb.l1mrpr": "false"}),
    # DynEB controls (shared-friendly set): phase lengths and the per-kernel sampling restart
    "dyneb-paper": dict(DYN_PAPER, **{ORG: "dyneb"}),
    "dyneb-rs64": dict(DYN_64, **{ORG: "dyneb"}),
    "dyneb-reset": dict(DYN, **{ORG: "dyneb", "dyneb.kernel_reset": "true"}),
}
DYN_CONTROLS = ["dyneb-paper", "dyneb-rs64", "dyneb-reset"]
LADDER = ["shared", "shared-chunk", "shared++", "ideal"]
# V4: (experiment, extra settings, organisations)
SENS = [("hit8", {"l1d.hit_latency": "8"}, ["private", "shared++", "dyneb", "ideal"]),
        ("l1x2", {"l1d.size": "32KiB"}, ["private", "shared++", "dyneb"])]
V4_APPS = 3
# V4 §5.5: the 28-SM crossbar version of the platform; core-to-core traffic on a butterfly or
# forwarded through the L2 slices (Min(H,L2) is off there, so no shared++). Baseline: private on
# the same crossbar platform. Run on the SF set plus XBAR_OTHERS (when not SF).
XBAR = {"gpu.topology": "crossbar"}
XBAR_NETS = [("butterfly", dict(XBAR, **{"shared_l1.network": "butterfly"})),
             ("via-l2", dict(XBAR, **{"shared_l1.network": "via-l2"}))]
XBAR_ORGS = ["shared-chunk", "dyneb"]
XBAR_SF_ONLY = ["shared"]
XBAR_OTHERS = ["backprop", "kmeans", "nn", "syrk"]
# V4 core-count point (Fig. 15b (84,16)): 84 SMs + 16 MCs on a 10x10 mesh, L2 kept at 128 KB per
# channel; private / shared++ / dyneb on the SCALE_APPS cheapest SF workloads with >= 84 CTAs.
SCALE = ("c84m16", {"gpu.sms": "84", "mem.channels": "16", "noc.mesh_rows": "10",
                    "noc.mesh_cols": "10", "l2.size": "2MiB"})
SCALE_ORGS = ["private", "shared++", "dyneb"]
SCALE_APPS = 3
# V5 light-load probes: 1 CTA of vecadd (8 warps, 16 L2 fills) and NoC latency variants.
PROBE = ("vecadd", {"n": 256})
NOC_VARIANTS = [("r1l1", {}), ("r2l1", {"noc.router_latency": "2"}),
                ("r4l1", {"noc.router_latency": "4"}), ("r1l3", {"noc.link_latency": "3"}),
                ("xbar-butterfly", XBAR_NETS[0][1]), ("xbar-via-l2", XBAR_NETS[1][1])]
PROBE_ORGS = ["private", "shared"]
HOME_L1 = 28  # the home's L1 access inside every remote round trip (l1d.hit_latency)
# Loaded NoC variants: private, shared, shared++ on one shared-friendly-candidate workloads.
LOADED_APPS = ["bfs"]
LOADED_VARIANTS = [("r2l1", {"noc.router_latency": "2"}), ("r4l1", {"noc.router_latency": "4"})]

# R8.5 thresholds and the private-friendly rule.
REPL_T, MISS_T, SPEED16_T = 0.10, 0.50, 1.05
PF_MISS_T, PF_LOSS_T = 0.10, 0.95


def run_one(locsim, job):
    sets = dict(CONFIGS[job["org"]], **job.get("extra", {}))
    j = run_locsim("shared_l1_experiment", locsim, PLATFORM, job["workload"], job["args"], sets)
    l1, s, noc = j["l1d"], j.get("shared_l1", {}), j["noc"]
    ctas = [k["dispatcher"]["ctas_launched"] for k in j.get("kernels", [])] or [0]
    modes = j.get("shared_l1_modes", {}).get("cores", [])
    dec = sum(c.get("decisions", 0) for c in modes)
    sh = sum(c.get("shared_decisions", 0) for c in modes)
    loc = {p: sum(c.get("local_accesses_" + p, 0) for c in modes)
           for p in ("sampling", "shared", "private")}
    tot = sum(loc.values())
    direct = s.get("direct_l2_requests", 0)
    return {
        "abbr": job["abbr"], "workload": job["workload"],
        "args": " ".join(f"{k}={v}" for k, v in job["args"].items()),
        "experiment": job["experiment"], "config": job["org"], "variant": job.get("variant", ""),
        "cycles": j["cycles"], "warp_insts": j["warp_insts"], "ipc": j["ipc"],
        "kernels": len(ctas), "min_ctas": min(ctas), "max_ctas": max(ctas),
        "l1_accesses": l1["accesses"], "l1_misses": l1["misses"], "l1_miss_rate": l1["miss_rate"],
        # misses + Min(H,L2) direct loads (which touch no L1) over accesses + direct loads
        "l1_miss_rate_incl_direct": (l1["misses"] + direct) / (l1["accesses"] + direct)
        if l1["accesses"] + direct else 0.0,
        "replication_ratio": l1.get("replication_ratio", 0.0), "replicas": l1.get("replicas", 0.0),
        "remote_requests": s.get("remote_requests", 0), "direct_l2_requests": direct,
        "home_replies": s.get("home_replies", 0), "l2_fills": s.get("l2_fills", 0),
        "local_requests": s.get("local_requests", 0),
        "in_queue_full": s.get("in_queue_full", 0), "out_queue_full": s.get("out_queue_full", 0),
        "remote_loads_32B": s.get("remote_loads_32B", 0),
        "remote_loads_64B": s.get("remote_loads_64B", 0),
        "remote_loads_96B": s.get("remote_loads_96B", 0),
        "remote_loads_128B": s.get("remote_loads_128B", 0),
        "remote_latency_avg": s.get("remote_latency_avg", 0.0),
        "l1_miss_latency_avg": s.get("l1_miss_latency_avg", 0.0),
        "l1_miss_latency_min": s.get("l1_miss_latency_min", 0),
        "noc_reply_latency_avg": noc.get("reply_latency_avg", 0.0),
        "noc_request_latency_avg": noc.get("request_latency_avg", 0.0),
        "noc_hops_avg": noc.get("hops_avg", 0.0), "noc_reply_flits": noc.get("reply_flits", 0),
        "noc_forwarded": noc.get("forwarded", 0),
        "sms": j["config"].get("gpu.sms", ""), "channels": j["config"].get("mem.channels", ""),
        "l2_size": j["config"].get("l2.size", ""), "topology": j["config"].get("gpu.topology", ""),
        "router_latency": j["config"].get("noc.router_latency", ""),
        "dyn_decisions": dec, "dyn_shared_decisions": sh,
        "dyn_cores_decided": sum(1 for c in modes if c.get("decisions", 0)),
        "dyn_sampling_frac": loc["sampling"] / tot if tot else 0.0,
        "dyn_shared_frac": loc["shared"] / tot if tot else 0.0,
        "wall_s": j["host"]["wall_s"],
    }


def job(w, experiment, org, extra=None, variant=""):
    return dict(abbr=w[0], workload=w[1], args=w[2], experiment=experiment, org=org,
                extra=extra or {}, variant=variant)


def phase(tag, args, jobs):
    return run_all(tag, args, jobs, lambda j: run_one(args.locsim, j)) if jobs else []


def classify(chosen, rows):
    """name -> dict(miss, repl, s16, sf) from the V1 rows."""
    v1 = {(r["abbr"], r["config"]): r for r in rows if r["experiment"] == "v1"}
    out = {}
    for w in chosen:
        p, b = v1.get((w[0], "private")), v1.get((w[0], "private-16x"))
        if not p or not b:
            continue
        s16 = b["ipc"] / p["ipc"]
        out[w[0]] = dict(miss=p["l1_miss_rate"], repl=p["replication_ratio"], s16=s16,
                         sf=p["replication_ratio"] > REPL_T and p["l1_miss_rate"] > MISS_T
                         and s16 > SPEED16_T)
    return out


def main():
    ap = arg_parser(__doc__, "docs/validation/shared_l1")
    ap.add_argument("--v3-all", action="store_true",
                    help="DynAMAT and DynEB-noL1MRpr on every workload, not only SF and PF")
    args = ap.parse_args()
    chosen = choose("shared_l1_experiment", WORKLOADS, args.workloads, args.locsim, args.from_csv)
    by = {w[0]: w for w in chosen}

    if args.from_csv:
        rows = read_rows(args.from_csv)
    else:
        # A. characterisation + latency probes
        jobs = [job(w, "v1", c) for w in chosen for c in ("private", "private-16x")]
        pw = ("probe", PROBE[0], PROBE[1])
        jobs += [job(pw, "v5", o, e, v) for v, e in NOC_VARIANTS for o in PROBE_ORGS]
        jobs += [job(by[a], "v5", o, e, v) for a in LOADED_APPS if a in by
                 for v, e in LOADED_VARIANTS for o in ("private", "shared")]
        rows = phase("shared-l1-a", args, jobs)
        cls = classify(chosen, rows)
        sf = [w for w in chosen if cls.get(w[0], {}).get("sf")]
        # B. ladder on SF; Shared++ and DynEB everywhere (SF first)
        order = sf + [w for w in chosen if w not in sf]
        jobs = [job(w, "v2", o) for w in sf for o in LADDER]
        jobs += [job(w, "v3", o) for w in order for o in ("shared++", "dyneb") if w not in sf
                 or o != "shared++"]
        jobs += [job(by[a], "v5", "shared++", e, v) for a in LOADED_APPS if a in by
                 for v, e in LOADED_VARIANTS]
        rows += phase("shared-l1-b", args, jobs)
        ipc = {(r["abbr"], r["config"]): r["ipc"] for r in rows
               if r["experiment"] in ("v1", "v2", "v3")}
        pf = [w for w in chosen if w not in sf and (
            cls[w[0]]["miss"] < PF_MISS_T or
            ipc[(w[0], "shared++")] / ipc[(w[0], "private")] < PF_LOSS_T)]
        # C. DynAMAT / no-L1MRpr (SF + PF, or all) and sensitivity on a few SF apps
        v3set = chosen if args.v3_all else sf + pf
        jobs = [job(w, "v3", o) for w in v3set for o in ("dynamat", "dyneb-nol1mrpr")]
        v1p = {r["abbr"]: r for r in rows if r["experiment"] == "v1" and r["config"] == "private"}
        # "Cheap" by simulated work (warp instructions + L1 accesses of the V1 private run), a
        # host-cost proxy that, unlike host wall time, does not depend on the machine's load.
        def work(w):
            return (v1p[w[0]]["warp_insts"] + v1p[w[0]]["l1_accesses"], w[0])
        cheap = sorted(sf, key=work)[:V4_APPS]
        jobs += [job(w, "v4", o, e, v) for w in cheap for v, e, orgs in SENS for o in orgs]
        jobs += [job(w, "v3", o) for w in sf for o in DYN_CONTROLS]
        xset = sf + [by[a] for a in XBAR_OTHERS if a in by and by[a] not in sf]
        jobs += [job(w, "v4x", "private", XBAR, "crossbar") for w in xset]
        jobs += [job(w, "v4x", o, e, v) for v, e in XBAR_NETS for w in xset
                 for o in XBAR_ORGS + (XBAR_SF_ONLY if w in sf else [])]
        big = [w for w in sorted(sf, key=work)
               if v1p[w[0]]["max_ctas"] >= int(SCALE[1]["gpu.sms"])][:SCALE_APPS]
        jobs += [job(w, "v4s", o, SCALE[1], SCALE[0]) for w in big for o in SCALE_ORGS]
        rows += phase("shared-l1-c", args, jobs)
        os.makedirs(args.out, exist_ok=True)
        with open(os.path.join(args.out, "shared_l1.csv"), "w", newline="") as f:
            wr = csv.DictWriter(f, fieldnames=list(rows[0].keys()))
            wr.writeheader()
            wr.writerows(rows)
        for t in ("shared-l1-a", "shared-l1-b", "shared-l1-c"):
            p = os.path.join(args.out, t + ".csv")
            if os.path.exists(p):
                os.unlink(p)
    report(args, chosen, rows)


def pct(x):
    return f"{100 * (x - 1):+.1f}%"


def report(args, chosen, rows):
    cls = classify(chosen, rows)
    names = [w[0] for w in chosen if w[0] in cls]
    notes = {w[0]: (w[2], w[3]) for w in chosen}
    R = {}
    for r in rows:
        if r["experiment"] in ("v1", "v2", "v3"):
            R[(r["abbr"], r["config"])] = r
    sf = [a for a in names if cls[a]["sf"]]

    def sp(a, c):
        return R[(a, c)]["ipc"] / R[(a, "private")]["ipc"] if (a, c) in R else None

    pf = [a for a in names if a not in sf and (cls[a]["miss"] < PF_MISS_T or (
        sp(a, "shared++") is not None and sp(a, "shared++") < PF_LOSS_T))]
    ins = [a for a in names if a not in sf and a not in pf]
    md = []
    md.append("### V1 (Fig. 1): private-L1 characterisation and classification\n")
    md.append("R8.5: shared-friendly (SF) = replication > 10 %, L1 miss rate > 50 %, 16x-L1 "
              "speedup > 5 %; private-friendly (PF) = not SF and (miss rate < 10 % or Shared++ "
              "< 0.95 x private); the rest insensitive (IN).\n")
    md.append("| workload | size | CTAs/kernel | L1 miss rate | replication | replicas | "
              "16x L1 speedup | class |")
    md.append("|---|---|---|---|---|---|---|---|")
    for a in names:
        p = R[(a, "private")]
        c = "SF" if a in sf else "PF" if a in pf else "IN"
        size = " ".join(f"{k}={v}" for k, v in notes[a][0].items()) or "default"
        cta = (f"{p['min_ctas']}" if p["min_ctas"] == p["max_ctas"]
               else f"{p['min_ctas']}-{p['max_ctas']}")
        md.append(f"| {a} | {size} | {cta} | {p['l1_miss_rate']:.3f} | "
                  f"{p['replication_ratio']:.3f} | {p['replicas']:.2f} | "
                  f"{cls[a]['s16']:.3f} | {c} |")
    md.append(f"\nSF = {len(sf)} ({', '.join(sf)}); PF = {len(pf)} ({', '.join(pf)}); "
              f"IN = {len(ins)}.")

    if sf:
        md.append("\n### V2 (Fig. 2, Fig. 5): the ladder on the shared-friendly set "
                  "(normalised to private)\n")
        cfgs = ["shared", "shared-chunk", "shared++", "ideal"]
        md.append("| workload | " + " | ".join(f"IPC {c}" for c in cfgs) + " | " +
                  " | ".join(f"miss rate {c}" for c in cfgs) + " | " +
                  " | ".join(f"reply lat. {c}" for c in cfgs[:3]) + " |")
        md.append("|---|" + "---|" * (2 * len(cfgs) + 3))

        def mr(a, c):
            return R[(a, c)]["l1_miss_rate"] / R[(a, "private")]["l1_miss_rate"]

        def rl(a, c):
            return R[(a, c)]["noc_reply_latency_avg"] / R[(a, "private")]["noc_reply_latency_avg"]
        for a in sf:
            md.append(f"| {a} | " + " | ".join(f"{sp(a, c):.3f}" for c in cfgs) + " | " +
                      " | ".join(f"{mr(a, c):.3f}" for c in cfgs) + " | " +
                      " | ".join(f"{rl(a, c):.2f}" for c in cfgs[:3]) + " |")
        md.append("| geomean | " + " | ".join(f"{geomean([sp(a, c) for a in sf]):.3f}"
                                             for c in cfgs) + " | " +
                  " | ".join(f"{geomean([mr(a, c) for a in sf]):.3f}" for c in cfgs) + " | " +
                  " | ".join(f"{geomean([rl(a, c) for a in sf]):.2f}" for c in cfgs[:3]) + " |")
        md.append("\nUseful bytes of remote loads under Shared (Fig. 6), share of remote loads, "
                  "and Shared++ routing:\n")
        md.append("| workload | 32 B | 64 B | 96 B | 128 B | Shared++: to home | to L2 | "
                  "remote lat. shared / shared++ (core cyc.) |")
        md.append("|---|---|---|---|---|---|---|---|")
        for a in sf:
            r = R[(a, "shared")]
            n = sum(r[f"remote_loads_{b}B"] for b in (32, 64, 96, 128)) or 1
            q = R[(a, "shared++")]
            m = (q["remote_requests"] + q["direct_l2_requests"]) or 1
            md.append(f"| {a} | " + " | ".join(f"{r[f'remote_loads_{b}B'] / n:.2f}"
                                               for b in (32, 64, 96, 128)) +
                      f" | {q['remote_requests'] / m:.2f} | {q['direct_l2_requests'] / m:.2f} | "
                      f"{r['remote_latency_avg']:.0f} / {q['remote_latency_avg']:.0f} |")

    md.append("\n### V3 (Fig. 7, 9, 10, 11, 12, 13): dynamic schemes (IPC normalised to private)\n")
    md.append(f"DynEB/DynAMAT with R_S = {DYN['dyneb.sampling_accesses']}, R_EX = "
              f"{DYN['dyneb.execution_accesses']} (the paper's 512 / 16384 scaled 1:64, same 1:32 "
              "ratio). `decided` = cores that finished at least one sampling phase; `sampling` = "
              "share of local accesses (requester = home) made in sampling phases.\n")
    cf3 = ["shared++", "dyneb", "dynamat", "dyneb-nol1mrpr"]
    md.append("| workload | class | " + " | ".join(cf3) + " | Best(P,S++) | DynEB decided / "
              "shared decisions | sampling | miss rate P / S++ / DynEB | replicas P / DynEB / "
              "S++ |")
    md.append("|---|---|" + "---|" * (len(cf3) + 5))
    for grp, lab in ((sf, "SF"), (pf, "PF"), (ins, "IN")):
        for a in grp:
            if (a, "dyneb") not in R:
                continue
            d = R[(a, "dyneb")]
            vals = [f"{sp(a, c):.3f}" if sp(a, c) is not None else "-" for c in cf3]
            best = max(1.0, sp(a, "shared++"))
            md.append(f"| {a} | {lab} | " + " | ".join(vals) + f" | {best:.3f} | "
                      f"{d['dyn_cores_decided']}/28, {d['dyn_shared_decisions']}/"
                      f"{d['dyn_decisions']} | {d['dyn_sampling_frac']:.2f} | "
                      f"{R[(a, 'private')]['l1_miss_rate']:.3f} / "
                      f"{R[(a, 'shared++')]['l1_miss_rate']:.3f} / {d['l1_miss_rate']:.3f} | "
                      f"{R[(a, 'private')]['replicas']:.2f} / {d['replicas']:.2f} / "
                      f"{R[(a, 'shared++')]['replicas']:.2f} |")
    md.append("\nGeomeans per class (IPC over private; replicas and miss-rate ratios arithmetic "
              "/ geometric means):\n")
    md.append("| class | n | Shared++ | DynEB | DynAMAT | DynEB no L1MRpr | Best(P,S++) | "
              "DynEB / Best | min DynEB-noL1MRpr | miss S++/P | miss DynEB/P | miss DynEB/S++ | "
              "replicas P / DynEB / S++ |")
    md.append("|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    for grp, lab in ((sf, "SF"), (pf, "PF"), (ins, "IN"), (names, "all")):
        g = [a for a in grp if (a, "dyneb") in R]
        if not g:
            continue

        def gm(c, g=g):
            v = [sp(a, c) for a in g if sp(a, c) is not None]
            return f"{geomean(v):.3f} ({len(v)})" if v else "-"
        bestv = geomean([max(1.0, sp(a, "shared++")) for a in g])
        dyn = geomean([sp(a, "dyneb") for a in g])
        nol = [sp(a, "dyneb-nol1mrpr") for a in g if sp(a, "dyneb-nol1mrpr") is not None]
        mrat = [(R[(a, "shared++")]["l1_miss_rate"] / R[(a, "private")]["l1_miss_rate"],
                 R[(a, "dyneb")]["l1_miss_rate"] / R[(a, "private")]["l1_miss_rate"],
                 R[(a, "dyneb")]["l1_miss_rate"] / R[(a, "shared++")]["l1_miss_rate"])
                for a in g if R[(a, "private")]["l1_miss_rate"] > 0
                and R[(a, "shared++")]["l1_miss_rate"] > 0]
        rep = [sum(R[(a, c)]["replicas"] for a in g) / len(g)
               for c in ("private", "dyneb", "shared++")]
        md.append(f"| {lab} | {len(g)} | {gm('shared++')} | {gm('dyneb')} | {gm('dynamat')} | "
                  f"{gm('dyneb-nol1mrpr')} | {bestv:.3f} | {dyn / bestv:.3f} | "
                  f"{(min(nol) if nol else 0):.3f} | "
                  + " | ".join(f"{geomean([m[i] for m in mrat]):.3f}" for i in range(3)) +
                  f" | {rep[0]:.2f} / {rep[1]:.2f} / {rep[2]:.2f} |")

    v4 = [r for r in rows if r["experiment"] == "v4"]
    if v4:
        md.append("\n### V4 (Fig. 15a, §5.3): sensitivity on a few shared-friendly workloads "
                  "(IPC over the private run of the same variant)\n")
        apps = sorted({r["abbr"] for r in v4}, key=names.index)
        S = {(r["abbr"], r["variant"], r["config"]): r["ipc"] for r in v4}
        for a in apps:
            for c in ("private", "shared++", "dyneb", "ideal"):
                S[(a, "base", c)] = R[(a, c)]["ipc"] if (a, c) in R else None
        md.append("| variant | " + " | ".join(apps) + " | geomean |")
        md.append("|---|" + "---|" * (len(apps) + 1))
        for v, lab in (("base", "28-cycle L1, 16 KB"), ("hit8", "8-cycle L1"),
                       ("l1x2", "2x L1 (32 KB)")):
            for c in ("shared++", "dyneb", "ideal"):
                vals = [S.get((a, v, c)) / S[(a, v, "private")] if S.get((a, v, c)) else None
                        for a in apps]
                if not any(vals):
                    continue
                md.append(f"| {lab}: {c} | " + " | ".join(f"{x:.3f}" if x else "-" for x in vals)
                          + f" | {geomean([x for x in vals if x]):.3f} |")
        for c in ("shared++", "dyneb"):
            vals = [S[(a, "base", c)] / S[(a, "l1x2", "private")] for a in apps]
            md.append(f"| 16 KB {c} over Private(2x) | " + " | ".join(f"{x:.3f}" for x in vals)
                      + f" | {geomean(vals):.3f} |")

    ctl = [a for a in sf if (a, "dyneb-paper") in R or (a, "dyneb-reset") in R]
    if ctl:
        md.append("\n### V3 controls: DynEB phase lengths and the per-kernel sampling restart "
                  "(shared-friendly set)\n")
        md.append("IPC over private; `decided` = cores that decided at least once / cores; "
                  "`samp.` = share of local accesses made in sampling phases; `dec.` = decisions "
                  "(shared ones).\n")
        cc = [("dyneb", f"R_S={DYN['dyneb.sampling_accesses']}, R_EX="
                        f"{DYN['dyneb.execution_accesses']} (used)"),
              ("dyneb-rs64", "R_S=64, R_EX=2048"), ("dyneb-paper", "R_S=512, R_EX=16384 (paper)"),
              ("dyneb-reset", f"R_S={DYN['dyneb.sampling_accesses']} + kernel_reset=true")]
        md.append("| workload | kernels | " + " | ".join(f"{lab}: IPC / decided / samp. / dec."
                                                      for _, lab in cc) + " |")
        md.append("|---|---|" + "---|" * len(cc))
        for a in ctl:
            cells = []
            for c, _ in cc:
                d = R.get((a, c))
                cells.append("-" if d is None else
                             f"{sp(a, c):.3f} / {d['dyn_cores_decided']} / "
                             f"{d['dyn_sampling_frac']:.2f} / {d['dyn_decisions']} "
                             f"({d['dyn_shared_decisions']})")
            md.append(f"| {a} | {R[(a, 'private')]['kernels']} | " + " | ".join(cells) + " |")
        cells = []
        for c, _ in cc:
            v = [sp(a, c) for a in ctl if (a, c) in R]
            fr = [R[(a, c)]["dyn_sampling_frac"] for a in ctl if (a, c) in R]
            dc = [R[(a, c)]["dyn_cores_decided"] for a in ctl if (a, c) in R]
            cells.append(f"{geomean(v):.3f} / {sum(dc) / len(dc):.1f} / "
                         f"{sum(fr) / len(fr):.2f} / -" if v else "-")
        md.append("| geomean / mean | | " + " | ".join(cells) + " |")
    allfr = sorted(R[(a, "dyneb")]["dyn_sampling_frac"] for a in names if (a, "dyneb") in R)
    if allfr:
        md.append(f"\nSampling share of DynEB (used setting) over all {len(allfr)} workloads: "
                  f"median {allfr[len(allfr) // 2]:.2f}, min {allfr[0]:.2f}, max {allfr[-1]:.2f}; "
                  f"cores that decided: " + ", ".join(
                      f"{lab} {sum(R[(a, 'dyneb')]['dyn_cores_decided'] for a in g)}/"
                      f"{28 * len(g)}" for g, lab in ((sf, "SF"), (pf, "PF"), (ins, "IN"))
                      if g) + ".")

    vx = [r for r in rows if r["experiment"] == "v4x"]
    if vx:
        X = {(r["abbr"], r["variant"], r["config"]): r for r in vx}
        apps = [a for a in names if (a, "crossbar", "private") in X]
        xsf = [a for a in apps if a in sf]
        xot = [a for a in apps if a not in sf]
        md.append("\n### V4 (§5.5, Fig. 17a): 28-SM crossbar platform, core-to-core traffic on a "
                  "butterfly or via the L2 slices (IPC over private on the same crossbar)\n")
        md.append("Min(H,L2) is off on these networks (no Shared++). Classes are the mesh "
                  "classes of V1. `xbar/mesh private` = private IPC on the crossbar over private "
                  "IPC on the mesh.\n")
        md.append("| network: org | " + " | ".join(f"{a}{'' if a in sf else ' (' + ('PF' if a in pf else 'IN') + ')'}"
                                                  for a in apps) +
                  " | geomean SF | geomean others | geomean all |")
        md.append("|---|" + "---|" * (len(apps) + 3))
        md.append("| xbar/mesh private | " + " | ".join(
            f"{X[(a, 'crossbar', 'private')]['ipc'] / R[(a, 'private')]['ipc']:.3f}"
            for a in apps) + " | | | |")
        for v, _ in XBAR_NETS:
            for c in XBAR_SF_ONLY + XBAR_ORGS:
                vals = {a: X[(a, v, c)]["ipc"] / X[(a, "crossbar", "private")]["ipc"]
                        for a in apps if (a, v, c) in X}
                if not vals:
                    continue
                g = [geomean([vals[a] for a in grp if a in vals]) if any(a in vals for a in grp)
                     else None for grp in (xsf, xot, apps)]
                md.append(f"| {v}: {c} | " + " | ".join(
                    f"{vals[a]:.3f}" if a in vals else "-" for a in apps) + " | " +
                    " | ".join(f"{x:.3f}" if x else "-" for x in g) + " |")
        md.append("\nRemote round trip (shared_l1.remote_latency_avg, core cycles) and private "
                  "L1-miss round trip on the crossbar, and DynEB decisions (shared / all):\n")
        md.append("| workload | private L1 miss RT | " + " | ".join(
            f"{v} {c} remote" for v, _ in XBAR_NETS for c in XBAR_SF_ONLY + XBAR_ORGS) +
            " | butterfly DynEB dec. | via-l2 DynEB dec. |")
        md.append("|---|---|" + "---|" * (2 * len(XBAR_SF_ONLY + XBAR_ORGS) + 2))
        for a in apps:
            md.append(f"| {a} | {X[(a, 'crossbar', 'private')]['l1_miss_latency_avg']:.0f} | " +
                      " | ".join(f"{X[(a, v, c)]['remote_latency_avg']:.0f}"
                                 if (a, v, c) in X else "-"
                                 for v, _ in XBAR_NETS for c in XBAR_SF_ONLY + XBAR_ORGS) + " | "
                      + " | ".join(f"{X[(a, v, 'dyneb')]['dyn_shared_decisions']}/"
                                   f"{X[(a, v, 'dyneb')]['dyn_decisions']}"
                                   if (a, v, "dyneb") in X else "-" for v, _ in XBAR_NETS) + " |")

    vs = [r for r in rows if r["experiment"] == "v4s"]
    if vs:
        Q = {(r["abbr"], r["config"]): r for r in vs}
        apps = [a for a in names if (a, "private") in Q]
        r0 = vs[0]
        md.append(f"\n### V4 (Fig. 15b): core-count point ({r0['sms']} SMs, {r0['channels']} "
                  f"channels, L2 {r0['l2_size']}, 10x10 mesh; IPC over private of the same "
                  "platform)\n")
        md.append("| workload | CTAs/kernel | private IPC (84) / private IPC (28) | shared++ | "
                  "dyneb | DynEB decided / sampling | private L1 miss RT (84 / 28) |")
        md.append("|---|---|---|---|---|---|---|")
        for a in apps:
            p84 = Q[(a, "private")]
            d = Q.get((a, "dyneb"))
            md.append(f"| {a} | {p84['max_ctas']} | {p84['ipc'] / R[(a, 'private')]['ipc']:.3f} | "
                      + " | ".join(f"{Q[(a, c)]['ipc'] / p84['ipc']:.3f}" if (a, c) in Q else "-"
                                   for c in ("shared++", "dyneb")) + " | " +
                      (f"{d['dyn_cores_decided']}/{d['sms']}, {d['dyn_sampling_frac']:.2f}"
                       if d else "-") +
                      f" | {p84['l1_miss_latency_avg']:.0f} / "
                      f"{R[(a, 'private')]['l1_miss_latency_avg']:.0f} |")
        md.append("| geomean | | | " + " | ".join(
            f"{geomean([Q[(a, c)]['ipc'] / Q[(a, 'private')]['ipc'] for a in apps if (a, c) in Q]):.3f}"
            for c in ("shared++", "dyneb")) + " | | |")

    v5 = [r for r in rows if r["experiment"] == "v5"]
    md.append("\n### V5 (§5.2 'Effect on Latency'): calibration\n")
    md.append("Core cycles (1.4 GHz). `L1 miss RT` = shared_l1.l1_miss_latency_avg (L1 miss to "
              "fill), `remote` = shared_l1.remote_latency_avg (requester send to reply), "
              "`overhead` = remote - L1 miss RT of the same run.\n")
    md.append(f"`overhead - {HOME_L1}` removes the home's L1 access (l1d.hit_latency).\n")
    md.append("| run | NoC variant | org | L1 miss RT | min | remote | overhead | "
              f"overhead - {HOME_L1} | NoC req / reply lat. (NoC cyc.) | hops |")
    md.append("|---|---|---|---|---|---|---|---|---|---|")
    for r in v5:
        ov = (r["remote_latency_avg"] - r["l1_miss_latency_avg"]) if r["remote_latency_avg"] else 0
        md.append(f"| {r['abbr']} {r['args']} | {r['variant']} | {r['config']} | "
                  f"{r['l1_miss_latency_avg']:.0f} | {r['l1_miss_latency_min']} | "
                  f"{r['remote_latency_avg']:.0f} | {ov:.0f} | "
                  f"{(ov - HOME_L1) if r['remote_latency_avg'] else 0:.0f} | "
                  f"{r['noc_request_latency_avg']:.1f} / {r['noc_reply_latency_avg']:.1f} | "
                  f"{r['noc_hops_avg']:.2f} |")
    lat = [R[(a, "private")]["l1_miss_latency_avg"] for a in names]
    md.append(f"\nLoaded private baseline, mean over {len(names)} workloads of the per-run mean "
              f"L1 miss round trip: {sum(lat) / len(lat):.0f} core cycles (median "
              f"{sorted(lat)[len(lat) // 2]:.0f}, min {min(lat):.0f}, max {max(lat):.0f}); "
              f"shared-friendly set: "
              f"{sum(R[(a, 'private')]['l1_miss_latency_avg'] for a in sf) / max(1, len(sf)):.0f}."
              " Paper: 247.")
    if sf:
        ov = [R[(a, "shared")]["remote_latency_avg"] - R[(a, "shared")]["l1_miss_latency_avg"]
              for a in sf]
        ov2 = [R[(a, "shared")]["remote_latency_avg"] - R[(a, "private")]["l1_miss_latency_avg"]
               for a in sf]
        md.append(f"Shared (SF set): remote latency - L1 miss RT of the same run: mean "
                  f"{sum(ov) / len(ov):.0f}; remote latency - private L1 miss RT: mean "
                  f"{sum(ov2) / len(ov2):.0f} core cycles. Paper: 54.")
    write_tables(args.out, md)

    bars = bar_plotter("shared_l1_experiment", args.out)
    if bars is None:
        return
    wide = _wide_bars(args.out)
    wide("v1_characterisation.png", "Private L1 characterisation (Fig. 1)", "ratio",
         [("L1 miss rate", [R[(a, "private")]["l1_miss_rate"] for a in names]),
          ("replication ratio", [R[(a, "private")]["replication_ratio"] for a in names]),
          ("16x L1 speedup - 1", [cls[a]["s16"] - 1 for a in names])], names, 0.0)
    if sf:
        cfgs = ["shared", "shared-chunk", "shared++", "ideal"]
        bars("v2_ladder_ipc.png", "IPC over private, shared-friendly set (Fig. 2a/5a)",
             "normalised IPC",
             [(c, [sp(a, c) for a in sf] + [geomean([sp(a, c) for a in sf])]) for c in cfgs],
             sf + ["gmean"], 1.0)
        bars("v2_ladder_missrate.png", "L1 miss rate over private (Fig. 2b/5b)",
             "normalised miss rate",
             [(c, [R[(a, c)]["l1_miss_rate"] / R[(a, "private")]["l1_miss_rate"] for a in sf])
              for c in cfgs], sf, 1.0)
    vx = [r for r in rows if r["experiment"] == "v4x"]
    if vx:
        X = {(r["abbr"], r["variant"], r["config"]): r["ipc"] for r in vx}
        apps = [a for a in names if (a, "crossbar", "private") in X]
        ser = [(f"{v}: {c}", [X[(a, v, c)] / X[(a, "crossbar", "private")]
                              if (a, v, c) in X else 0 for a in apps])
               for v, _ in XBAR_NETS for c in XBAR_SF_ONLY + XBAR_ORGS]
        bars("v4_crossbar.png", "28-SM crossbar: IPC over private (Fig. 17a)", "normalised IPC",
             ser, apps, 1.0)
    g = [a for a in names if (a, "dyneb") in R]
    srt = sorted(g, key=lambda a: sp(a, "dyneb"))
    wide("v3_ipc.png", "IPC over private (Fig. 10/11), sorted by DynEB", "normalised IPC",
         [(c, [sp(a, c) or 0 for a in srt]) for c in ("shared++", "dyneb", "dynamat",
                                                       "dyneb-nol1mrpr")],
         srt, 1.0)
    wide("v3_replicas.png", "Replicas per line (Fig. 12)", "replicas",
         [(c, [R[(a, c)]["replicas"] for a in srt]) for c in ("private", "dyneb", "shared++")],
         srt, 1.0)


def _wide_bars(out):
    """Grouped bars for the all-workload plots: wider figure, vertical workload labels."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    def bars(fname, title, ylabel, series, labels, hline=None):
        fig, ax = plt.subplots(figsize=(15, 4.2))
        width = 0.8 / len(series)
        for i, (name, vals) in enumerate(series):
            ax.bar([x + i * width for x in range(len(labels))], vals, width, label=name)
        ax.set_xticks([x + 0.4 - width / 2 for x in range(len(labels))])
        ax.set_xticklabels(labels, rotation=90, fontsize=8)
        ax.set_ylabel(ylabel)
        ax.set_title(title)
        if hline is not None:
            ax.axhline(hline, color="black", linewidth=0.8)
        ax.legend(fontsize=8, ncol=len(series))
        fig.tight_layout()
        fig.savefig(os.path.join(out, fname), dpi=90)
        plt.close(fig)
    return bars


if __name__ == "__main__":
    main()
