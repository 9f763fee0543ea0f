#!/usr/bin/env python3
"""Compares what two tadc binaries plan for the random programs of
test/Remat/random_budgets.py: the feasible minimum each names, and at the
budgets of random_budgets.py's sweep (OLD's store-all peak, OLD's minimum,
halfway), whether each meets the budget and with what recompute overhead,
and how long each takes. For a change to the remat model or search that
is meant to plan better, not the same (scripts/compare-budgets.py checks
a change meant to leave every plan as it was).

    /usr/bin/python3 scripts/compare-plan-quality.py OLD_TADC NEW_TADC
        [--seed 0] [--count 200] [--every 10]

`--every K` takes every K-th program of the generator's sequence (the
programs are those of `--count` drawn in order). Prints each compile that
NEW plans dearer or refuses, each minimum that differs, the slowest of
NEW's compiles, and a summary line.
"""
import argparse
import json
import os
import random
import re
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "test", "Remat"))
sys.path.insert(0, os.path.join(ROOT, "test", "AutoDiff"))
import random_budgets  # noqa: E402

OVERHEAD = re.compile(r"recompute overhead ([0-9.]+)%")
MINIMUM = re.compile(r"the feasible minimum is (\d+) bytes")


def compile_at(tadc, source, budget, *extra):
    """(seconds, exit status, overhead in percent or None, named minimum
    or None) of planning `df` at `budget`."""
    start = time.monotonic()
    proc = subprocess.run([tadc, source, "--emit=ad", "--entry", "df", "-o",
                           os.devnull, f"--remat-budget={budget}", *extra],
                          capture_output=True, text=True)
    seconds = time.monotonic() - start
    # The summary goes to standard output when the IR does not.
    text = proc.stdout + proc.stderr
    overhead = OVERHEAD.search(text)
    minimum = MINIMUM.search(text)
    return (seconds, proc.returncode,
            float(overhead.group(1)) if overhead else None,
            int(minimum.group(1)) if minimum else None)


def store_all_peak(tadc, source, tmp):
    report = os.path.join(tmp, "report.json")
    _, rc, _, _ = compile_at(tadc, source, "1024GiB",
                             f"--remat-report={report}")
    if rc:
        return None
    with open(report) as f:
        return next(fn for fn in json.load(f)["functions"]
                    if fn["function"] == "df")["store_all_peak"]


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("old")
    ap.add_argument("new")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--count", type=int, default=200)
    ap.add_argument("--every", type=int, default=1)
    args = ap.parse_args()
    rng = random.Random(args.seed)
    seconds = {"old": 0.0, "new": 0.0}
    refused = {"old": 0, "new": 0}
    cheaper = dearer = same = 0
    lower = higher = 0
    runs = []
    with tempfile.TemporaryDirectory() as tmp:
        for n in range(args.count):
            text = random_budgets.Generator(rng).program()
            if n % args.every:
                continue
            source = os.path.join(tmp, f"p{n}.tad")
            with open(source, "w") as f:
                f.write(text)
            high = store_all_peak(args.old, source, tmp)
            if high is None:
                print(f"program {n}: store-all fails with OLD")
                continue
            named = {}
            for k in ("old", "new"):
                t, _, _, minimum = compile_at(getattr(args, k), source, 1)
                seconds[k] += t
                named[k] = minimum
            if named["old"] != named["new"]:
                print(f"program {n}: minimum {named['old']} -> "
                      f"{named['new']}")
                if named["old"] and named["new"]:
                    lower += named["new"] < named["old"]
                    higher += named["new"] > named["old"]
            low = named["old"] or 1
            for budget in sorted({high, low, (high + low) // 2},
                                 reverse=True):
                result = {}
                for k in ("old", "new"):
                    result[k] = compile_at(getattr(args, k), source, budget)
                    seconds[k] += result[k][0]
                    refused[k] += result[k][1] != 0
                runs.append((result["new"][0], result["old"][0], n, budget))
                old, new = result["old"][2], result["new"][2]
                if result["old"][1] != result["new"][1]:
                    print(f"program {n} at {budget} bytes: exit "
                          f"{result['old'][1]} -> {result['new'][1]}")
                elif old is not None and new is not None:
                    if new < old:
                        cheaper += 1
                    elif new > old:
                        dearer += 1
                        print(f"program {n} at {budget} bytes: overhead "
                              f"{old}% -> {new}%")
                    else:
                        same += 1
            sys.stdout.flush()
    runs.sort(reverse=True)
    for new, old, n, budget in runs[:5]:
        print(f"program {n} at {budget} bytes: new {new:.2f} s, "
              f"old {old:.2f} s")
    print(f"minimums: {lower} lower, {higher} higher; overheads: {cheaper} "
          f"lower, {dearer} higher, {same} equal; refused: old "
          f"{refused['old']}, new {refused['new']}; time: old "
          f"{seconds['old']:.1f} s, new {seconds['new']:.1f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
