#!/usr/bin/env python3
"""Writes docs/results.md, docs/results-remat.md and their plots (docs/images/results-*.png) from the
JSON files that the benchmarks write and the repository keeps under bench/.

    /usr/bin/python3 bench/results.py [--root DIR]        (`make results`)

Each table names the file it comes from: the newest of its benchmark's
files, by the date in the file, else the date in its name, else the commit
that last changed it. Beside it: the machine, the OpenBLAS kernel where the
file records it, the date, and the command that writes the file again. A
benchmark without a file gets one line naming that command. Runs no
benchmark; `--root` reads and writes another checkout (for testing).
"""
import argparse
import glob
import json
import math
import os
import re
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PY = "/usr/bin/python3"
BLAS1 = "OPENBLAS_NUM_THREADS=1 " + PY


# --- Reading the files ---------------------------------------------------

class Result:
    """One JSON file: its data, its path from the root, its date."""

    def __init__(self, path):
        with open(path) as f:
            self.data = json.load(f)
        self.rel = os.path.relpath(path, ROOT)
        self.of = 1  # how many files of its benchmark there are
        log = subprocess.run(["git", "-C", ROOT, "log", "-1",
                              "--format=%ct %cs", "--", self.rel],
                             capture_output=True, text=True).stdout.split()
        self.time = int(log[0]) if log else os.path.getmtime(path)
        named = re.search(r"\d{4}-\d{2}-\d{2}", os.path.basename(path))
        if self.data.get("date"):
            self.date = self.data["date"]
            self.date_text = self.date.replace("T", " ")[:16]
        elif named:
            self.date = named.group(0)
            self.date_text = f"{self.date} (the date in the file's name)"
        elif log:
            self.date = log[1]
            self.date_text = (f"committed {self.date} (the file records no "
                              "date)")
        else:
            self.date, self.date_text = "", "no date recorded"

    @property
    def rows(self):
        return self.data.get("rows", [])


def newest(pattern):
    """The newest file matching `pattern` (from the root), or None."""
    found = [Result(p) for p in glob.glob(os.path.join(ROOT, pattern))]
    if not found:
        return None
    best = max(found, key=lambda r: (r.date, r.time, r.rel))
    best.of = len(found)
    return best


def newest_each(pattern, field):
    """The newest file matching `pattern` for each value of its `field`
    (files with another thread count or seed are another benchmark)."""
    groups = {}
    for path in glob.glob(os.path.join(ROOT, pattern)):
        r = Result(path)
        groups.setdefault(r.data.get(field), []).append(r)
    return {value: max(found, key=lambda r: (r.date, r.time, r.rel))
            for value, found in groups.items()}


def machine_of(data):
    m = data.get("machine")
    if isinstance(m, dict):
        return f"{m.get('cpu', 'unknown CPU')}, {m.get('cores', '?')} cores"
    if m:
        return m
    if data.get("device"):
        return f"{data['device']}, PyTorch {data.get('torch', '?')}"
    return "machine not recorded"


def about(r, command):
    """The lines beside a table: where its numbers come from."""
    data = r.data
    where = [machine_of(data)]
    if data.get("blas_core"):
        where.append(f"OpenBLAS kernel {data['blas_core']}")
    where.append(r.date_text)
    command = data.get("command") or command
    if "--json" not in command:
        command += f" --json {r.rel}"
    newest_of = f" (the newest of {r.of})" if r.of > 1 else ""
    return ["; ".join(where) + f". From [`{r.rel}`](../{r.rel}){newest_of},"
            " written by", "", "```", command, "```", ""]


def missing(what, command):
    return [f"No committed JSON for {what}: `{command}` writes it.", ""]


# --- Formatting ----------------------------------------------------------

def table(header, rows):
    lines = ["| " + " | ".join(header) + " |",
             "|" + " --- |" * len(header)]
    lines += ["| " + " | ".join(str(c) for c in row) + " |" for row in rows]
    return lines + [""]


def ms(seconds):
    return "-" if seconds is None else f"{seconds * 1e3:.2f} ms"


def pct(x):
    return "-" if x is None else f"{100 * x:.1f}%"


def threads_text(n):
    return f"{n} thread" + ("" if n == 1 else "s")


def median(values):
    values = sorted(values)
    return values[len(values) // 2] if values else None


def quantile(values, q):
    values = sorted(values)
    return values[min(len(values) - 1, int(q * len(values)))]


class Plots:
    """The PNGs of this run, under docs/images/results-*.png."""

    def __init__(self, folder):
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        self.plt, self.folder, self.written = plt, folder, []

    def figure(self, columns=1):
        return self.plt.subplots(1, columns, figsize=(6.4 * columns, 4.2))

    def save(self, fig, name):
        """Saves `fig` as results-NAME.png; returns the Markdown image."""
        fig.tight_layout()
        path = os.path.join(self.folder, f"results-{name}.png")
        # No software version or date in the file: a second run of this
        # script writes the same bytes.
        fig.savefig(path, dpi=100, metadata={"Software": None})
        self.plt.close(fig)
        self.written.append(path)
        return [f"![{name}](images/results-{name}.png)", ""]


# --- Sections ------------------------------------------------------------

def gemm():
    out = ["## GEMM", ""]
    r = newest("bench/gemm/results/*.json")
    if not r:
        return out + missing("bench/gemm/run.py", f"{BLAS1} bench/gemm/run.py"
                             " --json bench/gemm/results/gemm.json")
    out += about(r, f"{BLAS1} bench/gemm/run.py")
    base = r.rows[0]["seconds"]
    return out + table(
        ["implementation", "median time", "GFLOP/s", "vs the first row"],
        [(x["implementation"], ms(x["seconds"]), f"{x['gflops']:.1f}",
          f"{100 * base / x['seconds']:.0f}%") for x in r.rows])


def mlp_forward():
    out = ["## MLP forward", ""]
    r = newest("bench/mlp/results/*.json")
    if not r:
        return out + missing("bench/mlp/run.py", f"{BLAS1} bench/mlp/run.py "
                             "--json bench/mlp/results/mlp.json")
    out += about(r, f"{BLAS1} bench/mlp/run.py")
    return out + table(
        ["implementation", "median time per call", "loss", "peak bytes"],
        [(x["implementation"], f"{x['seconds'] * 1e6:.1f} us",
          f"{x['loss']:.7g}", x.get("peak_bytes", "-")) for x in r.rows])


def step_suite(r):
    """A bench/step/*.py --json file: a table per thread count."""
    out = []
    for threads in sorted({x["threads"] for x in r.rows}):
        mine = [x for x in r.rows if x["threads"] == threads]
        eager = next(x for x in mine if x["side"] == "PyTorch")
        rows = []
        for x in mine:
            own = next(o for o in mine if o["side"] == x["side"])
            budget = f"{x['budget']} (half)" if x.get("half") else x["budget"]
            rows.append((x["side"], budget, x["peak"], ms(x["seconds"]),
                         f"{x['seconds'] / eager['seconds']:.2f}x",
                         f"{x['seconds'] / own['seconds']:.2f}x"))
        out += [f"{threads_text(threads)}:", ""] + table(
            ["side", "budget", "peak bytes", "step", "vs PyTorch eager",
             "vs its store-all"], rows)
    return out


def steps():
    out = ["## Gradient steps against PyTorch", ""]
    absent = []
    for name in ("mlp", "transformer", "resnet"):
        r = newest(f"bench/step/results/{name}*.json")
        if not r:
            absent.append(name)
            continue
        out += [f"### bench/step/{name}.py", ""]
        out += about(r, f"{PY} bench/step/{name}.py") + step_suite(r)
    if absent:
        out += ["No committed JSON for bench/step's "
                + ", ".join(f"{n}.py" for n in absent)
                + f": `{PY} bench/step/NAME.py --json "
                "bench/step/results/NAME.json` writes it.", ""]
    r = newest("bench/step/results/loop-minimum*.json")
    if r:
        out += ["### The transformer's loop form at its minimum", ""]
        out += about(r, f"{PY} bench/step/loop_minimum.py")
        out += table(["threads", "form", "budget", "peak bytes", "step"],
                     [(x["threads"], x["form"], x["budget"], x["peak"],
                       ms(x["seconds"])) for x in r.rows])
        out += table(["threads", "loop at its minimum / unrolled at its "
                      "minimum", "rounds"],
                     [(x["threads"], f"{x['median']:.3f}",
                       f"{x['low']:.3f} to {x['high']:.3f}")
                      for x in r.data.get("ratios", [])])
    else:
        out += missing("bench/step/loop_minimum.py",
                       f"{PY} bench/step/loop_minimum.py --json "
                       "bench/step/results/loop-minimum.json")
    r = newest("bench/gpt/step.json")
    if r:
        out += ["### The GPT step (examples/gpt)", "",
                "The character-level GPT's gradient step (batch 16 x 32 "
                "tokens, 2 blocks, d_model 64), tad through the Python "
                "package against its PyTorch twin, one thread each, the "
                "sides alternating in rounds; a median step is the whole "
                "Python call, the compiled call the library's function "
                "alone:", ""] + about(r, "")
        eager = {x["side"]: x for x in r.rows if "PyTorch" in x["side"]}
        rows = []
        for x in r.rows:
            torch = (eager.get("PyTorch, dropout 0.1") if "0.1" in x["side"]
                     else eager.get("PyTorch, dropout 0"))
            ratio = (f"{x['median_ms'] / torch['median_ms']:.2f}x"
                     if torch and x is not torch else "-")
            call = x.get("median_call_ms")
            rows.append((x["side"], f"{x['median_ms']:.2f} ms",
                         f"{x['p10_ms']:.2f} to {x['p90_ms']:.2f} ms",
                         "-" if call is None else f"{call:.2f} ms", ratio,
                         x["peak_bytes"]))
        out += table(["side", "median step", "p10 to p90", "compiled call",
                      "vs PyTorch (same dropout)", "peak bytes"], rows)
        remat = r.data.get("remat", {})
        if remat:
            out += [f"The budgeted step's budget is PyTorch's peak at dropout "
                    f"0.1 ({remat['budget']} bytes): predicted peak "
                    f"{remat['predicted_peak']}, store-all "
                    f"{remat['store_all_peak']}, predicted recompute "
                    f"overhead {pct(remat['recompute_overhead'])}.", ""]
    return out


def memory(plots):
    out = ["## Memory against PyTorch", ""]
    r = newest("bench/memory/results/run*.json")
    if r:
        out += about(r, f"{BLAS1} bench/memory/run.py")
        out += table(["workload", "form", "tad peak", "tad minimum budget",
                      "tad step"],
                     [(x["workload"], x["form"], x["peak_bytes"],
                       x["minimum_budget"] or "-", ms(x["seconds"]))
                      for x in r.rows])
        out += table(["workload", "loop budget", "predicted overhead",
                      "measured overhead"],
                     [(x["workload"], x["loop_budget"],
                       pct(x["predicted_overhead"]),
                       pct(x["measured_overhead"]))
                      for x in r.data.get("overheads", [])])
        if r.data.get("pytorch"):
            out += table(["workload", "PyTorch peak", "PyTorch step"],
                         [(x["workload"], x["peak_bytes"], ms(x["seconds"]))
                          for x in r.data["pytorch"]])
        if r.data.get("least"):
            out += table(["workload", "the least memory", "peak", "step"],
                         [(x["workload"], x["side"], x["peak_bytes"],
                           ms(x["seconds"])) for x in r.data["least"]])
    else:
        out += missing("bench/memory/run.py", f"{BLAS1} bench/memory/run.py "
                       "--json bench/memory/results/run.json")
    bars = []
    r = newest("bench/memory/default_policy.json")
    if r:
        out += ["Peaks of the default compile's steps (the runtime "
                "allocator's; PyTorch's by the profiler), one thread:", ""]
        out += about(r, "")
        rows = []
        for x in r.rows:
            torch = x["torch_peak_bytes"]
            rows.append((x["workload"], x["form"], torch,
                         x["store_all_peak_bytes"],
                         f"{x['store_all_peak_bytes'] / torch:.3f}",
                         x["default_peak_bytes"],
                         f"{x['default_peak_bytes'] / torch:.3f}"))
            bars.append((f"{x['workload']}\n{x['form']}", torch,
                         x["store_all_peak_bytes"], x["default_peak_bytes"]))
        out += table(["workload", "form", "PyTorch eager", "tad store-all",
                      "x PyTorch", "tad default", "x PyTorch"], rows)
    r = newest("bench/gpt/step.json")
    if r:
        out += ["Peaks of the GPT step (bench/gpt/step.py, the file of "
                "[its step times](#the-gpt-step-examplesgpt)):", ""]
        torch = next((x["peak_bytes"] for x in r.rows
                      if x["side"] == "PyTorch, dropout 0.1"), None)
        out += table(["side", "peak bytes", "x PyTorch at dropout 0.1"],
                     [(x["side"], x["peak_bytes"],
                       f"{x['peak_bytes'] / torch:.3f}" if torch else "-")
                      for x in r.rows])
        sides = {x["side"]: x["peak_bytes"] for x in r.rows}
        if {"PyTorch, dropout 0.1", "tad, dropout 0.1"} <= set(sides):
            bars.append(("GPT", sides["PyTorch, dropout 0.1"],
                         sides["tad, dropout 0.1"],
                         sides.get("tad, dropout 0.1, budget")))
    if bars:
        fig, ax = plots.figure()
        width = 0.27
        for i, (label, key) in enumerate((("PyTorch eager", 1),
                                          ("tad store-all", 2),
                                          ("tad default (GPT: budget = "
                                           "PyTorch's peak)", 3))):
            ax.bar([j + (i - 1) * width for j in range(len(bars))],
                   [(b[key] or 0) / 2**20 for b in bars], width, label=label)
        ax.set_xticks(range(len(bars)), [b[0] for b in bars], fontsize=8)
        ax.set_ylabel("peak of a step (MiB)")
        ax.set_title("Gradient step peaks, tad against PyTorch eager")
        ax.legend(fontsize=8)
        out += plots.save(fig, "memory")
    return out


def default_policy(plots):
    out = ["## The default policy", ""]
    # A run without "threads" is a one-thread run (the field came later).
    runs = newest_each("bench/memory/default_policy*.json", "threads")
    runs = {threads or 1: r for threads, r in runs.items()}
    for threads in sorted(runs):
        r = runs[threads]
        out += ["tad's default compile (no `--remat-budget`: the remat "
                "pass's overhead policy, [remat.md](remat.md)) against its "
                f"store-all compile, {threads_text(threads)}, the two "
                "alternating in rounds; an overhead is a step's time over "
                "store-all's, less one. Where the default's derivative is "
                "store-all's own code (`--emit=ad` the same but for the "
                "budget recorded on it), its measured overhead is the "
                "machine's noise:", ""]
        out += about(r, "")
        out += table(["workload", "form", "budget", "default peak / "
                      "store-all", "code", "predicted overhead",
                      "measured overhead", "store-all step", "default step"],
                     [(x["workload"], x["form"], x["budget"],
                       f"{x['default_peak_bytes'] / x['store_all_peak_bytes']:.3f}",
                       {True: "store-all's", False: "its own"}.get(
                           x.get("same_code"), "-"),
                       pct(x["predicted_overhead"]),
                       pct(x["measured_overhead"]),
                       f"{x['store_all_ms']:.2f} ms",
                       f"{x['default_ms']:.2f} ms") for x in r.rows])
    if not runs:
        out += missing("bench/memory/default_policy.py",
                       f"{BLAS1} bench/memory/default_policy.py")
    runs = newest_each("bench/gpt/overhead*.json", "threads")
    if not runs:
        return out + missing("bench/gpt/overhead.py",
                             f"{PY} bench/gpt/overhead.py")
    fig, ax = plots.figure()
    for threads in sorted(runs):
        r = runs[threads]
        torch = r.data["torch_peak_bytes"]
        out += [f"The GPT step (examples/gpt) under `--remat-overhead=P%`, "
                f"{threads_text(threads)}, against its store-all compile "
                f"(PyTorch eager's peak: {torch} bytes):", ""]
        out += about(r, "")
        out += table(["bound", "budget", "peak bytes", "x PyTorch",
                      "predicted overhead", "measured overhead",
                      "compiled call", "p10 to p90"],
                     [(x["side"], x.get("budget", "-"), x["peak_bytes"],
                       f"{x['peak_bytes'] / torch:.2f}",
                       pct(x.get("predicted_overhead")),
                       pct(x["measured_overhead"]),
                       f"{x['median_call_ms']:.2f} ms",
                       f"{x['p10_ms']:.2f} to {x['p90_ms']:.2f} ms")
                      for x in r.rows])
        xs = [x["peak_bytes"] / torch for x in r.rows]
        line, = ax.plot(xs, [100 * x["measured_overhead"] for x in r.rows],
                        marker="o",
                        label=f"measured, {threads_text(threads)}")
        ax.plot(xs, [100 * (x.get("predicted_overhead") or 0)
                     for x in r.rows], marker="x", linestyle="--",
                color=line.get_color(),
                label=f"predicted, {threads_text(threads)}")
        for x, px in zip(r.rows, xs):
            ax.annotate(x["side"], (px, 100 * x["measured_overhead"]),
                        fontsize=7, textcoords="offset points",
                        xytext=(3, 3))
    ax.axvline(1.0, color="grey", linewidth=0.8)
    ax.set_xlabel("peak / PyTorch eager's peak")
    ax.set_ylabel("step time over store-all's (%)")
    ax.set_title("examples/gpt under the overhead policy's bounds")
    ax.legend(fontsize=8)
    return out + plots.save(fig, "gpt-overhead")


def remat(plots):
    out = ["## Remat solvers", ""]
    r = newest("bench/remat/results/solvers*.json")
    if r:
        out += ["tad-remat's solvers on random graphs, cost over store-all's "
                "(1.000: nothing computed again) and solver time:", ""]
        out += about(r, f"{PY} bench/remat/solvers.py")
        rows = []
        for x in r.rows:
            base = x["store_all"]["cost"]
            at = ("Chen's peak" if x["fraction"] is None
                  else f"{x['fraction']} of store-all")
            cells = []
            for solver in ("chen", "fast", "dtr"):
                y = x.get(solver)
                cells += (["-", "-"] if solver not in x else
                          ["no schedule", "-"] if y is None else
                          [f"{y['cost'] / base:.3f}",
                           f"{1e3 * y['seconds']:.1f}"])
            rows.append([x["graph"], x["nodes"], at] + cells)
        out += table(["graph", "nodes", "budget", "Chen: cost", "ms",
                      "fast: cost", "ms", "DTR: cost", "ms"], rows)
    else:
        out += missing("bench/remat/solvers.py", f"{PY} bench/remat/"
                       "solvers.py --json bench/remat/results/solvers.json")
    r = newest("bench/remat/results/gaps*.json")
    if r:
        out += ["The fast and DTR solvers' cost over the exact optimum, less "
                "one:", ""]
        out += about(r, f"{PY} bench/remat/gaps.py")
        rows = []
        for solver in dict.fromkeys(x["solver"] for x in r.rows):
            mine = [x for x in r.rows if x["solver"] == solver]
            for fraction in sorted({x["fraction"] for x in mine}) + ["all"]:
                gaps = [x["gap"] for x in mine
                        if fraction == "all" or x["fraction"] == fraction]
                rows.append((solver, fraction, len(gaps),
                             f"{100 * sum(g < 1e-9 for g in gaps) / len(gaps):.0f}%",
                             pct(quantile(gaps, 0.5)),
                             pct(quantile(gaps, 0.9)), pct(max(gaps))))
        out += table(["solver", "budget / store-all peak", "cases", "optimal",
                      "median gap", "90th percentile", "worst"], rows)
    else:
        out += missing("bench/remat/gaps.py", f"{PY} bench/remat/gaps.py "
                       "--json bench/remat/results/gaps.json")
    out += (remat_scale(plots) + remat_last_resort() + remat_least_budget() +
            op_costs())
    runs = newest_each("bench/remat/results/budget-compiles*.json", "seed")
    out += ["### Planning time under a budget", ""]
    if not runs:
        return out + missing("bench/remat/budget_compiles.py",
                             f"{PY} bench/remat/budget_compiles.py --tadc "
                             "build/bin/tadc --json bench/remat/results/"
                             "budget-compiles-seed0.json")
    out += ["`tadc FILE --emit=ad --remat-budget=B` on the random programs of "
            "test/Remat/random_budgets.py, at the store-all peak, the "
            "feasible minimum and halfway, and naming the minimum "
            "(`--remat-budget=1`), wall clock:", ""]
    fig, ax = plots.figure()
    for seed in sorted(runs):
        r = runs[seed]
        data = r.data
        out += about(r, f"{PY} bench/remat/budget_compiles.py --tadc "
                     f"build/bin/tadc --count {data['count']} --seed {seed}")
        rows = []
        for kind in ("store-all", "minimum search", "budget"):
            times = [x["seconds"] for x in data["runs"] if x["kind"] == kind]
            if not times:
                continue
            failed = sum(1 for x in data["runs"]
                         if x["kind"] == kind and not x["ok"])
            rows.append((f"{data['count']} programs, seed {seed}", kind,
                         len(times), failed, f"{median(times):.2f} s",
                         f"{quantile(times, 0.9):.2f} s",
                         f"{max(times):.2f} s"))
        out += table(["programs", "compile", "compiles", "failed", "median",
                      "90th percentile", "slowest"], rows)
        if seed != max(runs, key=lambda s: runs[s].data["count"]):
            continue
        for kind in ("store-all", "minimum search", "budget"):
            times = sorted(x["seconds"] for x in data["runs"]
                           if x["kind"] == kind)
            ax.step(times, [(i + 1) / len(times) for i in range(len(times))],
                    where="post", label=kind)
        ax.set_title(f"tadc planning time, {data['count']} random programs "
                     f"(seed {seed})")
    ax.set_xscale("log")
    ax.set_xlabel("compile time (s)")
    ax.set_ylabel("share of compiles at most that long")
    ax.legend(fontsize=8)
    return out + plots.save(fig, "budget-compiles") + model_gap()


def model_gap():
    """bench/remat/model_gap.py: the remat model's store-all peak against
    the buffer plan's."""
    out = ["### The model against the plan", ""]
    r = newest("bench/remat/results/model-gap*.json")
    if not r:
        return out + missing("bench/remat/model_gap.py",
                             f"{PY} bench/remat/model_gap.py --tadc "
                             "build/bin/tadc --tad-opt build/bin/tad-opt "
                             "--json bench/remat/results/model-gap-seed0.json")
    data = r.data
    out += ["The store-all peak of each random program's derivative, as the "
            "remat graph counts it and as the buffer plan allocates it "
            "(`tad-opt --tad-test-memory-model`); where they differ, a trial "
            "of the loop choice must lower a copy to learn whether it fits:",
            ""]
    out += about(r, f"{PY} bench/remat/model_gap.py --tadc build/bin/tadc "
                 f"--tad-opt build/bin/tad-opt --count {data['count']} "
                 f"--seed {data['seed']}")
    summary = data["summary"]
    planned = sum(x["plan"] for x in r.rows)
    out += table(["programs", "model = plan", "model above", "model below",
                  "gaps in all"],
                 [(f"{data['count']}, seed {data['seed']}", summary["equal"],
                   summary["over"], summary["under"],
                   f"{summary['gap_bytes']} bytes "
                   f"({100 * summary['gap_bytes'] / planned:.1f}% of the "
                   "planned peaks)")])
    return out


def remat_last_resort():
    """bench/remat/last_resort.py: what the fast solver's last resort wins
    back on dense graphs, and what it costs a refusal."""
    out = ["### The last resort", ""]
    r = newest("bench/remat/results/last-resort*.json")
    if not r:
        return out + missing("bench/remat/last_resort.py", f"{PY} bench/remat/"
                             "last_resort.py --fractions 0.5,0.45,0.4 --json "
                             "bench/remat/results/last-resort.json")
    rows = r.rows
    out += [f"tad-remat on {len(rows)} budgets of dense layered graphs of "
            f"{r.data['nodes']} nodes with sizes in kilobytes to megabytes "
            "(issue 52's), with its last resort and without it "
            "(`--scan-looks=0`); a budget won back is one that only the last "
            "resort fits, its share the budget over the smallest one named "
            "without it ([remat-solver.md](remat-solver.md#large-graphs)):",
            ""]
    out += about(r, f"{PY} bench/remat/last_resort.py")
    won = [x for x in rows if x["cost"] is not None and x["cost_without"] is None]
    refused = [x for x in rows if x["cost"] is None]
    differ = sum(1 for x in rows if x["cost"] is not None and
                 x["cost_without"] is not None and x["cost"] != x["cost_without"])
    shares = sorted(x["share_of_named"] for x in won)
    out += table(
        ["budgets", "fit with it", "fit without", "won back (shares)",
         "costs that differ", "refusal with it: median / slowest",
         "refusal without: median"],
        [[len(rows), len(rows) - len(refused),
          sum(1 for x in rows if x["cost_without"] is not None),
          f"{len(won)} ({shares[0]:.3f} to {shares[-1]:.3f})" if won else "0",
          differ,
          f"{median([x['seconds'] for x in refused]):.2f} s / "
          f"{max(x['seconds'] for x in refused):.2f} s" if refused else "-",
          f"{median([x['seconds_without'] for x in rows if x['cost_without'] is None]):.2f} s"]])
    return out


def remat_least_budget():
    """bench/remat/least_budget.py: where the least feasible budget of a
    dense graph lies, beside tad-remat's smallest budget."""
    out = ["### The least budget", ""]
    r = newest("bench/remat/results/least-budget*.json")
    if not r:
        return out + missing("bench/remat/least_budget.py", f"{PY} bench/remat/"
                             "least_budget.py --json "
                             "bench/remat/results/least-budget.json")
    out += ["The least budget at which any schedule fits, bracketed on "
            "bench/remat/scale.py's dense layered graphs: from below by the "
            "largest compute, from above by a schedule that computes each "
            "node from nothing (replayed with `tad-remat --replay` where it "
            "has at most 200,000 computes); beside them the smallest budget "
            "that tad-remat names, each as bytes and as a share of the "
            "store-all peak ([remat-solver.md](remat-solver.md#the-least-budget)):",
            ""]
    out += about(r, f"{PY} bench/remat/least_budget.py")

    def share(x, key):
        return f"{x[key]} ({x[key] / x['store_all']:.3f})"

    # The script's own rendering of a count of computes (1.2e34).
    sys.path.insert(0, os.path.join(ROOT, "bench", "remat"))
    from least_budget import magnitude

    rows = [[x["nodes"], x["edges"], x["store_all"],
             share(x, "largest_compute"),
             share(x, "from_nothing") + " / " +
             magnitude(x["from_nothing_computes"]) +
             (" (replayed)" if x["replayed"] is not None else ""),
             share(x, "solver_minimum") +
             (", exact" if x["solver_exact"] else "")] for x in r.rows]
    return out + table(["nodes", "edges", "store-all peak",
                        "largest compute: none fits below",
                        "each node from nothing: fits in / computes",
                        "tad-remat's smallest budget"], rows)


def remat_scale(plots):
    """bench/remat/scale.py: the fast solver on dense layered graphs, one
    table per kind of graph (its --weights)."""
    out = ["### Dense graphs", ""]
    found = newest_each("bench/remat/results/dense-scale*.json", "weights")
    if not found:
        return out + missing("bench/remat/scale.py", f"{PY} bench/remat/"
                             "scale.py --sizes 502,1002,2002,5002,10002 "
                             "--json bench/remat/results/dense-scale.json")
    out += ["tad-remat on dense layered graphs (bench/remat/layered_graph.py, "
            "like Checkmate's `random_layered`), at fractions of the "
            "store-all peak: the solver's time, the schedule's cost over "
            "store-all's, and tad-remat's peak RSS; where no schedule fits, "
            "the time to that answer. First with small tensor sizes, then "
            "with sizes of kilobytes to megabytes and gradients half their "
            "values' size (issue 52's graphs, `--weights loguniform`):", ""]
    # The small sizes first: theirs is the plot. (Files from before
    # --weights have none: small sizes.)
    found = {weights or "small": r for weights, r in found.items()}
    order = sorted(found, key=lambda weights: weights != "small")
    for weights in order:
        out += about(found[weights], f"{PY} bench/remat/scale.py")
        out += scale_table(found[weights])
    small = found[order[0]]
    fractions = sorted({x["fraction"] for x in small.rows})
    fig, ax = plots.figure()
    for fraction in fractions:
        mine = sorted((x["nodes"], x["seconds"] if x["seconds"] is not None
                       else x["wall"]) for x in small.rows
                      if x["fraction"] == fraction)
        ax.plot([n for n, _ in mine], [t for _, t in mine], marker="o",
                label=f"{fraction:g} of store-all")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("nodes")
    ax.set_ylabel("solver time (s)")
    ax.set_title("tad-remat on dense layered graphs (small sizes)")
    ax.legend(fontsize=8)
    return out + plots.save(fig, "remat-dense")


def scale_table(r):
    """One run of bench/remat/scale.py as a table: a row per graph."""
    fractions = sorted({x["fraction"] for x in r.rows})
    rows = []
    for nodes in sorted({x["nodes"] for x in r.rows}):
        mine = {x["fraction"]: x for x in r.rows if x["nodes"] == nodes}
        cells = []
        for fraction in fractions:
            x = mine.get(fraction)
            if x is None:
                cells.append("-")
            elif x["found"]:
                cells.append(f"{x['seconds']:.3f} s / {x['cost']:.3f} / "
                             f"{x['rss_mb']:.0f} MB")
            elif x["seconds"] is not None:
                cells.append(f"none fits: {x['seconds']:.2f} s / "
                             f"{x['rss_mb']:.0f} MB")
            else:
                cells.append(f"{x['failure']} after {x['wall']:.1f} s")
        edges = next(iter(mine.values()))["edges"]
        rows.append([nodes, edges] + cells)
    return table(["nodes", "edges"] + [f"{f:g} of the peak" for f in fractions],
                 rows)


def op_costs():
    """bench/remat/op_costs.py: the cost model against measured time."""
    out = ["### Op costs", ""]
    r = newest("bench/remat/results/op-costs*.json")
    if not r:
        return out + missing("bench/remat/op_costs.py",
                             "OPENBLAS_NUM_THREADS=1 " + PY + " bench/remat/"
                             "op_costs.py --json bench/remat/results/"
                             "op-costs.json")
    out += ["Each op alone, timed (`tadc run`, the median call), over the "
            "remat model's cost of it in units ([remat-model.md]"
            "(remat-model.md#costs)); one number in the last column is a "
            "model that matches this machine:", ""]
    out += about(r, "OPENBLAS_NUM_THREADS=1 " + PY + " bench/remat/op_costs.py")
    out += table(["op", "measured", "model units", "ns per unit"],
                 [(x["op"], f"{x['seconds'] * 1e6:.1f} us",
                   f"{x['units']:.0f}", f"{x['ns_per_unit']:.3f}")
                  for x in r.rows])
    return out


def compile_time(plots):
    out = ["## Compile time", ""]
    r = newest("bench/compile/results/run*.json")
    if r:
        out += ["`tadc --emit=lib` of tanh MLPs and 4 transformer blocks, "
                "without a budget and halfway from the feasible minimum to "
                "the store-all peak:", ""]
        out += about(r, f"{PY} bench/compile/run.py")
        out += table(["program", "budget", "`--emit=lib`",
                      "of which `--emit=llvm-ir`", "per layer"],
                     [(x["program"], x["budget"] or "none",
                       f"{x['lib_seconds']:.2f} s",
                       f"{x['llvm_ir_seconds']:.2f} s",
                       f"{x['lib_seconds'] / x['layers'] * 1e3:.0f} ms")
                      for x in r.rows])
    else:
        out += missing("bench/compile/run.py", f"{PY} bench/compile/run.py "
                       "--json bench/compile/results/run.json")
    r = newest("bench/compile/results/scale-*.json")
    if not r:
        return out + missing("bench/compile/scale.py", f"{PY} bench/compile/"
                             "scale.py --json bench/compile/results/"
                             "scale-DATE-MACHINE.json")
    programs = {}
    for x in r.rows:
        programs.setdefault(x["program"], []).append(x)
    fields = [x["size"] for x in programs.get("record identity", [])]
    instances = [x["size"] for x in programs.get("generic", [])]
    out += ["`tadc --emit=obj` of a record of N `f32[4]` fields (its "
            "identity, and the gradient of the sum of its fields' squares) "
            "and of N instances of a generic function (and of the gradient "
            "of one); growth is the exponent of the time's growth over the "
            "size's from the row before (1 is linear)"
            + (f"; each time the median of {len(r.rows[0]['runs'])} runs"
               if r.rows and len(r.rows[0].get("runs", [])) > 1 else "")
            + ":", ""]
    out += about(r, f"{PY} bench/compile/scale.py --fields "
                 + " ".join(map(str, fields)) + " --instances "
                 + " ".join(map(str, instances)))
    rows = []
    fig, (left, right) = plots.figure(2)
    for label, mine in programs.items():
        last = None
        for x in mine:
            growth = "-"
            if last and x["seconds"] and last["seconds"]:
                growth = (math.log(x["seconds"] / last["seconds"])
                          / math.log(x["size"] / last["size"]))
                growth = f"{growth:.2f}"
            last = x
            rows.append((label, x["size"],
                         f"{x['seconds']:.2f} s" if not x["error"]
                         else f"failed: {x['error']}",
                         f"{x['peak_bytes'] / 2**20:.0f} MiB", growth))
        ok = [x for x in mine if not x["error"]]
        left.plot([x["size"] for x in ok], [x["seconds"] for x in ok],
                  marker="o", label=label)
        right.plot([x["size"] for x in ok],
                   [x["peak_bytes"] / 2**20 for x in ok], marker="o",
                   label=label)
    out += table(["program", "size", "`--emit=obj`", "peak memory", "growth"],
                 rows)
    for ax, what in ((left, "compile time (s)"),
                     (right, "tadc's peak resident memory (MiB)")):
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_xlabel("fields or instances")
        ax.set_ylabel(what)
        ax.legend(fontsize=8)
    left.set_title("tadc --emit=obj against a program's width")
    return out + plots.save(fig, "compile-width")


def cold_build():
    out = ["## Building from nothing", ""]
    found = sorted(glob.glob(os.path.join(ROOT, "bench/build/results/*.json")))
    if not found:
        return out + missing("bench/build/cold.py", f"{PY} bench/build/"
                             "cold.py --json bench/build/results/pch.json")
    out += ["A fresh clone built with an empty ccache (`ninja all "
            "tad-test-depends`, what `make test` builds), and the tests of "
            "`make test` after it, each run alone on the machine; one row "
            "per file:", ""]
    rows, slowest = [], None
    for path in found:
        r = Result(path)
        out += about(r, f"{PY} bench/build/cold.py")
        for x in r.rows:
            tests = x.get("test_seconds")
            rows.append((os.path.basename(path), x["commit"],
                         " ".join(x["cmake_args"]) or "(the defaults)",
                         f"{x['build_seconds'] / 60:.1f} min", x["steps"],
                         f"{tests / 60:.1f} min" if tests else "not run",
                         f"{(x['build_seconds'] + tests) / 60:.1f} min"
                         if tests else "-"))
            if not x["cmake_args"]:
                slowest = x["slowest_units"]
    out += table(["file", "commit", "cmake", "build", "steps", "tests",
                  "`make test` in all"], rows)
    if slowest:
        out += ["The slowest translation units of the default build "
                "(`build/.ninja_log`, two at a time on 2 cores):", ""]
        out += table(["unit", "seconds"],
                     [(f"`{u['unit']}`", f"{u['seconds']:.0f}")
                      for u in slowest])
    return out


def gpu(plots):
    out = ["## GPU", ""]
    found = sorted(glob.glob(os.path.join(ROOT,
                                          "bench/gpu/results/steps-*.json")))
    # steps-DEVICE.json is a device's run, shown; steps-DEVICE-VARIANT.json
    # one of a variant (another option or an earlier tree), listed by name.
    main = [p for p in found
            if re.fullmatch(r"steps-[^-]+\.json", os.path.basename(p))]
    if not main:
        return out + missing("bench/gpu/steps.py", "python3 bench/gpu/"
                             "steps.py run DIR --json bench/gpu/results/"
                             "steps-DEVICE.json")
    out += ["bench/step's gradient steps on a GPU: tad's `--target=cuda` "
            "executables (the generated matmul kernels, and cuBLAS) against "
            "PyTorch eager, medians of synchronized steps; the ratio is "
            "tad's time over PyTorch eager's; peaks are each side's "
            "allocator, inputs excluded. `build` runs where tad is built, "
            "`run` on the GPU's machine.", ""]
    for path in main:
        out += gpu_run(Result(path), plots)
    others = [os.path.relpath(p, ROOT) for p in found if p not in main]
    if others:
        out += ["Runs of variants, named by their files (`python3 "
                "bench/gpu/steps.py table FILE` prints each): "
                + ", ".join(f"[`{os.path.basename(p)}`](../{p})"
                            for p in others) + ".", ""]
    return out


def gpu_launches():
    """bench/gpu/launches.py's counts, measured without a GPU."""
    out = ["### Kernel launches", ""]
    r = newest("bench/gpu/results/launches.json")
    command = f"{PY} bench/gpu/launches.py"
    if not r:
        return out + missing("bench/gpu/launches.py", command)
    out += ["What one call launches, counted without a GPU: in the emulator "
            "(`--target=cuda-emulator`), with its measured peak and the "
            "plan's, and against the stand-in driver of test/GPU "
            "(`--target=cuda` without cuBLAS, so matmuls are tad's kernels), "
            "with the host's waits, and the waits when the host waits for "
            "every kernel (`--cuda-sync-launches`); bench/gpu/gpt.py's "
            "GPU-sized step, too large to emulate, against the stand-in "
            "only, whose allocator counts its peak. "
            "[gpu.md](gpu.md#the-pipeline) says what makes a kernel.", ""]
    out += about(r, command)
    driver = r.data.get("stand_in_driver")

    def program(x):
        return (f"{x['program']} (`{x['source']}` `{x['entry']}`"
                + (" " + " ".join(x["arguments"][1::2]) if x["arguments"]
                   else "") + ")")
    rows = [[program(x), x.get("emulator_launches", "-")]
            + ([x["driver_launches"], x["waits"], x["waits_sync"]]
               if driver else [])
            + [x["peak_bytes"], x.get("planned_peak_bytes", "-")]
            for x in r.rows]
    return out + table(
        ["program", "launches (emulator)"]
        + (["launches (stand-in driver)", "waits",
            "waits with `--cuda-sync-launches`"] if driver else [])
        + ["peak", "plan's peak"], rows)


def gpu_run(r, plots):
    """The table and the plot of one bench/gpu/steps.py --json file."""
    rows = r.rows
    compiled = any(x["side"] == "torch.compile" for x in rows)
    out = about(r, "python3 bench/gpu/steps.py build DIR\n"
                "python3 bench/gpu/steps.py run DIR"
                + (" --compile" if compiled else ""))

    def find(name, side):
        return next((x for x in rows if x["workload"] == name
                     and x["side"] == side), None)

    def cell(x):
        if not x or x.get("seconds") is None:
            return "-"
        ratio = x.get("over_pytorch")
        return ms(x["seconds"]) + (f" ({ratio:.2f}x)" if ratio else "")
    # The steps (a matmul alone has a rate, not a peak: a line below).
    names = [n for n in dict.fromkeys(x["workload"] for x in rows)
             if "peak" in (find(n, "PyTorch eager") or {})]
    table_rows = []
    for n in names:
        eager, kernels = find(n, "PyTorch eager"), find(n, "tad kernels")
        table_rows.append([n, cell(eager)]
                          # torch.compile ran on the unrolled forms; a loop
                          # form is the same PyTorch program.
                          + ([cell(find(n, "torch.compile") or find(
                              n.replace("_loop", "_unrolled"),
                              "torch.compile"))] if compiled else [])
                          + [cell(kernels), cell(find(n, "tad cublas")),
                             kernels["peak"] if kernels else "-",
                             eager["peak"]])
    out += table(["workload", "PyTorch eager"]
                 + (["torch.compile"] if compiled else [])
                 + ["tad kernels", "tad cuBLAS", "tad peak", "PyTorch peak"],
                 table_rows)
    for x in rows:
        if x["side"].startswith("tad at "):
            out += [f"- {x['workload']} at its {x['side'][7:]} budget "
                    f"({x['budget']} bytes): device peak {x['peak']}, the "
                    f"CPU's {x['cpu_peak']}, {cell(x)}."]
        if x.get("tflops"):
            out += [f"- {x['workload']}, {x['side']}: {cell(x)}, "
                    f"{x['tflops']:.1f} TFLOP/s."]
        if x["side"] == "PyTorch eager, SDPA":
            out += [f"- {x['workload']}, PyTorch eager with its fused "
                    f"attention (scaled_dot_product_attention): {cell(x)}, "
                    f"peak {x['peak']}."]
        if x["workload"].startswith("sum") and x.get("seconds"):
            out += [f"- {x['workload']}: {cell(x)}; the memory bandwidth "
                    f"({x['bandwidth_bytes_per_second'] / 1e12:.2f} TB/s, a "
                    f"device-to-device copy) allows "
                    f"{x['bandwidth_seconds'] * 1e6:.1f} us."]
    out += [""]
    fig, ax = plots.figure()
    width = 0.4
    for i, side in enumerate(("tad kernels", "tad cublas")):
        ax.bar([j + (i - 0.5) * width for j in range(len(names))],
               [(find(n, side) or {}).get("over_pytorch") or 0
                for n in names], width, label=side)
    ax.axhline(1.0, color="grey", linewidth=0.8)
    ax.set_xticks(range(len(names)), names, fontsize=8, rotation=15)
    ax.set_ylabel("step time / PyTorch eager's")
    ax.set_title(machine_of(r.data))
    ax.legend(fontsize=8)
    device = os.path.basename(r.rel)[len("steps-"):-len(".json")]
    return out + plots.save(fig, f"gpu-{device}")


HEADER = """# Results

<!-- Generated by `make results` (bench/results.py). Do not edit. -->

This page is generated by `make results` (`bench/results.py`) from the JSON
files that the benchmarks write under `bench/`; do not edit it by hand. To
change a number, run the command beside its table on the machine it names,
commit the JSON file, and run `make results`. Each table comes from the
newest file of its benchmark. [performance.md](performance.md) says what the
benchmarks measure and why tad's code and compile are fast;
[memory.md](memory.md) says what a peak counts. The remat solver's and
planning's results are on [a page of their own](results-remat.md).
"""

REMAT_HEADER = """# Results: the remat solver and planning

<!-- Generated by `make results` (bench/results.py). Do not edit. -->

Generated as [results.md](results.md) is, from the JSON that `bench/remat/`
writes: the solver against other schedules and the exact optimum, its time
on large graphs, the cost model against measured time, and how long tadc
plans under a budget. [remat-solver.md](remat-solver.md) and
[remat-model.md](remat-model.md) say what is measured and why.
"""


def main():
    global ROOT
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--root", default=ROOT,
                    help="the checkout to read bench/ from and write docs/ "
                    "to (default: this one)")
    args = ap.parse_args()
    ROOT = os.path.abspath(args.root)
    images = os.path.join(ROOT, "docs", "images")
    os.makedirs(images, exist_ok=True)
    plots = Plots(images)
    pages = {
        "results.md": (HEADER, (gemm(), mlp_forward(), steps(),
                                memory(plots), default_policy(plots),
                                compile_time(plots), cold_build(),
                                gpu(plots), gpu_launches())),
        "results-remat.md": (REMAT_HEADER, (remat(plots),)),
    }
    for name, (header, sections) in pages.items():
        lines = header.split("\n")
        for section in sections:
            lines += section
        text = "\n".join(lines).rstrip("\n") + "\n"
        with open(os.path.join(ROOT, "docs", name), "w") as f:
            f.write(text)
    # A plot that this run did not make is stale.
    for path in glob.glob(os.path.join(images, "results-*.png")):
        if path not in plots.written:
            os.remove(path)
    print(f"wrote docs/results.md, docs/results-remat.md and "
          f"{len(plots.written)} plots (docs/images/results-*.png)")


if __name__ == "__main__":
    main()
