#!/usr/bin/env python3
"""Speed benchmark (issue 10): runs each benchmarked case at two sizes, the second doing about twice
the work, on fermi and volta, and reports per case simulated warp-instructions, L1D transactions
and cycles per host second, wall time, peak RSS and the time ratio between the two sizes
(linearity); with --callgrind also the host instructions per L1D transaction, counted by
`valgrind --tool=callgrind` as the marginal cost between two small sizes,
(Ir_large - Ir_small) / (tx_large - tx_small): deterministic, so it holds on a loaded machine.

Cases: the three core examples (vecadd, matmul, histogram; docs/workloads.md) and a SAXPY
Accel-Sim trace that the script writes itself with scripts/accelsim_traces.py (Volta SASS,
grid-stride y[i] = a*x[i] + y[i] over floats, per loop trip two LDG, one STG and eight ALU/branch
instructions, 256 threads per CTA, 4 trips per thread), run with `locsim run --trace`.
`--workloads all` adds every other workload of `locsim list workloads` at the golden matrix's
small size (scripts/golden_stats.py) and a size with about twice the work.

usage: scripts/bench.py [--locsim build/locsim] [--platforms fermi,volta]
                        [--workloads core|all|none|W1,W2,...] [--no-trace] [--callgrind]
                        [--trace-linearity] [--repeat K] [--quick] [--json FILE]
                        [--markdown] [--write-doc [--doc docs/performance.md]]

  --workloads        core: vecadd, matmul, histogram (default); all: every workload; none: the
                     trace only
  --callgrind        also run each case at its small sizes under callgrind (about 50x slower)
  --trace-linearity  also run the SAXPY trace at 120, 240, 480 and 960 CTAs (wall time)
  --repeat K         run each wall-time case K times and keep the fastest (default 1)
  --quick            one tiny workload (vecadd) and the trace at 8 -> 16 CTAs (for the tests)
  --json FILE        also write every measured row as JSON
  --write-doc        replace the text between <!-- BEGIN bench.py --> and <!-- END bench.py -->
                     in --doc with the generated description and tables (implies --markdown)
"""
import argparse
import json
import os
import resource
import platform as host_platform
import shutil
import subprocess
import sys
import tempfile
import textwrap

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, HERE)
import accelsim_traces  # noqa: E402  (the SAXPY trace writer)
import golden_stats  # noqa: E402  (the golden matrix's small sizes)
from experiment_common import binary_commit  # noqa: E402

BEGIN, END = "<!-- BEGIN bench.py -->", "<!-- END bench.py -->"
TRACE = "saxpy"


class BenchError(Exception):
    """Bad input or a failed run: one line, exit 2."""


class Parser(argparse.ArgumentParser):
    def error(self, message):
        raise BenchError(message)


# Core examples: (parameter, [wall-time sizes], [callgrind sizes]); the second size of each pair
# does about twice the work. matmul's work grows with n^3 (n a multiple of 16): 256 -> 320 and
# 128 -> 160 are 1.95x. The wall sizes are docs/performance.md's (one to five seconds each), the
# callgrind ones issue 10's (vecadd 65 536 -> 131 072).
CORE = {
    "vecadd": ("n", [1 << 20, 1 << 21], [65536, 131072]),
    "matmul": ("n", [256, 320], [128, 160]),
    "histogram": ("n", [1 << 20, 1 << 21], [65536, 131072]),
}
# SAXPY trace CTAs (x 256 threads x 4 trips): wall time, callgrind (issue 10: 60 -> 120), linearity
TRACE_WALL, TRACE_CG, TRACE_LIN = [240, 480], [60, 120], [120, 240, 480, 960]
QUICK = {"vecadd": ("n", [16384, 32768], [16384, 32768])}
QUICK_TRACE, QUICK_LIN = [8, 16], [8, 16, 32]

# --workloads all: the parameters that give about twice the golden small size's work (most are
# linear; cubic ones by 2^(1/3) rounded to the workload's multiple; atax/bicg/gesummv/mvt by their
# column count m; lavamd has only boxes1d, whose work grows ~8x).
LARGE = {
    "atax": {"m": "512"}, "backprop": {"in": "2048"}, "bfs": {"nodes": "4096"},
    "bicg": {"m": "512"}, "blackscholes": {"options": "65536"},
    "btree": {"queries": "512", "range_queries": "256"}, "conv2d": {"n": "362"},
    "covariance": {"n": "96"}, "dct8x8": {"height": "128"}, "doitgen": {"n": "19"},
    "dwt2d": {"height": "160"}, "fdtd2d": {"tmax": "4"}, "fdtd3d": {"timesteps": "4"},
    "gemm": {"n": "80"}, "gesummv": {"m": "512"}, "heartwall": {"frames": "4"},
    "histo": {"height": "256"}, "histogram": {"n": "32768"}, "hotspot": {"sim_time": "8"},
    "kmeans": {"points": "4096"}, "laplace": {"iterations": "4"}, "lavamd": {"boxes1d": "2"},
    "libor": {"npath": "128"}, "lud": {"dim": "80"}, "matmul": {"n": "80"},
    "mergesort": {"n": "8192"}, "mvt": {"m": "512"}, "nn": {"records": "40000"},
    "particlefilter": {"particles": "1400"}, "pathfinder": {"cols": "4000"},
    "sad": {"width": "64"}, "scalarprod": {"vectors": "64"}, "spmv": {"rows": "8192"},
    "srad": {"iterations": "4"}, "storegpu": {"ctas": "32"}, "streamcluster": {"num": "4096"},
    "syr2k": {"n": "60"}, "syrk": {"n": "80"}, "tpacf": {"sets": "8"},
    "transpose": {"size_y": "256"}, "vecadd": {"n": "131072"},
}
EXTRA_SMALL = {"latency_chain": {"loads": "64"}}
EXTRA_LARGE = {"latency_chain": {"loads": "128"}}


def size_label(sets):
    return " ".join(f"{k}={v}" for k, v in sets.items())


def cases_for(args, workloads):
    """[(case name, [small, large] wall specs, [small, large] callgrind specs)]; a spec is
    ('workload', name, {param: value}) or ('trace', ctas)."""
    cases = []
    table = QUICK if args.quick else CORE
    for w in workloads:
        if w in table:
            p, wall, cg = table[w]
            cases.append((w, [("workload", w, {p: str(v)}) for v in wall],
                          [("workload", w, {p: str(v)}) for v in cg]))
        else:
            small = dict(golden_stats.SMALL.get(w, EXTRA_SMALL.get(w, {})))
            large = dict(small, **LARGE.get(w, EXTRA_LARGE.get(w, {})))
            if large == small:
                raise BenchError(f"no doubled size known for workload '{w}'")
            specs = [("workload", w, small), ("workload", w, large)]
            cases.append((w, specs, specs))
    if not args.no_trace:
        wall, cg = (QUICK_TRACE, QUICK_TRACE) if args.quick else (TRACE_WALL, TRACE_CG)
        cases.append((TRACE, [("trace", c) for c in wall], [("trace", c) for c in cg]))
    return cases


def spec_label(spec):
    return f"{spec[1]} CTAs" if spec[0] == "trace" else size_label(spec[2])


class Runner:
    def __init__(self, locsim, tmpdir):
        self.locsim, self.tmpdir = locsim, tmpdir
        self.env = dict(os.environ, SYSTEMC_DISABLE_COPYRIGHT_MESSAGE="1")

    def trace_list(self, ctas):
        d = os.path.join(self.tmpdir, f"saxpy_{ctas}")
        if not os.path.isdir(d):
            accelsim_traces.write_saxpy(self.tmpdir, ctas)
        return os.path.join(d, "kernelslist.g")

    def command(self, platform, spec, out):
        cmd = [self.locsim, "run", "--platform", platform]
        if spec[0] == "trace":
            cmd += ["--trace", self.trace_list(spec[1])]
        else:
            cmd += ["--workload", spec[1]]
            for k, v in spec[2].items():
                cmd += ["--set", f"workload.{k}={v}"]
        return cmd + ["--quiet", "--stats-json", out]

    def run(self, platform, spec, callgrind=False):
        """Statistics JSON of one run; with callgrind, 'host_ir' is the instruction total."""
        out = os.path.join(self.tmpdir, "stats.json")
        cmd = self.command(platform, spec, out)
        cg = os.path.join(self.tmpdir, "callgrind.out")
        if callgrind:
            cmd = ["valgrind", "--tool=callgrind", f"--callgrind-out-file={cg}"] + cmd
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        p = subprocess.run(cmd, env=self.env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                           text=True)
        if p.returncode != 0:
            last = (p.stderr.strip().splitlines() or ["(no message)"])[-1]
            raise BenchError(f"{platform} {spec_label(spec)}: '{' '.join(cmd)}' exited "
                             f"{p.returncode}: {last}")
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        with open(out) as f:
            data = json.load(f)
        os.unlink(out)
        # The process's own CPU time (user + system): a loaded machine stretches wall time by the
        # time the process waits for a core, CPU time much less.
        data["cpu_s"] = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
        if callgrind:
            data["host_ir"] = callgrind_total(cg)
            os.unlink(cg)
        return data


def callgrind_total(path):
    """The Ir total of a callgrind output file ('totals:' or 'summary:' line)."""
    total = None
    with open(path) as f:
        for line in f:
            if line.startswith(("totals:", "summary:")):
                total = int(line.split()[1])
    if total is None:
        raise BenchError(f"{path}: no 'totals:' line in the callgrind output")
    return total


def measure(data):
    h = data["host"]
    return {"warp_insts": data["warp_insts"], "l1d_tx": data["l1d"]["accesses"],
            "cycles": data["cycles"], "wall_s": h["wall_s"], "winst_per_s": h["warp_insts_per_s"],
            "tx_per_s": h["mem_transactions_per_s"], "cycles_per_s": h["sim_cycles_per_s"],
            "rss_mb": h["peak_rss_mb"], "cpu_s": data["cpu_s"],
            "tx_per_cpu_s": ratio(data["l1d"]["accesses"], data["cpu_s"])}


def ratio(a, b):
    return a / b if b else 0.0


def wall_pair(runner, platform, specs, repeat):
    """Two sizes, each the fastest of `repeat` runs (simulated numbers are identical)."""
    res = []
    for spec in specs:
        best = None
        for _ in range(repeat):
            m = measure(runner.run(platform, spec))
            if best is None or m["wall_s"] < best["wall_s"]:
                best = m
        print(f"  {platform} {spec_label(spec)}: {best['wall_s']:.2f} s", file=sys.stderr)
        res.append(best)
    return res


def callgrind_pair(runner, platform, specs):
    res = []
    for spec in specs:
        d = runner.run(platform, spec, callgrind=True)
        res.append({"l1d_tx": d["l1d"]["accesses"], "warp_insts": d["warp_insts"],
                    "ir": d["host_ir"]})
        print(f"  {platform} {spec_label(spec)} (callgrind): {d['host_ir'] / 1e9:.2f} G Ir",
              file=sys.stderr)
    (s, l) = res
    return {"sizes": [spec_label(x) for x in specs], "l1d_tx": [s["l1d_tx"], l["l1d_tx"]],
            "ir": [s["ir"], l["ir"]],
            "ir_per_tx": ratio(l["ir"] - s["ir"], l["l1d_tx"] - s["l1d_tx"]),
            "ir_x": ratio(l["ir"], s["ir"]), "tx_x": ratio(l["l1d_tx"], s["l1d_tx"])}


def machine(locsim):
    """Commit (the binary's own, `locsim version`: a binary may be run from another checkout),
    CPU, build type and load, for the page's header."""
    def sh(cmd):
        try:
            return subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True).stdout.strip()
        except OSError:
            return ""
    commit = binary_commit(locsim)
    cpu = ""
    for line in sh(["lscpu"]).splitlines():
        if line.startswith("Model name:"):
            cpu = line.split(":", 1)[1].strip()
    return {"commit": commit, "cpu": cpu or host_platform.processor(), "cores": os.cpu_count(),
            "load": load()}


def load():
    try:
        return " ".join(open("/proc/loadavg").read().split()[:3])
    except OSError:
        return "unknown"


def busy(*loads):
    """More than this benchmark's one job on the machine (1-minute load average above 1.5)."""
    try:
        return max(float(x.split()[0]) for x in loads) > 1.5
    except (ValueError, IndexError):
        return True


def build_type(locsim):
    cache = os.path.join(os.path.dirname(os.path.abspath(locsim)), "CMakeCache.txt")
    try:
        for line in open(cache):
            if line.startswith("CMAKE_BUILD_TYPE:"):
                return line.split("=", 1)[1].strip() or "default"
    except OSError:
        pass
    return "unknown"


def fmt_ir(r):
    return f"{r['ir_per_tx']:,.0f}".replace(",", " ") if r else ""


def main_table(rows, callgrind):
    hdr = ["platform", "case"]
    if callgrind:
        hdr += ["host Ir / L1D tx (callgrind)", "callgrind sizes", "Ir x"]
    hdr += ["sizes (wall)", "warp insts", "L1D tx", "cycles", "wall s", "CPU s", "time x", "CPU x",
            "work x", "CPU x / work x", "M winst/s", "M L1D tx/s", "M cycles/s",
            "M L1D tx/CPU-s", "peak RSS MB"]
    out = [hdr]
    for r in rows:
        s, l = r["wall"]
        cells = [r["platform"], r["case"]]
        if callgrind:
            cg = r.get("callgrind")
            cells += [fmt_ir(cg), " -> ".join(cg["sizes"]) if cg else "",
                      f"{cg['ir_x']:.2f}" if cg else ""]
        cells += [" -> ".join(r["sizes"]), f"{s['warp_insts']} -> {l['warp_insts']}",
                  f"{s['l1d_tx']} -> {l['l1d_tx']}", f"{s['cycles']} -> {l['cycles']}",
                  f"{s['wall_s']:.2f} -> {l['wall_s']:.2f}",
                  f"{s['cpu_s']:.2f} -> {l['cpu_s']:.2f}", f"{r['time_x']:.2f}",
                  f"{r['cpu_x']:.2f}", f"{r['work_x']:.2f}",
                  f"{ratio(r['cpu_x'], r['work_x']):.2f}", f"{l['winst_per_s'] / 1e6:.3f}",
                  f"{l['tx_per_s'] / 1e6:.3f}", f"{l['cycles_per_s'] / 1e6:.3f}",
                  f"{l['tx_per_cpu_s'] / 1e6:.3f}",
                  f"{max(s['rss_mb'], l['rss_mb']):.1f}"]
        out.append(cells)
    return out


def linearity_table(lin, callgrind):
    out = [["platform", "CTAs", "warp insts", "L1D tx"]
           + (["G Ir (callgrind)", "Ir x (vs half)", "host Ir / L1D tx (vs half)"]
              if callgrind else [])
           + ["wall s", "time x (vs half)", "CPU s", "CPU x (vs half)", "M L1D tx/s",
              "peak RSS MB"]]
    for platform, pts in lin.items():
        prev = None
        for ctas, m in pts:
            row = [platform, str(ctas), str(m["warp_insts"]), str(m["l1d_tx"])]
            if callgrind:
                row += [f"{m['ir'] / 1e9:.2f}", f"{ratio(m['ir'], prev['ir']):.2f}" if prev else "",
                        fmt_ir({"ir_per_tx": ratio(m["ir"] - prev["ir"],
                                                   m["l1d_tx"] - prev["l1d_tx"])}) if prev else ""]
            row += [f"{m['wall_s']:.2f}", f"{ratio(m['wall_s'], prev['wall_s']):.2f}"
                    if prev else "", f"{m['cpu_s']:.2f}",
                    f"{ratio(m['cpu_s'], prev['cpu_s']):.2f}" if prev else "",
                    f"{m['tx_per_s'] / 1e6:.3f}", f"{m['rss_mb']:.1f}"]
            out.append(row)
            prev = m
    return out


def render(table, markdown):
    if markdown:
        lines = ["| " + " | ".join(table[0]) + " |", "|" + "---|" * len(table[0])]
        lines += ["| " + " | ".join(r) + " |" for r in table[1:]]
    else:
        lines = ["  ".join(r) for r in table]
    return "\n".join(lines)


def describe(args, info, load_end):
    argv, shown = sys.argv[1:], []
    while argv:  # the command without where its outputs went
        a = argv.pop(0)
        if a in ("--json", "--doc"):
            argv = argv[1:]
        elif a != "--write-doc" and not a.startswith(("--json=", "--doc=")):
            shown.append(a)
    cmd = " ".join(["scripts/bench.py"] + shown)
    paragraphs = describe_text(args, info, load_end, cmd).split("\n\n")
    return "\n\n".join(textwrap.fill(p, width=100, break_long_words=False,
                                     break_on_hyphens=False) for p in paragraphs)


def describe_text(args, info, load_end, cmd):
    return (
        f"Generated by `{cmd}` at commit `{info['commit']}`, {build_type(args.locsim)} build, on "
        f"the project's machine ({info['cores']} cores, {info['cpu']}), one simulation at a "
        f"time. " + (
            f"**The machine was shared with other jobs:** load average (1, 5, 15 min) "
            f"{info['load']} at the start and {load_end} at the end, so the wall-time columns "
            f"(wall s, time x, the rates per second) are noisy" if busy(info["load"], load_end)
            else f"Load average (1, 5, 15 min) {info['load']} at the start and {load_end} at "
            f"the end, so the wall times are those of an otherwise idle machine")
        + (" and the callgrind column, which counts host instructions and does not depend on the "
           "load, is the primary figure." if args.callgrind else ".")
        + "\n\nEach case runs at two sizes, the second doing about twice the work; `a -> b` gives "
        "the small and the large run, `time x` and `work x` are the ratios of wall time and "
        "warp instructions between them, `CPU s` and `CPU x` the same for the process's CPU time "
        "(user + system, from `getrusage`; start-up included), which the load stretches much "
        "less than wall time (issue 10 asks for at most 2.05x the time for 2x the work; where "
        "`work x` is not 2 this page reads that as `time x / work x` <= 1.025, and the same for "
        "CPU time), and the rates are the large run's (`M L1D tx/CPU-s` per CPU second). `L1D tx` "
        "counts L1D "
        "accesses (line or sector requests after intra-warp coalescing), the `host` block of "
        "`--stats-json` ([stats.md](stats.md)) gives the rates and the peak RSS."
        + (" `host Ir / L1D tx` is the marginal cost between the two callgrind sizes, "
           "(Ir_large - Ir_small) / (tx_large - tx_small), measured with `valgrind "
           "--tool=callgrind`; `Ir x` is the instruction ratio between them." if args.callgrind
           else "")
        + ("" if args.no_trace else f" `{TRACE}` is the SAXPY Accel-Sim trace the script writes "
           "(Volta SASS, 256 threads "
        "per CTA, 4 grid-stride trips of two LDG, one STG and eight ALU/branch instructions), "
        "run with `locsim run --trace`; its sizes are CTAs."))


def write_doc(path, text):
    try:
        page = open(path).read()
    except OSError as e:
        raise BenchError(f"{path}: {e.strerror}")
    b, e = page.find(BEGIN), page.find(END)
    if b < 0 or e < b:
        raise BenchError(f"{path}: no '{BEGIN}' ... '{END}' markers")
    if text is None:
        return
    with open(path, "w") as f:
        f.write(page[:b + len(BEGIN)] + "\n" + text + "\n" + page[e:])


def parse_args(argv):
    ap = Parser(add_help=False)
    ap.add_argument("-h", "--help", action="store_true")
    ap.add_argument("--locsim", default="build/locsim")
    ap.add_argument("--platforms", default="fermi,volta")
    ap.add_argument("--workloads", default="core")
    ap.add_argument("--no-trace", action="store_true")
    ap.add_argument("--callgrind", action="store_true")
    ap.add_argument("--trace-linearity", action="store_true")
    ap.add_argument("--repeat", default="1")
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--json")
    ap.add_argument("--markdown", action="store_true")
    ap.add_argument("--write-doc", action="store_true")
    ap.add_argument("--doc", default=os.path.join(ROOT, "docs", "performance.md"))
    args = ap.parse_args(argv)
    if args.help:
        print(__doc__.strip())
        sys.exit(0)
    if not args.repeat.isdigit() or int(args.repeat) < 1:
        raise BenchError(f"--repeat: expected a positive integer, got '{args.repeat}'")
    args.repeat = int(args.repeat)
    if not (os.path.isfile(args.locsim) and os.access(args.locsim, os.X_OK)):
        raise BenchError(f"--locsim: '{args.locsim}' is not an executable file")
    if args.callgrind and not shutil.which("valgrind"):
        raise BenchError("--callgrind: valgrind is not on PATH")
    if args.write_doc:
        args.markdown = True
        write_doc(args.doc, None)  # check the page and its markers before the long runs
    return args


def known(locsim, what):
    p = subprocess.run([locsim, "list", what], capture_output=True, text=True)
    return [line.split()[0] for line in p.stdout.splitlines()
            if line.strip() and not line.startswith((" ", "\t")) and line.split()[0] != "name"]


def main(argv):
    args = parse_args(argv)
    platforms = [p for p in args.platforms.split(",") if p]
    valid = known(args.locsim, "platforms")
    for p in platforms or [""]:
        if p not in valid:
            raise BenchError(f"--platforms: unknown platform '{p}' (known: {', '.join(valid)})")
    all_w = known(args.locsim, "workloads")
    if args.workloads == "core":
        workloads = list(QUICK if args.quick else CORE)
    elif args.workloads == "none":
        workloads = []
    elif args.workloads == "all":
        workloads = list(QUICK if args.quick else CORE) + sorted(
            w for w in all_w if w not in CORE)
    else:
        workloads = [w for w in args.workloads.split(",") if w]
        for w in workloads:
            if w not in all_w:
                raise BenchError(f"--workloads: unknown workload '{w}'")
    cases = cases_for(args, workloads)
    if not cases and not args.trace_linearity:
        raise BenchError("nothing to run (no workloads and --no-trace)")
    info = machine(args.locsim)
    rows, lin = [], {}
    with tempfile.TemporaryDirectory(prefix="locsim_bench_") as tmpdir:
        runner = Runner(args.locsim, tmpdir)
        for platform in platforms:
            for name, wall_specs, cg_specs in cases:
                s, l = wall_pair(runner, platform, wall_specs, args.repeat)
                row = {"platform": platform, "case": name,
                       "sizes": [spec_label(x) for x in wall_specs], "wall": [s, l],
                       "time_x": ratio(l["wall_s"], s["wall_s"]),
                       "cpu_x": ratio(l["cpu_s"], s["cpu_s"]),
                       "work_x": ratio(l["warp_insts"], s["warp_insts"]),
                       "tx_x": ratio(l["l1d_tx"], s["l1d_tx"])}
                if args.callgrind:
                    row["callgrind"] = callgrind_pair(runner, platform, cg_specs)
                rows.append(row)
            if args.trace_linearity:
                lin[platform] = []
                for c in QUICK_LIN if args.quick else TRACE_LIN:
                    m = wall_pair(runner, platform, [("trace", c)], args.repeat)[0]
                    if args.callgrind:
                        d = runner.run(platform, ("trace", c), callgrind=True)
                        m["ir"] = d["host_ir"]
                        print(f"  {platform} {c} CTAs (callgrind): {m['ir'] / 1e9:.2f} G Ir",
                              file=sys.stderr)
                    lin[platform].append((c, m))
    text = render(main_table(rows, args.callgrind), args.markdown) if rows else ""
    if lin:
        title = ("SAXPY trace linearity (CTAs x 256 threads x 4 trips; each row against the one "
                 "above, half its CTAs):\n\n" if args.markdown else "")
        text += ("\n\n" if text else "") + title + render(linearity_table(lin, args.callgrind),
                                                          args.markdown)
    print(text)
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"machine": info, "rows": rows,
                       "linearity": {p: [[c, m] for c, m in v] for p, v in lin.items()}}, f,
                      indent=1)
    if args.write_doc:
        write_doc(args.doc, describe(args, info, load()) + "\n\n" + text)
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main(sys.argv[1:]))
    except BenchError as e:
        print(f"bench.py: error: {e}", file=sys.stderr)
        sys.exit(2)
    except KeyboardInterrupt:
        sys.exit(130)
