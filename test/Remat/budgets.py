#!/usr/bin/env python3
"""Compiles a derivative at budgets from its store-all peak down to the
feasible minimum and checks, for each budget, what issue 6 promises:

  - the allocator's measured peak never exceeds the budget, and equals the
    peak of the buffer plan (a bound of it, with branches on data);
  - the report's predicted peak is within 5% of the measured one, and its
    timeline (the buffer plan's run of the compiled code) equals the
    allocator's measured one event for event (without branches on data);
  - the results (values and gradients) equal the store-all results bit for
    bit (recomputation repeats the same ops on the same inputs).

    budgets.py TADC FILE.tad ENTRY [--points N] [--top BYTES]
               [--bottom BYTES] [--seed N] [--loop-snapshots N]
               [--tadc-arg=ARG ...] [--overheads P%,...]

--top starts the sweep below the store-all peak (for programs whose
store-all prediction is not yet exact). --bottom ends it at BYTES instead
of the minimum tadc names (which takes a search of many compiles), for a
sweep whose minimum another sweep of the same test checks. --seed picks the random inputs:
a branch is predicted at its larger side, so a program with branches is
measured on inputs that take it. --loop-snapshots is passed to tadc: 0
keeps full tapes, so that the sweep schedules the function around its
loops instead of choosing how to checkpoint them. Each --tadc-arg is
passed to tadc too (--tadc-arg=--loop-residuals=false). --overheads
also compiles under the overhead policy at each bound (--remat-overhead)
and checks the same against the budget it chose, and that its predicted
overhead is within the bound (beyond store-all's own).

Prints one line per budget and exits non-zero on the first violation.
"""
import argparse
import glob
import json
import os
import re
import subprocess
import sys
import tempfile

import numpy as np


def timeline_difference(fn, trace):
    """Where the report's timeline (the buffer plan's run) and the
    allocator's measured one (tadc run --memory-trace) differ; None when
    they are equal event for event (as far as a truncated timeline goes)."""
    with open(trace) as f:
        live = [e["args"]["measured"] for e in json.load(f)["traceEvents"]
                if e.get("ph") == "C"]
    planned = [p["live_bytes"] for p in fn["timeline"]]
    if fn.get("timeline_truncated"):
        live = live[:len(planned)]
    if planned == live:
        return None
    first = next((i for i, (a, b) in enumerate(zip(planned, live)) if a != b),
                 min(len(planned), len(live)))
    return (f"the planned timeline ({len(planned)} events) differs from the "
            f"measured one ({len(live)}) at event {first}")


def run(tadc, source, entry, budget, tmp, name, seed, extra):
    out = os.path.join(tmp, name)
    os.makedirs(out)
    stats, report = os.path.join(out, "stats.json"), os.path.join(
        out, "report.json")
    trace = os.path.join(out, "trace.json")
    args = [tadc, "run", source, "--entry", entry, f"--stats-json={stats}",
            f"--output-dir={out}", f"--remat-budget={budget}",
            f"--remat-report={report}", f"--memory-trace={trace}",
            f"--seed={seed}"] + extra
    proc = subprocess.run(args, capture_output=True, text=True)
    if proc.returncode != 0:
        sys.exit(f"FAIL: {' '.join(args)}\n{proc.stderr}")
    with open(stats) as f:
        data = json.load(f)
    measured = data["peak_bytes"]
    # The buffer plan's own peak (tad-buffer-peak) is the peak of every run
    # when it is exact, and a bound otherwise (a branch on data).
    planned = data["planned_peak_bytes"]
    if (measured != planned if data["planned_peak_exact"]
            else measured > planned):
        sys.exit(f"FAIL: {' '.join(args)}\nmeasured peak {measured}, "
                 f"planned {planned}")
    with open(report) as f:
        functions = json.load(f)["functions"]
    fn = next(f for f in functions if f["function"] == entry)
    if data["planned_peak_exact"]:
        difference = timeline_difference(fn, trace)
        if difference:
            sys.exit(f"FAIL: {' '.join(args)}\n{difference}")
    results = {os.path.basename(p): np.load(p)
               for p in sorted(glob.glob(os.path.join(out, "*.npy")))}
    return measured, fn, results


def check_run(line, predicted, measured, results, reference):
    """What every budget's run must show: a prediction within 5% of the
    measured peak, and the store-all results bit for bit."""
    if abs(predicted - measured) > 0.05 * measured:
        sys.exit(f"FAIL: {line}: prediction off by more than 5%")
    if results.keys() != reference.keys() or any(
            not np.array_equal(results[k], reference[k]) for k in reference):
        sys.exit(f"FAIL: {line}: results differ from store-all")
    print(f"ok: {line}, results equal")


def minimum_budget(tadc, source, entry, extra):
    proc = subprocess.run([tadc, source, "--emit=ad", "--entry", entry,
                           "--remat-budget=1"] + extra, capture_output=True,
                          text=True)
    match = re.search(r"the feasible minimum is (\d+) bytes", proc.stderr)
    if proc.returncode == 0 or not match:
        sys.exit(f"FAIL: no minimum in the error of budget 1:\n{proc.stderr}")
    return int(match.group(1))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("tadc")
    parser.add_argument("source")
    parser.add_argument("entry")
    parser.add_argument("--points", type=int, default=5)
    parser.add_argument("--top", type=int)
    parser.add_argument("--bottom", type=int)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--loop-snapshots", type=int)
    parser.add_argument("--tadc-arg", action="append", default=[])
    parser.add_argument("--overheads", default="")
    args = parser.parse_args()
    extra = ([] if args.loop_snapshots is None else
             [f"--loop-snapshots={args.loop_snapshots}"]) + args.tadc_arg
    with tempfile.TemporaryDirectory() as tmp:
        _, base, reference = run(args.tadc, args.source, args.entry, "1024GiB",
                                 tmp, "store-all", args.seed, extra)
        top = args.top or base["store_all_peak"]
        bottom = args.bottom or minimum_budget(args.tadc, args.source,
                                               args.entry, extra)
        budgets = sorted({bottom + (top - bottom) * i // (args.points - 1)
                          for i in range(args.points)}, reverse=True)
        for i, budget in enumerate(budgets):
            measured, fn, results = run(args.tadc, args.source, args.entry,
                                        budget, tmp, f"b{i}", args.seed, extra)
            predicted = fn["predicted_peak"]
            line = (f"{args.entry} budget {budget}: predicted {predicted}, "
                    f"measured {measured}, overhead "
                    f"{100 * fn['recompute_overhead']:.1f}%")
            if measured > budget:
                sys.exit(f"FAIL: {line}: measured peak over the budget")
            check_run(line, predicted, measured, results, reference)
        base_overhead = base["recompute_overhead"]
        for i, bound in enumerate(filter(None, args.overheads.split(","))):
            measured, fn, results = run(args.tadc, args.source, args.entry,
                                        f"overhead:{bound}", tmp, f"o{i}",
                                        args.seed, extra)
            budget, predicted = fn["budget"], fn["predicted_peak"]
            added = fn["recompute_overhead"] - base_overhead
            line = (f"{args.entry} overhead {bound}: budget {budget}, "
                    f"predicted {predicted}, measured {measured}, overhead "
                    f"{100 * fn['recompute_overhead']:.1f}%")
            if fn.get("overhead_bound") is None:
                sys.exit(f"FAIL: {line}: the report names no overhead bound")
            if added > fn["overhead_bound"] + 1e-9:
                sys.exit(f"FAIL: {line}: {100 * added:.2f}% added, over the "
                         "bound")
            if measured > budget or budget > base["store_all_peak"]:
                sys.exit(f"FAIL: {line}: measured peak over the budget, or "
                         "the budget over store-all")
            check_run(line, predicted, measured, results, reference)


if __name__ == "__main__":
    main()
