"""Helpers shared by the paper experiment scripts (icc_experiment.py, mdb_experiment.py, ...): run
locsim for one configuration and read its JSON statistics, run many as one `locsim sweep`
(docs/sweeps.md), keep every run in a CSV, and draw grouped bar charts."""
import argparse
import csv
import json
import math
import os
import shutil
import subprocess
import sys
import tempfile

ENV = dict(os.environ, SYSTEMC_DISABLE_COPYRIGHT_MESSAGE="1")


def arg_parser(doc, default_out):
    ap = argparse.ArgumentParser(description=doc)
    ap.add_argument("--locsim", default="build/locsim")
    ap.add_argument("--out", default=default_out)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--workloads", default="", help="comma-separated paper abbreviations")
    ap.add_argument("--from-csv", default="", help="re-make tables and plots from a CSV of runs")
    ap.add_argument("--sweep-dir", default="",
                    help="keep the underlying locsim sweep here (resumable); default: temporary")
    return ap


def binary_commit(locsim):
    """The git commit the simulator binary was built from (`locsim version`), not the commit of
    the tree the script runs in: a frozen binary may be run from another checkout."""
    try:
        out = subprocess.run([locsim, "version"], capture_output=True, text=True,
                             check=True).stdout
    except (OSError, subprocess.CalledProcessError):
        return "unknown"
    marker = "(commit "
    return out[out.index(marker) + len(marker):out.rindex(")")] if marker in out else "unknown"


def available_workloads(locsim):
    out = subprocess.run([locsim, "list", "workloads"], capture_output=True, text=True,
                         env=ENV).stdout
    return {line.split()[0] for line in out.splitlines() if line and not line[0].isspace()}


def choose(tag, workloads, selection, locsim, from_csv=""):
    """The (abbr, library name, ...) entries selected and present in the library (with
    from_csv, tables re-made from a CSV, the binary is not asked: it may not exist here)."""
    chosen = [w for w in workloads if not selection or w[0] in selection.split(",")]
    if from_csv:
        return chosen
    have = available_workloads(locsim)
    missing = [f"{w[0]} ({w[1]})" for w in chosen if w[1] not in have]
    if missing:
        print(f"{tag}: not in the workload library, skipped: " + ", ".join(missing))
    return [w for w in chosen if w[1] in have]


def run_json(tag, cmd, json_option):
    """Runs locsim `cmd` with `json_option FILE` appended; returns that JSON or exits with the
    failing command."""
    with tempfile.NamedTemporaryFile(suffix=".json", delete=False) as f:
        out = f.name
    cmd = cmd + [json_option, out]
    p = subprocess.run(cmd, capture_output=True, text=True, env=ENV)
    if p.returncode != 0:
        sys.exit(f"{tag}: {' '.join(cmd)} failed ({p.returncode}): {p.stderr.strip()}")
    with open(out) as f:
        j = json.load(f)
    os.unlink(out)
    return j


class _Planned(BaseException):
    """Raised by run_locsim while run_all collects the runs its jobs need."""

    def __init__(self, key):
        super().__init__(key)
        self.key = key


# run_all's state: None (run directly), "plan" (record and stop) or a dict key -> JSON (serve
# the results of the sweep).
_MODE = None


def _run_key(platform, workload, wargs, sets):
    assign = {f"workload.{k}": str(v) for k, v in wargs.items()}
    assign.update({k: str(v) for k, v in sets.items()})
    return (platform, workload, tuple(sorted(assign.items())))


def run_locsim(tag, locsim, platform, workload, wargs, sets):
    """Runs one simulation; returns its JSON statistics or exits with the failing command.
    Inside run_all the simulation is one run of a `locsim sweep`."""
    key = _run_key(platform, workload, wargs, sets)
    if _MODE == "plan":
        raise _Planned(key)
    if isinstance(_MODE, dict) and key in _MODE:
        return _MODE[key]
    cmd = [locsim, "run", "--platform", platform, "--workload", workload, "--quiet"]
    for k, v in wargs.items():
        cmd += ["--set", f"workload.{k}={v}"]
    for k, v in sets.items():
        cmd += ["--set", f"{k}={v}"]
    return run_json(tag, cmd, "--stats-json")


def run_all(tag, args, jobs, one, reuse_key=None):
    """Rows for every job (one(job) -> dict), or the rows of --from-csv; writes <out>/<tag>.csv.
    With reuse_key (job -> (abbr, config)) and args.reuse, a job whose key names a row of that
    CSV takes the row instead of running (only valid while the simulator is unchanged)."""
    if args.from_csv:
        return read_rows(args.from_csv)
    old = {}
    if reuse_key and getattr(args, "reuse", ""):
        old = {(r["abbr"], r["config"]): r for r in read_rows(args.reuse)}
    pending = [j for j in jobs if not (reuse_key and reuse_key(j) in old)]
    print(f"{tag}: {len(pending)} runs, {args.jobs} at a time"
          + (f", {len(jobs) - len(pending)} reused from {args.reuse}" if old else ""), flush=True)
    global _MODE
    # 1. Which simulation does each job need? (its first run_locsim call)
    done, keys = {}, {}
    _MODE = "plan"
    try:
        for i, j in enumerate(pending):
            try:
                done[i] = one(j)  # a job that runs no simulation is complete already
            except _Planned as p:
                keys[i] = p.key
    finally:
        _MODE = None
    # 2. All of them as one sweep; 3. each job again, served from the sweep's results.
    try:
        _MODE = _sweep(tag, args, sorted(set(keys.values())))
        for i in sorted(keys):
            done[i] = one(pending[i])
    except BaseException:
        # Keep what finished, so that --reuse can resume instead of running it again.
        if done:
            os.makedirs(args.out, exist_ok=True)
            part = os.path.join(args.out, tag.split("_")[0] + ".partial.csv")
            rows = [done[i] for i in sorted(done)]
            with open(part, "w", newline="") as f:
                w = csv.DictWriter(f, fieldnames=list(rows[0].keys()))
                w.writeheader()
                w.writerows(rows)
            print(f"{tag}: {len(rows)} finished runs kept in {part}", file=sys.stderr)
        raise
    finally:
        _MODE = None
    ran = iter([done[i] for i in range(len(pending))])
    rows = [old[reuse_key(j)] if reuse_key and reuse_key(j) in old else next(ran) for j in jobs]
    os.makedirs(args.out, exist_ok=True)
    with open(os.path.join(args.out, tag.split("_")[0] + ".csv"), "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(rows[0].keys()))
        w.writeheader()
        w.writerows(rows)
    return rows


def _sweep(tag, args, keys):
    """Runs the simulations `keys` ((platform, workload, assignments)) as one `locsim sweep` and
    returns key -> JSON statistics. The sweep directory is kept under --sweep-dir (resumable)
    or is temporary."""
    if not keys:
        return {}
    # One sweep file per platform: every run is a workload entry with all its assignments.
    by_platform = {}
    for platform, workload, assign in keys:
        by_platform.setdefault(platform, []).append(
            {"name": workload, "set": dict(assign)} if assign else {"name": workload})
    keep = getattr(args, "sweep_dir", "")
    base = keep or tempfile.mkdtemp(prefix=tag + "_")
    results = {}
    try:
        for platform, workloads in by_platform.items():
            spec = os.path.join(base, f"{platform}.json")
            os.makedirs(base, exist_ok=True)
            with open(spec, "w") as f:
                json.dump({"platforms": [platform], "workloads": workloads}, f, indent=1)
            out = os.path.join(base, platform)
            plan = subprocess.run([args.locsim, "sweep", spec, "--dry-run"], capture_output=True,
                                  text=True, env=ENV)
            if plan.returncode != 0:
                sys.exit(f"{tag}: locsim sweep {spec} --dry-run failed: {plan.stderr.strip()}")
            ids = {}
            for line in plan.stdout.splitlines():
                words = line.split()
                if len(words) < 6 or words[1] != "run":
                    continue
                assign = tuple(sorted(tuple(w.split("=", 1)) for w in words[7::2]))
                ids[(words[3], words[5], assign)] = words[0]
            r = subprocess.run([args.locsim, "sweep", spec, "-j", str(args.jobs), "-o", out,
                                "--retry-failed"] + (["--progress"] if sys.stderr.isatty() else []),
                               env=ENV)
            for key in keys:
                if key[0] != platform:
                    continue
                run_id = ids.get(key)
                status = os.path.join(out, "runs", f"{run_id}.status")
                code = open(status).read().strip() if run_id and os.path.exists(status) else "?"
                if code != "0":
                    err = os.path.join(out, "runs", f"{run_id}.err")
                    last = open(err).read().strip().splitlines()[-1:] if os.path.exists(err) else []
                    sys.exit(f"{tag}: run {run_id} ({key[1]} on {platform}, "
                             f"{' '.join('='.join(a) for a in key[2])}) failed ({code}): "
                             f"{' '.join(last)}")
                with open(os.path.join(out, "runs", f"{run_id}.json")) as f:
                    results[key] = json.load(f)
            if r.returncode not in (0, 3):
                sys.exit(f"{tag}: locsim sweep {spec} failed ({r.returncode})")
    finally:
        if not keep:
            shutil.rmtree(base, ignore_errors=True)
    return results


def read_rows(path):
    def conv(v):
        for t in (int, float):
            try:
                return t(v)
            except ValueError:
                pass
        return v
    with open(path) as f:
        return [{k: conv(v) for k, v in row.items()} for row in csv.DictReader(f)]


def geomean(xs):
    xs = [x for x in xs if x > 0]
    return math.exp(sum(math.log(x) for x in xs) / len(xs)) if xs else 0.0


def sensitivity_rows(chosen, present, gain, threshold):
    """Markdown rows "| ABBR (workload) | types | +x% | yes/no |" for the selection checks of the
    papers (a workload is sensitive when gain(abbr) exceeds threshold); chosen entries are
    (abbr, workload, args, types, ...) tuples, present the abbreviations that ran."""
    rows = []
    for w in chosen:
        if w[0] not in present:
            continue
        g = gain(w[0])
        rows.append(f"| {w[0]} ({w[1]}) | {w[3]} | {100 * g:+.1f}% | "
                    f"{'yes' if g > threshold else 'no'} |")
    return rows


def write_tables(out, md):
    os.makedirs(out, exist_ok=True)  # --from-csv with a fresh --out
    with open(os.path.join(out, "tables.md"), "w") as f:
        f.write("\n".join(md) + "\n")
    print("\n".join(md))


def bar_plotter(tag, out):
    """A function drawing grouped bars into <out>/<fname>, or None without matplotlib."""
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print(f"{tag}: python3-matplotlib missing, no plots")
        return None

    def bars(fname, title, ylabel, series, labels, hline=None, log=False):
        fig, ax = plt.subplots(figsize=(11, 3.6))
        width = 0.8 / len(series)
        for i, (name, vals) in enumerate(series):
            ax.bar([x + i * width for x in range(len(labels))], vals, width, label=name)
        ax.set_xticks([x + 0.4 - width / 2 for x in range(len(labels))])
        ax.set_xticklabels(labels)
        ax.set_ylabel(ylabel)
        ax.set_title(title)
        if log:
            ax.set_yscale("log")
        if hline is not None:
            ax.axhline(hline, color="black", linewidth=0.8)
        ax.legend(fontsize=8, ncol=min(len(series), 6))
        fig.tight_layout()
        fig.savefig(os.path.join(out, fname), dpi=90)
        plt.close(fig)
    return bars
