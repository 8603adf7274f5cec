#!/usr/bin/env python3
"""Golden statistics: a fixed matrix of locsim runs whose simulated statistics must not change.

Every refactor and speed change is checked against tests/golden/golden_stats.json: each run of the
matrix (every workload at a small size on fermi, pascal, volta and clustered; the seed 001 and
seed 004 mechanisms; CTA policies; Accel-Sim traces; functional replays) is re-run and every
simulated number, aggregated and per module instance, must be identical. Host figures (wall time,
rates, memory) and the echo of the configuration are not compared.

  scripts/golden_stats.py --check  [--locsim build/locsim] [-j N]   compare (exit 1 on a difference)
  scripts/golden_stats.py --record [--locsim build/locsim] [-j N]   rewrite the golden file

A number may only change in a commit that regenerates the file and says why.
"""
import argparse
import concurrent.futures
import json
import os
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
GOLDEN = os.path.join(ROOT, "tests", "golden", "golden_stats.json")

# Small sizes: a few hundred to a few thousand CTAs' worth of work at most, so the whole matrix
# runs in a couple of minutes on two cores.
SMALL = {
    "atax": {"n": "256"},
    "backprop": {"in": "1024"},
    "bfs": {"nodes": "2048", "degree": "4"},
    "bicg": {"n": "256"},
    "blackscholes": {"options": "32768", "iterations": "2"},
    "btree": {"records": "65536", "queries": "256", "range_queries": "128"},
    "conv2d": {"n": "256"},
    "covariance": {"n": "64"},
    "dct8x8": {"width": "128", "height": "64"},
    "doitgen": {"n": "16"},
    "dwt2d": {"width": "96", "height": "80", "levels": "2"},
    "fdtd2d": {"n": "64", "tmax": "2"},
    "fdtd3d": {"dimx": "32", "dimy": "32", "dimz": "8", "timesteps": "2"},
    "gemm": {"n": "64"},
    "gesummv": {"n": "256"},
    "heartwall": {"frames": "2", "shrink": "8"},
    "histo": {"width": "128", "height": "128", "ranges": "2"},
    "histogram": {"n": "16384", "ctas": "60"},
    "hotspot": {"grid": "128", "pyramid_height": "2", "sim_time": "4"},
    "kmeans": {"points": "2048", "features": "8", "iterations": "1"},
    "laplace": {"nx": "64", "ny": "32", "nz": "8", "iterations": "2"},
    "lavamd": {"boxes1d": "1"},
    "libor": {"npath": "64", "ctas": "2"},
    "lud": {"dim": "64"},
    "matmul": {"n": "64"},
    "mergesort": {"n": "4096"},
    "mvt": {"n": "256"},
    "nn": {"records": "20000"},
    "particlefilter": {"particles": "700", "frames": "3"},
    "pathfinder": {"cols": "2000", "rows": "21", "pyramid_height": "10"},
    "sad": {"width": "32", "height": "32"},
    "scalarprod": {"vectors": "32", "elements": "2048", "ctas": "16"},
    "spmv": {"rows": "4096", "nnz_per_row": "6"},
    "srad": {"rows": "64", "cols": "64", "iterations": "2"},
    "storegpu": {"ctas": "16"},
    "streamcluster": {"num": "2048", "dim": "8", "k": "5", "invocations": "1"},
    "syr2k": {"n": "48"},
    "syrk": {"n": "64"},
    "tpacf": {"sets": "4", "points": "300"},
    "transpose": {"size_x": "256", "size_y": "128"},
    "vecadd": {"n": "65536"},
}
PLATFORMS = ["fermi", "pascal", "volta", "clustered"]

ICC = {"icc.enabled": "true"}
ICC_CC = {"icc.enabled": "true", "icc.coalesced_cache": "true"}


def matrix():
    """[(id, command kind, dict)] in a fixed order."""
    runs = []

    def run(rid, platform, workload=None, wargs=None, sets=None, trace=None, check=False):
        runs.append((rid, "run", {"platform": platform, "workload": workload,
                                  "wargs": wargs if wargs is not None else SMALL.get(workload, {}),
                                  "sets": sets or {}, "trace": trace, "check": check}))

    for p in PLATFORMS:
        for w in sorted(SMALL):
            run(f"{p}/{w}", p, w)
    # Seed 001: ICC, ICC + coalesced cache, the clustered CTA policies.
    for w, a in [("matmul", {"n": "128"}), ("hotspot", None), ("srad", None), ("lud", None),
                 ("histogram", None)]:
        run(f"clustered/{w}/icc", "clustered", w, a, ICC)
        run(f"clustered/{w}/icc+cc", "clustered", w, a, ICC_CC)
    for pol in ["rr", "two-level-rr", "global-rr", "greedy", "distributed-block", "bcs"]:
        run(f"clustered/matmul/{pol}", "clustered", "matmul", {"n": "128"},
            {"dispatcher.policy": pol})
    run("clustered/hotspot/db+icc+cc", "clustered", "hotspot", None,
        dict(ICC_CC, **{"dispatcher.policy": "distributed-block"}))
    run("fermi/matmul/bcs", "fermi", "matmul", {"n": "128"}, {"dispatcher.policy": "bcs"})
    # Seed 003: PAVER's schedulers (locality graph, METIS, group queue, task stealing).
    for pol in ["paver-mst", "paver-kway", "paver-rb"]:
        run(f"fermi/hotspot/{pol}", "fermi", "hotspot", {"grid": "256", "sim_time": "2"},
            {"dispatcher.policy": pol})
    run("volta/matmul/paver-rb", "volta", "matmul", {"n": "208"}, {"dispatcher.policy": "paver-rb"})
    run("pascal/srad/paver-kway", "pascal", "srad", None, {"dispatcher.policy": "paver-kway"})
    # Seed 000: the Locality Descriptor's configurations on fermi with the paper's 32 KB L1, and
    # the §2.1 cluster-shape mode.
    for mode, w, a in [("sched", "matmul", {"n": "128"}), ("cache", "spmv", None),
                       ("pref", "dwt2d", None), ("all", "syrk", {"n": "64"}),
                       ("all", "lavamd", None),
                       ("all", "histo", {"width": "256", "height": "256", "ranges": "4"})]:
        run(f"fermi/{w}/ldesc-{mode}", "fermi", w, a,
            {"l1d.size": "32KiB", "ldesc.mode": mode, "ldesc.unpin_period": "20000"})
    run("fermi/conv2d/ldesc-cluster-4x4", "fermi", "conv2d", {"n": "256"},
        {"ldesc.stats": "true", "dispatcher.policy": "ldesc-cluster",
         "dispatcher.ldesc-cluster.shape": "4x4"})
    # Seed 000 §4.6: the mcm topology under its four NUMA configurations.
    run("mcm/vecadd/xor", "mcm", "vecadd", {"n": "65536"})
    for pol in ["first-touch", "ldesc-placement", "ldesc"]:
        run(f"mcm/matmul/{pol}", "mcm", "matmul", {"n": "128"}, {"numa.policy": pol})
    # Seed 002: the mesh platform under every L1 organisation, and the butterfly variant.
    for org in ["private", "shared", "shared-chunk", "shared++", "ideal"]:
        run(f"mesh/matmul/{org}", "mesh", "matmul", {"n": "128"}, {"l1d.organization": org})
    for org in ["dyneb", "dynamat"]:
        run(f"mesh/matmul/{org}", "mesh", "matmul", {"n": "256"},
            {"l1d.organization": org, "dyneb.sampling_accesses": "2",
             "dyneb.execution_accesses": "64"})
    run("mesh/bfs/shared++", "mesh", "bfs", {"nodes": "4096"}, {"l1d.organization": "shared++"})
    run("mesh-xbar/matmul/butterfly", "mesh", "matmul", {"n": "128"},
        {"gpu.topology": "crossbar", "l1d.organization": "shared-chunk",
         "shared_l1.network": "butterfly"})
    run("mesh-xbar/matmul/via-l2", "mesh", "matmul", {"n": "128"},
        {"gpu.topology": "crossbar", "l1d.organization": "shared-chunk",
         "shared_l1.network": "via-l2"})
    # The Verilated ICC merge table (issue 17): its statistics must stay those of the TLM table.
    run("clustered/matmul/icc+cc/rtl", "clustered", "matmul", {"n": "128"},
        dict(ICC_CC, **{"icc.model": "rtl"}))
    # Seed 004: MDB-local/global, static bypass, SWL, PDP, the no-L1 configuration, LRR.
    for w in ["atax", "kmeans", "syr2k"]:
        run(f"fermi/{w}/mdb-local", "fermi", w, None, {"l1d.bypass": "mdb-local"})
        run(f"fermi/{w}/mdb-global", "fermi", w, None, {"l1d.bypass": "mdb-global"})
    run("fermi/atax/mdb-local-xor", "fermi", "atax", None,
        {"l1d.indexing": "xor", "l1d.bypass": "mdb-local"})
    run("fermi/matmul/bypass-all", "fermi", "matmul", None, {"l1d.bypass": "all"})
    run("fermi/matmul/swl1", "fermi", "matmul", None, {"sm.warp_limit": "1"})
    run("fermi/syr2k/swl8", "fermi", "syr2k", None, {"sm.warp_limit": "8"})
    run("fermi/syr2k/pdp", "fermi", "syr2k", {"n": "64"}, {"l1d.pdp": "true"})
    run("fermi/atax/pdp+swl", "fermi", "atax", None, {"l1d.pdp": "true", "sm.warp_limit": "8"})
    run("fermi/matmul/no-l1", "fermi", "matmul", None, {"l1d.enabled": "false"})
    run("fermi/matmul/lrr", "fermi", "matmul", None, {"sm.scheduler": "lrr"})
    run("volta/hotspot/xor-hash", "volta", "hotspot", None,
        {"mem.channel_hash": "xor", "l2.indexing": "xor"})
    # The data-integrity mode with protocol checkers must not change the timing.
    run("fermi/lud/check", "fermi", "lud", None, None, check=True)
    run("clustered/matmul/icc+cc/check", "clustered", "matmul", {"n": "128"}, ICC_CC, check=True)
    # Accel-Sim traces: the committed one-warp trace, and two written by export-trace.
    run("fermi/trace/one_warp", "fermi",
        trace=os.path.join(ROOT, "tests", "data", "traces", "one_warp", "kernelslist.g"))
    run("volta/trace/matmul", "volta", trace="@export:matmul:n=64")
    run("pascal/trace/srad", "pascal", trace="@export:srad:rows=64,cols=64,iterations=2")
    # Functional replay.
    for p in ["fermi", "volta", "clustered"]:
        for w in ["matmul", "hotspot", "atax", "mergesort"]:
            runs.append((f"replay/{p}/{w}", "replay",
                         {"platform": p, "workload": w, "wargs": SMALL[w], "sets": {}}))
    runs.append(("replay/fermi/hotspot/paver-rb", "replay",
                 {"platform": "fermi", "workload": "hotspot", "wargs": SMALL["hotspot"],
                  "sets": {"dispatcher.policy": "paver-rb"}}))
    return runs


def export_trace(locsim, spec, tmp):
    _, w, args = spec.split(":", 2)
    d = os.path.join(tmp, "trace_" + w)
    if not os.path.exists(os.path.join(d, "kernelslist.g")):
        cmd = [locsim, "export-trace", "--workload", w]
        for kv in args.split(","):
            cmd += ["--set", "workload." + kv]
        subprocess.run(cmd + [d], check=True, capture_output=True, text=True)
    return os.path.join(d, "kernelslist.g")


def simulated(stats):
    """The simulated part of a stats JSON: everything but host figures and the config echo."""
    return {k: v for k, v in stats.items() if k not in ("host", "config")}


def execute(locsim, rid, kind, spec, tmp):
    out = os.path.join(tmp, rid.replace("/", "__") + ".json")
    cmd = [locsim, kind, "--platform", spec["platform"], "--stats-json", out]
    if kind == "run":
        cmd += ["--quiet", "--per-instance"]
        if spec["trace"]:
            t = spec["trace"]
            if t.startswith("@export:"):
                t = export_trace(locsim, t, tmp)
            cmd += ["--trace", t]
        else:
            cmd += ["--workload", spec["workload"]]
        if spec["check"]:
            cmd += ["--check-data", "--check-protocol"]
    else:
        cmd += ["--workload", spec["workload"]]
    if not spec.get("trace"):
        for k, v in sorted(spec.get("wargs", {}).items()):
            cmd += ["--set", f"workload.{k}={v}"]
    for k, v in sorted(spec["sets"].items()):
        cmd += ["--set", f"{k}={v}"]
    env = dict(os.environ, SYSTEMC_DISABLE_COPYRIGHT_MESSAGE="1")
    p = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, env=env,
                       timeout=600)
    if p.returncode != 0:
        tail = p.stderr.strip().splitlines()[-1:] or ["(no output)"]
        return rid, {"error": f"exit {p.returncode}: {tail[0]}", "command": " ".join(cmd)}
    with open(out) as f:
        return rid, simulated(json.load(f))


def diff(a, b, path, out, limit=20):
    if len(out) >= limit:
        return
    if isinstance(a, dict) and isinstance(b, dict):
        for k in sorted(set(a) | set(b)):
            if k not in a:
                out.append(f"{path}.{k}: new (= {b[k]!r:.80})")
            elif k not in b:
                out.append(f"{path}.{k}: missing (golden {a[k]!r:.80})")
            else:
                diff(a[k], b[k], f"{path}.{k}", out, limit)
    elif isinstance(a, list) and isinstance(b, list) and len(a) == len(b):
        for i, (x, y) in enumerate(zip(a, b)):
            diff(x, y, f"{path}[{i}]", out, limit)
    elif a != b or type(a) is not type(b):
        out.append(f"{path}: golden {a!r:.80} now {b!r:.80}")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    mode = ap.add_mutually_exclusive_group(required=True)
    mode.add_argument("--check", action="store_true", help="compare with the golden file")
    mode.add_argument("--record", action="store_true", help="rewrite the golden file")
    ap.add_argument("--locsim", default=os.path.join(ROOT, "build", "locsim"))
    ap.add_argument("-j", type=int, default=os.cpu_count() or 2, help="parallel runs")
    ap.add_argument("--only", default="",
                    help="only run ids containing this text (with --record: re-record those runs, "
                         "keep the others' recorded values)")
    ap.add_argument("--golden", default=GOLDEN)
    a = ap.parse_args()
    if not os.access(a.locsim, os.X_OK):
        sys.exit(f"golden_stats: {a.locsim}: no such executable (build first)")
    runs = [r for r in matrix() if a.only in r[0]]
    golden = {}
    if a.check:
        with open(a.golden) as f:
            golden = json.load(f)["runs"]
    results = {}
    with tempfile.TemporaryDirectory(prefix="locsim_golden_") as tmp:
        # Exported traces first (shared by runs), then everything in parallel.
        for rid, kind, spec in runs:
            if kind == "run" and spec["trace"] and spec["trace"].startswith("@export:"):
                export_trace(a.locsim, spec["trace"], tmp)
        with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, a.j)) as ex:
            futs = [ex.submit(execute, a.locsim, rid, kind, spec, tmp) for rid, kind, spec in runs]
            for fu in concurrent.futures.as_completed(futs):
                rid, res = fu.result()
                results[rid] = res
    errors = [f"{rid}: {res['error']}\n    {res['command']}" for rid, res in sorted(results.items())
              if "error" in res]
    if a.record:
        if errors:
            sys.exit("golden_stats: runs failed, nothing recorded:\n" + "\n".join(errors))
        os.makedirs(os.path.dirname(a.golden), exist_ok=True)
        if a.only:  # keep every other run's recorded values, in matrix order
            with open(a.golden) as f:
                kept = json.load(f)["runs"]
            kept.update(results)
            runs = matrix()
            missing = [rid for rid, _, _ in runs if rid not in kept]
            if missing:
                sys.exit("golden_stats: not recorded yet, run --record without --only: " +
                         ", ".join(missing))
            results = kept
        # One run per line: a regenerated file diffs run by run.
        with open(a.golden, "w") as f:
            f.write('{"about": "simulated statistics of scripts/golden_stats.py\'s matrix; '
                    'regenerate with --record only in a commit that says why",\n "runs": {\n')
            for i, (rid, _, _) in enumerate(runs):
                f.write(f" {json.dumps(rid)}: "
                        f"{json.dumps(results[rid], sort_keys=True, separators=(',', ':'))}"
                        f"{',' if i + 1 < len(runs) else ''}\n")
            f.write("}}\n")
        print(f"golden_stats: recorded {len(runs)} runs into {os.path.relpath(a.golden, ROOT)}")
        return 0
    bad = 0
    for rid, _, _ in runs:
        if rid not in golden:
            print(f"DIFF {rid}: not in the golden file (record it in a commit that says why)")
            bad += 1
            continue
        res = results[rid]
        if "error" in res:
            print(f"FAIL {rid}: {res['error']}\n    {res['command']}")
            bad += 1
            continue
        d = []
        diff(golden[rid], res, rid, d)
        if d:
            bad += 1
            print(f"DIFF {rid}:")
            for line in d:
                print("    " + line)
    print(f"golden_stats: {len(runs) - bad} passed, {bad} failed")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
