"""Helpers shared by the paper experiment scripts (icc_experiment.py, mdb_experiment.py): run
locsim for one configuration and read its JSON statistics, run many in parallel, keep every run
in a CSV, and draw grouped bar charts."""
import argparse
import csv
import json
import math
import os
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor, as_completed

ENV = dict(os.environ, SYSTEMC_DISABLE_COPYRIGHT_MESSAGE="1")


def arg_parser(doc, default_out):
    ap = argparse.ArgumentParser(description=doc)
    ap.add_argument("--locsim", default="build/locsim")
    ap.add_argument("--out", default=default_out)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--workloads", default="", help="comma-separated paper abbreviations")
    ap.add_argument("--from-csv", default="", help="re-make tables and plots from a CSV of runs")
    return ap


def available_workloads(locsim):
    out = subprocess.run([locsim, "list", "workloads"], capture_output=True, text=True,
                         env=ENV).stdout
    return {line.split()[0] for line in out.splitlines() if line and not line[0].isspace()}


def choose(tag, workloads, selection, locsim):
    """The (abbr, library name, ...) entries selected and present in the library."""
    have = available_workloads(locsim)
    chosen = [w for w in workloads if not selection or w[0] in selection.split(",")]
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


def run_locsim(tag, locsim, platform, workload, wargs, sets):
    """Runs one simulation; returns its JSON statistics or exits with the failing command."""
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
    print(f"{tag}: {len(pending)} runs on {args.jobs} host threads"
          + (f", {len(jobs) - len(pending)} reused from {args.reuse}" if old else ""), flush=True)
    done = {}
    try:
        with ThreadPoolExecutor(max_workers=args.jobs) as pool:
            futures = {pool.submit(one, j): i for i, j in enumerate(pending)}
            for f in as_completed(futures):
                done[futures[f]] = f.result()
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
    ran = iter([done[i] for i in range(len(pending))])
    rows = [old[reuse_key(j)] if reuse_key and reuse_key(j) in old else next(ran) for j in jobs]
    os.makedirs(args.out, exist_ok=True)
    with open(os.path.join(args.out, tag.split("_")[0] + ".csv"), "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(rows[0].keys()))
        w.writeheader()
        w.writerows(rows)
    return rows


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
