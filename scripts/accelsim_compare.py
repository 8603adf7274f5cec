#!/usr/bin/env python3
"""Compares locsim's volta platform with Accel-Sim (SM7_TITANV) on the same traces
(docs/validation/accelsim.md).

  scripts/accelsim_compare.py [--locsim build-cc/locsim] [--check]

Writes the hand-written traces (scripts/accelsim_traces.py) and locsim's exports of seven
workloads into a temporary directory, checks that every trace is byte-identical to the one
Accel-Sim ran (md5 recorded in docs/validation/accelsim/accelsim_results.csv), runs locsim
`--platform volta --trace` on each (the platform and two control configurations), and writes
docs/validation/accelsim/comparison.csv and the tables between the markers of
docs/validation/accelsim.md. Accel-Sim itself is not needed: its numbers come from the CSV.

--check: only verifies the trace md5s and runs the three L1 chains (a few seconds); exit 1 on
a mismatch (the Accel-Sim numbers must then be re-measured, see the page).
"""
import argparse
import csv
import glob
import hashlib
import json
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, HERE)
import accelsim_traces  # noqa: E402

DOC = os.path.join(ROOT, "docs", "validation", "accelsim.md")
DATA = os.path.join(ROOT, "docs", "validation", "accelsim")
BEGIN, END = "<!-- BEGIN accelsim_compare.py tables -->", "<!-- END accelsim_compare.py tables -->"
PS_PER_CYCLE = 1e12 / 1.2e9  # volta core clock (clock.core = 1.2 GHz, TITAN V's 1200 MHz)

# Workloads exported with `locsim export-trace` and the sizes Accel-Sim ran.
WORKLOADS = [
    ("vecadd", ["workload.n=262144"]),
    ("transpose", ["workload.size_x=1024", "workload.size_y=512"]),
    ("conv2d", ["workload.n=384"]),
    ("hotspot", ["workload.grid=192", "workload.sim_time=2"]),
    ("kmeans", ["workload.points=40960", "workload.features=4", "workload.iterations=1"]),
    ("bfs", ["workload.nodes=16384", "workload.threads=64"]),
    ("matmul", ["workload.n=128"]),
]
HAND = ["saxpy_120", "saxpy_240"]

# Control configurations: each moves locsim's volta towards Accel-Sim's SM7_TITANV on one axis.
# "l1": Accel-Sim's unified L1 (the size it chose for the kernel, 4 sets as its S:4:128:64 base
# scaled by the unified size), its measured 24-cycle hit (locsim's chain measures
# l1d.hit_latency + 1) and GPGPU-Sim's keep-the-line-on-store policy.
# "all": + DRAM controller latency lowered until the DRAM chain gives Accel-Sim's 344 cycles
# (71 -> 38 DRAM cycles) and hashed L2 set indexing (Accel-Sim's IPOLY, here locsim's xor).
VARIANTS = ["volta", "l1", "all"]


def variant_sets(variant, l1_kb):
    if variant == "volta":
        return []
    s = [f"l1d.size={l1_kb}KiB", f"l1d.ways={l1_kb * 1024 // (4 * 128)}", "l1d.hit_latency=23",
         "l1d.write_hit=update"]
    if variant == "all":
        s += ["dram.controller_latency=38", "l2.indexing=xor"]
    return s


def trace_md5(d):
    h = hashlib.md5()
    for f in sorted(glob.glob(os.path.join(d, "*"))):
        h.update(os.path.basename(f).encode())
        with open(f, "rb") as fh:
            h.update(fh.read())
    return h.hexdigest()


MAX_SRC = 4  # register sources Accel-Sim's trace parser accepts per line (trace_parser.h)


def export(locsim, tmp, name, sets):
    # conv2d has one consumer of nine loads: the exporter spreads its sources over the Compute
    # block's filler lines, MAX_SRC per line (the instruction count does not change).
    cmd = [locsim, "export-trace", "--workload", name, "--max-sources", str(MAX_SRC)]
    for s in sets:
        cmd += ["--set", s]
    d = os.path.join(tmp, name)
    subprocess.run(cmd + [d], check=True, stdout=subprocess.DEVNULL)


def run(locsim, trace_dir, sets, tmp, tag):
    js = os.path.join(tmp, tag + ".json")
    cmd = [locsim, "run", "--platform", "volta", "--trace",
           os.path.join(trace_dir, "kernelslist.g"), "--quiet", "--stats-json", js]
    for s in sets:
        cmd += ["--set", s]
    subprocess.run(cmd, check=True)
    with open(js) as f:
        return json.load(f)


def locsim_metrics(d):
    l1, l2, dram, sm = d["l1d"], d["l2"], d["dram"], d["sm"]
    loads = l1["hits"] + l1["misses"] + l1["mshr_hits"]
    return {
        "cycles": d["cycles"],
        "cycles_per_kernel": "+".join(str(k["cycles"]) for k in d["kernels"]),
        "warp_insts": d["warp_insts"],
        "l1_load_hit_rate": round(1 - l1["misses"] / loads, 4) if loads else "",
        "l2_hit_rate": round(1 - l2["misses"] / l2["accesses"], 4) if l2["accesses"] else "",
        "dram_read_bytes": dram["read_bytes"],
        "dram_write_bytes": dram["write_bytes"],
        "load_latency": round(sm["load_latency_avg"] / PS_PER_CYCLE, 1)
        if sm.get("load_latency_count") else "",
    }


def accelsim_metrics(r):
    tot = int(r["l1d_global_R_total_access"] or 0)
    miss = int(r["l1d_global_R_miss"] or 0) + int(r["l1d_global_R_sector_miss"] or 0)
    return {
        "cycles": int(r["cycles_total"]),
        "cycles_per_kernel": r["cycles_per_kernel"],
        "warp_insts": int(r["warp_insts"]),
        "l1_load_hit_rate": round(1 - miss / tot, 4) if tot else "",
        "l2_hit_rate": float(r["l2_hit_rate"]) if r["l2_hit_rate"] else "",
        "dram_read_bytes": int(r["dram_read_bytes"]),
        "dram_write_bytes": int(r["dram_write_bytes"]),
        "load_latency": int(r["avg_mem_fetch_latency"]) if r["avg_mem_fetch_latency"] else "",
    }


def chain_latencies(cyc):
    """(level, method, per-load cycles) from the chain cycles {trace: [kernel cycles]}."""
    t = {k: sum(v) for k, v in cyc.items()}
    out = [("L1 hit", "(l1_p65 - l1_p1) / 512", (t["l1_p65"] - t["l1_p1"]) / 512)]
    if "l2_2pass" in t:
        out += [("L2 hit", "(l2_2pass - l2_1pass) / 2048", (t["l2_2pass"] - t["l2_1pass"]) / 2048),
                ("L2 hit", "(l2_2kern kernel 2 - zero) / 2048",
                 (cyc["l2_2kern"][1] - t["zero"]) / 2048),
                ("DRAM (4 KiB stride)", "(dram_n512 - dram_n256) / 256",
                 (t["dram_n512"] - t["dram_n256"]) / 256),
                ("DRAM (128 B stride, cold)", "(l2_1pass - zero) / 2048",
                 (t["l2_1pass"] - t["zero"]) / 2048),
                ("L2 hit, LDG.E.64.STRONG.GPU", "(l2strong_p65 - l2strong_p1) / 512",
                 (t["l2strong_p65"] - t["l2strong_p1"]) / 512)]
    out.append(("fixed overhead", "zero (MOV, IADD3, EXIT)", t["zero"]))
    return out


def read_accelsim():
    with open(os.path.join(DATA, "accelsim_results.csv")) as f:
        return {r["trace"]: r for r in csv.DictReader(f)}


def fmt(v, nd=0):
    if v == "" or v is None:
        return "-"
    if isinstance(v, float) and nd:
        return f"{v:.{nd}f}"
    return f"{v:,}".replace(",", " ") if isinstance(v, int) else str(round(v, nd or 1))


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--locsim", default=os.path.join(ROOT, "build-cc", "locsim"))
    ap.add_argument("--check", action="store_true")
    a = ap.parse_args()
    acc = read_accelsim()
    chains = [c for c, _ in accelsim_traces.CHAINS]
    if a.check:
        chains = ["zero", "l1_p1", "l1_p65"]
    with tempfile.TemporaryDirectory(prefix="accelsim_compare.") as tmp:
        dirs = {}
        for c, _ in accelsim_traces.CHAINS:
            accelsim_traces.write_chain(tmp, c)
            dirs[c] = os.path.join(tmp, c)
        for g in (120, 240):
            accelsim_traces.write_saxpy(tmp, g)
            dirs[f"saxpy_{g}"] = os.path.join(tmp, f"saxpy_{g}")
        for name, sets in WORKLOADS:
            export(a.locsim, tmp, name, sets)
            dirs[name] = os.path.join(tmp, name)
        bad = [t for t, d in dirs.items()
               if t not in acc or acc[t]["trace_md5"] != trace_md5(d)]
        if bad:
            print("accelsim_compare: traces differ from those Accel-Sim ran (or have no "
                  "Accel-Sim row): " + ", ".join(bad), file=sys.stderr)
        if a.check:
            cyc = {c: [k["cycles"] for k in run(a.locsim, dirs[c], [], tmp, c)["kernels"]]
                   for c in chains}
            lat = chain_latencies(cyc)[0][2]
            # locsim's chain must see its own configured hit latency (+1 issue cycle); the
            # Accel-Sim figure for the same traces comes from the CSV
            ok = not bad and abs(lat - 29) < 0.5
            print(f"accelsim_compare --check: {len(dirs)} traces, md5 "
                  f"{'ok' if not bad else 'MISMATCH'}, locsim L1-hit chain {lat:.2f} cycles")
            return 0 if ok else 1

        rows, cyc = [], {v: {} for v in VARIANTS}
        for t in chains + HAND + [w for w, _ in WORKLOADS]:
            r = acc[t]
            rows.append(dict(trace=t, simulator="accelsim", config=r["config"] + " " +
                             r["options"], **accelsim_metrics(r)))
            for v in VARIANTS:
                d = run(a.locsim, dirs[t], variant_sets(v, int(r["l1d_size_kb"])), tmp, f"{t}.{v}")
                m = locsim_metrics(d)
                if t in chains:
                    cyc[v][t] = [k["cycles"] for k in d["kernels"]]
                rows.append(dict(trace=t, simulator="locsim", config="volta" + "".join(
                    " --set " + s for s in variant_sets(v, int(r["l1d_size_kb"]))), variant=v, **m))
                print(f"{t:14s} {v:6s} cycles {m['cycles']}", flush=True)
    os.makedirs(DATA, exist_ok=True)
    cols = ["trace", "simulator", "variant", "config", "cycles", "cycles_per_kernel",
            "warp_insts", "l1_load_hit_rate", "l2_hit_rate", "dram_read_bytes",
            "dram_write_bytes", "load_latency"]
    with open(os.path.join(DATA, "comparison.csv"), "w", newline="") as f:
        w = csv.DictWriter(f, cols)
        w.writeheader()
        for r in rows:
            w.writerow({k: r.get(k, "") for k in cols})
    md = tables(rows, acc, cyc, chains, bad)
    with open(DOC) as f:
        page = f.read()
    i, j = page.index(BEGIN), page.index(END)
    with open(DOC, "w") as f:
        f.write(page[:i + len(BEGIN)] + "\n" + md + "\n" + page[j:])
    print(md)
    return 0


def tables(rows, acc, cyc, chains, bad):
    by = {(r["trace"], r.get("variant", "accelsim")): r for r in rows}
    acyc = {}
    for c in chains:
        acyc[c] = [int(x) for x in acc[c]["cycles_per_kernel"].split("+")]
    lat_a = chain_latencies(acyc)
    lat = {v: chain_latencies(cyc[v]) for v in VARIANTS}
    md = ["### Load latency (dependent-load chains, core cycles per load)", "",
          "| level | method | Accel-Sim | locsim volta | locsim l1 control | locsim all control |",
          "|---|---|---:|---:|---:|---:|"]
    for i, (lvl, meth, x) in enumerate(lat_a):
        md.append(f"| {lvl} | {meth} | {x:.1f} | " +
                  " | ".join(f"{lat[v][i][2]:.1f}" for v in VARIANTS) + " |")
    md += ["", "### Workloads: cycles", "",
           "| trace | kernels | warp insts (A = L) | Accel-Sim | locsim volta | L/A | "
           "locsim l1 control | L/A | locsim all control | L/A |",
           "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
    work = HAND + [w for w, _ in WORKLOADS]
    for t in work:
        A = by[(t, "accelsim")]
        same = "" if A["warp_insts"] == by[(t, "volta")]["warp_insts"] else " (L differs!)"
        cells = []
        for v in VARIANTS:
            c = by[(t, v)]["cycles"]
            cells += [fmt(c), f"{c / A['cycles']:.2f}"]
        md.append(f"| {t} | {len(A['cycles_per_kernel'].split('+'))} | "
                  f"{fmt(A['warp_insts'])}{same} | {fmt(A['cycles'])} | " + " | ".join(cells) + " |")
    md += ["", "### Workloads: memory statistics (A = Accel-Sim, L = locsim volta, "
           "C = locsim all control)", "",
           "| trace | L1 load hit A / L / C | L2 hit A / L / C | DRAM read KiB A / L / C | "
           "DRAM write KiB A / L / C | Accel-Sim miss latency | locsim load latency L / C |",
           "|---|---|---|---|---|---:|---|"]

    def trio(t, k, f):
        return " / ".join(f(by[(t, v)][k]) for v in ("accelsim", "volta", "all"))

    def rate(x):
        return "-" if x == "" else f"{x:.3f}"

    def kib(x):
        return fmt(int(x) // 1024)
    for t in work:
        md.append(f"| {t} | {trio(t, 'l1_load_hit_rate', rate)} | "
                  f"{trio(t, 'l2_hit_rate', rate)} | {trio(t, 'dram_read_bytes', kib)} | "
                  f"{trio(t, 'dram_write_bytes', kib)} | {fmt(by[(t, 'accelsim')]['load_latency'])}"
                  f" | {fmt(by[(t, 'volta')]['load_latency'])} / {fmt(by[(t, 'all')]['load_latency'])} |")
    if bad:
        md += ["", "**Warning:** these traces differ from the ones Accel-Sim ran, so their rows "
               "compare different inputs: " + ", ".join(bad)]
    return "\n".join(md)


if __name__ == "__main__":
    sys.exit(main())
